/* SPDX-License-Identifier: MIT */
/* src/ops/cases_activation.c: random instances of the activation family's operators (sigmoid,
 * tanh, softplus, silu, gelu, elu, leakyReLU; relu's generator is in src/ops/cases_basic.c) for
 * the generic tests.
 *
 * Every draw is a valid instance: a small shape (at most 64 elements, every extent >= 1) and
 * random attributes: gelu's mode none or tanh; elu's alpha in [-2, 2] (negative ones make elu a
 * valley function); every activation but leakyReLU within its CROWN arm (crown_ok); leakyReLU's
 * slope usually in [0, 1] (0 and 1 included, the CROWN arm's scope,
 * crown_ok set), sometimes negative or above 1 (IBP and gradients only). */
#include <config.h>
#include <string.h>
#include "ops/cases_impl.h"

int
cn__cases_activation (cn_op op, struct cn__op_case *c, cn__rng *r)
{
  switch (op)
    {
    case CN_OP_SIGMOID:
    case CN_OP_TANH:
    case CN_OP_SOFTPLUS:
      c->crown_ok = 1;     /* relaxed by src/sound/relax.c */
      break;
    case CN_OP_SILU:
      c->crown_ok = 1;     /* shifted chords (G4) */
      break;
    case CN_OP_GELU:
      c->params.gelu.approximate = cn__rng_int (r, 0, 1) ? CN_GELU_TANH : CN_GELU_NONE;
      c->crown_ok = 1;
      break;
    case CN_OP_ELU:
      switch (cn__rng_int (r, 0, 3))
        {
        case 0: c->params.elu.alpha = 1; break;
        case 1: c->params.elu.alpha = 0; break;
        case 2: c->params.elu.alpha = cn__rng_uniform (r, -2, 0); break;
        default: c->params.elu.alpha = cn__rng_uniform (r, 0, 2); break;
        }
      c->crown_ok = 1;     /* any finite alpha (src/sound/relax.c) */
      break;
    case CN_OP_LEAKY_RE_LU:
      switch (cn__rng_int (r, 0, 5))
        {
        case 0: c->params.leaky_relu.negative_slope = 0.01; break;
        case 1: c->params.leaky_relu.negative_slope = 0; break;
        case 2: c->params.leaky_relu.negative_slope = 1; break;
        case 3: c->params.leaky_relu.negative_slope = cn__rng_uniform (r, 0, 1); break;
        case 4: c->params.leaky_relu.negative_slope = cn__rng_uniform (r, -1, 0); break;
        default: c->params.leaky_relu.negative_slope = cn__rng_uniform (r, 1, 3); break;
        }
      {
        double a = c->params.leaky_relu.negative_slope;
        c->crown_ok = a >= 0 && a <= 1;
      }
      break;
    default:
      return 0;
    }
  c->n_in = 1;
  c->in_shape[0] = cn__case_rand_shape (r, 0, 4, 4, 64);
  return 1;
}
