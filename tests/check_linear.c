/* SPDX-License-Identifier: MIT */
/* tests/check_linear.c: the sound linear bounds of certnn/bounds.h (cn_analysis_linear) and the
 * L2 input sets (cn_analysis_set_l2) against the MPFI reference.
 *
 * A linear bound lo . x + d <= v(x) <= up . x + e must hold, read exactly, at every x of the input
 * set.  At sampled points (uniform, corners; on and inside the L2 sphere) the exact value v(x)
 * is enclosed by MPFI at PREC bits and the functions are evaluated in MPFI too: a sample fails
 * when the function's enclosure lies wholly on the wrong side of the value's.  Where the two
 * enclosures overlap (a bound exact to the last bit, a reshape's) the point counts as touching,
 * which is allowed.  Three tests: every operator with a CROWN arm, in one-node graphs over random
 * boxes (a generic loop over the table); every value of generated networks (relu, leakyReLU,
 * tanh, sigmoid, a residual sum); and L2 balls, whose bounds must hold in the ball and never be
 * looser than the enclosing box's. */
#include <config.h>
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "testutil.h"

#define PREC 256
#define DRAWS 6
#define SAMPLES 10

/* The enclosure F of coef . x + d (N terms) in MPFI at PREC bits (F initialised by the caller). */
static void
mp_affine (mpfi_t f, int64_t n, const double *coef, const double *x, double d)
{
  mpfi_t t;
  mpfi_init2 (t, PREC);
  mpfi_set_d (f, d);
  for (int64_t j = 0; j < n; j++)
    {
      if (coef[j] == 0)
        continue;
      mpfi_set_d (t, coef[j]);
      mpfi_mul_d (t, t, x[j]);
      mpfi_add (f, f, t);
    }
  mpfi_clear (t);
}

struct tally
{
  long checked, touching, violated;
  char first[512];
};

/* Checks the linear bounds of the M entries of output 0 of G (the functions LO, DLO, UP, DUP over
 * N inputs) at X; the first violation is described in T->first. */
static void
check_point (const cn_graph *g, const double *x, int64_t n, int64_t m, const double *lo, const double *dlo,
             const double *up, const double *dup, struct tally *t, const char *what)
{
  cn_error err;
  cn_error_clear (&err);
  cn_mpfi_vec ref;
  if (tu_eval_mpfi (g, x, PREC, &ref, &err) != CN_OK)
    return;   /* outside the reference's domain: nothing to compare */
  mpfi_t f;
  mpfi_init2 (f, PREC);
  for (int64_t j = 0; j < m; j++)
    {
      if (mpfi_nan_p (ref.v[j]))
        continue;
      for (int side = 0; side < 2; side++)
        {
          double d = side == 0 ? dlo[j] : dup[j];
          if (isinf (d))
            continue;   /* -inf below, +inf above: nothing claimed */
          mp_affine (f, n, (side == 0 ? lo : up) + j * n, x, d);
          t->checked++;
          int wrong = side == 0 ? mpfr_cmp (&f->left, &ref.v[j]->right) > 0 : mpfr_cmp (&f->right, &ref.v[j]->left) < 0;
          int sure = side == 0 ? mpfr_cmp (&f->right, &ref.v[j]->left) <= 0 : mpfr_cmp (&f->left, &ref.v[j]->right) >= 0;
          if (wrong && t->violated++ == 0)
            snprintf (t->first, sizeof t->first,
                      "%s: entry %lld, the %s function %.17g at x[0] = %.17g is on the wrong side of the exact value "
                      "%.17g", what, (long long) j, side == 0 ? "lower" : "upper", mpfr_get_d (&f->left, MPFR_RNDN),
                      x[0], mpfr_get_d (&ref.v[j]->left, MPFR_RNDN));
          else if (!wrong && !sure)
            t->touching++;
        }
    }
  mpfi_clear (f);
  cn_mpfi_vec_clear (&ref);
}

/* The linear bounds of output 0 of G over BOX (ANALYSIS given: its method and semantics), checked
 * at SAMPLES points of the box (and the L2 ball around CENTER of radius EPS where CENTER is not
 * NULL: then the points are those of the ball inside the box). */
static void
check_linear_output (const cn_graph *g, cn_analysis *a, const cn_box *box, int integer, struct tally *t,
                     const char *what)
{
  cn_error err;
  cn_error_clear (&err);
  int xin = cn_graph_input (g, 0), yv = cn_graph_output (g, 0);
  int64_t n = cn_shape_numel (cn_graph_value_shape (g, xin)), m = cn_shape_numel (cn_graph_value_shape (g, yv));
  double *lo = malloc ((size_t) (m * n + 1) * sizeof *lo), *up = malloc ((size_t) (m * n + 1) * sizeof *up);
  double *dlo = malloc ((size_t) (m + 1) * sizeof *dlo), *dup = malloc ((size_t) (m + 1) * sizeof *dup);
  double *x = malloc ((size_t) (n + 1) * sizeof *x);
  ck_assert (lo != NULL && up != NULL && dlo != NULL && dup != NULL && x != NULL);
  ck_assert_msg (cn_analysis_linear (a, yv, NULL, m, lo, dlo, up, dup, &err) == CN_OK, "%s: %s", what, err.msg);
  for (int k = 0; k < SAMPLES; k++)
    {
      tu_sample_box (box, x, k % 3 == 2, integer, 0);
      check_point (g, x, n, m, lo, dlo, up, dup, t, what);
    }
  free (lo);
  free (up);
  free (dlo);
  free (dup);
  free (x);
}

/* Every operator with a CROWN arm, in its one-node graphs (tu_op_graph) over random boxes. */
START_TEST (linear_every_operator)
{
  cn_op op = (cn_op) _i;
  cn_op_coverage cov;
  cn_op_coverage_get (op, &cov);
  struct cn__op_case c;
  if (!cov.rule || !(cov.crown || cov.crown_box) || !tu_op_case (op, &c))
    return;
  const char *name = cn_op_name (op);
  struct tally t = { 0 };
  int refused = 0;
  for (int d = 0; d < DRAWS; d++)
    {
      if (d > 0)
        ck_assert (tu_op_case (op, &c));
      cn_error err;
      cn_error_clear (&err);
      cn_graph *g = NULL;
      ck_assert_msg (tu_op_graph (&c, &g, &err) == CN_OK, "%s: %s", name, err.msg);
      int64_t n = cn_shape_numel (cn_graph_value_shape (g, cn_graph_input (g, 0)));
      cn_box box;
      ck_assert (cn_box_init (&box, n, &err) == CN_OK);
      tu_random_box (&box);
      cn__case_box_in_range (&box, &c);
      if (c.x_integer)
        for (int64_t j = 0; j < n; j++)
          {
            box.lo[j] = ceil (box.lo[j]);
            box.hi[j] = fmax (floor (box.hi[j]), box.lo[j]);
          }
      cn_bounds_opts o;
      cn_bounds_opts_init (&o);
      cn_analysis *a = NULL;
      if (cn_analysis_create (g, &box, &o, &a, &err) != CN_OK)
        refused++;
      else
        check_linear_output (g, a, &box, c.x_integer, &t, name);
      cn_analysis_free (a);
      cn_box_clear (&box);
      cn_graph_free (g);
      ck_assert_msg (t.violated == 0, "%s (CN_TEST_SEED=%lu)", t.first, tu_seed ());
    }
  fprintf (stderr, "%-20s linear bounds: %ld checks, %ld touching, %d draws refused\n", name, t.checked, t.touching,
           refused);
}
END_TEST

/* x [N] -> dense H -> act1 -> dense H -> act2 (+ the first activation's output when RESIDUAL) ->
 * dense M: the activations drawn from relu, leakyReLU, tanh and sigmoid. */
static cn_graph *
network (int n, int h, int m, int residual)
{
  static const cn_op acts[] = { CN_OP_RELU, CN_OP_LEAKY_RE_LU, CN_OP_TANH, CN_OP_SIGMOID };
  cn_error err;
  cn_error_clear (&err);
  cn_graph *g;
  ck_assert (cn_graph_create (&g, &err) == CN_OK);
  cn_shape s = { .rank = 1, .dim = { n } };
  int x, z1, z2, y;
  ck_assert (cn_graph_add_input (g, "x", CN_DTYPE_F64, &s, &x, &err) == CN_OK);
  ck_assert (tu_linear_layer (g, x, n, h, &z1, &err) == CN_OK);
  int r1 = tu_unary (g, acts[tu_int (0, 3)], z1);
  ck_assert (tu_linear_layer (g, r1, h, h, &z2, &err) == CN_OK);
  int r2 = tu_unary (g, acts[tu_int (0, 3)], z2);
  if (residual)
    ck_assert (cn_graph_add_node (g, CN_OP_ADD, NULL, 2, (int[]) { r2, r1 }, "res", &r2, &err) == CN_OK);
  ck_assert (tu_linear_layer (g, r2, h, m, &y, &err) == CN_OK);
  ck_assert (cn_graph_set_outputs (g, 1, &y, &err) == CN_OK);
  return g;
}

/* Every non-constant value of generated networks, by CROWN and CROWN-IBP (whose boxes differ). */
START_TEST (linear_every_value)
{
  struct tally t = { 0 };
  long values = 0;
  for (int d = 0; d < 8; d++)
    {
      cn_error err;
      cn_error_clear (&err);
      int n = (int) tu_int (1, 6);
      cn_graph *g = network (n, (int) tu_int (2, 8), (int) tu_int (1, 4), d % 2);
      int y = cn_graph_output (g, 0);
      cn_box box;
      ck_assert (cn_box_init (&box, n, &err) == CN_OK);
      tu_random_box (&box);
      for (int v = 0; v < cn_graph_n_values (g); v++)
        {
          if (cn_graph_value_constant (g, v) != NULL)
            continue;
          ck_assert (cn_graph_set_outputs (g, 1, &v, &err) == CN_OK);
          for (int method = 0; method < 2; method++)
            {
              cn_bounds_opts o;
              cn_bounds_opts_init (&o);
              o.method = method ? CN_METHOD_CROWN_IBP : CN_METHOD_CROWN;
              cn_analysis *a = NULL;
              ck_assert_msg (cn_analysis_create (g, &box, &o, &a, &err) == CN_OK, "%s", err.msg);
              check_linear_output (g, a, &box, 0, &t, cn_graph_value_name (g, v));
              cn_analysis_free (a);
              ck_assert_msg (t.violated == 0, "network %d: %s (CN_TEST_SEED=%lu)", d, t.first, tu_seed ());
            }
          values++;
        }
      ck_assert (cn_graph_set_outputs (g, 1, &y, &err) == CN_OK);
      cn_box_clear (&box);
      cn_graph_free (g);
    }
  fprintf (stderr, "networks: linear bounds of %ld values, %ld checks, %ld touching\n", values, t.checked, t.touching);
}
END_TEST

/* A point of the L2 ball of radius EPS around C (N entries) whose distance to C is at most EPS
 * in exact arithmetic (checked in MPFR; 0 where rounding pushed it out): a random direction
 * scaled to radius EPS (ON_SPHERE, less 1e-12 relative) or to a uniform fraction of it. */
static int
ball_point (int64_t n, const double *c, double eps, int on_sphere, double *x)
{
  double norm = 0;
  for (int64_t j = 0; j < n; j++)
    {
      x[j] = tu_uniform (-1, 1);
      norm += x[j] * x[j];
    }
  norm = sqrt (norm);
  double r = eps * (on_sphere ? 1 - 1e-12 : tu_uniform (0, 1));
  for (int64_t j = 0; j < n; j++)
    x[j] = norm > 0 ? c[j] + x[j] / norm * r : c[j];
  mpfr_t s, t;
  mpfr_inits2 (4 * PREC, s, t, (mpfr_ptr) 0);
  mpfr_set_zero (s, 1);
  for (int64_t j = 0; j < n; j++)
    {
      mpfr_set_d (t, x[j], MPFR_RNDN);
      mpfr_sub_d (t, t, c[j], MPFR_RNDN);   /* exact at 4 PREC bits for doubles of like size */
      mpfr_sqr (t, t, MPFR_RNDU);
      mpfr_add (s, s, t, MPFR_RNDU);
    }
  mpfr_set_d (t, eps, MPFR_RNDN);
  mpfr_sqr (t, t, MPFR_RNDD);
  int inside = mpfr_cmp (s, t) <= 0;
  mpfr_clears (s, t, (mpfr_ptr) 0);
  return inside;
}

/* L2 balls: the output bounds with the ball hold at points of the ball (on its sphere too), are
 * never looser than the enclosing box's, and are tighter on most draws in 16 dimensions (the
 * ball's dual norm ||a||_2 against the box's ||a||_1); the same for alpha-CROWN; bad balls are
 * refused. */
START_TEST (l2_balls)
{
  struct tally t = { 0 };
  int tighter = 0, draws = 0, points = 0;
  for (int d = 0; d < 12; d++)
    {
      cn_error err;
      cn_error_clear (&err);
      int n = d < 8 ? 16 : (int) tu_int (1, 4), m = (int) tu_int (1, 3);
      cn_graph *g = network (n, (int) tu_int (4, 8), m, d % 2);
      double *c = malloc ((size_t) n * sizeof *c), *x = malloc ((size_t) n * sizeof *x);
      ck_assert (c != NULL && x != NULL);
      for (int j = 0; j < n; j++)
        c[j] = tu_uniform (-1, 1);
      double eps = tu_uniform (0.01, 0.5);
      cn_box box;
      ck_assert (cn_box_init_linf (&box, n, c, eps, &err) == CN_OK);
      for (int method = 0; method < 2; method++)
        {
          cn_bounds_opts o;
          cn_bounds_opts_init (&o);
          o.method = method ? CN_METHOD_ALPHA_CROWN : CN_METHOD_CROWN;
          o.iterations = 5;
          cn_analysis *a = NULL;
          cn_box out_box, out_ball;
          ck_assert (cn_analysis_create (g, &box, &o, &a, &err) == CN_OK);
          ck_assert (cn_analysis_output_box (a, &out_box, &err) == CN_OK);
          ck_assert_msg (cn_analysis_set_l2 (a, c, eps, &err) == CN_OK, "%s", err.msg);
          ck_assert (cn_analysis_output_box (a, &out_ball, &err) == CN_OK);
          int better = 0;
          for (int j = 0; j < m; j++)
            {
              ck_assert_msg (out_ball.lo[j] >= out_box.lo[j] && out_ball.hi[j] <= out_box.hi[j],
                             "the L2 bounds of entry %d [%.17g, %.17g] are looser than the box's [%.17g, %.17g] "
                             "(CN_TEST_SEED=%lu)", j, out_ball.lo[j], out_ball.hi[j], out_box.lo[j], out_box.hi[j],
                             tu_seed ());
              better |= out_ball.lo[j] > out_box.lo[j] || out_ball.hi[j] < out_box.hi[j];
            }
          if (n == 16)
            {
              draws++;
              tighter += better;
            }
          for (int k = 0; k < SAMPLES; k++)
            {
              if (!ball_point (n, c, eps, k % 2, x))
                continue;
              points++;
              cn_mpfi_vec ref;
              if (tu_eval_mpfi (g, x, PREC, &ref, &err) != CN_OK)
                continue;
              for (int j = 0; j < m; j++)
                {
                  t.checked++;
                  ck_assert_msg (mpfr_cmp_d (&ref.v[j]->left, out_ball.lo[j]) >= 0
                                   && mpfr_cmp_d (&ref.v[j]->right, out_ball.hi[j]) <= 0,
                                 "%s: a point of the L2 ball escapes the bounds of entry %d [%.17g, %.17g]: %.17g "
                                 "(CN_TEST_SEED=%lu)", cn_method_name (o.method), j, out_ball.lo[j], out_ball.hi[j],
                                 mpfr_get_d (&ref.v[j]->left, MPFR_RNDN), tu_seed ());
                }
              cn_mpfi_vec_clear (&ref);
            }
          /* the linear functions hold on the ball too (they hold on the box) */
          check_linear_output (g, a, &box, 0, &t, "L2 analysis");
          ck_assert_msg (t.violated == 0, "%s (CN_TEST_SEED=%lu)", t.first, tu_seed ());
          cn_box_clear (&out_box);
          cn_box_clear (&out_ball);
          cn_analysis_free (a);
        }
      cn_box_clear (&box);
      free (c);
      free (x);
      cn_graph_free (g);
    }
  fprintf (stderr, "L2 balls: %d points of balls, %ld checks; tighter than the box on %d of %d draws in 16 dimensions\n",
           points, t.checked, tighter, draws);
  ck_assert_msg (2 * tighter > draws, "the L2 ball tightened only %d of %d bounds in 16 dimensions", tighter, draws);
}
END_TEST

/* Bad requests are refused with a status, not answered. */
START_TEST (refusals)
{
  cn_error err;
  cn_error_clear (&err);
  cn_graph *g = network (3, 4, 2, 0);
  double c[3] = { 0, 0, 0 }, lo[6], up[6], dlo[2], dup[2];
  cn_box box;
  ck_assert (cn_box_init_linf (&box, 3, c, 0.1, &err) == CN_OK);
  cn_bounds_opts o;
  cn_bounds_opts_init (&o);
  cn_analysis *a = NULL;
  ck_assert (cn_analysis_create (g, &box, &o, &a, &err) == CN_OK);
  int y = cn_graph_output (g, 0);
  ck_assert_int_eq (cn_analysis_linear (a, y, NULL, 3, lo, dlo, up, dup, &err), CN_EINVAL);   /* rows != numel */
  cn_error_clear (&err);
  ck_assert_int_eq (cn_analysis_linear (a, 999, NULL, 2, lo, dlo, up, dup, &err), CN_EINVAL);
  cn_error_clear (&err);
  ck_assert_int_eq (cn_analysis_linear (a, y, NULL, 2, lo, NULL, up, dup, &err), CN_EINVAL);
  cn_error_clear (&err);
  double bad[2] = { NAN, 1 };
  ck_assert_int_eq (cn_analysis_linear (a, y, bad, 1, lo, dlo, NULL, NULL, &err), CN_EINVAL);
  cn_error_clear (&err);
  ck_assert_int_eq (cn_analysis_set_l2 (a, c, -1, &err), CN_EINVAL);
  cn_error_clear (&err);
  ck_assert_int_eq (cn_analysis_set_l2 (a, c, INFINITY, &err), CN_EINVAL);
  cn_error_clear (&err);
  double cn[3] = { 0, NAN, 0 };
  ck_assert_int_eq (cn_analysis_set_l2 (a, cn, 0.1, &err), CN_EINVAL);
  ck_assert_msg (strstr (err.msg, "entry 1") != NULL, "%s", err.msg);
  cn_error_clear (&err);
  /* one side only, with spec rows C */
  double rows[2] = { 1, -1 };
  ck_assert (cn_analysis_linear (a, y, rows, 1, lo, dlo, NULL, NULL, &err) == CN_OK);
  cn_analysis_free (a);
  cn_box_clear (&box);
  cn_graph_free (g);
}
END_TEST

int
main (void)
{
  Suite *s = suite_create ("linear");
  TCase *tc = tcase_create ("linear");
  tcase_set_timeout (tc, 300);
  tcase_add_loop_test (tc, linear_every_operator, 0, CN_OP_COUNT);
  tcase_add_test (tc, linear_every_value);
  tcase_add_test (tc, l2_balls);
  tcase_add_test (tc, refusals);
  suite_add_tcase (s, tc);
  return tu_run_suite (s);
}
