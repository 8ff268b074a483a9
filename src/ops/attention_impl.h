/* SPDX-License-Identifier: MIT */
/* src/ops/attention_impl.h: the softmax row kernels that src/ops/softmax.c shares with
 * src/ops/attention.c (internal).  Their mathematics, rounding and error statements are those of
 * softmax.c's header; the sound products of two boxes (the selection sums cn__itv_term,
 * cn__sum_lo, cn__sum_hi) are in src/sound/sound.h. */
#ifndef CN_ATTENTION_IMPL_H
#define CN_ATTENTION_IMPL_H

#include <mpfi.h>
#include "ops/ops_impl.h"

/* Softmax forward of ROWS contiguous rows of N entries each (X -> Y, row-major), in the tensor's
 * sort and in softmax.c's order: the max m and its first index, e_k = fl(exp(fl(x_k - m))), the
 * sum without the first maximum's term, y_k = fl(e_k / fl(1 + s')). */
void cn__softmax_rows_f64 (int64_t rows, int64_t n, const double *x, double *y);
void cn__softmax_rows_f32 (int64_t rows, int64_t n, const float *x, float *y);

/* Work space of cn__softmax_row_ibp for rows of at most CAP entries. */
typedef struct cn__sm_ibp_work
{
  int64_t cap;
  double *tu, *tl, *pu, *pl;
  mpfr_t t, e;                        /* 53 bits */
} cn__sm_ibp_work;

/* Returns 1, or 0 when out of memory (then nothing is left to clear). */
int cn__sm_ibp_work_init (cn__sm_ibp_work *w, int64_t cap);
void cn__sm_ibp_work_clear (cn__sm_ibp_work *w);

/* Sound IBP of softmax (LOG = 0) or logSoftmax (LOG = 1) over one row of K (1 <= K <= cap)
 * entries with boxes [LO[a], HI[a]], no NaN end (the caller refuses those): [OLO[a], OHI[a]]
 * contains y_a for every real x of the box (ALGORITHMS.md 1.6, MPFR with directed rounding);
 * softmax's ends lie in [0, 1]. */
void cn__softmax_row_ibp (cn__sm_ibp_work *w, int log, int64_t K, const double *lo, const double *hi, double *olo,
                          double *ohi);

/* Work space of cn__softmax_row_mpfi for rows of at most CAP entries at precision PREC. */
typedef struct cn__sm_mpfi_work
{
  int64_t cap;
  mpfr_t *PU, *PL, *TU, *TL;
  mpfr_t M, Ml, su, sl, A, e, lo, hi;
} cn__sm_mpfi_work;

/* Returns 1, or 0 when out of memory (then nothing is left to clear). */
int cn__sm_mpfi_work_init (cn__sm_mpfi_work *w, int64_t cap, mpfr_prec_t prec);
void cn__sm_mpfi_work_clear (cn__sm_mpfi_work *w);

/* The MPFI counterpart of cn__softmax_row_ibp: X[a] (K enclosures, no NaN) -> Y[a], the same
 * monotone formulas with every step rounded outward at the work space's precision. */
void cn__softmax_row_mpfi (cn__sm_mpfi_work *w, int log, int64_t K, mpfi_srcptr const *x, mpfi_ptr const *y);

#endif
