/* SPDX-License-Identifier: MIT */
/* src/ops/elementwise.c: add, sub, mul, div, neg (first part below), and abs, sqrt, rsqrt, cbrt,
 * reciprocal, square, pow, scale, fmod, remainder, hypot, copysign, nextafter, lerp, addcmul,
 * addcdiv, nanToNum, fullLike, safeDiv, safeInv, safeLog, smoothAbs (second part, at the end).
 *
 * Every operator here works entry by entry on inputs of one shape (broadcasting is the separate
 * broadcast node).  For one entry, x and y are the inputs, v the output, [xl, xu] and [yl, yu]
 * the input boxes.  down() and up() are cn__down and cn__up of src/bounds/sound.h: for
 * c = fl(z), down(c) <= z <= up(c).  An end computed as fl(z) for ONE real z is made sound by
 * end_lo/end_hi below: a lower end fl(z) = +inf means z > DBL_MAX, so DBL_MAX is a lower end; an
 * upper end -inf likewise becomes -DBL_MAX; a NaN (inf - inf) becomes -inf or +inf.  A finite
 * end is never made up from an infinite or NaN one.
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
 *            factors: CN_EUNSUPPORTED.
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
 *            becomes -inf).  TRUNC, FLOOR and non-constant divisors: CN_EUNSUPPORTED.
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
 * the second part).  Their ports are element ports (CN_PORT_ELEMENT): value ports when they hold
 * the model's scalar (everything above), or integer words of ONE sort i8 .. u64, on which the
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
/* ---- second part: the table-driven operators -------------------------------------------
 *
 * Each is elementwise on inputs of one shape and shares one set of arms driven by a table
 * (struct ew_def): the forward in double and in float, the partial derivatives in binary64, and
 * an interval kernel in MPFI used by both the IBP and the MPFI arms.  Attributes are records of
 * certnn/ops.h (the seed passes its scalar attributes at frozen ports; here they are attributes,
 * as elu's alpha).  Semantics (PyTorch's, TorchLean's for the guarded forms), the derivatives
 * (pullback g_i += g d_i, jvp t = sum_i d_i t_i over value ports) and the kernels:
 *   abs        |x|.  d = sign x, 0 at 0 (torch's sgn).  mpfi_abs.
 *   sqrt       cn_params_sqrt: RAW sqrt x (NaN below 0); CLAMP_NEGATIVE sqrt(max(x, 0)) (a NaN stays
 *              NaN).  d = 1/(2 y) (+inf at 0); CLAMP_NEGATIVE: 0 for x <= 0 (the clamp's side, also
 *              the choice at 0).  Kernel: RAW: a box reaching below 0 has no real value there
 *              (CN_ENUMERIC); CLAMP: [sqrt max(l, 0), sqrt max(u, 0)].
 *   rsqrt      1/sqrt x (two roundings).  d = -y^3/2.  Decreasing: [rec_sqrt(u) RNDD, rec_sqrt(l)
 *              RNDU] (MPFR), +inf at 0; below 0 CN_ENUMERIC.
 *   cbrt       cbrt x.  d = 1/(3 y^2) (+inf at 0).  mpfi_cbrt.
 *   reciprocal 1/x.  d = -y^2.  Kernel: 0 inside the box (or the box [0, 0]): [-inf, +inf]; an
 *              end at 0: the infinite limit of its side ([0, u] -> [1/u, +inf]); else mpfi_inv.
 *   square     x x.  d = 2 x.  mpfi_sqr (0 inside the box gives the minimum 0).
 *   pow        pow(x, y), both element ports (value ports at the model's scalar; for integer
 *              words see "Element sorts" in the first part).  d_x = y x^(y-1) (0 where y = 0);
 *              d_y = x^y log x for x > 0, and the choice 0 for x <= 0 (no real neighbourhood in y
 *              there; torch gives NaN).  Kernel: a point integer exponent n: n = 0: 1; even n: |x|^n over |X| =
 *              [m, M] (increasing for n > 0, decreasing with +inf at 0 for n < 0); odd n > 0:
 *              increasing; odd n < 0: decreasing on each side of the pole, [-inf, +inf] if the box
 *              holds 0 inside (or is [0, 0]), a zero end read on the box's side.  Otherwise a base
 *              below 0 has no real value (CN_ENUMERIC), and for x >= 0, x^y = exp(y ln x) with
 *              y ln x bilinear in (y, ln x): the extremes are at the four corners, evaluated by
 *              mpfr_pow RNDD/RNDU (C99 limits at 0 and +inf); the corners where y ln x is 0 times
 *              an infinity add their limit sets ([0, 1] or [1, +inf]) explicitly.
 *   scale      factor x (cn_params_scale, factor finite; in binary32 the factor is rounded to
 *              float first).  d = factor.  mpfi_mul_d.
 *   fmod       C fmod: r = x - trunc(x/y) y, the sign of x.  remainder (element ports, as pow):
 *              torch.remainder, Python's modulo r = x - floor(x/y) y, the sign of y (forward:
 *              fmod, then + y when the signs differ, as torch).  Both value ports: d_x = 1,
 *              d_y = -k with k = (x - r)/y rounded to an integer (torch: -trunc(x/y),
 *              -floor(x/y)).  Kernel: a divisor box holding 0 has
 *              no value at y = 0 (CN_ENUMERIC).  Else the bounds true at every point, fmod:
 *              |r| < max|y|, r of the sign of x and |r| <= |x|; remainder: [0, yu] for y > 0 (and
 *              r <= x when x >= 0), [yl, 0] for y < 0; intersected, where trunc (floor) of the
 *              enclosure of x/y is one integer k over the whole box, with x - k y (exact interval
 *              arithmetic on independent inputs).
 *   hypot      hypot(x, y).  d = x/r, y/r; at the origin the choice 0, 0.  mpfi_hypot.
 *   copysign   |x| with the sign bit of y; both value ports, d_x = +-1 (0 at x = 0, torch's
 *              choice), d_y = 0.  Kernel: |X| = [m, M] signed: y >= 0 on the box: [m, M]; y <= 0:
 *              [-M, -m]; a box reaching 0: [-M, M] (a real 0 carries no sign).
 *   nextafter  C nextafter(x, y) in the tensor's sort.  The seed's gradient cell says "no value
 *              input": both ports are frozen (in_kind), the pullback adds nothing (it exists
 *              because every rule has one) and the jvp writes 0.  Kernel (binary64 semantics: x a
 *              double): a point x and a point y that are doubles give the point nextafter(x, y);
 *              otherwise [nextafter(l, -inf), nextafter(u, +inf)].
 *   lerp       torch.lerp(start, end, weight), weight a tensor: |w| < 1/2 ? s + w (e - s) :
 *              e - (e - s)(1 - w).  d = 1 - w, w, e - s.  Kernel s + w (e - s).
 *   addcmul    x + value t1 t2 (cn_params_addc, value finite), forward ((value t1) t2) + x as
 *              torch.  d = 1, value t2, value t1.  Kernel x + value (t1 t2).
 *   addcdiv    x + value t1 / t2, forward ((value t1) / t2) + x.  d = 1, value / t2,
 *              -(value t1 / t2) / t2.  Kernel: t2 holding 0: [-inf, +inf] (as div); else
 *              x + value (t1 / t2).
 *   nanToNum   torch.nan_to_num (cn_params_nan_to_num): NaN -> nan_value, +-inf -> posinf /
 *              neginf or the sort's largest finite values.  d = 1 at finite x, 0 elsewhere
 *              (torch).  On the reals it is the identity: the kernel copies the box.
 *   fullLike   torch.full_like(x, value) (cn_params_full_like).  x is a value port (the seed's
 *              gradient cell is "no certificate", not "no value input") whose derivative is 0: the
 *              pullback adds nothing, the jvp writes 0.  Kernel [value, value]; a non-finite
 *              value is not a real (CN_ENUMERIC).
 *   safeDiv    x / (y + eps), safeInv 1 / (x + eps) (cn_params_epsilon, TorchLean's safedivSpec:
 *              the denominator is shifted, not clamped).  d = 1/(y+eps), -x/(y+eps)^2; -1/(x+eps)^2.
 *              Kernel: the shifted denominator holding 0 gives [-inf, +inf] (an end at 0 the
 *              infinite limit of its side, as reciprocal); else mpfi_div / mpfi_inv.
 *   safeLog    log(softplus(x) + eps), eps >= 0, softplus in the stable form x + log1p(exp(-x))
 *              for x > 0, log1p(exp x) otherwise (TorchLean's safeLogSpec).  d = sigmoid(x) /
 *              (softplus(x) + eps).  Kernel log(log1p(exp X) + eps) in MPFI (increasing).
 *   smoothAbs  sqrt(x^2 + eps), eps >= 0 (TorchLean's smoothAbsSpec).  d = x / y (the choice 0 at
 *              y = 0, eps = 0).  Kernel sqrt(X^2 + eps) with mpfi_sqr.
 * IBP        the kernel in MPFI at 128 bits on the box's ends (exact), the result's ends rounded
 *            outward to doubles (mpfr_get_d RNDD/RNDU); MPFR's unbounded exponent makes an
 *            overflow DBL_MAX below and +inf above, never a wrong finite end.  A NaN input end is
 *            CN_ENUMERIC; a NaN from an indeterminate form of infinite ends (inf - inf, 0 inf)
 *            becomes [-inf, +inf].  Every MPFI operation is inclusion-isotone and its ends are
 *            rounded outward, so the box contains f over the input boxes; and since lower
 *            precision rounds to a coarser grid, the box contains the 256-bit reference box.
 * MPFI       the same kernels at the output's precision (the reference oracle).
 * CROWN      none (NULL): the sweep discharges these nodes against their boxes.
 * Forward    C99 libm or IEEE operations in the tensor's sort.  Correctly rounded (one IEEE
 *            operation or exact): abs, sqrt, reciprocal, square, scale (f64), fmod, copysign,
 *            nextafter, nanToNum, fullLike; remainder is exact unless the added y rounds.
 *            Measured maximum error against MPFR at 256 bits (glibc, x86-64, 100000 random points
 *            each over the test ranges and wider: rsqrt (0.01, 100), pow base (0.01, 10) exponent
 *            (-8, 8)), in ulps of the exact result, f64 / f32:
 *              rsqrt 1.46/1.48  cbrt 2.69/0.88  pow 0.51/0.50  hypot 0.55/0.50  scale 0.5/1.4
 *              remainder 0/0.5  safeDiv 1.29/1.41  safeInv 1.49/1.46  smoothAbs 1.13/1.16.
 *            lerp, addcmul, addcdiv and safeLog are sums (or a log near 1) evaluated step by step:
 *            their error is small against the magnitude of the terms (a few u (|x| + |value t1 t2|)
 *            for addcmul) but not in ulps of a result that cancels (measured up to 5.6e4 ulps at
 *            results near 0).  None of the composite forms is guaranteed correctly rounded. */
#include <config.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "core/parallel.h"
#include "ops/unary_impl.h"

enum binop { OP_ADD, OP_SUB, OP_MUL, OP_DIV_TRUE, OP_DIV_TRUNC, OP_DIV_FLOOR };

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

/* ---- integer words (the seed's element argument; see "Element sorts" in the header) ----- */

/* A word sort: width N, signedness, the mask 2^N - 1 and the sign bit 2^(N-1). */


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

/* Whether the node view says its inputs hold integer words (the IBP, MPFI and CROWN arms read
 * the sort there; a view without sorts is taken as the model's scalar, the arms' old contract). */
static int
word_view (const cn_node_view *nv)
{
  return nv->in_sort != NULL && (unsigned) nv->in_sort[0] < CN_DTYPE_COUNT && !cn_dtype_is_float (nv->in_sort[0]);
}


enum wop { W_ADD, W_SUB, W_MUL, W_NEG, W_DIV_TRUNC, W_DIV_FLOOR, W_POW, W_REM };

/* The result of OP on the words of patterns P and Q (Q unused by neg) as a pattern modulo 2^64,
 * whose low N bits are the result's word.  Unsigned arithmetic modulo 2^64 agrees with the words'
 * arithmetic modulo 2^N in the low N bits, for both signednesses (two's complement), so +, -, *,
 * negation and the repeated squaring of pow wrap as torch's do.  Division and remainder read the
 * values (sign-extended) and need Q != 0; pow needs an exponent value >= 0 (word_domain). */
static uint64_t
word_apply (enum wop op, const cn__wsort *s, uint64_t p, uint64_t q)
{
  switch (op)
    {
    case W_ADD: return p + q;
    case W_SUB: return p - q;
    case W_MUL: return p * q;
    case W_NEG: return 0 - p;
    case W_POW:
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
    return op == W_REM ? p % q : p / q;   /* trunc = floor on unsigned words */
  int64_t a = cn__word_sext (s, p), b = cn__word_sext (s, q);
  if (b == -1)
    return op == W_REM ? 0 : 0 - (uint64_t) a;   /* -a modulo 2^64: min / -1 wraps to min */
  int64_t t = a / b, r = a % b;                 /* b != 0, -1: no overflow; t truncated, r of a's sign */
  int adj = r != 0 && ((r < 0) != (b < 0));     /* the floor differs from trunc by one */
  if (op == W_DIV_TRUNC)
    return (uint64_t) t;
  if (op == W_DIV_FLOOR)
    return (uint64_t) (adj ? t - 1 : t);         /* |t| <= 2^62 here */
  return (uint64_t) (adj ? r + b : r);          /* torch.remainder: the sign of the divisor */
}

/* Refuses the divisor or exponent of pattern Q at entry J outside OP's domain. */
static cn_status
word_domain (const char *opn, enum wop op, const cn__wsort *s, uint64_t q, const cn_node_view *nv, int64_t j,
             cn_error *err)
{
  if ((op == W_DIV_TRUNC || op == W_DIV_FLOOR || op == W_REM) && q == 0)
    return cn_error_set (err, CN_ENUMERIC, "%s: integer division by zero (ZeroDivisionError) at entry %lld (node '%s')",
                         opn, (long long) j, cn__node_name (nv));
  if (op == W_POW && s->sgn && cn__word_sext (s, q) < 0)
    return cn_error_set (err, CN_ENUMERIC, "%s: Integers to negative integer powers are not allowed (exponent %lld at "
                         "entry %lld, node '%s')", opn, (long long) cn__word_sext (s, q), (long long) j, cn__node_name (nv));
  return CN_OK;
}

/* The forward of OP on word tensors of one sort: every entry's operands are checked first
 * (word_domain), so that nothing is written unless all of them have a value. */
static cn_status
word_forward (const char *opn, enum wop op, const cn_node_view *nv, const cn_tensor *const *in, cn_tensor *out,
              cn_error *err)
{
  cn__wsort s;
  int64_t n = cn__numel (nv->out_shape);
  if (!cn__wsort_of (out->dtype, &s) || cn_tensor_numel (out) != n)
    return cn_error_set (err, CN_EINVAL, "%s: output tensor does not match the node (node '%s')", opn,
                         cn__node_name (nv));
  for (int i = 0; i < nv->n_in; i++)
    if (in[i]->dtype != out->dtype || cn_tensor_numel (in[i]) != n)
      return cn_error_set (err, CN_EINVAL, "%s: input %d does not match the node's sort or shape (node '%s')", opn, i,
                           cn__node_name (nv));
  int binary = op != W_NEG;
  if (op == W_DIV_TRUNC || op == W_DIV_FLOOR || op == W_REM || op == W_POW)
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
word_range (enum wop op, const cn__wsort *s, struct wz *z)
{
  int first = 1;
  switch (op)
    {
    case W_ADD:
      mpz_add (z->r0, z->a0, z->b0);
      mpz_add (z->r1, z->a1, z->b1);
      return WR_RANGE;
    case W_SUB:
      mpz_sub (z->r0, z->a0, z->b1);
      mpz_sub (z->r1, z->a1, z->b0);
      return WR_RANGE;
    case W_NEG:
      mpz_neg (z->r0, z->a1);
      mpz_neg (z->r1, z->a0);
      return WR_RANGE;
    case W_MUL:
      /* a b is bilinear: its extremes over the rectangle are corner products */
      for (int k = 0; k < 4; k++)
        {
          mpz_mul (z->t, k & 1 ? z->a1 : z->a0, k & 2 ? z->b1 : z->b0);
          wz_hull (z, z->t, &first);
        }
      return WR_RANGE;
    case W_POW:
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
      if (op == W_DIV_TRUNC)
        mpz_tdiv_q (z->r1, a, b);
      else
        mpz_fdiv_q (z->r1, a, b);
      if (k == 0 || mpz_cmp (z->r1, z->t) < 0)
        mpz_set (z->t, z->r1);
      if (k == 0 || mpz_cmp (z->r1, z->u) > 0)
        mpz_set (z->u, z->r1);
    }
  if (op != W_REM)
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
word_entry (enum wop op, const cn__wsort *s, struct wz *z)
{
  if (op == W_POW && mpz_cmp (z->a0, z->a1) == 0 && mpz_cmp (z->b0, z->b1) == 0 && mpz_sgn (z->b0) >= 0)
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

static cn_status
word_sort_of_view (const char *opn, const cn_node_view *nv, cn__wsort *s, cn_error *err)
{
  if (!cn__wsort_of (nv->in_sort[0], s))
    return cn_error_set (err, CN_EINVAL, "%s: input 0 has sort %s, not integer words (node '%s')", opn,
                         cn__sort_name (nv->in_sort[0]), cn__node_name (nv));
  for (int i = 1; i < nv->n_in; i++)
    if (nv->in_sort[i] != nv->in_sort[0])
      return cn_error_set (err, CN_EINVAL, "%s: input %d holds %s where input 0 holds %s (node '%s')", opn, i,
                           cn__sort_name (nv->in_sort[i]), cn__sort_name (nv->in_sort[0]), cn__node_name (nv));
  return CN_OK;
}

static cn_status
word_no_value (const char *opn, enum wop op, const cn_node_view *nv, int64_t j, cn_error *err)
{
  if (op == W_POW)
    return cn_error_set (err, CN_ENUMERIC, "%s: the exponent's box at entry %lld holds a negative word (Integers to "
                         "negative integer powers are not allowed) (node '%s')", opn, (long long) j,
                         cn__node_name (nv));
  return cn_error_set (err, CN_ENUMERIC, "%s: the divisor's box at entry %lld holds the word 0 (integer division by "
                       "zero) (node '%s')", opn, (long long) j, cn__node_name (nv));
}

/* IBP at words (the sort from the node view): each box read as the words it holds, the exact
 * range of OP, wrapped (word_entry), its ends rounded outward to doubles. */
static cn_status
word_ibp (const char *opn, enum wop op, const cn_node_view *nv, const cn_box *const *in, cn_box *out, cn_error *err)
{
  cn__wsort s;
  cn_status st = cn__boxes_ok (opn, nv, in, out, err);
  if (st != CN_OK || (st = word_sort_of_view (opn, nv, &s, err)) != CN_OK)
    return st;
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
static cn_status
word_mpfi (const char *opn, enum wop op, const cn_node_view *nv, const cn_mpfi_vec *const *in, cn_mpfi_vec *out,
           cn_error *err)
{
  cn__wsort s;
  cn_status st = cn__mpfi_ok (opn, nv, in, out, err);
  if (st != CN_OK || (st = word_sort_of_view (opn, nv, &s, err)) != CN_OK)
    return st;
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

/* CROWN at words: the output is discharged over its own IBP box (the linear relaxations of the
 * reals do not hold across a wrap). */
static cn_status
word_crown (const cn_crown_step *st, cn_error *err)
{
  return cn__crown_own_box (st, err);
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

#define BINARY_LOOP(T, EXPR)                                                                    \
  do                                                                                            \
    {                                                                                           \
      const T *a = in[0]->data, *b = in[1]->data;                                               \
      T *o = out->data;                                                                         \
      for (int64_t j = 0; j < n; j++)                                                           \
        o[j] = (EXPR);                                                                          \
    }                                                                                           \
  while (0)

/* The word operation of OP: 0 for true division, which has no rule at words. */
static int
binop_word (enum binop op, enum wop *w)
{
  switch (op)
    {
    case OP_ADD: *w = W_ADD; return 1;
    case OP_SUB: *w = W_SUB; return 1;
    case OP_MUL: *w = W_MUL; return 1;
    case OP_DIV_TRUNC: *w = W_DIV_TRUNC; return 1;
    case OP_DIV_FLOOR: *w = W_DIV_FLOOR; return 1;
    default: return 0;
    }
}

static cn_status
div_true_words (const cn_node_view *nv, cn_error *err)
{
  return cn_error_set (err, CN_EINVAL, "div: true division (rounding none) of integer words has no rule; use the "
                       "rounding trunc or floor, or cast to the model's scalar (node '%s')", cn__node_name (nv));
}

static cn_status
binary_forward (const char *opn, enum binop op, const cn_node_view *nv, const cn_tensor *const *in,
                cn_tensor *out, cn_error *err)
{
  enum wop w;
  if (!cn_dtype_is_float (out->dtype))
    return binop_word (op, &w) ? word_forward (opn, w, nv, in, out, err) : div_true_words (nv, err);
  cn_status st = cn__tensors_ok (opn, nv, in, out, err);
  if (st != CN_OK)
    return st;
  int64_t n = cn_tensor_numel (out);
  if (out->dtype == CN_DTYPE_F64)
    switch (op)
      {
      case OP_ADD: BINARY_LOOP (double, a[j] + b[j]); break;
      case OP_SUB: BINARY_LOOP (double, a[j] - b[j]); break;
      case OP_MUL: BINARY_LOOP (double, a[j] * b[j]); break;
      case OP_DIV_TRUE: BINARY_LOOP (double, a[j] / b[j]); break;
      case OP_DIV_TRUNC: BINARY_LOOP (double, trunc (a[j] / b[j])); break;
      case OP_DIV_FLOOR: BINARY_LOOP (double, div_floor_d (a[j], b[j])); break;
      }
  else
    switch (op)
      {
      case OP_ADD: BINARY_LOOP (float, a[j] + b[j]); break;
      case OP_SUB: BINARY_LOOP (float, a[j] - b[j]); break;
      case OP_MUL: BINARY_LOOP (float, a[j] * b[j]); break;
      case OP_DIV_TRUE: BINARY_LOOP (float, a[j] / b[j]); break;
      case OP_DIV_TRUNC: BINARY_LOOP (float, truncf (a[j] / b[j])); break;
      case OP_DIV_FLOOR: BINARY_LOOP (float, div_floor_f (a[j], b[j])); break;
      }
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

static cn_status
binary_ibp (const char *opn, enum binop op, const cn_node_view *nv, const cn_box *const *in, cn_box *out,
            cn_error *err)
{
  enum wop w;
  if (word_view (nv))
    return binop_word (op, &w) ? word_ibp (opn, w, nv, in, out, err) : div_true_words (nv, err);
  cn_status st = cn__boxes_ok (opn, nv, in, out, err);
  if (st != CN_OK)
    return st;
  const cn_box *x = in[0], *y = in[1];
  for (int64_t j = 0; j < out->n; j++)
    {
      double xl = x->lo[j], xu = x->hi[j], yl = y->lo[j], yu = y->hi[j];
      switch (op)
        {
        case OP_ADD:
          out->lo[j] = end_lo (xl + yl);
          out->hi[j] = end_hi (xu + yu);
          break;
        case OP_SUB:
          out->lo[j] = end_lo (xl - yu);
          out->hi[j] = end_hi (xu - yl);
          break;
        case OP_MUL:
          corner_hull (prod_cand, xl, xu, yl, yu, &out->lo[j], &out->hi[j]);
          break;
        case OP_DIV_TRUE:
        case OP_DIV_TRUNC:
        case OP_DIV_FLOOR:
          if (yl <= 0 && yu >= 0)
            {
              /* the divisor may be 0: nothing is known */
              out->lo[j] = -INFINITY;
              out->hi[j] = INFINITY;
              break;
            }
          corner_hull (quot_cand, xl, xu, yl, yu, &out->lo[j], &out->hi[j]);
          /* now lo <= x/y <= hi over the box; trunc and floor are nondecreasing */
          if (op == OP_DIV_TRUNC)
            {
              out->lo[j] = trunc (out->lo[j]);
              out->hi[j] = trunc (out->hi[j]);
            }
          else if (op == OP_DIV_FLOOR)
            {
              out->lo[j] = floor (out->lo[j]);
              out->hi[j] = floor (out->hi[j]);
            }
          break;
        }
    }
  return CN_OK;
}

/* ---- MPFI ----------------------------------------------------------------------------- */

static cn_status
binary_mpfi (const char *opn, enum binop op, const cn_node_view *nv, const cn_mpfi_vec *const *in,
             cn_mpfi_vec *out, cn_error *err)
{
  enum wop w;
  if (word_view (nv))
    return binop_word (op, &w) ? word_mpfi (opn, w, nv, in, out, err) : div_true_words (nv, err);
  cn_status st = cn__mpfi_ok (opn, nv, in, out, err);
  if (st != CN_OK)
    return st;
  if (out->n == 0)
    return CN_OK;
  mpfr_t l, r;
  mpfr_prec_t prec = mpfi_get_prec (out->v[0]);
  mpfr_init2 (l, prec);
  mpfr_init2 (r, prec);
  for (int64_t j = 0; j < out->n; j++)
    switch (op)
      {
      case OP_ADD: mpfi_add (out->v[j], in[0]->v[j], in[1]->v[j]); break;
      case OP_SUB: mpfi_sub (out->v[j], in[0]->v[j], in[1]->v[j]); break;
      case OP_MUL: mpfi_mul (out->v[j], in[0]->v[j], in[1]->v[j]); break;
      case OP_DIV_TRUE:
      case OP_DIV_TRUNC:
      case OP_DIV_FLOOR:
        if (mpfi_has_zero (in[1]->v[j]) || mpfi_nan_p (in[1]->v[j]))
          {
            mpfi_interv_d (out->v[j], -INFINITY, INFINITY);
            break;
          }
        mpfi_div (out->v[j], in[0]->v[j], in[1]->v[j]);
        if (op == OP_DIV_TRUE)
          break;
        mpfi_get_left (l, out->v[j]);
        mpfi_get_right (r, out->v[j]);
        if (op == OP_DIV_TRUNC)
          {
            mpfr_rint_trunc (l, l, MPFR_RNDD);
            mpfr_rint_trunc (r, r, MPFR_RNDU);
          }
        else
          {
            mpfr_rint_floor (l, l, MPFR_RNDD);
            mpfr_rint_floor (r, r, MPFR_RNDU);
          }
        mpfi_interv_fr (out->v[j], l, r);
        break;
      }
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

static cn_status
linear_crown (const cn_crown_step *st, const double *sg, cn_error *err)
{
  (void) err;
  int64_t n = cn__numel (st->nv->out_shape);
  struct linear_rows_ctx c = { .st = st, .sg = sg, .n = n };
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

/* mul by a constant factor, or div by a constant divisor: lam_x = fl(lam .* c) or fl(lam ./ c). */
static cn_status
scale_crown (const char *opn, const cn_crown_step *st, int divide, cn_error *err)
{
  const cn_node_view *nv = st->nv;
  int64_t n = cn__numel (nv->out_shape);
  if (st->lam_in[0] == NULL && st->lam_in[1] == NULL)
    return cn_error_set (err, CN_EINVAL, "%s: CROWN step on constant inputs only (node '%s')", opn, nv->name);
  /* The constant side CI: an input whose box is one point, the other side VI taking the
   * coefficients. */
  int ci, vi;
  if (divide)
    {
      ci = 1;
      vi = 0;
      if (!box_is_point (st->in_box[1]) || st->lam_in[0] == NULL)
        return cn_error_set (err, CN_EUNSUPPORTED, "div: CROWN needs a constant divisor (node '%s')", nv->name);
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
  else
    return cn_error_set (err, CN_EUNSUPPORTED, "mul: CROWN needs one constant factor (node '%s')", nv->name);
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
linear_pullback (const char *opn, const double *sg, const cn_node_view *nv, const cn_tensor *const *in,
                 const cn_tensor *out, const double *g_out, double *const *g_in, cn_error *err)
{
  cn_status st = cn__diff_ok (opn, "pullback", nv, in, out, err);
  if (st != CN_OK)
    return st;
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

static cn_status
add_pullback (const cn_node_view *nv, const cn_tensor *const *in, const cn_tensor *out, const double *g_out,
              double *const *g_in, cn_error *err)
{
  static const double sg[2] = { 1, 1 };
  return linear_pullback ("add", sg, nv, in, out, g_out, g_in, err);
}

static cn_status
sub_pullback (const cn_node_view *nv, const cn_tensor *const *in, const cn_tensor *out, const double *g_out,
              double *const *g_in, cn_error *err)
{
  static const double sg[2] = { 1, -1 };
  return linear_pullback ("sub", sg, nv, in, out, g_out, g_in, err);
}

static cn_status
neg_pullback (const cn_node_view *nv, const cn_tensor *const *in, const cn_tensor *out, const double *g_out,
              double *const *g_in, cn_error *err)
{
  static const double sg[1] = { -1 };
  return linear_pullback ("neg", sg, nv, in, out, g_out, g_in, err);
}

/* mul: g_x += g y and g_y += g x (reading the inputs, never the cotangents, so that a node
 * reading one value twice, x * x, gets 2 g x). */
static cn_status
mul_pullback (const cn_node_view *nv, const cn_tensor *const *in, const cn_tensor *out, const double *g_out,
              double *const *g_in, cn_error *err)
{
  cn_status st = cn__diff_ok ("mul", "pullback", nv, in, out, err);
  if (st != CN_OK)
    return st;
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
  cn_status st = cn__diff_ok ("div", "pullback", nv, in, out, err);
  if (st != CN_OK)
    return st;
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
linear_jvp (const char *opn, const double *sg, const cn_node_view *nv, const cn_tensor *const *in,
            const cn_tensor *out, const double *const *t_in, double *t_out, cn_error *err)
{
  cn_status st = cn__diff_ok (opn, "jvp", nv, in, out, err);
  if (st != CN_OK)
    return st;
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

static cn_status
add_jvp (const cn_node_view *nv, const cn_tensor *const *in, const cn_tensor *out, const double *const *t_in,
         double *t_out, cn_error *err)
{
  static const double sg[2] = { 1, 1 };
  return linear_jvp ("add", sg, nv, in, out, t_in, t_out, err);
}

static cn_status
sub_jvp (const cn_node_view *nv, const cn_tensor *const *in, const cn_tensor *out, const double *const *t_in,
         double *t_out, cn_error *err)
{
  static const double sg[2] = { 1, -1 };
  return linear_jvp ("sub", sg, nv, in, out, t_in, t_out, err);
}

static cn_status
neg_jvp (const cn_node_view *nv, const cn_tensor *const *in, const cn_tensor *out, const double *const *t_in,
         double *t_out, cn_error *err)
{
  static const double sg[1] = { -1 };
  return linear_jvp ("neg", sg, nv, in, out, t_in, t_out, err);
}

/* mul: t = y t_x + x t_y (the inputs' values, so that x * x gets 2 x t_x). */
static cn_status
mul_jvp (const cn_node_view *nv, const cn_tensor *const *in, const cn_tensor *out, const double *const *t_in,
         double *t_out, cn_error *err)
{
  cn_status st = cn__diff_ok ("mul", "jvp", nv, in, out, err);
  if (st != CN_OK)
    return st;
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
  cn_status st = cn__diff_ok ("div", "jvp", nv, in, out, err);
  if (st != CN_OK)
    return st;
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

/* ---- the operators -------------------------------------------------------------------- */

static cn_status
add_check (const struct cn_op_rule *rule, const void *p, int n_in, const cn_shape *const *in, cn_shape *out, cn_error *err)
{
  (void) rule;
  (void) p;
  return cn__check_binary ("add", n_in, in, out, err);
}

static cn_status
add_forward (const cn_node_view *nv, const cn_tensor *const *in, cn_tensor *out, cn_error *err)
{
  return binary_forward ("add", OP_ADD, nv, in, out, err);
}

static cn_status
add_ibp (const cn_node_view *nv, const cn_box *const *in, cn_box *out, cn_error *err)
{
  return binary_ibp ("add", OP_ADD, nv, in, out, err);
}

static cn_status
add_mpfi (const cn_node_view *nv, const cn_mpfi_vec *const *in, cn_mpfi_vec *out, cn_error *err)
{
  return binary_mpfi ("add", OP_ADD, nv, in, out, err);
}

static cn_status
add_crown (const cn_crown_step *st, cn_error *err)
{
  static const double sg[2] = { 1, 1 };
  if (word_view (st->nv))
    return word_crown (st, err);
  return linear_crown (st, sg, err);
}

static cn_status
sub_check (const struct cn_op_rule *rule, const void *p, int n_in, const cn_shape *const *in, cn_shape *out, cn_error *err)
{
  (void) rule;
  (void) p;
  return cn__check_binary ("sub", n_in, in, out, err);
}

static cn_status
sub_forward (const cn_node_view *nv, const cn_tensor *const *in, cn_tensor *out, cn_error *err)
{
  return binary_forward ("sub", OP_SUB, nv, in, out, err);
}

static cn_status
sub_ibp (const cn_node_view *nv, const cn_box *const *in, cn_box *out, cn_error *err)
{
  return binary_ibp ("sub", OP_SUB, nv, in, out, err);
}

static cn_status
sub_mpfi (const cn_node_view *nv, const cn_mpfi_vec *const *in, cn_mpfi_vec *out, cn_error *err)
{
  return binary_mpfi ("sub", OP_SUB, nv, in, out, err);
}

static cn_status
sub_crown (const cn_crown_step *st, cn_error *err)
{
  static const double sg[2] = { 1, -1 };
  if (word_view (st->nv))
    return word_crown (st, err);
  return linear_crown (st, sg, err);
}

static cn_status
mul_check (const struct cn_op_rule *rule, const void *p, int n_in, const cn_shape *const *in, cn_shape *out, cn_error *err)
{
  (void) rule;
  (void) p;
  return cn__check_binary ("mul", n_in, in, out, err);
}

static cn_status
mul_forward (const cn_node_view *nv, const cn_tensor *const *in, cn_tensor *out, cn_error *err)
{
  return binary_forward ("mul", OP_MUL, nv, in, out, err);
}

static cn_status
mul_ibp (const cn_node_view *nv, const cn_box *const *in, cn_box *out, cn_error *err)
{
  return binary_ibp ("mul", OP_MUL, nv, in, out, err);
}

static cn_status
mul_mpfi (const cn_node_view *nv, const cn_mpfi_vec *const *in, cn_mpfi_vec *out, cn_error *err)
{
  return binary_mpfi ("mul", OP_MUL, nv, in, out, err);
}

static cn_status
mul_crown (const cn_crown_step *st, cn_error *err)
{
  if (word_view (st->nv))
    return word_crown (st, err);
  return scale_crown ("mul", st, 0, err);
}

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

static enum binop
div_op (const cn_node_view *nv)
{
  const cn_params_div *d = nv->params;
  return d->rounding == CN_DIV_TRUNC ? OP_DIV_TRUNC : d->rounding == CN_DIV_FLOOR ? OP_DIV_FLOOR : OP_DIV_TRUE;
}

static cn_status
div_forward (const cn_node_view *nv, const cn_tensor *const *in, cn_tensor *out, cn_error *err)
{
  return binary_forward ("div", div_op (nv), nv, in, out, err);
}

static cn_status
div_ibp (const cn_node_view *nv, const cn_box *const *in, cn_box *out, cn_error *err)
{
  return binary_ibp ("div", div_op (nv), nv, in, out, err);
}

static cn_status
div_mpfi (const cn_node_view *nv, const cn_mpfi_vec *const *in, cn_mpfi_vec *out, cn_error *err)
{
  return binary_mpfi ("div", div_op (nv), nv, in, out, err);
}

static cn_status
div_crown (const cn_crown_step *st, cn_error *err)
{
  if (word_view (st->nv))
    return div_op (st->nv) == OP_DIV_TRUE ? div_true_words (st->nv, err) : word_crown (st, err);
  if (div_op (st->nv) != OP_DIV_TRUE)
    return cn_error_set (err, CN_EUNSUPPORTED, "div: no CROWN relaxation for rounding mode %s (node '%s')",
                         div_op (st->nv) == OP_DIV_TRUNC ? "trunc" : "floor", st->nv->name);
  return scale_crown ("div", st, 1, err);
}

static cn_status
neg_check (const struct cn_op_rule *rule, const void *p, int n_in, const cn_shape *const *in, cn_shape *out, cn_error *err)
{
  (void) rule;
  (void) p;
  return cn__check_unary ("neg", n_in, in, out, err);
}

static cn_status
neg_forward (const cn_node_view *nv, const cn_tensor *const *in, cn_tensor *out, cn_error *err)
{
  if (!cn_dtype_is_float (out->dtype))
    return word_forward ("neg", W_NEG, nv, in, out, err);
  cn_status st = cn__tensors_ok ("neg", nv, in, out, err);
  if (st != CN_OK)
    return st;
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
  if (word_view (nv))
    return word_ibp ("neg", W_NEG, nv, in, out, err);
  cn_status st = cn__boxes_ok ("neg", nv, in, out, err);
  if (st != CN_OK)
    return st;
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
  if (word_view (nv))
    return word_mpfi ("neg", W_NEG, nv, in, out, err);
  cn_status st = cn__mpfi_ok ("neg", nv, in, out, err);
  if (st != CN_OK)
    return st;
  for (int64_t j = 0; j < out->n; j++)
    mpfi_neg (out->v[j], in[0]->v[j]);
  return CN_OK;
}

static cn_status
neg_crown (const cn_crown_step *st, cn_error *err)
{
  static const double sg[1] = { -1 };
  if (word_view (st->nv))
    return word_crown (st, err);
  return linear_crown (st, sg, err);
}

static const cn_port_kind element1[1] = { CN_PORT_ELEMENT };
static const cn_port_kind element2[2] = { CN_PORT_ELEMENT, CN_PORT_ELEMENT };

/* The out_sort hooks of add, sub, mul and neg: arith_out_sort under the operator's name. */
#define ARITH_OUT_SORT(lname)                                                                          \
  static cn_status lname##_out_sort (const struct cn_op_rule *rule, const void *p, int n_in, const cn_dtype *in, cn_dtype *out,       \
                                     cn_error *err)                                                    \
  { (void) rule;                                                                                                    \
    (void) p;                                                                                          \
    return arith_out_sort (#lname, n_in, in, out, err);                                                \
  }
ARITH_OUT_SORT (add)
ARITH_OUT_SORT (sub)
ARITH_OUT_SORT (mul)
ARITH_OUT_SORT (neg)

/* div: as the others, and a true division of words is refused (the seed: no rule). */
static cn_status
div_out_sort (const struct cn_op_rule *rule, const void *p, int n_in, const cn_dtype *in, cn_dtype *out, cn_error *err)
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

const struct cn_op_rule cn__rule_ADD = { .op = CN_OP_ADD,
  .sorts = "f64, f32, words",
  .n_in = 2, .in_kind = element2, .out_sort = add_out_sort, .params_size = 0, .check = add_check,
  .forward = add_forward,
  .pullback = add_pullback, .jvp = add_jvp, .ibp = add_ibp, .ibp_mpfi = add_mpfi, .crown = add_crown,
};

const struct cn_op_rule cn__rule_SUB = { .op = CN_OP_SUB,
  .sorts = "f64, f32, words",
  .n_in = 2, .in_kind = element2, .out_sort = sub_out_sort, .params_size = 0, .check = sub_check,
  .forward = sub_forward,
  .pullback = sub_pullback, .jvp = sub_jvp, .ibp = sub_ibp, .ibp_mpfi = sub_mpfi, .crown = sub_crown,
};

const struct cn_op_rule cn__rule_MUL = { .op = CN_OP_MUL,
  .sorts = "f64, f32, words",
  .n_in = 2, .in_kind = element2, .out_sort = mul_out_sort, .params_size = 0, .check = mul_check,
  .forward = mul_forward,
  .pullback = mul_pullback, .jvp = mul_jvp, .ibp = mul_ibp, .ibp_mpfi = mul_mpfi, .crown = mul_crown,
};

const struct cn_op_rule cn__rule_DIV = { .op = CN_OP_DIV,
  .sorts = "f64, f32, words",
  .n_in = 2, .in_kind = element2, .out_sort = div_out_sort, .params_size = sizeof (cn_params_div),
  .check = div_check, .forward = div_forward,
  .pullback = div_pullback, .jvp = div_jvp, .ibp = div_ibp, .ibp_mpfi = div_mpfi, .crown = div_crown,
};

const struct cn_op_rule cn__rule_NEG = { .op = CN_OP_NEG,
  .sorts = "f64, f32, words",
  .n_in = 1, .in_kind = element1, .out_sort = neg_out_sort, .params_size = 0, .check = neg_check,
  .forward = neg_forward,
  .pullback = neg_pullback, .jvp = neg_jvp, .ibp = neg_ibp, .ibp_mpfi = neg_mpfi, .crown = neg_crown,
};

/* ==== the rest of the family: abs ... smoothAbs (see the second part of the header) ======== */

/* ---- scalar forwards, in double and in float ------------------------------------------ */

static double nan_to_num_d (double x, const cn_params_nan_to_num *p);
static float nan_to_num_f (float x, const cn_params_nan_to_num *p);

#define PSQRT(p) (((const cn_params_sqrt *) (p))->mode)
#define PSCALE(p) (((const cn_params_scale *) (p))->factor)
#define PADDC(p) (((const cn_params_addc *) (p))->value)
#define PFULL(p) (((const cn_params_full_like *) (p))->value)
#define PEPS(p) (((const cn_params_epsilon *) (p))->eps)

static double f_abs (const double *x, const void *p) { (void) p; return fabs (x[0]); }
static float g_abs (const float *x, const void *p) { (void) p; return fabsf (x[0]); }
static double
f_sqrt (const double *x, const void *p)
{
  if (PSQRT (p) == CN_SQRT_CLAMP_NEGATIVE && x[0] <= 0)
    return 0;                          /* the root of max(x, 0); a NaN fails the test and stays NaN */
  return sqrt (x[0]);
}
static float
g_sqrt (const float *x, const void *p)
{
  if (PSQRT (p) == CN_SQRT_CLAMP_NEGATIVE && x[0] <= 0)
    return 0;
  return sqrtf (x[0]);
}
static double f_rsqrt (const double *x, const void *p) { (void) p; return 1 / sqrt (x[0]); }
static float g_rsqrt (const float *x, const void *p) { (void) p; return 1 / sqrtf (x[0]); }
static double f_cbrt (const double *x, const void *p) { (void) p; return cbrt (x[0]); }
static float g_cbrt (const float *x, const void *p) { (void) p; return cbrtf (x[0]); }
static double f_recip (const double *x, const void *p) { (void) p; return 1 / x[0]; }
static float g_recip (const float *x, const void *p) { (void) p; return 1 / x[0]; }
static double f_square (const double *x, const void *p) { (void) p; return x[0] * x[0]; }
static float g_square (const float *x, const void *p) { (void) p; return x[0] * x[0]; }
static double f_pow (const double *x, const void *p) { (void) p; return pow (x[0], x[1]); }
static float g_pow (const float *x, const void *p) { (void) p; return powf (x[0], x[1]); }
static double f_scale (const double *x, const void *p) { return x[0] * PSCALE (p); }
static float g_scale (const float *x, const void *p) { return x[0] * (float) PSCALE (p); }
static double f_fmod (const double *x, const void *p) { (void) p; return fmod (x[0], x[1]); }
static float g_fmod (const float *x, const void *p) { (void) p; return fmodf (x[0], x[1]); }
/* torch.remainder on floating tensors: fmod, then moved to the divisor's sign */
static double
f_remainder (const double *x, const void *p)
{
  (void) p;
  double m = fmod (x[0], x[1]);
  if (m != 0 && (x[1] < 0) != (m < 0))
    m += x[1];
  return m;
}
static float
g_remainder (const float *x, const void *p)
{
  (void) p;
  float m = fmodf (x[0], x[1]);
  if (m != 0 && (x[1] < 0) != (m < 0))
    m += x[1];
  return m;
}
static double f_hypot (const double *x, const void *p) { (void) p; return hypot (x[0], x[1]); }
static float g_hypot (const float *x, const void *p) { (void) p; return hypotf (x[0], x[1]); }
static double f_copysign (const double *x, const void *p) { (void) p; return copysign (x[0], x[1]); }
static float g_copysign (const float *x, const void *p) { (void) p; return copysignf (x[0], x[1]); }
static double f_nextafter (const double *x, const void *p) { (void) p; return nextafter (x[0], x[1]); }
static float g_nextafter (const float *x, const void *p) { (void) p; return nextafterf (x[0], x[1]); }
/* torch's lerp: the form exact at the near end */
static double
f_lerp (const double *x, const void *p)
{
  (void) p;
  double s = x[0], e = x[1], w = x[2];
  return fabs (w) < 0.5 ? s + w * (e - s) : e - (e - s) * (1 - w);
}
static float
g_lerp (const float *x, const void *p)
{
  (void) p;
  float s = x[0], e = x[1], w = x[2];
  return fabsf (w) < 0.5f ? s + w * (e - s) : e - (e - s) * (1 - w);
}
static double f_addcmul (const double *x, const void *p) { return x[0] + PADDC (p) * x[1] * x[2]; }
static float g_addcmul (const float *x, const void *p) { return x[0] + (float) PADDC (p) * x[1] * x[2]; }
static double f_addcdiv (const double *x, const void *p) { return x[0] + PADDC (p) * x[1] / x[2]; }
static float g_addcdiv (const float *x, const void *p) { return x[0] + (float) PADDC (p) * x[1] / x[2]; }
static double f_nan_to_num (const double *x, const void *p) { return nan_to_num_d (x[0], p); }
static float g_nan_to_num (const float *x, const void *p) { return nan_to_num_f (x[0], p); }
static double f_full_like (const double *x, const void *p) { (void) x; return PFULL (p); }
static float g_full_like (const float *x, const void *p) { (void) x; return (float) PFULL (p); }
static double f_safe_div (const double *x, const void *p) { return x[0] / (x[1] + PEPS (p)); }
static float g_safe_div (const float *x, const void *p) { return x[0] / (x[1] + (float) PEPS (p)); }
static double f_safe_inv (const double *x, const void *p) { return 1 / (x[0] + PEPS (p)); }
static float g_safe_inv (const float *x, const void *p) { return 1 / (x[0] + (float) PEPS (p)); }
/* softplus in the stable form x + log1p(exp(-x)) for x > 0, log1p(exp(x)) otherwise */
static double softplus_d (double x) { return x > 0 ? x + log1p (exp (-x)) : log1p (exp (x)); }
static float softplus_f (float x) { return x > 0 ? x + log1pf (expf (-x)) : log1pf (expf (x)); }
static double f_safe_log (const double *x, const void *p) { return log (softplus_d (x[0]) + PEPS (p)); }
static float g_safe_log (const float *x, const void *p) { return logf (softplus_f (x[0]) + (float) PEPS (p)); }
static double f_smooth_abs (const double *x, const void *p) { return sqrt (x[0] * x[0] + PEPS (p)); }
static float g_smooth_abs (const float *x, const void *p) { return sqrtf (x[0] * x[0] + (float) PEPS (p)); }

static double
nan_to_num_d (double x, const cn_params_nan_to_num *p)
{
  if (isnan (x))
    return p->nan_value;
  if (x == INFINITY)
    return p->posinf_set ? p->posinf : DBL_MAX;
  if (x == -INFINITY)
    return p->neginf_set ? p->neginf : -DBL_MAX;
  return x;
}

static float
nan_to_num_f (float x, const cn_params_nan_to_num *p)
{
  if (isnan (x))
    return (float) p->nan_value;
  if (x == INFINITY)
    return p->posinf_set ? (float) p->posinf : FLT_MAX;
  if (x == -INFINITY)
    return p->neginf_set ? (float) p->neginf : -FLT_MAX;
  return x;
}

/* ---- derivatives: D[i] = d y / d x_i at the point X with forward value Y (binary64) ------ */

static void
d_abs (const double *x, double y, const void *p, double *d)
{
  (void) y, (void) p;
  d[0] = x[0] > 0 ? 1 : x[0] < 0 ? -1 : x[0] == 0 ? 0 : NAN;   /* 0 at 0 (torch's sgn) */
}
static void
d_sqrt (const double *x, double y, const void *p, double *d)
{
  if (PSQRT (p) == CN_SQRT_CLAMP_NEGATIVE && x[0] <= 0)
    d[0] = 0;                           /* the clamp's side, also the choice at 0 */
  else
    d[0] = 0.5 / y;                     /* +inf at 0, NaN below 0 */
}
static void d_rsqrt (const double *x, double y, const void *p, double *d) { (void) x, (void) p; d[0] = -0.5 * y * y * y; }
static void d_cbrt (const double *x, double y, const void *p, double *d) { (void) x, (void) p; d[0] = 1 / (3 * y * y); }
static void d_recip (const double *x, double y, const void *p, double *d) { (void) x, (void) p; d[0] = -(y * y); }
static void d_square (const double *x, double y, const void *p, double *d) { (void) y, (void) p; d[0] = 2 * x[0]; }
/* torch's pow_backward_self (0 for the base where the exponent is 0) and, for the exponent,
 * y log x where the base is > 0; at a base <= 0 x^y has no real neighbourhood in the exponent
 * (torch gives NaN or 0 there): the choice is 0 */
static void
d_pow (const double *x, double y, const void *p, double *d)
{
  (void) p;
  d[0] = x[1] == 0 ? 0 : x[1] * pow (x[0], x[1] - 1);
  d[1] = x[0] > 0 ? y * log (x[0]) : isnan (x[0]) ? NAN : 0;
}
static void d_scale (const double *x, double y, const void *p, double *d) { (void) x, (void) y; d[0] = PSCALE (p); }
/* fmod, remainder: 1 for x; -k for y with k = (x - r)/y the integer quotient, rounded to an
 * integer (exact for |k| < 2^52) */
static void
d_fmod (const double *x, double y, const void *p, double *d)
{
  (void) p;
  d[0] = 1;
  d[1] = -nearbyint ((x[0] - y) / x[1]);
}
static void
d_hypot (const double *x, double y, const void *p, double *d)
{
  (void) p;
  if (y == 0)
    d[0] = d[1] = 0;                    /* the choice at the origin */
  else
    {
      d[0] = x[0] / y;
      d[1] = x[1] / y;
    }
}
static void
d_copysign (const double *x, double y, const void *p, double *d)
{
  (void) p, (void) y;
  d[0] = isnan (x[0]) || isnan (x[1]) ? NAN : x[0] == 0 ? 0 : signbit (x[0]) == signbit (x[1]) ? 1 : -1;
  d[1] = 0;
}
static void
d_lerp (const double *x, double y, const void *p, double *d)
{
  (void) p, (void) y;
  d[0] = 1 - x[2];
  d[1] = x[2];
  d[2] = x[1] - x[0];
}
static void
d_addcmul (const double *x, double y, const void *p, double *d)
{
  (void) y;
  d[0] = 1;
  d[1] = PADDC (p) * x[2];
  d[2] = PADDC (p) * x[1];
}
static void
d_addcdiv (const double *x, double y, const void *p, double *d)
{
  (void) y;
  double q = PADDC (p) / x[2];
  d[0] = 1;
  d[1] = q;
  d[2] = -(q * x[1]) / x[2];
}
static void
d_nan_to_num (const double *x, double y, const void *p, double *d)
{
  (void) y, (void) p;
  d[0] = isfinite (x[0]) ? 1 : 0;
}
static void
d_safe_div (const double *x, double y, const void *p, double *d)
{
  (void) y;
  double q = 1 / (x[1] + PEPS (p));
  d[0] = q;
  d[1] = -(x[0] * q) * q;
}
static void
d_safe_inv (const double *x, double y, const void *p, double *d)
{
  (void) y;
  double q = 1 / (x[0] + PEPS (p));
  d[0] = -(q * q);
}
static void
d_safe_log (const double *x, double y, const void *p, double *d)
{
  (void) y;
  double s = x[0] >= 0 ? 1 / (1 + exp (-x[0])) : exp (x[0]) / (1 + exp (x[0]));
  d[0] = s / (softplus_d (x[0]) + PEPS (p));
}
static void
d_smooth_abs (const double *x, double y, const void *p, double *d)
{
  (void) p;
  d[0] = y == 0 ? 0 : x[0] / y;         /* eps = 0 at x = 0: the choice 0, as abs */
}

/* ---- interval kernels (the IBP and MPFI arms) ----------------------------------------- */

/* Scratch numbers at the output's precision. */
struct ik_scratch
{
  mpfi_t t, u;
  mpfr_t a, b, c, e;
};

enum { IK_OK = 0, IK_NO_VALUE = 1 };

/* OUT = [lo, hi] from MPFR ends (lo <= hi). */
static void
ik_set (mpfi_ptr out, mpfr_srcptr lo, mpfr_srcptr hi)
{
  mpfi_interv_fr (out, lo, hi);
}

static int k_abs (mpfi_ptr o, mpfi_srcptr *x, const void *p, struct ik_scratch *s) { (void) p, (void) s; mpfi_abs (o, x[0]); return IK_OK; }

static int
k_sqrt (mpfi_ptr o, mpfi_srcptr *x, const void *p, struct ik_scratch *s)
{
  if (mpfr_sgn (&x[0]->left) >= 0)
    {
      mpfi_sqrt (o, x[0]);
      return IK_OK;
    }
  if (PSQRT (p) == CN_SQRT_RAW)
    return IK_NO_VALUE;                 /* part of the box lies below 0 */
  /* clampNegative: sqrt(max(x, 0)) over [max(l, 0), max(u, 0)] */
  mpfr_set_ui (s->a, 0, MPFR_RNDN);
  if (mpfr_sgn (&x[0]->right) <= 0)
    mpfi_set_ui (o, 0);
  else
    {
      mpfr_sqrt (s->b, &x[0]->right, MPFR_RNDU);
      ik_set (o, s->a, s->b);
    }
  return IK_OK;
}

/* rsqrt = 1/sqrt(x), decreasing on [0, +inf], +inf at 0. */
static int
k_rsqrt (mpfi_ptr o, mpfi_srcptr *x, const void *p, struct ik_scratch *s)
{
  (void) p;
  if (mpfr_sgn (&x[0]->left) < 0)
    return IK_NO_VALUE;
  mpfr_rec_sqrt (s->a, &x[0]->right, MPFR_RNDD);
  mpfr_rec_sqrt (s->b, &x[0]->left, MPFR_RNDU);
  ik_set (o, s->a, s->b);
  return IK_OK;
}

static int k_cbrt (mpfi_ptr o, mpfi_srcptr *x, const void *p, struct ik_scratch *s) { (void) p, (void) s; mpfi_cbrt (o, x[0]); return IK_OK; }

/* 1/X: [-inf, +inf] if 0 is inside or X = [0, 0]; an end at 0 gives the infinite limit of its
 * side. */
static void
k_inv_of (mpfi_ptr o, mpfi_srcptr x, struct ik_scratch *s)
{
  int sl = mpfr_sgn (&x->left), sr = mpfr_sgn (&x->right);
  if ((sl < 0 && sr > 0) || (sl == 0 && sr == 0))
    mpfi_interv_d (o, -INFINITY, INFINITY);
  else if (sl == 0)
    {
      mpfr_ui_div (s->a, 1, &x->right, MPFR_RNDD);
      mpfr_set_inf (s->b, 1);
      ik_set (o, s->a, s->b);
    }
  else if (sr == 0)
    {
      mpfr_set_inf (s->a, -1);
      mpfr_ui_div (s->b, 1, &x->left, MPFR_RNDU);
      ik_set (o, s->a, s->b);
    }
  else
    mpfi_inv (o, x);
}

static int k_recip (mpfi_ptr o, mpfi_srcptr *x, const void *p, struct ik_scratch *s) { (void) p; k_inv_of (o, x[0], s); return IK_OK; }
static int k_square (mpfi_ptr o, mpfi_srcptr *x, const void *p, struct ik_scratch *s) { (void) p, (void) s; mpfi_sqr (o, x[0]); return IK_OK; }
static int k_scale (mpfi_ptr o, mpfi_srcptr *x, const void *p, struct ik_scratch *s) { (void) s; mpfi_mul_d (o, x[0], PSCALE (p)); return IK_OK; }

/* Widens [*lo, *hi] (A, B) by MPFR's pow of the corner (X, Y), RNDD into lo and RNDU into hi. */
static void
pow_corner (mpfr_srcptr x, mpfr_srcptr y, struct ik_scratch *s, int *first)
{
  mpfr_pow (s->c, x, y, MPFR_RNDD);
  mpfr_pow (s->e, x, y, MPFR_RNDU);
  if (*first || mpfr_less_p (s->c, s->a))
    mpfr_set (s->a, s->c, MPFR_RNDN);
  if (*first || mpfr_greater_p (s->e, s->b))
    mpfr_set (s->b, s->e, MPFR_RNDN);
  *first = 0;
}

static void
pow_widen (struct ik_scratch *s, double lo, double hi)
{
  if (mpfr_cmp_d (s->a, lo) > 0)
    mpfr_set_d (s->a, lo, MPFR_RNDN);
  if (mpfr_cmp_d (s->b, hi) < 0)
    mpfr_set_d (s->b, hi, MPFR_RNDN);
}

static int
k_pow (mpfi_ptr o, mpfi_srcptr *x, const void *p, struct ik_scratch *s)
{
  (void) p;
  mpfr_srcptr yl = &x[1]->left, yr = &x[1]->right;
  mpfr_prec_t prec = mpfi_get_prec (o);
  mpfr_t xl, xr;
  mpfr_init2 (xl, prec + 64);
  mpfr_init2 (xr, prec + 64);
  mpfr_set (xl, &x[0]->left, MPFR_RNDD);
  mpfr_set (xr, &x[0]->right, MPFR_RNDU);
  int r = IK_OK;
  if (mpfr_equal_p (yl, yr) && mpfr_integer_p (yl))
    {
      /* a point integer exponent n: every real base has a value */
      int neg = mpfr_sgn (yl) < 0;
      mpfr_div_2ui (s->c, yl, 1, MPFR_RNDN);
      int even = mpfr_integer_p (s->c);
      if (mpfr_zero_p (yl))
        mpfi_set_ui (o, 1);
      else if (even)
        {
          /* |x|^n on [m, M] = |X|: increasing for n > 0, decreasing for n < 0 (+inf at 0) */
          mpfi_abs (s->t, x[0]);
          if (!neg)
            {
              mpfr_pow (s->a, &s->t->left, yl, MPFR_RNDD);
              mpfr_pow (s->b, &s->t->right, yl, MPFR_RNDU);
            }
          else
            {
              mpfr_abs (s->c, &s->t->left, MPFR_RNDD);      /* +0 if zero */
              mpfr_pow (s->a, &s->t->right, yl, MPFR_RNDD);
              mpfr_pow (s->b, s->c, yl, MPFR_RNDU);
            }
          ik_set (o, s->a, s->b);
        }
      else if (!neg)
        {
          /* odd n > 0: increasing */
          mpfr_pow (s->a, xl, yl, MPFR_RNDD);
          mpfr_pow (s->b, xr, yl, MPFR_RNDU);
          ik_set (o, s->a, s->b);
        }
      else if ((mpfr_sgn (xl) < 0 && mpfr_sgn (xr) > 0) || (mpfr_zero_p (xl) && mpfr_zero_p (xr)))
        mpfi_interv_d (o, -INFINITY, INFINITY);          /* odd n < 0 with the pole inside */
      else
        {
          /* odd n < 0 on one side of 0: decreasing, a zero end read on the box's side */
          if (mpfr_zero_p (xl))
            mpfr_set_zero (xl, 1);
          if (mpfr_zero_p (xr))
            mpfr_set_zero (xr, -1);
          mpfr_pow (s->a, xr, yl, MPFR_RNDD);
          mpfr_pow (s->b, xl, yl, MPFR_RNDU);
          ik_set (o, s->a, s->b);
        }
    }
  else if (mpfr_sgn (xl) < 0)
    r = IK_NO_VALUE;                    /* a negative base with a non-integer exponent */
  else
    {
      /* x >= 0: x^y = exp(y ln x) with y ln x bilinear in (y, ln x), so the extremes over the
       * box are at the corners (their limits where x is 0 or +inf, MPFR's C99 conventions:
       * pow(0, y > 0) = 0, pow(0, y < 0) = +inf, pow(x, 0) = 1) */
      if (mpfr_zero_p (xl))
        mpfr_set_zero (xl, 1);
      int first = 1;
      pow_corner (xl, yl, s, &first);
      pow_corner (xl, yr, s, &first);
      pow_corner (xr, yl, s, &first);
      pow_corner (xr, yr, s, &first);
      /* corners where y ln x is 0 times an infinity (x at 0 or +inf with a y end at 0, x at 1
       * with an infinite y end): the limits there lie between the neighbouring corners'
       * values; the hull is widened by them explicitly all the same */
      int ypt = mpfr_equal_p (yl, yr), xpt = mpfr_equal_p (xl, xr);
      if (!ypt && (mpfr_zero_p (yl) || mpfr_zero_p (yr)))
        {
          int ysg = mpfr_zero_p (yl) ? 1 : -1;
          if (mpfr_zero_p (xl))
            ysg > 0 ? pow_widen (s, 0, 1) : pow_widen (s, 1, INFINITY);
          if (mpfr_inf_p (xr))
            ysg > 0 ? pow_widen (s, 1, INFINITY) : pow_widen (s, 0, 1);
        }
      if (!xpt && (mpfr_inf_p (yl) || mpfr_inf_p (yr)) && (mpfr_cmp_ui (xl, 1) == 0 || mpfr_cmp_ui (xr, 1) == 0))
        pow_widen (s, 0, INFINITY);
      ik_set (o, s->a, s->b);
    }
  mpfr_clear (xl);
  mpfr_clear (xr);
  return r;
}

/* fmod (FLOOR = 0) and remainder (FLOOR = 1): r = x - k y with k = trunc(x/y) or floor(x/y).
 * Bounds that hold for every point: fmod: |r| < |y|, r has the sign of x and |r| <= |x|;
 * remainder: r in [0, y) for y > 0 (and r <= x if x >= 0), r in (y, 0] for y < 0 (r >= x if
 * x <= 0).  Where k is one integer over the whole box, r = x - k y exactly (interval
 * arithmetic on the two independent inputs), intersected with those bounds. */
static int
k_mod (mpfi_ptr o, mpfi_srcptr *x, struct ik_scratch *s, int floor_mode)
{
  mpfi_srcptr X = x[0], Y = x[1];
  if (mpfi_has_zero (Y))
    return IK_NO_VALUE;                 /* y = 0 has no value */
  int ypos = mpfr_sgn (&Y->left) > 0;
  /* the bounds valid everywhere, into [a, b] */
  mpfi_mag (s->c, Y);                   /* M = max |y| */
  if (!floor_mode)
    {
      if (mpfr_sgn (&X->left) >= 0)
        mpfr_set_ui (s->a, 0, MPFR_RNDN);
      else
        {
          mpfr_neg (s->a, s->c, MPFR_RNDD);
          mpfr_max (s->a, s->a, &X->left, MPFR_RNDD);
        }
      if (mpfr_sgn (&X->right) <= 0)
        mpfr_set_ui (s->b, 0, MPFR_RNDN);
      else
        mpfr_min (s->b, s->c, &X->right, MPFR_RNDU);
    }
  else if (ypos)
    {
      mpfr_set_ui (s->a, 0, MPFR_RNDN);
      mpfr_set (s->b, &Y->right, MPFR_RNDU);
      if (mpfr_sgn (&X->left) >= 0)
        mpfr_min (s->b, s->b, &X->right, MPFR_RNDU);
    }
  else
    {
      mpfr_set (s->a, &Y->left, MPFR_RNDD);
      mpfr_set_ui (s->b, 0, MPFR_RNDN);
      if (mpfr_sgn (&X->right) <= 0)
        mpfr_max (s->a, s->a, &X->left, MPFR_RNDD);
    }
  /* every end above is rounded outward (exact when the inputs have the output's precision) */
  mpfi_div (s->t, X, Y);
  if (mpfr_number_p (&s->t->left) && mpfr_number_p (&s->t->right))
    {
      if (floor_mode)
        {
          mpfr_floor (s->c, &s->t->left);
          mpfr_floor (s->e, &s->t->right);
        }
      else
        {
          mpfr_trunc (s->c, &s->t->left);
          mpfr_trunc (s->e, &s->t->right);
        }
      if (mpfr_equal_p (s->c, s->e) && mpfr_number_p (s->c))
        {
          /* k = c on the whole box: r = x - k y */
          mpfi_mul_fr (s->u, Y, s->c);
          mpfi_sub (s->u, X, s->u);
          if (!mpfi_nan_p (s->u))
            {
              if (mpfr_greater_p (&s->u->left, s->a))
                mpfr_set (s->a, &s->u->left, MPFR_RNDD);
              if (mpfr_less_p (&s->u->right, s->b))
                mpfr_set (s->b, &s->u->right, MPFR_RNDU);
            }
        }
    }
  if (mpfr_greater_p (s->a, s->b))
    mpfr_set (s->a, s->b, MPFR_RNDD);   /* cannot happen for a nonempty box; keeps a valid interval */
  ik_set (o, s->a, s->b);
  return IK_OK;
}

static int k_fmod (mpfi_ptr o, mpfi_srcptr *x, const void *p, struct ik_scratch *s) { (void) p; return k_mod (o, x, s, 0); }
static int k_remainder (mpfi_ptr o, mpfi_srcptr *x, const void *p, struct ik_scratch *s) { (void) p; return k_mod (o, x, s, 1); }
static int k_hypot (mpfi_ptr o, mpfi_srcptr *x, const void *p, struct ik_scratch *s) { (void) p, (void) s; mpfi_hypot (o, x[0], x[1]); return IK_OK; }

/* copysign: |x| in [m, M] with the sign of y; a real y = 0 has no sign, so a box reaching 0
 * gives both signs. */
static int
k_copysign (mpfi_ptr o, mpfi_srcptr *x, const void *p, struct ik_scratch *s)
{
  (void) p;
  mpfi_abs (s->t, x[0]);
  int pos = mpfr_sgn (&x[1]->right) >= 0, neg = mpfr_sgn (&x[1]->left) <= 0;
  if (pos && neg)
    {
      mpfr_neg (s->a, &s->t->right, MPFR_RNDD);
      ik_set (o, s->a, &s->t->right);
    }
  else if (pos)
    mpfi_set (o, s->t);
  else
    mpfi_neg (o, s->t);
  return IK_OK;
}

/* nextafter in binary64: for a double x in [l, u], nextafter(x, y) lies in
 * [nextafter(l, -inf), nextafter(u, +inf)]; a point x and a point y that are doubles give the
 * point nextafter(x, y). */
static int
k_nextafter (mpfi_ptr o, mpfi_srcptr *x, const void *p, struct ik_scratch *s)
{
  (void) p, (void) s;
  double l = mpfr_get_d (&x[0]->left, MPFR_RNDD), u = mpfr_get_d (&x[0]->right, MPFR_RNDU);
  double yl = mpfr_get_d (&x[1]->left, MPFR_RNDD), yu = mpfr_get_d (&x[1]->right, MPFR_RNDU);
  if (l == u && yl == yu && mpfr_cmp_d (&x[0]->left, l) == 0 && mpfr_cmp_d (&x[0]->right, u) == 0
      && mpfr_cmp_d (&x[1]->left, yl) == 0 && mpfr_cmp_d (&x[1]->right, yu) == 0)
    {
      double v = nextafter (l, yl);
      mpfi_interv_d (o, v, v);
      return IK_OK;
    }
  mpfi_interv_d (o, nextafter (l, -INFINITY), nextafter (u, INFINITY));
  return IK_OK;
}

/* lerp: s + w (e - s) */
static int
k_lerp (mpfi_ptr o, mpfi_srcptr *x, const void *p, struct ik_scratch *s)
{
  (void) p;
  mpfi_sub (s->t, x[1], x[0]);
  mpfi_mul (s->t, s->t, x[2]);
  mpfi_add (o, x[0], s->t);
  return IK_OK;
}

static int
k_addcmul (mpfi_ptr o, mpfi_srcptr *x, const void *p, struct ik_scratch *s)
{
  mpfi_mul (s->t, x[1], x[2]);
  mpfi_mul_d (s->t, s->t, PADDC (p));
  mpfi_add (o, x[0], s->t);
  return IK_OK;
}

static int
k_addcdiv (mpfi_ptr o, mpfi_srcptr *x, const void *p, struct ik_scratch *s)
{
  if (mpfi_has_zero (x[2]))
    {
      mpfi_interv_d (o, -INFINITY, INFINITY);    /* the quotient is unbounded, as div */
      return IK_OK;
    }
  mpfi_div (s->t, x[1], x[2]);
  mpfi_mul_d (s->t, s->t, PADDC (p));
  mpfi_add (o, x[0], s->t);
  return IK_OK;
}

/* nanToNum is the identity on the reals (only NaN and the infinities, which are not reals,
 * are replaced). */
static int k_nan_to_num (mpfi_ptr o, mpfi_srcptr *x, const void *p, struct ik_scratch *s) { (void) p, (void) s; mpfi_set (o, x[0]); return IK_OK; }

static int
k_full_like (mpfi_ptr o, mpfi_srcptr *x, const void *p, struct ik_scratch *s)
{
  (void) x, (void) s;
  if (!isfinite (PFULL (p)))
    return IK_NO_VALUE;                 /* an infinite or NaN fill value is not a real */
  mpfi_set_d (o, PFULL (p));
  return IK_OK;
}

static int
k_safe_div (mpfi_ptr o, mpfi_srcptr *x, const void *p, struct ik_scratch *s)
{
  mpfi_add_d (s->t, x[1], PEPS (p));
  if (mpfi_has_zero (s->t))
    mpfi_interv_d (o, -INFINITY, INFINITY);
  else
    mpfi_div (o, x[0], s->t);
  return IK_OK;
}

static int
k_safe_inv (mpfi_ptr o, mpfi_srcptr *x, const void *p, struct ik_scratch *s)
{
  mpfi_add_d (s->u, x[0], PEPS (p));
  k_inv_of (o, s->u, s);
  return IK_OK;
}

/* log(log1p(exp(x)) + eps), eps >= 0: increasing, -inf at x = -inf when eps = 0 */
static int
k_safe_log (mpfi_ptr o, mpfi_srcptr *x, const void *p, struct ik_scratch *s)
{
  mpfi_exp (s->t, x[0]);
  mpfi_log1p (s->t, s->t);
  mpfi_add_d (s->t, s->t, PEPS (p));
  if (mpfr_sgn (&s->t->left) < 0)
    mpfr_set_ui (&s->t->left, 0, MPFR_RNDN);   /* softplus + eps >= 0 */
  mpfi_log (o, s->t);
  return IK_OK;
}

static int
k_smooth_abs (mpfi_ptr o, mpfi_srcptr *x, const void *p, struct ik_scratch *s)
{
  mpfi_sqr (s->t, x[0]);
  mpfi_add_d (s->t, s->t, PEPS (p));
  if (mpfr_sgn (&s->t->left) < 0)
    mpfr_set_ui (&s->t->left, 0, MPFR_RNDN);   /* x^2 + eps >= 0 */
  mpfi_sqrt (o, s->t);
  return IK_OK;
}

/* ---- the table ------------------------------------------------------------------------ */

static const cn_port_kind frozen2[2] = { CN_PORT_FROZEN, CN_PORT_FROZEN };

struct ew_def
{
  cn_op op;
  const char *name;
  int n_in;
  const cn_port_kind *kind;            /* NULL: all value ports */
  double (*fd) (const double *, const void *);
  float (*ff) (const float *, const void *);
  void (*deriv) (const double *, double, const void *, double *);   /* NULL: derivative 0 */
  int (*kernel) (mpfi_ptr, mpfi_srcptr *, const void *, struct ik_scratch *);
};

static const struct ew_def ew_defs[] = {
  { CN_OP_ABS, "abs", 1, NULL, f_abs, g_abs, d_abs, k_abs },
  { CN_OP_SQRT, "sqrt", 1, NULL, f_sqrt, g_sqrt, d_sqrt, k_sqrt },
  { CN_OP_RSQRT, "rsqrt", 1, NULL, f_rsqrt, g_rsqrt, d_rsqrt, k_rsqrt },
  { CN_OP_CBRT, "cbrt", 1, NULL, f_cbrt, g_cbrt, d_cbrt, k_cbrt },
  { CN_OP_RECIPROCAL, "reciprocal", 1, NULL, f_recip, g_recip, d_recip, k_recip },
  { CN_OP_SQUARE, "square", 1, NULL, f_square, g_square, d_square, k_square },
  { CN_OP_POW, "pow", 2, element2, f_pow, g_pow, d_pow, k_pow },
  { CN_OP_SCALE, "scale", 1, NULL, f_scale, g_scale, d_scale, k_scale },
  { CN_OP_FMOD, "fmod", 2, NULL, f_fmod, g_fmod, d_fmod, k_fmod },
  { CN_OP_REMAINDER, "remainder", 2, element2, f_remainder, g_remainder, d_fmod, k_remainder },
  { CN_OP_HYPOT, "hypot", 2, NULL, f_hypot, g_hypot, d_hypot, k_hypot },
  { CN_OP_COPYSIGN, "copysign", 2, NULL, f_copysign, g_copysign, d_copysign, k_copysign },
  { CN_OP_NEXTAFTER, "nextafter", 2, frozen2, f_nextafter, g_nextafter, NULL, k_nextafter },
  { CN_OP_LERP, "lerp", 3, NULL, f_lerp, g_lerp, d_lerp, k_lerp },
  { CN_OP_ADDCMUL, "addcmul", 3, NULL, f_addcmul, g_addcmul, d_addcmul, k_addcmul },
  { CN_OP_ADDCDIV, "addcdiv", 3, NULL, f_addcdiv, g_addcdiv, d_addcdiv, k_addcdiv },
  { CN_OP_NAN_TO_NUM, "nanToNum", 1, NULL, f_nan_to_num, g_nan_to_num, d_nan_to_num, k_nan_to_num },
  { CN_OP_FULL_LIKE, "fullLike", 1, NULL, f_full_like, g_full_like, NULL, k_full_like },
  { CN_OP_SAFE_DIV, "safeDiv", 2, NULL, f_safe_div, g_safe_div, d_safe_div, k_safe_div },
  { CN_OP_SAFE_INV, "safeInv", 1, NULL, f_safe_inv, g_safe_inv, d_safe_inv, k_safe_inv },
  { CN_OP_SAFE_LOG, "safeLog", 1, NULL, f_safe_log, g_safe_log, d_safe_log, k_safe_log },
  { CN_OP_SMOOTH_ABS, "smoothAbs", 1, NULL, f_smooth_abs, g_smooth_abs, d_smooth_abs, k_smooth_abs },
};

#define EW_MAX_IN 3

CN__DEF_LOOKUP (struct ew_def, ew_defs, ew_def_of, ew_no_def, "an operator of the elementwise table")

/* Whether port I takes a gradient when it holds the model's scalar (the arms below see floats
 * only: a word node never receives a cotangent). */
static int
ew_is_value (const struct ew_def *d, int i)
{
  return d->kind == NULL || d->kind[i] == CN_PORT_VALUE || d->kind[i] == CN_PORT_ELEMENT;
}

/* The word operation of the table's operators that compute on integer words (pow, remainder);
 * 0 for the others. */
static int
ew_word_op (const struct ew_def *d, enum wop *w)
{
  if (d->op == CN_OP_POW)
    *w = W_POW;
  else if (d->op == CN_OP_REMAINDER)
    *w = W_REM;
  else
    return 0;
  return 1;
}

static cn_status
ew_no_words (const struct ew_def *d, const cn_node_view *nv, cn_error *err)
{
  return cn_error_set (err, CN_EINVAL, "%s: takes the model's scalar, not integer words (node '%s')", d->name,
                       cn__node_name (nv));
}

/* ---- the shared arms ------------------------------------------------------------------ */

static cn_status
ew_forward (const cn_node_view *nv, const cn_tensor *const *in, cn_tensor *out, cn_error *err)
{
  const struct ew_def *d = ew_def_of (nv->op);
  if (d == NULL || nv->n_in != d->n_in)
    return ew_no_def (nv, err);
  enum wop w;
  if (!cn_dtype_is_float (out->dtype))
    return ew_word_op (d, &w) ? word_forward (d->name, w, nv, in, out, err) : ew_no_words (d, nv, err);
  cn_status st = cn__tensors_ok (d->name, nv, in, out, err);
  if (st != CN_OK)
    return st;
  int64_t n = cn_tensor_numel (out);
  if (out->dtype == CN_DTYPE_F64)
    {
      double *y = out->data, a[EW_MAX_IN];
      for (int64_t j = 0; j < n; j++)
        {
          for (int i = 0; i < d->n_in; i++)
            a[i] = ((const double *) in[i]->data)[j];
          y[j] = d->fd (a, nv->params);
        }
    }
  else
    {
      float *y = out->data, a[EW_MAX_IN];
      for (int64_t j = 0; j < n; j++)
        {
          for (int i = 0; i < d->n_in; i++)
            a[i] = ((const float *) in[i]->data)[j];
          y[j] = d->ff (a, nv->params);
        }
    }
  return CN_OK;
}

static cn_status
ew_pullback (const cn_node_view *nv, const cn_tensor *const *in, const cn_tensor *out, const double *g_out,
             double *const *g_in, cn_error *err)
{
  const struct ew_def *d = ew_def_of (nv->op);
  if (d == NULL || nv->n_in != d->n_in)
    return ew_no_def (nv, err);
  cn_status st = cn__diff_ok (d->name, "pullback", nv, in, out, err);
  if (st != CN_OK || d->deriv == NULL)
    return st;                          /* derivative 0: nothing to add */
  int64_t n = cn_tensor_numel (out);
  const double *y = out->data;
  double a[EW_MAX_IN], g[EW_MAX_IN];
  for (int64_t j = 0; j < n; j++)
    {
      for (int i = 0; i < d->n_in; i++)
        a[i] = ((const double *) in[i]->data)[j];
      d->deriv (a, y[j], nv->params, g);
      for (int i = 0; i < d->n_in; i++)
        if (g_in[i] != NULL && ew_is_value (d, i))
          g_in[i][j] += g_out[j] * g[i];
    }
  return CN_OK;
}

static cn_status
ew_jvp (const cn_node_view *nv, const cn_tensor *const *in, const cn_tensor *out, const double *const *t_in,
        double *t_out, cn_error *err)
{
  const struct ew_def *d = ew_def_of (nv->op);
  if (d == NULL || nv->n_in != d->n_in)
    return ew_no_def (nv, err);
  cn_status st = cn__diff_ok (d->name, "jvp", nv, in, out, err);
  if (st != CN_OK)
    return st;
  int64_t n = cn_tensor_numel (out);
  const double *y = out->data;
  double a[EW_MAX_IN], g[EW_MAX_IN];
  for (int64_t j = 0; j < n; j++)
    {
      double t = 0;
      if (d->deriv != NULL)
        {
          for (int i = 0; i < d->n_in; i++)
            a[i] = ((const double *) in[i]->data)[j];
          d->deriv (a, y[j], nv->params, g);
          for (int i = 0; i < d->n_in; i++)
            if (t_in[i] != NULL && ew_is_value (d, i))
              t += g[i] * t_in[i][j];
        }
      t_out[j] = t;
    }
  return CN_OK;
}

static void
ik_scratch_init (struct ik_scratch *s, mpfr_prec_t prec)
{
  mpfi_init2 (s->t, prec);
  mpfi_init2 (s->u, prec);
  mpfr_inits2 (prec, s->a, s->b, s->c, s->e, (mpfr_ptr) 0);
}

static void
ik_scratch_clear (struct ik_scratch *s)
{
  mpfi_clear (s->t);
  mpfi_clear (s->u);
  mpfr_clears (s->a, s->b, s->c, s->e, (mpfr_ptr) 0);
}

/* One entry through the kernel: X (n_in enclosures, NaN-free) into OUT.  A NaN result (an
 * indeterminate form of infinite ends, inf - inf or 0 inf) becomes [-inf, +inf]: every real
 * point's value lies there. */
static int
ew_entry (const struct ew_def *d, mpfi_ptr out, mpfi_srcptr *x, const void *params, struct ik_scratch *s)
{
  int r = d->kernel (out, x, params, s);
  if (r == IK_OK && mpfi_nan_p (out))
    mpfi_interv_d (out, -INFINITY, INFINITY);
  return r;
}

/* IBP: the kernel in MPFI at IBP_PREC bits on the box's ends (doubles, exact there), its ends
 * then rounded outward to doubles (mpfr_get_d RNDD / RNDU: the unbounded exponent of MPFR makes
 * an overflow go to DBL_MAX below and +inf above).  128 bits keep multi-step kernels (safeLog,
 * lerp) within an ulp of the exact range; a precision below the reference's (256) keeps the fast
 * box a superset of the MPFI box, since every MPFI operation is inclusion-isotone and rounds to a
 * coarser grid at lower precision. */
#define IBP_PREC 128
static cn_status
ew_ibp (const cn_node_view *nv, const cn_box *const *in, cn_box *out, cn_error *err)
{
  const struct ew_def *d = ew_def_of (nv->op);
  if (d == NULL || nv->n_in != d->n_in)
    return ew_no_def (nv, err);
  enum wop w;
  if (word_view (nv))
    return ew_word_op (d, &w) ? word_ibp (d->name, w, nv, in, out, err) : ew_no_words (d, nv, err);
  cn_status st = cn__boxes_ok (d->name, nv, in, out, err);
  if (st != CN_OK)
    return st;
  struct ik_scratch s;
  mpfi_t x[EW_MAX_IN], y;
  mpfi_srcptr xp[EW_MAX_IN];
  ik_scratch_init (&s, IBP_PREC);
  for (int i = 0; i < d->n_in; i++)
    {
      mpfi_init2 (x[i], IBP_PREC);
      xp[i] = x[i];
    }
  mpfi_init2 (y, IBP_PREC);
  for (int64_t j = 0; j < out->n && st == CN_OK; j++)
    {
      for (int i = 0; i < d->n_in; i++)
        {
          double l = in[i]->lo[j], u = in[i]->hi[j];
          if (isnan (l) || isnan (u))
            {
              st = cn_error_set (err, CN_ENUMERIC, "%s: NaN end in input box %d at entry %lld (node '%s')", d->name,
                                 i, (long long) j, cn__node_name (nv));
              break;
            }
          mpfi_interv_d (x[i], l, u);   /* exact: IBP_PREC >= 53 bits hold a double */
        }
      if (st != CN_OK)
        break;
      if (ew_entry (d, y, xp, nv->params, &s) != IK_OK)
        {
          st = cn_error_set (err, CN_ENUMERIC, "%s: part of the input box at entry %lld has no real value (node '%s')",
                             d->name, (long long) j, cn__node_name (nv));
          break;
        }
      out->lo[j] = mpfr_get_d (&y->left, MPFR_RNDD);
      out->hi[j] = mpfr_get_d (&y->right, MPFR_RNDU);
      /* now [lo, hi] contains f over the input boxes: y does, and the ends were rounded outward */
    }
  for (int i = 0; i < d->n_in; i++)
    mpfi_clear (x[i]);
  mpfi_clear (y);
  ik_scratch_clear (&s);
  return st;
}

static cn_status
ew_mpfi (const cn_node_view *nv, const cn_mpfi_vec *const *in, cn_mpfi_vec *out, cn_error *err)
{
  const struct ew_def *d = ew_def_of (nv->op);
  if (d == NULL || nv->n_in != d->n_in)
    return ew_no_def (nv, err);
  enum wop w;
  if (word_view (nv))
    return ew_word_op (d, &w) ? word_mpfi (d->name, w, nv, in, out, err) : ew_no_words (d, nv, err);
  cn_status st = cn__mpfi_ok (d->name, nv, in, out, err);
  if (st != CN_OK || out->n == 0)
    return st;
  struct ik_scratch s;
  ik_scratch_init (&s, mpfi_get_prec (out->v[0]));
  mpfi_srcptr xp[EW_MAX_IN];
  for (int64_t j = 0; j < out->n; j++)
    {
      for (int i = 0; i < d->n_in; i++)
        {
          xp[i] = in[i]->v[j];
          if (mpfi_nan_p (xp[i]))
            {
              st = cn_error_set (err, CN_ENUMERIC, "%s: NaN in input enclosure %d at entry %lld (node '%s')", d->name,
                                 i, (long long) j, cn__node_name (nv));
              goto done;
            }
        }
      if (ew_entry (d, out->v[j], xp, nv->params, &s) != IK_OK)
        {
          st = cn_error_set (err, CN_ENUMERIC, "%s: part of the input enclosure at entry %lld has no real value (node '%s')",
                             d->name, (long long) j, cn__node_name (nv));
          goto done;
        }
    }
done:
  ik_scratch_clear (&s);
  return st;
}

/* ---- checks --------------------------------------------------------------------------- */

static cn_status
check_nary (const char *op, int k, int n_in, const cn_shape *const *in, cn_shape *out, cn_error *err)
{
  if (k == 1)
    return cn__check_unary (op, n_in, in, out, err);
  if (k == 2)
    return cn__check_binary (op, n_in, in, out, err);
  if (n_in != k)
    return cn_error_set (err, CN_EINVAL, "%s: takes %d inputs, got %d", op, k, n_in);
  for (int i = 0; i < k; i++)
    {
      cn_status st = cn__input_valid (op, i, in[i], err);
      if (st != CN_OK)
        return st;
    }
  for (int i = 1; i < k; i++)
    if (!cn_shape_equal (in[0], in[i]))
      {
        char a[128], b[128];
        return cn_error_set (err, CN_ESHAPE, "%s: input shapes %s and %s differ", op,
                             cn_shape_format (in[0], a, sizeof a), cn_shape_format (in[i], b, sizeof b));
      }
  *out = *in[0];
  return CN_OK;
}

#define EW_NO_PARAMS(lname, k)                                                                         \
  static cn_status lname##_check (const struct cn_op_rule *rule, const void *p, int n_in, const cn_shape *const *in, cn_shape *out,   \
                                  cn_error *err)                                                       \
  { (void) rule;                                                                                                    \
    (void) p;                                                                                          \
    return check_nary (#lname, k, n_in, in, out, err);                                                 \
  }

EW_NO_PARAMS (abs, 1)
EW_NO_PARAMS (rsqrt, 1)
EW_NO_PARAMS (cbrt, 1)
EW_NO_PARAMS (reciprocal, 1)
EW_NO_PARAMS (square, 1)
EW_NO_PARAMS (pow, 2)
EW_NO_PARAMS (fmod, 2)
EW_NO_PARAMS (remainder, 2)
EW_NO_PARAMS (hypot, 2)
EW_NO_PARAMS (copysign, 2)
EW_NO_PARAMS (nextafter, 2)
EW_NO_PARAMS (lerp, 3)
EW_NO_PARAMS (nanToNum, 1)
EW_NO_PARAMS (fullLike, 1)

static cn_status
sqrt_check (const struct cn_op_rule *rule, const void *p, int n_in, const cn_shape *const *in, cn_shape *out, cn_error *err)
{
  (void) rule;
  const cn_params_sqrt *a = p;
  if (a == NULL)
    return cn_error_set (err, CN_EINVAL, "sqrt: missing attributes");
  if (a->mode != CN_SQRT_RAW && a->mode != CN_SQRT_CLAMP_NEGATIVE)
    return cn_error_set (err, CN_EINVAL, "sqrt: unknown mode %d", (int) a->mode);
  return cn__check_unary ("sqrt", n_in, in, out, err);
}

static cn_status
scale_check (const struct cn_op_rule *rule, const void *p, int n_in, const cn_shape *const *in, cn_shape *out, cn_error *err)
{
  (void) rule;
  const cn_params_scale *a = p;
  if (a == NULL)
    return cn_error_set (err, CN_EINVAL, "scale: missing attributes");
  if (!isfinite (a->factor))
    return cn_error_set (err, CN_EINVAL, "scale: factor %g is not finite", a->factor);
  return cn__check_unary ("scale", n_in, in, out, err);
}

static cn_status
addc_check (const char *op, const void *p, int n_in, const cn_shape *const *in, cn_shape *out, cn_error *err)
{
  const cn_params_addc *a = p;
  if (a == NULL)
    return cn_error_set (err, CN_EINVAL, "%s: missing attributes", op);
  if (!isfinite (a->value))
    return cn_error_set (err, CN_EINVAL, "%s: value %g is not finite", op, a->value);
  return check_nary (op, 3, n_in, in, out, err);
}

static cn_status
addcmul_check (const struct cn_op_rule *rule, const void *p, int n_in, const cn_shape *const *in, cn_shape *out, cn_error *err)
{
  (void) rule;
  return addc_check ("addcmul", p, n_in, in, out, err);
}

static cn_status
addcdiv_check (const struct cn_op_rule *rule, const void *p, int n_in, const cn_shape *const *in, cn_shape *out, cn_error *err)
{
  (void) rule;
  return addc_check ("addcdiv", p, n_in, in, out, err);
}

static cn_status
eps_check (const char *op, int k, int nonneg, const void *p, int n_in, const cn_shape *const *in, cn_shape *out,
           cn_error *err)
{
  const cn_params_epsilon *a = p;
  if (a == NULL)
    return cn_error_set (err, CN_EINVAL, "%s: missing attributes", op);
  if (!isfinite (a->eps) || (nonneg && a->eps < 0))
    return cn_error_set (err, CN_EINVAL, "%s: epsilon %g is not a finite%s number", op, a->eps,
                         nonneg ? " nonnegative" : "");
  return check_nary (op, k, n_in, in, out, err);
}

static cn_status
safeDiv_check (const struct cn_op_rule *rule, const void *p, int n_in, const cn_shape *const *in, cn_shape *out, cn_error *err)
{
  (void) rule;
  return eps_check ("safeDiv", 2, 0, p, n_in, in, out, err);
}

static cn_status
safeInv_check (const struct cn_op_rule *rule, const void *p, int n_in, const cn_shape *const *in, cn_shape *out, cn_error *err)
{
  (void) rule;
  return eps_check ("safeInv", 1, 0, p, n_in, in, out, err);
}

static cn_status
safeLog_check (const struct cn_op_rule *rule, const void *p, int n_in, const cn_shape *const *in, cn_shape *out, cn_error *err)
{
  (void) rule;
  return eps_check ("safeLog", 1, 1, p, n_in, in, out, err);
}

static cn_status
smoothAbs_check (const struct cn_op_rule *rule, const void *p, int n_in, const cn_shape *const *in, cn_shape *out, cn_error *err)
{
  (void) rule;
  return eps_check ("smoothAbs", 1, 1, p, n_in, in, out, err);
}

#define EW_RULE(ID, lname, k, kinds, psize)                                                             \
  const struct cn_op_rule cn__rule_##ID = { .op = CN_OP_##ID,                                                            \
    .n_in = k, .in_kind = kinds, .params_size = psize, .check = lname##_check, .forward = ew_forward,    \
    .pullback = ew_pullback, .jvp = ew_jvp, .ibp = ew_ibp, .ibp_mpfi = ew_mpfi,                         \
  };

/* pow and remainder: two element ports (the model's scalar, or one integer sort). */
#define EW_ELEMENT_RULE(ID, lname)                                                                     \
  ARITH_OUT_SORT (lname)                                                                               \
  const struct cn_op_rule cn__rule_##ID = { .op = CN_OP_##ID,                                                            \
    .n_in = 2, .in_kind = element2, .out_sort = lname##_out_sort, .check = lname##_check,              \
    .sorts = "f64, f32, words",                                                                        \
    .forward = ew_forward, .pullback = ew_pullback, .jvp = ew_jvp, .ibp = ew_ibp, .ibp_mpfi = ew_mpfi,  \
  };

EW_RULE (ABS, abs, 1, NULL, 0)
EW_RULE (SQRT, sqrt, 1, NULL, sizeof (cn_params_sqrt))
EW_RULE (RSQRT, rsqrt, 1, NULL, 0)
EW_RULE (CBRT, cbrt, 1, NULL, 0)
EW_RULE (RECIPROCAL, reciprocal, 1, NULL, 0)
EW_RULE (SQUARE, square, 1, NULL, 0)
EW_ELEMENT_RULE (POW, pow)
EW_RULE (SCALE, scale, 1, NULL, sizeof (cn_params_scale))
EW_RULE (FMOD, fmod, 2, NULL, 0)
EW_ELEMENT_RULE (REMAINDER, remainder)
EW_RULE (HYPOT, hypot, 2, NULL, 0)
EW_RULE (COPYSIGN, copysign, 2, NULL, 0)
EW_RULE (NEXTAFTER, nextafter, 2, frozen2, 0)
EW_RULE (LERP, lerp, 3, NULL, 0)
EW_RULE (ADDCMUL, addcmul, 3, NULL, sizeof (cn_params_addc))
EW_RULE (ADDCDIV, addcdiv, 3, NULL, sizeof (cn_params_addc))
EW_RULE (NAN_TO_NUM, nanToNum, 1, NULL, sizeof (cn_params_nan_to_num))
EW_RULE (FULL_LIKE, fullLike, 1, NULL, sizeof (cn_params_full_like))
EW_RULE (SAFE_DIV, safeDiv, 2, NULL, sizeof (cn_params_epsilon))
EW_RULE (SAFE_INV, safeInv, 1, NULL, sizeof (cn_params_epsilon))
EW_RULE (SAFE_LOG, safeLog, 1, NULL, sizeof (cn_params_epsilon))
EW_RULE (SMOOTH_ABS, smoothAbs, 1, NULL, sizeof (cn_params_epsilon))
