/* SPDX-License-Identifier: MIT */
/* certnn/verify.h: complete verification of a VNN-LIB property by branch and bound.
 *
 * cn_verify decides whether some input of the property's input set makes its unsafe output
 * condition true (certnn/spec.h).  The answer is one of
 *   CN_VERDICT_UNSAT    proved: every clause of every case is refuted on every input box of a
 *                       finite cover of the case's box, each refutation a sound CROWN lower
 *                       bound (certnn/bounds.h) above RU(rhs);
 *   CN_VERDICT_SAT      a counterexample: a point x of the case's exact (unrounded) box, each
 *                       entry a binary32 number, whose output y = f(x), evaluated in MPFI at
 *                       256 bits on the stored weights, satisfies every row of one clause
 *                       exactly (sup(M y) <= RD(rhs)), and also when the network is evaluated
 *                       in binary32 (cn_graph_eval in CN_DTYPE_F32 at x rounded to binary32, as
 *                       the competition replays it with zero output tolerance; a point that holds
 *                       exactly but not there is counted in binary32_rejected and the search goes
 *                       on); x and an approximation of y are returned;
 *   CN_VERDICT_UNKNOWN  neither (the input is too large to split, or a box cannot be split
 *                       further);
 *   CN_VERDICT_TIMEOUT  the time limit was reached first.
 * It never answers wrongly: what is not proved or exhibited is unknown.
 *
 * Under the binary32 semantics (opts.bounds.semantics, certnn/bounds.h) the verdicts are about
 * the network as deployed: UNSAT means no binary32 input of the set, the network evaluated in
 * binary32 in any order of its sums (with or without fused multiply-adds), violates the
 * property (every refutation a binary32 bound); SAT needs a binary32 input x of the exact box
 * whose binary32 point enclosure (IBP over [x, x] under the binary32 semantics, which holds
 * every such evaluation) satisfies every row of one clause on the whole enclosure, so every
 * order violates the property, whatever onnxruntime or PyTorch sums first; y is then certnn's own
 * binary32 evaluation.  A candidate that violates the property in some orders only is not a
 * counterexample there: the search goes on and may end unknown.
 *
 * Under the real semantics a candidate whose binary64 evaluation satisfies the clause's rows by a
 * wide margin is dropped only when the sound enclosure of its exact outputs (IBP over the point)
 * excludes the clause too; otherwise it is checked exactly (filter_overruled counts these), so
 * a network whose floating evaluation cancels does not hide an exact counterexample.
 *
 * Method (ALGORITHMS.md section 5): attacks (random points, then PGD on the clause margin with
 * gradients from cn_graph_gradient), then branch and bound by input splitting:
 * domains are boxes bounded by the chosen method (CROWN by default; with `slopes`, the best of
 * the adaptive and the three fixed relu lower slopes per row), processed in batches in parallel
 * (OpenMP, one domain per thread), taken alternately by the worst lower bound (what a proof
 * needs) and by the least binary64 violation seen at their points (where a counterexample is
 * likeliest); a clause's rows are also bounded summed (all, and pairs).  A domain is split in two along
 * the input dimension with the best score of ALGORITHMS.md 5.4; with `lookahead`, also along the
 * widest dimension (in the input's units), and the pair of children whose worse child bounds
 * better is kept; with `clip`, each bounded domain's box is first shrunk to the hull of the parts
 * where its open clauses can hold by their rows' linear lower bounds.  The queue is capped; past
 * the cap, domains are searched depth first.  Every bounded domain's centre and minimising corners are tried as counterexamples, and a short PGD
 * runs inside the most promising queued domain now and then.  Input splitting applies to a case whose
 * box has at most input_split_max free axes (lo < hi; CN_VERIFY_SPLIT_MAX by default, as
 * alpha-beta-CROWN splits inputs of at most 20 entries), and to one with at most
 * CN_VERIFY_SPLIT_MAX_NO_RELU when the network has no relu to split or its ReLU search (below) ends
 * with a leaf it cannot decide before the deadline (with a time limit).  A larger input is searched by
 * ReLU splitting (relu_split): a domain is the case's box with sign constraints z_j >= 0 or
 * z_j <= 0 on entries of relu inputs (cn_analysis_create_split), its intermediate boxes the
 * root's alpha-CROWN ones, inherited (relu_refine: CROWN in every domain), bounded by CROWN and
 * then, with `beta`, by alpha-beta-CROWN (a multiplier per split and the relus' slopes optimised,
 * warm-started from the parent's); a domain whose relus are all stable by the LP bound
 * (cn_analysis_lower_lp), its minimiser tried as a counterexample; an empty domain refuted.  The
 * entry split is chosen by filtered smart branching among BaBSR's best `fsb`, depth first, the
 * children of domains near the root as OpenMP tasks, every domain's minimising corner tried as
 * a counterexample.  Before the search: a short attack, one bound of each case's box, then the
 * full attacks on the cases still open.  Without a time limit at most 65536 domains are bounded
 * per case (then unknown). */
#ifndef CERTNN_VERIFY_H
#define CERTNN_VERIFY_H

#include <stdint.h>
#include <stdio.h>
#include "certnn/bounds.h"
#include "certnn/spec.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CN_VERIFY_SPLIT_MAX 20         /* free input axes split by default */
#define CN_VERIFY_SPLIT_MAX_NO_RELU 64 /* ... and where the network has no relu to split */

typedef enum cn_verdict
{
  CN_VERDICT_UNSAT,
  CN_VERDICT_SAT,
  CN_VERDICT_UNKNOWN,
  CN_VERDICT_TIMEOUT
} cn_verdict;

CN_API const char *cn_verdict_name (cn_verdict v);     /* "unsat", "sat", "unknown", "timeout" */

/* What a progress callback sees (called from the calling thread, at most every
 * progress_interval seconds). */
typedef struct cn_verify_progress
{
  int64_t case_index, n_cases;
  int64_t domains_done;      /* domains bounded so far (all cases) */
  int64_t domains_queued;    /* domains waiting in the current case */
  double worst_margin;       /* the worst (lowest) lower bound minus rhs among queued domains */
  double elapsed;            /* seconds since cn_verify started */
} cn_verify_progress;

typedef struct cn_verify_opts
{
  cn_bounds_opts bounds;     /* the bounding method; threads = domains bounded in parallel */
  double timeout;            /* seconds; <= 0 means none */
  int64_t max_queue;         /* domains kept queued before depth-first search; 0 = automatic */
  int attack_restarts;       /* PGD restarts per clause before the search (0: no PGD) */
  int attack_steps;          /* PGD steps per restart */
  int64_t random_samples;    /* random points tried per case before the search (each coordinate at
                                an end of the box or uniform inside), for at most a fiftieth of the
                                time limit (at least 0.5 s) */
  uint64_t seed;             /* seed of the attacks' random numbers */
  int lookahead;             /* split along two candidate dimensions, keep the pair that bounds
                                better (default 1) */
  int combine;               /* also bound sums of a clause's rows (all of them, and pairs of up to six
                                rows): a sum above the summed rhs refutes the clause (default 1) */
  int slopes;                /* also bound each domain with the fixed lower slopes of cn_slope, keeping
                                the best bound per row (default 1) */
  int clip;                  /* shrink each input-split domain's box to the part where an open clause
                                can hold, by its rows' linear lower bounds (default 1) */
  int64_t escalate;          /* input splitting with CROWN: once this many domains are bounded, later
                                ones are bounded by alpha-CROWN (3 sweeps per row; default 16384, 0:
                                never) */
  int64_t input_split_max;   /* a case's box with at most this many free axes (lo < hi) is split
                                (0: CN_VERIFY_SPLIT_MAX, or CN_VERIFY_SPLIT_MAX_NO_RELU for a network
                                without relus; negative: never) */
  int relu_split;            /* a case whose input is not split: split relu inputs' signs instead
                                (default 1; 0: one bound per case) */
  int fsb;                   /* ReLU splitting: the entry split is chosen among BaBSR's best FSB by
                                filtered smart branching (the one whose worse child has the best
                                cheap bound: one sweep with the parent's alpha-beta parameters,
                                the new split's multiplier 0); 0 or 1: BaBSR's best (default 4) */
  int relu_refine;           /* ReLU-split domains below the root recompute their intermediate
                                boxes by CROWN sweeps (default 0: the parent's, intersected with IBP
                                from the clamped splits, as alpha-beta-CROWN keeps its root's) */
  int beta;                  /* ReLU-split domains whose CROWN bound leaves a clause open are also
                                bounded by alpha-beta-CROWN, warm-started from their parent's
                                parameters (default 1) */
  void (*progress) (const cn_verify_progress *p, void *user);
  void *progress_user;
  double progress_interval;  /* seconds between progress calls */
  /* Bound certificates (certnn/proof.h).  With CERTIFICATE not NULL, cn_verify writes to it the
   * header and, as the search keeps them, every node of each case's tree of input splits and of
   * relu splits with the evidence of its refutations (for the ReLU-split search also the relus'
   * slopes and the splits' betas of each sweep), and the end line when the verdict is unsat; an
   * unsat verdict is returned only when all of it was written (a write failure is CN_EIO).  The
   * search then runs as the certificate can record it: method crown or crown-ibp (CN_EINVAL
   * otherwise), no clipping, no escalation to alpha-CROWN, no intermediate slope tightening, the
   * ReLU-split search's root boxes by CROWN rather than alpha-CROWN and inherited below
   * (relu_refine off), and no input splitting after a ReLU-split search left a leaf open (such a
   * case stays unknown, counted in the result's uncertified).
   * NETWORK_SHA256 and PROPERTY_SHA256 (64 hexadecimal digits each, cn_sha256_file) name the
   * files the graph and the property were read from. */
  FILE *certificate;
  const char *network_sha256, *property_sha256;
} cn_verify_opts;

/* CROWN, default threads, no timeout, automatic queue cap, 20 PGD restarts of 50 steps, 10000
 * random samples, seed 1, lookahead, row combinations, slopes and clipping on, no progress. */
CN_API void cn_verify_opts_init (cn_verify_opts *o);

typedef struct cn_verify_result
{
  cn_verdict verdict;
  int64_t n_x, n_y;
  double *x;                 /* n_x entries (the counterexample) when verdict is SAT, else NULL */
  double *y;                 /* n_y entries: the MPFI evaluation's midpoints, when SAT */
  int64_t case_index;        /* the case and clause the counterexample satisfies */
  int64_t clause_index;
  int64_t domains;           /* domains bounded */
  int64_t attack_points;     /* points tried by the attacks */
  int64_t binary32_rejected; /* points that violate the property exactly but not when the network
                                is evaluated in binary32 (so not reported as sat) */
  int64_t filter_overruled;  /* candidates whose binary64 evaluation satisfies the property by a
                                margin but whose sound point enclosure could not exclude a
                                violation, so the exact check decided (real semantics) */
  double seconds;
  int64_t uncertified;       /* with a certificate: cases left unknown because their search (input
                                splitting after a ReLU-split search) cannot be recorded in one */
} cn_verify_result;

/* Decides SPEC on G (one input with as many entries as the spec's X, output 0 with as many as
 * its Y).  RESULT is initialised here; cn_verify_result_clear frees it.  A shape mismatch is
 * CN_ESHAPE; an operator without the arms the method needs is CN_EUNSUPPORTED naming it. */
CN_API cn_status cn_verify (const cn_graph *g, const cn_spec *spec, const cn_verify_opts *opts,
                            cn_verify_result *result, cn_error *err);
CN_API void cn_verify_result_clear (cn_verify_result *r);

/* Checks a candidate counterexample exactly: X (n_x entries) lies in the exact box of case
 * CASE_INDEX and the MPFI evaluation of G at X at PREC bits satisfies every row of clause
 * CLAUSE_INDEX of that case.  *OK receives 1 when both hold (then Y, if not NULL, receives the
 * midpoints of the output intervals), 0 otherwise. */
CN_API cn_status cn_verify_check_point (const cn_graph *g, const cn_spec *spec, int64_t case_index,
                                        int64_t clause_index, const double *x, long prec, int *ok, double *y, cn_error *err);

#ifdef __cplusplus
}
#endif
#endif
