/* SPDX-License-Identifier: MIT */
/* src/io/onnx/attr.c: the attributes of an ONNX node, and the constant inputs a handler reads as
 * values (axes, shapes, pads, scales, a scalar bound).  A constant input is read where the folds
 * left it (cn__onnx_const): an input that is not constant there is CN_EUNSUPPORTED naming it. */
#include <config.h>
#include <math.h>
#include <string.h>
#include "graph/graph_impl.h"
#include "io/onnx/onnx_impl.h"

const Onnx__AttributeProto *
cn__onnx_attr (const cn__onnx_node *nc, const char *name)
{
  for (size_t k = 0; k < nc->np->n_attribute; k++)
    if (nc->np->attribute[k]->name != NULL && strcmp (nc->np->attribute[k]->name, name) == 0)
      return nc->np->attribute[k];
  return NULL;
}

int
cn__onnx_attr_is (const Onnx__AttributeProto *a, Onnx__AttributeProto__AttributeType t)
{
  if (a->has_type)
    return a->type == t;
  switch (t)
    {
    case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT: return a->has_i;
    case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT: return a->has_f;
    case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING: return a->has_s;
    case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TENSOR: return a->t != NULL;
    case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS: return 1;
    case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOATS: return 1;
    default: return 0;
    }
}

cn_status
cn__onnx_attr_int (cn__onnx_node *nc, const char *name, int64_t def, int64_t *v)
{
  const Onnx__AttributeProto *a = cn__onnx_attr (nc, name);
  *v = def;
  if (a == NULL)
    return CN_OK;
  if (!cn__onnx_attr_is (a, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT))
    return cn_error_set (nc->err, CN_EPARSE, "attribute '%s' is not an integer", name);
  *v = a->i;
  return CN_OK;
}

cn_status
cn__onnx_attr_float (cn__onnx_node *nc, const char *name, double def, double *v)
{
  const Onnx__AttributeProto *a = cn__onnx_attr (nc, name);
  *v = def;
  if (a == NULL)
    return CN_OK;
  if (!cn__onnx_attr_is (a, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT))
    return cn_error_set (nc->err, CN_EPARSE, "attribute '%s' is not a float", name);
  *v = a->f;
  return CN_OK;
}

cn_status
cn__onnx_attr_finite (cn__onnx_node *nc, const char *name, double def, double *v)
{
  cn_status st = cn__onnx_attr_float (nc, name, def, v);
  if (st == CN_OK && !isfinite (*v))
    st = cn_error_set (nc->err, CN_EUNSUPPORTED, "attribute %s = %g is not finite", name, *v);
  return st;
}

cn_status
cn__onnx_attr_ints (cn__onnx_node *nc, const char *name, int64_t *buf, int max, int *n)
{
  const Onnx__AttributeProto *a = cn__onnx_attr (nc, name);
  *n = -1;
  if (a == NULL)
    return CN_OK;
  if (!cn__onnx_attr_is (a, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS))
    return cn_error_set (nc->err, CN_EPARSE, "attribute '%s' is not a list of integers", name);
  if (a->n_ints > (size_t) max)
    return cn_error_set (nc->err, CN_EINVAL, "attribute '%s' has %zu entries, at most %d expected", name, a->n_ints,
                         max);
  if (a->n_ints > 0)
    memcpy (buf, a->ints, a->n_ints * sizeof *buf);
  *n = (int) a->n_ints;
  return CN_OK;
}

cn_status
cn__onnx_attr_choice (cn__onnx_node *nc, const char *name, const char *def, const char *const *allowed, int *idx)
{
  const Onnx__AttributeProto *a = cn__onnx_attr (nc, name);
  char buf[64];
  const char *s = def;
  if (a != NULL)
    {
      if (!cn__onnx_attr_is (a, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING))
        return cn_error_set (nc->err, CN_EPARSE, "attribute '%s' is not a string", name);
      if (a->s.len > 0 && memchr (a->s.data, '\0', a->s.len) != NULL)
        return cn_error_set (nc->err, CN_EPARSE, "attribute '%s' holds a NUL character", name);
      size_t n = a->s.len < sizeof buf - 1 ? a->s.len : sizeof buf - 1;
      if (n > 0)
        memcpy (buf, a->s.data, n);
      buf[n] = '\0';
      s = buf;
    }
  for (int k = 0; allowed[k] != NULL; k++)
    if (strcmp (s, allowed[k]) == 0)
      {
        *idx = k;
        return CN_OK;
      }
  return cn_error_set (nc->err, CN_EUNSUPPORTED, "attribute %s = '%s' is not supported", name, s);
}

/* Entry I of the integer tensor T (any word sort), exactly. */
static int64_t
word_at (const cn_tensor *t, int64_t i)
{
  switch (t->dtype)
    {
    case CN_DTYPE_BOOL: case CN_DTYPE_U8: return ((const uint8_t *) t->data)[i];
    case CN_DTYPE_I8: return ((const int8_t *) t->data)[i];
    case CN_DTYPE_I16: return ((const int16_t *) t->data)[i];
    case CN_DTYPE_U16: return ((const uint16_t *) t->data)[i];
    case CN_DTYPE_I32: return ((const int32_t *) t->data)[i];
    case CN_DTYPE_U32: return ((const uint32_t *) t->data)[i];
    case CN_DTYPE_U64:
      {
        /* a word above INT64_MAX reads as INT64_MAX: as an extent or a position it is past
           every end, as it is in the sort */
        uint64_t u = ((const uint64_t *) t->data)[i];
        return u > (uint64_t) INT64_MAX ? INT64_MAX : (int64_t) u;
      }
    default: return ((const int64_t *) t->data)[i];
    }
}

cn_status
cn__onnx_const_ints (cn__onnx_node *nc, int i, const char *what, int64_t *buf, int max, int *n)
{
  const cn_tensor *c = cn__onnx_const (nc, i);
  const char *nm = nc->in[i]->name;
  if (c == NULL)
    return cn_error_set (nc->err, CN_EUNSUPPORTED, "the %s (input %d, '%s') must be a constant", what, i, nm);
  if (cn_dtype_is_float (c->dtype))
    return cn_error_set (nc->err, CN_EPARSE, "the %s (input %d, '%s') must be an integer tensor", what, i, nm);
  int64_t k = cn_tensor_numel (c);
  if (c->shape.rank > 1 || k > max)
    return cn_error_set (nc->err, CN_EINVAL, "the %s (input %d, '%s') must be a vector of at most %d entries", what, i,
                         nm, max);
  for (int64_t j = 0; j < k; j++)
    buf[j] = word_at (c, j);
  *n = (int) k;
  return CN_OK;
}

cn_status
cn__onnx_const_floats (cn__onnx_node *nc, int i, const char *what, double *buf, int max, int *n)
{
  const cn_tensor *c = cn__onnx_const (nc, i);
  const char *nm = nc->in[i]->name;
  if (c == NULL)
    return cn_error_set (nc->err, CN_EUNSUPPORTED, "the %s (input %d, '%s') must be a constant", what, i, nm);
  if (!cn_dtype_is_float (c->dtype))
    return cn_error_set (nc->err, CN_EPARSE, "the %s (input %d, '%s') must be a floating-point tensor", what, i, nm);
  int64_t k = cn_tensor_numel (c);
  if (c->shape.rank > 1 || k > max)
    return cn_error_set (nc->err, CN_EINVAL, "the %s (input %d, '%s') must be a vector of at most %d entries", what, i,
                         nm, max);
  for (int64_t j = 0; j < k; j++)
    buf[j] = cn_tensor_get_f64 (c, j);
  *n = (int) k;
  return CN_OK;
}

cn_status
cn__onnx_const_scalar (cn__onnx_node *nc, int i, const char *what, double *v)
{
  const cn_tensor *c = cn__onnx_const (nc, i);
  if (c == NULL || cn_tensor_numel (c) != 1)
    return cn_error_set (nc->err, CN_EUNSUPPORTED, "the %s (input %d, '%s') must be a constant scalar", what, i,
                         nc->in[i]->name);
  *v = cn_tensor_get_f64 (c, 0);
  if (isnan (*v))
    return cn_error_set (nc->err, CN_EUNSUPPORTED, "the %s (input %d, '%s') is NaN", what, i, nc->in[i]->name);
  return CN_OK;
}

cn_status
cn__onnx_axis (cn__onnx_node *nc, int64_t axis, int rank, const char *what, int *out)
{
  if (axis < -rank || axis >= rank)
    return cn_error_set (nc->err, CN_EINVAL, "%s %lld is out of range for rank %d", what, (long long) axis, rank);
  *out = (int) (axis < 0 ? axis + rank : axis);
  return CN_OK;
}

cn_status
cn__onnx_make_shape (cn__onnx_node *nc, int rank, const int64_t *dim, cn_shape *s)
{
  if (rank > CN_MAX_RANK)
    return cn_error_set (nc->err, CN_EUNSUPPORTED, "rank %d is above %d", rank, CN_MAX_RANK);
  memset (s, 0, sizeof *s);
  s->rank = rank;
  for (int i = 0; i < rank; i++)
    {
      if (dim[i] < 0)
        return cn_error_set (nc->err, CN_EINVAL, "negative extent %lld", (long long) dim[i]);
      s->dim[i] = dim[i];
    }
  return CN_OK;
}
