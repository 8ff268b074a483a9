/* SPDX-License-Identifier: MIT */
/* tests/op_cases_custom.c: placeholder; the case generators are being written. */
#include <config.h>
#include "testutil.h"

int
tu_op_case_custom (cn_op op, struct tu_op_case *c)
{
  (void) op;
  (void) c;
  return 0;
}
