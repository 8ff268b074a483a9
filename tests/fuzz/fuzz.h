/* SPDX-License-Identifier: MIT */
/* tests/fuzz/fuzz.h: what every fuzz harness shares (doc/FUZZING.md).
 *
 * A harness is one function, LLVMFuzzerTestOneInput (DATA, SIZE), that hands the bytes to one of
 * certnn's readers and checks what the library promises about any input at all: it returns (no
 * crash, no memory error, no leak: the sanitizers and libFuzzer watch those), and a refusal is a
 * status other than CN_OK with a non-empty message, never a silent failure.  What it accepts it
 * must also be able to use and free.  A broken promise is reported by fuzz_fail, which aborts:
 * libFuzzer then keeps the input as a crash, and the replay driver (tests/fuzz/replay.c) fails.
 *
 * Built two ways: with clang's -fsanitize=fuzzer by tools/fuzz.sh, and with the ordinary compiler
 * into the replay programs that make check runs over the corpora and every crash ever found. */
#ifndef CN_FUZZ_H
#define CN_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "certnn/certnn.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

/* The size limit the harnesses run under (cn_set_max_numel): 2^20 numbers, 8 MiB in binary64, so
 * that an input claiming a huge tensor meets the library's refusal (CN_ELIMIT) and not
 * libFuzzer's memory limit.  Every harness calls fuzz_setup first. */
#define FUZZ_MAX_NUMEL ((int64_t) 1 << 20)

static inline void
fuzz_setup (void)
{
  cn_set_max_numel (FUZZ_MAX_NUMEL);
}

/* Reports a broken promise and aborts (the harness is a test, not the library). */
static inline void
fuzz_fail (const char *harness, const char *what, const cn_error *err)
{
  fprintf (stderr, "fuzz %s: %s (status %s, message \"%s\")\n", harness, what,
           err != NULL ? cn_status_name (err->code) : "-", err != NULL ? err->msg : "");
  abort ();
}

/* Checks that a reader's status ST is explained: CN_OK with no message recorded, or a failure
 * whose record holds the same code and a non-empty message. */
static inline void
fuzz_check_status (const char *harness, cn_status st, const cn_error *err)
{
  if (st == CN_OK)
    {
      if (err->code != CN_OK)
        fuzz_fail (harness, "CN_OK returned with an error recorded", err);
      return;
    }
  if (st < 0 || st >= CN_STATUS_COUNT)
    fuzz_fail (harness, "a status outside cn_status", err);
  if (err->code != st)
    fuzz_fail (harness, "the returned status is not the recorded one", err);
  if (err->msg[0] == '\0')
    fuzz_fail (harness, "a failure without a message", err);
}

/* A NUL-terminated copy of DATA[0..SIZE-1] (NULL when out of memory: the harness returns). */
static inline char *
fuzz_strndup (const uint8_t *data, size_t size)
{
  char *s = malloc (size + 1);
  if (s != NULL)
    {
      if (size > 0)
        memcpy (s, data, size);
      s[size] = '\0';
    }
  return s;
}

#endif
