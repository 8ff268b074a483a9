/* SPDX-License-Identifier: MIT */
/* src/sound/relax.c: the shared CROWN relaxation of the smooth elementwise operators (sigmoid,
 * tanh, softplus, elu, the transcendental ones, ...), ALGORITHMS.md 3 and 6.4.
 *
 * Lines.  For an entry with input box [l, u] (finite, l < u) the slopes are heuristics in
 * binary64 (any double slope is allowed):
 *   f convex on [l, u]   upper k = the chord slope (f(u) - f(l)) / (u - l), lower k = f'(t) at
 *                        the midpoint t (at most l + tangent_cap when the function has a cap);
 *   f concave            lower k = the chord slope, upper k = f'(midpoint);
 *   convex on [l, brk], concave on [brk, u] (S-shaped, G3):
 *                        lower: the chord slope if it is at most f'(l), else f'(dL) with dL in
 *                        [l, brk] the point whose tangent passes through (u, f(u)), found by
 *                        bisection of h(d) = f(d) + f'(d)(u - d) - f(u), increasing there;
 *                        upper: the chord slope if it is at most f'(u), else f'(dU), dU in
 *                        [brk, u] whose tangent passes through (l, f(l));
 *   concave on [l, brk], convex on [brk, u] (the mirror of G3, -f S-shaped):
 *                        upper: the chord slope if it is at least f'(l), else f'(dU), dU in
 *                        [l, brk] whose tangent passes through (u, f(u)); lower: the chord slope
 *                        if it is at least f'(u), else f'(dL), dL in [brk, u] whose tangent
 *                        passes through (l, f(l)) (bisection likewise, h decreasing there).
 * Where the tangent through the far corner is used (dL, dU above), the tangent at the box's
 * midpoint m is taken instead when m lies beyond that point on its piece (m < dL on the S-shaped
 * lower side, and so on): every tangent there is on the right side of f as well (h is monotone).
 * Of the valid tangents, the one at min (m, dL) has the least area between line and f over the
 * box: the integral of the tangent at t over [l, u] is (u - l)(f(t) + f'(t)(m - t)), whose
 * derivative in t is (u - l) f''(t)(m - t), positive for t < m on the convex piece.  (CROWN's
 * paper takes dL always; the far-corner tangent of sqrt at d = -l is steep when u >> -l, and on
 * a sigmoid MLP of dist_shift_2023 the least-area tangent narrows CROWN's output by 15-30%.)
 * The intercepts make every line exactly sound (G2): for the double slope k,
 *     bl <= min over z in [l, u] of g(z) = f(z) - k z,   bu >= max of g.
 * [l, u] is split at brk into pieces where f is convex or concave.  On a piece [a, b] where g is
 * convex (f convex), for any q in [a, b] and every z in [a, b], g(z) >= g(q) + g'(q)(z - q)
 * (the tangent of a convex function lies below it; at an end of the piece g' is the piece's
 * one-sided derivative, for which this still holds on [a, b]), and the right side is affine in
 * z, so
 *     min over [a, b] of g >= min (g(q) + g'(q)(a - q), g(q) + g'(q)(b - q));
 * q is an approximate root of f'(q) = k (bisection in binary64, f' is monotone on the piece),
 * so the loss is of second order in the error of q.  Where g is concave its minimum over
 * [a, b] is at a or b.  The maximum mirrors this (tangents of a concave g lie above it).
 * Every value g(q), g'(q) = f'(q) - k, g(a), ... is a binary64 interval, every operation rounded
 * outward (cn__down / cn__up, sound.h), from the function's own enclosures of f and f' (never
 * libm): its binary64 ones (src/sound/elementary.c) where it has them, else its MPFI enclosures
 * at RELAX_PREC = 64 bits rounded outward to doubles; the minimum is taken over the lower ends
 * (the maximum over the upper ends).  So
 * kl z + bl <= f(z) <= ku z + bu holds for every real z in [l, u], in exact arithmetic,
 * whatever the slopes.  An enclosure that is NaN or infinite leaves that side without a line
 * (bl = -inf, bu = +inf).
 * G4, the shifted chords (a function with CURV NULL and D2_BOUND): both lines take the chord's
 * slope k = fl((f(u) - f(l)) / (u - l)) (binary64, any double is sound); [l, u] is cut at
 * l = z_0 <= z_1 <= ... <= z_N = u (N = 1 where the bound below is already below 1e-12 of the
 * box's scale, else INTERP_PIECES), and on each piece [a, b] the linear interpolant Lg of
 * g = f - k z at a and b lies between g(a) and g(b) while, f being C^2 there,
 * g(z) - Lg(z) = g''(xi) (z - a)(z - b) / 2 with g'' = f'', so
 *     min(g(a), g(b)) - M h^2 / 8 <= g(z) <= max(g(a), g(b)) + M h^2 / 8,   h = b - a,
 * with M = D2_BOUND(a, b) >= sup |f''| on [a, b]; bl (bu) is the least (greatest) of these over
 * the pieces, each value enclosed and each operation rounded outward as for G2.  Where the two
 * lines are not thinner than the node's IBP box they give way to the box (k = 0).  The loss is
 * M h^2 / 4 at most: second order on small boxes; on wide ones the box often wins.
 * Degenerate boxes (l = u), infinite ends and slopes that are not finite use k = 0 and the
 * node's sound IBP box [ylo, yhi] as the constant lines ylo <= f(z) <= yhi (an infinite end
 * there is again "no line").
 *
 * Step.  lam f(z) >= lam (kl z + bl) for lam >= 0 and >= lam (ku z + bu) for lam < 0, so with
 * lam_z = fl(lam k) and bias += sum lam b the invariant holds up to the roundings, charged as
 * follows (leakyReLU's arm, src/ops/activation.c, uses this step too): the products with k not
 * in {0, 1, -1} are one
 * rounding each, |fl(p) - p| <= 2u |fl(p)| + eta, times m = max(|l|, |u|) >= |z|, summed with
 * (N); the bias sum takes its (G) error (cn__crown_add_sum).  A coefficient meeting a side
 * without a line makes the row's charge +inf (its bound -inf), never a finite number. */
#include <config.h>
#include <math.h>
#include <stdlib.h>
#include "sound/relax.h"
#include "core/assert.h"
#include "core/parallel.h"

#define RELAX_PREC 64
#define INTERP_PIECES 8

/* The scratch of an MPFI enclosure (for a function without a binary64 one). */
struct relax_ws
{
  mpfi_t y;
  mpfr_t e;
};

static void
ws_init (struct relax_ws *w)
{
  mpfi_init2 (w->y, RELAX_PREC);
  mpfr_init2 (w->e, RELAX_PREC);
}

static void
ws_clear (struct relax_ws *w)
{
  mpfi_clear (w->y);
  mpfr_clear (w->e);
}

static int
piece_of (const cn__relax_fn *F, double x)
{
  return F->split && x > F->brk;
}

/* Whether [l, u] crosses F's break between pieces of opposite curvature (S-shaped, or concave
 * then convex): there the tangents go through the box's far corners or lie beyond them. */
static int
crosses (const cn__relax_fn *F, const void *p, double l, double u)
{
  return F->split && l < F->brk && u > F->brk && F->curv (0, p) != F->curv (1, p);
}

/* An approximate root q in [a, b] of f'(q) = k on piece I, where f' is nondecreasing (C > 0) or
 * nonincreasing (C < 0): an end when f' - k does not change sign.  Any q in [a, b] is sound. */
static double
stationary (const cn__relax_fn *F, const void *p, int i, double a, double b, double k, int c)
{
  double s = c > 0 ? 1 : -1;
  if (!(s * (F->df (a, i, p) - k) < 0))
    return a;
  if (!(s * (F->df (b, i, p) - k) > 0))
    return b;
  for (int it = 0; it < 200; it++)
    {
      double m = a + (b - a) / 2;
      if (!(m > a && m < b))
        break;
      if (s * (F->df (m, i, p) - k) < 0)
        a = m;
      else
        b = m;
    }
  /* now f'(q) - k changes sign within [a, b] (up to the rounding of f') */
  return a + (b - a) / 2;
}

/* [*lo, *hi] := an enclosure of f(z) (DERIV = 0) or f'(z) (DERIV = 1) on piece I at the double
 * Z: F's binary64 enclosure where it has one, else its MPFI enclosure rounded outward. */
static void
encl_at (const cn__relax_fn *F, const void *p, int i, double z, int deriv, struct relax_ws *w, double *lo,
         double *hi)
{
  void (*fast) (double, int, const void *, double *, double *) = deriv ? F->df_encl : F->f_encl;
  if (fast != NULL)
    {
      fast (z, i, p, lo, hi);
      return;
    }
  (deriv ? F->df_mpfi : F->f_mpfi) (w->y, z, i, p);
  mpfi_get_left (w->e, w->y);
  *lo = mpfr_get_d (w->e, MPFR_RNDD);
  mpfi_get_right (w->e, w->y);
  *hi = mpfr_get_d (w->e, MPFR_RNDU);
}

/* [*lo, *hi] := an enclosure of g(z) = f(z) - k z at the double Z of piece I. */
static void
g_at (const cn__relax_fn *F, const void *p, int i, double z, double k, struct relax_ws *w, double *lo, double *hi)
{
  double fl, fh, kz = k * z;
  encl_at (F, p, i, z, 0, w, &fl, &fh);
  /* k z is in [down(kz), up(kz)]; each difference rounded outward */
  *lo = cn__down (fl - cn__up (kz));
  *hi = cn__up (fh - cn__down (kz));
}

/* Folds V into *R: the minimum of the lower ends (UPPER = 0) or the maximum of the upper ends;
 * a NaN makes *R NaN for good. */
static void
fold (int upper, double v, double *r)
{
  if (isnan (v) || isnan (*r))
    *r = NAN;
  else if (upper ? v > *r : v < *r)
    *r = v;
}

/* The lower (UPPER = 0) or upper end of the product of [al, ah] and [bl, bh], rounded outward
 * (NaN where a corner is 0 times an infinity). */
static double
itv_mul_end (double al, double ah, double bl, double bh, int upper)
{
  double c[4] = { al * bl, al * bh, ah * bl, ah * bh };
  double r = upper ? -INFINITY : INFINITY;
  for (int q = 0; q < 4; q++)
    {
      if (isnan (c[q]))
        return NAN;
      double v = upper ? cn__up (c[q]) : cn__down (c[q]);
      r = upper ? fmax (r, v) : fmin (r, v);
    }
  return r;
}

/* G2 on the piece I, [a, b] (finite, a <= b): folds into *R a lower bound of the minimum of
 * g = f - k z over [a, b] (UPPER = 0) or an upper bound of its maximum (UPPER = 1). */
static void
g2_piece (const cn__relax_fn *F, const void *p, int i, double a, double b, double k, int upper, double hint,
          struct relax_ws *w, double *r)
{
  int c = F->curv (i, p);
  double gl, gh;
  if (a < b && (upper ? c < 0 : c > 0))
    {
      /* the tangent of g at q: below g where g is convex (above where concave); q is HINT where
       * it lies in [a, b] (the tangent point the slope was taken at), else found by bisection */
      double q = hint >= a && hint <= b ? hint : stationary (F, p, i, a, b, k, c);
      double dl, dh;
      g_at (F, p, i, q, k, w, &gl, &gh);
      encl_at (F, p, i, q, 1, w, &dl, &dh);
      dl = cn__down (dl - k);
      dh = cn__up (dh - k);
      /* now g(q) is in [gl, gh] and g'(q) in [dl, dh] */
      double z[2] = { a, b };
      for (int e = 0; e < 2; e++)
        {
          double tl = cn__down (z[e] - q), th = cn__up (z[e] - q);
          double m = itv_mul_end (dl, dh, tl, th, upper);
          /* the tangent's value g(q) + g'(q)(z - q) at this end is at least (at most) this bound,
           * a bound of g on all of [a, b] over the two ends (the tangent is affine) */
          fold (upper, upper ? cn__up (gh + m) : cn__down (gl + m), r);
        }
      return;
    }
  /* g concave (for the minimum) or convex (for the maximum), or a point: the extreme is at an end */
  g_at (F, p, i, a, k, w, &gl, &gh);
  fold (upper, upper ? gh : gl, r);
  if (b != a)
    {
      g_at (F, p, i, b, k, w, &gl, &gh);
      fold (upper, upper ? gh : gl, r);
    }
}

/* The intercept for the slope K over [l, u] (finite, l <= u): a double bl <= min g (UPPER = 0;
 * -inf when nothing finite is proved) or bu >= max g (+inf likewise).  HINT: the point whose
 * tangent has slope K, or NaN (any value gives a sound intercept; a good one a tight one). */
static double
g2 (const cn__relax_fn *F, const void *p, double l, double u, double k, int upper, double hint, struct relax_ws *w)
{
  double r = upper ? -INFINITY : INFINITY;
  if (F->split && l < F->brk && u > F->brk)
    {
      g2_piece (F, p, 0, l, F->brk, k, upper, hint, w, &r);
      g2_piece (F, p, 1, F->brk, u, k, upper, hint, w, &r);
    }
  else
    g2_piece (F, p, piece_of (F, u), l, u, k, upper, hint, w, &r);   /* [l, u] within one piece: u's */
  /* now r <= min g (>= max g) over [l, u], or NaN */
  if (isnan (r) || isinf (r))
    return upper ? INFINITY : -INFINITY;
  return r;
}

/* A point d in [a, b] where H changes sign; H(x) = f(x) + f'(x)(e - x) - f(e) on piece I, the
 * tangent at x passing through (e, f(e)).  H' = f''(x)(e - x): on a convex piece left of e or a
 * concave piece right of e (an S-shaped f, DIR = 1) H increases; on a concave piece left of e or
 * a convex piece right of e (concave then convex, DIR = -1) it decreases. */
static double
tangent_through (const cn__relax_fn *F, const void *p, int i, double a, double b, double e, int ie, int dir)
{
  double fe = F->f (e, ie, p);
  for (int it = 0; it < 200; it++)
    {
      double m = a + (b - a) / 2;
      if (!(m > a && m < b))
        break;
      double h = F->f (m, i, p) + F->df (m, i, p) * (e - m) - fe;
      if (dir * h < 0)
        a = m;
      else
        b = m;
    }
  return a + (b - a) / 2;
}

/* The slopes of the entry [l, u] (finite, l < u), any doubles (not necessarily finite), and in
 * PT[0] (lower) and PT[1] (upper) the point whose tangent each slope is, NaN for a chord; in
 * LIM[side] the far-corner tangent point dL or dU that bounds the valid tangent points across the
 * break, NaN where the box does not cross it or the side is a chord. */
static void
slopes (const cn__relax_fn *F, const void *p, double l, double u, double *kl, double *ku, double *pt, double *lim)
{
  int il = F->split && l >= F->brk, iu = piece_of (F, u);   /* [brk, u] lies in piece 1 */
  int c0 = F->curv (il, p), c1 = F->curv (iu, p);
  double fl = F->f (l, il, p), fu = F->f (u, iu, p);
  double kc = (fu - fl) / (u - l);
  double m = l / 2 + u / 2;
  pt[0] = pt[1] = lim[0] = lim[1] = NAN;
  if (il == iu || c0 == c1)
    {
      if (c0 > 0)
        {
          double t = m;
          if (F->tangent_cap > 0 && t > l + F->tangent_cap)
            t = l + F->tangent_cap;
          *ku = kc;
          *kl = F->df (t, piece_of (F, t), p);
          pt[0] = t;
        }
      else
        {
          *kl = kc;
          *ku = F->df (m, piece_of (F, m), p);
          pt[1] = m;
        }
      return;
    }
  if (c0 > 0 && c1 < 0)
    {
      /* S-shaped (G3): convex on [l, brk], concave on [brk, u] */
      if (kc <= F->df (l, 0, p))
        *kl = kc;
      else
        {
          lim[0] = pt[0] = tangent_through (F, p, 0, l, F->brk, u, 1, 1);
          if (m < pt[0])
            pt[0] = m;
          *kl = F->df (pt[0], 0, p);
        }
      if (kc <= F->df (u, 1, p))
        *ku = kc;
      else
        {
          lim[1] = pt[1] = tangent_through (F, p, 1, F->brk, u, l, 0, 1);
          if (m > pt[1])
            pt[1] = m;
          *ku = F->df (pt[1], 1, p);
        }
      return;
    }
  /* concave on [l, brk], convex on [brk, u] (sinh, tan, asin, atanh): the mirror of G3 (-f is
   * S-shaped).  Upper: the chord slope if it is at least f'(l), else f'(dU) with dU in [l, brk]
   * the point whose tangent passes through (u, f(u)); lower: the chord slope if it is at least
   * f'(u), else f'(dL), dL in [brk, u] whose tangent passes through (l, f(l)). */
  if (kc >= F->df (l, 0, p))
    *ku = kc;
  else
    {
      lim[1] = pt[1] = tangent_through (F, p, 0, l, F->brk, u, 1, -1);
      if (m < pt[1])
        pt[1] = m;
      *ku = F->df (pt[1], 0, p);
    }
  if (kc >= F->df (u, 1, p))
    *kl = kc;
  else
    {
      lim[0] = pt[0] = tangent_through (F, p, 1, F->brk, u, l, 0, -1);
      if (m > pt[0])
        pt[0] = m;
      *kl = F->df (pt[0], 1, p);
    }
}

/* alpha-CROWN's tangent parameter of side UPPER of the entry [l, u] (ALGORITHMS.md 4.1), whose
 * default line is the tangent at PT (NaN: a chord, no parameter).  theta in [0, 1] maps to the
 * tangent point piecewise linearly, t(0) = FAR, t(1/2) = PT (CROWN's line), t(1) = LIM:
 *     t = FAR + 2 theta (PT - FAR)  (theta <= 1/2),   t = PT + (2 theta - 1)(LIM - PT)  (above).
 * On a box where f is convex (lower side) or concave (upper side) every tangent point in [l, u]
 * gives a line on the right side of f: FAR = l, LIM = u (PT is the midpoint, so the map is
 * linear).  On an S-shaped box across brk the lower tangent at t lies below f for t <= dL (dL =
 * LIM, the point whose tangent passes through (u, f(u)); h of tangent_through is increasing, so
 * tangents at t < dL pass below that corner, and f is concave on [brk, u] where the line is below
 * it at both ends), the upper one above f for t >= dU (concave then convex: the sides swap, the
 * upper tangent valid left of dU, the lower right of dL); tangent points left of l (right of u)
 * are valid as well (f is convex on all of (-inf, brk]), and flatter: as auto_LiRPA, the range
 * extends a box width beyond l (u), FAR = l - (u - l) (u + (u - l)), and PT is the midpoint or
 * LIM, whichever slopes() chose.  Only for functions with a second derivative (D2F); a tangent cap
 * (exp) moves the default point PT, not the range.  Whatever t, the intercept is G2's, so the
 * line is sound for any theta (a slope that overflows keeps the default line); the range only
 * keeps it tight.  theta = 1/2 on every side is CROWN's line, so one default serves both sides of
 * an entry (cn__relax_alpha). */
static void
tangent_range (const cn__relax_fn *F, const void *p, cn__relax_line *ln, int upper, double l, double u, double pt,
               double lim, int cross)
{
  if (F->d2f == NULL || isnan (pt))
    return;
  double far = l, hi = u;
  if (cross)
    {
      /* across the break the valid tangent points lie left of LIM (the S-shaped lower side, the
       * concave-then-convex upper side: the convex, resp. concave, piece (-inf, brk]) or right */
      int left = F->curv (0, p) > 0 ? !upper : upper;
      far = left ? l - (u - l) : u + (u - l);
      hi = isnan (lim) ? pt : lim;
    }
  ln->t_free[upper] = 1;
  ln->t_base[upper] = pt;
  ln->t_span[upper][0] = 2 * (pt - far);
  ln->t_span[upper][1] = 2 * (hi - pt);
}

/* G4 (the top): the shifted chords of an F with D2_BOUND over [l, u] into LN where they are
 * thinner than the box [ylo, yhi]; LN keeps the box's constant lines otherwise. */
static void
interp_lines (const cn__relax_fn *F, const void *p, double l, double u, double ylo, double yhi, struct relax_ws *w,
              cn__relax_line *ln)
{
  double k = (F->f (u, 0, p) - F->f (l, 0, p)) / (u - l);
  double m = F->d2_bound (l, u, p);
  if (!isfinite (k) || isnan (m))
    return;
  double scale = 1 + fabs (ylo) + fabs (yhi);
  int n = m * ((u - l) * (u - l)) / 8 <= 1e-12 * scale ? 1 : INTERP_PIECES;
  double bl = INFINITY, bu = -INFINITY, a = l, gal, gah;
  g_at (F, p, 0, a, k, w, &gal, &gah);
  for (int i = 1; i <= n; i++)
    {
      /* the cut points are nondecreasing (RN operations are monotone) and end at u */
      double b = i == n ? u : fmin (u, l + (u - l) * ((double) i / n));
      double gbl, gbh;
      g_at (F, p, 0, b, k, w, &gbl, &gbh);
      double mi = n == 1 ? m : F->d2_bound (a, b, p);
      double h = cn__up (b - a);
      double e = cn__up (cn__up (mi * cn__up (h * h)) / 8);   /* >= M h^2 / 8 (the division is exact) */
      if (isnan (e) || isnan (gal) || isnan (gah) || isnan (gbl) || isnan (gbh))
        return;
      fold (0, cn__down (fmin (gal, gbl) - e), &bl);
      fold (1, cn__up (fmax (gah, gbh) + e), &bu);
      /* now bl <= g <= bu on [l, b] */
      a = b;
      gal = gbl;
      gah = gbh;
    }
  if (isfinite (bl) && isfinite (bu) && !(bu - bl >= yhi - ylo))
    *ln = (cn__relax_line) { .kl = k, .bl = bl, .ku = k, .bu = bu };
}

/* The entries FIRST..LAST-1 of cn__relax_lines (each slice with its own MPFI workspace). */
struct entries_ctx
{
  const cn__relax_fn *F;
  const void *p;
  const cn_box *in, *out;
  cn__relax_line *ln;
};

static void
lines_entries (void *ctx, int64_t first, int64_t last)
{
  const struct entries_ctx *c = ctx;
  const cn__relax_fn *F = c->F;
  const void *p = c->p;
  cn__relax_line *ln = c->ln;
  struct relax_ws w;
  ws_init (&w);
  for (int64_t j = first; j < last; j++)
    {
      double l = c->in->lo[j], u = c->in->hi[j];
      double ylo = c->out->lo[j], yhi = c->out->hi[j];
      /* the constant lines ylo <= f(z) <= yhi (the sound IBP box), the fallback */
      ln[j].kl = ln[j].ku = 0;
      ln[j].free_lower = 0;
      ln[j].t_free[0] = ln[j].t_free[1] = 0;
      ln[j].bl = isnan (ylo) ? -INFINITY : ylo;
      ln[j].bu = isnan (yhi) ? INFINITY : yhi;
      if (!(l < u) || isinf (l) || isinf (u))
        continue;
      if (F->curv == NULL)
        {
          interp_lines (F, p, l, u, ylo, yhi, &w, &ln[j]);
          continue;
        }
      double kl, ku, pt[2], lim[2];
      slopes (F, p, l, u, &kl, &ku, pt, lim);
      int cross = crosses (F, p, l, u);
      if (isfinite (kl))
        {
          double b = g2 (F, p, l, u, kl, 0, pt[0], &w);
          /* now kl z + b <= f(z) on [l, u] (b = -inf: nothing proved) */
          if (b > -INFINITY)
            {
              ln[j].kl = kl;
              ln[j].bl = b;
              tangent_range (F, p, &ln[j], 0, l, u, pt[0], lim[0], cross);
            }
        }
      if (isfinite (ku))
        {
          double b = g2 (F, p, l, u, ku, 1, pt[1], &w);
          /* now f(z) <= ku z + b on [l, u] (b = +inf: nothing proved) */
          if (b < INFINITY)
            {
              ln[j].ku = ku;
              ln[j].bu = b;
              tangent_range (F, p, &ln[j], 1, l, u, pt[1], lim[1], cross);
            }
        }
    }
  ws_clear (&w);
}

cn_status
cn__relax_lines (const cn__relax_fn *F, const void *p, const cn_box *in, const cn_box *out, cn__relax_line *ln,
                 int threads, const char *op, cn_error *err)
{
  if (in->n != out->n)
    return cn_error_set (err, CN_EINVAL, "%s: the relaxation's boxes differ in size", op);
  struct entries_ctx ctx = { .F = F, .p = p, .in = in, .out = out, .ln = ln };
  cn__for_rows (in->n, threads, in->n >= 64, lines_entries, &ctx);
  return CN_OK;
}

/* The rows FIRST..LAST-1 of cn__crown_lines; with F (alpha-CROWN's tangent parameters, P the
 * attribute record) the rows' own tangents, recorded here. */
struct lines_ctx
{
  const cn_crown_step *st;
  const cn__relax_line *ln;
  const double *m;
  int64_t n;
  const cn__relax_fn *F;
  const void *p;
};

/* Row theta's line of side UPPER of entry LN over [l, u] (t_free[upper]): the tangent at
 * t(theta) with G2's intercept into *K, *B and the derivative of lam (k z + b) in theta into
 * *GA (times z) and *GB; where the tangent fails (a slope or an intercept not finite) the entry's
 * default line stays, with a zero derivative. */
static void
tangent_line (const cn__relax_fn *F, const void *p, const cn__relax_line *ln, int upper, double l, double u,
              double theta, double lam, struct relax_ws *w, double *k, double *b, double *ga, double *gb)
{
  /* dt/dtheta on theta's half (below 1/2, or at and above it) */
  double span = ln->t_span[upper][theta >= 0.5];
  double t = ln->t_base[upper] + (theta - 0.5) * span;
  /* z* = the point of [l, u] where the line touches f: t itself, or the box's end nearest a
   * tangent point outside the box (across the break; G2 then lifts the line onto that end) */
  double zs = t < l ? l : t > u ? u : t;
  int piece = piece_of (F, t);
  double d2 = F->d2f (t, piece, p);
  /* d/dtheta of lam (k z + b(k)) = lam dk/dtheta (z - z*) (envelope: db/dk = -z*) */
  *ga = isfinite (d2) ? lam * d2 * span : 0;
  *gb = -*ga * zs;
  if (theta == 0.5)
    return;   /* the default line, as CROWN's */
  double kt = F->df (t, piece, p);
  if (!isfinite (kt))
    {
      *ga = *gb = 0;
      return;
    }
  double bt = g2 (F, p, l, u, kt, upper, zs, w);
  if (upper ? bt == INFINITY : bt == -INFINITY)
    {
      *ga = *gb = 0;
      return;
    }
  /* now kt z + bt is on the right side of f over [l, u] (G2) */
  *k = kt;
  *b = bt;
}

static void
lines_rows (void *ctx, int64_t first, int64_t last)
{
  const struct lines_ctx *c = ctx;
  const cn_crown_step *st = c->st;
  const cn__relax_line *ln = c->ln;
  const double *m = c->m;
  int64_t n = c->n;
  double kap = cn__kappa (n);
  double neta = (double) n * CN_ETA;
  const cn__relax_fn *F = c->F;
  const cn_box *box = st->in_box[0];
  struct relax_ws w;
  if (F != NULL)
    ws_init (&w);
  for (int64_t s = first; s < last; s++)
    {
      const double *lo = st->lam_out + s * n;
      double *li = st->lam_in[0] + s * n;
      const double *th = st->theta != NULL ? st->theta + s * st->theta_stride : NULL;
      double t = 0, cm = 0, d = 0, td = 0;
      int64_t cnt = 0;
      int no_line = 0, rounded = 0;
      for (int64_t j = 0; j < n; j++)
        {
          double lam = lo[j], k, b;
          if (F != NULL)
            {
              /* the record of the gradient pass: the default lower line where lam = 0 */
              int up = lam < 0;
              double ga = 0, gb = 0;
              k = up ? ln[j].ku : ln[j].kl;
              b = up ? ln[j].bu : ln[j].bl;
              if (lam != 0 && ln[j].t_free[up])
                tangent_line (F, c->p, &ln[j], up, box->lo[j], box->hi[j], th[j], lam, &w, &k, &b, &ga, &gb);
              if (st->fwd_k != NULL)
                {
                  st->fwd_k[s * n + j] = isfinite (b) ? k : 0;
                  st->fwd_b[s * n + j] = isfinite (b) ? b : 0;
                }
              if (st->grad_a != NULL)
                {
                  st->grad_a[s * n + j] = ga;
                  st->grad_b[s * n + j] = gb;
                }
              if (lam == 0)
                continue;
              if (up ? b == INFINITY : b == -INFINITY)
                {
                  no_line = 1;
                  continue;
                }
            }
          else if (lam == 0)
            continue;
          else if (lam > 0)
            {
              k = th != NULL && ln[j].free_lower ? th[j] : ln[j].kl;
              b = ln[j].bl;
              if (b == -INFINITY)
                {
                  no_line = 1;
                  continue;
                }
            }
          else
            {
              k = ln[j].ku;
              b = ln[j].bu;
              if (b == INFINITY)
                {
                  no_line = 1;
                  continue;
                }
            }
          /* lam_z = fl(lam k): exact for k = 0 or +-1, else one rounded product */
          li[j] = lam * k;
          if (k != 0 && fabs (k) != 1)
            {
              rounded = 1;
              t += fabs (li[j]) * m[j];
              cm += m[j];
            }
          if (b != 0)
            {
              double pb = lam * b;
              d += pb;
              td += fabs (pb);
              cnt++;
            }
        }
      /* now li holds the coefficients; t = fl(sum |li_j| m_j), cm = fl(sum m_j) over the rounded
       * entries; d = fl(sum lam_j b_j) and td = fl(sum |lam_j b_j|) over the CNT intercepts.
       * By (N), sum |li_j| m_j <= kappa_n (t + n eta), and likewise for cm. */
      if (no_line)
        cn__crown_charge (st, s, INFINITY);
      if (rounded)
        {
          double e_prod = cn__up (cn__up (2 * CN_U * cn__up (kap * cn__up (t + neta)))
                                  + cn__up (CN_ETA * cn__up (kap * cn__up (cm + neta))));
          cn__crown_charge (st, s, e_prod);
        }
      /* bias += d, charged with the (G) error of the sum (+inf if it overflowed) */
      cn__crown_add_sum (st, s, d, td, cnt, !isfinite (td) || !isfinite (d));
    }
  if (F != NULL)
    ws_clear (&w);
}

void
cn__crown_record_lines (const cn_crown_step *st, const cn__relax_line *ln)
{
  if (st->fwd_k == NULL)
    return;
  int64_t n = st->n_out;
  for (int64_t s = 0; s < st->rows; s++)
    {
      const double *th = st->theta != NULL ? st->theta + s * st->theta_stride : NULL;
      for (int64_t j = 0; j < n; j++)
        {
          double lam = st->lam_out[s * n + j];
          int lower = lam >= 0, fr = th != NULL && ln[j].free_lower;
          double k = lower ? (fr ? th[j] : ln[j].kl) : ln[j].ku, b = lower ? ln[j].bl : ln[j].bu;
          st->fwd_k[s * n + j] = isfinite (b) ? k : 0;
          st->fwd_b[s * n + j] = isfinite (b) ? b : 0;
          if (st->grad_a != NULL)
            {
              /* the lower side's contribution lam theta z: derivative lam z */
              st->grad_a[s * n + j] = fr && lam > 0 ? lam : 0;
              st->grad_b[s * n + j] = 0;
            }
        }
    }
}

static cn_status
crown_lines (const cn_crown_step *st, const char *op, const cn__relax_line *ln, const cn__relax_fn *F,
             const void *p, cn_error *err);

cn_status
cn__crown_lines (const cn_crown_step *st, const char *op, const cn__relax_line *ln, cn_error *err)
{
  return crown_lines (st, op, ln, NULL, NULL, err);
}

/* cn__crown_lines, with F (not NULL) the rows' tangent parameters of st->theta, P F's record. */
static cn_status
crown_lines (const cn_crown_step *st, const char *op, const cn__relax_line *ln, const cn__relax_fn *F,
             const void *p, cn_error *err)
{
  int64_t n = st->n_out;
  const cn_box *box = st->in_box[0];
  if (st->lam_in[0] == NULL)
    return cn_error_set (err, CN_EINVAL, "%s: CROWN step on a constant input (node '%s')", op, st->node);
  if (box->n != n)
    return cn_error_set (err, CN_EINVAL, "%s: input box does not match the node (node '%s')", op, st->node);
  double *m = malloc ((size_t) (n ? n : 1) * sizeof *m);
  if (m == NULL)
    return cn_error_set (err, CN_ENOMEM, "%s: out of memory (node '%s')", op, st->node);
  cn__box_magnitude (box, m);
  struct lines_ctx ctx = { .st = st, .ln = ln, .m = m, .n = n, .F = F, .p = p };
  cn__for_rows (st->rows, st->threads, st->rows * n > 65536 || (F != NULL && st->rows * n > 4096), lines_rows, &ctx);
  free (m);
  if (F == NULL)
    cn__crown_record_lines (st, ln);
  return CN_OK;
}

cn_status
cn__crown_relax (const cn_crown_step *st, const char *op, const cn__relax_fn *F, cn__ibp_arm ibp, cn_error *err)
{
  return cn__crown_relax_with (st, op, F, st->params, ibp, err);
}

cn_status
cn__crown_relax_with (const cn_crown_step *st, const char *op, const cn__relax_fn *F, const void *p,
                      cn__ibp_arm ibp, cn_error *err)
{
  int64_t n = st->n_out;
  const cn_box *box = st->in_box[0];
  if (st->lam_in[0] == NULL)
    return cn_error_set (err, CN_EINVAL, "%s: CROWN step on a constant input (node '%s')", op, st->node);
  if (box->n != n)
    return cn_error_set (err, CN_EINVAL, "%s: input box does not match the node (node '%s')", op, st->node);
  /* The lines depend on the input box alone: an earlier step through this node in the same
   * analysis (st->memo) has them already. */
  struct relax_memo
  {
    int64_t n;
    cn__relax_line ln[];
  };
  const cn__relax_fn *TF = NULL;
  if (st->theta != NULL && F->d2f != NULL)
    {
      /* alpha-CROWN's tangent parameters: each must lie in [0, 1] */
      TF = F;
      int64_t sets = st->theta_stride == 0 ? 1 : st->rows;
      for (int64_t s = 0; s < sets && !st->theta_unchecked; s++)
        for (int64_t j = 0; j < n; j++)
          {
            double t = st->theta[s * st->theta_stride + j];
            if (!(t >= 0 && t <= 1))
              return cn_error_set (err, CN_EINVAL, "%s: tangent parameter %g outside [0, 1] (node '%s')", op, t,
                                   st->node);
          }
    }
  struct relax_memo *mm = st->memo != NULL ? *st->memo : NULL;
  if (mm != NULL && mm->n == n)
    return crown_lines (st, op, mm->ln, TF, p, err);
  cn_box out;
  cn_status rc = cn_box_init (&out, n, err);
  if (rc != CN_OK)
    return rc;
  mm = malloc (sizeof *mm + (size_t) (n ? n : 1) * sizeof (cn__relax_line));
  if (mm == NULL)
    {
      rc = cn_error_set (err, CN_ENOMEM, "%s: out of memory (node '%s')", op, st->node);
      goto fail;
    }
  mm->n = n;
  rc = ibp (st->nv, st->in_box, &out, err);
  if (rc != CN_OK)
    goto fail;
  /* now out is a sound box of f over the input box */
  rc = cn__relax_lines (F, p, box, &out, mm->ln, st->threads, op, err);
  if (rc != CN_OK)
    goto fail;
  rc = crown_lines (st, op, mm->ln, TF, p, err);
  if (rc == CN_OK && st->memo != NULL)
    {
      free (*st->memo);
      *st->memo = mm;           /* kept for the next step through this node */
      mm = NULL;
    }
fail:
  free (mm);
  cn_box_clear (&out);
  return rc;
}

void
cn__relax_alpha (const struct cn_node_view *nv, const cn_box *in, int slope, int init, double *theta)
{
  (void) nv;
  (void) slope;
  for (int64_t j = 0; j < in->n; j++)
    {
      if (init || isnan (theta[j]))
        theta[j] = 0.5;   /* CROWN's line on either side (tangent_range) */
      else
        theta[j] = theta[j] < 0 ? 0 : theta[j] > 1 ? 1 : theta[j];
    }
}

/* ---- multilinear functions ------------------------------------------------------------------ */

/* The intercept of side UPPER of the plane K over the entry's box [LO, HI] (the K inputs): the
 * least (UPPER = 0) or greatest value of f(c) - k . c over the 2^K corners c, each enclosed in
 * MPFI at RELAX_PREC and taken at its outward end; NaN or an infinity gives -inf / +inf (no
 * plane). */
static double
ml_intercept (const cn__multilinear *F, const void *p, const double *lo, const double *hi, const double *k, int upper,
              mpfi_ptr y, mpfi_ptr t, mpfr_ptr e)
{
  double r = upper ? -INFINITY : INFINITY;
  for (int c = 0; c < (1 << F->k); c++)
    {
      double x[CN__ML_MAX_IN];
      for (int i = 0; i < F->k; i++)
        x[i] = (c >> i) & 1 ? hi[i] : lo[i];
      F->f_mpfi (y, x, p);
      for (int i = 0; i < F->k; i++)
        if (k[i] != 0)
          {
            mpfi_set_d (t, x[i]);
            mpfi_mul_d (t, t, k[i]);
            mpfi_sub (y, y, t);
          }
      /* now y contains f(c) - k . c */
      if (upper)
        mpfi_get_right (e, y);
      else
        mpfi_get_left (e, y);
      double v = mpfr_get_d (e, upper ? MPFR_RNDU : MPFR_RNDD);
      if (isnan (v))
        return upper ? INFINITY : -INFINITY;
      r = upper ? fmax (r, v) : fmin (r, v);
    }
  return r;
}

cn_status
cn__planes_open (const cn_crown_step *st, const char *op, int k, cn__ibp_arm ibp, cn__planes *P, cn_error *err)
{
  int64_t n = st->n_out;
  CN__ASSERTD (k >= 1 && k <= CN__ML_MAX_IN);
  *P = (cn__planes) { .k = k };
  int variable = 0;
  for (int i = 0; i < k; i++)
    {
      if (st->in_box[i]->n != n)
        return cn_error_set (err, CN_EINVAL, "%s: input box does not match the node (node '%s')", op, st->node);
      variable |= st->lam_in[i] != NULL;
    }
  if (!variable)
    return cn_error_set (err, CN_EINVAL, "%s: CROWN step on constant inputs only (node '%s')", op, st->node);
  P->kk = calloc ((size_t) (2 * k * n + 1), sizeof *P->kk);
  P->bb = malloc ((size_t) (2 * n + 1) * sizeof *P->bb);
  cn_status rc = cn_box_init (&P->out, n, err);
  if (rc == CN_OK)
    P->has_out = 1;
  if (rc == CN_OK && (P->kk == NULL || P->bb == NULL))
    rc = cn_error_set (err, CN_ENOMEM, "%s: out of memory (node '%s')", op, st->node);
  if (rc == CN_OK)
    rc = ibp (st->nv, st->in_box, &P->out, err);
  /* now P->out is a sound box of the node over the input boxes */
  if (rc != CN_OK)
    cn__planes_close (P);
  return rc;
}

void
cn__planes_settle (cn__planes *P, int64_t j, double bl, double bu)
{
  double *kl = P->kk + 2 * P->k * j, *ku = kl + P->k;
  if (!(bl > -INFINITY) || isnan (bl))
    {
      for (int i = 0; i < P->k; i++)
        kl[i] = 0;
      bl = isnan (P->out.lo[j]) ? -INFINITY : P->out.lo[j];
    }
  if (!(bu < INFINITY) || isnan (bu))
    {
      for (int i = 0; i < P->k; i++)
        ku[i] = 0;
      bu = isnan (P->out.hi[j]) ? INFINITY : P->out.hi[j];
    }
  P->bb[2 * j] = bl;
  P->bb[2 * j + 1] = bu;
}

cn_status
cn__planes_step (const cn_crown_step *st, const char *op, cn__planes *P, cn_error *err)
{
  cn_status rc = cn__crown_planes (st, op, P->k, P->kk, P->bb, err);
  cn__planes_close (P);
  return rc;
}

void
cn__planes_close (cn__planes *P)
{
  if (P->has_out)
    cn_box_clear (&P->out);
  free (P->kk);
  free (P->bb);
  *P = (cn__planes) { 0 };
}

cn_status
cn__crown_multilinear (const cn_crown_step *st, const char *op, const cn__multilinear *F, cn__ibp_arm ibp,
                       cn_error *err)
{
  int64_t n = st->n_out;
  int K = F->k;
  cn__planes P;
  cn_status rc = cn__planes_open (st, op, K, ibp, &P, err);
  if (rc != CN_OK)
    return rc;
  mpfi_t y, t;
  mpfr_t e;
  mpfi_init2 (y, RELAX_PREC);
  mpfi_init2 (t, RELAX_PREC);
  mpfr_init2 (e, RELAX_PREC);
  for (int64_t j = 0; j < n; j++)
    {
      double lo[CN__ML_MAX_IN], hi[CN__ML_MAX_IN], *kl = P.kk + 2 * K * j, *ku = kl + K;
      int finite = 1;
      for (int i = 0; i < K; i++)
        {
          lo[i] = st->in_box[i]->lo[j];
          hi[i] = st->in_box[i]->hi[j];
          finite &= isfinite (lo[i]) && isfinite (hi[i]);
        }
      F->slopes (lo, hi, st->params, kl, ku);
      for (int i = 0; i < K; i++)
        {
          if (st->lam_in[i] == NULL || !isfinite (kl[i]))
            kl[i] = 0;
          if (st->lam_in[i] == NULL || !isfinite (ku[i]))
            ku[i] = 0;
        }
      double bl = finite ? ml_intercept (F, st->params, lo, hi, kl, 0, y, t, e) : -INFINITY;
      double bu = finite ? ml_intercept (F, st->params, lo, hi, ku, 1, y, t, e) : INFINITY;
      /* now kl . u + bl <= f(u) <= ku . u + bu on the box (an infinite b: no plane, and the
       * side takes the IBP box's end) */
      cn__planes_settle (&P, j, bl, bu);
    }
  mpfi_clear (y);
  mpfi_clear (t);
  mpfr_clear (e);
  return cn__planes_step (st, op, &P, err);
}

cn_status
cn__crown_planes2_theta (const cn_crown_step *st, const char *op, const void *ctx, cn__plane2_fn plane,
                         cn_error *err)
{
  int64_t n = st->n_out;
  CN__ASSERTD (st->lam_in[0] != NULL && st->lam_in[1] != NULL && st->theta != NULL);
  double *bsel = malloc ((size_t) (n + 1) * sizeof *bsel);
  if (bsel == NULL)
    return cn_error_set (err, CN_ENOMEM, "%s: out of memory (node '%s')", op, st->node);
  for (int64_t s = 0; s < st->rows; s++)
    {
      const double *lam = st->lam_out + s * n, *theta = st->theta + s * st->theta_stride;
      int64_t at = s * n;
      int unbounded = 0;
      for (int64_t j = 0; j < n; j++)
        {
          if (!st->theta_unchecked && !(theta[j] >= 0 && theta[j] <= 1))
            {
              free (bsel);
              return cn_error_set (err, CN_EINVAL, "%s: parameter %g outside [0, 1] at entry %lld (node '%s')", op,
                                   theta[j], (long long) j, st->node);
            }
          double a = lam[j], k[2], b, dk[2] = { 0, 0 }, db = 0;
          plane (st, ctx, j, a < 0, theta[j], k, &b, dk, &db);
          /* now k . u + b is on its side of v over the boxes (or b is infinite: no plane) */
          st->lam_in[0][at + j] = a * k[0];
          st->lam_in[1][at + j] = a * k[1];
          bsel[j] = a == 0 ? 0 : b;
          if (!isfinite (bsel[j]))
            {
              unbounded = 1;
              bsel[j] = 0;
            }
          if (st->fwd_k != NULL)
            {
              st->fwd_k[at + j] = k[0];
              st->fwd_b[at + j] = isfinite (b) ? b : 0;
              if (st->fwd_k2 != NULL)
                st->fwd_k2[at + j] = k[1];
            }
          if (st->grad_a != NULL)
            {
              st->grad_a[at + j] = a * dk[0];
              st->grad_b[at + j] = a * db;
              if (st->grad_a2 != NULL)
                st->grad_a2[at + j] = a * dk[1];
            }
        }
      /* now lam . v >= lam_in[0][s] . u_0 + lam_in[1][s] . u_1 + lam . bsel up to the roundings of
       * lam_in (charged below), or the row's bound is -inf */
      cn__crown_add_dot (st, s, n, lam, bsel);
      if (unbounded)
        cn__crown_charge (st, s, INFINITY);
    }
  cn__crown_charge_entrywise (st, st->lam_in[0], n, st->in_box[0]);
  cn__crown_charge_entrywise (st, st->lam_in[1], n, st->in_box[1]);
  free (bsel);
  return CN_OK;
}

cn_status
cn__crown_planes (const cn_crown_step *st, const char *op, int K, const double *kk, const double *bb, cn_error *err)
{
  int64_t n = st->n_out;
  double *bsel = malloc ((size_t) (n + 1) * sizeof *bsel);
  if (bsel == NULL)
    return cn_error_set (err, CN_ENOMEM, "%s: out of memory (node '%s')", op, st->node);
  for (int64_t s = 0; s < st->rows; s++)
    {
      const double *lam = st->lam_out + s * n;
      int unbounded = 0;
      for (int64_t j = 0; j < n; j++)
        {
          if (lam[j] == 0)
            {
              bsel[j] = 0;
              continue;
            }
          int up = lam[j] < 0;
          const double *k = kk + 2 * K * j + (up ? K : 0);
          for (int i = 0; i < K; i++)
            if (st->lam_in[i] != NULL)
              st->lam_in[i][s * n + j] = lam[j] * k[i];
          bsel[j] = bb[2 * j + up];
          if (isinf (bsel[j]) || isnan (bsel[j]))
            {
              unbounded = 1;
              bsel[j] = 0;
            }
        }
      /* now lam_in[i][s] = fl(lam k_i) (charged below) and lam . v >= sum_i lam_in[i][s] . u_i
       * + lam . bsel up to those roundings, or the row's bound is -inf (a side without a plane) */
      cn__crown_add_dot (st, s, n, lam, bsel);
      if (unbounded)
        cn__crown_charge (st, s, INFINITY);
    }
  for (int i = 0; i < K; i++)
    if (st->lam_in[i] != NULL)
      cn__crown_charge_entrywise (st, st->lam_in[i], n, st->in_box[i]);
  free (bsel);
  return CN_OK;
}

double
cn__relax_extreme (const cn__relax_fn *F, const void *p, double l, double u, double k, int upper)
{
  struct relax_ws w;
  ws_init (&w);
  double r = g2 (F, p, l, u, k, upper, NAN, &w);
  ws_clear (&w);
  return r;
}

/* ---- a factor times a convex or concave function ---------------------------------------------- */

/* s h(y) for the interval scale [sl, sh] (one sign, or 0): F's functions through the record
 * struct scaled (the enclosures multiplied in MPFI, so the real scale may be any point of it). */
struct scaled
{
  const cn__relax_fn *h;
  const void *hp;
  double sl, sh, mid;
  int sign;
};
static int
sc_curv (int i, const void *p)
{
  const struct scaled *c = p;
  return c->sign == 0 ? 1 : c->sign * c->h->curv (i, c->hp);
}
static double
sc_f (double x, int i, const void *p)
{
  const struct scaled *c = p;
  return c->mid == 0 ? 0 : c->mid * c->h->f (x, i, c->hp);
}
static double
sc_df (double x, int i, const void *p)
{
  const struct scaled *c = p;
  return c->mid == 0 ? 0 : c->mid * c->h->df (x, i, c->hp);
}
/* Y := h(x) (DERIV 0) or h'(x) enclosed, times [sl, sh] */
static void
sc_encl (mpfi_ptr y, double x, int i, const struct scaled *c, int deriv)
{
  if (c->sign == 0)
    {
      mpfi_set_ui (y, 0);
      return;
    }
  void (*fast) (double, int, const void *, double *, double *) = deriv ? c->h->df_encl : c->h->f_encl;
  if (fast != NULL)
    {
      double lo, hi;
      fast (x, i, c->hp, &lo, &hi);
      mpfi_interv_d (y, lo, hi);
    }
  else
    (deriv ? c->h->df_mpfi : c->h->f_mpfi) (y, x, i, c->hp);
  mpfi_t t;
  mpfi_init2 (t, mpfi_get_prec (y));
  mpfi_interv_d (t, c->sl, c->sh);
  mpfi_mul (y, y, t);
  mpfi_clear (t);
}
static void sc_f_mpfi (mpfi_ptr y, double x, int i, const void *p) { sc_encl (y, x, i, p, 0); }
static void sc_df_mpfi (mpfi_ptr y, double x, int i, const void *p) { sc_encl (y, x, i, p, 1); }

/* 1/(y + e), e = *(const double *) p: concave below the pole -e, convex above. */
static int inv_curv (int i, const void *p) { (void) p; return i == 0 ? -1 : 1; }
static double inv_f (double x, int i, const void *p) { (void) i; return 1 / (x + *(const double *) p); }
static double
inv_df (double x, int i, const void *p)
{
  (void) i;
  double s = x + *(const double *) p;
  return -1 / (s * s);
}
static void
inv_mpfi (mpfi_ptr y, double x, int i, const void *p)
{
  (void) i;
  mpfi_set_d (y, x);
  mpfi_add_d (y, y, *(const double *) p);
  mpfi_inv (y, y);
}
static void
inv_df_mpfi (mpfi_ptr y, double x, int i, const void *p)
{
  (void) i;
  mpfi_set_d (y, x);
  mpfi_add_d (y, y, *(const double *) p);
  mpfi_sqr (y, y);
  mpfi_inv (y, y);
  mpfi_neg (y, y);
}
const cn__relax_fn cn__relax_inv_shift = { .split = 1, .brk = 0, .curv = inv_curv, .f = inv_f, .df = inv_df,
                                           .f_mpfi = inv_mpfi, .df_mpfi = inv_df_mpfi };

/* The planes' intercept of side UPPER for the slopes (kx, ky) (and 1 on the additive input): the
 * extreme over the box of  s x h(y) - kx x - ky y, which is affine in x, so at x = xl or xu, where
 * it is s c h(y) - ky y - kx c, whose extreme over [yl, yu] is G2's (cn__relax_extreme). */
static double
times_intercept (const cn__times_fn *T, double xl, double xu, double yl, double yu, double kx, double ky, int upper)
{
  double r = upper ? -INFINITY : INFINITY;
  double xs[2] = { xl, xu };
  for (int e = 0; e < (xl == xu ? 1 : 2); e++)
    {
      double c = xs[e], p = T->scale * c;
      struct scaled sc = { .h = T->h, .hp = T->hp, .sl = cn__down (p), .sh = cn__up (p), .mid = p,
                           .sign = p > 0 ? 1 : p < 0 ? -1 : 0 };
      if (T->scale == 0 || c == 0)
        sc.sl = sc.sh = sc.mid = 0, sc.sign = 0;
      cn__relax_fn F = { .split = T->h->split, .brk = T->h->brk, .curv = sc_curv, .f = sc_f, .df = sc_df,
                         .f_mpfi = sc_f_mpfi, .df_mpfi = sc_df_mpfi };
      double E = cn__relax_extreme (&F, &sc, yl, yu, ky, upper);
      double v = upper ? cn__up (E - cn__down (kx * c)) : cn__down (E - cn__up (kx * c));
      if (isnan (v))
        return upper ? INFINITY : -INFINITY;
      r = upper ? fmax (r, v) : fmin (r, v);
    }
  return r;
}

cn_status
cn__crown_times_fn (const cn_crown_step *st, const char *op, const cn__times_fn *T, int k, cn__ibp_arm ibp,
                    cn_error *err)
{
  int64_t n = st->n_out;
  cn__planes P;
  cn_status rc = cn__planes_open (st, op, k, ibp, &P, err);
  if (rc != CN_OK)
    return rc;
  const cn__relax_fn *H = T->h;
  for (int64_t j = 0; j < n; j++)
    {
      double xl = st->in_box[T->ix]->lo[j], xu = st->in_box[T->ix]->hi[j];
      double yl = st->in_box[T->iy]->lo[j], yu = st->in_box[T->iy]->hi[j];
      double *kl = P.kk + 2 * k * j, *ku = kl + k;
      double bl = -INFINITY, bu = INFINITY;
      int one_piece = !(H->split && yl < H->brk && yu > H->brk);
      if (isfinite (xl) && isfinite (xu) && isfinite (yl) && isfinite (yu) && one_piece)
        {
          /* McCormick on a r, a = s x in [al, au], r = h(y) in [rl, ru] (heuristics), then r's
           * tangent at the midpoint or chord, by h's curvature on the piece and the sign of
           * the coefficient al it gets */
          double s = T->scale, al = fmin (s * xl, s * xu);
          double h1 = H->f (yl, 0, T->hp), h2 = H->f (yu, 0, T->hp);
          int piece = H->split && yu > H->brk;
          int cv = H->curv (piece, T->hp);
          double rl = fmin (h1, h2), ru = fmax (h1, h2), ym = yl / 2 + yu / 2;
          double tangent = H->df (ym, piece, T->hp), chord = yu > yl ? (h2 - h1) / (yu - yl) : tangent;
          /* r >= tangent line where h is convex (else the chord); r <= the other */
          double below = cv > 0 ? tangent : chord, above = cv > 0 ? chord : tangent;
          double kxl = s * rl, kyl = al * (al >= 0 ? below : above);
          double kxu = s * ru, kyu = al * (al >= 0 ? above : below);
          if (st->lam_in[T->ix] == NULL || !isfinite (kxl) || !isfinite (kxu))
            kxl = kxu = 0;
          if (st->lam_in[T->iy] == NULL || !isfinite (kyl) || !isfinite (kyu))
            kyl = kyu = 0;
          bl = times_intercept (T, xl, xu, yl, yu, kxl, kyl, 0);
          bu = times_intercept (T, xl, xu, yl, yu, kxu, kyu, 1);
          kl[T->ix] = kxl;
          kl[T->iy] = kyl;
          ku[T->ix] = kxu;
          ku[T->iy] = kyu;
          if (T->add >= 0 && st->lam_in[T->add] != NULL)
            kl[T->add] = ku[T->add] = 1;
          else if (T->add >= 0)
            {
              /* a constant additive term: its one point joins the intercepts */
              double c0 = st->in_box[T->add]->lo[j];
              int point = c0 == st->in_box[T->add]->hi[j] && isfinite (c0);
              bl = point ? cn__down (bl + c0) : -INFINITY;
              bu = point ? cn__up (bu + c0) : INFINITY;
            }
          /* now kl . u + bl <= v <= ku . u + bu on the box (the additive input's slope 1 is
           * exact; an infinite b: nothing proved) */
        }
      cn__planes_settle (&P, j, bl, bu);
    }
  return cn__planes_step (st, op, &P, err);
}

/* ---- planes over slices ------------------------------------------------------------------------ */

cn__slice_planes *
cn__slice_planes_new (int64_t outer, int64_t n, int64_t inner)
{
  int64_t total = outer * n * inner;
  cn__slice_planes *p = calloc (1, sizeof *p + (size_t) (2 * total * n + 3 * total + 1) * sizeof (double));
  if (p == NULL)
    return NULL;
  *p = (cn__slice_planes) { .outer = outer, .n = n, .inner = inner, .total = total };
  p->A = p->data;
  p->B = p->A + 2 * total * n;
  p->w_up = p->B + 2 * total;
  return p;
}

cn_status
cn__crown_slice_planes (const cn_crown_step *st, const char *op, const cn__slice_planes *P, cn_error *err)
{
  int64_t total = P->total, n = P->n, inner = P->inner;
  CN__ASSERTD (st->n_out == total && st->lam_in[0] != NULL);
  double *bsel = malloc ((size_t) (total + 1) * sizeof *bsel);
  if (bsel == NULL)
    return cn_error_set (err, CN_ENOMEM, "%s: out of memory (node '%s')", op, st->node);
  for (int64_t s = 0; s < st->rows; s++)
    {
      const double *lam = st->lam_out + s * total;
      double *li = st->lam_in[0] + s * total;
      int unbounded = 0;
      for (int64_t o = 0; o < P->outer; o++)
        for (int64_t in = 0; in < inner; in++)
          {
            int64_t base = o * n * inner + in;
            for (int64_t i = 0; i < n; i++)
              {
                int64_t q = base + i * inner;
                double l = lam[q];
                bsel[q] = l == 0 ? 0 : P->B[2 * q + (l < 0)];
                if (l == 0)
                  continue;
                if (!isfinite (bsel[q]))
                  unbounded = 1, bsel[q] = 0;
                const double *a = P->A + ((l < 0 ? total : 0) + q) * n;
                for (int64_t j = 0; j < n; j++)
                  li[base + j * inner] += l * a[j];
              }
          }
      /* now li = fl(lam A) over each slice and lam . v >= li . x + lam . bsel up to those roundings */
      cn__crown_add_dot (st, s, total, lam, bsel);
      if (unbounded)
        cn__crown_charge (st, s, INFINITY);
    }
  cn__crown_charge_affine (st, P->w_up, n, P->m1);
  free (bsel);
  return CN_OK;
}

/* ---- lines an arm writes itself --------------------------------------------------------------- */

cn_status
cn__crown_box_lines (const cn_crown_step *st, const char *op, cn__ibp_arm ibp, cn__entry_lines_fn f, cn_error *err)
{
  int64_t n = st->n_out;
  if (st->lam_in[0] == NULL)
    return cn_error_set (err, CN_EINVAL, "%s: CROWN step on a constant input (node '%s')", op, st->node);
  cn__relax_line *ln = malloc ((size_t) (n ? n : 1) * sizeof *ln);
  cn_box out;
  cn_status rc = cn_box_init (&out, ibp != NULL ? n : 0, err);
  if (rc != CN_OK || ln == NULL)
    {
      if (rc == CN_OK)
        {
          cn_box_clear (&out);
          rc = cn_error_set (err, CN_ENOMEM, "%s: out of memory (node '%s')", op, st->node);
        }
      free (ln);
      return rc;
    }
  if (ibp != NULL)
    rc = ibp (st->nv, st->in_box, &out, err);
  /* now out is a sound box of the node over the input boxes (where asked for) */
  for (int64_t j = 0; j < n && rc == CN_OK; j++)
    rc = f (st, j, ibp != NULL ? out.lo[j] : -INFINITY, ibp != NULL ? out.hi[j] : INFINITY, &ln[j], err);
  if (rc == CN_OK)
    rc = cn__crown_lines (st, op, ln, err);
  cn_box_clear (&out);
  free (ln);
  return rc;
}

cn_status
cn__crown_slice_planes_kept (const cn_crown_step *st, const char *op, int64_t outer, int64_t n, int64_t inner,
                             cn__slice_planes_build build, cn_error *err)
{
  cn__slice_planes *P = st->memo != NULL ? *st->memo : NULL;
  if (P == NULL || P->outer != outer || P->n != n || P->inner != inner)
    {
      P = cn__slice_planes_new (outer, n, inner);
      if (P == NULL)
        return cn_error_set (err, CN_ENOMEM, "%s: out of memory (node '%s')", op, st->node);
      cn_status rc = build (st, P, err);
      if (rc != CN_OK)
        {
          free (P);
          return rc;
        }
      if (st->memo != NULL)
        {
          free (*st->memo);
          *st->memo = P;   /* kept for the next step through this node */
        }
    }
  cn_status rc = cn__crown_slice_planes (st, op, P, err);
  if (st->memo == NULL)
    free (P);
  return rc;
}
