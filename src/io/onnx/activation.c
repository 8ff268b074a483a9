/* SPDX-License-Identifier: MIT */
/* src/io/onnx/activation.c: ONNX's activations onto the activation operators (relu, sigmoid,
 * tanh, softplus, elu, leakyReLU) and, where ONNX composes them, onto the elementwise operators:
 * Selu, Celu, HardSigmoid, HardSwish, Softsign, Shrink (softshrink) and PRelu.  Every composition
 * is the real function the ONNX specification states, written with its constants as binary64
 * numbers (the specification's defaults are binary32 numbers). */
#include <config.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "graph/graph_impl.h"
#include "io/onnx/onnx_impl.h"

/* *V = OP (input 0) with the attribute record PARAMS (NULL for none). */
static cn_status
unary (cn__onnx_node *nc, cn_op op, const void *params, int *v)
{
  int x;
  cn_status st = cn__onnx_x (nc, &x);
  return st != CN_OK ? st : cn__onnx_add1 (nc, op, params, x, NULL, v);
}

/* Relu, Sigmoid, Tanh, Softplus (log(exp(x) + 1) in both): one operator each. */
static cn_status
op_unary (cn__onnx_node *nc, cn_op op)
{
  int v;
  cn_status st = unary (nc, op, NULL, &v);
  return st != CN_OK ? st : cn__onnx_out (nc, 0, v, 1);
}

static cn_status op_relu (cn__onnx_node *nc) { return op_unary (nc, CN_OP_RELU); }
static cn_status op_sigmoid (cn__onnx_node *nc) { return op_unary (nc, CN_OP_SIGMOID); }
static cn_status op_tanh (cn__onnx_node *nc) { return op_unary (nc, CN_OP_TANH); }
static cn_status op_softplus (cn__onnx_node *nc) { return op_unary (nc, CN_OP_SOFTPLUS); }

/* Elu: y = x for x > 0, alpha (exp(x) - 1) otherwise (alpha defaults to 1). */
static cn_status
op_elu (cn__onnx_node *nc)
{
  cn_params_elu p;
  int v;
  memset (&p, 0, sizeof p);
  cn_status st = cn__onnx_attr_finite (nc, "alpha", 1.0, &p.alpha);
  if (st == CN_OK)
    st = unary (nc, CN_OP_ELU, &p, &v);
  return st != CN_OK ? st : cn__onnx_out (nc, 0, v, 1);
}

/* LeakyRelu: y = x for x > 0, alpha x otherwise (alpha defaults to 0.01, a binary32 number). */
static cn_status
op_leaky_relu (cn__onnx_node *nc)
{
  cn_params_leaky_relu p;
  int v;
  memset (&p, 0, sizeof p);
  cn_status st = cn__onnx_attr_finite (nc, "alpha", (double) 0.01f, &p.negative_slope);
  if (st == CN_OK)
    st = unary (nc, CN_OP_LEAKY_RE_LU, &p, &v);
  return st != CN_OK ? st : cn__onnx_out (nc, 0, v, 1);
}

/* Selu: y = gamma elu(x; alpha), an elu node and a mul by the constant gamma (defaults: the
 * binary32 numbers of the ONNX specification). */
static cn_status
op_selu (cn__onnx_node *nc)
{
  cn_params_elu p;
  double gamma;
  int e, v;
  memset (&p, 0, sizeof p);
  cn_status st = cn__onnx_attr_finite (nc, "alpha", (double) 1.67326319217681884765625f, &p.alpha);
  if (st == CN_OK)
    st = cn__onnx_attr_finite (nc, "gamma", (double) 1.05070102214813232421875f, &gamma);
  if (st == CN_OK)
    st = unary (nc, CN_OP_ELU, &p, &e);
  if (st == CN_OK)
    st = cn__onnx_mul_scalar (nc, e, gamma, "gamma", &v);
  return st != CN_OK ? st : cn__onnx_out (nc, 0, v, 1);
}

/* Celu: max(0, x) + min(0, alpha (exp(x/alpha) - 1)) = alpha elu(x/alpha; 1) for alpha > 0: an
 * elu node for alpha = 1, else a division by alpha, elu and a mul by alpha. */
static cn_status
op_celu (cn__onnx_node *nc)
{
  double alpha;
  int x, a, e, v;
  cn_params_elu p = { 1.0 };
  cn_status st;
  if ((st = cn__onnx_attr_finite (nc, "alpha", 1.0, &alpha)) != CN_OK || (st = cn__onnx_x (nc, &x)) != CN_OK)
    return st;
  if (!(alpha > 0))
    return cn_error_set (nc->err, CN_EUNSUPPORTED, "attribute alpha = %g is not supported (alpha > 0)", alpha);
  if (alpha == 1)
    st = cn__onnx_add1 (nc, CN_OP_ELU, &p, x, NULL, &v);
  else
    {
      int c;
      cn_params_div pd = { CN_DIV_TRUE };
      if ((st = cn__onnx_fill (nc, CN_DTYPE_F64, cn_graph_value_shape (nc->imp->g, x), alpha, "alpha", &c)) == CN_OK
          && (st = cn__onnx_add2 (nc, CN_OP_DIV, &pd, x, c, "scaled", &a)) == CN_OK
          && (st = cn__onnx_add1 (nc, CN_OP_ELU, &p, a, "elu", &e)) == CN_OK)
        st = cn__onnx_mul_scalar (nc, e, alpha, "alpha", &v);
    }
  return st != CN_OK ? st : cn__onnx_out (nc, 0, v, 1);
}

/* *V = clamp(alpha x + beta, 0, 1), or clamp(x / DIVISOR + beta, 0, 1) when DIVISOR != 0. */
static cn_status
hard_sigmoid (cn__onnx_node *nc, int x, double alpha, double divisor, double beta, int *v)
{
  int a, b, c;
  cn_status st;
  if (divisor != 0)
    {
      cn_params_div pd = { CN_DIV_TRUE };
      if ((st = cn__onnx_fill (nc, CN_DTYPE_F64, cn_graph_value_shape (nc->imp->g, x), divisor, "divisor", &c)) != CN_OK
          || (st = cn__onnx_add2 (nc, CN_OP_DIV, &pd, x, c, "scaled", &a)) != CN_OK)
        return st;
    }
  else
    {
      cn_params_scale ps = { alpha };
      if ((st = cn__onnx_add1 (nc, CN_OP_SCALE, &ps, x, "scaled", &a)) != CN_OK)
        return st;
    }
  if ((st = cn__onnx_fill (nc, CN_DTYPE_F64, cn_graph_value_shape (nc->imp->g, x), beta, "beta", &c)) != CN_OK
      || (st = cn__onnx_add2 (nc, CN_OP_ADD, NULL, a, c, "shifted", &b)) != CN_OK)
    return st;
  return cn__onnx_clamp (nc, b, 0.0, 1.0, "clamped", v);
}

/* HardSigmoid: max(0, min(1, alpha x + beta)) (alpha 0.2, beta 0.5: binary32 numbers): a scale
 * node, an add of the constant beta and a clamp to [0, 1]. */
static cn_status
op_hard_sigmoid (cn__onnx_node *nc)
{
  double alpha, beta;
  int x, v;
  cn_status st;
  if ((st = cn__onnx_attr_finite (nc, "alpha", (double) 0.2f, &alpha)) != CN_OK
      || (st = cn__onnx_attr_finite (nc, "beta", (double) 0.5f, &beta)) != CN_OK || (st = cn__onnx_x (nc, &x)) != CN_OK
      || (st = hard_sigmoid (nc, x, alpha, 0, beta, &v)) != CN_OK)
    return st;
  return cn__onnx_out (nc, 0, v, 1);
}

/* HardSwish: x max(0, min(1, x/6 + 1/2)); the real 1/6 is written as a division by 6. */
static cn_status
op_hard_swish (cn__onnx_node *nc)
{
  int x, h, v;
  cn_status st;
  if ((st = cn__onnx_x (nc, &x)) != CN_OK || (st = hard_sigmoid (nc, x, 0, 6.0, 0.5, &h)) != CN_OK
      || (st = cn__onnx_add2 (nc, CN_OP_MUL, NULL, x, h, NULL, &v)) != CN_OK)
    return st;
  return cn__onnx_out (nc, 0, v, 1);
}

/* Softsign: x / (1 + |x|). */
static cn_status
op_softsign (cn__onnx_node *nc)
{
  int x, a, c, d, v;
  cn_params_div pd = { CN_DIV_TRUE };
  cn_status st;
  if ((st = cn__onnx_x (nc, &x)) != CN_OK || (st = cn__onnx_add1 (nc, CN_OP_ABS, NULL, x, "abs", &a)) != CN_OK
      || (st = cn__onnx_fill (nc, CN_DTYPE_F64, cn_graph_value_shape (nc->imp->g, x), 1.0, "one", &c)) != CN_OK
      || (st = cn__onnx_add2 (nc, CN_OP_ADD, NULL, c, a, "denominator", &d)) != CN_OK
      || (st = cn__onnx_add2 (nc, CN_OP_DIV, &pd, x, d, NULL, &v)) != CN_OK)
    return st;
  return cn__onnx_out (nc, 0, v, 1);
}

/* Shrink with bias = lambd (softshrink): x - clamp(x, -lambd, lambd), which is x - lambd above
 * lambd, x + lambd below -lambd and 0 between.  Other biases (hardshrink) are refused. */
static cn_status
op_shrink (cn__onnx_node *nc)
{
  double lambd, bias;
  int x, c, v;
  cn_status st;
  if ((st = cn__onnx_attr_finite (nc, "lambd", (double) 0.5f, &lambd)) != CN_OK
      || (st = cn__onnx_attr_finite (nc, "bias", 0.0, &bias)) != CN_OK || (st = cn__onnx_x (nc, &x)) != CN_OK)
    return st;
  if (bias != lambd || !(lambd >= 0))
    return cn_error_set (nc->err, CN_EUNSUPPORTED,
                         "bias = %g with lambd = %g is not supported (only bias = lambd >= 0, softshrink)", bias,
                         lambd);
  if ((st = cn__onnx_clamp (nc, x, -lambd, lambd, "clamped", &c)) != CN_OK
      || (st = cn__onnx_add2 (nc, CN_OP_SUB, NULL, x, c, NULL, &v)) != CN_OK)
    return st;
  return cn__onnx_out (nc, 0, v, 1);
}

/* PRelu: leakyReLU when the slope is one constant for every entry; otherwise, with the slope
 * broadcast to x's shape, relu(x) + slope (x - relu(x)) (x - relu(x) = min(x, 0) exactly). */
static cn_status
op_prelu (cn__onnx_node *nc)
{
  int x, p, n, s, m, v;
  cn_status st;
  if ((st = cn__onnx_x (nc, &x)) != CN_OK || (st = cn__onnx_need (nc, 1)) != CN_OK)
    return st;
  const cn_tensor *c = cn__onnx_const (nc, 1);
  cn_shape xs = *cn__onnx_shape (nc, 0), bs;
  if (c != NULL && cn_dtype_is_float (c->dtype) && cn_tensor_numel (c) >= 1)
    {
      int64_t k = cn_tensor_numel (c);
      double a = cn_tensor_get_f64 (c, 0);
      int same = isfinite (a);
      for (int64_t i = 1; i < k && same; i++)
        same = cn_tensor_get_f64 (c, i) == a;
      if (same && cn__onnx_broadcast_shape (&xs, &c->shape, &bs) && cn_shape_equal (&bs, &xs))
        {
          cn_params_leaky_relu pl = { a };
          if ((st = cn__onnx_add1 (nc, CN_OP_LEAKY_RE_LU, &pl, x, NULL, &v)) != CN_OK)
            return st;
          return cn__onnx_out (nc, 0, v, 1);
        }
    }
  char a1[128], a2[128];
  if (!cn__onnx_broadcast_shape (&xs, cn__onnx_shape (nc, 1), &bs) || !cn_shape_equal (&bs, &xs))
    return cn_error_set (nc->err, CN_ESHAPE, "slope shape %s does not broadcast to %s",
                         cn_shape_format (cn__onnx_shape (nc, 1), a1, sizeof a1), cn_shape_format (&xs, a2, sizeof a2));
  if ((st = cn__onnx_operand_at (nc, 1, &xs, "slope", &s)) != CN_OK
      || (st = cn__onnx_add1 (nc, CN_OP_RELU, NULL, x, "pos", &p)) != CN_OK
      || (st = cn__onnx_add2 (nc, CN_OP_SUB, NULL, x, p, "neg", &n)) != CN_OK
      || (st = cn__onnx_add2 (nc, CN_OP_MUL, NULL, s, n, "scaled", &m)) != CN_OK
      || (st = cn__onnx_add2 (nc, CN_OP_ADD, NULL, p, m, NULL, &v)) != CN_OK)
    return st;
  return cn__onnx_out (nc, 0, v, 1);
}

const struct cn__onnx_handler cn__onnx_activation[] = {
  { "Celu", op_celu, "alpha", 0 },
  { "Elu", op_elu, "alpha", 0 },
  { "HardSigmoid", op_hard_sigmoid, "alpha beta", 0 },
  { "HardSwish", op_hard_swish, "", 0 },
  { "LeakyRelu", op_leaky_relu, "alpha", 0 },
  { "PRelu", op_prelu, "", 0 },
  { "Relu", op_relu, "", 0 },
  { "Selu", op_selu, "alpha gamma", 0 },
  { "Shrink", op_shrink, "bias lambd", 0 },
  { "Sigmoid", op_sigmoid, "", 0 },
  { "Softplus", op_softplus, "", 0 },
  { "Softsign", op_softsign, "", 0 },
  { "Tanh", op_tanh, "", 0 },
  { NULL, NULL, NULL, 0 },
};
