/* SPDX-License-Identifier: MIT */
/* src/analysis/reference.c: the MPFI reference (certnn/reference.h): the IR's MPFI pass
 * (cn__graph_mpfi, src/graph/interval.c) over a graph with one input, and its enclosure rounded
 * outward to binary64. */
#include <config.h>
#include <math.h>
#include <stdlib.h>
#include "certnn/reference.h"
#include "graph/graph_impl.h"

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
