/* SPDX-License-Identifier: MIT */
/* certnn/ops.h: the operator table, generated from the one list in certnn/ops.def, and the
 * typed attribute records of the operators that take attributes, each declared once as the list
 * of its members (the struct and the table's descriptor of it are made from that list).
 *
 * Shapes are attributes: a node's input and output shapes are fixed when the graph builder
 * checks it, as the seed's operator values carry their shapes. */
#ifndef CERTNN_OPS_H
#define CERTNN_OPS_H

#include <limits.h>
#include <stdint.h>
#include "certnn/tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum cn_op
{
#define CN_OP(id, name, family, rule, record) CN_OP_##id,
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
  int crown;      /* a CROWN arm that relaxes (its lines follow the inputs) */
  int crown_box;  /* a CROWN arm that only takes the node's own IBP box (comparisons, logic, draws):
                     the sweep passes through the node, with the box's quality; crown is then 0 */
  int alpha;      /* alpha-CROWN optimises its lines' free parameter (relu's lower slope) */
  int cuda;       /* a CUDA kernel */
  int reference;  /* an MPFI reference arm (the enclosure the tests check IBP against) */
  int checker;    /* a checker arm: the step the bound-certificate checker re-derives CROWN bounds
                     through in MPFI (certnn/proof.h) */
  int value_input; /* some input is a value port (one that can receive a gradient) */
  char sorts[32];  /* the sorts the forward computes in: "f64, f32" (the model's scalar in binary64
                      and binary32), "bool", "words" (integer words), joined by ", "; "" without a rule */
} cn_op_coverage;

CN_API const char *cn_op_name (cn_op op);           /* the seed's name, "batchNormRunning"; NULL if out of range */
CN_API cn_family cn_op_family (cn_op op);
CN_API const char *cn_family_name (cn_family f);     /* "elementwise", "activation", ... */
/* The operator whose name is NAME, or CN_OP_COUNT if there is none. */
CN_API cn_op cn_op_lookup (const char *name);
/* The number of outputs of OP (1 for most operators; sort, topk, cummax and cummin return their
 * index tensor at output 1, batchNorm its batch mean and variance at outputs 1 and 2), at most
 * CN_OP_MAX_OUTPUTS; 0 if OP has no rule.  The name of output K ("values", "indices", "mean"),
 * or NULL if there is no such output. */
#define CN_OP_MAX_OUTPUTS 4
CN_API int cn_op_n_outputs (cn_op op);
CN_API const char *cn_op_output_name (cn_op op, int k);
CN_API void cn_op_coverage_get (cn_op op, cn_op_coverage *cov);

/* ---- certificate records -----------------------------------------------------------------
 *
 * A certificate record states a property of one arm of an operator's rule, with the seed's six
 * kinds (the seed's "Operator Certificates"):
 *   ALGEBRAIC   the pullback is the adjoint of the selected tangent map (the jvp arm), with no
 *               claim that the map is a derivative;
 *   DERIVATIVE  the tangent map of the arm (pullback or jvp) is the derivative of the forward on
 *               the domain the statement gives (away from the kinks it names);
 *   CONVENTION  a value fixed by convention where there is no derivative (a subgradient at a kink,
 *               detach, the share of a tie);
 *   PREPARED    a prepared pullback returns the dense one;
 *   ROUNDOFF    an error bound of a floating route;
 *   ENCLOSURE   the IBP arm encloses the real forward value over its input boxes, or the CROWN
 *               step keeps its invariant (its lines bound the real forward value).
 * A record concerns some input positions, the others held fixed (INPUTS, bit i for input i; 0:
 * every value input).  Records are declared beside the operator's rule (src/ops/); in C they
 * are statements, not proofs; their evidence runs in cn_op_cert_check (certnn/certs.h).  The table checks on reading what it can: that the
 * rule has the arm the record names, that the kind can be about that arm, and that a gradient
 * record's input positions are value inputs of the rule; a record that fails is refused with
 * CN_EINVAL. */
typedef enum cn_cert_kind
{
  CN_CERT_ALGEBRAIC,
  CN_CERT_DERIVATIVE,
  CN_CERT_CONVENTION,
  CN_CERT_PREPARED,
  CN_CERT_ROUNDOFF,
  CN_CERT_ENCLOSURE,
  CN_CERT_KIND_COUNT
} cn_cert_kind;

/* The arm a record is about. */
typedef enum cn_cert_arm
{
  CN_CERT_ARM_PULLBACK,   /* reverse mode */
  CN_CERT_ARM_JVP,        /* forward mode */
  CN_CERT_ARM_FORWARD,    /* the floating forward */
  CN_CERT_ARM_IBP,        /* interval propagation */
  CN_CERT_ARM_CROWN,      /* the CROWN step */
  CN_CERT_ARM_CHECKER,    /* the certificate checker's step (certnn/proof.h) */
  CN_CERT_ARM_COUNT
} cn_cert_arm;

typedef struct cn_cert_info
{
  cn_op op;
  cn_cert_kind kind;
  cn_cert_arm arm;
  unsigned inputs;          /* bit i: input position i (0-based); never 0 (resolved to the value inputs) */
  const char *name;         /* the record's own name, "pullback_derivative" (shown after the operator's:
                               "relu.pullback_derivative") */
  const char *statement;    /* in words and formulas */
} cn_cert_info;

/* "algebraic", "derivative", ... and "pullback", "forward mode", "forward", "IBP", "CROWN";
 * NULL if out of range. */
CN_API const char *cn_cert_kind_name (cn_cert_kind k);
CN_API const char *cn_cert_arm_name (cn_cert_arm a);
/* The value inputs of OP's rule (the ports a gradient reaches at the model's scalar) as a mask,
 * bit i for input i; ~0u for a variadic rule whose inputs all are; 0 without a rule. */
CN_API unsigned cn_op_value_inputs (cn_op op);
/* The number of records declared for OP (0 without a rule or records). */
CN_API int cn_op_n_certs (cn_op op);
/* Record I of OP into INFO; CN_EINVAL if there is no such record or the table refuses it (the
 * message names the record and what is wrong). */
CN_API cn_status cn_op_cert_get (cn_op op, int i, cn_cert_info *info, cn_error *err);

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

/* ---- attribute records -----------------------------------------------------------------
 *
 * Each record is declared once, as the list of its members in order: CN_PARAMS_<rec> (M, T)
 * calls M (T, KIND, member, ARGS...) for each member, and CN_PARAMS_TYPEDEF (<rec>) makes of it
 * the plain C struct cn_params_<rec>, which callers fill as any struct.  The operator table makes
 * of the same list the record's descriptor (src/ops/records.c), which the wire codec walks; an
 * operator's row in certnn/ops.def names its record, and CN_PARAMS_RECORDS (at the end of this
 * section) lists every record once by name.  The kinds, the C type each gives the member, and
 * what the table requires of the member whatever the inputs:
 *
 *   INT, m, MIN                  int m, >= MIN (INT_MIN: any)
 *   I64, m, MIN                  int64_t m, >= MIN (INT64_MIN: any)
 *   COUNT, m, LO, HI             int m, in [LO, HI]: the count of the arrays that name it
 *   INTS, m, CAP, COUNT, MIN     int m[CAP]: its first COUNT entries (COUNT names an earlier COUNT
 *                                member) are the operator's, each >= MIN; the others are not
 *   I64S, m, CAP, COUNT, MIN     int64_t m[CAP], the same
 *   F64, m                       double m, finite
 *   F64X, m                      double m, any (infinities and NaN included)
 *   FLAG, m                      int m, 0 or 1
 *   ENUM, m, TYPE, MAP           the enumeration TYPE m, one of the values MAP names
 *   DTYPE, m                     cn_dtype m, a sort
 *   SHAPE, m                     cn_shape m, a shape
 *   AXES, m                      uint32_t m, a set of axes (bit a = axis a)
 *   NAME, m, CAP                 char m[CAP], a NUL-terminated string
 *   PROGRAM, m                   const struct cn_graph *m, a program (custom's; never NULL)
 *
 * An enumeration that a record holds is declared with its map: MAP (X) calls X (ENUMERATOR,
 * "name") for each value in order, the first being 0; the names are the wire codec's.  The macros
 * CN__MEMBER_<KIND> below make the struct's members. */
#define CN__MEMBER(T, kind, ...) CN__MEMBER_##kind (__VA_ARGS__)
#define CN__MEMBER_INT(m, min) int m;
#define CN__MEMBER_I64(m, min) int64_t m;
#define CN__MEMBER_COUNT(m, lo, hi) int m;
#define CN__MEMBER_INTS(m, cap, count, min) int m[cap];
#define CN__MEMBER_I64S(m, cap, count, min) int64_t m[cap];
#define CN__MEMBER_F64(m) double m;
#define CN__MEMBER_F64X(m) double m;
#define CN__MEMBER_FLAG(m) int m;
#define CN__MEMBER_ENUM(m, type, map) type m;
#define CN__MEMBER_DTYPE(m) cn_dtype m;
#define CN__MEMBER_SHAPE(m) cn_shape m;
#define CN__MEMBER_AXES(m) uint32_t m;
#define CN__MEMBER_NAME(m, cap) char m[cap];
#define CN__MEMBER_PROGRAM(m) const struct cn_graph *m;
#define CN_PARAMS_TYPEDEF(rec)                                                                     \
  typedef struct cn_params_##rec { CN_PARAMS_##rec (CN__MEMBER, cn_params_##rec) } cn_params_##rec
#define CN__ENUMERATOR(id, name) id,

struct cn_graph;

/* conv: inputs x [N, C, S_1..S_d], weight [F, C/groups, K_1..K_d], bias [F]; output
 * [N, F, O_1..O_d] with O_i = floor((S_i + pad_begin_i + pad_end_i - dilation_i*(K_i-1) - 1)/stride_i) + 1.
 * Zero padding.  1 <= d <= 3. */
#define CN_PARAMS_conv(M, T)                                                                       \
  M (T, COUNT, nd, 1, 3)                                                                           \
  M (T, I64S, stride, 3, nd, 1)                                                                    \
  M (T, I64S, pad_begin, 3, nd, 0)                                                                 \
  M (T, I64S, pad_end, 3, nd, 0)                                                                   \
  M (T, I64S, dilation, 3, nd, 1)                                                                  \
  M (T, I64, groups, 1)
CN_PARAMS_TYPEDEF (conv);

#define CN_POOL_KIND_MAP(X) X (CN_POOL_MAX, "max") X (CN_POOL_AVG, "avg")
typedef enum cn_pool_kind { CN_POOL_KIND_MAP (CN__ENUMERATOR) } cn_pool_kind;

/* pool: input [N, C, S_1..S_d] -> [N, C, O_1..O_d], window K, output size as for conv.
 * Max pooling ignores padded positions (they act as -infinity); average pooling divides by the
 * window size if count_include_pad, else by the number of in-bounds positions. */
#define CN_PARAMS_pool(M, T)                                                                       \
  M (T, ENUM, kind, cn_pool_kind, CN_POOL_KIND_MAP)                                                \
  M (T, COUNT, nd, 1, 3)                                                                           \
  M (T, I64S, kernel, 3, nd, 1)                                                                    \
  M (T, I64S, stride, 3, nd, 1)                                                                    \
  M (T, I64S, pad_begin, 3, nd, 0)                                                                 \
  M (T, I64S, pad_end, 3, nd, 0)                                                                   \
  M (T, I64S, dilation, 3, nd, 1)                                                                  \
  M (T, FLAG, count_include_pad)
CN_PARAMS_TYPEDEF (pool);

/* reshape: the same elements in C order under the target shape (equal element counts). */
#define CN_PARAMS_reshape(M, T)                                                                    \
  M (T, SHAPE, shape)
CN_PARAMS_TYPEDEF (reshape);

/* permute: output axis i is input axis perm[i]; perm is a permutation of 0..rank-1. */
#define CN_PARAMS_permute(M, T)                                                                    \
  M (T, COUNT, rank, 0, CN_MAX_RANK)                                                               \
  M (T, INTS, perm, CN_MAX_RANK, rank, INT_MIN)
CN_PARAMS_TYPEDEF (permute);

/* broadcast: numpy broadcasting of the input to SHAPE (trailing axes aligned; an input extent
 * is 1 or equal to the target's). */
#define CN_PARAMS_broadcast(M, T)                                                                  \
  M (T, SHAPE, shape)
CN_PARAMS_TYPEDEF (broadcast);

/* pad: constant padding, begin[i] and end[i] >= 0 elements before and after axis i. */
#define CN_PARAMS_pad(M, T)                                                                        \
  M (T, COUNT, rank, 0, CN_MAX_RANK)                                                               \
  M (T, I64S, begin, CN_MAX_RANK, rank, 0)                                                         \
  M (T, I64S, end, CN_MAX_RANK, rank, 0)                                                           \
  M (T, F64, value)
CN_PARAMS_TYPEDEF (pad);

/* slice: on every axis i, the elements start[i], start[i]+step[i], ... below stop[i], with
 * 0 <= start[i] <= stop[i] <= extent and step[i] >= 1 (normalised by the importer). */
#define CN_PARAMS_slice(M, T)                                                                      \
  M (T, COUNT, rank, 0, CN_MAX_RANK)                                                               \
  M (T, I64S, start, CN_MAX_RANK, rank, 0)                                                         \
  M (T, I64S, stop, CN_MAX_RANK, rank, 0)                                                          \
  M (T, I64S, step, CN_MAX_RANK, rank, 1)
CN_PARAMS_TYPEDEF (slice);

/* cat: concatenation of its inputs (at least one) along AXIS. */
#define CN_PARAMS_cat(M, T)                                                                        \
  M (T, INT, axis, INT_MIN)
CN_PARAMS_TYPEDEF (cat);

#define CN_REDUCE_KIND_MAP(X)                                                                      \
  X (CN_REDUCE_SUM, "sum")                                                                         \
  X (CN_REDUCE_PROD, "prod")                                                                       \
  X (CN_REDUCE_MAX, "max")                                                                         \
  X (CN_REDUCE_MIN, "min")
typedef enum cn_reduce_kind { CN_REDUCE_KIND_MAP (CN__ENUMERATOR) } cn_reduce_kind;

/* reduce and mean: over the axes whose bit is set in AXES (bit i = axis i), keeping them as
 * extent 1 if keepdims.  The axes are distinct by construction. */
#define CN_PARAMS_reduce(M, T)                                                                     \
  M (T, ENUM, kind, cn_reduce_kind, CN_REDUCE_KIND_MAP)  /* ignored by mean */                     \
  M (T, AXES, axes)                                                                                \
  M (T, FLAG, keepdims)
CN_PARAMS_TYPEDEF (reduce);

#define CN_DIV_ROUNDING_MAP(X) X (CN_DIV_TRUE, "none") X (CN_DIV_TRUNC, "trunc") X (CN_DIV_FLOOR, "floor")
typedef enum cn_div_rounding { CN_DIV_ROUNDING_MAP (CN__ENUMERATOR) } cn_div_rounding;

/* div: torch.div's rounding_mode (None, "trunc", "floor"). */
#define CN_PARAMS_div(M, T)                                                                        \
  M (T, ENUM, rounding, cn_div_rounding, CN_DIV_ROUNDING_MAP)
CN_PARAMS_TYPEDEF (div);

/* batchNormRunning: inputs x, scale, bias, running mean, running variance (the last four of
 * extent C = x's extent on AXIS); y = scale*(x - mean)/sqrt(var + eps) + bias, eps > 0. */
#define CN_PARAMS_batchnorm(M, T)                                                                  \
  M (T, INT, axis, INT_MIN)                                                                        \
  M (T, F64, eps)
CN_PARAMS_TYPEDEF (batchnorm);

/* softmax, logSoftmax, maskedSoftmax: over AXIS (0 <= axis < rank).  maskedSoftmax takes a second
 * input, the mask (a bool port of x's shape; in a float evaluation an entry counts as true when it
 * is >= 0.5, so 0/1 read exactly): only the entries whose mask is true take part, the others are 0
 * (a row with no true entry is all 0). */
#define CN_PARAMS_softmax(M, T)                                                                    \
  M (T, INT, axis, INT_MIN)
CN_PARAMS_TYPEDEF (softmax);

/* layerNorm over the last axis (extent N): y = (x - mean) / sqrt(var + eps) (* weight + bias),
 * var the biased variance, eps finite and > 0.  affine = 0: one input x; affine = 1: inputs x,
 * weight [N], bias [N] (torch.nn.LayerNorm's elementwise_affine; a missing bias is zeros). */
#define CN_PARAMS_layernorm(M, T)                                                                  \
  M (T, F64, eps)                                                                                  \
  M (T, FLAG, affine)
CN_PARAMS_TYPEDEF (layernorm);

/* gelu: y = x Phi(x), Phi the standard normal distribution function (CN_GELU_NONE, the exact
 * form with erf), or PyTorch's approximate = "tanh":
 * y = x/2 (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))), the constant 0.044715 read as a decimal. */
#define CN_GELU_APPROX_MAP(X) X (CN_GELU_NONE, "none") X (CN_GELU_TANH, "tanh")
typedef enum cn_gelu_approx { CN_GELU_APPROX_MAP (CN__ENUMERATOR) } cn_gelu_approx;
#define CN_PARAMS_gelu(M, T)                                                                       \
  M (T, ENUM, approximate, cn_gelu_approx, CN_GELU_APPROX_MAP)
CN_PARAMS_TYPEDEF (gelu);

/* elu: y = x for x > 0, alpha (exp(x) - 1) otherwise; alpha finite (torch.nn.ELU, ONNX Elu). */
#define CN_PARAMS_elu(M, T)                                                                        \
  M (T, F64, alpha)
CN_PARAMS_TYPEDEF (elu);

/* leakyReLU: y = x for x > 0, negative_slope x otherwise; the slope finite (torch.nn.LeakyReLU,
 * ONNX LeakyRelu's alpha). */
#define CN_PARAMS_leaky_relu(M, T)                                                                 \
  M (T, F64, negative_slope)
CN_PARAMS_TYPEDEF (leaky_relu);

/* sqrt: CN_SQRT_RAW (the default) is the IEEE square root, a NaN below zero;
 * CN_SQRT_CLAMP_NEGATIVE is the root of max(x, 0) (a NaN stays a NaN). */
#define CN_SQRT_MODE_MAP(X) X (CN_SQRT_RAW, "raw") X (CN_SQRT_CLAMP_NEGATIVE, "clampNegative")
typedef enum cn_sqrt_mode { CN_SQRT_MODE_MAP (CN__ENUMERATOR) } cn_sqrt_mode;
#define CN_PARAMS_sqrt(M, T)                                                                       \
  M (T, ENUM, mode, cn_sqrt_mode, CN_SQRT_MODE_MAP)
CN_PARAMS_TYPEDEF (sqrt);

/* scale: y = factor x, the factor finite. */
#define CN_PARAMS_scale(M, T)                                                                      \
  M (T, F64, factor)
CN_PARAMS_TYPEDEF (scale);

/* addcmul, addcdiv: y = x + value t1 t2, y = x + value t1 / t2 (torch.addcmul, torch.addcdiv),
 * value finite. */
#define CN_PARAMS_addc(M, T)                                                                       \
  M (T, F64, value)
CN_PARAMS_TYPEDEF (addc);

/* nanToNum: torch.nan_to_num: a NaN becomes NAN_VALUE, +inf becomes POSINF if posinf_set, else
 * the largest finite value of the tensor's sort, -inf NEGINF if neginf_set, else the most
 * negative finite value.  A zero record is torch's default (nan = 0). */
#define CN_PARAMS_nan_to_num(M, T)                                                                 \
  M (T, F64X, nan_value)                                                                           \
  M (T, F64X, posinf)                                                                              \
  M (T, F64X, neginf)                                                                              \
  M (T, FLAG, posinf_set)                                                                          \
  M (T, FLAG, neginf_set)
CN_PARAMS_TYPEDEF (nan_to_num);

/* fullLike: the input's shape filled with VALUE (torch.full_like). */
#define CN_PARAMS_full_like(M, T)                                                                  \
  M (T, F64X, value)
CN_PARAMS_TYPEDEF (full_like);

/* safeDiv x/(y + eps), safeInv 1/(x + eps), safeLog log(softplus(x) + eps) and smoothAbs
 * sqrt(x^2 + eps): eps finite, and eps >= 0 for safeLog and smoothAbs. */
#define CN_PARAMS_epsilon(M, T)                                                                    \
  M (T, F64, eps)
CN_PARAMS_TYPEDEF (epsilon);

/* scaledMatmul: y = scale (A @ B), matmul's numpy semantics, SCALE finite (the 1/sqrt(d) of
 * attention scores). */
#define CN_PARAMS_scaled_matmul(M, T)                                                              \
  M (T, F64, scale)
CN_PARAMS_TYPEDEF (scaled_matmul);

/* contract: a tensor contraction of two operands (torch.tensordot with paired axes): the axes
 * A's a_axes[i] and B's b_axes[i] (i < n, equal extents, distinct in each operand) are summed
 * over; the output is A's free axes in order, then B's free axes in order. */
#define CN_PARAMS_contract(M, T)                                                                   \
  M (T, COUNT, n, 0, CN_MAX_RANK)                                                                  \
  M (T, INTS, a_axes, CN_MAX_RANK, n, INT_MIN)                                                     \
  M (T, INTS, b_axes, CN_MAX_RANK, n, INT_MIN)
CN_PARAMS_TYPEDEF (contract);

/* The losses (mseLoss, maeLoss, huberLoss, hingeLoss, poissonLoss, logCoshLoss, binaryCrossEntropy,
 * cosineLoss, crossEntropy, crossEntropyProbabilities, distill): REDUCTION as torch's reduction
 * (a zero record is "mean"); DELTA > 0 (huberLoss), MARGIN finite (hingeLoss), EPS (cosineLoss: > 0;
 * crossEntropyProbabilities: in [0, 1)), TEMPERATURE > 0 (distill); the other fields are ignored.
 * src/ops/loss.c states each loss's ports and formula. */
#define CN_LOSS_REDUCTION_MAP(X) X (CN_LOSS_MEAN, "mean") X (CN_LOSS_SUM, "sum") X (CN_LOSS_NONE, "none")
typedef enum cn_loss_reduction { CN_LOSS_REDUCTION_MAP (CN__ENUMERATOR) } cn_loss_reduction;
#define CN_PARAMS_loss(M, T)                                                                       \
  M (T, ENUM, reduction, cn_loss_reduction, CN_LOSS_REDUCTION_MAP)                                 \
  M (T, F64X, delta)                                                                               \
  M (T, F64X, margin)                                                                              \
  M (T, F64X, eps)                                                                                 \
  M (T, F64X, temperature)
CN_PARAMS_TYPEDEF (loss);

/* cumsum, cumprod, cummax, cummin: the running sum, product, maximum or minimum along AXIS
 * (0 <= axis < rank), the output of the input's shape (torch.cumsum, ..., values output). */
#define CN_PARAMS_cumulative(M, T)                                                                 \
  M (T, INT, axis, INT_MIN)
CN_PARAMS_TYPEDEF (cumulative);

/* sort: the values of torch.sort(x, dim = axis, descending, stable = True) (0 <= axis < rank). */
#define CN_PARAMS_sort(M, T)                                                                       \
  M (T, INT, axis, INT_MIN)                                                                        \
  M (T, FLAG, descending)
CN_PARAMS_TYPEDEF (sort);

/* topk: torch.topk(x, k, dim = axis, largest, sorted = True): the values at output 0 and their
 * indices at output 1, 0 <= k <= the extent on AXIS; the outputs have extent K there.  Tied
 * entries: with TIES_BY_INDEX = 0 (the seed's policy for PyTorch, whose topk leaves them
 * unspecified) evaluation fails where they decide the selection; with 1 the lower index comes
 * first (ONNX's TopK). */
#define CN_PARAMS_topk(M, T)                                                                       \
  M (T, INT, axis, INT_MIN)                                                                        \
  M (T, I64, k, 0)                                                                                 \
  M (T, FLAG, largest)                                                                             \
  M (T, FLAG, ties_by_index)
CN_PARAMS_TYPEDEF (topk);

/* argmax, argmin: the index along AXIS of the first (select_last_index: the last) extreme entry,
 * as a float holding an integer; the axis removed, or kept with extent 1 if keepdims
 * (torch.argmax, ONNX ArgMax). */
#define CN_PARAMS_argmax(M, T)                                                                     \
  M (T, INT, axis, INT_MIN)                                                                        \
  M (T, FLAG, keepdims)                                                                            \
  M (T, FLAG, select_last_index)
CN_PARAMS_TYPEDEF (argmax);

/* gather: torch.gather(x, axis, index) (ONNX GatherElements): x [S], index [I] of x's rank with
 * I[a] <= S[a] for a != axis; output [I], out[i] = x[i with i_axis replaced by index[i]].
 * scatter: torch.scatter / scatter_reduce(x, axis, index, src, reduce) with include_self (ONNX
 * ScatterElements): src of index's shape; out = x, then for every index position i in row-major
 * order out[t(i)] = fold(out[t(i)], src[i]), t(i) = i with i_axis replaced by index[i] (REPLACE:
 * the last write wins).  Index entries are integers in [0, S[axis]) (in a float evaluation the
 * index port holds them as floats; others are refused with CN_EINVAL). */
#define CN_PARAMS_gather(M, T)                                                                     \
  M (T, INT, axis, INT_MIN)
CN_PARAMS_TYPEDEF (gather);
#define CN_SCATTER_REDUCE_MAP(X)                                                                   \
  X (CN_SCATTER_REPLACE, "replace")                                                                \
  X (CN_SCATTER_SUM, "sum")                                                                        \
  X (CN_SCATTER_PROD, "prod")                                                                      \
  X (CN_SCATTER_MAX, "max")                                                                        \
  X (CN_SCATTER_MIN, "min")
typedef enum cn_scatter_reduce { CN_SCATTER_REDUCE_MAP (CN__ENUMERATOR) } cn_scatter_reduce;
#define CN_PARAMS_scatter(M, T)                                                                    \
  M (T, INT, axis, INT_MIN)                                                                        \
  M (T, ENUM, reduce, cn_scatter_reduce, CN_SCATTER_REDUCE_MAP)
CN_PARAMS_TYPEDEF (scatter);

/* indices: the input's shape filled with each entry's index along AXIS (an index output). */
#define CN_PARAMS_indices(M, T)                                                                    \
  M (T, INT, axis, INT_MIN)
CN_PARAMS_TYPEDEF (indices);

/* flip: reverses the axes whose bit is set in AXES (bit a = axis a; torch.flip). */
#define CN_PARAMS_flip(M, T)                                                                       \
  M (T, AXES, axes)
CN_PARAMS_TYPEDEF (flip);

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
#define CN_PARAMS_cast(M, T)                                                                       \
  M (T, DTYPE, to)
CN_PARAMS_TYPEDEF (cast);

/* bitcast: each element read as a word of TO of the same width.  The model's scalar travels as
 * binary32 (width 32) or binary64 (width 64): CN_DTYPE_F32 / CN_DTYPE_F64 name those formats
 * (the scalar is first rounded to that format; exact when the evaluation sort is that format, and
 * a word read as a float is then held in the evaluation's sort). */
#define CN_PARAMS_bitcast(M, T)                                                                    \
  M (T, DTYPE, to)
CN_PARAMS_TYPEDEF (bitcast);

/* encodeIndex: index tuples -> words.  Input: an index port of shape [..., R] (the last axis holds
 * a tuple of R components, component c in [0, bound[c])); output: integer sort WORD of shape
 * [...], the row-major linear index sum_c i_c prod_{c' > c} bound[c'].  A component outside its
 * bound, or a linear index WORD cannot hold, fails at evaluation (CN_ENUMERIC).
 * decodeIndex: the inverse, an integer port of sort WORD and shape [...] -> an index port of
 * shape [..., R]; a word outside [0, prod bound) fails at evaluation.  1 <= R <= CN_MAX_RANK - 1,
 * every bound >= 1. */
#define CN_PARAMS_index_code(M, T)                                                                 \
  M (T, COUNT, r, 1, CN_MAX_RANK - 1)                                                              \
  M (T, I64S, bound, CN_MAX_RANK, r, 1)                                                            \
  M (T, DTYPE, word)
CN_PARAMS_TYPEDEF (index_code);

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
#define CN_PARAMS_rand_uniform(M, T)                                                               \
  M (T, SHAPE, shape)                                                                              \
  M (T, F64, lo)                                                                                   \
  M (T, F64, hi)
CN_PARAMS_TYPEDEF (rand_uniform);
#define CN_PARAMS_randn(M, T)                                                                      \
  M (T, SHAPE, shape)                                                                              \
  M (T, F64, mean)                                                                                 \
  M (T, F64, std)
CN_PARAMS_TYPEDEF (randn);
#define CN_PARAMS_bernoulli(M, T)                                                                  \
  M (T, SHAPE, shape)                                                                              \
  M (T, F64, p)
CN_PARAMS_TYPEDEF (bernoulli);  /* 0 <= p <= 1 */
#define CN_PARAMS_dropout(M, T)                                                                    \
  M (T, F64, p)
CN_PARAMS_TYPEDEF (dropout);  /* 0 <= p < 1 */
#define CN_PARAMS_topk_mask(M, T)                                                                  \
  M (T, INT, axis, INT_MIN)                                                                        \
  M (T, I64, k, 0)                                                                                 \
  M (T, FLAG, largest)
CN_PARAMS_TYPEDEF (topk_mask);

/* ---- transposed convolution, smooth max pooling (src/ops/conv.c, src/ops/pool.c) ----
 * convTranspose: inputs x [N, C, S_1..S_d], weight [C, F/groups, K_1..K_d], bias [F]; output
 * [N, F, O_1..O_d], O_i = (S_i - 1) stride_i - pad_begin_i - pad_end_i + dilation_i (K_i - 1)
 * + output_padding_i + 1 (torch.nn.ConvTranspose, ONNX ConvTranspose); output_padding_i <
 * max(stride_i, dilation_i).  1 <= d <= 3.
 * smoothMaxPool: inputs x [N, C, S_1..S_d] and beta, a frozen scalar [] (validated: finite and
 * nonzero); the window of cn_params_pool (its kind ignored, padded positions left out); output
 * (1/beta) log sum_{window} exp(beta x), the log-sum-exp smooth maximum (a minimum for beta < 0). */
#define CN_PARAMS_conv_transpose(M, T)                                                             \
  M (T, COUNT, nd, 1, 3)                                                                           \
  M (T, I64S, stride, 3, nd, 1)                                                                    \
  M (T, I64S, pad_begin, 3, nd, 0)                                                                 \
  M (T, I64S, pad_end, 3, nd, 0)                                                                   \
  M (T, I64S, dilation, 3, nd, 1)                                                                  \
  M (T, I64S, output_padding, 3, nd, 0)                                                            \
  M (T, I64, groups, 1)
CN_PARAMS_TYPEDEF (conv_transpose);

/* ---- attention (src/ops/attention.c) ----
 * attentionFromScores(scores [..., L, S], v [..., S, E]) = softmax(scores, last axis) @ v.
 * attention(q [..., L, D], k [..., S, D], v [..., S, E]) = softmax(scale q k^T + causal mask) @ v,
 *   SCALE finite and > 0, or 0 for 1/sqrt(D); CAUSAL: query i attends to keys j <= i + S - L.
 * multiheadAttention(query [..., L, M], key [..., S, M], value [..., S, M], in_proj_weight [3M, M],
 *   in_proj_bias [3M], out_proj_weight [M, M], out_proj_bias [M]): torch.nn.MultiheadAttention
 *   (batch_first) with HEADS heads (M divisible by HEADS), the per-head scale 1/sqrt(M/HEADS),
 *   the attention weights not returned. */
#define CN_PARAMS_attention(M, T)                                                                  \
  M (T, F64, scale)                                                                                \
  M (T, FLAG, causal)
CN_PARAMS_TYPEDEF (attention);
#define CN_PARAMS_multihead(M, T)                                                                  \
  M (T, INT, heads, 1)                                                                             \
  M (T, FLAG, causal)
CN_PARAMS_TYPEDEF (multihead);

/* ---- spectral transforms and the selective scan (src/ops/spectral.c) ----
 * rfft: x [..., N] -> [..., N/2 + 1, 2] (real and imaginary parts on the last axis), the DFT
 *   X_k = sum_n x_n e^{-2 pi i k n / N} along the last axis, scaled by NORM.
 * irfft: X [..., M, 2] -> [..., N] with N = cn_params_fft.n (M = N/2 + 1), the inverse of rfft
 *   (the imaginary parts of the k = 0 and, for even N, k = N/2 terms ignored, as numpy's irfft),
 *   scaled by NORM.
 * selectiveScan (Mamba's S6 recurrence): inputs u [..., L, D], delta [..., L, D], A [D, P],
 *   B [..., L, P], C [..., L, P], Dskip [D]; h_0 = 0, h_t[d,p] = exp(delta_t[d] A[d,p]) h_{t-1}[d,p]
 *   + delta_t[d] B_t[p] u_t[d], y_t[d] = sum_p C_t[p] h_t[d,p] + Dskip[d] u_t[d]; output [..., L, D]. */
#define CN_FFT_NORM_MAP(X)                                                                         \
  X (CN_FFT_BACKWARD, "backward")                                                                  \
  X (CN_FFT_ORTHO, "ortho")                                                                        \
  X (CN_FFT_FORWARD, "forward")
typedef enum cn_fft_norm { CN_FFT_NORM_MAP (CN__ENUMERATOR) } cn_fft_norm;
#define CN_PARAMS_fft(M, T)                                                                        \
  M (T, I64, n, INT64_MIN)                                                                         \
  M (T, ENUM, norm, cn_fft_norm, CN_FFT_NORM_MAP)
CN_PARAMS_TYPEDEF (fft);  /* rfft ignores n */

/* ---- custom (src/ops/custom.c) ----
 * custom: a node whose forward evaluates a program, a graph whose inputs are the node's inputs
 * (in order, shapes equal) and whose output 0 is the node's output; its IBP, MPFI and derivative
 * arms run the program's nodes through their own arms.  The record borrows PROGRAM: the caller
 * keeps it alive (and unchanged) as long as any graph holding the node. */
#define CN_PARAMS_custom(M, T)                                                                     \
  M (T, PROGRAM, program)                                                                          \
  M (T, NAME, name, 64)
CN_PARAMS_TYPEDEF (custom);

/* Every attribute record, by name, once: the table makes a descriptor of each, and callers may
 * make storage for any record of it (a union with one member per record, say). */
#define CN_PARAMS_RECORDS(X)                                                                       \
  X (conv) X (pool) X (reshape) X (permute) X (broadcast) X (pad) X (slice) X (cat) X (reduce)     \
  X (div) X (batchnorm) X (softmax) X (layernorm) X (gelu) X (elu) X (leaky_relu) X (sqrt)         \
  X (scale) X (addc) X (nan_to_num) X (full_like) X (epsilon) X (scaled_matmul) X (contract)       \
  X (loss) X (cumulative) X (sort) X (topk) X (argmax) X (gather) X (scatter) X (indices)          \
  X (flip) X (cast) X (bitcast) X (index_code) X (rand_uniform) X (randn) X (bernoulli)            \
  X (dropout) X (topk_mask) X (conv_transpose) X (attention) X (multihead) X (fft) X (custom)

/* The size of the attribute record OP takes, the one its ops.def row names (0 for none and for an
 * invalid OP), whether or not the operator has a rule; the graph builder copies that many bytes
 * from the pointer it is given. */
CN_API size_t cn_op_params_size (cn_op op);

#ifdef __cplusplus
}
#endif
#endif
