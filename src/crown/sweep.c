/* SPDX-License-Identifier: MIT */
/* src/crown/sweep.c: the CROWN backward sweep on a DAG (ALGORITHMS.md 2.1-2.3, 6.4).
 *
 * ROUNDOFF (NULL, or one entry per value, NULL where exact): the binary32 semantics' error bound
 * of each node output (charge_roundoff below).
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
 * inputs, concretised over their boxes by the selection form with the (G) error.
 *
 * beta-CROWN (a tape with splits, ALGORITHMS.md 5.1): the invariant then holds for the x of the
 * box that meet the splits (the boxes holding there).  When value w, split at entry j with sign
 * s_q (s_q w_j(x) >= 0 on the domain), joins the frontier complete, lam_wj becomes
 * fl(lam_wj - s_q beta_q) with beta_q >= 0.  Round-to-nearest is monotone, so the new
 * coefficient is <= lam_wj when s_q = +1 and >= it when s_q = -1: either way (new - old) w_j(x)
 * <= 0 on the domain, and the invariant holds with no charge. */
#include <config.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "crown/crown_impl.h"

/* The binary32 semantics (certnn/bounds.h): the deployed evaluation of node output o is
 * o32 = f(u32) + d with u32 the inputs' binary32 values (inside their boxes) and |d_j| <= E_j, the
 * rule's ROUNDOFF32 bound.  So lam_o . o32 >= lam_o . f(u32) - sum_j |lam_oj| E_j: after the arm
 * has relaxed lam_o . f over the input boxes, charge[s] grows by an upper bound of
 * sum_j |lam_o[s,j]| E_j (an RN sum of nonnegative products rounded up by (N); an entry with
 * lam 0 adds nothing, even where E is +inf), and the invariant holds for the binary32 values. */
static void
charge_roundoff (const cn_crown_step *st, const double *lam, const double *e, int64_t n)
{
  for (int64_t s = 0; s < st->rows; s++)
    {
      const double *ls = lam + s * n;
      double t = 0;
      int inf = 0;
      for (int64_t j = 0; j < n; j++)
        if (ls[j] != 0 && e[j] != 0)
          {
            if (!isfinite (e[j]))
              inf = 1;
            t += fabs (ls[j]) * e[j];
          }
      cn__crown_charge (st, s, inf ? INFINITY : cn__nonneg_up (t, n));
    }
}

/* Frees the records of value W. */
static void
drop_records (cn__crown_tape *tape, int w)
{
  free (tape->fk[w]);
  free (tape->fb[w]);
  free (tape->ga[w]);
  free (tape->gb[w]);
  free (tape->fk2[w]);
  free (tape->ga2[w]);
  tape->fk[w] = tape->fb[w] = tape->ga[w] = tape->gb[w] = tape->fk2[w] = tape->ga2[w] = NULL;
  tape->how[w] = CN__FWD_NONE;
}

cn_status
cn__crown_tape_init (const cn_graph *g, cn__crown_tape *tape, cn_error *err)
{
  size_t nv = (size_t) (g->n_values ? g->n_values : 1);
  tape->how = calloc (nv, 1);
  tape->fk = calloc (nv, sizeof (double *));
  tape->fb = calloc (nv, sizeof (double *));
  tape->ga = calloc (nv, sizeof (double *));
  tape->gb = calloc (nv, sizeof (double *));
  tape->fk2 = calloc (nv, sizeof (double *));
  tape->ga2 = calloc (nv, sizeof (double *));
  if (tape->how == NULL || tape->fk == NULL || tape->fb == NULL || tape->ga == NULL || tape->gb == NULL
      || tape->fk2 == NULL || tape->ga2 == NULL)
    {
      cn__crown_tape_free (g, tape);
      return cn_error_set (err, CN_ENOMEM, "alpha-crown: out of memory");
    }
  return CN_OK;
}

void
cn__crown_tape_reset (const cn_graph *g, cn__crown_tape *tape)
{
  if (tape->how == NULL || tape->fk == NULL || tape->fb == NULL || tape->ga == NULL || tape->gb == NULL
      || tape->fk2 == NULL || tape->ga2 == NULL)
    return;
  for (int w = 0; w < g->n_values; w++)
    drop_records (tape, w);
  tape->n_approx = 0;
}

void
cn__crown_tape_free (const cn_graph *g, cn__crown_tape *tape)
{
  cn__crown_tape_reset (g, tape);
  free (tape->how);
  free (tape->fk);
  free (tape->fb);
  free (tape->ga);
  free (tape->gb);
  free (tape->fk2);
  free (tape->ga2);
  tape->how = NULL;
  tape->fk = tape->fb = tape->ga = tape->gb = tape->fk2 = tape->ga2 = NULL;
}

/* Records for the gradient that the sweep concretised value W (ROWS x N coefficients LAM) over
 * BOX: the corner minimising each lam_j w_j (an infinite end records 0: the row's bound is -inf). */
static cn_status
record_corner (cn__crown_tape *tape, int w, const double *lam, int64_t rows, const cn_box *box, cn_error *err)
{
  int64_t n = box->n;
  if (tape == NULL || !tape->record)
    return CN_OK;
  tape->how[w] = CN__FWD_CORNER;
  tape->fb[w] = malloc ((size_t) (rows * n) * sizeof (double) + 1);
  if (tape->fb[w] == NULL)
    return cn_error_set (err, CN_ENOMEM, "alpha-crown: out of memory");
  for (int64_t s = 0; s < rows; s++)
    for (int64_t j = 0; j < n; j++)
      {
        double x = lam[s * n + j] >= 0 ? box->lo[j] : box->hi[j];
        tape->fb[w][s * n + j] = isfinite (x) ? x : 0;
      }
  return CN_OK;
}

/* beta-CROWN's term for value W's complete coefficients LAM (ROWS x N) by TAPE (see the file's
 * comment); multipliers that are not finite and positive are skipped (beta 0). */
static void
apply_betas (const cn__crown_tape *tape, int w, double *lam, int64_t rows, int64_t n)
{
  if (tape == NULL || tape->theta == NULL)
    return;
  for (int64_t q = 0; q < tape->n_splits; q++)
    {
      const cn_split *sp = &tape->splits[q];
      if (sp->value != w || sp->index < 0 || sp->index >= n)
        continue;
      for (int64_t s = 0; s < rows; s++)
        {
          double beta = tape->theta[(tape->shared ? 0 : s * tape->width) + tape->beta_offset + q];
          if (!(beta > 0) || !isfinite (beta))
            continue;
          double *l = &lam[s * n + sp->index];
          *l = sp->sign > 0 ? *l - beta : *l + beta;
        }
    }
}

cn_status
cn__crown_sweep (const cn_graph *g, const cn_box *boxes, const unsigned char *depends, const double *const *roundoff,
                 int v,
                 const double *c, int64_t rows, int threads, int slope, double *lower, double *input_coef,
                 int64_t *discharged, void **memo, cn_error *err)
{
  return cn__crown_sweep_tape (g, boxes, depends, roundoff, v, c, rows, threads, slope, lower, input_coef,
                               discharged, memo,
                               NULL, err);
}

cn_status
cn__crown_sweep_tape (const cn_graph *g, const cn_box *boxes, const unsigned char *depends,
                      const double *const *roundoff, int v,
                      const double *c, int64_t rows, int threads, int slope, double *lower, double *input_coef,
                      int64_t *discharged, void **memo, cn__crown_tape *tape, cn_error *err)
{
  int rec = tape != NULL && tape->record;
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
          apply_betas (tape, o, lam[o], rows, g->values[o].numel);
          for (int i = 0; tape != NULL && i < tape->n_keep; i++)
            if (tape->keep_at[i] == o)
              memcpy (tape->keep[i], lam[o], (size_t) rows * (size_t) g->values[o].numel * sizeof (double));
          cn__crown_step_bind (&step, &nd->view[oi]);
          step.lam_out = lam[o];
          step.memo = memo != NULL ? &memo[o] : NULL;
          if (!depends[o] || nd->rule->crown == NULL)
            {
              /* A value that does not depend on the input, or one whose operator has no CROWN arm
               * (certnn ops says "none"): lam_o . o >= min over o's sound box, a constant. */
              if (depends[o] && discharged != NULL)
                ++*discharged;
              if ((st = record_corner (tape, o, lam[o], rows, &boxes[o], err)) != CN_OK)
                goto done;
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
          step.theta = NULL;
          step.fwd_k = step.fwd_b = step.grad_a = step.grad_b = step.fwd_k2 = step.grad_a2 = NULL;
          if (tape != NULL && tape->theta != NULL && nd->rule->alpha != NULL && tape->offset[o] >= 0)
            {
              step.theta = tape->theta + tape->offset[o];
              step.theta_stride = tape->shared ? 0 : tape->width;
              step.theta_unchecked = tape->unchecked;
            }
          if (rec)
            {
              size_t size = (size_t) (rows * step.n_out) * sizeof (double) + sizeof (double);
              tape->fk[o] = malloc (size);
              tape->fb[o] = malloc (size);
              if (step.theta != NULL)
                {
                  tape->ga[o] = malloc (size);
                  tape->gb[o] = malloc (size);
                }
              /* a node of two inputs may record the second one's part too (a product's planes) */
              int two = nd->n_in == 2;
              if (two)
                {
                  tape->fk2[o] = calloc (1, size);
                  if (step.theta != NULL)
                    tape->ga2[o] = calloc (1, size);
                }
              if (tape->fk[o] == NULL || tape->fb[o] == NULL || (two && tape->fk2[o] == NULL)
                  || (step.theta != NULL && (tape->ga[o] == NULL || tape->gb[o] == NULL
                                             || (two && tape->ga2[o] == NULL))))
                {
                  st = cn_error_set (err, CN_ENOMEM, "alpha-crown: out of memory");
                  goto step_fail;
                }
              /* an arm that records its lines overwrites the sentinel */
              tape->fk[o][0] = NAN;
              step.fwd_k = tape->fk[o];
              step.fwd_b = tape->fb[o];
              step.grad_a = tape->ga[o];
              step.grad_b = tape->gb[o];
              step.fwd_k2 = tape->fk2[o];
              step.grad_a2 = tape->ga2[o];
            }
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
              if (rec)
                {
                  drop_records (tape, o);
                  if ((st = record_corner (tape, o, lam[o], rows, &boxes[o], err)) != CN_OK)
                    goto step_fail;
                }
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
          if (roundoff != NULL && roundoff[o] != NULL)
            charge_roundoff (&step, lam[o], roundoff[o], g->values[o].numel);
          if (rec)
            {
              if (rows * step.n_out > 0 && !isnan (tape->fk[o][0]))
                tape->how[o] = CN__FWD_LINES;
              else
                {
                  /* no lines recorded: the node's forward stands in (exact for an affine arm) */
                  tape->how[o] = CN__FWD_NODE;
                  if (cn__node_reads_boxes (g, nd, CN_RULE_NEEDS_BOUNDS))
                    tape->n_approx++;
                  free (tape->fk[o]);
                  free (tape->fb[o]);
                  free (tape->fk2[o]);
                  tape->fk[o] = tape->fb[o] = tape->fk2[o] = NULL;
                }
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
              int nonzero = 0;
              for (int64_t j = 0; j < rows * n; j++)
                {
                  nonzero |= lam_in[i][j] != 0;
                  lam[w][j] += lam_in[i][j];
                }
              /* adding zeros is exact (a value taken twice whose arm wrote one side only: x * x) */
              if (nonzero)
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
  for (int i = 0; i < g->n_inputs; i++)
    if (lam[g->inputs[i]] != NULL)
      apply_betas (tape, g->inputs[i], lam[g->inputs[i]], rows, g->values[g->inputs[i]].numel);
  if (input_coef != NULL && g->n_inputs > 0)
    {
      int w = g->inputs[0];
      size_t size = (size_t) rows * (size_t) g->values[w].numel * sizeof (double);
      if (lam[w] != NULL)
        memcpy (input_coef, lam[w], size);
      else
        memset (input_coef, 0, size);
    }
  if (tape != NULL && tape->input_offset != NULL)
    for (int64_t s = 0; s < rows; s++)
      {
        /* the invariant with the inputs as the frontier: (C v)_s(x) >= lam_x[s] . x + bias[s] -
         * charge[s] >= lam_x[s] . x + d for every x of the box, d rounded down */
        double d = cn__down (bias[s] - charge[s]);
        tape->input_offset[s] = isnan (d) ? -INFINITY : d;
      }
  for (int i = 0; i < g->n_inputs; i++)
    {
      int w = g->inputs[i];
      if (lam[w] == NULL)
        continue;
      step.lam_out = lam[w];
      if ((st = record_corner (tape, w, lam[w], rows, &boxes[w], err)) != CN_OK)
        goto done;
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
