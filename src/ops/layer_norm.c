/* SPDX-License-Identifier: MIT */
/* src/ops/layer_norm.c: layerNorm (cn_params_layernorm); src/ops/normalization.c builds batchNorm
 * on its arms.
 *
 * layerNorm (cn_params_layernorm {eps, affine}): x of rank >= 1, normalized over its last axis
 * (extent N, each of the numel / N rows on its own); affine = 1 adds the inputs weight and bias,
 * rank 1 of extent N:
 *     mu = (1/N) sum_k x_k,  d_k = x_k - mu,  var = (1/N) sum_k d_k^2  (biased, as torch),
 *     z_k = d_k / sqrt(var + eps),  y_k = z_k (affine = 0)  or  y_k = z_k weight_k + bias_k.
 *   Forward  in the tensors' sort T, in this order per row: mu = fl(fl(sum x_k in increasing k) / N),
 *            d_k = fl(x_k - mu), var = fl(fl(sum fl(d_k d_k)) / N), r = fl(1 / fl(sqrt(fl(var + e))))
 *            (e = eps rounded to T), y_k = fl(d_k r), then y_k = fl(fl(y_k weight_k) + bias_k).
 *            sqrt is correctly rounded; the error comes from the sums and from the cancellation in
 *            x_k - mu (an ulp measure of y_k itself is meaningless where y_k is near 0).  Measured
 *            against MPFR at 300 bits (100000 random rows of N = 1..16, x uniform in [-R, R] + an offset
 *            in [-off, off], eps = 1e-5), the largest absolute error in units of
 *            u max_k |x_k| / sqrt(var + eps) (the conditioning scale; u = 2^-53 or 2^-24):
 *            4.3 / 4.9 (f64 / f32) at R = 2, 4.3 / 4.1 at R = 20, 3.7 / 3.4 at R = 2, off = 100.
 *   IBP      (ALGORITHMS.md 1.7) on every row, rounding outward (cn__up/cn__down around RN):
 *              d_k = (1 - 1/N) x_k - (1/N) sum_{j != k} x_j is affine, so its box is exact:
 *                d_k >= l_k - (l_k + sum_{j != k} u_j) / N,  d_k <= u_k - (u_k + sum_{j != k} l_j) / N,
 *                the sums from one RN sum of the row's upper (lower) ends with its (G) error, minus
 *                the own end, each step rounded outward (O(N) per row);
 *              d_k^2 by the square rule ([0, max] when the box straddles 0); var in
 *                [sum lo(d_k^2) / N, sum hi(d_k^2) / N] (sums of nonnegative terms with their (G) error);
 *              s = 1/sqrt(var + eps) in [down(1/up(sqrt(up(var_hi + eps)))), up(1/down(sqrt(down(var_lo + eps))))]
 *                by monotonicity (eps > 0; a lower end not provably > 0 gives s_hi = +inf);
 *              z_k = d_k s by interval multiplication (0 times +inf is 0), then intersected with
 *                [-C, C], C = up(sqrt(N - 1)) >= sqrt(N - 1): for every real x, |z_k| <= sqrt(N - 1)
 *                (the largest d_1 with sum d = 0 and sum d^2 fixed is sqrt((N - 1)/N sum d^2));
 *              y_k = z_k [weight_k] + [bias_k] by interval product and sum (weight and bias may be boxes).
 *            A row with an infinite end gets z = [-C, C] (the identity alone); a NaN end (x, weight or
 *            bias) is CN_ENUMERIC.  How loose: the box of d is exact, but var and z treat the d_k as
 *            independent (they are tied by sum d = 0 and by x), so the width is first order in the
 *            input radius even where the exact range is much narrower (N = 2: z = +-1 up to eps, yet
 *            the box is O(radius) wide).  Measured (rows of N = 3..7, centres in [-2, 2], eps = 1e-5),
 *            IBP width over the width of the range seen on 400 sampled points (an inner estimate):
 *            radius 1e-3: mean 5, worst 1.7e3 (entries whose exact range is nearly flat);
 *            radius 0.1: mean 2.6, worst 66; radius 1: mean 1.5, worst 4 (the identity caps it).
 *            Sound at every width.
 *   MPFI     the same algorithm in interval arithmetic (it encloses the exact value on point inputs):
 *            d_k = x_k [(N - 1)/N] - [sum_{j != k} x_j] / N with the sum of the others' ends from the
 *            row's sums of lefts (rounded down) and rights (rounded up) minus the own end, mpfi_sqr,
 *            var = sum / N, s = 1/sqrt(var + eps), z = d s intersected with [-c, c], c the right end
 *            of sqrt(N - 1), then the affine map.  An infinite end in the row gives z = [-c, c]; NaN
 *            is CN_ENUMERIC.
 *   CROWN    planes with the gradient at the row's centre, intercepts by Taylor with a bound of
 *            the Hessian's quadratic form (the section "CROWN" below); constant weight and bias.
 *   Pullback (binary64; xh_k = d_k r with d, r formed as the forward does, gh_k = g_k weight_k or
 *            g_k): g_weight_k += g_k xh_k, g_bias_k += g_k, and with the projections
 *            P2 v = v - xh mean(xh v) and P1 v = v - mean(v):  g_x += r P1 P2 gh.
 *   Jvp      the transpose:  t_y = weight .* (r P2 P1 t_x) + t_weight .* xh + t_bias  (P1, P2
 *            symmetric, so jvp and pullback are adjoint).  The function is smooth (eps > 0).
 * The arms trust the shapes and sorts the graph builder checked (debug assertions state them); a
 * NaN in a box or an enclosure is input, refused as above. */
#include <config.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "ops/ops_impl.h"
#include "ops/normalization_impl.h"

static cn_status
ln_check (const struct cn_op_rule *rule, const void *params, int n_in, const cn_shape *const *in, cn_shape *out, cn_error *err)
{
  (void) rule;
  const cn_params_layernorm *p = params;
  static const char *const what[] = { "x", "weight", "bias" };
  char sx[128];
  if (p == NULL)
    return cn_error_set (err, CN_EINVAL, "layerNorm: missing attributes");
  if (p->affine != 0 && p->affine != 1)
    return cn_error_set (err, CN_EINVAL, "layerNorm: affine %d, expected 0 or 1", p->affine);
  if (!(p->eps > 0) || !isfinite (p->eps))
    return cn_error_set (err, CN_EINVAL, "layerNorm: eps %g, expected a finite number > 0", p->eps);
  int want = p->affine ? 3 : 1;
  if (n_in != want)
    return cn_error_set (err, CN_EINVAL, "layerNorm: %d inputs, expected %s", n_in,
                         p->affine ? "3 (x, weight, bias)" : "1 (x)");
  for (int i = 0; i < n_in; i++)
    {
      cn_status st = cn__shape_valid ("layerNorm", what[i], in[i], err);
      if (st != CN_OK)
        return st;
    }
  const cn_shape *x = in[0];
  if (x->rank < 1)
    return cn_error_set (err, CN_ESHAPE, "layerNorm: input has rank 0");
  int64_t N = x->dim[x->rank - 1];
  for (int i = 1; i < n_in; i++)
    {
      if (in[i]->rank != 1)
        return cn_error_set (err, CN_ESHAPE, "layerNorm: %s has rank %d, expected 1", what[i], in[i]->rank);
      if (in[i]->dim[0] != N)
        return cn_error_set (err, CN_ESHAPE, "layerNorm: %s has extent %lld, input %s has %lld on its last axis",
                             what[i], (long long) in[i]->dim[0], cn_shape_format (x, sx, sizeof sx), (long long) N);
    }
  *out = *x;
  return CN_OK;
}

/* The row layout: ROWS rows of N entries (rows = 0 when N = 0). */
static void
ln_dims (const cn_node_view *nv, int64_t *rows, int64_t *N)
{
  const cn_shape *x = nv->in_shape[0];
  int64_t n = x->dim[x->rank - 1], total = cn__numel (x);
  *N = n;
  *rows = n > 0 ? total / n : 0;
}

#define LN_FORWARD_FN(NAME, T, SQRT)                                                        \
  static void NAME (const cn_node_view *nv, const cn_tensor *const *in, cn_tensor *out)      \
  {                                                                                         \
    const cn_params_layernorm *p = nv->params;                                              \
    int64_t rows, N;                                                                        \
    ln_dims (nv, &rows, &N);                                                                \
    const T *x = in[0]->data;                                                               \
    const T *w = p->affine ? in[1]->data : NULL, *b = p->affine ? in[2]->data : NULL;       \
    T *y = out->data, e = (T) p->eps, n = (T) N;                                            \
    for (int64_t r = 0; r < rows; r++)                                                      \
      {                                                                                     \
        const T *xr = x + r * N;                                                            \
        T *yr = y + r * N;                                                                  \
        T mu = 0, var = 0;                                                                  \
        for (int64_t k = 0; k < N; k++)                                                     \
          mu += xr[k];                                                                      \
        mu = mu / n;                                                                        \
        for (int64_t k = 0; k < N; k++)                                                     \
          {                                                                                 \
            T d = xr[k] - mu;                                                               \
            var += d * d;                                                                   \
          }                                                                                 \
        var = var / n;                                                                      \
        T rs = 1 / SQRT (var + e);                                                          \
        for (int64_t k = 0; k < N; k++)                                                     \
          {                                                                                 \
            T z = (xr[k] - mu) * rs;                                                        \
            yr[k] = w != NULL ? z * w[k] + b[k] : z;                                        \
          }                                                                                 \
      }                                                                                     \
  }

LN_FORWARD_FN (ln_forward_f64, double, sqrt)
LN_FORWARD_FN (ln_forward_f32, float, sqrtf)

static cn_status
ln_forward (const cn_node_view *nv, const cn_tensor *const *in, cn_tensor *out, cn_error *err)
{
  (void) err;
  CN__ASSERTD (cn_dtype_is_float (out->dtype) && cn_tensor_numel (out) == cn__numel (nv->out_shape));
  for (int i = 0; i < nv->n_in; i++)
    CN__ASSERTD (in[i]->dtype == out->dtype && cn_tensor_numel (in[i]) == cn__numel (nv->in_shape[i]));
  if (out->dtype == CN_DTYPE_F64)
    ln_forward_f64 (nv, in, out);
  else
    ln_forward_f32 (nv, in, out);
  return CN_OK;
}

/* xh = d r of one row, as the forward forms d and r in binary64; returns r (normalization_impl.h). */
double
cn__layer_norm_row_xhat (const double *x, int64_t N, double eps, double *xh)
{
  double mu = 0, var = 0, n = (double) N;
  for (int64_t k = 0; k < N; k++)
    mu += x[k];
  mu = mu / n;
  for (int64_t k = 0; k < N; k++)
    {
      double d = x[k] - mu;
      var += d * d;
    }
  var = var / n;
  double r = 1 / sqrt (var + eps);
  for (int64_t k = 0; k < N; k++)
    xh[k] = (x[k] - mu) * r;
  return r;
}

static cn_status
ln_pullback (const cn_node_view *nv, const cn_tensor *const *in, const cn_tensor *out, const double *g_out,
             double *const *g_in, cn_error *err)
{
  const cn_params_layernorm *p = nv->params;
  CN__ASSERTD (cn__diff_shapes_match (nv, in, out));
  int64_t rows, N;
  ln_dims (nv, &rows, &N);
  if (rows == 0)
    return CN_OK;
  double *xh = malloc ((size_t) (2 * N) * sizeof *xh);
  if (xh == NULL)
    return cn_error_set (err, CN_ENOMEM, "layerNorm: out of memory (node '%s')", cn__node_name (nv));
  double *u = xh + N;
  const double *w = p->affine ? in[1]->data : NULL;
  double *gw = p->affine ? g_in[1] : NULL, *gb = p->affine ? g_in[2] : NULL, *gx = g_in[0];
  for (int64_t r = 0; r < rows; r++)
    {
      const double *x = (const double *) in[0]->data + r * N, *g = g_out + r * N;
      double rs = cn__layer_norm_row_xhat (x, N, p->eps, xh);
      for (int64_t k = 0; k < N; k++)
        {
          if (gw != NULL)
            gw[k] += g[k] * xh[k];
          if (gb != NULL)
            gb[k] += g[k];
        }
      if (gx == NULL)
        continue;
      /* u = P2 gh, then g_x += r P1 u */
      double m2 = 0, m1 = 0;
      for (int64_t k = 0; k < N; k++)
        {
          u[k] = w != NULL ? g[k] * w[k] : g[k];
          m2 += xh[k] * u[k];
        }
      m2 = m2 / (double) N;
      for (int64_t k = 0; k < N; k++)
        {
          u[k] = u[k] - xh[k] * m2;
          m1 += u[k];
        }
      m1 = m1 / (double) N;
      for (int64_t k = 0; k < N; k++)
        gx[r * N + k] += rs * (u[k] - m1);
    }
  free (xh);
  return CN_OK;
}

static cn_status
ln_jvp (const cn_node_view *nv, const cn_tensor *const *in, const cn_tensor *out, const double *const *t_in,
        double *t_out, cn_error *err)
{
  const cn_params_layernorm *p = nv->params;
  CN__ASSERTD (cn__diff_shapes_match (nv, in, out));
  int64_t rows, N;
  ln_dims (nv, &rows, &N);
  if (rows == 0)
    return CN_OK;
  double *xh = malloc ((size_t) (2 * N) * sizeof *xh);
  if (xh == NULL)
    return cn_error_set (err, CN_ENOMEM, "layerNorm: out of memory (node '%s')", cn__node_name (nv));
  double *v = xh + N;
  const double *w = p->affine ? in[1]->data : NULL;
  const double *tw = p->affine ? t_in[1] : NULL, *tb = p->affine ? t_in[2] : NULL, *tx = t_in[0];
  for (int64_t r = 0; r < rows; r++)
    {
      const double *x = (const double *) in[0]->data + r * N;
      double *t = t_out + r * N;
      double rs = cn__layer_norm_row_xhat (x, N, p->eps, xh);
      if (tx != NULL)
        {
          /* v = P1 t_x, then t = weight .* (r P2 v) */
          double m1 = 0, m2 = 0;
          for (int64_t k = 0; k < N; k++)
            m1 += tx[r * N + k];
          m1 = m1 / (double) N;
          for (int64_t k = 0; k < N; k++)
            {
              v[k] = tx[r * N + k] - m1;
              m2 += xh[k] * v[k];
            }
          m2 = m2 / (double) N;
          for (int64_t k = 0; k < N; k++)
            {
              double a = rs * (v[k] - xh[k] * m2);
              t[k] = w != NULL ? w[k] * a : a;
            }
        }
      else
        for (int64_t k = 0; k < N; k++)
          t[k] = 0;
      for (int64_t k = 0; k < N; k++)
        {
          if (tw != NULL)
            t[k] += tw[k] * xh[k];
          if (tb != NULL)
            t[k] += tb[k];
        }
    }
  free (xh);
  return CN_OK;
}

static cn_status
ln_ibp (const cn_node_view *nv, const cn_box *const *in, cn_box *out, cn_error *err)
{
  const cn_params_layernorm *p = nv->params;
  for (int i = 0; i < nv->n_in; i++)
    CN__ASSERTD (in[i]->n == cn__numel (nv->in_shape[i]));
  CN__ASSERTD (out->n == in[0]->n);
  int64_t rows, N;
  ln_dims (nv, &rows, &N);
  for (int i = 0; i < nv->n_in; i++)
    for (int64_t j = 0; j < in[i]->n; j++)
      if (isnan (in[i]->lo[j]) || isnan (in[i]->hi[j]))
        return cn_error_set (err, CN_ENUMERIC, "layerNorm: NaN end in the box of input %d at entry %lld (node '%s')", i,
                             (long long) j, cn__node_name (nv));
  if (rows == 0)
    return CN_OK;
  double *dl = malloc ((size_t) (2 * N) * sizeof *dl);
  if (dl == NULL)
    return cn_error_set (err, CN_ENOMEM, "layerNorm: out of memory (node '%s')", cn__node_name (nv));
  double *du = dl + N, n = (double) N;
  /* C >= sqrt(N - 1) (sqrt is correctly rounded) */
  double C = cn__up (sqrt (n - 1));
  for (int64_t r = 0; r < rows; r++)
    {
      const double *l = in[0]->lo + r * N, *u = in[0]->hi + r * N;
      double *yl = out->lo + r * N, *yh = out->hi + r * N;
      if (!cn__finite_box (N, l, u))
        for (int64_t k = 0; k < N; k++)
          {
            yl[k] = -C;
            yh[k] = C;
          }
      else
        {
          /* SU >= sum_j u_j and SL <= sum_j l_j, by (G) */
          double su = 0, tu = 0, sl = 0, tl = 0;
          for (int64_t k = 0; k < N; k++)
            {
              su += u[k];
              tu += fabs (u[k]);
              sl += l[k];
              tl += fabs (l[k]);
            }
          double SU = cn__sum_hi (su, tu, N), SL = cn__sum_lo (sl, tl, N);
          /* the box of d, then that of the squares: q2l <= sum lo(d_k^2), q2h >= sum hi(d_k^2) */
          double ql = 0, qh = 0;
          for (int64_t k = 0; k < N; k++)
            {
              double a = cn__up (cn__up (SU - u[k]) + l[k]);      /* >= l_k + sum_{j != k} u_j */
              double b = cn__down (cn__down (SL - l[k]) + u[k]);  /* <= u_k + sum_{j != k} l_j */
              dl[k] = cn__down (l[k] - cn__up (a / n));
              du[k] = cn__up (u[k] - cn__down (b / n));
              /* now dl_k <= d_k <= du_k for every x of the box */
              double s_lo, s_hi;
              if (dl[k] >= 0)
                s_lo = dl[k] * dl[k], s_hi = du[k] * du[k];
              else if (du[k] <= 0)
                s_lo = du[k] * du[k], s_hi = dl[k] * dl[k];
              else
                s_lo = 0, s_hi = fmax (dl[k] * dl[k], du[k] * du[k]);
              ql += s_lo;          /* RN sums of RN products: (G) below covers both */
              qh += s_hi;
            }
          /* sum lo(d^2) >= ql - err, sum hi(d^2) <= qh + err (products and sum: 2N roundings, use 2N) */
          double vl = fmax (0, cn__down (cn__sum_lo (ql, ql, 2 * N) / n));
          double vh = cn__up (cn__sum_hi (qh, qh, 2 * N) / n);
          /* now vl <= var <= vh; s = 1/sqrt(var + eps) in [s_lo, s_hi] */
          double v_lo = cn__down (vl + p->eps), v_hi = cn__up (vh + p->eps);
          double q_lo = v_lo > 0 ? cn__down (sqrt (v_lo)) : 0, q_hi = cn__up (sqrt (v_hi));
          double s_lo = fmax (0, cn__down (1.0 / q_hi)), s_hi = q_lo > 0 ? cn__up (1.0 / q_lo) : INFINITY;
          if (isnan (s_lo))
            s_lo = 0;
          for (int64_t k = 0; k < N; k++)
            {
              cn__norm_imul (dl[k], du[k], s_lo, s_hi, &yl[k], &yh[k]);
              yl[k] = fmax (yl[k], -C);
              yh[k] = fmin (yh[k], C);
            }
        }
      /* now yl <= z_k <= yh, |z_k| <= C */
      if (p->affine)
        for (int64_t k = 0; k < N; k++)
          {
            double pl, ph;
            cn__norm_imul (yl[k], yh[k], in[1]->lo[k], in[1]->hi[k], &pl, &ph);
            double lo = cn__down (pl + in[2]->lo[k]), hi = cn__up (ph + in[2]->hi[k]);
            yl[k] = isnan (lo) ? -INFINITY : lo;
            yh[k] = isnan (hi) ? INFINITY : hi;
          }
    }
  free (dl);
  return CN_OK;
}

static cn_status
ln_ibp_mpfi (const cn_node_view *nv, const cn_mpfi_vec *const *in, cn_mpfi_vec *out, cn_error *err)
{
  const cn_params_layernorm *p = nv->params;
  for (int i = 0; i < nv->n_in; i++)
    CN__ASSERTD (in[i]->n == cn__numel (nv->in_shape[i]));
  CN__ASSERTD (out->n == in[0]->n);
  for (int i = 0; i < nv->n_in; i++)
    for (int64_t j = 0; j < in[i]->n; j++)
      if (mpfi_nan_p (in[i]->v[j]))
        return cn_error_set (err, CN_ENUMERIC, "layerNorm: NaN in the enclosure of input %d at entry %lld (node '%s')",
                             i, (long long) j, cn__node_name (nv));
  int64_t rows, N;
  ln_dims (nv, &rows, &N);
  if (rows == 0)
    return CN_OK;
  mpfr_prec_t prec = mpfi_get_prec (out->v[0]);
  mpfi_t *D = malloc ((size_t) N * sizeof *D);
  if (D == NULL)
    return cn_error_set (err, CN_ENOMEM, "layerNorm: out of memory (node '%s')", cn__node_name (nv));
  for (int64_t k = 0; k < N; k++)
    mpfi_init2 (D[k], prec);
  mpfi_t a, c, o, v, t;
  mpfr_t SL, SR, e;
  mpfi_init2 (a, prec);
  mpfi_init2 (c, prec);
  mpfi_init2 (o, prec);
  mpfi_init2 (v, prec);
  mpfi_init2 (t, prec);
  mpfr_init2 (SL, prec);
  mpfr_init2 (SR, prec);
  mpfr_init2 (e, prec);
  /* a = (N - 1)/N; c = [-sqrt(N - 1), sqrt(N - 1)] with outward ends */
  mpfi_set_ui (a, (unsigned long) (N - 1));
  mpfi_div_ui (a, a, (unsigned long) N);
  mpfi_set_ui (c, (unsigned long) (N - 1));
  mpfi_sqrt (c, c);
  mpfr_neg (&c->left, &c->right, MPFR_RNDD);
  for (int64_t r = 0; r < rows; r++)
    {
      mpfi_t *x = in[0]->v + r * N, *y = out->v + r * N;
      int finite = 1;
      for (int64_t k = 0; k < N; k++)
        finite &= mpfr_number_p (&x[k]->left) && mpfr_number_p (&x[k]->right);
      if (!finite)
        for (int64_t k = 0; k < N; k++)
          mpfi_set (y[k], c);
      else
        {
          mpfr_set_zero (SL, 1);
          mpfr_set_zero (SR, 1);
          for (int64_t k = 0; k < N; k++)
            {
              mpfr_add (SL, SL, &x[k]->left, MPFR_RNDD);
              mpfr_add (SR, SR, &x[k]->right, MPFR_RNDU);
            }
          /* d_k = x_k (N - 1)/N - (sum_{j != k} x_j) / N; var = sum d_k^2 / N */
          mpfi_set_ui (v, 0);
          for (int64_t k = 0; k < N; k++)
            {
              mpfr_sub (e, SL, &x[k]->left, MPFR_RNDD);
              mpfr_sub (&o->right, SR, &x[k]->right, MPFR_RNDU);
              mpfr_set (&o->left, e, MPFR_RNDD);
              mpfi_div_ui (o, o, (unsigned long) N);
              mpfi_mul (D[k], x[k], a);
              mpfi_sub (D[k], D[k], o);
              mpfi_sqr (t, D[k]);
              mpfi_add (v, v, t);
            }
          mpfi_div_ui (v, v, (unsigned long) N);
          mpfi_add_d (v, v, p->eps);
          mpfi_sqrt (v, v);
          mpfi_inv (v, v);
          for (int64_t k = 0; k < N; k++)
            {
              mpfi_mul (t, D[k], v);
              mpfi_intersect (y[k], t, c);
            }
        }
      if (p->affine)
        for (int64_t k = 0; k < N; k++)
          {
            mpfi_mul (y[k], y[k], in[1]->v[k]);
            mpfi_add (y[k], y[k], in[2]->v[k]);
          }
    }
  for (int64_t k = 0; k < N; k++)
    mpfi_clear (D[k]);
  free (D);
  mpfi_clear (a);
  mpfi_clear (c);
  mpfi_clear (o);
  mpfi_clear (v);
  mpfi_clear (t);
  mpfr_clear (SL);
  mpfr_clear (SR);
  mpfr_clear (e);
  return CN_OK;
}

/* ---- CROWN ----------------------------------------------------------------------------------
 *
 * Per row (N entries, box [l, u], centre c, half widths r_j rounded up, R^2 >= sum r_j^2) and output
 * i, two planes  a . x + bl <= y_i <= a . x + bu  with a = w_i grad z_i(c) (binary64; w_i = weight_i,
 * or 1), where with u = x - mu, s = sqrt(var + eps), z = u / s:
 *     dz_i/dx_j = ((d_ij - 1/N) - z_i z_j / N) / s.
 * By Taylor's theorem for g = y_i - a . x around c, with d = x - c and w = P d (P the centring,
 * |w|_2 <= |d|_2 <= R):  g(c + d) = g(c) + (grad y_i(c) - a) . d + w_i d^T H d / 2, and the
 * Hessian of z_i in u gives  w^T H w = -2 w_i (u.w)/(N s^3) - u_i |w|^2/(N s^3) + 3 u_i (u.w)^2/(N^2 s^5);
 * since |u|_2^2 = N (s^2 - eps) <= N s^2 (so |u_i| <= sqrt(N) s), each term is at most 2, 1 and 3
 * times |w|^2 / (sqrt(N) s^2): |w_i d^T H d / 2| <= 3 |w_i| R^2 / (sqrt(N) s_min^2), s_min^2 = eps +
 * var_lo over the box, var_lo = (max(0, |P c|_2 - R))^2 / N (|P x|_2 >= |P c|_2 - |P d|_2).  So
 * bl = g(c) - E1 - Q and bu = g(c) + E1 + Q, E1 = sum_j |grad_j - a_j| r_j with the gradient and
 * y_i(c) enclosed in MPFI at 64 bits, a . c bounded by (G), every step rounded outward.  Each side
 * keeps the node's IBP end where that is tighter at the centre.  Weight and bias must be constants
 * (else CN_EUNSUPPORTED: the node's box); a row with an infinite end keeps its box.  The step is
 * cn__crown_slice_planes (outer = rows, inner = 1), the planes kept in the memo. */
static cn_status
ln_planes (const cn_crown_step *st, cn__slice_planes *P, cn_error *err)
{
  const cn_node_view *nv = st->nv;
  const cn_params_layernorm *p = nv->params;
  int64_t N = P->n, rows = P->outer, total = P->total;
  const cn_box *X = st->in_box[0];
  cn_box yb;
  cn_status rc = cn_box_init (&yb, total, err);
  if (rc != CN_OK)
    return rc;
  double *buf = malloc ((size_t) (3 * N + total + 1) * sizeof *buf);
  mpfi_t *z = malloc ((size_t) (N + 1) * sizeof *z);
  if (buf == NULL || z == NULL)
    {
      free (buf), free (z);
      cn_box_clear (&yb);
      return cn_error_set (err, CN_ENOMEM, "layerNorm: out of memory (node '%s')", st->node);
    }
  double *c = buf, *r = c + N, *m = r + N + N;
  for (int64_t j = 0; j < N; j++)
    mpfi_init2 (z[j], 64);
  mpfi_t s, g, t, v;
  mpfi_init2 (s, 64);
  mpfi_init2 (g, 64);
  mpfi_init2 (t, 64);
  mpfi_init2 (v, 64);
  if ((rc = ln_ibp (nv, st->in_box, &yb, err)) != CN_OK)
    goto done;
  P->m1 = cn__box_magnitude (X, m);
  double kap = cn__kappa (N + 1), rn_lo = cn__down (sqrt ((double) N));   /* <= sqrt(N) */
  for (int64_t row = 0; row < rows; row++)
    {
      const int64_t b0 = row * N;
      int finite = 1;
      double R2 = 0;
      for (int64_t j = 0; j < N; j++)
        {
          double l = X->lo[b0 + j], u = X->hi[b0 + j];
          finite &= isfinite (l) && isfinite (u);
          r[j] = cn__centre_radius (l, u, &c[j]);
          R2 = cn__up (R2 + cn__up (r[j] * r[j]));
        }
      if (!finite || !isfinite (R2))
        {
          for (int64_t i = 0; i < N; i++)
            {
              P->B[2 * (b0 + i)] = yb.lo[b0 + i];
              P->B[2 * (b0 + i) + 1] = yb.hi[b0 + i];
            }
          continue;
        }
      /* mu, u = c - mu, var, s = sqrt(var + eps), z = u / s at the centre, in MPFI */
      mpfi_set_ui (t, 0);
      for (int64_t j = 0; j < N; j++)
        mpfi_add_d (t, t, c[j]);
      mpfi_div_si (t, t, N);                    /* mu */
      mpfi_set_ui (v, 0);
      for (int64_t j = 0; j < N; j++)
        {
          mpfi_d_sub (z[j], c[j], t);           /* u_j */
          mpfi_sqr (g, z[j]);
          mpfi_add (v, v, g);
        }
      /* |P c|_2 = sqrt(sum u_j^2), then var_lo over the box */
      mpfi_sqrt (g, v);
      double pc = mpfr_get_d (&g->left, MPFR_RNDD), R = cn__up (sqrt (R2));   /* R >= |d|_2 */
      double gap = cn__down (pc - R), var_lo = gap > 0 ? cn__down (cn__down (gap * gap) / (double) N) : 0;
      double smin2 = cn__down (var_lo + p->eps);
      mpfi_div_si (v, v, N);
      mpfi_add_d (v, v, p->eps);
      mpfi_sqrt (s, v);                         /* s at the centre */
      for (int64_t j = 0; j < N; j++)
        mpfi_div (z[j], z[j], s);
      for (int64_t i = 0; i < N; i++)
        {
          int64_t q = b0 + i;
          double wi = p->affine ? st->in_box[1]->lo[i] : 1, bi = p->affine ? st->in_box[2]->lo[i] : 0;
          double *a = P->A + q * N;
          double e1 = 0, sd = 0, td = 0, w = 0;
          for (int64_t j = 0; j < N; j++)
            {
              /* grad_j = w_i ((d_ij - 1/N) - z_i z_j / N) / s */
              mpfi_mul (g, z[i], z[j]);
              mpfi_div_si (g, g, N);
              mpfi_set_si (t, i == j ? N - 1 : -1);
              mpfi_div_si (t, t, N);
              mpfi_sub (g, t, g);
              mpfi_div (g, g, s);
              mpfi_mul_d (g, g, wi);
              a[j] = mpfr_get_d (&g->left, MPFR_RNDN);
              mpfi_sub_d (g, g, a[j]);
              double ej = fmax (fabs (mpfr_get_d (&g->left, MPFR_RNDD)), fabs (mpfr_get_d (&g->right, MPFR_RNDU)));
              e1 = cn__up (e1 + cn__up (ej * r[j]));
              sd += a[j] * c[j];
              td += fabs (a[j] * c[j]);
              w += fabs (a[j]) * m[b0 + j];
            }
          double de = cn__dot_err (td, N);
          double ac_lo = cn__down (sd - de), ac_hi = cn__up (sd + de);
          double Q = cn__up (cn__up (cn__up (3 * fabs (wi)) * R2) / cn__down (rn_lo * smin2));
          /* y_i(c) = w_i z_i + b_i enclosed */
          mpfi_mul_d (g, z[i], wi);
          mpfi_add_d (g, g, bi);
          double fl = mpfr_get_d (&g->left, MPFR_RNDD), fh = mpfr_get_d (&g->right, MPFR_RNDU);
          double bl = cn__down (cn__down (cn__down (fl - ac_hi) - e1) - Q);
          double bu = cn__up (cn__up (cn__up (fh - ac_lo) + e1) + Q);
          /* now a . x + bl <= y_i(x) <= a . x + bu over the row's box */
          double *upper = P->A + (total + q) * N;
          memcpy (upper, a, (size_t) N * sizeof *a);
          if (!(isfinite (bl) && smin2 > 0 && sd + bl > yb.lo[q]))
            {
              memset (a, 0, (size_t) N * sizeof *a);
              bl = yb.lo[q];
            }
          if (!(isfinite (bu) && smin2 > 0 && sd + bu < yb.hi[q]))
            {
              memset (upper, 0, (size_t) N * sizeof *upper);
              bu = yb.hi[q];
            }
          P->B[2 * q] = bl;
          P->B[2 * q + 1] = bu;
          double uw = cn__up (kap * cn__up (w + (double) (N + 1) * CN_ETA));
          P->w_up[q] = isnan (uw) ? INFINITY : uw;
        }
    }
done:
  for (int64_t j = 0; j < N; j++)
    mpfi_clear (z[j]);
  mpfi_clear (s);
  mpfi_clear (g);
  mpfi_clear (t);
  mpfi_clear (v);
  free (z);
  free (buf);
  cn_box_clear (&yb);
  return rc;
}

static cn_status
ln_crown (const cn_crown_step *st, cn_error *err)
{
  const cn_node_view *nv = st->nv;
  const cn_params_layernorm *p = nv->params;
  if (st->lam_in[0] == NULL)
    return cn_error_set (err, CN_EINVAL, "layerNorm: CROWN step on a constant input (node '%s')", st->node);
  if (p->affine)
    for (int i = 1; i < 3; i++)
      {
        const cn_box *b = st->in_box[i];
        int point = st->lam_in[i] == NULL;
        for (int64_t j = 0; j < b->n && point; j++)
          point = b->lo[j] == b->hi[j] && isfinite (b->lo[j]);
        if (!point)
          return cn_error_set (err, CN_EUNSUPPORTED, "layerNorm: CROWN needs a constant weight and bias (node '%s')",
                               st->node);
      }
  const cn_shape *xs = nv->in_shape[0];
  int64_t N = xs->dim[xs->rank - 1], total = st->n_out;
  if (total == 0 || N == 0)
    return CN_OK;
  if (total > ((int64_t) 1 << 24) / N)
    return cn_error_set (err, CN_EUNSUPPORTED, "layerNorm: too many slopes for a relaxation (node '%s')", st->node);
  return cn__crown_slice_planes_kept (st, "layerNorm", total / N, N, 1, ln_planes, err);
}

const struct cn_op_rule cn__rule_LAYER_NORM = { .op = CN_OP_LAYER_NORM,
  .n_in = -1,
  .flags = CN_RULE_NEEDS_BOUNDS,
  .crown = ln_crown,
  .check = ln_check,
  .forward = ln_forward,
  .pullback = ln_pullback,
  .jvp = ln_jvp,
  .ibp = ln_ibp,
  .ibp_mpfi = ln_ibp_mpfi,
  .certs = CN__CERTS (CN__CERT_GRADIENT, CN__CERT_BOUNDS),
};
