/* SPDX-License-Identifier: MIT */
/* src/ops/cases_softmax.c: random instances of the softmax family (softmax, logSoftmax,
 * maskedSoftmax) and of layerNorm for the generic tests.  The mask of maskedSoftmax (a bool port) is
 * a Boolean constant, each entry 0 or 1 with probability 1/2, so about half the entries are
 * masked, and rows with no true entry occur on short axes.  layerNorm's eps stays >= 1e-3 so that
 * the central differences of the gradient tests stay smooth at rows of nearly equal entries. */
#include <config.h>
#include "ops/cases_impl.h"

int
cn__cases_softmax (cn_op op, struct cn__op_case *c, cn__rng *r)
{
  switch (op)
    {
    case CN_OP_SOFTMAX:
    case CN_OP_LOG_SOFTMAX:
    case CN_OP_MASKED_SOFTMAX:
      cn__case_small_shape (r, &c->in_shape[0], 5);
      c->params.softmax.axis = (int) cn__rng_int (r, 0, c->in_shape[0].rank - 1);
      c->n_in = 1;
      c->crown_ok = 1;     /* Taylor planes (src/ops/softmax.c); maskedSoftmax with a constant mask */
      if (op == CN_OP_MASKED_SOFTMAX)
        {
          c->n_in = 2;
          c->in_shape[1] = c->in_shape[0];
          /* a Boolean constant (each entry 0 or 1), or half the time a computed mask gt(part of X, 0),
           * whose box holds unknown entries ([0, 1]) where the part's box straddles 0 */
          c->in_const[1] = (int) cn__rng_int (r, 0, 1);
          c->crown_ok = c->in_const[1];
          c->in_dtype[1] = CN_DTYPE_BOOL;
          c->const_lo[1] = 0;
          c->const_hi[1] = 1;
        }
      return 1;
    case CN_OP_LAYER_NORM:
      cn__case_small_shape (r, &c->in_shape[0], 5);
      c->params.layernorm.eps = cn__rng_next (r) & 1 ? 1e-3 : cn__rng_uniform (r, 1e-3, 0.5);
      c->params.layernorm.affine = (int) (cn__rng_next (r) & 1);
      c->n_in = 1;
      c->crown_ok = 1;     /* Taylor planes, with a constant weight and bias */
      if (c->params.layernorm.affine)
        {
          int64_t N = c->in_shape[0].dim[c->in_shape[0].rank - 1];
          c->n_in = 3;
          for (int i = 1; i < 3; i++)
            {
              cn_shape_make (&c->in_shape[i], 1, &N, NULL);
              c->in_const[i] = cn__rng_int (r, 0, 2) != 0;
              c->const_lo[i] = -2;
              c->const_hi[i] = 2;
              c->crown_ok &= c->in_const[i];
            }
        }
      return 1;
    default:
      return 0;
    }
}
