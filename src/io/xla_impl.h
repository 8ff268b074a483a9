/* SPDX-License-Identifier: MIT */
/* src/io/xla_impl.h: XLA's documented CPU behaviours, emulated for the consistent_with advice of
 * certnn check (src/io/xla.c; doc/ARTIFACT.md "XLA CPU emulation").  Internal. */
#ifndef CN_IO_XLA_IMPL_H
#define CN_IO_XLA_IMPL_H

#include "certnn/graph.h"

/* The behaviours, in the order a report lists them; their stable codes are cn__xla_code. */
enum
{
  CN__XLA_DIVISOR_RECIPROCAL,   /* a division by a broadcast divisor, or under jax.jit by a constant one,
                                   as a product by the divisor's reciprocal rounded to the format */
  CN__XLA_REWRITTEN_DIVISION,   /* jax.jit's simplifier: (x / y) / z = x / (y * z), x / (y / z) =
                                   (x * z) / y, then x / sqrt y = x * rsqrt y, x / rsqrt y = x * sqrt y,
                                   x / y^c = x * y^-c */
  CN__XLA_POWER_PRODUCTS,       /* under jax.jit a constant exponent 2, 3 or -1 as products or a
                                   reciprocal */
  CN__XLA_SUBNORMAL,            /* subnormal operands and results of bfloat16, binary32 and binary64
                                   operations flushed to zero of the same sign */
  CN__XLA_RECIPROCAL_SQRT,      /* XLA's own rsqrt: a result within 2 ulps counts as reproduced */
  CN__XLA_POWER,                /* XLA's own pow: within 1 ulp, when both operands are arguments */
  CN__XLA_COUNT
};

const char *cn__xla_code (int behaviour);

/* How XLA compiled a Jaxpr reference, as the artifact records it (its "jaxpr" member). */
typedef struct cn__xla_compilation
{
  int jit;                  /* the reference came from jax.jit (one computation: the whole program) */
  int n_nodes;
  const int *computation;   /* otherwise, per node: the computation that compiled it (-1: none) */
  int n_jit;
  const int *jit_computations;   /* the computations that are nested jax.jit calls */
} cn__xla_compilation;

/* Runs G (a decoded artifact program) on ARGS as XLA's CPU code computes it under C (the emulated
 * program: src/io/xla.c) into OUT (one tensor per program output, of its declared sort; the
 * caller clears them), and sets USED[b] (CN__XLA_COUNT entries) where behaviour b changed the
 * program: a division it rewrote, a subnormal word it flushed.  WINDOW[k] and WINDOW_BY[k] (one
 * per output) receive the window of output k, in ulps of its format, within which a word counts
 * as reproduced because XLA's own rsqrt or pow computes it (CN__XLA_RECIPROCAL_SQRT,
 * CN__XLA_POWER), or 0 and -1. */
cn_status cn__xla_emulate (const cn_graph *g, const cn__xla_compilation *c, const cn_tensor *args, cn_tensor *out,
                           int *used, int *window, int *window_by, cn_error *err);

#endif
