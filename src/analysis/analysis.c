/* SPDX-License-Identifier: MIT */
/* src/analysis/analysis.c: the analysis driver, method-neutral: the sound box of every value by
 * IBP, CROWN or CROWN-IBP, and CROWN sweeps from any value on demand.
 *
 * Nodes are visited in topological order.  Each output gets its IBP box from the boxes of its
 * inputs (cn__ibp_node, the IR's interval step: src/graph/interval.c), which are already as tight
 * as the method makes them.  With CN_METHOD_CROWN the box is then tightened by CROWN sweeps where
 * a relaxation reads it (cn__crown_tighten, src/crown/tighten.c says which entries); with
 * CN_METHOD_CROWN_IBP intermediate boxes stay IBP's and only the sweeps from the outputs
 * (cn_analysis_lower, cn_analysis_output_box) are CROWN's; with CN_METHOD_IBP nothing more.
 *
 * A branch-and-bound domain (cn_analysis_create_split) is the set of inputs of the box whose
 * values meet sign splits v_j >= 0 or v_j <= 0.  A split value's box is clamped to its side as
 * soon as it is computed, before any consumer reads it, so every box holds for every input of
 * the domain; the parent domain's boxes hold too (its domain contains this one), so they are
 * copied where nothing upstream changed and intersected elsewhere.  An empty box (lo > hi) then
 * proves the domain empty: no input meets the splits. */
#include <config.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <omp.h>
#include "certnn/bounds.h"
#include "certnn/env.h"
#include "core/clock.h"
#include "crown/crown_impl.h"
#include "lp/lp.h"

struct cn_analysis
{
  const cn_graph *g;
  cn_bounds_opts opts;
  cn_box *boxes;             /* one per value; a constant's box borrows its data (lo == hi == cdata) */
  unsigned char *depends;    /* value depends on a graph input */
  double seconds;
  int64_t discharged;        /* node outputs the sweeps discharged for want of a relaxation */
  void **memo;               /* one slot per value for the CROWN arms (cn_crown_step.memo) */
  cn_split *splits;          /* the domain's sign constraints (cn_analysis_create_split), a copy */
  int64_t n_splits;
  cn_box input;              /* the input box, a copy (a later split analysis checks it is inside) */
  int infeasible;            /* the domain was found empty: no input meets the splits */
  double **roundoff;         /* the binary32 semantics: per value NULL (exact, or not of the model's
                                scalar) or numel bounds of its rounding errors (the rule's
                                ROUNDOFF32 over its input boxes); NULL under the real semantics */
  double *l2_center;         /* cn_analysis_set_l2: the input set is also inside the ball of radius
                                L2_EPS around L2_CENTER (a copy, numel(input) entries); NULL: none */
  double l2_eps;
};

/* A's per-value rounding error bounds as the sweeps read them (NULL: the real semantics). */
static inline const double *const *
ro_of (const cn_analysis *a)
{
  return (const double *const *) a->roundoff;
}

const char *
cn_method_name (cn_method m)
{
  switch (m)
    {
    case CN_METHOD_IBP: return "ibp";
    case CN_METHOD_CROWN: return "crown";
    case CN_METHOD_CROWN_IBP: return "crown-ibp";
    case CN_METHOD_ALPHA_CROWN: return "alpha-crown";
    default: return "invalid";
    }
}

cn_status
cn_method_lookup (const char *name, cn_method *m, cn_error *err)
{
  static const cn_method all[] = { CN_METHOD_IBP, CN_METHOD_CROWN, CN_METHOD_CROWN_IBP, CN_METHOD_ALPHA_CROWN };
  for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
    if (strcmp (name, cn_method_name (all[i])) == 0)
      {
        *m = all[i];
        return CN_OK;
      }
  return cn_error_set (err, CN_EINVAL, "method: '%s' is not one of ibp, crown, crown-ibp, alpha-crown", name);
}

void
cn_bounds_opts_init (cn_bounds_opts *o)
{
  memset (o, 0, sizeof *o);
  o->method = CN_METHOD_CROWN;
  o->threads = 0;
  o->slope = CN_SLOPE_ADAPTIVE;
  o->iterations = 20;
  o->lr = 0.5;
  o->lr_decay = 0.98;
  o->lr_beta = CN__BETA_LR;
  o->patience = 10;
  o->alpha_intermediate = 1;
}

const char *
cn_semantics_name (cn_semantics s)
{
  switch (s)
    {
    case CN_SEMANTICS_REAL: return "real";
    case CN_SEMANTICS_BINARY32: return "binary32";
    default: return "invalid";
    }
}

cn_status
cn_semantics_lookup (const char *name, cn_semantics *s, cn_error *err)
{
  if (strcmp (name, "real") == 0)
    *s = CN_SEMANTICS_REAL;
  else if (strcmp (name, "binary32") == 0)
    *s = CN_SEMANTICS_BINARY32;
  else
    return cn_error_set (err, CN_EINVAL, "semantics: '%s' is not one of real, binary32", name);
  return CN_OK;
}

void
cn_analysis_free (cn_analysis *a)
{
  if (a == NULL)
    return;
  if (a->roundoff != NULL)
    for (int v = 0; v < a->g->n_values; v++)
      free (a->roundoff[v]);
  free (a->roundoff);
  if (a->boxes != NULL)
    for (int v = 0; v < a->g->n_values; v++)
      if (!a->g->values[v].is_constant)
        cn_box_clear (&a->boxes[v]);
  free (a->boxes);
  free (a->depends);
  if (a->memo != NULL)
    for (int v = 0; v < a->g->n_values; v++)
      free (a->memo[v]);
  free (a->memo);
  free (a->splits);
  free (a->l2_center);
  cn_box_clear (&a->input);
  free (a);
}

int
cn_analysis_infeasible (const cn_analysis *a)
{
  return a->infeasible;
}

const cn_box *
cn_analysis_box (const cn_analysis *a, int v)
{
  return v >= 0 && v < a->g->n_values ? &a->boxes[v] : NULL;
}

cn_status
cn_analysis_set_l2 (cn_analysis *a, const double *center, double eps, cn_error *err)
{
  int64_t n = a->input.n;
  if (!(eps >= 0) || !isfinite (eps))
    return cn_error_set (err, CN_EINVAL, "bounds: the L2 radius %g is not a finite number >= 0", eps);
  if (n > 0 && center == NULL)
    return cn_error_set (err, CN_EINVAL, "bounds: the L2 ball has no center");
  for (int64_t j = 0; j < n; j++)
    if (!isfinite (center[j]))
      return cn_error_set (err, CN_EINVAL, "bounds: entry %lld of the L2 ball's center is %g", (long long) j,
                           center[j]);
  double *copy = malloc ((size_t) (n > 0 ? n : 1) * sizeof *copy);
  if (copy == NULL)
    return cn_error_set (err, CN_ENOMEM, "bounds: out of memory");
  memcpy (copy, center, (size_t) n * sizeof *copy);
  free (a->l2_center);
  a->l2_center = copy;
  a->l2_eps = eps;
  return CN_OK;
}

/* A lower bound of min { coef . x + d : ||x - c||_2 <= eps } = coef . c + d - eps ||coef||_2
 * (Cauchy-Schwarz, attained at x = c - eps coef/||coef||), every step rounded the safe way:
 * coef . c from below by cn__dot_bounds, ||coef||_2^2 = |coef| . |coef| from above by (N), its
 * square root from above (sqrt is correctly rounded, so cn__up covers it). */
static double
l2_ball_min (int64_t n, const double *coef, double d, const double *center, double eps)
{
  double dot_lo, dot_hi;
  cn__dot_bounds (n, coef, center, &dot_lo, &dot_hi);
  double norm_up = cn__up (sqrt (cn__dot_nonneg_up (n, coef, coef)));
  double r = cn__add_down (cn__add_down (dot_lo, d), -cn__mul_up (eps, norm_up));
  return isnan (r) ? -INFINITY : r;
}

void
cn_analysis_set_slope (cn_analysis *a, cn_slope slope)
{
  a->opts.slope = slope;
}

double
cn_analysis_seconds (const cn_analysis *a)
{
  return a->seconds;
}

int64_t
cn_analysis_discharged (const cn_analysis *a)
{
  return a->discharged;
}

/* Whether PRIOR's boxes are sound for the domain of INPUT and SPLITS: the same graph, INPUT
 * inside PRIOR's input box, PRIOR's splits among SPLITS. */
static cn_status
check_prior (const cn_graph *g, const cn_box *input, const cn_analysis *prior, const cn_split *splits,
             int64_t n_splits, cn_error *err)
{
  if (prior->g != g)
    return cn_error_set (err, CN_EINVAL, "bounds: the prior analysis is of another graph");
  for (int64_t j = 0; j < input->n; j++)
    if (!(input->lo[j] >= prior->input.lo[j] && input->hi[j] <= prior->input.hi[j]))
      return cn_error_set (err, CN_EINVAL, "bounds: the input box leaves the prior analysis's at entry %lld",
                           (long long) j);
  for (int64_t q = 0; q < prior->n_splits; q++)
    {
      const cn_split *p = &prior->splits[q];
      int64_t r = 0;
      while (r < n_splits && !(splits[r].value == p->value && splits[r].index == p->index && splits[r].sign == p->sign))
        r++;
      if (r == n_splits)
        return cn_error_set (err, CN_EINVAL, "bounds: the prior analysis's split of entry %lld of '%s' is not among the splits",
                             (long long) p->index, g->values[p->value].name);
    }
  return CN_OK;
}

/* Applies the splits on value W to its box: lo := max(lo, 0) for sign +1, hi := min(hi, 0) for
 * sign -1 (each keeps every value the domain reaches).  Returns -1 when the box became empty,
 * else the number of splits on W. */
static int64_t
apply_splits (cn_analysis *a, int w)
{
  cn_box *b = &a->boxes[w];
  int64_t on = 0;
  for (int64_t q = 0; q < a->n_splits; q++)
    {
      const cn_split *sp = &a->splits[q];
      if (sp->value != w)
        continue;
      on++;
      if (sp->sign > 0 && b->lo[sp->index] < 0)
        b->lo[sp->index] = 0;
      if (sp->sign < 0 && b->hi[sp->index] > 0)
        b->hi[sp->index] = 0;
      if (b->lo[sp->index] > b->hi[sp->index])
        return -1;
    }
  return on;
}

/* The binary32 semantics reads the weights as binary32 words: CN_EINVAL naming the first
 * constant of the model's scalar that holds another number; and it is about binary32
 * evaluations: CN_EUNSUPPORTED naming the first value declared in binary16 or bfloat16, whose
 * operations a deployment rounds to that format. */
static cn_status
check_binary32_constants (const cn_graph *g, cn_error *err)
{
  for (int v = 0; v < g->n_values; v++)
    if (cn_dtype_is_reduced (g->values[v].dtype))
      return cn_error_set (err, CN_EUNSUPPORTED, "bounds: value '%s' is declared %s; the binary32 semantics covers "
                           "binary32 evaluations only", g->values[v].name, cn_dtype_name (g->values[v].dtype));
  for (int v = 0; v < g->n_values; v++)
    {
      const struct cn__value *val = &g->values[v];
      if (!val->is_constant || !cn_dtype_is_float (val->dtype))
        continue;
      for (int64_t j = 0; j < val->numel; j++)
        if (!cn__is_b32 (val->cdata[j]))
          return cn_error_set (err, CN_EINVAL, "bounds: under the binary32 semantics every weight must be a binary32 "
                               "word, but entry %lld of '%s' is %.17g", (long long) j, val->name, val->cdata[j]);
    }
  return CN_OK;
}

/* The binary32 semantics after node K's IBP boxes: each output of the model's scalar gets the
 * rule's bound E of its rounding errors (kept in A->roundoff when some entry is not 0), and its
 * box [lo, hi], which holds f over the input boxes, becomes [down(lo - E), up(hi + E)], which
 * holds fl32(f) = f + d, |d| <= E: the binary32 values, since the input boxes hold theirs. */
static cn_status
widen_binary32 (cn_analysis *a, int k, cn_error *err)
{
  const cn_graph *g = a->g;
  const struct cn__node *nd = &g->nodes[k];
  double *stack_e[4] = { NULL };
  double **e = nd->n_out <= 4 ? stack_e : calloc ((size_t) nd->n_out, sizeof *e);
  cn_status st = CN_OK;
  if (e == NULL)
    return cn_error_set (err, CN_ENOMEM, "bounds: out of memory");
  for (int o = 0; o < nd->n_out && st == CN_OK; o++)
    {
      const struct cn__value *val = &g->values[nd->out[o]];
      if (cn_dtype_is_float (val->dtype) && (e[o] = malloc ((size_t) val->numel * sizeof (double) + 1)) == NULL)
        st = cn_error_set (err, CN_ENOMEM, "bounds: out of memory");
    }
  if (st == CN_OK)
    st = cn__roundoff32_node (g, k, a->boxes, e, err);
  for (int o = 0; o < nd->n_out && st == CN_OK; o++)
    {
      int w = nd->out[o];
      if (e[o] == NULL)
        continue;
      cn_box *b = &a->boxes[w];
      int exact = 1;
      for (int64_t j = 0; j < b->n; j++)
        if (e[o][j] != 0)
          {
            exact = 0;
            b->lo[j] = cn__down (b->lo[j] - e[o][j]);
            b->hi[j] = cn__up (b->hi[j] + e[o][j]);
            if (isnan (b->lo[j]))
              b->lo[j] = -INFINITY;
            if (isnan (b->hi[j]))
              b->hi[j] = INFINITY;
          }
      if (!exact)
        {
          free (a->roundoff[w]);
          a->roundoff[w] = e[o];
          e[o] = NULL;
        }
    }
  for (int o = 0; o < nd->n_out; o++)
    free (e[o]);
  if (e != stack_e)
    free (e);
  return st;
}

/* The size budget (cn_bounds_opts.max_memory_mb): CN_ELIMIT when the estimated working memory
 * of WHAT, the boxes of every value of G (two binary64 numbers an entry) and, for ROWS > 0, the
 * coefficient blocks of one sweep of ROWS rows (the multipliers and the two recorded lines, three
 * blocks of ROWS x the entries of every computed value), exceeds O's budget.  No budget: CN_OK. */
static cn_status
memory_check (const cn_graph *g, const cn_bounds_opts *o, int64_t rows, const char *what, cn_error *err)
{
  if (o == NULL || !(o->max_memory_mb > 0))
    return CN_OK;
  double entries = 0, computed = 0;
  for (int v = 0; v < g->n_values; v++)
    {
      entries += (double) g->values[v].numel;
      if (!g->values[v].is_constant)
        computed += (double) g->values[v].numel;
    }
  double need = 16 * entries + 24 * (double) rows * computed, budget = o->max_memory_mb * 1048576.0;
  if (need <= budget)
    return CN_OK;
  return cn_error_set (err, CN_ELIMIT, "bounds: %s needs about %.0f MiB (%.0f MiB of boxes, %lld-row sweeps of "
                       "%.0f entries), more than the memory budget of %g MiB", what, need / 1048576.0,
                       16 * entries / 1048576.0, (long long) rows, computed, o->max_memory_mb);
}

cn_status
cn_analysis_create (const cn_graph *g, const cn_box *input, const cn_bounds_opts *opts, cn_analysis **out,
                    cn_error *err)
{
  return cn_analysis_create_split (g, input, opts, NULL, NULL, 0, out, err);
}

cn_status
cn_analysis_create_split (const cn_graph *g, const cn_box *input, const cn_bounds_opts *opts,
                          const cn_analysis *prior, const cn_split *splits, int64_t n_splits, cn_analysis **out,
                          cn_error *err)
{
  double t0 = cn__now ();
  *out = NULL;
  cn_status st = cn_fpenv_check (err);
  if (st != CN_OK)
    return st;
  if (g->n_inputs != 1)
    return cn_error_set (err, CN_EINVAL, "bounds: the graph has %d inputs; exactly one is supported", g->n_inputs);
  int xin = g->inputs[0];
  if (input->n != g->values[xin].numel)
    return cn_error_set (err, CN_ESHAPE, "bounds: the input box has %lld entries, the graph input '%s' has %lld",
                         (long long) input->n, g->values[xin].name, (long long) g->values[xin].numel);
  if ((st = cn_box_validate (input, "bounds: input box", err)) != CN_OK)
    return st;
  if (!cn_dtype_is_float (g->values[xin].dtype))
    {
      /* A Boolean or integer input: the arms read its box as the set of its possible words, so
       * its ends must be words of its sort (0 or 1 for a Boolean). */
      cn_dtype t = g->values[xin].dtype;
      double wmin = t == CN_DTYPE_BOOL ? 0 : cn__dtype_min (t), wmax = t == CN_DTYPE_BOOL ? 1 : cn__dtype_max (t);
      for (int64_t j = 0; j < input->n; j++)
        if (input->lo[j] != floor (input->lo[j]) || input->hi[j] != floor (input->hi[j]) || input->lo[j] < wmin
            || input->hi[j] > wmax)
          return cn_error_set (err, CN_EINVAL, "bounds: the input box [%g, %g] at %lld is not a range of %s words",
                               input->lo[j], input->hi[j], (long long) j, cn_dtype_name (t));
    }
  if (n_splits < 0 || (n_splits > 0 && splits == NULL))
    return cn_error_set (err, CN_EINVAL, "bounds: %lld splits and no list", (long long) n_splits);
  for (int64_t q = 0; q < n_splits; q++)
    {
      const cn_split *sp = &splits[q];
      if (sp->value < 0 || sp->value >= g->n_values || g->values[sp->value].is_constant
          || sp->index < 0 || sp->index >= g->values[sp->value].numel || (sp->sign != 1 && sp->sign != -1))
        return cn_error_set (err, CN_EINVAL, "bounds: split %lld (value %d, entry %lld, sign %d) names no entry of a "
                             "computed value, or its sign is not +1 or -1", (long long) q, sp->value,
                             (long long) sp->index, sp->sign);
    }
  if (prior != NULL && (st = check_prior (g, input, prior, splits, n_splits, err)) != CN_OK)
    return st;
  if (opts != NULL && !(opts->max_memory_mb >= 0 && isfinite (opts->max_memory_mb)))
    return cn_error_set (err, CN_EINVAL, "bounds: max_memory_mb %g (MiB, at least 0) out of range",
                         opts->max_memory_mb);
  if (opts != NULL
      && (st = memory_check (g, opts, opts->method == CN_METHOD_IBP ? 0 : cn__crown_tighten_rows (g), "the analysis",
                             err)) != CN_OK)
    return st;
  unsigned char *changed = NULL;
  cn_analysis *a = calloc (1, sizeof *a);
  if (a == NULL)
    return cn_error_set (err, CN_ENOMEM, "bounds: out of memory");
  a->g = g;
  if (n_splits > 0)
    {
      a->splits = malloc ((size_t) n_splits * sizeof *a->splits);
      if (a->splits == NULL)
        {
          free (a);
          return cn_error_set (err, CN_ENOMEM, "bounds: out of memory");
        }
      memcpy (a->splits, splits, (size_t) n_splits * sizeof *splits);
      a->n_splits = n_splits;
    }
  if ((st = cn_box_copy (&a->input, input, err)) != CN_OK)
    goto fail;
  if (opts != NULL)
    a->opts = *opts;
  else
    cn_bounds_opts_init (&a->opts);
  if (a->opts.threads <= 0)
    a->opts.threads = omp_get_max_threads ();
  if (a->opts.semantics != CN_SEMANTICS_REAL && a->opts.semantics != CN_SEMANTICS_BINARY32)
    {
      st = cn_error_set (err, CN_EINVAL, "bounds: semantics %d is not one of real, binary32", (int) a->opts.semantics);
      goto fail;
    }
  if (a->opts.semantics == CN_SEMANTICS_BINARY32)
    {
      if (prior != NULL && prior->opts.semantics != CN_SEMANTICS_BINARY32)
        {
          st = cn_error_set (err, CN_EINVAL, "bounds: the prior analysis holds for the real semantics, not binary32");
          goto fail;
        }
      if (prior == NULL && (st = check_binary32_constants (g, err)) != CN_OK)
        goto fail;
      a->roundoff = calloc ((size_t) (g->n_values ? g->n_values : 1), sizeof *a->roundoff);
      if (a->roundoff == NULL)
        {
          st = cn_error_set (err, CN_ENOMEM, "bounds: out of memory");
          goto fail;
        }
    }
  else if (prior != NULL && prior->opts.semantics != CN_SEMANTICS_REAL)
    {
      st = cn_error_set (err, CN_EINVAL, "bounds: the prior analysis holds for the binary32 semantics, not real");
      goto fail;
    }
  a->boxes = calloc ((size_t) (g->n_values ? g->n_values : 1), sizeof *a->boxes);
  a->depends = calloc ((size_t) (g->n_values ? g->n_values : 1), 1);
  a->memo = calloc ((size_t) (g->n_values ? g->n_values : 1), sizeof *a->memo);
  /* changed[w]: w's box may differ from PRIOR's (a split on it or on a value it depends on) */
  changed = calloc ((size_t) (g->n_values ? g->n_values : 1), 1);
  if (a->boxes == NULL || a->depends == NULL || a->memo == NULL || changed == NULL)
    {
      st = cn_error_set (err, CN_ENOMEM, "bounds: out of memory");
      goto fail;
    }
  for (int v = 0; v < g->n_values; v++)
    {
      const struct cn__value *val = &g->values[v];
      if (val->is_constant)
        {
          /* the degenerate box [c, c], borrowed: nothing ever writes a constant's box */
          a->boxes[v].n = val->numel;
          a->boxes[v].lo = val->cdata;
          a->boxes[v].hi = val->cdata;
        }
      else if (val->is_input)
        {
          if ((st = cn_box_copy (&a->boxes[v], input, err)) != CN_OK)
            goto fail;
          a->depends[v] = 1;
          changed[v] = prior == NULL
                       || memcmp (input->lo, prior->input.lo, (size_t) input->n * sizeof (double)) != 0
                       || memcmp (input->hi, prior->input.hi, (size_t) input->n * sizeof (double)) != 0;
          if (apply_splits (a, v) < 0)
            a->infeasible = 1;
        }
    }
  /* Node by node in topological order.  What holds after each node: every output's box contains
   * the output's value at every input of the domain (INPUT, and the splits on the values so
   * far); so the boxes of a domain that is not empty are never empty, and an empty one proves
   * the domain empty (a->infeasible; then nothing later is computed). */
  for (int k = 0; k < g->n_nodes && !a->infeasible; k++)
    {
      const struct cn__node *nd = &g->nodes[k];
      int fresh = prior == NULL;
      for (int o = 0; o < nd->n_out; o++)
        {
          int w = nd->out[o];
          if ((st = cn_box_init (&a->boxes[w], g->values[w].numel, err)) != CN_OK)
            goto fail;
          for (int i = 0; i < nd->n_in; i++)
            {
              a->depends[w] |= a->depends[nd->in[i]];
              fresh |= changed[nd->in[i]];
            }
        }
      if (!fresh || a->opts.inherit_boxes)
        {
          /* nothing upstream changed, or the boxes are inherited: PRIOR's boxes hold (its domain
           * contains this one) */
          for (int o = 0; o < nd->n_out; o++)
            {
              int w = nd->out[o];
              memcpy (a->boxes[w].lo, prior->boxes[w].lo, (size_t) a->boxes[w].n * sizeof (double));
              memcpy (a->boxes[w].hi, prior->boxes[w].hi, (size_t) a->boxes[w].n * sizeof (double));
              /* PRIOR's error bounds hold over its boxes, which contain these */
              if (a->roundoff != NULL && prior->roundoff[w] != NULL)
                {
                  size_t size = (size_t) a->boxes[w].n * sizeof (double);
                  if ((a->roundoff[w] = malloc (size + 1)) == NULL)
                    {
                      st = cn_error_set (err, CN_ENOMEM, "bounds: out of memory");
                      goto fail;
                    }
                  memcpy (a->roundoff[w], prior->roundoff[w], size);
                }
            }
        }
      else
        {
          if ((st = cn__ibp_node (g, k, a->boxes, err)) != CN_OK)
            goto fail;
          if (a->roundoff != NULL && (st = widen_binary32 (a, k, err)) != CN_OK)
            goto fail;
          for (int o = 0; o < nd->n_out; o++)
            {
              int w = nd->out[o];
              /* both boxes tighten intersects are sound for the domain: with splits, an empty
               * intersection proves the domain empty (without, the input box is not empty, so it
               * is a wrong bound: CN_EUNSOUND) */
              int empty = 0;
              if ((a->opts.method == CN_METHOD_CROWN || a->opts.method == CN_METHOD_ALPHA_CROWN)
                  && (st = cn__crown_tighten (g, a->boxes, a->depends, ro_of (a), w, &a->opts, &a->discharged, a->memo,
                                              a->n_splits > 0 ? &empty : NULL, err)) != CN_OK)
                goto fail;
              if (empty)
                {
                  a->infeasible = 1;
                  break;
                }
              changed[w] = 1;
              if (prior != NULL)
                {
                  /* PRIOR's box holds too (its domain contains this one): intersect */
                  cn_box *b = &a->boxes[w];
                  const cn_box *p = &prior->boxes[w];
                  for (int64_t j = 0; j < b->n; j++)
                    {
                      if (isnan (b->lo[j]) || isnan (b->hi[j]))
                        {
                          st = cn_error_set (err, CN_EUNSOUND, "bounds: entry %lld of '%s' has a NaN bound",
                                             (long long) j, g->values[w].name);
                          goto fail;
                        }
                      b->lo[j] = fmax (b->lo[j], p->lo[j]);
                      b->hi[j] = fmin (b->hi[j], p->hi[j]);
                      if (b->lo[j] > b->hi[j])
                        a->infeasible = 1;
                    }
                }
            }
        }
      for (int o = 0; o < nd->n_out && !a->infeasible; o++)
        {
          int64_t on = apply_splits (a, nd->out[o]);
          if (on < 0)
            a->infeasible = 1;
          else if (on > 0)
            changed[nd->out[o]] = 1;
        }
    }
  free (changed);
  a->seconds = cn__now () - t0;
  *out = a;
  return CN_OK;
fail:
  free (changed);
  cn_analysis_free (a);
  return st;
}

/* Whether V, the environment and the ROWS x numel(v) coefficients C (finite) can be swept. */
static cn_status
check_rows (const cn_analysis *a, int v, const double *c, int64_t rows, cn_error *err)
{
  cn_status st = cn__graph_check_value (a->g, v, "bounds", err);
  if (st != CN_OK)
    return st;
  if ((st = cn_fpenv_check (err)) != CN_OK)
    return st;
  if (rows < 0)
    return cn_error_set (err, CN_EINVAL, "bounds: negative row count");
  if ((st = memory_check (a->g, &a->opts, rows, "the sweep", err)) != CN_OK)
    return st;
  int64_t n = a->g->values[v].numel;
  for (int64_t j = 0; j < rows * n; j++)
    if (!isfinite (c[j]))
      return cn_error_set (err, CN_EINVAL, "bounds: coefficient %lld of C is not finite", (long long) j);
  return CN_OK;
}

/* The bounds over an empty domain: every row's lower bound +inf (nothing to bound), its input
 * coefficients 0. */
static cn_status
infeasible_rows (const cn_analysis *a, int64_t rows, double *lower, double *coef)
{
  for (int64_t s = 0; s < rows; s++)
    lower[s] = INFINITY;
  if (coef != NULL && a->g->n_inputs > 0)
    memset (coef, 0, (size_t) rows * (size_t) a->g->values[a->g->inputs[0]].numel * sizeof (double));
  return CN_OK;
}

/* One CROWN sweep from V with A's slope: LOWER, COEF (NULL: not wanted) and OFFSET (NULL: not
 * wanted) as cn__crown_sweep's LOWER, INPUT_COEF and the tape's INPUT_OFFSET, so that each row's
 * value is >= coef_s . x + offset_s for every x of A's domain.  With an L2 ball
 * (cn_analysis_set_l2) each row's lower bound is the better of the box's and the ball's minimum
 * of that function (both sound: the domain lies in both). */
static cn_status
crown_rows (cn_analysis *a, int v, const double *c, int64_t rows, double *lower, double *coef, double *offset,
            cn_error *err)
{
  const cn_graph *g = a->g;
  int64_t nx = g->values[g->inputs[0]].numel;
  double *own_coef = NULL, *own_offset = NULL;
  if (a->l2_center != NULL && coef == NULL)
    coef = own_coef = malloc ((size_t) (rows * nx + 1) * sizeof *coef);
  if (a->l2_center != NULL && offset == NULL)
    offset = own_offset = malloc ((size_t) rows * sizeof *offset + 1);
  cn_status st = CN_OK;
  if ((a->l2_center != NULL && (coef == NULL || offset == NULL)))
    st = cn_error_set (err, CN_ENOMEM, "bounds: out of memory");
  else
    {
      cn__crown_tape tape = { .input_offset = offset };
      st = cn__crown_sweep_tape (g, a->boxes, a->depends, ro_of (a), v, c, rows, a->opts.threads, a->opts.slope, lower,
                                 coef, &a->discharged, a->memo, offset != NULL ? &tape : NULL, err);
    }
  if (st == CN_OK && a->l2_center != NULL)
    for (int64_t s = 0; s < rows; s++)
      lower[s] = fmax (lower[s], l2_ball_min (nx, coef + s * nx, offset[s], a->l2_center, a->l2_eps));
  free (own_coef);
  free (own_offset);
  return st;
}

/* With an L2 ball, raises LOWER (sound bounds of the ROWS functions C v) to the ball's bounds of
 * one more CROWN sweep (crown_rows) where they are better: alpha-CROWN's optimiser concretises
 * over the box. */
static cn_status
ball_rows (cn_analysis *a, int v, const double *c, int64_t rows, double *lower, cn_error *err)
{
  if (a->l2_center == NULL || rows == 0 || a->infeasible)
    return CN_OK;
  double *low = malloc ((size_t) rows * sizeof *low + 1);
  if (low == NULL)
    return cn_error_set (err, CN_ENOMEM, "bounds: out of memory");
  cn_status st = crown_rows (a, v, c, rows, low, NULL, NULL, err);
  for (int64_t s = 0; s < rows && st == CN_OK; s++)
    lower[s] = fmax (lower[s], low[s]);
  free (low);
  return st;
}

/* alpha-CROWN from V (cn_analysis_lower_alpha); COEF (if not NULL) as cn_analysis_lower_coef,
 * from one more sweep with the best parameters (the same sweep as the best one of each row). */
static cn_status
lower_alpha (cn_analysis *a, int v, const double *c, int64_t rows, const double *target, double *theta,
             double *lower, double *coef, cn_alpha_trace *trace, cn_error *err)
{
  double t0 = cn__now ();
  const cn_graph *g = a->g;
  cn_status st = check_rows (a, v, c, rows, err);
  if (st != CN_OK)
    return st;
  if (!(a->opts.lr > 0) || !isfinite (a->opts.lr) || !(a->opts.lr_decay > 0) || !(a->opts.lr_decay <= 1)
      || a->opts.iterations < 1 || a->opts.patience < 0)
    return cn_error_set (err, CN_EINVAL,
                         "alpha-crown: iterations %d (at least 1), lr %g (positive), lr_decay %g (in (0, 1]) or "
                         "patience %d (at least 0) out of range",
                         a->opts.iterations, a->opts.lr, a->opts.lr_decay, a->opts.patience);
  if (!(a->opts.lr_beta >= 0) || !isfinite (a->opts.lr_beta))
    return cn_error_set (err, CN_EINVAL, "alpha-crown: lr_beta %g (at least 0) out of range", a->opts.lr_beta);
  if (!(a->opts.memory_mb >= 0) || !isfinite (a->opts.memory_mb))
    return cn_error_set (err, CN_EINVAL, "alpha-crown: memory_mb %g (MiB, at least 0) out of range",
                         a->opts.memory_mb);
  if (trace != NULL)
    trace->iterations = 0;
  if (rows == 0)
    return CN_OK;
  if (a->infeasible)
    return infeasible_rows (a, rows, lower, coef);
  /* beta-CROWN over the domain's splits (their boxes hold there) */
  cn__betas betas = { .splits = a->splits, .n = a->n_splits };
  if (coef == NULL)
    st = cn__alpha_lower (g, a->boxes, a->depends, ro_of (a), v, c, rows, &a->opts, &betas, target, 0, theta, lower,
                          trace,
                          &a->discharged, a->memo, err);
  else
    {
      /* the input coefficients, from one more sweep with each row's best parameters (a guide,
       * as for CROWN): the layout, the parameters and that sweep's bounds */
      int64_t *offset = malloc ((size_t) g->n_values * sizeof *offset);
      int64_t alpha_width = offset != NULL ? cn__alpha_layout (g, a->depends, v, offset) : -1;
      int64_t width = alpha_width < 0 ? -1 : alpha_width + a->n_splits;
      int64_t size = (a->opts.share_alpha ? 1 : rows) * (width > 0 ? width : 0);
      double *th = theta != NULL || width < 0 ? theta : malloc ((size_t) (size ? size : 1) * sizeof *th);
      double *low = malloc ((size_t) rows * sizeof *low);
      if (width < 0 || th == NULL || low == NULL)
        st = cn_error_set (err, CN_ENOMEM, "bounds: out of memory");
      else
        {
          if (th != theta)
            for (int64_t i = 0; i < size; i++)
              th[i] = NAN;
          st = cn__alpha_lower (g, a->boxes, a->depends, ro_of (a), v, c, rows, &a->opts, &betas, target, 0, th,
                                lower, trace,
                                &a->discharged, a->memo, err);
          cn__crown_tape tape = { .offset = offset, .width = width, .theta = th, .shared = a->opts.share_alpha != 0,
                                  .splits = a->splits, .n_splits = a->n_splits, .beta_offset = alpha_width };
          if (st == CN_OK)
            st = cn__crown_sweep_tape (g, a->boxes, a->depends, ro_of (a), v, c, rows, a->opts.threads,
                                       a->opts.slope, low, coef,
                                       NULL, a->memo, width > 0 ? &tape : NULL, err);
          for (int64_t s = 0; s < rows && st == CN_OK; s++)
            lower[s] = fmax (lower[s], low[s]);   /* both sound */
        }
      if (th != theta)
        free (th);
      free (offset);
      free (low);
    }
  if (st == CN_OK)
    st = ball_rows (a, v, c, rows, lower, err);
  a->seconds += cn__now () - t0;
  return st;
}

cn_status
cn_analysis_lower (cn_analysis *a, int v, const double *c, int64_t rows, double *lower, cn_error *err)
{
  return cn_analysis_lower_coef (a, v, c, rows, lower, NULL, err);
}

cn_status
cn_analysis_lower_coef (cn_analysis *a, int v, const double *c, int64_t rows, double *lower, double *coef,
                        cn_error *err)
{
  if (a->opts.method == CN_METHOD_ALPHA_CROWN)
    return lower_alpha (a, v, c, rows, NULL, NULL, lower, coef, NULL, err);
  double t0 = cn__now ();
  cn_status st = check_rows (a, v, c, rows, err);
  if (st != CN_OK)
    return st;
  if (a->infeasible)
    return infeasible_rows (a, rows, lower, coef);
  if (rows > 0)
    st = crown_rows (a, v, c, rows, lower, coef, NULL, err);
  a->seconds += cn__now () - t0;
  return st;
}

cn_status
cn_analysis_linear (cn_analysis *a, int v, const double *c, int64_t rows, double *lo_coef, double *lo_offset,
                    double *up_coef, double *up_offset, cn_error *err)
{
  double t0 = cn__now ();
  const cn_graph *g = a->g;
  cn_status st = cn__graph_check_value (g, v, "bounds", err);
  if (st != CN_OK)
    return st;
  int64_t n = g->values[v].numel, nx = g->values[g->inputs[0]].numel;
  if (c == NULL && rows != n)
    return cn_error_set (err, CN_EINVAL, "bounds: linear bounds of the entries of '%s' need %lld rows, not %lld",
                         g->values[v].name, (long long) n, (long long) rows);
  if ((lo_coef == NULL) != (lo_offset == NULL) || (up_coef == NULL) != (up_offset == NULL))
    return cn_error_set (err, CN_EINVAL, "bounds: a linear bound needs both its coefficients and its offset");
  /* the rows of C, and of -C for the upper functions: C v <= u(x) iff -C v >= -u(x) */
  double *cc = malloc ((size_t) (2 * rows * n + 1) * sizeof *cc);
  double *coef = malloc ((size_t) (2 * rows * nx + 1) * sizeof *coef);
  double *offset = malloc ((size_t) (2 * rows + 1) * sizeof *offset);
  double *lower = malloc ((size_t) (2 * rows + 1) * sizeof *lower);
  if (cc == NULL || coef == NULL || offset == NULL || lower == NULL)
    {
      st = cn_error_set (err, CN_ENOMEM, "bounds: cannot allocate %lld linear bounds of %lld inputs", (long long) rows,
                         (long long) nx);
      goto done;
    }
  for (int64_t s = 0; s < rows; s++)
    for (int64_t j = 0; j < n; j++)
      {
        double cj = c != NULL ? c[s * n + j] : (double) (j == s);
        cc[s * n + j] = cj;
        cc[(rows + s) * n + j] = -cj;
      }
  if ((st = check_rows (a, v, cc, 2 * rows, err)) != CN_OK || rows == 0)
    goto done;
  if (a->infeasible)
    {
      /* no input: every statement about one holds; the functions are 0 x + (+-inf) */
      memset (coef, 0, (size_t) (2 * rows * nx) * sizeof *coef);
      for (int64_t s = 0; s < 2 * rows; s++)
        offset[s] = INFINITY;
    }
  else if ((st = crown_rows (a, v, cc, 2 * rows, lower, coef, offset, err)) != CN_OK)
    goto done;
  /* now, for every x of the domain and each row s, read exactly:
   *     coef_s . x + offset_s <= (C v)_s(x)   and   coef_{rows+s} . x + offset_{rows+s} <= -(C v)_s(x);
   * the second negated (exactly) is the upper function. */
  for (int64_t s = 0; s < rows; s++)
    {
      if (lo_coef != NULL)
        {
          memcpy (lo_coef + s * nx, coef + s * nx, (size_t) nx * sizeof *coef);
          lo_offset[s] = offset[s];
        }
      if (up_coef != NULL)
        {
          for (int64_t j = 0; j < nx; j++)
            up_coef[s * nx + j] = -coef[(rows + s) * nx + j];
          up_offset[s] = -offset[rows + s];
        }
    }
done:
  free (cc);
  free (coef);
  free (offset);
  free (lower);
  a->seconds += cn__now () - t0;
  return st;
}

cn_status
cn_analysis_lower_at (cn_analysis *a, int v, const double *c, int64_t rows, double *lower, int n_at, const int *at,
                      double *const *lam, cn_error *err)
{
  double t0 = cn__now ();
  cn_status st = check_rows (a, v, c, rows, err);
  if (st != CN_OK)
    return st;
  if (n_at < 0 || (n_at > 0 && (at == NULL || lam == NULL)))
    return cn_error_set (err, CN_EINVAL, "bounds: %d values to keep and no list", n_at);
  for (int i = 0; i < n_at; i++)
    {
      if ((st = cn__graph_check_value (a->g, at[i], "bounds", err)) != CN_OK)
        return st;
      memset (lam[i], 0, (size_t) rows * (size_t) a->g->values[at[i]].numel * sizeof (double));
    }
  if (a->infeasible)
    return infeasible_rows (a, rows, lower, NULL);
  cn__crown_tape tape = { .n_keep = n_at, .keep_at = at, .keep = (double **) lam };
  if (rows > 0)
    st = cn__crown_sweep_tape (a->g, a->boxes, a->depends, ro_of (a), v, c, rows, a->opts.threads, a->opts.slope,
                               lower, NULL,
                               &a->discharged, a->memo, &tape, err);
  a->seconds += cn__now () - t0;
  return st;
}

/* The constant d of a linear function coef . x + d whose lower bound over BOX is LOWER (sound):
 * d = lower - min over the box of coef . x, in round-to-nearest (a guess for the LP's data). */
static double
linear_constant (const cn_box *box, const double *coef, double lower)
{
  double m = 0;
  for (int64_t i = 0; i < box->n; i++)
    m += coef[i] >= 0 ? coef[i] * box->lo[i] : coef[i] * box->hi[i];
  return lower - m;
}

cn_status
cn_analysis_lower_lp (cn_analysis *a, int v, const double *c, int64_t rows, double *lower, double *x_lp,
                      cn_error *err)
{
  return cn_analysis_lower_lp_theta (a, v, c, rows, lower, x_lp, NULL, err);
}

cn_status
cn_analysis_lower_lp_theta (cn_analysis *a, int v, const double *c, int64_t rows, double *lower, double *x_lp,
                            double *theta_out, cn_error *err)
{
  double t0 = cn__now ();
  const cn_graph *g = a->g;
  cn_status st = check_rows (a, v, c, rows, err);
  if (st != CN_OK)
    return st;
  if (g->n_inputs != 1)
    return cn_error_set (err, CN_EUNSUPPORTED, "bounds: the LP bound needs a graph with one input");
  int64_t n = a->input.n, S = a->n_splits;
  for (int64_t i = 0; x_lp != NULL && i < rows * n; i++)
    x_lp[i] = NAN;                /* until a row's LP is solved (never, over an empty domain) */
  /* the parameters of a row: the alpha ones (left to the arms), then one beta per split */
  int64_t width = cn_analysis_alpha_width (a, v), aw = width - S;
  for (int64_t i = 0; theta_out != NULL && i < rows * width; i++)
    theta_out[i] = NAN;           /* until a row's multipliers improve its bound */
  if (a->infeasible)
    return infeasible_rows (a, rows, lower, NULL);
  /* The budget: besides the sweep's (checked by check_rows), the LP's dense rows (S x n
   * numbers here, and in GLPK about 48 bytes an element: its value, row and column links) and
   * the objectives (rows x n). */
  if (a->opts.max_memory_mb > 0)
    {
      double need = 56.0 * (double) S * (double) n + 8.0 * (double) rows * (double) n;
      if (need > a->opts.max_memory_mb * 1048576.0)
        return cn_error_set (err, CN_ELIMIT, "bounds: the LP bound over %lld splits and %lld inputs needs about "
                             "%.0f MiB, more than the memory budget of %g MiB", (long long) S, (long long) n,
                             need / 1048576.0, a->opts.max_memory_mb);
    }
  double *coef = malloc ((size_t) (rows * n + 1) * sizeof *coef);
  double *am = malloc ((size_t) (S * n + 1) * sizeof *am);  /* the splits' functions M_q: m_q */
  double *bq = malloc ((size_t) (S + 1) * sizeof *bq), *mu = malloc ((size_t) (S + 1) * sizeof *mu);
  double *theta = malloc ((size_t) (width > 0 ? width : 1) * sizeof *theta);
  double *xs = malloc ((size_t) n * sizeof *xs + sizeof *xs);
  if (width < 0 || coef == NULL || am == NULL || bq == NULL || mu == NULL || theta == NULL || xs == NULL)
    {
      st = cn_error_set (err, CN_ENOMEM, "bounds: out of memory for the LP bound");
      goto done;
    }
  /* 1. the rows' CROWN bounds and their input coefficients (the LP's objectives) */
  if ((st = cn__crown_sweep (g, a->boxes, a->depends, ro_of (a), v, c, rows, a->opts.threads, a->opts.slope, lower,
                             coef,
                             &a->discharged, a->memo, err)) != CN_OK)
    goto done;
  /* 2. for split q (s_q z_q >= 0 on the domain), the lower function M_q of -s_q z_q: then
   *    M_q (x) <= -s_q z_q (x) <= 0 on the domain, the LP's row m_q . x <= -d_q */
  for (int64_t q = 0; q < S; q++)
    {
      const cn_split *sp = &a->splits[q];
      int64_t nz = g->values[sp->value].numel;
      double *row = calloc ((size_t) nz, sizeof *row), low;
      if (row == NULL)
        {
          st = cn_error_set (err, CN_ENOMEM, "bounds: out of memory for the LP bound");
          goto done;
        }
      row[sp->index] = -sp->sign;
      st = cn__crown_sweep (g, a->boxes, a->depends, ro_of (a), sp->value, row, 1, a->opts.threads, a->opts.slope, &low,
                            am + q * n, &a->discharged, a->memo, err);
      free (row);
      if (st != CN_OK)
        goto done;
      if (!isfinite (low))
        {
          /* nothing known: a void row */
          for (int64_t i = 0; i < n; i++)
            am[q * n + i] = 0;
          bq[q] = 0;
          continue;
        }
      bq[q] = -linear_constant (&a->input, am + q * n, low);
      for (int64_t i = 0; i < n; i++)
        if (!isfinite (am[q * n + i]))
          {
            st = cn_error_set (err, CN_EUNSOUND, "bounds: a split's function has a coefficient that is not finite");
            goto done;
          }
    }
  /* 3. per row, the LP min coef_s . x s.t. the split rows and the box; its multipliers as beta,
   *    re-evaluated by one sound sweep (any beta >= 0 is sound: src/crown/sweep.c) */
  cn_bounds_opts once = a->opts;
  once.iterations = 1;
  cn__betas betas = { .splits = a->splits, .n = S };
  for (int64_t s = 0; s < rows; s++)
    {
      double l1 = 0, low;
      for (int64_t i = 0; i < n; i++)
        l1 += fabs (coef[s * n + i]) * (a->input.hi[i] - a->input.lo[i]);
      if (!isfinite (lower[s]) || !isfinite (l1))
        continue;
      cn_error e2;
      cn_error_clear (&e2);
      st = cn__lp_solve (n, S, coef + s * n, am, bq, a->input.lo, a->input.hi, 1e6 * (1 + l1), mu, xs, NULL, &e2);
      if (st != CN_OK && st != CN_ENOMEM)
        {
          st = CN_OK;   /* no LP solution (GLPK failed, or data it cannot take): the CROWN bound stands */
          continue;
        }
      if (st != CN_OK)
        {
          cn_error_set (err, st, "%s", e2.msg);
          goto done;
        }
      if (x_lp != NULL)
        memcpy (x_lp + s * n, xs, (size_t) n * sizeof *xs);
      for (int64_t j = 0; j < aw; j++)
        theta[j] = NAN;               /* the arms' own lines */
      memcpy (theta + aw, mu, (size_t) S * sizeof *mu);
      if ((st = cn__alpha_lower (g, a->boxes, a->depends, ro_of (a), v, c + s * g->values[v].numel, 1, &once, &betas,
                                 NULL, 0,
                                 theta, &low, NULL, NULL, a->memo, err)) != CN_OK)
        goto done;
      if (low > lower[s])
        {
          lower[s] = low;             /* both sound */
          if (theta_out != NULL)
            memcpy (theta_out + s * width, theta, (size_t) width * sizeof *theta);
        }
    }
done:
  free (coef);
  free (am);
  free (bq);
  free (mu);
  free (theta);
  free (xs);
  a->seconds += cn__now () - t0;
  return st;
}

int64_t
cn_analysis_alpha_width (const cn_analysis *a, int v)
{
  if (v < 0 || v >= a->g->n_values)
    return -1;
  int64_t *offset = malloc ((size_t) a->g->n_values * sizeof *offset);
  if (offset == NULL)
    return -1;
  int64_t w = cn_analysis_alpha_offsets (a, v, offset);
  free (offset);
  return w < 0 ? w : w + a->n_splits;   /* then one beta per split */
}

int64_t
cn_analysis_alpha_offsets (const cn_analysis *a, int v, int64_t *offset)
{
  if (v < 0 || v >= a->g->n_values)
    return -1;
  return cn__alpha_layout (a->g, a->depends, v, offset);
}

cn_status
cn_analysis_lower_theta (cn_analysis *a, int v, const double *c, int64_t rows, double *theta, double *lower,
                         double *coef, cn_error *err)
{
  double t0 = cn__now ();
  const cn_graph *g = a->g;
  cn_status st = check_rows (a, v, c, rows, err);
  if (st != CN_OK)
    return st;
  if (a->infeasible)
    return infeasible_rows (a, rows, lower, coef);
  if (rows == 0)
    return CN_OK;
  int64_t *offset = malloc ((size_t) g->n_values * sizeof *offset);
  int64_t alpha_width = offset != NULL ? cn__alpha_layout (g, a->depends, v, offset) : -1;
  if (alpha_width < 0)
    {
      free (offset);
      return cn_error_set (err, CN_ENOMEM, "bounds: out of memory");
    }
  /* 1. one alpha-CROWN step of no iterations beyond the first: THETA projected onto the valid
   *    sets (NaN entries: the arms' own lines), its sweep's bounds */
  cn_bounds_opts once = a->opts;
  once.iterations = 1;
  once.share_alpha = 0;
  cn__betas betas = { .splits = a->splits, .n = a->n_splits };
  st = cn__alpha_lower (g, a->boxes, a->depends, ro_of (a), v, c, rows, &once, &betas, NULL, 0, theta, lower, NULL,
                        NULL,
                        a->memo, err);
  /* 2. the sweep of src/crown/sweep.c with the projected parameters, for the input coefficients
   *    of its linear bounds; its bounds are the ones returned (the pair a certificate records) */
  cn__crown_tape tape = { .offset = offset, .width = alpha_width + a->n_splits, .theta = theta, .shared = 0,
                          .splits = a->splits, .n_splits = a->n_splits, .beta_offset = alpha_width };
  if (st == CN_OK)
    st = cn__crown_sweep_tape (g, a->boxes, a->depends, ro_of (a), v, c, rows, a->opts.threads, a->opts.slope, lower,
                               coef,
                               &a->discharged, a->memo, &tape, err);
  free (offset);
  a->seconds += cn__now () - t0;
  return st;
}

cn_status
cn_analysis_lower_alpha (cn_analysis *a, int v, const double *c, int64_t rows, const double *target, double *theta,
                         double *lower, cn_alpha_trace *trace, cn_error *err)
{
  return lower_alpha (a, v, c, rows, target, theta, lower, NULL, trace, err);
}

cn_status
cn_analysis_output_box (cn_analysis *a, cn_box *out, cn_error *err)
{
  return cn_analysis_output_box_trace (a, out, NULL, err);
}

cn_status
cn_analysis_output_box_trace (cn_analysis *a, cn_box *out, cn_alpha_trace *trace, cn_error *err)
{
  const cn_graph *g = a->g;
  double *c = NULL, *lower = NULL;
  memset (out, 0, sizeof *out);
  if (g->n_outputs < 1)
    return cn_error_set (err, CN_EINVAL, "bounds: the graph has no output");
  int v = g->outputs[0];
  if (trace != NULL)
    trace->iterations = 0;
  if (a->infeasible)
    return cn_error_set (err, CN_EINVAL, "bounds: the domain is empty (no input meets its splits): it has no output box");
  cn_status st = cn_box_copy (out, &a->boxes[v], err);
  if (st != CN_OK)
    goto done;
  if (a->opts.method != CN_METHOD_IBP && a->depends[v])
    {
      int64_t n = out->n;
      c = calloc ((size_t) (n > 0 ? 2 * n : 1) * (size_t) (n > 0 ? n : 1), sizeof *c);
      lower = malloc ((size_t) (n > 0 ? 2 * n : 1) * sizeof *lower);
      if (c == NULL || lower == NULL)
        {
          st = cn_error_set (err, CN_ENOMEM, "bounds: out of memory");
          goto done;
        }
      for (int64_t j = 0; j < n; j++)
        {
          c[(2 * j) * n + j] = 1;
          c[(2 * j + 1) * n + j] = -1;
        }
      if (a->opts.method == CN_METHOD_ALPHA_CROWN)
        st = lower_alpha (a, v, c, 2 * n, NULL, NULL, lower, NULL, trace, err);
      else
        st = cn_analysis_lower (a, v, c, 2 * n, lower, err);
      if (st != CN_OK)
        goto done;
      for (int64_t j = 0; j < n; j++)
        {
          if (lower[2 * j] > out->lo[j])
            out->lo[j] = lower[2 * j];
          if (-lower[2 * j + 1] < out->hi[j])
            out->hi[j] = -lower[2 * j + 1];
        }
    }
done:
  if (st != CN_OK)
    cn_box_clear (out);
  free (c);
  free (lower);
  return st;
}

cn_status
cn_bounds_output (const cn_graph *g, const cn_box *input, const cn_bounds_opts *opts, cn_box *out, cn_error *err)
{
  cn_analysis *a = NULL;
  memset (out, 0, sizeof *out);
  if (g->n_outputs < 1)
    return cn_error_set (err, CN_EINVAL, "bounds: the graph has no output");
  cn_status st = cn_analysis_create (g, input, opts, &a, err);
  if (st == CN_OK)
    st = cn_analysis_output_box (a, out, err);
  cn_analysis_free (a);
  return st;
}
