/* SPDX-License-Identifier: MIT */
/* src/ops/cases_transcendental.c: random instances of the transcendental family's operators
 * (exp ... erf, atan2).  Operators with a restricted domain, a pole or a fast growth get an input
 * range (x_lo, x_hi) inside their domain, away from the singularities where the generic tests'
 * relative tolerances (forward in binary32, central differences) would not hold.  Every operator
 * with a CROWN arm is within it (crown_ok). */
#include <config.h>
#include "ops/cases_impl.h"

int
cn__cases_transcendental (cn_op op, struct cn__op_case *c, cn__rng *r)
{
  double lo = 0, hi = 0;     /* 0, 0: the default draws */
  switch (op)
    {
    case CN_OP_EXP:
    case CN_OP_ATAN:
    case CN_OP_ERF:
      c->crown_ok = 1;     /* relaxed by src/sound/relax.c */
      break;
    case CN_OP_EXP2:
    case CN_OP_EXPM1:
    case CN_OP_SINH:
    case CN_OP_COSH:
    case CN_OP_ASINH:
      c->crown_ok = 1;
      break;
    case CN_OP_SIN:
    case CN_OP_COS:
      c->crown_ok = 1;     /* shifted chords (G4) */
      break;
    case CN_OP_LOG:
    case CN_OP_LOG2:
    case CN_OP_LOG10:
      c->crown_ok = 1;
      lo = 0.05, hi = 6;
      break;
    case CN_OP_LOG1P:
      c->crown_ok = 1;
      lo = -0.95, hi = 6;
      break;
    case CN_OP_TAN:
      c->crown_ok = 1;
      lo = -1.3, hi = 1.3;     /* inside (-pi/2, pi/2): tan is ill-conditioned near its poles */
      break;
    case CN_OP_ASIN:
    case CN_OP_ACOS:
    case CN_OP_ATANH:
      c->crown_ok = 1;
      lo = -0.95, hi = 0.95;
      break;
    case CN_OP_ACOSH:
      c->crown_ok = 1;
      lo = 1.05, hi = 6;
      break;
    case CN_OP_ATAN2:
      cn__case_pair (r, c);
      c->crown_ok = 1;     /* planes away from the cut, the box elsewhere */
      return 1;
    default:
      return 0;
    }
  c->n_in = 1;
  cn__case_small_shape (r, &c->in_shape[0], 4);
  c->x_lo = lo;
  c->x_hi = hi;
  return 1;
}
