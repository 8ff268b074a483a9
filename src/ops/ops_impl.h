/* SPDX-License-Identifier: MIT */
/* src/ops/ops_impl.h: the rule of an operator, as the engines see it (internal).
 *
 * Each operator's rule is one designated-initializer struct, cn__rule_<ID>, in its family's
 * file under src/ops/.  Consumers (the graph builder and evaluator, IBP, CROWN, the MPFI
 * reference, the coverage report) call through these pointers and never switch on the
 * operator.  An arm left NULL means "not supported", and the coverage report says so.
 *
 * The table sits above the core (tensors, boxes, status) and the sound arithmetic with its
 * relaxation kit (src/sound), and below everything else: this header and the rule files include
 * nothing of the graph, the engines or the readers (tests/layering.sh checks it). */
#ifndef CN_OPS_IMPL_H
#define CN_OPS_IMPL_H

#include <math.h>
#include <mpfi.h>
#include "certnn/box.h"
#include "certnn/mpfi_vec.h"
#include "certnn/ops.h"
#include "certnn/tensor.h"
#include "core/assert.h"
#include "sound/relax.h"

/* The element sort of a port (the seed's Port.Kind).  The graph builder checks every input
 * against its port before the rule's check runs: VALUE, FROZEN, DETACHED and INDEX ports take
 * values of the model's scalar (a floating sort), BOOL ports CN_DTYPE_BOOL values, INTEGER ports
 * integer words (CN_DTYPE_I8 .. CN_DTYPE_U64; the rule's out_sort checks which), ANY ports any sort
 * (out_sort checks it).  Gradients flow to VALUE ports only. */
typedef enum cn_port_kind
{
  CN_PORT_VALUE,      /* the model's scalar; receives a gradient */
  CN_PORT_FROZEN,     /* the model's scalar, never differentiated (attributes as data) */
  CN_PORT_DETACHED,   /* the model's scalar, read without sending a gradient back */
  CN_PORT_INDEX,      /* integers held in the model's scalar (gather's index, ...) */
  CN_PORT_BOOL,       /* Booleans, CN_DTYPE_BOOL (one byte, 0 or 1) */
  CN_PORT_INTEGER,    /* integer words */
  CN_PORT_ANY,        /* any sort (cast, bitcast) */
  CN_PORT_ELEMENT     /* the seed's element argument (Op.Element, Op.NumericElement): a value port
                         when it holds the model's scalar; it may also hold Booleans or integer
                         words, which the operator moves (or computes on) without gradients.  The
                         rule's out_sort checks that the element ports agree. */
} cn_port_kind;

struct cn_op_rule;

/* A certificate record (certnn/ops.h), declared beside its operator's rule through the macros
 * below.  AT and FACTOR serve CONVENTION records about an elementwise rule: where every varying
 * input entry equals AT (NaN: at any point), the arm's derivative in input i is FACTOR[i] (the
 * pullback returns FACTOR[i] w, the jvp sums FACTOR[i] t_i).  The list ends with a record whose
 * name is NULL. */
struct cn_op_cert
{
  cn_cert_kind kind;
  cn_cert_arm arm;
  unsigned inputs;                    /* bit i: input i; 0: every value input of the rule */
  const char *name;
  const char *statement;
  double at, factor[2];
};

/* A rule's record list, ended by the NULL record: .certs = CN__CERTS (record, ...).  A record's
 * name is its own (the operator's name goes before it: "relu.pullback_derivative"). */
#define CN__CERTS(...) ((const struct cn_op_cert[]) { __VA_ARGS__, { .name = NULL } })
/* The records most rules carry. */
#define CN__CERT_ADJOINT                                                                           \
  { .kind = CN_CERT_ALGEBRAIC, .arm = CN_CERT_ARM_PULLBACK, .name = "pullback_adjoint",                 \
    .statement = "<pullback(x; w), t> = <w, jvp(x; t)> for every cotangent w, tangent t and point x: the "      \
    "pullback is the adjoint of the forward-mode tangent map (no claim that the map is a derivative)" }
#define CN__CERT_DERIVATIVE                                                                        \
  { .kind = CN_CERT_DERIVATIVE, .arm = CN_CERT_ARM_PULLBACK, .name = "pullback_derivative",             \
    .statement = "<pullback(x; w), t> = d/ds <w, f(x + s t)> at s = 0 at every point x of the domain where f, "  \
    "the forward in exact real arithmetic, is differentiable (the value inputs varied, the others fixed)" }
#define CN__CERT_JVP_DERIVATIVE                                                                    \
  { .kind = CN_CERT_DERIVATIVE, .arm = CN_CERT_ARM_JVP, .name = "jvp_derivative",                       \
    .statement = "jvp(x; t) = d/ds f(x + s t) at s = 0 at every point x where f is differentiable" }
#define CN__CERT_IBP                                                                               \
  { .kind = CN_CERT_ENCLOSURE, .arm = CN_CERT_ARM_IBP, .name = "ibp_encloses",                          \
    .statement = "f(x) lies in ibp(B) for every x in the input boxes B, f the forward in exact real arithmetic" }
#define CN__CERT_CROWN                                                                             \
  { .kind = CN_CERT_ENCLOSURE, .arm = CN_CERT_ARM_CROWN, .name = "crown_step_sound",                    \
    .statement = "for every row s and every x in the input boxes: lam_out[s] . f(x) >= sum_i lam_in_i[s] . x_i + " \
    "bias[s] - charge[s] (the step's lines bound f in exact real arithmetic)" }
#define CN__CERT_CHECKER                                                                           \
  { .kind = CN_CERT_ENCLOSURE, .arm = CN_CERT_ARM_CHECKER, .name = "checker_step_sound",                \
    .statement = "for every row s and every x in the input boxes: L[s] . f(x) >= sum_i D_i[s] . x_i + b[s] for " \
    "exact reals in the intervals the checker's step added (its lines bound f in exact real arithmetic)" }
/* The ROUNDOFF record of a rule with a ROUNDOFF32 hook: STATEMENT says how the bound is derived. */
#define CN__CERT_ROUNDOFF32(STATEMENT)                                                             \
  { .kind = CN_CERT_ROUNDOFF, .arm = CN_CERT_ARM_FORWARD, .name = "binary32_roundoff",                  \
    .statement = "for binary32 words u in the input boxes, |fl32(f)(u) - f(u)| <= roundoff32(boxes) entry by " \
    "entry, fl32 the binary32 evaluation in any order of its sums, fused multiply-adds or not: " STATEMENT }
/* The pullback's two (a rule with a pullback and a jvp), the two bound arms'. */
#define CN__CERT_GRADIENT CN__CERT_DERIVATIVE, CN__CERT_ADJOINT
#define CN__CERT_BOUNDS CN__CERT_IBP, CN__CERT_CROWN
/* A convention: at x = AT in every varying entry (NaN: anywhere) the derivative of arm ARM in
 * input 0 is F0 (and in input 1 F1). */
#define CN__CERT_CONVENTION(ARM, NAME, STATEMENT, AT, F0, F1)                                        \
  { .kind = CN_CERT_CONVENTION, .arm = ARM, .name = NAME, .statement = STATEMENT, .at = AT,            \
    .factor = { F0, F1 } }

/* ---- the certificate checker's step (src/proof, ALGORITHMS.md 6) -------------------------
 *
 * The checker of bound certificates re-derives each CROWN bound a certificate claims in MPFI
 * interval arithmetic, through these steps and the operators' MPFI arms alone (none of the fast
 * path's binary64 sweeps or error charges).  A step is one backward step through a node
 * v = f(u_1 .. u_n) with every coefficient an interval.  Its contract: for every exact real
 * choice L of the rows' coefficients in LAM_OUT's intervals there are exact reals in what the
 * step ADDS to LAM_IN[i] (D_i, rows x numel(u_i)) and to BIAS (b, rows) with
 *     L[s] . v  >=  sum_i D_i[s] . u_i + b[s]   for every u with u_i in IN_BOX[i] (exact reals),
 * every s.  Chained from the output back to the graph input, the sweep's intervals then hold a
 * linear lower bound of the rows valid over the box, whose minimum over the box is at least the
 * left end of the concretised interval. */
typedef struct cn_proof_step
{
  const struct cn_node_view *nv;
  int64_t rows;
  mpfi_t *lam_out;                    /* rows x numel(out) */
  mpfi_t *const *lam_in;              /* n_in entries, rows x numel(u_i), added to; NULL for a
                                         constant input */
  const cn_mpfi_vec *const *in_box;   /* n_in enclosures of the inputs over the domain (a constant:
                                         its exact values, as points) */
  mpfi_t *bias;                       /* rows, added to */
  int slope;                          /* cn_slope: relu's lower line on an unstable entry */
  const double *alpha;                /* NULL, or rows x numel(out) lower slopes in [0, 1] of a
                                         relaxation with free lines (relu), NaN: by SLOPE */
  mpfi_ptr tmp;                       /* scratch interval at the sweep's precision */
} cn_proof_step;

/* Whether interval X is one point. */
static inline int
cn__proof_is_point (mpfi_srcptr x)
{
  return mpfr_equal_p (&x->left, &x->right);
}

/* ACC += L w for the interval L and the number W, on the intervals' ends: for w >= 0 every
 * A* + L* w (A* in ACC, L* in L) lies in [RD (A_lo + RD (L_lo w)), RU (A_hi + RU (L_hi w))], the
 * ends of L swapped for w < 0.  The same enclosure as mpfi_mul_fr and mpfi_add, without their
 * temporaries (the checker's inner loop; a NaN end stays NaN and fails the check). */
static inline void
cn__proof_add_scaled (mpfi_ptr acc, mpfi_srcptr l, mpfr_srcptr w, mpfi_ptr tmp)
{
  int neg = mpfr_sgn (w) < 0;
  mpfr_mul (&tmp->left, neg ? &l->right : &l->left, w, MPFR_RNDD);
  mpfr_mul (&tmp->right, neg ? &l->left : &l->right, w, MPFR_RNDU);
  mpfr_add (&acc->left, &acc->left, &tmp->left, MPFR_RNDD);
  mpfr_add (&acc->right, &acc->right, &tmp->right, MPFR_RNDU);
}

/* ACC += L x for the interval L and the interval X (a constant's point, or a box). */
static inline void
cn__proof_add_product (mpfi_ptr acc, mpfi_srcptr l, mpfi_srcptr x, mpfi_ptr tmp)
{
  if (cn__proof_is_point (x))
    {
      cn__proof_add_scaled (acc, l, &x->left, tmp);
      return;
    }
  mpfi_mul (tmp, l, x);
  mpfi_add (acc, acc, tmp);
}

/* What an arm sees of a node: its rule, its attributes and the shapes of its ports. */
typedef struct cn_node_view
{
  cn_op op;
  const struct cn_op_rule *rule;      /* the operator's rule (its impl holds the family's data) */
  const void *params;                 /* the attribute record, NULL if the op has none */
  int n_in;
  const cn_shape *const *in_shape;    /* n_in shapes */
  const cn_tensor *const *in_const;   /* n_in entries: the constant tensor, or NULL */
  const cn_shape *out_shape;          /* the shape of the output this view computes */
  int out_index;                      /* which output that is: 0, or 1 .. n_out-1 of a rule with
                                         several outputs (the arms of a single-output rule never
                                         look at it) */
  const char *name;                   /* the node's name, for messages */
  const cn_dtype *in_sort;            /* n_in entries: the inputs' sorts as out_sort saw them
                                         (CN_DTYPE_F64 for the model's scalar), or NULL when
                                         unknown; the IBP and MPFI arms of word operators need
                                         them (a box holds a word's value, not its sort) */
  const int *in_value;                /* n_in entries: the graph's value numbers of the inputs, or
                                         NULL when unknown (a view made outside a graph): equal
                                         numbers are one value, a dependency an arm may use (mul of
                                         a value by itself is its square) and must not assume
                                         otherwise */
} cn_node_view;

enum
{
  CN_RULE_NEEDS_BOUNDS = 1u << 0,     /* the CROWN arm relaxes: its inputs need sound boxes */
  CN_RULE_SMOOTH_BOUNDS = 1u << 1,    /* its lines depend on every entry's whole box, not only on
                                         the sign the box leaves open (sigmoid, tanh, exp, ...):
                                         CROWN tightens all of its input's entries */
  CN_RULE_SORTS_LITERAL = 1u << 2     /* out_sort sees the inputs' floating sorts as they are (not
                                         as CN_DTYPE_F64), and the floating sort it writes is the
                                         output's declared sort, recorded as is (cast) */
};

/* An operator's rule: everything the engines know of it, in one designated-initializer struct
 * (cn__rule_<ID>, in its family's file).  Every hook receives the rule itself, so that the
 * family's shared code reads the operator's own data from IMPL instead of a second table. */
struct cn_op_rule
{
  /* ---- identity ---------------------------------------------------------------------------- */
  cn_op op;                           /* the operator this rule is for (its ops.def row) */
  const void *impl;                   /* the family's data for this operator (its function, its
                                         kind, its name in messages ...), read by the family's
                                         shared hooks; NULL where the hooks need none */
  /* The attribute record is not a field: it is the one its ops.def row names (fifth column),
   * declared in certnn/ops.h and sized by cn_op_params_size; CHECK checks its values. */

  /* ---- ports --------------------------------------------------------------------------------
   * N_IN inputs (-1: variadic, at least one) of the sorts IN_KIND (NULL: all value ports; a
   * variadic rule's ports all take in_kind[0]).  Several outputs (the seed's sort and topk with
   * their index tensor at a second output, batchNorm with its batch statistics): N_OUT outputs
   * (0 and 1 both mean one); OUT_NAME[K] names output K in messages and in the graph ("values",
   * "indices"; output K > 0 of node N is the value "N.<out_name>"); OUT_KIND[K] is CN_PORT_VALUE
   * for an output that carries gradients, CN_PORT_INDEX for an index tensor of the model's scalar
   * (the engines give it no cotangent and a zero tangent, and never call pullback or jvp for it);
   * NULL means all VALUE.  Every arm below computes ONE output: the one whose number the view's
   * out_index holds (the graph gives each output its own view), so a consumer runs an arm once
   * per output it needs, and the arms' contracts hold output by output (a pullback ADDS output
   * K's vector-Jacobian product, so the sum over outputs is the node's). */
  int n_in;
  const cn_port_kind *in_kind;
  int n_out;
  const char *const *out_name;
  const cn_port_kind *out_kind;

  /* ---- shapes and sorts ---------------------------------------------------------------------
   * CHECK checks the attributes and the input shapes; on success writes the output shape.  The
   * message names the operator ("conv: kernel extent 0 on axis 1").
   * OUT_SORT gives the sort of the output, NULL when it is the model's scalar.  IN holds the
   * inputs' sorts (the model's scalar reported as CN_DTYPE_F64); the hook checks the sorts of
   * INTEGER and ANY ports against the attributes (message naming the operator and both sorts) and
   * writes the output's: CN_DTYPE_F64 for the model's scalar, CN_DTYPE_F16 or CN_DTYPE_BF16 for
   * the model's scalar declared in that reduced format (cast to it: its value is one of the
   * format's numbers), CN_DTYPE_BOOL, or an integer sort.
   * OUT_EXTRA writes output K's shape and sort (1 <= K < n_out), called after check succeeded.
   * SORTS names the sorts the forward computes in, as the coverage report's Rule cell shows them,
   * when the ports do not say it (cn_op_coverage_get derives it from them: ports of the model's
   * scalar "f64, f32", bool ports "bool", integer ports "words", any and element ports all three,
   * and the output's "f64, f32" when out_sort is NULL); e.g. "f64, f32, words" for the
   * arithmetic, which takes no Booleans at its element ports.  NULL: derived. */
  cn_status (*check) (const struct cn_op_rule *rule, const void *params, int n_in, const cn_shape *const *in,
                      cn_shape *out, cn_error *err);
  cn_status (*out_sort) (const struct cn_op_rule *rule, const void *params, int n_in, const cn_dtype *in,
                         cn_dtype *out, cn_error *err);
  cn_status (*out_extra) (const struct cn_op_rule *rule, const void *params, int n_in, const cn_shape *const *in,
                          int k, cn_shape *shape, cn_dtype *sort, cn_error *err);
  const char *sorts;

  /* ---- evaluation and derivatives -----------------------------------------------------------
   * FORWARD evaluates.  Tensors of the model's scalar are of the evaluation's floating sort (f64
   * or f32, one sort for all of them), Boolean and integer tensors of their own sorts.  OUT is
   * initialised by the caller with the checked shape and sort.  Values the operator cannot take
   * (the seed's validate: an integer division by zero, ...) are refused before any output is
   * written, with CN_ENUMERIC or CN_EINVAL and a message naming the operator and node.
   * PULLBACK is reverse mode in binary64 at the point IN (the forward values, f64 tensors of the
   * input shapes; constants included) whose forward output is OUT: for every input i with
   * G_IN[i] != NULL, it ADDS to G_IN[i] (numel(in_i) entries) the vector-Jacobian product
   *     g_in[i][k] += sum_j g_out[j] d out_j / d in_i,k .
   * G_IN[i] is NULL for constants and for inputs that need no gradient.  Where f is not
   * differentiable the arm uses a documented one-sided choice (relu: 0 at 0).
   * JVP is forward mode in binary64 at the same point: it writes into T_OUT (numel(out) entries)
   *     t_out[j] = sum_i sum_k d out_j / d in_i,k  t_in[i][k]
   * over the inputs with T_IN[i] != NULL (the others' tangents are zero: constants, index, bool
   * and integer ports), with the same one-sided choices as the pullback, so that the two stay
   * adjoint. */
  cn_status (*forward) (const cn_node_view *nv, const cn_tensor *const *in, cn_tensor *out,
                        cn_error *err);
  cn_status (*pullback) (const cn_node_view *nv, const cn_tensor *const *in, const cn_tensor *out,
                         const double *g_out, double *const *g_in, cn_error *err);
  cn_status (*jvp) (const cn_node_view *nv, const cn_tensor *const *in, const cn_tensor *out,
                    const double *const *t_in, double *t_out, cn_error *err);

  /* ---- bounds -------------------------------------------------------------------------------
   * IBP: OUT (initialised, numel(out)) must contain f(x) for every x in the input boxes, in
   * exact real arithmetic.  Boxes (ibp) and MPFI vectors (ibp_mpfi) of Boolean and integer values
   * hold the numbers themselves (false = 0, true = 1), as intervals: a Boolean box [0, 1] is
   * "unknown".  IBP_MPFI: the same in MPFI at the precision of OUT's intervals (the reference).
   * CROWN: one backward step (cn_crown_step, src/sound/relax.h); an arm without a relaxation for
   * the instance returns CN_EUNSUPPORTED and the sweep discharges the node over its IBP box.
   * FLAGS: CN_RULE_NEEDS_BOUNDS, CN_RULE_SMOOTH_BOUNDS.  CUDA: a CUDA kernel implements it. */
  cn_status (*ibp) (const cn_node_view *nv, const cn_box *const *in, cn_box *out, cn_error *err);
  cn_status (*ibp_mpfi) (const cn_node_view *nv, const cn_mpfi_vec *const *in, cn_mpfi_vec *out,
                         cn_error *err);
  cn_status (*crown) (const cn_crown_step *st, cn_error *err);
  /* ALPHA (alpha-CROWN, ALGORITHMS.md 4.1): a CROWN arm whose lines have a free parameter per
   * output entry, sound for every value in a set that the input box gives (relu's lower slope in
   * [0, 1]), reads them from cn_crown_step.theta when the sweep gives it, and fills the step's
   * grad_a and grad_b.  This hook writes one row of THETA (numel(out) entries) over the input
   * box IN: with INIT, the value the arm takes without parameters under SLOPE (a cn_slope);
   * otherwise it projects every entry onto its valid set (NaN to the INIT value). */
  void (*alpha) (const cn_node_view *nv, const cn_box *in, int slope, int init, double *theta);
  /* READS_BOXES (optional, with the flags CN_RULE_NEEDS_BOUNDS, CN_RULE_SMOOTH_BOUNDS): whether
   * the instance NV's CROWN arm reads its input boxes at all (a product with a constant factor is
   * affine and reads none, so its inputs need no tightening); NULL: every instance does. */
  int (*reads_boxes) (const cn_node_view *nv);
  /* ALPHA_TAKES (optional, with ALPHA): whether the instance NV has such parameters at all (mul:
   * only with two inputs that are not graph constants); NULL: every instance has them. */
  int (*alpha_takes) (const cn_node_view *nv);
  /* PROOF: the certificate checker's backward step (cn_proof_step above); CN_EUNSUPPORTED for an
   * instance it does not take (the message names the node and why).  NULL: the checker refuses a
   * certificate whose network has the operator, and the coverage report says "none". */
  cn_status (*proof) (const cn_proof_step *st, cn_error *err);
  /* FORWARD_ROWS (optional): the forward of an operator whose CROWN arm is exact (affine), at
   * ROWS independent points at once, in binary64 and in any order of summation: a guide for
   * alpha-CROWN's gradient pass (src/crown/alpha.c), never a bound nor a model evaluation.  IN[i]
   * holds rows x numel(u_i) numbers, or for a constant input (nv->in_const[i] != NULL) its
   * numel(u_i) values once; OUT receives rows x numel(v).  CN_EUNSUPPORTED for an instance it
   * does not take (the engine then calls FORWARD row by row). */
  cn_status (*forward_rows) (const cn_node_view *nv, int64_t rows, const double *const *in, double *out, int threads,
                             cn_error *err);
  /* ROUNDOFF32 (the binary32 semantics, certnn/bounds.h): E (numel(out) entries) receives, for
   * every output entry j, an upper bound E[j] >= |fl32(f)(u)_j - f(u)_j| for every u whose entries
   * are binary32 words in the input boxes IN, where f is the forward in exact real arithmetic and
   * fl32(f) the operator evaluated in binary32 (round to nearest, gradual underflow) in any order
   * of its sums, with or without fused multiply-adds; +inf where the evaluation may overflow.
   * OUT is the IBP arm's box of f over IN.  The bound is the operator's ROUNDOFF record
   * (CN__CERT_ROUNDOFF32), whose statement says how it is derived.  CN_EUNSUPPORTED for an
   * instance it does not take (an attribute that is no binary32 word).  NULL: the operator
   * declares no binary32 evaluation, and the binary32 semantics refuses it. */
  cn_status (*roundoff32) (const cn_node_view *nv, const cn_box *const *in, const cn_box *out, double *e,
                           cn_error *err);
  unsigned flags;
  int cuda;

  /* ---- certificates -------------------------------------------------------------------------
   * The records of this rule (struct cn_op_cert above, certnn/ops.h), ended by a record whose
   * name is NULL; NULL: none.  tests/check_certs.c checks that every rule has some. */
  const struct cn_op_cert *certs;
};

/* ---- programs (the custom operator, src/ops/custom.c) ------------------------------------
 * A custom node carries a program, a graph (cn_params_custom.program).  The table cannot see the
 * graph: the IR sits above it.  So the IR gives every graph object a head, its first member (C11
 * 6.7.2.1: a pointer to a struct converts to a pointer to its first member), pointing to the
 * operations below (src/graph/program.c), and custom reaches its program through them.  Each
 * has the meaning of the public function it names (certnn/graph.h, certnn/tape.h) or of the
 * IR's interval passes (cn__graph_ibp, cn__graph_mpfi in src/graph/graph_impl.h). */
struct cn_graph;
typedef struct cn__program_ops
{
  int (*n_inputs) (const struct cn_graph *p);
  int (*n_outputs) (const struct cn_graph *p);
  const char *(*input_name) (const struct cn_graph *p, int i);
  const cn_shape *(*input_shape) (const struct cn_graph *p, int i);
  cn_dtype (*input_sort) (const struct cn_graph *p, int i);
  const cn_shape *(*output_shape) (const struct cn_graph *p, int k);
  cn_dtype (*output_sort) (const struct cn_graph *p, int k);
  /* cn_graph_eval */
  cn_status (*eval) (const struct cn_graph *p, cn_dtype dtype, const cn_tensor *in, cn_tensor *out, cn_error *err);
  /* cn_graph_vjp, cn_graph_jvp */
  cn_status (*vjp) (const struct cn_graph *p, const double *const *x, int output, const double *w, double *y,
                    double *const *g_x, cn_error *err);
  cn_status (*jvp) (const struct cn_graph *p, const double *const *x, const double *const *t_x, int output,
                    double *y, double *t_y, cn_error *err);
  /* cn__graph_ibp, cn__graph_mpfi */
  cn_status (*ibp) (const struct cn_graph *p, const cn_box *const *in, int output, cn_box *y, cn_error *err);
  cn_status (*mpfi) (const struct cn_graph *p, const cn_mpfi_vec *const *in, int output, mpfr_prec_t prec,
                     cn_mpfi_vec *y, cn_error *err);
} cn__program_ops;

/* The head every graph object starts with. */
struct cn__program_head
{
  const cn__program_ops *ops;
};

/* The operations of program P (a graph built by the IR). */
static inline const cn__program_ops *
cn__program_ops_of (const struct cn_graph *p)
{
  return ((const struct cn__program_head *) (const void *) p)->ops;
}

/* The number of outputs of RULE (at least 1). */
static inline int
cn__rule_n_out (const struct cn_op_rule *r)
{
  return r->n_out > 1 ? r->n_out : 1;
}

/* Whether output K of RULE carries gradients (a value output, not an index tensor). */
static inline int
cn__out_differentiable (const struct cn_op_rule *r, int k)
{
  return r->out_kind == NULL || r->out_kind[k] == CN_PORT_VALUE;
}

/* The sort of input I's port (VALUE when the rule lists none; a variadic rule's ports all take
 * in_kind[0]). */
static inline cn_port_kind
cn__port_kind (const struct cn_op_rule *r, int i)
{
  return r->in_kind == NULL ? CN_PORT_VALUE : r->in_kind[r->n_in < 0 ? 0 : i];
}

/* Whether input I of RULE, holding a value of sort SORT (the model's scalar as any floating sort),
 * passes gradients and tangents: a value port, or an element port holding the model's scalar. */
static inline int
cn__port_differentiable (const struct cn_op_rule *r, int i, cn_dtype sort)
{
  cn_port_kind k = cn__port_kind (r, i);
  return (k == CN_PORT_VALUE || k == CN_PORT_ELEMENT) && cn_dtype_is_float (sort);
}

/* Whether a value of sort SORT may sit at a port of kind K (the graph builder's and the wire
 * codec's first test; out_sort looks closer at INTEGER, ANY and ELEMENT ports). */
static inline int
cn__port_accepts (cn_port_kind k, cn_dtype sort)
{
  int is_float = cn_dtype_is_float (sort);
  switch (k)
    {
    case CN_PORT_BOOL: return sort == CN_DTYPE_BOOL;
    case CN_PORT_INTEGER: return !is_float && sort != CN_DTYPE_BOOL;
    case CN_PORT_ANY:
    case CN_PORT_ELEMENT: return 1;
    default: return is_float;
    }
}

/* A word sort (CN_DTYPE_I8 .. CN_DTYPE_U64): its width N, two's complement or not, the mask
 * 2^N - 1 and the sign bit 2^(N-1).  cn__wsort_of returns 0 for a sort that is not a word sort. */
typedef struct cn__wsort
{
  cn_dtype t;
  int w;
  int sgn;
  uint64_t mask;
  uint64_t top;
} cn__wsort;

static inline int
cn__wsort_of (cn_dtype t, cn__wsort *s)
{
  int w, sg;
  switch (t)
    {
    case CN_DTYPE_I8: w = 8; sg = 1; break;
    case CN_DTYPE_I16: w = 16; sg = 1; break;
    case CN_DTYPE_I32: w = 32; sg = 1; break;
    case CN_DTYPE_I64: w = 64; sg = 1; break;
    case CN_DTYPE_U8: w = 8; sg = 0; break;
    case CN_DTYPE_U16: w = 16; sg = 0; break;
    case CN_DTYPE_U32: w = 32; sg = 0; break;
    case CN_DTYPE_U64: w = 64; sg = 0; break;
    default: return 0;
    }
  s->t = t;
  s->w = w;
  s->sgn = sg;
  s->mask = w == 64 ? UINT64_MAX : ((uint64_t) 1 << w) - 1;
  s->top = (uint64_t) 1 << (w - 1);
  return 1;
}

/* The pattern of entry J of a word tensor of width W (zero-extended to 64 bits). */
static inline uint64_t
cn__word_load (const void *data, int w, int64_t j)
{
  switch (w)
    {
    case 8: return ((const uint8_t *) data)[j];
    case 16: return ((const uint16_t *) data)[j];
    case 32: return ((const uint32_t *) data)[j];
    default: return ((const uint64_t *) data)[j];
    }
}

/* Stores the low W bits of P into entry J of a word tensor of width W. */
static inline void
cn__word_store (void *data, int w, int64_t j, uint64_t p)
{
  switch (w)
    {
    case 8: ((uint8_t *) data)[j] = (uint8_t) p; break;
    case 16: ((uint16_t *) data)[j] = (uint16_t) p; break;
    case 32: ((uint32_t *) data)[j] = (uint32_t) p; break;
    default: ((uint64_t *) data)[j] = p; break;
    }
}

/* The value of the pattern P (< 2^N) of the signed sort S: P, or P - 2^N = -(mask - P) - 1 with
 * mask - P < 2^(N-1), so no step overflows. */
static inline int64_t
cn__word_sext (const cn__wsort *s, uint64_t p)
{
  if (!(p & s->top))
    return (int64_t) p;
  return -(int64_t) (s->mask - p) - 1;
}

/* The word M rounded to a double downward (UP = 0) or upward (UP = 1): exact below 2^53. */
static inline double
cn__u64_dir (uint64_t m, int up)
{
  double d = (double) m;                /* to nearest: within half an ulp of m */
  if (d >= 0x1p64)
    return up ? d : nextafter (d, 0);   /* d = 2^64 > m, and the double below it is < m */
  uint64_t b = (uint64_t) d;            /* exact: d is an integer below 2^64 */
  if (up && b < m)
    return nextafter (d, INFINITY);
  if (!up && b > m)
    return nextafter (d, 0);
  return d;
}

/* src/ops/element.c.  A sort's name in messages ("the model's scalar", "bool", "i32"). */
const char *cn__sort_name (cn_dtype t);
/* The sort of input I as out_sort reads it (any floating sort as the model's scalar,
 * CN_DTYPE_F64) into *S; CN_EINVAL naming OP for an invalid sort. */
cn_status cn__sort_at (const char *op, int i, const cn_dtype *in, cn_dtype *s, cn_error *err);
/* The out_sort test of an operator whose N_IN ports are element ports: every input holds input
 * 0's sort ("OP: input I holds i32 where input 0 holds bool"), which goes to *OUT. */
cn_status cn__element_sort (const char *op, int n_in, const cn_dtype *in, cn_dtype *out, cn_error *err);

/* The least and greatest words of the integer sort T as doubles, rounded outward (the greatest
 * 64-bit words round up to 2^63 and 2^64): the box of an unknown word. */
static inline double
cn__dtype_min (cn_dtype t)
{
  switch (t)
    {
    case CN_DTYPE_I8: return -0x1p7;
    case CN_DTYPE_I16: return -0x1p15;
    case CN_DTYPE_I32: return -0x1p31;
    case CN_DTYPE_I64: return -0x1p63;
    default: return 0;
    }
}
static inline double
cn__dtype_max (cn_dtype t)
{
  switch (t)
    {
    case CN_DTYPE_I8: return 0x1p7 - 1;
    case CN_DTYPE_I16: return 0x1p15 - 1;
    case CN_DTYPE_I32: return 0x1p31 - 1;
    case CN_DTYPE_I64: return 0x1p63;
    case CN_DTYPE_U8: return 0x1p8 - 1;
    case CN_DTYPE_U16: return 0x1p16 - 1;
    case CN_DTYPE_U32: return 0x1p32 - 1;
    case CN_DTYPE_U64: return 0x1p64;
    case CN_DTYPE_BOOL: return 1;
    default: return 0;
    }
}

/* src/ops/roundoff.c: shared ROUNDOFF32 hooks.  EXACT: E = 0, for operators whose binary32 result
 * is a word they read or an exact result (relu, max, min, neg, abs, the movement family).
 * ROUNDED: one correctly rounded operation per entry (add, sub, mul, div, sqrt), E by (M32) from
 * the output's exact box. */
cn_status cn__roundoff32_exact (const cn_node_view *nv, const cn_box *const *in, const cn_box *out, double *e,
                                cn_error *err);
cn_status cn__roundoff32_rounded (const cn_node_view *nv, const cn_box *const *in, const cn_box *out, double *e,
                                  cn_error *err);
/* The statements of their records. */
#define CN__ROUNDOFF32_EXACT_WHY "the binary32 result is an input word or an exact result that is a word (0 error)"
#define CN__ROUNDOFF32_ROUNDED_WHY                                                                  \
  "one correctly rounded operation per entry, |fl32(z) - z| <= u32 |z| + eta32 over the exact output box (M32)"

/* The rule of OP, or NULL if the operator has none yet. */
const struct cn_op_rule *cn__op_rule (cn_op op);
/* The record C of rule R as INFO (its input mask resolved), after the checks cn_op_cert_get
 * makes; CN_EINVAL with a message naming the record when one fails. */
cn_status cn__cert_resolve (const struct cn_op_rule *r, const struct cn_op_cert *c, cn_cert_info *info, cn_error *err);

/* Declarations of the rule objects that ops.def says exist. */
#define CN__RULE_DECL_0(id)
#define CN__RULE_DECL_1(id) extern const struct cn_op_rule cn__rule_##id;
#define CN_OP(id, name, family, rule, record) CN__RULE_DECL_##rule (id)
#include "certnn/ops.def"
#undef CN_OP

/* ---- attribute record descriptors (src/ops/records.c) -----------------------------------
 * The table's description of every attribute record of certnn/ops.h, made from the record's
 * one member list (CN_PARAMS_<rec>): its members in the record's order, each with its name, its
 * kind and what its kind requires (certnn/ops.h lists the kinds).  The wire codec walks these
 * descriptors and names no record and no operator itself.  An operator's descriptor is the one
 * its ops.def row names (cn__record_none for an operator without attributes). */
typedef enum cn__field_kind
{
  CN__FIELD_INT,      /* int, >= min */
  CN__FIELD_I64,      /* int64_t, >= min */
  CN__FIELD_COUNT,    /* int in [min, cap]: the count of the arrays after it */
  CN__FIELD_INTS,     /* int[cap]: the first count entries, each >= min */
  CN__FIELD_I64S,     /* int64_t[cap]: the first count entries, each >= min */
  CN__FIELD_F64,      /* double, finite */
  CN__FIELD_F64X,     /* double, any */
  CN__FIELD_FLAG,     /* int, 0 or 1 */
  CN__FIELD_ENUM,     /* an enumeration (int-sized), one of n_names values */
  CN__FIELD_DTYPE,    /* cn_dtype */
  CN__FIELD_SHAPE,    /* cn_shape */
  CN__FIELD_AXES,     /* uint32_t axis set */
  CN__FIELD_NAME,     /* char[cap], NUL-terminated */
  CN__FIELD_PROGRAM   /* const struct cn_graph *, not NULL */
} cn__field_kind;

struct cn__field
{
  const char *name;           /* the member's name (the wire codec's JSON name) */
  cn__field_kind kind;
  size_t off;                 /* the member's offset in the record */
  size_t count_off;           /* INTS, I64S: the offset of the COUNT member giving the count */
  int cap;                    /* COUNT: the largest count; INTS, I64S, NAME: the capacity */
  long long min;              /* INT, I64, COUNT, INTS, I64S: the smallest value allowed */
  int n_names;                /* ENUM: the number of values, 0 .. n_names - 1, */
  const char *const *names;   /* and the name of each */
};

struct cn__record
{
  const char *type;           /* the record's C type, "cn_params_conv"; "" for none */
  size_t size;                /* sizeof the record; 0 for none */
  int n;                      /* the number of members (0 for none) */
  const struct cn__field *f;  /* the members, in the record's order */
};

/* The descriptor of every record (cn__record_conv, ...) and of no record. */
#define CN__RECORD_DECL(rec) extern const struct cn__record cn__record_##rec;
CN_PARAMS_RECORDS (CN__RECORD_DECL)
CN__RECORD_DECL (none)
#undef CN__RECORD_DECL

/* The descriptor of OP's attribute record (src/ops/registry.c, from the ops.def row), whether or
 * not OP has a rule; NULL for an invalid OP. */
const struct cn__record *cn__op_record (cn_op op);

/* Helpers shared by the rule files (src/ops/shape.c). */
int64_t cn__numel (const cn_shape *s);
/* Row-major strides of S into STRIDE. */
void cn__strides (const cn_shape *s, int64_t *stride);
/* Checks that S is a shape: not NULL, rank in 0..CN_MAX_RANK, no negative extent, and a
 * product of extents that fits in int64_t.  The messages read "OP: WHAT has an invalid rank",
 * "OP: WHAT has extent E on axis A" and "OP: WHAT has too many elements". */
cn_status cn__shape_valid (const char *op, const char *what, const cn_shape *s, cn_error *err);
/* cn__shape_valid with WHAT = "input I". */
cn_status cn__input_valid (const char *op, int i, const cn_shape *s, cn_error *err);
/* A copy of S with the extents past its rank cleared (S valid). */
cn_shape cn__shape_clean (const cn_shape *s);
/* The node's name for messages ("" when it has none). */
static inline const char *
cn__node_name (const cn_node_view *nv)
{
  return nv->name ? nv->name : "";
}
/* Points the CROWN step ST at the node view NV (the view, and what the kit reads of it: the
 * node's name, attribute record and output size). */
static inline void
cn__crown_step_bind (cn_crown_step *st, const cn_node_view *nv)
{
  st->nv = nv;
  st->node = cn__node_name (nv);
  st->params = nv->params;
  st->n_out = cn__numel (nv->out_shape);
}
/* Checks one spatial axis of a sliding window (conv, pool): input extent S, kernel K >= 1,
 * stride >= 1, dilation >= 1, paddings >= 0, and writes the output extent
 * O = (S + pb + pe - (dilation (K - 1) + 1)) / stride + 1 >= 1, with every step free of
 * overflow.  Messages name OP and the axis. */
cn_status cn__window_axis (const char *op, int axis, int64_t S, int64_t K, int64_t stride, int64_t dilation,
                           int64_t pb, int64_t pe, int64_t *O, cn_error *err);

/* Rule helpers shared by several families (src/ops/shape.c). */
/* The CROWN step of a node whose output v is bounded by its own IBP box alone (Boolean
 * operators, topKMask, selectiveScan): the node's IBP arm (st->nv->rule->ibp) gives a box B of v
 * over st->in_box, and for every row s the step adds to bias[s] a lower bound r_s <= min over B
 * of lam_out[s] . v (cn__crown_add_box_min).  No coefficient reaches the inputs.  An all-zero
 * lam_out adds nothing (IBP is not run). */
cn_status cn__crown_own_box (const cn_crown_step *st, cn_error *err);
/* The jvp arm of an operator without a value input (random draws, topKMask, bitcast,
 * decodeIndex): t_out = 0 (numel(out) entries); CN_EINVAL when OUT is not of the node's shape. */
cn_status cn__zero_jvp (const cn_node_view *nv, const cn_tensor *const *in, const cn_tensor *out,
                        const double *const *t_in, double *t_out, cn_error *err);

/* The row order of sort, topk and topKMask (src/ops/scan.c): an entry's value and its index
 * along the axis. */
struct cn__order_key
{
  double v;
  int64_t i;
};
/* Sorts KEYS[0..n-1] into the stable order: descending with NaN before every number if DESC,
 * else ascending with NaN after every number; ties (==, or both NaN) by index, a total order. */
void cn__order_keys (struct cn__order_key *keys, int64_t n, int desc);
/* Whether A and B tie in that order (==, or both NaN): where the K-th and (K+1)-th keys tie,
 * topk and topKMask refuse (the tie would decide the selection). */
static inline int
cn__order_tied (double a, double b)
{
  return (isnan (a) && isnan (b)) || a == b;
}

/* Whether the derivative arms' tensors are binary64 of the node's shapes, input by input: the
 * engines give pullback and jvp binary64 points, so the arms state it with CN__ASSERTD. */
static inline int
cn__diff_shapes_match (const cn_node_view *nv, const cn_tensor *const *in, const cn_tensor *out)
{
  if (out->dtype != CN_DTYPE_F64 || cn_tensor_numel (out) != cn__numel (nv->out_shape))
    return 0;
  for (int i = 0; i < nv->n_in; i++)
    if (in[i]->dtype != CN_DTYPE_F64 || cn_tensor_numel (in[i]) != cn__numel (nv->in_shape[i]))
      return 0;
  return 1;
}

/* A READS_BOXES and ALPHA_TAKES predicate: inputs 0 and 1 are both not graph constants (a product
 * of two variables; with a constant factor its arm is affine). */
int cn__two_varying (const cn_node_view *nv);

#endif
