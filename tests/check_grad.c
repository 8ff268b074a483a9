/* SPDX-License-Identifier: MIT */
/* tests/check_grad.c: reverse mode, the operators' pullbacks and cn_graph_gradient.
 *
 * 1. Generic loop over every operator with a pullback (the ggml GRAD check, the derivative checked
 *    against the forward in MPFR): random instances from src/ops/cases_*.c (custom:
 *    src/certs/case_custom.c), sometimes with every input varying (both factors of mul, matmul and
 *    div; weights, biases and the batch-norm statistics), built into one-node graphs (tu_op_graph)
 *    and differentiated by cn_graph_gradient at random points x for random output cotangents w.
 *    For random directions dx the dot product  <grad, dx>  must match the central difference of
 *    phi(s) = w . F(x + s dx),
 *        (phi(h) - phi(-h)) / (2 h),   h = 2^-30,
 *    with phi evaluated through the MPFI reference at 256 bits on degenerate boxes (x, dx are
 *    drawn on grids of 2^-20 and 2^-10, so x +- h dx are doubles exactly).  The tolerance is
 *    1e-6 relative to sum_i |grad_i dx_i| + |difference|.  A point within a step of a kink (relu
 *    at 0, a max tie) shows as a second difference phi(h) - 2 phi(0) + phi(-h) that is not small
 *    against h (a kink makes it of the order of h, a smooth phi of h^2): such a draw is redrawn.
 * 2. Each pullback ADDS into its cotangents: called on prefilled cotangents it adds what it adds
 *    to zeros, and an input whose cotangent is NULL changes nothing for the others.
 * 3. cn_graph_gradient on whole benchmark networks (ACAS Xu, MNIST, a CIFAR conv net of oval21,
 *    the small test nets), checked by the same central differences along random directions.
 *    Skipped when ../shared/benchmarks is absent (a note says so); the generic checks above still
 *    run and decide the program's result, as check_onnx does without the benchmarks.
 * 4. Graph-level cases (accumulation over several consumers, a value read twice, an output that
 *    is the input, a constant output, a node off the path without pullback) and the errors:
 *    wrong input or output counts, NULL arguments, a node without pullback on the path.
 * 5. Forward mode (the operators' jvp arms, issue 4), over every operator with a jvp:
 *    a. adjointness: for random x, tangents dx on the non-constant inputs (NULL for constants)
 *       and cotangents g,  <jvp(x, dx), g> = sum_i <dx_i, pullback(x, g)_i>  to rounding
 *       (relative 1e-12 of sum |t_j g_j| + sum |dx_i g_i|); the jvp WRITES its output (it is
 *       prefilled with NaN), and a draw whose forward leaves the reals (NaN, inf) is redrawn;
 *    b. graph_jvp (forward mode over a whole graph, a test helper below) against the central
 *       differences of every output entry, (F_j(x + h dx) - F_j(x - h dx)) / (2 h), computed by
 *       the MPFI reference at 256 bits as in 1 (tolerance 1e-6 relative; kinks and points where
 *       the reference refuses are redrawn);
 *    c. the tie conventions of max pooling and reduce max/min (the pullback's first extreme);
 *    d. on the benchmark networks, when every node on the path has a jvp:
 *       <graph_jvp(x, dx), w> = <dx, cn_graph_gradient(x, w)>.
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

#define PREC TU_GRAD_PREC
#define DRAWS 24         /* instances per operator */
#define DIRS 3           /* directions per instance */
#define STEP TU_GRAD_STEP    /* the central difference's step h */
#define TOL TU_GRAD_TOL       /* relative tolerance of the dot-product check */
#define MAX_REDRAWS 40

static const char *bench;

/* ---- 1. the generic loop ------------------------------------------------------------------ */

static const cn_op with_pullback[] = { CN_OP_LINEAR, CN_OP_MATMUL, CN_OP_ADD, CN_OP_SUB, CN_OP_MUL, CN_OP_DIV,
                                       CN_OP_NEG, CN_OP_RELU, CN_OP_RESHAPE, CN_OP_PERMUTE, CN_OP_BROADCAST,
                                       CN_OP_CONV, CN_OP_POOL, CN_OP_BATCH_NORM_RUNNING, CN_OP_PAD, CN_OP_SLICE,
                                       CN_OP_CAT, CN_OP_REDUCE, CN_OP_MEAN };

START_TEST (registry_pullbacks)
{
  for (size_t i = 0; i < sizeof with_pullback / sizeof with_pullback[0]; i++)
    {
      cn_op_coverage c;
      cn_op_coverage_get (with_pullback[i], &c);
      ck_assert_msg (c.rule && c.pullback, "%s: no pullback", cn_op_name (with_pullback[i]));
    }
  /* Every operator with a rule and a value input has a pullback. */
  for (int op = 0; op < CN_OP_COUNT; op++)
    {
      cn_op_coverage c;
      cn_op_coverage_get ((cn_op) op, &c);
      ck_assert_msg (!c.rule || !c.value_input || c.pullback, "%s: a value input without pullback",
                     cn_op_name ((cn_op) op));
    }
}
END_TEST

/* Draws a case of OP, sometimes widened: every input varying (the products' second factors,
 * the weights, the batch-norm statistics), reduce over products. */
static void
draw_case (cn_op op, struct cn__op_case *c)
{
  ck_assert (tu_op_case (op, c));
  int widen = tu_int (0, 2) == 0;
  switch (op)
    {
    case CN_OP_MUL:
    case CN_OP_DIV:
    case CN_OP_ADD:
    case CN_OP_SUB:
    case CN_OP_CAT:
    case CN_OP_LINEAR:
    case CN_OP_MATMUL:
    case CN_OP_CONV:
    case CN_OP_BATCH_NORM_RUNNING:
    case CN_OP_BROADCAST:
      if (widen || op == CN_OP_DIV)
        for (int i = 0; i < c->n_in; i++)
          c->in_const[i] = op == CN_OP_DIV && !widen && i == 1;
      break;
    case CN_OP_REDUCE:
      if (widen)
        c->params.reduce.kind = CN_REDUCE_PROD;
      break;
    default:
      break;
    }
  /* Some non-constant input must remain: the graph input feeds the op through it. */
  int any = 0;
  for (int i = 0; i < c->n_in; i++)
    any |= !c->in_const[i];
  if (!any)
    c->in_const[0] = 0;
}

/* The tensor at input I of the op node ND of case C, for calling the rule directly: a constant
 * in its own sort (the model's scalar in binary64), a non-constant port drawn by tu_port_value in
 * binary64, or in the port's sort for Boolean (0/1) and integer ports. */
static void
port_tensor (const struct cn__op_case *c, const cn_graph *g, const struct cn__node *nd, int i, cn_tensor *t)
{
  cn_error err;
  cn_error_clear (&err);
  const struct cn__value *u = &g->values[nd->in[i]];
  cn_dtype sort = cn_dtype_is_float (u->dtype) ? CN_DTYPE_F64 : u->dtype;
  if (u->is_constant)
    {
      ck_assert (cn_tensor_convert (t, sort, &u->constant, &err) == CN_OK);
      return;
    }
  cn_tensor f;
  ck_assert (cn_tensor_init (&f, CN_DTYPE_F64, &u->shape, &err) == CN_OK);
  for (int64_t j = 0; j < u->numel; j++)
    ((double *) f.data)[j] = sort == CN_DTYPE_BOOL ? (double) tu_int (0, 1) : tu_port_value (c, i);
  if (sort == CN_DTYPE_F64)
    {
      *t = f;
      return;
    }
  ck_assert_msg (cn_tensor_convert (t, sort, &f, &err) == CN_OK, "port %d: %s", i, err.msg);
  cn_tensor_clear (&f);
}

/* The tensor for output K of node ND, in binary64 or in the output's own sort. */
static void
out_tensor (const cn_graph *g, const struct cn__node *nd, int k, cn_tensor *t)
{
  cn_error err;
  cn_error_clear (&err);
  const struct cn__value *o = &g->values[nd->out[k]];
  ck_assert (cn_tensor_init (t, cn_dtype_is_float (o->dtype) ? CN_DTYPE_F64 : o->dtype, &o->shape, &err) == CN_OK);
}

START_TEST (generic)
{
  cn_op op = (cn_op) _i;
  const struct cn_op_rule *rule = cn__op_rule (op);
  if (rule == NULL || rule->pullback == NULL)
    return;
  const char *name = cn_op_name (op);
  double worst = 0;
  int checked = 0, redrawn = 0;
  for (int d = 0; d < DRAWS; d++)
    {
      struct cn__op_case c;
      draw_case (op, &c);
      cn_error err;
      cn_error_clear (&err);
      cn_graph *g = NULL;
      ck_assert_msg (tu_op_graph (&c, &g, &err) == CN_OK, "%s: building the case failed: %s (CN_TEST_SEED=%lu)", name,
                     err.msg, tu_seed ());
      int xin = cn_graph_input (g, 0), yv = cn_graph_output (g, 0);
      int64_t n = cn_shape_numel (cn_graph_value_shape (g, xin));
      int64_t m = cn_shape_numel (cn_graph_value_shape (g, yv));
      double *x = malloc ((size_t) (n + 1) * sizeof *x), *dx = malloc ((size_t) (n + 1) * sizeof *dx);
      double *gx = malloc ((size_t) (n + 1) * sizeof *gx), *w = malloc ((size_t) (m + 1) * sizeof *w);
      double *y = malloc ((size_t) (m + 1) * sizeof *y);
      ck_assert (x != NULL && dx != NULL && gx != NULL && w != NULL && y != NULL);
      for (int k = 0; k < DIRS; k++)
        {
          int done = 0;
          for (int attempt = 0; attempt < MAX_REDRAWS && !done; attempt++)
            {
              tu_draw_probe (&c, x, w, m, dx, n, 0);
              ck_assert_msg (cn_graph_gradient (g, x, w, y, gx, &err) == CN_OK, "%s: gradient failed: %s", name, err.msg);
              /* y is the binary64 forward, the same as cn_graph_eval's */
              cn_tensor in, out;
              ck_assert (cn_tensor_init (&in, CN_DTYPE_F64, cn_graph_value_shape (g, xin), &err) == CN_OK);
              if (n > 0)
                memcpy (in.data, x, (size_t) n * sizeof *x);
              ck_assert (cn_graph_eval (g, CN_DTYPE_F64, &in, &out, &err) == CN_OK);
              for (int64_t j = 0; j < m; j++)
                ck_assert_msg (((double *) out.data)[j] == y[j] || (isnan (y[j]) && isnan (((double *) out.data)[j])),
                               "%s: gradient's y[%lld] = %.17g, eval %.17g", name, (long long) j, y[j],
                               ((double *) out.data)[j]);
              cn_tensor_clear (&in);
              cn_tensor_clear (&out);
              done = tu_dir_check (name, g, x, w, gx, dx, n, m, 1, &worst);
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
      cn_graph_free (g);
    }
  fprintf (stderr, "%-20s pullback vs MPFR central differences: %d checks, %d redrawn, worst relative error %.3g\n",
           name, checked, redrawn, worst);
}
END_TEST

/* ---- 2. pullbacks add ---------------------------------------------------------------------- */

START_TEST (pullback_adds)
{
  cn_op op = (cn_op) _i;
  const struct cn_op_rule *rule = cn__op_rule (op);
  if (rule == NULL || rule->pullback == NULL)
    return;
  const char *name = cn_op_name (op);
  for (int d = 0; d < DRAWS; d++)
    {
      struct cn__op_case c;
      draw_case (op, &c);
      cn_error err;
      cn_error_clear (&err);
      cn_graph *g = NULL;
      ck_assert (tu_op_graph (&c, &g, &err) == CN_OK);
      const struct cn__node *nd = &g->nodes[g->n_nodes - 1];
      int n_in = nd->n_in;
      cn_tensor tin[CN__CASE_MAX_IN], tout;
      const cn_tensor *args[CN__CASE_MAX_IN];
      double *a[CN__CASE_MAX_IN], *b[CN__CASE_MAX_IN], *p[CN__CASE_MAX_IN], *q[CN__CASE_MAX_IN], *gin[CN__CASE_MAX_IN];
      int64_t ni[CN__CASE_MAX_IN];
      for (int i = 0; i < n_in; i++)
        {
          const struct cn__value *u = &g->values[nd->in[i]];
          ni[i] = u->numel;
          port_tensor (&c, g, nd, i, &tin[i]);
          args[i] = &tin[i];
          size_t sz = (size_t) (u->numel + 1) * sizeof (double);
          a[i] = calloc (1, sz);
          b[i] = malloc (sz);
          p[i] = malloc (sz);
          q[i] = calloc (1, sz);
          ck_assert (a[i] != NULL && b[i] != NULL && p[i] != NULL && q[i] != NULL);
          for (int64_t j = 0; j < u->numel; j++)
            b[i][j] = p[i][j] = tu_uniform (-4, 4);
        }
      int64_t m = g->values[nd->out[c.out_index]].numel;
      out_tensor (g, nd, c.out_index, &tout);
      ck_assert_msg (rule->forward (&nd->view[c.out_index], args, &tout, &err) == CN_OK, "%s: forward: %s", name, err.msg);
      double *go = malloc ((size_t) (m + 1) * sizeof *go);
      ck_assert (go != NULL);
      for (int64_t j = 0; j < m; j++)
        go[j] = tu_uniform (-1, 1);
      /* A: into zeros; B: into P; C: into zeros with a random half of the cotangents NULL. */
      for (int i = 0; i < n_in; i++)
        gin[i] = a[i];
      ck_assert_msg (rule->pullback (&nd->view[c.out_index], args, &tout, go, gin, &err) == CN_OK, "%s: pullback: %s", name, err.msg);
      for (int i = 0; i < n_in; i++)
        gin[i] = b[i];
      ck_assert (rule->pullback (&nd->view[c.out_index], args, &tout, go, gin, &err) == CN_OK);
      int keep[CN__CASE_MAX_IN];
      for (int i = 0; i < n_in; i++)
        {
          keep[i] = (int) tu_int (0, 1);
          gin[i] = keep[i] ? q[i] : NULL;
        }
      ck_assert (rule->pullback (&nd->view[c.out_index], args, &tout, go, gin, &err) == CN_OK);
      for (int i = 0; i < n_in; i++)
        for (int64_t j = 0; j < ni[i]; j++)
          {
            double want = p[i][j] + a[i][j];
            ck_assert_msg (fabs (b[i][j] - want) <= 1e-12 * (fabs (p[i][j]) + fabs (a[i][j]) + 1),
                           "%s: input %d entry %lld: into %.17g the pullback gives %.17g, into 0 it adds %.17g "
                           "(CN_TEST_SEED=%lu)", name, i, (long long) j, p[i][j], b[i][j], a[i][j], tu_seed ());
            if (keep[i])
              ck_assert_msg (fabs (q[i][j] - a[i][j]) <= 1e-12 * (fabs (a[i][j]) + 1),
                             "%s: input %d entry %lld: %.17g with other cotangents NULL, %.17g without "
                             "(CN_TEST_SEED=%lu)", name, i, (long long) j, q[i][j], a[i][j], tu_seed ());
          }
      for (int i = 0; i < n_in; i++)
        {
          cn_tensor_clear (&tin[i]);
          free (a[i]);
          free (b[i]);
          free (p[i]);
          free (q[i]);
        }
      cn_tensor_clear (&tout);
      free (go);
      cn_graph_free (g);
    }
}
END_TEST

/* ---- 3. benchmark networks ------------------------------------------------------------------ */

static const struct
{
  const char *onnx;
  double lo, hi;      /* the range of the random points */
  int dirs;
} nets[] = {
  { "acasxu/onnx/ACASXU_run2a_1_1_batch_2000.onnx", -0.5, 0.5, 6 },
  { "acasxu/onnx/ACASXU_run2a_4_5_batch_2000.onnx", -0.5, 0.5, 6 },
  { "mnist_fc/onnx/mnist-net_256x2.onnx", 0, 1, 4 },
  { "mnist_fc/onnx/mnist-net_256x4.onnx", 0, 1, 2 },
  { "oval21/onnx/cifar_base_kw.onnx", 0, 1, 2 },
  { "test/onnx/test_small.onnx", -1, 1, 6 },
};
#define N_NETS ((int) (sizeof nets / sizeof nets[0]))

START_TEST (networks)
{
  char path[4096];
  cn_error err;
  cn_error_clear (&err);
  snprintf (path, sizeof path, "%s/%s", bench, nets[_i].onnx);
  cn_graph *g = NULL;
  ck_assert_msg (cn_graph_load_onnx (path, &g, &err) == CN_OK, "%s: %s", path, err.msg);
  int xin = cn_graph_input (g, 0), yv = cn_graph_output (g, 0);
  int64_t n = cn_shape_numel (cn_graph_value_shape (g, xin));
  int64_t m = cn_shape_numel (cn_graph_value_shape (g, yv));
  double *x = malloc ((size_t) n * sizeof *x), *dx = malloc ((size_t) n * sizeof *dx);
  double *gx = malloc ((size_t) n * sizeof *gx), *w = malloc ((size_t) m * sizeof *w);
  ck_assert (x != NULL && dx != NULL && gx != NULL && w != NULL);
  double worst = 0, gnorm = 0;
  int redrawn = 0;
  for (int k = 0; k < nets[_i].dirs; k++)
    {
      int done = 0;
      for (int attempt = 0; attempt < MAX_REDRAWS && !done; attempt++)
        {
          for (int64_t i = 0; i < n; i++)
            {
              x[i] = tu_grid20 (tu_uniform (nets[_i].lo, nets[_i].hi));
              dx[i] = tu_rand_dir ();
            }
          for (int64_t j = 0; j < m; j++)
            w[j] = tu_uniform (-1, 1);
          ck_assert_msg (cn_graph_gradient (g, x, w, NULL, gx, &err) == CN_OK, "%s: %s", nets[_i].onnx, err.msg);
          done = tu_dir_check (nets[_i].onnx, g, x, w, gx, dx, n, m, 1, &worst);
          redrawn += !done;
        }
      ck_assert_msg (done, "%s: %d draws in a row met a kink (CN_TEST_SEED=%lu)", nets[_i].onnx, MAX_REDRAWS, tu_seed ());
      for (int64_t i = 0; i < n; i++)
        gnorm = fmax (gnorm, fabs (gx[i]));
    }
  fprintf (stderr, "%-48s gradient vs MPFR central differences: %d directions, %d redrawn, worst %.3g (|grad|_inf %.3g)\n",
           nets[_i].onnx, nets[_i].dirs, redrawn, worst, gnorm);
  free (x);
  free (dx);
  free (gx);
  free (w);
  cn_graph_free (g);
}
END_TEST

/* ---- 4. graph-level cases and errors --------------------------------------------------------- */

static cn_shape
vec_shape (int64_t n)
{
  cn_shape s;
  cn_shape_make (&s, 1, &n, NULL);
  return s;
}

/* y = relu(x) + 3 x and z = x * x (outputs y, z): the cotangent of x accumulates over three
 * consumers, and mul reads x twice. */
START_TEST (graph_accumulates)
{
  cn_error err;
  cn_error_clear (&err);
  cn_graph *g;
  ck_assert (cn_graph_create (&g, &err) == CN_OK);
  cn_shape s = vec_shape (4);
  int x, r, c3, t, y, z;
  ck_assert (cn_graph_add_input (g, "x", CN_DTYPE_F64, &s, &x, &err) == CN_OK);
  cn_tensor k;
  ck_assert (cn_tensor_init (&k, CN_DTYPE_F64, &s, &err) == CN_OK);
  for (int j = 0; j < 4; j++)
    ((double *) k.data)[j] = 3;
  ck_assert (cn_graph_add_constant (g, "three", &k, &c3, &err) == CN_OK);
  cn_tensor_clear (&k);
  ck_assert (cn_graph_add_node (g, CN_OP_RELU, NULL, 1, &x, "r", &r, &err) == CN_OK);
  ck_assert (cn_graph_add_node (g, CN_OP_MUL, NULL, 2, (int[]) { x, c3 }, "t", &t, &err) == CN_OK);
  ck_assert (cn_graph_add_node (g, CN_OP_ADD, NULL, 2, (int[]) { r, t }, "y", &y, &err) == CN_OK);
  ck_assert (cn_graph_add_node (g, CN_OP_MUL, NULL, 2, (int[]) { x, x }, "z", &z, &err) == CN_OK);
  double xv[4] = { -1.5, 2, 0, 0.25 }, w[4] = { 1, -2, 0.5, 4 }, gx[4], yv[4];
  ck_assert (cn_graph_set_outputs (g, 2, (int[]) { y, z }, &err) == CN_OK);
  ck_assert_msg (cn_graph_gradient (g, xv, w, yv, gx, &err) == CN_OK, "%s", err.msg);
  for (int j = 0; j < 4; j++)
    {
      double rl = xv[j] > 0 ? xv[j] : 0;
      ck_assert (yv[j] == rl + 3 * xv[j]);
      /* relu' is 0 at x <= 0 (x = 0 included) */
      ck_assert_msg (gx[j] == w[j] * ((xv[j] > 0 ? 1 : 0) + 3), "entry %d: %g", j, gx[j]);
    }
  /* output 0 = z = x * x: d/dx = 2 x, both factors' cotangents into the same x */
  ck_assert (cn_graph_set_outputs (g, 2, (int[]) { z, y }, &err) == CN_OK);
  ck_assert (cn_graph_gradient (g, xv, w, yv, gx, &err) == CN_OK);
  for (int j = 0; j < 4; j++)
    ck_assert (gx[j] == 2 * xv[j] * w[j] && yv[j] == xv[j] * xv[j]);
  /* output 0 = x itself: the gradient is w */
  ck_assert (cn_graph_set_outputs (g, 1, &x, &err) == CN_OK);
  ck_assert (cn_graph_gradient (g, xv, w, yv, gx, &err) == CN_OK);
  for (int j = 0; j < 4; j++)
    ck_assert (gx[j] == w[j] && yv[j] == xv[j]);
  /* output 0 = a constant: the gradient is 0 */
  ck_assert (cn_graph_set_outputs (g, 1, &c3, &err) == CN_OK);
  ck_assert (cn_graph_gradient (g, xv, w, yv, gx, &err) == CN_OK);
  for (int j = 0; j < 4; j++)
    ck_assert (gx[j] == 0 && yv[j] == 3);
  cn_graph_free (g);
}
END_TEST

/* The documented one-sided choices at ties: max pooling and reduce max/min send the cotangent
 * to the first extreme entry in the forward's scan order. */
START_TEST (tie_conventions)
{
  cn_error err;
  cn_error_clear (&err);
  cn_graph *g;
  ck_assert (cn_graph_create (&g, &err) == CN_OK);
  cn_shape s;
  ck_assert (cn_shape_make (&s, 3, (int64_t[]) { 1, 1, 4 }, &err) == CN_OK);
  int x, y;
  ck_assert (cn_graph_add_input (g, "x", CN_DTYPE_F64, &s, &x, &err) == CN_OK);
  cn_params_pool pp;
  memset (&pp, 0, sizeof pp);
  pp.kind = CN_POOL_MAX;
  pp.nd = 1;
  pp.kernel[0] = 2;
  pp.stride[0] = pp.dilation[0] = 1;
  ck_assert (cn_graph_add_node (g, CN_OP_POOL, &pp, 1, &x, "mp", &y, &err) == CN_OK);
  ck_assert (cn_graph_set_outputs (g, 1, &y, &err) == CN_OK);
  double xv[4] = { 1, 3, 3, 2 }, w[3] = { 1, 10, 100 }, gx[4];
  ck_assert_msg (cn_graph_gradient (g, xv, w, NULL, gx, &err) == CN_OK, "%s", err.msg);
  /* windows (1, 3), (3, 3), (3, 2): the tie goes to the first 3 */
  ck_assert_msg (gx[0] == 0 && gx[1] == 11 && gx[2] == 100 && gx[3] == 0, "pool: %g %g %g %g", gx[0], gx[1], gx[2],
                 gx[3]);
  cn_graph_free (g);

  for (int mx = 0; mx < 2; mx++)
    {
      ck_assert (cn_graph_create (&g, &err) == CN_OK);
      cn_shape s4 = vec_shape (4);
      ck_assert (cn_graph_add_input (g, "x", CN_DTYPE_F64, &s4, &x, &err) == CN_OK);
      cn_params_reduce rp = { .kind = mx ? CN_REDUCE_MAX : CN_REDUCE_MIN, .axes = 1, .keepdims = 0 };
      ck_assert (cn_graph_add_node (g, CN_OP_REDUCE, &rp, 1, &x, "r", &y, &err) == CN_OK);
      ck_assert (cn_graph_set_outputs (g, 1, &y, &err) == CN_OK);
      double xr[4] = { 2, mx ? 5 : -5, mx ? 5 : -5, 1 }, w1 = 7, yv;
      ck_assert_msg (cn_graph_gradient (g, xr, &w1, &yv, gx, &err) == CN_OK, "%s", err.msg);
      ck_assert (yv == xr[1]);
      ck_assert_msg (gx[0] == 0 && gx[1] == 7 && gx[2] == 0 && gx[3] == 0, "reduce: %g %g %g %g", gx[0], gx[1], gx[2],
                     gx[3]);
      cn_graph_free (g);
    }
}
END_TEST

/* The kink detector of tu_dir_check: relu at 0 along a direction that crosses it is refused, the
 * same direction away from 0 is checked. */
START_TEST (kink_detected)
{
  cn_error err;
  cn_error_clear (&err);
  cn_graph *g;
  ck_assert (cn_graph_create (&g, &err) == CN_OK);
  cn_shape s = vec_shape (3);
  int x, r;
  ck_assert (cn_graph_add_input (g, "x", CN_DTYPE_F64, &s, &x, &err) == CN_OK);
  ck_assert (cn_graph_add_node (g, CN_OP_RELU, NULL, 1, &x, "r", &r, &err) == CN_OK);
  ck_assert (cn_graph_set_outputs (g, 1, &r, &err) == CN_OK);
  double xv[3] = { 0, 1, -1 }, w[3] = { 1, 1, 1 }, dx[3] = { 0.5, 0.25, 0 }, gx[3], worst = 0;
  ck_assert (cn_graph_gradient (g, xv, w, NULL, gx, &err) == CN_OK);
  ck_assert_int_eq (tu_dir_check ("relu at 0", g, xv, w, gx, dx, 3, 3, 1, &worst), 0);
  xv[0] = 0.125;
  ck_assert (cn_graph_gradient (g, xv, w, NULL, gx, &err) == CN_OK);
  ck_assert_int_eq (tu_dir_check ("relu off 0", g, xv, w, gx, dx, 3, 3, 1, &worst), 1);
  cn_graph_free (g);
}
END_TEST

START_TEST (graph_errors)
{
  cn_error err;
  cn_graph *g;
  cn_shape s = vec_shape (3);
  double xv[3] = { 1, -2, 3 }, w[3] = { 1, 1, 1 }, gx[3];
  int x, x2, r, r2, q;

  /* no input, two inputs, no output, NULL arguments */
  cn_error_clear (&err);
  ck_assert (cn_graph_create (&g, &err) == CN_OK);
  cn_tensor k;
  ck_assert (cn_tensor_init (&k, CN_DTYPE_F64, &s, &err) == CN_OK);
  int c;
  ck_assert (cn_graph_add_constant (g, "c", &k, &c, &err) == CN_OK);
  cn_tensor_clear (&k);
  ck_assert (cn_graph_set_outputs (g, 1, &c, &err) == CN_OK);
  ck_assert_int_eq (cn_graph_gradient (g, xv, w, NULL, gx, &err), CN_EINVAL);
  ck_assert_msg (strncmp (err.msg, "gradient: ", 10) == 0 && strstr (err.msg, "0 inputs") != NULL, "%s", err.msg);
  cn_graph_free (g);

  cn_error_clear (&err);
  ck_assert (cn_graph_create (&g, &err) == CN_OK);
  ck_assert (cn_graph_add_input (g, "x", CN_DTYPE_F64, &s, &x, &err) == CN_OK);
  ck_assert (cn_graph_add_input (g, "x2", CN_DTYPE_F64, &s, &x2, &err) == CN_OK);
  ck_assert (cn_graph_add_node (g, CN_OP_ADD, NULL, 2, (int[]) { x, x2 }, "a", &r, &err) == CN_OK);
  ck_assert (cn_graph_set_outputs (g, 1, &r, &err) == CN_OK);
  ck_assert_int_eq (cn_graph_gradient (g, xv, w, NULL, gx, &err), CN_EINVAL);
  ck_assert_msg (strstr (err.msg, "2 inputs") != NULL, "%s", err.msg);
  cn_graph_free (g);

  cn_error_clear (&err);
  ck_assert (cn_graph_create (&g, &err) == CN_OK);
  ck_assert (cn_graph_add_input (g, "x", CN_DTYPE_F64, &s, &x, &err) == CN_OK);
  ck_assert (cn_graph_add_node (g, CN_OP_RELU, NULL, 1, &x, "r", &r, &err) == CN_OK);
  ck_assert_int_eq (cn_graph_gradient (g, xv, w, NULL, gx, &err), CN_EINVAL);
  ck_assert_msg (strstr (err.msg, "no output") != NULL, "%s", err.msg);
  ck_assert (cn_graph_set_outputs (g, 1, &r, &err) == CN_OK);
  cn_error_clear (&err);
  ck_assert_int_eq (cn_graph_gradient (g, NULL, w, NULL, gx, &err), CN_EINVAL);
  cn_error_clear (&err);
  ck_assert_int_eq (cn_graph_gradient (g, xv, NULL, NULL, gx, &err), CN_EINVAL);
  cn_error_clear (&err);
  ck_assert_int_eq (cn_graph_gradient (g, xv, w, NULL, NULL, &err), CN_EINVAL);
  ck_assert_int_eq (cn_graph_gradient (NULL, xv, w, NULL, gx, NULL), CN_EINVAL);

  /* A node without pullback: every operator with a rule has one, so the test swaps in a copy
   * of relu's rule with the arm left NULL (white box, through graph_impl.h). */
  static struct cn_op_rule no_pull;
  no_pull = *cn__op_rule (CN_OP_RELU);
  no_pull.pullback = NULL;
  ck_assert (cn_graph_add_node (g, CN_OP_RELU, NULL, 1, &r, "r2", &r2, &err) == CN_OK);
  ck_assert (cn_graph_add_node (g, CN_OP_NEG, NULL, 1, &x, "q", &q, &err) == CN_OK);
  g->nodes[1].rule = &no_pull;          /* r2 = relu(r), off the path to output 0 = r */
  cn_error_clear (&err);
  ck_assert_msg (cn_graph_gradient (g, xv, w, NULL, gx, &err) == CN_OK, "%s", err.msg);
  for (int j = 0; j < 3; j++)
    ck_assert (gx[j] == (xv[j] > 0 ? w[j] : 0));
  ck_assert (cn_graph_set_outputs (g, 2, (int[]) { r2, q }, &err) == CN_OK);
  ck_assert_int_eq (cn_graph_gradient (g, xv, w, NULL, gx, &err), CN_EUNSUPPORTED);
  ck_assert_msg (strcmp (err.msg, "relu: no pullback (node 'r2')") == 0, "%s", err.msg);
  cn_graph_free (g);
}
END_TEST

/* ---- 5. forward mode --------------------------------------------------------------------- */

/* Forward mode over G (one input, output 0) in binary64: Y = F(X) (may be NULL) and
 * TY = J_F(X) DX, the tangents pushed through each node's jvp in node order (values that do not
 * depend on the input have no tangent: their arms get NULL).  A node on the path without a jvp
 * is CN_EUNSUPPORTED, "op: no jvp (node 'name')".  A test helper: the library has no forward
 * mode over graphs yet. */
static cn_status
graph_jvp (const cn_graph *g, const double *x, const double *dx, double *y, double *ty, cn_error *err)
{
  if (g->n_inputs != 1 || g->n_outputs < 1)
    return cn_error_set (err, CN_EINVAL, "graph_jvp: one input and an output needed");
  int nv = g->n_values, xv = g->inputs[0], yv = g->outputs[0];
  size_t na = (size_t) (nv > 0 ? nv : 1);
  cn_tensor *val = calloc (na, sizeof *val);
  double **tan = calloc (na, sizeof *tan);
  const cn_tensor *args[CN__CASE_MAX_IN + 8];
  const double *t_in[CN__CASE_MAX_IN + 8];
  cn_status st = CN_OK;
  ck_assert (val != NULL && tan != NULL);
  const struct cn__value *xval = &g->values[xv];
  if ((st = cn_tensor_init (&val[xv], CN_DTYPE_F64, &xval->shape, err)) != CN_OK)
    goto done;
  if (xval->numel > 0)
    {
      memcpy (val[xv].data, x, (size_t) xval->numel * sizeof *x);
      tan[xv] = malloc ((size_t) xval->numel * sizeof (double));
      ck_assert (tan[xv] != NULL);
      memcpy (tan[xv], dx, (size_t) xval->numel * sizeof (double));
    }
  for (int v = 0; v < nv; v++)
    if (g->values[v].is_constant
        && (st = cn_tensor_convert (&val[v], cn_dtype_is_float (g->values[v].dtype) ? CN_DTYPE_F64 : g->values[v].dtype,
                                    &g->values[v].constant, err)) != CN_OK)
      goto done;
  for (int k = 0; k < g->n_nodes; k++)
    {
      const struct cn__node *nd = &g->nodes[k];
      int any = 0;
      ck_assert (nd->n_in <= CN__CASE_MAX_IN + 8);
      for (int i = 0; i < nd->n_in; i++)
        {
          args[i] = &val[nd->in[i]];
          /* tangents travel along value ports only */
          t_in[i] = cn__port_differentiable (nd->rule, i, g->values[nd->in[i]].dtype) ? tan[nd->in[i]] : NULL;
          any |= t_in[i] != NULL;
        }
      for (int o = 0; o < nd->n_out; o++)
        {
          int w = nd->out[o];
          int64_t no = g->values[w].numel;
          cn_dtype osort = cn_dtype_is_float (g->values[w].dtype) ? CN_DTYPE_F64 : g->values[w].dtype;
          if ((st = cn_tensor_init (&val[w], osort, &g->values[w].shape, err)) != CN_OK
              || (st = nd->rule->forward (&nd->view[o], args, &val[w], err)) != CN_OK)
            goto done;
          if (!any || !cn__out_differentiable (nd->rule, o))
            continue;               /* an index output's tangent is zero */
          if (nd->rule->jvp == NULL)
            {
              st = cn_error_set (err, CN_EUNSUPPORTED, "%s: no jvp (node '%s')", cn_op_name (nd->op), nd->name);
              goto done;
            }
          tan[w] = malloc ((size_t) (no > 0 ? no : 1) * sizeof (double));
          ck_assert (tan[w] != NULL);
          if ((st = nd->rule->jvp (&nd->view[o], args, &val[w], t_in, tan[w], err)) != CN_OK)
            goto done;
        }
    }
  /* now val[v] = v(x) and tan[v] = J_v(x) dx (NULL: zero) for every value v */
  int64_t ny = g->values[yv].numel;
  for (int64_t j = 0; j < ny; j++)
    {
      if (y != NULL)
        y[j] = cn_tensor_get_f64 (&val[yv], j);
      ty[j] = tan[yv] != NULL ? tan[yv][j] : 0;
    }
done:
  for (int v = 0; v < nv; v++)
    {
      cn_tensor_clear (&val[v]);
      free (tan[v]);
    }
  free (val);
  free (tan);
  return st;
}

static const cn_op with_jvp[] = { CN_OP_LINEAR, CN_OP_MATMUL, CN_OP_ADD, CN_OP_SUB, CN_OP_MUL, CN_OP_DIV,
                                  CN_OP_NEG, CN_OP_RESHAPE, CN_OP_PERMUTE, CN_OP_BROADCAST, CN_OP_CONV,
                                  CN_OP_POOL, CN_OP_BATCH_NORM_RUNNING, CN_OP_PAD, CN_OP_SLICE, CN_OP_CAT,
                                  CN_OP_REDUCE, CN_OP_MEAN };

START_TEST (registry_jvps)
{
  for (size_t i = 0; i < sizeof with_jvp / sizeof with_jvp[0]; i++)
    {
      cn_op_coverage c;
      cn_op_coverage_get (with_jvp[i], &c);
      ck_assert_msg (c.rule && c.jvp, "%s: no jvp", cn_op_name (with_jvp[i]));
    }
  /* A jvp comes with a pullback (the two are checked against each other), unless the operator
   * has no value input (its jvp writes zero tangents: checked in jvp_adjoint). */
  for (int op = 0; op < CN_OP_COUNT; op++)
    {
      cn_op_coverage c;
      cn_op_coverage_get ((cn_op) op, &c);
      ck_assert_msg (!c.jvp || c.pullback || !c.value_input, "%s: a jvp without pullback", cn_op_name ((cn_op) op));
    }
}
END_TEST

static int
all_finite (const double *v, int64_t n)
{
  for (int64_t j = 0; j < n; j++)
    if (!isfinite (v[j]))
      return 0;
  return 1;
}

/* 5a. <jvp(x, dx), g> = <dx, pullback(x, g)> for the op node of random cases. */
START_TEST (jvp_adjoint)
{
  cn_op op = (cn_op) _i;
  const struct cn_op_rule *rule = cn__op_rule (op);
  if (rule == NULL || rule->jvp == NULL)
    return;
  const char *name = cn_op_name (op);
  double worst = 0;
  int checked = 0, redrawn = 0;
  for (int d = 0; d < DRAWS && redrawn < 10 * DRAWS; d++)
    {
      struct cn__op_case c;
      draw_case (op, &c);
      cn_error err;
      cn_error_clear (&err);
      cn_graph *g = NULL;
      ck_assert (tu_op_graph (&c, &g, &err) == CN_OK);
      const struct cn__node *nd = &g->nodes[g->n_nodes - 1];
      int n_in = nd->n_in;
      cn_tensor tin[CN__CASE_MAX_IN], tout;
      const cn_tensor *args[CN__CASE_MAX_IN];
      double *dx[CN__CASE_MAX_IN], *gin[CN__CASE_MAX_IN];
      const double *tx[CN__CASE_MAX_IN];
      for (int i = 0; i < n_in; i++)
        {
          const struct cn__value *u = &g->values[nd->in[i]];
          port_tensor (&c, g, nd, i, &tin[i]);
          args[i] = &tin[i];
          dx[i] = gin[i] = NULL;
          /* tangents travel along value ports only (the others' are zero by the contract) */
          if (!u->is_constant && cn__port_differentiable (rule, i, u->dtype))
            {
              dx[i] = malloc ((size_t) (u->numel + 1) * sizeof (double));
              gin[i] = calloc ((size_t) (u->numel + 1), sizeof (double));
              ck_assert (dx[i] != NULL && gin[i] != NULL);
              for (int64_t j = 0; j < u->numel; j++)
                dx[i][j] = tu_uniform (-1, 1);
            }
          tx[i] = dx[i];
        }
      int64_t m = g->values[nd->out[c.out_index]].numel;
      out_tensor (g, nd, c.out_index, &tout);
      ck_assert_msg (rule->forward (&nd->view[c.out_index], args, &tout, &err) == CN_OK, "%s: forward: %s", name, err.msg);
      double *go = malloc ((size_t) (m + 1) * sizeof *go), *to = malloc ((size_t) (m + 1) * sizeof *to);
      ck_assert (go != NULL && to != NULL);
      for (int64_t j = 0; j < m; j++)
        {
          go[j] = tu_uniform (-1, 1);
          to[j] = NAN;                  /* the jvp writes every entry */
        }
      if (rule->pullback == NULL)
        {
          /* no value input: forward mode writes zero tangents */
          ck_assert_msg (rule->jvp (&nd->view[c.out_index], args, &tout, tx, to, &err) == CN_OK, "%s: jvp: %s", name, err.msg);
          for (int64_t j = 0; j < m; j++)
            ck_assert_msg (to[j] == 0, "%s: jvp of an operator without value input gives %.17g at %lld "
                           "(CN_TEST_SEED=%lu)", name, to[j], (long long) j, tu_seed ());
          checked++;
        }
      else if (!cn_dtype_is_float (tout.dtype) || all_finite (tout.data, m))
        {
          ck_assert_msg (rule->jvp (&nd->view[c.out_index], args, &tout, tx, to, &err) == CN_OK, "%s: jvp: %s", name, err.msg);
          ck_assert_msg (rule->pullback (&nd->view[c.out_index], args, &tout, go, gin, &err) == CN_OK, "%s: pullback: %s", name,
                         err.msg);
          double lhs = 0, rhs = 0, scale = 0;
          for (int64_t j = 0; j < m; j++)
            {
              ck_assert_msg (!isnan (to[j]), "%s: jvp left output entry %lld unwritten or NaN (CN_TEST_SEED=%lu)",
                             name, (long long) j, tu_seed ());
              lhs += to[j] * go[j];
              scale += fabs (to[j] * go[j]);
            }
          for (int i = 0; i < n_in; i++)
            if (dx[i] != NULL)
              for (int64_t j = 0; j < g->values[nd->in[i]].numel; j++)
                {
                  rhs += dx[i][j] * gin[i][j];
                  scale += fabs (dx[i][j] * gin[i][j]);
                }
          double e = fabs (lhs - rhs);
          ck_assert_msg (e <= 1e-12 * scale, "%s: <jvp, g> = %.17g, <dx, pullback> = %.17g (error %.3g, scale %.3g, "
                         "CN_TEST_SEED=%lu)", name, lhs, rhs, e, scale, tu_seed ());
          if (scale > 0 && e / scale > worst)
            worst = e / scale;
          checked++;
        }
      else
        {
          redrawn++;
          d--;
        }
      for (int i = 0; i < n_in; i++)
        {
          cn_tensor_clear (&tin[i]);
          free (dx[i]);
          free (gin[i]);
        }
      cn_tensor_clear (&tout);
      free (go);
      free (to);
      cn_graph_free (g);
    }
  ck_assert_msg (checked > 0, "%s: no draw with a finite forward (CN_TEST_SEED=%lu)", name, tu_seed ());
  fprintf (stderr, "%-20s jvp adjoint of pullback: %d checks, %d redrawn, worst relative error %.3g\n", name, checked,
           redrawn, worst);
}
END_TEST

/* Y = mid(F(X)) through the MPFI reference at PREC bits; returns 0 if the reference refuses. */
static int
mid_at (const cn_graph *g, const double *x, int64_t m, mpfr_t *y)
{
  cn_error err;
  cn_error_clear (&err);
  cn_mpfi_vec v;
  if (tu_eval_mpfi (g, x, PREC, &v, &err) != CN_OK)
    return 0;
  ck_assert_int_eq (v.n, m);
  int ok = 1;
  for (int64_t j = 0; j < m; j++)
    {
      mpfi_mid (y[j], v.v[j]);
      ok &= mpfr_number_p (y[j]) != 0;
    }
  cn_mpfi_vec_clear (&v);
  return ok;
}

/* 5b. Checks TY = J dx against the central differences of every output entry at X along DX.
 * Returns 1 if checked, 0 if a kink lies within a step or the reference refuses (redraw). */
static int
jvp_dir_check (const char *what, const cn_graph *g, const double *x, const double *dx, const double *ty, int64_t n,
               int64_t m, double *worst)
{
  double *xp = malloc ((size_t) (n + 1) * sizeof *xp), *xm = malloc ((size_t) (n + 1) * sizeof *xm);
  mpfr_t *yp = malloc ((size_t) (m + 1) * sizeof *yp), *y0 = malloc ((size_t) (m + 1) * sizeof *y0);
  mpfr_t *ym = malloc ((size_t) (m + 1) * sizeof *ym);
  ck_assert (xp != NULL && xm != NULL && yp != NULL && y0 != NULL && ym != NULL);
  for (int64_t i = 0; i < n; i++)
    {
      xp[i] = x[i] + STEP * dx[i];
      xm[i] = x[i] - STEP * dx[i];
      ck_assert (xp[i] - x[i] == STEP * dx[i] && x[i] - xm[i] == STEP * dx[i]);
    }
  for (int64_t j = 0; j < m; j++)
    mpfr_inits2 (2 * PREC, yp[j], y0[j], ym[j], (mpfr_ptr) 0);
  int ok = mid_at (g, xp, m, yp) && mid_at (g, x, m, y0) && mid_at (g, xm, m, ym);
  mpfr_t d1, d2;
  mpfr_inits2 (2 * PREC, d1, d2, (mpfr_ptr) 0);
  double norm = 0;
  double *cd = malloc ((size_t) (m + 1) * sizeof *cd), *kink = malloc ((size_t) (m + 1) * sizeof *kink);
  ck_assert (cd != NULL && kink != NULL);
  for (int64_t j = 0; j < m && ok; j++)
    {
      mpfr_sub (d1, yp[j], ym[j], MPFR_RNDN);
      mpfr_div_d (d1, d1, 2 * STEP, MPFR_RNDN);       /* the central difference */
      mpfr_add (d2, yp[j], ym[j], MPFR_RNDN);
      mpfr_mul_2ui (y0[j], y0[j], 1, MPFR_RNDN);
      mpfr_sub (d2, d2, y0[j], MPFR_RNDN);
      mpfr_div_d (d2, d2, 2 * STEP, MPFR_RNDN);       /* what a kink could add to it */
      cd[j] = mpfr_get_d (d1, MPFR_RNDN);
      kink[j] = fabs (mpfr_get_d (d2, MPFR_RNDN));
      norm = fmax (norm, fabs (cd[j]) + fabs (ty[j]));
    }
  for (int64_t j = 0; j < m && ok; j++)
    if (kink[j] > 0.1 * TOL * (fabs (cd[j]) + fabs (ty[j]) + 1e-3 * norm))
      ok = 0;
  for (int64_t j = 0; j < m && ok; j++)
    {
      /* the tangent's own rounding may leave a cancelled entry near 0: a floor of 1e-3 of the largest */
      double scale = fabs (cd[j]) + fabs (ty[j]) + 1e-3 * norm;
      double e = fabs (ty[j] - cd[j]);
      ck_assert_msg (e <= TOL * scale,
                     "%s: jvp entry %lld = %.17g, central difference %.17g (error %.3g, scale %.3g, CN_TEST_SEED=%lu)",
                     what, (long long) j, ty[j], cd[j], e, scale, tu_seed ());
      if (scale > 0 && e / scale > *worst)
        *worst = e / scale;
    }
  for (int64_t j = 0; j < m; j++)
    mpfr_clears (yp[j], y0[j], ym[j], (mpfr_ptr) 0);
  mpfr_clears (d1, d2, (mpfr_ptr) 0);
  free (xp);
  free (xm);
  free (yp);
  free (y0);
  free (ym);
  free (cd);
  free (kink);
  return ok;
}

START_TEST (jvp_generic)
{
  cn_op op = (cn_op) _i;
  const struct cn_op_rule *rule = cn__op_rule (op);
  if (rule == NULL || rule->jvp == NULL)
    return;
  const char *name = cn_op_name (op);
  double worst = 0;
  int checked = 0, redrawn = 0;
  for (int d = 0; d < DRAWS / 2; d++)
    {
      struct cn__op_case c;
      draw_case (op, &c);
      cn_error err;
      cn_error_clear (&err);
      cn_graph *g = NULL;
      ck_assert (tu_op_graph (&c, &g, &err) == CN_OK);
      int xin = cn_graph_input (g, 0), yv = cn_graph_output (g, 0);
      int64_t n = cn_shape_numel (cn_graph_value_shape (g, xin));
      int64_t m = cn_shape_numel (cn_graph_value_shape (g, yv));
      double *x = malloc ((size_t) (n + 1) * sizeof *x), *dx = malloc ((size_t) (n + 1) * sizeof *dx);
      double *ty = malloc ((size_t) (m + 1) * sizeof *ty), *y = malloc ((size_t) (m + 1) * sizeof *y);
      ck_assert (x != NULL && dx != NULL && ty != NULL && y != NULL);
      int done = 0;
      for (int attempt = 0; attempt < MAX_REDRAWS && !done; attempt++)
        {
          tu_draw_probe (&c, x, NULL, 0, dx, n, 0);
          ck_assert_msg (graph_jvp (g, x, dx, y, ty, &err) == CN_OK, "%s: graph_jvp failed: %s", name, err.msg);
          done = all_finite (y, m) && jvp_dir_check (name, g, x, dx, ty, n, m, &worst);
          redrawn += !done;
        }
      ck_assert_msg (done, "%s: %d draws in a row met a kink or left the domain (CN_TEST_SEED=%lu)", name, MAX_REDRAWS,
                     tu_seed ());
      checked++;
      free (x);
      free (dx);
      free (ty);
      free (y);
      cn_graph_free (g);
    }
  fprintf (stderr, "%-20s jvp vs MPFR central differences: %d checks, %d redrawn, worst relative error %.3g\n", name,
           checked, redrawn, worst);
}
END_TEST

/* 5c. The tangent follows the pullback's choice at ties: pool max and reduce max/min take the
 * first extreme entry's tangent. */
START_TEST (jvp_ties)
{
  cn_error err;
  cn_error_clear (&err);
  cn_graph *g;
  ck_assert (cn_graph_create (&g, &err) == CN_OK);
  cn_shape s;
  ck_assert (cn_shape_make (&s, 3, (int64_t[]) { 1, 1, 4 }, &err) == CN_OK);
  int x, y;
  ck_assert (cn_graph_add_input (g, "x", CN_DTYPE_F64, &s, &x, &err) == CN_OK);
  cn_params_pool pp;
  memset (&pp, 0, sizeof pp);
  pp.kind = CN_POOL_MAX;
  pp.nd = 1;
  pp.kernel[0] = 2;
  pp.stride[0] = pp.dilation[0] = 1;
  ck_assert (cn_graph_add_node (g, CN_OP_POOL, &pp, 1, &x, "mp", &y, &err) == CN_OK);
  ck_assert (cn_graph_set_outputs (g, 1, &y, &err) == CN_OK);
  double xv[4] = { 1, 3, 3, 2 }, dx[4] = { 1, 10, 100, 1000 }, ty[3];
  ck_assert_msg (graph_jvp (g, xv, dx, NULL, ty, &err) == CN_OK, "%s", err.msg);
  /* windows (1, 3), (3, 3), (3, 2): the first 3 at a tie */
  ck_assert_msg (ty[0] == 10 && ty[1] == 10 && ty[2] == 100, "pool: %g %g %g", ty[0], ty[1], ty[2]);
  cn_graph_free (g);
  for (int mx = 0; mx < 2; mx++)
    {
      ck_assert (cn_graph_create (&g, &err) == CN_OK);
      cn_shape s4 = vec_shape (4);
      ck_assert (cn_graph_add_input (g, "x", CN_DTYPE_F64, &s4, &x, &err) == CN_OK);
      cn_params_reduce rp = { .kind = mx ? CN_REDUCE_MAX : CN_REDUCE_MIN, .axes = 1, .keepdims = 0 };
      ck_assert (cn_graph_add_node (g, CN_OP_REDUCE, &rp, 1, &x, "r", &y, &err) == CN_OK);
      ck_assert (cn_graph_set_outputs (g, 1, &y, &err) == CN_OK);
      double xr[4] = { 2, mx ? 5 : -5, mx ? 5 : -5, 1 }, t1;
      ck_assert_msg (graph_jvp (g, xr, dx, NULL, &t1, &err) == CN_OK, "%s", err.msg);
      ck_assert_msg (t1 == 10, "reduce: %g", t1);
      cn_graph_free (g);
    }
  /* A node without a jvp on the path is refused by name. */
  static struct cn_op_rule no_jvp;
  no_jvp = *cn__op_rule (CN_OP_NEG);
  no_jvp.jvp = NULL;
  ck_assert (cn_graph_create (&g, &err) == CN_OK);
  cn_shape s2 = vec_shape (2);
  ck_assert (cn_graph_add_input (g, "x", CN_DTYPE_F64, &s2, &x, &err) == CN_OK);
  ck_assert (cn_graph_add_node (g, CN_OP_NEG, NULL, 1, &x, "q", &y, &err) == CN_OK);
  ck_assert (cn_graph_set_outputs (g, 1, &y, &err) == CN_OK);
  g->nodes[0].rule = &no_jvp;
  ck_assert_int_eq (graph_jvp (g, xv, dx, NULL, ty, &err), CN_EUNSUPPORTED);
  ck_assert_msg (strcmp (err.msg, "neg: no jvp (node 'q')") == 0, "%s", err.msg);
  cn_graph_free (g);
}
END_TEST

/* 5d. On the benchmark networks: <J dx, w> from graph_jvp against <dx, J^T w> from
 * cn_graph_gradient, when every node on the path has a jvp (else skipped with a note). */
START_TEST (networks_jvp)
{
  char path[4096];
  cn_error err;
  cn_error_clear (&err);
  snprintf (path, sizeof path, "%s/%s", bench, nets[_i].onnx);
  cn_graph *g = NULL;
  ck_assert_msg (cn_graph_load_onnx (path, &g, &err) == CN_OK, "%s: %s", path, err.msg);
  int xin = cn_graph_input (g, 0), yv = cn_graph_output (g, 0);
  int64_t n = cn_shape_numel (cn_graph_value_shape (g, xin));
  int64_t m = cn_shape_numel (cn_graph_value_shape (g, yv));
  double *x = malloc ((size_t) n * sizeof *x), *dx = malloc ((size_t) n * sizeof *dx);
  double *gx = malloc ((size_t) n * sizeof *gx), *w = malloc ((size_t) m * sizeof *w);
  double *ty = malloc ((size_t) m * sizeof *ty);
  ck_assert (x != NULL && dx != NULL && gx != NULL && w != NULL && ty != NULL);
  double worst = 0;
  for (int k = 0; k < 2; k++)
    {
      for (int64_t i = 0; i < n; i++)
        {
          x[i] = tu_grid20 (tu_uniform (nets[_i].lo, nets[_i].hi));
          dx[i] = tu_rand_dir ();
        }
      for (int64_t j = 0; j < m; j++)
        w[j] = tu_uniform (-1, 1);
      cn_status st = graph_jvp (g, x, dx, NULL, ty, &err);
      if (st == CN_EUNSUPPORTED)
        {
          fprintf (stderr, "%-48s jvp adjointness skipped: %s\n", nets[_i].onnx, err.msg);
          break;
        }
      ck_assert_msg (st == CN_OK, "%s: %s", nets[_i].onnx, err.msg);
      ck_assert_msg (cn_graph_gradient (g, x, w, NULL, gx, &err) == CN_OK, "%s: %s", nets[_i].onnx, err.msg);
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
      double e = fabs (lhs - rhs);
      ck_assert_msg (e <= 1e-10 * scale, "%s: <J dx, w> = %.17g, <dx, J^T w> = %.17g (CN_TEST_SEED=%lu)",
                     nets[_i].onnx, lhs, rhs, tu_seed ());
      if (scale > 0 && e / scale > worst)
        worst = e / scale;
      if (k == 1)
        fprintf (stderr, "%-48s jvp adjoint of the gradient: worst relative error %.3g\n", nets[_i].onnx, worst);
    }
  free (x);
  free (dx);
  free (gx);
  free (w);
  free (ty);
  cn_graph_free (g);
}
END_TEST

static Suite *
grad_suite (void)
{
  Suite *s = suite_create ("grad");
  TCase *tc = tcase_create ("pullbacks");
  tcase_set_timeout (tc, 600);
  tcase_add_test (tc, registry_pullbacks);
  tcase_add_loop_test (tc, generic, 0, CN_OP_COUNT);
  tcase_add_loop_test (tc, pullback_adds, 0, CN_OP_COUNT);
  tcase_add_test (tc, graph_accumulates);
  tcase_add_test (tc, tie_conventions);
  tcase_add_test (tc, kink_detected);
  tcase_add_test (tc, graph_errors);
  suite_add_tcase (s, tc);
  TCase *tj = tcase_create ("jvp");
  tcase_set_timeout (tj, 600);
  tcase_add_test (tj, registry_jvps);
  tcase_add_loop_test (tj, jvp_adjoint, 0, CN_OP_COUNT);
  tcase_add_loop_test (tj, jvp_generic, 0, CN_OP_COUNT);
  tcase_add_test (tj, jvp_ties);
  suite_add_tcase (s, tj);
  if (bench != NULL)
    {
      TCase *tn = tcase_create ("networks");
      tcase_set_timeout (tn, 600);
      tcase_add_loop_test (tn, networks, 0, N_NETS);
      tcase_add_loop_test (tn, networks_jvp, 0, N_NETS);
      suite_add_tcase (s, tn);
    }
  return s;
}

int
main (void)
{
  tu_init ();
  bench = tu_benchmarks ();
  if (bench == NULL)
    fprintf (stderr, "check_grad: ../shared/benchmarks not found; the network checks are skipped (the generic "
             "checks of every operator still run and decide the result)\n");
  return tu_run_suite (grad_suite ());
}
