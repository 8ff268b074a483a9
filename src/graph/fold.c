/* SPDX-License-Identifier: MIT */
/* src/graph/fold.c: constant folding, a graph pass (what is folded: graph_impl.h).
 *
 * Let v = f(c_1, ..., c_n) be a node whose inputs are all constants.  Its outputs are computed
 * by the rule's forward in binary64, the evaluation cn_graph_eval makes: y = fl(f(c)).  Then:
 *   - an output of Booleans or integer words is f(c) itself (the words' arithmetic is exact by
 *     definition: two's complement, certnn/ops.h "element sorts"), and becomes a constant of
 *     its sort where every word is exact in binary64 (|w| <= 2^53, as cn_graph_add_constant
 *     asks, since boxes read constants there);
 *   - an output of the model's scalar becomes a constant only where y = f(c) exactly in the
 *     reals: the rule's MPFI arm at FOLD_PREC bits over the same constants (the point
 *     evaluation of cn__graph_mpfi) must be a point interval [y_j, y_j] for every entry j.
 *     Since the arm encloses f(c), the enclosure being the point y_j proves f(c)_j = y_j.  The
 *     movement family (reshape, permute, broadcast, flip, pad, cat: certnn/ops.h) copies its
 *     entries (and pad's value, a binary64 attribute), so its outputs are exact without the
 *     check.  Every entry must be finite, as a constant's must.
 * The random family is never folded: a draw is a function of its key, a graph value meant to be
 * computed or swept (certnn/ops.h), and its arms bound it as such.
 * A node that cannot be folded so (an output that would round, an operator without a forward
 * or an MPFI arm) stays in the graph: its bounds come from its arms like any other node's.  The
 * bounds then hold for the same exact network either way, since a folded constant is the
 * node's exact value.
 *
 * Folding turns the node's outputs into constants in place (their numbers and names stay) and
 * removes the node; cn__graph_prune then drops the constants nothing reads any more. */
#include <config.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "graph/graph_impl.h"

#define FOLD_PREC 512

/* Whether every input of ND is a constant. */
static int
inputs_constant (const cn_graph *g, const struct cn__node *nd)
{
  for (int i = 0; i < nd->n_in; i++)
    if (!g->values[nd->in[i]].is_constant)
      return 0;
  return 1;
}

/* The sort an output value is held in by an evaluation in binary64. */
static cn_dtype
eval_sort (const struct cn__value *v)
{
  return cn_dtype_is_float (v->dtype) ? CN_DTYPE_F64 : v->dtype;
}

/* Evaluates node K of G (every input a constant) through its rule's forward in binary64, as
 * cn_graph_eval does: the model's scalar read from the constants' exact binary64 copies, the
 * other sorts as stored.  RES[o] (initialised here, n_out entries) receives output o; on failure
 * none is left initialised. */
static cn_status
node_forward (const cn_graph *g, int k, cn_tensor *res, cn_error *err)
{
  const struct cn__node *nd = &g->nodes[k];
  cn_tensor *arg = calloc ((size_t) nd->n_in, sizeof *arg);
  const cn_tensor **args = calloc ((size_t) nd->n_in, sizeof *args);
  cn_status st = CN_OK;
  int o = 0;
  if (arg == NULL || args == NULL)
    {
      st = cn_error_set (err, CN_ENOMEM, "fold: out of memory");
      goto done;
    }
  for (int i = 0; i < nd->n_in; i++)
    {
      const struct cn__value *u = &g->values[nd->in[i]];
      if (cn_dtype_is_float (u->dtype))
        {
          /* the exact binary64 copy, borrowed (never cleared here) */
          arg[i].dtype = CN_DTYPE_F64;
          arg[i].shape = u->shape;
          arg[i].data = u->cdata;
          args[i] = &arg[i];
        }
      else
        args[i] = &u->constant;
    }
  for (o = 0; o < nd->n_out; o++)
    {
      const struct cn__value *ov = &g->values[nd->out[o]];
      if ((st = cn_tensor_init (&res[o], eval_sort (ov), &ov->shape, err)) != CN_OK)
        goto done;
      if ((st = nd->rule->forward (&nd->view[o], args, &res[o], err)) != CN_OK)
        {
          o++;
          goto done;
        }
    }
done:
  if (st != CN_OK)
    for (int j = 0; j < o; j++)
      cn_tensor_clear (&res[j]);
  free (arg);
  free (args);
  return st;
}

/* *EXACT = whether the MPFI arm of node K, over its constant inputs, encloses every entry of
 * each floating output o as the point RES[o] (the binary64 forward): the point evaluation
 * through cn__graph_mpfi of a copy of the node over copies of its inputs.  An operator without an
 * MPFI arm, or one that refuses the point, leaves *EXACT = 0 (the node stays; no error); running out
 * of memory is CN_ENOMEM. */
static cn_status
mpfi_agrees (const cn_graph *g, int k, const cn_tensor *res, int *exact, cn_error *err)
{
  const struct cn__node *nd = &g->nodes[k];
  cn_graph *s = NULL;
  int *iv = malloc ((size_t) nd->n_in * sizeof *iv), first;
  cn_status st;
  *exact = 0;
  if (iv == NULL)
    return cn_error_set (err, CN_ENOMEM, "fold: out of memory");
  if ((st = cn_graph_create (&s, err)) != CN_OK)
    goto done;
  for (int i = 0; i < nd->n_in; i++)
    {
      const struct cn__value *u = &g->values[nd->in[i]];
      if ((st = cn_graph_add_constant (s, u->name, &u->constant, &iv[i], err)) != CN_OK)
        goto done;
    }
  if ((st = cn_graph_add_node (s, nd->op, nd->params, nd->n_in, iv, nd->name, &first, err)) != CN_OK)
    goto done;
  int outs[CN_OP_MAX_OUTPUTS];
  for (int o = 0; o < nd->n_out; o++)
    outs[o] = first + o;
  if ((st = cn_graph_set_outputs (s, nd->n_out, outs, err)) != CN_OK)
    goto done;
  int agree = 1;
  for (int o = 0; o < nd->n_out && agree; o++)
    {
      if (!cn_dtype_is_float (g->values[nd->out[o]].dtype))
        continue;
      cn_mpfi_vec y;
      cn_error local;
      cn_error_clear (&local);
      if ((st = cn_mpfi_vec_init (&y, cn_tensor_numel (&res[o]), FOLD_PREC, err)) != CN_OK)
        goto done;
      cn_status e = cn__graph_mpfi (s, NULL, o, FOLD_PREC, &y, &local);
      if (e == CN_ENOMEM)
        {
          /* out of memory is not "cannot be folded": it ends the call, as any other would */
          cn_mpfi_vec_clear (&y);
          st = cn_error_set (err, CN_ENOMEM, "%s", local.msg);
          goto done;
        }
      if (e != CN_OK)
        agree = 0;
      const double *d = res[o].data;
      for (int64_t j = 0; j < y.n && agree; j++)
        agree = !mpfr_nan_p (&y.v[j]->left) && mpfr_cmp (&y.v[j]->left, &y.v[j]->right) == 0
          && mpfr_cmp_d (&y.v[j]->left, d[j]) == 0;
      /* now, where agree, f(c)_j = d[j] exactly for every entry j checked */
      cn_mpfi_vec_clear (&y);
    }
  *exact = agree;
done:
  cn_graph_free (s);
  free (iv);
  return st;
}

/* Turns value V of G (an output of a node being folded) into a constant holding T, whose buffer
 * is taken.  A floating T is binary64; it is kept in the value's declared sort when that is
 * binary32, binary16 or bfloat16 (its first floating input's, or a cast's target) and every
 * entry is a number of it, which is exact. */
static cn_status
make_constant (cn_graph *g, int v, cn_tensor *t, cn_error *err)
{
  struct cn__value *val = &g->values[v];
  int64_t n = cn_tensor_numel (t);
  double *cdata = malloc ((size_t) (n ? n : 1) * sizeof *cdata);
  if (cdata == NULL)
    {
      cn_tensor_clear (t);
      return cn_error_set (err, CN_ENOMEM, "fold: out of memory");
    }
  for (int64_t i = 0; i < n; i++)
    cdata[i] = cn_tensor_get_f64 (t, i);
  if (cn_dtype_is_float (t->dtype) && cn_dtype_is_float (val->dtype) && val->dtype != CN_DTYPE_F64)
    {
      int exact = 1;
      for (int64_t i = 0; i < n && exact; i++)
        exact = cn_dtype_round (val->dtype, cdata[i]) == cdata[i];
      cn_tensor c;
      if (exact)
        {
          cn_status st = cn_tensor_convert (&c, val->dtype, t, err);
          if (st != CN_OK)
            {
              free (cdata);
              cn_tensor_clear (t);
              return st;
            }
          cn_tensor_clear (t);
          *t = c;
        }
    }
  val->dtype = t->dtype;
  val->constant = *t;
  t->data = NULL;
  val->cdata = cdata;
  val->is_constant = 1;
  val->producer = -1;
  return CN_OK;
}

/* Folds node K of G if it can be (the file's comment), turning its outputs into constants in
 * place; *FOLDED says whether it did.  The node itself stays (the callers remove it). */
static cn_status
fold_node (cn_graph *g, int k, int *folded, cn_error *err)
{
  struct cn__node *nd = &g->nodes[k];
  cn_tensor res[CN_OP_MAX_OUTPUTS];
  cn_status st = CN_OK;
  *folded = 0;
  cn__node_refresh_views (g, nd);
  if (!inputs_constant (g, nd) || nd->rule->forward == NULL || nd->n_out > CN_OP_MAX_OUTPUTS
      || cn_op_family (nd->op) == CN_FAMILY_RANDOM)
    return CN_OK;
  memset (res, 0, sizeof res);
  if ((st = node_forward (g, k, res, err)) != CN_OK)
    return st;
  /* now res[o] = fl(f(c)) at binary64 for the model's scalar, f(c) itself for the other sorts */
  int ok = 1, any_float = 0;
  for (int o = 0; o < nd->n_out && ok; o++)
    {
      int64_t n = cn_tensor_numel (&res[o]);
      int is_float = cn_dtype_is_float (res[o].dtype);
      any_float |= is_float;
      for (int64_t j = 0; j < n && ok; j++)
        {
          double x = cn_tensor_get_f64 (&res[o], j);
          ok = is_float ? isfinite (x) : fabs (x) <= 0x1p53 && x == x;
        }
    }
  if (ok && any_float && cn_op_family (nd->op) != CN_FAMILY_MOVEMENT)
    st = mpfi_agrees (g, k, res, &ok, err);
  if (st == CN_OK && ok)
    {
      /* now every output is the node's exact value at its constant inputs */
      for (int o = 0; o < nd->n_out && st == CN_OK; o++)
        st = make_constant (g, nd->out[o], &res[o], err);
      *folded = st == CN_OK;
    }
  for (int o = 0; o < nd->n_out; o++)
    cn_tensor_clear (&res[o]);
  return st;
}

/* Frees what node ND owns. */
static void
node_free (struct cn__node *nd)
{
  free (nd->params);
  free (nd->name);
  free (nd->in);
  free (nd->in_shape);
  free (nd->in_const);
  free (nd->in_sort);
  free (nd->out);
  free (nd->view);
}

cn_status
cn__graph_fold_last (cn_graph *g, int *folded, cn_error *err)
{
  *folded = 0;
  if (g->n_nodes == 0)
    return CN_OK;
  cn_status st = fold_node (g, g->n_nodes - 1, folded, err);
  if (st == CN_OK && *folded)
    node_free (&g->nodes[--g->n_nodes]);
  return st;
}

void
cn__graph_drop_last (cn_graph *g)
{
  if (g->n_nodes == 0)
    return;
  struct cn__node *nd = &g->nodes[g->n_nodes - 1];
  /* The node's outputs are the last values (nothing was added since the node): they go with it. */
  for (int o = nd->n_out - 1; o >= 0; o--)
    if (nd->out[o] == g->n_values - 1)
      {
        struct cn__value *val = &g->values[--g->n_values];
        free (val->name);
        cn_tensor_clear (&val->constant);
        free (val->cdata);
      }
  node_free (nd);
  g->n_nodes--;
}

cn_status
cn__graph_prune (cn_graph *g, cn_error *err)
{
  int nv = g->n_values;
  int *renum = malloc ((size_t) (nv ? nv : 1) * sizeof *renum);
  unsigned char *used = calloc ((size_t) (nv ? nv : 1), 1);
  if (renum == NULL || used == NULL)
    {
      free (renum);
      free (used);
      return cn_error_set (err, CN_ENOMEM, "graph: out of memory");
    }
  for (int k = 0; k < g->n_nodes; k++)
    for (int i = 0; i < g->nodes[k].n_in; i++)
      used[g->nodes[k].in[i]] = 1;
  for (int i = 0; i < g->n_outputs; i++)
    used[g->outputs[i]] = 1;
  /* Keep every value but the constants nothing reads, in their order. */
  int m = 0;
  for (int v = 0; v < nv; v++)
    {
      struct cn__value *val = &g->values[v];
      if (val->is_constant && !used[v])
        {
          renum[v] = -1;
          free (val->name);
          cn_tensor_clear (&val->constant);
          free (val->cdata);
          continue;
        }
      renum[v] = m;
      if (m != v)
        g->values[m] = *val;
      m++;
    }
  g->n_values = m;
  for (int k = 0; k < g->n_nodes; k++)
    {
      struct cn__node *nd = &g->nodes[k];
      for (int i = 0; i < nd->n_in; i++)
        nd->in[i] = renum[nd->in[i]];
      for (int o = 0; o < nd->n_out; o++)
        nd->out[o] = renum[nd->out[o]];
    }
  for (int i = 0; i < g->n_inputs; i++)
    g->inputs[i] = renum[g->inputs[i]];
  for (int i = 0; i < g->n_outputs; i++)
    g->outputs[i] = renum[g->outputs[i]];
  /* now every number held anywhere names the same value as before */
  for (int k = 0; k < g->n_nodes; k++)
    cn__node_refresh_views (g, &g->nodes[k]);
  free (renum);
  free (used);
  return CN_OK;
}

cn_status
cn__graph_fold (cn_graph *g, int *n_folded, cn_error *err)
{
  int count = 0, m = 0;
  cn_status st = CN_OK;
  unsigned char *gone = calloc ((size_t) (g->n_nodes ? g->n_nodes : 1), 1);
  if (gone == NULL)
    return cn_error_set (err, CN_ENOMEM, "graph: out of memory");
  for (int k = 0; k < g->n_nodes && st == CN_OK; k++)
    {
      /* fold_node points the node's views at the current values first: an earlier fold may have
       * made its inputs constants */
      int folded = 0;
      st = fold_node (g, k, &folded, err);
      gone[k] = folded;
      count += folded;
    }
  /* Remove the folded nodes, keeping the others in their order. */
  for (int k = 0; k < g->n_nodes; k++)
    {
      if (gone[k])
        {
          node_free (&g->nodes[k]);
          continue;
        }
      if (m != k)
        g->nodes[m] = g->nodes[k];
      for (int o = 0; o < g->nodes[m].n_out; o++)
        g->values[g->nodes[m].out[o]].producer = m;
      m++;
    }
  g->n_nodes = m;
  free (gone);
  if (st == CN_OK)
    st = cn__graph_prune (g, err);
  if (st == CN_OK && n_folded != NULL)
    *n_folded = count;
  return st;
}
