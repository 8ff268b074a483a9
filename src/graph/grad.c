/* SPDX-License-Identifier: MIT */
/* src/graph/grad.c: reverse mode over a graph with one input (cn_graph_gradient).
 *
 * For the graph's one input x and its output 0, y = F(x), the gradient of phi(x) = w . F(x) is
 * grad phi(x) = J_F(x)^T w.  It is cn_graph_vjp (src/graph/tape.c, the engine the tape and the
 * custom operator share) with the gradient buffer cleared first:
 *   - only the nodes output 0 depends on are evaluated, in binary64, floating constants read in
 *     place from the graph's exact binary64 copies;
 *   - gradients flow only through value ports and values of the model's scalar: a frozen,
 *     detached, index, Boolean or integer port receives nothing, and a Boolean or integer value
 *     (a comparison's output) passes nothing back, so such nodes never need a pullback;
 *   - an operator on a path that carries a gradient and has no pullback is CN_EUNSUPPORTED naming
 *     it and the node.
 * Everything is round-to-nearest binary64: a floating-point tool for attacks and heuristics, with
 * no soundness claim. */
#include <config.h>
#include "certnn/tape.h"
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
  int64_t nx = g->values[g->inputs[0]].numel;
  for (int64_t j = 0; j < nx; j++)
    g_x[j] = 0;
  /* now g_x = 0, and cn_graph_vjp adds J_F(x)^T w into it (nothing if output 0 does not depend
   * on x through value ports) */
  const double *xs[1] = { x };
  double *gs[1] = { g_x };
  return cn_graph_vjp (g, xs, 0, w, y, gs, err);
}
