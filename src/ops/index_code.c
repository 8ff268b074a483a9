/* SPDX-License-Identifier: MIT */
/* src/ops/index_code.c: encodeIndex and decodeIndex, the linear code of index tuples as integer
 * words (the seed's integer family, cn_params_index_code).
 *
 * Words, and how an arm reads a box or an MPFI enclosure of a word port, are those of
 * src/ops/integer.c (the family's shared helpers: src/ops/integer_impl.h).  Every range below is
 * computed exactly on integers.  The arms receive tensors, boxes and vectors of the node's shapes
 * and sorts, under attributes the check admitted (the graph builder checked the node): they
 * state it with CN__ASSERTD.
 *
 *   encodeIndex (i), cn_params_index_code {r, bound, word}: i an index port [..., R] of the
 *              model's scalar -> WORD [...], L = sum_c i_c stride_c, stride_c = prod_{c' > c}
 *              bound_c'.  check: 1 <= R <= CN_MAX_RANK - 1, 1 <= bound_c <= 2^53 (a component
 *              must be exact in binary64, the model's scalar at an index port), WORD an integer
 *              sort, the input's last extent R.
 *     forward  every tuple checked first: a component that is not an integer in [0, bound_c)
 *              (NaN included) or a linear index above WORD's maximum is CN_ENUMERIC, nothing
 *              written; then L, exactly (uint64_t with overflow detection).
 *     IBP/MPFI each component's box is read as the integers it holds, [ceil l, floor h]; none,
 *              or one outside [0, bound_c), is CN_ENUMERIC (the forward fails there); L is
 *              increasing in every component: [L(ceil l), L(floor h)], CN_ENUMERIC if the upper
 *              one is above WORD's maximum.  Exact.
 *   decodeIndex (w), the same record: w of sort WORD [...] -> an index port [..., R] of the
 *              model's scalar, i_c = floor(w / stride_c) mod bound_c.  check as encodeIndex, the
 *              input's rank at most CN_MAX_RANK - 1 (the bounds above 2^53 refused there are how
 *              this file reads the seed's "no rule at some attributes"); out_sort: the input's
 *              sort is WORD.
 *     forward  every word checked first: outside [0, prod bound) is CN_ENUMERIC; components are
 *              integers below 2^53, exact in f64 (rounded to nearest in an f32 evaluation above
 *              2^24).
 *     IBP/MPFI words [a, b] (CN_ENUMERIC if they reach outside [0, prod bound)); with q = floor(
 *              . / stride_c), increasing: if q(a) and q(b) lie in the same block of bound_c
 *              consecutive values, [q(a) mod bound_c, q(b) mod bound_c], else [0, bound_c - 1]
 *              (the run of quotients wraps through bound_c - 1 and 0).  Exact.
 *     jvp  zero tangents (no value input).
 *
 * Forward accuracy: exact (0 ulp), but decodeIndex components above 2^24 in an f32 evaluation
 * (0.5 ulp). */
#include <config.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include "ops/integer_impl.h"

/* ---- encodeIndex, decodeIndex ------------------------------------------------------------- */

#define PCODE(nv) ((const cn_params_index_code *) (nv)->params)

static cn_status
code_params_ok (const char *op, const void *pv, cn_error *err)
{
  const cn_params_index_code *p = pv;
  cn__wsort s;
  if (p == NULL)
    return cn_error_set (err, CN_EINVAL, "%s: missing attribute record", op);
  if (p->r < 1 || p->r > CN_MAX_RANK - 1)
    return cn_error_set (err, CN_EINVAL, "%s: tuple length %d outside 1 .. %d", op, p->r, CN_MAX_RANK - 1);
  for (int c = 0; c < p->r; c++)
    if (p->bound[c] < 1 || p->bound[c] > ((int64_t) 1 << 53))
      return cn_error_set (err, CN_EINVAL, "%s: bound %lld of component %d outside 1 .. 2^53", op,
                           (long long) p->bound[c], c);
  if (!cn__wsort_of (p->word, &s))
    return cn_error_set (err, CN_EINVAL, "%s: word sort %s is not an integer sort", op, cn__sort_name (p->word));
  return CN_OK;
}

/* The strides of the code (stride_c = prod_{c' > c} bound_c') and the total P = prod bound,
 * each with a flag set when it is 2^64 or more (then its value is meaningless). */
struct code_strides
{
  uint64_t stride[CN_MAX_RANK], total;
  int big[CN_MAX_RANK], total_big;
};

static void
code_strides (const cn_params_index_code *p, struct code_strides *cs)
{
  uint64_t acc = 1;
  int big = 0;
  for (int c = p->r - 1; c >= 0; c--)
    {
      cs->stride[c] = acc;
      cs->big[c] = big;
      uint64_t b = (uint64_t) p->bound[c];
      if (!big && acc > UINT64_MAX / b)
        big = 1;
      else if (!big)
        acc *= b;
    }
  cs->total = acc;
  cs->total_big = big;
}

/* The greatest word of the sort S, as an unsigned number. */
static inline uint64_t
word_max (const cn__wsort *s)
{
  return s->sgn ? s->top - 1 : s->mask;
}

/* L = sum_c I[c] stride_c, exact; returns 0 if L > MAX (overflow included). */
static int
code_linear (const cn_params_index_code *p, const struct code_strides *cs, const uint64_t *i, uint64_t max,
             uint64_t *l)
{
  uint64_t acc = 0;
  for (int c = 0; c < p->r; c++)
    {
      if (i[c] == 0)
        continue;
      if (cs->big[c] || cs->stride[c] > UINT64_MAX / i[c])
        return 0;
      uint64_t t = i[c] * cs->stride[c];
      if (acc > UINT64_MAX - t)
        return 0;
      acc += t;
    }
  *l = acc;
  return acc <= max;
}

static cn_status
encode_check (const struct cn_op_rule *rule, const void *p, int n_in, const cn_shape *const *in, cn_shape *out,
              cn_error *err)
{
  (void) rule;
  cn_status st = code_params_ok ("encodeIndex", p, err);
  if (st != CN_OK)
    return st;
  if (n_in != 1)
    return cn_error_set (err, CN_EINVAL, "encodeIndex: takes 1 input, got %d", n_in);
  if ((st = cn__input_valid ("encodeIndex", 0, in[0], err)) != CN_OK)
    return st;
  int r = ((const cn_params_index_code *) p)->r;
  if (in[0]->rank < 1 || in[0]->dim[in[0]->rank - 1] != r)
    {
      char a[128];
      return cn_error_set (err, CN_ESHAPE, "encodeIndex: input %s does not end in an axis of the tuple length %d",
                           cn_shape_format (in[0], a, sizeof a), r);
    }
  cn_shape o = cn__shape_clean (in[0]);
  o.rank--;
  o.dim[o.rank] = 0;
  *out = o;
  return CN_OK;
}

static cn_status
encode_out_sort (const struct cn_op_rule *rule, const void *p, int n_in, const cn_dtype *in, cn_dtype *out,
                 cn_error *err)
{
  (void) rule;
  cn_status st = code_params_ok ("encodeIndex", p, err);
  if (st != CN_OK)
    return st;
  if (n_in != 1)
    return cn_error_set (err, CN_EINVAL, "encodeIndex: takes 1 input, got %d", n_in);
  if (!cn_dtype_is_float (in[0]))
    return cn_error_set (err, CN_EINVAL, "encodeIndex: input 0 has sort %s where the model's scalar (an index port) is "
                         "expected", cn__sort_name (in[0]));
  *out = ((const cn_params_index_code *) p)->word;
  return CN_OK;
}

/* Reads tuple T of the index tensor X into I, checking every component (see the header). */
static cn_status
encode_tuple (const cn_node_view *nv, const cn_tensor *x, int64_t t, uint64_t *i, cn_error *err)
{
  const cn_params_index_code *p = PCODE (nv);
  for (int c = 0; c < p->r; c++)
    {
      double v = cn__float_get (x, t * p->r + c);
      if (!(v == floor (v) && v >= 0 && v < (double) p->bound[c]))
        return cn_error_set (err, CN_ENUMERIC, "encodeIndex: component %d of tuple %lld is %g, not an integer in "
                             "[0, %lld) (node '%s')", c, (long long) t, v, (long long) p->bound[c], cn__node_name (nv));
      i[c] = (uint64_t) v;   /* exact: an integer below 2^53 */
    }
  return CN_OK;
}

static cn_status
encode_forward (const cn_node_view *nv, const cn_tensor *const *in, cn_tensor *out, cn_error *err)
{
  CN__ASSERTD (code_params_ok ("encodeIndex", nv->params, NULL) == CN_OK);   /* the check admitted it */
  const cn_params_index_code *p = PCODE (nv);
  cn__wsort s = { 0 };
  cn__wsort_of (p->word, &s);   /* checked by code_params_ok */
  int64_t n = cn__numel (nv->out_shape);
  /* the output is a WORD tensor of the node's shape, the input the tuples of the model's scalar */
  CN__ASSERTD (out->dtype == p->word && cn_tensor_numel (out) == n && cn_dtype_is_float (in[0]->dtype)
               && cn_tensor_numel (in[0]) == n * p->r);
  cn_status st;
  struct code_strides cs;
  code_strides (p, &cs);
  uint64_t i[CN_MAX_RANK], l;
  /* pass 0 checks every tuple, pass 1 writes: nothing is written unless all of them encode */
  for (int pass = 0; pass < 2; pass++)
    for (int64_t t = 0; t < n; t++)
      {
        if ((st = encode_tuple (nv, in[0], t, i, err)) != CN_OK)
          return st;
        if (!code_linear (p, &cs, i, word_max (&s), &l))
          return cn_error_set (err, CN_ENUMERIC, "encodeIndex: the linear index of tuple %lld exceeds %s's greatest "
                               "word %llu (node '%s')", (long long) t, cn_dtype_name (p->word),
                               (unsigned long long) word_max (&s), cn__node_name (nv));
        if (pass == 1)
          cn__word_store (out->data, s.w, t, l);   /* l <= max: the value's pattern */
      }
  return CN_OK;
}

static cn_status
component_error (const cn_node_view *nv, int64_t t, int c, const char *what, cn_error *err)
{
  return cn_error_set (err, CN_ENUMERIC, "encodeIndex: the box of component %d of tuple %lld %s (node '%s')", c,
                       (long long) t, what, cn__node_name (nv));
}

/* The linear range [*LO, *HI] of the tuples whose components lie in [IL[c], IH[c]] (integers
 * already in [0, bound_c)), or CN_ENUMERIC if the greatest is beyond the word. */
static cn_status
encode_range (const cn_node_view *nv, const struct code_strides *cs, int64_t t, const uint64_t *il, const uint64_t *ih,
              uint64_t *lo, uint64_t *hi, cn_error *err)
{
  const cn_params_index_code *p = PCODE (nv);
  cn__wsort s = { 0 };
  cn__wsort_of (p->word, &s);   /* checked by code_params_ok */
  if (!code_linear (p, cs, ih, word_max (&s), hi))
    return cn_error_set (err, CN_ENUMERIC, "encodeIndex: the linear indices of tuple %lld may exceed %s's greatest word "
                         "%llu (node '%s')", (long long) t, cn_dtype_name (p->word), (unsigned long long) word_max (&s),
                         cn__node_name (nv));
  code_linear (p, cs, il, word_max (&s), lo);   /* il <= ih componentwise: no overflow */
  return CN_OK;
}

/* The opening of the IBP and MPFI arms of encodeIndex and decodeIndex: under attributes the
 * check admitted, the IN_N input and OUT_N output entries (boxes or vectors) match the node, with
 * out_n = numel(out) and R words a tuple on the input side (TUPLES_IN: encode) or on the output
 * side (decode); writes the word sort *S and the strides *CS. */
static void
code_arms_open (const cn_node_view *nv, int tuples_in, int64_t in_n, int64_t out_n, cn__wsort *s,
                struct code_strides *cs)
{
  CN__ASSERTD (code_params_ok (cn_op_name (nv->op), nv->params, NULL) == CN_OK);
  const cn_params_index_code *p = PCODE (nv);
  int64_t m = tuples_in ? out_n : in_n;   /* the number of tuples */
  CN__ASSERTD (out_n == cn__numel (nv->out_shape) && (tuples_in ? in_n : out_n) == m * p->r);
  (void) m;
  cn__wsort z = { 0 };
  *s = z;
  cn__wsort_of (p->word, s);   /* checked by code_params_ok */
  code_strides (p, cs);
}

static cn_status
encode_ibp (const cn_node_view *nv, const cn_box *const *in, cn_box *out, cn_error *err)
{
  cn__wsort s;
  struct code_strides cs;
  cn_status st;
  code_arms_open (nv, 1, in[0]->n, out->n, &s, &cs);
  const cn_params_index_code *p = PCODE (nv);
  int64_t n = out->n;
  for (int64_t t = 0; t < n; t++)
    {
      uint64_t il[CN_MAX_RANK], ih[CN_MAX_RANK], lo, hi;
      for (int c = 0; c < p->r; c++)
        {
          double l = in[0]->lo[t * p->r + c], h = in[0]->hi[t * p->r + c];
          if (isnan (l) || isnan (h))
            return component_error (nv, t, c, "has a NaN end", err);
          double a = ceil (l), b = floor (h);
          if (a > b)
            return component_error (nv, t, c, "holds no integer", err);
          if (a < 0 || b >= (double) p->bound[c])
            return component_error (nv, t, c, "reaches past its bound", err);
          il[c] = (uint64_t) a;
          ih[c] = (uint64_t) b;
        }
      if ((st = encode_range (nv, &cs, t, il, ih, &lo, &hi, err)) != CN_OK)
        return st;
      out->lo[t] = cn__u64_dir (lo, 0);
      out->hi[t] = cn__u64_dir (hi, 1);
    }
  return CN_OK;
}

static cn_status
encode_mpfi (const cn_node_view *nv, const cn_mpfi_vec *const *in, cn_mpfi_vec *out, cn_error *err)
{
  cn__wsort s;
  struct code_strides cs;
  cn_status st = CN_OK;
  code_arms_open (nv, 1, in[0]->n, out->n, &s, &cs);
  const cn_params_index_code *p = PCODE (nv);
  int64_t n = out->n;
  if (n == 0)
    return CN_OK;
  mpfr_t t0, t1;
  mpfr_init2 (t0, mpfi_get_prec (out->v[0]));
  mpfr_init2 (t1, mpfi_get_prec (out->v[0]));
  for (int64_t t = 0; t < n && st == CN_OK; t++)
    {
      uint64_t il[CN_MAX_RANK], ih[CN_MAX_RANK], lo, hi;
      for (int c = 0; c < p->r && st == CN_OK; c++)
        {
          mpfi_srcptr x = in[0]->v[t * p->r + c];
          if (mpfi_nan_p (x))
            {
              st = component_error (nv, t, c, "has a NaN end", err);
              break;
            }
          /* ceil(left), floor(right), saturated at intmax_t's range (far past any bound) */
          intmax_t a = mpfr_get_sj (&x->left, MPFR_RNDU), b = mpfr_get_sj (&x->right, MPFR_RNDD);
          if (a > b)
            st = component_error (nv, t, c, "holds no integer", err);
          else if (a < 0 || b >= p->bound[c])
            st = component_error (nv, t, c, "reaches past its bound", err);
          else
            {
              il[c] = (uint64_t) a;
              ih[c] = (uint64_t) b;
            }
        }
      if (st != CN_OK || (st = encode_range (nv, &cs, t, il, ih, &lo, &hi, err)) != CN_OK)
        break;
      mpfr_set_uj (t0, lo, MPFR_RNDD);
      mpfr_set_uj (t1, hi, MPFR_RNDU);
      mpfi_interv_fr (out->v[t], t0, t1);
    }
  mpfr_clear (t0);
  mpfr_clear (t1);
  return st;
}

static cn_status
decode_check (const struct cn_op_rule *rule, const void *p, int n_in, const cn_shape *const *in, cn_shape *out,
              cn_error *err)
{
  (void) rule;
  cn_status st = code_params_ok ("decodeIndex", p, err);
  if (st != CN_OK)
    return st;
  if (n_in != 1)
    return cn_error_set (err, CN_EINVAL, "decodeIndex: takes 1 input, got %d", n_in);
  if ((st = cn__input_valid ("decodeIndex", 0, in[0], err)) != CN_OK)
    return st;
  if (in[0]->rank > CN_MAX_RANK - 1)
    return cn_error_set (err, CN_ESHAPE, "decodeIndex: input rank %d leaves no room for the tuple axis", in[0]->rank);
  cn_shape o = cn__shape_clean (in[0]);
  o.dim[o.rank++] = ((const cn_params_index_code *) p)->r;
  if ((st = cn__shape_valid ("decodeIndex", "the output", &o, err)) != CN_OK)
    return st;
  *out = o;
  return CN_OK;
}

static cn_status
decode_out_sort (const struct cn_op_rule *rule, const void *p, int n_in, const cn_dtype *in, cn_dtype *out,
                 cn_error *err)
{
  (void) rule;
  cn_status st = code_params_ok ("decodeIndex", p, err);
  if (st != CN_OK)
    return st;
  if (n_in != 1)
    return cn_error_set (err, CN_EINVAL, "decodeIndex: takes 1 input, got %d", n_in);
  cn_dtype word = ((const cn_params_index_code *) p)->word;
  if (in[0] != word)
    return cn_error_set (err, CN_EINVAL, "decodeIndex: input sort %s differs from the word sort %s", cn__sort_name (in[0]),
                         cn_dtype_name (word));
  *out = CN_DTYPE_F64;
  return CN_OK;
}

/* The word of pattern Q as an unsigned number in [0, P), or 0 if it is outside. */
static int
decode_word (const cn__wsort *s, const struct code_strides *cs, uint64_t q, uint64_t *v)
{
  if (s->sgn && (q & s->top))
    return 0;
  *v = q;
  return cs->total_big || q < cs->total;
}

static cn_status
decode_forward (const cn_node_view *nv, const cn_tensor *const *in, cn_tensor *out, cn_error *err)
{
  CN__ASSERTD (code_params_ok ("decodeIndex", nv->params, NULL) == CN_OK);   /* the check admitted it */
  const cn_params_index_code *p = PCODE (nv);
  int64_t n = cn_tensor_numel (in[0]);
  /* the input is a WORD tensor, the output the tuples of the model's scalar, of the node's shape */
  CN__ASSERTD (in[0]->dtype == p->word && cn_dtype_is_float (out->dtype)
               && cn_tensor_numel (out) == cn__numel (nv->out_shape) && n * p->r == cn_tensor_numel (out));
  cn__wsort s = { 0 };
  cn__wsort_of (p->word, &s);   /* checked by code_params_ok */
  struct code_strides cs;
  code_strides (p, &cs);
  uint64_t v;
  /* every word first: nothing is written unless all of them decode */
  for (int64_t t = 0; t < n; t++)
    {
      uint64_t q = cn__word_load (in[0]->data, s.w, t);
      if (!decode_word (&s, &cs, q, &v))
        {
          char tot[32];
          if (cs.total_big)
            snprintf (tot, sizeof tot, "2^64");
          else
            snprintf (tot, sizeof tot, "%llu", (unsigned long long) cs.total);
          char word[32];
          if (s.sgn)
            snprintf (word, sizeof word, "%lld", (long long) cn__word_sext (&s, q));
          else
            snprintf (word, sizeof word, "%llu", (unsigned long long) q);
          return cn_error_set (err, CN_ENUMERIC, "decodeIndex: word %s at entry %lld is outside [0, %s) (node '%s')", word,
                               (long long) t, tot, cn__node_name (nv));
        }
    }
  for (int64_t t = 0; t < n; t++)
    {
      decode_word (&s, &cs, cn__word_load (in[0]->data, s.w, t), &v);
      for (int c = 0; c < p->r; c++)
        {
          uint64_t q = cs.big[c] ? 0 : v / cs.stride[c];   /* v < 2^64 <= a big stride */
          cn__float_put (out, t * p->r + c, (double) (q % (uint64_t) p->bound[c]));   /* < 2^53: exact in f64 */
        }
    }
  return CN_OK;
}

/* The components' ranges of the words [A, B] (unsigned values in [0, P)) into LO, HI. */
static void
decode_range (const cn_params_index_code *p, const struct code_strides *cs, uint64_t a, uint64_t b, double *lo,
              double *hi)
{
  for (int c = 0; c < p->r; c++)
    {
      uint64_t bd = (uint64_t) p->bound[c];
      uint64_t qa = cs->big[c] ? 0 : a / cs->stride[c], qb = cs->big[c] ? 0 : b / cs->stride[c];
      /* q = floor(w / stride) is nondecreasing in w and takes every value in [qa, qb] */
      if (qa / bd == qb / bd)
        {
          lo[c] = (double) (qa % bd);
          hi[c] = (double) (qb % bd);
        }
      else
        {
          lo[c] = 0;
          hi[c] = (double) (bd - 1);
        }
    }
}

/* The words of offsets [A, B] as unsigned values in [0, P), or CN_ENUMERIC. */
static cn_status
decode_words (const cn_node_view *nv, const cn__wsort *s, const struct code_strides *cs, uint64_t a, uint64_t b,
              int64_t t, uint64_t *va, uint64_t *vb, cn_error *err)
{
  uint64_t pa = cn__word_pat (s, a), pb = cn__word_pat (s, b);
  if ((s->sgn && (pa & s->top)) || !(cs->total_big || pb < cs->total))
    return cn_error_set (err, CN_ENUMERIC, "decodeIndex: the words at entry %lld may be outside [0, prod bound) "
                         "(node '%s')", (long long) t, cn__node_name (nv));
  /* now a >= 0 (so b >= 0 too) and b < P */
  *va = pa;
  *vb = pb;
  return CN_OK;
}

/* The IBP arm (box input BIN, box output BOUT) and the MPFI arm (MIN, MOUT) of decodeIndex in one:
 * exactly one of the pairs is given.  Each entry's words [a, b] give the components' ranges by
 * decode_range (integers below 2^53, exact in both). */
static cn_status
decode_bounds (const cn_node_view *nv, const cn_box *bin, const cn_mpfi_vec *min, cn_box *bout, cn_mpfi_vec *mout,
               cn_error *err)
{
  cn__wsort s;
  struct code_strides cs;
  int64_t n = bin != NULL ? bin->n : min->n;
  cn_status st;
  code_arms_open (nv, 0, n, bout != NULL ? bout->n : mout->n, &s, &cs);
  const cn_params_index_code *p = PCODE (nv);
  for (int64_t t = 0; t < n; t++)
    {
      uint64_t a = 0, b = 0, va = 0, vb = 0;
      double lo[CN_MAX_RANK], hi[CN_MAX_RANK];
      st = bin != NULL ? cn__word_box (nv, &s, bin->lo[t], bin->hi[t], 0, t, &a, &b, err)
                       : cn__word_enclosure (nv, &s, min->v[t], 0, t, &a, &b, err);
      if (st != CN_OK || (st = decode_words (nv, &s, &cs, a, b, t, &va, &vb, err)) != CN_OK)
        return st;
      decode_range (p, &cs, va, vb, lo, hi);
      for (int c = 0; c < p->r; c++)
        if (bout != NULL)
          {
            bout->lo[t * p->r + c] = lo[c];
            bout->hi[t * p->r + c] = hi[c];
          }
        else
          mpfi_interv_d (mout->v[t * p->r + c], lo[c], hi[c]);   /* integers below 2^53: exact */
    }
  return CN_OK;
}

static cn_status
decode_ibp (const cn_node_view *nv, const cn_box *const *in, cn_box *out, cn_error *err)
{
  return decode_bounds (nv, in[0], NULL, out, NULL, err);
}

static cn_status
decode_mpfi (const cn_node_view *nv, const cn_mpfi_vec *const *in, cn_mpfi_vec *out, cn_error *err)
{
  return decode_bounds (nv, NULL, in[0], NULL, out, err);
}

static const cn_port_kind index1[1] = { CN_PORT_INDEX };
static const cn_port_kind int1[1] = { CN_PORT_INTEGER };

const struct cn_op_rule cn__rule_ENCODE_INDEX = { .op = CN_OP_ENCODE_INDEX,
  .sorts = "f64, f32, words",
  .n_in = 1, .in_kind = index1, .check = encode_check,
  .out_sort = encode_out_sort, .forward = encode_forward, .ibp = encode_ibp, .ibp_mpfi = encode_mpfi,
  .certs = CN__CERTS (CN__CERT_IBP),
};

const struct cn_op_rule cn__rule_DECODE_INDEX = { .op = CN_OP_DECODE_INDEX,
  .sorts = "f64, f32, words",
  .n_in = 1, .in_kind = int1, .check = decode_check,
  .out_sort = decode_out_sort, .forward = decode_forward, .jvp = cn__zero_jvp, .ibp = decode_ibp,
  .ibp_mpfi = decode_mpfi,
  .certs = CN__CERTS (CN__CERT_IBP),
};
