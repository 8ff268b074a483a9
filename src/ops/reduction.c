/* SPDX-License-Identifier: MIT */
/* src/ops/reduction.c: reduce (sum, prod, max, min), mean, and contract (its header with its code, at the end).
 *
 * Both reduce over the axes whose bit is set in AXES (bits at or above the rank are refused; an
 * empty mask reduces over no axis, the identity), keeping them as extent 1 if KEEPDIMS.  Each
 * output entry o owns the group G(o) of the N = prod of the reduced extents input entries that
 * agree with it on the kept axes; x_i are the inputs, [l_i, u_i] their boxes.
 *
 * The forwards compute in the sort T of the tensors (float for f32, double for f64), each operation
 * rounded to nearest in T on its own (fl; FLT_EVAL_METHOD 0); tools/gen_onnx_tests.py emulates them
 * ("f32seq") and tests/check_onnx.c requires the binary32 forward to match bit for bit.
 *
 * reduce SUM  v_o = sum_{i in G(o)} x_i.
 *   forward  v_o = +0, then v_o = fl(v_o + x_i) for the entries i of G(o) in increasing order of
 *            their index in the input (C order: the reduced axes' indices in lexicographic order).
 *   IBP      the lower end: s = fl(sum l_i) in any order and t = fl(sum |l_i|); by (G)
 *            |s - sum l_i| <= cn__dot_err (t, N), so lo = down(s - cn__dot_err (t, N)); the upper
 *            end likewise with the u_i.  An infinite end gives an infinite sum (and the error
 *            +inf); a NaN (+inf - inf) or an overflowed partial sum never becomes a finite end.
 *   CROWN    lam . v = sum_i lam_{o(i)} x_i: lam_in[i] = lam_{o(i)}, exact copies, no charge.
 * reduce PROD v_o = prod x_i: forward as SUM, from v_o = 1 with v_o = fl(v_o x_i); IBP by interval
 *            multiplication from [1, 1], each end product rounded outward (0 * inf := 0); CROWN:
 *            CN_EUNSUPPORTED.
 * reduce MAX, MIN: forward from v_o = -inf (+inf), in the same order v_o = x_i if x_i > v_o (< v_o)
 *            or x_i is NaN: exact, NaN propagating (torch.amax); IBP [max l_i, max u_i] (MIN
 *            likewise), exact; the reduced extents must be > 0 (checked); CROWN:
 *            CN_EUNSUPPORTED.
 * mean   v_o = (1/N) sum_{i in G(o)} x_i, 1 <= N <= 2^53 (checked).
 *   forward  the sum s as above (same order), then v_o = fl(s / N) with N converted to T.
 *   IBP      the SUM box [L, H] (sound reals), then [down(fl(L / N)), up(fl(H / N))]: one more
 *            rounding each.
 *   CROWN    lam_in[i] = fl(lam_{o(i)} / N), one rounded quotient per entry (N <= 2^53 is
 *            checked, so N is exact as a double), charged by cn__crown_charge_entrywise:
 *            sum_i (2u |lam_in i| + eta) max(|l_i|, |u_i|).
 *   MPFI     mpfi_add over the group, then mpfi_div_ui by N.
 * MPFI arms of reduce: mpfi_add, mpfi_mul, and max/min of the ends (exact in MPFR).
 * reduce and mean share every arm: each rule's impl (struct red_impl) says whether the fold is
 * the attribute's kind or mean's sum divided by N.  The arms trust the shapes and sorts the
 * graph builder checked (debug assertions state them).
 *
 * Pullbacks (binary64, round to nearest; g_o is the cotangent of output o, o(i) the output whose
 * group holds input entry i):
 *   SUM   dv_o = sum_{i in G(o)} dx_i, so  g_x[i] += g_{o(i)}.
 *   mean  dv_o = (1/N) sum dx_i, so  g_x[i] += fl(g_{o(i)} / N).
 *   PROD  d v_o / d x_i = prod_{k in G(o), k != i} x_k, formed without division (a zero factor is
 *         allowed): the product P_i of the group's entries before i (a sweep in increasing index
 *         order) times the product S_i of those after i (a sweep in decreasing order), so
 *         g_x[i] += fl(g_{o(i)} fl(P_i S_i)).
 *   MAX, MIN  v_o = x_{i*(o)} for the entry i* the forward keeps, so  g_x[i*] += g_o  and the other
 *         entries get nothing.  i* is the forward's own choice, in its scan order: the first
 *         maximal (minimal) entry of the group in increasing index order, or the last NaN if the
 *         group holds one (the forward keeps replacing by a NaN); at a tie the first entry takes
 *         the whole cotangent (a one-sided choice: max is not differentiable there).
 *
 * Forward mode (jvp, binary64, round to nearest; t_i the input's tangent, all zero without one):
 * the transposes of the pullbacks above, so that <jvp(t), g> = <t, pullback(g)> exactly in real
 * arithmetic and to rounding in binary64.
 *   SUM   t_o = sum_{i in G(o)} t_i, accumulated from +0 in increasing index order.
 *   mean  t_o = fl(fl(sum_{i in G(o)} t_i) / N): the sum as for SUM, then one division.
 *   PROD  t_o = sum_{i in G(o)} fl(P_i S_i) t_i, with the same P_i and S_i as the pullback.
 *   MAX, MIN  t_o = t_{i*(o)}, the same entry i* the pullback routes the cotangent to (the first
 *         extreme in index order, or the last NaN).  */
#include <config.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "ops/ops_impl.h"

/* ---- checks --------------------------------------------------------------------------- */

static cn_status
reduce_shape (const char *op, const cn_params_reduce *r, int n_in, const cn_shape *const *in, int need_elems,
              cn_shape *out, cn_error *err)
{
  if (r == NULL)
    return cn_error_set (err, CN_EINVAL, "%s: missing attributes", op);
  if (n_in != 1)
    return cn_error_set (err, CN_EINVAL, "%s: takes 1 input, got %d", op, n_in);
  const cn_shape *s = in[0];
  cn_status st = cn__shape_valid (op, "input", s, err);
  if (st != CN_OK)
    return st;
  if ((r->axes >> s->rank) != 0)
    {
      int a = s->rank;
      while (!((r->axes >> a) & 1u))
        a++;
      return cn_error_set (err, CN_EINVAL, "%s: axis %d out of range for rank %d", op, a, s->rank);
    }
  if (r->keepdims != 0 && r->keepdims != 1)
    return cn_error_set (err, CN_EINVAL, "%s: keepdims must be 0 or 1, not %d", op, r->keepdims);
  cn_shape o;
  memset (&o, 0, sizeof o);
  int64_t group = 1;
  for (int a = 0; a < s->rank; a++)
    if ((r->axes >> a) & 1u)
      group *= s->dim[a];
  if (need_elems == 2 && group > ((int64_t) 1 << 53))
    return cn_error_set (err, CN_EUNSUPPORTED, "%s: groups of %lld elements (more than 2^53) are not supported", op,
                         (long long) group);
  for (int a = 0; a < s->rank; a++)
    {
      if ((r->axes >> a) & 1u)
        {
          if (need_elems && s->dim[a] == 0)
            return cn_error_set (err, CN_EINVAL, "%s: reduced axis %d has extent 0 (no element to %s)", op, a,
                                 need_elems == 2 ? "average" : "compare");
          if (r->keepdims)
            o.dim[o.rank++] = 1;
        }
      else
        o.dim[o.rank++] = s->dim[a];
    }
  *out = o;
  return CN_OK;
}

/* The family's data of one operator, its rule's impl: reduce folds by its attribute's kind,
 * mean sums and divides by the group size. */
struct red_impl
{
  int mean;
};

/* reduce: a known kind, and groups that are not empty for MAX and MIN; mean: groups of 1 to
 * 2^53 entries. */
static cn_status
red_check (const struct cn_op_rule *rule, const void *p, int n_in, const cn_shape *const *in, cn_shape *out,
           cn_error *err)
{
  const struct red_impl *d = rule->impl;
  const char *op = cn_op_name (rule->op);
  const cn_params_reduce *r = p;
  if (d->mean)
    return reduce_shape (op, r, n_in, in, 2, out, err);
  if (r != NULL && r->kind != CN_REDUCE_SUM && r->kind != CN_REDUCE_PROD && r->kind != CN_REDUCE_MAX
      && r->kind != CN_REDUCE_MIN)
    return cn_error_set (err, CN_EINVAL, "%s: unknown kind %d", op, (int) r->kind);
  int need = r != NULL && (r->kind == CN_REDUCE_MAX || r->kind == CN_REDUCE_MIN);
  return reduce_shape (op, r, n_in, in, need, out, err);
}

/* Node NV's fold and whether it divides by the group size: reduce's kind and 0, or SUM and 1
 * for mean. */
static void
red_kind (const cn_node_view *nv, int *kind, int *mean)
{
  const struct red_impl *d = nv->rule->impl;
  *mean = d->mean;
  *kind = d->mean ? CN_REDUCE_SUM : (int) ((const cn_params_reduce *) nv->params)->kind;
}

/* ---- the group map -------------------------------------------------------------------- */

/* OUT_OF[i] = the output entry whose group holds input entry i; *N = the group size. */
static cn_status
group_map (const char *op, const cn_node_view *nv, int64_t **map, int64_t *group, cn_error *err)
{
  const cn_params_reduce *r = nv->params;
  const cn_shape *s = nv->in_shape[0];
  int64_t ni = cn__numel (s);
  int64_t *m = malloc ((size_t) (ni ? ni : 1) * sizeof *m);
  if (m == NULL)
    return cn_error_set (err, CN_ENOMEM, "%s: out of memory (node '%s')", op, nv->name);
  /* The kept shape: reduced axes of extent 1, so its C-order strides give the output entry. */
  cn_shape k = *s;
  int64_t n = 1;
  for (int a = 0; a < s->rank; a++)
    if ((r->axes >> a) & 1u)
      {
        n *= s->dim[a];
        k.dim[a] = 1;
      }
  int64_t kstr[CN_MAX_RANK], idx[CN_MAX_RANK] = { 0 };
  cn__strides (&k, kstr);
  for (int64_t i = 0; i < ni; i++)
    {
      int64_t o = 0;
      for (int a = 0; a < s->rank; a++)
        if (!((r->axes >> a) & 1u))
          o += idx[a] * kstr[a];
      m[i] = o;
      for (int a = s->rank - 1; a >= 0; a--)
        {
          if (++idx[a] < s->dim[a])
            break;
          idx[a] = 0;
        }
    }
  *map = m;
  *group = n;
  return CN_OK;
}

/* ---- forward -------------------------------------------------------------------------- */

/* The forward in the sort T, in the order of the header: every output from INIT, then the input
 * entries in increasing index order, each folded into its output by one STEP (one rounding). */
#define REDUCE_LOOP(T, INIT, STEP)                                                                 \
  do                                                                                               \
    {                                                                                              \
      const T *x = in[0]->data;                                                                    \
      T *y = out->data;                                                                            \
      for (int64_t o = 0; o < no; o++)                                                             \
        y[o] = (INIT);                                                                             \
      for (int64_t i = 0; i < ni; i++)                                                             \
        {                                                                                          \
          T a = y[map[i]], b = x[i];                                                               \
          y[map[i]] = (STEP);                                                                      \
        }                                                                                          \
    }                                                                                              \
  while (0)

static cn_status
red_forward (const cn_node_view *nv, const cn_tensor *const *in, cn_tensor *out, cn_error *err)
{
  const char *op = cn_op_name (nv->op);
  int kind, mean;
  red_kind (nv, &kind, &mean);
  int64_t ni = cn__numel (nv->in_shape[0]), no = cn__numel (nv->out_shape);
  CN__ASSERTD (cn_dtype_is_float (out->dtype) && in[0]->dtype == out->dtype && cn_tensor_numel (in[0]) == ni
               && cn_tensor_numel (out) == no);
  int64_t *map, group;
  cn_status st = group_map (op, nv, &map, &group, err);
  if (st != CN_OK)
    return st;
  if (out->dtype == CN_DTYPE_F64)
    {
      switch (kind)
        {
        case CN_REDUCE_SUM: REDUCE_LOOP (double, 0.0, a + b); break;
        case CN_REDUCE_PROD: REDUCE_LOOP (double, 1.0, a * b); break;
        case CN_REDUCE_MAX: REDUCE_LOOP (double, -INFINITY, (b > a || isnan (b)) ? b : a); break;
        default: REDUCE_LOOP (double, INFINITY, (b < a || isnan (b)) ? b : a); break;
        }
      if (mean)
        for (int64_t o = 0; o < no; o++)
          ((double *) out->data)[o] /= (double) group;
    }
  else
    {
      switch (kind)
        {
        case CN_REDUCE_SUM: REDUCE_LOOP (float, 0.0f, a + b); break;
        case CN_REDUCE_PROD: REDUCE_LOOP (float, 1.0f, a * b); break;
        case CN_REDUCE_MAX: REDUCE_LOOP (float, -INFINITY, (b > a || isnan (b)) ? b : a); break;
        default: REDUCE_LOOP (float, INFINITY, (b < a || isnan (b)) ? b : a); break;
        }
      if (mean)
        for (int64_t o = 0; o < no; o++)
          ((float *) out->data)[o] /= (float) group;
    }
  free (map);
  return CN_OK;
}

/* ---- IBP ------------------------------------------------------------------------------ */

/* Lower and upper candidates of x*y (0 * inf := 0), NaN-free. */
static inline void
prod_cand (double x, double y, double *lo, double *hi)
{
  if (x == 0 || y == 0)
    {
      *lo = *hi = 0;
      return;
    }
  double p = x * y;
  /* one rounding: p = fl(x y); +inf as a lower candidate means x y > DBL_MAX */
  double l = p == INFINITY ? DBL_MAX : cn__down (p);
  double h = p == -INFINITY ? -DBL_MAX : cn__up (p);
  *lo = isnan (l) ? -INFINITY : l;
  *hi = isnan (h) ? INFINITY : h;
}

static cn_status
red_ibp (const cn_node_view *nv, const cn_box *const *in, cn_box *out, cn_error *err)
{
  const char *op = cn_op_name (nv->op);
  int kind, mean;
  red_kind (nv, &kind, &mean);
  int64_t ni = cn__numel (nv->in_shape[0]), no = cn__numel (nv->out_shape);
  CN__ASSERTD (in[0]->n == ni && out->n == no);
  int64_t *map, group;
  cn_status st = group_map (op, nv, &map, &group, err);
  if (st != CN_OK)
    return st;
  const double *xl = in[0]->lo, *xu = in[0]->hi;
  double *ol = out->lo, *oh = out->hi;
  if (kind == CN_REDUCE_SUM)
    {
      double *tl = calloc ((size_t) (no ? no : 1), sizeof *tl);
      double *th = calloc ((size_t) (no ? no : 1), sizeof *th);
      if (tl == NULL || th == NULL)
        {
          free (tl);
          free (th);
          free (map);
          return cn_error_set (err, CN_ENOMEM, "%s: out of memory (node '%s')", op, nv->name);
        }
      for (int64_t o = 0; o < no; o++)
        ol[o] = oh[o] = 0;
      for (int64_t i = 0; i < ni; i++)
        {
          int64_t o = map[i];
          ol[o] += xl[i];
          oh[o] += xu[i];
          tl[o] += fabs (xl[i]);
          th[o] += fabs (xu[i]);
        }
      for (int64_t o = 0; o < no; o++)
        {
          /* now ol = fl(sum l_i), tl = fl(sum |l_i|) (likewise oh, th): by (G),
           * sum l_i >= ol - cn__dot_err (tl, N) and sum u_i <= oh + cn__dot_err (th, N).  A
           * non-finite ol (an infinite end, or an overflow) makes the end infinite. */
          double l = isfinite (ol[o]) ? cn__down (ol[o] - cn__dot_err (tl[o], group)) : -INFINITY;
          double h = isfinite (oh[o]) ? cn__up (oh[o] + cn__dot_err (th[o], group)) : INFINITY;
          l = isnan (l) ? -INFINITY : l;
          h = isnan (h) ? INFINITY : h;
          if (mean)
            {
              /* [l, h] encloses the sum (reals); divide by N with one more rounding */
              double ql = l / (double) group, qh = h / (double) group;
              l = isinf (ql) ? ql : cn__down (ql);
              h = isinf (qh) ? qh : cn__up (qh);
            }
          ol[o] = l;
          oh[o] = h;
        }
      free (tl);
      free (th);
    }
  else if (kind == CN_REDUCE_PROD)
    {
      for (int64_t o = 0; o < no; o++)
        ol[o] = oh[o] = 1;
      for (int64_t i = 0; i < ni; i++)
        {
          int64_t o = map[i];
          double a = ol[o], b = oh[o], c = xl[i], d = xu[i];
          double l[4], h[4];
          prod_cand (a, c, &l[0], &h[0]);
          prod_cand (a, d, &l[1], &h[1]);
          prod_cand (b, c, &l[2], &h[2]);
          prod_cand (b, d, &l[3], &h[3]);
          double lo = l[0], hi = h[0];
          for (int q = 1; q < 4; q++)
            {
              lo = l[q] < lo ? l[q] : lo;
              hi = h[q] > hi ? h[q] : hi;
            }
          /* now [lo, hi] encloses [a, b] * [c, d] */
          ol[o] = lo;
          oh[o] = hi;
        }
    }
  else
    {
      int mx = kind == CN_REDUCE_MAX;
      for (int64_t o = 0; o < no; o++)
        ol[o] = oh[o] = mx ? -INFINITY : INFINITY;
      for (int64_t i = 0; i < ni; i++)
        {
          int64_t o = map[i];
          if (mx)
            {
              ol[o] = xl[i] > ol[o] ? xl[i] : ol[o];
              oh[o] = xu[i] > oh[o] ? xu[i] : oh[o];
            }
          else
            {
              ol[o] = xl[i] < ol[o] ? xl[i] : ol[o];
              oh[o] = xu[i] < oh[o] ? xu[i] : oh[o];
            }
        }
      /* now [ol, oh] = [max l_i, max u_i] (or min), exactly; groups are not empty */
    }
  free (map);
  return CN_OK;
}

/* ---- MPFI ----------------------------------------------------------------------------- */

static cn_status
red_mpfi (const cn_node_view *nv, const cn_mpfi_vec *const *in, cn_mpfi_vec *out, cn_error *err)
{
  const char *op = cn_op_name (nv->op);
  int kind, mean;
  red_kind (nv, &kind, &mean);
  int64_t ni = cn__numel (nv->in_shape[0]), no = cn__numel (nv->out_shape);
  CN__ASSERTD (in[0]->n == ni && out->n == no);
  if (no == 0)
    return CN_OK;
  int64_t *map, group;
  cn_status st = group_map (op, nv, &map, &group, err);
  if (st != CN_OK)
    return st;
  unsigned char *seen = calloc ((size_t) no, 1);
  if (seen == NULL)
    {
      free (map);
      return cn_error_set (err, CN_ENOMEM, "%s: out of memory (node '%s')", op, nv->name);
    }
  mpfr_prec_t prec = mpfi_get_prec (out->v[0]);
  mpfr_t l, r, a, b;
  mpfr_inits2 (prec, l, r, a, b, (mpfr_ptr) 0);
  for (int64_t o = 0; o < no; o++)
    if (kind == CN_REDUCE_PROD)
      mpfi_set_ui (out->v[o], 1);
    else
      mpfi_set_ui (out->v[o], 0);
  for (int64_t i = 0; i < ni; i++)
    {
      int64_t o = map[i];
      switch (kind)
        {
        case CN_REDUCE_SUM: mpfi_add (out->v[o], out->v[o], in[0]->v[i]); break;
        case CN_REDUCE_PROD: mpfi_mul (out->v[o], out->v[o], in[0]->v[i]); break;
        default:
          if (!seen[o])
            {
              mpfi_set (out->v[o], in[0]->v[i]);
              seen[o] = 1;
              break;
            }
          mpfi_get_left (l, out->v[o]);
          mpfi_get_right (r, out->v[o]);
          mpfi_get_left (a, in[0]->v[i]);
          mpfi_get_right (b, in[0]->v[i]);
          if (kind == CN_REDUCE_MAX)
            {
              mpfr_max (l, l, a, MPFR_RNDD);
              mpfr_max (r, r, b, MPFR_RNDU);
            }
          else
            {
              mpfr_min (l, l, a, MPFR_RNDD);
              mpfr_min (r, r, b, MPFR_RNDU);
            }
          mpfi_interv_fr (out->v[o], l, r);
          break;
        }
    }
  if (mean)
    for (int64_t o = 0; o < no; o++)
      mpfi_div_ui (out->v[o], out->v[o], (unsigned long) group);
  mpfr_clears (l, r, a, b, (mpfr_ptr) 0);
  free (seen);
  free (map);
  return CN_OK;
}

/* ---- CROWN ---------------------------------------------------------------------------- */

static cn_status
red_crown (const cn_crown_step *st, cn_error *err)
{
  const cn_node_view *nv = st->nv;
  const char *op = cn_op_name (nv->op);
  int kind, mean;
  red_kind (nv, &kind, &mean);
  if (kind != CN_REDUCE_SUM)
    return cn_error_set (err, CN_EUNSUPPORTED, "reduce: no CROWN relaxation for %s (node '%s')",
                         kind == CN_REDUCE_PROD ? "prod" : kind == CN_REDUCE_MAX ? "max" : "min", nv->name);
  if (st->lam_in[0] == NULL)
    return cn_error_set (err, CN_EINVAL, "%s: CROWN step on a constant input (node '%s')", op, nv->name);
  int64_t ni = cn__numel (nv->in_shape[0]), no = cn__numel (nv->out_shape);
  CN__ASSERTD (st->in_box[0]->n == ni);
  int64_t *map, group;
  cn_status status = group_map (op, nv, &map, &group, err);
  if (status != CN_OK)
    return status;
  double nd = (double) group;
#pragma omp parallel for num_threads(st->threads > 0 ? st->threads : 1) if (st->rows * ni > 65536)
  for (int64_t s = 0; s < st->rows; s++)
    {
      const double *lo = st->lam_out + s * no;
      double *li = st->lam_in[0] + s * ni;
      if (mean)
        for (int64_t i = 0; i < ni; i++)
          li[i] = lo[map[i]] / nd;
      else
        for (int64_t i = 0; i < ni; i++)
          li[i] = lo[map[i]];
      /* now li = lam_out gathered (exact), or fl(lam_out / N), one rounding per entry */
    }
  if (mean)
    cn__crown_charge_entrywise (st, st->lam_in[0], ni, st->in_box[0]);
  free (map);
  return CN_OK;
}

/* ---- pullback ------------------------------------------------------------------------- */

static cn_status
red_pullback (const cn_node_view *nv, const cn_tensor *const *in, const cn_tensor *out, const double *g_out,
              double *const *g_in, cn_error *err)
{
  const char *op = cn_op_name (nv->op);
  int kind, mean;
  red_kind (nv, &kind, &mean);
  int64_t ni = cn__numel (nv->in_shape[0]), no = cn__numel (nv->out_shape);
  CN__ASSERTD (in[0]->dtype == CN_DTYPE_F64 && out->dtype == CN_DTYPE_F64 && cn_tensor_numel (in[0]) == ni
               && cn_tensor_numel (out) == no);
  double *gx = g_in[0];
  if (gx == NULL)
    return CN_OK;
  const double *x = in[0]->data;
  int64_t *map, group;
  cn_status st = group_map (op, nv, &map, &group, err);
  if (st != CN_OK)
    return st;
  if (kind == CN_REDUCE_SUM)
    {
      double nd = (double) group;
      if (mean)
        for (int64_t i = 0; i < ni; i++)
          gx[i] += g_out[map[i]] / nd;
      else
        for (int64_t i = 0; i < ni; i++)
          gx[i] += g_out[map[i]];
    }
  else if (kind == CN_REDUCE_PROD)
    {
      double *pre = malloc ((size_t) (ni ? ni : 1) * sizeof *pre);
      double *acc = malloc ((size_t) (no ? no : 1) * sizeof *acc);
      if (pre == NULL || acc == NULL)
        {
          free (pre);
          free (acc);
          free (map);
          return cn_error_set (err, CN_ENOMEM, "%s: out of memory (node '%s')", op, nv->name);
        }
      for (int64_t o = 0; o < no; o++)
        acc[o] = 1;
      for (int64_t i = 0; i < ni; i++)
        {
          pre[i] = acc[map[i]];
          acc[map[i]] *= x[i];
        }
      /* now pre[i] = P_i, the product of the group's entries before i */
      for (int64_t o = 0; o < no; o++)
        acc[o] = 1;
      for (int64_t i = ni - 1; i >= 0; i--)
        {
          int64_t o = map[i];
          gx[i] += g_out[o] * (pre[i] * acc[o]);
          acc[o] *= x[i];
        }
      /* now g_x[i] has received g_o P_i S_i, S_i the product of the entries after i */
      free (pre);
      free (acc);
    }
  else
    {
      int mx = kind == CN_REDUCE_MAX;
      int64_t *best = malloc ((size_t) (no ? no : 1) * sizeof *best);
      if (best == NULL)
        {
          free (map);
          return cn_error_set (err, CN_ENOMEM, "%s: out of memory (node '%s')", op, nv->name);
        }
      for (int64_t o = 0; o < no; o++)
        best[o] = -1;
      for (int64_t i = 0; i < ni; i++)
        {
          int64_t o = map[i];
          /* The forward's step, from -inf (+inf): keep x_i if it beats the current value or is a
           * NaN.  The first entry of a group is taken as well, so that an all -inf (+inf) group
           * routes its cotangent to its first entry. */
          double a = best[o] < 0 ? (mx ? -INFINITY : INFINITY) : x[best[o]], b = x[i];
          if (best[o] < 0 || (mx ? b > a : b < a) || isnan (b))
            best[o] = i;
        }
      /* now x[best[o]] = v_o, best[o] the entry the forward kept (the first extreme in index order) */
      for (int64_t o = 0; o < no; o++)
        if (best[o] >= 0)
          gx[best[o]] += g_out[o];
      free (best);
    }
  free (map);
  return CN_OK;
}

/* ---- forward mode --------------------------------------------------------------------- */

static cn_status
red_jvp (const cn_node_view *nv, const cn_tensor *const *in, const cn_tensor *out, const double *const *t_in,
         double *t_out, cn_error *err)
{
  const char *op = cn_op_name (nv->op);
  int kind, mean;
  red_kind (nv, &kind, &mean);
  int64_t ni = cn__numel (nv->in_shape[0]), no = cn__numel (nv->out_shape);
  CN__ASSERTD (in[0]->dtype == CN_DTYPE_F64 && out->dtype == CN_DTYPE_F64 && cn_tensor_numel (in[0]) == ni
               && cn_tensor_numel (out) == no);
  for (int64_t o = 0; o < no; o++)
    t_out[o] = 0;
  const double *tx = t_in[0];
  if (tx == NULL)
    return CN_OK;
  const double *x = in[0]->data;
  int64_t *map, group;
  cn_status st = group_map (op, nv, &map, &group, err);
  if (st != CN_OK)
    return st;
  if (kind == CN_REDUCE_SUM)
    {
      for (int64_t i = 0; i < ni; i++)
        t_out[map[i]] += tx[i];
      /* now t_out[o] = fl(sum_{i in G(o)} t_i) in increasing index order */
      if (mean)
        {
          double nd = (double) group;
          for (int64_t o = 0; o < no; o++)
            t_out[o] /= nd;
        }
    }
  else if (kind == CN_REDUCE_PROD)
    {
      double *pre = malloc ((size_t) (ni ? ni : 1) * sizeof *pre);
      double *acc = malloc ((size_t) (no ? no : 1) * sizeof *acc);
      if (pre == NULL || acc == NULL)
        {
          free (pre);
          free (acc);
          free (map);
          return cn_error_set (err, CN_ENOMEM, "%s: out of memory (node '%s')", op, nv->name);
        }
      for (int64_t o = 0; o < no; o++)
        acc[o] = 1;
      for (int64_t i = 0; i < ni; i++)
        {
          pre[i] = acc[map[i]];
          acc[map[i]] *= x[i];
        }
      /* now pre[i] = P_i, the product of the group's entries before i */
      for (int64_t o = 0; o < no; o++)
        acc[o] = 1;
      for (int64_t i = ni - 1; i >= 0; i--)
        {
          int64_t o = map[i];
          t_out[o] += (pre[i] * acc[o]) * tx[i];
          acc[o] *= x[i];
        }
      /* now t_out[o] = sum_i fl(P_i S_i) t_i, summed in decreasing index order */
      free (pre);
      free (acc);
    }
  else
    {
      int mx = kind == CN_REDUCE_MAX;
      int64_t *best = malloc ((size_t) (no ? no : 1) * sizeof *best);
      if (best == NULL)
        {
          free (map);
          return cn_error_set (err, CN_ENOMEM, "%s: out of memory (node '%s')", op, nv->name);
        }
      for (int64_t o = 0; o < no; o++)
        best[o] = -1;
      for (int64_t i = 0; i < ni; i++)
        {
          int64_t o = map[i];
          /* The pullback's choice, step by step (see red_pullback). */
          double a = best[o] < 0 ? (mx ? -INFINITY : INFINITY) : x[best[o]], b = x[i];
          if (best[o] < 0 || (mx ? b > a : b < a) || isnan (b))
            best[o] = i;
        }
      /* now best[o] is the entry the forward kept */
      for (int64_t o = 0; o < no; o++)
        if (best[o] >= 0)
          t_out[o] = tx[best[o]];
      free (best);
    }
  free (map);
  return CN_OK;
}

/* ---- the operators -------------------------------------------------------------------- */

static const struct red_impl reduce_impl = { .mean = 0 };

/* reduce and mean in binary32: max and min are exact (they pick a word); a sum of the N words of
 * a group in any order errs by (G32) with T = sum_i m_i (m the magnitude over the box, an RN sum
 * rounded up by (N)); mean divides it by N or multiplies it by fl32(1/N) (cn__b32_mean_err, N a
 * binary32 integer); prod declares none (its error depends on the magnitudes of every partial
 * product, not bounded here). */
static cn_status
red_roundoff32 (const cn_node_view *nv, const cn_box *const *in, const cn_box *out, double *e, cn_error *err)
{
  const char *op = cn_op_name (nv->op);
  int kind, mean;
  red_kind (nv, &kind, &mean);
  if (!mean && (kind == CN_REDUCE_MAX || kind == CN_REDUCE_MIN))
    return cn__roundoff32_exact (nv, in, out, e, err);
  if (!mean && kind != CN_REDUCE_SUM)
    return cn_error_set (err, CN_EUNSUPPORTED, "%s: no binary32 evaluation declared for a product (node '%s')", op,
                         cn__node_name (nv));
  int64_t ni = cn__numel (nv->in_shape[0]), no = out->n;
  int64_t *map, group;
  cn_status st = group_map (op, nv, &map, &group, err);
  if (st != CN_OK)
    return st;
  for (int64_t o = 0; o < no; o++)
    e[o] = 0;
  for (int64_t i = 0; i < ni; i++)
    e[map[i]] += fmax (fabs (in[0]->lo[i]), fabs (in[0]->hi[i]));
  for (int64_t o = 0; o < no; o++)
    {
      double t = cn__nonneg_up (e[o], group);
      e[o] = mean ? cn__b32_mean_err (t, group, group) : cn__b32_sum_err (t, group);
    }
  free (map);
  return CN_OK;
}

const struct cn_op_rule cn__rule_REDUCE = { .op = CN_OP_REDUCE, .impl = &reduce_impl,
  .n_in = 1, .check = red_check, .forward = red_forward,
  .pullback = red_pullback, .jvp = red_jvp, .ibp = red_ibp, .ibp_mpfi = red_mpfi, .crown = red_crown,
  .roundoff32 = red_roundoff32,
  .certs = CN__CERTS (CN__CERT_GRADIENT, CN__CERT_BOUNDS,
                      CN__CERT_ROUNDOFF32 ("max and min pick a word (0 error); a sum of the group's N words in any "
                                           "order errs by (G32), gamma32_N T + 2N eta32 with T the sum of the "
                                           "magnitudes over the box; prod declares none")),
};

static const struct red_impl mean_impl = { .mean = 1 };

const struct cn_op_rule cn__rule_MEAN = { .op = CN_OP_MEAN, .impl = &mean_impl,
  .n_in = 1, .check = red_check, .forward = red_forward,
  .pullback = red_pullback, .jvp = red_jvp, .ibp = red_ibp, .ibp_mpfi = red_mpfi, .crown = red_crown,
  .roundoff32 = red_roundoff32,
  .certs = CN__CERTS (CN__CERT_GRADIENT, CN__CERT_BOUNDS,
                      CN__CERT_ROUNDOFF32 ("the group's sum in any order (G32), then a division by N or a product "
                                           "with fl32(1/N): E_s/N + (2 u32 + u32^2)(T + E_s)/N + 2 eta32, N <= 2^24")),
};

/* ---- contract ------------------------------------------------------------------------- */
/* contract: a tensor contraction (torch.tensordot with paired axes, cn_params_contract): A's axes
 *   a_axes[p] and B's b_axes[p] (p < n, equal extents, each list distinct) are summed over; the output
 *   holds A's free axes in order, then B's.  With i running over A's free index tuples (Na of them, row
 *   major), j over B's (Nb) and kk over the contracted tuples (Nk, row major in the pair order p):
 *       Y[i,j] = sum_kk A[i,kk] B[kk,j]
 *   (n = 0: the outer product; Nk = 1 with the empty tuple).
 *   Forward  s_0 = +0, s_{kk+1} = fl(s_kk + fl(A[i,kk] B[kk,j])) for kk = 0, 1, ..., Nk - 1, in the sort T.
 *   IBP      matmul's selection form: each term an interval product (least and greatest corner products
 *            as RN doubles), the sums charged by (G) through cn__sum_lo/cn__sum_hi (an infinite or NaN
 *            term makes its end infinite).
 *   MPFI     the same sum of mpfi_mul products.
 *   CROWN    exactly one constant operand: A varies: lam_A[s][i,kk] = sum_j lam[s][i,j] B[kk,j] (inner
 *            length Nb); B varies: lam_B[s][kk,j] = sum_i lam[s][i,j] A[i,kk] (length Na).  Every entry of
 *            the varying operand is one (i,kk) (or (kk,j)) pair, so each lam entry is one RN inner product;
 *            charge cn__crown_charge_affine with w_up[i,j] >= sum_kk |A||B| (the varying operand by its
 *            magnitude, rounded up by (N)), K = max(Na, Nb); no bias.
 *   Pullback g_A[i,kk] += sum_j G[i,j] B[kk,j], g_B[kk,j] += sum_i G[i,j] A[i,kk].
 *   jvp      T_Y[i,j] = sum_kk (T_A[i,kk] B[kk,j] + A[i,kk] T_B[kk,j]). */

struct ct_geom
{
  int64_t na, nb, nk;
  int64_t *af, *ac, *bc, *bf;   /* element offsets: A free, A contracted, B contracted, B free */
};

static void
ct_free (struct ct_geom *g)
{
  free (g->af);
  free (g->ac);
  free (g->bc);
  free (g->bf);
  memset (g, 0, sizeof *g);
}

/* Row-major offsets of the N tuples over the axes AX[0..n) of a tensor of extents DIM and strides
 * STRIDE, into OFF (N entries). */
static void
ct_offsets (int n, const int *ax, const int64_t *dim, const int64_t *stride, int64_t N, int64_t *off)
{
  int64_t idx[CN_MAX_RANK] = { 0 };
  for (int64_t q = 0; q < N; q++)
    {
      int64_t o = 0;
      for (int p = 0; p < n; p++)
        o += idx[p] * stride[ax[p]];
      off[q] = o;
      for (int p = n - 1; p >= 0; p--)
        {
          if (++idx[p] < dim[ax[p]])
            break;
          idx[p] = 0;
        }
    }
}

/* Checks P against the shapes A, B; writes OUT (may be NULL) and, if G is not NULL, the offsets. */
static cn_status
ct_geometry (const cn_params_contract *p, const cn_shape *a, const cn_shape *b, cn_shape *out, struct ct_geom *g,
             cn_error *err)
{
  if (p == NULL)
    return cn_error_set (err, CN_EINVAL, "contract: missing attributes");
  if (p->n < 0 || p->n > a->rank || p->n > b->rank)
    return cn_error_set (err, CN_EINVAL, "contract: %d contracted axis pairs for ranks %d and %d", p->n, a->rank,
                         b->rank);
  int used_a[CN_MAX_RANK] = { 0 }, used_b[CN_MAX_RANK] = { 0 };
  int cax_a[CN_MAX_RANK], cax_b[CN_MAX_RANK], fa[CN_MAX_RANK], fb[CN_MAX_RANK];
  int64_t nk = 1;
  for (int q = 0; q < p->n; q++)
    {
      int x = p->a_axes[q], y = p->b_axes[q];
      if (x < 0 || x >= a->rank || y < 0 || y >= b->rank)
        return cn_error_set (err, CN_EINVAL, "contract: axis pair %d (%d, %d) outside ranks %d and %d", q, x, y,
                             a->rank, b->rank);
      if (used_a[x] || used_b[y])
        return cn_error_set (err, CN_EINVAL, "contract: axis %d of input %d is contracted twice",
                             used_a[x] ? x : y, used_a[x] ? 0 : 1);
      if (a->dim[x] != b->dim[y])
        return cn_error_set (err, CN_ESHAPE, "contract: extents %lld (axis %d of input 0) and %lld (axis %d of input 1) differ",
                             (long long) a->dim[x], x, (long long) b->dim[y], y);
      used_a[x] = used_b[y] = 1;
      cax_a[q] = x;
      cax_b[q] = y;
      nk *= a->dim[x];
    }
  int nfa = 0, nfb = 0;
  int64_t na = 1, nb = 1;
  for (int d = 0; d < a->rank; d++)
    if (!used_a[d])
      {
        fa[nfa++] = d;
        na *= a->dim[d];
      }
  for (int d = 0; d < b->rank; d++)
    if (!used_b[d])
      {
        fb[nfb++] = d;
        nb *= b->dim[d];
      }
  if (nfa + nfb > CN_MAX_RANK)
    return cn_error_set (err, CN_ESHAPE, "contract: output rank %d exceeds %d", nfa + nfb, CN_MAX_RANK);
  cn_shape o;
  memset (&o, 0, sizeof o);
  for (int q = 0; q < nfa; q++)
    o.dim[o.rank++] = a->dim[fa[q]];
  for (int q = 0; q < nfb; q++)
    o.dim[o.rank++] = b->dim[fb[q]];
  if (cn_shape_numel (&o) < 0 || cn_shape_numel (a) < 0 || cn_shape_numel (b) < 0)
    return cn_error_set (err, CN_ESHAPE, "contract: element count overflows");
  if (out != NULL)
    *out = o;
  if (g == NULL)
    return CN_OK;
  memset (g, 0, sizeof *g);
  g->na = na;
  g->nb = nb;
  g->nk = nk;
  g->af = malloc ((size_t) (na ? na : 1) * sizeof (int64_t));
  g->ac = malloc ((size_t) (nk ? nk : 1) * sizeof (int64_t));
  g->bc = malloc ((size_t) (nk ? nk : 1) * sizeof (int64_t));
  g->bf = malloc ((size_t) (nb ? nb : 1) * sizeof (int64_t));
  if (g->af == NULL || g->ac == NULL || g->bc == NULL || g->bf == NULL)
    {
      ct_free (g);
      return cn_error_set (err, CN_ENOMEM, "contract: out of memory");
    }
  int64_t sa[CN_MAX_RANK], sb[CN_MAX_RANK];
  cn__strides (a, sa);
  cn__strides (b, sb);
  ct_offsets (nfa, fa, a->dim, sa, na, g->af);
  ct_offsets (p->n, cax_a, a->dim, sa, nk, g->ac);
  ct_offsets (p->n, cax_b, b->dim, sb, nk, g->bc);
  ct_offsets (nfb, fb, b->dim, sb, nb, g->bf);
  return CN_OK;
}

static cn_status
contract_check (const struct cn_op_rule *rule, const void *params, int n_in, const cn_shape *const *in, cn_shape *out, cn_error *err)
{
  (void) rule;
  if (n_in != 2)
    return cn_error_set (err, CN_EINVAL, "contract: %d inputs, expected 2", n_in);
  return ct_geometry (params, in[0], in[1], out, NULL, err);
}

#define CONTRACT_FORWARD(T)                                                                 \
  do                                                                                        \
    {                                                                                       \
      const T *A = in[0]->data, *B = in[1]->data;                                           \
      T *Y = out->data;                                                                     \
      for (int64_t i = 0; i < g.na; i++)                                                    \
        for (int64_t j = 0; j < g.nb; j++)                                                  \
          {                                                                                 \
            T acc = 0;                                                                      \
            for (int64_t kk = 0; kk < g.nk; kk++)                                           \
              acc += A[g.af[i] + g.ac[kk]] * B[g.bc[kk] + g.bf[j]];                         \
            Y[i * g.nb + j] = acc;                                                          \
          }                                                                                 \
    }                                                                                       \
  while (0)

static cn_status
contract_forward (const cn_node_view *nv, const cn_tensor *const *in, cn_tensor *out, cn_error *err)
{
  CN__ASSERTD (cn_dtype_is_float (out->dtype) && in[0]->dtype == out->dtype && in[1]->dtype == out->dtype);
  struct ct_geom g;
  cn_status st = ct_geometry (nv->params, nv->in_shape[0], nv->in_shape[1], NULL, &g, err);
  if (st != CN_OK)
    return st;
  if (out->dtype == CN_DTYPE_F64)
    CONTRACT_FORWARD (double);
  else
    CONTRACT_FORWARD (float);
  ct_free (&g);
  return CN_OK;
}

static cn_status
contract_ibp (const cn_node_view *nv, const cn_box *const *in, cn_box *out, cn_error *err)
{
  struct ct_geom g;
  cn_status st = ct_geometry (nv->params, nv->in_shape[0], nv->in_shape[1], NULL, &g, err);
  if (st != CN_OK)
    return st;
  CN__ASSERTD (in[0]->n == cn__numel (nv->in_shape[0]) && in[1]->n == cn__numel (nv->in_shape[1])
               && out->n == g.na * g.nb);
  for (int64_t i = 0; i < g.na; i++)
    for (int64_t j = 0; j < g.nb; j++)
      {
        double sl = 0, tl = 0, sh = 0, th = 0;
        for (int64_t kk = 0; kk < g.nk; kk++)
          {
            int64_t x = g.af[i] + g.ac[kk], y = g.bc[kk] + g.bf[j];
            cn__itv_term (in[0]->lo[x], in[0]->hi[x], in[1]->lo[y], in[1]->hi[y], &sl, &tl, &sh, &th);
          }
        /* sl, sh are RN sums of Nk extreme products; tl, th their magnitudes. */
        out->lo[i * g.nb + j] = cn__sum_lo (sl, tl, g.nk > 0 ? g.nk : 1);
        out->hi[i * g.nb + j] = cn__sum_hi (sh, th, g.nk > 0 ? g.nk : 1);
      }
  ct_free (&g);
  return CN_OK;
}

static cn_status
contract_mpfi (const cn_node_view *nv, const cn_mpfi_vec *const *in, cn_mpfi_vec *out, cn_error *err)
{
  struct ct_geom g;
  cn_status st = ct_geometry (nv->params, nv->in_shape[0], nv->in_shape[1], NULL, &g, err);
  if (st != CN_OK)
    return st;
  CN__ASSERTD (in[0]->n == cn__numel (nv->in_shape[0]) && in[1]->n == cn__numel (nv->in_shape[1])
               && out->n == g.na * g.nb);
  if (out->n > 0)
    {
      mpfi_t p;
      mpfi_init2 (p, mpfi_get_prec (out->v[0]));
      for (int64_t i = 0; i < g.na; i++)
        for (int64_t j = 0; j < g.nb; j++)
          {
            mpfi_ptr y = out->v[i * g.nb + j];
            mpfi_set_ui (y, 0);
            for (int64_t kk = 0; kk < g.nk; kk++)
              {
                mpfi_mul (p, in[0]->v[g.af[i] + g.ac[kk]], in[1]->v[g.bc[kk] + g.bf[j]]);
                mpfi_add (y, y, p);
              }
          }
      mpfi_clear (p);
    }
  ct_free (&g);
  return CN_OK;
}

static cn_status
contract_crown (const cn_crown_step *st, cn_error *err)
{
  const cn_node_view *nv = st->nv;
  int a_const = nv->in_const[0] != NULL, b_const = nv->in_const[1] != NULL;
  if (a_const == b_const)
    return cn_error_set (err, CN_EUNSUPPORTED,
                         "contract: the CROWN arm needs exactly one constant operand, not %s (node '%s')",
                         a_const ? "two" : "none", cn__node_name (nv));
  struct ct_geom g;
  cn_status ret = ct_geometry (nv->params, nv->in_shape[0], nv->in_shape[1], NULL, &g, err);
  if (ret != CN_OK)
    return ret;
  int v = a_const ? 1 : 0;
  double *lam_v = st->lam_in[v];
  int64_t n_out = g.na * g.nb, n_v = st->in_box[v]->n;
  double *m = NULL, *w_up = NULL;
  if (lam_v == NULL || n_out == 0 || st->rows == 0)
    goto done;
  const double *W = st->in_box[1 - v]->lo;     /* the constant operand, exact doubles */
  m = malloc ((size_t) (n_v ? n_v : 1) * sizeof *m);
  w_up = malloc ((size_t) n_out * sizeof *w_up);
  if (m == NULL || w_up == NULL)
    {
      ret = cn_error_set (err, CN_ENOMEM, "contract: out of memory (node '%s')", cn__node_name (nv));
      goto fail;
    }
  /* lam_v[s] = fl(lam[s] against the constant), one RN inner product per entry. */
#pragma omp parallel for num_threads(st->threads > 0 ? st->threads : 1) if (st->rows * n_out * g.nk > 65536)
  for (int64_t s = 0; s < st->rows; s++)
    {
      const double *lam = st->lam_out + s * n_out;
      double *li = lam_v + s * n_v;
      if (v == 0)
        for (int64_t i = 0; i < g.na; i++)
          for (int64_t kk = 0; kk < g.nk; kk++)
            {
              double acc = 0;
              for (int64_t j = 0; j < g.nb; j++)
                acc += lam[i * g.nb + j] * W[g.bc[kk] + g.bf[j]];
              li[g.af[i] + g.ac[kk]] = acc;
            }
      else
        for (int64_t kk = 0; kk < g.nk; kk++)
          for (int64_t j = 0; j < g.nb; j++)
            {
              double acc = 0;
              for (int64_t i = 0; i < g.na; i++)
                acc += lam[i * g.nb + j] * W[g.af[i] + g.ac[kk]];
              li[g.bc[kk] + g.bf[j]] = acc;
            }
    }
  /* w_up[i,j] >= sum_kk |A||B|, the varying operand by its magnitude m. */
  double m1 = cn__box_magnitude (st->in_box[v], m);
  const double *Am = v == 0 ? m : W, *Bm = v == 0 ? W : m;
  for (int64_t i = 0; i < g.na; i++)
    for (int64_t j = 0; j < g.nb; j++)
      {
        double t = 0;
        for (int64_t kk = 0; kk < g.nk; kk++)
          {
            double x = Am[g.af[i] + g.ac[kk]], y = Bm[g.bc[kk] + g.bf[j]];
            if (x != 0 && y != 0)
              t += fabs (x) * fabs (y);
          }
        w_up[i * g.nb + j] = cn__nonneg_up (t, g.nk > 0 ? g.nk : 1);
      }
  int64_t K = g.na > g.nb ? g.na : g.nb;
  cn__crown_charge_affine (st, w_up, K > 0 ? K : 1, m1);
done:
  ret = CN_OK;
fail:
  free (m);
  free (w_up);
  ct_free (&g);
  return ret;
}

static cn_status
contract_pullback (const cn_node_view *nv, const cn_tensor *const *in, const cn_tensor *out, const double *g_out,
                   double *const *g_in, cn_error *err)
{
  (void) out;
  struct ct_geom g;
  cn_status st = ct_geometry (nv->params, nv->in_shape[0], nv->in_shape[1], NULL, &g, err);
  if (st != CN_OK)
    return st;
  const double *A = in[0]->data, *B = in[1]->data;
  for (int64_t i = 0; i < g.na; i++)
    for (int64_t j = 0; j < g.nb; j++)
      {
        double G = g_out[i * g.nb + j];
        for (int64_t kk = 0; kk < g.nk; kk++)
          {
            int64_t x = g.af[i] + g.ac[kk], y = g.bc[kk] + g.bf[j];
            if (g_in[0] != NULL)
              g_in[0][x] += G * B[y];
            if (g_in[1] != NULL)
              g_in[1][y] += G * A[x];
          }
      }
  ct_free (&g);
  return CN_OK;
}

static cn_status
contract_jvp (const cn_node_view *nv, const cn_tensor *const *in, const cn_tensor *out, const double *const *t_in,
              double *t_out, cn_error *err)
{
  (void) out;
  struct ct_geom g;
  cn_status st = ct_geometry (nv->params, nv->in_shape[0], nv->in_shape[1], NULL, &g, err);
  if (st != CN_OK)
    return st;
  const double *A = in[0]->data, *B = in[1]->data;
  for (int64_t i = 0; i < g.na; i++)
    for (int64_t j = 0; j < g.nb; j++)
      {
        double acc = 0;
        for (int64_t kk = 0; kk < g.nk; kk++)
          {
            int64_t x = g.af[i] + g.ac[kk], y = g.bc[kk] + g.bf[j];
            if (t_in[0] != NULL)
              acc += t_in[0][x] * B[y];
            if (t_in[1] != NULL)
              acc += A[x] * t_in[1][y];
          }
        t_out[i * g.nb + j] = acc;
      }
  ct_free (&g);
  return CN_OK;
}

const struct cn_op_rule cn__rule_CONTRACT = { .op = CN_OP_CONTRACT,
  .n_in = 2,
  .check = contract_check,
  .forward = contract_forward,
  .pullback = contract_pullback,
  .jvp = contract_jvp,
  .ibp = contract_ibp,
  .ibp_mpfi = contract_mpfi,
  .crown = contract_crown,
  .certs = CN__CERTS (CN__CERT_GRADIENT, CN__CERT_BOUNDS),
};
