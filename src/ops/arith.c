/* SPDX-License-Identifier: MIT */
/* src/ops/arith.c: the arithmetic, add, sub, mul, div and neg, and the integer-word meaning of the
 * arithmetic (also that of pow and remainder, whose other arms are in src/ops/elementwise.c).
 *
 * Every operator here works entry by entry on inputs of one shape (broadcasting is the separate
 * broadcast node).  For one entry, x and y are the inputs, v the output, [xl, xu] and [yl, yu]
 * the input boxes.  down() and up() are cn__down and cn__up of src/sound/sound.h: for
 * c = fl(z), down(c) <= z <= up(c).  An end computed as fl(z) for ONE real z is made sound by
 * end_lo/end_hi below: a lower end fl(z) = +inf means z > DBL_MAX, so DBL_MAX is a lower end; an
 * upper end -inf likewise becomes -DBL_MAX; a NaN (inf - inf) becomes -inf or +inf.  A finite
 * end is never made up from an infinite or NaN one.
 *
 * The arms are shared by kind (binary_forward, binary_ibp and binary_mpfi for add, sub, mul and
 * div; linear_* for add, sub and neg; product_crown for mul and div) and read the operator's
 * kernels, signs and CROWN flavour from its rule (struct arith_impl, with the rules at the end);
 * div picks its kernels by its rounding mode.
 *
 * The forwards compute in the sort T of the tensors (double for f64, float for f32), one operation
 * per entry rounded to nearest in T (fl; FLT_EVAL_METHOD 0, so a float operation is rounded once to
 * binary32); tools/gen_onnx_tests.py emulates them ("f32seq") and tests/check_onnx.c requires the
 * binary32 forward to match bit for bit.
 *
 * add  v = x + y.
 *   forward  fl(x + y): one correctly rounded addition in T per entry.
 *   IBP      [down(fl(xl + yl)), up(fl(xu + yu))]: one rounding per end, covered by down/up.
 *   CROWN    lam . v = lam . x + lam . y exactly, so lam_x = lam_y = lam (copies, no charge).
 *            An input without coefficients (a constant) is discharged over its box: the bias
 *            gets fl(sum_j sel_j) with sel_j = lam_j * (lam_j > 0 ? lo_j : hi_j), and the charge
 *            the (G) error cn__dot_err of that dot product plus the rounding of the addition
 *            (cn__crown_add_bias); an infinite end needed there makes the charge +inf.
 * sub  v = x - y: forward fl(x - y), one correctly rounded subtraction; otherwise as add, with
 *            the box [down(fl(xl - yu)), up(fl(xu - yl))] and lam_y = -lam (an exact negation).
 * neg  v = -x: forward fl(-x) = -x, IBP [-xu, -xl] and CROWN lam_x = -lam are exact; no
 *            rounding and no charge.
 * mul  v = x * y.
 *   forward  fl(x * y): one correctly rounded product in T per entry.
 *   IBP      the hull of the four end products xl yl, xl yu, xu yl, xu yu (ALGORITHMS.md 1.4),
 *            each product rounded down for the lower candidates and up for the upper ones.  A
 *            product with a zero factor is exactly 0 (an infinite end is not a point of the box,
 *            and 0 times any real is 0: the IEEE 1788 convention).
 *   CROWN    only with one constant factor c (a graph constant, or an input whose box is one
 *            finite point): lam . v = (lam .* c) . x exactly; lam_x = fl(lam .* c) is one
 *            rounded product per entry, |fl(p) - p| <= 2u |fl(p)| + eta, charged by
 *            cn__crown_charge_entrywise with m_j = max(|xl_j|, |xu_j|).  Two non-constant
 *            factors: McCormick's planes (cn__crown_multilinear, src/sound/relax.c: the lower
 *            plane yl x + xl y + b, the upper yu x + xl y + b, each b the outward-rounded extreme
 *            of x y - k . (x, y) over the box's four corners, where a bilinear function takes
 *            its extremes).  alpha-CROWN: one parameter per entry, the mix r in [0, 1] of
 *            McCormick's two planes on the side a row uses (mul_alpha_step; r = 1: the planes
 *            above).
 *   x * x    a node whose two inputs are one graph value (cn_node_view.in_value) is the real
 *            function square(x), and its forward fl(x * x) is square's, one correctly rounded
 *            product: its IBP, MPFI, CROWN and alpha arms are square's, called through the
 *            table (mul_self_view).  They use the dependency the independent factors lose: on a
 *            box across 0, [0, max(l^2, u^2)] where the four end products give [l u, ...], and
 *            square's convex relaxation (tangent below, chord above; alpha moves the tangent)
 *            where McCormick's planes hold for any two factors.  Words keep the arms above.
 * div  v = x / y with torch.div's rounding mode.
 *   forward  TRUE: fl(x / y), one correctly rounded quotient in T.  TRUNC: trunc(fl(x / y)) as torch.
 *            FLOOR: torch's div_floor_floating (fmod based, in T, step by step as div_floor_d/_f).
 *   IBP      TRUE: if 0 lies in [yl, yu] the quotient is unbounded: [-inf, +inf].  Otherwise x/y is
 *            monotone in each argument on the box, and the hull of the four end quotients,
 *            each rounded outward, is sound.  Limits at infinite ends: 0/y = 0, finite/inf = 0,
 *            and (+-inf)/(+-inf) contributes its sign times [0, +inf].
 *            TRUNC, FLOOR: the real result is g(x/y) with g = trunc or floor, nondecreasing, so
 *            from the TRUE box [q_lo, q_hi] the box is [g(q_lo), g(q_hi)]; g of a double is a
 *            double (exact, no rounding).
 *   CROWN    TRUE with a constant divisor c: lam . v = (lam ./ c) . x; lam_x = fl(lam ./ c), one
 *            rounded quotient per entry, charged as for mul.  At an entry with c_j = 0 the value
 *            is undefined: a row with a nonzero coefficient there gets the charge +inf (its bound
 *            becomes -inf).  A varying divisor (or a constant numerator): x times 1/y
 *            (cn__crown_times_fn, src/sound/relax.c): McCormick's slopes on x and r = 1/y, r's
 *            tangent or chord, the intercepts exact by G2 at x = xl and xu; a divisor box
 *            around 0 leaves the node its IBP box.  TRUNC and FLOOR: CN_EUNSUPPORTED.
 *
 * MPFI arms (the reference): mpfi_add, mpfi_sub, mpfi_mul, mpfi_div (a divisor enclosure that
 * contains 0 gives [-inf, +inf]), mpfi_neg; TRUNC and FLOOR round the ends of the quotient's
 * enclosure to integers outward (mpfr_rint_trunc/floor, RNDD on the left, RNDU on the right).
 *
 * Pullbacks (reverse mode in binary64, round to nearest; g is the output's cotangent, and each
 * arm ADDS the adjoint of the tangent map into the cotangent of every input that asks for one):
 *   add  dv = dx + dy, so  g_x += g,  g_y += g.
 *   sub  dv = dx - dy, so  g_x += g,  g_y -= g.
 *   neg  dv = -dx, so  g_x -= g.
 *   mul  dv = y dx + x dy (bilinear: both inputs may vary), so  g_x += g y,  g_y += g x.
 *   div  TRUE: dv = dx / y - (x / y^2) dy, so  g_x += g / y  and  g_y -= (g / y)(x / y), computed
 *        in that order (no y^2, which would overflow or underflow early); y = 0 gives infinities
 *        or NaNs, as the forward does.  TRUNC and FLOOR are piecewise constant: the derivative is
 *        0 wherever it exists, and 0 is also the (one-sided) choice at the jumps, so nothing is
 *        added.
 *
 * Forward mode (jvp, binary64, round to nearest; t_x and t_y are the inputs' tangents, a missing
 * one, a constant's, counting as zero; each arm WRITES the output's tangent t, the transpose of
 * its pullback, so that <jvp(t_x, t_y), g> = <t_x, g_x> + <t_y, g_y> in exact arithmetic):
 *   add  t = t_x + t_y.   sub  t = t_x - t_y.   neg  t = -t_x.
 *   mul  t = y t_x + x t_y.
 *   div  TRUE: t = t_x / y - (x / y) (t_y / y), the same factors as the pullback (q = t / y in
 *        the pullback's order); TRUNC and FLOOR: t = 0 (the pullback's choice at the jumps).
 *
 * Element sorts (the seed's Op.NumericElement: add, sub, mul, div, neg here, pow and remainder in
 * src/ops/elementwise.c, whose word arms are the ones below, declared in src/ops/arith_impl.h).
 * Their ports are element ports (CN_PORT_ELEMENT): value ports when they hold the model's scalar
 * (everything above), or integer words of ONE sort i8 .. u64, on which the
 * operator computes PyTorch's integer meaning, without gradients (a word node never receives a
 * cotangent; the pullback and jvp arms see floats only).  out_sort refuses operands of two sorts
 * ("add: input 1 holds u8 where input 0 holds i32") and Booleans: torch refuses sub and neg on
 * bool and reads add and mul as or/and, so here no arithmetic operator takes Booleans ("add:
 * Booleans have no arithmetic ..."; cast them to an integer sort first; max, min, the
 * comparisons and select do take them).  A word of width N is computed on its N-bit pattern:
 *   add, sub, mul, neg  wrap modulo 2^N (two's complement when signed): i8 127 + 1 = -128,
 *            u8 0 - 1 = 255, neg of the minimum is the minimum.  Unsigned 64-bit arithmetic on the
 *            patterns has the right low N bits for both signednesses.
 *   div      TRUNC: the quotient rounded toward 0 (C's /); FLOOR: toward -inf (torch's
 *            div_floor_integer); unsigned: both the plain quotient.  TRUE (div .none) has no rule
 *            at words: out_sort refuses it ("div: true division (rounding none) of i32 words has
 *            no rule; ...").  The minimum divided by -1, 2^(N-1), wraps to the minimum (both
 *            modes): that is what torch computes for int8 and int16 on the CPU (C's promotion to
 *            int, then the narrowing store) and on CUDA for every width; torch's CPU kernel for
 *            int32 and int64 executes the machine division there, which traps (SIGFPE, pytorch
 *            issues 127804 and 190042), so the wrap is the one defined answer torch gives.
 *   remainder  torch.remainder: r = a - floor(a / b) b, the sign of the divisor (C's %, then + b
 *            when the signs differ); the minimum modulo -1 is 0.
 *   pow      a^e by repeated squaring, every product wrapping (so a^e modulo 2^N); 0^0 = 1.  A
 *            negative exponent is refused with torch's message "Integers to negative integer
 *            powers are not allowed" (torch checks it for a scalar exponent; its tensor kernel
 *            would return 0, or +-1 for a base +-1 - the rule takes the check).
 *   A division or remainder by the word 0 (torch: "ZeroDivisionError") and a negative exponent
 *   fail the forward with CN_ENUMERIC and a message naming the operator and node, every entry
 *   checked before any output is written.
 *   IBP      (the sort read from the node view, nv->in_sort) each input box is read as the words
 *            it holds, [ceil l, floor h] cut to the sort's range (none, or a NaN end: CN_ENUMERIC);
 *            the EXACT range [r0, r1] of the operator on those integers is formed in GMP: sums and
 *            differences of the ends, the hull of the corner products, the floor (trunc) of the
 *            corner quotients (a / b is monotone in each argument when b keeps its sign, and
 *            floor, trunc are nondecreasing), for remainder the bounds [0, b1 - 1] (b > 0) or
 *            [b0 + 1, 0] (b < 0), tightened by r <= a (a >= 0, b > 0), r >= a (a <= 0, b < 0) and,
 *            where floor(a / b) is one integer k on the whole box, by a - k b; for pow the hull of
 *            a^e over a in {a0, a1, -1, 0, 1} and e in {e0, e0 + 1, e1 - 1, e1} inside the boxes
 *            (for each e the extremes over a lie at a0, a1 or 0; for each such a those over e at
 *            the two smallest or the two largest exponents), or the whole range where such a
 *            power passes 2^320 (a box that is not a point then spans every word).  Then the
 *            wrap: a real result v is the word v - k 2^N, k = floor((v - min) / 2^N), which is
 *            increasing while k is constant, so when r0 and r1 share k (in particular whenever
 *            nothing wraps: k = 0, the exact result) the box is [r0 - k 2^N, r1 - k 2^N], else the
 *            sort's whole range [cn__dtype_min, cn__dtype_max].  At a point this is the forward's
 *            word (a point pow is taken modulo 2^N directly).  The ends are written rounded
 *            outward (exact below 2^53).  A divisor box holding the word 0, or an exponent box a
 *            negative word, is CN_ENUMERIC (the forward fails at such a point).
 *   MPFI     the same on the enclosures (ceil and floor of the ends by mpfr_get_z), written with
 *            mpfi_interv_z: exact at points, wrapping included.
 *   CROWN    at words the node is discharged over its own IBP box (cn__crown_own_box): the
 *            linear relaxations of the reals do not survive a wrap. */
#include <config.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "core/parallel.h"
#include "ops/arith_impl.h"
#include "ops/unary_impl.h"

/* ---- shared helpers ------------------------------------------------------------------- */

/* A lower bound of the real z, given c = fl(z) for ONE rounding. */
static inline double
end_lo (double c)
{
  if (c == INFINITY)
    return DBL_MAX;
  double r = cn__down (c);
  return isnan (r) ? -INFINITY : r;
}

/* An upper bound of the real z, given c = fl(z) for ONE rounding. */
static inline double
end_hi (double c)
{
  if (c == -INFINITY)
    return -DBL_MAX;
  double r = cn__up (c);
  return isnan (r) ? INFINITY : r;
}

static int
nthreads (const cn_crown_step *st)
{
  return st->threads > 0 ? st->threads : 1;
}

/* The out_sort arm of the arithmetic operators (add, sub, mul, div, neg, pow, remainder): the
 * N_IN element ports hold one sort, the model's scalar or one integer sort; Booleans are refused
 * (see the header).  OUT is that sort (CN_DTYPE_F64 for the model's scalar). */
static cn_status
arith_out_sort (const char *op, int n_in, const cn_dtype *in, cn_dtype *out, cn_error *err)
{
  cn_status st = cn__element_sort (op, n_in, in, out, err);
  if (st == CN_OK && *out == CN_DTYPE_BOOL)
    return cn_error_set (err, CN_EINVAL, "%s: Booleans have no arithmetic (the inputs hold bool); cast them to an "
                         "integer sort first", op);
  return st;
}

cn_status
cn__arith_out_sort (const struct cn_op_rule *rule, const void *p, int n_in, const cn_dtype *in, cn_dtype *out,
                    cn_error *err)
{
  (void) p;
  return arith_out_sort (cn_op_name (rule->op), n_in, in, out, err);
}

/* ---- integer words (the seed's element argument; see "Element sorts" in the header) ----- */

/* The result of OP on the words of patterns P and Q (Q unused by neg) as a pattern modulo 2^64,
 * whose low N bits are the result's word.  Unsigned arithmetic modulo 2^64 agrees with the words'
 * arithmetic modulo 2^N in the low N bits, for both signednesses (two's complement), so +, -, *,
 * negation and the repeated squaring of pow wrap as torch's do.  Division and remainder read the
 * values (sign-extended) and need Q != 0; pow needs an exponent value >= 0 (word_domain). */
static uint64_t
word_apply (enum cn__wop op, const cn__wsort *s, uint64_t p, uint64_t q)
{
  switch (op)
    {
    case CN__WOP_ADD: return p + q;
    case CN__WOP_SUB: return p - q;
    case CN__WOP_MUL: return p * q;
    case CN__WOP_NEG: return 0 - p;
    case CN__WOP_POW:
      {
        uint64_t r = 1, b = p, e = s->sgn ? (uint64_t) cn__word_sext (s, q) : q;
        /* now r b^e = p^e' (mod 2^64) for the exponent e' of Q, and stays so below */
        while (e != 0)
          {
            if (e & 1)
              r *= b;
            b *= b;
            e >>= 1;
          }
        return r;
      }
    default:
      break;
    }
  if (!s->sgn)
    return op == CN__WOP_REM ? p % q : p / q;   /* trunc = floor on unsigned words */
  int64_t a = cn__word_sext (s, p), b = cn__word_sext (s, q);
  if (b == -1)
    return op == CN__WOP_REM ? 0 : 0 - (uint64_t) a;   /* -a modulo 2^64: min / -1 wraps to min */
  int64_t t = a / b, r = a % b;                 /* b != 0, -1: no overflow; t truncated, r of a's sign */
  int adj = r != 0 && ((r < 0) != (b < 0));     /* the floor differs from trunc by one */
  if (op == CN__WOP_DIV_TRUNC)
    return (uint64_t) t;
  if (op == CN__WOP_DIV_FLOOR)
    return (uint64_t) (adj ? t - 1 : t);         /* |t| <= 2^62 here */
  return (uint64_t) (adj ? r + b : r);          /* torch.remainder: the sign of the divisor */
}

/* Refuses the divisor or exponent of pattern Q at entry J outside OP's domain. */
static cn_status
word_domain (const char *opn, enum cn__wop op, const cn__wsort *s, uint64_t q, const cn_node_view *nv, int64_t j,
             cn_error *err)
{
  if ((op == CN__WOP_DIV_TRUNC || op == CN__WOP_DIV_FLOOR || op == CN__WOP_REM) && q == 0)
    return cn_error_set (err, CN_ENUMERIC, "%s: integer division by zero (ZeroDivisionError) at entry %lld (node '%s')",
                         opn, (long long) j, cn__node_name (nv));
  if (op == CN__WOP_POW && s->sgn && cn__word_sext (s, q) < 0)
    return cn_error_set (err, CN_ENUMERIC, "%s: Integers to negative integer powers are not allowed (exponent %lld at "
                         "entry %lld, node '%s')", opn, (long long) cn__word_sext (s, q), (long long) j, cn__node_name (nv));
  return CN_OK;
}

/* Whether the tensors IN and OUT are words of one sort with the node's element count (the
 * builder's checks and out_sort guarantee it). */
static int
word_tensors_match (const cn_node_view *nv, const cn_tensor *const *in, const cn_tensor *out)
{
  cn__wsort s;
  int64_t n = cn__numel (nv->out_shape);
  if (!cn__wsort_of (out->dtype, &s) || cn_tensor_numel (out) != n)
    return 0;
  for (int i = 0; i < nv->n_in; i++)
    if (in[i]->dtype != out->dtype || cn_tensor_numel (in[i]) != n)
      return 0;
  return 1;
}

/* The forward of OP on word tensors of one sort: every entry's operands are checked first
 * (word_domain), so that nothing is written unless all of them have a value. */
cn_status
cn__word_forward (enum cn__wop op, const cn_node_view *nv, const cn_tensor *const *in, cn_tensor *out,
                  cn_error *err)
{
  const char *opn = cn_op_name (nv->op);
  cn__wsort s = { 0 };                 /* cn__wsort_of fills it: the assertion says it succeeds */
  int64_t n = cn__numel (nv->out_shape);
  int words = cn__wsort_of (out->dtype, &s);
  CN__ASSERTD (op != CN__WOP_NONE && words && word_tensors_match (nv, in, out));
  int binary = op != CN__WOP_NEG;
  if (op == CN__WOP_DIV_TRUNC || op == CN__WOP_DIV_FLOOR || op == CN__WOP_REM || op == CN__WOP_POW)
    for (int64_t j = 0; j < n; j++)
      {
        cn_status st = word_domain (opn, op, &s, cn__word_load (in[1]->data, s.w, j), nv, j, err);
        if (st != CN_OK)
          return st;
      }
  /* now every entry is in OP's domain */
  for (int64_t j = 0; j < n; j++)
    {
      uint64_t p = cn__word_load (in[0]->data, s.w, j), q = binary ? cn__word_load (in[1]->data, s.w, j) : 0;
      cn__word_store (out->data, s.w, j, word_apply (op, &s, p, q));
    }
  return CN_OK;
}

/* ---- the words' IBP and MPFI arms: exact integer ranges (GMP), then the wrap ------------- */

/* Scratch integers: the operands' words [a0, a1] and [b0, b1], the result range [r0, r1], the
 * sort's least and greatest words and 2^N. */
struct wz
{
  mpz_t a0, a1, b0, b1, r0, r1, t, u, min, max, span;
};

static void
wz_init (struct wz *z, const cn__wsort *s)
{
  mpz_inits (z->a0, z->a1, z->b0, z->b1, z->r0, z->r1, z->t, z->u, z->min, z->max, z->span, (mpz_ptr) 0);
  mpz_ui_pow_ui (z->span, 2, (unsigned long) s->w);
  if (s->sgn)
    {
      mpz_tdiv_q_2exp (z->max, z->span, 1);
      mpz_neg (z->min, z->max);
      mpz_sub_ui (z->max, z->max, 1);
    }
  else
    {
      mpz_set_ui (z->min, 0);
      mpz_sub_ui (z->max, z->span, 1);
    }
}

static void
wz_clear (struct wz *z)
{
  mpz_clears (z->a0, z->a1, z->b0, z->b1, z->r0, z->r1, z->t, z->u, z->min, z->max, z->span, (mpz_ptr) 0);
}

/* The words of the sort in the box [L, H]: [ceil L, floor H] cut to [min, max], into [A, B].
 * Returns 0 for a NaN end or no word. */
static int
box_words (const struct wz *z, double l, double h, mpz_ptr a, mpz_ptr b)
{
  if (isnan (l) || isnan (h))
    return 0;
  double c = ceil (l), f = floor (h);
  /* mpz_cmp_d takes infinities: an infinite end is cut to the range below */
  if (c > f || mpz_cmp_d (z->max, c) < 0 || mpz_cmp_d (z->min, f) > 0)
    return 0;
  if (mpz_cmp_d (z->min, c) >= 0)
    mpz_set (a, z->min);
  else
    mpz_set_d (a, c);                   /* exact: c is an integer */
  if (mpz_cmp_d (z->max, f) <= 0)
    mpz_set (b, z->max);
  else
    mpz_set_d (b, f);
  return 1;
}

/* The same for an MPFI enclosure X. */
static int
mpfi_box_words (const struct wz *z, mpfi_srcptr x, mpz_ptr a, mpz_ptr b)
{
  if (mpfi_nan_p (x) || mpfr_cmp (&x->left, &x->right) > 0 || mpfr_cmp_z (&x->left, z->max) > 0
      || mpfr_cmp_z (&x->right, z->min) < 0)
    return 0;
  if (mpfr_cmp_z (&x->left, z->min) <= 0)
    mpz_set (a, z->min);
  else
    mpfr_get_z (a, &x->left, MPFR_RNDU);    /* ceil of a finite end */
  if (mpfr_cmp_z (&x->right, z->max) >= 0)
    mpz_set (b, z->max);
  else
    mpfr_get_z (b, &x->right, MPFR_RNDD);   /* floor */
  return mpz_cmp (a, b) <= 0;
}

/* Widens [r0, r1] (empty when *FIRST) by V. */
static void
wz_hull (struct wz *z, mpz_srcptr v, int *first)
{
  if (*first || mpz_cmp (v, z->r0) < 0)
    mpz_set (z->r0, v);
  if (*first || mpz_cmp (v, z->r1) > 0)
    mpz_set (z->r1, v);
  *first = 0;
}

enum { WR_RANGE, WR_WHOLE, WR_NO_VALUE };

/* pow over the words [a0, a1] and the exponents [b0, b1] (b0 >= 0): the exact range of the real
 * a^e into [r0, r1] (WR_RANGE), or WR_WHOLE where a candidate is too large to be worth forming
 * (above 2^320 in magnitude: a box that is not a point then spans more than 2^N words anyway). */
static int
pow_range (struct wz *z)
{
  mpz_t ca[5], ce[4];
  int na = 0, ne = 0, r = WR_RANGE, first = 1;
  for (int k = 0; k < 5; k++)
    mpz_init (ca[k]);
  for (int k = 0; k < 4; k++)
    mpz_init (ce[k]);
  /* for each e the extremes over a are at a0, a1 or 0 (even e: |a|^e; odd e: increasing); for
   * each such a the extremes over e are at e0, e0 + 1, e1 - 1 or e1 (|a| >= 2: |a|^e increasing
   * with the sign of a^e alternating; a in {-1, 0, 1}: the parity and e = 0 decide) */
  mpz_set (ca[na++], z->a0);
  mpz_set (ca[na++], z->a1);
  for (long v = -1; v <= 1; v++)
    if (mpz_cmp_si (z->a0, v) <= 0 && mpz_cmp_si (z->a1, v) >= 0)
      mpz_set_si (ca[na++], v);
  mpz_set (ce[ne++], z->b0);
  mpz_set (ce[ne++], z->b1);
  if (mpz_cmp (z->b0, z->b1) < 0)
    {
      mpz_add_ui (ce[ne++], z->b0, 1);
      mpz_sub_ui (ce[ne++], z->b1, 1);
    }
  for (int i = 0; i < na && r == WR_RANGE; i++)
    for (int k = 0; k < ne && r == WR_RANGE; k++)
      {
        mpz_srcptr a = ca[i], e = ce[k];
        if (mpz_cmpabs_ui (a, 1) <= 0)
          {
            /* a in {-1, 0, 1}: 1 at e = 0; else a, or 1 for a = -1 and e even */
            if (mpz_sgn (e) == 0)
              mpz_set_ui (z->t, 1);
            else if (mpz_sgn (a) < 0 && mpz_even_p (e))
              mpz_set_ui (z->t, 1);
            else
              mpz_set (z->t, a);
          }
        else if (mpz_cmp_ui (e, 320) > 0 || mpz_get_ui (e) * mpz_sizeinbase (a, 2) > 320)
          r = WR_WHOLE;
        else
          mpz_pow_ui (z->t, a, mpz_get_ui (e));
        if (r == WR_RANGE)
          wz_hull (z, z->t, &first);
      }
  for (int k = 0; k < 5; k++)
    mpz_clear (ca[k]);
  for (int k = 0; k < 4; k++)
    mpz_clear (ce[k]);
  return r;
}

/* The exact range [r0, r1] of the real results of OP over the integers a in [a0, a1] and b in
 * [b0, b1] (see the header), WR_WHOLE when only the sort's range is claimed, or WR_NO_VALUE where
 * the box holds a point outside OP's domain (a zero divisor, a negative exponent). */
static int
word_range (enum cn__wop op, const cn__wsort *s, struct wz *z)
{
  int first = 1;
  switch (op)
    {
    case CN__WOP_ADD:
      mpz_add (z->r0, z->a0, z->b0);
      mpz_add (z->r1, z->a1, z->b1);
      return WR_RANGE;
    case CN__WOP_SUB:
      mpz_sub (z->r0, z->a0, z->b1);
      mpz_sub (z->r1, z->a1, z->b0);
      return WR_RANGE;
    case CN__WOP_NEG:
      mpz_neg (z->r0, z->a1);
      mpz_neg (z->r1, z->a0);
      return WR_RANGE;
    case CN__WOP_MUL:
      /* a b is bilinear: its extremes over the rectangle are corner products */
      for (int k = 0; k < 4; k++)
        {
          mpz_mul (z->t, k & 1 ? z->a1 : z->a0, k & 2 ? z->b1 : z->b0);
          wz_hull (z, z->t, &first);
        }
      return WR_RANGE;
    case CN__WOP_POW:
      if (s->sgn && mpz_sgn (z->b0) < 0)
        return WR_NO_VALUE;
      return pow_range (z);
    default:
      break;
    }
  /* division and remainder: a divisor box on one side of 0 */
  if (mpz_sgn (z->b0) <= 0 && mpz_sgn (z->b1) >= 0)
    return WR_NO_VALUE;
  /* a / b is monotone in a and in b on the box (b of one sign), so the floor (or trunc) of the
   * quotient, nondecreasing, takes its extremes at the corners: [t, u] below */
  for (int k = 0; k < 4; k++)
    {
      mpz_srcptr a = k & 1 ? z->a1 : z->a0, b = k & 2 ? z->b1 : z->b0;
      if (op == CN__WOP_DIV_TRUNC)
        mpz_tdiv_q (z->r1, a, b);
      else
        mpz_fdiv_q (z->r1, a, b);
      if (k == 0 || mpz_cmp (z->r1, z->t) < 0)
        mpz_set (z->t, z->r1);
      if (k == 0 || mpz_cmp (z->r1, z->u) > 0)
        mpz_set (z->u, z->r1);
    }
  if (op != CN__WOP_REM)
    {
      mpz_set (z->r0, z->t);
      mpz_set (z->r1, z->u);
      return WR_RANGE;
    }
  /* remainder r = a - floor(a / b) b: 0 <= r <= b - 1 (and r <= a for a >= 0) when b > 0, and
   * b + 1 <= r <= 0 (r >= a for a <= 0) when b < 0 */
  if (mpz_sgn (z->b0) > 0)
    {
      mpz_set_ui (z->r0, 0);
      mpz_sub_ui (z->r1, z->b1, 1);
      if (mpz_sgn (z->a0) >= 0 && mpz_cmp (z->a1, z->r1) < 0)
        mpz_set (z->r1, z->a1);
    }
  else
    {
      mpz_add_ui (z->r0, z->b0, 1);
      mpz_set_ui (z->r1, 0);
      if (mpz_sgn (z->a1) <= 0 && mpz_cmp (z->a0, z->r0) > 0)
        mpz_set (z->r0, z->a0);
    }
  if (mpz_cmp (z->t, z->u) == 0)
    {
      /* k = floor(a / b) is one integer t on the box: r = a - t b, of range
       * [a0 - max(t b0, t b1), a1 - min(t b0, t b1)], intersected with the bounds above */
      mpz_mul (z->u, z->t, z->b0);
      mpz_mul (z->t, z->t, z->b1);
      if (mpz_cmp (z->u, z->t) > 0)
        mpz_swap (z->u, z->t);
      /* now u = min(k b0, k b1), t = max */
      mpz_sub (z->t, z->a0, z->t);
      mpz_sub (z->u, z->a1, z->u);
      if (mpz_cmp (z->t, z->r0) > 0)
        mpz_set (z->r0, z->t);
      if (mpz_cmp (z->u, z->r1) < 0)
        mpz_set (z->r1, z->u);
    }
  return WR_RANGE;
}

/* The words of the sort that the real results [r0, r1] wrap to, into [r0, r1]: a real result v
 * wraps to v - k 2^N with k = floor((v - min) / 2^N), increasing while k is constant; so [r0 - k
 * 2^N, r1 - k 2^N] when both ends share k (a range inside the sort has k = 0: exact), else the
 * sort's whole range [min, max]. */
static void
wz_wrap (struct wz *z, int whole)
{
  if (!whole)
    {
      mpz_sub (z->t, z->r0, z->min);
      mpz_fdiv_q (z->t, z->t, z->span);
      mpz_sub (z->u, z->r1, z->min);
      mpz_fdiv_q (z->u, z->u, z->span);
      if (mpz_cmp (z->t, z->u) == 0)
        {
          mpz_mul (z->t, z->t, z->span);
          mpz_sub (z->r0, z->r0, z->t);
          mpz_sub (z->r1, z->r1, z->t);
          return;
        }
    }
  mpz_set (z->r0, z->min);
  mpz_set (z->r1, z->max);
}

/* The words' range of OP at one entry, the operands' words in z: WR_NO_VALUE, or the wrapped
 * words in [r0, r1].  A point pow is computed modulo 2^N directly (its real value may be huge). */
static int
word_entry (enum cn__wop op, const cn__wsort *s, struct wz *z)
{
  if (op == CN__WOP_POW && mpz_cmp (z->a0, z->a1) == 0 && mpz_cmp (z->b0, z->b1) == 0 && mpz_sgn (z->b0) >= 0)
    {
      mpz_powm (z->r0, z->a0, z->b0, z->span);   /* in [0, 2^N) */
      if (mpz_cmp (z->r0, z->max) > 0)
        mpz_sub (z->r0, z->r0, z->span);
      mpz_set (z->r1, z->r0);
      return WR_RANGE;
    }
  int r = word_range (op, s, z);
  if (r != WR_NO_VALUE)
    wz_wrap (z, r == WR_WHOLE);
  return r == WR_NO_VALUE ? WR_NO_VALUE : WR_RANGE;
}

/* Whether the view's inputs all hold one word sort (out_sort refused Booleans and two sorts), and
 * that sort into *S. */
static int
word_sort_of_view (const cn_node_view *nv, cn__wsort *s)
{
  if (!cn__wsort_of (nv->in_sort[0], s))
    return 0;
  for (int i = 1; i < nv->n_in; i++)
    if (nv->in_sort[i] != nv->in_sort[0])
      return 0;
  return 1;
}

static cn_status
word_no_value (const char *opn, enum cn__wop op, const cn_node_view *nv, int64_t j, cn_error *err)
{
  if (op == CN__WOP_POW)
    return cn_error_set (err, CN_ENUMERIC, "%s: the exponent's box at entry %lld holds a negative word (Integers to "
                         "negative integer powers are not allowed) (node '%s')", opn, (long long) j,
                         cn__node_name (nv));
  return cn_error_set (err, CN_ENUMERIC, "%s: the divisor's box at entry %lld holds the word 0 (integer division by "
                       "zero) (node '%s')", opn, (long long) j, cn__node_name (nv));
}

/* IBP at words (the sort from the node view): each box read as the words it holds, the exact
 * range of OP, wrapped (word_entry), its ends rounded outward to doubles. */
cn_status
cn__word_ibp (enum cn__wop op, const cn_node_view *nv, const cn_box *const *in, cn_box *out, cn_error *err)
{
  const char *opn = cn_op_name (nv->op);
  cn__wsort s = { 0 };                 /* word_sort_of_view fills it: the assertion says it succeeds */
  int words = word_sort_of_view (nv, &s);
  CN__ASSERTD (op != CN__WOP_NONE && words && cn__boxes_match (nv, in, out));
  cn_status st = CN_OK;
  struct wz z;
  mpfr_t e;
  wz_init (&z, &s);
  mpfr_init2 (e, 128);
  for (int64_t j = 0; j < out->n && st == CN_OK; j++)
    {
      for (int i = 0; i < nv->n_in; i++)
        if (!box_words (&z, in[i]->lo[j], in[i]->hi[j], i ? z.b0 : z.a0, i ? z.b1 : z.a1))
          {
            st = cn_error_set (err, CN_ENUMERIC, "%s: input %d's box [%g, %g] at entry %lld holds no %s word (node "
                               "'%s')", opn, i, in[i]->lo[j], in[i]->hi[j], (long long) j, cn_dtype_name (s.t),
                               cn__node_name (nv));
            break;
          }
      if (st != CN_OK)
        break;
      if (word_entry (op, &s, &z) == WR_NO_VALUE)
        {
          st = word_no_value (opn, op, nv, j, err);
          break;
        }
      /* now [r0, r1] holds OP's word at every point of the boxes; the ends are below 2^64 in
       * magnitude, exact at 128 bits, then rounded outward */
      mpfr_set_z (e, z.r0, MPFR_RNDN);
      out->lo[j] = mpfr_get_d (e, MPFR_RNDD);
      mpfr_set_z (e, z.r1, MPFR_RNDN);
      out->hi[j] = mpfr_get_d (e, MPFR_RNDU);
    }
  mpfr_clear (e);
  wz_clear (&z);
  return st;
}

/* MPFI at words: the same on the enclosures, written with mpfi_interv_z (exact at precision >=
 * 64, rounded outward below). */
cn_status
cn__word_mpfi (enum cn__wop op, const cn_node_view *nv, const cn_mpfi_vec *const *in, cn_mpfi_vec *out,
               cn_error *err)
{
  const char *opn = cn_op_name (nv->op);
  cn__wsort s = { 0 };                 /* word_sort_of_view fills it: the assertion says it succeeds */
  int words = word_sort_of_view (nv, &s);
  CN__ASSERTD (op != CN__WOP_NONE && words && cn__mpfi_match (nv, in, out));
  cn_status st = CN_OK;
  struct wz z;
  wz_init (&z, &s);
  for (int64_t j = 0; j < out->n && st == CN_OK; j++)
    {
      for (int i = 0; i < nv->n_in; i++)
        if (!mpfi_box_words (&z, in[i]->v[j], i ? z.b0 : z.a0, i ? z.b1 : z.a1))
          {
            st = cn_error_set (err, CN_ENUMERIC, "%s: input %d's enclosure at entry %lld holds no %s word (node '%s')",
                               opn, i, (long long) j, cn_dtype_name (s.t), cn__node_name (nv));
            break;
          }
      if (st != CN_OK)
        break;
      if (word_entry (op, &s, &z) == WR_NO_VALUE)
        {
          st = word_no_value (opn, op, nv, j, err);
          break;
        }
      mpfi_interv_z (out->v[j], z.r0, z.r1);
    }
  wz_clear (&z);
  return st;
}

/* ---- the operators' data ------------------------------------------------------------- */

/* The kernels of one binary operation (add, sub, mul, and div in each rounding mode): the forward
 * loops o[j] = fl(a[j] op b[j]) in binary64 and in binary32, the sound box of one entry from the
 * input boxes [xl, xu] and [yl, yu], the MPFI enclosure of one entry (L and R are scratch numbers
 * at the output's precision), and the operation on integer words (CN__WOP_NONE for true
 * division, which has none). */
struct arith_kernel
{
  void (*fd) (const double *a, const double *b, double *o, int64_t n);
  void (*ff) (const float *a, const float *b, float *o, int64_t n);
  void (*box) (double xl, double xu, double yl, double yu, double *lo, double *hi);
  void (*mpfi) (mpfi_ptr o, mpfi_srcptr x, mpfi_srcptr y, mpfr_ptr l, mpfr_ptr r);
  enum cn__wop word;
};

/* What the shared arms read of one arithmetic operator (its rule's impl): its kernels (add, sub
 * and mul one set; div one set per rounding mode, KERNEL[rounding] when BY_ROUNDING), for add, sub
 * and neg the signs of the linear map v = SG[0] x + SG[1] y, and for mul and div whether CROWN's
 * constant operand multiplies (DIVIDE = 0) or divides (DIVIDE = 1). */
struct arith_impl
{
  const struct arith_kernel *kernel;
  int by_rounding;
  double sg[2];
  int divide;
};

/* The kernels of the node's operator (and of its rounding mode). */
static const struct arith_kernel *
arith_kernel_of (const cn_node_view *nv)
{
  const struct arith_impl *d = nv->rule->impl;
  if (!d->by_rounding)
    return d->kernel;
  return &d->kernel[((const cn_params_div *) nv->params)->rounding];
}

/* ---- forward -------------------------------------------------------------------------- */

/* torch's c10::div_floor_floating, in double and in float. */
static double
div_floor_d (double a, double b)
{
  if (b == 0)
    return a / b;
  double mod = fmod (a, b);
  double div = (a - mod) / b;
  if (mod != 0 && (b < 0) != (mod < 0))
    div -= 1;
  double fd;
  if (div != 0)
    {
      fd = floor (div);
      if (div - fd > 0.5)
        fd += 1;
    }
  else
    fd = copysign (0.0, a / b);
  return fd;
}

static float
div_floor_f (float a, float b)
{
  if (b == 0)
    return a / b;
  float mod = fmodf (a, b);
  float div = (a - mod) / b;
  if (mod != 0 && (b < 0) != (mod < 0))
    div -= 1.0f;
  float fd;
  if (div != 0)
    {
      fd = floorf (div);
      if (div - fd > 0.5f)
        fd += 1.0f;
    }
  else
    fd = copysignf (0.0f, a / b);
  return fd;
}

/* The forward loop NAME over entries of the sort T: o[j] = EXPR, one operation per entry rounded
 * to nearest in T (div TRUNC and FLOOR: the quotient, then an exact trunc or torch's floor). */
#define BINARY_LOOP(NAME, T, EXPR)                                                              \
  static void                                                                                   \
  NAME (const T *a, const T *b, T *o, int64_t n)                                                \
  {                                                                                             \
    for (int64_t j = 0; j < n; j++)                                                             \
      o[j] = (EXPR);                                                                            \
  }

BINARY_LOOP (add_fd, double, a[j] + b[j])
BINARY_LOOP (sub_fd, double, a[j] - b[j])
BINARY_LOOP (mul_fd, double, a[j] * b[j])
BINARY_LOOP (div_fd, double, a[j] / b[j])
BINARY_LOOP (div_trunc_fd, double, trunc (a[j] / b[j]))
BINARY_LOOP (div_floor_fd, double, div_floor_d (a[j], b[j]))
BINARY_LOOP (add_ff, float, a[j] + b[j])
BINARY_LOOP (sub_ff, float, a[j] - b[j])
BINARY_LOOP (mul_ff, float, a[j] * b[j])
BINARY_LOOP (div_ff, float, a[j] / b[j])
BINARY_LOOP (div_trunc_ff, float, truncf (a[j] / b[j]))
BINARY_LOOP (div_floor_ff, float, div_floor_f (a[j], b[j]))

/* add, sub, mul, div: the kernel's loop at the model's scalar, the words' forward at words. */
static cn_status
binary_forward (const cn_node_view *nv, const cn_tensor *const *in, cn_tensor *out, cn_error *err)
{
  const struct arith_kernel *k = arith_kernel_of (nv);
  if (!cn_dtype_is_float (out->dtype))
    return cn__word_forward (k->word, nv, in, out, err);   /* div_out_sort refused true division */
  CN__ASSERTD (cn__tensors_match (nv, in, out));
  int64_t n = cn_tensor_numel (out);
  if (out->dtype == CN_DTYPE_F64)
    k->fd (in[0]->data, in[1]->data, out->data, n);
  else
    k->ff (in[0]->data, in[1]->data, out->data, n);
  return CN_OK;
}

/* ---- IBP ------------------------------------------------------------------------------ */

/* Candidates for the hull of x*y at one corner: *lo <= x*y <= *hi (0 * inf := 0). */
static inline void
prod_cand (double x, double y, double *lo, double *hi)
{
  if (x == 0 || y == 0)
    {
      *lo = *hi = 0;
      return;
    }
  double p = x * y;
  *lo = end_lo (p);
  *hi = end_hi (p);
}

/* Candidates for the hull of x/y at one corner (y != 0 on the box). */
static inline void
quot_cand (double x, double y, double *lo, double *hi)
{
  if (x == 0)
    {
      *lo = *hi = 0;
      return;
    }
  if (isinf (y))
    {
      if (isinf (x))
        {
          /* the limit set of x/y there is sign * [0, +inf] */
          int neg = (x < 0) != (y < 0);
          *lo = neg ? -INFINITY : 0;
          *hi = neg ? 0 : INFINITY;
        }
      else
        *lo = *hi = 0;
      return;
    }
  double q = x / y;
  *lo = end_lo (q);
  *hi = end_hi (q);
}

/* The hull of the corner candidates of F over [xl, xu] x [yl, yu]. */
static void
corner_hull (void (*f) (double, double, double *, double *), double xl, double xu, double yl, double yu,
             double *lo, double *hi)
{
  double l[4], h[4];
  f (xl, yl, &l[0], &h[0]);
  f (xl, yu, &l[1], &h[1]);
  f (xu, yl, &l[2], &h[2]);
  f (xu, yu, &l[3], &h[3]);
  double a = l[0], b = h[0];
  for (int k = 1; k < 4; k++)
    {
      a = l[k] < a ? l[k] : a;
      b = h[k] > b ? h[k] : b;
    }
  /* now a <= x*y (or x/y) <= b over the box: every candidate is NaN-free */
  *lo = a;
  *hi = b;
}

/* The boxes of one entry: [*lo, *hi] contains x op y for every x in [xl, xu], y in [yl, yu]. */
static void
add_box (double xl, double xu, double yl, double yu, double *lo, double *hi)
{
  *lo = end_lo (xl + yl);
  *hi = end_hi (xu + yu);
}

static void
sub_box (double xl, double xu, double yl, double yu, double *lo, double *hi)
{
  *lo = end_lo (xl - yu);
  *hi = end_hi (xu - yl);
}

static void
mul_box (double xl, double xu, double yl, double yu, double *lo, double *hi)
{
  corner_hull (prod_cand, xl, xu, yl, yu, lo, hi);
}

static void
div_box (double xl, double xu, double yl, double yu, double *lo, double *hi)
{
  if (yl <= 0 && yu >= 0)
    {
      /* the divisor may be 0: nothing is known */
      *lo = -INFINITY;
      *hi = INFINITY;
      return;
    }
  corner_hull (quot_cand, xl, xu, yl, yu, lo, hi);
}

/* TRUNC and FLOOR: g(x/y) with g = trunc or floor nondecreasing, so [g(lo), g(hi)] from the TRUE
 * box (an infinite end stays infinite). */
static void
div_trunc_box (double xl, double xu, double yl, double yu, double *lo, double *hi)
{
  div_box (xl, xu, yl, yu, lo, hi);
  /* now lo <= x/y <= hi over the box */
  *lo = trunc (*lo);
  *hi = trunc (*hi);
}

static void
div_floor_box (double xl, double xu, double yl, double yu, double *lo, double *hi)
{
  div_box (xl, xu, yl, yu, lo, hi);
  *lo = floor (*lo);
  *hi = floor (*hi);
}

/* Whether NV is mul of one value by itself in the model's scalar (x * x); then SQ receives the
 * view of square(x) over the same input, whose arms the mul arms call. */
static int
mul_self_view (const cn_node_view *nv, cn_node_view *sq)
{
  if (nv->op != CN_OP_MUL || nv->in_value == NULL || nv->n_in != 2 || nv->in_value[0] != nv->in_value[1]
      || cn__word_view (nv))
    return 0;
  *sq = *nv;
  sq->op = CN_OP_SQUARE;
  sq->rule = cn__op_rule (CN_OP_SQUARE);
  sq->params = NULL;
  sq->n_in = 1;
  return sq->rule != NULL;
}

static cn_status
binary_ibp (const cn_node_view *nv, const cn_box *const *in, cn_box *out, cn_error *err)
{
  const struct arith_kernel *k = arith_kernel_of (nv);
  if (cn__word_view (nv))
    return cn__word_ibp (k->word, nv, in, out, err);
  cn_node_view sq;
  if (mul_self_view (nv, &sq))
    return sq.rule->ibp (&sq, in, out, err);
  CN__ASSERTD (cn__boxes_match (nv, in, out));
  const cn_box *x = in[0], *y = in[1];
  for (int64_t j = 0; j < out->n; j++)
    k->box (x->lo[j], x->hi[j], y->lo[j], y->hi[j], &out->lo[j], &out->hi[j]);
  return CN_OK;
}

/* ---- MPFI ----------------------------------------------------------------------------- */

static void
add_mpfi_k (mpfi_ptr o, mpfi_srcptr x, mpfi_srcptr y, mpfr_ptr l, mpfr_ptr r)
{
  (void) l, (void) r;
  mpfi_add (o, x, y);
}

static void
sub_mpfi_k (mpfi_ptr o, mpfi_srcptr x, mpfi_srcptr y, mpfr_ptr l, mpfr_ptr r)
{
  (void) l, (void) r;
  mpfi_sub (o, x, y);
}

static void
mul_mpfi_k (mpfi_ptr o, mpfi_srcptr x, mpfi_srcptr y, mpfr_ptr l, mpfr_ptr r)
{
  (void) l, (void) r;
  mpfi_mul (o, x, y);
}

/* x / y; a divisor enclosure holding 0 (or NaN) gives [-inf, +inf], and the result 0. */
static int
div_quot (mpfi_ptr o, mpfi_srcptr x, mpfi_srcptr y)
{
  if (mpfi_has_zero (y) || mpfi_nan_p (y))
    {
      mpfi_interv_d (o, -INFINITY, INFINITY);
      return 0;
    }
  mpfi_div (o, x, y);
  return 1;
}

static void
div_mpfi_k (mpfi_ptr o, mpfi_srcptr x, mpfi_srcptr y, mpfr_ptr l, mpfr_ptr r)
{
  (void) l, (void) r;
  div_quot (o, x, y);
}

/* TRUNC and FLOOR: the quotient's ends rounded to integers outward. */
static void
div_trunc_mpfi_k (mpfi_ptr o, mpfi_srcptr x, mpfi_srcptr y, mpfr_ptr l, mpfr_ptr r)
{
  if (!div_quot (o, x, y))
    return;
  mpfi_get_left (l, o);
  mpfi_get_right (r, o);
  mpfr_rint_trunc (l, l, MPFR_RNDD);
  mpfr_rint_trunc (r, r, MPFR_RNDU);
  mpfi_interv_fr (o, l, r);
}

static void
div_floor_mpfi_k (mpfi_ptr o, mpfi_srcptr x, mpfi_srcptr y, mpfr_ptr l, mpfr_ptr r)
{
  if (!div_quot (o, x, y))
    return;
  mpfi_get_left (l, o);
  mpfi_get_right (r, o);
  mpfr_rint_floor (l, l, MPFR_RNDD);
  mpfr_rint_floor (r, r, MPFR_RNDU);
  mpfi_interv_fr (o, l, r);
}

static cn_status
binary_mpfi (const cn_node_view *nv, const cn_mpfi_vec *const *in, cn_mpfi_vec *out, cn_error *err)
{
  const struct arith_kernel *k = arith_kernel_of (nv);
  if (cn__word_view (nv))
    return cn__word_mpfi (k->word, nv, in, out, err);
  cn_node_view sq;
  if (mul_self_view (nv, &sq))
    return sq.rule->ibp_mpfi (&sq, in, out, err);
  CN__ASSERTD (cn__mpfi_match (nv, in, out));
  if (out->n == 0)
    return CN_OK;
  mpfr_t l, r;
  mpfr_prec_t prec = mpfi_get_prec (out->v[0]);
  mpfr_init2 (l, prec);
  mpfr_init2 (r, prec);
  for (int64_t j = 0; j < out->n; j++)
    k->mpfi (out->v[j], in[0]->v[j], in[1]->v[j], l, r);
  mpfr_clear (l);
  mpfr_clear (r);
  return CN_OK;
}

/* ---- CROWN ---------------------------------------------------------------------------- */

/* Adds to bias[s] (with its charge) a lower bound of min over BOX of (SG * lam) . x, for an
 * input that takes no coefficients (a constant).  Selection form: the minimum is
 * sum_j c_j (c_j > 0 ? lo_j : hi_j) with c = SG * lam; fl of that sum is in the bias and its
 * (G) error in the charge. */
static void
absorb_row (const cn_crown_step *st, int64_t s, int64_t n, const double *lam, double sg, const cn_box *box)
{
  double d = 0, t = 0;
  int64_t cnt = 0;
  for (int64_t j = 0; j < n; j++)
    {
      double c = sg * lam[j];
      if (c == 0)
        continue;
      double x = c > 0 ? box->lo[j] : box->hi[j];
      if (x == 0)
        continue;
      if (isinf (x))
        {
          cn__crown_charge (st, s, INFINITY);
          return;
        }
      d += c * x;
      t += fabs (c) * fabs (x);
      cnt++;
    }
  /* now d = fl(c . sel) (zero terms left out: they are exact) and
   * |d - c . sel| <= cn__dot_err (t, cnt) by (G) */
  cn__crown_add_sum (st, s, d, t, cnt, 0);
}

/* absorb_row for a finite point box (a constant such as a bias, X = lo = hi): the same sum
 * c . x with every term kept (a zero term is exact), in four interleaved partial sums; (G)
 * holds for any order of summation, with the count N. */
static void
absorb_row_point (const cn_crown_step *st, int64_t s, int64_t n, const double *lam, double sg, const double *x)
{
  double d[4] = { 0, 0, 0, 0 }, t[4] = { 0, 0, 0, 0 };
  int64_t j = 0;
  for (; j + 4 <= n; j += 4)
    for (int q = 0; q < 4; q++)
      {
        double p = (sg * lam[j + q]) * x[j + q];
        d[q] += p;
        t[q] += fabs (p);
      }
  for (; j < n; j++)
    {
      double p = (sg * lam[j]) * x[j];
      d[0] += p;
      t[0] += fabs (p);
    }
  /* now (d0 + d1) + (d2 + d3) = fl(c . x) in some order and the same for t = fl(|c| . |x|):
   * sg = +-1 makes sg * lam exact, and |fl(c x)| = fl(|c| |x|) */
  cn__crown_add_sum (st, s, (d[0] + d[1]) + (d[2] + d[3]), (t[0] + t[1]) + (t[2] + t[3]), n, 0);
}

/* add, sub, neg: lam_in[i] = SG[i] * lam_out, exactly; constants discharged over their box. */
#define LINEAR_PORTS 2
static int box_is_point (const cn_box *b);
struct linear_rows_ctx
{
  const cn_crown_step *st;
  const double *sg;
  int64_t n;
  unsigned char point[LINEAR_PORTS];  /* input i is absorbed and its box is one finite point */
};

static void
linear_rows (void *p, int64_t first, int64_t last)
{
  const struct linear_rows_ctx *c = p;
  const cn_crown_step *st = c->st;
  const cn_node_view *nv = st->nv;
  int64_t n = c->n;
  for (int64_t s = first; s < last; s++)
    {
      const double *lo = st->lam_out + s * n;
      for (int i = 0; i < nv->n_in; i++)
        {
          if (st->lam_in[i] == NULL)
            {
              if (i < LINEAR_PORTS && c->point[i])
                absorb_row_point (st, s, n, lo, c->sg[i], st->in_box[i]->lo);
              else
                absorb_row (st, s, n, lo, c->sg[i], st->in_box[i]);
              continue;
            }
          double *li = st->lam_in[i] + s * n;
          if (c->sg[i] == 1)
            memcpy (li, lo, (size_t) n * sizeof *li);
          else
            for (int64_t j = 0; j < n; j++)
              li[j] = c->sg[i] * lo[j];
          /* now li = SG[i] lam_out exactly (a copy or a negation) */
        }
    }
}

/* add, sub, neg: lam_in[i] = SG[i] lam_out with the impl's signs; at words the node is discharged
 * over its own IBP box (the relaxations of the reals do not hold across a wrap). */
static cn_status
linear_crown (const cn_crown_step *st, cn_error *err)
{
  if (cn__word_view (st->nv))
    return cn__crown_own_box (st, err);
  const struct arith_impl *d = st->nv->rule->impl;
  int64_t n = cn__numel (st->nv->out_shape);
  struct linear_rows_ctx c = { .st = st, .sg = d->sg, .n = n };
  for (int i = 0; i < st->nv->n_in && i < LINEAR_PORTS; i++)
    c.point[i] = st->lam_in[i] == NULL && box_is_point (st->in_box[i]);
  cn__for_rows (st->rows, nthreads (st), st->rows * n > 65536, linear_rows, &c);
  return CN_OK;
}

/* Whether BOX is one finite point (a constant as far as the sweep's contract goes: every x
 * it considers has u(x) in BOX). */
static int
box_is_point (const cn_box *b)
{
  for (int64_t j = 0; j < b->n; j++)
    if (b->lo[j] != b->hi[j] || !isfinite (b->lo[j]))
      return 0;
  return 1;
}

/* x y for the multilinear kit: McCormick's planes (ALGORITHMS.md 3), the lower one
 * yl x + xl y - xl yl, the upper one yu x + xl y - xl yu (the kit computes the intercepts from the
 * corners, so the slopes are all it needs). */
static void
mul_at (mpfi_ptr y, const double *x, const void *p)
{
  (void) p;
  mpfi_set_d (y, x[0]);
  mpfi_mul_d (y, y, x[1]);
}
static void
mul_slopes (const double *lo, const double *hi, const void *p, double *kl, double *ku)
{
  (void) p;
  kl[0] = lo[1];
  kl[1] = lo[0];
  ku[0] = hi[1];
  ku[1] = lo[0];
}
static const cn__multilinear mul_planes = { .k = 2, .f_mpfi = mul_at, .slopes = mul_slopes };

/* mul by a constant factor, or div (TRUE) by a constant divisor: lam_x = fl(lam .* c) or
 * fl(lam ./ c).  At words the node is discharged over its own IBP box (the relaxations of the
 * reals do not hold across a wrap); div in the rounding modes TRUNC and FLOOR has no relaxation. */
/* The lines of a step whose arm takes no parameters from THETA (a constant factor, words): the
 * gradient's records say so, every derivative 0. */
static void
no_parameters (const cn_crown_step *st)
{
  if (st->theta == NULL || st->grad_a == NULL)
    return;
  size_t size = (size_t) (st->rows * st->n_out) * sizeof (double);
  memset (st->grad_a, 0, size);
  memset (st->grad_b, 0, size);
  if (st->grad_a2 != NULL)
    memset (st->grad_a2, 0, size);
}

/* The bilinear x y - kx x - ky y at the four corners of [xl, xu] x [yl, yu] (finite): a lower bound
 * of its least value (UPPER = 0) or an upper bound of its greatest, every operation moved outward
 * (cn__down, cn__up: for one rounding c = fl(z), down(c) <= z <= up(c)); a bilinear function takes
 * its extremes over a box at corners.  -inf / +inf where nothing finite is proved. */
static double
bilinear_extreme (double xl, double xu, double yl, double yu, double kx, double ky, int upper)
{
  double r = upper ? -INFINITY : INFINITY;
  for (int c = 0; c < 4; c++)
    {
      double x = c & 1 ? xu : xl, y = c & 2 ? yu : yl, q;
      if (upper)
        q = cn__up (cn__up (cn__up (x * y) - cn__down (kx * x)) - cn__down (ky * y));
      else
        q = cn__down (cn__down (cn__down (x * y) - cn__up (kx * x)) - cn__up (ky * y));
      /* now q <= x y - kx x - ky y (>= for UPPER) at this corner, in exact arithmetic */
      if (isnan (q))
        return upper ? INFINITY : -INFINITY;
      r = upper ? fmax (r, q) : fmin (r, q);
    }
  return r;
}

/* alpha-CROWN's step through x y, two variable factors, with one parameter r in [0, 1] per row
 * and entry: the mix of McCormick's two planes on the side the row's coefficient lam uses.
 *   below: P1 = yl x + xl y - xl yl and P2 = yu x + xu y - xu yu, and every r P1 + (1 - r) P2,
 *          since x y - P(r) = r (x - xl)(y - yl) + (1 - r)(xu - x)(yu - y) >= 0 on the box;
 *   above: Q1 = yu x + xl y - xl yu and Q2 = yl x + xu y - xu yl, and every r Q1 + (1 - r) Q2
 *          (Q(r) - x y = r (xu - x)... likewise: r (x - xl)(yu - y) + (1 - r)(xu - x)(y - yl) >= 0).
 * r = 1 gives CROWN's planes (mul_slopes).  The slopes are doubles computed from r (any double is
 * sound), the intercept bilinear_extreme's over the corners, so the plane holds in exact
 * arithmetic whatever r is.  A side without a finite intercept (or an input box with an infinite
 * end) takes slope 0 and the node's IBP end.  The derivative in r of kx x + ky y + b, with b taken
 * as the exact intercept of the mix (the planes' mix touches x y at the corners (xl, yu) and
 * (xu, yl), so it is r b1 + (1 - r) b2):
 *   below  (yl - yu) x + (xl - xu) y + xu yu - xl yl,
 *   above  (yu - yl) x + (xl - xu) y + xu yl - xl yu.
 * mul_mix_plane gives the plane of one entry (CTX: the node's IBP box); the step itself (rows,
 * records, charges) is cn__crown_planes2_theta's. */
static void
mul_mix_plane (const cn_crown_step *st, const void *ctx, int64_t j, int upper, double r, double *k, double *b,
               double *dk, double *db)
{
  const cn_box *out = ctx;
  double xl = st->in_box[0]->lo[j], xu = st->in_box[0]->hi[j], yl = st->in_box[1]->lo[j], yu = st->in_box[1]->hi[j];
  k[0] = upper ? r * yu + (1 - r) * yl : r * yl + (1 - r) * yu;
  k[1] = r * xl + (1 - r) * xu;
  int finite = isfinite (xl) && isfinite (xu) && isfinite (yl) && isfinite (yu) && isfinite (k[0]) && isfinite (k[1]);
  *b = finite ? bilinear_extreme (xl, xu, yl, yu, k[0], k[1], upper) : upper ? INFINITY : -INFINITY;
  /* now k . (x, y) + b <= x y (>= above) on the box, or b is infinite */
  if (!isfinite (*b))
    {
      /* the IBP end, which does not move with r */
      k[0] = k[1] = 0;
      *b = upper ? out->hi[j] : out->lo[j];
      return;
    }
  dk[0] = upper ? yu - yl : yl - yu;
  dk[1] = xl - xu;
  *db = upper ? xu * yl - xl * yu : xu * yu - xl * yl;
}

static cn_status
mul_alpha_step (const cn_crown_step *st, cn_error *err)
{
  cn_box out;
  cn_status rc = cn_box_init (&out, st->n_out, err);
  if (rc != CN_OK)
    return rc;
  /* out: a sound box of x y over the input boxes, for the sides without a finite plane */
  if ((rc = binary_ibp (st->nv, st->in_box, &out, err)) == CN_OK)
    rc = cn__crown_planes2_theta (st, "mul", &out, mul_mix_plane, err);
  cn_box_clear (&out);
  return rc;
}

/* mul's and div's READS_BOXES: mul with two variable factors (or one value twice), div with a
 * variable divisor (x times 1/y); with a constant factor or divisor the arm is affine. */
static int
product_reads_boxes (const cn_node_view *nv)
{
  if (nv->op == CN_OP_DIV)
    return nv->in_const[1] == NULL;
  return cn__two_varying (nv);
}

/* mul's ALPHA_TAKES: a value times itself, or two factors neither of which is a graph constant
 * (in the model's scalar). */
static int
mul_alpha_takes (const cn_node_view *nv)
{
  cn_node_view sq;
  return mul_self_view (nv, &sq) || (!cn__word_view (nv) && cn__two_varying (nv));
}

/* mul's ALPHA hook: x * x takes square's parameters (its tangent point); two variable factors one
 * plane mix r in [0, 1] per entry (mul_alpha_step), CROWN's planes at r = 1 (INIT, and NaN);
 * a constant factor has none (its entries keep 1, unread). */
static void
mul_alpha (const cn_node_view *nv, const cn_box *in, int slope, int init, double *theta)
{
  cn_node_view sq;
  if (mul_self_view (nv, &sq))
    {
      sq.rule->alpha (&sq, in, slope, init, theta);
      return;
    }
  int64_t n = cn__numel (nv->out_shape);
  for (int64_t j = 0; j < n; j++)
    if (init || isnan (theta[j]))
      theta[j] = 1;
    else
      theta[j] = theta[j] < 0 ? 0 : theta[j] > 1 ? 1 : theta[j];
}

static cn_status
product_crown (const cn_crown_step *st, cn_error *err)
{
  const cn_node_view *nv = st->nv;
  const struct arith_impl *d = nv->rule->impl;
  int divide = d->divide;
  if (cn__word_view (nv))
    {
      CN__ASSERTD (arith_kernel_of (nv)->word != CN__WOP_NONE);   /* div_out_sort refuses true division */
      no_parameters (st);
      return cn__crown_own_box (st, err);
    }
  if (divide && ((const cn_params_div *) nv->params)->rounding != CN_DIV_TRUE)
    return cn_error_set (err, CN_EUNSUPPORTED, "div: no CROWN relaxation for rounding mode %s (node '%s')",
                         ((const cn_params_div *) nv->params)->rounding == CN_DIV_TRUNC ? "trunc" : "floor",
                         nv->name);
  int64_t n = cn__numel (nv->out_shape);
  if (st->lam_in[0] == NULL && st->lam_in[1] == NULL)
    return cn_error_set (err, CN_EINVAL, "%s: CROWN step on constant inputs only (node '%s')", cn_op_name (nv->op),
                         nv->name);
  cn_node_view sq;
  if (mul_self_view (nv, &sq))
    {
      /* x * x = square(x): square's step writes lam_in[0] alone (lam_in[1] stays 0, and the
       * sweep adds both to x's coefficients) */
      cn_crown_step s2 = *st;
      s2.nv = &sq;
      s2.params = NULL;
      return sq.rule->crown (&s2, err);
    }
  /* The constant side CI: an input whose box is one point, the other side VI taking the
   * coefficients. */
  int ci, vi;
  if (divide)
    {
      ci = 1;
      vi = 0;
      if (!box_is_point (st->in_box[1]) || st->lam_in[0] == NULL)
        {
          /* a varying divisor: x times 1/y (cn__crown_times_fn) */
          static const double zero = 0;
          static const cn__times_fn quotient = { .add = -1, .ix = 0, .iy = 1, .scale = 1, .h = &cn__relax_inv_shift,
                                                 .hp = &zero };
          return cn__crown_times_fn (st, "div", &quotient, 2, binary_ibp, err);
        }
    }
  else if (st->lam_in[0] != NULL && box_is_point (st->in_box[1]))
    {
      ci = 1;
      vi = 0;
    }
  else if (st->lam_in[1] != NULL && box_is_point (st->in_box[0]))
    {
      ci = 0;
      vi = 1;
    }
  else if (st->theta != NULL)
    return mul_alpha_step (st, err);
  else
    return cn__crown_multilinear (st, "mul", &mul_planes, binary_ibp, err);
  no_parameters (st);
  const double *c = st->in_box[ci]->lo;
  double *lam_x = st->lam_in[vi];
#pragma omp parallel for num_threads(nthreads (st)) if (st->rows * n > 65536)
  for (int64_t s = 0; s < st->rows; s++)
    {
      const double *lo = st->lam_out + s * n;
      double *li = lam_x + s * n;
      int undefined = 0;
      for (int64_t j = 0; j < n; j++)
        {
          if (lo[j] == 0)
            continue;
          if (!divide)
            li[j] = lo[j] * c[j];
          else if (c[j] != 0)
            li[j] = lo[j] / c[j];
          else
            undefined = 1;
        }
      /* now li[j] = fl(lam_j c_j) or fl(lam_j / c_j), one rounding each (charged below) */
      if (undefined)
        cn__crown_charge (st, s, INFINITY);
    }
  cn__crown_charge_entrywise (st, lam_x, n, st->in_box[vi]);
  return CN_OK;
}

/* ---- pullbacks ------------------------------------------------------------------------ */

/* add, sub, neg: g_in[i] += SG[i] g (exact copies or negations, one rounded sum each). */
static cn_status
linear_pullback (const cn_node_view *nv, const cn_tensor *const *in, const cn_tensor *out, const double *g_out,
                 double *const *g_in, cn_error *err)
{
  (void) err;
  const double *sg = ((const struct arith_impl *) nv->rule->impl)->sg;
  CN__ASSERTD (cn__diff_match (nv, in, out));
  int64_t n = cn_tensor_numel (out);
  for (int i = 0; i < nv->n_in; i++)
    {
      double *gi = g_in[i];
      if (gi == NULL)
        continue;
      if (sg[i] > 0)
        for (int64_t j = 0; j < n; j++)
          gi[j] += g_out[j];
      else
        for (int64_t j = 0; j < n; j++)
          gi[j] -= g_out[j];
    }
  return CN_OK;
}

/* mul: g_x += g y and g_y += g x (reading the inputs, never the cotangents, so that a node
 * reading one value twice, x * x, gets 2 g x). */
static cn_status
mul_pullback (const cn_node_view *nv, const cn_tensor *const *in, const cn_tensor *out, const double *g_out,
              double *const *g_in, cn_error *err)
{
  (void) err;
  CN__ASSERTD (cn__diff_match (nv, in, out));
  int64_t n = cn_tensor_numel (out);
  const double *x = in[0]->data, *y = in[1]->data;
  if (g_in[0] != NULL)
    for (int64_t j = 0; j < n; j++)
      g_in[0][j] += g_out[j] * y[j];
  if (g_in[1] != NULL)
    for (int64_t j = 0; j < n; j++)
      g_in[1][j] += g_out[j] * x[j];
  return CN_OK;
}

/* div TRUE: with q = g / y, g_x += q and g_y -= q (x / y).  TRUNC, FLOOR: derivative 0. */
static cn_status
div_pullback (const cn_node_view *nv, const cn_tensor *const *in, const cn_tensor *out, const double *g_out,
              double *const *g_in, cn_error *err)
{
  (void) err;
  CN__ASSERTD (cn__diff_match (nv, in, out));
  if (((const cn_params_div *) nv->params)->rounding != CN_DIV_TRUE)
    return CN_OK;                       /* piecewise constant: nothing to add */
  int64_t n = cn_tensor_numel (out);
  const double *x = in[0]->data, *y = in[1]->data;
  for (int64_t j = 0; j < n; j++)
    {
      double q = g_out[j] / y[j];
      if (g_in[0] != NULL)
        g_in[0][j] += q;
      if (g_in[1] != NULL)
        g_in[1][j] -= q * (x[j] / y[j]);
    }
  return CN_OK;
}

/* ---- forward mode --------------------------------------------------------------------- */

/* add, sub, neg: t = sum_i SG[i] t_i over the inputs with a tangent (0 if none has one). */
static cn_status
linear_jvp (const cn_node_view *nv, const cn_tensor *const *in, const cn_tensor *out, const double *const *t_in,
            double *t_out, cn_error *err)
{
  (void) err;
  const double *sg = ((const struct arith_impl *) nv->rule->impl)->sg;
  CN__ASSERTD (cn__diff_match (nv, in, out));
  int64_t n = cn_tensor_numel (out);
  for (int64_t j = 0; j < n; j++)
    t_out[j] = 0;
  for (int i = 0; i < nv->n_in; i++)
    {
      const double *ti = t_in[i];
      if (ti == NULL)
        continue;
      if (sg[i] > 0)
        for (int64_t j = 0; j < n; j++)
          t_out[j] += ti[j];
      else
        for (int64_t j = 0; j < n; j++)
          t_out[j] -= ti[j];
    }
  return CN_OK;
}

/* mul: t = y t_x + x t_y (the inputs' values, so that x * x gets 2 x t_x). */
static cn_status
mul_jvp (const cn_node_view *nv, const cn_tensor *const *in, const cn_tensor *out, const double *const *t_in,
         double *t_out, cn_error *err)
{
  (void) err;
  CN__ASSERTD (cn__diff_match (nv, in, out));
  int64_t n = cn_tensor_numel (out);
  const double *x = in[0]->data, *y = in[1]->data;
  for (int64_t j = 0; j < n; j++)
    {
      double t = 0;
      if (t_in[0] != NULL)
        t += y[j] * t_in[0][j];
      if (t_in[1] != NULL)
        t += x[j] * t_in[1][j];
      t_out[j] = t;
    }
  return CN_OK;
}

/* div TRUE: t = t_x / y - (x / y)(t_y / y).  TRUNC, FLOOR: t = 0. */
static cn_status
div_jvp (const cn_node_view *nv, const cn_tensor *const *in, const cn_tensor *out, const double *const *t_in,
         double *t_out, cn_error *err)
{
  (void) err;
  CN__ASSERTD (cn__diff_match (nv, in, out));
  int64_t n = cn_tensor_numel (out);
  int smooth = ((const cn_params_div *) nv->params)->rounding == CN_DIV_TRUE;
  const double *x = in[0]->data, *y = in[1]->data;
  for (int64_t j = 0; j < n; j++)
    {
      double t = 0;
      if (smooth && t_in[0] != NULL)
        t += t_in[0][j] / y[j];
      if (smooth && t_in[1] != NULL)
        t -= (t_in[1][j] / y[j]) * (x[j] / y[j]);
      t_out[j] = t;
    }
  return CN_OK;
}

/* ---- neg -------------------------------------------------------------------------------- */

static cn_status
neg_forward (const cn_node_view *nv, const cn_tensor *const *in, cn_tensor *out, cn_error *err)
{
  if (!cn_dtype_is_float (out->dtype))
    return cn__word_forward (CN__WOP_NEG, nv, in, out, err);
  CN__ASSERTD (cn__tensors_match (nv, in, out));
  int64_t n = cn_tensor_numel (out);
  if (out->dtype == CN_DTYPE_F64)
    {
      const double *a = in[0]->data;
      double *o = out->data;
      for (int64_t j = 0; j < n; j++)
        o[j] = -a[j];
    }
  else
    {
      const float *a = in[0]->data;
      float *o = out->data;
      for (int64_t j = 0; j < n; j++)
        o[j] = -a[j];
    }
  return CN_OK;
}

static cn_status
neg_ibp (const cn_node_view *nv, const cn_box *const *in, cn_box *out, cn_error *err)
{
  if (cn__word_view (nv))
    return cn__word_ibp (CN__WOP_NEG, nv, in, out, err);
  CN__ASSERTD (cn__boxes_match (nv, in, out));
  for (int64_t j = 0; j < out->n; j++)
    {
      double l = -in[0]->hi[j], h = -in[0]->lo[j];
      /* now [l, h] = -[lo, hi] exactly */
      out->lo[j] = l;
      out->hi[j] = h;
    }
  return CN_OK;
}

static cn_status
neg_mpfi (const cn_node_view *nv, const cn_mpfi_vec *const *in, cn_mpfi_vec *out, cn_error *err)
{
  if (cn__word_view (nv))
    return cn__word_mpfi (CN__WOP_NEG, nv, in, out, err);
  CN__ASSERTD (cn__mpfi_match (nv, in, out));
  for (int64_t j = 0; j < out->n; j++)
    mpfi_neg (out->v[j], in[0]->v[j]);
  return CN_OK;
}

/* ---- the checker's step ------------------------------------------------------------------ */

/* add, sub, neg (cn_proof_step): v = sum_i sg_i u_i, entry by entry, is affine: D_i = sg_i L for
 * a varying input, and a constant input's sg_i L c into the bias (equality, no relaxation).
 * Words have no checker step. */
static cn_status
linear_proof (const cn_proof_step *st, cn_error *err)
{
  const cn_node_view *nv = st->nv;
  if (cn__word_view (nv))
    return cn_error_set (err, CN_EUNSUPPORTED, "%s: the checker takes no words (node '%s')", cn_op_name (nv->op),
                         cn__node_name (nv));
  const double *sg = ((const struct arith_impl *) nv->rule->impl)->sg;
  int64_t n = cn__numel (nv->out_shape);
  for (int i = 0; i < nv->n_in; i++)
    for (int64_t s = 0; s < st->rows; s++)
      for (int64_t j = 0; j < n; j++)
        {
          mpfi_ptr l = st->lam_out[s * n + j];
          if (mpfi_is_zero (l))
            continue;
          if (st->lam_in[i] != NULL)
            {
              mpfi_ptr d = st->lam_in[i][s * n + j];
              if (sg[i] > 0)
                mpfi_add (d, d, l);
              else
                mpfi_sub (d, d, l);
            }
          else
            {
              mpfi_mul_d (st->tmp, l, sg[i]);   /* exact: sg is +-1 */
              mpfi_mul (st->tmp, st->tmp, st->in_box[i]->v[j]);
              mpfi_add (st->bias[s], st->bias[s], st->tmp);
            }
        }
  return CN_OK;
}

/* ---- checks and sorts ------------------------------------------------------------------- */

static cn_status
div_check (const struct cn_op_rule *rule, const void *p, int n_in, const cn_shape *const *in, cn_shape *out, cn_error *err)
{
  (void) rule;
  const cn_params_div *d = p;
  if (d == NULL)
    return cn_error_set (err, CN_EINVAL, "div: missing attributes");
  if (d->rounding != CN_DIV_TRUE && d->rounding != CN_DIV_TRUNC && d->rounding != CN_DIV_FLOOR)
    return cn_error_set (err, CN_EINVAL, "div: unknown rounding mode %d", (int) d->rounding);
  return cn__check_binary ("div", n_in, in, out, err);
}


/* div: as the others, and a true division of words is refused (the seed: no rule). */
static cn_status
div_out_sort (const struct cn_op_rule *rule, const void *p, int n_in, const cn_dtype *in, cn_dtype *out,
              cn_error *err)
{
  (void) rule;
  const cn_params_div *d = p;
  if (d == NULL)
    return cn_error_set (err, CN_EINVAL, "div: missing attributes");
  cn_status st = arith_out_sort ("div", n_in, in, out, err);
  if (st == CN_OK && !cn_dtype_is_float (*out) && d->rounding == CN_DIV_TRUE)
    return cn_error_set (err, CN_EINVAL, "div: true division (rounding none) of %s words has no rule; use the "
                         "rounding trunc or floor, or cast to the model's scalar", cn_dtype_name (*out));
  return st;
}

/* ---- the rules ------------------------------------------------------------------------- */

static const struct arith_kernel add_kernel = { add_fd, add_ff, add_box, add_mpfi_k, CN__WOP_ADD };
static const struct arith_kernel sub_kernel = { sub_fd, sub_ff, sub_box, sub_mpfi_k, CN__WOP_SUB };
static const struct arith_kernel mul_kernel = { mul_fd, mul_ff, mul_box, mul_mpfi_k, CN__WOP_MUL };
static const struct arith_kernel div_kernels[3] = {
  [CN_DIV_TRUE] = { div_fd, div_ff, div_box, div_mpfi_k, CN__WOP_NONE },
  [CN_DIV_TRUNC] = { div_trunc_fd, div_trunc_ff, div_trunc_box, div_trunc_mpfi_k, CN__WOP_DIV_TRUNC },
  [CN_DIV_FLOOR] = { div_floor_fd, div_floor_ff, div_floor_box, div_floor_mpfi_k, CN__WOP_DIV_FLOOR },
};

/* div's binary32 evaluation: true division is one correctly rounded operation (the shared hook);
 * trunc and floor division round twice in ways the runtimes do not agree on, so they declare none. */
static cn_status
div_roundoff32 (const cn_node_view *nv, const cn_box *const *in, const cn_box *out, double *e, cn_error *err)
{
  const cn_params_div *p = nv->params;
  if (p != NULL && p->rounding != CN_DIV_TRUE)
    return cn_error_set (err, CN_EUNSUPPORTED, "div: no binary32 evaluation declared for rounding mode %s (node '%s')",
                         p->rounding == CN_DIV_TRUNC ? "trunc" : "floor", cn__node_name (nv));
  return cn__roundoff32_rounded (nv, in, out, e, err);
}

static const struct arith_impl add_impl = { .kernel = &add_kernel, .sg = { 1, 1 } };
static const struct arith_impl sub_impl = { .kernel = &sub_kernel, .sg = { 1, -1 } };
static const struct arith_impl mul_impl = { .kernel = &mul_kernel, .divide = 0 };
static const struct arith_impl div_impl = { .kernel = div_kernels, .by_rounding = 1, .divide = 1 };
static const struct arith_impl neg_impl = { .sg = { -1, 0 } };

static const cn_port_kind element1[1] = { CN_PORT_ELEMENT };
static const cn_port_kind element2[2] = { CN_PORT_ELEMENT, CN_PORT_ELEMENT };

const struct cn_op_rule cn__rule_ADD = {
  .op = CN_OP_ADD, .impl = &add_impl, .sorts = "f64, f32, words",
  .n_in = 2, .in_kind = element2, .out_sort = cn__arith_out_sort, .check = cn__binary_check,
  .forward = binary_forward, .pullback = linear_pullback, .jvp = linear_jvp, .ibp = binary_ibp,
  .ibp_mpfi = binary_mpfi, .crown = linear_crown, .proof = linear_proof, .roundoff32 = cn__roundoff32_rounded,
  .certs = CN__CERTS (CN__CERT_GRADIENT, CN__CERT_BOUNDS, CN__CERT_CHECKER,
                      CN__CERT_ROUNDOFF32 (CN__ROUNDOFF32_ROUNDED_WHY)),
};

const struct cn_op_rule cn__rule_SUB = {
  .op = CN_OP_SUB, .impl = &sub_impl, .sorts = "f64, f32, words",
  .n_in = 2, .in_kind = element2, .out_sort = cn__arith_out_sort, .check = cn__binary_check,
  .forward = binary_forward, .pullback = linear_pullback, .jvp = linear_jvp, .ibp = binary_ibp,
  .ibp_mpfi = binary_mpfi, .crown = linear_crown, .proof = linear_proof, .roundoff32 = cn__roundoff32_rounded,
  .certs = CN__CERTS (CN__CERT_GRADIENT, CN__CERT_BOUNDS, CN__CERT_CHECKER,
                      CN__CERT_ROUNDOFF32 (CN__ROUNDOFF32_ROUNDED_WHY)),
};

const struct cn_op_rule cn__rule_MUL = {
  .op = CN_OP_MUL, .flags = CN_RULE_NEEDS_BOUNDS | CN_RULE_SMOOTH_BOUNDS, .impl = &mul_impl, .sorts = "f64, f32, words",
  .n_in = 2, .in_kind = element2, .out_sort = cn__arith_out_sort, .check = cn__binary_check,
  .forward = binary_forward, .pullback = mul_pullback, .jvp = mul_jvp, .ibp = binary_ibp, .ibp_mpfi = binary_mpfi,
  .crown = product_crown, .alpha = mul_alpha, .alpha_takes = mul_alpha_takes,
  .reads_boxes = product_reads_boxes, .roundoff32 = cn__roundoff32_rounded,
  .certs = CN__CERTS (CN__CERT_GRADIENT, CN__CERT_BOUNDS, CN__CERT_ROUNDOFF32 (CN__ROUNDOFF32_ROUNDED_WHY)),
};

const struct cn_op_rule cn__rule_DIV = {
  .op = CN_OP_DIV, .flags = CN_RULE_NEEDS_BOUNDS | CN_RULE_SMOOTH_BOUNDS, .impl = &div_impl, .sorts = "f64, f32, words",
  .n_in = 2, .in_kind = element2, .out_sort = div_out_sort, 
  .check = div_check, .forward = binary_forward, .pullback = div_pullback, .jvp = div_jvp, .ibp = binary_ibp,
  .ibp_mpfi = binary_mpfi, .crown = product_crown, .reads_boxes = product_reads_boxes, .roundoff32 = div_roundoff32,
  .certs = CN__CERTS (CN__CERT_GRADIENT, CN__CERT_BOUNDS,
                      CN__CERT_ROUNDOFF32 ("true division (rounding 'none') is one correctly rounded operation per "
                                           "entry, (M32) over the exact output box; the trunc and floor modes declare none")),
};

const struct cn_op_rule cn__rule_NEG = {
  .op = CN_OP_NEG, .impl = &neg_impl, .sorts = "f64, f32, words",
  .n_in = 1, .in_kind = element1, .out_sort = cn__arith_out_sort, .check = cn__unary_check,
  .forward = neg_forward, .pullback = linear_pullback, .jvp = linear_jvp, .ibp = neg_ibp, .ibp_mpfi = neg_mpfi,
  .crown = linear_crown, .proof = linear_proof, .roundoff32 = cn__roundoff32_exact,
  .certs = CN__CERTS (CN__CERT_GRADIENT, CN__CERT_BOUNDS, CN__CERT_CHECKER,
                      CN__CERT_ROUNDOFF32 (CN__ROUNDOFF32_EXACT_WHY)),
};
