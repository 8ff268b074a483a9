/* SPDX-License-Identifier: MIT */
/* src/ops/conv.c: convolution (cn_params_conv) and transposed convolution (cn_params_conv_transpose).
 *
 * conv: x [N, C, S_1..S_d], W [F, C/G, K_1..K_d], b [F] -> y [N, F, O_1..O_d], 1 <= d <= 3, G groups,
 * zero padding, O_i = floor((S_i + pad_begin_i + pad_end_i - dilation_i (K_i - 1) - 1) / stride_i) + 1.
 * With g = f / (F/G), output position p and kernel offset kk read the input position
 *     i(p, kk) = p stride - pad_begin + kk dilation   (per spatial axis; padded positions read 0).
 * Error model (ALGORITHMS.md 6.3): (G) for RN dot products in any order (cn__dot_err), (N) for
 * nonnegative ones (see product.c).
 *   Forward  in the sort T of the tensors (float for f32, double for f64), every product and sum rounded
 *            to nearest in T on its own (fl; -ffp-contract=off, so no fused multiply-add, and
 *            FLT_EVAL_METHOD 0).  With s = +0 at the start, for c = 0, 1, ..., C/G - 1 (outer) and the
 *            kernel offsets kk = (k_1 K_2 + k_2) K_3 + k_3 = 0, 1, ..., prod(K) - 1 in C order (inner):
 *                s = fl(s + fl(x[n, g C/G + c, i(p,kk)] W[f,c,kk]))   if i(p,kk) is inside the input,
 *            nothing at all for a padded position (no 0 * W term is added), then y[n,f,p] = fl(s + b[f])
 *            (b is zero when the model has no bias: fl(s + 0)).  tools/gen_onnx_tests.py emulates this
 *            order ("f32seq") and tests/check_onnx.c requires the binary32 forward to match it bit for bit.
 *   IBP      selection form per output (1.1): each term W[f,c,kk] x[...] is an interval product whose
 *            lower (upper) end is the least (greatest) corner product, 0 times anything being 0; RN is
 *            monotone, so the RN sum s of the chosen RN products and t = fl(sum |p|) give
 *            lower = down(s - cn__dot_err (t, C/G prod(K) + 1)), the bias counted as one more term (6.4,
 *            "sound IBP").  Infinite ends, overflows and NaNs give infinite ends.  W and b may be boxes.
 *   CROWN    (2.2(c)) with W and b constant: lam_x[s] is the transposed convolution of lam_y[s],
 *                lam_x[s][n, gC/G + c, j] = sum_{f in group g} sum_{(p,kk): i(p,kk) = j} lam_y[s][n,f,p] W[f,c,kk],
 *            computed im2col style in round-to-nearest: for each row, image, group and block of output
 *            positions one cblas_dgemm forms cols = (lam_y block)^T W_g ((positions x F/G) (F/G x
 *            C/G prod K)) and col2im scatter-adds cols into lam_x at once; an all-zero block is skipped
 *            and a sparse one (a one-hot row) scattered product by product.  Rows are spread over
 *            OpenMP threads when every GEMM is small enough for OpenBLAS to run it on the calling
 *            thread; for larger layers the rows go one after the other and OpenBLAS threads the GEMMs.
 *            Each lam_x entry is an RN sum, in some order, of at most F/G prod(K) products of doubles,
 *            so (G) applies with that length.  bias[s] += fl(lam_y[s] . b[f(o)]) over all numel(y) outputs.  Charge:
 *            cn__crown_charge_affine with w_up[n,f,p] >= sum_{c,kk} |W[f,c,kk]| m[n, gC/G + c, i(p,kk)] + |b[f]|
 *            (the forward of |W| on m = max(|l_x|, |u_x|) plus |b|, in RN, rounded up by (N)) and
 *            K = max(F/G prod(K), numel(y)), the longest inner product of a lam_x entry or of the bias dot.
 *   Pullback (binary64, round to nearest, no soundness claim).  y is bilinear in (x, W) plus b, so
 *            with G the output's cotangent and g the group of filter f:
 *                g_x[n, gC/G + c, j] += sum_{f in group g} sum_{(p,kk): i(p,kk) = j} G[n,f,p] W[f,c,kk]
 *                    (the transposed convolution, the CROWN arm's product with lam_y = G),
 *                g_W[f,c,kk] += sum_n sum_{p: i(p,kk) inside} G[n,f,p] x[n, gC/G + c, i(p,kk)],
 *                g_b[f] += sum_{n,p} G[n,f,p];
 *            padded positions contribute nothing (they read the constant 0).  Per image, group and
 *            block of output positions, im2col style through cblas_dgemm: g_x as
 *            cols = (G block)^T W_g ((positions x F/G) (F/G x C/G prod K)) scattered into g_x
 *            (col2im), g_W_g += (G block) cols_x with cols_x the block's input patches (im2col,
 *            0 at padded positions).
 *   Jvp      (binary64, round to nearest; a missing tangent counts as zero) the tangent map itself,
 *            the transpose of the pullback:
 *                T_y[n,f,p] = T_b[f] + sum_{c,kk: i(p,kk) inside} (T_x[n, gC/G + c, i(p,kk)] W[f,c,kk]
 *                                                                + x[n, gC/G + c, i(p,kk)] T_W[f,c,kk]),
 *            the terms accumulated from +0 in the forward's order (c outer, kk inner), T_b last; padded
 *            positions contribute nothing.
 *
 * convTranspose: x [N, C, S_1..S_d], W [C, F/G, K_1..K_d], b [F] -> y [N, F, O_1..O_d], 1 <= d <= 3,
 * G groups (input channel gC/G + c feeds output channels g F/G .. g F/G + F/G - 1),
 *     O_i = (S_i - 1) stride_i - pad_begin_i - pad_end_i + dilation_i (K_i - 1) + output_padding_i + 1,
 * the transpose (adjoint) of conv: input position i and kernel offset kk add x[n, gC/G + c, i]
 * W[gC/G + c, f, kk] to output position o = i stride - pad_begin + kk dilation (per spatial axis)
 * when 0 <= o < O, then b[f] is added (torch.nn.ConvTranspose1d/2d/3d, ONNX ConvTranspose).  Check:
 * 0 <= output_padding_i < max(stride_i, dilation_i) (as torch), S_i >= 1 (our choice: a zero spatial
 * extent is refused) and O_i >= 1, each axis's extent computed in overflow-free steps with messages
 * naming the axis.  Every arm is conv's on two rewritings, both exact:
 *   - the gather form of the scatter: for output position p and offset kk the input position is
 *     i = (p + pad_begin - kk dilation) / stride when that is an integer in [0, S) (per axis), else
 *     none (convt_map); for given (i, kk) at most one p, so every lam_x entry of the CROWN arm is still
 *     a sum of at most F/G prod(K) products and conv's charges apply unchanged;
 *   - the weight permuted into conv's layout, W'[f, c, kk] = W[g C/G + c, f - g F/G, kk] with
 *     g = f / (F/G) (convt_perm: a copy, no arithmetic).
 * So y[n,f,p] = b[f] + sum_{c, kk: i(p,kk) exists} x[n, gC/G + c, i(p,kk)] W'[f,c,kk]: the forward's
 * order is conv's (c outer, kk inner in C order, from +0, the bias last), IBP, MPFI and CROWN are
 * conv's selection sums, interval products and transposed products over this map, the pullback
 * gathers g_W in conv's layout and adds it back through the permutation, the jvp reads W' and T_W'.
 * Measured forward error (glibc, x86-64; 10000 random instances, d = 1, 2, x in [-2, 2], W and b
 * in [-1, 1], every input a binary32 number; against MPFR at 300 bits, the exact value of the real
 * formula at the same inputs): the largest error seen is 1.9 u (f64) and 3.0 u (f32) times
 * sum |x||W| + |b| (u the unit roundoff of the sort), within (G)'s gamma_k bound; in ulps of the
 * result it is unbounded (2e3 ulps f64, 3e4 f32 seen), as for every dot product with cancellation:
 * not correctly rounded.
 *
 * The two rules share every hook; each rule's impl (struct conv_impl) holds its geometry, its
 * input map and its weight permutation.  The arms trust the shapes and sorts the graph builder
 * checked (debug assertions state them). */
#include <config.h>
#include <cblas.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "ops/ops_impl.h"

/* Doubles in the scratch buffer of each thread of the CROWN arm (4 MiB: it stays in cache). */
#define CONV_CHUNK_DOUBLES ((int64_t) 1 << 19)
/* OpenBLAS runs a GEMM of at most 65536 * GEMM_MULTITHREAD_THRESHOLD (4 by default) multiply-adds on
 * the calling thread; with several OpenMP threads the CROWN arm keeps every GEMM below this, so that
 * they never call into OpenBLAS's own thread pool at the same time. */
#define CONV_BLAS_SERIAL_MNK ((int64_t) 65536 * 4)

/* The geometry of a conv node, its spatial axes padded in front to three (extent 1, kernel 1,
 * stride 1, no padding, dilation 1). */
struct conv_geom
{
  int64_t N, C, F, G, Cg, Fg;
  int64_t S[3], K[3], O[3], str[3], pb[3], dil[3];
  int64_t Sn, Kn, On;               /* spatial element counts of x, W and y */
};

/* The end of conv's and convTranspose's geometry, once the per-axis extents S, K, O of G are
 * set (axes padded to three): the products Sn, Kn, On free of overflow, and the output shape
 * [N, F, O_1..O_nd] into OUT (may be NULL), with every element count of the arms representable. */
static cn_status
geom_finish (const char *op, int nd, const cn_shape *w, struct conv_geom *g, cn_shape *out, cn_error *err)
{
  if (__builtin_mul_overflow (g->S[0], g->S[1], &g->Sn) || __builtin_mul_overflow (g->Sn, g->S[2], &g->Sn)
      || __builtin_mul_overflow (g->K[0], g->K[1], &g->Kn) || __builtin_mul_overflow (g->Kn, g->K[2], &g->Kn)
      || __builtin_mul_overflow (g->O[0], g->O[1], &g->On) || __builtin_mul_overflow (g->On, g->O[2], &g->On))
    return cn_error_set (err, CN_ESHAPE, "%s: element counts overflow", op);
  cn_shape o;
  memset (&o, 0, sizeof o);
  o.rank = nd + 2;
  o.dim[0] = g->N;
  o.dim[1] = g->F;
  for (int i = 0; i < nd; i++)
    o.dim[2 + i] = g->O[3 - nd + i];
  int64_t wk;
  if (cn_shape_numel (&o) < 0 || cn_shape_numel (w) < 0
      || __builtin_mul_overflow (g->On, g->Kn, &wk) || __builtin_mul_overflow (wk, g->Cg > 1 ? g->Cg : 1, &wk))
    return cn_error_set (err, CN_ESHAPE, "%s: element counts overflow", op);
  if (out != NULL)
    *out = o;
  return CN_OK;
}

static cn_status
conv_geometry (const void *params, const cn_shape *x, const cn_shape *w, const cn_shape *b, struct conv_geom *g,
               cn_shape *out, cn_error *err)
{
  const cn_params_conv *p = params;
  char sx[128], sw[128];
  if (p->nd < 1 || p->nd > 3)
    return cn_error_set (err, CN_EUNSUPPORTED, "conv: %d spatial axes; 1 to 3 are supported", p->nd);
  int nd = p->nd;
  if (x->rank != nd + 2)
    return cn_error_set (err, CN_ESHAPE, "conv: input %s has rank %d, expected %d", cn_shape_format (x, sx, sizeof sx),
                         x->rank, nd + 2);
  if (w->rank != nd + 2)
    return cn_error_set (err, CN_ESHAPE, "conv: weight %s has rank %d, expected %d", cn_shape_format (w, sw, sizeof sw),
                         w->rank, nd + 2);
  if (b->rank != 1)
    return cn_error_set (err, CN_ESHAPE, "conv: bias has rank %d, expected 1", b->rank);
  g->N = x->dim[0];
  g->C = x->dim[1];
  g->F = w->dim[0];
  g->G = p->groups;
  if (g->G < 1)
    return cn_error_set (err, CN_EINVAL, "conv: groups %lld, expected at least 1", (long long) g->G);
  if (g->C % g->G != 0)
    return cn_error_set (err, CN_ESHAPE, "conv: %lld input channels are not divisible by %lld groups",
                         (long long) g->C, (long long) g->G);
  if (g->F % g->G != 0)
    return cn_error_set (err, CN_ESHAPE, "conv: %lld filters are not divisible by %lld groups", (long long) g->F,
                         (long long) g->G);
  g->Cg = g->C / g->G;
  g->Fg = g->F / g->G;
  if (w->dim[1] != g->Cg)
    return cn_error_set (err, CN_ESHAPE, "conv: weight %s has %lld input channels, expected %lld (= %lld / %lld groups)",
                         cn_shape_format (w, sw, sizeof sw), (long long) w->dim[1], (long long) g->Cg,
                         (long long) g->C, (long long) g->G);
  if (b->dim[0] != g->F)
    return cn_error_set (err, CN_ESHAPE, "conv: bias has extent %lld, the weight %lld filters", (long long) b->dim[0],
                         (long long) g->F);
  for (int a = 0; a < 3; a++)
    {
      g->S[a] = g->K[a] = g->O[a] = g->str[a] = g->dil[a] = 1;
      g->pb[a] = 0;
    }
  for (int i = 0; i < nd; i++)
    {
      int a = 3 - nd + i;
      int64_t S = x->dim[2 + i], K = w->dim[2 + i], st = p->stride[i], dl = p->dilation[i];
      int64_t pb = p->pad_begin[i], pe = p->pad_end[i];
      int64_t O;
      cn_status st_axis = cn__window_axis ("conv", i, S, K, st, dl, pb, pe, &O, err);
      if (st_axis != CN_OK)
        return st_axis;
      g->S[a] = S;
      g->K[a] = K;
      g->O[a] = O;
      g->str[a] = st;
      g->dil[a] = dl;
      g->pb[a] = pb;
    }
  return geom_finish ("conv", nd, w, g, out, err);
}

/* The input spatial index read by output position p at kernel offset kk, -1 for a padded position,
 * as an On x Kn table; NULL if out of memory. */
static int64_t *
conv_map (const struct conv_geom *g)
{
  int64_t *map = malloc ((size_t) (g->On * g->Kn > 0 ? g->On * g->Kn : 1) * sizeof *map);
  if (map == NULL)
    return NULL;
  for (int64_t o0 = 0; o0 < g->O[0]; o0++)
    for (int64_t o1 = 0; o1 < g->O[1]; o1++)
      for (int64_t o2 = 0; o2 < g->O[2]; o2++)
        {
          int64_t p = (o0 * g->O[1] + o1) * g->O[2] + o2;
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
                }
        }
  return map;
}

/* ---- convTranspose: geometry ------------------------------------------------------------ */

/* One spatial axis of a transposed convolution: input extent S >= 1, kernel K >= 1, stride and
 * dilation >= 1, paddings >= 0, 0 <= output padding OP < max(stride, dilation); writes
 * O = (S - 1) stride - pb - pe + dilation (K - 1) + OP + 1 >= 1.  Every step is checked for
 * overflow: a = (S - 1) stride, span = dilation (K - 1) + 1, full = a + span + OP (all >= 0),
 * pads = pb + pe, and O = full - pads only when full > pads. */
static cn_status
convt_axis (int axis, int64_t S, int64_t K, int64_t stride, int64_t dilation, int64_t pb, int64_t pe, int64_t op,
            int64_t *O, cn_error *err)
{
  if (S < 1)
    return cn_error_set (err, CN_ESHAPE, "convTranspose: input extent %lld on spatial axis %d, expected at least 1",
                         (long long) S, axis);
  if (K < 1)
    return cn_error_set (err, CN_EINVAL, "convTranspose: kernel extent %lld on spatial axis %d", (long long) K, axis);
  if (stride < 1)
    return cn_error_set (err, CN_EINVAL, "convTranspose: stride %lld on spatial axis %d, expected at least 1",
                         (long long) stride, axis);
  if (dilation < 1)
    return cn_error_set (err, CN_EINVAL, "convTranspose: dilation %lld on spatial axis %d, expected at least 1",
                         (long long) dilation, axis);
  if (pb < 0 || pe < 0)
    return cn_error_set (err, CN_EINVAL, "convTranspose: negative padding (%lld, %lld) on spatial axis %d",
                         (long long) pb, (long long) pe, axis);
  int64_t lim = stride > dilation ? stride : dilation;
  if (op < 0 || op >= lim)
    return cn_error_set (err, CN_EINVAL,
                         "convTranspose: output padding %lld on spatial axis %d, expected 0 to %lld (below max(stride, "
                         "dilation))", (long long) op, axis, (long long) (lim - 1));
  int64_t a, span, full, pads;
  if (__builtin_mul_overflow (S - 1, stride, &a) || __builtin_mul_overflow (dilation, K - 1, &span)
      || __builtin_add_overflow (span, 1, &span) || __builtin_add_overflow (a, span, &full)
      || __builtin_add_overflow (full, op, &full) || __builtin_add_overflow (pb, pe, &pads))
    return cn_error_set (err, CN_EINVAL, "convTranspose: extents overflow on spatial axis %d", axis);
  if (full <= pads)
    return cn_error_set (err, CN_ESHAPE,
                         "convTranspose: output extent on spatial axis %d is not positive (unpadded extent %lld, "
                         "paddings %lld + %lld)", axis, (long long) full, (long long) pb, (long long) pe);
  *O = full - pads;
  return CN_OK;
}

/* The geometry of a convTranspose node in conv's terms: F = G (F/G) output channels, Cg = C/G
 * input channels per group; str, pb and dil hold the attributes (the input map reads them). */
static cn_status
convt_geometry (const void *params, const cn_shape *x, const cn_shape *w, const cn_shape *b, struct conv_geom *g,
                cn_shape *out, cn_error *err)
{
  const cn_params_conv_transpose *p = params;
  char sx[128], sw[128];
  if (p->nd < 1 || p->nd > 3)
    return cn_error_set (err, CN_EUNSUPPORTED, "convTranspose: %d spatial axes; 1 to 3 are supported", p->nd);
  int nd = p->nd;
  for (int i = 0; i < 3; i++)
    {
      cn_status st = cn__input_valid ("convTranspose", i, i == 0 ? x : i == 1 ? w : b, err);
      if (st != CN_OK)
        return st;
    }
  if (x->rank != nd + 2)
    return cn_error_set (err, CN_ESHAPE, "convTranspose: input %s has rank %d, expected %d",
                         cn_shape_format (x, sx, sizeof sx), x->rank, nd + 2);
  if (w->rank != nd + 2)
    return cn_error_set (err, CN_ESHAPE, "convTranspose: weight %s has rank %d, expected %d",
                         cn_shape_format (w, sw, sizeof sw), w->rank, nd + 2);
  if (b->rank != 1)
    return cn_error_set (err, CN_ESHAPE, "convTranspose: bias has rank %d, expected 1", b->rank);
  g->N = x->dim[0];
  g->C = x->dim[1];
  g->G = p->groups;
  if (g->G < 1)
    return cn_error_set (err, CN_EINVAL, "convTranspose: groups %lld, expected at least 1", (long long) g->G);
  if (w->dim[0] != g->C)
    return cn_error_set (err, CN_ESHAPE, "convTranspose: weight %s has %lld input channels, the input %lld",
                         cn_shape_format (w, sw, sizeof sw), (long long) w->dim[0], (long long) g->C);
  if (g->C % g->G != 0)
    return cn_error_set (err, CN_ESHAPE, "convTranspose: %lld input channels are not divisible by %lld groups",
                         (long long) g->C, (long long) g->G);
  g->Cg = g->C / g->G;
  g->Fg = w->dim[1];
  if (__builtin_mul_overflow (g->Fg, g->G, &g->F))
    return cn_error_set (err, CN_ESHAPE, "convTranspose: element counts overflow");
  if (b->dim[0] != g->F)
    return cn_error_set (err, CN_ESHAPE, "convTranspose: bias has extent %lld, expected %lld (= %lld groups x %lld)",
                         (long long) b->dim[0], (long long) g->F, (long long) g->G, (long long) g->Fg);
  for (int a = 0; a < 3; a++)
    {
      g->S[a] = g->K[a] = g->O[a] = g->str[a] = g->dil[a] = 1;
      g->pb[a] = 0;
    }
  for (int i = 0; i < nd; i++)
    {
      int a = 3 - nd + i;
      int64_t O = 0;
      cn_status st = convt_axis (i, x->dim[2 + i], w->dim[2 + i], p->stride[i], p->dilation[i], p->pad_begin[i],
                                 p->pad_end[i], p->output_padding[i], &O, err);
      if (st != CN_OK)
        return st;
      g->S[a] = x->dim[2 + i];
      g->K[a] = w->dim[2 + i];
      g->O[a] = O;
      g->str[a] = p->stride[i];
      g->dil[a] = p->dilation[i];
      g->pb[a] = p->pad_begin[i];
    }
  return geom_finish ("convTranspose", nd, w, g, out, err);
}

/* The input spatial index that reaches output position p through kernel offset kk, -1 if none:
 * per axis, input i and offset k reach o = i stride - pad_begin + k dilation, so for given
 * (o, k) the input is i = (o + pad_begin - k dilation) / stride when that is an integer in
 * [0, S).  An On x Kn table (the gather form of the scatter); NULL if out of memory. */
static int64_t *
convt_map (const struct conv_geom *g)
{
  int64_t *map = malloc ((size_t) (g->On * g->Kn > 0 ? g->On * g->Kn : 1) * sizeof *map);
  if (map == NULL)
    return NULL;
  for (int64_t o0 = 0; o0 < g->O[0]; o0++)
    for (int64_t o1 = 0; o1 < g->O[1]; o1++)
      for (int64_t o2 = 0; o2 < g->O[2]; o2++)
        {
          int64_t p = (o0 * g->O[1] + o1) * g->O[2] + o2, o[3] = { o0, o1, o2 };
          for (int64_t k0 = 0; k0 < g->K[0]; k0++)
            for (int64_t k1 = 0; k1 < g->K[1]; k1++)
              for (int64_t k2 = 0; k2 < g->K[2]; k2++)
                {
                  int64_t k[3] = { k0, k1, k2 }, i[3];
                  int in = 1;
                  for (int a = 0; a < 3 && in; a++)
                    {
                      /* no overflow: o + pb <= the unpadded extent, k dilation < the kernel span */
                      int64_t t = o[a] + g->pb[a] - k[a] * g->dil[a];
                      in = t >= 0 && t % g->str[a] == 0 && t / g->str[a] < g->S[a];
                      i[a] = in ? t / g->str[a] : 0;
                    }
                  int64_t kk = (k0 * g->K[1] + k1) * g->K[2] + k2;
                  map[p * g->Kn + kk] = in ? (i[0] * g->S[1] + i[1]) * g->S[2] + i[2] : -1;
                }
        }
  return map;
}

/* The weight permutation: entry (f, c, kk) of conv's layout [F, C/G, K] is entry
 * (g C/G + c, f - g F/G, kk) of convTranspose's [C, F/G, K], g = f / (F/G).  PERM[i] is the
 * convTranspose index of conv index i; NULL if out of memory. */
static int64_t *
convt_perm (const struct conv_geom *g)
{
  int64_t nw = g->F * g->Cg * g->Kn;
  int64_t *perm = malloc ((size_t) (nw > 0 ? nw : 1) * sizeof *perm);
  if (perm == NULL)
    return NULL;
  for (int64_t f = 0; f < g->F; f++)
    for (int64_t c = 0; c < g->Cg; c++)
      for (int64_t kk = 0; kk < g->Kn; kk++)
        perm[(f * g->Cg + c) * g->Kn + kk] = (((f / g->Fg) * g->Cg + c) * g->Fg + f % g->Fg) * g->Kn + kk;
  return perm;
}

/* ---- shared arms ------------------------------------------------------------------------ */

/* The family's data of one operator, its rule's impl: conv and convTranspose share every hook,
 * and differ only in their geometry, their input map and (convTranspose) the weight
 * permutation into conv's layout. */
struct conv_impl
{
  /* Checks the attributes PARAMS against the shapes X, W, B; fills G and OUT (may be NULL). */
  cn_status (*geometry) (const void *params, const cn_shape *x, const cn_shape *w, const cn_shape *b,
                         struct conv_geom *g, cn_shape *out, cn_error *err);
  int64_t *(*map) (const struct conv_geom *g);
  int64_t *(*perm) (const struct conv_geom *g);     /* NULL: the weight is in conv's layout */
};

static cn_status
conv_check (const struct cn_op_rule *rule, const void *params, int n_in, const cn_shape *const *in, cn_shape *out,
            cn_error *err)
{
  const struct conv_impl *d = rule->impl;
  const char *op = cn_op_name (rule->op);
  if (params == NULL)
    return cn_error_set (err, CN_EINVAL, "%s: missing attributes", op);
  if (n_in != 3)
    return cn_error_set (err, CN_EINVAL, "%s: %d inputs, expected 3 (x, weight, bias)", op, n_in);
  struct conv_geom g;
  return d->geometry (params, in[0], in[1], in[2], &g, out, err);
}

/* The geometry, the input map and (convTranspose) the weight permutation of a node whose shapes
 * were checked; *PERM is NULL for conv.  The caller frees *MAP and *PERM. */
static cn_status
conv_prepare (const cn_node_view *nv, struct conv_geom *g, int64_t **map, int64_t **perm, cn_error *err)
{
  const struct conv_impl *d = nv->rule->impl;
  cn_status st = d->geometry (nv->params, nv->in_shape[0], nv->in_shape[1], nv->in_shape[2], g, NULL, err);
  if (st != CN_OK)
    return st;
  *map = d->map (g);
  *perm = d->perm != NULL ? d->perm (g) : NULL;
  if (*map == NULL || (d->perm != NULL && *perm == NULL))
    {
      free (*map);
      free (*perm);
      *map = *perm = NULL;
      return cn_error_set (err, CN_ENOMEM, "%s: out of memory (node '%s')", cn_op_name (nv->op), cn__node_name (nv));
    }
  return CN_OK;
}

/* DST[i] = SRC[PERM[i]] for N elements of SZ bytes (PERM NULL: a copy). */
static void
perm_gather (const int64_t *perm, int64_t n, size_t sz, const void *src, void *dst)
{
  const char *s = src;
  char *d = dst;
  for (int64_t i = 0; i < n; i++)
    memcpy (d + (size_t) i * sz, s + (size_t) (perm ? perm[i] : i) * sz, sz);
}

/* A malloc'd copy of the weight WP (numel NW, elements of SZ bytes) in conv's layout, or WP itself
 * (and *OWNED = NULL) when PERM is NULL; NULL if out of memory. */
static const void *
conv_weight (const int64_t *perm, int64_t nw, size_t sz, const void *wp, void **owned)
{
  *owned = NULL;
  if (perm == NULL)
    return wp;
  void *b = malloc ((size_t) (nw > 0 ? nw : 1) * sz);
  if (b == NULL)
    return NULL;
  perm_gather (perm, nw, sz, wp, b);
  *owned = b;
  return b;
}

/* The forward in the sort T, in the order of the header: one accumulator per output from +0, the
 * in-bounds terms with c outer and kk inner, each product and sum rounded once, the bias last. */
#define CONV_FORWARD(T)                                                                     \
  do                                                                                        \
    {                                                                                       \
      const T *x = in[0]->data, *w = wp, *b = in[2]->data;                                  \
      T *y = out->data;                                                                     \
      for (int64_t n = 0; n < g.N; n++)                                                     \
        for (int64_t f = 0; f < g.F; f++)                                                   \
          {                                                                                 \
            const T *xg = x + (n * g.C + (f / g.Fg) * g.Cg) * g.Sn;                         \
            const T *wf = w + f * g.Cg * g.Kn;                                              \
            for (int64_t p = 0; p < g.On; p++)                                              \
              {                                                                             \
                const int64_t *mp = map + p * g.Kn;                                         \
                T acc = 0;                                                                  \
                for (int64_t c = 0; c < g.Cg; c++)                                          \
                  for (int64_t kk = 0; kk < g.Kn; kk++)                                     \
                    if (mp[kk] >= 0)                                                        \
                      acc += xg[c * g.Sn + mp[kk]] * wf[c * g.Kn + kk];                     \
                y[(n * g.F + f) * g.On + p] = acc + b[f];                                   \
              }                                                                             \
          }                                                                                 \
    }                                                                                       \
  while (0)

static cn_status
conv_forward (const cn_node_view *nv, const cn_tensor *const *in, cn_tensor *out, cn_error *err)
{
  const char *op = cn_op_name (nv->op);
  CN__ASSERTD (cn_dtype_is_float (out->dtype) && in[0]->dtype == out->dtype && in[1]->dtype == out->dtype
               && in[2]->dtype == out->dtype);
  struct conv_geom g;
  int64_t *map, *perm;
  cn_status st = conv_prepare (nv, &g, &map, &perm, err);
  if (st != CN_OK)
    return st;
  void *owned;
  const void *wp = conv_weight (perm, g.F * g.Cg * g.Kn, cn_dtype_size (out->dtype), in[1]->data, &owned);
  if (wp == NULL)
    {
      free (map);
      free (perm);
      return cn_error_set (err, CN_ENOMEM, "%s: out of memory (node '%s')", op, cn__node_name (nv));
    }
  if (out->dtype == CN_DTYPE_F64)
    CONV_FORWARD (double);
  else
    CONV_FORWARD (float);
  free (owned);
  free (map);
  free (perm);
  return CN_OK;
}

/* Whether the three inputs have N[i] entries and the output N_OUT (unless N_OUT < 0), the node's
 * element counts (an invariant: the graph builder checked the shapes, and the engines allocate
 * from them). */
static int
sizes_ok (const cn_node_view *nv, const int64_t *n, int64_t n_out)
{
  for (int i = 0; i < 3; i++)
    if (n[i] != cn__numel (nv->in_shape[i]))
      return 0;
  return n_out < 0 || n_out == cn__numel (nv->out_shape);
}

static cn_status
conv_ibp (const cn_node_view *nv, const cn_box *const *in, cn_box *out, cn_error *err)
{
  CN__ASSERTD (sizes_ok (nv, (const int64_t[]) { in[0]->n, in[1]->n, in[2]->n }, out->n));
  cn_status st;
  struct conv_geom g;
  int64_t *map, *perm;
  if ((st = conv_prepare (nv, &g, &map, &perm, err)) != CN_OK)
    return st;
  /* The weight's box in conv's layout (a permutation of convTranspose's). */
  void *own_l, *own_h;
  int64_t nw = g.F * g.Cg * g.Kn;
  const double *Wl = conv_weight (perm, nw, sizeof (double), in[1]->lo, &own_l);
  const double *Wh = conv_weight (perm, nw, sizeof (double), in[1]->hi, &own_h);
  if (Wl == NULL || Wh == NULL)
    {
      free (own_l);
      free (own_h);
      free (map);
      free (perm);
      return cn_error_set (err, CN_ENOMEM, "%s: out of memory (node '%s')", cn_op_name (nv->op), cn__node_name (nv));
    }
  int64_t k = g.Cg * g.Kn + 1;
  /* Constant weights over a finite box: the branch-free form of the same selection sums (the
   * smaller of the two rounded products w xl, w xh is the rounding of the lower corner product,
   * RN being monotone; see cn__point_terms). */
  int fast = nv->in_const[1] != NULL && cn__finite_box (in[0]->n, in[0]->lo, in[0]->hi);
  for (int64_t n = 0; n < g.N; n++)
    for (int64_t f = 0; f < g.F; f++)
      {
        int64_t xo = (n * g.C + (f / g.Fg) * g.Cg) * g.Sn;
        const double *xl = in[0]->lo + xo, *xh = in[0]->hi + xo;
        const double *wl = Wl + f * g.Cg * g.Kn, *wh = Wh + f * g.Cg * g.Kn;
        for (int64_t p = 0; p < g.On; p++)
          {
            const int64_t *mp = map + p * g.Kn;
            double sl = 0, tl = 0, sh = 0, th = 0;
            if (fast)
              for (int64_t c = 0; c < g.Cg; c++)
                {
                  const double *wc = wl + c * g.Kn, *xlc = xl + c * g.Sn, *xhc = xh + c * g.Sn;
                  for (int64_t kk = 0; kk < g.Kn; kk++)
                    {
                      int64_t j = mp[kk];
                      if (j < 0)
                        continue;
                      double a = wc[kk] * xlc[j], b = wc[kk] * xhc[j];
                      double lo = a < b ? a : b, hi = a < b ? b : a;
                      sl += lo;
                      tl += fabs (lo);
                      sh += hi;
                      th += fabs (hi);
                    }
                }
            else
              for (int64_t c = 0; c < g.Cg; c++)
                for (int64_t kk = 0; kk < g.Kn; kk++)
                  {
                    int64_t j = mp[kk];
                    if (j >= 0)
                      cn__itv_term (wl[c * g.Kn + kk], wh[c * g.Kn + kk], xl[c * g.Sn + j], xh[c * g.Sn + j], &sl, &tl,
                                    &sh, &th);
                  }
            cn__itv_term (1, 1, in[2]->lo[f], in[2]->hi[f], &sl, &tl, &sh, &th);
            /* now sl, sh are RN sums of at most k extreme products, tl, th their magnitudes. */
            int64_t o = (n * g.F + f) * g.On + p;
            out->lo[o] = cn__sum_lo (sl, tl, k);
            out->hi[o] = cn__sum_hi (sh, th, k);
          }
      }
  free (own_l);
  free (own_h);
  free (map);
  free (perm);
  return CN_OK;
}

static cn_status
conv_ibp_mpfi (const cn_node_view *nv, const cn_mpfi_vec *const *in, cn_mpfi_vec *out, cn_error *err)
{
  CN__ASSERTD (sizes_ok (nv, (const int64_t[]) { in[0]->n, in[1]->n, in[2]->n }, out->n));
  if (out->n == 0)
    return CN_OK;
  cn_status st;
  struct conv_geom g;
  int64_t *map, *perm;
  if ((st = conv_prepare (nv, &g, &map, &perm, err)) != CN_OK)
    return st;
  mpfi_t p, acc;
  mpfi_init2 (p, mpfi_get_prec (out->v[0]));
  mpfi_init2 (acc, mpfi_get_prec (out->v[0]));
  for (int64_t n = 0; n < g.N; n++)
    for (int64_t f = 0; f < g.F; f++)
      {
        int64_t xo = (n * g.C + (f / g.Fg) * g.Cg) * g.Sn, wo = f * g.Cg * g.Kn;
        for (int64_t q = 0; q < g.On; q++)
          {
            mpfi_set_ui (acc, 0);
            for (int64_t c = 0; c < g.Cg; c++)
              for (int64_t kk = 0; kk < g.Kn; kk++)
                {
                  int64_t j = map[q * g.Kn + kk];
                  if (j < 0)
                    continue;
                  int64_t wi = wo + c * g.Kn + kk;
                  mpfi_mul (p, in[0]->v[xo + c * g.Sn + j], in[1]->v[perm ? perm[wi] : wi]);
                  mpfi_add (acc, acc, p);
                }
            mpfi_add (out->v[(n * g.F + f) * g.On + q], acc, in[2]->v[f]);
          }
      }
  mpfi_clear (p);
  mpfi_clear (acc);
  free (map);
  free (perm);
  return CN_OK;
}

/* The checker's step (cn_proof_step): with the weight W constant, y = conv(x, W) + b is affine
 * in x and b (convTranspose too, through its map and weight permutation), so with L = lam_out
 *   D_x[s, n, c, j] += sum over (f, q, kk) with map(q, kk) = j of L[s, n, f, q] W[f, c, kk],
 *   and sum_q L[s, n, f, q] is added to b[f]'s coefficient (a varying bias) or times b[f] to the
 *   bias (a constant one),
 * enclosed by interval sums (an equality, no relaxation).  A varying weight: unsupported. */
static cn_status
conv_proof (const cn_proof_step *st, cn_error *err)
{
  const cn_node_view *nv = st->nv;
  if (st->lam_in[1] != NULL)
    return cn_error_set (err, CN_EUNSUPPORTED, "%s: the checker needs a constant weight (node '%s')",
                         cn_op_name (nv->op), cn__node_name (nv));
  if (cn__numel (nv->out_shape) == 0)
    return CN_OK;
  cn_status ret;
  struct conv_geom g;
  int64_t *map, *perm;
  if ((ret = conv_prepare (nv, &g, &map, &perm, err)) != CN_OK)
    return ret;
  int64_t n_out = cn__numel (nv->out_shape), n_x = cn__numel (nv->in_shape[0]);
  for (int64_t s = 0; s < st->rows; s++)
    for (int64_t n = 0; n < g.N; n++)
      for (int64_t f = 0; f < g.F; f++)
        {
          int64_t xo = (n * g.C + (f / g.Fg) * g.Cg) * g.Sn, wo = f * g.Cg * g.Kn;
          for (int64_t q = 0; q < g.On; q++)
            {
              mpfi_ptr l = st->lam_out[s * n_out + (n * g.F + f) * g.On + q];
              if (mpfi_is_zero (l))
                continue;
              if (st->lam_in[0] != NULL)
                for (int64_t c = 0; c < g.Cg; c++)
                  for (int64_t kk = 0; kk < g.Kn; kk++)
                    {
                      int64_t j = map[q * g.Kn + kk];
                      if (j < 0)
                        continue;
                      int64_t wi = wo + c * g.Kn + kk;
                      cn__proof_add_product (st->lam_in[0][s * n_x + xo + c * g.Sn + j], l,
                                             st->in_box[1]->v[perm ? perm[wi] : wi], st->tmp);
                    }
              if (st->lam_in[2] != NULL)
                mpfi_add (st->lam_in[2][s * g.F + f], st->lam_in[2][s * g.F + f], l);
              else
                cn__proof_add_product (st->bias[s], l, st->in_box[2]->v[f], st->tmp);
            }
        }
  free (map);
  free (perm);
  return CN_OK;
}

/* The valid taps of every output position p, compacted: tap t < cnt[p] of p is kernel offset
 * kk[p Kn + t] reading input offset off[p Kn + t] (map(p, kk) >= 0), in increasing kk.  The
 * arrays are caller-owned, P Kn and P entries. */
static void
conv_taps (const struct conv_geom *g, const int64_t *map, int64_t *kk, int64_t *off, int64_t *cnt)
{
  for (int64_t p = 0; p < g->On; p++)
    {
      const int64_t *mp = map + p * g->Kn;
      int64_t t = 0;
      for (int64_t k = 0; k < g->Kn; k++)
        if (mp[k] >= 0)
          {
            kk[p * g->Kn + t] = k;
            off[p * g->Kn + t] = mp[k];
            t++;
          }
      cnt[p] = t;
    }
}

/* The CROWN product row by row (one OpenMP region of NTHR threads; with several threads every GEMM
 * is small enough for OpenBLAS to run it on the calling thread): for every row s, image n, group g
 * and block of PB output positions,
 *     cols = (lam_y[s][n, g Fg .. g Fg + Fg - 1, block])^T W_g   ((pb x Fg) (Fg x CK)),
 * scattered into lam_x at once (col2im), and bias[s] += fl(lam_y[s] . b[f(o)]).  An all-zero block
 * is skipped and a sparse one scattered product by product; either way every lam_x entry is an RN
 * sum of at most Fg prod(K) products, in some order.  TK, TOFF, TCNT are the valid taps
 * (conv_taps), so the scatters take no branch. */
static cn_status
conv_crown_rows (const cn_crown_step *st, const struct conv_geom *gp, const int64_t *tk, const int64_t *toff,
                 const int64_t *tcnt, const double *W, int64_t pb, int nthr, cn_error *err)
{
  const cn_node_view *nv = st->nv;
  const struct conv_geom g = *gp;
  const double *b = st->in_box[2]->lo;
  double *lam_x = st->lam_in[0];
  int64_t n_out = g.N * g.F * g.On, n_x = g.N * g.C * g.Sn, CK = g.Cg * g.Kn, P = g.On;
  int nomem = 0;
#pragma omp parallel num_threads(nthr) if (st->rows * n_out * (CK > 0 ? CK : 1) > 65536)
  {
    double *cols = malloc ((size_t) (pb * CK > 0 ? pb * CK : 1) * sizeof *cols);
    if (cols == NULL)
      {
#pragma omp atomic write
        nomem = 1;
      }
#pragma omp for schedule(static)
    for (int64_t s = 0; s < st->rows; s++)
      {
        if (cols == NULL)
          continue;
        const double *l = st->lam_out + s * n_out;
        double d = 0;
        for (int64_t n = 0; n < g.N; n++)
          for (int64_t gi = 0; gi < g.G; gi++)
            {
              const double *lg = l + (n * g.F + gi * g.Fg) * P;
              const double *bg = b + gi * g.Fg;
              double *dst = lam_x + s * n_x + (n * g.C + gi * g.Cg) * g.Sn;
              for (int64_t p0 = 0; p0 < P; p0 += pb)
                {
                  int64_t np = P - p0 < pb ? P - p0 : pb, nnz = 0;
                  /* one pass over the block: the bias terms and the count of nonzeros */
                  for (int64_t f = 0; f < g.Fg; f++)
                    {
                      const double *lf = lg + f * P + p0;
                      double bf = bg[f], df = 0;
                      int64_t nz = 0;
#pragma omp simd reduction(+ : df, nz)
                      for (int64_t q = 0; q < np; q++)
                        {
                          df += lf[q] * bf;
                          nz += lf[q] != 0;
                        }
                      d += df;
                      nnz += nz;
                    }
                  if (nnz == 0 || CK == 0)
                    continue;
                  if (8 * nnz < np * g.Fg)
                    {
                      /* A sparse block (a row of an intermediate-bound sweep starts one-hot): scatter
                       * each nonzero lam_y[f,p] W[f,c,kk] into lam_x directly. */
                      for (int64_t f = 0; f < g.Fg; f++)
                        for (int64_t q = 0; q < np; q++)
                          {
                            double v = lg[f * P + p0 + q];
                            if (v == 0)
                              continue;
                            int64_t p = p0 + q, nt = tcnt[p];
                            const int64_t *pk = tk + p * g.Kn, *po = toff + p * g.Kn;
                            const double *wf = W + (gi * g.Fg + f) * CK;
                            for (int64_t c = 0; c < g.Cg; c++)
                              {
                                double *dc = dst + c * g.Sn;
                                const double *wc = wf + c * g.Kn;
                                for (int64_t t = 0; t < nt; t++)
                                  dc[po[t]] += v * wc[pk[t]];
                              }
                          }
                      continue;
                    }
                  /* cols = fl(A^T W_g) with A = lam_y block (Fg x np, row stride P). */
                  cblas_dgemm (CblasRowMajor, CblasTrans, CblasNoTrans, (int) np, (int) CK, (int) g.Fg, 1.0, lg + p0,
                               (int) P, W + gi * g.Fg * CK, (int) CK, 0.0, cols, (int) CK);
                  for (int64_t q = 0; q < np; q++)
                    {
                      const double *cr = cols + q * CK;
                      int64_t p = p0 + q, nt = tcnt[p];
                      const int64_t *pk = tk + p * g.Kn, *po = toff + p * g.Kn;
                      for (int64_t c = 0; c < g.Cg; c++)
                        {
                          double *dc = dst + c * g.Sn;
                          const double *cc = cr + c * g.Kn;
                          for (int64_t t = 0; t < nt; t++)
                            dc[po[t]] += cc[pk[t]];
                        }
                    }
                }
            }
        /* now d = fl(lam_y[s] . b[f(o)]) (summed in blocks; (G) holds in any order); its error is
         * part of the affine charge. */
        cn__crown_add_bias (st, s, d);
      }
    free (cols);
  }
  if (nomem)
    return cn_error_set (err, CN_ENOMEM, "%s: out of memory (node '%s')", cn_op_name (nv->op), cn__node_name (nv));
  return CN_OK;
}

/* W_UP[n,f,p] >= sum_{c,kk} |W[f,c,kk]| m[n, g Cg + c, map(p,kk)] + |b[f]| (G's geometry and
 * TAPS, W in conv's layout, M the input's magnitudes): an RN sum of at most CK + 1 nonnegative
 * products, rounded up by (N); +inf where it is not finite. */
static void
conv_magnitude_up (const struct conv_geom *g, const int64_t *taps, const double *W, const double *b, const double *m,
                   double *w_up)
{
  int64_t CK = g->Cg * g->Kn, P = g->On;
  double kap = cn__kappa (CK + 1);
  for (int64_t n = 0; n < g->N; n++)
    for (int64_t f = 0; f < g->F; f++)
      {
        const double *mg = m + (n * g->C + (f / g->Fg) * g->Cg) * g->Sn, *wf = W + f * CK;
        for (int64_t p = 0; p < P; p++)
          {
            const int64_t *pk = taps + p * g->Kn, *po = taps + P * g->Kn + p * g->Kn, nt = taps[2 * P * g->Kn + p];
            double t = fabs (b[f]);
            for (int64_t c = 0; c < g->Cg; c++)
              {
                const double *wc = wf + c * g->Kn, *mc = mg + c * g->Sn;
                for (int64_t q = 0; q < nt; q++)
                  if (wc[pk[q]] != 0)   /* 0 times an infinite magnitude adds nothing */
                    t += fabs (wc[pk[q]]) * mc[po[q]];
              }
            double u = cn__up (kap * cn__up (t + (double) (CK + 1) * CN_ETA));
            w_up[(n * g->F + f) * P + p] = isnan (u) ? INFINITY : u;
          }
      }
}

/* conv and convTranspose in binary32 (constant weight and bias): each output entry is a sum of
 * at most CK products and the bias word, in any order (im2col and GEMM, direct, blocked: all
 * orders of the same terms), so (G32) bounds its error by gamma32_{CK+1} T + 2 (CK + 1) eta32
 * with T = conv_magnitude_up's bound of sum |W| m + |b|. */
static cn_status
conv_roundoff32 (const cn_node_view *nv, const cn_box *const *in, const cn_box *out, double *e, cn_error *err)
{
  const char *op = cn_op_name (nv->op);
  if (nv->in_const[1] == NULL || nv->in_const[2] == NULL)
    return cn_error_set (err, CN_EUNSUPPORTED, "%s: binary32 evaluation declared for a constant weight and bias "
                         "only (node '%s')", op, cn__node_name (nv));
  cn_status ret;
  struct conv_geom g;
  int64_t *map = NULL, *perm = NULL, *taps = NULL;
  double *m = NULL;
  void *owned = NULL;
  if ((ret = conv_prepare (nv, &g, &map, &perm, err)) != CN_OK)
    return ret;
  const double *W = conv_weight (perm, g.F * g.Cg * g.Kn, sizeof (double), in[1]->lo, &owned);
  int64_t n_x = g.N * g.C * g.Sn, P = g.On, CK = g.Cg * g.Kn;
  m = malloc ((size_t) (n_x ? n_x : 1) * sizeof *m);
  taps = malloc ((size_t) (2 * P * g.Kn + P + 1) * sizeof *taps);
  if (W == NULL || m == NULL || taps == NULL)
    {
      ret = cn_error_set (err, CN_ENOMEM, "%s: out of memory (node '%s')", op, cn__node_name (nv));
      goto done;
    }
  conv_taps (&g, map, taps, taps + P * g.Kn, taps + 2 * P * g.Kn);
  cn__box_magnitude (in[0], m);
  conv_magnitude_up (&g, taps, W, in[2]->lo, m, e);
  for (int64_t j = 0; j < out->n; j++)
    e[j] = cn__b32_sum_err (e[j], CK + 1);
  ret = CN_OK;
done:
  free (map);
  free (perm);
  free (owned);
  free (m);
  free (taps);
  return ret;
}

static cn_status
conv_crown (const cn_crown_step *st, cn_error *err)
{
  const cn_node_view *nv = st->nv;
  const char *op = cn_op_name (nv->op);
  if (nv->in_const[1] == NULL || nv->in_const[2] == NULL)
    return cn_error_set (err, CN_EUNSUPPORTED, "%s: the CROWN arm needs a constant weight and bias (node '%s')", op,
                         cn__node_name (nv));
  double *lam_x = st->lam_in[0];
  if (lam_x == NULL)
    return CN_OK;
  CN__ASSERTD (sizes_ok (nv, (const int64_t[]) { st->in_box[0]->n, st->in_box[1]->n, st->in_box[2]->n }, -1));
  cn_status ret;
  struct conv_geom g;
  int64_t *map = NULL, *perm = NULL, *taps = NULL;
  double *m = NULL, *w_up = NULL;
  void *owned = NULL;
  if ((ret = conv_prepare (nv, &g, &map, &perm, err)) != CN_OK)
    return ret;
  /* the constant weight (exact doubles) in conv's layout */
  const double *W = conv_weight (perm, g.F * g.Cg * g.Kn, sizeof (double), st->in_box[1]->lo, &owned);
  const double *b = st->in_box[2]->lo;
  if (W == NULL)
    goto nomem;
  int64_t n_out = g.N * g.F * g.On, n_x = g.N * g.C * g.Sn, CK = g.Cg * g.Kn, P = g.On;
  int nthr = st->threads > 0 ? st->threads : 1;
  if (n_out == 0 || st->rows == 0)
    goto done;
  m = malloc ((size_t) (n_x ? n_x : 1) * sizeof *m);
  w_up = malloc ((size_t) n_out * sizeof *w_up);
  if (m == NULL || w_up == NULL)
    goto nomem;

  if (P > INT_MAX || CK > INT_MAX || g.Fg > INT_MAX)
    {
      ret = cn_error_set (err, CN_EUNSUPPORTED, "%s: extents too large for BLAS (node '%s')", op, cn__node_name (nv));
      goto fail;
    }
  /* Output positions per GEMM: at most CONV_CHUNK_DOUBLES / CK (the scratch buffer of each thread),
   * and with several threads few enough to keep each GEMM on the calling thread.  Where that would
   * leave fewer than 8 positions per GEMM (a large layer), the rows are processed one after the other
   * and OpenBLAS threads each GEMM itself. */
  int64_t pb = CONV_CHUNK_DOUBLES / (CK > 0 ? CK : 1), fck = g.Fg * CK > 0 ? g.Fg * CK : 1;
  if (pb < 1)
    pb = 1;
  if (pb > P)
    pb = P;
  if (nthr > 1 && CONV_BLAS_SERIAL_MNK / fck >= (P < 8 ? P : 8))
    pb = pb < CONV_BLAS_SERIAL_MNK / fck ? pb : CONV_BLAS_SERIAL_MNK / fck;
  else
    nthr = 1;
  taps = malloc ((size_t) (2 * P * g.Kn + P) * sizeof *taps);
  if (taps == NULL)
    goto nomem;
  conv_taps (&g, map, taps, taps + P * g.Kn, taps + 2 * P * g.Kn);
  if ((ret = conv_crown_rows (st, &g, taps, taps + P * g.Kn, taps + 2 * P * g.Kn, W, pb, nthr, err)) != CN_OK)
    goto fail;

  /* w_up[n,f,p] >= sum_{c,kk} |W[f,c,kk]| m[n, g Cg + c, map(p,kk)] + |b[f]|: an RN sum of at most
   * CK + 1 nonnegative products, rounded up by (N).  It depends on the input box alone: the
   * step's memo keeps it for the next sweeps. */
  int64_t K = g.Fg * g.Kn > n_out ? g.Fg * g.Kn : n_out;
  if (cn__crown_charge_affine_memo (st, K))
    goto done;
  double m1 = cn__box_magnitude (st->in_box[0], m);
  conv_magnitude_up (&g, taps, W, b, m, w_up);
  cn__crown_charge_affine (st, w_up, K, m1);
  cn__crown_affine_keep (st, w_up, m1);
done:
  ret = CN_OK;
fail:
  free (map);
  free (perm);
  free (owned);
  free (m);
  free (w_up);
  free (taps);
  return ret;
nomem:
  ret = cn_error_set (err, CN_ENOMEM, "%s: out of memory (node '%s')", op, cn__node_name (nv));
  goto fail;
}

static cn_status
conv_pullback (const cn_node_view *nv, const cn_tensor *const *in, const cn_tensor *out, const double *g_out,
               double *const *g_in, cn_error *err)
{
  const char *op = cn_op_name (nv->op);
  CN__ASSERTD (cn__diff_shapes_match (nv, in, out));
  if (g_in[0] == NULL && g_in[1] == NULL && g_in[2] == NULL)
    return CN_OK;
  struct conv_geom g;
  int64_t *map = NULL, *perm = NULL;
  double *cols = NULL, *gw_perm = NULL;
  void *owned = NULL;
  cn_status ret = conv_prepare (nv, &g, &map, &perm, err);
  if (ret != CN_OK)
    return ret;
  int64_t nw = g.F * g.Cg * g.Kn;
  /* convTranspose: the weight and its cotangent in conv's layout (the cotangent in a zeroed
   * buffer, added back through the permutation at the end). */
  const double *x = in[0]->data, *W = conv_weight (perm, nw, sizeof (double), in[1]->data, &owned);
  double *gx = g_in[0], *gw = g_in[1], *gb = g_in[2];
  if (W == NULL)
    goto nomem;
  if (perm != NULL && gw != NULL)
    {
      gw_perm = calloc ((size_t) (nw > 0 ? nw : 1), sizeof *gw_perm);
      if (gw_perm == NULL)
        goto nomem;
      gw = gw_perm;
    }
  int64_t CK = g.Cg * g.Kn, P = g.On;
  if (gb != NULL)
    for (int64_t n = 0; n < g.N; n++)
      for (int64_t f = 0; f < g.F; f++)
        {
          const double *gf = g_out + (n * g.F + f) * P;
          double s = 0;
          for (int64_t p = 0; p < P; p++)
            s += gf[p];
          gb[f] += s;
        }
  /* now g_b[f] has received sum_{n,p} G[n,f,p] */
  if ((gx == NULL && gw == NULL) || CK == 0 || g.Fg == 0 || P == 0)
    goto done;
  if (P > INT_MAX || CK > INT_MAX || g.Fg > INT_MAX)
    {
      ret = cn_error_set (err, CN_EUNSUPPORTED, "%s: extents too large for BLAS (node '%s')", op, cn__node_name (nv));
      goto fail;
    }
  /* Output positions per block: the patch buffer (pb x CK) stays within CONV_CHUNK_DOUBLES. */
  int64_t pb = CONV_CHUNK_DOUBLES / CK;
  if (pb < 1)
    pb = 1;
  if (pb > P)
    pb = P;
  cols = malloc ((size_t) (pb * CK) * sizeof *cols);
  if (cols == NULL)
    goto nomem;
  for (int64_t n = 0; n < g.N; n++)
    for (int64_t gi = 0; gi < g.G; gi++)
      {
        const double *gg = g_out + (n * g.F + gi * g.Fg) * P;     /* Fg x P, row stride P */
        const double *Wg = W + gi * g.Fg * CK;                    /* Fg x CK */
        int64_t xo = (n * g.C + gi * g.Cg) * g.Sn;
        for (int64_t p0 = 0; p0 < P; p0 += pb)
          {
            int64_t np = P - p0 < pb ? P - p0 : pb;
            if (gw != NULL)
              {
                /* cols[q, c kk] = x[n, g Cg + c, i(p0 + q, kk)], 0 at padded positions (im2col). */
                for (int64_t q = 0; q < np; q++)
                  {
                    const int64_t *mp = map + (p0 + q) * g.Kn;
                    double *cr = cols + q * CK;
                    for (int64_t c = 0; c < g.Cg; c++)
                      for (int64_t kk = 0; kk < g.Kn; kk++)
                        cr[c * g.Kn + kk] = mp[kk] >= 0 ? x[xo + c * g.Sn + mp[kk]] : 0.0;
                  }
                /* g_W_g += (G block) cols: (Fg x np) (np x CK). */
                cblas_dgemm (CblasRowMajor, CblasNoTrans, CblasNoTrans, (int) g.Fg, (int) CK, (int) np, 1.0, gg + p0,
                             (int) P, cols, (int) CK, 1.0, gw + gi * g.Fg * CK, (int) CK);
              }
            if (gx != NULL)
              {
                /* cols = (G block)^T W_g: (np x Fg) (Fg x CK), then scattered into g_x (col2im). */
                cblas_dgemm (CblasRowMajor, CblasTrans, CblasNoTrans, (int) np, (int) CK, (int) g.Fg, 1.0, gg + p0,
                             (int) P, Wg, (int) CK, 0.0, cols, (int) CK);
                double *dst = gx + xo;
                for (int64_t q = 0; q < np; q++)
                  {
                    const double *cr = cols + q * CK;
                    const int64_t *mp = map + (p0 + q) * g.Kn;
                    for (int64_t c = 0; c < g.Cg; c++)
                      for (int64_t kk = 0; kk < g.Kn; kk++)
                        if (mp[kk] >= 0)
                          dst[c * g.Sn + mp[kk]] += cr[c * g.Kn + kk];
                  }
              }
          }
      }
  /* now g_x and g_W have received the transposed convolution of G and the correlation of G with x */
done:
  if (gw_perm != NULL)
    for (int64_t i = 0; i < nw; i++)
      g_in[1][perm[i]] += gw_perm[i];
  ret = CN_OK;
fail:
  free (map);
  free (perm);
  free (owned);
  free (gw_perm);
  free (cols);
  return ret;
nomem:
  ret = cn_error_set (err, CN_ENOMEM, "%s: out of memory (node '%s')", op, cn__node_name (nv));
  goto fail;
}

static cn_status
conv_jvp (const cn_node_view *nv, const cn_tensor *const *in, const cn_tensor *out, const double *const *t_in,
          double *t_out, cn_error *err)
{
  const char *op = cn_op_name (nv->op);
  CN__ASSERTD (cn__diff_shapes_match (nv, in, out));
  struct conv_geom g;
  int64_t *map, *perm;
  cn_status st = conv_prepare (nv, &g, &map, &perm, err);
  if (st != CN_OK)
    return st;
  /* the weight and its tangent in conv's layout */
  int64_t nw = g.F * g.Cg * g.Kn;
  void *own_w = NULL, *own_t = NULL;
  const double *x = in[0]->data, *w = conv_weight (perm, nw, sizeof (double), in[1]->data, &own_w);
  const double *tx = t_in[0], *tb = t_in[2];
  const double *tw = t_in[1] != NULL ? conv_weight (perm, nw, sizeof (double), t_in[1], &own_t) : NULL;
  if (w == NULL || (t_in[1] != NULL && tw == NULL))
    {
      free (own_w);
      free (own_t);
      free (map);
      free (perm);
      return cn_error_set (err, CN_ENOMEM, "%s: out of memory (node '%s')", op, cn__node_name (nv));
    }
  for (int64_t n = 0; n < g.N; n++)
    for (int64_t f = 0; f < g.F; f++)
      {
        int64_t xo = (n * g.C + (f / g.Fg) * g.Cg) * g.Sn, wo = f * g.Cg * g.Kn;
        for (int64_t p = 0; p < g.On; p++)
          {
            const int64_t *mp = map + p * g.Kn;
            double acc = 0;
            for (int64_t c = 0; c < g.Cg; c++)
              for (int64_t kk = 0; kk < g.Kn; kk++)
                if (mp[kk] >= 0)
                  {
                    int64_t xi = xo + c * g.Sn + mp[kk], wi = wo + c * g.Kn + kk;
                    if (tx != NULL)
                      acc += tx[xi] * w[wi];
                    if (tw != NULL)
                      acc += x[xi] * tw[wi];
                  }
            t_out[(n * g.F + f) * g.On + p] = tb != NULL ? acc + tb[f] : acc;
          }
      }
  /* now T_y = conv (T_x, W) + conv (x, T_W) + T_b, each entry summed in the forward's order */
  free (own_w);
  free (own_t);
  free (map);
  free (perm);
  return CN_OK;
}

/* forward_rows (alpha-CROWN's gradient pass; W and b constant): the ROWS x N images of x, per image,
 * group and block of output positions one GEMM  y_block = W_g cols^T  ((Fg x CK)(CK x np)) over the
 * block's im2col patches (0 at padded positions), then the bias; binary64, RN, any order. */
static cn_status
conv_forward_rows (const cn_node_view *nv, int64_t rows, const double *const *in, double *out, int threads,
                   cn_error *err)
{
  (void) threads;
  if (nv->in_const[0] != NULL || nv->in_const[1] == NULL || nv->in_const[2] == NULL)
    return cn_error_set (err, CN_EUNSUPPORTED, "conv: forward_rows needs a constant weight and bias");
  struct conv_geom g;
  int64_t *map, *perm;
  cn_status st = conv_prepare (nv, &g, &map, &perm, err);
  if (st != CN_OK)
    return st;
  void *owned;
  int64_t CK = g.Cg * g.Kn, P = g.On;
  const double *W = conv_weight (perm, g.F * CK, sizeof (double), in[1], &owned), *b = in[2];
  int64_t pb = CK > 0 ? CONV_CHUNK_DOUBLES / CK : 1;
  pb = pb < 1 ? 1 : pb > P ? P : pb;
  double *cols = malloc ((size_t) (pb * CK > 0 ? pb * CK : 1) * sizeof *cols);
  if (W == NULL || cols == NULL)
    {
      st = cn_error_set (err, CN_ENOMEM, "conv: out of memory (node '%s')", cn__node_name (nv));
      goto done;
    }
  if (P > INT_MAX || CK > INT_MAX || g.Fg > INT_MAX)
    {
      st = cn_error_set (err, CN_EUNSUPPORTED, "conv: extents too large for BLAS");
      goto done;
    }
  for (int64_t n = 0; n < rows * g.N; n++)
    {
      const double *x = in[0] + n * g.C * g.Sn;
      double *y = out + n * g.F * P;
      for (int64_t gi = 0; gi < g.G; gi++)
        for (int64_t p0 = 0; p0 < P; p0 += pb)
          {
            int64_t np = P - p0 < pb ? P - p0 : pb;
            const double *xg = x + gi * g.Cg * g.Sn;
            for (int64_t q = 0; q < np; q++)
              {
                const int64_t *mp = map + (p0 + q) * g.Kn;
                double *cr = cols + q * CK;
                for (int64_t c = 0; c < g.Cg; c++)
                  for (int64_t kk = 0; kk < g.Kn; kk++)
                    cr[c * g.Kn + kk] = mp[kk] >= 0 ? xg[c * g.Sn + mp[kk]] : 0.0;
              }
            if (CK > 0 && g.Fg > 0)
              cblas_dgemm (CblasRowMajor, CblasNoTrans, CblasTrans, (int) g.Fg, (int) np, (int) CK, 1.0,
                           W + gi * g.Fg * CK, (int) CK, cols, (int) CK, 0.0, y + gi * g.Fg * P + p0, (int) P);
            else
              for (int64_t f = 0; f < g.Fg; f++)
                memset (y + (gi * g.Fg + f) * P + p0, 0, (size_t) np * sizeof *y);
          }
      for (int64_t f = 0; f < g.F; f++)
        for (int64_t p = 0; p < P; p++)
          y[f * P + p] += b[f];
    }
done:
  free (cols);
  free (owned);
  free (map);
  free (perm);
  return st;
}

static const struct conv_impl conv_impl = { .geometry = conv_geometry, .map = conv_map, .perm = NULL };

const struct cn_op_rule cn__rule_CONV = { .op = CN_OP_CONV,
  .impl = &conv_impl,
  .n_in = 3,
  .check = conv_check,
  .forward = conv_forward,
  .pullback = conv_pullback,
  .jvp = conv_jvp,
  .ibp = conv_ibp,
  .ibp_mpfi = conv_ibp_mpfi,
  .crown = conv_crown,
  .forward_rows = conv_forward_rows,
  .proof = conv_proof,
  .roundoff32 = conv_roundoff32,
  .certs = CN__CERTS (CN__CERT_GRADIENT, CN__CERT_BOUNDS, CN__CERT_CHECKER,
                      CN__CERT_ROUNDOFF32 ("with a constant weight and bias, each entry is a sum of at most CK "
                                           "products and the bias word in any order: (G32), gamma32_{CK+1} T + "
                                           "2 (CK + 1) eta32 with T >= sum |W| m + |b|")),
};

static const struct conv_impl convt_impl = { .geometry = convt_geometry, .map = convt_map, .perm = convt_perm };

const struct cn_op_rule cn__rule_CONV_TRANSPOSE = { .op = CN_OP_CONV_TRANSPOSE,
  .impl = &convt_impl,
  .n_in = 3,
  .check = conv_check,
  .forward = conv_forward,
  .pullback = conv_pullback,
  .jvp = conv_jvp,
  .ibp = conv_ibp,
  .ibp_mpfi = conv_ibp_mpfi,
  .crown = conv_crown,
  .forward_rows = conv_forward_rows,
  .proof = conv_proof,
  .roundoff32 = conv_roundoff32,
  .certs = CN__CERTS (CN__CERT_GRADIENT, CN__CERT_BOUNDS, CN__CERT_CHECKER,
                      CN__CERT_ROUNDOFF32 ("with a constant weight and bias, each entry is a sum of at most CK "
                                           "products and the bias word in any order: (G32), gamma32_{CK+1} T + "
                                           "2 (CK + 1) eta32 with T >= sum |W| m + |b|")),
};
