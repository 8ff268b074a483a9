/* SPDX-License-Identifier: MIT */
/* src/io/onnx/elementwise.c: ONNX's elementwise arithmetic, extrema and functions (Add, Sub, Mul,
 * Div, Neg, Pow, Mod, Max, Min, Sum, Mean, Clip, Abs, Reciprocal, Sqrt, the roundings and Sign,
 * Exp, Log, Erf, the trigonometric and hyperbolic functions and their inverses) onto the
 * elementwise, extrema, rounding and transcendental operators.
 *
 * Numpy broadcasting: an operand of another shape is brought to the common shape by a broadcast
 * node (folded for a constant operand: the expanded constant).  The arithmetic takes the model's
 * scalar or words of one sort (the table's element ports, certnn/ops.h "element sorts"): Add, Sub,
 * Mul, Neg and Pow on words wrap in two's complement as ONNX's fixed-width integers do (numpy's),
 * Div truncates toward 0 (div with CN_DIV_TRUNC), Max and Min follow the sort's order; a zero
 * divisor fails at evaluation (CN_ENUMERIC), or at import where the divisor is a constant folded
 * with the dividend.  Booleans have no arithmetic.  Constant operands are folded with the nodes
 * (graph_impl.h: exactly, or not at all). */
#include <config.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "graph/graph_impl.h"
#include "io/onnx/onnx_impl.h"

/* One-input operators that map onto one of ours without attributes. */
static cn_status
op_unary (cn__onnx_node *nc, cn_op op)
{
  int x, v;
  cn_status st = cn__onnx_x (nc, &x);
  if (st == CN_OK)
    st = cn__onnx_add1 (nc, op, NULL, x, NULL, &v);
  return st != CN_OK ? st : cn__onnx_out (nc, 0, v, 1);
}

/* Neg: the model's scalar, or words (wrapping: the least signed word is its own negation). */
static cn_status
op_neg (cn__onnx_node *nc)
{
  cn_status st = cn__onnx_need (nc, 0);
  if (st == CN_OK)
    st = cn__onnx_arith_sorts (nc, 1);
  return st != CN_OK ? st : op_unary (nc, CN_OP_NEG);
}

/* The functions without attributes: one of our operators each (Round: halfway cases to even in
 * both). */
static cn_status op_abs (cn__onnx_node *nc) { return op_unary (nc, CN_OP_ABS); }
static cn_status op_reciprocal (cn__onnx_node *nc) { return op_unary (nc, CN_OP_RECIPROCAL); }
static cn_status op_floor (cn__onnx_node *nc) { return op_unary (nc, CN_OP_FLOOR); }
static cn_status op_ceil (cn__onnx_node *nc) { return op_unary (nc, CN_OP_CEIL); }
static cn_status op_round (cn__onnx_node *nc) { return op_unary (nc, CN_OP_ROUND); }
static cn_status op_sign (cn__onnx_node *nc) { return op_unary (nc, CN_OP_SIGN); }
static cn_status op_exp (cn__onnx_node *nc) { return op_unary (nc, CN_OP_EXP); }
static cn_status op_log (cn__onnx_node *nc) { return op_unary (nc, CN_OP_LOG); }
static cn_status op_sin (cn__onnx_node *nc) { return op_unary (nc, CN_OP_SIN); }
static cn_status op_cos (cn__onnx_node *nc) { return op_unary (nc, CN_OP_COS); }
static cn_status op_tan (cn__onnx_node *nc) { return op_unary (nc, CN_OP_TAN); }
static cn_status op_asin (cn__onnx_node *nc) { return op_unary (nc, CN_OP_ASIN); }
static cn_status op_acos (cn__onnx_node *nc) { return op_unary (nc, CN_OP_ACOS); }
static cn_status op_atan (cn__onnx_node *nc) { return op_unary (nc, CN_OP_ATAN); }
static cn_status op_sinh (cn__onnx_node *nc) { return op_unary (nc, CN_OP_SINH); }
static cn_status op_cosh (cn__onnx_node *nc) { return op_unary (nc, CN_OP_COSH); }
static cn_status op_asinh (cn__onnx_node *nc) { return op_unary (nc, CN_OP_ASINH); }
static cn_status op_acosh (cn__onnx_node *nc) { return op_unary (nc, CN_OP_ACOSH); }
static cn_status op_atanh (cn__onnx_node *nc) { return op_unary (nc, CN_OP_ATANH); }
static cn_status op_erf (cn__onnx_node *nc) { return op_unary (nc, CN_OP_ERF); }

/* Sqrt: the IEEE square root (a NaN below zero), sqrt in its raw mode. */
static cn_status
op_sqrt (cn__onnx_node *nc)
{
  cn_params_sqrt p;
  int x, v;
  memset (&p, 0, sizeof p);
  p.mode = CN_SQRT_RAW;
  cn_status st = cn__onnx_x (nc, &x);
  if (st == CN_OK)
    st = cn__onnx_add1 (nc, CN_OP_SQRT, &p, x, NULL, &v);
  return st != CN_OK ? st : cn__onnx_out (nc, 0, v, 1);
}

/* Add, Sub, Mul, Div: the two operands of one sort with arithmetic (the model's scalar, Div a
 * true division; or one word sort, Div truncating), brought to their common shape. */
static cn_status
op_binary (cn__onnx_node *nc, cn_op op)
{
  cn_status st;
  cn_shape os;
  if ((st = cn__onnx_common_shape (nc, 2, &os)) != CN_OK || (st = cn__onnx_arith_sorts (nc, 2)) != CN_OK)
    return st;
  cn_params_div pd = { cn_dtype_is_float (cn__onnx_sort (nc, 0)) ? CN_DIV_TRUE : CN_DIV_TRUNC };
  return cn__onnx_broadcast_apply (nc, op, op == CN_OP_DIV ? &pd : NULL, 2, &os);
}

static cn_status op_add (cn__onnx_node *nc) { return op_binary (nc, CN_OP_ADD); }
static cn_status op_sub (cn__onnx_node *nc) { return op_binary (nc, CN_OP_SUB); }
static cn_status op_mul (cn__onnx_node *nc) { return op_binary (nc, CN_OP_MUL); }
static cn_status op_div (cn__onnx_node *nc) { return op_binary (nc, CN_OP_DIV); }

/* Pow (numpy broadcasting): the model's scalar, or words of one sort (pow wraps: a^e modulo 2^N;
 * a negative exponent fails at evaluation).  ONNX lets the exponent have another sort than the
 * base: an integer constant exponent is taken in the base's sort (a cast node, folded) where each
 * of its entries is an element of that sort (an integer of magnitude <= 2^24 for the model's
 * scalar, exact in binary32 and binary64; a word of the sort for words); any other exponent of
 * another sort is refused. */
static cn_status
op_pow (cn__onnx_node *nc)
{
  cn_status st;
  cn_shape os;
  if ((st = cn__onnx_common_shape (nc, 2, &os)) != CN_OK)
    return st;
  cn_dtype sb = cn__onnx_sort (nc, 0), se = cn__onnx_sort (nc, 1);
  const cn_tensor *e = cn__onnx_const (nc, 1);
  if (cn__onnx_same_sort (sb, se) || sb == CN_DTYPE_BOOL || e == NULL || cn_dtype_is_float (se)
      || se == CN_DTYPE_BOOL)
    {
      if ((st = cn__onnx_arith_sorts (nc, 2)) != CN_OK)
        return st;
      return cn__onnx_broadcast_apply (nc, CN_OP_POW, NULL, 2, &os);
    }
  /* An integer constant exponent of another sort. */
  int64_t n = cn_tensor_numel (e);
  for (int64_t k = 0; k < n; k++)
    {
      double w = cn_tensor_get_f64 (e, k);
      int fits = cn_dtype_is_float (sb) ? fabs (w) <= 0x1p24 : w >= cn__dtype_min (sb) && w <= cn__dtype_max (sb);
      if (!fits)
        return cn_error_set (nc->err, CN_EUNSUPPORTED, "the exponent %.0f (input 1, '%s', %s) does not fit the base's "
                             "sort %s", w, nc->in[1]->name, cn__onnx_sort_name (se), cn__onnx_sort_name (sb));
    }
  /* now every exponent is exactly an element of the base's sort: the cast to it is exact */
  cn_params_cast pc = { cn_dtype_is_float (sb) ? CN_DTYPE_F64 : sb };
  int x[2], c, v;
  if ((st = cn__onnx_in (nc, 1, &c)) != CN_OK
      || (st = cn__onnx_add1 (nc, CN_OP_CAST, &pc, c, "exponent_sort", &c)) != CN_OK
      || (st = cn__onnx_broadcast (nc, c, &os, "exponent", &x[1])) != CN_OK
      || (st = cn__onnx_operand_at (nc, 0, &os, "broadcast0", &x[0])) != CN_OK
      || (st = cn__onnx_add (nc, CN_OP_POW, NULL, 2, x, NULL, &v)) != CN_OK)
    return st;
  return cn__onnx_out (nc, 0, v, 1);
}

/* Mod: fmod = 1 is C's fmod (the sign of the dividend); fmod = 0 is the remainder with the sign
 * of the divisor (numpy.mod, torch.remainder), remainder.  The model's scalar: fmod or remainder.
 * Words of one sort: fmod = 0 is remainder; fmod = 1 is a - trunc(a / b) b, as div (TRUNC), mul,
 * sub: the three wrap modulo 2^N, so the result is congruent to the exact C remainder modulo 2^N,
 * and that remainder lies in the sort (|r| < |b|, the sign of a), so the wrapped result is
 * exactly it (the least word modulo -1: the quotient wraps to the least word, the product to it
 * too, the difference 0).  A zero divisor fails at evaluation in both. */
static cn_status
op_mod (cn__onnx_node *nc)
{
  int64_t f;
  cn_status st = cn__onnx_attr_int (nc, "fmod", 0, &f);
  if (st != CN_OK)
    return st;
  if (f != 0 && f != 1)
    return cn_error_set (nc->err, CN_EUNSUPPORTED, "attribute fmod = %lld is not supported", (long long) f);
  cn_shape os;
  if ((st = cn__onnx_common_shape (nc, 2, &os)) != CN_OK || (st = cn__onnx_arith_sorts (nc, 2)) != CN_OK)
    return st;
  if (cn_dtype_is_float (cn__onnx_sort (nc, 0)) || f == 0)
    return cn__onnx_broadcast_apply (nc, f ? CN_OP_FMOD : CN_OP_REMAINDER, NULL, 2, &os);
  int x[2], q, p, v;
  cn_params_div pd = { CN_DIV_TRUNC };
  if ((st = cn__onnx_operand_at (nc, 0, &os, "broadcast0", &x[0])) != CN_OK
      || (st = cn__onnx_operand_at (nc, 1, &os, "broadcast1", &x[1])) != CN_OK
      || (st = cn__onnx_add2 (nc, CN_OP_DIV, &pd, x[0], x[1], "quotient", &q)) != CN_OK
      || (st = cn__onnx_add2 (nc, CN_OP_MUL, NULL, q, x[1], "product", &p)) != CN_OK
      || (st = cn__onnx_add2 (nc, CN_OP_SUB, NULL, x[0], p, NULL, &v)) != CN_OK)
    return st;
  return cn__onnx_out (nc, 0, v, 1);
}

/* Max, Min, Sum, Mean: variadic with numpy broadcasting of all inputs to their common shape,
 * folded left to right: v = op(op(x0, x1), x2) ...; Mean divides the sum by the count.  Max and
 * Min (typed) take inputs of one sort: the model's scalar, Booleans or one word sort (max and min
 * in the sort's order, exact); Sum and Mean the model's scalar only. */
static cn_status
op_variadic (cn__onnx_node *nc, cn_op op, int mean)
{
  cn_status st;
  if (nc->n_in < 1)
    return cn_error_set (nc->err, CN_EPARSE, "at least one input expected");
  if ((st = cn__onnx_need (nc, 0)) != CN_OK)
    return st;
  cn_shape os = *cn__onnx_shape (nc, 0);
  for (int i = 0; i < nc->n_in; i++)
    {
      if ((st = cn__onnx_need (nc, i)) != CN_OK)
        return st;
      char a[128], b[128];
      cn_shape t;
      if (!cn__onnx_broadcast_shape (&os, cn__onnx_shape (nc, i), &t))
        return cn_error_set (nc->err, CN_ESHAPE, "input shapes %s and %s do not broadcast",
                             cn_shape_format (&os, a, sizeof a), cn_shape_format (cn__onnx_shape (nc, i), b, sizeof b));
      os = t;
      if (nc->typed && i > 0 && (st = cn__onnx_sorts_agree (nc, 0, i)) != CN_OK)
        return st;
    }
  int acc, x;
  char sfx[32];
  if ((st = cn__onnx_operand_at (nc, 0, &os, "broadcast0", &acc)) != CN_OK)
    return st;
  if (nc->n_in == 1 && !mean)
    return cn__onnx_out (nc, 0, acc, 0);
  for (int i = 1; i < nc->n_in; i++)
    {
      snprintf (sfx, sizeof sfx, "broadcast%d", i);
      if ((st = cn__onnx_operand_at (nc, i, &os, sfx, &x)) != CN_OK)
        return st;
      snprintf (sfx, sizeof sfx, "step%d", i);
      if ((st = cn__onnx_add2 (nc, op, NULL, acc, x, i == nc->n_in - 1 && !mean ? NULL : sfx, &acc)) != CN_OK)
        return st;
    }
  if (mean)
    {
      int c;
      cn_params_div pd = { CN_DIV_TRUE };
      if ((st = cn__onnx_fill (nc, CN_DTYPE_F64, &os, (double) nc->n_in, "count", &c)) != CN_OK
          || (st = cn__onnx_add2 (nc, CN_OP_DIV, &pd, acc, c, NULL, &acc)) != CN_OK)
        return st;
    }
  return cn__onnx_out (nc, 0, acc, 1);
}

static cn_status op_max (cn__onnx_node *nc) { return op_variadic (nc, CN_OP_MAX, 0); }
static cn_status op_min (cn__onnx_node *nc) { return op_variadic (nc, CN_OP_MIN, 0); }
static cn_status op_sum (cn__onnx_node *nc) { return op_variadic (nc, CN_OP_ADD, 0); }
static cn_status op_mean (cn__onnx_node *nc) { return op_variadic (nc, CN_OP_ADD, 1); }

/* Clip: clamp(x, min, max); the bounds are attributes before opset 11 (defaults the lowest and
 * the largest binary32 numbers) and optional constant inputs since (absent: no bound).  An
 * absent (infinite) bound is no bound: max or min with the other alone, or the input itself. */
static cn_status
op_clip (cn__onnx_node *nc)
{
  double lo = -INFINITY, hi = INFINITY;
  int x, v;
  cn_status st = cn__onnx_x (nc, &x);
  if (st != CN_OK)
    return st;
  if (nc->imp->opset < 11)
    {
      if ((st = cn__onnx_attr_float (nc, "min", -FLT_MAX, &lo)) != CN_OK
          || (st = cn__onnx_attr_float (nc, "max", FLT_MAX, &hi)) != CN_OK)
        return st;
    }
  else
    {
      if (cn__onnx_attr (nc, "min") != NULL || cn__onnx_attr (nc, "max") != NULL)
        return cn_error_set (nc->err, CN_EUNSUPPORTED, "attributes min and max are not supported from opset 11");
      if ((cn__onnx_has (nc, 1) && (st = cn__onnx_const_scalar (nc, 1, "min", &lo)) != CN_OK)
          || (cn__onnx_has (nc, 2) && (st = cn__onnx_const_scalar (nc, 2, "max", &hi)) != CN_OK))
        return st;
    }
  cn_shape xs = *cn_graph_value_shape (nc->imp->g, x);
  if (lo == -INFINITY && hi == INFINITY)
    return cn__onnx_out_alias (nc, 0, 0);
  if (lo == -INFINITY || hi == INFINITY)
    {
      int c, upper = lo == -INFINITY;
      if ((st = cn__onnx_fill (nc, CN_DTYPE_F64, &xs, upper ? hi : lo, upper ? "max" : "min", &c)) != CN_OK
          || (st = cn__onnx_add2 (nc, upper ? CN_OP_MIN : CN_OP_MAX, NULL, x, c, NULL, &v)) != CN_OK)
        return st;
      return cn__onnx_out (nc, 0, v, 1);
    }
  if (!isfinite (lo) || !isfinite (hi))
    return cn_error_set (nc->err, CN_EUNSUPPORTED, "bounds min = %g, max = %g are not supported", lo, hi);
  if ((st = cn__onnx_clamp (nc, x, lo, hi, NULL, &v)) != CN_OK)
    return st;
  return cn__onnx_out (nc, 0, v, 1);
}

const struct cn__onnx_handler cn__onnx_elementwise[] = {
  { "Abs", op_abs, "", 0 },
  { "Acos", op_acos, "", 0 },
  { "Acosh", op_acosh, "", 0 },
  { "Add", op_add, "", 1 },
  { "Asin", op_asin, "", 0 },
  { "Asinh", op_asinh, "", 0 },
  { "Atan", op_atan, "", 0 },
  { "Atanh", op_atanh, "", 0 },
  { "Ceil", op_ceil, "", 0 },
  { "Clip", op_clip, "min max", 0 },
  { "Cos", op_cos, "", 0 },
  { "Cosh", op_cosh, "", 0 },
  { "Div", op_div, "", 1 },
  { "Erf", op_erf, "", 0 },
  { "Exp", op_exp, "", 0 },
  { "Floor", op_floor, "", 0 },
  { "Log", op_log, "", 0 },
  { "Max", op_max, "", 1 },
  { "Mean", op_mean, "", 0 },
  { "Min", op_min, "", 1 },
  { "Mod", op_mod, "fmod", 1 },
  { "Mul", op_mul, "", 1 },
  { "Neg", op_neg, "", 1 },
  { "Pow", op_pow, "", 1 },
  { "Reciprocal", op_reciprocal, "", 0 },
  { "Round", op_round, "", 0 },
  { "Sign", op_sign, "", 0 },
  { "Sin", op_sin, "", 0 },
  { "Sinh", op_sinh, "", 0 },
  { "Sqrt", op_sqrt, "", 0 },
  { "Sub", op_sub, "", 1 },
  { "Sum", op_sum, "", 0 },
  { "Tan", op_tan, "", 0 },
  { NULL, NULL, NULL, 0 },
};
