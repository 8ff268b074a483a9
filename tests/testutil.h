/* SPDX-License-Identifier: MIT */
/* tests/testutil.h: helpers shared by the test programs (seed, data paths, MPFR oracle,
 * operator cases for the generic tests). */
#ifndef CN_TESTUTIL_H
#define CN_TESTUTIL_H

#include <stdint.h>
#include <mpfi.h>
#include "certnn/certnn.h"
#include "certnn/reference.h"

/* ---- seed and random numbers ---------------------------------------------------------- */
/* The seed comes from CN_TEST_SEED if set, else from the clock; tu_init prints it once to
 * stderr as "CN_TEST_SEED=<n> (include this in bug reports)". */
void tu_init (void);
unsigned long tu_seed (void);
uint64_t tu_rand (void);               /* 64 random bits (xoshiro256**; thread-unsafe) */
double tu_uniform (double a, double b); /* uniform in [a, b] */
int64_t tu_int (int64_t a, int64_t b);  /* uniform integer in [a, b] */

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
/* Storage for any operator's attribute record: one member per record of certnn/ops.h, named as
 * the record (params.conv, params.loss, ...), made from the list CN_PARAMS_RECORDS. */
typedef union tu_params
{
#define TU_PARAMS_MEMBER(rec) cn_params_##rec rec;
  CN_PARAMS_RECORDS (TU_PARAMS_MEMBER)
#undef TU_PARAMS_MEMBER
} tu_params;

#define TU_MAX_IN 8
struct tu_op_case
{
  cn_op op;
  tu_params params;          /* the attribute record */
  int n_in;
  cn_shape in_shape[TU_MAX_IN];
  int in_const[TU_MAX_IN];   /* 1: the input is a constant (weights), drawn by the test */
  double const_lo[TU_MAX_IN], const_hi[TU_MAX_IN]; /* range of the random constant entries */
  int const_integer[TU_MAX_IN]; /* 1: the constant's entries are integers, uniform in [const_lo, const_hi]
                                   (index ports); 0: uniform reals */
  int crown_ok;              /* the case is within the CROWN arm's scope (e.g. mul by a constant) */
  double x_lo, x_hi;         /* if x_lo < x_hi: the tests draw the non-constant inputs' boxes and points
                                inside [x_lo, x_hi] (an operator's domain); 0, 0: the default draws */
  int x_integer;             /* 1: the non-constant inputs' points and box ends are integers (word ports) */
  int out_index;             /* which output of the operator the case's graph exposes (0, or drawn by
                                tu_op_case among the outputs of an operator with several) */
  cn_dtype in_dtype[TU_MAX_IN]; /* the port's sort: CN_DTYPE_F64 (0, the default) the model's scalar;
                                   CN_DTYPE_BOOL: a non-constant port is fed gt(slice of X, 0), a constant
                                   is drawn 0/1; an integer sort: a non-constant port is fed
                                   cast(slice of X) (X integer-valued, x_integer), a constant is drawn
                                   as integers in [const_lo, const_hi] */
};

/* Whether the case generators may draw Boolean and integer elements at element ports (the
 * seed's element argument).  Off by default: the gradient, tape and ulps tests see the model's
 * scalar only; check_ops and check_wire turn it on. */
extern int tu_element_sorts;
/* A sort for the element ports of a case: CN_DTYPE_F64 (the model's scalar) when tu_element_sorts
 * is off; else the model's scalar about half the time, otherwise CN_DTYPE_BOOL (if ALLOW_BOOL) or an
 * integer sort (I8 .. U64), uniformly.  A generator that draws an integer sort sets x_integer and
 * x_lo/x_hi inside the sort's range (cast refuses values outside it). */
cn_dtype tu_draw_element_sort (int allow_bool);
/* For the word sort ES: X integer-valued (x_integer) over a quarter (signed) or half (unsigned)
 * of the sort's range, cut to 2^24 so that X is exact in a binary32 evaluation too. */
void tu_set_word_range (struct tu_op_case *c, cn_dtype es);

/* Fills CASE with a random, valid instance of OP (a new draw every call); returns 0 if the
 * operator has no case generator (an operator without a rule).  Generators live in
 * tests/op_cases_*.c, one function per group of families. */
int tu_op_case (cn_op op, struct tu_op_case *c);
int tu_op_case_basic (cn_op op, struct tu_op_case *c);     /* tests/op_cases_basic.c */
int tu_op_case_linear (cn_op op, struct tu_op_case *c);    /* tests/op_cases_linear.c */
int tu_op_case_transcendental (cn_op op, struct tu_op_case *c);  /* tests/op_cases_transcendental.c */
int tu_op_case_activation (cn_op op, struct tu_op_case *c);      /* tests/op_cases_activation.c */
int tu_op_case_arith (cn_op op, struct tu_op_case *c);           /* tests/op_cases_arith.c (elementwise) */
int tu_op_case_rounding (cn_op op, struct tu_op_case *c);        /* tests/op_cases_rounding.c (and extrema) */
int tu_op_case_softmax (cn_op op, struct tu_op_case *c);         /* tests/op_cases_softmax.c (and norms) */
int tu_op_case_loss (cn_op op, struct tu_op_case *c);            /* tests/op_cases_loss.c */
int tu_op_case_scan (cn_op op, struct tu_op_case *c);            /* tests/op_cases_scan.c */
int tu_op_case_index (cn_op op, struct tu_op_case *c);           /* tests/op_cases_index.c (and flip, detach) */
int tu_op_case_prod (cn_op op, struct tu_op_case *c);            /* tests/op_cases_prod.c (products, conv, norms) */
int tu_op_case_logic (cn_op op, struct tu_op_case *c);           /* tests/op_cases_logic.c (comparisons, logic) */
int tu_op_case_integer (cn_op op, struct tu_op_case *c);         /* tests/op_cases_integer.c (integer words) */
int tu_op_case_random (cn_op op, struct tu_op_case *c);          /* tests/op_cases_random.c (random, spectral) */
int tu_op_case_attention (cn_op op, struct tu_op_case *c);       /* tests/op_cases_attention.c (attention,
                                                                    convTranspose, smoothMaxPool) */
/* Known-answer, distribution and edge-case checks of the random draws and of the spectral
 * transforms (tests/op_cases_random.c): 1 if all pass, else 0 with a message in MSG. */
int tu_random_check (char *msg, size_t size);
int tu_spectral_check (char *msg, size_t size);
int tu_op_case_custom (cn_op op, struct tu_op_case *c);          /* tests/op_cases_custom.c (custom) */

/* Shape and constant helpers of the case generators (tests/op_cases_*.c). */
/* A shape of rank 1 to 3 with extents 1 to EMAX (rank drawn first, then the extents in order). */
void tu_small_shape (cn_shape *s, int64_t emax);
/* A shape of rank RMIN to RMAX with extents 1 to EMAX, each extent lowered so that the element
 * count stays at most MAXN (INT64_MAX: no bound). */
cn_shape tu_rand_shape (int rmin, int rmax, int64_t emax, int64_t maxn);
/* S = the shape of rank RANK with extents DIM, the entries past the rank cleared. */
void tu_shape_set (cn_shape *s, int rank, const int64_t *dim);
/* Two inputs of one tu_small_shape (EMAX 4), constants drawn in [-2, 2], and one of them
 * (drawn) a constant in half of the cases. */
void tu_pair_case (struct tu_op_case *c);
/* The ports of a convolution case (conv, convTranspose) of ND spatial dimensions: input X of
 * shape XD, weight W of shape WD (both of rank ND + 2) and a bias of NBIAS entries; mostly (6 in
 * 7) W and the bias are constants in [-1, 1] and the case is within CROWN's scope, else only the
 * bias is (a varying weight: IBP of interval products). */
void tu_conv_ports (struct tu_op_case *c, int nd, const int64_t *xd, const int64_t *wd, int64_t nbias);
/* Draws the input extent S of spatial dimension I of the pooling P (its kernel, stride, dilation
 * and pads along I already set): uniform in [smin, SMAX], smin the least extent >= 1 that the
 * window's span fits in with the pads (SMAX raised to smin if below), then lowered towards smin
 * while *SP S exceeds BUDGET; multiplies *SP by S and stores S in XD[2 + I].  Returns 1 if every
 * output window meets the input, 0 if one lies entirely in the padding (draw again). */
int tu_pool_extent (const cn_params_pool *p, int i, int64_t smax, int64_t budget, int64_t *sp, int64_t *xd);
/* One of the eight integer word sorts (I8 to I64, U8 to U64), uniformly. */
cn_dtype tu_rand_word_sort (void);
/* Marks input I of C as a constant with entries uniform in [LO, HI]. */
void tu_set_const (struct tu_op_case *c, int i, double lo, double hi);

/* Builds the graph of one operator instance: one graph input X (f64, length = the sum of the
 * element counts of the non-constant ports), each non-constant port fed by a slice of X
 * reshaped to the port's shape (a Boolean port by gt(that, 0), an integer port by cast(that) to
 * its sort), constants drawn uniformly in their range (in the port's sort).  The output of the
 * op is the graph output. */
cn_status tu_op_graph (const struct tu_op_case *c, cn_graph **out, cn_error *err);

/* Appends to G the node y = linear(x, W, b) of a random dense layer IN -> OUT (X a value of IN
 * entries): W [OUT, IN] uniform in [-1, 1], then b [OUT] uniform in [-0.5, 0.5], drawn in that
 * order; *Y receives y. */
cn_status tu_linear_layer (cn_graph *g, int x, int in, int out, int *y, cn_error *err);
/* As tu_linear_layer with the given weights W [OUT, IN] (row-major) and bias B [OUT]. */
cn_status tu_dense_layer (cn_graph *g, int x, int in, int out, const double *w, const double *b, int *y,
                          cn_error *err);

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
/* A double on the grid of 2^-20 near V. */
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
/* A random value of port I of case C: an integer in [x_lo, x_hi] for x_integer cases, on the
 * grid inside the case's input range [x_lo, x_hi] when it has one (an operator's domain), a
 * divisor and a variance away from 0 (the reference encloses x / y only for y away from 0),
 * everything else on the grid in [-2, 2]. */
double tu_port_value (const struct tu_op_case *c, int i);
/* A random point for the graph of case C (tu_op_graph): the non-constant ports one after the
 * other, each entry drawn by tu_port_value. */
void tu_draw_point (const struct tu_op_case *c, double *x);
/* Clears the entries of the direction DX (laid out as tu_draw_point's point) on every port that
 * is not a value port of the op (a frozen port receives no gradient and carries no tangent, so
 * the differences are taken with it held fixed); if FLOAT_ONLY, also on the ports whose sort is
 * not the model's scalar (Boolean and integer ports). */
void tu_value_dirs (const struct tu_op_case *c, double *dx, int float_only);
/* One probe of case C's graph (input of N entries, output of M): the point X (tu_draw_point),
 * then, unless W is NULL, a cotangent W uniform in [-1, 1]^M, then a direction DX of tu_rand_dir
 * entries cleared by tu_value_dirs (C, DX, FLOAT_ONLY). */
void tu_draw_probe (const struct tu_op_case *c, double *x, double *w, int64_t m, double *dx, int64_t n,
                    int float_only);

#endif
