/* SPDX-License-Identifier: MIT */
/* src/ops/integer.c: integer words: bitwiseAnd, bitwiseOr, bitwiseXor, bitwiseNot,
 * bitwiseLeftShift, shiftRightArithmetic, shiftRightLogical, populationCount,
 * countLeadingZeros, mulhi, bitcast, encodeIndex, decodeIndex.
 *
 * Words (certnn/ops.h, "element sorts").  A word of sort i8 .. i64 / u8 .. u64 has width
 * N = 8, 16, 32 or 64 and a pattern p in [0, 2^N) (its N bits); its value is p for an unsigned
 * sort, and p, or p - 2^N when bit N-1 is set, for a signed one (two's complement).  Every
 * operator below computes with patterns held in uint64_t (the value of a signed word is formed
 * from its pattern without any signed overflow, and every shift count is below 64), so the C is
 * free of undefined and implementation-defined behaviour.  Tensors of words are read and written
 * through the unsigned type of their width, which may alias the signed one.
 *
 * Boxes and MPFI enclosures of words hold the word VALUES as numbers.  An arm reads a box [l, h]
 * of a word port as the set of words of the port's sort in [l, h]: [ceil l, floor h] cut to the
 * sort's range [min, max] (a box end past the range says nothing more than the range); a NaN
 * end, or a box holding no word of the sort, is CN_ENUMERIC.  Every range below is computed
 * EXACTLY on those integer sets, then written as doubles: exact below 2^53 in magnitude, rounded
 * outward beyond (so [min, max] of a 64-bit sort reads [-2^63, 2^63] or [0, 2^64]).  The MPFI
 * arms share the integer computation (reading the ends with mpfr_get_sj / mpfr_get_uj, rounded
 * up at the left end and down at the right one, and writing them with mpfr_set_sj / mpfr_set_uj
 * rounded outward), so they are exact at every precision >= 64 and in particular at points.
 *
 * The sort of a word port is not in the arms' tensors for IBP and MPFI: those arms read it from
 * the node view (nv->in_sort, filled by the graph builder); a view without sorts makes them
 * CN_EUNSUPPORTED (never a guess).
 *
 * Checks.  The ten word operators take ports of one shape (cn__check_unary / cn__check_binary)
 * and out_sort asks for integer sorts, equal for the binary ones, the output of that sort
 * ("bitwiseAnd: input sorts i32 and u8 differ", "mulhi: input 0 has sort bool; integer words
 * (i8 .. u64) are expected").  No word operator has a value input: no pullback; only bitcast
 * and decodeIndex have a jvp (the seed's "forward mode"), which writes zero tangents.
 *
 *   bitwiseAnd, bitwiseOr, bitwiseXor (a, b), bitwiseNot (a)
 *     forward  p_a & p_b, p_a | p_b, p_a ^ p_b, ~p_a on the N-bit patterns.
 *     IBP      not: in values ~v = min + max - v (-v - 1 signed, 2^N - 1 - v unsigned), decreasing,
 *              so [~h, ~l], exact.  and/or/xor: each input's words are split into at most two
 *              pattern intervals within one half (sign bit constant); on every pair of pieces
 *              the exact minimum and maximum of p_a OP p_b over the rectangle come from the
 *              classic bit bounds (Warren, Hacker's Delight, 4-3: minAND/maxAND, minOR/maxOR,
 *              minXOR/maxXOR); the result's sign bit is constant on the pair, so the pattern
 *              range is a value range; the hull over the pairs is exact.  (Nonnegative ranges
 *              are the one-piece case.)
 *   bitwiseLeftShift (a, s)     a word shifted left by s bits, the bits past N dropped (torch
 *              wraps): p_a << s mod 2^N; s >= N gives 0 (as if shifting one bit at a time).
 *   shiftRightArithmetic (a, s) floor(v_a / 2^s) for a signed sort (the sign bit copied in; s >=
 *              N gives 0 or -1), the logical shift for an unsigned one.
 *   shiftRightLogical (a, s)    p_a >> s on the N-bit pattern, zeros shifted in (s >= N gives 0);
 *              for a signed sort the result's pattern is read back as signed (i8: -1 >> 1 = 127).
 *     The amount s is the VALUE of the second word (the same sort as a).  A negative amount (a
 *     signed sort) is refused: forward checks every amount first and fails with CN_ENUMERIC
 *     before writing anything ("bitwiseLeftShift: shift amount -3 at entry 5 is negative
 *     (node 'x')"); IBP and MPFI fail the same way when the amount's box holds a negative word.
 *     IBP  amounts [s0, s1], input words [a0, a1] (exact integers).
 *              left:  for each amount s in [s0, min(s1, N-1)] (at most N of them), X(a) = a 2^s
 *                     + bias (bias = 2^(N-1) signed, 0 unsigned) is increasing in a and exact in
 *                     128 bits, and the result's offset v - min is X mod 2^N; when X(a0) and
 *                     X(a1) lie in one block of 2^N (no wrap between them) the offsets are
 *                     exactly [X(a0) mod 2^N, X(a1) mod 2^N], else the arm gives the sort's
 *                     whole range [min, max].  s1 >= N adds the result 0.  The hull over the
 *                     amounts is exact whenever no amount wraps, so always at points.
 *              arithmetic: floor(a / 2^min(s, N-1)) is nondecreasing in a and monotone in s
 *                     for each sign of a: the hull of the four corners, exact.
 *              logical: unsigned, p >> s is nondecreasing in p and nonincreasing in s:
 *                     [a0 >> s1, a1 >> s0], exact.  Signed: s = 0 gives [a0, a1]; for s >= 1
 *                     every result is nonnegative and each sign half of a is one pattern
 *                     interval [p, q], giving [p >> s1, q >> max(s0, 1)]; the hull, exact.
 *   populationCount (a)         the number of ones of the N-bit pattern (0 .. N, in a's sort).
 *   countLeadingZeros (a)       the number of zeros above the highest one of the N-bit pattern
 *              (N for 0).
 *     IBP  per pattern interval [p, q] (at most two, as above): clz is nonincreasing in p, so
 *              [clz q, clz p]; popcount: with k the highest bit where p and q differ and P their
 *              common prefix above it, every word of [p, q] has P's ones, min = |P| + (p == P ?
 *              0 : 1) (P | 2^k is in (p, q]) and max = |P| + k + (q's low k+1 bits all ones ? 1
 *              : 0) (P | (2^k - 1) is in [p, q)).  Exact.
 *   mulhi (a, b)                the high half of the exact 2N-bit product: floor(v_a v_b / 2^N),
 *              signed or unsigned per the sort (always a word of the sort: no wrap).  The
 *              product is formed exactly in 128 bits from 32-bit limbs (the signed one by the
 *              two's complement correction hi -= [a < 0] b + [b < 0] a).
 *     IBP  v_a v_b is bilinear, so its extremes over the rectangle are corner products (exact
 *              128-bit, compared exactly) and floor(. / 2^N) is nondecreasing: exact.
 *   bitcast (x), cn_params_bitcast {to}: each element read as a word of TO of the same width.
 *     out_sort  a word source of width N: to a word sort of width N (any signedness), or to
 *              the model's scalar through binary32 (N = 32, TO f32) or binary64 (N = 64, TO f64);
 *              the model's scalar as source: to a word sort of width 32 (binary32) or 64
 *              (binary64).  Refused (CN_EINVAL, naming both sorts): a Boolean on either side,
 *              different widths, an 8- or 16-bit word with the model's scalar (no binary8/16
 *              format), and the model's scalar to itself (not a reinterpretation).
 *     forward  word -> word: the pattern copied.  word -> scalar: the binary32/binary64 number
 *              with that interchange encoding (NaN patterns give NaNs), held in the evaluation's
 *              sort (exact, except binary64 -> f32, rounded to nearest).  scalar -> word: the
 *              scalar rounded to nearest into the format (exact when the evaluation's sort is the
 *              format), then its encoding; an IEEE -0 has the sign bit set.
 *     IBP  the reals have no -0 and no NaN: a real x maps to the encoding of RN_F(x) (+0 for
 *              0).  RN_F and the encoding of each sign are monotone: x >= 0 gives patterns
 *              [enc RN(max(l, 0)), enc RN(h)] (nondecreasing), x < 0 gives sign | [enc RN(|x|)]
 *              over |x| in [max(-h, 0), -l] (an end -0.0 of the box counts as holding the IEEE
 *              -0, so that the forward value there is inside); each piece is one pattern
 *              interval, read in TO's sort; the hull, exact.  word -> scalar: each sign half of
 *              the source's patterns gives magnitudes [m0, m1]; a magnitude above the infinity's
 *              (a NaN pattern) is CN_ENUMERIC, else the numbers [dec m0, dec m1] (negated and
 *              swapped for the sign half), infinite ends included; the hull, exact.  word ->
 *              word: each half of the source's patterns is one interval of TO's values.
 *     MPFI the same, RN_F by mpfr_get_d / mpfr_get_flt (MPFR_RNDN), exact at points.
 *     jvp  zero tangents (no value input; the seed's "forward mode at some attributes": the arm
 *          is there for every attribute, and a word output's tangents are zero too).
 *   encodeIndex (i), cn_params_index_code {r, bound, word}: i an index port [..., R] of the
 *              model's scalar -> WORD [...], L = sum_c i_c stride_c, stride_c = prod_{c' > c}
 *              bound_c'.  check: 1 <= R <= CN_MAX_RANK - 1, 1 <= bound_c <= 2^53 (a component
 *              must be exact in binary64, the model's scalar at an index port), WORD an integer
 *              sort, the input's last extent R.
 *     forward  every tuple checked first: a component that is not an integer in [0, bound_c)
 *              (NaN included) or a linear index above WORD's maximum is CN_ENUMERIC, nothing
 *              written; then L, exactly (uint64_t with overflow detection).
 *     IBP/MPFI each component's box is read as the integers it holds, [ceil l, floor h]; none,
 *              or one outside [0, bound_c), is CN_ENUMERIC (the forward fails there); L is
 *              increasing in every component: [L(ceil l), L(floor h)], CN_ENUMERIC if the upper
 *              one is above WORD's maximum.  Exact.
 *   decodeIndex (w), the same record: w of sort WORD [...] -> an index port [..., R] of the
 *              model's scalar, i_c = floor(w / stride_c) mod bound_c.  check as encodeIndex, the
 *              input's rank at most CN_MAX_RANK - 1 (the bounds above 2^53 refused there are how
 *              this file reads the seed's "no rule at some attributes"); out_sort: the input's
 *              sort is WORD.
 *     forward  every word checked first: outside [0, prod bound) is CN_ENUMERIC; components are
 *              integers below 2^53, exact in f64 (rounded to nearest in an f32 evaluation above
 *              2^24).
 *     IBP/MPFI words [a, b] (CN_ENUMERIC if they reach outside [0, prod bound)); with q = floor(
 *              . / stride_c), increasing: if q(a) and q(b) lie in the same block of bound_c
 *              consecutive values, [q(a) mod bound_c, q(b) mod bound_c], else [0, bound_c - 1]
 *              (the run of quotients wraps through bound_c - 1 and 0).  Exact.
 *     jvp  zero tangents (no value input).
 *
 * Forward accuracy: exact everywhere (0 ulp), but bitcast of a 64-bit word to the model's
 * scalar in an f32 evaluation (binary64 rounded to nearest into binary32, 0.5 ulp) and
 * decodeIndex components above 2^24 in an f32 evaluation (0.5 ulp). */
#include <config.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ops/unary_impl.h"

/* ---- word sorts, patterns and offsets (the sorts' widths: cn__wsort_of, ops_impl.h) -------- */

/* The sort of input I as the graph recorded it (CN_DTYPE_F64 for the model's scalar), or
 * CN_DTYPE_COUNT when the view does not carry the sorts. */
static cn_dtype
input_sort (const cn_node_view *nv, int i)
{
  return nv->in_sort != NULL ? nv->in_sort[i] : CN_DTYPE_COUNT;
}

/* The word sort of input I for an IBP or MPFI arm, into *S; CN_EUNSUPPORTED if unknown. */
static cn_status
view_word_sort (const cn_node_view *nv, int i, cn__wsort *s, cn_error *err)
{
  cn_dtype t = input_sort (nv, i);
  if (cn__wsort_of (t, s))
    return CN_OK;
  if (t == CN_DTYPE_COUNT)
    return cn_error_set (err, CN_EUNSUPPORTED, "%s: the node view does not carry the input sorts (node '%s')",
                         cn_op_name (nv->op), cn__node_name (nv));
  return cn_error_set (err, CN_EINVAL, "%s: input %d has sort %s, not integer words (node '%s')", cn_op_name (nv->op),
                       i, cn__sort_name (t), cn__node_name (nv));
}


/* The pattern P widened to 64 bits with the sort's meaning: sign-extended if signed. */
static inline uint64_t
widen (const cn__wsort *s, uint64_t p)
{
  return s->sgn && (p & s->top) ? p | ~s->mask : p;
}

/* Offsets: u = v - min, an order-preserving map of the sort's words onto [0, 2^N).  The pattern of
 * offset u is u ^ 2^(N-1) for a signed sort and u itself for an unsigned one (and back). */
static inline uint64_t
pat (const cn__wsort *s, uint64_t u)
{
  return s->sgn ? u ^ s->top : u;
}

/* The offset of the word of value V >= 0 (V a word of the sort). */
static inline uint64_t
off_nonneg (const cn__wsort *s, uint64_t v)
{
  return s->sgn ? v + s->top : v;
}

/* The offset of the signed value V (a word of the signed sort S): (V + 2^(N-1)) computed modulo
 * 2^64, exact since the result is in [0, 2^N). */
static inline uint64_t
off_signed (const cn__wsort *s, int64_t v)
{
  return ((uint64_t) v + s->top) & s->mask;
}

/* The value of offset U as a double, rounded down (UP = 0) or up (UP = 1); exact below 2^53. */
static double
off_to_d (const cn__wsort *s, uint64_t u, int up)
{
  if (!s->sgn)
    return cn__u64_dir (u, up);
  if (u >= s->top)
    return cn__u64_dir (u - s->top, up);
  /* a negative value -(top - u), whose magnitude top - u <= 2^63 is exact in uint64_t */
  return -cn__u64_dir (s->top - u, !up);
}

/* Reads the box [L, H] of a word port as the offsets [*A, *B] of the words of the sort it holds
 * (see the header).  Returns CN_ENUMERIC for a NaN end or no word. */
static cn_status
box_words (const cn_node_view *nv, const cn__wsort *s, double l, double h, int i, int64_t j, uint64_t *a, uint64_t *b,
           cn_error *err)
{
  if (isnan (l) || isnan (h))
    return cn_error_set (err, CN_ENUMERIC, "%s: input %d has a NaN end at entry %lld (node '%s')", cn_op_name (nv->op),
                         i, (long long) j, cn__node_name (nv));
  /* min and max + 1 are exact doubles: -2^(N-1) or 0, and 2^(N-1) or 2^N */
  double min = s->sgn ? -ldexp (1, s->w - 1) : 0, lim = ldexp (1, s->sgn ? s->w - 1 : s->w);
  double c = ceil (l), f = floor (h);
  if (c >= lim || f < min || c > f)
    return cn_error_set (err, CN_ENUMERIC, "%s: input %d's box [%g, %g] at entry %lld holds no %s word (node '%s')",
                         cn_op_name (nv->op), i, l, h, (long long) j, cn_dtype_name (s->t), cn__node_name (nv));
  /* now c < lim and f >= min: each end, cut to [min, max], is an integer the conversions hold */
  if (c <= min)
    *a = 0;
  else
    *a = s->sgn ? off_signed (s, (int64_t) c) : (uint64_t) c;
  if (f >= lim)
    *b = s->mask;
  else
    *b = s->sgn ? off_signed (s, (int64_t) f) : (uint64_t) f;
  return CN_OK;
}

/* The same for an MPFI enclosure X: ceil(left) and floor(right) by mpfr_get_sj / mpfr_get_uj,
 * which saturate at the 64-bit range (a saturated end is cut to the sort's range anyway; it can
 * only widen the set, never lose a word). */
static cn_status
mpfi_words (const cn_node_view *nv, const cn__wsort *s, mpfi_srcptr x, int i, int64_t j, uint64_t *a, uint64_t *b,
            cn_error *err)
{
  if (mpfi_nan_p (x))
    return cn_error_set (err, CN_ENUMERIC, "%s: input %d has a NaN end at entry %lld (node '%s')", cn_op_name (nv->op),
                         i, (long long) j, cn__node_name (nv));
  mpfr_srcptr l = &x->left, r = &x->right;
  int none = mpfr_cmp (l, r) > 0 || mpfr_cmp_ui_2exp (l, 1, s->sgn ? s->w - 1 : s->w) >= 0
             || (s->sgn ? mpfr_cmp_si_2exp (r, -1, s->w - 1) < 0 : mpfr_sgn (r) < 0);
  if (!none)
    {
      if (s->sgn)
        {
          int64_t lo = -(int64_t) (s->top - 1) - 1, hi = (int64_t) (s->top - 1);
          intmax_t c = mpfr_get_sj (l, MPFR_RNDU), f = mpfr_get_sj (r, MPFR_RNDD);
          /* now c = ceil(left) and f = floor(right), saturated at intmax_t's range */
          if (c > hi || f < lo || c > f)
            none = 1;
          else
            {
              *a = off_signed (s, c < lo ? lo : (int64_t) c);
              *b = off_signed (s, f > hi ? hi : (int64_t) f);
            }
        }
      else
        {
          uintmax_t c = mpfr_sgn (l) <= 0 ? 0 : mpfr_get_uj (l, MPFR_RNDU), f = mpfr_get_uj (r, MPFR_RNDD);
          if (c > s->mask || c > f)
            none = 1;
          else
            {
              *a = (uint64_t) c;
              *b = f > s->mask ? s->mask : (uint64_t) f;
            }
        }
    }
  if (none)
    return cn_error_set (err, CN_ENUMERIC, "%s: input %d's enclosure at entry %lld holds no %s word (node '%s')",
                         cn_op_name (nv->op), i, (long long) j, cn_dtype_name (s->t), cn__node_name (nv));
  return CN_OK;
}

/* Sets R to the words of offsets [A, B] (exact at precision >= 64, else rounded outward); T0 and
 * T1 are scratch variables of R's precision. */
static void
mpfi_set_words (mpfi_ptr r, const cn__wsort *s, uint64_t a, uint64_t b, mpfr_ptr t0, mpfr_ptr t1)
{
  if (s->sgn)
    {
      mpfr_set_sj (t0, cn__word_sext (s, pat (s, a)), MPFR_RNDD);
      mpfr_set_sj (t1, cn__word_sext (s, pat (s, b)), MPFR_RNDU);
    }
  else
    {
      mpfr_set_uj (t0, a, MPFR_RNDD);
      mpfr_set_uj (t1, b, MPFR_RNDU);
    }
  mpfi_interv_fr (r, t0, t1);
}

/* The patterns of the words of offsets [A, B], as at most two intervals P[k] = [P[k][0],
 * P[k][1]] within one half each (the sign bit constant); returns their number. */
static int
halves (const cn__wsort *s, uint64_t a, uint64_t b, uint64_t p[2][2])
{
  int n = 0;
  if (a < s->top)
    {
      p[n][0] = pat (s, a);
      p[n][1] = pat (s, b < s->top ? b : s->top - 1);
      n++;
    }
  if (b >= s->top)
    {
      p[n][0] = pat (s, a >= s->top ? a : s->top);
      p[n][1] = pat (s, b);
      n++;
    }
  /* pat adds or removes 2^(N-1) uniformly on each half, so each piece is an interval */
  return n;
}

/* Widens the hull [*LO, *HI] (empty when *ANY = 0) by [A, B]. */
static inline void
hull (int *any, uint64_t *lo, uint64_t *hi, uint64_t a, uint64_t b)
{
  if (!*any || a < *lo)
    *lo = a;
  if (!*any || b > *hi)
    *hi = b;
  *any = 1;
}

/* ---- bit functions ---------------------------------------------------------------------- */

static inline unsigned
popcount64 (uint64_t x)
{
  x = x - ((x >> 1) & 0x5555555555555555u);
  x = (x & 0x3333333333333333u) + ((x >> 2) & 0x3333333333333333u);
  x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0fu;
  return (unsigned) ((x * 0x0101010101010101u) >> 56);
}

/* Leading zeros of the W-bit pattern P (W for 0). */
static inline unsigned
clz_w (int w, uint64_t p)
{
  unsigned n = 0;
  for (uint64_t bit = (uint64_t) 1 << (w - 1); bit != 0 && !(p & bit); bit >>= 1)
    n++;
  return n;
}

/* The range of popcount over the patterns [P, Q] (P <= Q), exact (see the header). */
static void
popcount_range (uint64_t p, uint64_t q, unsigned *lo, unsigned *hi)
{
  if (p == q)
    {
      *lo = *hi = popcount64 (p);
      return;
    }
  int k = 63 - (int) clz_w (64, p ^ q);   /* the highest differing bit: q has 1, p has 0 */
  uint64_t low = k == 63 ? UINT64_MAX : ((uint64_t) 1 << (k + 1)) - 1, prefix = p & ~low;
  unsigned c = popcount64 (prefix);
  *lo = c + ((p & low) == 0 ? 0 : 1);
  *hi = c + (unsigned) k + ((q & low) == low ? 1 : 0);
}

/* The classic bounds of Hacker's Delight (2nd ed., 4-3) for p in [a, b], q in [c, d] (unsigned
 * patterns below 2^N, TOP = 2^(N-1)): the exact minimum and maximum of p | q, p & q, p ^ q. */
static uint64_t
min_or (uint64_t a, uint64_t b, uint64_t c, uint64_t d, uint64_t top)
{
  for (uint64_t m = top; m != 0; m >>= 1)
    {
      if (~a & c & m)
        {
          uint64_t t = (a | m) & (0 - m);
          if (t <= b)
            {
              a = t;
              break;
            }
        }
      else if (a & ~c & m)
        {
          uint64_t t = (c | m) & (0 - m);
          if (t <= d)
            {
              c = t;
              break;
            }
        }
    }
  return a | c;
}

static uint64_t
max_or (uint64_t a, uint64_t b, uint64_t c, uint64_t d, uint64_t top)
{
  for (uint64_t m = top; m != 0; m >>= 1)
    if (b & d & m)
      {
        uint64_t t = (b - m) | (m - 1);
        if (t >= a)
          {
            b = t;
            break;
          }
        t = (d - m) | (m - 1);
        if (t >= c)
          {
            d = t;
            break;
          }
      }
  return b | d;
}

static uint64_t
min_and (uint64_t a, uint64_t b, uint64_t c, uint64_t d, uint64_t top)
{
  for (uint64_t m = top; m != 0; m >>= 1)
    if (~a & ~c & m)
      {
        uint64_t t = (a | m) & (0 - m);
        if (t <= b)
          {
            a = t;
            break;
          }
        t = (c | m) & (0 - m);
        if (t <= d)
          {
            c = t;
            break;
          }
      }
  return a & c;
}

static uint64_t
max_and (uint64_t a, uint64_t b, uint64_t c, uint64_t d, uint64_t top)
{
  for (uint64_t m = top; m != 0; m >>= 1)
    {
      if (b & ~d & m)
        {
          uint64_t t = (b & ~m) | (m - 1);
          if (t >= a)
            {
              b = t;
              break;
            }
        }
      else if (~b & d & m)
        {
          uint64_t t = (d & ~m) | (m - 1);
          if (t >= c)
            {
              d = t;
              break;
            }
        }
    }
  return b & d;
}

static uint64_t
min_xor (uint64_t a, uint64_t b, uint64_t c, uint64_t d, uint64_t top)
{
  for (uint64_t m = top; m != 0; m >>= 1)
    {
      if (~a & c & m)
        {
          uint64_t t = (a | m) & (0 - m);
          if (t <= b)
            a = t;
        }
      else if (a & ~c & m)
        {
          uint64_t t = (c | m) & (0 - m);
          if (t <= d)
            c = t;
        }
    }
  return a ^ c;
}

static uint64_t
max_xor (uint64_t a, uint64_t b, uint64_t c, uint64_t d, uint64_t top)
{
  for (uint64_t m = top; m != 0; m >>= 1)
    if (b & d & m)
      {
        uint64_t t = (b - m) | (m - 1);
        if (t >= a)
          b = t;
        else
          {
            t = (d - m) | (m - 1);
            if (t >= c)
              d = t;
          }
      }
  return b ^ d;
}

/* The exact 128-bit product of the 64-bit patterns A and B, as unsigned (SGN = 0) or two's
 * complement (SGN = 1) numbers: *HI:*LO, the product modulo 2^128. */
static void
mul128 (int sgn, uint64_t a, uint64_t b, uint64_t *hi, uint64_t *lo)
{
  uint64_t a0 = a & 0xffffffffu, a1 = a >> 32, b0 = b & 0xffffffffu, b1 = b >> 32;
  uint64_t p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
  uint64_t mid = (p00 >> 32) + (p01 & 0xffffffffu) + (p10 & 0xffffffffu);   /* < 3 2^32 */
  *lo = (mid << 32) | (p00 & 0xffffffffu);
  *hi = p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32);
  /* now hi:lo = a b for the unsigned readings; a signed A = a - 2^64 [a < 0] changes the product
     by -2^64 ([a < 0] b + [b < 0] a) modulo 2^128 */
  if (sgn)
    {
      if (a >> 63)
        *hi -= b;
      if (b >> 63)
        *hi -= a;
    }
}

/* floor(P / 2^N) modulo 2^N of the 128-bit product P = HI:LO, as an N-bit pattern. */
static inline uint64_t
high_half (const cn__wsort *s, uint64_t hi, uint64_t lo)
{
  if (s->w == 64)
    return hi;
  return ((lo >> s->w) | (hi << (64 - s->w))) & s->mask;
}

/* -1, 0, 1 as HI:LO compares with HI2:LO2 (two's complement when SGN). */
static int
cmp128 (int sgn, uint64_t hi, uint64_t lo, uint64_t hi2, uint64_t lo2)
{
  if (hi != hi2)
    {
      if (sgn && (hi >> 63) != (hi2 >> 63))
        return (hi >> 63) ? -1 : 1;
      return hi < hi2 ? -1 : 1;
    }
  return lo < lo2 ? -1 : lo > lo2;
}

/* floor(A / 2^SH) for 0 <= SH <= 63, without a right shift of a negative number. */
static inline int64_t
floor_shift (int64_t a, unsigned sh)
{
  if (a >= 0)
    return a >> sh;
  return -1 - (int64_t) ((uint64_t) (-(a + 1)) >> sh);
}

/* ---- the word operators: table, forward ------------------------------------------------- */

enum kind { K_AND, K_OR, K_XOR, K_NOT, K_SHL, K_SRA, K_SRL, K_POPCNT, K_CLZ, K_MULHI };

struct word_def
{
  cn_op op;
  const char *name;
  enum kind kind;
  int arity;
};

static const struct word_def defs[] = {
  { CN_OP_BITWISE_AND, "bitwiseAnd", K_AND, 2 },
  { CN_OP_BITWISE_OR, "bitwiseOr", K_OR, 2 },
  { CN_OP_BITWISE_XOR, "bitwiseXor", K_XOR, 2 },
  { CN_OP_BITWISE_NOT, "bitwiseNot", K_NOT, 1 },
  { CN_OP_BITWISE_LEFT_SHIFT, "bitwiseLeftShift", K_SHL, 2 },
  { CN_OP_SHIFT_RIGHT_ARITHMETIC, "shiftRightArithmetic", K_SRA, 2 },
  { CN_OP_SHIFT_RIGHT_LOGICAL, "shiftRightLogical", K_SRL, 2 },
  { CN_OP_POPULATION_COUNT, "populationCount", K_POPCNT, 1 },
  { CN_OP_COUNT_LEADING_ZEROS, "countLeadingZeros", K_CLZ, 1 },
  { CN_OP_MULHI, "mulhi", K_MULHI, 2 },
};

CN__DEF_LOOKUP (struct word_def, defs, def_of, no_def, "an integer-word operator")

static inline int
is_shift (enum kind k)
{
  return k == K_SHL || k == K_SRA || k == K_SRL;
}

/* The word operator K on the patterns A and B (the amount B of a shift nonnegative). */
static inline uint64_t
word_apply (enum kind k, const cn__wsort *s, uint64_t a, uint64_t b)
{
  uint64_t w = (uint64_t) s->w;
  switch (k)
    {
    case K_AND: return a & b;
    case K_OR: return a | b;
    case K_XOR: return a ^ b;
    case K_NOT: return ~a & s->mask;
    case K_SHL: return b >= w ? 0 : (a << b) & s->mask;
    case K_SRA:
      if (s->sgn && (a & s->top))
        return b >= w ? s->mask : ~((~a & s->mask) >> b) & s->mask;
      return b >= w ? 0 : a >> b;
    case K_SRL: return b >= w ? 0 : a >> b;
    case K_POPCNT: return popcount64 (a);
    case K_CLZ: return clz_w (s->w, a);
    default:
      {
        uint64_t hi, lo;
        mul128 (s->sgn, widen (s, a), widen (s, b), &hi, &lo);
        return high_half (s, hi, lo);
      }
    }
}

static cn_status
word_out_sort (const char *op, int arity, int n_in, const cn_dtype *in, cn_dtype *out, cn_error *err)
{
  cn__wsort s;
  if (n_in != arity)
    return cn_error_set (err, CN_EINVAL, "%s: takes %d input%s, got %d", op, arity, arity == 1 ? "" : "s", n_in);
  for (int i = 0; i < n_in; i++)
    if (!cn__wsort_of (in[i], &s))
      return cn_error_set (err, CN_EINVAL, "%s: input %d has sort %s; integer words (i8 .. u64) are expected", op, i,
                           cn__sort_name (in[i]));
  if (arity == 2 && in[0] != in[1])
    return cn_error_set (err, CN_EINVAL, "%s: input sorts %s and %s differ", op, cn_dtype_name (in[0]),
                         cn_dtype_name (in[1]));
  *out = in[0];
  return CN_OK;
}

static cn_status
word_forward (const cn_node_view *nv, const cn_tensor *const *in, cn_tensor *out, cn_error *err)
{
  const struct word_def *d = def_of (nv->op);
  if (d == NULL)
    return no_def (nv, err);
  int64_t n = cn__numel (nv->out_shape);
  cn__wsort s;
  if (!cn__wsort_of (out->dtype, &s) || cn_tensor_numel (out) != n)
    return cn_error_set (err, CN_EINVAL, "%s: the output is not a word tensor of the node's shape (node '%s')", d->name,
                         cn__node_name (nv));
  for (int i = 0; i < d->arity; i++)
    if (in[i]->dtype != out->dtype || cn_tensor_numel (in[i]) != n)
      return cn_error_set (err, CN_EINVAL, "%s: input %d does not match the node's sort or shape (node '%s')", d->name,
                           i, cn__node_name (nv));
  const void *a = in[0]->data, *b = d->arity == 2 ? in[1]->data : NULL;
  if (is_shift (d->kind) && s.sgn)
    /* every amount first: nothing is written unless all of them are >= 0 */
    for (int64_t j = 0; j < n; j++)
      {
        uint64_t q = cn__word_load (b, s.w, j);
        if (q & s.top)
          return cn_error_set (err, CN_ENUMERIC, "%s: shift amount %lld at entry %lld is negative (node '%s')", d->name,
                               (long long) cn__word_sext (&s, q), (long long) j, cn__node_name (nv));
      }
  for (int64_t j = 0; j < n; j++)
    cn__word_store (out->data, s.w, j, word_apply (d->kind, &s, cn__word_load (a, s.w, j), b ? cn__word_load (b, s.w, j) : 0));
  return CN_OK;
}

/* ---- the word operators: exact ranges (shared by IBP and MPFI) -------------------------- */

static cn_status
negative_amount (const struct word_def *d, const cn_node_view *nv, int64_t j, cn_error *err)
{
  return cn_error_set (err, CN_ENUMERIC, "%s: the shift amount at entry %lld may be negative (node '%s')", d->name,
                       (long long) j, cn__node_name (nv));
}

/* The range, as offsets [*RLO, *RHI], of the left shift of the words of offsets [A, B] by the
 * amounts [S0, S1] (values >= 0).  For each amount s < N, X(a) = a 2^s + bias (bias = 2^(N-1)
 * for a signed sort, 0 for an unsigned one) is increasing in a, exact in 128 bits, and the
 * result's offset is X mod 2^N: when X(a0) and X(a1) lie in the same block of 2^N (no wrap
 * between them) the offsets are exactly [X(a0) mod 2^N, X(a1) mod 2^N]; otherwise the arm gives
 * up to the sort's whole range.  An amount >= N adds the result 0.  The hull over the amounts
 * (at most N of them below N) is exact whenever no amount wraps, in particular at points. */
static cn_status
shl_range (const cn__wsort *s, uint64_t a, uint64_t b, uint64_t s0, uint64_t s1, uint64_t *rlo, uint64_t *rhi)
{
  int any = 0;
  uint64_t W = (uint64_t) s->w, bias = s->sgn ? s->top : 0;
  uint64_t xa = widen (s, pat (s, a)), xb = widen (s, pat (s, b));
  for (uint64_t sh = s0; sh < W && sh <= s1; sh++)
    {
      uint64_t h0, l0, h1, l1;
      mul128 (s->sgn, xa, (uint64_t) 1 << sh, &h0, &l0);
      mul128 (s->sgn, xb, (uint64_t) 1 << sh, &h1, &l1);
      /* now h:l = a 2^sh exactly (two's complement when signed); add the bias with its carry */
      l0 += bias;
      h0 += l0 < bias;
      l1 += bias;
      h1 += l1 < bias;
      int same = s->w == 64 ? h0 == h1 : h0 == h1 && (l0 >> s->w) == (l1 >> s->w);
      if (!same)
        {
          *rlo = 0;
          *rhi = s->mask;
          return CN_OK;
        }
      hull (&any, rlo, rhi, l0 & s->mask, l1 & s->mask);
    }
  if (s1 >= W)
    hull (&any, rlo, rhi, off_nonneg (s, 0), off_nonneg (s, 0));
  return CN_OK;
}

/* The exact range, as offsets [*RLO, *RHI], of operator D over the words of offsets [LO[i],
 * HI[i]] of its inputs (entry J, for messages). */
static cn_status
word_range (const struct word_def *d, const cn__wsort *s, const uint64_t *lo, const uint64_t *hi, uint64_t *rlo,
            uint64_t *rhi, const cn_node_view *nv, int64_t j, cn_error *err)
{
  int any = 0;
  uint64_t W = (uint64_t) s->w;
  switch (d->kind)
    {
    case K_NOT:
      /* offset of ~v is mask - offset of v (~v = min + max - v), decreasing */
      *rlo = s->mask - hi[0];
      *rhi = s->mask - lo[0];
      return CN_OK;
    case K_AND:
    case K_OR:
    case K_XOR:
      {
        uint64_t pa[2][2], pb[2][2];
        int na = halves (s, lo[0], hi[0], pa), nb = halves (s, lo[1], hi[1], pb);
        for (int x = 0; x < na; x++)
          for (int y = 0; y < nb; y++)
            {
              uint64_t a = pa[x][0], b = pa[x][1], c = pb[y][0], e = pb[y][1], r0, r1;
              if (d->kind == K_AND)
                r0 = min_and (a, b, c, e, s->top), r1 = max_and (a, b, c, e, s->top);
              else if (d->kind == K_OR)
                r0 = min_or (a, b, c, e, s->top), r1 = max_or (a, b, c, e, s->top);
              else
                r0 = min_xor (a, b, c, e, s->top), r1 = max_xor (a, b, c, e, s->top);
              /* now [r0, r1] is the exact pattern range on the pair; its sign bit is the OP of
                 the pieces' constant sign bits, so it maps to offsets monotonically */
              hull (&any, rlo, rhi, pat (s, r0), pat (s, r1));
            }
        return CN_OK;
      }
    case K_POPCNT:
    case K_CLZ:
      {
        uint64_t pa[2][2];
        int na = halves (s, lo[0], hi[0], pa);
        for (int x = 0; x < na; x++)
          {
            unsigned c0, c1;
            if (d->kind == K_POPCNT)
              popcount_range (pa[x][0], pa[x][1], &c0, &c1);
            else
              c0 = clz_w (s->w, pa[x][1]), c1 = clz_w (s->w, pa[x][0]);
            hull (&any, rlo, rhi, off_nonneg (s, c0), off_nonneg (s, c1));
          }
        return CN_OK;
      }
    case K_MULHI:
      {
        uint64_t xa[2] = { widen (s, pat (s, lo[0])), widen (s, pat (s, hi[0])) };
        uint64_t xb[2] = { widen (s, pat (s, lo[1])), widen (s, pat (s, hi[1])) };
        uint64_t mh = 0, ml = 0, Mh = 0, Ml = 0;
        for (int k = 0; k < 4; k++)
          {
            uint64_t h, l;
            mul128 (s->sgn, xa[k >> 1], xb[k & 1], &h, &l);
            if (k == 0 || cmp128 (s->sgn, h, l, mh, ml) < 0)
              mh = h, ml = l;
            if (k == 0 || cmp128 (s->sgn, h, l, Mh, Ml) > 0)
              Mh = h, Ml = l;
          }
        /* now [mh:ml, Mh:Ml] is the exact range of the product (bilinear: corners), and
           floor(. / 2^N) is nondecreasing */
        *rlo = pat (s, high_half (s, mh, ml));
        *rhi = pat (s, high_half (s, Mh, Ml));
        return CN_OK;
      }
    default:
      break;
    }
  /* the shifts: the amounts' values [s0, s1], nonnegative */
  uint64_t s0, s1;
  if (s->sgn)
    {
      int64_t v0 = cn__word_sext (s, pat (s, lo[1])), v1 = cn__word_sext (s, pat (s, hi[1]));
      if (v0 < 0)
        return negative_amount (d, nv, j, err);
      s0 = (uint64_t) v0;
      s1 = (uint64_t) v1;
    }
  else
    {
      s0 = lo[1];
      s1 = hi[1];
    }
  if (d->kind == K_SHL)
    return shl_range (s, lo[0], hi[0], s0, s1, rlo, rhi);
  if (!s->sgn)
    {
      uint64_t a0 = lo[0], a1 = hi[0];
      /* p >> s: nondecreasing in p, nonincreasing in s */
      *rlo = s1 >= W ? 0 : a0 >> s1;
      *rhi = s0 >= W ? 0 : a1 >> s0;
      return CN_OK;
    }
  int64_t a0 = cn__word_sext (s, pat (s, lo[0])), a1 = cn__word_sext (s, pat (s, hi[0]));
  if (d->kind == K_SRA)
    {
      /* floor(a / 2^min(s, N-1)): monotone in a, and in s for each sign of a: the corners */
      unsigned sh[2] = { (unsigned) (s0 < W - 1 ? s0 : W - 1), (unsigned) (s1 < W - 1 ? s1 : W - 1) };
      for (int k = 0; k < 4; k++)
        {
          uint64_t u = off_signed (s, floor_shift (k >> 1 ? a1 : a0, sh[k & 1]));
          hull (&any, rlo, rhi, u, u);
        }
      return CN_OK;
    }
  /* shiftRightLogical on a signed sort */
  if (s0 == 0)
    hull (&any, rlo, rhi, lo[0], hi[0]);
  if (s1 >= 1)
    {
      uint64_t pa[2][2], sa = s0 > 1 ? s0 : 1;
      int na = halves (s, lo[0], hi[0], pa);
      for (int x = 0; x < na; x++)
        {
          uint64_t r0 = s1 >= W ? 0 : pa[x][0] >> s1, r1 = sa >= W ? 0 : pa[x][1] >> sa;
          /* nonnegative results: value = pattern */
          hull (&any, rlo, rhi, off_nonneg (s, r0), off_nonneg (s, r1));
        }
    }
  return CN_OK;
}

static cn_status
word_ibp (const cn_node_view *nv, const cn_box *const *in, cn_box *out, cn_error *err)
{
  const struct word_def *d = def_of (nv->op);
  if (d == NULL)
    return no_def (nv, err);
  cn_status st = cn__boxes_ok (d->name, nv, in, out, err);
  cn__wsort s;
  if (st != CN_OK || (st = view_word_sort (nv, 0, &s, err)) != CN_OK)
    return st;
  for (int64_t j = 0; j < out->n; j++)
    {
      uint64_t lo[2] = { 0, 0 }, hi[2] = { 0, 0 }, a, b;
      for (int i = 0; i < d->arity; i++)
        if ((st = box_words (nv, &s, in[i]->lo[j], in[i]->hi[j], i, j, &lo[i], &hi[i], err)) != CN_OK)
          return st;
      if ((st = word_range (d, &s, lo, hi, &a, &b, nv, j, err)) != CN_OK)
        return st;
      out->lo[j] = off_to_d (&s, a, 0);
      out->hi[j] = off_to_d (&s, b, 1);
      /* now [lo, hi] holds the exact range of the words, rounded outward */
    }
  return CN_OK;
}

static cn_status
word_mpfi (const cn_node_view *nv, const cn_mpfi_vec *const *in, cn_mpfi_vec *out, cn_error *err)
{
  const struct word_def *d = def_of (nv->op);
  if (d == NULL)
    return no_def (nv, err);
  cn_status st = cn__mpfi_ok (d->name, nv, in, out, err);
  cn__wsort s;
  if (st != CN_OK || (st = view_word_sort (nv, 0, &s, err)) != CN_OK || out->n == 0)
    return st;
  mpfr_t t0, t1;
  mpfr_init2 (t0, mpfi_get_prec (out->v[0]));
  mpfr_init2 (t1, mpfi_get_prec (out->v[0]));
  for (int64_t j = 0; j < out->n && st == CN_OK; j++)
    {
      uint64_t lo[2] = { 0, 0 }, hi[2] = { 0, 0 }, a, b;
      for (int i = 0; i < d->arity && st == CN_OK; i++)
        st = mpfi_words (nv, &s, in[i]->v[j], i, j, &lo[i], &hi[i], err);
      if (st == CN_OK && (st = word_range (d, &s, lo, hi, &a, &b, nv, j, err)) == CN_OK)
        mpfi_set_words (out->v[j], &s, a, b, t0, t1);
    }
  mpfr_clear (t0);
  mpfr_clear (t1);
  return st;
}

static const cn_port_kind int1[1] = { CN_PORT_INTEGER };
static const cn_port_kind int2[2] = { CN_PORT_INTEGER, CN_PORT_INTEGER };

#define WORD_RULE(ID, lname, arity, CHECK)                                                        \
  CN__CHECK_ARM (lname, CHECK)                                                                    \
  static cn_status lname##_out_sort (const struct cn_op_rule *rule, const void *p, int n_in, const cn_dtype *in, cn_dtype *out,  \
                                     cn_error *err)                                               \
  { (void) rule;                                                                                               \
    (void) p;                                                                                     \
    return word_out_sort (#lname, arity, n_in, in, out, err);                                     \
  }                                                                                               \
  const struct cn_op_rule cn__rule_##ID = { .op = CN_OP_##ID,                                                       \
    .n_in = arity, .in_kind = arity == 1 ? int1 : int2, .params_size = 0, .check = lname##_check, \
    .out_sort = lname##_out_sort, .forward = word_forward, .ibp = word_ibp, .ibp_mpfi = word_mpfi, \
  };

WORD_RULE (BITWISE_AND, bitwiseAnd, 2, cn__check_binary)
WORD_RULE (BITWISE_OR, bitwiseOr, 2, cn__check_binary)
WORD_RULE (BITWISE_XOR, bitwiseXor, 2, cn__check_binary)
WORD_RULE (BITWISE_NOT, bitwiseNot, 1, cn__check_unary)
WORD_RULE (BITWISE_LEFT_SHIFT, bitwiseLeftShift, 2, cn__check_binary)
WORD_RULE (SHIFT_RIGHT_ARITHMETIC, shiftRightArithmetic, 2, cn__check_binary)
WORD_RULE (SHIFT_RIGHT_LOGICAL, shiftRightLogical, 2, cn__check_binary)
WORD_RULE (POPULATION_COUNT, populationCount, 1, cn__check_unary)
WORD_RULE (COUNT_LEADING_ZEROS, countLeadingZeros, 1, cn__check_unary)
WORD_RULE (MULHI, mulhi, 2, cn__check_binary)

/* ---- float helpers ------------------------------------------------------------------------ */

/* Entry J of the floating tensor T (f64 or f32) as a double (exact). */
static inline double
fval (const cn_tensor *t, int64_t j)
{
  return t->dtype == CN_DTYPE_F64 ? ((const double *) t->data)[j] : (double) ((const float *) t->data)[j];
}

/* Stores V into entry J of the floating tensor T (rounded to nearest into f32). */
static inline void
fstore (cn_tensor *t, int64_t j, double v)
{
  if (t->dtype == CN_DTYPE_F64)
    ((double *) t->data)[j] = v;
  else
    ((float *) t->data)[j] = (float) v;
}

/* ---- bitcast ------------------------------------------------------------------------------ */

#define PBITCAST(nv) ((const cn_params_bitcast *) (nv)->params)

/* The interchange encoding of RN_F(X), F binary32 (W = 32) or binary64 (W = 64). */
static inline uint64_t
enc (double x, int w)
{
  if (w == 32)
    {
      float f = (float) x;   /* to nearest (certnn never changes the rounding mode) */
      uint32_t b;
      memcpy (&b, &f, sizeof b);
      return b;
    }
  uint64_t b;
  memcpy (&b, &x, sizeof b);
  return b;
}

/* The number encoded by the W-bit pattern P, as a double (exact). */
static inline double
dec (uint64_t p, int w)
{
  if (w == 32)
    {
      uint32_t b = (uint32_t) p;
      float f;
      memcpy (&f, &b, sizeof f);
      return f;
    }
  double d;
  memcpy (&d, &p, sizeof d);
  return d;
}

/* The magnitude pattern of the format's infinity. */
static inline uint64_t
inf_bits (int w)
{
  return w == 32 ? 0x7f800000u : 0x7ff0000000000000u;
}

static cn_status
bitcast_params_ok (const void *p, cn_error *err)
{
  if (p == NULL)
    return cn_error_set (err, CN_EINVAL, "bitcast: missing attribute record");
  cn_dtype to = ((const cn_params_bitcast *) p)->to;
  if ((unsigned) to >= CN_DTYPE_COUNT || to == CN_DTYPE_BOOL)
    return cn_error_set (err, CN_EINVAL, "bitcast: the target sort %s is not a word sort or a binary format",
                         (unsigned) to < CN_DTYPE_COUNT ? cn_dtype_name (to) : "(invalid)");
  return CN_OK;
}

static cn_status
bitcast_check (const struct cn_op_rule *rule, const void *p, int n_in, const cn_shape *const *in, cn_shape *out, cn_error *err)
{
  (void) rule;
  cn_status st = bitcast_params_ok (p, err);
  if (st != CN_OK)
    return st;
  return cn__check_unary ("bitcast", n_in, in, out, err);
}

/* The width of the sort T as bitcast reads it (0: the model's scalar, whose width is TO's). */
static int
sort_width (cn_dtype t)
{
  cn__wsort s;
  if (t == CN_DTYPE_F32)
    return 32;
  if (t == CN_DTYPE_F64)
    return 64;
  return cn__wsort_of (t, &s) ? s.w : 0;
}

/* Checks the pair of sorts FROM (the input's, CN_DTYPE_F64 for the model's scalar) and TO. */
static cn_status
bitcast_sorts_ok (cn_dtype from, cn_dtype to, cn_error *err)
{
  cn__wsort a, b;
  int wf = cn__wsort_of (from, &a), wt = cn__wsort_of (to, &b);
  if (!wf && !cn_dtype_is_float (from))
    return cn_error_set (err, CN_EINVAL, "bitcast: input sort %s has no word width", cn__sort_name (from));
  if (!wf && !wt)
    return cn_error_set (err, CN_EINVAL, "bitcast: from the model's scalar to %s (the model's scalar) is not a "
                         "reinterpretation", cn_dtype_name (to));
  if (!wf)
    {
      if (b.w < 32)
        return cn_error_set (err, CN_EINVAL, "bitcast: from the model's scalar to %s: there is no %d-bit binary format",
                             cn_dtype_name (to), b.w);
      return CN_OK;
    }
  if (!wt && a.w < 32)
    return cn_error_set (err, CN_EINVAL, "bitcast: from %s to %s (the model's scalar): there is no %d-bit binary format",
                         cn_dtype_name (from), cn_dtype_name (to), a.w);
  if (a.w != sort_width (to))
    return cn_error_set (err, CN_EINVAL, "bitcast: %s is %d bits wide, %s %d", cn_dtype_name (from), a.w,
                         wt ? cn_dtype_name (to) : to == CN_DTYPE_F32 ? "f32 (binary32)" : "f64 (binary64)",
                         sort_width (to));
  return CN_OK;
}

/* bitcast_sorts_ok for an arm: the message names the node. */
static cn_status
bitcast_sorts_at (const cn_node_view *nv, cn_dtype from, cn_dtype to, cn_error *err)
{
  cn_error local;
  cn_error_clear (&local);
  cn_status st = bitcast_sorts_ok (from, to, &local);
  if (st != CN_OK)
    return cn_error_set (err, st, "%s (node '%s')", local.msg, cn__node_name (nv));
  return CN_OK;
}

static cn_status
bitcast_out_sort (const struct cn_op_rule *rule, const void *p, int n_in, const cn_dtype *in, cn_dtype *out, cn_error *err)
{
  (void) rule;
  cn_status st = bitcast_params_ok (p, err);
  if (st != CN_OK)
    return st;
  if (n_in != 1)
    return cn_error_set (err, CN_EINVAL, "bitcast: takes 1 input, got %d", n_in);
  cn_dtype to = ((const cn_params_bitcast *) p)->to;
  if ((st = bitcast_sorts_ok (in[0], to, err)) != CN_OK)
    return st;
  *out = cn_dtype_is_float (to) ? CN_DTYPE_F64 : to;
  return CN_OK;
}

static cn_status
bitcast_forward (const cn_node_view *nv, const cn_tensor *const *in, cn_tensor *out, cn_error *err)
{
  cn_status st = bitcast_params_ok (nv->params, err);
  if (st != CN_OK)
    return st;
  cn_dtype to = PBITCAST (nv)->to, src = in[0]->dtype;
  int64_t n = cn__numel (nv->out_shape);
  if (cn_tensor_numel (in[0]) != n || cn_tensor_numel (out) != n
      || (cn_dtype_is_float (to) ? !cn_dtype_is_float (out->dtype) : out->dtype != to))
    return cn_error_set (err, CN_EINVAL, "bitcast: tensors do not match the node (node '%s')", cn__node_name (nv));
  if ((st = bitcast_sorts_at (nv, cn_dtype_is_float (src) ? CN_DTYPE_F64 : src, to, err)) != CN_OK)
    return st;
  int w = sort_width (to);
  if (cn_dtype_is_float (src))
    {
      /* the scalar rounded to nearest into the format (exact from the same sort), encoded */
      for (int64_t j = 0; j < n; j++)
        cn__word_store (out->data, w, j, enc (fval (in[0], j), w));
      return CN_OK;
    }
  if (!cn_dtype_is_float (to))
    {
      memcpy (out->data, in[0]->data, (size_t) n * cn_dtype_size (to));   /* same width: the patterns */
      return CN_OK;
    }
  for (int64_t j = 0; j < n; j++)
    fstore (out, j, dec (cn__word_load (in[0]->data, w, j), w));
  return CN_OK;
}

/* The exact range of bitcast from the words of offsets [A, B] of sort S: to TO's words (offsets
 * into *RLO, *RHI) or to the scalar (the numbers into *DLO, *DHI). */
static cn_status
bitcast_word_range (const cn_node_view *nv, const cn__wsort *s, cn_dtype to, uint64_t a, uint64_t b, int64_t j,
                    uint64_t *rlo, uint64_t *rhi, double *dlo, double *dhi, cn_error *err)
{
  uint64_t p[2][2];
  int np = halves (s, a, b, p), any = 0;
  cn__wsort t;
  if (cn__wsort_of (to, &t))
    {
      for (int k = 0; k < np; k++)
        hull (&any, rlo, rhi, pat (&t, p[k][0]), pat (&t, p[k][1]));
      /* each half is one interval of TO's offsets: pat is monotone within a half */
      return CN_OK;
    }
  uint64_t inf = inf_bits (s->w);
  for (int k = 0; k < np; k++)
    {
      int neg = (p[k][0] & s->top) != 0;
      uint64_t m0 = p[k][0] & ~s->top, m1 = p[k][1] & ~s->top;
      if (m1 > inf)
        return cn_error_set (err, CN_ENUMERIC, "bitcast: the words at entry %lld include NaN encodings (node '%s')",
                             (long long) j, cn__node_name (nv));
      double x0 = dec (m0, s->w), x1 = dec (m1, s->w);   /* nondecreasing in the magnitude */
      double l = neg ? -x1 : x0, h = neg ? -x0 : x1;
      if (!any || l < *dlo)
        *dlo = l;
      if (!any || h > *dhi)
        *dhi = h;
      any = 1;
    }
  return CN_OK;
}

/* The offsets [*RLO, *RHI] in TO's sort of the encodings of RN(x), x in [L, H] (see the header);
 * RNP and RNN are the encodings' magnitudes at the nonnegative piece's ends (RNP[0], RNP[1]) and
 * at the negative piece's magnitudes (RNN[0] <= RNN[1]); HAS_P and HAS_N say which pieces exist. */
static void
bitcast_scalar_range (const cn__wsort *t, int has_p, const uint64_t *rnp, int has_n, const uint64_t *rnn, uint64_t *rlo,
                      uint64_t *rhi)
{
  int any = 0;
  if (has_p)
    hull (&any, rlo, rhi, pat (t, rnp[0]), pat (t, rnp[1]));
  if (has_n)
    hull (&any, rlo, rhi, pat (t, t->top | rnn[0]), pat (t, t->top | rnn[1]));
}

/* The sorts FROM (the input's, as the node view carries it) and TO (the attribute) of a bitcast
 * node, checked by bitcast_sorts_at; CN_EUNSUPPORTED when the view carries no input sorts. */
static cn_status
bitcast_view_sorts (const cn_node_view *nv, cn_dtype *from, cn_dtype *to, cn_error *err)
{
  *to = PBITCAST (nv)->to;
  *from = input_sort (nv, 0);
  if (*from == CN_DTYPE_COUNT)
    return cn_error_set (err, CN_EUNSUPPORTED, "bitcast: the node view does not carry the input sorts (node '%s')",
                         cn__node_name (nv));
  return bitcast_sorts_at (nv, *from, *to, err);
}

static cn_status
bitcast_ibp (const cn_node_view *nv, const cn_box *const *in, cn_box *out, cn_error *err)
{
  cn_status st = bitcast_params_ok (nv->params, err);
  if (st != CN_OK || (st = cn__boxes_ok ("bitcast", nv, in, out, err)) != CN_OK)
    return st;
  cn_dtype from, to;
  if ((st = bitcast_view_sorts (nv, &from, &to, err)) != CN_OK)
    return st;
  cn__wsort s = { 0 }, t = { 0 };
  int src_word = cn__wsort_of (from, &s);
  cn__wsort_of (to, &t);
  for (int64_t j = 0; j < out->n; j++)
    {
      double l = in[0]->lo[j], h = in[0]->hi[j];
      uint64_t rlo = 0, rhi = 0;
      if (!src_word)
        {
          if (isnan (l) || isnan (h))
            return cn_error_set (err, CN_ENUMERIC, "bitcast: input 0 has a NaN end at entry %lld (node '%s')",
                                 (long long) j, cn__node_name (nv));
          uint64_t rnp[2] = { 0, 0 }, rnn[2] = { 0, 0 };
          int has_p = h >= 0, has_n = l < 0 || (l == 0 && signbit (l));
          if (has_p)
            {
              rnp[0] = enc (l > 0 ? l : 0.0, t.w);
              rnp[1] = enc (h, t.w);
            }
          if (has_n)
            {
              rnn[0] = h < 0 ? enc (-h, t.w) : 0;
              rnn[1] = enc (-l, t.w);
            }
          bitcast_scalar_range (&t, has_p, rnp, has_n, rnn, &rlo, &rhi);
          out->lo[j] = off_to_d (&t, rlo, 0);
          out->hi[j] = off_to_d (&t, rhi, 1);
          continue;
        }
      uint64_t a, b;
      double dlo = 0, dhi = 0;
      if ((st = box_words (nv, &s, l, h, 0, j, &a, &b, err)) != CN_OK
          || (st = bitcast_word_range (nv, &s, to, a, b, j, &rlo, &rhi, &dlo, &dhi, err)) != CN_OK)
        return st;
      if (cn_dtype_is_float (to))
        {
          out->lo[j] = dlo;
          out->hi[j] = dhi;
        }
      else
        {
          out->lo[j] = off_to_d (&t, rlo, 0);
          out->hi[j] = off_to_d (&t, rhi, 1);
        }
    }
  return CN_OK;
}

/* The encoding's magnitude of RN_F(|X|) for an MPFR number X (F of width W). */
static uint64_t
enc_fr (mpfr_srcptr x, int w)
{
  if (w == 32)
    return enc (fabsf (mpfr_get_flt (x, MPFR_RNDN)), 32);
  return enc (fabs (mpfr_get_d (x, MPFR_RNDN)), 64);
}

static cn_status
bitcast_mpfi (const cn_node_view *nv, const cn_mpfi_vec *const *in, cn_mpfi_vec *out, cn_error *err)
{
  cn_status st = bitcast_params_ok (nv->params, err);
  if (st != CN_OK || (st = cn__mpfi_ok ("bitcast", nv, in, out, err)) != CN_OK)
    return st;
  cn_dtype from, to;
  if ((st = bitcast_view_sorts (nv, &from, &to, err)) != CN_OK)
    return st;
  if (out->n == 0)
    return CN_OK;
  cn__wsort s = { 0 }, t = { 0 };
  int src_word = cn__wsort_of (from, &s);
  cn__wsort_of (to, &t);
  mpfr_t t0, t1;
  mpfr_init2 (t0, mpfi_get_prec (out->v[0]));
  mpfr_init2 (t1, mpfi_get_prec (out->v[0]));
  for (int64_t j = 0; j < out->n && st == CN_OK; j++)
    {
      mpfi_srcptr x = in[0]->v[j];
      uint64_t rlo = 0, rhi = 0;
      if (!src_word)
        {
          if (mpfi_nan_p (x))
            {
              st = cn_error_set (err, CN_ENUMERIC, "bitcast: input 0 has a NaN end at entry %lld (node '%s')",
                                 (long long) j, cn__node_name (nv));
              break;
            }
          uint64_t rnp[2] = { 0, 0 }, rnn[2] = { 0, 0 };
          int has_p = mpfr_sgn (&x->right) >= 0, has_n = mpfr_sgn (&x->left) < 0;
          if (has_p)
            {
              rnp[0] = mpfr_sgn (&x->left) > 0 ? enc_fr (&x->left, t.w) : 0;
              rnp[1] = enc_fr (&x->right, t.w);
            }
          if (has_n)
            {
              rnn[0] = mpfr_sgn (&x->right) < 0 ? enc_fr (&x->right, t.w) : 0;
              rnn[1] = enc_fr (&x->left, t.w);
            }
          bitcast_scalar_range (&t, has_p, rnp, has_n, rnn, &rlo, &rhi);
          mpfi_set_words (out->v[j], &t, rlo, rhi, t0, t1);
          continue;
        }
      uint64_t a, b;
      double dlo = 0, dhi = 0;
      if ((st = mpfi_words (nv, &s, x, 0, j, &a, &b, err)) != CN_OK
          || (st = bitcast_word_range (nv, &s, to, a, b, j, &rlo, &rhi, &dlo, &dhi, err)) != CN_OK)
        break;
      if (cn_dtype_is_float (to))
        mpfi_interv_d (out->v[j], dlo, dhi);   /* exact at precision >= 53, else outward */
      else
        mpfi_set_words (out->v[j], &t, rlo, rhi, t0, t1);
    }
  mpfr_clear (t0);
  mpfr_clear (t1);
  return st;
}

static const cn_port_kind any1[1] = { CN_PORT_ANY };

const struct cn_op_rule cn__rule_BITCAST = { .op = CN_OP_BITCAST,
  .sorts = "f64, f32, words",
  .n_in = 1, .in_kind = any1, .params_size = sizeof (cn_params_bitcast), .check = bitcast_check,
  .out_sort = bitcast_out_sort, .forward = bitcast_forward, .jvp = cn__zero_jvp, .ibp = bitcast_ibp,
  .ibp_mpfi = bitcast_mpfi,
};

/* ---- encodeIndex, decodeIndex ------------------------------------------------------------- */

#define PCODE(nv) ((const cn_params_index_code *) (nv)->params)

static cn_status
code_params_ok (const char *op, const void *pv, cn_error *err)
{
  const cn_params_index_code *p = pv;
  cn__wsort s;
  if (p == NULL)
    return cn_error_set (err, CN_EINVAL, "%s: missing attribute record", op);
  if (p->r < 1 || p->r > CN_MAX_RANK - 1)
    return cn_error_set (err, CN_EINVAL, "%s: tuple length %d outside 1 .. %d", op, p->r, CN_MAX_RANK - 1);
  for (int c = 0; c < p->r; c++)
    if (p->bound[c] < 1 || p->bound[c] > ((int64_t) 1 << 53))
      return cn_error_set (err, CN_EINVAL, "%s: bound %lld of component %d outside 1 .. 2^53", op,
                           (long long) p->bound[c], c);
  if (!cn__wsort_of (p->word, &s))
    return cn_error_set (err, CN_EINVAL, "%s: word sort %s is not an integer sort", op, cn__sort_name (p->word));
  return CN_OK;
}

/* The strides of the code (stride_c = prod_{c' > c} bound_c') and the total P = prod bound,
 * each with a flag set when it is 2^64 or more (then its value is meaningless). */
struct code_strides
{
  uint64_t stride[CN_MAX_RANK], total;
  int big[CN_MAX_RANK], total_big;
};

static void
code_strides (const cn_params_index_code *p, struct code_strides *cs)
{
  uint64_t acc = 1;
  int big = 0;
  for (int c = p->r - 1; c >= 0; c--)
    {
      cs->stride[c] = acc;
      cs->big[c] = big;
      uint64_t b = (uint64_t) p->bound[c];
      if (!big && acc > UINT64_MAX / b)
        big = 1;
      else if (!big)
        acc *= b;
    }
  cs->total = acc;
  cs->total_big = big;
}

/* The greatest word of the sort S, as an unsigned number. */
static inline uint64_t
word_max (const cn__wsort *s)
{
  return s->sgn ? s->top - 1 : s->mask;
}

/* L = sum_c I[c] stride_c, exact; returns 0 if L > MAX (overflow included). */
static int
code_linear (const cn_params_index_code *p, const struct code_strides *cs, const uint64_t *i, uint64_t max,
             uint64_t *l)
{
  uint64_t acc = 0;
  for (int c = 0; c < p->r; c++)
    {
      if (i[c] == 0)
        continue;
      if (cs->big[c] || cs->stride[c] > UINT64_MAX / i[c])
        return 0;
      uint64_t t = i[c] * cs->stride[c];
      if (acc > UINT64_MAX - t)
        return 0;
      acc += t;
    }
  *l = acc;
  return acc <= max;
}

static cn_status
encode_check (const struct cn_op_rule *rule, const void *p, int n_in, const cn_shape *const *in, cn_shape *out, cn_error *err)
{
  (void) rule;
  cn_status st = code_params_ok ("encodeIndex", p, err);
  if (st != CN_OK)
    return st;
  if (n_in != 1)
    return cn_error_set (err, CN_EINVAL, "encodeIndex: takes 1 input, got %d", n_in);
  if ((st = cn__input_valid ("encodeIndex", 0, in[0], err)) != CN_OK)
    return st;
  int r = ((const cn_params_index_code *) p)->r;
  if (in[0]->rank < 1 || in[0]->dim[in[0]->rank - 1] != r)
    {
      char a[128];
      return cn_error_set (err, CN_ESHAPE, "encodeIndex: input %s does not end in an axis of the tuple length %d",
                           cn_shape_format (in[0], a, sizeof a), r);
    }
  cn_shape o = cn__shape_clean (in[0]);
  o.rank--;
  o.dim[o.rank] = 0;
  *out = o;
  return CN_OK;
}

static cn_status
encode_out_sort (const struct cn_op_rule *rule, const void *p, int n_in, const cn_dtype *in, cn_dtype *out, cn_error *err)
{
  (void) rule;
  cn_status st = code_params_ok ("encodeIndex", p, err);
  if (st != CN_OK)
    return st;
  if (n_in != 1)
    return cn_error_set (err, CN_EINVAL, "encodeIndex: takes 1 input, got %d", n_in);
  if (!cn_dtype_is_float (in[0]))
    return cn_error_set (err, CN_EINVAL, "encodeIndex: input 0 has sort %s where the model's scalar (an index port) is "
                         "expected", cn__sort_name (in[0]));
  *out = ((const cn_params_index_code *) p)->word;
  return CN_OK;
}

/* Reads tuple T of the index tensor X into I, checking every component (see the header). */
static cn_status
encode_tuple (const cn_node_view *nv, const cn_tensor *x, int64_t t, uint64_t *i, cn_error *err)
{
  const cn_params_index_code *p = PCODE (nv);
  for (int c = 0; c < p->r; c++)
    {
      double v = fval (x, t * p->r + c);
      if (!(v == floor (v) && v >= 0 && v < (double) p->bound[c]))
        return cn_error_set (err, CN_ENUMERIC, "encodeIndex: component %d of tuple %lld is %g, not an integer in "
                             "[0, %lld) (node '%s')", c, (long long) t, v, (long long) p->bound[c], cn__node_name (nv));
      i[c] = (uint64_t) v;   /* exact: an integer below 2^53 */
    }
  return CN_OK;
}

static cn_status
encode_forward (const cn_node_view *nv, const cn_tensor *const *in, cn_tensor *out, cn_error *err)
{
  cn_status st = code_params_ok ("encodeIndex", nv->params, err);
  if (st != CN_OK)
    return st;
  const cn_params_index_code *p = PCODE (nv);
  cn__wsort s = { 0 };
  cn__wsort_of (p->word, &s);   /* checked by code_params_ok */
  int64_t n = cn__numel (nv->out_shape);
  if (out->dtype != p->word || cn_tensor_numel (out) != n || !cn_dtype_is_float (in[0]->dtype)
      || cn_tensor_numel (in[0]) != n * p->r)
    return cn_error_set (err, CN_EINVAL, "encodeIndex: tensors do not match the node (node '%s')", cn__node_name (nv));
  struct code_strides cs;
  code_strides (p, &cs);
  uint64_t i[CN_MAX_RANK], l;
  /* pass 0 checks every tuple, pass 1 writes: nothing is written unless all of them encode */
  for (int pass = 0; pass < 2; pass++)
    for (int64_t t = 0; t < n; t++)
      {
        if ((st = encode_tuple (nv, in[0], t, i, err)) != CN_OK)
          return st;
        if (!code_linear (p, &cs, i, word_max (&s), &l))
          return cn_error_set (err, CN_ENUMERIC, "encodeIndex: the linear index of tuple %lld exceeds %s's greatest "
                               "word %llu (node '%s')", (long long) t, cn_dtype_name (p->word),
                               (unsigned long long) word_max (&s), cn__node_name (nv));
        if (pass == 1)
          cn__word_store (out->data, s.w, t, l);   /* l <= max: the value's pattern */
      }
  return CN_OK;
}

static cn_status
component_error (const cn_node_view *nv, int64_t t, int c, const char *what, cn_error *err)
{
  return cn_error_set (err, CN_ENUMERIC, "encodeIndex: the box of component %d of tuple %lld %s (node '%s')", c,
                       (long long) t, what, cn__node_name (nv));
}

/* The linear range [*LO, *HI] of the tuples whose components lie in [IL[c], IH[c]] (integers
 * already in [0, bound_c)), or CN_ENUMERIC if the greatest is beyond the word. */
static cn_status
encode_range (const cn_node_view *nv, const struct code_strides *cs, int64_t t, const uint64_t *il, const uint64_t *ih,
              uint64_t *lo, uint64_t *hi, cn_error *err)
{
  const cn_params_index_code *p = PCODE (nv);
  cn__wsort s = { 0 };
  cn__wsort_of (p->word, &s);   /* checked by code_params_ok */
  if (!code_linear (p, cs, ih, word_max (&s), hi))
    return cn_error_set (err, CN_ENUMERIC, "encodeIndex: the linear indices of tuple %lld may exceed %s's greatest word "
                         "%llu (node '%s')", (long long) t, cn_dtype_name (p->word), (unsigned long long) word_max (&s),
                         cn__node_name (nv));
  code_linear (p, cs, il, word_max (&s), lo);   /* il <= ih componentwise: no overflow */
  return CN_OK;
}

/* The opening of the IBP and MPFI arms of encodeIndex and decodeIndex (OP): checks the
 * attributes and that the IN_N input and OUT_N output entries (WHAT: "boxes" or "vectors") match
 * the node, with out_n = numel(out) and R words a tuple on the input side (TUPLES_IN: encode) or
 * on the output side (decode); then writes the word sort *S and the strides *CS. */
static cn_status
code_arms_open (const char *op, const char *what, const cn_node_view *nv, int tuples_in, int64_t in_n, int64_t out_n,
                cn__wsort *s, struct code_strides *cs, cn_error *err)
{
  cn_status st = code_params_ok (op, nv->params, err);
  if (st != CN_OK)
    return st;
  const cn_params_index_code *p = PCODE (nv);
  int64_t m = tuples_in ? out_n : in_n;   /* the number of tuples */
  if (out_n != cn__numel (nv->out_shape) || (tuples_in ? in_n : out_n) != m * p->r)
    return cn_error_set (err, CN_EINVAL, "%s: %s do not match the node (node '%s')", op, what, cn__node_name (nv));
  cn__wsort z = { 0 };
  *s = z;
  cn__wsort_of (p->word, s);   /* checked by code_params_ok */
  code_strides (p, cs);
  return CN_OK;
}

static cn_status
encode_ibp (const cn_node_view *nv, const cn_box *const *in, cn_box *out, cn_error *err)
{
  cn__wsort s;
  struct code_strides cs;
  cn_status st = code_arms_open ("encodeIndex", "boxes", nv, 1, in[0]->n, out->n, &s, &cs, err);
  if (st != CN_OK)
    return st;
  const cn_params_index_code *p = PCODE (nv);
  int64_t n = out->n;
  for (int64_t t = 0; t < n; t++)
    {
      uint64_t il[CN_MAX_RANK], ih[CN_MAX_RANK], lo, hi;
      for (int c = 0; c < p->r; c++)
        {
          double l = in[0]->lo[t * p->r + c], h = in[0]->hi[t * p->r + c];
          if (isnan (l) || isnan (h))
            return component_error (nv, t, c, "has a NaN end", err);
          double a = ceil (l), b = floor (h);
          if (a > b)
            return component_error (nv, t, c, "holds no integer", err);
          if (a < 0 || b >= (double) p->bound[c])
            return component_error (nv, t, c, "reaches past its bound", err);
          il[c] = (uint64_t) a;
          ih[c] = (uint64_t) b;
        }
      if ((st = encode_range (nv, &cs, t, il, ih, &lo, &hi, err)) != CN_OK)
        return st;
      out->lo[t] = cn__u64_dir (lo, 0);
      out->hi[t] = cn__u64_dir (hi, 1);
    }
  return CN_OK;
}

static cn_status
encode_mpfi (const cn_node_view *nv, const cn_mpfi_vec *const *in, cn_mpfi_vec *out, cn_error *err)
{
  cn__wsort s;
  struct code_strides cs;
  cn_status st = code_arms_open ("encodeIndex", "vectors", nv, 1, in[0]->n, out->n, &s, &cs, err);
  if (st != CN_OK)
    return st;
  const cn_params_index_code *p = PCODE (nv);
  int64_t n = out->n;
  if (n == 0)
    return CN_OK;
  mpfr_t t0, t1;
  mpfr_init2 (t0, mpfi_get_prec (out->v[0]));
  mpfr_init2 (t1, mpfi_get_prec (out->v[0]));
  for (int64_t t = 0; t < n && st == CN_OK; t++)
    {
      uint64_t il[CN_MAX_RANK], ih[CN_MAX_RANK], lo, hi;
      for (int c = 0; c < p->r && st == CN_OK; c++)
        {
          mpfi_srcptr x = in[0]->v[t * p->r + c];
          if (mpfi_nan_p (x))
            {
              st = component_error (nv, t, c, "has a NaN end", err);
              break;
            }
          /* ceil(left), floor(right), saturated at intmax_t's range (far past any bound) */
          intmax_t a = mpfr_get_sj (&x->left, MPFR_RNDU), b = mpfr_get_sj (&x->right, MPFR_RNDD);
          if (a > b)
            st = component_error (nv, t, c, "holds no integer", err);
          else if (a < 0 || b >= p->bound[c])
            st = component_error (nv, t, c, "reaches past its bound", err);
          else
            {
              il[c] = (uint64_t) a;
              ih[c] = (uint64_t) b;
            }
        }
      if (st != CN_OK || (st = encode_range (nv, &cs, t, il, ih, &lo, &hi, err)) != CN_OK)
        break;
      mpfr_set_uj (t0, lo, MPFR_RNDD);
      mpfr_set_uj (t1, hi, MPFR_RNDU);
      mpfi_interv_fr (out->v[t], t0, t1);
    }
  mpfr_clear (t0);
  mpfr_clear (t1);
  return st;
}

static cn_status
decode_check (const struct cn_op_rule *rule, const void *p, int n_in, const cn_shape *const *in, cn_shape *out, cn_error *err)
{
  (void) rule;
  cn_status st = code_params_ok ("decodeIndex", p, err);
  if (st != CN_OK)
    return st;
  if (n_in != 1)
    return cn_error_set (err, CN_EINVAL, "decodeIndex: takes 1 input, got %d", n_in);
  if ((st = cn__input_valid ("decodeIndex", 0, in[0], err)) != CN_OK)
    return st;
  if (in[0]->rank > CN_MAX_RANK - 1)
    return cn_error_set (err, CN_ESHAPE, "decodeIndex: input rank %d leaves no room for the tuple axis", in[0]->rank);
  cn_shape o = cn__shape_clean (in[0]);
  o.dim[o.rank++] = ((const cn_params_index_code *) p)->r;
  if ((st = cn__shape_valid ("decodeIndex", "the output", &o, err)) != CN_OK)
    return st;
  *out = o;
  return CN_OK;
}

static cn_status
decode_out_sort (const struct cn_op_rule *rule, const void *p, int n_in, const cn_dtype *in, cn_dtype *out, cn_error *err)
{
  (void) rule;
  cn_status st = code_params_ok ("decodeIndex", p, err);
  if (st != CN_OK)
    return st;
  if (n_in != 1)
    return cn_error_set (err, CN_EINVAL, "decodeIndex: takes 1 input, got %d", n_in);
  cn_dtype word = ((const cn_params_index_code *) p)->word;
  if (in[0] != word)
    return cn_error_set (err, CN_EINVAL, "decodeIndex: input sort %s differs from the word sort %s", cn__sort_name (in[0]),
                         cn_dtype_name (word));
  *out = CN_DTYPE_F64;
  return CN_OK;
}

/* The word of pattern Q as an unsigned number in [0, P), or 0 if it is outside. */
static int
decode_word (const cn__wsort *s, const struct code_strides *cs, uint64_t q, uint64_t *v)
{
  if (s->sgn && (q & s->top))
    return 0;
  *v = q;
  return cs->total_big || q < cs->total;
}

static cn_status
decode_forward (const cn_node_view *nv, const cn_tensor *const *in, cn_tensor *out, cn_error *err)
{
  cn_status st = code_params_ok ("decodeIndex", nv->params, err);
  if (st != CN_OK)
    return st;
  const cn_params_index_code *p = PCODE (nv);
  int64_t n = cn_tensor_numel (in[0]);
  if (in[0]->dtype != p->word || !cn_dtype_is_float (out->dtype) || cn_tensor_numel (out) != cn__numel (nv->out_shape)
      || n * p->r != cn_tensor_numel (out))
    return cn_error_set (err, CN_EINVAL, "decodeIndex: tensors do not match the node (node '%s')", cn__node_name (nv));
  cn__wsort s = { 0 };
  cn__wsort_of (p->word, &s);   /* checked by code_params_ok */
  struct code_strides cs;
  code_strides (p, &cs);
  uint64_t v;
  /* every word first: nothing is written unless all of them decode */
  for (int64_t t = 0; t < n; t++)
    {
      uint64_t q = cn__word_load (in[0]->data, s.w, t);
      if (!decode_word (&s, &cs, q, &v))
        {
          char tot[32];
          if (cs.total_big)
            snprintf (tot, sizeof tot, "2^64");
          else
            snprintf (tot, sizeof tot, "%llu", (unsigned long long) cs.total);
          char word[32];
          if (s.sgn)
            snprintf (word, sizeof word, "%lld", (long long) cn__word_sext (&s, q));
          else
            snprintf (word, sizeof word, "%llu", (unsigned long long) q);
          return cn_error_set (err, CN_ENUMERIC, "decodeIndex: word %s at entry %lld is outside [0, %s) (node '%s')", word,
                               (long long) t, tot, cn__node_name (nv));
        }
    }
  for (int64_t t = 0; t < n; t++)
    {
      decode_word (&s, &cs, cn__word_load (in[0]->data, s.w, t), &v);
      for (int c = 0; c < p->r; c++)
        {
          uint64_t q = cs.big[c] ? 0 : v / cs.stride[c];   /* v < 2^64 <= a big stride */
          fstore (out, t * p->r + c, (double) (q % (uint64_t) p->bound[c]));   /* < 2^53: exact in f64 */
        }
    }
  return CN_OK;
}

/* The components' ranges of the words [A, B] (unsigned values in [0, P)) into LO, HI. */
static void
decode_range (const cn_params_index_code *p, const struct code_strides *cs, uint64_t a, uint64_t b, double *lo,
              double *hi)
{
  for (int c = 0; c < p->r; c++)
    {
      uint64_t bd = (uint64_t) p->bound[c];
      uint64_t qa = cs->big[c] ? 0 : a / cs->stride[c], qb = cs->big[c] ? 0 : b / cs->stride[c];
      /* q = floor(w / stride) is nondecreasing in w and takes every value in [qa, qb] */
      if (qa / bd == qb / bd)
        {
          lo[c] = (double) (qa % bd);
          hi[c] = (double) (qb % bd);
        }
      else
        {
          lo[c] = 0;
          hi[c] = (double) (bd - 1);
        }
    }
}

/* The words of offsets [A, B] as unsigned values in [0, P), or CN_ENUMERIC. */
static cn_status
decode_words (const cn_node_view *nv, const cn__wsort *s, const struct code_strides *cs, uint64_t a, uint64_t b,
              int64_t t, uint64_t *va, uint64_t *vb, cn_error *err)
{
  uint64_t pa = pat (s, a), pb = pat (s, b);
  if ((s->sgn && (pa & s->top)) || !(cs->total_big || pb < cs->total))
    return cn_error_set (err, CN_ENUMERIC, "decodeIndex: the words at entry %lld may be outside [0, prod bound) "
                         "(node '%s')", (long long) t, cn__node_name (nv));
  /* now a >= 0 (so b >= 0 too) and b < P */
  *va = pa;
  *vb = pb;
  return CN_OK;
}

/* The IBP arm (box input BIN, box output BOUT) and the MPFI arm (MIN, MOUT) of decodeIndex in one:
 * exactly one of the pairs is given.  Each entry's words [a, b] give the components' ranges by
 * decode_range (integers below 2^53, exact in both). */
static cn_status
decode_bounds (const cn_node_view *nv, const cn_box *bin, const cn_mpfi_vec *min, cn_box *bout, cn_mpfi_vec *mout,
               cn_error *err)
{
  cn__wsort s;
  struct code_strides cs;
  int64_t n = bin != NULL ? bin->n : min->n;
  cn_status st = code_arms_open ("decodeIndex", bin != NULL ? "boxes" : "vectors", nv, 0, n,
                                 bout != NULL ? bout->n : mout->n, &s, &cs, err);
  if (st != CN_OK)
    return st;
  const cn_params_index_code *p = PCODE (nv);
  for (int64_t t = 0; t < n; t++)
    {
      uint64_t a = 0, b = 0, va = 0, vb = 0;
      double lo[CN_MAX_RANK], hi[CN_MAX_RANK];
      st = bin != NULL ? box_words (nv, &s, bin->lo[t], bin->hi[t], 0, t, &a, &b, err)
                       : mpfi_words (nv, &s, min->v[t], 0, t, &a, &b, err);
      if (st != CN_OK || (st = decode_words (nv, &s, &cs, a, b, t, &va, &vb, err)) != CN_OK)
        return st;
      decode_range (p, &cs, va, vb, lo, hi);
      for (int c = 0; c < p->r; c++)
        if (bout != NULL)
          {
            bout->lo[t * p->r + c] = lo[c];
            bout->hi[t * p->r + c] = hi[c];
          }
        else
          mpfi_interv_d (mout->v[t * p->r + c], lo[c], hi[c]);   /* integers below 2^53: exact */
    }
  return CN_OK;
}

static cn_status
decode_ibp (const cn_node_view *nv, const cn_box *const *in, cn_box *out, cn_error *err)
{
  return decode_bounds (nv, in[0], NULL, out, NULL, err);
}

static cn_status
decode_mpfi (const cn_node_view *nv, const cn_mpfi_vec *const *in, cn_mpfi_vec *out, cn_error *err)
{
  return decode_bounds (nv, NULL, in[0], NULL, out, err);
}

static const cn_port_kind index1[1] = { CN_PORT_INDEX };

const struct cn_op_rule cn__rule_ENCODE_INDEX = { .op = CN_OP_ENCODE_INDEX,
  .sorts = "f64, f32, words",
  .n_in = 1, .in_kind = index1, .params_size = sizeof (cn_params_index_code), .check = encode_check,
  .out_sort = encode_out_sort, .forward = encode_forward, .ibp = encode_ibp, .ibp_mpfi = encode_mpfi,
};

const struct cn_op_rule cn__rule_DECODE_INDEX = { .op = CN_OP_DECODE_INDEX,
  .sorts = "f64, f32, words",
  .n_in = 1, .in_kind = int1, .params_size = sizeof (cn_params_index_code), .check = decode_check,
  .out_sort = decode_out_sort, .forward = decode_forward, .jvp = cn__zero_jvp, .ibp = decode_ibp,
  .ibp_mpfi = decode_mpfi,
};
