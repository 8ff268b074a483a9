/* SPDX-License-Identifier: MIT */
/* src/sound/sound.h: the sound floating-point kernels of ALGORITHMS.md section 6 (internal).
 *
 * Everything here computes in round-to-nearest (the default environment; no fesetround) and
 * turns the result into a rigorous bound by charging its rounding error:
 *
 *   u = 2^-53 (unit roundoff), eta = 2^-1074 (smallest subnormal).
 *   up(c)   := fl(c + fl(fl(2u*|c|) + eta))  satisfies  x <= up(c) for every real x with
 *              fl(x) = c (Rump, Zimmermann, Boldo, Melquiond 2009), for normal, subnormal and
 *              zero c; down(c) := -up(-c).
 *   (G) for a dot product of length k computed in any order,
 *              |fl(a.b) - a.b| <= gamma_k |a|.|b| + k*eta,  gamma_k = k u/(1 - k u).
 *   (N) for a, b >= 0:  a.b <= kappa_k (fl(a.b) + k*eta),  kappa_k = 1/(1 - gamma_k).
 *
 * The translation units are compiled with -ffp-contract=off: a fused multiply-add would not
 * invalidate (G) but would change which roundings the proofs of up() count. */
#ifndef CN_SOUND_SOUND_H
#define CN_SOUND_SOUND_H

#include <float.h>
#include <math.h>
#include <stdint.h>
#include "certnn/status.h"

#define CN_U 0x1p-53
#define CN_ETA 0x1p-1074

/* Smallest double >= the real number whose round-to-nearest value is C.  For c = +inf the
 * result is +inf; for c = -inf (a round-to-nearest overflow: the exact value lies below
 * -DBL_MAX) it is -DBL_MAX, which -inf + inf would have made a NaN; NaN stays NaN. */
static inline double
cn__up (double c)
{
  double r = c + (2 * CN_U * fabs (c) + CN_ETA);
  return r == r || c != -INFINITY ? r : -DBL_MAX;
}

/* Largest-enough lower counterpart of cn__up. */
static inline double
cn__down (double c)
{
  return -cn__up (-c);
}

/* Upper bounds of the sum and product of two reals given as doubles (exact inputs). */
static inline double cn__add_up (double a, double b) { return cn__up (a + b); }
static inline double cn__add_down (double a, double b) { return cn__down (a + b); }
static inline double cn__mul_up (double a, double b) { return cn__up (a * b); }
static inline double cn__mul_down (double a, double b) { return cn__down (a * b); }
/* Quotient bounds (b != 0). */
static inline double cn__div_up (double a, double b) { return cn__up (a / b); }
static inline double cn__div_down (double a, double b) { return cn__down (a / b); }

/* The midpoint *C = fl(l/2 + u/2) of [l, u] (finite) and a radius r >= max(c - l, u - c), so that
 * |z - c| <= r for every real z of [l, u] (the Taylor and tangent arguments of the relaxations). */
static inline double
cn__centre_radius (double l, double u, double *c)
{
  *c = l / 2 + u / 2;
  return cn__up (*c - l > u - *c ? cn__up (*c - l) : cn__up (u - *c));
}

/* gamma^_k >= k u/(1 - k u), for 1 <= k with k u < 1/2 (else +inf). */
double cn__gamma (int64_t k);
/* kappa^_k >= 1/(1 - gamma_k). */
double cn__kappa (int64_t k);

/* Upper bound of the exact dot product a.b of nonnegative vectors: kappa_k (fl(a.b) + k eta). */
double cn__dot_nonneg_up (int64_t k, const double *a, const double *b);

/* Rigorous bounds of the exact dot product sum_j a_j b_j (a, b exact doubles):
 * *lo <= a.b <= *hi.  Uses one RN dot product and its (G) error from sum |a_j||b_j|. */
void cn__dot_bounds (int64_t k, const double *a, const double *b, double *lo, double *hi);

/* Lower bound of min over the box [xl, xu] of lam . x, exactly:
 * sum_j (lam_j >= 0 ? lam_j xl_j : lam_j xu_j), computed in RN with its (G) error.
 * -inf if some needed end is infinite with a nonzero coefficient. */
double cn__box_min_dot (int64_t k, const double *lam, const double *xl, const double *xu);

/* Upper bound of the rounding error of a dot product of length K computed in round-to-nearest
 * in any order, given T = fl(sum |a_j||b_j|) computed in any order:
 *     |fl(a.b) - a.b| <= gamma_k kappa_k (T + k eta) + k eta  <=  cn__dot_err (T, k).
 * So  cn__down (s - cn__dot_err (t, k)) <= a.b <= cn__up (s + cn__dot_err (t, k)). */
double cn__dot_err (double t, int64_t k);

/* Upper bound of max over the box of lam . x (the mirror of cn__box_min_dot); +inf if an
 * infinite end is needed. */
double cn__box_max_dot (int64_t k, const double *lam, const double *xl, const double *xu);

/* Upper bound of min over the box of lam . x (the exact minimum lies in
 * [cn__box_min_dot, cn__box_min_dot_up]); +inf if an infinite end is needed. */
double cn__box_min_dot_up (int64_t k, const double *lam, const double *xl, const double *xu);

/* Shrinks the box [LO, HI] (N entries, finite) to one that still holds every x of it with
 * a . x <= U (exact reals): each end moves by the most the halfspace allows with every other
 * entry at its best corner, rounded outward (a box that meets the halfspace is never emptied).
 * Returns 1 when no x of the box meets a . x <= U (the box is then left as it was), else 0. */
int cn__box_clip_halfspace (int64_t n, const double *a, double u, double *lo, double *hi);

/* An upper bound of x summed with y, both upper bounds of nonnegative reals. */
static inline double
cn__acc_up (double x, double y)
{
  return cn__up (x + y);
}

/* CN_EUNSOUND unless every entry is finite; WHAT names the array in the message. */
cn_status cn__check_finite (int64_t n, const double *x, const char *what, cn_error *err);

/* ---- selection sums of interval products (IBP of linear, matmul, conv) ------------------- */

/* a*b with 0 times anything (an infinity included) equal to 0, the interval convention. */
static inline double
cn__mul0 (double a, double b)
{
  return (a == 0 || b == 0) ? 0 : a * b;
}

/* Adds the term [al,ah] * [bl,bh] to the running selection sums: SL (TL) the RN sum of the lower
 * corner products (of their magnitudes), SH (TH) the same for the upper corner products.  Each
 * chosen value is the RN rounding of the exact extreme corner product (RN is monotone), so after
 * K terms the exact lower sum is >= cn__sum_lo (SL, TL, K) and the upper <= cn__sum_hi. */
static inline void
cn__itv_term (double al, double ah, double bl, double bh, double *sl, double *tl, double *sh, double *th)
{
  double pl, ph;
  if (al == ah)
    {
      if (al == 0)
        return;
      pl = al > 0 ? al * bl : al * bh;
      ph = al > 0 ? al * bh : al * bl;
    }
  else if (bl == bh)
    {
      if (bl == 0)
        return;
      pl = bl > 0 ? bl * al : bl * ah;
      ph = bl > 0 ? bl * ah : bl * al;
    }
  else
    {
      double p1 = cn__mul0 (al, bl), p2 = cn__mul0 (al, bh), p3 = cn__mul0 (ah, bl), p4 = cn__mul0 (ah, bh);
      pl = fmin (fmin (p1, p2), fmin (p3, p4));
      ph = fmax (fmax (p1, p2), fmax (p3, p4));
    }
  *sl += pl;
  *tl += fabs (pl);
  *sh += ph;
  *th += fabs (ph);
}

/* The sound ends of a selection sum of K terms: by (G) the exact lower sum is >= s - err
 * (-inf, +inf when the sums are not finite). */
static inline double
cn__sum_lo (double s, double t, int64_t k)
{
  double r = cn__down (s - cn__dot_err (t, k));
  return isnan (r) ? -INFINITY : r;
}

static inline double
cn__sum_hi (double s, double t, int64_t k)
{
  double r = cn__up (s + cn__dot_err (t, k));
  return isnan (r) ? INFINITY : r;
}

/* The selection sums of sum_j w_j [xl_j, xu_j] for EXACT weights w and a FINITE box, branch-free:
 * for w_j >= 0, fl(w_j xl_j) <= fl(w_j xu_j) (RN is monotone), and the reverse for w_j < 0, so
 * the smaller of the two rounded products is the rounding of the exact lower corner product,
 * as in cn__itv_term.  Adds to SL, TL, SH, TH as cn__itv_term does for K terms. */
static inline void
cn__point_terms (int64_t k, const double *w, const double *xl, const double *xu, double *sl, double *tl, double *sh,
                 double *th)
{
  /* Four independent partial sums of each kind (the (G) bound holds for any summation order). */
  double a[4] = { 0, 0, 0, 0 }, b[4] = { 0, 0, 0, 0 }, c[4] = { 0, 0, 0, 0 }, d[4] = { 0, 0, 0, 0 };
  int64_t j = 0;
  for (; j + 4 <= k; j += 4)
    for (int q = 0; q < 4; q++)
      {
        double p = w[j + q] * xl[j + q], r = w[j + q] * xu[j + q];
        double lo = p < r ? p : r, hi = p < r ? r : p;
        a[q] += lo;
        b[q] += fabs (lo);
        c[q] += hi;
        d[q] += fabs (hi);
      }
  for (; j < k; j++)
    {
      double p = w[j] * xl[j], r = w[j] * xu[j];
      double lo = p < r ? p : r, hi = p < r ? r : p;
      a[0] += lo;
      b[0] += fabs (lo);
      c[0] += hi;
      d[0] += fabs (hi);
    }
  *sl += (a[0] + a[1]) + (a[2] + a[3]);
  *tl += (b[0] + b[1]) + (b[2] + b[3]);
  *sh += (c[0] + c[1]) + (c[2] + c[3]);
  *th += (d[0] + d[1]) + (d[2] + d[3]);
}

/* ---- binary32 evaluation (the binary32 semantics, ALGORITHMS.md 6; certnn/bounds.h) ------
 *
 * The network as deployed computes in binary32: u32 = 2^-24, eta32 = 2^-150 (half the least
 * binary32 subnormal), round to nearest, gradual underflow.  One operation on binary32 words
 * whose exact result z lies below 2^128 (1 - 2^-25) in magnitude (else it rounds to an infinity):
 *     fl32(z) = z (1 + d) + e,   |d| <= u32,  |e| <= eta32,   d e = 0          (M32)
 * (e = 0 for a sum: a subnormal sum is exact), and the same for a fused multiply-add, which
 * rounds once.  A sum of K terms (products of two words, or words), computed in binary32 in any
 * order (any parenthesisation, blocked, pairwise, with or without fused multiply-adds): every
 * term passes through at most K roundings, each of its factors (1 + d) with |d| <= u32, and
 * each underflow error through at most K - 1 of them, so
 *     |fl32(s) - s| <= gamma32_K T + 2 K eta32,   T >= sum |terms|,
 *     gamma32_K = K u32/(1 - K u32)                                              (G32)
 * (Higham 2002, 3.1; (1 + gamma32_K) <= 2 bounds the underflow terms' growth while K u32 <= 1/2).
 * No partial result exceeds (1 + gamma32_K) T + 2 K eta32 in magnitude, so none overflows when
 * that is at most FLT_MAX. */
#define CN_U32 0x1p-24
#define CN_ETA32 0x1p-150

/* An upper bound of |fl32(s) - s| by (G32) for a sum of K terms whose magnitudes sum to at most
 * T_UP (an upper bound of the exact sum of magnitudes); +inf when an overflow is possible, when
 * K u32 >= 1/2, or when T_UP is not finite. */
double cn__b32_sum_err (double t_up, int64_t k);

/* An upper bound of |fl32(v) - s/D| for an average: the sum s of K terms (magnitudes summing to at
 * most T_UP) computed in binary32 in any order (G32), then divided by D (1 <= D <= 2^24, a binary32
 * word) in one of the two ways runtimes do it, a correctly rounded division or a product with the
 * rounded reciprocal fl32(1/D):
 *     |fl32(s~ r~) - s/D| <= E_s/D + (2 u32 + u32^2)(T + E_s)/D + 2 eta32,
 * E_s the sum's bound, r~ = (1/D)(1 + d), |d| <= u32 (1/D >= 2^-24 is normal).  +inf when D is
 * out of range or the sum may overflow. */
double cn__b32_mean_err (double t_up, int64_t k, int64_t d);

/* An upper bound of |fl32(z) - z| by (M32) for one correctly rounded operation whose exact result
 * z has |z| <= ZMAX; +inf when it may overflow (or ZMAX is not finite). */
double cn__b32_one_err (double zmax);

/* Whether the double X is a binary32 word (a float holds it exactly; infinities included). */
static inline int
cn__is_b32 (double x)
{
  return (double) (float) x == x || x != x;
}

/* Whether every end of the box [lo, hi] (N entries) is finite. */
static inline int
cn__finite_box (int64_t n, const double *lo, const double *hi)
{
  for (int64_t j = 0; j < n; j++)
    if (!isfinite (lo[j]) || !isfinite (hi[j]))
      return 0;
  return 1;
}

/* An upper bound of a nonnegative dot product given its RN value T over K terms, by (N). */
static inline double
cn__nonneg_up (double t, int64_t k)
{
  double r = cn__up (cn__kappa (k) * cn__up (t + (double) k * CN_ETA));
  return isnan (r) ? INFINITY : r;
}

#endif
