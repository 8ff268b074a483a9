/* SPDX-License-Identifier: MIT */
/* src/io/onnx/nodes.c: building nodes for the ONNX importer: the values of a node's inputs,
 * the nodes of registered operators it emits (each folded at once where its inputs are all
 * constants and its value is exact: cn__graph_fold_last), numpy broadcasting, and the values of
 * its outputs. */
#include <config.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "graph/graph_impl.h"
#include "io/onnx/onnx_impl.h"

/* ---- the node's inputs ------------------------------------------------------------------- */

cn_status
cn__onnx_nomem (cn__onnx_node *nc)
{
  return cn_error_set (nc->err, CN_ENOMEM, "out of memory");
}

cn_status
cn__onnx_need (cn__onnx_node *nc, int i)
{
  if (i >= nc->n_in || nc->in[i] == NULL)
    return cn_error_set (nc->err, CN_EPARSE, "input %d is missing", i);
  return CN_OK;
}

int
cn__onnx_has (const cn__onnx_node *nc, int i)
{
  return i < nc->n_in && nc->in[i] != NULL;
}

const cn_shape *
cn__onnx_shape (const cn__onnx_node *nc, int i)
{
  const struct cn__onnx_value *o = nc->in[i];
  return o->is_raw ? &o->raw.shape : cn_graph_value_shape (nc->imp->g, o->gv);
}

cn_dtype
cn__onnx_sort (const cn__onnx_node *nc, int i)
{
  const struct cn__onnx_value *o = nc->in[i];
  return o->is_raw ? o->raw.dtype : cn_graph_value_dtype (nc->imp->g, o->gv);
}

const cn_tensor *
cn__onnx_const (const cn__onnx_node *nc, int i)
{
  const struct cn__onnx_value *o = nc->in[i];
  return o->is_raw ? &o->raw : cn_graph_value_constant (nc->imp->g, o->gv);
}

int
cn__onnx_same_sort (cn_dtype a, cn_dtype b)
{
  return cn_dtype_is_float (a) ? cn_dtype_is_float (b) : a == b;
}

cn_status
cn__onnx_sorts_agree (cn__onnx_node *nc, int i, int j)
{
  cn_dtype a = cn__onnx_sort (nc, i), b = cn__onnx_sort (nc, j);
  if (cn__onnx_same_sort (a, b))
    return CN_OK;
  return cn_error_set (nc->err, CN_EUNSUPPORTED, "input %d ('%s') holds %s values where input %d ('%s') holds %s", j,
                       nc->in[j]->name, cn__onnx_sort_name (b), i, nc->in[i]->name, cn__onnx_sort_name (a));
}

cn_status
cn__onnx_arith_sorts (cn__onnx_node *nc, int n)
{
  cn_status st;
  for (int i = 1; i < n; i++)
    if ((st = cn__onnx_sorts_agree (nc, 0, i)) != CN_OK)
      return st;
  if (cn__onnx_sort (nc, 0) == CN_DTYPE_BOOL)
    return cn_error_set (nc->err, CN_EUNSUPPORTED, "input 0 ('%s') holds BOOL values, which have no arithmetic (cast "
                         "them to an integer type)", nc->in[0]->name);
  return CN_OK;
}

cn_status
cn__onnx_in (cn__onnx_node *nc, int i, int *v)
{
  struct cn__onnx_value *o = nc->in[i];
  const cn_tensor *c = cn__onnx_const (nc, i);
  if (c != NULL && !cn_dtype_is_float (c->dtype) && !nc->typed)
    return cn_error_set (nc->err, CN_EUNSUPPORTED,
                         "input %d ('%s') is an integer tensor; only floating-point tensors can be operands", i,
                         o->name);
  if (o->is_raw)
    {
      /* refused by the graph (a word beyond 2^53, a NaN or an infinity), with its message */
      cn_status st = cn_graph_add_constant (nc->imp->g, o->name, &o->raw, v, nc->err);
      if (st != CN_OK)
        return st;
      cn_tensor_clear (&o->raw);
      o->is_raw = 0;
      o->gv = *v;
      return CN_OK;
    }
  *v = o->gv;
  return CN_OK;
}

cn_status
cn__onnx_x (cn__onnx_node *nc, int *x)
{
  cn_status st = cn__onnx_need (nc, 0);
  return st != CN_OK ? st : cn__onnx_in (nc, 0, x);
}

/* ---- the nodes it emits ------------------------------------------------------------------ */

char *
cn__onnx_sub_name (const cn__onnx_node *nc, const char *suffix)
{
  size_t a = strlen (nc->name), b = suffix != NULL ? strlen (suffix) : 0;
  char *s = malloc (a + b + 2);
  if (s == NULL)
    return NULL;
  memcpy (s, nc->name, a + 1);
  if (suffix != NULL)
    {
      s[a] = '/';
      memcpy (s + a + 1, suffix, b + 1);
    }
  return s;
}

/* Adds the node OP (IN) and folds it where it can be; *FOLDED says whether it was. */
static cn_status
add_node (cn__onnx_node *nc, cn_op op, const void *params, int n, const int *in, const char *suffix, int *v,
          int *folded)
{
  cn_graph *g = nc->imp->g;
  char *nm = cn__onnx_sub_name (nc, suffix);
  if (nm == NULL)
    return cn__onnx_nomem (nc);
  cn_status st = cn_graph_add_node (g, op, params, n, in, nm, v, nc->err);
  free (nm);
  if (st == CN_OK)
    st = cn__graph_fold_last (g, folded, nc->err);
  /* now *V is the node's output 0, a constant if the node was folded */
  return st;
}

cn_status
cn__onnx_add (cn__onnx_node *nc, cn_op op, const void *params, int n, const int *in, const char *suffix, int *v)
{
  int folded;
  return add_node (nc, op, params, n, in, suffix, v, &folded);
}

cn_status
cn__onnx_add1 (cn__onnx_node *nc, cn_op op, const void *params, int x, const char *suffix, int *v)
{
  return cn__onnx_add (nc, op, params, 1, &x, suffix, v);
}

cn_status
cn__onnx_add2 (cn__onnx_node *nc, cn_op op, const void *params, int a, int b, const char *suffix, int *v)
{
  int in[2] = { a, b };
  return cn__onnx_add (nc, op, params, 2, in, suffix, v);
}

cn_status
cn__onnx_add_folded (cn__onnx_node *nc, cn_op op, const void *params, int n, const int *in, const char *suffix,
                     int *v)
{
  int folded = 0;
  cn_status st = add_node (nc, op, params, n, in, suffix, v, &folded);
  if (st == CN_OK && !folded)
    {
      cn__graph_drop_last (nc->imp->g);
      *v = -1;
    }
  return st;
}

cn_status
cn__onnx_add_const (cn__onnx_node *nc, const cn_tensor *t, const char *suffix, int *v)
{
  char *nm = cn__onnx_sub_name (nc, suffix);
  if (nm == NULL)
    return cn__onnx_nomem (nc);
  cn_status st = cn_graph_add_constant (nc->imp->g, nm, t, v, nc->err);
  free (nm);
  return st;
}

cn_status
cn__onnx_fill (cn__onnx_node *nc, cn_dtype dt, const cn_shape *shape, double x, const char *suffix, int *v)
{
  cn_tensor t;
  cn_status st = cn_tensor_init (&t, dt, shape, nc->err);
  if (st != CN_OK)
    return st;
  int64_t n = cn_tensor_numel (&t);
  size_t es = cn_dtype_size (dt);
  /* X as one entry of the sort (value-preserving; CN_ENUMERIC if the sort cannot hold it), then
   * copies of it */
  cn_tensor x64, one;
  cn_shape s0;
  memset (&s0, 0, sizeof s0);
  if (n > 0)
    {
      if ((st = cn_tensor_init (&x64, CN_DTYPE_F64, &s0, nc->err)) != CN_OK)
        goto done;
      ((double *) x64.data)[0] = x;
      st = cn_tensor_convert (&one, dt, &x64, nc->err);
      cn_tensor_clear (&x64);
      if (st != CN_OK)
        goto done;
      for (int64_t i = 0; i < n; i++)
        memcpy ((char *) t.data + i * (int64_t) es, one.data, es);
      cn_tensor_clear (&one);
    }
  st = cn__onnx_add_const (nc, &t, suffix, v);
done:
  cn_tensor_clear (&t);
  return st;
}

cn_status
cn__onnx_reshape (cn__onnx_node *nc, int x, const cn_shape *shape, const char *suffix, int *v)
{
  if (cn_shape_equal (cn_graph_value_shape (nc->imp->g, x), shape))
    {
      *v = x;
      return CN_OK;
    }
  cn_params_reshape p;
  p.shape = *shape;
  return cn__onnx_add1 (nc, CN_OP_RESHAPE, &p, x, suffix, v);
}

cn_status
cn__onnx_broadcast (cn__onnx_node *nc, int x, const cn_shape *shape, const char *suffix, int *v)
{
  if (cn_shape_equal (cn_graph_value_shape (nc->imp->g, x), shape))
    {
      *v = x;
      return CN_OK;
    }
  cn_params_broadcast p;
  p.shape = *shape;
  return cn__onnx_add1 (nc, CN_OP_BROADCAST, &p, x, suffix, v);
}

cn_status
cn__onnx_permute (cn__onnx_node *nc, int x, int r, const int *perm, const char *suffix, int *v)
{
  cn_params_permute p;
  int identity = 1;
  memset (&p, 0, sizeof p);
  p.rank = r;
  for (int i = 0; i < r; i++)
    {
      p.perm[i] = perm[i];
      identity &= perm[i] == i;
    }
  if (identity)
    {
      *v = x;
      return CN_OK;
    }
  return cn__onnx_add1 (nc, CN_OP_PERMUTE, &p, x, suffix, v);
}

cn_status
cn__onnx_operand_at (cn__onnx_node *nc, int i, const cn_shape *shape, const char *suffix, int *v)
{
  int x;
  cn_status st = cn__onnx_in (nc, i, &x);
  return st != CN_OK ? st : cn__onnx_broadcast (nc, x, shape, suffix, v);
}

cn_status
cn__onnx_mul_scalar (cn__onnx_node *nc, int x, double f, const char *suffix, int *v)
{
  int c;
  char nm[64];
  snprintf (nm, sizeof nm, "%s", suffix ? suffix : "factor");
  if (suffix != NULL)
    snprintf (nm, sizeof nm, "%s_factor", suffix);
  cn_status st = cn__onnx_fill (nc, CN_DTYPE_F64, cn_graph_value_shape (nc->imp->g, x), f, nm, &c);
  return st != CN_OK ? st : cn__onnx_add2 (nc, CN_OP_MUL, NULL, x, c, suffix, v);
}

cn_status
cn__onnx_clamp (cn__onnx_node *nc, int x, double lo, double hi, const char *suffix, int *v)
{
  cn_shape s0;
  int c[3];
  char nm[64];
  memset (&s0, 0, sizeof s0);
  c[0] = x;
  snprintf (nm, sizeof nm, "%s_min", suffix ? suffix : "clip");
  cn_status st = cn__onnx_fill (nc, CN_DTYPE_F64, &s0, lo, nm, &c[1]);
  snprintf (nm, sizeof nm, "%s_max", suffix ? suffix : "clip");
  if (st == CN_OK)
    st = cn__onnx_fill (nc, CN_DTYPE_F64, &s0, hi, nm, &c[2]);
  if (st == CN_OK)
    st = cn__onnx_add (nc, CN_OP_CLAMP, NULL, 3, c, suffix, v);
  return st;
}

int
cn__onnx_broadcast_shape (const cn_shape *a, const cn_shape *b, cn_shape *out)
{
  int r = a->rank > b->rank ? a->rank : b->rank;
  memset (out, 0, sizeof *out);
  out->rank = r;
  for (int i = 0; i < r; i++)
    {
      int ia = i - (r - a->rank), ib = i - (r - b->rank);
      int64_t da = ia >= 0 ? a->dim[ia] : 1, db = ib >= 0 ? b->dim[ib] : 1;
      if (da != db && da != 1 && db != 1)
        return 0;
      out->dim[i] = da == 1 ? db : da;
    }
  return 1;
}

cn_status
cn__onnx_common_shape (cn__onnx_node *nc, int n, cn_shape *os)
{
  cn_status st;
  for (int i = 0; i < n; i++)
    {
      if ((st = cn__onnx_need (nc, i)) != CN_OK)
        return st;
      cn_shape t;
      char a[128], b[128];
      if (i == 0)
        *os = *cn__onnx_shape (nc, 0);
      else if (!cn__onnx_broadcast_shape (os, cn__onnx_shape (nc, i), &t))
        return cn_error_set (nc->err, CN_ESHAPE, "input shapes %s and %s do not broadcast",
                             cn_shape_format (os, a, sizeof a), cn_shape_format (cn__onnx_shape (nc, i), b, sizeof b));
      else
        *os = t;
    }
  return CN_OK;
}

cn_status
cn__onnx_broadcast_apply (cn__onnx_node *nc, cn_op op, const void *params, int n, const cn_shape *os)
{
  int x[3], v;
  cn_status st = CN_OK;
  if (n < 1 || n > 3)
    return cn_error_set (nc->err, CN_EINVAL, "internal error: %d operands to broadcast", n);
  for (int i = 0; i < n && st == CN_OK; i++)
    {
      char sfx[32];
      snprintf (sfx, sizeof sfx, "broadcast%d", i);
      st = cn__onnx_operand_at (nc, i, os, sfx, &x[i]);
    }
  if (st != CN_OK || (st = cn__onnx_add (nc, op, params, n, x, NULL, &v)) != CN_OK)
    return st;
  return cn__onnx_out (nc, 0, v, 1);
}

/* ---- the node's outputs --------------------------------------------------------------------- */

int
cn__onnx_out_wanted (const cn__onnx_node *nc, int k)
{
  return k < (int) nc->np->n_output && nc->np->output[k][0] != '\0';
}

cn_status
cn__onnx_out (cn__onnx_node *nc, int k, int v, int fresh)
{
  struct cn__onnx_import *imp = nc->imp;
  if (!cn__onnx_out_wanted (nc, k))
    return CN_OK;
  if (fresh)
    {
      size_t n = strlen (nc->np->output[k]);
      char *nm = malloc (n + 1);
      if (nm == NULL)
        return cn__onnx_nomem (nc);
      memcpy (nm, nc->np->output[k], n + 1);
      free (imp->g->values[v].name);
      imp->g->values[v].name = nm;
    }
  return cn__onnx_define (imp, nc->np->output[k], v, nc->err);
}

cn_status
cn__onnx_out_alias (cn__onnx_node *nc, int k, int i)
{
  struct cn__onnx_value *o = nc->in[i];
  if (!cn__onnx_out_wanted (nc, k))
    return CN_OK;
  if (o->is_raw)
    return cn__onnx_out_const (nc, k, &o->raw);      /* the same raw constant under the output's name */
  return cn__onnx_out (nc, k, o->gv, 0);
}

cn_status
cn__onnx_out_const (cn__onnx_node *nc, int k, const cn_tensor *t)
{
  cn_tensor c;
  if (!cn__onnx_out_wanted (nc, k))
    return CN_OK;
  cn_status st = cn_tensor_convert (&c, t->dtype, t, nc->err);
  return st != CN_OK ? st : cn__onnx_define_const (nc->imp, nc->np->output[k], &c, nc->err);
}
