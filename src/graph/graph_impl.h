/* SPDX-License-Identifier: MIT */
/* src/graph/graph_impl.h: the body of cn_graph (internal). */
#ifndef CN_GRAPH_IMPL_H
#define CN_GRAPH_IMPL_H

#include "certnn/graph.h"
#include "ops/ops_impl.h"

struct cn__value
{
  char *name;
  cn_dtype dtype;
  cn_shape shape;
  int64_t numel;
  int producer;              /* node number, -1 for inputs and constants */
  int is_input;
  cn_tensor constant;        /* valid iff is_constant */
  int is_constant;
  double *cdata;             /* the constant as binary64 (exact for f32/f64 sources), or NULL */
};

struct cn__node
{
  cn_op op;
  const struct cn_op_rule *rule;
  void *params;              /* owned copy, NULL if the op has none */
  char *name;
  int n_in;
  int *in;                   /* n_in value numbers */
  int n_out;                 /* the rule's number of outputs (at least 1) */
  int *out;                  /* n_out output value numbers */
  /* Views for the arms, refreshed whenever g->values moves. */
  const cn_shape **in_shape;
  const cn_tensor **in_const;
  cn_dtype *in_sort;         /* n_in sorts, the model's scalar as CN_DTYPE_F64 (the view's in_sort) */
  cn_node_view *view;        /* n_out views: view[k] computes output k (out_index = k) */
};

struct cn_graph
{
  struct cn__program_head head;  /* first: the operations custom nodes reach a program through */
  struct cn__value *values;
  int n_values, cap_values;
  struct cn__node *nodes;
  int n_nodes, cap_nodes;
  int *inputs;
  int n_inputs;
  int *outputs;
  int n_outputs;
};

/* Whether FLAGS (one byte per value) is set at some output of ND. */
static inline int
cn__node_any_out (const struct cn__node *nd, const unsigned char *flags)
{
  for (int o = 0; o < nd->n_out; o++)
    if (flags[nd->out[o]])
      return 1;
  return 0;
}

/* Marks in NEEDED (one byte per value of G) value V and every value it depends on. */
static inline void
cn__graph_mark_needed (const cn_graph *g, int v, unsigned char *needed)
{
  needed[v] = 1;
  for (int k = g->n_nodes - 1; k >= 0; k--)
    {
      const struct cn__node *nd = &g->nodes[k];
      if (cn__node_any_out (nd, needed))
        for (int i = 0; i < nd->n_in; i++)
          needed[nd->in[i]] = 1;
    }
}

/* ---- interval evaluation (src/graph/interval.c) ---- */

/* Runs node K's IBP arm on BOXES (one initialised box per value; the inputs' boxes filled):
 * fills BOXES[out of K].  CN_EUNSUPPORTED without an arm, CN_EUNSOUND on a NaN or empty
 * result. */
cn_status cn__ibp_node (const cn_graph *g, int k, cn_box *boxes, cn_error *err);
/* The binary32 semantics' rounding errors of node K (certnn/bounds.h): for every output o with
 * E[o] != NULL (numel entries; the caller passes NULL for outputs that are not of the model's
 * scalar), the rule's ROUNDOFF32 bound over the boxes of its inputs, BOXES[out] holding the
 * exact output's box (the IBP arm's, not yet widened).  CN_EUNSUPPORTED naming the operator and
 * the node when the rule declares no binary32 evaluation; CN_EUNSOUND for a NaN or negative bound. */
cn_status cn__roundoff32_node (const cn_graph *g, int k, const cn_box *boxes, double *const *e, cn_error *err);

/* IBP over the whole program G: the boxes IN (one per graph input, read in place), degenerate
 * boxes [c, c] of the constants' exact binary64 copies, then the nodes that graph output OUTPUT
 * depends on, in node order, through their IBP arms.  Copies the output's box into Y (initialised
 * by the caller with the output's number of entries).  Every arm encloses its node's exact values
 * over its input boxes, so by induction Y encloses the output for every real point of IN. */
cn_status cn__graph_ibp (const cn_graph *g, const cn_box *const *in, int output, cn_box *y, cn_error *err);

/* The same through the MPFI arms at precision PREC (the reference): IN one enclosure per graph
 * input (read in place), Y initialised by the caller (the output's entries, any precision). */
cn_status cn__graph_mpfi (const cn_graph *g, const cn_mpfi_vec *const *in, int output, mpfr_prec_t prec,
                          cn_mpfi_vec *y, cn_error *err);

/* The operations of every graph's head (src/graph/program.c). */
extern const cn__program_ops cn__graph_program_ops;

/* Returns CN_EINVAL unless V is a value of G. */
cn_status cn__graph_check_value (const cn_graph *g, int v, const char *who, cn_error *err);

/* Points the views of node ND of G (its input shapes and constants, its output shapes) at the
 * current g->values, after the values moved or were renumbered. */
void cn__node_refresh_views (cn_graph *g, struct cn__node *nd);
/* Whether node ND's CROWN arm reads its input boxes in the sense of FLAG (CN_RULE_NEEDS_BOUNDS or
 * CN_RULE_SMOOTH_BOUNDS): its rule sets FLAG and its READS_BOXES hook, if any, says this instance
 * does. */
int cn__node_reads_boxes (const cn_graph *g, const struct cn__node *nd, unsigned flag);

/* ---- constant folding, a graph pass (src/graph/fold.c) --------------------------------------
 *
 * A node whose inputs are all constants is folded when its value is known exactly: it is
 * evaluated through its rule's forward in binary64; a Boolean or integer result is exact (the
 * words' own arithmetic) and becomes a constant of its sort; a floating result becomes a
 * constant only where the node's MPFI arm, at 512 bits over the same constants, encloses it as a
 * point equal to that binary64 number (a result that would round stays a node, bounded like any
 * other).  Data movement (the movement family: reshape, permute, broadcast, flip, pad, cat)
 * copies entries and is exact without the check.  The random family (draws of a key) is never
 * folded.  A folded node's outputs keep their value numbers and names; the node itself is
 * removed. */

/* Folds the last node of G if it can be (above); *FOLDED says whether it was.  A node whose
 * forward refuses its constant inputs (an integer division by zero, a cast out of range) is that
 * error, naming the node. */
cn_status cn__graph_fold_last (cn_graph *g, int *folded, cn_error *err);
/* Takes back the last node of G and its outputs, which nothing may read yet. */
void cn__graph_drop_last (cn_graph *g);
/* The whole pass: folds, in node order, every node of G that can be folded (each fold may make
 * later nodes' inputs constant), then drops the constants nothing reads (cn__graph_prune).
 * *N_FOLDED (if not NULL) receives the number of nodes folded.  Value and node numbers change. */
cn_status cn__graph_fold (cn_graph *g, int *n_folded, cn_error *err);
/* Drops the constants that no node reads and no graph output names, renumbering the values (in
 * their order). */
cn_status cn__graph_prune (cn_graph *g, cn_error *err);

#endif
