/* SPDX-License-Identifier: MIT */
/* src/ops/extrema.c: the extrema: max, min, fmax, fmin, clamp.
 *
 * max, min, fmax, fmin  v = f(a, b) entry by entry, two inputs of equal shapes (broadcasting is
 * the separate broadcast node), the output of their shape; [la, ua] and [lb, ub] are the input
 * boxes of one entry.
 *   forward  in the tensor's sort, exact (the result is one of the operands):
 *              max  the IEEE 754-2019 maximum: NaN if a or b is NaN, else the larger operand,
 *                   and +0 for max(-0, +0) (torch.maximum);
 *              min  the IEEE 754-2019 minimum: NaN propagated, -0 for min(-0, +0);
 *              fmax, fmin  C99 fmax / fmin (fmaxf / fminf): a NaN operand is ignored (the other
 *                   is returned), NaN only if both are NaN (torch.fmax, torch.fmin).
 *   IBP      max [max(la, lb), max(ua, ub)], min [min(la, lb), min(ua, ub)]: max and min are
 *            nondecreasing in each operand and exact on doubles, so this is the exact hull; no
 *            rounding.  On real inputs fmax = max and fmin = min (NaN is not a real), so they
 *            share these boxes.  Infinite ends stay infinite; a NaN end is CN_ENUMERIC.
 *   MPFI     the same on the enclosures' ends with mpfr_max / mpfr_min, rounded down for the
 *            left end and up for the right end at the output's precision.
 *   pullback with g the output cotangent:
 *              max  a > b: g_a += g;  b > a: g_b += g;  otherwise (a tie, or a NaN operand)
 *                   g_a += g/2 and g_b += g/2 (the seed: "where neither operand is larger, a NaN
 *                   included, each receives half of the gradient"; torch gives both the whole
 *                   gradient at a NaN).  At a tie max is not differentiable; the half split is
 *                   the mean of its one-sided derivatives along a direction (d_a + d_b)/2, which
 *                   is what a central difference sees there.
 *              min  the same with a < b selecting a.
 *              fmax, fmin  as max, min, except that a NaN operand facing a number sends the whole
 *                   gradient to the number (the operand fmax returns); two NaNs split it in half.
 *   jvp      t = w_a t_a + w_b t_b with the same weights w in {0, 1/2, 1} as the pullback, so
 *            that jvp and pullback stay adjoint.  g/2 is exact but below 2^-1021.
 *   Element sorts (max and min only, the seed's Op.NumericElement; fmax and fmin take the model's
 *            scalar at value ports): both ports are element ports (CN_PORT_ELEMENT), value ports
 *            at the model's scalar, or Booleans, or integer words of ONE sort (out_sort: "max:
 *            input 1 holds u8 where input 0 holds i32"), the output of that sort.  The forward
 *            copies the larger (smaller) operand in the sort's order (false < true; signed and
 *            unsigned words compared as such, never through doubles; no NaN at words): exact, as
 *            torch.maximum and torch.minimum on bool and integer tensors.  The IBP, MPFI and CROWN
 *            arms above need no change: boxes hold the words' values, max and min of words are
 *            max and min of those reals, and every line above holds on the reals; so the boxes
 *            are exact hulls (integer ends in, integer ends out) and the MPFI arm is exact at
 *            points.  No gradient at Booleans and words: such a node never receives a cotangent
 *            (the pullback and jvp arms see binary64 only).
 *
 * clamp  v = min(max(x, lo), hi) entry by entry (torch.clamp(x, min, max)): input 0 is x, of any
 * shape, input 1 the lower bound lo and input 2 the upper bound hi, both scalars (shape []) at
 * frozen ports (the seed: Op.clamp : Op [value s, frozen [], frozen []] [value s]).  The output
 * has x's shape.
 *   forward  the IEEE maximum and minimum above in the tensor's sort, exact: a NaN in x, lo or
 *            hi gives NaN; lo > hi gives hi everywhere (as torch).
 *   IBP      clamp is nondecreasing in each of x, lo, hi, so with [lx, ux], [llo, ulo] and
 *            [lhi, uhi] the boxes, [min(max(lx, llo), lhi), min(max(ux, ulo), uhi)]; exact, no
 *            rounding.  A NaN end is CN_ENUMERIC.
 *   MPFI     the same with mpfr_max and mpfr_min on the enclosures' ends (left down, right up).
 *   pullback g_x += g where lo <= x <= hi (both ends included, as torch), nothing elsewhere (at
 *            a NaN x, and everywhere when lo > hi, where clamp is constant).  At x = lo or x = hi
 *            clamp has a kink; the choice there is 1, the derivative from inside [lo, hi].  The
 *            bounds are frozen ports: they never receive a gradient (g_lo, g_hi unchanged).
 *   jvp      t = [lo <= x <= hi] t_x, the same choice; the bounds' tangents are ignored.
 *
 * CROWN (all five; ALGORITHMS.md 2.2 (d), 3 and 6.4), with lines whose slopes are 0 or 1, so that
 * every lam_in entry is an exact copy of lam or 0 and only the bias needs charges.  Per entry,
 * with x in [lx, ux] and y in [ly, uy] (a constant operand as its degenerate box):
 *   max  lower: max >= x or max >= y (exact; the operand with the larger box).  Upper: lx >= uy:
 *        max = x; ly >= ux: max = y; otherwise the line of least gap among the constant
 *        max(ux, uy), x + up(uy - lx) (max = x + relu(y - x) and y - x <= uy - lx) and
 *        y + up(ux - ly); where both operands vary, the facet plane of max's concave envelope
 *        through three corners, below all three on the box (ext_facet).
 *   min  the mirror image: upper min <= x or <= y; lower min = x (ux <= ly), = y (uy <= lx), or the
 *        best of min(lx, ly), x + down(ly - ux), y + down(lx - uy), or (both varying) the facet.
 *   fmax, fmin  as max and min (the same real functions).
 *   clamp (constant bounds a, b; a varying bound is CN_EUNSUPPORTED): a > b: the constant b;
 *        u <= a: a; l >= b: b; a <= l, u <= b: x; otherwise, since clamp is nondecreasing and
 *        clamp(x) - x nonincreasing, x + down(clamp(u) - u) <= clamp(x) <= x + up(clamp(l) - l)
 *        (used when [max(l, a), min(u, b)] covers half of [l, u]) or
 *        clamp(l) <= clamp(x) <= clamp(u) (otherwise).
 *   A row with lam_j > 0 takes the lower line of entry j, with lam_j < 0 the upper one:
 *   lam_in[i][j] = k_i lam_j for a varying operand, and the bias receives sum_j lam_j (b_j +
 *   k_1 c_j) over the constant operand values c_j, summed in RN with its (G) error
 *   (cn__crown_add_sum).  A line with an infinite intercept (an infinite end) makes the charge of
 *   a row that uses it +inf.  The intercepts are rounded outward (cn__up, cn__down); the choice
 *   among valid lines uses RN estimates and does not affect soundness.  The arms need the input
 *   boxes (CN_RULE_NEEDS_BOUNDS). */
#include <config.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "core/parallel.h"
#include "ops/unary_impl.h"

/* ---- max, min, fmax, fmin ----------------------------------------------------------------- */

/* What the shared arms read of one binary extremum (its rule's impl): whether it selects the
 * smaller operand (min, fmin) or the larger (max, fmax), and whether a NaN operand facing a
 * number is ignored (C99's fmax and fmin) or propagated (the IEEE 754-2019 maximum and minimum). */
struct ext_impl
{
  int min;
  int nan_skip;
};

static const struct ext_impl max_impl = { .min = 0, .nan_skip = 0 };
static const struct ext_impl min_impl = { .min = 1, .nan_skip = 0 };
static const struct ext_impl fmax_impl = { .min = 0, .nan_skip = 1 };
static const struct ext_impl fmin_impl = { .min = 1, .nan_skip = 1 };

/* The IEEE 754-2019 maximum and minimum (NaN propagated, +0 > -0), in double and float. */
static inline double
max_d (double a, double b)
{
  if (isnan (a) || isnan (b))
    return a + b;
  if (a != b)
    return a > b ? a : b;
  return signbit (a) ? b : a;
}

static inline double
min_d (double a, double b)
{
  if (isnan (a) || isnan (b))
    return a + b;
  if (a != b)
    return a < b ? a : b;
  return signbit (a) ? a : b;
}

static inline float
max_f (float a, float b)
{
  if (isnan (a) || isnan (b))
    return a + b;
  if (a != b)
    return a > b ? a : b;
  return signbit (a) ? b : a;
}

static inline float
min_f (float a, float b)
{
  if (isnan (a) || isnan (b))
    return a + b;
  if (a != b)
    return a < b ? a : b;
  return signbit (a) ? a : b;
}

static inline double
ext_d (const struct ext_impl *d, double a, double b)
{
  if (d->nan_skip)
    return d->min ? fmin (a, b) : fmax (a, b);
  return d->min ? min_d (a, b) : max_d (a, b);
}

static inline float
ext_f (const struct ext_impl *d, float a, float b)
{
  if (d->nan_skip)
    return d->min ? fminf (a, b) : fmaxf (a, b);
  return d->min ? min_f (a, b) : max_f (a, b);
}

/* The weights of the derivative at (a, b): dv = *WA da + *WB db (see the header). */
static inline void
ext_weights (const struct ext_impl *d, double a, double b, double *wa, double *wb)
{
  int na = isnan (a), nb = isnan (b);
  if (d->nan_skip && na != nb)
    {
      /* fmax/fmin return the number facing a NaN */
      *wa = nb;
      *wb = na;
      return;
    }
  int amax = !d->min;
  if (!na && !nb && a != b)
    {
      int a_sel = amax ? a > b : a < b;
      *wa = a_sel;
      *wb = !a_sel;
      return;
    }
  *wa = *wb = 0.5;                     /* a tie, or a NaN operand of max/min (two of fmax/fmin) */
}

/* The order of entry J of the Boolean or integer tensors A and B (one sort): negative, zero or
 * positive as a < b, a = b, a > b, compared as the sort's values (false < true; unsigned and
 * signed words as such, never through doubles). */
static int
word_cmp (const cn_tensor *a, const cn_tensor *b, int64_t j)
{
#define WORD_CMP(T)                                                                                   \
  do                                                                                                  \
    {                                                                                                 \
      T x = ((const T *) a->data)[j], y = ((const T *) b->data)[j];                                   \
      return (x > y) - (x < y);                                                                       \
    }                                                                                                 \
  while (0)
  switch (a->dtype)
    {
    case CN_DTYPE_BOOL:
      {
        int x = ((const uint8_t *) a->data)[j] != 0, y = ((const uint8_t *) b->data)[j] != 0;
        return x - y;
      }
    case CN_DTYPE_I8: WORD_CMP (int8_t);
    case CN_DTYPE_I16: WORD_CMP (int16_t);
    case CN_DTYPE_I32: WORD_CMP (int32_t);
    case CN_DTYPE_I64: WORD_CMP (int64_t);
    case CN_DTYPE_U8: WORD_CMP (uint8_t);
    case CN_DTYPE_U16: WORD_CMP (uint16_t);
    case CN_DTYPE_U32: WORD_CMP (uint32_t);
    default: WORD_CMP (uint64_t);
    }
#undef WORD_CMP
}

/* max and min of Booleans or integer words (fmax and fmin take the model's scalar only): the
 * larger (smaller) operand in the sort's order, copied; ties give either, the same word. */
static void
ext_forward_words (const struct ext_impl *d, const cn_node_view *nv, const cn_tensor *const *in, cn_tensor *out)
{
  int64_t n = cn__numel (nv->out_shape);
  /* the builder gave max and min (element ports) one sort at both inputs and the output */
  CN__ASSERTD (!d->nan_skip && (unsigned) out->dtype < CN_DTYPE_COUNT && in[0]->dtype == out->dtype
               && in[1]->dtype == out->dtype);
  CN__ASSERTD (cn_tensor_numel (out) == n && cn_tensor_numel (in[0]) == n && cn_tensor_numel (in[1]) == n);
  size_t sz = cn_dtype_size (out->dtype);
  for (int64_t j = 0; j < n; j++)
    {
      int c = word_cmp (in[0], in[1], j);
      const cn_tensor *pick = (!d->min ? c >= 0 : c <= 0) ? in[0] : in[1];
      memcpy ((char *) out->data + (size_t) j * sz, (const char *) pick->data + (size_t) j * sz, sz);
    }
}

static cn_status
ext_forward (const cn_node_view *nv, const cn_tensor *const *in, cn_tensor *out, cn_error *err)
{
  (void) err;
  const struct ext_impl *d = nv->rule->impl;
  if (!cn_dtype_is_float (out->dtype))
    {
      ext_forward_words (d, nv, in, out);
      return CN_OK;
    }
  CN__ASSERTD (cn__tensors_match (nv, in, out));
  int64_t n = cn_tensor_numel (out);
  if (out->dtype == CN_DTYPE_F64)
    {
      const double *a = in[0]->data, *b = in[1]->data;
      double *v = out->data;
      for (int64_t j = 0; j < n; j++)
        v[j] = ext_d (d, a[j], b[j]);
    }
  else
    {
      const float *a = in[0]->data, *b = in[1]->data;
      float *v = out->data;
      for (int64_t j = 0; j < n; j++)
        v[j] = ext_f (d, a[j], b[j]);
    }
  return CN_OK;
}

static cn_status
ext_pullback (const cn_node_view *nv, const cn_tensor *const *in, const cn_tensor *out, const double *g_out,
              double *const *g_in, cn_error *err)
{
  (void) err;
  const struct ext_impl *d = nv->rule->impl;
  CN__ASSERTD (cn__diff_match (nv, in, out));
  int64_t n = cn_tensor_numel (out);
  const double *a = in[0]->data, *b = in[1]->data;
  for (int64_t j = 0; j < n; j++)
    {
      double wa, wb;
      ext_weights (d, a[j], b[j], &wa, &wb);
      if (g_in[0] != NULL && wa != 0)
        g_in[0][j] += wa * g_out[j];
      if (g_in[1] != NULL && wb != 0)
        g_in[1][j] += wb * g_out[j];
    }
  /* now each operand has received its weight (0, 1/2 or 1) times g */
  return CN_OK;
}

static cn_status
ext_jvp (const cn_node_view *nv, const cn_tensor *const *in, const cn_tensor *out, const double *const *t_in,
         double *t_out, cn_error *err)
{
  (void) err;
  const struct ext_impl *d = nv->rule->impl;
  CN__ASSERTD (cn__diff_match (nv, in, out));
  int64_t n = cn_tensor_numel (out);
  const double *a = in[0]->data, *b = in[1]->data;
  for (int64_t j = 0; j < n; j++)
    {
      double wa, wb, t = 0;
      ext_weights (d, a[j], b[j], &wa, &wb);
      if (t_in[0] != NULL && wa != 0)
        t += wa * t_in[0][j];
      if (t_in[1] != NULL && wb != 0)
        t += wb * t_in[1][j];
      t_out[j] = t;
    }
  return CN_OK;
}

static cn_status
ext_ibp (const cn_node_view *nv, const cn_box *const *in, cn_box *out, cn_error *err)
{
  const struct ext_impl *d = nv->rule->impl;
  CN__ASSERTD (cn__boxes_match (nv, in, out));
  int amax = !d->min;
  for (int64_t j = 0; j < out->n; j++)
    {
      double la = in[0]->lo[j], ua = in[0]->hi[j], lb = in[1]->lo[j], ub = in[1]->hi[j];
      if (isnan (la) || isnan (ua) || isnan (lb) || isnan (ub))
        return cn_error_set (err, CN_ENUMERIC, "%s: NaN end in an input box at entry %lld (node '%s')",
                             cn_op_name (nv->op), (long long) j, cn__node_name (nv));
      out->lo[j] = amax ? fmax (la, lb) : fmin (la, lb);
      out->hi[j] = amax ? fmax (ua, ub) : fmin (ua, ub);
      /* now [lo, hi] is the exact hull of f over the box (f nondecreasing in both operands) */
    }
  return CN_OK;
}

static cn_status
ext_mpfi (const cn_node_view *nv, const cn_mpfi_vec *const *in, cn_mpfi_vec *out, cn_error *err)
{
  const struct ext_impl *d = nv->rule->impl;
  CN__ASSERTD (cn__mpfi_match (nv, in, out));
  cn_status st = CN_OK;
  if (out->n == 0)
    return st;
  mpfr_prec_t prec = mpfi_get_prec (out->v[0]);
  mpfr_t l, r;
  mpfr_init2 (l, prec);
  mpfr_init2 (r, prec);
  int amax = !d->min;
  for (int64_t j = 0; j < out->n; j++)
    {
      mpfi_srcptr a = in[0]->v[j], b = in[1]->v[j];
      if (mpfi_nan_p (a) || mpfi_nan_p (b))
        {
          st = cn_error_set (err, CN_ENUMERIC, "%s: NaN in an input enclosure at entry %lld (node '%s')",
                             cn_op_name (nv->op), (long long) j, cn__node_name (nv));
          break;
        }
      if (amax)
        {
          mpfr_max (l, &a->left, &b->left, MPFR_RNDD);
          mpfr_max (r, &a->right, &b->right, MPFR_RNDU);
        }
      else
        {
          mpfr_min (l, &a->left, &b->left, MPFR_RNDD);
          mpfr_min (r, &a->right, &b->right, MPFR_RNDU);
        }
      mpfi_interv_fr (out->v[j], l, r);
    }
  mpfr_clear (l);
  mpfr_clear (r);
  return st;
}

/* ---- CROWN: lines with slopes 0 and 1 ----------------------------------------------------- */

/* One valid line of an entry: k[0] u_0 + k[1] u_1 + b with k in {0, 1} (u_0 = x, u_1 = y for the
 * binary extrema; clamp uses k[0] only) and b a double read as an exact real (+-inf: no such line
 * on the box).  Slopes 0 and 1 make every lam_in entry an exact copy of lam or 0, so only the
 * bias sum has rounding errors to charge. */
struct line01
{
  unsigned char k[2];
  double b;
};

struct entry01
{
  struct line01 lo, up;              /* lo: a lower line (rows with lam > 0), up: an upper line */
};

struct rows01_ctx
{
  const cn_crown_step *st;
  const struct entry01 *e;
  int nk;                            /* the operands with slopes: 2 (max, min), 1 (clamp) */
  int64_t n;
};

/* The rows FIRST..LAST-1: for each entry j, with the line of the sign of lam_j,
 * lam_in[i][j] = k[i] lam_j for a varying operand i, k[i] lam_j c_j into the bias for a constant
 * one (c_j its value, the degenerate box), and lam_j b into the bias.  The bias terms are summed
 * in RN and charged with their (G) error (cn__crown_add_sum); an infinite term makes the row's
 * charge +inf. */
static void
rows01 (void *p, int64_t first, int64_t last)
{
  const struct rows01_ctx *c = p;
  const cn_crown_step *st = c->st;
  int64_t n = c->n;
  for (int64_t s = first; s < last; s++)
    {
      const double *lam = st->lam_out + s * n;
      double d = 0, t = 0;
      int64_t cnt = 0;
      int unbounded = 0;
      for (int64_t j = 0; j < n; j++)
        {
          double a = lam[j];
          if (a == 0)
            continue;
          const struct line01 *ln = a > 0 ? &c->e[j].lo : &c->e[j].up;
          for (int i = 0; i < c->nk; i++)
            {
              if (!ln->k[i])
                continue;
              if (st->lam_in[i] != NULL)
                st->lam_in[i][s * n + j] = a;
              else
                {
                  double y = st->in_box[i]->lo[j];
                  if (!isfinite (y))
                    unbounded = 1;
                  else
                    {
                      d += a * y;
                      t += fabs (a) * fabs (y);
                      cnt++;
                    }
                }
            }
          if (ln->b != 0)
            {
              if (!isfinite (ln->b))
                unbounded = 1;
              else
                {
                  d += a * ln->b;
                  t += fabs (a) * fabs (ln->b);
                  cnt++;
                }
            }
        }
      /* now lam . v >= sum_i lam_in[i] . u_i + (the exact sum whose RN value is d) on the boxes,
       * t = fl(sum of the cnt terms' magnitudes) */
      cn__crown_add_sum (st, s, d, t, cnt, unbounded);
    }
}

static inline struct line01
mk_line (int k0, int k1, double b)
{
  struct line01 l = { { (unsigned char) k0, (unsigned char) k1 }, isnan (b) ? INFINITY : b };
  return l;
}

/* A gap estimate (it only chooses a line: RN is fine), +inf where the line does not exist. */
static inline double
gap (double g, double b)
{
  return isfinite (b) && !isnan (g) ? g : INFINITY;
}

/* The lines of max (MIN = 0) or min (MIN = 1) of x in [lx, ux] and y in [ly, uy] (no NaN). */
static void
ext_lines (int min, double lx, double ux, double ly, double uy, struct entry01 *e)
{
  if (!min)
    {
      /* lower: max >= x and max >= y; the operand with the larger box */
      e->lo = lx > ly || (lx == ly && ux >= uy) ? mk_line (1, 0, 0) : mk_line (0, 1, 0);
      if (lx >= uy)
        e->up = mk_line (1, 0, 0);         /* max = x on the box */
      else if (ly >= ux)
        e->up = mk_line (0, 1, 0);         /* max = y on the box */
      else
        {
          /* max <= max(ux, uy);  max = x + relu(y - x) <= x + (uy - lx);  max <= y + (ux - ly)
           * (uy - lx > 0 and ux - ly > 0 here; cn__up makes the intercepts upper bounds) */
          double m = fmax (ux, uy), bx = cn__up (uy - lx), by = cn__up (ux - ly);
          double g0 = gap (m - fmax (lx, ly), m), gx = gap (uy - lx, bx), gy = gap (ux - ly, by);
          if (gx <= g0 && gx <= gy)
            e->up = mk_line (1, 0, bx);
          else if (gy <= g0)
            e->up = mk_line (0, 1, by);
          else
            e->up = mk_line (0, 0, m);
        }
    }
  else
    {
      /* upper: min <= x and min <= y; the operand with the smaller box */
      e->up = ux < uy || (ux == uy && lx <= ly) ? mk_line (1, 0, 0) : mk_line (0, 1, 0);
      if (ux <= ly)
        e->lo = mk_line (1, 0, 0);         /* min = x on the box */
      else if (uy <= lx)
        e->lo = mk_line (0, 1, 0);         /* min = y on the box */
      else
        {
          /* min >= min(lx, ly);  min = x - relu(x - y) >= x + (ly - ux);  min >= y + (lx - uy)
           * (cn__down makes the intercepts lower bounds) */
          double m = fmin (lx, ly), bx = cn__down (ly - ux), by = cn__down (lx - uy);
          double g0 = gap (fmin (ux, uy) - m, m), gx = gap (ux - ly, bx), gy = gap (uy - lx, by);
          if (gx <= g0 && gx <= gy)
            e->lo = mk_line (1, 0, bx);
          else if (gy <= g0)
            e->lo = mk_line (0, 1, by);
          else
            e->lo = mk_line (0, 0, m);
        }
    }
}

/* The facet plane of the crossing case when both operands vary (FACET below): for max, with
 * lx < uy and ly < ux, the plane through the corners (ux, ly), (lx, uy), (ux, uy), whose values
 * are ux, uy and M = max(ux, uy):
 *     p(x, y) = a x + b y + c,  a = (M - uy) / (ux - lx),  b = (M - ux) / (uy - ly);
 * at the fourth corner (lx, ly) it is ux + uy - M = min(ux, uy) >= max(lx, ly), so p >= max on
 * every corner, hence on the box (max - p is convex: its maximum over the box is at a corner).
 * p is the concave envelope's facet, and at each corner no larger than any of the three lines of
 * ext_lines (the constant M, x + (uy - lx), y + (ux - ly)), so it lies below them on the whole
 * box.  min mirrors it: with ux > ly and uy > lx, m = min(lx, ly), the plane through (ux, ly),
 * (lx, uy), (lx, ly), a = (ly - m) / (ux - lx), b = (lx - m) / (uy - ly), below min on the box.
 * The slopes are RN doubles (any double is sound; not finite: 0) and the intercept is made exact
 * by the corners: c = the greatest (least, for min) value of f - a x - b y over the four corners,
 * each operation moved outward (cn__up, cn__down).  Returns 0 where the case does not apply or
 * an end is not finite. */
/* The slopes A, B (RN doubles, any are sound) of facet WHICH of the crossing case: 1 the one
 * above (FACET's plane: max's through (ux, ly), (lx, uy), (ux, uy); min's through (ux, ly),
 * (lx, uy), (lx, ly)), 0 the other one of the envelope's triangulation, through the two corners
 * (ux, ly), (lx, uy) and the fourth: for max through (lx, ly), value L = max(lx, ly),
 *     a = (ux - L) / (ux - lx),  b = (uy - L) / (uy - ly),
 * above max as well (at (ux, uy) it is ux + uy - L >= max(ux, uy) since min(ux, uy) >= L);
 * for min through (ux, uy), value m' = min(ux, uy), a = (m' - lx) / (ux - lx),
 * b = (m' - ly) / (uy - ly), below min (at (lx, ly): lx + ly - m' <= min(lx, ly)).  Every mix of
 * the two passes through (ux, ly) and (lx, uy), where it equals f.  Returns 0 where the case does
 * not apply (no crossing, an end not finite). */
static int
facet_slopes (int min, int which, double lx, double ux, double ly, double uy, double *a, double *b)
{
  if (!(isfinite (lx) && isfinite (ux) && isfinite (ly) && isfinite (uy)))
    return 0;
  if (!min ? !(lx < uy && ly < ux) : !(ux > ly && uy > lx))
    return 0;
  if (!min)
    {
      double M = which ? fmax (ux, uy) : fmax (lx, ly);
      *a = which ? (M - uy) / (ux - lx) : (ux - M) / (ux - lx);
      *b = which ? (M - ux) / (uy - ly) : (uy - M) / (uy - ly);
    }
  else
    {
      double m = which ? fmin (lx, ly) : fmin (ux, uy);
      *a = which ? (ly - m) / (ux - lx) : (m - lx) / (ux - lx);
      *b = which ? (lx - m) / (uy - ly) : (m - ly) / (uy - ly);
    }
  *a = isfinite (*a) ? *a : 0;
  *b = isfinite (*b) ? *b : 0;
  return 1;
}

/* The intercept making the plane K . (x, y) + c lie above max (MIN = 0) or below min on the box
 * [lx, ux] x [ly, uy] (finite): the greatest (least) value of f - a x - b y over the four corners,
 * each operation moved outward (cn__up, cn__down); f - k . u is convex for max (concave for min),
 * so its maximum (minimum) over the box is at a corner.  NaN where nothing finite is proved. */
static double
facet_intercept (int min, double lx, double ux, double ly, double uy, const double *k)
{
  double r = min ? INFINITY : -INFINITY;
  for (int q = 0; q < 4; q++)
    {
      double x = q & 1 ? ux : lx, y = q & 2 ? uy : ly, f = min ? fmin (x, y) : fmax (x, y), g;
      if (min)
        g = cn__down (cn__down (f - cn__up (k[0] * x)) - cn__up (k[1] * y));
      else
        g = cn__up (cn__up (f - cn__down (k[0] * x)) - cn__down (k[1] * y));
      /* now g <= f - a x - b y (>= for max) at this corner, in exact arithmetic */
      r = min ? fmin (r, g) : fmax (r, g);
    }
  return isfinite (r) ? r : NAN;
}

static int
ext_facet (int min, double lx, double ux, double ly, double uy, double *k, double *c)
{
  double kk[2];
  if (!facet_slopes (min, 1, lx, ux, ly, uy, &kk[0], &kk[1]))
    return 0;
  double r = facet_intercept (min, lx, ux, ly, uy, kk);
  if (isnan (r))
    return 0;
  k[0] = kk[0];
  k[1] = kk[1];
  *c = r;
  return 1;
}

/* alpha-CROWN's step through max or min of two variable operands, one parameter theta in [0, 1]
 * per row and entry, for the side the row's coefficient uses, theta = 1/2 giving CROWN's line
 * (ext_lines, ext_facet) on both sides, the map folded at 1/2: t = 1 - |2 theta - 1|.
 *   The combination side (max below, min above): lam_c x + (1 - lam_c) y for lam_c in [0, 1] is
 *   below max (above min) everywhere; lam_c = t where CROWN's line is x, 1 - t where it is y,
 *   rounded to a multiple of 2^-52 so that 1 - lam_c is exact and the intercept 0 exact.
 *   The facet side (max above, min below), where the box crosses: the mix t F1 + (1 - t) F0 of
 *   the two facets (facet_slopes: slopes mixed in RN, the intercept facet_intercept's, exact for
 *   any slopes); elsewhere CROWN's line, with no parameter (derivative 0).
 * The derivative in theta of kx x + ky y + b is t' (x - y) or t' (y - x) on the combination side,
 * t' ((a1 - a0) x + (b1 - b0) y + c1 - c0) on the facet side, with t' = 2 sign(1 - 2 theta) and
 * c1, c0 the facets' intercepts through (ux, ly) (the mix's is linear in t there, as every mix
 * passes through that corner).  ext_mix_plane gives one entry's plane (CTX: CROWN's lines); the
 * step itself (rows, records, charges) is cn__crown_planes2_theta's. */
static void
ext_mix_plane (const cn_crown_step *st, const void *ctx, int64_t j, int upper, double th, double *k, double *b,
               double *dk, double *db)
{
  const struct entry01 *e = ctx;
  int min = ((const struct ext_impl *) st->nv->rule->impl)->min;
  double lx = st->in_box[0]->lo[j], ux = st->in_box[0]->hi[j], ly = st->in_box[1]->lo[j], uy = st->in_box[1]->hi[j];
  double t = 1 - fabs (2 * th - 1), dt = th < 0.5 ? 2 : -2;
  const struct line01 *ln = upper ? &e[j].up : &e[j].lo;
  k[0] = ln->k[0];
  k[1] = ln->k[1];
  *b = ln->b;
  if (upper == min)
    {
      /* the side of the combinations */
      int to_x = ln->k[0] != 0;
      double lc = to_x ? t : 1 - t;
      lc = ldexp (nearbyint (ldexp (lc, 52)), -52);
      k[0] = lc;
      k[1] = 1 - lc;          /* exact: lc is a multiple of 2^-52 in [0, 1] */
      *b = 0;
      /* now lc x + (1 - lc) y <= max(x, y) (>= min(x, y)) for every x, y */
      dk[0] = to_x ? dt : -dt;
      dk[1] = -dk[0];
      return;
    }
  double a1, b1, a0, b0;
  if (!facet_slopes (min, 1, lx, ux, ly, uy, &a1, &b1) || !facet_slopes (min, 0, lx, ux, ly, uy, &a0, &b0))
    return;
  double km[2] = { t * a1 + (1 - t) * a0, t * b1 + (1 - t) * b0 };
  double c = facet_intercept (min, lx, ux, ly, uy, km);
  if (isnan (c))
    return;
  k[0] = km[0];
  k[1] = km[1];
  *b = c;
  /* now km . (x, y) + c bounds f on its side over the box */
  double fb = min ? fmin (ux, ly) : fmax (ux, ly);
  double c1 = fb - a1 * ux - b1 * ly, c0 = fb - a0 * ux - b0 * ly;
  dk[0] = dt * (a1 - a0);
  dk[1] = dt * (b1 - b0);
  *db = dt * (c1 - c0);
}

static cn_status
ext_alpha_step (const cn_crown_step *st, const struct entry01 *e, cn_error *err)
{
  return cn__crown_planes2_theta (st, cn_op_name (st->nv->op), e, ext_mix_plane, err);
}

/* The ALPHA hook of max, min, fmax and fmin (ALPHA_TAKES cn__two_varying: parameters where both
 * operands vary, ext_alpha_step), 1/2 by default (CROWN's lines), projected onto [0, 1] (NaN: 1/2). */

static void
ext_alpha (const cn_node_view *nv, const cn_box *in, int slope, int init, double *theta)
{
  (void) slope;
  int64_t n = in->n;
  (void) nv;
  for (int64_t j = 0; j < n; j++)
    if (init || !(theta[j] >= 0 && theta[j] <= 1))
      theta[j] = init || isnan (theta[j]) ? 0.5 : theta[j] < 0 ? 0 : 1;
}

static cn_status
ext_crown (const cn_crown_step *st, cn_error *err)
{
  const cn_node_view *nv = st->nv;
  const struct ext_impl *d = nv->rule->impl;
  const char *name = cn_op_name (nv->op);
  int64_t n = cn__numel (nv->out_shape);
  const cn_box *bx = st->in_box[0], *by = st->in_box[1];
  CN__ASSERTD (bx->n == n && by->n == n);
  struct entry01 *e = malloc ((size_t) (n ? n : 1) * sizeof *e);
  if (e == NULL)
    return cn_error_set (err, CN_ENOMEM, "%s: out of memory (node '%s')", name, cn__node_name (nv));
  int min = d->min;
  for (int64_t j = 0; j < n; j++)
    {
      double lx = bx->lo[j], ux = bx->hi[j], ly = by->lo[j], uy = by->hi[j];
      if (isnan (lx) || isnan (ux) || isnan (ly) || isnan (uy))
        {
          free (e);
          return cn_error_set (err, CN_ENUMERIC, "%s: NaN end in an input box at entry %lld (node '%s')", name,
                               (long long) j, cn__node_name (nv));
        }
      ext_lines (min, lx, ux, ly, uy, &e[j]);
      /* now e[j].lo <= f <= e[j].up on the box, read as exact reals */
    }
  if (st->theta != NULL && st->lam_in[0] != NULL && st->lam_in[1] != NULL)
    {
      cn_status rc = ext_alpha_step (st, e, err);
      free (e);
      return rc;
    }
  if (st->lam_in[0] != NULL && st->lam_in[1] != NULL)
    {
      /* both operands vary: the crossing entries take the facet plane on their loose side, the
       * others their lines of slopes 0 and 1, all stepped as planes (cn__crown_planes) */
      double *kk = malloc ((size_t) (4 * n + 1) * sizeof *kk), *bb = malloc ((size_t) (2 * n + 1) * sizeof *bb);
      if (kk == NULL || bb == NULL)
        {
          free (kk), free (bb), free (e);
          return cn_error_set (err, CN_ENOMEM, "%s: out of memory (node '%s')", name, cn__node_name (nv));
        }
      int facets = 0;
      for (int64_t j = 0; j < n; j++)
        {
          double *kl = kk + 4 * j, *ku = kl + 2;
          kl[0] = e[j].lo.k[0], kl[1] = e[j].lo.k[1], bb[2 * j] = e[j].lo.b;
          ku[0] = e[j].up.k[0], ku[1] = e[j].up.k[1], bb[2 * j + 1] = e[j].up.b;
          facets += ext_facet (min, bx->lo[j], bx->hi[j], by->lo[j], by->hi[j], min ? kl : ku,
                               &bb[2 * j + !min]);
          /* now kl . (x, y) + bb[2j] <= f <= ku . (x, y) + bb[2j + 1] on the box */
        }
      cn_status rc = CN_OK;
      if (facets > 0)
        rc = cn__crown_planes (st, name, 2, kk, bb, err);
      free (kk), free (bb);
      if (facets > 0)
        {
          free (e);
          return rc;
        }
    }
  struct rows01_ctx ctx = { .st = st, .e = e, .nk = 2, .n = n };
  cn__for_rows (st->rows, st->threads, st->rows * n > 65536, rows01, &ctx);
  free (e);
  return CN_OK;
}


/* The out_sort hook of max and min: two element ports of one sort (the model's scalar, Booleans
 * or one integer sort), the output of that sort. */
static cn_status
ext_out_sort (const struct cn_op_rule *rule, const void *p, int n_in, const cn_dtype *in, cn_dtype *out,
              cn_error *err)
{
  (void) p;
  const char *op = cn_op_name (rule->op);
  if (n_in != 2)
    return cn_error_set (err, CN_EINVAL, "%s: takes 2 inputs, got %d", op, n_in);
  return cn__element_sort (op, n_in, in, out, err);
}

static const cn_port_kind element2[2] = { CN_PORT_ELEMENT, CN_PORT_ELEMENT };

/* The rule of the binary extremum ID whose data is IMPL, with the ports PORTS (NULL: value ports)
 * and the out_sort hook OUT_SORT (NULL: the model's scalar). */
#define EXT_RULE(ID, IMPL, PORTS, OUT_SORT, ...)                                                            \
  const struct cn_op_rule cn__rule_##ID = {                                                            \
    .op = CN_OP_##ID, .impl = &IMPL, .n_in = 2, .in_kind = PORTS, .out_sort = OUT_SORT,                \
    .check = cn__binary_check, .forward = ext_forward, .flags = CN_RULE_NEEDS_BOUNDS, \
    .pullback = ext_pullback, .jvp = ext_jvp, .ibp = ext_ibp, .ibp_mpfi = ext_mpfi, .crown = ext_crown, \
    .alpha = ext_alpha, .alpha_takes = cn__two_varying,                                                  \
    .roundoff32 = cn__roundoff32_exact,                                                                 \
    .certs = CN__CERTS (__VA_ARGS__, CN__CERT_ROUNDOFF32 (CN__ROUNDOFF32_EXACT_WHY)),                    \
  }

EXT_RULE (MAX, max_impl, element2, ext_out_sort, CN__CERT_GRADIENT, CN__CERT_BOUNDS);
EXT_RULE (MIN, min_impl, element2, ext_out_sort, CN__CERT_GRADIENT, CN__CERT_BOUNDS);
EXT_RULE (FMAX, fmax_impl, NULL, NULL, CN__CERT_GRADIENT, CN__CERT_BOUNDS);
EXT_RULE (FMIN, fmin_impl, NULL, NULL, CN__CERT_GRADIENT, CN__CERT_BOUNDS);

/* ---- clamp ------------------------------------------------------------------------------ */

static const cn_port_kind clamp_ports[3] = { CN_PORT_VALUE, CN_PORT_FROZEN, CN_PORT_FROZEN };

static cn_status
clamp_check (const struct cn_op_rule *rule, const void *p, int n_in, const cn_shape *const *in, cn_shape *out, cn_error *err)
{
  (void) rule;
  (void) p;
  if (n_in != 3)
    return cn_error_set (err, CN_EINVAL, "clamp: takes 3 inputs (x, min, max), got %d", n_in);
  for (int i = 0; i < 3; i++)
    {
      cn_status st = cn__input_valid ("clamp", i, in[i], err);
      if (st != CN_OK)
        return st;
    }
  for (int i = 1; i < 3; i++)
    if (in[i]->rank != 0)
      {
        char a[128];
        return cn_error_set (err, CN_ESHAPE, "clamp: bound %s has shape %s, expected a scalar []",
                             i == 1 ? "min (input 1)" : "max (input 2)", cn_shape_format (in[i], a, sizeof a));
      }
  *out = *in[0];
  return CN_OK;
}

/* Whether the sizes N_OUT, N0 (x) and N1, N2 (the bounds) are those of the node (the invariant
 * every arm of clamp may assert: the builder checked the shapes). */
static inline int
clamp_sizes_match (const cn_node_view *nv, int64_t n_out, int64_t n0, int64_t n1, int64_t n2)
{
  int64_t n = cn__numel (nv->out_shape);
  return n_out == n && n0 == n && n1 == 1 && n2 == 1;
}

/* Whether the tensors OUT and IN are of one floating sort (forward) or binary64 (pullback, jvp:
 * F64), of the node's sizes. */
static inline int
clamp_tensors_match (const cn_node_view *nv, const cn_tensor *const *in, const cn_tensor *out, int f64)
{
  for (int i = 0; i < 3; i++)
    if (f64 ? in[i]->dtype != CN_DTYPE_F64 || out->dtype != CN_DTYPE_F64
            : !cn_dtype_is_float (out->dtype) || in[i]->dtype != out->dtype)
      return 0;
  return clamp_sizes_match (nv, cn_tensor_numel (out), cn_tensor_numel (in[0]), cn_tensor_numel (in[1]),
                            cn_tensor_numel (in[2]));
}

static cn_status
clamp_forward (const cn_node_view *nv, const cn_tensor *const *in, cn_tensor *out, cn_error *err)
{
  (void) err;
  CN__ASSERTD (clamp_tensors_match (nv, in, out, 0));
  int64_t n = cn_tensor_numel (out);
  if (out->dtype == CN_DTYPE_F64)
    {
      const double *x = in[0]->data, lo = *(const double *) in[1]->data, hi = *(const double *) in[2]->data;
      double *v = out->data;
      for (int64_t j = 0; j < n; j++)
        v[j] = min_d (max_d (x[j], lo), hi);
    }
  else
    {
      const float *x = in[0]->data, lo = *(const float *) in[1]->data, hi = *(const float *) in[2]->data;
      float *v = out->data;
      for (int64_t j = 0; j < n; j++)
        v[j] = min_f (max_f (x[j], lo), hi);
    }
  return CN_OK;
}

static cn_status
clamp_pullback (const cn_node_view *nv, const cn_tensor *const *in, const cn_tensor *out, const double *g_out,
                double *const *g_in, cn_error *err)
{
  (void) err;
  CN__ASSERTD (clamp_tensors_match (nv, in, out, 1));
  if (g_in[0] == NULL)
    return CN_OK;
  int64_t n = cn_tensor_numel (out);
  const double *x = in[0]->data, lo = *(const double *) in[1]->data, hi = *(const double *) in[2]->data;
  for (int64_t j = 0; j < n; j++)
    if (lo <= x[j] && x[j] <= hi)
      g_in[0][j] += g_out[j];
  /* now g_x has received g [lo <= x <= hi]; the frozen bounds receive nothing */
  return CN_OK;
}

static cn_status
clamp_jvp (const cn_node_view *nv, const cn_tensor *const *in, const cn_tensor *out, const double *const *t_in,
           double *t_out, cn_error *err)
{
  (void) err;
  CN__ASSERTD (clamp_tensors_match (nv, in, out, 1));
  int64_t n = cn_tensor_numel (out);
  const double *x = in[0]->data, lo = *(const double *) in[1]->data, hi = *(const double *) in[2]->data;
  for (int64_t j = 0; j < n; j++)
    t_out[j] = t_in[0] != NULL && lo <= x[j] && x[j] <= hi ? t_in[0][j] : 0.0;
  /* now t_out = [lo <= x <= hi] t_x exactly */
  return CN_OK;
}

static cn_status
clamp_ibp (const cn_node_view *nv, const cn_box *const *in, cn_box *out, cn_error *err)
{
  CN__ASSERTD (clamp_sizes_match (nv, out->n, in[0]->n, in[1]->n, in[2]->n));
  double llo = in[1]->lo[0], ulo = in[1]->hi[0], lhi = in[2]->lo[0], uhi = in[2]->hi[0];
  if (isnan (llo) || isnan (ulo) || isnan (lhi) || isnan (uhi))
    return cn_error_set (err, CN_ENUMERIC, "clamp: NaN end in a bound's box (node '%s')", cn__node_name (nv));
  for (int64_t j = 0; j < out->n; j++)
    {
      double l = in[0]->lo[j], u = in[0]->hi[j];
      if (isnan (l) || isnan (u))
        return cn_error_set (err, CN_ENUMERIC, "clamp: NaN end in the input box at entry %lld (node '%s')",
                             (long long) j, cn__node_name (nv));
      out->lo[j] = fmin (fmax (l, llo), lhi);
      out->hi[j] = fmin (fmax (u, ulo), uhi);
      /* now [lo, hi] contains clamp over the boxes (nondecreasing in x, min and max) */
    }
  return CN_OK;
}

static cn_status
clamp_mpfi (const cn_node_view *nv, const cn_mpfi_vec *const *in, cn_mpfi_vec *out, cn_error *err)
{
  CN__ASSERTD (clamp_sizes_match (nv, out->n, in[0]->n, in[1]->n, in[2]->n));
  cn_status st = CN_OK;
  if (out->n == 0)
    return st;
  if (mpfi_nan_p (in[1]->v[0]) || mpfi_nan_p (in[2]->v[0]))
    return cn_error_set (err, CN_ENUMERIC, "clamp: NaN in a bound's enclosure (node '%s')", cn__node_name (nv));
  mpfr_prec_t prec = mpfi_get_prec (out->v[0]);
  mpfr_t l, r;
  mpfr_init2 (l, prec);
  mpfr_init2 (r, prec);
  mpfi_srcptr a = in[1]->v[0], b = in[2]->v[0];
  for (int64_t j = 0; j < out->n; j++)
    {
      mpfi_srcptr x = in[0]->v[j];
      if (mpfi_nan_p (x))
        {
          st = cn_error_set (err, CN_ENUMERIC, "clamp: NaN in the input enclosure at entry %lld (node '%s')",
                             (long long) j, cn__node_name (nv));
          break;
        }
      mpfr_max (l, &x->left, &a->left, MPFR_RNDD);
      mpfr_min (l, l, &b->left, MPFR_RNDD);
      mpfr_max (r, &x->right, &a->right, MPFR_RNDU);
      mpfr_min (r, r, &b->right, MPFR_RNDU);
      mpfi_interv_fr (out->v[j], l, r);
    }
  mpfr_clear (l);
  mpfr_clear (r);
  return st;
}

static cn_status
clamp_crown (const cn_crown_step *st, cn_error *err)
{
  const cn_node_view *nv = st->nv;
  int64_t n = cn__numel (nv->out_shape);
  if (st->lam_in[1] != NULL || st->lam_in[2] != NULL)
    return cn_error_set (err, CN_EUNSUPPORTED, "clamp: CROWN needs constant bounds (node '%s')", cn__node_name (nv));
  if (st->lam_in[0] == NULL)
    return cn_error_set (err, CN_EINVAL, "clamp: CROWN step on constant inputs (node '%s')", cn__node_name (nv));
  const cn_box *bx = st->in_box[0];
  CN__ASSERTD (clamp_sizes_match (nv, n, bx->n, st->in_box[1]->n, st->in_box[2]->n));
  double a = st->in_box[1]->lo[0], b = st->in_box[2]->lo[0];
  if (isnan (a) || isnan (b))
    return cn_error_set (err, CN_ENUMERIC, "clamp: NaN bound (node '%s')", cn__node_name (nv));
  struct entry01 *e = malloc ((size_t) (n ? n : 1) * sizeof *e);
  if (e == NULL)
    return cn_error_set (err, CN_ENOMEM, "clamp: out of memory (node '%s')", cn__node_name (nv));
  for (int64_t j = 0; j < n; j++)
    {
      double l = bx->lo[j], u = bx->hi[j];
      if (isnan (l) || isnan (u))
        {
          free (e);
          return cn_error_set (err, CN_ENUMERIC, "clamp: NaN end in the input box at entry %lld (node '%s')",
                               (long long) j, cn__node_name (nv));
        }
      if (a > b)
        e[j].lo = e[j].up = mk_line (0, 0, b);     /* clamp = b everywhere */
      else if (u <= a)
        e[j].lo = e[j].up = mk_line (0, 0, a);     /* clamp = a on the box */
      else if (l >= b)
        e[j].lo = e[j].up = mk_line (0, 0, b);     /* clamp = b on the box */
      else if (a <= l && u <= b)
        e[j].lo = e[j].up = mk_line (1, 0, 0);     /* clamp = x on the box */
      else
        {
          /* clamp(x) - x is nonincreasing, and clamp nondecreasing, so on [l, u]
           *   x + (clamp(u) - u) <= clamp(x) <= x + (clamp(l) - l)   and
           *   clamp(l) <= clamp(x) <= clamp(u);
           * the slope-1 lines when the linear part [max(l, a), min(u, b)] covers half the box
           * (a choice only), the constant ones otherwise or when an intercept is infinite */
          double cl = fmin (fmax (l, a), b), cu = fmin (fmax (u, a), b);
          double b1 = cn__down (cu - u), b2 = cn__up (cl - l);
          int one = fmin (u, b) - fmax (l, a) >= 0.5 * (u - l);
          e[j].lo = one && isfinite (b1) ? mk_line (1, 0, b1) : mk_line (0, 0, cl);
          e[j].up = one && isfinite (b2) ? mk_line (1, 0, b2) : mk_line (0, 0, cu);
        }
      /* now e[j].lo <= clamp <= e[j].up on [l, u], read as exact reals */
    }
  struct rows01_ctx ctx = { .st = st, .e = e, .nk = 1, .n = n };
  cn__for_rows (st->rows, st->threads, st->rows * n > 65536, rows01, &ctx);
  free (e);
  return CN_OK;
}

const struct cn_op_rule cn__rule_CLAMP = { .op = CN_OP_CLAMP,
  .n_in = 3, .in_kind = clamp_ports, .check = clamp_check, .forward = clamp_forward,
  .flags = CN_RULE_NEEDS_BOUNDS, .pullback = clamp_pullback, .jvp = clamp_jvp, .ibp = clamp_ibp,
  .ibp_mpfi = clamp_mpfi, .crown = clamp_crown,
  .certs = CN__CERTS (CN__CERT_GRADIENT, CN__CERT_BOUNDS),
};
