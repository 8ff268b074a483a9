/* SPDX-License-Identifier: MIT */
/* src/ops/activation.c: relu, sigmoid, tanh, softplus, silu, gelu, elu, leakyReLU (the second part
 * of this comment, before their code, describes all but relu).
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
 *              fl(u / (u - l)) clamped to [0, 1] (finite ends only, else adaptive); or, in
 *              alpha-CROWN, the row's own alpha_sj from the step's theta (relu_alpha projects
 *              onto [0, 1]; the arm refuses any other value with CN_EINVAL).  The contribution
 *              of entry j to row s is lam_j alpha_sj z_j where lam_j > 0, so its derivative in
 *              alpha_sj is lam_j z_j (grad_a = lam_j, relu_record).
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
 *            a NaN input gets 0 too.  Exact: a copy or nothing, then one rounded sum.
 *   jvp      t_v = [z > 0] t_z, the same one-sided choice (0 at the kink and at NaN); exact. */
#include <config.h>
#include <math.h>
#include <stdlib.h>
#include "core/parallel.h"
#include "ops/unary_impl.h"

static cn_status
relu_check (const struct cn_op_rule *rule, const void *p, int n_in, const cn_shape *const *in, cn_shape *out, cn_error *err)
{
  (void) rule;
  (void) p;
  if (n_in != 1)
    return cn_error_set (err, CN_EINVAL, "relu: takes 1 input, got %d", n_in);
  const cn_shape *s = in[0];
  cn_status st = cn__shape_valid ("relu", "input", s, err);
  if (st != CN_OK)
    return st;
  *out = *s;
  return CN_OK;
}

static cn_status
relu_forward (const cn_node_view *nv, const cn_tensor *const *in, cn_tensor *out, cn_error *err)
{
  (void) err;
  int64_t n = cn__numel (nv->out_shape);
  CN__ASSERTD (cn__tensors_match (nv, in, out));
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
  (void) err;
  int64_t n = cn__numel (nv->out_shape);
  CN__ASSERTD (cn__boxes_match (nv, in, out));
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
  (void) err;
  int64_t n = cn__numel (nv->out_shape);
  CN__ASSERTD (cn__mpfi_match (nv, in, out));
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

/* Row S's records for alpha-CROWN's gradient (cn_crown_step.fwd_k ...): the line the step uses
 * at each entry, and the derivative in the lower slope theta_j of an unstable entry, whose
 * contribution to the step is lam_j theta_j z_j where lam_j > 0 (so grad_a = lam_j there). */
static void
relu_record (const cn_crown_step *st, const struct relu_entry *e, const double *th, int64_t s, int64_t n)
{
  const double *lo = st->lam_out + s * n;
  double *fk = st->fwd_k + s * n, *fb = st->fwd_b + s * n;
  for (int64_t j = 0; j < n; j++)
    {
      double alpha = th != NULL ? th[j] : e[j].alpha;
      int lower = lo[j] >= 0;
      fk[j] = e[j].kind == RELU_ON ? 1 : e[j].kind == RELU_OFF ? 0 : lower ? alpha : e[j].kind == RELU_LINE ? e[j].ku : 0;
      fb[j] = (e[j].kind == RELU_LINE && !lower) ? e[j].bu : 0;
      if (st->grad_a != NULL)
        {
          int free_ = e[j].kind == RELU_LINE || e[j].kind == RELU_NO_LINE;
          st->grad_a[s * n + j] = free_ && lo[j] > 0 ? lo[j] : 0;
          st->grad_b[s * n + j] = 0;
        }
    }
}

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
      const double *th = st->theta != NULL ? st->theta + s * st->theta_stride : NULL;
      double t = 0, cm = 0, d = 0, td = 0;
      int no_line = 0, rounded = 0;
      if (st->fwd_k != NULL)
        relu_record (st, e, th, s, n);
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
                  double alpha = th != NULL ? th[j] : e[j].alpha;
                  if (alpha == 1)
                    li[j] = lam;
                  else if (alpha != 0)
                    {
                      li[j] = lam * alpha;
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

/* The lower slope of an unstable entry [l, u] under SLOPE (a cn_slope): adaptive CROWN (1 if
 * u > -l, else 0), 0, 1, or the ratio u/(u - l) (finite ends only, else adaptive). */
static double
relu_slope (double l, double u, int slope)
{
  if (slope == CN_SLOPE_ZERO)
    return 0;
  if (slope == CN_SLOPE_ONE)
    return 1;
  if (slope == CN_SLOPE_RATIO && isfinite (l) && isfinite (u))
    {
      double r = u / (u - l);
      /* any double in [0, 1] is a valid slope; the rounding of r does not matter */
      return r > 1 ? 1 : r < 0 ? 0 : r;
    }
  return u > -l;
}

static cn_status
relu_crown (const cn_crown_step *st, cn_error *err)
{
  const cn_node_view *nv = st->nv;
  int64_t n = cn__numel (nv->out_shape);
  const cn_box *box = st->in_box[0];
  if (st->lam_in[0] == NULL)
    return cn_error_set (err, CN_EINVAL, "relu: CROWN step on a constant input (node '%s')", nv->name);
  CN__ASSERTD (box->n == n);
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
          e[j].alpha = relu_slope (l, u, st->slope);
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
  if (st->theta != NULL && !st->theta_unchecked)
    {
      /* alpha-CROWN's slopes: alpha z <= relu(z) for every real z only for alpha in [0, 1] */
      int64_t sets = st->theta_stride == 0 ? 1 : st->rows;
      for (int64_t s = 0; s < sets; s++)
        for (int64_t j = 0; j < n; j++)
          {
            double a = st->theta[s * st->theta_stride + j];
            if ((e[j].kind == RELU_LINE || e[j].kind == RELU_NO_LINE) && !(a >= 0 && a <= 1))
              {
                free (e);
                return cn_error_set (err, CN_EINVAL, "relu: lower slope %g outside [0, 1] at entry %lld (node '%s')", a,
                                     (long long) j, nv->name);
              }
          }
    }
  struct relu_rows_ctx ctx = { .st = st, .e = e, .n = n };
  cn__for_rows (st->rows, st->threads, st->rows * n > 65536, relu_rows, &ctx);
  free (e);
  return CN_OK;
}

/* The checker's step (cn_proof_step): per entry j with input box [l, u] (the interval's exact
 * ends) and row coefficient L (an interval):
 *   u <= 0: relu(z) = 0, nothing added;  l >= 0: relu(z) = z, L added to z's coefficient;
 *   l < 0 < u and L >= 0: the lower line alpha z (alpha in [0, 1]: the row's own from st->alpha
 *     where given, else by the slope policy; an exact double), L alpha added;
 *   l < 0 < u and L <= 0: the upper line s (z - l), s = u / (u - l), so L s to the coefficient and
 *     -L s l to the bias, both as intervals holding the exact line's (exact l and u);
 *   l < 0 < u and L straddling 0: no line; relu(z) lies in [0, u], so for every L* in L,
 *     L* relu(z) >= inf (L x [0, u]), a point added to the bias. */
static cn_status
relu_proof (const cn_proof_step *st, cn_error *err)
{
  const cn_node_view *nv = st->nv;
  int64_t n = cn__numel (nv->out_shape);
  if (st->lam_in[0] == NULL)
    return cn_error_set (err, CN_EINVAL, "relu: checker step on a constant input (node '%s')", nv->name);
  mpfr_prec_t prec = mpfi_get_prec (st->tmp);
  mpfi_t s, t, w;
  mpfr_t lo;
  mpfi_init2 (s, prec);
  mpfi_init2 (t, prec);
  mpfi_init2 (w, prec);
  mpfr_init2 (lo, prec);
  for (int64_t j = 0; j < n; j++)
    {
      mpfi_srcptr z = st->in_box[0]->v[j];
      mpfr_srcptr l = &z->left, u = &z->right;
      if (mpfr_nan_p (l) || mpfr_nan_p (u))
        {
          mpfi_clear (s);
          mpfi_clear (t);
          mpfi_clear (w);
          mpfr_clear (lo);
          return cn_error_set (err, CN_EUNSOUND, "relu: checker step over a NaN box at entry %lld (node '%s')",
                               (long long) j, nv->name);
        }
      if (mpfr_sgn (u) <= 0)
        continue;
      int on = mpfr_sgn (l) >= 0;
      double alpha = 0;
      if (!on)
        {
          double ld = mpfr_get_d (l, MPFR_RNDN), ud = mpfr_get_d (u, MPFR_RNDN);
          alpha = relu_slope (ld, ud, st->slope);   /* any double in [0, 1] is a valid slope */
          if (!(alpha >= 0 && alpha <= 1))
            alpha = 0;
          /* the upper line's slope and intercept, enclosing u / (u - l) and -l u / (u - l) */
          mpfi_interv_fr (w, u, u);
          mpfi_sub_fr (s, w, l);                    /* u - l > 0 */
          mpfi_div (s, w, s);
          mpfi_mul_fr (t, s, l);
          mpfi_neg (t, t);
          mpfi_interv_si (w, 0, 0);
          mpfi_put_fr (w, u);                       /* w = [0, u] */
        }
      for (int64_t r = 0; r < st->rows; r++)
        {
          mpfi_ptr L = st->lam_out[r * n + j];
          mpfi_ptr D = st->lam_in[0][r * n + j];
          double al = alpha;
          if (!on && st->alpha != NULL && !isnan (st->alpha[r * n + j]))
            {
              al = st->alpha[r * n + j];
              if (!(al >= 0 && al <= 1))
                {
                  mpfi_clear (s);
                  mpfi_clear (t);
                  mpfi_clear (w);
                  mpfr_clear (lo);
                  return cn_error_set (err, CN_EINVAL, "relu: checker step with the lower slope %g outside [0, 1] "
                                       "at entry %lld (node '%s')", al, (long long) j, nv->name);
                }
            }
          if (on)
            mpfi_add (D, D, L);
          else if (mpfr_sgn (&L->left) >= 0)
            {
              if (al == 1)
                mpfi_add (D, D, L);
              else if (al != 0)
                {
                  mpfi_mul_d (st->tmp, L, al);
                  mpfi_add (D, D, st->tmp);
                }
            }
          else if (mpfr_sgn (&L->right) <= 0)
            {
              mpfi_mul (st->tmp, L, s);
              mpfi_add (D, D, st->tmp);
              cn__proof_add_product (st->bias[r], L, t, st->tmp);
            }
          else
            {
              mpfi_mul (st->tmp, L, w);
              mpfi_get_left (lo, st->tmp);
              mpfi_set_fr (st->tmp, lo);
              mpfi_add (st->bias[r], st->bias[r], st->tmp);
            }
        }
    }
  mpfi_clear (s);
  mpfi_clear (t);
  mpfi_clear (w);
  mpfr_clear (lo);
  return CN_OK;
}

/* alpha-CROWN's parameter of relu: the lower slope alpha_j of an unstable entry, valid in [0, 1];
 * the others keep 0 (their lines have nothing free).  INIT: the slope relu_crown takes under
 * SLOPE. */
static void
relu_alpha (const cn_node_view *nv, const cn_box *in, int slope, int init, double *theta)
{
  int64_t n = cn__numel (nv->out_shape);
  for (int64_t j = 0; j < n; j++)
    {
      double l = in->lo[j], u = in->hi[j];
      if (!(l < 0 && u > 0))
        theta[j] = 0;
      else if (init || isnan (theta[j]))
        theta[j] = relu_slope (l, u, slope);
      else
        theta[j] = theta[j] < 0 ? 0 : theta[j] > 1 ? 1 : theta[j];
    }
}

static cn_status
relu_pullback (const cn_node_view *nv, const cn_tensor *const *in, const cn_tensor *out, const double *g_out,
               double *const *g_in, cn_error *err)
{
  (void) err;
  CN__ASSERTD (cn__diff_match (nv, in, out));
  int64_t n = cn_tensor_numel (out);
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

/* jvp: t_v = [z > 0] t_z, the same one-sided choice as the pullback (0 at z <= 0 and at NaN). */
static cn_status
relu_jvp (const cn_node_view *nv, const cn_tensor *const *in, const cn_tensor *out, const double *const *t_in,
          double *t_out, cn_error *err)
{
  (void) err;
  CN__ASSERTD (cn__diff_match (nv, in, out));
  int64_t n = cn_tensor_numel (out);
  const double *z = in[0]->data;
  const double *tz = t_in[0];
  for (int64_t j = 0; j < n; j++)
    t_out[j] = tz != NULL && z[j] > 0 ? tz[j] : 0.0;
  /* now t_out = [z > 0] t_z exactly (a copy or 0) */
  return CN_OK;
}

const struct cn_op_rule cn__rule_RELU = { .op = CN_OP_RELU,
  .n_in = 1,
  .flags = CN_RULE_NEEDS_BOUNDS,
  .check = relu_check,
  .forward = relu_forward,
  .pullback = relu_pullback,
  .jvp = relu_jvp,
  .ibp = relu_ibp,
  .ibp_mpfi = relu_mpfi,
  .crown = relu_crown,
  .alpha = relu_alpha,
  .proof = relu_proof,
  .roundoff32 = cn__roundoff32_exact,
  .certs = CN__CERTS (CN__CERT_GRADIENT, CN__CERT_BOUNDS, CN__CERT_CHECKER, CN__CERT_ROUNDOFF32 (CN__ROUNDOFF32_EXACT_WHY),
                      CN__CERT_CONVENTION (CN_CERT_ARM_PULLBACK, "pullback_subgradient_at_0",
                                           "at z = 0, where relu has no derivative, the pullback returns the "
                                           "subgradient 0: g_z += 0 g (as PyTorch)", 0.0, 0.0, 0.0),
                      CN__CERT_CONVENTION (CN_CERT_ARM_JVP, "jvp_subgradient_at_0",
                                           "at z = 0 the tangent is 0: jvp(0; t) = 0", 0.0, 0.0, 0.0)),
};

/* ---- the smooth and piecewise activations ------------------------------------------------ *
 *
 * sigmoid, tanh, softplus, silu, gelu (exact and tanh-approximate), elu, leakyReLU: one input,
 * the output of its shape, f applied entry by entry.  x is one input entry, [l, u] its box.
 *
 *   sigmoid   f(x) = 1 / (1 + exp(-x)), increasing.
 *   tanh      f(x) = tanh(x), increasing.
 *   softplus  f(x) = log(1 + exp(x)), increasing (no beta/threshold: the seed and ONNX have none;
 *             torch's default threshold 20 is not applied, the exact function is).
 *   silu      f(x) = x sigmoid(x); decreasing on (-inf, x*], increasing on [x*, inf),
 *             x* = -1.27846454276107... (the root of 1 + x (1 - sigmoid(x))), f(x*) = -0.278464...
 *   gelu      NONE: f(x) = x Phi(x) = x erfc(-x / sqrt 2) / 2; x* = -0.75179152469356..., f(x*) =
 *             -0.169971207...  TANH: f(x) = x/2 (1 + tanh(k (x + c x^3))) = x sigmoid(2 k (x + c x^3))
 *             with k = sqrt(2/pi), c = 0.044715 (the decimal); x* = -0.75246142207101...,
 *             f(x*) = -0.170040750...  Both are valley functions like silu (one sign change of f'
 *             checked on a grid of [-30, 30] in 60-digit arithmetic, and by the asymptotics outside).
 *   elu       f(x) = x for x > 0, alpha (exp(x) - 1) for x <= 0: nondecreasing for alpha >= 0; for
 *             alpha < 0 a valley with x* = 0, f(x*) = 0.
 *   leakyReLU f(x) = x for x > 0, a x for x <= 0 (a = negative_slope): nondecreasing for a >= 0,
 *             a valley with x* = 0, f(0) = 0 for a < 0.
 *
 *   check     one input of any shape; attributes: gelu's mode NONE or TANH, elu's alpha and
 *             leakyReLU's slope finite (a NaN or infinite attribute is refused, CN_EINVAL).
 *   forward   in the sort T of the tensors, libm's functions of that sort (exp/expf, tanh/tanhf,
 *             log1p/log1pf, erfc/erfcf, expm1/expm1f), each operation rounded to nearest in T, in
 *             this order (attributes rounded to T first):
 *               sigmoid   x >= 0: 1 / (1 + exp(-x)); else e = exp(x), e / (1 + e)  (NaN: NaN)
 *               tanh      tanh(x)
 *               softplus  x > 0: x + log1p(exp(-x)); else log1p(exp(x))
 *               silu      x * sigmoid(x) (sigmoid as above); x = -inf gives -0 (the limit); below
 *                         -708 (binary32: -87), where exp(x) is subnormal, (x e^{x/2}) e^{x/2}
 *               gelu      NONE: (0.5 x) * erfc(-x * (1/sqrt 2)); TANH: u = k (x + c ((x x) x)),
 *                         x * sigmoid(2 u); x = -inf gives -0 (the limit)
 *               elu       x > 0: x; else alpha * expm1(x)
 *               leakyReLU x > 0: x; else a * x (a = 0 and x = -inf give 0, the limit)
 *             NaN propagates everywhere.  Measured against MPFR (2 x 10^5 random inputs in
 *             [-40, 40] and [-3, 3], and tiny ones down to 2^-1000; glibc, x86-64), the largest error
 *             in ulps of the exact result (the exact result of the double attribute; binary32
 *             inputs are the binary32 roundings), f64 / f32: sigmoid 2.08 / 2.07, tanh 2.04 / 2.04,
 *             softplus 1.44 / 1.43, silu 2.93 / 2.88, elu 0.75 / 0.75 (alpha 1) and 1.48 / 1.64
 *             (alpha -0.7), leakyReLU 0.5 / 1.0 (one product; in binary32 the slope is rounded to
 *             binary32 first), gelu NONE 9.9 / 9.4 on [-3, 3], 102 / 76 on [-10, -3] and
 *             1440 / 165 on [-40, -10], gelu TANH 8.4 / 9.0, 146 / 136 and 1115 / 63 on the same
 *             ranges: in the left tail the relative error grows like 2 z^2 ulps (z = x / sqrt 2),
 *             the rounding of the argument of erfc (of exp) amplified by its condition number;
 *             the absolute error there stays below 1e-20.
 *             None but leakyReLU in binary64 is correctly rounded (these are measured maxima, not
 *             proven bounds).
 *   IBP       sigmoid, tanh, softplus and elu with alpha >= 0 (nondecreasing): [lo f(l), hi f(u)]
 *             from the binary64 enclosures of src/sound/elementary.c (polynomials with proven error
 *             bounds, rounded outward, no MPFR and no libm; within 50 ulps).  The others (silu, gelu,
 *             elu with alpha < 0, leakyReLU):
 *             endpoints from MPFI at 64 bits on the point intervals [x, x] (every MPFI operation
 *             rounds outward, erfc is decreasing so its ends come from MPFR with RNDD on the right
 *             end and RNDU on the left), then mpfr_get_d with RNDD for a lower end and RNDU for an
 *             upper end; never a libm value.  Nondecreasing f: [lo f(l), hi f(u)].  Valley f with a
 *             double bracket xa <= x* <= xb of its minimiser: u <= xa: [lo f(u), hi f(l)];
 *             l >= xb: [lo f(l), hi f(u)]; otherwise [lo m, max(hi f(l), hi f(u))] where m is the
 *             lower end of MPFI's enclosure of f over [xa, xb] (a lower bound of the global
 *             minimum f(x*)).  Infinite ends take the limits of f (exact doubles: sigmoid 0 and 1,
 *             tanh -1 and 1, softplus 0 and +inf, silu and gelu 0 and +inf, elu -alpha and +inf,
 *             leakyReLU -inf*a, 0 or +inf); a NaN end is CN_ENUMERIC.  The brackets (8 ulps wide)
 *             were computed in 60-digit arithmetic, where f' < 0 at xa and f' > 0 at xb.
 *   MPFI      the same at the precision of the output intervals, on MPFR ends.
 *   pullback  g_x += f'(x) g;  jvp  t_y = f'(x) t_x; f' in binary64:
 *               sigmoid  e = exp(-|x|), e / ((1 + e)(1 + e))
 *               tanh     |x| <= 0.5: 1 - t t with t = tanh(x); else e = exp(-2|x|), 4 e / ((1 + e)(1 + e))
 *               softplus sigmoid(x)
 *               silu     s (1 + x sigmoid(-x)) with s = sigmoid(x)
 *               gelu     NONE: Phi(x) + x phi(x); TANH: s + 2 x s (1 - s) k (1 + 3 c x^2) with
 *                        s = sigmoid(2u) (the second term 0 where s (1 - s) is 0)
 *               elu      x > 0: 1; else alpha exp(x)     leakyReLU  x > 0: 1; else a
 *             elu and leakyReLU are not differentiable at 0: the one-sided choice is the
 *             derivative from the left (alpha, a), as relu's 0 and as torch.
 *   CROWN     sigmoid, tanh, softplus, elu: per entry the lines of src/sound/relax.c (whose top
 *             comment holds the soundness argument), the step cn__crown_lines:
 *               sigmoid, tanh  S-shaped, convex on x <= 0 and concave on x >= 0 (sigmoid'' =
 *                        s'(1 - 2s), tanh'' = -2 t t'): G3 of ALGORITHMS.md 3 on a box across 0
 *                        (chord, or the tangent through the far end found by bisection), G1 on a
 *                        box on one side (chord and midpoint tangent);
 *               softplus convex (softplus'' = s(1 - s) > 0): upper chord, lower midpoint tangent;
 *               elu      piece x <= 0: alpha expm1(x), convex for alpha >= 0, concave for
 *                        alpha < 0; piece x >= 0: x.  With 0 <= alpha <= 1 the kink at 0 is
 *                        convex (f' jumps from alpha up to 1), so elu is convex: G1.  alpha > 1
 *                        (a concave kink) takes the S-shaped slopes, alpha < 0 (concave, then a
 *                        convex kink) the chord slope for both lines.  The tangent points are
 *                        alpha-CROWN parameters (elu'' = alpha exp(x), then 0), as sigmoid's,
 *                        tanh's and softplus's.
 *             The slopes are heuristics; every intercept is the G2 bound of min / max of
 *             f(z) - k z over the box, from the binary64 enclosures of f and f' (sigmoid' =
 *             h(exp(-|x|)), tanh' = 4 h(exp(-2|x|)) with h(e) = e/(1 + e)^2, softplus' = sigmoid,
 *             elu' = alpha exp(x) or 1; src/sound/elementary.c), rounded outward, so the lines hold
 *             exactly over the reals.  Degenerate boxes and infinite ends use k = 0
 *             and the IBP box; an infinite end of that box (softplus or elu with u = +inf) leaves no upper line, and a row
 *             that needs it is discharged with an infinite charge (its bound is -inf).
 *             leakyReLU with 0 <= a <= 1 (below).  silu and gelu (whose curvature changes sign
 *             twice): the shifted chords (G4 of src/sound/relax.c) with the bounds of |f''| of
 *             silu_d2_bound and gelu_d2_bound, no tangent parameters.
 *
 * leakyReLU's CROWN (a in [0, 1]; f(z) = a z + (1 - a) relu(z), convex), per entry:
 *   u <= 0: f = a z on the box, lam_z = lam a (exact for a = 0 or 1, else one rounded product).
 *   l >= 0: f = z, lam_z = lam (a copy).
 *   l < 0 < u: lower line alpha z <= f(z) for every real z and every double alpha in [a, 1]
 *     (z < 0: alpha z <= a z; z >= 0: alpha z <= z), alpha by the step's slope as relu's:
 *     adaptive (1 if the upper slope (u - a l) / (u - l) > 1/2, else a; for a = 0 relu's u > -l),
 *     ZERO -> a, ONE -> 1, RATIO -> u / (u - l) clamped to [a, 1].
 *     Upper line K z + B: w = down(fl(u - l)) <= u - l, N = up(fl(u + up(fl(a (-l))))) >= u - a l,
 *     K = up(fl(N / w)) >= (u - a l) / (u - l), B = up(fl((-l) up(fl(K - a)))) >= (-l)(K - a) >= 0.
 *     As reals: at z = l, K l + B >= K l + a l - K l = a l = f(l); at z = u,
 *     K u + B >= K (u - l) + a l >= u - a l + a l = u = f(u).  f is convex, so f lies below the
 *     chord and the chord below the line on [l, u].  Infinite ends, or w, K, B not finite and
 *     positive (B >= 0), leave no upper line.
 *   Rows as relu's: lam >= 0: lam_z = lam alpha; lam < 0: lam_z = fl(lam K), bias += lam B;
 *   charges per row: (2u |lam_z| + eta) m over the rounded entries bounded with (N), plus the (G)
 *   error of the bias sum and its addition; a negative coefficient on an entry without an upper
 *   line makes the row's charge +inf. */
#include <mpfr.h>
#include "sound/elementary.h"

#define ACT_PREC 64     /* the precision of the fast IBP's MPFI evaluations */

/* The description of one activation, its rule's impl, read by the shared arms: F_MPFI encloses f
 * over the interval X (a point, or a bracket of the minimiser within one piece of a piecewise f)
 * into Y (Y and X distinct, Y at the precision wanted); LIMIT gives f(-inf) (SIGN < 0) or f(+inf);
 * VALLEY says whether f is a valley with minimiser bracket [*XA, *XB] (else f is nondecreasing);
 * F64, F32 and DF are the forward in each sort and the derivative; CHECK_PARAMS checks the
 * attribute record (NULL: the activation takes none); RELAX is the relaxation of the smooth CROWN
 * arm (NULL: none, or an arm of its own); F_FAST, where not NULL, is a sound binary64 enclosure
 * [*lo, *hi] of f at a finite double (src/sound/elementary.c), the IBP arm's path where f is
 * nondecreasing over the whole line (F_MPFI stays the MPFI arm's and the valleys'). */
struct act
{
  void (*f_mpfi) (mpfi_ptr y, mpfi_srcptr x, const void *p);
  double (*limit) (int sign, const void *p);
  int (*valley) (const void *p, double *xa, double *xb);
  double (*f64) (double x, const void *p);
  float (*f32) (float x, const void *p);
  double (*df) (double x, const void *p);
  cn_status (*check_params) (const void *p, cn_error *err);
  const cn__relax_fn *relax;
  void (*f_fast) (double x, const void *p, double *lo, double *hi);
};

/* ---- scalar functions ---- */

static double
sig_d (double x)
{
  if (x >= 0)
    return 1 / (1 + exp (-x));
  double e = exp (x);
  return e / (1 + e);
}

static float
sig_f (float x)
{
  if (x >= 0)
    return 1.0f / (1.0f + expf (-x));
  float e = expf (x);
  return e / (1.0f + e);
}

#define GELU_K 0.7978845608028654   /* sqrt(2/pi) rounded */
#define GELU_C 0.044715             /* the decimal rounded */
#define INV_SQRT_2PI 0.3989422804014327

static double sigmoid_f64 (double x, const void *p) { (void) p; return sig_d (x); }
static float sigmoid_f32 (float x, const void *p) { (void) p; return sig_f (x); }
static double
sigmoid_df (double x, const void *p)
{
  (void) p;
  double e = exp (-fabs (x));
  return e / ((1 + e) * (1 + e));
}

static double tanh_f64 (double x, const void *p) { (void) p; return tanh (x); }
static float tanh_f32 (float x, const void *p) { (void) p; return tanhf (x); }
static double
tanh_df (double x, const void *p)
{
  (void) p;
  if (fabs (x) <= 0.5)
    {
      double t = tanh (x);
      return 1 - t * t;
    }
  double e = exp (-2 * fabs (x));
  return 4 * e / ((1 + e) * (1 + e));
}

static double
softplus_f64 (double x, const void *p)
{
  (void) p;
  return x > 0 ? x + log1p (exp (-x)) : log1p (exp (x));
}
static float
softplus_f32 (float x, const void *p)
{
  (void) p;
  return x > 0 ? x + log1pf (expf (-x)) : log1pf (expf (x));
}
static double softplus_df (double x, const void *p) { (void) p; return sig_d (x); }

static double
silu_f64 (double x, const void *p)
{
  (void) p;
  /* Below -708 exp(x) is subnormal and x * exp(x) would magnify its lost bits (238 ulps at
   * x = -722); there 1 + exp(x) rounds to 1, and (x e^{x/2}) e^{x/2} keeps every factor normal
   * until the one final rounding. */
  if (x < -708 && x != -INFINITY)
    {
      double h = exp (0.5 * x);
      return (x * h) * h;
    }
  return x == -INFINITY ? -0.0 : x * sig_d (x);
}
static float
silu_f32 (float x, const void *p)
{
  (void) p;
  if (x < -87.0f && x != -INFINITY)
    {
      /* the binary32 mirror of silu_f64's tail (exp(x) subnormal below -87.3) */
      float h = expf (0.5f * x);
      return (x * h) * h;
    }
  return x == -INFINITY ? -0.0f : x * sig_f (x);
}
static double
silu_df (double x, const void *p)
{
  (void) p;
  return sig_d (x) * (1 + x * sig_d (-x));
}

static double
gelu_f64 (double x, const void *p)
{
  const cn_params_gelu *g = p;
  if (x == -INFINITY)
    return -0.0;
  if (g->approximate == CN_GELU_NONE)
    return (0.5 * x) * erfc (-x * M_SQRT1_2);
  double u = GELU_K * (x + GELU_C * ((x * x) * x));
  return x * sig_d (2 * u);
}
static float
gelu_f32 (float x, const void *p)
{
  const cn_params_gelu *g = p;
  if (x == -INFINITY)
    return -0.0f;
  if (g->approximate == CN_GELU_NONE)
    return (0.5f * x) * erfcf (-x * (float) M_SQRT1_2);
  float u = (float) GELU_K * (x + (float) GELU_C * ((x * x) * x));
  return x * sig_f (2 * u);
}
static double
gelu_df (double x, const void *p)
{
  const cn_params_gelu *g = p;
  if (g->approximate == CN_GELU_NONE)
    return 0.5 * erfc (-x * M_SQRT1_2) + x * (INV_SQRT_2PI * exp (-0.5 * x * x));
  double u = GELU_K * (x + GELU_C * ((x * x) * x));
  double s = sig_d (2 * u), q = s * sig_d (-2 * u);
  if (q == 0)
    return s;
  return s + 2 * x * q * GELU_K * (1 + 3 * GELU_C * x * x);
}

static double
elu_f64 (double x, const void *p)
{
  const cn_params_elu *e = p;
  return x > 0 ? x : e->alpha * expm1 (x);
}
static float
elu_f32 (float x, const void *p)
{
  const cn_params_elu *e = p;
  return x > 0 ? x : (float) e->alpha * expm1f (x);
}
static double
elu_df (double x, const void *p)
{
  const cn_params_elu *e = p;
  return x > 0 ? 1 : e->alpha * exp (x);
}

static double
leaky_f64 (double x, const void *p)
{
  double a = ((const cn_params_leaky_relu *) p)->negative_slope;
  return x > 0 ? x : (a == 0 && isinf (x)) ? 0.0 : a * x;
}
static float
leaky_f32 (float x, const void *p)
{
  float a = (float) ((const cn_params_leaky_relu *) p)->negative_slope;
  return x > 0 ? x : (a == 0 && isinf (x)) ? 0.0f : a * x;
}
static double
leaky_df (double x, const void *p)
{
  double a = ((const cn_params_leaky_relu *) p)->negative_slope;
  return x > 0 ? 1 : a;
}

/* ---- MPFI enclosures (outward rounding throughout) ---- */

/* Y = sigmoid(X) = 1 / (1 + exp(-X)): every step is monotone, so the interval result encloses the
 * range of sigmoid over X. */
static void
mpfi_sigmoid (mpfi_ptr y, mpfi_srcptr x)
{
  mpfi_t t;
  mpfi_init2 (t, mpfi_get_prec (y) + 8);
  mpfi_neg (t, x);
  mpfi_exp (t, t);
  mpfi_add_ui (t, t, 1);
  mpfi_ui_div (y, 1, t);
  mpfi_clear (t);
}

/* Y = erfc(X): erfc is decreasing, MPFI lacks it, so the ends come from MPFR with directed
 * rounding: [erfc(right) rounded down, erfc(left) rounded up]. */
static void
mpfi_erfc_ends (mpfi_ptr y, mpfi_srcptr x)
{
  mpfr_prec_t pr = mpfi_get_prec (y);
  mpfr_t a, b, lo, hi;
  mpfr_inits2 (mpfi_get_prec (x), a, b, (mpfr_ptr) 0);
  mpfr_inits2 (pr, lo, hi, (mpfr_ptr) 0);
  mpfi_get_left (a, x);
  mpfi_get_right (b, x);
  mpfr_erfc (lo, b, MPFR_RNDD);
  mpfr_erfc (hi, a, MPFR_RNDU);
  mpfi_interv_fr (y, lo, hi);
  mpfr_clears (a, b, lo, hi, (mpfr_ptr) 0);
}

static void sigmoid_encl (mpfi_ptr y, mpfi_srcptr x, const void *p) { (void) p; mpfi_sigmoid (y, x); }
static void tanh_encl (mpfi_ptr y, mpfi_srcptr x, const void *p) { (void) p; mpfi_tanh (y, x); }

/* softplus(x) = log1p(exp(x)) for x <= 0 and x + log1p(exp(-x)) for x > 0 (no overflow). */
static void
softplus_encl (mpfi_ptr y, mpfi_srcptr x, const void *p)
{
  (void) p;
  mpfi_t t;
  mpfi_init2 (t, mpfi_get_prec (y) + 8);
  if (mpfi_is_strictly_pos (x))
    {
      mpfi_neg (t, x);
      mpfi_exp (t, t);
      mpfi_log1p (t, t);
      mpfi_add (y, t, x);
    }
  else
    {
      mpfi_exp (t, x);
      mpfi_log1p (y, t);
    }
  mpfi_clear (t);
}

static void
silu_encl (mpfi_ptr y, mpfi_srcptr x, const void *p)
{
  (void) p;
  mpfi_t t;
  mpfi_init2 (t, mpfi_get_prec (y) + 8);
  mpfi_sigmoid (t, x);
  mpfi_mul (y, t, x);
  mpfi_clear (t);
}

static void
gelu_encl (mpfi_ptr y, mpfi_srcptr x, const void *p)
{
  const cn_params_gelu *g = p;
  mpfr_prec_t pr = mpfi_get_prec (y) + 8;
  mpfi_t t, k;
  mpfi_init2 (t, pr);
  mpfi_init2 (k, pr);
  if (g->approximate == CN_GELU_NONE)
    {
      /* x erfc(-x / sqrt 2) / 2 */
      mpfi_set_ui (k, 2);
      mpfi_sqrt (k, k);
      mpfi_div (t, x, k);
      mpfi_neg (t, t);
      mpfi_erfc_ends (k, t);
      mpfi_mul (t, k, x);
      mpfi_div_2ui (y, t, 1);
    }
  else
    {
      /* x sigmoid(2 sqrt(2/pi) (x + 0.044715 x^3)) */
      mpfi_t c;
      mpfi_init2 (c, pr);
      mpfi_set_str (c, "0.044715", 10);
      mpfi_sqr (t, x);
      mpfi_mul (t, t, x);
      mpfi_mul (t, t, c);
      mpfi_add (t, t, x);
      mpfi_const_pi (k);
      mpfi_ui_div (k, 2, k);
      mpfi_sqrt (k, k);
      mpfi_mul (t, t, k);
      mpfi_mul_2ui (t, t, 1);
      mpfi_sigmoid (k, t);
      mpfi_mul (y, k, x);
      mpfi_clear (c);
    }
  mpfi_clear (t);
  mpfi_clear (k);
}

/* X lies in one piece: (0, inf) or (-inf, 0]. */
static void
elu_encl (mpfi_ptr y, mpfi_srcptr x, const void *p)
{
  const cn_params_elu *e = p;
  if (mpfi_is_strictly_pos (x))
    {
      mpfi_set (y, x);
      return;
    }
  mpfi_t t;
  mpfi_init2 (t, mpfi_get_prec (y) + 8);
  mpfi_expm1 (t, x);
  mpfi_mul_d (y, t, e->alpha);
  mpfi_clear (t);
}

static void
leaky_encl (mpfi_ptr y, mpfi_srcptr x, const void *p)
{
  double a = ((const cn_params_leaky_relu *) p)->negative_slope;
  if (mpfi_is_strictly_pos (x))
    mpfi_set (y, x);
  else
    mpfi_mul_d (y, x, a);
}

/* ---- limits at -inf (SIGN < 0) and +inf, and the valleys ---- */

static double sigmoid_limit (int s, const void *p) { (void) p; return s < 0 ? 0.0 : 1.0; }
static double tanh_limit (int s, const void *p) { (void) p; return s < 0 ? -1.0 : 1.0; }
static double zero_inf_limit (int s, const void *p) { (void) p; return s < 0 ? 0.0 : INFINITY; }
static double
elu_limit (int s, const void *p)
{
  return s < 0 ? -((const cn_params_elu *) p)->alpha : INFINITY;
}
static double
leaky_limit (int s, const void *p)
{
  double a = ((const cn_params_leaky_relu *) p)->negative_slope;
  return s > 0 ? INFINITY : a > 0 ? -INFINITY : a < 0 ? INFINITY : 0.0;
}

/* The binary64 enclosures of f at a finite double (src/sound/elementary.c; elu's pieces:
 * x > 0: x itself; else alpha expm1(x), the product rounded outward by alpha's sign). */
static void sigmoid_fast (double x, const void *p, double *lo, double *hi) { (void) p; cn__sigmoid_encl (x, lo, hi); }
static void tanh_fast (double x, const void *p, double *lo, double *hi) { (void) p; cn__tanh_encl (x, lo, hi); }
static void softplus_fast (double x, const void *p, double *lo, double *hi) { (void) p; cn__softplus_encl (x, lo, hi); }
/* [*lo, *hi] := a [ml, mh] rounded outward (a = 0: exactly 0). */
static void
alpha_times (double a, double ml, double mh, double *lo, double *hi)
{
  *lo = a >= 0 ? cn__mul_down (a, ml) : cn__mul_down (a, mh);
  *hi = a >= 0 ? cn__mul_up (a, mh) : cn__mul_up (a, ml);
  if (a == 0)
    *lo = *hi = 0;
}

static void
elu_fast (double x, const void *p, double *lo, double *hi)
{
  double a = ((const cn_params_elu *) p)->alpha, ml, mh;
  if (x > 0)
    {
      *lo = *hi = x;
      return;
    }
  cn__expm1_encl (x, &ml, &mh);
  alpha_times (a, ml, mh, lo, hi);
}

static int no_valley (const void *p, double *xa, double *xb) { (void) p; (void) xa; (void) xb; return 0; }
static int
silu_valley (const void *p, double *xa, double *xb)
{
  (void) p;
  *xa = -0x1.474973c84120fp+0;
  *xb = -0x1.474973c841207p+0;
  return 1;
}
static int
gelu_valley (const void *p, double *xa, double *xb)
{
  if (((const cn_params_gelu *) p)->approximate == CN_GELU_NONE)
    {
      *xa = -0x1.80ead197f00b8p-1;
      *xb = -0x1.80ead197f00b0p-1;
    }
  else
    {
      *xa = -0x1.81429f9e97e51p-1;
      *xb = -0x1.81429f9e97e49p-1;
    }
  return 1;
}
static int
elu_valley (const void *p, double *xa, double *xb)
{
  *xa = *xb = 0;
  return ((const cn_params_elu *) p)->alpha < 0;
}
static int
leaky_valley (const void *p, double *xa, double *xb)
{
  *xa = *xb = 0;
  return ((const cn_params_leaky_relu *) p)->negative_slope < 0;
}

/* ---- the generic arms ---- */

/* The attribute checks of gelu, elu and leakyReLU (the record is there). */
static cn_status
gelu_params_check (const void *p, cn_error *err)
{
  cn_gelu_approx m = ((const cn_params_gelu *) p)->approximate;
  if (m != CN_GELU_NONE && m != CN_GELU_TANH)
    return cn_error_set (err, CN_EINVAL, "gelu: approximate mode %d is neither none nor tanh", (int) m);
  return CN_OK;
}

static cn_status
elu_params_check (const void *p, cn_error *err)
{
  double al = ((const cn_params_elu *) p)->alpha;
  if (!isfinite (al))
    return cn_error_set (err, CN_EINVAL, "elu: alpha %g is not finite", al);
  return CN_OK;
}

static cn_status
leaky_params_check (const void *p, cn_error *err)
{
  double a = ((const cn_params_leaky_relu *) p)->negative_slope;
  if (!isfinite (a))
    return cn_error_set (err, CN_EINVAL, "leakyReLU: negative slope %g is not finite", a);
  return CN_OK;
}

static cn_status
act_check (const struct cn_op_rule *rule, const void *p, int n_in, const cn_shape *const *in, cn_shape *out,
           cn_error *err)
{
  const struct act *A = rule->impl;
  const char *name = cn_op_name (rule->op);
  if (n_in != 1)
    return cn_error_set (err, CN_EINVAL, "%s: takes 1 input, got %d", name, n_in);
  const cn_shape *s = in[0];
  cn_status st = cn__shape_valid (name, "input", s, err);
  if (st != CN_OK)
    return st;
  if (A->check_params != NULL)
    {
      if (p == NULL)
        return cn_error_set (err, CN_EINVAL, "%s: missing attributes", name);
      if ((st = A->check_params (p, err)) != CN_OK)
        return st;
    }
  *out = *s;
  return CN_OK;
}

static cn_status
act_forward (const cn_node_view *nv, const cn_tensor *const *in, cn_tensor *out, cn_error *err)
{
  (void) err;
  const struct act *A = nv->rule->impl;
  int64_t n = cn__numel (nv->out_shape);
  CN__ASSERTD (cn__tensors_match (nv, in, out));
  if (out->dtype == CN_DTYPE_F64)
    {
      const double *x = in[0]->data;
      double *y = out->data;
      for (int64_t j = 0; j < n; j++)
        y[j] = A->f64 (x[j], nv->params);
    }
  else
    {
      const float *x = in[0]->data;
      float *y = out->data;
      for (int64_t j = 0; j < n; j++)
        y[j] = A->f32 (x[j], nv->params);
    }
  return CN_OK;
}

static cn_status
act_pullback (const cn_node_view *nv, const cn_tensor *const *in, const cn_tensor *out, const double *g_out,
              double *const *g_in, cn_error *err)
{
  (void) err;
  const struct act *A = nv->rule->impl;
  CN__ASSERTD (cn__diff_match (nv, in, out));
  int64_t n = cn_tensor_numel (out);
  if (g_in[0] == NULL)
    return CN_OK;
  const double *x = in[0]->data;
  for (int64_t j = 0; j < n; j++)
    if (g_out[j] != 0)
      g_in[0][j] += A->df (x[j], nv->params) * g_out[j];
  return CN_OK;
}

static cn_status
act_jvp (const cn_node_view *nv, const cn_tensor *const *in, const cn_tensor *out, const double *const *t_in,
         double *t_out, cn_error *err)
{
  (void) err;
  const struct act *A = nv->rule->impl;
  CN__ASSERTD (cn__diff_match (nv, in, out));
  int64_t n = cn_tensor_numel (out);
  const double *x = in[0]->data;
  for (int64_t j = 0; j < n; j++)
    t_out[j] = t_in[0] != NULL && t_in[0][j] != 0 ? A->df (x[j], nv->params) * t_in[0][j] : 0.0;
  return CN_OK;
}

/* Scratch of one range computation at one precision. */
struct act_ws
{
  mpfi_t x, y;
  mpfr_t lo, hi;          /* the enclosure of f at one point */
  mpfr_t fmin;            /* a lower bound of the valley's minimum */
  int has_min;
};

static void
act_ws_init (struct act_ws *w, mpfr_prec_t prec)
{
  mpfi_init2 (w->x, prec);
  mpfi_init2 (w->y, prec);
  mpfr_inits2 (prec, w->lo, w->hi, w->fmin, (mpfr_ptr) 0);
  w->has_min = 0;
}

static void
act_ws_clear (struct act_ws *w)
{
  mpfi_clear (w->x);
  mpfi_clear (w->y);
  mpfr_clears (w->lo, w->hi, w->fmin, (mpfr_ptr) 0);
}

/* [w->lo, w->hi] := an enclosure of f(X) for the extended real X (not NaN). */
static void
act_point (const struct act *A, const void *p, struct act_ws *w, mpfr_srcptr x)
{
  if (mpfr_inf_p (x))
    {
      double v = A->limit (mpfr_sgn (x), p);
      mpfr_set_d (w->lo, v, MPFR_RNDN);   /* exact: a double, at least 53 bits */
      mpfr_set_d (w->hi, v, MPFR_RNDN);
      return;
    }
  mpfi_set_fr (w->x, x);
  A->f_mpfi (w->y, w->x, p);
  mpfi_get_left (w->lo, w->y);
  mpfi_get_right (w->hi, w->y);
  /* now lo <= f(x) <= hi */
}

/* LO <= min f over [A_, B_] and HI >= max f over [A_, B_] (extended reals, A_ <= B_, not NaN). */
static void
act_range (const struct act *A, const void *p, struct act_ws *w, mpfr_srcptr a, mpfr_srcptr b, mpfr_ptr lo,
           mpfr_ptr hi)
{
  double xa, xb;
  int valley = A->valley (p, &xa, &xb);
  if (!valley || mpfr_cmp_d (a, xb) >= 0)
    {
      /* nondecreasing on [a, b] */
      act_point (A, p, w, a);
      mpfr_set (lo, w->lo, MPFR_RNDD);
      act_point (A, p, w, b);
      mpfr_set (hi, w->hi, MPFR_RNDU);
      return;
    }
  if (mpfr_cmp_d (b, xa) <= 0)
    {
      /* b <= xa <= x*: nonincreasing on [a, b] */
      act_point (A, p, w, b);
      mpfr_set (lo, w->lo, MPFR_RNDD);
      act_point (A, p, w, a);
      mpfr_set (hi, w->hi, MPFR_RNDU);
      return;
    }
  /* the box meets [xa, xb]: the minimum is at least f's global minimum, the maximum is at an end */
  if (!w->has_min)
    {
      mpfi_interv_d (w->x, xa, xb);
      A->f_mpfi (w->y, w->x, p);
      mpfi_get_left (w->fmin, w->y);
      w->has_min = 1;
    }
  mpfr_set (lo, w->fmin, MPFR_RNDD);
  act_point (A, p, w, a);
  mpfr_set (hi, w->hi, MPFR_RNDU);
  act_point (A, p, w, b);
  if (mpfr_cmp (w->hi, hi) > 0)
    mpfr_set (hi, w->hi, MPFR_RNDU);
}

static cn_status
act_ibp (const cn_node_view *nv, const cn_box *const *in, cn_box *out, cn_error *err)
{
  const struct act *A = nv->rule->impl;
  int64_t n = cn__numel (nv->out_shape);
  CN__ASSERTD (cn__boxes_match (nv, in, out));
  for (int64_t j = 0; j < n; j++)
    if (isnan (in[0]->lo[j]) || isnan (in[0]->hi[j]))
      return cn_error_set (err, CN_ENUMERIC, "%s: NaN in the input box at entry %lld (node '%s')",
                           cn_op_name (nv->op), (long long) j, cn__node_name (nv));
  double xa, xb;
  if (A->f_fast != NULL && !A->valley (nv->params, &xa, &xb))
    {
      /* nondecreasing: [lo f(l), hi f(u)] from the binary64 enclosures, the limits at infinite ends */
      for (int64_t j = 0; j < n; j++)
        {
          double l = in[0]->lo[j], u = in[0]->hi[j], t;
          if (isinf (l))
            out->lo[j] = A->limit (l > 0 ? 1 : -1, nv->params);
          else
            A->f_fast (l, nv->params, &out->lo[j], &t);
          if (isinf (u))
            out->hi[j] = A->limit (u > 0 ? 1 : -1, nv->params);
          else
            A->f_fast (u, nv->params, &t, &out->hi[j]);
          /* now out->lo <= f(x) <= out->hi for every x in [l, u] */
        }
      return CN_OK;
    }
  struct act_ws w;
  act_ws_init (&w, ACT_PREC);
  mpfr_t a, b, lo, hi;
  mpfr_inits2 (ACT_PREC, a, b, lo, hi, (mpfr_ptr) 0);
  for (int64_t j = 0; j < n; j++)
    {
      mpfr_set_d (a, in[0]->lo[j], MPFR_RNDN);   /* exact at 64 bits */
      mpfr_set_d (b, in[0]->hi[j], MPFR_RNDN);
      act_range (A, nv->params, &w, a, b, lo, hi);
      out->lo[j] = mpfr_get_d (lo, MPFR_RNDD);
      out->hi[j] = mpfr_get_d (hi, MPFR_RNDU);
      /* now out->lo <= lo <= f(x) <= hi <= out->hi for every x in [in->lo, in->hi] */
    }
  mpfr_clears (a, b, lo, hi, (mpfr_ptr) 0);
  act_ws_clear (&w);
  return CN_OK;
}

static cn_status
act_mpfi (const cn_node_view *nv, const cn_mpfi_vec *const *in, cn_mpfi_vec *out, cn_error *err)
{
  const struct act *A = nv->rule->impl;
  int64_t n = cn__numel (nv->out_shape);
  CN__ASSERTD (cn__mpfi_match (nv, in, out));
  if (n == 0)
    return CN_OK;
  mpfr_prec_t prec = mpfi_get_prec (out->v[0]);
  mpfr_prec_t pin = mpfi_get_prec (in[0]->v[0]);
  struct act_ws w;
  act_ws_init (&w, prec + 16 > pin ? prec + 16 : pin);
  mpfr_t a, b, lo, hi;
  mpfr_inits2 (pin, a, b, (mpfr_ptr) 0);
  mpfr_inits2 (prec, lo, hi, (mpfr_ptr) 0);
  cn_status st = CN_OK;
  for (int64_t j = 0; j < n; j++)
    {
      mpfi_get_left (a, in[0]->v[j]);
      mpfi_get_right (b, in[0]->v[j]);
      if (mpfr_nan_p (a) || mpfr_nan_p (b))
        {
          st = cn_error_set (err, CN_ENUMERIC, "%s: NaN in the input at entry %lld (node '%s')",
                             cn_op_name (nv->op), (long long) j, cn__node_name (nv));
          break;
        }
      act_range (A, nv->params, &w, a, b, lo, hi);
      mpfi_interv_fr (out->v[j], lo, hi);
    }
  mpfr_clears (a, b, lo, hi, (mpfr_ptr) 0);
  act_ws_clear (&w);
  return st;
}

/* ---- leakyReLU's CROWN arm (see the top of this section) ---- */

/* The lower slope of an unstable entry [l, u] under SLOPE (a cn_slope), negative slope A.
 * Adaptive: 1 where the upper line's slope (u - a l) / (u - l) exceeds 1/2 (ALGORITHMS 3,
 * auto_LiRPA's choice; for a = 0 this is relu's u > -l), else a. */
static double
leaky_slope (double l, double u, double a, int slope)
{
  if (slope == CN_SLOPE_ZERO)
    return a;
  if (slope == CN_SLOPE_ONE)
    return 1;
  if (slope == CN_SLOPE_RATIO && isfinite (l) && isfinite (u))
    {
      double r = u / (u - l);
      /* any double in [a, 1] is a valid slope; the rounding of r does not matter */
      return r > 1 ? 1 : r < a ? a : r;
    }
  return 2 * (u - a * l) > u - l ? 1 : a;
}

/* Whether some row's theta at the unstable entry J lies outside [A, 1] (alpha-CROWN). */
static int
th_bad (const cn_crown_step *st, int64_t j, double a)
{
  if (st->theta == NULL || st->theta_unchecked)
    return 0;
  int64_t sets = st->theta_stride == 0 ? 1 : st->rows;
  for (int64_t s = 0; s < sets; s++)
    {
      double t = st->theta[s * st->theta_stride + j];
      if (!(t >= a && t <= 1))
        return 1;
    }
  return 0;
}

/* alpha-CROWN's parameter of leakyReLU: the lower slope of an unstable entry, valid in [a, 1];
 * the others keep 0.  INIT: the slope leaky_crown takes under SLOPE. */
static void
leaky_alpha (const cn_node_view *nv, const cn_box *in, int slope, int init, double *theta)
{
  int64_t n = cn__numel (nv->out_shape);
  double a = ((const cn_params_leaky_relu *) nv->params)->negative_slope;
  for (int64_t j = 0; j < n; j++)
    {
      double l = in->lo[j], u = in->hi[j];
      if (!(l < 0 && u > 0) || !(a >= 0 && a <= 1))
        theta[j] = 0;
      else if (init || isnan (theta[j]))
        theta[j] = leaky_slope (l, u, a, slope);
      else
        theta[j] = theta[j] < a ? a : theta[j] > 1 ? 1 : theta[j];
    }
}

static cn_status
leaky_crown (const cn_crown_step *st, cn_error *err)
{
  const cn_node_view *nv = st->nv;
  int64_t n = cn__numel (nv->out_shape);
  const cn_box *box = st->in_box[0];
  double a = ((const cn_params_leaky_relu *) nv->params)->negative_slope;
  if (st->lam_in[0] == NULL)
    return cn_error_set (err, CN_EINVAL, "leakyReLU: CROWN step on a constant input (node '%s')", cn__node_name (nv));
  CN__ASSERTD (box->n == n);
  if (!(a >= 0 && a <= 1))
    return cn_error_set (err, CN_EUNSUPPORTED,
                         "leakyReLU: CROWN needs a negative slope in [0, 1], got %g (node '%s')", a,
                         cn__node_name (nv));
  /* Each entry's lines (kl z + bl <= f(z) <= ku z + bu on [l, u], exactly), then the shared
   * elementwise step of src/sound/relax.c (its products' and intercepts' roundings charged). */
  cn__relax_line *ln = malloc ((size_t) (n ? n : 1) * sizeof *ln);
  if (ln == NULL)
    return cn_error_set (err, CN_ENOMEM, "leakyReLU: out of memory (node '%s')", cn__node_name (nv));
  for (int64_t j = 0; j < n; j++)
    {
      double l = box->lo[j], u = box->hi[j];
      if (u <= 0)
        {
          ln[j] = (cn__relax_line) { .kl = a, .ku = a };   /* f(z) = a z, exactly */
          continue;
        }
      if (l >= 0)
        {
          ln[j] = (cn__relax_line) { .kl = 1, .ku = 1 };   /* f(z) = z */
          continue;
        }
      /* Unstable.  Lower: alpha z for any alpha in [a, 1] (f(z) = max(z, a z) >= alpha z), so
       * alpha-CROWN's theta may replace it (free_lower; projected onto [a, 1] by leaky_alpha). */
      if (th_bad (st, j, a))
        {
          free (ln);
          return cn_error_set (err, CN_EINVAL, "leakyReLU: lower slope outside [%g, 1] at entry %lld (node '%s')", a,
                               (long long) j, cn__node_name (nv));
        }
      ln[j] = (cn__relax_line) { .kl = leaky_slope (l, u, a, st->slope), .bu = INFINITY, .free_lower = 1 };
      /* no upper line until one is proved */
      if (isinf (l) || isinf (u))
        continue;
      double w = cn__down (u - l);
      /* now 0 < w <= u - l if w > 0 */
      if (!(w > 0))
        continue;
      double num = a == 0 ? u : cn__up (u + cn__up (a * -l));
      /* now num >= u - a l > 0 */
      double k = cn__up (num / w);
      /* now k >= num / w >= (u - a l) / (u - l) >= a */
      if (!(k > 0) || isinf (k))
        continue;
      double b = cn__up (-l * cn__up (k - a));
      /* now b >= (-l)(k - a) >= 0, and k z + b >= f(z) on [l, u] (the chord through (l, a l) and
       * (u, u), raised) */
      if (!(b >= 0) || isinf (b))
        continue;
      ln[j].ku = k;
      ln[j].bu = b;
    }
  cn_status st_ = cn__crown_lines (st, "leakyReLU", ln, err);
  free (ln);
  return st_;
}

/* ---- the CROWN arms of sigmoid, tanh, softplus and elu (see the top of this section) ---- */

static int curv_s (int i, const void *p) { (void) p; return i == 0 ? 1 : -1; }
static int curv_convex (int i, const void *p) { (void) i; (void) p; return 1; }

static double rx_sigmoid (double x, int i, const void *p) { (void) i; return sigmoid_f64 (x, p); }
static double rx_dsigmoid (double x, int i, const void *p) { (void) i; return sigmoid_df (x, p); }
static double rx_tanh (double x, int i, const void *p) { (void) i; return tanh_f64 (x, p); }
static double rx_dtanh (double x, int i, const void *p) { (void) i; return tanh_df (x, p); }
static double rx_softplus (double x, int i, const void *p) { (void) i; return softplus_f64 (x, p); }
static double rx_dsoftplus (double x, int i, const void *p) { (void) i; return softplus_df (x, p); }
/* elu: piece 0 (x <= 0) alpha expm1(x), convex for alpha >= 0, concave for alpha < 0; piece 1
 * (x >= 0) x, linear, reported convex when the kink at 0 is convex (alpha <= 1: f' jumps up from
 * alpha to 1) and concave when it is concave (alpha > 1), which only steers the slopes. */
static int
curv_elu (int i, const void *p)
{
  double a = ((const cn_params_elu *) p)->alpha;
  if (i == 0)
    return a >= 0 ? 1 : -1;
  return a <= 1 ? 1 : -1;
}
static double
rx_elu (double x, int i, const void *p)
{
  return i ? x : ((const cn_params_elu *) p)->alpha * expm1 (x);
}
static double
rx_delu (double x, int i, const void *p)
{
  return i ? 1 : ((const cn_params_elu *) p)->alpha * exp (x);
}

static void
rx_sigmoid_encl (double x, int i, const void *p, double *lo, double *hi)
{
  (void) i;
  (void) p;
  cn__sigmoid_encl (x, lo, hi);
}
static void
rx_dsigmoid_encl (double x, int i, const void *p, double *lo, double *hi)
{
  (void) i;
  (void) p;
  cn__dsigmoid_encl (x, lo, hi);
}
static void
rx_tanh_encl (double x, int i, const void *p, double *lo, double *hi)
{
  (void) i;
  (void) p;
  cn__tanh_encl (x, lo, hi);
}
static void
rx_dtanh_encl (double x, int i, const void *p, double *lo, double *hi)
{
  (void) i;
  (void) p;
  cn__dtanh_encl (x, lo, hi);
}
static void
rx_softplus_encl (double x, int i, const void *p, double *lo, double *hi)
{
  (void) i;
  (void) p;
  cn__softplus_encl (x, lo, hi);
}
static void
rx_elu_encl (double x, int i, const void *p, double *lo, double *hi)
{
  if (i)
    *lo = *hi = x;
  else
    elu_fast (fmin (x, 0), p, lo, hi);   /* piece 0 is x <= 0 (x = brk = 0 included) */
}
/* elu' on piece 0: alpha exp(x); on piece 1: 1 */
static void
rx_delu_encl (double x, int i, const void *p, double *lo, double *hi)
{
  double a = ((const cn_params_elu *) p)->alpha, el, eh;
  if (i)
    {
      *lo = *hi = 1;
      return;
    }
  cn__exp_encl (x, &el, &eh);
  alpha_times (a, el, eh, lo, hi);
}

/* the second derivatives (binary64; they only steer alpha-CROWN's tangent points):
 * sigmoid'' = s'(1 - 2 s), tanh'' = -2 t t', softplus'' = sigmoid' */
static double
rx_d2sigmoid (double x, int i, const void *p)
{
  (void) i;
  return sigmoid_df (x, p) * (1 - 2 * sigmoid_f64 (x, p));
}
static double
rx_d2tanh (double x, int i, const void *p)
{
  (void) i;
  return -2 * tanh_f64 (x, p) * tanh_df (x, p);
}
static double
rx_d2softplus (double x, int i, const void *p)
{
  (void) i;
  return sigmoid_df (x, p);
}

static const cn__relax_fn relax_sigmoid = { .split = 1, .brk = 0, .curv = curv_s, .f = rx_sigmoid, .df = rx_dsigmoid,
                                            .f_encl = rx_sigmoid_encl, .df_encl = rx_dsigmoid_encl,
                                            .d2f = rx_d2sigmoid };
static const cn__relax_fn relax_tanh = { .split = 1, .brk = 0, .curv = curv_s, .f = rx_tanh, .df = rx_dtanh,
                                         .f_encl = rx_tanh_encl, .df_encl = rx_dtanh_encl, .d2f = rx_d2tanh };
static const cn__relax_fn relax_softplus = { .split = 0, .curv = curv_convex, .f = rx_softplus, .df = rx_dsoftplus,
                                             .f_encl = rx_softplus_encl, .df_encl = rx_sigmoid_encl,
                                             .d2f = rx_d2softplus };
/* elu'' = alpha exp(x) on piece 0, 0 on piece 1 (the tangent at a t > 0 is the line z: moving t
 * there does not move it) */
static double
rx_d2elu (double x, int i, const void *p)
{
  return i ? 0 : ((const cn_params_elu *) p)->alpha * exp (x);
}
static const cn__relax_fn relax_elu = { .split = 1, .brk = 0, .curv = curv_elu, .f = rx_elu, .df = rx_delu,
                                        .f_encl = rx_elu_encl, .df_encl = rx_delu_encl, .d2f = rx_d2elu };

/* silu and gelu: shifted chords (G4 of src/sound/relax.c; their curvature changes sign twice, at
 * points that are not doubles).  f at a point is the activation's MPFI enclosure at 64 bits; the
 * bound of |f''| over [a, b] is the MPFI range of (s' = sigmoid', t = tanh)
 *     silu''(x) = s'(x) (2 - x t(x/2)),   s'(x) = 1 / (4 cosh^2(x/2)),
 *     gelu''(x) = phi(x) (2 - x^2),       phi(x) = exp(-x^2/2) / sqrt(2 pi)        (erf form),
 *     gelu''(x) = s'(v) (2 v' + x v'') - x s'(v) t(v/2) v'^2                      (tanh form)
 * with v = 2 k (x + c x^3), k = sqrt(2/pi), c = 0.044715 (gelu_encl's constants), v' = 2 k (1 +
 * 3 c x^2), v'' = 12 k c x (s'' = -s' t(v/2)). */
static void
mpfi_dsigmoid (mpfi_ptr y, mpfi_srcptr x)
{
  mpfi_div_2ui (y, x, 1);
  mpfi_cosh (y, y);
  mpfi_sqr (y, y);
  mpfi_mul_2ui (y, y, 2);
  mpfi_inv (y, y);
}
static double
d2_mag (mpfi_srcptr y)
{
  mpfr_t m;
  mpfr_init2 (m, mpfi_get_prec (y));
  mpfi_mag (m, y);
  double r = mpfr_get_d (m, MPFR_RNDU);
  mpfr_clear (m);
  return r;
}
static double
silu_d2_bound (double a, double b, const void *p)
{
  (void) p;
  mpfi_t x, t, y;
  mpfi_init2 (x, 64);
  mpfi_init2 (t, 64);
  mpfi_init2 (y, 64);
  mpfi_interv_d (x, a, b);
  mpfi_div_2ui (t, x, 1);
  mpfi_tanh (t, t);
  mpfi_mul (t, t, x);
  mpfi_ui_sub (t, 2, t);
  mpfi_dsigmoid (y, x);
  mpfi_mul (y, y, t);
  double r = d2_mag (y);
  mpfi_clear (x);
  mpfi_clear (t);
  mpfi_clear (y);
  return r;
}
static double
gelu_d2_bound (double a, double b, const void *p)
{
  const cn_params_gelu *g = p;
  mpfi_t x, x2, t, v, y;
  mpfi_init2 (x, 64);
  mpfi_init2 (x2, 64);
  mpfi_init2 (t, 64);
  mpfi_init2 (v, 64);
  mpfi_init2 (y, 64);
  mpfi_interv_d (x, a, b);
  mpfi_sqr (x2, x);
  if (g->approximate == CN_GELU_NONE)
    {
      mpfi_div_2ui (t, x2, 1);
      mpfi_neg (t, t);
      mpfi_exp (t, t);
      mpfi_const_pi (v);
      mpfi_mul_2ui (v, v, 1);
      mpfi_sqrt (v, v);
      mpfi_div (t, t, v);          /* phi(x) */
      mpfi_ui_sub (y, 2, x2);
      mpfi_mul (y, y, t);
    }
  else
    {
      mpfi_t k, c, dv, s1;
      mpfi_init2 (k, 64);
      mpfi_init2 (c, 64);
      mpfi_init2 (dv, 64);
      mpfi_init2 (s1, 64);
      mpfi_set_str (c, "0.044715", 10);
      mpfi_const_pi (k);
      mpfi_ui_div (k, 2, k);
      mpfi_sqrt (k, k);            /* k = sqrt(2/pi) */
      mpfi_mul (v, x2, c);
      mpfi_add_ui (v, v, 1);
      mpfi_mul (v, v, x);
      mpfi_mul (v, v, k);
      mpfi_mul_2ui (v, v, 1);      /* v = 2 k (x + c x^3) */
      mpfi_mul (dv, x2, c);
      mpfi_mul_ui (dv, dv, 3);
      mpfi_add_ui (dv, dv, 1);
      mpfi_mul (dv, dv, k);
      mpfi_mul_2ui (dv, dv, 1);    /* v' */
      mpfi_dsigmoid (s1, v);       /* s'(v) */
      mpfi_mul (t, k, c);
      mpfi_mul_ui (t, t, 12);
      mpfi_mul (t, t, x2);         /* x v'' */
      mpfi_mul_2ui (y, dv, 1);
      mpfi_add (y, y, t);
      mpfi_mul (y, y, s1);         /* s'(v) (2 v' + x v'') */
      mpfi_div_2ui (t, v, 1);
      mpfi_tanh (t, t);
      mpfi_mul (t, t, s1);
      mpfi_mul (t, t, x);
      mpfi_sqr (dv, dv);
      mpfi_mul (t, t, dv);         /* x s'(v) t(v/2) v'^2 */
      mpfi_sub (y, y, t);
      mpfi_clear (k);
      mpfi_clear (c);
      mpfi_clear (dv);
      mpfi_clear (s1);
    }
  double r = d2_mag (y);
  mpfi_clear (x);
  mpfi_clear (x2);
  mpfi_clear (t);
  mpfi_clear (v);
  mpfi_clear (y);
  return r;
}
static double rx_silu (double x, int i, const void *p) { (void) i; return silu_f64 (x, p); }
static double rx_gelu (double x, int i, const void *p) { (void) i; return gelu_f64 (x, p); }
static void
rx_silu_mpfi (mpfi_ptr y, double x, int i, const void *p)
{
  (void) i;
  mpfi_set_d (y, x);
  silu_encl (y, y, p);
}
static void
rx_gelu_mpfi (mpfi_ptr y, double x, int i, const void *p)
{
  (void) i;
  mpfi_set_d (y, x);
  gelu_encl (y, y, p);
}
static const cn__relax_fn relax_silu = { .f = rx_silu, .f_mpfi = rx_silu_mpfi, .d2_bound = silu_d2_bound };
static const cn__relax_fn relax_gelu = { .f = rx_gelu, .f_mpfi = rx_gelu_mpfi, .d2_bound = gelu_d2_bound };

/* The CROWN arm of sigmoid, tanh, softplus and elu: the lines of the activation's relaxation over
 * the node's IBP box (cn__crown_relax).  The attributes were checked with the node (elu's alpha is
 * finite). */
static cn_status
act_crown (const cn_crown_step *st, cn_error *err)
{
  const struct act *A = st->nv->rule->impl;
  CN__ASSERTD (A->relax != NULL);
  CN__ASSERTD (A->check_params == NULL
               || (st->nv->params != NULL && A->check_params (st->nv->params, NULL) == CN_OK));
  return cn__crown_relax (st, cn_op_name (st->nv->op), A->relax, act_ibp, err);
}

/* ---- the activations' data and rules ---- */

static const struct act act_sigmoid = { sigmoid_encl, sigmoid_limit, no_valley, sigmoid_f64, sigmoid_f32, sigmoid_df,
                                        NULL, &relax_sigmoid, sigmoid_fast };
static const struct act act_tanh = { tanh_encl, tanh_limit, no_valley, tanh_f64, tanh_f32, tanh_df, NULL, &relax_tanh,
                                     tanh_fast };
static const struct act act_softplus = { softplus_encl, zero_inf_limit, no_valley, softplus_f64, softplus_f32,
                                         softplus_df, NULL, &relax_softplus, softplus_fast };
static const struct act act_silu = { silu_encl, zero_inf_limit, silu_valley, silu_f64, silu_f32, silu_df, NULL,
                                     &relax_silu, NULL };
static const struct act act_gelu = { gelu_encl, zero_inf_limit, gelu_valley, gelu_f64, gelu_f32, gelu_df,
                                     gelu_params_check, &relax_gelu, NULL };
static const struct act act_elu = { elu_encl, elu_limit, elu_valley, elu_f64, elu_f32, elu_df, elu_params_check,
                                    &relax_elu, elu_fast };
static const struct act act_leaky = { leaky_encl, leaky_limit, leaky_valley, leaky_f64, leaky_f32, leaky_df,
                                      leaky_params_check, NULL, NULL };

/* The rule of the activation ID whose data is IMPL, with its
 * FLAGS and its CROWN arm (NULL: none). */
#define ACT_RULE(ID, IMPL, FLAGS, CROWN, ALPHA, ...)                                                            \
  const struct cn_op_rule cn__rule_##ID = {                                                                       \
    .op = CN_OP_##ID,                                                                                             \
    .impl = &IMPL,                                                                                                \
    .n_in = 1,                                                                                                    \
    .flags = FLAGS,                                                                                               \
    .check = act_check,                                                                                           \
    .forward = act_forward,                                                                                       \
    .pullback = act_pullback,                                                                                     \
    .jvp = act_jvp,                                                                                               \
    .ibp = act_ibp,                                                                                               \
    .ibp_mpfi = act_mpfi,                                                                                         \
    .crown = CROWN,                                                                                               \
    .alpha = ALPHA,                                                                                               \
    .certs = CN__CERTS (__VA_ARGS__),                                                                             \
  }

ACT_RULE (SIGMOID, act_sigmoid, CN_RULE_NEEDS_BOUNDS | CN_RULE_SMOOTH_BOUNDS, act_crown, cn__relax_alpha,
          CN__CERT_GRADIENT, CN__CERT_BOUNDS);
ACT_RULE (TANH, act_tanh, CN_RULE_NEEDS_BOUNDS | CN_RULE_SMOOTH_BOUNDS, act_crown, cn__relax_alpha,
          CN__CERT_GRADIENT, CN__CERT_BOUNDS);
ACT_RULE (SOFTPLUS, act_softplus, CN_RULE_NEEDS_BOUNDS | CN_RULE_SMOOTH_BOUNDS, act_crown, cn__relax_alpha,
          CN__CERT_GRADIENT, CN__CERT_BOUNDS);
ACT_RULE (SILU, act_silu, CN_RULE_NEEDS_BOUNDS | CN_RULE_SMOOTH_BOUNDS, act_crown, NULL,
          CN__CERT_GRADIENT, CN__CERT_BOUNDS);
ACT_RULE (GELU, act_gelu, CN_RULE_NEEDS_BOUNDS | CN_RULE_SMOOTH_BOUNDS, act_crown, NULL,
          CN__CERT_GRADIENT, CN__CERT_BOUNDS);
ACT_RULE (ELU, act_elu, CN_RULE_NEEDS_BOUNDS | CN_RULE_SMOOTH_BOUNDS, act_crown, cn__relax_alpha,
          CN__CERT_GRADIENT, CN__CERT_BOUNDS);
ACT_RULE (LEAKY_RE_LU, act_leaky, CN_RULE_NEEDS_BOUNDS, leaky_crown, leaky_alpha, CN__CERT_GRADIENT, CN__CERT_BOUNDS);
