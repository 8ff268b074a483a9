/* SPDX-License-Identifier: MIT */
/* tests/check_bounds.c: soundness of IBP, CROWN, CROWN-IBP and alpha-CROWN on the benchmark networks.
 *
 * 1. Sampling: for every benchmark network and several input boxes (a property's box, a random
 *    sub-box, a tiny box), points of the box (corners included) are evaluated exactly enough
 *    by the MPFI reference at 256 bits; the exact output must lie in every method's box, and
 *    CROWN's box inside IBP's.
 * 2. MPFI re-run: on small networks (ACAS Xu, MNIST 256x2, the test nets), the same CROWN
 *    computation (same intermediate boxes, the exact lines they define; for alpha-CROWN the
 *    final parameters of each row) is re-run with interval coefficients at 256 bits.  Its result [a, b] encloses the exact-real CROWN bound; the fast
 *    bound must lie below a (soundness) and within 1e-9 relative of it (the charges are tight).
 * Needs ../shared/benchmarks; exits 77 (skipped) without it. */
#include <config.h>
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "testutil.h"

#define PREC 256

static const char *bench;

struct net_case
{
  const char *onnx, *vnnlib;
  int rerun;     /* included in the MPFI re-run */
};

static const struct net_case nets[] = {
  { "acasxu/onnx/ACASXU_run2a_1_1_batch_2000.onnx", "acasxu/vnnlib/prop_1.vnnlib", 1 },
  { "acasxu/onnx/ACASXU_run2a_1_9_batch_2000.onnx", "acasxu/vnnlib/prop_7.vnnlib", 0 },
  { "acasxu/onnx/ACASXU_run2a_2_3_batch_2000.onnx", "acasxu/vnnlib/prop_2.vnnlib", 1 },
  { "acasxu/onnx/ACASXU_run2a_3_3_batch_2000.onnx", "acasxu/vnnlib/prop_9.vnnlib", 0 },
  { "acasxu/onnx/ACASXU_run2a_4_5_batch_2000.onnx", "acasxu/vnnlib/prop_10.vnnlib", 0 },
  { "acasxu/onnx/ACASXU_run2a_5_7_batch_2000.onnx", "acasxu/vnnlib/prop_3.vnnlib", 0 },
  { "mnist_fc/onnx/mnist-net_256x2.onnx", "mnist_fc/vnnlib/prop_0_0.03.vnnlib", 1 },
  { "mnist_fc/onnx/mnist-net_256x4.onnx", "mnist_fc/vnnlib/prop_1_0.05.vnnlib", 0 },
  { "mnist_fc/onnx/mnist-net_256x6.onnx", "mnist_fc/vnnlib/prop_2_0.03.vnnlib", 0 },
  { "oval21/onnx/cifar_base_kw.onnx", NULL, 0 },
  { "oval21/onnx/cifar_wide_kw.onnx", NULL, 0 },
  { "oval21/onnx/cifar_deep_kw.onnx", NULL, 0 },
  { "test/onnx/test_nano.onnx", "test/vnnlib/test_nano.vnnlib", 1 },
  { "test/onnx/test_tiny.onnx", "test/vnnlib/test_tiny.vnnlib", 1 },
  { "test/onnx/test_small.onnx", "test/vnnlib/test_small.vnnlib", 1 },
  { "test/onnx/test_sat.onnx", "test/vnnlib/test_prop.vnnlib", 1 },
  { "test/onnx/test_unsat.onnx", "test/vnnlib/test_prop.vnnlib", 1 },
};
#define N_NETS ((int) (sizeof nets / sizeof nets[0]))

/* The first oval21 property naming NET (its instances.csv). */
static char *
oval_spec (const char *net)
{
  char path[4096];
  snprintf (path, sizeof path, "%s/oval21/instances.csv", bench);
  char *csv = tu_read_file (path, NULL);
  if (csv == NULL)
    return NULL;
  const char *base = strrchr (net, '/') + 1;
  char *res = NULL;
  for (char *line = strtok (csv, "\n"); line != NULL && res == NULL; line = strtok (NULL, "\n"))
    if (strstr (line, base) != NULL)
      {
        char *comma = strchr (line, ',');
        char *comma2 = comma ? strchr (comma + 1, ',') : NULL;
        if (comma2 != NULL)
          {
            *comma2 = '\0';
            res = malloc (strlen (comma + 1) + 16);
            if (res != NULL)
              sprintf (res, "oval21/%s", comma + 1);
          }
      }
  free (csv);
  return res;
}

static void
load (int i, cn_graph **g, cn_spec *spec)
{
  char path[4096];
  cn_error err;
  cn_error_clear (&err);
  snprintf (path, sizeof path, "%s/%s", bench, nets[i].onnx);
  ck_assert_msg (cn_graph_load_onnx (path, g, &err) == CN_OK, "%s: %s", path, err.msg);
  char *sp = nets[i].vnnlib ? strdup (nets[i].vnnlib) : oval_spec (nets[i].onnx);
  ck_assert_ptr_nonnull (sp);
  snprintf (path, sizeof path, "%s/%s", bench, sp);
  free (sp);
  ck_assert_msg (cn_spec_load_vnnlib (path, spec, &err) == CN_OK, "%s: %s", path, err.msg);
}

static void
sample (const cn_box *b, double *x, int k)
{
  int64_t n = b->n;
  for (int64_t j = 0; j < n; j++)
    {
      if (k < 2)                      /* the two extreme corners */
        x[j] = k ? b->hi[j] : b->lo[j];
      else if (n <= 10 && k < 2 + (1 << n))   /* every corner of a small box */
        x[j] = ((k - 2) >> j) & 1 ? b->hi[j] : b->lo[j];
      else if (k % 2)
        x[j] = tu_rand () & 1 ? b->hi[j] : b->lo[j];
      else
        x[j] = tu_uniform (b->lo[j], b->hi[j]);
    }
}

START_TEST (sound_by_sampling)
{
  cn_graph *g;
  cn_spec spec;
  load (_i, &g, &spec);
  cn_error err;
  cn_error_clear (&err);
  int64_t n = spec.n_x;
  int yv = cn_graph_output (g, 0);
  int64_t m = cn_shape_numel (cn_graph_value_shape (g, yv));
  int big = n > 1000;                       /* oval21: fewer samples, the reference is slower */
  for (int which = 0; which < 3; which++)
    {
      cn_box box;
      ck_assert (cn_box_copy (&box, &spec.cases[0].box, &err) == CN_OK);
      for (int64_t j = 0; j < n && which > 0; j++)
        {
          /* which 1: a random sub-box; 2: a tiny box around a random point */
          double a = tu_uniform (box.lo[j], box.hi[j]), b = tu_uniform (box.lo[j], box.hi[j]);
          if (which == 2)
            b = a + 1e-7 * (box.hi[j] - box.lo[j]);
          box.lo[j] = a < b ? a : b;
          box.hi[j] = a < b ? b : a;
        }
      enum { NM = 4 };
      cn_box out[NM];
      static const cn_method methods[NM] = { CN_METHOD_IBP, CN_METHOD_CROWN, CN_METHOD_CROWN_IBP, CN_METHOD_ALPHA_CROWN };
      for (int mt = 0; mt < NM; mt++)
        {
          cn_bounds_opts o;
          cn_bounds_opts_init (&o);
          o.method = methods[mt];
          ck_assert_msg (cn_bounds_output (g, &box, &o, &out[mt], &err) == CN_OK, "%s %s: %s", nets[_i].onnx,
                         cn_method_name (o.method), err.msg);
          for (int64_t j = 0; j < m; j++)
            ck_assert (out[mt].lo[j] >= out[0].lo[j] && out[mt].hi[j] <= out[0].hi[j]);  /* inside IBP */
        }
      double *x = malloc ((size_t) n * sizeof *x);
      int samples = big ? 3 : (n <= 10 ? 2 + (1 << n) + 8 : 12);
      for (int k = 0; k < samples; k++)
        {
          sample (&box, x, k);
          cn_mpfi_vec y;
          ck_assert_msg (tu_eval_mpfi (g, x, PREC, &y, &err) == CN_OK, "%s", err.msg);
          for (int mt = 0; mt < NM; mt++)
            for (int64_t j = 0; j < m; j++)
              ck_assert_msg (mpfr_cmp_d (&y.v[j]->left, out[mt].lo[j]) >= 0 && mpfr_cmp_d (&y.v[j]->right, out[mt].hi[j]) <= 0,
                             "%s box %d: sample %d escapes %s bounds at output %lld: [%.17g, %.17g] (CN_TEST_SEED=%lu)",
                             nets[_i].onnx, which, k, cn_method_name (methods[mt]), (long long) j, out[mt].lo[j],
                             out[mt].hi[j], tu_seed ());
          cn_mpfi_vec_clear (&y);
        }
      free (x);
      for (int mt = 0; mt < NM; mt++)
        cn_box_clear (&out[mt]);
      cn_box_clear (&box);
    }
  cn_spec_clear (&spec);
  cn_graph_free (g);
}
END_TEST

/* ---- the MPFI re-run of a CROWN sweep --------------------------------------------------- */

struct mp_sweep
{
  const cn_graph *g;
  const cn_analysis *a;
  int64_t rows;
  mpfi_t **lam;         /* per value: rows x numel, or NULL */
  mpfi_t *bias;         /* rows */
  unsigned char *dep;
  const double *theta;  /* NULL, or alpha-CROWN's lower slopes: rows x width, the relu outputs that
                           depend on the input in node order (certnn/bounds.h's layout) */
  int64_t width;
  int64_t *offset;      /* per value: its first column in a row of theta, or -1 */
};

static mpfi_t *
mp_alloc (int64_t n)
{
  mpfi_t *v = malloc ((size_t) (n ? n : 1) * sizeof *v);
  ck_assert_ptr_nonnull (v);
  for (int64_t i = 0; i < n; i++)
    {
      mpfi_init2 (v[i], PREC);
      mpfi_set_ui (v[i], 0);
    }
  return v;
}

static void
mp_free (mpfi_t *v, int64_t n)
{
  if (v == NULL)
    return;
  for (int64_t i = 0; i < n; i++)
    mpfi_clear (v[i]);
  free (v);
}

static int64_t
numel (const cn_graph *g, int v)
{
  return cn_shape_numel (cn_graph_value_shape (g, v));
}

/* lam[w] += contribution (allocating on first use). */
static mpfi_t *
mp_target (struct mp_sweep *s, int w)
{
  if (s->lam[w] == NULL)
    s->lam[w] = mp_alloc (s->rows * numel (s->g, w));
  return s->lam[w];
}

/* bias[r] += min over the box of value W of lam[r] . w, by interval arithmetic. */
static void
mp_concretise (struct mp_sweep *s, int w, mpfi_t *lam)
{
  const cn_box *b = cn_analysis_box (s->a, w);
  int64_t n = b->n;
  mpfi_t x, t;
  mpfi_init2 (x, PREC);
  mpfi_init2 (t, PREC);
  for (int64_t r = 0; r < s->rows; r++)
    for (int64_t j = 0; j < n; j++)
      {
        /* the minimum of l*x over [lo, hi] is at an end chosen by the sign of l; with l an
         * interval, take the lower end of the hull of both products */
        mpfi_interv_d (x, b->lo[j], b->hi[j]);
        mpfi_mul (t, lam[r * n + j], x);
        mpfi_t lo;
        mpfi_init2 (lo, PREC);
        mpfi_set_fr (lo, &t->left);
        mpfi_add (s->bias[r], s->bias[r], lo);
        mpfi_clear (lo);
      }
  mpfi_clear (x);
  mpfi_clear (t);
}

/* One node of the re-run; 0 if the operator is not supported by this test. */
static int
mp_node (struct mp_sweep *s, int k)
{
  const cn_graph *g = s->g;
  cn_op op = cn_graph_node_op (g, k);
  int o = cn_graph_node_output (g, k, 0);
  mpfi_t *L = s->lam[o];
  int64_t R = s->rows, no = numel (g, o);
  mpfi_t t;
  mpfi_init2 (t, PREC);
  int ok = 1;
  if (op == CN_OP_RESHAPE)
    {
      mpfi_t *T = mp_target (s, cn_graph_node_input (g, k, 0));
      for (int64_t i = 0; i < R * no; i++)
        mpfi_add (T[i], T[i], L[i]);
    }
  else if (op == CN_OP_ADD || op == CN_OP_SUB)
    for (int i = 0; i < 2; i++)
      {
        int w = cn_graph_node_input (g, k, i);
        const cn_tensor *c = cn_graph_value_constant (g, w);
        int neg = op == CN_OP_SUB && i == 1;
        if (c != NULL)
          for (int64_t r = 0; r < R; r++)
            for (int64_t j = 0; j < no; j++)
              {
                mpfi_mul_d (t, L[r * no + j], cn_tensor_get_f64 (c, j));
                if (neg)
                  mpfi_sub (s->bias[r], s->bias[r], t);
                else
                  mpfi_add (s->bias[r], s->bias[r], t);
              }
        else
          {
            mpfi_t *T = mp_target (s, w);
            for (int64_t j = 0; j < R * no; j++)
              if (neg)
                mpfi_sub (T[j], T[j], L[j]);
              else
                mpfi_add (T[j], T[j], L[j]);
          }
      }
  else if (op == CN_OP_RELU)
    {
      int w = cn_graph_node_input (g, k, 0);
      const cn_box *b = cn_analysis_box (s->a, w);
      mpfi_t *T = mp_target (s, w);
      mpfi_t ku, bu;
      mpfi_init2 (ku, PREC);
      mpfi_init2 (bu, PREC);
      for (int64_t j = 0; j < no; j++)
        {
          double l = b->lo[j], u = b->hi[j];
          if (u <= 0)
            continue;
          if (l >= 0)
            {
              for (int64_t r = 0; r < R; r++)
                mpfi_add (T[r * no + j], T[r * no + j], L[r * no + j]);
              continue;
            }
          /* the exact chord: kU = u/(u-l), bU = -l kU; lower slope 1 iff u > -l */
          mpfi_set_d (ku, u);
          mpfi_sub_d (t, ku, l);
          mpfi_div (ku, ku, t);
          mpfi_mul_d (bu, ku, -l);
          for (int64_t r = 0; r < R; r++)
            {
              mpfi_ptr lam = L[r * no + j];
              if (mpfi_is_nonneg (lam) || (!mpfi_is_nonpos (lam) && mpfr_sgn (&lam->right) + mpfr_sgn (&lam->left) >= 0))
                {
                  if (s->theta != NULL)
                    {
                      /* the row's own slope, read as the exact real it is */
                      mpfi_mul_d (t, lam, s->theta[r * s->width + s->offset[o] + j]);
                      mpfi_add (T[r * no + j], T[r * no + j], t);
                    }
                  else if (u > -l)
                    mpfi_add (T[r * no + j], T[r * no + j], lam);
                }
              else
                {
                  mpfi_mul (t, lam, ku);
                  mpfi_add (T[r * no + j], T[r * no + j], t);
                  mpfi_mul (t, lam, bu);
                  mpfi_add (s->bias[r], s->bias[r], t);
                }
            }
        }
      mpfi_clear (ku);
      mpfi_clear (bu);
    }
  else if (op == CN_OP_LINEAR || op == CN_OP_MATMUL)
    {
      /* linear: x [P, in] W [out, in] b [out];  matmul: x [.., n, k] @ W [k, m] or W [n, k] @ x [k]/[k, c] */
      int x = cn_graph_node_input (g, k, 0), w = cn_graph_node_input (g, k, 1);
      const cn_tensor *W = cn_graph_value_constant (g, w);
      const cn_tensor *A = cn_graph_value_constant (g, x);
      int left_const = op == CN_OP_MATMUL && A != NULL && W == NULL;
      if (left_const)
        {
          int tmp = x;
          x = w;
          w = tmp;
          W = A;
        }
      if (W == NULL || W->shape.rank != 2)
        {
          ok = 0;
          goto done;
        }
      int64_t nx = numel (g, x);
      mpfi_t *T = mp_target (s, x);
      int64_t d0 = W->shape.dim[0], d1 = W->shape.dim[1];
      for (int64_t r = 0; r < R; r++)
        {
          if (op == CN_OP_LINEAR || !left_const)
            {
              /* rows of x: P = nx / in; y[p, o] = sum_j x[p, j] M[j, o] with M = W^T (linear) or W (matmul) */
              int64_t in = op == CN_OP_LINEAR ? d1 : d0, out = op == CN_OP_LINEAR ? d0 : d1, P = nx / in;
              for (int64_t p = 0; p < P; p++)
                for (int64_t j = 0; j < in; j++)
                  for (int64_t oo = 0; oo < out; oo++)
                    {
                      double wv = op == CN_OP_LINEAR ? cn_tensor_get_f64 (W, oo * d1 + j) : cn_tensor_get_f64 (W, j * d1 + oo);
                      mpfi_mul_d (t, L[r * no + p * out + oo], wv);
                      mpfi_add (T[r * nx + p * in + j], T[r * nx + p * in + j], t);
                    }
              if (op == CN_OP_LINEAR)
                {
                  const cn_tensor *B = cn_graph_value_constant (g, cn_graph_node_input (g, k, 2));
                  for (int64_t p = 0; p < P; p++)
                    for (int64_t oo = 0; oo < out; oo++)
                      {
                        mpfi_mul_d (t, L[r * no + p * out + oo], cn_tensor_get_f64 (B, oo));
                        mpfi_add (s->bias[r], s->bias[r], t);
                      }
                }
            }
          else
            {
              /* y[i, c] = sum_t W[i, t] x[t, c]; C = nx / d1 columns */
              int64_t C = nx / d1;
              for (int64_t i = 0; i < d0; i++)
                for (int64_t tt = 0; tt < d1; tt++)
                  for (int64_t cc = 0; cc < C; cc++)
                    {
                      mpfi_mul_d (t, L[r * no + i * C + cc], cn_tensor_get_f64 (W, i * d1 + tt));
                      mpfi_add (T[r * nx + tt * C + cc], T[r * nx + tt * C + cc], t);
                    }
            }
        }
    }
  else
    ok = 0;
done:
  mpfi_clear (t);
  return ok;
}

/* Runs the MPFI sweep from value V with rows C; writes the lower ends into A_OUT. */
static int
mp_sweep (const cn_graph *g, const cn_analysis *a, int v, const double *c, int64_t rows, const double *theta,
          double *a_out)
{
  struct mp_sweep s = { .g = g, .a = a, .rows = rows, .theta = theta };
  int nv = cn_graph_n_values (g);
  s.lam = calloc ((size_t) nv, sizeof *s.lam);
  s.dep = calloc ((size_t) nv, 1);
  s.offset = malloc ((size_t) nv * sizeof *s.offset);
  s.bias = mp_alloc (rows);
  for (int i = 0; i < cn_graph_n_inputs (g); i++)
    s.dep[cn_graph_input (g, i)] = 1;
  for (int k = 0; k < cn_graph_n_nodes (g); k++)
    for (int i = 0; i < cn_graph_node_n_inputs (g, k); i++)
      s.dep[cn_graph_node_output (g, k, 0)] |= s.dep[cn_graph_node_input (g, k, i)];
  /* the documented layout (every relu here is on the way to the output) */
  for (int w = 0; w < nv; w++)
    s.offset[w] = -1;
  for (int k = 0; k < cn_graph_n_nodes (g); k++)
    if (cn_graph_node_op (g, k) == CN_OP_RELU && s.dep[cn_graph_node_output (g, k, 0)])
      {
        s.offset[cn_graph_node_output (g, k, 0)] = s.width;
        s.width += numel (g, cn_graph_node_output (g, k, 0));
      }
  int64_t n = numel (g, v);
  s.lam[v] = mp_alloc (rows * n);
  for (int64_t i = 0; i < rows * n; i++)
    mpfi_set_d (s.lam[v][i], c[i]);
  int ok = 1;
  for (int k = cn_graph_value_producer (g, v); k >= 0 && ok; k--)
    {
      int o = cn_graph_node_output (g, k, 0);
      if (s.lam[o] == NULL)
        continue;
      if (!s.dep[o])
        mp_concretise (&s, o, s.lam[o]);
      else
        ok = mp_node (&s, k);
      mp_free (s.lam[o], rows * numel (g, o));
      s.lam[o] = NULL;
    }
  for (int i = 0; i < cn_graph_n_inputs (g) && ok; i++)
    {
      int w = cn_graph_input (g, i);
      if (s.lam[w] != NULL)
        mp_concretise (&s, w, s.lam[w]);
    }
  for (int64_t r = 0; r < rows; r++)
    a_out[r] = mpfr_get_d (&s.bias[r]->left, MPFR_RNDD);
  for (int w = 0; w < nv; w++)
    mp_free (s.lam[w], rows * numel (g, w));
  mp_free (s.bias, rows);
  free (s.lam);
  free (s.dep);
  free (s.offset);
  return ok;
}

START_TEST (mpfi_rerun)
{
  if (!nets[_i].rerun)
    return;
  cn_graph *g;
  cn_spec spec;
  load (_i, &g, &spec);
  cn_error err;
  cn_error_clear (&err);
  int yv = cn_graph_output (g, 0);
  int64_t m = numel (g, yv);
  for (int method = 0; method < 3; method++)
    {
      cn_bounds_opts o;
      cn_bounds_opts_init (&o);
      o.method = method == 2 ? CN_METHOD_ALPHA_CROWN : method ? CN_METHOD_CROWN_IBP : CN_METHOD_CROWN;
      cn_analysis *a;
      ck_assert_msg (cn_analysis_create (g, &spec.cases[0].box, &o, &a, &err) == CN_OK, "%s", err.msg);
      enum { ROWS = 4 };
      double c[ROWS * 16], fast[ROWS], exact[ROWS];
      ck_assert (m <= 16);
      for (int64_t j = 0; j < ROWS * m; j++)
        c[j] = j < m ? (j == 0) - (j == m - 1) : tu_uniform (-1, 1);
      double *theta = NULL;
      if (o.method == CN_METHOD_ALPHA_CROWN)
        {
          /* the final sweep of alpha-CROWN: the best parameters of each row, re-run in MPFI */
          int64_t width = cn_analysis_alpha_width (a, yv);
          ck_assert (width >= 0);
          theta = malloc ((size_t) (ROWS * width + 1) * sizeof *theta);
          ck_assert_ptr_nonnull (theta);
          for (int64_t j = 0; j < ROWS * width; j++)
            theta[j] = NAN;
          ck_assert_msg (cn_analysis_lower_alpha (a, yv, c, ROWS, NULL, theta, fast, NULL, &err) == CN_OK, "%s", err.msg);
          for (int64_t j = 0; j < ROWS * width; j++)
            ck_assert (theta[j] >= 0 && theta[j] <= 1);
        }
      else
        ck_assert_msg (cn_analysis_lower (a, yv, c, ROWS, fast, &err) == CN_OK, "%s", err.msg);
      ck_assert_msg (mp_sweep (g, a, yv, c, ROWS, theta, exact), "%s: operator outside the MPFI re-run", nets[_i].onnx);
      free (theta);
      for (int r = 0; r < ROWS; r++)
        {
          ck_assert_msg (fast[r] <= exact[r], "%s %s row %d: fast bound %.17g above the MPFI re-run %.17g (CN_TEST_SEED=%lu)",
                         nets[_i].onnx, cn_method_name (o.method), r, fast[r], exact[r], tu_seed ());
          ck_assert_msg (exact[r] - fast[r] <= 1e-9 * (1 + fabs (exact[r])),
                         "%s %s row %d: fast bound %.17g too far below the MPFI re-run %.17g", nets[_i].onnx,
                         cn_method_name (o.method), r, fast[r], exact[r]);
        }
      fprintf (stderr, "%-48s %-9s fast vs MPFI re-run: max gap %.3g\n", nets[_i].onnx, cn_method_name (o.method),
               fmax (fmax (exact[0] - fast[0], exact[1] - fast[1]), fmax (exact[2] - fast[2], exact[3] - fast[3])));
      cn_analysis_free (a);
    }
  cn_spec_clear (&spec);
  cn_graph_free (g);
}
END_TEST

int
main (void)
{
  tu_init ();
  bench = tu_benchmarks ();
  if (bench == NULL)
    {
      fprintf (stderr, "check_bounds: ../shared/benchmarks not found; skipped\n");
      return 77;
    }
  Suite *s = suite_create ("bounds");
  TCase *tc = tcase_create ("soundness");
  tcase_set_timeout (tc, 900);
  tcase_add_loop_test (tc, sound_by_sampling, 0, N_NETS);
  tcase_add_loop_test (tc, mpfi_rerun, 0, N_NETS);
  suite_add_tcase (s, tc);
  return tu_run_suite (s);
}
