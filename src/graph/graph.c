/* SPDX-License-Identifier: MIT */
/* src/graph/graph.c: building and querying graphs. */
#include <config.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "graph/graph_impl.h"

static char *
dup_name (const char *s)
{
  if (s == NULL)
    s = "";
  size_t n = strlen (s);
  char *d = malloc (n + 1);
  if (d != NULL)
    memcpy (d, s, n + 1);
  return d;
}

cn_status
cn_graph_create (cn_graph **out, cn_error *err)
{
  *out = calloc (1, sizeof **out);
  if (*out == NULL)
    return cn_error_set (err, CN_ENOMEM, "graph: out of memory");
  (*out)->head.ops = &cn__graph_program_ops;
  return CN_OK;
}

void
cn_graph_free (cn_graph *g)
{
  if (g == NULL)
    return;
  for (int i = 0; i < g->n_values; i++)
    {
      free (g->values[i].name);
      cn_tensor_clear (&g->values[i].constant);
      free (g->values[i].cdata);
    }
  for (int i = 0; i < g->n_nodes; i++)
    {
      struct cn__node *nd = &g->nodes[i];
      free (nd->params);
      free (nd->name);
      free (nd->in);
      free (nd->in_shape);
      free (nd->in_const);
      free (nd->in_sort);
      free (nd->out);
      free (nd->view);
    }
  free (g->values);
  free (g->nodes);
  free (g->inputs);
  free (g->outputs);
  free (g);
}

cn_status
cn__graph_check_value (const cn_graph *g, int v, const char *who, cn_error *err)
{
  if (v < 0 || v >= g->n_values)
    return cn_error_set (err, CN_EINVAL, "%s: no value %d in the graph", who, v);
  return CN_OK;
}

/* Points the views of ND at the current g->values (which new_value may move, and a graph pass
 * may renumber). */
void
cn__node_refresh_views (cn_graph *g, struct cn__node *nd)
{
  for (int i = 0; i < nd->n_in; i++)
    {
      nd->in_shape[i] = &g->values[nd->in[i]].shape;
      nd->in_const[i] = g->values[nd->in[i]].is_constant ? &g->values[nd->in[i]].constant : NULL;
    }
  for (int k = 0; k < nd->n_out; k++)
    {
      cn_node_view *v = &nd->view[k];
      v->op = nd->op;
      v->rule = nd->rule;
      v->params = nd->params;
      v->n_in = nd->n_in;
      v->in_shape = nd->in_shape;
      v->in_const = nd->in_const;
      v->in_sort = nd->in_sort;
      v->in_value = nd->in;
      v->out_shape = &g->values[nd->out[k]].shape;
      v->out_index = k;
      v->name = nd->name;
    }
}

int
cn__node_reads_boxes (const cn_graph *g, const struct cn__node *nd, unsigned flag)
{
  if (!(nd->rule->flags & flag))
    return 0;
  (void) g;
  return nd->rule->reads_boxes == NULL || nd->rule->reads_boxes (&nd->view[0]);
}

/* Appends a value with the given name, sort and shape; its number goes to *V.  When the value
 * array moves, every node's views are pointed at its new place. */
static cn_status
new_value (cn_graph *g, const char *name, cn_dtype dtype, const cn_shape *shape, int *v, cn_error *err)
{
  if (g->n_values == g->cap_values)
    {
      int cap = g->cap_values ? 2 * g->cap_values : 16;
      struct cn__value *nv = realloc (g->values, (size_t) cap * sizeof *nv);
      if (nv == NULL)
        return cn_error_set (err, CN_ENOMEM, "graph: out of memory");
      int moved = nv != g->values;
      g->values = nv;
      g->cap_values = cap;
      if (moved)
        for (int k = 0; k < g->n_nodes; k++)
          cn__node_refresh_views (g, &g->nodes[k]);
    }
  struct cn__value *val = &g->values[g->n_values];
  memset (val, 0, sizeof *val);
  val->name = dup_name (name);
  if (val->name == NULL)
    return cn_error_set (err, CN_ENOMEM, "graph: out of memory");
  val->dtype = dtype;
  val->shape = *shape;
  val->numel = cn_shape_numel (shape);
  val->producer = -1;
  *v = g->n_values++;
  return CN_OK;
}

cn_status
cn_graph_add_input (cn_graph *g, const char *name, cn_dtype dtype, const cn_shape *shape, int *value,
                    cn_error *err)
{
  if ((unsigned) dtype >= CN_DTYPE_COUNT)
    return cn_error_set (err, CN_EINVAL, "graph: input '%s' has an invalid sort %d", name ? name : "", (int) dtype);
  char what[300];
  snprintf (what, sizeof what, "graph: input '%s'", name ? name : "");
  cn_status lim = cn_shape_check_limit (shape, what, err);
  if (lim != CN_OK)
    return lim;
  int *ni = realloc (g->inputs, (size_t) (g->n_inputs + 1) * sizeof *ni);
  if (ni == NULL)
    return cn_error_set (err, CN_ENOMEM, "graph: out of memory");
  g->inputs = ni;
  int v;
  cn_status st = new_value (g, name, dtype, shape, &v, err);
  if (st != CN_OK)
    return st;
  g->values[v].is_input = 1;
  g->inputs[g->n_inputs++] = v;
  *value = v;
  return CN_OK;
}

cn_status
cn_graph_add_constant (cn_graph *g, const char *name, const cn_tensor *t, int *value, cn_error *err)
{
  char what[300];
  snprintf (what, sizeof what, "graph: constant '%s'", name ? name : "");
  cn_status lim = cn_shape_check_limit (&t->shape, what, err);
  if (lim != CN_OK)
    return lim;
  int64_t n = cn_tensor_numel (t);
  if (cn_dtype_is_float (t->dtype))
    for (int64_t i = 0; i < n; i++)
      {
        double x = cn_tensor_get_f64 (t, i);
        if (!isfinite (x))
          return cn_error_set (err, CN_ENUMERIC, "graph: constant '%s' holds %s at position %lld",
                               name ? name : "", isnan (x) ? "NaN" : "an infinity", (long long) i);
      }
  else
    /* Boxes and MPFI vectors read a constant through its binary64 copy, which must be exact. */
    for (int64_t i = 0; i < n; i++)
      {
        double x = cn_tensor_get_f64 (t, i);
        if (!(fabs (x) <= 0x1p53))
          return cn_error_set (err, CN_EUNSUPPORTED, "graph: constant '%s' holds a %s word beyond 2^53 at position %lld "
                               "(integer constants must be exact in binary64)", name ? name : "",
                               cn_dtype_name (t->dtype), (long long) i);
      }
  int v;
  cn_status st = new_value (g, name, t->dtype, &t->shape, &v, err);
  if (st != CN_OK)
    return st;
  struct cn__value *val = &g->values[v];
  st = cn_tensor_convert (&val->constant, t->dtype, t, err);
  if (st != CN_OK)
    {
      g->n_values--;
      free (val->name);
      return st;
    }
  val->is_constant = 1;
  val->cdata = malloc ((size_t) (n ? n : 1) * sizeof (double));
  if (val->cdata == NULL)
    {
      cn_tensor_clear (&val->constant);
      g->n_values--;
      free (val->name);
      return cn_error_set (err, CN_ENOMEM, "graph: out of memory");
    }
  for (int64_t i = 0; i < n; i++)
    val->cdata[i] = cn_tensor_get_f64 (t, i);
  *value = v;
  return CN_OK;
}

/* The port of a value as the seed prints it: "value [2,3]", "bool [2,3]", "i32 [2,3]". */
static void
port_format (cn_port_kind kind, cn_dtype sort, const cn_shape *shape, char *buf, size_t size)
{
  static const char *const kind_name[] = {
    [CN_PORT_VALUE] = "value", [CN_PORT_FROZEN] = "frozen", [CN_PORT_DETACHED] = "detached", [CN_PORT_INDEX] = "index",
    [CN_PORT_BOOL] = "bool", [CN_PORT_INTEGER] = "integer", [CN_PORT_ANY] = "any",
    [CN_PORT_ELEMENT] = "element",
  };
  char sh[128] = "";
  if (shape != NULL)
    cn_shape_format (shape, sh, sizeof sh);
  if (kind == CN_PORT_INTEGER && (unsigned) sort < CN_DTYPE_COUNT)
    snprintf (buf, size, "integer %s %s", cn_dtype_name (sort), sh);
  else
    snprintf (buf, size, "%s%s%s", (unsigned) kind <= CN_PORT_ELEMENT ? kind_name[kind] : "?", sh[0] ? " " : "", sh);
}

/* Checks that value VAL may sit at input I of RULE: ports of the model's scalar (value, frozen,
 * detached, index) take floating values, bool ports Booleans, integer ports integer words, any
 * ports anything (the rule's out_sort looks closer).  The message names both ports. */
static cn_status
port_accepts (cn_op op, const struct cn_op_rule *rule, int i, const struct cn__value *val, const char *nm,
              cn_error *err)
{
  cn_port_kind want = cn__port_kind (rule, i);
  int is_float = cn_dtype_is_float (val->dtype), is_bool = val->dtype == CN_DTYPE_BOOL;
  int ok = cn__port_accepts (want, val->dtype);
  if (ok)
    return CN_OK;
  cn_port_kind have = is_float ? CN_PORT_VALUE : is_bool ? CN_PORT_BOOL : CN_PORT_INTEGER;
  char a[160], b[160];
  port_format (have, val->dtype, &val->shape, a, sizeof a);
  port_format (want, CN_DTYPE_COUNT, NULL, b, sizeof b);
  return cn_error_set (err, CN_EINVAL, "%s: input %d is at a %s port where a %s port is expected (node '%s')",
                       cn_op_name (op), i, a, b, nm);
}

cn_status
cn_graph_add_node (cn_graph *g, cn_op op, const void *params, int n_in, const int *in, const char *name,
                   int *out, cn_error *err)
{
  const char *nm = name ? name : "";
  if ((unsigned) op >= CN_OP_COUNT)
    return cn_error_set (err, CN_EINVAL, "graph: invalid operator %d at node '%s'", (int) op, nm);
  const struct cn_op_rule *rule = cn__op_rule (op);
  if (rule == NULL)
    return cn_error_set (err, CN_EUNSUPPORTED, "%s: the operator has no rule yet (node '%s')",
                         cn_op_name (op), nm);
  if ((rule->n_in >= 0 && n_in != rule->n_in) || n_in < 1)
    return cn_error_set (err, CN_EINVAL, "%s: node '%s' has %d inputs, the operator takes %d",
                         cn_op_name (op), nm, n_in, rule->n_in);
  size_t params_size = cn_op_params_size (op);   /* the record its ops.def row names */
  if (params_size > 0 && params == NULL)
    return cn_error_set (err, CN_EINVAL, "%s: node '%s' lacks its attribute record", cn_op_name (op), nm);
  const cn_shape **shapes = calloc ((size_t) n_in, sizeof *shapes);
  const cn_tensor **consts = calloc ((size_t) n_in, sizeof *consts);
  int *ins = malloc ((size_t) n_in * sizeof *ins);
  cn_dtype *isorts = malloc ((size_t) (n_in > 0 ? n_in : 1) * sizeof *isorts);
  void *pcopy = NULL;
  int *outs = NULL;
  cn_node_view *views = NULL;
  char *ncopy = dup_name (name);
  cn_status st = CN_OK;
  if (shapes == NULL || consts == NULL || ins == NULL || isorts == NULL || ncopy == NULL)
    {
      st = cn_error_set (err, CN_ENOMEM, "graph: out of memory");
      goto fail;
    }
  for (int i = 0; i < n_in; i++)
    {
      if ((st = cn__graph_check_value (g, in[i], cn_op_name (op), err)) != CN_OK)
        goto fail;
      if ((st = port_accepts (op, rule, i, &g->values[in[i]], nm, err)) != CN_OK)
        goto fail;
      ins[i] = in[i];
      shapes[i] = &g->values[in[i]].shape;
      isorts[i] = cn_dtype_is_float (g->values[in[i]].dtype) && !(rule->flags & CN_RULE_SORTS_LITERAL)
                    ? CN_DTYPE_F64
                    : g->values[in[i]].dtype;
    }
  /* now every input's sort suits its port; the rule decides the output's sort */
  cn_dtype osort = CN_DTYPE_F64;
  if (rule->out_sort != NULL)
    {
      cn_error local;
      cn_error_clear (&local);
      st = rule->out_sort (rule, params, n_in, isorts, &osort, &local);
      if (st != CN_OK)
        {
          cn_error_set (err, st, "%s (node '%s')", local.msg, nm);
          goto fail;
        }
    }
  /* The model's scalar is recorded as the sort of the first floating input (f64 if none), unless
   * the rule declares the sort (CN_RULE_SORTS_LITERAL: cast). */
  cn_dtype osort_float = CN_DTYPE_F64;
  for (int i = 0; i < n_in; i++)
    if (cn_dtype_is_float (g->values[in[i]].dtype))
      {
        osort_float = g->values[in[i]].dtype;
        break;
      }
  if (cn_dtype_is_float (osort) && !(rule->flags & CN_RULE_SORTS_LITERAL))
    osort = osort_float;
  cn_shape oshape;
  memset (&oshape, 0, sizeof oshape);
  cn_error local;
  cn_error_clear (&local);
  if ((st = rule->check (rule, params, n_in, shapes, &oshape, &local)) != CN_OK)
    {
      cn_error_set (err, st, "%s (node '%s')", local.msg, nm);
      goto fail;
    }
  {
    char what[300];
    snprintf (what, sizeof what, "%s: the output of node '%s'", cn_op_name (op), nm);
    if ((st = cn_shape_check_limit (&oshape, what, err)) != CN_OK)
      goto fail;
  }
  if (params_size > 0)
    {
      pcopy = malloc (params_size);
      if (pcopy == NULL)
        {
          st = cn_error_set (err, CN_ENOMEM, "graph: out of memory");
          goto fail;
        }
      memcpy (pcopy, params, params_size);
    }
  if (g->n_nodes == g->cap_nodes)
    {
      int cap = g->cap_nodes ? 2 * g->cap_nodes : 16;
      struct cn__node *nn = realloc (g->nodes, (size_t) cap * sizeof *nn);
      if (nn == NULL)
        {
          st = cn_error_set (err, CN_ENOMEM, "graph: out of memory");
          goto fail;
        }
      g->nodes = nn;
      g->cap_nodes = cap;
    }
  /* The outputs: output 0 as check and out_sort said, the others as out_extra says. */
  int n_out = cn__rule_n_out (rule);
  cn_shape xshape[CN_OP_MAX_OUTPUTS];
  cn_dtype xsort[CN_OP_MAX_OUTPUTS];
  xshape[0] = oshape;
  xsort[0] = osort;
  if (n_out > CN_OP_MAX_OUTPUTS || (n_out > 1 && (rule->out_extra == NULL || rule->out_name == NULL)))
    {
      st = cn_error_set (err, CN_EINVAL, "%s: the rule declares %d outputs without their shapes and names (node '%s')",
                         cn_op_name (op), n_out, nm);
      goto fail;
    }
  for (int k = 1; k < n_out; k++)
    {
      memset (&xshape[k], 0, sizeof xshape[k]);
      xsort[k] = CN_DTYPE_F64;
      cn_error_clear (&local);
      if ((st = rule->out_extra (rule, params, n_in, shapes, k, &xshape[k], &xsort[k], &local)) != CN_OK)
        {
          cn_error_set (err, st, "%s (node '%s')", local.msg, nm);
          goto fail;
        }
      if (cn_dtype_is_float (xsort[k]))
        xsort[k] = osort_float;
    }
  outs = malloc ((size_t) n_out * sizeof *outs);
  views = calloc ((size_t) n_out, sizeof *views);
  if (outs == NULL || views == NULL)
    {
      st = cn_error_set (err, CN_ENOMEM, "graph: out of memory");
      goto fail;
    }
  int first = g->n_values;
  for (int k = 0; k < n_out; k++)
    {
      char xname[256];
      if (k == 0)
        snprintf (xname, sizeof xname, "%s", nm);
      else
        snprintf (xname, sizeof xname, "%s.%s", nm, rule->out_name[k]);
      if ((st = new_value (g, xname, xsort[k], &xshape[k], &outs[k], err)) != CN_OK)
        {
          /* take back the outputs made so far: they belong to no node */
          while (g->n_values > first)
            free (g->values[--g->n_values].name);
          goto fail;
        }
    }
  /* Values may have moved in memory: refresh the shape and constant pointers. */
  for (int i = 0; i < n_in; i++)
    {
      shapes[i] = &g->values[in[i]].shape;
      consts[i] = g->values[in[i]].is_constant ? &g->values[in[i]].constant : NULL;
    }
  struct cn__node *nd = &g->nodes[g->n_nodes];
  memset (nd, 0, sizeof *nd);
  nd->op = op;
  nd->rule = rule;
  nd->params = pcopy;
  nd->name = ncopy;
  nd->n_in = n_in;
  nd->in = ins;
  nd->n_out = n_out;
  nd->out = outs;
  nd->view = views;
  nd->in_shape = shapes;
  nd->in_const = consts;
  nd->in_sort = isorts;
  for (int k = 0; k < n_out; k++)
    g->values[outs[k]].producer = g->n_nodes;
  g->n_nodes++;
  /* The views point into g->values (new_value repoints the other nodes' when it moves): a graph
   * of n nodes costs O(n) view updates, amortised, not O(n^2). */
  cn__node_refresh_views (g, nd);
  if (out != NULL)
    out[0] = outs[0];
  return CN_OK;

fail:
  free (outs);
  free (views);
  free (shapes);
  free (consts);
  free (ins);
  free (isorts);
  free (pcopy);
  free (ncopy);
  return st;
}

cn_status
cn_graph_set_outputs (cn_graph *g, int n, const int *values, cn_error *err)
{
  for (int i = 0; i < n; i++)
    {
      cn_status st = cn__graph_check_value (g, values[i], "graph", err);
      if (st != CN_OK)
        return st;
    }
  int *o = malloc ((size_t) (n ? n : 1) * sizeof *o);
  if (o == NULL)
    return cn_error_set (err, CN_ENOMEM, "graph: out of memory");
  memcpy (o, values, (size_t) n * sizeof *o);
  free (g->outputs);
  g->outputs = o;
  g->n_outputs = n;
  return CN_OK;
}

int cn_graph_n_values (const cn_graph *g) { return g->n_values; }
int cn_graph_n_nodes (const cn_graph *g) { return g->n_nodes; }
int cn_graph_n_inputs (const cn_graph *g) { return g->n_inputs; }
int cn_graph_n_outputs (const cn_graph *g) { return g->n_outputs; }
int cn_graph_input (const cn_graph *g, int i) { return i >= 0 && i < g->n_inputs ? g->inputs[i] : -1; }
int cn_graph_output (const cn_graph *g, int i) { return i >= 0 && i < g->n_outputs ? g->outputs[i] : -1; }

const char *
cn_graph_value_name (const cn_graph *g, int v)
{
  return v >= 0 && v < g->n_values ? g->values[v].name : NULL;
}

const cn_shape *
cn_graph_value_shape (const cn_graph *g, int v)
{
  return v >= 0 && v < g->n_values ? &g->values[v].shape : NULL;
}

cn_dtype
cn_graph_value_dtype (const cn_graph *g, int v)
{
  return v >= 0 && v < g->n_values ? g->values[v].dtype : CN_DTYPE_COUNT;
}

const cn_tensor *
cn_graph_value_constant (const cn_graph *g, int v)
{
  return v >= 0 && v < g->n_values && g->values[v].is_constant ? &g->values[v].constant : NULL;
}

int
cn_graph_value_producer (const cn_graph *g, int v)
{
  return v >= 0 && v < g->n_values ? g->values[v].producer : -1;
}

cn_op cn_graph_node_op (const cn_graph *g, int n) { return n >= 0 && n < g->n_nodes ? g->nodes[n].op : CN_OP_COUNT; }
const char *cn_graph_node_name (const cn_graph *g, int n) { return n >= 0 && n < g->n_nodes ? g->nodes[n].name : NULL; }
int cn_graph_node_n_inputs (const cn_graph *g, int n) { return n >= 0 && n < g->n_nodes ? g->nodes[n].n_in : -1; }

int
cn_graph_node_input (const cn_graph *g, int n, int i)
{
  return n >= 0 && n < g->n_nodes && i >= 0 && i < g->nodes[n].n_in ? g->nodes[n].in[i] : -1;
}

int
cn_graph_node_output (const cn_graph *g, int n, int i)
{
  return n >= 0 && n < g->n_nodes && i >= 0 && i < g->nodes[n].n_out ? g->nodes[n].out[i] : -1;
}

int cn_graph_node_n_outputs (const cn_graph *g, int n) { return n >= 0 && n < g->n_nodes ? g->nodes[n].n_out : -1; }

const void *
cn_graph_node_params (const cn_graph *g, int n)
{
  return n >= 0 && n < g->n_nodes ? g->nodes[n].params : NULL;
}
