/* SPDX-License-Identifier: MIT */
/* src/ops/cases_integer.c: random instances of the integer-word operators (bitwiseAnd ..
 * mulhi, bitcast, encodeIndex, decodeIndex) for the generic tests.
 *
 * Word ports are marked with their sort in in_dtype; the harness feeds a non-constant one
 * cast(slice of X) with X integer-valued (x_integer) in [x_lo, x_hi], and draws a constant one
 * as integers in [const_lo, const_hi] converted to the sort.  The sort is drawn uniformly among
 * the eight.  X stays within 2^24 in magnitude, so that an f32 evaluation (which holds X in
 * binary32 before the cast) reads the same words as the f64 one and the MPFI reference; the
 * 32- and 64-bit sorts reach their high bits through constants (exact in binary64 up to 2^53,
 * held in their own sort in every evaluation) and through the operators themselves (shifts,
 * bitwiseNot of a small word, mulhi by a large constant).  The wrap-arounds, the 64-bit
 * extremes and the exactness of every range are unit-tested exhaustively outside the generic
 * test; here the point is the graph-level agreement of forward, IBP and MPFI.
 *
 *   and, or, xor, mulhi    two words of one sort and shape, the second a constant in a third
 *                          of the cases (anywhere in the sort's range up to 2^53);
 *   not, popcount, clz     one word;
 *   shifts                 the amount a constant in [0, N + 2] (N the width) with the shifted
 *                          word over the sort's X range, or both inputs from X in [0, N + 2]
 *                          (amounts are never negative: a negative one is refused);
 *   bitcast                word -> word of the same width; 32/64-bit word -> the scalar, with
 *                          words in [0, 2^24] (NaN encodings would be refused by the bounds);
 *                          the scalar -> a 32-bit word, X real in [-100, 100] (both
 *                          evaluations round the scalar to binary32 first), or -> a 64-bit
 *                          word, X integer in [1, 1000] or [-1000, -1] (an f32 evaluation
 *                          holds X in binary32: the points must be binary32 numbers; and a
 *                          point rounded to -0.0 would have the sign bit in the forward, while
 *                          the reals, and so the reference, have no -0);
 *   encodeIndex            r in 1 .. 3, bounds in 2 .. 6, X integer in [0, min bound - 1],
 *                          the word sort one that holds prod bound - 1;
 *   decodeIndex            the same record, the word from X integer in [0, prod bound - 1]. */
#include <config.h>
#include <math.h>
#include "ops/cases_impl.h"

static int
width (cn_dtype t)
{
  switch (t)
    {
    case CN_DTYPE_I8: case CN_DTYPE_U8: return 8;
    case CN_DTYPE_I16: case CN_DTYPE_U16: return 16;
    case CN_DTYPE_I32: case CN_DTYPE_U32: return 32;
    default: return 64;
    }
}

static int
is_signed (cn_dtype t)
{
  return t == CN_DTYPE_I8 || t == CN_DTYPE_I16 || t == CN_DTYPE_I32 || t == CN_DTYPE_I64;
}

/* The words of T that fit in BITS bits of precision: all of T when it is narrower, else
 * [-2^BITS, 2^BITS] (signed) or [0, 2^BITS] (unsigned). */
static void
word_range (cn_dtype t, int bits, double *lo, double *hi)
{
  int w = width (t);
  double m = w < bits ? ldexp (1, w) : ldexp (1, bits);
  if (is_signed (t))
    *lo = w < bits ? -m / 2 : -m, *hi = w < bits ? m / 2 - 1 : m;
  else
    *lo = 0, *hi = w < bits ? m - 1 : m;
}

/* The words of T that X may hold (within 2^24, exact in binary32). */
static void
x_range (cn_dtype t, double *lo, double *hi)
{
  word_range (t, 24, lo, hi);
}

/* The words of T a constant may hold (exact in binary64). */
static void
const_range (cn_dtype t, double *lo, double *hi)
{
  word_range (t, 53, lo, hi);
}

/* The greatest word of T (as a double; only compared with small products). */
static double
word_max (cn_dtype t)
{
  return is_signed (t) ? ldexp (1, width (t) - 1) - 1 : ldexp (1, width (t)) - 1;
}

/* N_IN word ports of sort T and one small shape, X over T's range. */
static void
word_ports (cn__rng *r, struct cn__op_case *c, int n_in, cn_dtype t)
{
  c->n_in = n_in;
  cn__case_small_shape (r, &c->in_shape[0], 4);
  for (int i = 0; i < n_in; i++)
    {
      c->in_shape[i] = c->in_shape[0];
      c->in_dtype[i] = t;
      const_range (t, &c->const_lo[i], &c->const_hi[i]);
    }
  c->x_integer = 1;
  x_range (t, &c->x_lo, &c->x_hi);
}

static void
shift_case (cn__rng *r, struct cn__op_case *c)
{
  cn_dtype t = cn__case_word_sort (r);
  word_ports (r, c, 2, t);
  int w = width (t);
  if (cn__rng_int (r, 0, 1))
    {
      c->in_const[1] = 1;
      c->const_lo[1] = 0;
      c->const_hi[1] = w + 2;
    }
  else
    {
      c->x_lo = 0;
      c->x_hi = w + 2;
    }
}

static void
bitcast_case (cn__rng *r, struct cn__op_case *c)
{
  static const cn_dtype w32[] = { CN_DTYPE_I32, CN_DTYPE_U32 }, w64[] = { CN_DTYPE_I64, CN_DTYPE_U64 };
  c->n_in = 1;
  cn__case_small_shape (r, &c->in_shape[0], 4);
  switch ((int) cn__rng_int (r, 0, 2))
    {
    case 0:   /* word -> word of the same width */
      {
        cn_dtype s = cn__case_word_sort (r), t;
        do
          t = cn__case_word_sort (r);
        while (width (t) != width (s));
        word_ports (r, c, 1, s);
        c->params.bitcast.to = t;
        break;
      }
    case 1:   /* word -> the scalar */
      {
        int wide = (int) cn__rng_int (r, 0, 1);
        cn_dtype s = wide ? w64[cn__rng_int (r, 0, 1)] : w32[cn__rng_int (r, 0, 1)];
        word_ports (r, c, 1, s);
        c->x_lo = 0;
        c->x_hi = 0x1p24;
        c->params.bitcast.to = wide ? CN_DTYPE_F64 : CN_DTYPE_F32;
        break;
      }
    default:  /* the scalar -> word */
      if (cn__rng_int (r, 0, 1))
        {
          /* binary32: both evaluations round the point to binary32 first */
          c->params.bitcast.to = w32[cn__rng_int (r, 0, 1)];
          c->x_lo = -100;
          c->x_hi = 100;
        }
      else
        {
          /* binary64: points exact in binary32 (integers), of one sign (no -0.0) */
          c->params.bitcast.to = w64[cn__rng_int (r, 0, 1)];
          c->x_integer = 1;
          c->x_lo = cn__rng_int (r, 0, 1) ? 1 : -1000;
          c->x_hi = c->x_lo + 999;
        }
      break;
    }
}

/* An index code whose words hold every linear index. */
static void
code_params (cn__rng *r, struct cn__op_case *c)
{
  cn_params_index_code *p = &c->params.index_code;
  p->r = (int) cn__rng_int (r, 1, 3);
  double total = 1;
  for (int k = 0; k < p->r; k++)
    {
      p->bound[k] = cn__rng_int (r, 2, 6);
      total *= (double) p->bound[k];
    }
  do
    p->word = cn__case_word_sort (r);
  while (word_max (p->word) < total - 1);
}

static void
encode_case (cn__rng *r, struct cn__op_case *c)
{
  code_params (r, c);
  const cn_params_index_code *p = &c->params.index_code;
  cn_shape lead;
  cn__case_small_shape (r, &lead, 3);
  if (lead.rank > 2)
    lead.rank = 2;
  int64_t d[CN_MAX_RANK];
  for (int a = 0; a < lead.rank; a++)
    d[a] = lead.dim[a];
  d[lead.rank] = p->r;
  cn__case_shape_set (&c->in_shape[0], lead.rank + 1, d);
  c->n_in = 1;
  int64_t minb = p->bound[0];
  for (int k = 1; k < p->r; k++)
    if (p->bound[k] < minb)
      minb = p->bound[k];
  c->x_integer = 1;
  c->x_lo = 0;
  c->x_hi = (double) (minb - 1);
}

static void
decode_case (cn__rng *r, struct cn__op_case *c)
{
  code_params (r, c);
  const cn_params_index_code *p = &c->params.index_code;
  double total = 1;
  for (int k = 0; k < p->r; k++)
    total *= (double) p->bound[k];
  c->n_in = 1;
  cn__case_small_shape (r, &c->in_shape[0], 4);
  c->in_dtype[0] = p->word;
  c->x_integer = 1;
  c->x_lo = 0;
  c->x_hi = total - 1;
}

int
cn__cases_integer (cn_op op, struct cn__op_case *c, cn__rng *r)
{
  switch (op)
    {
    case CN_OP_BITWISE_AND:
    case CN_OP_BITWISE_OR:
    case CN_OP_BITWISE_XOR:
    case CN_OP_MULHI:
      word_ports (r, c, 2, cn__case_word_sort (r));
      if (cn__rng_int (r, 0, 2) == 0)
        c->in_const[1] = 1;
      return 1;
    case CN_OP_BITWISE_NOT:
    case CN_OP_POPULATION_COUNT:
    case CN_OP_COUNT_LEADING_ZEROS:
      word_ports (r, c, 1, cn__case_word_sort (r));
      return 1;
    case CN_OP_BITWISE_LEFT_SHIFT:
    case CN_OP_SHIFT_RIGHT_ARITHMETIC:
    case CN_OP_SHIFT_RIGHT_LOGICAL:
      shift_case (r, c);
      return 1;
    case CN_OP_BITCAST:
      bitcast_case (r, c);
      return 1;
    case CN_OP_ENCODE_INDEX:
      encode_case (r, c);
      return 1;
    case CN_OP_DECODE_INDEX:
      decode_case (r, c);
      return 1;
    default:
      return 0;
    }
}
