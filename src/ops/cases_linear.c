/* SPDX-License-Identifier: MIT */
/* src/ops/cases_linear.c: random instances of the affine-family operators (linear, matmul, conv,
 * pool, batchNormRunning) for the generic tests.  Every input holds at most about 100
 * elements; weights are constants drawn in a range; crown_ok is set where the CROWN arm applies. */
#include <config.h>
#include <string.h>
#include "ops/cases_impl.h"

static void
case_linear (cn__rng *r, struct cn__op_case *c)
{
  int64_t n_in = cn__rng_int (r, 1, 6), n_out = cn__rng_int (r, 1, 6), dim[4];
  int rank = (int) cn__rng_int (r, 1, 3);
  for (int i = 0; i < rank - 1; i++)
    dim[i] = cn__rng_int (r, 1, 3);
  dim[rank - 1] = n_in;
  c->n_in = 3;
  cn__case_shape_set (&c->in_shape[0], rank, dim);
  cn__case_shape_set (&c->in_shape[1], 2, (int64_t[]) { n_out, n_in });
  cn__case_shape_set (&c->in_shape[2], 1, (int64_t[]) { n_out });
  /* Mostly constant weights (the CROWN case); sometimes a varying weight or bias (IBP of interval
   * products). */
  int kind = (int) cn__rng_int (r, 0, 9);
  if (kind < 8)
    {
      cn__case_set_const (c, 1, -1, 1);
      cn__case_set_const (c, 2, -1, 1);
      c->crown_ok = 1;
    }
  else if (kind == 8)
    cn__case_set_const (c, 2, -1, 1);
  else
    cn__case_set_const (c, 1, -1, 1);
}

/* A matmul operand: batch prefix of rank BR (extents from BATCH, each possibly 1 for broadcasting),
 * then the matrix extents (one extent for a vector operand). */
static void
case_matmul (cn__rng *r, struct cn__op_case *c)
{
  int64_t n = cn__rng_int (r, 1, 4), k = cn__rng_int (r, 1, 4), m = cn__rng_int (r, 1, 4);
  int a_vec = cn__rng_int (r, 0, 4) == 0, b_vec = cn__rng_int (r, 0, 4) == 0;
  int ra = a_vec ? 0 : (int) cn__rng_int (r, 0, 2), rb = b_vec ? 0 : (int) cn__rng_int (r, 0, 2);
  int64_t batch[2] = { cn__rng_int (r, 1, 3), cn__rng_int (r, 1, 3) };
  int64_t da[4], db[4];
  int na = 0, nb = 0;
  /* Batch prefixes aligned on the right; an operand sometimes reads extent 1 (broadcast). */
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
  int which = (int) cn__rng_int (r, 0, 4);
  if (which <= 1)
    {
      cn__case_set_const (c, 1, -1, 1);          /* x @ W */
      c->crown_ok = 1;
    }
  else if (which <= 3)
    {
      cn__case_set_const (c, 0, -1, 1);          /* W @ x */
      c->crown_ok = 1;
    }
  else
    c->crown_ok = 1;                       /* both vary: McCormick's planes */
}

static void
case_conv (cn__rng *r, struct cn__op_case *c)
{
  cn_params_conv *p = &c->params.conv;
  memset (p, 0, sizeof *p);
  int nd_draw = (int) cn__rng_int (r, 0, 9);
  p->nd = nd_draw < 2 ? 1 : nd_draw < 8 ? 2 : 3;
  int64_t G = cn__rng_int (r, 0, 3) == 0 ? cn__rng_int (r, 2, 3) : 1, N = G > 1 ? 1 : cn__rng_int (r, 1, 2);
  int64_t Cg = cn__rng_int (r, 1, 2), Fg = cn__rng_int (r, 1, 2);
  int64_t xd[5] = { N, G * Cg }, wd[5] = { G * Fg, Cg };
  int64_t budget = 100 / (N * G * Cg);     /* spatial elements allowed */
  int64_t sp = 1;
  for (int i = 0; i < p->nd; i++)
    {
      int64_t K = cn__rng_int (r, 1, p->nd == 3 ? 2 : 3);
      p->stride[i] = cn__rng_int (r, 1, 2);
      p->dilation[i] = K > 1 && cn__rng_int (r, 0, 3) == 0 ? 2 : 1;
      if (p->dilation[i] == 2 && K > 2)
        K = 2;
      p->pad_begin[i] = cn__rng_int (r, 0, 1);
      p->pad_end[i] = cn__rng_int (r, 0, p->nd == 1 ? 2 : 1);
      int64_t span = p->dilation[i] * (K - 1) + 1;
      int64_t smin = span - p->pad_begin[i] - p->pad_end[i];
      if (smin < 1)
        smin = 1;
      int64_t smax = p->nd == 1 ? 8 : p->nd == 2 ? 5 : 3;
      if (smax < smin)
        smax = smin;
      int64_t S = cn__rng_int (r, smin, smax);
      while (S > smin && sp * S > budget)
        S--;
      sp *= S;
      xd[2 + i] = S;
      wd[2 + i] = K;
    }
  p->groups = G;
  cn__case_conv_ports (r, c, p->nd, xd, wd, G * Fg);
}

static void
case_pool (cn__rng *r, struct cn__op_case *c)
{
  cn_params_pool *p = &c->params.pool;
  for (;;)
    {
      memset (p, 0, sizeof *p);
      p->kind = cn__rng_int (r, 0, 1) ? CN_POOL_MAX : CN_POOL_AVG;
      p->count_include_pad = (int) cn__rng_int (r, 0, 1);
      int nd_draw = (int) cn__rng_int (r, 0, 9);
      p->nd = nd_draw < 2 ? 1 : nd_draw < 8 ? 2 : 3;
      int64_t N = cn__rng_int (r, 1, 2), C = cn__rng_int (r, 1, 3);
      int64_t xd[5] = { N, C };
      int64_t budget = 100 / (N * C), sp = 1;
      int ok = 1;
      for (int i = 0; i < p->nd && ok; i++)
        {
          int64_t K = cn__rng_int (r, 1, 3);
          p->kernel[i] = K;
          p->stride[i] = cn__rng_int (r, 1, 3);
          p->dilation[i] = cn__rng_int (r, 0, 4) == 0 ? 2 : 1;
          p->pad_begin[i] = cn__rng_int (r, 0, K / 2 + 1);
          p->pad_end[i] = cn__rng_int (r, 0, K / 2 + 1);
          ok = cn__case_pool_extent (r, p, i, p->nd == 1 ? 9 : p->nd == 2 ? 6 : 3, budget, &sp, xd);
        }
      if (!ok)
        continue;                       /* a window entirely in the padding: draw again */
      c->n_in = 1;
      cn__case_shape_set (&c->in_shape[0], p->nd + 2, xd);
      c->crown_ok = 1;
      return;
    }
}

static void
case_batchnorm (cn__rng *r, struct cn__op_case *c)
{
  cn_params_batchnorm *p = &c->params.batchnorm;
  int rank = (int) cn__rng_int (r, 1, 4);
  int64_t dim[4];
  for (int i = 0; i < rank; i++)
    dim[i] = cn__rng_int (r, 1, rank <= 2 ? 6 : 3);
  p->axis = (int) cn__rng_int (r, 0, rank - 1);
  static const double eps[] = { 1e-5, 1e-3, 0.1 };
  p->eps = eps[cn__rng_int (r, 0, 2)];
  c->n_in = 5;
  cn__case_shape_set (&c->in_shape[0], rank, dim);
  for (int i = 1; i < 5; i++)
    cn__case_shape_set (&c->in_shape[i], 1, (int64_t[]) { dim[p->axis] });
  cn__case_set_const (c, 4, 0.1, 2);              /* var stays constant and positive */
  if (cn__rng_int (r, 0, 4) > 0)
    {
      cn__case_set_const (c, 1, -2, 2);
      cn__case_set_const (c, 2, -1, 1);
      cn__case_set_const (c, 3, -1, 1);
      c->crown_ok = 1;
    }
  else
    {
      /* Varying scale or bias or mean: IBP only. */
      int keep = (int) cn__rng_int (r, 1, 3);
      for (int i = 1; i < 4; i++)
        if (i != keep)
          cn__case_set_const (c, i, i == 1 ? -2 : -1, i == 1 ? 2 : 1);
    }
}

int
cn__cases_linear (cn_op op, struct cn__op_case *c, cn__rng *r)
{
  switch (op)
    {
    case CN_OP_LINEAR:
      case_linear (r, c);
      return 1;
    case CN_OP_MATMUL:
      case_matmul (r, c);
      return 1;
    case CN_OP_CONV:
      case_conv (r, c);
      return 1;
    case CN_OP_POOL:
      case_pool (r, c);
      return 1;
    case CN_OP_BATCH_NORM_RUNNING:
      case_batchnorm (r, c);
      return 1;
    default:
      return 0;
    }
}
