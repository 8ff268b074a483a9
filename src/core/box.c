/* SPDX-License-Identifier: MIT */
/* src/core/box.c: boxes in caller storage (the L-infinity ball, rounded outward, is in
 * src/sound/sound.c). */
#include <config.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "certnn/box.h"

cn_status
cn_box_init (cn_box *b, int64_t n, cn_error *err)
{
  memset (b, 0, sizeof *b);
  if (n < 0 || (uint64_t) n > SIZE_MAX / sizeof (double))
    return cn_error_set (err, CN_EINVAL, "box: invalid dimension %lld", (long long) n);
  b->lo = calloc (n ? (size_t) n : 1, sizeof (double));
  b->hi = calloc (n ? (size_t) n : 1, sizeof (double));
  if (b->lo == NULL || b->hi == NULL)
    {
      cn_box_clear (b);
      return cn_error_set (err, CN_ENOMEM, "box: cannot allocate %lld entries", (long long) n);
    }
  b->n = n;
  return CN_OK;
}

void
cn_box_clear (cn_box *b)
{
  if (b == NULL)
    return;
  free (b->lo);
  free (b->hi);
  b->lo = b->hi = NULL;
  b->n = 0;
}

cn_status
cn_box_copy (cn_box *dst, const cn_box *src, cn_error *err)
{
  cn_status st = cn_box_init (dst, src->n, err);
  if (st != CN_OK)
    return st;
  if (src->n > 0)
    {
      memcpy (dst->lo, src->lo, (size_t) src->n * sizeof (double));
      memcpy (dst->hi, src->hi, (size_t) src->n * sizeof (double));
    }
  return CN_OK;
}

cn_status
cn_box_validate (const cn_box *b, const char *what, cn_error *err)
{
  for (int64_t i = 0; i < b->n; i++)
    {
      if (isnan (b->lo[i]) || isnan (b->hi[i]))
        return cn_error_set (err, CN_EINVAL, "%s: NaN bound at %lld", what, (long long) i);
      if (b->lo[i] > b->hi[i])
        return cn_error_set (err, CN_EINVAL, "%s: empty interval at %lld: [%.17g, %.17g]", what,
                             (long long) i, b->lo[i], b->hi[i]);
    }
  return CN_OK;
}
