/* SPDX-License-Identifier: MIT */
/* src/graph/tape.c: reverse mode over the operator table: the tape, and reverse and forward mode
 * over graphs (cn_graph_vjp, cn_graph_jvp), one engine for all of them.
 *
 * A recording is a graph with a binary64 value for each of its values (Booleans and integer
 * words in their own sorts) and a flag per value, "needs a gradient".  For the composition
 * y = F(x) of the nodes and a seed cotangent w on the value y, the gradient of
 * phi(x) = w . F(x) with respect to a leaf x is  J_F(x)^T w,  computed by the chain rule
 * backwards: every value v gets its cotangent  bar v = d phi / d v  (numel(v) doubles), with
 *     bar y = w,     bar u = sum over the nodes v = f(..., u, ...) that read u at a value port
 *                            of  J_{f,u}(u)^T bar v,
 * and each term J^T bar v is what the node's pullback adds into bar u.
 *
 * Flags.  A leaf needs a gradient if its caller says so; a constant never does; a node's output
 * does iff it is of the model's scalar and some input at a VALUE port needs one (node_active).
 * Frozen, detached, index, Boolean, integer and any ports pass nothing back, and a Boolean or
 * integer output (a comparison, a cast) stops every gradient: its cotangent would be
 * meaningless.  So bar u is only ever formed for values that need a gradient, and a node is only
 * asked for its pullback when its output has a cotangent.
 *
 * The sweep (sweep below), shared by the tape, cn_graph_vjp (hence cn_graph_gradient) and the
 * custom operator's pullback:
 *   1. Reach.  A value is reached if it needs a gradient and the seed's value depends on it
 *      through value ports (a walk backwards from the seed).  Every reached node must have a
 *      pullback: one without is CN_EUNSUPPORTED before any cotangent is touched.
 *   2. Backward.  Nodes are added after the values they read, so the reverse of the node order is
 *      a reverse topological order: when a node is reached its output's cotangent is complete.
 *      The node's pullback receives a cotangent (allocated, zero, on first use) for each input
 *      at a value port that needs a gradient and NULL for every other; it adds its products
 *      there.  The output's cotangent is then freed, unless it belongs to the caller (a leaf's
 *      accumulated gradient, a G_X[i] of cn_graph_vjp).
 * After the sweep, bar x = J_F(x)^T w has been added into the buffer of every leaf x that needs
 * a gradient.
 *
 * Forward mode (cn_graph_jvp) is the mirror image: tangents pushed in node order through the
 * jvp arms of the nodes whose output carries one, with the same flags.
 *
 * Everything is round-to-nearest binary64: a floating-point tool for attacks and heuristics,
 * with no soundness claim. */
#include <config.h>
#include <stdlib.h>
#include <string.h>
#include "certnn/tape.h"
#include "graph/graph_impl.h"

/* ---- the shared engine ------------------------------------------------------------------ */

/* The sort a value of sort D is held in: binary64 for the model's scalar, its own otherwise. */
static cn_dtype
held_sort (cn_dtype d)
{
  return cn_dtype_is_float (d) ? CN_DTYPE_F64 : d;
}

/* Points T at the value of the constant CV without copying it: the graph's exact binary64
 * copy for a floating constant, the words themselves for a Boolean or integer one. */
static void
borrow_constant (const struct cn__value *cv, cn_tensor *t)
{
  if (cn_dtype_is_float (cv->dtype))
    {
      t->dtype = CN_DTYPE_F64;
      t->shape = cv->shape;
      t->data = cv->cdata;
    }
  else
    *t = cv->constant;
}

/* The largest input count of a node of G (at least 1). */
static int
max_inputs (const cn_graph *g)
{
  int m = 1;
  for (int k = 0; k < g->n_nodes; k++)
    if (g->nodes[k].n_in > m)
      m = g->nodes[k].n_in;
  return m;
}

/* Evaluates node ND of G through its forward arm, its inputs' values in VAL: initialises
 * VAL[out_k] of every output k in the output's held sort and fills it (one forward call per
 * output).  ARGS has room for the node's inputs.  On failure the outputs are left clear. */
static cn_status
forward_node (const cn_graph *g, const struct cn__node *nd, cn_tensor *val, const cn_tensor **args, cn_error *err)
{
  if (nd->rule->forward == NULL)
    return cn_error_set (err, CN_EUNSUPPORTED, "%s: no forward rule (node '%s')", cn_op_name (nd->op), nd->name);
  for (int i = 0; i < nd->n_in; i++)
    args[i] = &val[nd->in[i]];
  cn_status st = CN_OK;
  for (int o = 0; o < nd->n_out && st == CN_OK; o++)
    {
      const struct cn__value *ov = &g->values[nd->out[o]];
      st = cn_tensor_init (&val[nd->out[o]], held_sort (ov->dtype), &ov->shape, err);
      if (st == CN_OK)
        st = nd->rule->forward (&nd->view[o], args, &val[nd->out[o]], err);
    }
  if (st != CN_OK)
    for (int o = 0; o < nd->n_out; o++)
      cn_tensor_clear (&val[nd->out[o]]);
  return st;
}


/* Whether input I of ND passes gradients and tangents: a value port (or an element port) reading
 * a value of the model's scalar whose flag
 * (FLAGS[v] & MASK) is set. */
static int
passes (const cn_graph *g, const struct cn__node *nd, int i, const unsigned char *flags, unsigned mask)
{
  return cn__port_differentiable (nd->rule, i, g->values[nd->in[i]].dtype) && (flags[nd->in[i]] & mask) != 0;
}

/* Whether output O of ND needs a gradient: it is a value output (not an index tensor) of the
 * model's scalar, and some input passes. */
static int
node_active (const cn_graph *g, const struct cn__node *nd, int o, const unsigned char *flags, unsigned mask)
{
  if (!cn_dtype_is_float (g->values[nd->out[o]].dtype) || !cn__out_differentiable (nd->rule, o))
    return 0;
  for (int i = 0; i < nd->n_in; i++)
    if (passes (g, nd, i, flags, mask))
      return 1;
  return 0;
}

/* A zero cotangent of N entries (at least one double, so that an empty value has a buffer). */
static double *
zeros (int64_t n)
{
  return calloc ((size_t) (n > 0 ? n : 1), sizeof (double));
}

/* The reverse sweep over the first N_NODES nodes of G (see the top), from the value SEED_V with
 * the cotangent SEED (numel doubles, NULL: all ones).  VAL holds the values the pullbacks read
 * (every input and output of a node the seed depends on); FLAGS[v] & MASK says whether v needs a
 * gradient.  COT has one entry per value of G, NULL except where KEEP[v] is set: those are the
 * caller's buffers, into which the gradients are added; every other cotangent is allocated and
 * freed here. */
static cn_status
sweep (const cn_graph *g, int n_nodes, const cn_tensor *val, const unsigned char *flags, unsigned mask, int seed_v,
       const double *seed, double **cot, const unsigned char *keep, cn_error *err)
{
  if (!(flags[seed_v] & mask) || !cn_dtype_is_float (g->values[seed_v].dtype))
    return CN_OK;                       /* nothing the seed depends on needs a gradient */
  cn_status st = CN_OK;
  int nv = g->n_values, max_in = max_inputs (g);
  unsigned char *reach = calloc ((size_t) nv, 1);
  const cn_tensor **args = malloc ((size_t) max_in * sizeof *args);
  double **g_in = malloc ((size_t) max_in * sizeof *g_in);
  if (reach == NULL || args == NULL || g_in == NULL)
    goto nomem;

  /* 1. Reach: backwards from the seed through value ports to values that need a gradient. */
  reach[seed_v] = 1;
  for (int k = n_nodes - 1; k >= 0; k--)
    {
      const struct cn__node *nd = &g->nodes[k];
      if (!cn__node_any_out (nd, reach))
        continue;
      if (nd->rule->pullback == NULL)
        {
          st = cn_error_set (err, CN_EUNSUPPORTED, "%s: no pullback (node '%s')", cn_op_name (nd->op), nd->name);
          goto done;
        }
      for (int i = 0; i < nd->n_in; i++)
        if (passes (g, nd, i, flags, mask))
          reach[nd->in[i]] = 1;
    }
  /* now every reached node has a pullback, and every reached value needs a gradient */

  /* 2. Backward: bar seed += SEED, then the reached nodes in reverse order. */
  int64_t ns = g->values[seed_v].numel;
  if (cot[seed_v] == NULL && (cot[seed_v] = zeros (ns)) == NULL)
    goto nomem;
  for (int64_t j = 0; j < ns; j++)
    cot[seed_v][j] += seed != NULL ? seed[j] : 1.0;
  for (int k = n_nodes - 1; k >= 0; k--)
    {
      const struct cn__node *nd = &g->nodes[k];
      if (!cn__node_any_out (nd, reach))
        continue;
      for (int i = 0; i < nd->n_in; i++)
        {
          int u = nd->in[i];
          args[i] = &val[u];
          g_in[i] = NULL;
          if (!passes (g, nd, i, flags, mask))
            continue;
          if (cot[u] == NULL && (cot[u] = zeros (g->values[u].numel)) == NULL)
            goto nomem;
          g_in[i] = cot[u];
        }
      /* One pullback per reached output: the node's vector-Jacobian product is the sum over its
       * outputs (an index output is never reached: its flag is off). */
      for (int o = 0; o < nd->n_out; o++)
        {
          int w = nd->out[o];
          if (!reach[w])
            continue;
          if (cot[w] == NULL)
            {
              /* Cannot happen: a reached value is the seed or read by a reached node, which allocated it. */
              st = cn_error_set (err, CN_EINVAL, "gradient: internal error, no cotangent for node '%s'", nd->name);
              goto done;
            }
          if ((st = nd->rule->pullback (&nd->view[o], args, &val[w], cot[w], g_in, err)) != CN_OK)
            goto done;
          if (!keep[w])
            {
              free (cot[w]);
              cot[w] = NULL;
            }
        }
      /* now bar u has received sum_o J_{f_o,u}^T bar v_o for every input u that passes */
    }
  /* now the caller's buffers hold what they held plus J^T SEED */
  goto done;

nomem:
  st = cn_error_set (err, CN_ENOMEM, "gradient: out of memory");
done:
  for (int v = 0; v < nv; v++)
    if (!keep[v])
      {
        free (cot[v]);
        cot[v] = NULL;
      }
  free (reach);
  free (args);
  free (g_in);
  return st;
}

/* ---- reverse and forward mode over a graph ------------------------------------------------ */

/* The binary64 evaluation shared by cn_graph_vjp and cn_graph_jvp: VAL[v] for every value v
 * that output value YV depends on (NEEDED[v] set here), inputs from X (borrowed when floating,
 * BORROWED[v] set), constants borrowed from the graph, nodes through their forward arms.
 * WHO names the caller in messages. */
static cn_status
evaluate (const cn_graph *g, const double *const *x, int yv, cn_tensor *val, unsigned char *needed,
          unsigned char *borrowed, const char *who, cn_error *err)
{
  cn_status st = CN_OK;
  const cn_tensor **args = malloc ((size_t) max_inputs (g) * sizeof *args);
  if (args == NULL)
    return cn_error_set (err, CN_ENOMEM, "%s: out of memory", who);
  cn__graph_mark_needed (g, yv, needed);
  for (int i = 0; i < g->n_inputs; i++)
    {
      int v = g->inputs[i];
      const struct cn__value *iv = &g->values[v];
      if (!needed[v])
        continue;
      if (iv->numel > 0 && (x == NULL || x[i] == NULL))
        {
          st = cn_error_set (err, CN_EINVAL, "%s: no point for input %d ('%s')", who, i, iv->name);
          goto done;
        }
      cn_tensor wrap = { .dtype = CN_DTYPE_F64, .shape = iv->shape, .data = x != NULL ? (void *) x[i] : NULL };
      if (cn_dtype_is_float (iv->dtype))
        {
          val[v] = wrap;               /* read in place: the engine never writes an input */
          borrowed[v] = 1;
        }
      else if ((st = cn_tensor_convert (&val[v], iv->dtype, &wrap, err)) != CN_OK)
        goto done;
    }
  for (int v = 0; v < g->n_values; v++)
    if (needed[v] && g->values[v].is_constant)
      {
        borrow_constant (&g->values[v], &val[v]);
        borrowed[v] = 1;
      }
  for (int k = 0; k < g->n_nodes; k++)
    {
      const struct cn__node *nd = &g->nodes[k];
      if (cn__node_any_out (nd, needed) && (st = forward_node (g, nd, val, args, err)) != CN_OK)
        goto done;
    }
  /* now val[v] = v(x) for every value v output YV depends on */
done:
  free (args);
  return st;
}

/* Releases the values of evaluate. */
static void
release (const cn_graph *g, cn_tensor *val, const unsigned char *borrowed)
{
  if (val == NULL)
    return;
  for (int v = 0; v < g->n_values; v++)
    if (borrowed == NULL || !borrowed[v])
      cn_tensor_clear (&val[v]);
}

cn_status
cn_graph_vjp (const cn_graph *g, const double *const *x, int output, const double *w, double *y,
              double *const *g_x, cn_error *err)
{
  if (g == NULL || w == NULL)
    return cn_error_set (err, CN_EINVAL, "vjp: NULL argument");
  if (output < 0 || output >= g->n_outputs)
    return cn_error_set (err, CN_EINVAL, "vjp: no output %d (the graph has %d)", output, g->n_outputs);
  cn_status st = CN_OK;
  int nv = g->n_values, yv = g->outputs[output];
  size_t na = (size_t) (nv > 0 ? nv : 1);
  cn_tensor *val = calloc (na, sizeof *val);
  double **cot = calloc (na, sizeof *cot);
  unsigned char *needed = calloc (na, 1), *borrowed = calloc (na, 1), *act = calloc (na, 1), *keep = calloc (na, 1);
  if (val == NULL || cot == NULL || needed == NULL || borrowed == NULL || act == NULL || keep == NULL)
    {
      st = cn_error_set (err, CN_ENOMEM, "vjp: out of memory");
      goto done;
    }
  if ((st = evaluate (g, x, yv, val, needed, borrowed, "vjp", err)) != CN_OK)
    goto done;
  /* Flags: an input needs a gradient if the caller gave it a buffer; nodes by node_active. */
  for (int i = 0; i < g->n_inputs; i++)
    {
      int v = g->inputs[i];
      if (needed[v] && g_x != NULL && g_x[i] != NULL && cn_dtype_is_float (g->values[v].dtype))
        {
          act[v] = 1;
          cot[v] = g_x[i];
          keep[v] = 1;
        }
    }
  for (int k = 0; k < g->n_nodes; k++)
    {
      const struct cn__node *nd = &g->nodes[k];
      int need = cn__node_any_out (nd, needed);
      for (int o = 0; o < nd->n_out; o++)
        act[nd->out[o]] = need && node_active (g, nd, o, act, 1);
    }
  if (y != NULL)
    for (int64_t j = 0; j < g->values[yv].numel; j++)
      y[j] = cn_tensor_get_f64 (&val[yv], j);
  st = sweep (g, g->n_nodes, val, act, 1, yv, w, cot, keep, err);
  /* now g_x[i] holds what it held plus the gradient of w . output with respect to input i */
done:
  release (g, val, borrowed);
  free (val);
  free (cot);
  free (needed);
  free (borrowed);
  free (act);
  free (keep);
  return st;
}

cn_status
cn_graph_jvp (const cn_graph *g, const double *const *x, const double *const *t_x, int output, double *y,
              double *t_y, cn_error *err)
{
  if (g == NULL || t_y == NULL)
    return cn_error_set (err, CN_EINVAL, "jvp: NULL argument");
  if (output < 0 || output >= g->n_outputs)
    return cn_error_set (err, CN_EINVAL, "jvp: no output %d (the graph has %d)", output, g->n_outputs);
  cn_status st = CN_OK;
  int nv = g->n_values, yv = g->outputs[output];
  size_t na = (size_t) (nv > 0 ? nv : 1);
  cn_tensor *val = calloc (na, sizeof *val);
  double **tan = calloc (na, sizeof *tan);
  unsigned char *needed = calloc (na, 1), *borrowed = calloc (na, 1), *has = calloc (na, 1), *own = calloc (na, 1);
  const double **t_in = malloc ((size_t) max_inputs (g) * sizeof *t_in);
  const cn_tensor **args = malloc ((size_t) max_inputs (g) * sizeof *args);
  if (val == NULL || tan == NULL || needed == NULL || borrowed == NULL || has == NULL || own == NULL || t_in == NULL
      || args == NULL)
    {
      st = cn_error_set (err, CN_ENOMEM, "jvp: out of memory");
      goto done;
    }
  if ((st = evaluate (g, x, yv, val, needed, borrowed, "jvp", err)) != CN_OK)
    goto done;
  for (int i = 0; i < g->n_inputs; i++)
    {
      int v = g->inputs[i];
      if (needed[v] && t_x != NULL && t_x[i] != NULL && cn_dtype_is_float (g->values[v].dtype))
        {
          tan[v] = (double *) t_x[i];   /* read only */
          has[v] = 1;
        }
    }
  for (int k = 0; k < g->n_nodes; k++)
    {
      const struct cn__node *nd = &g->nodes[k];
      if (!cn__node_any_out (nd, needed))
        continue;
      for (int o = 0; o < nd->n_out; o++)
        {
          int w = nd->out[o];
          if (!needed[w] || !node_active (g, nd, o, has, 1))
            continue;               /* an index output's tangent is zero: it has none */
          if (nd->rule->jvp == NULL)
            {
              st = cn_error_set (err, CN_EUNSUPPORTED, "%s: no jvp (node '%s')", cn_op_name (nd->op), nd->name);
              goto done;
            }
          for (int i = 0; i < nd->n_in; i++)
            {
              args[i] = &val[nd->in[i]];
              t_in[i] = passes (g, nd, i, has, 1) ? tan[nd->in[i]] : NULL;
            }
          int64_t no = g->values[w].numel;
          if ((tan[w] = malloc ((size_t) (no > 0 ? no : 1) * sizeof (double))) == NULL)
            {
              st = cn_error_set (err, CN_ENOMEM, "jvp: out of memory");
              goto done;
            }
          own[w] = 1;
          if ((st = nd->rule->jvp (&nd->view[o], args, &val[w], t_in, tan[w], err)) != CN_OK)
            goto done;
          has[w] = 1;
          /* now tan[w] = sum over the inputs that pass of J_{f_o,u} tan[u] */
        }
    }
  int64_t ny = g->values[yv].numel;
  for (int64_t j = 0; j < ny; j++)
    {
      if (y != NULL)
        y[j] = cn_tensor_get_f64 (&val[yv], j);
      t_y[j] = has[yv] ? tan[yv][j] : 0;
    }
done:
  release (g, val, borrowed);
  if (tan != NULL && own != NULL)
    for (int v = 0; v < nv; v++)
      if (own[v])
        free (tan[v]);
  free (val);
  free (tan);
  free (needed);
  free (borrowed);
  free (has);
  free (own);
  free (t_in);
  free (args);
  return st;
}

/* ---- the tape ----------------------------------------------------------------------------- */

enum
{
  HELD = 1u << 0,       /* val[v] is computed */
  BORROWED = 1u << 1,   /* val[v] points into the graph (a constant) */
  NEEDS = 1u << 2       /* v needs a gradient */
};

struct cn_tape
{
  cn_graph *g;          /* the recording: leaves are its inputs, applications its nodes */
  int cap;              /* entries of the arrays below (>= g->n_values) */
  cn_tensor *val;       /* the values, binary64 for the model's scalar */
  unsigned char *state; /* HELD, BORROWED, NEEDS per value */
  double **grad;        /* the accumulated gradient of a leaf that needs one, else NULL */
};

cn_status
cn_tape_create (cn_tape **out, cn_error *err)
{
  if (out == NULL)
    return cn_error_set (err, CN_EINVAL, "tape: NULL argument");
  cn_tape *t = calloc (1, sizeof *t);
  if (t == NULL)
    return cn_error_set (err, CN_ENOMEM, "tape: out of memory");
  cn_status st = cn_graph_create (&t->g, err);
  if (st != CN_OK)
    {
      free (t);
      return st;
    }
  *out = t;
  return CN_OK;
}

void
cn_tape_free (cn_tape *t)
{
  if (t == NULL)
    return;
  for (int v = 0; v < t->cap; v++)
    {
      if (!(t->state[v] & BORROWED))
        cn_tensor_clear (&t->val[v]);
      free (t->grad[v]);
    }
  free (t->val);
  free (t->state);
  free (t->grad);
  cn_graph_free (t->g);
  free (t);
}

/* Makes room for N values in the arrays (new entries zero). */
static cn_status
reserve (cn_tape *t, int n, cn_error *err)
{
  if (n <= t->cap)
    return CN_OK;
  int cap = t->cap > 0 ? t->cap : 16;
  while (cap < n)
    cap *= 2;
  cn_tensor *val = realloc (t->val, (size_t) cap * sizeof *val);
  if (val != NULL)
    t->val = val;
  unsigned char *state = realloc (t->state, (size_t) cap);
  if (state != NULL)
    t->state = state;
  double **grad = realloc (t->grad, (size_t) cap * sizeof *grad);
  if (grad != NULL)
    t->grad = grad;
  if (val == NULL || state == NULL || grad == NULL)
    return cn_error_set (err, CN_ENOMEM, "tape: out of memory");
  memset (t->val + t->cap, 0, (size_t) (cap - t->cap) * sizeof *val);
  memset (t->state + t->cap, 0, (size_t) (cap - t->cap));
  memset (t->grad + t->cap, 0, (size_t) (cap - t->cap) * sizeof *grad);
  t->cap = cap;
  return CN_OK;
}

cn_status
cn_tape_leaf (cn_tape *t, const char *name, const cn_tensor *x, int needs_grad, int *ref, cn_error *err)
{
  const char *nm = name ? name : "";
  if (t == NULL || x == NULL || ref == NULL)
    return cn_error_set (err, CN_EINVAL, "tape: NULL argument");
  if ((unsigned) x->dtype >= CN_DTYPE_COUNT)
    return cn_error_set (err, CN_EINVAL, "tape: leaf '%s' has an invalid sort %d", nm, (int) x->dtype);
  if (needs_grad && !cn_dtype_is_float (x->dtype))
    return cn_error_set (err, CN_EINVAL, "tape: leaf '%s' of sort %s cannot need a gradient (only values of the "
                         "model's scalar can)", nm, cn_dtype_name (x->dtype));
  int64_t n = cn_tensor_numel (x);
  if (n < 0)
    return cn_error_set (err, CN_EINVAL, "tape: leaf '%s' has an invalid shape", nm);
  cn_status st = reserve (t, t->g->n_values + 1, err);
  if (st != CN_OK)
    return st;
  cn_tensor v;
  double *gr = NULL;
  if ((st = cn_tensor_convert (&v, held_sort (x->dtype), x, err)) != CN_OK)
    return st;
  if (needs_grad && (gr = zeros (n)) == NULL)
    {
      cn_tensor_clear (&v);
      return cn_error_set (err, CN_ENOMEM, "tape: out of memory");
    }
  int idx;
  if ((st = cn_graph_add_input (t->g, name, x->dtype, &x->shape, &idx, err)) != CN_OK)
    {
      cn_tensor_clear (&v);
      free (gr);
      return st;
    }
  t->val[idx] = v;
  t->state[idx] = HELD | (needs_grad ? NEEDS : 0);
  t->grad[idx] = gr;
  *ref = idx;
  return CN_OK;
}

cn_status
cn_tape_constant (cn_tape *t, const char *name, const cn_tensor *x, int *ref, cn_error *err)
{
  if (t == NULL || x == NULL || ref == NULL)
    return cn_error_set (err, CN_EINVAL, "tape: NULL argument");
  cn_status st = reserve (t, t->g->n_values + 1, err);
  int idx;
  if (st != CN_OK || (st = cn_graph_add_constant (t->g, name, x, &idx, err)) != CN_OK)
    return st;
  borrow_constant (&t->g->values[idx], &t->val[idx]);
  t->state[idx] = HELD | BORROWED;
  *ref = idx;
  return CN_OK;
}

cn_status
cn_tape_apply (cn_tape *t, cn_op op, const void *params, int n_in, const int *in, const char *name, int *ref,
               cn_error *err)
{
  const char *nm = name ? name : "";
  if (t == NULL || ref == NULL || (n_in > 0 && in == NULL))
    return cn_error_set (err, CN_EINVAL, "tape: NULL argument");
  for (int i = 0; i < n_in; i++)
    if (in[i] < 0 || in[i] >= t->g->n_values || !(t->state[in[i]] & HELD))
      return cn_error_set (err, CN_EINVAL, "tape: input %d of node '%s' (reference %d) is not a value of the tape", i,
                           nm, in[i]);
  cn_status st = reserve (t, t->g->n_values + 1, err);
  if (st != CN_OK)
    return st;
  /* The graph builder checks the operator, its attributes, each input against its port, the
   * output's sort and the shapes. */
  int outs[8];
  if ((st = cn_graph_add_node (t->g, op, params, n_in, in, name, outs, err)) != CN_OK)
    return st;
  if ((st = reserve (t, t->g->n_values, err)) != CN_OK)
    return st;
  const struct cn__node *nd = &t->g->nodes[t->g->n_nodes - 1];
  const cn_tensor *stack_args[8];
  const cn_tensor **args = nd->n_in <= 8 ? stack_args : malloc ((size_t) nd->n_in * sizeof *args);
  if (args == NULL)
    return cn_error_set (err, CN_ENOMEM, "tape: out of memory");
  st = forward_node (t->g, nd, t->val, args, err);
  if (args != stack_args)
    free (args);
  if (st != CN_OK)
    return st;                          /* the output stays without value: no later node reads it */
  for (int o = 0; o < nd->n_out; o++)
    t->state[nd->out[o]] = HELD | (node_active (t->g, nd, o, t->state, NEEDS) ? NEEDS : 0);
  *ref = nd->out[0];
  return CN_OK;
}

const cn_tensor *
cn_tape_value (const cn_tape *t, int ref)
{
  if (t == NULL || ref < 0 || ref >= t->g->n_values || !(t->state[ref] & HELD))
    return NULL;
  return &t->val[ref];
}

int
cn_tape_needs_grad (const cn_tape *t, int ref)
{
  if (t == NULL || ref < 0 || ref >= t->g->n_values)
    return 0;
  return (t->state[ref] & NEEDS) != 0;
}

const cn_graph *
cn_tape_graph (const cn_tape *t)
{
  return t != NULL ? t->g : NULL;
}

cn_status
cn_tape_backward (cn_tape *t, int ref, const double *seed, cn_error *err)
{
  if (t == NULL)
    return cn_error_set (err, CN_EINVAL, "tape: NULL argument");
  if (ref < 0 || ref >= t->g->n_values || !(t->state[ref] & HELD))
    return cn_error_set (err, CN_EINVAL, "tape: backward from %d, which is not a value of the tape", ref);
  int nv = t->g->n_values;
  double **cot = calloc ((size_t) nv, sizeof *cot);
  unsigned char *keep = calloc ((size_t) nv, 1);
  if (cot == NULL || keep == NULL)
    {
      free (cot);
      free (keep);
      return cn_error_set (err, CN_ENOMEM, "tape: out of memory");
    }
  /* The leaves' accumulated gradients are the sweep's own buffers: it adds into them. */
  for (int v = 0; v < nv; v++)
    if (t->grad[v] != NULL)
      {
        cot[v] = t->grad[v];
        keep[v] = 1;
      }
  cn_status st = sweep (t->g, t->g->n_nodes, t->val, t->state, NEEDS, ref, seed, cot, keep, err);
  free (cot);
  free (keep);
  return st;
}

const double *
cn_tape_grad (const cn_tape *t, int leaf)
{
  if (t == NULL || leaf < 0 || leaf >= t->g->n_values)
    return NULL;
  return t->grad[leaf];
}

void
cn_tape_zero_grad (cn_tape *t)
{
  if (t == NULL)
    return;
  for (int v = 0; v < t->g->n_values; v++)
    if (t->grad[v] != NULL)
      memset (t->grad[v], 0, (size_t) t->g->values[v].numel * sizeof (double));
}
