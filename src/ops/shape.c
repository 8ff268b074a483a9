/* SPDX-License-Identifier: MIT */
/* src/ops/shape.c: shape helpers shared by the rule files. */
#include <config.h>
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
