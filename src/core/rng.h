/* SPDX-License-Identifier: MIT */
/* src/core/rng.h: a small seeded generator for drawing instances (internal): xoshiro256** seeded
 * through splitmix64, as the tests have always drawn (CN_TEST_SEED reproduces a run).  Not for
 * anything that needs unpredictability; every caller owns its state, so draws are reproducible
 * and thread-safe per state. */
#ifndef CN_CORE_RNG_H
#define CN_CORE_RNG_H

#include <stdint.h>

typedef struct cn__rng
{
  uint64_t s[4];
} cn__rng;

/* The state for SEED: four splitmix64 steps from SEED. */
static inline void
cn__rng_seed (cn__rng *r, uint64_t seed)
{
  uint64_t x = seed;
  for (int i = 0; i < 4; i++)
    {
      uint64_t z = (x += 0x9e3779b97f4a7c15ull);
      z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
      z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
      r->s[i] = z ^ (z >> 31);
    }
}

static inline uint64_t
cn__rng_rotl (uint64_t x, int k)
{
  return (x << k) | (x >> (64 - k));
}

/* 64 random bits (xoshiro256**). */
static inline uint64_t
cn__rng_next (cn__rng *r)
{
  uint64_t *s = r->s;
  uint64_t out = cn__rng_rotl (s[1] * 5, 7) * 9, t = s[1] << 17;
  s[2] ^= s[0];
  s[3] ^= s[1];
  s[1] ^= s[2];
  s[0] ^= s[3];
  s[2] ^= t;
  s[3] = cn__rng_rotl (s[3], 45);
  return out;
}

/* Uniform in [A, B] (53 random bits, the result clamped into [A, B]). */
static inline double
cn__rng_uniform (cn__rng *r, double a, double b)
{
  double u = (double) (cn__rng_next (r) >> 11) * 0x1p-53;
  double x = a + (b - a) * u;
  return x < a ? a : (x > b ? b : x);
}

/* A uniform integer in [A, B] (A when B <= A; modulo bias below 2^-40 for the small ranges drawn). */
static inline int64_t
cn__rng_int (cn__rng *r, int64_t a, int64_t b)
{
  if (b <= a)
    return a;
  return a + (int64_t) (cn__rng_next (r) % (uint64_t) (b - a + 1));
}

#endif
