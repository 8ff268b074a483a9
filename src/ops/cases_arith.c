/* SPDX-License-Identifier: MIT */
/* src/ops/cases_arith.c: random instances of the elementwise arithmetic operators beyond add,
 * sub, mul, div and neg (abs ... smoothAbs).  Operators with a restricted domain, a pole or a
 * divisor get an input range (x_lo, x_hi) or a constant operand away from the singularity, where
 * the generic tests' relative tolerances (forward in binary32, central differences) hold. */
#include <config.h>
#include <math.h>
#include "ops/cases_impl.h"

/* A random shape of rank 1 to 3 with small extents, for all N inputs. */
static void
shapes (cn__rng *r, struct cn__op_case *c, int n)
{
  int rank = (int) cn__rng_int (r, 1, 3);
  int64_t d[3];
  for (int a = 0; a < rank; a++)
    d[a] = cn__rng_int (r, 1, 4);
  c->n_in = n;
  for (int i = 0; i < n; i++)
    cn_shape_make (&c->in_shape[i], rank, d, NULL);
}

/* Input I a constant divisor in +-[0.5, 2]. */
static void
divisor (cn__rng *r, struct cn__op_case *c, int i)
{
  if (cn__rng_next (r) & 1)
    cn__case_set_const (c, i, 0.5, 2);
  else
    cn__case_set_const (c, i, -2, -0.5);
}

/* The non-constant inputs in [0.5, 2] or [-2, -0.5]. */
static void
away_from_zero (cn__rng *r, struct cn__op_case *c, double a, double b)
{
  if (cn__rng_next (r) & 1)
    c->x_lo = a, c->x_hi = b;
  else
    c->x_lo = -b, c->x_hi = -a;
}

/* The element sort of pow and remainder (the seed's element argument), drawn without Booleans
 * (refused at arithmetic) and put on both ports; for words the case is redrawn here (see the
 * cases) and 1 returned.  X stays within 2^24 (an f32 evaluation holds X in binary32). */
static int
word_sort_case (cn__rng *r, struct cn__op_case *c, cn_dtype *t, int *sgn, double *xmax)
{
  *t = cn__case_element_sort (r, c, 0);
  if (*t == CN_DTYPE_F64)
    return 0;
  int bits = 8 * (int) cn_dtype_size (*t);
  *sgn = *t <= CN_DTYPE_I64;
  *xmax = bits - *sgn < 24 ? ldexp (1, bits - *sgn) - 1 : 0x1p24;
  for (int i = 0; i < 2; i++)
    {
      c->in_dtype[i] = *t;
      c->in_const[i] = 0;
    }
  c->x_integer = 1;
  return 1;
}

int
cn__cases_arith (cn_op op, struct cn__op_case *c, cn__rng *r)
{
  switch (op)
    {
    case CN_OP_ABS:
    case CN_OP_SQUARE:
      shapes (r, c, 1);
      c->crown_ok = 1;
      return 1;
    case CN_OP_SQRT:
      shapes (r, c, 1);
      c->crown_ok = 1;
      c->params.sqrt.mode = cn__rng_next (r) & 1 ? CN_SQRT_RAW : CN_SQRT_CLAMP_NEGATIVE;
      if (c->params.sqrt.mode == CN_SQRT_RAW)
        c->x_lo = 0.05, c->x_hi = 4;
      else
        c->x_lo = -1, c->x_hi = 4;
      return 1;
    case CN_OP_RSQRT:
      shapes (r, c, 1);
      c->crown_ok = 1;
      c->x_lo = 0.05, c->x_hi = 4;
      return 1;
    case CN_OP_CBRT:
    case CN_OP_RECIPROCAL:
      shapes (r, c, 1);
      c->crown_ok = 1;
      away_from_zero (r, c, 0.2, 4);
      return 1;
    case CN_OP_POW:
      shapes (r, c, 2);
      switch ((int) cn__rng_int (r, 0, 2))
        {
        case 0:                 /* both varying, a positive base */
          c->x_lo = 0.2, c->x_hi = 3;
          break;
        case 1:                 /* a constant positive integer exponent, any base */
          {
            double n = (double) cn__rng_int (r, 0, 3);
            cn__case_set_const (c, 1, n, n);
            c->crown_ok = 1;    /* the relaxation of x^n */
          }
          break;
        default:                /* a constant negative or fractional exponent, a positive base */
          {
            static const double e[] = { -2, -1, 0.5, 1.5, -0.75 };
            double v = e[cn__rng_int (r, 0, 4)];
            cn__case_set_const (c, 1, v, v);
            c->crown_ok = 1;
            c->x_lo = 0.2, c->x_hi = 3;
          }
          break;
        }
      {
        cn_dtype t;
        int sgn;
        double xmax;
        if (word_sort_case (r, c, &t, &sgn, &xmax))
          {
            /* words: small bases (both signs) to constant exponents in [0, 40] (8- to 64-bit
             * powers wrap), or both varying in [0, 9] (the exponent's box decides the range) */
            if (cn__rng_int (r, 0, 1))
              {
                c->x_lo = sgn ? -6 : 0, c->x_hi = sgn ? 6 : 12;
                cn__case_set_const (c, 1, 0, 40);
              }
            else
              c->x_lo = 0, c->x_hi = 9;
          }
      }
      return 1;
    case CN_OP_SCALE:
      shapes (r, c, 1);
      c->params.scale.factor = cn__rng_uniform (r, -3, 3);
      c->crown_ok = 1;
      return 1;
    case CN_OP_FMOD:
    case CN_OP_REMAINDER:
      shapes (r, c, 2);
      c->crown_ok = 1;     /* one cell of a constant divisor exactly, else the box */
      if (cn__rng_int (r, 0, 2) > 0)
        divisor (r, c, 1);         /* x varying, a constant divisor */
      else
        {
          cn__case_set_const (c, 0, -5, 5);  /* a constant dividend, the divisor varying away from 0 */
          away_from_zero (r, c, 0.5, 2);
        }
      if (op == CN_OP_REMAINDER)
        {
          cn_dtype t;
          int sgn;
          double xmax;
          if (word_sort_case (r, c, &t, &sgn, &xmax))
            {
              /* words: the dividend over the sort's range (cut to 2^24) and a constant divisor in
               * +-[1, 7] (the minimum over -1 included), or both varying on one side of 0 */
              int neg = sgn && cn__rng_int (r, 0, 1);
              if (cn__rng_int (r, 0, 2) > 0)
                {
                  c->x_lo = sgn ? -xmax - (xmax < 0x1p24) : 0, c->x_hi = xmax;
                  cn__case_set_const (c, 1, neg ? -7 : 1, neg ? -1 : 7);
                }
              else
                c->x_lo = neg ? -100 : 1, c->x_hi = neg ? -1 : 100;
            }
        }
      return 1;
    case CN_OP_HYPOT:
    case CN_OP_COPYSIGN:
    case CN_OP_NEXTAFTER:
      shapes (r, c, 2);
      c->crown_ok = op != CN_OP_NEXTAFTER;
      if (cn__rng_int (r, 0, 3) == 0)
        cn__case_set_const (c, (int) cn__rng_int (r, 0, 1), -2, 2);
      return 1;
    case CN_OP_LERP:
      shapes (r, c, 3);
      c->crown_ok = 1;     /* multilinear planes */
      if (cn__rng_int (r, 0, 2) == 0)
        cn__case_set_const (c, 2, 0, 1);  /* a constant weight */
      return 1;
    case CN_OP_ADDCMUL:
      shapes (r, c, 3);
      c->crown_ok = 1;
      c->params.addc.value = cn__rng_uniform (r, -2, 2);
      if (cn__rng_int (r, 0, 2) == 0)
        cn__case_set_const (c, (int) cn__rng_int (r, 1, 2), -2, 2);
      return 1;
    case CN_OP_ADDCDIV:
      shapes (r, c, 3);
      c->crown_ok = 1;
      c->params.addc.value = cn__rng_uniform (r, -2, 2);
      if (cn__rng_int (r, 0, 2) > 0)
        divisor (r, c, 2);
      else
        c->x_lo = 0.5, c->x_hi = 2;
      return 1;
    case CN_OP_NAN_TO_NUM:
      shapes (r, c, 1);
      c->params.nan_to_num.nan_value = cn__rng_uniform (r, -1, 1);
      c->params.nan_to_num.posinf_set = cn__rng_next (r) & 1;
      c->params.nan_to_num.posinf = cn__rng_uniform (r, 0, 100);
      c->params.nan_to_num.neginf_set = cn__rng_next (r) & 1;
      c->params.nan_to_num.neginf = cn__rng_uniform (r, -100, 0);
      c->crown_ok = 1;
      return 1;
    case CN_OP_FULL_LIKE:
      shapes (r, c, 1);
      c->params.full_like.value = cn__rng_uniform (r, -3, 3);
      c->crown_ok = 1;
      return 1;
    case CN_OP_SAFE_DIV:
      shapes (r, c, 2);
      c->crown_ok = 1;     /* x times 1/(y + eps) */
      c->params.epsilon.eps = cn__rng_uniform (r, 0, 0.1);
      if (cn__rng_int (r, 0, 2) > 0)
        cn__case_set_const (c, 1, 0.5, 2);
      else
        c->x_lo = 0.5, c->x_hi = 2;
      return 1;
    case CN_OP_SAFE_INV:
      shapes (r, c, 1);
      c->crown_ok = 1;
      c->params.epsilon.eps = cn__rng_uniform (r, 0, 0.1);
      if (cn__rng_next (r) & 1)
        c->x_lo = 0.3, c->x_hi = 3;
      else
        c->x_lo = -3, c->x_hi = -0.3;
      return 1;
    case CN_OP_SAFE_LOG:
      shapes (r, c, 1);
      c->params.epsilon.eps = cn__rng_uniform (r, 1e-6, 0.1);
      c->crown_ok = 1;
      return 1;
    case CN_OP_SMOOTH_ABS:
      shapes (r, c, 1);
      c->params.epsilon.eps = cn__rng_uniform (r, 0.01, 1);
      c->crown_ok = 1;
      return 1;
    default:
      return 0;
    }
}
