/* SPDX-License-Identifier: MIT */
/* src/ops/transcendental.c: exponentials, logarithms, trigonometric and hyperbolic functions:
 * exp, exp2, expm1, log, log2, log10, log1p, sin, cos, tan, asin, acos, atan, atan2, sinh, cosh,
 * asinh, acosh, atanh, erf.
 *
 * Every operator but atan2 is unary, v = f(x) entry by entry, and shares one set of arms, which
 * read the operator's data from its rule (struct trans_impl): the C99 function in double and in
 * float, the MPFR and MPFI functions, the derivative, the shape of f (monotone, even, a wave, or
 * with poles), its closed real domain [dlo, dhi] (the ends included where f tends to +-inf there)
 * and the relaxation of its CROWN arm, if any.
 *
 *   forward  the C99 libm function in the tensor's sort (exp for f64, expf for f32, ...), entry by
 *            entry.  Outside the domain libm gives NaN (log(-1)), at a pole +-inf (log(0)).
 *            Measured error against MPFR at 256 bits (glibc 2.36, x86-64; 200000 random points
 *            over the ranges of src/ops/cases_transcendental.c plus 200000 over a wide range per
 *            function: exp, sinh, cosh to +-700, log to [1e-300, 1e300], sin, cos, tan to
 *            +-1e6, ...), the largest error seen in ulps of the exact result, f64 / f32:
 *              exp 0.51/0.51  exp2 0.51/0.51  expm1 0.78/0.77  log 0.52/0.82  log2 0.54/0.73
 *              log10 1.57/1.95  log1p 0.77/0.78  sin 0.52/0.56  cos 0.52/0.56  tan 0.55/0.89
 *              asin 0.52/0.87  acos 0.52/0.89  atan 0.52/0.82  atan2 0.52/1.44  sinh 1.79/1.80
 *              cosh 1.02/1.87  asinh 1.51/1.51  acosh 1.64/1.76  atanh 1.60/1.64  erf 1.06/0.81
 *            None is guaranteed correctly rounded (no libm promises it; the figures are measured
 *            maxima, not proven bounds): every forward is within 2 ulps on these samples.  The
 *            generic test's tolerance (16e-12 (1 + |r|) in f64, 16e-4 (1 + |r|) in f32) is far
 *            above these errors on the test ranges, so no per-operator allowance is needed.
 *   IBP      the ends come from MPFR at 53 bits with directed rounding, f(l) rounded down
 *            (mpfr_f (t, l, MPFR_RNDD), then mpfr_get_d (t, MPFR_RNDD)) and f(u) rounded up, never
 *            from libm.  A 53-bit MPFR value has an unbounded exponent, so the second rounding
 *            (to a subnormal, to 0, to DBL_MAX or to +-inf) goes the same way: the double is a
 *            bound of the exact real value (exp and expm1 take their ends from the binary64
 *            enclosures of src/sound/elementary.c instead: proven bounds, no MPFR call, within
 *            50 ulps, and exp's CROWN intercepts too).  Per shape of f on the input box [l, u]:
 *              increasing (exp, exp2, expm1, log, log2, log10, log1p, asin, atan, sinh, asinh,
 *                acosh, atanh, erf): [f(l) down, f(u) up];
 *              decreasing (acos): [f(u) down, f(l) up];
 *              cosh (even, decreasing then increasing): l >= 0: [cosh l down, cosh u up];
 *                u <= 0: [cosh u down, cosh l up]; else [1, max(cosh l, cosh u) up];
 *              sin, cos: the interior extrema are at x = (k + off) pi (cos: off = 0, sin:
 *                off = 1/2), maxima for even k and minima for odd k.  The integers k with
 *                l <= (k + off) pi <= u are found in MPFI at 128 + exponent(l, u) bits: k runs
 *                over [ceil(a), floor(b)] with a <= l/pi - off and b >= u/pi - off the enclosure
 *                ends, a superset of the true set (an extremum counted where there is none only
 *                widens the box to the true bound +-1).  The box is the hull of the ends'
 *                values (rounded outward) and +1 / -1 for every maximum / minimum found.  An
 *                infinite end or u - l > 7 > 2 pi gives [-1, 1];
 *              tan: increasing between the poles (k + 1/2) pi; a pole in [l, u] (found as for
 *                sin, off = 1/2) or an infinite end gives [-inf, +inf], else [tan l down, tan u
 *                up].
 *            Domains: an end outside the closed domain (log: [0, +inf], log1p: [-1, +inf], asin
 *            and acos: [-1, 1], acosh: [1, +inf], atanh: [-1, 1]) is CN_ENUMERIC, since part of
 *            the box has no real value; an end at a pole gives the infinite limit (log [0, 1] =
 *            [-inf, 0], atanh [0, 1] = [0, +inf]).  A NaN end is CN_ENUMERIC.  Infinite ends give
 *            MPFR's limits (exp(-inf) = 0, atan(+inf) = pi/2 rounded up, log(+inf) = +inf).
 *   MPFI     mpfi_exp, mpfi_exp2, mpfi_expm1, mpfi_log, mpfi_log2, mpfi_log10, mpfi_log1p, mpfi_sin,
 *            mpfi_cos, mpfi_tan, mpfi_asin, mpfi_acos, mpfi_atan, mpfi_sinh, mpfi_cosh, mpfi_asinh,
 *            mpfi_acosh, mpfi_atanh; erf has no MPFI function: erf is increasing, so the enclosure
 *            is [erf(left) RNDD, erf(right) RNDU] in MPFR at the output's precision.  The same
 *            domain rules as IBP (CN_ENUMERIC outside the domain or at a NaN).
 *   pullback g_x += g f'(x) and
 *   jvp      t = f'(x) t_x, with f'(x) in binary64 (round to nearest):
 *              exp: y (the forward value);  exp2: y ln 2;  expm1: exp(x);  log: 1/x;
 *              log2: 1/(x ln 2);  log10: 1/(x ln 10);  log1p: 1/(1 + x);  sin: cos x;
 *              cos: -sin x;  tan: 1 + y^2;  asin: 1/sqrt(1 - x^2);  acos: -1/sqrt(1 - x^2);
 *              atan: 1/(1 + x^2);  sinh: cosh x;  cosh: sinh x;  asinh: 1/hypot(x, 1);
 *              acosh: 1/sqrt((x - 1)(x + 1));  atanh: 1/((1 - x)(1 + x));
 *              erf: (2/sqrt(pi)) exp(-x^2).
 *            Where the forward value y is NaN (outside the domain) the derivative is NaN; at a
 *            pole of f (log at 0, atanh at +-1) or of f' (asin at +-1, acosh at 1) it is +-inf.
 *            f is differentiable everywhere inside its domain, so no one-sided choice is needed.
 *   CROWN    every unary operator: per entry the lines of src/sound/relax.c
 *            (whose top comment holds the soundness argument) and the step cn__crown_lines.
 *            sin, cos and tan, whose inflections k pi are not doubles, take the shifted chords
 *            (G4) with sup |f''| over each piece from MPFI (|sin|, |cos|, |2 tan (1 + tan^2)|;
 *            a piece around a pole of tan has none, and the entry keeps its IBP box), no
 *            tangent parameters; the others have alpha-CROWN's tangent parameters:
 *              exp2, expm1 convex (tangent cap as exp); log2, log10, log1p, acosh concave;
 *                    cosh convex;
 *              sinh, asin, atanh concave on x <= 0, convex on x >= 0 (the mirror of G3);
 *              acos, asinh S-shaped (convex on x <= 0, concave on x >= 0: G3);
 *              exp   convex: upper chord, lower tangent at t = min((l + u)/2, l + 0.99) (as
 *                    auto_LiRPA: on a wide box the tangent stays near e^l);
 *              log   concave (x > 0): lower chord, upper tangent at the midpoint; a box with
 *                    l = 0 has no lower line (log(0) = -inf; the chord slope is not finite, and
 *                    the IBP box's lower end is -inf), so a row that needs one is discharged
 *                    with an infinite charge (its bound is -inf);
 *              atan, erf  S-shaped, convex on x <= 0 and concave on x >= 0 (atan'' =
 *                    -2x/(1 + x^2)^2, erf'' = -2x erf'): G3 of ALGORITHMS.md 3.
 *            The slopes are heuristics; every intercept is the G2 bound of min / max of
 *            f(z) - k z over the box from MPFI (erf: MPFR with directed rounding) enclosures of
 *            f and f' (exp, 1/x, 1/(1 + x^2), (2/sqrt(pi)) exp(-x^2), 2^x ln 2, 1/(x ln 2),
 *            1/(x ln 10), 1/(1 + x), cosh, sinh, +-1/sqrt(1 - x^2), 1/sqrt(1 + x^2),
 *            1/sqrt(x^2 - 1), 1/(1 - x^2)) at 64 bits, rounded outward (exp and expm1: the
 *            binary64 enclosures), so the lines hold exactly over the reals; f' infinite at a
 *            domain end (asin at 1, acosh at 1) leaves the side that needs it without a line.  Degenerate boxes and infinite
 *            ends use k = 0 and the IBP box (exp with u = +inf, or overflowing: no upper line).
 *
 * atan2  v = atan2(y, x) entry by entry, y the first input, x the second (torch.atan2(input,
 *        other)), of equal shapes; the angle of (x, y) in (-pi, pi].
 *   forward  atan2 / atan2f (measured 0.52 / 1.44 ulp).
 *   IBP      on the box [yl, yu] x [xl, xu] (zero ends read as +0: the real y = 0 with x < 0 has
 *            angle pi):
 *              the box contains the origin (no real value there; every limit lies in [-pi, pi]),
 *              or it meets the cut, the negative x axis, from both sides (xl < 0, yl < 0 <= yu):
 *              [-pi up, pi up];
 *              otherwise atan2 is continuous on the box, and the angle of a point of a rectangle
 *              that does not contain the origin is extreme at a corner, so the box is
 *              [min of the four corners' atan2 rounded down, max rounded up] (MPFR at 53 bits;
 *              infinite corners give MPFR's limits, atan2(1, +inf) = 0, atan2(+inf, +inf) =
 *              pi/4).  A NaN end is CN_ENUMERIC.
 *   CROWN    gradient planes at the box's centre with a Taylor remainder |d|^2 / r_min^2, away
 *            from the origin and the cut (atan2_crown); elsewhere the box.
 *   MPFI     the same case split at the intervals' precision: around the origin or across the cut
 *            mpfi_atan2 (out, y, x); otherwise the corners' mpfr_atan2 rounded outward, zero ends
 *            as +0 (mpfi_atan2 alone reads a zero end as both signs: [-pi, pi] at y = 0, x < 0).
 *   pullback with r = hypot(x, y): g_y += g (x / r) / r,  g_x -= g (y / r) / r;
 *   jvp      t = ((x / r) t_y - (y / r) t_x) / r.
 *            At the origin atan2 is not differentiable (not even continuous): the choice there is
 *            the derivative 0 for both inputs, shared by pullback and jvp. */
#include <config.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include "ops/unary_impl.h"
#include "sound/elementary.h"

/* ---- the unary operators' data ------------------------------------------------------- */

/* The shape of f on its domain, which decides how unary_box bounds it: nondecreasing, or
 * nonincreasing; even with its minimum f(0) = 1 at 0 (decreasing on x <= 0, increasing on
 * x >= 0: cosh); a wave between -1 and 1 whose extrema lie at (k + OFF) pi (maxima for even k,
 * minima for odd k: sin, cos); increasing between the poles (k + OFF) pi (tan). */
enum shape { SHAPE_INC, SHAPE_DEC, SHAPE_EVEN, SHAPE_WAVE, SHAPE_POLES };

typedef int (*mpfr_fn) (mpfr_ptr, mpfr_srcptr, mpfr_rnd_t);
typedef int (*mpfi_fn) (mpfi_ptr, mpfi_srcptr);

/* What the shared arms read of one unary operator (its rule's impl): the C99 function in double
 * and in float, the MPFR and MPFI functions, the derivative, the shape of f and its closed real
 * domain [dlo, dhi], and the relaxation of its CROWN arm (NULL: none). */
struct trans_impl
{
  double (*fd) (double);
  float (*ff) (float);
  mpfr_fn mf;
  mpfi_fn mi;                          /* NULL: increasing, from mf on the ends (erf) */
  double (*deriv) (double x, double y); /* f'(x), given y = f(x) in binary64 */
  enum shape shape;
  double off;                          /* SHAPE_WAVE, SHAPE_POLES: the offset of the extrema or poles */
  double dlo, dhi;                     /* the closed real domain */
  const cn__relax_fn *relax;
  void (*fast) (double x, double *lo, double *hi);   /* NULL, or a sound binary64 enclosure of f at
                                                        the double x (src/sound/elementary.c) */
};

#define LN2 0.6931471805599453
#define LN10 2.302585092994046
#define TWO_OVER_SQRTPI 1.1283791670955126

static double d_exp (double x, double y) { (void) x; return y; }
static double d_exp2 (double x, double y) { (void) x; return y * LN2; }
static double d_expm1 (double x, double y) { (void) y; return exp (x); }
static double d_log (double x, double y) { (void) y; return 1 / x; }
static double d_log2 (double x, double y) { (void) y; return 1 / (x * LN2); }
static double d_log10 (double x, double y) { (void) y; return 1 / (x * LN10); }
static double d_log1p (double x, double y) { (void) y; return 1 / (1 + x); }
static double d_sin (double x, double y) { (void) y; return cos (x); }
static double d_cos (double x, double y) { (void) y; return -sin (x); }
static double d_tan (double x, double y) { (void) x; return 1 + y * y; }
static double d_asin (double x, double y) { (void) y; return 1 / sqrt ((1 - x) * (1 + x)); }
static double d_acos (double x, double y) { (void) y; return -1 / sqrt ((1 - x) * (1 + x)); }
static double d_atan (double x, double y) { (void) y; return 1 / (1 + x * x); }
static double d_sinh (double x, double y) { (void) y; return cosh (x); }
static double d_cosh (double x, double y) { (void) y; return sinh (x); }
static double d_asinh (double x, double y) { (void) y; return 1 / hypot (x, 1); }
static double d_acosh (double x, double y) { (void) y; return 1 / sqrt ((x - 1) * (x + 1)); }
static double d_atanh (double x, double y) { (void) y; return 1 / ((1 - x) * (1 + x)); }
static double d_erf (double x, double y) { (void) y; return TWO_OVER_SQRTPI * exp (-x * x); }

/* ---- forward, pullback, jvp ----------------------------------------------------------- */

static cn_status
unary_forward (const cn_node_view *nv, const cn_tensor *const *in, cn_tensor *out, cn_error *err)
{
  (void) err;
  const struct trans_impl *d = nv->rule->impl;
  CN__ASSERTD (cn__tensors_match (nv, in, out));
  int64_t n = cn_tensor_numel (out);
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

/* f'(x) at entry J, NaN where the forward value is NaN (outside the domain). */
static inline double
unary_deriv (const struct trans_impl *d, double x, double y)
{
  return isnan (y) ? NAN : d->deriv (x, y);
}

static cn_status
unary_pullback (const cn_node_view *nv, const cn_tensor *const *in, const cn_tensor *out, const double *g_out,
                double *const *g_in, cn_error *err)
{
  (void) err;
  const struct trans_impl *d = nv->rule->impl;
  CN__ASSERTD (cn__diff_match (nv, in, out));
  if (g_in[0] == NULL)
    return CN_OK;
  int64_t n = cn_tensor_numel (out);
  const double *x = in[0]->data, *y = out->data;
  for (int64_t j = 0; j < n; j++)
    g_in[0][j] += g_out[j] * unary_deriv (d, x[j], y[j]);
  return CN_OK;
}

static cn_status
unary_jvp (const cn_node_view *nv, const cn_tensor *const *in, const cn_tensor *out, const double *const *t_in,
           double *t_out, cn_error *err)
{
  (void) err;
  const struct trans_impl *d = nv->rule->impl;
  CN__ASSERTD (cn__diff_match (nv, in, out));
  int64_t n = cn_tensor_numel (out);
  const double *x = in[0]->data, *y = out->data;
  for (int64_t j = 0; j < n; j++)
    t_out[j] = t_in[0] == NULL ? 0 : unary_deriv (d, x[j], y[j]) * t_in[0][j];
  return CN_OK;
}

/* ---- IBP ------------------------------------------------------------------------------ */

/* A bound of the real f(X): MPFR's f at 53 bits rounded in direction RND, then converted to a
 * double in the same direction; T is a 53-bit scratch variable.  With RNDD the result is <= the
 * exact value, with RNDU >= it (the limit at an infinite X, +-inf at a pole). */
static double
end_value (mpfr_fn f, double x, mpfr_rnd_t rnd, mpfr_ptr t)
{
  mpfr_set_d (t, x, MPFR_RNDN);        /* exact: t has 53 bits */
  f (t, t, rnd);
  return mpfr_get_d (t, rnd);
}

/* The integers k with l <= (k + OFF) pi <= u, for finite l <= u: returns 0 if there is none,
 * 1 if there may be one (its parity in *ODD), 2 if there may be two or more.  A superset: k is
 * taken over [ceil(a), floor(b)] where a <= l/pi - off and b >= u/pi - off are the ends of MPFI
 * enclosures at 128 + exponent bits (so that the fractional part of x/pi is known to 128 bits). */
static int
multiples_of_pi (double l, double u, double off, int *odd)
{
  int e = 1;
  if (l != 0 && ilogb (l) > e)
    e = ilogb (l);
  if (u != 0 && ilogb (u) > e)
    e = ilogb (u);
  mpfr_prec_t prec = 128 + e;
  mpfi_t pi, q;
  mpfr_t a, b;
  mpfi_init2 (pi, prec);
  mpfi_init2 (q, prec);
  mpfr_init2 (a, prec);
  mpfr_init2 (b, prec);
  mpfi_const_pi (pi);
  mpfi_set_d (q, l);
  mpfi_div (q, q, pi);
  mpfi_sub_d (q, q, off);
  mpfi_get_left (a, q);
  mpfr_ceil (a, a);                    /* exact: |a| < 2^(e + 1) needs fewer than prec bits */
  mpfi_set_d (q, u);
  mpfi_div (q, q, pi);
  mpfi_sub_d (q, q, off);
  mpfi_get_right (b, q);
  mpfr_floor (b, b);
  /* now every integer k with l <= (k + off) pi <= u lies in [a, b] */
  int r;
  if (mpfr_cmp (a, b) > 0)
    r = 0;
  else
    {
      mpfr_add_ui (&q->left, a, 1, MPFR_RNDN);   /* exact, an integer of fewer than prec bits */
      if (mpfr_cmp (&q->left, b) <= 0)
        r = 2;
      else
        {
          r = 1;
          mpfr_div_2ui (b, a, 1, MPFR_RNDN);
          *odd = !mpfr_integer_p (b);
        }
    }
  mpfi_clear (pi);
  mpfi_clear (q);
  mpfr_clear (a);
  mpfr_clear (b);
  return r;
}

/* The box of one entry: [*lo, *hi] contains f(x) for every real x in [l, u] (in the domain). */
static void
unary_box (const struct trans_impl *d, double l, double u, double *lo, double *hi, mpfr_ptr t)
{
  switch (d->shape)
    {
    case SHAPE_INC:
      if (d->fast != NULL)
        {
          double e;
          d->fast (l, lo, &e);
          d->fast (u, &e, hi);
          break;
        }
      *lo = end_value (d->mf, l, MPFR_RNDD, t);
      *hi = end_value (d->mf, u, MPFR_RNDU, t);
      break;
    case SHAPE_DEC:
      *lo = end_value (d->mf, u, MPFR_RNDD, t);
      *hi = end_value (d->mf, l, MPFR_RNDU, t);
      break;
    case SHAPE_EVEN:
      if (l >= 0)
        {
          *lo = end_value (d->mf, l, MPFR_RNDD, t);
          *hi = end_value (d->mf, u, MPFR_RNDU, t);
        }
      else if (u <= 0)
        {
          *lo = end_value (d->mf, u, MPFR_RNDD, t);
          *hi = end_value (d->mf, l, MPFR_RNDU, t);
        }
      else
        {
          /* the minimum cosh 0 = 1 is inside; the maximum is at an end */
          *lo = 1;
          *hi = fmax (end_value (d->mf, l, MPFR_RNDU, t), end_value (d->mf, u, MPFR_RNDU, t));
        }
      break;
    case SHAPE_POLES:
      {
        int odd;
        if (isinf (l) || isinf (u) || u - l > 4 || multiples_of_pi (l, u, d->off, &odd) != 0)
          {
            /* a pole (k + 1/2) pi may lie in [l, u] (u - l > 4 > pi certainly holds one) */
            *lo = -INFINITY;
            *hi = INFINITY;
          }
        else
          {
            /* tan is increasing on [l, u] */
            *lo = end_value (d->mf, l, MPFR_RNDD, t);
            *hi = end_value (d->mf, u, MPFR_RNDU, t);
          }
      }
      break;
    default:                           /* SHAPE_WAVE */
      {
        int odd = 0, k;
        if (isinf (l) || isinf (u) || u - l > 7)
          k = 2;                       /* a whole period 2 pi < 7 lies in [l, u] */
        else
          k = multiples_of_pi (l, u, d->off, &odd);
        if (k == 2)
          {
            *lo = -1;
            *hi = 1;
            break;
          }
        /* without interior extrema f is monotone between them: the ends bound it */
        *lo = fmin (end_value (d->mf, l, MPFR_RNDD, t), end_value (d->mf, u, MPFR_RNDD, t));
        *hi = fmax (end_value (d->mf, l, MPFR_RNDU, t), end_value (d->mf, u, MPFR_RNDU, t));
        if (k == 1 && odd)
          *lo = -1;                    /* a minimum (2k + 1) pi + off pi inside */
        else if (k == 1)
          *hi = 1;                     /* a maximum 2k pi + off pi inside */
      }
      break;
    }
}

static cn_status
unary_ibp (const cn_node_view *nv, const cn_box *const *in, cn_box *out, cn_error *err)
{
  const struct trans_impl *d = nv->rule->impl;
  const char *name = cn_op_name (nv->op);
  CN__ASSERTD (cn__boxes_match (nv, in, out));
  cn_status st = CN_OK;
  int64_t n = out->n;
  mpfr_t t;
  mpfr_init2 (t, 53);
  for (int64_t j = 0; j < n; j++)
    {
      double l = in[0]->lo[j], u = in[0]->hi[j];
      if (isnan (l) || isnan (u))
        {
          st = cn_error_set (err, CN_ENUMERIC, "%s: NaN end in the input box at entry %lld (node '%s')", name,
                             (long long) j, cn__node_name (nv));
          break;
        }
      if (l < d->dlo || u > d->dhi)
        {
          st = cn_error_set (err, CN_ENUMERIC,
                             "%s: input box [%.17g, %.17g] at entry %lld leaves the domain [%g, %g] (node '%s')",
                             name, l, u, (long long) j, d->dlo, d->dhi, cn__node_name (nv));
          break;
        }
      unary_box (d, l, u, &out->lo[j], &out->hi[j], t);
      /* now [lo, hi] contains f([l, u]) */
    }
  mpfr_clear (t);
  return st;
}

static cn_status
unary_mpfi (const cn_node_view *nv, const cn_mpfi_vec *const *in, cn_mpfi_vec *out, cn_error *err)
{
  const struct trans_impl *d = nv->rule->impl;
  const char *name = cn_op_name (nv->op);
  CN__ASSERTD (cn__mpfi_match (nv, in, out));
  cn_status st = CN_OK;
  if (out->n == 0)
    return st;
  mpfr_prec_t prec = mpfi_get_prec (out->v[0]);
  mpfr_t a, b;
  mpfr_init2 (a, prec);
  mpfr_init2 (b, prec);
  for (int64_t j = 0; j < out->n; j++)
    {
      mpfi_srcptr x = in[0]->v[j];
      if (mpfi_nan_p (x))
        {
          st = cn_error_set (err, CN_ENUMERIC, "%s: NaN in the input enclosure at entry %lld (node '%s')", name,
                             (long long) j, cn__node_name (nv));
          break;
        }
      if (mpfr_cmp_d (&x->left, d->dlo) < 0 || mpfr_cmp_d (&x->right, d->dhi) > 0)
        {
          st = cn_error_set (err, CN_ENUMERIC, "%s: input enclosure at entry %lld leaves the domain [%g, %g] (node '%s')",
                             name, (long long) j, d->dlo, d->dhi, cn__node_name (nv));
          break;
        }
      if (d->mi != NULL)
        d->mi (out->v[j], x);
      else
        {
          /* f increasing (erf): [f(left) down, f(right) up] */
          d->mf (a, &x->left, MPFR_RNDD);
          d->mf (b, &x->right, MPFR_RNDU);
          mpfi_interv_fr (out->v[j], a, b);
        }
      if (mpfi_nan_p (out->v[j]))
        {
          st = cn_error_set (err, CN_ENUMERIC, "%s: no real value at entry %lld (node '%s')", name, (long long) j,
                             cn__node_name (nv));
          break;
        }
    }
  mpfr_clear (a);
  mpfr_clear (b);
  return st;
}

/* ---- the CROWN arms (see the top) ------------------------------------------------------ */

static int rx_convex (int i, const void *p) { (void) i; (void) p; return 1; }
static int rx_concave (int i, const void *p) { (void) i; (void) p; return -1; }
static int rx_s (int i, const void *p) { (void) p; return i == 0 ? 1 : -1; }

static double rx_exp (double x, int i, const void *p) { (void) i; (void) p; return exp (x); }
static double rx_log (double x, int i, const void *p) { (void) i; (void) p; return log (x); }
static double rx_dlog (double x, int i, const void *p) { (void) i; (void) p; return 1 / x; }
static double rx_atan (double x, int i, const void *p) { (void) i; (void) p; return atan (x); }
static double rx_datan (double x, int i, const void *p) { (void) i; (void) p; return 1 / (1 + x * x); }
static double rx_erf (double x, int i, const void *p) { (void) i; (void) p; return erf (x); }
static double
rx_derf (double x, int i, const void *p)
{
  (void) i;
  (void) p;
  return TWO_OVER_SQRTPI * exp (-x * x);
}

/* the second derivatives (binary64; they only steer alpha-CROWN's tangent points): exp'' = exp,
 * log'' = -1/x^2, atan'' = -2x/(1 + x^2)^2, erf'' = -2x erf' */
static double
rx_d2log (double x, int i, const void *p)
{
  (void) i;
  (void) p;
  return -1 / (x * x);
}
static double
rx_d2atan (double x, int i, const void *p)
{
  (void) i;
  (void) p;
  double q = 1 + x * x;
  return -2 * x / (q * q);
}
static double
rx_d2erf (double x, int i, const void *p)
{
  return -2 * x * rx_derf (x, i, p);
}

static void
rx_log_mpfi (mpfi_ptr y, double x, int i, const void *p)
{
  (void) i;
  (void) p;
  mpfi_set_d (y, x);
  mpfi_log (y, y);
}
/* 1/x; x = 0 gives no finite enclosure (MPFI's [-inf, +inf] or +inf), which G2 turns into "no line" */
static void
rx_dlog_mpfi (mpfi_ptr y, double x, int i, const void *p)
{
  (void) i;
  (void) p;
  mpfi_set_d (y, x);
  mpfi_inv (y, y);
}
static void
rx_atan_mpfi (mpfi_ptr y, double x, int i, const void *p)
{
  (void) i;
  (void) p;
  mpfi_set_d (y, x);
  mpfi_atan (y, y);
}
/* 1 / (1 + x^2) */
static void
rx_datan_mpfi (mpfi_ptr y, double x, int i, const void *p)
{
  (void) i;
  (void) p;
  mpfi_set_d (y, x);
  mpfi_sqr (y, y);
  mpfi_add_ui (y, y, 1);
  mpfi_inv (y, y);
}
/* [erf(x) rounded down, erf(x) rounded up] (MPFI has no erf) */
static void
rx_erf_mpfi (mpfi_ptr y, double x, int i, const void *p)
{
  (void) i;
  (void) p;
  mpfr_t a, b, t;
  mpfr_prec_t pr = mpfi_get_prec (y);
  mpfr_inits2 (pr, a, b, (mpfr_ptr) 0);
  mpfr_init2 (t, 53);
  mpfr_set_d (t, x, MPFR_RNDN);   /* exact */
  mpfr_erf (a, t, MPFR_RNDD);
  mpfr_erf (b, t, MPFR_RNDU);
  mpfi_interv_fr (y, a, b);
  mpfr_clears (a, b, t, (mpfr_ptr) 0);
}
/* (2 / sqrt(pi)) exp(-x^2) */
static void
rx_derf_mpfi (mpfi_ptr y, double x, int i, const void *p)
{
  (void) i;
  (void) p;
  mpfi_t c;
  mpfi_init2 (c, mpfi_get_prec (y));
  mpfi_set_d (y, x);
  mpfi_sqr (y, y);
  mpfi_neg (y, y);
  mpfi_exp (y, y);
  mpfi_const_pi (c);
  mpfi_sqrt (c, c);
  mpfi_div (y, y, c);
  mpfi_mul_2ui (y, y, 1);
  mpfi_clear (c);
}

static void
rx_exp_encl (double x, int i, const void *p, double *lo, double *hi)
{
  (void) i;
  (void) p;
  cn__exp_encl (x, lo, hi);
}
static const cn__relax_fn relax_exp = { .split = 0, .tangent_cap = 0.99, .curv = rx_convex, .f = rx_exp, .df = rx_exp,
                                        .f_encl = rx_exp_encl,
                                        .df_encl = rx_exp_encl, .d2f = rx_exp };
static const cn__relax_fn relax_log = { .split = 0, .curv = rx_concave, .f = rx_log, .df = rx_dlog,
                                        .f_mpfi = rx_log_mpfi, .df_mpfi = rx_dlog_mpfi, .d2f = rx_d2log };
static const cn__relax_fn relax_atan = { .split = 1, .brk = 0, .curv = rx_s, .f = rx_atan, .df = rx_datan,
                                         .f_mpfi = rx_atan_mpfi, .df_mpfi = rx_datan_mpfi, .d2f = rx_d2atan };
static const cn__relax_fn relax_erf = { .split = 1, .brk = 0, .curv = rx_s, .f = rx_erf, .df = rx_derf,
                                        .f_mpfi = rx_erf_mpfi, .df_mpfi = rx_derf_mpfi, .d2f = rx_d2erf };

/* The relaxations of exp2, expm1, log2, log10, log1p, sinh, cosh, asin, acos, asinh, acosh and
 * atanh: f, f' and f'' in binary64 (heuristics: slopes, tangent points), f and f' enclosed in
 * MPFI (expm1: the binary64 enclosures of src/sound/elementary.c, f' = exp). */
static int rx_cc (int i, const void *p) { (void) p; return i == 0 ? -1 : 1; }

CN__RX_FN (exp2, exp2 (x))
CN__RX_FN (dexp2, exp2 (x) * LN2)
CN__RX_FN (d2exp2, exp2 (x) * (LN2 * LN2))
CN__RX_FN (expm1, expm1 (x))
CN__RX_FN (log2, log2 (x))
CN__RX_FN (dlog2, 1 / (x * LN2))
CN__RX_FN (d2log2, -1 / (x * x * LN2))
CN__RX_FN (log10, log10 (x))
CN__RX_FN (dlog10, 1 / (x * LN10))
CN__RX_FN (d2log10, -1 / (x * x * LN10))
CN__RX_FN (log1p, log1p (x))
CN__RX_FN (dlog1p, 1 / (1 + x))
CN__RX_FN (d2log1p, -1 / ((1 + x) * (1 + x)))
CN__RX_FN (sinh, sinh (x))
CN__RX_FN (cosh, cosh (x))
CN__RX_FN (asin, asin (x))
CN__RX_FN (dasin, 1 / sqrt ((1 - x) * (1 + x)))
CN__RX_FN (d2asin, x / pow ((1 - x) * (1 + x), 1.5))
CN__RX_FN (acos, acos (x))
CN__RX_FN (dacos, -1 / sqrt ((1 - x) * (1 + x)))
CN__RX_FN (d2acos, -x / pow ((1 - x) * (1 + x), 1.5))
CN__RX_FN (asinh, asinh (x))
CN__RX_FN (dasinh, 1 / hypot (x, 1))
CN__RX_FN (d2asinh, -x / pow (1 + x * x, 1.5))
CN__RX_FN (acosh, acosh (x))
CN__RX_FN (dacosh, 1 / sqrt ((x - 1) * (x + 1)))
CN__RX_FN (d2acosh, -x / pow ((x - 1) * (x + 1), 1.5))
CN__RX_FN (atanh, atanh (x))
CN__RX_FN (datanh, 1 / ((1 - x) * (1 + x)))
CN__RX_FN (d2atanh, 2 * x / (((1 - x) * (1 + x)) * ((1 - x) * (1 + x))))

CN__RX_MPFI (exp2_mpfi, mpfi_exp2 (y, y))
CN__RX_MPFI (dexp2_mpfi, mpfi_exp2 (y, y); mpfi_const_log2 (c); mpfi_mul (y, y, c))      /* 2^x ln 2 */
CN__RX_MPFI (log2_mpfi, mpfi_log2 (y, y))
CN__RX_MPFI (dlog2_mpfi, mpfi_const_log2 (c); mpfi_mul (y, y, c); mpfi_inv (y, y))       /* 1/(x ln 2) */
CN__RX_MPFI (log10_mpfi, mpfi_log10 (y, y))
CN__RX_MPFI (dlog10_mpfi, mpfi_set_ui (c, 10); mpfi_log (c, c); mpfi_mul (y, y, c); mpfi_inv (y, y))
CN__RX_MPFI (log1p_mpfi, mpfi_log1p (y, y))
CN__RX_MPFI (dlog1p_mpfi, mpfi_add_ui (y, y, 1); mpfi_inv (y, y))                        /* 1/(1 + x) */
CN__RX_MPFI (sinh_mpfi, mpfi_sinh (y, y))
CN__RX_MPFI (cosh_mpfi, mpfi_cosh (y, y))
CN__RX_MPFI (asin_mpfi, mpfi_asin (y, y))
CN__RX_MPFI (dasin_mpfi, mpfi_sqr (y, y); mpfi_ui_sub (y, 1, y); mpfi_sqrt (y, y); mpfi_inv (y, y))
CN__RX_MPFI (acos_mpfi, mpfi_acos (y, y))
CN__RX_MPFI (dacos_mpfi, mpfi_sqr (y, y); mpfi_ui_sub (y, 1, y); mpfi_sqrt (y, y); mpfi_inv (y, y); mpfi_neg (y, y))
CN__RX_MPFI (asinh_mpfi, mpfi_asinh (y, y))
CN__RX_MPFI (dasinh_mpfi, mpfi_sqr (y, y); mpfi_add_ui (y, y, 1); mpfi_sqrt (y, y); mpfi_inv (y, y))
CN__RX_MPFI (acosh_mpfi, mpfi_acosh (y, y))
CN__RX_MPFI (dacosh_mpfi, mpfi_sqr (y, y); mpfi_sub_ui (y, y, 1); mpfi_sqrt (y, y); mpfi_inv (y, y))
CN__RX_MPFI (atanh_mpfi, mpfi_atanh (y, y))
CN__RX_MPFI (datanh_mpfi, mpfi_sqr (y, y); mpfi_ui_sub (y, 1, y); mpfi_inv (y, y))        /* 1/(1 - x^2) */

static void
rx_expm1_encl (double x, int i, const void *p, double *lo, double *hi)
{
  (void) i;
  (void) p;
  cn__expm1_encl (x, lo, hi);
}

static const cn__relax_fn relax_exp2 = { .tangent_cap = 0.99, .curv = rx_convex, .f = rx_exp2, .df = rx_dexp2,
                                         .f_mpfi = rx_exp2_mpfi, .df_mpfi = rx_dexp2_mpfi, .d2f = rx_d2exp2 };
static const cn__relax_fn relax_expm1 = { .tangent_cap = 0.99, .curv = rx_convex, .f = rx_expm1, .df = rx_exp,
                                          .f_encl = rx_expm1_encl, .df_encl = rx_exp_encl, .d2f = rx_exp };
static const cn__relax_fn relax_log2 = { .curv = rx_concave, .f = rx_log2, .df = rx_dlog2, .f_mpfi = rx_log2_mpfi,
                                         .df_mpfi = rx_dlog2_mpfi, .d2f = rx_d2log2 };
static const cn__relax_fn relax_log10 = { .curv = rx_concave, .f = rx_log10, .df = rx_dlog10, .f_mpfi = rx_log10_mpfi,
                                          .df_mpfi = rx_dlog10_mpfi, .d2f = rx_d2log10 };
static const cn__relax_fn relax_log1p = { .curv = rx_concave, .f = rx_log1p, .df = rx_dlog1p, .f_mpfi = rx_log1p_mpfi,
                                          .df_mpfi = rx_dlog1p_mpfi, .d2f = rx_d2log1p };
static const cn__relax_fn relax_sinh = { .split = 1, .brk = 0, .curv = rx_cc, .f = rx_sinh, .df = rx_cosh,
                                         .f_mpfi = rx_sinh_mpfi, .df_mpfi = rx_cosh_mpfi, .d2f = rx_sinh };
static const cn__relax_fn relax_cosh = { .curv = rx_convex, .f = rx_cosh, .df = rx_sinh, .f_mpfi = rx_cosh_mpfi,
                                         .df_mpfi = rx_sinh_mpfi, .d2f = rx_cosh };
static const cn__relax_fn relax_asin = { .split = 1, .brk = 0, .curv = rx_cc, .f = rx_asin, .df = rx_dasin,
                                         .f_mpfi = rx_asin_mpfi, .df_mpfi = rx_dasin_mpfi, .d2f = rx_d2asin };
static const cn__relax_fn relax_acos = { .split = 1, .brk = 0, .curv = rx_s, .f = rx_acos, .df = rx_dacos,
                                         .f_mpfi = rx_acos_mpfi, .df_mpfi = rx_dacos_mpfi, .d2f = rx_d2acos };
static const cn__relax_fn relax_asinh = { .split = 1, .brk = 0, .curv = rx_s, .f = rx_asinh, .df = rx_dasinh,
                                          .f_mpfi = rx_asinh_mpfi, .df_mpfi = rx_dasinh_mpfi, .d2f = rx_d2asinh };
static const cn__relax_fn relax_acosh = { .curv = rx_concave, .f = rx_acosh, .df = rx_dacosh, .f_mpfi = rx_acosh_mpfi,
                                          .df_mpfi = rx_dacosh_mpfi, .d2f = rx_d2acosh };
static const cn__relax_fn relax_atanh = { .split = 1, .brk = 0, .curv = rx_cc, .f = rx_atanh, .df = rx_datanh,
                                          .f_mpfi = rx_atanh_mpfi, .df_mpfi = rx_datanh_mpfi, .d2f = rx_d2atanh };

/* sin, cos and tan: shifted chords (G4 of src/sound/relax.c), with sup |f''| over [a, b] from
 * MPFI: sin'' = -sin, cos'' = -cos, tan'' = 2 tan (1 + tan^2) (mpfi_tan of an interval around a
 * pole is [-inf, +inf]: no line).  f at a point is mpfi_sin, mpfi_cos, mpfi_tan at 64 bits. */
#define RX_D2(NAME, BODY)                                                                         \
  static double rx_##NAME (double a, double b, const void *p)                                     \
  {                                                                                               \
    (void) p;                                                                                     \
    mpfi_t y, c;                                                                                  \
    mpfr_t m;                                                                                     \
    mpfi_init2 (y, 64);                                                                           \
    mpfi_init2 (c, 64);                                                                           \
    mpfr_init2 (m, 64);                                                                           \
    mpfi_interv_d (y, a, b);                                                                      \
    BODY;                                                                                         \
    mpfi_mag (m, y);                                                                              \
    double r = mpfr_get_d (m, MPFR_RNDU);                                                         \
    mpfi_clear (y);                                                                               \
    mpfi_clear (c);                                                                               \
    mpfr_clear (m);                                                                               \
    return r;                                                                                     \
  }
RX_D2 (d2sin_bound, mpfi_sin (y, y))
RX_D2 (d2cos_bound, mpfi_cos (y, y))
RX_D2 (d2tan_bound, mpfi_tan (y, y); mpfi_sqr (c, y); mpfi_add_ui (c, c, 1); mpfi_mul (y, y, c); mpfi_mul_2ui (y, y, 1))
#undef RX_D2
static double rx_sin (double x, int i, const void *p) { (void) i; (void) p; return sin (x); }
static double rx_cos (double x, int i, const void *p) { (void) i; (void) p; return cos (x); }
static double rx_tan (double x, int i, const void *p) { (void) i; (void) p; return tan (x); }
static void rx_sin_mpfi (mpfi_ptr y, double x, int i, const void *p) { (void) i; (void) p; mpfi_set_d (y, x); mpfi_sin (y, y); }
static void rx_cos_mpfi (mpfi_ptr y, double x, int i, const void *p) { (void) i; (void) p; mpfi_set_d (y, x); mpfi_cos (y, y); }
static void rx_tan_mpfi (mpfi_ptr y, double x, int i, const void *p) { (void) i; (void) p; mpfi_set_d (y, x); mpfi_tan (y, y); }
static const cn__relax_fn relax_sin = { .f = rx_sin, .f_mpfi = rx_sin_mpfi, .d2_bound = rx_d2sin_bound };
static const cn__relax_fn relax_cos = { .f = rx_cos, .f_mpfi = rx_cos_mpfi, .d2_bound = rx_d2cos_bound };
static const cn__relax_fn relax_tan = { .f = rx_tan, .f_mpfi = rx_tan_mpfi, .d2_bound = rx_d2tan_bound };

/* The CROWN arm of the operators with a relaxation: the lines of the operator's relaxation over the
 * node's IBP box (cn__crown_relax). */
static cn_status
unary_crown (const cn_crown_step *st, cn_error *err)
{
  const struct trans_impl *d = st->nv->rule->impl;
  CN__ASSERTD (d->relax != NULL);
  return cn__crown_relax (st, cn_op_name (st->nv->op), d->relax, unary_ibp, err);
}

/* ---- the unary rules -------------------------------------------------------------------- */

#define INF INFINITY
static const struct trans_impl exp_impl = { exp, expf, mpfr_exp, mpfi_exp, d_exp, SHAPE_INC, 0, -INF, INF, &relax_exp,
                                             cn__exp_encl };
static const struct trans_impl exp2_impl = { exp2, exp2f, mpfr_exp2, mpfi_exp2, d_exp2, SHAPE_INC, 0, -INF, INF,
                                             &relax_exp2, NULL };
static const struct trans_impl expm1_impl = { expm1, expm1f, mpfr_expm1, mpfi_expm1, d_expm1, SHAPE_INC, 0, -INF, INF,
                                              &relax_expm1, cn__expm1_encl };
static const struct trans_impl log_impl = { log, logf, mpfr_log, mpfi_log, d_log, SHAPE_INC, 0, 0, INF, &relax_log,
                                            NULL };
static const struct trans_impl log2_impl = { log2, log2f, mpfr_log2, mpfi_log2, d_log2, SHAPE_INC, 0, 0, INF, &relax_log2,
                                             NULL };
static const struct trans_impl log10_impl = { log10, log10f, mpfr_log10, mpfi_log10, d_log10, SHAPE_INC, 0, 0, INF,
                                              &relax_log10, NULL };
static const struct trans_impl log1p_impl = { log1p, log1pf, mpfr_log1p, mpfi_log1p, d_log1p, SHAPE_INC, 0, -1, INF,
                                              &relax_log1p, NULL };
static const struct trans_impl sin_impl = { sin, sinf, mpfr_sin, mpfi_sin, d_sin, SHAPE_WAVE, 0.5, -INF, INF,
                                            &relax_sin, NULL };
static const struct trans_impl cos_impl = { cos, cosf, mpfr_cos, mpfi_cos, d_cos, SHAPE_WAVE, 0, -INF, INF,
                                            &relax_cos, NULL };
static const struct trans_impl tan_impl = { tan, tanf, mpfr_tan, mpfi_tan, d_tan, SHAPE_POLES, 0.5, -INF, INF,
                                            &relax_tan, NULL };
static const struct trans_impl asin_impl = { asin, asinf, mpfr_asin, mpfi_asin, d_asin, SHAPE_INC, 0, -1, 1, &relax_asin,
                                             NULL };
static const struct trans_impl acos_impl = { acos, acosf, mpfr_acos, mpfi_acos, d_acos, SHAPE_DEC, 0, -1, 1, &relax_acos,
                                             NULL };
static const struct trans_impl atan_impl = { atan, atanf, mpfr_atan, mpfi_atan, d_atan, SHAPE_INC, 0, -INF, INF,
                                             &relax_atan, NULL };
static const struct trans_impl sinh_impl = { sinh, sinhf, mpfr_sinh, mpfi_sinh, d_sinh, SHAPE_INC, 0, -INF, INF,
                                             &relax_sinh, NULL };
static const struct trans_impl cosh_impl = { cosh, coshf, mpfr_cosh, mpfi_cosh, d_cosh, SHAPE_EVEN, 0, -INF, INF,
                                             &relax_cosh, NULL };
static const struct trans_impl asinh_impl = { asinh, asinhf, mpfr_asinh, mpfi_asinh, d_asinh, SHAPE_INC, 0, -INF, INF,
                                              &relax_asinh, NULL };
static const struct trans_impl acosh_impl = { acosh, acoshf, mpfr_acosh, mpfi_acosh, d_acosh, SHAPE_INC, 0, 1, INF,
                                              &relax_acosh, NULL };
static const struct trans_impl atanh_impl = { atanh, atanhf, mpfr_atanh, mpfi_atanh, d_atanh, SHAPE_INC, 0, -1, 1,
                                              &relax_atanh, NULL };
static const struct trans_impl erf_impl = { erf, erff, mpfr_erf, NULL, d_erf, SHAPE_INC, 0, -INF, INF, &relax_erf,
                                            NULL };
#undef INF

/* The rule of the unary operator ID whose data is IMPL; UNARY_RULE_CROWN adds the relaxing CROWN
 * arm (IMPL has a relaxation) and its tangent parameters for alpha-CROWN. */
#define UNARY_RULE(ID, IMPL, ...)                                                                      \
  const struct cn_op_rule cn__rule_##ID = {                                                       \
    .op = CN_OP_##ID, .impl = &IMPL, .n_in = 1, .check = cn__unary_check,       \
    .forward = unary_forward, .pullback = unary_pullback, .jvp = unary_jvp, .ibp = unary_ibp,     \
    .ibp_mpfi = unary_mpfi,                                                                       \
    .certs = CN__CERTS (__VA_ARGS__),                                                             \
  }
#define UNARY_RULE_CROWN(ID, IMPL, ...)                                                                \
  const struct cn_op_rule cn__rule_##ID = {                                                       \
    .op = CN_OP_##ID, .impl = &IMPL, .n_in = 1,                                 \
    .flags = CN_RULE_NEEDS_BOUNDS | CN_RULE_SMOOTH_BOUNDS, .check = cn__unary_check,              \
    .forward = unary_forward, .pullback = unary_pullback, .jvp = unary_jvp, .ibp = unary_ibp,     \
    .ibp_mpfi = unary_mpfi, .crown = unary_crown, .alpha = cn__relax_alpha,                           \
    .certs = CN__CERTS (__VA_ARGS__),                                                                 \
  }

/* A relaxing arm without tangent parameters (the shifted chords of sin, cos, tan). */
#define UNARY_RULE_CHORD(ID, IMPL, ...)                                                                \
  const struct cn_op_rule cn__rule_##ID = {                                                       \
    .op = CN_OP_##ID, .impl = &IMPL, .n_in = 1,                                                   \
    .flags = CN_RULE_NEEDS_BOUNDS | CN_RULE_SMOOTH_BOUNDS, .check = cn__unary_check,              \
    .forward = unary_forward, .pullback = unary_pullback, .jvp = unary_jvp, .ibp = unary_ibp,     \
    .ibp_mpfi = unary_mpfi, .crown = unary_crown,                                                 \
    .certs = CN__CERTS (__VA_ARGS__),                                                             \
  }

UNARY_RULE_CROWN (EXP, exp_impl, CN__CERT_GRADIENT, CN__CERT_BOUNDS);
UNARY_RULE_CROWN (EXP2, exp2_impl, CN__CERT_GRADIENT, CN__CERT_BOUNDS);
UNARY_RULE_CROWN (EXPM1, expm1_impl, CN__CERT_GRADIENT, CN__CERT_BOUNDS);
UNARY_RULE_CROWN (LOG, log_impl, CN__CERT_GRADIENT, CN__CERT_BOUNDS);
UNARY_RULE_CROWN (LOG2, log2_impl, CN__CERT_GRADIENT, CN__CERT_BOUNDS);
UNARY_RULE_CROWN (LOG10, log10_impl, CN__CERT_GRADIENT, CN__CERT_BOUNDS);
UNARY_RULE_CROWN (LOG1P, log1p_impl, CN__CERT_GRADIENT, CN__CERT_BOUNDS);
UNARY_RULE_CHORD (SIN, sin_impl, CN__CERT_GRADIENT, CN__CERT_BOUNDS);
UNARY_RULE_CHORD (COS, cos_impl, CN__CERT_GRADIENT, CN__CERT_BOUNDS);
UNARY_RULE_CHORD (TAN, tan_impl, CN__CERT_GRADIENT, CN__CERT_BOUNDS);
UNARY_RULE_CROWN (ASIN, asin_impl, CN__CERT_GRADIENT, CN__CERT_BOUNDS);
UNARY_RULE_CROWN (ACOS, acos_impl, CN__CERT_GRADIENT, CN__CERT_BOUNDS);
UNARY_RULE_CROWN (ATAN, atan_impl, CN__CERT_GRADIENT, CN__CERT_BOUNDS);
UNARY_RULE_CROWN (SINH, sinh_impl, CN__CERT_GRADIENT, CN__CERT_BOUNDS);
UNARY_RULE_CROWN (COSH, cosh_impl, CN__CERT_GRADIENT, CN__CERT_BOUNDS);
UNARY_RULE_CROWN (ASINH, asinh_impl, CN__CERT_GRADIENT, CN__CERT_BOUNDS);
UNARY_RULE_CROWN (ACOSH, acosh_impl, CN__CERT_GRADIENT, CN__CERT_BOUNDS);
UNARY_RULE_CROWN (ATANH, atanh_impl, CN__CERT_GRADIENT, CN__CERT_BOUNDS);
UNARY_RULE_CROWN (ERF, erf_impl, CN__CERT_GRADIENT, CN__CERT_BOUNDS);

/* ---- atan2 ---------------------------------------------------------------------------- */

static cn_status
atan2_forward (const cn_node_view *nv, const cn_tensor *const *in, cn_tensor *out, cn_error *err)
{
  (void) err;
  CN__ASSERTD (cn__tensors_match (nv, in, out));
  int64_t n = cn_tensor_numel (out);
  if (out->dtype == CN_DTYPE_F64)
    {
      const double *y = in[0]->data, *x = in[1]->data;
      double *v = out->data;
      for (int64_t j = 0; j < n; j++)
        v[j] = atan2 (y[j], x[j]);
    }
  else
    {
      const float *y = in[0]->data, *x = in[1]->data;
      float *v = out->data;
      for (int64_t j = 0; j < n; j++)
        v[j] = atan2f (y[j], x[j]);
    }
  return CN_OK;
}

/* The partial derivatives of atan2(y, x): *DY = x / r^2, *DX = -y / r^2 (r = hypot(x, y)), and
 * 0, 0 at the origin (the documented choice). */
static inline void
atan2_partials (double y, double x, double *dy, double *dx)
{
  double r = hypot (x, y);
  if (r == 0)
    {
      *dy = 0;
      *dx = 0;
      return;
    }
  *dy = (x / r) / r;
  *dx = -(y / r) / r;
}

static cn_status
atan2_pullback (const cn_node_view *nv, const cn_tensor *const *in, const cn_tensor *out, const double *g_out,
                double *const *g_in, cn_error *err)
{
  (void) err;
  CN__ASSERTD (cn__diff_match (nv, in, out));
  int64_t n = cn_tensor_numel (out);
  const double *y = in[0]->data, *x = in[1]->data;
  for (int64_t j = 0; j < n; j++)
    {
      double dy, dx;
      atan2_partials (y[j], x[j], &dy, &dx);
      if (g_in[0] != NULL)
        g_in[0][j] += g_out[j] * dy;
      if (g_in[1] != NULL)
        g_in[1][j] += g_out[j] * dx;
    }
  return CN_OK;
}

static cn_status
atan2_jvp (const cn_node_view *nv, const cn_tensor *const *in, const cn_tensor *out, const double *const *t_in,
           double *t_out, cn_error *err)
{
  (void) err;
  CN__ASSERTD (cn__diff_match (nv, in, out));
  int64_t n = cn_tensor_numel (out);
  const double *y = in[0]->data, *x = in[1]->data;
  for (int64_t j = 0; j < n; j++)
    {
      double dy, dx, t = 0;
      atan2_partials (y[j], x[j], &dy, &dx);
      if (t_in[0] != NULL)
        t += dy * t_in[0][j];
      if (t_in[1] != NULL)
        t += dx * t_in[1][j];
      t_out[j] = t;
    }
  return CN_OK;
}

/* atan2 (Y, X) rounded by MPFR in direction RND to a double (T, U: 53-bit scratch). */
static double
atan2_end (double y, double x, mpfr_rnd_t rnd, mpfr_ptr t, mpfr_ptr u)
{
  mpfr_set_d (t, y, MPFR_RNDN);
  mpfr_set_d (u, x, MPFR_RNDN);
  mpfr_atan2 (t, t, u, rnd);
  return mpfr_get_d (t, rnd);
}

static cn_status
atan2_ibp (const cn_node_view *nv, const cn_box *const *in, cn_box *out, cn_error *err)
{
  CN__ASSERTD (cn__boxes_match (nv, in, out));
  cn_status st = CN_OK;
  mpfr_t t, u;
  mpfr_init2 (t, 53);
  mpfr_init2 (u, 53);
  mpfr_const_pi (t, MPFR_RNDU);
  double pi_up = mpfr_get_d (t, MPFR_RNDU);
  for (int64_t j = 0; j < out->n; j++)
    {
      /* zero ends as +0: the real y = 0 has atan2(0, x < 0) = pi */
      double yl = in[0]->lo[j] + 0.0, yu = in[0]->hi[j] + 0.0, xl = in[1]->lo[j] + 0.0, xu = in[1]->hi[j] + 0.0;
      if (isnan (yl) || isnan (yu) || isnan (xl) || isnan (xu))
        {
          st = cn_error_set (err, CN_ENUMERIC, "atan2: NaN end in an input box at entry %lld (node '%s')",
                             (long long) j, cn__node_name (nv));
          break;
        }
      int origin = xl <= 0 && 0 <= xu && yl <= 0 && 0 <= yu;
      int cut = xl < 0 && yl < 0 && 0 <= yu;
      if (origin || cut)
        {
          out->lo[j] = -pi_up;
          out->hi[j] = pi_up;
          continue;
        }
      /* atan2 is continuous on the box and its extremes are at corners */
      double ys[2] = { yl, yu }, xs[2] = { xl, xu }, lo = INFINITY, hi = -INFINITY;
      for (int a = 0; a < 2; a++)
        for (int b = 0; b < 2; b++)
          {
            lo = fmin (lo, atan2_end (ys[a], xs[b], MPFR_RNDD, t, u));
            hi = fmax (hi, atan2_end (ys[a], xs[b], MPFR_RNDU, t, u));
          }
      out->lo[j] = lo;
      out->hi[j] = hi;
      /* now [lo, hi] contains atan2 over the box */
    }
  mpfr_clear (t);
  mpfr_clear (u);
  return st;
}

static cn_status
atan2_mpfi (const cn_node_view *nv, const cn_mpfi_vec *const *in, cn_mpfi_vec *out, cn_error *err)
{
  CN__ASSERTD (cn__mpfi_match (nv, in, out));
  for (int64_t j = 0; j < out->n; j++)
    {
      if (mpfi_nan_p (in[0]->v[j]) || mpfi_nan_p (in[1]->v[j]))
        return cn_error_set (err, CN_ENUMERIC, "atan2: NaN in an input enclosure at entry %lld (node '%s')",
                             (long long) j, cn__node_name (nv));
      /* The real semantics of the fast arm: zero ends read as +0, so y = 0 with x < 0 has
       * angle pi (mpfi_atan2 reads a zero end as both signs and answers [-pi, pi] there).  The
       * same case split: around the origin or across the cut, [-pi, pi]; else the corners. */
      mpfr_srcptr yl = &in[0]->v[j]->left, yu = &in[0]->v[j]->right;
      mpfr_srcptr xl = &in[1]->v[j]->left, xu = &in[1]->v[j]->right;
      int origin = mpfr_sgn (xl) <= 0 && mpfr_sgn (xu) >= 0 && mpfr_sgn (yl) <= 0 && mpfr_sgn (yu) >= 0;
      int cut = mpfr_sgn (xl) < 0 && mpfr_sgn (yl) < 0 && mpfr_sgn (yu) >= 0;
      if (origin || cut)
        mpfi_atan2 (out->v[j], in[0]->v[j], in[1]->v[j]);
      else
        {
          mpfr_prec_t prec = mpfi_get_prec (out->v[j]);
          mpfr_t lo, hi, t, yz, xz;
          mpfr_inits2 (prec, lo, hi, t, (mpfr_ptr) 0);
          mpfr_init2 (yz, mpfr_get_prec (yu) > mpfr_get_prec (yl) ? mpfr_get_prec (yu) : mpfr_get_prec (yl));
          mpfr_init2 (xz, mpfr_get_prec (xu) > mpfr_get_prec (xl) ? mpfr_get_prec (xu) : mpfr_get_prec (xl));
          mpfr_set_inf (lo, 1);
          mpfr_set_inf (hi, -1);
          mpfr_srcptr ys[2] = { yl, yu }, xs[2] = { xl, xu };
          for (int a = 0; a < 2; a++)
            for (int b = 0; b < 2; b++)
              {
                /* zero ends as +0 (MPFI's right end of [0, 0] is -0) */
                mpfr_set (yz, ys[a], MPFR_RNDN);
                mpfr_set (xz, xs[b], MPFR_RNDN);
                if (mpfr_zero_p (yz))
                  mpfr_set_zero (yz, 1);
                if (mpfr_zero_p (xz))
                  mpfr_set_zero (xz, 1);
                mpfr_atan2 (t, yz, xz, MPFR_RNDD);
                mpfr_min (lo, lo, t, MPFR_RNDD);
                mpfr_atan2 (t, yz, xz, MPFR_RNDU);
                mpfr_max (hi, hi, t, MPFR_RNDU);
              }
          mpfi_interv_fr (out->v[j], lo, hi);
          mpfr_clears (lo, hi, t, yz, xz, (mpfr_ptr) 0);
        }
      if (mpfi_nan_p (out->v[j]))
        return cn_error_set (err, CN_ENUMERIC, "atan2: no real value at entry %lld (node '%s')", (long long) j,
                             cn__node_name (nv));
    }
  return CN_OK;
}

/* atan2's CROWN step: on a box that keeps away from the origin and from the cut (no point with
 * x <= 0 and y = 0 when the y box reaches 0), atan2 is smooth, and with c the box's centre,
 * rho^2 = c_x^2 + c_y^2, the planes take the gradient a = (c_x, -c_y) / rho^2 (in (y, x) order;
 * binary64 from its MPFI enclosure).  Its Hessian, (2xy, y^2 - x^2; y^2 - x^2, -2xy) / r^4 up to
 * sign, has |d^T H d| <= 2 |d|^2 / r^2 (|2xy|, |y^2 - x^2| <= r^2, 2 |d_x d_y| <= |d|^2), so by Taylor
 * with R^2 >= |d|^2 and r_min^2 <= r^2 over the box (the least |x| and |y| squared):
 *     bl = g(c) - E1 - R^2 / r_min^2,  bu = g(c) + E1 + R^2 / r_min^2,  g = atan2 - a . (y, x),
 * E1 = sum |grad - a| r, atan2(c) from MPFR rounded outward, a . c by (G).  Each side keeps the
 * IBP end where that is tighter at the centre; elsewhere (the cut, the origin, infinite ends) the
 * node's box. */
static cn_status
atan2_crown (const cn_crown_step *st, cn_error *err)
{
  int64_t n = st->n_out;
  cn__planes P;
  cn_status rc = cn__planes_open (st, "atan2", 2, atan2_ibp, &P, err);
  if (rc != CN_OK)
    return rc;
  mpfi_t q, g, t;
  mpfr_t a0, a1, r;
  mpfi_init2 (q, 64);
  mpfi_init2 (g, 64);
  mpfi_init2 (t, 64);
  mpfr_inits2 (64, a0, a1, r, (mpfr_ptr) 0);
  for (int64_t j = 0; j < n; j++)
    {
      double yl = st->in_box[0]->lo[j], yu = st->in_box[0]->hi[j], xl = st->in_box[1]->lo[j], xu = st->in_box[1]->hi[j];
      double *kl = P.kk + 4 * j, *ku = kl + 2, bl = -INFINITY, bu = INFINITY;
      int ok = isfinite (yl) && isfinite (yu) && isfinite (xl) && isfinite (xu) && !(xl <= 0 && yl <= 0 && yu >= 0);
      if (ok)
        {
          double mx = xl > 0 ? xl : xu < 0 ? -xu : 0, my = yl > 0 ? yl : yu < 0 ? -yu : 0;
          double rmin2 = cn__down (cn__down (mx * mx) + cn__down (my * my));
          double cy, cx, ry = cn__centre_radius (yl, yu, &cy), rx = cn__centre_radius (xl, xu, &cx);
          double R2 = cn__up (cn__up (ry * ry) + cn__up (rx * rx));
          /* rho^2 and the gradient (c_x / rho^2, -c_y / rho^2) enclosed */
          mpfi_set_d (q, cx);
          mpfi_sqr (q, q);
          mpfi_set_d (t, cy);
          mpfi_sqr (t, t);
          mpfi_add (q, q, t);
          double a[2], e1 = 0, cc[2] = { cy, cx }, rr[2] = { ry, rx };
          for (int i = 0; i < 2; i++)
            {
              mpfi_set_d (g, i == 0 ? cx : -cy);
              mpfi_div (g, g, q);
              a[i] = st->lam_in[i] == NULL ? 0 : mpfr_get_d (&g->left, MPFR_RNDN);
              mpfi_sub_d (g, g, a[i]);
              mpfi_mag (r, g);
              e1 = cn__up (e1 + cn__up (mpfr_get_d (r, MPFR_RNDU) * rr[i]));
            }
          double s = a[0] * cc[0] + a[1] * cc[1], de = cn__dot_err (fabs (a[0] * cc[0]) + fabs (a[1] * cc[1]), 2);
          mpfr_set_d (a0, cy, MPFR_RNDN);
          mpfr_set_d (a1, cx, MPFR_RNDN);
          mpfr_atan2 (r, a0, a1, MPFR_RNDD);
          double fl = mpfr_get_d (r, MPFR_RNDD);
          mpfr_atan2 (r, a0, a1, MPFR_RNDU);
          double fh = mpfr_get_d (r, MPFR_RNDU);
          double Q = rmin2 > 0 ? cn__up (R2 / rmin2) : INFINITY;
          bl = cn__down (cn__down (cn__down (fl - cn__up (s + de)) - e1) - Q);
          bu = cn__up (cn__up (cn__up (fh - cn__down (s - de)) + e1) + Q);
          /* now a . (y, x) + bl <= atan2(y, x) <= a . (y, x) + bu on the box */
          kl[0] = ku[0] = a[0];
          kl[1] = ku[1] = a[1];
          if (!(s + bl > P.out.lo[j]))
            bl = -INFINITY;   /* the box's end is tighter: cn__planes_settle takes it */
          if (!(s + bu < P.out.hi[j]))
            bu = INFINITY;
        }
      cn__planes_settle (&P, j, bl, bu);
    }
  mpfi_clear (q);
  mpfi_clear (g);
  mpfi_clear (t);
  mpfr_clears (a0, a1, r, (mpfr_ptr) 0);
  return cn__planes_step (st, "atan2", &P, err);
}

const struct cn_op_rule cn__rule_ATAN2 = { .op = CN_OP_ATAN2,
  .n_in = 2, .flags = CN_RULE_NEEDS_BOUNDS, .check = cn__binary_check, .forward = atan2_forward,
  .pullback = atan2_pullback, .jvp = atan2_jvp, .ibp = atan2_ibp, .ibp_mpfi = atan2_mpfi,
  .crown = atan2_crown,
  .certs = CN__CERTS (CN__CERT_GRADIENT, CN__CERT_BOUNDS),
};
