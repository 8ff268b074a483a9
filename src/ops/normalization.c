/* SPDX-License-Identifier: MIT */
/* src/ops/normalization.c: batchNormRunning (cn_params_batchnorm) and layerNorm (cn_params_layernorm,
 * documented above its rule at the end of the file).
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

static cn_status
bn_check (const struct cn_op_rule *rule, const void *params, int n_in, const cn_shape *const *in, cn_shape *out, cn_error *err)
{
  (void) rule;
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

const struct cn_op_rule cn__rule_BATCH_NORM_RUNNING = { .op = CN_OP_BATCH_NORM_RUNNING,
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

/* ---- layerNorm ---------------------------------------------------------------------------
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
 *   Pullback (binary64; xh_k = d_k r with d, r formed as the forward does, gh_k = g_k weight_k or
 *            g_k): g_weight_k += g_k xh_k, g_bias_k += g_k, and with the projections
 *            P2 v = v - xh mean(xh v) and P1 v = v - mean(v):  g_x += r P1 P2 gh.
 *   Jvp      the transpose:  t_y = weight .* (r P2 P1 t_x) + t_weight .* xh + t_bias  (P1, P2
 *            symmetric, so jvp and pullback are adjoint).  The function is smooth (eps > 0). */

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
  if (!cn_dtype_is_float (out->dtype) || cn_tensor_numel (out) != cn__numel (nv->out_shape))
    return cn_error_set (err, CN_EINVAL, "layerNorm: output tensor does not match the node (node '%s')",
                         cn__node_name (nv));
  for (int i = 0; i < nv->n_in; i++)
    if (in[i]->dtype != out->dtype || cn_tensor_numel (in[i]) != cn__numel (nv->in_shape[i]))
      return cn_error_set (err, CN_EINVAL, "layerNorm: input %d does not match the node's sort or shape (node '%s')", i,
                           cn__node_name (nv));
  if (out->dtype == CN_DTYPE_F64)
    ln_forward_f64 (nv, in, out);
  else
    ln_forward_f32 (nv, in, out);
  return CN_OK;
}

static cn_status
ln_diff_ok (const char *mode, const cn_node_view *nv, const cn_tensor *const *in, const cn_tensor *out, cn_error *err)
{
  if (out->dtype != CN_DTYPE_F64 || cn_tensor_numel (out) != cn__numel (nv->out_shape))
    return cn_error_set (err, CN_EINVAL, "layerNorm: %s output is not a binary64 tensor of the node's shape (node '%s')",
                         mode, cn__node_name (nv));
  for (int i = 0; i < nv->n_in; i++)
    if (in[i]->dtype != CN_DTYPE_F64 || cn_tensor_numel (in[i]) != cn__numel (nv->in_shape[i]))
      return cn_error_set (err, CN_EINVAL, "layerNorm: %s input %d is not a binary64 tensor of its shape (node '%s')",
                           mode, i, cn__node_name (nv));
  return CN_OK;
}

/* xh = d r of one row, as the forward forms d and r in binary64; returns r. */
static double
ln_row_xhat (const double *x, int64_t N, double eps, double *xh)
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
  cn_status st = ln_diff_ok ("pullback", nv, in, out, err);
  if (st != CN_OK)
    return st;
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
      double rs = ln_row_xhat (x, N, p->eps, xh);
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
  cn_status st = ln_diff_ok ("jvp", nv, in, out, err);
  if (st != CN_OK)
    return st;
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
      double rs = ln_row_xhat (x, N, p->eps, xh);
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
    if (in[i]->n != cn__numel (nv->in_shape[i]))
      return cn_error_set (err, CN_EINVAL, "layerNorm: box of input %d has %lld entries, the shape %lld (node '%s')", i,
                           (long long) in[i]->n, (long long) cn__numel (nv->in_shape[i]), cn__node_name (nv));
  if (out->n != in[0]->n)
    return cn_error_set (err, CN_EINVAL, "layerNorm: output box has %lld entries, expected %lld (node '%s')",
                         (long long) out->n, (long long) in[0]->n, cn__node_name (nv));
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
              imul (dl[k], du[k], s_lo, s_hi, &yl[k], &yh[k]);
              yl[k] = fmax (yl[k], -C);
              yh[k] = fmin (yh[k], C);
            }
        }
      /* now yl <= z_k <= yh, |z_k| <= C */
      if (p->affine)
        for (int64_t k = 0; k < N; k++)
          {
            double pl, ph;
            imul (yl[k], yh[k], in[1]->lo[k], in[1]->hi[k], &pl, &ph);
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
    if (in[i]->n != cn__numel (nv->in_shape[i]))
      return cn_error_set (err, CN_EINVAL, "layerNorm: MPFI input %d has %lld entries, the shape %lld (node '%s')", i,
                           (long long) in[i]->n, (long long) cn__numel (nv->in_shape[i]), cn__node_name (nv));
  if (out->n != in[0]->n)
    return cn_error_set (err, CN_EINVAL, "layerNorm: MPFI output has %lld entries, expected %lld (node '%s')",
                         (long long) out->n, (long long) in[0]->n, cn__node_name (nv));
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

const struct cn_op_rule cn__rule_LAYER_NORM = { .op = CN_OP_LAYER_NORM,
  .n_in = -1,
  .params_size = sizeof (cn_params_layernorm),
  .check = ln_check,
  .forward = ln_forward,
  .pullback = ln_pullback,
  .jvp = ln_jvp,
  .ibp = ln_ibp,
  .ibp_mpfi = ln_ibp_mpfi,
};

/* ---- batchNorm (training statistics) ---------------------------------------------------
 *
 * batchNorm (cn_params_batchnorm {axis, eps}): inputs x (rank >= 1), scale and bias (rank 1, extent C
 * = x's extent on AXIS); each channel c normalizes the group of its M = numel(x) / C entries with the
 * batch's own statistics (biased variance, as torch.nn.functional.batch_norm with training = True):
 *     mu_c = (1/M) sum x,   var_c = (1/M) sum (x - mu_c)^2,   z = (x - mu_c) / sqrt(var_c + eps),
 *     y = scale[c] z + bias[c].
 * Outputs: y at output 0, and the seed's extra outputs, the batch statistics from which a training
 * run updates its running statistics: mu (output 1, "mean", [C]) and var (output 2, "var", [C], the
 * biased variance y was normalised with).  A channel with no entries (M = 0) has no statistics:
 * every arm of outputs 1 and 2 refuses it (CN_ENUMERIC).  Outputs 1 and 2 (bnt_stat_* below):
 *   Forward  in binary64 whatever the sort, with compensated (Neumaier) sums: mu = S(x) / M,
 *            var = S((x - mu)^2) / M, each rounded once to the sort T at the end.
 *   IBP      mu: the sum of the lower (upper) ends with its (G) error (cn__sum_lo / cn__sum_hi),
 *            divided by M rounded outward.  var: with [mu] that box, d_i = x_i - mu lies in
 *            [l_i - mu_hi, u_i - mu_lo] (rounded outward) and d_i^2 in the square of that interval
 *            (0 at the low end when it holds 0); var = (1/M) sum d_i^2 lies in the outward-rounded
 *            sums of those ends over M, and var >= 0.
 *   MPFI     mpfi sums over M, and var = (1/M) sum sqr(x_i - [mu]) (the natural extension, inside
 *            the IBP box above).
 *   Pullback d mu / d x_i = 1/M, d var / d x_i = 2 (x_i - mu) / M (the terms through mu cancel since
 *            sum (x_i - mu) = 0); scale and bias receive nothing.  Jvp: the same derivatives.
 * Each channel's group is exactly a layerNorm row of length M without affine
 * part, so every arm gathers the group (entries (a, c, i), a < outer, i < inner, in that order) into a
 * contiguous row and runs layerNorm's arm on it (its header above states the math, the order of the
 * forward, the IBP enclosure of 1.7 and the MPFI algorithm), then applies the channel's affine map:
 *   Forward  y = fl(fl(z scale[c]) + bias[c]) in the sort T (layerNorm's affine order).
 *   IBP      y = [z] [scale_c] + [bias_c]: interval product and sum rounded outward (NaN ends become
 *            infinite), scale and bias possibly boxes.
 *   MPFI     mpfi_mul, mpfi_add on layerNorm's enclosure of z.
 *   Pullback g_scale[c] += sum G z, g_bias[c] += sum G, and g_x from layerNorm's pullback of G scale[c].
 *   Jvp      T_y = scale[c] T_z + T_scale[c] z + T_bias[c], T_z from layerNorm's jvp.
 *   CROWN    none: y is not affine in x (the statistics depend on x). */

static cn_status
bnt_check (const struct cn_op_rule *rule, const void *params, int n_in, const cn_shape *const *in, cn_shape *out, cn_error *err)
{
  (void) rule;
  const cn_params_batchnorm *p = params;
  char sx[128];
  if (p == NULL)
    return cn_error_set (err, CN_EINVAL, "batchNorm: missing attributes");
  if (n_in != 3)
    return cn_error_set (err, CN_EINVAL, "batchNorm: %d inputs, expected 3 (x, scale, bias)", n_in);
  const cn_shape *x = in[0];
  if (x->rank < 1)
    return cn_error_set (err, CN_ESHAPE, "batchNorm: input has rank 0");
  if (p->axis < 0 || p->axis >= x->rank)
    return cn_error_set (err, CN_EINVAL, "batchNorm: axis %d out of range for input %s", p->axis,
                         cn_shape_format (x, sx, sizeof sx));
  if (!(p->eps > 0) || !isfinite (p->eps))
    return cn_error_set (err, CN_EINVAL, "batchNorm: eps %g, expected a finite number > 0", p->eps);
  int64_t C = x->dim[p->axis];
  for (int i = 1; i < 3; i++)
    if (in[i]->rank != 1 || in[i]->dim[0] != C)
      return cn_error_set (err, CN_ESHAPE, "batchNorm: %s is not of shape [%lld] (input %s, axis %d)",
                           i == 1 ? "scale" : "bias", (long long) C, cn_shape_format (x, sx, sizeof sx), p->axis);
  *out = *x;
  return CN_OK;
}

/* The view of one channel's row as a layerNorm node [M] without affine part. */
struct bnt_row
{
  cn_params_layernorm lp;
  cn_shape shape;
  const cn_shape *shp[1];
  const cn_tensor *cst[1];
  cn_node_view v;
  int64_t outer, C, inner, M;
};

static void
bnt_row_init (const cn_node_view *nv, struct bnt_row *r)
{
  const cn_params_batchnorm *p = nv->params;
  memset (r, 0, sizeof *r);
  bn_dims (nv, &r->outer, &r->C, &r->inner);
  r->M = r->outer * r->inner;
  r->lp.eps = p->eps;
  r->lp.affine = 0;
  r->shape.rank = 1;
  r->shape.dim[0] = r->M;
  r->shp[0] = &r->shape;
  r->cst[0] = NULL;
  r->v.op = CN_OP_LAYER_NORM;
  r->v.rule = &cn__rule_LAYER_NORM;
  r->v.params = &r->lp;
  r->v.n_in = 1;
  r->v.in_shape = r->shp;
  r->v.in_const = r->cst;
  r->v.out_shape = &r->shape;
  r->v.name = nv->name;
}

/* The flat index of entry q (q < M) of channel c's row. */
static inline int64_t
bnt_index (const struct bnt_row *r, int64_t c, int64_t q)
{
  return ((q / r->inner) * r->C + c) * r->inner + q % r->inner;
}

#define BNT_FORWARD(T)                                                                      \
  do                                                                                        \
    {                                                                                       \
      const T *x = in[0]->data, *sc = in[1]->data, *bi = in[2]->data;                       \
      T *y = out->data, *xr = (T *) buf, *zr = xr + r.M;                                       \
      for (int64_t c = 0; c < r.C; c++)                                                     \
        {                                                                                   \
          for (int64_t q = 0; q < r.M; q++)                                                 \
            xr[q] = x[bnt_index (&r, c, q)];                                                \
          const cn_tensor *ti[1] = { &tx };                                                 \
          cn_status s1 = ln_forward (&r.v, ti, &tz, err);                                   \
          if (s1 != CN_OK)                                                                  \
            {                                                                               \
              free (buf);                                                                   \
              return s1;                                                                    \
            }                                                                               \
          for (int64_t q = 0; q < r.M; q++)                                                 \
            y[bnt_index (&r, c, q)] = zr[q] * sc[c] + bi[c];                                \
        }                                                                                   \
    }                                                                                       \
  while (0)

/* Adds V to the compensated sum (S, COMP) (Neumaier): S + COMP tracks the exact sum far more
 * closely than S alone. */
static inline void
neumaier_add (double *s, double *comp, double v)
{
  double t = *s + v;
  *comp += fabs (*s) >= fabs (v) ? (*s - t) + v : (v - t) + *s;
  *s = t;
}

/* The statistics of one channel's group X[0..M-1] (binary64), M >= 1: the compensated sums of
 * the top. */
static void
bnt_stats (const double *x, int64_t M, double *mu, double *var)
{
  double s = 0, comp = 0;
  for (int64_t q = 0; q < M; q++)
    neumaier_add (&s, &comp, x[q]);
  double m = (s + comp) / (double) M;
  s = comp = 0;
  for (int64_t q = 0; q < M; q++)
    {
      double d = x[q] - m;
      neumaier_add (&s, &comp, d * d);
    }
  *mu = m;
  *var = (s + comp) / (double) M;
}

static cn_status
bnt_no_stats (const cn_node_view *nv, cn_error *err)
{
  return cn_error_set (err, CN_ENUMERIC, "batchNorm: channels with no entries have no batch %s (node '%s')",
                       nv->out_index == 1 ? "mean" : "variance", cn__node_name (nv));
}

/* Outputs 1 (mu) and 2 (var), channel by channel from the statistics of each channel's group of
 * X: with OUT, the forward (each value rounded once to OUT's sort); else the derivatives
 * d mu / d x_i = 1/M, d var / d x_i = 2 (x_i - mu) / M: the pullback (G_X not NULL:
 * g_x[i] += g_c d/dx_i) and the jvp (T_OUT not NULL: t_out[c] = sum_i d/dx_i t_x[i]). */
static cn_status
bnt_stat_run (const cn_node_view *nv, const cn_tensor *x, cn_tensor *out, const double *g_c, double *g_x,
              const double *t_x, double *t_out, cn_error *err)
{
  struct bnt_row r;
  bnt_row_init (nv, &r);
  if (r.C == 0)
    return CN_OK;
  if (r.M == 0)
    return bnt_no_stats (nv, err);
  double *xr = malloc ((size_t) r.M * sizeof *xr);
  if (xr == NULL)
    return cn_error_set (err, CN_ENOMEM, "batchNorm: out of memory (node '%s')", cn__node_name (nv));
  for (int64_t c = 0; c < r.C; c++)
    {
      for (int64_t q = 0; q < r.M; q++)
        xr[q] = cn_tensor_get_f64 (x, bnt_index (&r, c, q));
      double mu, var, acc = 0;
      bnt_stats (xr, r.M, &mu, &var);
      if (out != NULL)
        {
          double v = nv->out_index == 1 ? mu : var;
          if (out->dtype == CN_DTYPE_F64)
            ((double *) out->data)[c] = v;
          else
            ((float *) out->data)[c] = (float) v;
          continue;
        }
      for (int64_t q = 0; q < r.M; q++)
        {
          double dq = nv->out_index == 1 ? 1.0 / (double) r.M : 2.0 * (xr[q] - mu) / (double) r.M;
          int64_t j = bnt_index (&r, c, q);
          if (g_x != NULL)
            g_x[j] += g_c[c] * dq;
          if (t_x != NULL)
            acc += dq * t_x[j];
        }
      if (t_out != NULL)
        t_out[c] = acc;
    }
  free (xr);
  return CN_OK;
}

static cn_status
bnt_forward (const cn_node_view *nv, const cn_tensor *const *in, cn_tensor *out, cn_error *err)
{
  if (!cn_dtype_is_float (out->dtype))
    return cn_error_set (err, CN_EINVAL, "batchNorm: evaluation sort is not f64 or f32 (node '%s')",
                         cn__node_name (nv));
  for (int i = 0; i < 3; i++)
    if (in[i]->dtype != out->dtype)
      return cn_error_set (err, CN_EINVAL, "batchNorm: input %d has sort %s, the output %s (node '%s')", i,
                           cn_dtype_name (in[i]->dtype), cn_dtype_name (out->dtype), cn__node_name (nv));
  if (nv->out_index > 0)
    return bnt_stat_run (nv, in[0], out, NULL, NULL, NULL, NULL, err);
  struct bnt_row r;
  bnt_row_init (nv, &r);
  if (r.M == 0)
    return CN_OK;
  size_t es = cn_dtype_size (out->dtype);
  char *buf = malloc ((size_t) (2 * r.M) * es);
  if (buf == NULL)
    return cn_error_set (err, CN_ENOMEM, "batchNorm: out of memory (node '%s')", cn__node_name (nv));
  cn_tensor tx = { out->dtype, r.shape, buf }, tz = { out->dtype, r.shape, buf + r.M * es };
  if (out->dtype == CN_DTYPE_F64)
    BNT_FORWARD (double);
  else
    BNT_FORWARD (float);
  free (buf);
  return CN_OK;
}

/* Outputs 1 (mu) and 2 (var) over the box IN[0] (see the top). */
static cn_status
bnt_stat_ibp (const cn_node_view *nv, const cn_box *x, cn_box *out, cn_error *err)
{
  struct bnt_row r;
  bnt_row_init (nv, &r);
  if (out->n != r.C)
    return cn_error_set (err, CN_EINVAL, "batchNorm: statistics box has %lld entries, expected %lld (node '%s')",
                         (long long) out->n, (long long) r.C, cn__node_name (nv));
  if (r.C > 0 && r.M == 0)
    return bnt_no_stats (nv, err);
  double Md = (double) r.M;
  for (int64_t c = 0; c < r.C; c++)
    {
      /* mu in [ml, mh]: the (G) sums of the ends, over M rounded outward */
      double sl = 0, tl = 0, sh = 0, th = 0;
      for (int64_t q = 0; q < r.M; q++)
        {
          int64_t j = bnt_index (&r, c, q);
          sl += x->lo[j];
          tl += fabs (x->lo[j]);
          sh += x->hi[j];
          th += fabs (x->hi[j]);
        }
      double ml = cn__down (cn__sum_lo (sl, tl, r.M) / Md), mh = cn__up (cn__sum_hi (sh, th, r.M) / Md);
      if (isnan (ml))
        ml = -INFINITY;
      if (isnan (mh))
        mh = INFINITY;
      if (nv->out_index == 1)
        {
          out->lo[c] = ml;
          out->hi[c] = mh;
          continue;
        }
      /* var: d_i in [dl, dh] = [l_i - mh, u_i - ml] rounded outward; d_i^2 in [ql, qh] */
      double slo = 0, shi = 0;
      for (int64_t q = 0; q < r.M; q++)
        {
          int64_t j = bnt_index (&r, c, q);
          double dl = cn__down (x->lo[j] - mh), dh = cn__up (x->hi[j] - ml);
          if (isnan (dl))
            dl = -INFINITY;
          if (isnan (dh))
            dh = INFINITY;
          double ql, qh;
          if (dl > 0)
            {
              ql = cn__down (dl * dl);
              qh = cn__up (dh * dh);
            }
          else if (dh < 0)
            {
              ql = cn__down (dh * dh);
              qh = cn__up (dl * dl);
            }
          else
            {
              ql = 0;
              qh = cn__up (fmax (dl * dl, dh * dh));
            }
          slo += ql < 0 ? 0 : ql;
          shi += qh;
        }
      /* nonnegative terms: the sums of magnitudes are the sums themselves */
      double vl = cn__down (cn__sum_lo (slo, slo, r.M) / Md), vh = cn__up (cn__sum_hi (shi, shi, r.M) / Md);
      out->lo[c] = isnan (vl) || vl < 0 ? 0 : vl;
      out->hi[c] = isnan (vh) ? INFINITY : vh;
    }
  return CN_OK;
}

static cn_status
bnt_ibp (const cn_node_view *nv, const cn_box *const *in, cn_box *out, cn_error *err)
{
  for (int i = 0; i < 3; i++)
    if (in[i]->n != cn__numel (nv->in_shape[i]))
      return cn_error_set (err, CN_EINVAL, "batchNorm: box of input %d has %lld entries, the shape %lld (node '%s')",
                           i, (long long) in[i]->n, (long long) cn__numel (nv->in_shape[i]), cn__node_name (nv));
  if (nv->out_index > 0)
    return bnt_stat_ibp (nv, in[0], out, err);
  if (out->n != in[0]->n)
    return cn_error_set (err, CN_EINVAL, "batchNorm: output box has %lld entries, expected %lld (node '%s')",
                         (long long) out->n, (long long) in[0]->n, cn__node_name (nv));
  struct bnt_row r;
  bnt_row_init (nv, &r);
  if (r.M == 0)
    return CN_OK;
  cn_box bx, bz;
  memset (&bx, 0, sizeof bx);
  memset (&bz, 0, sizeof bz);
  cn_status st;
  if ((st = cn_box_init (&bx, r.M, err)) != CN_OK || (st = cn_box_init (&bz, r.M, err)) != CN_OK)
    goto fail;
  for (int64_t c = 0; c < r.C; c++)
    {
      for (int64_t q = 0; q < r.M; q++)
        {
          int64_t j = bnt_index (&r, c, q);
          bx.lo[q] = in[0]->lo[j];
          bx.hi[q] = in[0]->hi[j];
        }
      const cn_box *bi[1] = { &bx };
      if ((st = ln_ibp (&r.v, bi, &bz, err)) != CN_OK)
        goto fail;
      /* Now [bz] encloses z of the row; y = z scale + bias rounded outward. */
      double sl = in[1]->lo[c], sh = in[1]->hi[c], bl = in[2]->lo[c], bh = in[2]->hi[c];
      for (int64_t q = 0; q < r.M; q++)
        {
          int64_t j = bnt_index (&r, c, q);
          double yl, yh;
          imul (bz.lo[q], bz.hi[q], sl, sh, &yl, &yh);
          double lo = cn__down (yl + bl), hi = cn__up (yh + bh);
          out->lo[j] = isnan (lo) ? -INFINITY : lo;
          out->hi[j] = isnan (hi) ? INFINITY : hi;
        }
    }
  st = CN_OK;
fail:
  cn_box_clear (&bx);
  cn_box_clear (&bz);
  return st;
}

/* Outputs 1 (mu) and 2 (var) in MPFI (see the top). */
static cn_status
bnt_stat_mpfi (const cn_node_view *nv, const cn_mpfi_vec *x, cn_mpfi_vec *out, cn_error *err)
{
  struct bnt_row r;
  bnt_row_init (nv, &r);
  if (out->n != r.C)
    return cn_error_set (err, CN_EINVAL, "batchNorm: MPFI statistics have %lld entries, expected %lld (node '%s')",
                         (long long) out->n, (long long) r.C, cn__node_name (nv));
  if (r.C == 0)
    return CN_OK;
  if (r.M == 0)
    return bnt_no_stats (nv, err);
  mpfr_prec_t prec = mpfi_get_prec (out->v[0]);
  mpfi_t mu, d, acc;
  mpfi_init2 (mu, prec);
  mpfi_init2 (d, prec);
  mpfi_init2 (acc, prec);
  for (int64_t c = 0; c < r.C; c++)
    {
      mpfi_set_ui (mu, 0);
      for (int64_t q = 0; q < r.M; q++)
        mpfi_add (mu, mu, x->v[bnt_index (&r, c, q)]);
      mpfi_div_d (mu, mu, (double) r.M);
      if (nv->out_index == 1)
        {
          mpfi_set (out->v[c], mu);
          continue;
        }
      mpfi_set_ui (acc, 0);
      for (int64_t q = 0; q < r.M; q++)
        {
          mpfi_sub (d, x->v[bnt_index (&r, c, q)], mu);
          mpfi_sqr (d, d);
          mpfi_add (acc, acc, d);
        }
      mpfi_div_d (out->v[c], acc, (double) r.M);
    }
  mpfi_clear (mu);
  mpfi_clear (d);
  mpfi_clear (acc);
  return CN_OK;
}

static cn_status
bnt_ibp_mpfi (const cn_node_view *nv, const cn_mpfi_vec *const *in, cn_mpfi_vec *out, cn_error *err)
{
  for (int i = 0; i < 3; i++)
    if (in[i]->n != cn__numel (nv->in_shape[i]))
      return cn_error_set (err, CN_EINVAL, "batchNorm: MPFI input %d has %lld entries, the shape %lld (node '%s')",
                           i, (long long) in[i]->n, (long long) cn__numel (nv->in_shape[i]), cn__node_name (nv));
  if (nv->out_index > 0)
    return bnt_stat_mpfi (nv, in[0], out, err);
  if (out->n != in[0]->n)
    return cn_error_set (err, CN_EINVAL, "batchNorm: MPFI output has %lld entries, expected %lld (node '%s')",
                         (long long) out->n, (long long) in[0]->n, cn__node_name (nv));
  struct bnt_row r;
  bnt_row_init (nv, &r);
  if (r.M == 0 || out->n == 0)
    return CN_OK;
  mpfr_prec_t prec = mpfi_get_prec (out->v[0]);
  cn_mpfi_vec vx, vz;
  memset (&vx, 0, sizeof vx);
  memset (&vz, 0, sizeof vz);
  cn_status st;
  if ((st = cn_mpfi_vec_init (&vx, r.M, prec, err)) != CN_OK || (st = cn_mpfi_vec_init (&vz, r.M, prec, err)) != CN_OK)
    goto fail;
  for (int64_t c = 0; c < r.C; c++)
    {
      for (int64_t q = 0; q < r.M; q++)
        mpfi_set (vx.v[q], in[0]->v[bnt_index (&r, c, q)]);
      const cn_mpfi_vec *vi[1] = { &vx };
      if ((st = ln_ibp_mpfi (&r.v, vi, &vz, err)) != CN_OK)
        goto fail;
      for (int64_t q = 0; q < r.M; q++)
        {
          mpfi_ptr y = out->v[bnt_index (&r, c, q)];
          mpfi_mul (y, vz.v[q], in[1]->v[c]);
          mpfi_add (y, y, in[2]->v[c]);
        }
    }
  st = CN_OK;
fail:
  cn_mpfi_vec_clear (&vx);
  cn_mpfi_vec_clear (&vz);
  return st;
}

static cn_status
bnt_pullback (const cn_node_view *nv, const cn_tensor *const *in, const cn_tensor *out, const double *g_out,
              double *const *g_in, cn_error *err)
{
  (void) out;
  if (nv->out_index > 0)
    return g_in[0] == NULL ? CN_OK : bnt_stat_run (nv, in[0], NULL, g_out, g_in[0], NULL, NULL, err);
  struct bnt_row r;
  bnt_row_init (nv, &r);
  if (r.M == 0)
    return CN_OK;
  double *buf = malloc ((size_t) (4 * r.M) * sizeof *buf);
  if (buf == NULL)
    return cn_error_set (err, CN_ENOMEM, "batchNorm: out of memory (node '%s')", cn__node_name (nv));
  double *xr = buf, *zr = buf + r.M, *gz = buf + 2 * r.M, *gx = buf + 3 * r.M;
  const double *x = in[0]->data, *sc = in[1]->data;
  const cn_params_batchnorm *p = nv->params;
  cn_tensor tx = { CN_DTYPE_F64, r.shape, xr }, tz = { CN_DTYPE_F64, r.shape, zr };
  cn_status st = CN_OK;
  for (int64_t c = 0; c < r.C && st == CN_OK; c++)
    {
      for (int64_t q = 0; q < r.M; q++)
        xr[q] = x[bnt_index (&r, c, q)];
      ln_row_xhat (xr, r.M, p->eps, zr);
      double gs = 0, gb = 0;
      for (int64_t q = 0; q < r.M; q++)
        {
          double G = g_out[bnt_index (&r, c, q)];
          gs += G * zr[q];
          gb += G;
          gz[q] = G * sc[c];
          gx[q] = 0;
        }
      if (g_in[1] != NULL)
        g_in[1][c] += gs;
      if (g_in[2] != NULL)
        g_in[2][c] += gb;
      if (g_in[0] != NULL)
        {
          const cn_tensor *ti[1] = { &tx };
          double *gi[1] = { gx };
          st = ln_pullback (&r.v, ti, &tz, gz, gi, err);
          for (int64_t q = 0; q < r.M && st == CN_OK; q++)
            g_in[0][bnt_index (&r, c, q)] += gx[q];
        }
    }
  free (buf);
  return st;
}

static cn_status
bnt_jvp (const cn_node_view *nv, const cn_tensor *const *in, const cn_tensor *out, const double *const *t_in,
         double *t_out, cn_error *err)
{
  (void) out;
  if (nv->out_index > 0)
    {
      if (t_in[0] != NULL)
        return bnt_stat_run (nv, in[0], NULL, NULL, NULL, t_in[0], t_out, err);
      for (int64_t c = 0; c < cn__numel (nv->out_shape); c++)
        t_out[c] = 0;
      return CN_OK;
    }
  struct bnt_row r;
  bnt_row_init (nv, &r);
  if (r.M == 0)
    return CN_OK;
  double *buf = malloc ((size_t) (4 * r.M) * sizeof *buf);
  if (buf == NULL)
    return cn_error_set (err, CN_ENOMEM, "batchNorm: out of memory (node '%s')", cn__node_name (nv));
  double *xr = buf, *zr = buf + r.M, *tx_ = buf + 2 * r.M, *tz_ = buf + 3 * r.M;
  const double *x = in[0]->data, *sc = in[1]->data;
  const cn_params_batchnorm *p = nv->params;
  cn_tensor tx = { CN_DTYPE_F64, r.shape, xr }, tz = { CN_DTYPE_F64, r.shape, zr };
  cn_status st = CN_OK;
  for (int64_t c = 0; c < r.C && st == CN_OK; c++)
    {
      for (int64_t q = 0; q < r.M; q++)
        xr[q] = x[bnt_index (&r, c, q)];
      ln_row_xhat (xr, r.M, p->eps, zr);
      if (t_in[0] != NULL)
        {
          for (int64_t q = 0; q < r.M; q++)
            tx_[q] = t_in[0][bnt_index (&r, c, q)];
          const cn_tensor *ti[1] = { &tx };
          const double *tt[1] = { tx_ };
          st = ln_jvp (&r.v, ti, &tz, tt, tz_, err);
        }
      else
        for (int64_t q = 0; q < r.M; q++)
          tz_[q] = 0;
      for (int64_t q = 0; q < r.M && st == CN_OK; q++)
        {
          double t = sc[c] * tz_[q];
          if (t_in[1] != NULL)
            t += t_in[1][c] * zr[q];
          if (t_in[2] != NULL)
            t += t_in[2][c];
          t_out[bnt_index (&r, c, q)] = t;
        }
    }
  free (buf);
  return st;
}

/* Outputs 1 and 2: the batch mean and variance, [C] of the model's scalar. */
static cn_status
bnt_extra (const struct cn_op_rule *rule, const void *params, int n_in, const cn_shape *const *in, int k, cn_shape *shape, cn_dtype *sort,
           cn_error *err)
{
  (void) rule;
  cn_shape y;
  cn_status st = bnt_check (rule, params, n_in, in, &y, err);
  if (st != CN_OK)
    return st;
  if (k != 1 && k != 2)
    return cn_error_set (err, CN_EINVAL, "batchNorm: no output %d", k);
  const cn_params_batchnorm *p = params;
  memset (shape, 0, sizeof *shape);
  shape->rank = 1;
  shape->dim[0] = in[0]->dim[p->axis];
  *sort = CN_DTYPE_F64;
  return CN_OK;
}

static const char *const bnt_out_names[3] = { "y", "mean", "var" };

const struct cn_op_rule cn__rule_BATCH_NORM = { .op = CN_OP_BATCH_NORM,
  .n_in = 3,
  .params_size = sizeof (cn_params_batchnorm),
  .n_out = 3,
  .out_name = bnt_out_names,
  .out_extra = bnt_extra,
  .check = bnt_check,
  .forward = bnt_forward,
  .pullback = bnt_pullback,
  .jvp = bnt_jvp,
  .ibp = bnt_ibp,
  .ibp_mpfi = bnt_ibp_mpfi,
};
