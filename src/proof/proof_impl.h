/* SPDX-License-Identifier: MIT */
/* src/proof/proof_impl.h: writing bound certificates in the format of certnn/proof.h, for the
 * branch-and-bound search (internal).  Each writer returns 0, or -1 when the stream failed. */
#ifndef CN_PROOF_IMPL_H
#define CN_PROOF_IMPL_H

#include <stdint.h>
#include <stdio.h>
#include "certnn/proof.h"

/* The format's name of the cn_slope SLOPE ("adaptive", "zero", "one", "ratio"), NULL if none;
 * and the slope named NAME, -1 if none. */
const char *cn__proof_slope_name (int slope);
int cn__proof_slope_lookup (const char *name);

/* The header: version, the two digests (64 hex digits each), the bounding method's name and the
 * intermediate sweeps' slope, the property's shape. */
int cn__proof_write_header (FILE *f, const char *network_sha256, const char *property_sha256, const char *method,
                            int slope, int64_t n_x, int64_t n_y, int64_t n_cases);
/* A node of case KASE with id ID: the root (PARENT < 0), or the child of PARENT split along
 * AXIS at MID, below (SIDE 0) or above (SIDE 1). */
int cn__proof_write_node (FILE *f, int64_t kase, int64_t id, int64_t parent, int64_t axis, double mid, int side);
/* A refutation of clause CLAUSE at the node written last: the sum of its rows ROWS[0 .. NROWS),
 * bounded with slope SLOPE: the claimed bound LOWER and the linear bound A . x + C (N entries). */
int cn__proof_write_refute (FILE *f, int64_t clause, const int64_t *rows, int64_t nrows, int slope, double lower,
                            double c, const double *a, int64_t n);
int cn__proof_write_end (FILE *f, int64_t nodes, int64_t refutations);
/* A node of case KASE with id ID below PARENT in a ReLU-split search: the parent's domain where
 * entry J of relaxed value Q is >= 0 (SIGN 1) or <= 0 (SIGN -1). */
int cn__proof_write_node_split (FILE *f, int64_t kase, int64_t id, int64_t parent, int q, int64_t j, int sign);
/* A node of case KASE with id ID that restates PARENT's domain, its boxes derived afresh (the
 * root of a ReLU-split search below an input-split node): PARENT's only child. */
int cn__proof_write_node_restart (FILE *f, int64_t kase, int64_t id, int64_t parent);
/* The node written last has an empty domain (no input meets its splits). */
int cn__proof_write_empty (FILE *f);
/* After a refute line: the lower slopes of relu R (the R-th of cn__proof_relus) the refutation's
 * sweep used, N entries, NaN written '.' (the refutation's slope policy). */
int cn__proof_write_alpha (FILE *f, int r, const double *alpha, int64_t n);
/* After a refute line (and its alpha lines): the beta-CROWN multipliers of the splits on the
 * node's path from its search's root, NB of them in path order. */
int cn__proof_write_beta (FILE *f, const double *beta, int64_t nb);
/* The relu nodes of G that output 0 depends on, in node order: *LIST (malloc'd; NULL when there
 * are none) their node numbers, *N their count.  -1 out of memory, else 0. */
int cn__proof_relus (const cn_graph *g, int **list, int *n);
/* Box line K: the box [LO, HI] (N entries) of the K-th relaxed value (below) that the node's
 * bounds relaxed with; an entry with hi <= 0 is written '-', one with lo >= 0 '+' (the claims
 * (-inf, 0] and [0, +inf): relu's relaxation depends on their sign alone). */
int cn__proof_write_box (FILE *f, int k, const double *lo, const double *hi, int64_t n);
/* The relaxed values of G, whose boxes a certificate's node carries: every value that a node
 * with a relaxing rule (CN_RULE_NEEDS_BOUNDS) reads, that is not a constant and that output 0
 * depends on, in increasing value number.  *LIST (malloc'd; NULL when there are none) receives
 * their numbers, *N their count.  -1 out of memory, else 0. */
int cn__proof_relaxed_values (const cn_graph *g, int **list, int *n);

#endif
