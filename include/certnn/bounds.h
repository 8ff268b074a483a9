/* SPDX-License-Identifier: MIT */
/* certnn/bounds.h: sound bounds of a graph over an input box, by IBP, CROWN and CROWN-IBP.
 *
 * Guarantee (CN_GUAR_REALS): every box and every lower bound returned here holds for the
 * network evaluated in exact real arithmetic with its stored weights taken as exact, for every
 * input in the given box.  Floating-point rounding is accounted for by the error-charging
 * scheme of ALGORITHMS.md section 6.4: products run in round-to-nearest and every rounding
 * error is charged with an a-posteriori bound; no rounding mode is ever changed.  A step whose
 * preconditions fail (an infinite or NaN intermediate, FTZ/DAZ set) gives CN_EUNSOUND, never a
 * wrong finite bound.
 *
 * Guarantee (CN_SEMANTICS_BINARY32, cn_bounds_opts.semantics): every box and every lower bound
 * holds instead for the network as deployed in binary32: every input a binary32 word of the box,
 * every operator evaluated in binary32 (round to nearest, gradual underflow) in any order of its
 * sums, with or without fused multiply-adds, one node after the other as the graph says.  Each
 * node's box and each relaxation is widened by its operator's worst rounding error over its
 * input boxes, the bound its rule declares (the ROUNDOFF certificate record beside the rule; an
 * operator that declares none, such as the transcendental ones whose binary32 accuracy belongs
 * to the math library, is refused by name with CN_EUNSUPPORTED), and every constant of the
 * model's scalar must be a binary32 word (CN_EINVAL names the first that is not).  The two
 * guarantees differ: a network whose binary32 evaluation cancels large terms reaches outputs the
 * exact one never does, and the other way round. */
#ifndef CERTNN_BOUNDS_H
#define CERTNN_BOUNDS_H

#include "certnn/box.h"
#include "certnn/graph.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum cn_method
{
  CN_METHOD_IBP,        /* interval propagation through every operator */
  CN_METHOD_CROWN,      /* CROWN, intermediate bounds by full CROWN sweeps (intersected with IBP) */
  CN_METHOD_CROWN_IBP,  /* intermediate bounds by IBP, one CROWN sweep from the output */
  CN_METHOD_ALPHA_CROWN /* alpha-CROWN (ALGORITHMS.md 4): the sweeps of CROWN, intermediate ones (with
                           alpha_intermediate) and those from the outputs, with their free line
                           parameters (relu's lower slopes) optimised row by row */
} cn_method;

CN_API const char *cn_method_name (cn_method m);          /* "ibp", "crown", "crown-ibp", "alpha-crown" */
/* CN_EINVAL if NAME is not one of the names above. */
CN_API cn_status cn_method_lookup (const char *name, cn_method *m, cn_error *err);

/* What the bounds hold for (see the guarantees above). */
typedef enum cn_semantics
{
  CN_SEMANTICS_REAL,    /* exact real arithmetic with the stored weights (the default) */
  CN_SEMANTICS_BINARY32 /* the binary32 evaluation in any order, fused multiply-adds or not */
} cn_semantics;

CN_API const char *cn_semantics_name (cn_semantics s);    /* "real", "binary32" */
/* CN_EINVAL if NAME is not one of the names above. */
CN_API cn_status cn_semantics_lookup (const char *name, cn_semantics *s, cn_error *err);

/* cn_slope, the lower slopes of the relu family's relaxation, is in certnn/ops.h. */

typedef struct cn_bounds_opts
{
  cn_method method;
  cn_semantics semantics; /* CN_SEMANTICS_REAL (default) or CN_SEMANTICS_BINARY32 */
  int threads;          /* OpenMP threads for row-parallel work; 0 = the OpenMP default */
  cn_slope slope;       /* lower slopes of the sweeps (CN_SLOPE_ADAPTIVE by default) */
  int tighten_slopes;   /* intermediate bounds also from sweeps with CN_SLOPE_RATIO, intersected
                           (tighter, about twice the work; default 0) */
  /* alpha-CROWN (CN_METHOD_ALPHA_CROWN, and cn_analysis_lower_alpha with any method): */
  int iterations;       /* sweeps per optimised start, the first with the arms' own lines (20) */
  double lr;            /* Adam's learning rate (0.5) */
  double lr_decay;      /* the learning rate is multiplied by it after every step (0.98) */
  int patience;         /* a row stops after this many sweeps without improving; 0: never (10) */
  int share_alpha;      /* one set of parameters shared by all rows of a start (default 0: one per row) */
  int alpha_intermediate; /* also optimise the sweeps that tighten intermediate boxes, each row for
                           its own bound (default 1, as auto_LiRPA's alpha-CROWN recomputes them with
                           their own slopes; 0: they stay CROWN's, as with its fix_interm_bounds given
                           fixed intermediate bounds) */
  int iterations_intermediate; /* sweeps per intermediate row with alpha_intermediate (0: iterations) */
  double lr_intermediate;       /* their learning rate (0: lr) */
  double memory_mb;     /* alpha-CROWN's working memory per optimisation, in MiB (0: 2048): rows
                           with their own parameters are optimised in blocks that fit */
  double lr_beta;       /* beta-CROWN: the learning rate of the split multipliers of an analysis
                           with splits (cn_analysis_create_split; 0: 0.05, as alpha-beta-CROWN) */
  int inherit_boxes;    /* cn_analysis_create_split with a PRIOR: 1 takes every box from PRIOR, each
                           split value's clamped to its split, and recomputes nothing downstream
                           (alpha-beta-CROWN's fixed intermediate bounds: cheaper, looser, and an
                           empty domain is then found only where a split's own box empties); 0
                           (default) recomputes the boxes downstream of a split by the method and
                           intersects them with PRIOR's */
  double max_memory_mb; /* a budget for the working memory, in MiB (0: none).  An analysis whose
                           estimate exceeds it is refused with CN_ELIMIT before it allocates: the
                           boxes of every value (16 bytes an entry), a tightening sweep's
                           coefficient blocks (three blocks of rows x every computed value's
                           entries, binary64) and alpha-CROWN's blocks, which are sized to fit
                           half of it (memory_mb at most); likewise each on-demand sweep for its
                           own rows.  cn_verify keeps its queue of domains within half of it.
                           An estimate of the dominant terms, not a hard ceiling on the heap. */
} cn_bounds_opts;

/* CROWN, default threads, and auto_LiRPA's alpha-CROWN defaults (20 iterations, lr 0.5, decay
 * 0.98, patience 10, intermediate bounds optimised). */
CN_API void cn_bounds_opts_init (cn_bounds_opts *o);

/* An analysis of one graph over one input box: the sound box of every value, computed once,
 * and CROWN sweeps from any value on demand. */
typedef struct cn_analysis cn_analysis;

/* Computes the box of every value of G, the graph having one input, over INPUT (borrowed for
 * the call; the analysis keeps a copy).  With CN_METHOD_IBP the boxes are IBP's; with
 * CN_METHOD_CROWN the input of every operator that needs bounds (relu, max pooling) is
 * tightened by a CROWN sweep over its unstable entries; with CN_METHOD_CROWN_IBP intermediate
 * boxes are IBP's and the graph outputs are tightened by one CROWN sweep each.
 * G is borrowed until cn_analysis_free. */
CN_API cn_status cn_analysis_create (const cn_graph *g, const cn_box *input, const cn_bounds_opts *opts,
                                     cn_analysis **out, cn_error *err);
CN_API void cn_analysis_free (cn_analysis *a);

/* A sign constraint of a branch-and-bound domain: entry INDEX of value VALUE is >= 0 (SIGN +1)
 * or <= 0 (SIGN -1); on a relu's input it fixes the relu active or inactive. */
typedef struct cn_split
{
  int value;
  int64_t index;
  int sign;
} cn_split;

/* As cn_analysis_create, over the domain of the inputs of INPUT whose values meet every split
 * of SPLITS (N_SPLITS of them, copied): each split value's box is clamped to the split's side
 * where it is computed, before its consumers read it, so every box holds for the domain, and
 * every later bound (cn_analysis_lower and the others) is a sound bound over the domain (the
 * sweeps concretise over INPUT, a superset).  PRIOR (NULL: none) is an analysis of the same
 * graph over a box containing INPUT with a subset of SPLITS (the parent domain; checked,
 * CN_EINVAL otherwise): its boxes hold here too, so the boxes of values that depend on no split
 * and on no changed input entry are copied from it, and the others intersected with it.  When
 * some box comes out empty the domain has no input (cn_analysis_infeasible): the lower bounds of
 * every row are then +inf, the output box is refused, and boxes past the empty one are empty
 * (n = 0). */
CN_API cn_status cn_analysis_create_split (const cn_graph *g, const cn_box *input, const cn_bounds_opts *opts,
                                           const cn_analysis *prior, const cn_split *splits, int64_t n_splits,
                                           cn_analysis **out, cn_error *err);
/* 1 when A's domain was found empty (see cn_analysis_create_split), else 0. */
CN_API int cn_analysis_infeasible (const cn_analysis *a);
/* The box of value V (borrowed from A). */
CN_API const cn_box *cn_analysis_box (const cn_analysis *a, int v);
/* Sound lower bounds of the ROWS linear functions C v (C is rows x numel(v), row-major) over the
 * input box, by one CROWN sweep from V using the analysis's boxes for the relaxations.  With
 * V a graph output and C a specification's rows this is the spec-fused bound of
 * ALGORITHMS.md 1.8/2.6.  LOWER receives ROWS numbers (-inf where nothing is known). */
CN_API cn_status cn_analysis_lower (cn_analysis *a, int v, const double *c, int64_t rows, double *lower,
                                    cn_error *err);
/* Sound linear bounds of the ROWS functions C v (C NULL: the identity, ROWS = numel(v): the
 * entries of v) in the graph input x, for integrators that reuse certnn's relaxations: for every
 * input x of A's domain (the input box, its splits' domain; the L2 ball's inputs inside it too)
 * and each row s, read in exact real arithmetic on the binary64 numbers returned,
 *     lo_coef_s . x + lo_offset_s  <=  (C v)_s(x)  <=  up_coef_s . x + up_offset_s,
 * (C v)_s(x) being the exact value of the network (the binary32 semantics: every binary32
 * evaluation of it that the semantics admits).  The coefficients are one CROWN sweep's with A's
 * slope, whatever A's method (the boxes the relaxations read are A's), as computed in
 * round-to-nearest; every rounding error of the sweep is charged to the offsets.  LO_COEF and
 * UP_COEF (caller storage, ROWS x numel(graph input), row-major) and LO_OFFSET and UP_OFFSET (ROWS
 * numbers) may be NULL in pairs (that side is not computed).  An offset nothing finite is known
 * of is -inf (lower) or +inf (upper); over an empty domain (cn_analysis_infeasible) the
 * coefficients are 0 and the lower offsets +inf, the upper ones -inf (no input to bound).
 * CN_EINVAL for a bad value, a C that is not finite, or ROWS != numel(v) without C. */
CN_API cn_status cn_analysis_linear (cn_analysis *a, int v, const double *c, int64_t rows, double *lo_coef,
                                     double *lo_offset, double *up_coef, double *up_offset, cn_error *err);
/* Declares that the input set is also inside the L2 ball { x : ||x - CENTER||_2 <= EPS }
 * (CENTER: numel(graph input) numbers, copied; EPS finite, >= 0), so A's domain is the box (and
 * its splits') intersected with the ball.  The boxes of A stay those of the box (a superset: the
 * enclosing box [CENTER - EPS, CENTER + EPS] is the one to create A over); the later bounds of
 * graph outputs and spec rows (cn_analysis_lower, _coef, cn_analysis_output_box, alpha-CROWN by
 * one more CROWN sweep) take for each row the better of the box's minimum of the sweep's linear
 * function and the ball's, a sound lower bound of coef . CENTER + d - EPS ||coef||_2 (the dual
 * norm).  The LP and beta-CROWN bounds use the box only.  CN_EINVAL for a radius or center that
 * is not finite; CN_ENOMEM. */
CN_API cn_status cn_analysis_set_l2 (cn_analysis *a, const double *center, double eps, cn_error *err);
/* Sets the lower slopes of A's later sweeps (cn_analysis_lower and _coef); every choice is
 * sound, so a caller may take the best of several bounds. */
CN_API void cn_analysis_set_slope (cn_analysis *a, cn_slope slope);
/* As cn_analysis_lower; COEF (if not NULL) also receives ROWS x numel(graph input) the
 * coefficients of the graph input in each row's linear lower bound, as computed in
 * round-to-nearest.  They guide heuristics (the input-splitting score of ALGORITHMS.md 5.4,
 * the corner minimising the bound).  Unless A's method is alpha-CROWN (whose bound may come
 * from another sweep than its coefficients), LOWER and COEF come from one sweep: each row's
 * value is >= coef . x + d over the box for some real d with lower <= min over the box of
 * coef . x + d (the input-splitting search clips domains with this). */
CN_API cn_status cn_analysis_lower_coef (cn_analysis *a, int v, const double *c, int64_t rows, double *lower,
                                         double *coef, cn_error *err);
/* As cn_analysis_lower, by one CROWN sweep with A's slope whatever A's method; for each of the
 * N_AT values AT[i], LAM[i] (caller storage, ROWS x numel(AT[i])) receives the coefficients of
 * that value in each row's linear bound as the sweep reached it (0 where it did not, and over an
 * empty domain), as computed in round-to-nearest: a guide for branching (BaBSR scores a relu
 * entry by its output's coefficient times its relaxation's intercept), no part of a guarantee.
 * CN_EINVAL for a bad value id. */
CN_API cn_status cn_analysis_lower_at (cn_analysis *a, int v, const double *c, int64_t rows, double *lower, int n_at,
                                       const int *at, double *const *lam, cn_error *err);
/* Sound lower bounds of the ROWS functions C v over A's domain with an LP's help (GLPK): each
 * row's CROWN bound, and the bound of beta-CROWN with the multipliers of the LP
 *     min coef_s . x  s.t.  M_q (x) <= 0 for every split q,  x in the input box,
 * coef_s . x + d_s being the row's CROWN lower function and M_q the CROWN lower function of
 * -s_q z_q (so M_q <= -s_q z_q <= 0 on the domain), the better of the two kept.  Over a domain
 * whose unstable relus are all split the functions are exact up to rounding and the bound is
 * the domain's minimum, within rounding.  The LP's solution is only a guess: the bound is the
 * sweep's with beta = its multipliers, sound whatever they are (the residual's rounding
 * charged; Neumaier and Shcherbina 2004); a row whose LP GLPK cannot solve keeps its CROWN bound.
 * X_LP (NULL: none; ROWS x numel(input)) receives each row's LP minimiser, a candidate
 * counterexample (NaN where no LP was solved).  One input only (CN_EUNSUPPORTED otherwise).  Not
 * for concurrent calls (GLPK's state). */
CN_API cn_status cn_analysis_lower_lp (cn_analysis *a, int v, const double *c, int64_t rows, double *lower,
                                       double *x_lp, cn_error *err);
/* As cn_analysis_lower_lp; THETA (NULL: none; ROWS x cn_analysis_alpha_width) receives, for each
 * row whose bound the LP's multipliers gave, the parameters of that bound's sweep (the alpha ones
 * NaN, the arms' own lines; then the multipliers as beta), for cn_analysis_lower_theta; NaN in
 * every entry of a row whose bound stayed CROWN's. */
CN_API cn_status cn_analysis_lower_lp_theta (cn_analysis *a, int v, const double *c, int64_t rows, double *lower,
                                             double *x_lp, double *theta, cn_error *err);
/* What one alpha-CROWN optimisation did. */
typedef struct cn_alpha_trace
{
  int iterations;       /* sweeps run, the first with the starting parameters */
  int64_t approx;       /* relaxing nodes the gradient's forward pass could not follow exactly (it
                           took their forward instead; the bound is as sound, the gradient approximate) */
  double *history;      /* NULL, or caller storage for opts.iterations x ROWS numbers: each sweep's
                           lower bounds in order (before keep-best), ITERATIONS of them written */
} cn_alpha_trace;

/* The number of alpha-CROWN parameters per row of a sweep from V: numel of every output of an
 * operator instance with free line parameters (relu, leakyReLU, the smooth ones, mul of two
 * variable factors: certnn ops says "CROWN (alpha)") on the way from the graph input to V
 * (their order: the nodes' topological order, entries in order; entries with nothing free, a
 * stable relu's, are kept at 0), then, for an analysis with splits, one beta-CROWN multiplier
 * beta_q >= 0 per split in the order of the splits (ALGORITHMS.md 5.1: the bound of C v - sum_q
 * beta_q s_q z_q, where s_q z_q >= 0 is split q on the domain).  -1 for an invalid V. */
CN_API int64_t cn_analysis_alpha_width (const cn_analysis *a, int v);
/* The layout of those parameters: OFFSET (caller storage, one entry per graph value) receives, per
 * value, the column of its first parameter in a row (-1: it has none); returns the number of
 * alpha parameters (without the betas, which follow them), -1 for an invalid V or out of memory. */
CN_API int64_t cn_analysis_alpha_offsets (const cn_analysis *a, int v, int64_t *offset);
/* Sound lower bounds of the ROWS functions C v as cn_analysis_lower, by one sweep with the
 * parameters THETA (ROWS x cn_analysis_alpha_width), projected first onto their valid sets (NaN
 * entries: the arms' own lines by A's slope; with splits, the betas after the alpha ones, each
 * at least 0) and left so on exit; the input coefficients of each row's linear bound into COEF
 * (NULL: none) as cn_analysis_lower_coef: the bound a certificate records for those parameters. */
CN_API cn_status cn_analysis_lower_theta (cn_analysis *a, int v, const double *c, int64_t rows, double *theta,
                                          double *lower, double *coef, cn_error *err);
/* Sound lower bounds of the ROWS functions C v as cn_analysis_lower, by alpha-CROWN with the
 * options of A (iterations, lr, lr_decay, patience, share_alpha), whatever A's method, and with
 * splits beta-CROWN (the multipliers optimised jointly, at the rate lr_beta): the best,
 * row by row, of the sweeps with the optimised parameters, so never worse than the first,
 * CROWN's.  TARGET (NULL: none; ROWS numbers) stops early once every lower[s] > target[s].
 * THETA (NULL: none) holds ROWS x width parameters (one row with share_alpha): on entry a warm
 * start (NaN entries: the arms' own choice), projected onto the valid sets; on exit the
 * parameters of each row's best bound.  TRACE (NULL: none) receives what the loop did. */
CN_API cn_status cn_analysis_lower_alpha (cn_analysis *a, int v, const double *c, int64_t rows,
                                          const double *target, double *theta, double *lower,
                                          cn_alpha_trace *trace, cn_error *err);
/* Seconds spent in bound computation by A so far (creation and sweeps). */
CN_API double cn_analysis_seconds (const cn_analysis *a);
/* How many node outputs A's CROWN sweeps so far discharged over their IBP box for want of a
 * relaxation (an operator without a CROWN arm, or an arm that declined the instance): such a
 * bound is sound but may be loose there.  0 when every node on the way was relaxed (and for IBP). */
CN_API int64_t cn_analysis_discharged (const cn_analysis *a);
/* The box of graph output 0 as A bounds it: its box, and for the CROWN methods the intersection
 * with a sweep of rows [I; -I].  OUT is initialised here. */
CN_API cn_status cn_analysis_output_box (cn_analysis *a, cn_box *out, cn_error *err);
/* As cn_analysis_output_box; with CN_METHOD_ALPHA_CROWN, TRACE (NULL: none) receives what the
 * optimisation of the rows [e_0; -e_0; e_1; -e_1; ...] did (its history, if given, holds
 * opts.iterations x 2 numel(output) numbers: row 2j the lower bound of entry j, row 2j + 1 minus
 * its upper bound); with the other methods TRACE->iterations is 0. */
CN_API cn_status cn_analysis_output_box_trace (cn_analysis *a, cn_box *out, cn_alpha_trace *trace, cn_error *err);

/* Convenience: the box of graph output 0 over INPUT by OPTS->method (for the CROWN methods, the
 * output box comes from a sweep with rows [I; -I]).  OUT is initialised here. */
CN_API cn_status cn_bounds_output (const cn_graph *g, const cn_box *input, const cn_bounds_opts *opts,
                                   cn_box *out, cn_error *err);

#ifdef __cplusplus
}
#endif
#endif
