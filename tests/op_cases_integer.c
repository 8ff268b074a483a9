/* SPDX-License-Identifier: MIT */
/* tests/op_cases_integer.c: placeholder; the case generators are being written. */
#include <config.h>
#include "testutil.h"

int
tu_op_case_integer (cn_op op, struct tu_op_case *c)
{
  (void) op;
  (void) c;
  return 0;
}
