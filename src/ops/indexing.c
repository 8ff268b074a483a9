/* SPDX-License-Identifier: MIT */
/* src/ops/indexing.c: slice.
 *
 * slice  on every axis a, the entries start[a], start[a] + step[a], ... below stop[a], with
 *        0 <= start[a] <= stop[a] <= extent and step[a] >= 1 (the importer normalises negative
 *        and clamped indices); the output extent is ceil((stop[a] - start[a]) / step[a]).
 *        Output entry o with multi-index (i_a) reads input entry
 *            j(o) = sum_a (start[a] + i_a step[a]) stride_in[a].
 *   forward  a copy.  Exact.
 *   IBP      [lo, hi]_o = [lo, hi]_{j(o)}.  Exact, no rounding; infinite ends are copied.
 *   CROWN    lam . v = sum_o lam_o u_{j(o)}, and j is one-to-one, so lam_in[j(o)] = lam_o: a
 *            scatter of exact copies, no charge.  (An input without coefficients, a constant,
 *            is discharged over its box: fl(sum_o lam_o sel_o) into the bias, its (G) error
 *            cn__dot_err and the rounding of the addition into the charge; +inf if an infinite
 *            end is needed.)
 *   MPFI     mpfi_set of the mapped entry.
 *   pullback dv_o = du_{j(o)}, so the adjoint scatters:  g_in[j(o)] += g_o  for every o (j is
 *            one-to-one; the entries no output reads get nothing).
 *   jvp      the tangent map itself:  t_o = t_in[j(o)]  (0 if the input has no tangent).  Exact
 *            copies, the transpose of the pullback's scatter. */
#include <config.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "crown/crown_impl.h"

static cn_status
slice_check (const void *p, int n_in, const cn_shape *const *in, cn_shape *out, cn_error *err)
{
  const cn_params_slice *sl = p;
  if (sl == NULL)
    return cn_error_set (err, CN_EINVAL, "slice: missing attributes");
  if (n_in != 1)
    return cn_error_set (err, CN_EINVAL, "slice: takes 1 input, got %d", n_in);
  const cn_shape *s = in[0];
  if (s == NULL || s->rank < 0 || s->rank > CN_MAX_RANK)
    return cn_error_set (err, CN_EINVAL, "slice: input has an invalid rank");
  for (int a = 0; a < s->rank; a++)
    if (s->dim[a] < 0)
      return cn_error_set (err, CN_EINVAL, "slice: input has extent %lld on axis %d", (long long) s->dim[a], a);
  if (cn_shape_numel (s) < 0)
    return cn_error_set (err, CN_EINVAL, "slice: input has too many elements");
  if (sl->rank != s->rank)
    return cn_error_set (err, CN_EINVAL, "slice: ranges of rank %d for an input of rank %d", sl->rank, s->rank);
  cn_shape o;
  memset (&o, 0, sizeof o);
  o.rank = s->rank;
  for (int a = 0; a < s->rank; a++)
    {
      int64_t b = sl->start[a], e = sl->stop[a], k = sl->step[a];
      if (k < 1)
        return cn_error_set (err, CN_EINVAL, "slice: step %lld on axis %d (must be >= 1)", (long long) k, a);
      if (b < 0 || b > e || e > s->dim[a])
        return cn_error_set (err, CN_EINVAL,
                             "slice: range [%lld, %lld) on axis %d is not within [0, %lld] in order",
                             (long long) b, (long long) e, a, (long long) s->dim[a]);
      o.dim[a] = e == b ? 0 : 1 + (e - b - 1) / k;
    }
  *out = o;
  return CN_OK;
}

/* J[o] = the input entry that output entry o reads. */
static cn_status
slice_map (const cn_node_view *nv, int64_t **jp, cn_error *err)
{
  const cn_params_slice *sl = nv->params;
  const cn_shape *os = nv->out_shape;
  int64_t n = cn__numel (os);
  int64_t *j = malloc ((size_t) (n ? n : 1) * sizeof *j);
  if (j == NULL)
    return cn_error_set (err, CN_ENOMEM, "slice: out of memory (node '%s')", nv->name);
  int64_t istr[CN_MAX_RANK], idx[CN_MAX_RANK] = { 0 };
  cn__strides (nv->in_shape[0], istr);
  for (int64_t o = 0; o < n; o++)
    {
      int64_t q = 0;
      for (int a = 0; a < os->rank; a++)
        q += (sl->start[a] + idx[a] * sl->step[a]) * istr[a];
      j[o] = q;
      for (int a = os->rank - 1; a >= 0; a--)
        {
          if (++idx[a] < os->dim[a])
            break;
          idx[a] = 0;
        }
    }
  *jp = j;
  return CN_OK;
}

static cn_status
sizes_ok (const cn_node_view *nv, int64_t n_in, int64_t n_out, cn_error *err)
{
  if (n_in != cn__numel (nv->in_shape[0]) || n_out != cn__numel (nv->out_shape))
    return cn_error_set (err, CN_EINVAL, "slice: arrays do not match the node (node '%s')", nv->name);
  return CN_OK;
}

static cn_status
slice_forward (const cn_node_view *nv, const cn_tensor *const *in, cn_tensor *out, cn_error *err)
{
  cn_status st = sizes_ok (nv, cn_tensor_numel (in[0]), cn_tensor_numel (out), err);
  if (st != CN_OK)
    return st;
  if (!cn_dtype_is_float (out->dtype) || in[0]->dtype != out->dtype)
    return cn_error_set (err, CN_EINVAL, "slice: tensors of different sorts (node '%s')", nv->name);
  int64_t *j;
  if ((st = slice_map (nv, &j, err)) != CN_OK)
    return st;
  int64_t n = cn_tensor_numel (out);
  if (out->dtype == CN_DTYPE_F64)
    for (int64_t o = 0; o < n; o++)
      ((double *) out->data)[o] = ((const double *) in[0]->data)[j[o]];
  else
    for (int64_t o = 0; o < n; o++)
      ((float *) out->data)[o] = ((const float *) in[0]->data)[j[o]];
  free (j);
  return CN_OK;
}

static cn_status
slice_ibp (const cn_node_view *nv, const cn_box *const *in, cn_box *out, cn_error *err)
{
  cn_status st = sizes_ok (nv, in[0]->n, out->n, err);
  if (st != CN_OK)
    return st;
  int64_t *j;
  if ((st = slice_map (nv, &j, err)) != CN_OK)
    return st;
  for (int64_t o = 0; o < out->n; o++)
    {
      out->lo[o] = in[0]->lo[j[o]];
      out->hi[o] = in[0]->hi[j[o]];
    }
  /* now out is the image of the input box, exactly */
  free (j);
  return CN_OK;
}

static cn_status
slice_mpfi (const cn_node_view *nv, const cn_mpfi_vec *const *in, cn_mpfi_vec *out, cn_error *err)
{
  cn_status st = sizes_ok (nv, in[0]->n, out->n, err);
  if (st != CN_OK)
    return st;
  int64_t *j;
  if ((st = slice_map (nv, &j, err)) != CN_OK)
    return st;
  for (int64_t o = 0; o < out->n; o++)
    mpfi_set (out->v[o], in[0]->v[j[o]]);
  free (j);
  return CN_OK;
}

static cn_status
slice_crown (const cn_crown_step *st, cn_error *err)
{
  const cn_node_view *nv = st->nv;
  const cn_box *box = st->in_box[0];
  int64_t n = cn__numel (nv->out_shape), ni = box->n;
  cn_status status = sizes_ok (nv, ni, n, err);
  if (status != CN_OK)
    return status;
  int64_t *j;
  if ((status = slice_map (nv, &j, err)) != CN_OK)
    return status;
#pragma omp parallel for num_threads(st->threads > 0 ? st->threads : 1) if (st->rows * n > 65536)
  for (int64_t s = 0; s < st->rows; s++)
    {
      const double *lo = st->lam_out + s * n;
      if (st->lam_in[0] != NULL)
        {
          double *li = st->lam_in[0] + s * ni;
          for (int64_t o = 0; o < n; o++)
            li[j[o]] = lo[o];
          /* now li is lam_out scattered, exactly (j is one-to-one) */
          continue;
        }
      double d = 0, t = 0;
      int64_t cnt = 0;
      int unbounded = 0;
      for (int64_t o = 0; o < n; o++)
        {
          double lam = lo[o];
          if (lam == 0)
            continue;
          double x = lam > 0 ? box->lo[j[o]] : box->hi[j[o]];
          if (x == 0)
            continue;
          if (isinf (x))
            unbounded = 1;
          d += lam * x;
          t += fabs (lam) * fabs (x);
          cnt++;
        }
      /* now d = fl(sum lam_o sel_o), |d - sum lam_o sel_o| <= cn__dot_err (t, cnt) by (G) */
      cn__crown_add_sum (st, s, d, t, cnt, unbounded);
    }
  free (j);
  return CN_OK;
}

static cn_status
slice_pullback (const cn_node_view *nv, const cn_tensor *const *in, const cn_tensor *out, const double *g_out,
                double *const *g_in, cn_error *err)
{
  cn_status st = sizes_ok (nv, cn_tensor_numel (in[0]), cn_tensor_numel (out), err);
  if (st != CN_OK)
    return st;
  if (in[0]->dtype != CN_DTYPE_F64 || out->dtype != CN_DTYPE_F64)
    return cn_error_set (err, CN_EINVAL, "slice: pullback tensors are not binary64 (node '%s')", nv->name);
  if (g_in[0] == NULL)
    return CN_OK;
  int64_t *j;
  if ((st = slice_map (nv, &j, err)) != CN_OK)
    return st;
  int64_t n = cn_tensor_numel (out);
  for (int64_t o = 0; o < n; o++)
    g_in[0][j[o]] += g_out[o];
  /* now g_in has received g scattered through j */
  free (j);
  return CN_OK;
}

static cn_status
slice_jvp (const cn_node_view *nv, const cn_tensor *const *in, const cn_tensor *out, const double *const *t_in,
           double *t_out, cn_error *err)
{
  cn_status st = sizes_ok (nv, cn_tensor_numel (in[0]), cn_tensor_numel (out), err);
  if (st != CN_OK)
    return st;
  if (in[0]->dtype != CN_DTYPE_F64 || out->dtype != CN_DTYPE_F64)
    return cn_error_set (err, CN_EINVAL, "slice: jvp tensors are not binary64 (node '%s')", nv->name);
  int64_t n = cn_tensor_numel (out);
  if (t_in[0] == NULL)
    {
      for (int64_t o = 0; o < n; o++)
        t_out[o] = 0;
      return CN_OK;
    }
  int64_t *j;
  if ((st = slice_map (nv, &j, err)) != CN_OK)
    return st;
  for (int64_t o = 0; o < n; o++)
    t_out[o] = t_in[0][j[o]];
  /* now t_out is t_in gathered through j */
  free (j);
  return CN_OK;
}

const struct cn_op_rule cn__rule_SLICE = {
  .n_in = 1, .params_size = sizeof (cn_params_slice), .check = slice_check, .forward = slice_forward,
  .pullback = slice_pullback, .jvp = slice_jvp, .ibp = slice_ibp, .ibp_mpfi = slice_mpfi, .crown = slice_crown,
};
