/* SPDX-License-Identifier: MIT */
/* src/ops/cases_loss.c: random instances of the losses for the generic tests.  The target is a
 * constant (frozen, index and detached ports get no tangent): in [-2, 2] for the regression
 * losses, a +-1-ish range for hingeLoss, [0, 1] for binaryCrossEntropy and the probability targets,
 * integers in [0, C) for crossEntropy's labels.  binaryCrossEntropy and crossEntropyProbabilities
 * draw their inputs inside (0, 1) (x_lo, x_hi); the reduction is drawn among none, sum and mean. */
#include <config.h>
#include "ops/cases_impl.h"

int
cn__cases_loss (cn_op op, struct cn__op_case *c, cn__rng *r)
{
  cn_params_loss *p = &c->params.loss;
  switch (op)
    {
    case CN_OP_MSE_LOSS:
    case CN_OP_MAE_LOSS:
    case CN_OP_HUBER_LOSS:
    case CN_OP_HINGE_LOSS:
    case CN_OP_POISSON_LOSS:
    case CN_OP_LOG_COSH_LOSS:
    case CN_OP_BINARY_CROSS_ENTROPY:
    case CN_OP_COSINE_LOSS:
    case CN_OP_CROSS_ENTROPY:
    case CN_OP_CROSS_ENTROPY_PROBABILITIES:
    case CN_OP_DISTILL:
      break;
    default:
      return 0;
    }
  p->reduction = (cn_loss_reduction) cn__rng_int (r, 0, 2);
  p->delta = cn__rng_uniform (r, 0.25, 2);
  p->margin = cn__rng_uniform (r, 0.5, 1.5);
  p->eps = op == CN_OP_COSINE_LOSS ? 1e-8 : (cn__rng_next (r) & 1 ? 0 : 1e-3);
  p->temperature = cn__rng_uniform (r, 0.5, 4);
  c->n_in = 2;
  cn__case_small_shape (r, &c->in_shape[0], 4);
  c->in_shape[1] = c->in_shape[0];
  c->in_const[1] = 1;
  c->const_lo[1] = -2;
  c->const_hi[1] = 2;
  /* the convex elementwise losses relax with a constant target, crossEntropy with its labels
   * (src/ops/loss.c) */
  c->crown_ok = op == CN_OP_MSE_LOSS || op == CN_OP_MAE_LOSS || op == CN_OP_HUBER_LOSS || op == CN_OP_HINGE_LOSS
                || op == CN_OP_POISSON_LOSS || op == CN_OP_LOG_COSH_LOSS || op == CN_OP_CROSS_ENTROPY
                || op == CN_OP_BINARY_CROSS_ENTROPY || op == CN_OP_CROSS_ENTROPY_PROBABILITIES;
  switch (op)
    {
    case CN_OP_HINGE_LOSS:
      c->const_lo[1] = -1;
      c->const_hi[1] = 1;
      break;
    case CN_OP_BINARY_CROSS_ENTROPY:
    case CN_OP_CROSS_ENTROPY_PROBABILITIES:
      c->const_lo[1] = 0;
      c->const_hi[1] = 1;
      c->x_lo = 0.05;
      c->x_hi = 0.95;
      break;
    case CN_OP_COSINE_LOSS:
      /* both ports are value ports: x and y come from the graph input */
      c->in_const[1] = 0;
      break;
    case CN_OP_CROSS_ENTROPY:
      {
        const cn_shape *x = &c->in_shape[0];
        int ax = x->rank >= 2 ? 1 : 0;
        int64_t d[3];
        int n = 0;
        for (int a = 0; a < x->rank; a++)
          if (a != ax)
            d[n++] = x->dim[a];
        cn_shape_make (&c->in_shape[1], n, d, NULL);
        c->const_integer[1] = 1;
        c->const_lo[1] = 0;
        c->const_hi[1] = (double) (x->dim[ax] - 1);
        break;
      }
    default:
      break;
    }
  return 1;
}
