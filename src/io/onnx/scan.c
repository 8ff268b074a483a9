/* SPDX-License-Identifier: MIT */
/* src/io/onnx/scan.c: ONNX's orderings and scans (TopK, ArgMax, ArgMin, CumSum) onto topk,
 * argmax, argmin and cumsum.  Indices (TopK's second output, ArgMax's) are index values: integers
 * held in the model's scalar. */
#include <config.h>
#include <string.h>
#include "graph/graph_impl.h"
#include "io/onnx/onnx_impl.h"

/* TopK: the Values at topk's output 0 and the Indices at its output 1.  K is an attribute before
 * opset 10 and a constant input since.  Ties go to the lower index, as ONNX specifies
 * (ties_by_index). */
static cn_status
op_topk (cn__onnx_node *nc)
{
  int64_t axis, largest, sorted, k = 0;
  int x, a = 0, v, n;
  cn_status st;
  if ((st = cn__onnx_x (nc, &x)) != CN_OK || (st = cn__onnx_attr_int (nc, "axis", -1, &axis)) != CN_OK
      || (st = cn__onnx_attr_int (nc, "largest", 1, &largest)) != CN_OK
      || (st = cn__onnx_attr_int (nc, "sorted", 1, &sorted)) != CN_OK)
    return st;
  if (nc->imp->opset < 10)
    st = cn__onnx_attr_int (nc, "k", -1, &k);
  else if ((st = cn__onnx_need (nc, 1)) == CN_OK)
    st = cn__onnx_const_ints (nc, 1, "k", &k, 1, &n);
  if (st != CN_OK)
    return st;
  if (sorted != 1)
    return cn_error_set (nc->err, CN_EUNSUPPORTED, "attribute sorted = %lld is not supported (only 1)",
                         (long long) sorted);
  const cn_shape *xs = cn__onnx_shape (nc, 0);
  if ((st = cn__onnx_axis (nc, axis, xs->rank, "axis", &a)) != CN_OK)
    return st;
  if (k < 0 || k > xs->dim[a])
    return cn_error_set (nc->err, CN_EINVAL, "k = %lld is out of range", (long long) k);
  cn_params_topk p = { a, k, largest != 0, 1 };
  if ((st = cn__onnx_add1 (nc, CN_OP_TOPK, &p, x, NULL, &v)) != CN_OK || (st = cn__onnx_out (nc, 0, v, 1)) != CN_OK)
    return st;
  /* output 1 (the indices) is the value after output 0, whether the node stayed or folded */
  return cn__onnx_out (nc, 1, v + 1, 1);
}

/* ArgMax, ArgMin: the index as a float holding an integer. */
static cn_status
op_arg (cn__onnx_node *nc, cn_op op)
{
  int64_t axis, keep, last;
  int x, a = 0, v;
  cn_status st;
  if ((st = cn__onnx_x (nc, &x)) != CN_OK || (st = cn__onnx_attr_int (nc, "axis", 0, &axis)) != CN_OK
      || (st = cn__onnx_attr_int (nc, "keepdims", 1, &keep)) != CN_OK
      || (st = cn__onnx_attr_int (nc, "select_last_index", 0, &last)) != CN_OK
      || (st = cn__onnx_axis (nc, axis, cn__onnx_shape (nc, 0)->rank, "axis", &a)) != CN_OK)
    return st;
  cn_params_argmax p = { a, keep != 0, last != 0 };
  if ((st = cn__onnx_add1 (nc, op, &p, x, NULL, &v)) != CN_OK)
    return st;
  return cn__onnx_out (nc, 0, v, 1);
}

static cn_status op_argmax (cn__onnx_node *nc) { return op_arg (nc, CN_OP_ARGMAX); }
static cn_status op_argmin (cn__onnx_node *nc) { return op_arg (nc, CN_OP_ARGMIN); }

/* CumSum: the running sum along the constant axis; exclusive and reverse are refused. */
static cn_status
op_cumsum (cn__onnx_node *nc)
{
  int64_t ex, rev, axis;
  int x, a = 0, n, v;
  cn_status st;
  if ((st = cn__onnx_x (nc, &x)) != CN_OK || (st = cn__onnx_need (nc, 1)) != CN_OK
      || (st = cn__onnx_attr_int (nc, "exclusive", 0, &ex)) != CN_OK
      || (st = cn__onnx_attr_int (nc, "reverse", 0, &rev)) != CN_OK
      || (st = cn__onnx_const_ints (nc, 1, "axis", &axis, 1, &n)) != CN_OK)
    return st;
  if (ex != 0 || rev != 0)
    return cn_error_set (nc->err, CN_EUNSUPPORTED, "attribute %s = %lld is not supported (only 0)",
                         ex != 0 ? "exclusive" : "reverse", (long long) (ex != 0 ? ex : rev));
  if (n != 1)
    return cn_error_set (nc->err, CN_EINVAL, "the axis must have one entry");
  if ((st = cn__onnx_axis (nc, axis, cn__onnx_shape (nc, 0)->rank, "axis", &a)) != CN_OK)
    return st;
  cn_params_cumulative p = { a };
  if ((st = cn__onnx_add1 (nc, CN_OP_CUMSUM, &p, x, NULL, &v)) != CN_OK)
    return st;
  return cn__onnx_out (nc, 0, v, 1);
}

const struct cn__onnx_handler cn__onnx_scan[] = {
  { "ArgMax", op_argmax, "axis keepdims select_last_index", 0 },
  { "ArgMin", op_argmin, "axis keepdims select_last_index", 0 },
  { "CumSum", op_cumsum, "exclusive reverse", 0 },
  { "TopK", op_topk, "axis k largest sorted", 0 },
  { NULL, NULL, NULL, 0 },
};
