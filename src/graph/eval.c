/* SPDX-License-Identifier: MIT */
/* src/graph/eval.c: forward evaluation of a graph through its operators' rules.
 *
 * Values of the model's scalar are held in the evaluation's sort (f64 or f32), or in the
 * evaluation in the declared sorts (certnn/graph.h) each in its own format; Boolean and integer
 * values in their own sorts (sort_of below), whatever the evaluation's sort. */
#include <config.h>
#include <stdlib.h>
#include <string.h>
#include "graph/graph_impl.h"

/* The sort value V is held in by an evaluation in DTYPE, or with DTYPE CN_DTYPE_COUNT by the
 * evaluation in the declared sorts: f64 in binary64, f32, f16 and bf16 in binary32. */
static cn_dtype
sort_of (const struct cn__value *v, cn_dtype dtype)
{
  if (!cn_dtype_is_float (v->dtype))
    return v->dtype;
  if (dtype != CN_DTYPE_COUNT)
    return dtype;
  return v->dtype == CN_DTYPE_F64 ? CN_DTYPE_F64 : CN_DTYPE_F32;
}

/* Rounds every entry of T (held in f64 or f32) to the reduced format R, in place. */
static void
round_to_reduced (cn_tensor *t, cn_dtype r)
{
  int64_t n = cn_tensor_numel (t);
  if (t->dtype == CN_DTYPE_F64)
    for (int64_t j = 0; j < n; j++)
      ((double *) t->data)[j] = cn_dtype_round (r, ((double *) t->data)[j]);
  else
    for (int64_t j = 0; j < n; j++)
      ((float *) t->data)[j] = (float) cn_dtype_round (r, ((float *) t->data)[j]);
}

/* The sort node ND computes its floating values in: DTYPE, or in the declared sorts binary64
 * when one of its floating inputs or outputs is held in binary64, else binary32. */
static cn_dtype
compute_sort (const cn_graph *g, const struct cn__node *nd, cn_dtype dtype)
{
  if (dtype != CN_DTYPE_COUNT)
    return dtype;
  for (int i = 0; i < nd->n_in; i++)
    if (sort_of (&g->values[nd->in[i]], dtype) == CN_DTYPE_F64)
      return CN_DTYPE_F64;
  for (int o = 0; o < nd->n_out; o++)
    if (sort_of (&g->values[nd->out[o]], dtype) == CN_DTYPE_F64)
      return CN_DTYPE_F64;
  return CN_DTYPE_F32;
}

/* The evaluation of cn_graph_eval (DTYPE f64 or f32) and cn_graph_eval_declared (DTYPE
 * CN_DTYPE_COUNT). */
static cn_status
eval_graph (const cn_graph *g, cn_dtype dtype, const cn_tensor *inputs, cn_tensor *outputs, cn_error *err)
{
  cn_tensor *val = calloc ((size_t) (g->n_values ? g->n_values : 1), sizeof *val);
  const cn_tensor **args = NULL;
  cn_tensor *widened = NULL;   /* a node's inputs widened to its compute sort (declared sorts) */
  cn_tensor wide_out;          /* a node's output computed wider than it is held */
  memset (&wide_out, 0, sizeof wide_out);
  cn_status st = CN_OK;
  if (val == NULL)
    return cn_error_set (err, CN_ENOMEM, "eval: out of memory");
  int max_in = 1;
  for (int k = 0; k < g->n_nodes; k++)
    if (g->nodes[k].n_in > max_in)
      max_in = g->nodes[k].n_in;
  args = malloc ((size_t) max_in * sizeof *args);
  widened = calloc ((size_t) max_in, sizeof *widened);
  if (args == NULL || widened == NULL)
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
      if (dtype == CN_DTYPE_COUNT && cn_dtype_is_reduced (v->dtype) && inputs[i].dtype != v->dtype)
        {
          /* rounded once into its format, then held (exactly) in binary32 */
          cn_tensor r;
          if ((st = cn_tensor_convert (&r, v->dtype, &inputs[i], err)) != CN_OK)
            goto done;
          st = cn_tensor_convert (&val[g->inputs[i]], sort_of (v, dtype), &r, err);
          cn_tensor_clear (&r);
        }
      else
        st = cn_tensor_convert (&val[g->inputs[i]], sort_of (v, dtype), &inputs[i], err);
      if (st != CN_OK)
        goto done;
      val[g->inputs[i]].shape = v->shape;
    }
  for (int i = 0; i < g->n_values; i++)
    {
      const struct cn__value *v = &g->values[i];
      if (!v->is_constant)
        continue;
      if (sort_of (v, dtype) == CN_DTYPE_F64 && cn_dtype_is_float (v->dtype) && v->cdata != NULL)
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
      cn_dtype cs = compute_sort (g, nd, dtype);
      for (int i = 0; i < nd->n_in; i++)
        {
          const struct cn__value *u = &g->values[nd->in[i]];
          args[i] = &val[nd->in[i]];
          if (cn_dtype_is_float (u->dtype) && val[nd->in[i]].dtype != cs)
            {
              /* declared sorts: a binary32 value read by a binary64 node, widened exactly */
              if ((st = cn_tensor_convert (&widened[i], cs, &val[nd->in[i]], err)) != CN_OK)
                goto done;
              args[i] = &widened[i];
            }
        }
      if (nd->rule->forward == NULL)
        {
          st = cn_error_set (err, CN_EUNSUPPORTED, "%s: no forward rule (node '%s')", cn_op_name (nd->op), nd->name);
          goto done;
        }
      /* one forward call per output (view[k] computes output k) */
      for (int o = 0; o < nd->n_out; o++)
        {
          const struct cn__value *ov = &g->values[nd->out[o]];
          cn_dtype hold = sort_of (ov, dtype);
          int wide = cn_dtype_is_float (ov->dtype) && hold != cs;
          cn_tensor *res = wide ? &wide_out : &val[nd->out[o]];
          if ((st = cn_tensor_init (res, wide ? cs : hold, &ov->shape, err)) != CN_OK)
            goto done;
          if ((st = nd->rule->forward (&nd->view[o], args, res, err)) != CN_OK)
            goto done;
          if (wide)
            {
              /* computed in binary64, held in binary32: one rounding */
              st = cn_tensor_convert (&val[nd->out[o]], hold, &wide_out, err);
              cn_tensor_clear (&wide_out);
              if (st != CN_OK)
                goto done;
            }
          if (dtype == CN_DTYPE_COUNT && cn_dtype_is_reduced (ov->dtype))
            round_to_reduced (&val[nd->out[o]], ov->dtype);   /* then once to its format */
        }
      for (int i = 0; i < nd->n_in; i++)
        cn_tensor_clear (&widened[i]);
    }
  for (int i = 0; i < g->n_outputs; i++)
    {
      /* Move the output tensor out (copy if the same value is output twice or is an input). */
      const struct cn__value *ov = &g->values[g->outputs[i]];
      cn_dtype to = dtype == CN_DTYPE_COUNT ? ov->dtype : sort_of (ov, dtype);
      if ((st = cn_tensor_convert (&outputs[i], to, &val[g->outputs[i]], err)) != CN_OK)
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
  for (int i = 0; widened != NULL && i < max_in; i++)
    cn_tensor_clear (&widened[i]);
  cn_tensor_clear (&wide_out);
  free (val);
  free (args);
  free (widened);
  return st;
}

cn_status
cn_graph_eval (const cn_graph *g, cn_dtype dtype, const cn_tensor *inputs, cn_tensor *outputs,
               cn_error *err)
{
  if (dtype != CN_DTYPE_F64 && dtype != CN_DTYPE_F32)
    return cn_error_set (err, CN_EINVAL, "eval: evaluation sort must be f64 or f32, not %s", cn_dtype_name (dtype));
  return eval_graph (g, dtype, inputs, outputs, err);
}

cn_status
cn_graph_eval_declared (const cn_graph *g, const cn_tensor *inputs, cn_tensor *outputs, cn_error *err)
{
  return eval_graph (g, CN_DTYPE_COUNT, inputs, outputs, err);
}
