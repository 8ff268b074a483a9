/* SPDX-License-Identifier: MIT */
/* src/ops/cases_attention.c: random instances of convTranspose, smoothMaxPool, attentionFromScores,
 * attention and multiheadAttention for the generic tests.  Every input holds at most about
 * 100 elements.  convTranspose's weights are constants drawn in [-1, 1] in most draws (crown_ok),
 * else a varying weight (IBP of interval products); smoothMaxPool's beta is a constant scalar of
 * either sign, |beta| in [0.5, 3], or varying with every non-constant input drawn in [0.5, 3] or
 * [-3, -0.5] (a box of beta that straddles 0 is refused by IBP);
 * the attention operators take varying operands (products of two boxes), now and then a constant
 * key or value, and multiheadAttention's weights are constants in [-1, 1] in most draws. */
#include <config.h>
#include <string.h>
#include "ops/cases_impl.h"

static void
case_conv_transpose (cn__rng *r, struct cn__op_case *c)
{
  cn_params_conv_transpose *p = &c->params.conv_transpose;
  memset (p, 0, sizeof *p);
  int nd_draw = (int) cn__rng_int (r, 0, 9);
  p->nd = nd_draw < 3 ? 1 : nd_draw < 8 ? 2 : 3;
  int64_t G = cn__rng_int (r, 0, 3) == 0 ? 2 : 1, N = G > 1 ? 1 : cn__rng_int (r, 1, 2);
  int64_t Cg = cn__rng_int (r, 1, 2), Fg = cn__rng_int (r, 1, 2);
  int64_t xd[5] = { N, G * Cg }, wd[5] = { G * Cg, Fg };
  int64_t in_budget = 60 / (N * G * Cg), out_budget = 100 / (N * G * Fg), sp_in = 1, sp_out = 1;
  for (int i = 0; i < p->nd; i++)
    {
      int64_t K = cn__rng_int (r, 1, p->nd == 3 ? 2 : 3);
      p->stride[i] = cn__rng_int (r, 1, p->nd == 1 ? 3 : 2);
      p->dilation[i] = K > 1 && cn__rng_int (r, 0, 3) == 0 ? 2 : 1;
      int64_t lim = p->stride[i] > p->dilation[i] ? p->stride[i] : p->dilation[i];
      p->output_padding[i] = cn__rng_int (r, 0, 2) == 0 ? cn__rng_int (r, 0, lim - 1) : 0;
      p->pad_begin[i] = cn__rng_int (r, 0, 1);
      p->pad_end[i] = cn__rng_int (r, 0, 1);
      int64_t span = p->dilation[i] * (K - 1) + 1;
      /* the smallest S with a positive output extent, then a few more while the budgets allow */
      int64_t S = 1;
      while ((S - 1) * p->stride[i] + span + p->output_padding[i] <= p->pad_begin[i] + p->pad_end[i])
        S++;
      int64_t smax = S + (p->nd == 1 ? 4 : p->nd == 2 ? 2 : 1);
      int64_t Sd = cn__rng_int (r, S, smax);
      for (;;)
        {
          int64_t O = (Sd - 1) * p->stride[i] + span + p->output_padding[i] - p->pad_begin[i] - p->pad_end[i];
          if (Sd == S || (sp_in * Sd <= in_budget && sp_out * O <= out_budget))
            {
              sp_in *= Sd;
              sp_out *= O;
              break;
            }
          Sd--;
        }
      xd[2 + i] = Sd;
      wd[2 + i] = K;
    }
  p->groups = G;
  cn__case_conv_ports (r, c, p->nd, xd, wd, G * Fg);
}

static void
case_smooth_max_pool (cn__rng *r, struct cn__op_case *c)
{
  cn_params_pool *p = &c->params.pool;
  for (;;)
    {
      memset (p, 0, sizeof *p);
      p->kind = (cn_pool_kind) cn__rng_int (r, 0, 1);  /* ignored by the operator */
      int nd_draw = (int) cn__rng_int (r, 0, 9);
      p->nd = nd_draw < 3 ? 1 : nd_draw < 8 ? 2 : 3;
      int64_t N = cn__rng_int (r, 1, 2), C = cn__rng_int (r, 1, 2);
      int64_t xd[5] = { N, C };
      int64_t budget = 80 / (N * C), sp = 1;
      int ok = 1;
      for (int i = 0; i < p->nd && ok; i++)
        {
          int64_t K = cn__rng_int (r, 1, 3);
          p->kernel[i] = K;
          p->stride[i] = cn__rng_int (r, 1, 2);
          p->dilation[i] = cn__rng_int (r, 0, 4) == 0 ? 2 : 1;
          p->pad_begin[i] = cn__rng_int (r, 0, K / 2);
          p->pad_end[i] = cn__rng_int (r, 0, K / 2);
          ok = cn__case_pool_extent (r, p, i, p->nd == 1 ? 8 : p->nd == 2 ? 5 : 3, budget, &sp, xd);
        }
      if (!ok)
        continue;                       /* a window entirely in the padding: draw again */
      c->n_in = 2;
      cn__case_shape_set (&c->in_shape[0], p->nd + 2, xd);
      cn__case_shape_set (&c->in_shape[1], 0, NULL);
      /* beta a constant of either sign; in one draw of four a varying beta, its box (and x's)
       * then drawn inside [0.5, 3] or [-3, -0.5] so that it stays off 0 */
      int kind = (int) cn__rng_int (r, 0, 3);
      if (kind == 0)
        {
          int pos = (int) (cn__rng_next (r) & 1);
          c->x_lo = pos ? 0.5 : -3;
          c->x_hi = pos ? 3 : -0.5;
        }
      else if (kind == 1)
        cn__case_set_const (c, 1, 0.5, 3);
      else
        cn__case_set_const (c, 1, -3, -0.5);
      return;
    }
}

/* A batch prefix of rank 0 to 2 (extents 1 or 2) followed by the matrix extents A x B. */
static void
batched (cn_shape *s, int pr, const int64_t *prefix, int64_t a, int64_t b)
{
  int64_t d[4];
  for (int i = 0; i < pr; i++)
    d[i] = prefix[i];
  d[pr] = a;
  d[pr + 1] = b;
  cn__case_shape_set (s, pr + 2, d);
}

static void
case_attention (cn__rng *r, cn_op op, struct cn__op_case *c)
{
  int pr = (int) cn__rng_int (r, 0, 2);
  int64_t prefix[2] = { cn__rng_int (r, 1, 2), cn__rng_int (r, 1, 2) };
  int64_t L = cn__rng_int (r, 1, 3), S = cn__rng_int (r, 1, 3), D = cn__rng_int (r, 1, 3), E = cn__rng_int (r, 1, 3);
  if (op == CN_OP_ATTENTION_FROM_SCORES)
    {
      c->n_in = 2;
      batched (&c->in_shape[0], pr, prefix, L, S);
      batched (&c->in_shape[1], pr, prefix, S, E);
      if (cn__rng_int (r, 0, 3) == 0)
        cn__case_set_const (c, 1, -2, 2);
      return;
    }
  static const double scales[] = { 0, 0, 0.5, 0.7, 1.3 };
  c->params.attention.scale = scales[cn__rng_int (r, 0, 4)];
  c->params.attention.causal = (int) cn__rng_int (r, 0, 1);
  c->n_in = 3;
  batched (&c->in_shape[0], pr, prefix, L, D);
  batched (&c->in_shape[1], pr, prefix, S, D);
  batched (&c->in_shape[2], pr, prefix, S, E);
  int which = (int) cn__rng_int (r, 0, 5);
  if (which == 0)
    cn__case_set_const (c, 1, -2, 2);
  else if (which == 1)
    cn__case_set_const (c, 2, -2, 2);
}

static void
case_multihead (cn__rng *r, struct cn__op_case *c)
{
  int pr = (int) cn__rng_int (r, 0, 1);
  int64_t prefix[1] = { cn__rng_int (r, 1, 2) };
  int64_t H = cn__rng_int (r, 1, 2), Dh = cn__rng_int (r, 1, 2), M = H * Dh, L = cn__rng_int (r, 1, 3),
          S = cn__rng_int (r, 1, 3);
  c->params.multihead.heads = (int) H;
  c->params.multihead.causal = (int) cn__rng_int (r, 0, 1);
  c->n_in = 7;
  batched (&c->in_shape[0], pr, prefix, L, M);
  batched (&c->in_shape[1], pr, prefix, S, M);
  batched (&c->in_shape[2], pr, prefix, S, M);
  cn__case_shape_set (&c->in_shape[3], 2, (int64_t[]) { 3 * M, M });
  cn__case_shape_set (&c->in_shape[4], 1, (int64_t[]) { 3 * M });
  cn__case_shape_set (&c->in_shape[5], 2, (int64_t[]) { M, M });
  cn__case_shape_set (&c->in_shape[6], 1, (int64_t[]) { M });
  /* constant weights mostly; now and then one of them varies (its gradient and interval products) */
  int vary = cn__rng_int (r, 0, 3) == 0 ? (int) cn__rng_int (r, 3, 6) : -1;
  for (int i = 3; i < 7; i++)
    if (i != vary)
      cn__case_set_const (c, i, -1, 1);
}

int
cn__cases_attention (cn_op op, struct cn__op_case *c, cn__rng *r)
{
  switch (op)
    {
    case CN_OP_CONV_TRANSPOSE:
      case_conv_transpose (r, c);
      return 1;
    case CN_OP_SMOOTH_MAX_POOL:
      case_smooth_max_pool (r, c);
      return 1;
    case CN_OP_ATTENTION_FROM_SCORES:
    case CN_OP_ATTENTION:
      case_attention (r, op, c);
      return 1;
    case CN_OP_MULTIHEAD_ATTENTION:
      case_multihead (r, c);
      return 1;
    default:
      return 0;
    }
}
