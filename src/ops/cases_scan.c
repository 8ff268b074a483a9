/* SPDX-License-Identifier: MIT */
/* src/ops/cases_scan.c: random instances of the scans and orderings (cumsum, cumprod, cummax,
 * cummin, sort, topk, argmax, argmin) for the generic tests.
 *
 * Shapes of rank 1 to 3 with extents 1 to 5 and a random axis; sort draws descending, topk draws
 * k in [1, n] and largest, argmax/argmin keepdims and select_last_index.
 *
 * Ties: the orderings are piecewise (cummax, cummin, sort and topk have kinks where two entries
 * tie, argmax and argmin jump there).  tests/check_grad.c draws points on the grid of 2^-20, so
 * ties happen (about n^2 / 2^23 per row in [-2, 2]); its second-difference detector sees the kink
 * of a tie along a direction that separates the tied entries and redraws, and along a direction
 * that keeps them tied the operator is smooth.  argmax and argmin take a frozen port (no
 * direction at all).  topk is different: its forward FAILS where a tie decides the selection, and
 * the gradient tests assert that the forward succeeds, so topk's inputs are drawn in
 * [-512, 512] (2^30 grid points: a boundary tie has probability about n / 2^30 per row, and the
 * grid points keep x +- h dx exact as check_grad needs).  Binary32 rounding of the forward test's
 * inputs can also create a tie (float spacing 2^-15 near 512 against a draw range of 1024:
 * about 3e-8 n per row), which is negligible. */
#include <config.h>
#include "ops/cases_impl.h"

int
cn__cases_scan (cn_op op, struct cn__op_case *c, cn__rng *r)
{
  switch (op)
    {
    case CN_OP_CUMSUM:
    case CN_OP_CUMPROD:
    case CN_OP_CUMMAX:
    case CN_OP_CUMMIN:
      c->n_in = 1;
      cn__case_small_shape (r, &c->in_shape[0], 5);
      c->params.cumulative.axis = (int) cn__rng_int (r, 0, c->in_shape[0].rank - 1);
      c->crown_ok = op != CN_OP_CUMPROD;
      return 1;
    case CN_OP_SORT:
      c->n_in = 1;
      cn__case_small_shape (r, &c->in_shape[0], 5);
      c->params.sort.axis = (int) cn__rng_int (r, 0, c->in_shape[0].rank - 1);
      c->params.sort.descending = (int) cn__rng_int (r, 0, 1);
      c->crown_ok = 1;     /* exact where an entry's position is fixed, else the box */
      return 1;
    case CN_OP_TOPK:
      c->n_in = 1;
      cn__case_small_shape (r, &c->in_shape[0], 5);
      c->params.topk.axis = (int) cn__rng_int (r, 0, c->in_shape[0].rank - 1);
      c->params.topk.k = cn__rng_int (r, 1, c->in_shape[0].dim[c->params.topk.axis]);
      c->params.topk.largest = (int) cn__rng_int (r, 0, 1);
      c->params.topk.ties_by_index = (int) cn__rng_int (r, 0, 1);
      c->x_lo = -512;
      c->x_hi = 512;
      c->crown_ok = 1;
      return 1;
    case CN_OP_ARGMAX:
    case CN_OP_ARGMIN:
      c->n_in = 1;
      cn__case_small_shape (r, &c->in_shape[0], 5);
      c->params.argmax.axis = (int) cn__rng_int (r, 0, c->in_shape[0].rank - 1);
      c->params.argmax.keepdims = (int) cn__rng_int (r, 0, 1);
      c->params.argmax.select_last_index = (int) cn__rng_int (r, 0, 1);
      return 1;
    default:
      return 0;
    }
}
