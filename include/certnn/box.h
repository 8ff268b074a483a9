/* SPDX-License-Identifier: MIT */
/* certnn/box.h: boxes (products of closed intervals) in caller storage.
 *
 * A box of dimension n holds lo[i] <= hi[i] for every i; the ends are binary64 numbers taken
 * as exact reals, and may be infinite where nothing finite is known. */
#ifndef CERTNN_BOX_H
#define CERTNN_BOX_H

#include <stdint.h>
#include "certnn/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cn_box
{
  int64_t n;
  double *lo;      /* owned, n entries */
  double *hi;      /* owned, n entries */
} cn_box;

/* Initialises B with N entries all equal to [0, 0]. */
CN_API cn_status cn_box_init (cn_box *b, int64_t n, cn_error *err);
CN_API void cn_box_clear (cn_box *b);                   /* B may be already clear */
CN_API cn_status cn_box_copy (cn_box *dst, const cn_box *src, cn_error *err);   /* initialises DST */
/* CN_OK if every lo[i] <= hi[i] and no end is NaN; otherwise CN_EINVAL naming the first bad
 * entry ("empty box at 3: [1, 0]").  WHAT names the box in the message. */
CN_API cn_status cn_box_validate (const cn_box *b, const char *what, cn_error *err);
/* Initialises B as the L-infinity ball of radius EPS >= 0 around X0, rounded outward:
 * lo = RD(x0 - eps), hi = RU(x0 + eps), so the ball is inside the box. */
CN_API cn_status cn_box_init_linf (cn_box *b, int64_t n, const double *x0, double eps, cn_error *err);

#ifdef __cplusplus
}
#endif
#endif
