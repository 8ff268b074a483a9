/* SPDX-License-Identifier: MIT */
/* tests/testutil.c: helpers shared by the test programs. */
#include <config.h>
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include "testutil.h"
#include "ops/ops_impl.h"

static unsigned long seed;
static uint64_t state[4];
static int initialised;

static uint64_t
splitmix (uint64_t *x)
{
  uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

void
tu_init (void)
{
  if (initialised)
    return;
  initialised = 1;
  const char *s = getenv ("CN_TEST_SEED");
  seed = s != NULL ? strtoul (s, NULL, 10) : (unsigned long) time (NULL);
  uint64_t x = seed;
  for (int i = 0; i < 4; i++)
    state[i] = splitmix (&x);
  fprintf (stderr, "CN_TEST_SEED=%lu (include this in bug reports)\n", seed);
}

unsigned long
tu_seed (void)
{
  tu_init ();
  return seed;
}

static inline uint64_t
rotl (uint64_t x, int k)
{
  return (x << k) | (x >> (64 - k));
}

uint64_t
tu_rand (void)
{
  tu_init ();
  uint64_t r = rotl (state[1] * 5, 7) * 9, t = state[1] << 17;
  state[2] ^= state[0];
  state[3] ^= state[1];
  state[1] ^= state[2];
  state[0] ^= state[3];
  state[2] ^= t;
  state[3] = rotl (state[3], 45);
  return r;
}

double
tu_uniform (double a, double b)
{
  double u = (double) (tu_rand () >> 11) * 0x1p-53;
  double x = a + (b - a) * u;
  return x < a ? a : (x > b ? b : x);
}

int64_t
tu_int (int64_t a, int64_t b)
{
  if (b <= a)
    return a;
  return a + (int64_t) (tu_rand () % (uint64_t) (b - a + 1));
}

const char *
tu_srcdir (void)
{
  const char *s = getenv ("CN_SRCDIR");
  return s != NULL && *s ? s : ".";
}

const char *
tu_benchmarks (void)
{
  static char path[4096];
  const char *env = getenv ("CN_BENCHMARKS");
  struct stat sb;
  if (env != NULL && *env)
    snprintf (path, sizeof path, "%s", env);
  else
    snprintf (path, sizeof path, "%s/../shared/benchmarks", tu_srcdir ());
  if (stat (path, &sb) != 0 || !S_ISDIR (sb.st_mode))
    return NULL;
  return path;
}

char *
tu_read_file (const char *path, size_t *len)
{
  FILE *f = fopen (path, "rb");
  if (f == NULL)
    return NULL;
  size_t cap = 1 << 16, n = 0;
  char *buf = malloc (cap + 1);
  while (buf != NULL)
    {
      size_t r = fread (buf + n, 1, cap - n, f);
      n += r;
      if (n < cap)
        break;
      char *nb = realloc (buf, 2 * cap + 1);
      if (nb == NULL)
        {
          free (buf);
          buf = NULL;
          break;
        }
      buf = nb;
      cap *= 2;
    }
  if (buf != NULL && ferror (f))
    {
      free (buf);
      buf = NULL;
    }
  fclose (f);
  if (buf == NULL)
    return NULL;
  buf[n] = '\0';
  if (len != NULL)
    *len = n;
  return buf;
}

int
tu_op_case (cn_op op, struct tu_op_case *c)
{
  memset (c, 0, sizeof *c);
  c->op = op;
  int (*const gen[]) (cn_op, struct tu_op_case *) = { tu_op_case_basic, tu_op_case_linear, tu_op_case_transcendental,
                                                        tu_op_case_activation, tu_op_case_arith, tu_op_case_rounding,
                                                        tu_op_case_softmax, tu_op_case_loss, tu_op_case_scan,
                                                        tu_op_case_index, tu_op_case_prod, tu_op_case_logic,
                                                        tu_op_case_integer, tu_op_case_random, tu_op_case_attention,
                                                        tu_op_case_custom };
  for (size_t i = 0; i < sizeof gen / sizeof gen[0]; i++)
    {
      memset (c, 0, sizeof *c);
      c->op = op;
      if (gen[i] (op, c))
        {
          /* an operator with several outputs: the case exposes one of them, drawn here */
          int n_out = cn_op_n_outputs (op);
          if (n_out > 1)
            c->out_index = (int) tu_int (0, n_out - 1);
          return 1;
        }
    }
  return 0;
}

cn_status
tu_op_graph (const struct tu_op_case *c, cn_graph **out, cn_error *err)
{
  cn_graph *g = NULL;
  cn_status st = cn_graph_create (&g, err);
  if (st != CN_OK)
    return st;
  int64_t total = 0;
  for (int i = 0; i < c->n_in; i++)
    if (!c->in_const[i])
      total += cn_shape_numel (&c->in_shape[i]);
  cn_shape xs;
  int64_t dim0 = total > 0 ? total : 1;
  cn_shape_make (&xs, 1, &dim0, NULL);
  int x, ins[TU_MAX_IN], y;
  if ((st = cn_graph_add_input (g, "x", CN_DTYPE_F64, &xs, &x, err)) != CN_OK)
    goto fail;
  int64_t off = 0;
  for (int i = 0; i < c->n_in; i++)
    {
      int64_t n = cn_shape_numel (&c->in_shape[i]);
      cn_dtype sort = c->in_dtype[i];
      if (c->in_const[i])
        {
          /* Drawn in binary64, then converted exactly to the port's sort (Booleans 0/1, words
           * integers in [const_lo, const_hi]). */
          cn_tensor t, ts;
          if ((st = cn_tensor_init (&t, CN_DTYPE_F64, &c->in_shape[i], err)) != CN_OK)
            goto fail;
          for (int64_t j = 0; j < n; j++)
            ((double *) t.data)[j] = sort == CN_DTYPE_BOOL ? (double) tu_int (0, 1)
                                     : c->const_integer[i] || !cn_dtype_is_float (sort)
                                       ? (double) tu_int ((int64_t) c->const_lo[i], (int64_t) c->const_hi[i])
                                       : tu_uniform (c->const_lo[i], c->const_hi[i]);
          if (cn_dtype_is_float (sort))
            st = cn_graph_add_constant (g, "c", &t, &ins[i], err);
          else if ((st = cn_tensor_convert (&ts, sort, &t, err)) == CN_OK)
            {
              st = cn_graph_add_constant (g, "c", &ts, &ins[i], err);
              cn_tensor_clear (&ts);
            }
          cn_tensor_clear (&t);
          if (st != CN_OK)
            goto fail;
          continue;
        }
      cn_params_slice sl;
      memset (&sl, 0, sizeof sl);
      sl.rank = 1;
      sl.start[0] = off;
      sl.stop[0] = off + n;
      sl.step[0] = 1;
      int part;
      if ((st = cn_graph_add_node (g, CN_OP_SLICE, &sl, 1, &x, "part", &part, err)) != CN_OK)
        goto fail;
      cn_params_reshape rs;
      memset (&rs, 0, sizeof rs);
      rs.shape = c->in_shape[i];
      if ((st = cn_graph_add_node (g, CN_OP_RESHAPE, &rs, 1, &part, "port", &ins[i], err)) != CN_OK)
        goto fail;
      off += n;
      if (sort == CN_DTYPE_BOOL)
        {
          /* a Boolean port reads gt(part, 0) */
          cn_tensor z;
          int zero, part_f = ins[i];
          if ((st = cn_tensor_init (&z, CN_DTYPE_F64, &c->in_shape[i], err)) != CN_OK)
            goto fail;
          st = cn_graph_add_constant (g, "zero", &z, &zero, err);
          cn_tensor_clear (&z);
          int gin[2] = { part_f, zero };
          if (st != CN_OK || (st = cn_graph_add_node (g, CN_OP_GT, NULL, 2, gin, "bool port", &ins[i], err)) != CN_OK)
            goto fail;
        }
      else if (!cn_dtype_is_float (sort))
        {
          /* an integer port reads cast(part) (the tests draw X integer-valued: x_integer) */
          cn_params_cast pc = { .to = sort };
          int part_f = ins[i];
          if ((st = cn_graph_add_node (g, CN_OP_CAST, &pc, 1, &part_f, "word port", &ins[i], err)) != CN_OK)
            goto fail;
        }
    }
  if ((st = cn_graph_add_node (g, c->op, &c->params, c->n_in, ins, "op", &y, err)) != CN_OK)
    goto fail;
  y = cn_graph_node_output (g, cn_graph_value_producer (g, y), c->out_index);
  if ((st = cn_graph_set_outputs (g, 1, &y, err)) != CN_OK)
    goto fail;
  *out = g;
  return CN_OK;
fail:
  cn_graph_free (g);
  return st;
}

int tu_element_sorts = 0;

cn_dtype
tu_draw_element_sort (int allow_bool)
{
  static const cn_dtype words[] = { CN_DTYPE_I8, CN_DTYPE_I16, CN_DTYPE_I32, CN_DTYPE_I64,
                                    CN_DTYPE_U8, CN_DTYPE_U16, CN_DTYPE_U32, CN_DTYPE_U64 };
  if (!tu_element_sorts || tu_int (0, 1) == 0)
    return CN_DTYPE_F64;
  if (allow_bool && tu_int (0, 2) == 0)
    return CN_DTYPE_BOOL;
  return words[tu_int (0, 7)];
}

void
tu_set_word_range (struct tu_op_case *c, cn_dtype es)
{
  int e = 8 * (int) cn_dtype_size (es) - 2 + (es > CN_DTYPE_I64);
  double r = ldexp (1, e < 24 ? e : 24);
  c->x_integer = 1;
  c->x_lo = es > CN_DTYPE_I64 ? 0 : -r;
  c->x_hi = r;
}

cn_status
tu_dense_layer (cn_graph *g, int x, int in, int out, const double *w, const double *b, int *y, cn_error *err)
{
  cn_tensor wt, bt;
  cn_shape ws = { .rank = 2, .dim = { out, in } }, bs = { .rank = 1, .dim = { out } };
  cn_status st = cn_tensor_init (&wt, CN_DTYPE_F64, &ws, err);
  if (st != CN_OK)
    return st;
  if ((st = cn_tensor_init (&bt, CN_DTYPE_F64, &bs, err)) != CN_OK)
    {
      cn_tensor_clear (&wt);
      return st;
    }
  memcpy (wt.data, w, (size_t) out * (size_t) in * sizeof *w);
  memcpy (bt.data, b, (size_t) out * sizeof *b);
  int wv, bv;
  if ((st = cn_graph_add_constant (g, "w", &wt, &wv, err)) == CN_OK
      && (st = cn_graph_add_constant (g, "b", &bt, &bv, err)) == CN_OK)
    st = cn_graph_add_node (g, CN_OP_LINEAR, NULL, 3, (int[]) { x, wv, bv }, "fc", y, err);
  cn_tensor_clear (&wt);
  cn_tensor_clear (&bt);
  return st;
}

cn_status
tu_linear_layer (cn_graph *g, int x, int in, int out, int *y, cn_error *err)
{
  double *w = malloc ((size_t) out * (size_t) in * sizeof *w + 1), *b = malloc ((size_t) out * sizeof *b + 1);
  if (w == NULL || b == NULL)
    {
      free (w);
      free (b);
      return cn_error_set (err, CN_ENOMEM, "testutil: out of memory");
    }
  for (int64_t i = 0; i < (int64_t) out * in; i++)
    w[i] = tu_uniform (-1, 1);
  for (int64_t i = 0; i < out; i++)
    b[i] = tu_uniform (-0.5, 0.5);
  cn_status st = tu_dense_layer (g, x, in, out, w, b, y, err);
  free (w);
  free (b);
  return st;
}

cn_status
tu_eval_mpfi (const cn_graph *g, const double *x, mpfr_prec_t prec, cn_mpfi_vec *out, cn_error *err)
{
  cn_mpfi_vec in;
  int64_t n = cn_shape_numel (cn_graph_value_shape (g, cn_graph_input (g, 0)));
  cn_status st = cn_mpfi_vec_init (&in, n, prec, err);
  if (st != CN_OK)
    return st;
  for (int64_t j = 0; j < n; j++)
    mpfi_set_d (in.v[j], x[j]);
  st = cn_reference_ibp (g, &in, prec, out, err);
  cn_mpfi_vec_clear (&in);
  return st;
}

int
tu_run_suite (Suite *s)
{
  SRunner *sr = srunner_create (s);
  srunner_set_fork_status (sr, CK_NOFORK);
  srunner_run_all (sr, CK_NORMAL);
  int failed = srunner_ntests_failed (sr);
  srunner_free (sr);
  return failed == 0 ? 0 : 1;
}

/* ---- shapes and constants of the case generators -------------------------------------------- */

void
tu_small_shape (cn_shape *s, int64_t emax)
{
  int rank = (int) tu_int (1, 3);
  int64_t d[3];
  for (int a = 0; a < rank; a++)
    d[a] = tu_int (1, emax);
  cn_shape_make (s, rank, d, NULL);
}

cn_shape
tu_rand_shape (int rmin, int rmax, int64_t emax, int64_t maxn)
{
  cn_shape s;
  memset (&s, 0, sizeof s);
  s.rank = (int) tu_int (rmin, rmax);
  int64_t n = 1;
  for (int a = 0; a < s.rank; a++)
    {
      int64_t hi = emax;
      while (hi > 1 && n > maxn / hi)
        hi--;
      s.dim[a] = tu_int (1, hi);
      n *= s.dim[a];
    }
  return s;
}

void
tu_shape_set (cn_shape *s, int rank, const int64_t *dim)
{
  memset (s, 0, sizeof *s);
  s->rank = rank;
  for (int i = 0; i < rank; i++)
    s->dim[i] = dim[i];
}

void
tu_set_const (struct tu_op_case *c, int i, double lo, double hi)
{
  c->in_const[i] = 1;
  c->const_lo[i] = lo;
  c->const_hi[i] = hi;
}

void
tu_pair_case (struct tu_op_case *c)
{
  c->n_in = 2;
  tu_small_shape (&c->in_shape[0], 4);
  c->in_shape[1] = c->in_shape[0];
  for (int i = 0; i < 2; i++)
    {
      c->const_lo[i] = -2;
      c->const_hi[i] = 2;
    }
  /* sometimes one constant operand */
  switch ((int) tu_int (0, 3))
    {
    case 0: c->in_const[0] = 1; break;
    case 1: c->in_const[1] = 1; break;
    default: break;
    }
}

void
tu_conv_ports (struct tu_op_case *c, int nd, const int64_t *xd, const int64_t *wd, int64_t nbias)
{
  c->n_in = 3;
  tu_shape_set (&c->in_shape[0], nd + 2, xd);
  tu_shape_set (&c->in_shape[1], nd + 2, wd);
  tu_shape_set (&c->in_shape[2], 1, &nbias);
  if (tu_int (0, 6) > 0)
    {
      tu_set_const (c, 1, -1, 1);
      tu_set_const (c, 2, -1, 1);
      c->crown_ok = 1;
    }
  else
    tu_set_const (c, 2, -1, 1);            /* a varying weight: IBP of interval products */
}

/* Whether some position a + k d (0 <= k < K) lies in [0, S). */
static int
window_hits (int64_t a, int64_t K, int64_t d, int64_t S)
{
  int64_t k0 = a >= 0 ? 0 : (-a + d - 1) / d;
  return k0 < K && a + k0 * d < S;
}

int
tu_pool_extent (const cn_params_pool *p, int i, int64_t smax, int64_t budget, int64_t *sp, int64_t *xd)
{
  int64_t K = p->kernel[i];
  int64_t span = p->dilation[i] * (K - 1) + 1;
  int64_t smin = span - p->pad_begin[i] - p->pad_end[i];
  if (smin < 1)
    smin = 1;
  if (smax < smin)
    smax = smin;
  int64_t S = tu_int (smin, smax);
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

static const cn_dtype word_sorts[] = { CN_DTYPE_I8, CN_DTYPE_I16, CN_DTYPE_I32, CN_DTYPE_I64,
                                       CN_DTYPE_U8, CN_DTYPE_U16, CN_DTYPE_U32, CN_DTYPE_U64 };

cn_dtype
tu_rand_word_sort (void)
{
  return word_sorts[tu_int (0, (int64_t) (sizeof word_sorts / sizeof word_sorts[0]) - 1)];
}

/* ---- central differences of a gradient ------------------------------------------------------ */

double
tu_grid20 (double v)
{
  return ldexp (nearbyint (ldexp (v, 20)), -20);
}

double
tu_rand_dir (void)
{
  return ldexp ((double) tu_int (-1024, 1024), -10);
}

int
tu_phi_at (const cn_graph *g, const double *x, const double *w, int64_t m, mpfr_t phi, cn_error *err)
{
  cn_error_clear (err);
  mpfr_set_zero (phi, 1);
  cn_mpfi_vec y;
  if (tu_eval_mpfi (g, x, TU_GRAD_PREC, &y, err) != CN_OK)
    return -1;
  ck_assert_int_eq (y.n, m);
  mpfr_t t;
  mpfr_init2 (t, 2 * TU_GRAD_PREC);
  int ok = 1;
  for (int64_t j = 0; j < m; j++)
    {
      mpfi_mid (t, y.v[j]);
      ok &= mpfr_number_p (t) != 0;
      mpfr_mul_d (t, t, w[j], MPFR_RNDN);
      mpfr_add (phi, phi, t, MPFR_RNDN);
    }
  mpfr_clear (t);
  cn_mpfi_vec_clear (&y);
  return ok;
}

int
tu_dir_check (const char *what, const cn_graph *g, const double *x, const double *w, const double *gx,
              const double *dx, int64_t n, int64_t m, int strict, double *worst)
{
  double *xp = malloc ((size_t) (n + 1) * sizeof *xp), *xm = malloc ((size_t) (n + 1) * sizeof *xm);
  ck_assert (xp != NULL && xm != NULL);
  for (int64_t i = 0; i < n; i++)
    {
      xp[i] = x[i] + TU_GRAD_STEP * dx[i];
      xm[i] = x[i] - TU_GRAD_STEP * dx[i];
      /* exact: x on the grid 2^-20, |x| < 2^3, STEP dx on the grid 2^-40 */
      ck_assert (xp[i] - x[i] == TU_GRAD_STEP * dx[i] && x[i] - xm[i] == TU_GRAD_STEP * dx[i]);
    }
  mpfr_t pp, p0, pm, d1, d2;
  mpfr_inits2 (2 * TU_GRAD_PREC, pp, p0, pm, d1, d2, (mpfr_ptr) 0);
  const double *pt[3] = { xp, x, xm };
  mpfr_ptr ph[3] = { pp, p0, pm };
  int ok = 1;
  for (int k = 0; k < 3 && ok; k++)
    {
      cn_error err;
      int r = tu_phi_at (g, pt[k], w, m, ph[k], &err);
      if (strict)
        ck_assert_msg (r >= 0, "%s: reference failed: %s (CN_TEST_SEED=%lu)", what, err.msg, tu_seed ());
      else
        ok = r == 1;
    }
  double cd = 0, kink = 0;
  if (ok)
    {
      mpfr_sub (d1, pp, pm, MPFR_RNDN);
      mpfr_div_d (d1, d1, 2 * TU_GRAD_STEP, MPFR_RNDN);   /* the central difference */
      mpfr_add (d2, pp, pm, MPFR_RNDN);
      mpfr_mul_2ui (p0, p0, 1, MPFR_RNDN);
      mpfr_sub (d2, d2, p0, MPFR_RNDN);
      mpfr_div_d (d2, d2, 2 * TU_GRAD_STEP, MPFR_RNDN);   /* what a kink could add to the difference */
      cd = mpfr_get_d (d1, MPFR_RNDN);
      kink = fabs (mpfr_get_d (d2, MPFR_RNDN));
    }
  mpfr_clears (pp, p0, pm, d1, d2, (mpfr_ptr) 0);
  free (xp);
  free (xm);
  if (!ok)
    return 0;
  double dot = 0, mag = 0;
  for (int64_t i = 0; i < n; i++)
    {
      dot += gx[i] * dx[i];
      mag += fabs (gx[i] * dx[i]);
    }
  double scale = mag + fabs (cd);
  if ((!strict && !isfinite (dot)) || kink > 0.1 * TU_GRAD_TOL * scale)
    return 0;
  double e = fabs (dot - cd);
  ck_assert_msg (e <= TU_GRAD_TOL * scale,
                 "%s: <grad, dx> = %.17g, central difference %.17g (error %.3g, scale %.3g, CN_TEST_SEED=%lu)", what,
                 dot, cd, e, scale, tu_seed ());
  if (scale > 0 && e / scale > *worst)
    *worst = e / scale;
  return 1;
}

double
tu_port_value (const struct tu_op_case *c, int i)
{
  if (c->x_integer)
    return (double) tu_int ((int64_t) ceil (c->x_lo), (int64_t) floor (c->x_hi));
  if (c->x_lo < c->x_hi)
    {
      /* the ends moved inwards onto the grid, so that x stays a grid point inside the range */
      double lo = ldexp (ceil (ldexp (c->x_lo, 20)), -20), hi = ldexp (floor (ldexp (c->x_hi, 20)), -20);
      return fmin (fmax (tu_grid20 (tu_uniform (c->x_lo, c->x_hi)), lo), hi);
    }
  if (c->op == CN_OP_DIV && i == 1)
    return tu_grid20 ((tu_rand () & 1 ? 1 : -1) * tu_uniform (0.5, 2));
  if (c->op == CN_OP_BATCH_NORM_RUNNING && i == 4)
    return tu_grid20 (tu_uniform (0.1, 2));
  return tu_grid20 (tu_uniform (-2, 2));
}

void
tu_draw_point (const struct tu_op_case *c, double *x)
{
  int64_t off = 0;
  for (int i = 0; i < c->n_in; i++)
    {
      if (c->in_const[i])
        continue;
      int64_t k = cn_shape_numel (&c->in_shape[i]);
      for (int64_t j = 0; j < k; j++)
        x[off + j] = tu_port_value (c, i);
      off += k;
    }
}

void
tu_value_dirs (const struct tu_op_case *c, double *dx, int float_only)
{
  const struct cn_op_rule *r = cn__op_rule (c->op);
  int64_t off = 0;
  for (int i = 0; i < c->n_in; i++)
    {
      if (c->in_const[i])
        continue;
      int64_t k = cn_shape_numel (&c->in_shape[i]);
      if (!cn__port_differentiable (r, i, c->in_dtype[i]) || (float_only && c->in_dtype[i] != CN_DTYPE_F64))
        for (int64_t j = 0; j < k; j++)
          dx[off + j] = 0;
      off += k;
    }
}

void
tu_draw_probe (const struct tu_op_case *c, double *x, double *w, int64_t m, double *dx, int64_t n, int float_only)
{
  tu_draw_point (c, x);
  if (w != NULL)
    for (int64_t j = 0; j < m; j++)
      w[j] = tu_uniform (-1, 1);
  for (int64_t i = 0; i < n; i++)
    dx[i] = tu_rand_dir ();
  tu_value_dirs (c, dx, float_only);
}
