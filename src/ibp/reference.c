/* SPDX-License-Identifier: MIT */
/* src/ibp/reference.c: IBP in MPFI through every operator's MPFI arm (the reference). */
#include <config.h>
#include <math.h>
#include <stdlib.h>
#include "graph/graph_impl.h"
#include "ibp/ibp_impl.h"

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

cn_status
cn_reference_ibp (const cn_graph *g, const cn_mpfi_vec *input, mpfr_prec_t prec, cn_mpfi_vec *out,
                  cn_error *err)
{
  out->n = 0;
  out->v = NULL;
  if (g->n_inputs > 1 || g->n_outputs < 1 || (g->n_inputs == 1 && input == NULL))
    return cn_error_set (err, CN_EINVAL, "reference: the graph must have at most one input, and an output");
  if (g->n_inputs == 1 && input->n != g->values[g->inputs[0]].numel)
    return cn_error_set (err, CN_ESHAPE, "reference: input has %lld entries, the graph input %lld",
                         (long long) input->n, (long long) g->values[g->inputs[0]].numel);
  cn_status st = cn_mpfi_vec_init (out, g->values[g->outputs[0]].numel, prec, err);
  if (st != CN_OK)
    return st;
  const cn_mpfi_vec *in[1] = { input };
  if ((st = cn__graph_mpfi (g, in, 0, prec, out, err)) != CN_OK)
    cn_mpfi_vec_clear (out);
  return st;
}

cn_status
cn_reference_output_box (const cn_graph *g, const cn_box *input, mpfr_prec_t prec, cn_box *out, cn_error *err)
{
  out->n = 0;
  out->lo = out->hi = NULL;
  if (prec < MPFR_PREC_MIN || prec > MPFR_PREC_MAX)
    return cn_error_set (err, CN_EINVAL, "reference: precision %ld is out of MPFR's range", (long) prec);
  cn_status st = cn_box_validate (input, "reference: input box", err);
  if (st != CN_OK)
    return st;
  cn_mpfi_vec in, y;
  y.n = 0;
  y.v = NULL;
  if ((st = cn_mpfi_vec_init (&in, input->n, prec, err)) != CN_OK)
    return st;
  /* Each input interval contains [lo_i, hi_i]: mpfi_interv_d rounds outward, and is exact when PREC >= 53. */
  for (int64_t i = 0; i < input->n; i++)
    mpfi_interv_d (in.v[i], input->lo[i], input->hi[i]);
  if ((st = cn_reference_ibp (g, &in, prec, &y, err)) != CN_OK)
    goto done;
  if ((st = cn_box_init (out, y.n, err)) != CN_OK)
    goto done;
  /* Each end rounded outward to binary64, so [lo_j, hi_j] contains the MPFI enclosure of output j,
     which contains the exact output over the box.  A NaN end (an operator left its domain) says
     nothing, and becomes the infinite end on its side. */
  for (int64_t j = 0; j < y.n; j++)
    {
      const __mpfi_struct *v = y.v[j];
      out->lo[j] = mpfr_nan_p (&v->left) ? -INFINITY : mpfr_get_d (&v->left, MPFR_RNDD);
      out->hi[j] = mpfr_nan_p (&v->right) ? INFINITY : mpfr_get_d (&v->right, MPFR_RNDU);
    }
done:
  cn_mpfi_vec_clear (&in);
  cn_mpfi_vec_clear (&y);
  return st;
}
