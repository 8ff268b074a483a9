/* SPDX-License-Identifier: MIT */
/* src/crown/tighten.c: intermediate boxes by CROWN (the CN_METHOD_CROWN part of an analysis).
 *
 * A value read by an operator that relaxes (CN_RULE_NEEDS_BOUNDS: relu, max pooling) is
 * tightened: one CROWN sweep from the value with rows [e_j; -e_j] for the entries j whose sign
 * the box leaves open (lo < 0 < hi), whose relaxation depends on the box; when these are more
 * than 90% of the value, also for the active entries (lo >= 0, lo < hi), whose box passes on to
 * the next layer's IBP (as auto_LiRPA's sparse intermediate bounds do, which switch to all
 * entries past 90%).  The result is intersected with the IBP box, both being sound
 * (ALGORITHMS.md 2.5), so every box is at least as tight as auto_LiRPA's given the same boxes
 * upstream.  Entries with hi <= 0 are left to IBP: a relu maps them to 0 whatever their lower
 * end.  A value read by a smooth relaxation (CN_RULE_SMOOTH_BOUNDS: sigmoid, tanh, exp, ...,
 * whose lines depend on each entry's whole box) has all its entries tightened (lo < hi), as
 * auto_LiRPA bounds every entry of such a layer's input.  A value computed by one node straight
 * from the graph input is left to IBP, which is then as tight as a sweep (the first affine
 * layer). */
#include <config.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "crown/crown_impl.h"

/* The entries of the widest value that can receive coefficients (not a constant), at least 1. */
static int64_t
widest_computed (const cn_graph *g)
{
  int64_t widest = 1;
  for (int v = 0; v < g->n_values; v++)
    if (!g->values[v].is_constant && g->values[v].numel > widest)
      widest = g->values[v].numel;
  return widest;
}

/* Rows per sweep when tightening, so that one coefficient block (rows x WIDEST, the widest value
 * that can receive coefficients) stays near 2 MiB, about a core's cache.  Measured on the OVAL21
 * and MNIST networks, blocks of 32 MiB and more were up to twice as slow (their memory faulted in
 * afresh by every sweep), and blocks of a few rows slower again. */
static int64_t
chunk_of (int64_t widest)
{
  int64_t r = ((int64_t) 2 << 20) / (8 * widest);
  return r < 16 ? 16 : (r & ~(int64_t) 1);
}

int64_t
cn__crown_chunk_rows (const cn_graph *g)
{
  return chunk_of (widest_computed (g));
}

int64_t
cn__crown_tighten_rows (const cn_graph *g)
{
  int64_t widest = widest_computed (g), chunk = chunk_of (widest);
  return chunk < 2 * widest ? chunk : 2 * widest;
}

/* Whether entry [lo, hi] gets a CROWN sweep (see the file's comment); DENSE says whether the
 * unstable entries are more than 90% of the value, SMOOTH whether a smooth relaxation reads it. */
static int
worth_tightening (double lo, double hi, int dense, int smooth)
{
  if (smooth)
    return lo < hi;
  return dense ? hi > 0 && lo < hi : lo < 0 && hi > 0;
}

/* Whether value V is read by a node whose rule has FLAG. */
static int
read_by_flag (const cn_graph *g, int v, unsigned flag)
{
  for (int k = 0; k < g->n_nodes; k++)
    if (cn__node_reads_boxes (g, &g->nodes[k], flag))
      for (int i = 0; i < g->nodes[k].n_in; i++)
        if (g->nodes[k].in[i] == v)
          return 1;
  return 0;
}

/* Tightens the box of value V by CROWN sweeps over the entries worth it. */
static cn_status
tighten (const cn_graph *g, cn_box *boxes, const unsigned char *depends, const double *const *roundoff, int v,
         const cn_bounds_opts *opts,
         int64_t *discharged, void **memo, int *empty, cn_error *err)
{
  cn_box *b = &boxes[v];
  int64_t n = b->n, m = 0;
  for (int64_t j = 0; j < n; j++)
    m += b->lo[j] < 0 && b->hi[j] > 0;
  int dense = m > 0.9 * (double) n, smooth = read_by_flag (g, v, CN_RULE_SMOOTH_BOUNDS);
  m = 0;
  for (int64_t j = 0; j < n; j++)
    m += worth_tightening (b->lo[j], b->hi[j], dense, smooth);
  if (m == 0)
    return CN_OK;
  int64_t *idx = malloc ((size_t) m * sizeof *idx);
  int64_t chunk = cn__crown_chunk_rows (g);
  if (chunk > 2 * m)
    chunk = 2 * m;
  double *c = calloc ((size_t) chunk * (size_t) n, sizeof *c);
  double *lower = malloc ((size_t) chunk * sizeof *lower);
  double *zeros = calloc ((size_t) chunk, sizeof *zeros);
  cn_status st = CN_OK;
  if (idx == NULL || c == NULL || lower == NULL || zeros == NULL)
    {
      st = cn_error_set (err, CN_ENOMEM, "crown: out of memory tightening '%s'", g->values[v].name);
      goto done;
    }
  m = 0;
  for (int64_t j = 0; j < n; j++)
    if (worth_tightening (b->lo[j], b->hi[j], dense, smooth))
      idx[m++] = j;
  for (int64_t first = 0; first < m; first += chunk / 2)
    {
      int64_t cnt = m - first < chunk / 2 ? m - first : chunk / 2;
      memset (c, 0, (size_t) (2 * cnt) * (size_t) n * sizeof *c);
      for (int64_t r = 0; r < cnt; r++)
        {
          c[(2 * r) * n + idx[first + r]] = 1;       /* lower bound of v_j */
          c[(2 * r + 1) * n + idx[first + r]] = -1;  /* lower bound of -v_j */
        }
      /* the method's slopes, then (with tighten_slopes) the ratio slopes: each sweep is sound,
       * so the intersection of their boxes is */
      for (int pass = 0; pass < (opts->tighten_slopes ? 2 : 1); pass++)
      {
      int slope = pass == 0 ? (int) opts->slope : CN_SLOPE_RATIO;
      if (pass > 0 && slope == (int) opts->slope)
        continue;
      if (pass == 0 && opts->method == CN_METHOD_ALPHA_CROWN && opts->alpha_intermediate)
        {
          /* alpha-CROWN: every row optimises its own bound (ALGORITHMS.md 4.4, v1); for a relu's
           * input the pair of rows of entry j is done once one of them proves the sign (the lower
           * bound of v_j or of -v_j above 0), which decides the relaxation (inactive: the other end
           * no longer matters; active: only through the next layer's IBP box, which CROWN then
           * tightens anyway); a smooth one's lines depend on the whole box */
          cn_bounds_opts io = *opts;
          if (opts->iterations_intermediate > 0)
            io.iterations = opts->iterations_intermediate;
          if (opts->lr_intermediate > 0)
            io.lr = opts->lr_intermediate;
          if ((st = cn__alpha_lower (g, boxes, depends, roundoff, v, c, 2 * cnt, &io, NULL, smooth ? NULL : zeros, 1,
                                     NULL, lower,
                                     NULL, discharged, memo, err)) != CN_OK)
            goto done;
        }
      else if ((st = cn__crown_sweep (g, boxes, depends, roundoff, v, c, 2 * cnt, opts->threads, slope, lower, NULL,
                                       discharged, memo, err)) != CN_OK)
        goto done;
      for (int64_t r = 0; r < cnt; r++)
        {
          int64_t j = idx[first + r];
          double lo = lower[2 * r], hi = -lower[2 * r + 1];
          /* both boxes are sound, so is their intersection */
          if (lo > b->lo[j])
            b->lo[j] = lo;
          if (hi < b->hi[j])
            b->hi[j] = hi;
          if (b->lo[j] > b->hi[j])
            {
              if (empty != NULL)
                {
                  *empty = 1;    /* the caller knows the input set may be empty: both are sound */
                  goto done;
                }
              st = cn_error_set (err, CN_EUNSOUND,
                                 "crown: empty intersection at entry %lld of '%s' ([%.17g, %.17g]); the input set is empty or a bound is wrong",
                                 (long long) j, g->values[v].name, b->lo[j], b->hi[j]);
              goto done;
            }
        }
      }
    }
done:
  free (idx);
  free (c);
  free (lower);
  free (zeros);
  return st;
}

/* Whether value V feeds a node whose CROWN arm relaxes with its input box. */
static int
feeds_relaxation (const cn_graph *g, int v)
{
  return read_by_flag (g, v, CN_RULE_NEEDS_BOUNDS);
}

/* Whether V is computed by one node from graph inputs and constants only (IBP suffices). */
static int
first_layer (const cn_graph *g, int v)
{
  int p = g->values[v].producer;
  if (p < 0 || cn__node_reads_boxes (g, &g->nodes[p], CN_RULE_NEEDS_BOUNDS))
    return 0;
  for (int i = 0; i < g->nodes[p].n_in; i++)
    {
      const struct cn__value *u = &g->values[g->nodes[p].in[i]];
      if (!u->is_constant && !u->is_input)
        return 0;
    }
  return 1;
}

cn_status
cn__crown_tighten (const cn_graph *g, cn_box *boxes, const unsigned char *depends, const double *const *roundoff,
                   int v, const cn_bounds_opts *opts,
                   int64_t *discharged, void **memo, int *empty, cn_error *err)
{
  if (!depends[v] || !feeds_relaxation (g, v) || first_layer (g, v))
    return CN_OK;
  return tighten (g, boxes, depends, roundoff, v, opts, discharged, memo, empty, err);
}
