/* SPDX-License-Identifier: MIT */
/* src/graph/interval.c: the IR's interval evaluations of a program, through the operators' arms.
 *
 * cn__ibp_node runs one node's IBP arm (checking that there is one, and refusing a NaN or empty
 * result: an arm must never produce one; an infinite end is allowed and means "nothing finite is
 * known").  cn__graph_ibp and cn__graph_mpfi evaluate a whole program over boxes and over MPFI
 * intervals, node by node in topological order; with point intervals the MPFI pass is the exact
 * evaluator (the enclosure as tight as the precision allows).  The engines build on these (the
 * analysis driver's IBP boxes, the MPFI reference), and the custom operator runs its program
 * through them (src/graph/program.c). */
#include <config.h>
#include <math.h>
#include <stdlib.h>
#include "graph/graph_impl.h"

/* The boxes of ND's inputs in BOXES, in STACK (8 entries) when they fit, else in an array the
 * caller frees when it is not STACK; NULL when out of memory. */
static const cn_box **
node_in_boxes (const struct cn__node *nd, const cn_box *boxes, const cn_box **stack)
{
  const cn_box **in = nd->n_in <= 8 ? stack : malloc ((size_t) nd->n_in * sizeof *in);
  for (int i = 0; in != NULL && i < nd->n_in; i++)
    in[i] = &boxes[nd->in[i]];
  return in;
}

cn_status
cn__ibp_node (const cn_graph *g, int k, cn_box *boxes, cn_error *err)
{
  const struct cn__node *nd = &g->nodes[k];
  if (nd->rule->ibp == NULL)
    return cn_error_set (err, CN_EUNSUPPORTED, "%s: no IBP arm yet (node '%s')", cn_op_name (nd->op), nd->name);
  const cn_box *stack_in[8] = { NULL };
  const cn_box **in = node_in_boxes (nd, boxes, stack_in);
  if (in == NULL)
    return cn_error_set (err, CN_ENOMEM, "ibp: out of memory");
  /* one call per output (view[o] computes output o; its box initialised by the caller) */
  cn_status st = CN_OK;
  for (int o = 0; o < nd->n_out && st == CN_OK; o++)
    {
      cn_box *out = &boxes[nd->out[o]];
      if ((st = nd->rule->ibp (&nd->view[o], in, out, err)) != CN_OK)
        break;
      for (int64_t j = 0; j < out->n; j++)
        if (isnan (out->lo[j]) || isnan (out->hi[j]) || out->lo[j] > out->hi[j])
          {
            st = cn_error_set (err, CN_EUNSOUND, "%s: IBP arm produced an invalid interval at %lld (node '%s')",
                               cn_op_name (nd->op), (long long) j, nd->name);
            break;
          }
    }
  if (in != stack_in)
    free (in);
  return st;
}

cn_status
cn__roundoff32_node (const cn_graph *g, int k, const cn_box *boxes, double *const *e, cn_error *err)
{
  const struct cn__node *nd = &g->nodes[k];
  if (nd->rule->roundoff32 == NULL)
    return cn_error_set (err, CN_EUNSUPPORTED, "%s: no binary32 evaluation declared, so the binary32 semantics cannot "
                         "bound it (node '%s')", cn_op_name (nd->op), nd->name);
  const cn_box *stack_in[8] = { NULL };
  const cn_box **in = node_in_boxes (nd, boxes, stack_in);
  if (in == NULL)
    return cn_error_set (err, CN_ENOMEM, "binary32: out of memory");
  cn_status st = CN_OK;
  for (int o = 0; o < nd->n_out && st == CN_OK; o++)
    {
      if (e[o] == NULL)
        continue;
      const cn_box *out = &boxes[nd->out[o]];
      if ((st = nd->rule->roundoff32 (&nd->view[o], in, out, e[o], err)) != CN_OK)
        break;
      for (int64_t j = 0; j < out->n; j++)
        if (!(e[o][j] >= 0))
          {
            st = cn_error_set (err, CN_EUNSOUND, "%s: the binary32 error bound at %lld is not a number >= 0 (node '%s')",
                               cn_op_name (nd->op), (long long) j, nd->name);
            break;
          }
    }
  if (in != stack_in)
    free (in);
  return st;
}

cn_status
cn__graph_ibp (const cn_graph *g, const cn_box *const *in, int output, cn_box *y, cn_error *err)
{
  if (output < 0 || output >= g->n_outputs)
    return cn_error_set (err, CN_EINVAL, "ibp: no output %d (the graph has %d)", output, g->n_outputs);
  int nvals = g->n_values;
  cn_status st = CN_OK;
  cn_box *box = calloc ((size_t) (nvals > 0 ? nvals : 1), sizeof *box);
  unsigned char *needed = calloc ((size_t) (nvals > 0 ? nvals : 1), 1);
  unsigned char *borrowed = calloc ((size_t) (nvals > 0 ? nvals : 1), 1);
  if (box == NULL || needed == NULL || borrowed == NULL)
    {
      st = cn_error_set (err, CN_ENOMEM, "ibp: out of memory");
      goto done;
    }
  cn__graph_mark_needed (g, g->outputs[output], needed);
  for (int i = 0; i < g->n_inputs; i++)
    {
      if (in[i]->n != g->values[g->inputs[i]].numel)
        {
          st = cn_error_set (err, CN_ESHAPE, "ibp: box of input %d has %lld entries, the input %lld", i,
                             (long long) in[i]->n, (long long) g->values[g->inputs[i]].numel);
          goto done;
        }
      box[g->inputs[i]] = *in[i];
      borrowed[g->inputs[i]] = 1;
    }
  for (int v = 0; v < nvals; v++)
    {
      const struct cn__value *cv = &g->values[v];
      if (!needed[v] || !cv->is_constant)
        continue;
      /* the degenerate box of the exact binary64 copy, borrowed */
      box[v].n = cv->numel;
      box[v].lo = box[v].hi = cv->cdata;
      borrowed[v] = 1;
    }
  for (int k = 0; k < g->n_nodes; k++)
    {
      const struct cn__node *nd = &g->nodes[k];
      if (!cn__node_any_out (nd, needed))
        continue;
      for (int o = 0; o < nd->n_out && st == CN_OK; o++)
        st = cn_box_init (&box[nd->out[o]], g->values[nd->out[o]].numel, err);
      if (st != CN_OK || (st = cn__ibp_node (g, k, box, err)) != CN_OK)
        goto done;
      /* now the boxes of the node's outputs enclose their values over the input boxes */
    }
  const cn_box *yb = &box[g->outputs[output]];
  if (yb->n != y->n)
    {
      st = cn_error_set (err, CN_EINVAL, "ibp: the output box has %lld entries, the output %lld", (long long) y->n,
                         (long long) yb->n);
      goto done;
    }
  for (int64_t j = 0; j < y->n; j++)
    {
      y->lo[j] = yb->lo[j];
      y->hi[j] = yb->hi[j];
    }
done:
  if (box != NULL)
    for (int v = 0; v < nvals; v++)
      if (borrowed == NULL || !borrowed[v])
        cn_box_clear (&box[v]);
  free (box);
  free (needed);
  free (borrowed);
  return st;
}

cn_status
cn__graph_mpfi (const cn_graph *g, const cn_mpfi_vec *const *in, int output, mpfr_prec_t prec, cn_mpfi_vec *y,
                cn_error *err)
{
  if (output < 0 || output >= g->n_outputs)
    return cn_error_set (err, CN_EINVAL, "reference: no output %d (the graph has %d)", output, g->n_outputs);
  int nvals = g->n_values;
  cn_status st = CN_OK;
  cn_mpfi_vec *val = calloc ((size_t) (nvals > 0 ? nvals : 1), sizeof *val);
  unsigned char *needed = calloc ((size_t) (nvals > 0 ? nvals : 1), 1);
  unsigned char *borrowed = calloc ((size_t) (nvals > 0 ? nvals : 1), 1);
  int max_in = 1;
  for (int k = 0; k < g->n_nodes; k++)
    max_in = g->nodes[k].n_in > max_in ? g->nodes[k].n_in : max_in;
  const cn_mpfi_vec **args = malloc ((size_t) max_in * sizeof *args);
  if (val == NULL || needed == NULL || borrowed == NULL || args == NULL)
    {
      st = cn_error_set (err, CN_ENOMEM, "reference: out of memory");
      goto done;
    }
  cn__graph_mark_needed (g, g->outputs[output], needed);
  for (int i = 0; i < g->n_inputs; i++)
    {
      if (in[i]->n != g->values[g->inputs[i]].numel)
        {
          st = cn_error_set (err, CN_ESHAPE, "reference: input %d has %lld entries, the graph input %lld", i,
                             (long long) in[i]->n, (long long) g->values[g->inputs[i]].numel);
          goto done;
        }
      val[g->inputs[i]] = *in[i];       /* read in place */
      borrowed[g->inputs[i]] = 1;
    }
  for (int v = 0; v < nvals; v++)
    {
      const struct cn__value *cv = &g->values[v];
      if (!needed[v] || !cv->is_constant)
        continue;
      if ((st = cn_mpfi_vec_init (&val[v], cv->numel, prec, err)) != CN_OK)
        goto done;
      for (int64_t j = 0; j < cv->numel; j++)
        mpfi_set_d (val[v].v[j], cv->cdata[j]);
    }
  for (int k = 0; k < g->n_nodes; k++)
    {
      const struct cn__node *nd = &g->nodes[k];
      if (!cn__node_any_out (nd, needed))
        continue;
      if (nd->rule->ibp_mpfi == NULL)
        {
          st = cn_error_set (err, CN_EUNSUPPORTED, "%s: no MPFI arm (node '%s')", cn_op_name (nd->op), nd->name);
          goto done;
        }
      for (int i = 0; i < nd->n_in; i++)
        args[i] = &val[nd->in[i]];
      for (int o = 0; o < nd->n_out; o++)
        if ((st = cn_mpfi_vec_init (&val[nd->out[o]], g->values[nd->out[o]].numel, prec, err)) != CN_OK
            || (st = nd->rule->ibp_mpfi (&nd->view[o], args, &val[nd->out[o]], err)) != CN_OK)
          goto done;
      /* now the node's outputs enclose their values for every real point of the input intervals */
    }
  const cn_mpfi_vec *yv = &val[g->outputs[output]];
  if (yv->n != y->n)
    {
      st = cn_error_set (err, CN_EINVAL, "reference: the output vector has %lld entries, the output %lld",
                         (long long) y->n, (long long) yv->n);
      goto done;
    }
  for (int64_t j = 0; j < y->n; j++)
    mpfi_set (y->v[j], yv->v[j]);
done:
  if (val != NULL)
    for (int v = 0; v < nvals; v++)
      if (borrowed == NULL || !borrowed[v])
        cn_mpfi_vec_clear (&val[v]);
  free (val);
  free (needed);
  free (borrowed);
  free (args);
  return st;
}
