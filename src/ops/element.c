/* SPDX-License-Identifier: MIT */
/* src/ops/element.c: what the rules share about element sorts (certnn/ops.h, "element sorts"):
 * a sort's name in messages and the out_sort test of operators whose data ports hold one sort.
 * The word sorts' widths are cn__wsort_of (ops_impl.h). */
#include <config.h>
#include "ops/ops_impl.h"

const char *
cn__sort_name (cn_dtype t)
{
  if (cn_dtype_is_float (t))
    return "the model's scalar";
  return (unsigned) t < CN_DTYPE_COUNT ? cn_dtype_name (t) : "(invalid)";
}

cn_status
cn__sort_at (const char *op, int i, const cn_dtype *in, cn_dtype *s, cn_error *err)
{
  if ((unsigned) in[i] >= CN_DTYPE_COUNT)
    return cn_error_set (err, CN_EINVAL, "%s: input %d has an invalid sort %d", op, i, (int) in[i]);
  *s = cn_dtype_is_float (in[i]) ? CN_DTYPE_F64 : in[i];
  return CN_OK;
}

cn_status
cn__element_sort (const char *op, int n_in, const cn_dtype *in, cn_dtype *out, cn_error *err)
{
  if (n_in < 1)
    return cn_error_set (err, CN_EINVAL, "%s: takes at least 1 input, got %d", op, n_in);
  cn_dtype s0 = CN_DTYPE_F64, si = CN_DTYPE_F64;   /* set by cn__sort_at before any read */
  cn_status st = cn__sort_at (op, 0, in, &s0, err);
  for (int i = 1; i < n_in && st == CN_OK; i++)
    if ((st = cn__sort_at (op, i, in, &si, err)) == CN_OK && si != s0)
      return cn_error_set (err, CN_EINVAL, "%s: input %d holds %s where input 0 holds %s", op, i, cn__sort_name (si),
                           cn__sort_name (s0));
  if (st == CN_OK)
    *out = s0;
  /* now every input holds S0 (any floating sort read as the model's scalar, CN_DTYPE_F64) */
  return st;
}
