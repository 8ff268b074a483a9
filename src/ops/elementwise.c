/* SPDX-License-Identifier: MIT */
/* src/ops/elementwise.c: add, sub, mul, div, neg.
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
 *        the pullback's order); TRUNC and FLOOR: t = 0 (the pullback's choice at the jumps). */
#include <config.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "crown/crown_impl.h"
#include "core/parallel.h"

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

static cn_status
shape_valid (const char *op, int i, const cn_shape *s, cn_error *err)
{
  if (s == NULL || s->rank < 0 || s->rank > CN_MAX_RANK)
    return cn_error_set (err, CN_EINVAL, "%s: input %d has an invalid rank", op, i);
  for (int a = 0; a < s->rank; a++)
    if (s->dim[a] < 0)
      return cn_error_set (err, CN_EINVAL, "%s: input %d has extent %lld on axis %d", op, i,
                           (long long) s->dim[a], a);
  if (cn_shape_numel (s) < 0)
    return cn_error_set (err, CN_EINVAL, "%s: input %d has too many elements", op, i);
  return CN_OK;
}

static cn_status
check_unary (const char *op, int n_in, const cn_shape *const *in, cn_shape *out, cn_error *err)
{
  if (n_in != 1)
    return cn_error_set (err, CN_EINVAL, "%s: takes 1 input, got %d", op, n_in);
  cn_status st = shape_valid (op, 0, in[0], err);
  if (st != CN_OK)
    return st;
  *out = *in[0];
  return CN_OK;
}

static cn_status
check_binary (const char *op, int n_in, const cn_shape *const *in, cn_shape *out, cn_error *err)
{
  if (n_in != 2)
    return cn_error_set (err, CN_EINVAL, "%s: takes 2 inputs, got %d", op, n_in);
  for (int i = 0; i < 2; i++)
    {
      cn_status st = shape_valid (op, i, in[i], err);
      if (st != CN_OK)
        return st;
    }
  if (!cn_shape_equal (in[0], in[1]))
    {
      char a[128], b[128];
      return cn_error_set (err, CN_ESHAPE, "%s: input shapes %s and %s differ", op,
                           cn_shape_format (in[0], a, sizeof a), cn_shape_format (in[1], b, sizeof b));
    }
  *out = *in[0];
  return CN_OK;
}

/* The arms trust the checked shapes, but never index past what they are given. */
static cn_status
tensors_ok (const char *op, const cn_node_view *nv, const cn_tensor *const *in, const cn_tensor *out,
            cn_error *err)
{
  int64_t n = cn__numel (nv->out_shape);
  if (!cn_dtype_is_float (out->dtype) || cn_tensor_numel (out) != n)
    return cn_error_set (err, CN_EINVAL, "%s: output tensor does not match the node (node '%s')", op, nv->name);
  for (int i = 0; i < nv->n_in; i++)
    if (in[i]->dtype != out->dtype || cn_tensor_numel (in[i]) != n)
      return cn_error_set (err, CN_EINVAL, "%s: input %d does not match the node's sort or shape (node '%s')",
                           op, i, nv->name);
  return CN_OK;
}

static cn_status
boxes_ok (const char *op, const cn_node_view *nv, const cn_box *const *in, const cn_box *out, cn_error *err)
{
  int64_t n = cn__numel (nv->out_shape);
  if (out->n != n)
    return cn_error_set (err, CN_EINVAL, "%s: output box has %lld entries, expected %lld (node '%s')", op,
                         (long long) out->n, (long long) n, nv->name);
  for (int i = 0; i < nv->n_in; i++)
    if (in[i]->n != n)
      return cn_error_set (err, CN_EINVAL, "%s: input box %d has %lld entries, expected %lld (node '%s')", op, i,
                           (long long) in[i]->n, (long long) n, nv->name);
  return CN_OK;
}

static cn_status
mpfi_ok (const char *op, const cn_node_view *nv, const cn_mpfi_vec *const *in, const cn_mpfi_vec *out,
         cn_error *err)
{
  int64_t n = cn__numel (nv->out_shape);
  if (out->n != n)
    return cn_error_set (err, CN_EINVAL, "%s: output vector has %lld entries, expected %lld (node '%s')", op,
                         (long long) out->n, (long long) n, nv->name);
  for (int i = 0; i < nv->n_in; i++)
    if (in[i]->n != n)
      return cn_error_set (err, CN_EINVAL, "%s: input vector %d has %lld entries, expected %lld (node '%s')", op,
                           i, (long long) in[i]->n, (long long) n, nv->name);
  return CN_OK;
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

static cn_status
binary_forward (const char *opn, enum binop op, const cn_node_view *nv, const cn_tensor *const *in,
                cn_tensor *out, cn_error *err)
{
  cn_status st = tensors_ok (opn, nv, in, out, err);
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
  cn_status st = boxes_ok (opn, nv, in, out, err);
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
  cn_status st = mpfi_ok (opn, nv, in, out, err);
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

/* The arms trust the checked shapes, but never index past what they are given: binary64
 * tensors of the node's element count. */
static cn_status
pull_ok (const char *op, const cn_node_view *nv, const cn_tensor *const *in, const cn_tensor *out, cn_error *err)
{
  int64_t n = cn__numel (nv->out_shape);
  if (out->dtype != CN_DTYPE_F64 || cn_tensor_numel (out) != n)
    return cn_error_set (err, CN_EINVAL, "%s: pullback output is not a binary64 tensor of the node's shape (node '%s')",
                         op, cn__node_name (nv));
  for (int i = 0; i < nv->n_in; i++)
    if (in[i]->dtype != CN_DTYPE_F64 || cn_tensor_numel (in[i]) != n)
      return cn_error_set (err, CN_EINVAL,
                           "%s: pullback input %d is not a binary64 tensor of the node's shape (node '%s')", op, i,
                           cn__node_name (nv));
  return CN_OK;
}

/* add, sub, neg: g_in[i] += SG[i] g (exact copies or negations, one rounded sum each). */
static cn_status
linear_pullback (const char *opn, const double *sg, const cn_node_view *nv, const cn_tensor *const *in,
                 const cn_tensor *out, const double *g_out, double *const *g_in, cn_error *err)
{
  cn_status st = pull_ok (opn, nv, in, out, err);
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
  cn_status st = pull_ok ("mul", nv, in, out, err);
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
  cn_status st = pull_ok ("div", nv, in, out, err);
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

/* The same shape checks as pull_ok, with jvp in the message. */
static cn_status
jvp_ok (const char *op, const cn_node_view *nv, const cn_tensor *const *in, const cn_tensor *out, cn_error *err)
{
  int64_t n = cn__numel (nv->out_shape);
  if (out->dtype != CN_DTYPE_F64 || cn_tensor_numel (out) != n)
    return cn_error_set (err, CN_EINVAL, "%s: jvp output is not a binary64 tensor of the node's shape (node '%s')",
                         op, cn__node_name (nv));
  for (int i = 0; i < nv->n_in; i++)
    if (in[i]->dtype != CN_DTYPE_F64 || cn_tensor_numel (in[i]) != n)
      return cn_error_set (err, CN_EINVAL,
                           "%s: jvp input %d is not a binary64 tensor of the node's shape (node '%s')", op, i,
                           cn__node_name (nv));
  return CN_OK;
}

/* add, sub, neg: t = sum_i SG[i] t_i over the inputs with a tangent (0 if none has one). */
static cn_status
linear_jvp (const char *opn, const double *sg, const cn_node_view *nv, const cn_tensor *const *in,
            const cn_tensor *out, const double *const *t_in, double *t_out, cn_error *err)
{
  cn_status st = jvp_ok (opn, nv, in, out, err);
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
  cn_status st = jvp_ok ("mul", nv, in, out, err);
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
  cn_status st = jvp_ok ("div", nv, in, out, err);
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
add_check (const void *p, int n_in, const cn_shape *const *in, cn_shape *out, cn_error *err)
{
  (void) p;
  return check_binary ("add", n_in, in, out, err);
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
  return linear_crown (st, sg, err);
}

static cn_status
sub_check (const void *p, int n_in, const cn_shape *const *in, cn_shape *out, cn_error *err)
{
  (void) p;
  return check_binary ("sub", n_in, in, out, err);
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
  return linear_crown (st, sg, err);
}

static cn_status
mul_check (const void *p, int n_in, const cn_shape *const *in, cn_shape *out, cn_error *err)
{
  (void) p;
  return check_binary ("mul", n_in, in, out, err);
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
  return scale_crown ("mul", st, 0, err);
}

static cn_status
div_check (const void *p, int n_in, const cn_shape *const *in, cn_shape *out, cn_error *err)
{
  const cn_params_div *d = p;
  if (d == NULL)
    return cn_error_set (err, CN_EINVAL, "div: missing attributes");
  if (d->rounding != CN_DIV_TRUE && d->rounding != CN_DIV_TRUNC && d->rounding != CN_DIV_FLOOR)
    return cn_error_set (err, CN_EINVAL, "div: unknown rounding mode %d", (int) d->rounding);
  return check_binary ("div", n_in, in, out, err);
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
  if (div_op (st->nv) != OP_DIV_TRUE)
    return cn_error_set (err, CN_EUNSUPPORTED, "div: no CROWN relaxation for rounding mode %s (node '%s')",
                         div_op (st->nv) == OP_DIV_TRUNC ? "trunc" : "floor", st->nv->name);
  return scale_crown ("div", st, 1, err);
}

static cn_status
neg_check (const void *p, int n_in, const cn_shape *const *in, cn_shape *out, cn_error *err)
{
  (void) p;
  return check_unary ("neg", n_in, in, out, err);
}

static cn_status
neg_forward (const cn_node_view *nv, const cn_tensor *const *in, cn_tensor *out, cn_error *err)
{
  cn_status st = tensors_ok ("neg", nv, in, out, err);
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
  cn_status st = boxes_ok ("neg", nv, in, out, err);
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
  cn_status st = mpfi_ok ("neg", nv, in, out, err);
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
  return linear_crown (st, sg, err);
}

const struct cn_op_rule cn__rule_ADD = {
  .n_in = 2, .params_size = 0, .check = add_check, .forward = add_forward,
  .pullback = add_pullback, .jvp = add_jvp, .ibp = add_ibp, .ibp_mpfi = add_mpfi, .crown = add_crown,
};

const struct cn_op_rule cn__rule_SUB = {
  .n_in = 2, .params_size = 0, .check = sub_check, .forward = sub_forward,
  .pullback = sub_pullback, .jvp = sub_jvp, .ibp = sub_ibp, .ibp_mpfi = sub_mpfi, .crown = sub_crown,
};

const struct cn_op_rule cn__rule_MUL = {
  .n_in = 2, .params_size = 0, .check = mul_check, .forward = mul_forward,
  .pullback = mul_pullback, .jvp = mul_jvp, .ibp = mul_ibp, .ibp_mpfi = mul_mpfi, .crown = mul_crown,
};

const struct cn_op_rule cn__rule_DIV = {
  .n_in = 2, .params_size = sizeof (cn_params_div), .check = div_check, .forward = div_forward,
  .pullback = div_pullback, .jvp = div_jvp, .ibp = div_ibp, .ibp_mpfi = div_mpfi, .crown = div_crown,
};

const struct cn_op_rule cn__rule_NEG = {
  .n_in = 1, .params_size = 0, .check = neg_check, .forward = neg_forward,
  .pullback = neg_pullback, .jvp = neg_jvp, .ibp = neg_ibp, .ibp_mpfi = neg_mpfi, .crown = neg_crown,
};
