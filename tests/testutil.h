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
#define TU_MAX_IN 8
struct tu_op_case
{
  cn_op op;
  union
  {
    cn_params_conv conv;
    cn_params_pool pool;
    cn_params_reshape reshape;
    cn_params_permute permute;
    cn_params_broadcast broadcast;
    cn_params_pad pad;
    cn_params_slice slice;
    cn_params_cat cat;
    cn_params_reduce reduce;
    cn_params_div div;
    cn_params_batchnorm batchnorm;
    cn_params_gelu gelu;
    cn_params_elu elu;
    cn_params_leaky_relu leaky_relu;
    cn_params_sqrt sqrt;
    cn_params_scale scale;
    cn_params_addc addc;
    cn_params_nan_to_num nan_to_num;
    cn_params_full_like full_like;
    cn_params_epsilon epsilon;
    cn_params_softmax softmax;
    cn_params_layernorm layernorm;
    cn_params_gather gather;
    cn_params_scatter scatter;
    cn_params_indices indices;
    cn_params_flip flip;
    cn_params_cumulative cumulative;
    cn_params_sort sort;
    cn_params_topk topk;
    cn_params_argmax argmax;
    cn_params_loss loss;
    cn_params_scaled_matmul scaled_matmul;
    cn_params_contract contract;
    cn_params_cast cast;
    cn_params_bitcast bitcast;
    cn_params_index_code index_code;
    cn_params_rand_uniform rand_uniform;
    cn_params_randn randn;
    cn_params_bernoulli bernoulli;
    cn_params_dropout dropout;
    cn_params_topk_mask topk_mask;
    cn_params_conv_transpose conv_transpose;
    cn_params_attention attention;
    cn_params_multihead multihead;
    cn_params_fft fft;
    cn_params_custom custom;
  } params;
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
  cn_dtype in_dtype[TU_MAX_IN]; /* the port's sort: CN_DTYPE_F64 (0, the default) the model's scalar;
                                   CN_DTYPE_BOOL: a non-constant port is fed gt(slice of X, 0), a constant
                                   is drawn 0/1; an integer sort: a non-constant port is fed
                                   cast(slice of X) (X integer-valued, x_integer), a constant is drawn
                                   as integers in [const_lo, const_hi] */
};

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
/* Marks input I of C as a constant with entries uniform in [LO, HI]. */
void tu_set_const (struct tu_op_case *c, int i, double lo, double hi);

/* Builds the graph of one operator instance: one graph input X (f64, length = the sum of the
 * element counts of the non-constant ports), each non-constant port fed by a slice of X
 * reshaped to the port's shape (a Boolean port by gt(that, 0), an integer port by cast(that) to
 * its sort), constants drawn uniformly in their range (in the port's sort).  The output of the
 * op is the graph output. */
cn_status tu_op_graph (const struct tu_op_case *c, cn_graph **out, cn_error *err);

/* ---- MPFR/MPFI oracle ----------------------------------------------------------------- */
/* Evaluates output 0 of G at the point X (length = the input's numel) in MPFI at PREC bits;
 * OUT is initialised here.  Returns the status of the reference run. */
cn_status tu_eval_mpfi (const cn_graph *g, const double *x, mpfr_prec_t prec, cn_mpfi_vec *out,
                        cn_error *err);

#endif
