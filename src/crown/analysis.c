/* SPDX-License-Identifier: MIT */
/* src/crown/analysis.c: the sound box of every value by IBP, CROWN or CROWN-IBP.
 *
 * Nodes are visited in topological order.  Each output gets its IBP box from the boxes of its
 * inputs (which are already as tight as this method makes them).  With CN_METHOD_CROWN, a
 * value read by an operator that relaxes (CN_RULE_NEEDS_BOUNDS: relu, max pooling) is then
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
 * from the graph input is
 * left to IBP, which is then as tight as a sweep (the first affine layer). */
#include <config.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <omp.h>
#include "crown/crown_impl.h"
#include "ibp/ibp_impl.h"

struct cn_analysis
{
  const cn_graph *g;
  cn_bounds_opts opts;
  cn_box *boxes;             /* one per value; a constant's box borrows its data (lo == hi == cdata) */
  unsigned char *depends;    /* value depends on a graph input */
  double seconds;
  int64_t discharged;        /* node outputs the sweeps discharged for want of a relaxation */
  void **memo;               /* one slot per value for the CROWN arms (cn_crown_step.memo) */
};

static double
now (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (double) ts.tv_sec + 1e-9 * (double) ts.tv_nsec;
}

const char *
cn_method_name (cn_method m)
{
  switch (m)
    {
    case CN_METHOD_IBP: return "ibp";
    case CN_METHOD_CROWN: return "crown";
    case CN_METHOD_CROWN_IBP: return "crown-ibp";
    default: return "invalid";
    }
}

cn_status
cn_method_lookup (const char *name, cn_method *m, cn_error *err)
{
  static const cn_method all[] = { CN_METHOD_IBP, CN_METHOD_CROWN, CN_METHOD_CROWN_IBP };
  for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
    if (strcmp (name, cn_method_name (all[i])) == 0)
      {
        *m = all[i];
        return CN_OK;
      }
  return cn_error_set (err, CN_EINVAL, "method: '%s' is not one of ibp, crown, crown-ibp", name);
}

void
cn_bounds_opts_init (cn_bounds_opts *o)
{
  memset (o, 0, sizeof *o);
  o->method = CN_METHOD_CROWN;
  o->threads = 0;
  o->slope = CN_SLOPE_ADAPTIVE;
}

void
cn_analysis_free (cn_analysis *a)
{
  if (a == NULL)
    return;
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
  free (a);
}

const cn_box *
cn_analysis_box (const cn_analysis *a, int v)
{
  return v >= 0 && v < a->g->n_values ? &a->boxes[v] : NULL;
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

/* Rows per sweep when tightening, so that one coefficient block (rows x the widest value that
 * can receive coefficients, i.e. not a constant) stays near 2 MiB, about a core's cache.  Measured
 * on the OVAL21 and MNIST networks, blocks of 32 MiB and more were up to twice as slow (their
 * memory faulted in afresh by every sweep), and blocks of a few rows slower again. */
static int64_t
chunk_rows (const cn_graph *g)
{
  int64_t widest = 1;
  for (int v = 0; v < g->n_values; v++)
    if (!g->values[v].is_constant && g->values[v].numel > widest)
      widest = g->values[v].numel;
  int64_t r = ((int64_t) 2 << 20) / (8 * widest);
  return r < 16 ? 16 : (r & ~(int64_t) 1);
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
    if (g->nodes[k].rule->flags & flag)
      for (int i = 0; i < g->nodes[k].n_in; i++)
        if (g->nodes[k].in[i] == v)
          return 1;
  return 0;
}

/* Tightens the box of value V by CROWN sweeps over the entries worth it. */
static cn_status
tighten (cn_analysis *a, int v, cn_error *err)
{
  const cn_graph *g = a->g;
  cn_box *b = &a->boxes[v];
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
  int64_t chunk = chunk_rows (g);
  if (chunk > 2 * m)
    chunk = 2 * m;
  double *c = calloc ((size_t) chunk * (size_t) n, sizeof *c);
  double *lower = malloc ((size_t) chunk * sizeof *lower);
  cn_status st = CN_OK;
  if (idx == NULL || c == NULL || lower == NULL)
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
      for (int pass = 0; pass < (a->opts.tighten_slopes ? 2 : 1); pass++)
      {
      int slope = pass == 0 ? (int) a->opts.slope : CN_SLOPE_RATIO;
      if (pass > 0 && slope == (int) a->opts.slope)
        continue;
      if ((st = cn__crown_sweep (g, a->boxes, a->depends, v, c, 2 * cnt, a->opts.threads, slope, lower,
                                  NULL, &a->discharged, a->memo, err)) != CN_OK)
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
  if (p < 0 || (g->nodes[p].rule->flags & CN_RULE_NEEDS_BOUNDS))
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
cn_analysis_create (const cn_graph *g, const cn_box *input, const cn_bounds_opts *opts, cn_analysis **out,
                    cn_error *err)
{
  double t0 = now ();
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
  cn_analysis *a = calloc (1, sizeof *a);
  if (a == NULL)
    return cn_error_set (err, CN_ENOMEM, "bounds: out of memory");
  a->g = g;
  if (opts != NULL)
    a->opts = *opts;
  else
    cn_bounds_opts_init (&a->opts);
  if (a->opts.threads <= 0)
    a->opts.threads = omp_get_max_threads ();
  a->boxes = calloc ((size_t) (g->n_values ? g->n_values : 1), sizeof *a->boxes);
  a->depends = calloc ((size_t) (g->n_values ? g->n_values : 1), 1);
  a->memo = calloc ((size_t) (g->n_values ? g->n_values : 1), sizeof *a->memo);
  if (a->boxes == NULL || a->depends == NULL || a->memo == NULL)
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
        }
    }
  for (int k = 0; k < g->n_nodes; k++)
    {
      const struct cn__node *nd = &g->nodes[k];
      for (int o = 0; o < nd->n_out; o++)
        {
          int w = nd->out[o];
          if ((st = cn_box_init (&a->boxes[w], g->values[w].numel, err)) != CN_OK)
            goto fail;
          for (int i = 0; i < nd->n_in; i++)
            a->depends[w] |= a->depends[nd->in[i]];
        }
      if ((st = cn__ibp_node (g, k, a->boxes, err)) != CN_OK)
        goto fail;
      for (int o = 0; o < nd->n_out; o++)
        {
          int w = nd->out[o];
          if (a->opts.method == CN_METHOD_CROWN && a->depends[w] && feeds_relaxation (g, w) && !first_layer (g, w))
            if ((st = tighten (a, w, err)) != CN_OK)
              goto fail;
        }
    }
  a->seconds = now () - t0;
  *out = a;
  return CN_OK;
fail:
  cn_analysis_free (a);
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
  double t0 = now ();
  cn_status st = cn__graph_check_value (a->g, v, "bounds", err);
  if (st != CN_OK)
    return st;
  if ((st = cn_fpenv_check (err)) != CN_OK)
    return st;
  if (rows < 0)
    return cn_error_set (err, CN_EINVAL, "bounds: negative row count");
  int64_t n = a->g->values[v].numel;
  for (int64_t j = 0; j < rows * n; j++)
    if (!isfinite (c[j]))
      return cn_error_set (err, CN_EINVAL, "bounds: coefficient %lld of C is not finite", (long long) j);
  if (rows > 0)
    st = cn__crown_sweep (a->g, a->boxes, a->depends, v, c, rows, a->opts.threads, a->opts.slope, lower, coef,
                          &a->discharged, a->memo, err);
  a->seconds += now () - t0;
  return st;
}

cn_status
cn_analysis_output_box (cn_analysis *a, cn_box *out, cn_error *err)
{
  const cn_graph *g = a->g;
  double *c = NULL, *lower = NULL;
  memset (out, 0, sizeof *out);
  if (g->n_outputs < 1)
    return cn_error_set (err, CN_EINVAL, "bounds: the graph has no output");
  int v = g->outputs[0];
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
      if ((st = cn_analysis_lower (a, v, c, 2 * n, lower, err)) != CN_OK)
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
