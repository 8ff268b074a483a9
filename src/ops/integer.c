/* SPDX-License-Identifier: MIT */
/* src/ops/integer.c: the integer-word operators bitwiseAnd, bitwiseOr, bitwiseXor, bitwiseNot,
 * bitwiseLeftShift, shiftRightArithmetic, shiftRightLogical, populationCount, countLeadingZeros
 * and mulhi, and what every file of integer words shares (src/ops/integer_impl.h: reading word
 * ports' boxes and enclosures, offsets, the pattern halves).  The other operators of the family
 * have their own files: bitcast in src/ops/bitcast.c, encodeIndex and decodeIndex in
 * src/ops/index_code.c.
 *
 * Words (certnn/ops.h, "element sorts").  A word of sort i8 .. i64 / u8 .. u64 has width
 * N = 8, 16, 32 or 64 and a pattern p in [0, 2^N) (its N bits); its value is p for an unsigned
 * sort, and p, or p - 2^N when bit N-1 is set, for a signed one (two's complement).  Every
 * operator of the family computes with patterns held in uint64_t (the value of a signed word is
 * formed from its pattern without any signed overflow, and every shift count is below 64), so
 * the C is free of undefined and implementation-defined behaviour.  Tensors of words are read and
 * written through the unsigned type of their width, which may alias the signed one.
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
 * CN_EUNSUPPORTED (never a guess).  The arms receive tensors, boxes and vectors of the node's
 * shapes and sorts (the graph builder checked the node): they state it with CN__ASSERTD.
 *
 * Checks.  The ten word operators take ports of one shape (cn__unary_check / cn__binary_check)
 * and out_sort asks for integer sorts, equal for the binary ones, the output of that sort
 * ("bitwiseAnd: input sorts i32 and u8 differ", "mulhi: input 0 has sort bool; integer words
 * (i8 .. u64) are expected").  Each rule's impl (struct word_impl) holds the operator's kind and
 * arity, which the shared arms read.  No word operator has a value input: no pullback, and no
 * jvp for these ten.
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
 *
 * Forward accuracy: exact everywhere (0 ulp). */
#include <config.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "ops/integer_impl.h"
#include "ops/unary_impl.h"

/* ---- word sorts, patterns and offsets (the sorts' widths: cn__wsort_of, ops_impl.h) -------- */

cn_status
cn__view_word_sort (const cn_node_view *nv, int i, cn__wsort *s, cn_error *err)
{
  cn_dtype t = cn__view_input_sort (nv, i);
  if (t == CN_DTYPE_COUNT)
    return cn_error_set (err, CN_EUNSUPPORTED, "%s: the node view does not carry the input sorts (node '%s')",
                         cn_op_name (nv->op), cn__node_name (nv));
  int word = cn__wsort_of (t, s);
  CN__ASSERTD (word);   /* out_sort admitted integer words only */
  (void) word;
  return CN_OK;
}

double
cn__word_off_to_d (const cn__wsort *s, uint64_t u, int up)
{
  if (!s->sgn)
    return cn__u64_dir (u, up);
  if (u >= s->top)
    return cn__u64_dir (u - s->top, up);
  /* a negative value -(top - u), whose magnitude top - u <= 2^63 is exact in uint64_t */
  return -cn__u64_dir (s->top - u, !up);
}

cn_status
cn__word_box (const cn_node_view *nv, const cn__wsort *s, double l, double h, int i, int64_t j, uint64_t *a,
              uint64_t *b, cn_error *err)
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
    *a = s->sgn ? cn__word_off_signed (s, (int64_t) c) : (uint64_t) c;
  if (f >= lim)
    *b = s->mask;
  else
    *b = s->sgn ? cn__word_off_signed (s, (int64_t) f) : (uint64_t) f;
  return CN_OK;
}

cn_status
cn__word_enclosure (const cn_node_view *nv, const cn__wsort *s, mpfi_srcptr x, int i, int64_t j, uint64_t *a,
                    uint64_t *b, cn_error *err)
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
              *a = cn__word_off_signed (s, c < lo ? lo : (int64_t) c);
              *b = cn__word_off_signed (s, f > hi ? hi : (int64_t) f);
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

void
cn__word_mpfi_set (mpfi_ptr r, const cn__wsort *s, uint64_t a, uint64_t b, mpfr_ptr t0, mpfr_ptr t1)
{
  if (s->sgn)
    {
      mpfr_set_sj (t0, cn__word_sext (s, cn__word_pat (s, a)), MPFR_RNDD);
      mpfr_set_sj (t1, cn__word_sext (s, cn__word_pat (s, b)), MPFR_RNDU);
    }
  else
    {
      mpfr_set_uj (t0, a, MPFR_RNDD);
      mpfr_set_uj (t1, b, MPFR_RNDU);
    }
  mpfi_interv_fr (r, t0, t1);
}

int
cn__word_halves (const cn__wsort *s, uint64_t a, uint64_t b, uint64_t p[2][2])
{
  int n = 0;
  if (a < s->top)
    {
      p[n][0] = cn__word_pat (s, a);
      p[n][1] = cn__word_pat (s, b < s->top ? b : s->top - 1);
      n++;
    }
  if (b >= s->top)
    {
      p[n][0] = cn__word_pat (s, a >= s->top ? a : s->top);
      p[n][1] = cn__word_pat (s, b);
      n++;
    }
  /* cn__word_pat adds or removes 2^(N-1) uniformly on each half, so each piece is an interval */
  return n;
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

/* The exact 128-bit value A 2^SH (SH < 64) of the 64-bit pattern A read as unsigned (SGN = 0)
 * or two's complement (SGN = 1): *HI:*LO, modulo 2^128.  (Not mul128 with 2^SH: at SH = 63 the
 * pattern of 2^63 reads as -2^63 in two's complement.) */
static void
shl128 (int sgn, uint64_t a, unsigned sh, uint64_t *hi, uint64_t *lo)
{
  uint64_t ext = sgn && (a >> 63) ? ~(uint64_t) 0 : 0;   /* the bits above A's 64 */
  *lo = a << sh;
  *hi = sh == 0 ? ext : (ext << sh) | (a >> (64 - sh));
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

/* ---- the word operators: their impl, forward ----------------------------------------------- */

/* The word operators' kinds: the family's vocabulary, which each rule's impl names. */
enum word_kind { K_AND, K_OR, K_XOR, K_NOT, K_SHL, K_SRA, K_SRL, K_POPCNT, K_CLZ, K_MULHI };

/* What the shared arms read of a word operator (its rule's impl). */
struct word_impl
{
  enum word_kind kind;
  int arity;                  /* 1 or 2 inputs, of one word sort */
};

static inline int
is_shift (enum word_kind k)
{
  return k == K_SHL || k == K_SRA || k == K_SRL;
}

/* The word operator K on the patterns A and B (the amount B of a shift nonnegative). */
static inline uint64_t
word_apply (enum word_kind k, const cn__wsort *s, uint64_t a, uint64_t b)
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
        mul128 (s->sgn, cn__word_widen (s, a), cn__word_widen (s, b), &hi, &lo);
        return high_half (s, hi, lo);
      }
    }
}

/* The out_sort arm of the word operators: ARITY inputs of integer sorts, equal for the binary
 * ones, the output of that sort. */
static cn_status
word_out_sort (const struct cn_op_rule *rule, const void *p, int n_in, const cn_dtype *in, cn_dtype *out,
               cn_error *err)
{
  (void) p;
  const struct word_impl *d = rule->impl;
  const char *op = cn_op_name (rule->op);
  int arity = d->arity;
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
  const struct word_impl *d = nv->rule->impl;
  int64_t n = cn__numel (nv->out_shape);
  cn__wsort s = { 0 };
  int word = cn__wsort_of (out->dtype, &s);
  /* the output and the inputs are word tensors of the node's shape and of one sort (out_sort) */
  CN__ASSERTD (word && cn_tensor_numel (out) == n);
  (void) word;
  for (int i = 0; i < d->arity; i++)
    CN__ASSERTD (in[i]->dtype == out->dtype && cn_tensor_numel (in[i]) == n);
  const void *a = in[0]->data, *b = d->arity == 2 ? in[1]->data : NULL;
  if (is_shift (d->kind) && s.sgn)
    /* every amount first: nothing is written unless all of them are >= 0 */
    for (int64_t j = 0; j < n; j++)
      {
        uint64_t q = cn__word_load (b, s.w, j);
        if (q & s.top)
          return cn_error_set (err, CN_ENUMERIC, "%s: shift amount %lld at entry %lld is negative (node '%s')",
                               cn_op_name (nv->op), (long long) cn__word_sext (&s, q), (long long) j,
                               cn__node_name (nv));
      }
  for (int64_t j = 0; j < n; j++)
    cn__word_store (out->data, s.w, j,
                    word_apply (d->kind, &s, cn__word_load (a, s.w, j), b ? cn__word_load (b, s.w, j) : 0));
  return CN_OK;
}

/* ---- the word operators: exact ranges (shared by IBP and MPFI) -------------------------- */

static cn_status
negative_amount (const cn_node_view *nv, int64_t j, cn_error *err)
{
  return cn_error_set (err, CN_ENUMERIC, "%s: the shift amount at entry %lld may be negative (node '%s')",
                       cn_op_name (nv->op), (long long) j, cn__node_name (nv));
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
  uint64_t xa = cn__word_widen (s, cn__word_pat (s, a)), xb = cn__word_widen (s, cn__word_pat (s, b));
  for (uint64_t sh = s0; sh < W && sh <= s1; sh++)
    {
      uint64_t h0, l0, h1, l1;
      shl128 (s->sgn, xa, (unsigned) sh, &h0, &l0);
      shl128 (s->sgn, xb, (unsigned) sh, &h1, &l1);
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
      cn__word_hull (&any, rlo, rhi, l0 & s->mask, l1 & s->mask);
    }
  if (s1 >= W)
    cn__word_hull (&any, rlo, rhi, cn__word_off_nonneg (s, 0), cn__word_off_nonneg (s, 0));
  return CN_OK;
}

/* The exact range, as offsets [*RLO, *RHI], of the word operator D over the words of offsets [LO[i],
 * HI[i]] of its inputs (entry J, for messages). */
static cn_status
word_range (const struct word_impl *d, const cn__wsort *s, const uint64_t *lo, const uint64_t *hi, uint64_t *rlo,
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
        int na = cn__word_halves (s, lo[0], hi[0], pa), nb = cn__word_halves (s, lo[1], hi[1], pb);
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
              cn__word_hull (&any, rlo, rhi, cn__word_pat (s, r0), cn__word_pat (s, r1));
            }
        return CN_OK;
      }
    case K_POPCNT:
    case K_CLZ:
      {
        uint64_t pa[2][2];
        int na = cn__word_halves (s, lo[0], hi[0], pa);
        for (int x = 0; x < na; x++)
          {
            unsigned c0, c1;
            if (d->kind == K_POPCNT)
              popcount_range (pa[x][0], pa[x][1], &c0, &c1);
            else
              c0 = clz_w (s->w, pa[x][1]), c1 = clz_w (s->w, pa[x][0]);
            cn__word_hull (&any, rlo, rhi, cn__word_off_nonneg (s, c0), cn__word_off_nonneg (s, c1));
          }
        return CN_OK;
      }
    case K_MULHI:
      {
        uint64_t xa[2] = { cn__word_widen (s, cn__word_pat (s, lo[0])),
                           cn__word_widen (s, cn__word_pat (s, hi[0])) };
        uint64_t xb[2] = { cn__word_widen (s, cn__word_pat (s, lo[1])),
                           cn__word_widen (s, cn__word_pat (s, hi[1])) };
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
        *rlo = cn__word_pat (s, high_half (s, mh, ml));
        *rhi = cn__word_pat (s, high_half (s, Mh, Ml));
        return CN_OK;
      }
    default:
      break;
    }
  /* the shifts: the amounts' values [s0, s1], nonnegative */
  uint64_t s0, s1;
  if (s->sgn)
    {
      int64_t v0 = cn__word_sext (s, cn__word_pat (s, lo[1])), v1 = cn__word_sext (s, cn__word_pat (s, hi[1]));
      if (v0 < 0)
        return negative_amount (nv, j, err);
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
  int64_t a0 = cn__word_sext (s, cn__word_pat (s, lo[0])), a1 = cn__word_sext (s, cn__word_pat (s, hi[0]));
  if (d->kind == K_SRA)
    {
      /* floor(a / 2^min(s, N-1)): monotone in a, and in s for each sign of a: the corners */
      unsigned sh[2] = { (unsigned) (s0 < W - 1 ? s0 : W - 1), (unsigned) (s1 < W - 1 ? s1 : W - 1) };
      for (int k = 0; k < 4; k++)
        {
          uint64_t u = cn__word_off_signed (s, floor_shift (k >> 1 ? a1 : a0, sh[k & 1]));
          cn__word_hull (&any, rlo, rhi, u, u);
        }
      return CN_OK;
    }
  /* shiftRightLogical on a signed sort */
  if (s0 == 0)
    cn__word_hull (&any, rlo, rhi, lo[0], hi[0]);
  if (s1 >= 1)
    {
      uint64_t pa[2][2], sa = s0 > 1 ? s0 : 1;
      int na = cn__word_halves (s, lo[0], hi[0], pa);
      for (int x = 0; x < na; x++)
        {
          uint64_t r0 = s1 >= W ? 0 : pa[x][0] >> s1, r1 = sa >= W ? 0 : pa[x][1] >> sa;
          /* nonnegative results: value = pattern */
          cn__word_hull (&any, rlo, rhi, cn__word_off_nonneg (s, r0), cn__word_off_nonneg (s, r1));
        }
    }
  return CN_OK;
}

static cn_status
word_ibp (const cn_node_view *nv, const cn_box *const *in, cn_box *out, cn_error *err)
{
  const struct word_impl *d = nv->rule->impl;
  CN__ASSERTD (out->n == cn__numel (nv->out_shape));
  for (int i = 0; i < d->arity; i++)
    CN__ASSERTD (in[i]->n == out->n);
  cn__wsort s;
  cn_status st = cn__view_word_sort (nv, 0, &s, err);
  if (st != CN_OK)
    return st;
  for (int64_t j = 0; j < out->n; j++)
    {
      uint64_t lo[2] = { 0, 0 }, hi[2] = { 0, 0 }, a, b;
      for (int i = 0; i < d->arity; i++)
        if ((st = cn__word_box (nv, &s, in[i]->lo[j], in[i]->hi[j], i, j, &lo[i], &hi[i], err)) != CN_OK)
          return st;
      if ((st = word_range (d, &s, lo, hi, &a, &b, nv, j, err)) != CN_OK)
        return st;
      out->lo[j] = cn__word_off_to_d (&s, a, 0);
      out->hi[j] = cn__word_off_to_d (&s, b, 1);
      /* now [lo, hi] holds the exact range of the words, rounded outward */
    }
  return CN_OK;
}

static cn_status
word_mpfi (const cn_node_view *nv, const cn_mpfi_vec *const *in, cn_mpfi_vec *out, cn_error *err)
{
  const struct word_impl *d = nv->rule->impl;
  CN__ASSERTD (out->n == cn__numel (nv->out_shape));
  for (int i = 0; i < d->arity; i++)
    CN__ASSERTD (in[i]->n == out->n);
  cn__wsort s;
  cn_status st = cn__view_word_sort (nv, 0, &s, err);
  if (st != CN_OK || out->n == 0)
    return st;
  mpfr_t t0, t1;
  mpfr_init2 (t0, mpfi_get_prec (out->v[0]));
  mpfr_init2 (t1, mpfi_get_prec (out->v[0]));
  for (int64_t j = 0; j < out->n && st == CN_OK; j++)
    {
      uint64_t lo[2] = { 0, 0 }, hi[2] = { 0, 0 }, a, b;
      for (int i = 0; i < d->arity && st == CN_OK; i++)
        st = cn__word_enclosure (nv, &s, in[i]->v[j], i, j, &lo[i], &hi[i], err);
      if (st == CN_OK && (st = word_range (d, &s, lo, hi, &a, &b, nv, j, err)) == CN_OK)
        cn__word_mpfi_set (out->v[j], &s, a, b, t0, t1);
    }
  mpfr_clear (t0);
  mpfr_clear (t1);
  return st;
}

static const cn_port_kind int1[1] = { CN_PORT_INTEGER };
static const cn_port_kind int2[2] = { CN_PORT_INTEGER, CN_PORT_INTEGER };

/* The rules: the kind and arity in the impl, the shared arms, the generic shape checks. */

static const struct word_impl and_impl = { K_AND, 2 };
const struct cn_op_rule cn__rule_BITWISE_AND = { .op = CN_OP_BITWISE_AND, .impl = &and_impl,
  .n_in = 2, .in_kind = int2, .check = cn__binary_check, .out_sort = word_out_sort,
  .forward = word_forward, .ibp = word_ibp, .ibp_mpfi = word_mpfi,
  .certs = CN__CERTS (CN__CERT_IBP),
};

static const struct word_impl or_impl = { K_OR, 2 };
const struct cn_op_rule cn__rule_BITWISE_OR = { .op = CN_OP_BITWISE_OR, .impl = &or_impl,
  .n_in = 2, .in_kind = int2, .check = cn__binary_check, .out_sort = word_out_sort,
  .forward = word_forward, .ibp = word_ibp, .ibp_mpfi = word_mpfi,
  .certs = CN__CERTS (CN__CERT_IBP),
};

static const struct word_impl xor_impl = { K_XOR, 2 };
const struct cn_op_rule cn__rule_BITWISE_XOR = { .op = CN_OP_BITWISE_XOR, .impl = &xor_impl,
  .n_in = 2, .in_kind = int2, .check = cn__binary_check, .out_sort = word_out_sort,
  .forward = word_forward, .ibp = word_ibp, .ibp_mpfi = word_mpfi,
  .certs = CN__CERTS (CN__CERT_IBP),
};

static const struct word_impl not_impl = { K_NOT, 1 };
const struct cn_op_rule cn__rule_BITWISE_NOT = { .op = CN_OP_BITWISE_NOT, .impl = &not_impl,
  .n_in = 1, .in_kind = int1, .check = cn__unary_check, .out_sort = word_out_sort,
  .forward = word_forward, .ibp = word_ibp, .ibp_mpfi = word_mpfi,
  .certs = CN__CERTS (CN__CERT_IBP),
};

static const struct word_impl shl_impl = { K_SHL, 2 };
const struct cn_op_rule cn__rule_BITWISE_LEFT_SHIFT = { .op = CN_OP_BITWISE_LEFT_SHIFT, .impl = &shl_impl,
  .n_in = 2, .in_kind = int2, .check = cn__binary_check, .out_sort = word_out_sort,
  .forward = word_forward, .ibp = word_ibp, .ibp_mpfi = word_mpfi,
  .certs = CN__CERTS (CN__CERT_IBP),
};

static const struct word_impl sra_impl = { K_SRA, 2 };
const struct cn_op_rule cn__rule_SHIFT_RIGHT_ARITHMETIC = { .op = CN_OP_SHIFT_RIGHT_ARITHMETIC, .impl = &sra_impl,
  .n_in = 2, .in_kind = int2, .check = cn__binary_check, .out_sort = word_out_sort,
  .forward = word_forward, .ibp = word_ibp, .ibp_mpfi = word_mpfi,
  .certs = CN__CERTS (CN__CERT_IBP),
};

static const struct word_impl srl_impl = { K_SRL, 2 };
const struct cn_op_rule cn__rule_SHIFT_RIGHT_LOGICAL = { .op = CN_OP_SHIFT_RIGHT_LOGICAL, .impl = &srl_impl,
  .n_in = 2, .in_kind = int2, .check = cn__binary_check, .out_sort = word_out_sort,
  .forward = word_forward, .ibp = word_ibp, .ibp_mpfi = word_mpfi,
  .certs = CN__CERTS (CN__CERT_IBP),
};

static const struct word_impl popcnt_impl = { K_POPCNT, 1 };
const struct cn_op_rule cn__rule_POPULATION_COUNT = { .op = CN_OP_POPULATION_COUNT, .impl = &popcnt_impl,
  .n_in = 1, .in_kind = int1, .check = cn__unary_check, .out_sort = word_out_sort,
  .forward = word_forward, .ibp = word_ibp, .ibp_mpfi = word_mpfi,
  .certs = CN__CERTS (CN__CERT_IBP),
};

static const struct word_impl clz_impl = { K_CLZ, 1 };
const struct cn_op_rule cn__rule_COUNT_LEADING_ZEROS = { .op = CN_OP_COUNT_LEADING_ZEROS, .impl = &clz_impl,
  .n_in = 1, .in_kind = int1, .check = cn__unary_check, .out_sort = word_out_sort,
  .forward = word_forward, .ibp = word_ibp, .ibp_mpfi = word_mpfi,
  .certs = CN__CERTS (CN__CERT_IBP),
};

static const struct word_impl mulhi_impl = { K_MULHI, 2 };
const struct cn_op_rule cn__rule_MULHI = { .op = CN_OP_MULHI, .impl = &mulhi_impl,
  .n_in = 2, .in_kind = int2, .check = cn__binary_check, .out_sort = word_out_sort,
  .forward = word_forward, .ibp = word_ibp, .ibp_mpfi = word_mpfi,
  .certs = CN__CERTS (CN__CERT_IBP),
};
