/* SPDX-License-Identifier: MIT */
/* src/crown/crown_impl.h: the CROWN engine (internal): the backward sweep and the tightening of
 * intermediate boxes.  The arms' side of a step (cn_crown_step, the charges and relaxation lines)
 * is the kit in src/sound/relax.h. */
#ifndef CN_CROWN_IMPL_H
#define CN_CROWN_IMPL_H

#include "certnn/bounds.h"
#include "graph/graph_impl.h"
#include "sound/relax.h"

/* Lower bounds of the ROWS linear functions C v over the input boxes, by one CROWN sweep from
 * value V of G using BOXES (one sound box per value) for every relaxation.  DEPENDS[w] is
 * nonzero iff value w depends on a graph input (others are concretised with their box).
 * LOWER receives ROWS numbers; -inf where nothing finite is proved.  INPUT_COEF, if not NULL,
 * receives ROWS x numel(graph input 0) the coefficients of that input in each row's linear
 * lower bound (the final Lambda_x, as computed in round-to-nearest: a guide, not a bound).
 * SLOPE (a cn_slope) selects the lower slopes of relaxing arms.  *DISCHARGED (if not NULL) is
 * increased once per node output discharged over its box for want of a relaxation (no CROWN arm,
 * or an arm that declined with CN_EUNSUPPORTED).  MEMO (if not NULL, one slot per value) gives
 * each step its node output's slot (cn_crown_step.memo); the caller frees the slots. */
cn_status cn__crown_sweep (const cn_graph *g, const cn_box *boxes, const unsigned char *depends, int v,
                           const double *c, int64_t rows, int threads, int slope, double *lower,
                           double *input_coef, int64_t *discharged, void **memo, cn_error *err);

/* With CN_METHOD_CROWN: tightens BOXES[V] (sound on entry, sound on exit) by CROWN sweeps over
 * the entries whose relaxation depends on them (src/crown/tighten.c), when V depends on the
 * graph input, feeds a relaxing operator and is not a first layer; intersects each sweep's box
 * with the old one.  OPTS gives the slopes and threads; DISCHARGED and MEMO as for
 * cn__crown_sweep.  CN_EUNSOUND on an empty intersection. */
cn_status cn__crown_tighten (const cn_graph *g, cn_box *boxes, const unsigned char *depends, int v,
                             const cn_bounds_opts *opts, int64_t *discharged, void **memo, cn_error *err);

#endif
