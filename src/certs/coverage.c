/* SPDX-License-Identifier: MIT */
/* src/certs/coverage.c: what the table holds for each operator, read off its rule. */
#include <config.h>
#include <string.h>
#include "ops/ops_impl.h"

void
cn_op_coverage_get (cn_op op, cn_op_coverage *cov)
{
  memset (cov, 0, sizeof *cov);
  const struct cn_op_rule *r = cn__op_rule (op);
  if (r == NULL)
    return;
  cov->rule = 1;
  cov->forward = r->forward != NULL;
  cov->pullback = r->pullback != NULL;
  cov->jvp = r->jvp != NULL;
  cov->ibp = r->ibp != NULL;
  cov->crown = r->crown != NULL;
  cov->cuda = r->cuda != 0;
}
