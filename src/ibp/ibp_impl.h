/* SPDX-License-Identifier: MIT */
/* src/ibp/ibp_impl.h: the IBP step shared by the engines (internal). */
#ifndef CN_IBP_IMPL_H
#define CN_IBP_IMPL_H

#include "graph/graph_impl.h"

/* Runs node K's IBP arm on BOXES (one initialised box per value; the inputs' boxes filled):
 * fills BOXES[out of K].  CN_EUNSUPPORTED without an arm, CN_EUNSOUND on a NaN or empty
 * result. */
cn_status cn__ibp_node (const cn_graph *g, int k, cn_box *boxes, cn_error *err);

#endif
