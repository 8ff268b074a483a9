/* SPDX-License-Identifier: MIT */
/* src/graph/grad.c: reverse mode over the graph (cn_graph_gradient).
 *
 * For the graph's one input x and its output 0, y = F(x) (the composition of the nodes), the
 * gradient of phi(x) = w . F(x) is  grad phi(x) = J_F(x)^T w.  It is computed by the chain rule
 * backwards: every value v gets its cotangent  bar v = d phi / d v  (numel(v) doubles), with
 *     bar y = w,     bar u = sum over the nodes v = f(..., u, ...) that read u of  J_{f,u}(u)^T bar v,
 * and grad phi(x) = bar x.  Each term J^T bar v is what the node's pullback adds into bar u.
 *
 *   1. Reach.  A value is needed if output 0 depends on it (a walk backwards from output 0), and
 *      active if it is needed and depends on x (a walk forwards from x).  Only active values get a
 *      cotangent; a node whose output is active must have a pullback, and it gets NULL in G_IN for
 *      every input that is not active (constants, values independent of x), so that it computes
 *      only the products that matter.
 *   2. Forward in binary64 through each needed node's forward arm, in node order, every value kept:
 *      the pullbacks read their inputs and their output at the point x.  Floating-point constants
 *      are read in place from the graph's exact binary64 copies.
 *   3. Backward.  Nodes are added after the values they read, so the reverse of the node order is a
 *      reverse topological order: when a node is reached, every consumer of its output has been
 *      processed and the output's cotangent is complete.  The node's pullback adds its products
 *      into the cotangents of its active inputs (allocated, zero, on first use); the output's
 *      cotangent is then freed.  At the end bar x = J_F(x)^T w.
 *
 * Everything is round-to-nearest binary64: a floating-point tool for attacks and heuristics, with
 * no soundness claim. */
#include <config.h>
#include <stdlib.h>
#include <string.h>
#include "graph/graph_impl.h"

cn_status
cn_graph_gradient (const cn_graph *g, const double *x, const double *w, double *y, double *g_x, cn_error *err)
{
  if (g == NULL || x == NULL || w == NULL || g_x == NULL)
    return cn_error_set (err, CN_EINVAL, "gradient: NULL argument");
  if (g->n_inputs != 1)
    return cn_error_set (err, CN_EINVAL, "gradient: the graph has %d inputs, expected exactly 1", g->n_inputs);
  if (g->n_outputs < 1)
    return cn_error_set (err, CN_EINVAL, "gradient: the graph has no output");

  cn_status st = CN_OK;
  int nv = g->n_values, xv = g->inputs[0], yv = g->outputs[0];
  size_t nv_alloc = (size_t) (nv > 0 ? nv : 1);
  cn_tensor *val = calloc (nv_alloc, sizeof *val);
  double **cot = calloc (nv_alloc, sizeof *cot);
  unsigned char *needed = calloc (nv_alloc, 1), *depends = calloc (nv_alloc, 1);
  unsigned char *borrowed = calloc (nv_alloc, 1);      /* val[v] points into the graph */
  const cn_tensor **args = NULL;
  double **g_in = NULL;
  if (val == NULL || cot == NULL || needed == NULL || depends == NULL || borrowed == NULL)
    goto nomem;
  int max_in = 1;
  for (int k = 0; k < g->n_nodes; k++)
    if (g->nodes[k].n_in > max_in)
      max_in = g->nodes[k].n_in;
  args = malloc ((size_t) max_in * sizeof *args);
  g_in = malloc ((size_t) max_in * sizeof *g_in);
  if (args == NULL || g_in == NULL)
    goto nomem;

  /* 1. Reach: needed backwards from output 0, depends forwards from x. */
  needed[yv] = 1;
  for (int k = g->n_nodes - 1; k >= 0; k--)
    {
      const struct cn__node *nd = &g->nodes[k];
      if (needed[nd->out])
        for (int i = 0; i < nd->n_in; i++)
          needed[nd->in[i]] = 1;
    }
  depends[xv] = 1;
  for (int k = 0; k < g->n_nodes; k++)
    {
      const struct cn__node *nd = &g->nodes[k];
      for (int i = 0; i < nd->n_in; i++)
        depends[nd->out] |= depends[nd->in[i]];
    }
  /* now a value is active iff needed && depends; an active node needs a pullback */
  for (int k = 0; k < g->n_nodes; k++)
    {
      const struct cn__node *nd = &g->nodes[k];
      if (needed[nd->out] && depends[nd->out] && nd->rule->pullback == NULL)
        {
          st = cn_error_set (err, CN_EUNSUPPORTED, "%s: no pullback (node '%s')", cn_op_name (nd->op), nd->name);
          goto done;
        }
    }

  /* 2. Forward in binary64, keeping every needed value. */
  const struct cn__value *xval = &g->values[xv];
  if ((st = cn_tensor_init (&val[xv], CN_DTYPE_F64, &xval->shape, err)) != CN_OK)
    goto done;
  if (xval->numel > 0)
    memcpy (val[xv].data, x, (size_t) xval->numel * sizeof *x);
  for (int v = 0; v < nv; v++)
    {
      const struct cn__value *cv = &g->values[v];
      if (!needed[v] || !cv->is_constant)
        continue;
      if (cn_dtype_is_float (cv->dtype) && cv->cdata != NULL)
        {
          /* A floating-point constant is read in place from its exact binary64 copy (no copy
           * per call: attacks call this many times). */
          val[v].dtype = CN_DTYPE_F64;
          val[v].shape = cv->shape;
          val[v].data = cv->cdata;
          borrowed[v] = 1;
        }
      else if ((st = cn_tensor_convert (&val[v], CN_DTYPE_F64, &cv->constant, err)) != CN_OK)
        goto done;
    }
  for (int k = 0; k < g->n_nodes; k++)
    {
      const struct cn__node *nd = &g->nodes[k];
      if (!needed[nd->out])
        continue;
      for (int i = 0; i < nd->n_in; i++)
        args[i] = &val[nd->in[i]];
      if (nd->rule->forward == NULL)
        {
          st = cn_error_set (err, CN_EUNSUPPORTED, "%s: no forward rule (node '%s')", cn_op_name (nd->op), nd->name);
          goto done;
        }
      if ((st = cn_tensor_init (&val[nd->out], CN_DTYPE_F64, &g->values[nd->out].shape, err)) != CN_OK
          || (st = nd->rule->forward (&nd->view, args, &val[nd->out], err)) != CN_OK)
        goto done;
    }
  /* now val[v] = v(x) in binary64 for every needed value v */

  /* 3. Backward: bar y = w, then the active nodes in reverse order. */
  int64_t ny = g->values[yv].numel;
  if (depends[yv])
    {
      cot[yv] = malloc ((size_t) (ny > 0 ? ny : 1) * sizeof (double));
      if (cot[yv] == NULL)
        goto nomem;
      if (ny > 0)
        memcpy (cot[yv], w, (size_t) ny * sizeof (double));
    }
  for (int k = g->n_nodes - 1; k >= 0; k--)
    {
      const struct cn__node *nd = &g->nodes[k];
      if (!needed[nd->out] || !depends[nd->out])
        continue;
      if (cot[nd->out] == NULL)
        {
          /* Cannot happen: an active value is output 0 or read by an active node, which allocated it. */
          st = cn_error_set (err, CN_EINVAL, "gradient: internal error, no cotangent for node '%s'", nd->name);
          goto done;
        }
      for (int i = 0; i < nd->n_in; i++)
        {
          int u = nd->in[i];
          args[i] = &val[u];
          g_in[i] = NULL;
          if (!depends[u])
            continue;
          if (cot[u] == NULL)
            {
              cot[u] = calloc ((size_t) (g->values[u].numel > 0 ? g->values[u].numel : 1), sizeof (double));
              if (cot[u] == NULL)
                goto nomem;
            }
          g_in[i] = cot[u];
        }
      if ((st = nd->rule->pullback (&nd->view, args, &val[nd->out], cot[nd->out], g_in, err)) != CN_OK)
        goto done;
      /* now bar u has received J_{f,u}^T bar v for every active input u of this node */
      free (cot[nd->out]);
      cot[nd->out] = NULL;
    }
  /* now cot[xv] = J_F(x)^T w, or NULL if output 0 does not depend on x (the gradient is 0) */

  int64_t nx = xval->numel;
  if (cot[xv] != NULL)
    memcpy (g_x, cot[xv], (size_t) nx * sizeof *g_x);
  else
    for (int64_t j = 0; j < nx; j++)
      g_x[j] = 0;
  if (y != NULL && ny > 0)
    memcpy (y, val[yv].data, (size_t) ny * sizeof *y);
  st = CN_OK;
  goto done;

nomem:
  st = cn_error_set (err, CN_ENOMEM, "gradient: out of memory");
done:
  if (val != NULL)
    for (int v = 0; v < nv; v++)
      if (borrowed == NULL || !borrowed[v])
        cn_tensor_clear (&val[v]);
  if (cot != NULL)
    for (int v = 0; v < nv; v++)
      free (cot[v]);
  free (val);
  free (cot);
  free (needed);
  free (depends);
  free (borrowed);
  free (args);
  free (g_in);
  return st;
}
