/* SPDX-License-Identifier: MIT */
/* src/ops/cases_prod.c: random instances of scaledMatmul, contract, convTranspose, smoothMaxPool and
 * batchNorm for the generic tests.  Every input holds at most about 100 elements; weights are
 * constants drawn in a range; crown_ok is set where the CROWN arm applies. */
#include <config.h>
#include "ops/cases_impl.h"

/* matmul's operands: batch prefixes aligned on the right (extent 1 sometimes, broadcast), a 1-D
 * operand now and then; one constant operand mostly (the CROWN case). */
static void
case_scaled_matmul (cn__rng *r, struct cn__op_case *c)
{
  int64_t n = cn__rng_int (r, 1, 4), k = cn__rng_int (r, 1, 4), m = cn__rng_int (r, 1, 4);
  int a_vec = cn__rng_int (r, 0, 4) == 0, b_vec = cn__rng_int (r, 0, 4) == 0;
  int ra = a_vec ? 0 : (int) cn__rng_int (r, 0, 2), rb = b_vec ? 0 : (int) cn__rng_int (r, 0, 2);
  int64_t batch[2] = { cn__rng_int (r, 1, 3), cn__rng_int (r, 1, 3) };
  int64_t da[4], db[4];
  int na = 0, nb = 0;
  for (int i = 0; i < ra; i++)
    da[na++] = cn__rng_int (r, 0, 3) == 0 ? 1 : batch[2 - ra + i];
  for (int i = 0; i < rb; i++)
    db[nb++] = cn__rng_int (r, 0, 3) == 0 ? 1 : batch[2 - rb + i];
  if (!a_vec)
    da[na++] = n;
  da[na++] = k;
  db[nb++] = k;
  if (!b_vec)
    db[nb++] = m;
  c->n_in = 2;
  cn__case_shape_set (&c->in_shape[0], na, da);
  cn__case_shape_set (&c->in_shape[1], nb, db);
  static const double scales[] = { 0.5, 0.35355339059327373, -1.7, 0.1, 0 };
  c->params.scaled_matmul.scale = scales[cn__rng_int (r, 0, 4)];
  int which = (int) cn__rng_int (r, 0, 4);
  if (which <= 1)
    {
      cn__case_set_const (c, 1, -1, 1);
      c->crown_ok = 1;
    }
  else if (which <= 3)
    {
      cn__case_set_const (c, 0, -1, 1);
      c->crown_ok = 1;
    }
  else
    c->crown_ok = 1;     /* both vary: McCormick's planes */
}

/* contract: ranks 1 to 3, 0 to 2 axis pairs at random positions, extents up to 3. */
static void
case_contract (cn__rng *r, struct cn__op_case *c)
{
  cn_params_contract *p = &c->params.contract;
  int ra = (int) cn__rng_int (r, 1, 3), rb = (int) cn__rng_int (r, 1, 3);
  int n = (int) cn__rng_int (r, 0, ra < rb ? ra : rb);
  if (n > 2)
    n = 2;
  int64_t da[4], db[4];
  for (int i = 0; i < ra; i++)
    da[i] = cn__rng_int (r, 1, 3);
  for (int i = 0; i < rb; i++)
    db[i] = cn__rng_int (r, 1, 3);
  int ua[4] = { 0 }, ub[4] = { 0 };
  p->n = n;
  for (int q = 0; q < n; q++)
    {
      int x, y;
      do
        x = (int) cn__rng_int (r, 0, ra - 1);
      while (ua[x]);
      do
        y = (int) cn__rng_int (r, 0, rb - 1);
      while (ub[y]);
      ua[x] = ub[y] = 1;
      p->a_axes[q] = x;
      p->b_axes[q] = y;
      db[y] = da[x];
    }
  c->n_in = 2;
  cn__case_shape_set (&c->in_shape[0], ra, da);
  cn__case_shape_set (&c->in_shape[1], rb, db);
  int which = (int) cn__rng_int (r, 0, 4);
  if (which <= 3)
    {
      cn__case_set_const (c, which <= 1 ? 1 : 0, -1, 1);
      c->crown_ok = 1;
    }
}

/* batchNorm (training statistics): x of rank 1 to 4, the channel axis anywhere, scale and bias
 * constants sometimes (IBP of products of boxes otherwise). */
static void
case_batchnorm (cn__rng *r, struct cn__op_case *c)
{
  int rank = (int) cn__rng_int (r, 1, 4);
  int64_t d[4];
  for (int i = 0; i < rank; i++)
    d[i] = cn__rng_int (r, 1, 3);
  c->params.batchnorm.axis = (int) cn__rng_int (r, 0, rank - 1);
  c->params.batchnorm.eps = cn__rng_int (r, 0, 1) ? 1e-3 : cn__rng_uniform (r, 1e-3, 0.5);   /* as layerNorm's cases */
  int64_t C = d[c->params.batchnorm.axis];
  c->n_in = 3;
  cn__case_shape_set (&c->in_shape[0], rank, d);
  cn__case_shape_set (&c->in_shape[1], 1, (int64_t[]) { C });
  cn__case_shape_set (&c->in_shape[2], 1, (int64_t[]) { C });
  if (cn__rng_int (r, 0, 2) > 0)
    {
      cn__case_set_const (c, 1, 0.5, 2);
      cn__case_set_const (c, 2, -1, 1);
    }
}

int
cn__cases_prod (cn_op op, struct cn__op_case *c, cn__rng *r)
{
  switch (op)
    {
    case CN_OP_SCALED_MATMUL:
      case_scaled_matmul (r, c);
      return 1;
    case CN_OP_CONTRACT:
      case_contract (r, c);
      return 1;
    case CN_OP_BATCH_NORM:
      case_batchnorm (r, c);
      return 1;
    default:
      return 0;
    }
}
