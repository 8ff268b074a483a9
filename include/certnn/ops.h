/* SPDX-License-Identifier: MIT */
/* certnn/ops.h: the operator table, generated from the one list in certnn/ops.def, and the
 * typed attribute records of the operators that take attributes.
 *
 * Shapes are attributes: a node's input and output shapes are fixed when the graph builder
 * checks it, as the seed's operator values carry their shapes. */
#ifndef CERTNN_OPS_H
#define CERTNN_OPS_H

#include <stdint.h>
#include "certnn/tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum cn_op
{
#define CN_OP(id, name, family, rule) CN_OP_##id,
#include "certnn/ops.def"
#undef CN_OP
  CN_OP_COUNT
} cn_op;

typedef enum cn_family
{
  CN_FAMILY_ELEMENTWISE,     /* elementwise arithmetic */
  CN_FAMILY_TRANSCENDENTAL,  /* exponentials, logarithms, trigonometric and hyperbolic functions */
  CN_FAMILY_ROUNDING,        /* roundings and signs */
  CN_FAMILY_EXTREMA,         /* max, min, fmax, fmin, clamp */
  CN_FAMILY_ACTIVATION,      /* activations */
  CN_FAMILY_LOGIC,           /* comparisons, predicates and logic, select, cast */
  CN_FAMILY_INTEGER,         /* integer words */
  CN_FAMILY_SCAN,            /* scans and orderings */
  CN_FAMILY_INDEXING,        /* gather, scatter, slice, ... */
  CN_FAMILY_MOVEMENT,        /* data movement */
  CN_FAMILY_REDUCTION,       /* reductions and contractions */
  CN_FAMILY_PRODUCT,         /* matmul, scaledMatmul, linear */
  CN_FAMILY_CONV,            /* convolution and pooling */
  CN_FAMILY_NORMALIZATION,   /* layerNorm, batchNorm, batchNormRunning */
  CN_FAMILY_SOFTMAX,         /* softmax and attention */
  CN_FAMILY_LOSS,            /* losses */
  CN_FAMILY_RANDOM,          /* masks and random draws */
  CN_FAMILY_SPECTRAL,        /* spectral transforms and the selective scan */
  CN_FAMILY_GRAPH,           /* graph structure */
  CN_FAMILY_COUNT
} cn_family;

/* What the table holds for one operator; every flag is read off the operator's rule. */
typedef struct cn_op_coverage
{
  int rule;       /* the operator has a rule at all */
  int forward;    /* forward evaluation in binary64 and binary32 */
  int pullback;   /* reverse mode */
  int jvp;        /* forward mode */
  int ibp;        /* an interval (IBP) arm */
  int crown;      /* a CROWN (linear relaxation) arm */
  int cuda;       /* a CUDA kernel */
  int reference;  /* an MPFI reference arm (the enclosure the tests check IBP against) */
  int value_input; /* some input is a value port (one that can receive a gradient) */
  char sorts[32];  /* the sorts the forward computes in: "f64, f32" (the model's scalar in binary64
                      and binary32), "bool", "words" (integer words), joined by ", "; "" without a rule */
} cn_op_coverage;

const char *cn_op_name (cn_op op);           /* the seed's name, "batchNormRunning"; NULL if out of range */
cn_family cn_op_family (cn_op op);
const char *cn_family_name (cn_family f);     /* "elementwise", "activation", ... */
/* The operator whose name is NAME, or CN_OP_COUNT if there is none. */
cn_op cn_op_lookup (const char *name);
/* The number of outputs of OP (1 for most operators; sort, topk, cummax and cummin return their
 * index tensor at output 1, batchNorm its batch mean and variance at outputs 1 and 2), at most
 * CN_OP_MAX_OUTPUTS; 0 if OP has no rule.  The name of output K ("values", "indices", "mean"),
 * or NULL if there is no such output. */
#define CN_OP_MAX_OUTPUTS 4
int cn_op_n_outputs (cn_op op);
const char *cn_op_output_name (cn_op op, int k);
void cn_op_coverage_get (cn_op op, cn_op_coverage *cov);

/* The CROWN relaxation of relu (and of leakyReLU, maxPool): the lower line alpha z <= relu(z) of an unstable relu entry (l < 0 < u): every alpha in
 * [0, 1] is sound, and which is tightest depends on the row.  CN_SLOPE_ADAPTIVE is CROWN's
 * choice (alpha = 1 if u > -l, else 0); the others fix alpha = 0, alpha = 1, or alpha =
 * u/(u - l) (the upper line's slope, as in DeepPoly's parallel relaxation). */
typedef enum cn_slope
{
  CN_SLOPE_ADAPTIVE,
  CN_SLOPE_ZERO,
  CN_SLOPE_ONE,
  CN_SLOPE_RATIO
} cn_slope;

/* ---- attribute records ----------------------------------------------------------------- */

/* conv: inputs x [N, C, S_1..S_d], weight [F, C/groups, K_1..K_d], bias [F]; output
 * [N, F, O_1..O_d] with O_i = floor((S_i + pad_begin_i + pad_end_i - dilation_i*(K_i-1) - 1)/stride_i) + 1.
 * Zero padding.  1 <= d <= 3. */
typedef struct cn_params_conv
{
  int nd;
  int64_t stride[3], pad_begin[3], pad_end[3], dilation[3];
  int64_t groups;
} cn_params_conv;

typedef enum cn_pool_kind { CN_POOL_MAX, CN_POOL_AVG } cn_pool_kind;

/* pool: input [N, C, S_1..S_d] -> [N, C, O_1..O_d], window K, output size as for conv.
 * Max pooling ignores padded positions (they act as -infinity); average pooling divides by the
 * window size if count_include_pad, else by the number of in-bounds positions. */
typedef struct cn_params_pool
{
  cn_pool_kind kind;
  int nd;
  int64_t kernel[3], stride[3], pad_begin[3], pad_end[3], dilation[3];
  int count_include_pad;
} cn_params_pool;

/* reshape: the same elements in C order under the target shape (equal element counts). */
typedef struct cn_params_reshape { cn_shape shape; } cn_params_reshape;

/* permute: output axis i is input axis perm[i]; perm is a permutation of 0..rank-1. */
typedef struct cn_params_permute { int rank; int perm[CN_MAX_RANK]; } cn_params_permute;

/* broadcast: numpy broadcasting of the input to SHAPE (trailing axes aligned; an input extent
 * is 1 or equal to the target's). */
typedef struct cn_params_broadcast { cn_shape shape; } cn_params_broadcast;

/* pad: constant padding, begin[i] and end[i] >= 0 elements before and after axis i. */
typedef struct cn_params_pad
{
  int rank;
  int64_t begin[CN_MAX_RANK], end[CN_MAX_RANK];
  double value;
} cn_params_pad;

/* slice: on every axis i, the elements start[i], start[i]+step[i], ... below stop[i], with
 * 0 <= start[i] <= stop[i] <= extent and step[i] >= 1 (normalised by the importer). */
typedef struct cn_params_slice
{
  int rank;
  int64_t start[CN_MAX_RANK], stop[CN_MAX_RANK], step[CN_MAX_RANK];
} cn_params_slice;

/* cat: concatenation of its inputs (at least one) along AXIS. */
typedef struct cn_params_cat { int axis; } cn_params_cat;

typedef enum cn_reduce_kind { CN_REDUCE_SUM, CN_REDUCE_PROD, CN_REDUCE_MAX, CN_REDUCE_MIN } cn_reduce_kind;

/* reduce and mean: over the axes whose bit is set in AXES (bit i = axis i), keeping them as
 * extent 1 if keepdims.  The axes are distinct by construction. */
typedef struct cn_params_reduce
{
  cn_reduce_kind kind;          /* ignored by mean */
  uint32_t axes;
  int keepdims;
} cn_params_reduce;

typedef enum cn_div_rounding { CN_DIV_TRUE, CN_DIV_TRUNC, CN_DIV_FLOOR } cn_div_rounding;

/* div: torch.div's rounding_mode (None, "trunc", "floor"). */
typedef struct cn_params_div { cn_div_rounding rounding; } cn_params_div;

/* batchNormRunning: inputs x, scale, bias, running mean, running variance (the last four of
 * extent C = x's extent on AXIS); y = scale*(x - mean)/sqrt(var + eps) + bias, eps > 0. */
typedef struct cn_params_batchnorm { int axis; double eps; } cn_params_batchnorm;

/* softmax, logSoftmax, maskedSoftmax: over AXIS (0 <= axis < rank).  maskedSoftmax takes a second
 * input, the mask (a bool port of x's shape; in a float evaluation an entry counts as true when it
 * is >= 0.5, so 0/1 read exactly): only the entries whose mask is true take part, the others are 0
 * (a row with no true entry is all 0). */
typedef struct cn_params_softmax { int axis; } cn_params_softmax;

/* layerNorm over the last axis (extent N): y = (x - mean) / sqrt(var + eps) (* weight + bias),
 * var the biased variance, eps finite and > 0.  affine = 0: one input x; affine = 1: inputs x,
 * weight [N], bias [N] (torch.nn.LayerNorm's elementwise_affine; a missing bias is zeros). */
typedef struct cn_params_layernorm { double eps; int affine; } cn_params_layernorm;

/* gelu: y = x Phi(x), Phi the standard normal distribution function (CN_GELU_NONE, the exact
 * form with erf), or PyTorch's approximate = "tanh":
 * y = x/2 (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))), the constant 0.044715 read as a decimal. */
typedef enum cn_gelu_approx { CN_GELU_NONE, CN_GELU_TANH } cn_gelu_approx;
typedef struct cn_params_gelu { cn_gelu_approx approximate; } cn_params_gelu;

/* elu: y = x for x > 0, alpha (exp(x) - 1) otherwise; alpha finite (torch.nn.ELU, ONNX Elu). */
typedef struct cn_params_elu { double alpha; } cn_params_elu;

/* leakyReLU: y = x for x > 0, negative_slope x otherwise; the slope finite (torch.nn.LeakyReLU,
 * ONNX LeakyRelu's alpha). */
typedef struct cn_params_leaky_relu { double negative_slope; } cn_params_leaky_relu;

/* sqrt: CN_SQRT_RAW (the default) is the IEEE square root, a NaN below zero;
 * CN_SQRT_CLAMP_NEGATIVE is the root of max(x, 0) (a NaN stays a NaN). */
typedef enum cn_sqrt_mode { CN_SQRT_RAW, CN_SQRT_CLAMP_NEGATIVE } cn_sqrt_mode;
typedef struct cn_params_sqrt { cn_sqrt_mode mode; } cn_params_sqrt;

/* scale: y = factor x, the factor finite. */
typedef struct cn_params_scale { double factor; } cn_params_scale;

/* addcmul, addcdiv: y = x + value t1 t2, y = x + value t1 / t2 (torch.addcmul, torch.addcdiv),
 * value finite. */
typedef struct cn_params_addc { double value; } cn_params_addc;

/* nanToNum: torch.nan_to_num: a NaN becomes NAN_VALUE, +inf becomes POSINF if posinf_set, else
 * the largest finite value of the tensor's sort, -inf NEGINF if neginf_set, else the most
 * negative finite value.  A zero record is torch's default (nan = 0). */
typedef struct cn_params_nan_to_num
{
  double nan_value, posinf, neginf;
  int posinf_set, neginf_set;
} cn_params_nan_to_num;

/* fullLike: the input's shape filled with VALUE (torch.full_like). */
typedef struct cn_params_full_like { double value; } cn_params_full_like;

/* safeDiv x/(y + eps), safeInv 1/(x + eps), safeLog log(softplus(x) + eps) and smoothAbs
 * sqrt(x^2 + eps): eps finite, and eps >= 0 for safeLog and smoothAbs. */
typedef struct cn_params_epsilon { double eps; } cn_params_epsilon;

/* scaledMatmul: y = scale (A @ B), matmul's numpy semantics, SCALE finite (the 1/sqrt(d) of
 * attention scores). */
typedef struct cn_params_scaled_matmul { double scale; } cn_params_scaled_matmul;

/* contract: a tensor contraction of two operands (torch.tensordot with paired axes): the axes
 * A's a_axes[i] and B's b_axes[i] (i < n, equal extents, distinct in each operand) are summed
 * over; the output is A's free axes in order, then B's free axes in order. */
typedef struct cn_params_contract
{
  int n;
  int a_axes[CN_MAX_RANK], b_axes[CN_MAX_RANK];
} cn_params_contract;

/* The losses (mseLoss, maeLoss, huberLoss, hingeLoss, poissonLoss, logCoshLoss, binaryCrossEntropy,
 * cosineLoss, crossEntropy, crossEntropyProbabilities, distill): REDUCTION as torch's reduction
 * (a zero record is "mean"); DELTA > 0 (huberLoss), MARGIN finite (hingeLoss), EPS (cosineLoss: > 0;
 * crossEntropyProbabilities: in [0, 1)), TEMPERATURE > 0 (distill); the other fields are ignored.
 * src/ops/loss.c states each loss's ports and formula. */
typedef enum cn_loss_reduction { CN_LOSS_MEAN, CN_LOSS_SUM, CN_LOSS_NONE } cn_loss_reduction;
typedef struct cn_params_loss
{
  cn_loss_reduction reduction;
  double delta, margin, eps, temperature;
} cn_params_loss;

/* cumsum, cumprod, cummax, cummin: the running sum, product, maximum or minimum along AXIS
 * (0 <= axis < rank), the output of the input's shape (torch.cumsum, ..., values output). */
typedef struct cn_params_cumulative { int axis; } cn_params_cumulative;

/* sort: the values of torch.sort(x, dim = axis, descending, stable = True) (0 <= axis < rank). */
typedef struct cn_params_sort { int axis; int descending; } cn_params_sort;

/* topk: torch.topk(x, k, dim = axis, largest, sorted = True): the values at output 0 and their
 * indices at output 1, 0 <= k <= the extent on AXIS; the outputs have extent K there.  Tied
 * entries: with TIES_BY_INDEX = 0 (the seed's policy for PyTorch, whose topk leaves them
 * unspecified) evaluation fails where they decide the selection; with 1 the lower index comes
 * first (ONNX's TopK). */
typedef struct cn_params_topk { int axis; int64_t k; int largest; int ties_by_index; } cn_params_topk;

/* argmax, argmin: the index along AXIS of the first (select_last_index: the last) extreme entry,
 * as a float holding an integer; the axis removed, or kept with extent 1 if keepdims
 * (torch.argmax, ONNX ArgMax). */
typedef struct cn_params_argmax { int axis; int keepdims; int select_last_index; } cn_params_argmax;

/* gather: torch.gather(x, axis, index) (ONNX GatherElements): x [S], index [I] of x's rank with
 * I[a] <= S[a] for a != axis; output [I], out[i] = x[i with i_axis replaced by index[i]].
 * scatter: torch.scatter / scatter_reduce(x, axis, index, src, reduce) with include_self (ONNX
 * ScatterElements): src of index's shape; out = x, then for every index position i in row-major
 * order out[t(i)] = fold(out[t(i)], src[i]), t(i) = i with i_axis replaced by index[i] (REPLACE:
 * the last write wins).  Index entries are integers in [0, S[axis]) (in a float evaluation the
 * index port holds them as floats; others are refused with CN_EINVAL). */
typedef struct cn_params_gather { int axis; } cn_params_gather;
typedef enum cn_scatter_reduce
{
  CN_SCATTER_REPLACE, CN_SCATTER_SUM, CN_SCATTER_PROD, CN_SCATTER_MAX, CN_SCATTER_MIN
} cn_scatter_reduce;
typedef struct cn_params_scatter { int axis; cn_scatter_reduce reduce; } cn_params_scatter;

/* indices: the input's shape filled with each entry's index along AXIS (an index output). */
typedef struct cn_params_indices { int axis; } cn_params_indices;

/* flip: reverses the axes whose bit is set in AXES (bit a = axis a; torch.flip). */
typedef struct cn_params_flip { uint32_t axes; } cn_params_flip;

/* ---- element sorts: comparisons and logic, integer words (src/ops/logic.c, src/ops/integer.c) ----
 *
 * A graph value holds the model's scalar (a floating sort: a float evaluation holds it in the
 * evaluation's sort), Booleans (CN_DTYPE_BOOL) or integer words (CN_DTYPE_I8 .. CN_DTYPE_U64,
 * two's complement when signed).  Operators that read or return Booleans or words say so here;
 * every other operator reads and returns the model's scalar (index ports hold integers in it).
 *
 *   eq, ne, lt, le, gt, ge    two ports of one shape and one sort -> bool: the IEEE comparison on
 *                             the model's scalar (a NaN operand: false, ne true), the exact order
 *                             on words (signed or unsigned, never through doubles) and on Booleans
 *                             (false < true); no gradient
 *   isNaN, isInf, isFinite    one frozen port -> bool
 *   logicalNot                bool -> bool;  logicalAnd, logicalOr, logicalXor: bool, bool -> bool
 *   select                    (bool c, element a, element b) of one shape -> c ? a : b (torch.where)
 *   cast                      any sort -> cn_params_cast.to (below)
 *   bitwiseAnd, bitwiseOr, bitwiseXor, mulhi, bitwiseLeftShift, shiftRightArithmetic,
 *   shiftRightLogical         two integer ports of one integer sort and shape -> that sort
 *   bitwiseNot, populationCount, countLeadingZeros   one integer port -> its sort
 *   bitcast, encodeIndex, decodeIndex                cn_params_bitcast, cn_params_index_code
 *
 * Element ports (the seed's element argument, Op.Element and Op.NumericElement).  The data ports
 * of reshape, permute, broadcast, flip, slice, pad, cat, gather, scatter and select, and the
 * operands of add, sub, mul, div, neg, pow, remainder, max and min, are element ports: value
 * ports at the model's scalar, which may instead hold Booleans or integer words, all of one sort
 * (the output takes it).  At Booleans and words:
 *   - the movement operators move them exactly; pad's value must be an element of the sort; a
 *     Boolean scatter only replaces; scatter's integer sum and prod wrap;
 *   - add, sub, mul, neg, pow (a nonnegative exponent) wrap in two's complement (PyTorch's integer
 *     meaning); div only with rounding trunc or floor (a true division has no rule at words);
 *     div and remainder (the divisor's sign) refuse a zero divisor at evaluation (CN_ENUMERIC);
 *     the least signed word divided by -1 wraps to itself; max and min follow the sort's order;
 *   - Booleans take no arithmetic (cast them to a word sort), only max, min, the comparisons,
 *     select and the movement operators;
 *   - no gradient reaches them; IBP and MPFI boxes hold the words' values, exact at a point and
 *     the sort's whole range where a box could wrap.
 * src/ops/logic.c, src/ops/integer.c, src/ops/arith.c, src/ops/extrema.c, src/ops/movement.c
 * and src/ops/indexing.c state each operator's exact semantics. */

/* cast: the input (any sort) converted to TO, where CN_DTYPE_F64 and CN_DTYPE_F32 both mean the
 * model's scalar (a float evaluation holds it in its sort): bool or integer -> scalar rounds to
 * nearest; scalar -> integer truncates toward zero, a NaN or a value outside the target's range
 * failing at evaluation (CN_ENUMERIC); anything -> bool is x != 0 (a NaN is true); integer ->
 * integer wraps to the target's width (two's complement), as torch's .to(). */
typedef struct cn_params_cast { cn_dtype to; } cn_params_cast;

/* bitcast: each element read as a word of TO of the same width.  The model's scalar travels as
 * binary32 (width 32) or binary64 (width 64): CN_DTYPE_F32 / CN_DTYPE_F64 name those formats
 * (the scalar is first rounded to that format; exact when the evaluation sort is that format, and
 * a word read as a float is then held in the evaluation's sort). */
typedef struct cn_params_bitcast { cn_dtype to; } cn_params_bitcast;

/* encodeIndex: index tuples -> words.  Input: an index port of shape [..., R] (the last axis holds
 * a tuple of R components, component c in [0, bound[c])); output: integer sort WORD of shape
 * [...], the row-major linear index sum_c i_c prod_{c' > c} bound[c'].  A component outside its
 * bound, or a linear index WORD cannot hold, fails at evaluation (CN_ENUMERIC).
 * decodeIndex: the inverse, an integer port of sort WORD and shape [...] -> an index port of
 * shape [..., R]; a word outside [0, prod bound) fails at evaluation.  1 <= R <= CN_MAX_RANK - 1,
 * every bound >= 1. */
typedef struct cn_params_index_code { int r; int64_t bound[CN_MAX_RANK]; cn_dtype word; } cn_params_index_code;

/* ---- masks and random draws (src/ops/random.c) ----
 * Every draw is a deterministic function of a key and the draw's position: the key is an input,
 * an integer port of sort CN_DTYPE_U64 and shape [] (so a key can be computed or swept), and
 * position j (row-major) of the output uses the counter-based generator of src/ops/random.c
 * (uniform u_j in [0, 1), 53 bits).  A draw has no value input (no gradient; forward mode gives
 * zero tangents); its IBP box is the draw's range whatever the key.
 *   randUniform(key)      -> [shape]: lo + (hi - lo) u_j
 *   randn(key)            -> [shape]: mean + std * Box-Muller of two uniforms, the first clamped
 *                            away from zero
 *   bernoulliMask(key)    -> [shape]: 1 with probability p (u_j < p), else 0, in the model's scalar
 *   dropout(x, mask)      -> x's shape: mask ? x / (1 - p) : 0; MASK a bool port of x's shape
 *   topKMask(x)           -> x's shape, 1 at the K largest (smallest if !largest) entries of each
 *                            slice along AXIS, else 0; x a frozen port; fails where ties decide */
typedef struct cn_params_rand_uniform { cn_shape shape; double lo, hi; } cn_params_rand_uniform;
typedef struct cn_params_randn { cn_shape shape; double mean, std; } cn_params_randn;
typedef struct cn_params_bernoulli { cn_shape shape; double p; } cn_params_bernoulli;  /* 0 <= p <= 1 */
typedef struct cn_params_dropout { double p; } cn_params_dropout;                      /* 0 <= p < 1 */
typedef struct cn_params_topk_mask { int axis; int64_t k; int largest; } cn_params_topk_mask;

/* ---- transposed convolution, smooth max pooling (src/ops/conv.c, src/ops/pool.c) ----
 * convTranspose: inputs x [N, C, S_1..S_d], weight [C, F/groups, K_1..K_d], bias [F]; output
 * [N, F, O_1..O_d], O_i = (S_i - 1) stride_i - pad_begin_i - pad_end_i + dilation_i (K_i - 1)
 * + output_padding_i + 1 (torch.nn.ConvTranspose, ONNX ConvTranspose); output_padding_i <
 * max(stride_i, dilation_i).  1 <= d <= 3.
 * smoothMaxPool: inputs x [N, C, S_1..S_d] and beta, a frozen scalar [] (validated: finite and
 * nonzero); the window of cn_params_pool (its kind ignored, padded positions left out); output
 * (1/beta) log sum_{window} exp(beta x), the log-sum-exp smooth maximum (a minimum for beta < 0). */
typedef struct cn_params_conv_transpose
{
  int nd;
  int64_t stride[3], pad_begin[3], pad_end[3], dilation[3], output_padding[3];
  int64_t groups;
} cn_params_conv_transpose;

/* ---- attention (src/ops/attention.c) ----
 * attentionFromScores(scores [..., L, S], v [..., S, E]) = softmax(scores, last axis) @ v.
 * attention(q [..., L, D], k [..., S, D], v [..., S, E]) = softmax(scale q k^T + causal mask) @ v,
 *   SCALE finite and > 0, or 0 for 1/sqrt(D); CAUSAL: query i attends to keys j <= i + S - L.
 * multiheadAttention(query [..., L, M], key [..., S, M], value [..., S, M], in_proj_weight [3M, M],
 *   in_proj_bias [3M], out_proj_weight [M, M], out_proj_bias [M]): torch.nn.MultiheadAttention
 *   (batch_first) with HEADS heads (M divisible by HEADS), the per-head scale 1/sqrt(M/HEADS),
 *   the attention weights not returned. */
typedef struct cn_params_attention { double scale; int causal; } cn_params_attention;
typedef struct cn_params_multihead { int heads; int causal; } cn_params_multihead;

/* ---- spectral transforms and the selective scan (src/ops/spectral.c) ----
 * rfft: x [..., N] -> [..., N/2 + 1, 2] (real and imaginary parts on the last axis), the DFT
 *   X_k = sum_n x_n e^{-2 pi i k n / N} along the last axis, scaled by NORM.
 * irfft: X [..., M, 2] -> [..., N] with N = cn_params_fft.n (M = N/2 + 1), the inverse of rfft
 *   (the imaginary parts of the k = 0 and, for even N, k = N/2 terms ignored, as numpy's irfft),
 *   scaled by NORM.
 * selectiveScan (Mamba's S6 recurrence): inputs u [..., L, D], delta [..., L, D], A [D, P],
 *   B [..., L, P], C [..., L, P], Dskip [D]; h_0 = 0, h_t[d,p] = exp(delta_t[d] A[d,p]) h_{t-1}[d,p]
 *   + delta_t[d] B_t[p] u_t[d], y_t[d] = sum_p C_t[p] h_t[d,p] + Dskip[d] u_t[d]; output [..., L, D]. */
typedef enum cn_fft_norm { CN_FFT_BACKWARD, CN_FFT_ORTHO, CN_FFT_FORWARD } cn_fft_norm;
typedef struct cn_params_fft { int64_t n; cn_fft_norm norm; } cn_params_fft;  /* rfft ignores n */

/* ---- custom (src/ops/custom.c) ----
 * custom: a node whose forward evaluates a program, a graph whose inputs are the node's inputs
 * (in order, shapes equal) and whose output 0 is the node's output; its IBP, MPFI and derivative
 * arms run the program's nodes through their own arms.  The record borrows PROGRAM: the caller
 * keeps it alive (and unchanged) as long as any graph holding the node. */
struct cn_graph;
typedef struct cn_params_custom { const struct cn_graph *program; char name[64]; } cn_params_custom;

/* The attribute record size an operator takes (0 for none); the graph builder copies that
 * many bytes from the pointer it is given. */
size_t cn_op_params_size (cn_op op);

#ifdef __cplusplus
}
#endif
#endif
