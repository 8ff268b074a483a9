/* SPDX-License-Identifier: MIT */
/* src/sound/sound.c: the sound floating-point kernels (see sound.h for the error model). */
#include <config.h>
#include <math.h>
#include "certnn/box.h"
#include "sound/sound.h"

/* gamma and kappa are asked for the same few lengths over and over (every row of every step):
 * each thread remembers its last answer. */
#if defined __GNUC__
#define CN_TLS _Thread_local __attribute__ ((tls_model ("initial-exec")))
#else
#define CN_TLS _Thread_local
#endif
static CN_TLS int64_t gamma_k = -1, kappa_k = -1;
static CN_TLS double gamma_v, kappa_v;

static double gamma_compute (int64_t k);
static double kappa_compute (int64_t k);

double
cn__gamma (int64_t k)
{
  if (k != gamma_k)
    {
      gamma_v = gamma_compute (k);
      gamma_k = k;
    }
  return gamma_v;
}

double
cn__kappa (int64_t k)
{
  if (k != kappa_k)
    {
      kappa_v = kappa_compute (k);
      kappa_k = k;
    }
  return kappa_v;
}

static double
gamma_compute (int64_t k)
{
  if (k <= 0)
    return 0;
  /* k u is exact (k < 2^53); den = fl(1 - k u) may round, down(den) <= 1 - k u, so
   * k u / down(den) >= gamma_k and up() of the RN quotient bounds it from above. */
  double ku = (double) k * CN_U;
  if (!(ku < 0.5))
    return INFINITY;
  double den = cn__down (1.0 - ku);
  return cn__up (ku / den);
}

static double
kappa_compute (int64_t k)
{
  double g = gamma_compute (k);
  if (!(g < 0.5))
    return INFINITY;
  /* 1 - g rounded down, then 1/(that) rounded up: >= 1/(1 - gamma_k). */
  return cn__up (1.0 / cn__down (1.0 - g));
}

double
cn__dot_nonneg_up (int64_t k, const double *a, const double *b)
{
  double s = 0;
  for (int64_t j = 0; j < k; j++)
    s += a[j] * b[j];
  /* now s = fl(a.b) in this order; (N) gives a.b <= kappa_k (s + k eta). */
  return cn__up (cn__kappa (k) * cn__up (s + (double) k * CN_ETA));
}

void
cn__dot_bounds (int64_t k, const double *a, const double *b, double *lo, double *hi)
{
  double s = 0, t = 0;
  for (int64_t j = 0; j < k; j++)
    {
      s += a[j] * b[j];
      t += fabs (a[j]) * fabs (b[j]);
    }
  /* now s = fl(a.b) and t = fl(|a|.|b|); by (N) |a|.|b| <= kappa_k (t + k eta), and by (G)
   * |s - a.b| <= gamma_k |a|.|b| + k eta. */
  double e = cn__dot_err (t, k);
  *lo = cn__down (s - e);
  *hi = cn__up (s + e);
}

double
cn__dot_err (double t, int64_t k)
{
  if (k <= 0)
    return 0;
  if (isnan (t))
    return INFINITY;
  double abs_up = cn__up (cn__kappa (k) * cn__up (t + (double) k * CN_ETA));
  return cn__up (cn__up (cn__gamma (k) * abs_up) + (double) k * CN_ETA);
}

/* The selection sums of the box forms: s = fl(sum_j lam_j x_j), t = fl(sum_j |lam_j x_j|) with
 * x_j = PICK_POS[j] where lam_j > 0, PICK_NEG[j] where lam_j < 0, and lam_j = 0 adding nothing
 * (even at an infinite end).  First branch-free over finite ends, both ends loaded and one
 * selected (0 x = 0 exactly for finite x), in SIMD partial sums (the (G) bound holds for any
 * order); where the sums are not finite (an infinite end, a NaN, an overflow) again entry by
 * entry with the zeros skipped.  Returns 0 if a nonzero lam_j meets an infinite end. */
static int
select_dot (int64_t k, const double *lam, const double *pick_pos, const double *pick_neg, double *s_out,
            double *t_out)
{
  double ss = 0, tt = 0;
  int64_t j;
#pragma omp simd reduction(+ : ss, tt)
  for (j = 0; j < k; j++)
    {
      double c = lam[j], a = pick_pos[j], b = pick_neg[j];
      double x = c > 0 ? a : b;
      double p = c * x;
      ss += p;
      tt += fabs (p);
    }
  if (!isfinite (tt))
    {
      ss = tt = 0;
      for (j = 0; j < k; j++)
        {
          double c = lam[j];
          if (c == 0)
            continue;
          double x = c > 0 ? pick_pos[j] : pick_neg[j];
          if (isinf (x))
            return 0;
          ss += c * x;
          tt += fabs (c) * fabs (x);
        }
    }
  /* now ss, tt are RN sums (in some order) of the products and their magnitudes (fl(|p|) =
   * |fl(p)|) */
  *s_out = ss;
  *t_out = tt;
  return 1;
}

double
cn__box_max_dot (int64_t k, const double *lam, const double *xl, const double *xu)
{
  double s, t;
  if (!select_dot (k, lam, xu, xl, &s, &t))
    return INFINITY;
  double r = cn__up (s + cn__dot_err (t, k));
  return isnan (r) ? INFINITY : r;
}

double
cn__box_min_dot (int64_t k, const double *lam, const double *xl, const double *xu)
{
  double s, t;
  if (!select_dot (k, lam, xl, xu, &s, &t))
    return -INFINITY;
  double r = cn__down (s - cn__dot_err (t, k));
  return isnan (r) ? -INFINITY : r;
}

double
cn__box_min_dot_up (int64_t k, const double *lam, const double *xl, const double *xu)
{
  /* the upper selection sum with the ends swapped: lam_j xl_j where lam_j > 0, lam_j xu_j
   * where lam_j < 0, rounded up */
  return cn__box_max_dot (k, lam, xu, xl);
}

/* The clip (see sound.h).  Let x* be the corner of the box minimising a.x and m = a.x* its
 * exact value, m >= md (md from one RN dot product and its (G) error).  For x of the box with
 * a.x <= u and a_i != 0: sum_{j != i} a_j x_j >= m - a_i x*_i, so
 *     a_i (x_i - x*_i) <= u - m <= g,   g = RU(u - md).
 * a_i > 0 (x*_i = lo_i): x_i <= lo_i + g/a_i; a_i < 0 (x*_i = hi_i): x_i >= hi_i - g/|a_i|;
 * each end is rounded outward.  g < 0 means no x of the box meets a.x <= u. */
int
cn__box_clip_halfspace (int64_t n, const double *a, double u, double *lo, double *hi)
{
  double md = cn__box_min_dot (n, a, lo, hi);
  if (!(md > -INFINITY) || isnan (u) || u == INFINITY)
    return 0;                   /* nothing known: the box stays */
  double g = cn__up (u - md);
  if (g < 0)
    return 1;
  if (!(g < INFINITY))
    return 0;
  for (int64_t i = 0; i < n; i++)
    {
      if (a[i] > 0)
        {
          double e = cn__up (lo[i] + cn__div_up (g, a[i]));
          if (e < hi[i])
            hi[i] = e < lo[i] ? lo[i] : e;
        }
      else if (a[i] < 0)
        {
          double e = cn__down (hi[i] - cn__div_up (g, -a[i]));
          if (e > lo[i])
            lo[i] = e > hi[i] ? hi[i] : e;
        }
    }
  return 0;
}

cn_status
cn__check_finite (int64_t n, const double *x, const char *what, cn_error *err)
{
  for (int64_t i = 0; i < n; i++)
    if (!isfinite (x[i]))
      return cn_error_set (err, CN_EUNSOUND, "%s: entry %lld is %g", what, (long long) i, x[i]);
  return CN_OK;
}

/* ---- boxes rounded outward ---- */

cn_status
cn_box_init_linf (cn_box *b, int64_t n, const double *x0, double eps, cn_error *err)
{
  if (!(eps >= 0) || isinf (eps))
    return cn_error_set (err, CN_EINVAL, "box: radius %g is not a finite number >= 0", eps);
  cn_status st = cn_box_init (b, n, err);
  if (st != CN_OK)
    return st;
  for (int64_t i = 0; i < n; i++)
    {
      if (!isfinite (x0[i]))
        {
          cn_box_clear (b);
          return cn_error_set (err, CN_EINVAL, "box: centre entry %lld is %g", (long long) i, x0[i]);
        }
      /* now lo <= x0 - eps and hi >= x0 + eps, exactly, by up/down of the RN results. */
      b->lo[i] = cn__down (x0[i] - eps);
      b->hi[i] = cn__up (x0[i] + eps);
    }
  return CN_OK;
}

double
cn__b32_sum_err (double t_up, int64_t k)
{
  if (k <= 0)
    return 0;
  if (!(t_up >= 0) || !isfinite (t_up))
    return INFINITY;
  /* k u32 is exact (k < 2^53); gamma32_k <= up(k u32 / down(1 - k u32)), as gamma_compute */
  double ku = (double) k * CN_U32;
  if (!(ku <= 0.5))
    return INFINITY;
  double g = cn__up (ku / cn__down (1.0 - ku));
  double under = cn__up (2.0 * (double) k * CN_ETA32);
  double e = cn__up (cn__up (g * t_up) + under);
  /* every partial result is at most (1 + gamma32_k) T + 2 k eta32 <= T + e in magnitude */
  if (!(cn__up (t_up + e) <= FLT_MAX))
    return INFINITY;
  return e;
}

double
cn__b32_mean_err (double t_up, int64_t k, int64_t d)
{
  if (d < 1 || d > (1 << 24))
    return INFINITY;
  double es = cn__b32_sum_err (t_up, k);
  if (!isfinite (es))
    return INFINITY;
  double dd = (double) d;
  double q = cn__up (cn__up (t_up + es) / dd);
  return cn__up (cn__up (cn__up (es / dd) + cn__up ((2 * CN_U32 + CN_U32 * CN_U32) * q)) + 2 * CN_ETA32);
}

double
cn__b32_one_err (double zmax)
{
  if (!(zmax >= 0) || !(zmax <= FLT_MAX))
    return INFINITY;
  /* |z| <= FLT_MAX rounds to a finite word; |fl32(z) - z| <= u32 |z| + eta32 */
  return cn__up (cn__up (CN_U32 * zmax) + CN_ETA32);
}
