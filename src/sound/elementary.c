/* SPDX-License-Identifier: MIT */
/* src/sound/elementary.c: sound binary64 enclosures of exp, expm1, log1p, sigmoid, tanh, their
 * derivatives and softplus (see elementary.h), ALGORITHMS.md 6.
 *
 * Error model: round-to-nearest, u = 2^-53, eta = 2^-1074; cn__up / cn__down (sound.h) turn a
 * round-to-nearest result c into a bound of every real whose rounding is c (subnormal results
 * included).  Nothing here calls libm's transcendental functions: each enclosure is a polynomial
 * with a proven bound of its evaluation and truncation errors (Higham, Accuracy and Stability of
 * Numerical Algorithms, 2nd ed., eq. 5.3: Horner's rule on a degree-n polynomial returns
 * sum_i (1 + theta_{2i+1}) a_i x^i with |theta_k| <= gamma_k = k u / (1 - k u); so
 *     |Horner(x) - p(x)| <= sum_i gamma_{2i+1} |a_i| |x|^i                              (H)
 * with gamma_{2i+1} <= 1.0000001 (2i+1) u for the degrees here).  The constants (the split of
 * ln 2, 1/ln 2, the coefficients) are checked against MPFR by tests/check_core.c.
 *
 * exp.  k = RN(RN(x / ln 2)) (x * INV_LN2), an integer with |k| <= 1076 on |x| <= 745.2, and
 *   |x / ln 2 - k| <= 1/2 + 2e-13, so the reduced argument rho = x - k ln 2 has |rho| < 0.3466.
 *   ln 2 = LN2_HI + LN2_LO + d with |d| <= 2^-86 and LN2_HI of 32 significant bits, so
 *   t = k LN2_HI is exact.  TwoSum gives x - t = s + e1 exactly.  q = RN(k LN2_LO),
 *   c = RN(e1 - q), r = RN(s + c): |rho - r| <= u|r| + u|c| + u|q| + |k| 2^-86 <= 0.3502 u
 *   (|r| <= 0.3466, |c| <= |e1| + |q| (1 + u) <= 0.35 u + 2.06e-7).  Hence |r| < 0.3466 and
 *   exp(rho) = exp(r) (1 + e0), |e0| <= 0.3503 u.
 *   p(r) = sum_{i=0}^{13} c_i r^i, c_i = RN(1/i!) (c_0, c_1, c_2 exact).  Truncation (Lagrange):
 *   |exp(r) - sum_{i<=13} r^i/i!| <= |r|^14/14! e^|r| <= 5.9e-18; coefficients:
 *   sum_{i>=3} u |r|^i/i! <= 0.0077 u; Horner (H): u e^|r| (1 + 2|r|) 1.0000002 <= 2.395 u.
 *   Divided by exp(r) >= e^-0.3466 = 0.7071: the computed P = exp(r) (1 + e1'),
 *   |e1'| <= 3.387 u + 0.011 u + 0.075 u = 3.473 u, and P = exp(rho)(1 + e), |e| <= 3.83 u.
 *   So exp(rho) lies in [P (1 - 3.84 u), P (1 + 3.84 u)]; the code widens by 6 u (the products by
 *   6 u are one rounding each, their errors and the sums' covered by cn__down / cn__up), then
 *   scales by 2^k: exact where the result is normal; a subnormal result is within eta/2 of the
 *   exact product and is widened by eta.  709.78 < x < 709.79 (exp near DBL_MAX): [exp's lower
 *   end at 709.78, +inf]; x >= 709.79 (exp(709.79) > DBL_MAX): [DBL_MAX, +inf]; x < -745.2
 *   (exp(x) < 2^-1075): [0, eta]; x = 0: [1, 1].
 * expm1.  |x| <= 0.3466: expm1(x) = x Q(x), Q(x) = sum_{i>=0} x^i/(i+1)!, evaluated to degree 13
 *   (coefficients RN(1/(i+1)!), the first two exact).  Q(x) >= (1 - e^-0.3466)/0.3466 = 0.845;
 *   truncation <= |x|^14/15! e^|x| <= 4e-19; coefficients <= 0.022 u; Horner (H):
 *   u sum (2i+1) |x|^i/(i+1)! <= 1.634 u.  So Q's computed value has relative error <= 1.96 u,
 *   and RN(x Q) relative error <= 2.97 u (an underflowing product: plus eta/2, in cn__down's and
 *   cn__up's eta); the code widens by 8 u.  Elsewhere expm1 = exp - 1 from exp's enclosure
 *   (rounded outward), clamped to expm1 > -1.
 * log1p on [0, 1].  log(1 + y) = 2 atanh(s) = 2 s T(s^2), s = y/(2 + y) in [0, 1/3],
 *   T(w) = sum_{i>=0} w^i/(2i+1), increasing in s >= 0.  s is enclosed by
 *   [down(y / up(2 + y)), up(y / down(2 + y))], w by the squares of its ends rounded outward
 *   (w <= 1/9 (1 + 8u)).  T to degree 16: truncation <= w^17/35/(1 - w) <= 2e-18; coefficients
 *   <= u (T - 1) <= 0.04 u; Horner (H) with nonnegative terms: u 1.0000001 sum w^i <= 1.126 u;
 *   T >= 1, so the computed T has relative error <= 1.19 u; the code widens by 4 u, then
 *   2 s T rounds outward.
 * sigmoid, tanh, softplus and the derivatives compose these by monotonicity, every operation
 * rounded outward (the formulas at each function).  Clamps to the functions' ranges (sigmoid in
 * [0, 1], tanh in [-1, 1], ...) only ever move an end towards the exact value. */
#include <config.h>
#include <math.h>
#include "sound/sound.h"
#include "sound/elementary.h"

#define LN2_HI 0x1.62e42fee00000p-1     /* 32 significant bits */
#define LN2_LO 0x1.a39ef35793c76p-33    /* |ln 2 - LN2_HI - LN2_LO| <= 2^-86 */
#define INV_LN2 0x1.71547652b82fep+0
#define EXP_XMAX 709.78                 /* < ln(DBL_MAX) = 709.7827 */
#define EXP_XMIN (-745.2)               /* exp(-745.2) < 2^-1075 */
#define RED_MAX 0.3466                  /* |r| < RED_MAX after the reduction */

/* c_i = RN(1/i!), i = 0..13 (the divisions are folded by the compiler, correctly rounded; the
 * factorials are exact doubles) */
static const double exp_c[14] = { 1.0, 1.0, 1.0 / 2, 1.0 / 6, 1.0 / 24, 1.0 / 120, 1.0 / 720, 1.0 / 5040,
                                  1.0 / 40320, 1.0 / 362880, 1.0 / 3628800, 1.0 / 39916800, 1.0 / 479001600,
                                  1.0 / 6227020800.0 };
/* RN(1/(i+1)!), i = 0..13: the series of expm1(x)/x */
static const double expm1_c[14] = { 1.0, 1.0 / 2, 1.0 / 6, 1.0 / 24, 1.0 / 120, 1.0 / 720, 1.0 / 5040,
                                    1.0 / 40320, 1.0 / 362880, 1.0 / 3628800, 1.0 / 39916800, 1.0 / 479001600,
                                    1.0 / 6227020800.0, 1.0 / 87178291200.0 };

/* The constants, for tests/check_core.c. */
const double cn__elem_ln2_hi = LN2_HI, cn__elem_ln2_lo = LN2_LO, cn__elem_inv_ln2 = INV_LN2;
const double *const cn__elem_exp_c = exp_c, *const cn__elem_expm1_c = expm1_c;

static double
horner (const double *c, int n, double x)
{
  double y = c[n - 1];
  for (int i = n - 2; i >= 0; i--)
    y = y * x + c[i];
  return y;
}

/* The reduction of exp: x = k ln 2 + rho, |rho - r| <= 0.3502 u, |r| < RED_MAX (|x| <= 745.2). */
static double
exp_reduce (double x, int *k)
{
  double kd = nearbyint (x * INV_LN2);
  double t = kd * LN2_HI;                       /* exact */
  double s = x - t, bb = s - x;
  double e1 = (x - (s - bb)) + (-t - bb);       /* TwoSum: x - t = s + e1 exactly */
  double q = kd * LN2_LO;
  double c = e1 - q;
  *k = (int) kd;
  return s + c;
}

/* [lo, hi] * 2^k for 0 <= lo <= hi (an enclosure of m rescaled): exact where normal; a subnormal
 * result is within eta/2 of the exact one, so it is widened by eta. */
static void
scale2 (double lo, double hi, int k, double *rlo, double *rhi)
{
  double a = ldexp (lo, k), b = ldexp (hi, k);
  if (k < -1020)
    {
      a = fmax (a - CN_ETA, 0);
      b = b + CN_ETA;
    }
  *rlo = a;
  *rhi = b;
}

void
cn__exp_encl (double x, double *lo, double *hi)
{
  if (isnan (x))
    {
      *lo = *hi = x;
      return;
    }
  if (x == 0)
    {
      *lo = *hi = 1;
      return;
    }
  if (x < EXP_XMIN)
    {
      *lo = 0;
      *hi = x == -INFINITY ? 0 : CN_ETA;
      return;
    }
  if (x >= 709.79)
    {
      /* exp(709.79) > DBL_MAX */
      *lo = DBL_MAX;
      *hi = INFINITY;
      return;
    }
  int over = x > EXP_XMAX;
  double xx = over ? EXP_XMAX : x;
  int k;
  double r = exp_reduce (xx, &k);
  if (!(fabs (r) < RED_MAX))
    {
      /* unreachable by the bound above; the trivial enclosure keeps this sound regardless */
      *lo = 0;
      *hi = INFINITY;
      return;
    }
  double p = horner (exp_c, 14, r);
  /* now p = exp(x - k ln 2)(1 + e), |e| <= 3.84 u */
  double w = p * (6 * CN_U);
  scale2 (cn__down (p - w), cn__up (p + w), k, lo, hi);
  if (over)
    *hi = INFINITY;
}

void
cn__expm1_encl (double x, double *lo, double *hi)
{
  if (isnan (x) || x == 0)
    {
      *lo = *hi = x;
      return;
    }
  if (fabs (x) < RED_MAX)
    {
      double q = horner (expm1_c, 14, x);
      double m = x * q;
      /* now m = expm1(x)(1 + e), |e| <= 2.97 u (plus eta/2 if it underflowed) */
      double w = fabs (m) * (8 * CN_U);
      *lo = cn__down (m - w);
      *hi = cn__up (m + w);
      return;
    }
  if (isinf (x))
    {
      *lo = *hi = x > 0 ? x : -1;
      return;
    }
  double el, eh;
  cn__exp_encl (x, &el, &eh);
  *lo = fmax (cn__down (el - 1), -1);
  *hi = cn__up (eh - 1);
}

/* 1/(2i+1), i = 0..16 */
static const double atanh_c[17] = { 1.0, 1.0 / 3, 1.0 / 5, 1.0 / 7, 1.0 / 9, 1.0 / 11, 1.0 / 13, 1.0 / 15, 1.0 / 17,
                                    1.0 / 19, 1.0 / 21, 1.0 / 23, 1.0 / 25, 1.0 / 27, 1.0 / 29, 1.0 / 31, 1.0 / 33 };
const double *const cn__elem_atanh_c = atanh_c;

void
cn__log1p_encl (double y, double *lo, double *hi)
{
  if (!(y >= 0 && y <= 1))
    {
      *lo = *hi = NAN;
      return;
    }
  if (y == 0)
    {
      *lo = *hi = 0;
      return;
    }
  double sl = fmax (cn__down (y / cn__up (2 + y)), 0), sh = cn__up (y / cn__down (2 + y));
  double wl = fmax (cn__down (sl * sl), 0), wh = cn__up (sh * sh);
  double tl = horner (atanh_c, 17, wl), th = horner (atanh_c, 17, wh);
  /* now tl = T(wl)(1 + e), th = T(wh)(1 + e'), |e|, |e'| <= 1.19 u; T is increasing */
  tl = cn__down (tl - tl * (4 * CN_U));
  th = cn__up (th + th * (4 * CN_U));
  *lo = fmax (cn__down (2 * (sl * tl)), 0);
  *hi = cn__up (2 * cn__up (sh * th));
}

/* sigmoid: x >= 0: 1/(1 + e), e = exp(-x) in [0, 1], decreasing in e; x < 0: e/(1 + e),
 * e = exp(x), increasing in e.  Ranges: [1/2, 1] and [0, 1/2]. */
void
cn__sigmoid_encl (double x, double *lo, double *hi)
{
  if (isnan (x))
    {
      *lo = *hi = x;
      return;
    }
  if (isinf (x))
    {
      *lo = *hi = x > 0 ? 1 : 0;
      return;
    }
  double el, eh;
  if (x >= 0)
    {
      cn__exp_encl (-x, &el, &eh);
      eh = fmin (eh, 1);
      *lo = fmax (cn__down (1 / cn__up (1 + eh)), 0.5);
      *hi = fmin (cn__up (1 / cn__down (1 + el)), 1);
    }
  else
    {
      cn__exp_encl (x, &el, &eh);
      eh = fmin (eh, 1);
      *lo = fmax (cn__down (el / cn__up (1 + el)), 0);
      *hi = fmin (cn__up (eh / cn__down (1 + eh)), 0.5);
    }
}

/* h(e) = e/(1 + e)^2 over the enclosure [el, eh] of e in [0, 1], where h increases. */
static void
h_encl (double el, double eh, double *lo, double *hi)
{
  el = fmax (el, 0);
  eh = fmin (eh, 1);
  double dl = cn__up (1 + el), dh = cn__down (1 + eh);
  *lo = fmax (cn__down (el / cn__up (dl * dl)), 0);
  *hi = fmin (cn__up (eh / cn__down (dh * dh)), 0.25);
}

/* e = exp(-a) for a >= 0 (a > 1000, +inf included: [0, eta], exp(-a) <= eta there). */
static void
exp_neg (double a, double *el, double *eh)
{
  cn__exp_encl (a > 1000 ? -1000.0 : -a, el, eh);
}

/* sigmoid'(x) = h(exp(-|x|)) (even) */
void
cn__dsigmoid_encl (double x, double *lo, double *hi)
{
  if (isnan (x))
    {
      *lo = *hi = x;
      return;
    }
  double el, eh;
  exp_neg (fabs (x), &el, &eh);
  h_encl (el, eh, lo, hi);
  if (isinf (x))
    *lo = *hi = 0;
}

/* tanh'(x) = 4 h(exp(-2|x|)) (the factor 4 is exact) */
void
cn__dtanh_encl (double x, double *lo, double *hi)
{
  if (isnan (x))
    {
      *lo = *hi = x;
      return;
    }
  double el, eh;
  exp_neg (2 * fabs (x), &el, &eh);   /* 2|x| = +inf for huge x: exp_neg caps it */
  h_encl (el, eh, lo, hi);
  *lo *= 4;
  *hi *= 4;
  if (isinf (x))
    *lo = *hi = 0;
}

/* tanh(a), a >= 0: a < 1/2: m/(m + 2), m = expm1(2a) >= 0, increasing in m; else (1 - e)/(1 + e),
 * e = exp(-2a) in [0, 1), decreasing in e.  Odd. */
void
cn__tanh_encl (double x, double *lo, double *hi)
{
  if (isnan (x) || x == 0)
    {
      *lo = *hi = x;
      return;
    }
  double a = fabs (x), l, h;
  if (a == INFINITY)
    l = h = 1;
  else if (a < 0.5)
    {
      double ml, mh;
      cn__expm1_encl (2 * a, &ml, &mh);
      ml = fmax (ml, 0);
      l = fmax (cn__down (ml / cn__up (ml + 2)), 0);
      h = cn__up (mh / cn__down (mh + 2));
    }
  else
    {
      double el, eh;
      exp_neg (2 * a, &el, &eh);
      eh = fmin (eh, 1);
      l = fmax (cn__down (cn__down (1 - eh) / cn__up (1 + eh)), 0);
      h = cn__up (cn__up (1 - el) / cn__down (1 + el));
    }
  h = fmin (h, 1);
  if (x > 0)
    {
      *lo = l;
      *hi = h;
    }
  else
    {
      *lo = -h;
      *hi = -l;
    }
}

/* softplus: x <= 0: log1p(e), e = exp(x) in [0, 1]; x > 0: x + log1p(e), e = exp(-x); log1p
 * increasing.  softplus(x) > max(0, x). */
void
cn__softplus_encl (double x, double *lo, double *hi)
{
  if (isnan (x))
    {
      *lo = *hi = x;
      return;
    }
  if (isinf (x))
    {
      *lo = *hi = x > 0 ? INFINITY : 0;
      return;
    }
  double el, eh, ll, lh, t;
  cn__exp_encl (x > 0 ? -x : x, &el, &eh);
  el = fmax (el, 0);
  eh = fmin (eh, 1);
  cn__log1p_encl (el, &ll, &t);
  cn__log1p_encl (eh, &t, &lh);
  if (x > 0)
    {
      *lo = fmax (cn__down (x + ll), x);
      *hi = cn__up (x + lh);
    }
  else
    {
      *lo = fmax (ll, 0);
      *hi = lh;
    }
}
