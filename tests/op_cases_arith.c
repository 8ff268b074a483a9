/* SPDX-License-Identifier: MIT */
/* tests/op_cases_arith.c: random instances of the elementwise arithmetic operators beyond add,
 * sub, mul, div and neg (abs ... smoothAbs).  Operators with a restricted domain, a pole or a
 * divisor get an input range (x_lo, x_hi) or a constant operand away from the singularity, where
 * the generic tests' relative tolerances (forward in binary32, central differences) hold. */
#include <config.h>
#include "testutil.h"

/* A random shape of rank 1 to 3 with small extents, for all N inputs. */
static void
shapes (struct tu_op_case *c, int n)
{
  int rank = (int) tu_int (1, 3);
  int64_t d[3];
  for (int a = 0; a < rank; a++)
    d[a] = tu_int (1, 4);
  c->n_in = n;
  for (int i = 0; i < n; i++)
    cn_shape_make (&c->in_shape[i], rank, d, NULL);
}

/* Input I a constant divisor in +-[0.5, 2]. */
static void
divisor (struct tu_op_case *c, int i)
{
  if (tu_rand () & 1)
    tu_set_const (c, i, 0.5, 2);
  else
    tu_set_const (c, i, -2, -0.5);
}

/* The non-constant inputs in [0.5, 2] or [-2, -0.5]. */
static void
away_from_zero (struct tu_op_case *c, double a, double b)
{
  if (tu_rand () & 1)
    c->x_lo = a, c->x_hi = b;
  else
    c->x_lo = -b, c->x_hi = -a;
}

int
tu_op_case_arith (cn_op op, struct tu_op_case *c)
{
  switch (op)
    {
    case CN_OP_ABS:
    case CN_OP_SQUARE:
      shapes (c, 1);
      return 1;
    case CN_OP_SQRT:
      shapes (c, 1);
      c->params.sqrt.mode = tu_rand () & 1 ? CN_SQRT_RAW : CN_SQRT_CLAMP_NEGATIVE;
      if (c->params.sqrt.mode == CN_SQRT_RAW)
        c->x_lo = 0.05, c->x_hi = 4;
      else
        c->x_lo = -1, c->x_hi = 4;
      return 1;
    case CN_OP_RSQRT:
      shapes (c, 1);
      c->x_lo = 0.05, c->x_hi = 4;
      return 1;
    case CN_OP_CBRT:
    case CN_OP_RECIPROCAL:
      shapes (c, 1);
      away_from_zero (c, 0.2, 4);
      return 1;
    case CN_OP_POW:
      shapes (c, 2);
      switch ((int) tu_int (0, 2))
        {
        case 0:                 /* both varying, a positive base */
          c->x_lo = 0.2, c->x_hi = 3;
          break;
        case 1:                 /* a constant positive integer exponent, any base */
          {
            double n = (double) tu_int (0, 3);
            tu_set_const (c, 1, n, n);
          }
          break;
        default:                /* a constant negative or fractional exponent, a positive base */
          {
            static const double e[] = { -2, -1, 0.5, 1.5, -0.75 };
            double v = e[tu_int (0, 4)];
            tu_set_const (c, 1, v, v);
            c->x_lo = 0.2, c->x_hi = 3;
          }
          break;
        }
      return 1;
    case CN_OP_SCALE:
      shapes (c, 1);
      c->params.scale.factor = tu_uniform (-3, 3);
      return 1;
    case CN_OP_FMOD:
    case CN_OP_REMAINDER:
      shapes (c, 2);
      if (tu_int (0, 2) > 0)
        divisor (c, 1);         /* x varying, a constant divisor */
      else
        {
          tu_set_const (c, 0, -5, 5);  /* a constant dividend, the divisor varying away from 0 */
          away_from_zero (c, 0.5, 2);
        }
      return 1;
    case CN_OP_HYPOT:
    case CN_OP_COPYSIGN:
    case CN_OP_NEXTAFTER:
      shapes (c, 2);
      if (tu_int (0, 3) == 0)
        tu_set_const (c, (int) tu_int (0, 1), -2, 2);
      return 1;
    case CN_OP_LERP:
      shapes (c, 3);
      if (tu_int (0, 2) == 0)
        tu_set_const (c, 2, 0, 1);  /* a constant weight */
      return 1;
    case CN_OP_ADDCMUL:
      shapes (c, 3);
      c->params.addc.value = tu_uniform (-2, 2);
      if (tu_int (0, 2) == 0)
        tu_set_const (c, (int) tu_int (1, 2), -2, 2);
      return 1;
    case CN_OP_ADDCDIV:
      shapes (c, 3);
      c->params.addc.value = tu_uniform (-2, 2);
      if (tu_int (0, 2) > 0)
        divisor (c, 2);
      else
        c->x_lo = 0.5, c->x_hi = 2;
      return 1;
    case CN_OP_NAN_TO_NUM:
      shapes (c, 1);
      c->params.nan_to_num.nan_value = tu_uniform (-1, 1);
      c->params.nan_to_num.posinf_set = tu_rand () & 1;
      c->params.nan_to_num.posinf = tu_uniform (0, 100);
      c->params.nan_to_num.neginf_set = tu_rand () & 1;
      c->params.nan_to_num.neginf = tu_uniform (-100, 0);
      return 1;
    case CN_OP_FULL_LIKE:
      shapes (c, 1);
      c->params.full_like.value = tu_uniform (-3, 3);
      return 1;
    case CN_OP_SAFE_DIV:
      shapes (c, 2);
      c->params.epsilon.eps = tu_uniform (0, 0.1);
      if (tu_int (0, 2) > 0)
        tu_set_const (c, 1, 0.5, 2);
      else
        c->x_lo = 0.5, c->x_hi = 2;
      return 1;
    case CN_OP_SAFE_INV:
      shapes (c, 1);
      c->params.epsilon.eps = tu_uniform (0, 0.1);
      if (tu_rand () & 1)
        c->x_lo = 0.3, c->x_hi = 3;
      else
        c->x_lo = -3, c->x_hi = -0.3;
      return 1;
    case CN_OP_SAFE_LOG:
      shapes (c, 1);
      c->params.epsilon.eps = tu_uniform (1e-6, 0.1);
      return 1;
    case CN_OP_SMOOTH_ABS:
      shapes (c, 1);
      c->params.epsilon.eps = tu_uniform (0.01, 1);
      return 1;
    default:
      return 0;
    }
}
