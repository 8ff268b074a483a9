/* SPDX-License-Identifier: MIT */
/* src/io/onnx/onnx_impl.h: the ONNX importer (internal): its value table, the context of the
 * node being imported, and the helpers every family of handlers shares.
 *
 * The importer is a mapper: every ONNX node becomes nodes of registered operators
 * (certnn/ops.def) in the graph being built, through cn_graph_add_node, and nothing here
 * computes on tensors.  Every ONNX value is a graph value of its true sort: graph inputs, the
 * outputs of our nodes, and constants (initializers, Constant nodes, Shape's extents) of their
 * ONNX sort (FLOAT, DOUBLE, BOOL, INT8 .. UINT64).  Each node the importer adds is folded at once
 * when its inputs are all constants and its value is exact (cn__graph_fold_last, graph_impl.h):
 * data movement of constants, shape computations, integer and Boolean arithmetic on constants
 * become constants; a floating fold that would round stays a node.  Where a handler needs a
 * value to build a node (Reshape's shape, Slice's starts, Gather's indices, ...) it reads the
 * constant the folds left (cn__onnx_const); an input that is not constant there is
 * CN_EUNSUPPORTED naming the node and the input.
 *
 * One exception to "every constant is a graph constant": the graph holds no constant with an
 * integer word beyond 2^53 (boxes read constants in binary64) nor with a NaN or an infinity
 * (graph.h), yet such words are common as Slice's "to the end" (INT64_MAX), and IsNaN and IsInf
 * may test such a constant.  A constant the graph cannot hold is kept as read, in its ONNX sort
 * (a raw constant, struct cn__onnx_value.raw): handlers may read its values (and IsNaN, IsInf
 * read their Boolean result off it, since no node can take it); as an operand it is refused
 * with the graph's message.
 *
 * Errors name the ONNX node and its operator type: "onnx: node 'n3' (Softmax): operator not
 * supported" (the handler's message after the prefix). */
#ifndef CN_ONNX_IMPL_H
#define CN_ONNX_IMPL_H

#include <stddef.h>
#include <stdint.h>
#include "graph/graph_impl.h"
#include "onnx.pb-c.h"

#define CN__ONNX_OPSET_MIN 8
#define CN__ONNX_OPSET_MAX 17
#define CN__ONNX_MAX_OUT 64                   /* outputs of one ONNX node (Split) */
#define CN__ONNX_GEOM_MAX ((int64_t) 1 << 31) /* bound on kernel, stride, dilation and pad attributes */

/* ---- the value table (src/io/onnx/model.c) ------------------------------------------------ */

/* An ONNX value: a graph value, an initializer not read yet, or a constant the graph cannot hold. */
struct cn__onnx_value
{
  char *name;
  int next;                  /* the next value in the same hash bucket, -1 at the end */
  int gv;                    /* its graph value; -1 while pending or raw */
  const Onnx__TensorProto *pending;  /* an initializer not read yet (read on first use, so that
                                        its errors name that node) */
  int is_raw;               /* a constant the graph cannot hold: RAW holds it */
  cn_tensor raw;
};

struct cn__onnx_import
{
  cn_graph *g;
  int64_t opset;
  struct cn__onnx_value **vals;
  int n_vals, cap_vals;
  int *bucket;
  size_t n_bucket;           /* a power of two */
};

/* One ONNX node being imported. */
typedef struct cn__onnx_node
{
  struct cn__onnx_import *imp;
  const Onnx__NodeProto *np;
  const char *type;          /* the ONNX operator type */
  const char *name;          /* the node's name: the ONNX name or "<op_type>#<index>" */
  int n_in;
  struct cn__onnx_value **in;  /* n_in entries, NULL for an absent optional input */
  int typed;                 /* the handler takes Boolean and integer inputs (struct cn__onnx_handler) */
  cn_error *err;             /* the node's own error record (wrapped by the caller) */
} cn__onnx_node;

/* A handler: the ONNX operator TYPE, the function mapping one node, the attributes it accepts
 * (space separated; any other is refused before FN runs), and TYPED: 1 if FN checks the sorts of
 * its inputs itself (Boolean and integer values, integer constants as operands), 0 if every
 * input that is not a constant must hold the model's scalar and integer constants are values to
 * read, never operands.  Each family file lists its handlers in a table ended by a NULL type. */
struct cn__onnx_handler
{
  const char *type;
  cn_status (*fn) (cn__onnx_node *nc);
  const char *attrs;
  int typed;
};

extern const struct cn__onnx_handler cn__onnx_elementwise[];   /* elementwise.c */
extern const struct cn__onnx_handler cn__onnx_activation[];    /* activation.c */
extern const struct cn__onnx_handler cn__onnx_movement[];      /* movement.c */
extern const struct cn__onnx_handler cn__onnx_constants[];     /* constant.c */
extern const struct cn__onnx_handler cn__onnx_indexing[];      /* indexing.c */
extern const struct cn__onnx_handler cn__onnx_scan[];          /* scan.c */
extern const struct cn__onnx_handler cn__onnx_reduction[];     /* reduction.c */
extern const struct cn__onnx_handler cn__onnx_product[];       /* product.c */
extern const struct cn__onnx_handler cn__onnx_conv[];          /* conv.c */
extern const struct cn__onnx_handler cn__onnx_normalization[]; /* normalization.c */
extern const struct cn__onnx_handler cn__onnx_logic[];         /* logic.c */
extern const struct cn__onnx_handler cn__onnx_random[];        /* random.c */
extern const struct cn__onnx_handler cn__onnx_spectral[];      /* spectral.c */
extern const struct cn__onnx_handler cn__onnx_resize[];        /* resize.c */

/* The sort of ONNX element type T: F32, F64, BOOL or I8 .. U64; CN_DTYPE_COUNT for the types
 * certnn has no sort for (FLOAT16, BFLOAT16, STRING, the complex types). */
cn_dtype cn__onnx_sort_of_type (int64_t t);
const char *cn__onnx_type_name (int32_t t);      /* "FLOAT", "UINT8", ...; "unknown" */
const char *cn__onnx_sort_name (cn_dtype t);     /* the ONNX name of a sort: "FLOAT", "BOOL", ... */
/* Reads the tensor TP (named WHAT in messages, which start with "tensor 'WHAT'") into OUT, in
 * its ONNX sort (cn__onnx_sort_of_type), exactly. */
cn_status cn__onnx_parse_tensor (const Onnx__TensorProto *tp, const char *what, cn_tensor *out, cn_error *err);
/* Defines the ONNX value NAME as graph value GV; a name defined twice is CN_EPARSE. */
cn_status cn__onnx_define (struct cn__onnx_import *imp, const char *name, int gv, cn_error *err);
/* Defines NAME as the constant *T (taken: T is left empty): a graph constant named NAME, or, for
 * a constant the graph cannot hold, a raw constant. */
cn_status cn__onnx_define_const (struct cn__onnx_import *imp, const char *name, cn_tensor *t, cn_error *err);

/* ---- the node's inputs (src/io/onnx/nodes.c) ---------------------------------------------- */

cn_status cn__onnx_nomem (cn__onnx_node *nc);
/* Input I must be present (else CN_EPARSE "input I is missing"). */
cn_status cn__onnx_need (cn__onnx_node *nc, int i);
int cn__onnx_has (const cn__onnx_node *nc, int i);
const cn_shape *cn__onnx_shape (const cn__onnx_node *nc, int i);
/* The sort of input I: F32 or F64 for the model's scalar, BOOL, I8 .. U64. */
cn_dtype cn__onnx_sort (const cn__onnx_node *nc, int i);
/* Input I's constant tensor (a graph constant, or a raw constant), NULL if input I is
 * not a constant.  Borrowed until the graph changes. */
const cn_tensor *cn__onnx_const (const cn__onnx_node *nc, int i);
/* Whether sorts A and B are one element sort: both the model's scalar (FLOAT or DOUBLE: a graph
 * is evaluated in one floating sort), or the same Boolean or word sort. */
int cn__onnx_same_sort (cn_dtype a, cn_dtype b);
/* Inputs I and J (both present) hold one element sort; else CN_EUNSUPPORTED naming both. */
cn_status cn__onnx_sorts_agree (cn__onnx_node *nc, int i, int j);
/* Inputs 0 .. N-1 hold one sort that has arithmetic: the model's scalar or one word sort. */
cn_status cn__onnx_arith_sorts (cn__onnx_node *nc, int n);
/* The graph value of input I.  Integer and Boolean constants are operands only of the typed
 * handlers; a raw constant enters the graph here (and is refused by it, with its message). */
cn_status cn__onnx_in (cn__onnx_node *nc, int i, int *v);
/* Input 0, which must be present, at its graph value *X. */
cn_status cn__onnx_x (cn__onnx_node *nc, int *x);

/* ---- the nodes it emits --------------------------------------------------------------------- */

/* "<node>/<suffix>" (the node name if SUFFIX is NULL), malloc'd. */
char *cn__onnx_sub_name (const cn__onnx_node *nc, const char *suffix);
/* *V = OP (IN[0..N-1]) with the attribute record PARAMS, a node named after the ONNX node (with
 * "/SUFFIX" for a helper node), folded at once where it can be (the value *V is then a
 * constant). */
cn_status cn__onnx_add (cn__onnx_node *nc, cn_op op, const void *params, int n, const int *in, const char *suffix,
                        int *v);
cn_status cn__onnx_add1 (cn__onnx_node *nc, cn_op op, const void *params, int x, const char *suffix, int *v);
cn_status cn__onnx_add2 (cn__onnx_node *nc, cn_op op, const void *params, int a, int b, const char *suffix, int *v);
/* The same where only an exact fold is wanted: *V the constant if the node folds, else the node
 * is taken back and *V = -1. */
cn_status cn__onnx_add_folded (cn__onnx_node *nc, cn_op op, const void *params, int n, const int *in,
                               const char *suffix, int *v);
/* *V = a new constant, a copy of T, named "<node>/<suffix>". */
cn_status cn__onnx_add_const (cn__onnx_node *nc, const cn_tensor *t, const char *suffix, int *v);
/* *V = a constant of sort DT (an integer sort takes the integer X) and SHAPE filled with X. */
cn_status cn__onnx_fill (cn__onnx_node *nc, cn_dtype dt, const cn_shape *shape, double x, const char *suffix, int *v);
/* *V = X under SHAPE, X reshaped to it (X itself when the shape is unchanged). */
cn_status cn__onnx_reshape (cn__onnx_node *nc, int x, const cn_shape *shape, const char *suffix, int *v);
/* *V = X broadcast to SHAPE (numpy; X itself when its shape is SHAPE already). */
cn_status cn__onnx_broadcast (cn__onnx_node *nc, int x, const cn_shape *shape, const char *suffix, int *v);
/* *V = X permuted by PERM (rank R), or X itself for the identity. */
cn_status cn__onnx_permute (cn__onnx_node *nc, int x, int r, const int *perm, const char *suffix, int *v);
/* *V = input I brought to SHAPE (cn__onnx_in, then cn__onnx_broadcast). */
cn_status cn__onnx_operand_at (cn__onnx_node *nc, int i, const cn_shape *shape, const char *suffix, int *v);
/* *V = X * F, F a constant of X's shape (a mul node, folded where exact). */
cn_status cn__onnx_mul_scalar (cn__onnx_node *nc, int x, double f, const char *suffix, int *v);
/* *V = clamp(X, LO, HI), the bounds constants [] "<suffix>_min" and "<suffix>_max" ("clip_..."
 * when SUFFIX is NULL). */
cn_status cn__onnx_clamp (cn__onnx_node *nc, int x, double lo, double hi, const char *suffix, int *v);
/* Numpy broadcasting of shapes A and B into OUT; 0 if they do not broadcast. */
int cn__onnx_broadcast_shape (const cn_shape *a, const cn_shape *b, cn_shape *out);
/* *OS = the numpy broadcast of the shapes of inputs 0 .. N-1 (all required). */
cn_status cn__onnx_common_shape (cn__onnx_node *nc, int n, cn_shape *os);
/* The node's output 0 as OP (PARAMS) applied to its N <= 3 inputs, each first brought to the
 * common shape OS (suffixes "broadcast0", ...). */
cn_status cn__onnx_broadcast_apply (cn__onnx_node *nc, cn_op op, const void *params, int n, const cn_shape *os);

/* ---- the node's outputs ------------------------------------------------------------------------ */

int cn__onnx_out_wanted (const cn__onnx_node *nc, int k);
/* Defines output K of the node as graph value V; FRESH says V was made by this node, and then
 * takes the ONNX output's name. */
cn_status cn__onnx_out (cn__onnx_node *nc, int k, int v, int fresh);
/* Output K is input I, unchanged. */
cn_status cn__onnx_out_alias (cn__onnx_node *nc, int k, int i);
/* Output K is a new constant, a copy of T, under the output's name. */
cn_status cn__onnx_out_const (cn__onnx_node *nc, int k, const cn_tensor *t);

/* ---- attributes and constant inputs (src/io/onnx/attr.c) ------------------------------------ */

const Onnx__AttributeProto *cn__onnx_attr (const cn__onnx_node *nc, const char *name);
/* Whether attribute A holds type T: its declared type if any, else the field that is set. */
int cn__onnx_attr_is (const Onnx__AttributeProto *a, Onnx__AttributeProto__AttributeType t);
cn_status cn__onnx_attr_int (cn__onnx_node *nc, const char *name, int64_t def, int64_t *v);
cn_status cn__onnx_attr_float (cn__onnx_node *nc, const char *name, double def, double *v);
/* A float attribute that must be finite (the message names the attribute). */
cn_status cn__onnx_attr_finite (cn__onnx_node *nc, const char *name, double def, double *v);
/* The integer list attribute NAME (at most MAX entries) into BUF; *N = -1 if absent. */
cn_status cn__onnx_attr_ints (cn__onnx_node *nc, const char *name, int64_t *buf, int max, int *n);
/* The string attribute NAME (default DEF) matched against the NULL-terminated list ALLOWED; *IDX
 * is the index of the match.  A value outside the list is CN_EUNSUPPORTED. */
cn_status cn__onnx_attr_choice (cn__onnx_node *nc, const char *name, const char *def, const char *const *allowed,
                                int *idx);
/* The integer vector (rank 0 or 1, at most MAX entries) of constant input I, named WHAT in
 * messages, into BUF. */
cn_status cn__onnx_const_ints (cn__onnx_node *nc, int i, const char *what, int64_t *buf, int max, int *n);
/* The floating-point vector (rank 0 or 1, at most MAX entries) of constant input I, named WHAT
 * in messages, into BUF (Resize's scales and roi). */
cn_status cn__onnx_const_floats (cn__onnx_node *nc, int i, const char *what, double *buf, int max, int *n);
/* The constant scalar of input I (one entry of a floating-point constant, not NaN). */
cn_status cn__onnx_const_scalar (cn__onnx_node *nc, int i, const char *what, double *v);
/* AXIS (negative counts from the end) normalised into [0, RANK). */
cn_status cn__onnx_axis (cn__onnx_node *nc, int64_t axis, int rank, const char *what, int *out);
/* The shape of an ONNX-style list of RANK extents. */
cn_status cn__onnx_make_shape (cn__onnx_node *nc, int rank, const int64_t *dim, cn_shape *s);

#endif
