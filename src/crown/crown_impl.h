/* SPDX-License-Identifier: MIT */
/* src/crown/crown_impl.h: helpers for the CROWN arms of the rule files (internal).
 *
 * The sweep keeps, per row s, the invariant of ALGORITHMS.md 6.4:
 *     C o(x) >= sum_frontier lam_v[s] . v(x) + bias[s] - charge[s],
 * where lam and bias are binary64 arrays read as exact reals and charge[s] >= 0 collects the
 * rounding errors, accumulated upward.  An arm computes its lam_in and bias contribution in
 * round-to-nearest and uses these helpers to charge what the rounding may have lost. */
#ifndef CN_CROWN_IMPL_H
#define CN_CROWN_IMPL_H

#include "ops/ops_impl.h"
#include "bounds/sound.h"

/* Adds the exact-real quantity  sum_j a[j] b[j]  (length K) to bias[s]: bias[s] gets the RN
 * result and charge[s] the (G) error of the dot product plus that of the final addition. */
void cn__crown_add_dot (const cn_crown_step *st, int64_t s, int64_t k, const double *a, const double *b);

/* charge[s] := an upper bound of charge[s] + E, E >= 0 an upper bound of an error (NaN is read
 * as +inf, which makes the row's bound -inf). */
void cn__crown_charge (const cn_crown_step *st, int64_t s, double e);

/* Adds to bias[s] the exact real sum whose round-to-nearest value is D, computed in any order
 * over CNT terms whose magnitudes sum (in RN) to T: charges the (G) error cn__dot_err (T, CNT)
 * and the rounding of the addition.  UNBOUNDED (some term infinite) makes the row's charge
 * +inf instead, so its bound becomes -inf. */
void cn__crown_add_sum (const cn_crown_step *st, int64_t s, double d, double t, int64_t cnt, int unbounded);

/* Adds the double V (exact) to bias[s], charging the rounding of the addition. */
void cn__crown_add_bias (const cn_crown_step *st, int64_t s, double v);

/* For arms whose lam_in entries are each ONE rounding of an exact real (a product or a
 * quotient of two doubles, such as lam_out*k or lam_out/c): charges, for every row s,
 *     sum_j (2u |lam_in[s][j]| + eta) m[j]   with m[j] = max(|lo_j|, |hi_j|) of BOX,
 * an upper bound of sum_j |exact_sj - lam_in_sj| |x_j| for x in BOX.  N = numel(input). */
void cn__crown_charge_entrywise (const cn_crown_step *st, const double *lam_in, int64_t n, const cn_box *box);

/* For affine arms  v = A u + c  whose lam_in = fl(lam_out A) is computed with inner products
 * of length at most K, and bias contribution fl(lam_out . c) (added with cn__crown_add_bias
 * or accumulated by the arm in RN) with inner length at most K as well: charges, per row s,
 *     gamma_K (|lam_out[s]| . w_up) + K eta (m1_up + 1)
 * where W_UP[o] >= (|A| m + |c|)[o] for every output entry o (m from the input boxes) and
 * M1_UP >= ||m||_1.  This bounds |(lam_out A - lam_in) u| + |lam_out c - fl(lam_out . c)| by
 * (G) (ALGORITHMS.md 6.4, linear step). */
void cn__crown_charge_affine (const cn_crown_step *st, const double *w_up, int64_t k, double m1_up);

/* m[j] = max(|lo_j|, |hi_j|) into M (length box->n); returns an upper bound of ||m||_1
 * (+inf if some entry is infinite). */
double cn__box_magnitude (const cn_box *box, double *m);

/* ---- the engine (src/crown/sweep.c, src/crown/analysis.c) ---------------------------- */

#include "graph/graph_impl.h"

/* Lower bounds of the ROWS linear functions C v over the input boxes, by one CROWN sweep from
 * value V of G using BOXES (one sound box per value) for every relaxation.  DEPENDS[w] is
 * nonzero iff value w depends on a graph input (others are concretised with their box).
 * LOWER receives ROWS numbers; -inf where nothing finite is proved.  INPUT_COEF, if not NULL,
 * receives ROWS x numel(graph input 0) the coefficients of that input in each row's linear
 * lower bound (the final Lambda_x, as computed in round-to-nearest: a guide, not a bound).
 * SLOPE (a cn_slope) selects the lower slopes of relaxing arms. */
cn_status cn__crown_sweep (const cn_graph *g, const cn_box *boxes, const unsigned char *depends, int v,
                           const double *c, int64_t rows, int threads, int slope, double *lower,
                           double *input_coef, cn_error *err);

#endif
