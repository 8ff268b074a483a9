/* SPDX-License-Identifier: MIT */
/* src/ops/normalization.c: batchNormRunning (cn_params_batchnorm).
 *
 * batchNormRunning: x (any rank >= 1), scale, bias, mean, var (rank 1, extent C = x's extent on AXIS)
 * -> y of x's shape, with c the channel of the element (its index on AXIS):
 *     y = scale[c] (x - mean[c]) / sqrt(var[c] + eps) + bias[c],   eps > 0.
 *   Forward  in the sort T of the tensors (float for f32, double for f64), each operation rounded to
 *            nearest in T on its own (fl; -ffp-contract=off, FLT_EVAL_METHOD 0; sqrtf and sqrt are
 *            correctly rounded), in the order written: with e = eps rounded to T,
 *                q = fl(sqrt(fl(var[c] + e))),   y = fl(fl(fl(scale[c] fl(x - mean[c])) / q) + bias[c]).
 *            tools/gen_onnx_tests.py emulates this ("f32seq") and tests/check_onnx.c requires the
 *            binary32 forward to match it bit for bit.  A channel with var + eps <= 0 (or NaN) is
 *            CN_ENUMERIC: var is data, not an attribute.
 *   IBP      interval arithmetic with outward rounding, every input possibly a box: v = var + eps in
 *            [down(vl + eps), up(vh + eps)] (CN_ENUMERIC unless v > 0 on the whole interval);
 *            q = sqrt(v) in [down(sqrt vl), up(sqrt vh)] (sqrt is correctly rounded); r = 1/q in
 *            [down(1/qh), up(1/ql)] > 0; s = scale r and d = x - mean as interval products and
 *            differences rounded outward; y = s d + bias likewise.  0 times an infinite end is 0;
 *            other infinite ends stay infinite, NaNs become infinite ends.
 *   CROWN    (ALGORITHMS.md 2.2(c), 6.4) with scale, bias, mean and var constant: per channel the exact
 *            y = s x + c, s = scale / sqrt(var + eps), c = bias - s mean, reals that are not doubles.
 *            Let s~ = fl(scale / fl(sqrt(fl(var + eps)))) and c~ = fl(bias - fl(s~ mean)) (RN values) and
 *            [s_lo, s_hi], [c_lo, c_hi] the enclosures above (c from s's enclosure times mean, rounded
 *            outward); ds = max(s_hi - s~, s~ - s_lo), dc = max(c_hi - c~, c~ - c_lo), rounded up.  Then
 *                lam y = (lam s~) x + lam c~ + lam (s - s~) x + lam (c - c~)
 *                      >= lam_x x + lam . c~ - sum_j |lam_j| (ds_j m_j + dc_j) - (rounding of lam_x),
 *            with lam_x = fl(lam s~) entrywise (one rounding each: cn__crown_charge_entrywise), the dot
 *            lam . c~ accumulated in RN and charged by (G) (cn__dot_err) before cn__crown_add_bias, and
 *            the enclosure term sum_j |lam_j| w_j, w_j >= ds_j m_j + dc_j, bounded by (N).
 *   Pullback (binary64, round to nearest, no soundness claim).  With v = var[c] + eps,
 *            q = sqrt(v), d = x - mean[c] and G the output's cotangent, the partial derivatives of
 *            y = scale d / q + bias are
 *                dy/dx = scale / q,   dy/dscale = d / q,   dy/dbias = 1,   dy/dmean = -scale / q,
 *                dy/dvar = -scale d / (2 q v)   (d/dv v^(-1/2) = -v^(-3/2) / 2),
 *            so  g_x += G scale / q  entrywise, and each channel's parameter gets the sum over its
 *            entries:  g_scale[c] += sum G d / q,  g_bias[c] += sum G,  g_mean[c] -= sum G scale / q,
 *            g_var[c] -= sum G scale d / (2 q v).  q is formed as the forward does, fl(sqrt(fl(var + eps))).
 *   Jvp      (binary64, round to nearest; a missing tangent counts as zero) the same partial
 *            derivatives applied to the tangents, the transpose of the pullback: with k = scale / q,
 *                T_y = k T_x + (d / q) T_scale[c] + T_bias[c] - k T_mean[c] - (k d / (2 v)) T_var[c],
 *            the terms added in that order from +0 for each entry.  var + eps <= 0 is CN_ENUMERIC as in
 *            the forward. */
#include <config.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "ops/ops_impl.h"
#include "crown/crown_impl.h"

static cn_status
bn_check (const void *params, int n_in, const cn_shape *const *in, cn_shape *out, cn_error *err)
{
  const cn_params_batchnorm *p = params;
  static const char *const what[] = { "x", "scale", "bias", "mean", "var" };
  char sx[128];
  if (p == NULL)
    return cn_error_set (err, CN_EINVAL, "batchNormRunning: missing attributes");
  if (n_in != 5)
    return cn_error_set (err, CN_EINVAL, "batchNormRunning: %d inputs, expected 5 (x, scale, bias, mean, var)", n_in);
  const cn_shape *x = in[0];
  if (x->rank < 1)
    return cn_error_set (err, CN_ESHAPE, "batchNormRunning: input has rank 0");
  if (p->axis < 0 || p->axis >= x->rank)
    return cn_error_set (err, CN_EINVAL, "batchNormRunning: axis %d out of range for input %s", p->axis,
                         cn_shape_format (x, sx, sizeof sx));
  if (!(p->eps > 0) || !isfinite (p->eps))
    return cn_error_set (err, CN_EINVAL, "batchNormRunning: eps %g, expected a finite number > 0", p->eps);
  int64_t C = x->dim[p->axis];
  for (int i = 1; i < 5; i++)
    {
      if (in[i]->rank != 1)
        return cn_error_set (err, CN_ESHAPE, "batchNormRunning: %s has rank %d, expected 1", what[i], in[i]->rank);
      if (in[i]->dim[0] != C)
        return cn_error_set (err, CN_ESHAPE, "batchNormRunning: %s has extent %lld, input %s has %lld channels on axis %d",
                             what[i], (long long) in[i]->dim[0], cn_shape_format (x, sx, sizeof sx), (long long) C,
                             p->axis);
    }
  *out = *x;
  return CN_OK;
}

/* The channel layout of x: outer x C x inner elements. */
static void
bn_dims (const cn_node_view *nv, int64_t *outer, int64_t *C, int64_t *inner)
{
  const cn_params_batchnorm *p = nv->params;
  const cn_shape *x = nv->in_shape[0];
  int64_t a = 1, b = 1;
  for (int i = 0; i < p->axis; i++)
    a *= x->dim[i];
  for (int i = p->axis + 1; i < x->rank; i++)
    b *= x->dim[i];
  *outer = a;
  *C = x->dim[p->axis];
  *inner = b;
}

/* The forward evaluation in one sort T with its correctly rounded square root SQRT, in the order of
 * the header: q once per channel, then per entry one rounded difference, product, quotient and sum. */
#define BN_FORWARD_FN(NAME, T, SQRT)                                                        \
  static cn_status NAME (const cn_node_view *nv, const cn_tensor *const *in, cn_tensor *out, \
                         cn_error *err)                                                     \
  {                                                                                         \
    const cn_params_batchnorm *p = nv->params;                                              \
    int64_t outer, C, inner;                                                                \
    bn_dims (nv, &outer, &C, &inner);                                                       \
    const T *x = in[0]->data, *sc = in[1]->data, *bi = in[2]->data;                         \
    const T *mu = in[3]->data, *va = in[4]->data;                                           \
    T *y = out->data, e = (T) p->eps;                                                       \
    for (int64_t c = 0; c < C; c++)                                                         \
      if (!(va[c] + e > 0))                                                                 \
        return cn_error_set (err, CN_ENUMERIC,                                              \
                             "batchNormRunning: var + eps = %g is not positive at channel %lld (node '%s')", \
                             (double) (va[c] + e), (long long) c, cn__node_name (nv));          \
    for (int64_t a = 0; a < outer; a++)                                                     \
      for (int64_t c = 0; c < C; c++)                                                       \
        {                                                                                   \
          T q = SQRT (va[c] + e);                                                           \
          const T *xa = x + (a * C + c) * inner;                                            \
          T *ya = y + (a * C + c) * inner;                                                  \
          for (int64_t i = 0; i < inner; i++)                                               \
            ya[i] = (sc[c] * (xa[i] - mu[c])) / q + bi[c];                                  \
        }                                                                                   \
    return CN_OK;                                                                           \
  }

/* sqrt and sqrtf are correctly rounded in their formats. */
BN_FORWARD_FN (bn_forward_f64, double, sqrt)
BN_FORWARD_FN (bn_forward_f32, float, sqrtf)

static cn_status
bn_forward (const cn_node_view *nv, const cn_tensor *const *in, cn_tensor *out, cn_error *err)
{
  if (!cn_dtype_is_float (out->dtype))
    return cn_error_set (err, CN_EINVAL, "batchNormRunning: evaluation sort %s is not f64 or f32 (node '%s')",
                         cn_dtype_name (out->dtype), cn__node_name (nv));
  for (int i = 0; i < 5; i++)
    if (in[i]->dtype != out->dtype)
      return cn_error_set (err, CN_EINVAL, "batchNormRunning: input %d has sort %s, the output %s (node '%s')", i,
                           cn_dtype_name (in[i]->dtype), cn_dtype_name (out->dtype), cn__node_name (nv));
  return out->dtype == CN_DTYPE_F64 ? bn_forward_f64 (nv, in, out, err) : bn_forward_f32 (nv, in, out, err);
}

/* ---- interval helpers (outward rounding; 0 times anything is 0) -------------------------- */

/* [*lo, *hi] contains every product of a real in [al, ah] and one in [bl, bh]: each corner product
 * is rounded outward (RN is monotone, so the RN extreme corner is the rounding of the exact one). */
static void
imul (double al, double ah, double bl, double bh, double *lo, double *hi)
{
  double p1 = cn__mul0 (al, bl), p2 = cn__mul0 (al, bh), p3 = cn__mul0 (ah, bl), p4 = cn__mul0 (ah, bh);
  double l = cn__down (fmin (fmin (p1, p2), fmin (p3, p4)));
  double h = cn__up (fmax (fmax (p1, p2), fmax (p3, p4)));
  *lo = isnan (l) ? -INFINITY : l;
  *hi = isnan (h) ? INFINITY : h;
}

static inline double
sub_down (double a, double b)
{
  double r = cn__down (a - b);
  return isnan (r) ? -INFINITY : r;
}

static inline double
sub_up (double a, double b)
{
  double r = cn__up (a - b);
  return isnan (r) ? INFINITY : r;
}

/* The enclosure [*sl, *sh] of s = scale / sqrt(var + eps) for scale in [cl, ch] and var in [vl, vh];
 * CN_ENUMERIC unless var + eps > 0 on the whole interval. */
static cn_status
bn_multiplier (const cn_node_view *nv, int64_t c, double cl, double ch, double vl, double vh, double eps, double *sl,
               double *sh, cn_error *err)
{
  double v_lo = cn__down (vl + eps), v_hi = cn__up (vh + eps);
  if (!(v_lo > 0))
    return cn_error_set (err, CN_ENUMERIC,
                         "batchNormRunning: var + eps is not provably positive at channel %lld (var >= %g) (node '%s')",
                         (long long) c, vl, cn__node_name (nv));
  /* now 0 < v_lo <= var + eps <= v_hi for every var in [vl, vh]. */
  double q_lo = cn__down (sqrt (v_lo)), q_hi = cn__up (sqrt (v_hi));
  if (q_lo <= 0)
    q_lo = 0x1p-1074;                   /* sqrt(v_lo) > 0, so the smallest positive double is below it */
  /* now 0 < q_lo <= sqrt(var + eps) <= q_hi; r = 1 / sqrt(var + eps) lies in [r_lo, r_hi], r_lo > 0. */
  double r_lo = cn__down (1.0 / q_hi), r_hi = cn__up (1.0 / q_lo);
  if (r_lo < 0)
    r_lo = 0;
  imul (cl, ch, r_lo, r_hi, sl, sh);
  return CN_OK;
}

static cn_status
bn_ibp (const cn_node_view *nv, const cn_box *const *in, cn_box *out, cn_error *err)
{
  const cn_params_batchnorm *p = nv->params;
  for (int i = 0; i < 5; i++)
    if (in[i]->n != cn__numel (nv->in_shape[i]))
      return cn_error_set (err, CN_EINVAL, "batchNormRunning: box of input %d has %lld entries, the shape %lld (node '%s')",
                           i, (long long) in[i]->n, (long long) cn__numel (nv->in_shape[i]), cn__node_name (nv));
  if (out->n != in[0]->n)
    return cn_error_set (err, CN_EINVAL, "batchNormRunning: output box has %lld entries, expected %lld (node '%s')",
                         (long long) out->n, (long long) in[0]->n, cn__node_name (nv));
  int64_t outer, C, inner;
  bn_dims (nv, &outer, &C, &inner);
  for (int64_t c = 0; c < C; c++)
    {
      double sl, sh;
      cn_status st = bn_multiplier (nv, c, in[1]->lo[c], in[1]->hi[c], in[4]->lo[c], in[4]->hi[c], p->eps, &sl, &sh, err);
      if (st != CN_OK)
        return st;
      double ml = in[3]->lo[c], mh = in[3]->hi[c], bl = in[2]->lo[c], bh = in[2]->hi[c];
      for (int64_t a = 0; a < outer; a++)
        for (int64_t i = 0; i < inner; i++)
          {
            int64_t j = (a * C + c) * inner + i;
            /* d = x - mean in [dl, dh]; y = s d + bias. */
            double dl = sub_down (in[0]->lo[j], mh), dh = sub_up (in[0]->hi[j], ml);
            double yl, yh;
            imul (sl, sh, dl, dh, &yl, &yh);
            double lo = cn__down (yl + bl), hi = cn__up (yh + bh);
            out->lo[j] = isnan (lo) ? -INFINITY : lo;
            out->hi[j] = isnan (hi) ? INFINITY : hi;
          }
    }
  return CN_OK;
}

static cn_status
bn_ibp_mpfi (const cn_node_view *nv, const cn_mpfi_vec *const *in, cn_mpfi_vec *out, cn_error *err)
{
  const cn_params_batchnorm *p = nv->params;
  for (int i = 0; i < 5; i++)
    if (in[i]->n != cn__numel (nv->in_shape[i]))
      return cn_error_set (err, CN_EINVAL, "batchNormRunning: MPFI input %d has %lld entries, the shape %lld (node '%s')",
                           i, (long long) in[i]->n, (long long) cn__numel (nv->in_shape[i]), cn__node_name (nv));
  if (out->n != in[0]->n)
    return cn_error_set (err, CN_EINVAL, "batchNormRunning: MPFI output has %lld entries, expected %lld (node '%s')",
                         (long long) out->n, (long long) in[0]->n, cn__node_name (nv));
  if (out->n == 0)
    return CN_OK;
  int64_t outer, C, inner;
  bn_dims (nv, &outer, &C, &inner);
  mpfr_prec_t prec = mpfi_get_prec (out->v[0]);
  mpfi_t q, t;
  mpfi_init2 (q, prec);
  mpfi_init2 (t, prec);
  cn_status ret = CN_OK;
  for (int64_t c = 0; c < C && ret == CN_OK; c++)
    {
      /* q = sqrt(var + eps), eps exact. */
      mpfi_add_d (q, in[4]->v[c], p->eps);
      if (!mpfi_is_strictly_pos (q))
        {
          ret = cn_error_set (err, CN_ENUMERIC,
                              "batchNormRunning: var + eps is not provably positive at channel %lld (node '%s')",
                              (long long) c, cn__node_name (nv));
          break;
        }
      mpfi_sqrt (q, q);
      for (int64_t a = 0; a < outer; a++)
        for (int64_t i = 0; i < inner; i++)
          {
            int64_t j = (a * C + c) * inner + i;
            mpfi_sub (t, in[0]->v[j], in[3]->v[c]);
            mpfi_mul (t, t, in[1]->v[c]);
            mpfi_div (t, t, q);
            mpfi_add (out->v[j], t, in[2]->v[c]);
          }
    }
  mpfi_clear (q);
  mpfi_clear (t);
  return ret;
}

static cn_status
bn_crown (const cn_crown_step *st, cn_error *err)
{
  const cn_node_view *nv = st->nv;
  const cn_params_batchnorm *p = nv->params;
  for (int i = 1; i < 5; i++)
    if (nv->in_const[i] == NULL)
      return cn_error_set (err, CN_EUNSUPPORTED,
                           "batchNormRunning: the CROWN arm needs constant scale, bias, mean and var (node '%s')",
                           cn__node_name (nv));
  double *lam_x = st->lam_in[0];
  if (lam_x == NULL)
    return CN_OK;
  const cn_box *box = st->in_box[0];
  int64_t n = box->n;
  if (n != cn__numel (nv->in_shape[0]))
    return cn_error_set (err, CN_EINVAL, "batchNormRunning: box of input 0 has %lld entries, the shape %lld (node '%s')",
                         (long long) n, (long long) cn__numel (nv->in_shape[0]), cn__node_name (nv));
  int64_t outer, C, inner;
  bn_dims (nv, &outer, &C, &inner);
  if (n == 0 || st->rows == 0)
    return CN_OK;
  cn_status ret = CN_OK;
  double *ch = malloc ((size_t) (3 * C) * sizeof *ch);        /* s~, c~, then ds per channel */
  double *dc = malloc ((size_t) C * sizeof *dc);
  double *m = malloc ((size_t) n * sizeof *m);
  double *w = malloc ((size_t) n * sizeof *w);
  if (ch == NULL || dc == NULL || m == NULL || w == NULL)
    {
      ret = cn_error_set (err, CN_ENOMEM, "batchNormRunning: out of memory (node '%s')", cn__node_name (nv));
      goto fail;
    }
  double *s_rn = ch, *c_rn = ch + C, *ds = ch + 2 * C;
  for (int64_t c = 0; c < C; c++)
    {
      double scale = st->in_box[1]->lo[c], bias = st->in_box[2]->lo[c], mean = st->in_box[3]->lo[c];
      double var = st->in_box[4]->lo[c];
      double sl, sh;
      if ((ret = bn_multiplier (nv, c, scale, scale, var, var, p->eps, &sl, &sh, err)) != CN_OK)
        goto fail;
      /* now s = scale / sqrt(var + eps) lies in [sl, sh]; s~ is its RN evaluation. */
      s_rn[c] = scale / sqrt (var + p->eps);
      c_rn[c] = bias - s_rn[c] * mean;
      /* c = bias - s mean lies in [cl, chi]. */
      double pl, ph;
      imul (sl, sh, mean, mean, &pl, &ph);
      double cl = sub_down (bias, ph), chi = sub_up (bias, pl);
      ds[c] = fmax (cn__up (sh - s_rn[c]), cn__up (s_rn[c] - sl));
      dc[c] = fmax (cn__up (chi - c_rn[c]), cn__up (c_rn[c] - cl));
      if (isnan (ds[c]) || ds[c] < 0)
        ds[c] = INFINITY;
      if (isnan (dc[c]) || dc[c] < 0)
        dc[c] = INFINITY;
    }
  cn__box_magnitude (box, m);
  /* w_j >= ds m_j + dc, the enclosure error per unit of |lam_j|. */
  for (int64_t a = 0; a < outer; a++)
    for (int64_t c = 0; c < C; c++)
      for (int64_t i = 0; i < inner; i++)
        {
          int64_t j = (a * C + c) * inner + i;
          double e = cn__up (cn__up (ds[c] * m[j]) + dc[c]);
          w[j] = (ds[c] == 0 && dc[c] == 0) ? 0 : (isnan (e) ? INFINITY : e);
        }
  double kap = cn__kappa (n);
#pragma omp parallel for num_threads(st->threads > 0 ? st->threads : 1) if (st->rows * n > 65536)
  for (int64_t s = 0; s < st->rows; s++)
    {
      const double *l = st->lam_out + s * n;
      double *dst = lam_x + s * n;
      double d = 0, t = 0, e = 0;
      for (int64_t a = 0; a < outer; a++)
        for (int64_t c = 0; c < C; c++)
          {
            double sc = s_rn[c], cc = c_rn[c];
            for (int64_t i = 0; i < inner; i++)
              {
                int64_t j = (a * C + c) * inner + i;
                double v = l[j];
                if (v == 0)
                  continue;
                dst[j] = v * sc;
                double pc = v * cc;
                d += pc;
                t += fabs (pc);
                e += fabs (v) * w[j];
              }
          }
      /* now d = fl(lam . c~) with (G) error <= cn__dot_err (t, n), and e = fl(|lam| . w) whose exact
       * value is <= kappa_n (e + n eta) by (N). */
      double ce = cn__up (cn__dot_err (t, n) + cn__up (kap * cn__up (e + (double) n * CN_ETA)));
      cn__crown_charge (st, s, ce);
      cn__crown_add_bias (st, s, d);
    }
  /* lam_x = fl(lam s~) entrywise: one rounding per entry. */
  cn__crown_charge_entrywise (st, lam_x, n, box);
fail:
  free (ch);
  free (dc);
  free (m);
  free (w);
  return ret;
}

static cn_status
bn_pullback (const cn_node_view *nv, const cn_tensor *const *in, const cn_tensor *out, const double *g_out,
             double *const *g_in, cn_error *err)
{
  const cn_params_batchnorm *p = nv->params;
  if (out->dtype != CN_DTYPE_F64 || cn_tensor_numel (out) != cn__numel (nv->out_shape))
    return cn_error_set (err, CN_EINVAL,
                         "batchNormRunning: pullback output is not a binary64 tensor of the node's shape (node '%s')",
                         cn__node_name (nv));
  for (int i = 0; i < 5; i++)
    if (in[i]->dtype != CN_DTYPE_F64 || cn_tensor_numel (in[i]) != cn__numel (nv->in_shape[i]))
      return cn_error_set (err, CN_EINVAL,
                           "batchNormRunning: pullback input %d is not a binary64 tensor of the node's shape (node '%s')",
                           i, cn__node_name (nv));
  int64_t outer, C, inner;
  bn_dims (nv, &outer, &C, &inner);
  const double *x = in[0]->data, *sc = in[1]->data, *mu = in[3]->data, *va = in[4]->data;
  double *gx = g_in[0], *gs = g_in[1], *gbi = g_in[2], *gm = g_in[3], *gv = g_in[4];
  int params = gs != NULL || gbi != NULL || gm != NULL || gv != NULL;
  for (int64_t c = 0; c < C; c++)
    {
      double v = va[c] + p->eps, q = sqrt (v);
      if (!(v > 0))
        return cn_error_set (err, CN_ENUMERIC,
                             "batchNormRunning: var + eps = %g is not positive at channel %lld (node '%s')", v,
                             (long long) c, cn__node_name (nv));
      double k = sc[c] / q;             /* dy/dx */
      double sg = 0, sgd = 0;           /* sum G and sum G d over the channel */
      for (int64_t a = 0; a < outer; a++)
        {
          const double *xa = x + (a * C + c) * inner, *ga = g_out + (a * C + c) * inner;
          if (gx != NULL)
            {
              double *gxa = gx + (a * C + c) * inner;
              for (int64_t i = 0; i < inner; i++)
                gxa[i] += ga[i] * k;
            }
          if (params)
            for (int64_t i = 0; i < inner; i++)
              {
                sg += ga[i];
                sgd += ga[i] * (xa[i] - mu[c]);
              }
        }
      /* now sg = fl(sum G) and sgd = fl(sum G d) over channel c */
      if (gs != NULL)
        gs[c] += sgd / q;
      if (gbi != NULL)
        gbi[c] += sg;
      if (gm != NULL)
        gm[c] -= sg * k;
      if (gv != NULL)
        gv[c] -= (sgd * k) / (2 * v);
    }
  return CN_OK;
}

static cn_status
bn_jvp (const cn_node_view *nv, const cn_tensor *const *in, const cn_tensor *out, const double *const *t_in,
        double *t_out, cn_error *err)
{
  const cn_params_batchnorm *p = nv->params;
  if (out->dtype != CN_DTYPE_F64 || cn_tensor_numel (out) != cn__numel (nv->out_shape))
    return cn_error_set (err, CN_EINVAL,
                         "batchNormRunning: jvp output is not a binary64 tensor of the node's shape (node '%s')",
                         cn__node_name (nv));
  for (int i = 0; i < 5; i++)
    if (in[i]->dtype != CN_DTYPE_F64 || cn_tensor_numel (in[i]) != cn__numel (nv->in_shape[i]))
      return cn_error_set (err, CN_EINVAL,
                           "batchNormRunning: jvp input %d is not a binary64 tensor of the node's shape (node '%s')",
                           i, cn__node_name (nv));
  int64_t outer, C, inner;
  bn_dims (nv, &outer, &C, &inner);
  const double *x = in[0]->data, *sc = in[1]->data, *mu = in[3]->data, *va = in[4]->data;
  const double *tx = t_in[0], *ts = t_in[1], *tbi = t_in[2], *tm = t_in[3], *tv = t_in[4];
  for (int64_t c = 0; c < C; c++)
    {
      double v = va[c] + p->eps, q = sqrt (v);
      if (!(v > 0))
        return cn_error_set (err, CN_ENUMERIC,
                             "batchNormRunning: var + eps = %g is not positive at channel %lld (node '%s')", v,
                             (long long) c, cn__node_name (nv));
      double k = sc[c] / q;             /* dy/dx */
      for (int64_t a = 0; a < outer; a++)
        {
          const double *xa = x + (a * C + c) * inner;
          double *ta = t_out + (a * C + c) * inner;
          for (int64_t i = 0; i < inner; i++)
            {
              double d = xa[i] - mu[c], t = 0;
              if (tx != NULL)
                t += k * tx[(a * C + c) * inner + i];
              if (ts != NULL)
                t += (d / q) * ts[c];
              if (tbi != NULL)
                t += tbi[c];
              if (tm != NULL)
                t -= k * tm[c];
              if (tv != NULL)
                t -= ((k * d) / (2 * v)) * tv[c];
              ta[i] = t;
            }
        }
      /* now T_y holds the tangent over channel c */
    }
  return CN_OK;
}

const struct cn_op_rule cn__rule_BATCH_NORM_RUNNING = {
  .n_in = 5,
  .params_size = sizeof (cn_params_batchnorm),
  .check = bn_check,
  .forward = bn_forward,
  .pullback = bn_pullback,
  .jvp = bn_jvp,
  .ibp = bn_ibp,
  .ibp_mpfi = bn_ibp_mpfi,
  .crown = bn_crown,
};
