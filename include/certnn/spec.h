/* SPDX-License-Identifier: MIT */
/* certnn/spec.h: verification properties read from VNN-LIB 1.0 or 2.0.
 *
 * A VNN-LIB file states the UNSAFE condition.  After multiplying out every `or` it is a list
 * of cases; case k is an input box B_k and a disjunction of clauses, clause j being the
 * conjunction of rows  mat[r] . y <= rhs[r].  The property holds ("unsat") iff for every case,
 * every clause has some row that no input of B_k satisfies.  Cases with identical boxes are
 * merged, in order of first appearance.  Inputs and outputs are numbered flat: X_i of 1.0, or
 * the row-major index of X[i0,...,ik] of 2.0.
 *
 * Constants are read exactly and rounded per use: box ends outward (lo = RD, hi = RU, so the
 * box holds the exact set), and each rhs twice, rhs_up = RU(rhs) for refutations (lower > rhs_up
 * proves lower > rhs) and rhs_down <= rhs for counterexamples (value <= rhs_down proves the row:
 * RD(rhs), or the double below rhs for a strict row whose rhs is a double).  A counterexample
 * lies strictly between the ends of each axis of its box (an end rounded outward, or a strict
 * bound, is not in the exact set), or at lo == hi, a single exact point: an axis whose ends
 * meet but exclude the point is refused as an empty box when the file is read. */
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
  double *mat;          /* n_rows x n_y, row-major; coefficients of Y, integers below 2^53 */
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
 * failure): 2.0 when its first statement is (vnnlib-version <2.x>), 1.0 otherwise (the forms
 * read are listed in src/io/vnnlib.c and certnn(1)).  Errors carry "file:line:column: message":
 * CN_EIO (unreadable file), CN_EPARSE (syntax, an undeclared variable, an index out of range,
 * an input without both bounds, an empty box), CN_EUNSUPPORTED (well formed but outside what
 * is read: X against Y, several inputs in one comparison, nonlinear arithmetic, hidden tensors,
 * several networks, inputs or outputs, a disjunction too large to multiply out), CN_ELIMIT (a
 * declared tensor above cn_max_numel ()), CN_ENOMEM. */
CN_API cn_status cn_spec_load_vnnlib (const char *path, cn_spec *spec, cn_error *err);
/* The same from memory; NAME labels the messages. */
CN_API cn_status cn_spec_parse_vnnlib (const char *text, size_t len, const char *name, cn_spec *spec,
                                       cn_error *err);
CN_API void cn_spec_clear (cn_spec *spec);

#ifdef __cplusplus
}
#endif
#endif
