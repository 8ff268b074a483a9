/* SPDX-License-Identifier: MIT */
/* src/ops/cases_impl.h: what the instance generators of src/ops/cases_<group>.c share (internal):
 * the entry of each group, dispatched by cn__op_case_draw (src/ops/cases.c), and the shape,
 * constant and sort helpers they draw with.  Every helper that draws takes the generator state R
 * and draws from it only, in the order its comment states, so that a seed fixes the instances. */
#ifndef CN_OPS_CASES_IMPL_H
#define CN_OPS_CASES_IMPL_H

#include "ops/cases.h"

/* The generators of one group of families each.  C arrives cleared, but for c->op = OP and
 * c->element_sorts (cn__op_case_draw sets both).  If OP is of the group, C receives an instance
 * drawn from R and the result is 1; otherwise the result is 0 and nothing was drawn from R (C may
 * have been written: the dispatcher clears it again before the next group). */
int cn__cases_basic (cn_op op, struct cn__op_case *c, cn__rng *r);          /* elementwise, movement, reduce */
int cn__cases_linear (cn_op op, struct cn__op_case *c, cn__rng *r);         /* linear, matmul, conv, pool */
int cn__cases_transcendental (cn_op op, struct cn__op_case *c, cn__rng *r); /* exp ... atan2 */
int cn__cases_activation (cn_op op, struct cn__op_case *c, cn__rng *r);     /* sigmoid ... leakyReLU */
int cn__cases_arith (cn_op op, struct cn__op_case *c, cn__rng *r);          /* abs ... smoothAbs */
int cn__cases_rounding (cn_op op, struct cn__op_case *c, cn__rng *r);       /* roundings and extrema */
int cn__cases_softmax (cn_op op, struct cn__op_case *c, cn__rng *r);        /* softmax family, layerNorm */
int cn__cases_loss (cn_op op, struct cn__op_case *c, cn__rng *r);           /* the losses */
int cn__cases_scan (cn_op op, struct cn__op_case *c, cn__rng *r);           /* scans and orderings */
int cn__cases_index (cn_op op, struct cn__op_case *c, cn__rng *r);          /* gather ... detach */
int cn__cases_prod (cn_op op, struct cn__op_case *c, cn__rng *r);           /* scaledMatmul, contract, batchNorm */
int cn__cases_logic (cn_op op, struct cn__op_case *c, cn__rng *r);          /* comparisons, logic, cast */
int cn__cases_integer (cn_op op, struct cn__op_case *c, cn__rng *r);        /* integer words */
int cn__cases_random (cn_op op, struct cn__op_case *c, cn__rng *r);         /* random draws, spectral */
int cn__cases_attention (cn_op op, struct cn__op_case *c, cn__rng *r);      /* attention, convTranspose,
                                                                               smoothMaxPool */

/* A shape of rank 1 to 3 with extents 1 to EMAX (rank drawn first, then the extents in order). */
void cn__case_small_shape (cn__rng *r, cn_shape *s, int64_t emax);
/* A shape of rank RMIN to RMAX with extents 1 to EMAX (rank drawn first, then the extents in
 * order), each extent's bound lowered so that the element count stays at most MAXN (INT64_MAX: no
 * bound). */
cn_shape cn__case_rand_shape (cn__rng *r, int rmin, int rmax, int64_t emax, int64_t maxn);
/* S = the shape of rank RANK with extents DIM, the entries past the rank cleared (draws nothing). */
void cn__case_shape_set (cn_shape *s, int rank, const int64_t *dim);
/* Marks input I of C as a constant with entries uniform in [LO, HI] (draws nothing). */
void cn__case_set_const (struct cn__op_case *c, int i, double lo, double hi);
/* Two inputs of one cn__case_small_shape (EMAX 4), constants drawn in [-2, 2], and one of them
 * (drawn after the shape) a constant in half of the cases. */
void cn__case_pair (cn__rng *r, struct cn__op_case *c);
/* The ports of a convolution case (conv, convTranspose) of ND spatial dimensions: input X of
 * shape XD, weight W of shape WD (both of rank ND + 2) and a bias of NBIAS entries; mostly (6 in
 * 7, one draw) W and the bias are constants in [-1, 1] and the case is within CROWN's scope, else
 * only the bias is (a varying weight: IBP of interval products). */
void cn__case_conv_ports (cn__rng *r, struct cn__op_case *c, int nd, const int64_t *xd, const int64_t *wd,
                          int64_t nbias);
/* Draws the input extent S of spatial dimension I of the pooling P (its kernel, stride, dilation
 * and pads along I already set): uniform in [smin, SMAX], smin the least extent >= 1 that the
 * window's span fits in with the pads (SMAX raised to smin if below), then lowered towards smin
 * while *SP S exceeds BUDGET; multiplies *SP by S and stores S in XD[2 + I].  Returns 1 if every
 * output window meets the input, 0 if one lies entirely in the padding (draw again). */
int cn__case_pool_extent (cn__rng *r, const cn_params_pool *p, int i, int64_t smax, int64_t budget, int64_t *sp,
                          int64_t *xd);
/* One of the eight integer word sorts (I8 to I64, U8 to U64), uniformly (one draw). */
cn_dtype cn__case_word_sort (cn__rng *r);
/* A sort for the element ports of C: CN_DTYPE_F64 (the model's scalar, nothing drawn) when
 * c->element_sorts is 0; else the model's scalar about half the time, otherwise CN_DTYPE_BOOL (if
 * ALLOW_BOOL) or an integer sort (I8 .. U64), uniformly.  A generator that draws an integer sort
 * sets x_integer and x_lo/x_hi inside the sort's range (cast refuses values outside it). */
cn_dtype cn__case_element_sort (cn__rng *r, const struct cn__op_case *c, int allow_bool);
/* For the word sort ES: X integer-valued (x_integer) over a quarter (signed) or half (unsigned)
 * of the sort's range, cut to 2^24 so that X is exact in a binary32 evaluation too (draws
 * nothing). */
void cn__case_set_word_range (struct cn__op_case *c, cn_dtype es);

#endif
