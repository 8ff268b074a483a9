/* SPDX-License-Identifier: MIT */
/* src/io/onnx/indexing.c: ONNX's indexing (Slice, Gather, GatherElements, GatherND,
 * ScatterElements, ScatterND, Trilu) onto slice, gather, indexAt, scatter and select.
 * Positions (starts, ends, steps, indices, Trilu's k) are read from constants; the data may be
 * any value of any sort (the element ports move Booleans and words exactly), and a constant's
 * gathers and slices fold into constants. */
#include <config.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "graph/graph_impl.h"
#include "io/onnx/onnx_impl.h"

/* Slice: starts, ends, axes, steps from the attributes (before opset 10) or inputs 1 to 4.
 * Negative positions count from the end; both ends are clamped into [0, d] (INT64_MAX and
 * INT64_MIN, ONNX's "to the end" and "from the start", included). */
static cn_status
op_slice (cn__onnx_node *nc)
{
  cn_status st;
  int64_t starts[CN_MAX_RANK], ends[CN_MAX_RANK], axes[CN_MAX_RANK], steps[CN_MAX_RANK];
  int ns, ne, na = -1, nt = -1;
  if ((st = cn__onnx_need (nc, 0)) != CN_OK)
    return st;
  if (cn__onnx_has (nc, 1))
    {
      if ((st = cn__onnx_need (nc, 2)) != CN_OK
          || (st = cn__onnx_const_ints (nc, 1, "starts", starts, CN_MAX_RANK, &ns)) != CN_OK
          || (st = cn__onnx_const_ints (nc, 2, "ends", ends, CN_MAX_RANK, &ne)) != CN_OK
          || (cn__onnx_has (nc, 3) && (st = cn__onnx_const_ints (nc, 3, "axes", axes, CN_MAX_RANK, &na)) != CN_OK)
          || (cn__onnx_has (nc, 4) && (st = cn__onnx_const_ints (nc, 4, "steps", steps, CN_MAX_RANK, &nt)) != CN_OK))
        return st;
    }
  else if ((st = cn__onnx_attr_ints (nc, "starts", starts, CN_MAX_RANK, &ns)) != CN_OK
           || (st = cn__onnx_attr_ints (nc, "ends", ends, CN_MAX_RANK, &ne)) != CN_OK
           || (st = cn__onnx_attr_ints (nc, "axes", axes, CN_MAX_RANK, &na)) != CN_OK)
    return st;
  if (ns < 0 || ns != ne || (na >= 0 && na != ns) || (nt >= 0 && nt != ns))
    return cn_error_set (nc->err, CN_EINVAL, "starts, ends, axes and steps must have equal lengths");
  const cn_shape *is = cn__onnx_shape (nc, 0);
  cn_params_slice p;
  memset (&p, 0, sizeof p);
  p.rank = is->rank;
  for (int i = 0; i < is->rank; i++)
    {
      p.stop[i] = is->dim[i];
      p.step[i] = 1;
    }
  uint32_t seen = 0;
  for (int k = 0; k < ns; k++)
    {
      int a = 0;
      if ((st = cn__onnx_axis (nc, na >= 0 ? axes[k] : k, is->rank, "axis", &a)) != CN_OK)
        return st;
      if (seen & (1u << a))
        return cn_error_set (nc->err, CN_EINVAL, "axis %d is repeated", a);
      seen |= 1u << a;
      int64_t d = is->dim[a], step = nt >= 0 ? steps[k] : 1, b = starts[k], e = ends[k];
      if (step < 1)
        return cn_error_set (nc->err, CN_EUNSUPPORTED, "step %lld on axis %d is not supported (steps must be >= 1)",
                             (long long) step, a);
      if (b < 0)
        b = b < -d ? 0 : b + d;
      if (e < 0)
        e = e < -d ? 0 : e + d;
      b = b > d ? d : b;
      e = e > d ? d : e;
      p.start[a] = b;
      p.stop[a] = e < b ? b : e;
      p.step[a] = step;
    }
  int x, v;
  if ((st = cn__onnx_in (nc, 0, &x)) != CN_OK || (st = cn__onnx_add1 (nc, CN_OP_SLICE, &p, x, NULL, &v)) != CN_OK)
    return st;
  return cn__onnx_out (nc, 0, v, 1);
}

/* Gather (data, indices, axis) with constant indices, any data: indices j0, j0 + s, ... (s >= 1)
 * are a slice; any others (repeated, reversed, negative) a gather (torch.gather) whose index
 * tensor has the data's shape with extent ni on the axis and holds idx[k] at every [pre, k, post]
 * (the vector of the indices reshaped and broadcast: folded); then a reshape to ONNX's output
 * shape data[:axis] + indices.shape + data[axis+1:]. */
static cn_status
op_gather (cn__onnx_node *nc)
{
  cn_status st;
  int64_t axis;
  if ((st = cn__onnx_need (nc, 0)) != CN_OK || (st = cn__onnx_need (nc, 1)) != CN_OK
      || (st = cn__onnx_attr_int (nc, "axis", 0, &axis)) != CN_OK)
    return st;
  cn_shape ds = *cn__onnx_shape (nc, 0);
  int a = 0;
  if ((st = cn__onnx_axis (nc, axis, ds.rank, "axis", &a)) != CN_OK)
    return st;
  const cn_tensor *I = cn__onnx_const (nc, 1);
  if (I == NULL || cn_dtype_is_float (I->dtype))
    return cn_error_set (nc->err, CN_EUNSUPPORTED, "the indices must be an integer constant");
  cn_shape is = I->shape;
  int64_t ni = cn_tensor_numel (I), d = ds.dim[a];
  cn_shape os;
  memset (&os, 0, sizeof os);
  os.rank = ds.rank - 1 + is.rank;
  if (os.rank > CN_MAX_RANK)
    return cn_error_set (nc->err, CN_EUNSUPPORTED, "rank %d is above %d", os.rank, CN_MAX_RANK);
  for (int i = 0, j = 0; i < ds.rank; i++)
    if (i == a)
      for (int q = 0; q < is.rank; q++)
        os.dim[j++] = is.dim[q];
    else
      os.dim[j++] = ds.dim[i];
  /* the indices, normalised into [0, d) */
  cn_shape vs;
  cn_shape_make (&vs, 1, &ni, NULL);
  cn_tensor idx;
  if ((st = cn_tensor_init (&idx, CN_DTYPE_F64, &vs, nc->err)) != CN_OK)
    return st;
  double *iv = idx.data;
  for (int64_t k = 0; k < ni; k++)
    {
      double j = cn_tensor_get_f64 (I, k);
      if (j < -d || j >= d)
        {
          cn_tensor_clear (&idx);
          return cn_error_set (nc->err, CN_EINVAL, "index %.0f is out of range for extent %lld", j, (long long) d);
        }
      iv[k] = j < 0 ? j + (double) d : j;
    }
  /* now iv[k] = idx[k] in [0, d), exact integers */
  double step = ni >= 2 ? iv[1] - iv[0] : 1;
  int prog = ni >= 1 && step >= 1;
  for (int64_t k = 1; prog && k < ni; k++)
    prog = iv[k] - iv[k - 1] == step;
  int x, v;
  if ((st = cn__onnx_in (nc, 0, &x)) != CN_OK)
    goto done;
  if (prog)
    {
      cn_params_slice p;
      memset (&p, 0, sizeof p);
      p.rank = ds.rank;
      for (int i = 0; i < ds.rank; i++)
        {
          p.stop[i] = ds.dim[i];
          p.step[i] = 1;
        }
      p.start[a] = (int64_t) iv[0];
      p.stop[a] = (int64_t) iv[ni - 1] + 1;
      p.step[a] = (int64_t) step;
      st = cn__onnx_add1 (nc, CN_OP_SLICE, &p, x, "slice", &v);
    }
  else
    {
      cn_shape gs = ds, ls;
      gs.dim[a] = ni;
      memset (&ls, 0, sizeof ls);
      ls.rank = ds.rank;
      for (int i = 0; i < ds.rank; i++)
        ls.dim[i] = i == a ? ni : 1;
      int c, r, gi;
      cn_params_gather pg = { a };
      if ((st = cn__onnx_add_const (nc, &idx, "index_list", &c)) == CN_OK
          && (st = cn__onnx_reshape (nc, c, &ls, "index_line", &r)) == CN_OK
          && (st = cn__onnx_broadcast (nc, r, &gs, "indices", &gi)) == CN_OK)
        st = cn__onnx_add2 (nc, CN_OP_GATHER, &pg, x, gi, "gather", &v);
    }
  if (st != CN_OK)
    goto done;
  cn_params_reshape rp;
  rp.shape = os;
  if ((st = cn__onnx_add1 (nc, CN_OP_RESHAPE, &rp, v, NULL, &v)) == CN_OK)
    st = cn__onnx_out (nc, 0, v, 1);
done:
  cn_tensor_clear (&idx);
  return st;
}

/* *V = the constant integer index tensor of input I as a binary64 constant of index entries, a
 * negative entry e counting from the end: e + EXT[k] with k = AXIS if AXIS >= 0, else the entry's
 * position along the last axis (GatherND's columns).  Entries outside the range are left as they
 * are (beyond 2^52: -1): the operator's validate refuses them. */
static cn_status
index_const (cn__onnx_node *nc, int i, const int64_t *ext, int axis, int *v)
{
  const cn_tensor *c = cn__onnx_const (nc, i);
  if (c == NULL || cn_dtype_is_float (c->dtype))
    return cn_error_set (nc->err, CN_EUNSUPPORTED, "the indices (input %d, '%s') must be a constant integer tensor", i,
                         nc->in[i]->name);
  cn_tensor t;
  cn_status st = cn_tensor_init (&t, CN_DTYPE_F64, &c->shape, nc->err);
  if (st != CN_OK)
    return st;
  int64_t n = cn_tensor_numel (c), last = c->shape.rank ? c->shape.dim[c->shape.rank - 1] : 1;
  double *dst = t.data;
  for (int64_t j = 0; j < n; j++)
    {
      double e = cn_tensor_get_f64 (c, j);
      int64_t d = ext[axis >= 0 ? axis : (last ? j % last : 0)];
      if (e < 0)
        e += (double) d;
      if (!(fabs (e) <= 0x1p52))
        e = -1;
      dst[j] = e;
    }
  st = cn__onnx_add_const (nc, &t, "indices", v);
  cn_tensor_clear (&t);
  return st;
}

/* GatherElements: gather (torch.gather) with the constant indices. */
static cn_status
op_gather_elements (cn__onnx_node *nc)
{
  int64_t axis;
  int x, ix, a = 0, v;
  cn_status st;
  if ((st = cn__onnx_x (nc, &x)) != CN_OK || (st = cn__onnx_need (nc, 1)) != CN_OK
      || (st = cn__onnx_attr_int (nc, "axis", 0, &axis)) != CN_OK)
    return st;
  cn_shape xs = *cn__onnx_shape (nc, 0);
  if ((st = cn__onnx_axis (nc, axis, xs.rank, "axis", &a)) != CN_OK
      || (st = index_const (nc, 1, xs.dim, a, &ix)) != CN_OK)
    return st;
  cn_params_gather p = { a };
  if ((st = cn__onnx_add2 (nc, CN_OP_GATHER, &p, x, ix, NULL, &v)) != CN_OK)
    return st;
  return cn__onnx_out (nc, 0, v, 1);
}

/* Whether the constant indices (input 1) of ScatterElements along AXIS of data extents EXT
 * (rank R) send two index positions to one output entry: position p (C order over the indices'
 * shape, which fits inside the data's) writes the entry with p's coordinates but idx[p] along
 * AXIS.  Out-of-range entries are left to the scatter's validate.  CN_EINVAL names the first
 * repeat; CN_ENOMEM where the data has no room for the marks. */
static cn_status
scatter_repeats (cn__onnx_node *nc, const int64_t *ext, int R, int axis)
{
  const cn_tensor *I = cn__onnx_const (nc, 1);
  int64_t total = 1, n = cn_tensor_numel (I);
  for (int i = 0; i < R; i++)
    total *= ext[i];
  uint8_t *hit = calloc ((size_t) (total > 0 ? total : 1), 1);
  if (hit == NULL)
    return cn__onnx_nomem (nc);
  cn_status st = CN_OK;
  for (int64_t p = 0; p < n && st == CN_OK; p++)
    {
      double e = cn_tensor_get_f64 (I, p);
      int64_t d = ext[axis];
      if (!(e >= -(double) d && e < (double) d))
        continue;
      /* the data entry p writes: p's coordinates (over the indices' shape), idx[p] along AXIS */
      int64_t rest = p, flat = 0, stride = 1;
      for (int i = R - 1; i >= 0; i--)
        {
          int64_t c = rest % I->shape.dim[i];
          rest /= I->shape.dim[i];
          if (i == axis)
            c = (int64_t) (e < 0 ? e + (double) d : e);
          flat += c * stride;
          stride *= ext[i];
        }
      if (hit[flat])
        st = cn_error_set (nc->err, CN_EINVAL, "index position %lld repeats an output entry with reduction 'none' "
                           "(ONNX requires distinct indices there)", (long long) p);
      hit[flat] = 1;
    }
  free (hit);
  return st;
}

/* ScatterElements: scatter with the constant indices, reduction none/add/mul/max/min (opset 16);
 * a Boolean scatter only replaces.  With reduction none ONNX requires that no two index positions
 * write one entry (the result would depend on the order of the updates): repeats are refused. */
static cn_status
op_scatter_elements (cn__onnx_node *nc)
{
  static const char *const reds[] = { "none", "add", "mul", "max", "min", NULL };
  static const cn_scatter_reduce map[] = { CN_SCATTER_REPLACE, CN_SCATTER_SUM, CN_SCATTER_PROD, CN_SCATTER_MAX,
                                           CN_SCATTER_MIN };
  int64_t axis;
  int in[3], a = 0, r = 0, v;
  cn_status st;
  if ((st = cn__onnx_need (nc, 0)) != CN_OK || (st = cn__onnx_need (nc, 1)) != CN_OK
      || (st = cn__onnx_need (nc, 2)) != CN_OK
      || (st = cn__onnx_attr_int (nc, "axis", 0, &axis)) != CN_OK
      || (st = cn__onnx_attr_choice (nc, "reduction", "none", reds, &r)) != CN_OK
      || (st = cn__onnx_sorts_agree (nc, 0, 2)) != CN_OK)
    return st;
  if (cn__onnx_sort (nc, 0) == CN_DTYPE_BOOL && r != 0)
    return cn_error_set (nc->err, CN_EUNSUPPORTED, "reduction '%s' of BOOL values is not supported (a Boolean scatter "
                         "only replaces)", reds[r]);
  cn_shape xs = *cn__onnx_shape (nc, 0);
  if ((st = cn__onnx_x (nc, &in[0])) != CN_OK || (st = cn__onnx_axis (nc, axis, xs.rank, "axis", &a)) != CN_OK
      || (st = index_const (nc, 1, xs.dim, a, &in[1])) != CN_OK || (st = cn__onnx_in (nc, 2, &in[2])) != CN_OK)
    return st;
  /* index_const accepted a constant integer tensor; the scatter's validate checks its shape
   * against the data's, which the repeat check needs first */
  const cn_tensor *I = cn__onnx_const (nc, 1);
  int fits = I->shape.rank == xs.rank;
  for (int i = 0; fits && i < xs.rank; i++)
    fits = I->shape.dim[i] <= xs.dim[i];
  if (r == 0 && fits && (st = scatter_repeats (nc, xs.dim, xs.rank, a)) != CN_OK)
    return st;
  cn_params_scatter p = { a, map[r] };
  if ((st = cn__onnx_add (nc, CN_OP_SCATTER, &p, 3, in, NULL, &v)) != CN_OK)
    return st;
  return cn__onnx_out (nc, 0, v, 1);
}

/* ScatterND (data [S], rank r; indices [J..., k], 1 <= k <= r, constant; updates [J..., S_k..])
 * with reduction none/add/mul (opset 16) or max/min (opset 18): out = data, then for every
 * index position j in row-major order out[idx[j], :] = f(out[idx[j], :], updates[j, :]).  With
 * M = S_0 .. S_{k-1}, R = S_k .. S_{r-1} and U = prod J, the data is reshaped to [M, R], the
 * updates to [U, R], and a scatter along axis 0 writes row u of the updates into row
 * L(u) = sum_t idx[u, t] stride_t (stride_t = S_{t+1} .. S_{k-1}; a negative entry counts from
 * the end of its axis) with the index tensor holding L(u) at every [u, c] (a folded constant),
 * then the result is reshaped to [S].  The scatter's row-major order is the index positions'
 * order, its fold is ONNX's reduction (include_self).  With reduction none ONNX requires
 * distinct indices (the output would depend on the order of the updates): repeated ones are
 * refused. */
static cn_status
op_scatter_nd (cn__onnx_node *nc)
{
  static const char *const reds[] = { "none", "add", "mul", "max", "min", NULL };
  static const cn_scatter_reduce map[] = { CN_SCATTER_REPLACE, CN_SCATTER_SUM, CN_SCATTER_PROD, CN_SCATTER_MAX,
                                           CN_SCATTER_MIN };
  int r = 0, x, u, ix, xr, ur, v, w;
  cn_status st;
  if ((st = cn__onnx_need (nc, 0)) != CN_OK || (st = cn__onnx_need (nc, 1)) != CN_OK
      || (st = cn__onnx_need (nc, 2)) != CN_OK
      || (st = cn__onnx_attr_choice (nc, "reduction", "none", reds, &r)) != CN_OK
      || (st = cn__onnx_sorts_agree (nc, 0, 2)) != CN_OK)
    return st;
  if (cn__onnx_sort (nc, 0) == CN_DTYPE_BOOL && r != 0)
    return cn_error_set (nc->err, CN_EUNSUPPORTED, "reduction '%s' of BOOL values is not supported (a Boolean scatter "
                         "only replaces)", reds[r]);
  const cn_tensor *I = cn__onnx_const (nc, 1);
  if (I == NULL || cn_dtype_is_float (I->dtype))
    return cn_error_set (nc->err, CN_EUNSUPPORTED, "the indices (input 1, '%s') must be a constant integer tensor",
                         nc->in[1]->name);
  cn_shape ds = *cn__onnx_shape (nc, 0), is = I->shape, us = *cn__onnx_shape (nc, 2);
  char a1[128], a2[128], a3[128];
  int k = is.rank >= 1 ? (int) is.dim[is.rank - 1] : 0;
  if (is.rank < 1 || k < 1 || k > ds.rank)
    return cn_error_set (nc->err, CN_EUNSUPPORTED, "indices of shape %s: the last extent must be in [1, %d]",
                         cn_shape_format (&is, a1, sizeof a1), ds.rank);
  /* updates must be [J..., S_k..] */
  int ok = us.rank == is.rank - 1 + ds.rank - k;
  for (int i = 0; ok && i < is.rank - 1; i++)
    ok = us.dim[i] == is.dim[i];
  for (int i = k; ok && i < ds.rank; i++)
    ok = us.dim[is.rank - 1 + i - k] == ds.dim[i];
  if (!ok)
    return cn_error_set (nc->err, CN_ESHAPE, "updates %s do not fit data %s and indices %s",
                         cn_shape_format (&us, a1, sizeof a1), cn_shape_format (&ds, a2, sizeof a2),
                         cn_shape_format (&is, a3, sizeof a3));
  int64_t M = 1, R = 1, U = cn_tensor_numel (I) / k;
  for (int i = 0; i < ds.rank; i++)
    *(i < k ? &M : &R) *= ds.dim[i];
  /* the rows L(u), checked and distinct where nothing reduces */
  cn_shape ls, gs;
  int64_t ld[2] = { U, 1 }, gd[2] = { U, R }, xd[2] = { M, R };
  cn_shape_make (&ls, 2, ld, NULL);
  cn_shape_make (&gs, 2, gd, NULL);
  cn_tensor rows;
  if ((st = cn_tensor_init (&rows, CN_DTYPE_F64, &ls, nc->err)) != CN_OK)
    return st;
  uint8_t *hit = r == 0 ? calloc ((size_t) (M > 0 ? M : 1), 1) : NULL;
  if (r == 0 && hit == NULL)
    {
      cn_tensor_clear (&rows);
      return cn__onnx_nomem (nc);
    }
  for (int64_t j = 0; j < U && st == CN_OK; j++)
    {
      int64_t L = 0;
      for (int t = 0; t < k; t++)
        {
          double e = cn_tensor_get_f64 (I, j * k + t);
          int64_t d = ds.dim[t];
          if (!(e >= -(double) d && e < (double) d))
            {
              st = cn_error_set (nc->err, CN_EINVAL, "index %.0f is out of range for extent %lld of axis %d", e,
                                 (long long) d, t);
              break;
            }
          L = L * d + (int64_t) (e < 0 ? e + (double) d : e);
        }
      /* now L is the row of index position j in [M, R], its entries idx[j, :] read in C order */
      if (st == CN_OK && hit != NULL)
        {
          if (hit[L])
            st = cn_error_set (nc->err, CN_EINVAL, "index position %lld repeats an index with reduction 'none' (ONNX "
                               "requires distinct indices there)", (long long) j);
          hit[L] = 1;
        }
      ((double *) rows.data)[j] = (double) L;
    }
  free (hit);
  cn_shape xs2, us2;
  cn_shape_make (&xs2, 2, xd, NULL);
  us2 = gs;
  int in[3];
  cn_params_scatter p = { 0, map[r] };
  if (st == CN_OK && (st = cn__onnx_add_const (nc, &rows, "rows", &w)) == CN_OK
      && (st = cn__onnx_broadcast (nc, w, &gs, "indices", &ix)) == CN_OK && (st = cn__onnx_x (nc, &x)) == CN_OK
      && (st = cn__onnx_in (nc, 2, &u)) == CN_OK && (st = cn__onnx_reshape (nc, x, &xs2, "data_rows", &xr)) == CN_OK
      && (st = cn__onnx_reshape (nc, u, &us2, "update_rows", &ur)) == CN_OK)
    {
      in[0] = xr;
      in[1] = ix;
      in[2] = ur;
      if ((st = cn__onnx_add (nc, CN_OP_SCATTER, &p, 3, in, "scatter", &v)) == CN_OK)
        st = cn__onnx_reshape (nc, v, &ds, NULL, &v);
    }
  cn_tensor_clear (&rows);
  return st != CN_OK ? st : cn__onnx_out (nc, 0, v, 1);
}

/* GatherND with batch_dims = 0: indexAt with the constant indices. */
static cn_status
op_gather_nd (cn__onnx_node *nc)
{
  int64_t bd;
  int x, ix, v;
  cn_status st;
  if ((st = cn__onnx_x (nc, &x)) != CN_OK || (st = cn__onnx_need (nc, 1)) != CN_OK
      || (st = cn__onnx_attr_int (nc, "batch_dims", 0, &bd)) != CN_OK)
    return st;
  if (bd != 0)
    return cn_error_set (nc->err, CN_EUNSUPPORTED, "attribute batch_dims = %lld is not supported (only 0)",
                         (long long) bd);
  cn_shape xs = *cn__onnx_shape (nc, 0);
  if ((st = index_const (nc, 1, xs.dim, -1, &ix)) != CN_OK
      || (st = cn__onnx_add2 (nc, CN_OP_INDEX_AT, NULL, x, ix, NULL, &v)) != CN_OK)
    return st;
  return cn__onnx_out (nc, 0, v, 1);
}

/* Trilu: the entries on and above (upper) or on and below (lower) the diagonal k of the last two
 * axes, zeros elsewhere: select (m, x, 0) with the Boolean mask m[..., i, j] = (j - i >= k) for
 * upper, (j - i <= k) for lower (a constant of the attributes), which moves entries exactly (any
 * sort); over a constant input it folds. */
static cn_status
op_trilu (cn__onnx_node *nc)
{
  int64_t upper, k = 0;
  int n, x, m, z, v;
  cn_status st;
  if ((st = cn__onnx_need (nc, 0)) != CN_OK || (st = cn__onnx_attr_int (nc, "upper", 1, &upper)) != CN_OK
      || (cn__onnx_has (nc, 1) && (st = cn__onnx_const_ints (nc, 1, "k", &k, 1, &n)) != CN_OK))
    return st;
  cn_shape s = *cn__onnx_shape (nc, 0);
  cn_dtype sort = cn__onnx_sort (nc, 0);
  if (s.rank < 2)
    return cn_error_set (nc->err, CN_ESHAPE, "the input must have rank 2 or more");
  cn_tensor mask;
  if ((st = cn_tensor_init (&mask, CN_DTYPE_BOOL, &s, nc->err)) != CN_OK)
    return st;
  int64_t R = s.dim[s.rank - 2], C = s.dim[s.rank - 1], total = cn_tensor_numel (&mask);
  for (int64_t e = 0; e < total; e++)
    {
      int64_t j = e % C, i = (e / C) % R;
      ((uint8_t *) mask.data)[e] = upper ? j - i >= k : j - i <= k;
    }
  st = cn__onnx_add_const (nc, &mask, "mask", &m);
  cn_tensor_clear (&mask);
  int in[3];
  if (st != CN_OK || (st = cn__onnx_in (nc, 0, &x)) != CN_OK
      || (st = cn__onnx_fill (nc, cn_dtype_is_float (sort) ? CN_DTYPE_F64 : sort, &s, 0.0, "zeros", &z)) != CN_OK)
    return st;
  in[0] = m;
  in[1] = x;
  in[2] = z;
  if ((st = cn__onnx_add (nc, CN_OP_SELECT, NULL, 3, in, NULL, &v)) != CN_OK)
    return st;
  return cn__onnx_out (nc, 0, v, 1);
}

const struct cn__onnx_handler cn__onnx_indexing[] = {
  { "Gather", op_gather, "axis", 1 },
  { "GatherElements", op_gather_elements, "axis", 1 },
  { "GatherND", op_gather_nd, "batch_dims", 1 },
  { "ScatterElements", op_scatter_elements, "axis reduction", 1 },
  { "ScatterND", op_scatter_nd, "reduction", 1 },
  { "Slice", op_slice, "starts ends axes", 1 },
  { "Trilu", op_trilu, "upper", 1 },
  { NULL, NULL, NULL, 0 },
};
