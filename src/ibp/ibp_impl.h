/* SPDX-License-Identifier: MIT */
/* src/ibp/ibp_impl.h: the IBP step shared by the engines (internal). */
#ifndef CN_IBP_IMPL_H
#define CN_IBP_IMPL_H

#include "graph/graph_impl.h"

/* Runs node K's IBP arm on BOXES (one initialised box per value; the inputs' boxes filled):
 * fills BOXES[out of K].  CN_EUNSUPPORTED without an arm, CN_EUNSOUND on a NaN or empty
 * result. */
cn_status cn__ibp_node (const cn_graph *g, int k, cn_box *boxes, cn_error *err);

/* IBP over the whole program G: the boxes IN (one per graph input, read in place), degenerate
 * boxes [c, c] of the constants' exact binary64 copies, then the nodes that graph output OUTPUT
 * depends on, in node order, through their IBP arms.  Copies the output's box into Y (initialised
 * by the caller with the output's number of entries).  Every arm encloses its node's exact values
 * over its input boxes, so by induction Y encloses the output for every real point of IN. */
cn_status cn__graph_ibp (const cn_graph *g, const cn_box *const *in, int output, cn_box *y, cn_error *err);

/* The same through the MPFI arms at precision PREC (the reference): IN one enclosure per graph
 * input (read in place), Y initialised by the caller (the output's entries, any precision). */
cn_status cn__graph_mpfi (const cn_graph *g, const cn_mpfi_vec *const *in, int output, mpfr_prec_t prec,
                          cn_mpfi_vec *y, cn_error *err);

#endif
