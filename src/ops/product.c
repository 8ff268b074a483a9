/* SPDX-License-Identifier: MIT */
/* src/ops/product.c: linear, matmul and scaledMatmul (its header with its code, at the end).
 *
 * Error model (ALGORITHMS.md 6.3): (G) an RN dot product of length k, in any order, errs by at most
 * gamma_k |a|.|b| + k eta, which cn__dot_err (t, k) bounds from t = fl(|a|.|b|); (N) a nonnegative
 * RN dot product t is below the exact one by a factor at most kappa_k, after adding k eta.
 *
 * Forward evaluation order.  The forwards compute in the sort T of the tensors (float for f32, double
 * for f64), each product and each sum rounded to nearest in T on its own: the build uses
 * -ffp-contract=off (no fused multiply-add) and the targets have FLT_EVAL_METHOD 0 (no excess
 * precision).  fl(.) below is one such rounding.  tools/gen_onnx_tests.py emulates these orders
 * operation by operation ("f32seq"), and tests/check_onnx.c requires the binary32 forward to match
 * it bit for bit.
 *
 * linear: x [..., n_in], W [n_out, n_in], b [n_out] -> y [..., n_out] (torch.nn.functional.linear).
 *   Forward  with R rows r of x and s_0 = +0:
 *                s_{j+1} = fl(s_j + fl(x[r,j] W[o,j]))   for j = 0, 1, ..., n_in - 1,
 *                y[r,o]  = fl(s_{n_in} + b[o]),
 *            that is y[r,o] = fl(...fl(fl(0 + fl(x[r,0] W[o,0])) + fl(x[r,1] W[o,1])) ... + b[o]).
 *   IBP      selection form (1.1): every term of the exact sum b[o] + sum_j W[o,j] x[r,j] is an
 *            interval product; its lower end is the smallest corner product (for a point factor w:
 *            w l or w u by the sign of w; 0 times anything is 0, an infinite end included).  RN is
 *            monotone, so the smallest RN corner product is the RN value of the smallest exact one:
 *            the sum s of the chosen RN products is the RN evaluation of a dot product of doubles,
 *            t = fl(sum |p_j|) its magnitude, and by (G) lower = down(s - cn__dot_err (t, n_in + 1))
 *            (6.4, "sound IBP"); the upper end mirrors it.  W and b may be boxes as well.  An
 *            infinite end, an overflow or a NaN makes that end infinite, never finite.
 *   CROWN    (2.2(c)) with W and b constant: lam_x[s][r,:] = fl(lam_y[s][r,:] W) for all rows at once,
 *            one GEMM (rows*R x n_out) (n_out x n_in) through cblas_dgemm in RN; bias[s] +=
 *            fl(lam_y[s] . b) over all (r,o) (one GEMV, then the R partial dots of a row summed).
 *            Charge (6.4, linear step): with m = max(|l_x|,|u_x|), w_up[r,o] >= sum_j |W[o,j]| m[r,j]
 *            + |b[o]| (an RN sum rounded up by (N)) and cn__crown_charge_affine (w_up, K), K = numel(y),
 *            at least the longest inner product of a lam_x entry (n_out) and of the bias dot (R n_out).
 *
 * matmul: numpy semantics.  A [..., n, k] (a 1-D A is [k], promoted to [1, k]), B [..., k, m] (a 1-D B
 *   is [k], promoted to [k, 1]); the batch prefixes broadcast; the promoted axes are removed from the
 *   output [batch..., n, m].
 *   Forward  with s_0 = +0:  s_{kk+1} = fl(s_kk + fl(A[ta,i,kk] B[tb,kk,j])) for kk = 0, 1, ..., k - 1,
 *            Y[t,i,j] = s_k (no bias; ONNX MatMul + Add is a separate add node, fl(Y + b)).
 *   IBP      the selection form of linear, term by term; both operands may be boxes (interval
 *            products of two boxes take the least and greatest corner products).
 *   CROWN    two varying operands: McCormick's planes term by term (matmul_mccormick).  One
 *            constant operand: x @ W (B constant): lam_A[s][ta,i,:] += lam_Y[s][t,i,:] B[tb]^T; W @ x (A constant): lam_B[s][tb] += A[ta]^T lam_Y[s][t]; through cblas_dgemm, one GEMM for
 *            all rows when the batches allow it (no batch, or the constant unbatched and the variable
 *            not broadcast; for W @ x also m = 1), else one GEMM per row and output batch matrix,
 *            accumulated (beta = 1) where the variable operand broadcasts.  (G) holds for any order of
 *            summation, so the charge is cn__crown_charge_affine with w_up[t,i,j] >= sum_kk |A||B| (the
 *            variable replaced by its magnitude m, rounded up by (N)) and K = m copies for x @ W, n copies
 *            for W @ x, copies = the number of output batch matrices that read one matrix of the
 *            variable operand.  No bias.
 *
 * Pullbacks (binary64, round to nearest, no soundness claim; G is the output's cotangent):
 *   linear   y = x W^T + b (rows r), so dy = dx W^T + x dW^T + db and the adjoints are
 *                g_x += G W   (R x NO)(NO x NI),     g_W += G^T x   (NO x R)(R x NI),
 *                g_b[o] += sum_r G[r,o],
 *            the two products through cblas_dgemm with beta = 1 (they add into the cotangents).
 *   matmul   Y[t] = A[ta] B[tb] per output batch matrix t, so
 *                g_A[ta] += G[t] B[tb]^T,     g_B[tb] += A[ta]^T G[t],
 *            one cblas_dgemm (beta = 1) per output batch matrix; an operand broadcast over the batch
 *            (its matrix read by several t) sums their products; a 1-D operand is the promoted
 *            [1, k] or [k, 1] matrix, with the same layout.  Both operands may vary (bilinear): each
 *            one that asks for a cotangent gets its product.
 *
 * Forward mode (jvp, binary64, round to nearest; a missing tangent counts as zero): the transposes
 * of the pullbacks, T_y the output's tangent, set to zero and then accumulated:
 *   linear   T_y = T_x W^T + x T_W^T + 1 T_b^T:  T_y += T_x W^T (R x NI)(NI x NO) and
 *            T_y += x T_W^T (R x NI)(NI x NO) through cblas_dgemm (beta = 1), then
 *            T_y[r,o] += T_b[o].
 *   matmul   T_Y[t] = T_A[ta] B[tb] + A[ta] T_B[tb] per output batch matrix t, one cblas_dgemm
 *            (beta = 1) per term; a broadcast operand's matrix is read by every t that reads it.
 *
 * The arms trust the shapes and sorts the graph builder checked (debug assertions state them). */
#include <config.h>
#include <cblas.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ops/ops_impl.h"

/* ---- shared helpers ------------------------------------------------------------------- */

/* The invariants the arms assert (the graph builder checked the shapes and sorts, and the engines
 * allocate from them).  The forward's N inputs hold the output's floating sort: */
static int
sorts_ok (int n, const cn_tensor *const *in, const cn_tensor *out)
{
  if (!cn_dtype_is_float (out->dtype))
    return 0;
  for (int i = 0; i < n; i++)
    if (in[i]->dtype != out->dtype)
      return 0;
  return 1;
}

/* the boxes (and OUT unless it is NULL) have the node's element counts: */
static int
boxes_ok (const cn_node_view *nv, const cn_box *const *in, const cn_box *out)
{
  for (int i = 0; i < nv->n_in; i++)
    if (in[i]->n != cn__numel (nv->in_shape[i]))
      return 0;
  return out == NULL || out->n == cn__numel (nv->out_shape);
}

/* so do the MPFI vectors: */
static int
mpfi_ok (const cn_node_view *nv, const cn_mpfi_vec *const *in, const cn_mpfi_vec *out)
{
  for (int i = 0; i < nv->n_in; i++)
    if (in[i]->n != cn__numel (nv->in_shape[i]))
      return 0;
  return out->n == cn__numel (nv->out_shape);
}

/* C = A op(B) when every row of A (m x k, row stride lda) has at most one nonzero entry, as the
 * one-hot rows that start the sweeps tightening intermediate boxes: row r of C is a[r,j] times row
 * j of op(B), one RN product per entry, the same numbers as the GEMM (a dot product whose other
 * terms are zeros), at the cost of a copy.  Returns 0, having written nothing, as soon as a row
 * has two nonzeros (the scan stops there, so a dense A costs a few reads). */
static int
onehot_rows (CBLAS_TRANSPOSE tb, int64_t m, int64_t n, int64_t k, const double *a, int64_t lda, const double *b,
             int64_t ldb, double *c, int64_t ldc)
{
  for (int64_t r = 0; r < m; r++)
    {
      const double *ar = a + r * lda;
      int64_t nz = 0;
      for (int64_t j = 0; j < k && nz < 2; j++)
        nz += ar[j] != 0;
      if (nz > 1)
        return 0;
    }
  for (int64_t r = 0; r < m; r++)
    {
      const double *ar = a + r * lda;
      double *cr = c + r * ldc;
      int64_t j = 0;
      while (j < k && ar[j] == 0)
        j++;
      if (j == k)
        {
          for (int64_t i = 0; i < n; i++)
            cr[i] = 0;
          continue;
        }
      double x = ar[j];
      if (tb == CblasNoTrans)
        for (int64_t i = 0; i < n; i++)
          cr[i] = x * b[j * ldb + i];         /* op(B) = B, k x n */
      else
        for (int64_t i = 0; i < n; i++)
          cr[i] = x * b[i * ldb + j];         /* op(B) = B^T, B n x k */
    }
  return 1;
}

static int gemm_plain (CBLAS_TRANSPOSE tb, int64_t m, int64_t n, int64_t k, const double *a, int64_t lda,
                       const double *b, int64_t ldb, double beta, double *c, int64_t ldc, int threads);

/* C := A B where at least an eighth of A's columns are zero in every row (a CROWN step's
 * coefficients after a relu: an inactive entry's column is zero for all rows): the product over
 * the other columns only, A and B packed (m x k', k' x n).  The omitted terms are exact zeros, so
 * every entry of C is an RN sum of at most k of the same nonzero products, as the error charges
 * assume.  Returns 1 (C computed), 0 (not worth it, or out of memory: computed nothing, the
 * caller's plain GEMM then runs) or -1 (an extent BLAS cannot take). */
static int
zero_columns_packed (int64_t m, int64_t n, int64_t k, const double *a, int64_t lda, const double *b, int64_t ldb,
                     double *c, int64_t ldc, int threads)
{
  unsigned char *used = calloc ((size_t) k, 1);
  if (used == NULL)
    return 0;
  int64_t kk = 0;
  for (int64_t i = 0; i < m && kk < k; i++)
    {
      const double *ai = a + i * lda;
      for (int64_t j = 0; j < k; j++)
        if (ai[j] != 0 && !used[j])
          {
            used[j] = 1;
            kk++;
          }
    }
  /* now kk columns of A have a nonzero entry */
  if (8 * (k - kk) < k)
    {
      free (used);
      return 0;
    }
  int64_t *col = malloc ((size_t) (kk ? kk : 1) * sizeof *col);
  double *ap = malloc ((size_t) (m * kk > 0 ? m * kk : 1) * sizeof *ap);
  double *bp = malloc ((size_t) (kk * n > 0 ? kk * n : 1) * sizeof *bp);
  int ret = 0;
  if (col != NULL && ap != NULL && bp != NULL)
    {
      int64_t q = 0;
      for (int64_t j = 0; j < k; j++)
        if (used[j])
          col[q++] = j;
      for (int64_t i = 0; i < m; i++)
        for (q = 0; q < kk; q++)
          ap[i * kk + q] = a[i * lda + col[q]];
      for (q = 0; q < kk; q++)
        memcpy (bp + q * n, b + col[q] * ldb, (size_t) n * sizeof *bp);
      if (kk == 0)
        {
          for (int64_t i = 0; i < m; i++)
            memset (c + i * ldc, 0, (size_t) n * sizeof *c);
          ret = 1;
        }
      else
        ret = gemm_plain (CblasNoTrans, m, n, kk, ap, kk, bp, n, 0.0, c, ldc, threads) ? 1 : -1;
    }
  free (used);
  free (col);
  free (ap);
  free (bp);
  return ret;
}

/* C := A B for few rows of A (m <= SMALL_ROWS), B not transposed, beta 0: a column block of C
 * (m x SMALL_BLOCK, in the first-level cache) receives row after row of B scaled by A's column,
 * so B is read once from memory and never packed (OpenBLAS packs the whole of B for every call,
 * which for a few rows costs more than the products).  Each C[s][j] is an RN sum of the
 * products a[s][o] b[o][j] in the order o = 0, 1, ... (zero coefficients skipped, adding nothing):
 * one summation order among those a GEMM may use, all of which the error charges cover. */
#define SMALL_ROWS 32
#define SMALL_BLOCK 256
static void
gemm_small (int64_t m, int64_t n, int64_t k, const double *a, int64_t lda, const double *b, int64_t ldb, double *c,
            int64_t ldc)
{
  for (int64_t s = 0; s < m; s++)
    memset (c + s * ldc, 0, (size_t) n * sizeof *c);
  for (int64_t j0 = 0; j0 < n; j0 += SMALL_BLOCK)
    {
      int64_t jn = n - j0 < SMALL_BLOCK ? n - j0 : SMALL_BLOCK;
      for (int64_t o = 0; o < k; o++)
        {
          const double *bo = b + o * ldb + j0;
          for (int64_t s = 0; s < m; s++)
            {
              double as = a[s * lda + o];
              if (as == 0)
                continue;
              double *cs = c + s * ldc + j0;
#pragma omp simd
              for (int64_t j = 0; j < jn; j++)
                cs[j] += as * bo[j];
            }
        }
    }
}

/* C (m x n, row stride ldc) := beta C + A op(B) in round-to-nearest through cblas_dgemm, A (m x k,
 * row stride lda) not transposed.  The rows are split into chunks whose extents fit OpenBLAS's int
 * and, for a large product, shared among THREADS OpenMP threads (each row of C is one independent
 * GEMM row, so the split changes no rounding the error charges count on).  Returns 0 (and computes
 * nothing) if n, k or a leading dimension does not fit. */
static int
gemm_rows (CBLAS_TRANSPOSE tb, int64_t m, int64_t n, int64_t k, const double *a, int64_t lda, const double *b,
           int64_t ldb, double beta, double *c, int64_t ldc, int threads)
{
  if (m <= 0 || n <= 0 || k <= 0)
    return 1;
  if (beta == 0 && onehot_rows (tb, m, n, k, a, lda, b, ldb, c, ldc))
    return 1;
  if (beta == 0 && tb == CblasNoTrans && m <= SMALL_ROWS)
    {
      gemm_small (m, n, k, a, lda, b, ldb, c, ldc);
      return 1;
    }
  if (n > INT_MAX || k > INT_MAX || lda > INT_MAX || ldb > INT_MAX || ldc > INT_MAX)
    return 0;
  int packed = 0;
  if (tb == CblasNoTrans && beta == 0 && (double) m * (double) n * (double) k > (double) (1 << 18)
      && (packed = zero_columns_packed (m, n, k, a, lda, b, ldb, c, ldc, threads)) != 0)
    return packed > 0;
  return gemm_plain (tb, m, n, k, a, lda, b, ldb, beta, c, ldc, threads);
}

/* gemm_rows without its shortcuts: the GEMM itself, its rows split among THREADS (extents
 * checked by the caller). */
static int
gemm_plain (CBLAS_TRANSPOSE tb, int64_t m, int64_t n, int64_t k, const double *a, int64_t lda, const double *b,
            int64_t ldb, double beta, double *c, int64_t ldc, int threads)
{
  int parts = threads > 1 && (double) m * (double) n * (double) k > (double) (1 << 20) ? threads : 1;
  int64_t chunk = (m + parts - 1) / parts;
  if (chunk > INT_MAX / 2)
    chunk = INT_MAX / 2;
  int64_t nchunks = (m + chunk - 1) / chunk;
  if (parts == 1 && nchunks == 1)
    {
      /* one GEMM on this thread: no OpenMP region to enter */
      cblas_dgemm (CblasRowMajor, CblasNoTrans, tb, (int) m, (int) n, (int) k, 1.0, a, (int) lda, b, (int) ldb, beta,
                   c, (int) ldc);
      return 1;
    }
#pragma omp parallel for num_threads(parts) schedule(static) if (parts > 1)
  for (int64_t q = 0; q < nchunks; q++)
    {
      int64_t r = q * chunk;
      int64_t mm = m - r < chunk ? m - r : chunk;
      cblas_dgemm (CblasRowMajor, CblasNoTrans, tb, (int) mm, (int) n, (int) k, 1.0, a + r * lda, (int) lda, b,
                   (int) ldb, beta, c + r * ldc, (int) ldc);
    }
  return 1;
}

/* C (m x n, row stride ldc) += op(A) op(B) through cblas_dgemm in round-to-nearest, op(A) m x k and
 * op(B) k x n, with the given row strides.  Returns 0 (computing nothing) if an extent or a stride
 * does not fit OpenBLAS's int. */
static int
gemm_add (CBLAS_TRANSPOSE ta, CBLAS_TRANSPOSE tb, int64_t m, int64_t n, int64_t k, const double *a, int64_t lda,
          const double *b, int64_t ldb, double *c, int64_t ldc)
{
  if (m <= 0 || n <= 0 || k <= 0)
    return 1;
  if (m > INT_MAX || n > INT_MAX || k > INT_MAX || lda > INT_MAX || ldb > INT_MAX || ldc > INT_MAX)
    return 0;
  cblas_dgemm (CblasRowMajor, ta, tb, (int) m, (int) n, (int) k, 1.0, a, (int) lda, b, (int) ldb, 1.0, c, (int) ldc);
  return 1;
}

/* ---- linear --------------------------------------------------------------------------- */

static cn_status
linear_check (const struct cn_op_rule *rule, const void *params, int n_in, const cn_shape *const *in, cn_shape *out, cn_error *err)
{
  (void) rule;
  (void) params;
  char a[128], b[128];
  if (n_in != 3)
    return cn_error_set (err, CN_EINVAL, "linear: %d inputs, expected 3 (x, weight, bias)", n_in);
  const cn_shape *x = in[0], *w = in[1], *bs = in[2];
  if (x->rank < 1)
    return cn_error_set (err, CN_ESHAPE, "linear: input has rank 0, expected at least 1");
  if (w->rank != 2)
    return cn_error_set (err, CN_ESHAPE, "linear: weight has rank %d, expected 2", w->rank);
  if (bs->rank != 1)
    return cn_error_set (err, CN_ESHAPE, "linear: bias has rank %d, expected 1", bs->rank);
  if (w->dim[1] != x->dim[x->rank - 1])
    return cn_error_set (err, CN_ESHAPE, "linear: input %s and weight %s: inner extents %lld and %lld differ",
                         cn_shape_format (x, a, sizeof a), cn_shape_format (w, b, sizeof b),
                         (long long) x->dim[x->rank - 1], (long long) w->dim[1]);
  if (bs->dim[0] != w->dim[0])
    return cn_error_set (err, CN_ESHAPE, "linear: bias has extent %lld, the weight %lld outputs",
                         (long long) bs->dim[0], (long long) w->dim[0]);
  *out = *x;
  out->dim[x->rank - 1] = w->dim[0];
  if (cn_shape_numel (out) < 0)
    return cn_error_set (err, CN_ESHAPE, "linear: output element count overflows");
  return CN_OK;
}

/* Geometry of a linear node: R rows of n_in inputs, n_out outputs. */
static void
linear_dims (const cn_node_view *nv, int64_t *r, int64_t *n_in, int64_t *n_out)
{
  const cn_shape *x = nv->in_shape[0];
  int64_t rr = 1;
  for (int i = 0; i < x->rank - 1; i++)
    rr *= x->dim[i];
  *r = rr;
  *n_in = x->dim[x->rank - 1];
  *n_out = nv->in_shape[1]->dim[0];
}

/* The forward in the sort T, in the order of the header: for every (r, o) one accumulator from +0,
 * one rounded product and one rounded sum per j in increasing order, then the bias added last. */
/* y[r, o] = (sum_j x[r, j] w[o, j]) + b[o], each sum accumulated in order j = 0, 1, ... in T.
 * Four outputs are accumulated side by side (four independent chains instead of one, so the
 * loads and multiplies overlap); each output's sum is the same sequence of operations as alone,
 * so the result does not depend on the blocking. */
#define LINEAR_FORWARD(T)                                                                   \
  do                                                                                        \
    {                                                                                       \
      const T *x = in[0]->data, *w = in[1]->data, *b = in[2]->data;                         \
      T *y = out->data;                                                                     \
      for (int64_t r = 0; r < R; r++)                                                       \
        {                                                                                   \
          const T *xr = x + r * NI;                                                         \
          int64_t o = 0;                                                                    \
          for (; o + 4 <= NO; o += 4)                                                       \
            {                                                                               \
              const T *w0 = w + o * NI, *w1 = w0 + NI, *w2 = w1 + NI, *w3 = w2 + NI;        \
              T a0 = 0, a1 = 0, a2 = 0, a3 = 0;                                             \
              for (int64_t j = 0; j < NI; j++)                                              \
                {                                                                           \
                  a0 += xr[j] * w0[j];                                                      \
                  a1 += xr[j] * w1[j];                                                      \
                  a2 += xr[j] * w2[j];                                                      \
                  a3 += xr[j] * w3[j];                                                      \
                }                                                                           \
              y[r * NO + o] = a0 + b[o];                                                    \
              y[r * NO + o + 1] = a1 + b[o + 1];                                            \
              y[r * NO + o + 2] = a2 + b[o + 2];                                            \
              y[r * NO + o + 3] = a3 + b[o + 3];                                            \
            }                                                                               \
          for (; o < NO; o++)                                                               \
            {                                                                               \
              T acc = 0;                                                                    \
              for (int64_t j = 0; j < NI; j++)                                              \
                acc += xr[j] * w[o * NI + j];                                               \
              y[r * NO + o] = acc + b[o];                                                   \
            }                                                                           \
        }                                                                                   \
    }                                                                                       \
  while (0)

static cn_status
linear_forward (const cn_node_view *nv, const cn_tensor *const *in, cn_tensor *out, cn_error *err)
{
  (void) err;
  CN__ASSERTD (sorts_ok (3, in, out));
  int64_t R, NI, NO;
  linear_dims (nv, &R, &NI, &NO);
  if (out->dtype == CN_DTYPE_F64)
    LINEAR_FORWARD (double);
  else
    LINEAR_FORWARD (float);
  return CN_OK;
}

static cn_status
linear_ibp (const cn_node_view *nv, const cn_box *const *in, cn_box *out, cn_error *err)
{
  (void) err;
  CN__ASSERTD (boxes_ok (nv, in, out));
  int64_t R, NI, NO;
  linear_dims (nv, &R, &NI, &NO);
  const double *xl = in[0]->lo, *xu = in[0]->hi, *wl = in[1]->lo, *wu = in[1]->hi;
  /* Constant weights over a finite box: the branch-free form of the same selection sums. */
  int fast = nv->in_const[1] != NULL && cn__finite_box (in[0]->n, xl, xu);
  for (int64_t r = 0; r < R; r++)
    for (int64_t o = 0; o < NO; o++)
      {
        double sl = 0, tl = 0, sh = 0, th = 0;
        const double *xlr = xl + r * NI, *xur = xu + r * NI, *wlo = wl + o * NI, *wuo = wu + o * NI;
        if (fast)
          cn__point_terms (NI, wlo, xlr, xur, &sl, &tl, &sh, &th);
        else
          for (int64_t j = 0; j < NI; j++)
            cn__itv_term (wlo[j], wuo[j], xlr[j], xur[j], &sl, &tl, &sh, &th);
        /* The bias is one more term with coefficient 1. */
        cn__itv_term (1, 1, in[2]->lo[o], in[2]->hi[o], &sl, &tl, &sh, &th);
        /* now sl, sh are RN sums of NI + 1 extreme products; (G) bounds their error from tl, th. */
        out->lo[r * NO + o] = cn__sum_lo (sl, tl, NI + 1);
        out->hi[r * NO + o] = cn__sum_hi (sh, th, NI + 1);
      }
  return CN_OK;
}

/* The magnitude max(|lo|, |hi|) of box entry J. */
static inline double
box_mag (const cn_box *b, int64_t j)
{
  return fmax (fabs (b->lo[j]), fabs (b->hi[j]));
}

/* linear in binary32: y[r,o] is a sum of NI products x[r,j] W[o,j] and the word b[o], NI + 1
 * terms in any order, so (G32) bounds its error by gamma32_{NI+1} T + 2 (NI + 1) eta32 with
 * T >= sum_j |x_rj| |W_oj| + |b_o| <= sum_j m(x_rj) m(W_oj) + m(b_o) (m the magnitude over the
 * box), an RN sum of nonnegative terms rounded up by (N). */
static cn_status
linear_roundoff32 (const cn_node_view *nv, const cn_box *const *in, const cn_box *out, double *e, cn_error *err)
{
  (void) err;
  (void) out;
  int64_t R, NI, NO;
  linear_dims (nv, &R, &NI, &NO);
  for (int64_t r = 0; r < R; r++)
    for (int64_t o = 0; o < NO; o++)
      {
        double t = box_mag (in[2], o);
        for (int64_t j = 0; j < NI; j++)
          {
            double mw = box_mag (in[1], o * NI + j);
            if (mw != 0)
              t += mw * box_mag (in[0], r * NI + j);
          }
        e[r * NO + o] = cn__b32_sum_err (cn__nonneg_up (t, NI + 1), NI + 1);
      }
  return CN_OK;
}

static cn_status
linear_ibp_mpfi (const cn_node_view *nv, const cn_mpfi_vec *const *in, cn_mpfi_vec *out, cn_error *err)
{
  (void) err;
  CN__ASSERTD (mpfi_ok (nv, in, out));
  if (out->n == 0)
    return CN_OK;
  int64_t R, NI, NO;
  linear_dims (nv, &R, &NI, &NO);
  mpfi_t p, acc;
  mpfi_init2 (p, mpfi_get_prec (out->v[0]));
  mpfi_init2 (acc, mpfi_get_prec (out->v[0]));
  for (int64_t r = 0; r < R; r++)
    for (int64_t o = 0; o < NO; o++)
      {
        mpfi_set_ui (acc, 0);
        for (int64_t j = 0; j < NI; j++)
          {
            mpfi_mul (p, in[0]->v[r * NI + j], in[1]->v[o * NI + j]);
            mpfi_add (acc, acc, p);
          }
        mpfi_add (out->v[r * NO + o], acc, in[2]->v[o]);
      }
  mpfi_clear (p);
  mpfi_clear (acc);
  return CN_OK;
}

static cn_status
linear_crown (const cn_crown_step *st, cn_error *err)
{
  const cn_node_view *nv = st->nv;
  if (nv->in_const[1] == NULL || nv->in_const[2] == NULL)
    return cn_error_set (err, CN_EUNSUPPORTED, "linear: the CROWN arm needs a constant weight and bias (node '%s')",
                         cn__node_name (nv));
  if (st->lam_in[0] == NULL)
    return CN_OK;                       /* nothing varies */
  CN__ASSERTD (boxes_ok (nv, st->in_box, NULL));
  cn_status ret;
  int64_t R, NI, NO;
  linear_dims (nv, &R, &NI, &NO);
  int64_t n_out = R * NO, n_x = R * NI;
  if (n_out == 0 || st->rows == 0)
    return CN_OK;
  const double *w = st->in_box[1]->lo, *b = st->in_box[2]->lo;
  double *m = malloc ((size_t) (n_x ? n_x : 1) * sizeof *m);
  double *w_up = malloc ((size_t) n_out * sizeof *w_up);
  double *dots = malloc ((size_t) (st->rows * R) * sizeof *dots);
  if (m == NULL || w_up == NULL || dots == NULL)
    {
      ret = cn_error_set (err, CN_ENOMEM, "linear: out of memory (node '%s')", cn__node_name (nv));
      goto fail;
    }

  /* lam_x = fl(lam_y W): one GEMM over all rows and leading positions, (rows*R x NO) (NO x NI). */
  if (!gemm_rows (CblasNoTrans, st->rows * R, NI, NO, st->lam_out, NO, w, NI, 0.0, st->lam_in[0], NI, st->threads))
    {
      ret = cn_error_set (err, CN_EUNSUPPORTED, "linear: extents too large for BLAS (node '%s')", cn__node_name (nv));
      goto fail;
    }

  /* bias[s] += fl(lam_y[s] . b) over all (r, o): one GEMV gives fl(lam_y[s][r,:] . b) for every
   * (s, r), then the R partial dots of a row are summed in order; the whole is an RN evaluation of a
   * dot product of R*NO terms, whose (G) error is part of the affine charge. */
  if (NO > INT_MAX)
    {
      ret = cn_error_set (err, CN_EUNSUPPORTED, "linear: extents too large for BLAS (node '%s')", cn__node_name (nv));
      goto fail;
    }
  for (int64_t r0 = 0; r0 < st->rows * R; r0 += INT_MAX / 2)
    {
      int64_t mr = st->rows * R - r0 < INT_MAX / 2 ? st->rows * R - r0 : INT_MAX / 2;
      cblas_dgemv (CblasRowMajor, CblasNoTrans, (int) mr, (int) NO, 1.0, st->lam_out + r0 * NO, (int) NO, b, 1, 0.0,
                   dots + r0, 1);
    }
  for (int64_t s = 0; s < st->rows; s++)
    {
      double d = 0;
      for (int64_t r = 0; r < R; r++)
        d += dots[s * R + r];
      cn__crown_add_bias (st, s, d);
    }

  /* w_up[r,o] >= sum_j |W[o,j]| m[r,j] + |b[o]|: RN sum of NI + 1 nonnegative products, then (N).
   * It depends on the input box alone: the step's memo keeps it for the next sweeps. */
  ret = CN_OK;
  if (cn__crown_charge_affine_memo (st, n_out))
    goto fail;
  double m1 = cn__box_magnitude (st->in_box[0], m);
  for (int64_t r = 0; r < R; r++)
    for (int64_t o = 0; o < NO; o++)
      {
        const double *wo = w + o * NI, *mr = m + r * NI;
        double t = fabs (b[o]);
        if (isfinite (m1))
          {
            /* finite magnitudes: 0 m = 0, no test needed (any order of the RN sum) */
#pragma omp simd reduction(+ : t)
            for (int64_t j = 0; j < NI; j++)
              t += fabs (wo[j]) * mr[j];
          }
        else
          for (int64_t j = 0; j < NI; j++)
            if (wo[j] != 0)
              t += fabs (wo[j]) * mr[j];
        w_up[r * NO + o] = cn__nonneg_up (t, NI + 1);
      }
  /* Every lam_x entry is an inner product of length NO <= numel(y), the bias dot has numel(y) terms. */
  cn__crown_charge_affine (st, w_up, n_out, m1);
  cn__crown_affine_keep (st, w_up, m1);
fail:
  free (m);
  free (w_up);
  free (dots);
  return ret;
}

static cn_status
linear_pullback (const cn_node_view *nv, const cn_tensor *const *in, const cn_tensor *out, const double *g_out,
                 double *const *g_in, cn_error *err)
{
  CN__ASSERTD (cn__diff_shapes_match (nv, in, out));
  int64_t R, NI, NO;
  linear_dims (nv, &R, &NI, &NO);
  const double *x = in[0]->data, *w = in[1]->data;
  int ok = 1;
  /* g_x += G W: (R x NO) (NO x NI). */
  if (g_in[0] != NULL)
    ok &= gemm_add (CblasNoTrans, CblasNoTrans, R, NI, NO, g_out, NO, w, NI, g_in[0], NI);
  /* g_W += G^T x: (NO x R) (R x NI), G stored R x NO. */
  if (g_in[1] != NULL)
    ok &= gemm_add (CblasTrans, CblasNoTrans, NO, NI, R, g_out, NO, x, NI, g_in[1], NI);
  if (!ok)
    return cn_error_set (err, CN_EUNSUPPORTED, "linear: extents too large for BLAS (node '%s')", cn__node_name (nv));
  /* g_b[o] += sum_r G[r,o]. */
  if (g_in[2] != NULL)
    for (int64_t r = 0; r < R; r++)
      for (int64_t o = 0; o < NO; o++)
        g_in[2][o] += g_out[r * NO + o];
  return CN_OK;
}

static cn_status
linear_jvp (const cn_node_view *nv, const cn_tensor *const *in, const cn_tensor *out, const double *const *t_in,
            double *t_out, cn_error *err)
{
  CN__ASSERTD (cn__diff_shapes_match (nv, in, out));
  int64_t R, NI, NO;
  linear_dims (nv, &R, &NI, &NO);
  const double *x = in[0]->data, *w = in[1]->data;
  for (int64_t q = 0; q < R * NO; q++)
    t_out[q] = 0;
  int ok = 1;
  /* T_y += T_x W^T: (R x NI) (NI x NO), W stored NO x NI. */
  if (t_in[0] != NULL)
    ok &= gemm_add (CblasNoTrans, CblasTrans, R, NO, NI, t_in[0], NI, w, NI, t_out, NO);
  /* T_y += x T_W^T: (R x NI) (NI x NO), T_W stored NO x NI. */
  if (t_in[1] != NULL)
    ok &= gemm_add (CblasNoTrans, CblasTrans, R, NO, NI, x, NI, t_in[1], NI, t_out, NO);
  if (!ok)
    return cn_error_set (err, CN_EUNSUPPORTED, "linear: extents too large for BLAS (node '%s')", cn__node_name (nv));
  /* T_y[r,o] += T_b[o]. */
  if (t_in[2] != NULL)
    for (int64_t r = 0; r < R; r++)
      for (int64_t o = 0; o < NO; o++)
        t_out[r * NO + o] += t_in[2][o];
  return CN_OK;
}

/* forward_rows: y[s] = x[s] W^T + b for every row s, one GEMM (rows*R x NI)(NI x NO) in RN, then
 * the bias (W and b constant). */
static cn_status
linear_forward_rows (const cn_node_view *nv, int64_t rows, const double *const *in, double *out, int threads,
                     cn_error *err)
{
  if (nv->in_const[0] != NULL || nv->in_const[1] == NULL || nv->in_const[2] == NULL)
    return cn_error_set (err, CN_EUNSUPPORTED, "linear: forward_rows needs a constant weight and bias");
  int64_t R, NI, NO;
  linear_dims (nv, &R, &NI, &NO);
  if (!gemm_rows (CblasTrans, rows * R, NO, NI, in[0], NI, in[1], NI, 0.0, out, NO, threads))
    return cn_error_set (err, CN_EUNSUPPORTED, "linear: extents too large for BLAS");
  for (int64_t r = 0; r < rows * R; r++)
    for (int64_t o = 0; o < NO; o++)
      out[r * NO + o] += in[2][o];
  return CN_OK;
}

/* The checker's step (cn_proof_step): y[r, o] = sum_j x[r, j] w[o, j] + b[o] with constant w
 * and b is affine, so with L = lam_out:  D_x[s, r, j] = sum_o L[s, r, o] w[o, j] and
 * b[s] = sum_{r, o} L[s, r, o] b[o], both enclosed by interval sums (no relaxation: equality). */
static cn_status
linear_proof (const cn_proof_step *st, cn_error *err)
{
  const cn_node_view *nv = st->nv;
  if (st->lam_in[1] != NULL || st->lam_in[2] != NULL)
    return cn_error_set (err, CN_EUNSUPPORTED, "linear: the checker needs a constant weight and bias (node '%s')",
                         cn__node_name (nv));
  int64_t R, NI, NO;
  linear_dims (nv, &R, &NI, &NO);
  const cn_mpfi_vec *w = st->in_box[1], *b = st->in_box[2];
  for (int64_t s = 0; s < st->rows; s++)
    for (int64_t r = 0; r < R; r++)
      {
        mpfi_t *L = st->lam_out + (s * R + r) * NO;
        for (int64_t o = 0; o < NO; o++)
          if (!mpfi_is_zero (L[o]))
            cn__proof_add_product (st->bias[s], L[o], b->v[o], st->tmp);
        if (st->lam_in[0] == NULL)
          continue;
        mpfi_t *D = st->lam_in[0] + (s * R + r) * NI;
        for (int64_t o = 0; o < NO; o++)
          {
            if (mpfi_is_zero (L[o]))
              continue;
            for (int64_t j = 0; j < NI; j++)
              cn__proof_add_product (D[j], L[o], w->v[o * NI + j], st->tmp);
          }
      }
  return CN_OK;
}

const struct cn_op_rule cn__rule_LINEAR = { .op = CN_OP_LINEAR,
  .n_in = 3,
  .check = linear_check,
  .forward = linear_forward,
  .pullback = linear_pullback,
  .jvp = linear_jvp,
  .ibp = linear_ibp,
  .ibp_mpfi = linear_ibp_mpfi,
  .crown = linear_crown,
  .forward_rows = linear_forward_rows,
  .proof = linear_proof,
  .roundoff32 = linear_roundoff32,
  .certs = CN__CERTS (CN__CERT_GRADIENT, CN__CERT_BOUNDS, CN__CERT_CHECKER,
                      CN__CERT_ROUNDOFF32 ("each entry is a sum of n_in products and the bias word in any order: "
                                           "(G32), gamma32_{n_in+1} T + 2 (n_in + 1) eta32 with T the sum of the "
                                           "magnitudes' products over the boxes")),
};

/* ---- matmul --------------------------------------------------------------------------- */

/* The batched-product view of a matmul node. */
struct mm_geom
{
  int64_t n, k, m;                  /* A[t] is n x k, B[t] is k x m, Y[t] is n x m */
  int rank;                         /* output batch rank */
  int64_t dim[CN_MAX_RANK];         /* output batch extents */
  int64_t sa[CN_MAX_RANK], sb[CN_MAX_RANK];  /* batch strides of A and B in matrices, 0 if broadcast */
  int64_t nb, nba, nbb;             /* batch matrices of Y, A and B */
};

/* Fills G from the input shapes; CN_ESHAPE with a message if they do not multiply.  OUT (may be NULL)
 * receives the output shape. */
static cn_status
mm_geometry (const cn_shape *a, const cn_shape *b, struct mm_geom *g, cn_shape *out, cn_error *err)
{
  char sa[128], sb[128];
  if (a->rank < 1 || b->rank < 1)
    return cn_error_set (err, CN_ESHAPE, "matmul: input %d is a scalar", a->rank < 1 ? 0 : 1);
  int a_vec = a->rank == 1, b_vec = b->rank == 1;
  int64_t ka;
  g->n = a_vec ? 1 : a->dim[a->rank - 2];
  ka = a->dim[a->rank - 1];
  g->k = b->dim[b_vec ? 0 : b->rank - 2];
  g->m = b_vec ? 1 : b->dim[b->rank - 1];
  if (ka != g->k)
    return cn_error_set (err, CN_ESHAPE, "matmul: inner extents differ: %s and %s (%lld and %lld)",
                         cn_shape_format (a, sa, sizeof sa), cn_shape_format (b, sb, sizeof sb), (long long) ka,
                         (long long) g->k);
  int ra = a_vec ? 0 : a->rank - 2, rb = b_vec ? 0 : b->rank - 2;
  g->rank = ra > rb ? ra : rb;
  int64_t acc_a = 1, acc_b = 1;
  g->nb = 1;
  for (int d = g->rank - 1; d >= 0; d--)
    {
      int ia = d - (g->rank - ra), ib = d - (g->rank - rb);
      int64_t ea = ia >= 0 ? a->dim[ia] : 1, eb = ib >= 0 ? b->dim[ib] : 1;
      if (ea != eb && ea != 1 && eb != 1)
        return cn_error_set (err, CN_ESHAPE, "matmul: batch extents %lld and %lld do not broadcast: %s and %s",
                             (long long) ea, (long long) eb, cn_shape_format (a, sa, sizeof sa),
                             cn_shape_format (b, sb, sizeof sb));
      int64_t e = ea == 1 ? eb : ea;
      g->dim[d] = e;
      /* An operand of extent 1 on this axis is read at index 0 by every output batch matrix. */
      g->sa[d] = ea == 1 ? 0 : acc_a;
      g->sb[d] = eb == 1 ? 0 : acc_b;
      acc_a *= ea;
      acc_b *= eb;
    }
  g->nba = acc_a;
  g->nbb = acc_b;
  cn_shape o;
  memset (&o, 0, sizeof o);
  o.rank = g->rank;
  for (int d = 0; d < g->rank; d++)
    o.dim[d] = g->dim[d];
  if (!a_vec)
    o.dim[o.rank++] = g->n;
  if (!b_vec)
    o.dim[o.rank++] = g->m;
  int64_t nb = 1;
  for (int d = 0; d < g->rank; d++)
    {
      if (g->dim[d] != 0 && nb > INT64_MAX / g->dim[d])
        return cn_error_set (err, CN_ESHAPE, "matmul: output element count overflows");
      nb *= g->dim[d];
    }
  g->nb = nb;
  if (cn_shape_numel (&o) < 0)
    return cn_error_set (err, CN_ESHAPE, "matmul: output element count overflows");
  if (out != NULL)
    *out = o;
  return CN_OK;
}

/* The A and B batch matrices read by output batch matrix T. */
static inline void
mm_index (const struct mm_geom *g, int64_t t, int64_t *ia, int64_t *ib)
{
  int64_t a = 0, b = 0;
  for (int d = g->rank - 1; d >= 0; d--)
    {
      int64_t q = t % g->dim[d];
      t /= g->dim[d];
      a += q * g->sa[d];
      b += q * g->sb[d];
    }
  *ia = a;
  *ib = b;
}

static cn_status
matmul_check (const struct cn_op_rule *rule, const void *params, int n_in, const cn_shape *const *in, cn_shape *out, cn_error *err)
{
  (void) rule;
  (void) params;
  if (n_in != 2)
    return cn_error_set (err, CN_EINVAL, "matmul: %d inputs, expected 2", n_in);
  struct mm_geom g;
  return mm_geometry (in[0], in[1], &g, out, err);
}

/* The forward in the sort T, in the order of the header: for every output entry one accumulator
 * from +0, one rounded product and one rounded sum per kk in increasing order. */
#define MATMUL_FORWARD(T)                                                                   \
  do                                                                                        \
    {                                                                                       \
      const T *A = in[0]->data, *B = in[1]->data;                                           \
      T *Y = out->data;                                                                     \
      for (int64_t t = 0; t < g.nb; t++)                                                    \
        {                                                                                   \
          int64_t ia, ib;                                                                   \
          mm_index (&g, t, &ia, &ib);                                                       \
          const T *a = A + ia * g.n * g.k, *b = B + ib * g.k * g.m;                         \
          T *y = Y + t * g.n * g.m;                                                         \
          for (int64_t i = 0; i < g.n; i++)                                                 \
            for (int64_t j = 0; j < g.m; j++)                                               \
              {                                                                             \
                T acc = 0;                                                                  \
                for (int64_t kk = 0; kk < g.k; kk++)                                        \
                  acc += a[i * g.k + kk] * b[kk * g.m + j];                                 \
                y[i * g.m + j] = acc;                                                       \
              }                                                                             \
        }                                                                                   \
    }                                                                                       \
  while (0)

static cn_status
matmul_forward (const cn_node_view *nv, const cn_tensor *const *in, cn_tensor *out, cn_error *err)
{
  CN__ASSERTD (sorts_ok (2, in, out));
  cn_status st;
  struct mm_geom g;
  if ((st = mm_geometry (nv->in_shape[0], nv->in_shape[1], &g, NULL, err)) != CN_OK)
    return st;
  if (out->dtype == CN_DTYPE_F64)
    MATMUL_FORWARD (double);
  else
    MATMUL_FORWARD (float);
  return CN_OK;
}

static cn_status
matmul_ibp (const cn_node_view *nv, const cn_box *const *in, cn_box *out, cn_error *err)
{
  CN__ASSERTD (boxes_ok (nv, in, out));
  cn_status st;
  struct mm_geom g;
  if ((st = mm_geometry (nv->in_shape[0], nv->in_shape[1], &g, NULL, err)) != CN_OK)
    return st;
  for (int64_t t = 0; t < g.nb; t++)
    {
      int64_t ia, ib;
      mm_index (&g, t, &ia, &ib);
      const double *al = in[0]->lo + ia * g.n * g.k, *ah = in[0]->hi + ia * g.n * g.k;
      const double *bl = in[1]->lo + ib * g.k * g.m, *bh = in[1]->hi + ib * g.k * g.m;
      for (int64_t i = 0; i < g.n; i++)
        for (int64_t j = 0; j < g.m; j++)
          {
            double sl = 0, tl = 0, sh = 0, th = 0;
            for (int64_t kk = 0; kk < g.k; kk++)
              cn__itv_term (al[i * g.k + kk], ah[i * g.k + kk], bl[kk * g.m + j], bh[kk * g.m + j], &sl, &tl, &sh, &th);
            /* now sl, sh are RN sums of k extreme products. */
            int64_t o = (t * g.n + i) * g.m + j;
            out->lo[o] = cn__sum_lo (sl, tl, g.k);
            out->hi[o] = cn__sum_hi (sh, th, g.k);
          }
    }
  return CN_OK;
}

/* matmul in binary32: Y[t,i,j] is a sum of k products, any order: (G32) with
 * T >= sum_kk m(A[ta,i,kk]) m(B[tb,kk,j]), as linear's. */
static cn_status
matmul_roundoff32 (const cn_node_view *nv, const cn_box *const *in, const cn_box *out, double *e, cn_error *err)
{
  (void) out;
  cn_status st;
  struct mm_geom g;
  if ((st = mm_geometry (nv->in_shape[0], nv->in_shape[1], &g, NULL, err)) != CN_OK)
    return st;
  for (int64_t t = 0; t < g.nb; t++)
    {
      int64_t ia, ib;
      mm_index (&g, t, &ia, &ib);
      int64_t a0 = ia * g.n * g.k, b0 = ib * g.k * g.m;
      for (int64_t i = 0; i < g.n; i++)
        for (int64_t j = 0; j < g.m; j++)
          {
            double s = 0;
            for (int64_t kk = 0; kk < g.k; kk++)
              {
                double ma = box_mag (in[0], a0 + i * g.k + kk);
                if (ma != 0)
                  s += ma * box_mag (in[1], b0 + kk * g.m + j);
              }
            e[(t * g.n + i) * g.m + j] = cn__b32_sum_err (cn__nonneg_up (s, g.k), g.k);
          }
    }
  return CN_OK;
}

static cn_status
matmul_ibp_mpfi (const cn_node_view *nv, const cn_mpfi_vec *const *in, cn_mpfi_vec *out, cn_error *err)
{
  CN__ASSERTD (mpfi_ok (nv, in, out));
  if (out->n == 0)
    return CN_OK;
  cn_status st;
  struct mm_geom g;
  if ((st = mm_geometry (nv->in_shape[0], nv->in_shape[1], &g, NULL, err)) != CN_OK)
    return st;
  mpfi_t p;
  mpfi_init2 (p, mpfi_get_prec (out->v[0]));
  for (int64_t t = 0; t < g.nb; t++)
    {
      int64_t ia, ib;
      mm_index (&g, t, &ia, &ib);
      for (int64_t i = 0; i < g.n; i++)
        for (int64_t j = 0; j < g.m; j++)
          {
            mpfi_ptr y = out->v[(t * g.n + i) * g.m + j];
            mpfi_set_ui (y, 0);
            for (int64_t kk = 0; kk < g.k; kk++)
              {
                mpfi_mul (p, in[0]->v[(ia * g.n + i) * g.k + kk], in[1]->v[(ib * g.k + kk) * g.m + j]);
                mpfi_add (y, y, p);
              }
          }
    }
  mpfi_clear (p);
  return CN_OK;
}

/* matmul of two varying operands: McCormick's planes term by term (ALGORITHMS.md 3).  For one term
 * a b, a in [al, au] (A's entry), b in [bl, bu] (B's):
 *     a b >= bl a + al b - al bl   ((a - al)(b - bl) >= 0),
 *     a b <= bu a + al b - al bu   ((a - al)(b - bu) <= 0),
 * so for a row's coefficient lam of Y[t,i,j] = sum_kk A[i,kk] B[kk,j]: lam_A[i,kk] += lam bsel[kk,j]
 * (bsel = bl where lam >= 0, else bu), lam_B[kk,j] += lam al[i,kk], and the row's bias gets lam C
 * with C = -sum_kk al bsel, summed rounded down (lam >= 0) or up (lam < 0): a lower bound of the
 * lower plane's constant, an upper bound of the upper one's.  The coefficients are RN sums of at
 * most KA = m copies (KB = n copies) products, in any order, so each errs by cn__dot_err of its sum
 * of magnitudes (G): the row is charged that times the operand's magnitude, entry by entry, and the
 * bias sum its own (cn__crown_add_dot).  Infinite ends: CN_EUNSUPPORTED (the node's box). */
static cn_status
matmul_mccormick (const cn_crown_step *st, const struct mm_geom *g, cn_error *err)
{
  const cn_node_view *nv = st->nv;
  const cn_box *BA = st->in_box[0], *BB = st->in_box[1];
  int64_t nA = BA->n, nB = BB->n, n_out = g->nb * g->n * g->m;
  for (int64_t q = 0; q < nA + nB; q++)
    {
      const cn_box *b = q < nA ? BA : BB;
      int64_t e = q < nA ? q : q - nA;
      if (!isfinite (b->lo[e]) || !isfinite (b->hi[e]))
        return cn_error_set (err, CN_EUNSUPPORTED, "matmul: no relaxation of a product over an infinite box (node '%s')",
                             cn__node_name (nv));
    }
  double *buf = malloc ((size_t) (2 * (nA + nB) + 3 * n_out + 1) * sizeof *buf);
  if (buf == NULL)
    return cn_error_set (err, CN_ENOMEM, "matmul: out of memory (node '%s')", cn__node_name (nv));
  double *mA = buf, *mB = mA + nA, *TA = mB + nB, *TB = TA + nA, *Clo = TB + nB, *Chi = Clo + n_out, *Cs = Chi + n_out;
  cn__box_magnitude (BA, mA);
  cn__box_magnitude (BB, mB);
  for (int64_t t = 0; t < g->nb; t++)
    {
      int64_t ia, ib;
      mm_index (g, t, &ia, &ib);
      for (int64_t i = 0; i < g->n; i++)
        for (int64_t j = 0; j < g->m; j++)
          {
            double lo = 0, hi = 0;
            for (int64_t kk = 0; kk < g->k; kk++)
              {
                double al = BA->lo[(ia * g->n + i) * g->k + kk];
                int64_t b = (ib * g->k + kk) * g->m + j;
                lo = cn__down (lo - cn__up (al * BB->lo[b]));
                hi = cn__up (hi - cn__down (al * BB->hi[b]));
              }
            /* now lo <= -sum al bl and hi >= -sum al bu (each product and sum rounded outward) */
            Clo[(t * g->n + i) * g->m + j] = lo;
            Chi[(t * g->n + i) * g->m + j] = hi;
          }
    }
  int64_t KA = g->m * (g->nba > 0 ? g->nb / g->nba : 1), KB = g->n * (g->nbb > 0 ? g->nb / g->nbb : 1);
  for (int64_t s = 0; s < st->rows; s++)
    {
      const double *lam = st->lam_out + s * n_out;
      double *lA = st->lam_in[0] + s * nA, *lB = st->lam_in[1] + s * nB;
      memset (TA, 0, (size_t) (nA + nB) * sizeof *TA);
      int unbounded = 0;
      for (int64_t t = 0; t < g->nb; t++)
        {
          int64_t ia, ib;
          mm_index (g, t, &ia, &ib);
          for (int64_t i = 0; i < g->n; i++)
            for (int64_t j = 0; j < g->m; j++)
              {
                int64_t o = (t * g->n + i) * g->m + j;
                double l = lam[o];
                Cs[o] = l == 0 ? 0 : l > 0 ? Clo[o] : Chi[o];
                if (l == 0)
                  continue;
                if (!isfinite (Cs[o]))
                  unbounded = 1, Cs[o] = 0;
                const double *bsel = l > 0 ? BB->lo : BB->hi;
                for (int64_t kk = 0; kk < g->k; kk++)
                  {
                    int64_t a = (ia * g->n + i) * g->k + kk, b = (ib * g->k + kk) * g->m + j;
                    double pa = l * bsel[b], pb = l * BA->lo[a];
                    lA[a] += pa;
                    TA[a] += fabs (pa);
                    lB[b] += pb;
                    TB[b] += fabs (pb);
                  }
              }
        }
      /* now lA, lB are RN sums of the exact coefficients' terms, TA, TB their magnitudes */
      cn__crown_add_dot (st, s, n_out, lam, Cs);
      double ch = 0;
      for (int64_t a = 0; a < nA; a++)
        if (TA[a] != 0)
          ch = cn__up (ch + cn__up (cn__dot_err (TA[a], KA) * mA[a]));
      for (int64_t b = 0; b < nB; b++)
        if (TB[b] != 0)
          ch = cn__up (ch + cn__up (cn__dot_err (TB[b], KB) * mB[b]));
      cn__crown_charge (st, s, unbounded ? INFINITY : ch);
    }
  free (buf);
  return CN_OK;
}

static cn_status
matmul_crown (const cn_crown_step *st, cn_error *err)
{
  const cn_node_view *nv = st->nv;
  int a_const = nv->in_const[0] != NULL, b_const = nv->in_const[1] != NULL;
  if (a_const && b_const)
    return cn_error_set (err, CN_EUNSUPPORTED, "matmul: the CROWN arm needs a varying operand (node '%s')",
                         cn__node_name (nv));
  if (!a_const && !b_const)
    {
      struct mm_geom g;
      cn_status ret = mm_geometry (nv->in_shape[0], nv->in_shape[1], &g, NULL, err);
      if (ret != CN_OK)
        return ret;
      if (st->lam_in[0] == NULL || st->lam_in[1] == NULL)
        return cn_error_set (err, CN_EINVAL, "matmul: CROWN step without coefficients for a varying operand (node '%s')",
                             cn__node_name (nv));
      return matmul_mccormick (st, &g, err);
    }
  CN__ASSERTD (boxes_ok (nv, st->in_box, NULL));
  cn_status ret;
  struct mm_geom g;
  if ((ret = mm_geometry (nv->in_shape[0], nv->in_shape[1], &g, NULL, err)) != CN_OK)
    return ret;
  int v = a_const ? 1 : 0;              /* the variable operand */
  double *lam_v = st->lam_in[v];
  int64_t n_out = g.nb * g.n * g.m, n_v = st->in_box[v]->n;
  if (lam_v == NULL || n_out == 0 || st->rows == 0)
    return CN_OK;
  const double *W = st->in_box[1 - v]->lo;     /* the constant operand, exact doubles */
  int64_t nbv = v == 0 ? g.nba : g.nbb;
  int64_t copies = nbv > 0 ? g.nb / nbv : 1;
  double *m = malloc ((size_t) (n_v ? n_v : 1) * sizeof *m);
  double *w_up = malloc ((size_t) n_out * sizeof *w_up);
  if (m == NULL || w_up == NULL)
    {
      ret = cn_error_set (err, CN_ENOMEM, "matmul: out of memory (node '%s')", cn__node_name (nv));
      goto fail;
    }
  int ok = 1;
  if (v == 0)
    {
      /* x @ W: lam_A[s][ta,i,kk] += sum_j lam_Y[s][t,i,j] B[tb,kk,j]. */
      if (g.nb == 1 || (g.nbb == 1 && g.nba == g.nb))
        /* One GEMM: (rows*nb*n x m) times B^T (m x k), B stored k x m. */
        ok = gemm_rows (CblasTrans, st->rows * g.nb * g.n, g.k, g.m, st->lam_out, g.m, W, g.m, 0.0,
                        lam_v, g.k, st->threads);
      else
        for (int64_t s = 0; s < st->rows && ok; s++)
          for (int64_t t = 0; t < g.nb && ok; t++)
            {
              int64_t ia, ib;
              mm_index (&g, t, &ia, &ib);
              ok = gemm_rows (CblasTrans, g.n, g.k, g.m, st->lam_out + s * n_out + t * g.n * g.m, g.m,
                              W + ib * g.k * g.m, g.m, 1.0, lam_v + s * n_v + ia * g.n * g.k, g.k, st->threads);
            }
    }
  else
    {
      /* W @ x: lam_B[s][tb,kk,j] += sum_i A[ta,i,kk] lam_Y[s][t,i,j]. */
      if (g.m == 1 && (g.nb == 1 || (g.nba == 1 && g.nbb == g.nb)))
        /* One GEMM: (rows*nb x n) times A (n x k). */
        ok = gemm_rows (CblasNoTrans, st->rows * g.nb, g.k, g.n, st->lam_out, g.n, W, g.k, 0.0, lam_v,
                        g.k, st->threads);
      else
        for (int64_t s = 0; s < st->rows && ok; s++)
          for (int64_t t = 0; t < g.nb && ok; t++)
            {
              int64_t ia, ib;
              mm_index (&g, t, &ia, &ib);
              /* (k x m) += A[ta]^T (k x n) lam_Y[s][t] (n x m). */
              if (g.k > 0 && g.m > 0 && g.n > 0)
                {
                  if (g.k > INT_MAX || g.m > INT_MAX || g.n > INT_MAX)
                    ok = 0;
                  else
                    cblas_dgemm (CblasRowMajor, CblasTrans, CblasNoTrans, (int) g.k, (int) g.m, (int) g.n, 1.0,
                                 W + ia * g.n * g.k, (int) g.k, st->lam_out + s * n_out + t * g.n * g.m, (int) g.m, 1.0,
                                 lam_v + s * n_v + ib * g.k * g.m, (int) g.m);
                }
            }
    }
  if (!ok)
    {
      ret = cn_error_set (err, CN_EUNSUPPORTED, "matmul: extents too large for BLAS (node '%s')", cn__node_name (nv));
      goto fail;
    }

  /* w_up[t,i,j] >= sum_kk |A[ta,i,kk]| |B[tb,kk,j]| with the variable operand replaced by its magnitude. */
  double m1 = cn__box_magnitude (st->in_box[v], m);
  const double *Am = v == 0 ? m : W, *Bm = v == 0 ? W : m;
  for (int64_t t = 0; t < g.nb; t++)
    {
      int64_t ia, ib;
      mm_index (&g, t, &ia, &ib);
      const double *a = Am + ia * g.n * g.k, *b = Bm + ib * g.k * g.m;
      for (int64_t i = 0; i < g.n; i++)
        {
          double *wr = w_up + (t * g.n + i) * g.m;
          if (isfinite (m1))
            {
              /* every magnitude finite: the same RN sums, accumulated row by row of B (each
               * w_up entry still adds its k products in the order kk = 0, 1, ...), branch free */
              for (int64_t j = 0; j < g.m; j++)
                wr[j] = 0;
              for (int64_t kk = 0; kk < g.k; kk++)
                {
                  double x = fabs (a[i * g.k + kk]);
                  const double *br = b + kk * g.m;
                  for (int64_t j = 0; j < g.m; j++)
                    wr[j] += x * fabs (br[j]);
                }
            }
          else
            for (int64_t j = 0; j < g.m; j++)
              {
                double tt = 0;
                for (int64_t kk = 0; kk < g.k; kk++)
                  {
                    double x = a[i * g.k + kk], y = b[kk * g.m + j];
                    if (x != 0 && y != 0)
                      tt += fabs (x) * fabs (y);
                  }
                wr[j] = tt;
              }
          for (int64_t j = 0; j < g.m; j++)
            wr[j] = cn__nonneg_up (wr[j], g.k > 0 ? g.k : 1);
        }
    }
  /* Longest inner product of a lam entry: m (or n) products per output batch matrix that reads it. */
  int64_t K = (v == 0 ? g.m : g.n) * copies;
  cn__crown_charge_affine (st, w_up, K > 0 ? K : 1, m1);
  ret = CN_OK;
fail:
  free (m);
  free (w_up);
  return ret;
}

static cn_status
matmul_pullback (const cn_node_view *nv, const cn_tensor *const *in, const cn_tensor *out, const double *g_out,
                 double *const *g_in, cn_error *err)
{
  CN__ASSERTD (cn__diff_shapes_match (nv, in, out));
  cn_status st;
  struct mm_geom g;
  if ((st = mm_geometry (nv->in_shape[0], nv->in_shape[1], &g, NULL, err)) != CN_OK)
    return st;
  const double *A = in[0]->data, *B = in[1]->data;
  int ok = 1;
  for (int64_t t = 0; t < g.nb && ok; t++)
    {
      int64_t ia, ib;
      mm_index (&g, t, &ia, &ib);
      const double *gt = g_out + t * g.n * g.m;
      /* g_A[ta] += G[t] B[tb]^T: (n x m) (m x k), B[tb] stored k x m. */
      if (g_in[0] != NULL)
        ok &= gemm_add (CblasNoTrans, CblasTrans, g.n, g.k, g.m, gt, g.m, B + ib * g.k * g.m, g.m,
                        g_in[0] + ia * g.n * g.k, g.k);
      /* g_B[tb] += A[ta]^T G[t]: (k x n) (n x m), A[ta] stored n x k. */
      if (g_in[1] != NULL)
        ok &= gemm_add (CblasTrans, CblasNoTrans, g.k, g.m, g.n, A + ia * g.n * g.k, g.k, gt, g.m,
                        g_in[1] + ib * g.k * g.m, g.m);
    }
  if (!ok)
    return cn_error_set (err, CN_EUNSUPPORTED, "matmul: extents too large for BLAS (node '%s')", cn__node_name (nv));
  return CN_OK;
}

static cn_status
matmul_jvp (const cn_node_view *nv, const cn_tensor *const *in, const cn_tensor *out, const double *const *t_in,
            double *t_out, cn_error *err)
{
  CN__ASSERTD (cn__diff_shapes_match (nv, in, out));
  cn_status st;
  struct mm_geom g;
  if ((st = mm_geometry (nv->in_shape[0], nv->in_shape[1], &g, NULL, err)) != CN_OK)
    return st;
  const double *A = in[0]->data, *B = in[1]->data;
  int64_t no = cn_tensor_numel (out);
  for (int64_t q = 0; q < no; q++)
    t_out[q] = 0;
  int ok = 1;
  for (int64_t t = 0; t < g.nb && ok; t++)
    {
      int64_t ia, ib;
      mm_index (&g, t, &ia, &ib);
      double *yt = t_out + t * g.n * g.m;
      /* T_Y[t] += T_A[ta] B[tb]: (n x k) (k x m). */
      if (t_in[0] != NULL)
        ok &= gemm_add (CblasNoTrans, CblasNoTrans, g.n, g.m, g.k, t_in[0] + ia * g.n * g.k, g.k,
                        B + ib * g.k * g.m, g.m, yt, g.m);
      /* T_Y[t] += A[ta] T_B[tb]: (n x k) (k x m). */
      if (t_in[1] != NULL)
        ok &= gemm_add (CblasNoTrans, CblasNoTrans, g.n, g.m, g.k, A + ia * g.n * g.k, g.k,
                        t_in[1] + ib * g.k * g.m, g.m, yt, g.m);
    }
  if (!ok)
    return cn_error_set (err, CN_EUNSUPPORTED, "matmul: extents too large for BLAS (node '%s')", cn__node_name (nv));
  return CN_OK;
}

/* forward_rows for x @ B with B a constant matrix (no batch): every row's A is a stack of
 * numel(A)/k rows of k, so Y for all rows is one GEMM (rows numel(A)/k x k)(k x m) in RN. */
static cn_status
matmul_forward_rows (const cn_node_view *nv, int64_t rows, const double *const *in, double *out, int threads,
                     cn_error *err)
{
  struct mm_geom g;
  cn_status st;
  if ((st = mm_geometry (nv->in_shape[0], nv->in_shape[1], &g, NULL, err)) != CN_OK)
    return st;
  if (nv->in_const[0] != NULL || nv->in_const[1] == NULL || g.nbb != 1 || nv->in_shape[1]->rank > 2)
    return cn_error_set (err, CN_EUNSUPPORTED, "matmul: forward_rows takes x @ W with W a constant matrix");
  int64_t na = cn__numel (nv->in_shape[0]) / (g.k ? g.k : 1);
  if (!gemm_rows (CblasNoTrans, rows * na, g.m, g.k, in[0], g.k, in[1], g.m, 0.0, out, g.m, threads))
    return cn_error_set (err, CN_EUNSUPPORTED, "matmul: extents too large for BLAS");
  return CN_OK;
}

/* The checker's step (cn_proof_step): Y[t] = A[t] B[t] with one constant operand is linear in
 * the other, so with L = lam_out (its batch matrix t):
 *   B constant:  D_A[s, ia, i, k] += sum_j L[s, t, i, j] B[ib, k, j];
 *   A constant:  D_B[s, ib, k, j] += sum_i L[s, t, i, j] A[ia, i, k];
 * both enclosed by interval sums (equality, no relaxation).  Two varying operands: unsupported. */
static cn_status
matmul_proof (const cn_proof_step *st, cn_error *err)
{
  const cn_node_view *nv = st->nv;
  int a_var = st->lam_in[0] != NULL, b_var = st->lam_in[1] != NULL;
  if (a_var && b_var)
    return cn_error_set (err, CN_EUNSUPPORTED, "matmul: the checker needs one constant operand (node '%s')",
                         cn__node_name (nv));
  if (!a_var && !b_var)
    return CN_OK;
  struct mm_geom g;
  cn_status ret = mm_geometry (nv->in_shape[0], nv->in_shape[1], &g, NULL, err);
  if (ret != CN_OK)
    return ret;
  int64_t n_out = cn__numel (nv->out_shape), na = g.nba * g.n * g.k, nb = g.nbb * g.k * g.m;
  for (int64_t s = 0; s < st->rows; s++)
    for (int64_t t = 0; t < g.nb; t++)
      {
        int64_t ia, ib;
        mm_index (&g, t, &ia, &ib);
        mpfi_t *L = st->lam_out + s * n_out + t * g.n * g.m;
        for (int64_t i = 0; i < g.n; i++)
          for (int64_t j = 0; j < g.m; j++)
            {
              mpfi_ptr l = L[i * g.m + j];
              if (mpfi_is_zero (l))
                continue;
              for (int64_t kk = 0; kk < g.k; kk++)
                if (a_var)
                  cn__proof_add_product (st->lam_in[0][s * na + (ia * g.n + i) * g.k + kk], l,
                                         st->in_box[1]->v[(ib * g.k + kk) * g.m + j], st->tmp);
                else
                  cn__proof_add_product (st->lam_in[1][s * nb + (ib * g.k + kk) * g.m + j], l,
                                         st->in_box[0]->v[(ia * g.n + i) * g.k + kk], st->tmp);
            }
      }
  return CN_OK;
}

const struct cn_op_rule cn__rule_MATMUL = { .op = CN_OP_MATMUL,
  .flags = CN_RULE_NEEDS_BOUNDS | CN_RULE_SMOOTH_BOUNDS, .reads_boxes = cn__two_varying,
  .n_in = 2,
  .check = matmul_check,
  .forward = matmul_forward,
  .pullback = matmul_pullback,
  .jvp = matmul_jvp,
  .ibp = matmul_ibp,
  .ibp_mpfi = matmul_ibp_mpfi,
  .crown = matmul_crown,
  .forward_rows = matmul_forward_rows,
  .proof = matmul_proof,
  .roundoff32 = matmul_roundoff32,
  .certs = CN__CERTS (CN__CERT_GRADIENT, CN__CERT_BOUNDS, CN__CERT_CHECKER,
                      CN__CERT_ROUNDOFF32 ("each entry is a sum of k products in any order: (G32), gamma32_k T + 2k "
                                           "eta32 with T the sum of the magnitudes' products over the boxes")),
};

/* ---- scaledMatmul ---------------------------------------------------------------------- */
/* scaledMatmul: Y = scale (A @ B) with matmul's numpy semantics and cn_params_scaled_matmul.scale
 *   finite (the 1/sqrt(d) of attention scores).
 *   Forward  matmul's sums s (same order), then Y = fl(fl_T(scale) s): the scale is read in the
 *            tensor's sort T (rounded to float for f32), one rounded product per entry.
 *   IBP      matmul's sound box [l, u] of A @ B, then scale [l, u] with the ends chosen by the sign of
 *            scale and rounded outward (cn__down/cn__up around the RN product); scale = 0 gives [0, 0]
 *            (the real values are finite), an infinite end times a nonzero scale stays infinite.
 *   MPFI     matmul's enclosure times the point scale (mpfi_mul_d, outward).
 *   CROWN    lam_Y . (scale Y0) = (scale lam_Y) . Y0 with Y0 = A @ B; the arm runs matmul's step
 *            (McCormick's planes for two varying operands) with lam' = fl(scale lam_Y) (its own charges)
 *            and charges the rounding of lam' against matmul's IBP box of Y0 through
 *            cn__crown_charge_entrywise: |scale lam - lam'| <= 2u |lam'| + eta per entry.
 *   Pullback g_A += scale G B^T, g_B += scale A^T G (matmul's pullback of fl(scale G)).
 *   jvp      T_Y = scale (T_A B + A T_B) (matmul's jvp, then each entry times scale). */

static cn_status
smm_check (const struct cn_op_rule *rule, const void *params, int n_in, const cn_shape *const *in, cn_shape *out, cn_error *err)
{
  (void) rule;
  const cn_params_scaled_matmul *p = params;
  if (p == NULL)
    return cn_error_set (err, CN_EINVAL, "scaledMatmul: missing attributes");
  if (!isfinite (p->scale))
    return cn_error_set (err, CN_EINVAL, "scaledMatmul: scale %g is not finite", p->scale);
  if (n_in != 2)
    return cn_error_set (err, CN_EINVAL, "scaledMatmul: %d inputs, expected 2", n_in);
  struct mm_geom g;
  cn_status st = mm_geometry (in[0], in[1], &g, out, err);
  if (st != CN_OK && err != NULL)
    {
      char m[sizeof err->msg];
      snprintf (m, sizeof m, "%s", err->msg);
      cn_error_clear (err);      /* the first message set would win otherwise */
      return cn_error_set (err, st, "scaledMatmul: %s", m);
    }
  return st;
}

static cn_status
smm_forward (const cn_node_view *nv, const cn_tensor *const *in, cn_tensor *out, cn_error *err)
{
  const cn_params_scaled_matmul *p = nv->params;
  CN__ASSERTD (sorts_ok (2, in, out));
  cn_status st;
  struct mm_geom g;
  if ((st = mm_geometry (nv->in_shape[0], nv->in_shape[1], &g, NULL, err)) != CN_OK)
    return st;
  int64_t n = cn__numel (nv->out_shape);
  if (out->dtype == CN_DTYPE_F64)
    {
      MATMUL_FORWARD (double);
      double *y = out->data;
      for (int64_t i = 0; i < n; i++)
        y[i] = p->scale * y[i];
    }
  else
    {
      MATMUL_FORWARD (float);
      float *y = out->data, s = (float) p->scale;
      for (int64_t i = 0; i < n; i++)
        y[i] = s * y[i];
    }
  return CN_OK;
}

static cn_status
smm_ibp (const cn_node_view *nv, const cn_box *const *in, cn_box *out, cn_error *err)
{
  const cn_params_scaled_matmul *p = nv->params;
  cn_status st = matmul_ibp (nv, in, out, err);
  if (st != CN_OK)
    return st;
  /* Now [lo, hi] encloses A @ B; scale it with outward rounding. */
  double s = p->scale;
  for (int64_t i = 0; i < out->n; i++)
    {
      double l = out->lo[i], h = out->hi[i];
      if (s == 0)
        out->lo[i] = out->hi[i] = 0;
      else if (s > 0)
        {
          out->lo[i] = cn__down (s * l);
          out->hi[i] = cn__up (s * h);
        }
      else
        {
          out->lo[i] = cn__down (s * h);
          out->hi[i] = cn__up (s * l);
        }
    }
  return CN_OK;
}

static cn_status
smm_ibp_mpfi (const cn_node_view *nv, const cn_mpfi_vec *const *in, cn_mpfi_vec *out, cn_error *err)
{
  const cn_params_scaled_matmul *p = nv->params;
  cn_status st = matmul_ibp_mpfi (nv, in, out, err);
  if (st != CN_OK)
    return st;
  for (int64_t i = 0; i < out->n; i++)
    mpfi_mul_d (out->v[i], out->v[i], p->scale);
  return CN_OK;
}

static cn_status
smm_crown (const cn_crown_step *st, cn_error *err)
{
  const cn_node_view *nv = st->nv;
  const cn_params_scaled_matmul *p = nv->params;
  if (nv->in_const[0] != NULL && nv->in_const[1] != NULL)
    return cn_error_set (err, CN_EUNSUPPORTED, "scaledMatmul: the CROWN arm needs a varying operand (node '%s')",
                         cn__node_name (nv));
  int64_t n_out = cn__numel (nv->out_shape);
  if (n_out == 0 || st->rows == 0)
    return CN_OK;
  cn_status ret;
  cn_box y0;
  memset (&y0, 0, sizeof y0);
  double *lam = malloc ((size_t) (st->rows * n_out) * sizeof *lam);
  if (lam == NULL)
    {
      ret = cn_error_set (err, CN_ENOMEM, "scaledMatmul: out of memory (node '%s')", cn__node_name (nv));
      goto fail;
    }
  for (int64_t q = 0; q < st->rows * n_out; q++)
    lam[q] = p->scale * st->lam_out[q];
  /* lam = fl(scale lam_out); matmul's step with lam as its output coefficients. */
  cn_crown_step s2 = *st;
  s2.lam_out = lam;
  if ((ret = matmul_crown (&s2, err)) != CN_OK)
    goto fail;
  /* The rounding of lam against a sound box of Y0 = A @ B. */
  if ((ret = cn_box_init (&y0, n_out, err)) != CN_OK)
    goto fail;
  if ((ret = matmul_ibp (nv, st->in_box, &y0, err)) != CN_OK)
    goto fail;
  cn__crown_charge_entrywise (st, lam, n_out, &y0);
  ret = CN_OK;
fail:
  cn_box_clear (&y0);
  free (lam);
  return ret;
}

static cn_status
smm_pullback (const cn_node_view *nv, const cn_tensor *const *in, const cn_tensor *out, const double *g_out,
              double *const *g_in, cn_error *err)
{
  const cn_params_scaled_matmul *p = nv->params;
  int64_t n = cn__numel (nv->out_shape);
  double *g = malloc ((size_t) (n ? n : 1) * sizeof *g);
  if (g == NULL)
    return cn_error_set (err, CN_ENOMEM, "scaledMatmul: out of memory (node '%s')", cn__node_name (nv));
  for (int64_t i = 0; i < n; i++)
    g[i] = p->scale * g_out[i];
  cn_status st = matmul_pullback (nv, in, out, g, g_in, err);
  free (g);
  return st;
}

static cn_status
smm_jvp (const cn_node_view *nv, const cn_tensor *const *in, const cn_tensor *out, const double *const *t_in,
         double *t_out, cn_error *err)
{
  const cn_params_scaled_matmul *p = nv->params;
  cn_status st = matmul_jvp (nv, in, out, t_in, t_out, err);
  if (st != CN_OK)
    return st;
  int64_t n = cn__numel (nv->out_shape);
  for (int64_t i = 0; i < n; i++)
    t_out[i] = p->scale * t_out[i];
  return CN_OK;
}

const struct cn_op_rule cn__rule_SCALED_MATMUL = { .op = CN_OP_SCALED_MATMUL,
  .flags = CN_RULE_NEEDS_BOUNDS | CN_RULE_SMOOTH_BOUNDS, .reads_boxes = cn__two_varying,
  .n_in = 2,
  .check = smm_check,
  .forward = smm_forward,
  .pullback = smm_pullback,
  .jvp = smm_jvp,
  .ibp = smm_ibp,
  .ibp_mpfi = smm_ibp_mpfi,
  .crown = smm_crown,
  .certs = CN__CERTS (CN__CERT_GRADIENT, CN__CERT_BOUNDS),
};
