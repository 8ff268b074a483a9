/* SPDX-License-Identifier: MIT */
/* src/io/onnx/movement.c: ONNX's data movement (Identity, Reshape, Flatten, Squeeze, Unsqueeze,
 * Transpose, Concat, Split, Expand, Tile, Pad, DepthToSpace, SpaceToDepth) onto reshape, permute,
 * broadcast, slice, pad and cat.  Their element ports move Booleans and words bit for bit (the
 * seed's Op.Element), so every handler here moves every sort exactly; where several inputs are
 * moved together (Concat) they must hold one sort, and Pad's value must be an element of the
 * data's sort.  Movement of constants is folded (exact: the movement family copies entries). */
#include <config.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "graph/graph_impl.h"
#include "io/onnx/onnx_impl.h"

/* Output 0 = input 0 under the shape S: a reshape node (the input itself when the shape is
 * unchanged). */
static cn_status
emit_reshape (cn__onnx_node *nc, const cn_shape *s)
{
  cn_shape is = *cn__onnx_shape (nc, 0);
  char a[128], b[128];
  if (cn_shape_numel (&is) != cn_shape_numel (s))
    return cn_error_set (nc->err, CN_ESHAPE, "cannot reshape %s into %s", cn_shape_format (&is, a, sizeof a),
                         cn_shape_format (s, b, sizeof b));
  if (cn_shape_equal (&is, s))
    return cn__onnx_out_alias (nc, 0, 0);
  int x, v;
  cn_params_reshape p;
  p.shape = *s;
  cn_status st = cn__onnx_in (nc, 0, &x);
  if (st == CN_OK)
    st = cn__onnx_add1 (nc, CN_OP_RESHAPE, &p, x, NULL, &v);
  return st != CN_OK ? st : cn__onnx_out (nc, 0, v, 1);
}

static cn_status
op_identity (cn__onnx_node *nc)
{
  cn_status st = cn__onnx_need (nc, 0);
  return st != CN_OK ? st : cn__onnx_out_alias (nc, 0, 0);
}

static cn_status
op_flatten (cn__onnx_node *nc)
{
  cn_status st = cn__onnx_need (nc, 0);
  int64_t axis;
  if (st != CN_OK || (st = cn__onnx_attr_int (nc, "axis", 1, &axis)) != CN_OK)
    return st;
  const cn_shape *s = cn__onnx_shape (nc, 0);
  if (axis < -s->rank || axis > s->rank)
    return cn_error_set (nc->err, CN_EINVAL, "axis %lld is out of range for rank %d", (long long) axis, s->rank);
  if (axis < 0)
    axis += s->rank;
  int64_t d[2] = { 1, 1 };
  for (int i = 0; i < s->rank; i++)
    d[i >= axis] *= s->dim[i];
  cn_shape os;
  cn_shape_make (&os, 2, d, NULL);
  return emit_reshape (nc, &os);
}

static cn_status
op_reshape (cn__onnx_node *nc)
{
  cn_status st;
  int64_t sh[CN_MAX_RANK], allowzero;
  int n;
  if ((st = cn__onnx_need (nc, 0)) != CN_OK || (st = cn__onnx_need (nc, 1)) != CN_OK
      || (st = cn__onnx_attr_int (nc, "allowzero", 0, &allowzero)) != CN_OK
      || (st = cn__onnx_const_ints (nc, 1, "target shape", sh, CN_MAX_RANK, &n)) != CN_OK)
    return st;
  const cn_shape *is = cn__onnx_shape (nc, 0);
  int infer = -1;
  int64_t known = 1;
  for (int i = 0; i < n; i++)
    {
      if (sh[i] == 0 && !allowzero)
        {
          if (i >= is->rank)
            return cn_error_set (nc->err, CN_ESHAPE, "target extent 0 on axis %d copies a missing input axis", i);
          sh[i] = is->dim[i];
        }
      if (sh[i] == -1)
        {
          if (infer >= 0)
            return cn_error_set (nc->err, CN_EINVAL, "the target shape has two -1 extents");
          infer = i;
        }
      else if (sh[i] < 0)
        return cn_error_set (nc->err, CN_EINVAL, "negative target extent %lld", (long long) sh[i]);
      else if (__builtin_mul_overflow (known, sh[i], &known))
        return cn_error_set (nc->err, CN_ESHAPE, "the target shape has too many elements");
    }
  int64_t total = cn_shape_numel (is);
  if (infer >= 0)
    {
      if (known == 0 || total % known != 0)
        {
          char a[128];
          return cn_error_set (nc->err, CN_ESHAPE, "cannot infer the -1 extent reshaping %s",
                               cn_shape_format (is, a, sizeof a));
        }
      sh[infer] = total / known;
    }
  cn_shape os;
  if ((st = cn__onnx_make_shape (nc, n, sh, &os)) != CN_OK)
    return st;
  return emit_reshape (nc, &os);
}

/* Squeeze and Unsqueeze: axes from the attribute (before opset 13) or from input 1. */
static cn_status
read_axes (cn__onnx_node *nc, int64_t *ax, int *n)
{
  cn_status st = cn__onnx_attr_ints (nc, "axes", ax, CN_MAX_RANK, n);
  if (st == CN_OK && cn__onnx_has (nc, 1))
    {
      if (*n >= 0)
        return cn_error_set (nc->err, CN_EINVAL, "axes given both as attribute and input");
      st = cn__onnx_const_ints (nc, 1, "axes", ax, CN_MAX_RANK, n);
    }
  return st;
}

static cn_status
op_squeeze (cn__onnx_node *nc)
{
  cn_status st;
  int64_t ax[CN_MAX_RANK];
  int n;
  if ((st = cn__onnx_need (nc, 0)) != CN_OK || (st = read_axes (nc, ax, &n)) != CN_OK)
    return st;
  const cn_shape *is = cn__onnx_shape (nc, 0);
  uint32_t drop = 0;
  for (int i = 0; i < n; i++)
    {
      int a = 0;
      if ((st = cn__onnx_axis (nc, ax[i], is->rank, "axis", &a)) != CN_OK)
        return st;
      if (is->dim[a] != 1)
        return cn_error_set (nc->err, CN_ESHAPE, "axis %d has extent %lld, not 1", a, (long long) is->dim[a]);
      drop |= 1u << a;
    }
  if (n < 0)
    for (int a = 0; a < is->rank; a++)
      if (is->dim[a] == 1)
        drop |= 1u << a;
  cn_shape os;
  memset (&os, 0, sizeof os);
  for (int a = 0; a < is->rank; a++)
    if (!(drop & (1u << a)))
      os.dim[os.rank++] = is->dim[a];
  return emit_reshape (nc, &os);
}

static cn_status
op_unsqueeze (cn__onnx_node *nc)
{
  cn_status st;
  int64_t ax[CN_MAX_RANK];
  int n;
  if ((st = cn__onnx_need (nc, 0)) != CN_OK || (st = read_axes (nc, ax, &n)) != CN_OK)
    return st;
  if (n < 0)
    return cn_error_set (nc->err, CN_EPARSE, "the axes are missing");
  const cn_shape *is = cn__onnx_shape (nc, 0);
  int r = is->rank + n;
  if (r > CN_MAX_RANK)
    return cn_error_set (nc->err, CN_EUNSUPPORTED, "rank %d is above %d", r, CN_MAX_RANK);
  uint32_t ins = 0;
  for (int i = 0; i < n; i++)
    {
      int a = 0;
      if ((st = cn__onnx_axis (nc, ax[i], r, "axis", &a)) != CN_OK)
        return st;
      if (ins & (1u << a))
        return cn_error_set (nc->err, CN_EINVAL, "axis %d is repeated", a);
      ins |= 1u << a;
    }
  cn_shape os;
  memset (&os, 0, sizeof os);
  os.rank = r;
  for (int a = 0, j = 0; a < r; a++)
    os.dim[a] = (ins & (1u << a)) ? 1 : is->dim[j++];
  return emit_reshape (nc, &os);
}

static cn_status
op_transpose (cn__onnx_node *nc)
{
  cn_status st;
  int64_t pv[CN_MAX_RANK];
  int n, perm[CN_MAX_RANK];
  if ((st = cn__onnx_need (nc, 0)) != CN_OK || (st = cn__onnx_attr_ints (nc, "perm", pv, CN_MAX_RANK, &n)) != CN_OK)
    return st;
  int r = cn__onnx_shape (nc, 0)->rank;
  if (n < 0)
    for (int i = 0; i < r; i++)
      perm[i] = r - 1 - i;
  else
    {
      uint32_t seen = 0;
      if (n != r)
        return cn_error_set (nc->err, CN_EINVAL, "perm has %d entries for rank %d", n, r);
      for (int i = 0; i < r; i++)
        {
          if (pv[i] < 0 || pv[i] >= r || (seen & (1u << pv[i])))
            return cn_error_set (nc->err, CN_EINVAL, "perm is not a permutation of 0..%d", r - 1);
          seen |= 1u << pv[i];
          perm[i] = (int) pv[i];
        }
    }
  int x, v;
  if ((st = cn__onnx_in (nc, 0, &x)) != CN_OK || (st = cn__onnx_permute (nc, x, r, perm, NULL, &v)) != CN_OK)
    return st;
  return v == x ? cn__onnx_out_alias (nc, 0, 0) : cn__onnx_out (nc, 0, v, 1);
}

static cn_status
op_concat (cn__onnx_node *nc)
{
  cn_status st;
  int64_t axis;
  if ((st = cn__onnx_attr_int (nc, "axis", 0, &axis)) != CN_OK)
    return st;
  int n = 0, first = -1;
  for (int i = 0; i < nc->n_in; i++)
    if (nc->in[i] != NULL)
      {
        n++;
        first = first < 0 ? i : first;
      }
  if (n == 0)
    return cn_error_set (nc->err, CN_EPARSE, "no inputs");
  cn_shape s0 = *cn__onnx_shape (nc, first);
  int a = 0;
  if ((st = cn__onnx_axis (nc, axis, s0.rank, "axis", &a)) != CN_OK)
    return st;
  for (int i = 0; i < nc->n_in; i++)
    if (nc->in[i] != NULL)
      {
        const cn_shape *si = cn__onnx_shape (nc, i);
        int ok = si->rank == s0.rank;
        for (int d = 0; ok && d < s0.rank; d++)
          ok = d == a || si->dim[d] == s0.dim[d];
        if (!ok)
          {
            char x[128], y[128];
            return cn_error_set (nc->err, CN_ESHAPE, "input shapes %s and %s differ off axis %d",
                                 cn_shape_format (&s0, x, sizeof x), cn_shape_format (si, y, sizeof y), a);
          }
      }
  if (n == 1)
    return cn__onnx_out_alias (nc, 0, first);
  /* The inputs hold one element sort: the model's scalar, Booleans or one word sort. */
  for (int i = first + 1; i < nc->n_in; i++)
    if (nc->in[i] != NULL && (st = cn__onnx_sorts_agree (nc, first, i)) != CN_OK)
      return st;
  int *in = malloc ((size_t) n * sizeof *in), v;
  if (in == NULL)
    return cn__onnx_nomem (nc);
  st = CN_OK;
  for (int i = 0, j = 0; st == CN_OK && i < nc->n_in; i++)
    if (nc->in[i] != NULL)
      st = cn__onnx_in (nc, i, &in[j++]);
  cn_params_cat p = { a };
  if (st == CN_OK)
    st = cn__onnx_add (nc, CN_OP_CAT, &p, n, in, NULL, &v);
  free (in);
  return st != CN_OK ? st : cn__onnx_out (nc, 0, v, 1);
}

/* The slice of the whole of shape S: every axis from 0 to its extent, step 1. */
static void
whole_slice (const cn_shape *s, cn_params_slice *p)
{
  memset (p, 0, sizeof *p);
  p->rank = s->rank;
  for (int i = 0; i < s->rank; i++)
    {
      p->stop[i] = s->dim[i];
      p->step[i] = 1;
    }
}

/* Split: one slice per output along the axis; the sizes from the attribute (before opset 13),
 * the constant input (since), or equal parts. */
static cn_status
op_split (cn__onnx_node *nc)
{
  int64_t axis, sz[CN__ONNX_MAX_OUT];
  int ns = -1, a = 0;
  cn_status st;
  if ((st = cn__onnx_need (nc, 0)) != CN_OK || (st = cn__onnx_attr_int (nc, "axis", 0, &axis)) != CN_OK)
    return st;
  int no = (int) nc->np->n_output;
  if (no < 1 || no > CN__ONNX_MAX_OUT)
    return cn_error_set (nc->err, CN_EUNSUPPORTED, "%d outputs are not supported (1 to %d)", no, CN__ONNX_MAX_OUT);
  if (nc->imp->opset < 13)
    st = cn__onnx_attr_ints (nc, "split", sz, CN__ONNX_MAX_OUT, &ns);
  else if (cn__onnx_attr (nc, "split") != NULL)
    st = cn_error_set (nc->err, CN_EUNSUPPORTED, "attribute split is not supported from opset 13");
  else if (cn__onnx_has (nc, 1))
    st = cn__onnx_const_ints (nc, 1, "split", sz, CN__ONNX_MAX_OUT, &ns);
  if (st != CN_OK)
    return st;
  cn_shape s = *cn__onnx_shape (nc, 0);
  if ((st = cn__onnx_axis (nc, axis, s.rank, "axis", &a)) != CN_OK)
    return st;
  int64_t d = s.dim[a];
  if (ns < 0)
    {
      if (d % no != 0)
        return cn_error_set (nc->err, CN_EINVAL, "extent %lld does not split into %d equal parts", (long long) d, no);
      for (int k = 0; k < no; k++)
        sz[k] = d / no;
      ns = no;
    }
  if (ns != no)
    return cn_error_set (nc->err, CN_EINVAL, "split has %d entries for %d outputs", ns, no);
  int64_t tot = 0;
  for (int k = 0; k < no; k++)
    {
      if (sz[k] < 0)
        return cn_error_set (nc->err, CN_EINVAL, "negative split %lld", (long long) sz[k]);
      tot += sz[k];
    }
  if (tot != d)
    return cn_error_set (nc->err, CN_EINVAL, "the splits sum to %lld, not the extent %lld", (long long) tot,
                         (long long) d);
  int64_t at = 0;
  for (int k = 0; k < no; k++)
    {
      cn_params_slice p;
      whole_slice (&s, &p);
      p.start[a] = at;
      p.stop[a] = at + sz[k];
      at += sz[k];
      if (!cn__onnx_out_wanted (nc, k))
        continue;
      int x, v;
      char sfx[32];
      snprintf (sfx, sizeof sfx, "part%d", k);
      if ((st = cn__onnx_in (nc, 0, &x)) != CN_OK || (st = cn__onnx_add1 (nc, CN_OP_SLICE, &p, x, sfx, &v)) != CN_OK
          || (st = cn__onnx_out (nc, k, v, 1)) != CN_OK)
        return st;
    }
  return CN_OK;
}

/* Expand: numpy broadcasting of the input and the constant shape (in both directions). */
static cn_status
op_expand (cn__onnx_node *nc)
{
  int64_t d[CN_MAX_RANK];
  int n, x, v;
  cn_shape t, os;
  char a[128], b[128];
  cn_status st;
  if ((st = cn__onnx_need (nc, 0)) != CN_OK || (st = cn__onnx_need (nc, 1)) != CN_OK
      || (st = cn__onnx_const_ints (nc, 1, "shape", d, CN_MAX_RANK, &n)) != CN_OK
      || (st = cn__onnx_make_shape (nc, n, d, &t)) != CN_OK)
    return st;
  if (!cn__onnx_broadcast_shape (cn__onnx_shape (nc, 0), &t, &os))
    return cn_error_set (nc->err, CN_ESHAPE, "shapes %s and %s do not broadcast",
                         cn_shape_format (cn__onnx_shape (nc, 0), a, sizeof a), cn_shape_format (&t, b, sizeof b));
  if ((st = cn__onnx_in (nc, 0, &x)) != CN_OK || (st = cn__onnx_broadcast (nc, x, &os, NULL, &v)) != CN_OK)
    return st;
  return v == x ? cn__onnx_out_alias (nc, 0, 0) : cn__onnx_out (nc, 0, v, 1);
}

/* Tile: x [d_0..d_{r-1}] reshaped to [1, d_0, ..., 1, d_{r-1}], broadcast to
 * [m_0, d_0, ..., m_{r-1}, d_{r-1}] and reshaped to [m_0 d_0, ...]: exact data movement (rank
 * 2r <= 8). */
static cn_status
op_tile (cn__onnx_node *nc)
{
  int64_t m[CN_MAX_RANK];
  int n, x, a, b, v;
  cn_status st;
  if ((st = cn__onnx_need (nc, 0)) != CN_OK || (st = cn__onnx_need (nc, 1)) != CN_OK
      || (st = cn__onnx_const_ints (nc, 1, "repeats", m, CN_MAX_RANK, &n)) != CN_OK)
    return st;
  cn_shape s = *cn__onnx_shape (nc, 0);
  if (n != s.rank)
    return cn_error_set (nc->err, CN_EINVAL, "repeats has %d entries for rank %d", n, s.rank);
  if (2 * s.rank > CN_MAX_RANK)
    return cn_error_set (nc->err, CN_EUNSUPPORTED, "rank %d is above %d", s.rank, CN_MAX_RANK / 2);
  cn_shape p, q, u;
  memset (&p, 0, sizeof p);
  memset (&q, 0, sizeof q);
  memset (&u, 0, sizeof u);
  p.rank = q.rank = 2 * s.rank;
  u.rank = s.rank;
  for (int i = 0; i < s.rank; i++)
    {
      if (m[i] < 0)
        return cn_error_set (nc->err, CN_EINVAL, "negative repeat %lld", (long long) m[i]);
      if (s.dim[i] != 0 && m[i] > INT64_MAX / s.dim[i])
        return cn_error_set (nc->err, CN_ELIMIT, "repeat %lld of an axis of %lld overflows the size limit %lld",
                             (long long) m[i], (long long) s.dim[i], (long long) cn_max_numel ());
      p.dim[2 * i] = 1;
      p.dim[2 * i + 1] = q.dim[2 * i + 1] = s.dim[i];
      q.dim[2 * i] = m[i];
      u.dim[i] = m[i] * s.dim[i];
    }
  if ((st = cn__onnx_in (nc, 0, &x)) != CN_OK || (st = cn__onnx_reshape (nc, x, &p, "spread", &a)) != CN_OK
      || (st = cn__onnx_broadcast (nc, a, &q, "repeated", &b)) != CN_OK
      || (st = cn__onnx_reshape (nc, b, &u, NULL, &v)) != CN_OK)
    return st;
  return cn__onnx_out (nc, 0, v, 1);
}

/* Pad (constant mode): the pads from the attribute (before opset 11) or the constant input 1, the
 * value from the attribute or the constant scalar input 2, which must be an element of the
 * data's sort (pad takes it as a binary64 number: exact for words of magnitude <= 2^53). */
static cn_status
op_pad (cn__onnx_node *nc)
{
  static const char *const modes[] = { "constant", NULL };
  cn_status st;
  int mode, n = -1;
  int64_t pads[2 * CN_MAX_RANK];
  double value;
  if ((st = cn__onnx_need (nc, 0)) != CN_OK
      || (st = cn__onnx_attr_choice (nc, "mode", "constant", modes, &mode)) != CN_OK
      || (st = cn__onnx_attr_float (nc, "value", 0.0, &value)) != CN_OK
      || (st = cn__onnx_attr_ints (nc, "pads", pads, 2 * CN_MAX_RANK, &n)) != CN_OK)
    return st;
  if (cn__onnx_has (nc, 1))
    {
      if (n >= 0)
        return cn_error_set (nc->err, CN_EINVAL, "pads given both as attribute and input");
      if ((st = cn__onnx_const_ints (nc, 1, "pads", pads, 2 * CN_MAX_RANK, &n)) != CN_OK)
        return st;
    }
  cn_dtype ds = cn__onnx_sort (nc, 0);
  if (cn__onnx_has (nc, 2))
    {
      const cn_tensor *c = cn__onnx_const (nc, 2);
      if (c == NULL || cn_tensor_numel (c) != 1)
        return cn_error_set (nc->err, CN_EUNSUPPORTED, "constant_value must be a constant scalar");
      cn_dtype cs = cn__onnx_sort (nc, 2);
      if (!cn_dtype_is_float (ds) && cs != ds)
        return cn_error_set (nc->err, CN_EUNSUPPORTED, "constant_value ('%s') holds %s values where input 0 ('%s') "
                             "holds %s", nc->in[2]->name, cn__onnx_sort_name (cs), nc->in[0]->name,
                             cn__onnx_sort_name (ds));
      value = cn_tensor_get_f64 (c, 0);
      if (!cn_dtype_is_float (cs) && !(fabs (value) <= 0x1p53))
        return cn_error_set (nc->err, CN_EUNSUPPORTED, "the padding value %.0f is beyond 2^53 (not supported)", value);
    }
  if (cn__onnx_has (nc, 3))
    return cn_error_set (nc->err, CN_EUNSUPPORTED, "the axes input is not supported");
  int r = cn__onnx_shape (nc, 0)->rank;
  if (n != 2 * r)
    return cn_error_set (nc->err, CN_EINVAL, "pads has %d entries for rank %d", n < 0 ? 0 : n, r);
  if (!isfinite (value))
    return cn_error_set (nc->err, CN_ENUMERIC, "the padding value is not finite");
  cn_params_pad p;
  memset (&p, 0, sizeof p);
  p.rank = r;
  p.value = value;
  int zero = 1;
  for (int i = 0; i < r; i++)
    {
      p.begin[i] = pads[i];
      p.end[i] = pads[r + i];
      if (p.begin[i] < 0 || p.end[i] < 0)
        return cn_error_set (nc->err, CN_EUNSUPPORTED, "negative pads are not supported");
      if (p.begin[i] > CN__ONNX_GEOM_MAX || p.end[i] > CN__ONNX_GEOM_MAX)
        return cn_error_set (nc->err, CN_EINVAL, "pads above %lld", (long long) CN__ONNX_GEOM_MAX);
      zero &= p.begin[i] == 0 && p.end[i] == 0;
    }
  if (zero)
    return cn__onnx_out_alias (nc, 0, 0);
  int x, v;
  if ((st = cn__onnx_in (nc, 0, &x)) != CN_OK || (st = cn__onnx_add1 (nc, CN_OP_PAD, &p, x, NULL, &v)) != CN_OK)
    return st;
  return cn__onnx_out (nc, 0, v, 1);
}

/* DepthToSpace and SpaceToDepth on [N, C, H, W]: reshape, permute, reshape (exact data
 * movement).  DepthToSpace DCR: [N, b, b, C', H, W] -> (0, 3, 4, 1, 5, 2); CRD:
 * [N, C', b, b, H, W] -> (0, 1, 4, 2, 5, 3); SpaceToDepth: [N, C, H', b, W', b] -> (0, 3, 5, 1, 2, 4). */
static cn_status
space_depth (cn__onnx_node *nc, int to_space)
{
  static const char *const modes[] = { "DCR", "CRD", NULL };
  int64_t b;
  int mode = 0, x, r, q, v;
  cn_status st;
  if ((st = cn__onnx_x (nc, &x)) != CN_OK || (st = cn__onnx_attr_int (nc, "blocksize", 0, &b)) != CN_OK
      || (to_space && (st = cn__onnx_attr_choice (nc, "mode", "DCR", modes, &mode)) != CN_OK))
    return st;
  const cn_shape *s = cn__onnx_shape (nc, 0);
  if (s->rank != 4)
    return cn_error_set (nc->err, CN_ESHAPE, "the input must have rank 4");
  int64_t N = s->dim[0], C = s->dim[1], H = s->dim[2], Wd = s->dim[3];
  if (b < 1 || (to_space ? C % (b * b) : (H % b) | (Wd % b)) != 0)
    return cn_error_set (nc->err, CN_EINVAL, "blocksize %lld does not divide the input", (long long) b);
  cn_shape t, u;
  memset (&t, 0, sizeof t);
  memset (&u, 0, sizeof u);
  t.rank = 6;
  u.rank = 4;
  static const int dcr[6] = { 0, 3, 4, 1, 5, 2 }, crd[6] = { 0, 1, 4, 2, 5, 3 }, s2d[6] = { 0, 3, 5, 1, 2, 4 };
  const int *perm;
  if (to_space)
    {
      int64_t c = C / (b * b);
      int64_t dd[6] = { N, b, b, c, H, Wd }, de[6] = { N, c, b, b, H, Wd };
      memcpy (t.dim, mode == 0 ? dd : de, sizeof dd);
      perm = mode == 0 ? dcr : crd;
      u.dim[0] = N;
      u.dim[1] = c;
      u.dim[2] = H * b;
      u.dim[3] = Wd * b;
    }
  else
    {
      int64_t dd[6] = { N, C, H / b, b, Wd / b, b };
      memcpy (t.dim, dd, sizeof dd);
      perm = s2d;
      u.dim[0] = N;
      u.dim[1] = C * b * b;
      u.dim[2] = H / b;
      u.dim[3] = Wd / b;
    }
  cn_params_permute p;
  memset (&p, 0, sizeof p);
  p.rank = 6;
  memcpy (p.perm, perm, sizeof p.perm[0] * 6);
  if ((st = cn__onnx_reshape (nc, x, &t, "split", &r)) != CN_OK
      || (st = cn__onnx_add1 (nc, CN_OP_PERMUTE, &p, r, "permuted", &q)) != CN_OK
      || (st = cn__onnx_reshape (nc, q, &u, NULL, &v)) != CN_OK)
    return st;
  return cn__onnx_out (nc, 0, v, 1);
}

static cn_status op_depth_to_space (cn__onnx_node *nc) { return space_depth (nc, 1); }
static cn_status op_space_to_depth (cn__onnx_node *nc) { return space_depth (nc, 0); }

const struct cn__onnx_handler cn__onnx_movement[] = {
  { "Concat", op_concat, "axis", 1 },
  { "DepthToSpace", op_depth_to_space, "blocksize mode", 1 },
  { "Expand", op_expand, "", 1 },
  { "Flatten", op_flatten, "axis", 1 },
  { "Identity", op_identity, "", 1 },
  { "Pad", op_pad, "mode pads value", 1 },
  { "Reshape", op_reshape, "allowzero", 1 },
  { "SpaceToDepth", op_space_to_depth, "blocksize", 1 },
  { "Split", op_split, "axis split", 1 },
  { "Squeeze", op_squeeze, "axes", 1 },
  { "Tile", op_tile, "", 1 },
  { "Transpose", op_transpose, "perm", 1 },
  { "Unsqueeze", op_unsqueeze, "axes", 1 },
  { NULL, NULL, NULL, 0 },
};
