/* SPDX-License-Identifier: MIT */
/* certnn/env.h: the library's version and the environment its bounds need. */
#ifndef CERTNN_ENV_H
#define CERTNN_ENV_H

#include "certnn/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The library version, "MAJOR.MINOR.PATCH". */
CN_API const char *cn_version (void);

/* CN_OK if the calling thread's floating-point environment is what the bounds need: round to
 * nearest, and on x86 the flush-to-zero and denormals-are-zero bits clear.  Otherwise
 * CN_EUNSOUND with the reason.  Every bound computation calls it. */
CN_API cn_status cn_fpenv_check (cn_error *err);

/* Sets the number of threads OpenBLAS uses inside one BLAS call (process-wide: it is OpenBLAS's
 * own setting, changed only when an application calls this).  certnn parallelises the rows of
 * its sweeps with OpenMP; OpenBLAS's separate thread pool then competes with those threads
 * for the cores, which makes small products several times slower.  Applications that let
 * certnn parallelise, such as the certnn command, call cn_set_blas_threads (1).  N < 1 is
 * taken as 1. */
CN_API void cn_set_blas_threads (int n);

#ifdef __cplusplus
}
#endif
#endif
