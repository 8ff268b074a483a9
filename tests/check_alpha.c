/* SPDX-License-Identifier: MIT */
/* tests/check_alpha.c: alpha-CROWN (src/crown/alpha.c) on generated networks.
 *
 * 1. Gradient: the hand-derived gradient of every row's bound in its parameters against central
 *    finite differences of the sound sweep, along random directions, at random parameters, on
 *    relu networks with a residual branch and with a sigmoid layer (its tangent points are
 *    parameters too, through the kit's tangent lines), a tanh, softplus, atan, exp and erf layer
 *    likewise, and
 *    a convolutional one (through conv's and linear's forward_rows and reshape's forward), one
 *    with a leakyReLU (its slopes through the kit's cn__crown_lines), one with a value times itself
 *    (mul as square), one with a product of two layers (the mix of McCormick's planes, whose
 *    lines have slopes on both inputs), and a max and a min of two layers.
 * 2. Projection: parameters outside [0, 1] (and NaN) given as a warm start come back inside;
 *    the sweep refuses one outside with CN_EINVAL; and the same parameter let through
 *    (theta_unchecked, tests only) gives a bound that an exactly evaluated point violates.
 * 3. Keep-best and early stop: the returned bound of each row is the best of the iterations'
 *    (never below CROWN's), the loop stops after PATIENCE sweeps without gain, and at once when
 *    the target is already met.
 * 4. Soundness: alpha-CROWN's output boxes contain the exact (MPFI) outputs of sampled points
 *    (relu networks, residual, sigmoid, tanh, softplus, atan, exp, erf, cbrt, pow, elu, z z, z w, max
 *    and min layers); with CROWN's intermediate
 *    boxes they are never looser than CROWN's.
 * The seed is printed (CN_TEST_SEED reproduces a run). */
#include <config.h>
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "testutil.h"
#include "crown/crown_impl.h"

#define PREC 256

static int
dense (cn_graph *g, int x, int in, int out)
{
  cn_error err;
  cn_error_clear (&err);
  int y;
  ck_assert_msg (tu_linear_layer (g, x, in, out, &y, &err) == CN_OK, "%s", err.msg);
  return y;
}

/* KIND 0: n -> h -> relu -> h -> relu -> m;  1: the same with a residual branch
 * (relu(fc(r1)) + r1);  2: a sigmoid layer between the relus;  4: leakyReLU (slope 0.1) in the
 * middle;  5: tanh there;  6: softplus;  7: atan;  8: exp;  9: erf;  10: cbrt;  11: pow (z, 3);
 * 12: elu (alpha 0.8);  13: mul (z, z), a value times itself (square's relaxation and tangent);
 * 14: mul of two layers (McCormick's planes, their mix a parameter);  15: max of two layers, 16: min
 * (their combinations and facet mixes as parameters). */
static cn_graph *
network (int kind, int n, int h, int m)
{
  cn_error err;
  cn_error_clear (&err);
  cn_graph *g;
  ck_assert (cn_graph_create (&g, &err) == CN_OK);
  cn_shape s = { .rank = 1, .dim = { n } };
  int x;
  ck_assert (cn_graph_add_input (g, "x", CN_DTYPE_F64, &s, &x, &err) == CN_OK);
  int r1 = tu_unary (g, CN_OP_RELU, dense (g, x, n, h));
  cn_op mid = kind == 2 ? CN_OP_SIGMOID : kind == 4 ? CN_OP_LEAKY_RE_LU : kind == 5 ? CN_OP_TANH
              : kind == 6 ? CN_OP_SOFTPLUS : kind == 7 ? CN_OP_ATAN : kind == 8 ? CN_OP_EXP
              : kind == 9 ? CN_OP_ERF : kind == 10 ? CN_OP_CBRT : kind == 12 ? CN_OP_ELU : CN_OP_RELU;
  int r2;
  if (kind == 11)
    {
      /* pow (z, 3) with a constant exponent: concave then convex at 0 */
      cn_shape hs = { .rank = 1, .dim = { h } };
      cn_tensor t;
      ck_assert (cn_tensor_init (&t, CN_DTYPE_F64, &hs, &err) == CN_OK);
      for (int i = 0; i < h; i++)
        ((double *) t.data)[i] = 3;
      int e;
      ck_assert (cn_graph_add_constant (g, "three", &t, &e, &err) == CN_OK);
      cn_tensor_clear (&t);
      ck_assert_msg (cn_graph_add_node (g, CN_OP_POW, NULL, 2, (int[]) { dense (g, r1, h, h), e }, "cube", &r2, &err)
                     == CN_OK, "%s", err.msg);
    }
  else if (kind >= 13 && kind <= 16)
    {
      int z = dense (g, r1, h, h), z2 = kind == 13 ? z : dense (g, r1, h, h);
      cn_op op = kind <= 14 ? CN_OP_MUL : kind == 15 ? CN_OP_MAX : CN_OP_MIN;
      ck_assert_msg (cn_graph_add_node (g, op, NULL, 2, (int[]) { z, z2 }, "join", &r2, &err) == CN_OK, "%s", err.msg);
    }
  else
    r2 = tu_unary (g, mid, dense (g, r1, h, h));
  if (kind == 1)
    {
      int args[2] = { r2, r1 }, y;
      ck_assert (cn_graph_add_node (g, CN_OP_ADD, NULL, 2, args, "res", &y, &err) == CN_OK);
      r2 = y;
    }
  int r3 = tu_unary (g, CN_OP_RELU, dense (g, r2, h, h));
  int y = dense (g, r3, h, m);
  ck_assert (cn_graph_set_outputs (g, 1, &y, &err) == CN_OK);
  return g;
}

/* A small convolutional network: x [1, 2, 5, 5] -> conv 3x3 (3 filters, pad 1) -> relu -> conv 3x3
 * stride 2 (4 filters) -> relu -> reshape [36] -> linear 36 -> 3. */
static cn_graph *
conv_network (void)
{
  cn_error err;
  cn_error_clear (&err);
  cn_graph *g;
  ck_assert (cn_graph_create (&g, &err) == CN_OK);
  cn_shape s = { .rank = 4, .dim = { 1, 2, 5, 5 } };
  int x;
  ck_assert (cn_graph_add_input (g, "x", CN_DTYPE_F64, &s, &x, &err) == CN_OK);
  int chans[3] = { 2, 3, 4 };
  for (int l = 0; l < 2; l++)
    {
      cn_tensor w, b;
      cn_shape ws = { .rank = 4, .dim = { chans[l + 1], chans[l], 3, 3 } }, bs = { .rank = 1, .dim = { chans[l + 1] } };
      ck_assert (cn_tensor_init (&w, CN_DTYPE_F64, &ws, &err) == CN_OK);
      ck_assert (cn_tensor_init (&b, CN_DTYPE_F64, &bs, &err) == CN_OK);
      for (int64_t i = 0; i < cn_tensor_numel (&w); i++)
        ((double *) w.data)[i] = tu_uniform (-0.6, 0.6);
      for (int64_t i = 0; i < cn_tensor_numel (&b); i++)
        ((double *) b.data)[i] = tu_uniform (-0.3, 0.3);
      int wv, bv, y;
      ck_assert (cn_graph_add_constant (g, "w", &w, &wv, &err) == CN_OK);
      ck_assert (cn_graph_add_constant (g, "b", &b, &bv, &err) == CN_OK);
      cn_tensor_clear (&w);
      cn_tensor_clear (&b);
      cn_params_conv cp = { .nd = 2, .stride = { 1 + l, 1 + l }, .pad_begin = { 1, 1 }, .pad_end = { 1, 1 },
                            .dilation = { 1, 1 }, .groups = 1 };
      ck_assert_msg (cn_graph_add_node (g, CN_OP_CONV, &cp, 3, (int[]) { x, wv, bv }, "conv", &y, &err) == CN_OK, "%s",
                     err.msg);
      x = tu_unary (g, CN_OP_RELU, y);
    }
  cn_params_reshape rp = { .shape = { .rank = 1, .dim = { 36 } } };
  int f;
  ck_assert_msg (cn_graph_add_node (g, CN_OP_RESHAPE, &rp, 1, &x, "flat", &f, &err) == CN_OK, "%s", err.msg);
  int y = dense (g, f, 36, 3);
  ck_assert (cn_graph_set_outputs (g, 1, &y, &err) == CN_OK);
  return g;
}

static cn_box
unit_box (int n, double r)
{
  cn_box b;
  cn_error err;
  cn_error_clear (&err);
  ck_assert (cn_box_init (&b, n, &err) == CN_OK);
  for (int j = 0; j < n; j++)
    {
      double c = tu_uniform (-0.5, 0.5);
      b.lo[j] = c - r;
      b.hi[j] = c + r;
    }
  return b;
}

/* The internal view of an analysis the gradient test needs: its boxes and dependence flags. */
struct view
{
  cn_box *boxes;
  unsigned char *dep;
};

static struct view
view_of (const cn_graph *g, const cn_analysis *a)
{
  int nv = cn_graph_n_values (g);
  struct view w = { calloc ((size_t) nv, sizeof (cn_box)), calloc ((size_t) nv, 1) };
  ck_assert (w.boxes != NULL && w.dep != NULL);
  for (int v = 0; v < nv; v++)
    w.boxes[v] = *cn_analysis_box (a, v);
  for (int i = 0; i < cn_graph_n_inputs (g); i++)
    w.dep[cn_graph_input (g, i)] = 1;
  for (int k = 0; k < cn_graph_n_nodes (g); k++)
    for (int i = 0; i < cn_graph_node_n_inputs (g, k); i++)
      w.dep[cn_graph_node_output (g, k, 0)] |= w.dep[cn_graph_node_input (g, k, i)];
  return w;
}

/* Row bounds of one sweep with THETA (TAPE's layout), recording for the gradient if GRAD. */
static void
sweep (const cn_graph *g, struct view *w, int v, const double *c, int64_t rows, cn__crown_tape *tape,
       const double *theta, double *lower, double *grad)
{
  cn_error err;
  cn_error_clear (&err);
  tape->theta = theta;
  tape->record = grad != NULL;
  cn__crown_tape_reset (g, tape);
  ck_assert_msg (cn__crown_sweep_tape (g, w->boxes, w->dep, NULL, v, c, rows, 1, CN_SLOPE_ADAPTIVE, lower, NULL, NULL,
                                       NULL, tape, &err) == CN_OK, "%s", err.msg);
  if (grad != NULL)
    ck_assert_msg (cn__alpha_gradient (g, tape, v, rows, grad, &err) == CN_OK, "%s", err.msg);
}

START_TEST (gradient_by_finite_differences)
{
  int kind = _i;
  cn_error err;
  cn_error_clear (&err);
  int n = kind == 3 ? 50 : 3, h = 10, m = 3;
  cn_graph *g = kind == 3 ? conv_network () : network (kind, n, h, m);
  cn_box box = unit_box (n, kind == 3 ? 0.3 : 0.6);
  cn_bounds_opts o;
  cn_bounds_opts_init (&o);
  o.threads = 1;
  cn_analysis *a;
  ck_assert_msg (cn_analysis_create (g, &box, &o, &a, &err) == CN_OK, "%s", err.msg);
  int yv = cn_graph_output (g, 0), nv = cn_graph_n_values (g);
  struct view w = view_of (g, a);
  int64_t *offset = malloc ((size_t) nv * sizeof *offset);
  int64_t width = cn__alpha_layout (g, w.dep, yv, offset);
  ck_assert_int_eq (width, cn_analysis_alpha_width (a, yv));
  ck_assert (width == (kind == 3 ? 75 + 36 : 3 * h));   /* relu, leakyReLU and the smooth ones: one each */
  /* beta-CROWN: three splits on random entries of values that depend on the input (the input
   * among them), one multiplier each after the alpha parameters (their sign constraints are
   * not met by the box: the gradient is of the sweep all the same) */
  enum { NB = 3 };
  cn_split sps[NB];
  for (int q = 0; q < NB; q++)
    {
      int u;
      do
        u = (int) tu_uniform (0, nv);
      while (u >= nv || !w.dep[u] || u == yv);
      int64_t numel = cn_shape_numel (cn_graph_value_shape (g, u));
      sps[q] = (cn_split) { .value = u, .index = (int64_t) tu_uniform (0, (double) numel) % numel,
                            .sign = tu_uniform (0, 1) < 0.5 ? 1 : -1 };
    }
  int64_t alpha_width = width;
  width += NB;
  enum { R = 4 };
  double c[R * 8], lower[R], lp[R], lm[R];
  for (int j = 0; j < R * m; j++)
    c[j] = tu_uniform (-1, 1);
  double *theta = malloc ((size_t) (R * width) * sizeof *theta), *grad = malloc ((size_t) (R * width) * sizeof *grad);
  double *tp = malloc ((size_t) (R * width) * sizeof *tp), *tm = malloc ((size_t) (R * width) * sizeof *tm);
  double *dir = malloc ((size_t) (R * width) * sizeof *dir);
  cn__crown_tape tape = { .offset = offset, .width = width, .splits = sps, .n_splits = NB, .beta_offset = alpha_width };
  ck_assert (cn__crown_tape_init (g, &tape, &err) == CN_OK);
  int checked = 0, kinks = 0;
  double worst = 0;
  for (int trial = 0; trial < 20; trial++)
    {
      for (int64_t j = 0; j < R * width; j++)
        {
          theta[j] = tu_uniform (0.15, 0.95);   /* inside relu's and the tangents' [0, 1], leakyReLU's [0.1, 1] */
          dir[j] = tu_uniform (-1, 1);
        }
      sweep (g, &w, yv, c, R, &tape, theta, lower, grad);
      ck_assert_int_eq (tape.n_approx, 0);
      const double hstep = 1e-6;
      for (int64_t j = 0; j < R * width; j++)
        {
          tp[j] = theta[j] + hstep * dir[j];
          tm[j] = theta[j] - hstep * dir[j];
        }
      cn__crown_tape plain = tape;
      plain.how = NULL;
      sweep (g, &w, yv, c, R, &plain, tp, lp, NULL);
      sweep (g, &w, yv, c, R, &plain, tm, lm, NULL);
      for (int r = 0; r < R; r++)
        {
          double fd = (lp[r] - lm[r]) / (2 * hstep), an = 0, scale = 0;
          for (int64_t j = 0; j < width; j++)
            {
              an += grad[r * width + j] * dir[r * width + j];
              scale += fabs (grad[r * width + j] * dir[r * width + j]);
            }
          /* L is piecewise smooth in theta (piecewise linear in relu slopes, smooth in tangent
           * points): inside one piece the central difference is exact up to the rounding of the
           * two sweeps (about 1e-16 |L| / h) and a term h^2 L'''.  A kink within h of theta (a
           * line selection changing sign there) shows as one-sided differences that disagree (as
           * curvature does, by h L'', which the central difference cancels); where the central
           * difference does not match, the gradient must be the derivative of theta's own piece,
           * one of the two sides. */
          double tol = 1e-6 * (1 + scale + fabs (lower[r]));
          double fp = (lp[r] - lower[r]) / hstep, fm = (lower[r] - lm[r]) / hstep;
          if (fabs (fp - fm) > tol && fabs (fd - an) > tol)
            {
              kinks++;
              ck_assert_msg (fabs (fp - an) <= tol || fabs (fm - an) <= tol,
                             "kind %d trial %d row %d: gradient . d = %.12g, one-sided differences %.12g, %.12g "
                             "(CN_TEST_SEED=%lu)", kind, trial, r, an, fm, fp, tu_seed ());
              continue;
            }
          worst = fmax (worst, fabs (fd - an) / (1 + scale));
          ck_assert_msg (fabs (fd - an) <= tol,
                         "kind %d trial %d row %d: gradient . d = %.12g, finite difference %.12g (CN_TEST_SEED=%lu)",
                         kind, trial, r, an, fd, tu_seed ());
          checked++;
        }
    }
  /* kinks are rare: almost every check is a central difference inside one piece */
  ck_assert_msg (kinks * 10 <= checked, "network %d: %d kinks among %d checks", kind, kinks, checked + kinks);
  fprintf (stderr, "alpha gradient, network %d: %d directional derivatives match finite differences (worst %.2g), "
           "%d at a kink match a one-sided one\n", kind, checked, worst, kinks);
  cn__crown_tape_free (g, &tape);
  free (theta);
  free (grad);
  free (tp);
  free (tm);
  free (dir);
  free (offset);
  free (w.boxes);
  free (w.dep);
  cn_analysis_free (a);
  cn_box_clear (&box);
  cn_graph_free (g);
}
END_TEST

/* x in [0.5, 1], z = 3x - 2x (IBP: [-0.5, 2], though z = x), y = relu(z): CROWN-IBP keeps z's
 * IBP box, so relu's entry is unstable, and the lower line alpha z of any alpha in [0, 1] gives
 * a sound bound of y = x >= 0.5; alpha = 1.5 would give 0.75. */
static cn_graph *
trap_network (void)
{
  cn_error err;
  cn_error_clear (&err);
  cn_graph *g;
  ck_assert (cn_graph_create (&g, &err) == CN_OK);
  cn_shape s = { .rank = 1, .dim = { 1 } };
  int x, c3, c2, a, b, z, y;
  ck_assert (cn_graph_add_input (g, "x", CN_DTYPE_F64, &s, &x, &err) == CN_OK);
  cn_tensor t;
  ck_assert (cn_tensor_init (&t, CN_DTYPE_F64, &s, &err) == CN_OK);
  ((double *) t.data)[0] = 3;
  ck_assert (cn_graph_add_constant (g, "three", &t, &c3, &err) == CN_OK);
  ((double *) t.data)[0] = 2;
  ck_assert (cn_graph_add_constant (g, "two", &t, &c2, &err) == CN_OK);
  cn_tensor_clear (&t);
  ck_assert (cn_graph_add_node (g, CN_OP_MUL, NULL, 2, (int[]) { x, c3 }, "a", &a, &err) == CN_OK);
  ck_assert (cn_graph_add_node (g, CN_OP_MUL, NULL, 2, (int[]) { x, c2 }, "b", &b, &err) == CN_OK);
  ck_assert (cn_graph_add_node (g, CN_OP_SUB, NULL, 2, (int[]) { a, b }, "z", &z, &err) == CN_OK);
  ck_assert (cn_graph_add_node (g, CN_OP_RELU, NULL, 1, &z, "y", &y, &err) == CN_OK);
  ck_assert (cn_graph_set_outputs (g, 1, &y, &err) == CN_OK);
  return g;
}

START_TEST (projection)
{
  cn_error err;
  cn_error_clear (&err);
  cn_graph *g = trap_network ();
  cn_box box;
  ck_assert (cn_box_init (&box, 1, &err) == CN_OK);
  box.lo[0] = 0.5;
  box.hi[0] = 1;
  cn_bounds_opts o;
  cn_bounds_opts_init (&o);
  o.method = CN_METHOD_CROWN_IBP;
  cn_analysis *a;
  ck_assert (cn_analysis_create (g, &box, &o, &a, &err) == CN_OK);
  int yv = cn_graph_output (g, 0), zv = cn_graph_node_input (g, cn_graph_value_producer (g, yv), 0);
  ck_assert (cn_analysis_box (a, zv)->lo[0] < 0);   /* the trap is set: z's entry is unstable */
  ck_assert_int_eq (cn_analysis_alpha_width (a, yv), 1);
  double c[1] = { 1 }, lower[1];
  /* a warm start outside [0, 1] and NaN come back projected */
  double warm[3] = { 1.5, -3, NAN };
  for (int k = 0; k < 3; k++)
    {
      double th[1] = { warm[k] };
      ck_assert_msg (cn_analysis_lower_alpha (a, yv, c, 1, NULL, th, lower, NULL, &err) == CN_OK, "%s", err.msg);
      ck_assert_msg (th[0] >= 0 && th[0] <= 1, "warm start %g came back as %g", warm[k], th[0]);
      ck_assert (lower[0] <= 0.5);
    }
  /* the sweep itself refuses a slope outside [0, 1] */
  struct view w = view_of (g, a);
  int64_t *offset = malloc ((size_t) cn_graph_n_values (g) * sizeof *offset);
  ck_assert_int_eq (cn__alpha_layout (g, w.dep, yv, offset), 1);
  double bad[1] = { 1.5 };
  cn__crown_tape tape = { .offset = offset, .width = 1, .theta = bad };
  ck_assert_int_eq (cn__crown_sweep_tape (g, w.boxes, w.dep, NULL, yv, c, 1, 1, CN_SLOPE_ADAPTIVE, lower, NULL, NULL, NULL,
                                          &tape, &err),
                    CN_EINVAL);
  cn_error_clear (&err);
  /* let through (tests only), it gives 0.75 > y(0.5) = 0.5: the point check catches it */
  tape.unchecked = 1;
  ck_assert (cn__crown_sweep_tape (g, w.boxes, w.dep, NULL, yv, c, 1, 1, CN_SLOPE_ADAPTIVE, lower, NULL, NULL, NULL, &tape,
                                   &err) == CN_OK);
  double x = 0.5;
  cn_mpfi_vec y;
  ck_assert (tu_eval_mpfi (g, &x, PREC, &y, &err) == CN_OK);
  ck_assert_msg (mpfr_cmp_d (&y.v[0]->left, lower[0]) < 0, "the unprojected slope's bound %.17g does not escape",
                 lower[0]);
  fprintf (stderr, "alpha projection: slope 1.5 refused; let through it bounds y >= %.17g, above y(0.5) = 0.5\n",
           lower[0]);
  cn_mpfi_vec_clear (&y);
  free (offset);
  free (w.boxes);
  free (w.dep);
  cn_analysis_free (a);
  cn_box_clear (&box);
  cn_graph_free (g);
}
END_TEST

START_TEST (keep_best_and_early_stop)
{
  cn_error err;
  cn_error_clear (&err);
  int n = 4, h = 16, m = 3;
  cn_graph *g = network (_i % 2, n, h, m);
  cn_box box = unit_box (n, 0.5);
  cn_bounds_opts o;
  cn_bounds_opts_init (&o);
  o.threads = 1;
  cn_analysis *a;
  int yv = cn_graph_output (g, 0);
  enum { R = 5 };
  double c[R * 3], lower[R], crown[R], target[R];
  for (int j = 0; j < R * m; j++)
    c[j] = tu_uniform (-1, 1);
  /* keep-best: a learning rate so large that the iterations jump around */
  o.lr = 5;
  o.patience = 0;
  ck_assert (cn_analysis_create (g, &box, &o, &a, &err) == CN_OK);
  ck_assert (cn_analysis_lower (a, yv, c, R, crown, &err) == CN_OK);
  double *hist = malloc ((size_t) (o.iterations * R) * sizeof *hist);
  cn_alpha_trace tr = { .history = hist };
  ck_assert_msg (cn_analysis_lower_alpha (a, yv, c, R, NULL, NULL, lower, &tr, &err) == CN_OK, "%s", err.msg);
  ck_assert_int_eq (tr.iterations, o.iterations);
  int gained = 0;
  for (int r = 0; r < R; r++)
    {
      double best = -INFINITY;
      for (int it = 0; it < tr.iterations; it++)
        best = fmax (best, hist[it * R + r]);
      ck_assert_msg (lower[r] == best, "row %d: returned %.17g, best of the iterations %.17g", r, lower[r], best);
      ck_assert_msg (hist[r] == crown[r], "row %d: the first sweep %.17g is not CROWN's %.17g", r, hist[r], crown[r]);
      ck_assert (lower[r] >= crown[r]);
      gained += lower[r] > crown[r];
    }
  cn_analysis_free (a);
  /* a memory budget too small for all rows together: blocks of two rows, one after the other,
   * the same optimisation (rows with their own parameters are independent), so the same history
   * but for the last bits (a matrix product of fewer rows may sum in another order; the default
   * learning rate, so that they do not grow) */
  {
    double *h1 = malloc ((size_t) (o.iterations * R) * sizeof *h1), l1[R];
    double *h2 = malloc ((size_t) (o.iterations * R) * sizeof *h2), l2[R];
    cn_alpha_trace t1 = { .history = h1 }, t2 = { .history = h2 };
    o.lr = 0.5;
    for (int blocks = 0; blocks < 2; blocks++)
      {
        o.memory_mb = blocks ? 1e-6 : 0;
        ck_assert (cn_analysis_create (g, &box, &o, &a, &err) == CN_OK);
        ck_assert_msg (cn_analysis_lower_alpha (a, yv, c, R, NULL, NULL, blocks ? l2 : l1, blocks ? &t2 : &t1, &err)
                       == CN_OK, "%s", err.msg);
        cn_analysis_free (a);
      }
    ck_assert_int_eq (t2.iterations, t1.iterations);
    for (int r = 0; r < R; r++)
      ck_assert_msg (fabs (l2[r] - l1[r]) <= 1e-9 * (1 + fabs (l1[r])), "row %d: %.17g in blocks, %.17g at once", r,
                     l2[r], l1[r]);
    for (int k = 0; k < t1.iterations * R; k++)
      ck_assert_msg (fabs (h2[k] - h1[k]) <= 1e-9 * (1 + fabs (h1[k])) || (isnan (h2[k]) && isnan (h1[k])),
                     "sweep %d row %d: %.17g in blocks, %.17g at once", k / R, k % R, h2[k], h1[k]);
    o.memory_mb = -1;
    ck_assert (cn_analysis_create (g, &box, &o, &a, &err) == CN_OK);
    ck_assert_int_eq (cn_analysis_lower_alpha (a, yv, c, R, NULL, NULL, l2, NULL, &err), CN_EINVAL);
    cn_analysis_free (a);
    o.memory_mb = 0;
    free (h1);
    free (h2);
  }
  /* patience: a learning rate too small to change any bound stops after 1 + patience sweeps */
  o.lr = 1e-300;
  o.patience = 3;
  ck_assert (cn_analysis_create (g, &box, &o, &a, &err) == CN_OK);
  ck_assert (cn_analysis_lower_alpha (a, yv, c, R, NULL, NULL, lower, &tr, &err) == CN_OK);
  ck_assert_msg (tr.iterations == 1 + o.patience, "stopped after %d sweeps", tr.iterations);
  /* target met by the first sweep: one sweep */
  for (int r = 0; r < R; r++)
    target[r] = crown[r] - 1;
  ck_assert (cn_analysis_lower_alpha (a, yv, c, R, target, NULL, lower, &tr, &err) == CN_OK);
  ck_assert_int_eq (tr.iterations, 1);
  /* bad options are refused */
  cn_analysis_free (a);
  o.lr = -1;
  ck_assert (cn_analysis_create (g, &box, &o, &a, &err) == CN_OK);
  ck_assert_int_eq (cn_analysis_lower_alpha (a, yv, c, R, NULL, NULL, lower, NULL, &err), CN_EINVAL);
  fprintf (stderr, "alpha keep-best: %d of %d rows above CROWN at lr 5\n", gained, R);
  free (hist);
  cn_analysis_free (a);
  cn_box_clear (&box);
  cn_graph_free (g);
}
END_TEST

START_TEST (sound_by_sampling)
{
  cn_error err;
  cn_error_clear (&err);
  int n = 3, h = 12, m = 2;
  /* relu, residual, sigmoid, tanh, softplus, atan, exp, erf, cbrt, pow (z, 3), elu, z z, z w,
   * max, min */
  static const int kinds[15] = { 0, 1, 2, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 };
  cn_graph *g = network (kinds[_i % 15], n, h, m);
  cn_box box = unit_box (n, 0.7);
  double gain = 0;
  for (int variant = 0; variant < 3; variant++)
    {
      cn_bounds_opts o;
      cn_bounds_opts_init (&o);
      o.method = CN_METHOD_CROWN;
      cn_box crown, alpha;
      ck_assert (cn_bounds_output (g, &box, &o, &crown, &err) == CN_OK);
      o.method = CN_METHOD_ALPHA_CROWN;
      o.share_alpha = variant == 1;
      o.alpha_intermediate = variant == 2;
      ck_assert_msg (cn_bounds_output (g, &box, &o, &alpha, &err) == CN_OK, "%s", err.msg);
      /* over CROWN's own intermediate boxes the first sweep is CROWN's, so the best is never
       * looser; optimised intermediate boxes are tighter, which usually but not always tightens
       * the output (a tighter box may flip a heuristic line choice) */
      for (int64_t j = 0; j < m; j++)
        {
          ck_assert_msg (variant == 2 || (alpha.lo[j] >= crown.lo[j] && alpha.hi[j] <= crown.hi[j]),
                         "network %d variant %d: alpha-crown's [%.17g, %.17g] looser than crown's [%.17g, %.17g]", _i,
                         variant, alpha.lo[j], alpha.hi[j], crown.lo[j], crown.hi[j]);
          gain += (crown.hi[j] - crown.lo[j]) - (alpha.hi[j] - alpha.lo[j]);
        }
      for (int k = 0; k < 64; k++)
        {
          double x[3];
          for (int j = 0; j < n; j++)
            x[j] = k < 8 ? ((k >> j) & 1 ? box.hi[j] : box.lo[j]) : tu_uniform (box.lo[j], box.hi[j]);
          cn_mpfi_vec y;
          ck_assert (tu_eval_mpfi (g, x, PREC, &y, &err) == CN_OK);
          for (int64_t j = 0; j < m; j++)
            ck_assert_msg (mpfr_cmp_d (&y.v[j]->left, alpha.lo[j]) >= 0 && mpfr_cmp_d (&y.v[j]->right, alpha.hi[j]) <= 0,
                           "network %d variant %d: sample %d escapes alpha-crown's [%.17g, %.17g] at %lld "
                           "(CN_TEST_SEED=%lu)", _i, variant, k, alpha.lo[j], alpha.hi[j], (long long) j, tu_seed ());
          cn_mpfi_vec_clear (&y);
        }
      cn_box_clear (&crown);
      cn_box_clear (&alpha);
    }
  fprintf (stderr, "alpha sampling, network %d: sound; widths %.3g narrower than CROWN's in all\n", _i, gain);
  cn_box_clear (&box);
  cn_graph_free (g);
}
END_TEST

/* mul (z, z), one value times itself, is square (z) (src/ops/arith.c, mul_self_view): on a network
 * x -> dense -> z -> z z (or square z) -> dense, IBP, CROWN and alpha-CROWN give the same boxes
 * bit for bit, z z's IBP box is [0, ...] where z's box holds 0, and the output boxes hold the
 * sampled exact outputs. */
START_TEST (self_product)
{
  cn_error err;
  cn_error_clear (&err);
  int n = 3, h = 6, m = 2;
  cn_graph *g[2];
  int zv = -1, pv[2];
  cn__rng saved = *tu_rng ();
  for (int q = 0; q < 2; q++)
    {
      *tu_rng () = saved;   /* the same draws (weights) for both graphs */
      ck_assert (cn_graph_create (&g[q], &err) == CN_OK);
      cn_shape s = { .rank = 1, .dim = { n } };
      int x;
      ck_assert (cn_graph_add_input (g[q], "x", CN_DTYPE_F64, &s, &x, &err) == CN_OK);
      int z = dense (g[q], x, n, h);
      if (q == 0)
        ck_assert (cn_graph_add_node (g[q], CN_OP_MUL, NULL, 2, (int[]) { z, z }, "zz", &pv[q], &err) == CN_OK);
      else
        pv[q] = tu_unary (g[q], CN_OP_SQUARE, z);
      zv = z;
      int y = dense (g[q], pv[q], h, m);
      ck_assert (cn_graph_set_outputs (g[q], 1, &y, &err) == CN_OK);
    }
  cn_box box = unit_box (n, 0.6);
  static const cn_method methods[3] = { CN_METHOD_IBP, CN_METHOD_CROWN, CN_METHOD_ALPHA_CROWN };
  int crossing = 0;
  for (int k = 0; k < 3; k++)
    {
      cn_bounds_opts o;
      cn_bounds_opts_init (&o);
      o.method = methods[k];
      o.threads = 1;
      cn_box out[2];
      cn_analysis *a;
      ck_assert_msg (cn_analysis_create (g[0], &box, &o, &a, &err) == CN_OK, "%s", err.msg);
      const cn_box *zb = cn_analysis_box (a, zv), *pb = cn_analysis_box (a, pv[0]);
      for (int64_t j = 0; j < h; j++)
        if (zb->lo[j] < 0 && zb->hi[j] > 0)
          {
            crossing++;
            ck_assert_msg (pb->lo[j] >= 0, "z z's box [%.17g, %.17g] at %lld below 0", pb->lo[j], pb->hi[j],
                           (long long) j);
          }
      cn_analysis_free (a);
      for (int q = 0; q < 2; q++)
        ck_assert_msg (cn_bounds_output (g[q], &box, &o, &out[q], &err) == CN_OK, "%s", err.msg);
      for (int64_t j = 0; j < m; j++)
        ck_assert_msg (out[0].lo[j] == out[1].lo[j] && out[0].hi[j] == out[1].hi[j],
                       "method %d output %lld: z z [%.17g, %.17g], square [%.17g, %.17g] (CN_TEST_SEED=%lu)", k,
                       (long long) j, out[0].lo[j], out[0].hi[j], out[1].lo[j], out[1].hi[j], tu_seed ());
      for (int t = 0; t < 16; t++)
        {
          double x[3];
          for (int j = 0; j < n; j++)
            x[j] = tu_uniform (box.lo[j], box.hi[j]);
          cn_mpfi_vec y;
          ck_assert (tu_eval_mpfi (g[0], x, PREC, &y, &err) == CN_OK);
          for (int64_t j = 0; j < m; j++)
            ck_assert (mpfr_cmp_d (&y.v[j]->left, out[0].lo[j]) >= 0 && mpfr_cmp_d (&y.v[j]->right, out[0].hi[j]) <= 0);
          cn_mpfi_vec_clear (&y);
        }
      cn_box_clear (&out[0]);
      cn_box_clear (&out[1]);
    }
  fprintf (stderr, "alpha self product: z z bounds as square z by IBP, CROWN and alpha-CROWN (%d entries across 0)\n",
           crossing);
  cn_box_clear (&box);
  cn_graph_free (g[0]);
  cn_graph_free (g[1]);
}
END_TEST

int
main (void)
{
  tu_init ();
  Suite *s = suite_create ("alpha");
  TCase *tc = tcase_create ("alpha-crown");
  tcase_set_timeout (tc, 300);
  tcase_add_loop_test (tc, gradient_by_finite_differences, 0, 17);
  tcase_add_test (tc, projection);
  tcase_add_loop_test (tc, keep_best_and_early_stop, 0, 2);
  tcase_add_loop_test (tc, sound_by_sampling, 0, 30);
  tcase_add_loop_test (tc, self_product, 0, 4);
  suite_add_tcase (s, tc);
  return tu_run_suite (s);
}
