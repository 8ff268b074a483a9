/* SPDX-License-Identifier: MIT */
/* src/ops/rounding.c: the roundings and signs: floor, ceil, round, trunc, frac, sign.
 *
 * Every operator is unary, v = f(x) entry by entry, one input of any shape and the output of
 * its shape; [l, u] is the input box of one entry.  All six share one set of arms, which read the
 * operator's functions from its rule (struct round_impl, one per operator).  None of
 * them rounds: on doubles (and on floats) each result is exact, so forward, IBP and MPFI have no
 * rounding error to charge.
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
 *            add nothing at all, so a NaN cotangent does not leak through them).
 *   CROWN    per entry two lines over [l, u] (finite; else the box), each side keeping the
 *            exact box's constant f(l) (lower) or f(u) (upper) unless the line below is tighter
 *            on average over [l, u] (its value at the midpoint):
 *              floor, ceil, round, trunc: slope 1, since f(x) - x lies in the sawtooth's range,
 *                      [-1, 0] (floor; trunc for x >= 0), [0, 1] (ceil; trunc for x <= 0),
 *                      [-1/2, 1/2] (round), on the sides of 0 the box touches: x + lo <= f(x)
 *                      <= x + hi, exact (no rounding);
 *              frac:   on one cell of trunc, frac = x - k exactly (both lines); else the box;
 *              sign:   on a box around 0, the lower line of slope 2/u (1/u if l = 0) and the
 *                      upper one of slope 2/(-l) (1/(-l) if u = 0), through the jump's corners;
 *                      for any slope k >= 0 the intercept is the infimum (supremum) of
 *                      sign(x) - k x over the box's three parts (x < 0, 0, x > 0), each of
 *                      which is monotone, rounded outward (sign_saw_end).
 *            The step is cn__crown_lines (src/sound/relax.c). */
#include <config.h>
#include <math.h>
#include <stdlib.h>
#include "ops/unary_impl.h"
#include "sound/relax.h"

/* ---- the operators' data --------------------------------------------------------------- */

/* What the shared arms below read of one operator (its rule's impl): f in binary64 and in
 * binary32 (both exact), and for the nondecreasing steps the bound of f at an exact MPFR value in
 * a direction (MPFR_END); frac, which is neither monotone nor a step, has FRAC set and no
 * MPFR_END (its boxes and its derivative 1 are computed apart). */
struct round_impl
{
  double (*fd) (double x);
  float (*ff) (float x);
  int (*mpfr_end) (mpfr_ptr r, mpfr_srcptr x, mpfr_rnd_t rnd);
  int frac;
  int sign;
  /* the steps but sign: f(x) - x lies in [saw[0], saw[1]] for x >= 0 and in [saw[2], saw[3]] for
   * x <= 0 (the CROWN lines of slope 1) */
  double saw[4];
};

static double frac_d (double x) { return x - trunc (x); }
static float frac_f (float x) { return x - truncf (x); }
static double sign_d (double x) { return x > 0 ? 1.0 : x < 0 ? -1.0 : isnan (x) ? x : 0.0; }
static float sign_f (float x) { return x > 0 ? 1.0f : x < 0 ? -1.0f : isnan (x) ? x : 0.0f; }

/* sign at the exact MPFR value X: -1, 0 or 1, exact in any direction. */
static int
sign_mpfr (mpfr_ptr r, mpfr_srcptr x, mpfr_rnd_t rnd)
{
  return mpfr_set_si (r, mpfr_sgn (x), rnd);
}

static const struct round_impl floor_impl = { floor, floorf, mpfr_rint_floor, 0, 0, { -1, 0, -1, 0 } };
static const struct round_impl ceil_impl = { ceil, ceilf, mpfr_rint_ceil, 0, 0, { 0, 1, 0, 1 } };
static const struct round_impl round_impl = { rint, rintf, mpfr_rint_roundeven, 0, 0, { -0.5, 0.5, -0.5, 0.5 } };
static const struct round_impl trunc_impl = { trunc, truncf, mpfr_rint_trunc, 0, 0, { -1, 0, 0, 1 } };
static const struct round_impl frac_impl = { frac_d, frac_f, NULL, 1, 0, { 0 } };
static const struct round_impl sign_impl = { sign_d, sign_f, sign_mpfr, 0, 1, { 0 } };

/* ---- forward, pullback, jvp ----------------------------------------------------------- */

static cn_status
round_forward (const cn_node_view *nv, const cn_tensor *const *in, cn_tensor *out, cn_error *err)
{
  (void) err;
  const struct round_impl *d = nv->rule->impl;
  int64_t n = cn__numel (nv->out_shape);
  CN__ASSERTD (cn__tensors_match (nv, in, out));
  if (out->dtype == CN_DTYPE_F64)
    {
      const double *x = in[0]->data;
      double *y = out->data;
      for (int64_t j = 0; j < n; j++)
        y[j] = d->fd (x[j]);
    }
  else
    {
      const float *x = in[0]->data;
      float *y = out->data;
      for (int64_t j = 0; j < n; j++)
        y[j] = d->ff (x[j]);
    }
  return CN_OK;
}

static cn_status
round_pullback (const cn_node_view *nv, const cn_tensor *const *in, const cn_tensor *out, const double *g_out,
                double *const *g_in, cn_error *err)
{
  (void) err;
  const struct round_impl *d = nv->rule->impl;
  CN__ASSERTD (cn__diff_match (nv, in, out));
  if (g_in[0] == NULL || !d->frac)
    return CN_OK;
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
  (void) err;
  const struct round_impl *d = nv->rule->impl;
  CN__ASSERTD (cn__diff_match (nv, in, out));
  int64_t n = cn_tensor_numel (out);
  int pass = d->frac && t_in[0] != NULL;
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
  const struct round_impl *d = nv->rule->impl;
  int64_t n = cn__numel (nv->out_shape);
  CN__ASSERTD (cn__boxes_match (nv, in, out));
  for (int64_t j = 0; j < n; j++)
    {
      double l = in[0]->lo[j], u = in[0]->hi[j];
      if (isnan (l) || isnan (u))
        return cn_error_set (err, CN_ENUMERIC, "%s: NaN end in the input box at entry %lld (node '%s')",
                             cn_op_name (nv->op), (long long) j, cn__node_name (nv));
      if (d->frac)
        frac_box (l, u, &out->lo[j], &out->hi[j]);
      else
        {
          out->lo[j] = d->fd (l);
          out->hi[j] = d->fd (u);
        }
      /* now [lo, hi] = the hull of f([l, u]), exactly (frac: its closure) */
    }
  return CN_OK;
}

static cn_status
round_mpfi (const cn_node_view *nv, const cn_mpfi_vec *const *in, cn_mpfi_vec *out, cn_error *err)
{
  const struct round_impl *d = nv->rule->impl;
  int64_t n = cn__numel (nv->out_shape);
  CN__ASSERTD (cn__mpfi_match (nv, in, out));
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
          st = cn_error_set (err, CN_ENUMERIC, "%s: NaN in the input enclosure at entry %lld (node '%s')",
                             cn_op_name (nv->op), (long long) j, cn__node_name (nv));
          break;
        }
      if (!d->frac)
        {
          d->mpfr_end (a, &x->left, MPFR_RNDD);
          d->mpfr_end (b, &x->right, MPFR_RNDU);
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

/* ---- CROWN ---------------------------------------------------------------------------- */

/* The lower (UPPER = 0) or upper end of sign(x) - k x over [l, u] (finite, l <= u), k >= 0 a
 * double: on [l, 0) it is -1 - k x, decreasing, on (0, u] 1 - k x, decreasing, and 0 at 0; the
 * infimum (supremum) of each part present, rounded outward. */
static double
sign_saw_end (double l, double u, double k, int upper)
{
  double r = upper ? -INFINITY : INFINITY;
  if (l < 0)
    {
      /* lower: -1 - k min(u, 0) (approached at 0- when u >= 0); upper: -1 - k l */
      double v = upper ? cn__up (-1 - cn__down (k * l)) : u < 0 ? cn__down (-1 - cn__up (k * u)) : -1;
      r = upper ? fmax (r, v) : fmin (r, v);
    }
  if (l <= 0 && u >= 0)
    r = upper ? fmax (r, 0) : fmin (r, 0);
  if (u > 0)
    {
      /* lower: 1 - k u; upper: 1 - k max(l, 0) (approached at 0+ when l <= 0) */
      double v = upper ? (l > 0 ? cn__up (1 - cn__down (k * l)) : 1) : cn__down (1 - cn__up (k * u));
      r = upper ? fmax (r, v) : fmin (r, v);
    }
  return r;
}

/* The lines of one entry over [l, u] with the exact box [ylo, yhi] of f there (see the top):
 * the box's constants, or where its average over [l, u] is tighter a line of slope 1 (the steps
 * but sign: f(x) - x within the sawtooth's range on the box's sides of 0; frac on one cell of
 * trunc: frac = x - k exactly) or, for sign on a box around 0, the line through the lower-left
 * (upper-right) corner of the jump and the far end's value, its intercept sign_saw_end's. */
static void
round_lines (const struct round_impl *d, double l, double u, double ylo, double yhi, cn__relax_line *ln)
{
  *ln = (cn__relax_line) { .bl = ylo, .bu = yhi };
  if (!(l < u) || !isfinite (l) || !isfinite (u) || ylo == yhi)
    return;
  double mid = l / 2 + u / 2, kl, bl, ku, bu;
  if (d->frac)
    {
      if (trunc (l) == trunc (u))
        *ln = (cn__relax_line) { .kl = 1, .bl = -trunc (l), .ku = 1, .bu = -trunc (l) };
      return;
    }
  if (d->sign)
    {
      if (l > 0 || u < 0)
        return;
      kl = (l < 0 ? 2 : 1) / u;
      ku = (u > 0 ? 2 : 1) / -l;
      bl = isfinite (kl) ? sign_saw_end (l, u, kl, 0) : -INFINITY;
      bu = isfinite (ku) ? sign_saw_end (l, u, ku, 1) : INFINITY;
    }
  else
    {
      kl = ku = 1;
      bl = fmin (u >= 0 ? d->saw[0] : INFINITY, l <= 0 ? d->saw[2] : INFINITY);
      bu = fmax (u >= 0 ? d->saw[1] : -INFINITY, l <= 0 ? d->saw[3] : -INFINITY);
    }
  /* now kl x + bl <= f(x) <= ku x + bu on [l, u]; each side keeps the tighter on average */
  if (isfinite (bl) && kl * mid + bl > ylo)
    {
      ln->kl = kl;
      ln->bl = bl;
    }
  if (isfinite (bu) && ku * mid + bu < yhi)
    {
      ln->ku = ku;
      ln->bu = bu;
    }
}

static cn_status
round_entry (const cn_crown_step *st, int64_t j, double ylo, double yhi, cn__relax_line *ln, cn_error *err)
{
  (void) err;
  round_lines (st->nv->rule->impl, st->in_box[0]->lo[j], st->in_box[0]->hi[j], ylo, yhi, ln);
  return CN_OK;
}

/* round_ibp gives the exact box (and refuses NaN ends) */
static cn_status
round_crown (const cn_crown_step *st, cn_error *err)
{
  return cn__crown_box_lines (st, cn_op_name (st->nv->op), round_ibp, round_entry, err);
}

/* ---- the rules ------------------------------------------------------------------------ */

/* The rule of the rounding ID, whose data is IMPL: one input without attributes, every arm the
 * shared one above. */
#define ROUND_RULE(ID, IMPL, ROUNDOFF32, ...)                                                          \
  const struct cn_op_rule cn__rule_##ID = {                                                      \
    .op = CN_OP_##ID, .impl = &IMPL, .n_in = 1, .flags = CN_RULE_NEEDS_BOUNDS,                   \
    .check = cn__unary_check, .forward = round_forward, .pullback = round_pullback,              \
    .jvp = round_jvp, .ibp = round_ibp, .ibp_mpfi = round_mpfi, .crown = round_crown,            \
    .roundoff32 = ROUNDOFF32, .certs = CN__CERTS (__VA_ARGS__),                                  \
  }

/* floor, ceil, round, trunc and sign of a binary32 word are binary32 words (integers below 2^24
 * in magnitude, or the word itself above: every such word is an integer), computed exactly; frac
 * (x - floor(x)) rounds for a small negative x and declares none. */
#define ROUND_EXACT32 CN__CERT_ROUNDOFF32 (CN__ROUNDOFF32_EXACT_WHY)

ROUND_RULE (FLOOR, floor_impl, cn__roundoff32_exact, CN__CERT_GRADIENT, CN__CERT_BOUNDS, ROUND_EXACT32);
ROUND_RULE (CEIL, ceil_impl, cn__roundoff32_exact, CN__CERT_GRADIENT, CN__CERT_BOUNDS, ROUND_EXACT32);
ROUND_RULE (ROUND, round_impl, cn__roundoff32_exact, CN__CERT_GRADIENT, CN__CERT_BOUNDS, ROUND_EXACT32);
ROUND_RULE (TRUNC, trunc_impl, cn__roundoff32_exact, CN__CERT_GRADIENT, CN__CERT_BOUNDS, ROUND_EXACT32);
ROUND_RULE (FRAC, frac_impl, NULL, CN__CERT_GRADIENT, CN__CERT_BOUNDS);
ROUND_RULE (SIGN, sign_impl, cn__roundoff32_exact, CN__CERT_GRADIENT, CN__CERT_BOUNDS, ROUND_EXACT32);
