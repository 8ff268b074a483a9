/* SPDX-License-Identifier: MIT */
/* src/ops/elementwise.c: the elementwise functions other than the arithmetic (src/ops/arith.c):
 * abs, sqrt, rsqrt, cbrt, reciprocal, square, pow, scale, fmod, remainder, hypot, copysign,
 * nextafter, lerp, addcmul, addcdiv, nanToNum, fullLike, safeDiv, safeInv, safeLog, smoothAbs.
 *
 * Each is elementwise on inputs of one shape and shares one set of arms, which read the
 * operator's data from its rule (struct ew_impl): the forward in double and in float, the partial
 * derivatives in binary64, and an interval kernel in MPFI used by both the IBP and the MPFI
 * arms.  Attributes are records of certnn/ops.h (the seed passes its scalar attributes at frozen
 * ports; here they are attributes, as elu's alpha).  Semantics (PyTorch's, TorchLean's for the
 * guarded forms), the derivatives (pullback g_i += g d_i, jvp t = sum_i d_i t_i over value ports)
 * and the kernels:
 *   abs        |x|.  d = sign x, 0 at 0 (torch's sgn).  mpfi_abs.
 *   sqrt       cn_params_sqrt: RAW sqrt x (NaN below 0); CLAMP_NEGATIVE sqrt(max(x, 0)) (a NaN stays
 *              NaN).  d = 1/(2 y) (+inf at 0); CLAMP_NEGATIVE: 0 for x <= 0 (the clamp's side, also
 *              the choice at 0).  Kernel: RAW: a box reaching below 0 has no real value there
 *              (CN_ENUMERIC); CLAMP: [sqrt max(l, 0), sqrt max(u, 0)].
 *   rsqrt      1/sqrt x (two roundings).  d = -y^3/2.  Decreasing: [rec_sqrt(u) RNDD, rec_sqrt(l)
 *              RNDU] (MPFR), +inf at 0; below 0 CN_ENUMERIC.
 *   cbrt       cbrt x.  d = 1/(3 y^2) (+inf at 0).  mpfi_cbrt.
 *   reciprocal 1/x.  d = -y^2.  Kernel: 0 inside the box (or the box [0, 0]): [-inf, +inf]; an
 *              end at 0: the infinite limit of its side ([0, u] -> [1/u, +inf]); else mpfi_inv.
 *   square     x x.  d = 2 x.  mpfi_sqr (0 inside the box gives the minimum 0).
 *   pow        pow(x, y), both element ports (value ports at the model's scalar; for integer words
 *              see "Element sorts" in src/ops/arith.c, whose word arms they share).
 *              d_x = y x^(y-1) (0 where y = 0); d_y = x^y log x for x > 0, and the choice 0 for
 *              x <= 0 (no real neighbourhood in y there; torch gives NaN).  Kernel: a point integer
 *              exponent n: n = 0: 1; even n: |x|^n over |X| = [m, M] (increasing for n > 0,
 *              decreasing with +inf at 0 for n < 0); odd n > 0: increasing; odd n < 0: decreasing
 *              on each side of the pole, [-inf, +inf] if the box holds 0 inside (or is [0, 0]), a
 *              zero end read on the box's side.  Otherwise a base below 0 has no real value
 *              (CN_ENUMERIC), and for x >= 0, x^y = exp(y ln x) with y ln x bilinear in (y, ln x):
 *              the extremes are at the four corners, evaluated by mpfr_pow RNDD/RNDU (C99 limits
 *              at 0 and +inf); the corners where y ln x is 0 times an infinity add their limit sets
 *              ([0, 1] or [1, +inf]) explicitly.
 *   scale      factor x (cn_params_scale, factor finite; in binary32 the factor is rounded to
 *              float first).  d = factor.  mpfi_mul_d.
 *   fmod       C fmod: r = x - trunc(x/y) y, the sign of x.  remainder (element ports, as pow):
 *              torch.remainder, Python's modulo r = x - floor(x/y) y, the sign of y (forward:
 *              fmod, then + y when the signs differ, as torch).  Both value ports: d_x = 1,
 *              d_y = -k with k = (x - r)/y rounded to an integer (torch: -trunc(x/y),
 *              -floor(x/y)).  Kernel: a divisor box holding 0 has
 *              no value at y = 0 (CN_ENUMERIC).  Else the bounds true at every point, fmod:
 *              |r| < max|y|, r of the sign of x and |r| <= |x|; remainder: [0, yu] for y > 0 (and
 *              r <= x when x >= 0), [yl, 0] for y < 0; intersected, where trunc (floor) of the
 *              enclosure of x/y is one integer k over the whole box, with x - k y (exact interval
 *              arithmetic on independent inputs).
 *   hypot      hypot(x, y).  d = x/r, y/r; at the origin the choice 0, 0.  mpfi_hypot.
 *   copysign   |x| with the sign bit of y; both value ports, d_x = +-1 (0 at x = 0, torch's
 *              choice), d_y = 0.  Kernel: |X| = [m, M] signed: y >= 0 on the box: [m, M]; y <= 0:
 *              [-M, -m]; a box reaching 0: [-M, M] (a real 0 carries no sign).
 *   nextafter  C nextafter(x, y) in the tensor's sort.  The seed's gradient cell says "no value
 *              input": both ports are frozen (in_kind), the pullback adds nothing (it exists
 *              because every rule has one) and the jvp writes 0.  Kernel (binary64 semantics: x a
 *              double): a point x and a point y that are doubles give the point nextafter(x, y);
 *              otherwise [nextafter(l, -inf), nextafter(u, +inf)].
 *   lerp       torch.lerp(start, end, weight), weight a tensor: |w| < 1/2 ? s + w (e - s) :
 *              e - (e - s)(1 - w).  d = 1 - w, w, e - s.  Kernel s + w (e - s).
 *   addcmul    x + value t1 t2 (cn_params_addc, value finite), forward ((value t1) t2) + x as
 *              torch.  d = 1, value t2, value t1.  Kernel x + value (t1 t2).
 *   addcdiv    x + value t1 / t2, forward ((value t1) / t2) + x.  d = 1, value / t2,
 *              -(value t1 / t2) / t2.  Kernel: t2 holding 0: [-inf, +inf] (as div); else
 *              x + value (t1 / t2).
 *   nanToNum   torch.nan_to_num (cn_params_nan_to_num): NaN -> nan_value, +-inf -> posinf /
 *              neginf or the sort's largest finite values.  d = 1 at finite x, 0 elsewhere
 *              (torch).  On the reals it is the identity: the kernel copies the box.
 *   fullLike   torch.full_like(x, value) (cn_params_full_like).  x is a value port (the seed's
 *              gradient cell is "no certificate", not "no value input") whose derivative is 0: the
 *              pullback adds nothing, the jvp writes 0.  Kernel [value, value]; a non-finite
 *              value is not a real (CN_ENUMERIC).
 *   safeDiv    x / (y + eps), safeInv 1 / (x + eps) (cn_params_epsilon, TorchLean's safedivSpec:
 *              the denominator is shifted, not clamped).  d = 1/(y+eps), -x/(y+eps)^2; -1/(x+eps)^2.
 *              Kernel: the shifted denominator holding 0 gives [-inf, +inf] (an end at 0 the
 *              infinite limit of its side, as reciprocal); else mpfi_div / mpfi_inv.
 *   safeLog    log(softplus(x) + eps), eps >= 0, softplus in the stable form x + log1p(exp(-x))
 *              for x > 0, log1p(exp x) otherwise (TorchLean's safeLogSpec).  d = sigmoid(x) /
 *              (softplus(x) + eps).  Kernel log(log1p(exp X) + eps) in MPFI (increasing).
 *   smoothAbs  sqrt(x^2 + eps), eps >= 0 (TorchLean's smoothAbsSpec).  d = x / y (the choice 0 at
 *              y = 0, eps = 0).  Kernel sqrt(X^2 + eps) with mpfi_sqr.
 * IBP        the kernel in MPFI at 128 bits on the box's ends (exact), the result's ends rounded
 *            outward to doubles (mpfr_get_d RNDD/RNDU); MPFR's unbounded exponent makes an
 *            overflow DBL_MAX below and +inf above, never a wrong finite end.  A NaN input end is
 *            CN_ENUMERIC; a NaN from an indeterminate form of infinite ends (inf - inf, 0 inf)
 *            becomes [-inf, +inf].  Every MPFI operation is inclusion-isotone and its ends are
 *            rounded outward, so the box contains f over the input boxes; and since lower
 *            precision rounds to a coarser grid, the box contains the 256-bit reference box.
 * MPFI       the same kernels at the output's precision (the reference oracle).
 * CROWN      (the code before the rules)
 *   sqrt, rsqrt, cbrt, reciprocal, square, smoothAbs, safeInv, pow with one constant exponent:
 *              the relaxation kit (src/sound/relax.c), whose lines' intercepts are exactly sound
 *              (G2) and whose tangent points alpha-CROWN optimises.  Curvature pieces:
 *              square, rsqrt (x > 0) and smoothAbs (eps >= 0: f'' = eps / f^3) convex; sqrt
 *              (clampNegative's 0 below 0, then concave) and cbrt convex then concave at 0, where
 *              their slopes are unbounded: across 0 the far-corner tangent gives way to the
 *              midpoint's where that lies beyond it (as for every kit function); reciprocal
 *              concave then convex at 0 and safeInv the same at -eps (a box across the pole has
 *              an infinite IBP box and no line on that side); pow x^e convex on x > 0 for e >= 1 or e <= 0, concave for
 *              0 < e < 1, and on x < 0 (integer e only) convex for even e, concave for odd.  pow
 *              with a variable exponent has no relaxation (CN_EUNSUPPORTED: the sweep discharges the
 *              node); pow at words takes its own box.
 *   safeLog    the shifted chords (G4: an S shape whose break has no closed form), sup |f''|
 *              over each piece from MPFI (rx_slog_d2_bound).
 *   lerp, addcmul  multilinear in their inputs: planes whose intercepts are the outward-rounded
 *              extremes of f - k . u over the box's corners (cn__crown_multilinear); slopes:
 *              lerp's gradient at the box's centre, addcmul's 1 in x and McCormick's in t1 t2.
 *   safeDiv, addcdiv  a factor times 1/(y + eps) (eps = 0 for addcdiv, plus x with slope 1):
 *              cn__crown_times_fn, McCormick's slopes on the factor and the reciprocal with the
 *              reciprocal's tangent or chord, intercepts exact by G2 at the factor's ends; a
 *              divisor box around the pole leaves the node its IBP box.
 *   hypot      convex: the tangent plane at the box's centre below, a plane with the centre
 *              lines' chord slopes above, intercepts exact (hypot_crown).
 *   fmod, remainder  with a constant divisor c, x - k c exactly on a box within one cell of
 *              trunc(x / c) (floor for remainder), k found exactly in MPFR (mod_crown); elsewhere
 *              and with a varying divisor the node's box.
 *   copysign   abs's lines where y's box lies above 0, negated where below, the
 *              constants +-max |x| where it meets 0 (copysign_crown).
 *   abs        -z or z off 0, exactly; across 0 the lower line k z, sound for every k in [-1, 1]
 *              (alpha-CROWN's parameter; by default the sign of l + u), the upper line the chord,
 *              its intercept the larger end value of |z| - k z rounded up (convex: the maximum is
 *              at an end).
 *   scale      the line factor z; nanToNum the identity (its maps touch no real); fullLike the
 *              constant value.  The products' roundings are the kit's charges.
 *   the rest   none (NULL): the sweep discharges these nodes against their boxes.
 * Forward    C99 libm or IEEE operations in the tensor's sort.  Correctly rounded (one IEEE
 *            operation or exact): abs, sqrt, reciprocal, square, scale (f64), fmod, copysign,
 *            nextafter, nanToNum, fullLike; remainder is exact unless the added y rounds.
 *            Measured maximum error against MPFR at 256 bits (glibc, x86-64, 100000 random points
 *            each over the test ranges and wider: rsqrt (0.01, 100), pow base (0.01, 10) exponent
 *            (-8, 8)), in ulps of the exact result, f64 / f32:
 *              rsqrt 1.46/1.48  cbrt 2.69/0.88  pow 0.51/0.50  hypot 0.55/0.50  scale 0.5/1.4
 *              remainder 0/0.5  safeDiv 1.29/1.41  safeInv 1.49/1.46  smoothAbs 1.13/1.16.
 *            lerp, addcmul, addcdiv and safeLog are sums (or a log near 1) evaluated step by step:
 *            their error is small against the magnitude of the terms (a few u (|x| + |value t1 t2|)
 *            for addcmul) but not in ulps of a result that cancels (measured up to 5.6e4 ulps at
 *            results near 0).  None of the composite forms is guaranteed correctly rounded. */
#include <config.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "ops/arith_impl.h"
#include "ops/unary_impl.h"

/* ---- scalar forwards, in double and in float ------------------------------------------ */

static double nan_to_num_d (double x, const cn_params_nan_to_num *p);
static float nan_to_num_f (float x, const cn_params_nan_to_num *p);

#define PSQRT(p) (((const cn_params_sqrt *) (p))->mode)
#define PSCALE(p) (((const cn_params_scale *) (p))->factor)
#define PADDC(p) (((const cn_params_addc *) (p))->value)
#define PFULL(p) (((const cn_params_full_like *) (p))->value)
#define PEPS(p) (((const cn_params_epsilon *) (p))->eps)

static double f_abs (const double *x, const void *p) { (void) p; return fabs (x[0]); }
static float g_abs (const float *x, const void *p) { (void) p; return fabsf (x[0]); }
static double
f_sqrt (const double *x, const void *p)
{
  if (PSQRT (p) == CN_SQRT_CLAMP_NEGATIVE && x[0] <= 0)
    return 0;                          /* the root of max(x, 0); a NaN fails the test and stays NaN */
  return sqrt (x[0]);
}
static float
g_sqrt (const float *x, const void *p)
{
  if (PSQRT (p) == CN_SQRT_CLAMP_NEGATIVE && x[0] <= 0)
    return 0;
  return sqrtf (x[0]);
}
static double f_rsqrt (const double *x, const void *p) { (void) p; return 1 / sqrt (x[0]); }
static float g_rsqrt (const float *x, const void *p) { (void) p; return 1 / sqrtf (x[0]); }
static double f_cbrt (const double *x, const void *p) { (void) p; return cbrt (x[0]); }
static float g_cbrt (const float *x, const void *p) { (void) p; return cbrtf (x[0]); }
static double f_recip (const double *x, const void *p) { (void) p; return 1 / x[0]; }
static float g_recip (const float *x, const void *p) { (void) p; return 1 / x[0]; }
static double f_square (const double *x, const void *p) { (void) p; return x[0] * x[0]; }
static float g_square (const float *x, const void *p) { (void) p; return x[0] * x[0]; }
static double f_pow (const double *x, const void *p) { (void) p; return pow (x[0], x[1]); }
static float g_pow (const float *x, const void *p) { (void) p; return powf (x[0], x[1]); }
static double f_scale (const double *x, const void *p) { return x[0] * PSCALE (p); }
static float g_scale (const float *x, const void *p) { return x[0] * (float) PSCALE (p); }
static double f_fmod (const double *x, const void *p) { (void) p; return fmod (x[0], x[1]); }
static float g_fmod (const float *x, const void *p) { (void) p; return fmodf (x[0], x[1]); }
/* torch.remainder on floating tensors: fmod, then moved to the divisor's sign */
static double
f_remainder (const double *x, const void *p)
{
  (void) p;
  double m = fmod (x[0], x[1]);
  if (m != 0 && (x[1] < 0) != (m < 0))
    m += x[1];
  return m;
}
static float
g_remainder (const float *x, const void *p)
{
  (void) p;
  float m = fmodf (x[0], x[1]);
  if (m != 0 && (x[1] < 0) != (m < 0))
    m += x[1];
  return m;
}
static double f_hypot (const double *x, const void *p) { (void) p; return hypot (x[0], x[1]); }
static float g_hypot (const float *x, const void *p) { (void) p; return hypotf (x[0], x[1]); }
static double f_copysign (const double *x, const void *p) { (void) p; return copysign (x[0], x[1]); }
static float g_copysign (const float *x, const void *p) { (void) p; return copysignf (x[0], x[1]); }
static double f_nextafter (const double *x, const void *p) { (void) p; return nextafter (x[0], x[1]); }
static float g_nextafter (const float *x, const void *p) { (void) p; return nextafterf (x[0], x[1]); }
/* torch's lerp: the form exact at the near end */
static double
f_lerp (const double *x, const void *p)
{
  (void) p;
  double s = x[0], e = x[1], w = x[2];
  return fabs (w) < 0.5 ? s + w * (e - s) : e - (e - s) * (1 - w);
}
static float
g_lerp (const float *x, const void *p)
{
  (void) p;
  float s = x[0], e = x[1], w = x[2];
  return fabsf (w) < 0.5f ? s + w * (e - s) : e - (e - s) * (1 - w);
}
static double f_addcmul (const double *x, const void *p) { return x[0] + PADDC (p) * x[1] * x[2]; }
static float g_addcmul (const float *x, const void *p) { return x[0] + (float) PADDC (p) * x[1] * x[2]; }
static double f_addcdiv (const double *x, const void *p) { return x[0] + PADDC (p) * x[1] / x[2]; }
static float g_addcdiv (const float *x, const void *p) { return x[0] + (float) PADDC (p) * x[1] / x[2]; }
static double f_nan_to_num (const double *x, const void *p) { return nan_to_num_d (x[0], p); }
static float g_nan_to_num (const float *x, const void *p) { return nan_to_num_f (x[0], p); }
static double f_full_like (const double *x, const void *p) { (void) x; return PFULL (p); }
static float g_full_like (const float *x, const void *p) { (void) x; return (float) PFULL (p); }
static double f_safe_div (const double *x, const void *p) { return x[0] / (x[1] + PEPS (p)); }
static float g_safe_div (const float *x, const void *p) { return x[0] / (x[1] + (float) PEPS (p)); }
static double f_safe_inv (const double *x, const void *p) { return 1 / (x[0] + PEPS (p)); }
static float g_safe_inv (const float *x, const void *p) { return 1 / (x[0] + (float) PEPS (p)); }
/* softplus in the stable form x + log1p(exp(-x)) for x > 0, log1p(exp(x)) otherwise */
static double softplus_d (double x) { return x > 0 ? x + log1p (exp (-x)) : log1p (exp (x)); }
static float softplus_f (float x) { return x > 0 ? x + log1pf (expf (-x)) : log1pf (expf (x)); }
static double f_safe_log (const double *x, const void *p) { return log (softplus_d (x[0]) + PEPS (p)); }
static float g_safe_log (const float *x, const void *p) { return logf (softplus_f (x[0]) + (float) PEPS (p)); }
static double f_smooth_abs (const double *x, const void *p) { return sqrt (x[0] * x[0] + PEPS (p)); }
static float g_smooth_abs (const float *x, const void *p) { return sqrtf (x[0] * x[0] + (float) PEPS (p)); }

static double
nan_to_num_d (double x, const cn_params_nan_to_num *p)
{
  if (isnan (x))
    return p->nan_value;
  if (x == INFINITY)
    return p->posinf_set ? p->posinf : DBL_MAX;
  if (x == -INFINITY)
    return p->neginf_set ? p->neginf : -DBL_MAX;
  return x;
}

static float
nan_to_num_f (float x, const cn_params_nan_to_num *p)
{
  if (isnan (x))
    return (float) p->nan_value;
  if (x == INFINITY)
    return p->posinf_set ? (float) p->posinf : FLT_MAX;
  if (x == -INFINITY)
    return p->neginf_set ? (float) p->neginf : -FLT_MAX;
  return x;
}

/* ---- derivatives: D[i] = d y / d x_i at the point X with forward value Y (binary64) ------ */

static void
d_abs (const double *x, double y, const void *p, double *d)
{
  (void) y, (void) p;
  d[0] = x[0] > 0 ? 1 : x[0] < 0 ? -1 : x[0] == 0 ? 0 : NAN;   /* 0 at 0 (torch's sgn) */
}
static void
d_sqrt (const double *x, double y, const void *p, double *d)
{
  if (PSQRT (p) == CN_SQRT_CLAMP_NEGATIVE && x[0] <= 0)
    d[0] = 0;                           /* the clamp's side, also the choice at 0 */
  else
    d[0] = 0.5 / y;                     /* +inf at 0, NaN below 0 */
}
static void d_rsqrt (const double *x, double y, const void *p, double *d) { (void) x, (void) p; d[0] = -0.5 * y * y * y; }
static void d_cbrt (const double *x, double y, const void *p, double *d) { (void) x, (void) p; d[0] = 1 / (3 * y * y); }
static void d_recip (const double *x, double y, const void *p, double *d) { (void) x, (void) p; d[0] = -(y * y); }
static void d_square (const double *x, double y, const void *p, double *d) { (void) y, (void) p; d[0] = 2 * x[0]; }
/* torch's pow_backward_self (0 for the base where the exponent is 0) and, for the exponent,
 * y log x where the base is > 0; at a base <= 0 x^y has no real neighbourhood in the exponent
 * (torch gives NaN or 0 there): the choice is 0 */
static void
d_pow (const double *x, double y, const void *p, double *d)
{
  (void) p;
  d[0] = x[1] == 0 ? 0 : x[1] * pow (x[0], x[1] - 1);
  d[1] = x[0] > 0 ? y * log (x[0]) : isnan (x[0]) ? NAN : 0;
}
static void d_scale (const double *x, double y, const void *p, double *d) { (void) x, (void) y; d[0] = PSCALE (p); }
/* fmod, remainder: 1 for x; -k for y with k = (x - r)/y the integer quotient, rounded to an
 * integer (exact for |k| < 2^52) */
static void
d_fmod (const double *x, double y, const void *p, double *d)
{
  (void) p;
  d[0] = 1;
  d[1] = -nearbyint ((x[0] - y) / x[1]);
}
static void
d_hypot (const double *x, double y, const void *p, double *d)
{
  (void) p;
  if (y == 0)
    d[0] = d[1] = 0;                    /* the choice at the origin */
  else
    {
      d[0] = x[0] / y;
      d[1] = x[1] / y;
    }
}
static void
d_copysign (const double *x, double y, const void *p, double *d)
{
  (void) p, (void) y;
  d[0] = isnan (x[0]) || isnan (x[1]) ? NAN : x[0] == 0 ? 0 : signbit (x[0]) == signbit (x[1]) ? 1 : -1;
  d[1] = 0;
}
static void
d_lerp (const double *x, double y, const void *p, double *d)
{
  (void) p, (void) y;
  d[0] = 1 - x[2];
  d[1] = x[2];
  d[2] = x[1] - x[0];
}
static void
d_addcmul (const double *x, double y, const void *p, double *d)
{
  (void) y;
  d[0] = 1;
  d[1] = PADDC (p) * x[2];
  d[2] = PADDC (p) * x[1];
}
static void
d_addcdiv (const double *x, double y, const void *p, double *d)
{
  (void) y;
  double q = PADDC (p) / x[2];
  d[0] = 1;
  d[1] = q;
  d[2] = -(q * x[1]) / x[2];
}
static void
d_nan_to_num (const double *x, double y, const void *p, double *d)
{
  (void) y, (void) p;
  d[0] = isfinite (x[0]) ? 1 : 0;
}
static void
d_safe_div (const double *x, double y, const void *p, double *d)
{
  (void) y;
  double q = 1 / (x[1] + PEPS (p));
  d[0] = q;
  d[1] = -(x[0] * q) * q;
}
static void
d_safe_inv (const double *x, double y, const void *p, double *d)
{
  (void) y;
  double q = 1 / (x[0] + PEPS (p));
  d[0] = -(q * q);
}
static void
d_safe_log (const double *x, double y, const void *p, double *d)
{
  (void) y;
  double s = x[0] >= 0 ? 1 / (1 + exp (-x[0])) : exp (x[0]) / (1 + exp (x[0]));
  d[0] = s / (softplus_d (x[0]) + PEPS (p));
}
static void
d_smooth_abs (const double *x, double y, const void *p, double *d)
{
  (void) p;
  d[0] = y == 0 ? 0 : x[0] / y;         /* eps = 0 at x = 0: the choice 0, as abs */
}

/* ---- interval kernels (the IBP and MPFI arms) ----------------------------------------- */

/* Scratch numbers at the output's precision. */
struct ik_scratch
{
  mpfi_t t, u;
  mpfr_t a, b, c, e;
};

enum { IK_OK = 0, IK_NO_VALUE = 1 };

/* OUT = [lo, hi] from MPFR ends (lo <= hi). */
static void
ik_set (mpfi_ptr out, mpfr_srcptr lo, mpfr_srcptr hi)
{
  mpfi_interv_fr (out, lo, hi);
}

static int k_abs (mpfi_ptr o, mpfi_srcptr *x, const void *p, struct ik_scratch *s) { (void) p, (void) s; mpfi_abs (o, x[0]); return IK_OK; }

static int
k_sqrt (mpfi_ptr o, mpfi_srcptr *x, const void *p, struct ik_scratch *s)
{
  if (mpfr_sgn (&x[0]->left) >= 0)
    {
      mpfi_sqrt (o, x[0]);
      return IK_OK;
    }
  if (PSQRT (p) == CN_SQRT_RAW)
    return IK_NO_VALUE;                 /* part of the box lies below 0 */
  /* clampNegative: sqrt(max(x, 0)) over [max(l, 0), max(u, 0)] */
  mpfr_set_ui (s->a, 0, MPFR_RNDN);
  if (mpfr_sgn (&x[0]->right) <= 0)
    mpfi_set_ui (o, 0);
  else
    {
      mpfr_sqrt (s->b, &x[0]->right, MPFR_RNDU);
      ik_set (o, s->a, s->b);
    }
  return IK_OK;
}

/* rsqrt = 1/sqrt(x), decreasing on [0, +inf], +inf at 0. */
static int
k_rsqrt (mpfi_ptr o, mpfi_srcptr *x, const void *p, struct ik_scratch *s)
{
  (void) p;
  if (mpfr_sgn (&x[0]->left) < 0)
    return IK_NO_VALUE;
  mpfr_rec_sqrt (s->a, &x[0]->right, MPFR_RNDD);
  mpfr_rec_sqrt (s->b, &x[0]->left, MPFR_RNDU);
  ik_set (o, s->a, s->b);
  return IK_OK;
}

static int k_cbrt (mpfi_ptr o, mpfi_srcptr *x, const void *p, struct ik_scratch *s) { (void) p, (void) s; mpfi_cbrt (o, x[0]); return IK_OK; }

/* 1/X: [-inf, +inf] if 0 is inside or X = [0, 0]; an end at 0 gives the infinite limit of its
 * side. */
static void
k_inv_of (mpfi_ptr o, mpfi_srcptr x, struct ik_scratch *s)
{
  int sl = mpfr_sgn (&x->left), sr = mpfr_sgn (&x->right);
  if ((sl < 0 && sr > 0) || (sl == 0 && sr == 0))
    mpfi_interv_d (o, -INFINITY, INFINITY);
  else if (sl == 0)
    {
      mpfr_ui_div (s->a, 1, &x->right, MPFR_RNDD);
      mpfr_set_inf (s->b, 1);
      ik_set (o, s->a, s->b);
    }
  else if (sr == 0)
    {
      mpfr_set_inf (s->a, -1);
      mpfr_ui_div (s->b, 1, &x->left, MPFR_RNDU);
      ik_set (o, s->a, s->b);
    }
  else
    mpfi_inv (o, x);
}

static int k_recip (mpfi_ptr o, mpfi_srcptr *x, const void *p, struct ik_scratch *s) { (void) p; k_inv_of (o, x[0], s); return IK_OK; }
static int k_square (mpfi_ptr o, mpfi_srcptr *x, const void *p, struct ik_scratch *s) { (void) p, (void) s; mpfi_sqr (o, x[0]); return IK_OK; }
static int k_scale (mpfi_ptr o, mpfi_srcptr *x, const void *p, struct ik_scratch *s) { (void) s; mpfi_mul_d (o, x[0], PSCALE (p)); return IK_OK; }

/* Widens [*lo, *hi] (A, B) by MPFR's pow of the corner (X, Y), RNDD into lo and RNDU into hi. */
static void
pow_corner (mpfr_srcptr x, mpfr_srcptr y, struct ik_scratch *s, int *first)
{
  mpfr_pow (s->c, x, y, MPFR_RNDD);
  mpfr_pow (s->e, x, y, MPFR_RNDU);
  if (*first || mpfr_less_p (s->c, s->a))
    mpfr_set (s->a, s->c, MPFR_RNDN);
  if (*first || mpfr_greater_p (s->e, s->b))
    mpfr_set (s->b, s->e, MPFR_RNDN);
  *first = 0;
}

static void
pow_widen (struct ik_scratch *s, double lo, double hi)
{
  if (mpfr_cmp_d (s->a, lo) > 0)
    mpfr_set_d (s->a, lo, MPFR_RNDN);
  if (mpfr_cmp_d (s->b, hi) < 0)
    mpfr_set_d (s->b, hi, MPFR_RNDN);
}

static int
k_pow (mpfi_ptr o, mpfi_srcptr *x, const void *p, struct ik_scratch *s)
{
  (void) p;
  mpfr_srcptr yl = &x[1]->left, yr = &x[1]->right;
  mpfr_prec_t prec = mpfi_get_prec (o);
  mpfr_t xl, xr;
  mpfr_init2 (xl, prec + 64);
  mpfr_init2 (xr, prec + 64);
  mpfr_set (xl, &x[0]->left, MPFR_RNDD);
  mpfr_set (xr, &x[0]->right, MPFR_RNDU);
  int r = IK_OK;
  if (mpfr_equal_p (yl, yr) && mpfr_integer_p (yl))
    {
      /* a point integer exponent n: every real base has a value */
      int neg = mpfr_sgn (yl) < 0;
      mpfr_div_2ui (s->c, yl, 1, MPFR_RNDN);
      int even = mpfr_integer_p (s->c);
      if (mpfr_zero_p (yl))
        mpfi_set_ui (o, 1);
      else if (even)
        {
          /* |x|^n on [m, M] = |X|: increasing for n > 0, decreasing for n < 0 (+inf at 0) */
          mpfi_abs (s->t, x[0]);
          if (!neg)
            {
              mpfr_pow (s->a, &s->t->left, yl, MPFR_RNDD);
              mpfr_pow (s->b, &s->t->right, yl, MPFR_RNDU);
            }
          else
            {
              mpfr_abs (s->c, &s->t->left, MPFR_RNDD);      /* +0 if zero */
              mpfr_pow (s->a, &s->t->right, yl, MPFR_RNDD);
              mpfr_pow (s->b, s->c, yl, MPFR_RNDU);
            }
          ik_set (o, s->a, s->b);
        }
      else if (!neg)
        {
          /* odd n > 0: increasing */
          mpfr_pow (s->a, xl, yl, MPFR_RNDD);
          mpfr_pow (s->b, xr, yl, MPFR_RNDU);
          ik_set (o, s->a, s->b);
        }
      else if ((mpfr_sgn (xl) < 0 && mpfr_sgn (xr) > 0) || (mpfr_zero_p (xl) && mpfr_zero_p (xr)))
        mpfi_interv_d (o, -INFINITY, INFINITY);          /* odd n < 0 with the pole inside */
      else
        {
          /* odd n < 0 on one side of 0: decreasing, a zero end read on the box's side */
          if (mpfr_zero_p (xl))
            mpfr_set_zero (xl, 1);
          if (mpfr_zero_p (xr))
            mpfr_set_zero (xr, -1);
          mpfr_pow (s->a, xr, yl, MPFR_RNDD);
          mpfr_pow (s->b, xl, yl, MPFR_RNDU);
          ik_set (o, s->a, s->b);
        }
    }
  else if (mpfr_sgn (xl) < 0)
    r = IK_NO_VALUE;                    /* a negative base with a non-integer exponent */
  else
    {
      /* x >= 0: x^y = exp(y ln x) with y ln x bilinear in (y, ln x), so the extremes over the
       * box are at the corners (their limits where x is 0 or +inf, MPFR's C99 conventions:
       * pow(0, y > 0) = 0, pow(0, y < 0) = +inf, pow(x, 0) = 1) */
      if (mpfr_zero_p (xl))
        mpfr_set_zero (xl, 1);
      int first = 1;
      pow_corner (xl, yl, s, &first);
      pow_corner (xl, yr, s, &first);
      pow_corner (xr, yl, s, &first);
      pow_corner (xr, yr, s, &first);
      /* corners where y ln x is 0 times an infinity (x at 0 or +inf with a y end at 0, x at 1
       * with an infinite y end): the limits there lie between the neighbouring corners'
       * values; the hull is widened by them explicitly all the same */
      int ypt = mpfr_equal_p (yl, yr), xpt = mpfr_equal_p (xl, xr);
      if (!ypt && (mpfr_zero_p (yl) || mpfr_zero_p (yr)))
        {
          int ysg = mpfr_zero_p (yl) ? 1 : -1;
          if (mpfr_zero_p (xl))
            ysg > 0 ? pow_widen (s, 0, 1) : pow_widen (s, 1, INFINITY);
          if (mpfr_inf_p (xr))
            ysg > 0 ? pow_widen (s, 1, INFINITY) : pow_widen (s, 0, 1);
        }
      if (!xpt && (mpfr_inf_p (yl) || mpfr_inf_p (yr)) && (mpfr_cmp_ui (xl, 1) == 0 || mpfr_cmp_ui (xr, 1) == 0))
        pow_widen (s, 0, INFINITY);
      ik_set (o, s->a, s->b);
    }
  mpfr_clear (xl);
  mpfr_clear (xr);
  return r;
}

/* fmod (FLOOR = 0) and remainder (FLOOR = 1): r = x - k y with k = trunc(x/y) or floor(x/y).
 * Bounds that hold for every point: fmod: |r| < |y|, r has the sign of x and |r| <= |x|;
 * remainder: r in [0, y) for y > 0 (and r <= x if x >= 0), r in (y, 0] for y < 0 (r >= x if
 * x <= 0).  Where k is one integer over the whole box, r = x - k y exactly (interval
 * arithmetic on the two independent inputs), intersected with those bounds. */
static int
k_mod (mpfi_ptr o, mpfi_srcptr *x, struct ik_scratch *s, int floor_mode)
{
  mpfi_srcptr X = x[0], Y = x[1];
  if (mpfi_has_zero (Y))
    return IK_NO_VALUE;                 /* y = 0 has no value */
  int ypos = mpfr_sgn (&Y->left) > 0;
  /* the bounds valid everywhere, into [a, b] */
  mpfi_mag (s->c, Y);                   /* M = max |y| */
  if (!floor_mode)
    {
      if (mpfr_sgn (&X->left) >= 0)
        mpfr_set_ui (s->a, 0, MPFR_RNDN);
      else
        {
          mpfr_neg (s->a, s->c, MPFR_RNDD);
          mpfr_max (s->a, s->a, &X->left, MPFR_RNDD);
        }
      if (mpfr_sgn (&X->right) <= 0)
        mpfr_set_ui (s->b, 0, MPFR_RNDN);
      else
        mpfr_min (s->b, s->c, &X->right, MPFR_RNDU);
    }
  else if (ypos)
    {
      mpfr_set_ui (s->a, 0, MPFR_RNDN);
      mpfr_set (s->b, &Y->right, MPFR_RNDU);
      if (mpfr_sgn (&X->left) >= 0)
        mpfr_min (s->b, s->b, &X->right, MPFR_RNDU);
    }
  else
    {
      mpfr_set (s->a, &Y->left, MPFR_RNDD);
      mpfr_set_ui (s->b, 0, MPFR_RNDN);
      if (mpfr_sgn (&X->right) <= 0)
        mpfr_max (s->a, s->a, &X->left, MPFR_RNDD);
    }
  /* every end above is rounded outward (exact when the inputs have the output's precision) */
  mpfi_div (s->t, X, Y);
  if (mpfr_number_p (&s->t->left) && mpfr_number_p (&s->t->right))
    {
      if (floor_mode)
        {
          mpfr_floor (s->c, &s->t->left);
          mpfr_floor (s->e, &s->t->right);
        }
      else
        {
          mpfr_trunc (s->c, &s->t->left);
          mpfr_trunc (s->e, &s->t->right);
        }
      if (mpfr_equal_p (s->c, s->e) && mpfr_number_p (s->c))
        {
          /* k = c on the whole box: r = x - k y */
          mpfi_mul_fr (s->u, Y, s->c);
          mpfi_sub (s->u, X, s->u);
          if (!mpfi_nan_p (s->u))
            {
              if (mpfr_greater_p (&s->u->left, s->a))
                mpfr_set (s->a, &s->u->left, MPFR_RNDD);
              if (mpfr_less_p (&s->u->right, s->b))
                mpfr_set (s->b, &s->u->right, MPFR_RNDU);
            }
        }
    }
  if (mpfr_greater_p (s->a, s->b))
    mpfr_set (s->a, s->b, MPFR_RNDD);   /* cannot happen for a nonempty box; keeps a valid interval */
  ik_set (o, s->a, s->b);
  return IK_OK;
}

static int k_fmod (mpfi_ptr o, mpfi_srcptr *x, const void *p, struct ik_scratch *s) { (void) p; return k_mod (o, x, s, 0); }
static int k_remainder (mpfi_ptr o, mpfi_srcptr *x, const void *p, struct ik_scratch *s) { (void) p; return k_mod (o, x, s, 1); }
static int k_hypot (mpfi_ptr o, mpfi_srcptr *x, const void *p, struct ik_scratch *s) { (void) p, (void) s; mpfi_hypot (o, x[0], x[1]); return IK_OK; }

/* copysign: |x| in [m, M] with the sign of y; a real y = 0 has no sign, so a box reaching 0
 * gives both signs. */
static int
k_copysign (mpfi_ptr o, mpfi_srcptr *x, const void *p, struct ik_scratch *s)
{
  (void) p;
  mpfi_abs (s->t, x[0]);
  int pos = mpfr_sgn (&x[1]->right) >= 0, neg = mpfr_sgn (&x[1]->left) <= 0;
  if (pos && neg)
    {
      mpfr_neg (s->a, &s->t->right, MPFR_RNDD);
      ik_set (o, s->a, &s->t->right);
    }
  else if (pos)
    mpfi_set (o, s->t);
  else
    mpfi_neg (o, s->t);
  return IK_OK;
}

/* nextafter in binary64: for a double x in [l, u], nextafter(x, y) lies in
 * [nextafter(l, -inf), nextafter(u, +inf)]; a point x and a point y that are doubles give the
 * point nextafter(x, y). */
static int
k_nextafter (mpfi_ptr o, mpfi_srcptr *x, const void *p, struct ik_scratch *s)
{
  (void) p, (void) s;
  double l = mpfr_get_d (&x[0]->left, MPFR_RNDD), u = mpfr_get_d (&x[0]->right, MPFR_RNDU);
  double yl = mpfr_get_d (&x[1]->left, MPFR_RNDD), yu = mpfr_get_d (&x[1]->right, MPFR_RNDU);
  if (l == u && yl == yu && mpfr_cmp_d (&x[0]->left, l) == 0 && mpfr_cmp_d (&x[0]->right, u) == 0
      && mpfr_cmp_d (&x[1]->left, yl) == 0 && mpfr_cmp_d (&x[1]->right, yu) == 0)
    {
      double v = nextafter (l, yl);
      mpfi_interv_d (o, v, v);
      return IK_OK;
    }
  mpfi_interv_d (o, nextafter (l, -INFINITY), nextafter (u, INFINITY));
  return IK_OK;
}

/* lerp: s + w (e - s) */
static int
k_lerp (mpfi_ptr o, mpfi_srcptr *x, const void *p, struct ik_scratch *s)
{
  (void) p;
  mpfi_sub (s->t, x[1], x[0]);
  mpfi_mul (s->t, s->t, x[2]);
  mpfi_add (o, x[0], s->t);
  return IK_OK;
}

static int
k_addcmul (mpfi_ptr o, mpfi_srcptr *x, const void *p, struct ik_scratch *s)
{
  mpfi_mul (s->t, x[1], x[2]);
  mpfi_mul_d (s->t, s->t, PADDC (p));
  mpfi_add (o, x[0], s->t);
  return IK_OK;
}

static int
k_addcdiv (mpfi_ptr o, mpfi_srcptr *x, const void *p, struct ik_scratch *s)
{
  if (mpfi_has_zero (x[2]))
    {
      mpfi_interv_d (o, -INFINITY, INFINITY);    /* the quotient is unbounded, as div */
      return IK_OK;
    }
  mpfi_div (s->t, x[1], x[2]);
  mpfi_mul_d (s->t, s->t, PADDC (p));
  mpfi_add (o, x[0], s->t);
  return IK_OK;
}

/* nanToNum is the identity on the reals (only NaN and the infinities, which are not reals,
 * are replaced). */
static int k_nan_to_num (mpfi_ptr o, mpfi_srcptr *x, const void *p, struct ik_scratch *s) { (void) p, (void) s; mpfi_set (o, x[0]); return IK_OK; }

static int
k_full_like (mpfi_ptr o, mpfi_srcptr *x, const void *p, struct ik_scratch *s)
{
  (void) x, (void) s;
  if (!isfinite (PFULL (p)))
    return IK_NO_VALUE;                 /* an infinite or NaN fill value is not a real */
  mpfi_set_d (o, PFULL (p));
  return IK_OK;
}

static int
k_safe_div (mpfi_ptr o, mpfi_srcptr *x, const void *p, struct ik_scratch *s)
{
  mpfi_add_d (s->t, x[1], PEPS (p));
  if (mpfi_has_zero (s->t))
    mpfi_interv_d (o, -INFINITY, INFINITY);
  else
    mpfi_div (o, x[0], s->t);
  return IK_OK;
}

static int
k_safe_inv (mpfi_ptr o, mpfi_srcptr *x, const void *p, struct ik_scratch *s)
{
  mpfi_add_d (s->u, x[0], PEPS (p));
  k_inv_of (o, s->u, s);
  return IK_OK;
}

/* log(log1p(exp(x)) + eps), eps >= 0: increasing, -inf at x = -inf when eps = 0 */
static int
k_safe_log (mpfi_ptr o, mpfi_srcptr *x, const void *p, struct ik_scratch *s)
{
  mpfi_exp (s->t, x[0]);
  mpfi_log1p (s->t, s->t);
  mpfi_add_d (s->t, s->t, PEPS (p));
  if (mpfr_sgn (&s->t->left) < 0)
    mpfr_set_ui (&s->t->left, 0, MPFR_RNDN);   /* softplus + eps >= 0 */
  mpfi_log (o, s->t);
  return IK_OK;
}

static int
k_smooth_abs (mpfi_ptr o, mpfi_srcptr *x, const void *p, struct ik_scratch *s)
{
  mpfi_sqr (s->t, x[0]);
  mpfi_add_d (s->t, s->t, PEPS (p));
  if (mpfr_sgn (&s->t->left) < 0)
    mpfr_set_ui (&s->t->left, 0, MPFR_RNDN);   /* x^2 + eps >= 0 */
  mpfi_sqrt (o, s->t);
  return IK_OK;
}

/* ---- the operators' data --------------------------------------------------------------- */

/* What the shared arms read of one operator (its rule's impl): the forward in double and in float
 * (X holds the entry's inputs, P the attribute record), the partial derivatives D[i] at X with
 * forward value Y (NULL: derivative 0), the interval kernel, the operation at integer words
 * (CN__WOP_NONE: the operator takes the model's scalar only), and for the operators with an
 * epsilon whether it must be nonnegative. */
struct ew_impl
{
  double (*fd) (const double *, const void *);
  float (*ff) (const float *, const void *);
  void (*deriv) (const double *, double, const void *, double *);
  int (*kernel) (mpfi_ptr, mpfi_srcptr *, const void *, struct ik_scratch *);
  enum cn__wop word;
  int eps_nonneg;
  const cn__relax_fn *relax;   /* the kit's relaxation of the CROWN arm ew_kit_crown, or NULL */
};

#define EW_MAX_IN 3

/* Whether port I of the node's rule takes a gradient when it holds the model's scalar (the arms
 * below see floats only: a word node never receives a cotangent). */
static int
ew_is_value (const cn_node_view *nv, int i)
{
  cn_port_kind k = cn__port_kind (nv->rule, i);
  return k == CN_PORT_VALUE || k == CN_PORT_ELEMENT;
}

/* ---- the shared arms ------------------------------------------------------------------ */

static cn_status
ew_forward (const cn_node_view *nv, const cn_tensor *const *in, cn_tensor *out, cn_error *err)
{
  const struct ew_impl *d = nv->rule->impl;
  CN__ASSERTD (nv->n_in == nv->rule->n_in && nv->n_in <= EW_MAX_IN);
  if (!cn_dtype_is_float (out->dtype))
    return cn__word_forward (d->word, nv, in, out, err);   /* value ports refuse words elsewhere */
  CN__ASSERTD (cn__tensors_match (nv, in, out));
  int64_t n = cn_tensor_numel (out);
  if (out->dtype == CN_DTYPE_F64)
    {
      double *y = out->data, a[EW_MAX_IN];
      for (int64_t j = 0; j < n; j++)
        {
          for (int i = 0; i < nv->n_in; i++)
            a[i] = ((const double *) in[i]->data)[j];
          y[j] = d->fd (a, nv->params);
        }
    }
  else
    {
      float *y = out->data, a[EW_MAX_IN];
      for (int64_t j = 0; j < n; j++)
        {
          for (int i = 0; i < nv->n_in; i++)
            a[i] = ((const float *) in[i]->data)[j];
          y[j] = d->ff (a, nv->params);
        }
    }
  return CN_OK;
}

static cn_status
ew_pullback (const cn_node_view *nv, const cn_tensor *const *in, const cn_tensor *out, const double *g_out,
             double *const *g_in, cn_error *err)
{
  (void) err;
  const struct ew_impl *d = nv->rule->impl;
  CN__ASSERTD (nv->n_in == nv->rule->n_in && nv->n_in <= EW_MAX_IN && cn__diff_match (nv, in, out));
  if (d->deriv == NULL)
    return CN_OK;                       /* derivative 0: nothing to add */
  int64_t n = cn_tensor_numel (out);
  const double *y = out->data;
  double a[EW_MAX_IN], g[EW_MAX_IN];
  for (int64_t j = 0; j < n; j++)
    {
      for (int i = 0; i < nv->n_in; i++)
        a[i] = ((const double *) in[i]->data)[j];
      d->deriv (a, y[j], nv->params, g);
      for (int i = 0; i < nv->n_in; i++)
        if (g_in[i] != NULL && ew_is_value (nv, i))
          g_in[i][j] += g_out[j] * g[i];
    }
  return CN_OK;
}

static cn_status
ew_jvp (const cn_node_view *nv, const cn_tensor *const *in, const cn_tensor *out, const double *const *t_in,
        double *t_out, cn_error *err)
{
  (void) err;
  const struct ew_impl *d = nv->rule->impl;
  CN__ASSERTD (nv->n_in == nv->rule->n_in && nv->n_in <= EW_MAX_IN && cn__diff_match (nv, in, out));
  int64_t n = cn_tensor_numel (out);
  const double *y = out->data;
  double a[EW_MAX_IN], g[EW_MAX_IN];
  for (int64_t j = 0; j < n; j++)
    {
      double t = 0;
      if (d->deriv != NULL)
        {
          for (int i = 0; i < nv->n_in; i++)
            a[i] = ((const double *) in[i]->data)[j];
          d->deriv (a, y[j], nv->params, g);
          for (int i = 0; i < nv->n_in; i++)
            if (t_in[i] != NULL && ew_is_value (nv, i))
              t += g[i] * t_in[i][j];
        }
      t_out[j] = t;
    }
  return CN_OK;
}

static void
ik_scratch_init (struct ik_scratch *s, mpfr_prec_t prec)
{
  mpfi_init2 (s->t, prec);
  mpfi_init2 (s->u, prec);
  mpfr_inits2 (prec, s->a, s->b, s->c, s->e, (mpfr_ptr) 0);
}

static void
ik_scratch_clear (struct ik_scratch *s)
{
  mpfi_clear (s->t);
  mpfi_clear (s->u);
  mpfr_clears (s->a, s->b, s->c, s->e, (mpfr_ptr) 0);
}

/* One entry through the kernel: X (n_in enclosures, NaN-free) into OUT.  A NaN result (an
 * indeterminate form of infinite ends, inf - inf or 0 inf) becomes [-inf, +inf]: every real
 * point's value lies there. */
static int
ew_entry (const struct ew_impl *d, mpfi_ptr out, mpfi_srcptr *x, const void *params, struct ik_scratch *s)
{
  int r = d->kernel (out, x, params, s);
  if (r == IK_OK && mpfi_nan_p (out))
    mpfi_interv_d (out, -INFINITY, INFINITY);
  return r;
}

/* IBP: the kernel in MPFI at IBP_PREC bits on the box's ends (doubles, exact there), its ends
 * then rounded outward to doubles (mpfr_get_d RNDD / RNDU: the unbounded exponent of MPFR makes
 * an overflow go to DBL_MAX below and +inf above).  128 bits keep multi-step kernels (safeLog,
 * lerp) within an ulp of the exact range; a precision below the reference's (256) keeps the fast
 * box a superset of the MPFI box, since every MPFI operation is inclusion-isotone and rounds to a
 * coarser grid at lower precision. */
#define IBP_PREC 128
static cn_status
ew_ibp (const cn_node_view *nv, const cn_box *const *in, cn_box *out, cn_error *err)
{
  const struct ew_impl *d = nv->rule->impl;
  const char *name = cn_op_name (nv->op);
  CN__ASSERTD (nv->n_in == nv->rule->n_in && nv->n_in <= EW_MAX_IN);
  if (cn__word_view (nv))
    return cn__word_ibp (d->word, nv, in, out, err);
  CN__ASSERTD (cn__boxes_match (nv, in, out));
  cn_status st = CN_OK;
  struct ik_scratch s;
  mpfi_t x[EW_MAX_IN], y;
  mpfi_srcptr xp[EW_MAX_IN];
  ik_scratch_init (&s, IBP_PREC);
  for (int i = 0; i < nv->n_in; i++)
    {
      mpfi_init2 (x[i], IBP_PREC);
      xp[i] = x[i];
    }
  mpfi_init2 (y, IBP_PREC);
  for (int64_t j = 0; j < out->n && st == CN_OK; j++)
    {
      for (int i = 0; i < nv->n_in; i++)
        {
          double l = in[i]->lo[j], u = in[i]->hi[j];
          if (isnan (l) || isnan (u))
            {
              st = cn_error_set (err, CN_ENUMERIC, "%s: NaN end in input box %d at entry %lld (node '%s')", name,
                                 i, (long long) j, cn__node_name (nv));
              break;
            }
          mpfi_interv_d (x[i], l, u);   /* exact: IBP_PREC >= 53 bits hold a double */
        }
      if (st != CN_OK)
        break;
      if (ew_entry (d, y, xp, nv->params, &s) != IK_OK)
        {
          st = cn_error_set (err, CN_ENUMERIC, "%s: part of the input box at entry %lld has no real value (node '%s')",
                             name, (long long) j, cn__node_name (nv));
          break;
        }
      out->lo[j] = mpfr_get_d (&y->left, MPFR_RNDD);
      out->hi[j] = mpfr_get_d (&y->right, MPFR_RNDU);
      /* now [lo, hi] contains f over the input boxes: y does, and the ends were rounded outward */
    }
  for (int i = 0; i < nv->n_in; i++)
    mpfi_clear (x[i]);
  mpfi_clear (y);
  ik_scratch_clear (&s);
  return st;
}

static cn_status
ew_mpfi (const cn_node_view *nv, const cn_mpfi_vec *const *in, cn_mpfi_vec *out, cn_error *err)
{
  const struct ew_impl *d = nv->rule->impl;
  const char *name = cn_op_name (nv->op);
  CN__ASSERTD (nv->n_in == nv->rule->n_in && nv->n_in <= EW_MAX_IN);
  if (cn__word_view (nv))
    return cn__word_mpfi (d->word, nv, in, out, err);
  CN__ASSERTD (cn__mpfi_match (nv, in, out));
  cn_status st = CN_OK;
  if (out->n == 0)
    return st;
  struct ik_scratch s;
  ik_scratch_init (&s, mpfi_get_prec (out->v[0]));
  mpfi_srcptr xp[EW_MAX_IN];
  for (int64_t j = 0; j < out->n; j++)
    {
      for (int i = 0; i < nv->n_in; i++)
        {
          xp[i] = in[i]->v[j];
          if (mpfi_nan_p (xp[i]))
            {
              st = cn_error_set (err, CN_ENUMERIC, "%s: NaN in input enclosure %d at entry %lld (node '%s')", name,
                                 i, (long long) j, cn__node_name (nv));
              goto done;
            }
        }
      if (ew_entry (d, out->v[j], xp, nv->params, &s) != IK_OK)
        {
          st = cn_error_set (err, CN_ENUMERIC, "%s: part of the input enclosure at entry %lld has no real value (node '%s')",
                             name, (long long) j, cn__node_name (nv));
          goto done;
        }
    }
done:
  ik_scratch_clear (&s);
  return st;
}

/* ---- checks --------------------------------------------------------------------------- */

static cn_status
check_nary (const char *op, int k, int n_in, const cn_shape *const *in, cn_shape *out, cn_error *err)
{
  if (k == 1)
    return cn__check_unary (op, n_in, in, out, err);
  if (k == 2)
    return cn__check_binary (op, n_in, in, out, err);
  if (n_in != k)
    return cn_error_set (err, CN_EINVAL, "%s: takes %d inputs, got %d", op, k, n_in);
  for (int i = 0; i < k; i++)
    {
      cn_status st = cn__input_valid (op, i, in[i], err);
      if (st != CN_OK)
        return st;
    }
  for (int i = 1; i < k; i++)
    if (!cn_shape_equal (in[0], in[i]))
      {
        char a[128], b[128];
        return cn_error_set (err, CN_ESHAPE, "%s: input shapes %s and %s differ", op,
                             cn_shape_format (in[0], a, sizeof a), cn_shape_format (in[i], b, sizeof b));
      }
  *out = *in[0];
  return CN_OK;
}

/* The check arm of an operator without attributes to check: the rule's number of inputs, of one
 * shape. */
static cn_status
ew_check (const struct cn_op_rule *rule, const void *p, int n_in, const cn_shape *const *in, cn_shape *out,
          cn_error *err)
{
  (void) p;
  return check_nary (cn_op_name (rule->op), rule->n_in, n_in, in, out, err);
}

static cn_status
sqrt_check (const struct cn_op_rule *rule, const void *p, int n_in, const cn_shape *const *in, cn_shape *out, cn_error *err)
{
  (void) rule;
  const cn_params_sqrt *a = p;
  if (a == NULL)
    return cn_error_set (err, CN_EINVAL, "sqrt: missing attributes");
  if (a->mode != CN_SQRT_RAW && a->mode != CN_SQRT_CLAMP_NEGATIVE)
    return cn_error_set (err, CN_EINVAL, "sqrt: unknown mode %d", (int) a->mode);
  return cn__check_unary ("sqrt", n_in, in, out, err);
}

static cn_status
scale_check (const struct cn_op_rule *rule, const void *p, int n_in, const cn_shape *const *in, cn_shape *out, cn_error *err)
{
  (void) rule;
  const cn_params_scale *a = p;
  if (a == NULL)
    return cn_error_set (err, CN_EINVAL, "scale: missing attributes");
  if (!isfinite (a->factor))
    return cn_error_set (err, CN_EINVAL, "scale: factor %g is not finite", a->factor);
  return cn__check_unary ("scale", n_in, in, out, err);
}

/* addcmul, addcdiv: a finite value. */
static cn_status
addc_check (const struct cn_op_rule *rule, const void *p, int n_in, const cn_shape *const *in, cn_shape *out,
            cn_error *err)
{
  const char *op = cn_op_name (rule->op);
  const cn_params_addc *a = p;
  if (a == NULL)
    return cn_error_set (err, CN_EINVAL, "%s: missing attributes", op);
  if (!isfinite (a->value))
    return cn_error_set (err, CN_EINVAL, "%s: value %g is not finite", op, a->value);
  return check_nary (op, 3, n_in, in, out, err);
}

/* safeDiv, safeInv, safeLog, smoothAbs: a finite epsilon, nonnegative where the impl says so. */
static cn_status
eps_check (const struct cn_op_rule *rule, const void *p, int n_in, const cn_shape *const *in, cn_shape *out,
           cn_error *err)
{
  const char *op = cn_op_name (rule->op);
  int nonneg = ((const struct ew_impl *) rule->impl)->eps_nonneg;
  const cn_params_epsilon *a = p;
  if (a == NULL)
    return cn_error_set (err, CN_EINVAL, "%s: missing attributes", op);
  if (!isfinite (a->eps) || (nonneg && a->eps < 0))
    return cn_error_set (err, CN_EINVAL, "%s: epsilon %g is not a finite%s number", op, a->eps,
                         nonneg ? " nonnegative" : "");
  return check_nary (op, rule->n_in, n_in, in, out, err);
}

/* ---- CROWN (see the top) -------------------------------------------------------------------- */

/* The relaxations of the kit (src/sound/relax.c): f, f', f'' in binary64 (heuristics) and f, f'
 * enclosed in MPFI at the kit's precision, P the node's record (pow: struct pow_exponent). */
static int rx_convex (int i, const void *p) { (void) i; (void) p; return 1; }
static int rx_s (int i, const void *p) { (void) p; return i == 0 ? 1 : -1; }
static int rx_cc (int i, const void *p) { (void) p; return i == 0 ? -1 : 1; }

/* sqrt: piece 0 (x <= 0) is clampNegative's constant 0 (linear; RAW never meets x < 0, its IBP
 * refuses such a box), piece 1 the concave root: S-shaped across 0 */
static double rx_sqrt (double x, int i, const void *p) { (void) p; return i == 0 ? 0 : sqrt (x); }
static double rx_dsqrt (double x, int i, const void *p) { (void) p; return i == 0 ? 0 : 0.5 / sqrt (x); }
static double rx_d2sqrt (double x, int i, const void *p) { (void) p; return i == 0 ? 0 : -0.25 / (x * sqrt (x)); }
static void
rx_sqrt_mpfi (mpfi_ptr y, double x, int i, const void *p)
{
  (void) p;
  mpfi_set_d (y, i == 0 ? 0 : x);
  mpfi_sqrt (y, y);
}
static void
rx_dsqrt_mpfi (mpfi_ptr y, double x, int i, const void *p)
{
  (void) p;
  if (i == 0)
    {
      mpfi_set_ui (y, 0);
      return;
    }
  mpfi_set_d (y, x);
  mpfi_sqrt (y, y);
  mpfi_mul_2ui (y, y, 1);
  mpfi_inv (y, y);   /* 1/(2 sqrt x); +inf at 0 (no line on the side that needs it) */
}

CN__RX_FN (rsqrt, 1 / sqrt (x))
CN__RX_FN (drsqrt, -0.5 / (x * sqrt (x)))
CN__RX_FN (d2rsqrt, 0.75 / (x * x * sqrt (x)))
CN__RX_MPFI (rsqrt_mpfi, mpfi_sqrt (y, y); mpfi_inv (y, y))
CN__RX_MPFI (drsqrt_mpfi, mpfi_sqrt (c, y); mpfi_mul (y, y, c); mpfi_inv (y, y); mpfi_div_2ui (y, y, 1); mpfi_neg (y, y))
CN__RX_FN (cbrt, cbrt (x))
CN__RX_FN (dcbrt, 1 / (3 * cbrt (x) * cbrt (x)))
CN__RX_FN (d2cbrt, -2 / (9 * x * cbrt (x) * cbrt (x)))
CN__RX_MPFI (cbrt_mpfi, mpfi_cbrt (y, y))
CN__RX_MPFI (dcbrt_mpfi, mpfi_cbrt (y, y); mpfi_sqr (y, y); mpfi_mul_ui (y, y, 3); mpfi_inv (y, y))
CN__RX_FN (recip, 1 / x)
CN__RX_FN (drecip, -1 / (x * x))
CN__RX_FN (d2recip, 2 / (x * x * x))
CN__RX_MPFI (recip_mpfi, mpfi_inv (y, y))
CN__RX_MPFI (drecip_mpfi, mpfi_sqr (y, y); mpfi_inv (y, y); mpfi_neg (y, y))
CN__RX_FN (square, x * x)
CN__RX_FN (dsquare, 2 * x)
CN__RX_FN (d2square, 2)
CN__RX_MPFI (square_mpfi, mpfi_sqr (y, y))
CN__RX_MPFI (dsquare_mpfi, mpfi_mul_2ui (y, y, 1))
/* smoothAbs sqrt(x^2 + eps), convex for eps >= 0: f' = x / f, f'' = eps / f^3 */
CN__RX_FN (smabs, sqrt (x * x + PEPS (p)))
CN__RX_FN (dsmabs, x / sqrt (x * x + PEPS (p)))
CN__RX_FN (d2smabs, PEPS (p) / pow (x * x + PEPS (p), 1.5))
CN__RX_MPFI (smabs_mpfi, mpfi_sqr (y, y); mpfi_add_d (y, y, PEPS (p)); mpfi_sqrt (y, y))
CN__RX_MPFI (dsmabs_mpfi, mpfi_sqr (c, y); mpfi_add_d (c, c, PEPS (p)); mpfi_sqrt (c, c); mpfi_div (y, y, c))
/* safeInv 1/(x + eps): reciprocal moved by -eps (the break is set per node) */
CN__RX_FN (sinv, 1 / (x + PEPS (p)))
CN__RX_FN (dsinv, -1 / ((x + PEPS (p)) * (x + PEPS (p))))
CN__RX_FN (d2sinv, 2 / ((x + PEPS (p)) * (x + PEPS (p)) * (x + PEPS (p))))
CN__RX_MPFI (sinv_mpfi, mpfi_add_d (y, y, PEPS (p)); mpfi_inv (y, y))
CN__RX_MPFI (dsinv_mpfi, mpfi_add_d (y, y, PEPS (p)); mpfi_sqr (y, y); mpfi_inv (y, y); mpfi_neg (y, y))

/* pow(x, e) with a constant exponent e (|e| <= 2^52; x < 0 only for an integer e, else IBP has
 * refused the box): on x > 0 convex for e >= 1 or e <= 0, concave for 0 <= e <= 1; on x < 0
 * (integer e) convex for even e, concave for odd e.  The enclosures are MPFR's correctly rounded
 * pow, rounded down and up, and e x^(e - 1) with e - 1 exact (1100 bits hold it). */
struct pow_exponent
{
  double e;
};
#define PEXP(p) (((const struct pow_exponent *) (p))->e)
static int
rx_pow_curv (int i, const void *p)
{
  double e = PEXP (p);
  if (i == 0)
    return fmod (e, 2) == 0 ? 1 : -1;
  return e >= 1 || e <= 0 ? 1 : -1;
}
CN__RX_FN (pow, pow (x, PEXP (p)))
CN__RX_FN (dpow, PEXP (p) == 0 ? 0 : PEXP (p) * pow (x, PEXP (p) - 1))
CN__RX_FN (d2pow, PEXP (p) == 0 || PEXP (p) == 1 ? 0 : PEXP (p) * (PEXP (p) - 1) * pow (x, PEXP (p) - 2))
/* Y := [x^E rounded down, rounded up] (MPFR) */
static void
pow_interval (mpfi_ptr y, double x, mpfr_srcptr e)
{
  mpfr_t a, b, t;
  mpfr_inits2 (mpfi_get_prec (y), a, b, (mpfr_ptr) 0);
  mpfr_init2 (t, 53);
  mpfr_set_d (t, x, MPFR_RNDN);   /* exact */
  mpfr_pow (a, t, e, MPFR_RNDD);
  mpfr_pow (b, t, e, MPFR_RNDU);
  mpfi_interv_fr (y, a, b);
  mpfr_clears (a, b, t, (mpfr_ptr) 0);
}
static void
rx_pow_mpfi (mpfi_ptr y, double x, int i, const void *p)
{
  (void) i;
  mpfr_t e;
  mpfr_init2 (e, 53);
  mpfr_set_d (e, PEXP (p), MPFR_RNDN);
  pow_interval (y, x, e);
  mpfr_clear (e);
}
static void
rx_dpow_mpfi (mpfi_ptr y, double x, int i, const void *p)
{
  (void) i;
  if (PEXP (p) == 0)
    {
      mpfi_set_ui (y, 0);
      return;
    }
  mpfr_t e;
  mpfr_init2 (e, 1100);
  mpfr_set_d (e, PEXP (p), MPFR_RNDN);
  mpfr_sub_ui (e, e, 1, MPFR_RNDN);   /* exact: |e| <= 2^52 and e's last bit is above 2^-1075 */
  pow_interval (y, x, e);
  mpfi_mul_d (y, y, PEXP (p));
  mpfr_clear (e);
}
/* safeLog log(softplus(x) + eps), eps >= 0: shifted chords (G4; an S shape whose break is not
 * known in closed form).  With s = sigmoid, sp = softplus, d = sp + eps:
 *     f'' = s' / d - (s / d)^2,   s'(x) = 1 / (4 cosh^2(x/2)),
 * its range over [a, b] in MPFI (every piece monotone or squared; d > 0 for finite x). */
CN__RX_FN (slog, log ((x > 0 ? x + log1p (exp (-x)) : log1p (exp (x))) + PEPS (p)))
CN__RX_MPFI (slog_mpfi, mpfi_exp (y, y); mpfi_log1p (y, y); mpfi_add_d (y, y, PEPS (p)); mpfi_log (y, y))
static double
rx_slog_d2_bound (double a, double b, const void *p)
{
  mpfi_t x, d, s, y;
  mpfr_t m;
  mpfi_init2 (x, 64);
  mpfi_init2 (d, 64);
  mpfi_init2 (s, 64);
  mpfi_init2 (y, 64);
  mpfr_init2 (m, 64);
  mpfi_interv_d (x, a, b);
  mpfi_exp (d, x);
  mpfi_log1p (d, d);
  mpfi_add_d (d, d, PEPS (p));        /* softplus + eps */
  mpfi_neg (s, x);
  mpfi_exp (s, s);
  mpfi_add_ui (s, s, 1);
  mpfi_inv (s, s);                    /* sigmoid */
  mpfi_div (s, s, d);
  mpfi_sqr (s, s);                    /* (s / d)^2 */
  mpfi_div_2ui (y, x, 1);
  mpfi_cosh (y, y);
  mpfi_sqr (y, y);
  mpfi_mul_2ui (y, y, 2);
  mpfi_mul (y, y, d);
  mpfi_inv (y, y);                    /* s' / d */
  mpfi_sub (y, y, s);
  mpfi_mag (m, y);
  double r = mpfr_get_d (m, MPFR_RNDU);
  mpfi_clear (x);
  mpfi_clear (d);
  mpfi_clear (s);
  mpfi_clear (y);
  mpfr_clear (m);
  return r;
}

static const cn__relax_fn relax_sqrt = { .split = 1, .brk = 0, .curv = rx_s, .f = rx_sqrt, .df = rx_dsqrt,
                                         .f_mpfi = rx_sqrt_mpfi, .df_mpfi = rx_dsqrt_mpfi, .d2f = rx_d2sqrt };
static const cn__relax_fn relax_rsqrt = { .curv = rx_convex, .f = rx_rsqrt, .df = rx_drsqrt, .f_mpfi = rx_rsqrt_mpfi,
                                          .df_mpfi = rx_drsqrt_mpfi, .d2f = rx_d2rsqrt };
static const cn__relax_fn relax_cbrt = { .split = 1, .brk = 0, .curv = rx_s, .f = rx_cbrt, .df = rx_dcbrt,
                                         .f_mpfi = rx_cbrt_mpfi, .df_mpfi = rx_dcbrt_mpfi, .d2f = rx_d2cbrt };
static const cn__relax_fn relax_recip = { .split = 1, .brk = 0, .curv = rx_cc, .f = rx_recip, .df = rx_drecip,
                                          .f_mpfi = rx_recip_mpfi, .df_mpfi = rx_drecip_mpfi, .d2f = rx_d2recip };
static const cn__relax_fn relax_square = { .curv = rx_convex, .f = rx_square, .df = rx_dsquare,
                                           .f_mpfi = rx_square_mpfi, .df_mpfi = rx_dsquare_mpfi, .d2f = rx_d2square };
static const cn__relax_fn relax_smabs = { .curv = rx_convex, .f = rx_smabs, .df = rx_dsmabs, .f_mpfi = rx_smabs_mpfi,
                                          .df_mpfi = rx_dsmabs_mpfi, .d2f = rx_d2smabs };
static const cn__relax_fn relax_sinv = { .split = 1, .curv = rx_cc, .f = rx_sinv, .df = rx_dsinv,
                                         .f_mpfi = rx_sinv_mpfi, .df_mpfi = rx_dsinv_mpfi, .d2f = rx_d2sinv };
static const cn__relax_fn relax_slog = { .f = rx_slog, .f_mpfi = rx_slog_mpfi, .d2_bound = rx_slog_d2_bound };
static const cn__relax_fn relax_pow = { .split = 1, .brk = 0, .curv = rx_pow_curv, .f = rx_pow, .df = rx_dpow,
                                        .f_mpfi = rx_pow_mpfi, .df_mpfi = rx_dpow_mpfi, .d2f = rx_d2pow };

/* safeInv's relaxation: the reciprocal's, its break moved to the pole -eps (exact) */
static cn__relax_fn
safe_inv_relax (const void *p)
{
  cn__relax_fn f = relax_sinv;
  f.brk = -PEPS (p);
  return f;
}

/* The relaxation of a kit operator (its impl's RELAX), safeInv's with its break. */
static cn_status
ew_kit_crown (const cn_crown_step *st, cn_error *err)
{
  const struct ew_impl *d = st->nv->rule->impl;
  CN__ASSERTD (d->relax != NULL);
  if (d->relax == &relax_sinv)
    {
      cn__relax_fn f = safe_inv_relax (st->params);
      return cn__crown_relax (st, cn_op_name (st->nv->op), &f, ew_ibp, err);
    }
  return cn__crown_relax (st, cn_op_name (st->nv->op), d->relax, ew_ibp, err);
}

/* The exponent of pow's step when it is one constant: input 1 takes no coefficients and its
 * box is one finite point, the same at every entry, |e| <= 2^52; else 0. */
static int
pow_constant_exponent (const cn_crown_step *st, double *e)
{
  const cn_box *b = st->in_box[1];
  if (st->lam_in[1] != NULL || b->n == 0)
    return 0;
  *e = b->lo[0];
  for (int64_t j = 0; j < b->n; j++)
    if (b->lo[j] != *e || b->hi[j] != *e)
      return 0;
  return isfinite (*e) && fabs (*e) <= 0x1p52;
}

/* pow with a constant exponent: the kit's relaxation of x^e; at words the node's own box; a
 * variable exponent has no relaxation (the sweep discharges the node). */
static cn_status
pow_crown (const cn_crown_step *st, cn_error *err)
{
  if (cn__word_view (st->nv))
    return cn__crown_own_box (st, err);
  struct pow_exponent pe;
  if (!pow_constant_exponent (st, &pe.e))
    return cn_error_set (err, CN_EUNSUPPORTED, "pow: CROWN needs one constant exponent (node '%s')",
                         cn__node_name (st->nv));
  return cn__crown_relax_with (st, "pow", &relax_pow, &pe, ew_ibp, err);
}

/* lerp x + w (y - x) and addcmul x + value t1 t2 for the multilinear kit (src/sound/relax.c:
 * intercepts from the box's corners).  lerp's planes both take the gradient at the box's centre
 * (1 - w, w, y - x there); addcmul's take slope 1 in x and McCormick's slopes for value t1 t2
 * (lower: value t2l, value t1l for value >= 0, value t2u, value t1l otherwise; upper the other). */
static void
lerp_at (mpfi_ptr y, const double *x, const void *p)
{
  (void) p;
  mpfi_set_d (y, x[1]);
  mpfi_sub_d (y, y, x[0]);
  mpfi_mul_d (y, y, x[2]);
  mpfi_add_d (y, y, x[0]);
}
static void
lerp_slopes (const double *lo, const double *hi, const void *p, double *kl, double *ku)
{
  (void) p;
  double xm = lo[0] / 2 + hi[0] / 2, ym = lo[1] / 2 + hi[1] / 2, wm = lo[2] / 2 + hi[2] / 2;
  kl[0] = ku[0] = 1 - wm;
  kl[1] = ku[1] = wm;
  kl[2] = ku[2] = ym - xm;
}
static void
addcmul_at (mpfi_ptr y, const double *x, const void *p)
{
  mpfi_set_d (y, x[1]);
  mpfi_mul_d (y, y, x[2]);
  mpfi_mul_d (y, y, PADDC (p));
  mpfi_add_d (y, y, x[0]);
}
static void
addcmul_slopes (const double *lo, const double *hi, const void *p, double *kl, double *ku)
{
  double v = PADDC (p);
  int pos = v >= 0;
  kl[0] = ku[0] = 1;
  kl[1] = v * (pos ? lo[2] : hi[2]);
  kl[2] = v * lo[1];
  ku[1] = v * (pos ? hi[2] : lo[2]);
  ku[2] = v * lo[1];
}
static const cn__multilinear lerp_planes = { .k = 3, .f_mpfi = lerp_at, .slopes = lerp_slopes };
static const cn__multilinear addcmul_planes = { .k = 3, .f_mpfi = addcmul_at, .slopes = addcmul_slopes };
static cn_status
lerp_crown (const cn_crown_step *st, cn_error *err)
{
  return cn__crown_multilinear (st, "lerp", &lerp_planes, ew_ibp, err);
}
static cn_status
addcmul_crown (const cn_crown_step *st, cn_error *err)
{
  return cn__crown_multilinear (st, "addcmul", &addcmul_planes, ew_ibp, err);
}

/* safeDiv x / (y + eps) and addcdiv x + value t1 / t2: a factor times 1/(y + eps)
 * (cn__crown_times_fn: McCormick's slopes on the factor and the reciprocal, exact intercepts by
 * G2), the reciprocal's break moved to the pole -eps. */
static cn_status
safe_div_crown (const cn_crown_step *st, cn_error *err)
{
  const double *eps = &((const cn_params_epsilon *) st->params)->eps;
  cn__relax_fn h = cn__relax_inv_shift;
  h.brk = -*eps;
  cn__times_fn q = { .add = -1, .ix = 0, .iy = 1, .scale = 1, .h = &h, .hp = eps };
  return cn__crown_times_fn (st, "safeDiv", &q, 2, ew_ibp, err);
}
static cn_status
addcdiv_crown (const cn_crown_step *st, cn_error *err)
{
  static const double zero = 0;
  cn__times_fn q = { .add = 0, .ix = 1, .iy = 2, .scale = PADDC (st->params), .h = &cn__relax_inv_shift, .hp = &zero };
  return cn__crown_times_fn (st, "addcdiv", &q, 3, ew_ibp, err);
}

/* hypot, convex: per entry the planes of cn__crown_planes.  Lower: the tangent plane at the box's
 * centre p, k = p / |p| (binary64; k = 0 at p = 0, where hypot >= 0 is the plane), intercept
 * g(p) - sum_i |g_i'(p)| r_i for g = hypot - k . u (convex: g(u) >= g(p) + g'(p) . (u - p)), with
 * g'(p) = p / |p| - k and g(p) enclosed in MPFI, r_i = the box's half widths rounded up.  Upper:
 * the slopes of the chords through the centre lines, intercept the greatest corner value of
 * g = hypot - k . u (convex: its maximum over a box is at a corner).  A constant input takes
 * slope 0 (its box is a point); an infinite end leaves the node's IBP box. */
static cn_status
hypot_crown (const cn_crown_step *st, cn_error *err)
{
  int64_t n = st->n_out;
  cn__planes P;
  cn_status rc = cn__planes_open (st, "hypot", 2, ew_ibp, &P, err);
  if (rc != CN_OK)
    return rc;
  mpfi_t y, t, q;
  mpfi_init2 (y, 64);
  mpfi_init2 (t, 64);
  mpfi_init2 (q, 64);
  for (int64_t j = 0; j < n; j++)
    {
      double lo[2], hi[2], c[2], r[2], *kl = P.kk + 4 * j, *ku = kl + 2;
      int finite = 1;
      for (int i = 0; i < 2; i++)
        {
          lo[i] = st->in_box[i]->lo[j];
          hi[i] = st->in_box[i]->hi[j];
          r[i] = cn__centre_radius (lo[i], hi[i], &c[i]);
          finite &= isfinite (lo[i]) && isfinite (hi[i]);
        }
      double bl = -INFINITY, bu = INFINITY;
      if (finite)
        {
          double h = hypot (c[0], c[1]);
          for (int i = 0; i < 2; i++)
            {
              kl[i] = st->lam_in[i] == NULL || h == 0 ? 0 : c[i] / h;
              double a = i == 0 ? hypot (hi[0], c[1]) - hypot (lo[0], c[1]) : hypot (c[0], hi[1]) - hypot (c[0], lo[1]);
              ku[i] = st->lam_in[i] == NULL || !(hi[i] > lo[i]) ? 0 : a / (hi[i] - lo[i]);
            }
          /* lower: g(p) and |g'(p)| enclosed */
          mpfi_set_d (y, c[0]);
          mpfi_set_d (t, c[1]);
          mpfi_hypot (q, y, t);                 /* |p| */
          double gl = mpfr_get_d (&q->left, MPFR_RNDD);
          for (int i = 0; i < 2; i++)
            {
              gl = cn__down (gl - cn__up (kl[i] * c[i]));   /* - k_i p_i, the product rounded up */
              double slope_err = 1;             /* at p = 0 (k = 0): every subgradient has |s_i| <= 1 */
              if (h != 0)
                {
                  mpfi_set_d (y, c[i]);
                  mpfi_div (y, y, q);
                  mpfi_sub_d (y, y, kl[i]);     /* g_i'(p) = p_i / |p| - k_i */
                  mpfr_t m;
                  mpfr_init2 (m, 64);
                  mpfi_mag (m, y);
                  slope_err = mpfr_get_d (m, MPFR_RNDU);
                  mpfr_clear (m);
                }
              gl = cn__down (gl - cn__up (slope_err * r[i]));
            }
          bl = gl;
          /* upper: the greatest corner value of hypot - ku . u */
          bu = -INFINITY;
          for (int e = 0; e < 4; e++)
            {
              double x0 = e & 1 ? hi[0] : lo[0], x1 = e & 2 ? hi[1] : lo[1];
              mpfi_set_d (y, x0);
              mpfi_set_d (t, x1);
              mpfi_hypot (q, y, t);
              mpfi_set_d (y, x0);
              mpfi_mul_d (y, y, ku[0]);
              mpfi_sub (q, q, y);
              mpfi_set_d (y, x1);
              mpfi_mul_d (y, y, ku[1]);
              mpfi_sub (q, q, y);
              bu = fmax (bu, mpfr_get_d (&q->right, MPFR_RNDU));
            }
          /* now kl . u + bl <= hypot(u) <= ku . u + bu on the box */
        }
      cn__planes_settle (&P, j, bl, bu);
    }
  mpfi_clear (y);
  mpfi_clear (t);
  mpfi_clear (q);
  return cn__planes_step (st, "hypot", &P, err);
}

/* The arms below write each entry's lines (cn__crown_box_lines): scale, nanToNum, fullLike, abs,
 * copysign, fmod, remainder. */

/* scale: v = factor x exactly as a line (k = factor, b = 0; the products' roundings are the kit's) */
static cn_status
scale_line (const cn_crown_step *st, int64_t j, double ylo, double yhi, cn__relax_line *ln,
            cn_error *err)
{
  (void) ylo;
  (void) yhi;
  (void) j;
  (void) err;
  double k = PSCALE (st->params);
  *ln = (cn__relax_line) { .kl = k, .ku = k };
  return CN_OK;
}
/* nanToNum: the identity on the reals */
static cn_status
identity_line (const cn_crown_step *st, int64_t j, double ylo, double yhi, cn__relax_line *ln,
               cn_error *err)
{
  (void) ylo;
  (void) yhi;
  (void) st;
  (void) j;
  (void) err;
  *ln = (cn__relax_line) { .kl = 1, .ku = 1 };
  return CN_OK;
}
/* fullLike: the constant value (k = 0, b = value; not finite: no line) */
static cn_status
full_like_line (const cn_crown_step *st, int64_t j, double ylo, double yhi, cn__relax_line *ln,
                cn_error *err)
{
  (void) ylo;
  (void) yhi;
  (void) j;
  (void) err;
  double v = PFULL (st->params);
  *ln = (cn__relax_line) { .bl = isfinite (v) ? v : -INFINITY, .bu = isfinite (v) ? v : INFINITY };
  return CN_OK;
}

/* abs on [l, u] across 0: the lower line k z, valid for every k in [-1, 1] (|z| >= k z), k = +-1
 * (adaptive: the sign of u + l; the slope modes: ZERO 0, RATIO the chord's slope) or alpha-CROWN's
 * theta (free_lower); the upper line the chord, slope kc = fl((u + l)/(u - l)) (any double is
 * sound), intercept the larger of |l| - kc l and |u| - kc u rounded up (|z| - kc z is convex, so
 * its maximum over [l, u] is at an end).  Elsewhere abs is the line -z or z, exactly. */
static double
abs_slope (double l, double u, int slope)
{
  if (slope == CN_SLOPE_ZERO)
    return 0;
  if (slope == CN_SLOPE_RATIO && isfinite (l) && isfinite (u))
    {
      double r = (u + l) / (u - l);
      return r > 1 ? 1 : r < -1 ? -1 : r;
    }
  return u + l >= 0 ? 1 : -1;
}
static cn_status
abs_line (const cn_crown_step *st, int64_t j, double ylo, double yhi, cn__relax_line *ln,
          cn_error *err)
{
  (void) ylo;
  (void) yhi;
  double l = st->in_box[0]->lo[j], u = st->in_box[0]->hi[j];
  if (l >= 0 || u <= 0)
    {
      double k = l >= 0 ? 1 : -1;
      *ln = (cn__relax_line) { .kl = k, .ku = k };
      return CN_OK;
    }
  if (st->theta != NULL && !st->theta_unchecked)
    {
      int64_t sets = st->theta_stride == 0 ? 1 : st->rows;
      for (int64_t s = 0; s < sets; s++)
        {
          double t = st->theta[s * st->theta_stride + j];
          if (!(t >= -1 && t <= 1))
            return cn_error_set (err, CN_EINVAL, "abs: lower slope %g outside [-1, 1] at entry %lld (node '%s')", t,
                                 (long long) j, cn__node_name (st->nv));
        }
    }
  *ln = (cn__relax_line) { .kl = abs_slope (l, u, st->slope), .bu = INFINITY, .free_lower = 1 };
  if (isinf (l) || isinf (u))
    return CN_OK;   /* no upper line */
  double kc = (u + l) / (u - l);
  double bl = cn__up (-l - cn__down (kc * l)), bu = cn__up (u - cn__down (kc * u));
  /* now bl >= |l| - kc l and bu >= |u| - kc u (kc l and kc u bounded below by their roundings
   * moved down, the differences rounded up) */
  double b = bl > bu ? bl : bu;
  if (isfinite (kc) && isfinite (b))
    {
      ln->ku = kc;
      ln->bu = b;
    }
  return CN_OK;
}

/* copysign(x, y): |x| where y's box is above 0, -|x| where it is below (abs's lines, negated), the
 * constants +-max(|l|, |u|) where it meets 0 (the sign may flip); y takes no coefficients. */
static cn_status
copysign_line (const cn_crown_step *st, int64_t j, double ylo, double yhi, cn__relax_line *ln,
               cn_error *err)
{
  (void) ylo;
  (void) yhi;
  double yl = st->in_box[1]->lo[j], yh = st->in_box[1]->hi[j];
  if (!(yl > 0) && !(yh < 0))
    {
      double m = fmax (fabs (st->in_box[0]->lo[j]), fabs (st->in_box[0]->hi[j]));
      *ln = (cn__relax_line) { .bl = -m, .bu = m };
      return CN_OK;
    }
  cn_status rc = abs_line (st, j, ylo, yhi, ln, err);
  ln->free_lower = 0;
  if (yh < 0)
    *ln = (cn__relax_line) { .kl = -ln->ku, .bl = -ln->bu, .ku = -ln->kl, .bu = -ln->bl };
  return rc;
}

/* fmod (remainder) with a constant divisor c != 0: r = x - k c with k = trunc(x / c) (floor), which
 * is constant on the box where it is one integer at both ends (x / c is monotone in x, trunc and
 * floor nondecreasing): there r = x - k c exactly, the line of slope 1 with the intercepts -k c
 * rounded outward.  k at an end is exact: x / c rounded toward zero (fmod) or down (remainder) at
 * 2200 bits (every such quotient of doubles is below 2^2100 in magnitude, and an integer quotient
 * is kept exactly) then trunc (floor).  Elsewhere the node's box. */
static cn_status
mod_line (const cn_crown_step *st, int64_t j, double ylo, double yhi, cn__relax_line *ln,
          cn_error *err)
{
  (void) err;
  int floored = st->nv->op == CN_OP_REMAINDER;
  double l = st->in_box[0]->lo[j], u = st->in_box[0]->hi[j], c = st->in_box[1]->lo[j];
  *ln = (cn__relax_line) { .bl = ylo, .bu = yhi };
  if (!isfinite (l) || !isfinite (u) || !isfinite (c) || c == 0 || c != st->in_box[1]->hi[j])
    return CN_OK;
  mpfr_t q, a, b;
  mpfr_inits2 (2200, q, a, b, (mpfr_ptr) 0);
  mpfr_set_d (a, l, MPFR_RNDN);
  mpfr_set_d (b, u, MPFR_RNDN);
  mpfr_div_d (a, a, c, floored ? MPFR_RNDD : MPFR_RNDZ);
  mpfr_div_d (b, b, c, floored ? MPFR_RNDD : MPFR_RNDZ);
  if (floored)
    {
      mpfr_floor (a, a);
      mpfr_floor (b, b);
    }
  else
    {
      mpfr_trunc (a, a);
      mpfr_trunc (b, b);
    }
  if (mpfr_equal_p (a, b))
    {
      /* one cell: r = x - k c; -k c rounded down and up */
      mpfr_mul_d (q, a, c, MPFR_RNDN);   /* exact: 2200 bits hold the product */
      mpfr_neg (q, q, MPFR_RNDN);
      double lo = mpfr_get_d (q, MPFR_RNDD), hi = mpfr_get_d (q, MPFR_RNDU);
      if (isfinite (lo) && isfinite (hi))
        *ln = (cn__relax_line) { .kl = 1, .bl = lo, .ku = 1, .bu = hi };
    }
  mpfr_clears (q, a, b, (mpfr_ptr) 0);
  return CN_OK;
}

static cn_status
scale_crown (const cn_crown_step *st, cn_error *err)
{
  return cn__crown_box_lines (st, "scale", NULL, scale_line, err);
}
/* fmod and remainder: mod_line's lines where the divisor is a constant and the box one cell, the
 * node's IBP box elsewhere (each side with no line takes it); at words the node's own box. */
static cn_status
mod_crown (const cn_crown_step *st, cn_error *err)
{
  if (cn__word_view (st->nv) || st->lam_in[0] == NULL || st->lam_in[1] != NULL)
    return cn__crown_own_box (st, err);
  return cn__crown_box_lines (st, cn_op_name (st->nv->op), ew_ibp, mod_line, err);
}

static cn_status
copysign_crown (const cn_crown_step *st, cn_error *err)
{
  if (st->lam_in[0] == NULL)
    return cn__crown_own_box (st, err);
  return cn__crown_box_lines (st, "copysign", NULL, copysign_line, err);
}
static cn_status
identity_crown (const cn_crown_step *st, cn_error *err)
{
  return cn__crown_box_lines (st, "nanToNum", NULL, identity_line, err);
}
static cn_status
full_like_crown (const cn_crown_step *st, cn_error *err)
{
  return cn__crown_box_lines (st, "fullLike", NULL, full_like_line, err);
}
static cn_status
abs_crown (const cn_crown_step *st, cn_error *err)
{
  return cn__crown_box_lines (st, "abs", NULL, abs_line, err);
}

/* abs's alpha-CROWN parameter: the lower slope of an entry across 0, valid in [-1, 1]; the others
 * keep 0.  INIT: the slope abs_crown takes under SLOPE. */
static void
abs_alpha (const cn_node_view *nv, const cn_box *in, int slope, int init, double *theta)
{
  (void) nv;
  for (int64_t j = 0; j < in->n; j++)
    {
      double l = in->lo[j], u = in->hi[j];
      if (!(l < 0 && u > 0))
        theta[j] = 0;
      else if (init || isnan (theta[j]))
        theta[j] = abs_slope (l, u, slope);
      else
        theta[j] = theta[j] < -1 ? -1 : theta[j] > 1 ? 1 : theta[j];
    }
}

/* ---- the rules ---------------------------------------------------------------------------- */

static const struct ew_impl abs_impl = { f_abs, g_abs, d_abs, k_abs, CN__WOP_NONE, 0, NULL };
static const struct ew_impl sqrt_impl = { f_sqrt, g_sqrt, d_sqrt, k_sqrt, CN__WOP_NONE, 0, &relax_sqrt };
static const struct ew_impl rsqrt_impl = { f_rsqrt, g_rsqrt, d_rsqrt, k_rsqrt, CN__WOP_NONE, 0, &relax_rsqrt };
static const struct ew_impl cbrt_impl = { f_cbrt, g_cbrt, d_cbrt, k_cbrt, CN__WOP_NONE, 0, &relax_cbrt };
static const struct ew_impl reciprocal_impl = { f_recip, g_recip, d_recip, k_recip, CN__WOP_NONE, 0, &relax_recip };
static const struct ew_impl square_impl = { f_square, g_square, d_square, k_square, CN__WOP_NONE, 0,
                                             &relax_square };
static const struct ew_impl pow_impl = { f_pow, g_pow, d_pow, k_pow, CN__WOP_POW, 0, NULL };
static const struct ew_impl scale_impl = { f_scale, g_scale, d_scale, k_scale, CN__WOP_NONE, 0, NULL };
static const struct ew_impl fmod_impl = { f_fmod, g_fmod, d_fmod, k_fmod, CN__WOP_NONE, 0, NULL };
static const struct ew_impl remainder_impl = { f_remainder, g_remainder, d_fmod, k_remainder, CN__WOP_REM, 0, NULL };
static const struct ew_impl hypot_impl = { f_hypot, g_hypot, d_hypot, k_hypot, CN__WOP_NONE, 0, NULL };
static const struct ew_impl copysign_impl = { f_copysign, g_copysign, d_copysign, k_copysign, CN__WOP_NONE, 0, NULL };
static const struct ew_impl nextafter_impl = { f_nextafter, g_nextafter, NULL, k_nextafter, CN__WOP_NONE, 0, NULL };
static const struct ew_impl lerp_impl = { f_lerp, g_lerp, d_lerp, k_lerp, CN__WOP_NONE, 0, NULL };
static const struct ew_impl addcmul_impl = { f_addcmul, g_addcmul, d_addcmul, k_addcmul, CN__WOP_NONE, 0, NULL };
static const struct ew_impl addcdiv_impl = { f_addcdiv, g_addcdiv, d_addcdiv, k_addcdiv, CN__WOP_NONE, 0, NULL };
static const struct ew_impl nan_to_num_impl = { f_nan_to_num, g_nan_to_num, d_nan_to_num, k_nan_to_num,
                                                CN__WOP_NONE, 0, NULL };
static const struct ew_impl full_like_impl = { f_full_like, g_full_like, NULL, k_full_like, CN__WOP_NONE, 0, NULL };
static const struct ew_impl safe_div_impl = { f_safe_div, g_safe_div, d_safe_div, k_safe_div, CN__WOP_NONE, 0, NULL };
static const struct ew_impl safe_inv_impl = { f_safe_inv, g_safe_inv, d_safe_inv, k_safe_inv, CN__WOP_NONE, 0,
                                               &relax_sinv };
static const struct ew_impl safe_log_impl = { f_safe_log, g_safe_log, d_safe_log, k_safe_log, CN__WOP_NONE, 1,
                                               &relax_slog };
static const struct ew_impl smooth_abs_impl = { f_smooth_abs, g_smooth_abs, d_smooth_abs, k_smooth_abs,
                                                CN__WOP_NONE, 1, &relax_smabs };

static const cn_port_kind element2[2] = { CN_PORT_ELEMENT, CN_PORT_ELEMENT };
static const cn_port_kind frozen2[2] = { CN_PORT_FROZEN, CN_PORT_FROZEN };

/* The rule of the operator ID whose data is IMPL: K inputs at the ports KINDS (NULL: value
 * ports), its attributes (if any) checked by CHECK, the shared arms. */
#define EW_RULE(ID, IMPL, K, KINDS, CHECK, ...)                                                      \
  const struct cn_op_rule cn__rule_##ID = {                                                            \
    .op = CN_OP_##ID, .impl = &IMPL, .n_in = K, .in_kind = KINDS,                                   \
    .check = CHECK, .forward = ew_forward, .pullback = ew_pullback, .jvp = ew_jvp, .ibp = ew_ibp,      \
    .ibp_mpfi = ew_mpfi,                                                                               \
    .certs = CN__CERTS (__VA_ARGS__),                                                                  \
  }

/* EW_RULE with the CROWN arm ARM (flags FLAGS) and the alpha-CROWN hook ALPHA (or NULL). */
#define EW_RULE_CROWN(ID, IMPL, K, CHECK, FLAGS, ARM, ALPHA, ...)                                         \
  const struct cn_op_rule cn__rule_##ID = {                                                            \
    .op = CN_OP_##ID, .impl = &IMPL, .n_in = K, .flags = FLAGS,                                        \
    .check = CHECK, .forward = ew_forward, .pullback = ew_pullback, .jvp = ew_jvp, .ibp = ew_ibp,      \
    .ibp_mpfi = ew_mpfi, .crown = ARM, .alpha = ALPHA,                                                 \
    .certs = CN__CERTS (__VA_ARGS__),                                                                  \
  }
/* EW_RULE_CROWN with a binary32 evaluation: the ROUNDOFF32 hook (its record among the records). */
#define EW_RULE_CROWN32(ID, IMPL, K, CHECK, FLAGS, ARM, ALPHA, ROUNDOFF32, ...)                           \
  const struct cn_op_rule cn__rule_##ID = {                                                            \
    .op = CN_OP_##ID, .impl = &IMPL, .n_in = K, .flags = FLAGS,                                        \
    .check = CHECK, .forward = ew_forward, .pullback = ew_pullback, .jvp = ew_jvp, .ibp = ew_ibp,      \
    .ibp_mpfi = ew_mpfi, .crown = ARM, .alpha = ALPHA, .roundoff32 = ROUNDOFF32,                       \
    .certs = CN__CERTS (__VA_ARGS__),                                                                  \
  }
#define KIT_FLAGS (CN_RULE_NEEDS_BOUNDS | CN_RULE_SMOOTH_BOUNDS)

/* scale in binary32: y = fl32(factor x), one rounding, when the factor is a binary32 word (the
 * deployed network stores it so; another factor is another network, refused). */
static cn_status
scale_roundoff32 (const cn_node_view *nv, const cn_box *const *in, const cn_box *out, double *e, cn_error *err)
{
  const cn_params_scale *p = nv->params;
  if (!cn__is_b32 (p->factor))
    return cn_error_set (err, CN_EUNSUPPORTED, "scale: the factor %.17g is no binary32 word (node '%s')", p->factor,
                         cn__node_name (nv));
  return cn__roundoff32_rounded (nv, in, out, e, err);
}

/* pow and remainder: two element ports (the model's scalar, or one integer sort); pow's CROWN
 * arm relaxes x^e for a constant exponent, with the kit's tangent parameters (ALPHA). */
#define EW_ELEMENT_RULE(ID, IMPL, FLAGS, ARM, ALPHA, ...)                                                   \
  const struct cn_op_rule cn__rule_##ID = {                                                            \
    .op = CN_OP_##ID, .impl = &IMPL, .n_in = 2, .in_kind = element2, .out_sort = cn__arith_out_sort,   \
    .check = ew_check, .sorts = "f64, f32, words", .flags = FLAGS,                                     \
    .forward = ew_forward, .pullback = ew_pullback, .jvp = ew_jvp, .ibp = ew_ibp, .ibp_mpfi = ew_mpfi,  \
    .crown = ARM, .alpha = ALPHA,                                                                      \
    .certs = CN__CERTS (__VA_ARGS__),                                                                  \
  }

EW_RULE_CROWN32 (ABS, abs_impl, 1, ew_check, CN_RULE_NEEDS_BOUNDS, abs_crown, abs_alpha, cn__roundoff32_exact,
                 CN__CERT_GRADIENT, CN__CERT_BOUNDS, CN__CERT_ROUNDOFF32 (CN__ROUNDOFF32_EXACT_WHY));
EW_RULE_CROWN32 (SQRT, sqrt_impl, 1, sqrt_check, KIT_FLAGS, ew_kit_crown, cn__relax_alpha, cn__roundoff32_rounded,
                 CN__CERT_GRADIENT, CN__CERT_BOUNDS,
                 CN__CERT_ROUNDOFF32 ("IEEE square root is correctly rounded (clampNegative's clamp is exact): "
                                      CN__ROUNDOFF32_ROUNDED_WHY));
EW_RULE_CROWN (RSQRT, rsqrt_impl, 1, ew_check, KIT_FLAGS, ew_kit_crown, cn__relax_alpha,
               CN__CERT_GRADIENT, CN__CERT_BOUNDS);
EW_RULE_CROWN (CBRT, cbrt_impl, 1, ew_check, KIT_FLAGS, ew_kit_crown, cn__relax_alpha,
               CN__CERT_GRADIENT, CN__CERT_BOUNDS);
EW_RULE_CROWN32 (RECIPROCAL, reciprocal_impl, 1, ew_check, KIT_FLAGS, ew_kit_crown, cn__relax_alpha,
                 cn__roundoff32_rounded, CN__CERT_GRADIENT, CN__CERT_BOUNDS,
                 CN__CERT_ROUNDOFF32 ("1/x is one correctly rounded division: " CN__ROUNDOFF32_ROUNDED_WHY));
EW_RULE_CROWN32 (SQUARE, square_impl, 1, ew_check, KIT_FLAGS, ew_kit_crown, cn__relax_alpha, cn__roundoff32_rounded,
                 CN__CERT_GRADIENT, CN__CERT_BOUNDS,
                 CN__CERT_ROUNDOFF32 ("x x is one correctly rounded product: " CN__ROUNDOFF32_ROUNDED_WHY));
EW_ELEMENT_RULE (POW, pow_impl, KIT_FLAGS, pow_crown, cn__relax_alpha, CN__CERT_GRADIENT, CN__CERT_BOUNDS);
EW_RULE_CROWN32 (SCALE, scale_impl, 1, scale_check, 0, scale_crown, NULL, scale_roundoff32, CN__CERT_GRADIENT,
                 CN__CERT_BOUNDS,
                 CN__CERT_ROUNDOFF32 ("with a binary32 factor, one correctly rounded product: "
                                      CN__ROUNDOFF32_ROUNDED_WHY));
EW_RULE_CROWN (FMOD, fmod_impl, 2, ew_check, CN_RULE_NEEDS_BOUNDS, mod_crown, NULL, CN__CERT_GRADIENT, CN__CERT_BOUNDS);
EW_ELEMENT_RULE (REMAINDER, remainder_impl, CN_RULE_NEEDS_BOUNDS, mod_crown, NULL, CN__CERT_GRADIENT, CN__CERT_BOUNDS);
EW_RULE_CROWN (HYPOT, hypot_impl, 2, ew_check, CN_RULE_NEEDS_BOUNDS, hypot_crown, NULL,
               CN__CERT_GRADIENT, CN__CERT_BOUNDS);
EW_RULE_CROWN (COPYSIGN, copysign_impl, 2, ew_check, CN_RULE_NEEDS_BOUNDS, copysign_crown, NULL,
               CN__CERT_GRADIENT, CN__CERT_BOUNDS);
EW_RULE (NEXTAFTER, nextafter_impl, 2, frozen2, ew_check, CN__CERT_IBP);
EW_RULE_CROWN (LERP, lerp_impl, 3, ew_check, CN_RULE_NEEDS_BOUNDS, lerp_crown, NULL,
               CN__CERT_GRADIENT, CN__CERT_BOUNDS);
EW_RULE_CROWN (ADDCMUL, addcmul_impl, 3, addc_check, CN_RULE_NEEDS_BOUNDS, addcmul_crown, NULL,
               CN__CERT_GRADIENT, CN__CERT_BOUNDS);
EW_RULE_CROWN (ADDCDIV, addcdiv_impl, 3, addc_check, CN_RULE_NEEDS_BOUNDS, addcdiv_crown, NULL,
               CN__CERT_GRADIENT, CN__CERT_BOUNDS);
EW_RULE_CROWN (NAN_TO_NUM, nan_to_num_impl, 1, ew_check, 0, identity_crown, NULL, CN__CERT_GRADIENT, CN__CERT_BOUNDS);
EW_RULE_CROWN (FULL_LIKE, full_like_impl, 1, ew_check, 0, full_like_crown, NULL, CN__CERT_GRADIENT, CN__CERT_BOUNDS);
EW_RULE_CROWN (SAFE_DIV, safe_div_impl, 2, eps_check, CN_RULE_NEEDS_BOUNDS, safe_div_crown, NULL,
               CN__CERT_GRADIENT, CN__CERT_BOUNDS);
EW_RULE_CROWN (SAFE_INV, safe_inv_impl, 1, eps_check, KIT_FLAGS, ew_kit_crown, cn__relax_alpha,
               CN__CERT_GRADIENT, CN__CERT_BOUNDS);
EW_RULE_CROWN (SAFE_LOG, safe_log_impl, 1, eps_check, KIT_FLAGS, ew_kit_crown, NULL,
               CN__CERT_GRADIENT, CN__CERT_BOUNDS);
EW_RULE_CROWN (SMOOTH_ABS, smooth_abs_impl, 1, eps_check, KIT_FLAGS, ew_kit_crown, cn__relax_alpha,
               CN__CERT_GRADIENT, CN__CERT_BOUNDS);
