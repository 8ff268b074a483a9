/* SPDX-License-Identifier: MIT */
/* src/ops/activation.c: relu.
 *
 * relu  v = max(z, 0), entry by entry; [l, u] is the input box of one entry.
 *   forward  z > 0 ? z : +0, and NaN stays NaN (torch.relu propagates it), in the sort of the
 *            tensors.  Exact: no rounding (a -0 input gives +0).
 *   IBP      [max(l, 0), max(u, 0)]: relu is nondecreasing and exact on doubles; no rounding.
 *            Infinite ends stay infinite (max(-inf, 0) = 0 is the true infimum).
 *   CROWN    (ALGORITHMS.md 2.4 and 6.4) per entry:
 *            u <= 0: relu = 0 on the box, lam_z = 0.  l >= 0: relu = z, lam_z = lam (copies).
 *            l < 0 < u (unstable):
 *              upper line  kU z + bU >= relu(z) on [l, u], computed as
 *                  w = down(fl(u - l)) <= u - l,  kU = up(fl(u / w)) >= u/(u - l),
 *                  bU = up(fl(-l * kU)) >= -l kU,
 *              read as reals: at z = l, kU l + bU >= 0 = relu(l); at z = u,
 *              kU u + bU >= kU (u - l) >= u = relu(u); relu is convex, so it lies below the
 *              line on all of [l, u].  If l or u is infinite (or w, kU, bU is not a finite
 *              positive number) there is no upper line.
 *              lower line  alpha z <= relu(z) for every real z and every double alpha in
 *              [0, 1] (z < 0: alpha z <= 0; z >= 0: alpha z <= z), chosen by the step's
 *              slope (cn_slope): adaptive CROWN (1 if u > -l, else 0), 0, 1, or the ratio
 *              fl(u / (u - l)) clamped to [0, 1] (finite ends only, else adaptive).
 *            For a row s, lam relu(z) >= lam alpha z when lam >= 0, and
 *            lam relu(z) >= lam kU z + lam bU when lam < 0.  So lam_z = lam alpha (exact when
 *            alpha is 0 or 1, else one rounded product) or fl(lam kU) (one rounded product),
 *            and bias += sum_j min(lam_j, 0) bU_j.
 *            Charges, per row: the (G) error of the bias dot product (cn__dot_err) plus the
 *            rounding of the addition (cn__crown_add_bias); for the rounded products,
 *            |fl(p) - p| <= 2u |fl(p)| + eta, so with m_j = max(|l_j|, |u_j|)
 *                sum_{j rounded} (2u |lam_z j| + eta) m_j,
 *            bounded with (N) (the same bound as cn__crown_charge_entrywise, summed over the
 *            rounded entries only, so that an infinite end of an entry the row does not round
 *            at leaves the row finite).  A row whose negative coefficient meets an unstable
 *            entry without an upper line gets the charge +inf (its bound becomes -inf).
 *   MPFI     the ends of the enclosure go through max(., 0) (exact in MPFR).
 *   pullback dv = [z > 0] dz away from 0, so  g_z += g  where z > 0 and nothing where z <= 0:
 *            at the kink z = 0 the one-sided choice is the derivative from the left, 0 (as torch);
 *            a NaN input gets 0 too.  Exact: a copy or nothing, then one rounded sum. */
#include <config.h>
#include <math.h>
#include <stdlib.h>
#include "crown/crown_impl.h"
#include "core/parallel.h"

static cn_status
relu_check (const void *p, int n_in, const cn_shape *const *in, cn_shape *out, cn_error *err)
{
  (void) p;
  if (n_in != 1)
    return cn_error_set (err, CN_EINVAL, "relu: takes 1 input, got %d", n_in);
  const cn_shape *s = in[0];
  if (s == NULL || s->rank < 0 || s->rank > CN_MAX_RANK)
    return cn_error_set (err, CN_EINVAL, "relu: input has an invalid rank");
  for (int a = 0; a < s->rank; a++)
    if (s->dim[a] < 0)
      return cn_error_set (err, CN_EINVAL, "relu: input has extent %lld on axis %d", (long long) s->dim[a], a);
  if (cn_shape_numel (s) < 0)
    return cn_error_set (err, CN_EINVAL, "relu: input has too many elements");
  *out = *s;
  return CN_OK;
}

static cn_status
relu_forward (const cn_node_view *nv, const cn_tensor *const *in, cn_tensor *out, cn_error *err)
{
  int64_t n = cn__numel (nv->out_shape);
  if (!cn_dtype_is_float (out->dtype) || in[0]->dtype != out->dtype || cn_tensor_numel (out) != n
      || cn_tensor_numel (in[0]) != n)
    return cn_error_set (err, CN_EINVAL, "relu: tensors do not match the node (node '%s')", nv->name);
  if (out->dtype == CN_DTYPE_F64)
    {
      const double *x = in[0]->data;
      double *y = out->data;
      for (int64_t j = 0; j < n; j++)
        y[j] = x[j] > 0 ? x[j] : isnan (x[j]) ? x[j] : 0.0;
    }
  else
    {
      const float *x = in[0]->data;
      float *y = out->data;
      for (int64_t j = 0; j < n; j++)
        y[j] = x[j] > 0 ? x[j] : isnan (x[j]) ? x[j] : 0.0f;
    }
  return CN_OK;
}

static cn_status
relu_ibp (const cn_node_view *nv, const cn_box *const *in, cn_box *out, cn_error *err)
{
  int64_t n = cn__numel (nv->out_shape);
  if (in[0]->n != n || out->n != n)
    return cn_error_set (err, CN_EINVAL, "relu: boxes do not match the node (node '%s')", nv->name);
  for (int64_t j = 0; j < n; j++)
    {
      double l = in[0]->lo[j], u = in[0]->hi[j];
      out->lo[j] = l > 0 ? l : 0.0;
      out->hi[j] = u > 0 ? u : 0.0;
      /* now [lo, hi] = relu([l, u]) exactly */
    }
  return CN_OK;
}

static cn_status
relu_mpfi (const cn_node_view *nv, const cn_mpfi_vec *const *in, cn_mpfi_vec *out, cn_error *err)
{
  int64_t n = cn__numel (nv->out_shape);
  if (in[0]->n != n || out->n != n)
    return cn_error_set (err, CN_EINVAL, "relu: vectors do not match the node (node '%s')", nv->name);
  if (n == 0)
    return CN_OK;
  mpfr_prec_t prec = mpfi_get_prec (out->v[0]);
  mpfr_t l, r;
  mpfr_init2 (l, prec);
  mpfr_init2 (r, prec);
  for (int64_t j = 0; j < n; j++)
    {
      mpfi_get_left (l, in[0]->v[j]);
      mpfi_get_right (r, in[0]->v[j]);
      if (mpfr_sgn (l) < 0)
        mpfr_set_zero (l, 1);
      if (mpfr_sgn (r) < 0)
        mpfr_set_zero (r, 1);
      mpfi_interv_fr (out->v[j], l, r);
    }
  mpfr_clear (l);
  mpfr_clear (r);
  return CN_OK;
}

/* The per-entry relaxation of one relu entry. */
enum { RELU_OFF, RELU_ON, RELU_LINE, RELU_NO_LINE };

struct relu_entry
{
  int kind;
  double alpha;    /* lower slope in [0, 1] (unstable entries) */
  double ku, bu;   /* upper line (RELU_LINE) */
  double m;        /* max(|l|, |u|) */
};

/* The rows FIRST..LAST-1 of relu's CROWN step (see relu_crown). */
struct relu_rows_ctx
{
  const cn_crown_step *st;
  const struct relu_entry *e;
  int64_t n;
};

static void
relu_rows (void *p, int64_t first, int64_t last)
{
  const struct relu_rows_ctx *c = p;
  const cn_crown_step *st = c->st;
  const struct relu_entry *e = c->e;
  int64_t n = c->n;
  double kap = cn__kappa (n);
  double neta = (double) n * CN_ETA;
  for (int64_t s = first; s < last; s++)
    {
      const double *lo = st->lam_out + s * n;
      double *li = st->lam_in[0] + s * n;
      double t = 0, cm = 0, d = 0, td = 0;
      int no_line = 0, rounded = 0;
      for (int64_t j = 0; j < n; j++)
        {
          double lam = lo[j];
          if (lam == 0)
            continue;
          switch (e[j].kind)
            {
            case RELU_OFF:
              break;
            case RELU_ON:
              li[j] = lam;
              break;
            default:
              if (lam > 0)
                {
                  if (e[j].alpha == 1)
                    li[j] = lam;
                  else if (e[j].alpha != 0)
                    {
                      li[j] = lam * e[j].alpha;
                      rounded = 1;
                      t += fabs (li[j]) * e[j].m;
                      cm += e[j].m;
                    }
                }
              else if (e[j].kind == RELU_NO_LINE)
                no_line = 1;
              else
                {
                  li[j] = lam * e[j].ku;
                  rounded = 1;
                  t += fabs (li[j]) * e[j].m;
                  cm += e[j].m;
                  d += lam * e[j].bu;
                  td += fabs (lam) * e[j].bu;
                }
              break;
            }
        }
      /* now li holds the coefficients, exact but at the rounded entries; t = fl(sum |li_j| m_j)
       * and cm = fl(sum m_j) over the rounded entries; d = fl(sum lam_j bU_j) over the
       * negative unstable entries and td = fl(sum |lam_j| bU_j).  By (N),
       * sum |li_j| m_j <= kappa_n (t + n eta), and likewise for cm. */
      if (no_line)
        st->charge[s] = INFINITY;
      if (!rounded)
        continue;
      double e_prod = cn__up (cn__up (2 * CN_U * cn__up (kap * cn__up (t + neta)))
                              + cn__up (CN_ETA * cn__up (kap * cn__up (cm + neta))));
      double e_dot = cn__dot_err (td, n);
      cn__crown_charge (st, s, cn__up (e_prod + e_dot));
      if (d != 0)
        cn__crown_add_bias (st, s, d);
    }
}

static cn_status
relu_crown (const cn_crown_step *st, cn_error *err)
{
  const cn_node_view *nv = st->nv;
  int64_t n = cn__numel (nv->out_shape);
  const cn_box *box = st->in_box[0];
  if (st->lam_in[0] == NULL)
    return cn_error_set (err, CN_EINVAL, "relu: CROWN step on a constant input (node '%s')", nv->name);
  if (box->n != n)
    return cn_error_set (err, CN_EINVAL, "relu: input box does not match the node (node '%s')", nv->name);
  struct relu_entry *e = malloc ((size_t) (n ? n : 1) * sizeof *e);
  if (e == NULL)
    return cn_error_set (err, CN_ENOMEM, "relu: out of memory (node '%s')", nv->name);
  for (int64_t j = 0; j < n; j++)
    {
      double l = box->lo[j], u = box->hi[j];
      double al = fabs (l), au = fabs (u);
      e[j].m = al > au ? al : au;
      e[j].ku = e[j].bu = 0;
      e[j].alpha = 0;
      if (u <= 0)
        e[j].kind = RELU_OFF;
      else if (l >= 0)
        e[j].kind = RELU_ON;
      else
        {
          e[j].alpha = u > -l;
          if (st->slope == CN_SLOPE_ZERO)
            e[j].alpha = 0;
          else if (st->slope == CN_SLOPE_ONE)
            e[j].alpha = 1;
          else if (st->slope == CN_SLOPE_RATIO && isfinite (l) && isfinite (u))
            {
              double r = u / (u - l);
              /* any double in [0, 1] is a valid slope; the rounding of r does not matter */
              e[j].alpha = r > 1 ? 1 : r < 0 ? 0 : r;
            }
          e[j].kind = RELU_NO_LINE;
          if (isinf (l) || isinf (u))
            continue;
          double w = cn__down (u - l);
          /* now 0 < w <= u - l if w > 0 */
          if (!(w > 0))
            continue;
          double ku = cn__up (u / w);
          /* now ku >= u / w >= u / (u - l) */
          if (!(ku > 0) || isinf (ku))
            continue;
          double bu = cn__up (-l * ku);
          /* now bu >= -l ku >= 0, and ku z + bu >= relu(z) on [l, u] */
          if (!(bu >= 0) || isinf (bu))
            continue;
          e[j].kind = RELU_LINE;
          e[j].ku = ku;
          e[j].bu = bu;
        }
    }
  struct relu_rows_ctx ctx = { .st = st, .e = e, .n = n };
  cn__for_rows (st->rows, st->threads, st->rows * n > 65536, relu_rows, &ctx);
  free (e);
  return CN_OK;
}

static cn_status
relu_pullback (const cn_node_view *nv, const cn_tensor *const *in, const cn_tensor *out, const double *g_out,
               double *const *g_in, cn_error *err)
{
  int64_t n = cn__numel (nv->out_shape);
  if (in[0]->dtype != CN_DTYPE_F64 || out->dtype != CN_DTYPE_F64 || cn_tensor_numel (in[0]) != n
      || cn_tensor_numel (out) != n)
    return cn_error_set (err, CN_EINVAL, "relu: pullback tensors are not binary64 of the node's shape (node '%s')",
                         cn__node_name (nv));
  if (g_in[0] == NULL)
    return CN_OK;
  const double *z = in[0]->data;
  double *gz = g_in[0];
  for (int64_t j = 0; j < n; j++)
    if (z[j] > 0)
      gz[j] += g_out[j];
  /* now g_z has received g [z > 0]: 0 at z <= 0 (the kink included) and at NaN */
  return CN_OK;
}

const struct cn_op_rule cn__rule_RELU = {
  .n_in = 1,
  .params_size = 0,
  .flags = CN_RULE_NEEDS_BOUNDS,
  .check = relu_check,
  .forward = relu_forward,
  .pullback = relu_pullback,
  .ibp = relu_ibp,
  .ibp_mpfi = relu_mpfi,
  .crown = relu_crown,
};
