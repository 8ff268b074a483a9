/* SPDX-License-Identifier: MIT */
/* src/crown/alpha.c: alpha-CROWN (ALGORITHMS.md 4): CROWN sweeps whose free line parameters are
 * optimised row by row, with the gradient derived by hand.
 *
 * Parameters.  An operator whose CROWN arm has a family of valid lines declares it by the ALPHA
 * hook of its rule (src/ops/ops_impl.h): one parameter per output entry, sound anywhere in a set
 * the input box gives (relu's lower slope alpha in [0, 1]).  A start value v with rows C has
 * WIDTH parameters per row: for every output w of such a node that depends on the graph input
 * and that v depends on, numel(w) consecutive ones from OFFSET[w], the outputs in topological
 * order (cn__alpha_layout).  Every row has its own (or, with share_alpha, all rows share one).
 *
 * Soundness.  The optimiser needs no rigor: every sweep it runs is the sound sweep of
 * src/crown/sweep.c with parameters in their valid sets (the hook projects after every step, the
 * arm refuses anything else), so each sweep's lower[s] is a sound bound, and so is the best
 * over the iterations, which is what is returned (keep-best, row by row).
 *
 * Gradient (4.4).  With the boxes fixed, row s's bound is L_s = b_s + sum_j min(lam_xj lo_j,
 * lam_xj hi_j) over the sweep's final coefficients; it is piecewise linear in the coefficients of
 * every node, and by Danskin dL_s/dlam_w = w^, the value of w in a forward pass from x*, the
 * corner the concretisation picked, through the lines the backward sweep selected (the sweep's
 * records, cn__crown_tape).  A parameter theta of the step through w = f(u) enters L_s only
 * through that step's lam_u . u + bias, whose derivative the arm records as grad_a u + grad_b,
 * so dL_s/dtheta_sj = grad_a_sj u^_sj + grad_b_sj (relu: lam_sj z^_sj where lam_sj > 0; a node of
 * two inputs u, w whose lines have slopes on both adds grad_a2_sj w^_sj: a product's planes).  The
 * charges depend on theta too, by about 1e-13 relative; the gradient ignores them.
 *
 * beta-CROWN (ALGORITHMS.md 5.1).  Over a branch-and-bound domain, the sign splits s_q z_q >= 0
 * add one multiplier beta_q >= 0 each after a row's alpha parameters: the sweep subtracts s_q
 * beta_q from the split entry's coefficient (sound on the domain, src/crown/sweep.c), so
 * dL_s/dbeta_q = -s_q z^_sq, the split entry's forward value; beta is projected onto beta >= 0 and
 * moves at its own rate (lr_beta), jointly with alpha, as alpha-beta-CROWN optimises both.
 *
 * Loop (4.3): Adam (beta1 0.9, beta2 0.999, eps 1e-8) ascending sum_s L_s, the learning rate
 * multiplied by lr_decay after every step, projection after every step, the best bound and its
 * parameters kept per row, early stop once every row reaches its target (a specification's
 * threshold) or after PATIENCE iterations without any row improving. */
#include <config.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "crown/crown_impl.h"

int64_t
cn__alpha_layout (const cn_graph *g, const unsigned char *depends, int v, int64_t *offset)
{
  unsigned char *needed = calloc ((size_t) (g->n_values ? g->n_values : 1), 1);
  int64_t width = 0;
  for (int w = 0; w < g->n_values; w++)
    offset[w] = -1;
  if (needed == NULL)
    return -1;
  cn__graph_mark_needed (g, v, needed);
  for (int k = 0; k < g->n_nodes; k++)
    {
      const struct cn__node *nd = &g->nodes[k];
      if (nd->rule->alpha == NULL || nd->rule->crown == NULL)
        continue;
      for (int o = 0; o < nd->n_out; o++)
        {
          int w = nd->out[o];
          if (nd->rule->alpha_takes != NULL && !nd->rule->alpha_takes (&nd->view[o]))
            continue;
          if (needed[w] && depends[w])
            {
              offset[w] = width;
              width += g->values[w].numel;
            }
        }
    }
  free (needed);
  return width;
}

/* Writes (INIT) or projects one row of parameters THETA (WIDTH entries) by the hooks. */
static void
alpha_rows (const cn_graph *g, const cn_box *boxes, const int64_t *offset, int slope, int init, double *theta)
{
  for (int k = 0; k < g->n_nodes; k++)
    {
      const struct cn__node *nd = &g->nodes[k];
      if (nd->rule->alpha == NULL)
        continue;
      for (int o = 0; o < nd->n_out; o++)
        if (offset[nd->out[o]] >= 0)
          nd->rule->alpha (&nd->view[o], &boxes[nd->in[0]], slope, init, theta + offset[nd->out[o]]);
    }
}

/* The forward value U^ (ROWS x numel) of input value U of a node in the pass, or NULL. */
static const double *
fwd_value (const cn_graph *g, double **xhat, int u)
{
  if (g->values[u].is_constant)
    return NULL;
  return xhat[u];
}

/* v^ through the rule's forward_rows (all rows at once), when it has one and takes the node. */
static cn_status
fwd_rows (const cn_graph *g, const struct cn__node *nd, int oi, double **xhat, int64_t rows, int threads,
          cn_error *err)
{
  if (nd->rule->forward_rows == NULL)
    return CN_EUNSUPPORTED;
  const double **in = calloc ((size_t) nd->n_in + 1, sizeof *in);
  if (in == NULL)
    return cn_error_set (err, CN_ENOMEM, "alpha-crown: out of memory");
  cn_status st = CN_OK;
  for (int i = 0; i < nd->n_in && st == CN_OK; i++)
    {
      const struct cn__value *u = &g->values[nd->in[i]];
      in[i] = u->is_constant ? u->cdata : xhat[nd->in[i]];
      if (in[i] == NULL)
        st = CN_EUNSUPPORTED;
    }
  if (st == CN_OK)
    {
      cn_error e2;
      cn_error_clear (&e2);
      st = nd->rule->forward_rows (&nd->view[oi], rows, in, xhat[nd->out[oi]], threads, &e2);
      if (st != CN_OK && st != CN_EUNSUPPORTED)
        cn_error_set (err, st, "%s", e2.msg);
    }
  free (in);
  return st;
}

/* v^ = the node's forward at its inputs' v^, row by row, in binary64 (CN__FWD_NODE). */
static cn_status
fwd_node (const cn_graph *g, const struct cn__node *nd, int oi, double **xhat, int64_t rows, int threads,
          cn_error *err)
{
  cn_status rs = fwd_rows (g, nd, oi, xhat, rows, threads, err);
  if (rs != CN_EUNSUPPORTED)
    return rs;
  const struct cn__value *ov = &g->values[nd->out[oi]];
  if (nd->rule->forward == NULL || !cn_dtype_is_float (ov->dtype))
    return cn_error_set (err, CN_EUNSUPPORTED, "alpha-crown: no forward pass through node '%s'", nd->name);
  cn_tensor *in = calloc ((size_t) nd->n_in + 1, sizeof *in);
  const cn_tensor **args = calloc ((size_t) nd->n_in + 1, sizeof *args);
  cn_status st = CN_OK;
  if (in == NULL || args == NULL)
    {
      st = cn_error_set (err, CN_ENOMEM, "alpha-crown: out of memory");
      goto done;
    }
  for (int i = 0; i < nd->n_in; i++)
    {
      const struct cn__value *u = &g->values[nd->in[i]];
      if (u->is_constant)
        {
          if (cn_dtype_is_float (u->dtype))
            {
              if (u->cdata == NULL)
                {
                  st = cn_error_set (err, CN_EUNSUPPORTED, "alpha-crown: constant '%s' has no binary64 copy", u->name);
                  goto done;
                }
              in[i].dtype = CN_DTYPE_F64;
              in[i].shape = u->shape;
              in[i].data = u->cdata;
            }
          else
            in[i] = u->constant;
        }
      else if (xhat[nd->in[i]] == NULL || !cn_dtype_is_float (u->dtype))
        {
          st = cn_error_set (err, CN_EUNSUPPORTED, "alpha-crown: no forward value of '%s'", u->name);
          goto done;
        }
      else
        {
          in[i].dtype = CN_DTYPE_F64;
          in[i].shape = u->shape;
        }
      args[i] = &in[i];
    }
  cn_tensor out = { .dtype = CN_DTYPE_F64, .shape = ov->shape };
  for (int64_t s = 0; s < rows; s++)
    {
      for (int i = 0; i < nd->n_in; i++)
        if (!g->values[nd->in[i]].is_constant)
          in[i].data = xhat[nd->in[i]] + s * g->values[nd->in[i]].numel;
      out.data = xhat[nd->out[oi]] + s * ov->numel;
      if ((st = nd->rule->forward (&nd->view[oi], args, &out, err)) != CN_OK)
        goto done;
    }
done:
  free (in);
  free (args);
  return st;
}

cn_status
cn__alpha_gradient (const cn_graph *g, const cn__crown_tape *tape, int v, int64_t rows, double *grad, cn_error *err)
{
  cn_status st = CN_OK;
  double **xhat = calloc ((size_t) (g->n_values ? g->n_values : 1), sizeof *xhat);
  if (xhat == NULL)
    return cn_error_set (err, CN_ENOMEM, "alpha-crown: out of memory");
  for (int i = 0; i < g->n_inputs; i++)
    {
      int w = g->inputs[i];
      if (tape->how[w] == CN__FWD_CORNER)
        xhat[w] = tape->fb[w];      /* x*, borrowed */
    }
  for (int k = 0; k <= g->values[v].producer && st == CN_OK; k++)
    {
      const struct cn__node *nd = &g->nodes[k];
      for (int oi = 0; oi < nd->n_out && st == CN_OK; oi++)
        {
          int o = nd->out[oi];
          int64_t n = g->values[o].numel;
          switch (tape->how[o])
            {
            case CN__FWD_NONE:
              break;
            case CN__FWD_CORNER:
              xhat[o] = tape->fb[o];
              break;
            case CN__FWD_LINES:
              {
                const double *u = fwd_value (g, xhat, nd->in[0]);
                const double *uc = g->values[nd->in[0]].cdata;
                if ((xhat[o] = malloc ((size_t) (rows * n) * sizeof (double) + 1)) == NULL)
                  {
                    st = cn_error_set (err, CN_ENOMEM, "alpha-crown: out of memory");
                    break;
                  }
                if (u == NULL && uc == NULL)
                  {
                    st = cn_error_set (err, CN_EUNSUPPORTED, "alpha-crown: no forward value at node '%s'", nd->name);
                    break;
                  }
                for (int64_t s = 0; s < rows; s++)
                  for (int64_t j = 0; j < n; j++)
                    {
                      double x = u != NULL ? u[s * n + j] : uc[j];
                      xhat[o][s * n + j] = tape->fk[o][s * n + j] * x + tape->fb[o][s * n + j];
                    }
                if (tape->fk2[o] != NULL && nd->n_in == 2)
                  {
                    /* a line with a slope on the second input too (its slope 0 where it has none) */
                    const double *w2 = fwd_value (g, xhat, nd->in[1]);
                    const double *wc = g->values[nd->in[1]].cdata;
                    if (w2 == NULL && wc == NULL)
                      {
                        st = cn_error_set (err, CN_EUNSUPPORTED, "alpha-crown: no forward value at node '%s'", nd->name);
                        break;
                      }
                    for (int64_t s = 0; s < rows; s++)
                      for (int64_t j = 0; j < n; j++)
                        xhat[o][s * n + j] += tape->fk2[o][s * n + j] * (w2 != NULL ? w2[s * n + j] : wc[j]);
                  }
                break;
              }
            case CN__FWD_NODE:
              if ((xhat[o] = malloc ((size_t) (rows * n) * sizeof (double) + 1)) == NULL)
                st = cn_error_set (err, CN_ENOMEM, "alpha-crown: out of memory");
              else
                st = fwd_node (g, nd, oi, xhat, rows, tape->threads, err);
              break;
            }
        }
    }
  /* now xhat[w] = w^ for every value the sweep reached: dL_s/dlam_w[s] = w^[s] */
  if (st == CN_OK)
    {
      int64_t width = tape->width;
      memset (grad, 0, (size_t) ((tape->shared ? 1 : rows) * width) * sizeof *grad);
      for (int k = 0; k <= g->values[v].producer; k++)
        {
          const struct cn__node *nd = &g->nodes[k];
          for (int oi = 0; oi < nd->n_out; oi++)
            {
              int o = nd->out[oi];
              if (tape->offset[o] < 0 || tape->ga[o] == NULL)
                continue;
              int64_t n = g->values[o].numel;
              const double *u = fwd_value (g, xhat, nd->in[0]);
              if (u == NULL)
                continue;
              for (int64_t s = 0; s < rows; s++)
                {
                  double *gr = grad + (tape->shared ? 0 : s * width) + tape->offset[o];
                  for (int64_t j = 0; j < n; j++)
                    gr[j] += tape->ga[o][s * n + j] * u[s * n + j] + tape->gb[o][s * n + j];
                }
              const double *w2 = tape->ga2[o] != NULL && nd->n_in == 2 ? fwd_value (g, xhat, nd->in[1]) : NULL;
              if (w2 != NULL)
                for (int64_t s = 0; s < rows; s++)
                  {
                    double *gr = grad + (tape->shared ? 0 : s * width) + tape->offset[o];
                    for (int64_t j = 0; j < n; j++)
                      gr[j] += tape->ga2[o][s * n + j] * w2[s * n + j];
                  }
            }
        }
      /* beta_q enters only as lam_zj - s_q beta_q at the split value z: dL_s/dbeta_q = -s_q z^_sj */
      for (int64_t q = 0; q < tape->n_splits; q++)
        {
          const cn_split *sp = &tape->splits[q];
          const double *z = xhat[sp->value];
          if (z == NULL)
            continue;
          int64_t n = g->values[sp->value].numel;
          for (int64_t s = 0; s < rows; s++)
            grad[(tape->shared ? 0 : s * width) + tape->beta_offset + q] -= sp->sign * z[s * n + sp->index];
        }
    }
  for (int w = 0; w < g->n_values; w++)
    if (tape->how[w] != CN__FWD_CORNER)
      free (xhat[w]);
  free (xhat);
  return st;
}

/* Projects the NB multipliers BETA onto beta >= 0 (NaN: 0, the start). */
static void
beta_rows (double *beta, int64_t nb)
{
  for (int64_t q = 0; q < nb; q++)
    if (!(beta[q] > 0))
      beta[q] = 0;
    else if (!isfinite (beta[q]))
      beta[q] = 0x1p100;
}

/* Whether row S is done: its best bound meets its target, or it has not improved for PATIENCE
 * sweeps. */
static int
row_done (const cn_bounds_opts *opts, const double *target, int pairs, const double *best, const int *stale,
          int64_t s)
{
  if (pairs && target != NULL && best[s ^ 1] > target[s ^ 1])
    return 1;                       /* its partner settled the question both rows are about */
  return (target != NULL && best[s] > target[s]) || (opts->patience > 0 && stale[s] >= opts->patience);
}

static cn_status
alpha_lower_block (const cn_graph *g, const cn_box *boxes, const unsigned char *depends,
                   const double *const *roundoff, int v, const double *c,
                   int64_t rows, const cn_bounds_opts *opts, const cn__betas *betas, const double *target, int pairs,
                   double *theta_io,
                   double *lower, cn_alpha_trace *trace, int64_t *discharged, void **memo, cn_error *err)
{
  cn_status st = CN_OK;
  int nv = g->n_values;
  int shared = opts->share_alpha != 0;
  int iterations = opts->iterations > 0 ? opts->iterations : 1;
  int64_t *offset = malloc ((size_t) (nv ? nv : 1) * sizeof *offset);
  if (offset == NULL)
    return cn_error_set (err, CN_ENOMEM, "alpha-crown: out of memory");
  int64_t width = cn__alpha_layout (g, depends, v, offset);
  if (width < 0)
    {
      free (offset);
      return cn_error_set (err, CN_ENOMEM, "alpha-crown: out of memory");
    }
  /* beta-CROWN: one multiplier per split after the alpha parameters */
  int64_t beta_at = width, nb = betas != NULL ? betas->n : 0;
  width += nb;
  if (trace != NULL)
    trace->iterations = 0;
  if (width == 0 || rows == 0)
    {
      /* nothing to optimise: one CROWN sweep */
      free (offset);
      st = cn__crown_sweep (g, boxes, depends, roundoff, v, c, rows, opts->threads, opts->slope, lower, NULL,
                            discharged, memo,
                            err);
      if (st == CN_OK && trace != NULL)
        {
          trace->iterations = 1;
          if (trace->history != NULL)
            memcpy (trace->history, lower, (size_t) rows * sizeof *lower);
        }
      return st;
    }
  int64_t sets = shared ? 1 : rows, size = sets * width, n = g->values[v].numel;
  double *theta = malloc ((size_t) size * sizeof *theta);
  double *best_theta = malloc ((size_t) size * sizeof *best_theta);
  double *grad = malloc ((size_t) size * sizeof *grad);
  double *m1 = calloc ((size_t) size, sizeof *m1);
  double *m2 = calloc ((size_t) size, sizeof *m2);
  double *best = malloc ((size_t) rows * sizeof *best);
  /* the active rows (those still optimised), compacted: their C, parameters, bounds, and (in
   * GRAD) their gradient */
  int64_t *act = malloc ((size_t) rows * sizeof *act);
  int *stale = calloc ((size_t) rows, sizeof *stale);
  double *c_act = malloc ((size_t) (rows * n) * sizeof *c_act + 1);
  double *th_act = shared ? theta : malloc ((size_t) size * sizeof *th_act);
  double *low = malloc ((size_t) rows * sizeof *low);
  cn__crown_tape tape = { .offset = offset, .width = width, .shared = shared, .threads = opts->threads,
                          .splits = nb > 0 ? betas->splits : NULL, .n_splits = nb, .beta_offset = beta_at };
  if (theta == NULL || best_theta == NULL || grad == NULL || m1 == NULL || m2 == NULL || low == NULL || best == NULL
      || act == NULL || stale == NULL || c_act == NULL || th_act == NULL)
    {
      st = cn_error_set (err, CN_ENOMEM, "alpha-crown: cannot allocate %lld x %lld parameters", (long long) sets,
                         (long long) width);
      goto done;
    }
  if ((st = cn__crown_tape_init (g, &tape, err)) != CN_OK)
    goto done;
  /* the arms' own choice, then the caller's start where it gives one (NaN: none), projected */
  for (int64_t s = 0; s < sets; s++)
    {
      double *row = theta + s * width;
      alpha_rows (g, boxes, offset, opts->slope, 1, row);
      for (int64_t q = 0; q < nb; q++)
        row[beta_at + q] = 0;
      if (theta_io != NULL)
        {
          for (int64_t j = 0; j < width; j++)
            if (!isnan (theta_io[s * width + j]))
              row[j] = theta_io[s * width + j];
          alpha_rows (g, boxes, offset, opts->slope, 0, row);
          beta_rows (row + beta_at, nb);
        }
    }
  memcpy (best_theta, theta, (size_t) size * sizeof *theta);
  int64_t na = rows;
  for (int64_t s = 0; s < rows; s++)
    {
      best[s] = -INFINITY;
      act[s] = s;
    }
  memcpy (c_act, c, (size_t) (rows * n) * sizeof *c);
  double lr = opts->lr, lr_b = opts->lr_beta > 0 ? opts->lr_beta : CN__BETA_LR, b1 = 0.9, b2 = 0.999, b1t = 1,
         b2t = 1;
  for (int it = 0; it < iterations && na > 0; it++)
    {
      int last = it == iterations - 1;
      if (!shared)
        for (int64_t i = 0; i < na; i++)
          memcpy (th_act + i * width, theta + act[i] * width, (size_t) width * sizeof *theta);
      tape.theta = th_act;
      tape.record = !last;
      cn__crown_tape_reset (g, &tape);
      if ((st = cn__crown_sweep_tape (g, boxes, depends, roundoff, v, c_act, na, opts->threads, opts->slope, low, NULL,
                                      it == 0 ? discharged : NULL, memo, &tape, err)) != CN_OK)
        goto done;
      if (trace != NULL)
        {
          trace->iterations = it + 1;
          trace->approx = tape.n_approx;
          if (trace->history != NULL)
            {
              double *h = trace->history + (int64_t) it * rows;
              for (int64_t s = 0; s < rows; s++)
                h[s] = NAN;
              for (int64_t i = 0; i < na; i++)
                h[act[i]] = low[i];
            }
        }
      /* keep-best, row by row: each low[i] is a sound bound (a sound sweep, parameters valid);
       * a row stays active until it meets its target or has not improved for PATIENCE sweeps */
      double sum_new = 0, sum_best = 0;
      for (int64_t i = 0; i < na; i++)
        {
          int64_t s = act[i];
          sum_new += isfinite (low[i]) ? low[i] : -1e300;
          sum_best += isfinite (best[s]) ? best[s] : -1e300;
          int gain = low[i] > best[s] + 1e-12 * fabs (best[s]) || (isinf (best[s]) && low[i] > best[s]);
          stale[s] = gain ? 0 : stale[s] + 1;
          if (low[i] > best[s])
            {
              best[s] = low[i];
              if (!shared)
                memcpy (best_theta + s * width, th_act + i * width, (size_t) width * sizeof *theta);
            }
        }
      if (shared && (it == 0 || sum_new > sum_best))
        memcpy (best_theta, theta, (size_t) width * sizeof *theta);
      int64_t going = 0;
      for (int64_t i = 0; i < na; i++)
        going += !row_done (opts, target, pairs, best, stale, act[i]);
      if (last || going == 0)
        break;
      if ((st = cn__alpha_gradient (g, &tape, v, na, grad, err)) != CN_OK)
        {
          if (st != CN_EUNSUPPORTED)
            goto done;
          /* no gradient through some node: keep what the sweeps so far proved */
          cn_error_clear (err);
          st = CN_OK;
          break;
        }
      /* Adam ascent on sum_s L_s (each row's parameters see only their row's gradient) */
      b1t *= b1;
      b2t *= b2;
      for (int64_t i = 0; i < (shared ? 1 : na); i++)
        {
          int64_t s = shared ? 0 : act[i];
          double *th = theta + s * width, *p1 = m1 + s * width, *p2 = m2 + s * width;
          const double *gr = grad + i * width;
          for (int64_t j = 0; j < width; j++)
            {
              double gj = isfinite (gr[j]) ? gr[j] : 0;
              p1[j] = b1 * p1[j] + (1 - b1) * gj;
              p2[j] = b2 * p2[j] + (1 - b2) * gj * gj;
              th[j] += (j < beta_at ? lr : lr_b) * (p1[j] / (1 - b1t)) / (sqrt (p2[j] / (1 - b2t)) + 1e-8);
            }
          alpha_rows (g, boxes, offset, opts->slope, 0, th);
          beta_rows (th + beta_at, nb);
        }
      lr *= opts->lr_decay;
      lr_b *= opts->lr_decay;
      /* drop the rows that are done (compacting C) */
      int64_t k = 0;
      for (int64_t i = 0; i < na; i++)
        {
          int64_t s = act[i];
          if (row_done (opts, target, pairs, best, stale, s))
            continue;
          if (k != i)
            memcpy (c_act + k * n, c_act + i * n, (size_t) n * sizeof *c);
          act[k++] = s;
        }
      na = k;
    }
  memcpy (lower, best, (size_t) rows * sizeof *lower);
  if (theta_io != NULL)
    memcpy (theta_io, best_theta, (size_t) size * sizeof *theta);
done:
  cn__crown_tape_free (g, &tape);
  free (offset);
  free (theta);
  free (best_theta);
  free (grad);
  free (m1);
  free (m2);
  free (low);
  free (best);
  free (act);
  free (stale);
  free (c_act);
  if (!shared)
    free (th_act);
  return st;
}

/* Bytes one row of an optimisation from V costs, about: its parameters six times (theta, the
 * best, the gradient, Adam's two moments, the active copy) and, for every value the sweep
 * passes, the tape's records (up to four rows of numel) and the gradient's forward value. */
static double
alpha_row_bytes (const cn_graph *g, const unsigned char *depends, int v, int64_t width, int shared)
{
  unsigned char *needed = calloc ((size_t) (g->n_values ? g->n_values : 1), 1);
  double per = shared ? 0 : 6.0 * (double) width;
  if (needed == NULL)
    return per * 8;
  cn__graph_mark_needed (g, v, needed);
  for (int w = 0; w < g->n_values; w++)
    if (needed[w] && depends[w])
      per += 5.0 * (double) g->values[w].numel;
  free (needed);
  return per * 8;
}

/* Rows whose parameters are their own (not shared) are independent: when all of them together
 * would need more than opts.memory_mb of working memory they are optimised in blocks that fit
 * (an even number of rows each, so that PAIRS stay together), one after the other. */
cn_status
cn__alpha_lower (const cn_graph *g, const cn_box *boxes, const unsigned char *depends, const double *const *roundoff,
                 int v, const double *c,
                 int64_t rows, const cn_bounds_opts *opts, const cn__betas *betas, const double *target, int pairs,
                 double *theta_io, double *lower,
                 cn_alpha_trace *trace, int64_t *discharged, void **memo, cn_error *err)
{
  int64_t *offset = malloc ((size_t) (g->n_values ? g->n_values : 1) * sizeof *offset);
  if (offset == NULL)
    return cn_error_set (err, CN_ENOMEM, "alpha-crown: out of memory");
  int64_t width = cn__alpha_layout (g, depends, v, offset);
  free (offset);
  if (width >= 0 && betas != NULL)
    width += betas->n;
  int shared = opts->share_alpha != 0;
  double budget = (opts->memory_mb > 0 ? opts->memory_mb : CN__ALPHA_MEMORY_MB) * 1048576.0;
  if (opts->max_memory_mb > 0 && budget > opts->max_memory_mb * 524288.0)
    budget = opts->max_memory_mb * 524288.0;    /* half the caller's whole budget */
  double per_row = width > 0 ? alpha_row_bytes (g, depends, v, width, shared) : 0;
  int64_t block = rows;
  if (width > 0 && !shared && per_row * (double) rows > budget)
    {
      block = (int64_t) (budget / per_row);
      block -= block % 2;
      if (block < 2)
        block = 2;
    }
  if (block >= rows)
    return alpha_lower_block (g, boxes, depends, roundoff, v, c, rows, opts, betas, target, pairs, theta_io, lower,
                              trace,
                              discharged, memo, err);
  int64_t n = g->values[v].numel;
  int iterations = opts->iterations > 0 ? opts->iterations : 1;
  cn_alpha_trace part = { 0 };
  if (trace != NULL)
    {
      trace->iterations = 0;
      trace->approx = 0;
      if (trace->history != NULL)
        {
          for (int64_t k = 0; k < (int64_t) iterations * rows; k++)
            trace->history[k] = NAN;
          part.history = malloc ((size_t) ((int64_t) iterations * block) * sizeof (double));
          if (part.history == NULL)
            return cn_error_set (err, CN_ENOMEM, "alpha-crown: out of memory");
        }
    }
  cn_status st = CN_OK;
  for (int64_t start = 0; start < rows && st == CN_OK; start += block)
    {
      int64_t m = rows - start < block ? rows - start : block;
      st = alpha_lower_block (g, boxes, depends, roundoff, v, c + start * n, m, opts, betas,
                              target != NULL ? target + start : NULL,
                              pairs, theta_io != NULL ? theta_io + start * width : NULL, lower + start,
                              trace != NULL ? &part : NULL, start == 0 ? discharged : NULL, memo, err);
      if (st != CN_OK || trace == NULL)
        continue;
      /* the block's trace, into the whole one: its rows of every sweep it ran */
      if (part.iterations > trace->iterations)
        trace->iterations = part.iterations;
      trace->approx += part.approx;
      if (trace->history != NULL)
        for (int it = 0; it < part.iterations; it++)
          memcpy (trace->history + (int64_t) it * rows + start, part.history + (int64_t) it * m,
                  (size_t) m * sizeof (double));
    }
  free (part.history);
  return st;
}
