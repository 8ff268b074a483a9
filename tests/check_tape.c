/* SPDX-License-Identifier: MIT */
/* tests/check_tape.c: the tape (reverse mode over the operator table), cn_graph_vjp and
 * cn_graph_jvp, cn_graph_gradient on top of them, and the custom operator's derivative arms.
 *
 * 1. Generic loop over every operator with a pullback, an MPFI arm and a case generator: a
 *    random instance (tu_op_case, tu_op_graph: slices and reshapes of the input feed the op),
 *    followed by z = tanh(y) y and, in half of the draws, select(gt(y, 0), z, y) (a comparison,
 *    whose output passes no gradient and which has no pullback, and a Boolean port).  The graph
 *    is replayed on a tape, its input a leaf that needs a gradient.  Checked:
 *      - every tape value equals cn_graph_eval's binary64 value of the same graph, bit for bit,
 *        when the graph holds only values of the model's scalar (cn_graph_eval of Boolean values
 *        is the lead's typed evaluation);
 *      - the tape's gradient for a random seed equals cn_graph_gradient's, bit for bit (one
 *        engine), and both give y;
 *      - <grad, dx> against the MPFR central difference of phi(s) = w . F(x + s dx), h = 2^-30,
 *        at 256 bits through the MPFI reference (as tests/check_grad.c: x on a grid of 2^-20,
 *        dx of 2^-10, tolerance 1e-6 relative; a kink within a step is redrawn), directions only
 *        along value ports of the op;
 *      - adjointness of cn_graph_jvp and cn_graph_vjp: <jvp(dx), w> = <dx, vjp(w)> to 1e-12
 *        relative, where every node on the path has a jvp.
 * 2. Flags: a leaf with the flag off gets no gradient (cn_tape_grad NULL) and its consumer's
 *    pullback sees NULL for it; a frozen port (clamp's bounds) and a constant receive nothing
 *    (spied pullbacks, white box); detach passes nothing; a comparison stops the gradient and is
 *    never asked for a pullback, on the tape and in cn_graph_gradient; Boolean leaves cannot need
 *    a gradient.
 * 3. Sweeps: gradients accumulate over sweeps, cn_tape_zero_grad clears them, a NULL seed is all
 *    ones, sweeping from a value that needs no gradient changes nothing, a value read twice.
 * 4. Errors: an operator without a pullback on a path that needs one is CN_EUNSUPPORTED naming it
 *    and the node, before any gradient changes (and is fine off that path); bad references, ports
 *    and shapes; NULL arguments; cn_graph_vjp/jvp argument checks.
 * 5. custom: a tape through a custom node against the hand derivative of tanh(a x + b); its check
 *    and out_sort refusals; an inner operator without a pullback, jvp, IBP or MPFI arm named in
 *    the error; a program of two inputs through cn_graph_vjp against cn_graph_jvp.
 * The seed is printed; CN_TEST_SEED reproduces a run. */
#include <config.h>
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "testutil.h"
#include "ops/ops_impl.h"
#include "graph/graph_impl.h"

#define DRAWS 4          /* instances per operator */
#define DIRS 2           /* directions per instance */
#define MAX_REDRAWS 40

/* Asserts that CALL succeeds (ERR in scope holds its message). */
#define OK(call)                                                                                   \
  ck_assert_msg ((call) == CN_OK, "%s failed: %s (CN_TEST_SEED=%lu)", #call, err.msg, tu_seed ())

static cn_shape
vec_shape (int64_t n)
{
  cn_shape s;
  cn_shape_make (&s, 1, &n, NULL);
  return s;
}

static cn_tensor
vec (int64_t n, const double *v)
{
  cn_tensor t;
  cn_shape s = vec_shape (n);
  cn_error err;
  ck_assert (cn_tensor_init (&t, CN_DTYPE_F64, &s, &err) == CN_OK);
  if (n > 0)
    memcpy (t.data, v, (size_t) n * sizeof *v);
  return t;
}

/* ---- replaying a graph on a tape ------------------------------------------------------------ */

/* Records G (one input) on a new tape at the point X: the input a leaf that needs a gradient,
 * the constants, then every node in order.  MAP[v] is the tape's reference of value v. */
static cn_tape *
replay (const cn_graph *g, const double *x, int *map)
{
  cn_error err;
  cn_error_clear (&err);
  cn_tape *t;
  OK (cn_tape_create (&t, &err));
  for (int v = 0; v < cn_graph_n_values (g); v++)
    {
      int k = cn_graph_value_producer (g, v);
      const cn_tensor *c = cn_graph_value_constant (g, v);
      if (c != NULL)
        OK (cn_tape_constant (t, cn_graph_value_name (g, v), c, &map[v], &err));
      else if (k < 0)
        {
          cn_tensor xt;
          OK (cn_tensor_init (&xt, CN_DTYPE_F64, cn_graph_value_shape (g, v), &err));
          int64_t n = cn_tensor_numel (&xt);
          if (n > 0)
            memcpy (xt.data, x, (size_t) n * sizeof *x);
          OK (cn_tape_leaf (t, cn_graph_value_name (g, v), &xt, 1, &map[v], &err));
          cn_tensor_clear (&xt);
        }
      else if (cn_graph_node_output (g, k, 0) == v)
        {
          /* one application per node; its other outputs follow output 0 */
          int n_in = cn_graph_node_n_inputs (g, k), in[16];
          ck_assert (n_in <= 16);
          for (int i = 0; i < n_in; i++)
            in[i] = map[cn_graph_node_input (g, k, i)];
          OK (cn_tape_apply (t, cn_graph_node_op (g, k), cn_graph_node_params (g, k), n_in, in,
                             cn_graph_node_name (g, k), &map[v], &err));
          const cn_graph *tg = cn_tape_graph (t);
          for (int o = 1; o < cn_graph_node_n_outputs (g, k); o++)
            map[cn_graph_node_output (g, k, o)] = cn_graph_node_output (tg, cn_graph_value_producer (tg, map[v]), o);
        }
    }
  return t;
}

/* Appends z = tanh(y) y to G's output y and, if SEL, select(gt(y, 0), z, y); the last one becomes
 * output 0.  Returns 0 (nothing added) when y is not of the model's scalar. */
static int
extend (cn_graph *g, int sel)
{
  cn_error err;
  cn_error_clear (&err);
  int y = cn_graph_output (g, 0), t, z, zero, c, s;
  if (!cn_dtype_is_float (cn_graph_value_dtype (g, y)))
    return 0;
  OK (cn_graph_add_node (g, CN_OP_TANH, NULL, 1, &y, "tanh", &t, &err));
  OK (cn_graph_add_node (g, CN_OP_MUL, NULL, 2, (int[]) { t, y }, "z", &z, &err));
  if (sel)
    {
      cn_tensor k;
      OK (cn_tensor_init (&k, CN_DTYPE_F64, cn_graph_value_shape (g, y), &err));
      OK (cn_graph_add_constant (g, "zero", &k, &zero, &err));
      cn_tensor_clear (&k);
      OK (cn_graph_add_node (g, CN_OP_GT, NULL, 2, (int[]) { y, zero }, "y>0", &c, &err));
      OK (cn_graph_add_node (g, CN_OP_SELECT, NULL, 3, (int[]) { c, z, y }, "sel", &s, &err));
      z = s;
    }
  OK (cn_graph_set_outputs (g, 1, &z, &err));
  return 1;
}

/* 1 if every value of G is of a floating sort. */
static int
all_float (const cn_graph *g)
{
  for (int v = 0; v < cn_graph_n_values (g); v++)
    if (!cn_dtype_is_float (cn_graph_value_dtype (g, v)))
      return 0;
  return 1;
}

/* 1 if every node output 0 depends on has a jvp (or passes no tangent). */
static int
path_has_jvps (const cn_graph *g)
{
  for (int k = 0; k < g->n_nodes; k++)
    if (g->nodes[k].rule->jvp == NULL && cn_dtype_is_float (g->values[g->nodes[k].out[0]].dtype))
      return 0;
  return 1;
}

/* ---- 1. the generic loop ------------------------------------------------------------------ */

START_TEST (generic)
{
  cn_op op = (cn_op) _i;
  const struct cn_op_rule *rule = cn__op_rule (op);
  struct cn__op_case c;
  if (rule == NULL || rule->pullback == NULL || rule->ibp_mpfi == NULL || !tu_op_case (op, &c))
    return;
  const char *name = cn_op_name (op);
  double worst = 0;
  int checked = 0, redrawn = 0, adjoint = 0;
  for (int d = 0; d < DRAWS; d++)
    {
      ck_assert (tu_op_case (op, &c));
      cn_error err;
      cn_error_clear (&err);
      cn_graph *g = NULL;
      if (tu_op_graph (&c, &g, &err) != CN_OK)
        {
          /* the case generators are checked by check_ops; here only the tape is */
          fprintf (stderr, "%s: case skipped, building it failed: %s\n", name, err.msg);
          continue;
        }
      if (!extend (g, (int) tu_int (0, 1)))
        {
          cn_graph_free (g);
          continue;
        }
      int xin = cn_graph_input (g, 0), yv = cn_graph_output (g, 0);
      int64_t n = cn_shape_numel (cn_graph_value_shape (g, xin));
      int64_t m = cn_shape_numel (cn_graph_value_shape (g, yv));
      double *x = malloc ((size_t) (n + 1) * sizeof *x), *dx = malloc ((size_t) (n + 1) * sizeof *dx);
      double *gx = malloc ((size_t) (n + 1) * sizeof *gx), *w = malloc ((size_t) (m + 1) * sizeof *w);
      double *y = malloc ((size_t) (m + 1) * sizeof *y), *ty = malloc ((size_t) (m + 1) * sizeof *ty);
      int *map = malloc ((size_t) cn_graph_n_values (g) * sizeof *map);
      ck_assert (x != NULL && dx != NULL && gx != NULL && w != NULL && y != NULL && ty != NULL && map != NULL);
      for (int k = 0; k < DIRS; k++)
        {
          int done = 0;
          for (int attempt = 0; attempt < MAX_REDRAWS && !done; attempt++)
            {
              tu_draw_probe (&c, x, w, m, dx, n, 1);
              cn_tape *t = replay (g, x, map);
              /* the tape's values are the evaluator's */
              if (all_float (g))
                {
                  cn_tensor in, out;
                  OK (cn_tensor_init (&in, CN_DTYPE_F64, cn_graph_value_shape (g, xin), &err));
                  if (n > 0)
                    memcpy (in.data, x, (size_t) n * sizeof *x);
                  OK (cn_graph_eval (g, CN_DTYPE_F64, &in, &out, &err));
                  const cn_tensor *tv = cn_tape_value (t, map[yv]);
                  ck_assert (tv != NULL && tv->dtype == CN_DTYPE_F64);
                  for (int64_t j = 0; j < m; j++)
                    {
                      double a = ((double *) out.data)[j], b = ((const double *) tv->data)[j];
                      ck_assert_msg (a == b || (isnan (a) && isnan (b)), "%s: tape value %.17g, eval %.17g", name, b,
                                     a);
                    }
                  cn_tensor_clear (&in);
                  cn_tensor_clear (&out);
                }
              /* one engine: the tape's gradient is cn_graph_gradient's */
              ck_assert_msg (cn_graph_gradient (g, x, w, y, gx, &err) == CN_OK, "%s: gradient failed: %s", name,
                             err.msg);
              ck_assert_int_eq (cn_tape_needs_grad (t, map[xin]), 1);
              ck_assert_msg (cn_tape_backward (t, map[yv], w, &err) == CN_OK, "%s: backward failed: %s", name, err.msg);
              const double *tg = cn_tape_grad (t, map[xin]);
              ck_assert (tg != NULL);
              const double *tvy = cn_tape_value (t, map[yv])->data;
              for (int64_t i = 0; i < n; i++)
                ck_assert_msg (tg[i] == gx[i] || (isnan (tg[i]) && isnan (gx[i])),
                               "%s: tape gradient %.17g, cn_graph_gradient %.17g at %lld (CN_TEST_SEED=%lu)", name,
                               tg[i], gx[i], (long long) i, tu_seed ());
              for (int64_t j = 0; j < m; j++)
                ck_assert (tvy[j] == y[j] || (isnan (y[j]) && isnan (tvy[j])));
              cn_tape_free (t);
              /* forward mode is the adjoint of reverse mode */
              if (path_has_jvps (g))
                {
                  const double *xs[1] = { x }, *ts[1] = { dx };
                  ck_assert_msg (cn_graph_jvp (g, xs, ts, 0, NULL, ty, &err) == CN_OK, "%s: jvp: %s", name, err.msg);
                  double lhs = 0, rhs = 0, scale = 0;
                  for (int64_t j = 0; j < m; j++)
                    {
                      lhs += ty[j] * w[j];
                      scale += fabs (ty[j] * w[j]);
                    }
                  for (int64_t i = 0; i < n; i++)
                    {
                      rhs += dx[i] * gx[i];
                      scale += fabs (dx[i] * gx[i]);
                    }
                  if (isfinite (scale))
                    {
                      ck_assert_msg (fabs (lhs - rhs) <= 1e-12 * scale, "%s: <jvp, w> = %.17g, <dx, vjp> = %.17g "
                                     "(CN_TEST_SEED=%lu)", name, lhs, rhs, tu_seed ());
                      adjoint++;
                    }
                }
              done = tu_dir_check (name, g, x, w, gx, dx, n, m, 0, &worst);
              redrawn += !done;
            }
          ck_assert_msg (done, "%s: %d draws in a row met a kink (CN_TEST_SEED=%lu)", name, MAX_REDRAWS, tu_seed ());
          checked++;
        }
      free (x);
      free (dx);
      free (gx);
      free (w);
      free (y);
      free (ty);
      free (map);
      cn_graph_free (g);
    }
  fprintf (stderr, "%-20s tape vs MPFR central differences: %d checks, %d redrawn, worst %.3g; %d adjoint checks\n",
           name, checked, redrawn, worst, adjoint);
}
END_TEST

/* ---- 2. flags ------------------------------------------------------------------------------ */

/* A spy around a pullback: records which cotangents it was given. */
static const struct cn_op_rule *spied;
static int spy_calls, spy_null[8];

static cn_status
spy_pullback (const cn_node_view *nv, const cn_tensor *const *in, const cn_tensor *out, const double *g_out,
              double *const *g_in, cn_error *err)
{
  spy_calls++;
  for (int i = 0; i < nv->n_in && i < 8; i++)
    spy_null[i] = g_in[i] == NULL;
  return spied->pullback (nv, in, out, g_out, g_in, err);
}

/* Swaps the rule of the last node of T's graph for a spy (white box). */
static void
spy_on_last (cn_tape *t, struct cn_op_rule *copy)
{
  cn_graph *g = (cn_graph *) cn_tape_graph (t);
  struct cn__node *nd = &g->nodes[g->n_nodes - 1];
  spied = nd->rule;
  *copy = *nd->rule;
  copy->pullback = spy_pullback;
  nd->rule = copy;
  spy_calls = 0;
}

START_TEST (flags)
{
  cn_error err;
  cn_error_clear (&err);
  cn_tape *t;
  OK (cn_tape_create (&t, &err));
  double av[3] = { 1.5, -2, 0.25 }, bv[3] = { 3, 0.5, -1 }, cv[3] = { -1, 2, 4 }, w[3] = { 1, -2, 0.5 };
  cn_tensor at = vec (3, av), bt = vec (3, bv), ct = vec (3, cv);
  int a, b, c, ab, bc, ac, y;
  OK (cn_tape_leaf (t, "a", &at, 1, &a, &err));
  OK (cn_tape_leaf (t, "b", &bt, 0, &b, &err));
  OK (cn_tape_constant (t, "c", &ct, &c, &err));
  ck_assert (cn_tape_needs_grad (t, a) && !cn_tape_needs_grad (t, b) && !cn_tape_needs_grad (t, c));
  static struct cn_op_rule spy1, spy2, spy3;
  OK (cn_tape_apply (t, CN_OP_MUL, NULL, 2, (int[]) { a, b }, "ab", &ab, &err));
  spy_on_last (t, &spy1);
  OK (cn_tape_apply (t, CN_OP_MUL, NULL, 2, (int[]) { b, c }, "bc", &bc, &err));
  ck_assert (cn_tape_needs_grad (t, ab) && !cn_tape_needs_grad (t, bc));
  OK (cn_tape_apply (t, CN_OP_ADD, NULL, 2, (int[]) { ab, bc }, "y", &y, &err));
  ck_assert (cn_tape_needs_grad (t, y));
  OK (cn_tape_backward (t, y, w, &err));
  ck_assert_int_eq (spy_calls, 1);
  ck_assert (!spy_null[0] && spy_null[1]);       /* b's flag is off: its cotangent is NULL */
  const double *ga = cn_tape_grad (t, a);
  ck_assert (ga != NULL && cn_tape_grad (t, b) == NULL && cn_tape_grad (t, c) == NULL && cn_tape_grad (t, y) == NULL);
  for (int j = 0; j < 3; j++)
    ck_assert (ga[j] == w[j] * bv[j]);
  const cn_tensor *yv = cn_tape_value (t, y);
  for (int j = 0; j < 3; j++)
    ck_assert (((double *) yv->data)[j] == av[j] * bv[j] + bv[j] * cv[j]);

  /* A constant factor and clamp's frozen bounds receive nothing, even from leaves that need a
   * gradient. */
  int lo, hi, cl, z;
  cn_tensor lot, hit;
  cn_shape s0;
  OK (cn_shape_make (&s0, 0, NULL, &err));
  OK (cn_tensor_init (&lot, CN_DTYPE_F64, &s0, &err));
  OK (cn_tensor_init (&hit, CN_DTYPE_F64, &s0, &err));
  ((double *) lot.data)[0] = -1;
  ((double *) hit.data)[0] = 1;
  OK (cn_tape_leaf (t, "lo", &lot, 1, &lo, &err));
  OK (cn_tape_leaf (t, "hi", &hit, 1, &hi, &err));
  OK (cn_tape_apply (t, CN_OP_MUL, NULL, 2, (int[]) { a, c }, "ac", &ac, &err));
  spy_on_last (t, &spy2);
  OK (cn_tape_backward (t, ac, NULL, &err));
  ck_assert (spy_calls == 1 && !spy_null[0] && spy_null[1]);
  OK (cn_tape_apply (t, CN_OP_CLAMP, NULL, 3, (int[]) { a, lo, hi }, "clamp", &cl, &err));
  spy_on_last (t, &spy3);
  ck_assert (cn_tape_needs_grad (t, cl));
  cn_tape_zero_grad (t);
  OK (cn_tape_backward (t, cl, w, &err));
  ck_assert (spy_calls == 1 && !spy_null[0] && spy_null[1] && spy_null[2]);
  const double *glo = cn_tape_grad (t, lo), *ghi = cn_tape_grad (t, hi);
  ck_assert (glo != NULL && ghi != NULL && glo[0] == 0 && ghi[0] == 0);
  for (int j = 0; j < 3; j++)
    {
      /* a = (1.5, -2, 0.25) against [-1, 1]: clipped, clipped, inside */
      ck_assert_msg (ga[j] == (j == 2 ? w[j] : 0), "clamp gradient %d: %g", j, ga[j]);
    }

  /* detach passes nothing: y = detach(a) a has the gradient detach(a) w */
  cn_tape_zero_grad (t);
  OK (cn_tape_apply (t, CN_OP_DETACH, NULL, 1, &a, "det", &z, &err));
  ck_assert (!cn_tape_needs_grad (t, z));
  OK (cn_tape_apply (t, CN_OP_MUL, NULL, 2, (int[]) { z, a }, "za", &z, &err));
  OK (cn_tape_backward (t, z, w, &err));
  for (int j = 0; j < 3; j++)
    ck_assert (ga[j] == av[j] * w[j]);

  /* Booleans cannot need a gradient */
  cn_tensor bl;
  cn_shape s3 = vec_shape (3);
  OK (cn_tensor_init (&bl, CN_DTYPE_BOOL, &s3, &err));
  int bref;
  ck_assert_int_eq (cn_tape_leaf (t, "flag", &bl, 1, &bref, &err), CN_EINVAL);
  ck_assert_msg (strstr (err.msg, "tape: leaf 'flag' of sort bool") == err.msg, "%s", err.msg);
  cn_error_clear (&err);
  OK (cn_tape_leaf (t, "flag", &bl, 0, &bref, &err));
  ck_assert (cn_tape_value (t, bref)->dtype == CN_DTYPE_BOOL);
  cn_tensor_clear (&bl);
  cn_tensor_clear (&at);
  cn_tensor_clear (&bt);
  cn_tensor_clear (&ct);
  cn_tensor_clear (&lot);
  cn_tensor_clear (&hit);
  cn_tape_free (t);
}
END_TEST

/* y = select(x > 0, x, x / 10): the comparison has no pullback and a Boolean output, so neither
 * the tape nor cn_graph_gradient asks it for one; the gradient is w (x > 0) + w / 10 (x <= 0). */
START_TEST (comparison_stops)
{
  cn_error err;
  cn_error_clear (&err);
  ck_assert (cn__op_rule (CN_OP_GT)->pullback == NULL);   /* else the test proves nothing */
  double xv[4] = { 1.5, -2, 0, 0.25 }, w[4] = { 1, -2, 0.5, 4 }, zv[4] = { 0, 0, 0, 0 };
  cn_tensor xt = vec (4, xv), zt = vec (4, zv);
  cn_params_scale tenth = { .factor = 0.1 };
  /* on a tape */
  cn_tape *t;
  int x, zero, c, s, y;
  OK (cn_tape_create (&t, &err));
  OK (cn_tape_leaf (t, "x", &xt, 1, &x, &err));
  OK (cn_tape_constant (t, "zero", &zt, &zero, &err));
  OK (cn_tape_apply (t, CN_OP_GT, NULL, 2, (int[]) { x, zero }, "x>0", &c, &err));
  ck_assert (!cn_tape_needs_grad (t, c) && cn_tape_value (t, c)->dtype == CN_DTYPE_BOOL);
  OK (cn_tape_apply (t, CN_OP_SCALE, &tenth, 1, &x, "x/10", &s, &err));
  OK (cn_tape_apply (t, CN_OP_SELECT, NULL, 3, (int[]) { c, x, s }, "y", &y, &err));
  ck_assert (cn_tape_needs_grad (t, y));
  OK (cn_tape_backward (t, y, w, &err));
  const double *g = cn_tape_grad (t, x);
  for (int j = 0; j < 4; j++)
    {
      ck_assert (((const uint8_t *) cn_tape_value (t, c)->data)[j] == (xv[j] > 0));
      ck_assert_msg (g[j] == (xv[j] > 0 ? w[j] : w[j] * 0.1), "select gradient %d: %g", j, g[j]);
    }
  /* backward from the comparison itself: nothing needs a gradient, nothing happens */
  OK (cn_tape_backward (t, c, NULL, &err));
  for (int j = 0; j < 4; j++)
    ck_assert (g[j] == (xv[j] > 0 ? w[j] : w[j] * 0.1));
  /* the same graph through cn_graph_gradient (the tape's graph with an output declared) */
  cn_graph *tg = (cn_graph *) cn_tape_graph (t);
  ck_assert_int_eq (cn_graph_n_inputs (tg), 1);
  OK (cn_graph_set_outputs (tg, 1, &y, &err));
  double gx[4], yy[4];
  OK (cn_graph_gradient (tg, xv, w, yy, gx, &err));
  for (int j = 0; j < 4; j++)
    ck_assert (gx[j] == g[j] && yy[j] == (xv[j] > 0 ? xv[j] : xv[j] * 0.1));
  /* and with the comparison's output as output 0: a zero gradient, no pullback demanded */
  OK (cn_graph_set_outputs (tg, 1, &c, &err));
  OK (cn_graph_gradient (tg, xv, w, yy, gx, &err));
  for (int j = 0; j < 4; j++)
    ck_assert (gx[j] == 0 && yy[j] == (xv[j] > 0));
  cn_tape_free (t);
  cn_tensor_clear (&xt);
  cn_tensor_clear (&zt);
}
END_TEST

/* ---- 3. sweeps ----------------------------------------------------------------------------- */

START_TEST (sweeps)
{
  cn_error err;
  cn_error_clear (&err);
  cn_tape *t;
  OK (cn_tape_create (&t, &err));
  double xv[3] = { 0.5, -1, 2 }, w[3] = { 1, 2, 3 };
  cn_tensor xt = vec (3, xv);
  int x, sq, r, y;
  OK (cn_tape_leaf (t, "x", &xt, 1, &x, &err));
  OK (cn_tape_apply (t, CN_OP_MUL, NULL, 2, (int[]) { x, x }, "x*x", &sq, &err));  /* read twice */
  OK (cn_tape_apply (t, CN_OP_RELU, NULL, 1, &x, "relu", &r, &err));
  OK (cn_tape_apply (t, CN_OP_ADD, NULL, 2, (int[]) { sq, r }, "y", &y, &err));
  const double *g = cn_tape_grad (t, x);
  for (int j = 0; j < 3; j++)
    ck_assert (g[j] == 0);                      /* zero before any sweep */
  OK (cn_tape_backward (t, y, NULL, &err));     /* seed of ones */
  for (int j = 0; j < 3; j++)
    ck_assert (g[j] == 2 * xv[j] + (xv[j] > 0));
  OK (cn_tape_backward (t, y, w, &err));        /* accumulates */
  for (int j = 0; j < 3; j++)
    ck_assert (g[j] == (2 * xv[j] + (xv[j] > 0)) * (1 + w[j]));
  OK (cn_tape_backward (t, x, w, &err));        /* from the leaf itself: + w */
  for (int j = 0; j < 3; j++)
    ck_assert (g[j] == (2 * xv[j] + (xv[j] > 0)) * (1 + w[j]) + w[j]);
  cn_tape_zero_grad (t);
  OK (cn_tape_backward (t, sq, w, &err));
  for (int j = 0; j < 3; j++)
    ck_assert (g[j] == 2 * xv[j] * w[j]);
  /* the recording is a graph: leaves are its inputs, values its values */
  const cn_graph *tg = cn_tape_graph (t);
  ck_assert_int_eq (cn_graph_n_inputs (tg), 1);
  ck_assert_int_eq (cn_graph_input (tg, 0), x);
  ck_assert_int_eq (cn_graph_n_nodes (tg), 3);
  ck_assert_int_eq (cn_graph_value_producer (tg, y), 2);
  cn_tensor_clear (&xt);
  cn_tape_free (t);
  cn_tape_free (NULL);
}
END_TEST

/* ---- 4. errors ----------------------------------------------------------------------------- */

START_TEST (errors)
{
  cn_error err;
  cn_error_clear (&err);
  cn_tape *t;
  OK (cn_tape_create (&t, &err));
  double xv[3] = { 0.5, -1, 2 }, w[3] = { 1, 2, 3 };
  cn_tensor xt = vec (3, xv), x2t = vec (2, xv);
  int x, u, r, r2, q, bad = 12345;
  OK (cn_tape_leaf (t, "x", &xt, 1, &x, &err));
  OK (cn_tape_leaf (t, "u", &xt, 0, &u, &err));
  OK (cn_tape_apply (t, CN_OP_RELU, NULL, 1, &x, "r", &r, &err));
  OK (cn_tape_apply (t, CN_OP_NEG, NULL, 1, &r, "q", &q, &err));
  OK (cn_tape_apply (t, CN_OP_RELU, NULL, 1, &u, "r2", &r2, &err));
  /* a relu without pullback (white box): on the path of x, and on u's path, which needs none */
  static struct cn_op_rule no_pull;
  cn_graph *g = (cn_graph *) cn_tape_graph (t);
  no_pull = *g->nodes[0].rule;
  no_pull.pullback = NULL;
  g->nodes[0].rule = &no_pull;
  g->nodes[2].rule = &no_pull;
  OK (cn_tape_backward (t, r2, w, &err));       /* r2 needs no gradient: nothing asked */
  OK (cn_tape_backward (t, x, w, &err));        /* g = w */
  ck_assert_int_eq (cn_tape_backward (t, q, w, &err), CN_EUNSUPPORTED);
  ck_assert_msg (strcmp (err.msg, "relu: no pullback (node 'r')") == 0, "%s", err.msg);
  for (int j = 0; j < 3; j++)
    ck_assert (cn_tape_grad (t, x)[j] == w[j]);  /* unchanged by the refused sweep */

  /* references, ports, shapes, arguments */
  int ref = -7;
  cn_error_clear (&err);
  ck_assert_int_eq (cn_tape_apply (t, CN_OP_RELU, NULL, 1, &bad, "b", &ref, &err), CN_EINVAL);
  ck_assert_msg (strncmp (err.msg, "tape: input 0 of node 'b'", 25) == 0, "%s", err.msg);
  ck_assert_int_eq (ref, -7);
  int x2;
  OK (cn_tape_leaf (t, "x2", &x2t, 1, &x2, &err));
  cn_error_clear (&err);
  ck_assert_int_eq (cn_tape_apply (t, CN_OP_ADD, NULL, 2, (int[]) { x, x2 }, "sum", &ref, &err), CN_ESHAPE);
  ck_assert_msg (strncmp (err.msg, "add: ", 5) == 0 && strstr (err.msg, "(node 'sum')") != NULL, "%s", err.msg);
  cn_error_clear (&err);
  ck_assert_int_eq (cn_tape_apply (t, CN_OP_SELECT, NULL, 3, (int[]) { x, x, x }, "sel", &ref, &err), CN_EINVAL);
  ck_assert_msg (strncmp (err.msg, "select: input 0 ", 16) == 0 && strstr (err.msg, "bool") != NULL
                 && strstr (err.msg, "(node 'sel')") != NULL, "%s", err.msg);
  ck_assert_int_eq (ref, -7);
  cn_error_clear (&err);
  ck_assert_int_eq (cn_tape_apply (t, CN_OP_RELU, NULL, 2, (int[]) { x, x }, "r3", &ref, &err), CN_EINVAL);
  cn_error_clear (&err);
  ck_assert_int_eq (cn_tape_backward (t, bad, w, &err), CN_EINVAL);
  ck_assert_msg (strncmp (err.msg, "tape: ", 6) == 0, "%s", err.msg);
  ck_assert (cn_tape_value (t, bad) == NULL && cn_tape_value (t, -1) == NULL && cn_tape_grad (t, bad) == NULL);
  ck_assert (!cn_tape_needs_grad (t, bad) && !cn_tape_needs_grad (NULL, x));
  cn_error_clear (&err);
  ck_assert_int_eq (cn_tape_leaf (t, "x", NULL, 1, &ref, &err), CN_EINVAL);
  ck_assert_int_eq (cn_tape_apply (NULL, CN_OP_RELU, NULL, 1, &x, "r", &ref, NULL), CN_EINVAL);
  ck_assert_int_eq (cn_tape_backward (NULL, x, w, NULL), CN_EINVAL);
  ck_assert_int_eq (cn_tape_create (NULL, NULL), CN_EINVAL);
  /* a constant must be finite, as in a graph */
  double nanv[1] = { NAN };
  cn_tensor nt = vec (1, nanv);
  cn_error_clear (&err);
  ck_assert_int_eq (cn_tape_constant (t, "n", &nt, &ref, &err), CN_ENUMERIC);
  OK (cn_tape_leaf (t, "n", &nt, 1, &ref, &err));   /* a leaf may hold NaN */
  cn_tensor_clear (&nt);
  /* a forward that refuses its values (cast of NaN to a word): no reference, the tape goes on */
  int nan_leaf = ref, cast_ref = -7, failed = cn_graph_n_values (cn_tape_graph (t));
  cn_params_cast pc = { .to = CN_DTYPE_I32 };
  cn_error_clear (&err);
  ck_assert_int_eq (cn_tape_apply (t, CN_OP_CAST, &pc, 1, &nan_leaf, "word", &cast_ref, &err), CN_ENUMERIC);
  ck_assert_msg (strncmp (err.msg, "cast: ", 6) == 0 && strstr (err.msg, "(node 'word')") != NULL, "%s", err.msg);
  ck_assert_int_eq (cast_ref, -7);
  ck_assert (cn_tape_value (t, failed) == NULL && !cn_tape_needs_grad (t, failed));
  cn_error_clear (&err);
  ck_assert_int_eq (cn_tape_apply (t, CN_OP_CAST, &pc, 1, &failed, "again", &cast_ref, &err), CN_EINVAL);
  ck_assert_int_eq (cn_tape_backward (t, failed, NULL, &err), CN_EINVAL);
  cn_error_clear (&err);
  OK (cn_tape_apply (t, CN_OP_NEG, NULL, 1, &nan_leaf, "negnan", &cast_ref, &err));
  OK (cn_tape_backward (t, cast_ref, NULL, &err));
  ck_assert (cn_tape_grad (t, nan_leaf)[0] == -1);

  /* cn_graph_vjp and cn_graph_jvp arguments */
  const cn_graph *tg = cn_tape_graph (t);
  const double *xs[4] = { xv, xv, xv, NULL };
  double ty[3];
  cn_error_clear (&err);
  ck_assert_int_eq (cn_graph_vjp (tg, xs, 0, w, NULL, NULL, &err), CN_EINVAL);   /* no output declared */
  ck_assert_msg (strncmp (err.msg, "vjp: no output 0", 16) == 0, "%s", err.msg);
  cn_error_clear (&err);
  ck_assert_int_eq (cn_graph_jvp (tg, xs, NULL, 0, NULL, ty, &err), CN_EINVAL);
  ck_assert_int_eq (cn_graph_vjp (NULL, xs, 0, w, NULL, NULL, NULL), CN_EINVAL);
  ck_assert_int_eq (cn_graph_jvp (tg, xs, NULL, 0, NULL, NULL, NULL), CN_EINVAL);
  cn_graph *gm = (cn_graph *) tg;
  OK (cn_graph_set_outputs (gm, 1, &q, &err));
  cn_error_clear (&err);
  ck_assert_int_eq (cn_graph_vjp (tg, NULL, 0, w, NULL, NULL, &err), CN_EINVAL);  /* no point for x */
  ck_assert_msg (strcmp (err.msg, "vjp: no point for input 0 ('x')") == 0, "%s", err.msg);
  /* an input that output 0 does not read needs no point */
  double gq[3] = { 0, 0, 0 };
  double *gs[4] = { gq, NULL, NULL, NULL };
  g->nodes[0].rule = cn__op_rule (CN_OP_RELU);
  OK (cn_graph_vjp (tg, xs, 0, w, NULL, gs, &err));
  for (int j = 0; j < 3; j++)
    ck_assert (gq[j] == -(xv[j] > 0 ? w[j] : 0));
  /* jvp without a jvp arm on the path (white box) */
  static struct cn_op_rule no_jvp;
  no_jvp = *cn__op_rule (CN_OP_NEG);
  no_jvp.jvp = NULL;
  g->nodes[1].rule = &no_jvp;
  const double *ts[4] = { w, NULL, NULL, NULL };
  cn_error_clear (&err);
  ck_assert_int_eq (cn_graph_jvp (tg, xs, ts, 0, NULL, ty, &err), CN_EUNSUPPORTED);
  ck_assert_msg (strcmp (err.msg, "neg: no jvp (node 'q')") == 0, "%s", err.msg);
  OK (cn_graph_jvp (tg, xs, NULL, 0, NULL, ty, &err));    /* no tangent: no jvp asked, zeros */
  for (int j = 0; j < 3; j++)
    ck_assert (ty[j] == 0);
  cn_tensor_clear (&xt);
  cn_tensor_clear (&x2t);
  cn_tape_free (t);
}
END_TEST

/* ---- 5. custom ----------------------------------------------------------------------------- */

/* The program tanh(a x + b) on vectors of N, with A and B given; its nodes are "ax", "ax+b",
 * "tanh". */
static cn_graph *
affine_tanh (int64_t n, const double *a, const double *b)
{
  cn_error err;
  cn_error_clear (&err);
  cn_graph *g;
  cn_shape s = vec_shape (n);
  int x, av, bv, t, u, y;
  OK (cn_graph_create (&g, &err));
  OK (cn_graph_add_input (g, "x", CN_DTYPE_F64, &s, &x, &err));
  cn_tensor at = vec (n, a), bt = vec (n, b);
  OK (cn_graph_add_constant (g, "a", &at, &av, &err));
  OK (cn_graph_add_constant (g, "b", &bt, &bv, &err));
  cn_tensor_clear (&at);
  cn_tensor_clear (&bt);
  OK (cn_graph_add_node (g, CN_OP_MUL, NULL, 2, (int[]) { av, x }, "ax", &t, &err));
  OK (cn_graph_add_node (g, CN_OP_ADD, NULL, 2, (int[]) { t, bv }, "ax+b", &u, &err));
  OK (cn_graph_add_node (g, CN_OP_TANH, NULL, 1, &u, "tanh", &y, &err));
  OK (cn_graph_set_outputs (g, 1, &y, &err));
  return g;
}

START_TEST (custom_tape)
{
  cn_error err;
  cn_error_clear (&err);
  double a[3] = { 0.5, -1.25, 2 }, b[3] = { 0.1, 0.2, -0.3 }, xv[3] = { 0.3, -0.7, 0.05 }, w[3] = { 1, -0.5, 2 };
  cn_graph *prog = affine_tanh (3, a, b);
  cn_params_custom cp;
  memset (&cp, 0, sizeof cp);
  cp.program = prog;
  snprintf (cp.name, sizeof cp.name, "atanh1");
  cn_tape *t;
  int x, y, z;
  cn_tensor xt = vec (3, xv);
  OK (cn_tape_create (&t, &err));
  OK (cn_tape_leaf (t, "x", &xt, 1, &x, &err));
  OK (cn_tape_apply (t, CN_OP_CUSTOM, &cp, 1, &x, "c", &y, &err));
  OK (cn_tape_apply (t, CN_OP_MUL, NULL, 2, (int[]) { y, x }, "yx", &z, &err));
  OK (cn_tape_backward (t, z, w, &err));
  const double *g = cn_tape_grad (t, x);
  const double *yv = cn_tape_value (t, y)->data;
  for (int j = 0; j < 3; j++)
    {
      double th = tanh (a[j] * xv[j] + b[j]);
      ck_assert_msg (fabs (yv[j] - th) <= 4e-16, "custom forward %d: %.17g vs %.17g", j, yv[j], th);
      /* d/dx (tanh(a x + b) x) = a (1 - tanh^2) x + tanh */
      double want = w[j] * (a[j] * (1 - th * th) * xv[j] + th);
      ck_assert_msg (fabs (g[j] - want) <= 1e-14, "custom gradient %d: %.17g vs %.17g", j, g[j], want);
    }
  cn_tape_free (t);

  /* check and out_sort refusals */
  cn_graph *gg;
  int in1, in2, r;
  OK (cn_graph_create (&gg, &err));
  cn_shape s3 = vec_shape (3), s2 = vec_shape (2);
  OK (cn_graph_add_input (gg, "x", CN_DTYPE_F64, &s3, &in1, &err));
  OK (cn_graph_add_input (gg, "x2", CN_DTYPE_F64, &s2, &in2, &err));
  cn_error_clear (&err);
  ck_assert_int_eq (cn_graph_add_node (gg, CN_OP_CUSTOM, &cp, 1, &in2, "c2", &r, &err), CN_ESHAPE);
  ck_assert_msg (strcmp (err.msg, "custom 'atanh1': input 0 has shape [2], the program's input 'x' [3] (node 'c2')") == 0,
                 "%s", err.msg);
  cn_error_clear (&err);
  ck_assert_int_eq (cn_graph_add_node (gg, CN_OP_CUSTOM, &cp, 2, (int[]) { in1, in1 }, "c3", &r, &err), CN_EINVAL);
  ck_assert_msg (strstr (err.msg, "custom 'atanh1': the program has 1 inputs, the node 2") == err.msg, "%s", err.msg);
  cn_params_custom none;
  memset (&none, 0, sizeof none);
  memset (none.name, 'n', sizeof none.name);          /* no NUL: the name is bounded */
  cn_error_clear (&err);
  ck_assert_int_eq (cn_graph_add_node (gg, CN_OP_CUSTOM, &none, 1, &in1, "c4", &r, &err), CN_EINVAL);
  ck_assert_msg (strstr (err.msg, "': no program (node 'c4')") != NULL && strncmp (err.msg, "custom 'nnn", 11) == 0,
                 "%s", err.msg);
  /* a program with a Boolean input */
  cn_graph *bp;
  int bi;
  OK (cn_graph_create (&bp, &err));
  OK (cn_graph_add_input (bp, "flag", CN_DTYPE_BOOL, &s3, &bi, &err));
  OK (cn_graph_set_outputs (bp, 1, &bi, &err));
  cn_params_custom bcp = { .program = bp, .name = "boolin" };
  cn_error_clear (&err);
  ck_assert_int_eq (cn_graph_add_node (gg, CN_OP_CUSTOM, &bcp, 1, &in1, "c5", &r, &err), CN_EINVAL);
  ck_assert_msg (strstr (err.msg, "custom 'boolin': the program's input 0 ('flag') is of sort bool") == err.msg, "%s",
                 err.msg);
  /* a program without output */
  cn_graph *np;
  int ni;
  OK (cn_graph_create (&np, &err));
  OK (cn_graph_add_input (np, "x", CN_DTYPE_F64, &s3, &ni, &err));
  cn_params_custom ncp = { .program = np, .name = "noout" };
  cn_error_clear (&err);
  ck_assert_int_eq (cn_graph_add_node (gg, CN_OP_CUSTOM, &ncp, 1, &in1, "c6", &r, &err), CN_EINVAL);
  ck_assert_msg (strstr (err.msg, "no output") != NULL, "%s", err.msg);

  /* an inner operator without an arm: the error names it behind the custom */
  OK (cn_graph_add_node (gg, CN_OP_CUSTOM, &cp, 1, &in1, "outer", &r, &err));
  OK (cn_graph_set_outputs (gg, 1, &r, &err));
  static struct cn_op_rule crippled;
  const struct cn_op_rule *tanh_rule = prog->nodes[2].rule;
  crippled = *tanh_rule;
  crippled.pullback = NULL;
  crippled.jvp = NULL;
  crippled.ibp = NULL;
  crippled.ibp_mpfi = NULL;
  prog->nodes[2].rule = &crippled;
  const struct cn__node *outer = &gg->nodes[0];
  cn_tensor arg = vec (3, xv), out;
  const cn_tensor *args[1] = { &arg };
  OK (cn_tensor_init (&out, CN_DTYPE_F64, &s3, &err));
  double gin[3] = { 0, 0, 0 }, tout[3];
  double *gins[1] = { gin };
  const double *tins[1] = { w };
  const struct cn_op_rule *cr = cn__op_rule (CN_OP_CUSTOM);
  cn_error_clear (&err);
  ck_assert_int_eq (cr->pullback (&outer->view[0], args, &out, w, gins, &err), CN_EUNSUPPORTED);
  ck_assert_msg (strcmp (err.msg, "custom 'atanh1' (node 'outer'): tanh: no pullback (node 'tanh')") == 0, "%s", err.msg);
  cn_error_clear (&err);
  ck_assert_int_eq (cr->jvp (&outer->view[0], args, &out, tins, tout, &err), CN_EUNSUPPORTED);
  ck_assert_msg (strcmp (err.msg, "custom 'atanh1' (node 'outer'): tanh: no jvp (node 'tanh')") == 0, "%s", err.msg);
  cn_box ib, ob;
  OK (cn_box_init (&ib, 3, &err));
  OK (cn_box_init (&ob, 3, &err));
  const cn_box *ibs[1] = { &ib };
  cn_error_clear (&err);
  ck_assert_int_eq (cr->ibp (&outer->view[0], ibs, &ob, &err), CN_EUNSUPPORTED);
  ck_assert_msg (strstr (err.msg, "custom 'atanh1' (node 'outer'): tanh: no IBP arm") == err.msg, "%s", err.msg);
  cn_mpfi_vec mi, mo;
  OK (cn_mpfi_vec_init (&mi, 3, 64, &err));
  OK (cn_mpfi_vec_init (&mo, 3, 64, &err));
  for (int j = 0; j < 3; j++)
    mpfi_set_d (mi.v[j], xv[j]);
  const cn_mpfi_vec *mis[1] = { &mi };
  cn_error_clear (&err);
  ck_assert_int_eq (cr->ibp_mpfi (&outer->view[0], mis, &mo, &err), CN_EUNSUPPORTED);
  ck_assert_msg (strcmp (err.msg, "custom 'atanh1' (node 'outer'): tanh: no MPFI arm (node 'tanh')") == 0, "%s",
                 err.msg);
  /* restored, the arms agree with the hand formulas */
  prog->nodes[2].rule = tanh_rule;
  OK (cr->pullback (&outer->view[0], args, &out, w, gins, &err));
  OK (cr->jvp (&outer->view[0], args, &out, tins, tout, &err));
  for (int j = 0; j < 3; j++)
    {
      double th = tanh (a[j] * xv[j] + b[j]), d = a[j] * (1 - th * th);
      ck_assert (fabs (gin[j] - w[j] * d) <= 1e-15 && fabs (tout[j] - w[j] * d) <= 1e-15);
      mpfi_interv_d (mi.v[j], xv[j] - 0.125, xv[j] + 0.125);
      ib.lo[j] = xv[j] - 0.125;
      ib.hi[j] = xv[j] + 0.125;
    }
  OK (cr->ibp (&outer->view[0], ibs, &ob, &err));
  OK (cr->ibp_mpfi (&outer->view[0], mis, &mo, &err));
  for (int j = 0; j < 3; j++)
    {
      /* tanh(a x + b) is monotone in x: the ends map to the ends */
      double e1 = tanh (a[j] * ib.lo[j] + b[j]), e2 = tanh (a[j] * ib.hi[j] + b[j]);
      ck_assert (ob.lo[j] <= fmin (e1, e2) && ob.hi[j] >= fmax (e1, e2));
      ck_assert (ob.hi[j] - ob.lo[j] <= fabs (e1 - e2) + 1e-12);
      ck_assert (mpfr_cmp_d (&mo.v[j]->left, ob.lo[j]) >= 0 && mpfr_cmp_d (&mo.v[j]->right, ob.hi[j]) <= 0);
    }
  cn_box_clear (&ib);
  cn_box_clear (&ob);
  cn_mpfi_vec_clear (&mi);
  cn_mpfi_vec_clear (&mo);
  cn_tensor_clear (&arg);
  cn_tensor_clear (&out);
  cn_tensor_clear (&xt);
  cn_graph_free (gg);
  cn_graph_free (bp);
  cn_graph_free (np);
  cn_graph_free (prog);
}
END_TEST

/* cn_graph_vjp and cn_graph_jvp on a graph of two inputs (with a custom node of two inputs and
 * a dead branch): <jvp(dx, dy), w> = <(dx, dy), vjp(w)>, and the tape agrees with vjp. */
START_TEST (two_inputs)
{
  cn_error err;
  cn_error_clear (&err);
  cn_shape s = vec_shape (4);
  cn_graph *p, *g;
  int px, py, pt, pu, gx, gy, gc, gz;
  OK (cn_graph_create (&p, &err));
  OK (cn_graph_add_input (p, "x", CN_DTYPE_F64, &s, &px, &err));
  OK (cn_graph_add_input (p, "y", CN_DTYPE_F64, &s, &py, &err));
  OK (cn_graph_add_node (p, CN_OP_SIGMOID, NULL, 1, &px, "sig", &pt, &err));
  OK (cn_graph_add_node (p, CN_OP_MUL, NULL, 2, (int[]) { pt, py }, "prod", &pu, &err));
  OK (cn_graph_set_outputs (p, 1, &pu, &err));
  cn_params_custom cp = { .program = p, .name = "gate" };
  OK (cn_graph_create (&g, &err));
  OK (cn_graph_add_input (g, "x", CN_DTYPE_F64, &s, &gx, &err));
  OK (cn_graph_add_input (g, "y", CN_DTYPE_F64, &s, &gy, &err));
  OK (cn_graph_add_node (g, CN_OP_CUSTOM, &cp, 2, (int[]) { gx, gy }, "gate", &gc, &err));
  OK (cn_graph_add_node (g, CN_OP_EXP, NULL, 1, &gc, "exp", &gz, &err));
  OK (cn_graph_set_outputs (g, 1, &gz, &err));
  for (int d = 0; d < 20; d++)
    {
      double x[4], y[4], dx[4], dy[4], w[4], gxv[4] = { 0 }, gyv[4] = { 0 }, ty[4], out[4];
      for (int j = 0; j < 4; j++)
        {
          x[j] = tu_uniform (-2, 2);
          y[j] = tu_uniform (-2, 2);
          dx[j] = tu_uniform (-1, 1);
          dy[j] = tu_uniform (-1, 1);
          w[j] = tu_uniform (-1, 1);
        }
      const double *xs[2] = { x, y }, *ts[2] = { dx, dy };
      double *gs[2] = { gxv, gyv };
      OK (cn_graph_vjp (g, xs, 0, w, out, gs, &err));
      OK (cn_graph_jvp (g, xs, ts, 0, NULL, ty, &err));
      double lhs = 0, rhs = 0, scale = 0;
      for (int j = 0; j < 4; j++)
        {
          double sg = 1 / (1 + exp (-x[j])), z = exp (sg * y[j]);
          ck_assert (fabs (out[j] - z) <= 1e-14 * z);
          /* dz/dx = z y sg (1 - sg), dz/dy = z sg */
          ck_assert (fabs (gxv[j] - w[j] * z * y[j] * sg * (1 - sg)) <= 1e-13);
          ck_assert (fabs (gyv[j] - w[j] * z * sg) <= 1e-13);
          lhs += ty[j] * w[j];
          rhs += dx[j] * gxv[j] + dy[j] * gyv[j];
          scale += fabs (ty[j] * w[j]) + fabs (dx[j] * gxv[j]) + fabs (dy[j] * gyv[j]);
        }
      ck_assert_msg (fabs (lhs - rhs) <= 1e-13 * scale, "%.17g vs %.17g", lhs, rhs);
      /* only y needs a gradient: x's buffer stays as it is (NULL: receives nothing) */
      double gy2[4] = { 1, 1, 1, 1 };
      double *gs2[2] = { NULL, gy2 };
      OK (cn_graph_vjp (g, xs, 0, w, NULL, gs2, &err));
      for (int j = 0; j < 4; j++)
        ck_assert (gy2[j] == 1 + gyv[j]);      /* added */
      /* the tape with the same leaves */
      cn_tape *t;
      int tx, tyr, tc, tz;
      cn_tensor xt = vec (4, x), yt = vec (4, y);
      OK (cn_tape_create (&t, &err));
      OK (cn_tape_leaf (t, "x", &xt, 1, &tx, &err));
      OK (cn_tape_leaf (t, "y", &yt, d & 1, &tyr, &err));
      OK (cn_tape_apply (t, CN_OP_CUSTOM, &cp, 2, (int[]) { tx, tyr }, "gate", &tc, &err));
      OK (cn_tape_apply (t, CN_OP_EXP, NULL, 1, &tc, "exp", &tz, &err));
      OK (cn_tape_backward (t, tz, w, &err));
      for (int j = 0; j < 4; j++)
        ck_assert (cn_tape_grad (t, tx)[j] == gxv[j]);
      if (d & 1)
        for (int j = 0; j < 4; j++)
          ck_assert (cn_tape_grad (t, tyr)[j] == gyv[j]);
      else
        ck_assert (cn_tape_grad (t, tyr) == NULL);
      cn_tape_free (t);
      cn_tensor_clear (&xt);
      cn_tensor_clear (&yt);
    }
  cn_graph_free (g);
  cn_graph_free (p);
}
END_TEST

static Suite *
tape_suite (void)
{
  Suite *s = suite_create ("tape");
  TCase *tc = tcase_create ("tape");
  tcase_set_timeout (tc, 600);
  tcase_add_test (tc, flags);
  tcase_add_test (tc, comparison_stops);
  tcase_add_test (tc, sweeps);
  tcase_add_test (tc, errors);
  tcase_add_test (tc, custom_tape);
  tcase_add_test (tc, two_inputs);
  tcase_add_loop_test (tc, generic, 0, CN_OP_COUNT);
  suite_add_tcase (s, tc);
  return s;
}

int
main (void)
{
  tu_init ();
  return tu_run_suite (tape_suite ());
}
