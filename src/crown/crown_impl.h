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
 * value V of G using BOXES (one sound box per value) for every relaxation.  ROUNDOFF (NULL: the
 * real semantics) gives per value NULL or the binary32 semantics' bound of each entry's rounding
 * error (the rule's ROUNDOFF32), charged where the sweep relaxes the value; the boxes must then
 * hold the binary32 values.  The other engines here take it with the same meaning.  DEPENDS[w] is
 * nonzero iff value w depends on a graph input (others are concretised with their box).
 * LOWER receives ROWS numbers; -inf where nothing finite is proved.  INPUT_COEF, if not NULL,
 * receives ROWS x numel(graph input 0) the coefficients of that input in each row's linear
 * lower bound (the final Lambda_x, as computed in round-to-nearest: a guide, not a bound).
 * SLOPE (a cn_slope) selects the lower slopes of relaxing arms.  *DISCHARGED (if not NULL) is
 * increased once per node output discharged over its box for want of a relaxation (no CROWN arm,
 * or an arm that declined with CN_EUNSUPPORTED).  MEMO (if not NULL, one slot per value) gives
 * each step its node output's slot (cn_crown_step.memo); the caller frees the slots. */
cn_status cn__crown_sweep (const cn_graph *g, const cn_box *boxes, const unsigned char *depends,
                           const double *const *roundoff, int v,
                           const double *c, int64_t rows, int threads, int slope, double *lower,
                           double *input_coef, int64_t *discharged, void **memo, cn_error *err);

/* alpha-CROWN's side of a sweep (src/crown/alpha.c): the parameters the arms read, and what the
 * sweep records for the gradient's forward pass (ALGORITHMS.md 4.4). */
enum cn__fwd_how
{
  CN__FWD_NONE,      /* the sweep did not reach the value */
  CN__FWD_LINES,     /* v^ = fk .* u^ + fb (an elementwise arm's lines, per row) */
  CN__FWD_CORNER,    /* v^ = fb: the corner of the box the sweep concretised the value at
                        (lam >= 0: the lower end, else the upper end), the graph input included */
  CN__FWD_NODE       /* v^ = the node's forward at its inputs' v^: exact for the affine arms, a
                        stand-in for a relaxing arm that records no lines (the gradient is then
                        approximate, counted in n_approx) */
};

typedef struct cn__crown_tape
{
  /* given by the caller */
  const int64_t *offset;     /* per value: its first column in a row of THETA, -1: no parameters */
  int64_t width;             /* parameters per row */
  const double *theta;       /* rows x width, or one row shared by all (SHARED) */
  int shared;
  int unchecked;             /* tests only: cn_crown_step.theta_unchecked */
  int threads;               /* for the gradient's forward pass */
  /* beta-CROWN (ALGORITHMS.md 5.1): the domain's sign splits, one multiplier beta_q >= 0 each, in
   * column beta_offset + q of a row of THETA; N_SPLITS 0: none */
  const cn_split *splits;
  int64_t n_splits;
  int64_t beta_offset;
  /* what the sweep passes on: for each of N_KEEP values KEEP_AT[i], KEEP[i] (caller storage,
   * rows x numel) receives the value's complete coefficients when the sweep reaches it (a guide
   * for branching, as computed in round-to-nearest; untouched where it is not reached) */
  int n_keep;
  const int *keep_at;
  double **keep;
  /* NULL, or ROWS numbers: each row's constant d_s, a lower bound of bias - charge when the graph
   * inputs are all that is left, so that (C v)_s(x) >= input_coef_s . x + d_s, read in exact
   * arithmetic, for every x of the box (the graph having one input; -inf where nothing finite is
   * known): the sound linear lower function of cn_analysis_linear */
  double *input_offset;
  int record;                /* fill what follows */
  /* written by the sweep when RECORD (per value, NULL where unused; rows x numel) */
  unsigned char *how;        /* enum cn__fwd_how */
  double **fk, **fb;
  double **ga, **gb;         /* the step's grad_a, grad_b at the outputs with parameters */
  double **fk2, **ga2;       /* the step's fwd_k2 (zeroed) at the outputs of two-input nodes, and
                                grad_a2 (zeroed) where they have parameters too */
  int64_t n_approx;          /* relaxing arms taken as CN__FWD_NODE */
} cn__crown_tape;

/* Rows per tightening sweep (src/crown/tighten.c): one coefficient block, rows x the widest
 * computed value, near 2 MiB, at least 16 rows. */
int64_t cn__crown_chunk_rows (const cn_graph *g);
/* The most rows one tightening sweep takes: the chunk, or two rows an entry of the widest
 * computed value when that is fewer (a value's sweep is never wider). */
int64_t cn__crown_tighten_rows (const cn_graph *g);

/* cn__crown_sweep with TAPE (NULL: a plain sweep).  With TAPE->record, TAPE's records must be
 * empty on entry (cn__crown_tape_reset) and hold the sweep's on success. */
cn_status cn__crown_sweep_tape (const cn_graph *g, const cn_box *boxes, const unsigned char *depends,
                                const double *const *roundoff, int v,
                                const double *c, int64_t rows, int threads, int slope, double *lower,
                                double *input_coef, int64_t *discharged, void **memo, cn__crown_tape *tape,
                                cn_error *err);
/* Allocates TAPE's per-value tables, empty (the caller's fields untouched); CN_ENOMEM. */
cn_status cn__crown_tape_init (const cn_graph *g, cn__crown_tape *tape, cn_error *err);
/* Frees TAPE's records (keeps what the caller gave and the tables). */
void cn__crown_tape_reset (const cn_graph *g, cn__crown_tape *tape);
/* Frees TAPE's records and tables (a tape never initialised, all NULL, is fine). */
void cn__crown_tape_free (const cn_graph *g, cn__crown_tape *tape);

/* ---- alpha-CROWN (src/crown/alpha.c) ------------------------------------------------------- */

/* The parameter layout of sweeps from V: OFFSET[w] (one per value) is the first column of value
 * w's parameters in a row, -1 where w has none; returns the width of a row (-1 out of memory). */
int64_t cn__alpha_layout (const cn_graph *g, const unsigned char *depends, int v, int64_t *offset);

/* The gradient of every row's bound in its parameters (4.4) from TAPE, the records of a sweep
 * from V with ROWS rows: GRAD gets rows x width numbers (one row, summed, when shared).
 * CN_EUNSUPPORTED where the forward pass cannot pass some node. */
cn_status cn__alpha_gradient (const cn_graph *g, const cn__crown_tape *tape, int v, int64_t rows, double *grad,
                              cn_error *err);

/* The default of cn_bounds_opts.lr_beta. */
#define CN__BETA_LR 0.05

/* The default of cn_bounds_opts.memory_mb. */
#define CN__ALPHA_MEMORY_MB 2048.0

/* The sign splits of a branch-and-bound domain, for beta-CROWN (NULL or N = 0: none). */
typedef struct cn__betas
{
  const cn_split *splits;
  int64_t n;
} cn__betas;

/* Sound lower bounds of the ROWS functions C v by alpha-CROWN over BOXES (kept fixed): the best,
 * row by row, of OPTS->iterations sweeps (OPTS: iterations, lr, lr_decay, patience, share_alpha,
 * slope, threads).  TARGET (NULL: none) stops the loop once every lower[s] > target[s].
 * THETA_IO (NULL: none) holds rows x width (1 x width shared) parameters: on entry the start
 * (NaN entries: the arms' own choice), projected; on exit the parameters of each row's best
 * bound.  PAIRS (with TARGET): rows 2r and 2r + 1 ask one question (the sign of an entry, from
 * below and from above), so once one meets its target both are done.  TRACE (NULL: none) as
 * cn_analysis_lower_alpha.  DISCHARGED and MEMO as for
 * cn__crown_sweep (DISCHARGED counts the first sweep only).  Rows with their own parameters are
 * optimised in blocks that fit OPTS->memory_mb.  With BETAS (NULL: none) the bounds hold over the
 * inputs of the box that meet BETAS's splits (the boxes must hold there), every row having one
 * multiplier per split after its alpha parameters (beta-CROWN, optimised jointly with alpha at
 * the rate OPTS->lr_beta), so a row has width = layout width + BETAS->n parameters. */
cn_status cn__alpha_lower (const cn_graph *g, const cn_box *boxes, const unsigned char *depends,
                           const double *const *roundoff, int v,
                           const double *c, int64_t rows, const cn_bounds_opts *opts, const cn__betas *betas,
                           const double *target,
                           int pairs, double *theta_io, double *lower, cn_alpha_trace *trace, int64_t *discharged,
                           void **memo, cn_error *err);

/* With CN_METHOD_CROWN: tightens BOXES[V] (sound on entry, sound on exit) by CROWN sweeps over
 * the entries whose relaxation depends on them (src/crown/tighten.c), when V depends on the
 * graph input, feeds a relaxing operator and is not a first layer; intersects each sweep's box
 * with the old one.  OPTS gives the slopes and threads; DISCHARGED and MEMO as for
 * cn__crown_sweep.  On an empty intersection (the input set is empty, or a bound is wrong):
 * with EMPTY (NULL: none) *EMPTY = 1 and CN_OK, BOXES[V] then unspecified; else CN_EUNSOUND. */
cn_status cn__crown_tighten (const cn_graph *g, cn_box *boxes, const unsigned char *depends,
                             const double *const *roundoff, int v,
                             const cn_bounds_opts *opts, int64_t *discharged, void **memo, int *empty,
                             cn_error *err);

#endif
