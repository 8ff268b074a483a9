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
#include "certs/certs_impl.h"
#include "ops/cases_impl.h"
#include "ops/ops_impl.h"

static unsigned long seed;
static cn__rng rng;             /* the tests' one generator state, seeded by tu_init */
static int initialised;

void
tu_init (void)
{
  if (initialised)
    return;
  initialised = 1;
  const char *s = getenv ("CN_TEST_SEED");
  seed = s != NULL ? strtoul (s, NULL, 10) : (unsigned long) time (NULL);
  cn__rng_seed (&rng, seed);
  fprintf (stderr, "CN_TEST_SEED=%lu (include this in bug reports)\n", seed);
}

unsigned long
tu_seed (void)
{
  tu_init ();
  return seed;
}

cn__rng *
tu_rng (void)
{
  tu_init ();
  return &rng;
}

uint64_t
tu_rand (void)
{
  return cn__rng_next (tu_rng ());
}

double
tu_uniform (double a, double b)
{
  return cn__rng_uniform (tu_rng (), a, b);
}

int64_t
tu_int (int64_t a, int64_t b)
{
  return cn__rng_int (tu_rng (), a, b);
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

int tu_element_sorts = 0;

/* The programs of the custom instances drawn, which the instances borrow: freed at exit. */
static cn_graph **programs;
static size_t n_programs, programs_cap;

static void
programs_free (void)
{
  for (size_t i = 0; i < n_programs; i++)
    cn_graph_free (programs[i]);
  free (programs);
  programs = NULL;
  n_programs = programs_cap = 0;
}

static void
programs_keep (cn_graph *g)
{
  if (n_programs == programs_cap)
    {
      if (programs == NULL)
        atexit (programs_free);
      programs_cap = programs_cap ? 2 * programs_cap : 64;
      programs = realloc (programs, programs_cap * sizeof *programs);
      if (programs == NULL)
        {
          fprintf (stderr, "tu_op_case: out of memory for custom's programs\n");
          abort ();
        }
    }
  programs[n_programs++] = g;
}

int
tu_op_case (cn_op op, struct cn__op_case *c)
{
  if (op != CN_OP_CUSTOM)
    return cn__op_case_draw (op, tu_rng (), tu_element_sorts, c);
  /* custom, whose program only a graph can hold: drawn above the IR (src/certs/case_custom.c) */
  cn_graph *progs[CN__CASE_CUSTOM_PROGRAMS];
  int n = 0;
  cn_error err;
  cn_error_clear (&err);
  cn_status st = cn__case_custom (tu_rng (), c, progs, &n, &err);
  for (int i = 0; i < n; i++)
    programs_keep (progs[i]);
  if (st != CN_OK)
    {
      fprintf (stderr, "tu_op_case: drawing an instance of custom failed: %s\n", err.msg);
      abort ();
    }
  c->element_sorts = tu_element_sorts;
  return 1;
}

cn_status
tu_op_graph (const struct cn__op_case *c, cn_graph **out, cn_error *err)
{
  return cn__case_graph (c, tu_rng (), out, err);
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

/* ---- shapes of the case generators ---------------------------------------------------------- */

void
tu_small_shape (cn_shape *s, int64_t emax)
{
  cn__case_small_shape (tu_rng (), s, emax);
}

void
tu_shape_set (cn_shape *s, int rank, const int64_t *dim)
{
  cn__case_shape_set (s, rank, dim);
}

/* ---- central differences of a gradient ------------------------------------------------------ */

double
tu_grid20 (double v)
{
  return cn__case_grid20 (v);
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
tu_port_value (const struct cn__op_case *c, int i)
{
  return cn__case_port_value (c, i, tu_rng ());
}

void
tu_draw_point (const struct cn__op_case *c, double *x)
{
  cn__case_draw_point (c, tu_rng (), x);
}

void
tu_value_dirs (const struct cn__op_case *c, double *dx, int float_only)
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
tu_draw_probe (const struct cn__op_case *c, double *x, double *w, int64_t m, double *dx, int64_t n, int float_only)
{
  tu_draw_point (c, x);
  if (w != NULL)
    for (int64_t j = 0; j < m; j++)
      w[j] = tu_uniform (-1, 1);
  for (int64_t i = 0; i < n; i++)
    dx[i] = tu_rand_dir ();
  tu_value_dirs (c, dx, float_only);
}

int
tu_unary (cn_graph *g, cn_op op, int x)
{
  cn_error err;
  cn_error_clear (&err);
  int y;
  cn_params_leaky_relu lp = { .negative_slope = 0.1 };
  cn_params_elu ep = { .alpha = 0.8 };
  const void *params = op == CN_OP_LEAKY_RE_LU ? (const void *) &lp : op == CN_OP_ELU ? (const void *) &ep : NULL;
  ck_assert_msg (cn_graph_add_node (g, op, params, 1, &x, "act", &y, &err) == CN_OK, "%s", err.msg);
  return y;
}

void
tu_random_box (cn_box *b)
{
  int kind = (int) tu_int (0, 3);
  for (int64_t j = 0; j < b->n; j++)
    {
      double c = tu_uniform (-2, 2), r;
      switch (kind)
        {
        case 0: r = 0; break;
        case 1: r = tu_uniform (0, 1e-6); break;
        case 2: r = tu_uniform (0, 0.5); break;
        default: r = tu_uniform (0, 3); break;
        }
      b->lo[j] = c - r;
      b->hi[j] = c + r;
      if (b->lo[j] > b->hi[j])
        b->lo[j] = b->hi[j];
    }
}

void
tu_sample_box (const cn_box *b, double *x, int corner, int integer, int binary32)
{
  for (int64_t j = 0; j < b->n; j++)
    {
      x[j] = corner ? (tu_rand () & 1 ? b->hi[j] : b->lo[j]) : tu_uniform (b->lo[j], b->hi[j]);
      if (integer)
        x[j] = fmin (fmax (round (x[j]), b->lo[j]), b->hi[j]);
      else if (binary32 && (double) (float) x[j] >= b->lo[j] && (double) (float) x[j] <= b->hi[j])
        x[j] = (float) x[j];
    }
}
