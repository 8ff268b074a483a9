/* SPDX-License-Identifier: MIT */
/* certnn/certs.h: the evidence of the operators' certificate records (certnn/ops.h).
 *
 * cn_op_cert_check runs the evidence of one record on instances of its operator drawn from a
 * seed (the table's instance generators, src/ops/cases.h, and custom's; the same seed draws the
 * same instances), through the instance's one-node graph.  Per kind:
 *
 *   algebraic    at random points x, cotangents w and tangents t (t nonzero only at the
 *                record's input positions), <pullback(x; w), t> against <w, jvp(x; t)>, relative
 *                error at most 1e-12 of the sum of the absolute products;
 *   derivative   the pullback's <pullback(x; w), t> (or the jvp's <w, jvp(x; t)>) against the
 *                central difference, step 2^-30, of <w, f(x + s t)> with f evaluated exactly by
 *                the MPFI reference at 256 bits, to 1e-6 relative; a probe at a kink (the second
 *                difference shows it) is drawn again;
 *   convention   (one-input rules) at x = the stated point in every entry, the pullback's
 *                gradient is F0 w and the tangent F0 t, exactly;
 *   enclosure    IBP: over random boxes (points, tiny, wide) and their halves and quarters, the
 *                arm's box contains the MPFI arm's enclosure of the same box and the exact value
 *                at its corners and random points.  CROWN: one backward step of the arm over
 *                random input boxes, random rows (some scaled by 2^40), every lower-slope choice
 *                and, for an arm with free parameters, random valid ones: for every row s and
 *                sampled point x (corners, inside, beside multiples of 1/2), in MPFI,
 *                lam_out[s] . f(x) >= sum_i lam_in_i[s] . x_i + bias[s] - charge[s].
 *
 * Sampled evidence is not a proof for all inputs; cn_cert_scope says what each establishes and
 * what it does not. */
#ifndef CERTNN_CERTS_H
#define CERTNN_CERTS_H

#include <stdint.h>
#include "certnn/ops.h"
#include "certnn/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cn_cert_result
{
  int passed;          /* 1: the evidence ran at least one check and every check held */
  int64_t checks;      /* the checks that ran (one per probe) */
  int64_t redrawn;     /* probes drawn again: a value that is not finite, an instance the graph
                          builder refused */
  unsigned exercised;  /* the input positions the checks varied (bit i: input i) */
  double worst;        /* algebraic and derivative: the worst relative error seen; else 0 */
  char detail[512];    /* the failed check with its numbers, or a summary */
} cn_cert_result;

/* Runs the evidence of record I of OP on DRAWS instances drawn from SEED into RES.  CN_OK when
 * the evidence ran, whatever its verdict (RES->passed); CN_EINVAL for a record the table refuses
 * or DRAWS < 1; CN_EUNSUPPORTED for a kind without a runner (above) or an operator without an
 * instance generator; CN_ENOMEM. */
CN_API cn_status cn_op_cert_check (cn_op op, int i, uint64_t seed, int draws, cn_cert_result *res, cn_error *err);

/* What the evidence of a record of kind K about arm A establishes, in one sentence, and in
 * *DOES_NOT what it does not; NULL (and *DOES_NOT NULL) for a kind without a runner. */
CN_API const char *cn_cert_scope (cn_cert_kind k, cn_cert_arm a, const char **does_not);

#ifdef __cplusplus
}
#endif

#endif
