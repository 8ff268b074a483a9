/* SPDX-License-Identifier: MIT */
/* certnn/flat.h: a flat interface for bindings (the Python module over ctypes, python/certnn):
 * only handles, numbers, caller-owned arrays and options given as text, so that a binding never
 * mirrors a C struct of the library.
 *
 * OPTIONS is NULL or a text of space-separated KEY=VALUE words, each key at most once:
 *   bounds: method=ibp|crown|crown-ibp|alpha-crown (crown), semantics=real|binary32 (real),
 *           threads=N (OpenMP's default), iterations=N (20), lr=X (0.5), fix_intermediate=0|1 (0),
 *           max_memory=MB (none: cn_bounds_opts.max_memory_mb);
 *   verify: those, and timeout=S (60), seed=N (1).
 * An unknown key or a bad value is CN_EINVAL naming it.  The guarantees are those of
 * certnn/bounds.h and certnn/verify.h. */
#ifndef CERTNN_FLAT_H
#define CERTNN_FLAT_H

#include <stdint.h>
#include "certnn/graph.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The number of entries of G's input 0 and of its output 0 (-1 without one). */
CN_API int64_t cn_flat_input_size (const cn_graph *g);
CN_API int64_t cn_flat_output_size (const cn_graph *g);

/* The input box of the first case of the VNN-LIB property at PATH (its constants rounded
 * outward), N entries, into LO and HI; CN_ESHAPE when the property has another number of inputs. */
CN_API cn_status cn_flat_vnnlib_box (const char *path, int64_t n, double *lo, double *hi, cn_error *err);

/* Sound bounds of every entry of G's output 0 (M entries: OUT_LO, OUT_HI) over the box [LO, HI]
 * of its input (N entries), by OPTIONS (above); SECONDS (NULL: not wanted) the bound computation's
 * time.  An infinite bound is returned as an infinity. */
CN_API cn_status cn_flat_bounds (const cn_graph *g, int64_t n, const double *lo, const double *hi, const char *options,
                                 int64_t m, double *out_lo, double *out_hi, double *seconds, cn_error *err);

/* As cn_flat_bounds, over the box [LO, HI] intersected, where CENTER is not NULL, with the L2 ball
 * ||x - CENTER||_2 <= L2_EPS (cn_analysis_set_l2; a CROWN method); and where LO_COEF (M x N),
 * LO_OFF (M), UP_COEF and UP_OFF are not NULL (in pairs), the sound linear bounds of every output
 * entry, lo_coef_j . x + lo_off_j <= y_j(x) <= up_coef_j . x + up_off_j over that set
 * (cn_analysis_linear). */
CN_API cn_status cn_flat_linear (const cn_graph *g, int64_t n, const double *lo, const double *hi, const double *center,
                                 double l2_eps, const char *options, int64_t m, double *out_lo, double *out_hi,
                                 double *lo_coef, double *lo_off, double *up_coef, double *up_off, double *seconds,
                                 cn_error *err);

/* Decides the VNN-LIB property at PATH on G (cn_verify) with OPTIONS: *VERDICT receives a
 * cn_verdict (0 unsat, 1 sat, 2 unknown, 3 timeout); for a sat, X (N_X entries) the
 * counterexample and Y (N_Y entries) its outputs (both NULL: not wanted; the sizes must be the
 * property's).  *DOMAINS (NULL: not wanted) the domains bounded. */
CN_API cn_status cn_flat_verify (const cn_graph *g, const char *path, const char *options, int *verdict, int64_t n_x,
                                 double *x, int64_t n_y, double *y, int64_t *domains, cn_error *err);

#ifdef __cplusplus
}
#endif
#endif
