/* SPDX-License-Identifier: MIT */
/* certnn/reference.h: the MPFI reference, for tests and audits, not for speed.
 *
 * cn_reference_ibp evaluates every operator's MPFI arm over boxes held as MPFI intervals at a
 * chosen precision.  On a degenerate box (lo == hi) it is a point evaluation whose enclosure is
 * as tight as the precision allows: the oracle every soundness test compares against. */
#ifndef CERTNN_REFERENCE_H
#define CERTNN_REFERENCE_H

#include "certnn/box.h"
#include "certnn/mpfi_vec.h"
#include "certnn/graph.h"

#ifdef __cplusplus
extern "C" {
#endif


/* IBP of G in MPFI at PREC bits over INPUT (G has one input; or none, INPUT NULL, for a graph of
 * constants).  OUT is initialised here with the enclosure of graph output 0.  CN_EUNSUPPORTED if
 * some operator on the way has no MPFI arm. */
CN_API cn_status cn_reference_ibp (const cn_graph *g, const cn_mpfi_vec *input, mpfr_prec_t prec,
                                   cn_mpfi_vec *out, cn_error *err);

/* The same pass over the binary64 box INPUT (validated; ends taken exactly when PREC >= 53,
 * else rounded outward), with the enclosure of output 0 rounded outward to binary64: OUT
 * (initialised here) contains the MPFI enclosure, hence the exact output over INPUT.  An end
 * MPFI leaves NaN (an operator outside its domain) becomes -inf or +inf.  CN_EINVAL if PREC
 * is outside [MPFR_PREC_MIN, MPFR_PREC_MAX]. */
CN_API cn_status cn_reference_output_box (const cn_graph *g, const cn_box *input, mpfr_prec_t prec,
                                          cn_box *out, cn_error *err);

#ifdef __cplusplus
}
#endif
#endif
