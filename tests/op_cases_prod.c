/* SPDX-License-Identifier: MIT */
/* tests/op_cases_prod.c: random instances of scaledMatmul, contract, convTranspose, smoothMaxPool and
 * batchNorm for the generic operator tests.  Every input holds at most about 100 elements; weights are
 * constants drawn in a range; crown_ok is set where the CROWN arm applies. */
#include <config.h>
#include <string.h>
#include "testutil.h"

/* matmul's operands: batch prefixes aligned on the right (extent 1 sometimes, broadcast), a 1-D
 * operand now and then; one constant operand mostly (the CROWN case). */
static void
case_scaled_matmul (struct tu_op_case *c)
{
  int64_t n = tu_int (1, 4), k = tu_int (1, 4), m = tu_int (1, 4);
  int a_vec = tu_int (0, 4) == 0, b_vec = tu_int (0, 4) == 0;
  int ra = a_vec ? 0 : (int) tu_int (0, 2), rb = b_vec ? 0 : (int) tu_int (0, 2);
  int64_t batch[2] = { tu_int (1, 3), tu_int (1, 3) };
  int64_t da[4], db[4];
  int na = 0, nb = 0;
  for (int i = 0; i < ra; i++)
    da[na++] = tu_int (0, 3) == 0 ? 1 : batch[2 - ra + i];
  for (int i = 0; i < rb; i++)
    db[nb++] = tu_int (0, 3) == 0 ? 1 : batch[2 - rb + i];
  if (!a_vec)
    da[na++] = n;
  da[na++] = k;
  db[nb++] = k;
  if (!b_vec)
    db[nb++] = m;
  c->n_in = 2;
  tu_shape_set (&c->in_shape[0], na, da);
  tu_shape_set (&c->in_shape[1], nb, db);
  static const double scales[] = { 0.5, 0.35355339059327373, -1.7, 0.1, 0 };
  c->params.scaled_matmul.scale = scales[tu_int (0, 4)];
  int which = (int) tu_int (0, 4);
  if (which <= 1)
    {
      tu_set_const (c, 1, -1, 1);
      c->crown_ok = 1;
    }
  else if (which <= 3)
    {
      tu_set_const (c, 0, -1, 1);
      c->crown_ok = 1;
    }
  else
    c->crown_ok = 1;     /* both vary: McCormick's planes */
}

/* contract: ranks 1 to 3, 0 to 2 axis pairs at random positions, extents up to 3. */
static void
case_contract (struct tu_op_case *c)
{
  cn_params_contract *p = &c->params.contract;
  int ra = (int) tu_int (1, 3), rb = (int) tu_int (1, 3);
  int n = (int) tu_int (0, ra < rb ? ra : rb);
  if (n > 2)
    n = 2;
  int64_t da[4], db[4];
  for (int i = 0; i < ra; i++)
    da[i] = tu_int (1, 3);
  for (int i = 0; i < rb; i++)
    db[i] = tu_int (1, 3);
  int ua[4] = { 0 }, ub[4] = { 0 };
  p->n = n;
  for (int q = 0; q < n; q++)
    {
      int x, y;
      do
        x = (int) tu_int (0, ra - 1);
      while (ua[x]);
      do
        y = (int) tu_int (0, rb - 1);
      while (ub[y]);
      ua[x] = ub[y] = 1;
      p->a_axes[q] = x;
      p->b_axes[q] = y;
      db[y] = da[x];
    }
  c->n_in = 2;
  tu_shape_set (&c->in_shape[0], ra, da);
  tu_shape_set (&c->in_shape[1], rb, db);
  int which = (int) tu_int (0, 4);
  if (which <= 3)
    {
      tu_set_const (c, which <= 1 ? 1 : 0, -1, 1);
      c->crown_ok = 1;
    }
}

/* batchNorm (training statistics): x of rank 1 to 4, the channel axis anywhere, scale and bias
 * constants sometimes (IBP of products of boxes otherwise). */
static void
case_batchnorm (struct tu_op_case *c)
{
  int rank = (int) tu_int (1, 4);
  int64_t d[4];
  for (int i = 0; i < rank; i++)
    d[i] = tu_int (1, 3);
  c->params.batchnorm.axis = (int) tu_int (0, rank - 1);
  c->params.batchnorm.eps = tu_int (0, 1) ? 1e-3 : tu_uniform (1e-3, 0.5);   /* as layerNorm's cases */
  int64_t C = d[c->params.batchnorm.axis];
  c->n_in = 3;
  tu_shape_set (&c->in_shape[0], rank, d);
  tu_shape_set (&c->in_shape[1], 1, (int64_t[]) { C });
  tu_shape_set (&c->in_shape[2], 1, (int64_t[]) { C });
  if (tu_int (0, 2) > 0)
    {
      tu_set_const (c, 1, 0.5, 2);
      tu_set_const (c, 2, -1, 1);
    }
}

int
tu_op_case_prod (cn_op op, struct tu_op_case *c)
{
  memset (c, 0, sizeof *c);
  c->op = op;
  switch (op)
    {
    case CN_OP_SCALED_MATMUL:
      case_scaled_matmul (c);
      return 1;
    case CN_OP_CONTRACT:
      case_contract (c);
      return 1;
    case CN_OP_BATCH_NORM:
      case_batchnorm (c);
      return 1;
    default:
      return 0;
    }
}
