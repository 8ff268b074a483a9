/* SPDX-License-Identifier: MIT */
/* src/ops/logic.c: comparisons, predicates and logic (eq, ne, lt, le, gt, ge, isNaN, isInf,
 * isFinite, logicalNot, logicalAnd, logicalOr, logicalXor), select and cast.
 *
 * Sorts (certnn/ops.h, "element sorts").  The comparisons read two operands of ONE sort at ANY
 * ports (never differentiated): the model's scalar, Booleans or one integer sort (the seed's
 * Op.NumericElement; out_sort refuses two sorts, "lt: input 1 holds u8 where input 0 holds
 * i32"), and return Booleans; the predicates read the model's scalar at a frozen port and return
 * Booleans; the logical operators read and return Booleans; select reads a Boolean condition and
 * two element ports (the seed's Op.Element: value ports at the model's scalar, or Booleans, or
 * words of one sort) and returns their sort; cast reads any sort at its one ANY port and returns
 * cn_params_cast.to.  Every operator works
 * entry by entry on inputs of one shape (the check refuses differing shapes, "op: input shapes
 * [2] and [3] differ").  A Boolean tensor holds one byte per entry; the arms read any nonzero
 * byte as true and write 0 or 1.
 *
 * The comparisons, predicates and logical operators share their arms: each rule's impl (struct
 * bool_impl) holds the operator's case within its family and the sort its ports take.  Every arm
 * receives tensors, boxes and vectors of the node's shape and of the sorts out_sort admitted
 * (the graph builder checked the node): it states that with CN__ASSERTD, and refuses only values.
 *
 * Boxes and MPFI enclosures of Booleans and words hold the numbers themselves: a Boolean box
 * [1, 1] is known true, [0, 0] known false, [0, 1] unknown.  The arms read a Boolean box [l, h]
 * with the semantics "true = nonzero" (the semantics of cast to bool): it may be true iff it
 * holds a nonzero real (l < 0 or h > 0) and may be false iff it holds 0 (l <= 0 <= h).  On the
 * boxes the arms produce ([0, 0], [1, 1], [0, 1]) this is the plain reading; on any other box
 * it stays sound for a value that is any real of the box read as "nonzero".  A NaN end in any
 * input box or enclosure is CN_ENUMERIC (naming the operator and node); an infinite end is a
 * limit (nothing known on that side) and compares as the extended real it is.
 *
 * Boxes hold the EXACT REAL values of the network (ALGORITHMS.md 1): a value is a real number,
 * never a NaN or an infinity, even where the floating-point forward overflows or meets 0/0.
 * So the IBP and MPFI arms of the predicates and comparisons decide on reals, and the forward
 * (IEEE, in the evaluation's sort) can disagree with them exactly where the floating-point
 * forward departs from the reals (an overflow, a NaN, or a rounding that moves a value across
 * the other operand of a comparison); that is the usual gap between a float evaluation and the
 * exact network the bounds are about, not a flaw of these arms.
 *
 * eq, ne, lt, le, gt, ge   v = (a OP b), a and b ANY ports of one shape and one sort, v bool.
 *   forward  the model's scalar: the IEEE comparison in the tensors' sort (f64 or f32; both
 *            operands are read as doubles, which is exact): a NaN operand makes every comparison
 *            false and ne true.  Booleans (false < true) and words: exactly, in the sort's order
 *            (the sign first, then the value modulo 2^64: u64 and i64 words are compared as
 *            words, never through doubles).
 *            The IBP and MPFI arms below serve every sort: a box holds the words' values.
 *   IBP      boxes [al, ah] and [bl, bh].  With c1 = sign(al - bh) and c2 = sign(ah - bl)
 *            (exact comparisons of doubles, infinities as extended reals):
 *              gt  known true iff al > bh, known false iff ah <= bl;
 *              ge  known true iff al >= bh, known false iff ah < bl;
 *              lt  known true iff ah < bl, known false iff al >= bh;
 *              le  known true iff ah <= bl, known false iff al > bh;
 *              eq  known true iff both boxes are the same finite point (c1 = c2 = 0 forces
 *                  al = ah = bl = bh), known false iff the boxes are disjoint (al > bh or
 *                  ah < bl);  ne  the negation of eq.
 *            E.g. gt: for every real a in [al, ah] and b in [bl, bh], al > bh gives a >= al >
 *            bh >= b, and ah <= bl gives a <= ah <= bl <= b.  Otherwise [0, 1].  The decision
 *            is exact: no rounding anywhere.
 *   MPFI     the same decisions with mpfr_cmp on the enclosures' ends; exact at points.
 *   Gradient none: no value input (the seed's table); no pullback, no jvp.
 *   CROWN    (all Boolean-valued operators here; beyond the seed's table, so that a sweep can
 *            pass the condition of select) the output is discharged over its own IBP box:
 *            bias[s] += cn__box_min_dot (lam_out[s], box), a lower bound of lam_out[s] . v
 *            with its rounding charged; no coefficient reaches the inputs.  A zero lam_out (what
 *            select sends its condition) adds nothing.  The comparisons carry
 *            CN_RULE_NEEDS_BOUNDS, so that CROWN tightens their operands' boxes first (a tighter
 *            box decides more entries).
 * isNaN, isInf, isFinite   one frozen port, v bool.
 *   forward  C99 isnan, isinf, isfinite in the tensor's sort.
 *   IBP      the box holds the exact real value, which is never NaN nor infinite: isNaN and
 *            isInf are known false [0, 0] and isFinite known true [1, 1].  One exception: a
 *            degenerate box [+inf, +inf] or [-inf, -inf] holds no real at all; it can only come
 *            from a value the arms already hold as an IEEE infinity, so isInf and isFinite are
 *            left unknown [0, 1] there (isNaN stays [0, 0]: no arm makes a NaN box).
 *   MPFI     the same (mpfr_inf_p of equal ends for the exception); exact at finite points.
 *   Gradient none: no value input.  CROWN: as the comparisons (own box).
 * logicalNot, logicalAnd, logicalOr, logicalXor   bool ports, v bool.
 *   forward  the truth tables on "nonzero = true", written as 0 or 1.
 *   IBP      with F and T ("may be false", "may be true") of each operand box as above:
 *              not  F = T_a, T = F_a;   and  T = T_a T_b, F = F_a or F_b;
 *              or   T = T_a or T_b, F = F_a F_b;
 *              xor  T = T_a F_b or F_a T_b, F = T_a T_b or F_a F_b;
 *            the output is [F ? 0 : 1, T ? 1 : 0].  The operands are taken as independent (every
 *            pair of possible truth values), which covers any dependence between them.
 *   MPFI     the same with mpfr_sgn on the ends; exact at points.
 *   Gradient none: no value input.  CROWN: as the comparisons (own box).
 * select   v = c ? a : b (torch.where): c a bool port, a and b element ports of one sort (the
 *          model's scalar, Booleans or one integer sort; out_sort refuses two), one shape, v of
 *          that sort.
 *   forward  a copy of a[j] or b[j] in the tensors' sort (exact); Booleans and words are copied
 *            as they are.  The arms below hold for every sort (the boxes hold the values; the
 *            CROWN pass-through lam_a = lam is exact since v = a on such entries, no wrap); the
 *            pullback and jvp see binary64 only (a Boolean or word select gets no cotangent).
 *   IBP      c known true: [al, ah]; known false: [bl, bh]; unknown: the hull [min(al, bl),
 *            max(ah, bh)].  Exact (no rounding).
 *   MPFI     mpfi_set of the chosen enclosure, mpfi_union of both when c is unknown; exact at
 *            points.
 *   pullback g_a[j] += c_j ? g[j] : 0 and g_b[j] += c_j ? 0 : g[j]; the condition gets nothing
 *            (a bool port).  c is read from the forward values whatever sort they are held in
 *            (bool bytes or 0/1 doubles), nonzero as true.  select is piecewise the identity
 *            of one operand, so this is its derivative at every point (no one-sided choice).
 *   jvp      t[j] = c_j ? t_a[j] : t_b[j] (a missing tangent is zero): the transpose of the
 *            pullback.
 *   CROWN    (beyond the seed's table, which has IBP only) entry j with c known true on its box
 *            (T and not F) passes lam_j through to a (lam_a[j] = lam_j, exact), known false to
 *            b; an entry whose condition is unknown, or whose chosen operand is a constant (no
 *            coefficients), is discharged over its box (the hull, or the chosen operand's):
 *            bias += cn__box_min_dot of those entries (a lower bound of their minimum, the
 *            rounding charged there; -inf, a charge of +inf, if an infinite end is needed).  So
 *            lam . v = lam_a . a + lam_b . b + (discharged part) >= ... + bias exactly.  The
 *            condition gets no coefficients (zero).  CN_RULE_NEEDS_BOUNDS: the arm reads the
 *            boxes.
 * cast     v = cast(x) to cn_params_cast.to, x at an ANY port (certnn/ops.h).  out_sort: TO must
 *          be a sort (CN_DTYPE_F64 .. CN_DTYPE_BF16) and the input's sort one too; the output is
 *          the model's scalar when TO is f64 or f32 (the two mean the same: a cast from the
 *          model's scalar to f32 is the identity in an f64 evaluation, not a rounding to
 *          binary32), else TO.  The rule sees its input's sort as it is (CN_RULE_SORTS_LITERAL)
 *          and declares the output's: TO for a reduced format (f16, bf16) and for f64 or f32
 *          out of one (the value leaves the format); otherwise, as every rule records the
 *          model's scalar, the input's floating sort (f64 from a word).
 *          To a reduced format R (binary16, bfloat16) the cast is v = RN_R(x), x rounded to
 *          nearest even in R (cn_dtype_round: R's subnormals, +-inf past its largest number and
 *          that number's tie) in every evaluation, the model's scalar then holding R's number:
 *          the rounding is the function, as a quantisation is.
 *   forward  scalar -> scalar: the value (converted to the output tensor's sort, the same sort in
 *            every evaluation, so exact).  bool or integer -> scalar: one conversion rounded to
 *            nearest in the output's sort (C's (double) w or (float) w of the word, never through
 *            another format: correctly rounded, so 0.5 ulp at most, exact for |w| <= 2^53 in
 *            f64 and |w| <= 2^24 in f32).  scalar -> integer: trunc(x), exact; every entry is
 *            checked first, and a NaN or a trunc(x) outside the target's range fails with
 *            CN_ENUMERIC before anything is written.  anything -> bool: x != 0 (a NaN is
 *            true).  -> R: RN_R(x) of the value (a word beyond 2^53 first rounded to odd in
 *            binary64, so that the one rounding to R is the correct one, as Boldo and Melquiond
 *            prove for p' >= p + 2).  integer or bool -> integer: the word's value modulo 2^N read in the
 *            target's N bits (two's complement when signed), as torch's .to(); exact.
 *   IBP      the input box [l, h] holds the exact real value (a word's box holds the word).
 *            -> scalar: [l, h] (the value is unchanged in the reals; the arms' Boolean boxes
 *               have ends 0 and 1, so a bool source needs nothing more).  The forward's
 *               rounding of a word beyond 2^53 stays inside [l, h] too, since l and h are
 *               doubles and rounding to nearest is monotone.
 *            -> bool: the "nonzero" reading above, [F ? 0 : 1, T ? 1 : 0].
 *            -> R: [RN_R(l), RN_R(h)]: RN_R is nondecreasing, so it holds RN_R(x) for every x
 *               of [l, h]; exact at a point.
 *            -> integer, from the model's scalar (or from a source whose sort the node view
 *               does not carry, nv->in_sort NULL): trunc is nondecreasing, so [trunc l,
 *               trunc h] (exact doubles).  If that leaves the target's range [min, max] (or an
 *               end is infinite) the forward fails somewhere in the box, and the arm refuses
 *               with CN_ENUMERIC ("cast: the box [l, h] at entry j leaves the range of i8 (node
 *               'name')"), never a box.  The range test is exact: trunc l >= min and trunc h <
 *               max + 1, both powers of two or 0 (max + 1 = 2^63 and 2^64 for the 64-bit sorts,
 *               which are doubles while max is not).
 *            -> integer, from a Boolean or integer word of sort S (nv->in_sort): the box holds
 *               the words [a, b] = [ceil l, floor h] cut to S's range (none: CN_ENUMERIC, "holds
 *               no u8 word").  Inside the target's range too, the cast keeps them: [a, b].
 *               Otherwise it wraps, w -> w - k 2^N with k = floor ((w - min) / 2^N), which is
 *               increasing while k is constant: [a - k 2^N, b - k 2^N] when a and b share k (a
 *               point in particular: exact), else the target's whole range [min, max].  This
 *               is computed exactly in MPFR at 128 bits (every word is below 2^64 in magnitude)
 *               and rounded outward to doubles (mpfr_get_d RNDD / RNDU: the 64-bit ends beyond
 *               2^53).
 *   MPFI     the same: mpfi_set; mpfr_sgn; to R, each end rounded to odd in binary64 (RNDZ, then
 *            the odd one of the two neighbours when inexact) and then to R, which is RN_R of
 *            the end (round to odd with 53 >= 11 + 2 bits); for a scalar source mpfr_trunc of the ends into
 *            variables of the ends' precision (exact), the range test by mpfr_cmp_d, and
 *            mpfi_interv_fr (outward); for a word source the same 128-bit wrap of the
 *            enclosure's ends, written with mpfi_interv_fr.  Exact at points.
 *   Gradient no value input (the seed: "no value input; forward mode"): no pullback; the jvp
 *            writes zero tangents.
 *   CROWN    to the model's scalar, the identity line; to R, x - e <= RN_R(x) <= x + e with
 *            e = 2^-p max(|l|, |u|) + q / 2 over the box (p R's precision, q its least
 *            subnormal: half an ulp, relative in the normal range, q / 2 below it), rounded up;
 *            a box reaching past R's largest number and its tie (the cast may overflow) gets
 *            the node's own box; from the model's scalar to an integer sort, trunc's lines
 *            of slope 1 (or the box's ends where tighter); to bool and from words, the node's
 *            own box (cast_crown).
 *
 * Forward accuracy: every forward here is exact (a comparison, a copy, trunc, a wrap) except
 * cast from a bool or an integer word to the model's scalar, which is one conversion rounded to
 * nearest (correctly rounded: at most 0.5 ulp, 0 for the words a graph constant may hold). */
#include <config.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "ops/unary_impl.h"
#include "core/reduced.h"

/* ---- shared helpers ------------------------------------------------------------------- */

/* Entry J of the floating tensor T (f64 or f32) as a double (exact). */
static inline double
fval (const cn_tensor *t, int64_t j)
{
  return t->dtype == CN_DTYPE_F64 ? ((const double *) t->data)[j] : (double) ((const float *) t->data)[j];
}

/* Entry J of a tensor of any sort read as a truth value: nonzero is true (a NaN too). */
static inline int
truth (const cn_tensor *t, int64_t j)
{
  switch (t->dtype)
    {
    case CN_DTYPE_F64: return ((const double *) t->data)[j] != 0;
    case CN_DTYPE_F32: return ((const float *) t->data)[j] != 0;
    case CN_DTYPE_BOOL:
    case CN_DTYPE_U8: return ((const uint8_t *) t->data)[j] != 0;
    case CN_DTYPE_I8: return ((const int8_t *) t->data)[j] != 0;
    case CN_DTYPE_I16: return ((const int16_t *) t->data)[j] != 0;
    case CN_DTYPE_U16: return ((const uint16_t *) t->data)[j] != 0;
    case CN_DTYPE_I32: return ((const int32_t *) t->data)[j] != 0;
    case CN_DTYPE_U32: return ((const uint32_t *) t->data)[j] != 0;
    case CN_DTYPE_I64: return ((const int64_t *) t->data)[j] != 0;
    case CN_DTYPE_U64: return ((const uint64_t *) t->data)[j] != 0;
    default: return 0;
    }
}

/* The classes of sorts a tensor may be asked to have. */
enum sort_class { SC_FLOAT, SC_BOOL, SC_ANY };

static int
sort_valid (cn_dtype t)
{
  return (unsigned) t < CN_DTYPE_COUNT;
}

static inline int
sort_in_class (cn_dtype t, enum sort_class k)
{
  switch (k)
    {
    case SC_FLOAT: return cn_dtype_is_float (t);
    case SC_BOOL: return t == CN_DTYPE_BOOL;
    default: return sort_valid (t);
    }
}

/* Whether the tensor T has the node's element count and a sort of class K: what the graph builder
 * gives every arm (stated with CN__ASSERTD; the arms read nothing past what this admits). */
static inline int
tensor_fits (const cn_node_view *nv, const cn_tensor *t, enum sort_class k)
{
  return sort_in_class (t->dtype, k) && cn_tensor_numel (t) == cn__numel (nv->out_shape);
}

/* The Boolean box of a result that may be false (MF) and may be true (MT); at least one holds. */
static inline void
bool_box (int mf, int mt, double *lo, double *hi)
{
  *lo = mf ? 0 : 1;
  *hi = mt ? 1 : 0;
}

static inline void
bool_mpfi (mpfi_ptr v, int mf, int mt)
{
  mpfi_interv_si (v, mf ? 0 : 1, mt ? 1 : 0);
}

/* "May be true" and "may be false" of a box read as "nonzero = true": the box holds a nonzero
 * real, the box holds 0. */
static inline int
may_true (double l, double h)
{
  return l < 0 || h > 0;
}

static inline int
may_false (double l, double h)
{
  return l <= 0 && h >= 0;
}

static inline int
may_true_fr (mpfi_srcptr v)
{
  return mpfr_sgn (&v->left) < 0 || mpfr_sgn (&v->right) > 0;
}

static inline int
may_false_fr (mpfi_srcptr v)
{
  return mpfr_sgn (&v->left) <= 0 && mpfr_sgn (&v->right) >= 0;
}

static cn_status
nan_box (const cn_node_view *nv, int i, int64_t j, cn_error *err)
{
  return cn_error_set (err, CN_ENUMERIC, "%s: input %d has a NaN end at entry %lld (node '%s')", cn_op_name (nv->op),
                       i, (long long) j, cn__node_name (nv));
}

/* CN_OK unless some end of box I (of the N_IN) at entry J is NaN. */
static cn_status
boxes_finite_at (const cn_node_view *nv, int n_in, const cn_box *const *in, int64_t j, cn_error *err)
{
  for (int i = 0; i < n_in; i++)
    if (isnan (in[i]->lo[j]) || isnan (in[i]->hi[j]))
      return nan_box (nv, i, j, err);
  return CN_OK;
}

static cn_status
mpfi_finite_at (const cn_node_view *nv, int n_in, const cn_mpfi_vec *const *in, int64_t j, cn_error *err)
{
  for (int i = 0; i < n_in; i++)
    if (mpfi_nan_p (in[i]->v[j]))
      return nan_box (nv, i, j, err);
  return CN_OK;
}

/* Whether the value at entry J of a Boolean-valued family's case K may be false (*MF) and may
 * be true (*MT), over input boxes or MPFI enclosures whose ends are not NaN. */
typedef void (*box_decide) (int k, const cn_box *const *in, int64_t j, int *mf, int *mt);
typedef void (*mpfi_decide) (int k, const cn_mpfi_vec *const *in, int64_t j, int *mf, int *mt);

/* What the shared arms of a Boolean-valued operator (comparisons, predicates, logic) read of it,
 * its rule's impl: its case K within its family (enum cmp, enum pred or enum lop, the family's
 * vocabulary), the sort WANT its ports take (CN_DTYPE_F64: the model's scalar; CN_DTYPE_BOOL;
 * CN_DTYPE_COUNT: any one sort, cmp_out_sort), and its family's deciders. */
struct bool_impl
{
  int k;
  cn_dtype want;
  box_decide box;
  mpfi_decide mpfi;
};

/* The case K of the rule of NV. */
static inline int
bool_case (const cn_node_view *nv)
{
  return ((const struct bool_impl *) nv->rule->impl)->k;
}

/* The IBP arm of a Boolean-valued operator with the rule's n_in inputs: every entry's box is the
 * Boolean box of the decider's answer for the rule's case. */
static cn_status
bool_ibp (const cn_node_view *nv, const cn_box *const *in, cn_box *out, cn_error *err)
{
  const struct bool_impl *d = nv->rule->impl;
  int n_in = nv->rule->n_in;
  CN__ASSERTD (out->n == cn__numel (nv->out_shape));
  for (int i = 0; i < n_in; i++)
    CN__ASSERTD (in[i]->n == out->n);
  cn_status st;
  for (int64_t j = 0; j < out->n; j++)
    {
      if ((st = boxes_finite_at (nv, n_in, in, j, err)) != CN_OK)
        return st;
      int mf, mt;
      d->box (d->k, in, j, &mf, &mt);
      bool_box (mf, mt, &out->lo[j], &out->hi[j]);
    }
  return CN_OK;
}

/* The MPFI arm of the same, the decider reading the enclosures. */
static cn_status
bool_mpfi_arm (const cn_node_view *nv, const cn_mpfi_vec *const *in, cn_mpfi_vec *out, cn_error *err)
{
  const struct bool_impl *d = nv->rule->impl;
  int n_in = nv->rule->n_in;
  CN__ASSERTD (out->n == cn__numel (nv->out_shape));
  for (int i = 0; i < n_in; i++)
    CN__ASSERTD (in[i]->n == out->n);
  cn_status st;
  for (int64_t j = 0; j < out->n; j++)
    {
      if ((st = mpfi_finite_at (nv, n_in, in, j, err)) != CN_OK)
        return st;
      int mf, mt;
      d->mpfi (d->k, in, j, &mf, &mt);
      bool_mpfi (out->v[j], mf, mt);
    }
  return CN_OK;
}

static cn_status cmp_out_sort (const char *op, int n_in, const cn_dtype *in, cn_dtype *out, cn_error *err);

/* The out_sort arm of a Boolean-valued operator whose ports all take the impl's sort WANT and
 * whose output is Boolean.  The graph builder has checked the ports; this repeats it for direct
 * callers. */
static cn_status
bool_out_sort (const struct cn_op_rule *rule, const void *p, int n_in, const cn_dtype *in, cn_dtype *out,
               cn_error *err)
{
  (void) p;
  const char *op = cn_op_name (rule->op);
  cn_dtype want = ((const struct bool_impl *) rule->impl)->want;
  if (want == CN_DTYPE_COUNT)
    return cmp_out_sort (op, n_in, in, out, err);   /* the comparisons: any one sort */
  for (int i = 0; i < n_in; i++)
    if (want == CN_DTYPE_BOOL ? in[i] != CN_DTYPE_BOOL : !cn_dtype_is_float (in[i]))
      return cn_error_set (err, CN_EINVAL, "%s: input %d has sort %s where %s is expected", op, i,
                           sort_valid (in[i]) ? cn_dtype_name (in[i]) : "(invalid)",
                           want == CN_DTYPE_BOOL ? "bool" : "the model's scalar");
  *out = CN_DTYPE_BOOL;
  return CN_OK;
}

/* The CROWN arm of the Boolean-valued operators (comparisons, predicates, logic; see the
 * header) is cn__crown_own_box: lam_out[s] . v >= r_s for every v of the node's own IBP box,
 * with r_s from cn__box_min_dot (a lower bound of the minimum, its rounding charged there); no
 * coefficient reaches the inputs. */

static const cn_port_kind frozen1[1] = { CN_PORT_FROZEN };
static const cn_port_kind bool2[2] = { CN_PORT_BOOL, CN_PORT_BOOL };
static const cn_port_kind bool1[1] = { CN_PORT_BOOL };
static const cn_port_kind select_ports[3] = { CN_PORT_BOOL, CN_PORT_ELEMENT, CN_PORT_ELEMENT };
static const cn_port_kind any2[2] = { CN_PORT_ANY, CN_PORT_ANY };
static const cn_port_kind any1[1] = { CN_PORT_ANY };

/* ---- comparisons ---------------------------------------------------------------------- */

enum cmp { CMP_EQ, CMP_NE, CMP_LT, CMP_LE, CMP_GT, CMP_GE };

static inline int
cmp_apply (enum cmp k, double a, double b)
{
  switch (k)
    {
    case CMP_EQ: return a == b;
    case CMP_NE: return a != b;
    case CMP_LT: return a < b;
    case CMP_LE: return a <= b;
    case CMP_GT: return a > b;
    default: return a >= b;
    }
}

/* The decision of a comparison over two boxes (see the header): C1 the sign of al - bh, C2 that
 * of ah - bl, POINT whether both boxes are one and the same finite point.  Writes whether the
 * result may be false (*MF) and may be true (*MT). */
static void
cmp_decide (enum cmp k, int c1, int c2, int point, int *mf, int *mt)
{
  int t, f;   /* known true, known false */
  switch (k)
    {
    case CMP_GT: t = c1 > 0; f = c2 <= 0; break;
    case CMP_GE: t = c1 >= 0; f = c2 < 0; break;
    case CMP_LT: t = c2 < 0; f = c1 >= 0; break;
    case CMP_LE: t = c2 <= 0; f = c1 > 0; break;
    case CMP_EQ: t = point; f = c1 > 0 || c2 < 0; break;
    default: t = c1 > 0 || c2 < 0; f = point; break;
    }
  /* both only for boxes with an end past the other (lo > hi): then nothing is decided */
  if (t && f)
    t = f = 0;
  *mf = !t;
  *mt = !f;
}

static uint64_t word_get (const cn_tensor *t, int64_t j, int *neg);

/* The comparison K of two words (or Booleans) given as in word_get: exactly, by the sign first
 * and then the value modulo 2^64 (which orders two words of one sign as their values). */
static int
cmp_words (enum cmp k, uint64_t a, int na, uint64_t b, int nb)
{
  int c = na != nb ? (na ? -1 : 1) : (a > b) - (a < b);
  switch (k)
    {
    case CMP_EQ: return c == 0;
    case CMP_NE: return c != 0;
    case CMP_LT: return c < 0;
    case CMP_LE: return c <= 0;
    case CMP_GT: return c > 0;
    default: return c >= 0;
    }
}

/* The out_sort arm of the comparisons: two ANY ports of one sort (the model's scalar, Booleans or
 * one integer sort), a Boolean output. */
static cn_status
cmp_out_sort (const char *op, int n_in, const cn_dtype *in, cn_dtype *out, cn_error *err)
{
  if (n_in != 2)
    return cn_error_set (err, CN_EINVAL, "%s: takes 2 inputs, got %d", op, n_in);
  for (int i = 0; i < 2; i++)
    if (!sort_valid (in[i]))
      return cn_error_set (err, CN_EINVAL, "%s: input %d has an invalid sort %d", op, i, (int) in[i]);
  int f0 = cn_dtype_is_float (in[0]);
  if (cn_dtype_is_float (in[1]) != f0 || (!f0 && in[1] != in[0]))
    return cn_error_set (err, CN_EINVAL, "%s: input 1 holds %s where input 0 holds %s", op,
                         cn_dtype_is_float (in[1]) ? "the model's scalar" : cn_dtype_name (in[1]),
                         f0 ? "the model's scalar" : cn_dtype_name (in[0]));
  *out = CN_DTYPE_BOOL;
  return CN_OK;
}

static cn_status
cmp_forward (const cn_node_view *nv, const cn_tensor *const *in, cn_tensor *out, cn_error *err)
{
  (void) err;
  enum cmp k = (enum cmp) bool_case (nv);
  int words = !cn_dtype_is_float (in[0]->dtype);
  enum sort_class sc = words ? SC_ANY : SC_FLOAT;
  /* the operands of one sort (out_sort) and the Boolean output, all of the node's shape */
  CN__ASSERTD (tensor_fits (nv, in[0], sc) && tensor_fits (nv, in[1], sc) && tensor_fits (nv, out, SC_BOOL));
  CN__ASSERTD (!words || in[1]->dtype == in[0]->dtype);
  (void) sc;
  int64_t n = cn_tensor_numel (out);
  uint8_t *o = out->data;
  if (!words)
    for (int64_t j = 0; j < n; j++)
      o[j] = (uint8_t) cmp_apply (k, fval (in[0], j), fval (in[1], j));
  else
    for (int64_t j = 0; j < n; j++)
      {
        int na, nb;
        uint64_t a = word_get (in[0], j, &na), b = word_get (in[1], j, &nb);
        o[j] = (uint8_t) cmp_words (k, a, na, b, nb);
      }
  return CN_OK;
}

static void
cmp_box_decide (int k, const cn_box *const *in, int64_t j, int *mf, int *mt)
{
  double al = in[0]->lo[j], ah = in[0]->hi[j], bl = in[1]->lo[j], bh = in[1]->hi[j];
  int c1 = (al > bh) - (al < bh), c2 = (ah > bl) - (ah < bl);
  cmp_decide ((enum cmp) k, c1, c2, c1 == 0 && c2 == 0 && isfinite (al), mf, mt);
}

static void
cmp_mpfi_decide (int k, const cn_mpfi_vec *const *in, int64_t j, int *mf, int *mt)
{
  mpfi_srcptr a = in[0]->v[j], b = in[1]->v[j];
  int c1 = mpfr_cmp (&a->left, &b->right), c2 = mpfr_cmp (&a->right, &b->left);
  cmp_decide ((enum cmp) k, c1, c2, c1 == 0 && c2 == 0 && mpfr_number_p (&a->left), mf, mt);
}

/* The rule of the Boolean-valued operator ID whose data is IMPL: N inputs at the ports KINDS,
 * checked by CHECK, evaluated by FORWARD, with the FLAGS and the SORTS named in reports (NULL:
 * the default); its IBP and MPFI arms are the family's shared ones, its CROWN arm the node's own
 * box (a Boolean has no relaxation). */
#define BOOL_RULE(ID, IMPL, N, KINDS, CHECK, FORWARD, FLAGS, SORTS, ...)                                           \
  const struct cn_op_rule cn__rule_##ID = { .op = CN_OP_##ID, .impl = &IMPL, .n_in = N, .in_kind = KINDS,     \
    .check = CHECK, .out_sort = bool_out_sort, .forward = FORWARD, .ibp = bool_ibp, .ibp_mpfi = bool_mpfi_arm, \
    .crown = cn__crown_own_box, .flags = FLAGS, .sorts = SORTS, .certs = CN__CERTS (__VA_ARGS__),             \
  }

/* The rules of the comparisons: the case in the impl, any one sort at both ports. */
static const struct bool_impl eq_impl = { CMP_EQ, CN_DTYPE_COUNT, cmp_box_decide, cmp_mpfi_decide };
BOOL_RULE (EQ, eq_impl, 2, any2, cn__binary_check, cmp_forward, CN_RULE_NEEDS_BOUNDS, NULL, CN__CERT_IBP);

static const struct bool_impl ne_impl = { CMP_NE, CN_DTYPE_COUNT, cmp_box_decide, cmp_mpfi_decide };
BOOL_RULE (NE, ne_impl, 2, any2, cn__binary_check, cmp_forward, CN_RULE_NEEDS_BOUNDS, NULL, CN__CERT_IBP);

static const struct bool_impl lt_impl = { CMP_LT, CN_DTYPE_COUNT, cmp_box_decide, cmp_mpfi_decide };
BOOL_RULE (LT, lt_impl, 2, any2, cn__binary_check, cmp_forward, CN_RULE_NEEDS_BOUNDS, NULL, CN__CERT_IBP);

static const struct bool_impl le_impl = { CMP_LE, CN_DTYPE_COUNT, cmp_box_decide, cmp_mpfi_decide };
BOOL_RULE (LE, le_impl, 2, any2, cn__binary_check, cmp_forward, CN_RULE_NEEDS_BOUNDS, NULL, CN__CERT_IBP);

static const struct bool_impl gt_impl = { CMP_GT, CN_DTYPE_COUNT, cmp_box_decide, cmp_mpfi_decide };
BOOL_RULE (GT, gt_impl, 2, any2, cn__binary_check, cmp_forward, CN_RULE_NEEDS_BOUNDS, NULL, CN__CERT_IBP);

static const struct bool_impl ge_impl = { CMP_GE, CN_DTYPE_COUNT, cmp_box_decide, cmp_mpfi_decide };
BOOL_RULE (GE, ge_impl, 2, any2, cn__binary_check, cmp_forward, CN_RULE_NEEDS_BOUNDS, NULL, CN__CERT_IBP);

/* ---- isNaN, isInf, isFinite ------------------------------------------------------------- */

enum pred { PRED_NAN, PRED_INF, PRED_FINITE };

static cn_status
pred_forward (const cn_node_view *nv, const cn_tensor *const *in, cn_tensor *out, cn_error *err)
{
  (void) err;
  enum pred k = (enum pred) bool_case (nv);
  CN__ASSERTD (tensor_fits (nv, in[0], SC_FLOAT) && tensor_fits (nv, out, SC_BOOL));
  int64_t n = cn_tensor_numel (out);
  uint8_t *o = out->data;
  for (int64_t j = 0; j < n; j++)
    {
      double x = fval (in[0], j);   /* exact: a float's class is its double's */
      o[j] = (uint8_t) (k == PRED_NAN ? isnan (x) != 0 : k == PRED_INF ? isinf (x) != 0 : isfinite (x) != 0);
    }
  return CN_OK;
}

/* The box of the predicate K over a box that holds no real (INF_POINT: both ends the same
 * infinity) or holds the exact real value (see the header). */
static void
pred_decide (enum pred k, int inf_point, int *mf, int *mt)
{
  switch (k)
    {
    case PRED_NAN: *mf = 1; *mt = 0; break;
    case PRED_INF: *mf = 1; *mt = inf_point; break;
    default: *mf = inf_point; *mt = 1; break;
    }
}

static void
pred_box_decide (int k, const cn_box *const *in, int64_t j, int *mf, int *mt)
{
  double l = in[0]->lo[j], h = in[0]->hi[j];
  pred_decide ((enum pred) k, isinf (l) && l == h, mf, mt);
}

static void
pred_mpfi_decide (int k, const cn_mpfi_vec *const *in, int64_t j, int *mf, int *mt)
{
  mpfi_srcptr x = in[0]->v[j];
  pred_decide ((enum pred) k, mpfr_inf_p (&x->left) && mpfr_equal_p (&x->left, &x->right), mf, mt);
}

/* The rules of the predicates: the case in the impl, the model's scalar at a frozen port. */
static const struct bool_impl isnan_impl = { PRED_NAN, CN_DTYPE_F64, pred_box_decide, pred_mpfi_decide };
BOOL_RULE (IS_NA_N, isnan_impl, 1, frozen1, cn__unary_check, pred_forward, 0, "f64, f32, bool", CN__CERT_IBP);

static const struct bool_impl isinf_impl = { PRED_INF, CN_DTYPE_F64, pred_box_decide, pred_mpfi_decide };
BOOL_RULE (IS_INF, isinf_impl, 1, frozen1, cn__unary_check, pred_forward, 0, "f64, f32, bool", CN__CERT_IBP);

static const struct bool_impl isfinite_impl = { PRED_FINITE, CN_DTYPE_F64, pred_box_decide, pred_mpfi_decide };
BOOL_RULE (IS_FINITE, isfinite_impl, 1, frozen1, cn__unary_check, pred_forward, 0, "f64, f32, bool", CN__CERT_IBP);

/* ---- logicalNot, logicalAnd, logicalOr, logicalXor -------------------------------------- */

enum lop { LOP_NOT, LOP_AND, LOP_OR, LOP_XOR };

static inline int
lop_apply (enum lop k, int a, int b)
{
  switch (k)
    {
    case LOP_NOT: return !a;
    case LOP_AND: return a && b;
    case LOP_OR: return a || b;
    default: return a != b;
    }
}

/* The possible truth values of the result from those of the operands (F: may be false, T: may
 * be true), every pair of operand values taken as possible. */
static void
lop_decide (enum lop k, int fa, int ta, int fb, int tb, int *mf, int *mt)
{
  switch (k)
    {
    case LOP_NOT: *mf = ta; *mt = fa; break;
    case LOP_AND: *mf = fa || fb; *mt = ta && tb; break;
    case LOP_OR: *mf = fa && fb; *mt = ta || tb; break;
    default: *mf = (ta && tb) || (fa && fb); *mt = (ta && fb) || (fa && tb); break;
    }
}

static cn_status
lop_forward (const cn_node_view *nv, const cn_tensor *const *in, cn_tensor *out, cn_error *err)
{
  (void) err;
  enum lop k = (enum lop) bool_case (nv);
  int n_in = k == LOP_NOT ? 1 : 2;
  for (int i = 0; i < n_in; i++)
    CN__ASSERTD (tensor_fits (nv, in[i], SC_BOOL));
  CN__ASSERTD (tensor_fits (nv, out, SC_BOOL));
  int64_t n = cn_tensor_numel (out);
  const uint8_t *a = in[0]->data, *b = n_in > 1 ? in[1]->data : NULL;
  uint8_t *o = out->data;
  for (int64_t j = 0; j < n; j++)
    o[j] = (uint8_t) lop_apply (k, a[j] != 0, b != NULL && b[j] != 0);
  return CN_OK;
}

static void
lop_box_decide (int k, const cn_box *const *in, int64_t j, int *mf, int *mt)
{
  double al = in[0]->lo[j], ah = in[0]->hi[j];
  int fb = 0, tb = 0;
  if (k != LOP_NOT)
    fb = may_false (in[1]->lo[j], in[1]->hi[j]), tb = may_true (in[1]->lo[j], in[1]->hi[j]);
  lop_decide ((enum lop) k, may_false (al, ah), may_true (al, ah), fb, tb, mf, mt);
}

static void
lop_mpfi_decide (int k, const cn_mpfi_vec *const *in, int64_t j, int *mf, int *mt)
{
  int fb = 0, tb = 0;
  if (k != LOP_NOT)
    fb = may_false_fr (in[1]->v[j]), tb = may_true_fr (in[1]->v[j]);
  lop_decide ((enum lop) k, may_false_fr (in[0]->v[j]), may_true_fr (in[0]->v[j]), fb, tb, mf, mt);
}

/* The rules of the logical operators: the case in the impl, Booleans at every port. */
static const struct bool_impl not_impl = { LOP_NOT, CN_DTYPE_BOOL, lop_box_decide, lop_mpfi_decide };
BOOL_RULE (LOGICAL_NOT, not_impl, 1, bool1, cn__unary_check, lop_forward, 0, NULL, CN__CERT_IBP);

static const struct bool_impl and_impl = { LOP_AND, CN_DTYPE_BOOL, lop_box_decide, lop_mpfi_decide };
BOOL_RULE (LOGICAL_AND, and_impl, 2, bool2, cn__binary_check, lop_forward, 0, NULL, CN__CERT_IBP);

static const struct bool_impl or_impl = { LOP_OR, CN_DTYPE_BOOL, lop_box_decide, lop_mpfi_decide };
BOOL_RULE (LOGICAL_OR, or_impl, 2, bool2, cn__binary_check, lop_forward, 0, NULL, CN__CERT_IBP);

static const struct bool_impl xor_impl = { LOP_XOR, CN_DTYPE_BOOL, lop_box_decide, lop_mpfi_decide };
BOOL_RULE (LOGICAL_XOR, xor_impl, 2, bool2, cn__binary_check, lop_forward, 0, NULL, CN__CERT_IBP);

/* ---- select --------------------------------------------------------------------------- */

static cn_status
select_check (const struct cn_op_rule *rule, const void *p, int n_in, const cn_shape *const *in, cn_shape *out,
              cn_error *err)
{
  (void) rule;
  (void) p;
  if (n_in != 3)
    return cn_error_set (err, CN_EINVAL, "select: takes 3 inputs, got %d", n_in);
  for (int i = 0; i < 3; i++)
    {
      cn_status st = cn__input_valid ("select", i, in[i], err);
      if (st != CN_OK)
        return st;
    }
  for (int i = 1; i < 3; i++)
    if (!cn_shape_equal (in[0], in[i]))
      {
        char a[128], b[128];
        return cn_error_set (err, CN_ESHAPE, "select: input shapes %s (the condition) and %s (input %d) differ",
                             cn_shape_format (in[0], a, sizeof a), cn_shape_format (in[i], b, sizeof b), i);
      }
  *out = *in[0];
  return CN_OK;
}

/* The data ports are element ports of one sort (the model's scalar, Booleans or one integer
 * sort), the output of that sort. */
static cn_status
select_out_sort (const struct cn_op_rule *rule, const void *p, int n_in, const cn_dtype *in, cn_dtype *out,
                 cn_error *err)
{
  (void) rule;
  (void) p;
  if (n_in != 3)
    return cn_error_set (err, CN_EINVAL, "select: takes 3 inputs, got %d", n_in);
  if (in[0] != CN_DTYPE_BOOL)
    return cn_error_set (err, CN_EINVAL, "select: input 0 has sort %s where bool is expected",
                         sort_valid (in[0]) ? cn_dtype_name (in[0]) : "(invalid)");
  for (int i = 1; i < 3; i++)
    if (!sort_valid (in[i]))
      return cn_error_set (err, CN_EINVAL, "select: input %d has an invalid sort %d", i, (int) in[i]);
  int f1 = cn_dtype_is_float (in[1]);
  if (cn_dtype_is_float (in[2]) != f1 || (!f1 && in[2] != in[1]))
    return cn_error_set (err, CN_EINVAL, "select: input 2 holds %s where input 1 holds %s",
                         cn_dtype_is_float (in[2]) ? "the model's scalar" : cn_dtype_name (in[2]),
                         f1 ? "the model's scalar" : cn_dtype_name (in[1]));
  *out = f1 ? CN_DTYPE_F64 : in[1];
  return CN_OK;
}

static cn_status
select_forward (const cn_node_view *nv, const cn_tensor *const *in, cn_tensor *out, cn_error *err)
{
  (void) err;
  enum sort_class sc = cn_dtype_is_float (out->dtype) ? SC_FLOAT : SC_ANY;
  /* a Boolean condition, the operands and the output of one sort (out_sort), the node's shape */
  CN__ASSERTD (tensor_fits (nv, in[0], SC_BOOL) && tensor_fits (nv, in[1], sc) && tensor_fits (nv, in[2], sc)
               && tensor_fits (nv, out, sc));
  CN__ASSERTD (in[1]->dtype == out->dtype && in[2]->dtype == out->dtype);
  (void) sc;
  int64_t n = cn_tensor_numel (out);
  const uint8_t *c = in[0]->data;
  if (!cn_dtype_is_float (out->dtype))
    {
      /* Booleans and words are moved as they are, entry by entry */
      size_t sz = cn_dtype_size (out->dtype);
      const char *a = in[1]->data, *b = in[2]->data;
      char *o = out->data;
      for (int64_t j = 0; j < n; j++)
        memcpy (o + (size_t) j * sz, (c[j] ? a : b) + (size_t) j * sz, sz);
    }
  else if (out->dtype == CN_DTYPE_F64)
    {
      const double *a = in[1]->data, *b = in[2]->data;
      double *o = out->data;
      for (int64_t j = 0; j < n; j++)
        o[j] = c[j] ? a[j] : b[j];
    }
  else
    {
      const float *a = in[1]->data, *b = in[2]->data;
      float *o = out->data;
      for (int64_t j = 0; j < n; j++)
        o[j] = c[j] ? a[j] : b[j];
    }
  return CN_OK;
}

/* Pullback and jvp receive the operands and the output as binary64 tensors of the node's shape,
 * the condition of any sort of that shape (the engines' contract, stated with CN__ASSERTD). */
static inline int
select_diff_fits (const cn_node_view *nv, const cn_tensor *const *in, const cn_tensor *out)
{
  int64_t n = cn__numel (nv->out_shape);
  return sort_valid (in[0]->dtype) && cn_tensor_numel (in[0]) == n && in[1]->dtype == CN_DTYPE_F64
         && cn_tensor_numel (in[1]) == n && in[2]->dtype == CN_DTYPE_F64 && cn_tensor_numel (in[2]) == n
         && out->dtype == CN_DTYPE_F64 && cn_tensor_numel (out) == n;
}

static cn_status
select_pullback (const cn_node_view *nv, const cn_tensor *const *in, const cn_tensor *out, const double *g_out,
                 double *const *g_in, cn_error *err)
{
  (void) err;
  CN__ASSERTD (select_diff_fits (nv, in, out));
  int64_t n = cn_tensor_numel (out);
  double *ga = g_in[1], *gb = g_in[2];
  for (int64_t j = 0; j < n; j++)
    {
      /* d v_j = c_j ? d a_j : d b_j */
      if (truth (in[0], j))
        {
          if (ga != NULL)
            ga[j] += g_out[j];
        }
      else if (gb != NULL)
        gb[j] += g_out[j];
    }
  return CN_OK;
}

static cn_status
select_jvp (const cn_node_view *nv, const cn_tensor *const *in, const cn_tensor *out, const double *const *t_in,
            double *t_out, cn_error *err)
{
  (void) err;
  CN__ASSERTD (select_diff_fits (nv, in, out));
  int64_t n = cn_tensor_numel (out);
  const double *ta = t_in[1], *tb = t_in[2];
  for (int64_t j = 0; j < n; j++)
    {
      const double *t = truth (in[0], j) ? ta : tb;
      t_out[j] = t != NULL ? t[j] : 0;
    }
  return CN_OK;
}

static cn_status
select_ibp (const cn_node_view *nv, const cn_box *const *in, cn_box *out, cn_error *err)
{
  CN__ASSERTD (out->n == cn__numel (nv->out_shape) && in[0]->n == out->n && in[1]->n == out->n && in[2]->n == out->n);
  cn_status st;
  for (int64_t j = 0; j < out->n; j++)
    {
      if ((st = boxes_finite_at (nv, 3, in, j, err)) != CN_OK)
        return st;
      int mt = may_true (in[0]->lo[j], in[0]->hi[j]), mf = may_false (in[0]->lo[j], in[0]->hi[j]);
      double al = in[1]->lo[j], ah = in[1]->hi[j], bl = in[2]->lo[j], bh = in[2]->hi[j];
      if (mt && mf)
        {
          /* v is a or b: the hull of both boxes */
          out->lo[j] = al < bl ? al : bl;
          out->hi[j] = ah > bh ? ah : bh;
        }
      else if (mt)
        out->lo[j] = al, out->hi[j] = ah;
      else
        out->lo[j] = bl, out->hi[j] = bh;
    }
  return CN_OK;
}

static cn_status
select_mpfi (const cn_node_view *nv, const cn_mpfi_vec *const *in, cn_mpfi_vec *out, cn_error *err)
{
  CN__ASSERTD (out->n == cn__numel (nv->out_shape) && in[0]->n == out->n && in[1]->n == out->n && in[2]->n == out->n);
  cn_status st;
  for (int64_t j = 0; j < out->n; j++)
    {
      if ((st = mpfi_finite_at (nv, 3, in, j, err)) != CN_OK)
        return st;
      int mt = may_true_fr (in[0]->v[j]), mf = may_false_fr (in[0]->v[j]);
      if (mt && mf)
        mpfi_union (out->v[j], in[1]->v[j], in[2]->v[j]);
      else
        mpfi_set (out->v[j], mt ? in[1]->v[j] : in[2]->v[j]);
    }
  return CN_OK;
}

/* CROWN (see the header): entry j passes lam_out through to a (c known true) or b (c known
 * false) when that operand has coefficients; every other entry is discharged over its box (the
 * chosen operand's, or the hull when c is unknown). */
static cn_status
select_crown (const cn_crown_step *st, cn_error *err)
{
  const cn_node_view *nv = st->nv;
  int64_t n = cn__numel (nv->out_shape);
  const cn_box *c = st->in_box[0], *a = st->in_box[1], *b = st->in_box[2];
  for (int i = 0; i < 3; i++)
    CN__ASSERTD (st->in_box[i]->n == n);
  cn_status s = CN_OK;
  size_t sz = (size_t) (n > 0 ? n : 1);
  double *lo = malloc (sz * sizeof *lo), *hi = malloc (sz * sizeof *hi), *lam = malloc (sz * sizeof *lam);
  unsigned char *route = malloc (sz);
  if (lo == NULL || hi == NULL || lam == NULL || route == NULL)
    {
      s = cn_error_set (err, CN_ENOMEM, "select: out of memory (node '%s')", cn__node_name (nv));
      goto done;
    }
  int64_t discharged = 0;
  for (int64_t j = 0; j < n; j++)
    {
      if ((s = boxes_finite_at (nv, 3, st->in_box, j, err)) != CN_OK)
        goto done;
      int mt = may_true (c->lo[j], c->hi[j]), mf = may_false (c->lo[j], c->hi[j]);
      route[j] = 0;
      lo[j] = hi[j] = 0;
      if (mt && !mf && st->lam_in[1] != NULL)
        route[j] = 1;   /* v_j = a_j on the whole box */
      else if (mf && !mt && st->lam_in[2] != NULL)
        route[j] = 2;   /* v_j = b_j */
      else
        {
          /* v_j lies in [lo_j, hi_j] */
          lo[j] = !mt ? b->lo[j] : !mf ? a->lo[j] : a->lo[j] < b->lo[j] ? a->lo[j] : b->lo[j];
          hi[j] = !mt ? b->hi[j] : !mf ? a->hi[j] : a->hi[j] > b->hi[j] ? a->hi[j] : b->hi[j];
          discharged++;
        }
    }
  for (int64_t row = 0; row < st->rows; row++)
    {
      const double *l = st->lam_out + row * n;
      for (int64_t j = 0; j < n; j++)
        {
          lam[j] = route[j] == 0 ? l[j] : 0;
          if (route[j] != 0)
            st->lam_in[route[j]][row * n + j] = l[j];
        }
      /* now lam_out . v = lam_in[1] . a + lam_in[2] . b + lam . v, exactly */
      if (discharged > 0)
        {
          double m = cn__box_min_dot (n, lam, lo, hi);
          /* now m <= lam . v for every v of the boxes */
          if (m == -INFINITY)
            cn__crown_charge (st, row, INFINITY);
          else
            cn__crown_add_bias (st, row, m);
        }
    }
done:
  free (lo);
  free (hi);
  free (lam);
  free (route);
  return s;
}

const struct cn_op_rule cn__rule_SELECT = { .op = CN_OP_SELECT,
  .n_in = 3, .in_kind = select_ports, .check = select_check, .out_sort = select_out_sort,
  .forward = select_forward,
  .pullback = select_pullback, .jvp = select_jvp, .ibp = select_ibp, .ibp_mpfi = select_mpfi,
  .crown = select_crown, .flags = CN_RULE_NEEDS_BOUNDS,
  .certs = CN__CERTS (CN__CERT_GRADIENT, CN__CERT_BOUNDS),
};

/* ---- cast ----------------------------------------------------------------------------- */

#define PCAST(nv) ((const cn_params_cast *) (nv)->params)

/* The integer sort T: its width in bits, whether it is signed, its least word MIN and its
 * greatest word plus one LIM (exact doubles: 0 or -2^(N-1), and 2^N or 2^(N-1)).  Returns 0 for
 * a sort that is not an integer sort.  bool counts as the unsigned range [0, 2). */
static int
word_sort (cn_dtype t, int *bits, int *is_signed, double *min, double *lim)
{
  int b, s;
  switch (t)
    {
    case CN_DTYPE_BOOL: b = 1; s = 0; break;
    case CN_DTYPE_I8: b = 8; s = 1; break;
    case CN_DTYPE_I16: b = 16; s = 1; break;
    case CN_DTYPE_I32: b = 32; s = 1; break;
    case CN_DTYPE_I64: b = 64; s = 1; break;
    case CN_DTYPE_U8: b = 8; s = 0; break;
    case CN_DTYPE_U16: b = 16; s = 0; break;
    case CN_DTYPE_U32: b = 32; s = 0; break;
    case CN_DTYPE_U64: b = 64; s = 0; break;
    default: return 0;
    }
  *bits = b;
  *is_signed = s;
  *min = s ? -ldexp (1, b - 1) : 0;
  *lim = ldexp (1, s ? b - 1 : b);
  return 1;
}

/* Entry J of the Boolean or integer tensor T: its value modulo 2^64, and in *NEG whether the
 * value is negative (a Boolean byte reads as 0 or 1). */
static uint64_t
word_get (const cn_tensor *t, int64_t j, int *neg)
{
  int64_t s;
  *neg = 0;
  switch (t->dtype)
    {
    case CN_DTYPE_BOOL: return ((const uint8_t *) t->data)[j] != 0;
    case CN_DTYPE_U8: return ((const uint8_t *) t->data)[j];
    case CN_DTYPE_U16: return ((const uint16_t *) t->data)[j];
    case CN_DTYPE_U32: return ((const uint32_t *) t->data)[j];
    case CN_DTYPE_U64: return ((const uint64_t *) t->data)[j];
    case CN_DTYPE_I8: s = ((const int8_t *) t->data)[j]; break;
    case CN_DTYPE_I16: s = ((const int16_t *) t->data)[j]; break;
    case CN_DTYPE_I32: s = ((const int32_t *) t->data)[j]; break;
    default: s = ((const int64_t *) t->data)[j]; break;
    }
  *neg = s < 0;
  return (uint64_t) s;   /* modulo 2^64, well defined */
}

/* The signed value of the N-bit two's complement word held in the low N bits of W. */
static int64_t
wrap_signed (uint64_t w, int n)
{
  uint64_t half = (uint64_t) 1 << (n - 1), v = n == 64 ? w : w & ((half << 1) - 1);
  /* now v = w mod 2^n, in [0, 2^n); the word is v below 2^(n-1), else v - 2^n */
  return v < half ? (int64_t) v : (int64_t) (v - half) - (int64_t) (half - 1) - 1;
}

/* Stores into entry J of the integer or Boolean tensor T the word W modulo 2^N (N its width;
 * a Boolean gets W != 0). */
static void
word_put (cn_tensor *t, int64_t j, uint64_t w)
{
  switch (t->dtype)
    {
    case CN_DTYPE_BOOL: ((uint8_t *) t->data)[j] = w != 0; break;
    case CN_DTYPE_U8: ((uint8_t *) t->data)[j] = (uint8_t) w; break;
    case CN_DTYPE_U16: ((uint16_t *) t->data)[j] = (uint16_t) w; break;
    case CN_DTYPE_U32: ((uint32_t *) t->data)[j] = (uint32_t) w; break;
    case CN_DTYPE_U64: ((uint64_t *) t->data)[j] = w; break;
    case CN_DTYPE_I8: ((int8_t *) t->data)[j] = (int8_t) wrap_signed (w, 8); break;
    case CN_DTYPE_I16: ((int16_t *) t->data)[j] = (int16_t) wrap_signed (w, 16); break;
    case CN_DTYPE_I32: ((int32_t *) t->data)[j] = (int32_t) wrap_signed (w, 32); break;
    default: ((int64_t *) t->data)[j] = wrap_signed (w, 64); break;
    }
}

/* The magnitude M of a word (negative when NEG) rounded to odd in binary64: exact below 2^53;
 * above, M truncated to 53 bits with the last kept bit set when a dropped one was, so that one
 * rounding of the result to a format of at most 51 bits is the correct rounding of M. */
static double
word_odd (uint64_t m, int neg)
{
  int k = 0;
  while ((m >> k) >= ((uint64_t) 1 << 53))
    k++;
  uint64_t t = m >> k;
  if (k > 0 && (m & (((uint64_t) 1 << k) - 1)) != 0)
    t |= 1;
  double v = ldexp ((double) t, k);   /* t < 2^53: exact */
  return neg ? -v : v;
}

/* X (an MPFR number) rounded to odd in binary64: truncated toward 0, and when that is inexact
 * the odd one of the two doubles around X (the two neighbours differ in their last bit). */
static double
mpfr_odd (mpfr_srcptr x)
{
  double d = mpfr_get_d (x, MPFR_RNDZ);
  if (!mpfr_number_p (x) || mpfr_cmp_d (x, d) == 0)
    return d;
  uint64_t b;
  memcpy (&b, &d, sizeof b);
  if ((b & 1) == 0)
    d = nextafter (d, mpfr_sgn (x) < 0 ? -INFINITY : INFINITY);
  return d;
}

static cn_status
cast_target_ok (const cn_params_cast *p, cn_error *err)
{
  if (p == NULL)
    return cn_error_set (err, CN_EINVAL, "cast: missing attribute record");
  if (!sort_valid (p->to))
    return cn_error_set (err, CN_EINVAL, "cast: invalid target sort %d", (int) p->to);
  return CN_OK;
}

static cn_status
cast_check (const struct cn_op_rule *rule, const void *p, int n_in, const cn_shape *const *in, cn_shape *out,
            cn_error *err)
{
  (void) rule;
  cn_status st = cast_target_ok (p, err);
  if (st != CN_OK)
    return st;
  return cn__check_unary ("cast", n_in, in, out, err);
}

static cn_status
cast_out_sort (const struct cn_op_rule *rule, const void *p, int n_in, const cn_dtype *in, cn_dtype *out, cn_error *err)
{
  (void) rule;
  cn_status st = cast_target_ok (p, err);
  if (st != CN_OK)
    return st;
  if (n_in != 1)
    return cn_error_set (err, CN_EINVAL, "cast: takes 1 input, got %d", n_in);
  if (!sort_valid (in[0]))
    return cn_error_set (err, CN_EINVAL, "cast: the input has an invalid sort %d", (int) in[0]);
  cn_dtype to = ((const cn_params_cast *) p)->to;
  /* every sort casts to every sort; f64 and f32 both name the model's scalar, recorded as the
   * input's floating sort, unless the value enters or leaves a reduced format */
  if (!cn_dtype_is_float (to) || cn_dtype_is_reduced (to) || cn_dtype_is_reduced (in[0]))
    *out = to;
  else
    *out = cn_dtype_is_float (in[0]) ? in[0] : CN_DTYPE_F64;
  return CN_OK;
}

static cn_status
cast_forward (const cn_node_view *nv, const cn_tensor *const *in, cn_tensor *out, cn_error *err)
{
  CN__ASSERTD (cast_target_ok (PCAST (nv), NULL) == CN_OK);   /* the check admitted the record */
  CN__ASSERTD (tensor_fits (nv, in[0], SC_ANY) && tensor_fits (nv, out, SC_ANY));
  cn_dtype to = PCAST (nv)->to, src = in[0]->dtype, dst = out->dtype;
  /* the output is of the sort out_sort gave: the model's scalar for the floating sorts (held in
   * the evaluation's f64 or f32), else TO */
  CN__ASSERTD (cn_dtype_is_float (to) ? dst == CN_DTYPE_F64 || dst == CN_DTYPE_F32 : dst == to);
  int64_t n = cn_tensor_numel (out);
  if (cn_dtype_is_reduced (to))
    {
      /* RN_R of the value, which the output's f64 or f32 holds exactly */
      for (int64_t j = 0; j < n; j++)
        {
          double x;
          if (cn_dtype_is_float (src))
            x = fval (in[0], j);
          else
            {
              int neg;
              uint64_t w = word_get (in[0], j, &neg);
              x = word_odd (neg ? 0 - w : w, neg);
            }
          double y = cn_dtype_round (to, x);
          if (dst == CN_DTYPE_F64)
            ((double *) out->data)[j] = y;
          else
            ((float *) out->data)[j] = (float) y;
        }
      return CN_OK;
    }
  if (cn_dtype_is_float (src))
    {
      if (dst == CN_DTYPE_F64)
        for (int64_t j = 0; j < n; j++)
          ((double *) out->data)[j] = fval (in[0], j);
      else if (dst == CN_DTYPE_F32)
        for (int64_t j = 0; j < n; j++)
          ((float *) out->data)[j] = (float) fval (in[0], j);   /* one rounding; exact from f32 */
      else if (dst == CN_DTYPE_BOOL)
        for (int64_t j = 0; j < n; j++)
          ((uint8_t *) out->data)[j] = fval (in[0], j) != 0;  /* a NaN is true */
      else
        {
          int bits, sgn;
          double min, lim;
          word_sort (dst, &bits, &sgn, &min, &lim);
          /* every entry first: nothing is written unless all of them convert */
          for (int64_t j = 0; j < n; j++)
            {
              double x = fval (in[0], j), t = trunc (x);
              if (!(t >= min && t < lim))
                return cn_error_set (err, CN_ENUMERIC, "cast: entry %lld is %g, which %s cannot hold (node '%s')",
                                     (long long) j, x, cn_dtype_name (dst), cn__node_name (nv));
            }
          /* now every trunc(x) is a word of DST: min <= t < lim */
          for (int64_t j = 0; j < n; j++)
            {
              double t = trunc (fval (in[0], j));
              word_put (out, j, t < 0 ? (uint64_t) (int64_t) t : (uint64_t) t);
            }
        }
      return CN_OK;
    }
  /* a Boolean or integer source */
  for (int64_t j = 0; j < n; j++)
    {
      int neg;
      uint64_t w = word_get (in[0], j, &neg);
      /* the value is w, or w - 2^64 when NEG; its magnitude 0 - w (mod 2^64) is exact then */
      if (dst == CN_DTYPE_F64)
        ((double *) out->data)[j] = neg ? -(double) (0 - w) : (double) w;
      else if (dst == CN_DTYPE_F32)
        ((float *) out->data)[j] = neg ? -(float) (0 - w) : (float) w;
      else
        word_put (out, j, w);
    }
  return CN_OK;
}

/* What the node view says of the source: its sort unknown (no in_sort), the model's scalar, or
 * a Boolean or integer word. */
enum cast_src { SRC_UNKNOWN, SRC_SCALAR, SRC_WORD };

static enum cast_src
cast_source (const cn_node_view *nv)
{
  if (nv->in_sort == NULL || !sort_valid (nv->in_sort[0]))
    return SRC_UNKNOWN;
  return cn_dtype_is_float (nv->in_sort[0]) ? SRC_SCALAR : SRC_WORD;
}

static cn_status
cast_range_error (const cn_node_view *nv, int64_t j, double l, double h, cn_error *err)
{
  return cn_error_set (err, CN_ENUMERIC, "cast: the box [%g, %g] at entry %lld leaves the range of %s (node '%s')",
                       l, h, (long long) j, cn_dtype_name (PCAST (nv)->to), cn__node_name (nv));
}

static cn_status
cast_no_word (const cn_node_view *nv, int64_t j, double l, double h, cn_error *err)
{
  return cn_error_set (err, CN_ENUMERIC, "cast: the box [%g, %g] at entry %lld holds no %s word (node '%s')", l, h,
                       (long long) j, cn_dtype_name (nv->in_sort[0]), cn__node_name (nv));
}

/* 128-bit scratch of the word arithmetic: every integer below 2^66 in magnitude is exact. */
struct wscratch
{
  mpfr_t smin, smax, dmin, dmax, a, b, k1, k2;
};

static void
ws_init (struct wscratch *w)
{
  mpfr_inits2 (128, w->smin, w->smax, w->dmin, w->dmax, w->a, w->b, w->k1, w->k2, (mpfr_ptr) 0);
}

static void
ws_clear (struct wscratch *w)
{
  mpfr_clears (w->smin, w->smax, w->dmin, w->dmax, w->a, w->b, w->k1, w->k2, (mpfr_ptr) 0);
}

/* [MIN, MAX] of the integer sort T (bool: [0, 1]), exactly (at 128 bits). */
static void
word_range_fr (cn_dtype t, mpfr_ptr min, mpfr_ptr max)
{
  int bits = 0, sgn = 0;
  double dmin = 0, lim = 0;
  word_sort (t, &bits, &sgn, &dmin, &lim);
  mpfr_set_d (min, dmin, MPFR_RNDN);
  mpfr_set_d (max, lim, MPFR_RNDN);
  mpfr_sub_ui (max, max, 1, MPFR_RNDN);
}

/* The words that cast to the integer sort DST gives for the words of sort SRC in [L, R] (an
 * enclosure of the source word): into [W->a, W->b], exactly.  Returns 0 if [L, R] holds no
 * word of SRC.  The wrap w -> w - k 2^N, k = floor ((w - min) / 2^N), is increasing on each
 * period (k constant), so the image of the words [a, b] is [a - k 2^N, b - k 2^N] when both ends
 * share their k, and the whole range [min, max] of DST otherwise. */
static int
wrap_words (struct wscratch *w, cn_dtype src, cn_dtype dst, mpfr_srcptr l, mpfr_srcptr r)
{
  int bits = 0, sgn = 0;
  double dmin = 0, lim = 0;
  word_sort (dst, &bits, &sgn, &dmin, &lim);
  word_range_fr (src, w->smin, w->smax);
  word_range_fr (dst, w->dmin, w->dmax);
  /* a = the least word of SRC >= l, b = the greatest <= r */
  if (mpfr_cmp (l, w->smin) <= 0)
    mpfr_set (w->a, w->smin, MPFR_RNDN);
  else
    mpfr_ceil (w->a, l);
  if (mpfr_cmp (r, w->smax) >= 0)
    mpfr_set (w->b, w->smax, MPFR_RNDN);
  else
    mpfr_floor (w->b, r);
  if (mpfr_cmp (w->a, w->b) > 0)
    return 0;
  /* now smin <= a <= b <= smax: integers below 2^64 in magnitude, exact at 128 bits, and so is
   * every step below */
  mpfr_sub (w->k1, w->a, w->dmin, MPFR_RNDN);
  mpfr_div_2ui (w->k1, w->k1, (unsigned long) bits, MPFR_RNDN);
  mpfr_floor (w->k1, w->k1);
  mpfr_sub (w->k2, w->b, w->dmin, MPFR_RNDN);
  mpfr_div_2ui (w->k2, w->k2, (unsigned long) bits, MPFR_RNDN);
  mpfr_floor (w->k2, w->k2);
  if (mpfr_equal_p (w->k1, w->k2))
    {
      mpfr_mul_2ui (w->k1, w->k1, (unsigned long) bits, MPFR_RNDN);
      mpfr_sub (w->a, w->a, w->k1, MPFR_RNDN);
      mpfr_sub (w->b, w->b, w->k1, MPFR_RNDN);
    }
  else
    {
      mpfr_set (w->a, w->dmin, MPFR_RNDN);
      mpfr_set (w->b, w->dmax, MPFR_RNDN);
    }
  return 1;
}

static cn_status
cast_ibp (const cn_node_view *nv, const cn_box *const *in, cn_box *out, cn_error *err)
{
  CN__ASSERTD (cast_target_ok (PCAST (nv), NULL) == CN_OK);   /* the check admitted the record */
  CN__ASSERTD (out->n == cn__numel (nv->out_shape) && in[0]->n == out->n);
  cn_status st = CN_OK;
  cn_dtype to = PCAST (nv)->to;
  enum cast_src src = cast_source (nv);
  int bits = 0, sgn = 0, sbits = 0, ssgn = 0, wide = 0;
  double min = 0, lim = 0, smin = 0, slim = 0;
  word_sort (to, &bits, &sgn, &min, &lim);
  if (src == SRC_WORD)
    {
      word_sort (nv->in_sort[0], &sbits, &ssgn, &smin, &slim);
      /* the fast path below needs words of both sorts: [max (min, smin), min (lim, slim)) */
      smin = smin > min ? smin : min;
      slim = slim < lim ? slim : lim;
    }
  struct wscratch w;
  mpfr_t ml, mh;
  for (int64_t j = 0; j < out->n && st == CN_OK; j++)
    {
      if ((st = boxes_finite_at (nv, 1, in, j, err)) != CN_OK)
        break;
      double l = in[0]->lo[j], h = in[0]->hi[j];
      if (cn_dtype_is_reduced (to))
        out->lo[j] = cn_dtype_round (to, l), out->hi[j] = cn_dtype_round (to, h);
      else if (cn_dtype_is_float (to))
        out->lo[j] = l, out->hi[j] = h;
      else if (to == CN_DTYPE_BOOL)
        bool_box (may_false (l, h), may_true (l, h), &out->lo[j], &out->hi[j]);
      else if (src != SRC_WORD)
        {
          double tl = trunc (l), th = trunc (h);
          /* now tl <= trunc x <= th for every real x of [l, h], exactly */
          if (!(tl >= min && th < lim))
            st = cast_range_error (nv, j, l, h, err);
          else
            out->lo[j] = tl, out->hi[j] = th;
        }
      else
        {
          double cl = ceil (l), fh = floor (h);
          /* the words of [l, h] are those of [cl, fh]; inside both ranges the cast keeps them */
          if (cl <= fh && cl >= smin && fh < slim)
            {
              out->lo[j] = cl, out->hi[j] = fh;
              continue;
            }
          if (!wide)
            {
              ws_init (&w);
              mpfr_inits2 (128, ml, mh, (mpfr_ptr) 0);
              wide = 1;
            }
          mpfr_set_d (ml, l, MPFR_RNDN);   /* exact: a double has 53 bits */
          mpfr_set_d (mh, h, MPFR_RNDN);
          if (!wrap_words (&w, nv->in_sort[0], to, ml, mh))
            st = cast_no_word (nv, j, l, h, err);
          else
            {
              out->lo[j] = mpfr_get_d (w.a, MPFR_RNDD);
              out->hi[j] = mpfr_get_d (w.b, MPFR_RNDU);
            }
        }
    }
  if (wide)
    {
      ws_clear (&w);
      mpfr_clears (ml, mh, (mpfr_ptr) 0);
    }
  return st;
}

static cn_status
cast_mpfi (const cn_node_view *nv, const cn_mpfi_vec *const *in, cn_mpfi_vec *out, cn_error *err)
{
  CN__ASSERTD (cast_target_ok (PCAST (nv), NULL) == CN_OK);   /* the check admitted the record */
  CN__ASSERTD (out->n == cn__numel (nv->out_shape) && in[0]->n == out->n);
  cn_status st = CN_OK;
  cn_dtype to = PCAST (nv)->to;
  enum cast_src src = cast_source (nv);
  int bits = 0, sgn = 0;
  double min = 0, lim = 0;
  word_sort (to, &bits, &sgn, &min, &lim);
  mpfr_t tl, th;
  struct wscratch w;
  mpfr_init2 (tl, MPFR_PREC_MIN);
  mpfr_init2 (th, MPFR_PREC_MIN);
  ws_init (&w);
  for (int64_t j = 0; j < out->n && st == CN_OK; j++)
    {
      if ((st = mpfi_finite_at (nv, 1, in, j, err)) != CN_OK)
        break;
      mpfi_srcptr x = in[0]->v[j];
      if (cn_dtype_is_reduced (to))
        mpfi_interv_d (out->v[j], cn_dtype_round (to, mpfr_odd (&x->left)), cn_dtype_round (to, mpfr_odd (&x->right)));
      else if (cn_dtype_is_float (to))
        mpfi_set (out->v[j], x);
      else if (to == CN_DTYPE_BOOL)
        bool_mpfi (out->v[j], may_false_fr (x), may_true_fr (x));
      else if (src == SRC_WORD)
        {
          if (!wrap_words (&w, nv->in_sort[0], to, &x->left, &x->right))
            st = cast_no_word (nv, j, mpfr_get_d (&x->left, MPFR_RNDD), mpfr_get_d (&x->right, MPFR_RNDU), err);
          else
            mpfi_interv_fr (out->v[j], w.a, w.b);
        }
      else
        {
          mpfr_set_prec (tl, mpfr_get_prec (&x->left));
          mpfr_set_prec (th, mpfr_get_prec (&x->right));
          mpfr_trunc (tl, &x->left);
          mpfr_trunc (th, &x->right);
          /* now tl <= trunc x <= th exactly (trunc fits in its argument's precision) */
          if (!(mpfr_number_p (tl) && mpfr_number_p (th) && mpfr_cmp_d (tl, min) >= 0 && mpfr_cmp_d (th, lim) < 0))
            st = cast_range_error (nv, j, mpfr_get_d (&x->left, MPFR_RNDD), mpfr_get_d (&x->right, MPFR_RNDU), err);
          else
            mpfi_interv_fr (out->v[j], tl, th);
        }
    }
  mpfr_clear (tl);
  mpfr_clear (th);
  ws_clear (&w);
  return st;
}

/* cast's CROWN step (see the top): to the model's scalar the identity (v = x in the reals); from
 * the model's scalar to an integer sort trunc's lines, x - 1 <= trunc x <= x on x >= 0 and x <= trunc
 * x <= x + 1 on x <= 0 (slope 1, exact), each side keeping the box's end instead where that is
 * tighter at the box's midpoint; to bool, or from words (which may wrap), the node's own box. */
static cn_status
cast_line (const cn_crown_step *st, int64_t j, double ylo, double yhi, cn__relax_line *ln, cn_error *err)
{
  (void) err;
  double l = st->in_box[0]->lo[j], u = st->in_box[0]->hi[j];
  cn_dtype to = PCAST (st->nv)->to;
  if (cn_dtype_is_reduced (to))
    {
      int p;
      double q, t, m = fmax (fabs (l), fabs (u));
      cn__reduced_limits (to, &p, &q, &t);
      if (!(m < t))
        {
          /* the cast may overflow: the node's own box */
          *ln = (cn__relax_line) { .bl = ylo, .bu = yhi };
          return CN_OK;
        }
      /* |RN_R(x) - x| <= 2^-p |x| + q / 2 <= e for x in [l, u] (ldexp exact, the sum rounded up) */
      double e = nextafter (ldexp (m, -p) + q / 2, INFINITY);
      *ln = (cn__relax_line) { .kl = 1, .bl = -e, .ku = 1, .bu = e };
      return CN_OK;
    }
  if (cn_dtype_is_float (to))
    {
      *ln = (cn__relax_line) { .kl = 1, .ku = 1 };
      return CN_OK;
    }
  *ln = (cn__relax_line) { .bl = ylo, .bu = yhi };
  double bl = fmin (u >= 0 ? -1 : INFINITY, l <= 0 ? 0 : INFINITY);
  double bu = fmax (u >= 0 ? 0 : -INFINITY, l <= 0 ? 1 : -INFINITY);
  double mid = l / 2 + u / 2;
  /* now x + bl <= trunc x <= x + bu on [l, u] */
  if (l < u && mid + bl > ylo)
    ln->kl = 1, ln->bl = bl;
  if (l < u && mid + bu < yhi)
    ln->ku = 1, ln->bu = bu;
  return CN_OK;
}

static cn_status
cast_crown (const cn_crown_step *st, cn_error *err)
{
  const cn_node_view *nv = st->nv;
  cn_dtype to = PCAST (nv)->to;
  enum cast_src src = cast_source (nv);
  if (to == CN_DTYPE_BOOL || src == SRC_WORD || (src == SRC_UNKNOWN && !cn_dtype_is_float (to)))
    return cn__crown_own_box (st, err);
  /* cast_ibp makes the range checks: a refusal stays a refusal */
  return cn__crown_box_lines (st, "cast", cast_ibp, cast_line, err);
}

const struct cn_op_rule cn__rule_CAST = { .op = CN_OP_CAST,
  .n_in = 1, .in_kind = any1, .flags = CN_RULE_NEEDS_BOUNDS | CN_RULE_SORTS_LITERAL, .check = cast_check,
  .out_sort = cast_out_sort, .forward = cast_forward, .jvp = cn__zero_jvp, .ibp = cast_ibp, .ibp_mpfi = cast_mpfi,
  .crown = cast_crown,
  .certs = CN__CERTS (CN__CERT_BOUNDS),
};
