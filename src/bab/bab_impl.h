/* SPDX-License-Identifier: MIT */
/* src/bab/bab_impl.h: the verifier's shared state, points and attacks (internal).
 *
 * A candidate counterexample goes through two filters: a binary64 evaluation of the network
 * (cheap; rejects points whose clause is clearly violated) and then cn_verify_check_point, the
 * exact MPFI evaluation, which alone decides.  A point is always first moved into the case's
 * exact box and onto binary32 numbers (cn__point_inside), the sort the competition's checker
 * evaluates in. */
#ifndef CN_BAB_IMPL_H
#define CN_BAB_IMPL_H

#include <stdint.h>
#include "certnn/env.h"
#include "certnn/reference.h"
#include "certnn/verify.h"
#include "core/clock.h"

/* The precision of the exact check. */
#define CN__CHECK_PREC 256

typedef struct cn__verifier
{
  const cn_graph *g;
  const cn_spec *spec;
  cn_verify_opts opts;
  int threads;
  double t0, deadline;           /* seconds on the monotonic clock; deadline +inf without timeout */
  int stop;                      /* set (atomically) on a counterexample, a failure or the deadline */
  /* the counterexample, written once under the critical section "cn_verify_found" */
  int found;
  int64_t found_case, found_clause;
  double *cex_x, *cex_y;
  /* the first failure of a worker */
  cn_status fail;
  cn_error fail_err;
  int64_t domains;               /* updated atomically */
  double domain_cost;            /* seconds of the costliest domain bounding so far, where a search
                                    starts a domain only if it fits before the deadline */
  int64_t attack_points;
  int64_t binary32_rejected;     /* exact counterexamples that fail in binary32 (atomically) */
  int64_t filter_overruled;      /* candidates the binary64 filter called violated by a margin that the
                                    point enclosure could not exclude, checked exactly (atomically) */
  uint64_t rng;                  /* the attacks' generator state (main thread only) */
  /* the certificate being written (opts.certificate; written under the unnamed critical section) */
  int64_t cert_nodes, cert_refs;  /* node and refutation lines written */
  int cert_failed;               /* a write failed */
  int cert_nomem;                /* memory ran out keeping what the certificate records */
  int64_t *cert_rows;            /* scratch: one refutation's row list */
  int64_t uncertified;           /* cases left unknown for want of a certifiable search */
  int *relaxed;                  /* the relaxed values (cn__proof_relaxed_values), whose boxes a
                                    certificate's node carries; relaxed_n their sizes */
  int64_t *relaxed_n;
  int n_relaxed;
  int64_t relaxed_numel;         /* the sum of relaxed_n */
  int *relus;                    /* the relu nodes (cn__proof_relus), whose lower slopes a
                                    ReLU-split refutation records; relus_numel their sizes' sum */
  int n_relus;
  int64_t relus_numel;
} cn__verifier;

/* Whether the verifier should stop (a counterexample, a failure, or the deadline passed). */
int cn__should_stop (cn__verifier *v);

/* Uniform double in [0, 1) from the generator (splitmix64). */
double cn__uniform (uint64_t *state);

/* Moves X into the exact box of case K: every entry strictly between the rounded ends (the
 * exact end may not be a double) or equal to both ends of a degenerate axis, and a binary32
 * number where one lies strictly inside.  Writes OUT (n_x entries; may alias X). */
void cn__point_inside (const cn__verifier *v, int64_t k, const double *x, double *out);

/* The largest row violation max_r (M_r y - RD(rhs_r)) of clause J of case K at the binary64
 * output Y (n_y entries); <= 0 means every row holds in binary64. */
double cn__clause_violation (const cn__verifier *v, int64_t k, int64_t j, const double *y, int64_t *row);

/* Evaluates the network at X in binary64 into Y (n_y entries). */
cn_status cn__eval_point (const cn__verifier *v, const double *x, double *y, cn_error *err);

/* Tries X (moved inside first) as a counterexample of clause J of case K: binary64 filter,
 * then the exact check; on success records it in V (once) and sets V->stop.  *VIOL (if VIOL is
 * not NULL) is lowered to the point's binary64 clause violation.  Returns 1 on a confirmed
 * counterexample, 0 if not, -1 on a failure (ERR set).  Thread-safe. */
int cn__try_point (cn__verifier *v, int64_t k, int64_t j, const double *x, double *viol, cn_error *err);

/* The attacks (src/bab/attack.c) on every clause of case K before the search: up to
 * OPTS.random_samples random points (each coordinate at an end of the box or uniform inside,
 * for at most a fiftieth of the time limit; every clause is tried at each), then
 * OPTS.attack_restarts PGD runs of OPTS.attack_steps steps per clause, starting from the best
 * random points kept, the box centre, then fresh random points.  Returns 1 on a counterexample
 * (recorded in V), 0 if none was found, -1 on a failure. */
int cn__attack_case (cn__verifier *v, int64_t k, cn_error *err);

/* One PGD run on clause J of case K from X0 (inside the box), STEPS steps, inside the box
 * [LO, HI] (a sub-box of the case's).  Same returns as cn__attack_case. */
int cn__pgd (cn__verifier *v, int64_t k, int64_t j, const double *lo, const double *hi, const double *x0,
             int steps, cn_error *err);

#endif
