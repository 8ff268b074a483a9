/* SPDX-License-Identifier: MIT */
/* certnn/mpfi_vec.h: vectors of MPFI intervals, in caller storage.
 *
 * The operators' MPFI arms (the reference every soundness test compares against) read and write
 * these; certnn/reference.h runs whole graphs through them.  Brings in mpfi.h, which is why
 * certnn/certnn.h does not include it. */
#ifndef CERTNN_MPFI_VEC_H
#define CERTNN_MPFI_VEC_H

#include <stdint.h>
#include <mpfi.h>
#include "certnn/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cn_mpfi_vec
{
  int64_t n;
  mpfi_t *v;        /* owned; n intervals of one precision */
} cn_mpfi_vec;

/* Initialises X with N intervals [0, 0] of precision PREC.  On failure X is left empty. */
CN_API cn_status cn_mpfi_vec_init (cn_mpfi_vec *x, int64_t n, mpfr_prec_t prec, cn_error *err);
CN_API void cn_mpfi_vec_clear (cn_mpfi_vec *x);         /* X may be already clear */

#ifdef __cplusplus
}
#endif
#endif
