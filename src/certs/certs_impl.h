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

/* Points every node of OP in G at RULE, and its views (src/certs/evidence.c). */
void cn__cert_use_rule (cn_graph *g, cn_op op, const struct cn_op_rule *rule);

/* The enclosure runners (src/certs/evidence_bounds.c): the record INFO of RULE's IBP arm and of
 * its CROWN arm, on DRAWS instances drawn from RNG (cn__cert_check_rule's contract). */
cn_status cn__cert_check_ibp (const struct cn_op_rule *rule, const cn_cert_info *info, cn__rng *rng, int draws,
                              struct cn_cert_result *res, cn_error *err);
cn_status cn__cert_check_crown (const struct cn_op_rule *rule, const cn_cert_info *info, cn__rng *rng, int draws,
                                struct cn_cert_result *res, cn_error *err);
/* The ROUNDOFF records' evidence (evidence_bounds.c): the binary32 forward inside the binary32
 * semantics' boxes, over points and over a box. */
cn_status cn__cert_check_roundoff (const struct cn_op_rule *rule, const cn_cert_info *info, cn__rng *rng, int draws,
                                   struct cn_cert_result *res, cn_error *err);
/* The checker step's evidence (evidence_bounds.c). */
cn_status cn__cert_check_checker (const struct cn_op_rule *rule, const cn_cert_info *info, cn__rng *rng, int draws,
                                struct cn_cert_result *res, cn_error *err);

/* Draws a random instance of custom into C (cleared first; c->op = CN_OP_CUSTOM), whose program
 * is one of the seven of src/certs/case_custom.c, from R (the tests draw custom's instances
 * through it too: a seed gives the same instances in both).  The instance borrows its programs: PROGRAMS (room for
 * CN__CASE_CUSTOM_PROGRAMS) receives every graph built, *N_PROGRAMS their count, and the caller
 * frees them with cn_graph_free once C is no longer used, on failure too.  CN_OK, or the status
 * of the first step that failed (ERR says why; CN_ENOMEM). */
#define CN__CASE_CUSTOM_PROGRAMS 2
cn_status cn__case_custom (cn__rng *r, struct cn__op_case *c, cn_graph **programs, int *n_programs,
                           cn_error *err);

/* An instance of any operator with what it borrows: the table's generators
 * (cn__op_case_draw, element sorts off) for all but custom, cn__case_custom for custom. */
struct cn__cert_case
{
  struct cn__op_case c;
  cn_graph *programs[CN__CASE_CUSTOM_PROGRAMS];
  int n_programs;
};

/* Draws an instance of OP from R into CC.  CN_OK when drawn; CN_EUNSUPPORTED when OP has no
 * generator; otherwise the status of a failure; ERR says why.  Whatever the result, the caller
 * calls cn__cert_case_clear (CC) when done with it. */
cn_status cn__cert_case_draw (cn_op op, cn__rng *r, struct cn__cert_case *cc, cn_error *err);
void cn__cert_case_clear (struct cn__cert_case *cc);

/* Draws an instance of OP from R into CC (cn__cert_case_draw) and, unless ONLY_CROWN is set and
 * the instance lies outside the CROWN arm's scope (crown_ok), builds its graph into *G
 * (cn__case_graph) with its nodes of OP using RULE (cn__cert_use_rule).  CN_OK with *G the
 * graph: the caller frees it, then clears CC.  CN_OK with *G NULL: the instance is to be drawn
 * again (outside the scope, or refused by the graph builder), CC already cleared.  Any other
 * status: ERR says why (no generator, out of memory), CC already cleared. */
cn_status cn__cert_instance (const struct cn_op_rule *rule, cn_op op, int only_crown, cn__rng *r,
                             struct cn__cert_case *cc, cn_graph **g, cn_error *err);

#endif
