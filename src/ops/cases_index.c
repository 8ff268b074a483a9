/* SPDX-License-Identifier: MIT */
/* src/ops/cases_index.c: random instances of gather, scatter, indices, indexAt, embedding,
 * flip and detach for the generic tests.
 *
 * Index ports are constants with integer entries (const_integer) drawn uniformly in
 * [0, bound - 1], so that every draw is valid and the IBP and CROWN arms see point indices.
 * indexAt draws its input with equal extents on the indexed axes, since one range serves every
 * component of the index tuples.  crown_ok is set where the CROWN arm is exact data movement:
 * gather, indexAt, embedding, scatter with REPLACE or SUM, indices, flip, detach (at the model's
 * scalar and at Booleans; flip, gather and scatter also draw integer words, without CROWN). */
#include <config.h>
#include <math.h>
#include <string.h>
#include "ops/cases_impl.h"

static void
set_index (struct cn__op_case *c, int i, int64_t bound)
{
  c->in_const[i] = 1;
  c->const_integer[i] = 1;
  c->const_lo[i] = 0;
  c->const_hi[i] = (double) (bound - 1);
}

/* The element sort of a case whose non-index ports (all but input SKIP) are element ports (flip,
 * gather, scatter: the seed's element argument), drawn by cn__case_element_sort: the model's scalar,
 * Booleans or integer words.  For words X is drawn integer-valued in a range the sort holds (a
 * quarter or half of it, within 2^24 so that X is exact in binary32: scatter's sums wrap at 8 and
 * 16 bits, its products at every width); CROWN stays in (the cast feeding a word port is
 * discharged over its box).  Returns the sort. */
static cn_dtype
index_element_sort (cn__rng *r, struct cn__op_case *c, int skip)
{
  cn_dtype es = cn__case_element_sort (r, c, 1);
  for (int i = 0; i < c->n_in; i++)
    if (i != skip)
      c->in_dtype[i] = es;
  if (es != CN_DTYPE_F64 && es != CN_DTYPE_BOOL)
    cn__case_set_word_range (c, es);   /* CROWN stays: the cast feeding a word port is discharged over its box */
  return es;
}

int
cn__cases_index (cn_op op, struct cn__op_case *c, cn__rng *r)
{
  switch (op)
    {
    case CN_OP_GATHER:
    case CN_OP_SCATTER:
      {
        cn_shape x = cn__case_rand_shape (r, 1, 3, 4, INT64_MAX), ix = x;
        int ax = (int) cn__rng_int (r, 0, x.rank - 1);
        for (int a = 0; a < x.rank; a++)
          ix.dim[a] = a == ax ? cn__rng_int (r, 1, 5) : cn__rng_int (r, 1, x.dim[a]);
        c->in_shape[0] = x;
        c->in_shape[1] = ix;
        set_index (c, 1, x.dim[ax]);
        c->crown_ok = 1;
        if (op == CN_OP_GATHER)
          {
            c->n_in = 2;
            c->params.gather.axis = ax;
          }
        else
          {
            c->n_in = 3;
            c->in_shape[2] = ix;
            c->params.scatter.axis = ax;
            c->params.scatter.reduce = (cn_scatter_reduce) cn__rng_int (r, CN_SCATTER_REPLACE, CN_SCATTER_MIN);
            c->crown_ok = c->params.scatter.reduce == CN_SCATTER_REPLACE || c->params.scatter.reduce == CN_SCATTER_SUM;
          }
        /* a Boolean scatter is a replacement */
        if (index_element_sort (r, c, 1) == CN_DTYPE_BOOL && op == CN_OP_SCATTER)
          {
            c->params.scatter.reduce = CN_SCATTER_REPLACE;
            c->crown_ok = 1;
          }
        return 1;
      }
    case CN_OP_INDEX_AT:
      {
        cn_shape x = cn__case_rand_shape (r, 1, 3, 4, INT64_MAX), ix;
        int na = (int) cn__rng_int (r, 1, x.rank);
        int64_t b = cn__rng_int (r, 1, 4);
        for (int a = 0; a < na; a++)
          x.dim[a] = b;
        ix = cn__case_rand_shape (r, 0, 2, 3, INT64_MAX);
        ix.dim[ix.rank++] = na;
        c->n_in = 2;
        c->in_shape[0] = x;
        c->in_shape[1] = ix;
        set_index (c, 1, b);
        c->crown_ok = 1;
        index_element_sort (r, c, 1);   /* x moves Booleans and words too */
        return 1;
      }
    case CN_OP_EMBEDDING:
      {
        cn_shape w;
        memset (&w, 0, sizeof w);
        w.rank = 2;
        w.dim[0] = cn__rng_int (r, 1, 5);
        w.dim[1] = cn__rng_int (r, 1, 4);
        c->n_in = 2;
        c->in_shape[0] = cn__case_rand_shape (r, 0, 2, 4, INT64_MAX);
        c->in_shape[1] = w;
        set_index (c, 0, w.dim[0]);
        c->crown_ok = 1;
        return 1;
      }
    case CN_OP_INDICES:
      c->n_in = 1;
      c->in_shape[0] = cn__case_rand_shape (r, 1, 3, 4, INT64_MAX);
      c->params.indices.axis = (int) cn__rng_int (r, 0, c->in_shape[0].rank - 1);
      c->crown_ok = 1;
      return 1;
    case CN_OP_FLIP:
      c->n_in = 1;
      c->in_shape[0] = cn__case_rand_shape (r, 0, 3, 4, INT64_MAX);
      for (int a = 0; a < c->in_shape[0].rank; a++)
        if (cn__rng_int (r, 0, 1))
          c->params.flip.axes |= 1u << a;
      c->crown_ok = 1;
      index_element_sort (r, c, -1);
      return 1;
    case CN_OP_DETACH:
      c->n_in = 1;
      c->in_shape[0] = cn__case_rand_shape (r, 0, 3, 4, INT64_MAX);
      c->crown_ok = 1;
      return 1;
    default:
      return 0;
    }
}
