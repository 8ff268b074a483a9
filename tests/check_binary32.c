/* SPDX-License-Identifier: MIT */
/* tests/check_binary32.c: the binary32 semantics (certnn/bounds.h) against binary32 evaluations in
 * several orders, and the real semantics against the exact (MPFI) network, on generated networks
 * whose dot products cancel terms many orders of magnitude apart.
 *
 * A network here is dense layers with relus between, every weight a binary32 word.  The test
 * evaluates it in binary32 itself, each layer's entry  b + sum_j w_j x_j  in five orders: left to
 * right with the bias last (certnn's own forward), right to left with the bias first, pairwise
 * (recursive halves), four interleaved accumulators summed at the end (a SIMD order), and left to
 * right with fused multiply-adds (fmaf).  Every one of them must lie in the binary32 bounds of
 * every method, and the exact outputs (MPFI) in the real ones.  The verdict tests use
 * y = (x + B) - B, whose binary32 evaluation loses x where B = 2^24 while its exact value is x. */
#include <config.h>
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "testutil.h"

#define MAXW 16          /* widest layer */
#define LAYERS 3
#define ORDERS 5

/* A dense relu network: layer l maps width[l] entries to width[l + 1] by w[l] (row-major) and b[l]. */
struct net
{
  int n_layers;
  int width[LAYERS + 1];
  float w[LAYERS][MAXW * MAXW];
  float b[LAYERS][MAXW];
};

static float
word (double x)
{
  return (float) x;
}

/* A random binary32 weight of magnitude 2^[lo, hi), either sign. */
static float
rand_weight (int lo, int hi)
{
  double e = floor (tu_uniform (lo, hi));
  return word ((tu_uniform (0, 1) < 0.5 ? -1 : 1) * ldexp (tu_uniform (1, 2), (int) e));
}

/* A network whose second layer cancels: the first layer copies each input twice (scaled by the
 * same power of two), the second gives each copy of a pair opposite weights of magnitude up to
 * 2^20 and adds small terms, so its exact value is small while its terms are huge. */
static void
cancelling_net (struct net *t, int n, int h)
{
  memset (t, 0, sizeof *t);
  t->n_layers = 3;
  t->width[0] = n;
  t->width[1] = 2 * n;
  t->width[2] = h;
  t->width[3] = 2;
  for (int i = 0; i < n; i++)
    {
      float s = word (ldexp (1, (int) floor (tu_uniform (-3, 4))));
      t->w[0][(2 * i) * n + i] = s;
      t->w[0][(2 * i + 1) * n + i] = s;
      t->b[0][2 * i] = rand_weight (-2, 2);
      t->b[0][2 * i + 1] = t->b[0][2 * i];
    }
  for (int o = 0; o < h; o++)
    {
      for (int i = 0; i < n; i++)
        {
          float big = rand_weight (8, 21);
          t->w[1][o * 2 * n + 2 * i] = big;
          t->w[1][o * 2 * n + 2 * i + 1] = word (-big + rand_weight (-6, 0));
        }
      t->b[1][o] = rand_weight (-3, 2);
    }
  for (int o = 0; o < 2; o++)
    {
      for (int i = 0; i < h; i++)
        t->w[2][o * h + i] = rand_weight (-3, 1);
      t->b[2][o] = rand_weight (-3, 1);
    }
}

static cn_graph *
build (const struct net *t)
{
  cn_error err;
  cn_error_clear (&err);
  cn_graph *g;
  ck_assert (cn_graph_create (&g, &err) == CN_OK);
  cn_shape s = { .rank = 1, .dim = { t->width[0] } };
  int x;
  ck_assert (cn_graph_add_input (g, "x", CN_DTYPE_F64, &s, &x, &err) == CN_OK);
  for (int l = 0; l < t->n_layers; l++)
    {
      int in = t->width[l], out = t->width[l + 1], y;
      double w[MAXW * MAXW], b[MAXW];
      for (int k = 0; k < in * out; k++)
        w[k] = t->w[l][k];
      for (int k = 0; k < out; k++)
        b[k] = t->b[l][k];
      ck_assert_msg (tu_dense_layer (g, x, in, out, w, b, &y, &err) == CN_OK, "%s", err.msg);
      x = y;
      if (l + 1 < t->n_layers)
        {
          ck_assert (cn_graph_add_node (g, CN_OP_RELU, NULL, 1, &x, "relu", &y, &err) == CN_OK);
          x = y;
        }
    }
  ck_assert (cn_graph_set_outputs (g, 1, &x, &err) == CN_OK);
  return g;
}

/* The binary32 sum of the terms P[0..K) (products already formed) in the order ORDER, with the
 * bias B; with the fused order the products are formed inside (from W and X). */
static float
pairwise (const float *p, int k)
{
  if (k == 1)
    return p[0];
  int h = k / 2;
  return pairwise (p, h) + pairwise (p + h, k - h);
}

static float
dot32 (int order, const float *w, const float *x, int k, float b)
{
  float p[MAXW + 1];
  for (int j = 0; j < k; j++)
    p[j] = w[j] * x[j];
  float s = 0;
  switch (order)
    {
    case 0:                     /* left to right, the bias last (certnn's forward) */
      for (int j = 0; j < k; j++)
        s += p[j];
      return s + b;
    case 1:                     /* the bias first, right to left */
      s = b;
      for (int j = k - 1; j >= 0; j--)
        s += p[j];
      return s;
    case 2:                     /* pairwise over the products and the bias */
      p[k] = b;
      return pairwise (p, k + 1);
    case 3:                     /* four accumulators, then the bias */
      {
        float a[4] = { 0, 0, 0, 0 };
        for (int j = 0; j < k; j++)
          a[j % 4] += p[j];
        return ((a[0] + a[1]) + (a[2] + a[3])) + b;
      }
    default:                    /* fused multiply-adds from the bias */
      s = b;
      for (int j = 0; j < k; j++)
        s = fmaf (w[j], x[j], s);
      return s;
    }
}

static void
eval32 (const struct net *t, int order, const float *x0, float *y)
{
  float a[MAXW], z[MAXW];
  memcpy (a, x0, (size_t) t->width[0] * sizeof *a);
  for (int l = 0; l < t->n_layers; l++)
    {
      int in = t->width[l], out = t->width[l + 1];
      for (int o = 0; o < out; o++)
        {
          float v = dot32 (order, t->w[l] + o * in, a, in, t->b[l][o]);
          z[o] = l + 1 < t->n_layers && v < 0 ? 0 : v;
        }
      memcpy (a, z, (size_t) out * sizeof *a);
    }
  memcpy (y, a, (size_t) t->width[t->n_layers] * sizeof *y);
}

static const cn_method methods[] = { CN_METHOD_IBP, CN_METHOD_CROWN, CN_METHOD_CROWN_IBP, CN_METHOD_ALPHA_CROWN };

static void
output_box (const cn_graph *g, const cn_box *in, cn_method m, cn_semantics sem, cn_box *out)
{
  cn_bounds_opts o;
  cn_bounds_opts_init (&o);
  o.method = m;
  o.semantics = sem;
  o.threads = 1;
  o.iterations = 5;
  cn_error err;
  cn_error_clear (&err);
  ck_assert_msg (cn_bounds_output (g, in, &o, out, &err) == CN_OK, "%s %s: %s", cn_method_name (m),
                 cn_semantics_name (sem), err.msg);
}

/* Over random networks and boxes: every order's binary32 output inside every method's binary32
 * box; the exact output inside every real box.  The orders must differ somewhere, and some
 * binary32 output must leave the real box (else the networks would not test the difference). */
START_TEST (bounds_hold_every_order)
{
  int64_t differ = 0, outside_real = 0, checked = 0;
  for (int trial = 0; trial < 12; trial++)
    {
      struct net t;
      int n = 2 + (int) (tu_rand () % 4), h = 3 + (int) (tu_rand () % 5);
      cancelling_net (&t, n, h);
      cn_graph *g = build (&t);
      cn_box in;
      cn_error err;
      cn_error_clear (&err);
      ck_assert (cn_box_init (&in, n, &err) == CN_OK);
      for (int i = 0; i < n; i++)
        {
          double c = word (tu_uniform (-1, 1)), r = word (ldexp (tu_uniform (1, 2), -(int) (tu_rand () % 12)));
          in.lo[i] = word (c - r);
          in.hi[i] = word (c + r);
          if (in.lo[i] > in.hi[i])
            in.hi[i] = in.lo[i];
        }
      cn_box real[4], b32[4];
      for (int k = 0; k < 4; k++)
        {
          output_box (g, &in, methods[k], CN_SEMANTICS_REAL, &real[k]);
          output_box (g, &in, methods[k], CN_SEMANTICS_BINARY32, &b32[k]);
        }
      for (int s = 0; s < 40; s++)
        {
          float x[MAXW], y[ORDERS][2];
          double xd[MAXW];
          for (int i = 0; i < n; i++)
            {
              double r = tu_uniform (0, 1);
              x[i] = r < 0.2 ? (float) in.lo[i] : r < 0.4 ? (float) in.hi[i] : word (tu_uniform (in.lo[i], in.hi[i]));
              if (x[i] < in.lo[i] || x[i] > in.hi[i])
                x[i] = (float) in.lo[i];
              xd[i] = x[i];
            }
          for (int q = 0; q < ORDERS; q++)
            eval32 (&t, q, x, y[q]);
          cn_mpfi_vec ye;
          ck_assert_msg (tu_eval_mpfi (g, xd, 256, &ye, &err) == CN_OK, "%s", err.msg);
          for (int o = 0; o < 2; o++)
            {
              int same = 1;
              for (int q = 1; q < ORDERS; q++)
                same &= y[q][o] == y[0][o];
              differ += !same;
              double elo = mpfr_get_d (&ye.v[o]->left, MPFR_RNDD), ehi = mpfr_get_d (&ye.v[o]->right, MPFR_RNDU);
              for (int k = 0; k < 4; k++)
                {
                  ck_assert_msg (real[k].lo[o] <= elo && ehi <= real[k].hi[o],
                                 "seed %lu trial %d: the exact output %d [%.17g, %.17g] leaves the real %s box "
                                 "[%.17g, %.17g]", tu_seed (), trial, o, elo, ehi, cn_method_name (methods[k]),
                                 real[k].lo[o], real[k].hi[o]);
                  for (int q = 0; q < ORDERS; q++)
                    {
                      ck_assert_msg (b32[k].lo[o] <= y[q][o] && y[q][o] <= b32[k].hi[o],
                                     "seed %lu trial %d: order %d's binary32 output %d = %.9g leaves the binary32 "
                                     "%s box [%.17g, %.17g]", tu_seed (), trial, q, o, (double) y[q][o],
                                     cn_method_name (methods[k]), b32[k].lo[o], b32[k].hi[o]);
                      outside_real += y[q][o] < real[k].lo[o] || y[q][o] > real[k].hi[o];
                      checked++;
                    }
                }
            }
          cn_mpfi_vec_clear (&ye);
        }
      for (int k = 0; k < 4; k++)
        {
          cn_box_clear (&real[k]);
          cn_box_clear (&b32[k]);
        }
      cn_box_clear (&in);
      cn_graph_free (g);
    }
  printf ("bounds_hold_every_order: %lld (output, order, method) checks, %lld outputs where the orders differ, "
          "%lld binary32 outputs outside the real box\n", (long long) checked, (long long) differ,
          (long long) outside_real);
  ck_assert_msg (differ > 0, "the orders never differed: the networks do not cancel");
  ck_assert_msg (outside_real > 0, "no binary32 output left the real box: the test does not tell the semantics apart");
}
END_TEST

/* y = (x_0 + B) - B over x in [0.25, 0.75]^N, as two dense layers (the other inputs unused: a
 * counterexample then has more entries than the output). */
static cn_graph *
shifted_identity_n (double B, int N)
{
  cn_error err;
  cn_error_clear (&err);
  cn_graph *g;
  ck_assert (cn_graph_create (&g, &err) == CN_OK);
  cn_shape s = { .rank = 1, .dim = { N } };
  int x, h, y;
  double one = 1, mB = -B, w0[8] = { 1 };
  ck_assert (N <= 8);
  ck_assert (cn_graph_add_input (g, "x", CN_DTYPE_F64, &s, &x, &err) == CN_OK);
  ck_assert (tu_dense_layer (g, x, N, 1, w0, &B, &h, &err) == CN_OK);
  ck_assert (tu_dense_layer (g, h, 1, 1, &one, &mB, &y, &err) == CN_OK);
  ck_assert (cn_graph_set_outputs (g, 1, &y, &err) == CN_OK);
  return g;
}

static cn_graph *
shifted_identity (double B)
{
  return shifted_identity_n (B, 1);
}

static cn_verdict
verdict_n (const cn_graph *g, int N, const char *unsafe, cn_semantics sem, cn_verify_result *r)
{
  char text[2048];
  int len = 0;
  for (int i = 0; i < N; i++)
    len += snprintf (text + len, sizeof text - (size_t) len, "(declare-const X_%d Real)", i);
  len += snprintf (text + len, sizeof text - (size_t) len, "(declare-const Y_0 Real)\n");
  for (int i = 0; i < N; i++)
    len += snprintf (text + len, sizeof text - (size_t) len, "(assert (>= X_%d 0.25))(assert (<= X_%d 0.75))", i, i);
  snprintf (text + len, sizeof text - (size_t) len, "(assert %s)\n", unsafe);
  cn_error err;
  cn_error_clear (&err);
  cn_spec spec;
  ck_assert_msg (cn_spec_parse_vnnlib (text, strlen (text), "shift", &spec, &err) == CN_OK, "%s", err.msg);
  cn_verify_opts o;
  cn_verify_opts_init (&o);
  o.timeout = 1.5;
  o.bounds.threads = 1;
  o.bounds.semantics = sem;
  o.random_samples = 50;
  ck_assert_msg (cn_verify (g, &spec, &o, r, &err) == CN_OK, "%s", err.msg);
  cn_spec_clear (&spec);
  return r->verdict;
}

static cn_verdict
verdict (const cn_graph *g, const char *unsafe, cn_semantics sem, cn_verify_result *r)
{
  return verdict_n (g, 1, unsafe, sem, r);
}

/* B = 2^24: every binary32 evaluation gives y = 0, the exact one y = x.  "y <= 0.1" is unsafe:
 * really unsat (y >= 0.25), and in binary32 violated everywhere, so binary32 must not say unsat.
 * "y >= 0.2" is unsafe: really sat, and in binary32 never violated, so binary32 must not say sat.
 * B = 2^10: binary32 keeps y within 2^-13 of x, so "y >= 0.2" is sat in both, and the binary32
 * counterexample is a binary32 word whose every evaluation order violates it. */
START_TEST (verdicts_follow_the_semantics)
{
  cn_verify_result r;
  cn_graph *g = shifted_identity (0x1p24);
  ck_assert_msg (verdict (g, "(<= Y_0 0.1)", CN_SEMANTICS_REAL, &r) == CN_VERDICT_UNSAT, "real: %s",
                 cn_verdict_name (r.verdict));
  cn_verify_result_clear (&r);
  ck_assert_msg (verdict (g, "(<= Y_0 0.1)", CN_SEMANTICS_BINARY32, &r) != CN_VERDICT_UNSAT,
                 "binary32 evaluates y = 0 <= 0.1 everywhere, yet unsat");
  cn_verify_result_clear (&r);
  ck_assert_msg (verdict (g, "(>= Y_0 0.2)", CN_SEMANTICS_BINARY32, &r) != CN_VERDICT_SAT,
                 "binary32 evaluates y = 0 < 0.2 everywhere, yet sat");
  cn_verify_result_clear (&r);
  cn_graph_free (g);

  g = shifted_identity (0x1p10);
  ck_assert_msg (verdict (g, "(>= Y_0 0.2)", CN_SEMANTICS_BINARY32, &r) == CN_VERDICT_SAT, "binary32: %s",
                 cn_verdict_name (r.verdict));
  float x = (float) r.x[0];
  ck_assert (x == r.x[0] && x >= 0.25f && x <= 0.75f);
  ck_assert_msg ((x + 1024.0f) - 1024.0f >= 0.2f, "the counterexample %.9g does not violate in binary32", (double) x);
  cn_verify_result_clear (&r);
  ck_assert_msg (verdict (g, "(>= Y_0 0.2)", CN_SEMANTICS_REAL, &r) == CN_VERDICT_SAT, "real: %s",
                 cn_verdict_name (r.verdict));
  cn_verify_result_clear (&r);
  cn_graph_free (g);

  /* five inputs, one output: the counterexample has more entries than the outputs */
  g = shifted_identity_n (0x1p10, 5);
  ck_assert_msg (verdict_n (g, 5, "(>= Y_0 0.2)", CN_SEMANTICS_BINARY32, &r) == CN_VERDICT_SAT, "binary32, 5 inputs: "
                 "%s", cn_verdict_name (r.verdict));
  for (int i = 0; i < 5; i++)
    ck_assert (r.x[i] == (float) r.x[i] && r.x[i] >= 0.25 && r.x[i] <= 0.75);
  cn_verify_result_clear (&r);
  cn_graph_free (g);
}
END_TEST

/* y = (2^60 x + 1) - 2^60 x over x in [1, 2] (the second layer keeps 2^60 x twice): its binary64
 * evaluation is 0, the exact value 1.  With "y >= 0.5" unsafe every point is an exact
 * counterexample that the binary64 filter calls violated by 0.5.  The filter must be overruled (the
 * point enclosure cannot exclude the clause) and the exact check must confirm the point; the
 * binary32 replay (also 0) then rejects it, so the verdict is neither sat nor unsat. */
START_TEST (filter_does_not_hide_exact_counterexamples)
{
  cn_error err;
  cn_error_clear (&err);
  cn_graph *g;
  ck_assert (cn_graph_create (&g, &err) == CN_OK);
  cn_shape s = { .rank = 1, .dim = { 1 } };
  int x, h, u, y;
  double w1[2] = { 0x1p60, 0 }, b1[2] = { 0, 1 };
  double w2[4] = { 1, 1, 1, 0 }, b2[2] = { 0, 0 };
  double w3[2] = { 1, -1 }, b3 = 0;
  ck_assert (cn_graph_add_input (g, "x", CN_DTYPE_F64, &s, &x, &err) == CN_OK);
  ck_assert (tu_dense_layer (g, x, 1, 2, w1, b1, &h, &err) == CN_OK);
  ck_assert (tu_dense_layer (g, h, 2, 2, w2, b2, &u, &err) == CN_OK);
  ck_assert (tu_dense_layer (g, u, 2, 1, w3, &b3, &y, &err) == CN_OK);
  ck_assert (cn_graph_set_outputs (g, 1, &y, &err) == CN_OK);
  const char *text = "(declare-const X_0 Real)(declare-const Y_0 Real)\n"
                     "(assert (>= X_0 1))(assert (<= X_0 2))(assert (>= Y_0 0.5))\n";
  cn_spec spec;
  ck_assert (cn_spec_parse_vnnlib (text, strlen (text), "cancel", &spec, &err) == CN_OK);
  cn_verify_opts o;
  cn_verify_opts_init (&o);
  o.timeout = 1.5;
  o.bounds.threads = 1;
  o.random_samples = 20;
  cn_verify_result r;
  ck_assert_msg (cn_verify (g, &spec, &o, &r, &err) == CN_OK, "%s", err.msg);
  printf ("filter_does_not_hide_exact_counterexamples: %s, %lld overruled, %lld rejected in binary32\n",
          cn_verdict_name (r.verdict), (long long) r.filter_overruled, (long long) r.binary32_rejected);
  ck_assert_msg (r.filter_overruled > 0, "the binary64 filter dropped every exact counterexample unchecked");
  ck_assert_msg (r.binary32_rejected > 0, "the exact check did not confirm the counterexamples");
  ck_assert (r.verdict != CN_VERDICT_SAT && r.verdict != CN_VERDICT_UNSAT);
  cn_verify_result_clear (&r);
  cn_spec_clear (&spec);
  cn_graph_free (g);
}
END_TEST

/* What the binary32 semantics refuses: a weight that is no binary32 word, an operator that
 * declares no binary32 evaluation (tanh), a certificate. */
START_TEST (refusals)
{
  cn_error err;
  cn_error_clear (&err);
  cn_graph *g;
  ck_assert (cn_graph_create (&g, &err) == CN_OK);
  cn_shape s = { .rank = 1, .dim = { 1 } };
  int x, y, z;
  double w = 0.1, b = 0;
  ck_assert (cn_graph_add_input (g, "x", CN_DTYPE_F64, &s, &x, &err) == CN_OK);
  ck_assert (tu_dense_layer (g, x, 1, 1, &w, &b, &y, &err) == CN_OK);
  ck_assert (cn_graph_set_outputs (g, 1, &y, &err) == CN_OK);
  cn_box in, out;
  ck_assert (cn_box_init (&in, 1, &err) == CN_OK);
  in.lo[0] = -1;
  in.hi[0] = 1;
  cn_bounds_opts o;
  cn_bounds_opts_init (&o);
  o.semantics = CN_SEMANTICS_BINARY32;
  ck_assert_int_eq (cn_bounds_output (g, &in, &o, &out, &err), CN_EINVAL);
  ck_assert_msg (strstr (err.msg, "binary32 word") != NULL, "%s", err.msg);
  cn_graph_free (g);

  cn_error_clear (&err);
  ck_assert (cn_graph_create (&g, &err) == CN_OK);
  ck_assert (cn_graph_add_input (g, "x", CN_DTYPE_F64, &s, &x, &err) == CN_OK);
  ck_assert (cn_graph_add_node (g, CN_OP_TANH, NULL, 1, &x, "squash", &z, &err) == CN_OK);
  ck_assert (cn_graph_set_outputs (g, 1, &z, &err) == CN_OK);
  ck_assert_int_eq (cn_bounds_output (g, &in, &o, &out, &err), CN_EUNSUPPORTED);
  ck_assert_msg (strstr (err.msg, "tanh") != NULL && strstr (err.msg, "squash") != NULL, "%s", err.msg);
  cn_error_clear (&err);
  o.semantics = CN_SEMANTICS_REAL;
  ck_assert_int_eq (cn_bounds_output (g, &in, &o, &out, &err), CN_OK);
  cn_box_clear (&out);
  cn_graph_free (g);
  cn_box_clear (&in);

  cn_semantics sem;
  ck_assert_int_eq (cn_semantics_lookup ("binary64", &sem, &err), CN_EINVAL);
  ck_assert_int_eq (cn_semantics_lookup ("binary32", &sem, &err), CN_OK);
  ck_assert_int_eq (sem, CN_SEMANTICS_BINARY32);
}
END_TEST

int
main (void)
{
  Suite *s = suite_create ("binary32");
  TCase *tc = tcase_create ("semantics");
  tcase_set_timeout (tc, 120);
  tcase_add_test (tc, bounds_hold_every_order);
  tcase_add_test (tc, verdicts_follow_the_semantics);
  tcase_add_test (tc, filter_does_not_hide_exact_counterexamples);
  tcase_add_test (tc, refusals);
  suite_add_tcase (s, tc);
  return tu_run_suite (s);
}
