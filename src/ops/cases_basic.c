/* SPDX-License-Identifier: MIT */
/* src/ops/cases_basic.c: random instances of the elementwise, activation, movement, indexing
 * and reduction operators (add, sub, mul, div, neg, relu, reshape, permute, broadcast, pad,
 * cat, slice, reduce, mean) for the generic tests.
 *
 * Every draw is a valid instance: small shapes (at most 64 elements per input, every extent
 * >= 1), random attributes, constants flagged with their range, and crown_ok set where the
 * CROWN arm supports the instance. */
#include <config.h>
#include <math.h>
#include <string.h>
#include "ops/cases_impl.h"

static int64_t
numel (const cn_shape *s)
{
  int64_t n = 1;
  for (int a = 0; a < s->rank; a++)
    n *= s->dim[a];
  return n;
}

/* A random permutation of 0..N-1 into P. */
static void
rand_perm (cn__rng *r, int n, int *p)
{
  for (int i = 0; i < n; i++)
    p[i] = i;
  for (int i = n - 1; i > 0; i--)
    {
      int j = (int) cn__rng_int (r, 0, i);
      int t = p[i];
      p[i] = p[j];
      p[j] = t;
    }
}

/* A random target shape with N elements (N <= 64): N's prime factors spread over a random rank,
 * with some extents of 1 mixed in. */
static cn_shape
rand_factor_shape (cn__rng *r, int64_t n)
{
  int64_t f[16];
  int nf = 0;
  for (int64_t p = 2, m = n; m > 1 && nf < 16; )
    if (m % p == 0)
      {
        f[nf++] = p;
        m /= p;
      }
    else
      p++;
  cn_shape s;
  memset (&s, 0, sizeof s);
  int minr = nf > 0 ? 1 : 0;
  s.rank = (int) cn__rng_int (r, minr, 4);
  if (s.rank == 0)
    return s;
  for (int a = 0; a < s.rank; a++)
    s.dim[a] = 1;
  for (int q = 0; q < nf; q++)
    s.dim[cn__rng_int (r, 0, s.rank - 1)] *= f[q];
  return s;
}

/* The element sort of the movement cases (reshape, permute, broadcast, pad, cat, slice: the seed's
 * element argument), drawn by cn__case_element_sort and put on every port: the model's scalar,
 * Booleans or integer words.  For words X is drawn integer-valued in a range the sort holds (a
 * quarter or half of it, within 2^24 so that X is exact in binary32), constants in [0, const_hi],
 * and CROWN stays in (the cast feeding a word port has no CROWN arm: the sweep discharges it over
 * its box).  Returns the sort. */
static cn_dtype
move_element_sort (cn__rng *r, struct cn__op_case *c)
{
  cn_dtype es = cn__case_element_sort (r, c, 1);
  for (int i = 0; i < c->n_in; i++)
    {
      c->in_dtype[i] = es;
      if (c->in_const[i] && es != CN_DTYPE_F64)
        c->const_lo[i] = 0;
    }
  if (es != CN_DTYPE_F64 && es != CN_DTYPE_BOOL)
    cn__case_set_word_range (c, es);   /* CROWN stays: the cast feeding a word port is discharged over its box */
  return es;
}

/* The element sort of the arithmetic cases (add, sub, mul, div, neg: the seed's element
 * argument), drawn by cn__case_element_sort without Booleans (refused at arithmetic) and put on
 * the N ports.  For words X is integer-valued over the sort's range cut to 2^24 (an f32
 * evaluation holds X in binary32), so that 8- and 16-bit sums and products wrap often and 32-bit
 * products too; constants over the range cut to 2^53 (64-bit products wrap through them).  CROWN
 * stays in (the cast feeding a word port is discharged over its box; the arms discharge their own).
 * Returns 1 for words, 0 for the model's scalar. */
static int
arith_word_case (cn__rng *r, struct cn__op_case *c, int n)
{
  cn_dtype t = cn__case_element_sort (r, c, 0);
  if (t == CN_DTYPE_F64)
    return 0;
  int bits = 8 * (int) cn_dtype_size (t), sgn = t <= CN_DTYPE_I64;
  double xr = ldexp (1, bits - sgn < 24 ? bits - sgn : 24), cr = ldexp (1, bits - sgn < 53 ? bits - sgn : 53);
  c->x_integer = 1;
  c->x_lo = sgn ? -xr : 0;
  c->x_hi = bits - sgn < 24 ? xr - 1 : xr;
  for (int i = 0; i < n; i++)
    {
      c->in_dtype[i] = t;
      c->const_lo[i] = sgn ? -cr : 0;
      c->const_hi[i] = bits - sgn < 53 ? cr - 1 : cr;
    }
  return 1;
}

int
cn__cases_basic (cn_op op, struct cn__op_case *c, cn__rng *r)
{
  c->crown_ok = 1;
  switch (op)
    {
    case CN_OP_ADD:
    case CN_OP_SUB:
      {
        c->n_in = 2;
        c->in_shape[0] = c->in_shape[1] = cn__case_rand_shape (r, 0, 3, 4, 64);
        int k = (int) cn__rng_int (r, 0, 2);   /* 0: no constant, 1/2: input k-1 constant */
        if (k > 0)
          cn__case_set_const (c, k - 1, -2, 2);
        arith_word_case (r, c, 2);
        return 1;
      }
    case CN_OP_MUL:
      {
        c->n_in = 2;
        c->in_shape[0] = c->in_shape[1] = cn__case_rand_shape (r, 0, 3, 4, 64);
        int k = (int) cn__rng_int (r, 0, 4);   /* 0: two variables (McCormick), else a constant side */
        if (k > 0)
          cn__case_set_const (c, k % 2, -2, 2);
        arith_word_case (r, c, 2);
        return 1;
      }
    case CN_OP_DIV:
      c->n_in = 2;
      c->params.div.rounding = CN_DIV_TRUE;
      c->in_shape[0] = c->in_shape[1] = cn__case_rand_shape (r, 0, 3, 4, 64);
      switch ((int) cn__rng_int (r, 0, 2))
        {
        case 0: cn__case_set_const (c, 1, 0.5, 2); break;
        case 1: cn__case_set_const (c, 1, -2, -0.5); break;
        default:
          /* a varying divisor (x / y relaxed as x times 1/y), both inputs on one side of 0; the
           * constant range too, for tests that make the divisor constant */
          if (cn__rng_int (r, 0, 1))
            c->x_lo = 0.5, c->x_hi = 2;
          else
            c->x_lo = -2, c->x_hi = -0.5;
          c->const_lo[1] = c->x_lo, c->const_hi[1] = c->x_hi;
          break;
        }
      if (arith_word_case (r, c, 2))
        {
          /* words: trunc or floor (true division has no rule); a constant divisor in [1, 3] or
           * [-3, -1] (the minimum over -1 wraps), or anywhere in the sort's range but 0, or both
           * varying on one side of 0 */
          int sgn = c->in_dtype[1] <= CN_DTYPE_I64, neg = sgn && cn__rng_int (r, 0, 1);
          c->params.div.rounding = cn__rng_int (r, 0, 1) ? CN_DIV_TRUNC : CN_DIV_FLOOR;
          switch ((int) cn__rng_int (r, 0, 2))
            {
            case 0: cn__case_set_const (c, 1, neg ? -3 : 1, neg ? -1 : 3); break;
            case 1: cn__case_set_const (c, 1, neg ? c->const_lo[1] : 1, neg ? -1 : c->const_hi[1]); break;
            default:
              c->in_const[1] = 0;
              c->x_lo = neg ? -100 : 1;
              c->x_hi = neg ? -1 : 100;
              break;
            }
        }
      return 1;
    case CN_OP_NEG:
      c->n_in = 1;
      c->in_shape[0] = cn__case_rand_shape (r, 0, 4, 4, 64);
      arith_word_case (r, c, 1);
      return 1;
    case CN_OP_RELU:
      c->n_in = 1;
      c->in_shape[0] = cn__case_rand_shape (r, 0, 4, 4, 64);
      return 1;
    case CN_OP_RESHAPE:
      c->n_in = 1;
      c->in_shape[0] = cn__case_rand_shape (r, 0, 4, 4, 64);
      c->params.reshape.shape = rand_factor_shape (r, numel (&c->in_shape[0]));
      move_element_sort (r, c);
      return 1;
    case CN_OP_PERMUTE:
      c->n_in = 1;
      c->in_shape[0] = cn__case_rand_shape (r, 1, 4, 4, 64);
      c->params.permute.rank = c->in_shape[0].rank;
      rand_perm (r, c->in_shape[0].rank, c->params.permute.perm);
      move_element_sort (r, c);
      return 1;
    case CN_OP_BROADCAST:
      {
        c->n_in = 1;
        cn_shape in = cn__case_rand_shape (r, 0, 3, 3, 27);
        for (int a = 0; a < in.rank; a++)
          if (cn__rng_int (r, 0, 1))
            in.dim[a] = 1;
        cn_shape t;
        memset (&t, 0, sizeof t);
        int extra = (int) cn__rng_int (r, 0, 2);
        if (in.rank + extra > CN_MAX_RANK)
          extra = CN_MAX_RANK - in.rank;
        t.rank = in.rank + extra;
        int64_t n = 1;
        for (int a = 0; a < t.rank; a++)
          {
            int64_t e = a < extra ? cn__rng_int (r, 1, 3) : in.dim[a - extra];
            if (a >= extra && e == 1 && cn__rng_int (r, 0, 1))
              e = cn__rng_int (r, 1, 3);
            if (n * e > 128)
              e = a >= extra ? in.dim[a - extra] : 1;
            t.dim[a] = e;
            n *= e;
          }
        c->in_shape[0] = in;
        c->params.broadcast.shape = t;
        if (cn__rng_int (r, 0, 5) == 0)
          cn__case_set_const (c, 0, -2, 2);
        move_element_sort (r, c);
        return 1;
      }
    case CN_OP_PAD:
      c->n_in = 1;
      c->in_shape[0] = cn__case_rand_shape (r, 0, 3, 4, 64);
      c->params.pad.rank = c->in_shape[0].rank;
      for (int a = 0; a < c->in_shape[0].rank; a++)
        {
          c->params.pad.begin[a] = cn__rng_int (r, 0, 2);
          c->params.pad.end[a] = cn__rng_int (r, 0, 2);
        }
      c->params.pad.value = cn__rng_int (r, 0, 2) == 0 ? 0.0 : cn__rng_uniform (r, -1, 1);
      {
        cn_dtype es = move_element_sort (r, c);
        if (es != CN_DTYPE_F64)
          c->params.pad.value = (double) cn__rng_int (r, es == CN_DTYPE_BOOL || es > CN_DTYPE_I64 ? 0 : -2,
                                                 es == CN_DTYPE_BOOL ? 1 : 2);
      }
      return 1;
    case CN_OP_CAT:
      {
        c->n_in = (int) cn__rng_int (r, 1, 4);
        cn_shape base = cn__case_rand_shape (r, 1, 3, 3, 16);
        int axis = (int) cn__rng_int (r, 0, base.rank - 1);
        c->params.cat.axis = axis;
        for (int i = 0; i < c->n_in; i++)
          {
            c->in_shape[i] = base;
            c->in_shape[i].dim[axis] = cn__rng_int (r, 1, 3);
            /* input 0 stays a variable; the others are constants one time in four */
            if (i > 0 && cn__rng_int (r, 0, 3) == 0)
              cn__case_set_const (c, i, -2, 2);
          }
        move_element_sort (r, c);
        return 1;
      }
    case CN_OP_SLICE:
      c->n_in = 1;
      c->in_shape[0] = cn__case_rand_shape (r, 0, 3, 5, 64);
      c->params.slice.rank = c->in_shape[0].rank;
      for (int a = 0; a < c->in_shape[0].rank; a++)
        {
          int64_t e = c->in_shape[0].dim[a];
          int64_t b = cn__rng_int (r, 0, e - 1);
          c->params.slice.start[a] = b;
          c->params.slice.stop[a] = cn__rng_int (r, b + 1, e);
          c->params.slice.step[a] = cn__rng_int (r, 1, 3);
        }
      move_element_sort (r, c);
      return 1;
    case CN_OP_REDUCE:
    case CN_OP_MEAN:
      {
        c->n_in = 1;
        c->in_shape[0] = cn__case_rand_shape (r, 1, 4, 4, 64);
        uint32_t axes = 0;
        for (int a = 0; a < c->in_shape[0].rank; a++)
          if (cn__rng_int (r, 0, 1))
            axes |= 1u << a;
        if (axes == 0)
          axes = 1u << cn__rng_int (r, 0, c->in_shape[0].rank - 1);
        c->params.reduce.axes = axes;
        c->params.reduce.keepdims = (int) cn__rng_int (r, 0, 1);
        if (op == CN_OP_REDUCE)
          {
            static const cn_reduce_kind kinds[3] = { CN_REDUCE_SUM, CN_REDUCE_MAX, CN_REDUCE_MIN };
            c->params.reduce.kind = kinds[cn__rng_int (r, 0, 2)];
            c->crown_ok = c->params.reduce.kind == CN_REDUCE_SUM;
          }
        else
          c->params.reduce.kind = CN_REDUCE_SUM;
        return 1;
      }
    default:
      return 0;
    }
}
