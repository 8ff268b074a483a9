/* SPDX-License-Identifier: MIT */
/* certnn/spec.h: verification properties read from VNN-LIB.
 *
 * A VNN-LIB file states the UNSAFE condition.  After multiplying out every `or` it is a list
 * of cases; case k is an input box B_k and a disjunction of clauses, clause j being the
 * conjunction of rows  mat[r] . y <= rhs[r].  The property holds ("unsat") iff for every case,
 * every clause has some row that no input of B_k satisfies.  Cases with identical boxes are
 * merged, in order of first appearance.
 *
 * Constants are read exactly and rounded per use: box ends outward (lo = RD, hi = RU, so the
 * box holds the exact set), and each rhs twice, rhs_up = RU(rhs) for refutations (lower > rhs_up
 * proves lower > rhs) and rhs_down = RD(rhs) for counterexamples (value <= rhs_down proves
 * value <= rhs). */
#ifndef CERTNN_SPEC_H
#define CERTNN_SPEC_H

#include <stddef.h>
#include <stdint.h>
#include "certnn/box.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cn_spec_clause
{
  int64_t n_rows;
  double *mat;          /* n_rows x n_y, row-major; coefficients of Y (exact small integers) */
  double *rhs_up;       /* n_rows */
  double *rhs_down;     /* n_rows */
} cn_spec_clause;

typedef struct cn_spec_case
{
  cn_box box;           /* n_x entries */
  int64_t n_clauses;
  cn_spec_clause *clauses;
} cn_spec_case;

typedef struct cn_spec
{
  int64_t n_x, n_y;     /* number of declared X_i and Y_j */
  int64_t n_cases;
  cn_spec_case *cases;
} cn_spec;

/* Parses a VNN-LIB file into SPEC (initialised here; cn_spec_clear frees it, also after a
 * failure).  Errors carry "file:line:column: message": CN_EIO (unreadable file), CN_EPARSE
 * (syntax, an undeclared variable, an input without both bounds, an empty box),
 * CN_EUNSUPPORTED (a term outside the VNN-COMP subset, such as X against Y or arithmetic, or a
 * disjunction too large to multiply out), CN_ENOMEM. */
CN_API cn_status cn_spec_load_vnnlib (const char *path, cn_spec *spec, cn_error *err);
/* The same from memory; NAME labels the messages. */
CN_API cn_status cn_spec_parse_vnnlib (const char *text, size_t len, const char *name, cn_spec *spec,
                                       cn_error *err);
CN_API void cn_spec_clear (cn_spec *spec);

#ifdef __cplusplus
}
#endif
#endif
