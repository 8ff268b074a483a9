/* SPDX-License-Identifier: MIT */
/* src/ibp/ibp.c: interval propagation through one node, by the node's IBP arm.
 *
 * The pass itself is a loop over the nodes in topological order (src/crown/analysis.c);
 * this file holds the step every engine shares: check that the operator has an arm, run it,
 * and refuse a NaN end (an arm must never produce one; an infinite end is allowed and means
 * "nothing finite is known"). */
#include <config.h>
#include <math.h>
#include <stdlib.h>
#include "graph/graph_impl.h"
#include "ibp/ibp_impl.h"

cn_status
cn__ibp_node (const cn_graph *g, int k, cn_box *boxes, cn_error *err)
{
  const struct cn__node *nd = &g->nodes[k];
  if (nd->rule->ibp == NULL)
    return cn_error_set (err, CN_EUNSUPPORTED, "%s: no IBP arm yet (node '%s')", cn_op_name (nd->op), nd->name);
  const cn_box *stack_in[8] = { NULL };
  const cn_box **in = nd->n_in <= 8 ? stack_in : malloc ((size_t) nd->n_in * sizeof *in);
  if (in == NULL)
    return cn_error_set (err, CN_ENOMEM, "ibp: out of memory");
  for (int i = 0; i < nd->n_in; i++)
    in[i] = &boxes[nd->in[i]];
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
