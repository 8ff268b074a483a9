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
 * rewritten_division.  Under jax.jit, for a division of a jitted node (not folded): in binary16,
 * binary32 and binary64 (bfloat16's conversions to binary32 block them) a numerator that is a
 * true division of the same computation gives (x / y) / z = x / (y * z), a divisor that is one
 * x / (y / z) = (x * z) / y; then in binary32 and binary64 (the IR computes binary16 rsqrt and
 * pow in binary32, so these are no binary16 operations) x / sqrt y = x * rsqrt y, x / rsqrt y =
 * x * sqrt y and x / y^c = x * y^-c (c a constant of one value); the division a rewrite produces
 * is computed by the same rules (emit_division: a broadcast or constant divisor first, then the
 * rewrites), each new operation rounded to the format.
 *
 * power_products.  Under jax.jit a power x^c (jitted, not folded) in binary16, binary32 or
 * binary64 whose exponent is a constant of one value 2, 3 or -1 (reached through broadcasts and
 * reshapes) is x * x, (x * x) * x, or the reciprocal 1 / x, each product rounded to the format
 * (see half_source for a binary16 base).
 *
 * reciprocal_sqrt, power.  XLA's own rsqrt and pow are not the IR's: a result that one of them
 * computes, an rsqrt or pow node of binary32 or binary64 reached from the output through layout
 * operations, negation, conversions between floating formats (and the emulation's flushes),
 * counts as reproduced within 2 ulps (rsqrt) or 1 ulp (pow) of the emulated word, keeping its
 * sign and finiteness (window_reproduces in src/io/artifact.c); a power only when both its
 * operands are arguments (program inputs reached through layout operations and widening
 * conversions), so that XLA's function and the IR's read the same values.  A node of a reduced
 * format has no window (XLA computes it in binary32 and rounds once).
 *
 * A binary32 power whose base converts a binary16 value (as the JAX importer writes a binary16
 * power) is computed in binary16 and widened (half_source), since XLA rounds every product of a
 * binary16 base to binary16.  A primitive-by-primitive reference beside a jax.jit one is checked
 * by src/io/artifact.c, with this emulation run without jax.jit. */
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
    case CN__XLA_REWRITTEN_DIVISION: return "rewritten_division";
    case CN__XLA_POWER_PRODUCTS: return "power_products";
    case CN__XLA_SUBNORMAL: return "subnormal";
    case CN__XLA_RECIPROCAL_SQRT: return "reciprocal_sqrt";
    case CN__XLA_POWER: return "power";
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

/* The one value every element of value V of G holds when V is a graph constant, reached through
 * broadcasts and reshapes, into *C; 0 otherwise. */
static int
uniform_constant (const build *b, int v, double *c)
{
  for (int depth = 0; depth <= cn_graph_n_nodes (b->g); depth++)
    {
      const cn_tensor *t = cn_graph_value_constant (b->g, v);
      if (t != NULL)
        {
          int64_t n = cn_tensor_numel (t);
          if (n < 1)
            return 0;
          *c = cn_tensor_get_f64 (t, 0);
          for (int64_t j = 1; j < n; j++)
            if (cn_tensor_get_f64 (t, j) != *c)
              return 0;
          return 1;
        }
      int p = cn_graph_value_producer (b->g, v);
      if (p < 0 || (cn_graph_node_op (b->g, p) != CN_OP_BROADCAST && cn_graph_node_op (b->g, p) != CN_OP_RESHAPE))
        return 0;
      v = cn_graph_node_input (b->g, p, 0);
    }
  return 0;
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

/* The node of G that produces value V when it is a jitted, unfolded node of node K's computation
 * applying OP (a true division for CN_OP_DIV); else -1. */
static int
producer_of (const build *b, int k, int v, cn_op op)
{
  int p = v >= 0 ? cn_graph_value_producer (b->g, v) : -1;
  if (p < 0 || b->folded[p] || !jitted (b, p) || !same_computation (b, p, k) || cn_graph_node_op (b->g, p) != op)
    return -1;
  if (op == CN_OP_DIV && ((const cn_params_div *) cn_graph_node_params (b->g, p))->rounding != CN_DIV_TRUE)
    return -1;
  return p;
}

/* Input I of node P of G as the emulation reads it (flushed as P flushes its operands). */
static cn_status
input_of (build *b, int p, int i, int *out)
{
  int ops, res;
  flushing (b, p, &ops, &res);
  return operand (b, b->map[cn_graph_node_input (b->g, p, i)], ops, out);
}

static cn_status
binary (build *b, cn_op op, int x, int y, const char *what, int *out)
{
  int in[2] = { x, y };
  return node (b, op, op == CN_OP_DIV ? (const void *) &(cn_params_div) { CN_DIV_TRUE } : NULL, 2, in, what, out);
}

/* The division NUM / DEN of node K as XLA's CPU code computes it (the seed's emitDivision), into
 * *OUT: NUM and DEN are
 * values of E, NUM_G and DEN_G the values of G they come from (-1 for a value a rewrite made).
 * FUEL bounds the rewrites' recursion. */
static cn_status
emit_division (build *b, int k, int num, int den, int num_g, int den_g, int fuel, int *out)
{
  cn_dtype t = cn_graph_value_dtype (b->e, num);
  cn_status st;
  int p, x, y, z, m;
  /* first a broadcast divisor, or under jax.jit a constant one; otherwise the rewrites */
  if (!b->folded[k]
      && ((den_g >= 0 && broadcast_divisor (b, k, den_g)) || (den_g >= 0 && jitted (b, k) && constant_value (b, den_g))))
    {
      b->used[CN__XLA_DIVISOR_RECIPROCAL] = 1;
      return reciprocal_division (b, num, den, out);
    }
  if (fuel > 0 && jitted (b, k) && t != CN_DTYPE_BF16)
    {
      if ((p = producer_of (b, k, num_g, CN_OP_DIV)) >= 0)
        {
          /* (x / y) / z = x / (y * z) */
          if ((st = input_of (b, p, 0, &x)) != CN_OK || (st = input_of (b, p, 1, &y)) != CN_OK
              || (st = binary (b, CN_OP_MUL, y, den, "divisor_product", &m)) != CN_OK)
            return st;
          b->used[CN__XLA_REWRITTEN_DIVISION] = 1;
          return emit_division (b, k, x, m, cn_graph_node_input (b->g, p, 0), -1, fuel - 1, out);
        }
      if ((p = producer_of (b, k, den_g, CN_OP_DIV)) >= 0)
        {
          /* x / (y / z) = (x * z) / y */
          if ((st = input_of (b, p, 0, &y)) != CN_OK || (st = input_of (b, p, 1, &z)) != CN_OK
              || (st = binary (b, CN_OP_MUL, num, z, "numerator_product", &m)) != CN_OK)
            return st;
          b->used[CN__XLA_REWRITTEN_DIVISION] = 1;
          return emit_division (b, k, m, y, -1, cn_graph_node_input (b->g, p, 0), fuel - 1, out);
        }
    }
  if (fuel > 0 && jitted (b, k) && (t == CN_DTYPE_F32 || t == CN_DTYPE_F64))
    {
      cn_params_sqrt raw = { CN_SQRT_RAW };
      double c;
      if ((p = producer_of (b, k, den_g, CN_OP_SQRT)) >= 0
          && ((const cn_params_sqrt *) cn_graph_node_params (b->g, p))->mode == CN_SQRT_RAW)
        {
          /* x / sqrt y = x * rsqrt y */
          if ((st = input_of (b, p, 0, &y)) != CN_OK || (st = node (b, CN_OP_RSQRT, NULL, 1, &y, "rsqrt", &m)) != CN_OK)
            return st;
          b->used[CN__XLA_REWRITTEN_DIVISION] = 1;
          return binary (b, CN_OP_MUL, num, m, "times_rsqrt", out);
        }
      if ((p = producer_of (b, k, den_g, CN_OP_RSQRT)) >= 0)
        {
          /* x / rsqrt y = x * sqrt y */
          if ((st = input_of (b, p, 0, &y)) != CN_OK || (st = node (b, CN_OP_SQRT, &raw, 1, &y, "sqrt", &m)) != CN_OK)
            return st;
          b->used[CN__XLA_REWRITTEN_DIVISION] = 1;
          return binary (b, CN_OP_MUL, num, m, "times_sqrt", out);
        }
      if ((p = producer_of (b, k, den_g, CN_OP_POW)) >= 0 && uniform_constant (b, cn_graph_node_input (b->g, p, 1), &c))
        {
          /* x / y^c = x * y^-c */
          int nc;
          if ((st = input_of (b, p, 0, &y)) != CN_OK
              || (st = fill_constant (b, cn_graph_value_dtype (b->e, y), cn_graph_value_shape (b->e, y), -c, &nc))
                     != CN_OK
              || (st = binary (b, CN_OP_POW, y, nc, "negated_power", &m)) != CN_OK)
            return st;
          b->used[CN__XLA_REWRITTEN_DIVISION] = 1;
          return binary (b, CN_OP_MUL, num, m, "times_power", out);
        }
    }
  return binary (b, CN_OP_DIV, num, den, "division", out);
}

/* The binary16 value a binary32 value V of G converts (the seed's halfSource: the JAX importer
 * writes the base of a binary16 power as a binary32 power of the converted base), as E reads it
 * into *H; 0 when V is no such conversion. */
static int
half_source (build *b, int v, int *h)
{
  int p = cn_graph_value_producer (b->g, v);
  if (p < 0 || cn_graph_node_op (b->g, p) != CN_OP_CAST || cn_graph_value_dtype (b->g, v) != CN_DTYPE_F32
      || cn_graph_value_dtype (b->g, cn_graph_node_input (b->g, p, 0)) != CN_DTYPE_F16)
    return 0;
  return input_of (b, p, 0, h) == CN_OK;
}

/* x^c as XLA's CPU code computes it under jax.jit for c in {2, 3, -1} (power_products) into
 * *OUT; *DONE 0 (nothing emitted) for another power.  X_G is the base in G: a binary32 power of
 * a converted binary16 base is computed in binary16 (XLA rounds every product of a binary16 base
 * to binary16) and widened. */
static cn_status
emit_power (build *b, int k, int x, int x_g, int y_g, int *out, int *done)
{
  double c;
  cn_dtype t = cn_graph_value_dtype (b->e, x);
  *done = 0;
  if (!jitted (b, k) || b->folded[k] || t == CN_DTYPE_BF16 || !cn_dtype_is_float (t) || !uniform_constant (b, y_g, &c)
      || !(c == 2 || c == 3 || c == -1))
    return CN_OK;
  cn_status st;
  int sq, h, r;
  int half = half_source (b, x_g, &h);
  if (half)
    x = h;
  *done = 1;
  b->used[CN__XLA_POWER_PRODUCTS] = 1;
  if (c == -1)
    st = node (b, CN_OP_RECIPROCAL, NULL, 1, &x, "reciprocal", &r);
  else if ((st = binary (b, CN_OP_MUL, x, x, "square", &sq)) == CN_OK)
    {
      r = sq;
      if (c == 3)
        st = binary (b, CN_OP_MUL, sq, x, "cube", &r);
    }
  if (st != CN_OK || !half)
    {
      *out = r;
      return st;
    }
  cn_params_cast to32 = { CN_DTYPE_F32 };
  return node (b, CN_OP_CAST, &to32, 1, &r, "widen", out);
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
      int out0 = cn_graph_node_output (g, k, 0), done = 0;
      int is_float = cn_dtype_is_float (cn_graph_value_dtype (g, out0));
      if (dp != NULL && dp->rounding == CN_DIV_TRUE && !b->folded[k] && is_float)
        {
          st = emit_division (b, k, in[0], in[1], cn_graph_node_input (g, k, 0), cn_graph_node_input (g, k, 1), 8,
                              &first);
          done = 1;
        }
      else if (op == CN_OP_POW && is_float
               && (st = emit_power (b, k, in[0], cn_graph_node_input (g, k, 0), cn_graph_node_input (g, k, 1), &first,
                                    &done)) != CN_OK)
        break;
      if (!done)
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

/* The value of E that V flushes (V itself when it is no flush). */
static int
unflushed (const int *flush_of, int v)
{
  return flush_of != NULL && flush_of[v] >= 0 ? flush_of[v] : v;
}

/* Whether value V of E is a program input, reached through layout operations, widening
 * conversions between floating formats and the emulation's flushes. */
static int
exact_argument (const build *b, const int *flush_of, int v)
{
  for (int depth = 0; depth <= cn_graph_n_nodes (b->e); depth++)
    {
      v = unflushed (flush_of, v);
      int p = cn_graph_value_producer (b->e, v);
      if (p < 0)
        return cn_graph_value_constant (b->e, v) == NULL;
      cn_op op = cn_graph_node_op (b->e, p);
      int u = cn_graph_node_input (b->e, p, 0);
      cn_dtype from = cn_graph_value_dtype (b->e, u), to = cn_graph_value_dtype (b->e, v);
      /* a conversion into a format that holds every number of the source's */
      int widening = op == CN_OP_CAST && cn_dtype_is_float (from)
                     && (to == from || to == CN_DTYPE_F64
                         || (to == CN_DTYPE_F32 && (from == CN_DTYPE_F16 || from == CN_DTYPE_BF16)));
      if (cn_op_family (op) != CN_FAMILY_MOVEMENT && !widening)
        return 0;
      v = u;
    }
  return 0;
}

/* The window of output value V of E (the file's comment) into *WINDOW and *BY. */
static void
output_window (const build *b, const int *flush_of, int v, int *window, int *by)
{
  *window = 0;
  *by = -1;
  for (int depth = 0; depth <= cn_graph_n_nodes (b->e); depth++)
    {
      v = unflushed (flush_of, v);
      int p = cn_graph_value_producer (b->e, v);
      if (p < 0)
        return;
      cn_op op = cn_graph_node_op (b->e, p);
      cn_dtype t = cn_graph_value_dtype (b->e, v);
      if (op == CN_OP_RSQRT || op == CN_OP_POW)
        {
          if (t != CN_DTYPE_F32 && t != CN_DTYPE_F64)
            return;
          if (op == CN_OP_POW && !(exact_argument (b, flush_of, cn_graph_node_input (b->e, p, 0))
                                   && exact_argument (b, flush_of, cn_graph_node_input (b->e, p, 1))))
            return;
          *window = op == CN_OP_RSQRT ? 2 : 1;
          *by = op == CN_OP_RSQRT ? CN__XLA_RECIPROCAL_SQRT : CN__XLA_POWER;
          return;
        }
      int u = cn_graph_node_input (b->e, p, 0);
      int conversion = op == CN_OP_CAST && cn_dtype_is_float (cn_graph_value_dtype (b->e, u)) && cn_dtype_is_float (t);
      if (cn_op_family (op) != CN_FAMILY_MOVEMENT && op != CN_OP_NEG && !conversion)
        return;
      v = u;
    }
}

cn_status
cn__xla_emulate (const cn_graph *g, const cn__xla_compilation *c, const cn_tensor *args, cn_tensor *out, int *used,
                 int *window, int *window_by, cn_error *err)
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
    {
      /* the windows, read on E's structure (FLUSH_OF inverts FLUSHED) */
      int ve = cn_graph_n_values (b.e);
      int *flush_of = malloc ((size_t) (ve + 1) * sizeof *flush_of);
      if (flush_of == NULL)
        st = nomem (&b);
      for (int v = 0; flush_of != NULL && v < ve; v++)
        flush_of[v] = -1;
      for (int v = 0; flush_of != NULL && v < ve && v < b.n_e; v++)
        if (b.flushed[v] >= 0)
          flush_of[b.flushed[v]] = v;
      for (int i = 0; flush_of != NULL && i < no; i++)
        output_window (&b, flush_of, b.map[cn_graph_output (g, i)], &window[i], &window_by[i]);
      free (flush_of);
    }
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
