/* SPDX-License-Identifier: MIT */
/* tests/check_wire.c: placeholder (skips) until the wire tests are written. */
#include <config.h>
int
main (void)
{
  return 77;
}
