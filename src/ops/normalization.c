/* SPDX-License-Identifier: MIT */
/* src/ops/normalization.c: batchNormRunning (cn_params_batchnorm) and batchNorm (cn_params_batchnorm,
 * documented above its rule at the end of the file); layerNorm, whose arms batchNorm runs on each
 * channel, is in src/ops/layer_norm.c.
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
#include "ops/normalization_impl.h"

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
  CN__ASSERTD (cn_dtype_is_float (out->dtype));
  for (int i = 0; i < 5; i++)
    CN__ASSERTD (in[i]->dtype == out->dtype);
  return out->dtype == CN_DTYPE_F64 ? bn_forward_f64 (nv, in, out, err) : bn_forward_f32 (nv, in, out, err);
}

/* ---- interval helpers (outward rounding; 0 times anything is 0) -------------------------- */

/* The interval product is cn__norm_imul (src/ops/normalization_impl.h). */

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
  cn__norm_imul (cl, ch, r_lo, r_hi, sl, sh);
  return CN_OK;
}

static cn_status
bn_ibp (const cn_node_view *nv, const cn_box *const *in, cn_box *out, cn_error *err)
{
  const cn_params_batchnorm *p = nv->params;
  for (int i = 0; i < 5; i++)
    CN__ASSERTD (in[i]->n == cn__numel (nv->in_shape[i]));
  CN__ASSERTD (out->n == in[0]->n);
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
            cn__norm_imul (sl, sh, dl, dh, &yl, &yh);
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
    CN__ASSERTD (in[i]->n == cn__numel (nv->in_shape[i]));
  CN__ASSERTD (out->n == in[0]->n);
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
  CN__ASSERTD (n == cn__numel (nv->in_shape[0]));
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
      cn__norm_imul (sl, sh, mean, mean, &pl, &ph);
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
  CN__ASSERTD (cn__diff_shapes_match (nv, in, out));
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
  CN__ASSERTD (cn__diff_shapes_match (nv, in, out));
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
  .check = bn_check,
  .forward = bn_forward,
  .pullback = bn_pullback,
  .jvp = bn_jvp,
  .ibp = bn_ibp,
  .ibp_mpfi = bn_ibp_mpfi,
  .crown = bn_crown,
  .certs = CN__CERTS (CN__CERT_GRADIENT, CN__CERT_BOUNDS),
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
 * contiguous row and runs layerNorm's arm on it, through the row view's rule cn__rule_LAYER_NORM
 * (src/ops/layer_norm.c, whose header states the math, the order of the forward, the IBP enclosure
 * of 1.7 and the MPFI algorithm), then applies the channel's affine map:
 *   Forward  y = fl(fl(z scale[c]) + bias[c]) in the sort T (layerNorm's affine order).
 *   IBP      y = [z] [scale_c] + [bias_c]: interval product and sum rounded outward (NaN ends become
 *            infinite), scale and bias possibly boxes.
 *   MPFI     mpfi_mul, mpfi_add on layerNorm's enclosure of z.
 *   Pullback g_scale[c] += sum G z, g_bias[c] += sum G, and g_x from layerNorm's pullback of G scale[c].
 *   Jvp      T_y = scale[c] T_z + T_scale[c] z + T_bias[c], T_z from layerNorm's jvp.
 *   CROWN    none: y is not affine in x (the statistics depend on x).
 * The arms of both operators trust the shapes and sorts the graph builder checked (debug
 * assertions state them); var + eps and the channels' sizes are checked as above. */

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
          cn_status s1 = r.v.rule->forward (&r.v, ti, &tz, err);                                   \
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
  CN__ASSERTD (cn_dtype_is_float (out->dtype));
  for (int i = 0; i < 3; i++)
    CN__ASSERTD (in[i]->dtype == out->dtype);
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
  CN__ASSERTD (out->n == r.C);
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
    CN__ASSERTD (in[i]->n == cn__numel (nv->in_shape[i]));
  if (nv->out_index > 0)
    return bnt_stat_ibp (nv, in[0], out, err);
  CN__ASSERTD (out->n == in[0]->n);
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
      if ((st = r.v.rule->ibp (&r.v, bi, &bz, err)) != CN_OK)
        goto fail;
      /* Now [bz] encloses z of the row; y = z scale + bias rounded outward. */
      double sl = in[1]->lo[c], sh = in[1]->hi[c], bl = in[2]->lo[c], bh = in[2]->hi[c];
      for (int64_t q = 0; q < r.M; q++)
        {
          int64_t j = bnt_index (&r, c, q);
          double yl, yh;
          cn__norm_imul (bz.lo[q], bz.hi[q], sl, sh, &yl, &yh);
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
  CN__ASSERTD (out->n == r.C);
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
    CN__ASSERTD (in[i]->n == cn__numel (nv->in_shape[i]));
  if (nv->out_index > 0)
    return bnt_stat_mpfi (nv, in[0], out, err);
  CN__ASSERTD (out->n == in[0]->n);
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
      if ((st = r.v.rule->ibp_mpfi (&r.v, vi, &vz, err)) != CN_OK)
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
      cn__layer_norm_row_xhat (xr, r.M, p->eps, zr);
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
          st = r.v.rule->pullback (&r.v, ti, &tz, gz, gi, err);
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
      cn__layer_norm_row_xhat (xr, r.M, p->eps, zr);
      if (t_in[0] != NULL)
        {
          for (int64_t q = 0; q < r.M; q++)
            tx_[q] = t_in[0][bnt_index (&r, c, q)];
          const cn_tensor *ti[1] = { &tx };
          const double *tt[1] = { tx_ };
          st = r.v.rule->jvp (&r.v, ti, &tz, tt, tz_, err);
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
  .n_out = 3,
  .out_name = bnt_out_names,
  .out_extra = bnt_extra,
  .check = bnt_check,
  .forward = bnt_forward,
  .pullback = bnt_pullback,
  .jvp = bnt_jvp,
  .ibp = bnt_ibp,
  .ibp_mpfi = bnt_ibp_mpfi,
  .certs = CN__CERTS (CN__CERT_GRADIENT, CN__CERT_IBP),
};
