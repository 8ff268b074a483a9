/* SPDX-License-Identifier: MIT */
/* tests/check_verify.c: cn_verify, complete verification by attacks, input splitting and ReLU
 * splitting (forced on small inputs, its verdicts checked the same way and against input
 * splitting's).
 *
 * Every verdict is checked independently of the verifier:
 *  - sat: the counterexample lies in the property's box (strictly inside the rounded ends),
 *    each entry is a binary32 number, and the network evaluated in MPFI at 256 bits by the
 *    test's own oracle (tu_eval_mpfi) satisfies every row of the reported clause;
 *  - unsat: no point of a dense sample (binary64 screen, then MPFI) satisfies any clause.
 * Random networks get properties whose answer is known by construction: a threshold below a
 * sampled output must give sat, one above a sound IBP bound must give unsat, and thresholds in
 * between must give a verdict consistent with the checks above.  Timeouts are honoured.  With
 * ../shared/benchmarks, the test category and a few ACAS Xu instances are decided and checked
 * the same way. */
#include <config.h>
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "testutil.h"

#define PREC 256

static double
now (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (double) ts.tv_sec + 1e-9 * (double) ts.tv_nsec;
}

/* A random fully connected relu network n -> h -> h -> m (weights in [-1, 1]). */
static cn_graph *
random_mlp (int n, int h, int m)
{
  cn_error err;
  cn_error_clear (&err);
  cn_graph *g;
  ck_assert (cn_graph_create (&g, &err) == CN_OK);
  cn_shape s = { .rank = 1, .dim = { n } };
  int x;
  ck_assert (cn_graph_add_input (g, "x", CN_DTYPE_F64, &s, &x, &err) == CN_OK);
  int widths[4] = { n, h, h, m };
  for (int l = 0; l < 3; l++)
    {
      int y;
      ck_assert_msg (tu_linear_layer (g, x, widths[l], widths[l + 1], &y, &err) == CN_OK, "%s", err.msg);
      x = y;
      if (l < 2)
        {
          ck_assert (cn_graph_add_node (g, CN_OP_RELU, NULL, 1, &x, "relu", &y, &err) == CN_OK);
          x = y;
        }
    }
  ck_assert (cn_graph_set_outputs (g, 1, &x, &err) == CN_OK);
  return g;
}

/* The property "X in [-1, 1]^n and Y_0 >= c" (the unsafe condition). */
static void
threshold_spec (int n, int m, double c, cn_spec *spec)
{
  char *text = malloc (4096 + 128 * (size_t) (n + m));
  ck_assert (text != NULL);
  size_t k = 0;
  for (int i = 0; i < n; i++)
    k += (size_t) sprintf (text + k, "(declare-const X_%d Real)\n", i);
  for (int j = 0; j < m; j++)
    k += (size_t) sprintf (text + k, "(declare-const Y_%d Real)\n", j);
  for (int i = 0; i < n; i++)
    k += (size_t) sprintf (text + k, "(assert (>= X_%d -1))\n(assert (<= X_%d 1))\n", i, i);
  k += (size_t) sprintf (text + k, "(assert (>= Y_0 %.17g))\n", c);
  cn_error err;
  cn_error_clear (&err);
  ck_assert_msg (cn_spec_parse_vnnlib (text, k, "threshold", spec, &err) == CN_OK, "%s", err.msg);
  free (text);
}

/* Whether X satisfies clause J of case K exactly, by the test's oracle; X must lie strictly
 * inside the rounded box (or on a degenerate axis) and be binary32. */
static int
oracle_counterexample (const cn_graph *g, const cn_spec *spec, int64_t k, int64_t j, const double *x)
{
  const cn_spec_case *cs = &spec->cases[k];
  for (int64_t i = 0; i < spec->n_x; i++)
    {
      double lo = cs->box.lo[i], hi = cs->box.hi[i];
      if (!((x[i] > lo && x[i] < hi) || (lo == hi && x[i] == lo)))
        return 0;
    }
  cn_mpfi_vec y;
  cn_error err;
  cn_error_clear (&err);
  ck_assert_msg (tu_eval_mpfi (g, x, PREC, &y, &err) == CN_OK, "%s", err.msg);
  const cn_spec_clause *cl = &cs->clauses[j];
  int ok = 1;
  mpfi_t acc, t;
  mpfi_init2 (acc, PREC);
  mpfi_init2 (t, PREC);
  for (int64_t r = 0; r < cl->n_rows && ok; r++)
    {
      mpfi_set_ui (acc, 0);
      for (int64_t i = 0; i < spec->n_y; i++)
        {
          mpfi_mul_d (t, y.v[i], cl->mat[r * spec->n_y + i]);
          mpfi_add (acc, acc, t);
        }
      ok = mpfr_cmp_d (&acc->right, cl->rhs_down[r]) <= 0;
    }
  mpfi_clear (acc);
  mpfi_clear (t);
  cn_mpfi_vec_clear (&y);
  return ok;
}

/* Checks a result: a sat's witness by the oracle, an unsat against SAMPLES random points of
 * every case (none may satisfy a clause). */
static void
check_result (const cn_graph *g, const cn_spec *spec, const cn_verify_result *r, int samples)
{
  if (r->verdict == CN_VERDICT_SAT)
    {
      ck_assert (r->x != NULL && r->y != NULL);
      for (int64_t i = 0; i < spec->n_x; i++)
        ck_assert_msg ((double) (float) r->x[i] == r->x[i], "X_%lld = %.17g is not a binary32 number", (long long) i,
                       r->x[i]);
      ck_assert_msg (oracle_counterexample (g, spec, r->case_index, r->clause_index, r->x),
                     "the counterexample does not satisfy the clause");
      return;
    }
  if (r->verdict != CN_VERDICT_UNSAT)
    return;
  double *x = malloc ((size_t) spec->n_x * sizeof *x);
  cn_tensor in, out;
  cn_error err;
  cn_error_clear (&err);
  ck_assert (x != NULL);
  ck_assert (cn_tensor_init (&in, CN_DTYPE_F64, cn_graph_value_shape (g, cn_graph_input (g, 0)), &err) == CN_OK);
  for (int64_t k = 0; k < spec->n_cases; k++)
    for (int s = 0; s < samples; s++)
      {
        const cn_box *b = &spec->cases[k].box;
        for (int64_t i = 0; i < spec->n_x; i++)
          x[i] = (b->lo[i] == b->hi[i]) ? b->lo[i] : tu_uniform (b->lo[i], b->hi[i]);
        memcpy (in.data, x, (size_t) spec->n_x * sizeof *x);
        ck_assert (cn_graph_eval (g, CN_DTYPE_F64, &in, &out, &err) == CN_OK);
        const double *y = out.data;
        for (int64_t j = 0; j < spec->cases[k].n_clauses; j++)
          {
            const cn_spec_clause *cl = &spec->cases[k].clauses[j];
            double worst = -INFINITY;
            for (int64_t rr = 0; rr < cl->n_rows; rr++)
              {
                double acc = 0;
                for (int64_t i = 0; i < spec->n_y; i++)
                  acc += cl->mat[rr * spec->n_y + i] * y[i];
                worst = fmax (worst, acc - cl->rhs_down[rr]);
              }
            /* a point the binary64 screen finds near the clause is decided by the oracle */
            if (worst <= 1e-6)
              ck_assert_msg (!oracle_counterexample (g, spec, k, j, x),
                             "unsat, but a sampled point satisfies clause %lld of case %lld", (long long) j,
                             (long long) k);
          }
        cn_tensor_clear (&out);
      }
  cn_tensor_clear (&in);
  free (x);
}

static void
run (const cn_graph *g, const cn_spec *spec, double timeout, cn_verify_result *r)
{
  cn_verify_opts o;
  cn_verify_opts_init (&o);
  o.timeout = timeout;
  o.seed = tu_rand ();
  cn_error err;
  cn_error_clear (&err);
  ck_assert_msg (cn_verify (g, spec, &o, r, &err) == CN_OK, "%s", err.msg);
}

/* The largest Y_0 of G at 2000 random points of [-0.999, 0.999]^N, in binary64. */
static double
sampled_max (const cn_graph *g, int n)
{
  cn_error err;
  cn_error_clear (&err);
  double best = -INFINITY;
  cn_tensor in, out;
  ck_assert (cn_tensor_init (&in, CN_DTYPE_F64, cn_graph_value_shape (g, cn_graph_input (g, 0)), &err) == CN_OK);
  for (int s = 0; s < 2000; s++)
    {
      for (int i = 0; i < n; i++)
        ((double *) in.data)[i] = tu_uniform (-0.999, 0.999);
      ck_assert (cn_graph_eval (g, CN_DTYPE_F64, &in, &out, &err) == CN_OK);
      best = fmax (best, ((double *) out.data)[0]);
      cn_tensor_clear (&out);
    }
  cn_tensor_clear (&in);
  return best;
}

/* A sound upper bound of Y_0 of G over [-1, 1]^N by METHOD. */
static double
output_upper (const cn_graph *g, int n, cn_method method)
{
  cn_error err;
  cn_error_clear (&err);
  cn_box box, ob;
  ck_assert (cn_box_init (&box, n, &err) == CN_OK);
  for (int i = 0; i < n; i++)
    box.lo[i] = -1, box.hi[i] = 1;
  cn_bounds_opts bo;
  cn_bounds_opts_init (&bo);
  bo.method = method;
  ck_assert (cn_bounds_output (g, &box, &bo, &ob, &err) == CN_OK);
  double ub = ob.hi[0];
  cn_box_clear (&box);
  cn_box_clear (&ob);
  return ub;
}

/* Random networks with thresholds whose answer is known, and thresholds in between. */
START_TEST (random_thresholds)
{
  for (int rep = 0; rep < 12; rep++)
    {
      int n = (int) tu_int (1, 4), h = (int) tu_int (4, 12), m = (int) tu_int (1, 3);
      cn_graph *g = random_mlp (n, h, m);
      cn_error err;
      cn_error_clear (&err);
      /* the largest sampled Y_0, and a sound upper bound of Y_0 by IBP */
      double best = sampled_max (g, n);
      double ub = output_upper (g, n, CN_METHOD_IBP);
      double cs[4] = { best - 0.05 * (1 + fabs (best)), ub + 0.5, best + 1e-3, 0.5 * (best + ub) };
      for (int t = 0; t < 4; t++)
        {
          cn_spec spec;
          threshold_spec (n, m, cs[t], &spec);
          cn_verify_result r;
          run (g, &spec, t >= 2 ? 5 : 20, &r);
          if (t == 0)
            ck_assert_msg (r.verdict == CN_VERDICT_SAT, "threshold below a sampled output: %s",
                           cn_verdict_name (r.verdict));
          if (t == 1)
            ck_assert_msg (r.verdict == CN_VERDICT_UNSAT, "threshold above the IBP bound: %s",
                           cn_verdict_name (r.verdict));
          /* Thresholds between the sampled maximum and the IBP bound may lie within rounding
           * (or within what 5 s of search resolves) of the true maximum, where no verdict is
           * owed: there every verdict given must pass the independent checks below. */
          check_result (g, &spec, &r, 3000);
          cn_verify_result_clear (&r);
          cn_spec_clear (&spec);
        }
      cn_graph_free (g);
    }
}
END_TEST

/* ReLU splitting (the input never split): on random networks with thresholds between the
 * sampled maximum and CROWN's bound (and one below the maximum), its verdicts, with attacks and
 * without (then a search that skipped part of the box would prove a false property), pass the
 * independent checks and never contradict input splitting's, and some of them are proofs that
 * one bound per case (ReLU splitting off) does not give. */
START_TEST (relu_split_agrees)
{
  int proofs = 0, gained = 0, tried = 0, crown_only = 0;
  int64_t dom_beta = 0, dom_crown = 0;   /* domains of the thresholds both searches prove */
  for (int rep = 0; rep < 16; rep++)
    {
      int n = (int) tu_int (2, 4), h = (int) tu_int (6, 12), m = (int) tu_int (1, 2);
      cn_graph *g = random_mlp (n, h, m);
      cn_error err;
      cn_error_clear (&err);
      double crown_ub = output_upper (g, n, CN_METHOD_CROWN);
      double best = sampled_max (g, n);
      for (int t = 0; t < 3; t++)
        {
          /* thresholds between the sampled maximum and CROWN's bound, and one below the maximum */
          double c = t == 2 ? best - 0.05 * (1 + fabs (best)) : best + (t ? 0.5 : 0.1) * (crown_ub - best);
          cn_spec spec;
          threshold_spec (n, m, c, &spec);
          cn_verify_result rr, ri, r1;
          cn_verify_opts o;
          cn_verify_opts_init (&o);
          o.timeout = 5;
          o.seed = tu_rand ();
          o.input_split_max = -1;
          ck_assert_msg (cn_verify (g, &spec, &o, &rr, &err) == CN_OK, "%s", err.msg);
          /* without attacks, only the search's own points can give sat: a search that left part of
           * the box unexplored would say unsat where the samples below find a counterexample */
          cn_verify_result rn;
          int restarts = o.attack_restarts;
          int64_t samples = o.random_samples;
          o.attack_restarts = 0;
          o.random_samples = 0;
          ck_assert_msg (cn_verify (g, &spec, &o, &rn, &err) == CN_OK, "%s", err.msg);
          check_result (g, &spec, &rn, 3000);
          ck_assert_msg (t != 2 || rn.verdict != CN_VERDICT_UNSAT, "relu splitting without attacks proves a threshold "
                         "below a sampled output (CN_TEST_SEED=%lu)", tu_seed ());
          cn_verify_result_clear (&rn);
          o.attack_restarts = restarts;
          o.random_samples = samples;
          /* without beta-CROWN's multipliers (domains bounded by CROWN only) */
          o.beta = 0;
          ck_assert_msg (cn_verify (g, &spec, &o, &rn, &err) == CN_OK, "%s", err.msg);
          check_result (g, &spec, &rn, 3000);
          ck_assert_msg (!(rn.verdict == CN_VERDICT_UNSAT && rr.verdict == CN_VERDICT_SAT),
                         "relu splitting without beta proves what it finds false with (CN_TEST_SEED=%lu)", tu_seed ());
          crown_only += t < 2 && rn.verdict == CN_VERDICT_UNSAT;
          if (t < 2 && rn.verdict == CN_VERDICT_UNSAT && rr.verdict == CN_VERDICT_UNSAT)
            {
              dom_beta += rr.domains;
              dom_crown += rn.domains;
            }
          cn_verify_result_clear (&rn);
          o.beta = 1;
          o.relu_split = 0;
          ck_assert_msg (cn_verify (g, &spec, &o, &r1, &err) == CN_OK, "%s", err.msg);
          cn_verify_opts_init (&o);
          o.timeout = 5;
          o.seed = tu_rand ();
          ck_assert_msg (cn_verify (g, &spec, &o, &ri, &err) == CN_OK, "%s", err.msg);
          check_result (g, &spec, &rr, 3000);
          ck_assert_msg (!(rr.verdict == CN_VERDICT_UNSAT && ri.verdict == CN_VERDICT_SAT)
                         && !(rr.verdict == CN_VERDICT_SAT && ri.verdict == CN_VERDICT_UNSAT),
                         "relu splitting says %s, input splitting %s (CN_TEST_SEED=%lu)",
                         cn_verdict_name (rr.verdict), cn_verdict_name (ri.verdict), tu_seed ());
          if (t == 2)
            ck_assert_msg (rr.verdict == CN_VERDICT_SAT, "threshold below a sampled output: %s",
                           cn_verdict_name (rr.verdict));
          tried += t < 2;
          proofs += rr.verdict == CN_VERDICT_UNSAT;
          gained += rr.verdict == CN_VERDICT_UNSAT && r1.verdict != CN_VERDICT_UNSAT;
          cn_verify_result_clear (&rr);
          cn_verify_result_clear (&ri);
          cn_verify_result_clear (&r1);
          cn_spec_clear (&spec);
        }
      cn_graph_free (g);
    }
  fprintf (stderr, "relu splitting: %d proofs of %d thresholds under CROWN's bound, %d of them beyond one bound; "
           "%d without beta; %lld domains for the proofs both make, %lld without beta\n", proofs, tried, gained,
           crown_only, (long long) dom_beta, (long long) dom_crown);
  ck_assert_msg (gained > 0, "relu splitting proved nothing one bound does not (CN_TEST_SEED=%lu)", tu_seed ());
  /* the multipliers bring the splits into the bound: with them the search proves more, or (where
   * CROWN alone proves all these small cases within the time limit too) needs fewer domains */
  ck_assert_msg (proofs > crown_only || (proofs == crown_only && dom_beta < dom_crown),
                 "beta-CROWN proved %d (%lld domains), CROWN alone %d (%lld domains) (CN_TEST_SEED=%lu)", proofs,
                 (long long) dom_beta, crown_only, (long long) dom_crown, tu_seed ());
}
END_TEST

/* A conjunction and a disjunction over two outputs, and two cases. */
START_TEST (clauses_and_cases)
{
  cn_graph *g = random_mlp (2, 8, 2);
  const char *text = "(declare-const X_0 Real)(declare-const X_1 Real)(declare-const Y_0 Real)(declare-const Y_1 Real)\n"
                     "(assert (or (and (>= X_0 -1) (<= X_0 0) (>= X_1 -1) (<= X_1 1))\n"
                     "            (and (>= X_0 0) (<= X_0 1) (>= X_1 -1) (<= X_1 1))))\n"
                     "(assert (or (and (>= Y_0 Y_1) (>= Y_0 0.25)) (and (<= Y_0 -100))))\n";
  cn_spec spec;
  cn_error err;
  cn_error_clear (&err);
  ck_assert_msg (cn_spec_parse_vnnlib (text, strlen (text), "clauses", &spec, &err) == CN_OK, "%s", err.msg);
  ck_assert_int_eq (spec.n_cases, 2);
  cn_verify_result r;
  run (g, &spec, 20, &r);
  ck_assert (r.verdict == CN_VERDICT_SAT || r.verdict == CN_VERDICT_UNSAT);
  check_result (g, &spec, &r, 3000);
  cn_verify_result_clear (&r);
  cn_spec_clear (&spec);
  cn_graph_free (g);
}
END_TEST

/* A conjunction whose rows are nearly opposite (a narrow window c - w <= Y_0 <= c + w around a
 * sampled output): the sum of its rows is bounded too, and that sum's right-hand side must stay
 * an upper bound, or the window is wrongly refuted.  The window holds a sampled output, so the
 * answer is sat, found by the search alone (no attacks), and the witness is checked by the
 * oracle. */
START_TEST (narrow_window)
{
  for (int rep = 0; rep < 4; rep++)
    {
      cn_graph *g = random_mlp (2, 8, 1);
      cn_error err;
      cn_error_clear (&err);
      cn_tensor in, out;
      ck_assert (cn_tensor_init (&in, CN_DTYPE_F64, cn_graph_value_shape (g, cn_graph_input (g, 0)), &err) == CN_OK);
      ((double *) in.data)[0] = tu_uniform (-0.5, 0.5);
      ((double *) in.data)[1] = tu_uniform (-0.5, 0.5);
      ck_assert (cn_graph_eval (g, CN_DTYPE_F64, &in, &out, &err) == CN_OK);
      double c = ((double *) out.data)[0], w = 0.004 * (1 + fabs (c));
      cn_tensor_clear (&in);
      cn_tensor_clear (&out);
      char text[1024];
      int len = snprintf (text, sizeof text,
                          "(declare-const X_0 Real)(declare-const X_1 Real)(declare-const Y_0 Real)\n"
                          "(assert (>= X_0 -1))(assert (<= X_0 1))(assert (>= X_1 -1))(assert (<= X_1 1))\n"
                          "(assert (>= Y_0 %.17g))(assert (<= Y_0 %.17g))\n", c - w, c + w);
      cn_spec spec;
      ck_assert_msg (cn_spec_parse_vnnlib (text, (size_t) len, "window", &spec, &err) == CN_OK, "%s", err.msg);
      ck_assert_int_eq (spec.cases[0].clauses[0].n_rows, 2);
      /* no attacks: the search itself, which bounds the rows' sum, must find the witness */
      cn_verify_opts o;
      cn_verify_opts_init (&o);
      o.timeout = 20;
      o.random_samples = 0;
      o.attack_restarts = 0;
      o.attack_steps = 0;
      cn_verify_result r;
      ck_assert_msg (cn_verify (g, &spec, &o, &r, &err) == CN_OK, "%s", err.msg);
      ck_assert_msg (r.verdict == CN_VERDICT_SAT, "a window around a sampled output: %s", cn_verdict_name (r.verdict));
      check_result (g, &spec, &r, 100);
      cn_verify_result_clear (&r);
      cn_spec_clear (&spec);
      cn_graph_free (g);
    }
}
END_TEST

/* A time limit stops the search with `timeout`, promptly. */
START_TEST (timeout_honoured)
{
  cn_graph *g = random_mlp (4, 12, 1);
  cn_spec spec;
  threshold_spec (4, 1, 0, &spec);
  cn_verify_result r;
  double t0 = now ();
  run (g, &spec, 1e-6, &r);
  /* a counterexample found (and checked) within the first microsecond is a right answer too */
  ck_assert_msg (r.verdict == CN_VERDICT_TIMEOUT || r.verdict == CN_VERDICT_UNSAT || r.verdict == CN_VERDICT_SAT, "%s",
                 cn_verdict_name (r.verdict));
  check_result (g, &spec, &r, 100);
  ck_assert_msg (now () - t0 < 2, "took %.2f s", now () - t0);
  cn_verify_result_clear (&r);
  cn_spec_clear (&spec);
  cn_graph_free (g);
}
END_TEST

/* The most domains queued that a progress call saw. */
static void
note_queue (const cn_verify_progress *p, void *user)
{
  int64_t *most = user;
  if (p->domains_queued > *most)
    *most = p->domains_queued;
}

/* The queue cap (max_queue) bounds the domains kept queued: past it the search goes depth first,
 * so a round adds at most a batch of children (4 per domain, 4 domains per thread) beyond it, and
 * the verdict is the one without the cap.  Thresholds just above the sampled maximum of random
 * networks, where the uncapped search queues more than that, so the cap has work to do. */
START_TEST (queue_cap_honoured)
{
  const int64_t cap = 4, slack = 4 * 4;
  int exercised = 0;
  /* how many networks exceed the cap depends on timing (the attack's and the search's time
   * budgets), so under load more draws may be needed; the loop stops at the second exercise */
  for (int rep = 0; rep < 24 && exercised < 2; rep++)
    {
      cn_graph *g = random_mlp (4, 16, 1);
      double lo = sampled_max (g, 4), hi = output_upper (g, 4, CN_METHOD_CROWN);
      cn_spec spec;
      threshold_spec (4, 1, lo + 0.1 * (hi - lo), &spec);
      cn_verify_result r[2];
      int64_t most[2] = { 0, 0 };
      for (int capped = 0; capped < 2; capped++)
        {
          cn_verify_opts o;
          cn_verify_opts_init (&o);
          o.timeout = 20;
          o.bounds.threads = 1;
          o.max_queue = capped ? cap : 0;
          o.progress = note_queue;
          o.progress_user = &most[capped];
          o.progress_interval = 0;
          cn_error err;
          cn_error_clear (&err);
          ck_assert_msg (cn_verify (g, &spec, &o, &r[capped], &err) == CN_OK, "%s", err.msg);
          check_result (g, &spec, &r[capped], 200);
        }
      ck_assert_msg (most[1] <= cap + slack, "%lld domains queued under a cap of %lld (CN_TEST_SEED=%lu)",
                     (long long) most[1], (long long) cap, tu_seed ());
      if ((r[0].verdict == CN_VERDICT_UNSAT || r[0].verdict == CN_VERDICT_SAT)
          && (r[1].verdict == CN_VERDICT_UNSAT || r[1].verdict == CN_VERDICT_SAT))
        ck_assert_msg (r[0].verdict == r[1].verdict, "the cap changed the verdict: %s without, %s with "
                       "(CN_TEST_SEED=%lu)", cn_verdict_name (r[0].verdict), cn_verdict_name (r[1].verdict), tu_seed ());
      exercised += most[0] > cap + slack && r[1].verdict == CN_VERDICT_UNSAT;
      fprintf (stderr, "queue cap: at most %lld queued without it, %lld with it (%s, %s)\n", (long long) most[0],
               (long long) most[1], cn_verdict_name (r[0].verdict), cn_verdict_name (r[1].verdict));
      for (int c = 0; c < 2; c++)
        cn_verify_result_clear (&r[c]);
      cn_spec_clear (&spec);
      cn_graph_free (g);
    }
  ck_assert_msg (exercised > 0, "no network queued more than the cap and was proved under it (CN_TEST_SEED=%lu)",
                 tu_seed ());
}
END_TEST

/* y = (x + B) - B over x in [0.25, 0.75], unsafe where y >= 0.1: exactly y = x, so every point
 * is a counterexample; in binary32 with B = 2^24 (ulp 2 there) x + B rounds to B and y = 0, so no
 * point is one, and the answer must not be sat (each rejected point counted); with B = 2^10 the
 * binary32 evaluation is within 2^-14 of x and the answer is sat. */
START_TEST (sat_needs_binary32)
{
  for (int big = 0; big < 2; big++)
    {
      cn_error err;
      cn_error_clear (&err);
      cn_graph *g;
      ck_assert (cn_graph_create (&g, &err) == CN_OK);
      cn_shape s = { .rank = 1, .dim = { 1 } };
      int x, h, y;
      double one = 1, B = big ? 0x1p24 : 0x1p10, mB = -B;
      ck_assert (cn_graph_add_input (g, "x", CN_DTYPE_F64, &s, &x, &err) == CN_OK);
      ck_assert_msg (tu_dense_layer (g, x, 1, 1, &one, &B, &h, &err) == CN_OK, "%s", err.msg);
      ck_assert_msg (tu_dense_layer (g, h, 1, 1, &one, &mB, &y, &err) == CN_OK, "%s", err.msg);
      ck_assert (cn_graph_set_outputs (g, 1, &y, &err) == CN_OK);
      const char *text = "(declare-const X_0 Real)(declare-const Y_0 Real)\n"
                         "(assert (>= X_0 0.25))(assert (<= X_0 0.75))(assert (>= Y_0 0.1))\n";
      cn_spec spec;
      ck_assert_msg (cn_spec_parse_vnnlib (text, strlen (text), "cancel", &spec, &err) == CN_OK, "%s", err.msg);
      cn_verify_opts o;
      cn_verify_opts_init (&o);
      o.timeout = 2;
      o.bounds.threads = 1;
      o.random_samples = 50;
      cn_verify_result r;
      ck_assert_msg (cn_verify (g, &spec, &o, &r, &err) == CN_OK, "%s", err.msg);
      if (big)
        {
          ck_assert_msg (r.verdict != CN_VERDICT_SAT && r.verdict != CN_VERDICT_UNSAT,
                         "binary32 cancels every counterexample, yet %s", cn_verdict_name (r.verdict));
          ck_assert_msg (r.binary32_rejected > 0, "no exact counterexample was rejected in binary32");
        }
      else
        {
          ck_assert_msg (r.verdict == CN_VERDICT_SAT, "a counterexample in both semantics, yet %s",
                         cn_verdict_name (r.verdict));
          check_result (g, &spec, &r, 10);
        }
      cn_verify_result_clear (&r);
      cn_spec_clear (&spec);
      cn_graph_free (g);
    }
}
END_TEST

/* cn_verify_check_point refuses points outside or on the rounded ends, and bad indices. */
START_TEST (check_point_rules)
{
  cn_graph *g = random_mlp (2, 4, 1);
  cn_spec spec;
  threshold_spec (2, 1, -1e9, &spec);   /* every point of the box is a counterexample */
  cn_error err;
  cn_error_clear (&err);
  int ok;
  double x[2] = { 0.25, -0.5 };
  ck_assert (cn_verify_check_point (g, &spec, 0, 0, x, PREC, &ok, NULL, &err) == CN_OK);
  ck_assert_int_eq (ok, 1);
  x[0] = 1;   /* on the end: the exact end is 1 here, but the check cannot know it */
  ck_assert (cn_verify_check_point (g, &spec, 0, 0, x, PREC, &ok, NULL, &err) == CN_OK);
  ck_assert_int_eq (ok, 0);
  x[0] = 1.5;
  ck_assert (cn_verify_check_point (g, &spec, 0, 0, x, PREC, &ok, NULL, &err) == CN_OK);
  ck_assert_int_eq (ok, 0);
  ck_assert (cn_verify_check_point (g, &spec, 1, 0, x, PREC, &ok, NULL, &err) == CN_EINVAL);
  ck_assert (cn_verify_check_point (g, &spec, 0, 3, x, PREC, &ok, NULL, &err) == CN_EINVAL);
  cn_spec_clear (&spec);
  /* a property with the wrong number of inputs */
  threshold_spec (3, 1, 0, &spec);
  cn_verify_result r;
  cn_verify_opts o;
  cn_verify_opts_init (&o);
  cn_error_clear (&err);
  ck_assert (cn_verify (g, &spec, &o, &r, &err) == CN_ESHAPE);
  ck_assert_msg (strstr (err.msg, "verify") != NULL, "%s", err.msg);
  cn_spec_clear (&spec);
  cn_graph_free (g);
}
END_TEST

/* Benchmark instances with known answers (skipped without ../shared/benchmarks). */
struct known
{
  const char *onnx, *vnnlib;
  cn_verdict expected;
  double timeout;
};

static const struct known knowns[] = {
  { "test/onnx/test_nano.onnx", "test/vnnlib/test_nano.vnnlib", CN_VERDICT_UNSAT, 20 },
  { "test/onnx/test_tiny.onnx", "test/vnnlib/test_tiny.vnnlib", CN_VERDICT_UNSAT, 20 },
  { "test/onnx/test_small.onnx", "test/vnnlib/test_small.vnnlib", CN_VERDICT_UNSAT, 20 },
  { "test/onnx/test_sat.onnx", "test/vnnlib/test_prop.vnnlib", CN_VERDICT_SAT, 20 },
  { "test/onnx/test_unsat.onnx", "test/vnnlib/test_prop.vnnlib", CN_VERDICT_UNSAT, 20 },
  { "acasxu/onnx/ACASXU_run2a_1_1_batch_2000.onnx", "acasxu/vnnlib/prop_1.vnnlib", CN_VERDICT_UNSAT, 60 },
  { "acasxu/onnx/ACASXU_run2a_2_1_batch_2000.onnx", "acasxu/vnnlib/prop_2.vnnlib", CN_VERDICT_SAT, 60 },
};

START_TEST (benchmark_instances)
{
  const char *bench = tu_benchmarks ();
  const struct known *kn = &knowns[_i];
  char a[4096], b[4096];
  snprintf (a, sizeof a, "%s/%s", bench, kn->onnx);
  snprintf (b, sizeof b, "%s/%s", bench, kn->vnnlib);
  cn_graph *g;
  cn_spec spec;
  cn_error err;
  cn_error_clear (&err);
  ck_assert_msg (cn_graph_load_onnx (a, &g, &err) == CN_OK, "%s", err.msg);
  ck_assert_msg (cn_spec_load_vnnlib (b, &spec, &err) == CN_OK, "%s", err.msg);
  cn_verify_result r;
  run (g, &spec, kn->timeout, &r);
  fprintf (stderr, "%s %s: %s in %.2f s, %lld domains\n", kn->onnx, kn->vnnlib, cn_verdict_name (r.verdict), r.seconds,
           (long long) r.domains);
  ck_assert_msg (r.verdict == kn->expected, "%s %s: %s, expected %s", kn->onnx, kn->vnnlib, cn_verdict_name (r.verdict),
                 cn_verdict_name (kn->expected));
  check_result (g, &spec, &r, 2000);
  cn_verify_result_clear (&r);
  cn_spec_clear (&spec);
  cn_graph_free (g);
}
END_TEST

/* A hard ACAS Xu instance stops at a short time limit. */
START_TEST (benchmark_timeout)
{
  const char *bench = tu_benchmarks ();
  char a[4096], b[4096];
  snprintf (a, sizeof a, "%s/acasxu/onnx/ACASXU_run2a_3_3_batch_2000.onnx", bench);
  snprintf (b, sizeof b, "%s/acasxu/vnnlib/prop_2.vnnlib", bench);
  cn_graph *g;
  cn_spec spec;
  cn_error err;
  cn_error_clear (&err);
  ck_assert_msg (cn_graph_load_onnx (a, &g, &err) == CN_OK, "%s", err.msg);
  ck_assert_msg (cn_spec_load_vnnlib (b, &spec, &err) == CN_OK, "%s", err.msg);
  cn_verify_result r;
  double t0 = now ();
  run (g, &spec, 0.5, &r);
  double dt = now () - t0;
  ck_assert_msg (r.verdict == CN_VERDICT_TIMEOUT, "%s", cn_verdict_name (r.verdict));
  ck_assert_msg (dt < 1.5, "a 0.5 s limit took %.2f s", dt);
  cn_verify_result_clear (&r);
  cn_spec_clear (&spec);
  cn_graph_free (g);
}
END_TEST

int
main (void)
{
  tu_init ();
  Suite *s = suite_create ("verify");
  TCase *tc = tcase_create ("generated");
  tcase_set_timeout (tc, 600);
  tcase_add_test (tc, random_thresholds);
  tcase_add_test (tc, relu_split_agrees);
  tcase_add_test (tc, clauses_and_cases);
  tcase_add_test (tc, narrow_window);
  tcase_add_test (tc, timeout_honoured);
  tcase_add_test (tc, sat_needs_binary32);
  tcase_add_test (tc, queue_cap_honoured);
  tcase_add_test (tc, check_point_rules);
  suite_add_tcase (s, tc);
  if (tu_benchmarks () != NULL)
    {
      TCase *tb = tcase_create ("benchmarks");
      tcase_set_timeout (tb, 600);
      tcase_add_loop_test (tb, benchmark_instances, 0, (int) (sizeof knowns / sizeof knowns[0]));
      tcase_add_test (tb, benchmark_timeout);
      suite_add_tcase (s, tb);
    }
  else
    fprintf (stderr, "check_verify: ../shared/benchmarks absent, benchmark instances skipped\n");
  return tu_run_suite (s);
}
