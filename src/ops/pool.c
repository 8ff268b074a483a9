/* SPDX-License-Identifier: MIT */
/* src/ops/pool.c: max and average pooling (pool) and smooth max pooling (smoothMaxPool), both with
 * cn_params_pool.
 *
 * pool: x [N, C, S_1..S_d] -> y [N, C, O_1..O_d], 1 <= d <= 3, window K, stride, padding, dilation;
 * O_i as for conv.  Output position p at kernel offset kk reads i(p,kk) = p stride - pad_begin +
 * kk dilation per axis; W(p) is the set of in-bounds positions of the window (never empty: check
 * refuses attributes with a window entirely in the padding).  Error model (ALGORITHMS.md 6.3): (G)
 * for RN sums and dot products in any order (cn__dot_err), (N) for nonnegative ones.
 * The forwards compute in the sort T of the tensors (float for f32, double for f64), each sum and
 * quotient rounded to nearest in T on its own (fl; FLT_EVAL_METHOD 0); tools/gen_onnx_tests.py emulates
 * them ("f32seq") and tests/check_onnx.c requires the binary32 forward to match bit for bit.
 *   max      Forward  m = the first in-bounds entry of the window (kernel offsets kk in C order), then
 *                     for each later in-bounds entry v in that order m = v if v > m or v is NaN (unless
 *                     m is NaN already): y = max over W(p), exactly (padded positions ignored; a NaN in
 *                     the window gives NaN).
 *            IBP      [max_j l_j, max_j u_j] over W(p) (1.5): exact, no rounding.
 *            CROWN    (ALGORITHMS.md 3, maxpool; needs the input box) with i* = the first argmax of l over
 *                     W(p): y >= x_{i*} always; if l_{i*} >= max_{j != i*} u_j then y = x_{i*} exactly, else
 *                     y <= U = max_j u_j.  A row with lam >= 0 at p (or p exact) sends lam to lam_x[i*]; one
 *                     with lam < 0 at an inexact p adds lam U to its bias (an RN dot product charged by (G),
 *                     cn__dot_err; the row's charge is +inf if some needed U is infinite).  The scatter-add
 *                     into lam_x is exact when no input position lies in two windows; otherwise each lam_x
 *                     entry is an RN sum of at most M lams, M = prod over axes of min(K_i, ceil(span_i /
 *                     stride_i)) bounding the number of windows that share a position (span = dilation
 *                     (K - 1) + 1), charged as an affine step (cn__crown_charge_affine) with
 *                     w_up[p] = m_{i*(p)} and K = M.
 *   average  Forward  s = +0, then s = fl(s + x_j) for the in-bounds positions j of W(p) in C order of
 *                     the kernel offsets (a padded position adds nothing), y = fl(s / D(p)) with
 *                     D(p) = prod(K) if count_include_pad, else |W(p)|, converted to T.
 *            IBP      (affine, 1.1) lower = down(down(s - cn__dot_err (t, |W(p)|)) / D(p)) with s = fl(sum l_j),
 *                     t = fl(sum |l_j|): the RN sum bounded by (G), then a correctly rounded division of the
 *                     bound, rounded down again.  The upper end mirrors it.
 *            CROWN    affine: lam_x[s][j] = sum over the windows containing j of fl(lam_y[s][p] / D(p)), each
 *                     quotient one rounding of the exact product lam (1/D) and the sum an RN sum of at most
 *                     M terms, so (G) holds with K = M; charge cn__crown_charge_affine with
 *                     w_up[p] >= (sum_{j in W(p)} m_j) / D(p) (RN sum rounded up by (N), then a division
 *                     rounded up).  No bias.
 * Pullbacks (binary64, round to nearest, no soundness claim; G is the output's cotangent):
 *   max      y_p = x_{i*(p)} with i*(p) the entry the forward keeps, so  g_x[i*(p)] += G_p  and the
 *            rest of the window gets nothing.  i*(p) follows the forward's scan exactly: the first
 *            in-bounds entry of the window in C order of the kernel offsets, replaced by a later
 *            entry only if that one is strictly greater (or is a NaN while the current is not).  So
 *            at a tie the FIRST maximal entry in that order takes the whole cotangent (a one-sided
 *            choice: max is not differentiable there), and padded positions never get any.
 *   average  y_p = (1/D(p)) sum_{j in W(p)} x_j, so  g_x[j] += fl(G_p / D(p))  for every in-bounds j of
 *            W(p); overlapping windows add their shares.
 * Forward mode (jvp, binary64, round to nearest; T_x the input's tangent, zero without one):
 *   max      T_y[p] = T_x[i*(p)], the entry the pullback routes G_p to (the first maximal entry in C
 *            order of the kernel offsets, the same scan): an exact copy.
 *   average  T_y[p] = fl(fl(sum_{j in W(p)} T_x[j]) / D(p)), the sum from +0 in the forward's order.
 *
 * smoothMaxPool: x [N, C, S_1..S_d] and beta, a frozen scalar [], with pool's window (its kind and
 * count_include_pad ignored; padded positions left out; a window in the padding only is refused):
 *     y_p = (1/beta) log sum_{j in W(p)} exp(beta x_j)
 * (the log-sum-exp smooth maximum for beta > 0, a smooth minimum for beta < 0).  The forward refuses
 * a zero or nonfinite beta with CN_ENUMERIC (the seed's validate), before writing anything.
 *   Forward  in the sort T (exp/expf, log1p/log1pf): m = the window's maximum x (beta > 0) or
 *            minimum (beta < 0), a its first position in C order of the kernel offsets; s = the sum,
 *            from +0 over the other in-bounds positions in that order, of fl(exp(fl(beta fl(x_j - m))))
 *            (each term in [0, 1]: no overflow); y = fl(m + fl(fl(log1p s) / beta)).  A NaN in the
 *            window gives NaN; an infinite m gives y = m (the limit).  The same function: with
 *            z_j = beta x_j, (1/beta) log sum e^{z_j} = m + (1/beta) log(1 + sum_{j != a} e^{beta (x_j - m)}).
 *            Measured error (glibc, x86-64; 10000 windows of 1 to 8 binary32 entries uniform in
 *            [-R, R], |beta| in [0.5, 3] or [10, 30] of either sign; against MPFR at 300 bits), the
 *            largest seen, f64 / f32: at most 1.9 u / 1.8 u times |m| + log(K)/|beta| (u the sort's
 *            unit roundoff, K the window's size) in every setting; in ulps of the result 0.57 / 0.50
 *            for |beta| in [10, 30], R = 20 (y close to m), 33 / 26 for |beta| in [0.5, 3], R = 20,
 *            and up to 800 / 3200 for R = 2, where m and the correction log1p(s)/beta cancel (y near
 *            0).  Not correctly rounded.
 *   IBP      Exact corners.  For fixed beta, dy/dx_j = w_j = e^{beta x_j} / sum_k e^{beta x_k} > 0:
 *            y is increasing in every x_j, for either sign of beta.  For fixed x, with
 *            h(beta) = log sum_j e^{beta x_j}, y = h(beta)/beta and
 *                dy/dbeta = (beta h'(beta) - h(beta)) / beta^2 = (sum_j w_j log w_j) / beta^2 <= 0
 *            (beta h' = sum_j w_j beta x_j and log w_j = beta x_j - h, so the numerator is minus the
 *            entropy of w): y is decreasing in beta on each side of 0.  Over a box [l, u] x
 *            [beta_lo, beta_hi] on one side of 0 the exact range is therefore [y(l, beta_hi),
 *            y(u, beta_lo)].  A beta box containing 0 (where y is undefined and unbounded: y -> max x
 *            + log(K)/beta) or with a NaN end, or a NaN end of x, is CN_ENUMERIC naming the node.
 *            Each corner is evaluated in MPFR at 53 bits on the exact doubles, every step rounded in
 *            the end's direction: for beta > 0, F(x, beta) = M + log1p(sum_{j != a} exp(beta (x_j -
 *            M))) / beta with M = max x_j, every step increasing in what it reads (x_j - M <= 0,
 *            beta > 0 exact), so rounding each step down (up) gives a lower (upper) bound; for
 *            beta < 0, y(x, beta) = -F(-x, -beta) with F rounded the other way.  mpfr_get_d in the
 *            end's direction.  Infinite ends give the limits (M infinite, or beta_hi = +inf: y = M;
 *            x_j = -inf adds exp(-inf) = 0).  Within a few ulps of the exact range.
 *   MPFI     the same corners at the output's precision on the enclosures' ends (the x ends and
 *            beta's rounded in the direction that keeps the bound).
 *   Pullback (binary64) g_x[j] += G_p w_j for j in W(p), w_j = e_j / (1 + s) with e_j =
 *            exp(beta (x_j - m)) (e_a = 1), s and m as in the forward.  beta is frozen: no gradient.
 *            A window whose extreme is infinite routes G_p to a (one-sided choice, the limit of the
 *            weights when the other entries are finite); a NaN window gives NaN.
 *   Jvp      T_y[p] = sum_{j in W(p)} w_j T_x[j] from +0 in C order of the kernel offsets, the same
 *            weights.
 * The arms trust the shapes and sorts the graph builder checked (debug assertions state them);
 * beta's value is input, checked in every arm (CN_ENUMERIC). */
#include <config.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "ops/ops_impl.h"

/* The geometry of a pool node, its spatial axes padded in front to three. */
struct pool_geom
{
  int64_t N, C;
  int64_t S[3], K[3], O[3], str[3], pb[3], dil[3];
  int64_t Sn, Kn, On;
  int64_t mult;                     /* an upper bound of the number of windows sharing an input position */
};

/* Whether some position a + k d (0 <= k < K) lies in [0, S). */
static int
window_hits (int64_t a, int64_t K, int64_t d, int64_t S)
{
  int64_t k0 = a >= 0 ? 0 : (-a + d - 1) / d;
  return k0 < K && a + k0 * d < S;
}

static cn_status
pool_geometry_op (const char *op, int check_kind, const cn_params_pool *p, const cn_shape *x, struct pool_geom *g,
                  cn_shape *out, cn_error *err)
{
  char sx[128];
  /* smoothMaxPool ignores the kind (CHECK_KIND = 0) */
  if (check_kind && p->kind != CN_POOL_MAX && p->kind != CN_POOL_AVG)
    return cn_error_set (err, CN_EINVAL, "pool: unknown kind %d", (int) p->kind);
  if (p->nd < 1 || p->nd > 3)
    return cn_error_set (err, CN_EUNSUPPORTED, "%s: %d spatial axes; 1 to 3 are supported", op, p->nd);
  int nd = p->nd;
  if (x->rank != nd + 2)
    return cn_error_set (err, CN_ESHAPE, "%s: input %s has rank %d, expected %d", op,
                         cn_shape_format (x, sx, sizeof sx),
                         x->rank, nd + 2);
  g->N = x->dim[0];
  g->C = x->dim[1];
  for (int a = 0; a < 3; a++)
    {
      g->S[a] = g->K[a] = g->O[a] = g->str[a] = g->dil[a] = 1;
      g->pb[a] = 0;
    }
  g->mult = 1;
  for (int i = 0; i < nd; i++)
    {
      int a = 3 - nd + i;
      int64_t S = x->dim[2 + i], K = p->kernel[i], st = p->stride[i], dl = p->dilation[i];
      int64_t pb = p->pad_begin[i], pe = p->pad_end[i];
      int64_t O;
      cn_status st_axis = cn__window_axis (op, i, S, K, st, dl, pb, pe, &O, err);
      if (st_axis != CN_OK)
        return st_axis;
      /* Every window must read some input position (a window in the padding alone has no maximum and
       * no average).  The window o starts at a = o st - pb, increasing with o.  When S >= dl, a window
       * with a >= 0 hits iff a < S, and one with a < 0 hits iff a + (K - 1) dl >= 0 (its first
       * position at or past 0 lies in [0, dl), inside the axis): both monotone in a, so only the
       * first and the last windows can miss.  Otherwise every window is tried, their count
       * within the size limit. */
      if (S < dl && O > cn_max_numel ())
        return cn_error_set (err, CN_ELIMIT, "%s: %lld windows on spatial axis %d, more than the size limit %lld",
                             op, (long long) O, i, (long long) cn_max_numel ());
      for (int64_t o = 0; o < O; o += S >= dl && O > 2 && o == 0 ? O - 1 : 1)
        if (!window_hits (o * st - pb, K, dl, S))
          return cn_error_set (err, CN_EINVAL,
                               "%s: window %lld on spatial axis %d lies in the padding only (pads %lld, %lld, "
                               "kernel %lld)",
                               op, (long long) o, i, (long long) pb, (long long) pe, (long long) K);
      /* A position j on this axis is read by at most one window per kernel offset (o st + k d = j + pb
       * fixes o), and only by the windows o with o st in (j + pb - span, j + pb]: at most
       * min(K, ceil(span / st)) windows share it (1 when the windows do not overlap). */
      int64_t span = dl * (K - 1) + 1;   /* no overflow: cn__window_axis checked it */
      int64_t mx = (span + st - 1) / st;
      if (mx > K)
        mx = K;
      if (__builtin_mul_overflow (g->mult, mx, &g->mult))
        return cn_error_set (err, CN_EINVAL, "%s: extents overflow on spatial axis %d", op, i);
      g->S[a] = S;
      g->K[a] = K;
      g->O[a] = O;
      g->str[a] = st;
      g->dil[a] = dl;
      g->pb[a] = pb;
    }
  if (__builtin_mul_overflow (g->S[0], g->S[1], &g->Sn) || __builtin_mul_overflow (g->Sn, g->S[2], &g->Sn)
      || __builtin_mul_overflow (g->K[0], g->K[1], &g->Kn) || __builtin_mul_overflow (g->Kn, g->K[2], &g->Kn)
      || __builtin_mul_overflow (g->O[0], g->O[1], &g->On) || __builtin_mul_overflow (g->On, g->O[2], &g->On))
    return cn_error_set (err, CN_ESHAPE, "%s: element counts overflow", op);
  cn_shape o;
  memset (&o, 0, sizeof o);
  o.rank = nd + 2;
  o.dim[0] = g->N;
  o.dim[1] = g->C;
  for (int i = 0; i < nd; i++)
    o.dim[2 + i] = g->O[3 - nd + i];
  int64_t mk;
  if (cn_shape_numel (&o) < 0 || __builtin_mul_overflow (g->On, g->Kn, &mk))
    return cn_error_set (err, CN_ESHAPE, "%s: element counts overflow", op);
  if (out != NULL)
    *out = o;
  return CN_OK;
}

static cn_status
pool_geometry (const cn_params_pool *p, const cn_shape *x, struct pool_geom *g, cn_shape *out, cn_error *err)
{
  return pool_geometry_op ("pool", 1, p, x, g, out, err);
}

/* The input spatial index read by output position p at kernel offset kk (-1 if padded), an On x Kn
 * table, and D(p), the divisor of average pooling (the kernel size or the in-bounds count). */
static int64_t *
pool_map (const struct pool_geom *g, int count_include_pad, int64_t **div)
{
  int64_t *map = malloc ((size_t) (g->On * g->Kn > 0 ? g->On * g->Kn : 1) * sizeof *map);
  int64_t *d = malloc ((size_t) (g->On > 0 ? g->On : 1) * sizeof *d);
  if (map == NULL || d == NULL)
    {
      free (map);
      free (d);
      return NULL;
    }
  for (int64_t o0 = 0; o0 < g->O[0]; o0++)
    for (int64_t o1 = 0; o1 < g->O[1]; o1++)
      for (int64_t o2 = 0; o2 < g->O[2]; o2++)
        {
          int64_t p = (o0 * g->O[1] + o1) * g->O[2] + o2, cnt = 0;
          for (int64_t k0 = 0; k0 < g->K[0]; k0++)
            for (int64_t k1 = 0; k1 < g->K[1]; k1++)
              for (int64_t k2 = 0; k2 < g->K[2]; k2++)
                {
                  int64_t kk = (k0 * g->K[1] + k1) * g->K[2] + k2;
                  int64_t i0 = o0 * g->str[0] - g->pb[0] + k0 * g->dil[0];
                  int64_t i1 = o1 * g->str[1] - g->pb[1] + k1 * g->dil[1];
                  int64_t i2 = o2 * g->str[2] - g->pb[2] + k2 * g->dil[2];
                  int in = i0 >= 0 && i0 < g->S[0] && i1 >= 0 && i1 < g->S[1] && i2 >= 0 && i2 < g->S[2];
                  map[p * g->Kn + kk] = in ? (i0 * g->S[1] + i1) * g->S[2] + i2 : -1;
                  cnt += in;
                }
          d[p] = count_include_pad ? g->Kn : cnt;
        }
  *div = d;
  return map;
}

static cn_status
pool_check (const struct cn_op_rule *rule, const void *params, int n_in, const cn_shape *const *in, cn_shape *out, cn_error *err)
{
  (void) rule;
  if (params == NULL)
    return cn_error_set (err, CN_EINVAL, "pool: missing attributes");
  if (n_in != 1)
    return cn_error_set (err, CN_EINVAL, "pool: %d inputs, expected 1", n_in);
  struct pool_geom g;
  return pool_geometry (params, in[0], &g, out, err);
}

static cn_status
pool_prepare (const cn_node_view *nv, struct pool_geom *g, int64_t **map, int64_t **div, cn_error *err)
{
  const cn_params_pool *p = nv->params;
  cn_status st = pool_geometry (p, nv->in_shape[0], g, NULL, err);
  if (st != CN_OK)
    return st;
  *map = pool_map (g, p->count_include_pad, div);
  if (*map == NULL)
    return cn_error_set (err, CN_ENOMEM, "pool: out of memory (node '%s')", cn__node_name (nv));
  return CN_OK;
}

/* The forward in the sort T, in the order of the header: the window's in-bounds entries in C order of
 * the kernel offsets, one rounded sum per entry (average, then one rounded quotient) or an exact
 * comparison (max). */
#define POOL_FORWARD(T)                                                                     \
  do                                                                                        \
    {                                                                                       \
      const T *x = in[0]->data;                                                             \
      T *y = out->data;                                                                     \
      for (int64_t nc = 0; nc < g.N * g.C; nc++)                                            \
        for (int64_t p = 0; p < g.On; p++)                                                  \
          {                                                                                 \
            const int64_t *mp = map + p * g.Kn;                                             \
            const T *xp = x + nc * g.Sn;                                                    \
            T acc = 0;                                                                      \
            int first = 1;                                                                  \
            for (int64_t kk = 0; kk < g.Kn; kk++)                                           \
              {                                                                             \
                if (mp[kk] < 0)                                                             \
                  continue;                                                                 \
                T v = xp[mp[kk]];                                                           \
                if (is_max)                                                                 \
                  {                                                                         \
                    if (first || v > acc || isnan (v))                                      \
                      acc = isnan (acc) ? acc : v;                                          \
                  }                                                                         \
                else                                                                        \
                  acc += v;                                                                 \
                first = 0;                                                                  \
              }                                                                             \
            y[nc * g.On + p] = is_max ? acc : acc / (T) div[p];                             \
          }                                                                                 \
    }                                                                                       \
  while (0)

static cn_status
pool_forward (const cn_node_view *nv, const cn_tensor *const *in, cn_tensor *out, cn_error *err)
{
  CN__ASSERTD (cn_dtype_is_float (out->dtype) && in[0]->dtype == out->dtype);
  struct pool_geom g;
  int64_t *map, *div;
  cn_status st = pool_prepare (nv, &g, &map, &div, err);
  if (st != CN_OK)
    return st;
  int is_max = ((const cn_params_pool *) nv->params)->kind == CN_POOL_MAX;
  if (out->dtype == CN_DTYPE_F64)
    POOL_FORWARD (double);
  else
    POOL_FORWARD (float);
  free (map);
  free (div);
  return CN_OK;
}

/* Whether the input has N_IN entries and the output N_OUT (unless N_OUT < 0), the node's element
 * counts (an invariant: the graph builder checked the shapes, and the engines allocate from
 * them). */
static int
sizes_ok (const cn_node_view *nv, int64_t n_in, int64_t n_out)
{
  return n_in == cn__numel (nv->in_shape[0]) && (n_out < 0 || n_out == cn__numel (nv->out_shape));
}

static cn_status
pool_ibp (const cn_node_view *nv, const cn_box *const *in, cn_box *out, cn_error *err)
{
  CN__ASSERTD (sizes_ok (nv, in[0]->n, out->n));
  cn_status st;
  struct pool_geom g;
  int64_t *map, *div;
  if ((st = pool_prepare (nv, &g, &map, &div, err)) != CN_OK)
    return st;
  int is_max = ((const cn_params_pool *) nv->params)->kind == CN_POOL_MAX;
  for (int64_t nc = 0; nc < g.N * g.C; nc++)
    {
      const double *xl = in[0]->lo + nc * g.Sn, *xh = in[0]->hi + nc * g.Sn;
      for (int64_t p = 0; p < g.On; p++)
        {
          const int64_t *mp = map + p * g.Kn;
          int64_t o = nc * g.On + p;
          if (is_max)
            {
              /* The max of the lower (upper) ends bounds the max from below (above), exactly. */
              double lo = -INFINITY, hi = -INFINITY;
              for (int64_t kk = 0; kk < g.Kn; kk++)
                if (mp[kk] >= 0)
                  {
                    lo = fmax (lo, xl[mp[kk]]);
                    hi = fmax (hi, xh[mp[kk]]);
                  }
              out->lo[o] = lo;
              out->hi[o] = hi;
            }
          else
            {
              double sl = 0, tl = 0, sh = 0, th = 0;
              int64_t k = 0;
              for (int64_t kk = 0; kk < g.Kn; kk++)
                if (mp[kk] >= 0)
                  {
                    sl += xl[mp[kk]];
                    tl += fabs (xl[mp[kk]]);
                    sh += xh[mp[kk]];
                    th += fabs (xh[mp[kk]]);
                    k++;
                  }
              /* now sl, sh are RN sums of k terms; (G) bounds the exact sums, and dividing a bound by
               * D > 0 and rounding outward keeps it a bound. */
              double d = (double) div[p];
              double lo = cn__down (cn__down (sl - cn__dot_err (tl, k)) / d);
              double hi = cn__up (cn__up (sh + cn__dot_err (th, k)) / d);
              out->lo[o] = isnan (lo) ? -INFINITY : lo;
              out->hi[o] = isnan (hi) ? INFINITY : hi;
            }
        }
    }
  free (map);
  free (div);
  return CN_OK;
}

static cn_status
pool_ibp_mpfi (const cn_node_view *nv, const cn_mpfi_vec *const *in, cn_mpfi_vec *out, cn_error *err)
{
  CN__ASSERTD (sizes_ok (nv, in[0]->n, out->n));
  if (out->n == 0)
    return CN_OK;
  cn_status st;
  struct pool_geom g;
  int64_t *map, *div;
  if ((st = pool_prepare (nv, &g, &map, &div, err)) != CN_OK)
    return st;
  int is_max = ((const cn_params_pool *) nv->params)->kind == CN_POOL_MAX;
  mpfr_prec_t prec = mpfi_get_prec (out->v[0]);
  mpfr_t lo, hi, e;
  mpfr_inits2 (prec, lo, hi, e, (mpfr_ptr) 0);
  for (int64_t nc = 0; nc < g.N * g.C; nc++)
    for (int64_t p = 0; p < g.On; p++)
      {
        const int64_t *mp = map + p * g.Kn;
        mpfi_ptr y = out->v[nc * g.On + p];
        if (is_max)
          {
            /* max is increasing in every argument: [max of left ends, max of right ends]. */
            int first = 1;
            for (int64_t kk = 0; kk < g.Kn; kk++)
              {
                if (mp[kk] < 0)
                  continue;
                mpfi_srcptr x = in[0]->v[nc * g.Sn + mp[kk]];
                if (first)
                  {
                    mpfi_get_left (lo, x);
                    mpfi_get_right (hi, x);
                    first = 0;
                  }
                else
                  {
                    mpfi_get_left (e, x);
                    mpfr_max (lo, lo, e, MPFR_RNDD);
                    mpfi_get_right (e, x);
                    mpfr_max (hi, hi, e, MPFR_RNDU);
                  }
              }
            mpfi_interv_fr (y, lo, hi);
          }
        else
          {
            mpfi_set_ui (y, 0);
            for (int64_t kk = 0; kk < g.Kn; kk++)
              if (mp[kk] >= 0)
                mpfi_add (y, y, in[0]->v[nc * g.Sn + mp[kk]]);
            mpfi_div_ui (y, y, (unsigned long) div[p]);
          }
      }
  mpfr_clears (lo, hi, e, (mpfr_ptr) 0);
  free (map);
  free (div);
  return CN_OK;
}

static cn_status
pool_crown (const cn_crown_step *st, cn_error *err)
{
  const cn_node_view *nv = st->nv;
  double *lam_x = st->lam_in[0];
  if (lam_x == NULL)
    return CN_OK;
  const cn_box *box = st->in_box[0];
  CN__ASSERTD (sizes_ok (nv, box->n, -1));
  cn_status ret;
  struct pool_geom g;
  int64_t *map, *div;
  if ((ret = pool_prepare (nv, &g, &map, &div, err)) != CN_OK)
    return ret;
  int is_max = ((const cn_params_pool *) nv->params)->kind == CN_POOL_MAX;
  int64_t n_out = g.N * g.C * g.On, n_x = box->n, NC = g.N * g.C;
  int nthr = st->threads > 0 ? st->threads : 1;
  double *m = NULL, *w_up = NULL, *U = NULL;
  int64_t *istar = NULL;
  unsigned char *exact = NULL;
  if (n_out == 0 || st->rows == 0)
    goto done;
  m = malloc ((size_t) (n_x ? n_x : 1) * sizeof *m);
  w_up = malloc ((size_t) n_out * sizeof *w_up);
  if (m == NULL || w_up == NULL)
    goto nomem;
  double m1 = cn__box_magnitude (box, m);

  if (!is_max)
    {
      /* lam_x[s][nc, j] += fl(lam_y[s][nc, p] / D(p)) for every window p containing j. */
#pragma omp parallel for num_threads(nthr) if (st->rows * n_out * g.Kn > 65536)
      for (int64_t s = 0; s < st->rows; s++)
        for (int64_t nc = 0; nc < NC; nc++)
          {
            const double *l = st->lam_out + s * n_out + nc * g.On;
            double *dst = lam_x + s * n_x + nc * g.Sn;
            for (int64_t p = 0; p < g.On; p++)
              {
                if (l[p] == 0)
                  continue;
                double v = l[p] / (double) div[p];
                const int64_t *mp = map + p * g.Kn;
                for (int64_t kk = 0; kk < g.Kn; kk++)
                  if (mp[kk] >= 0)
                    dst[mp[kk]] += v;
              }
          }
      /* w_up[p] >= (sum_{j in W(p)} m_j) / D(p). */
      for (int64_t nc = 0; nc < NC; nc++)
        for (int64_t p = 0; p < g.On; p++)
          {
            const int64_t *mp = map + p * g.Kn;
            double t = 0;
            for (int64_t kk = 0; kk < g.Kn; kk++)
              if (mp[kk] >= 0)
                t += m[nc * g.Sn + mp[kk]];
            double u = cn__up (cn__up (cn__kappa (g.Kn) * cn__up (t + (double) g.Kn * CN_ETA)) / (double) div[p]);
            w_up[nc * g.On + p] = isnan (u) ? INFINITY : u;
          }
      cn__crown_charge_affine (st, w_up, g.mult, m1);
      goto done;
    }

  /* Max pooling: per output, i* (first argmax of the lower ends), exactness and U = max of the
   * upper ends. */
  istar = malloc ((size_t) n_out * sizeof *istar);
  U = malloc ((size_t) n_out * sizeof *U);
  exact = malloc ((size_t) n_out);
  if (istar == NULL || U == NULL || exact == NULL)
    goto nomem;
  for (int64_t nc = 0; nc < NC; nc++)
    for (int64_t p = 0; p < g.On; p++)
      {
        const int64_t *mp = map + p * g.Kn;
        const double *xl = box->lo + nc * g.Sn, *xh = box->hi + nc * g.Sn;
        int64_t best = -1;
        for (int64_t kk = 0; kk < g.Kn; kk++)
          if (mp[kk] >= 0 && (best < 0 || xl[mp[kk]] > xl[best]))
            best = mp[kk];
        double u_max = -INFINITY, u_other = -INFINITY;
        for (int64_t kk = 0; kk < g.Kn; kk++)
          if (mp[kk] >= 0)
            {
              u_max = fmax (u_max, xh[mp[kk]]);
              if (mp[kk] != best)
                u_other = fmax (u_other, xh[mp[kk]]);
            }
        int64_t o = nc * g.On + p;
        istar[o] = nc * g.Sn + best;
        U[o] = u_max;
        /* x_{i*} >= l_{i*} >= u_j >= x_j for every other j: then y = x_{i*}. */
        exact[o] = xl[best] >= u_other;
        w_up[o] = m[istar[o]];
      }
#pragma omp parallel for num_threads(nthr) if (st->rows * n_out > 65536)
  for (int64_t s = 0; s < st->rows; s++)
    {
      const double *l = st->lam_out + s * n_out;
      double *dst = lam_x + s * n_x;
      double d = 0, t = 0;
      int64_t k = 0;
      int unbounded = 0;
      for (int64_t o = 0; o < n_out; o++)
        {
          double v = l[o];
          if (v == 0)
            continue;
          if (v > 0 || exact[o])
            dst[istar[o]] += v;         /* lam y >= lam x_{i*} */
          else if (isinf (U[o]))
            unbounded = 1;              /* no upper line: the row's bound is -inf */
          else
            {
              double p = v * U[o];      /* lam y >= lam U */
              d += p;
              t += fabs (p);
              k++;
            }
        }
      /* now d = fl(sum lam U) over k terms; (G) bounds its error by cn__dot_err (t, k). */
      cn__crown_add_sum (st, s, d, t, k, unbounded);
    }
  /* Overlapping windows: lam_x entries are RN sums of up to g.mult lams, each lam_y[p] routed to
   * x_{i*(p)} at most, so |A| m <= m_{i*} row by row. */
  if (g.mult > 1)
    cn__crown_charge_affine (st, w_up, g.mult, m1);
done:
  ret = CN_OK;
fail:
  free (map);
  free (div);
  free (m);
  free (w_up);
  free (U);
  free (istar);
  free (exact);
  return ret;
nomem:
  ret = cn_error_set (err, CN_ENOMEM, "pool: out of memory (node '%s')", cn__node_name (nv));
  goto fail;
}

static cn_status
pool_pullback (const cn_node_view *nv, const cn_tensor *const *in, const cn_tensor *out, const double *g_out,
               double *const *g_in, cn_error *err)
{
  CN__ASSERTD (in[0]->dtype == CN_DTYPE_F64 && out->dtype == CN_DTYPE_F64);
  CN__ASSERTD (sizes_ok (nv, cn_tensor_numel (in[0]), cn_tensor_numel (out)));
  cn_status st;
  double *gx = g_in[0];
  if (gx == NULL)
    return CN_OK;
  struct pool_geom g;
  int64_t *map, *div;
  if ((st = pool_prepare (nv, &g, &map, &div, err)) != CN_OK)
    return st;
  int is_max = ((const cn_params_pool *) nv->params)->kind == CN_POOL_MAX;
  const double *x = in[0]->data;
  for (int64_t nc = 0; nc < g.N * g.C; nc++)
    {
      const double *xp = x + nc * g.Sn;
      double *dst = gx + nc * g.Sn;
      for (int64_t p = 0; p < g.On; p++)
        {
          const int64_t *mp = map + p * g.Kn;
          double gp = g_out[nc * g.On + p];
          if (is_max)
            {
              /* The forward's scan: the first in-bounds entry, then a strictly greater one, or a NaN
               * while the kept value is not a NaN. */
              int64_t best = -1;
              for (int64_t kk = 0; kk < g.Kn; kk++)
                {
                  if (mp[kk] < 0)
                    continue;
                  double v = xp[mp[kk]];
                  if (best < 0 || (!isnan (xp[best]) && (v > xp[best] || isnan (v))))
                    best = mp[kk];
                }
              /* now xp[best] = y_p, best the entry the forward kept (the window is never empty) */
              if (best >= 0)
                dst[best] += gp;
            }
          else
            {
              double v = gp / (double) div[p];
              for (int64_t kk = 0; kk < g.Kn; kk++)
                if (mp[kk] >= 0)
                  dst[mp[kk]] += v;
            }
        }
    }
  free (map);
  free (div);
  return CN_OK;
}

static cn_status
pool_jvp (const cn_node_view *nv, const cn_tensor *const *in, const cn_tensor *out, const double *const *t_in,
          double *t_out, cn_error *err)
{
  CN__ASSERTD (in[0]->dtype == CN_DTYPE_F64 && out->dtype == CN_DTYPE_F64);
  CN__ASSERTD (sizes_ok (nv, cn_tensor_numel (in[0]), cn_tensor_numel (out)));
  cn_status st;
  const double *tx = t_in[0];
  int64_t no = cn_tensor_numel (out);
  if (tx == NULL)
    {
      for (int64_t q = 0; q < no; q++)
        t_out[q] = 0;
      return CN_OK;
    }
  struct pool_geom g;
  int64_t *map, *div;
  if ((st = pool_prepare (nv, &g, &map, &div, err)) != CN_OK)
    return st;
  int is_max = ((const cn_params_pool *) nv->params)->kind == CN_POOL_MAX;
  const double *x = in[0]->data;
  for (int64_t nc = 0; nc < g.N * g.C; nc++)
    {
      const double *xp = x + nc * g.Sn, *tp = tx + nc * g.Sn;
      for (int64_t p = 0; p < g.On; p++)
        {
          const int64_t *mp = map + p * g.Kn;
          double t = 0;
          if (is_max)
            {
              /* The pullback's scan (see pool_pullback). */
              int64_t best = -1;
              for (int64_t kk = 0; kk < g.Kn; kk++)
                {
                  if (mp[kk] < 0)
                    continue;
                  double v = xp[mp[kk]];
                  if (best < 0 || (!isnan (xp[best]) && (v > xp[best] || isnan (v))))
                    best = mp[kk];
                }
              /* now best is the entry the forward kept */
              if (best >= 0)
                t = tp[best];
            }
          else
            {
              for (int64_t kk = 0; kk < g.Kn; kk++)
                if (mp[kk] >= 0)
                  t += tp[mp[kk]];
              t /= (double) div[p];
            }
          t_out[nc * g.On + p] = t;
        }
    }
  free (map);
  free (div);
  return CN_OK;
}

/* pool in binary32: max pooling picks a word (0 error); average pooling sums the window's
 * in-bounds words in any order and divides by D(p) or multiplies by fl32(1/D(p))
 * (cn__b32_mean_err with T the window's magnitudes summed, rounded up by (N)). */
static cn_status
pool_roundoff32 (const cn_node_view *nv, const cn_box *const *in, const cn_box *out, double *e, cn_error *err)
{
  if (((const cn_params_pool *) nv->params)->kind == CN_POOL_MAX)
    return cn__roundoff32_exact (nv, in, out, e, err);
  cn_status st;
  struct pool_geom g;
  int64_t *map, *div;
  if ((st = pool_prepare (nv, &g, &map, &div, err)) != CN_OK)
    return st;
  for (int64_t nc = 0; nc < g.N * g.C; nc++)
    for (int64_t p = 0; p < g.On; p++)
      {
        const int64_t *mp = map + p * g.Kn;
        double t = 0;
        int64_t cnt = 0;
        for (int64_t kk = 0; kk < g.Kn; kk++)
          if (mp[kk] >= 0)
            {
              int64_t j = nc * g.Sn + mp[kk];
              t += fmax (fabs (in[0]->lo[j]), fabs (in[0]->hi[j]));
              cnt++;
            }
        e[nc * g.On + p] = cn__b32_mean_err (cn__nonneg_up (t, cnt > 0 ? cnt : 1), cnt > 0 ? cnt : 1, div[p]);
      }
  free (map);
  free (div);
  return CN_OK;
}

const struct cn_op_rule cn__rule_POOL = { .op = CN_OP_POOL,
  .n_in = 1,
  .flags = CN_RULE_NEEDS_BOUNDS,
  .check = pool_check,
  .forward = pool_forward,
  .pullback = pool_pullback,
  .jvp = pool_jvp,
  .ibp = pool_ibp,
  .ibp_mpfi = pool_ibp_mpfi,
  .crown = pool_crown,
  .roundoff32 = pool_roundoff32,
  .certs = CN__CERTS (CN__CERT_GRADIENT, CN__CERT_BOUNDS,
                      CN__CERT_ROUNDOFF32 ("max pooling picks a word (0 error); average pooling sums the window's "
                                           "in-bounds words in any order, then divides by D(p) or multiplies by "
                                           "fl32(1/D(p)): (G32) scaled, cn__b32_mean_err")),
};

/* ---- smoothMaxPool ---------------------------------------------------------------------- */

static cn_status
smp_check (const struct cn_op_rule *rule, const void *params, int n_in, const cn_shape *const *in, cn_shape *out, cn_error *err)
{
  (void) rule;
  char sb[128];
  if (params == NULL)
    return cn_error_set (err, CN_EINVAL, "smoothMaxPool: missing attributes");
  if (n_in != 2)
    return cn_error_set (err, CN_EINVAL, "smoothMaxPool: %d inputs, expected 2 (x, beta)", n_in);
  for (int i = 0; i < 2; i++)
    {
      cn_status st = cn__input_valid ("smoothMaxPool", i, in[i], err);
      if (st != CN_OK)
        return st;
    }
  if (in[1]->rank != 0)
    return cn_error_set (err, CN_ESHAPE, "smoothMaxPool: beta has shape %s, expected a scalar []",
                         cn_shape_format (in[1], sb, sizeof sb));
  struct pool_geom g;
  return pool_geometry_op ("smoothMaxPool", 0, params, in[0], &g, out, err);
}

/* The geometry and input map of a smoothMaxPool node whose shapes were checked. */
static cn_status
smp_prepare (const cn_node_view *nv, struct pool_geom *g, int64_t **map, cn_error *err)
{
  cn_status st = pool_geometry_op ("smoothMaxPool", 0, nv->params, nv->in_shape[0], g, NULL, err);
  if (st != CN_OK)
    return st;
  int64_t *div;
  *map = pool_map (g, 0, &div);
  if (*map == NULL)
    return cn_error_set (err, CN_ENOMEM, "smoothMaxPool: out of memory (node '%s')", cn__node_name (nv));
  free (div);
  return CN_OK;
}

/* The forward's validation of beta (the seed's validate): finite and nonzero. */
static cn_status
smp_beta_ok (const cn_node_view *nv, double beta, cn_error *err)
{
  if (!isfinite (beta) || beta == 0)
    return cn_error_set (err, CN_ENUMERIC, "smoothMaxPool: beta %g is zero or not finite (node '%s')", beta,
                         cn__node_name (nv));
  return CN_OK;
}

/* The forward in the sort T, in the order of the header: the window's extreme m (its first
 * position a in C order of the kernel offsets), s = the sum over the other in-bounds entries, in
 * that order, of EXP(fl(beta fl(x - m))), then y = fl(m + fl(LOG1P(s) / beta)); a NaN in the
 * window gives NaN and an infinite extreme gives y = m. */
#define SMP_FORWARD(T, EXP, LOG1P)                                                          \
  do                                                                                        \
    {                                                                                       \
      const T *x = in[0]->data;                                                             \
      const T beta = ((const T *) in[1]->data)[0];                                          \
      T *y = out->data;                                                                     \
      for (int64_t nc = 0; nc < g.N * g.C; nc++)                                            \
        for (int64_t p = 0; p < g.On; p++)                                                  \
          {                                                                                 \
            const int64_t *mp = map + p * g.Kn;                                             \
            const T *xp = x + nc * g.Sn;                                                    \
            T m = 0, s = 0, r;                                                              \
            int64_t a = -1;                                                                 \
            int nan = 0;                                                                    \
            for (int64_t kk = 0; kk < g.Kn; kk++)                                           \
              {                                                                             \
                if (mp[kk] < 0)                                                             \
                  continue;                                                                 \
                T v = xp[mp[kk]];                                                           \
                if (isnan (v))                                                              \
                  nan = 1;                                                                  \
                else if (a < 0 || (beta > 0 ? v > m : v < m))                               \
                  m = v, a = kk;                                                            \
              }                                                                             \
            if (nan || a < 0)                                                               \
              r = (T) NAN;                                                                  \
            else if (isinf (m))                                                             \
              r = m;                                                                        \
            else                                                                            \
              {                                                                             \
                for (int64_t kk = 0; kk < g.Kn; kk++)                                       \
                  if (mp[kk] >= 0 && kk != a)                                               \
                    s += EXP (beta * (xp[mp[kk]] - m));                                     \
                r = m + LOG1P (s) / beta;                                                   \
              }                                                                             \
            y[nc * g.On + p] = r;                                                           \
          }                                                                                 \
    }                                                                                       \
  while (0)

static cn_status
smp_forward (const cn_node_view *nv, const cn_tensor *const *in, cn_tensor *out, cn_error *err)
{
  CN__ASSERTD (cn_dtype_is_float (out->dtype) && in[0]->dtype == out->dtype && in[1]->dtype == out->dtype);
  CN__ASSERTD (cn_tensor_numel (in[1]) == 1);
  cn_status st = smp_beta_ok (nv, cn_tensor_get_f64 (in[1], 0), err);
  if (st != CN_OK)
    return st;
  struct pool_geom g;
  int64_t *map;
  if ((st = smp_prepare (nv, &g, &map, err)) != CN_OK)
    return st;
  if (out->dtype == CN_DTYPE_F64)
    SMP_FORWARD (double, exp, log1p);
  else
    SMP_FORWARD (float, expf, log1pf);
  free (map);
  return CN_OK;
}

/* An upper (R = MPFR_RNDU) or lower (MPFR_RNDD) bound Y of
 *     F(x, beta) = M + log1p (sum_{j != a} exp (beta (x_j - M))) / beta,   M = x_a = max_j x_j,
 * for N >= 1 numbers X (exact) and BETA > 0 (+inf: the limit M), every step rounded in the
 * direction R: each is increasing in the quantities it reads (x_j - M <= 0, beta > 0), so the
 * result bounds F in that direction.  D and S are scratch numbers of Y's precision. */
static void
smp_bound (mpfr_ptr y, int64_t n, mpfr_t *x, mpfr_srcptr beta, mpfr_rnd_t r, mpfr_ptr d, mpfr_ptr s)
{
  int64_t a = 0;
  for (int64_t j = 1; j < n; j++)
    if (mpfr_greater_p (x[j], x[a]))
      a = j;
  /* M = x[a]; an infinite M (all entries -inf, or one +inf) or beta is the limit M */
  if (mpfr_inf_p (x[a]) || mpfr_inf_p (beta))
    {
      mpfr_set (y, x[a], r);
      return;
    }
  mpfr_set_zero (s, 1);
  for (int64_t j = 0; j < n; j++)
    if (j != a)
      {
        mpfr_sub (d, x[j], x[a], r);
        mpfr_mul (d, d, beta, r);
        mpfr_exp (d, d, r);
        mpfr_add (s, s, d, r);
      }
  /* now s bounds sum_{j != a} exp(beta (x_j - M)) in [0, n - 1] in the direction r */
  mpfr_log1p (s, s, r);
  mpfr_div (s, s, beta, r);
  mpfr_add (y, x[a], s, r);
}

/* One end of smoothMaxPool over one window: XV holds the J in-bounds x ends of the window (the
 * lower ends for LOWER = 1, else the upper ends), negated when beta < 0 (SIGN = -1), and B the
 * beta end as |beta| (beta_hi for the lower end, beta_lo for the upper).  Y receives the bound:
 * for beta > 0, F rounded in the end's direction; for beta < 0, -F(-x, |beta|) with F rounded the
 * other way. */
static void
smp_end (mpfr_ptr y, int64_t J, mpfr_t *xv, mpfr_srcptr b, int lower, int sign, mpfr_ptr d, mpfr_ptr s)
{
  /* sign > 0: lower = F_down (l, beta_hi), upper = F_up (u, beta_lo);
   * sign < 0: lower = -F_up (-l, -beta_hi), upper = -F_down (-u, -beta_lo). */
  mpfr_rnd_t r = (lower == (sign > 0)) ? MPFR_RNDD : MPFR_RNDU;
  smp_bound (y, J, xv, b, r, d, s);
  if (sign < 0)
    mpfr_neg (y, y, MPFR_RNDN);
}

/* The beta box [bl, bh] (ends as doubles): CN_ENUMERIC unless it lies on one side of 0 without
 * NaN; *SIGN receives that side. */
static cn_status
smp_beta_box (const cn_node_view *nv, double bl, double bh, int *sign, cn_error *err)
{
  if (isnan (bl) || isnan (bh))
    return cn_error_set (err, CN_ENUMERIC, "smoothMaxPool: NaN end in beta's box (node '%s')", cn__node_name (nv));
  if (bl <= 0 && bh >= 0)
    return cn_error_set (err, CN_ENUMERIC, "smoothMaxPool: beta's box [%g, %g] contains 0 (node '%s')", bl, bh,
                         cn__node_name (nv));
  *sign = bl > 0 ? 1 : -1;
  return CN_OK;
}

/* Whether x has NX entries, beta NB = 1 and the output N_OUT (unless N_OUT < 0): the node's
 * element counts (an invariant, as for pool). */
static int
smp_sizes (const cn_node_view *nv, int64_t nx, int64_t nb, int64_t n_out)
{
  return nx == cn__numel (nv->in_shape[0]) && nb == 1 && (n_out < 0 || n_out == cn__numel (nv->out_shape));
}

/* Numbers of precision PREC for a window (N of them) and four scratch numbers; 0 if out of memory. */
static mpfr_t *
smp_numbers (int64_t n, mpfr_prec_t prec)
{
  mpfr_t *v = malloc ((size_t) (n + 4) * sizeof *v);
  if (v != NULL)
    for (int64_t j = 0; j < n + 4; j++)
      mpfr_init2 (v[j], prec);
  return v;
}

static void
smp_numbers_free (mpfr_t *v, int64_t n)
{
  if (v == NULL)
    return;
  for (int64_t j = 0; j < n + 4; j++)
    mpfr_clear (v[j]);
  free (v);
}

static cn_status
smp_ibp (const cn_node_view *nv, const cn_box *const *in, cn_box *out, cn_error *err)
{
  CN__ASSERTD (smp_sizes (nv, in[0]->n, in[1]->n, out->n));
  cn_status st;
  int sign = 1;
  if ((st = smp_beta_box (nv, in[1]->lo[0], in[1]->hi[0], &sign, err)) != CN_OK)
    return st;
  for (int64_t j = 0; j < in[0]->n; j++)
    if (isnan (in[0]->lo[j]) || isnan (in[0]->hi[j]))
      return cn_error_set (err, CN_ENUMERIC, "smoothMaxPool: NaN end in the input box at entry %lld (node '%s')",
                           (long long) j, cn__node_name (nv));
  struct pool_geom g;
  int64_t *map;
  if ((st = smp_prepare (nv, &g, &map, err)) != CN_OK)
    return st;
  /* 53-bit numbers: every double is exact there, and mpfr_get_d in the end's direction keeps the
   * bound. */
  mpfr_t *v = smp_numbers (g.Kn, 53);
  if (v == NULL)
    {
      free (map);
      return cn_error_set (err, CN_ENOMEM, "smoothMaxPool: out of memory (node '%s')", cn__node_name (nv));
    }
  mpfr_ptr y = v[g.Kn], d = v[g.Kn + 1], s = v[g.Kn + 2], b = v[g.Kn + 3];
  for (int64_t nc = 0; nc < g.N * g.C; nc++)
    for (int64_t p = 0; p < g.On; p++)
      {
        const int64_t *mp = map + p * g.Kn;
        int64_t o = nc * g.On + p;
        for (int lower = 1; lower >= 0; lower--)
          {
            const double *xe = (lower ? in[0]->lo : in[0]->hi) + nc * g.Sn;
            int64_t J = 0;
            for (int64_t kk = 0; kk < g.Kn; kk++)
              if (mp[kk] >= 0)
                mpfr_set_d (v[J++], sign * xe[mp[kk]], MPFR_RNDN);      /* exact */
            /* the beta end: beta_hi for the lower end, beta_lo for the upper (either sign), as |beta| */
            mpfr_set_d (b, sign * (lower ? in[1]->hi[0] : in[1]->lo[0]), MPFR_RNDN);
            smp_end (y, J, v, b, lower, sign, d, s);
            double e = mpfr_get_d (y, lower ? MPFR_RNDD : MPFR_RNDU);
            if (lower)
              out->lo[o] = isnan (e) ? -INFINITY : e;
            else
              out->hi[o] = isnan (e) ? INFINITY : e;
          }
      }
  smp_numbers_free (v, g.Kn);
  free (map);
  return CN_OK;
}

static cn_status
smp_ibp_mpfi (const cn_node_view *nv, const cn_mpfi_vec *const *in, cn_mpfi_vec *out, cn_error *err)
{
  CN__ASSERTD (smp_sizes (nv, in[0]->n, in[1]->n, out->n));
  if (out->n == 0)
    return CN_OK;
  cn_status st;
  mpfi_srcptr bv = in[1]->v[0];
  if (mpfi_nan_p (bv))
    return cn_error_set (err, CN_ENUMERIC, "smoothMaxPool: NaN in beta's enclosure (node '%s')", cn__node_name (nv));
  if (mpfr_sgn (&bv->left) <= 0 && mpfr_sgn (&bv->right) >= 0)
    return cn_error_set (err, CN_ENUMERIC, "smoothMaxPool: beta's enclosure contains 0 (node '%s')",
                         cn__node_name (nv));
  int sign = mpfr_sgn (&bv->left) > 0 ? 1 : -1;
  for (int64_t j = 0; j < in[0]->n; j++)
    if (mpfi_nan_p (in[0]->v[j]))
      return cn_error_set (err, CN_ENUMERIC, "smoothMaxPool: NaN in the input enclosure at entry %lld (node '%s')",
                           (long long) j, cn__node_name (nv));
  struct pool_geom g;
  int64_t *map;
  if ((st = smp_prepare (nv, &g, &map, err)) != CN_OK)
    return st;
  mpfr_prec_t prec = mpfi_get_prec (out->v[0]);
  mpfr_t *v = smp_numbers (g.Kn, prec), lo;
  if (v == NULL)
    {
      free (map);
      return cn_error_set (err, CN_ENOMEM, "smoothMaxPool: out of memory (node '%s')", cn__node_name (nv));
    }
  mpfr_init2 (lo, prec);
  mpfr_ptr y = v[g.Kn], d = v[g.Kn + 1], s = v[g.Kn + 2], b = v[g.Kn + 3];
  for (int64_t nc = 0; nc < g.N * g.C; nc++)
    for (int64_t p = 0; p < g.On; p++)
      {
        const int64_t *mp = map + p * g.Kn;
        for (int lower = 1; lower >= 0; lower--)
          {
            /* F is evaluated rounded in direction r, so its arguments are rounded that way too (F
             * increasing in x, decreasing in beta); for beta < 0 on the negated values. */
            mpfr_rnd_t r = (lower == (sign > 0)) ? MPFR_RNDD : MPFR_RNDU;
            mpfr_rnd_t rb = r == MPFR_RNDD ? MPFR_RNDU : MPFR_RNDD;
            int64_t J = 0;
            for (int64_t kk = 0; kk < g.Kn; kk++)
              if (mp[kk] >= 0)
                {
                  mpfi_srcptr xi = in[0]->v[nc * g.Sn + mp[kk]];
                  mpfr_srcptr e = lower ? &xi->left : &xi->right;
                  if (sign > 0)
                    mpfr_set (v[J++], e, r);
                  else
                    mpfr_neg (v[J++], e, r);
                }
            mpfr_srcptr be = lower ? &bv->right : &bv->left;
            if (sign > 0)
              mpfr_set (b, be, rb);
            else
              mpfr_neg (b, be, rb);
            smp_end (lower ? lo : y, J, v, b, lower, sign, d, s);
          }
        mpfi_interv_fr (out->v[nc * g.On + p], lo, y);
      }
  mpfr_clear (lo);
  smp_numbers_free (v, g.Kn);
  free (map);
  return CN_OK;
}

/* The softmax weights of one window at the point (binary64): w_j = exp(beta (x_j - m)) / (1 + s)
 * into W (by kernel offset; 0 at padded offsets), the forward's m, a and s.  A window whose
 * extreme is infinite puts the whole weight on its first extreme entry a (the one-sided choice of
 * the header); a NaN gives NaN weights. */
static void
smp_weights (const struct pool_geom *g, const int64_t *mp, const double *xp, double beta, double *w)
{
  double m = 0, s = 0;
  int64_t a = -1;
  int nan = 0;
  for (int64_t kk = 0; kk < g->Kn; kk++)
    {
      w[kk] = 0;
      if (mp[kk] < 0)
        continue;
      double v = xp[mp[kk]];
      if (isnan (v))
        nan = 1;
      else if (a < 0 || (beta > 0 ? v > m : v < m))
        m = v, a = kk;
    }
  if (nan || a < 0)
    {
      for (int64_t kk = 0; kk < g->Kn; kk++)
        if (mp[kk] >= 0)
          w[kk] = NAN;
      return;
    }
  if (isinf (m))
    {
      w[a] = 1;
      return;
    }
  for (int64_t kk = 0; kk < g->Kn; kk++)
    if (mp[kk] >= 0 && kk != a)
      {
        w[kk] = exp (beta * (xp[mp[kk]] - m));
        s += w[kk];
      }
  w[a] = 1;
  double z = 1 + s;
  for (int64_t kk = 0; kk < g->Kn; kk++)
    if (mp[kk] >= 0)
      w[kk] /= z;
}

static cn_status
smp_diff_prepare (const cn_node_view *nv, const cn_tensor *const *in, const cn_tensor *out, struct pool_geom *g,
                  int64_t **map, double **w, cn_error *err)
{
  CN__ASSERTD (in[0]->dtype == CN_DTYPE_F64 && in[1]->dtype == CN_DTYPE_F64 && out->dtype == CN_DTYPE_F64);
  CN__ASSERTD (smp_sizes (nv, cn_tensor_numel (in[0]), cn_tensor_numel (in[1]), cn_tensor_numel (out)));
  cn_status st;
  if ((st = smp_beta_ok (nv, ((const double *) in[1]->data)[0], err)) != CN_OK)
    return st;
  if ((st = smp_prepare (nv, g, map, err)) != CN_OK)
    return st;
  *w = malloc ((size_t) (g->Kn > 0 ? g->Kn : 1) * sizeof **w);
  if (*w == NULL)
    {
      free (*map);
      return cn_error_set (err, CN_ENOMEM, "smoothMaxPool: out of memory (node '%s')", cn__node_name (nv));
    }
  return CN_OK;
}

static cn_status
smp_pullback (const cn_node_view *nv, const cn_tensor *const *in, const cn_tensor *out, const double *g_out,
              double *const *g_in, cn_error *err)
{
  if (g_in[0] == NULL)
    return CN_OK;
  struct pool_geom g;
  int64_t *map;
  double *w;
  cn_status st = smp_diff_prepare (nv, in, out, &g, &map, &w, err);
  if (st != CN_OK)
    return st;
  const double *x = in[0]->data, beta = ((const double *) in[1]->data)[0];
  for (int64_t nc = 0; nc < g.N * g.C; nc++)
    for (int64_t p = 0; p < g.On; p++)
      {
        const int64_t *mp = map + p * g.Kn;
        smp_weights (&g, mp, x + nc * g.Sn, beta, w);
        double gp = g_out[nc * g.On + p];
        /* dy/dx_j = w_j */
        for (int64_t kk = 0; kk < g.Kn; kk++)
          if (mp[kk] >= 0)
            g_in[0][nc * g.Sn + mp[kk]] += gp * w[kk];
      }
  free (w);
  free (map);
  return CN_OK;
}

static cn_status
smp_jvp (const cn_node_view *nv, const cn_tensor *const *in, const cn_tensor *out, const double *const *t_in,
         double *t_out, cn_error *err)
{
  struct pool_geom g;
  int64_t *map;
  double *w;
  cn_status st = smp_diff_prepare (nv, in, out, &g, &map, &w, err);
  if (st != CN_OK)
    return st;
  const double *x = in[0]->data, *tx = t_in[0], beta = ((const double *) in[1]->data)[0];
  for (int64_t nc = 0; nc < g.N * g.C; nc++)
    for (int64_t p = 0; p < g.On; p++)
      {
        double t = 0;
        if (tx != NULL)
          {
            const int64_t *mp = map + p * g.Kn;
            smp_weights (&g, mp, x + nc * g.Sn, beta, w);
            for (int64_t kk = 0; kk < g.Kn; kk++)
              if (mp[kk] >= 0)
                t += w[kk] * tx[nc * g.Sn + mp[kk]];
          }
        t_out[nc * g.On + p] = t;
      }
  free (w);
  free (map);
  return CN_OK;
}

static const cn_port_kind smp_ports[2] = { CN_PORT_VALUE, CN_PORT_FROZEN };

const struct cn_op_rule cn__rule_SMOOTH_MAX_POOL = { .op = CN_OP_SMOOTH_MAX_POOL,
  .n_in = 2,
  .in_kind = smp_ports,
  .check = smp_check,
  .forward = smp_forward,
  .pullback = smp_pullback,
  .jvp = smp_jvp,
  .ibp = smp_ibp,
  .ibp_mpfi = smp_ibp_mpfi,
  .certs = CN__CERTS (CN__CERT_GRADIENT, CN__CERT_IBP),
};
