/* SPDX-License-Identifier: MIT */
/* src/ops/slice.c: slice and indices, the indexing operators without an index port (their map
 * is fixed by the attributes and the shapes; gather, scatter, indexAt and embedding, whose map an
 * index tensor gives, are in src/ops/indexing.c).
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
 *            copies, the transpose of the pullback's scatter.
 *   Sorts (the seed's Op.Element): slice's port is an element port (CN_PORT_ELEMENT): the model's
 *            scalar (a value port), Booleans or integer words of any width; out_sort returns its
 *            sort.  At a Boolean or word sort forward copies the elements bit for bit, exact; IBP
 *            and MPFI move the boxes (which hold the numbers; a Boolean box [0, 1] is unknown)
 *            unchanged, exact for every element they admit; CROWN only moves coefficients
 *            (lam . v is the same sum of the same numbers whatever their sort), so it stays
 *            sound.  No gradients at Booleans and words: such a node receives no cotangent and
 *            no tangent (the pullback and jvp arms take binary64 tensors only).
 *
 * indices    cn_params_indices: the input's shape (a frozen port, the seed's "no value input")
 *            filled with each entry's index along AXIS.  Forward exact (extents <= 2^53 checked;
 *            binary32 rounds above 2^24); IBP/MPFI the point; pullback adds nothing, jvp writes 0;
 *            CROWN puts lam . c into the bias with cn__crown_add_sum.
 *
 * The arms trust the shapes and sorts the graph builder checked (debug assertions state them). */
#include <config.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "ops/ops_impl.h"

/* ---- slice ------------------------------------------------------------------------------- */

static cn_status
slice_out_sort (const struct cn_op_rule *rule, const void *p, int n_in, const cn_dtype *in, cn_dtype *out, cn_error *err)
{
  (void) rule;
  (void) p;
  if (n_in != 1)
    return cn_error_set (err, CN_EINVAL, "slice: takes 1 input, got %d", n_in);
  return cn__sort_at ("slice", 0, in, out, err);
}

static cn_status
slice_check (const struct cn_op_rule *rule, const void *p, int n_in, const cn_shape *const *in, cn_shape *out, cn_error *err)
{
  (void) rule;
  const cn_params_slice *sl = p;
  if (sl == NULL)
    return cn_error_set (err, CN_EINVAL, "slice: missing attributes");
  if (n_in != 1)
    return cn_error_set (err, CN_EINVAL, "slice: takes 1 input, got %d", n_in);
  const cn_shape *s = in[0];
  cn_status st = cn__shape_valid ("slice", "input", s, err);
  if (st != CN_OK)
    return st;
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

/* Whether arrays of N_IN and N_OUT entries are the node's input and output (an invariant: the
 * graph builder checked the shapes, and the engines allocate from them). */
static int
slice_sizes (const cn_node_view *nv, int64_t n_in, int64_t n_out)
{
  return n_in == cn__numel (nv->in_shape[0]) && n_out == cn__numel (nv->out_shape);
}

static cn_status
slice_forward (const cn_node_view *nv, const cn_tensor *const *in, cn_tensor *out, cn_error *err)
{
  CN__ASSERTD (slice_sizes (nv, cn_tensor_numel (in[0]), cn_tensor_numel (out)));
  CN__ASSERTD ((unsigned) out->dtype < CN_DTYPE_COUNT && in[0]->dtype == out->dtype);
  int64_t *j;
  cn_status st;
  if ((st = slice_map (nv, &j, err)) != CN_OK)
    return st;
  int64_t n = cn_tensor_numel (out);
#define SLICE_COPY(T)                                                                              \
  for (int64_t o = 0; o < n; o++)                                                                  \
    ((T *) out->data)[o] = ((const T *) in[0]->data)[j[o]]
  if (out->dtype == CN_DTYPE_F64)
    SLICE_COPY (double);
  else if (out->dtype == CN_DTYPE_F32)
    SLICE_COPY (float);
  else
    /* Booleans and words: their patterns, through the unsigned type of their width */
    switch (cn_dtype_size (out->dtype))
      {
      case 1: SLICE_COPY (uint8_t); break;
      case 2: SLICE_COPY (uint16_t); break;
      case 4: SLICE_COPY (uint32_t); break;
      default: SLICE_COPY (uint64_t); break;
      }
#undef SLICE_COPY
  /* now every output entry is a copy of the input entry j(o) */
  free (j);
  return CN_OK;
}

static cn_status
slice_ibp (const cn_node_view *nv, const cn_box *const *in, cn_box *out, cn_error *err)
{
  CN__ASSERTD (slice_sizes (nv, in[0]->n, out->n));
  int64_t *j;
  cn_status st;
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
  CN__ASSERTD (slice_sizes (nv, in[0]->n, out->n));
  int64_t *j;
  cn_status st;
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
  CN__ASSERTD (slice_sizes (nv, ni, n));
  int64_t *j;
  cn_status status;
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
  CN__ASSERTD (slice_sizes (nv, cn_tensor_numel (in[0]), cn_tensor_numel (out)));
  CN__ASSERTD (in[0]->dtype == CN_DTYPE_F64 && out->dtype == CN_DTYPE_F64);
  if (g_in[0] == NULL)
    return CN_OK;
  cn_status st;
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
  CN__ASSERTD (slice_sizes (nv, cn_tensor_numel (in[0]), cn_tensor_numel (out)));
  CN__ASSERTD (in[0]->dtype == CN_DTYPE_F64 && out->dtype == CN_DTYPE_F64);
  int64_t n = cn_tensor_numel (out);
  if (t_in[0] == NULL)
    {
      for (int64_t o = 0; o < n; o++)
        t_out[o] = 0;
      return CN_OK;
    }
  int64_t *j;
  cn_status st;
  if ((st = slice_map (nv, &j, err)) != CN_OK)
    return st;
  for (int64_t o = 0; o < n; o++)
    t_out[o] = t_in[0][j[o]];
  /* now t_out is t_in gathered through j */
  free (j);
  return CN_OK;
}

static const cn_port_kind slice_ports[1] = { CN_PORT_ELEMENT };

const struct cn_op_rule cn__rule_SLICE = { .op = CN_OP_SLICE,
  .n_in = 1, .in_kind = slice_ports, .check = slice_check,
  .out_sort = slice_out_sort, .forward = slice_forward,
  .pullback = slice_pullback, .jvp = slice_jvp, .ibp = slice_ibp, .ibp_mpfi = slice_mpfi, .crown = slice_crown,
  .roundoff32 = cn__roundoff32_exact, .certs = CN__CERTS (CN__CERT_GRADIENT, CN__CERT_BOUNDS, CN__CERT_ROUNDOFF32 (CN__ROUNDOFF32_EXACT_WHY)),
};

/* ---- indices ----------------------------------------------------------------------------- */

static cn_status
indices_check (const struct cn_op_rule *rule, const void *p, int n_in, const cn_shape *const *in, cn_shape *out, cn_error *err)
{
  (void) rule;
  const cn_params_indices *ip = p;
  cn_status st;
  if (ip == NULL)
    return cn_error_set (err, CN_EINVAL, "indices: missing attributes");
  if (n_in != 1)
    return cn_error_set (err, CN_EINVAL, "indices: takes 1 input, got %d", n_in);
  if ((st = cn__shape_valid ("indices", "input", in[0], err)) != CN_OK)
    return st;
  if (ip->axis < 0 || ip->axis >= in[0]->rank)
    return cn_error_set (err, CN_EINVAL, "indices: axis %d out of range for rank %d", ip->axis, in[0]->rank);
  if (in[0]->dim[ip->axis] > ((int64_t) 1 << 53))
    return cn_error_set (err, CN_EINVAL, "indices: extent %lld of axis %d is not exact in binary64",
                         (long long) in[0]->dim[ip->axis], ip->axis);
  *out = cn__shape_clean (in[0]);
  return CN_OK;
}

/* The index along the axis of output entry O: (O / stride) mod extent. */
static inline int64_t
indices_at (const cn_node_view *nv, int64_t o)
{
  int ax = ((const cn_params_indices *) nv->params)->axis;
  int64_t str[CN_MAX_RANK];
  cn__strides (nv->out_shape, str);
  return (o / str[ax]) % nv->out_shape->dim[ax];
}

static cn_status
indices_forward (const cn_node_view *nv, const cn_tensor *const *in, cn_tensor *out, cn_error *err)
{
  (void) in;
  (void) err;
  int64_t n = cn__numel (nv->out_shape);
  CN__ASSERTD (cn_dtype_is_float (out->dtype) && cn_tensor_numel (out) == n);
  for (int64_t o = 0; o < n; o++)
    if (out->dtype == CN_DTYPE_F64)
      ((double *) out->data)[o] = (double) indices_at (nv, o);
    else
      ((float *) out->data)[o] = (float) indices_at (nv, o);
  return CN_OK;
}

static cn_status
indices_pullback (const cn_node_view *nv, const cn_tensor *const *in, const cn_tensor *out, const double *g_out,
                  double *const *g_in, cn_error *err)
{
  (void) in;
  (void) g_out;
  (void) g_in;
  (void) err;
  CN__ASSERTD (out->dtype == CN_DTYPE_F64 && cn_tensor_numel (out) == cn__numel (nv->out_shape));
  /* nothing to add: the input port is frozen and the output does not depend on its values */
  return CN_OK;
}

static cn_status
indices_jvp (const cn_node_view *nv, const cn_tensor *const *in, const cn_tensor *out, const double *const *t_in,
             double *t_out, cn_error *err)
{
  (void) in;
  (void) t_in;
  (void) err;
  int64_t n = cn__numel (nv->out_shape);
  CN__ASSERTD (out->dtype == CN_DTYPE_F64 && cn_tensor_numel (out) == n);
  for (int64_t o = 0; o < n; o++)
    t_out[o] = 0;
  return CN_OK;
}

static cn_status
indices_ibp (const cn_node_view *nv, const cn_box *const *in, cn_box *out, cn_error *err)
{
  (void) in;
  (void) err;
  CN__ASSERTD (out->n == cn__numel (nv->out_shape));
  for (int64_t o = 0; o < out->n; o++)
    out->lo[o] = out->hi[o] = (double) indices_at (nv, o);
  return CN_OK;
}

static cn_status
indices_mpfi (const cn_node_view *nv, const cn_mpfi_vec *const *in, cn_mpfi_vec *out, cn_error *err)
{
  (void) in;
  (void) err;
  CN__ASSERTD (out->n == cn__numel (nv->out_shape));
  for (int64_t o = 0; o < out->n; o++)
    mpfi_set_d (out->v[o], (double) indices_at (nv, o));
  return CN_OK;
}

/* The output is a constant c: lam . v = lam . c goes into the bias, fl(lam . c) with its (G)
 * error and the rounding of the addition charged (cn__crown_add_sum); no input coefficient. */
static cn_status
indices_crown (const cn_crown_step *st, cn_error *err)
{
  (void) err;
  const cn_node_view *nv = st->nv;
  int64_t n = cn__numel (nv->out_shape);
  for (int64_t s = 0; s < st->rows; s++)
    {
      const double *lo = st->lam_out + s * n;
      double d = 0, t = 0;
      int64_t c = 0;
      for (int64_t o = 0; o < n; o++)
        {
          double x = (double) indices_at (nv, o);
          if (lo[o] == 0 || x == 0)
            continue;
          d += lo[o] * x;
          t += fabs (lo[o]) * x;
          c++;
        }
      cn__crown_add_sum (st, s, d, t, c, 0);
    }
  return CN_OK;
}

static const cn_port_kind indices_ports[1] = { CN_PORT_FROZEN };

const struct cn_op_rule cn__rule_INDICES = { .op = CN_OP_INDICES,
  .n_in = 1, .in_kind = indices_ports, .check = indices_check,
  .forward = indices_forward, .pullback = indices_pullback, .jvp = indices_jvp, .ibp = indices_ibp,
  .ibp_mpfi = indices_mpfi, .crown = indices_crown,
  .certs = CN__CERTS (CN__CERT_BOUNDS),
};
