/* SPDX-License-Identifier: MIT */
/* src/io/xla.c: the program as XLA's CPU code computes it, for a Jaxpr artifact whose reference
 * XLA's CPU backend computed (doc/ARTIFACT.md, the second seed's "XLA's documented CPU
 * behaviour").  The emulated program is an ordinary graph built node by node from the artifact's
 * program and run by cn_graph_eval_declared (each value in its declared sort), so every node it
 * adds is a table operator with the IR's semantics; only the structure differs:
 *
 * Compilation.  Under jax.jit the whole program is one computation; otherwise each node names the
 * computation that compiled it (the JAX importer's index of its primitive, or of the nested
 * jax.jit call that produced it), and jit_computations lists those that are jax.jit calls.  A
 * node is jitted when jax.jit compiles it; it is folded when it is jitted and every input is a
 * constant or the output of a folded node of its computation (jax.jit computes it at compile
 * time, in the IR's semantics: such a node is copied as it is and flushes nothing).
 *
 * divisor_reciprocal.  A true division x / y (floating, not folded) whose divisor is a broadcast
 * computed in the division's computation (a broadcast node, reached from y through reshapes and
 * permutations of that computation), or under jax.jit a constant (a graph constant or a folded
 * value), becomes x * r with r = 1 / y rounded to the format; in bfloat16 both are computed in
 * binary32 (r in binary32, the product rounded once to bfloat16).
 *
 * subnormal.  In bfloat16, binary32 and binary64 (not binary16, which XLA computes in binary32,
 * where its subnormals are normal) an operation's subnormal operands and results are replaced by
 * zero of the same sign: flush(x) = select(|x| < m, x * 0, x), m the format's least normal
 * number (the product is exact: a signed zero).  Negation, abs, sin, select, the layout
 * (movement) operations and binary32 and bfloat16 tanh keep them; a conversion from binary32 or
 * bfloat16 to binary64 flushes its operand, one from binary64 to binary32 or bfloat16 its result,
 * other conversions neither; a folded node neither.  Whether a flush changed a word is read from
 * extra outputs of the emulated graph, (|x| < m) and (x != 0) per flushed value.
 *
 * Not emulated yet (the seed's other behaviours): jax.jit's division rewrites, constant exponents
 * as products, XLA's own rsqrt and pow within their windows. */
#include <config.h>
#include <float.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "io/xla_impl.h"
#include "certnn/ops.h"

const char *
cn__xla_code (int b)
{
  switch (b)
    {
    case CN__XLA_DIVISOR_RECIPROCAL: return "divisor_reciprocal";
    case CN__XLA_SUBNORMAL: return "subnormal";
    default: return "unknown";
    }
}

/* The emulation under construction. */
typedef struct build
{
  const cn_graph *g;
  const cn__xla_compilation *c;
  cn_graph *e;
  int *map;         /* per value of G: the value of E its consumers read */
  int *flushed;     /* per value of E: its flushed copy, or -1 */
  int n_e;          /* the capacity of FLUSHED (values of E) */
  int *detect;      /* the extra outputs of E, (|x| < m) and (x != 0), one per flushed value */
  int n_detect, cap_detect;
  int *folded;      /* per node of G */
  int serial;       /* for the names of the new nodes */
  int used[CN__XLA_COUNT];
  cn_error *err;
} build;

static cn_status
nomem (build *b)
{
  return cn_error_set (b->err, CN_ENOMEM, "xla: out of memory");
}

static int
computation_of (const build *b, int node)
{
  return b->c->jit || b->c->computation == NULL || node >= b->c->n_nodes ? -1 : b->c->computation[node];
}

static int
jitted (const build *b, int node)
{
  if (b->c->jit)
    return 1;
  int k = computation_of (b, node);
  for (int i = 0; i < b->c->n_jit; i++)
    if (b->c->jit_computations[i] == k && k >= 0)
      return 1;
  return 0;
}

/* Whether nodes A and B are compiled in one computation (always under jax.jit). */
static int
same_computation (const build *b, int a, int n)
{
  return b->c->jit || computation_of (b, a) == computation_of (b, n);
}

/* Whether value V of G is a constant or the output of a folded node. */
static int
constant_value (const build *b, int v)
{
  if (cn_graph_value_constant (b->g, v) != NULL)
    return 1;
  int p = cn_graph_value_producer (b->g, v);
  return p >= 0 && b->folded[p];
}

/* Whether the divisor V of node K is a broadcast computed in K's computation, past reshapes and
 * permutations of it. */
static int
broadcast_divisor (const build *b, int k, int v)
{
  for (int depth = 0; depth < cn_graph_n_nodes (b->g); depth++)
    {
      int p = cn_graph_value_producer (b->g, v);
      if (p < 0 || !same_computation (b, p, k))
        return 0;
      cn_op op = cn_graph_node_op (b->g, p);
      if (op == CN_OP_BROADCAST)
        return 1;
      if (op != CN_OP_RESHAPE && op != CN_OP_PERMUTE)
        return 0;
      v = cn_graph_node_input (b->g, p, 0);
    }
  return 0;
}

static int
flushing_format (cn_dtype t)
{
  return t == CN_DTYPE_F32 || t == CN_DTYPE_F64 || t == CN_DTYPE_BF16;
}

/* Whether node K of G flushes its operands (*OPS) and its results (*RES). */
static void
flushing (const build *b, int k, int *ops, int *res)
{
  *ops = *res = 0;
  if (b->folded[k])
    return;
  cn_op op = cn_graph_node_op (b->g, k);
  cn_dtype out = cn_graph_value_dtype (b->g, cn_graph_node_output (b->g, k, 0));
  if (op == CN_OP_CAST)
    {
      cn_dtype in = cn_graph_value_dtype (b->g, cn_graph_node_input (b->g, k, 0));
      *ops = (in == CN_DTYPE_F32 || in == CN_DTYPE_BF16) && out == CN_DTYPE_F64;
      *res = in == CN_DTYPE_F64 && (out == CN_DTYPE_F32 || out == CN_DTYPE_BF16);
      return;
    }
  if (op == CN_OP_NEG || op == CN_OP_ABS || op == CN_OP_SIN || op == CN_OP_SELECT
      || cn_op_family (op) == CN_FAMILY_MOVEMENT || (op == CN_OP_TANH && (out == CN_DTYPE_F32 || out == CN_DTYPE_BF16)))
    return;
  *ops = *res = 1;
}

/* A constant of sort T and shape S (numel N) filled with X (exact in T); its value into *V. */
static cn_status
fill_constant (build *b, cn_dtype t, const cn_shape *s, double x, int *v)
{
  cn_tensor c;
  cn_status st = cn_tensor_init (&c, t, s, b->err);
  if (st != CN_OK)
    return st;
  cn_tensor one;
  cn_shape s0;
  memset (&s0, 0, sizeof s0);
  cn_tensor src = { CN_DTYPE_F64, s0, &x };
  if ((st = cn_tensor_convert (&one, t, &src, b->err)) == CN_OK)
    {
      size_t w = cn_dtype_size (t);
      for (int64_t j = 0; j < cn_tensor_numel (&c); j++)
        memcpy ((char *) c.data + (size_t) j * w, one.data, w);
      cn_tensor_clear (&one);
      char name[48];
      snprintf (name, sizeof name, "xla.const.%d", b->serial++);
      st = cn_graph_add_constant (b->e, name, &c, v, b->err);
    }
  cn_tensor_clear (&c);
  return st;
}

static cn_status
node (build *b, cn_op op, const void *params, int n, const int *in, const char *what, int *out)
{
  char name[64];
  snprintf (name, sizeof name, "xla.%s.%d", what, b->serial++);
  return cn_graph_add_node (b->e, op, params, n, in, name, out, b->err);
}

/* Keeps the value counts of FLUSHED in step with E's values. */
static cn_status
grow (build *b)
{
  int n = cn_graph_n_values (b->e);
  if (n <= b->n_e)
    return CN_OK;
  int cap = n * 2 + 16;
  int *f = realloc (b->flushed, (size_t) cap * sizeof *f);
  if (f == NULL)
    return nomem (b);
  for (int i = b->n_e; i < cap; i++)
    f[i] = -1;
  b->flushed = f;
  b->n_e = cap;
  return CN_OK;
}

/* The flushed copy of value V of E (memoised): select(|v| < m, v * 0, v), with its detector. */
static cn_status
flush (build *b, int v, int *out)
{
  cn_status st = grow (b);
  if (st != CN_OK)
    return st;
  if (b->flushed[v] >= 0)
    {
      *out = b->flushed[v];
      return CN_OK;
    }
  cn_dtype t = cn_graph_value_dtype (b->e, v);
  const cn_shape *s = cn_graph_value_shape (b->e, v);
  double m = t == CN_DTYPE_F64 ? DBL_MIN : FLT_MIN;   /* bfloat16's least normal is binary32's */
  int tiny, zero, a, c, z, y, nz, d;
  if ((st = fill_constant (b, t, s, m, &tiny)) != CN_OK || (st = fill_constant (b, t, s, 0, &zero)) != CN_OK)
    return st;
  int in_a[1] = { v }, in_c[2], in_z[2] = { v, zero }, in_y[3], in_nz[2] = { v, zero }, in_d[2];
  if ((st = node (b, CN_OP_ABS, NULL, 1, in_a, "abs", &a)) != CN_OK)
    return st;
  in_c[0] = a, in_c[1] = tiny;
  if ((st = node (b, CN_OP_LT, NULL, 2, in_c, "tiny", &c)) != CN_OK
      || (st = node (b, CN_OP_MUL, NULL, 2, in_z, "signed_zero", &z)) != CN_OK)
    return st;
  in_y[0] = c, in_y[1] = z, in_y[2] = v;
  if ((st = node (b, CN_OP_SELECT, NULL, 3, in_y, "flush", &y)) != CN_OK
      || (st = node (b, CN_OP_NE, NULL, 2, in_nz, "nonzero", &nz)) != CN_OK)
    return st;
  in_d[0] = c, in_d[1] = nz;
  if ((st = node (b, CN_OP_LOGICAL_AND, NULL, 2, in_d, "flushed", &d)) != CN_OK || (st = grow (b)) != CN_OK)
    return st;
  if (b->n_detect == b->cap_detect)
    {
      int cap = b->cap_detect * 2 + 8, *p = realloc (b->detect, (size_t) cap * sizeof *p);
      if (p == NULL)
        return nomem (b);
      b->detect = p;
      b->cap_detect = cap;
    }
  b->detect[b->n_detect++] = d;
  b->flushed[v] = y;
  *out = y;
  return CN_OK;
}

/* Value V of E, flushed when FLUSH and its sort is flushed. */
static cn_status
operand (build *b, int v, int do_flush, int *out)
{
  if (do_flush && flushing_format (cn_graph_value_dtype (b->e, v)))
    return flush (b, v, out);
  *out = v;
  return CN_OK;
}

/* x / y as x * (1 / y), into *OUT (a value of E of X's sort). */
static cn_status
reciprocal_division (build *b, int x, int y, int *out)
{
  cn_dtype t = cn_graph_value_dtype (b->e, x);
  cn_status st;
  int r, in[2];
  if (t != CN_DTYPE_BF16)
    {
      if ((st = node (b, CN_OP_RECIPROCAL, NULL, 1, &y, "reciprocal", &r)) != CN_OK)
        return st;
      in[0] = x, in[1] = r;
      return node (b, CN_OP_MUL, NULL, 2, in, "times_reciprocal", out);
    }
  /* bfloat16: the reciprocal and the product in binary32, the product rounded once */
  cn_params_cast to32 = { CN_DTYPE_F32 }, to16 = { CN_DTYPE_BF16 };
  int x32, y32, p;
  if ((st = node (b, CN_OP_CAST, &to32, 1, &x, "widen", &x32)) != CN_OK
      || (st = node (b, CN_OP_CAST, &to32, 1, &y, "widen", &y32)) != CN_OK
      || (st = node (b, CN_OP_RECIPROCAL, NULL, 1, &y32, "reciprocal", &r)) != CN_OK)
    return st;
  in[0] = x32, in[1] = r;
  if ((st = node (b, CN_OP_MUL, NULL, 2, in, "times_reciprocal", &p)) != CN_OK)
    return st;
  return node (b, CN_OP_CAST, &to16, 1, &p, "narrow", out);
}

static cn_status
build_emulation (build *b)
{
  const cn_graph *g = b->g;
  cn_status st;
  int nv = cn_graph_n_values (g), nn = cn_graph_n_nodes (g);
  for (int v = 0; v < nv; v++)
    b->map[v] = -1;
  for (int i = 0; i < cn_graph_n_inputs (g); i++)
    {
      int v = cn_graph_input (g, i);
      if ((st = cn_graph_add_input (b->e, cn_graph_value_name (g, v), cn_graph_value_dtype (g, v),
                                    cn_graph_value_shape (g, v), &b->map[v], b->err)) != CN_OK)
        return st;
    }
  for (int v = 0; v < nv; v++)
    if (cn_graph_value_constant (g, v) != NULL
        && (st = cn_graph_add_constant (b->e, cn_graph_value_name (g, v), cn_graph_value_constant (g, v), &b->map[v],
                                        b->err)) != CN_OK)
      return st;
  for (int k = 0; k < nn; k++)
    {
      int n_in = cn_graph_node_n_inputs (g, k), fold = jitted (b, k);
      for (int i = 0; i < n_in && fold; i++)
        {
          int u = cn_graph_node_input (g, k, i), p = cn_graph_value_producer (g, u);
          fold = cn_graph_value_constant (g, u) != NULL || (p >= 0 && b->folded[p] && same_computation (b, p, k));
        }
      b->folded[k] = fold;
    }
  int max_in = 1;
  for (int k = 0; k < nn; k++)
    max_in = cn_graph_node_n_inputs (g, k) > max_in ? cn_graph_node_n_inputs (g, k) : max_in;
  int *in = malloc ((size_t) max_in * sizeof *in);
  if (in == NULL)
    return nomem (b);
  st = CN_OK;
  for (int k = 0; k < nn && st == CN_OK; k++)
    {
      int n_in = cn_graph_node_n_inputs (g, k), ops, res, first;
      flushing (b, k, &ops, &res);
      for (int i = 0; i < n_in && st == CN_OK; i++)
        st = operand (b, b->map[cn_graph_node_input (g, k, i)], ops, &in[i]);
      if (st != CN_OK)
        break;
      cn_op op = cn_graph_node_op (g, k);
      const cn_params_div *dp = op == CN_OP_DIV ? cn_graph_node_params (g, k) : NULL;
      int y = n_in == 2 ? cn_graph_node_input (g, k, 1) : -1;
      int out0 = cn_graph_node_output (g, k, 0);
      if (dp != NULL && dp->rounding == CN_DIV_TRUE && !b->folded[k] && cn_dtype_is_float (cn_graph_value_dtype (g, out0))
          && (broadcast_divisor (b, k, y) || (jitted (b, k) && constant_value (b, y))))
        {
          st = reciprocal_division (b, in[0], in[1], &first);
          b->used[CN__XLA_DIVISOR_RECIPROCAL] = 1;
        }
      else
        st = cn_graph_add_node (b->e, op, cn_graph_node_params (g, k), n_in, in, cn_graph_node_name (g, k), &first,
                                b->err);
      if (st != CN_OK)
        break;
      int pe = cn_graph_value_producer (b->e, first);
      for (int o = 0; o < cn_graph_node_n_outputs (g, k) && st == CN_OK; o++)
        {
          int ve = o == 0 ? first : cn_graph_node_output (b->e, pe, o);
          st = operand (b, ve, res, &b->map[cn_graph_node_output (g, k, o)]);
        }
    }
  free (in);
  if (st != CN_OK)
    return st;
  int no = cn_graph_n_outputs (g);
  int *outs = malloc ((size_t) (no + b->n_detect + 1) * sizeof *outs);
  if (outs == NULL)
    return nomem (b);
  for (int i = 0; i < no; i++)
    outs[i] = b->map[cn_graph_output (g, i)];
  for (int i = 0; i < b->n_detect; i++)
    outs[no + i] = b->detect[i];
  st = cn_graph_set_outputs (b->e, no + b->n_detect, outs, b->err);
  free (outs);
  return st;
}

cn_status
cn__xla_emulate (const cn_graph *g, const cn__xla_compilation *c, const cn_tensor *args, cn_tensor *out, int *used,
                 cn_error *err)
{
  build b;
  memset (&b, 0, sizeof b);
  b.g = g;
  b.c = c;
  b.err = err;
  cn_status st = cn_graph_create (&b.e, err);
  if (st != CN_OK)
    return st;
  b.map = malloc ((size_t) (cn_graph_n_values (g) + 1) * sizeof *b.map);
  b.folded = calloc ((size_t) (cn_graph_n_nodes (g) + 1), sizeof *b.folded);
  cn_tensor *res = NULL;
  if (b.map == NULL || b.folded == NULL)
    st = nomem (&b);
  if (st == CN_OK)
    st = build_emulation (&b);
  int no = cn_graph_n_outputs (g), ne = no + b.n_detect;
  if (st == CN_OK && (res = calloc ((size_t) ne + 1, sizeof *res)) == NULL)
    st = nomem (&b);
  if (st == CN_OK)
    st = cn_graph_eval_declared (b.e, args, res, err);
  if (st == CN_OK)
    {
      for (int i = 0; i < CN__XLA_COUNT; i++)
        used[i] = b.used[i];
      for (int i = 0; i < b.n_detect; i++)
        for (int64_t j = 0; j < cn_tensor_numel (&res[no + i]); j++)
          used[CN__XLA_SUBNORMAL] |= ((const uint8_t *) res[no + i].data)[j] != 0;
      for (int i = 0; i < no; i++)
        out[i] = res[i];
      for (int i = no; i < ne; i++)
        cn_tensor_clear (&res[i]);
    }
  free (res);
  free (b.map);
  free (b.flushed);
  free (b.detect);
  free (b.folded);
  cn_graph_free (b.e);
  return st;
}
