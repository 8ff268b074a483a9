/* SPDX-License-Identifier: MIT */
/* src/graph/eval.c: forward evaluation of a graph through its operators' rules.
 *
 * Values of the model's scalar are held in the evaluation's sort (f64 or f32); Boolean and
 * integer values in their own sorts (sort_of below), whatever the evaluation's sort. */
#include <config.h>
#include <stdlib.h>
#include <string.h>
#include "graph/graph_impl.h"

/* The sort value V is held in by an evaluation in DTYPE. */
static cn_dtype
sort_of (const struct cn__value *v, cn_dtype dtype)
{
  return cn_dtype_is_float (v->dtype) ? dtype : v->dtype;
}

cn_status
cn_graph_eval (const cn_graph *g, cn_dtype dtype, const cn_tensor *inputs, cn_tensor *outputs,
               cn_error *err)
{
  if (!cn_dtype_is_float (dtype))
    return cn_error_set (err, CN_EINVAL, "eval: evaluation sort must be f64 or f32, not %s", cn_dtype_name (dtype));
  cn_tensor *val = calloc ((size_t) (g->n_values ? g->n_values : 1), sizeof *val);
  const cn_tensor **args = NULL;
  cn_status st = CN_OK;
  if (val == NULL)
    return cn_error_set (err, CN_ENOMEM, "eval: out of memory");
  int max_in = 1;
  for (int k = 0; k < g->n_nodes; k++)
    if (g->nodes[k].n_in > max_in)
      max_in = g->nodes[k].n_in;
  args = malloc ((size_t) max_in * sizeof *args);
  if (args == NULL)
    {
      st = cn_error_set (err, CN_ENOMEM, "eval: out of memory");
      goto done;
    }
  for (int i = 0; i < g->n_inputs; i++)
    {
      const struct cn__value *v = &g->values[g->inputs[i]];
      if (!cn_shape_equal (&inputs[i].shape, &v->shape) && cn_tensor_numel (&inputs[i]) != v->numel)
        {
          char a[128], b[128];
          st = cn_error_set (err, CN_ESHAPE, "eval: input '%s' has shape %s, the graph expects %s", v->name,
                             cn_shape_format (&inputs[i].shape, a, sizeof a), cn_shape_format (&v->shape, b, sizeof b));
          goto done;
        }
      if ((st = cn_tensor_convert (&val[g->inputs[i]], sort_of (v, dtype), &inputs[i], err)) != CN_OK)
        goto done;
      val[g->inputs[i]].shape = v->shape;
    }
  for (int i = 0; i < g->n_values; i++)
    {
      const struct cn__value *v = &g->values[i];
      if (!v->is_constant)
        continue;
      if (dtype == CN_DTYPE_F64 && cn_dtype_is_float (v->dtype) && v->cdata != NULL)
        {
          /* the graph's binary64 copy, borrowed (read only; never cleared below) */
          val[i].dtype = CN_DTYPE_F64;
          val[i].shape = v->shape;
          val[i].data = v->cdata;
          continue;
        }
      if ((st = cn_tensor_convert (&val[i], sort_of (v, dtype), &v->constant, err)) != CN_OK)
        goto done;
    }
  for (int k = 0; k < g->n_nodes; k++)
    {
      const struct cn__node *nd = &g->nodes[k];
      for (int i = 0; i < nd->n_in; i++)
        args[i] = &val[nd->in[i]];
      if (nd->rule->forward == NULL)
        {
          st = cn_error_set (err, CN_EUNSUPPORTED, "%s: no forward rule (node '%s')", cn_op_name (nd->op), nd->name);
          goto done;
        }
      /* one forward call per output (view[k] computes output k) */
      for (int o = 0; o < nd->n_out; o++)
        {
          const struct cn__value *ov = &g->values[nd->out[o]];
          if ((st = cn_tensor_init (&val[nd->out[o]], sort_of (ov, dtype), &ov->shape, err)) != CN_OK)
            goto done;
          if ((st = nd->rule->forward (&nd->view[o], args, &val[nd->out[o]], err)) != CN_OK)
            goto done;
        }
    }
  for (int i = 0; i < g->n_outputs; i++)
    {
      /* Move the output tensor out (copy if the same value is output twice or is an input). */
      if ((st = cn_tensor_convert (&outputs[i], sort_of (&g->values[g->outputs[i]], dtype), &val[g->outputs[i]], err))
          != CN_OK)
        {
          for (int j = 0; j < i; j++)
            cn_tensor_clear (&outputs[j]);
          goto done;
        }
    }
done:
  for (int i = 0; i < g->n_values; i++)
    if (!(g->values[i].is_constant && val[i].data == g->values[i].cdata && val[i].data != NULL))
      cn_tensor_clear (&val[i]);
  free (val);
  free (args);
  return st;
}
