/* SPDX-License-Identifier: MIT */
/* src/core/clock.h: the monotonic clock of the library's timings and deadlines (internal). */
#ifndef CN_CORE_CLOCK_H
#define CN_CORE_CLOCK_H

#include <time.h>

/* Seconds on CLOCK_MONOTONIC (from an arbitrary origin): differences are elapsed times, never
 * changed by a change of the wall clock. */
static inline double
cn__now (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (double) ts.tv_sec + 1e-9 * (double) ts.tv_nsec;
}

#endif
