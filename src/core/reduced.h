/* SPDX-License-Identifier: MIT */
/* src/core/reduced.h: the reduced floating formats' limits (src/core/tensor.c), for the arms that
 * bound a rounding into them.  Internal. */
#ifndef CN_CORE_REDUCED_H
#define CN_CORE_REDUCED_H

#include "certnn/tensor.h"

/* The reduced format T (f16 or bf16): its precision *P (significand bits, 11 and 8), its least
 * subnormal *Q and the least magnitude *OVERFLOW that rounds to infinity (its largest number
 * plus half its ulp, 65520 for f16); all exact.  0 for another T. */
int cn__reduced_limits (cn_dtype t, int *p, double *q, double *overflow);

#endif
