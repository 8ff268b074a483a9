/* SPDX-License-Identifier: MIT */
/* src/ops/cases_random.c: random instances of the masks and random draws (randUniform, randn,
 * bernoulliMask, dropout, topKMask) and of the spectral transforms (rfft, irfft, selectiveScan)
 * for the generic tests.
 *
 * Draws: a u64 key port (in_dtype U64, fed cast(X) with X an integer in [0, 1e6]: x_integer), a
 * draw shape of rank 0 to 3; randUniform a random range, randn a random mean and std (sometimes 0),
 * bernoulliMask p in [0, 1] with 0 and 1 drawn often.  dropout: x and a bool mask port (fed
 * gt(X, 0)), the mask sometimes a constant (a known mask, the linear CROWN case; an unknown mask
 * is concretised against the box, also sound, so crown_ok always); p in [0, 0.9], 0 often.
 * topKMask: as topk (k in [0, n]), inputs in [-512, 512] so that ties (which fail the forward)
 * stay improbable.  topKMask and selectiveScan discharge their output over its IBP box in CROWN
 * (crown_ok); the draws have no CROWN arm.
 *
 * rfft: a row length N in 1..9 (odd and even, the Nyquist term included) under 0 to 2 leading
 * axes, a random norm; irfft: n in 1..9, the input [.., n/2 + 1, 2].  Both are linear, so their
 * CROWN arm is always in scope (crown_ok).  selectiveScan: u, delta [.., L, D] with 0 or 1 leading
 * axis, A [D, P], B, C [.., L, P], Dskip [D], L, D, P in 1..4; A and Dskip are sometimes constants,
 * and every input is drawn in [-1, 1] (exp(delta A) stays within e per step, so the states stay
 * moderate and the binary32 forward within the generic tolerance). */
#include <config.h>
#include "ops/cases_impl.h"

/* A shape of LEAD random leading axes (extents 1..3) followed by the TAIL extents. */
static void
lead_shape (cn__rng *r, cn_shape *s, int lead, int tail_rank, const int64_t *tail)
{
  int64_t d[CN_MAX_RANK];
  int n = 0;
  for (int a = 0; a < lead; a++)
    d[n++] = cn__rng_int (r, 1, 3);
  for (int a = 0; a < tail_rank; a++)
    d[n++] = tail[a];
  cn__case_shape_set (s, n, d);
}

static cn_fft_norm
rand_norm (cn__rng *r)
{
  switch ((int) cn__rng_int (r, 0, 2))
    {
    case 0: return CN_FFT_BACKWARD;
    case 1: return CN_FFT_ORTHO;
    default: return CN_FFT_FORWARD;
    }
}

/* A random draw shape: rank 0 to 3, extents 1 to 4. */
static cn_shape
draw_shape (cn__rng *r)
{
  return cn__case_rand_shape (r, 0, 3, 4, 64);
}

/* The key port of a draw: a u64 scalar fed cast(X) with X an integer in [0, 1e6]. */
static void
key_port (struct cn__op_case *c)
{
  c->n_in = 1;
  cn__case_shape_set (&c->in_shape[0], 0, NULL);
  c->in_dtype[0] = CN_DTYPE_U64;
  c->x_integer = 1;
  c->x_lo = 0;
  c->x_hi = 1e6;
}

int
cn__cases_random (cn_op op, struct cn__op_case *c, cn__rng *r)
{
  switch (op)
    {
    case CN_OP_RAND_UNIFORM:
      {
        key_port (c);
        c->params.rand_uniform.shape = draw_shape (r);
        double a = cn__rng_uniform (r, -3, 3), b = cn__rng_uniform (r, -3, 3);
        c->params.rand_uniform.lo = a < b ? a : b;
        c->params.rand_uniform.hi = a < b ? b : a;
        return 1;
      }
    case CN_OP_RANDN:
      key_port (c);
      c->params.randn.shape = draw_shape (r);
      c->params.randn.mean = cn__rng_uniform (r, -2, 2);
      c->params.randn.std = cn__rng_int (r, 0, 5) == 0 ? 0 : cn__rng_uniform (r, 0, 2);
      return 1;
    case CN_OP_BERNOULLI_MASK:
      {
        key_port (c);
        c->params.bernoulli.shape = draw_shape (r);
        int k = (int) cn__rng_int (r, 0, 5);
        c->params.bernoulli.p = k == 0 ? 0 : k == 1 ? 1 : cn__rng_uniform (r, 0, 1);
        return 1;
      }
    case CN_OP_DROPOUT:
      c->n_in = 2;
      cn__case_small_shape (r, &c->in_shape[0], 4);
      c->in_shape[1] = c->in_shape[0];
      c->in_dtype[1] = CN_DTYPE_BOOL;
      c->const_lo[0] = -2;
      c->const_hi[0] = 2;
      if (cn__rng_int (r, 0, 3) == 0)
        c->in_const[1] = 1;         /* a known mask: the linear CROWN case */
      c->params.dropout.p = cn__rng_int (r, 0, 4) == 0 ? 0 : cn__rng_uniform (r, 0, 0.9);
      c->crown_ok = 1;
      return 1;
    case CN_OP_TOP_KMASK:
      c->n_in = 1;
      cn__case_small_shape (r, &c->in_shape[0], 5);
      c->params.topk_mask.axis = (int) cn__rng_int (r, 0, c->in_shape[0].rank - 1);
      c->params.topk_mask.k = cn__rng_int (r, 0, c->in_shape[0].dim[c->params.topk_mask.axis]);
      c->params.topk_mask.largest = (int) cn__rng_int (r, 0, 1);
      /* ties fail the forward: a wide range keeps them improbable (as topk, src/ops/cases_scan.c) */
      c->x_lo = -512;
      c->x_hi = 512;
      c->crown_ok = 1;
      return 1;
    case CN_OP_RFFT:
      {
        int64_t n = cn__rng_int (r, 1, 9);
        c->n_in = 1;
        lead_shape (r, &c->in_shape[0], (int) cn__rng_int (r, 0, 2), 1, &n);
        c->params.fft.n = 0;
        c->params.fft.norm = rand_norm (r);
        c->crown_ok = 1;
        return 1;
      }
    case CN_OP_IRFFT:
      {
        int64_t n = cn__rng_int (r, 1, 9), tail[2] = { n / 2 + 1, 2 };
        c->n_in = 1;
        lead_shape (r, &c->in_shape[0], (int) cn__rng_int (r, 0, 2), 2, tail);
        c->params.fft.n = n;
        c->params.fft.norm = rand_norm (r);
        c->crown_ok = 1;
        return 1;
      }
    case CN_OP_SELECTIVE_SCAN:
      {
        int lead = (int) cn__rng_int (r, 0, 1);
        int64_t L = cn__rng_int (r, 1, 4), D = cn__rng_int (r, 1, 4), P = cn__rng_int (r, 1, 4);
        int64_t ld[2] = { L, D }, dp[2] = { D, P };
        c->n_in = 6;
        lead_shape (r, &c->in_shape[0], lead, 2, ld);
        c->in_shape[1] = c->in_shape[0];
        cn__case_shape_set (&c->in_shape[2], 2, dp);
        c->in_shape[3] = c->in_shape[0];
        c->in_shape[3].dim[c->in_shape[3].rank - 1] = P;
        c->in_shape[4] = c->in_shape[3];
        cn__case_shape_set (&c->in_shape[5], 1, &D);
        for (int i = 0; i < 6; i++)
          {
            c->const_lo[i] = -1;
            c->const_hi[i] = 1;
          }
        if (cn__rng_int (r, 0, 2) == 0)
          c->in_const[2] = 1;
        if (cn__rng_int (r, 0, 2) == 0)
          c->in_const[5] = 1;
        c->x_lo = -1;
        c->x_hi = 1;
        c->crown_ok = 1;
        return 1;
      }
    default:
      return 0;
    }
}
