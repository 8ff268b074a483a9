/* SPDX-License-Identifier: MIT */
/* src/io/wire.c: the wire codec (certnn/wire.h states the format).
 *
 * The codec is table-driven and names no operator and no record.  The table gives every operator
 * the descriptor of the record its ops.def row names (cn__op_record, src/ops/ops_impl.h), made
 * from the record's one declaration in certnn/ops.h: its members in order, each with its JSON
 * name, kind, offset and constraints.  Encoding and decoding walk the same descriptor, and both
 * run the same checks (check_record, then check_instance), so that a record the encoder writes
 * decodes, and a record the decoder accepts encodes back to the same JSON.
 *
 * What holds after decode: every member of the record was present with its type, the record is
 * zero outside the members' carried parts (entries past a count, padding), the descriptor's ranges
 * hold, and for an operator with a rule the rule's port sorts, out_sort and check accepted the
 * instance.
 *
 * Decisions made here (the contracts leave them open):
 * - A flag member (an int the contract reads as a Boolean) is written true/false and must hold 0
 *   or 1 to be encoded; a record with keepdims = 2 is refused rather than silently normalised.
 * - A NaN is written "nan" whatever its sign and payload; it decodes to the default quiet NaN.
 * - An operator without a rule gets every check but the rule's (it has no check yet): at least
 *   one input, any sorts; custom's program must still have the instance's inputs (count, shapes)
 *   and an output.
 * - A graph node has one output (certnn/graph.h); a program's node records carry no output
 *   count. */
#include <config.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>
#include "ops/ops_impl.h"
#include "certnn/wire.h"

/* How deep custom programs may nest in one record (a program holding a custom node whose program
 * holds one, ...); a cycle of programs is refused at this depth instead of recursing forever. */
#define MAX_DEPTH 16

size_t
cn_wire_params_size (cn_op op)
{
  return cn_op_params_size (op);
}

/* ---- messages ------------------------------------------------------------------------- */

/* Records "wire: TAG: field 'NAME': <message>" with status ST. */
static cn_status
field_error (cn_error *err, cn_status st, const char *tag, const char *name, const char *fmt, ...)
#ifdef __GNUC__
  __attribute__ ((format (printf, 5, 6)))
#endif
  ;
static cn_status
field_error (cn_error *err, cn_status st, const char *tag, const char *name, const char *fmt, ...)
{
  char buf[CN_ERROR_MSG_SIZE];
  va_list ap;
  va_start (ap, fmt);
  vsnprintf (buf, sizeof buf, fmt, ap);
  va_end (ap);
  return cn_error_set (err, st, "wire: %s: field '%s': %s", tag, name, buf);
}

static cn_status
nomem (cn_error *err)
{
  return cn_error_set (err, CN_ENOMEM, "wire: out of memory");
}

/* Whether S (NULL: none, taken as "") is valid UTF-8: each character in its shortest form
 * (no overlong encodings), no surrogates (U+D800..U+DFFF), nothing above U+10FFFF. */
static int
utf8_valid (const char *s)
{
  const unsigned char *p = (const unsigned char *) (s != NULL ? s : "");
  while (*p)
    {
      unsigned c = *p++;
      int more;
      unsigned cp, min;
      if (c < 0x80)
        continue;
      else if ((c & 0xe0) == 0xc0)
        more = 1, cp = c & 0x1f, min = 0x80;
      else if ((c & 0xf0) == 0xe0)
        more = 2, cp = c & 0x0f, min = 0x800;
      else if ((c & 0xf8) == 0xf0)
        more = 3, cp = c & 0x07, min = 0x10000;
      else
        return 0;
      for (int k = 0; k < more; k++, p++)
        {
          if ((*p & 0xc0) != 0x80)
            return 0;
          cp = (cp << 6) | (*p & 0x3f);
        }
      if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
        return 0;
    }
  return 1;
}

/* The JSON type of V, for messages. */
static const char *
jtype (const json_t *v)
{
  switch (json_typeof (v))
    {
    case JSON_OBJECT: return "an object";
    case JSON_ARRAY: return "an array";
    case JSON_STRING: return "a string";
    case JSON_INTEGER: return "an integer";
    case JSON_REAL: return "a real";
    case JSON_TRUE:
    case JSON_FALSE: return "a Boolean";
    default: return "null";
    }
}

/* ---- record checks (shared by encode and decode) --------------------------------------- */

static int
rd_int (const unsigned char *p, size_t off)
{
  int v;
  memcpy (&v, p + off, sizeof v);
  return v;
}

static int64_t
rd_i64 (const unsigned char *p, size_t off)
{
  int64_t v;
  memcpy (&v, p + off, sizeof v);
  return v;
}

static double
rd_f64 (const unsigned char *p, size_t off)
{
  double v;
  memcpy (&v, p + off, sizeof v);
  return v;
}

/* Checks what the descriptor R says of the record P whatever the inputs: counts within their
 * arrays, ranges, flags 0 or 1, enumerations and sorts within their sets, finiteness, shapes, a
 * name's terminator, a program's presence.  Messages name TAG and the field. */
static cn_status
check_record (const char *tag, const struct cn__record *r, const unsigned char *p, cn_error *err)
{
  for (int i = 0; i < r->n; i++)
    {
      const struct cn__field *f = &r->f[i];
      switch (f->kind)
        {
        case CN__FIELD_INT:
        case CN__FIELD_COUNT:
          {
            int v = rd_int (p, f->off);
            if (v < f->min)
              return field_error (err, CN_EINVAL, tag, f->name, "%d is below %lld", v, f->min);
            if (f->kind == CN__FIELD_COUNT && v > f->cap)
              return field_error (err, CN_EINVAL, tag, f->name, "%d is above %d", v, f->cap);
            break;
          }
        case CN__FIELD_I64:
          {
            int64_t v = rd_i64 (p, f->off);
            if (v < f->min)
              return field_error (err, CN_EINVAL, tag, f->name, "%" PRId64 " is below %lld", v, f->min);
            break;
          }
        case CN__FIELD_INTS:
        case CN__FIELD_I64S:
          {
            int count = rd_int (p, f->count_off);
            if (count < 0 || count > f->cap)
              return field_error (err, CN_EINVAL, tag, f->name, "count %d outside 0..%d", count, f->cap);
            for (int j = 0; j < count; j++)
              {
                long long v = f->kind == CN__FIELD_INTS ? rd_int (p, f->off + (size_t) j * sizeof (int))
                                                : rd_i64 (p, f->off + (size_t) j * sizeof (int64_t));
                if (v < f->min)
                  return field_error (err, CN_EINVAL, tag, f->name, "entry %d is %lld, below %lld", j, v, f->min);
              }
            break;
          }
        case CN__FIELD_F64:
          {
            double v = rd_f64 (p, f->off);
            if (!isfinite (v))
              return field_error (err, CN_EINVAL, tag, f->name, "%s where a finite number is required",
                                  isnan (v) ? "NaN" : v > 0 ? "+inf" : "-inf");
            break;
          }
        case CN__FIELD_F64X:
        case CN__FIELD_AXES:
          break;
        case CN__FIELD_FLAG:
          {
            int v = rd_int (p, f->off);
            if (v != 0 && v != 1)
              return field_error (err, CN_EINVAL, tag, f->name, "%d is not a flag (0 or 1)", v);
            break;
          }
        case CN__FIELD_ENUM:
          {
            int v = rd_int (p, f->off);
            if (v < 0 || v >= f->n_names)
              return field_error (err, CN_EINVAL, tag, f->name, "%d is not one of the %d values", v, f->n_names);
            break;
          }
        case CN__FIELD_DTYPE:
          {
            int v = rd_int (p, f->off);
            if (v < 0 || v >= CN_DTYPE_COUNT)
              return field_error (err, CN_EINVAL, tag, f->name, "%d is not a sort", v);
            break;
          }
        case CN__FIELD_SHAPE:
          {
            cn_shape s;
            memcpy (&s, p + f->off, sizeof s);
            if (s.rank < 0 || s.rank > CN_MAX_RANK || cn_shape_numel (&s) < 0)
              return field_error (err, CN_EINVAL, tag, f->name, "not a shape (rank %d)", s.rank);
            break;
          }
        case CN__FIELD_NAME:
          if (memchr (p + f->off, 0, (size_t) f->cap) == NULL)
            return field_error (err, CN_EINVAL, tag, f->name, "not NUL-terminated within %d bytes", f->cap);
          /* JSON text is UTF-8: a name that is not is refused here, not taken by the encoder for
           * jansson running out of memory */
          if (!utf8_valid ((const char *) p + f->off))
            return field_error (err, CN_EINVAL, tag, f->name, "not valid UTF-8");
          break;
        case CN__FIELD_PROGRAM:
          {
            const void *g;
            memcpy (&g, p + f->off, sizeof g);
            if (g == NULL)
              return field_error (err, CN_EINVAL, tag, f->name, "no program");
            break;
          }
        }
    }
  return CN_OK;
}

static const char *
port_kind_name (cn_port_kind k)
{
  static const char *const s[] = {
    [CN_PORT_VALUE] = "value", [CN_PORT_FROZEN] = "frozen", [CN_PORT_DETACHED] = "detached",
    [CN_PORT_INDEX] = "index", [CN_PORT_BOOL] = "bool", [CN_PORT_INTEGER] = "integer", [CN_PORT_ANY] = "any",
    [CN_PORT_ELEMENT] = "element",
  };
  return (unsigned) k <= CN_PORT_ELEMENT ? s[k] : "?";
}

/* Checks the instance (OP, P, inputs) beyond its record: at least one input, valid shapes and
 * sorts; custom's program against the inputs; then, if OP has a rule, the input count, each sort
 * against its port, out_sort and the rule's check.  On success *CHECKED says whether the rule ran,
 * and then OUT_SHAPE and OUT_DTYPE hold the output's shape and sort. */
static cn_status
check_instance (cn_op op, const struct cn__record *r, const void *p, int n_in, const cn_shape *in_shape,
                const cn_dtype *in_dtype, int *checked, cn_shape *out_shape, cn_dtype *out_dtype, cn_error *err)
{
  const char *tag = cn_op_name (op);
  *checked = 0;
  if (n_in < 1)
    return cn_error_set (err, CN_EINVAL, "wire: %s: %d inputs, at least 1 expected", tag, n_in);
  for (int i = 0; i < n_in; i++)
    {
      if (in_shape[i].rank < 0 || in_shape[i].rank > CN_MAX_RANK || cn_shape_numel (&in_shape[i]) < 0)
        return cn_error_set (err, CN_EINVAL, "wire: %s: input %d: not a shape (rank %d)", tag, i, in_shape[i].rank);
      if ((unsigned) in_dtype[i] >= CN_DTYPE_COUNT)
        return cn_error_set (err, CN_EINVAL, "wire: %s: input %d: %d is not a sort", tag, i, (int) in_dtype[i]);
    }
  /* custom: the program's inputs are the node's inputs (count and shapes), and it has an output. */
  for (int i = 0; i < r->n; i++)
    if (r->f[i].kind == CN__FIELD_PROGRAM)
      {
        const cn_graph *g;
        memcpy (&g, (const unsigned char *) p + r->f[i].off, sizeof g);
        if (cn_graph_n_inputs (g) != n_in)
          return field_error (err, CN_EINVAL, tag, r->f[i].name, "the program has %d inputs, the operator %d",
                              cn_graph_n_inputs (g), n_in);
        for (int j = 0; j < n_in; j++)
          if (!cn_shape_equal (cn_graph_value_shape (g, cn_graph_input (g, j)), &in_shape[j]))
            {
              char a[128], b[128];
              cn_shape_format (cn_graph_value_shape (g, cn_graph_input (g, j)), a, sizeof a);
              cn_shape_format (&in_shape[j], b, sizeof b);
              return field_error (err, CN_EINVAL, tag, r->f[i].name, "program input %d has shape %s, input %d %s", j,
                                  a, j, b);
            }
        if (cn_graph_n_outputs (g) < 1)
          return field_error (err, CN_EINVAL, tag, r->f[i].name, "the program has no output");
      }
  const struct cn_op_rule *rule = cn__op_rule (op);
  if (rule == NULL)
    return CN_OK;
  if ((rule->n_in >= 0 && n_in != rule->n_in))
    return cn_error_set (err, CN_EINVAL, "wire: %s: %d inputs, the operator takes %d", tag, n_in, rule->n_in);
  for (int i = 0; i < n_in; i++)
    if (!cn__port_accepts (cn__port_kind (rule, i), in_dtype[i]))
      return cn_error_set (err, CN_EINVAL, "wire: %s: input %d: sort %s at a %s port", tag, i,
                           cn_dtype_name (in_dtype[i]), port_kind_name (cn__port_kind (rule, i)));
  const void *params = r->size > 0 ? p : NULL;
  cn_status st;
  cn_error local;
  cn_dtype osort = CN_DTYPE_F64;
  if (rule->out_sort != NULL)
    {
      cn_dtype stack_sorts[8], *sorts = n_in <= 8 ? stack_sorts : malloc ((size_t) n_in * sizeof *sorts);
      if (sorts == NULL)
        return nomem (err);
      for (int i = 0; i < n_in; i++)
        sorts[i] = cn_dtype_is_float (in_dtype[i]) && !(rule->flags & CN_RULE_SORTS_LITERAL) ? CN_DTYPE_F64
                                                                                                : in_dtype[i];
      cn_error_clear (&local);
      st = rule->out_sort (rule, params, n_in, sorts, &osort, &local);
      if (sorts != stack_sorts)
        free (sorts);
      if (st != CN_OK)
        return cn_error_set (err, st, "wire: %s: refused by the operator's sort check: %s", tag, local.msg);
    }
  if (cn_dtype_is_float (osort) && !(rule->flags & CN_RULE_SORTS_LITERAL))
    {
      /* The model's scalar, recorded as the graph builder records it: the first floating input's
       * sort (unless the rule declares it, as there). */
      osort = CN_DTYPE_F64;
      for (int i = 0; i < n_in; i++)
        if (cn_dtype_is_float (in_dtype[i]))
          {
            osort = in_dtype[i];
            break;
          }
    }
  const cn_shape *stack_ptrs[8], **ptrs = n_in <= 8 ? stack_ptrs : malloc ((size_t) n_in * sizeof *ptrs);
  if (ptrs == NULL)
    return nomem (err);
  for (int i = 0; i < n_in; i++)
    ptrs[i] = &in_shape[i];
  memset (out_shape, 0, sizeof *out_shape);
  cn_error_clear (&local);
  st = rule->check (rule, params, n_in, ptrs, out_shape, &local);
  if (ptrs != stack_ptrs)
    free (ptrs);
  if (st != CN_OK)
    return cn_error_set (err, st, "wire: %s: refused by the operator's check: %s", tag, local.msg);
  *out_dtype = osort;
  *checked = 1;
  return CN_OK;
}

/* ---- encoding ------------------------------------------------------------------------- */

/* Sets KEY of OBJ to V (taking V); -1 if V is NULL or the object cannot take it. */
static int
put (json_t *obj, const char *key, json_t *v)
{
  return v == NULL ? -1 : json_object_set_new (obj, key, v);
}

/* Appends V to ARR (taking V); -1 if V is NULL or the array cannot take it. */
static int
push (json_t *arr, json_t *v)
{
  return v == NULL ? -1 : json_array_append_new (arr, v);
}

static json_t *
enc_f64 (double x)
{
  if (isnan (x))
    return json_string ("nan");
  if (isinf (x))
    return json_string (x > 0 ? "inf" : "-inf");
  return json_real (x);
}

static json_t *
enc_shape (const cn_shape *s)
{
  json_t *a = json_array ();
  if (a == NULL)
    return NULL;
  for (int i = 0; i < s->rank; i++)
    if (push (a, json_integer (s->dim[i])) < 0)
      {
        json_decref (a);
        return NULL;
      }
  return a;
}

static cn_status encode_instance (cn_op op, const void *params, int n_in, const cn_shape *in_shape,
                                  const cn_dtype *in_dtype, int depth, json_t **out, cn_error *err);

/* Appends the hexadecimal words of T's elements to a new JSON string. */
static json_t *
enc_words (const cn_tensor *t)
{
  size_t w = cn_dtype_size (t->dtype);
  int64_t n = cn_tensor_numel (t);
  char *s = malloc ((size_t) n * 2 * w + 1);
  if (s == NULL)
    return NULL;
  const unsigned char *d = t->data;
  for (int64_t i = 0; i < n; i++)
    {
      uint64_t u = 0;
      switch (w)
        {
        case 1: { uint8_t v; memcpy (&v, d + i, 1); u = v; break; }
        case 2: { uint16_t v; memcpy (&v, d + 2 * i, 2); u = v; break; }
        case 4: { uint32_t v; memcpy (&v, d + 4 * i, 4); u = v; break; }
        default: { memcpy (&u, d + 8 * i, 8); break; }
        }
      /* now u holds element i's bit pattern; write it most significant digit first */
      for (size_t k = 0; k < 2 * w; k++)
        s[(size_t) i * 2 * w + k] = "0123456789abcdef"[(u >> (4 * (2 * w - 1 - k))) & 15];
    }
  s[(size_t) n * 2 * w] = 0;
  json_t *j = json_string (s);
  free (s);
  return j;
}

/* Encodes the program G (custom's field FIELD of TAG) as {"inputs", "constants", "nodes",
 * "outputs"}, values renumbered inputs first, then constants, then node outputs (all of a node's
 * outputs in order: the numbers the graph builder gives them when the program is decoded). */
static cn_status
encode_program (const char *tag, const char *field, const cn_graph *g, int depth, json_t **out, cn_error *err)
{
  int nv = cn_graph_n_values (g), ni = cn_graph_n_inputs (g), nn = cn_graph_n_nodes (g);
  cn_status st = CN_OK;
  json_t *o = NULL, *ins = NULL, *consts = NULL, *nodes = NULL, *outs = NULL;
  cn_shape *shapes = NULL;
  cn_dtype *sorts = NULL;
  int *num = malloc ((size_t) (nv > 0 ? nv : 1) * sizeof *num);
  if (num == NULL)
    return nomem (err);
  for (int v = 0; v < nv; v++)
    num[v] = -1;
  /* Number the values: inputs 0..ni-1, then constants, then node outputs, in order. */
  for (int i = 0; i < ni; i++)
    num[cn_graph_input (g, i)] = i;
  int nc = 0;
  for (int v = 0; v < nv; v++)
    if (cn_graph_value_constant (g, v) != NULL)
      num[v] = ni + nc++;
  /* (a node with several outputs numbers them in order, as the graph builder makes them) */
  for (int n = 0, next = ni + nc; n < nn; n++)
    for (int k = 0; k < cn_graph_node_n_outputs (g, n); k++)
      num[cn_graph_node_output (g, n, k)] = next++;
  for (int v = 0; v < nv; v++)
    if (num[v] < 0)
      {
        st = field_error (err, CN_EINVAL, tag, field, "program value %d is neither an input, a constant nor a "
                          "node's output", v);
        goto fail;
      }
  /* JSON text is UTF-8: a name that is not (as a fuzzed ONNX file's may be) is refused by name,
   * not mistaken for jansson running out of memory */
  for (int v = 0; v < nv; v++)
    if (!utf8_valid (cn_graph_value_name (g, v)))
      {
        st = field_error (err, CN_EINVAL, tag, field, "the name of program value %d is not valid UTF-8", v);
        goto fail;
      }
  for (int n = 0; n < nn; n++)
    if (!utf8_valid (cn_graph_node_name (g, n)))
      {
        st = field_error (err, CN_EINVAL, tag, field, "the name of node %d is not valid UTF-8", n);
        goto fail;
      }
  o = json_object ();
  ins = json_array ();
  consts = json_array ();
  nodes = json_array ();
  outs = json_array ();
  if (o == NULL || ins == NULL || consts == NULL || nodes == NULL || outs == NULL)
    goto nomem;
  for (int i = 0; i < ni; i++)
    {
      int v = cn_graph_input (g, i);
      json_t *e = json_object ();
      if (push (ins, e) < 0 || put (e, "name", json_string (cn_graph_value_name (g, v))) < 0
          || put (e, "sort", json_string (cn_dtype_name (cn_graph_value_dtype (g, v)))) < 0
          || put (e, "shape", enc_shape (cn_graph_value_shape (g, v))) < 0)
        goto nomem;
    }
  for (int v = 0; v < nv; v++)
    {
      const cn_tensor *t = cn_graph_value_constant (g, v);
      if (t == NULL)
        continue;
      json_t *e = json_object ();
      if (push (consts, e) < 0 || put (e, "name", json_string (cn_graph_value_name (g, v))) < 0
          || put (e, "sort", json_string (cn_dtype_name (t->dtype))) < 0 || put (e, "shape", enc_shape (&t->shape)) < 0
          || put (e, "words", enc_words (t)) < 0)
        goto nomem;
    }
  for (int n = 0; n < nn; n++)
    {
      int k = cn_graph_node_n_inputs (g, n);
      free (shapes);
      free (sorts);
      shapes = malloc ((size_t) (k > 0 ? k : 1) * sizeof *shapes);
      sorts = malloc ((size_t) (k > 0 ? k : 1) * sizeof *sorts);
      json_t *e = json_object (), *in = json_array (), *rec = NULL;
      if (push (nodes, e) < 0 || put (e, "name", json_string (cn_graph_node_name (g, n))) < 0 || in == NULL
          || shapes == NULL || sorts == NULL)
        {
          json_decref (in);
          goto nomem;
        }
      for (int i = 0; i < k; i++)
        {
          int v = cn_graph_node_input (g, n, i);
          shapes[i] = *cn_graph_value_shape (g, v);
          sorts[i] = cn_graph_value_dtype (g, v);
          if (push (in, json_integer (num[v])) < 0)
            {
              json_decref (in);
              goto nomem;
            }
        }
      cn_error local;
      cn_error_clear (&local);
      st = encode_instance (cn_graph_node_op (g, n), cn_graph_node_params (g, n), k, shapes, sorts, depth + 1, &rec,
                            &local);
      if (st != CN_OK)
        {
          json_decref (in);
          st = field_error (err, st, tag, field, "node %d ('%s'): %s", n, cn_graph_node_name (g, n), local.msg);
          goto fail;
        }
      if (put (e, "op", rec) < 0)
        {
          json_decref (in);
          goto nomem;
        }
      if (put (e, "in", in) < 0)
        goto nomem;
    }
  for (int i = 0; i < cn_graph_n_outputs (g); i++)
    if (push (outs, json_integer (num[cn_graph_output (g, i)])) < 0)
      goto nomem;
  if (put (o, "inputs", ins) < 0)
    {
      ins = NULL;
      goto nomem;
    }
  ins = NULL;
  if (put (o, "constants", consts) < 0)
    {
      consts = NULL;
      goto nomem;
    }
  consts = NULL;
  if (put (o, "nodes", nodes) < 0)
    {
      nodes = NULL;
      goto nomem;
    }
  nodes = NULL;
  if (put (o, "outputs", outs) < 0)
    {
      outs = NULL;
      goto nomem;
    }
  free (num);
  free (shapes);
  free (sorts);
  *out = o;
  return CN_OK;
nomem:
  st = nomem (err);
fail:
  free (num);
  free (shapes);
  free (sorts);
  json_decref (o);
  json_decref (ins);
  json_decref (consts);
  json_decref (nodes);
  json_decref (outs);
  return st;
}

/* The "fields" object of the record P of descriptor R. */
static cn_status
encode_fields (const char *tag, const struct cn__record *r, const unsigned char *p, int depth, json_t **out,
               cn_error *err)
{
  json_t *o = json_object ();
  cn_status st;
  if (o == NULL)
    return nomem (err);
  for (int i = 0; i < r->n; i++)
    {
      const struct cn__field *f = &r->f[i];
      json_t *v = NULL;
      switch (f->kind)
        {
        case CN__FIELD_INT:
        case CN__FIELD_COUNT:
          v = json_integer (rd_int (p, f->off));
          break;
        case CN__FIELD_I64:
          v = json_integer (rd_i64 (p, f->off));
          break;
        case CN__FIELD_INTS:
        case CN__FIELD_I64S:
          {
            int count = rd_int (p, f->count_off);
            v = json_array ();
            for (int j = 0; v != NULL && j < count; j++)
              {
                json_int_t e = f->kind == CN__FIELD_INTS ? rd_int (p, f->off + (size_t) j * sizeof (int))
                                                 : rd_i64 (p, f->off + (size_t) j * sizeof (int64_t));
                if (push (v, json_integer (e)) < 0)
                  {
                    json_decref (v);
                    v = NULL;
                  }
              }
            break;
          }
        case CN__FIELD_F64:
        case CN__FIELD_F64X:
          v = enc_f64 (rd_f64 (p, f->off));
          break;
        case CN__FIELD_FLAG:
          v = json_boolean (rd_int (p, f->off));
          break;
        case CN__FIELD_ENUM:
          v = json_string (f->names[rd_int (p, f->off)]);
          break;
        case CN__FIELD_DTYPE:
          v = json_string (cn_dtype_name ((cn_dtype) rd_int (p, f->off)));
          break;
        case CN__FIELD_SHAPE:
          {
            cn_shape s;
            memcpy (&s, p + f->off, sizeof s);
            v = enc_shape (&s);
            break;
          }
        case CN__FIELD_AXES:
          {
            uint32_t m;
            memcpy (&m, p + f->off, sizeof m);
            v = json_array ();
            for (int a = 0; v != NULL && a < 32; a++)
              if (((m >> a) & 1u) && push (v, json_integer (a)) < 0)
                {
                  json_decref (v);
                  v = NULL;
                }
            break;
          }
        case CN__FIELD_NAME:
          v = json_string ((const char *) p + f->off);
          break;
        case CN__FIELD_PROGRAM:
          {
            const cn_graph *g;
            memcpy (&g, p + f->off, sizeof g);
            if ((st = encode_program (tag, f->name, g, depth, &v, err)) != CN_OK)
              {
                json_decref (o);
                return st;
              }
            break;
          }
        }
      if (put (o, f->name, v) < 0)
        {
          json_decref (o);
          return nomem (err);
        }
    }
  *out = o;
  return CN_OK;
}

static cn_status
encode_instance (cn_op op, const void *params, int n_in, const cn_shape *in_shape, const cn_dtype *in_dtype,
                 int depth, json_t **out, cn_error *err)
{
  *out = NULL;
  if ((unsigned) op >= CN_OP_COUNT)
    return cn_error_set (err, CN_EINVAL, "wire: invalid operator %d", (int) op);
  const char *tag = cn_op_name (op);
  const struct cn__record *r = cn__op_record (op);
  if (depth > MAX_DEPTH)
    return cn_error_set (err, CN_EINVAL, "wire: %s: programs nested deeper than %d", tag, MAX_DEPTH);
  if (r->size > 0 && params == NULL)
    return cn_error_set (err, CN_EINVAL, "wire: %s: no attribute record (%s)", tag, r->type);
  if (n_in < 1 || in_shape == NULL)
    return cn_error_set (err, CN_EINVAL, "wire: %s: %d inputs, at least 1 expected", tag, n_in);
  cn_status st;
  cn_dtype *sorts = NULL;
  json_t *o = NULL, *ins = NULL, *fields = NULL;
  if (in_dtype == NULL)
    {
      /* all the model's scalar */
      sorts = calloc ((size_t) n_in, sizeof *sorts);
      if (sorts == NULL)
        return nomem (err);
      in_dtype = sorts;
    }
  int checked;
  cn_shape oshape;
  cn_dtype osort;
  if ((st = check_record (tag, r, params, err)) != CN_OK
      || (st = check_instance (op, r, params, n_in, in_shape, in_dtype, &checked, &oshape, &osort, err)) != CN_OK)
    goto fail;
  /* now the instance is one that decoding accepts */
  if ((st = encode_fields (tag, r, params, depth, &fields, err)) != CN_OK)
    goto fail;
  o = json_object ();
  ins = json_array ();
  if (o == NULL || ins == NULL)
    goto nomem;
  for (int i = 0; i < n_in; i++)
    {
      json_t *e = json_object ();
      if (push (ins, e) < 0 || put (e, "sort", json_string (cn_dtype_name (in_dtype[i]))) < 0
          || put (e, "shape", enc_shape (&in_shape[i])) < 0)
        goto nomem;
    }
  if (put (o, "version", json_integer (CN_WIRE_VERSION)) < 0 || put (o, "tag", json_string (tag)) < 0)
    goto nomem;
  st = put (o, "inputs", ins) < 0 ? CN_ENOMEM : CN_OK;
  ins = NULL;
  if (st != CN_OK)
    goto nomem;
  st = put (o, "fields", fields) < 0 ? CN_ENOMEM : CN_OK;
  fields = NULL;
  if (st != CN_OK)
    goto nomem;
  free (sorts);
  *out = o;
  return CN_OK;
nomem:
  st = nomem (err);
fail:
  free (sorts);
  json_decref (o);
  json_decref (ins);
  json_decref (fields);
  return st;
}

cn_status
cn_wire_encode (cn_op op, const void *params, int n_in, const cn_shape *in_shape, const cn_dtype *in_dtype,
                struct json_t **out, cn_error *err)
{
  return encode_instance (op, params, n_in, in_shape, in_dtype, 0, out, err);
}

cn_status
cn_wire_encode_node (const cn_graph *g, int node, struct json_t **out, cn_error *err)
{
  *out = NULL;
  if (g == NULL || node < 0 || node >= cn_graph_n_nodes (g))
    return cn_error_set (err, CN_EINVAL, "wire: no node %d in the graph", node);
  int k = cn_graph_node_n_inputs (g, node);
  cn_shape *shapes = malloc ((size_t) (k > 0 ? k : 1) * sizeof *shapes);
  cn_dtype *sorts = malloc ((size_t) (k > 0 ? k : 1) * sizeof *sorts);
  cn_status st;
  if (shapes == NULL || sorts == NULL)
    st = nomem (err);
  else
    {
      for (int i = 0; i < k; i++)
        {
          int v = cn_graph_node_input (g, node, i);
          shapes[i] = *cn_graph_value_shape (g, v);
          sorts[i] = cn_graph_value_dtype (g, v);
        }
      st = encode_instance (cn_graph_node_op (g, node), cn_graph_node_params (g, node), k, shapes, sorts, 0, out, err);
    }
  free (shapes);
  free (sorts);
  return st;
}

cn_status
cn_wire_encode_string (cn_op op, const void *params, int n_in, const cn_shape *in_shape, const cn_dtype *in_dtype,
                       char **out, cn_error *err)
{
  json_t *j;
  *out = NULL;
  cn_status st = cn_wire_encode (op, params, n_in, in_shape, in_dtype, &j, err);
  if (st != CN_OK)
    return st;
  /* 17 significant digits: every double reads back exactly. */
  *out = json_dumps (j, JSON_REAL_PRECISION (17));
  json_decref (j);
  return *out == NULL ? nomem (err) : CN_OK;
}

/* ---- decoding ------------------------------------------------------------------------- */

/* Checks that OBJ has no member outside NAMES[0..N-1]; the message names WHERE ("wire: softmax:
 * fields", ...). */
static cn_status
only_members (const json_t *obj, const char *const *names, int n, const char *where, cn_error *err)
{
  const char *key;
  json_t *v;
  json_object_foreach ((json_t *) obj, key, v)
    {
      int known = 0;
      for (int i = 0; i < n && !known; i++)
        known = strcmp (key, names[i]) == 0;
      if (!known)
        return cn_error_set (err, CN_EPARSE, "%s: unknown member '%s'", where, key);
    }
  return CN_OK;
}

/* Member KEY of the object OBJ, or NULL with an error naming WHERE. */
static const json_t *
member (const json_t *obj, const char *key, const char *where, cn_error *err)
{
  const json_t *v = json_object_get (obj, key);
  if (v == NULL)
    cn_error_set (err, CN_EPARSE, "%s: missing member '%s'", where, key);
  return v;
}

static int
dtype_of (const char *s, cn_dtype *t)
{
  for (int i = 0; i < CN_DTYPE_COUNT; i++)
    if (strcmp (s, cn_dtype_name ((cn_dtype) i)) == 0)
      {
        *t = (cn_dtype) i;
        return 1;
      }
  return 0;
}

/* Reads a sort name; the message is "WHERE: ...". */
static cn_status
dec_dtype (const json_t *v, const char *where, cn_dtype *t, cn_error *err)
{
  if (!json_is_string (v))
    return cn_error_set (err, CN_EPARSE, "%s: %s where a sort name is expected", where, jtype (v));
  if (!dtype_of (json_string_value (v), t))
    return cn_error_set (err, CN_EPARSE, "%s: unknown sort '%s'", where, json_string_value (v));
  return CN_OK;
}

/* Reads a shape, the list of at most CN_MAX_RANK extents >= 0 whose product fits in int64_t. */
static cn_status
dec_shape (const json_t *v, const char *where, cn_shape *s, cn_error *err)
{
  memset (s, 0, sizeof *s);
  if (!json_is_array (v))
    return cn_error_set (err, CN_EPARSE, "%s: %s where a shape (a list of extents) is expected", where, jtype (v));
  size_t n = json_array_size (v);
  if (n > CN_MAX_RANK)
    return cn_error_set (err, CN_EINVAL, "%s: rank %zu above %d", where, n, CN_MAX_RANK);
  for (size_t i = 0; i < n; i++)
    {
      const json_t *e = json_array_get (v, i);
      if (!json_is_integer (e))
        return cn_error_set (err, CN_EPARSE, "%s: extent %zu is %s, not an integer", where, i, jtype (e));
      if (json_integer_value (e) < 0)
        return cn_error_set (err, CN_EINVAL, "%s: extent %zu is %" JSON_INTEGER_FORMAT ", negative", where, i,
                             json_integer_value (e));
      s->dim[i] = json_integer_value (e);
    }
  s->rank = (int) n;
  if (cn_shape_numel (s) < 0)
    return cn_error_set (err, CN_EINVAL, "%s: too many elements", where);
  return CN_OK;
}

/* Reads an integer in [LO, HI]. */
static cn_status
dec_integer (const json_t *v, long long lo, long long hi, const char *tag, const char *name, long long *x,
             cn_error *err)
{
  if (!json_is_integer (v))
    return field_error (err, CN_EPARSE, tag, name, "%s where an integer is expected", jtype (v));
  json_int_t i = json_integer_value (v);
  if (i < lo || i > hi)
    return field_error (err, CN_EINVAL, tag, name, "%" JSON_INTEGER_FORMAT " outside %lld..%lld", i, lo, hi);
  *x = i;
  return CN_OK;
}

static cn_status decode_instance (const json_t *j, int depth, cn_wire_op *owner, cn_wire_op *out, cn_error *err);

/* Appends G to the graphs OWNER owns; on failure frees G. */
static cn_status
own_graph (cn_wire_op *owner, cn_graph *g, cn_error *err)
{
  cn_graph **a = realloc (owner->graphs, (size_t) (owner->n_graphs + 1) * sizeof *a);
  if (a == NULL)
    {
      cn_graph_free (g);
      return nomem (err);
    }
  owner->graphs = a;
  owner->graphs[owner->n_graphs++] = g;
  return CN_OK;
}

static int
hexval (char c)
{
  return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* Reads the words of T (initialised with its sort and shape) from the string V; WHERE names the
 * constant. */
static cn_status
dec_words (const json_t *v, const char *where, cn_tensor *t, cn_error *err)
{
  if (!json_is_string (v))
    return cn_error_set (err, CN_EPARSE, "%s: member 'words' is %s, not a string", where, jtype (v));
  size_t w = cn_dtype_size (t->dtype);
  int64_t n = cn_tensor_numel (t);
  const char *s = json_string_value (v);
  if (json_string_length (v) != (size_t) n * 2 * w)
    return cn_error_set (err, CN_EINVAL, "%s: member 'words' has %zu digits, %lld elements of %s take %lld", where,
                         json_string_length (v), (long long) n, cn_dtype_name (t->dtype), (long long) (n * 2 * (int64_t) w));
  unsigned char *d = t->data;
  for (int64_t i = 0; i < n; i++)
    {
      uint64_t u = 0;
      for (size_t k = 0; k < 2 * w; k++)
        {
          int h = hexval (s[(size_t) i * 2 * w + k]);
          if (h < 0)
            return cn_error_set (err, CN_EPARSE, "%s: member 'words': element %lld is not hexadecimal", where,
                                 (long long) i);
          u = u << 4 | (uint64_t) h;
        }
      /* now u is element i's bit pattern */
      if (t->dtype == CN_DTYPE_BOOL && u > 1)
        return cn_error_set (err, CN_EINVAL, "%s: member 'words': Boolean element %lld is %u, not 0 or 1", where,
                             (long long) i, (unsigned) u);
      switch (w)
        {
        case 1: { uint8_t x = (uint8_t) u; memcpy (d + i, &x, 1); break; }
        case 2: { uint16_t x = (uint16_t) u; memcpy (d + 2 * i, &x, 2); break; }
        case 4: { uint32_t x = (uint32_t) u; memcpy (d + 4 * i, &x, 4); break; }
        default: memcpy (d + 8 * i, &u, 8); break;
        }
    }
  return CN_OK;
}

/* Reads a value number below NV. */
static cn_status
dec_value_ref (const json_t *v, int nv, const char *where, int *x, cn_error *err)
{
  if (!json_is_integer (v))
    return cn_error_set (err, CN_EPARSE, "%s: %s where a value number is expected", where, jtype (v));
  json_int_t i = json_integer_value (v);
  if (i < 0 || i >= nv)
    return cn_error_set (err, CN_EINVAL, "%s: value %" JSON_INTEGER_FORMAT " is not defined before (%d values)", where,
                         i, nv);
  *x = (int) i;
  return CN_OK;
}

/* Decodes custom's program J into a new graph owned by OWNER (*G borrows it). */
static cn_status
decode_program (const char *tag, const char *field, const json_t *j, int depth, cn_wire_op *owner,
                const cn_graph **gout, cn_error *err)
{
  static const char *const prog_members[] = { "inputs", "constants", "nodes", "outputs" };
  static const char *const in_members[] = { "name", "sort", "shape" };
  static const char *const c_members[] = { "name", "sort", "shape", "words" };
  static const char *const n_members[] = { "name", "op", "in" };
  char where[160];
  cn_graph *g = NULL;
  cn_status st;
  cn_error local;
  snprintf (where, sizeof where, "wire: %s: field '%s'", tag, field);
  if (!json_is_object (j))
    return cn_error_set (err, CN_EPARSE, "%s: %s where a program object is expected", where, jtype (j));
  if ((st = only_members (j, prog_members, 4, where, err)) != CN_OK)
    return st;
  const json_t *ins, *consts, *nodes, *outs;
  if ((ins = member (j, "inputs", where, err)) == NULL || (consts = member (j, "constants", where, err)) == NULL
      || (nodes = member (j, "nodes", where, err)) == NULL || (outs = member (j, "outputs", where, err)) == NULL)
    return CN_EPARSE;
  if (!json_is_array (ins) || !json_is_array (consts) || !json_is_array (nodes) || !json_is_array (outs))
    return cn_error_set (err, CN_EPARSE, "%s: the members 'inputs', 'constants', 'nodes', 'outputs' must be arrays",
                         where);
  if (depth >= MAX_DEPTH)
    return cn_error_set (err, CN_EINVAL, "%s: programs nested deeper than %d", where, MAX_DEPTH);
  if ((st = cn_graph_create (&g, err)) != CN_OK)
    return st;
  if ((st = own_graph (owner, g, err)) != CN_OK)
    return st;
  /* now G is freed with OWNER whatever happens below */
  char w2[224];
  for (size_t i = 0; i < json_array_size (ins); i++)
    {
      const json_t *e = json_array_get (ins, i), *name, *sort, *shape;
      cn_dtype t;
      cn_shape s;
      int v;
      snprintf (w2, sizeof w2, "%s: program input %zu", where, i);
      if (!json_is_object (e))
        return cn_error_set (err, CN_EPARSE, "%s: %s where an object is expected", w2, jtype (e));
      if ((st = only_members (e, in_members, 3, w2, err)) != CN_OK)
        return st;
      if ((name = member (e, "name", w2, err)) == NULL || (sort = member (e, "sort", w2, err)) == NULL
          || (shape = member (e, "shape", w2, err)) == NULL)
        return CN_EPARSE;
      if (!json_is_string (name))
        return cn_error_set (err, CN_EPARSE, "%s: member 'name' is %s, not a string", w2, jtype (name));
      if ((st = dec_dtype (sort, w2, &t, err)) != CN_OK || (st = dec_shape (shape, w2, &s, err)) != CN_OK)
        return st;
      cn_error_clear (&local);
      if ((st = cn_graph_add_input (g, json_string_value (name), t, &s, &v, &local)) != CN_OK)
        return cn_error_set (err, st, "%s: %s", w2, local.msg);
    }
  for (size_t i = 0; i < json_array_size (consts); i++)
    {
      const json_t *e = json_array_get (consts, i), *name, *sort, *shape, *words;
      cn_tensor t;
      cn_dtype dt;
      cn_shape s;
      int v;
      snprintf (w2, sizeof w2, "%s: program constant %zu", where, i);
      if (!json_is_object (e))
        return cn_error_set (err, CN_EPARSE, "%s: %s where an object is expected", w2, jtype (e));
      if ((st = only_members (e, c_members, 4, w2, err)) != CN_OK)
        return st;
      if ((name = member (e, "name", w2, err)) == NULL || (sort = member (e, "sort", w2, err)) == NULL
          || (shape = member (e, "shape", w2, err)) == NULL || (words = member (e, "words", w2, err)) == NULL)
        return CN_EPARSE;
      if (!json_is_string (name))
        return cn_error_set (err, CN_EPARSE, "%s: member 'name' is %s, not a string", w2, jtype (name));
      if ((st = dec_dtype (sort, w2, &dt, err)) != CN_OK || (st = dec_shape (shape, w2, &s, err)) != CN_OK)
        return st;
      /* The string holds 2 digits per byte, so a shape too large for memory is refused before allocating. */
      if (json_is_string (words) && (uint64_t) cn_shape_numel (&s) > json_string_length (words))
        return cn_error_set (err, CN_EINVAL, "%s: member 'words' has %zu digits, too few for shape of %lld elements",
                             w2, json_string_length (words), (long long) cn_shape_numel (&s));
      cn_error_clear (&local);
      if ((st = cn_tensor_init (&t, dt, &s, &local)) != CN_OK)
        return cn_error_set (err, st, "%s: %s", w2, local.msg);
      st = dec_words (words, w2, &t, err);
      if (st == CN_OK)
        {
          cn_error_clear (&local);
          if ((st = cn_graph_add_constant (g, json_string_value (name), &t, &v, &local)) != CN_OK)
            cn_error_set (err, st, "%s: %s", w2, local.msg);
        }
      cn_tensor_clear (&t);
      if (st != CN_OK)
        return st;
    }
  for (size_t i = 0; i < json_array_size (nodes); i++)
    {
      const json_t *e = json_array_get (nodes, i), *name, *op, *in;
      snprintf (w2, sizeof w2, "%s: program node %zu", where, i);
      if (!json_is_object (e))
        return cn_error_set (err, CN_EPARSE, "%s: %s where an object is expected", w2, jtype (e));
      if ((st = only_members (e, n_members, 3, w2, err)) != CN_OK)
        return st;
      if ((name = member (e, "name", w2, err)) == NULL || (op = member (e, "op", w2, err)) == NULL
          || (in = member (e, "in", w2, err)) == NULL)
        return CN_EPARSE;
      if (!json_is_string (name))
        return cn_error_set (err, CN_EPARSE, "%s: member 'name' is %s, not a string", w2, jtype (name));
      if (!json_is_array (in))
        return cn_error_set (err, CN_EPARSE, "%s: member 'in' is %s, not an array", w2, jtype (in));
      cn_wire_op sub;
      memset (&sub, 0, sizeof sub);
      cn_error_clear (&local);
      if ((st = decode_instance (op, depth + 1, owner, &sub, &local)) != CN_OK)
        {
          cn_wire_op_clear (&sub);
          return cn_error_set (err, st, "%s ('%s'): %s", w2, json_string_value (name), local.msg);
        }
      /* now SUB is a checked instance; its inputs must be the values the node reads */
      int *vals = malloc ((size_t) sub.n_in * sizeof *vals);
      if (vals == NULL)
        {
          cn_wire_op_clear (&sub);
          return nomem (err);
        }
      if (json_array_size (in) != (size_t) sub.n_in)
        st = cn_error_set (err, CN_EINVAL, "%s: member 'in' lists %zu values, the record %d inputs", w2,
                           json_array_size (in), sub.n_in);
      for (int k = 0; st == CN_OK && k < sub.n_in; k++)
        {
          st = dec_value_ref (json_array_get (in, (size_t) k), cn_graph_n_values (g), w2, &vals[k], err);
          if (st == CN_OK && (!cn_shape_equal (cn_graph_value_shape (g, vals[k]), &sub.in_shape[k])
                              || cn_graph_value_dtype (g, vals[k]) != sub.in_dtype[k]))
            {
              char a[128], b[128];
              cn_shape_format (cn_graph_value_shape (g, vals[k]), a, sizeof a);
              cn_shape_format (&sub.in_shape[k], b, sizeof b);
              st = cn_error_set (err, CN_EINVAL, "%s: value %d is %s %s, the record's input %d %s %s", w2, vals[k],
                                 cn_dtype_name (cn_graph_value_dtype (g, vals[k])), a, k,
                                 cn_dtype_name (sub.in_dtype[k]), b);
            }
        }
      if (st == CN_OK)
        {
          int outv;
          cn_error_clear (&local);
          st = cn_graph_add_node (g, sub.op, sub.params, sub.n_in, vals, json_string_value (name), &outv, &local);
          if (st != CN_OK)
            cn_error_set (err, st, "%s: %s", w2, local.msg);
        }
      free (vals);
      cn_wire_op_clear (&sub);
      if (st != CN_OK)
        return st;
    }
  int no = (int) json_array_size (outs);
  int *ov = malloc ((size_t) (no > 0 ? no : 1) * sizeof *ov);
  if (ov == NULL)
    return nomem (err);
  st = CN_OK;
  snprintf (w2, sizeof w2, "%s: program outputs", where);
  for (int i = 0; st == CN_OK && i < no; i++)
    st = dec_value_ref (json_array_get (outs, (size_t) i), cn_graph_n_values (g), w2, &ov[i], err);
  if (st == CN_OK)
    {
      cn_error_clear (&local);
      if ((st = cn_graph_set_outputs (g, no, ov, &local)) != CN_OK)
        cn_error_set (err, st, "%s: %s", w2, local.msg);
    }
  free (ov);
  if (st == CN_OK)
    *gout = g;
  return st;
}

/* Reads field F of TAG's record from V into the record P (zeroed; the fields before F read). */
static cn_status
decode_field (const char *tag, const struct cn__field *f, const json_t *v, unsigned char *p, int depth,
              cn_wire_op *owner, cn_error *err)
{
  cn_status st;
  long long x;
  switch (f->kind)
    {
    case CN__FIELD_INT:
    case CN__FIELD_COUNT:
      {
        int count = f->kind == CN__FIELD_COUNT;
        if ((st = dec_integer (v, count ? f->min : INT_MIN, count ? f->cap : INT_MAX, tag, f->name, &x, err)) != CN_OK)
          return st;
        int i = (int) x;
        memcpy (p + f->off, &i, sizeof i);
        return CN_OK;
      }
    case CN__FIELD_I64:
      {
        if ((st = dec_integer (v, INT64_MIN, INT64_MAX, tag, f->name, &x, err)) != CN_OK)
          return st;
        int64_t i = x;
        memcpy (p + f->off, &i, sizeof i);
        return CN_OK;
      }
    case CN__FIELD_INTS:
    case CN__FIELD_I64S:
      {
        int count = rd_int (p, f->count_off);
        if (!json_is_array (v))
          return field_error (err, CN_EPARSE, tag, f->name, "%s where a list is expected", jtype (v));
        if (count < 0 || count > f->cap || json_array_size (v) != (size_t) count)
          return field_error (err, CN_EINVAL, tag, f->name, "%zu entries where the count says %d", json_array_size (v),
                              count);
        for (int j = 0; j < count; j++)
          {
            const json_t *e = json_array_get (v, (size_t) j);
            if (!json_is_integer (e))
              return field_error (err, CN_EPARSE, tag, f->name, "entry %d is %s, not an integer", j, jtype (e));
            json_int_t i = json_integer_value (e);
            if (f->kind == CN__FIELD_INTS)
              {
                if (i < INT_MIN || i > INT_MAX)
                  return field_error (err, CN_EINVAL, tag, f->name, "entry %d (%" JSON_INTEGER_FORMAT ") is not an int",
                                      j, i);
                int e32 = (int) i;
                memcpy (p + f->off + (size_t) j * sizeof e32, &e32, sizeof e32);
              }
            else
              {
                int64_t e64 = i;
                memcpy (p + f->off + (size_t) j * sizeof e64, &e64, sizeof e64);
              }
          }
        return CN_OK;
      }
    case CN__FIELD_F64:
    case CN__FIELD_F64X:
      {
        double d;
        if (json_is_real (v))
          d = json_real_value (v);
        else if (json_is_integer (v))
          {
            json_int_t i = json_integer_value (v);
            if (i > (json_int_t) 1 << 53 || i < -((json_int_t) 1 << 53))
              return field_error (err, CN_EINVAL, tag, f->name, "the integer %" JSON_INTEGER_FORMAT " is not exact "
                                  "in binary64", i);
            d = (double) i;
          }
        else if (json_is_string (v) && strcmp (json_string_value (v), "inf") == 0)
          d = INFINITY;
        else if (json_is_string (v) && strcmp (json_string_value (v), "-inf") == 0)
          d = -INFINITY;
        else if (json_is_string (v) && strcmp (json_string_value (v), "nan") == 0)
          d = NAN;
        else
          return field_error (err, CN_EPARSE, tag, f->name, "%s where a number (or \"inf\", \"-inf\", \"nan\") is "
                              "expected", jtype (v));
        memcpy (p + f->off, &d, sizeof d);
        return CN_OK;
      }
    case CN__FIELD_FLAG:
      {
        if (!json_is_boolean (v))
          return field_error (err, CN_EPARSE, tag, f->name, "%s where true or false is expected", jtype (v));
        int i = json_is_true (v);
        memcpy (p + f->off, &i, sizeof i);
        return CN_OK;
      }
    case CN__FIELD_ENUM:
      {
        if (!json_is_string (v))
          return field_error (err, CN_EPARSE, tag, f->name, "%s where a name is expected", jtype (v));
        for (int i = 0; i < f->n_names; i++)
          if (strcmp (json_string_value (v), f->names[i]) == 0)
            {
              memcpy (p + f->off, &i, sizeof i);
              return CN_OK;
            }
        char set[160] = "";
        for (int i = 0; i < f->n_names; i++)
          {
            size_t l = strlen (set);
            snprintf (set + l, sizeof set - l, "%s\"%s\"", i ? ", " : "", f->names[i]);
          }
        return field_error (err, CN_EPARSE, tag, f->name, "\"%s\" is not one of %s", json_string_value (v), set);
      }
    case CN__FIELD_DTYPE:
      {
        cn_dtype t;
        if (!json_is_string (v))
          return field_error (err, CN_EPARSE, tag, f->name, "%s where a sort name is expected", jtype (v));
        if (!dtype_of (json_string_value (v), &t))
          return field_error (err, CN_EPARSE, tag, f->name, "unknown sort \"%s\"", json_string_value (v));
        int i = (int) t;
        memcpy (p + f->off, &i, sizeof i);
        return CN_OK;
      }
    case CN__FIELD_SHAPE:
      {
        char where[160];
        cn_shape s;
        snprintf (where, sizeof where, "wire: %s: field '%s'", tag, f->name);
        if ((st = dec_shape (v, where, &s, err)) != CN_OK)
          return st;
        memcpy (p + f->off, &s, sizeof s);
        return CN_OK;
      }
    case CN__FIELD_AXES:
      {
        uint32_t m = 0;
        if (!json_is_array (v))
          return field_error (err, CN_EPARSE, tag, f->name, "%s where a list of axes is expected", jtype (v));
        for (size_t j = 0; j < json_array_size (v); j++)
          {
            const json_t *e = json_array_get (v, j);
            if (!json_is_integer (e))
              return field_error (err, CN_EPARSE, tag, f->name, "entry %zu is %s, not an axis", j, jtype (e));
            json_int_t a = json_integer_value (e);
            if (a < 0 || a > 31)
              return field_error (err, CN_EINVAL, tag, f->name, "axis %" JSON_INTEGER_FORMAT " outside 0..31", a);
            if ((m >> a) & 1u)
              return field_error (err, CN_EINVAL, tag, f->name, "axis %" JSON_INTEGER_FORMAT " repeated", a);
            m |= 1u << a;
          }
        memcpy (p + f->off, &m, sizeof m);
        return CN_OK;
      }
    case CN__FIELD_NAME:
      {
        if (!json_is_string (v))
          return field_error (err, CN_EPARSE, tag, f->name, "%s where a string is expected", jtype (v));
        size_t len = json_string_length (v);
        if (len >= (size_t) f->cap || strlen (json_string_value (v)) != len)
          return field_error (err, CN_EINVAL, tag, f->name, "a string of %zu bytes (at most %d, no NUL)", len,
                              f->cap - 1);
        memcpy (p + f->off, json_string_value (v), len + 1);
        return CN_OK;
      }
    case CN__FIELD_PROGRAM:
      {
        const cn_graph *g = NULL;
        if ((st = decode_program (tag, f->name, v, depth, owner, &g, err)) != CN_OK)
          return st;
        memcpy (p + f->off, &g, sizeof g);
        return CN_OK;
      }
    }
  return CN_OK;
}

/* Decodes the record J into OUT (zeroed), the program graphs going to OWNER (which may be OUT). */
static cn_status
decode_instance (const json_t *j, int depth, cn_wire_op *owner, cn_wire_op *out, cn_error *err)
{
  static const char *const top_members[] = { "version", "tag", "inputs", "fields" };
  static const char *const in_members[] = { "sort", "shape" };
  cn_status st;
  char where[160];
  if (!json_is_object (j))
    return cn_error_set (err, CN_EPARSE, "wire: %s where a record (an object) is expected", jtype (j));
  const json_t *ver = json_object_get (j, "version"), *tagv = json_object_get (j, "tag");
  if (ver == NULL)
    return cn_error_set (err, CN_EPARSE, "wire: the record has no member 'version'");
  if (!json_is_integer (ver) || json_integer_value (ver) != CN_WIRE_VERSION)
    {
      if (json_is_integer (ver))
        return cn_error_set (err, CN_EPARSE, "wire: unsupported version %" JSON_INTEGER_FORMAT " (this codec reads "
                             "version %d)", json_integer_value (ver), CN_WIRE_VERSION);
      return cn_error_set (err, CN_EPARSE, "wire: member 'version' is %s, not an integer", jtype (ver));
    }
  if (tagv == NULL)
    return cn_error_set (err, CN_EPARSE, "wire: the record has no member 'tag'");
  if (!json_is_string (tagv))
    return cn_error_set (err, CN_EPARSE, "wire: member 'tag' is %s, not a string", jtype (tagv));
  cn_op op = cn_op_lookup (json_string_value (tagv));
  if (op == CN_OP_COUNT)
    return cn_error_set (err, CN_EPARSE, "wire: unknown tag '%s'", json_string_value (tagv));
  const char *tag = cn_op_name (op);
  const struct cn__record *r = cn__op_record (op);
  snprintf (where, sizeof where, "wire: %s", tag);
  if ((st = only_members (j, top_members, 4, where, err)) != CN_OK)
    return st;
  const json_t *ins = member (j, "inputs", where, err), *fields;
  if (ins == NULL || (fields = member (j, "fields", where, err)) == NULL)
    return CN_EPARSE;
  if (!json_is_array (ins))
    return cn_error_set (err, CN_EPARSE, "wire: %s: member 'inputs' is %s, not an array", tag, jtype (ins));
  if (!json_is_object (fields))
    return cn_error_set (err, CN_EPARSE, "wire: %s: member 'fields' is %s, not an object", tag, jtype (fields));
  out->op = op;
  /* the inputs */
  size_t n = json_array_size (ins);
  if (n < 1 || n > INT_MAX)
    return cn_error_set (err, CN_EINVAL, "wire: %s: %zu inputs, at least 1 expected", tag, n);
  out->in_shape = calloc (n, sizeof *out->in_shape);
  out->in_dtype = calloc (n, sizeof *out->in_dtype);
  if (out->in_shape == NULL || out->in_dtype == NULL)
    return nomem (err);
  out->n_in = (int) n;
  for (size_t i = 0; i < n; i++)
    {
      const json_t *e = json_array_get (ins, i), *sort, *shape;
      snprintf (where, sizeof where, "wire: %s: input %zu", tag, i);
      if (!json_is_object (e))
        return cn_error_set (err, CN_EPARSE, "%s: %s where an object is expected", where, jtype (e));
      if ((st = only_members (e, in_members, 2, where, err)) != CN_OK)
        return st;
      if ((sort = member (e, "sort", where, err)) == NULL || (shape = member (e, "shape", where, err)) == NULL)
        return CN_EPARSE;
      if ((st = dec_dtype (sort, where, &out->in_dtype[i], err)) != CN_OK
          || (st = dec_shape (shape, where, &out->in_shape[i], err)) != CN_OK)
        return st;
    }
  /* the fields, in the record's order (a count before the arrays it counts), into a zeroed record
   * of the record's size */
  if (r->size > 0 && (out->params = calloc (1, r->size)) == NULL)
    return nomem (err);
  unsigned char *p = out->params;
  for (int i = 0; i < r->n; i++)
    {
      const json_t *v = json_object_get (fields, r->f[i].name);
      if (v == NULL)
        return field_error (err, CN_EPARSE, tag, r->f[i].name, "missing");
      if ((st = decode_field (tag, &r->f[i], v, p, depth, owner, err)) != CN_OK)
        return st;
    }
  if (json_object_size (fields) != (size_t) r->n)
    {
      const char *key;
      json_t *v;
      json_object_foreach ((json_t *) fields, key, v)
        {
          int known = 0;
          for (int i = 0; i < r->n && !known; i++)
            known = strcmp (key, r->f[i].name) == 0;
          if (!known)
            return cn_error_set (err, CN_EPARSE, "wire: %s: field '%s' is not a member of %s", tag, key,
                                 r->n ? r->type : "the operator (it has no attributes)");
        }
    }
  /* now the record holds every field; check it as the encoder does */
  if ((st = check_record (tag, r, p, err)) != CN_OK)
    return st;
  return check_instance (op, r, p, out->n_in, out->in_shape, out->in_dtype, &out->checked, &out->out_shape,
                         &out->out_dtype, err);
}

cn_status
cn_wire_decode (const struct json_t *rec, cn_wire_op *out, cn_error *err)
{
  memset (out, 0, sizeof *out);
  if (rec == NULL)
    return cn_error_set (err, CN_EINVAL, "wire: no record");
  cn_status st = decode_instance (rec, 0, out, out, err);
  if (st != CN_OK)
    cn_wire_op_clear (out);
  return st;
}

cn_status
cn_wire_decode_string (const char *text, cn_wire_op *out, cn_error *err)
{
  memset (out, 0, sizeof *out);
  if (text == NULL)
    return cn_error_set (err, CN_EINVAL, "wire: no text");
  json_error_t je;
  json_t *j = json_loads (text, JSON_REJECT_DUPLICATES, &je);
  if (j == NULL)
    return cn_error_set (err, CN_EPARSE, "wire: malformed JSON at line %d, column %d: %s", je.line, je.column, je.text);
  cn_status st = cn_wire_decode (j, out, err);
  json_decref (j);
  return st;
}

void
cn_wire_op_clear (cn_wire_op *w)
{
  if (w == NULL)
    return;
  free (w->params);
  free (w->in_shape);
  free (w->in_dtype);
  for (int i = 0; i < w->n_graphs; i++)
    cn_graph_free (w->graphs[i]);
  free (w->graphs);
  memset (w, 0, sizeof *w);
}

/* ---- the pieces IR artifacts reuse (src/io/wire_impl.h) ------------------------------- */

cn_status
cn__wire_encode_program (const cn_graph *g, json_t **out, cn_error *err)
{
  *out = NULL;
  return encode_program ("artifact", "program", g, 0, out, err);
}

cn_status
cn__wire_decode_program (const json_t *j, cn_wire_op *owner, const cn_graph **g, cn_error *err)
{
  *g = NULL;
  return decode_program ("artifact", "program", j, 0, owner, g, err);
}

json_t *
cn__wire_encode_tensor (const cn_tensor *t)
{
  json_t *e = json_object ();
  if (put (e, "sort", json_string (cn_dtype_name (t->dtype))) < 0 || put (e, "shape", enc_shape (&t->shape)) < 0
      || put (e, "words", enc_words (t)) < 0)
    {
      json_decref (e);
      return NULL;
    }
  return e;
}

cn_status
cn__wire_decode_tensor (const json_t *j, const char *where, cn_tensor *t, cn_error *err)
{
  static const char *const t_members[] = { "sort", "shape", "words" };
  const json_t *sort, *shape, *words;
  cn_dtype dt;
  cn_shape s;
  cn_status st;
  memset (t, 0, sizeof *t);
  if (!json_is_object (j))
    return cn_error_set (err, CN_EPARSE, "%s: %s where a tensor object is expected", where, jtype (j));
  if ((st = only_members (j, t_members, 3, where, err)) != CN_OK)
    return st;
  if ((sort = member (j, "sort", where, err)) == NULL || (shape = member (j, "shape", where, err)) == NULL
      || (words = member (j, "words", where, err)) == NULL)
    return CN_EPARSE;
  if ((st = dec_dtype (sort, where, &dt, err)) != CN_OK || (st = dec_shape (shape, where, &s, err)) != CN_OK)
    return st;
  /* 2 digits per byte: a shape too large for memory is refused before allocating */
  if (json_is_string (words) && (uint64_t) cn_shape_numel (&s) > json_string_length (words))
    return cn_error_set (err, CN_EINVAL, "%s: member 'words' has %zu digits, too few for shape of %lld elements",
                         where, json_string_length (words), (long long) cn_shape_numel (&s));
  cn_error local;
  cn_error_clear (&local);
  if ((st = cn_tensor_init (t, dt, &s, &local)) != CN_OK)
    return cn_error_set (err, st, "%s: %s", where, local.msg);
  if ((st = dec_words (words, where, t, err)) != CN_OK)
    cn_tensor_clear (t);
  return st;
}
