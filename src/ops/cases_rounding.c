/* SPDX-License-Identifier: MIT */
/* src/ops/cases_rounding.c: random instances of the roundings and signs (floor, ceil, round,
 * trunc, frac, sign) and of the extrema (max, min, fmax, fmin, clamp) for the generic tests.
 *
 * The default draws (boxes of centres in [-2, 2] and widths up to 6) straddle the jumps of the
 * roundings at the integers and half-integers often, which is what the IBP and MPFI checks of
 * tests/check_ops.c need.  The central differences of tests/check_grad.c redraw a point within a
 * step of a jump: there the second difference phi(h) - 2 phi(0) + phi(-h) is of the order of the
 * jump, not of h^2.  One jump escapes that detector: sign at x = 0 exactly, where the second
 * difference vanishes (-1, 0, 1) while the first is 2/(2h).  Points are grid values of 2^-20, so
 * x = 0 is drawn with probability about 2^-22 per entry; to keep that out of most runs, two sign
 * cases in three get an input range on one side of 0 ([2^-8, 2] or [-2, -2^-8]) and the third
 * the range [-2, 2] that straddles it (for IBP).  The residual chance of a spurious failure is
 * about 1e-4 per run of check_grad.
 *
 * clamp's bounds are constant scalars (frozen ports get no gradient, so a varying bound would
 * fail the central differences of check_grad); lo is drawn in [-1.5, 0.5] and hi in [-0.5, 1.5],
 * so lo > hi (clamp constant hi) occurs too. */
#include <config.h>
#include <math.h>
#include "ops/cases_impl.h"

int
cn__cases_rounding (cn_op op, struct cn__op_case *c, cn__rng *r)
{
  switch (op)
    {
    case CN_OP_FLOOR:
    case CN_OP_CEIL:
    case CN_OP_ROUND:
    case CN_OP_TRUNC:
    case CN_OP_FRAC:
      c->n_in = 1;
      c->crown_ok = 1;     /* step relaxations (src/ops/rounding.c) */
      cn__case_small_shape (r, &c->in_shape[0], 4);
      return 1;
    case CN_OP_SIGN:
      c->n_in = 1;
      c->crown_ok = 1;
      cn__case_small_shape (r, &c->in_shape[0], 4);
      switch ((int) cn__rng_int (r, 0, 2))
        {
        case 0: c->x_lo = 0x1p-8, c->x_hi = 2; break;
        case 1: c->x_lo = -2, c->x_hi = -0x1p-8; break;
        default: c->x_lo = -2, c->x_hi = 2; break;
        }
      return 1;
    case CN_OP_MAX:
    case CN_OP_MIN:
    case CN_OP_FMAX:
    case CN_OP_FMIN:
      cn__case_pair (r, c);
      c->crown_ok = 1;
      if (op == CN_OP_MAX || op == CN_OP_MIN)
        {
          /* the element sort (max and min only): Booleans (constants 0/1), or words over a range
           * the sort holds within 2^24, constants within 2^53; ties are frequent in [-3, 3] */
          cn_dtype t = cn__case_element_sort (r, c, 1);
          c->in_dtype[0] = c->in_dtype[1] = t;
          if (t != CN_DTYPE_F64 && t != CN_DTYPE_BOOL)
            {
              int bits = 8 * (int) cn_dtype_size (t), sgn = t <= CN_DTYPE_I64, small = (int) cn__rng_int (r, 0, 1);
              double xr = ldexp (1, bits - sgn < 24 ? bits - sgn : 24);
              double cr = ldexp (1, bits - sgn < 53 ? bits - sgn : 53);
              c->x_integer = 1;
              c->x_lo = small ? (sgn ? -3 : 0) : sgn ? -xr : 0;
              c->x_hi = small ? 3 : xr - 1;
              for (int i = 0; i < 2; i++)
                c->const_lo[i] = small ? c->x_lo : sgn ? -cr : 0, c->const_hi[i] = small ? 3 : cr - 1;
            }
        }
      return 1;
    case CN_OP_CLAMP:
      c->n_in = 3;
      c->crown_ok = 1;
      cn__case_small_shape (r, &c->in_shape[0], 4);
      cn_shape_make (&c->in_shape[1], 0, NULL, NULL);
      cn_shape_make (&c->in_shape[2], 0, NULL, NULL);
      c->in_const[1] = c->in_const[2] = 1;
      c->const_lo[1] = -1.5, c->const_hi[1] = 0.5;
      c->const_lo[2] = -0.5, c->const_hi[2] = 1.5;
      return 1;
    default:
      return 0;
    }
}
