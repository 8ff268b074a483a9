/* SPDX-License-Identifier: MIT */
/* src/io/onnx/model.c: the ONNX model: unpacking it (protobuf-c bindings generated at build time
 * from onnx.proto), its tensors, the table of its value names, the import of each node through
 * its handler (the families' tables), the graph inputs and outputs, and the public entry points
 * cn_graph_load_onnx and cn_graph_load_onnx_buffer (certnn/graph.h).
 *
 * Statuses: CN_EIO (the file cannot be read), CN_EPARSE (malformed protobuf, missing or unknown
 * value names, malformed tensors), CN_EUNSUPPORTED (operators, attribute values, element sorts,
 * external data, opsets), CN_ESHAPE (shape mismatches), CN_ENUMERIC (a NaN or infinite weight),
 * CN_ENOMEM. */
#include <config.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "graph/graph_impl.h"
#include "io/onnx/onnx_impl.h"

/* ---- ONNX element types and tensors --------------------------------------------------------- */

const char *
cn__onnx_type_name (int32_t t)
{
  static const char *const names[] = {
    "UNDEFINED", "FLOAT", "UINT8", "INT8", "UINT16", "INT16", "INT32", "INT64", "STRING", "BOOL",
    "FLOAT16", "DOUBLE", "UINT32", "UINT64", "COMPLEX64", "COMPLEX128", "BFLOAT16"
  };
  return t >= 0 && t < (int32_t) (sizeof names / sizeof names[0]) ? names[t] : "unknown";
}

cn_dtype
cn__onnx_sort_of_type (int64_t t)
{
  switch (t)
    {
    case ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT: return CN_DTYPE_F32;
    case ONNX__TENSOR_PROTO__DATA_TYPE__DOUBLE: return CN_DTYPE_F64;
    case ONNX__TENSOR_PROTO__DATA_TYPE__BOOL: return CN_DTYPE_BOOL;
    case ONNX__TENSOR_PROTO__DATA_TYPE__INT8: return CN_DTYPE_I8;
    case ONNX__TENSOR_PROTO__DATA_TYPE__INT16: return CN_DTYPE_I16;
    case ONNX__TENSOR_PROTO__DATA_TYPE__INT32: return CN_DTYPE_I32;
    case ONNX__TENSOR_PROTO__DATA_TYPE__INT64: return CN_DTYPE_I64;
    case ONNX__TENSOR_PROTO__DATA_TYPE__UINT8: return CN_DTYPE_U8;
    case ONNX__TENSOR_PROTO__DATA_TYPE__UINT16: return CN_DTYPE_U16;
    case ONNX__TENSOR_PROTO__DATA_TYPE__UINT32: return CN_DTYPE_U32;
    case ONNX__TENSOR_PROTO__DATA_TYPE__UINT64: return CN_DTYPE_U64;
    case ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT16: return CN_DTYPE_F16;
    case ONNX__TENSOR_PROTO__DATA_TYPE__BFLOAT16: return CN_DTYPE_BF16;
    default: return CN_DTYPE_COUNT;
    }
}

const char *
cn__onnx_sort_name (cn_dtype t)
{
  static const int32_t types[CN_DTYPE_COUNT] = {
    [CN_DTYPE_F64] = ONNX__TENSOR_PROTO__DATA_TYPE__DOUBLE, [CN_DTYPE_F32] = ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT,
    [CN_DTYPE_BOOL] = ONNX__TENSOR_PROTO__DATA_TYPE__BOOL, [CN_DTYPE_I8] = ONNX__TENSOR_PROTO__DATA_TYPE__INT8,
    [CN_DTYPE_I16] = ONNX__TENSOR_PROTO__DATA_TYPE__INT16, [CN_DTYPE_I32] = ONNX__TENSOR_PROTO__DATA_TYPE__INT32,
    [CN_DTYPE_I64] = ONNX__TENSOR_PROTO__DATA_TYPE__INT64, [CN_DTYPE_U8] = ONNX__TENSOR_PROTO__DATA_TYPE__UINT8,
    [CN_DTYPE_U16] = ONNX__TENSOR_PROTO__DATA_TYPE__UINT16, [CN_DTYPE_U32] = ONNX__TENSOR_PROTO__DATA_TYPE__UINT32,
    [CN_DTYPE_U64] = ONNX__TENSOR_PROTO__DATA_TYPE__UINT64, [CN_DTYPE_F16] = ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT16,
    [CN_DTYPE_BF16] = ONNX__TENSOR_PROTO__DATA_TYPE__BFLOAT16
  };
  return (unsigned) t < CN_DTYPE_COUNT ? cn__onnx_type_name (types[t]) : "unknown";
}

/* The unsigned little-endian word of W bytes at P. */
static uint64_t
read_le (const uint8_t *p, size_t w)
{
  uint64_t x = 0;
  for (size_t i = 0; i < w; i++)
    x |= (uint64_t) p[i] << (8 * i);
  return x;
}

/* Where the typed (not raw) data of a tensor of ONNX type DT lives, and how many entries it has:
 * float_data, double_data, int64_data, uint64_data (UINT32, UINT64) or int32_data (the others). */
static size_t
typed_count (const Onnx__TensorProto *tp, int32_t dt)
{
  switch (dt)
    {
    case ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT: return tp->n_float_data;
    case ONNX__TENSOR_PROTO__DATA_TYPE__DOUBLE: return tp->n_double_data;
    case ONNX__TENSOR_PROTO__DATA_TYPE__INT64: return tp->n_int64_data;
    case ONNX__TENSOR_PROTO__DATA_TYPE__UINT32: case ONNX__TENSOR_PROTO__DATA_TYPE__UINT64: return tp->n_uint64_data;
    default: return tp->n_int32_data;
    }
}

cn_status
cn__onnx_parse_tensor (const Onnx__TensorProto *tp, const char *what, cn_tensor *out, cn_error *err)
{
  int32_t dt = tp->has_data_type ? tp->data_type : 0;
  cn_dtype sort = cn__onnx_sort_of_type (dt);
  if ((tp->has_data_location && tp->data_location == ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL)
      || tp->n_external_data > 0)
    return cn_error_set (err, CN_EUNSUPPORTED, "tensor '%s' keeps its data in an external file (not supported)", what);
  if (tp->segment != NULL)
    return cn_error_set (err, CN_EUNSUPPORTED, "tensor '%s' is segmented (not supported)", what);
  if (sort == CN_DTYPE_COUNT)
    return cn_error_set (err, CN_EUNSUPPORTED, "tensor '%s' has element type %s (%d), not supported", what,
                         cn__onnx_type_name (dt), (int) dt);
  size_t w = cn_dtype_size (sort);
  if (tp->n_dims > CN_MAX_RANK)
    return cn_error_set (err, CN_EUNSUPPORTED, "tensor '%s' has rank %zu, above %d", what, tp->n_dims, CN_MAX_RANK);
  cn_shape s;
  memset (&s, 0, sizeof s);
  s.rank = (int) tp->n_dims;
  for (size_t i = 0; i < tp->n_dims; i++)
    {
      if (tp->dims[i] < 0)
        return cn_error_set (err, CN_EPARSE, "tensor '%s' has the negative extent %lld", what, (long long) tp->dims[i]);
      s.dim[i] = tp->dims[i];
    }
  int64_t n = cn_shape_numel (&s);
  if (n < 0 || (uint64_t) n > SIZE_MAX / 8)
    return cn_error_set (err, CN_EPARSE, "tensor '%s' has too many elements", what);
  size_t typed_n = typed_count (tp, dt);
  int raw = tp->has_raw_data && (tp->raw_data.len > 0 || typed_n == 0);
  if (raw && tp->raw_data.len != (size_t) n * w)
    return cn_error_set (err, CN_EPARSE, "tensor '%s' has %zu bytes of raw_data, expected %lld (%lld elements of %s)",
                         what, tp->raw_data.len, (long long) ((size_t) n * w), (long long) n, cn__onnx_type_name (dt));
  if (!raw && typed_n != (size_t) n)
    return cn_error_set (err, CN_EPARSE, "tensor '%s' holds %zu values, its shape has %lld elements", what, typed_n,
                         (long long) n);
  cn_status st = cn_tensor_init (out, sort, &s, err);
  if (st != CN_OK)
    return st;
  /* Every entry as its bits, exactly: raw data is little-endian of the sort's width; typed data
   * sits in a wider field of the same value (a BOOL is 0 or 1). */
  for (int64_t i = 0; i < n; i++)
    {
      uint64_t u;
      if (raw)
        u = read_le (tp->raw_data.data + (size_t) i * w, w);
      else
        switch (dt)
          {
          case ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT:
            {
              float f = tp->float_data[i];
              uint32_t b;
              memcpy (&b, &f, 4);
              u = b;
              break;
            }
          case ONNX__TENSOR_PROTO__DATA_TYPE__DOUBLE:
            memcpy (&u, &tp->double_data[i], 8);
            break;
          case ONNX__TENSOR_PROTO__DATA_TYPE__INT64: u = (uint64_t) tp->int64_data[i]; break;
          case ONNX__TENSOR_PROTO__DATA_TYPE__UINT32: case ONNX__TENSOR_PROTO__DATA_TYPE__UINT64:
            u = tp->uint64_data[i];
            break;
          default: u = (uint64_t) (int64_t) tp->int32_data[i]; break;
          }
      if (sort == CN_DTYPE_BOOL)
        u = u != 0;
      /* now the low W bytes of U are the entry's bits (two's complement for signed words) */
      switch (w)
        {
        case 1: ((uint8_t *) out->data)[i] = (uint8_t) u; break;
        case 2: ((uint16_t *) out->data)[i] = (uint16_t) u; break;
        case 4: ((uint32_t *) out->data)[i] = (uint32_t) u; break;
        default: ((uint64_t *) out->data)[i] = u; break;
        }
    }
  return CN_OK;
}

/* ---- the value table -------------------------------------------------------------------------- */

static char *
dup_str (const char *s)
{
  size_t n = strlen (s);
  char *d = malloc (n + 1);
  if (d != NULL)
    memcpy (d, s, n + 1);
  return d;
}

static size_t
hash_str (const char *s)
{
  size_t h = 1469598103934665603u;
  for (; *s; s++)
    h = (h ^ (unsigned char) *s) * 1099511628211u;
  return h;
}

static struct cn__onnx_value *
lookup (const struct cn__onnx_import *imp, const char *name)
{
  for (int k = imp->bucket[hash_str (name) & (imp->n_bucket - 1)]; k >= 0; k = imp->vals[k]->next)
    if (strcmp (imp->vals[k]->name, name) == 0)
      return imp->vals[k];
  return NULL;
}

/* A new entry NAME of the table (graph value -1); *O receives it. */
static cn_status
new_entry (struct cn__onnx_import *imp, const char *name, struct cn__onnx_value **out, cn_error *err)
{
  if (lookup (imp, name) != NULL)
    return cn_error_set (err, CN_EPARSE, "value '%s' is defined twice", name);
  if (imp->n_vals == imp->cap_vals)
    {
      int cap = imp->cap_vals ? 2 * imp->cap_vals : 64;
      struct cn__onnx_value **nv = realloc (imp->vals, (size_t) cap * sizeof *nv);
      if (nv == NULL)
        return cn_error_set (err, CN_ENOMEM, "out of memory");
      imp->vals = nv;
      imp->cap_vals = cap;
    }
  struct cn__onnx_value *o = calloc (1, sizeof *o);
  if (o == NULL || (o->name = dup_str (name)) == NULL)
    {
      free (o);
      return cn_error_set (err, CN_ENOMEM, "out of memory");
    }
  o->gv = -1;
  size_t b = hash_str (name) & (imp->n_bucket - 1);
  o->next = imp->bucket[b];
  imp->bucket[b] = imp->n_vals;
  imp->vals[imp->n_vals++] = o;
  *out = o;
  return CN_OK;
}

cn_status
cn__onnx_define (struct cn__onnx_import *imp, const char *name, int gv, cn_error *err)
{
  struct cn__onnx_value *o;
  cn_status st = new_entry (imp, name, &o, err);
  if (st == CN_OK)
    o->gv = gv;
  return st;
}

/* Whether T holds what no graph constant can: an integer word beyond 2^53, a NaN or an
 * infinity. */
static int
graph_cannot_hold (const cn_tensor *t)
{
  int64_t n = cn_tensor_numel (t);
  if (cn_dtype_is_float (t->dtype))
    {
      for (int64_t i = 0; i < n; i++)
        if (!isfinite (cn_tensor_get_f64 (t, i)))
          return 1;
      return 0;
    }
  for (int64_t i = 0; i < n; i++)
    if (t->dtype == CN_DTYPE_I64 ? llabs (((const int64_t *) t->data)[i]) > ((int64_t) 1 << 53)
        : t->dtype == CN_DTYPE_U64 && ((const uint64_t *) t->data)[i] > ((uint64_t) 1 << 53))
      return 1;
  return 0;
}

/* O (an entry of the table) becomes the constant *T (taken). */
static cn_status
set_const (struct cn__onnx_import *imp, struct cn__onnx_value *o, cn_tensor *t, cn_error *err)
{
  if (graph_cannot_hold (t))
    {
      o->is_raw = 1;
      o->raw = *t;
      t->data = NULL;
      return CN_OK;
    }
  cn_status st = cn_graph_add_constant (imp->g, o->name, t, &o->gv, err);
  cn_tensor_clear (t);
  return st;
}

cn_status
cn__onnx_define_const (struct cn__onnx_import *imp, const char *name, cn_tensor *t, cn_error *err)
{
  struct cn__onnx_value *o;
  cn_status st = new_entry (imp, name, &o, err);
  if (st != CN_OK)
    {
      cn_tensor_clear (t);
      return st;
    }
  return set_const (imp, o, t, err);
}

/* Reads the initializer of O into the graph if it is still pending. */
static cn_status
materialize (struct cn__onnx_import *imp, struct cn__onnx_value *o, cn_error *err)
{
  if (o->pending == NULL)
    return CN_OK;
  cn_tensor t;
  cn_status st = cn__onnx_parse_tensor (o->pending, o->name, &t, err);
  if (st != CN_OK)
    return st;
  o->pending = NULL;
  return set_const (imp, o, &t, err);
}

static void
imp_clear (struct cn__onnx_import *imp)
{
  for (int k = 0; k < imp->n_vals; k++)
    {
      free (imp->vals[k]->name);
      cn_tensor_clear (&imp->vals[k]->raw);
      free (imp->vals[k]);
    }
  free (imp->vals);
  free (imp->bucket);
}

/* ---- the nodes --------------------------------------------------------------------------------- */

/* The families' handler tables, searched in this order. */
static const struct cn__onnx_handler *const families[] = {
  cn__onnx_elementwise, cn__onnx_activation, cn__onnx_movement, cn__onnx_constants, cn__onnx_indexing,
  cn__onnx_scan, cn__onnx_reduction, cn__onnx_product, cn__onnx_conv, cn__onnx_normalization, cn__onnx_logic,
  cn__onnx_random, cn__onnx_spectral, cn__onnx_resize,
};

static const struct cn__onnx_handler *
find_handler (const char *type)
{
  for (size_t f = 0; f < sizeof families / sizeof families[0]; f++)
    for (const struct cn__onnx_handler *h = families[f]; h->type != NULL; h++)
      if (strcmp (h->type, type) == 0)
        return h;
  return NULL;
}

/* Whether NAME is one of the space-separated words of LIST. */
static int
in_list (const char *list, const char *name)
{
  size_t n = strlen (name);
  for (const char *p = list; *p;)
    {
      const char *e = strchr (p, ' ');
      size_t len = e ? (size_t) (e - p) : strlen (p);
      if (len == n && strncmp (p, name, n) == 0)
        return 1;
      p += len;
      while (*p == ' ')
        p++;
    }
  return 0;
}

/* Imports node K of the ONNX graph. */
static cn_status
import_node (struct cn__onnx_import *imp, const Onnx__NodeProto *np, int k, cn_error *err)
{
  const char *type = np->op_type ? np->op_type : "";
  char namebuf[160];
  const char *name = np->name;
  if (name == NULL || name[0] == '\0')
    {
      snprintf (namebuf, sizeof namebuf, "%s#%d", type, k);
      name = namebuf;
    }
  cn_error local;
  cn_error_clear (&local);
  cn__onnx_node nc;
  memset (&nc, 0, sizeof nc);
  nc.imp = imp;
  nc.np = np;
  nc.type = type;
  nc.name = name;
  nc.err = &local;
  cn_status st = CN_OK;
  const struct cn__onnx_handler *h = NULL;
  if (np->domain != NULL && np->domain[0] != '\0' && strcmp (np->domain, "ai.onnx") != 0)
    {
      st = cn_error_set (&local, CN_EUNSUPPORTED, "domain '%s' is not supported", np->domain);
      goto done;
    }
  if ((h = find_handler (type)) == NULL)
    {
      st = cn_error_set (&local, CN_EUNSUPPORTED, "operator not supported");
      goto done;
    }
  for (size_t a = 0; a < np->n_attribute; a++)
    {
      const char *an = np->attribute[a]->name ? np->attribute[a]->name : "";
      if (!in_list (h->attrs, an))
        {
          st = cn_error_set (&local, CN_EUNSUPPORTED, "attribute '%s' is not supported", an);
          goto done;
        }
      if (np->attribute[a]->ref_attr_name != NULL && np->attribute[a]->ref_attr_name[0] != '\0')
        {
          st = cn_error_set (&local, CN_EUNSUPPORTED, "attribute '%s' refers to a function attribute", an);
          goto done;
        }
    }
  nc.n_in = (int) np->n_input;
  nc.in = calloc (np->n_input ? np->n_input : 1, sizeof *nc.in);
  if (nc.in == NULL)
    {
      st = cn__onnx_nomem (&nc);
      goto done;
    }
  for (int i = 0; i < nc.n_in; i++)
    {
      if (np->input[i][0] == '\0')
        continue;                 /* an absent optional input */
      if ((nc.in[i] = lookup (imp, np->input[i])) == NULL)
        {
          st = cn_error_set (&local, CN_EPARSE, "input '%s' is not a graph input, an initializer or a node output",
                             np->input[i]);
          goto done;
        }
      if ((st = materialize (imp, nc.in[i], &local)) != CN_OK)
        goto done;
      /* Boolean and integer values reach only the handlers that take them; constants are
         checked where a handler takes them as operands (cn__onnx_in). */
      if (!h->typed && cn__onnx_const (&nc, i) == NULL && !cn_dtype_is_float (cn__onnx_sort (&nc, i)))
        {
          st = cn_error_set (&local, CN_EUNSUPPORTED, "input %d ('%s') holds %s values; the operator takes "
                             "floating-point values only", i, np->input[i],
                             cn__onnx_sort_name (cn__onnx_sort (&nc, i)));
          goto done;
        }
    }
  nc.typed = h->typed;
  st = h->fn (&nc);
done:
  free (nc.in);
  if (st != CN_OK)
    return cn_error_set (err, st, "onnx: node '%s' (%s): %s", name, type, local.msg);
  return CN_OK;
}

/* ---- the model -------------------------------------------------------------------------- */

/* Reads the type of graph input VI: f32 or f64 (the model's scalar), bool, or an integer sort
 * (int8 .. uint64), with a static shape (a symbolic or unset extent on axis 0 is taken as 1). */
static cn_status
input_type (const Onnx__ValueInfoProto *vi, cn_dtype *dt, cn_shape *s, cn_error *err)
{
  const char *nm = vi->name;
  if (vi->type == NULL || vi->type->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE || vi->type->tensor_type == NULL)
    return cn_error_set (err, CN_EUNSUPPORTED, "onnx: graph input '%s' is not a tensor", nm);
  const Onnx__TypeProto__Tensor *tt = vi->type->tensor_type;
  int32_t et = tt->has_elem_type ? tt->elem_type : 0;
  *dt = cn__onnx_sort_of_type (et);
  if (*dt == CN_DTYPE_COUNT)
    return cn_error_set (err, CN_EUNSUPPORTED, "onnx: graph input '%s' has element type %s; FLOAT, DOUBLE, FLOAT16, "
                         "BFLOAT16, BOOL and the integer types are supported", nm, cn__onnx_type_name (et));
  if (tt->shape == NULL)
    return cn_error_set (err, CN_EUNSUPPORTED, "onnx: graph input '%s' has no shape", nm);
  if (tt->shape->n_dim > CN_MAX_RANK)
    return cn_error_set (err, CN_EUNSUPPORTED, "onnx: graph input '%s' has rank %zu, above %d", nm, tt->shape->n_dim,
                         CN_MAX_RANK);
  memset (s, 0, sizeof *s);
  s->rank = (int) tt->shape->n_dim;
  for (int i = 0; i < s->rank; i++)
    {
      const Onnx__TensorShapeProto__Dimension *d = tt->shape->dim[i];
      if (d->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE && d->dim_value > 0)
        s->dim[i] = d->dim_value;
      else if (i == 0)
        s->dim[i] = 1;              /* the batch */
      else
        return cn_error_set (err, CN_EUNSUPPORTED, "onnx: graph input '%s' has a symbolic extent '%s' on axis %d", nm,
                             d->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM && d->dim_param
                             ? d->dim_param : "?", i);
    }
  return CN_OK;
}

/* Checks the shape a graph output declares (where it declares one) against ours. */
static cn_status
check_output_shape (const Onnx__ValueInfoProto *vi, const cn_shape *s, cn_error *err)
{
  if (vi->type == NULL || vi->type->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE || vi->type->tensor_type == NULL
      || vi->type->tensor_type->shape == NULL)
    return CN_OK;
  const Onnx__TensorShapeProto *sp = vi->type->tensor_type->shape;
  int ok = (int) sp->n_dim == s->rank;
  for (int i = 0; ok && i < s->rank; i++)
    if (sp->dim[i]->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE && sp->dim[i]->dim_value > 0)
      ok = sp->dim[i]->dim_value == s->dim[i];
  if (!ok)
    {
      char a[128], b[256];
      size_t off = 0;
      b[off++] = '[';
      for (size_t i = 0; i < sp->n_dim && off < sizeof b - 24; i++)
        {
          const Onnx__TensorShapeProto__Dimension *d = sp->dim[i];
          if (d->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE)
            off += (size_t) snprintf (b + off, sizeof b - off, "%s%lld", i ? "," : "", (long long) d->dim_value);
          else
            off += (size_t) snprintf (b + off, sizeof b - off, "%s?", i ? "," : "");
        }
      snprintf (b + off, sizeof b - off, "]");
      return cn_error_set (err, CN_ESHAPE, "onnx: graph output '%s' has shape %s, the model declares %s", vi->name,
                           cn_shape_format (s, a, sizeof a), b);
    }
  return CN_OK;
}

static cn_status
import_model (const Onnx__ModelProto *m, cn_graph **out, cn_error *err)
{
  struct cn__onnx_import imp;
  memset (&imp, 0, sizeof imp);
  cn_status st = CN_OK;
  int *outs = NULL;
  const Onnx__GraphProto *gp = m->graph;
  if (gp == NULL)
    return cn_error_set (err, CN_EPARSE, "onnx: the model has no graph (empty file or not an ONNX model)");

  /* The opset of the default domain. */
  imp.opset = -1;
  for (size_t k = 0; k < m->n_opset_import; k++)
    {
      const Onnx__OperatorSetIdProto *os = m->opset_import[k];
      if (os->domain == NULL || os->domain[0] == '\0' || strcmp (os->domain, "ai.onnx") == 0)
        imp.opset = os->has_version ? os->version : 1;
    }
  if (imp.opset < 0)
    return cn_error_set (err, CN_EUNSUPPORTED, "onnx: the model imports no opset of the default domain");
  if (imp.opset < CN__ONNX_OPSET_MIN || imp.opset > CN__ONNX_OPSET_MAX)
    return cn_error_set (err, CN_EUNSUPPORTED, "onnx: opset %lld of the default domain is not supported (%d to %d)",
                         (long long) imp.opset, CN__ONNX_OPSET_MIN, CN__ONNX_OPSET_MAX);

  /* The name table: a power of two above twice the number of names. */
  size_t names = gp->n_initializer + gp->n_input + 1;
  for (size_t k = 0; k < gp->n_node; k++)
    names += gp->node[k]->n_output;
  imp.n_bucket = 64;
  while (imp.n_bucket < 2 * names)
    imp.n_bucket *= 2;
  imp.bucket = malloc (imp.n_bucket * sizeof *imp.bucket);
  if (imp.bucket == NULL)
    return cn_error_set (err, CN_ENOMEM, "onnx: out of memory");
  for (size_t k = 0; k < imp.n_bucket; k++)
    imp.bucket[k] = -1;
  if ((st = cn_graph_create (&imp.g, err)) != CN_OK)
    goto fail;

  /* Initializers first: an initializer also listed as a graph input (IR < 4) is a constant.
   * Each is read when a node first uses it, so that its errors name that node. */
  for (size_t k = 0; k < gp->n_initializer; k++)
    {
      const Onnx__TensorProto *tp = gp->initializer[k];
      struct cn__onnx_value *o;
      cn_error local;
      cn_error_clear (&local);
      if ((st = new_entry (&imp, tp->name ? tp->name : "", &o, &local)) != CN_OK)
        {
          cn_error_set (err, st, "onnx: initializer: %s", local.msg);
          goto fail;
        }
      o->pending = tp;
    }
  if (gp->n_sparse_initializer > 0)
    {
      st = cn_error_set (err, CN_EUNSUPPORTED, "onnx: sparse initializers are not supported");
      goto fail;
    }
  for (size_t k = 0; k < gp->n_input; k++)
    {
      const Onnx__ValueInfoProto *vi = gp->input[k];
      const char *nm = vi->name ? vi->name : "";
      if (lookup (&imp, nm) != NULL)
        continue;
      cn_dtype dt = CN_DTYPE_F32;
      cn_shape s;
      int v;
      cn_error local;
      cn_error_clear (&local);
      if ((st = input_type (vi, &dt, &s, err)) != CN_OK)
        goto fail;
      if ((st = cn_graph_add_input (imp.g, nm, dt, &s, &v, &local)) != CN_OK
          || (st = cn__onnx_define (&imp, nm, v, &local)) != CN_OK)
        {
          cn_error_set (err, st, "onnx: graph input '%s': %s", nm, local.msg);
          goto fail;
        }
    }

  /* The nodes, in order (ONNX requires a topological order). */
  for (size_t k = 0; k < gp->n_node; k++)
    if ((st = import_node (&imp, gp->node[k], (int) k, err)) != CN_OK)
      goto fail;

  /* The outputs; an initializer output enters the graph as a constant. */
  if (gp->n_output == 0)
    {
      st = cn_error_set (err, CN_EPARSE, "onnx: the graph has no outputs");
      goto fail;
    }
  outs = malloc (gp->n_output * sizeof *outs);
  if (outs == NULL)
    {
      st = cn_error_set (err, CN_ENOMEM, "onnx: out of memory");
      goto fail;
    }
  for (size_t k = 0; k < gp->n_output; k++)
    {
      const char *nm = gp->output[k]->name ? gp->output[k]->name : "";
      struct cn__onnx_value *o = lookup (&imp, nm);
      cn_error local;
      cn_error_clear (&local);
      if (o == NULL)
        {
          st = cn_error_set (err, CN_EPARSE, "onnx: graph output '%s' is not produced by any node", nm);
          goto fail;
        }
      st = materialize (&imp, o, &local);
      if (st == CN_OK && o->is_raw)
        {
          /* refused by the graph, with its message */
          if ((st = cn_graph_add_constant (imp.g, nm, &o->raw, &o->gv, &local)) == CN_OK)
            {
              cn_tensor_clear (&o->raw);
              o->is_raw = 0;
            }
        }
      if (st != CN_OK)
        {
          cn_error_set (err, st, "onnx: graph output '%s': %s", nm, local.msg);
          goto fail;
        }
      outs[k] = o->gv;
      if ((st = check_output_shape (gp->output[k], cn_graph_value_shape (imp.g, o->gv), err)) != CN_OK)
        goto fail;
    }
  if ((st = cn_graph_set_outputs (imp.g, (int) gp->n_output, outs, err)) != CN_OK)
    goto fail;
  /* Initializers no node used are still read: a malformed file is refused. */
  for (int k = 0; k < imp.n_vals; k++)
    {
      const Onnx__TensorProto *tp = imp.vals[k]->pending;
      cn_tensor t;
      cn_error local;
      cn_error_clear (&local);
      if (tp != NULL && (st = cn__onnx_parse_tensor (tp, imp.vals[k]->name, &t, &local)) != CN_OK)
        {
          cn_error_set (err, st, "onnx: unused initializer: %s", local.msg);
          goto fail;
        }
      if (tp != NULL)
        cn_tensor_clear (&t);
    }
  /* The constants the folds consumed and the values only read (shapes, axes) go. */
  if ((st = cn__graph_prune (imp.g, err)) != CN_OK)
    goto fail;
  free (outs);
  imp_clear (&imp);
  *out = imp.g;
  return CN_OK;

fail:
  free (outs);
  cn_graph_free (imp.g);
  imp_clear (&imp);
  return st;
}

cn_status
cn_graph_load_onnx_buffer (const void *data, size_t size, cn_graph **out, cn_error *err)
{
  *out = NULL;
  if (data == NULL && size > 0)
    return cn_error_set (err, CN_EINVAL, "onnx: no data");
  Onnx__ModelProto *m = onnx__model_proto__unpack (NULL, size, data ? data : (const void *) "");
  if (m == NULL)
    return cn_error_set (err, CN_EPARSE, "onnx: malformed protobuf (%zu bytes): truncated or not an ONNX model", size);
  cn_status st = import_model (m, out, err);
  onnx__model_proto__free_unpacked (m, NULL);
  return st;
}

cn_status
cn_graph_load_onnx (const char *path, cn_graph **out, cn_error *err)
{
  *out = NULL;
  FILE *f = fopen (path, "rb");
  if (f == NULL)
    return cn_error_set (err, CN_EIO, "onnx: cannot open '%s': %s", path, strerror (errno));
  size_t cap = 1 << 16, len = 0;
  char *buf = malloc (cap);
  cn_status st = CN_OK;
  if (buf == NULL)
    {
      fclose (f);
      return cn_error_set (err, CN_ENOMEM, "onnx: out of memory reading '%s'", path);
    }
  for (;;)
    {
      if (len == cap)
        {
          char *nb = cap <= SIZE_MAX / 2 ? realloc (buf, cap * 2) : NULL;
          if (nb == NULL)
            {
              st = cn_error_set (err, CN_ENOMEM, "onnx: out of memory reading '%s'", path);
              goto done;
            }
          buf = nb;
          cap *= 2;
        }
      size_t got = fread (buf + len, 1, cap - len, f);
      len += got;
      if (got == 0)
        break;
    }
  if (ferror (f))
    {
      st = cn_error_set (err, CN_EIO, "onnx: cannot read '%s': %s", path, strerror (errno));
      goto done;
    }
  st = cn_graph_load_onnx_buffer (buf, len, out, err);
done:
  free (buf);
  fclose (f);
  return st;
}
