/* SPDX-License-Identifier: MIT */
/* src/lp/lp.h: linear programs by GLPK (internal), for their dual solutions (src/lp/lp.c). */
#ifndef CN_LP_H
#define CN_LP_H

#include <stdint.h>
#include "certnn/status.h"

/* Solves  min obj.x + penalty sum_r t_r  s.t.  A_r x - t_r <= b_r, t_r >= 0, lo <= x <= hi  (N
 * variables, M dense rows A, row-major M x N; the elastic slacks t make it always feasible, and
 * with PENALTY above every multiplier of the plain program it has the same solution).  MU
 * receives the M multipliers (>= 0) of the rows, X (if not NULL) a minimiser, *OPT (if not
 * NULL) the solver's optimum: a floating-point guess, never a bound.  CN_EINVAL for a
 * non-finite input or no variables; CN_EUNSUPPORTED when GLPK finds no optimum or fails, or the
 * program is too large (more than 2^28 coefficients); CN_ENOMEM.  Not safe to call from two
 * threads at once (GLPK's environment). */
cn_status cn__lp_solve (int64_t n, int64_t m, const double *obj, const double *a, const double *b, const double *lo,
                        const double *hi, double penalty, double *mu, double *x, double *opt, cn_error *err);

#endif
