/* SPDX-License-Identifier: MIT */
/* src/io/onnx/logic.c: ONNX's comparisons, logic, predicates, Where, Cast and the operators on
 * integer words (Equal, Less, LessOrEqual, Greater, GreaterOrEqual, Not, And, Or, Xor, IsNaN,
 * IsInf, Where, Cast, CastLike, BitShift, BitwiseAnd, BitwiseOr, BitwiseXor, BitwiseNot) onto the
 * logic and integer families (certnn/ops.h "element sorts").  These handlers take Booleans and
 * words; over constants every node folds exactly into a constant of its sort. */
#include <config.h>
#include <math.h>
#include <stdint.h>
#include <string.h>
#include "graph/graph_impl.h"
#include "io/onnx/onnx_impl.h"

/* Equal, Less, LessOrEqual, Greater, GreaterOrEqual: numpy broadcasting of the two operands (as
 * Add: an operand of another shape through a broadcast node), which hold one element
 * sort, then one comparison node (eq, lt, le, gt, ge), the output Boolean.  The model's scalar:
 * the IEEE comparison (a NaN false).  Booleans (false < true) and words of one sort: exactly, in
 * the sort's order. */
static cn_status
op_compare (cn__onnx_node *nc, cn_op op)
{
  cn_shape os;
  cn_status st = cn__onnx_common_shape (nc, 2, &os);
  if (st != CN_OK || (st = cn__onnx_sorts_agree (nc, 0, 1)) != CN_OK)
    return st;
  return cn__onnx_broadcast_apply (nc, op, NULL, 2, &os);
}

static cn_status op_equal (cn__onnx_node *nc) { return op_compare (nc, CN_OP_EQ); }
static cn_status op_less (cn__onnx_node *nc) { return op_compare (nc, CN_OP_LT); }
static cn_status op_less_equal (cn__onnx_node *nc) { return op_compare (nc, CN_OP_LE); }
static cn_status op_greater (cn__onnx_node *nc) { return op_compare (nc, CN_OP_GT); }
static cn_status op_greater_equal (cn__onnx_node *nc) { return op_compare (nc, CN_OP_GE); }

/* Not, And, Or, Xor: Boolean operands (numpy broadcasting), one logical node. */
static cn_status
op_logic (cn__onnx_node *nc, cn_op op, int n)
{
  cn_shape os;
  cn_status st = cn__onnx_common_shape (nc, n, &os);
  if (st != CN_OK)
    return st;
  for (int i = 0; i < n; i++)
    if (cn__onnx_sort (nc, i) != CN_DTYPE_BOOL)
      return cn_error_set (nc->err, CN_EUNSUPPORTED, "input %d ('%s') holds %s values, BOOL expected", i,
                           nc->in[i]->name, cn__onnx_sort_name (cn__onnx_sort (nc, i)));
  return cn__onnx_broadcast_apply (nc, op, NULL, n, &os);   /* every input holds Booleans (checked above) */
}

static cn_status op_not (cn__onnx_node *nc) { return op_logic (nc, CN_OP_LOGICAL_NOT, 1); }
static cn_status op_and (cn__onnx_node *nc) { return op_logic (nc, CN_OP_LOGICAL_AND, 2); }
static cn_status op_or (cn__onnx_node *nc) { return op_logic (nc, CN_OP_LOGICAL_OR, 2); }
static cn_status op_xor (cn__onnx_node *nc) { return op_logic (nc, CN_OP_LOGICAL_XOR, 2); }

/* The floating input 0 of a predicate (IsNaN, IsInf). */
static cn_status
float_in (cn__onnx_node *nc)
{
  cn_status st = cn__onnx_need (nc, 0);
  if (st == CN_OK && !cn_dtype_is_float (cn__onnx_sort (nc, 0)))
    st = cn_error_set (nc->err, CN_EUNSUPPORTED, "input 0 ('%s') holds %s values, FLOAT or DOUBLE expected",
                       nc->in[0]->name, cn__onnx_sort_name (cn__onnx_sort (nc, 0)));
  return st;
}

/* IsNaN (NAN) or IsInf (POS: +inf, NEG: -inf) of a raw constant, one the graph cannot hold
 * because it has a NaN or an infinity (no node can read it): the Boolean result is read off its
 * entries, each the IEEE predicate of a binary64 number (exact: the constant's binary32 or
 * binary64 entries convert exactly). */
static cn_status
raw_predicate (cn__onnx_node *nc, int nan, int pos, int neg)
{
  const cn_tensor *c = cn__onnx_const (nc, 0);
  cn_tensor t;
  cn_status st = cn_tensor_init (&t, CN_DTYPE_BOOL, &c->shape, nc->err);
  if (st != CN_OK)
    return st;
  int64_t n = cn_tensor_numel (c);
  for (int64_t i = 0; i < n; i++)
    {
      double x = cn_tensor_get_f64 (c, i);
      ((uint8_t *) t.data)[i] = nan ? isnan (x) != 0 : isinf (x) && (x > 0 ? pos : neg);
    }
  st = cn__onnx_out_const (nc, 0, &t);
  cn_tensor_clear (&t);
  return st;
}

/* IsNaN: isNaN. */
static cn_status
op_is_nan (cn__onnx_node *nc)
{
  cn_status st = float_in (nc);
  if (st != CN_OK)
    return st;
  if (nc->in[0]->is_raw)
    return raw_predicate (nc, 1, 0, 0);
  int x, v;
  if ((st = cn__onnx_in (nc, 0, &x)) != CN_OK || (st = cn__onnx_add1 (nc, CN_OP_IS_NA_N, NULL, x, NULL, &v)) != CN_OK)
    return st;
  return cn__onnx_out (nc, 0, v, 1);
}

/* IsInf: detect_positive = detect_negative = 1 is isInf; one of them alone is isInf and the
 * sign, logicalAnd (isInf (x), gt (x, 0)) or logicalAnd (isInf (x), lt (x, 0)).  Both 0 (an
 * output that is false everywhere) is refused. */
static cn_status
op_is_inf (cn__onnx_node *nc)
{
  int64_t pos, neg;
  cn_status st = float_in (nc);
  if (st != CN_OK || (st = cn__onnx_attr_int (nc, "detect_positive", 1, &pos)) != CN_OK
      || (st = cn__onnx_attr_int (nc, "detect_negative", 1, &neg)) != CN_OK)
    return st;
  if ((pos != 0 && pos != 1) || (neg != 0 && neg != 1) || (pos == 0 && neg == 0))
    return cn_error_set (nc->err, CN_EUNSUPPORTED, "attributes detect_positive = %lld, detect_negative = %lld are not "
                         "supported (0 or 1, not both 0)", (long long) pos, (long long) neg);
  if (nc->in[0]->is_raw)
    return raw_predicate (nc, 0, pos != 0, neg != 0);
  int x, i, z, s, v;
  cn_shape xs = *cn__onnx_shape (nc, 0);
  if ((st = cn__onnx_in (nc, 0, &x)) != CN_OK)
    return st;
  if (pos && neg)
    st = cn__onnx_add1 (nc, CN_OP_IS_INF, NULL, x, NULL, &v);
  else if ((st = cn__onnx_add1 (nc, CN_OP_IS_INF, NULL, x, "infinite", &i)) == CN_OK
           && (st = cn__onnx_fill (nc, CN_DTYPE_F64, &xs, 0.0, "zero", &z)) == CN_OK
           && (st = cn__onnx_add2 (nc, pos ? CN_OP_GT : CN_OP_LT, NULL, x, z, "sign", &s)) == CN_OK)
    st = cn__onnx_add2 (nc, CN_OP_LOGICAL_AND, NULL, i, s, NULL, &v);
  return st != CN_OK ? st : cn__onnx_out (nc, 0, v, 1);
}

/* Where (condition, X, Y): numpy broadcasting of the three, then select (c, x, y): the condition
 * Boolean, X and Y of one element sort (the model's scalar, Booleans or one word sort: select's
 * element ports), the output of their sort; every entry is a copy of X's or Y's (exact). */
static cn_status
op_where (cn__onnx_node *nc)
{
  cn_shape os;
  cn_status st = cn__onnx_common_shape (nc, 3, &os);
  if (st != CN_OK)
    return st;
  cn_dtype sc = cn__onnx_sort (nc, 0);
  if (sc != CN_DTYPE_BOOL)
    return cn_error_set (nc->err, CN_EUNSUPPORTED, "the condition (input 0, '%s') holds %s values, BOOL expected",
                         nc->in[0]->name, cn__onnx_sort_name (sc));
  if ((st = cn__onnx_sorts_agree (nc, 1, 2)) != CN_OK)
    return st;
  int x[3], v;
  if ((st = cn__onnx_operand_at (nc, 0, &os, "condition", &x[0])) != CN_OK
      || (st = cn__onnx_operand_at (nc, 1, &os, "broadcast1", &x[1])) != CN_OK
      || (st = cn__onnx_operand_at (nc, 2, &os, "broadcast2", &x[2])) != CN_OK
      || (st = cn__onnx_add (nc, CN_OP_SELECT, NULL, 3, x, NULL, &v)) != CN_OK)
    return st;
  return cn__onnx_out (nc, 0, v, 1);
}

/* Two (or one, for BitwiseNot) integer-word operands of one sort (UNSIGNED_ONLY: u8 .. u64, as
 * BitShift), numpy broadcasting (cn__onnx_operand_at: broadcast nodes move words exactly), one word
 * operator. */
static cn_status
op_words (cn__onnx_node *nc, cn_op op, int n, int unsigned_only)
{
  cn_shape os;
  cn_status st = cn__onnx_common_shape (nc, n, &os);
  if (st != CN_OK)
    return st;
  cn_dtype s0 = cn__onnx_sort (nc, 0);
  for (int i = 0; i < n; i++)
    {
      cn_dtype si = cn__onnx_sort (nc, i);
      if (!(si >= CN_DTYPE_I8 && si <= CN_DTYPE_U64) || (unsigned_only && si < CN_DTYPE_U8))
        return cn_error_set (nc->err, CN_EUNSUPPORTED, "input %d ('%s') holds %s values; %s integer types expected", i,
                             nc->in[i]->name, cn__onnx_sort_name (si), unsigned_only ? "unsigned" : "the");
      if (si != s0)
        return cn_error_set (nc->err, CN_EUNSUPPORTED, "operands of different element types (%s and %s)",
                             cn__onnx_sort_name (s0), cn__onnx_sort_name (si));
    }
  return cn__onnx_broadcast_apply (nc, op, NULL, n, &os);
}

/* BitShift (opset 11; unsigned words): direction LEFT is bitwiseLeftShift, RIGHT
 * shiftRightLogical (an amount of at least the width gives 0 in both, where ONNX leaves it
 * unspecified). */
static cn_status
op_bit_shift (cn__onnx_node *nc)
{
  static const char *const dirs[] = { "LEFT", "RIGHT", NULL };
  int d = 0;
  if (cn__onnx_attr (nc, "direction") == NULL)
    return cn_error_set (nc->err, CN_EPARSE, "attribute direction is missing");
  cn_status st = cn__onnx_attr_choice (nc, "direction", "LEFT", dirs, &d);
  if (st != CN_OK)
    return st;
  return op_words (nc, d == 0 ? CN_OP_BITWISE_LEFT_SHIFT : CN_OP_SHIFT_RIGHT_LOGICAL, 2, 1);
}

/* BitwiseAnd, BitwiseOr, BitwiseXor, BitwiseNot: one word operator each.  (ONNX defines them from
 * opset 18, above the opsets read; the importer checks the model's opset, not each operator's
 * first one, so a model that declares an opset of 8 to 17 may use them.) */
static cn_status op_bitwise_and (cn__onnx_node *nc) { return op_words (nc, CN_OP_BITWISE_AND, 2, 0); }
static cn_status op_bitwise_or (cn__onnx_node *nc) { return op_words (nc, CN_OP_BITWISE_OR, 2, 0); }
static cn_status op_bitwise_xor (cn__onnx_node *nc) { return op_words (nc, CN_OP_BITWISE_XOR, 2, 0); }
static cn_status op_bitwise_not (cn__onnx_node *nc) { return op_words (nc, CN_OP_BITWISE_NOT, 1, 0); }

/* Output 0 = input 0 cast to the sort TO (cn__onnx_sort_of_type of the target type; CN_DTYPE_COUNT
 * refused, naming TYPE_NAME).  Between FLOAT and DOUBLE (or to its own sort) the value is kept as
 * it is: the graph is evaluated in one floating sort, the model's scalar.  Into FLOAT16 or
 * BFLOAT16 a cast node rounds to the format; out of one into FLOAT or DOUBLE a cast node keeps
 * the value and declares its new sort (certnn/ops.h).  Otherwise a cast node
 * (certnn/ops.h: to BOOL x != 0, a float to a word by truncation, failing outside the word's
 * range, words wrapped, Booleans and words to the model's scalar rounded to nearest); over a
 * constant it folds (where a float result is exact). */
static cn_status
cast_to (cn__onnx_node *nc, cn_dtype to, const char *type_name)
{
  if (to == CN_DTYPE_COUNT)
    return cn_error_set (nc->err, CN_EUNSUPPORTED, "cast to %s is not supported", type_name);
  cn_dtype from = cn__onnx_sort (nc, 0);
  /* the model's scalar into the model's scalar: FLOAT or DOUBLE on both sides */
  int to_scalar = cn_dtype_is_float (to) && !cn_dtype_is_reduced (to);
  int scalars = to_scalar && cn_dtype_is_float (from) && !cn_dtype_is_reduced (from);
  if (scalars || from == to)
    return cn__onnx_out_alias (nc, 0, 0);
  cn_params_cast p = { to_scalar && !cn_dtype_is_reduced (from) ? CN_DTYPE_F64 : to };
  int x, v;
  cn_status st = cn__onnx_in (nc, 0, &x);
  if (st == CN_OK)
    st = cn__onnx_add1 (nc, CN_OP_CAST, &p, x, NULL, &v);
  return st != CN_OK ? st : cn__onnx_out (nc, 0, v, 1);
}

/* Cast: to the attribute TO's type (cast_to). */
static cn_status
op_cast (cn__onnx_node *nc)
{
  cn_status st = cn__onnx_need (nc, 0);
  int64_t to;
  if (st != CN_OK || (st = cn__onnx_attr_int (nc, "to", 0, &to)) != CN_OK)
    return st;
  return cast_to (nc, cn__onnx_sort_of_type (to), cn__onnx_type_name ((int32_t) to));
}

/* CastLike (opset 15): to the sort of input 1 (cast_to). */
static cn_status
op_cast_like (cn__onnx_node *nc)
{
  cn_status st;
  if ((st = cn__onnx_need (nc, 0)) != CN_OK || (st = cn__onnx_need (nc, 1)) != CN_OK)
    return st;
  cn_dtype to = cn__onnx_sort (nc, 1);
  return cast_to (nc, to, cn__onnx_sort_name (to));
}

const struct cn__onnx_handler cn__onnx_logic[] = {
  { "And", op_and, "", 1 },
  { "BitShift", op_bit_shift, "direction", 1 },
  { "BitwiseAnd", op_bitwise_and, "", 1 },
  { "BitwiseNot", op_bitwise_not, "", 1 },
  { "BitwiseOr", op_bitwise_or, "", 1 },
  { "BitwiseXor", op_bitwise_xor, "", 1 },
  { "Cast", op_cast, "to", 1 },
  { "CastLike", op_cast_like, "", 1 },
  { "Equal", op_equal, "", 1 },
  { "Greater", op_greater, "", 1 },
  { "GreaterOrEqual", op_greater_equal, "", 1 },
  { "IsInf", op_is_inf, "detect_negative detect_positive", 1 },
  { "IsNaN", op_is_nan, "", 1 },
  { "Less", op_less, "", 1 },
  { "LessOrEqual", op_less_equal, "", 1 },
  { "Not", op_not, "", 1 },
  { "Or", op_or, "", 1 },
  { "Where", op_where, "", 1 },
  { "Xor", op_xor, "", 1 },
  { NULL, NULL, NULL, 0 },
};
