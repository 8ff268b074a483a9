/* SPDX-License-Identifier: MIT */
/* src/ops/normalization_impl.h: what src/ops/layer_norm.c shares with src/ops/normalization.c
 * (internal): the outward interval product of their IBP arms, and layerNorm's binary64 row
 * normalisation, which batchNorm's derivative arms reuse.  The mathematics and rounding
 * statements are in those files' headers. */
#ifndef CN_NORMALIZATION_IMPL_H
#define CN_NORMALIZATION_IMPL_H

#include <math.h>
#include "ops/ops_impl.h"

/* [*lo, *hi] contains every product of a real in [al, ah] and one in [bl, bh]: each corner product
 * is rounded outward (RN is monotone, so the RN extreme corner is the rounding of the exact one);
 * 0 times anything is 0, and a NaN end becomes an infinite one. */
static inline void
cn__norm_imul (double al, double ah, double bl, double bh, double *lo, double *hi)
{
  double p1 = cn__mul0 (al, bl), p2 = cn__mul0 (al, bh), p3 = cn__mul0 (ah, bl), p4 = cn__mul0 (ah, bh);
  double l = cn__down (fmin (fmin (p1, p2), fmin (p3, p4)));
  double h = cn__up (fmax (fmax (p1, p2), fmax (p3, p4)));
  *lo = isnan (l) ? -INFINITY : l;
  *hi = isnan (h) ? INFINITY : h;
}

/* src/ops/layer_norm.c.  xh = d r of one row X of N >= 1 entries, d and r formed as layerNorm's
 * forward forms them in binary64 (eps > 0); returns r. */
double cn__layer_norm_row_xhat (const double *x, int64_t N, double eps, double *xh);

#endif
