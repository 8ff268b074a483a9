/* SPDX-License-Identifier: MIT */
/* src/ops/cases.c: the dispatcher of the instance generators (cn__op_case_draw), the shape,
 * constant and sort helpers the generators of src/ops/cases_<group>.c share, and the draws of a
 * point for an instance's graph.
 *
 * Everything here draws from the caller's generator state only, in the order each comment
 * states; the tests' draws (tests/testutil.c) go through the same functions, so a seed
 * (CN_TEST_SEED) reproduces the same instances in the tests and in the library. */
#include <config.h>
#include <math.h>
#include <string.h>
#include "ops/cases_impl.h"

int
cn__op_case_draw (cn_op op, cn__rng *r, int element_sorts, struct cn__op_case *c)
{
  /* The groups in the order they are asked; each asks nothing of R unless OP is its own. */
  static int (*const gen[]) (cn_op, struct cn__op_case *, cn__rng *) = {
    cn__cases_basic, cn__cases_linear, cn__cases_transcendental, cn__cases_activation, cn__cases_arith,
    cn__cases_rounding, cn__cases_softmax, cn__cases_loss, cn__cases_scan, cn__cases_index, cn__cases_prod,
    cn__cases_logic, cn__cases_integer, cn__cases_random, cn__cases_attention
  };
  for (size_t i = 0; i < sizeof gen / sizeof gen[0]; i++)
    {
      memset (c, 0, sizeof *c);
      c->op = op;
      c->element_sorts = element_sorts;
      if (gen[i] (op, c, r))
        {
          /* an operator with several outputs: the case exposes one of them, drawn last */
          int n_out = cn_op_n_outputs (op);
          if (n_out > 1)
            c->out_index = (int) cn__rng_int (r, 0, n_out - 1);
          return 1;
        }
    }
  /* no generator: C is cleared but for op and element_sorts, and nothing was drawn */
  memset (c, 0, sizeof *c);
  c->op = op;
  c->element_sorts = element_sorts;
  return 0;
}

/* ---- shapes and constants ------------------------------------------------------------------- */

void
cn__case_small_shape (cn__rng *r, cn_shape *s, int64_t emax)
{
  int rank = (int) cn__rng_int (r, 1, 3);
  int64_t d[3];
  for (int a = 0; a < rank; a++)
    d[a] = cn__rng_int (r, 1, emax);
  cn_shape_make (s, rank, d, NULL);
}

cn_shape
cn__case_rand_shape (cn__rng *r, int rmin, int rmax, int64_t emax, int64_t maxn)
{
  cn_shape s;
  memset (&s, 0, sizeof s);
  s.rank = (int) cn__rng_int (r, rmin, rmax);
  int64_t n = 1;
  for (int a = 0; a < s.rank; a++)
    {
      int64_t hi = emax;
      while (hi > 1 && n > maxn / hi)
        hi--;
      s.dim[a] = cn__rng_int (r, 1, hi);
      n *= s.dim[a];
    }
  /* now n, the element count, is at most maxn (if maxn >= 1): each extent is 1 or at most maxn / n */
  return s;
}

void
cn__case_shape_set (cn_shape *s, int rank, const int64_t *dim)
{
  memset (s, 0, sizeof *s);
  s->rank = rank;
  for (int i = 0; i < rank; i++)
    s->dim[i] = dim[i];
}

void
cn__case_set_const (struct cn__op_case *c, int i, double lo, double hi)
{
  c->in_const[i] = 1;
  c->const_lo[i] = lo;
  c->const_hi[i] = hi;
}

void
cn__case_pair (cn__rng *r, struct cn__op_case *c)
{
  c->n_in = 2;
  cn__case_small_shape (r, &c->in_shape[0], 4);
  c->in_shape[1] = c->in_shape[0];
  for (int i = 0; i < 2; i++)
    {
      c->const_lo[i] = -2;
      c->const_hi[i] = 2;
    }
  /* sometimes one constant operand */
  switch ((int) cn__rng_int (r, 0, 3))
    {
    case 0: c->in_const[0] = 1; break;
    case 1: c->in_const[1] = 1; break;
    default: break;
    }
}

void
cn__case_conv_ports (cn__rng *r, struct cn__op_case *c, int nd, const int64_t *xd, const int64_t *wd, int64_t nbias)
{
  c->n_in = 3;
  cn__case_shape_set (&c->in_shape[0], nd + 2, xd);
  cn__case_shape_set (&c->in_shape[1], nd + 2, wd);
  cn__case_shape_set (&c->in_shape[2], 1, &nbias);
  if (cn__rng_int (r, 0, 6) > 0)
    {
      cn__case_set_const (c, 1, -1, 1);
      cn__case_set_const (c, 2, -1, 1);
      c->crown_ok = 1;
    }
  else
    cn__case_set_const (c, 2, -1, 1);      /* a varying weight: IBP of interval products */
}

/* Whether some position a + k d (0 <= k < K) lies in [0, S). */
static int
window_hits (int64_t a, int64_t K, int64_t d, int64_t S)
{
  int64_t k0 = a >= 0 ? 0 : (-a + d - 1) / d;
  return k0 < K && a + k0 * d < S;
}

int
cn__case_pool_extent (cn__rng *r, const cn_params_pool *p, int i, int64_t smax, int64_t budget, int64_t *sp,
                      int64_t *xd)
{
  int64_t K = p->kernel[i];
  int64_t span = p->dilation[i] * (K - 1) + 1;
  int64_t smin = span - p->pad_begin[i] - p->pad_end[i];
  if (smin < 1)
    smin = 1;
  if (smax < smin)
    smax = smin;
  int64_t S = cn__rng_int (r, smin, smax);
  while (S > smin && *sp * S > budget)
    S--;
  *sp *= S;
  xd[2 + i] = S;
  int64_t O = (S + p->pad_begin[i] + p->pad_end[i] - span) / p->stride[i] + 1;
  int ok = 1;
  for (int64_t o = 0; o < O && ok; o++)
    ok = window_hits (o * p->stride[i] - p->pad_begin[i], K, p->dilation[i], S);
  return ok;
}

/* ---- sorts ---------------------------------------------------------------------------------- */

static const cn_dtype word_sorts[] = { CN_DTYPE_I8, CN_DTYPE_I16, CN_DTYPE_I32, CN_DTYPE_I64,
                                       CN_DTYPE_U8, CN_DTYPE_U16, CN_DTYPE_U32, CN_DTYPE_U64 };

cn_dtype
cn__case_word_sort (cn__rng *r)
{
  return word_sorts[cn__rng_int (r, 0, (int64_t) (sizeof word_sorts / sizeof word_sorts[0]) - 1)];
}

cn_dtype
cn__case_element_sort (cn__rng *r, const struct cn__op_case *c, int allow_bool)
{
  if (!c->element_sorts || cn__rng_int (r, 0, 1) == 0)
    return CN_DTYPE_F64;
  if (allow_bool && cn__rng_int (r, 0, 2) == 0)
    return CN_DTYPE_BOOL;
  return word_sorts[cn__rng_int (r, 0, 7)];
}

void
cn__case_set_word_range (struct cn__op_case *c, cn_dtype es)
{
  int e = 8 * (int) cn_dtype_size (es) - 2 + (es > CN_DTYPE_I64);
  double m = ldexp (1, e < 24 ? e : 24);
  c->x_integer = 1;
  c->x_lo = es > CN_DTYPE_I64 ? 0 : -m;
  c->x_hi = m;
}

/* ---- points --------------------------------------------------------------------------------- */

double
cn__case_grid20 (double v)
{
  return ldexp (nearbyint (ldexp (v, 20)), -20);
}

double
cn__case_port_value (const struct cn__op_case *c, int i, cn__rng *r)
{
  if (c->x_integer)
    return (double) cn__rng_int (r, (int64_t) ceil (c->x_lo), (int64_t) floor (c->x_hi));
  if (c->x_lo < c->x_hi)
    {
      /* the ends moved inwards onto the grid, so that x stays a grid point inside the range */
      double lo = ldexp (ceil (ldexp (c->x_lo, 20)), -20), hi = ldexp (floor (ldexp (c->x_hi, 20)), -20);
      return fmin (fmax (cn__case_grid20 (cn__rng_uniform (r, c->x_lo, c->x_hi)), lo), hi);
    }
  if (c->op == CN_OP_DIV && i == 1)
    {
      double sign = cn__rng_next (r) & 1 ? 1 : -1;   /* the sign drawn first, then the magnitude */
      return cn__case_grid20 (sign * cn__rng_uniform (r, 0.5, 2));
    }
  if (c->op == CN_OP_BATCH_NORM_RUNNING && i == 4)
    return cn__case_grid20 (cn__rng_uniform (r, 0.1, 2));
  return cn__case_grid20 (cn__rng_uniform (r, -2, 2));
}

void
cn__case_draw_point (const struct cn__op_case *c, cn__rng *r, double *x)
{
  int64_t off = 0;
  for (int i = 0; i < c->n_in; i++)
    {
      if (c->in_const[i])
        continue;
      int64_t k = cn_shape_numel (&c->in_shape[i]);
      for (int64_t j = 0; j < k; j++)
        x[off + j] = cn__case_port_value (c, i, r);
      off += k;
    }
}

void
cn__case_box_in_range (cn_box *b, const struct cn__op_case *c)
{
  if (!(c->x_lo < c->x_hi))
    return;
  double s = (c->x_hi - c->x_lo) / 10;
  for (int64_t j = 0; j < b->n; j++)
    {
      double l = c->x_lo + (b->lo[j] + 5) * s, h = c->x_lo + (b->hi[j] + 5) * s;
      b->lo[j] = fmin (fmax (l, c->x_lo), c->x_hi);
      b->hi[j] = fmin (fmax (h, b->lo[j]), c->x_hi);
      if (c->x_integer)
        {
          b->lo[j] = ceil (b->lo[j]);
          b->hi[j] = fmax (floor (b->hi[j]), b->lo[j]);
        }
    }
}

void
cn__case_crown_residual (mpfi_t acc, mpfi_t t, const cn_mpfi_vec *y, const double *lam_out, int64_t n_out,
                         int n_in, const cn_mpfi_vec *x, double *const *lam_in, int64_t r, double bias)
{
  mpfi_set_ui (acc, 0);
  for (int64_t j = 0; j < n_out; j++)
    {
      mpfi_mul_d (t, y->v[j], lam_out[r * n_out + j]);
      mpfi_add (acc, acc, t);
    }
  for (int i = 0; i < n_in; i++)
    if (lam_in[i] != NULL)
      for (int64_t j = 0; j < x[i].n; j++)
        {
          mpfi_mul_d (t, x[i].v[j], lam_in[i][r * x[i].n + j]);
          mpfi_sub (acc, acc, t);
        }
  mpfi_sub_d (acc, acc, bias);
  /* now acc encloses lam_out[r] . y - sum_i lam_in[i][r] . x_i - bias */
}
