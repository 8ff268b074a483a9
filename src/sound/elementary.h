/* SPDX-License-Identifier: MIT */
/* src/sound/elementary.h: sound enclosures of exp, expm1, log1p and of the activations built on
 * them, in binary64 without MPFR (internal; the proofs are in src/sound/elementary.c).
 *
 * Every function takes an exact double X and writes doubles LO <= f(X) <= HI, f the exact real
 * function, in the default environment (round-to-nearest), thread-safe, with no call into libm's
 * transcendental functions.  The widths are a few tens of ulps at most (tests/check_core.c measures
 * them against MPFR).  X = +-inf gives f's limits; NaN gives NaN ends.  The IBP and CROWN arms of
 * sigmoid, tanh, softplus, elu and exp use them on their hot paths; MPFR stays their reference
 * (the MPFI arms) and the oracle the tests compare against. */
#ifndef CN_SOUND_ELEMENTARY_H
#define CN_SOUND_ELEMENTARY_H

void cn__exp_encl (double x, double *lo, double *hi);
void cn__expm1_encl (double x, double *lo, double *hi);
/* X in [0, 1] (the argument the activations need); outside it, NaN ends. */
void cn__log1p_encl (double x, double *lo, double *hi);
/* sigmoid(x) = 1 / (1 + exp(-x)); its derivative sigmoid(x)(1 - sigmoid(x)) */
void cn__sigmoid_encl (double x, double *lo, double *hi);
void cn__dsigmoid_encl (double x, double *lo, double *hi);
/* tanh(x); its derivative 1 - tanh(x)^2 */
void cn__tanh_encl (double x, double *lo, double *hi);
void cn__dtanh_encl (double x, double *lo, double *hi);
/* softplus(x) = log(1 + exp(x)) (its derivative is sigmoid) */
void cn__softplus_encl (double x, double *lo, double *hi);

/* The constants of the polynomials and the reduction, read by tests/check_core.c: ln 2's split,
 * 1/ln 2, RN(1/i!) (14), RN(1/(i+1)!) (14), 1/(2i+1) (17). */
extern const double cn__elem_ln2_hi, cn__elem_ln2_lo, cn__elem_inv_ln2;
extern const double *const cn__elem_exp_c, *const cn__elem_expm1_c, *const cn__elem_atanh_c;

#endif
