/* SPDX-License-Identifier: MIT */
/* src/ops/shape.c: shape helpers shared by the rule files. */
#include <config.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "ops/ops_impl.h"

int64_t
cn__numel (const cn_shape *s)
{
  return cn_shape_numel (s);
}

void
cn__strides (const cn_shape *s, int64_t *stride)
{
  int64_t acc = 1;
  for (int i = s->rank - 1; i >= 0; i--)
    {
      stride[i] = acc;
      acc *= s->dim[i];
    }
}

cn_status
cn__shape_valid (const char *op, const char *what, const cn_shape *s, cn_error *err)
{
  if (s == NULL || s->rank < 0 || s->rank > CN_MAX_RANK)
    return cn_error_set (err, CN_EINVAL, "%s: %s has an invalid rank", op, what);
  for (int a = 0; a < s->rank; a++)
    if (s->dim[a] < 0)
      return cn_error_set (err, CN_EINVAL, "%s: %s has extent %lld on axis %d", op, what, (long long) s->dim[a], a);
  if (cn_shape_numel (s) < 0)
    return cn_error_set (err, CN_EINVAL, "%s: %s has too many elements", op, what);
  return CN_OK;
}

cn_status
cn__input_valid (const char *op, int i, const cn_shape *s, cn_error *err)
{
  char what[32];
  snprintf (what, sizeof what, "input %d", i);
  return cn__shape_valid (op, what, s, err);
}

cn_shape
cn__shape_clean (const cn_shape *s)
{
  cn_shape r;
  memset (&r, 0, sizeof r);
  r.rank = s->rank;
  for (int a = 0; a < s->rank; a++)
    r.dim[a] = s->dim[a];
  return r;
}

cn_status
cn__window_axis (const char *op, int axis, int64_t S, int64_t K, int64_t stride, int64_t dilation, int64_t pb,
                 int64_t pe, int64_t *O, cn_error *err)
{
  if (K < 1)
    return cn_error_set (err, CN_EINVAL, "%s: kernel extent %lld on spatial axis %d", op, (long long) K, axis);
  if (stride < 1)
    return cn_error_set (err, CN_EINVAL, "%s: stride %lld on spatial axis %d, expected at least 1", op,
                         (long long) stride, axis);
  if (dilation < 1)
    return cn_error_set (err, CN_EINVAL, "%s: dilation %lld on spatial axis %d, expected at least 1", op,
                         (long long) dilation, axis);
  if (pb < 0 || pe < 0)
    return cn_error_set (err, CN_EINVAL, "%s: negative padding (%lld, %lld) on spatial axis %d", op, (long long) pb,
                         (long long) pe, axis);
  int64_t span, padded;
  /* span = dilation (K - 1) + 1 and padded = S + pb + pe, both without overflow. */
  if (__builtin_mul_overflow (dilation, K - 1, &span) || __builtin_add_overflow (span, 1, &span)
      || __builtin_add_overflow (S, pb, &padded) || __builtin_add_overflow (padded, pe, &padded))
    return cn_error_set (err, CN_EINVAL, "%s: extents overflow on spatial axis %d", op, axis);
  if (padded < span)
    return cn_error_set (err, CN_ESHAPE,
                         "%s: output extent on spatial axis %d is not positive (padded input %lld, kernel span %lld)",
                         op, axis, (long long) padded, (long long) span);
  *O = (padded - span) / stride + 1;
  return CN_OK;
}

cn_status
cn__zero_jvp (const cn_node_view *nv, const cn_tensor *const *in, const cn_tensor *out, const double *const *t_in,
              double *t_out, cn_error *err)
{
  (void) in;
  (void) t_in;
  int64_t n = cn__numel (nv->out_shape);
  if (cn_tensor_numel (out) != n)
    return cn_error_set (err, CN_EINVAL, "%s: jvp output is not a tensor of the node's shape (node '%s')",
                         cn_op_name (nv->op), cn__node_name (nv));
  for (int64_t j = 0; j < n; j++)
    t_out[j] = 0;
  return CN_OK;
}

cn_status
cn__crown_own_box (const cn_crown_step *st, cn_error *err)
{
  const cn_node_view *nv = st->nv;
  int64_t n = cn__numel (nv->out_shape);
  int zero = 1;
  for (int64_t k = 0; k < st->rows * n && zero; k++)
    zero = st->lam_out[k] == 0;
  if (zero)
    return CN_OK;   /* lam_out . v = 0: nothing to add */
  cn_box box;
  cn_status s = cn_box_init (&box, n, err);
  if (s != CN_OK)
    return s;
  if ((s = nv->rule->ibp (nv, st->in_box, &box, err)) == CN_OK)
    cn__crown_add_box_min (st, &box);
  /* now bias[s] - charge[s] grew by at most min over the box of lam_out[s] . v, for every row */
  cn_box_clear (&box);
  return s;
}
