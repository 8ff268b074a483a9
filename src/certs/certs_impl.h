/* SPDX-License-Identifier: MIT */
/* src/certs/certs_impl.h: internal interfaces of the certificate evidence (src/certs).  The
 * instances of src/ops/cases.h are drawn in the table's layer, which knows no graph; the graph of
 * an instance is built here, one layer above the IR. */
#ifndef CN_CERTS_IMPL_H
#define CN_CERTS_IMPL_H

#include "certnn/graph.h"
#include "certnn/status.h"
#include "ops/cases.h"

/* Builds the graph of the operator instance C: one graph input "x" (f64, of length the sum of the
 * element counts of the varying ports, 1 if there are none), each varying port fed by a slice of
 * x reshaped to the port's shape (a Boolean port by gt(that, 0), an integer port by cast(that) to
 * its sort), each constant port drawn from R in its range (port by port, entry by entry: 0/1 for
 * a Boolean port, integers in [const_lo, const_hi] for const_integer or an integer sort, else
 * uniform reals) and converted exactly to its sort.  The graph's one output is output
 * c->out_index of the operator.  On success *OUT receives the graph (the caller frees it with
 * cn_graph_free) and the result is CN_OK; otherwise *OUT is untouched and the status of the
 * refusal (ERR says why: an instance the graph builder refuses, or CN_ENOMEM) is returned. */
cn_status cn__case_graph (const struct cn__op_case *c, cn__rng *r, cn_graph **out, cn_error *err);

/* cn_op_cert_check (certnn/certs.h) on record I of RULE, which the instances' nodes use in place
 * of the table's rule of the operator (a test passes a broken copy to see its record fail). */
struct cn_op_rule;
struct cn_cert_result;
cn_status cn__cert_check_rule (const struct cn_op_rule *rule, int i, uint64_t seed, int draws,
                               struct cn_cert_result *res, cn_error *err);

#endif
