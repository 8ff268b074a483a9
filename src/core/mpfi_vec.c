/* SPDX-License-Identifier: MIT */
/* src/core/mpfi_vec.c: vectors of MPFI intervals (certnn/mpfi_vec.h). */
#include <config.h>
#include <stdlib.h>
#include "certnn/mpfi_vec.h"

cn_status
cn_mpfi_vec_init (cn_mpfi_vec *x, int64_t n, mpfr_prec_t prec, cn_error *err)
{
  x->n = 0;
  x->v = NULL;
  if (n < 0)
    return cn_error_set (err, CN_EINVAL, "mpfi: invalid length %lld", (long long) n);
  x->v = malloc ((size_t) (n ? n : 1) * sizeof *x->v);
  if (x->v == NULL)
    return cn_error_set (err, CN_ENOMEM, "mpfi: cannot allocate %lld intervals", (long long) n);
  for (int64_t i = 0; i < n; i++)
    {
      mpfi_init2 (x->v[i], prec);
      mpfi_set_ui (x->v[i], 0);
    }
  x->n = n;
  return CN_OK;
}

void
cn_mpfi_vec_clear (cn_mpfi_vec *x)
{
  if (x == NULL || x->v == NULL)
    return;
  for (int64_t i = 0; i < x->n; i++)
    mpfi_clear (x->v[i]);
  free (x->v);
  x->v = NULL;
  x->n = 0;
}
