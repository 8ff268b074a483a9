/* SPDX-License-Identifier: MIT */
/* src/ops/custom.c: custom, a node whose meaning is a program (a graph) it carries.
 *
 * The attribute record (certnn/ops.h, cn_params_custom) borrows PROGRAM, a graph whose inputs
 * are the node's inputs, in order and of equal shapes, and whose output 0 is the node's output;
 * NAME names the custom operator in messages.  For the program P, o = P(u_1, ..., u_n):
 *
 * ports      n >= 1 value ports (variadic).  Decision: the program's inputs must be of the model's
 *            scalar (a floating sort; out_sort refuses a Boolean or integer program input), so
 *            that gradients and tangents reach every input through the program; a Boolean or
 *            integer operand is computed inside the program from value inputs (a comparison) or
 *            held there as a constant.
 * check      PROGRAM non-NULL, with n inputs of the node's shapes and an output; writes the shape
 *            of its output 0.  Messages "custom 'NAME': ..." (the builder adds the node).
 * out_sort   the sort of the program's output 0: the model's scalar (CN_DTYPE_F64) if floating,
 *            else its Boolean or integer sort.
 * The program is reached through the operations the IR puts at its head (cn__program_ops,
 * src/ops/ops_impl.h; implemented in src/graph/program.c), so no rule calls into the graph or
 * an engine.
 *
 * forward    cn_graph_eval of the program in the evaluation's floating sort (the sort of the
 *            node's inputs) on the node's inputs; output 0 is copied out.  Each inner operator
 *            rounds as its own forward does, so custom is as accurate as its program (no ulp bound
 *            of its own).
 * IBP        the program's IBP pass (cn__graph_ibp, src/graph/interval.c): the nodes that output 0
 *            depends on, in node order, through their IBP arms, with the node's input boxes for
 *            the program's inputs and degenerate boxes [c, c] of the exact binary64 copies for its
 *            constants.  Every arm encloses its node's exact real values over its input boxes, so
 *            by induction over the node order every box encloses its value over the input boxes:
 *            the output box encloses P(u) for every real u in the boxes.
 * MPFI       the same through the nodes' MPFI arms at the precision of OUT's intervals (the
 *            reference's pass, cn__graph_mpfi).
 * pullback   reverse mode over the program (cn_graph_vjp, the tape's engine): the program is
 *            evaluated again in binary64 at the node's inputs and the nodes' pullbacks run in
 *            reverse order, adding J_{P,u_i}(u)^T g_out into g_in[i] for every i with
 *            g_in[i] != NULL.  Gradients flow inside the program only through value ports and
 *            values of the model's scalar; one-sided choices are the inner operators'.
 * jvp        forward mode over the program (cn_graph_jvp): t_out = sum_i J_{P,u_i}(u) t_in[i], the
 *            inner jvps in node order, with the same one-sided choices as the pullbacks (adjoint).
 * CROWN      no arm.
 * An inner operator without the arm an outer arm needs is CN_EUNSUPPORTED, the inner message
 * (naming the inner operator and node) behind "custom 'NAME' (node 'N'): ".
 *
 * The program must not contain the node that carries it (directly or through nested customs):
 * the record's contract keeps the program unchanged while a graph holds the node, so no cycle
 * can be built through the public API without breaking it. */
#include <config.h>
#include <stdlib.h>
#include <string.h>
#include "ops/ops_impl.h"

#define P(params) ((const cn_params_custom *) (params))

/* The length of the custom's name (the record's array need not hold a NUL). */
static int
name_len (const cn_params_custom *p)
{
  return (int) strnlen (p->name, sizeof p->name);
}

/* Wraps the inner error LOCAL (status ST) into ERR, naming the custom and its node. */
static cn_status
wrap (const cn_node_view *nv, cn_status st, const cn_error *local, cn_error *err)
{
  const cn_params_custom *p = P (nv->params);
  /* an error from a nested custom already names its own custom first: keep only the innermost
   * one's words then, so that a deep nest does not push the cause out of the message */
  if (strncmp (local->msg, "custom '", 8) == 0)
    return cn_error_set (err, st, "%s", local->msg);
  return cn_error_set (err, st, "custom '%.*s' (node '%s'): %s", name_len (p), p->name, cn__node_name (nv), local->msg);
}

static cn_status
custom_check (const struct cn_op_rule *rule, const void *params, int n_in, const cn_shape *const *in, cn_shape *out, cn_error *err)
{
  (void) rule;
  const cn_params_custom *p = P (params);
  const struct cn_graph *g = p->program;
  int nl = name_len (p);
  if (g == NULL)
    return cn_error_set (err, CN_EINVAL, "custom '%.*s': no program", nl, p->name);
  const cn__program_ops *po = cn__program_ops_of (g);
  if (po->n_inputs (g) != n_in)
    return cn_error_set (err, CN_EINVAL, "custom '%.*s': the program has %d inputs, the node %d", nl, p->name,
                         po->n_inputs (g), n_in);
  for (int i = 0; i < n_in; i++)
    {
      cn_status st = cn__input_valid ("custom", i, in[i], err);
      if (st != CN_OK)
        return st;
      if (!cn_shape_equal (in[i], po->input_shape (g, i)))
        {
          char a[128], b[128];
          return cn_error_set (err, CN_ESHAPE, "custom '%.*s': input %d has shape %s, the program's input '%s' %s", nl,
                               p->name, i, cn_shape_format (in[i], a, sizeof a), po->input_name (g, i),
                               cn_shape_format (po->input_shape (g, i), b, sizeof b));
        }
    }
  if (po->n_outputs (g) < 1)
    return cn_error_set (err, CN_EINVAL, "custom '%.*s': the program has no output", nl, p->name);
  *out = *po->output_shape (g, 0);
  return CN_OK;
}

static cn_status
custom_out_sort (const struct cn_op_rule *rule, const void *params, int n_in, const cn_dtype *in, cn_dtype *out, cn_error *err)
{
  (void) rule;
  (void) in;                            /* value ports: the builder saw to the model's scalar */
  const cn_params_custom *p = P (params);
  const struct cn_graph *g = p->program;
  int nl = name_len (p);
  if (g == NULL)
    return cn_error_set (err, CN_EINVAL, "custom '%.*s': no program", nl, p->name);
  const cn__program_ops *po = cn__program_ops_of (g);
  if (po->n_inputs (g) != n_in)
    return cn_error_set (err, CN_EINVAL, "custom '%.*s': the program has %d inputs, the node %d", nl, p->name,
                         po->n_inputs (g), n_in);
  for (int i = 0; i < n_in; i++)
    if (!cn_dtype_is_float (po->input_sort (g, i)))
      return cn_error_set (err, CN_EINVAL, "custom '%.*s': the program's input %d ('%s') is of sort %s; a custom "
                           "node's inputs are values of the model's scalar", nl, p->name, i, po->input_name (g, i),
                           cn_dtype_name (po->input_sort (g, i)));
  if (po->n_outputs (g) < 1)
    return cn_error_set (err, CN_EINVAL, "custom '%.*s': the program has no output", nl, p->name);
  cn_dtype d = po->output_sort (g, 0);
  *out = cn_dtype_is_float (d) ? CN_DTYPE_F64 : d;
  return CN_OK;
}

static cn_status
custom_forward_body (const cn_node_view *nv, const cn_tensor *const *in, cn_tensor *out, cn_error *err)
{
  const struct cn_graph *g = P (nv->params)->program;
  const cn__program_ops *po = cn__program_ops_of (g);
  int n_outs = po->n_outputs (g);
  cn_error local;
  cn_error_clear (&local);
  cn_status st = CN_OK;
  cn_tensor *xs = malloc ((size_t) nv->n_in * sizeof *xs);
  cn_tensor *ys = calloc ((size_t) n_outs, sizeof *ys);
  if (xs == NULL || ys == NULL)
    {
      st = cn_error_set (err, CN_ENOMEM, "custom: out of memory");
      goto done;
    }
  for (int i = 0; i < nv->n_in; i++)
    xs[i] = *in[i];                     /* shallow: cn_graph_eval converts, never writes */
  /* The evaluation's floating sort is the sort of the (value) inputs. */
  if ((st = po->eval (g, in[0]->dtype, xs, ys, &local)) != CN_OK)
    {
      st = wrap (nv, st, &local, err);
      goto done;
    }
  int64_t n = cn_tensor_numel (out);
  /* the program's output 0 has the node's shape (check) and sort (out_sort) */
  CN__ASSERTD (ys[0].dtype == out->dtype && cn_tensor_numel (&ys[0]) == n);
  if (n > 0)
    memcpy (out->data, ys[0].data, (size_t) n * cn_dtype_size (out->dtype));
  /* now OUT = P(in) in the evaluation's sort */
  for (int j = 0; j < n_outs; j++)
    cn_tensor_clear (&ys[j]);
done:
  free (xs);
  free (ys);
  return st;
}

static cn_status
custom_ibp_body (const cn_node_view *nv, const cn_box *const *in, cn_box *out, cn_error *err)
{
  cn_error local;
  cn_error_clear (&local);
  const struct cn_graph *g = P (nv->params)->program;
  cn_status st = cn__program_ops_of (g)->ibp (g, in, 0, out, &local);
  /* now OUT encloses P(u) for every real u in the input boxes (cn__graph_ibp's induction) */
  return st == CN_OK ? CN_OK : wrap (nv, st, &local, err);
}

static cn_status
custom_mpfi_body (const cn_node_view *nv, const cn_mpfi_vec *const *in, cn_mpfi_vec *out, cn_error *err)
{
  mpfr_prec_t prec = out->n > 0 ? mpfi_get_prec (out->v[0]) : 53;
  cn_error local;
  cn_error_clear (&local);
  const struct cn_graph *g = P (nv->params)->program;
  cn_status st = cn__program_ops_of (g)->mpfi (g, in, 0, prec, out, &local);
  return st == CN_OK ? CN_OK : wrap (nv, st, &local, err);
}

/* Writes to *X the binary64 points of the node's inputs, for cn_graph_vjp and cn_graph_jvp (the
 * inputs are f64 tensors at value ports: the engines give the derivative arms binary64 points);
 * the caller frees *X. */
static cn_status
points (const cn_node_view *nv, const cn_tensor *const *in, const double ***x, cn_error *err)
{
  const double **p = malloc ((size_t) nv->n_in * sizeof *p);
  if (p == NULL)
    return cn_error_set (err, CN_ENOMEM, "custom: out of memory");
  for (int i = 0; i < nv->n_in; i++)
    {
      CN__ASSERTD (in[i]->dtype == CN_DTYPE_F64);
      p[i] = in[i]->data;
    }
  *x = p;
  return CN_OK;
}

static cn_status
custom_pullback_body (const cn_node_view *nv, const cn_tensor *const *in, const cn_tensor *out, const double *g_out,
                 double *const *g_in, cn_error *err)
{
  (void) out;
  const double **x = NULL;
  cn_status st = points (nv, in, &x, err);
  if (st != CN_OK)
    return st;
  cn_error local;
  cn_error_clear (&local);
  /* g_in[i] += J_{P,u_i}(u)^T g_out for every i with g_in[i] != NULL */
  const struct cn_graph *g = P (nv->params)->program;
  st = cn__program_ops_of (g)->vjp (g, x, 0, g_out, NULL, g_in, &local);
  free (x);
  return st == CN_OK ? CN_OK : wrap (nv, st, &local, err);
}

static cn_status
custom_jvp_body (const cn_node_view *nv, const cn_tensor *const *in, const cn_tensor *out, const double *const *t_in,
            double *t_out, cn_error *err)
{
  (void) out;
  const double **x = NULL;
  cn_status st = points (nv, in, &x, err);
  if (st != CN_OK)
    return st;
  cn_error local;
  cn_error_clear (&local);
  /* t_out = sum_i J_{P,u_i}(u) t_in[i] over the inputs with t_in[i] != NULL */
  const struct cn_graph *g = P (nv->params)->program;
  st = cn__program_ops_of (g)->jvp (g, x, t_in, 0, NULL, t_out, &local);
  free (x);
  return st == CN_OK ? CN_OK : wrap (nv, st, &local, err);
}

/* ---- nesting guard ----
 * A program may hold custom nodes whose programs hold custom nodes, ...; a program that holds
 * its own node (the record borrows the program, so nothing stops a caller from building that)
 * would recurse without end.  Every arm runs under a per-thread depth count and refuses to go
 * deeper than CUSTOM_DEPTH_MAX with CN_EINVAL naming the custom operator and node. */
#define CUSTOM_DEPTH_MAX 64
static _Thread_local int custom_depth;

static cn_status
depth_enter (const cn_node_view *nv, cn_error *err)
{
  if (custom_depth >= CUSTOM_DEPTH_MAX)
    {
      const cn_params_custom *p = nv->params;
      return cn_error_set (err, CN_EINVAL, "custom '%s': programs nested deeper than %d (does a program hold its own "
                           "node?) (node '%s')", p != NULL ? p->name : "", CUSTOM_DEPTH_MAX, cn__node_name (nv));
    }
  custom_depth++;
  return CN_OK;
}

#define GUARDED(call)                               \
  do                                                \
    {                                               \
      cn_status st_ = depth_enter (nv, err);        \
      if (st_ != CN_OK)                             \
        return st_;                                 \
      st_ = (call);                                 \
      custom_depth--;                               \
      return st_;                                   \
    }                                               \
  while (0)

static cn_status
custom_forward (const cn_node_view *nv, const cn_tensor *const *in, cn_tensor *out, cn_error *err)
{
  GUARDED (custom_forward_body (nv, in, out, err));
}

static cn_status
custom_ibp (const cn_node_view *nv, const cn_box *const *in, cn_box *out, cn_error *err)
{
  GUARDED (custom_ibp_body (nv, in, out, err));
}

static cn_status
custom_mpfi (const cn_node_view *nv, const cn_mpfi_vec *const *in, cn_mpfi_vec *out, cn_error *err)
{
  GUARDED (custom_mpfi_body (nv, in, out, err));
}

static cn_status
custom_pullback (const cn_node_view *nv, const cn_tensor *const *in, const cn_tensor *out, const double *g_out,
                 double *const *g_in, cn_error *err)
{
  GUARDED (custom_pullback_body (nv, in, out, g_out, g_in, err));
}

static cn_status
custom_jvp (const cn_node_view *nv, const cn_tensor *const *in, const cn_tensor *out, const double *const *t_in,
            double *t_out, cn_error *err)
{
  GUARDED (custom_jvp_body (nv, in, out, t_in, t_out, err));
}

const struct cn_op_rule cn__rule_CUSTOM = { .op = CN_OP_CUSTOM,
  .n_in = -1, .in_kind = NULL, .check = custom_check,
  .out_sort = custom_out_sort, .forward = custom_forward, .pullback = custom_pullback, .jvp = custom_jvp,
  .ibp = custom_ibp, .ibp_mpfi = custom_mpfi,
  .certs = CN__CERTS (CN__CERT_GRADIENT, CN__CERT_IBP),
};
