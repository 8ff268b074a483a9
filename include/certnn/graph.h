/* SPDX-License-Identifier: MIT */
/* certnn/graph.h: the graph IR, its builder, forward evaluation and ONNX import.
 *
 * A graph holds values and nodes.  A value is a graph input, a constant, or an output port of
 * a node; values are numbered from 0 in the order they are created, and nodes in the order
 * they are added, which is a topological order since a node may only read existing values.
 * Every node is a registered operator (certnn/ops.def) with its typed attribute record; the
 * builder checks the attributes and the input shapes through the operator's rule and fixes
 * the output shapes, so a graph that was built is well-shaped.
 *
 * A graph owns everything in it; pointers it returns are borrowed until cn_graph_free. */
#ifndef CERTNN_GRAPH_H
#define CERTNN_GRAPH_H

#include <stddef.h>
#include "certnn/ops.h"
#include "certnn/tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cn_graph cn_graph;

/* ---- building ------------------------------------------------------------------------ */

CN_API cn_status cn_graph_create (cn_graph **out, cn_error *err);
CN_API void cn_graph_free (cn_graph *g);                 /* NULL is allowed */

/* Adds a graph input of the given sort and shape; its value number goes to *VALUE.  A floating
 * sort (f64, f32, f16 or bf16) makes it a value of the model's scalar; CN_DTYPE_BOOL or an integer sort a
 * Boolean or integer-word input (certnn/ops.h, "element sorts"). */
CN_API cn_status cn_graph_add_input (cn_graph *g, const char *name, cn_dtype dtype, const cn_shape *shape,
                                     int *value, cn_error *err);
/* Adds a constant, a copy of T.  A floating-point constant must be finite: a NaN or an
 * infinity is CN_ENUMERIC naming the constant and the first bad position.  An integer constant
 * must be exact in binary64 (|w| <= 2^53; else CN_EUNSUPPORTED), since bounds read it there. */
CN_API cn_status cn_graph_add_constant (cn_graph *g, const char *name, const cn_tensor *t, int *value,
                                        cn_error *err);
/* Adds a node applying OP to the N_IN values IN.  PARAMS points to OP's attribute record
 * (NULL for operators without attributes).  Each input is first checked against its port: a
 * value at a port of another sort (a Boolean at a value port, a float at an integer port, ...)
 * is CN_EINVAL with a message naming both ports, the operator and NAME.  Then the rule's checks
 * run: an operator without a rule is CN_EUNSUPPORTED; bad attributes, input sorts or shapes are
 * CN_EINVAL or CN_ESHAPE with a message naming the operator and NAME.  The output's sort is the
 * model's scalar unless the rule says otherwise (comparisons: bool, integer words, ...).  The
 * number of the node's first output goes to *OUT (if OUT is not NULL).  An operator with several
 * outputs (cn_op_n_outputs) gets one value per output, output K > 0 named "NAME.<output name>"
 * (cn_op_output_name): cn_graph_node_output (g, cn_graph_value_producer (g, *out), K). */
CN_API cn_status cn_graph_add_node (cn_graph *g, cn_op op, const void *params, int n_in, const int *in,
                                    const char *name, int *out, cn_error *err);
/* Declares the graph outputs (replacing earlier ones). */
CN_API cn_status cn_graph_set_outputs (cn_graph *g, int n, const int *values, cn_error *err);

/* ---- queries ------------------------------------------------------------------------- */

CN_API int cn_graph_n_values (const cn_graph *g);
CN_API int cn_graph_n_nodes (const cn_graph *g);
CN_API int cn_graph_n_inputs (const cn_graph *g);
CN_API int cn_graph_n_outputs (const cn_graph *g);
CN_API int cn_graph_input (const cn_graph *g, int i);     /* value number of input i */
CN_API int cn_graph_output (const cn_graph *g, int i);    /* value number of output i */
CN_API const char *cn_graph_value_name (const cn_graph *g, int v);
CN_API const cn_shape *cn_graph_value_shape (const cn_graph *g, int v);
CN_API cn_dtype cn_graph_value_dtype (const cn_graph *g, int v);
/* The constant's tensor, or NULL if V is not a constant. */
CN_API const cn_tensor *cn_graph_value_constant (const cn_graph *g, int v);
/* The node that produces V, or -1 for inputs and constants. */
CN_API int cn_graph_value_producer (const cn_graph *g, int v);
CN_API cn_op cn_graph_node_op (const cn_graph *g, int node);
CN_API const char *cn_graph_node_name (const cn_graph *g, int node);
CN_API int cn_graph_node_n_inputs (const cn_graph *g, int node);
CN_API int cn_graph_node_input (const cn_graph *g, int node, int i);
CN_API int cn_graph_node_output (const cn_graph *g, int node, int i);
CN_API int cn_graph_node_n_outputs (const cn_graph *g, int node);
CN_API const void *cn_graph_node_params (const cn_graph *g, int node);

/* ---- evaluation ---------------------------------------------------------------------- */

/* Evaluates the graph in DTYPE (CN_DTYPE_F64 or CN_DTYPE_F32): values of the model's scalar are
 * held in DTYPE, each operator rounding to nearest in that format in a fixed order; Boolean and
 * integer values are held in their own sorts and computed exactly.  INPUTS holds one tensor per
 * graph input (converted: to DTYPE for the model's scalar, value-preservingly to the input's sort
 * otherwise); OUTPUTS receives one initialised tensor per graph output (in DTYPE or the output's
 * own sort), which the caller clears.  On failure no output is left initialised. */
CN_API cn_status cn_graph_eval (const cn_graph *g, cn_dtype dtype, const cn_tensor *inputs,
                                cn_tensor *outputs, cn_error *err);
/* Evaluates the graph in its values' declared sorts (the IR's semantics, certnn check): a value
 * declared f64 is held in binary64, one declared f32, f16 or bf16 in binary32.  A node computes
 * in binary64 when one of its floating inputs or outputs is f64, else in binary32 (its binary32
 * inputs widened exactly); its forward rounds each operation to nearest in that format, as in
 * cn_graph_eval, and then each output is rounded once to nearest in its declared sort: to
 * binary32 when it is f32 computed in binary64, and to binary16 or bfloat16 (cn_dtype_round)
 * when it is f16 or bf16.  So a reduced node is computed in binary32 and rounded once; where its
 * binary32 forward is one correctly rounded operation (+, -, *, /, sqrt, a conversion), that is
 * the format's own correctly rounded operation (binary32's 24 bits >= 2p + 2 for p = 11 and 8:
 * Figueroa 1995), and rsqrt and pow are computed in binary32 and rounded once as the IR
 * computes them.  Inputs are converted to their declared sorts (rounded once, to nearest);
 * OUTPUTS receive tensors of the outputs' declared sorts. */
CN_API cn_status cn_graph_eval_declared (const cn_graph *g, const cn_tensor *inputs, cn_tensor *outputs,
                                         cn_error *err);

/* Reverse mode at a point, in binary64, for a graph with one input and output 0: evaluates
 * the graph at X (numel(input) entries), writes its output 0 into Y (numel(output) entries,
 * may be NULL) and into G_X the gradient of W . y with respect to x, W having numel(output)
 * entries.  Every operator on a path from the input to the output needs a pullback; one
 * without is CN_EUNSUPPORTED naming it and the node.  A floating-point tool for attacks and
 * heuristics: nothing sound is claimed about G_X. */
CN_API cn_status cn_graph_gradient (const cn_graph *g, const double *x, const double *w, double *y, double *g_x,
                                    cn_error *err);

/* ---- ONNX ---------------------------------------------------------------------------- */

/* Imports an ONNX model (opsets 8 to 17, the default domain).  The graph has the model's
 * non-initializer inputs and its outputs; every node maps onto registered operators in the
 * values' true sorts (the model's scalar, Booleans, integer words), and implicit broadcasting
 * becomes broadcast nodes.  A node whose inputs are all constants is folded into constants where
 * its value is exact (shape computations, data movement and integer or Boolean arithmetic on
 * constants; a floating result only where it is exactly a binary64 number); a fold that would
 * round stays a node, bounded like any other, so no rounded constant enters the graph.  Errors
 * name the ONNX operator type and node: an unsupported operator or attribute (CN_EUNSUPPORTED),
 * a truncated or malformed file (CN_EPARSE), external data, a missing initializer, a shape
 * mismatch (CN_ESHAPE), a NaN weight (CN_ENUMERIC). */
CN_API cn_status cn_graph_load_onnx (const char *path, cn_graph **out, cn_error *err);
CN_API cn_status cn_graph_load_onnx_buffer (const void *data, size_t size, cn_graph **out, cn_error *err);

#ifdef __cplusplus
}
#endif
#endif
