/* SPDX-License-Identifier: MIT */
/* src/core/version.c: the library version and the floating-point environment check. */
#include <config.h>
#include <fenv.h>
#include <cblas.h>
#include "certnn/env.h"
#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>
#endif

const char *
cn_version (void)
{
  return PACKAGE_VERSION;
}

cn_status
cn_fpenv_check (cn_error *err)
{
  if (fegetround () != FE_TONEAREST)
    return cn_error_set (err, CN_EUNSOUND,
                         "fpenv: the rounding mode is not round-to-nearest; the error bounds assume it");
#if defined(__x86_64__) || defined(__i386__)
  unsigned csr = _mm_getcsr ();
  if (csr & (1u << 15))
    return cn_error_set (err, CN_EUNSOUND,
                         "fpenv: flush-to-zero (MXCSR.FTZ) is set, e.g. by -ffast-math code in the process");
  if (csr & (1u << 6))
    return cn_error_set (err, CN_EUNSOUND,
                         "fpenv: denormals-are-zero (MXCSR.DAZ) is set, e.g. by -ffast-math code in the process");
  if (((csr >> 13) & 3u) != 0)
    return cn_error_set (err, CN_EUNSOUND, "fpenv: the SSE rounding mode is not round-to-nearest");
#endif
  return CN_OK;
}

void
cn_set_blas_threads (int n)
{
  openblas_set_num_threads (n < 1 ? 1 : n);
}
