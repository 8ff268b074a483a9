/* SPDX-License-Identifier: MIT */
/* certnn/tape.h: reverse mode over the operator table (the tape), and reverse and forward mode
 * over whole graphs.
 *
 * A tape records operator applications eagerly, in binary64: every application is checked like
 * a graph node (the rule's attribute and shape checks, each input against its port, the rule's
 * output sort), evaluated at once through the rule's forward arm, and remembered with its
 * inputs, so that a backward sweep can later run the rules' pullbacks in reverse order.  Values
 * of the model's scalar are held as binary64 tensors, Booleans and integer words in their own
 * sorts.
 *
 * Every value carries a flag, "needs a gradient": a leaf has the flag its caller gives it, a
 * constant never has it, and an operator's output has it iff the output is of the model's
 * scalar and some input at a VALUE port (certnn's port kinds: not frozen, detached, index, bool,
 * integer or any) has it.  The backward sweep gives a rule's pullback a cotangent to fill only
 * for the inputs that have the flag and sit at a value port; the others receive nothing (the
 * seed's needs_input_grad).  So an operator needs a pullback only where a gradient must pass
 * through it: a comparison feeding a select, a constant subgraph or a frozen operand never
 * asks for one.
 *
 * The values on a tape are the nodes of a graph (cn_tape_graph): a reference is a value number
 * of that graph, the leaves are its inputs (in the order they were added) and the constants
 * its constants, so a recording can be evaluated again, bounded or exported like any graph.
 *
 * Nothing sound is claimed about gradients: they are round-to-nearest binary64 computations,
 * tools for attacks (PGD) and heuristics (alpha-CROWN's slope updates). */
#ifndef CERTNN_TAPE_H
#define CERTNN_TAPE_H

#include "certnn/graph.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cn_tape cn_tape;

/* ---- recording ----------------------------------------------------------------------- */

CN_API cn_status cn_tape_create (cn_tape **out, cn_error *err);
CN_API void cn_tape_free (cn_tape *t);                   /* NULL is allowed */

/* Adds a leaf holding a copy of X (a floating tensor is held in binary64, a Boolean or
 * integer one in its own sort) and writes its reference to *REF.  NEEDS_GRAD != 0 asks for the
 * gradient of later backward sweeps with respect to this leaf; only a leaf of the model's
 * scalar (a floating sort) may ask for one (CN_EINVAL otherwise).  NaN and infinite entries are
 * allowed in a leaf. */
CN_API cn_status cn_tape_leaf (cn_tape *t, const char *name, const cn_tensor *x, int needs_grad, int *ref,
                               cn_error *err);
/* Adds a constant, a copy of X (as cn_graph_add_constant: a floating constant must be finite);
 * a constant never needs a gradient and receives nothing. */
CN_API cn_status cn_tape_constant (cn_tape *t, const char *name, const cn_tensor *x, int *ref, cn_error *err);
/* Applies OP with the attribute record PARAMS (NULL for operators without attributes) to the
 * N_IN values IN (references of this tape) and writes the reference of the output to *REF (of
 * output 0 for an operator with several outputs; output K's reference is
 * cn_graph_node_output (cn_tape_graph (t), cn_graph_value_producer (cn_tape_graph (t), *ref), K),
 * and an index output never needs a gradient).
 * The checks are the graph builder's (cn_graph_add_node): an operator without a rule is
 * CN_EUNSUPPORTED, bad attributes, ports or shapes CN_EINVAL or CN_ESHAPE with a message
 * naming the operator and NAME.  The forward arm then runs at once in binary64; values the
 * operator cannot take are its CN_ENUMERIC or CN_EINVAL.  On failure *REF is untouched (a
 * forward failure leaves an output without value in the tape's graph that no later
 * application can read). */
CN_API cn_status cn_tape_apply (cn_tape *t, cn_op op, const void *params, int n_in, const int *in, const char *name,
                                int *ref, cn_error *err);

/* ---- reading ------------------------------------------------------------------------- */

/* The value of REF (binary64 for the model's scalar, its own sort for Booleans and integer
 * words), borrowed until cn_tape_free; NULL if REF is not a computed value of the tape. */
CN_API const cn_tensor *cn_tape_value (const cn_tape *t, int ref);
/* 1 if REF needs a gradient (see the top), 0 otherwise (and for a bad reference). */
CN_API int cn_tape_needs_grad (const cn_tape *t, int ref);
/* The graph of the recording (leaves as inputs, in order; no outputs declared), borrowed until
 * cn_tape_free.  It must not be changed except through this tape. */
CN_API const cn_graph *cn_tape_graph (const cn_tape *t);

/* ---- the backward sweep -------------------------------------------------------------- */

/* Runs reverse mode from REF with the seed cotangent SEED (numel(REF) doubles; NULL means all
 * ones): for every leaf x that needs a gradient, ADDS to its gradient
 *     grad x += J_REF(x)^T SEED ,
 * the chain rule through the recorded applications, each one's pullback called at its recorded
 * point with cotangents only for its inputs at value ports that need a gradient.  Gradients
 * accumulate over sweeps until cn_tape_zero_grad; the recording is kept, so a tape may be swept
 * from several references.  If REF needs no gradient nothing happens.  An operator on a path
 * that needs a gradient and has no pullback is CN_EUNSUPPORTED, "op: no pullback (node
 * 'name')", before any gradient is changed. */
CN_API cn_status cn_tape_backward (cn_tape *t, int ref, const double *seed, cn_error *err);
/* The gradient accumulated for LEAF (numel doubles, zero before any sweep), borrowed until the
 * next sweep, cn_tape_zero_grad or cn_tape_free; NULL if LEAF is not a leaf that needs a
 * gradient. */
CN_API const double *cn_tape_grad (const cn_tape *t, int leaf);
/* Sets every leaf's gradient to zero. */
CN_API void cn_tape_zero_grad (cn_tape *t);

/* ---- reverse and forward mode over a graph ------------------------------------------- */

/* Reverse mode over G at a point, in binary64, the engine of cn_graph_gradient and of custom
 * nodes.  X[i] holds numel(input i) numbers for graph input i (a Boolean or integer input's
 * numbers are converted to its sort); X[i] may be NULL for an input that output OUTPUT does not
 * read.  W holds numel(output OUTPUT) numbers.  Writes output OUTPUT's value into Y (as doubles;
 * Y may be NULL) and, for every input i with G_X != NULL and G_X[i] != NULL, of a floating sort,
 * ADDS the gradient of W . output with respect to input i into G_X[i] (numel(input i)
 * doubles).  Gradients flow as on a tape: only through value ports and values of the model's
 * scalar; constants and inputs whose G_X[i] is NULL receive nothing.  Only the nodes output
 * OUTPUT depends on are evaluated.  An operator without a pullback on a path that needs one is
 * CN_EUNSUPPORTED, "op: no pullback (node 'name')", before any G_X[i] is changed. */
CN_API cn_status cn_graph_vjp (const cn_graph *g, const double *const *x, int output, const double *w, double *y,
                               double *const *g_x, cn_error *err);
/* Forward mode over G at a point, in binary64: X as in cn_graph_vjp, T_X[i] the tangent of input
 * i (numel doubles; T_X or T_X[i] NULL: zero, and so for Boolean and integer inputs).  Writes
 * output OUTPUT's value into Y (may be NULL) and its tangent, the Jacobian-vector product
 *     T_Y = sum_i J_{output, input i}(x) T_X[i] ,
 * into T_Y (numel(output) doubles; zeros where no tangent reaches it).  Tangents flow only
 * through value ports and values of the model's scalar.  An operator without a jvp on a path
 * that carries a tangent is CN_EUNSUPPORTED, "op: no jvp (node 'name')". */
CN_API cn_status cn_graph_jvp (const cn_graph *g, const double *const *x, const double *const *t_x, int output,
                               double *y, double *t_y, cn_error *err);

#ifdef __cplusplus
}
#endif
#endif
