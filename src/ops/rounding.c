/* SPDX-License-Identifier: MIT */
/* src/ops/rounding.c: the roundings and signs: floor, ceil, round, trunc, frac, sign.
 *
 * Every operator is unary, v = f(x) entry by entry, one input of any shape and the output of
 * its shape; [l, u] is the input box of one entry.  All six share one set of arms driven by a
 * table (struct round_def).  None of them rounds: on doubles (and on floats) each result is
 * exact, so forward, IBP and MPFI have no rounding error to charge.
 *
 *   forward  in the tensor's sort (double for f64, float for f32), entry by entry:
 *              floor   floor / floorf;
 *              ceil    ceil / ceilf;
 *              round   the nearest integer, halfway cases to the even one (torch.round):
 *                      rint / rintf in the default rounding mode (round to nearest, ties to
 *                      even; certnn never changes the mode);
 *              trunc   trunc / truncf (toward zero);
 *              frac    x - trunc(x) (torch.frac: the sign of x, in (-1, 1)); exact in either
 *                      sort, since the difference is a multiple of ulp(x) below |x| in
 *                      magnitude; frac(+-inf) = NaN (inf - inf);
 *              sign    1 for x > 0, -1 for x < 0, +0 for x = +-0.  NaN stays NaN: the seed
 *                      does not say, and propagating it keeps an unknown input unknown (torch's
 *                      CPU kernel (0 < x) - (x < 0) would give 0).
 *            Every operator maps NaN to NaN and +-inf to itself (frac: NaN).  Measured error
 *            against MPFR: 0 ulp (all results are exact).
 *   IBP      floor, ceil, round, trunc, sign are nondecreasing step functions that are exact on
 *            doubles, so the box is [f(l), f(u)], with no rounding; the value at an end is the
 *            one the function takes there (floor [0.5, 1] = [0, 1]), and an interval that
 *            straddles a jump encloses both sides because the ends do.  Infinite ends stay
 *            infinite (floor(-inf) = -inf, sign(+inf) = 1).
 *            frac is not monotone: it increases with slope 1 on every cell where trunc is
 *            constant ([k, k + 1) for k >= 1, (-1, 1) for k = 0, (k - 1, k] for k <= -1) and
 *            jumps at the nonzero integers (down from 1 to 0 at k >= 1, down from 0 to -1 at
 *            k <= -1).  So, with finite ends:
 *              trunc(l) = trunc(u) = k: one cell, [l - k, u - k] (exact differences);
 *              otherwise: lo = 0 if l >= 0 (an integer in (l, u] gives 0 and no value is
 *                         negative), l if -1 < l < 0 (the negative values are those of
 *                         frac = x on [l, 0)), -1 if l <= -1 (the infimum -1 is approached
 *                         right after the jump at trunc(l));
 *                         hi = 0 if u <= 0, u if 0 < u < 1, 1 if u >= 1 (mirror images).
 *            An infinite end takes the second branch (the values approach every bound).  A NaN
 *            end is CN_ENUMERIC.
 *   MPFI     the same on the enclosure [a, b] of the input (every operator is defined on all
 *            reals): f(a) rounded down to the output's precision and f(b) rounded up
 *            (mpfr_rint_floor, mpfr_rint_ceil, mpfr_rint_roundeven, mpfr_rint_trunc with
 *            MPFR_RNDD / MPFR_RNDU; sign by mpfr_sgn); frac as in IBP, one cell when
 *            trunc(a) = trunc(b) (mpfr_frac (a, RNDD), mpfr_frac (b, RNDU)), else the bounds
 *            above.  An enclosure straddling a jump thus encloses the values on both sides.
 *            A NaN enclosure is CN_ENUMERIC.
 *   pullback g_x += g f'(x) and
 *   jvp      t = f'(x) t_x, with f' = 0 for floor, ceil, round, trunc and sign, and f' = 1 for
 *            frac (as torch: zeros_like for the steps, the identity for frac).  At a jump f has
 *            no derivative; the choice there is the one-sided derivative, which is the same
 *            from both sides (0 for the steps, 1 for frac), so pullback and jvp need no special
 *            case and stay adjoint.  A NaN or infinite x gets the same derivative (the steps
 *            add nothing at all, so a NaN cotangent does not leak through them). */
#include <config.h>
#include <math.h>
#include <stdlib.h>
#include "ops/unary_impl.h"

/* ---- the table -------------------------------------------------------------------------- */

enum kind { FLOOR, CEIL, ROUND, TRUNC, FRAC, SIGN };

struct round_def
{
  cn_op op;
  const char *name;
  enum kind kind;
};

static const struct round_def defs[] = {
  { CN_OP_FLOOR, "floor", FLOOR }, { CN_OP_CEIL, "ceil", CEIL }, { CN_OP_ROUND, "round", ROUND },
  { CN_OP_TRUNC, "trunc", TRUNC }, { CN_OP_FRAC, "frac", FRAC }, { CN_OP_SIGN, "sign", SIGN },
};

CN__DEF_LOOKUP (struct round_def, defs, def_of, no_def, "a rounding operator")

/* f in binary64 (exact). */
static inline double
f_d (enum kind k, double x)
{
  switch (k)
    {
    case FLOOR: return floor (x);
    case CEIL: return ceil (x);
    case ROUND: return rint (x);
    case TRUNC: return trunc (x);
    case FRAC: return x - trunc (x);
    default: return x > 0 ? 1.0 : x < 0 ? -1.0 : isnan (x) ? x : 0.0;
    }
}

/* f in binary32 (exact). */
static inline float
f_f (enum kind k, float x)
{
  switch (k)
    {
    case FLOOR: return floorf (x);
    case CEIL: return ceilf (x);
    case ROUND: return rintf (x);
    case TRUNC: return truncf (x);
    case FRAC: return x - truncf (x);
    default: return x > 0 ? 1.0f : x < 0 ? -1.0f : isnan (x) ? x : 0.0f;
    }
}

/* ---- forward, pullback, jvp ----------------------------------------------------------- */

static cn_status
round_forward (const cn_node_view *nv, const cn_tensor *const *in, cn_tensor *out, cn_error *err)
{
  const struct round_def *d = def_of (nv->op);
  if (d == NULL)
    return no_def (nv, err);
  int64_t n = cn__numel (nv->out_shape);
  if (!cn_dtype_is_float (out->dtype) || in[0]->dtype != out->dtype || cn_tensor_numel (out) != n
      || cn_tensor_numel (in[0]) != n)
    return cn_error_set (err, CN_EINVAL, "%s: tensors do not match the node (node '%s')", d->name,
                         cn__node_name (nv));
  if (out->dtype == CN_DTYPE_F64)
    {
      const double *x = in[0]->data;
      double *y = out->data;
      for (int64_t j = 0; j < n; j++)
        y[j] = f_d (d->kind, x[j]);
    }
  else
    {
      const float *x = in[0]->data;
      float *y = out->data;
      for (int64_t j = 0; j < n; j++)
        y[j] = f_f (d->kind, x[j]);
    }
  return CN_OK;
}

static cn_status
round_pullback (const cn_node_view *nv, const cn_tensor *const *in, const cn_tensor *out, const double *g_out,
                double *const *g_in, cn_error *err)
{
  const struct round_def *d = def_of (nv->op);
  if (d == NULL)
    return no_def (nv, err);
  cn_status st = cn__unary_diff_ok (d->name, "pullback", nv, in, out, err);
  if (st != CN_OK || g_in[0] == NULL || d->kind != FRAC)
    return st;
  /* frac: f' = 1 everywhere (the jumps included, from either side) */
  int64_t n = cn_tensor_numel (out);
  for (int64_t j = 0; j < n; j++)
    g_in[0][j] += g_out[j];
  /* now g_x has received g f'(x); the steps (f' = 0) add nothing */
  return CN_OK;
}

static cn_status
round_jvp (const cn_node_view *nv, const cn_tensor *const *in, const cn_tensor *out, const double *const *t_in,
           double *t_out, cn_error *err)
{
  const struct round_def *d = def_of (nv->op);
  if (d == NULL)
    return no_def (nv, err);
  cn_status st = cn__unary_diff_ok (d->name, "jvp", nv, in, out, err);
  if (st != CN_OK)
    return st;
  int64_t n = cn_tensor_numel (out);
  int pass = d->kind == FRAC && t_in[0] != NULL;
  for (int64_t j = 0; j < n; j++)
    t_out[j] = pass ? t_in[0][j] : 0.0;
  /* now t_out = f'(x) t_x exactly (a copy for frac, 0 for the steps) */
  return CN_OK;
}

/* ---- IBP ------------------------------------------------------------------------------ */

/* frac on [l, u] (l <= u, no NaN), exact: see the header. */
static void
frac_box (double l, double u, double *lo, double *hi)
{
  if (isfinite (l) && isfinite (u) && trunc (l) == trunc (u))
    {
      double k = trunc (l);
      *lo = l - k;
      *hi = u - k;
      /* exact differences; frac = x - k is increasing on the cell */
      return;
    }
  *lo = l >= 0 ? 0.0 : l > -1 ? l : -1.0;
  *hi = u <= 0 ? 0.0 : u < 1 ? u : 1.0;
}

static cn_status
round_ibp (const cn_node_view *nv, const cn_box *const *in, cn_box *out, cn_error *err)
{
  const struct round_def *d = def_of (nv->op);
  if (d == NULL)
    return no_def (nv, err);
  int64_t n = cn__numel (nv->out_shape);
  if (in[0]->n != n || out->n != n)
    return cn_error_set (err, CN_EINVAL, "%s: boxes do not match the node (node '%s')", d->name, cn__node_name (nv));
  for (int64_t j = 0; j < n; j++)
    {
      double l = in[0]->lo[j], u = in[0]->hi[j];
      if (isnan (l) || isnan (u))
        return cn_error_set (err, CN_ENUMERIC, "%s: NaN end in the input box at entry %lld (node '%s')", d->name,
                             (long long) j, cn__node_name (nv));
      if (d->kind == FRAC)
        frac_box (l, u, &out->lo[j], &out->hi[j]);
      else
        {
          out->lo[j] = f_d (d->kind, l);
          out->hi[j] = f_d (d->kind, u);
        }
      /* now [lo, hi] = the hull of f([l, u]), exactly (frac: its closure) */
    }
  return CN_OK;
}

/* Sets R to the bound of the real f at the exact MPFR value X in direction RND (RNDD: a lower
 * bound, RNDU: an upper bound) for the monotone kinds. */
static void
mpfr_step (enum kind k, mpfr_ptr r, mpfr_srcptr x, mpfr_rnd_t rnd)
{
  switch (k)
    {
    case FLOOR: mpfr_rint_floor (r, x, rnd); break;
    case CEIL: mpfr_rint_ceil (r, x, rnd); break;
    case ROUND: mpfr_rint_roundeven (r, x, rnd); break;
    case TRUNC: mpfr_rint_trunc (r, x, rnd); break;
    default: mpfr_set_si (r, mpfr_sgn (x), rnd); break;
    }
}

static cn_status
round_mpfi (const cn_node_view *nv, const cn_mpfi_vec *const *in, cn_mpfi_vec *out, cn_error *err)
{
  const struct round_def *d = def_of (nv->op);
  if (d == NULL)
    return no_def (nv, err);
  int64_t n = cn__numel (nv->out_shape);
  if (in[0]->n != n || out->n != n)
    return cn_error_set (err, CN_EINVAL, "%s: vectors do not match the node (node '%s')", d->name,
                         cn__node_name (nv));
  if (n == 0)
    return CN_OK;
  mpfr_prec_t prec = mpfi_get_prec (out->v[0]), pin = mpfi_get_prec (in[0]->v[0]);
  mpfr_t a, b, ta, tb;
  mpfr_init2 (a, prec);
  mpfr_init2 (b, prec);
  /* trunc of the input's ends, exactly: an integer needs no more bits than the end itself */
  mpfr_init2 (ta, pin);
  mpfr_init2 (tb, pin);
  cn_status st = CN_OK;
  for (int64_t j = 0; j < n; j++)
    {
      mpfi_srcptr x = in[0]->v[j];
      if (mpfi_nan_p (x))
        {
          st = cn_error_set (err, CN_ENUMERIC, "%s: NaN in the input enclosure at entry %lld (node '%s')", d->name,
                             (long long) j, cn__node_name (nv));
          break;
        }
      if (d->kind != FRAC)
        {
          mpfr_step (d->kind, a, &x->left, MPFR_RNDD);
          mpfr_step (d->kind, b, &x->right, MPFR_RNDU);
          /* now [a, b] contains f([left, right]) (f nondecreasing) */
          mpfi_interv_fr (out->v[j], a, b);
          continue;
        }
      mpfr_set_prec (ta, mpfr_get_prec (&x->left));
      mpfr_set_prec (tb, mpfr_get_prec (&x->right));
      mpfr_trunc (ta, &x->left);       /* exact at the end's precision */
      mpfr_trunc (tb, &x->right);
      if (mpfr_number_p (&x->left) && mpfr_number_p (&x->right) && mpfr_equal_p (ta, tb))
        {
          /* one cell: frac = x - k is increasing there */
          mpfr_frac (a, &x->left, MPFR_RNDD);
          mpfr_frac (b, &x->right, MPFR_RNDU);
        }
      else
        {
          if (mpfr_sgn (&x->left) >= 0)
            mpfr_set_zero (a, 1);
          else if (mpfr_cmp_si (&x->left, -1) > 0)
            mpfr_set (a, &x->left, MPFR_RNDD);
          else
            mpfr_set_si (a, -1, MPFR_RNDD);
          if (mpfr_sgn (&x->right) <= 0)
            mpfr_set_zero (b, 1);
          else if (mpfr_cmp_si (&x->right, 1) < 0)
            mpfr_set (b, &x->right, MPFR_RNDU);
          else
            mpfr_set_si (b, 1, MPFR_RNDU);
        }
      /* now [a, b] contains frac([left, right]) */
      mpfi_interv_fr (out->v[j], a, b);
    }
  mpfr_clear (a);
  mpfr_clear (b);
  mpfr_clear (ta);
  mpfr_clear (tb);
  return st;
}

#define ROUND_RULE(ID, lname) CN__UNARY_RULE (ID, lname, round)

ROUND_RULE (FLOOR, floor)
ROUND_RULE (CEIL, ceil)
ROUND_RULE (ROUND, round)
ROUND_RULE (TRUNC, trunc)
ROUND_RULE (FRAC, frac)
ROUND_RULE (SIGN, sign)
