/* SPDX-License-Identifier: MIT */
/* src/graph/onnx.c: the ONNX importer (opsets 8 to 17 of the default domain).
 *
 * The model is unpacked with the protobuf-c bindings generated at build time from onnx.proto.
 * Every ONNX value is known to the importer as either a graph value (a graph input or the
 * output of one of our nodes) or a host constant: an initializer, a Constant node, or the
 * result of folding a node whose inputs are all constants.  Host constants are f32, f64 or
 * i64 tensors (every ONNX integer sort and BOOL is widened to i64, which is exact), and each
 * remembers its ONNX sort (struct oval: BOOL, INT8 .. UINT64).  A floating-point constant
 * enters the graph, through cn_graph_add_constant, only when a node uses it as an operand;
 * integer and Boolean constants are shapes, axes and indices, except at the operators that
 * take those sorts (comparisons, logic, Where, Cast, BitShift, ...: the table's "typed"
 * handlers), where they enter the graph in their ONNX sort.
 *
 * Element sorts (certnn/ops.h, "element sorts").  A graph value holds the model's scalar,
 * Booleans or integer words: graph inputs of type BOOL or INT8 .. UINT64 are Boolean or word
 * inputs, and the comparisons, logic, predicates, Cast and the word operators produce them.
 * Only the typed handlers take Boolean or word values; every other handler refuses them before
 * building anything ("input 0 ('x') holds INT64 values; the operator takes floating-point
 * values only").  The typed handlers are the operators above and data movement: Identity,
 * Reshape, Flatten, Squeeze, Unsqueeze, Transpose, Concat, Slice, Split, Gather (the data; the
 * indices stay constant host integers), GatherElements, ScatterElements (data and updates), Expand,
 * Tile, Pad, DepthToSpace, SpaceToDepth and Where's X and Y.  They lower onto reshape, permute,
 * broadcast, pad, cat, slice, gather, scatter and select, whose element ports move Booleans and
 * words bit for bit (the seed's Op.Element), so these handlers move every sort exactly; where
 * several inputs are moved together (Concat, ScatterElements, Where) they must hold one sort
 * ("input 1 ('b') holds INT32 values where input 0 ('a') holds BOOL"), Pad's value must be an
 * element of the data's sort, and a Boolean ScatterElements only replaces.  Implicit
 * broadcasting of Booleans and words is a broadcast node too (exact).  Integer arithmetic (the
 * seed's Op.NumericElement): Add, Sub, Mul, Neg and Pow on words of one sort wrap in two's
 * complement (ONNX's fixed-width integers, as numpy's), Div truncates toward 0 (div with
 * CN_DIV_TRUNC), Mod is remainder (fmod = 0, the divisor's sign) or div, mul, sub (fmod = 1, the
 * dividend's sign), Max and Min follow the sort's order, and the comparisons compare words and
 * Booleans exactly; a zero divisor fails at evaluation (CN_ENUMERIC).  Booleans have no
 * arithmetic (Add, Neg, ... refuse them: "input 0 ('b') holds BOOL values, which have no
 * arithmetic"); Sum, Mean and the other numeric handlers take the model's scalar only.
 *
 * Each ONNX node maps onto registered operators through cn_graph_add_node; nothing here
 * switches on our operators.  The mapping preserves the exact real semantics of the model for
 * its stored weights:
 *   - data movement of constants (transpose, reshape, broadcast, slice, gather, concat) is
 *     done here, exactly;
 *   - Gemm's alpha and beta are folded into the weights only when the products are exact
 *     (always so for f32 weights, whose products with an f32 factor fit in binary64), and
 *     written as a mul node otherwise;
 *   - a node whose inputs are all floating-point constants is evaluated once in binary64 with
 *     cn_graph_eval on a scratch graph holding that node alone; its result is kept in f32 if
 *     every entry is exactly an f32 number (pure data movement of f32 weights), else in f64;
 *     comparisons, logic, Where, Cast and the word operators on constants are folded here,
 *     exactly (host_fold, cast_to);
 *   - implicit broadcasting becomes a broadcast node on a non-constant operand and an
 *     expanded constant on a constant operand.
 * Casts of non-constant values between f32 and f64 are kept as identities: the graph is
 * evaluated in one sort chosen by its user.  Other casts of values are cast nodes.
 *
 * Random draws (RandomUniform, RandomNormal, their Like forms, Bernoulli) use certnn's
 * generator (src/ops/random.c, Philox4x32-10) keyed by the seed attribute, which is required:
 * the draws are deterministic but are not onnxruntime's (the same seed gives other numbers).
 *
 * Errors name the ONNX node and its operator type: "onnx: node 'n3' (Softmax): operator not
 * supported".  Statuses: CN_EIO (the file cannot be read), CN_EPARSE (malformed protobuf,
 * missing or unknown value names, malformed tensors), CN_EUNSUPPORTED (operators, attribute
 * values, element sorts, external data, opsets), CN_ESHAPE (shape mismatches), CN_ENUMERIC (a
 * NaN or infinite weight), CN_ENOMEM. */
#include <config.h>
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "graph/graph_impl.h"
#include "onnx.pb-c.h"

#define OPSET_MIN 8
#define OPSET_MAX 17
#define MAX_OUT 2                       /* outputs of one ONNX node we may define */
#define GEOM_MAX ((int64_t) 1 << 31)     /* bound on kernel, stride, dilation and pad attributes */

/* ---- the importer's values ------------------------------------------------------------ */

/* An ONNX value. */
struct oval
{
  char *name;
  int next;                  /* the next value in the same hash bucket, -1 at the end */
  int is_const;
  int gv;                    /* its graph value in the main graph, -1 while a constant is not in it */
  cn_tensor c;               /* the constant (f32, f64 or i64) when is_const */
  cn_dtype sort;             /* a constant's ONNX element sort: F32, F64, BOOL or I8 .. U64 (the
                                host tensor C is i64 for BOOL and every integer sort) */
  const Onnx__TensorProto *pending;  /* an initializer not read yet (read on first use) */
};

struct imp
{
  cn_graph *g;               /* the graph being built: the main graph, or a scratch graph while folding */
  int folding;
  int64_t opset;
  struct oval **vals;
  int n_vals, cap_vals;
  int *bucket;
  size_t n_bucket;           /* a power of two */
};

/* One ONNX node being imported. */
struct nctx
{
  struct imp *imp;
  const Onnx__NodeProto *np;
  const char *type;          /* the ONNX operator type */
  const char *name;          /* the node's name: the ONNX name or "<op_type>#<index>" */
  int n_in;
  struct oval **in;          /* n_in entries, NULL for an absent optional input */
  int typed;                 /* the handler takes Boolean and integer inputs (struct onnx_op) */
  cn_dtype out_sort;         /* the sort of the integer constants the node defines (CN_DTYPE_COUNT:
                                input 0's sort if it is an integer constant, else I64) */
  int fold_gv[MAX_OUT];      /* while folding: the scratch graph value of each output, or -1 */
  cn_error *err;             /* the node's own error record (wrapped by the caller) */
};

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

static struct oval *
lookup (const struct imp *imp, const char *name)
{
  for (int k = imp->bucket[hash_str (name) & (imp->n_bucket - 1)]; k >= 0; k = imp->vals[k]->next)
    if (strcmp (imp->vals[k]->name, name) == 0)
      return imp->vals[k];
  return NULL;
}

/* Defines the ONNX value NAME as graph value GV (if C is NULL) or as the constant *C, whose
 * buffer is taken (C is left empty) in every case.  A name defined twice is CN_EPARSE. */
static cn_status
define (struct imp *imp, const char *name, int gv, cn_tensor *c, cn_error *err)
{
  cn_status st = CN_OK;
  struct oval *o = NULL;
  if (lookup (imp, name) != NULL)
    {
      st = cn_error_set (err, CN_EPARSE, "value '%s' is defined twice", name);
      goto fail;
    }
  if (imp->n_vals == imp->cap_vals)
    {
      int cap = imp->cap_vals ? 2 * imp->cap_vals : 64;
      struct oval **nv = realloc (imp->vals, (size_t) cap * sizeof *nv);
      if (nv == NULL)
        goto nomem;
      imp->vals = nv;
      imp->cap_vals = cap;
    }
  o = calloc (1, sizeof *o);
  if (o == NULL || (o->name = dup_str (name)) == NULL)
    goto nomem;
  o->gv = gv;
  o->sort = CN_DTYPE_COUNT;
  if (c != NULL)
    {
      o->is_const = 1;
      o->gv = -1;
      o->c = *c;
      o->sort = c->dtype;
      c->data = NULL;
    }
  size_t b = hash_str (name) & (imp->n_bucket - 1);
  o->next = imp->bucket[b];
  imp->bucket[b] = imp->n_vals;
  imp->vals[imp->n_vals++] = o;
  return CN_OK;

nomem:
  st = cn_error_set (err, CN_ENOMEM, "out of memory");
fail:
  if (o != NULL)
    free (o->name);
  free (o);
  if (c != NULL)
    cn_tensor_clear (c);
  return st;
}

static void
imp_clear (struct imp *imp)
{
  for (int k = 0; k < imp->n_vals; k++)
    {
      free (imp->vals[k]->name);
      cn_tensor_clear (&imp->vals[k]->c);
      free (imp->vals[k]);
    }
  free (imp->vals);
  free (imp->bucket);
}

/* ---- host tensors: exact data movement on constants of any sort --------------------------- */

static int
is_int (const cn_tensor *t)
{
  return !cn_dtype_is_float (t->dtype);
}

static char *
fmt_shape (const cn_shape *s, char *buf, size_t n)
{
  return cn_shape_format (s, buf, n);
}

/* Copies the elements of SHAPE from SRC, read with the element strides SSTR from offset 0, to
 * DST, written with the strides DSTR; elements are ES bytes.  A stride may be 0 (broadcast). */
static void
strided_copy (char *dst, const int64_t *dstr, const char *src, const int64_t *sstr, const cn_shape *shape,
              size_t es)
{
  int64_t n = cn_shape_numel (shape);
  int r = shape->rank;
  int64_t idx[CN_MAX_RANK] = { 0 };
  int64_t doff = 0, soff = 0;
  for (int64_t k = 0; k < n; k++)
    {
      memcpy (dst + doff * (int64_t) es, src + soff * (int64_t) es, es);
      for (int a = r - 1; a >= 0; a--)
        {
          idx[a]++;
          doff += dstr[a];
          soff += sstr[a];
          if (idx[a] < shape->dim[a])
            break;
          doff -= dstr[a] * idx[a];
          soff -= sstr[a] * idx[a];
          idx[a] = 0;
        }
    }
}

/* DST = the permutation of SRC whose output axis i is input axis PERM[i]. */
static cn_status
host_permute (const cn_tensor *src, const int *perm, cn_tensor *dst, cn_error *err)
{
  cn_shape os;
  memset (&os, 0, sizeof os);
  os.rank = src->shape.rank;
  int64_t istr[CN_MAX_RANK], sstr[CN_MAX_RANK], dstr[CN_MAX_RANK];
  cn__strides (&src->shape, istr);
  for (int i = 0; i < os.rank; i++)
    {
      os.dim[i] = src->shape.dim[perm[i]];
      sstr[i] = istr[perm[i]];
    }
  cn_status st = cn_tensor_init (dst, src->dtype, &os, err);
  if (st != CN_OK)
    return st;
  cn__strides (&os, dstr);
  strided_copy (dst->data, dstr, src->data, sstr, &os, cn_dtype_size (src->dtype));
  return CN_OK;
}

/* Numpy broadcasting of shapes A and B into OUT; 0 if they do not broadcast. */
static int
broadcast_shape (const cn_shape *a, const cn_shape *b, cn_shape *out)
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

/* DST = SRC broadcast (numpy rules) to SHAPE; CN_ESHAPE if it does not broadcast. */
static cn_status
host_broadcast (const cn_tensor *src, const cn_shape *shape, cn_tensor *dst, cn_error *err)
{
  const cn_shape *is = &src->shape;
  int64_t istr[CN_MAX_RANK], sstr[CN_MAX_RANK], dstr[CN_MAX_RANK];
  cn__strides (is, istr);
  if (is->rank > shape->rank)
    goto bad;
  for (int i = 0; i < shape->rank; i++)
    {
      int j = i - (shape->rank - is->rank);
      if (j < 0)
        sstr[i] = 0;
      else if (is->dim[j] == shape->dim[i])
        sstr[i] = istr[j];
      else if (is->dim[j] == 1)
        sstr[i] = 0;
      else
        goto bad;
    }
  cn_status st = cn_tensor_init (dst, src->dtype, shape, err);
  if (st != CN_OK)
    return st;
  cn__strides (shape, dstr);
  strided_copy (dst->data, dstr, src->data, sstr, shape, cn_dtype_size (src->dtype));
  return CN_OK;
bad:;
  char a[128], b[128];
  return cn_error_set (err, CN_ESHAPE, "a constant of shape %s does not broadcast to %s", fmt_shape (is, a, sizeof a),
                       fmt_shape (shape, b, sizeof b));
}

/* DST = SRC[start:stop:step] on every axis (normalised: 0 <= start <= stop <= extent, step >= 1). */
static cn_status
host_slice (const cn_tensor *src, const cn_params_slice *p, cn_tensor *dst, cn_error *err)
{
  cn_shape os;
  memset (&os, 0, sizeof os);
  os.rank = src->shape.rank;
  int64_t istr[CN_MAX_RANK], sstr[CN_MAX_RANK], dstr[CN_MAX_RANK], base = 0;
  cn__strides (&src->shape, istr);
  for (int i = 0; i < os.rank; i++)
    {
      os.dim[i] = p->stop[i] > p->start[i] ? (p->stop[i] - p->start[i] - 1) / p->step[i] + 1 : 0;
      sstr[i] = istr[i] * p->step[i];
      base += p->start[i] * istr[i];
    }
  cn_status st = cn_tensor_init (dst, src->dtype, &os, err);
  if (st != CN_OK)
    return st;
  size_t es = cn_dtype_size (src->dtype);
  cn__strides (&os, dstr);
  if (cn_shape_numel (&os) > 0)
    strided_copy (dst->data, dstr, (const char *) src->data + base * (int64_t) es, sstr, &os, es);
  return CN_OK;
}

/* DST = the concatenation of the N tensors SRC (one sort, equal shapes off AXIS) along AXIS. */
static cn_status
host_concat (int n, const cn_tensor *const *src, int axis, cn_tensor *dst, cn_error *err)
{
  cn_shape os = src[0]->shape;
  os.dim[axis] = 0;
  for (int k = 0; k < n; k++)
    os.dim[axis] += src[k]->shape.dim[axis];
  cn_status st = cn_tensor_init (dst, src[0]->dtype, &os, err);
  if (st != CN_OK)
    return st;
  size_t es = cn_dtype_size (src[0]->dtype);
  int64_t dstr[CN_MAX_RANK], sstr[CN_MAX_RANK], off = 0;
  cn__strides (&os, dstr);
  for (int k = 0; k < n; k++)
    {
      cn__strides (&src[k]->shape, sstr);
      if (cn_shape_numel (&src[k]->shape) > 0)
        strided_copy ((char *) dst->data + off * dstr[axis] * (int64_t) es, dstr, src[k]->data, sstr, &src[k]->shape,
                      es);
      off += src[k]->shape.dim[axis];
    }
  return CN_OK;
}

/* DST = a copy of SRC with the shape S (same element count). */
static cn_status
host_reshape (const cn_tensor *src, const cn_shape *s, cn_tensor *dst, cn_error *err)
{
  cn_status st = cn_tensor_convert (dst, src->dtype, src, err);
  if (st == CN_OK)
    dst->shape = *s;
  return st;
}

/* A host tensor of sort DT and shape S filled with the value V (i64 tensors take (int64_t) V). */
static cn_status
host_fill (cn_dtype dt, const cn_shape *s, double v, cn_tensor *dst, cn_error *err)
{
  cn_status st = cn_tensor_init (dst, dt, s, err);
  if (st != CN_OK)
    return st;
  int64_t n = cn_shape_numel (s);
  for (int64_t i = 0; i < n; i++)
    if (dt == CN_DTYPE_F32)
      ((float *) dst->data)[i] = (float) v;
    else if (dt == CN_DTYPE_F64)
      ((double *) dst->data)[i] = v;
    else
      ((int64_t *) dst->data)[i] = (int64_t) v;
  return CN_OK;
}

/* ---- ONNX tensors ------------------------------------------------------------------------ */

static const char *
onnx_type_name (int32_t t)
{
  static const char *const names[] = {
    "UNDEFINED", "FLOAT", "UINT8", "INT8", "UINT16", "INT16", "INT32", "INT64", "STRING", "BOOL",
    "FLOAT16", "DOUBLE", "UINT32", "UINT64", "COMPLEX64", "COMPLEX128", "BFLOAT16"
  };
  return t >= 0 && t < (int32_t) (sizeof names / sizeof names[0]) ? names[t] : "unknown";
}

/* Byte width of an ONNX element type we read (0 for the others). */
static size_t
onnx_type_size (int32_t t)
{
  switch (t)
    {
    case ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT: case ONNX__TENSOR_PROTO__DATA_TYPE__INT32:
    case ONNX__TENSOR_PROTO__DATA_TYPE__UINT32:
      return 4;
    case ONNX__TENSOR_PROTO__DATA_TYPE__DOUBLE: case ONNX__TENSOR_PROTO__DATA_TYPE__INT64:
    case ONNX__TENSOR_PROTO__DATA_TYPE__UINT64:
      return 8;
    case ONNX__TENSOR_PROTO__DATA_TYPE__INT16: case ONNX__TENSOR_PROTO__DATA_TYPE__UINT16:
      return 2;
    case ONNX__TENSOR_PROTO__DATA_TYPE__INT8: case ONNX__TENSOR_PROTO__DATA_TYPE__UINT8:
    case ONNX__TENSOR_PROTO__DATA_TYPE__BOOL:
      return 1;
    default:
      return 0;
    }
}

/* The sort of ONNX element type T: F32, F64, BOOL or I8 .. U64; CN_DTYPE_COUNT for the types
 * certnn has no sort for (FLOAT16, BFLOAT16, STRING, the complex types). */
static cn_dtype
onnx_sort (int64_t t)
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
    default: return CN_DTYPE_COUNT;
    }
}

/* The ONNX name of sort T ("FLOAT", "BOOL", "UINT8", ...). */
static const char *
sort_name (cn_dtype t)
{
  static const int32_t types[CN_DTYPE_COUNT] = {
    [CN_DTYPE_F64] = ONNX__TENSOR_PROTO__DATA_TYPE__DOUBLE, [CN_DTYPE_F32] = ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT,
    [CN_DTYPE_BOOL] = ONNX__TENSOR_PROTO__DATA_TYPE__BOOL, [CN_DTYPE_I8] = ONNX__TENSOR_PROTO__DATA_TYPE__INT8,
    [CN_DTYPE_I16] = ONNX__TENSOR_PROTO__DATA_TYPE__INT16, [CN_DTYPE_I32] = ONNX__TENSOR_PROTO__DATA_TYPE__INT32,
    [CN_DTYPE_I64] = ONNX__TENSOR_PROTO__DATA_TYPE__INT64, [CN_DTYPE_U8] = ONNX__TENSOR_PROTO__DATA_TYPE__UINT8,
    [CN_DTYPE_U16] = ONNX__TENSOR_PROTO__DATA_TYPE__UINT16, [CN_DTYPE_U32] = ONNX__TENSOR_PROTO__DATA_TYPE__UINT32,
    [CN_DTYPE_U64] = ONNX__TENSOR_PROTO__DATA_TYPE__UINT64
  };
  return (unsigned) t < CN_DTYPE_COUNT ? onnx_type_name (types[t]) : "unknown";
}

/* Whether T is an integer word sort (I8 .. U64). */
static int
is_word_sort (cn_dtype t)
{
  return t >= CN_DTYPE_I8 && t <= CN_DTYPE_U64;
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

/* Reads the tensor TP (named WHAT in messages) into OUT: FLOAT as f32, DOUBLE as f64, every
 * integer sort and BOOL as i64; *SORT (if not NULL) receives its ONNX sort (onnx_sort).
 * Messages start with "tensor 'WHAT'". */
static cn_status
parse_tensor (const Onnx__TensorProto *tp, const char *what, cn_tensor *out, cn_dtype *sort, cn_error *err)
{
  int32_t dt = tp->has_data_type ? tp->data_type : 0;
  if (sort != NULL)
    *sort = onnx_sort (dt);
  if ((tp->has_data_location && tp->data_location == ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL)
      || tp->n_external_data > 0)
    return cn_error_set (err, CN_EUNSUPPORTED, "tensor '%s' keeps its data in an external file (not supported)", what);
  if (tp->segment != NULL)
    return cn_error_set (err, CN_EUNSUPPORTED, "tensor '%s' is segmented (not supported)", what);
  size_t w = onnx_type_size (dt);
  if (w == 0)
    return cn_error_set (err, CN_EUNSUPPORTED, "tensor '%s' has element type %s (%d), not supported", what,
                         onnx_type_name (dt), (int) dt);
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
  cn_dtype cdt = dt == ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT ? CN_DTYPE_F32
    : dt == ONNX__TENSOR_PROTO__DATA_TYPE__DOUBLE ? CN_DTYPE_F64 : CN_DTYPE_I64;
  /* Where the typed data lives: float_data, double_data, int64_data, uint64_data or int32_data. */
  size_t typed_n;
  switch (dt)
    {
    case ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT: typed_n = tp->n_float_data; break;
    case ONNX__TENSOR_PROTO__DATA_TYPE__DOUBLE: typed_n = tp->n_double_data; break;
    case ONNX__TENSOR_PROTO__DATA_TYPE__INT64: typed_n = tp->n_int64_data; break;
    case ONNX__TENSOR_PROTO__DATA_TYPE__UINT32: case ONNX__TENSOR_PROTO__DATA_TYPE__UINT64:
      typed_n = tp->n_uint64_data; break;
    default: typed_n = tp->n_int32_data; break;
    }
  int raw = tp->has_raw_data && (tp->raw_data.len > 0 || typed_n == 0);
  if (raw && tp->raw_data.len != (size_t) n * w)
    return cn_error_set (err, CN_EPARSE, "tensor '%s' has %zu bytes of raw_data, expected %lld (%lld elements of %s)",
                         what, tp->raw_data.len, (long long) ((size_t) n * w), (long long) n, onnx_type_name (dt));
  if (!raw && typed_n != (size_t) n)
    return cn_error_set (err, CN_EPARSE, "tensor '%s' holds %zu values, its shape has %lld elements", what, typed_n,
                         (long long) n);
  cn_status st = cn_tensor_init (out, cdt, &s, err);
  if (st != CN_OK)
    return st;
  for (int64_t i = 0; i < n; i++)
    {
      const uint8_t *p = raw ? tp->raw_data.data + (size_t) i * w : NULL;
      uint64_t u = p ? read_le (p, w) : 0;
      switch (dt)
        {
        case ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT:
          {
            float f;
            uint32_t u32 = (uint32_t) u;
            if (p)
              memcpy (&f, &u32, 4);
            else
              f = tp->float_data[i];
            ((float *) out->data)[i] = f;
            break;
          }
        case ONNX__TENSOR_PROTO__DATA_TYPE__DOUBLE:
          {
            double d;
            if (p)
              memcpy (&d, &u, 8);
            else
              d = tp->double_data[i];
            ((double *) out->data)[i] = d;
            break;
          }
        case ONNX__TENSOR_PROTO__DATA_TYPE__INT64:
          ((int64_t *) out->data)[i] = p ? (int64_t) u : tp->int64_data[i];
          break;
        case ONNX__TENSOR_PROTO__DATA_TYPE__UINT64:
        case ONNX__TENSOR_PROTO__DATA_TYPE__UINT32:
          {
            uint64_t v = p ? u : tp->uint64_data[i];
            if (v > (uint64_t) INT64_MAX)
              {
                cn_tensor_clear (out);
                return cn_error_set (err, CN_ENUMERIC, "tensor '%s' holds %llu, beyond the int64 range", what,
                                     (unsigned long long) v);
              }
            ((int64_t *) out->data)[i] = (int64_t) v;
            break;
          }
        case ONNX__TENSOR_PROTO__DATA_TYPE__INT32:
          ((int64_t *) out->data)[i] = p ? (int64_t) (int32_t) (uint32_t) u : tp->int32_data[i];
          break;
        case ONNX__TENSOR_PROTO__DATA_TYPE__INT16:
          ((int64_t *) out->data)[i] = p ? (int64_t) (int16_t) (uint16_t) u : tp->int32_data[i];
          break;
        case ONNX__TENSOR_PROTO__DATA_TYPE__INT8:
          ((int64_t *) out->data)[i] = p ? (int64_t) (int8_t) (uint8_t) u : tp->int32_data[i];
          break;
        case ONNX__TENSOR_PROTO__DATA_TYPE__BOOL:
          ((int64_t *) out->data)[i] = (p ? u : (uint64_t) tp->int32_data[i]) != 0;
          break;
        default: /* UINT8, UINT16 */
          ((int64_t *) out->data)[i] = p ? (int64_t) u : tp->int32_data[i];
          break;
        }
    }
  return CN_OK;
}

/* Reads the initializer of O if it is still pending. */
static cn_status
materialize (struct oval *o, cn_error *err)
{
  if (o->pending == NULL)
    return CN_OK;
  cn_status st = parse_tensor (o->pending, o->name, &o->c, &o->sort, err);
  if (st == CN_OK)
    o->pending = NULL;
  return st;
}

/* ---- node context helpers ------------------------------------------------------------------ */

static cn_status
nomem (struct nctx *nc)
{
  return cn_error_set (nc->err, CN_ENOMEM, "out of memory");
}

static const cn_shape *
in_shape (const struct nctx *nc, int i)
{
  const struct oval *o = nc->in[i];
  return o->is_const ? &o->c.shape : cn_graph_value_shape (nc->imp->g, o->gv);
}

/* Input I must be present. */
static cn_status
need_in (struct nctx *nc, int i)
{
  if (i >= nc->n_in || nc->in[i] == NULL)
    return cn_error_set (nc->err, CN_EPARSE, "input %d is missing", i);
  return CN_OK;
}

static int
has_in (const struct nctx *nc, int i)
{
  return i < nc->n_in && nc->in[i] != NULL;
}

/* Adds the host constant T to the graph as a constant of SORT under the name NAME: a floating
 * constant as it is, an integer one (i64 on the host) converted to SORT (BOOL, I8 .. U64), which
 * is exact for the values the host holds (they came from that sort). */
static cn_status
add_const_sorted (struct nctx *nc, const cn_tensor *t, cn_dtype sort, const char *name, int *v)
{
  if (!is_int (t) || sort == t->dtype)
    return cn_graph_add_constant (nc->imp->g, name, t, v, nc->err);
  cn_tensor c;
  cn_status st = cn_tensor_convert (&c, sort, t, nc->err);
  if (st == CN_OK)
    st = cn_graph_add_constant (nc->imp->g, name, &c, v, nc->err);
  cn_tensor_clear (&c);
  return st;
}

/* The sort of input I: a constant's ONNX sort, else the graph value's (F32 or F64 for the
 * model's scalar). */
static cn_dtype
in_sort (const struct nctx *nc, int i)
{
  const struct oval *o = nc->in[i];
  return o->is_const ? o->sort : cn_graph_value_dtype (nc->imp->g, o->gv);
}

/* Whether the sorts A and B are one element sort: both the model's scalar (FLOAT or DOUBLE: a
 * graph is evaluated in one floating sort), or the same Boolean or word sort. */
static int
same_sort (cn_dtype a, cn_dtype b)
{
  return cn_dtype_is_float (a) ? cn_dtype_is_float (b) : a == b;
}

/* Inputs I and J (both present) hold one element sort (same_sort); else CN_EUNSUPPORTED naming
 * both inputs and their sorts. */
static cn_status
sorts_agree (struct nctx *nc, int i, int j)
{
  cn_dtype a = in_sort (nc, i), b = in_sort (nc, j);
  if (same_sort (a, b))
    return CN_OK;
  return cn_error_set (nc->err, CN_EUNSUPPORTED, "input %d ('%s') holds %s values where input %d ('%s') holds %s", j,
                       nc->in[j]->name, sort_name (b), i, nc->in[i]->name, sort_name (a));
}

/* The graph value of input I; a constant is added to the graph on first use.  Integer and
 * Boolean constants are operands only of the handlers that take those sorts (nc->typed); they
 * enter the graph in their ONNX sort. */
static cn_status
in_gv (struct nctx *nc, int i, int *v)
{
  struct imp *imp = nc->imp;
  struct oval *o = nc->in[i];
  if (!o->is_const)
    {
      *v = o->gv;
      return CN_OK;
    }
  if (is_int (&o->c) && !nc->typed)
    return cn_error_set (nc->err, CN_EUNSUPPORTED,
                         "input %d ('%s') is an integer tensor; only floating-point tensors can be operands", i,
                         o->name);
  if (!imp->folding && o->gv >= 0)
    {
      *v = o->gv;
      return CN_OK;
    }
  cn_status st = add_const_sorted (nc, &o->c, o->sort, o->name, v);
  if (st == CN_OK && !imp->folding)
    o->gv = *v;
  return st;
}

/* Builds "<node>/<suffix>" (or the node name if SUFFIX is NULL) into a malloc'd string. */
static char *
sub_name (const struct nctx *nc, const char *suffix)
{
  if (suffix == NULL)
    return dup_str (nc->name);
  size_t a = strlen (nc->name), b = strlen (suffix);
  char *s = malloc (a + b + 2);
  if (s != NULL)
    {
      memcpy (s, nc->name, a);
      s[a] = '/';
      memcpy (s + a + 1, suffix, b + 1);
    }
  return s;
}

/* Adds the constant T (copied) to the graph under the name "<node>/<suffix>". */
static cn_status
add_const (struct nctx *nc, const cn_tensor *t, const char *suffix, int *v)
{
  char *nm = sub_name (nc, suffix);
  if (nm == NULL)
    return nomem (nc);
  cn_status st = cn_graph_add_constant (nc->imp->g, nm, t, v, nc->err);
  free (nm);
  return st;
}

/* Adds one of our nodes, named after the ONNX node (with "/SUFFIX" for helper nodes). */
static cn_status
add_node (struct nctx *nc, cn_op op, const void *params, int n, const int *in, const char *suffix, int *out)
{
  char *nm = sub_name (nc, suffix);
  if (nm == NULL)
    return nomem (nc);
  cn_status st = cn_graph_add_node (nc->imp->g, op, params, n, in, nm, out, nc->err);
  free (nm);
  return st;
}

static int
out_wanted (const struct nctx *nc, int k)
{
  return k < (int) nc->np->n_output && nc->np->output[k][0] != '\0';
}

/* Defines output K of the node as the graph value V; FRESH says V was made by this node, and
 * then takes the ONNX output's name. */
static cn_status
set_out (struct nctx *nc, int k, int v, int fresh)
{
  struct imp *imp = nc->imp;
  if (!out_wanted (nc, k))
    return CN_OK;
  if (imp->folding)
    {
      nc->fold_gv[k] = v;
      return CN_OK;
    }
  if (fresh)
    {
      char *nm = dup_str (nc->np->output[k]);
      if (nm == NULL)
        return nomem (nc);
      free (imp->g->values[v].name);
      imp->g->values[v].name = nm;
    }
  return define (imp, nc->np->output[k], v, NULL, nc->err);
}

/* Defines output K of the node as the host constant *T (taken).  An integer constant takes the
 * sort NC->out_sort if the handler set one, else input 0's if that is an integer constant (data
 * movement and integer arithmetic keep the sort), else I64. */
static cn_status
set_out_const (struct nctx *nc, int k, cn_tensor *t)
{
  if (!out_wanted (nc, k))
    {
      cn_tensor_clear (t);
      return CN_OK;
    }
  int is_float = cn_dtype_is_float (t->dtype);
  cn_status st = define (nc->imp, nc->np->output[k], -1, t, nc->err);
  if (st == CN_OK && !is_float)
    {
      cn_dtype sort = CN_DTYPE_I64;
      if (nc->out_sort != CN_DTYPE_COUNT)
        sort = nc->out_sort;
      else if (nc->n_in > 0 && nc->in[0] != NULL && nc->in[0]->is_const && is_int (&nc->in[0]->c))
        sort = nc->in[0]->sort;
      lookup (nc->imp, nc->np->output[k])->sort = sort;
    }
  return st;
}

/* Output K is input I, unchanged. */
static cn_status
set_out_alias (struct nctx *nc, int k, int i)
{
  struct oval *o = nc->in[i];
  if (nc->imp->folding || !o->is_const)
    {
      int v;
      cn_status st = in_gv (nc, i, &v);
      return st != CN_OK ? st : set_out (nc, k, v, 0);
    }
  cn_tensor t;
  cn_status st = cn_tensor_convert (&t, o->c.dtype, &o->c, nc->err);
  return st != CN_OK ? st : set_out_const (nc, k, &t);
}

/* ---- attributes ------------------------------------------------------------------------ */

static const Onnx__AttributeProto *
attr_find (const struct nctx *nc, const char *name)
{
  for (size_t k = 0; k < nc->np->n_attribute; k++)
    if (nc->np->attribute[k]->name != NULL && strcmp (nc->np->attribute[k]->name, name) == 0)
      return nc->np->attribute[k];
  return NULL;
}

/* Whether attribute A holds type T: its declared type if any, else the field that is set. */
static int
attr_is (const Onnx__AttributeProto *a, Onnx__AttributeProto__AttributeType t)
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

static cn_status
attr_int (struct nctx *nc, const char *name, int64_t def, int64_t *v)
{
  const Onnx__AttributeProto *a = attr_find (nc, name);
  *v = def;
  if (a == NULL)
    return CN_OK;
  if (!attr_is (a, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT))
    return cn_error_set (nc->err, CN_EPARSE, "attribute '%s' is not an integer", name);
  *v = a->i;
  return CN_OK;
}

static cn_status
attr_float (struct nctx *nc, const char *name, double def, double *v)
{
  const Onnx__AttributeProto *a = attr_find (nc, name);
  *v = def;
  if (a == NULL)
    return CN_OK;
  if (!attr_is (a, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT))
    return cn_error_set (nc->err, CN_EPARSE, "attribute '%s' is not a float", name);
  *v = a->f;
  return CN_OK;
}

/* Reads the integer list attribute NAME (at most MAX entries) into BUF; *N = -1 if absent. */
static cn_status
attr_ints (struct nctx *nc, const char *name, int64_t *buf, int max, int *n)
{
  const Onnx__AttributeProto *a = attr_find (nc, name);
  *n = -1;
  if (a == NULL)
    return CN_OK;
  if (!attr_is (a, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS))
    return cn_error_set (nc->err, CN_EPARSE, "attribute '%s' is not a list of integers", name);
  if (a->n_ints > (size_t) max)
    return cn_error_set (nc->err, CN_EINVAL, "attribute '%s' has %zu entries, at most %d expected", name, a->n_ints,
                         max);
  if (a->n_ints > 0)
    memcpy (buf, a->ints, a->n_ints * sizeof *buf);
  *n = (int) a->n_ints;
  return CN_OK;
}

/* Compares the string attribute NAME (default DEF) with each of the NULL-terminated list
 * ALLOWED; *IDX is the index of the match.  A value outside the list is CN_EUNSUPPORTED. */
static cn_status
attr_choice (struct nctx *nc, const char *name, const char *def, const char *const *allowed, int *idx)
{
  const Onnx__AttributeProto *a = attr_find (nc, name);
  char buf[64];
  const char *s = def;
  if (a != NULL)
    {
      if (!attr_is (a, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING))
        return cn_error_set (nc->err, CN_EPARSE, "attribute '%s' is not a string", name);
      size_t n = a->s.len < sizeof buf - 1 ? a->s.len : sizeof buf - 1;
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

/* Reads the integer vector (rank 0 or 1) of constant input I into BUF (at most MAX entries). */
static cn_status
const_ints (struct nctx *nc, int i, const char *what, int64_t *buf, int max, int *n)
{
  struct oval *o = nc->in[i];
  if (!o->is_const)
    return cn_error_set (nc->err, CN_EUNSUPPORTED, "the %s (input %d, '%s') must be a constant", what, i, o->name);
  if (!is_int (&o->c))
    return cn_error_set (nc->err, CN_EPARSE, "the %s (input %d, '%s') must be an integer tensor", what, i, o->name);
  int64_t k = cn_tensor_numel (&o->c);
  if (o->c.shape.rank > 1 || k > max)
    return cn_error_set (nc->err, CN_EINVAL, "the %s (input %d, '%s') must be a vector of at most %d entries", what, i,
                         o->name, max);
  if (k > 0)
    memcpy (buf, o->c.data, (size_t) k * sizeof *buf);
  *n = (int) k;
  return CN_OK;
}

/* Normalises AXIS (negative counts from the end) into [0, RANK). */
static cn_status
norm_axis (struct nctx *nc, int64_t axis, int rank, const char *what, int *out)
{
  if (axis < -rank || axis >= rank)
    return cn_error_set (nc->err, CN_EINVAL, "%s %lld is out of range for rank %d", what, (long long) axis, rank);
  *out = (int) (axis < 0 ? axis + rank : axis);
  return CN_OK;
}

/* Shape of an ONNX-style list of extents. */
static cn_status
make_shape (struct nctx *nc, int rank, const int64_t *dim, cn_shape *s)
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

/* ---- shared mappings ------------------------------------------------------------------------ */

/* Output K = input I under the shape S: a host copy for a constant, else a reshape node (or
 * the input itself when the shape is unchanged). */
static cn_status
emit_reshape (struct nctx *nc, int k, int i, const cn_shape *s)
{
  const cn_shape *is = in_shape (nc, i);
  char a[128], b[128];
  if (cn_shape_numel (is) != cn_shape_numel (s))
    return cn_error_set (nc->err, CN_ESHAPE, "cannot reshape %s into %s", fmt_shape (is, a, sizeof a),
                         fmt_shape (s, b, sizeof b));
  struct oval *o = nc->in[i];
  if (o->is_const && !nc->imp->folding)
    {
      cn_tensor t;
      cn_status st = host_reshape (&o->c, s, &t, nc->err);
      return st != CN_OK ? st : set_out_const (nc, k, &t);
    }
  if (cn_shape_equal (is, s))
    return set_out_alias (nc, k, i);
  int x, v;
  cn_params_reshape p;
  p.shape = *s;
  cn_status st = in_gv (nc, i, &x);
  if (st == CN_OK)
    st = add_node (nc, CN_OP_RESHAPE, &p, 1, &x, NULL, &v);
  return st != CN_OK ? st : set_out (nc, k, v, 1);
}

/* *V = graph value X broadcast to SHAPE (X itself when its shape is SHAPE already). */
static cn_status
broadcast_value (struct nctx *nc, int x, const cn_shape *shape, const char *suffix, int *v)
{
  if (cn_shape_equal (cn_graph_value_shape (nc->imp->g, x), shape))
    {
      *v = x;
      return CN_OK;
    }
  cn_params_broadcast p;
  p.shape = *shape;
  return add_node (nc, CN_OP_BROADCAST, &p, 1, &x, suffix, v);
}

/* *V = the graph value of input I at SHAPE: constants are expanded here, other values get a
 * broadcast node. */
static cn_status
operand_at (struct nctx *nc, int i, const cn_shape *shape, const char *suffix, int *v)
{
  struct oval *o = nc->in[i];
  if (o->is_const && !cn_shape_equal (&o->c.shape, shape))
    {
      if (is_int (&o->c) && !nc->typed)
        return in_gv (nc, i, v);           /* refused there */
      cn_tensor t;
      cn_status st = host_broadcast (&o->c, shape, &t, nc->err);
      char *nm = st == CN_OK ? sub_name (nc, suffix) : NULL;
      if (st == CN_OK && nm == NULL)
        st = nomem (nc);
      if (st == CN_OK)
        st = add_const_sorted (nc, &t, o->sort, nm, v);
      free (nm);
      cn_tensor_clear (&t);
      return st;
    }
  int x;
  cn_status st = in_gv (nc, i, &x);
  return st != CN_OK ? st : broadcast_value (nc, x, shape, suffix, v);
}

/* The node's output 0 as OP (attribute record PARAMS) applied to its N <= 3 inputs, each first
 * brought to the common shape OS (operand_at, suffixes "broadcast0", ...). */
static cn_status
broadcast_apply (struct nctx *nc, cn_op op, const void *params, int n, const cn_shape *os)
{
  int x[3], v;
  cn_status st = CN_OK;
  if (n < 1 || n > 3)
    return cn_error_set (nc->err, CN_EINVAL, "internal error: %d operands to broadcast", n);
  for (int i = 0; i < n && st == CN_OK; i++)
    {
      char sfx[32];
      snprintf (sfx, sizeof sfx, "broadcast%d", i);
      st = operand_at (nc, i, os, sfx, &x[i]);
    }
  if (st != CN_OK || (st = add_node (nc, op, params, n, x, NULL, &v)) != CN_OK)
    return st;
  return set_out (nc, 0, v, 1);
}

/* ---- operators ---------------------------------------------------------------------------- */

static cn_status arith_sorts (struct nctx *nc, int n);
static cn_status common_shape (struct nctx *nc, int n, cn_shape *os);

static cn_status
op_identity (struct nctx *nc)
{
  cn_status st = need_in (nc, 0);
  return st != CN_OK ? st : set_out_alias (nc, 0, 0);
}

static cn_status
op_dropout (struct nctx *nc)
{
  cn_status st = need_in (nc, 0);
  if (st != CN_OK)
    return st;
  /* Opset 12 moved ratio and training_mode to inputs; only inference (training_mode false) is
   * supported, where dropout is the identity. */
  if (has_in (nc, 2))
    {
      struct oval *t = nc->in[2];
      if (!t->is_const || cn_tensor_numel (&t->c) != 1)
        return cn_error_set (nc->err, CN_EUNSUPPORTED, "training_mode must be a constant scalar");
      if (cn_tensor_get_f64 (&t->c, 0) != 0)
        return cn_error_set (nc->err, CN_EUNSUPPORTED, "training_mode = true is not supported (inference only)");
    }
  if ((st = set_out_alias (nc, 0, 0)) != CN_OK)
    return st;
  if (out_wanted (nc, 1))
    {
      /* The mask of inference is all true. */
      cn_tensor m;
      if ((st = host_fill (CN_DTYPE_I64, in_shape (nc, 0), 1, &m, nc->err)) != CN_OK)
        return st;
      nc->out_sort = CN_DTYPE_BOOL;
      return set_out_const (nc, 1, &m);
    }
  return CN_OK;
}

/* One-input operators that map onto one of ours without attributes. */
static cn_status
op_unary (struct nctx *nc, cn_op op)
{
  int x, v;
  cn_status st = need_in (nc, 0);
  if (st == CN_OK)
    st = in_gv (nc, 0, &x);
  if (st == CN_OK)
    st = add_node (nc, op, NULL, 1, &x, NULL, &v);
  return st != CN_OK ? st : set_out (nc, 0, v, 1);
}

static cn_status op_relu (struct nctx *nc) { return op_unary (nc, CN_OP_RELU); }
/* Neg: the model's scalar, or words (wrapping: the least signed word is its own negation). */
static cn_status
op_neg (struct nctx *nc)
{
  cn_status st = need_in (nc, 0);
  if (st == CN_OK)
    st = arith_sorts (nc, 1);
  return st != CN_OK ? st : op_unary (nc, CN_OP_NEG);
}

/* The activations and transcendental functions without attributes: one of our operators each
 * (Softplus is log(exp(x) + 1) in both; Erf, the trigonometric and hyperbolic functions and
 * their inverses, Exp and Log likewise). */
static cn_status op_sigmoid (struct nctx *nc) { return op_unary (nc, CN_OP_SIGMOID); }
static cn_status op_tanh (struct nctx *nc) { return op_unary (nc, CN_OP_TANH); }
static cn_status op_softplus (struct nctx *nc) { return op_unary (nc, CN_OP_SOFTPLUS); }
static cn_status op_exp (struct nctx *nc) { return op_unary (nc, CN_OP_EXP); }
static cn_status op_log (struct nctx *nc) { return op_unary (nc, CN_OP_LOG); }
static cn_status op_sin (struct nctx *nc) { return op_unary (nc, CN_OP_SIN); }
static cn_status op_cos (struct nctx *nc) { return op_unary (nc, CN_OP_COS); }
static cn_status op_tan (struct nctx *nc) { return op_unary (nc, CN_OP_TAN); }
static cn_status op_asin (struct nctx *nc) { return op_unary (nc, CN_OP_ASIN); }
static cn_status op_acos (struct nctx *nc) { return op_unary (nc, CN_OP_ACOS); }
static cn_status op_atan (struct nctx *nc) { return op_unary (nc, CN_OP_ATAN); }
static cn_status op_sinh (struct nctx *nc) { return op_unary (nc, CN_OP_SINH); }
static cn_status op_cosh (struct nctx *nc) { return op_unary (nc, CN_OP_COSH); }
static cn_status op_asinh (struct nctx *nc) { return op_unary (nc, CN_OP_ASINH); }
static cn_status op_acosh (struct nctx *nc) { return op_unary (nc, CN_OP_ACOSH); }
static cn_status op_atanh (struct nctx *nc) { return op_unary (nc, CN_OP_ATANH); }
static cn_status op_erf (struct nctx *nc) { return op_unary (nc, CN_OP_ERF); }

/* One-input operators with an attribute record. */
static cn_status
op_unary_params (struct nctx *nc, cn_op op, const void *params, int *v)
{
  int x;
  cn_status st = need_in (nc, 0);
  if (st == CN_OK)
    st = in_gv (nc, 0, &x);
  if (st == CN_OK)
    st = add_node (nc, op, params, 1, &x, NULL, v);
  return st;
}

/* A float attribute that must be finite (the rules refuse the others too; the message here
 * names the attribute). */
static cn_status
attr_finite (struct nctx *nc, const char *name, double def, double *v)
{
  cn_status st = attr_float (nc, name, def, v);
  if (st == CN_OK && !isfinite (*v))
    st = cn_error_set (nc->err, CN_EUNSUPPORTED, "attribute %s = %g is not finite", name, *v);
  return st;
}

/* Elu: y = x for x > 0, alpha (exp(x) - 1) otherwise (alpha defaults to 1). */
static cn_status
op_elu (struct nctx *nc)
{
  cn_params_elu p;
  int v;
  memset (&p, 0, sizeof p);
  cn_status st = attr_finite (nc, "alpha", 1.0, &p.alpha);
  if (st == CN_OK)
    st = op_unary_params (nc, CN_OP_ELU, &p, &v);
  return st != CN_OK ? st : set_out (nc, 0, v, 1);
}

/* LeakyRelu: y = x for x > 0, alpha x otherwise (alpha defaults to 0.01, a binary32 number). */
static cn_status
op_leaky_relu (struct nctx *nc)
{
  cn_params_leaky_relu p;
  int v;
  memset (&p, 0, sizeof p);
  cn_status st = attr_finite (nc, "alpha", (double) 0.01f, &p.negative_slope);
  if (st == CN_OK)
    st = op_unary_params (nc, CN_OP_LEAKY_RE_LU, &p, &v);
  return st != CN_OK ? st : set_out (nc, 0, v, 1);
}

static cn_status mul_scalar (struct nctx *nc, int x, double f, const char *suffix, int *v);

/* Selu: y = gamma elu(x; alpha), an elu node and a mul by the constant gamma (defaults: the
 * binary32 numbers of the ONNX specification). */
static cn_status
op_selu (struct nctx *nc)
{
  cn_params_elu p;
  double gamma;
  int e, v;
  memset (&p, 0, sizeof p);
  cn_status st = attr_finite (nc, "alpha", (double) 1.67326319217681884765625f, &p.alpha);
  if (st == CN_OK)
    st = attr_finite (nc, "gamma", (double) 1.05070102214813232421875f, &gamma);
  if (st == CN_OK)
    st = op_unary_params (nc, CN_OP_ELU, &p, &e);
  if (st == CN_OK)
    st = mul_scalar (nc, e, gamma, "gamma", &v);
  return st != CN_OK ? st : set_out (nc, 0, v, 1);
}

static int wrap_word (int64_t v, cn_dtype t, int64_t *out);

/* Integer arithmetic on constants (shape computations, and ONNX integer arithmetic on constant
 * words): numpy broadcasting, C division (toward 0).  The result takes input 0's sort.  INT64 and
 * UINT64: the exact result, an overflow refused (CN_ENUMERIC: a wrapped shape is a bug);
 * narrower words wrap to their width as ONNX's fixed-width integers do (the low bits of the
 * 64-bit two's-complement result; a quotient is exact in 64 bits and then wrapped, so the least
 * word divided by -1 is itself). */
static cn_status
int_binary (struct nctx *nc, const cn_shape *os, char opc)
{
  cn_tensor a, b, r;
  memset (&a, 0, sizeof a);
  memset (&b, 0, sizeof b);
  memset (&r, 0, sizeof r);
  cn_status st;
  if (!is_int (&nc->in[0]->c) || !is_int (&nc->in[1]->c))
    return cn_error_set (nc->err, CN_EUNSUPPORTED, "operands of different element sorts");
  cn_dtype sort = nc->in[0]->sort;
  if (sort == CN_DTYPE_BOOL || nc->in[1]->sort == CN_DTYPE_BOOL)
    return cn_error_set (nc->err, CN_EUNSUPPORTED, "BOOL values have no arithmetic (cast them to an integer type)");
  int narrow = sort != CN_DTYPE_I64 && sort != CN_DTYPE_U64;
  if ((st = host_broadcast (&nc->in[0]->c, os, &a, nc->err)) != CN_OK
      || (st = host_broadcast (&nc->in[1]->c, os, &b, nc->err)) != CN_OK
      || (st = cn_tensor_init (&r, CN_DTYPE_I64, os, nc->err)) != CN_OK)
    goto done;
  int64_t n = cn_shape_numel (os);
  const int64_t *pa = a.data, *pb = b.data;
  int64_t *pr = r.data;
  for (int64_t i = 0; i < n; i++)
    {
      int64_t x = pa[i], y = pb[i], z;
      int ovf = 0;
      switch (opc)
        {
        case '+': ovf = __builtin_add_overflow (x, y, &z); break;
        case '-': ovf = __builtin_sub_overflow (x, y, &z); break;
        case '*':
          ovf = __builtin_mul_overflow (x, y, &z);
          if (narrow)
            z = (int64_t) ((uint64_t) x * (uint64_t) y);   /* the low 64 bits: enough to wrap */
          break;
        default:
          if (y == 0)
            {
              st = cn_error_set (nc->err, CN_EINVAL, "integer division by zero");
              goto done;
            }
          ovf = x == INT64_MIN && y == -1;
          z = ovf ? 0 : x / y;
          break;
        }
      if (ovf && !narrow)
        {
          st = cn_error_set (nc->err, CN_ENUMERIC, "integer overflow");
          goto done;
        }
      if (narrow)
        wrap_word (z, sort, &z);      /* a narrow word's sum or difference never overflows 64 bits */
      pr[i] = z;
    }
  st = set_out_const (nc, 0, &r);
done:
  cn_tensor_clear (&a);
  cn_tensor_clear (&b);
  cn_tensor_clear (&r);
  return st;
}

/* Inputs 0 .. N-1 of an arithmetic handler hold one sort that has arithmetic: the model's scalar
 * or one word sort (Booleans have none: ONNX's arithmetic does not take them, and add, sub, mul,
 * div, neg, pow and remainder refuse them). */
static cn_status
arith_sorts (struct nctx *nc, int n)
{
  cn_status st;
  for (int i = 1; i < n; i++)
    if ((st = sorts_agree (nc, 0, i)) != CN_OK)
      return st;
  if (in_sort (nc, 0) == CN_DTYPE_BOOL)
    return cn_error_set (nc->err, CN_EUNSUPPORTED, "input 0 ('%s') holds BOOL values, which have no arithmetic (cast "
                         "them to an integer type)", nc->in[0]->name);
  return CN_OK;
}

/* Add, Sub, Mul, Div with numpy broadcasting: operands of another shape are broadcast to the
 * common shape (constants expanded here, other values through a broadcast node).  The operands
 * hold the model's scalar (Div a true division) or one word sort: add, sub, mul wrap in two's
 * complement as ONNX's fixed-width integers, Div truncates toward 0 (div with CN_DIV_TRUNC; a zero
 * divisor fails at evaluation, the least signed word divided by -1 wraps to itself).  Two constants
 * of which one is an integer are folded here (int_binary). */
static cn_status
op_binary (struct nctx *nc, cn_op op, char opc)
{
  cn_status st;
  if ((st = need_in (nc, 0)) != CN_OK || (st = need_in (nc, 1)) != CN_OK)
    return st;
  const cn_shape *sa = in_shape (nc, 0), *sb = in_shape (nc, 1);
  cn_shape os;
  char a[128], b[128];
  if (!broadcast_shape (sa, sb, &os))
    return cn_error_set (nc->err, CN_ESHAPE, "input shapes %s and %s do not broadcast", fmt_shape (sa, a, sizeof a),
                         fmt_shape (sb, b, sizeof b));
  if (nc->in[0]->is_const && nc->in[1]->is_const && (is_int (&nc->in[0]->c) || is_int (&nc->in[1]->c)))
    return int_binary (nc, &os, opc);
  if ((st = arith_sorts (nc, 2)) != CN_OK)
    return st;
  cn_params_div pd = { cn_dtype_is_float (in_sort (nc, 0)) ? CN_DIV_TRUE : CN_DIV_TRUNC };
  return broadcast_apply (nc, op, op == CN_OP_DIV ? &pd : NULL, 2, &os);
}

static cn_status op_add (struct nctx *nc) { return op_binary (nc, CN_OP_ADD, '+'); }
static cn_status op_sub (struct nctx *nc) { return op_binary (nc, CN_OP_SUB, '-'); }
static cn_status op_mul (struct nctx *nc) { return op_binary (nc, CN_OP_MUL, '*'); }
static cn_status op_div (struct nctx *nc) { return op_binary (nc, CN_OP_DIV, '/'); }

/* Checks numpy matmul shapes (1-D operands promoted, batch prefixes broadcast). */
static cn_status
check_matmul (struct nctx *nc, const cn_shape *a, const cn_shape *b)
{
  char x[128], y[128];
  if (a->rank == 0 || b->rank == 0)
    goto bad;
  int64_t ka = a->dim[a->rank - 1];
  int64_t kb = b->rank == 1 ? b->dim[0] : b->dim[b->rank - 2];
  if (ka != kb)
    goto bad;
  if (a->rank > 2 || b->rank > 2)
    {
      cn_shape pa, pb, po;
      memset (&pa, 0, sizeof pa);
      memset (&pb, 0, sizeof pb);
      pa.rank = a->rank > 2 ? a->rank - 2 : 0;
      pb.rank = b->rank > 2 ? b->rank - 2 : 0;
      memcpy (pa.dim, a->dim, (size_t) pa.rank * sizeof pa.dim[0]);
      memcpy (pb.dim, b->dim, (size_t) pb.rank * sizeof pb.dim[0]);
      if (!broadcast_shape (&pa, &pb, &po))
        goto bad;
    }
  return CN_OK;
bad:
  return cn_error_set (nc->err, CN_ESHAPE, "input shapes %s and %s do not multiply", fmt_shape (a, x, sizeof x),
                       fmt_shape (b, y, sizeof y));
}

static cn_status
op_matmul (struct nctx *nc)
{
  cn_status st;
  int x[2], v;
  if ((st = need_in (nc, 0)) != CN_OK || (st = need_in (nc, 1)) != CN_OK
      || (st = check_matmul (nc, in_shape (nc, 0), in_shape (nc, 1))) != CN_OK
      || (st = in_gv (nc, 0, &x[0])) != CN_OK || (st = in_gv (nc, 1, &x[1])) != CN_OK
      || (st = add_node (nc, CN_OP_MATMUL, NULL, 2, x, NULL, &v)) != CN_OK)
    return st;
  return set_out (nc, 0, v, 1);
}

/* *DST = F * SRC if every product is exact, with *EXACT = 1; else *EXACT = 0.  An f32 source
 * is scaled in binary64, where the product of two f32 numbers is always exact (24 + 24
 * significant bits, exponents within range); an f64 source is checked product by product with
 * an exact fma residual. */
static cn_status
scale_exact (struct nctx *nc, const cn_tensor *src, double f, cn_tensor *dst, int *exact)
{
  *exact = 0;
  if (f == 1.0)
    {
      *exact = 1;
      return cn_tensor_convert (dst, src->dtype, src, nc->err);
    }
  cn_status st = cn_tensor_init (dst, CN_DTYPE_F64, &src->shape, nc->err);
  if (st != CN_OK)
    return st;
  int64_t n = cn_tensor_numel (src);
  double *d = dst->data;
  for (int64_t i = 0; i < n; i++)
    {
      double w = cn_tensor_get_f64 (src, i);
      d[i] = w * f;
      if (src->dtype != CN_DTYPE_F32
          && (!isfinite (d[i]) || fma (w, f, -d[i]) != 0 || (d[i] != 0 && fabs (d[i]) < DBL_MIN)
              || (d[i] == 0 && w != 0 && f != 0)))
        {
          cn_tensor_clear (dst);
          return CN_OK;
        }
    }
  *exact = 1;
  return CN_OK;
}

/* *V = X * f (a mul node by a constant of X's shape), for a factor that cannot be folded. */
static cn_status
mul_scalar (struct nctx *nc, int x, double f, const char *suffix, int *v)
{
  cn_tensor t;
  int c, in[2];
  char nm[64];
  cn_status st = host_fill (CN_DTYPE_F64, cn_graph_value_shape (nc->imp->g, x), f, &t, nc->err);
  if (st != CN_OK)
    return st;
  snprintf (nm, sizeof nm, "%s_factor", suffix);
  st = add_const (nc, &t, nm, &c);
  cn_tensor_clear (&t);
  if (st != CN_OK)
    return st;
  in[0] = x;
  in[1] = c;
  return add_node (nc, CN_OP_MUL, NULL, 2, in, suffix, v);
}

/* Gemm: Y = alpha A' B' + beta C with A' = transA ? A^T : A, B' likewise.  With a constant B it
 * is linear(A', alpha B'^T, beta C) (the bias as a vector when C is the same for every row);
 * transposes of constants are folded, of other values written as permute nodes. */
static cn_status
op_gemm (struct nctx *nc)
{
  cn_status st;
  int64_t ta, tb;
  double alpha, beta;
  cn_tensor wt, ws, cb, cs;
  memset (&wt, 0, sizeof wt);
  memset (&ws, 0, sizeof ws);
  memset (&cb, 0, sizeof cb);
  memset (&cs, 0, sizeof cs);
  const int perm[2] = { 1, 0 };
  char s1[128], s2[128];
  if ((st = need_in (nc, 0)) != CN_OK || (st = need_in (nc, 1)) != CN_OK
      || (st = attr_int (nc, "transA", 0, &ta)) != CN_OK || (st = attr_int (nc, "transB", 0, &tb)) != CN_OK
      || (st = attr_float (nc, "alpha", 1.0, &alpha)) != CN_OK || (st = attr_float (nc, "beta", 1.0, &beta)) != CN_OK)
    return st;
  const cn_shape *sa = in_shape (nc, 0), *sb = in_shape (nc, 1);
  if (sa->rank != 2 || sb->rank != 2)
    return cn_error_set (nc->err, CN_ESHAPE, "A %s and B %s must be matrices", fmt_shape (sa, s1, sizeof s1),
                         fmt_shape (sb, s2, sizeof s2));
  int64_t m = ta ? sa->dim[1] : sa->dim[0], k = ta ? sa->dim[0] : sa->dim[1];
  int64_t kb = tb ? sb->dim[1] : sb->dim[0], n = tb ? sb->dim[0] : sb->dim[1];
  if (k != kb)
    return cn_error_set (nc->err, CN_ESHAPE, "A %s%s and B %s%s do not multiply", fmt_shape (sa, s1, sizeof s1),
                         ta ? " (transposed)" : "", fmt_shape (sb, s2, sizeof s2), tb ? " (transposed)" : "");
  cn_shape ys;
  int64_t yd[2] = { m, n };
  cn_shape_make (&ys, 2, yd, NULL);

  /* a = A' as a graph value. */
  int a, y;
  struct oval *A = nc->in[0], *B = nc->in[1];
  if (ta && A->is_const)
    {
      cn_tensor at;
      if ((st = host_permute (&A->c, perm, &at, nc->err)) != CN_OK)
        return st;
      st = add_const (nc, &at, "A_T", &a);
      cn_tensor_clear (&at);
      if (st != CN_OK)
        return st;
    }
  else if ((st = in_gv (nc, 0, &a)) != CN_OK)
    return st;
  else if (ta)
    {
      cn_params_permute pp = { 2, { 1, 0 } };
      if ((st = add_node (nc, CN_OP_PERMUTE, &pp, 1, &a, "A_T", &a)) != CN_OK)
        return st;
    }

  int c_done = 0;          /* beta C already in the linear node's bias */
  int alpha_done = 0;      /* alpha already folded into the weight */
  if (B->is_const && !is_int (&B->c))
    {
      /* W = alpha B'^T, [n, k], folded exactly when possible. */
      int exact, w, bias, in3[3];
      if (!tb && (st = host_permute (&B->c, perm, &wt, nc->err)) != CN_OK)
        goto done;
      if ((st = scale_exact (nc, tb ? &B->c : &wt, alpha, &ws, &exact)) != CN_OK)
        goto done;
      if (exact)
        alpha_done = 1;
      else if ((st = tb ? cn_tensor_convert (&ws, B->c.dtype, &B->c, nc->err)
                        : cn_tensor_convert (&ws, wt.dtype, &wt, nc->err)) != CN_OK)
        goto done;
      if (tb && alpha_done && alpha == 1.0)
        st = in_gv (nc, 1, &w);    /* the stored weight itself, under its own name */
      else
        st = add_const (nc, &ws, "W", &w);
      if (st != CN_OK)
        goto done;
      /* The bias: beta C as a vector [n] when C is constant and row-independent (rank < 2 or
       * one row), scaled exactly; zeros otherwise (C is then added after the product). */
      struct oval *C = has_in (nc, 2) ? nc->in[2] : NULL;
      cn_shape bs, rs;
      int64_t one_n[2] = { 1, n };
      cn_shape_make (&bs, 1, &n, NULL);
      cn_shape_make (&rs, 2, one_n, NULL);
      if (C != NULL && C->is_const && !is_int (&C->c) && alpha_done
          && (C->c.shape.rank < 2 || C->c.shape.dim[0] == 1))
        {
          if ((st = host_broadcast (&C->c, &rs, &cb, nc->err)) != CN_OK
              || (st = scale_exact (nc, &cb, beta, &cs, &exact)) != CN_OK)
            goto done;
          if (exact)
            {
              cs.shape = bs;
              if (beta == 1.0 && cn_shape_equal (&C->c.shape, &bs))
                st = in_gv (nc, 2, &bias);
              else
                st = add_const (nc, &cs, "bias", &bias);
              if (st != CN_OK)
                goto done;
              c_done = 1;
            }
          cn_tensor_clear (&cs);
        }
      if (!c_done)
        {
          cn_tensor z;
          if ((st = host_fill (ws.dtype, &bs, 0.0, &z, nc->err)) != CN_OK)
            goto done;
          st = add_const (nc, &z, "zero_bias", &bias);
          cn_tensor_clear (&z);
          if (st != CN_OK)
            goto done;
        }
      in3[0] = a;
      in3[1] = w;
      in3[2] = bias;
      if ((st = add_node (nc, CN_OP_LINEAR, NULL, 3, in3, (c_done || C == NULL) && alpha_done ? NULL : "linear",
                          &y)) != CN_OK)
        goto done;
    }
  else
    {
      int b, in2[2];
      if ((st = in_gv (nc, 1, &b)) != CN_OK)
        goto done;
      if (tb)
        {
          cn_params_permute pp = { 2, { 1, 0 } };
          if ((st = add_node (nc, CN_OP_PERMUTE, &pp, 1, &b, "B_T", &b)) != CN_OK)
            goto done;
        }
      in2[0] = a;
      in2[1] = b;
      int last = !has_in (nc, 2) && alpha == 1.0;
      if ((st = add_node (nc, CN_OP_MATMUL, NULL, 2, in2, last ? NULL : "matmul", &y)) != CN_OK)
        goto done;
    }
  if (!alpha_done && alpha != 1.0)
    {
      int last = !has_in (nc, 2) || c_done;
      if ((st = mul_scalar (nc, y, alpha, last ? NULL : "alpha", &y)) != CN_OK)
        goto done;
    }
  if (has_in (nc, 2) && !c_done)
    {
      /* Y = y + beta C, C broadcast to [m, n]. */
      struct oval *C = nc->in[2];
      int c, in2[2], exact;
      cn_shape cshape = *in_shape (nc, 2);
      cn_shape tmp;
      if (!broadcast_shape (&cshape, &ys, &tmp) || !cn_shape_equal (&tmp, &ys))
        {
          st = cn_error_set (nc->err, CN_ESHAPE, "C %s does not broadcast to %s", fmt_shape (&cshape, s1, sizeof s1),
                             fmt_shape (&ys, s2, sizeof s2));
          goto done;
        }
      if (C->is_const && !is_int (&C->c))
        {
          if ((st = host_broadcast (&C->c, &ys, &cb, nc->err)) != CN_OK
              || (st = scale_exact (nc, &cb, beta, &cs, &exact)) != CN_OK)
            goto done;
          if (!exact && (st = cn_tensor_convert (&cs, cb.dtype, &cb, nc->err)) != CN_OK)
            goto done;
          if ((st = add_const (nc, &cs, "C", &c)) != CN_OK)
            goto done;
          if (!exact && (st = mul_scalar (nc, c, beta, "beta", &c)) != CN_OK)
            goto done;
        }
      else
        {
          if ((st = operand_at (nc, 2, &ys, "C", &c)) != CN_OK)
            goto done;
          if (beta != 1.0 && (st = mul_scalar (nc, c, beta, "beta", &c)) != CN_OK)
            goto done;
        }
      in2[0] = y;
      in2[1] = c;
      if ((st = add_node (nc, CN_OP_ADD, NULL, 2, in2, NULL, &y)) != CN_OK)
        goto done;
    }
  st = set_out (nc, 0, y, 1);
done:
  cn_tensor_clear (&wt);
  cn_tensor_clear (&ws);
  cn_tensor_clear (&cb);
  cn_tensor_clear (&cs);
  return st;
}

/* The spatial geometry shared by Conv, MaxPool and AveragePool: kernel K (given), strides,
 * dilations, pads (or auto_pad) for the ND spatial axes of an input of shape S. */
struct geometry
{
  int64_t kernel[3], stride[3], dilation[3], pad_begin[3], pad_end[3];
};

static cn_status
read_geometry (struct nctx *nc, const cn_shape *s, int nd, int with_dilations, struct geometry *gm)
{
  static const char *const modes[] = { "NOTSET", "VALID", "SAME_UPPER", "SAME_LOWER", NULL };
  int64_t buf[6];
  int n, mode;
  cn_status st;
  for (int i = 0; i < nd; i++)
    {
      gm->stride[i] = 1;
      gm->dilation[i] = 1;
      gm->pad_begin[i] = gm->pad_end[i] = 0;
    }
  if ((st = attr_ints (nc, "strides", buf, 3, &n)) != CN_OK)
    return st;
  if (n >= 0 && n != nd)
    return cn_error_set (nc->err, CN_EINVAL, "strides has %d entries for %d spatial axes", n, nd);
  for (int i = 0; i < n; i++)
    gm->stride[i] = buf[i];
  if (with_dilations)
    {
      if ((st = attr_ints (nc, "dilations", buf, 3, &n)) != CN_OK)
        return st;
      if (n >= 0 && n != nd)
        return cn_error_set (nc->err, CN_EINVAL, "dilations has %d entries for %d spatial axes", n, nd);
      for (int i = 0; i < n; i++)
        gm->dilation[i] = buf[i];
    }
  for (int i = 0; i < nd; i++)
    if (gm->stride[i] < 1 || gm->dilation[i] < 1 || gm->kernel[i] < 1 || gm->stride[i] > GEOM_MAX
        || gm->dilation[i] > GEOM_MAX || gm->kernel[i] > GEOM_MAX)
      return cn_error_set (nc->err, CN_EINVAL, "kernel %lld, stride %lld, dilation %lld on spatial axis %d",
                           (long long) gm->kernel[i], (long long) gm->stride[i], (long long) gm->dilation[i], i);
  if ((st = attr_choice (nc, "auto_pad", "NOTSET", modes, &mode)) != CN_OK
      || (st = attr_ints (nc, "pads", buf, 6, &n)) != CN_OK)
    return st;
  if (mode != 0 && n >= 0)
    return cn_error_set (nc->err, CN_EINVAL, "attributes auto_pad and pads are both given");
  if (n >= 0 && n != 2 * nd)
    return cn_error_set (nc->err, CN_EINVAL, "pads has %d entries for %d spatial axes", n, nd);
  for (int i = 0; i < nd && n >= 0; i++)
    {
      gm->pad_begin[i] = buf[i];
      gm->pad_end[i] = buf[nd + i];
      if (buf[i] < 0 || buf[nd + i] < 0)
        return cn_error_set (nc->err, CN_EUNSUPPORTED, "negative pads are not supported");
      if (buf[i] > GEOM_MAX || buf[nd + i] > GEOM_MAX)
        return cn_error_set (nc->err, CN_EINVAL, "pads above %lld", (long long) GEOM_MAX);
    }
  if (mode >= 2)
    for (int i = 0; i < nd; i++)
      {
        /* SAME: the output extent is ceil(S / stride); the total padding is split evenly, the
         * odd element at the end (SAME_UPPER) or at the beginning (SAME_LOWER). */
        int64_t sz = s->dim[2 + i], o = (sz + gm->stride[i] - 1) / gm->stride[i];
        int64_t keff = gm->dilation[i] * (gm->kernel[i] - 1) + 1;
        int64_t total = (o - 1) * gm->stride[i] + keff - sz;
        if (total < 0)
          total = 0;
        gm->pad_begin[i] = mode == 2 ? total / 2 : total - total / 2;
        gm->pad_end[i] = total - gm->pad_begin[i];
      }
  return CN_OK;
}

static cn_status
op_conv (struct nctx *nc)
{
  cn_status st;
  if ((st = need_in (nc, 0)) != CN_OK || (st = need_in (nc, 1)) != CN_OK)
    return st;
  const cn_shape *xs = in_shape (nc, 0), *ws = in_shape (nc, 1);
  char s1[128], s2[128];
  int nd = xs->rank - 2;
  if (nd < 1 || nd > 3 || ws->rank != xs->rank)
    return cn_error_set (nc->err, CN_ESHAPE, "input %s and weight %s: expected [N,C,S...] and [F,C/group,K...] "
                         "with 1 to 3 spatial axes", fmt_shape (xs, s1, sizeof s1), fmt_shape (ws, s2, sizeof s2));
  struct geometry gm;
  int64_t ks[3], group;
  int n;
  if ((st = attr_ints (nc, "kernel_shape", ks, 3, &n)) != CN_OK || (st = attr_int (nc, "group", 1, &group)) != CN_OK)
    return st;
  for (int i = 0; i < nd; i++)
    {
      gm.kernel[i] = ws->dim[2 + i];
      if (n >= 0 && (n != nd || ks[i] != ws->dim[2 + i]))
        return cn_error_set (nc->err, CN_ESHAPE, "kernel_shape disagrees with the weight %s",
                             fmt_shape (ws, s1, sizeof s1));
    }
  if ((st = read_geometry (nc, xs, nd, 1, &gm)) != CN_OK)
    return st;
  cn_params_conv p;
  memset (&p, 0, sizeof p);
  p.nd = nd;
  p.groups = group;
  for (int i = 0; i < nd; i++)
    {
      p.stride[i] = gm.stride[i];
      p.dilation[i] = gm.dilation[i];
      p.pad_begin[i] = gm.pad_begin[i];
      p.pad_end[i] = gm.pad_end[i];
    }
  int in[3], v;
  if ((st = in_gv (nc, 0, &in[0])) != CN_OK || (st = in_gv (nc, 1, &in[1])) != CN_OK)
    return st;
  if (has_in (nc, 2))
    st = in_gv (nc, 2, &in[2]);
  else
    {
      /* No bias in the model: zeros of extent F. */
      cn_tensor z;
      cn_shape bs;
      cn_shape_make (&bs, 1, &ws->dim[0], NULL);
      if ((st = host_fill (cn_graph_value_dtype (nc->imp->g, in[1]), &bs, 0.0, &z, nc->err)) != CN_OK)
        return st;
      st = add_const (nc, &z, "zero_bias", &in[2]);
      cn_tensor_clear (&z);
    }
  if (st == CN_OK)
    st = add_node (nc, CN_OP_CONV, &p, 3, in, NULL, &v);
  return st != CN_OK ? st : set_out (nc, 0, v, 1);
}

static cn_status
op_pool (struct nctx *nc, cn_pool_kind kind)
{
  cn_status st;
  if ((st = need_in (nc, 0)) != CN_OK)
    return st;
  if (out_wanted (nc, 1))
    return cn_error_set (nc->err, CN_EUNSUPPORTED, "the Indices output is not supported");
  const cn_shape *xs = in_shape (nc, 0);
  char s1[128];
  int nd = xs->rank - 2, n;
  if (nd < 1 || nd > 3)
    return cn_error_set (nc->err, CN_ESHAPE, "input %s: expected [N,C,S...] with 1 to 3 spatial axes",
                         fmt_shape (xs, s1, sizeof s1));
  struct geometry gm;
  int64_t ks[3], ceil_mode, cip = 0, order;
  if ((st = attr_ints (nc, "kernel_shape", ks, 3, &n)) != CN_OK)
    return st;
  if (n != nd)
    return cn_error_set (nc->err, CN_EINVAL, "kernel_shape must have %d entries", nd);
  memcpy (gm.kernel, ks, sizeof ks);
  if ((st = read_geometry (nc, xs, nd, kind == CN_POOL_MAX, &gm)) != CN_OK
      || (st = attr_int (nc, "ceil_mode", 0, &ceil_mode)) != CN_OK
      || (st = attr_int (nc, "storage_order", 0, &order)) != CN_OK
      || (kind == CN_POOL_AVG && (st = attr_int (nc, "count_include_pad", 0, &cip)) != CN_OK))
    return st;
  if (ceil_mode)
    for (int i = 0; i < nd; i++)
      {
        /* Ceil mode is accepted where it gives the floor mode's extent: where the last window
         * ends exactly at the padded input's end (the stride divides the span). */
        int64_t span = xs->dim[2 + i] + gm.pad_begin[i] + gm.pad_end[i] - gm.dilation[i] * (gm.kernel[i] - 1) - 1;
        if (span >= 0 && span % gm.stride[i] != 0)
          return cn_error_set (nc->err, CN_EUNSUPPORTED, "ceil_mode = 1 is not supported (it changes the output extent "
                               "on spatial axis %d)", i);
      }
  cn_params_pool p;
  memset (&p, 0, sizeof p);
  p.kind = kind;
  p.nd = nd;
  p.count_include_pad = (int) cip;
  for (int i = 0; i < nd; i++)
    {
      p.kernel[i] = gm.kernel[i];
      p.stride[i] = gm.stride[i];
      p.dilation[i] = gm.dilation[i];
      p.pad_begin[i] = gm.pad_begin[i];
      p.pad_end[i] = gm.pad_end[i];
    }
  int x, v;
  if ((st = in_gv (nc, 0, &x)) != CN_OK || (st = add_node (nc, CN_OP_POOL, &p, 1, &x, NULL, &v)) != CN_OK)
    return st;
  return set_out (nc, 0, v, 1);
}

static cn_status op_maxpool (struct nctx *nc) { return op_pool (nc, CN_POOL_MAX); }
static cn_status op_avgpool (struct nctx *nc) { return op_pool (nc, CN_POOL_AVG); }

/* Reductions over AXES (bitmask) of input 0. */
static cn_status
emit_reduce (struct nctx *nc, cn_op op, cn_reduce_kind kind, uint32_t axes, int keepdims)
{
  cn_params_reduce p = { kind, axes, keepdims };
  int x, v;
  cn_status st;
  if ((st = in_gv (nc, 0, &x)) != CN_OK || (st = add_node (nc, op, &p, 1, &x, NULL, &v)) != CN_OK)
    return st;
  return set_out (nc, 0, v, 1);
}

static cn_status
op_global_pool (struct nctx *nc, cn_op op, cn_reduce_kind kind)
{
  cn_status st = need_in (nc, 0);
  if (st != CN_OK)
    return st;
  int r = in_shape (nc, 0)->rank;
  if (r < 3)
    return cn_error_set (nc->err, CN_ESHAPE, "the input must have rank 3 or more");
  uint32_t axes = 0;
  for (int i = 2; i < r; i++)
    axes |= 1u << i;
  return emit_reduce (nc, op, kind, axes, 1);
}

static cn_status op_gap (struct nctx *nc) { return op_global_pool (nc, CN_OP_MEAN, CN_REDUCE_SUM); }
static cn_status op_gmp (struct nctx *nc) { return op_global_pool (nc, CN_OP_REDUCE, CN_REDUCE_MAX); }

static cn_status
op_reduce (struct nctx *nc, cn_op op, cn_reduce_kind kind, int axes_input)
{
  cn_status st = need_in (nc, 0);
  if (st != CN_OK)
    return st;
  int64_t keep, noop, ax[CN_MAX_RANK];
  int n = -1, r = in_shape (nc, 0)->rank;
  if ((st = attr_int (nc, "keepdims", 1, &keep)) != CN_OK
      || (st = attr_int (nc, "noop_with_empty_axes", 0, &noop)) != CN_OK
      || (st = attr_ints (nc, "axes", ax, CN_MAX_RANK, &n)) != CN_OK)
    return st;
  /* ReduceSum takes its axes from an input since opset 13. */
  if (axes_input && has_in (nc, 1))
    {
      if (n >= 0)
        return cn_error_set (nc->err, CN_EINVAL, "axes given both as attribute and input");
      if ((st = const_ints (nc, 1, "axes", ax, CN_MAX_RANK, &n)) != CN_OK)
        return st;
    }
  if (n <= 0 && noop)
    return set_out_alias (nc, 0, 0);
  uint32_t mask = 0;
  if (n <= 0)
    mask = r ? (uint32_t) ((1u << r) - 1) : 0;
  for (int i = 0; i < n; i++)
    {
      int a = 0;
      if ((st = norm_axis (nc, ax[i], r, "axis", &a)) != CN_OK)
        return st;
      if (mask & (1u << a))
        return cn_error_set (nc->err, CN_EINVAL, "axis %d is repeated", a);
      mask |= 1u << a;
    }
  if (mask == 0)
    return set_out_alias (nc, 0, 0);
  return emit_reduce (nc, op, kind, mask, keep != 0);
}

static cn_status op_reduce_sum (struct nctx *nc) { return op_reduce (nc, CN_OP_REDUCE, CN_REDUCE_SUM, 1); }
static cn_status op_reduce_mean (struct nctx *nc) { return op_reduce (nc, CN_OP_MEAN, CN_REDUCE_SUM, 0); }
static cn_status op_reduce_max (struct nctx *nc) { return op_reduce (nc, CN_OP_REDUCE, CN_REDUCE_MAX, 0); }
static cn_status op_reduce_min (struct nctx *nc) { return op_reduce (nc, CN_OP_REDUCE, CN_REDUCE_MIN, 0); }
static cn_status op_reduce_prod (struct nctx *nc) { return op_reduce (nc, CN_OP_REDUCE, CN_REDUCE_PROD, 0); }

/* BatchNormalization with training_mode = 1 (opset 14 and later): Y from the batch statistics
 * (batchNorm, whose outputs 1 and 2 are the batch mean and biased variance), and the updated
 * running statistics, ONNX's running_mean = input_mean momentum + mean (1 - momentum) and
 * running_var = input_var momentum + var (1 - momentum), as mul and add nodes.  IN holds the
 * graph values of X, scale, B, input_mean and input_var. */
static cn_status
batchnorm_training (struct nctx *nc, const cn_params_batchnorm *p, const int *in)
{
  cn_status st;
  double momentum;
  if (nc->imp->opset < 14)
    return cn_error_set (nc->err, CN_EUNSUPPORTED, "training_mode needs opset 14 or later (the file has %d)",
                         (int) nc->imp->opset);
  if ((st = attr_float (nc, "momentum", 0.9, &momentum)) != CN_OK)
    return st;
  if (!isfinite (momentum))
    return cn_error_set (nc->err, CN_EINVAL, "momentum %g is not finite", momentum);
  int xsb[3] = { in[0], in[1], in[2] }, y;
  if ((st = add_node (nc, CN_OP_BATCH_NORM, p, 3, xsb, NULL, &y)) != CN_OK || (st = set_out (nc, 0, y, 1)) != CN_OK)
    return st;
  const cn_graph *g = nc->imp->g;
  for (int k = 1; k <= 2; k++)
    {
      if (!out_wanted (nc, k))
        continue;
      int stat = cn_graph_node_output (g, cn_graph_value_producer (g, y), k), ab[2], r;
      if ((st = mul_scalar (nc, in[2 + k], momentum, k == 1 ? "momentum_mean" : "momentum_var", &ab[0])) != CN_OK
          || (st = mul_scalar (nc, stat, 1 - momentum, k == 1 ? "batch_mean" : "batch_var", &ab[1])) != CN_OK
          || (st = add_node (nc, CN_OP_ADD, NULL, 2, ab, k == 1 ? "running_mean" : "running_var", &r)) != CN_OK
          || (st = set_out (nc, k, r, 1)) != CN_OK)
        return st;
    }
  return CN_OK;
}

static cn_status
op_batchnorm (struct nctx *nc)
{
  cn_status st;
  for (int i = 0; i < 5; i++)
    if ((st = need_in (nc, i)) != CN_OK)
      return st;
  double eps;
  int64_t spatial, training;
  if ((st = attr_float (nc, "epsilon", 1e-5, &eps)) != CN_OK || (st = attr_int (nc, "spatial", 1, &spatial)) != CN_OK
      || (st = attr_int (nc, "training_mode", 0, &training)) != CN_OK)
    return st;
  if (!spatial)
    return cn_error_set (nc->err, CN_EUNSUPPORTED, "spatial = 0 is not supported");
  if (in_shape (nc, 0)->rank < 2)
    return cn_error_set (nc->err, CN_ESHAPE, "the input must have rank 2 or more");
  cn_params_batchnorm p = { 1, eps };
  int in[5], v;
  for (int i = 0; i < 5; i++)
    if ((st = in_gv (nc, i, &in[i])) != CN_OK)
      return st;
  if (training)
    return batchnorm_training (nc, &p, in);
  for (int k = 1; k < (int) nc->np->n_output; k++)
    if (out_wanted (nc, k))
      return cn_error_set (nc->err, CN_EUNSUPPORTED, "the training outputs (running statistics) need training_mode = 1 "
                           "(opset 14 or later)");
  if ((st = add_node (nc, CN_OP_BATCH_NORM_RUNNING, &p, 5, in, NULL, &v)) != CN_OK)
    return st;
  return set_out (nc, 0, v, 1);
}

static cn_status
op_pad (struct nctx *nc)
{
  static const char *const modes[] = { "constant", NULL };
  cn_status st;
  int mode, n = -1;
  int64_t pads[2 * CN_MAX_RANK];
  double value;
  if ((st = need_in (nc, 0)) != CN_OK || (st = attr_choice (nc, "mode", "constant", modes, &mode)) != CN_OK
      || (st = attr_float (nc, "value", 0.0, &value)) != CN_OK
      || (st = attr_ints (nc, "pads", pads, 2 * CN_MAX_RANK, &n)) != CN_OK)
    return st;
  /* Opset 11 moved pads and the constant value to inputs. */
  if (has_in (nc, 1))
    {
      if (n >= 0)
        return cn_error_set (nc->err, CN_EINVAL, "pads given both as attribute and input");
      if ((st = const_ints (nc, 1, "pads", pads, 2 * CN_MAX_RANK, &n)) != CN_OK)
        return st;
    }
  cn_dtype ds = in_sort (nc, 0);
  if (has_in (nc, 2))
    {
      struct oval *c = nc->in[2];
      if (!c->is_const || cn_tensor_numel (&c->c) != 1)
        return cn_error_set (nc->err, CN_EUNSUPPORTED, "constant_value must be a constant scalar");
      if (!cn_dtype_is_float (ds) && c->sort != ds)
        return cn_error_set (nc->err, CN_EUNSUPPORTED, "constant_value ('%s') holds %s values where input 0 ('%s') "
                             "holds %s", c->name, sort_name (c->sort), nc->in[0]->name, sort_name (ds));
      if (is_int (&c->c))
        {
          /* pad takes its value as a binary64 number: exact for the words of magnitude <= 2^53 */
          int64_t w = ((const int64_t *) c->c.data)[0];
          if (w > ((int64_t) 1 << 53) || w < -((int64_t) 1 << 53))
            return cn_error_set (nc->err, CN_EUNSUPPORTED, "the padding value %lld is beyond 2^53 (not supported)",
                                 (long long) w);
          value = (double) w;
        }
      else
        value = cn_tensor_get_f64 (&c->c, 0);
    }
  if (has_in (nc, 3))
    return cn_error_set (nc->err, CN_EUNSUPPORTED, "the axes input is not supported");
  int r = in_shape (nc, 0)->rank;
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
      if (p.begin[i] > GEOM_MAX || p.end[i] > GEOM_MAX)
        return cn_error_set (nc->err, CN_EINVAL, "pads above %lld", (long long) GEOM_MAX);
      zero &= p.begin[i] == 0 && p.end[i] == 0;
    }
  if (zero)
    return set_out_alias (nc, 0, 0);
  int x, v;
  if ((st = in_gv (nc, 0, &x)) != CN_OK || (st = add_node (nc, CN_OP_PAD, &p, 1, &x, NULL, &v)) != CN_OK)
    return st;
  return set_out (nc, 0, v, 1);
}

static cn_status
op_flatten (struct nctx *nc)
{
  cn_status st = need_in (nc, 0);
  int64_t axis;
  if (st != CN_OK || (st = attr_int (nc, "axis", 1, &axis)) != CN_OK)
    return st;
  const cn_shape *s = in_shape (nc, 0);
  if (axis < -s->rank || axis > s->rank)
    return cn_error_set (nc->err, CN_EINVAL, "axis %lld is out of range for rank %d", (long long) axis, s->rank);
  if (axis < 0)
    axis += s->rank;
  int64_t d[2] = { 1, 1 };
  for (int i = 0; i < s->rank; i++)
    d[i >= axis] *= s->dim[i];
  cn_shape os;
  cn_shape_make (&os, 2, d, NULL);
  return emit_reshape (nc, 0, 0, &os);
}

static cn_status
op_reshape (struct nctx *nc)
{
  cn_status st;
  int64_t sh[CN_MAX_RANK], allowzero;
  int n;
  if ((st = need_in (nc, 0)) != CN_OK || (st = need_in (nc, 1)) != CN_OK
      || (st = attr_int (nc, "allowzero", 0, &allowzero)) != CN_OK
      || (st = const_ints (nc, 1, "target shape", sh, CN_MAX_RANK, &n)) != CN_OK)
    return st;
  const cn_shape *is = in_shape (nc, 0);
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
                               fmt_shape (is, a, sizeof a));
        }
      sh[infer] = total / known;
    }
  cn_shape os;
  if ((st = make_shape (nc, n, sh, &os)) != CN_OK)
    return st;
  return emit_reshape (nc, 0, 0, &os);
}

/* Squeeze and Unsqueeze: axes from the attribute (before opset 13) or from input 1. */
static cn_status
read_axes (struct nctx *nc, int64_t *ax, int *n)
{
  cn_status st = attr_ints (nc, "axes", ax, CN_MAX_RANK, n);
  if (st == CN_OK && has_in (nc, 1))
    {
      if (*n >= 0)
        return cn_error_set (nc->err, CN_EINVAL, "axes given both as attribute and input");
      st = const_ints (nc, 1, "axes", ax, CN_MAX_RANK, n);
    }
  return st;
}

static cn_status
op_squeeze (struct nctx *nc)
{
  cn_status st;
  int64_t ax[CN_MAX_RANK];
  int n;
  if ((st = need_in (nc, 0)) != CN_OK || (st = read_axes (nc, ax, &n)) != CN_OK)
    return st;
  const cn_shape *is = in_shape (nc, 0);
  uint32_t drop = 0;
  for (int i = 0; i < n; i++)
    {
      int a = 0;
      if ((st = norm_axis (nc, ax[i], is->rank, "axis", &a)) != CN_OK)
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
  return emit_reshape (nc, 0, 0, &os);
}

static cn_status
op_unsqueeze (struct nctx *nc)
{
  cn_status st;
  int64_t ax[CN_MAX_RANK];
  int n;
  if ((st = need_in (nc, 0)) != CN_OK || (st = read_axes (nc, ax, &n)) != CN_OK)
    return st;
  if (n < 0)
    return cn_error_set (nc->err, CN_EPARSE, "the axes are missing");
  const cn_shape *is = in_shape (nc, 0);
  int r = is->rank + n;
  if (r > CN_MAX_RANK)
    return cn_error_set (nc->err, CN_EUNSUPPORTED, "rank %d is above %d", r, CN_MAX_RANK);
  uint32_t ins = 0;
  for (int i = 0; i < n; i++)
    {
      int a = 0;
      if ((st = norm_axis (nc, ax[i], r, "axis", &a)) != CN_OK)
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
  return emit_reshape (nc, 0, 0, &os);
}

static cn_status
op_transpose (struct nctx *nc)
{
  cn_status st;
  int64_t pv[CN_MAX_RANK];
  int n;
  if ((st = need_in (nc, 0)) != CN_OK || (st = attr_ints (nc, "perm", pv, CN_MAX_RANK, &n)) != CN_OK)
    return st;
  int r = in_shape (nc, 0)->rank;
  cn_params_permute p;
  memset (&p, 0, sizeof p);
  p.rank = r;
  if (n < 0)
    for (int i = 0; i < r; i++)
      p.perm[i] = r - 1 - i;
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
          p.perm[i] = (int) pv[i];
        }
    }
  struct oval *o = nc->in[0];
  if (o->is_const && !nc->imp->folding)
    {
      cn_tensor t;
      if ((st = host_permute (&o->c, p.perm, &t, nc->err)) != CN_OK)
        return st;
      return set_out_const (nc, 0, &t);
    }
  int identity = 1;
  for (int i = 0; i < r; i++)
    identity &= p.perm[i] == i;
  if (identity)
    return set_out_alias (nc, 0, 0);
  int x, v;
  if ((st = in_gv (nc, 0, &x)) != CN_OK || (st = add_node (nc, CN_OP_PERMUTE, &p, 1, &x, NULL, &v)) != CN_OK)
    return st;
  return set_out (nc, 0, v, 1);
}

static cn_status
op_concat (struct nctx *nc)
{
  cn_status st;
  int64_t axis;
  if ((st = attr_int (nc, "axis", 0, &axis)) != CN_OK)
    return st;
  if (nc->n_in < 1)
    return cn_error_set (nc->err, CN_EPARSE, "no inputs");
  int all_const = 1, any_int = 0, n = 0;
  for (int i = 0; i < nc->n_in; i++)
    if (nc->in[i] != NULL)
      {
        all_const &= nc->in[i]->is_const;
        any_int |= nc->in[i]->is_const && is_int (&nc->in[i]->c);
        n++;
      }
  if (n == 0)
    return cn_error_set (nc->err, CN_EPARSE, "no inputs");
  const cn_shape *s0 = NULL;
  for (int i = 0; i < nc->n_in && s0 == NULL; i++)
    if (nc->in[i] != NULL)
      s0 = in_shape (nc, i);
  int a = 0;
  if ((st = norm_axis (nc, axis, s0->rank, "axis", &a)) != CN_OK)
    return st;
  for (int i = 0; i < nc->n_in; i++)
    if (nc->in[i] != NULL)
      {
        const cn_shape *si = in_shape (nc, i);
        int ok = si->rank == s0->rank;
        for (int d = 0; ok && d < s0->rank; d++)
          ok = d == a || si->dim[d] == s0->dim[d];
        if (!ok)
          {
            char x[128], y[128];
            return cn_error_set (nc->err, CN_ESHAPE, "input shapes %s and %s differ off axis %d",
                                 fmt_shape (s0, x, sizeof x), fmt_shape (si, y, sizeof y), a);
          }
      }
  if (all_const && (any_int || !nc->imp->folding))
    {
      /* Constants are concatenated here, in one sort: i64 if all are integers, else the
       * widest floating sort present (integers convert exactly or fail). */
      cn_dtype dt = CN_DTYPE_I64;
      for (int i = 0; i < nc->n_in; i++)
        if (nc->in[i] != NULL && !is_int (&nc->in[i]->c))
          dt = (dt == CN_DTYPE_F64 || nc->in[i]->c.dtype == CN_DTYPE_F64) ? CN_DTYPE_F64 : CN_DTYPE_F32;
      cn_tensor *conv = calloc ((size_t) n, sizeof *conv);
      const cn_tensor **src = calloc ((size_t) n, sizeof *src);
      cn_tensor r;
      memset (&r, 0, sizeof r);
      st = conv && src ? CN_OK : nomem (nc);
      for (int i = 0, j = 0; st == CN_OK && i < nc->n_in; i++)
        if (nc->in[i] != NULL)
          {
            st = cn_tensor_convert (&conv[j], dt, &nc->in[i]->c, nc->err);
            src[j] = &conv[j];
            j++;
          }
      if (st == CN_OK)
        st = host_concat (n, src, a, &r, nc->err);
      for (int j = 0; conv && j < n; j++)
        cn_tensor_clear (&conv[j]);
      free (conv);
      free (src);
      return st != CN_OK ? st : set_out_const (nc, 0, &r);
    }
  if (n == 1)
    {
      for (int i = 0; i < nc->n_in; i++)
        if (nc->in[i] != NULL)
          return set_out_alias (nc, 0, i);
    }
  /* The inputs hold one element sort: the model's scalar, Booleans or one word sort. */
  int first = -1;
  for (int i = 0; i < nc->n_in; i++)
    if (nc->in[i] != NULL)
      {
        if (first < 0)
          first = i;
        else if ((st = sorts_agree (nc, first, i)) != CN_OK)
          return st;
      }
  int *in = malloc ((size_t) n * sizeof *in), v;
  if (in == NULL)
    return nomem (nc);
  st = CN_OK;
  for (int i = 0, j = 0; st == CN_OK && i < nc->n_in; i++)
    if (nc->in[i] != NULL)
      st = in_gv (nc, i, &in[j++]);
  cn_params_cat p = { a };
  if (st == CN_OK)
    st = add_node (nc, CN_OP_CAT, &p, n, in, NULL, &v);
  free (in);
  if (st != CN_OK)
    return st;
  return set_out (nc, 0, v, 1);
}

/* Slice: starts, ends, axes, steps from the attributes (before opset 10) or inputs 1 to 4. */
static cn_status
op_slice (struct nctx *nc)
{
  cn_status st;
  int64_t starts[CN_MAX_RANK], ends[CN_MAX_RANK], axes[CN_MAX_RANK], steps[CN_MAX_RANK];
  int ns, ne, na = -1, nt = -1;
  if ((st = need_in (nc, 0)) != CN_OK)
    return st;
  if (has_in (nc, 1))
    {
      if ((st = need_in (nc, 2)) != CN_OK || (st = const_ints (nc, 1, "starts", starts, CN_MAX_RANK, &ns)) != CN_OK
          || (st = const_ints (nc, 2, "ends", ends, CN_MAX_RANK, &ne)) != CN_OK
          || (has_in (nc, 3) && (st = const_ints (nc, 3, "axes", axes, CN_MAX_RANK, &na)) != CN_OK)
          || (has_in (nc, 4) && (st = const_ints (nc, 4, "steps", steps, CN_MAX_RANK, &nt)) != CN_OK))
        return st;
    }
  else if ((st = attr_ints (nc, "starts", starts, CN_MAX_RANK, &ns)) != CN_OK
           || (st = attr_ints (nc, "ends", ends, CN_MAX_RANK, &ne)) != CN_OK
           || (st = attr_ints (nc, "axes", axes, CN_MAX_RANK, &na)) != CN_OK)
    return st;
  if (ns < 0 || ns != ne || (na >= 0 && na != ns) || (nt >= 0 && nt != ns))
    return cn_error_set (nc->err, CN_EINVAL, "starts, ends, axes and steps must have equal lengths");
  const cn_shape *is = in_shape (nc, 0);
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
      if ((st = norm_axis (nc, na >= 0 ? axes[k] : k, is->rank, "axis", &a)) != CN_OK)
        return st;
      if (seen & (1u << a))
        return cn_error_set (nc->err, CN_EINVAL, "axis %d is repeated", a);
      seen |= 1u << a;
      int64_t d = is->dim[a], step = nt >= 0 ? steps[k] : 1, b = starts[k], e = ends[k];
      if (step < 1)
        return cn_error_set (nc->err, CN_EUNSUPPORTED, "step %lld on axis %d is not supported (steps must be >= 1)",
                             (long long) step, a);
      /* Negative positions count from the end; both ends are clamped into [0, d]. */
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
  struct oval *o = nc->in[0];
  if (o->is_const && !nc->imp->folding)
    {
      cn_tensor t;
      if ((st = host_slice (&o->c, &p, &t, nc->err)) != CN_OK)
        return st;
      return set_out_const (nc, 0, &t);
    }
  int x, v;
  if ((st = in_gv (nc, 0, &x)) != CN_OK || (st = add_node (nc, CN_OP_SLICE, &p, 1, &x, NULL, &v)) != CN_OK)
    return st;
  return set_out (nc, 0, v, 1);
}

/* Gather(data, indices, axis): constants are gathered here; a non-constant data tensor with
 * a scalar index or an arithmetic progression of indices becomes a slice (and a reshape). */
static cn_status
op_gather (struct nctx *nc)
{
  cn_status st;
  int64_t axis;
  if ((st = need_in (nc, 0)) != CN_OK || (st = need_in (nc, 1)) != CN_OK
      || (st = attr_int (nc, "axis", 0, &axis)) != CN_OK)
    return st;
  struct oval *D = nc->in[0], *I = nc->in[1];
  const cn_shape *ds = in_shape (nc, 0);
  int a = 0;
  if ((st = norm_axis (nc, axis, ds->rank, "axis", &a)) != CN_OK)
    return st;
  if (!I->is_const || !is_int (&I->c))
    return cn_error_set (nc->err, CN_EUNSUPPORTED, "the indices must be an integer constant");
  const cn_shape *is = &I->c.shape;
  int64_t ni = cn_tensor_numel (&I->c), d = ds->dim[a];
  int64_t *idx = malloc ((size_t) (ni ? ni : 1) * sizeof *idx);
  cn_tensor r;
  memset (&r, 0, sizeof r);
  if (idx == NULL)
    return nomem (nc);
  for (int64_t k = 0; k < ni; k++)
    {
      int64_t j = ((const int64_t *) I->c.data)[k];
      if (j < -d || j >= d)
        {
          free (idx);
          return cn_error_set (nc->err, CN_EINVAL, "index %lld is out of range for extent %lld", (long long) j,
                               (long long) d);
        }
      idx[k] = j < 0 ? j + d : j;
    }
  cn_shape os;
  memset (&os, 0, sizeof os);
  os.rank = ds->rank - 1 + is->rank;
  if (os.rank > CN_MAX_RANK)
    {
      free (idx);
      return cn_error_set (nc->err, CN_EUNSUPPORTED, "rank %d is above %d", os.rank, CN_MAX_RANK);
    }
  for (int i = 0, j = 0; i < ds->rank; i++)
    if (i == a)
      for (int q = 0; q < is->rank; q++)
        os.dim[j++] = is->dim[q];
    else
      os.dim[j++] = ds->dim[i];
  if (D->is_const && (!nc->imp->folding || is_int (&D->c)))
    {
      /* out[pre, k, post] = data[pre, idx[k], post], one slab per index. */
      size_t es = cn_dtype_size (D->c.dtype);
      int64_t pre = 1, post = 1;
      for (int i = 0; i < a; i++)
        pre *= ds->dim[i];
      for (int i = a + 1; i < ds->rank; i++)
        post *= ds->dim[i];
      if ((st = cn_tensor_init (&r, D->c.dtype, &os, nc->err)) == CN_OK)
        for (int64_t p = 0; p < pre; p++)
          for (int64_t k = 0; k < ni; k++)
            memcpy ((char *) r.data + ((p * ni + k) * post) * (int64_t) es,
                    (const char *) D->c.data + ((p * d + idx[k]) * post) * (int64_t) es, (size_t) post * es);
      free (idx);
      return st != CN_OK ? st : set_out_const (nc, 0, &r);
    }
  /* A non-constant data tensor: indices j0, j0 + s, ... (s >= 1) are a slice; others a gather. */
  int64_t step = ni >= 2 ? idx[1] - idx[0] : 1;
  int prog = ni >= 1 && step >= 1;
  for (int64_t k = 1; prog && k < ni; k++)
    prog = idx[k] - idx[k - 1] == step;
  cn_params_slice p;
  memset (&p, 0, sizeof p);
  p.rank = ds->rank;
  for (int i = 0; i < ds->rank; i++)
    {
      p.stop[i] = ds->dim[i];
      p.step[i] = 1;
    }
  int x, v;
  if (!prog)
    {
      /* Any other constant indices: gather (torch.gather) with the index tensor of the data's
       * shape, extent ni on axis A, holding idx[k] at every [pre, k, post] (exact integers). */
      cn_shape gs = *ds;
      gs.dim[a] = ni;
      int64_t pre = 1, post = 1;
      for (int i = 0; i < a; i++)
        pre *= ds->dim[i];
      for (int i = a + 1; i < ds->rank; i++)
        post *= ds->dim[i];
      cn_tensor gt;
      int gv;
      cn_params_gather pg = { a };
      if ((st = cn_tensor_init (&gt, CN_DTYPE_F64, &gs, nc->err)) != CN_OK)
        {
          free (idx);
          return st;
        }
      for (int64_t q = 0; q < pre; q++)
        for (int64_t k = 0; k < ni; k++)
          for (int64_t t = 0; t < post; t++)
            ((double *) gt.data)[(q * ni + k) * post + t] = (double) idx[k];
      free (idx);
      st = add_const (nc, &gt, "indices", &gv);
      cn_tensor_clear (&gt);
      int gin[2];
      if (st != CN_OK || (st = in_gv (nc, 0, &gin[0])) != CN_OK)
        return st;
      gin[1] = gv;
      if ((st = add_node (nc, CN_OP_GATHER, &pg, 2, gin, "gather", &v)) != CN_OK)
        return st;
    }
  else
    {
      p.start[a] = idx[0];
      p.stop[a] = idx[ni - 1] + 1;
      p.step[a] = step;
      free (idx);
      if ((st = in_gv (nc, 0, &x)) != CN_OK || (st = add_node (nc, CN_OP_SLICE, &p, 1, &x, "slice", &v)) != CN_OK)
        return st;
    }
  cn_params_reshape rp;
  rp.shape = os;
  if ((st = add_node (nc, CN_OP_RESHAPE, &rp, 1, &v, NULL, &v)) != CN_OK)
    return st;
  return set_out (nc, 0, v, 1);
}

static cn_status
op_shape (struct nctx *nc)
{
  cn_status st = need_in (nc, 0);
  int64_t start, end;
  if (st != CN_OK || (st = attr_int (nc, "start", 0, &start)) != CN_OK
      || (st = attr_int (nc, "end", INT64_MAX, &end)) != CN_OK)
    return st;
  const cn_shape *s = in_shape (nc, 0);
  int64_t r = s->rank;
  start = start < 0 ? (start + r < 0 ? 0 : start + r) : (start > r ? r : start);
  end = end < 0 ? (end + r < 0 ? 0 : end + r) : (end > r ? r : end);
  int64_t n = end > start ? end - start : 0;
  cn_shape os;
  cn_shape_make (&os, 1, &n, NULL);
  cn_tensor t;
  if ((st = cn_tensor_init (&t, CN_DTYPE_I64, &os, nc->err)) != CN_OK)
    return st;
  for (int64_t i = 0; i < n; i++)
    ((int64_t *) t.data)[i] = s->dim[start + i];
  nc->out_sort = CN_DTYPE_I64;
  return set_out_const (nc, 0, &t);
}

static cn_status
op_size (struct nctx *nc)
{
  cn_status st = need_in (nc, 0);
  if (st != CN_OK)
    return st;
  cn_shape os;
  memset (&os, 0, sizeof os);
  cn_tensor t;
  if ((st = host_fill (CN_DTYPE_I64, &os, (double) cn_shape_numel (in_shape (nc, 0)), &t, nc->err)) != CN_OK)
    return st;
  nc->out_sort = CN_DTYPE_I64;
  return set_out_const (nc, 0, &t);
}

/* The word of sort T (BOOL or I8 .. U64) that the integer V becomes under a cast: x != 0 for
 * BOOL, else V modulo 2^N read in the N bits of T (two's complement when signed), as numpy's and
 * torch's casts.  -1 if the result is a u64 word above INT64_MAX (the host holds i64). */
static int
wrap_word (int64_t v, cn_dtype t, int64_t *out)
{
  uint64_t u = (uint64_t) v;
  switch (t)
    {
    case CN_DTYPE_BOOL: *out = v != 0; return 0;
    case CN_DTYPE_I8: *out = (int8_t) (uint8_t) u; return 0;
    case CN_DTYPE_I16: *out = (int16_t) (uint16_t) u; return 0;
    case CN_DTYPE_I32: *out = (int32_t) (uint32_t) u; return 0;
    case CN_DTYPE_U8: *out = (uint8_t) u; return 0;
    case CN_DTYPE_U16: *out = (uint16_t) u; return 0;
    case CN_DTYPE_U32: *out = (uint32_t) u; return 0;
    case CN_DTYPE_U64: *out = v; return v < 0 ? -1 : 0;
    default: *out = v; return 0;
    }
}

static cn_status node1 (struct nctx *nc, cn_op op, const void *params, int x, const char *suffix, int *v);

/* Output 0 = input 0 cast to the sort TO (onnx_sort of the target type; CN_DTYPE_COUNT refused,
 * naming TYPE_NAME).
 *   A constant is converted here: to FLOAT or DOUBLE exactly or rounded to nearest
 *   (cn_tensor_convert); to BOOL x != 0; a float to an integer sort truncated toward zero, a NaN
 *   or a value outside the sort's range refused (CN_ENUMERIC, as the cast operator refuses it at
 *   evaluation); an integer to an integer sort wrapped to its width.
 *   A non-constant value: between FLOAT and DOUBLE (or to its own sort) it is kept as it is (the
 *   graph is evaluated in one floating sort); otherwise a cast node (certnn/ops.h: to BOOL x != 0,
 *   a float to a word by truncation, failing at evaluation outside the range, words wrapped,
 *   Booleans and words to the model's scalar rounded to nearest). */
static cn_status
cast_to (struct nctx *nc, cn_dtype to, const char *type_name)
{
  if (to == CN_DTYPE_COUNT)
    return cn_error_set (nc->err, CN_EUNSUPPORTED, "cast to %s is not supported", type_name);
  struct oval *o = nc->in[0];
  int to_float = cn_dtype_is_float (to);
  if (!o->is_const)
    {
      cn_dtype from = cn_graph_value_dtype (nc->imp->g, o->gv);
      if ((cn_dtype_is_float (from) && to_float) || from == to)
        return set_out_alias (nc, 0, 0);
      cn_params_cast p = { to_float ? CN_DTYPE_F64 : to };
      int v;
      cn_status st = node1 (nc, CN_OP_CAST, &p, o->gv, NULL, &v);
      return st != CN_OK ? st : set_out (nc, 0, v, 1);
    }
  cn_tensor t;
  cn_status st;
  int64_t n = cn_tensor_numel (&o->c);
  if (to_float)
    st = cn_tensor_convert (&t, to, &o->c, nc->err);
  else if ((st = cn_tensor_init (&t, CN_DTYPE_I64, &o->c.shape, nc->err)) == CN_OK)
    for (int64_t i = 0; i < n; i++)
      {
        int64_t w;
        if (is_int (&o->c))
          {
            if (wrap_word (((const int64_t *) o->c.data)[i], to, &w) != 0)
              {
                cn_tensor_clear (&t);
                return cn_error_set (nc->err, CN_EUNSUPPORTED, "cast of %lld to %s gives a word beyond the int64 "
                                     "range (not supported)", (long long) ((const int64_t *) o->c.data)[i], type_name);
              }
          }
        else
          {
            /* Floating to integer truncates toward zero; to BOOL is x != 0 (a NaN is true). */
            double x = cn_tensor_get_f64 (&o->c, i), tx = trunc (x);
            int in_range = to == CN_DTYPE_BOOL
              || (tx >= cn__dtype_min (to) && tx <= cn__dtype_max (to) && fabs (tx) < 0x1p63);
            if (!in_range)
              {
                cn_tensor_clear (&t);
                return cn_error_set (nc->err, CN_ENUMERIC, "cast of %g to %s is out of range", x, type_name);
              }
            w = to == CN_DTYPE_BOOL ? x != 0 : (int64_t) tx;
          }
        ((int64_t *) t.data)[i] = w;
      }
  nc->out_sort = to;
  return st != CN_OK ? st : set_out_const (nc, 0, &t);
}

/* Cast: to the attribute TO's type (cast_to). */
static cn_status
op_cast (struct nctx *nc)
{
  cn_status st = need_in (nc, 0);
  int64_t to;
  if (st != CN_OK || (st = attr_int (nc, "to", 0, &to)) != CN_OK)
    return st;
  return cast_to (nc, onnx_sort (to), onnx_type_name ((int32_t) to));
}

/* CastLike (opset 15): to the sort of input 1 (cast_to). */
static cn_status
op_cast_like (struct nctx *nc)
{
  cn_status st;
  if ((st = need_in (nc, 0)) != CN_OK || (st = need_in (nc, 1)) != CN_OK)
    return st;
  cn_dtype to = in_sort (nc, 1);
  return cast_to (nc, to, sort_name (to));
}

static cn_status
op_constant (struct nctx *nc)
{
  cn_status st;
  cn_tensor t;
  memset (&t, 0, sizeof t);
  const Onnx__AttributeProto *a;
  cn_shape s;
  memset (&s, 0, sizeof s);
  if ((a = attr_find (nc, "value")) != NULL)
    {
      if (!attr_is (a, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TENSOR) || a->t == NULL)
        return cn_error_set (nc->err, CN_EPARSE, "attribute 'value' is not a tensor");
      st = parse_tensor (a->t, nc->np->n_output > 0 ? nc->np->output[0] : nc->name, &t, &nc->out_sort, nc->err);
    }
  else if ((a = attr_find (nc, "value_float")) != NULL)
    st = host_fill (CN_DTYPE_F32, &s, a->f, &t, nc->err);
  else if ((a = attr_find (nc, "value_int")) != NULL)
    {
      st = cn_tensor_init (&t, CN_DTYPE_I64, &s, nc->err);
      if (st == CN_OK)
        ((int64_t *) t.data)[0] = a->i;
    }
  else if ((a = attr_find (nc, "value_floats")) != NULL || (a = attr_find (nc, "value_ints")) != NULL)
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
  return st != CN_OK ? st : set_out_const (nc, 0, &t);
}

static cn_status
op_constant_of_shape (struct nctx *nc)
{
  cn_status st;
  int64_t sh[CN_MAX_RANK];
  int n;
  if ((st = need_in (nc, 0)) != CN_OK || (st = const_ints (nc, 0, "shape", sh, CN_MAX_RANK, &n)) != CN_OK)
    return st;
  cn_shape s;
  if ((st = make_shape (nc, n, sh, &s)) != CN_OK)
    return st;
  cn_dtype dt = CN_DTYPE_F32;
  double v = 0;
  const Onnx__AttributeProto *a = attr_find (nc, "value");
  if (a != NULL)
    {
      cn_tensor vt;
      if (!attr_is (a, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TENSOR) || a->t == NULL)
        return cn_error_set (nc->err, CN_EPARSE, "attribute 'value' is not a tensor");
      if ((st = parse_tensor (a->t, "value", &vt, &nc->out_sort, nc->err)) != CN_OK)
        return st;
      if (cn_tensor_numel (&vt) != 1)
        {
          cn_tensor_clear (&vt);
          return cn_error_set (nc->err, CN_EINVAL, "attribute 'value' must hold one element");
        }
      dt = vt.dtype;
      v = cn_tensor_get_f64 (&vt, 0);
      if (dt == CN_DTYPE_I64)
        v = (double) ((int64_t *) vt.data)[0];
      cn_tensor_clear (&vt);
    }
  cn_tensor t;
  if ((st = host_fill (dt, &s, v, &t, nc->err)) != CN_OK)
    return st;
  return set_out_const (nc, 0, &t);
}

/* ---- operators mapped onto the table's newer rules ----------------------------------------- */

/* *V = OP (X) (one input, attribute record PARAMS), a helper node "<node>/SUFFIX". */
static cn_status
node1 (struct nctx *nc, cn_op op, const void *params, int x, const char *suffix, int *v)
{
  return add_node (nc, op, params, 1, &x, suffix, v);
}

/* *V = OP (A, B). */
static cn_status
node2 (struct nctx *nc, cn_op op, const void *params, int a, int b, const char *suffix, int *v)
{
  int in[2] = { a, b };
  return add_node (nc, op, params, 2, in, suffix, v);
}

/* *C = a constant of SHAPE filled with F (a binary64 number, rounded to the evaluation's sort
 * where it is read: callers pass numbers exact in binary32). */
static cn_status
fill_const (struct nctx *nc, const cn_shape *shape, double f, const char *suffix, int *c)
{
  cn_tensor t;
  cn_status st = host_fill (CN_DTYPE_F64, shape, f, &t, nc->err);
  if (st != CN_OK)
    return st;
  st = add_const (nc, &t, suffix, c);
  cn_tensor_clear (&t);
  return st;
}

/* *V = X under SHAPE (X itself when the shape is unchanged). */
static cn_status
reshape_gv (struct nctx *nc, int x, const cn_shape *shape, const char *suffix, int *v)
{
  if (cn_shape_equal (cn_graph_value_shape (nc->imp->g, x), shape))
    {
      *v = x;
      return CN_OK;
    }
  cn_params_reshape p;
  p.shape = *shape;
  return node1 (nc, CN_OP_RESHAPE, &p, x, suffix, v);
}

/* The input X of the node, at its graph value *X. */
static cn_status
x_in (struct nctx *nc, int *x)
{
  cn_status st = need_in (nc, 0);
  return st != CN_OK ? st : in_gv (nc, 0, x);
}

/* Abs, Reciprocal, Floor, Ceil, Round (halfway cases to even in both), Sign: one operator each. */
static cn_status op_abs (struct nctx *nc) { return op_unary (nc, CN_OP_ABS); }
static cn_status op_reciprocal (struct nctx *nc) { return op_unary (nc, CN_OP_RECIPROCAL); }
static cn_status op_floor (struct nctx *nc) { return op_unary (nc, CN_OP_FLOOR); }
static cn_status op_ceil (struct nctx *nc) { return op_unary (nc, CN_OP_CEIL); }
static cn_status op_round (struct nctx *nc) { return op_unary (nc, CN_OP_ROUND); }
static cn_status op_sign (struct nctx *nc) { return op_unary (nc, CN_OP_SIGN); }

/* Sqrt: the IEEE square root (a NaN below zero), sqrt in its raw mode. */
static cn_status
op_sqrt (struct nctx *nc)
{
  cn_params_sqrt p;
  int v;
  memset (&p, 0, sizeof p);
  p.mode = CN_SQRT_RAW;
  cn_status st = op_unary_params (nc, CN_OP_SQRT, &p, &v);
  return st != CN_OK ? st : set_out (nc, 0, v, 1);
}

/* Binary operators with numpy broadcasting and no integer folding: Pow, Mod.  The operands hold
 * one sort with arithmetic (arith_sorts); OP takes words at its element ports. */
static cn_status
op_binary_float (struct nctx *nc, cn_op op)
{
  cn_status st;
  cn_shape os;
  if ((st = common_shape (nc, 2, &os)) != CN_OK || (st = arith_sorts (nc, 2)) != CN_OK)
    return st;
  return broadcast_apply (nc, op, NULL, 2, &os);
}

/* Pow (numpy broadcasting): the model's scalar, or words of one sort (pow wraps: a^e modulo 2^N;
 * a negative exponent fails at evaluation).  ONNX lets the exponent have another sort than the
 * base: an integer constant exponent is taken in the base's sort where each of its entries is an
 * element of that sort (exact: an integer of magnitude <= 2^24 for the model's scalar, exact in
 * binary32 and binary64; a word of the sort for words); any other exponent of another sort is
 * refused. */
static cn_status
op_pow (struct nctx *nc)
{
  cn_status st;
  cn_shape os;
  if ((st = common_shape (nc, 2, &os)) != CN_OK)
    return st;
  cn_dtype sb = in_sort (nc, 0), se = in_sort (nc, 1);
  struct oval *e = nc->in[1];
  if (same_sort (sb, se) || sb == CN_DTYPE_BOOL || !e->is_const || !is_int (&e->c) || se == CN_DTYPE_BOOL)
    return op_binary_float (nc, CN_OP_POW);
  /* An integer constant exponent of another sort. */
  int64_t n = cn_tensor_numel (&e->c);
  const int64_t *ev = e->c.data;
  for (int64_t k = 0; k < n; k++)
    {
      int64_t w;
      int fits = cn_dtype_is_float (sb) ? ev[k] <= ((int64_t) 1 << 24) && ev[k] >= -((int64_t) 1 << 24)
        : wrap_word (ev[k], sb, &w) == 0 && w == ev[k];
      if (!fits)
        return cn_error_set (nc->err, CN_EUNSUPPORTED, "the exponent %lld (input 1, '%s', %s) does not fit the base's "
                             "sort %s",
                             (long long) ev[k], e->name, sort_name (se), sort_name (sb));
    }
  /* now every exponent is exactly an element of the base's sort */
  cn_tensor t, c;
  memset (&t, 0, sizeof t);
  memset (&c, 0, sizeof c);
  int x[2], v;
  char *nm = NULL;
  if ((st = host_broadcast (&e->c, &os, &t, nc->err)) == CN_OK
      && (!cn_dtype_is_float (sb) || (st = cn_tensor_convert (&c, CN_DTYPE_F64, &t, nc->err)) == CN_OK))
    {
      if ((nm = sub_name (nc, "exponent")) == NULL)
        st = nomem (nc);
      else
        st = add_const_sorted (nc, cn_dtype_is_float (sb) ? &c : &t, sb, nm, &x[1]);
    }
  free (nm);
  cn_tensor_clear (&t);
  cn_tensor_clear (&c);
  if (st != CN_OK || (st = operand_at (nc, 0, &os, "broadcast0", &x[0])) != CN_OK
      || (st = add_node (nc, CN_OP_POW, NULL, 2, x, NULL, &v)) != CN_OK)
    return st;
  return set_out (nc, 0, v, 1);
}

/* Mod: fmod = 1 is C's fmod (the sign of the dividend); fmod = 0 is the remainder with the sign
 * of the divisor (numpy.mod, torch.remainder), remainder.  The model's scalar: fmod or remainder.
 * Words of one sort: fmod = 0 is remainder; fmod = 1 is a - trunc(a / b) b, as div (TRUNC), mul,
 * sub: the three wrap modulo 2^N, so the result is congruent to the exact C remainder modulo 2^N,
 * and that remainder lies in the sort (|r| < |b|, the sign of a), so the wrapped result is
 * exactly it (the least word modulo -1: the quotient wraps to the least word, the product to it
 * too, the difference 0).  A zero divisor fails at evaluation in both. */
static cn_status
op_mod (struct nctx *nc)
{
  int64_t f;
  cn_status st = attr_int (nc, "fmod", 0, &f);
  if (st != CN_OK)
    return st;
  if (f != 0 && f != 1)
    return cn_error_set (nc->err, CN_EUNSUPPORTED, "attribute fmod = %lld is not supported", (long long) f);
  cn_shape os;
  if ((st = common_shape (nc, 2, &os)) != CN_OK || (st = arith_sorts (nc, 2)) != CN_OK)
    return st;
  if (cn_dtype_is_float (in_sort (nc, 0)) || f == 0)
    return op_binary_float (nc, f ? CN_OP_FMOD : CN_OP_REMAINDER);
  int x[2], q, p, v;
  cn_params_div pd = { CN_DIV_TRUNC };
  if ((st = operand_at (nc, 0, &os, "broadcast0", &x[0])) != CN_OK
      || (st = operand_at (nc, 1, &os, "broadcast1", &x[1])) != CN_OK
      || (st = node2 (nc, CN_OP_DIV, &pd, x[0], x[1], "quotient", &q)) != CN_OK
      || (st = node2 (nc, CN_OP_MUL, NULL, q, x[1], "product", &p)) != CN_OK
      || (st = node2 (nc, CN_OP_SUB, NULL, x[0], p, NULL, &v)) != CN_OK)
    return st;
  return set_out (nc, 0, v, 1);
}

/* Max, Min, Sum, Mean: variadic with numpy broadcasting of all inputs to their common shape,
 * folded left to right: v = op(op(x0, x1), x2) ...; Mean divides the sum by the count.  Max and
 * Min (typed) take inputs of one sort: the model's scalar, Booleans or one word sort (max and min
 * in the sort's order, exact); Sum and Mean the model's scalar only. */
static cn_status
op_variadic (struct nctx *nc, cn_op op, int mean)
{
  cn_status st;
  if (nc->n_in < 1)
    return cn_error_set (nc->err, CN_EPARSE, "at least one input expected");
  cn_shape os = *in_shape (nc, 0);
  for (int i = 0; i < nc->n_in; i++)
    {
      if ((st = need_in (nc, i)) != CN_OK)
        return st;
      char a[128], b[128];
      cn_shape t;
      if (!broadcast_shape (&os, in_shape (nc, i), &t))
        return cn_error_set (nc->err, CN_ESHAPE, "input shapes %s and %s do not broadcast",
                             fmt_shape (&os, a, sizeof a), fmt_shape (in_shape (nc, i), b, sizeof b));
      os = t;
      if (nc->typed && i > 0 && (st = sorts_agree (nc, 0, i)) != CN_OK)
        return st;
    }
  int acc, x;
  char sfx[32];
  if ((st = operand_at (nc, 0, &os, "broadcast0", &acc)) != CN_OK)
    return st;
  if (nc->n_in == 1 && !mean)
    return set_out (nc, 0, acc, 0);
  for (int i = 1; i < nc->n_in; i++)
    {
      snprintf (sfx, sizeof sfx, "broadcast%d", i);
      if ((st = operand_at (nc, i, &os, sfx, &x)) != CN_OK)
        return st;
      snprintf (sfx, sizeof sfx, "step%d", i);
      if ((st = node2 (nc, op, NULL, acc, x, i == nc->n_in - 1 && !mean ? NULL : sfx, &acc)) != CN_OK)
        return st;
    }
  if (mean)
    {
      int c;
      cn_params_div pd = { CN_DIV_TRUE };
      if ((st = fill_const (nc, &os, (double) nc->n_in, "count", &c)) != CN_OK
          || (st = node2 (nc, CN_OP_DIV, &pd, acc, c, NULL, &acc)) != CN_OK)
        return st;
    }
  return set_out (nc, 0, acc, 1);
}

static cn_status op_max (struct nctx *nc) { return op_variadic (nc, CN_OP_MAX, 0); }
static cn_status op_min (struct nctx *nc) { return op_variadic (nc, CN_OP_MIN, 0); }
static cn_status op_sum (struct nctx *nc) { return op_variadic (nc, CN_OP_ADD, 0); }
static cn_status op_mean (struct nctx *nc) { return op_variadic (nc, CN_OP_ADD, 1); }

/* *V = clamp(X, LO, HI) with constant bounds (+-inf where absent). */
static cn_status
clamp_const (struct nctx *nc, int x, double lo, double hi, const char *suffix, int *v)
{
  cn_shape s0;
  int c[3];
  char nm[64];
  memset (&s0, 0, sizeof s0);
  c[0] = x;
  snprintf (nm, sizeof nm, "%s_min", suffix ? suffix : "clip");
  cn_status st = fill_const (nc, &s0, lo, nm, &c[1]);
  snprintf (nm, sizeof nm, "%s_max", suffix ? suffix : "clip");
  if (st == CN_OK)
    st = fill_const (nc, &s0, hi, nm, &c[2]);
  if (st == CN_OK)
    st = add_node (nc, CN_OP_CLAMP, NULL, 3, c, suffix, v);
  return st;
}

/* The constant scalar of input I (one entry of a floating-point constant). */
static cn_status
const_scalar (struct nctx *nc, int i, const char *what, double *v)
{
  struct oval *o = nc->in[i];
  if (!o->is_const || cn_tensor_numel (&o->c) != 1)
    return cn_error_set (nc->err, CN_EUNSUPPORTED, "the %s (input %d, '%s') must be a constant scalar", what, i,
                         o->name);
  *v = cn_tensor_get_f64 (&o->c, 0);
  if (isnan (*v))
    return cn_error_set (nc->err, CN_EUNSUPPORTED, "the %s (input %d, '%s') is NaN", what, i, o->name);
  return CN_OK;
}

/* Clip: clamp(x, min, max); the bounds are attributes before opset 11 (defaults the lowest and
 * the largest binary32 numbers) and optional constant inputs since (absent: no bound). */
static cn_status
op_clip (struct nctx *nc)
{
  double lo = -INFINITY, hi = INFINITY;
  int x, v;
  cn_status st = x_in (nc, &x);
  if (st != CN_OK)
    return st;
  if (nc->imp->opset < 11)
    {
      if ((st = attr_float (nc, "min", -FLT_MAX, &lo)) != CN_OK || (st = attr_float (nc, "max", FLT_MAX, &hi)) != CN_OK)
        return st;
    }
  else
    {
      if (attr_find (nc, "min") != NULL || attr_find (nc, "max") != NULL)
        return cn_error_set (nc->err, CN_EUNSUPPORTED, "attributes min and max are not supported from opset 11");
      if ((has_in (nc, 1) && (st = const_scalar (nc, 1, "min", &lo)) != CN_OK)
          || (has_in (nc, 2) && (st = const_scalar (nc, 2, "max", &hi)) != CN_OK))
        return st;
    }
  /* An absent (infinite) bound is no bound: max or min with the other alone, or the input. */
  if (lo == -INFINITY && hi == INFINITY)
    return set_out_alias (nc, 0, 0);
  if (lo == -INFINITY || hi == INFINITY)
    {
      int c;
      int upper = lo == -INFINITY;
      if ((st = fill_const (nc, cn_graph_value_shape (nc->imp->g, x), upper ? hi : lo, upper ? "max" : "min", &c))
          != CN_OK
          || (st = node2 (nc, upper ? CN_OP_MIN : CN_OP_MAX, NULL, x, c, NULL, &v)) != CN_OK)
        return st;
      return set_out (nc, 0, v, 1);
    }
  if (!isfinite (lo) || !isfinite (hi))
    return cn_error_set (nc->err, CN_EUNSUPPORTED, "bounds min = %g, max = %g are not supported", lo, hi);
  if ((st = clamp_const (nc, x, lo, hi, NULL, &v)) != CN_OK)
    return st;
  return set_out (nc, 0, v, 1);
}

/* *V = clamp(alpha x + beta, 0, 1), or clamp(x / DIVISOR + beta, 0, 1) when DIVISOR != 0. */
static cn_status
hard_sigmoid (struct nctx *nc, int x, double alpha, double divisor, double beta, int *v)
{
  const cn_shape *s = cn_graph_value_shape (nc->imp->g, x);
  int a, b, c;
  cn_status st;
  if (divisor != 0)
    {
      cn_params_div pd = { CN_DIV_TRUE };
      if ((st = fill_const (nc, s, divisor, "divisor", &c)) != CN_OK
          || (st = node2 (nc, CN_OP_DIV, &pd, x, c, "scaled", &a)) != CN_OK)
        return st;
    }
  else
    {
      cn_params_scale ps = { alpha };
      if ((st = node1 (nc, CN_OP_SCALE, &ps, x, "scaled", &a)) != CN_OK)
        return st;
    }
  if ((st = fill_const (nc, s, beta, "beta", &c)) != CN_OK
      || (st = node2 (nc, CN_OP_ADD, NULL, a, c, "shifted", &b)) != CN_OK)
    return st;
  return clamp_const (nc, b, 0.0, 1.0, "clamped", v);
}

/* HardSigmoid: max(0, min(1, alpha x + beta)) (alpha 0.2, beta 0.5: binary32 numbers): a scale
 * node, an add of the constant beta and a clamp to [0, 1]. */
static cn_status
op_hard_sigmoid (struct nctx *nc)
{
  double alpha, beta;
  int x, v;
  cn_status st;
  if ((st = attr_finite (nc, "alpha", (double) 0.2f, &alpha)) != CN_OK
      || (st = attr_finite (nc, "beta", (double) 0.5f, &beta)) != CN_OK || (st = x_in (nc, &x)) != CN_OK
      || (st = hard_sigmoid (nc, x, alpha, 0, beta, &v)) != CN_OK)
    return st;
  return set_out (nc, 0, v, 1);
}

/* HardSwish: x max(0, min(1, x/6 + 1/2)); the real 1/6 is written as a division by 6. */
static cn_status
op_hard_swish (struct nctx *nc)
{
  int x, h, v;
  cn_status st;
  if ((st = x_in (nc, &x)) != CN_OK || (st = hard_sigmoid (nc, x, 0, 6.0, 0.5, &h)) != CN_OK
      || (st = node2 (nc, CN_OP_MUL, NULL, x, h, NULL, &v)) != CN_OK)
    return st;
  return set_out (nc, 0, v, 1);
}

/* Softsign: x / (1 + |x|). */
static cn_status
op_softsign (struct nctx *nc)
{
  int x, a, c, d, v;
  cn_params_div pd = { CN_DIV_TRUE };
  cn_status st;
  if ((st = x_in (nc, &x)) != CN_OK || (st = node1 (nc, CN_OP_ABS, NULL, x, "abs", &a)) != CN_OK
      || (st = fill_const (nc, cn_graph_value_shape (nc->imp->g, x), 1.0, "one", &c)) != CN_OK
      || (st = node2 (nc, CN_OP_ADD, NULL, c, a, "denominator", &d)) != CN_OK
      || (st = node2 (nc, CN_OP_DIV, &pd, x, d, NULL, &v)) != CN_OK)
    return st;
  return set_out (nc, 0, v, 1);
}

/* Mish (opset 18, above the opsets read: kept for when they are raised): x tanh(softplus(x)). */
static cn_status
op_mish (struct nctx *nc)
{
  int x, s, t, v;
  cn_status st;
  if ((st = x_in (nc, &x)) != CN_OK || (st = node1 (nc, CN_OP_SOFTPLUS, NULL, x, "softplus", &s)) != CN_OK
      || (st = node1 (nc, CN_OP_TANH, NULL, s, "tanh", &t)) != CN_OK
      || (st = node2 (nc, CN_OP_MUL, NULL, x, t, NULL, &v)) != CN_OK)
    return st;
  return set_out (nc, 0, v, 1);
}

/* Celu: max(0, x) + min(0, alpha (exp(x/alpha) - 1)) = alpha elu(x/alpha; 1) for alpha > 0: an
 * elu node for alpha = 1, else a division by alpha, elu and a mul by alpha. */
static cn_status
op_celu (struct nctx *nc)
{
  double alpha;
  int x, a, e, v;
  cn_params_elu p = { 1.0 };
  cn_status st;
  if ((st = attr_finite (nc, "alpha", 1.0, &alpha)) != CN_OK || (st = x_in (nc, &x)) != CN_OK)
    return st;
  if (!(alpha > 0))
    return cn_error_set (nc->err, CN_EUNSUPPORTED, "attribute alpha = %g is not supported (alpha > 0)", alpha);
  if (alpha == 1)
    st = node1 (nc, CN_OP_ELU, &p, x, NULL, &v);
  else
    {
      int c;
      cn_params_div pd = { CN_DIV_TRUE };
      if ((st = fill_const (nc, cn_graph_value_shape (nc->imp->g, x), alpha, "alpha", &c)) == CN_OK
          && (st = node2 (nc, CN_OP_DIV, &pd, x, c, "scaled", &a)) == CN_OK
          && (st = node1 (nc, CN_OP_ELU, &p, a, "elu", &e)) == CN_OK)
        st = mul_scalar (nc, e, alpha, "alpha", &v);
    }
  return st != CN_OK ? st : set_out (nc, 0, v, 1);
}

/* Shrink with bias = lambd (softshrink): x - clamp(x, -lambd, lambd), which is x - lambd above
 * lambd, x + lambd below -lambd and 0 between.  Other biases (hardshrink) are refused. */
static cn_status
op_shrink (struct nctx *nc)
{
  double lambd, bias;
  int x, c, v;
  cn_status st;
  if ((st = attr_finite (nc, "lambd", (double) 0.5f, &lambd)) != CN_OK
      || (st = attr_finite (nc, "bias", 0.0, &bias)) != CN_OK || (st = x_in (nc, &x)) != CN_OK)
    return st;
  if (bias != lambd || !(lambd >= 0))
    return cn_error_set (nc->err, CN_EUNSUPPORTED,
                         "bias = %g with lambd = %g is not supported (only bias = lambd >= 0, softshrink)", bias, lambd);
  if ((st = clamp_const (nc, x, -lambd, lambd, "clamped", &c)) != CN_OK
      || (st = node2 (nc, CN_OP_SUB, NULL, x, c, NULL, &v)) != CN_OK)
    return st;
  return set_out (nc, 0, v, 1);
}

/* PRelu: leakyReLU when the slope is one constant for every entry; otherwise, with the slope
 * broadcast to x's shape, relu(x) + slope (x - relu(x)) (x - relu(x) = min(x, 0) exactly). */
static cn_status
op_prelu (struct nctx *nc)
{
  int x, p, n, s, m, v;
  cn_status st;
  if ((st = x_in (nc, &x)) != CN_OK || (st = need_in (nc, 1)) != CN_OK)
    return st;
  struct oval *o = nc->in[1];
  const cn_shape *xs = in_shape (nc, 0);
  if (o->is_const && !is_int (&o->c) && cn_tensor_numel (&o->c) >= 1)
    {
      int64_t k = cn_tensor_numel (&o->c);
      double a = cn_tensor_get_f64 (&o->c, 0);
      int same = isfinite (a);
      for (int64_t i = 1; i < k && same; i++)
        same = cn_tensor_get_f64 (&o->c, i) == a;
      cn_shape bs;
      if (same && broadcast_shape (xs, &o->c.shape, &bs) && cn_shape_equal (&bs, xs))
        {
          cn_params_leaky_relu pl = { a };
          if ((st = node1 (nc, CN_OP_LEAKY_RE_LU, &pl, x, NULL, &v)) != CN_OK)
            return st;
          return set_out (nc, 0, v, 1);
        }
    }
  cn_shape bs;
  char a1[128], a2[128];
  if (!broadcast_shape (xs, in_shape (nc, 1), &bs) || !cn_shape_equal (&bs, xs))
    return cn_error_set (nc->err, CN_ESHAPE, "slope shape %s does not broadcast to %s",
                         fmt_shape (in_shape (nc, 1), a1, sizeof a1), fmt_shape (xs, a2, sizeof a2));
  if ((st = operand_at (nc, 1, xs, "slope", &s)) != CN_OK || (st = node1 (nc, CN_OP_RELU, NULL, x, "pos", &p)) != CN_OK
      || (st = node2 (nc, CN_OP_SUB, NULL, x, p, "neg", &n)) != CN_OK
      || (st = node2 (nc, CN_OP_MUL, NULL, s, n, "scaled", &m)) != CN_OK
      || (st = node2 (nc, CN_OP_ADD, NULL, p, m, NULL, &v)) != CN_OK)
    return st;
  return set_out (nc, 0, v, 1);
}

/* Softmax, LogSoftmax.  From opset 13 over one axis (default -1).  Before, the input is
 * coerced to 2-D [prod(dims < axis), prod(dims >= axis)] (axis default 1) and normalised over
 * the second: written as reshape, softmax over the last axis, reshape back. */
static cn_status
op_softmax_any (struct nctx *nc, cn_op op)
{
  int64_t axis;
  int x, a = 0, r, v;
  cn_status st;
  if ((st = x_in (nc, &x)) != CN_OK)
    return st;
  const cn_shape *s = in_shape (nc, 0);
  int old = nc->imp->opset < 13;
  if ((st = attr_int (nc, "axis", old ? 1 : -1, &axis)) != CN_OK || (st = norm_axis (nc, axis, s->rank, "axis", &a)) != CN_OK)
    return st;
  cn_params_softmax p = { a };
  if (!old || a == s->rank - 1)
    st = node1 (nc, op, &p, x, NULL, &v);
  else
    {
      cn_shape t, u = *s;
      memset (&t, 0, sizeof t);
      t.rank = 2;
      t.dim[0] = 1;
      t.dim[1] = 1;
      for (int i = 0; i < s->rank; i++)
        t.dim[i < a ? 0 : 1] *= s->dim[i];
      p.axis = 1;
      if ((st = reshape_gv (nc, x, &t, "flat", &r)) == CN_OK && (st = node1 (nc, op, &p, r, "normalised", &r)) == CN_OK)
        st = reshape_gv (nc, r, &u, NULL, &v);
    }
  return st != CN_OK ? st : set_out (nc, 0, v, 1);
}

static cn_status op_softmax (struct nctx *nc) { return op_softmax_any (nc, CN_OP_SOFTMAX); }
static cn_status op_log_softmax (struct nctx *nc) { return op_softmax_any (nc, CN_OP_LOG_SOFTMAX); }

/* *V = input I (a constant or a graph value) reshaped to SHAPE. */
static cn_status
input_as (struct nctx *nc, int i, const cn_shape *shape, const char *suffix, int *v)
{
  struct oval *o = nc->in[i];
  char a[128], b[128];
  if (cn_shape_numel (in_shape (nc, i)) != cn_shape_numel (shape))
    return cn_error_set (nc->err, CN_ESHAPE, "input %d has shape %s, expected %lld entries (%s)", i,
                         fmt_shape (in_shape (nc, i), a, sizeof a), (long long) cn_shape_numel (shape),
                         fmt_shape (shape, b, sizeof b));
  if (o->is_const)
    {
      if (is_int (&o->c))
        return in_gv (nc, i, v);             /* refused there */
      cn_tensor t;
      cn_status st = host_reshape (&o->c, shape, &t, nc->err);
      if (st == CN_OK)
        st = add_const (nc, &t, suffix, v);
      cn_tensor_clear (&t);
      return st;
    }
  int x;
  cn_status st = in_gv (nc, i, &x);
  return st != CN_OK ? st : reshape_gv (nc, x, shape, suffix, v);
}

/* LayerNormalization (opset 17): over the axes >= axis, written as a layerNorm over the last
 * axis of x reshaped to [prod(dims < axis), prod(dims >= axis)], its weight and bias (zeros if
 * absent) reshaped to vectors.  Only the first output (Y) and stash_type 1 are supported. */
static cn_status
op_layer_norm (struct nctx *nc)
{
  int64_t axis, stash;
  double eps;
  int x, in[3], r, v, a = 0;
  cn_status st;
  if ((st = x_in (nc, &x)) != CN_OK || (st = need_in (nc, 1)) != CN_OK
      || (st = attr_int (nc, "axis", -1, &axis)) != CN_OK || (st = attr_int (nc, "stash_type", 1, &stash)) != CN_OK
      || (st = attr_float (nc, "epsilon", (double) 1e-5f, &eps)) != CN_OK)
    return st;
  if (stash != 1)
    return cn_error_set (nc->err, CN_EUNSUPPORTED, "attribute stash_type = %lld is not supported", (long long) stash);
  if (!(eps > 0) || !isfinite (eps))
    return cn_error_set (nc->err, CN_EUNSUPPORTED, "attribute epsilon = %g is not supported (finite, > 0)", eps);
  if (out_wanted (nc, 1) || out_wanted (nc, 2))
    return cn_error_set (nc->err, CN_EUNSUPPORTED, "the Mean and InvStdDev outputs are not supported");
  const cn_shape *s = in_shape (nc, 0);
  cn_shape u = *s, t, w;
  if ((st = norm_axis (nc, axis, s->rank, "axis", &a)) != CN_OK)
    return st;
  memset (&t, 0, sizeof t);
  t.rank = 2;
  t.dim[0] = t.dim[1] = 1;
  for (int i = 0; i < s->rank; i++)
    t.dim[i < a ? 0 : 1] *= s->dim[i];
  memset (&w, 0, sizeof w);
  w.rank = 1;
  w.dim[0] = t.dim[1];
  cn_params_layernorm p = { eps, 1 };
  if ((st = reshape_gv (nc, x, &t, "flat", &in[0])) != CN_OK || (st = input_as (nc, 1, &w, "weight", &in[1])) != CN_OK)
    return st;
  if (has_in (nc, 2))
    st = input_as (nc, 2, &w, "bias", &in[2]);
  else
    st = fill_const (nc, &w, 0.0, "bias", &in[2]);
  if (st != CN_OK || (st = add_node (nc, CN_OP_LAYER_NORM, &p, 3, in, "normalised", &r)) != CN_OK
      || (st = reshape_gv (nc, r, &u, NULL, &v)) != CN_OK)
    return st;
  return set_out (nc, 0, v, 1);
}

/* InstanceNormalization: per sample and channel over the spatial axes: x [N, C, S...] reshaped
 * to [N, C, prod S], layerNorm without affine over the last axis, reshaped back, then
 * y = n scale[c] + B[c] (mul and add of the parameters broadcast to x's shape). */
static cn_status
op_instance_norm (struct nctx *nc)
{
  double eps;
  int x, r, n, sc, b, m, v;
  cn_status st;
  if ((st = x_in (nc, &x)) != CN_OK || (st = need_in (nc, 1)) != CN_OK || (st = need_in (nc, 2)) != CN_OK
      || (st = attr_float (nc, "epsilon", (double) 1e-5f, &eps)) != CN_OK)
    return st;
  if (!(eps > 0) || !isfinite (eps))
    return cn_error_set (nc->err, CN_EUNSUPPORTED, "attribute epsilon = %g is not supported (finite, > 0)", eps);
  const cn_shape *s = in_shape (nc, 0);
  if (s->rank < 3)
    return cn_error_set (nc->err, CN_ESHAPE, "the input must have rank 3 or more");
  cn_shape u = *s, t, cs;
  memset (&t, 0, sizeof t);
  t.rank = 3;
  t.dim[0] = s->dim[0];
  t.dim[1] = s->dim[1];
  t.dim[2] = 1;
  for (int i = 2; i < s->rank; i++)
    t.dim[2] *= s->dim[i];
  memset (&cs, 0, sizeof cs);
  cs.rank = s->rank - 1;
  cs.dim[0] = s->dim[1];
  for (int i = 1; i < cs.rank; i++)
    cs.dim[i] = 1;
  cn_params_layernorm p = { eps, 0 };
  int ps, pb;
  if ((st = reshape_gv (nc, x, &t, "flat", &r)) != CN_OK
      || (st = node1 (nc, CN_OP_LAYER_NORM, &p, r, "normalised", &n)) != CN_OK
      || (st = reshape_gv (nc, n, &u, "unflat", &n)) != CN_OK
      || (st = input_as (nc, 1, &cs, "scale", &ps)) != CN_OK || (st = input_as (nc, 2, &cs, "B", &pb)) != CN_OK
      || (st = broadcast_value (nc, ps, &u, "scale_b", &sc)) != CN_OK
      || (st = broadcast_value (nc, pb, &u, "B_b", &b)) != CN_OK
      || (st = node2 (nc, CN_OP_MUL, NULL, n, sc, "scaled", &m)) != CN_OK
      || (st = node2 (nc, CN_OP_ADD, NULL, m, b, NULL, &v)) != CN_OK)
    return st;
  return set_out (nc, 0, v, 1);
}

/* *V = the constant integer index tensor of input I as a binary64 constant of index entries,
 * a negative entry e counting from the end: e + EXT[k] with k = AXIS if AXIS >= 0, else the
 * entry's position along the last axis (GatherND's columns).  Entries outside the range are left
 * as they are: the operator's validate refuses them. */
static cn_status
index_const (struct nctx *nc, int i, const int64_t *ext, int axis, int *v)
{
  struct oval *o = nc->in[i];
  if (!o->is_const || !is_int (&o->c))
    return cn_error_set (nc->err, CN_EUNSUPPORTED, "the indices (input %d, '%s') must be a constant integer tensor", i,
                         o->name);
  cn_tensor t;
  cn_status st = cn_tensor_init (&t, CN_DTYPE_F64, &o->c.shape, nc->err);
  if (st != CN_OK)
    return st;
  int64_t n = cn_tensor_numel (&o->c), last = o->c.shape.rank ? o->c.shape.dim[o->c.shape.rank - 1] : 1;
  const int64_t *src = o->c.data;
  double *dst = t.data;
  for (int64_t j = 0; j < n; j++)
    {
      int64_t e = src[j], d = ext[axis >= 0 ? axis : (last ? j % last : 0)];
      if (e < 0)
        e += d;
      if (e < -((int64_t) 1 << 52) || e > ((int64_t) 1 << 52))
        e = -1;
      dst[j] = (double) e;
    }
  st = add_const (nc, &t, "indices", v);
  cn_tensor_clear (&t);
  return st;
}

/* GatherElements: gather (torch.gather) with the constant indices. */
static cn_status
op_gather_elements (struct nctx *nc)
{
  int64_t axis;
  int x, ix, a = 0, v;
  cn_status st;
  if ((st = x_in (nc, &x)) != CN_OK || (st = need_in (nc, 1)) != CN_OK || (st = attr_int (nc, "axis", 0, &axis)) != CN_OK
      || (st = norm_axis (nc, axis, in_shape (nc, 0)->rank, "axis", &a)) != CN_OK
      || (st = index_const (nc, 1, in_shape (nc, 0)->dim, a, &ix)) != CN_OK)
    return st;
  cn_params_gather p = { a };
  if ((st = node2 (nc, CN_OP_GATHER, &p, x, ix, NULL, &v)) != CN_OK)
    return st;
  return set_out (nc, 0, v, 1);
}

/* ScatterElements: scatter with the constant indices, reduction none/add/mul (opset 16). */
static cn_status
op_scatter_elements (struct nctx *nc)
{
  static const char *const reds[] = { "none", "add", "mul", "max", "min", NULL };
  static const cn_scatter_reduce map[] = { CN_SCATTER_REPLACE, CN_SCATTER_SUM, CN_SCATTER_PROD, CN_SCATTER_MAX,
                                           CN_SCATTER_MIN };
  int64_t axis;
  int in[3], a = 0, r = 0, v;
  cn_status st;
  if ((st = need_in (nc, 0)) != CN_OK || (st = need_in (nc, 1)) != CN_OK || (st = need_in (nc, 2)) != CN_OK
      || (st = attr_int (nc, "axis", 0, &axis)) != CN_OK || (st = attr_choice (nc, "reduction", "none", reds, &r)) != CN_OK
      || (st = sorts_agree (nc, 0, 2)) != CN_OK)
    return st;
  if (in_sort (nc, 0) == CN_DTYPE_BOOL && r != 0)
    return cn_error_set (nc->err, CN_EUNSUPPORTED, "reduction '%s' of BOOL values is not supported (a Boolean scatter "
                         "only replaces)", reds[r]);
  if ((st = x_in (nc, &in[0])) != CN_OK || (st = norm_axis (nc, axis, in_shape (nc, 0)->rank, "axis", &a)) != CN_OK
      || (st = index_const (nc, 1, in_shape (nc, 0)->dim, a, &in[1])) != CN_OK || (st = in_gv (nc, 2, &in[2])) != CN_OK)
    return st;
  cn_params_scatter p = { a, map[r] };
  if ((st = add_node (nc, CN_OP_SCATTER, &p, 3, in, NULL, &v)) != CN_OK)
    return st;
  return set_out (nc, 0, v, 1);
}

/* GatherND with batch_dims = 0: indexAt with the constant indices. */
static cn_status
op_gather_nd (struct nctx *nc)
{
  int64_t bd;
  int x, ix, v;
  cn_status st;
  if ((st = x_in (nc, &x)) != CN_OK || (st = need_in (nc, 1)) != CN_OK || (st = attr_int (nc, "batch_dims", 0, &bd)) != CN_OK)
    return st;
  if (bd != 0)
    return cn_error_set (nc->err, CN_EUNSUPPORTED, "attribute batch_dims = %lld is not supported (only 0)", (long long) bd);
  if ((st = index_const (nc, 1, in_shape (nc, 0)->dim, -1, &ix)) != CN_OK
      || (st = node2 (nc, CN_OP_INDEX_AT, NULL, x, ix, NULL, &v)) != CN_OK)
    return st;
  return set_out (nc, 0, v, 1);
}

/* TopK: onto topk, the Values at its output 0 and the Indices at its output 1 (an index value:
 * integers in the model's scalar, as ArgMax's).  K is an attribute before opset 10 and a constant
 * input since.  Ties go to the lower index, as ONNX specifies (ties_by_index). */
static cn_status
op_topk (struct nctx *nc)
{
  int64_t axis, largest, sorted, k = 0;
  int x, a = 0, v, n;
  cn_status st;
  if ((st = x_in (nc, &x)) != CN_OK || (st = attr_int (nc, "axis", -1, &axis)) != CN_OK
      || (st = attr_int (nc, "largest", 1, &largest)) != CN_OK || (st = attr_int (nc, "sorted", 1, &sorted)) != CN_OK)
    return st;
  if (nc->imp->opset < 10)
    st = attr_int (nc, "k", -1, &k);
  else if ((st = need_in (nc, 1)) == CN_OK)
    st = const_ints (nc, 1, "k", &k, 1, &n);
  if (st != CN_OK)
    return st;
  if (sorted != 1)
    return cn_error_set (nc->err, CN_EUNSUPPORTED, "attribute sorted = %lld is not supported (only 1)", (long long) sorted);
  if ((st = norm_axis (nc, axis, in_shape (nc, 0)->rank, "axis", &a)) != CN_OK)
    return st;
  if (k < 0 || k > in_shape (nc, 0)->dim[a])
    return cn_error_set (nc->err, CN_EINVAL, "k = %lld is out of range", (long long) k);
  cn_params_topk p = { a, k, largest != 0, 1 };
  if ((st = node1 (nc, CN_OP_TOPK, &p, x, NULL, &v)) != CN_OK || (st = set_out (nc, 0, v, 1)) != CN_OK)
    return st;
  const cn_graph *g = nc->imp->g;
  return set_out (nc, 1, cn_graph_node_output (g, cn_graph_value_producer (g, v), 1), 1);
}

/* ArgMax, ArgMin: the index as a float holding an integer. */
static cn_status
op_arg (struct nctx *nc, cn_op op)
{
  int64_t axis, keep, last;
  int x, a = 0, v;
  cn_status st;
  if ((st = x_in (nc, &x)) != CN_OK || (st = attr_int (nc, "axis", 0, &axis)) != CN_OK
      || (st = attr_int (nc, "keepdims", 1, &keep)) != CN_OK || (st = attr_int (nc, "select_last_index", 0, &last)) != CN_OK
      || (st = norm_axis (nc, axis, in_shape (nc, 0)->rank, "axis", &a)) != CN_OK)
    return st;
  cn_params_argmax p = { a, keep != 0, last != 0 };
  if ((st = node1 (nc, op, &p, x, NULL, &v)) != CN_OK)
    return st;
  return set_out (nc, 0, v, 1);
}

static cn_status op_argmax (struct nctx *nc) { return op_arg (nc, CN_OP_ARGMAX); }
static cn_status op_argmin (struct nctx *nc) { return op_arg (nc, CN_OP_ARGMIN); }

/* CumSum: the running sum along the constant axis; exclusive and reverse are refused. */
static cn_status
op_cumsum (struct nctx *nc)
{
  int64_t ex, rev, axis;
  int x, a = 0, n, v;
  cn_status st;
  if ((st = x_in (nc, &x)) != CN_OK || (st = need_in (nc, 1)) != CN_OK || (st = attr_int (nc, "exclusive", 0, &ex)) != CN_OK
      || (st = attr_int (nc, "reverse", 0, &rev)) != CN_OK || (st = const_ints (nc, 1, "axis", &axis, 1, &n)) != CN_OK)
    return st;
  if (ex != 0 || rev != 0)
    return cn_error_set (nc->err, CN_EUNSUPPORTED, "attribute %s = %lld is not supported (only 0)",
                         ex != 0 ? "exclusive" : "reverse", (long long) (ex != 0 ? ex : rev));
  if (n != 1)
    return cn_error_set (nc->err, CN_EINVAL, "the axis must have one entry");
  if ((st = norm_axis (nc, axis, in_shape (nc, 0)->rank, "axis", &a)) != CN_OK)
    return st;
  cn_params_cumulative p = { a };
  if ((st = node1 (nc, CN_OP_CUMSUM, &p, x, NULL, &v)) != CN_OK)
    return st;
  return set_out (nc, 0, v, 1);
}

/* Expand: numpy broadcasting of the input and the constant shape (in both directions). */
static cn_status
op_expand (struct nctx *nc)
{
  int64_t d[CN_MAX_RANK];
  int n, v;
  cn_shape t, os;
  char a[128], b[128];
  cn_status st;
  if ((st = need_in (nc, 0)) != CN_OK || (st = need_in (nc, 1)) != CN_OK
      || (st = const_ints (nc, 1, "shape", d, CN_MAX_RANK, &n)) != CN_OK || (st = make_shape (nc, n, d, &t)) != CN_OK)
    return st;
  if (!broadcast_shape (in_shape (nc, 0), &t, &os))
    return cn_error_set (nc->err, CN_ESHAPE, "shapes %s and %s do not broadcast", fmt_shape (in_shape (nc, 0), a, sizeof a),
                         fmt_shape (&t, b, sizeof b));
  struct oval *o = nc->in[0];
  if (o->is_const && !nc->imp->folding)
    {
      cn_tensor c;
      if ((st = host_broadcast (&o->c, &os, &c, nc->err)) != CN_OK)
        return st;
      return set_out_const (nc, 0, &c);
    }
  if ((st = operand_at (nc, 0, &os, NULL, &v)) != CN_OK)
    return st;
  return set_out (nc, 0, v, v != o->gv);
}

/* Tile: x [d_0..d_{r-1}] reshaped to [1, d_0, ..., 1, d_{r-1}], broadcast to
 * [m_0, d_0, ..., m_{r-1}, d_{r-1}] and reshaped to [m_0 d_0, ...]: exact data movement (rank
 * 2r <= 8). */
static cn_status
op_tile (struct nctx *nc)
{
  int64_t m[CN_MAX_RANK];
  int n, x, a, b, v;
  cn_status st;
  if ((st = need_in (nc, 0)) != CN_OK || (st = need_in (nc, 1)) != CN_OK
      || (st = const_ints (nc, 1, "repeats", m, CN_MAX_RANK, &n)) != CN_OK)
    return st;
  const cn_shape *s = in_shape (nc, 0);
  if (n != s->rank)
    return cn_error_set (nc->err, CN_EINVAL, "repeats has %d entries for rank %d", n, s->rank);
  if (2 * s->rank > CN_MAX_RANK)
    return cn_error_set (nc->err, CN_EUNSUPPORTED, "rank %d is above %d", s->rank, CN_MAX_RANK / 2);
  cn_shape p, q, u;
  memset (&p, 0, sizeof p);
  memset (&q, 0, sizeof q);
  memset (&u, 0, sizeof u);
  p.rank = q.rank = 2 * s->rank;
  u.rank = s->rank;
  for (int i = 0; i < s->rank; i++)
    {
      if (m[i] < 0)
        return cn_error_set (nc->err, CN_EINVAL, "negative repeat %lld", (long long) m[i]);
      p.dim[2 * i] = 1;
      p.dim[2 * i + 1] = q.dim[2 * i + 1] = s->dim[i];
      q.dim[2 * i] = m[i];
      u.dim[i] = m[i] * s->dim[i];
    }
  struct oval *o = nc->in[0];
  if (o->is_const && !nc->imp->folding)
    {
      cn_tensor t1, t2, t3;
      if ((st = host_reshape (&o->c, &p, &t1, nc->err)) != CN_OK)
        return st;
      st = host_broadcast (&t1, &q, &t2, nc->err);
      cn_tensor_clear (&t1);
      if (st != CN_OK)
        return st;
      st = host_reshape (&t2, &u, &t3, nc->err);
      cn_tensor_clear (&t2);
      return st != CN_OK ? st : set_out_const (nc, 0, &t3);
    }
  if ((st = in_gv (nc, 0, &x)) != CN_OK || (st = reshape_gv (nc, x, &p, "spread", &a)) != CN_OK
      || (st = broadcast_value (nc, a, &q, "repeated", &b)) != CN_OK || (st = reshape_gv (nc, b, &u, NULL, &v)) != CN_OK)
    return st;
  return set_out (nc, 0, v, 1);
}

/* Split: one slice per output along the axis; the sizes from the attribute (before opset 13),
 * the constant input (since), or equal parts. */
static cn_status
op_split (struct nctx *nc)
{
  int64_t axis, sz[64];
  int ns = -1, a = 0;
  cn_status st;
  if ((st = need_in (nc, 0)) != CN_OK || (st = attr_int (nc, "axis", 0, &axis)) != CN_OK)
    return st;
  int no = (int) nc->np->n_output;
  if (no < 1 || no > 64)
    return cn_error_set (nc->err, CN_EUNSUPPORTED, "%d outputs are not supported (1 to 64)", no);
  if (nc->imp->opset < 13)
    st = attr_ints (nc, "split", sz, 64, &ns);
  else if (attr_find (nc, "split") != NULL)
    st = cn_error_set (nc->err, CN_EUNSUPPORTED, "attribute split is not supported from opset 13");
  else if (has_in (nc, 1))
    st = const_ints (nc, 1, "split", sz, 64, &ns);
  if (st != CN_OK)
    return st;
  const cn_shape *s = in_shape (nc, 0);
  if ((st = norm_axis (nc, axis, s->rank, "axis", &a)) != CN_OK)
    return st;
  int64_t d = s->dim[a];
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
    return cn_error_set (nc->err, CN_EINVAL, "the splits sum to %lld, not the extent %lld", (long long) tot, (long long) d);
  int64_t at = 0;
  for (int k = 0; k < no; k++)
    {
      cn_params_slice p;
      memset (&p, 0, sizeof p);
      p.rank = s->rank;
      for (int i = 0; i < s->rank; i++)
        {
          p.stop[i] = s->dim[i];
          p.step[i] = 1;
        }
      p.start[a] = at;
      p.stop[a] = at + sz[k];
      at += sz[k];
      if (!out_wanted (nc, k))
        continue;
      struct oval *o = nc->in[0];
      if (o->is_const)
        {
          cn_tensor t;
          if ((st = host_slice (&o->c, &p, &t, nc->err)) != CN_OK || (st = set_out_const (nc, k, &t)) != CN_OK)
            return st;
          continue;
        }
      int x, v;
      char sfx[32];
      snprintf (sfx, sizeof sfx, "part%d", k);
      if ((st = in_gv (nc, 0, &x)) != CN_OK || (st = node1 (nc, CN_OP_SLICE, &p, x, sfx, &v)) != CN_OK
          || (st = set_out (nc, k, v, 1)) != CN_OK)
        return st;
    }
  return CN_OK;
}

/* DepthToSpace and SpaceToDepth on [N, C, H, W]: reshape, permute, reshape (exact data
 * movement).  DepthToSpace DCR: [N, b, b, C', H, W] -> (0, 3, 4, 1, 5, 2); CRD:
 * [N, C', b, b, H, W] -> (0, 1, 4, 2, 5, 3); SpaceToDepth: [N, C, H', b, W', b] -> (0, 3, 5, 1, 2, 4). */
static cn_status
space_depth (struct nctx *nc, int to_space)
{
  static const char *const modes[] = { "DCR", "CRD", NULL };
  int64_t b;
  int mode = 0, x, r, q, v;
  cn_status st;
  if ((st = x_in (nc, &x)) != CN_OK || (st = attr_int (nc, "blocksize", 0, &b)) != CN_OK
      || (to_space && (st = attr_choice (nc, "mode", "DCR", modes, &mode)) != CN_OK))
    return st;
  const cn_shape *s = in_shape (nc, 0);
  if (s->rank != 4)
    return cn_error_set (nc->err, CN_ESHAPE, "the input must have rank 4");
  int64_t N = s->dim[0], C = s->dim[1], H = s->dim[2], Wd = s->dim[3];
  if (b < 1 || (to_space ? C % (b * b) : (H % b) | (Wd % b)) != 0)
    return cn_error_set (nc->err, CN_EINVAL, "blocksize %lld does not divide the input", (long long) b);
  cn_shape t, u;
  cn_params_permute p;
  memset (&t, 0, sizeof t);
  memset (&u, 0, sizeof u);
  memset (&p, 0, sizeof p);
  t.rank = 6;
  u.rank = 4;
  p.rank = 6;
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
  memcpy (p.perm, perm, sizeof p.perm[0] * 6);
  if ((st = reshape_gv (nc, x, &t, "split", &r)) != CN_OK || (st = node1 (nc, CN_OP_PERMUTE, &p, r, "permuted", &q)) != CN_OK
      || (st = reshape_gv (nc, q, &u, NULL, &v)) != CN_OK)
    return st;
  return set_out (nc, 0, v, 1);
}

static cn_status op_depth_to_space (struct nctx *nc) { return space_depth (nc, 1); }
static cn_status op_space_to_depth (struct nctx *nc) { return space_depth (nc, 0); }

static cn_status reduce_composed (struct nctx *nc, uint32_t mask, int keep, cn_op pre, cn_op post);

/* ReduceL1, ReduceL2, ReduceSumSquare, ReduceLogSum, ReduceLogSumExp: an elementwise step PRE
 * (abs, square, exp; none if CN_OP_COUNT), the sum over the axes, a step POST (sqrt, log). */
static cn_status
op_reduce_composed (struct nctx *nc, cn_op pre, cn_op post)
{
  cn_status st = need_in (nc, 0);
  if (st != CN_OK)
    return st;
  int64_t keep, ax[CN_MAX_RANK];
  int n = -1, r = in_shape (nc, 0)->rank;
  if ((st = attr_int (nc, "keepdims", 1, &keep)) != CN_OK || (st = attr_ints (nc, "axes", ax, CN_MAX_RANK, &n)) != CN_OK)
    return st;
  uint32_t mask = 0;
  if (n <= 0)
    mask = r ? (uint32_t) ((1u << r) - 1) : 0;
  for (int i = 0; i < n; i++)
    {
      int a = 0;
      if ((st = norm_axis (nc, ax[i], r, "axis", &a)) != CN_OK)
        return st;
      if (mask & (1u << a))
        return cn_error_set (nc->err, CN_EINVAL, "axis %d is repeated", a);
      mask |= 1u << a;
    }
  if (mask == 0)
    return cn_error_set (nc->err, CN_EUNSUPPORTED, "a reduction over no axis is not supported");
  return reduce_composed (nc, mask, keep != 0, pre, post);
}

/* The sum over the axes MASK of PRE (x), then POST (see op_reduce_composed). */
static cn_status
reduce_composed (struct nctx *nc, uint32_t mask, int keep, cn_op pre, cn_op post)
{
  cn_status st;
  int x, v;
  cn_params_reduce p = { CN_REDUCE_SUM, mask, keep };
  cn_params_sqrt ps;
  memset (&ps, 0, sizeof ps);
  if ((st = in_gv (nc, 0, &x)) != CN_OK)
    return st;
  if (pre != CN_OP_COUNT && (st = node1 (nc, pre, NULL, x, "terms", &x)) != CN_OK)
    return st;
  if ((st = node1 (nc, CN_OP_REDUCE, &p, x, post != CN_OP_COUNT ? "sum" : NULL, &v)) != CN_OK)
    return st;
  if (post != CN_OP_COUNT && (st = node1 (nc, post, post == CN_OP_SQRT ? &ps : NULL, v, NULL, &v)) != CN_OK)
    return st;
  return set_out (nc, 0, v, 1);
}

/* GlobalLpPool: the ReduceL1 (p = 1) or ReduceL2 (p = 2) of every spatial axis (>= 2), kept. */
static cn_status
op_global_lp_pool (struct nctx *nc)
{
  int64_t pw;
  cn_status st = need_in (nc, 0);
  if (st != CN_OK || (st = attr_int (nc, "p", 2, &pw)) != CN_OK)
    return st;
  if (pw != 1 && pw != 2)
    return cn_error_set (nc->err, CN_EUNSUPPORTED, "attribute p = %lld is not supported (1 or 2)", (long long) pw);
  int r = in_shape (nc, 0)->rank;
  if (r < 3)
    return cn_error_set (nc->err, CN_ESHAPE, "the input must have rank 3 or more");
  uint32_t mask = 0;
  for (int i = 2; i < r; i++)
    mask |= 1u << i;
  return reduce_composed (nc, mask, 1, pw == 1 ? CN_OP_ABS : CN_OP_SQUARE, pw == 1 ? CN_OP_COUNT : CN_OP_SQRT);
}

static cn_status op_reduce_l1 (struct nctx *nc) { return op_reduce_composed (nc, CN_OP_ABS, CN_OP_COUNT); }
static cn_status op_reduce_l2 (struct nctx *nc) { return op_reduce_composed (nc, CN_OP_SQUARE, CN_OP_SQRT); }
static cn_status op_reduce_sum_square (struct nctx *nc) { return op_reduce_composed (nc, CN_OP_SQUARE, CN_OP_COUNT); }
static cn_status op_reduce_log_sum (struct nctx *nc) { return op_reduce_composed (nc, CN_OP_COUNT, CN_OP_LOG); }
static cn_status op_reduce_log_sum_exp (struct nctx *nc) { return op_reduce_composed (nc, CN_OP_EXP, CN_OP_LOG); }

/* EyeLike: a constant of the (static, 2-D) input shape with ones on the diagonal k. */
static cn_status
op_eye_like (struct nctx *nc)
{
  int64_t k, dt;
  cn_status st;
  if ((st = need_in (nc, 0)) != CN_OK || (st = attr_int (nc, "k", 0, &k)) != CN_OK
      || (st = attr_int (nc, "dtype", 0, &dt)) != CN_OK)
    return st;
  const cn_shape *s = in_shape (nc, 0);
  if (s->rank != 2)
    return cn_error_set (nc->err, CN_ESHAPE, "the input must have rank 2");
  cn_dtype d;
  if (dt == 0)
    d = nc->in[0]->is_const ? nc->in[0]->c.dtype : CN_DTYPE_F32;
  else if (dt == 1)
    d = CN_DTYPE_F32;
  else if (dt == 11)
    d = CN_DTYPE_F64;
  else if (dt == 6 || dt == 7)
    {
      d = CN_DTYPE_I64;
      nc->out_sort = onnx_sort (dt);
    }
  else
    return cn_error_set (nc->err, CN_EUNSUPPORTED, "attribute dtype = %lld is not supported", (long long) dt);
  cn_tensor t;
  if ((st = host_fill (d, s, 0, &t, nc->err)) != CN_OK)
    return st;
  for (int64_t i = 0; i < s->dim[0]; i++)
    {
      int64_t j = i + k;
      if (j < 0 || j >= s->dim[1])
        continue;
      int64_t at = i * s->dim[1] + j;
      if (d == CN_DTYPE_F32)
        ((float *) t.data)[at] = 1;
      else if (d == CN_DTYPE_F64)
        ((double *) t.data)[at] = 1;
      else
        ((int64_t *) t.data)[at] = 1;
    }
  return set_out_const (nc, 0, &t);
}

/* Range of constant scalars: integers, or floats whose start and delta are integers of at
 * most 2^24 in magnitude (every entry then exact). */
static cn_status
op_range (struct nctx *nc)
{
  cn_status st;
  double v[3];
  for (int i = 0; i < 3; i++)
    {
      if ((st = need_in (nc, i)) != CN_OK)
        return st;
      struct oval *o = nc->in[i];
      if (!o->is_const || cn_tensor_numel (&o->c) != 1)
        return cn_error_set (nc->err, CN_EUNSUPPORTED, "input %d ('%s') must be a constant scalar", i, o->name);
      v[i] = cn_tensor_get_f64 (&o->c, 0);
      if (!isfinite (v[i]))
        return cn_error_set (nc->err, CN_EUNSUPPORTED, "input %d ('%s') is not finite", i, o->name);
    }
  int ints = is_int (&nc->in[0]->c);
  if (!ints)
    for (int i = 0; i < 3; i++)
      if (i != 1 && (v[i] != floor (v[i]) || fabs (v[i]) > 16777216.0))
        return cn_error_set (nc->err, CN_EUNSUPPORTED,
                             "a floating-point range is supported with integer start and delta up to 2^24 only");
  if (v[2] == 0)
    return cn_error_set (nc->err, CN_EINVAL, "delta is 0");
  double cnt = ceil ((v[1] - v[0]) / v[2]);
  if (cnt < 0)
    cnt = 0;
  if (cnt > 16777216.0)
    return cn_error_set (nc->err, CN_EUNSUPPORTED, "a range of more than 2^24 entries is not supported");
  cn_shape s;
  memset (&s, 0, sizeof s);
  s.rank = 1;
  s.dim[0] = (int64_t) cnt;
  cn_tensor t;
  cn_dtype d = ints ? CN_DTYPE_I64 : nc->in[0]->c.dtype;
  if ((st = cn_tensor_init (&t, d, &s, nc->err)) != CN_OK)
    return st;
  for (int64_t i = 0; i < s.dim[0]; i++)
    {
      if (ints)
        ((int64_t *) t.data)[i] = ((const int64_t *) nc->in[0]->c.data)[0] + i * ((const int64_t *) nc->in[2]->c.data)[0];
      else if (d == CN_DTYPE_F32)
        ((float *) t.data)[i] = (float) (v[0] + (double) i * v[2]);
      else
        ((double *) t.data)[i] = v[0] + (double) i * v[2];
    }
  return set_out_const (nc, 0, &t);
}

/* Trilu of a constant (the last two axes; upper keeps j - i >= k, lower j - i <= k). */
static cn_status
op_trilu (struct nctx *nc)
{
  int64_t upper, k = 0;
  int n;
  cn_status st;
  if ((st = need_in (nc, 0)) != CN_OK || (st = attr_int (nc, "upper", 1, &upper)) != CN_OK
      || (has_in (nc, 1) && (st = const_ints (nc, 1, "k", &k, 1, &n)) != CN_OK))
    return st;
  struct oval *o = nc->in[0];
  if (!o->is_const)
    return cn_error_set (nc->err, CN_EUNSUPPORTED, "only a constant input is supported");
  if (o->c.shape.rank < 2)
    return cn_error_set (nc->err, CN_ESHAPE, "the input must have rank 2 or more");
  cn_tensor t;
  if ((st = cn_tensor_convert (&t, o->c.dtype, &o->c, nc->err)) != CN_OK)
    return st;
  int64_t R = o->c.shape.dim[o->c.shape.rank - 2], C = o->c.shape.dim[o->c.shape.rank - 1];
  int64_t n_all = cn_tensor_numel (&t);
  size_t w = t.dtype == CN_DTYPE_F32 ? 4 : 8;
  for (int64_t e = 0; e < n_all; e++)
    {
      int64_t j = e % C, i = (e / C) % R;
      int keep = upper ? j - i >= k : j - i <= k;
      if (!keep)
        memset ((char *) t.data + e * (int64_t) w, 0, w);
    }
  return set_out_const (nc, 0, &t);
}

/* ---- element sorts: comparisons, logic, select, integer words ------------------------------ */

/* Whether every present input of the node is a constant. */
static int
inputs_const (const struct nctx *nc)
{
  for (int i = 0; i < nc->n_in; i++)
    if (nc->in[i] != NULL && !nc->in[i]->is_const)
      return 0;
  return 1;
}

/* *OS = the numpy broadcast of the shapes of inputs 0 .. N-1 (all required). */
static cn_status
common_shape (struct nctx *nc, int n, cn_shape *os)
{
  cn_status st;
  for (int i = 0; i < n; i++)
    {
      if ((st = need_in (nc, i)) != CN_OK)
        return st;
      cn_shape t;
      char a[128], b[128];
      if (i == 0)
        *os = *in_shape (nc, 0);
      else if (!broadcast_shape (os, in_shape (nc, i), &t))
        return cn_error_set (nc->err, CN_ESHAPE, "input shapes %s and %s do not broadcast", fmt_shape (os, a, sizeof a),
                             fmt_shape (in_shape (nc, i), b, sizeof b));
      else
        *os = t;
    }
  return CN_OK;
}

/* *V = the Boolean input I at SHAPE (operand_at: a constant expanded here, a value of another
 * shape through a broadcast node, which moves Booleans exactly). */
static cn_status
bool_at (struct nctx *nc, int i, const cn_shape *shape, const char *suffix, int *v)
{
  if (in_sort (nc, i) != CN_DTYPE_BOOL)
    return cn_error_set (nc->err, CN_EUNSUPPORTED, "input %d ('%s') holds %s values, BOOL expected", i,
                         nc->in[i]->name, sort_name (in_sort (nc, i)));
  return operand_at (nc, i, shape, suffix, v);
}

/* The host operations on constants (host_fold). */
enum hop
{
  H_EQ, H_LT, H_LE, H_GT, H_GE, H_NOT, H_AND, H_OR, H_XOR, H_ISNAN, H_ISINF, H_WHERE, H_SHL, H_SHR,
  H_BAND, H_BOR, H_BXOR, H_BNOT
};

/* The width in bits of the word sort T. */
static int
word_bits (cn_dtype t)
{
  switch (t)
    {
    case CN_DTYPE_I8: case CN_DTYPE_U8: return 8;
    case CN_DTYPE_I16: case CN_DTYPE_U16: return 16;
    case CN_DTYPE_I32: case CN_DTYPE_U32: return 32;
    default: return 64;
    }
}

/* Folds the node, whose N inputs are all constants, on the host: every input broadcast to OS
 * (numpy), then H entry by entry, exactly.  Comparisons read floats as doubles (exact for f32
 * and f64; IEEE: a NaN compares false) and integer words as int64; the logical operators read
 * "nonzero = true"; IsInf takes ARG's bit 1 (+inf) and bit 2 (-inf); Where keeps the operands'
 * sort (f64 if one of them is); shifts and the bitwise operators work on the N-bit patterns of
 * the inputs' sort, as the integer operators do.  Boolean results are host i64 0/1 of sort BOOL.
 * The operands' sorts were checked by the caller. */
static cn_status
host_fold (struct nctx *nc, enum hop h, int n, const cn_shape *os, int arg)
{
  cn_tensor b[3], r;
  memset (b, 0, sizeof b);
  memset (&r, 0, sizeof r);
  cn_status st = CN_OK;
  for (int i = 0; i < n && st == CN_OK; i++)
    st = host_broadcast (&nc->in[i]->c, os, &b[i], nc->err);
  if (st != CN_OK)
    goto done;
  cn_dtype rd = CN_DTYPE_I64, rsort = CN_DTYPE_BOOL;
  int words = h == H_SHL || h == H_SHR || h == H_BAND || h == H_BOR || h == H_BXOR || h == H_BNOT;
  if (h == H_WHERE)
    {
      rsort = nc->in[1]->sort;
      if (!is_int (&b[1]))
        rd = b[1].dtype == CN_DTYPE_F64 || b[2].dtype == CN_DTYPE_F64 ? CN_DTYPE_F64 : CN_DTYPE_F32;
    }
  else if (words)
    rsort = nc->in[0]->sort;
  if ((st = cn_tensor_init (&r, rd, os, nc->err)) != CN_OK)
    goto done;
  int64_t m = cn_shape_numel (os);
  int ints = n > 0 && is_int (&b[0]);
  int bits = word_bits (rsort);
  uint64_t mask = bits == 64 ? ~(uint64_t) 0 : ((uint64_t) 1 << bits) - 1;
  for (int64_t k = 0; k < m; k++)
    {
      double x = n > 0 ? cn_tensor_get_f64 (&b[0], k) : 0, y = n > 1 ? cn_tensor_get_f64 (&b[1], k) : 0;
      int64_t p = n > 0 && ints ? ((const int64_t *) b[0].data)[k] : 0;
      int64_t q = n > 1 && is_int (&b[1]) ? ((const int64_t *) b[1].data)[k] : 0;
      int64_t z = 0;
      uint64_t w = 0;
      switch (h)
        {
        case H_EQ: z = ints ? p == q : x == y; break;
        case H_LT: z = ints ? p < q : x < y; break;
        case H_LE: z = ints ? p <= q : x <= y; break;
        case H_GT: z = ints ? p > q : x > y; break;
        case H_GE: z = ints ? p >= q : x >= y; break;
        case H_NOT: z = p == 0; break;
        case H_AND: z = p != 0 && q != 0; break;
        case H_OR: z = p != 0 || q != 0; break;
        case H_XOR: z = (p != 0) != (q != 0); break;
        case H_ISNAN: z = isnan (x) != 0; break;
        case H_ISINF: z = isinf (x) && (x > 0 ? (arg & 1) : (arg & 2)); break;
        case H_WHERE:
          if (rd == CN_DTYPE_I64)
            ((int64_t *) r.data)[k] = ((const int64_t *) (p != 0 ? b[1].data : b[2].data))[k];
          else if (rd == CN_DTYPE_F64)
            ((double *) r.data)[k] = cn_tensor_get_f64 (p != 0 ? &b[1] : &b[2], k);
          else
            ((float *) r.data)[k] = (float) cn_tensor_get_f64 (p != 0 ? &b[1] : &b[2], k);
          continue;
        case H_SHL: w = (uint64_t) q >= (uint64_t) bits ? 0 : ((uint64_t) p << q) & mask; break;
        case H_SHR: w = (uint64_t) q >= (uint64_t) bits ? 0 : ((uint64_t) p & mask) >> q; break;
        case H_BAND: w = (uint64_t) p & (uint64_t) q; break;
        case H_BOR: w = (uint64_t) p | (uint64_t) q; break;
        case H_BXOR: w = (uint64_t) p ^ (uint64_t) q; break;
        case H_BNOT: w = ~(uint64_t) p; break;
        }
      if (words && wrap_word ((int64_t) (w & mask), rsort, &z) != 0)
        {
          st = cn_error_set (nc->err, CN_EUNSUPPORTED, "the constant result %llu is beyond the int64 range (not "
                             "supported)", (unsigned long long) w);
          goto done;
        }
      ((int64_t *) r.data)[k] = z;
    }
  nc->out_sort = rsort;
  st = set_out_const (nc, 0, &r);
done:
  for (int i = 0; i < 3; i++)
    cn_tensor_clear (&b[i]);
  cn_tensor_clear (&r);
  return st;
}

/* Equal, Less, LessOrEqual, Greater, GreaterOrEqual: numpy broadcasting of the two operands (as
 * Add: constants expanded here, other values through broadcast nodes), which hold one element
 * sort, then one comparison node (eq, lt, le, gt, ge), the output Boolean.  The model's scalar:
 * the IEEE comparison (a NaN false).  Booleans (false < true) and words of one sort: exactly, in
 * the sort's order.  Constants are folded here. */
static cn_status
op_compare (struct nctx *nc, cn_op op, enum hop h)
{
  cn_shape os;
  cn_status st = common_shape (nc, 2, &os);
  if (st != CN_OK || (st = sorts_agree (nc, 0, 1)) != CN_OK)
    return st;
  if (inputs_const (nc))
    return host_fold (nc, h, 2, &os, 0);
  return broadcast_apply (nc, op, NULL, 2, &os);
}

static cn_status op_equal (struct nctx *nc) { return op_compare (nc, CN_OP_EQ, H_EQ); }
static cn_status op_less (struct nctx *nc) { return op_compare (nc, CN_OP_LT, H_LT); }
static cn_status op_less_equal (struct nctx *nc) { return op_compare (nc, CN_OP_LE, H_LE); }
static cn_status op_greater (struct nctx *nc) { return op_compare (nc, CN_OP_GT, H_GT); }
static cn_status op_greater_equal (struct nctx *nc) { return op_compare (nc, CN_OP_GE, H_GE); }

/* Not, And, Or, Xor: Boolean operands (numpy broadcasting, bool_at), one logical node. */
static cn_status
op_logic (struct nctx *nc, cn_op op, enum hop h, int n)
{
  cn_shape os;
  cn_status st = common_shape (nc, n, &os);
  if (st != CN_OK)
    return st;
  for (int i = 0; i < n; i++)
    if (in_sort (nc, i) != CN_DTYPE_BOOL)
      return cn_error_set (nc->err, CN_EUNSUPPORTED, "input %d ('%s') holds %s values, BOOL expected", i,
                           nc->in[i]->name, sort_name (in_sort (nc, i)));
  if (inputs_const (nc))
    return host_fold (nc, h, n, &os, 0);
  return broadcast_apply (nc, op, NULL, n, &os);   /* every input holds Booleans (checked above) */
}

static cn_status op_not (struct nctx *nc) { return op_logic (nc, CN_OP_LOGICAL_NOT, H_NOT, 1); }
static cn_status op_and (struct nctx *nc) { return op_logic (nc, CN_OP_LOGICAL_AND, H_AND, 2); }
static cn_status op_or (struct nctx *nc) { return op_logic (nc, CN_OP_LOGICAL_OR, H_OR, 2); }
static cn_status op_xor (struct nctx *nc) { return op_logic (nc, CN_OP_LOGICAL_XOR, H_XOR, 2); }

/* The floating input 0 of a predicate (IsNaN, IsInf). */
static cn_status
float_in (struct nctx *nc)
{
  cn_status st = need_in (nc, 0);
  if (st == CN_OK && !cn_dtype_is_float (in_sort (nc, 0)))
    st = cn_error_set (nc->err, CN_EUNSUPPORTED, "input 0 ('%s') holds %s values, FLOAT or DOUBLE expected",
                       nc->in[0]->name, sort_name (in_sort (nc, 0)));
  return st;
}

/* IsNaN: isNaN. */
static cn_status
op_is_nan (struct nctx *nc)
{
  cn_status st = float_in (nc);
  if (st != CN_OK)
    return st;
  if (inputs_const (nc))
    return host_fold (nc, H_ISNAN, 1, in_shape (nc, 0), 0);
  int v;
  if ((st = node1 (nc, CN_OP_IS_NA_N, NULL, nc->in[0]->gv, NULL, &v)) != CN_OK)
    return st;
  return set_out (nc, 0, v, 1);
}

/* IsInf: detect_positive = detect_negative = 1 is isInf; one of them alone is isInf and the
 * sign, logicalAnd (isInf (x), gt (x, 0)) or logicalAnd (isInf (x), lt (x, 0)).  Both 0 (an
 * output that is false everywhere) is refused. */
static cn_status
op_is_inf (struct nctx *nc)
{
  int64_t pos, neg;
  cn_status st = float_in (nc);
  if (st != CN_OK || (st = attr_int (nc, "detect_positive", 1, &pos)) != CN_OK
      || (st = attr_int (nc, "detect_negative", 1, &neg)) != CN_OK)
    return st;
  if ((pos != 0 && pos != 1) || (neg != 0 && neg != 1) || (pos == 0 && neg == 0))
    return cn_error_set (nc->err, CN_EUNSUPPORTED, "attributes detect_positive = %lld, detect_negative = %lld are not "
                         "supported (0 or 1, not both 0)", (long long) pos, (long long) neg);
  if (inputs_const (nc))
    return host_fold (nc, H_ISINF, 1, in_shape (nc, 0), (int) (pos + 2 * neg));
  int x = nc->in[0]->gv, i, z, s, v;
  if (pos && neg)
    st = node1 (nc, CN_OP_IS_INF, NULL, x, NULL, &v);
  else if ((st = node1 (nc, CN_OP_IS_INF, NULL, x, "infinite", &i)) == CN_OK
           && (st = fill_const (nc, in_shape (nc, 0), 0.0, "zero", &z)) == CN_OK
           && (st = node2 (nc, pos ? CN_OP_GT : CN_OP_LT, NULL, x, z, "sign", &s)) == CN_OK)
    st = node2 (nc, CN_OP_LOGICAL_AND, NULL, i, s, NULL, &v);
  return st != CN_OK ? st : set_out (nc, 0, v, 1);
}

/* Where (condition, X, Y): numpy broadcasting of the three, then select (c, x, y): the condition
 * Boolean (bool_at), X and Y of one element sort (the model's scalar, Booleans or one word
 * sort: select's element ports), the output of their sort; every entry is a copy of X's or Y's
 * (exact).  Constants are folded here. */
static cn_status
op_where (struct nctx *nc)
{
  cn_shape os;
  cn_status st = common_shape (nc, 3, &os);
  if (st != CN_OK)
    return st;
  cn_dtype sc = in_sort (nc, 0);
  if (sc != CN_DTYPE_BOOL)
    return cn_error_set (nc->err, CN_EUNSUPPORTED, "the condition (input 0, '%s') holds %s values, BOOL expected",
                         nc->in[0]->name, sort_name (sc));
  if ((st = sorts_agree (nc, 1, 2)) != CN_OK)
    return st;
  if (inputs_const (nc))
    return host_fold (nc, H_WHERE, 3, &os, 0);
  int x[3], v;
  if ((st = bool_at (nc, 0, &os, "condition", &x[0])) != CN_OK
      || (st = operand_at (nc, 1, &os, "broadcast1", &x[1])) != CN_OK
      || (st = operand_at (nc, 2, &os, "broadcast2", &x[2])) != CN_OK
      || (st = add_node (nc, CN_OP_SELECT, NULL, 3, x, NULL, &v)) != CN_OK)
    return st;
  return set_out (nc, 0, v, 1);
}

/* Two (or one, for BitwiseNot) integer-word operands of one sort (UNSIGNED_ONLY: u8 .. u64, as
 * BitShift), numpy broadcasting (operand_at: broadcast nodes move words exactly), one word
 * operator; constants folded here. */
static cn_status
op_words (struct nctx *nc, cn_op op, enum hop h, int n, int unsigned_only)
{
  cn_shape os;
  cn_status st = common_shape (nc, n, &os);
  if (st != CN_OK)
    return st;
  cn_dtype s0 = in_sort (nc, 0);
  for (int i = 0; i < n; i++)
    {
      cn_dtype si = in_sort (nc, i);
      if (!is_word_sort (si) || (unsigned_only && si < CN_DTYPE_U8))
        return cn_error_set (nc->err, CN_EUNSUPPORTED, "input %d ('%s') holds %s values; %s integer types expected", i,
                             nc->in[i]->name, sort_name (si), unsigned_only ? "unsigned" : "the");
      if (si != s0)
        return cn_error_set (nc->err, CN_EUNSUPPORTED, "operands of different element types (%s and %s)",
                             sort_name (s0), sort_name (si));
    }
  if (inputs_const (nc))
    return host_fold (nc, h, n, &os, 0);
  return broadcast_apply (nc, op, NULL, n, &os);
}

/* BitShift (opset 11; unsigned words): direction LEFT is bitwiseLeftShift, RIGHT
 * shiftRightLogical (an amount of at least the width gives 0 in both, where ONNX leaves it
 * unspecified). */
static cn_status
op_bit_shift (struct nctx *nc)
{
  static const char *const dirs[] = { "LEFT", "RIGHT", NULL };
  int d = 0;
  if (attr_find (nc, "direction") == NULL)
    return cn_error_set (nc->err, CN_EPARSE, "attribute direction is missing");
  cn_status st = attr_choice (nc, "direction", "LEFT", dirs, &d);
  if (st != CN_OK)
    return st;
  return op_words (nc, d == 0 ? CN_OP_BITWISE_LEFT_SHIFT : CN_OP_SHIFT_RIGHT_LOGICAL, d == 0 ? H_SHL : H_SHR, 2, 1);
}

/* BitwiseAnd, BitwiseOr, BitwiseXor, BitwiseNot (opset 18, above the opsets read, like Mish: kept
 * for when they are raised; the importer does not check an operator's first opset). */
static cn_status op_bitwise_and (struct nctx *nc) { return op_words (nc, CN_OP_BITWISE_AND, H_BAND, 2, 0); }
static cn_status op_bitwise_or (struct nctx *nc) { return op_words (nc, CN_OP_BITWISE_OR, H_BOR, 2, 0); }
static cn_status op_bitwise_xor (struct nctx *nc) { return op_words (nc, CN_OP_BITWISE_XOR, H_BXOR, 2, 0); }
static cn_status op_bitwise_not (struct nctx *nc) { return op_words (nc, CN_OP_BITWISE_NOT, H_BNOT, 1, 0); }

/* ---- transposed convolution -------------------------------------------------------------- */

/* ConvTranspose onto convTranspose (x [N, C, S...], W [C, M/group, K...], B [M] or zeros).  Per
 * spatial axis the full output extent is F = stride (S - 1) + output_padding + dilation (K - 1)
 * + 1, and the output O = F - pad_begin - pad_end (the ONNX specification).  The pads come from
 *   pads (auto_pad NOTSET), zeros (VALID), or a total padding T = F - O with O = output_shape
 *   (when given) or O = S stride (SAME_UPPER, SAME_LOWER), split T/2 and T/2.
 * An odd T is refused: the specification puts the extra element at the beginning for
 * output_shape with NOTSET and at the end for SAME_UPPER, and onnxruntime does the opposite in
 * both cases, so the model's meaning is not settled; a negative T (an output larger than F) is
 * refused too. */
static cn_status
op_conv_transpose (struct nctx *nc)
{
  static const char *const modes[] = { "NOTSET", "VALID", "SAME_UPPER", "SAME_LOWER", NULL };
  cn_status st;
  if ((st = need_in (nc, 0)) != CN_OK || (st = need_in (nc, 1)) != CN_OK)
    return st;
  const cn_shape *xs = in_shape (nc, 0), *ws = in_shape (nc, 1);
  char s1[128], s2[128];
  int nd = xs->rank - 2;
  if (nd < 1 || nd > 3 || ws->rank != xs->rank)
    return cn_error_set (nc->err, CN_ESHAPE, "input %s and weight %s: expected [N,C,S...] and [C,M/group,K...] "
                         "with 1 to 3 spatial axes", fmt_shape (xs, s1, sizeof s1), fmt_shape (ws, s2, sizeof s2));
  int64_t group, ks[3], strides[3], dil[3], opad[3], pads[6], oshape[5];
  int nk, ns, ndl, nop, np_, nos, mode = 0;
  if ((st = attr_int (nc, "group", 1, &group)) != CN_OK || (st = attr_ints (nc, "kernel_shape", ks, 3, &nk)) != CN_OK
      || (st = attr_ints (nc, "strides", strides, 3, &ns)) != CN_OK
      || (st = attr_ints (nc, "dilations", dil, 3, &ndl)) != CN_OK
      || (st = attr_ints (nc, "output_padding", opad, 3, &nop)) != CN_OK
      || (st = attr_ints (nc, "pads", pads, 6, &np_)) != CN_OK
      || (st = attr_ints (nc, "output_shape", oshape, 5, &nos)) != CN_OK
      || (st = attr_choice (nc, "auto_pad", "NOTSET", modes, &mode)) != CN_OK)
    return st;
  if ((ns >= 0 && ns != nd) || (ndl >= 0 && ndl != nd) || (nop >= 0 && nop != nd) || (np_ >= 0 && np_ != 2 * nd))
    return cn_error_set (nc->err, CN_EINVAL, "strides, dilations, output_padding and pads must have %d, %d, %d and %d "
                         "entries", nd, nd, nd, 2 * nd);
  if (nk >= 0)
    for (int i = 0; i < nd; i++)
      if (nk != nd || ks[i] != ws->dim[2 + i])
        return cn_error_set (nc->err, CN_ESHAPE, "kernel_shape disagrees with the weight %s",
                             fmt_shape (ws, s1, sizeof s1));
  /* output_shape: the spatial extents, or all of [N, M, O...] */
  if (nos >= 0 && nos != nd && nos != nd + 2)
    return cn_error_set (nc->err, CN_EINVAL, "output_shape has %d entries for %d spatial axes", nos, nd);
  int os0 = nos == nd + 2 ? 2 : 0;
  if ((nos >= 0 || mode != 0) && np_ >= 0)
    return cn_error_set (nc->err, CN_EINVAL, "attribute pads is given with %s", nos >= 0 ? "output_shape" : "auto_pad");
  if (nos >= 0 && mode != 0)
    return cn_error_set (nc->err, CN_EUNSUPPORTED, "attribute output_shape with auto_pad = %s is not supported",
                         modes[mode]);
  cn_params_conv_transpose p;
  memset (&p, 0, sizeof p);
  p.nd = nd;
  p.groups = group;
  for (int i = 0; i < nd; i++)
    {
      p.stride[i] = ns >= 0 ? strides[i] : 1;
      p.dilation[i] = ndl >= 0 ? dil[i] : 1;
      p.output_padding[i] = nop >= 0 ? opad[i] : 0;
      int64_t K = ws->dim[2 + i], S = xs->dim[2 + i];
      if (p.stride[i] < 1 || p.dilation[i] < 1 || p.stride[i] > GEOM_MAX || p.dilation[i] > GEOM_MAX || K > GEOM_MAX
          || S > GEOM_MAX || p.output_padding[i] < 0 || p.output_padding[i] > GEOM_MAX)
        return cn_error_set (nc->err, CN_EINVAL, "stride %lld, dilation %lld, output_padding %lld on spatial axis %d",
                             (long long) p.stride[i], (long long) p.dilation[i], (long long) p.output_padding[i], i);
      if (np_ >= 0)
        {
          p.pad_begin[i] = pads[i];
          p.pad_end[i] = pads[nd + i];
          if (pads[i] < 0 || pads[nd + i] < 0 || pads[i] > GEOM_MAX || pads[nd + i] > GEOM_MAX)
            return cn_error_set (nc->err, CN_EUNSUPPORTED, "pads (%lld, %lld) on spatial axis %d are not supported "
                                 "(0 to 2^31)", (long long) pads[i], (long long) pads[nd + i], i);
        }
      if (nos < 0 && mode < 2)
        continue;
      /* the total padding T = F - O (the factors are at most 2^31: products below 2^62) */
      int64_t F, O = nos >= 0 ? oshape[os0 + i] : S * p.stride[i], T;
      const char *what = nos >= 0 ? "output_shape" : "auto_pad";
      if (__builtin_add_overflow (p.stride[i] * (S - 1), p.dilation[i] * (K - 1), &F)
          || __builtin_add_overflow (F, p.output_padding[i] + 1, &F))
        return cn_error_set (nc->err, CN_EINVAL, "the output extent overflows on spatial axis %d", i);
      T = F - O;
      if (nos >= 0 && (O < 1 || O > GEOM_MAX))
        return cn_error_set (nc->err, CN_EINVAL, "output_shape extent %lld on spatial axis %d", (long long) O, i);
      if (T < 0)
        return cn_error_set (nc->err, CN_EUNSUPPORTED, "attribute %s asks for an output extent %lld above the full "
                             "extent %lld on spatial axis %d (not supported)", what, (long long) O, (long long) F, i);
      if (T % 2 != 0)
        return cn_error_set (nc->err, CN_EUNSUPPORTED, "attribute %s gives an odd total padding %lld on spatial axis %d "
                             "(not supported: the ONNX specification and onnxruntime put the odd element on opposite "
                             "sides)", what, (long long) T, i);
      p.pad_begin[i] = p.pad_end[i] = T / 2;
    }
  if (nos == nd + 2 && (oshape[0] != xs->dim[0] || oshape[1] != ws->dim[1] * group))
    return cn_error_set (nc->err, CN_ESHAPE, "output_shape [%lld,%lld,...] disagrees with the input and the weight",
                         (long long) oshape[0], (long long) oshape[1]);
  int in[3], v;
  if ((st = in_gv (nc, 0, &in[0])) != CN_OK || (st = in_gv (nc, 1, &in[1])) != CN_OK)
    return st;
  if (has_in (nc, 2))
    st = in_gv (nc, 2, &in[2]);
  else
    {
      /* No bias in the model: zeros of extent M = group (M/group). */
      cn_shape bs;
      int64_t m = ws->dim[1] * (group > 0 ? group : 1);
      cn_shape_make (&bs, 1, &m, NULL);
      st = fill_const (nc, &bs, 0.0, "zero_bias", &in[2]);
    }
  if (st == CN_OK)
    st = add_node (nc, CN_OP_CONV_TRANSPOSE, &p, 3, in, NULL, &v);
  return st != CN_OK ? st : set_out (nc, 0, v, 1);
}

/* ---- random draws ------------------------------------------------------------------------ */

/* *KEY = the key of a draw, a u64 constant [] holding the attribute seed.  ONNX's seed is a float
 * and may be absent (a fresh draw at every run); certnn's draws are deterministic functions of a
 * key (src/ops/random.c: Philox4x32-10), so the seed is required and must be an integer in
 * [0, 2^53].  The draws are certnn's, not onnxruntime's: the same seed gives other numbers. */
static cn_status
draw_key (struct nctx *nc, int *key)
{
  double seed;
  cn_status st;
  if (attr_find (nc, "seed") == NULL)
    return cn_error_set (nc->err, CN_EUNSUPPORTED, "attribute seed is missing: certnn's draws are deterministic "
                         "functions of a key, so a model must give the seed");
  if ((st = attr_float (nc, "seed", 0, &seed)) != CN_OK)
    return st;
  if (!(seed >= 0 && seed <= 0x1p53 && seed == floor (seed)))
    return cn_error_set (nc->err, CN_EUNSUPPORTED, "attribute seed = %g is not supported (an integer in [0, 2^53])",
                         seed);
  cn_tensor t;
  cn_shape s0;
  memset (&s0, 0, sizeof s0);
  if ((st = cn_tensor_init (&t, CN_DTYPE_U64, &s0, nc->err)) != CN_OK)
    return st;
  ((uint64_t *) t.data)[0] = (uint64_t) seed;
  st = add_const (nc, &t, "key", key);
  cn_tensor_clear (&t);
  return st;
}

/* The output type of a draw: attribute dtype (default DEF, an ONNX type), which must be FLOAT or
 * DOUBLE (the model's scalar) unless ANY_SORT; *TO receives its sort. */
static cn_status
draw_dtype (struct nctx *nc, int64_t def, int any_sort, cn_dtype *to)
{
  int64_t dt;
  cn_status st = attr_int (nc, "dtype", def, &dt);
  if (st != CN_OK)
    return st;
  *to = onnx_sort (dt);
  if (*to == CN_DTYPE_COUNT || (!any_sort && !cn_dtype_is_float (*to)))
    return cn_error_set (nc->err, CN_EUNSUPPORTED, "attribute dtype = %s is not supported (FLOAT or DOUBLE%s)",
                         onnx_type_name ((int32_t) dt), any_sort ? ", BOOL or an integer type" : "");
  return CN_OK;
}

/* RandomUniform, RandomNormal and their Like forms: randUniform {shape, low, high} or randn
 * {shape, mean, scale} of the key (draw_key), the shape from the attribute or from input 0
 * (its values unused). */
static cn_status
op_random (struct nctx *nc, int normal, int like)
{
  cn_status st;
  cn_shape s;
  cn_dtype to;
  int64_t def = ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT;
  if (like)
    {
      if ((st = need_in (nc, 0)) != CN_OK)
        return st;
      s = *in_shape (nc, 0);
      cn_dtype is = in_sort (nc, 0);
      def = is == CN_DTYPE_F64 ? ONNX__TENSOR_PROTO__DATA_TYPE__DOUBLE
        : is == CN_DTYPE_F32 ? ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT : ONNX__TENSOR_PROTO__DATA_TYPE__INT64;
    }
  else
    {
      int64_t d[CN_MAX_RANK + 1];
      int n;
      if ((st = attr_ints (nc, "shape", d, CN_MAX_RANK + 1, &n)) != CN_OK)
        return st;
      if (n < 0)
        return cn_error_set (nc->err, CN_EPARSE, "attribute shape is missing");
      if ((st = make_shape (nc, n, d, &s)) != CN_OK)
        return st;
    }
  if ((st = draw_dtype (nc, def, 0, &to)) != CN_OK)
    return st;
  int key, v;
  if (normal)
    {
      cn_params_randn p;
      memset (&p, 0, sizeof p);
      p.shape = s;
      if ((st = attr_finite (nc, "mean", 0.0, &p.mean)) != CN_OK || (st = attr_finite (nc, "scale", 1.0, &p.std)) != CN_OK)
        return st;
      if ((st = draw_key (nc, &key)) != CN_OK || (st = node1 (nc, CN_OP_RANDN, &p, key, NULL, &v)) != CN_OK)
        return st;
    }
  else
    {
      cn_params_rand_uniform p;
      memset (&p, 0, sizeof p);
      p.shape = s;
      if ((st = attr_finite (nc, "low", 0.0, &p.lo)) != CN_OK || (st = attr_finite (nc, "high", 1.0, &p.hi)) != CN_OK)
        return st;
      if ((st = draw_key (nc, &key)) != CN_OK || (st = node1 (nc, CN_OP_RAND_UNIFORM, &p, key, NULL, &v)) != CN_OK)
        return st;
    }
  return set_out (nc, 0, v, 1);
}

static cn_status op_random_uniform (struct nctx *nc) { return op_random (nc, 0, 0); }
static cn_status op_random_normal (struct nctx *nc) { return op_random (nc, 1, 0); }
static cn_status op_random_uniform_like (struct nctx *nc) { return op_random (nc, 0, 1); }
static cn_status op_random_normal_like (struct nctx *nc) { return op_random (nc, 1, 1); }

/* Bernoulli (opset 15): y_j = 1 with probability x_j, on the key of the seed.  A constant x whose
 * entries all equal one p is bernoulliMask {shape, p} (1 iff u_j < p); any other x (a value of
 * the model's scalar) is lt (randUniform {shape, 0, 1}, x): the same u_j, the same comparison
 * (in an f32 evaluation u_j is rounded to binary32 before it is compared).  dtype FLOAT or DOUBLE
 * keeps the model's scalar; BOOL and the integer types are a cast of the 0/1 result. */
static cn_status
op_bernoulli (struct nctx *nc)
{
  cn_status st = float_in (nc);
  if (st != CN_OK)
    return st;
  cn_dtype to, is = in_sort (nc, 0);
  if ((st = draw_dtype (nc, is == CN_DTYPE_F64 ? ONNX__TENSOR_PROTO__DATA_TYPE__DOUBLE
                        : ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT, 1, &to)) != CN_OK)
    return st;
  const cn_shape *s = in_shape (nc, 0);
  struct oval *o = nc->in[0];
  int key, v, same = o->is_const && cn_tensor_numel (&o->c) > 0;
  double p = same ? cn_tensor_get_f64 (&o->c, 0) : 0;
  for (int64_t i = 1; same && i < cn_tensor_numel (&o->c); i++)
    same = cn_tensor_get_f64 (&o->c, i) == p;
  int is_bool = 0;
  if ((st = draw_key (nc, &key)) != CN_OK)
    return st;
  if (same)
    {
      cn_params_bernoulli pb;
      memset (&pb, 0, sizeof pb);
      pb.shape = *s;
      pb.p = p;
      st = node1 (nc, CN_OP_BERNOULLI_MASK, &pb, key, cn_dtype_is_float (to) ? NULL : "mask", &v);
    }
  else
    {
      cn_params_rand_uniform pu;
      int u, x;
      memset (&pu, 0, sizeof pu);
      pu.shape = *s;
      pu.hi = 1.0;
      if ((st = node1 (nc, CN_OP_RAND_UNIFORM, &pu, key, "uniform", &u)) == CN_OK && (st = in_gv (nc, 0, &x)) == CN_OK)
        st = node2 (nc, CN_OP_LT, NULL, u, x, to == CN_DTYPE_BOOL ? NULL : "draw", &v);
      is_bool = 1;
    }
  if (st != CN_OK)
    return st;
  if ((is_bool && to != CN_DTYPE_BOOL) || (!is_bool && !cn_dtype_is_float (to)))
    {
      cn_params_cast pc = { cn_dtype_is_float (to) ? CN_DTYPE_F64 : to };
      if ((st = node1 (nc, CN_OP_CAST, &pc, v, NULL, &v)) != CN_OK)
        return st;
    }
  return set_out (nc, 0, v, 1);
}

/* ---- spectral ---------------------------------------------------------------------------- */

/* *V = X permuted by PERM (rank R), or X itself for the identity. */
static cn_status
permute_gv (struct nctx *nc, int x, int r, const int *perm, const char *suffix, int *v)
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
  return node1 (nc, CN_OP_PERMUTE, &p, x, suffix, v);
}

/* DFT (opset 17) onto rfft: a real signal (last extent 1), onesided = 1, inverse = 0, along the
 * signal axis AXIS (default 1; any axis but the last, through permutes).  x [..., N, ..., 1] is
 * reshaped to [..., N, ...], the axis moved last, cut or padded with zeros to dft_length (a
 * constant), transformed (rfft, unnormalised as ONNX's DFT: X_k = sum_t x_t e^{-2 pi i k t / L})
 * to [..., L/2 + 1, 2] and the axis moved back: [..., L/2 + 1, ..., 2]. */
static cn_status
op_dft (struct nctx *nc)
{
  int64_t axis, inverse, onesided, len = -1;
  int x, r, a = 0, n, v;
  cn_status st;
  if ((st = float_in (nc)) != CN_OK || (st = attr_int (nc, "axis", 1, &axis)) != CN_OK
      || (st = attr_int (nc, "inverse", 0, &inverse)) != CN_OK || (st = attr_int (nc, "onesided", 0, &onesided)) != CN_OK)
    return st;
  if (inverse != 0)
    return cn_error_set (nc->err, CN_EUNSUPPORTED, "attribute inverse = %lld is not supported (only the forward "
                         "transform of a real signal, onto rfft)", (long long) inverse);
  if (onesided != 1)
    return cn_error_set (nc->err, CN_EUNSUPPORTED, "attribute onesided = %lld is not supported (only the one-sided "
                         "transform of a real signal, onto rfft)", (long long) onesided);
  const cn_shape *s = in_shape (nc, 0);
  char b[128];
  r = s->rank;
  if (r < 2 || s->dim[r - 1] != 1)
    return cn_error_set (nc->err, CN_EUNSUPPORTED, "input %s is not supported (only a real signal: rank 2 or more, "
                         "last extent 1)", fmt_shape (s, b, sizeof b));
  if (axis < -r || axis > r - 2 || (axis < 0 && axis + r > r - 2))
    return cn_error_set (nc->err, CN_EINVAL, "attribute axis = %lld is out of range for rank %d", (long long) axis, r);
  a = (int) (axis < 0 ? axis + r : axis);
  if (has_in (nc, 1))
    {
      if ((st = const_ints (nc, 1, "dft_length", &len, 1, &n)) != CN_OK)
        return st;
      if (n != 1 || len < 1 || len > GEOM_MAX)
        return cn_error_set (nc->err, CN_EINVAL, "dft_length must be one integer in [1, 2^31]");
    }
  /* y = x without its last axis, the signal axis last */
  cn_shape t = *s, u;
  t.dim[--t.rank] = 0;
  int perm[CN_MAX_RANK], back[CN_MAX_RANK];
  for (int i = 0, j = 0; i < r - 1; i++)
    if (i != a)
      perm[j++] = i;
  perm[r - 2] = a;
  int64_t N = s->dim[a];
  if ((st = x_in (nc, &x)) != CN_OK || (st = reshape_gv (nc, x, &t, "signal", &x)) != CN_OK
      || (st = permute_gv (nc, x, r - 1, perm, "signal_last", &x)) != CN_OK)
    return st;
  u = *cn_graph_value_shape (nc->imp->g, x);
  if (len >= 0 && len < N)
    {
      cn_params_slice ps;
      memset (&ps, 0, sizeof ps);
      ps.rank = u.rank;
      for (int i = 0; i < u.rank; i++)
        {
          ps.stop[i] = u.dim[i];
          ps.step[i] = 1;
        }
      ps.stop[u.rank - 1] = len;
      st = node1 (nc, CN_OP_SLICE, &ps, x, "cut", &x);
    }
  else if (len > N)
    {
      cn_params_pad pp;
      memset (&pp, 0, sizeof pp);
      pp.rank = u.rank;
      pp.end[u.rank - 1] = len - N;
      st = node1 (nc, CN_OP_PAD, &pp, x, "padded", &x);
    }
  if (st != CN_OK)
    return st;
  cn_params_fft pf = { len >= 0 ? len : N, CN_FFT_BACKWARD };
  int last = a == r - 2;
  if ((st = node1 (nc, CN_OP_RFFT, &pf, x, last ? NULL : "spectrum", &v)) != CN_OK)
    return st;
  /* the result [others..., M, 2]; output axis i < a is others[i], a is M, then the others, then 2 */
  for (int i = 0; i < r; i++)
    back[i] = i < a ? i : i == a ? r - 2 : i < r - 1 ? i - 1 : r - 1;
  if ((st = permute_gv (nc, v, r, back, NULL, &v)) != CN_OK)
    return st;
  return set_out (nc, 0, v, 1);
}

/* ---- Einsum ------------------------------------------------------------------------------ */

/* One or two operands, every subscript a letter, no ellipsis and no letter twice in one operand
 * (no diagonals); the output explicit ("ij,jk->ik") or implicit (the letters seen once, in
 * alphabetical order, as numpy).  A letter names one extent everywhere (no broadcasting).
 * Mapping: the letters of an operand that appear nowhere else (neither in the other operand nor
 * in the output) are summed out first (reduce); then one operand is a permute; two operands
 * without a letter shared by both and the output are one contract (the shared letters summed),
 * and with such batch letters one matmul of [batch, free_a, shared] by [batch, shared, free_b]
 * (permutes and reshapes around it); a permute puts the output's letters in order.  Other
 * equations are refused, naming the equation. */
#define EINSUM_MAX 64

struct ein
{
  int n;                            /* operands */
  char sub[2][CN_MAX_RANK + 1];     /* their letters */
  char out[CN_MAX_RANK + 1];        /* the output's letters */
  int64_t ext[128];                 /* extent of each letter, -1 when unseen */
};

/* Parses EQ (the attribute) for the operand shapes; messages name the equation. */
static cn_status
einsum_parse (struct nctx *nc, const char *eq, struct ein *e)
{
  char sides[2][EINSUM_MAX];
  int explicit_out = 0, k = 0, side = 0;
  memset (e, 0, sizeof *e);
  for (int c = 0; c < 128; c++)
    e->ext[c] = -1;
  memset (sides, 0, sizeof sides);
  for (const char *p = eq; *p; p++)
    {
      if (*p == ' ')
        continue;
      if (p[0] == '-' && p[1] == '>' && side == 0)
        {
          side = 1;
          k = 0;
          explicit_out = 1;
          p++;
          continue;
        }
      if (k >= EINSUM_MAX - 1)
        goto bad;
      sides[side][k++] = *p;
    }
  if (strstr (eq, "...") != NULL)
    return cn_error_set (nc->err, CN_EUNSUPPORTED, "equation '%s': an ellipsis is not supported", eq);
  /* the operands, separated by commas */
  const char *l = sides[0];
  for (e->n = 0;; e->n++)
    {
      const char *comma = strchr (l, ',');
      size_t len = comma ? (size_t) (comma - l) : strlen (l);
      if (e->n >= 2)
        return cn_error_set (nc->err, CN_EUNSUPPORTED, "equation '%s': more than two operands are not supported", eq);
      if (len > CN_MAX_RANK)
        goto bad;
      memcpy (e->sub[e->n], l, len);
      e->sub[e->n][len] = '\0';
      if (comma == NULL)
        {
          e->n++;
          break;
        }
      l = comma + 1;
    }
  if (e->n != nc->n_in)
    return cn_error_set (nc->err, CN_EINVAL, "equation '%s' has %d operands, the node %d inputs", eq, e->n, nc->n_in);
  for (int i = 0; i < e->n; i++)
    {
      cn_status st = need_in (nc, i);
      if (st != CN_OK)
        return st;
      const cn_shape *s = in_shape (nc, i);
      const char *q = e->sub[i];
      if ((int) strlen (q) != s->rank)
        return cn_error_set (nc->err, CN_ESHAPE, "equation '%s': operand %d has %zu subscripts and rank %d", eq, i,
                             strlen (q), s->rank);
      for (int d = 0; q[d]; d++)
        {
          unsigned char c = (unsigned char) q[d];
          if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')))
            goto bad;
          if (strchr (q + d + 1, c) != NULL)
            return cn_error_set (nc->err, CN_EUNSUPPORTED, "equation '%s': the subscript '%c' twice in operand %d "
                                 "(a diagonal) is not supported", eq, c, i);
          if (e->ext[c] >= 0 && e->ext[c] != s->dim[d])
            return cn_error_set (nc->err, CN_ESHAPE, "equation '%s': subscript '%c' has extents %lld and %lld", eq, c,
                                 (long long) e->ext[c], (long long) s->dim[d]);
          e->ext[c] = s->dim[d];
        }
    }
  if (explicit_out)
    {
      if (strlen (sides[1]) > CN_MAX_RANK)
        goto bad;
      strcpy (e->out, sides[1]);
      for (int d = 0; e->out[d]; d++)
        {
          unsigned char c = (unsigned char) e->out[d];
          if (c >= 128 || e->ext[c] < 0 || strchr (e->out + d + 1, c) != NULL)
            goto bad;
        }
    }
  else
    {
      /* the letters seen once, in alphabetical order (upper case before lower case, as ASCII) */
      int k2 = 0;
      for (int c = 'A'; c <= 'z'; c++)
        if (e->ext[c] >= 0)
          {
            int seen = 0;
            for (int i = 0; i < e->n; i++)
              seen += strchr (e->sub[i], c) != NULL;
            if (seen == 1)
              {
                if (k2 >= CN_MAX_RANK)
                  goto bad;
                e->out[k2++] = (char) c;
              }
          }
    }
  return CN_OK;
bad:
  return cn_error_set (nc->err, CN_EUNSUPPORTED, "equation '%s' is not supported (letters only, at most %d per "
                       "operand, each output letter once and in an operand)", eq, CN_MAX_RANK);
}

/* *V = X (letters *SUB) with the letters that are in neither KEEP1 nor KEEP2 summed out; *SUB
 * becomes the remaining letters. */
static cn_status
einsum_sum_out (struct nctx *nc, int x, char *sub, const char *keep1, const char *keep2, const char *suffix, int *v)
{
  uint32_t mask = 0;
  char rest[CN_MAX_RANK + 1];
  int k = 0;
  for (int d = 0; sub[d]; d++)
    if (strchr (keep1, sub[d]) == NULL && strchr (keep2, sub[d]) == NULL)
      mask |= 1u << d;
    else
      rest[k++] = sub[d];
  rest[k] = '\0';
  *v = x;
  if (mask == 0)
    return CN_OK;
  cn_params_reduce p = { CN_REDUCE_SUM, mask, 0 };
  strcpy (sub, rest);
  return node1 (nc, CN_OP_REDUCE, &p, x, suffix, v);
}

/* The permutation taking the letters FROM to the order TO (the same letters). */
static void
letters_perm (const char *from, const char *to, int *perm)
{
  for (int i = 0; to[i]; i++)
    perm[i] = (int) (strchr (from, to[i]) - from);
}

static cn_status
op_einsum (struct nctx *nc)
{
  const Onnx__AttributeProto *at = attr_find (nc, "equation");
  char eq[EINSUM_MAX + 1];
  struct ein e;
  cn_status st;
  if (at == NULL || !attr_is (at, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING))
    return cn_error_set (nc->err, CN_EPARSE, "attribute equation is missing");
  if (at->s.len > EINSUM_MAX)
    return cn_error_set (nc->err, CN_EUNSUPPORTED, "an equation of %zu characters is not supported", at->s.len);
  memcpy (eq, at->s.data, at->s.len);
  eq[at->s.len] = '\0';
  if ((st = einsum_parse (nc, eq, &e)) != CN_OK)
    return st;
  int perm[CN_MAX_RANK], a, a0, b, v;
  char sa[CN_MAX_RANK + 1], sb[CN_MAX_RANK + 1];
  strcpy (sa, e.sub[0]);
  strcpy (sb, e.n == 2 ? e.sub[1] : "");
  if ((st = in_gv (nc, 0, &a0)) != CN_OK || (st = einsum_sum_out (nc, a0, sa, e.out, sb, "sum0", &a)) != CN_OK)
    return st;
  if (e.n == 1)
    {
      letters_perm (sa, e.out, perm);
      if ((st = permute_gv (nc, a, (int) strlen (e.out), perm, NULL, &v)) != CN_OK)
        return st;
      return set_out (nc, 0, v, v != a0);
    }
  if ((st = in_gv (nc, 1, &b)) != CN_OK || (st = einsum_sum_out (nc, b, sb, e.out, sa, "sum1", &b)) != CN_OK)
    return st;
  /* the letters: batch (both operands and the output), shared (both, summed), free_a, free_b */
  char bat[CN_MAX_RANK + 1] = "", shr[CN_MAX_RANK + 1] = "", fa[CN_MAX_RANK + 1] = "", fb[CN_MAX_RANK + 1] = "";
  int nbat = 0, nshr = 0, nfa = 0, nfb = 0;
  for (int d = 0; sa[d]; d++)
    if (strchr (sb, sa[d]) == NULL)
      fa[nfa++] = sa[d];
    else if (strchr (e.out, sa[d]) != NULL)
      bat[nbat++] = sa[d];
    else
      shr[nshr++] = sa[d];
  for (int d = 0; sb[d]; d++)
    if (strchr (sa, sb[d]) == NULL)
      fb[nfb++] = sb[d];
  bat[nbat] = shr[nshr] = fa[nfa] = fb[nfb] = '\0';
  char res[2 * CN_MAX_RANK + 1];
  int y;
  if (nbat == 0)
    {
      cn_params_contract pc;
      memset (&pc, 0, sizeof pc);
      pc.n = nshr;
      for (int q = 0; q < nshr; q++)
        {
          pc.a_axes[q] = (int) (strchr (sa, shr[q]) - sa);
          pc.b_axes[q] = (int) (strchr (sb, shr[q]) - sb);
        }
      if (nfa + nfb > CN_MAX_RANK)
        return cn_error_set (nc->err, CN_EUNSUPPORTED, "equation '%s': the product has rank %d, above %d", eq,
                             nfa + nfb, CN_MAX_RANK);
      if ((st = node2 (nc, CN_OP_CONTRACT, &pc, a, b, "contract", &y)) != CN_OK)
        return st;
      snprintf (res, sizeof res, "%s%s", fa, fb);
    }
  else
    {
      /* [batch, free_a, shared] @ [batch, shared, free_b] as [Bt, M, K] @ [Bt, K, N] */
      char oa[CN_MAX_RANK + 1], ob[CN_MAX_RANK + 1];
      int64_t Bt = 1, M = 1, K = 1, N = 1;
      snprintf (oa, sizeof oa, "%s%s%s", bat, fa, shr);
      snprintf (ob, sizeof ob, "%s%s%s", bat, shr, fb);
      for (int d = 0; bat[d]; d++)
        Bt *= e.ext[(unsigned char) bat[d]];
      for (int d = 0; fa[d]; d++)
        M *= e.ext[(unsigned char) fa[d]];
      for (int d = 0; shr[d]; d++)
        K *= e.ext[(unsigned char) shr[d]];
      for (int d = 0; fb[d]; d++)
        N *= e.ext[(unsigned char) fb[d]];
      cn_shape s3a, s3b, sr;
      int64_t da[3] = { Bt, M, K }, db[3] = { Bt, K, N };
      cn_shape_make (&s3a, 3, da, NULL);
      cn_shape_make (&s3b, 3, db, NULL);
      snprintf (res, sizeof res, "%s%s%s", bat, fa, fb);
      if (strlen (res) > CN_MAX_RANK)
        return cn_error_set (nc->err, CN_EUNSUPPORTED, "equation '%s': the product has rank %zu, above %d", eq,
                             strlen (res), CN_MAX_RANK);
      memset (&sr, 0, sizeof sr);
      sr.rank = (int) strlen (res);
      for (int d = 0; res[d]; d++)
        sr.dim[d] = e.ext[(unsigned char) res[d]];
      letters_perm (sa, oa, perm);
      if ((st = permute_gv (nc, a, (int) strlen (oa), perm, "order0", &a)) != CN_OK
          || (st = reshape_gv (nc, a, &s3a, "flat0", &a)) != CN_OK)
        return st;
      letters_perm (sb, ob, perm);
      if ((st = permute_gv (nc, b, (int) strlen (ob), perm, "order1", &b)) != CN_OK
          || (st = reshape_gv (nc, b, &s3b, "flat1", &b)) != CN_OK
          || (st = node2 (nc, CN_OP_MATMUL, NULL, a, b, "matmul", &y)) != CN_OK
          || (st = reshape_gv (nc, y, &sr, "product", &y)) != CN_OK)
        return st;
    }
  letters_perm (res, e.out, perm);
  if ((st = permute_gv (nc, y, (int) strlen (e.out), perm, NULL, &v)) != CN_OK)
    return st;
  return set_out (nc, 0, v, 1);
}


/* ---- the operator table ------------------------------------------------------------------- */

struct onnx_op
{
  const char *type;
  cn_status (*fn) (struct nctx *);
  const char *attrs;         /* the accepted attributes, space separated */
  int fold;                  /* 1: all floating-point constant inputs are folded through a scratch graph */
  int typed;                 /* 1: the handler checks the sorts of its inputs itself (Boolean and
                                integer values, integer constants as operands); 0: every input
                                that is not a constant must hold the model's scalar */
};

static const struct onnx_op onnx_ops[] = {
  { "Abs", op_abs, "", 0, 0 },
  { "Acos", op_acos, "", 0, 0 },
  { "Acosh", op_acosh, "", 0, 0 },
  { "Add", op_add, "", 1, 1 },
  { "And", op_and, "", 0, 1 },
  { "ArgMax", op_argmax, "axis keepdims select_last_index", 0, 0 },
  { "ArgMin", op_argmin, "axis keepdims select_last_index", 0, 0 },
  { "Asin", op_asin, "", 0, 0 },
  { "Asinh", op_asinh, "", 0, 0 },
  { "Atan", op_atan, "", 0, 0 },
  { "Atanh", op_atanh, "", 0, 0 },
  { "AveragePool", op_avgpool, "auto_pad ceil_mode count_include_pad kernel_shape pads strides", 1, 0 },
  { "BatchNormalization", op_batchnorm, "epsilon momentum spatial training_mode", 1, 0 },
  { "Bernoulli", op_bernoulli, "dtype seed", 0, 1 },
  { "BitShift", op_bit_shift, "direction", 0, 1 },
  { "BitwiseAnd", op_bitwise_and, "", 0, 1 },
  { "BitwiseNot", op_bitwise_not, "", 0, 1 },
  { "BitwiseOr", op_bitwise_or, "", 0, 1 },
  { "BitwiseXor", op_bitwise_xor, "", 0, 1 },
  { "Cast", op_cast, "to", 0, 1 },
  { "CastLike", op_cast_like, "", 0, 1 },
  { "Ceil", op_ceil, "", 0, 0 },
  { "Celu", op_celu, "alpha", 0, 0 },
  { "Clip", op_clip, "min max", 0, 0 },
  { "Concat", op_concat, "axis", 0, 1 },
  { "Constant", op_constant, "value value_float value_floats value_int value_ints", 0, 0 },
  { "ConstantOfShape", op_constant_of_shape, "value", 0, 0 },
  { "Conv", op_conv, "auto_pad dilations group kernel_shape pads strides", 1, 0 },
  { "ConvTranspose", op_conv_transpose, "auto_pad dilations group kernel_shape output_padding output_shape pads strides", 0, 0 },
  { "Cos", op_cos, "", 0, 0 },
  { "Cosh", op_cosh, "", 0, 0 },
  { "CumSum", op_cumsum, "exclusive reverse", 0, 0 },
  { "DFT", op_dft, "axis inverse onesided", 0, 1 },
  { "DepthToSpace", op_depth_to_space, "blocksize mode", 0, 1 },
  { "Div", op_div, "", 1, 1 },
  { "Dropout", op_dropout, "ratio seed", 0, 0 },
  { "Einsum", op_einsum, "equation", 0, 0 },
  { "Elu", op_elu, "alpha", 0, 0 },
  { "Equal", op_equal, "", 0, 1 },
  { "Erf", op_erf, "", 0, 0 },
  { "Exp", op_exp, "", 0, 0 },
  { "Expand", op_expand, "", 0, 1 },
  { "EyeLike", op_eye_like, "dtype k", 0, 0 },
  { "Flatten", op_flatten, "axis", 0, 1 },
  { "Floor", op_floor, "", 0, 0 },
  { "Gather", op_gather, "axis", 0, 1 },
  { "GatherElements", op_gather_elements, "axis", 0, 1 },
  { "GatherND", op_gather_nd, "batch_dims", 0, 1 },
  { "Gemm", op_gemm, "alpha beta transA transB", 1, 0 },
  { "GlobalAveragePool", op_gap, "", 1, 0 },
  { "GlobalLpPool", op_global_lp_pool, "p", 0, 0 },
  { "GlobalMaxPool", op_gmp, "", 1, 0 },
  { "Greater", op_greater, "", 0, 1 },
  { "GreaterOrEqual", op_greater_equal, "", 0, 1 },
  { "HardSigmoid", op_hard_sigmoid, "alpha beta", 0, 0 },
  { "HardSwish", op_hard_swish, "", 0, 0 },
  { "Identity", op_identity, "", 0, 1 },
  { "InstanceNormalization", op_instance_norm, "epsilon", 0, 0 },
  { "IsInf", op_is_inf, "detect_negative detect_positive", 0, 1 },
  { "IsNaN", op_is_nan, "", 0, 1 },
  { "LayerNormalization", op_layer_norm, "axis epsilon stash_type", 0, 0 },
  { "LeakyRelu", op_leaky_relu, "alpha", 0, 0 },
  { "Less", op_less, "", 0, 1 },
  { "LessOrEqual", op_less_equal, "", 0, 1 },
  { "Log", op_log, "", 0, 0 },
  { "LogSoftmax", op_log_softmax, "axis", 0, 0 },
  { "MatMul", op_matmul, "", 1, 0 },
  { "Max", op_max, "", 0, 1 },
  { "MaxPool", op_maxpool, "auto_pad ceil_mode dilations kernel_shape pads storage_order strides", 1, 0 },
  { "Mean", op_mean, "", 0, 0 },
  { "Min", op_min, "", 0, 1 },
  { "Mish", op_mish, "", 0, 0 },
  { "Mod", op_mod, "fmod", 0, 1 },
  { "Mul", op_mul, "", 1, 1 },
  { "Neg", op_neg, "", 1, 1 },
  { "Not", op_not, "", 0, 1 },
  { "Or", op_or, "", 0, 1 },
  { "PRelu", op_prelu, "", 0, 0 },
  { "Pad", op_pad, "mode pads value", 1, 1 },
  { "Pow", op_pow, "", 0, 1 },
  { "RandomNormal", op_random_normal, "dtype mean scale seed shape", 0, 1 },
  { "RandomNormalLike", op_random_normal_like, "dtype mean scale seed", 0, 1 },
  { "RandomUniform", op_random_uniform, "dtype high low seed shape", 0, 1 },
  { "RandomUniformLike", op_random_uniform_like, "dtype high low seed", 0, 1 },
  { "Range", op_range, "", 0, 0 },
  { "Reciprocal", op_reciprocal, "", 0, 0 },
  { "ReduceL1", op_reduce_l1, "axes keepdims", 0, 0 },
  { "ReduceL2", op_reduce_l2, "axes keepdims", 0, 0 },
  { "ReduceLogSum", op_reduce_log_sum, "axes keepdims", 0, 0 },
  { "ReduceLogSumExp", op_reduce_log_sum_exp, "axes keepdims", 0, 0 },
  { "ReduceMax", op_reduce_max, "axes keepdims", 1, 0 },
  { "ReduceMean", op_reduce_mean, "axes keepdims", 1, 0 },
  { "ReduceMin", op_reduce_min, "axes keepdims", 1, 0 },
  { "ReduceProd", op_reduce_prod, "axes keepdims", 1, 0 },
  { "ReduceSum", op_reduce_sum, "axes keepdims noop_with_empty_axes", 1, 0 },
  { "ReduceSumSquare", op_reduce_sum_square, "axes keepdims", 0, 0 },
  { "Relu", op_relu, "", 1, 0 },
  { "Reshape", op_reshape, "allowzero", 0, 1 },
  { "Round", op_round, "", 0, 0 },
  { "ScatterElements", op_scatter_elements, "axis reduction", 0, 1 },
  { "Selu", op_selu, "alpha gamma", 0, 0 },
  { "Shape", op_shape, "start end", 0, 1 },
  { "Shrink", op_shrink, "bias lambd", 0, 0 },
  { "Sigmoid", op_sigmoid, "", 0, 0 },
  { "Sign", op_sign, "", 0, 0 },
  { "Sin", op_sin, "", 0, 0 },
  { "Sinh", op_sinh, "", 0, 0 },
  { "Size", op_size, "", 0, 1 },
  { "Slice", op_slice, "starts ends axes", 0, 1 },
  { "Softmax", op_softmax, "axis", 0, 0 },
  { "Softplus", op_softplus, "", 0, 0 },
  { "Softsign", op_softsign, "", 0, 0 },
  { "SpaceToDepth", op_space_to_depth, "blocksize", 0, 1 },
  { "Split", op_split, "axis split", 0, 1 },
  { "Sqrt", op_sqrt, "", 0, 0 },
  { "Squeeze", op_squeeze, "axes", 0, 1 },
  { "Sub", op_sub, "", 1, 1 },
  { "Sum", op_sum, "", 0, 0 },
  { "Tan", op_tan, "", 0, 0 },
  { "Tanh", op_tanh, "", 0, 0 },
  { "Tile", op_tile, "", 0, 1 },
  { "TopK", op_topk, "axis k largest sorted", 0, 0 },
  { "Transpose", op_transpose, "perm", 0, 1 },
  { "Trilu", op_trilu, "upper", 0, 0 },
  { "Unsqueeze", op_unsqueeze, "axes", 0, 1 },
  { "Where", op_where, "", 0, 1 },
  { "Xor", op_xor, "", 0, 1 },
};

static const struct onnx_op *
find_op (const char *type)
{
  for (size_t k = 0; k < sizeof onnx_ops / sizeof onnx_ops[0]; k++)
    if (strcmp (onnx_ops[k].type, type) == 0)
      return &onnx_ops[k];
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

/* Evaluates the node NC (all inputs floating-point constants) on a scratch graph and defines
 * its outputs as constants: f32 when every input was f32 and every result entry is exactly an
 * f32 number, else f64 (the binary64 evaluation). */
static cn_status
fold_node (struct nctx *nc, const struct onnx_op *op)
{
  struct imp *imp = nc->imp;
  cn_graph *main = imp->g, *scratch = NULL;
  cn_tensor res[MAX_OUT];
  int outs[MAX_OUT], n_outs = 0, which[MAX_OUT];
  cn_status st;
  memset (res, 0, sizeof res);
  if ((st = cn_graph_create (&scratch, nc->err)) != CN_OK)
    return st;
  for (int k = 0; k < MAX_OUT; k++)
    nc->fold_gv[k] = -1;
  imp->g = scratch;
  imp->folding = 1;
  st = op->fn (nc);
  imp->g = main;
  imp->folding = 0;
  if (st != CN_OK)
    goto done;
  for (int k = 0; k < MAX_OUT; k++)
    if (nc->fold_gv[k] >= 0)
      {
        which[n_outs] = k;
        outs[n_outs++] = nc->fold_gv[k];
      }
  if (n_outs == 0)
    goto done;
  if ((st = cn_graph_set_outputs (scratch, n_outs, outs, nc->err)) != CN_OK
      || (st = cn_graph_eval (scratch, CN_DTYPE_F64, NULL, res, nc->err)) != CN_OK)
    goto done;
  /* The bounds hold for the network in exact arithmetic, so a folded constant must be the exact
   * value, not a rounding of it: each output is re-evaluated in MPFI and must be a point equal
   * to the binary64 result. */
  for (int j = 0; j < n_outs && st == CN_OK; j++)
    {
      cn_mpfi_vec exact = { 0, NULL };
      cn_error local;
      cn_error_clear (&local);
      if (cn_graph_set_outputs (scratch, 1, &outs[j], &local) != CN_OK
          || cn_mpfi_vec_init (&exact, cn_tensor_numel (&res[j]), 512, &local) != CN_OK
          || cn__graph_mpfi (scratch, NULL, 0, 512, &exact, &local) != CN_OK)
        {
          cn_mpfi_vec_clear (&exact);
          st = cn_error_set (nc->err, CN_EUNSUPPORTED, "cannot check that folding the constant inputs is exact: %s",
                             local.msg);
          break;
        }
      const double *d = res[j].data;
      for (int64_t i = 0; i < exact.n && st == CN_OK; i++)
        if (mpfr_cmp (&exact.v[i]->left, &exact.v[i]->right) != 0 || mpfr_cmp_d (&exact.v[i]->left, d[i]) != 0)
          st = cn_error_set (nc->err, CN_EUNSUPPORTED,
                             "folding the constant inputs would round (output %d, entry %lld); certnn bounds the "
                             "network in exact arithmetic and keeps no rounded constant",
                             which[j], (long long) i);
      cn_mpfi_vec_clear (&exact);
    }
  if (st != CN_OK)
    goto done;
  int all_f32 = 1;
  for (int i = 0; i < nc->n_in; i++)
    if (nc->in[i] != NULL)
      all_f32 &= nc->in[i]->c.dtype == CN_DTYPE_F32;
  for (int j = 0; j < n_outs && st == CN_OK; j++)
    {
      int64_t n = cn_tensor_numel (&res[j]);
      const double *d = res[j].data;
      int f32 = all_f32;
      for (int64_t i = 0; f32 && i < n; i++)
        f32 = (double) (float) d[i] == d[i];
      if (f32)
        {
          cn_tensor t;
          if ((st = cn_tensor_convert (&t, CN_DTYPE_F32, &res[j], nc->err)) == CN_OK)
            st = set_out_const (nc, which[j], &t);
        }
      else
        st = set_out_const (nc, which[j], &res[j]);
    }
done:
  for (int j = 0; j < MAX_OUT; j++)
    cn_tensor_clear (&res[j]);
  cn_graph_free (scratch);
  return st;
}

/* Imports node K of the ONNX graph. */
static cn_status
import_node (struct imp *imp, const Onnx__NodeProto *np, int k, cn_error *err)
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
  struct nctx nc;
  memset (&nc, 0, sizeof nc);
  nc.imp = imp;
  nc.np = np;
  nc.type = type;
  nc.name = name;
  nc.err = &local;
  nc.out_sort = CN_DTYPE_COUNT;
  cn_status st = CN_OK;
  const struct onnx_op *op = NULL;
  if (np->domain != NULL && np->domain[0] != '\0' && strcmp (np->domain, "ai.onnx") != 0)
    {
      st = cn_error_set (&local, CN_EUNSUPPORTED, "domain '%s' is not supported", np->domain);
      goto done;
    }
  if ((op = find_op (type)) == NULL)
    {
      st = cn_error_set (&local, CN_EUNSUPPORTED, "operator not supported");
      goto done;
    }
  for (size_t a = 0; a < np->n_attribute; a++)
    {
      const char *an = np->attribute[a]->name ? np->attribute[a]->name : "";
      if (!in_list (op->attrs, an))
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
      st = nomem (&nc);
      goto done;
    }
  int all_const = 1, all_float = 1, n_present = 0;
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
      if ((st = materialize (nc.in[i], &local)) != CN_OK)
        goto done;
      n_present++;
      all_const &= nc.in[i]->is_const;
      all_float &= !nc.in[i]->is_const || !is_int (&nc.in[i]->c);
      /* Boolean and integer values reach only the handlers that take them. */
      cn_dtype sort = nc.in[i]->is_const ? CN_DTYPE_F64 : cn_graph_value_dtype (imp->g, nc.in[i]->gv);
      if (!op->typed && !cn_dtype_is_float (sort))
        {
          st = cn_error_set (&local, CN_EUNSUPPORTED, "input %d ('%s') holds %s values; the operator takes "
                             "floating-point values only", i, np->input[i], sort_name (sort));
          goto done;
        }
    }
  nc.typed = op->typed;
  if (op->fold && all_const && all_float && n_present > 0)
    st = fold_node (&nc, op);
  else
    st = op->fn (&nc);
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
  *dt = onnx_sort (et);
  if (*dt == CN_DTYPE_COUNT)
    return cn_error_set (err, CN_EUNSUPPORTED, "onnx: graph input '%s' has element type %s; FLOAT, DOUBLE, BOOL and "
                         "the integer types are supported", nm, onnx_type_name (et));
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
                           fmt_shape (s, a, sizeof a), b);
    }
  return CN_OK;
}

static cn_status
import_model (const Onnx__ModelProto *m, cn_graph **out, cn_error *err)
{
  struct imp imp;
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
  if (imp.opset < OPSET_MIN || imp.opset > OPSET_MAX)
    return cn_error_set (err, CN_EUNSUPPORTED, "onnx: opset %lld of the default domain is not supported (%d to %d)",
                         (long long) imp.opset, OPSET_MIN, OPSET_MAX);

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
      const char *nm = tp->name ? tp->name : "";
      cn_tensor t;
      cn_error local;
      memset (&t, 0, sizeof t);
      cn_error_clear (&local);
      if ((st = define (&imp, nm, -1, &t, &local)) != CN_OK)
        {
          cn_error_set (err, st, "onnx: initializer: %s", local.msg);
          goto fail;
        }
      lookup (&imp, nm)->pending = tp;
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
          || (st = define (&imp, nm, v, NULL, &local)) != CN_OK)
        {
          cn_error_set (err, st, "onnx: graph input '%s': %s", nm, local.msg);
          goto fail;
        }
    }

  /* The nodes, in order (ONNX requires a topological order). */
  for (size_t k = 0; k < gp->n_node; k++)
    if ((st = import_node (&imp, gp->node[k], (int) k, err)) != CN_OK)
      goto fail;

  /* The outputs; a constant output enters the graph as a constant. */
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
      struct oval *o = lookup (&imp, nm);
      cn_error local;
      cn_error_clear (&local);
      if (o == NULL)
        {
          st = cn_error_set (err, CN_EPARSE, "onnx: graph output '%s' is not produced by any node", nm);
          goto fail;
        }
      if ((st = materialize (o, &local)) != CN_OK)
        {
          cn_error_set (err, st, "onnx: graph output '%s': %s", nm, local.msg);
          goto fail;
        }
      /* A constant output (integer ones in their ONNX sort). */
      if (o->is_const && o->gv < 0)
        {
          cn_tensor c;
          memset (&c, 0, sizeof c);
          st = is_int (&o->c) ? cn_tensor_convert (&c, o->sort, &o->c, &local) : CN_OK;
          if (st == CN_OK)
            st = cn_graph_add_constant (imp.g, nm, is_int (&o->c) ? &c : &o->c, &o->gv, &local);
          cn_tensor_clear (&c);
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
  /* Initializers no node used are still checked: a malformed file is refused. */
  for (int k = 0; k < imp.n_vals; k++)
    {
      cn_error local;
      cn_error_clear (&local);
      if ((st = materialize (imp.vals[k], &local)) != CN_OK)
        {
          cn_error_set (err, st, "onnx: unused initializer: %s", local.msg);
          goto fail;
        }
    }
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
