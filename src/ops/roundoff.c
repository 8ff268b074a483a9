/* SPDX-License-Identifier: MIT */
/* src/ops/roundoff.c: the ROUNDOFF32 hooks that several families share (the binary32 semantics,
 * certnn/bounds.h; the error model (M32) and (G32) is in src/sound/sound.h).  An operator's rule
 * names one of these, or its own beside the rule, and states in its binary32_roundoff record
 * which it is and why it applies. */
#include <config.h>
#include <math.h>
#include <string.h>
#include "ops/ops_impl.h"

/* Exact in binary32: the output entries are input words themselves, or the exact result of an
 * operation whose result is a binary32 word (relu, max, min, negation, absolute value, the
 * roundings to an integer, the movement family): E = 0. */
cn_status
cn__roundoff32_exact (const cn_node_view *nv, const cn_box *const *in, const cn_box *out, double *e, cn_error *err)
{
  (void) nv;
  (void) in;
  (void) err;
  memset (e, 0, (size_t) out->n * sizeof *e);
  return CN_OK;
}

/* One correctly rounded binary32 operation per entry (sum, difference, product, quotient, square
 * root): by (M32) E[j] = u32 max(|lo_j|, |hi_j|) + eta32 over OUT, the exact result's box; +inf
 * where the result may overflow. */
cn_status
cn__roundoff32_rounded (const cn_node_view *nv, const cn_box *const *in, const cn_box *out, double *e,
                        cn_error *err)
{
  (void) nv;
  (void) in;
  (void) err;
  for (int64_t j = 0; j < out->n; j++)
    e[j] = cn__b32_one_err (fmax (fabs (out->lo[j]), fabs (out->hi[j])));
  return CN_OK;
}
