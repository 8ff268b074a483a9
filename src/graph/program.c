/* SPDX-License-Identifier: MIT */
/* src/graph/program.c: a graph as the custom operator sees its program (cn__program_ops,
 * src/ops/ops_impl.h).
 *
 * The table sits below the IR, so the custom operator cannot call the graph's functions by
 * name; every graph instead starts with a head pointing to these operations, set by
 * cn_graph_create.  Each one is the IR's own function (or a query of the graph's body), so a
 * custom node means exactly what its program means. */
#include <config.h>
#include "certnn/tape.h"
#include "graph/graph_impl.h"

static int
prog_n_inputs (const struct cn_graph *p)
{
  return p->n_inputs;
}

static int
prog_n_outputs (const struct cn_graph *p)
{
  return p->n_outputs;
}

static const char *
prog_input_name (const struct cn_graph *p, int i)
{
  return p->values[p->inputs[i]].name;
}

static const cn_shape *
prog_input_shape (const struct cn_graph *p, int i)
{
  return &p->values[p->inputs[i]].shape;
}

static cn_dtype
prog_input_sort (const struct cn_graph *p, int i)
{
  return p->values[p->inputs[i]].dtype;
}

static const cn_shape *
prog_output_shape (const struct cn_graph *p, int k)
{
  return &p->values[p->outputs[k]].shape;
}

static cn_dtype
prog_output_sort (const struct cn_graph *p, int k)
{
  return p->values[p->outputs[k]].dtype;
}

const cn__program_ops cn__graph_program_ops = {
  .n_inputs = prog_n_inputs,
  .n_outputs = prog_n_outputs,
  .input_name = prog_input_name,
  .input_shape = prog_input_shape,
  .input_sort = prog_input_sort,
  .output_shape = prog_output_shape,
  .output_sort = prog_output_sort,
  .eval = cn_graph_eval,
  .vjp = cn_graph_vjp,
  .jvp = cn_graph_jvp,
  .ibp = cn__graph_ibp,
  .mpfi = cn__graph_mpfi,
};
