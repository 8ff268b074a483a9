/* SPDX-License-Identifier: MIT */
/* src/io/onnx/random.c: ONNX's random draws and masks (RandomUniform, RandomNormal, their Like
 * forms, Bernoulli, Dropout) onto randUniform, randn, bernoulliMask and lt.  Random draws use
 * certnn's generator (src/ops/random.c, Philox4x32-10) keyed by the seed attribute, which is
 * required: the draws are deterministic but are not onnxruntime's (the same seed gives other
 * numbers).  A draw stays a node (its MPFI enclosure is the draw's range whatever the key, so it
 * never folds unless that range is one point). */
#include <config.h>
#include <math.h>
#include <stdint.h>
#include <string.h>
#include "graph/graph_impl.h"
#include "io/onnx/onnx_impl.h"

/* The floating input 0 of Bernoulli. */
static cn_status
float_in (cn__onnx_node *nc)
{
  cn_status st = cn__onnx_need (nc, 0);
  if (st == CN_OK && !cn_dtype_is_float (cn__onnx_sort (nc, 0)))
    st = cn_error_set (nc->err, CN_EUNSUPPORTED, "input 0 ('%s') holds %s values, FLOAT or DOUBLE expected",
                       nc->in[0]->name, cn__onnx_sort_name (cn__onnx_sort (nc, 0)));
  return st;
}

/* *KEY = the key of a draw, a u64 constant [] holding the attribute seed.  ONNX's seed is a float
 * and may be absent (a fresh draw at every run); certnn's draws are deterministic functions of a
 * key (src/ops/random.c: Philox4x32-10), so the seed is required and must be an integer in
 * [0, 2^53].  The draws are certnn's, not onnxruntime's: the same seed gives other numbers. */
static cn_status
draw_key (cn__onnx_node *nc, int *key)
{
  double seed;
  cn_status st;
  if (cn__onnx_attr (nc, "seed") == NULL)
    return cn_error_set (nc->err, CN_EUNSUPPORTED, "attribute seed is missing: certnn's draws are deterministic "
                         "functions of a key, so a model must give the seed");
  if ((st = cn__onnx_attr_float (nc, "seed", 0, &seed)) != CN_OK)
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
  st = cn__onnx_add_const (nc, &t, "key", key);
  cn_tensor_clear (&t);
  return st;
}

/* The output type of a draw: attribute dtype (default DEF, an ONNX type), which must be FLOAT or
 * DOUBLE (the model's scalar) unless ANY_SORT; *TO receives its sort. */
static cn_status
draw_dtype (cn__onnx_node *nc, int64_t def, int any_sort, cn_dtype *to)
{
  int64_t dt;
  cn_status st = cn__onnx_attr_int (nc, "dtype", def, &dt);
  if (st != CN_OK)
    return st;
  *to = cn__onnx_sort_of_type (dt);
  if (*to == CN_DTYPE_COUNT || cn_dtype_is_reduced (*to) || (!any_sort && !cn_dtype_is_float (*to)))
    return cn_error_set (nc->err, CN_EUNSUPPORTED, "attribute dtype = %s is not supported (FLOAT or DOUBLE%s)",
                         cn__onnx_type_name ((int32_t) dt), any_sort ? ", BOOL or an integer type" : "");
  return CN_OK;
}

/* RandomUniform, RandomNormal and their Like forms: randUniform {shape, low, high} or randn
 * {shape, mean, scale} of the key (draw_key), the shape from the attribute or from input 0
 * (its values unused). */
static cn_status
op_random (cn__onnx_node *nc, int normal, int like)
{
  cn_status st;
  cn_shape s;
  cn_dtype to;
  int64_t def = ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT;
  if (like)
    {
      if ((st = cn__onnx_need (nc, 0)) != CN_OK)
        return st;
      s = *cn__onnx_shape (nc, 0);
      cn_dtype is = cn__onnx_sort (nc, 0);
      def = is == CN_DTYPE_F64    ? ONNX__TENSOR_PROTO__DATA_TYPE__DOUBLE
            : is == CN_DTYPE_F32  ? ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT
            : is == CN_DTYPE_F16  ? ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT16    /* refused by draw_dtype */
            : is == CN_DTYPE_BF16 ? ONNX__TENSOR_PROTO__DATA_TYPE__BFLOAT16
                                  : ONNX__TENSOR_PROTO__DATA_TYPE__INT64;
    }
  else
    {
      int64_t d[CN_MAX_RANK + 1];
      int n;
      if ((st = cn__onnx_attr_ints (nc, "shape", d, CN_MAX_RANK + 1, &n)) != CN_OK)
        return st;
      if (n < 0)
        return cn_error_set (nc->err, CN_EPARSE, "attribute shape is missing");
      if ((st = cn__onnx_make_shape (nc, n, d, &s)) != CN_OK)
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
      if ((st = cn__onnx_attr_finite (nc, "mean", 0.0, &p.mean)) != CN_OK
          || (st = cn__onnx_attr_finite (nc, "scale", 1.0, &p.std)) != CN_OK)
        return st;
      if ((st = draw_key (nc, &key)) != CN_OK || (st = cn__onnx_add1 (nc, CN_OP_RANDN, &p, key, NULL, &v)) != CN_OK)
        return st;
    }
  else
    {
      cn_params_rand_uniform p;
      memset (&p, 0, sizeof p);
      p.shape = s;
      if ((st = cn__onnx_attr_finite (nc, "low", 0.0, &p.lo)) != CN_OK
          || (st = cn__onnx_attr_finite (nc, "high", 1.0, &p.hi)) != CN_OK)
        return st;
      if ((st = draw_key (nc, &key)) != CN_OK
          || (st = cn__onnx_add1 (nc, CN_OP_RAND_UNIFORM, &p, key, NULL, &v)) != CN_OK)
        return st;
    }
  return cn__onnx_out (nc, 0, v, 1);
}

static cn_status op_random_uniform (cn__onnx_node *nc) { return op_random (nc, 0, 0); }
static cn_status op_random_normal (cn__onnx_node *nc) { return op_random (nc, 1, 0); }
static cn_status op_random_uniform_like (cn__onnx_node *nc) { return op_random (nc, 0, 1); }
static cn_status op_random_normal_like (cn__onnx_node *nc) { return op_random (nc, 1, 1); }

/* Bernoulli (opset 15): y_j = 1 with probability x_j, on the key of the seed.  A constant x whose
 * entries all equal one p is bernoulliMask {shape, p} (1 iff u_j < p); any other x (a value of
 * the model's scalar) is lt (randUniform {shape, 0, 1}, x): the same u_j, the same comparison
 * (in an f32 evaluation u_j is rounded to binary32 before it is compared).  dtype FLOAT or DOUBLE
 * keeps the model's scalar; BOOL and the integer types are a cast of the 0/1 result. */
static cn_status
op_bernoulli (cn__onnx_node *nc)
{
  cn_status st = float_in (nc);
  if (st != CN_OK)
    return st;
  cn_dtype to, is = cn__onnx_sort (nc, 0);
  if ((st = draw_dtype (nc, is == CN_DTYPE_F64 ? ONNX__TENSOR_PROTO__DATA_TYPE__DOUBLE
                        : ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT, 1, &to)) != CN_OK)
    return st;
  cn_shape s0 = *cn__onnx_shape (nc, 0);
  const cn_shape *s = &s0;
  const cn_tensor *c = cn__onnx_const (nc, 0);
  int key, v, same = c != NULL && cn_tensor_numel (c) > 0;
  double p = same ? cn_tensor_get_f64 (c, 0) : 0;
  for (int64_t i = 1; same && i < cn_tensor_numel (c); i++)
    same = cn_tensor_get_f64 (c, i) == p;
  int is_bool = 0;
  if ((st = draw_key (nc, &key)) != CN_OK)
    return st;
  if (same)
    {
      cn_params_bernoulli pb;
      memset (&pb, 0, sizeof pb);
      pb.shape = *s;
      pb.p = p;
      st = cn__onnx_add1 (nc, CN_OP_BERNOULLI_MASK, &pb, key, cn_dtype_is_float (to) ? NULL : "mask", &v);
    }
  else
    {
      cn_params_rand_uniform pu;
      int u, x;
      memset (&pu, 0, sizeof pu);
      pu.shape = *s;
      pu.hi = 1.0;
      if ((st = cn__onnx_add1 (nc, CN_OP_RAND_UNIFORM, &pu, key, "uniform", &u)) == CN_OK
          && (st = cn__onnx_in (nc, 0, &x)) == CN_OK)
        st = cn__onnx_add2 (nc, CN_OP_LT, NULL, u, x, to == CN_DTYPE_BOOL ? NULL : "draw", &v);
      is_bool = 1;
    }
  if (st != CN_OK)
    return st;
  if ((is_bool && to != CN_DTYPE_BOOL) || (!is_bool && !cn_dtype_is_float (to)))
    {
      cn_params_cast pc = { cn_dtype_is_float (to) ? CN_DTYPE_F64 : to };
      if ((st = cn__onnx_add1 (nc, CN_OP_CAST, &pc, v, NULL, &v)) != CN_OK)
        return st;
    }
  return cn__onnx_out (nc, 0, v, 1);
}

/* Dropout in inference (training_mode false, the only mode supported) is the identity; its mask
 * output, where wanted, is all true (a BOOL constant).  Opset 12 moved ratio and training_mode to
 * inputs. */
static cn_status
op_dropout (cn__onnx_node *nc)
{
  cn_status st = cn__onnx_need (nc, 0);
  if (st != CN_OK)
    return st;
  if (cn__onnx_has (nc, 2))
    {
      const cn_tensor *t = cn__onnx_const (nc, 2);
      if (t == NULL || cn_tensor_numel (t) != 1)
        return cn_error_set (nc->err, CN_EUNSUPPORTED, "training_mode must be a constant scalar");
      if (cn_tensor_get_f64 (t, 0) != 0)
        return cn_error_set (nc->err, CN_EUNSUPPORTED, "training_mode = true is not supported (inference only)");
    }
  if ((st = cn__onnx_out_alias (nc, 0, 0)) != CN_OK)
    return st;
  if (cn__onnx_out_wanted (nc, 1))
    {
      cn_tensor m;
      if ((st = cn_tensor_init (&m, CN_DTYPE_BOOL, cn__onnx_shape (nc, 0), nc->err)) != CN_OK)
        return st;
      memset (m.data, 1, (size_t) cn_tensor_numel (&m));
      st = cn__onnx_out_const (nc, 1, &m);
      cn_tensor_clear (&m);
      return st;
    }
  return CN_OK;
}

const struct cn__onnx_handler cn__onnx_random[] = {
  { "Bernoulli", op_bernoulli, "dtype seed", 1 },
  { "Dropout", op_dropout, "ratio seed", 0 },
  { "RandomNormal", op_random_normal, "dtype mean scale seed shape", 1 },
  { "RandomNormalLike", op_random_normal_like, "dtype mean scale seed", 1 },
  { "RandomUniform", op_random_uniform, "dtype high low seed shape", 1 },
  { "RandomUniformLike", op_random_uniform_like, "dtype high low seed", 1 },
  { NULL, NULL, NULL, 0 },
};
