/* SPDX-License-Identifier: MIT */
/* src/ops/bitcast.c: bitcast, the reinterpretation of a word's bits as a word of another sort of
 * the same width, or as a binary32 / binary64 number of the model's scalar (and back).
 *
 * Words, their patterns and offsets, and how an arm reads a box or an MPFI enclosure of a word
 * port, are those of src/ops/integer.c (the family's shared helpers: src/ops/integer_impl.h).
 * The source's sort is not in the IBP and MPFI arms' boxes: they read it from the node view
 * (nv->in_sort); a view without sorts makes them CN_EUNSUPPORTED (never a guess).  The arms
 * receive tensors, boxes and vectors of the node's shape, of the sorts out_sort admitted (the
 * graph builder checked the node): they state it with CN__ASSERTD.
 *
 *   bitcast (x), cn_params_bitcast {to}: each element read as a word of TO of the same width.
 *     out_sort  a word source of width N: to a word sort of width N (any signedness), or to
 *              the model's scalar through binary32 (N = 32, TO f32) or binary64 (N = 64, TO f64);
 *              the model's scalar as source: to a word sort of width 32 (binary32) or 64
 *              (binary64).  Refused (CN_EINVAL, naming both sorts): a Boolean on either side,
 *              different widths, an 8- or 16-bit word with the model's scalar (no binary8/16
 *              format), and the model's scalar to itself (not a reinterpretation).
 *     forward  word -> word: the pattern copied.  word -> scalar: the binary32/binary64 number
 *              with that interchange encoding (NaN patterns give NaNs), held in the evaluation's
 *              sort (exact, except binary64 -> f32, rounded to nearest).  scalar -> word: the
 *              scalar rounded to nearest into the format (exact when the evaluation's sort is the
 *              format), then its encoding; an IEEE -0 has the sign bit set.
 *     IBP  the reals have no -0 and no NaN: a real x maps to the encoding of RN_F(x) (+0 for
 *              0).  RN_F and the encoding of each sign are monotone: x >= 0 gives patterns
 *              [enc RN(max(l, 0)), enc RN(h)] (nondecreasing), x < 0 gives sign | [enc RN(|x|)]
 *              over |x| in [max(-h, 0), -l] (an end -0.0 of the box counts as holding the IEEE
 *              -0, so that the forward value there is inside); each piece is one pattern
 *              interval, read in TO's sort; the hull, exact.  word -> scalar: each sign half of
 *              the source's patterns gives magnitudes [m0, m1]; a magnitude above the infinity's
 *              (a NaN pattern) is CN_ENUMERIC, else the numbers [dec m0, dec m1] (negated and
 *              swapped for the sign half), infinite ends included; the hull, exact.  word ->
 *              word: each half of the source's patterns is one interval of TO's values.
 *     MPFI the same, RN_F by mpfr_get_d / mpfr_get_flt (MPFR_RNDN), exact at points.
 *     jvp  zero tangents (no value input; the seed's "forward mode at some attributes": the arm
 *          is there for every attribute, and a word output's tangents are zero too).
 *
 * Forward accuracy: exact (0 ulp), but a 64-bit word to the model's scalar in an f32 evaluation
 * (binary64 rounded to nearest into binary32, 0.5 ulp). */
#include <config.h>
#include <math.h>
#include <stdint.h>
#include <string.h>
#include "ops/integer_impl.h"
#include "ops/unary_impl.h"

#define PBITCAST(nv) ((const cn_params_bitcast *) (nv)->params)

/* The interchange encoding of RN_F(X), F binary32 (W = 32) or binary64 (W = 64). */
static inline uint64_t
enc (double x, int w)
{
  if (w == 32)
    {
      float f = (float) x;   /* to nearest (certnn never changes the rounding mode) */
      uint32_t b;
      memcpy (&b, &f, sizeof b);
      return b;
    }
  uint64_t b;
  memcpy (&b, &x, sizeof b);
  return b;
}

/* The number encoded by the W-bit pattern P, as a double (exact). */
static inline double
dec (uint64_t p, int w)
{
  if (w == 32)
    {
      uint32_t b = (uint32_t) p;
      float f;
      memcpy (&f, &b, sizeof f);
      return f;
    }
  double d;
  memcpy (&d, &p, sizeof d);
  return d;
}

/* The magnitude pattern of the format's infinity. */
static inline uint64_t
inf_bits (int w)
{
  return w == 32 ? 0x7f800000u : 0x7ff0000000000000u;
}

static cn_status
bitcast_params_ok (const void *p, cn_error *err)
{
  if (p == NULL)
    return cn_error_set (err, CN_EINVAL, "bitcast: missing attribute record");
  cn_dtype to = ((const cn_params_bitcast *) p)->to;
  if ((unsigned) to >= CN_DTYPE_COUNT || to == CN_DTYPE_BOOL || cn_dtype_is_reduced (to))
    return cn_error_set (err, CN_EINVAL, "bitcast: the target sort %s is not a word sort or a binary format it reads "
                         "(binary32, binary64)", (unsigned) to < CN_DTYPE_COUNT ? cn_dtype_name (to) : "(invalid)");
  return CN_OK;
}

static cn_status
bitcast_check (const struct cn_op_rule *rule, const void *p, int n_in, const cn_shape *const *in, cn_shape *out,
               cn_error *err)
{
  (void) rule;
  cn_status st = bitcast_params_ok (p, err);
  if (st != CN_OK)
    return st;
  return cn__check_unary ("bitcast", n_in, in, out, err);
}

/* The width of the sort T as bitcast reads it (0: the model's scalar, whose width is TO's). */
static int
sort_width (cn_dtype t)
{
  cn__wsort s;
  if (t == CN_DTYPE_F32)
    return 32;
  if (t == CN_DTYPE_F64)
    return 64;
  return cn__wsort_of (t, &s) ? s.w : 0;
}

/* Checks the pair of sorts FROM (the input's, CN_DTYPE_F64 for the model's scalar) and TO. */
static cn_status
bitcast_sorts_ok (cn_dtype from, cn_dtype to, cn_error *err)
{
  cn__wsort a, b;
  int wf = cn__wsort_of (from, &a), wt = cn__wsort_of (to, &b);
  if (!wf && !cn_dtype_is_float (from))
    return cn_error_set (err, CN_EINVAL, "bitcast: input sort %s has no word width", cn__sort_name (from));
  if (!wf && !wt)
    return cn_error_set (err, CN_EINVAL, "bitcast: from the model's scalar to %s (the model's scalar) is not a "
                         "reinterpretation", cn_dtype_name (to));
  if (!wf)
    {
      if (b.w < 32)
        return cn_error_set (err, CN_EINVAL, "bitcast: from the model's scalar to %s: there is no %d-bit binary format",
                             cn_dtype_name (to), b.w);
      return CN_OK;
    }
  if (!wt && a.w < 32)
    return cn_error_set (err, CN_EINVAL, "bitcast: from %s to %s (the model's scalar): there is no %d-bit binary format",
                         cn_dtype_name (from), cn_dtype_name (to), a.w);
  if (a.w != sort_width (to))
    return cn_error_set (err, CN_EINVAL, "bitcast: %s is %d bits wide, %s %d", cn_dtype_name (from), a.w,
                         wt ? cn_dtype_name (to) : to == CN_DTYPE_F32 ? "f32 (binary32)" : "f64 (binary64)",
                         sort_width (to));
  return CN_OK;
}

static cn_status
bitcast_out_sort (const struct cn_op_rule *rule, const void *p, int n_in, const cn_dtype *in, cn_dtype *out,
                  cn_error *err)
{
  (void) rule;
  cn_status st = bitcast_params_ok (p, err);
  if (st != CN_OK)
    return st;
  if (n_in != 1)
    return cn_error_set (err, CN_EINVAL, "bitcast: takes 1 input, got %d", n_in);
  cn_dtype to = ((const cn_params_bitcast *) p)->to;
  if ((st = bitcast_sorts_ok (in[0], to, err)) != CN_OK)
    return st;
  *out = cn_dtype_is_float (to) ? CN_DTYPE_F64 : to;
  return CN_OK;
}

static cn_status
bitcast_forward (const cn_node_view *nv, const cn_tensor *const *in, cn_tensor *out, cn_error *err)
{
  (void) err;
  CN__ASSERTD (bitcast_params_ok (nv->params, NULL) == CN_OK);   /* the check admitted the record */
  cn_dtype to = PBITCAST (nv)->to, src = in[0]->dtype;
  int64_t n = cn__numel (nv->out_shape);
  /* the tensors are of the node's shape, the output of the sort out_sort gave, and the pair of
   * sorts is one out_sort admitted */
  CN__ASSERTD (cn_tensor_numel (in[0]) == n && cn_tensor_numel (out) == n
               && (cn_dtype_is_float (to) ? cn_dtype_is_float (out->dtype) : out->dtype == to));
  CN__ASSERTD (bitcast_sorts_ok (cn_dtype_is_float (src) ? CN_DTYPE_F64 : src, to, NULL) == CN_OK);
  int w = sort_width (to);
  if (cn_dtype_is_float (src))
    {
      /* the scalar rounded to nearest into the format (exact from the same sort), encoded */
      for (int64_t j = 0; j < n; j++)
        cn__word_store (out->data, w, j, enc (cn__float_get (in[0], j), w));
      return CN_OK;
    }
  if (!cn_dtype_is_float (to))
    {
      memcpy (out->data, in[0]->data, (size_t) n * cn_dtype_size (to));   /* same width: the patterns */
      return CN_OK;
    }
  for (int64_t j = 0; j < n; j++)
    cn__float_put (out, j, dec (cn__word_load (in[0]->data, w, j), w));
  return CN_OK;
}

/* The exact range of bitcast from the words of offsets [A, B] of sort S: to TO's words (offsets
 * into *RLO, *RHI) or to the scalar (the numbers into *DLO, *DHI). */
static cn_status
bitcast_word_range (const cn_node_view *nv, const cn__wsort *s, cn_dtype to, uint64_t a, uint64_t b, int64_t j,
                    uint64_t *rlo, uint64_t *rhi, double *dlo, double *dhi, cn_error *err)
{
  uint64_t p[2][2];
  int np = cn__word_halves (s, a, b, p), any = 0;
  cn__wsort t;
  if (cn__wsort_of (to, &t))
    {
      for (int k = 0; k < np; k++)
        cn__word_hull (&any, rlo, rhi, cn__word_pat (&t, p[k][0]), cn__word_pat (&t, p[k][1]));
      /* each half is one interval of TO's offsets: pat is monotone within a half */
      return CN_OK;
    }
  uint64_t inf = inf_bits (s->w);
  for (int k = 0; k < np; k++)
    {
      int neg = (p[k][0] & s->top) != 0;
      uint64_t m0 = p[k][0] & ~s->top, m1 = p[k][1] & ~s->top;
      if (m1 > inf)
        return cn_error_set (err, CN_ENUMERIC, "bitcast: the words at entry %lld include NaN encodings (node '%s')",
                             (long long) j, cn__node_name (nv));
      double x0 = dec (m0, s->w), x1 = dec (m1, s->w);   /* nondecreasing in the magnitude */
      double l = neg ? -x1 : x0, h = neg ? -x0 : x1;
      if (!any || l < *dlo)
        *dlo = l;
      if (!any || h > *dhi)
        *dhi = h;
      any = 1;
    }
  return CN_OK;
}

/* The offsets [*RLO, *RHI] in TO's sort of the encodings of RN(x), x in [L, H] (see the header);
 * RNP and RNN are the encodings' magnitudes at the nonnegative piece's ends (RNP[0], RNP[1]) and
 * at the negative piece's magnitudes (RNN[0] <= RNN[1]); HAS_P and HAS_N say which pieces exist. */
static void
bitcast_scalar_range (const cn__wsort *t, int has_p, const uint64_t *rnp, int has_n, const uint64_t *rnn, uint64_t *rlo,
                      uint64_t *rhi)
{
  int any = 0;
  if (has_p)
    cn__word_hull (&any, rlo, rhi, cn__word_pat (t, rnp[0]), cn__word_pat (t, rnp[1]));
  if (has_n)
    cn__word_hull (&any, rlo, rhi, cn__word_pat (t, t->top | rnn[0]), cn__word_pat (t, t->top | rnn[1]));
}

/* The sorts FROM (the input's, as the node view carries it) and TO (the attribute) of a bitcast
 * node, a pair out_sort admitted; CN_EUNSUPPORTED when the view carries no input sorts. */
static cn_status
bitcast_view_sorts (const cn_node_view *nv, cn_dtype *from, cn_dtype *to, cn_error *err)
{
  CN__ASSERTD (bitcast_params_ok (nv->params, NULL) == CN_OK);   /* the check admitted the record */
  *to = PBITCAST (nv)->to;
  *from = cn__view_input_sort (nv, 0);
  if (*from == CN_DTYPE_COUNT)
    return cn_error_set (err, CN_EUNSUPPORTED, "bitcast: the node view does not carry the input sorts (node '%s')",
                         cn__node_name (nv));
  CN__ASSERTD (bitcast_sorts_ok (*from, *to, NULL) == CN_OK);
  return CN_OK;
}

static cn_status
bitcast_ibp (const cn_node_view *nv, const cn_box *const *in, cn_box *out, cn_error *err)
{
  CN__ASSERTD (out->n == cn__numel (nv->out_shape) && in[0]->n == out->n);
  cn_dtype from, to;
  cn_status st = bitcast_view_sorts (nv, &from, &to, err);
  if (st != CN_OK)
    return st;
  cn__wsort s = { 0 }, t = { 0 };
  int src_word = cn__wsort_of (from, &s);
  cn__wsort_of (to, &t);
  for (int64_t j = 0; j < out->n; j++)
    {
      double l = in[0]->lo[j], h = in[0]->hi[j];
      uint64_t rlo = 0, rhi = 0;
      if (!src_word)
        {
          if (isnan (l) || isnan (h))
            return cn_error_set (err, CN_ENUMERIC, "bitcast: input 0 has a NaN end at entry %lld (node '%s')",
                                 (long long) j, cn__node_name (nv));
          uint64_t rnp[2] = { 0, 0 }, rnn[2] = { 0, 0 };
          int has_p = h >= 0, has_n = l < 0 || (l == 0 && signbit (l));
          if (has_p)
            {
              rnp[0] = enc (l > 0 ? l : 0.0, t.w);
              rnp[1] = enc (h, t.w);
            }
          if (has_n)
            {
              rnn[0] = h < 0 ? enc (-h, t.w) : 0;
              rnn[1] = enc (-l, t.w);
            }
          bitcast_scalar_range (&t, has_p, rnp, has_n, rnn, &rlo, &rhi);
          out->lo[j] = cn__word_off_to_d (&t, rlo, 0);
          out->hi[j] = cn__word_off_to_d (&t, rhi, 1);
          continue;
        }
      uint64_t a, b;
      double dlo = 0, dhi = 0;
      if ((st = cn__word_box (nv, &s, l, h, 0, j, &a, &b, err)) != CN_OK
          || (st = bitcast_word_range (nv, &s, to, a, b, j, &rlo, &rhi, &dlo, &dhi, err)) != CN_OK)
        return st;
      if (cn_dtype_is_float (to))
        {
          out->lo[j] = dlo;
          out->hi[j] = dhi;
        }
      else
        {
          out->lo[j] = cn__word_off_to_d (&t, rlo, 0);
          out->hi[j] = cn__word_off_to_d (&t, rhi, 1);
        }
    }
  return CN_OK;
}

/* The encoding's magnitude of RN_F(|X|) for an MPFR number X (F of width W). */
static uint64_t
enc_fr (mpfr_srcptr x, int w)
{
  if (w == 32)
    return enc (fabsf (mpfr_get_flt (x, MPFR_RNDN)), 32);
  return enc (fabs (mpfr_get_d (x, MPFR_RNDN)), 64);
}

static cn_status
bitcast_mpfi (const cn_node_view *nv, const cn_mpfi_vec *const *in, cn_mpfi_vec *out, cn_error *err)
{
  CN__ASSERTD (out->n == cn__numel (nv->out_shape) && in[0]->n == out->n);
  cn_dtype from, to;
  cn_status st = bitcast_view_sorts (nv, &from, &to, err);
  if (st != CN_OK)
    return st;
  if (out->n == 0)
    return CN_OK;
  cn__wsort s = { 0 }, t = { 0 };
  int src_word = cn__wsort_of (from, &s);
  cn__wsort_of (to, &t);
  mpfr_t t0, t1;
  mpfr_init2 (t0, mpfi_get_prec (out->v[0]));
  mpfr_init2 (t1, mpfi_get_prec (out->v[0]));
  for (int64_t j = 0; j < out->n && st == CN_OK; j++)
    {
      mpfi_srcptr x = in[0]->v[j];
      uint64_t rlo = 0, rhi = 0;
      if (!src_word)
        {
          if (mpfi_nan_p (x))
            {
              st = cn_error_set (err, CN_ENUMERIC, "bitcast: input 0 has a NaN end at entry %lld (node '%s')",
                                 (long long) j, cn__node_name (nv));
              break;
            }
          uint64_t rnp[2] = { 0, 0 }, rnn[2] = { 0, 0 };
          int has_p = mpfr_sgn (&x->right) >= 0, has_n = mpfr_sgn (&x->left) < 0;
          if (has_p)
            {
              rnp[0] = mpfr_sgn (&x->left) > 0 ? enc_fr (&x->left, t.w) : 0;
              rnp[1] = enc_fr (&x->right, t.w);
            }
          if (has_n)
            {
              rnn[0] = mpfr_sgn (&x->right) < 0 ? enc_fr (&x->right, t.w) : 0;
              rnn[1] = enc_fr (&x->left, t.w);
            }
          bitcast_scalar_range (&t, has_p, rnp, has_n, rnn, &rlo, &rhi);
          cn__word_mpfi_set (out->v[j], &t, rlo, rhi, t0, t1);
          continue;
        }
      uint64_t a, b;
      double dlo = 0, dhi = 0;
      if ((st = cn__word_enclosure (nv, &s, x, 0, j, &a, &b, err)) != CN_OK
          || (st = bitcast_word_range (nv, &s, to, a, b, j, &rlo, &rhi, &dlo, &dhi, err)) != CN_OK)
        break;
      if (cn_dtype_is_float (to))
        mpfi_interv_d (out->v[j], dlo, dhi);   /* exact at precision >= 53, else outward */
      else
        cn__word_mpfi_set (out->v[j], &t, rlo, rhi, t0, t1);
    }
  mpfr_clear (t0);
  mpfr_clear (t1);
  return st;
}

static const cn_port_kind any1[1] = { CN_PORT_ANY };

const struct cn_op_rule cn__rule_BITCAST = { .op = CN_OP_BITCAST,
  .sorts = "f64, f32, words",
  .n_in = 1, .in_kind = any1, .check = bitcast_check,
  .out_sort = bitcast_out_sort, .forward = bitcast_forward, .jvp = cn__zero_jvp, .ibp = bitcast_ibp,
  .ibp_mpfi = bitcast_mpfi,
  .certs = CN__CERTS (CN__CERT_IBP),
};

