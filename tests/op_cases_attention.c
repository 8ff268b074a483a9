/* SPDX-License-Identifier: MIT */
/* tests/op_cases_attention.c: random instances of convTranspose, smoothMaxPool, attentionFromScores,
 * attention and multiheadAttention for the generic operator tests.  Every input holds at most about
 * 100 elements.  convTranspose's weights are constants drawn in [-1, 1] in most draws (crown_ok),
 * else a varying weight (IBP of interval products); smoothMaxPool's beta is a constant scalar of
 * either sign, |beta| in [0.5, 3], or varying with every non-constant input drawn in [0.5, 3] or
 * [-3, -0.5] (a box of beta that straddles 0 is refused by IBP);
 * the attention operators take varying operands (products of two boxes), now and then a constant
 * key or value, and multiheadAttention's weights are constants in [-1, 1] in most draws. */
#include <config.h>
#include <string.h>
#include "testutil.h"

static void
case_conv_transpose (struct tu_op_case *c)
{
  cn_params_conv_transpose *p = &c->params.conv_transpose;
  memset (p, 0, sizeof *p);
  int r = (int) tu_int (0, 9);
  p->nd = r < 3 ? 1 : r < 8 ? 2 : 3;
  int64_t G = tu_int (0, 3) == 0 ? 2 : 1, N = G > 1 ? 1 : tu_int (1, 2);
  int64_t Cg = tu_int (1, 2), Fg = tu_int (1, 2);
  int64_t xd[5] = { N, G * Cg }, wd[5] = { G * Cg, Fg };
  int64_t in_budget = 60 / (N * G * Cg), out_budget = 100 / (N * G * Fg), sp_in = 1, sp_out = 1;
  for (int i = 0; i < p->nd; i++)
    {
      int64_t K = tu_int (1, p->nd == 3 ? 2 : 3);
      p->stride[i] = tu_int (1, p->nd == 1 ? 3 : 2);
      p->dilation[i] = K > 1 && tu_int (0, 3) == 0 ? 2 : 1;
      int64_t lim = p->stride[i] > p->dilation[i] ? p->stride[i] : p->dilation[i];
      p->output_padding[i] = tu_int (0, 2) == 0 ? tu_int (0, lim - 1) : 0;
      p->pad_begin[i] = tu_int (0, 1);
      p->pad_end[i] = tu_int (0, 1);
      int64_t span = p->dilation[i] * (K - 1) + 1;
      /* the smallest S with a positive output extent, then a few more while the budgets allow */
      int64_t S = 1;
      while ((S - 1) * p->stride[i] + span + p->output_padding[i] <= p->pad_begin[i] + p->pad_end[i])
        S++;
      int64_t smax = S + (p->nd == 1 ? 4 : p->nd == 2 ? 2 : 1);
      int64_t Sd = tu_int (S, smax);
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
  tu_conv_ports (c, p->nd, xd, wd, G * Fg);
}

static void
case_smooth_max_pool (struct tu_op_case *c)
{
  cn_params_pool *p = &c->params.pool;
  for (;;)
    {
      memset (p, 0, sizeof *p);
      p->kind = (cn_pool_kind) tu_int (0, 1);  /* ignored by the operator */
      int r = (int) tu_int (0, 9);
      p->nd = r < 3 ? 1 : r < 8 ? 2 : 3;
      int64_t N = tu_int (1, 2), C = tu_int (1, 2);
      int64_t xd[5] = { N, C };
      int64_t budget = 80 / (N * C), sp = 1;
      int ok = 1;
      for (int i = 0; i < p->nd && ok; i++)
        {
          int64_t K = tu_int (1, 3);
          p->kernel[i] = K;
          p->stride[i] = tu_int (1, 2);
          p->dilation[i] = tu_int (0, 4) == 0 ? 2 : 1;
          p->pad_begin[i] = tu_int (0, K / 2);
          p->pad_end[i] = tu_int (0, K / 2);
          ok = tu_pool_extent (p, i, p->nd == 1 ? 8 : p->nd == 2 ? 5 : 3, budget, &sp, xd);
        }
      if (!ok)
        continue;                       /* a window entirely in the padding: draw again */
      c->n_in = 2;
      tu_shape_set (&c->in_shape[0], p->nd + 2, xd);
      tu_shape_set (&c->in_shape[1], 0, NULL);
      /* beta a constant of either sign; in one draw of four a varying beta, its box (and x's)
       * then drawn inside [0.5, 3] or [-3, -0.5] so that it stays off 0 */
      int kind = (int) tu_int (0, 3);
      if (kind == 0)
        {
          int pos = (int) (tu_rand () & 1);
          c->x_lo = pos ? 0.5 : -3;
          c->x_hi = pos ? 3 : -0.5;
        }
      else if (kind == 1)
        tu_set_const (c, 1, 0.5, 3);
      else
        tu_set_const (c, 1, -3, -0.5);
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
  tu_shape_set (s, pr + 2, d);
}

static void
case_attention (cn_op op, struct tu_op_case *c)
{
  int pr = (int) tu_int (0, 2);
  int64_t prefix[2] = { tu_int (1, 2), tu_int (1, 2) };
  int64_t L = tu_int (1, 3), S = tu_int (1, 3), D = tu_int (1, 3), E = tu_int (1, 3);
  if (op == CN_OP_ATTENTION_FROM_SCORES)
    {
      c->n_in = 2;
      batched (&c->in_shape[0], pr, prefix, L, S);
      batched (&c->in_shape[1], pr, prefix, S, E);
      if (tu_int (0, 3) == 0)
        tu_set_const (c, 1, -2, 2);
      return;
    }
  static const double scales[] = { 0, 0, 0.5, 0.7, 1.3 };
  c->params.attention.scale = scales[tu_int (0, 4)];
  c->params.attention.causal = (int) tu_int (0, 1);
  c->n_in = 3;
  batched (&c->in_shape[0], pr, prefix, L, D);
  batched (&c->in_shape[1], pr, prefix, S, D);
  batched (&c->in_shape[2], pr, prefix, S, E);
  int which = (int) tu_int (0, 5);
  if (which == 0)
    tu_set_const (c, 1, -2, 2);
  else if (which == 1)
    tu_set_const (c, 2, -2, 2);
}

static void
case_multihead (struct tu_op_case *c)
{
  int pr = (int) tu_int (0, 1);
  int64_t prefix[1] = { tu_int (1, 2) };
  int64_t H = tu_int (1, 2), Dh = tu_int (1, 2), M = H * Dh, L = tu_int (1, 3), S = tu_int (1, 3);
  c->params.multihead.heads = (int) H;
  c->params.multihead.causal = (int) tu_int (0, 1);
  c->n_in = 7;
  batched (&c->in_shape[0], pr, prefix, L, M);
  batched (&c->in_shape[1], pr, prefix, S, M);
  batched (&c->in_shape[2], pr, prefix, S, M);
  tu_shape_set (&c->in_shape[3], 2, (int64_t[]) { 3 * M, M });
  tu_shape_set (&c->in_shape[4], 1, (int64_t[]) { 3 * M });
  tu_shape_set (&c->in_shape[5], 2, (int64_t[]) { M, M });
  tu_shape_set (&c->in_shape[6], 1, (int64_t[]) { M });
  /* constant weights mostly; now and then one of them varies (its gradient and interval products) */
  int vary = tu_int (0, 3) == 0 ? (int) tu_int (3, 6) : -1;
  for (int i = 3; i < 7; i++)
    if (i != vary)
      tu_set_const (c, i, -1, 1);
}

int
tu_op_case_attention (cn_op op, struct tu_op_case *c)
{
  memset (c, 0, sizeof *c);
  c->op = op;
  switch (op)
    {
    case CN_OP_CONV_TRANSPOSE:
      case_conv_transpose (c);
      return 1;
    case CN_OP_SMOOTH_MAX_POOL:
      case_smooth_max_pool (c);
      return 1;
    case CN_OP_ATTENTION_FROM_SCORES:
    case CN_OP_ATTENTION:
      case_attention (op, c);
      return 1;
    case CN_OP_MULTIHEAD_ATTENTION:
      case_multihead (c);
      return 1;
    default:
      return 0;
    }
}
