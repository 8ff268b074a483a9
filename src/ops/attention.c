/* SPDX-License-Identifier: MIT */
/* src/ops/attention.c: attentionFromScores, attention (cn_params_attention) and multiheadAttention
 * (cn_params_multihead).
 *
 * Shapes.  Every operand has a batch prefix [...] (any rank, the same extents in every operand: no
 * broadcasting) followed by two matrix axes; B is the number of batch matrices.
 *   attentionFromScores  scores [..., L, S], v [..., S, E]                       -> [..., L, E]
 *   attention            q [..., L, D], k [..., S, D], v [..., S, E]             -> [..., L, E]
 *   multiheadAttention   query [..., L, M], key [..., S, M], value [..., S, M],
 *                        in_proj_weight [3M, M], in_proj_bias [3M], out_proj_weight [M, M],
 *                        out_proj_bias [M]                                       -> [..., L, M]
 * One head maps Q (L x D), K (S x D), V (S x E) to
 *     Z = c Q K^T,   P_i = softmax over the admitted keys j < n(i) of Z_i (P_ij = 0 for j >= n(i)),
 *     O = P V,
 * with n(i) = S, or with causal = 1, n(i) = clamp(i + S - L + 1, 0, S) (query i attends to the keys
 * j <= i + S - L, aligned at the bottom right).  A row without admitted key (causal, L > S, i < L - S)
 * is all 0: our choice, as maskedSoftmax's for a fully masked row; such rows send no gradient.
 * The scale c is the attribute (finite, > 0) or, for scale = 0, the real number 1/sqrt(D); the
 * attribute record's CAUSAL is 0 or 1.  attentionFromScores is one head with Z = scores given
 * (no scale, no causal mask).  multiheadAttention is torch.nn.MultiheadAttention (batch_first, no
 * dropout, weights not returned) with H = heads, Dh = M / H:
 *     q = query Wq^T + bq,  k = key Wk^T + bk,  v = value Wv^T + bv   (Wq, Wk, Wv the row blocks
 *     [0, M), [M, 2M), [2M, 3M) of in_proj_weight, bq, bk, bv those of in_proj_bias),
 *     head h reads the columns [h Dh, (h + 1) Dh) of q, k, v, with c = 1/sqrt(Dh) and the causal
 *     mask of the attribute, its output O_h fills those columns of U (L x M),
 *     out = U Wout^T + bout.
 * All inputs are value ports (the weights of multiheadAttention included).
 *
 *   Forward  in the tensors' sort T (double or float; fl = one rounding to nearest in T), per batch
 *            matrix (and head) and row i in order: z_j = fl(c_T fl(sum_d q_id k_jd)) for j < n(i), the
 *            dot product accumulated from +0 in increasing d (attentionFromScores: z_j = scores_ij);
 *            p = softmax(z_0..z_{n-1}) by softmax.c's forward (cn__softmax_rows_f64/f32: the max, the
 *            shifted exponentials, y = e / (1 + s')); o_ie = the sum from +0 of fl(p_j v_je) in
 *            increasing j.  c_T is the attribute rounded to T, or fl_T(1 / sqrt(D)) computed in binary64
 *            and rounded to T.  The projections of multiheadAttention in linear's order: for each row r
 *            and output o an accumulator from +0, fl(x_rj W_oj) added in increasing j, the bias last.
 *            Measured error (glibc, x86-64; 10000 random instances, L <= 4, S <= 8, D <= 4, E <= 3,
 *            every input a binary32 number; q, k uniform in [-sqrt R, sqrt R], scores in [-R, R],
 *            v in [-2, 2]; multiheadAttention with H <= 2, Dh <= 3, query, key, value in
 *            [-sqrt R, sqrt R] and weights in [-1, 1]; against MPFR at 300 bits, the exact real
 *            function at the same inputs), the largest seen, f64 / f32, in units of the sort's unit
 *            roundoff u times max_j |v_je| (the weights sum to 1):
 *              attention            R = 2: 2.8 / 2.6     R = 20: 11.6 / 12.7
 *              attentionFromScores  R = 2: 2.9 / 3.2     R = 20: 4.0 / 3.1
 *            and multiheadAttention's absolute error in units of u: 15 / 27 (R = 2), 146 / 443
 *            (R = 20).  As for softmax the error grows with the spread of the scores (the rounding of
 *            the scores and of z_j - max z becomes an error of about |z_j - max z| u in the weights).
 *            In ulps of the result the error is unbounded (o = sum_j p_j v_j cancels): none of the
 *            three is correctly rounded.
 *   IBP      composed from the sound arms of the parts (ALGORITHMS.md 1.4, 1.6), then tightened by the
 *            simplex constraint on the weights:
 *            - scores: the exact q_i . k_j lies in the selection sums of the interval products
 *              (cn__itv_term; (G) from cn__sum_lo, cn__sum_hi, D terms), then times the scale's
 *              interval [c_lo, c_hi] (the attribute, or 1/sqrt(D) rounded down and up by MPFR), the
 *              corner chosen by the sign of the end and rounded outward (cn__down, cn__up);
 *            - weights: softmax's IBP row kernel (cn__softmax_row_ibp, ALGORITHMS.md 1.6) on the
 *              n(i) admitted scores gives [pl_j, ph_j] with 0 <= pl_j, and the exact weights satisfy
 *              sum_j p_j = 1;
 *            - outputs: for every real lambda and every p with sum_j p_j = 1, pl <= p <= ph, and
 *              v_j <= vh_j (p_j >= 0):
 *                  sum_j p_j v_j <= sum_j p_j vh_j = lambda + sum_j p_j (vh_j - lambda)
 *                                <= lambda + sum_j max(pl_j (vh_j - lambda), ph_j (vh_j - lambda)),
 *              valid for ANY lambda (LP duality: the minimum over lambda is the exact maximum of the
 *              linear function over the box-constrained simplex).  lambda is chosen in round to
 *              nearest by the greedy walk that fills the mass 1 - sum pl along decreasing vh (the
 *              threshold where it runs out), which needs no rigour; the bound itself is then summed
 *              soundly: vh_j - lambda enclosed in [down(fl(vh_j - lambda)), up(fl(vh_j - lambda))],
 *              the interval products selected by cn__itv_term, the sum by (G), the addition of lambda
 *              rounded up.  The lower end mirrors it with -vl.  An infinite vh_j gives +inf (loose,
 *              sound); a NaN end anywhere in the input boxes is CN_ENUMERIC.  This box is never wider
 *              than the plain interval product sum_j [pl_j, ph_j] [vl_j, vh_j] (lambda = 0) up to
 *              rounding, and lies within [min vl, max vh] (lambda = max vh).
 *            multiheadAttention: the projections as linear's IBP (selection sums over M products
 *            and the bias, W and b boxes), each head as above with c = 1/sqrt(Dh) enclosed, the output
 *            projection as linear's IBP.
 *   MPFI     the same composition at the output's precision: the scores by MPFI products and sums
 *            (times the enclosure of the scale, 1/sqrt(D) by mpfi_sqrt and a division), the weights by
 *            cn__softmax_row_mpfi, and each output end as the least (greatest) of the dual bounds over
 *            the candidates lambda in {vh_k} (resp. {vl_k}) of the admitted keys, evaluated in MPFI:
 *            the bound is convex and piecewise linear in lambda with its breakpoints there, so its
 *            least value over the candidates, found by bisection (O(log n) evaluations), is the exact
 *            LP optimum up to MPFI's rounding, and the fast box, one of those bounds over a wider
 *            weight box, contains it.  On a point this encloses the exact value:
 *            the weight enclosures are tight and sum to 1, so every candidate bound collapses onto
 *            sum_j p_j v_j.
 *   Pullback (binary64 at the point, the weights P recomputed by the binary64 forward; G the
 *            output's cotangent)  g_V += P^T G;  g_P = G V^T;  g_Z_ij = P_ij (g_P_ij - sum_k g_P_ik P_ik)
 *            over the admitted keys (softmax's pullback); attentionFromScores: g_scores += g_Z;
 *            attention: g_Q += c g_Z K, g_K += c g_Z^T Q (c in binary64: the attribute, or
 *            1/sqrt(D) rounded once).  multiheadAttention: g_U = G Wout, g_Wout += G^T U, g_bout +=
 *            the column sums of G, each head's pullback on g_U's columns into g_q, g_k, g_v, then per
 *            projection x W^T + b: g_x += g_p W, g_W += g_p^T x, g_b += the column sums of g_p.
 *   Jvp      the tangent map, the transpose of the pullback: dZ = c (dQ K^T + Q dK^T) (or the scores'
 *            tangent), dP_ij = P_ij (dZ_ij - sum_k P_ik dZ_ik), dO = dP V + P dV; multiheadAttention
 *            chains the projections' tangents dx W^T + x dW^T + db through the heads and the output
 *            projection.  A missing tangent counts as zero.  The operators are smooth: no one-sided
 *            choice.
 *   CROWN    none (the products of two varying operands and the softmax have no arm here).
 * The three rules share every hook; each rule's impl (struct attn_impl) says which of the three
 * the node is.  The arms trust the shapes and sorts the graph builder checked (debug assertions
 * state them); NaN ends are input, refused as above. */
#include <config.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "ops/ops_impl.h"
#include "ops/attention_impl.h"
#include "sound/sound.h"

/* Which of the three the node is: one head on given scores, one head on q, k, v, or the heads and
 * projections of torch.nn.MultiheadAttention. */
enum attn_kind { AFS, ATT, MHA };

/* The family's data of one operator, its rule's impl: the three rules share every hook. */
struct attn_impl
{
  enum attn_kind kind;
};

/* The geometry of a node: B batch matrices; per head Q is L x D, K is S x D, V is S x E (for
 * multiheadAttention D = E = Dh and M = H Dh); CAUSAL and SCALE as the attributes (AFS: none). */
struct attn_geom
{
  enum attn_kind kind;
  int64_t B, L, S, D, E, M, H;
  int causal;
  double scale;
};

/* The number of keys query row I attends to. */
static inline int64_t
attn_keys (const struct attn_geom *g, int64_t i)
{
  if (!g->causal)
    return g->S;
  int64_t n = i + g->S - g->L + 1;
  return n < 0 ? 0 : n > g->S ? g->S : n;
}

/* ---- check ---------------------------------------------------------------------------- */

/* Checks that A and B have the same rank (>= 2) and batch prefix. */
static cn_status
same_prefix (const char *op, const char *wa, const cn_shape *a, const char *wb, const cn_shape *b, cn_error *err)
{
  char sa[128], sb[128];
  int ok = a->rank == b->rank;
  for (int i = 0; ok && i < a->rank - 2; i++)
    ok = a->dim[i] == b->dim[i];
  if (!ok)
    return cn_error_set (err, CN_ESHAPE, "%s: %s %s and %s %s have different batch prefixes", op, wa,
                         cn_shape_format (a, sa, sizeof sa), wb, cn_shape_format (b, sb, sizeof sb));
  return CN_OK;
}

/* Checks the attributes PARAMS and the input shapes IN of a node of RULE, fills G and writes the
 * output shape to OUT (may be NULL). */
static cn_status
attn_geometry (const struct cn_op_rule *rule, const void *params, int n_in, const cn_shape *const *in,
               struct attn_geom *g, cn_shape *out, cn_error *err)
{
  const char *name = cn_op_name (rule->op);
  char s0[128], s1[128];
  memset (g, 0, sizeof *g);
  g->kind = ((const struct attn_impl *) rule->impl)->kind;
  int want = g->kind == AFS ? 2 : g->kind == ATT ? 3 : 7;
  if (g->kind != AFS && params == NULL)
    return cn_error_set (err, CN_EINVAL, "%s: missing attributes", name);
  if (n_in != want)
    return cn_error_set (err, CN_EINVAL, "%s: %d inputs, expected %d", name, n_in, want);
  for (int i = 0; i < n_in; i++)
    {
      cn_status st = cn__input_valid (name, i, in[i], err);
      if (st != CN_OK)
        return st;
    }
  int nm = g->kind == AFS ? 2 : 3;       /* the batched operands */
  for (int i = 0; i < nm; i++)
    if (in[i]->rank < 2)
      return cn_error_set (err, CN_ESHAPE, "%s: input %d %s has rank %d, expected at least 2", name, i,
                           cn_shape_format (in[i], s0, sizeof s0), in[i]->rank);
  static const char *const what[3][3] = { { "scores", "v", "" }, { "q", "k", "v" }, { "query", "key", "value" } };
  for (int i = 1; i < nm; i++)
    {
      cn_status st = same_prefix (name, what[g->kind][0], in[0], what[g->kind][i], in[i], err);
      if (st != CN_OK)
        return st;
    }
  int r = in[0]->rank;
  g->B = 1;
  for (int i = 0; i < r - 2; i++)
    g->B *= in[0]->dim[i];              /* no overflow: numel(in[0]) fits, or an extent is 0 */
  g->L = in[0]->dim[r - 2];
  if (g->kind == AFS)
    {
      g->S = in[0]->dim[r - 1];
      g->E = in[1]->dim[r - 1];
      if (in[1]->dim[r - 2] != g->S)
        return cn_error_set (err, CN_ESHAPE, "%s: scores %s have %lld keys, v %s %lld", name,
                             cn_shape_format (in[0], s0, sizeof s0), (long long) g->S,
                             cn_shape_format (in[1], s1, sizeof s1), (long long) in[1]->dim[r - 2]);
    }
  else if (g->kind == ATT)
    {
      const cn_params_attention *p = params;
      g->D = in[0]->dim[r - 1];
      g->S = in[1]->dim[r - 2];
      g->E = in[2]->dim[r - 1];
      if (in[1]->dim[r - 1] != g->D)
        return cn_error_set (err, CN_ESHAPE, "%s: q %s and k %s: feature extents %lld and %lld differ", name,
                             cn_shape_format (in[0], s0, sizeof s0), cn_shape_format (in[1], s1, sizeof s1),
                             (long long) g->D, (long long) in[1]->dim[r - 1]);
      if (in[2]->dim[r - 2] != g->S)
        return cn_error_set (err, CN_ESHAPE, "%s: k has %lld keys, v %lld", name, (long long) g->S,
                             (long long) in[2]->dim[r - 2]);
      if (!(isfinite (p->scale) && p->scale >= 0))
        return cn_error_set (err, CN_EINVAL, "%s: scale %g, expected finite and > 0 (or 0 for 1/sqrt(D))", name,
                             p->scale);
      if (p->scale == 0 && g->D < 1)
        return cn_error_set (err, CN_EINVAL, "%s: scale 1/sqrt(D) with feature extent D = 0", name);
      if (p->causal != 0 && p->causal != 1)
        return cn_error_set (err, CN_EINVAL, "%s: causal %d, expected 0 or 1", name, p->causal);
      g->causal = p->causal;
      g->scale = p->scale;
    }
  else
    {
      const cn_params_multihead *p = params;
      g->M = in[0]->dim[r - 1];
      g->S = in[1]->dim[r - 2];
      g->H = p->heads;
      if (p->heads < 1)
        return cn_error_set (err, CN_EINVAL, "%s: %d heads, expected at least 1", name, p->heads);
      if (p->causal != 0 && p->causal != 1)
        return cn_error_set (err, CN_EINVAL, "%s: causal %d, expected 0 or 1", name, p->causal);
      if (g->M < 1 || g->M % g->H != 0)
        return cn_error_set (err, CN_ESHAPE, "%s: embedding extent %lld is not a positive multiple of %d heads", name,
                             (long long) g->M, p->heads);
      for (int i = 1; i < 3; i++)
        if (in[i]->dim[r - 1] != g->M)
          return cn_error_set (err, CN_ESHAPE, "%s: %s %s has embedding extent %lld, query %lld", name, what[2][i],
                               cn_shape_format (in[i], s0, sizeof s0), (long long) in[i]->dim[r - 1],
                               (long long) g->M);
      if (in[2]->dim[r - 2] != g->S)
        return cn_error_set (err, CN_ESHAPE, "%s: key has %lld keys, value %lld", name, (long long) g->S,
                             (long long) in[2]->dim[r - 2]);
      int64_t M3;
      if (__builtin_mul_overflow (g->M, 3, &M3))
        return cn_error_set (err, CN_ESHAPE, "%s: element counts overflow", name);
      const int64_t want_dim[4][2] = { { M3, g->M }, { M3, 0 }, { g->M, g->M }, { g->M, 0 } };
      static const char *const wname[4] = { "in_proj_weight", "in_proj_bias", "out_proj_weight", "out_proj_bias" };
      for (int i = 0; i < 4; i++)
        {
          const cn_shape *w = in[3 + i];
          int rk = want_dim[i][1] ? 2 : 1;
          if (w->rank != rk || w->dim[0] != want_dim[i][0] || (rk == 2 && w->dim[1] != want_dim[i][1]))
            return cn_error_set (err, CN_ESHAPE, "%s: %s has shape %s, expected [%lld%s%lld]", name, wname[i],
                                 cn_shape_format (w, s0, sizeof s0), (long long) want_dim[i][0], rk == 2 ? ", " : "",
                                 rk == 2 ? (long long) want_dim[i][1] : 0LL);
        }
      g->D = g->E = g->M / g->H;
      g->causal = p->causal;
      g->scale = 0;
    }
  cn_shape o = *in[0];
  o.dim[r - 1] = g->kind == MHA ? g->M : g->E;
  int64_t zs;
  if (cn_shape_numel (&o) < 0 || __builtin_mul_overflow (g->L, g->S, &zs))
    return cn_error_set (err, CN_ESHAPE, "%s: element counts overflow", name);
  if (out != NULL)
    *out = o;
  return CN_OK;
}

static cn_status
attn_check (const struct cn_op_rule *rule, const void *params, int n_in, const cn_shape *const *in, cn_shape *out,
            cn_error *err)
{
  struct attn_geom g;
  return attn_geometry (rule, params, n_in, in, &g, out, err);
}

static cn_status
attn_prepare (const cn_node_view *nv, struct attn_geom *g, cn_error *err)
{
  return attn_geometry (nv->rule, nv->params, nv->n_in, nv->in_shape, g, NULL, err);
}

/* The scale in binary64: the attribute, or 1/sqrt(D) rounded (the forward's and the derivatives'
 * value; IBP and MPFI enclose the real number instead). */
static double
attn_scale_d (const struct attn_geom *g)
{
  return g->scale > 0 ? g->scale : 1.0 / sqrt ((double) g->D);
}

/* ---- forward -------------------------------------------------------------------------- */

/* One head in the sort T (see the header): Q (L x D, row stride qs), K (S x D, ks), V (S x E, vs),
 * or the scores ZIN (L x S) instead of Q and K; O (L x E, os); Z and P scratch of L x S; P keeps
 * the weights (0 past n(i)). */
#define ATTN_FORWARD_FNS(SUF, T, SOFTMAX_ROWS)                                                     \
  static void attn_core_##SUF (const struct attn_geom *g, const T *Q, int64_t qs, const T *K,      \
                               int64_t ks, const T *V, int64_t vs, const T *Zin, T c, T *O,        \
                               int64_t os, T *Z, T *P)                                             \
  {                                                                                                \
    for (int64_t i = 0; i < g->L; i++)                                                             \
      {                                                                                            \
        int64_t n = attn_keys (g, i);                                                              \
        T *z = Z + i * g->S, *p = P + i * g->S;                                                    \
        for (int64_t j = 0; j < n; j++)                                                            \
          if (Zin != NULL)                                                                         \
            z[j] = Zin[i * g->S + j];                                                              \
          else                                                                                     \
            {                                                                                      \
              T acc = 0;                                                                           \
              for (int64_t d = 0; d < g->D; d++)                                                   \
                acc += Q[i * qs + d] * K[j * ks + d];                                              \
              z[j] = c * acc;                                                                      \
            }                                                                                      \
        if (n > 0)                                                                                 \
          SOFTMAX_ROWS (1, n, z, p);                                                               \
        for (int64_t j = n; j < g->S; j++)                                                         \
          p[j] = 0;                                                                                \
        for (int64_t e = 0; e < g->E; e++)                                                         \
          {                                                                                        \
            T acc = 0;                                                                             \
            for (int64_t j = 0; j < n; j++)                                                        \
              acc += p[j] * V[j * vs + e];                                                         \
            O[i * os + e] = acc;                                                                   \
          }                                                                                        \
      }                                                                                            \
  }                                                                                                \
  /* y (R x NO) = x (R x NI) W^T + b, W the NO x NI block at W, linear's order. */                \
  static void attn_linear_##SUF (int64_t R, int64_t NI, int64_t NO, const T *x, const T *W,       \
                                 const T *b, T *y)                                                 \
  {                                                                                                \
    for (int64_t r = 0; r < R; r++)                                                                \
      for (int64_t o = 0; o < NO; o++)                                                             \
        {                                                                                          \
          T acc = 0;                                                                               \
          for (int64_t j = 0; j < NI; j++)                                                         \
            acc += x[r * NI + j] * W[o * NI + j];                                                  \
          y[r * NO + o] = acc + b[o];                                                              \
        }                                                                                          \
  }                                                                                                \
  /* The whole node in T; BUF holds 2 L S + (MHA) 4 B L M + 2 B S M elements of T. */            \
  static void attn_run_##SUF (const struct attn_geom *g, const void *const *inp, T *y, T *buf)    \
  {                                                                                                \
    const T *const *in = (const T *const *) inp;                                                   \
    T *Z = buf, *P = buf + g->L * g->S;                                                            \
    if (g->kind != MHA)                                                                            \
      {                                                                                            \
        T c = (T) attn_scale_d (g);                                                                \
        for (int64_t b = 0; b < g->B; b++)                                                         \
          {                                                                                        \
            if (g->kind == AFS)                                                                    \
              attn_core_##SUF (g, NULL, 0, NULL, 0, in[1] + b * g->S * g->E, g->E,                 \
                               in[0] + b * g->L * g->S, 1, y + b * g->L * g->E, g->E, Z, P);       \
            else                                                                                   \
              attn_core_##SUF (g, in[0] + b * g->L * g->D, g->D, in[1] + b * g->S * g->D, g->D,   \
                               in[2] + b * g->S * g->E, g->E, NULL, c, y + b * g->L * g->E, g->E,  \
                               Z, P);                                                              \
          }                                                                                        \
        return;                                                                                    \
      }                                                                                            \
    int64_t M = g->M, RL = g->B * g->L, RS = g->B * g->S;                                          \
    T *q = P + g->L * g->S, *u = q + RL * M, *k = u + RL * M, *v = k + RS * M;                     \
    const T *W = in[3], *bi = in[4];                                                               \
    attn_linear_##SUF (RL, M, M, in[0], W, bi, q);                                                 \
    attn_linear_##SUF (RS, M, M, in[1], W + M * M, bi + M, k);                                     \
    attn_linear_##SUF (RS, M, M, in[2], W + 2 * M * M, bi + 2 * M, v);                             \
    T c = (T) attn_scale_d (g);                                                                    \
    for (int64_t b = 0; b < g->B; b++)                                                             \
      for (int64_t h = 0; h < g->H; h++)                                                           \
        {                                                                                          \
          int64_t col = h * g->D;                                                                  \
          attn_core_##SUF (g, q + b * g->L * M + col, M, k + b * g->S * M + col, M,                \
                           v + b * g->S * M + col, M, NULL, c, u + b * g->L * M + col, M, Z, P);   \
        }                                                                                          \
    attn_linear_##SUF (RL, M, M, u, in[5], in[6], y);                                              \
  }

ATTN_FORWARD_FNS (f64, double, cn__softmax_rows_f64)
ATTN_FORWARD_FNS (f32, float, cn__softmax_rows_f32)

/* Elements of the forward's scratch buffer. */
static int64_t
attn_buf_size (const struct attn_geom *g)
{
  int64_t n = 2 * g->L * g->S;
  if (g->kind == MHA)
    n += (2 * g->B * g->L + 2 * g->B * g->S) * g->M;
  return n > 0 ? n : 1;
}

static cn_status
attn_forward (const cn_node_view *nv, const cn_tensor *const *in, cn_tensor *out, cn_error *err)
{
  const char *op = cn_op_name (nv->op);
  CN__ASSERTD (cn_dtype_is_float (out->dtype));
  for (int i = 0; i < nv->n_in; i++)
    CN__ASSERTD (in[i]->dtype == out->dtype);
  struct attn_geom g;
  cn_status st = attn_prepare (nv, &g, err);
  if (st != CN_OK)
    return st;
  const void *ptr[7];
  for (int i = 0; i < nv->n_in; i++)
    ptr[i] = in[i]->data;
  void *buf = malloc ((size_t) attn_buf_size (&g) * cn_dtype_size (out->dtype));
  if (buf == NULL)
    return cn_error_set (err, CN_ENOMEM, "%s: out of memory (node '%s')", op, cn__node_name (nv));
  if (out->dtype == CN_DTYPE_F64)
    attn_run_f64 (&g, ptr, out->data, buf);
  else
    attn_run_f32 (&g, ptr, out->data, buf);
  free (buf);
  return CN_OK;
}

/* ---- pullback and jvp ------------------------------------------------------------------- */

/* Reverse mode of one head at the point: P (L x S, the forward's weights), GO (L x E, stride os)
 * the cotangent of O; adds into GQ, GK, GV (strided; NULL: not wanted) and GZ (L x S, the scores'
 * cotangent; NULL: not wanted).  GP is scratch of S. */
static void
attn_core_pull (const struct attn_geom *g, const double *Q, int64_t qs, const double *K, int64_t ks, const double *V,
                int64_t vs, double c, const double *P, const double *GO, int64_t os, double *GQ, int64_t gqs,
                double *GK, int64_t gks, double *GV, int64_t gvs, double *GZ, double *gp)
{
  for (int64_t i = 0; i < g->L; i++)
    {
      int64_t n = attn_keys (g, i);
      const double *p = P + i * g->S, *go = GO + i * os;
      /* g_P_ij = sum_e G_ie V_je; g_V_je += P_ij G_ie */
      for (int64_t j = 0; j < n; j++)
        {
          double acc = 0;
          for (int64_t e = 0; e < g->E; e++)
            acc += go[e] * V[j * vs + e];
          gp[j] = acc;
          if (GV != NULL)
            for (int64_t e = 0; e < g->E; e++)
              GV[j * gvs + e] += p[j] * go[e];
        }
      double s = 0;
      for (int64_t j = 0; j < n; j++)
        s += gp[j] * p[j];
      /* g_Z_ij = P_ij (g_P_ij - s), then through Z = c Q K^T */
      for (int64_t j = 0; j < n; j++)
        {
          double gz = p[j] * (gp[j] - s);
          if (GZ != NULL)
            GZ[i * g->S + j] += gz;
          double cz = c * gz;
          if (GQ != NULL)
            for (int64_t d = 0; d < g->D; d++)
              GQ[i * gqs + d] += cz * K[j * ks + d];
          if (GK != NULL)
            for (int64_t d = 0; d < g->D; d++)
              GK[j * gks + d] += cz * Q[i * qs + d];
        }
    }
}

/* Forward mode of one head at the point: TO (L x E, stride tos) from the tangents TQ, TK, TV
 * (strided; NULL: zero) or TZ (the scores' tangent, L x S; NULL: zero).  DZ is scratch of S. */
static void
attn_core_jvp (const struct attn_geom *g, const double *Q, int64_t qs, const double *K, int64_t ks, const double *V,
               int64_t vs, double c, const double *P, const double *TQ, int64_t tqs, const double *TK, int64_t tks,
               const double *TV, int64_t tvs, const double *TZ, double *TO, int64_t tos, double *dz)
{
  for (int64_t i = 0; i < g->L; i++)
    {
      int64_t n = attn_keys (g, i);
      const double *p = P + i * g->S;
      for (int64_t j = 0; j < n; j++)
        {
          double t = TZ != NULL ? TZ[i * g->S + j] : 0;
          if (TQ != NULL || TK != NULL)
            {
              double acc = 0;
              for (int64_t d = 0; d < g->D; d++)
                {
                  if (TQ != NULL)
                    acc += TQ[i * tqs + d] * K[j * ks + d];
                  if (TK != NULL)
                    acc += Q[i * qs + d] * TK[j * tks + d];
                }
              t += c * acc;
            }
          dz[j] = t;
        }
      double s = 0;
      for (int64_t j = 0; j < n; j++)
        s += p[j] * dz[j];
      /* dP_ij = P_ij (dZ_ij - s); dO = dP V + P dV */
      for (int64_t e = 0; e < g->E; e++)
        {
          double acc = 0;
          for (int64_t j = 0; j < n; j++)
            {
              acc += p[j] * (dz[j] - s) * V[j * vs + e];
              if (TV != NULL)
                acc += p[j] * TV[j * tvs + e];
            }
          TO[i * tos + e] = acc;
        }
    }
}

/* y (R x NO) += x (R x NI) W^T, W the NO x NI block at W (binary64). */
static void
lin_add (int64_t R, int64_t NI, int64_t NO, const double *x, const double *W, double *y)
{
  for (int64_t r = 0; r < R; r++)
    for (int64_t o = 0; o < NO; o++)
      {
        double acc = 0;
        for (int64_t j = 0; j < NI; j++)
          acc += x[r * NI + j] * W[o * NI + j];
        y[r * NO + o] += acc;
      }
}

/* The reverse step of y = x W^T + b (R rows, NI -> NO) for the cotangent GY: g_x += GY W,
 * g_W += GY^T x, g_b += the column sums of GY (each NULL when not wanted). */
static void
lin_pull (int64_t R, int64_t NI, int64_t NO, const double *x, const double *W, const double *gy, double *gx,
          double *gW, double *gb)
{
  for (int64_t r = 0; r < R; r++)
    for (int64_t o = 0; o < NO; o++)
      {
        double t = gy[r * NO + o];
        if (gx != NULL)
          for (int64_t j = 0; j < NI; j++)
            gx[r * NI + j] += t * W[o * NI + j];
        if (gW != NULL)
          for (int64_t j = 0; j < NI; j++)
            gW[o * NI + j] += t * x[r * NI + j];
        if (gb != NULL)
          gb[o] += t;
      }
}

/* The binary64 point of a derivative arm: the weights P of every batch matrix and head (B H x L x S),
 * and for multiheadAttention the projections q, k, v and the heads' outputs U, recomputed by the
 * binary64 forward. */
struct attn_point
{
  double *P, *q, *k, *v, *u, *scratch;
};

static void
attn_point_free (struct attn_point *pt)
{
  free (pt->P), free (pt->q), free (pt->k), free (pt->v), free (pt->u), free (pt->scratch);
}

static cn_status
attn_point (const cn_node_view *nv, const struct attn_geom *g, const cn_tensor *const *in, struct attn_point *pt,
            cn_error *err)
{
  const char *op = cn_op_name (nv->op);
  memset (pt, 0, sizeof *pt);
  for (int i = 0; i < nv->n_in; i++)
    CN__ASSERTD (in[i]->dtype == CN_DTYPE_F64 && cn_tensor_numel (in[i]) == cn__numel (nv->in_shape[i]));
  int64_t H = g->kind == MHA ? g->H : 1, LS = g->L * g->S, M = g->M;
  int64_t RL = g->B * g->L, RS = g->B * g->S, ow = g->kind == MHA ? g->D : g->E;
  pt->P = malloc ((size_t) (g->B * H * LS > 0 ? g->B * H * LS : 1) * sizeof (double));
  pt->scratch = malloc ((size_t) (LS + g->L * ow + g->S + 1) * sizeof (double));
  if (g->kind == MHA)
    {
      pt->q = malloc ((size_t) (RL * M > 0 ? RL * M : 1) * sizeof (double));
      pt->u = malloc ((size_t) (RL * M > 0 ? RL * M : 1) * sizeof (double));
      pt->k = malloc ((size_t) (RS * M > 0 ? RS * M : 1) * sizeof (double));
      pt->v = malloc ((size_t) (RS * M > 0 ? RS * M : 1) * sizeof (double));
    }
  if (pt->P == NULL || pt->scratch == NULL
      || (g->kind == MHA && (pt->q == NULL || pt->u == NULL || pt->k == NULL || pt->v == NULL)))
    {
      attn_point_free (pt);
      return cn_error_set (err, CN_ENOMEM, "%s: out of memory (node '%s')", op, cn__node_name (nv));
    }
  const double *x[7];
  for (int i = 0; i < nv->n_in; i++)
    x[i] = in[i]->data;
  double c = attn_scale_d (g), *Z = pt->scratch;
  if (g->kind != MHA)
    {
      /* the output goes to scratch: only P is kept */
      double *O = Z + LS;
      for (int64_t b = 0; b < g->B; b++)
        if (g->kind == AFS)
          attn_core_f64 (g, NULL, 0, NULL, 0, x[1] + b * g->S * g->E, g->E, x[0] + b * LS, 1, O, g->E, Z,
                         pt->P + b * LS);
        else
          attn_core_f64 (g, x[0] + b * g->L * g->D, g->D, x[1] + b * g->S * g->D, g->D, x[2] + b * g->S * g->E, g->E,
                         NULL, c, O, g->E, Z, pt->P + b * LS);
      return CN_OK;
    }
  attn_linear_f64 (RL, M, M, x[0], x[3], x[4], pt->q);
  attn_linear_f64 (RS, M, M, x[1], x[3] + M * M, x[4] + M, pt->k);
  attn_linear_f64 (RS, M, M, x[2], x[3] + 2 * M * M, x[4] + 2 * M, pt->v);
  for (int64_t b = 0; b < g->B; b++)
    for (int64_t h = 0; h < H; h++)
      {
        int64_t col = h * g->D;
        attn_core_f64 (g, pt->q + b * g->L * M + col, M, pt->k + b * g->S * M + col, M, pt->v + b * g->S * M + col, M,
                       NULL, c, pt->u + b * g->L * M + col, M, Z, pt->P + (b * H + h) * LS);
      }
  return CN_OK;
}

static cn_status
attn_pullback (const cn_node_view *nv, const cn_tensor *const *in, const cn_tensor *out, const double *g_out,
               double *const *g_in, cn_error *err)
{
  CN__ASSERTD (out->dtype == CN_DTYPE_F64 && cn_tensor_numel (out) == cn__numel (nv->out_shape));
  cn_status st;
  int any = 0;
  for (int i = 0; i < nv->n_in; i++)
    any |= g_in[i] != NULL;
  if (!any)
    return CN_OK;
  struct attn_geom g;
  if ((st = attn_prepare (nv, &g, err)) != CN_OK)
    return st;
  struct attn_point pt;
  if ((st = attn_point (nv, &g, in, &pt, err)) != CN_OK)
    return st;
  const double *x[7];
  for (int i = 0; i < nv->n_in; i++)
    x[i] = in[i]->data;
  double c = attn_scale_d (&g), *gp = pt.scratch;
  int64_t LS = g.L * g.S;
  if (g.kind == AFS)
    {
      for (int64_t b = 0; b < g.B; b++)
        attn_core_pull (&g, NULL, 0, NULL, 0, x[1] + b * g.S * g.E, g.E, 1, pt.P + b * LS, g_out + b * g.L * g.E, g.E,
                        NULL, 0, NULL, 0, g_in[1] ? g_in[1] + b * g.S * g.E : NULL, g.E,
                        g_in[0] ? g_in[0] + b * LS : NULL, gp);
      attn_point_free (&pt);
      return CN_OK;
    }
  if (g.kind == ATT)
    {
      for (int64_t b = 0; b < g.B; b++)
        attn_core_pull (&g, x[0] + b * g.L * g.D, g.D, x[1] + b * g.S * g.D, g.D, x[2] + b * g.S * g.E, g.E, c,
                        pt.P + b * LS, g_out + b * g.L * g.E, g.E, g_in[0] ? g_in[0] + b * g.L * g.D : NULL, g.D,
                        g_in[1] ? g_in[1] + b * g.S * g.D : NULL, g.D, g_in[2] ? g_in[2] + b * g.S * g.E : NULL, g.E,
                        NULL, gp);
      attn_point_free (&pt);
      return CN_OK;
    }
  /* multiheadAttention: back through the output projection into g_U, the heads into g_q, g_k,
   * g_v, then the input projections. */
  int64_t M = g.M, RL = g.B * g.L, RS = g.B * g.S;
  double *gu = calloc ((size_t) (RL * M > 0 ? RL * M : 1), sizeof *gu);
  double *gq = calloc ((size_t) (RL * M > 0 ? RL * M : 1), sizeof *gq);
  double *gk = calloc ((size_t) (RS * M > 0 ? RS * M : 1), sizeof *gk);
  double *gv = calloc ((size_t) (RS * M > 0 ? RS * M : 1), sizeof *gv);
  if (gu == NULL || gq == NULL || gk == NULL || gv == NULL)
    {
      free (gu), free (gq), free (gk), free (gv);
      attn_point_free (&pt);
      return cn_error_set (err, CN_ENOMEM, "%s: out of memory (node '%s')", cn_op_name (nv->op), cn__node_name (nv));
    }
  lin_pull (RL, M, M, pt.u, x[5], g_out, gu, g_in[5], g_in[6]);
  for (int64_t b = 0; b < g.B; b++)
    for (int64_t h = 0; h < g.H; h++)
      {
        int64_t col = h * g.D, qo = b * g.L * M + col, ko = b * g.S * M + col;
        attn_core_pull (&g, pt.q + qo, M, pt.k + ko, M, pt.v + ko, M, c, pt.P + (b * g.H + h) * LS, gu + qo, M, gq + qo,
                        M, gk + ko, M, gv + ko, M, NULL, gp);
      }
  double *gW = g_in[3], *gb = g_in[4];
  lin_pull (RL, M, M, x[0], x[3], gq, g_in[0], gW, gb);
  lin_pull (RS, M, M, x[1], x[3] + M * M, gk, g_in[1], gW ? gW + M * M : NULL, gb ? gb + M : NULL);
  lin_pull (RS, M, M, x[2], x[3] + 2 * M * M, gv, g_in[2], gW ? gW + 2 * M * M : NULL, gb ? gb + 2 * M : NULL);
  free (gu), free (gq), free (gk), free (gv);
  attn_point_free (&pt);
  return CN_OK;
}

/* t_y (R x NO) = t_x W^T + x t_W^T + t_b, each missing tangent zero (binary64). */
static void
lin_jvp (int64_t R, int64_t NI, int64_t NO, const double *x, const double *W, const double *tx, const double *tW,
         const double *tb, double *ty)
{
  for (int64_t q = 0; q < R * NO; q++)
    ty[q] = 0;
  if (tx != NULL)
    lin_add (R, NI, NO, tx, W, ty);
  if (tW != NULL)
    lin_add (R, NI, NO, x, tW, ty);
  if (tb != NULL)
    for (int64_t r = 0; r < R; r++)
      for (int64_t o = 0; o < NO; o++)
        ty[r * NO + o] += tb[o];
}

static cn_status
attn_jvp (const cn_node_view *nv, const cn_tensor *const *in, const cn_tensor *out, const double *const *t_in,
          double *t_out, cn_error *err)
{
  CN__ASSERTD (out->dtype == CN_DTYPE_F64 && cn_tensor_numel (out) == cn__numel (nv->out_shape));
  cn_status st;
  struct attn_geom g;
  if ((st = attn_prepare (nv, &g, err)) != CN_OK)
    return st;
  struct attn_point pt;
  if ((st = attn_point (nv, &g, in, &pt, err)) != CN_OK)
    return st;
  const double *x[7];
  for (int i = 0; i < nv->n_in; i++)
    x[i] = in[i]->data;
  double c = attn_scale_d (&g), *dz = pt.scratch;
  int64_t LS = g.L * g.S;
  if (g.kind == AFS)
    {
      for (int64_t b = 0; b < g.B; b++)
        attn_core_jvp (&g, NULL, 0, NULL, 0, x[1] + b * g.S * g.E, g.E, 1, pt.P + b * LS, NULL, 0, NULL, 0,
                       t_in[1] ? t_in[1] + b * g.S * g.E : NULL, g.E, t_in[0] ? t_in[0] + b * LS : NULL,
                       t_out + b * g.L * g.E, g.E, dz);
      attn_point_free (&pt);
      return CN_OK;
    }
  if (g.kind == ATT)
    {
      for (int64_t b = 0; b < g.B; b++)
        attn_core_jvp (&g, x[0] + b * g.L * g.D, g.D, x[1] + b * g.S * g.D, g.D, x[2] + b * g.S * g.E, g.E, c,
                       pt.P + b * LS, t_in[0] ? t_in[0] + b * g.L * g.D : NULL, g.D,
                       t_in[1] ? t_in[1] + b * g.S * g.D : NULL, g.D, t_in[2] ? t_in[2] + b * g.S * g.E : NULL, g.E,
                       NULL, t_out + b * g.L * g.E, g.E, dz);
      attn_point_free (&pt);
      return CN_OK;
    }
  int64_t M = g.M, RL = g.B * g.L, RS = g.B * g.S;
  double *tq = malloc ((size_t) (RL * M > 0 ? RL * M : 1) * sizeof *tq);
  double *tu = malloc ((size_t) (RL * M > 0 ? RL * M : 1) * sizeof *tu);
  double *tk = malloc ((size_t) (RS * M > 0 ? RS * M : 1) * sizeof *tk);
  double *tv = malloc ((size_t) (RS * M > 0 ? RS * M : 1) * sizeof *tv);
  if (tq == NULL || tu == NULL || tk == NULL || tv == NULL)
    {
      free (tq), free (tu), free (tk), free (tv);
      attn_point_free (&pt);
      return cn_error_set (err, CN_ENOMEM, "%s: out of memory (node '%s')", cn_op_name (nv->op), cn__node_name (nv));
    }
  const double *tW = t_in[3], *tb = t_in[4];
  lin_jvp (RL, M, M, x[0], x[3], t_in[0], tW, tb, tq);
  lin_jvp (RS, M, M, x[1], x[3] + M * M, t_in[1], tW ? tW + M * M : NULL, tb ? tb + M : NULL, tk);
  lin_jvp (RS, M, M, x[2], x[3] + 2 * M * M, t_in[2], tW ? tW + 2 * M * M : NULL, tb ? tb + 2 * M : NULL, tv);
  for (int64_t b = 0; b < g.B; b++)
    for (int64_t h = 0; h < g.H; h++)
      {
        int64_t col = h * g.D, qo = b * g.L * M + col, ko = b * g.S * M + col;
        attn_core_jvp (&g, pt.q + qo, M, pt.k + ko, M, pt.v + ko, M, c, pt.P + (b * g.H + h) * LS, tq + qo, M, tk + ko,
                       M, tv + ko, M, NULL, tu + qo, M, dz);
      }
  lin_jvp (RL, M, M, pt.u, x[5], tu, t_in[5], t_in[6], t_out);
  free (tq), free (tu), free (tk), free (tv);
  attn_point_free (&pt);
  return CN_OK;
}

/* ---- IBP ------------------------------------------------------------------------------ */

/* A box viewed as a matrix with row stride RS. */
struct bview
{
  const double *lo, *hi;
  int64_t rs;
};

static struct bview
bv_at (const cn_box *b, int64_t off, int64_t rs)
{
  struct bview v = { b->lo + off, b->hi + off, rs };
  return v;
}

/* Work space of the IBP of one head. */
struct attn_ibp_work
{
  cn__sm_ibp_work sm;
  double *zl, *zh, *pl, *ph;          /* S each: one row */
  int64_t *ordu, *ordl;               /* E x S: the keys by decreasing vh, by increasing vl */
  struct key_val *kv;                 /* S */
};

struct key_val
{
  double v;
  int64_t j;
};

static int
kv_desc (const void *a, const void *b)
{
  double x = ((const struct key_val *) a)->v, y = ((const struct key_val *) b)->v;
  return x > y ? -1 : x < y ? 1 : 0;
}

static int
attn_ibp_work_init (struct attn_ibp_work *w, const struct attn_geom *g)
{
  size_t S = (size_t) (g->S > 0 ? g->S : 1), ES = (size_t) (g->E * g->S > 0 ? g->E * g->S : 1);
  memset (w, 0, sizeof *w);
  if (!cn__sm_ibp_work_init (&w->sm, g->S))
    return 0;
  w->zl = malloc (S * sizeof (double));
  w->zh = malloc (S * sizeof (double));
  w->pl = malloc (S * sizeof (double));
  w->ph = malloc (S * sizeof (double));
  w->ordu = malloc (ES * sizeof (int64_t));
  w->ordl = malloc (ES * sizeof (int64_t));
  w->kv = malloc (S * sizeof (struct key_val));
  return w->zl && w->zh && w->pl && w->ph && w->ordu && w->ordl && w->kv;
}

static void
attn_ibp_work_clear (struct attn_ibp_work *w)
{
  free (w->zl), free (w->zh), free (w->pl), free (w->ph), free (w->ordu), free (w->ordl), free (w->kv);
  if (w->sm.tu != NULL || w->sm.pu != NULL)
    cn__sm_ibp_work_clear (&w->sm);
}

/* An upper bound of sum_{j < n} p_j (sgn c_j) over every p with sum_j p_j = 1 and
 * pl_j <= p_j <= ph_j (pl_j >= 0): lambda + sum_j max(pl_j (sgn c_j - lambda), ph_j (sgn c_j - lambda))
 * (see the header), lambda from the greedy walk along ORD (the keys 0..S-1 by decreasing sgn c_j,
 * those >= n skipped); +inf if some sgn c_j (j < n) is not finite.  C has stride CS. */
static double
wsum_up (int64_t n, const double *pl, const double *ph, const double *c, int64_t cs, double sgn, const int64_t *ord,
         int64_t S)
{
  for (int64_t j = 0; j < n; j++)
    if (!isfinite (c[j * cs]))
      return INFINITY;
  /* lambda: the value where the mass left after the lower ends runs out (any lambda is sound) */
  double r = 1, lam = 0;
  for (int64_t j = 0; j < n; j++)
    r -= pl[j];
  for (int64_t q = 0; q < S; q++)
    {
      int64_t j = ord[q];
      if (j >= n)
        continue;
      lam = sgn * c[j * cs];
      double cap = ph[j] - pl[j];
      if (cap >= r)
        break;
      r -= cap;
    }
  /* now the dual bound at lambda, soundly: sgn c_j - lambda lies in [down(d), up(d)] with
   * d = fl(sgn c_j - lambda); the selection sum of the interval products [pl, ph] [down d, up d]
   * is bounded by (G), and adding lambda rounded up. */
  double sl = 0, tl = 0, sh = 0, th = 0;
  for (int64_t j = 0; j < n; j++)
    {
      double d = sgn * c[j * cs] - lam;
      cn__itv_term (pl[j], ph[j], cn__down (d), cn__up (d), &sl, &tl, &sh, &th);
    }
  double u = cn__up (lam + cn__sum_hi (sh, th, n > 0 ? n : 1));
  return isnan (u) ? INFINITY : u;
}

/* IBP of one head: Q, K (or the scores Z) and V boxes, the scale's enclosure [c_lo, c_hi] (> 0),
 * into the output box O (L x E). */
static void
attn_core_ibp (const struct attn_geom *g, struct bview Q, struct bview K, struct bview V, const struct bview *Z,
               double c_lo, double c_hi, struct bview O, struct attn_ibp_work *w)
{
  /* the keys of each column of V by decreasing vh and by decreasing -vl */
  for (int64_t e = 0; e < g->E; e++)
    for (int side = 0; side < 2; side++)
      {
        for (int64_t j = 0; j < g->S; j++)
          {
            w->kv[j].v = side == 0 ? V.hi[j * V.rs + e] : -V.lo[j * V.rs + e];
            w->kv[j].j = j;
          }
        qsort (w->kv, (size_t) g->S, sizeof *w->kv, kv_desc);
        int64_t *ord = (side == 0 ? w->ordu : w->ordl) + e * g->S;
        for (int64_t q = 0; q < g->S; q++)
          ord[q] = w->kv[q].j;
      }
  for (int64_t i = 0; i < g->L; i++)
    {
      int64_t n = attn_keys (g, i);
      double *ol = (double *) O.lo + i * O.rs, *oh = (double *) O.hi + i * O.rs;
      if (n == 0)
        {
          for (int64_t e = 0; e < g->E; e++)
            ol[e] = oh[e] = 0;
          continue;
        }
      /* the scores' boxes */
      for (int64_t j = 0; j < n; j++)
        {
          if (Z != NULL)
            {
              w->zl[j] = Z->lo[i * Z->rs + j];
              w->zh[j] = Z->hi[i * Z->rs + j];
              continue;
            }
          double sl = 0, tl = 0, sh = 0, th = 0;
          for (int64_t d = 0; d < g->D; d++)
            cn__itv_term (Q.lo[i * Q.rs + d], Q.hi[i * Q.rs + d], K.lo[j * K.rs + d], K.hi[j * K.rs + d], &sl, &tl, &sh,
                          &th);
          /* [zl, zh] contains q_i . k_j (zl < +inf, zh > -inf) */
          double zl = cn__sum_lo (sl, tl, g->D > 0 ? g->D : 1), zh = cn__sum_hi (sh, th, g->D > 0 ? g->D : 1);
          /* times c in [c_lo, c_hi], c > 0: the corner by the sign of each end, rounded outward */
          double a = cn__down ((zl >= 0 ? c_lo : c_hi) * zl), b = cn__up ((zh >= 0 ? c_hi : c_lo) * zh);
          w->zl[j] = isnan (a) ? -INFINITY : a;
          w->zh[j] = isnan (b) ? INFINITY : b;
        }
      /* the weights' boxes (0 <= pl <= ph <= 1) */
      cn__softmax_row_ibp (&w->sm, 0, n, w->zl, w->zh, w->pl, w->ph);
      for (int64_t e = 0; e < g->E; e++)
        {
          oh[e] = wsum_up (n, w->pl, w->ph, V.hi + e, V.rs, 1, w->ordu + e * g->S, g->S);
          ol[e] = -wsum_up (n, w->pl, w->ph, V.lo + e, V.rs, -1, w->ordl + e * g->S, g->S);
        }
    }
}

/* Linear's IBP: y = x W^T + b over boxes (R rows, NI -> NO), W the NO x NI block at (wl, wh), the
 * selection sums of NI + 1 interval products bounded by (G). */
static void
lin_ibp (int64_t R, int64_t NI, int64_t NO, const double *xl, const double *xh, const double *wl, const double *wh,
         const double *bl, const double *bh, double *yl, double *yh)
{
  for (int64_t r = 0; r < R; r++)
    for (int64_t o = 0; o < NO; o++)
      {
        double sl = 0, tl = 0, sh = 0, th = 0;
        for (int64_t j = 0; j < NI; j++)
          cn__itv_term (wl[o * NI + j], wh[o * NI + j], xl[r * NI + j], xh[r * NI + j], &sl, &tl, &sh, &th);
        cn__itv_term (1, 1, bl[o], bh[o], &sl, &tl, &sh, &th);
        yl[r * NO + o] = cn__sum_lo (sl, tl, NI + 1);
        yh[r * NO + o] = cn__sum_hi (sh, th, NI + 1);
      }
}

/* The enclosure [lo, hi] of 1/sqrt(D), rounded by MPFR. */
static void
rsqrt_box (int64_t D, double *lo, double *hi)
{
  mpfr_t t;
  mpfr_init2 (t, 53);
  mpfr_set_si (t, (long) D, MPFR_RNDN);
  mpfr_rec_sqrt (t, t, MPFR_RNDD);
  *lo = mpfr_get_d (t, MPFR_RNDD);
  mpfr_set_si (t, (long) D, MPFR_RNDN);
  mpfr_rec_sqrt (t, t, MPFR_RNDU);
  *hi = mpfr_get_d (t, MPFR_RNDU);
  mpfr_clear (t);
}

/* Whether the inputs have N_IN[i] entries and the output N_OUT, the node's element counts (an
 * invariant: the graph builder checked the shapes, and the engines allocate from them). */
static int
attn_sizes (const cn_node_view *nv, const int64_t *n_in, int64_t n_out)
{
  for (int i = 0; i < nv->n_in; i++)
    if (n_in[i] != cn__numel (nv->in_shape[i]))
      return 0;
  return n_out == cn__numel (nv->out_shape);
}

static cn_status
attn_ibp (const cn_node_view *nv, const cn_box *const *in, cn_box *out, cn_error *err)
{
  const char *op = cn_op_name (nv->op);
  int64_t sizes[7];
  for (int i = 0; i < nv->n_in; i++)
    sizes[i] = in[i]->n;
  CN__ASSERTD (attn_sizes (nv, sizes, out->n));
  cn_status st;
  for (int i = 0; i < nv->n_in; i++)
    for (int64_t j = 0; j < in[i]->n; j++)
      if (isnan (in[i]->lo[j]) || isnan (in[i]->hi[j]))
        return cn_error_set (err, CN_ENUMERIC, "%s: NaN end in the box of input %d at entry %lld (node '%s')", op, i,
                             (long long) j, cn__node_name (nv));
  struct attn_geom g;
  if ((st = attn_prepare (nv, &g, err)) != CN_OK)
    return st;
  double c_lo = g.scale, c_hi = g.scale;
  if (g.scale == 0)
    rsqrt_box (g.D, &c_lo, &c_hi);
  struct attn_ibp_work w;
  int64_t M = g.M, RL = g.B * g.L, RS = g.B * g.S;
  double *buf = NULL;
  if (g.kind == MHA)
    buf = malloc ((size_t) (2 * (2 * RL + 2 * RS) * M > 0 ? 2 * (2 * RL + 2 * RS) * M : 1) * sizeof *buf);
  if (!attn_ibp_work_init (&w, &g) || (g.kind == MHA && buf == NULL))
    {
      attn_ibp_work_clear (&w);
      free (buf);
      return cn_error_set (err, CN_ENOMEM, "%s: out of memory (node '%s')", op, cn__node_name (nv));
    }
  if (g.kind == AFS)
    for (int64_t b = 0; b < g.B; b++)
      {
        struct bview Z = bv_at (in[0], b * g.L * g.S, g.S), none = { NULL, NULL, 0 };
        attn_core_ibp (&g, none, none, bv_at (in[1], b * g.S * g.E, g.E), &Z, 1, 1, bv_at (out, b * g.L * g.E, g.E),
                       &w);
      }
  else if (g.kind == ATT)
    for (int64_t b = 0; b < g.B; b++)
      attn_core_ibp (&g, bv_at (in[0], b * g.L * g.D, g.D), bv_at (in[1], b * g.S * g.D, g.D),
                     bv_at (in[2], b * g.S * g.E, g.E), NULL, c_lo, c_hi, bv_at (out, b * g.L * g.E, g.E), &w);
  else
    {
      /* the projections' boxes, the heads into U's box, the output projection */
      double *ql = buf, *qh = ql + RL * M, *ul = qh + RL * M, *uh = ul + RL * M;
      double *kl = uh + RL * M, *kh = kl + RS * M, *vl = kh + RS * M, *vh = vl + RS * M;
      const double *Wl = in[3]->lo, *Wh = in[3]->hi, *bl = in[4]->lo, *bh = in[4]->hi;
      lin_ibp (RL, M, M, in[0]->lo, in[0]->hi, Wl, Wh, bl, bh, ql, qh);
      lin_ibp (RS, M, M, in[1]->lo, in[1]->hi, Wl + M * M, Wh + M * M, bl + M, bh + M, kl, kh);
      lin_ibp (RS, M, M, in[2]->lo, in[2]->hi, Wl + 2 * M * M, Wh + 2 * M * M, bl + 2 * M, bh + 2 * M, vl, vh);
      for (int64_t b = 0; b < g.B; b++)
        for (int64_t h = 0; h < g.H; h++)
          {
            int64_t col = h * g.D, qo = b * g.L * M + col, ko = b * g.S * M + col;
            struct bview Q = { ql + qo, qh + qo, M }, K = { kl + ko, kh + ko, M }, V = { vl + ko, vh + ko, M };
            struct bview U = { ul + qo, uh + qo, M };
            attn_core_ibp (&g, Q, K, V, NULL, c_lo, c_hi, U, &w);
          }
      lin_ibp (RL, M, M, ul, uh, in[5]->lo, in[5]->hi, in[6]->lo, in[6]->hi, out->lo, out->hi);
    }
  attn_ibp_work_clear (&w);
  free (buf);
  return CN_OK;
}

/* ---- MPFI ----------------------------------------------------------------------------- */

/* A key's value for the candidate order of the MPFI weighted sum. */
struct key_fr
{
  mpfr_srcptr v;
  int64_t j;
};

struct attn_mpfi_work
{
  cn__sm_mpfi_work sm;
  mpfi_t *z, *p;                      /* S each */
  mpfi_srcptr *zs;
  mpfi_ptr *ps;
  mpfr_srcptr *c;                     /* S */
  struct key_fr *kf;                  /* S */
  mpfi_t acc, t, scale;
  mpfr_t lam, best, lo, yl, yh;
  int64_t S;
};

static int
attn_mpfi_work_init (struct attn_mpfi_work *w, const struct attn_geom *g, mpfr_prec_t prec)
{
  size_t S = (size_t) (g->S > 0 ? g->S : 1);
  memset (w, 0, sizeof *w);
  w->S = (int64_t) S;
  if (!cn__sm_mpfi_work_init (&w->sm, g->S, prec))
    return 0;
  w->z = malloc (S * sizeof *w->z);
  w->p = malloc (S * sizeof *w->p);
  w->zs = malloc (S * sizeof *w->zs);
  w->ps = malloc (S * sizeof *w->ps);
  w->c = malloc (S * sizeof *w->c);
  w->kf = malloc (S * sizeof *w->kf);
  if (w->z == NULL || w->p == NULL || w->zs == NULL || w->ps == NULL || w->c == NULL || w->kf == NULL)
    {
      free (w->z), free (w->p);
      w->z = w->p = NULL;
      return 0;
    }
  for (size_t j = 0; j < S; j++)
    {
      mpfi_init2 (w->z[j], prec);
      mpfi_init2 (w->p[j], prec);
      w->zs[j] = w->z[j];
      w->ps[j] = w->p[j];
    }
  mpfi_init2 (w->acc, prec);
  mpfi_init2 (w->t, prec);
  mpfi_init2 (w->scale, prec);
  mpfr_inits2 (prec, w->lam, w->best, w->lo, w->yl, w->yh, (mpfr_ptr) 0);
  return 1;
}

static void
attn_mpfi_work_clear (struct attn_mpfi_work *w)
{
  if (w->z != NULL && w->p != NULL)
    {
      for (int64_t j = 0; j < w->S; j++)
        {
          mpfi_clear (w->z[j]);
          mpfi_clear (w->p[j]);
        }
      mpfi_clear (w->acc);
      mpfi_clear (w->t);
      mpfi_clear (w->scale);
      mpfr_clears (w->lam, w->best, w->lo, w->yl, w->yh, (mpfr_ptr) 0);
    }
  free (w->z), free (w->p), free (w->zs), free (w->ps), free (w->c), free (w->kf);
  cn__sm_mpfi_work_clear (&w->sm);
}

/* The right end of lambda + sum_{j < n} P_j (sgn c_j - lambda) in MPFI, lambda = sgn c_k. */
static void
wsum_at_mpfi (struct attn_mpfi_work *w, int64_t n, mpfr_srcptr const *c, int sgn, int64_t k, mpfr_ptr res)
{
  mpfr_set (w->lam, c[k], MPFR_RNDN);         /* exact: the same precision */
  if (sgn < 0)
    mpfr_neg (w->lam, w->lam, MPFR_RNDN);
  mpfi_set_ui (w->acc, 0);
  for (int64_t j = 0; j < n; j++)
    {
      mpfi_set_fr (w->t, c[j]);
      if (sgn < 0)
        mpfi_neg (w->t, w->t);
      mpfi_sub_fr (w->t, w->t, w->lam);
      mpfi_mul (w->t, w->t, w->p[j]);
      mpfi_add (w->acc, w->acc, w->t);
    }
  mpfi_add_fr (w->acc, w->acc, w->lam);
  mpfr_set (res, &w->acc->right, MPFR_RNDU);
}

static int
kf_asc (const void *a, const void *b)
{
  return mpfr_cmp (((const struct key_fr *) a)->v, ((const struct key_fr *) b)->v);
}

static int
kf_desc (const void *a, const void *b)
{
  return -kf_asc (a, b);
}

/* Into RES: an upper bound of sum_{j < n} p_j (sgn c_j) over the weights p with sum 1 in the
 * enclosures P[j] (n >= 1): the least right end of the dual bounds B(lambda) = lambda +
 * sum_j P_j (sgn c_j - lambda) over the candidates lambda = sgn c_k (k < n), or +inf if some c_j is
 * not finite.  B is convex and piecewise linear in lambda with its breakpoints at the candidates,
 * so along the candidates in increasing order it is unimodal, and a bisection on B(m) <= B(m + 1)
 * finds its least value with O(log n) evaluations (a bound at any lambda is sound: the bisection
 * only makes it tight). */
static void
wsum_up_mpfi (struct attn_mpfi_work *w, int64_t n, mpfr_srcptr const *c, int sgn, mpfr_ptr res)
{
  mpfr_set_inf (res, 1);
  for (int64_t j = 0; j < n; j++)
    if (!mpfr_number_p (c[j]))
      return;
  for (int64_t j = 0; j < n; j++)
    {
      w->kf[j].v = c[j];
      w->kf[j].j = j;
    }
  qsort (w->kf, (size_t) n, sizeof *w->kf, sgn > 0 ? kf_asc : kf_desc);
  /* now sgn c_{kf[m].j} increases with m */
  int64_t lo = 0, hi = n - 1;
  while (lo < hi)
    {
      int64_t mid = lo + (hi - lo) / 2;
      wsum_at_mpfi (w, n, c, sgn, w->kf[mid].j, w->best);
      wsum_at_mpfi (w, n, c, sgn, w->kf[mid + 1].j, w->lo);
      int left = mpfr_lessequal_p (w->best, w->lo);
      mpfr_min (res, res, left ? w->best : w->lo, MPFR_RNDU);
      if (left)
        hi = mid;
      else
        lo = mid + 1;
    }
  wsum_at_mpfi (w, n, c, sgn, w->kf[lo].j, w->best);
  mpfr_min (res, res, w->best, MPFR_RNDU);
}

/* The MPFI counterpart of attn_core_ibp: Q, K (or Z) and V as arrays of enclosures with row
 * strides, the scale's enclosure in w->scale, into O. */
static void
attn_core_mpfi (const struct attn_geom *g, mpfi_t *Q, int64_t qs, mpfi_t *K, int64_t ks, mpfi_t *V, int64_t vs,
                mpfi_t *Z, mpfi_t *O, int64_t os, struct attn_mpfi_work *w)
{
  for (int64_t i = 0; i < g->L; i++)
    {
      int64_t n = attn_keys (g, i);
      if (n == 0)
        {
          for (int64_t e = 0; e < g->E; e++)
            mpfi_set_ui (O[i * os + e], 0);
          continue;
        }
      for (int64_t j = 0; j < n; j++)
        {
          if (Z != NULL)
            {
              mpfi_set (w->z[j], Z[i * g->S + j]);
              continue;
            }
          mpfi_set_ui (w->acc, 0);
          for (int64_t d = 0; d < g->D; d++)
            {
              mpfi_mul (w->t, Q[i * qs + d], K[j * ks + d]);
              mpfi_add (w->acc, w->acc, w->t);
            }
          mpfi_mul (w->z[j], w->acc, w->scale);
        }
      cn__softmax_row_mpfi (&w->sm, 0, n, w->zs, w->ps);
      for (int64_t e = 0; e < g->E; e++)
        {
          for (int64_t j = 0; j < n; j++)
            w->c[j] = &V[j * vs + e]->right;
          wsum_up_mpfi (w, n, w->c, 1, w->yh);
          for (int64_t j = 0; j < n; j++)
            w->c[j] = &V[j * vs + e]->left;
          wsum_up_mpfi (w, n, w->c, -1, w->yl);
          mpfr_neg (w->yl, w->yl, MPFR_RNDD);
          mpfi_interv_fr (O[i * os + e], w->yl, w->yh);
        }
    }
}

/* Linear in MPFI: y = x W^T + b (R rows, NI -> NO), W the NO x NI block at W. */
static void
lin_mpfi (int64_t R, int64_t NI, int64_t NO, mpfi_t *x, mpfi_t *W, mpfi_t *b, mpfi_t *y, mpfi_ptr t)
{
  for (int64_t r = 0; r < R; r++)
    for (int64_t o = 0; o < NO; o++)
      {
        mpfi_ptr yo = y[r * NO + o];
        mpfi_set_ui (yo, 0);
        for (int64_t j = 0; j < NI; j++)
          {
            mpfi_mul (t, x[r * NI + j], W[o * NI + j]);
            mpfi_add (yo, yo, t);
          }
        mpfi_add (yo, yo, b[o]);
      }
}

static cn_status
attn_ibp_mpfi (const cn_node_view *nv, const cn_mpfi_vec *const *in, cn_mpfi_vec *out, cn_error *err)
{
  const char *op = cn_op_name (nv->op);
  int64_t sizes[7];
  for (int i = 0; i < nv->n_in; i++)
    sizes[i] = in[i]->n;
  CN__ASSERTD (attn_sizes (nv, sizes, out->n));
  if (out->n == 0)
    return CN_OK;
  cn_status st;
  for (int i = 0; i < nv->n_in; i++)
    for (int64_t j = 0; j < in[i]->n; j++)
      if (mpfi_nan_p (in[i]->v[j]))
        return cn_error_set (err, CN_ENUMERIC, "%s: NaN in the enclosure of input %d at entry %lld (node '%s')", op, i,
                             (long long) j, cn__node_name (nv));
  struct attn_geom g;
  if ((st = attn_prepare (nv, &g, err)) != CN_OK)
    return st;
  mpfr_prec_t prec = mpfi_get_prec (out->v[0]);
  struct attn_mpfi_work w;
  if (!attn_mpfi_work_init (&w, &g, prec))
    {
      attn_mpfi_work_clear (&w);
      return cn_error_set (err, CN_ENOMEM, "%s: out of memory (node '%s')", op, cn__node_name (nv));
    }
  /* the scale's enclosure: the attribute, or 1/sqrt(D) */
  if (g.scale > 0)
    mpfi_set_d (w.scale, g.scale);
  else
    {
      mpfi_set_si (w.scale, (long) g.D);
      mpfi_sqrt (w.scale, w.scale);
      mpfi_ui_div (w.scale, 1, w.scale);
    }
  if (g.kind == AFS)
    for (int64_t b = 0; b < g.B; b++)
      attn_core_mpfi (&g, NULL, 0, NULL, 0, in[1]->v + b * g.S * g.E, g.E, in[0]->v + b * g.L * g.S,
                      out->v + b * g.L * g.E, g.E, &w);
  else if (g.kind == ATT)
    for (int64_t b = 0; b < g.B; b++)
      attn_core_mpfi (&g, in[0]->v + b * g.L * g.D, g.D, in[1]->v + b * g.S * g.D, g.D, in[2]->v + b * g.S * g.E, g.E,
                      NULL, out->v + b * g.L * g.E, g.E, &w);
  else
    {
      int64_t M = g.M, RL = g.B * g.L, RS = g.B * g.S;
      cn_mpfi_vec q, u, k, v;
      int ok = cn_mpfi_vec_init (&q, RL * M, prec, err) == CN_OK;
      ok = ok && cn_mpfi_vec_init (&u, RL * M, prec, err) == CN_OK;
      ok = ok && cn_mpfi_vec_init (&k, RS * M, prec, err) == CN_OK;
      ok = ok && cn_mpfi_vec_init (&v, RS * M, prec, err) == CN_OK;
      if (!ok)
        {
          attn_mpfi_work_clear (&w);
          return cn_error_set (err, CN_ENOMEM, "%s: out of memory (node '%s')", op, cn__node_name (nv));
        }
      mpfi_t *W = in[3]->v, *bi = in[4]->v;
      lin_mpfi (RL, M, M, in[0]->v, W, bi, q.v, w.t);
      lin_mpfi (RS, M, M, in[1]->v, W + M * M, bi + M, k.v, w.t);
      lin_mpfi (RS, M, M, in[2]->v, W + 2 * M * M, bi + 2 * M, v.v, w.t);
      for (int64_t b = 0; b < g.B; b++)
        for (int64_t h = 0; h < g.H; h++)
          {
            int64_t col = h * g.D, qo = b * g.L * M + col, ko = b * g.S * M + col;
            attn_core_mpfi (&g, q.v + qo, M, k.v + ko, M, v.v + ko, M, NULL, u.v + qo, M, &w);
          }
      lin_mpfi (RL, M, M, u.v, in[5]->v, in[6]->v, out->v, w.t);
      cn_mpfi_vec_clear (&q);
      cn_mpfi_vec_clear (&u);
      cn_mpfi_vec_clear (&k);
      cn_mpfi_vec_clear (&v);
    }
  attn_mpfi_work_clear (&w);
  return CN_OK;
}

/* ---- rules ---------------------------------------------------------------------------- */

static const struct attn_impl afs_impl = { .kind = AFS };

const struct cn_op_rule cn__rule_ATTENTION_FROM_SCORES = { .op = CN_OP_ATTENTION_FROM_SCORES, .impl = &afs_impl,
  .n_in = 2, .check = attn_check, .forward = attn_forward, .pullback = attn_pullback,
  .jvp = attn_jvp, .ibp = attn_ibp, .ibp_mpfi = attn_ibp_mpfi,
  .certs = CN__CERTS (CN__CERT_GRADIENT, CN__CERT_IBP),
};

static const struct attn_impl att_impl = { .kind = ATT };

const struct cn_op_rule cn__rule_ATTENTION = { .op = CN_OP_ATTENTION, .impl = &att_impl,
  .n_in = 3, .check = attn_check, .forward = attn_forward,
  .pullback = attn_pullback, .jvp = attn_jvp, .ibp = attn_ibp, .ibp_mpfi = attn_ibp_mpfi,
  .certs = CN__CERTS (CN__CERT_GRADIENT, CN__CERT_IBP),
};

static const struct attn_impl mha_impl = { .kind = MHA };

const struct cn_op_rule cn__rule_MULTIHEAD_ATTENTION = { .op = CN_OP_MULTIHEAD_ATTENTION, .impl = &mha_impl,
  .n_in = 7, .check = attn_check, .forward = attn_forward,
  .pullback = attn_pullback, .jvp = attn_jvp, .ibp = attn_ibp, .ibp_mpfi = attn_ibp_mpfi,
  .certs = CN__CERTS (CN__CERT_GRADIENT, CN__CERT_IBP),
};
