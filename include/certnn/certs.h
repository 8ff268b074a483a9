/* SPDX-License-Identifier: MIT */
/* certnn/certs.h: the evidence of the operators' certificate records (certnn/ops.h).
 *
 * cn_op_cert_check runs the evidence of one record on instances of its operator drawn from a
 * seed (the table's instance generators, src/ops/cases.h; the same seed draws the same
 * instances).  What runs today, per kind:
 *
 *   algebraic    at random points x, cotangents w and tangents t (t nonzero only at the
 *                record's input positions), <pullback(x; w), t> against <w, jvp(x; t)> through
 *                the one-node graph of the instance, relative error at most 1e-12 of the sum of
 *                the absolute products;
 *   convention   (one-input rules) at x = the stated point in every entry, the pullback's
 *                gradient is F0 w and the tangent F0 t, exactly.
 *
 * The derivative and enclosure records have no runner here yet: their statements are checked by
 * the test suite's generic loops (tests/check_tape.c: the pullback against MPFR central
 * differences at 256 bits; tests/check_ops.c: IBP and CROWN against the MPFI arm), and
 * cn_op_cert_check says CN_EUNSUPPORTED for them.  Sampled evidence is not a proof for all
 * inputs (cn_cert_scope says what each establishes). */
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
  double worst;        /* algebraic: the worst relative error seen; else 0 */
  char detail[512];    /* the failed check with its numbers, or a summary */
} cn_cert_result;

/* Runs the evidence of record I of OP on DRAWS instances drawn from SEED into RES.  CN_OK when
 * the evidence ran, whatever its verdict (RES->passed); CN_EINVAL for a record the table refuses
 * or DRAWS < 1; CN_EUNSUPPORTED for a kind without a runner (above) or an operator without an
 * instance generator; CN_ENOMEM. */
CN_API cn_status cn_op_cert_check (cn_op op, int i, uint64_t seed, int draws, cn_cert_result *res, cn_error *err);

/* What the evidence of a record of kind K establishes, in one sentence, and in *DOES_NOT what it
 * does not; NULL (and *DOES_NOT NULL) for a kind without a runner. */
CN_API const char *cn_cert_scope (cn_cert_kind k, const char **does_not);

#ifdef __cplusplus
}
#endif

#endif
