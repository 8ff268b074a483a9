/* SPDX-License-Identifier: MIT */
/* tests/testutil.h: helpers shared by the test programs (seed, data paths, MPFR oracle,
 * operator cases for the generic tests). */
#ifndef CN_TESTUTIL_H
#define CN_TESTUTIL_H

#include <stdint.h>
#include <mpfi.h>
#include "certnn/certnn.h"
#include "certnn/reference.h"
#include "core/rng.h"
#include "ops/cases.h"

/* ---- seed and random numbers ---------------------------------------------------------- */
/* The seed comes from CN_TEST_SEED if set, else from the clock; tu_init prints it once to
 * stderr as "CN_TEST_SEED=<n> (include this in bug reports)". */
void tu_init (void);
unsigned long tu_seed (void);
/* The tests' one generator state (src/core/rng.h), seeded by cn__rng_seed from tu_seed's seed;
 * every draw below and every case draw comes from it, in program order (thread-unsafe). */
cn__rng *tu_rng (void);
uint64_t tu_rand (void);               /* 64 random bits: cn__rng_next (tu_rng ()) */
double tu_uniform (double a, double b); /* uniform in [a, b]: cn__rng_uniform */
int64_t tu_int (int64_t a, int64_t b);  /* uniform integer in [a, b]: cn__rng_int */

/* Runs the suite S (taking it) without forking, so that failures show under gdb and the
 * sanitizers, and returns the program's exit status: 0 if every test passed, else 1. */
struct Suite;
int tu_run_suite (struct Suite *s);

/* ---- paths ---------------------------------------------------------------------------- */
/* $CN_SRCDIR (the source tree; "." if unset). */
const char *tu_srcdir (void);
/* The benchmark directory SRCDIR/../shared/benchmarks (or $CN_BENCHMARKS), NULL if absent:
 * tests that need it skip with exit status 77. */
const char *tu_benchmarks (void);
/* Reads a whole file into a malloc'd, NUL-terminated buffer; NULL on failure. */
char *tu_read_file (const char *path, size_t *len);

/* ---- an operator instance for the generic tests ---------------------------------------- */
/* The instances (struct cn__op_case) are drawn by the library's generators, src/ops/cases_*.c
 * (src/ops/cases.h), from tu_rng (). */

/* Whether the case generators may draw Boolean and integer elements at element ports (the
 * seed's element argument; the field element_sorts of the case).  Off by default: the gradient,
 * tape and ulps tests see the model's scalar only; check_ops and check_wire turn it on. */
extern int tu_element_sorts;

/* Fills CASE with a random, valid instance of OP (a new draw every call): cn__op_case_draw (OP,
 * tu_rng (), tu_element_sorts, C), and for custom, whose program only a graph can hold,
 * cn__case_custom (src/certs/case_custom.c; its programs live until the process exits).
 * Returns 0 if the operator has no case generator (an operator without a rule). */
int tu_op_case (cn_op op, struct cn__op_case *c);
/* Known-answer, distribution and edge-case checks of the random draws and of the spectral
 * transforms (tests/random_checks.c): 1 if all pass, else 0 with a message in MSG. */
int tu_random_check (char *msg, size_t size);
int tu_spectral_check (char *msg, size_t size);

/* cn__case_small_shape (src/ops/cases_impl.h) drawing from tu_rng (), and cn__case_shape_set. */
void tu_small_shape (cn_shape *s, int64_t emax);
void tu_shape_set (cn_shape *s, int rank, const int64_t *dim);

/* Builds the graph of one operator instance, cn__case_graph (src/certs/certs_impl.h) with its
 * constants drawn from tu_rng (): one graph input X (f64, length = the sum of the element counts
 * of the non-constant ports), each non-constant port fed by a slice of X reshaped to the port's
 * shape (a Boolean port by gt(that, 0), an integer port by cast(that) to its sort), constants
 * drawn uniformly in their range (in the port's sort).  The output of the op is the graph
 * output. */
cn_status tu_op_graph (const struct cn__op_case *c, cn_graph **out, cn_error *err);

/* Appends to G the node y = linear(x, W, b) of a random dense layer IN -> OUT (X a value of IN
 * entries): W [OUT, IN] uniform in [-1, 1], then b [OUT] uniform in [-0.5, 0.5], drawn in that
 * order; *Y receives y. */
cn_status tu_linear_layer (cn_graph *g, int x, int in, int out, int *y, cn_error *err);
/* As tu_linear_layer with the given weights W [OUT, IN] (row-major) and bias B [OUT]. */
cn_status tu_dense_layer (cn_graph *g, int x, int in, int out, const double *w, const double *b, int *y,
                          cn_error *err);

/* Appends to G the node y = OP(x) of a unary activation, with leakyReLU's slope 0.1 and elu's
 * alpha 0.8 (no other operator takes parameters here); returns y (a failure fails the test). */
int tu_unary (cn_graph *g, cn_op op, int x);

/* ---- random boxes and their points ----------------------------------------------------- */
/* Fills B (its N entries) with a random box around centres uniform in [-2, 2]: one draw picks
 * the kind of widths for all entries, a point, at most 1e-6, 0.5 or 3 either side. */
void tu_random_box (cn_box *b);
/* A point X of B: a corner (each coordinate at an end, CORNER) or uniform inside.  With INTEGER
 * the point is rounded to integers inside the box (integer ends); with BINARY32 each coordinate
 * is rounded to a binary32 number where that stays inside the box. */
void tu_sample_box (const cn_box *b, double *x, int corner, int integer, int binary32);


/* ---- MPFR/MPFI oracle ----------------------------------------------------------------- */
/* Evaluates output 0 of G at the point X (length = the input's numel) in MPFI at PREC bits;
 * OUT is initialised here.  Returns the status of the reference run. */
cn_status tu_eval_mpfi (const cn_graph *g, const double *x, mpfr_prec_t prec, cn_mpfi_vec *out,
                        cn_error *err);

/* ---- central differences of a gradient (tests/check_grad.c, tests/check_tape.c) ------------- */
/* Points lie on the grid of 2^-20 and directions on the grid of 2^-10 in [-1, 1], so that
 * x +- TU_GRAD_STEP dx are doubles exactly; phi is evaluated through the MPFI reference at
 * TU_GRAD_PREC bits, and <grad, dx> must match the central difference to TU_GRAD_TOL relative. */
#define TU_GRAD_PREC 256
#define TU_GRAD_STEP 0x1p-30
#define TU_GRAD_TOL 1e-6
/* A double on the grid of 2^-20 near V (cn__case_grid20). */
double tu_grid20 (double v);
/* A random direction entry on the grid of 2^-10 in [-1, 1]. */
double tu_rand_dir (void);
/* PHI = w . mid(F(x)) in MPFR at TU_GRAD_PREC bits (PHI initialised by the caller, at
 * 2 TU_GRAD_PREC bits), where F is output 0 of G (M entries).  Returns -1 if the reference refuses
 * (ERR holds its message; PHI is then zero), 0 if some mid is not a finite number, else 1. */
int tu_phi_at (const cn_graph *g, const double *x, const double *w, int64_t m, mpfr_t phi, cn_error *err);
/* Checks <GX, DX> against the central difference (phi(h) - phi(-h)) / (2 h), h = TU_GRAD_STEP, of
 * phi(s) = w . F(x + s dx), asserting agreement to TU_GRAD_TOL relative to
 * sum_i |gx_i dx_i| + |difference| and raising *WORST to the relative error seen.  Returns 1 if
 * checked, 0 (redraw) if the second difference phi(h) - 2 phi(0) + phi(-h) shows a kink within
 * a step.  STRICT: a refusal of the reference fails the test; else a refusal, a mid that is not
 * finite or a dot product that is not finite is also a redraw (0).  WHAT names the case. */
int tu_dir_check (const char *what, const cn_graph *g, const double *x, const double *w, const double *gx,
                  const double *dx, int64_t n, int64_t m, int strict, double *worst);
/* A random value of port I of case C (cn__case_port_value from tu_rng ()): an integer in
 * [x_lo, x_hi] for x_integer cases, on the grid inside the case's input range [x_lo, x_hi] when
 * it has one (an operator's domain), a divisor and a variance away from 0 (the reference encloses
 * x / y only for y away from 0), everything else on the grid in [-2, 2]. */
double tu_port_value (const struct cn__op_case *c, int i);
/* A random point for the graph of case C (tu_op_graph): the non-constant ports one after the
 * other, each entry drawn by tu_port_value (cn__case_draw_point from tu_rng ()). */
void tu_draw_point (const struct cn__op_case *c, double *x);
/* Clears the entries of the direction DX (laid out as tu_draw_point's point) on every port that
 * is not a value port of the op (a frozen port receives no gradient and carries no tangent, so
 * the differences are taken with it held fixed); if FLOAT_ONLY, also on the ports whose sort is
 * not the model's scalar (Boolean and integer ports). */
void tu_value_dirs (const struct cn__op_case *c, double *dx, int float_only);
/* One probe of case C's graph (input of N entries, output of M): the point X (tu_draw_point),
 * then, unless W is NULL, a cotangent W uniform in [-1, 1]^M, then a direction DX of tu_rand_dir
 * entries cleared by tu_value_dirs (C, DX, FLOAT_ONLY). */
void tu_draw_probe (const struct cn__op_case *c, double *x, double *w, int64_t m, double *dx, int64_t n,
                    int float_only);

#endif
