/* SPDX-License-Identifier: MIT */
/* tests/check_tape.c: placeholder (skips) until the tape tests are written. */
#include <config.h>
int
main (void)
{
  return 77;
}
