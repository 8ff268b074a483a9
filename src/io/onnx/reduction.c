/* SPDX-License-Identifier: MIT */
/* src/io/onnx/reduction.c: ONNX's reductions (ReduceSum, ReduceMean, ReduceMax, ReduceMin,
 * ReduceProd; ReduceL1, ReduceL2, ReduceSumSquare, ReduceLogSum, ReduceLogSumExp as an
 * elementwise step, a sum and a step) and the global pools (GlobalAveragePool, GlobalMaxPool,
 * GlobalLpPool: the same over the spatial axes, kept) onto reduce and mean. */
#include <config.h>
#include <string.h>
#include "graph/graph_impl.h"
#include "io/onnx/onnx_impl.h"

/* Output 0 = OP (KIND) of input 0 over the axes AXES (bit i = axis i). */
static cn_status
emit_reduce (cn__onnx_node *nc, cn_op op, cn_reduce_kind kind, uint32_t axes, int keepdims)
{
  cn_params_reduce p = { kind, axes, keepdims };
  int x, v;
  cn_status st;
  if ((st = cn__onnx_in (nc, 0, &x)) != CN_OK || (st = cn__onnx_add1 (nc, op, &p, x, NULL, &v)) != CN_OK)
    return st;
  return cn__onnx_out (nc, 0, v, 1);
}

/* *MASK = the axes AX[0..N-1] of a rank-R input (every axis when N <= 0), each once. */
static cn_status
axes_mask (cn__onnx_node *nc, const int64_t *ax, int n, int r, uint32_t *mask)
{
  cn_status st;
  *mask = 0;
  if (n <= 0)
    *mask = r ? (uint32_t) ((1u << r) - 1) : 0;
  for (int i = 0; i < n; i++)
    {
      int a = 0;
      if ((st = cn__onnx_axis (nc, ax[i], r, "axis", &a)) != CN_OK)
        return st;
      if (*mask & (1u << a))
        return cn_error_set (nc->err, CN_EINVAL, "axis %d is repeated", a);
      *mask |= 1u << a;
    }
  return CN_OK;
}

static cn_status
op_global_pool (cn__onnx_node *nc, cn_op op, cn_reduce_kind kind)
{
  cn_status st = cn__onnx_need (nc, 0);
  if (st != CN_OK)
    return st;
  int r = cn__onnx_shape (nc, 0)->rank;
  if (r < 3)
    return cn_error_set (nc->err, CN_ESHAPE, "the input must have rank 3 or more");
  uint32_t axes = 0;
  for (int i = 2; i < r; i++)
    axes |= 1u << i;
  return emit_reduce (nc, op, kind, axes, 1);
}

static cn_status op_gap (cn__onnx_node *nc) { return op_global_pool (nc, CN_OP_MEAN, CN_REDUCE_SUM); }
static cn_status op_gmp (cn__onnx_node *nc) { return op_global_pool (nc, CN_OP_REDUCE, CN_REDUCE_MAX); }

/* ReduceSum (its axes an input since opset 13: AXES_INPUT), ReduceMean, ReduceMax, ReduceMin,
 * ReduceProd.  No axes reduce all of them, or none with noop_with_empty_axes (the identity). */
static cn_status
op_reduce (cn__onnx_node *nc, cn_op op, cn_reduce_kind kind, int axes_input)
{
  cn_status st = cn__onnx_need (nc, 0);
  if (st != CN_OK)
    return st;
  int64_t keep, noop, ax[CN_MAX_RANK];
  int n = -1, r = cn__onnx_shape (nc, 0)->rank;
  if ((st = cn__onnx_attr_int (nc, "keepdims", 1, &keep)) != CN_OK
      || (st = cn__onnx_attr_int (nc, "noop_with_empty_axes", 0, &noop)) != CN_OK
      || (st = cn__onnx_attr_ints (nc, "axes", ax, CN_MAX_RANK, &n)) != CN_OK)
    return st;
  if (axes_input && cn__onnx_has (nc, 1))
    {
      if (n >= 0)
        return cn_error_set (nc->err, CN_EINVAL, "axes given both as attribute and input");
      if ((st = cn__onnx_const_ints (nc, 1, "axes", ax, CN_MAX_RANK, &n)) != CN_OK)
        return st;
    }
  if (n <= 0 && noop)
    return cn__onnx_out_alias (nc, 0, 0);
  uint32_t mask;
  if ((st = axes_mask (nc, ax, n, r, &mask)) != CN_OK)
    return st;
  if (mask == 0)
    return cn__onnx_out_alias (nc, 0, 0);
  return emit_reduce (nc, op, kind, mask, keep != 0);
}

static cn_status op_reduce_sum (cn__onnx_node *nc) { return op_reduce (nc, CN_OP_REDUCE, CN_REDUCE_SUM, 1); }
static cn_status op_reduce_mean (cn__onnx_node *nc) { return op_reduce (nc, CN_OP_MEAN, CN_REDUCE_SUM, 0); }
static cn_status op_reduce_max (cn__onnx_node *nc) { return op_reduce (nc, CN_OP_REDUCE, CN_REDUCE_MAX, 0); }
static cn_status op_reduce_min (cn__onnx_node *nc) { return op_reduce (nc, CN_OP_REDUCE, CN_REDUCE_MIN, 0); }
static cn_status op_reduce_prod (cn__onnx_node *nc) { return op_reduce (nc, CN_OP_REDUCE, CN_REDUCE_PROD, 0); }

/* The sum over the axes MASK of PRE (x) (no step if PRE is CN_OP_COUNT), then POST (sqrt, log;
 * none if CN_OP_COUNT). */
static cn_status
reduce_composed (cn__onnx_node *nc, uint32_t mask, int keep, cn_op pre, cn_op post)
{
  cn_status st;
  int x, v;
  cn_params_reduce p = { CN_REDUCE_SUM, mask, keep };
  cn_params_sqrt ps;
  memset (&ps, 0, sizeof ps);
  if ((st = cn__onnx_in (nc, 0, &x)) != CN_OK)
    return st;
  if (pre != CN_OP_COUNT && (st = cn__onnx_add1 (nc, pre, NULL, x, "terms", &x)) != CN_OK)
    return st;
  if ((st = cn__onnx_add1 (nc, CN_OP_REDUCE, &p, x, post != CN_OP_COUNT ? "sum" : NULL, &v)) != CN_OK)
    return st;
  if (post != CN_OP_COUNT && (st = cn__onnx_add1 (nc, post, post == CN_OP_SQRT ? &ps : NULL, v, NULL, &v)) != CN_OK)
    return st;
  return cn__onnx_out (nc, 0, v, 1);
}

/* ReduceL1 (abs, sum), ReduceL2 (square, sum, sqrt), ReduceSumSquare (square, sum), ReduceLogSum
 * (sum, log), ReduceLogSumExp (exp, sum, log): a reduction over no axis is refused. */
static cn_status
op_reduce_composed (cn__onnx_node *nc, cn_op pre, cn_op post)
{
  cn_status st = cn__onnx_need (nc, 0);
  if (st != CN_OK)
    return st;
  int64_t keep, ax[CN_MAX_RANK];
  int n = -1, r = cn__onnx_shape (nc, 0)->rank;
  if ((st = cn__onnx_attr_int (nc, "keepdims", 1, &keep)) != CN_OK
      || (st = cn__onnx_attr_ints (nc, "axes", ax, CN_MAX_RANK, &n)) != CN_OK)
    return st;
  uint32_t mask;
  if ((st = axes_mask (nc, ax, n, r, &mask)) != CN_OK)
    return st;
  if (mask == 0)
    return cn_error_set (nc->err, CN_EUNSUPPORTED, "a reduction over no axis is not supported");
  return reduce_composed (nc, mask, keep != 0, pre, post);
}

/* GlobalLpPool: the ReduceL1 (p = 1) or ReduceL2 (p = 2) of every spatial axis (>= 2), kept. */
static cn_status
op_global_lp_pool (cn__onnx_node *nc)
{
  int64_t pw;
  cn_status st = cn__onnx_need (nc, 0);
  if (st != CN_OK || (st = cn__onnx_attr_int (nc, "p", 2, &pw)) != CN_OK)
    return st;
  if (pw != 1 && pw != 2)
    return cn_error_set (nc->err, CN_EUNSUPPORTED, "attribute p = %lld is not supported (1 or 2)", (long long) pw);
  int r = cn__onnx_shape (nc, 0)->rank;
  if (r < 3)
    return cn_error_set (nc->err, CN_ESHAPE, "the input must have rank 3 or more");
  uint32_t mask = 0;
  for (int i = 2; i < r; i++)
    mask |= 1u << i;
  return reduce_composed (nc, mask, 1, pw == 1 ? CN_OP_ABS : CN_OP_SQUARE, pw == 1 ? CN_OP_COUNT : CN_OP_SQRT);
}

static cn_status op_reduce_l1 (cn__onnx_node *nc) { return op_reduce_composed (nc, CN_OP_ABS, CN_OP_COUNT); }
static cn_status op_reduce_l2 (cn__onnx_node *nc) { return op_reduce_composed (nc, CN_OP_SQUARE, CN_OP_SQRT); }
static cn_status op_reduce_sum_square (cn__onnx_node *nc) { return op_reduce_composed (nc, CN_OP_SQUARE, CN_OP_COUNT); }
static cn_status op_reduce_log_sum (cn__onnx_node *nc) { return op_reduce_composed (nc, CN_OP_COUNT, CN_OP_LOG); }
static cn_status op_reduce_log_sum_exp (cn__onnx_node *nc) { return op_reduce_composed (nc, CN_OP_EXP, CN_OP_LOG); }

const struct cn__onnx_handler cn__onnx_reduction[] = {
  { "GlobalAveragePool", op_gap, "", 0 },
  { "GlobalLpPool", op_global_lp_pool, "p", 0 },
  { "GlobalMaxPool", op_gmp, "", 0 },
  { "ReduceL1", op_reduce_l1, "axes keepdims", 0 },
  { "ReduceL2", op_reduce_l2, "axes keepdims", 0 },
  { "ReduceLogSum", op_reduce_log_sum, "axes keepdims", 0 },
  { "ReduceLogSumExp", op_reduce_log_sum_exp, "axes keepdims", 0 },
  { "ReduceMax", op_reduce_max, "axes keepdims", 0 },
  { "ReduceMean", op_reduce_mean, "axes keepdims", 0 },
  { "ReduceMin", op_reduce_min, "axes keepdims", 0 },
  { "ReduceProd", op_reduce_prod, "axes keepdims", 0 },
  { "ReduceSum", op_reduce_sum, "axes keepdims noop_with_empty_axes", 0 },
  { "ReduceSumSquare", op_reduce_sum_square, "axes keepdims", 0 },
  { NULL, NULL, NULL, 0 },
};
