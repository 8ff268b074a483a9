/* SPDX-License-Identifier: MIT */
/* src/ops/reduction.c: reduce (sum, prod, max, min) and mean.
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
#include "crown/crown_impl.h"

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
  if (s == NULL || s->rank < 0 || s->rank > CN_MAX_RANK)
    return cn_error_set (err, CN_EINVAL, "%s: input has an invalid rank", op);
  for (int a = 0; a < s->rank; a++)
    if (s->dim[a] < 0)
      return cn_error_set (err, CN_EINVAL, "%s: input has extent %lld on axis %d", op, (long long) s->dim[a], a);
  if (cn_shape_numel (s) < 0)
    return cn_error_set (err, CN_EINVAL, "%s: input has too many elements", op);
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

static cn_status
reduce_check (const void *p, int n_in, const cn_shape *const *in, cn_shape *out, cn_error *err)
{
  const cn_params_reduce *r = p;
  if (r != NULL && r->kind != CN_REDUCE_SUM && r->kind != CN_REDUCE_PROD && r->kind != CN_REDUCE_MAX
      && r->kind != CN_REDUCE_MIN)
    return cn_error_set (err, CN_EINVAL, "reduce: unknown kind %d", (int) r->kind);
  int need = r != NULL && (r->kind == CN_REDUCE_MAX || r->kind == CN_REDUCE_MIN);
  return reduce_shape ("reduce", r, n_in, in, need, out, err);
}

static cn_status
mean_check (const void *p, int n_in, const cn_shape *const *in, cn_shape *out, cn_error *err)
{
  return reduce_shape ("mean", p, n_in, in, 2, out, err);
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
red_forward (const char *op, int kind, int mean, const cn_node_view *nv, const cn_tensor *const *in, cn_tensor *out,
             cn_error *err)
{
  int64_t ni = cn__numel (nv->in_shape[0]), no = cn__numel (nv->out_shape);
  if (!cn_dtype_is_float (out->dtype) || in[0]->dtype != out->dtype || cn_tensor_numel (in[0]) != ni
      || cn_tensor_numel (out) != no)
    return cn_error_set (err, CN_EINVAL, "%s: tensors do not match the node (node '%s')", op, nv->name);
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
red_ibp (const char *op, int kind, int mean, const cn_node_view *nv, const cn_box *const *in, cn_box *out,
         cn_error *err)
{
  int64_t ni = cn__numel (nv->in_shape[0]), no = cn__numel (nv->out_shape);
  if (in[0]->n != ni || out->n != no)
    return cn_error_set (err, CN_EINVAL, "%s: boxes do not match the node (node '%s')", op, nv->name);
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
red_mpfi (const char *op, int kind, int mean, const cn_node_view *nv, const cn_mpfi_vec *const *in,
          cn_mpfi_vec *out, cn_error *err)
{
  int64_t ni = cn__numel (nv->in_shape[0]), no = cn__numel (nv->out_shape);
  if (in[0]->n != ni || out->n != no)
    return cn_error_set (err, CN_EINVAL, "%s: vectors do not match the node (node '%s')", op, nv->name);
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
red_crown (const char *op, int kind, int mean, const cn_crown_step *st, cn_error *err)
{
  const cn_node_view *nv = st->nv;
  if (kind != CN_REDUCE_SUM)
    return cn_error_set (err, CN_EUNSUPPORTED, "reduce: no CROWN relaxation for %s (node '%s')",
                         kind == CN_REDUCE_PROD ? "prod" : kind == CN_REDUCE_MAX ? "max" : "min", nv->name);
  if (st->lam_in[0] == NULL)
    return cn_error_set (err, CN_EINVAL, "%s: CROWN step on a constant input (node '%s')", op, nv->name);
  int64_t ni = cn__numel (nv->in_shape[0]), no = cn__numel (nv->out_shape);
  if (st->in_box[0]->n != ni)
    return cn_error_set (err, CN_EINVAL, "%s: input box does not match the node (node '%s')", op, nv->name);
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
red_pullback (const char *op, int kind, int mean, const cn_node_view *nv, const cn_tensor *const *in,
              const cn_tensor *out, const double *g_out, double *const *g_in, cn_error *err)
{
  int64_t ni = cn__numel (nv->in_shape[0]), no = cn__numel (nv->out_shape);
  if (in[0]->dtype != CN_DTYPE_F64 || out->dtype != CN_DTYPE_F64 || cn_tensor_numel (in[0]) != ni
      || cn_tensor_numel (out) != no)
    return cn_error_set (err, CN_EINVAL, "%s: pullback tensors are not binary64 of the node's shapes (node '%s')", op,
                         nv->name);
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

/* ---- the operators -------------------------------------------------------------------- */

static int
reduce_kind (const cn_node_view *nv)
{
  return (int) ((const cn_params_reduce *) nv->params)->kind;
}

static cn_status
reduce_forward (const cn_node_view *nv, const cn_tensor *const *in, cn_tensor *out, cn_error *err)
{
  return red_forward ("reduce", reduce_kind (nv), 0, nv, in, out, err);
}

static cn_status
reduce_ibp (const cn_node_view *nv, const cn_box *const *in, cn_box *out, cn_error *err)
{
  return red_ibp ("reduce", reduce_kind (nv), 0, nv, in, out, err);
}

static cn_status
reduce_mpfi (const cn_node_view *nv, const cn_mpfi_vec *const *in, cn_mpfi_vec *out, cn_error *err)
{
  return red_mpfi ("reduce", reduce_kind (nv), 0, nv, in, out, err);
}

static cn_status
reduce_crown (const cn_crown_step *st, cn_error *err)
{
  return red_crown ("reduce", reduce_kind (st->nv), 0, st, err);
}

static cn_status
mean_forward (const cn_node_view *nv, const cn_tensor *const *in, cn_tensor *out, cn_error *err)
{
  return red_forward ("mean", CN_REDUCE_SUM, 1, nv, in, out, err);
}

static cn_status
mean_ibp (const cn_node_view *nv, const cn_box *const *in, cn_box *out, cn_error *err)
{
  return red_ibp ("mean", CN_REDUCE_SUM, 1, nv, in, out, err);
}

static cn_status
mean_mpfi (const cn_node_view *nv, const cn_mpfi_vec *const *in, cn_mpfi_vec *out, cn_error *err)
{
  return red_mpfi ("mean", CN_REDUCE_SUM, 1, nv, in, out, err);
}

static cn_status
mean_crown (const cn_crown_step *st, cn_error *err)
{
  return red_crown ("mean", CN_REDUCE_SUM, 1, st, err);
}

static cn_status
reduce_pullback (const cn_node_view *nv, const cn_tensor *const *in, const cn_tensor *out, const double *g_out,
                 double *const *g_in, cn_error *err)
{
  return red_pullback ("reduce", reduce_kind (nv), 0, nv, in, out, g_out, g_in, err);
}

static cn_status
mean_pullback (const cn_node_view *nv, const cn_tensor *const *in, const cn_tensor *out, const double *g_out,
               double *const *g_in, cn_error *err)
{
  return red_pullback ("mean", CN_REDUCE_SUM, 1, nv, in, out, g_out, g_in, err);
}

/* ---- forward mode --------------------------------------------------------------------- */

static cn_status
red_jvp (const char *op, int kind, int mean, const cn_node_view *nv, const cn_tensor *const *in,
         const cn_tensor *out, const double *const *t_in, double *t_out, cn_error *err)
{
  int64_t ni = cn__numel (nv->in_shape[0]), no = cn__numel (nv->out_shape);
  if (in[0]->dtype != CN_DTYPE_F64 || out->dtype != CN_DTYPE_F64 || cn_tensor_numel (in[0]) != ni
      || cn_tensor_numel (out) != no)
    return cn_error_set (err, CN_EINVAL, "%s: jvp tensors are not binary64 of the node's shapes (node '%s')", op,
                         nv->name);
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

static cn_status
reduce_jvp (const cn_node_view *nv, const cn_tensor *const *in, const cn_tensor *out, const double *const *t_in,
            double *t_out, cn_error *err)
{
  return red_jvp ("reduce", reduce_kind (nv), 0, nv, in, out, t_in, t_out, err);
}

static cn_status
mean_jvp (const cn_node_view *nv, const cn_tensor *const *in, const cn_tensor *out, const double *const *t_in,
          double *t_out, cn_error *err)
{
  return red_jvp ("mean", CN_REDUCE_SUM, 1, nv, in, out, t_in, t_out, err);
}

const struct cn_op_rule cn__rule_REDUCE = {
  .n_in = 1, .params_size = sizeof (cn_params_reduce), .check = reduce_check, .forward = reduce_forward,
  .pullback = reduce_pullback, .jvp = reduce_jvp, .ibp = reduce_ibp, .ibp_mpfi = reduce_mpfi, .crown = reduce_crown,
};

const struct cn_op_rule cn__rule_MEAN = {
  .n_in = 1, .params_size = sizeof (cn_params_reduce), .check = mean_check, .forward = mean_forward,
  .pullback = mean_pullback, .jvp = mean_jvp, .ibp = mean_ibp, .ibp_mpfi = mean_mpfi, .crown = mean_crown,
};
