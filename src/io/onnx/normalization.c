/* SPDX-License-Identifier: MIT */
/* src/io/onnx/normalization.c: ONNX's normalizations (BatchNormalization in inference and in
 * training mode, LayerNormalization, InstanceNormalization) and Softmax, LogSoftmax onto
 * batchNormRunning, batchNorm, layerNorm, softmax and logSoftmax, with the reshapes that bring
 * ONNX's axes to ours. */
#include <config.h>
#include <math.h>
#include <string.h>
#include "graph/graph_impl.h"
#include "io/onnx/onnx_impl.h"

/* BatchNormalization with training_mode = 1 (opset 14 and later): Y from the batch statistics
 * (batchNorm, whose outputs 1 and 2 are the batch mean and biased variance), and the updated
 * running statistics, ONNX's running_mean = input_mean momentum + mean (1 - momentum) and
 * running_var = input_var momentum + var (1 - momentum), as mul and add nodes.  IN holds the
 * graph values of X, scale, B, input_mean and input_var. */
static cn_status
batchnorm_training (cn__onnx_node *nc, const cn_params_batchnorm *p, const int *in)
{
  cn_status st;
  double momentum;
  if (nc->imp->opset < 14)
    return cn_error_set (nc->err, CN_EUNSUPPORTED, "training_mode needs opset 14 or later (the file has %d)",
                         (int) nc->imp->opset);
  if ((st = cn__onnx_attr_float (nc, "momentum", 0.9, &momentum)) != CN_OK)
    return st;
  if (!isfinite (momentum))
    return cn_error_set (nc->err, CN_EINVAL, "momentum %g is not finite", momentum);
  int xsb[3] = { in[0], in[1], in[2] }, y;
  if ((st = cn__onnx_add (nc, CN_OP_BATCH_NORM, p, 3, xsb, NULL, &y)) != CN_OK
      || (st = cn__onnx_out (nc, 0, y, 1)) != CN_OK)
    return st;
  for (int k = 1; k <= 2; k++)
    {
      if (!cn__onnx_out_wanted (nc, k))
        continue;
      /* batchNorm's output K is the value K after its output 0 (whether the node stayed or folded) */
      int stat = y + k, ab[2], r;
      const char *sm = k == 1 ? "momentum_mean" : "momentum_var", *sb = k == 1 ? "batch_mean" : "batch_var";
      if ((st = cn__onnx_mul_scalar (nc, in[2 + k], momentum, sm, &ab[0])) != CN_OK
          || (st = cn__onnx_mul_scalar (nc, stat, 1 - momentum, sb, &ab[1])) != CN_OK
          || (st = cn__onnx_add (nc, CN_OP_ADD, NULL, 2, ab, k == 1 ? "running_mean" : "running_var", &r)) != CN_OK
          || (st = cn__onnx_out (nc, k, r, 1)) != CN_OK)
        return st;
    }
  return CN_OK;
}

static cn_status
op_batchnorm (cn__onnx_node *nc)
{
  cn_status st;
  for (int i = 0; i < 5; i++)
    if ((st = cn__onnx_need (nc, i)) != CN_OK)
      return st;
  double eps;
  int64_t spatial, training;
  if ((st = cn__onnx_attr_float (nc, "epsilon", 1e-5, &eps)) != CN_OK
      || (st = cn__onnx_attr_int (nc, "spatial", 1, &spatial)) != CN_OK
      || (st = cn__onnx_attr_int (nc, "training_mode", 0, &training)) != CN_OK)
    return st;
  if (!spatial)
    return cn_error_set (nc->err, CN_EUNSUPPORTED, "spatial = 0 is not supported");
  if (cn__onnx_shape (nc, 0)->rank < 2)
    return cn_error_set (nc->err, CN_ESHAPE, "the input must have rank 2 or more");
  cn_params_batchnorm p = { 1, eps };
  int in[5], v;
  for (int i = 0; i < 5; i++)
    if ((st = cn__onnx_in (nc, i, &in[i])) != CN_OK)
      return st;
  if (training)
    return batchnorm_training (nc, &p, in);
  for (int k = 1; k < (int) nc->np->n_output; k++)
    if (cn__onnx_out_wanted (nc, k))
      return cn_error_set (nc->err, CN_EUNSUPPORTED, "the training outputs (running statistics) need training_mode = 1 "
                           "(opset 14 or later)");
  if ((st = cn__onnx_add (nc, CN_OP_BATCH_NORM_RUNNING, &p, 5, in, NULL, &v)) != CN_OK)
    return st;
  return cn__onnx_out (nc, 0, v, 1);
}

/* Softmax, LogSoftmax.  From opset 13 over one axis (default -1).  Before, the input is
 * coerced to 2-D [prod(dims < axis), prod(dims >= axis)] (axis default 1) and normalised over
 * the second: written as reshape, softmax over the last axis, reshape back. */
static cn_status
op_softmax_any (cn__onnx_node *nc, cn_op op)
{
  int64_t axis;
  int x, a = 0, r, v;
  cn_status st;
  if ((st = cn__onnx_x (nc, &x)) != CN_OK)
    return st;
  cn_shape s0 = *cn__onnx_shape (nc, 0);
  const cn_shape *s = &s0;
  int old = nc->imp->opset < 13;
  if ((st = cn__onnx_attr_int (nc, "axis", old ? 1 : -1, &axis)) != CN_OK
      || (st = cn__onnx_axis (nc, axis, s->rank, "axis", &a)) != CN_OK)
    return st;
  cn_params_softmax p = { a };
  if (!old || a == s->rank - 1)
    st = cn__onnx_add1 (nc, op, &p, x, NULL, &v);
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
      if ((st = cn__onnx_reshape (nc, x, &t, "flat", &r)) == CN_OK
          && (st = cn__onnx_add1 (nc, op, &p, r, "normalised", &r)) == CN_OK)
        st = cn__onnx_reshape (nc, r, &u, NULL, &v);
    }
  return st != CN_OK ? st : cn__onnx_out (nc, 0, v, 1);
}

static cn_status op_softmax (cn__onnx_node *nc) { return op_softmax_any (nc, CN_OP_SOFTMAX); }
static cn_status op_log_softmax (cn__onnx_node *nc) { return op_softmax_any (nc, CN_OP_LOG_SOFTMAX); }

/* *V = input I (a constant or a graph value) reshaped to SHAPE. */
static cn_status
input_as (cn__onnx_node *nc, int i, const cn_shape *shape, const char *suffix, int *v)
{
  char a[128], b[128];
  if (cn_shape_numel (cn__onnx_shape (nc, i)) != cn_shape_numel (shape))
    return cn_error_set (nc->err, CN_ESHAPE, "input %d has shape %s, expected %lld entries (%s)", i,
                         cn_shape_format (cn__onnx_shape (nc, i), a, sizeof a), (long long) cn_shape_numel (shape),
                         cn_shape_format (shape, b, sizeof b));
  int x;
  cn_status st = cn__onnx_in (nc, i, &x);
  return st != CN_OK ? st : cn__onnx_reshape (nc, x, shape, suffix, v);
}

/* LayerNormalization (opset 17): over the axes >= axis, written as a layerNorm over the last
 * axis of x reshaped to [prod(dims < axis), prod(dims >= axis)], its weight and bias (zeros if
 * absent) reshaped to vectors.  Only the first output (Y) and stash_type 1 are supported. */
static cn_status
op_layer_norm (cn__onnx_node *nc)
{
  int64_t axis, stash;
  double eps;
  int x, in[3], r, v, a = 0;
  cn_status st;
  if ((st = cn__onnx_x (nc, &x)) != CN_OK || (st = cn__onnx_need (nc, 1)) != CN_OK
      || (st = cn__onnx_attr_int (nc, "axis", -1, &axis)) != CN_OK
      || (st = cn__onnx_attr_int (nc, "stash_type", 1, &stash)) != CN_OK
      || (st = cn__onnx_attr_float (nc, "epsilon", (double) 1e-5f, &eps)) != CN_OK)
    return st;
  if (stash != 1)
    return cn_error_set (nc->err, CN_EUNSUPPORTED, "attribute stash_type = %lld is not supported", (long long) stash);
  if (!(eps > 0) || !isfinite (eps))
    return cn_error_set (nc->err, CN_EUNSUPPORTED, "attribute epsilon = %g is not supported (finite, > 0)", eps);
  if (cn__onnx_out_wanted (nc, 1) || cn__onnx_out_wanted (nc, 2))
    return cn_error_set (nc->err, CN_EUNSUPPORTED, "the Mean and InvStdDev outputs are not supported");
  cn_shape u = *cn__onnx_shape (nc, 0), t, w;
  const cn_shape *s = &u;
  if ((st = cn__onnx_axis (nc, axis, s->rank, "axis", &a)) != CN_OK)
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
  if ((st = cn__onnx_reshape (nc, x, &t, "flat", &in[0])) != CN_OK
      || (st = input_as (nc, 1, &w, "weight", &in[1])) != CN_OK)
    return st;
  if (cn__onnx_has (nc, 2))
    st = input_as (nc, 2, &w, "bias", &in[2]);
  else
    st = cn__onnx_fill (nc, CN_DTYPE_F64, &w, 0.0, "bias", &in[2]);
  if (st != CN_OK || (st = cn__onnx_add (nc, CN_OP_LAYER_NORM, &p, 3, in, "normalised", &r)) != CN_OK
      || (st = cn__onnx_reshape (nc, r, &u, NULL, &v)) != CN_OK)
    return st;
  return cn__onnx_out (nc, 0, v, 1);
}

/* InstanceNormalization: per sample and channel over the spatial axes: x [N, C, S...] reshaped
 * to [N, C, prod S], layerNorm without affine over the last axis, reshaped back, then
 * y = n scale[c] + B[c] (mul and add of the parameters broadcast to x's shape). */
static cn_status
op_instance_norm (cn__onnx_node *nc)
{
  double eps;
  int x, r, n, sc, b, m, v;
  cn_status st;
  if ((st = cn__onnx_x (nc, &x)) != CN_OK || (st = cn__onnx_need (nc, 1)) != CN_OK
      || (st = cn__onnx_need (nc, 2)) != CN_OK
      || (st = cn__onnx_attr_float (nc, "epsilon", (double) 1e-5f, &eps)) != CN_OK)
    return st;
  if (!(eps > 0) || !isfinite (eps))
    return cn_error_set (nc->err, CN_EUNSUPPORTED, "attribute epsilon = %g is not supported (finite, > 0)", eps);
  cn_shape u = *cn__onnx_shape (nc, 0), t, cs;
  const cn_shape *s = &u;
  if (s->rank < 3)
    return cn_error_set (nc->err, CN_ESHAPE, "the input must have rank 3 or more");
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
  if ((st = cn__onnx_reshape (nc, x, &t, "flat", &r)) != CN_OK
      || (st = cn__onnx_add1 (nc, CN_OP_LAYER_NORM, &p, r, "normalised", &n)) != CN_OK
      || (st = cn__onnx_reshape (nc, n, &u, "unflat", &n)) != CN_OK
      || (st = input_as (nc, 1, &cs, "scale", &ps)) != CN_OK || (st = input_as (nc, 2, &cs, "B", &pb)) != CN_OK
      || (st = cn__onnx_broadcast (nc, ps, &u, "scale_b", &sc)) != CN_OK
      || (st = cn__onnx_broadcast (nc, pb, &u, "B_b", &b)) != CN_OK
      || (st = cn__onnx_add2 (nc, CN_OP_MUL, NULL, n, sc, "scaled", &m)) != CN_OK
      || (st = cn__onnx_add2 (nc, CN_OP_ADD, NULL, m, b, NULL, &v)) != CN_OK)
    return st;
  return cn__onnx_out (nc, 0, v, 1);
}

const struct cn__onnx_handler cn__onnx_normalization[] = {
  { "BatchNormalization", op_batchnorm, "epsilon momentum spatial training_mode", 0 },
  { "InstanceNormalization", op_instance_norm, "epsilon", 0 },
  { "LayerNormalization", op_layer_norm, "axis epsilon stash_type", 0 },
  { "LogSoftmax", op_log_softmax, "axis", 0 },
  { "Softmax", op_softmax, "axis", 0 },
  { NULL, NULL, NULL, 0 },
};
