/* SPDX-License-Identifier: MIT */
/* src/ops/loss.c: the losses (cn_params_loss): mseLoss, maeLoss, huberLoss, hingeLoss, poissonLoss,
 * logCoshLoss, binaryCrossEntropy, cosineLoss, crossEntropy, crossEntropyProbabilities, distill.
 *
 * Every loss takes two inputs.  The first, x, is a value port (the model's prediction: values,
 * logits or probabilities).  The second is the target: a frozen port (mse, mae, huber, hinge,
 * poisson, logCosh, binaryCrossEntropy, crossEntropyProbabilities: no gradient), an index port
 * (crossEntropy's class labels: float tensors holding integers), a detached port (distill's
 * teacher logits, which PyTorch detaches) or a second value port (cosineLoss, symmetric).
 * The arms are shared: each rule's impl (struct loss_impl) holds the loss's kind, whether it is a
 * row loss, and the a-priori range of a sample's loss used below.
 *
 * Samples.  The elementwise losses (the first seven) take x and the target of one shape; sample s
 * is entry s.  The row losses (cosineLoss, crossEntropy, crossEntropyProbabilities, distill) work
 * along the class axis a = 1 (a = 0 for a rank-1 x), as PyTorch's cross_entropy and
 * cosine_similarity: with outer the product of the extents before a, C = x's extent on a and inner
 * the product after it, sample s = o inner + i is the row of the entries (o C + c) inner + i,
 * c = 0..C-1.  crossEntropy's labels have x's shape without axis a; the other row losses' targets
 * have x's shape.  The per-sample losses l_s, n of them, are then reduced as torch's reduction:
 * CN_LOSS_NONE gives l itself (x's shape, without axis a for the row losses), CN_LOSS_SUM the sum and
 * CN_LOSS_MEAN (the zero record) the sum / n, both of rank 0; the check refuses a mean over no
 * samples and a row loss with C = 0.
 *
 *   mseLoss                    l = (x - y)^2
 *   maeLoss                    l = |x - y|
 *   huberLoss (delta > 0)      l = (x - y)^2 / 2 if |x - y| < delta, else delta (|x - y| - delta / 2)
 *   hingeLoss (margin finite)  l = max(0, margin - x y)      (y a +-1 label as data)
 *   poissonLoss                l = exp(x) - y x               (torch's PoissonNLLLoss, log_input, not full)
 *   logCoshLoss                l = log(cosh(x - y))
 *   binaryCrossEntropy         l = -(y L(x) + (1 - y) L(1 - x)),  L(t) = max(log t, -100)  (torch's BCELoss
 *                              clamp; x outside [0, 1] gives NaN)
 *   cosineLoss (eps > 0)       l = 1 - x.y / max(|x| |y|, eps)   over the row
 *   crossEntropy               l = log sum_c exp(x_c) - x_k,  k the row's label: an integer in [0, C)
 *                              (else CN_EINVAL naming the node, in forward, IBP and MPFI)
 *   crossEntropyProbabilities  l = -sum_c y_c log(max(x_c, eps)),  0 <= eps < 1 (eps = 0: no clamp;
 *                              then log 0 = -inf and a negative x_c gives NaN)
 *   distill (tau > 0)          l = tau^2 KL(q || p) = tau^2 sum_c q_c (log q_c - log p_c),
 *                              p = softmax(x / tau), q = softmax(y / tau) (Hinton's distillation with
 *                              PyTorch's kl_div: a term with q_c = 0 is 0)
 *
 *   Forward  in the tensors' sort T (C99 libm in that sort), samples in increasing order, a row's
 *            entries in increasing c, the reduction summing the samples in increasing order (mean: the
 *            sum over n, in T).  logCosh is evaluated without overflow as log1p(2 sinh^2(a/2)) for
 *            a = |x - y| < 1 and a + log1p(exp(-2a)) - log 2 otherwise; the log-sum-exps
 *            (crossEntropy, distill) as m + log1p(sum of exp(v_c - m) over the entries but the
 *            first maximum), m the row's maximum.  NaN propagates (a NaN in a row makes the row NaN).
 *            Accuracy: none of these is correctly rounded (each is a short chain of rounded steps,
 *            plus the sums of the row losses and of the reduction); the generic test checks every
 *            one against MPFR at 256 bits within 16e-12 (1 + |r|) (f64) and 16e-4 (1 + |r|) (f32) on
 *            its ranges.  Per-operator ulp bounds were NOT measured in this pass (estimates: the
 *            elementwise losses a few ulps; the row losses and the mean/sum reductions grow with
 *            the row length and n as any recursive sum, about (C + n) ulps of the sum of |terms|).
 *   IBP      one kernel in MPFI shared with the reference arm: the boxes' ends (exact) into
 *            intervals at 128 bits, the kernel, the result's ends rounded outward to doubles
 *            (mpfr_get_d RNDD / RNDU).  Per sample:
 *              mse: sqr(X - Y) (the tight square); mae: |X - Y|; huber and logCosh: increasing in
 *              a = |X - Y| >= 0, so the ends of |X - Y| map to the ends, each evaluated in MPFI on a
 *              point; hinge: max(0, margin - X Y), max applied to both ends; poisson: exp(X) - Y X;
 *              binaryCrossEntropy: CN_ENUMERIC unless X lies in [0, 1], then max(log X, -100) and
 *              max(log(1 - X), -100) (max on both ends) in the interval formula; cosineLoss:
 *              1 - (X.Y) / max(sqrt(sum X^2) sqrt(sum Y^2), eps), intersected with [0, 2]
 *              (|x.y| <= |x| |y| <= the denominator); crossEntropyProbabilities: CN_ENUMERIC if eps
 *              = 0 and X reaches below 0, else -sum Y log(max(X, eps)).
 *              crossEntropy: l = log1p(sum_{j != k} exp(x_j - x_k)) is increasing in x_j (j != k) and
 *              decreasing in x_k, so its range is [l(lo_j, hi_k), l(hi_j, lo_k)], each end computed
 *              in MPFR with every step rounded in its direction (differences, exponentials, sums,
 *              log1p); the label must be a point (CN_EINVAL otherwise).  distill: the same monotone
 *              enclosure of -log p_c = log1p(sum_{j != c} exp((x_j - x_c) / tau)) and of -log q_c,
 *              q_c = exp(log q_c), then tau^2 sum Q_c (NLP_c - NLQ_c) in MPFI, intersected with
 *              [0, +inf) (KL >= 0).
 *            Infinite ends: MPFR's limits (exp(-inf) = 0, log(0) = -inf ...); a step meeting inf - inf
 *            or 0 inf makes that end fall back to the loss's a-priori range (>= 0 for mse, mae,
 *            huber, hinge, logCosh, crossEntropy, distill; [0, 2] for cosineLoss; the whole line
 *            otherwise), which holds for every real input.  A NaN end is CN_ENUMERIC.  The
 *            reduction adds the sample intervals in MPFI (mean: divided by n).  Every MPFI
 *            operation and every directed MPFR step is inclusion-isotone and monotone in the
 *            precision, so the 128-bit box contains the reference's (256-bit) enclosure.
 *   MPFI     the same kernel at the output's precision (on points: an enclosure of the exact value).
 *   Pullback (binary64) g_s = g_out[s] (none), g_out[0] (sum) or g_out[0] / n (mean), and
 *            g_x += g_s dl/dx:  mse 2(x - y); mae sign(x - y) (0 at 0); huber x - y if |x - y| <
 *            delta, else delta sign(x - y); hinge -y where margin - x y > 0 (0 at 0 and below);
 *            poisson exp(x) - y; logCosh tanh(x - y); binaryCrossEntropy -y/x (where log x > -100)
 *            + (1 - y)/(1 - x) (where log(1 - x) > -100), the clamp's flat side giving 0;
 *            cosineLoss with D = |x||y| > eps and c = x.y / D: dl/dx = -(y/D - c x/|x|^2), dl/dy
 *            symmetric; where D <= eps (clamped) dl/dx = -y/eps, dl/dy = -x/eps; crossEntropy
 *            softmax(x)_c - [c = k]; crossEntropyProbabilities -y_c/x_c where x_c > eps, else 0;
 *            distill tau (p_c - q_c).  The targets (frozen, index, detached) receive nothing.
 *   Jvp      t_out = sum over samples (none: per sample) of g-weights as above times the tangents
 *            of the value ports, the same one-sided choices (adjoint to the pullback).
 *   CROWN    mse, mae, huber, logCosh, and hinge and poisson with a constant target: a tangent
 *            below and a chord above the convex per-sample loss (binaryCrossEntropy too, away from
 *            its clamp, and crossEntropyProbabilities entry by entry above its clamp);
 *            crossEntropy with known labels: gradient planes at the row's centre with a Taylor
 *            remainder above (the section "CROWN" below); cosineLoss and distill have none (the
 *            sweep takes their IBP box). */
#include <config.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "ops/ops_impl.h"
#include "sound/sound.h"
#include <tgmath.h>

#define LN2 0.693147180559945309417232121458176568
#define IBP_PREC 128

/* The losses' kinds: the family's vocabulary, which each rule's impl names. */
enum loss_kind { L_MSE, L_MAE, L_HUBER, L_HINGE, L_POISSON, L_LOGCOSH, L_BCE, L_COS, L_CE, L_CEP, L_DISTILL };

/* What the shared arms read of a loss (its rule's impl). */
struct loss_impl
{
  enum loss_kind kind;
  int row;                /* a row loss (along the class axis) */
  double lo, hi;          /* the a-priori range of a sample's loss over all real inputs */
};

/* The sample layout of a node (see the header comment). */
struct layout
{
  int64_t n_s, outer, C, inner;
  int row;
};

static void
layout_of (const struct loss_impl *d, const cn_shape *x, struct layout *ly)
{
  ly->row = d->row;
  if (!d->row)
    {
      ly->n_s = cn_shape_numel (x);
      ly->outer = ly->n_s;
      ly->C = 1;
      ly->inner = 1;
      return;
    }
  int a = x->rank >= 2 ? 1 : 0;
  int64_t o = 1, i = 1;
  for (int k = 0; k < a; k++)
    o *= x->dim[k];
  for (int k = a + 1; k < x->rank; k++)
    i *= x->dim[k];
  ly->outer = o;
  ly->C = x->dim[a];
  ly->inner = i;
  ly->n_s = o * i;
}

/* The index of entry C of sample S's row (S itself for the elementwise losses). */
static inline int64_t
entry (const struct layout *ly, int64_t s, int64_t c)
{
  if (!ly->row)
    return s;
  int64_t o = s / ly->inner, i = s % ly->inner;
  return (o * ly->C + c) * ly->inner + i;
}

/* ---- check ---------------------------------------------------------------------------- */

static cn_status
loss_check (const struct cn_op_rule *rule, const void *params, int n_in, const cn_shape *const *in, cn_shape *out,
            cn_error *err)
{
  const struct loss_impl *d = rule->impl;
  const char *op = cn_op_name (rule->op);
  const cn_params_loss *p = params;
  char a[128], b[128];
  if (p == NULL)
    return cn_error_set (err, CN_EINVAL, "%s: missing attributes", op);
  if (p->reduction != CN_LOSS_MEAN && p->reduction != CN_LOSS_SUM && p->reduction != CN_LOSS_NONE)
    return cn_error_set (err, CN_EINVAL, "%s: unknown reduction %d", op, (int) p->reduction);
  if (d->kind == L_HUBER && !(p->delta > 0 && isfinite (p->delta)))
    return cn_error_set (err, CN_EINVAL, "%s: delta %g is not finite and > 0", op, p->delta);
  if (d->kind == L_HINGE && !isfinite (p->margin))
    return cn_error_set (err, CN_EINVAL, "%s: margin %g is not finite", op, p->margin);
  if (d->kind == L_COS && !(p->eps > 0 && isfinite (p->eps)))
    return cn_error_set (err, CN_EINVAL, "%s: eps %g is not finite and > 0", op, p->eps);
  if (d->kind == L_CEP && !(p->eps >= 0 && p->eps < 1))
    return cn_error_set (err, CN_EINVAL, "%s: eps %g is not in [0, 1)", op, p->eps);
  if (d->kind == L_DISTILL && !(p->temperature > 0 && isfinite (p->temperature)))
    return cn_error_set (err, CN_EINVAL, "%s: temperature %g is not finite and > 0", op, p->temperature);
  if (n_in != 2)
    return cn_error_set (err, CN_EINVAL, "%s: takes 2 inputs, got %d", op, n_in);
  for (int i = 0; i < 2; i++)
    {
      cn_status st = cn__input_valid (op, i, in[i], err);
      if (st != CN_OK)
        return st;
    }
  cn_shape ss = *in[0];
  if (d->row)
    {
      if (in[0]->rank < 1)
        return cn_error_set (err, CN_ESHAPE, "%s: input has rank 0 (no class axis)", op);
      int ax = in[0]->rank >= 2 ? 1 : 0;
      if (in[0]->dim[ax] == 0)
        return cn_error_set (err, CN_ESHAPE, "%s: input %s has no classes on axis %d", op,
                             cn_shape_format (in[0], a, sizeof a), ax);
      for (int k = ax; k + 1 < in[0]->rank; k++)
        ss.dim[k] = in[0]->dim[k + 1];
      ss.dim[in[0]->rank - 1] = 0;
      ss.rank = in[0]->rank - 1;
    }
  const cn_shape *want = d->kind == L_CE ? &ss : in[0];
  if (!cn_shape_equal (in[1], want))
    return cn_error_set (err, CN_ESHAPE, "%s: target shape %s differs from %s", op,
                         cn_shape_format (in[1], b, sizeof b), cn_shape_format (want, a, sizeof a));
  if (p->reduction == CN_LOSS_NONE)
    *out = ss;
  else
    {
      if (cn_shape_numel (&ss) == 0 && p->reduction == CN_LOSS_MEAN)
        return cn_error_set (err, CN_ESHAPE, "%s: mean over no samples (input %s)", op,
                             cn_shape_format (in[0], a, sizeof a));
      int64_t none[1] = { 0 };
      return cn_shape_make (out, 0, none, err);
    }
  return CN_OK;
}

/* crossEntropy's labels: every entry an integer in [0, C). */
static cn_status
check_label (const cn_node_view *nv, const struct layout *ly, double v, int64_t s, cn_error *err)
{
  if (!(v >= 0 && v < (double) ly->C && v == floor (v)))
    return cn_error_set (err, CN_EINVAL, "%s: label %g of sample %lld is not an integer in [0, %lld) (node '%s')",
                         cn_op_name (nv->op), v, (long long) s, (long long) ly->C, cn__node_name (nv));
  return CN_OK;
}

/* ---- forward in the sort T (double, float) --------------------------------------------- */

#define LOSS_LSE(T, S)                                                                              \
/* log sum_c exp(v_c / TAU - m) of sample S's row in the sort T, with m (written to *M) the         \
 * largest v_c / TAU: r = log1p of the sum of the terms but the first maximum's (exactly 1), so     \
 * that nothing overflows; a NaN entry makes r NaN. */                                              \
static T                                                                                            \
lse_##S (const struct layout *ly, const T *v, int64_t s, T tau, T *mp)                              \
{                                                                                                   \
  T m = -INFINITY, acc = 0;                                                                         \
  int64_t am = -1;                                                                                  \
  for (int64_t c = 0; c < ly->C; c++)                                                               \
    {                                                                                               \
      T z = v[entry (ly, s, c)] / tau;                                                              \
      if (z > m)                                                                                    \
        m = z, am = c;                                                                              \
    }                                                                                               \
  for (int64_t c = 0; c < ly->C; c++)                                                               \
    if (c != am)                                                                                    \
      acc += exp (v[entry (ly, s, c)] / tau - m);                                                   \
  *mp = m;                                                                                          \
  return log1p (acc);                                                                               \
}

#define LOSS_FORWARD(T, S)                                                                                           \
/* The loss of sample S in the sort T (see the header comment for the formulas and the order). */                    \
static T                                                                                                             \
sample_fwd_##S (const struct loss_impl *d, const cn_params_loss *p, const struct layout *ly, const T *x, const T *y,  \
                int64_t s)                                                                                           \
{                                                                                                                    \
  switch (d->kind)                                                                                                   \
    {                                                                                                                \
    case L_MSE:                                                                                                      \
      {                                                                                                              \
        T e = x[s] - y[s];                                                                                           \
        return e * e;                                                                                                \
      }                                                                                                              \
    case L_MAE:                                                                                                      \
      return fabs (x[s] - y[s]);                                                                                     \
    case L_HUBER:                                                                                                    \
      {                                                                                                              \
        T a = fabs (x[s] - y[s]), dl = (T) p->delta;                                                                 \
        return a < dl ? (T) 0.5 * a * a : dl * (a - (T) 0.5 * dl);                                                   \
      }                                                                                                              \
    case L_HINGE:                                                                                                    \
      {                                                                                                              \
        T t = (T) p->margin - x[s] * y[s];                                                                           \
        return t < 0 ? (T) 0 : t;                                                                                    \
      }                                                                                                              \
    case L_POISSON:                                                                                                  \
      return exp (x[s]) - y[s] * x[s];                                                                               \
    case L_LOGCOSH:                                                                                                  \
      {                                                                                                              \
        T a = fabs (x[s] - y[s]);                                                                                    \
        if (a < 1)                                                                                                   \
          {                                                                                                          \
            T h = sinh (a / 2);                                                                                      \
            return log1p (2 * h * h);                                                                                \
          }                                                                                                          \
        return a + log1p (exp (-2 * a)) - (T) LN2;                                                                   \
      }                                                                                                              \
    case L_BCE:                                                                                                      \
      {                                                                                                              \
        T lp = log (x[s]), lq = log1p (-x[s]);                                                                       \
        lp = lp < -100 ? (T) -100 : lp;                                                                              \
        lq = lq < -100 ? (T) -100 : lq;                                                                              \
        return -(y[s] * lp + (1 - y[s]) * lq);                                                                       \
      }                                                                                                              \
    case L_COS:                                                                                                      \
      {                                                                                                              \
        T dot = 0, nx = 0, ny = 0, eps = (T) p->eps;                                                                 \
        for (int64_t c = 0; c < ly->C; c++)                                                                          \
          {                                                                                                          \
            int64_t q = entry (ly, s, c);                                                                            \
            dot += x[q] * y[q];                                                                                      \
            nx += x[q] * x[q];                                                                                       \
            ny += y[q] * y[q];                                                                                       \
          }                                                                                                          \
        T den = sqrt (nx) * sqrt (ny);                                                                               \
        den = den < eps ? eps : den;                                                                                 \
        return 1 - dot / den;                                                                                        \
      }                                                                                                              \
    case L_CE:                                                                                                       \
      {                                                                                                              \
        int64_t k = (int64_t) y[s];                                                                                  \
        T m, r = lse_##S (ly, x, s, 1, &m);                                                                          \
        return (m - x[entry (ly, s, k)]) + r;                                                                        \
      }                                                                                                              \
    case L_CEP:                                                                                                      \
      {                                                                                                              \
        T acc = 0, eps = (T) p->eps;                                                                                 \
        for (int64_t c = 0; c < ly->C; c++)                                                                          \
          {                                                                                                          \
            int64_t q = entry (ly, s, c);                                                                            \
            T v = x[q] < eps ? eps : x[q];                                                                           \
            acc += y[q] * log (v);                                                                                   \
          }                                                                                                          \
        return -acc;                                                                                                 \
      }                                                                                                              \
    case L_DISTILL:                                                                                                  \
      {                                                                                                              \
        T tau = (T) p->temperature, ms, mt;                                                                          \
        T rs = lse_##S (ly, x, s, tau, &ms), rt = lse_##S (ly, y, s, tau, &mt), acc = 0;                             \
        for (int64_t c = 0; c < ly->C; c++)                                                                          \
          {                                                                                                          \
            int64_t q = entry (ly, s, c);                                                                            \
            T lq = (y[q] / tau - mt) - rt, lp = (x[q] / tau - ms) - rs, qc = exp (lq);                               \
            if (qc != 0)                                                                                             \
              acc += qc * (lq - lp);                                                                                 \
          }                                                                                                          \
        return tau * tau * acc;                                                                                      \
      }                                                                                                              \
    }                                                                                                                \
  return NAN;                                                                                                        \
}                                                                                                                    \
                                                                                                                     \
/* The forward of the node in the sort T: per-sample losses, then the reduction in increasing                        \
 * sample order (mean: the sum divided by the count, both in T). */                                                  \
static void                                                                                                          \
forward_##S (const struct loss_impl *d, const cn_params_loss *p, const struct layout *ly, const T *x, const T *y,     \
             T *out)                                                                                                 \
{                                                                                                                    \
  T acc = 0;                                                                                                         \
  for (int64_t s = 0; s < ly->n_s; s++)                                                                              \
    {                                                                                                                \
      T l = sample_fwd_##S (d, p, ly, x, y, s);                                                                      \
      if (p->reduction == CN_LOSS_NONE)                                                                              \
        out[s] = l;                                                                                                  \
      else                                                                                                           \
        acc += l;                                                                                                    \
    }                                                                                                                \
  if (p->reduction == CN_LOSS_SUM)                                                                                   \
    out[0] = acc;                                                                                                    \
  else if (p->reduction == CN_LOSS_MEAN)                                                                             \
    out[0] = acc / (T) ly->n_s;                                                                                      \
}

LOSS_LSE (double, f64)
LOSS_LSE (float, f32)
LOSS_FORWARD (double, f64)
LOSS_FORWARD (float, f32)

static cn_status
loss_forward (const cn_node_view *nv, const cn_tensor *const *in, cn_tensor *out, cn_error *err)
{
  const struct loss_impl *d = nv->rule->impl;
  const cn_params_loss *p = nv->params;
  struct layout ly;
  layout_of (d, nv->in_shape[0], &ly);
  if (d->kind == L_CE)
    for (int64_t s = 0; s < ly.n_s; s++)
      {
        cn_status st = check_label (nv, &ly, cn_tensor_get_f64 (in[1], s), s, err);
        if (st != CN_OK)
          return st;
      }
  /* the tensors are of the evaluation's floating sort (the graph builder's contract) */
  CN__ASSERTD (cn_dtype_is_float (out->dtype) && in[0]->dtype == out->dtype && in[1]->dtype == out->dtype);
  if (out->dtype == CN_DTYPE_F64)
    forward_f64 (d, p, &ly, in[0]->data, in[1]->data, out->data);
  else
    forward_f32 (d, p, &ly, in[0]->data, in[1]->data, out->data);
  return CN_OK;
}

/* ---- pullback and jvp ------------------------------------------------------------------ */

static double
sgn (double v)
{
  return v > 0 ? 1 : v < 0 ? -1 : 0;
}

/* The partial derivatives of sample S's loss in binary64: gx[c] = dl/dx at the row's entry c
 * (c = 0 for the elementwise losses), gy[c] = dl/dy for cosineLoss (the only loss whose second
 * port is a value port). */
static void
sample_grad (const struct loss_impl *d, const cn_params_loss *p, const struct layout *ly, const double *x,
             const double *y, int64_t s, double *gx, double *gy)
{
  switch (d->kind)
    {
    case L_MSE:
      gx[0] = 2 * (x[s] - y[s]);
      return;
    case L_MAE:
      gx[0] = sgn (x[s] - y[s]);
      return;
    case L_HUBER:
      {
        double e = x[s] - y[s];
        gx[0] = fabs (e) < p->delta ? e : p->delta * sgn (e);
        return;
      }
    case L_HINGE:
      gx[0] = p->margin - x[s] * y[s] > 0 ? -y[s] : 0;
      return;
    case L_POISSON:
      gx[0] = exp (x[s]) - y[s];
      return;
    case L_LOGCOSH:
      gx[0] = tanh (x[s] - y[s]);
      return;
    case L_BCE:
      gx[0] = (log (x[s]) > -100 ? -y[s] / x[s] : 0) + (log1p (-x[s]) > -100 ? (1 - y[s]) / (1 - x[s]) : 0);
      return;
    case L_COS:
      {
        double dot = 0, nx = 0, ny = 0;
        for (int64_t c = 0; c < ly->C; c++)
          {
            int64_t q = entry (ly, s, c);
            dot += x[q] * y[q];
            nx += x[q] * x[q];
            ny += y[q] * y[q];
          }
        double den = sqrt (nx) * sqrt (ny);
        for (int64_t c = 0; c < ly->C; c++)
          {
            int64_t q = entry (ly, s, c);
            if (den > p->eps)
              {
                double cs = dot / den;
                gx[c] = -(y[q] / den - cs * x[q] / nx);
                gy[c] = -(x[q] / den - cs * y[q] / ny);
              }
            else
              {
                gx[c] = -y[q] / p->eps;
                gy[c] = -x[q] / p->eps;
              }
          }
        return;
      }
    case L_CE:
      {
        int64_t k = (int64_t) y[s];
        double m, r = lse_f64 (ly, x, s, 1, &m);
        for (int64_t c = 0; c < ly->C; c++)
          gx[c] = exp ((x[entry (ly, s, c)] - m) - r) - (c == k);
        return;
      }
    case L_CEP:
      for (int64_t c = 0; c < ly->C; c++)
        {
          int64_t q = entry (ly, s, c);
          gx[c] = x[q] > p->eps ? -y[q] / x[q] : 0;
        }
      return;
    case L_DISTILL:
      {
        double tau = p->temperature, ms, mt;
        double rs = lse_f64 (ly, x, s, tau, &ms), rt = lse_f64 (ly, y, s, tau, &mt);
        for (int64_t c = 0; c < ly->C; c++)
          {
            int64_t q = entry (ly, s, c);
            gx[c] = tau * (exp ((x[q] / tau - ms) - rs) - exp ((y[q] / tau - mt) - rt));
          }
        return;
      }
    }
}

static cn_status
grad_scratch (const cn_node_view *nv, const struct layout *ly, double **gx, double **gy, cn_error *err)
{
  *gx = malloc ((size_t) (2 * ly->C + 1) * sizeof **gx);
  if (*gx == NULL)
    return cn_error_set (err, CN_ENOMEM, "%s: out of memory (node '%s')", cn_op_name (nv->op), cn__node_name (nv));
  *gy = *gx + ly->C;
  return CN_OK;
}

static cn_status
loss_pullback (const cn_node_view *nv, const cn_tensor *const *in, const cn_tensor *out, const double *g_out,
               double *const *g_in, cn_error *err)
{
  (void) out;
  const struct loss_impl *d = nv->rule->impl;
  const cn_params_loss *p = nv->params;
  struct layout ly;
  layout_of (d, nv->in_shape[0], &ly);
  const double *x = in[0]->data, *y = in[1]->data;
  double *g0 = g_in[0], *g1 = d->kind == L_COS ? g_in[1] : NULL;
  if (g0 == NULL && g1 == NULL)
    return CN_OK;
  if (d->kind == L_CE)
    for (int64_t s = 0; s < ly.n_s; s++)
      {
        cn_status st = check_label (nv, &ly, y[s], s, err);
        if (st != CN_OK)
          return st;
      }
  double *gx = NULL, *gy = NULL;
  cn_status st = grad_scratch (nv, &ly, &gx, &gy, err);
  if (st != CN_OK)
    return st;
  for (int64_t s = 0; s < ly.n_s; s++)
    {
      double gs = p->reduction == CN_LOSS_NONE ? g_out[s]
                  : p->reduction == CN_LOSS_SUM ? g_out[0] : g_out[0] / (double) ly.n_s;
      sample_grad (d, p, &ly, x, y, s, gx, gy);
      for (int64_t c = 0; c < ly.C; c++)
        {
          int64_t q = entry (&ly, s, c);
          if (g0 != NULL)
            g0[q] += gs * gx[c];
          if (g1 != NULL)
            g1[q] += gs * gy[c];
        }
    }
  free (gx);
  return CN_OK;
}

static cn_status
loss_jvp (const cn_node_view *nv, const cn_tensor *const *in, const cn_tensor *out, const double *const *t_in,
          double *t_out, cn_error *err)
{
  (void) out;
  const struct loss_impl *d = nv->rule->impl;
  const cn_params_loss *p = nv->params;
  struct layout ly;
  layout_of (d, nv->in_shape[0], &ly);
  const double *x = in[0]->data, *y = in[1]->data;
  const double *t0 = t_in[0], *t1 = d->kind == L_COS ? t_in[1] : NULL;
  if (d->kind == L_CE)
    for (int64_t s = 0; s < ly.n_s; s++)
      {
        cn_status st = check_label (nv, &ly, y[s], s, err);
        if (st != CN_OK)
          return st;
      }
  double *gx = NULL, *gy = NULL;
  cn_status st = grad_scratch (nv, &ly, &gx, &gy, err);
  if (st != CN_OK)
    return st;
  double acc = 0;
  for (int64_t s = 0; s < ly.n_s; s++)
    {
      double ts = 0;
      if (t0 != NULL || t1 != NULL)
        {
          sample_grad (d, p, &ly, x, y, s, gx, gy);
          for (int64_t c = 0; c < ly.C; c++)
            {
              int64_t q = entry (&ly, s, c);
              if (t0 != NULL)
                ts += gx[c] * t0[q];
              if (t1 != NULL)
                ts += gy[c] * t1[q];
            }
        }
      if (p->reduction == CN_LOSS_NONE)
        t_out[s] = ts;
      else
        acc += ts;
    }
  if (p->reduction == CN_LOSS_SUM)
    t_out[0] = acc;
  else if (p->reduction == CN_LOSS_MEAN)
    t_out[0] = acc / (double) ly.n_s;
  free (gx);
  return CN_OK;
}

/* ---- the interval kernel (IBP and MPFI) ------------------------------------------------ */

struct ws
{
  mpfi_t a, b, t, u, acc;
  mpfr_t r, q, e;
};

static void
ws_init (struct ws *w, mpfr_prec_t prec)
{
  mpfi_init2 (w->a, prec);
  mpfi_init2 (w->b, prec);
  mpfi_init2 (w->t, prec);
  mpfi_init2 (w->u, prec);
  mpfi_init2 (w->acc, prec);
  mpfr_init2 (w->r, prec);
  mpfr_init2 (w->q, prec);
  mpfr_init2 (w->e, prec);
}

static void
ws_clear (struct ws *w)
{
  mpfi_clear (w->a);
  mpfi_clear (w->b);
  mpfi_clear (w->t);
  mpfi_clear (w->u);
  mpfi_clear (w->acc);
  mpfr_clear (w->r);
  mpfr_clear (w->q);
  mpfr_clear (w->e);
}

/* V := [max(left, c), max(right, c)], the image of V under t -> max(t, c) (increasing). */
static void
clamp_below (mpfi_ptr v, double c, struct ws *w)
{
  mpfr_set (w->r, &v->left, MPFR_RNDD);
  mpfr_set (w->q, &v->right, MPFR_RNDU);
  if (mpfr_cmp_d (w->r, c) < 0)
    mpfr_set_d (w->r, c, MPFR_RNDD);
  if (mpfr_cmp_d (w->q, c) < 0)
    mpfr_set_d (w->q, c, MPFR_RNDU);
  mpfi_interv_fr (v, w->r, w->q);
}

/* One end of l_k = log1p(sum_{j != k} exp((x_j - x_k) / tau)) over sample S's row, the x_j at
 * the ends XJ (left or right) and x_k at the end XK, every step rounded in direction RND (the
 * function is increasing in each x_j and decreasing in x_k, and every step is monotone): with
 * RND = RNDD and x_j = left, x_k = right it is a lower bound of l_k over the box, with RNDU and
 * the opposite ends an upper bound.  A NaN step (inf - inf) gives the trivial end: 0 below,
 * +inf above.  The result is in W->e. */
static void
nlsm_end (const struct layout *ly, mpfi_srcptr const *X, int64_t s, int64_t k, double tau, int up, struct ws *w)
{
  mpfr_rnd_t rnd = up ? MPFR_RNDU : MPFR_RNDD;
  mpfr_srcptr xk = up ? &X[entry (ly, s, k)]->left : &X[entry (ly, s, k)]->right;
  mpfr_set_ui (w->e, 0, rnd);
  for (int64_t j = 0; j < ly->C; j++)
    {
      if (j == k)
        continue;
      mpfr_srcptr xj = up ? &X[entry (ly, s, j)]->right : &X[entry (ly, s, j)]->left;
      mpfr_sub (w->r, xj, xk, rnd);
      if (tau != 1)
        mpfr_div_d (w->r, w->r, tau, rnd);
      mpfr_exp (w->r, w->r, rnd);
      mpfr_add (w->e, w->e, w->r, rnd);
    }
  mpfr_log1p (w->e, w->e, rnd);
  if (mpfr_nan_p (w->e))
    {
      if (up)
        mpfr_set_inf (w->e, 1);
      else
        mpfr_set_ui (w->e, 0, rnd);
    }
}

/* OUT := an enclosure of -log softmax(x / tau)_k over the box of sample S's row. */
static void
nlsm_itv (mpfi_ptr out, const struct layout *ly, mpfi_srcptr const *X, int64_t s, int64_t k, double tau,
          struct ws *w)
{
  nlsm_end (ly, X, s, k, tau, 0, w);
  mpfr_set (w->q, w->e, MPFR_RNDD);
  nlsm_end (ly, X, s, k, tau, 1, w);
  mpfi_interv_fr (out, w->q, w->e);
}

/* OUT := [f(left of A), f(right of A)] for huberLoss (HUBER) or logCosh, both increasing on
 * [0, +inf), each end evaluated in MPFI on a point and its own side kept. */
static void
increasing_of_abs (int huber, double delta, mpfi_ptr out, mpfi_srcptr a, struct ws *w)
{
  for (int side = 0; side < 2; side++)
    {
      mpfi_ptr v = side ? w->b : w->a;
      mpfi_set_fr (v, side ? &a->right : &a->left);
      if (!huber)
        {
          mpfi_cosh (v, v);
          mpfi_log (v, v);
        }
      else if (mpfr_cmp_d (side ? &a->right : &a->left, delta) < 0)
        {
          mpfi_sqr (v, v);
          mpfi_div_2ui (v, v, 1);
        }
      else
        {
          mpfi_set_d (w->u, delta);
          mpfi_div_2ui (w->u, w->u, 1);
          mpfi_sub (v, v, w->u);
          mpfi_mul_d (v, v, delta);
        }
    }
  mpfi_interv_fr (out, &w->a->left, &w->b->right);
}

/* OUT := an enclosure of sample S's loss over the intervals X (first port) and Y (second). */
static cn_status
sample_itv (const cn_node_view *nv, const struct loss_impl *d, const cn_params_loss *p, const struct layout *ly,
            mpfi_srcptr const *X, mpfi_srcptr const *Y, int64_t s, mpfi_ptr out, struct ws *w, cn_error *err)
{
  switch (d->kind)
    {
    case L_MSE:
      mpfi_sub (w->t, X[s], Y[s]);
      mpfi_sqr (out, w->t);
      break;
    case L_MAE:
      mpfi_sub (w->t, X[s], Y[s]);
      mpfi_abs (out, w->t);
      break;
    case L_HUBER:
    case L_LOGCOSH:
      mpfi_sub (w->t, X[s], Y[s]);
      mpfi_abs (w->t, w->t);
      increasing_of_abs (d->kind == L_HUBER, p->delta, out, w->t, w);
      break;
    case L_HINGE:
      mpfi_mul (w->t, X[s], Y[s]);
      mpfi_d_sub (w->t, p->margin, w->t);
      clamp_below (w->t, 0, w);
      mpfi_set (out, w->t);
      break;
    case L_POISSON:
      mpfi_exp (w->t, X[s]);
      mpfi_mul (w->u, Y[s], X[s]);
      mpfi_sub (out, w->t, w->u);
      break;
    case L_BCE:
      if (mpfr_cmp_ui (&X[s]->left, 0) < 0 || mpfr_cmp_ui (&X[s]->right, 1) > 0)
        return cn_error_set (err, CN_ENUMERIC, "%s: part of the input box at entry %lld lies outside [0, 1] (node '%s')",
                             cn_op_name (nv->op), (long long) s, cn__node_name (nv));
      mpfi_log (w->t, X[s]);
      clamp_below (w->t, -100, w);
      mpfi_ui_sub (w->u, 1, X[s]);
      mpfi_log (w->u, w->u);
      clamp_below (w->u, -100, w);
      mpfi_mul (w->t, Y[s], w->t);
      mpfi_ui_sub (w->a, 1, Y[s]);
      mpfi_mul (w->u, w->a, w->u);
      mpfi_add (out, w->t, w->u);
      mpfi_neg (out, out);
      break;
    case L_COS:
      mpfi_set_ui (w->acc, 0);
      mpfi_set_ui (w->a, 0);
      mpfi_set_ui (w->b, 0);
      for (int64_t c = 0; c < ly->C; c++)
        {
          int64_t q = entry (ly, s, c);
          mpfi_mul (w->t, X[q], Y[q]);
          mpfi_add (w->acc, w->acc, w->t);
          mpfi_sqr (w->t, X[q]);
          mpfi_add (w->a, w->a, w->t);
          mpfi_sqr (w->t, Y[q]);
          mpfi_add (w->b, w->b, w->t);
        }
      mpfi_sqrt (w->a, w->a);
      mpfi_sqrt (w->b, w->b);
      mpfi_mul (w->t, w->a, w->b);
      clamp_below (w->t, p->eps, w);
      mpfi_div (w->t, w->acc, w->t);
      mpfi_ui_sub (out, 1, w->t);
      break;
    case L_CE:
      {
        mpfi_srcptr yk = Y[s];
        if (!mpfr_equal_p (&yk->left, &yk->right))
          return cn_error_set (err, CN_EINVAL, "%s: the label box of sample %lld is not a point (node '%s')",
                               cn_op_name (nv->op), (long long) s, cn__node_name (nv));
        if (!mpfr_integer_p (&yk->left) || mpfr_sgn (&yk->left) < 0 || mpfr_cmp_si (&yk->left, ly->C) >= 0)
          return cn_error_set (err, CN_EINVAL, "%s: label %g of sample %lld is not an integer in [0, %lld) (node '%s')",
                               cn_op_name (nv->op), mpfr_get_d (&yk->left, MPFR_RNDN), (long long) s, (long long) ly->C,
                               cn__node_name (nv));
        nlsm_itv (out, ly, X, s, mpfr_get_si (&yk->left, MPFR_RNDN), 1, w);
        break;
      }
    case L_CEP:
      mpfi_set_ui (w->acc, 0);
      for (int64_t c = 0; c < ly->C; c++)
        {
          int64_t q = entry (ly, s, c);
          if (p->eps == 0 && mpfr_sgn (&X[q]->left) < 0)
            return cn_error_set (err, CN_ENUMERIC, "%s: part of the input box at entry %lld is negative (node '%s')",
                                 cn_op_name (nv->op), (long long) q, cn__node_name (nv));
          mpfi_set (w->t, X[q]);
          clamp_below (w->t, p->eps, w);
          mpfi_log (w->t, w->t);
          mpfi_mul (w->t, Y[q], w->t);
          mpfi_add (w->acc, w->acc, w->t);
        }
      mpfi_neg (out, w->acc);
      break;
    case L_DISTILL:
      mpfi_set_ui (w->acc, 0);
      for (int64_t c = 0; c < ly->C; c++)
        {
          nlsm_itv (w->t, ly, Y, s, c, p->temperature, w);   /* -log q_c */
          nlsm_itv (w->u, ly, X, s, c, p->temperature, w);   /* -log p_c */
          mpfi_sub (w->u, w->u, w->t);                        /* log q_c - log p_c */
          mpfi_neg (w->t, w->t);
          mpfi_exp (w->t, w->t);                              /* q_c */
          mpfi_mul (w->t, w->t, w->u);
          mpfi_add (w->acc, w->acc, w->t);
        }
      mpfi_set_d (w->t, p->temperature);
      mpfi_sqr (w->t, w->t);
      mpfi_mul (out, w->acc, w->t);
      break;
    }
  /* OUT encloses the loss, or is NaN where a step met inf - inf or 0 inf; the a-priori range
   * holds for every real input, so intersecting with it (or falling back to it) stays sound. */
  mpfi_interv_d (w->t, d->lo, d->hi);
  if (mpfi_nan_p (out))
    mpfi_set (out, w->t);
  else
    {
      mpfi_intersect (out, out, w->t);
      if (mpfi_is_empty (out))
        mpfi_set (out, w->t);
    }
  return CN_OK;
}

/* The whole node: the sample enclosures, then the reduction (sums in MPFI, mean divided by n). */
static cn_status
loss_kernel (const cn_node_view *nv, mpfi_srcptr const *X, mpfi_srcptr const *Y, int64_t nx, int64_t ny,
             mpfi_t *out, mpfr_prec_t prec, cn_error *err)
{
  const struct loss_impl *d = nv->rule->impl;
  const cn_params_loss *p = nv->params;
  struct layout ly;
  layout_of (d, nv->in_shape[0], &ly);
  for (int i = 0; i < 2; i++)
    for (int64_t j = 0; j < (i ? ny : nx); j++)
      if (mpfi_nan_p (i ? Y[j] : X[j]))
        return cn_error_set (err, CN_ENUMERIC, "%s: NaN in input box %d at entry %lld (node '%s')",
                             cn_op_name (nv->op), i, (long long) j, cn__node_name (nv));
  struct ws w;
  mpfi_t l, sum;
  ws_init (&w, prec);
  mpfi_init2 (l, prec);
  mpfi_init2 (sum, prec);
  mpfi_set_ui (sum, 0);
  cn_status st = CN_OK;
  for (int64_t s = 0; s < ly.n_s && st == CN_OK; s++)
    {
      st = sample_itv (nv, d, p, &ly, X, Y, s, l, &w, err);
      if (st != CN_OK)
        break;
      if (p->reduction == CN_LOSS_NONE)
        mpfi_set (out[s], l);
      else
        mpfi_add (sum, sum, l);
    }
  if (st == CN_OK && p->reduction == CN_LOSS_SUM)
    mpfi_set (out[0], sum);
  else if (st == CN_OK && p->reduction == CN_LOSS_MEAN)
    mpfi_div_ui (out[0], sum, (unsigned long) ly.n_s);
  mpfi_clear (l);
  mpfi_clear (sum);
  ws_clear (&w);
  return st;
}

static cn_status
loss_ibp (const cn_node_view *nv, const cn_box *const *in, cn_box *out, cn_error *err)
{
  int64_t nx = in[0]->n, ny = in[1]->n, n = nx + ny, m = out->n;
  mpfi_t *v = malloc ((size_t) (n + m + 1) * sizeof *v);
  mpfi_srcptr *ptr = malloc ((size_t) (n + 1) * sizeof *ptr);
  if (v == NULL || ptr == NULL)
    {
      free (v);
      free (ptr);
      return cn_error_set (err, CN_ENOMEM, "%s: out of memory (node '%s')", cn_op_name (nv->op), cn__node_name (nv));
    }
  cn_status st = CN_OK;
  for (int64_t j = 0; j < n + m; j++)
    mpfi_init2 (v[j], IBP_PREC);
  for (int64_t j = 0; j < n; j++)
    {
      const cn_box *b = j < nx ? in[0] : in[1];
      int64_t q = j < nx ? j : j - nx;
      if (isnan (b->lo[q]) || isnan (b->hi[q]))
        {
          st = cn_error_set (err, CN_ENUMERIC, "%s: NaN end in input box %d at entry %lld (node '%s')",
                             cn_op_name (nv->op), j < nx ? 0 : 1, (long long) q, cn__node_name (nv));
          goto done;
        }
      mpfi_interv_d (v[j], b->lo[q], b->hi[q]);   /* exact: 128 bits hold a double */
      ptr[j] = v[j];
    }
  st = loss_kernel (nv, ptr, ptr + nx, nx, ny, v + n, IBP_PREC, err);
  if (st == CN_OK)
    for (int64_t j = 0; j < m; j++)
      {
        out->lo[j] = mpfr_get_d (&v[n + j]->left, MPFR_RNDD);
        out->hi[j] = mpfr_get_d (&v[n + j]->right, MPFR_RNDU);
        /* [lo, hi] contains the loss over the boxes: v does, and the ends were rounded outward */
      }
done:
  for (int64_t j = 0; j < n + m; j++)
    mpfi_clear (v[j]);
  free (v);
  free (ptr);
  return st;
}

static cn_status
loss_mpfi (const cn_node_view *nv, const cn_mpfi_vec *const *in, cn_mpfi_vec *out, cn_error *err)
{
  int64_t nx = in[0]->n, ny = in[1]->n;
  if (out->n == 0)
    return CN_OK;
  mpfi_srcptr *ptr = malloc ((size_t) (nx + ny + 1) * sizeof *ptr);
  if (ptr == NULL)
    return cn_error_set (err, CN_ENOMEM, "%s: out of memory (node '%s')", cn_op_name (nv->op), cn__node_name (nv));
  for (int64_t j = 0; j < nx; j++)
    ptr[j] = in[0]->v[j];
  for (int64_t j = 0; j < ny; j++)
    ptr[nx + j] = in[1]->v[j];
  cn_status st = loss_kernel (nv, ptr, ptr + nx, nx, ny, out->v, mpfi_get_prec (out->v[0]), err);
  free (ptr);
  return st;
}

/* ---- CROWN: the convex elementwise losses ---------------------------------------------------
 *
 * mse, mae, huber and logCosh are phi(x - y) with phi convex (e^2, |e|, huber's, log cosh e): with a
 * target that takes coefficients, a = x - y; with a constant one (its box one point c per
 * sample), a = x and phi(a - c).  hinge and poisson need that constant target c, and are phi(a),
 * a = x, with phi(a) = max(0, margin - c a), exp(a) - c a, convex as well; so is binaryCrossEntropy's
 * -(c log a + (1 - c) log(1 - a)) for c in [0, 1] and a in [1e-43, 1), where its clamp at -100 is
 * inactive (elsewhere it has none).  Per sample,
 * A = [al, au] is a's box (x's, or x's minus y's rounded outward), m its midpoint:
 *   lower line  kl a + bl,  kl = fl(phi'(m)) (a subgradient; binary64), and with g = phi - kl a
 *               (convex, g'(m) = phi'(m) - kl enclosed in MPFI),
 *               g(a) >= g(m) + g'(m)(a - m) >= g(m) - |g'(m)| max(m - al, au - m)  =: bl;
 *   upper line  the chord's slope ku = fl((phi(au) - phi(al)) / (au - al)), and bu the larger of
 *               g(al), g(au) with g = phi - ku a (a convex g is largest at an end);
 * every value enclosed in MPFI at 64 bits and rounded outward, so the lines hold over the reals.
 * The sample's weight is lam_s = lam_out (none: its own entry; sum: the row's scalar; mean: fl(lam
 * / n), whose rounding, at most 2u |lam_s| + eta, is charged times M_s >= max |l_s| over the box);
 * then lam_s l_s >= q a + lam_s b with q = fl(lam_s k), written as q on x and -q on y (a = x - y;
 * the negation is exact), and the rounding of q charged times max |a| (cn__crown_charge_entrywise
 * over A).  A box with an infinite end, a target that is not a point (hinge, poisson) and the other
 * losses have no relaxation (CN_EUNSUPPORTED: the sweep takes the node's IBP box). */

/* Y := an enclosure of phi(a) (DERIV = 0) or of a subgradient phi'(a) (DERIV = 1) of sample kind
 * D at the double A, C the sample's target point (hinge, poisson; for the differences, a constant
 * target, phi taken at a - c, else 0), in MPFI with the scratch T.  Every case encloses the value
 * for every point of the interval it starts from, so the rounding of a - c is covered. */
static void
loss_phi (const struct loss_impl *d, const cn_params_loss *p, double c, double a, int deriv, mpfi_ptr y, mpfi_ptr t)
{
  mpfi_set_d (y, a);
  switch (d->kind)
    {
    case L_MSE:
      mpfi_sub_d (y, y, c);
      if (deriv)
        mpfi_mul_2ui (y, y, 1);
      else
        mpfi_sqr (y, y);
      return;
    case L_MAE:
      mpfi_sub_d (y, y, c);
      if (!deriv)
        mpfi_abs (y, y);
      else if (mpfr_sgn (&y->left) > 0)
        mpfi_set_si (y, 1);
      else if (mpfr_sgn (&y->right) < 0)
        mpfi_set_si (y, -1);
      else
        mpfi_interv_si (y, -1, 1);     /* holds sign(e) for every e of the interval, and 0 */
      return;
    case L_HUBER:
      mpfi_sub_d (y, y, c);
      if (deriv)
        {
          /* huber' = clamp(e, -delta, delta), nondecreasing: the ends' images */
          double lo = fmax (mpfr_get_d (&y->left, MPFR_RNDD), -p->delta);
          double hi = fmin (mpfr_get_d (&y->right, MPFR_RNDU), p->delta);
          mpfi_interv_d (y, fmin (lo, p->delta), fmax (hi, -p->delta));
          return;
        }
      {
        /* e^2 / 2 where |e| < delta, delta (|e| - delta / 2) elsewhere; the hull of both where
         * the interval meets either side (huber is continuous, and each formula is below the
         * other on the other's side, so the hull holds the value) */
        int inner = mpfr_cmp_d (&y->right, p->delta) < 0 && mpfr_cmp_d (&y->left, -p->delta) > 0;
        int outer = mpfr_cmp_d (&y->left, p->delta) >= 0 || mpfr_cmp_d (&y->right, -p->delta) <= 0;
        mpfi_abs (t, y);
        mpfi_sqr (y, y);
        mpfi_div_2ui (y, y, 1);          /* e^2 / 2 */
        mpfi_mul_2ui (t, t, 1);
        mpfi_sub_d (t, t, p->delta);
        mpfi_div_2ui (t, t, 1);
        mpfi_mul_d (t, t, p->delta);     /* delta (|e| - delta / 2) */
        if (outer)
          mpfi_set (y, t);
        else if (!inner)
          mpfi_union (y, y, t);
      }
      return;
    case L_LOGCOSH:
      mpfi_sub_d (y, y, c);
      if (deriv)
        mpfi_tanh (y, y);
      else
        {
          mpfi_cosh (y, y);
          mpfi_log (y, y);
        }
      return;
    case L_HINGE:
      /* margin - c a; its subgradient -c where positive, 0 where negative, the hull where the
       * enclosure cannot tell (it must contain a subgradient at a) */
      mpfi_mul_d (t, y, c);
      mpfi_d_sub (t, p->margin, t);
      if (deriv)
        {
          if (mpfr_sgn (&t->left) > 0)
            mpfi_set_d (y, -c);
          else if (mpfr_sgn (&t->right) < 0)
            mpfi_set_ui (y, 0);
          else
            mpfi_interv_d (y, fmin (0, -c), fmax (0, -c));
        }
      else if (mpfr_sgn (&t->right) <= 0)
        mpfi_set_ui (y, 0);
      else if (mpfr_sgn (&t->left) >= 0)
        mpfi_set (y, t);
      else
        mpfi_interv_d (y, 0, mpfr_get_d (&t->right, MPFR_RNDU));
      return;
    case L_BCE:
      {
        /* -(c log a + (1 - c) log(1 - a)), convex for c in [0, 1] on a in [1e-43, 1), where both
         * logs are above -100 (the clamp is inactive); derivative (1 - c)/(1 - a) - c/a */
        mpfi_t u;
        mpfi_init2 (u, mpfi_get_prec (y));
        mpfi_set_ui (u, 1);
        mpfi_sub_d (u, u, c);                   /* 1 - c */
        mpfi_ui_sub (t, 1, y);                  /* 1 - a */
        if (deriv)
          {
            mpfi_inv (t, t);
            mpfi_mul (t, t, u);
            mpfi_inv (y, y);
            mpfi_mul_d (y, y, c);
            mpfi_sub (y, t, y);
          }
        else
          {
            mpfi_log (t, t);
            mpfi_mul (t, t, u);
            mpfi_log (y, y);
            mpfi_mul_d (y, y, c);
            mpfi_add (y, y, t);
            mpfi_neg (y, y);
          }
        mpfi_clear (u);
        return;
      }
    case L_CEP:
      /* -c log a (a >= eps > 0 or a > 0, c >= 0: convex), derivative -c / a */
      if (deriv)
        mpfi_inv (y, y);
      else
        mpfi_log (y, y);
      mpfi_mul_d (y, y, -c);
      return;
    case L_POISSON:
      mpfi_exp (t, y);
      if (deriv)
        mpfi_sub_d (y, t, c);
      else
        {
          mpfi_mul_d (y, y, c);
          mpfi_sub (y, t, y);
        }
      return;
    default:
      CN__ASSERTD (0);
      return;
    }
}

static double
itv_lo (mpfi_srcptr y)
{
  return mpfr_get_d (&y->left, MPFR_RNDD);
}
static double
itv_hi (mpfi_srcptr y)
{
  return mpfr_get_d (&y->right, MPFR_RNDU);
}

/* The outward end (UPPER: the upper one) of phi(a) - k a at the double A. */
static double
g_end (const struct loss_impl *d, const cn_params_loss *p, double c, double a, double k, int upper, mpfi_ptr y,
       mpfi_ptr t)
{
  loss_phi (d, p, c, a, 0, y, t);
  mpfi_set_d (t, a);
  mpfi_mul_d (t, t, k);
  mpfi_sub (y, y, t);
  return upper ? itv_hi (y) : itv_lo (y);
}

/* The lines of sample kind D over A = [al, au] (finite, al <= au; see above) and M >= max |phi| on
 * A; returns 0 where a value is not finite. */
static int
loss_lines (const struct loss_impl *d, const cn_params_loss *p, double c, double al, double au, double *kl,
            double *bl, double *ku, double *bu, double *M, mpfi_ptr y, mpfi_ptr t)
{
  double m, r = cn__centre_radius (al, au, &m);   /* r >= |a - m| on A */
  loss_phi (d, p, c, m, 1, y, t);
  *kl = mpfr_get_d (&y->left, MPFR_RNDN);
  mpfi_sub_d (y, y, *kl);
  double s = fmax (fabs (itv_lo (y)), fabs (itv_hi (y)));      /* >= |g'(m)| */
  *bl = cn__down (g_end (d, p, c, m, *kl, 0, y, t) - cn__up (s * r));
  /* now kl a + bl <= phi(a) on A */
  loss_phi (d, p, c, al, 0, y, t);
  double fl_ = mpfr_get_d (&y->left, MPFR_RNDN), phl = itv_hi (y);
  loss_phi (d, p, c, au, 0, y, t);
  double fu = mpfr_get_d (&y->left, MPFR_RNDN), phu = itv_hi (y);
  *ku = au > al ? (fu - fl_) / (au - al) : 0;
  if (!isfinite (*ku))
    *ku = 0;
  *bu = fmax (g_end (d, p, c, al, *ku, 1, y, t), g_end (d, p, c, au, *ku, 1, y, t));
  /* now phi(a) <= ku a + bu on A; phi's maximum there is at most max(phl, phu), its minimum at
   * least the lower line's least value lmin */
  double lmin = cn__down (cn__down (*kl * (*kl >= 0 ? al : au)) + *bl);
  *M = fmax (fabs (lmin), fmax (fabs (phl), fabs (phu)));
  return isfinite (*kl) && isfinite (*bl) && isfinite (*bu) && isfinite (*M);
}

/* Sample SM's weight in a row's coefficients LAM (N_S samples) under the reduction: its own entry
 * (none), the scalar's (sum), or fl(lam / n_s) (mean), whose rounding, at most 2u |weight| + eta,
 * times M >= |l_sm| over the box is added to *MEAN_ERR (rounded up). */
static double
sample_weight (const cn_params_loss *p, const double *lam, int64_t sm, int64_t n_s, double M, double *mean_err)
{
  if (p->reduction == CN_LOSS_NONE)
    return lam[sm];
  if (p->reduction == CN_LOSS_SUM)
    return lam[0];
  double ls = lam[0] / (double) n_s;
  *mean_err = cn__up (*mean_err + cn__up (cn__up (2 * CN_U * fabs (ls) + CN_ETA) * M));
  return ls;
}

/* The step of a row loss bounded by planes over each row's entries: entry q's slopes and
 * intercept shares (summed over its row) at E + q STRIDE (kl, bl, ku, bu), M[s] >= |l_s| over the
 * box.  lam_x[q] = fl(w_s k) (each entry in one row: entrywise charge), bias += sum_q w_s b_q
 * (cn__crown_add_dot), the mean's rounding charged (sample_weight).  W: scratch of 2 numel(x). */
static void
row_loss_step (const cn_crown_step *st, const struct layout *ly, const double *e, int stride, const double *M,
               double *w)
{
  const cn_params_loss *p = st->nv->params;
  const cn_box *X = st->in_box[0];
  int64_t nx = X->n, n_s = ly->n_s;
  double *lx = st->lam_in[0];
  for (int64_t r = 0; r < st->rows; r++)
    {
      const double *lam = st->lam_out + r * st->n_out;
      double mean_err = 0;
      for (int64_t sm = 0; sm < n_s; sm++)
        {
          double ls = sample_weight (p, lam, sm, n_s, M[sm], &mean_err);
          int up = ls < 0;
          for (int64_t c = 0; c < ly->C; c++)
            {
              int64_t q = entry (ly, sm, c);
              const double *eq = e + q * stride;
              lx[r * nx + q] = ls * eq[2 * up];
              w[q] = ls;
              w[nx + q] = ls == 0 ? 0 : eq[1 + 2 * up];
            }
        }
      /* now lam . v >= sum_q w_q (k_q x_q + b_q) - mean_err, the products charged below */
      cn__crown_add_dot (st, r, nx, w, w + nx);
      if (mean_err > 0)
        cn__crown_charge (st, r, mean_err);
    }
  cn__crown_charge_entrywise (st, lx, nx, X);
}

/* crossEntropy l = LSE(x) - x_k over a row (k the label, a point), convex: with c the row box's
 * centre, y = softmax(c), the plane's slopes a = y - e_k (binary64), and for d = x - c (|d_j| <= r_j)
 * by Taylor  g(c + d) = g(c) + (grad l(c) - a) . d + d^T H d / 2,  g = l - a . x, H = diag(y) - y y^T
 * at an intermediate point, whose quadratic form lies in [0, sum_j d_j^2] (a variance under the
 * weights y, sum y = 1).  So bl = g(c) - E1 and bu = g(c) + E1 + sum_j r_j^2 / 2, E1 = sum_j
 * |grad_j - a_j| r_j, with LSE(c), y and the gradient enclosed in MPFI at 64 bits and a . c by (G).
 * The sample's weight and its rounding (mean) as above, M_s >= l_s from the upper plane (l >= 0);
 * each x entry belongs to one row: lam_x = fl(lam_s a) (entrywise charge).  A label whose box is
 * not one point, a row with an infinite end: CN_EUNSUPPORTED. */
static cn_status
ce_crown (const cn_crown_step *st, cn_error *err)
{
  const cn_node_view *nv = st->nv;
  const struct loss_impl *d = nv->rule->impl;
  const cn_box *X = st->in_box[0], *Y = st->in_box[1];
  struct layout ly;
  layout_of (d, nv->in_shape[0], &ly);
  int64_t n_s = ly.n_s, C = ly.C, nx = X->n;
  double *a = malloc ((size_t) (nx + 2 * n_s + n_s + 1) * sizeof *a);   /* slopes per entry; bl, bu, M per sample */
  mpfi_t *yv = malloc ((size_t) (C + 1) * sizeof *yv);
  if (a == NULL || yv == NULL)
    {
      free (a), free (yv);
      return cn_error_set (err, CN_ENOMEM, "crossEntropy: out of memory (node '%s')", st->node);
    }
  double *B = a + nx, *M = B + 2 * n_s;
  for (int64_t c = 0; c < C; c++)
    mpfi_init2 (yv[c], 64);
  mpfi_t t, sum, lse;
  mpfi_init2 (t, 64);
  mpfi_init2 (sum, 64);
  mpfi_init2 (lse, 64);
  cn_status rc = CN_OK;
  for (int64_t sm = 0; sm < n_s && rc == CN_OK; sm++)
    {
      double kd = Y->lo[sm];
      if (!(kd == Y->hi[sm]) || !(kd >= 0 && kd < (double) C) || kd != floor (kd))
        {
          rc = cn_error_set (err, CN_EUNSUPPORTED, "crossEntropy: CROWN needs a known label (node '%s')", st->node);
          break;
        }
      int64_t k = (int64_t) kd;
      /* the row's centre c, LSE(c) = m + log(sum exp(c_j - m)) and y = softmax(c), enclosed */
      double mx = -INFINITY, R2 = 0, e1 = 0, sd = 0, td = 0;
      for (int64_t c = 0; c < C; c++)
        {
          int64_t q = entry (&ly, sm, c);
          if (!isfinite (X->lo[q]) || !isfinite (X->hi[q]))
            rc = cn_error_set (err, CN_EUNSUPPORTED, "crossEntropy: no relaxation over an infinite box (node '%s')",
                               st->node);
          mx = fmax (mx, X->lo[q] / 2 + X->hi[q] / 2);
        }
      if (rc != CN_OK)
        break;
      mpfi_set_ui (sum, 0);
      for (int64_t c = 0; c < C; c++)
        {
          int64_t q = entry (&ly, sm, c);
          mpfi_set_d (yv[c], X->lo[q] / 2 + X->hi[q] / 2);
          mpfi_sub_d (yv[c], yv[c], mx);
          mpfi_exp (yv[c], yv[c]);
          mpfi_add (sum, sum, yv[c]);
        }
      mpfi_log (lse, sum);
      mpfi_add_d (lse, lse, mx);
      for (int64_t c = 0; c < C; c++)
        {
          int64_t q = entry (&ly, sm, c);
          double cc, r = cn__centre_radius (X->lo[q], X->hi[q], &cc);
          R2 = cn__up (R2 + cn__up (r * r));
          mpfi_div (t, yv[c], sum);
          if (c == k)
            mpfi_sub_ui (t, t, 1);                 /* the gradient y_c - [c = k] */
          a[q] = mpfr_get_d (&t->left, MPFR_RNDN);
          mpfi_sub_d (t, t, a[q]);
          double ej = fmax (fabs (mpfr_get_d (&t->left, MPFR_RNDD)), fabs (mpfr_get_d (&t->right, MPFR_RNDU)));
          e1 = cn__up (e1 + cn__up (ej * r));
          sd += a[q] * cc;
          td += fabs (a[q] * cc);
        }
      double de = cn__dot_err (td, C);
      mpfi_set_d (t, X->lo[entry (&ly, sm, k)] / 2 + X->hi[entry (&ly, sm, k)] / 2);
      mpfi_sub (lse, lse, t);                      /* l(c) */
      double fl = mpfr_get_d (&lse->left, MPFR_RNDD), fh = mpfr_get_d (&lse->right, MPFR_RNDU);
      B[2 * sm] = cn__down (cn__down (fl - cn__up (sd + de)) - e1);
      B[2 * sm + 1] = cn__up (cn__up (cn__up (fh - cn__down (sd - de)) + e1) + cn__up (R2 / 2));
      /* now a . x + bl <= l(x) <= a . x + bu over the row's box; M >= l there (l >= 0) */
      double mxp = 0;
      for (int64_t c = 0; c < C; c++)
        {
          int64_t q = entry (&ly, sm, c);
          mxp = cn__up (mxp + cn__up (fmax (a[q] * X->lo[q], a[q] * X->hi[q])));
        }
      M[sm] = fmax (0, cn__up (mxp + B[2 * sm + 1]));
      if (!isfinite (B[2 * sm]) || !isfinite (B[2 * sm + 1]) || !isfinite (M[sm]))
        rc = cn_error_set (err, CN_EUNSUPPORTED, "crossEntropy: no finite relaxation at sample %lld (node '%s')",
                           (long long) sm, st->node);
    }
  for (int64_t c = 0; c < C; c++)
    mpfi_clear (yv[c]);
  mpfi_clear (t);
  mpfi_clear (sum);
  mpfi_clear (lse);
  if (rc == CN_OK)
    {
      /* the entries' planes: slope a_q both sides, the row's intercepts on its entry 0 */
      double *e = malloc ((size_t) (4 * nx + 1) * sizeof *e);
      double *w = malloc ((size_t) (2 * nx + 1) * sizeof *w);
      if (e == NULL || w == NULL)
        rc = cn_error_set (err, CN_ENOMEM, "crossEntropy: out of memory (node '%s')", st->node);
      else
        {
          for (int64_t sm = 0; sm < n_s; sm++)
            for (int64_t c = 0; c < C; c++)
              {
                int64_t q = entry (&ly, sm, c);
                e[4 * q] = e[4 * q + 2] = a[q];
                e[4 * q + 1] = c == 0 ? B[2 * sm] : 0;
                e[4 * q + 3] = c == 0 ? B[2 * sm + 1] : 0;
              }
          row_loss_step (st, &ly, e, 4, M, w);
        }
      free (e);
      free (w);
    }
  free (a);
  free (yv);
  return rc;
}

/* crossEntropyProbabilities l = -sum_c y_c log(max(x_c, eps)) over a row: with every target y_c
 * a point >= 0 and every x_c box above the clamp (l_c >= eps, and > 0), a sum of the convex
 * -y_c log x_c, each relaxed by loss_lines (tangent below, chord above); the row's weight lam_s
 * (and its rounding, mean) as for the elementwise losses, M_s the sum of the entries' bounds.
 * Otherwise CN_EUNSUPPORTED. */
static cn_status
cep_crown (const cn_crown_step *st, cn_error *err)
{
  const cn_node_view *nv = st->nv;
  const struct loss_impl *d = nv->rule->impl;
  const cn_params_loss *p = nv->params;
  const cn_box *X = st->in_box[0], *Y = st->in_box[1];
  struct layout ly;
  layout_of (d, nv->in_shape[0], &ly);
  int64_t n_s = ly.n_s, C = ly.C, nx = X->n;
  double *ln = malloc ((size_t) (5 * nx + n_s + 1) * sizeof *ln), *w = malloc ((size_t) (2 * nx + 1) * sizeof *w);
  if (ln == NULL || w == NULL)
    {
      free (ln), free (w);
      return cn_error_set (err, CN_ENOMEM, "crossEntropyProbabilities: out of memory (node '%s')", st->node);
    }
  double *Ms = ln + 5 * nx;
  mpfi_t y, t;
  mpfi_init2 (y, 64);
  mpfi_init2 (t, 64);
  cn_status rc = CN_OK;
  for (int64_t sm = 0; sm < n_s && rc == CN_OK; sm++)
    {
      Ms[sm] = 0;
      for (int64_t c = 0; c < C && rc == CN_OK; c++)
        {
          int64_t q = entry (&ly, sm, c);
          double tc = Y->lo[q], *e = ln + 5 * q;
          if (!(tc == Y->hi[q] && tc >= 0 && isfinite (tc) && X->lo[q] >= p->eps && X->lo[q] > 0
                && isfinite (X->hi[q]))
              || !loss_lines (d, p, tc, X->lo[q], X->hi[q], &e[0], &e[1], &e[2], &e[3], &e[4], y, t))
            rc = cn_error_set (err, CN_EUNSUPPORTED, "crossEntropyProbabilities: CROWN needs known targets >= 0 "
                               "and predictions above the clamp (node '%s')", st->node);
          else
            Ms[sm] = cn__up (Ms[sm] + e[4]);
        }
    }
  mpfi_clear (y);
  mpfi_clear (t);
  if (rc == CN_OK)
    row_loss_step (st, &ly, ln, 5, Ms, w);
  free (ln);
  free (w);
  return rc;
}

static cn_status
loss_crown (const cn_crown_step *st, cn_error *err)
{
  const cn_node_view *nv = st->nv;
  const struct loss_impl *d = nv->rule->impl;
  const cn_params_loss *p = nv->params;
  const char *op = cn_op_name (nv->op);
  const cn_box *X = st->in_box[0], *Y = st->in_box[1];
  int64_t n = X->n, n_out = st->n_out;
  int diff = d->kind == L_MSE || d->kind == L_MAE || d->kind == L_HUBER || d->kind == L_LOGCOSH;
  if (st->lam_in[0] == NULL)
    return cn_error_set (err, CN_EUNSUPPORTED, "%s: no relaxation through a constant prediction (node '%s')", op,
                         st->node);
  if (d->kind == L_CE)
    return ce_crown (st, err);
  if (d->kind == L_CEP)
    return cep_crown (st, err);
  if (!diff && d->kind != L_HINGE && d->kind != L_POISSON && d->kind != L_BCE)
    return cn_error_set (err, CN_EUNSUPPORTED, "%s: no CROWN relaxation (node '%s')", op, st->node);
  CN__ASSERTD (Y->n == n && n_out == (p->reduction == CN_LOSS_NONE ? n : 1));
  cn_box A;
  cn_status rc = cn_box_init (&A, n, err);
  if (rc != CN_OK)
    return rc;
  double *ln = malloc ((size_t) (5 * n + 1) * sizeof *ln);      /* kl, bl, ku, bu, M per sample */
  double *w = malloc ((size_t) (2 * n + 1) * sizeof *w);        /* a row's lam_s and chosen b */
  if (ln == NULL || w == NULL)
    {
      rc = cn_error_set (err, CN_ENOMEM, "%s: out of memory (node '%s')", op, st->node);
      goto done;
    }
  mpfi_t y, t;
  mpfi_init2 (y, 64);
  mpfi_init2 (t, 64);
  for (int64_t j = 0; j < n && rc == CN_OK; j++)
    {
      double c = 0;
      if (diff && st->lam_in[1] != NULL)
        {
          A.lo[j] = cn__down (X->lo[j] - Y->hi[j]);
          A.hi[j] = cn__up (X->hi[j] - Y->lo[j]);
        }
      else
        {
          if (!(Y->lo[j] == Y->hi[j]))
            rc = cn_error_set (err, CN_EUNSUPPORTED, "%s: CROWN needs a target that is one point (node '%s')", op,
                               st->node);
          c = Y->lo[j];
          A.lo[j] = X->lo[j];
          A.hi[j] = X->hi[j];
          if (rc == CN_OK && d->kind == L_BCE && !(c >= 0 && c <= 1 && A.lo[j] >= 1e-43 && A.hi[j] < 1))
            rc = cn_error_set (err, CN_EUNSUPPORTED, "%s: CROWN needs a target in [0, 1] and predictions in "
                               "[1e-43, 1) (node '%s')", op, st->node);
        }
      /* now A contains a = x - y (or x) over the boxes */
      if (rc == CN_OK && (!isfinite (A.lo[j]) || !isfinite (A.hi[j]) || !isfinite (c)
                          || !loss_lines (d, p, c, A.lo[j], A.hi[j], &ln[5 * j], &ln[5 * j + 1], &ln[5 * j + 2],
                                          &ln[5 * j + 3], &ln[5 * j + 4], y, t)))
        rc = cn_error_set (err, CN_EUNSUPPORTED, "%s: no finite relaxation at sample %lld (node '%s')", op,
                           (long long) j, st->node);
    }
  mpfi_clear (y);
  mpfi_clear (t);
  if (rc != CN_OK)
    goto done;
  double *lx = st->lam_in[0], *ly = diff ? st->lam_in[1] : NULL;   /* ly: a = x - y, else a = x */
  for (int64_t r = 0; r < st->rows; r++)
    {
      const double *lam = st->lam_out + r * n_out;
      double mean_err = 0;
      for (int64_t j = 0; j < n; j++)
        {
          double ls = sample_weight (p, lam, j, n, ln[5 * j + 4], &mean_err);
          int up = ls < 0;
          double q = ls * ln[5 * j + 2 * up];
          lx[r * n + j] = q;
          if (ly != NULL)
            ly[r * n + j] = -q;
          w[j] = ls;
          w[n + j] = ls == 0 ? 0 : ln[5 * j + 1 + 2 * up];
        }
      /* now lam . v >= sum_j ls_j (k_j a_j + b_j) - mean_err, q = fl(ls k) charged below */
      cn__crown_add_dot (st, r, n, w, w + n);
      if (mean_err > 0)
        cn__crown_charge (st, r, mean_err);
    }
  cn__crown_charge_entrywise (st, lx, n, &A);
done:
  cn_box_clear (&A);
  free (ln);
  free (w);
  return rc;
}

/* ---- the rules ------------------------------------------------------------------------- */

static const cn_port_kind frozen_ports[2] = { CN_PORT_VALUE, CN_PORT_FROZEN };
static const cn_port_kind value_ports[2] = { CN_PORT_VALUE, CN_PORT_VALUE };
static const cn_port_kind index_ports[2] = { CN_PORT_VALUE, CN_PORT_INDEX };
static const cn_port_kind detached_ports[2] = { CN_PORT_VALUE, CN_PORT_DETACHED };

/* One rule per loss: its kind, whether it is a row loss, and the a-priori range of a sample's
 * loss in the impl; the arms are shared. */

static const struct loss_impl mse_impl = { L_MSE, 0, 0, INFINITY };
const struct cn_op_rule cn__rule_MSE_LOSS = { .op = CN_OP_MSE_LOSS, .impl = &mse_impl,
  .n_in = 2, .in_kind = frozen_ports, .check = loss_check,
  .forward = loss_forward, .pullback = loss_pullback, .jvp = loss_jvp, .ibp = loss_ibp, .ibp_mpfi = loss_mpfi,
  .flags = CN_RULE_NEEDS_BOUNDS, .crown = loss_crown,
  .certs = CN__CERTS (CN__CERT_GRADIENT, CN__CERT_BOUNDS),
};

static const struct loss_impl mae_impl = { L_MAE, 0, 0, INFINITY };
const struct cn_op_rule cn__rule_MAE_LOSS = { .op = CN_OP_MAE_LOSS, .impl = &mae_impl,
  .n_in = 2, .in_kind = frozen_ports, .check = loss_check,
  .forward = loss_forward, .pullback = loss_pullback, .jvp = loss_jvp, .ibp = loss_ibp, .ibp_mpfi = loss_mpfi,
  .flags = CN_RULE_NEEDS_BOUNDS, .crown = loss_crown,
  .certs = CN__CERTS (CN__CERT_GRADIENT, CN__CERT_BOUNDS),
};

static const struct loss_impl huber_impl = { L_HUBER, 0, 0, INFINITY };
const struct cn_op_rule cn__rule_HUBER_LOSS = { .op = CN_OP_HUBER_LOSS, .impl = &huber_impl,
  .n_in = 2, .in_kind = frozen_ports, .check = loss_check,
  .forward = loss_forward, .pullback = loss_pullback, .jvp = loss_jvp, .ibp = loss_ibp, .ibp_mpfi = loss_mpfi,
  .flags = CN_RULE_NEEDS_BOUNDS, .crown = loss_crown,
  .certs = CN__CERTS (CN__CERT_GRADIENT, CN__CERT_BOUNDS),
};

static const struct loss_impl hinge_impl = { L_HINGE, 0, 0, INFINITY };
const struct cn_op_rule cn__rule_HINGE_LOSS = { .op = CN_OP_HINGE_LOSS, .impl = &hinge_impl,
  .n_in = 2, .in_kind = frozen_ports, .check = loss_check,
  .forward = loss_forward, .pullback = loss_pullback, .jvp = loss_jvp, .ibp = loss_ibp, .ibp_mpfi = loss_mpfi,
  .flags = CN_RULE_NEEDS_BOUNDS, .crown = loss_crown,
  .certs = CN__CERTS (CN__CERT_GRADIENT, CN__CERT_BOUNDS),
};

static const struct loss_impl poisson_impl = { L_POISSON, 0, -INFINITY, INFINITY };
const struct cn_op_rule cn__rule_POISSON_LOSS = { .op = CN_OP_POISSON_LOSS, .impl = &poisson_impl,
  .n_in = 2, .in_kind = frozen_ports, .check = loss_check,
  .forward = loss_forward, .pullback = loss_pullback, .jvp = loss_jvp, .ibp = loss_ibp, .ibp_mpfi = loss_mpfi,
  .flags = CN_RULE_NEEDS_BOUNDS, .crown = loss_crown,
  .certs = CN__CERTS (CN__CERT_GRADIENT, CN__CERT_BOUNDS),
};

static const struct loss_impl log_cosh_impl = { L_LOGCOSH, 0, 0, INFINITY };
const struct cn_op_rule cn__rule_LOG_COSH_LOSS = { .op = CN_OP_LOG_COSH_LOSS, .impl = &log_cosh_impl,
  .n_in = 2, .in_kind = frozen_ports, .check = loss_check,
  .forward = loss_forward, .pullback = loss_pullback, .jvp = loss_jvp, .ibp = loss_ibp, .ibp_mpfi = loss_mpfi,
  .flags = CN_RULE_NEEDS_BOUNDS, .crown = loss_crown,
  .certs = CN__CERTS (CN__CERT_GRADIENT, CN__CERT_BOUNDS),
};

static const struct loss_impl bce_impl = { L_BCE, 0, -INFINITY, INFINITY };
const struct cn_op_rule cn__rule_BINARY_CROSS_ENTROPY = { .op = CN_OP_BINARY_CROSS_ENTROPY, .impl = &bce_impl,
  .n_in = 2, .in_kind = frozen_ports, .check = loss_check,
  .forward = loss_forward, .pullback = loss_pullback, .jvp = loss_jvp, .ibp = loss_ibp, .ibp_mpfi = loss_mpfi,
  .flags = CN_RULE_NEEDS_BOUNDS, .crown = loss_crown,
  .certs = CN__CERTS (CN__CERT_GRADIENT, CN__CERT_BOUNDS),
};

static const struct loss_impl cosine_impl = { L_COS, 1, 0, 2 };
const struct cn_op_rule cn__rule_COSINE_LOSS = { .op = CN_OP_COSINE_LOSS, .impl = &cosine_impl,
  .n_in = 2, .in_kind = value_ports, .check = loss_check,
  .forward = loss_forward, .pullback = loss_pullback, .jvp = loss_jvp, .ibp = loss_ibp, .ibp_mpfi = loss_mpfi,
  .certs = CN__CERTS (CN__CERT_GRADIENT, CN__CERT_IBP),
};

static const struct loss_impl cross_entropy_impl = { L_CE, 1, 0, INFINITY };
const struct cn_op_rule cn__rule_CROSS_ENTROPY = { .op = CN_OP_CROSS_ENTROPY, .impl = &cross_entropy_impl,
  .n_in = 2, .in_kind = index_ports, .check = loss_check,
  .forward = loss_forward, .pullback = loss_pullback, .jvp = loss_jvp, .ibp = loss_ibp, .ibp_mpfi = loss_mpfi,
  .flags = CN_RULE_NEEDS_BOUNDS, .crown = loss_crown,
  .certs = CN__CERTS (CN__CERT_GRADIENT, CN__CERT_BOUNDS),
};

static const struct loss_impl cep_impl = { L_CEP, 1, -INFINITY, INFINITY };
const struct cn_op_rule cn__rule_CROSS_ENTROPY_PROBABILITIES = { .op = CN_OP_CROSS_ENTROPY_PROBABILITIES,
  .impl = &cep_impl,
  .n_in = 2, .in_kind = frozen_ports, .check = loss_check,
  .forward = loss_forward, .pullback = loss_pullback, .jvp = loss_jvp, .ibp = loss_ibp, .ibp_mpfi = loss_mpfi,
  .flags = CN_RULE_NEEDS_BOUNDS, .crown = loss_crown,
  .certs = CN__CERTS (CN__CERT_GRADIENT, CN__CERT_BOUNDS),
};

static const struct loss_impl distill_impl = { L_DISTILL, 1, 0, INFINITY };
const struct cn_op_rule cn__rule_DISTILL = { .op = CN_OP_DISTILL, .impl = &distill_impl,
  .n_in = 2, .in_kind = detached_ports, .check = loss_check,
  .forward = loss_forward, .pullback = loss_pullback, .jvp = loss_jvp, .ibp = loss_ibp, .ibp_mpfi = loss_mpfi,
  .certs = CN__CERTS (CN__CERT_GRADIENT, CN__CERT_IBP),
};
