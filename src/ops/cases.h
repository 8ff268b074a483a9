/* SPDX-License-Identifier: MIT */
/* src/ops/cases.h: random, valid instances of the operators (internal), drawn beside the table so
 * that the certificate evidence (src/certs) and the tests draw the same instances.
 *
 * An instance (struct cn__op_case) is an operator with its attribute record, the shapes of its
 * ports, which ports are constants (weights, drawn in a range), the domain its varying inputs are
 * drawn from and whether the CROWN arm takes it.  cn__op_case_draw fills one from a generator
 * state the caller owns; the same seed draws the same instances.  The generators live in
 * src/ops/cases_<group>.c, one per group of families. */
#ifndef CN_OPS_CASES_H
#define CN_OPS_CASES_H

#include <stdint.h>
#include "certnn/box.h"
#include "certnn/mpfi_vec.h"
#include "certnn/ops.h"
#include "certnn/tensor.h"
#include "core/rng.h"

/* Storage for any operator's attribute record: one member per record of certnn/ops.h, named as
 * the record (params.conv, params.loss, ...), made from the list CN_PARAMS_RECORDS. */
typedef union cn__params
{
#define CN__PARAMS_MEMBER(rec) cn_params_##rec rec;
  CN_PARAMS_RECORDS (CN__PARAMS_MEMBER)
#undef CN__PARAMS_MEMBER
} cn__params;

#define CN__CASE_MAX_IN 8
struct cn__op_case
{
  cn_op op;
  cn__params params;         /* the attribute record */
  int n_in;
  cn_shape in_shape[CN__CASE_MAX_IN];
  int in_const[CN__CASE_MAX_IN];   /* 1: the input is a constant (weights), drawn by the consumer */
  double const_lo[CN__CASE_MAX_IN], const_hi[CN__CASE_MAX_IN]; /* range of the random constant entries */
  int const_integer[CN__CASE_MAX_IN]; /* 1: the constant's entries are integers, uniform in
                                         [const_lo, const_hi] (index ports); 0: uniform reals */
  int crown_ok;              /* the case is within the CROWN arm's scope (e.g. mul by a constant) */
  double x_lo, x_hi;         /* if x_lo < x_hi: the varying inputs' boxes and points lie inside
                                [x_lo, x_hi] (an operator's domain); 0, 0: the default draws */
  int x_integer;             /* 1: the varying inputs' points and box ends are integers (word ports) */
  int out_index;             /* which output of the operator the case exposes (0, or drawn among the
                                outputs of an operator with several) */
  cn_dtype in_dtype[CN__CASE_MAX_IN]; /* the port's sort: CN_DTYPE_F64 (0, the default) the model's
                                         scalar; CN_DTYPE_BOOL: a varying port holds gt(x, 0), a
                                         constant is drawn 0/1; an integer sort: a varying port holds
                                         cast(x) (x integer-valued, x_integer), a constant is drawn
                                         as integers in [const_lo, const_hi] */
  int element_sorts;         /* set by the caller before the draw (kept by cn__op_case_draw): the
                                generators may draw Boolean and integer elements at element ports
                                (the seed's element argument); 0: the model's scalar only */
};

/* Fills C with a random, valid instance of OP (a new draw every call) from R; ELEMENT_SORTS as the
 * field of that name.  Returns 0 if the operator has no generator here (an operator without a
 * rule, and custom, whose program only a graph can hold). */
int cn__op_case_draw (cn_op op, cn__rng *r, int element_sorts, struct cn__op_case *c);

/* A double on the grid of 2^-20 near V (round to nearest). */
double cn__case_grid20 (double v);
/* A random value of port I of case C, drawn from R: an integer in [x_lo, x_hi] for x_integer
 * cases, on the grid of 2^-20 inside the case's input range [x_lo, x_hi] when it has one (an
 * operator's domain), a divisor and a variance away from 0 (the reference encloses x / y only for
 * y away from 0), everything else on the grid in [-2, 2]. */
double cn__case_port_value (const struct cn__op_case *c, int i, cn__rng *r);
/* A random point for the graph of case C (cn__case_graph, src/certs/certs_impl.h): the varying
 * ports one after the other, each entry drawn by cn__case_port_value in order, into X (the sum of
 * the varying ports' element counts). */
void cn__case_draw_point (const struct cn__op_case *c, cn__rng *r, double *x);
/* Maps a box B inside [-5, 5] affinely into case C's input range [x_lo, x_hi] when it has one (an
 * operator's domain), keeping points and relative widths, with integer ends for x_integer cases
 * (word ports read x through cast); nothing when x_lo == x_hi == 0 (the default draws). */
void cn__case_box_in_range (cn_box *b, const struct cn__op_case *c);

/* The residual of row R of a CROWN step at one point, into ACC (initialised by the caller; T is
 * scratch of any precision):
 *     acc = lam_out[r] . y - sum_i lam_in[i][r] . x_i - bias
 * with Y the N_OUT intervals of f(x) and X the N_IN inputs' points (LAM_IN[i] NULL for an input
 * without coefficients; row R of LAM_IN[i] has X[i].n entries).  The terms first, then the bias, so
 * that an intercept a few eta below an exact cancellation is not lost to ACC's precision.  The
 * step's invariant at the point is acc + charge >= 0. */
void cn__case_crown_residual (mpfi_t acc, mpfi_t t, const cn_mpfi_vec *y, const double *lam_out, int64_t n_out,
                              int n_in, const cn_mpfi_vec *x, double *const *lam_in, int64_t r, double bias);

#endif
