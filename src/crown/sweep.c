/* SPDX-License-Identifier: MIT */
/* src/crown/sweep.c: the CROWN backward sweep on a DAG (ALGORITHMS.md 2.1-2.3, 6.4).
 *
 * Invariant, per row s, after every processed node (the frontier F being the values whose
 * consumers are all processed but whose producer is not):
 *     (C v)_s(x) >= sum_{w in F} lam_w[s] . w(x) + bias[s] - charge[s]     for all x in the box,
 * lam and bias read as exact reals, charge[s] >= 0 an upward accumulation of every rounding
 * error committed.  It holds at the start (F = {v}, lam_v = C, bias = charge = 0).  Processing
 * the producer of w replaces lam_w . w by the lower relaxation given by the operator's arm
 * (its contract keeps the invariant).  Coefficients reaching a value that does not depend on
 * the graph input, or the output of an operator without a CROWN arm (or whose arm declines the
 * instance with CN_EUNSUPPORTED, its writes to bias and charge undone), are concretised at once
 * over its box (the IBP box, tightened where CROWN tightened it: sound over the input box, so
 * lam_w . w >= sum_j min(lam_wj lo_j, lam_wj hi_j) keeps the invariant); at the end the frontier is the graph
 * inputs, concretised over their boxes by the selection form with the (G) error. */
#include <config.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "crown/crown_impl.h"

cn_status
cn__crown_sweep (const cn_graph *g, const cn_box *boxes, const unsigned char *depends, int v,
                 const double *c, int64_t rows, int threads, int slope, double *lower, double *input_coef,
                 int64_t *discharged, void **memo, cn_error *err)
{
  cn_status st = CN_OK;
  double **lam = calloc ((size_t) g->n_values, sizeof *lam);
  double *bias = calloc ((size_t) (rows ? rows : 1), sizeof *bias);
  double *charge = calloc ((size_t) (rows ? rows : 1), sizeof *charge);
  /* bias and charge as they were before an arm ran, restored when it declines */
  double *bias0 = calloc ((size_t) (rows ? rows : 1), sizeof *bias0);
  double *charge0 = calloc ((size_t) (rows ? rows : 1), sizeof *charge0);
  double **lam_in = NULL;
  const cn_box **in_box = NULL;
  if (lam == NULL || bias == NULL || charge == NULL || bias0 == NULL || charge0 == NULL)
    {
      st = cn_error_set (err, CN_ENOMEM, "crown: out of memory");
      goto done;
    }
  int max_in = 1;
  for (int k = 0; k < g->n_nodes; k++)
    max_in = g->nodes[k].n_in > max_in ? g->nodes[k].n_in : max_in;
  lam_in = calloc ((size_t) max_in, sizeof *lam_in);
  in_box = calloc ((size_t) max_in, sizeof *in_box);
  if (lam_in == NULL || in_box == NULL)
    {
      st = cn_error_set (err, CN_ENOMEM, "crown: out of memory");
      goto done;
    }
  size_t nv = (size_t) g->values[v].numel;
  lam[v] = malloc ((size_t) rows * nv * sizeof (double) + 1);
  if (lam[v] == NULL)
    {
      st = cn_error_set (err, CN_ENOMEM, "crown: cannot allocate %lld x %zu coefficients", (long long) rows, nv);
      goto done;
    }
  memcpy (lam[v], c, (size_t) rows * nv * sizeof (double));

  cn_crown_step step = { .rows = rows, .bias = bias, .charge = charge, .threads = threads, .slope = slope };
  for (int k = g->values[v].producer; k >= 0; k--)
    {
      const struct cn__node *nd = &g->nodes[k];
      /* One step per output that holds coefficients (the invariant is kept output by output:
       * each step replaces one lam_w . w by its relaxation over the node's inputs). */
      for (int oi = 0; oi < nd->n_out; oi++)
        {
          int o = nd->out[oi];
          if (lam[o] == NULL)
            continue;
          cn__crown_step_bind (&step, &nd->view[oi]);
          step.lam_out = lam[o];
          step.memo = memo != NULL ? &memo[o] : NULL;
          if (!depends[o] || nd->rule->crown == NULL)
            {
              /* A value that does not depend on the input, or one whose operator has no CROWN arm
               * (certnn ops says "none"): lam_o . o >= min over o's sound box, a constant. */
              if (depends[o] && discharged != NULL)
                ++*discharged;
              cn__crown_add_box_min (&step, &boxes[o]);
              free (lam[o]);
              lam[o] = NULL;
              continue;
            }
          for (int i = 0; i < nd->n_in; i++)
            {
              const struct cn__value *u = &g->values[nd->in[i]];
              in_box[i] = &boxes[nd->in[i]];
              lam_in[i] = NULL;
              if (u->is_constant)
                continue;
              lam_in[i] = calloc ((size_t) rows * (size_t) u->numel + 1, sizeof (double));
              if (lam_in[i] == NULL)
                {
                  st = cn_error_set (err, CN_ENOMEM, "crown: cannot allocate %lld x %lld coefficients",
                                     (long long) rows, (long long) u->numel);
                  goto step_fail;
                }
            }
          step.lam_in = lam_in;
          step.in_box = in_box;
          memcpy (bias0, bias, (size_t) rows * sizeof *bias);
          memcpy (charge0, charge, (size_t) rows * sizeof *charge);
          cn_error declined;
          cn_error_clear (&declined);
          if ((st = nd->rule->crown (&step, &declined)) == CN_EUNSUPPORTED)
            {
              /* The arm has no relaxation for this instance (a wrapping word sum, an index box that
               * is not a point, ...): undo what it wrote and discharge o over its box instead. */
              memcpy (bias, bias0, (size_t) rows * sizeof *bias);
              memcpy (charge, charge0, (size_t) rows * sizeof *charge);
              for (int i = 0; i < nd->n_in; i++)
                {
                  free (lam_in[i]);
                  lam_in[i] = NULL;
                }
              if (discharged != NULL)
                ++*discharged;
              cn__crown_add_box_min (&step, &boxes[o]);
              free (lam[o]);
              lam[o] = NULL;
              st = CN_OK;
              continue;
            }
          if (st != CN_OK)
            {
              cn_error_set (err, st, "%s", declined.msg);
              goto step_fail;
            }
          free (lam[o]);
          lam[o] = NULL;
          /* Sum the contributions into each input's coefficients (2.2: a value with several
           * consumers gets the sum).  The first contribution is moved; later ones are added in
           * RN, each sum one rounding per entry, charged as such. */
          for (int i = 0; i < nd->n_in; i++)
            {
              int w = nd->in[i];
              if (lam_in[i] == NULL)
                continue;
              if (lam[w] == NULL)
                {
                  lam[w] = lam_in[i];
                  lam_in[i] = NULL;
                  continue;
                }
              int64_t n = g->values[w].numel;
              for (int64_t j = 0; j < rows * n; j++)
                lam[w][j] += lam_in[i][j];
              cn__crown_charge_entrywise (&step, lam[w], n, &boxes[w]);
              free (lam_in[i]);
              lam_in[i] = NULL;
            }
          continue;
        step_fail:
          for (int i = 0; i < nd->n_in; i++)
            {
              free (lam_in[i]);
              lam_in[i] = NULL;
            }
          goto done;
        }
    }
  /* Only graph inputs (and constants, which never receive coefficients) are left. */
  if (input_coef != NULL && g->n_inputs > 0)
    {
      int w = g->inputs[0];
      size_t size = (size_t) rows * (size_t) g->values[w].numel * sizeof (double);
      if (lam[w] != NULL)
        memcpy (input_coef, lam[w], size);
      else
        memset (input_coef, 0, size);
    }
  for (int i = 0; i < g->n_inputs; i++)
    {
      int w = g->inputs[i];
      if (lam[w] == NULL)
        continue;
      step.lam_out = lam[w];
      cn__crown_add_box_min (&step, &boxes[w]);
    }
  for (int64_t s = 0; s < rows; s++)
    {
      double r = cn__down (bias[s] - charge[s]);
      /* now r <= bias[s] - charge[s] <= (C v)_s(x) for every x in the input box */
      lower[s] = isnan (r) ? -INFINITY : r;
    }
done:
  if (lam != NULL)
    for (int w = 0; w < g->n_values; w++)
      free (lam[w]);
  free (lam);
  free (bias);
  free (charge);
  free (bias0);
  free (charge0);
  free (lam_in);
  free (in_box);
  return st;
}
