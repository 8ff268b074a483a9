/* SPDX-License-Identifier: MIT */
/* src/ops/cases_logic.c: random instances of the comparisons, predicates and logic (eq ... ge,
 * isNaN, isInf, isFinite, logicalNot ... logicalXor), select and cast for the generic tests.
 *
 * Boolean ports are marked in_dtype = CN_DTYPE_BOOL (the harness feeds them gt(slice of X, 0), a
 * constant one is drawn 0/1); integer ports of cast are marked with their sort (the harness
 * feeds them cast(slice of X), so X is drawn integer-valued in a range every sort involved holds).
 *
 * Every operator but cast has a CROWN arm (crown_ok): select passes known entries through and
 * the Boolean-valued ones discharge their own box.
 *
 * Comparisons: two inputs of one shape, one of them a constant in half the cases.  Ties decide
 * eq, ne, le and ge, and random reals never tie, so eq and ne always, and the others in half the
 * cases, draw integer points and constants in [-2, 2] (x_integer, const_integer), where ties are
 * frequent.
 *
 * cast: one of eight conversions, each drawn with its target sort (and source sort), scalar ->
 * integer over reals four times as often as the others (trunc toward zero on both sides of 0 and
 * at the range's ends is where a wrong box shows):
 *   bool -> scalar, integer -> scalar, scalar -> integer (reals in [-4, 4], or [-0.9, 4] for an
 *   unsigned target so that trunc toward zero meets (-1, 0), or integers in a range the target
 *   holds), scalar -> bool (x in [-2, 2]: exact zeros are rare, so half of these draw integers),
 *   integer -> integer (in a range both sorts hold, and from 16 .. 64-bit words of [-300, 300] or
 *   [0, 600] into i8, u8, u16, where the cast wraps: IBP shifts a box within one period and gives
 *   the target's range across a wrap, MPFI is exact at points),
 *   bool -> integer, integer -> bool, scalar -> scalar, and scalar -> binary16 or bfloat16
 *   (reals in [-4, 4] or [-300, 300] on the cases' grid of 2^-20, which the formats round, or
 *   just below the format's largest number; the generic tests take finite values only, so
 *   overflow, like the subnormals, is checked by tests/check_core.c against MPFR and by
 *   tests/cli/check.sh).
 * Reals stay in [-4, 4], where the binary32 forward rounds a double within 2^-22: it moves trunc
 * across an integer only for a point that close to one (probability about 1e-6 per entry). */
#include <config.h>
#include <math.h>
#include "ops/cases_impl.h"

static int
is_unsigned (cn_dtype t)
{
  return t == CN_DTYPE_U8 || t == CN_DTYPE_U16 || t == CN_DTYPE_U32 || t == CN_DTYPE_U64;
}

/* Integer points in a range every sort of A and B holds: [0, 200] if one is unsigned (u8 holds
 * 200; i8 is never paired with that range), else [-100, 100]. */
static void
integer_range (struct cn__op_case *c, cn_dtype a, cn_dtype b)
{
  c->x_integer = 1;
  if (is_unsigned (a) || is_unsigned (b))
    c->x_lo = 0, c->x_hi = (a == CN_DTYPE_I8 || b == CN_DTYPE_I8) ? 100 : 200;
  else
    c->x_lo = -100, c->x_hi = 100;
}

static void
cast_case (cn__rng *r, struct cn__op_case *c)
{
  c->n_in = 1;
  cn__case_small_shape (r, &c->in_shape[0], 4);
  cn_dtype scalar = cn__rng_int (r, 0, 1) ? CN_DTYPE_F64 : CN_DTYPE_F32;
  /* scalar -> integer, where trunc meets both signs and the range, drawn most often */
  switch ((int) cn__rng_int (r, 0, 14))
    {
    case 0:   /* bool -> scalar */
      c->in_dtype[0] = CN_DTYPE_BOOL;
      c->params.cast.to = scalar;
      break;
    case 1:   /* integer -> scalar */
      c->in_dtype[0] = cn__case_word_sort (r);
      c->params.cast.to = scalar;
      integer_range (c, c->in_dtype[0], c->in_dtype[0]);
      break;
    case 2:   /* scalar -> integer, integer points (the CROWN test's boxes may leave the range) */
      c->params.cast.to = cn__case_word_sort (r);
      integer_range (c, c->params.cast.to, c->params.cast.to);
      c->crown_ok = 0;
      break;
    case 3:   /* scalar -> bool */
      c->params.cast.to = CN_DTYPE_BOOL;
      c->x_lo = -2, c->x_hi = 2;
      c->x_integer = (int) cn__rng_int (r, 0, 1);
      break;
    case 4:   /* integer -> integer */
      c->in_dtype[0] = cn__case_word_sort (r);
      c->params.cast.to = cn__case_word_sort (r);
      integer_range (c, c->in_dtype[0], c->params.cast.to);
      break;
    case 5:   /* bool -> integer */
      c->in_dtype[0] = CN_DTYPE_BOOL;
      c->params.cast.to = cn__case_word_sort (r);
      break;
    case 6:   /* integer -> bool */
      c->in_dtype[0] = cn__case_word_sort (r);
      c->params.cast.to = CN_DTYPE_BOOL;
      integer_range (c, c->in_dtype[0], c->in_dtype[0]);
      c->x_lo = is_unsigned (c->in_dtype[0]) ? 0 : -3, c->x_hi = 3;   /* zeros often */
      break;
    case 7:   /* scalar -> scalar */
      c->params.cast.to = scalar;
      break;
    case 14:  /* scalar -> a reduced format */
      {
        cn_dtype to = cn__rng_int (r, 0, 1) ? CN_DTYPE_F16 : CN_DTYPE_BF16;
        c->params.cast.to = to;
        switch ((int) cn__rng_int (r, 0, 2))
          {
          case 0: c->x_lo = -4, c->x_hi = 4; break;
          case 1: c->x_lo = -300, c->x_hi = 300; break;   /* ulps 2^-2 (f16) and 2 (bf16) */
          default:  /* below the largest, 65504 (f16) and 0x1.fep127 (bf16) */
            c->x_lo = to == CN_DTYPE_F16 ? 6e4 : 0x1.f8p127;
            c->x_hi = to == CN_DTYPE_F16 ? 65504 : 0x1.fep127;
            break;
          }
      }
      break;
    case 12:
    case 13:  /* integer -> narrower integer, wrapping: words of [-300, 300] or [0, 600] into 8 or 16 bits */
      {
        static const cn_dtype wide_signed[] = { CN_DTYPE_I16, CN_DTYPE_I32, CN_DTYPE_I64 };
        static const cn_dtype wide_unsigned[] = { CN_DTYPE_U16, CN_DTYPE_U32, CN_DTYPE_U64 };
        static const cn_dtype narrow[] = { CN_DTYPE_I8, CN_DTYPE_U8, CN_DTYPE_U16 };
        int sg = (int) cn__rng_int (r, 0, 1);
        c->in_dtype[0] = sg ? wide_signed[cn__rng_int (r, 0, 2)] : wide_unsigned[cn__rng_int (r, 0, 2)];
        c->params.cast.to = narrow[cn__rng_int (r, 0, 2)];
        c->x_integer = 1;
        c->x_lo = sg ? -300 : 0, c->x_hi = sg ? 300 : 600;
      }
      break;
    default:  /* scalar -> integer, real points (8 .. 11) */
      c->params.cast.to = cn__case_word_sort (r);
      c->x_lo = is_unsigned (c->params.cast.to) ? -0.9 : -4, c->x_hi = 4;
      break;
    }
}

/* The element sort of the ports FIRST .. FIRST + N - 1 (the comparisons' operands, select's
 * data ports: the seed's element argument): Booleans (constants 0/1, varying ones gt(X, 0)), or
 * one integer sort, X integer-valued in [-3, 3] ([0, 6] unsigned) where ties are frequent, or
 * over the sort's range cut to 2^24 (an f32 evaluation holds X in binary32), constants within
 * 2^53; CROWN stays in (the cast feeding a word port is discharged over its box).  Returns the
 * sort. */
static cn_dtype
element_ports (cn__rng *r, struct cn__op_case *c, int first, int n)
{
  cn_dtype t = cn__case_element_sort (r, c, 1);
  for (int i = first; i < first + n; i++)
    c->in_dtype[i] = t;
  if (t == CN_DTYPE_F64 || t == CN_DTYPE_BOOL)
    return t;
  int bits = 8 * (int) cn_dtype_size (t), sgn = !is_unsigned (t), small = (int) cn__rng_int (r, 0, 1);
  double xr = ldexp (1, bits - sgn < 24 ? bits - sgn : 24), cr = ldexp (1, bits - sgn < 53 ? bits - sgn : 53);
  c->x_integer = 1;
  c->x_lo = small ? (sgn ? -3 : 0) : sgn ? -xr : 0;
  c->x_hi = small ? (sgn ? 3 : 6) : xr - 1;
  for (int i = first; i < first + n; i++)
    {
      c->const_integer[i] = 1;
      c->const_lo[i] = small ? c->x_lo : sgn ? -cr : 0;
      c->const_hi[i] = small ? c->x_hi : cr - 1;
    }
  return t;
}

int
cn__cases_logic (cn_op op, struct cn__op_case *c, cn__rng *r)
{
  /* every operator here but cast has a CROWN arm (the Boolean ones discharge their own box) */
  c->crown_ok = 1;
  switch (op)
    {
    case CN_OP_EQ:
    case CN_OP_NE:
    case CN_OP_LT:
    case CN_OP_LE:
    case CN_OP_GT:
    case CN_OP_GE:
      cn__case_pair (r, c);
      if (op == CN_OP_EQ || op == CN_OP_NE || cn__rng_int (r, 0, 1))
        {
          c->x_integer = 1;
          c->x_lo = -2, c->x_hi = 2;
          c->const_integer[0] = c->const_integer[1] = 1;
        }
      if (element_ports (r, c, 0, 2) == CN_DTYPE_BOOL)
        c->x_integer = 0, c->x_lo = c->x_hi = 0;   /* gt(X, 0) of the default draws */
      return 1;
    case CN_OP_IS_NA_N:
    case CN_OP_IS_INF:
    case CN_OP_IS_FINITE:
      c->n_in = 1;
      cn__case_small_shape (r, &c->in_shape[0], 4);
      return 1;
    case CN_OP_LOGICAL_NOT:
      c->n_in = 1;
      cn__case_small_shape (r, &c->in_shape[0], 4);
      c->in_dtype[0] = CN_DTYPE_BOOL;
      return 1;
    case CN_OP_LOGICAL_AND:
    case CN_OP_LOGICAL_OR:
    case CN_OP_LOGICAL_XOR:
      cn__case_pair (r, c);
      c->in_dtype[0] = c->in_dtype[1] = CN_DTYPE_BOOL;
      return 1;
    case CN_OP_SELECT:
      c->n_in = 3;
      cn__case_small_shape (r, &c->in_shape[0], 4);
      c->in_shape[1] = c->in_shape[2] = c->in_shape[0];
      c->in_dtype[0] = CN_DTYPE_BOOL;
      for (int i = 1; i < 3; i++)
        c->const_lo[i] = -2, c->const_hi[i] = 2;
      /* sometimes a constant condition or a constant operand */
      switch ((int) cn__rng_int (r, 0, 5))
        {
        case 0: c->in_const[0] = 1; break;
        case 1: c->in_const[1] = 1; break;
        case 2: c->in_const[2] = 1; break;
        default: break;
        }
      element_ports (r, c, 1, 2);
      return 1;
    case CN_OP_CAST:
      cast_case (r, c);
      return 1;
    default:
      return 0;
    }
}
