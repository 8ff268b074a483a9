/* SPDX-License-Identifier: MIT */
/* src/core/parallel.h: row-parallel loops that cost nothing when they run on one thread
 * (internal).
 *
 * Entering an OpenMP region costs a team set-up and a closing barrier, with libgomp a futex
 * system call, even for a team of one thread or an `if` clause that is false.  The small steps
 * of a branch and bound (hundreds of regions per domain, thousands of domains a second) must not
 * pay it, so a loop that is not worth sharing runs as a plain call. */
#ifndef CN_CORE_PARALLEL_H
#define CN_CORE_PARALLEL_H

#include <stdint.h>

/* The body of a row loop: processes rows FIRST <= s < LAST with the context CTX. */
typedef void (*cn__rows_fn) (void *ctx, int64_t first, int64_t last);

/* Runs FN over the rows [0, ROWS): shared among THREADS OpenMP threads in contiguous slices
 * when WORTH is nonzero and THREADS > 1, else as the single call FN (CTX, 0, ROWS).  FN must
 * write only what belongs to its rows. */
static inline void
cn__for_rows (int64_t rows, int threads, int worth, cn__rows_fn fn, void *ctx)
{
  if (rows <= 0)
    return;
  if (!worth || threads <= 1 || rows < 2)
    {
      fn (ctx, 0, rows);
      return;
    }
  int parts = rows < threads ? (int) rows : threads;
#pragma omp parallel for num_threads(parts) schedule(static)
  for (int p = 0; p < parts; p++)
    fn (ctx, rows * p / parts, rows * (p + 1) / parts);
}

#endif
