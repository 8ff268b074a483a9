/* SPDX-License-Identifier: MIT */
/* src/io/onnx/constant.c: the ONNX operators that make constants: Constant, ConstantOfShape and
 * EyeLike (their data given by attributes), Shape and Size (the static shape of a value: a
 * constant INT64 tensor), and Range (start + i delta, as nodes over constants: indices, mul, add,
 * folded where exact).  Every constant keeps its ONNX sort. */
#include <config.h>
#include <math.h>
#include <stdint.h>
#include <string.h>
#include "graph/graph_impl.h"
#include "io/onnx/onnx_impl.h"

/* *T = a tensor of sort DT and shape S whose every entry is the one at ELEM (DT's width). */
static cn_status
fill_tensor (cn__onnx_node *nc, cn_dtype dt, const cn_shape *s, const void *elem, cn_tensor *t)
{
  cn_status st = cn_tensor_init (t, dt, s, nc->err);
  if (st != CN_OK)
    return st;
  size_t es = cn_dtype_size (dt);
  int64_t n = cn_tensor_numel (t);
  for (int64_t i = 0; i < n; i++)
    memcpy ((char *) t->data + i * (int64_t) es, elem, es);
  return CN_OK;
}

/* Output 0 = the constant *T (taken), under the output's name. */
static cn_status
out_take (cn__onnx_node *nc, cn_tensor *t)
{
  if (!cn__onnx_out_wanted (nc, 0))
    {
      cn_tensor_clear (t);
      return CN_OK;
    }
  return cn__onnx_define_const (nc->imp, nc->np->output[0], t, nc->err);
}

static cn_status
op_constant (cn__onnx_node *nc)
{
  cn_status st;
  cn_tensor t;
  memset (&t, 0, sizeof t);
  const Onnx__AttributeProto *a;
  cn_shape s;
  memset (&s, 0, sizeof s);
  if ((a = cn__onnx_attr (nc, "value")) != NULL)
    {
      if (!cn__onnx_attr_is (a, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TENSOR) || a->t == NULL)
        return cn_error_set (nc->err, CN_EPARSE, "attribute 'value' is not a tensor");
      st = cn__onnx_parse_tensor (a->t, nc->np->n_output > 0 ? nc->np->output[0] : nc->name, &t, nc->err);
    }
  else if ((a = cn__onnx_attr (nc, "value_float")) != NULL)
    {
      float f = a->f;
      st = fill_tensor (nc, CN_DTYPE_F32, &s, &f, &t);
    }
  else if ((a = cn__onnx_attr (nc, "value_int")) != NULL)
    st = fill_tensor (nc, CN_DTYPE_I64, &s, &a->i, &t);
  else if ((a = cn__onnx_attr (nc, "value_floats")) != NULL || (a = cn__onnx_attr (nc, "value_ints")) != NULL)
    {
      int fl = strcmp (a->name, "value_floats") == 0;
      int64_t n = fl ? (int64_t) a->n_floats : (int64_t) a->n_ints;
      cn_shape_make (&s, 1, &n, NULL);
      st = cn_tensor_init (&t, fl ? CN_DTYPE_F32 : CN_DTYPE_I64, &s, nc->err);
      for (int64_t i = 0; st == CN_OK && i < n; i++)
        if (fl)
          ((float *) t.data)[i] = a->floats[i];
        else
          ((int64_t *) t.data)[i] = a->ints[i];
    }
  else
    return cn_error_set (nc->err, CN_EPARSE, "no value attribute");
  return st != CN_OK ? st : out_take (nc, &t);
}

/* ConstantOfShape: the constant shape (input 0) filled with the one entry of the attribute value
 * (a tensor of any sort; default a FLOAT 0). */
static cn_status
op_constant_of_shape (cn__onnx_node *nc)
{
  cn_status st;
  int64_t sh[CN_MAX_RANK];
  int n;
  if ((st = cn__onnx_need (nc, 0)) != CN_OK
      || (st = cn__onnx_const_ints (nc, 0, "shape", sh, CN_MAX_RANK, &n)) != CN_OK)
    return st;
  cn_shape s;
  if ((st = cn__onnx_make_shape (nc, n, sh, &s)) != CN_OK)
    return st;
  cn_tensor vt, t;
  const Onnx__AttributeProto *a = cn__onnx_attr (nc, "value");
  if (a != NULL)
    {
      if (!cn__onnx_attr_is (a, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TENSOR) || a->t == NULL)
        return cn_error_set (nc->err, CN_EPARSE, "attribute 'value' is not a tensor");
      if ((st = cn__onnx_parse_tensor (a->t, "value", &vt, nc->err)) != CN_OK)
        return st;
      if (cn_tensor_numel (&vt) != 1)
        {
          cn_tensor_clear (&vt);
          return cn_error_set (nc->err, CN_EINVAL, "attribute 'value' must hold one element");
        }
      st = fill_tensor (nc, vt.dtype, &s, vt.data, &t);
      cn_tensor_clear (&vt);
    }
  else
    {
      float zero = 0;
      st = fill_tensor (nc, CN_DTYPE_F32, &s, &zero, &t);
    }
  return st != CN_OK ? st : out_take (nc, &t);
}

/* EyeLike: a constant of the (static, 2-D) input shape with ones on the diagonal k, of the sort
 * of attribute dtype (FLOAT, DOUBLE, INT32, INT64) or of the input. */
static cn_status
op_eye_like (cn__onnx_node *nc)
{
  int64_t k, dt;
  cn_status st;
  if ((st = cn__onnx_need (nc, 0)) != CN_OK || (st = cn__onnx_attr_int (nc, "k", 0, &k)) != CN_OK
      || (st = cn__onnx_attr_int (nc, "dtype", 0, &dt)) != CN_OK)
    return st;
  const cn_shape *s = cn__onnx_shape (nc, 0);
  if (s->rank != 2)
    return cn_error_set (nc->err, CN_ESHAPE, "the input must have rank 2");
  cn_dtype d;
  if (dt == 0)
    d = cn__onnx_sort (nc, 0);
  else if (dt == 1 || dt == 11 || dt == 6 || dt == 7)
    d = cn__onnx_sort_of_type (dt);
  else
    return cn_error_set (nc->err, CN_EUNSUPPORTED, "attribute dtype = %lld is not supported", (long long) dt);
  cn_tensor t;
  if ((st = cn_tensor_init (&t, d, s, nc->err)) != CN_OK)
    return st;
  /* a one of the sort, copied onto the diagonal (the buffer is zero-filled) */
  cn_tensor one;
  cn_shape s1;
  double x1 = 1;
  memset (&s1, 0, sizeof s1);
  cn_tensor src = { CN_DTYPE_F64, s1, &x1 };
  if ((st = cn_tensor_convert (&one, d, &src, nc->err)) != CN_OK)
    {
      cn_tensor_clear (&t);
      return st;
    }
  size_t es = cn_dtype_size (d);
  for (int64_t i = 0; i < s->dim[0]; i++)
    {
      int64_t j = i + k;
      if (j >= 0 && j < s->dim[1])
        memcpy ((char *) t.data + (i * s->dim[1] + j) * (int64_t) es, one.data, es);
    }
  cn_tensor_clear (&one);
  return out_take (nc, &t);
}

/* Shape: the extents start .. end (clamped into the rank) of input 0, an INT64 vector. */
static cn_status
op_shape (cn__onnx_node *nc)
{
  cn_status st = cn__onnx_need (nc, 0);
  int64_t start, end;
  if (st != CN_OK || (st = cn__onnx_attr_int (nc, "start", 0, &start)) != CN_OK
      || (st = cn__onnx_attr_int (nc, "end", INT64_MAX, &end)) != CN_OK)
    return st;
  cn_shape s = *cn__onnx_shape (nc, 0);
  int64_t r = s.rank;
  start = start < 0 ? (start + r < 0 ? 0 : start + r) : (start > r ? r : start);
  end = end < 0 ? (end + r < 0 ? 0 : end + r) : (end > r ? r : end);
  int64_t n = end > start ? end - start : 0;
  cn_shape os;
  cn_shape_make (&os, 1, &n, NULL);
  cn_tensor t;
  if ((st = cn_tensor_init (&t, CN_DTYPE_I64, &os, nc->err)) != CN_OK)
    return st;
  for (int64_t i = 0; i < n; i++)
    ((int64_t *) t.data)[i] = s.dim[start + i];
  return out_take (nc, &t);
}

/* Size: the number of entries of input 0, an INT64 scalar. */
static cn_status
op_size (cn__onnx_node *nc)
{
  cn_status st = cn__onnx_need (nc, 0);
  if (st != CN_OK)
    return st;
  cn_shape s0;
  cn_tensor t;
  memset (&s0, 0, sizeof s0);
  int64_t n = cn_shape_numel (cn__onnx_shape (nc, 0));
  if ((st = fill_tensor (nc, CN_DTYPE_I64, &s0, &n, &t)) != CN_OK)
    return st;
  return out_take (nc, &t);
}

/* Range (start, limit, delta: constant scalars of one sort): the n = max(ceil((limit - start) /
 * delta), 0) entries start + i delta, i = 0 .. n-1 (at most 2^24 of them).  Written as nodes: the
 * indices i of a [n] vector, cast to the sort for words, times delta, plus start; over constants
 * they fold (words exactly; floats where every entry is exact, else the nodes stay and are
 * bounded as such). */
static cn_status
op_range (cn__onnx_node *nc)
{
  cn_status st;
  double v[3];
  for (int i = 0; i < 3; i++)
    {
      if ((st = cn__onnx_need (nc, i)) != CN_OK)
        return st;
      const cn_tensor *c = cn__onnx_const (nc, i);
      if (c == NULL || cn_tensor_numel (c) != 1)
        return cn_error_set (nc->err, CN_EUNSUPPORTED, "input %d ('%s') must be a constant scalar", i,
                             nc->in[i]->name);
      v[i] = cn_tensor_get_f64 (c, 0);
      if (!isfinite (v[i]))
        return cn_error_set (nc->err, CN_EUNSUPPORTED, "input %d ('%s') is not finite", i, nc->in[i]->name);
      if (i > 0 && (st = cn__onnx_sorts_agree (nc, 0, i)) != CN_OK)
        return st;
    }
  cn_dtype sort = cn__onnx_sort (nc, 0);
  if (sort == CN_DTYPE_BOOL)
    return cn_error_set (nc->err, CN_EUNSUPPORTED, "input 0 ('%s') holds BOOL values, which have no arithmetic",
                         nc->in[0]->name);
  if (v[2] == 0)
    return cn_error_set (nc->err, CN_EINVAL, "delta is 0");
  double cnt = ceil ((v[1] - v[0]) / v[2]);
  if (cnt < 0)
    cnt = 0;
  if (cnt > 16777216.0)
    return cn_error_set (nc->err, CN_EUNSUPPORTED, "a range of more than 2^24 entries is not supported");
  cn_shape s;
  int64_t n = (int64_t) cnt;
  cn_shape_make (&s, 1, &n, NULL);
  if (n == 0)
    {
      cn_tensor t;
      if ((st = cn_tensor_init (&t, sort, &s, nc->err)) != CN_OK)
        return st;
      return out_take (nc, &t);
    }
  int z, idx, start, delta, sb, db, p, y;
  cn_params_indices pi = { 0 };
  cn_params_cast pc = { sort };
  if ((st = cn__onnx_fill (nc, CN_DTYPE_F64, &s, 0.0, "zeros", &z)) != CN_OK
      || (st = cn__onnx_add1 (nc, CN_OP_INDICES, &pi, z, "indices", &idx)) != CN_OK
      || (!cn_dtype_is_float (sort) && (st = cn__onnx_add1 (nc, CN_OP_CAST, &pc, idx, "words", &idx)) != CN_OK)
      || (st = cn__onnx_in (nc, 0, &start)) != CN_OK || (st = cn__onnx_in (nc, 2, &delta)) != CN_OK)
    return st;
  cn_shape s0;
  memset (&s0, 0, sizeof s0);
  /* the scalars as [] (a [1] scalar reshaped), then broadcast to [n] */
  if ((st = cn__onnx_reshape (nc, start, &s0, "start", &start)) != CN_OK
      || (st = cn__onnx_reshape (nc, delta, &s0, "delta", &delta)) != CN_OK
      || (st = cn__onnx_broadcast (nc, start, &s, "start_b", &sb)) != CN_OK
      || (st = cn__onnx_broadcast (nc, delta, &s, "delta_b", &db)) != CN_OK
      || (st = cn__onnx_add2 (nc, CN_OP_MUL, NULL, idx, db, "steps", &p)) != CN_OK
      || (st = cn__onnx_add2 (nc, CN_OP_ADD, NULL, sb, p, NULL, &y)) != CN_OK)
    return st;
  return cn__onnx_out (nc, 0, y, 1);
}

const struct cn__onnx_handler cn__onnx_constants[] = {
  { "Constant", op_constant, "value value_float value_floats value_int value_ints", 0 },
  { "ConstantOfShape", op_constant_of_shape, "value", 0 },
  { "EyeLike", op_eye_like, "dtype k", 0 },
  { "Range", op_range, "", 1 },
  { "Shape", op_shape, "start end", 1 },
  { "Size", op_size, "", 1 },
  { NULL, NULL, NULL, 0 },
};
