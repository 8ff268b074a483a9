/* SPDX-License-Identifier: MIT */
/* src/cli/cmd_verify.c: `certnn verify`, deciding a VNN-LIB property.
 *
 * The property is refuted case by case and clause by clause: a clause (rows M y <= rhs) is
 * refuted on a box when some row has a sound lower bound of M y above RU(rhs).  A box where
 * some clause is not refuted is split in two along the input dimension with the largest
 * width relative to the case's box (input splitting, for low-dimensional inputs), depth
 * first, so memory stays bounded by the depth.  Before splitting, the box's centre (rounded to
 * binary32, as the competition's checker evaluates in float32) is tried as a counterexample:
 * it counts only if the MPFI evaluation of the network at 256 bits satisfies every row of the
 * clause exactly (sup(M y) <= RD(rhs)).
 *
 * Verdicts: unsat (every clause refuted on every box: proved), sat (a checked counterexample,
 * printed after the verdict in the VNN-COMP format), unknown (inputs too many to split, or the
 * split depth limit reached), timeout. */
#include <config.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cli/cli.h"
#include "certnn/reference.h"

#define MAX_DEPTH 60            /* splits along one path before giving up on a box */
#define SPLIT_MAX_INPUTS 64     /* input splitting only for inputs of at most this many entries */

static void
help (FILE *f)
{
  fprintf (f, "Usage: certnn verify NET.onnx SPEC.vnnlib [--timeout S] [--output FILE] [--method crown|crown-ibp|ibp]\n"
              "                     [--threads N] [--quiet]\n\n"
              "Decides whether some input of the property's input set makes its (unsafe) output condition true.\n"
              "The first line of standard output (and of FILE) is the verdict:\n"
              "  unsat    proved: no input satisfies the condition (sound bounds refuted every disjunct)\n"
              "  sat      a counterexample, checked by exact (MPFI, 256-bit) evaluation of the network, follows in\n"
              "           the VNN-COMP format ((X_0 v) ... (Y_0 v) ...)\n"
              "  unknown  neither could be shown (inputs too many to split, or the split limit was reached)\n"
              "  timeout  the time limit (--timeout, default 60 s) was reached\n"
              "Never a wrong answer: when in doubt the verdict is unknown.  Progress goes to standard error when it\n"
              "is a terminal (not with --quiet).\n");
}

struct verifier
{
  const cn_graph *g;
  const cn_spec *spec;
  cn_bounds_opts opts;
  double deadline;
  int quiet, progress;
  long domains;
  /* counterexample */
  int found;
  double *cex_x;
  double *cex_y;
};

enum outcome { REFUTED, FOUND, OPEN, TIMED_OUT, FAILED };

/* Whether the binary64 evaluation at POINT comes near satisfying every row of CL (a cheap
 * filter before the exact check: rows clearly violated in binary64 are violated exactly). */
static int
near_counterexample (struct verifier *v, const cn_spec_clause *cl, const double *point, cn_error *err)
{
  int64_t n = v->spec->n_x, m = v->spec->n_y;
  cn_tensor in, out;
  const cn_shape *shape = cn_graph_value_shape (v->g, cn_graph_input (v->g, 0));
  if (cn_tensor_init (&in, CN_DTYPE_F64, shape, err) != CN_OK)
    return -1;
  memcpy (in.data, point, (size_t) n * sizeof *point);
  cn_status st = cn_graph_eval (v->g, CN_DTYPE_F64, &in, &out, err);
  cn_tensor_clear (&in);
  if (st != CN_OK)
    return -1;
  int near = 1;
  const double *y = out.data;
  double scale = 0;
  for (int64_t j = 0; j < m; j++)
    scale = fmax (scale, fabs (y[j]));
  for (int64_t r = 0; r < cl->n_rows && near; r++)
    {
      double acc = 0;
      for (int64_t j = 0; j < m; j++)
        acc += cl->mat[r * m + j] * y[j];
      near = acc - cl->rhs_down[r] <= 1e-9 * (1 + scale + fabs (cl->rhs_down[r]));
    }
  cn_tensor_clear (&out);
  return near;
}

/* Tries POINT (inside the case box) as a counterexample of CLAUSE exactly. */
static int
check_point (struct verifier *v, const cn_spec_clause *cl, const double *point, cn_error *err)
{
  const mpfr_prec_t prec = 256;
  cn_mpfi_vec x, y;
  int64_t n = v->spec->n_x, m = v->spec->n_y;
  int near = near_counterexample (v, cl, point, err);
  if (near <= 0)
    return near;
  if (cn_mpfi_vec_init (&x, n, prec, err) != CN_OK)
    return -1;
  for (int64_t j = 0; j < n; j++)
    mpfi_set_d (x.v[j], point[j]);
  cn_status st = cn_reference_ibp (v->g, &x, prec, &y, err);
  cn_mpfi_vec_clear (&x);
  if (st != CN_OK)
    return -1;
  int ok = 1;
  mpfi_t acc, t;
  mpfi_init2 (acc, prec);
  mpfi_init2 (t, prec);
  for (int64_t r = 0; r < cl->n_rows && ok; r++)
    {
      mpfi_set_ui (acc, 0);
      for (int64_t j = 0; j < m; j++)
        if (cl->mat[r * m + j] != 0)
          {
            mpfi_mul_d (t, y.v[j], cl->mat[r * m + j]);
            mpfi_add (acc, acc, t);
          }
      /* the row holds for the exact network iff M y <= rhs; sup(acc) <= RD(rhs) proves it */
      ok = mpfr_cmp_d (&acc->right, cl->rhs_down[r]) <= 0;
    }
  if (ok)
    {
      v->found = 1;
      memcpy (v->cex_x, point, (size_t) n * sizeof *point);
      for (int64_t j = 0; j < m; j++)
        v->cex_y[j] = mpfr_get_d (&y.v[j]->left, MPFR_RNDN);
    }
  mpfi_clear (acc);
  mpfi_clear (t);
  cn_mpfi_vec_clear (&y);
  return ok;
}

/* The box's centre rounded to binary32, moved inward if rounding left the box. */
static void
centre32 (const cn_box *b, double *p)
{
  for (int64_t j = 0; j < b->n; j++)
    {
      double c = b->lo[j] + 0.5 * (b->hi[j] - b->lo[j]);
      float f = (float) c;
      if ((double) f < b->lo[j])
        f = nextafterf (f, INFINITY);
      if ((double) f > b->hi[j])
        f = nextafterf (f, -INFINITY);
      p[j] = ((double) f >= b->lo[j] && (double) f <= b->hi[j]) ? (double) f : c;
    }
}

/* Decides the clauses LIVE (flags) of case CS on BOX, recursively. */
static enum outcome
search (struct verifier *v, const cn_spec_case *cs, cn_box *box, int depth, cn_error *err)
{
  if (cli_now () > v->deadline)
    return TIMED_OUT;
  const cn_graph *g = v->g;
  int out = cn_graph_output (g, 0);
  int64_t ny = v->spec->n_y;
  cn_analysis *a = NULL;
  enum outcome res = REFUTED;
  double *lower = NULL, *point = NULL;
  v->domains++;
  if (cn_analysis_create (g, box, &v->opts, &a, err) != CN_OK)
    return FAILED;
  int64_t rows = 0;
  for (int64_t k = 0; k < cs->n_clauses; k++)
    rows += cs->clauses[k].n_rows;
  lower = malloc ((size_t) (rows ? rows : 1) * sizeof *lower);
  point = malloc ((size_t) box->n * sizeof *point);
  double *c = malloc ((size_t) (rows ? rows : 1) * (size_t) ny * sizeof *c);
  if (lower == NULL || point == NULL || c == NULL)
    {
      cn_error_set (err, CN_ENOMEM, "verify: out of memory");
      res = FAILED;
      goto done;
    }
  for (int64_t k = 0, r0 = 0; k < cs->n_clauses; k++)
    {
      memcpy (c + r0 * ny, cs->clauses[k].mat, (size_t) (cs->clauses[k].n_rows * ny) * sizeof *c);
      r0 += cs->clauses[k].n_rows;
    }
  if (rows > 0 && cn_analysis_lower (a, out, c, rows, lower, err) != CN_OK)
    {
      res = FAILED;
      goto done;
    }
  int open = 0;
  centre32 (box, point);
  for (int64_t k = 0, r0 = 0; k < cs->n_clauses; k++)
    {
      const cn_spec_clause *cl = &cs->clauses[k];
      int refuted = 0;
      for (int64_t r = 0; r < cl->n_rows; r++)
        if (lower[r0 + r] > cl->rhs_up[r])
          refuted = 1;
      r0 += cl->n_rows;
      if (refuted)
        continue;
      int hit = check_point (v, cl, point, err);
      if (hit < 0)
        {
          res = FAILED;
          goto done;
        }
      if (hit)
        {
          res = FOUND;
          goto done;
        }
      open = 1;
    }
  if (!open)
    goto done;
  if (box->n > SPLIT_MAX_INPUTS || depth >= MAX_DEPTH)
    {
      res = OPEN;
      goto done;
    }
  cn_analysis_free (a);
  a = NULL;
  /* Split the dimension widest relative to the case's box. */
  int64_t best = 0;
  double bw = -1;
  for (int64_t j = 0; j < box->n; j++)
    {
      double full = cs->box.hi[j] - cs->box.lo[j];
      double w = full > 0 ? (box->hi[j] - box->lo[j]) / full : 0;
      if (w > bw)
        {
          bw = w;
          best = j;
        }
    }
  double lo = box->lo[best], hi = box->hi[best];
  double mid = lo + 0.5 * (hi - lo);
  if (!(mid > lo && mid < hi))
    {
      res = OPEN;
      goto done;
    }
  /* Both halves are searched: an open half does not stop the search for a counterexample in
   * the other.  The result is REFUTED only if both halves are. */
  res = REFUTED;
  for (int half = 0; half < 2; half++)
    {
      box->lo[best] = half ? mid : lo;
      box->hi[best] = half ? hi : mid;
      enum outcome sub = search (v, cs, box, depth + 1, err);
      if (sub == FOUND || sub == TIMED_OUT || sub == FAILED)
        {
          res = sub;
          break;
        }
      if (sub == OPEN)
        res = OPEN;
    }
  box->lo[best] = lo;
  box->hi[best] = hi;
  if (v->progress && !v->quiet)
    fprintf (stderr, "\rcertnn verify: %ld domains, %.1f s left   ", v->domains, v->deadline - cli_now ());
done:
  cn_analysis_free (a);
  free (lower);
  free (point);
  free (c);
  return res;
}

static void
print_result (FILE *f, const char *verdict, const struct verifier *v)
{
  fprintf (f, "%s\n", verdict);
  if (strcmp (verdict, "sat") != 0)
    return;
  fputc ('(', f);
  for (int64_t j = 0; j < v->spec->n_x; j++)
    {
      fprintf (f, "(X_%lld %.17g)\n", (long long) j, v->cex_x[j]);
    }
  for (int64_t j = 0; j < v->spec->n_y; j++)
    fprintf (f, "(Y_%lld %.17g)%s\n", (long long) j, v->cex_y[j], j + 1 == v->spec->n_y ? ")" : "");
}

int
cli_verify (int argc, char **argv)
{
  const char *net = NULL, *specp = NULL, *output = NULL;
  double timeout = 60;
  struct verifier v;
  memset (&v, 0, sizeof v);
  cn_bounds_opts_init (&v.opts);
  cn_error err;
  cn_error_clear (&err);
  int opt;
  for (int i = 1; i < argc; i++)
    {
      if (strcmp (argv[i], "--help") == 0 || strcmp (argv[i], "-h") == 0)
        {
          help (stdout);
          return CLI_OK;
        }
      else if (strcmp (argv[i], "--quiet") == 0)
        v.quiet = 1;
      else if (strcmp (argv[i], "--output") == 0 && i + 1 < argc)
        output = argv[++i];
      else if (strcmp (argv[i], "--timeout") == 0 && i + 1 < argc)
        {
          char *end;
          timeout = strtod (argv[++i], &end);
          if (*end != '\0' || !(timeout > 0))
            return cli_usage_error ("verify", "--timeout must be a number of seconds > 0, not '%s'", argv[i]);
        }
      else if ((opt = cli_bounds_option ("verify", argc, argv, &i, &v.opts)) != 0)
        {
          if (opt < 0)
            return -opt;
        }
      else if (argv[i][0] == '-' && argv[i][1] != '\0')
        return cli_usage_error ("verify", "unknown or incomplete option '%s' (try certnn verify --help)", argv[i]);
      else if (net == NULL)
        net = argv[i];
      else if (specp == NULL)
        specp = argv[i];
      else
        return cli_usage_error ("verify", "unexpected argument '%s'", argv[i]);
    }
  if (net == NULL || specp == NULL)
    return cli_usage_error ("verify", "need NET.onnx and SPEC.vnnlib (try certnn verify --help)");
  double t0 = cli_now ();
  v.deadline = t0 + timeout;
  v.progress = isatty (2);
  cn_graph *g = NULL;
  cn_spec spec;
  memset (&spec, 0, sizeof spec);
  int rc = CLI_OK;
  const char *verdict = "unsat";
  if (cli_load (net, specp, &g, &spec, &err) != CN_OK)
    return cli_fail (&err);
  v.g = g;
  v.spec = &spec;
  v.cex_x = malloc ((size_t) spec.n_x * sizeof (double) + 1);
  v.cex_y = malloc ((size_t) spec.n_y * sizeof (double) + 1);
  if (v.cex_x == NULL || v.cex_y == NULL)
    {
      cn_error_set (&err, CN_ENOMEM, "verify: out of memory");
      rc = cli_fail (&err);
      goto done;
    }
  for (int64_t k = 0; k < spec.n_cases; k++)
    {
      cn_box box;
      if (cn_box_copy (&box, &spec.cases[k].box, &err) != CN_OK)
        {
          rc = cli_fail (&err);
          goto done;
        }
      enum outcome o = search (&v, &spec.cases[k], &box, 0, &err);
      cn_box_clear (&box);
      if (o == FAILED)
        {
          rc = cli_fail (&err);
          goto done;
        }
      if (o == FOUND)
        {
          verdict = "sat";
          break;
        }
      if (o == TIMED_OUT)
        {
          verdict = "timeout";
          break;
        }
      if (o == OPEN)
        verdict = "unknown";   /* keep going: a later case may still give sat */
    }
  if (v.progress && !v.quiet)
    fprintf (stderr, "\r%60s\r", "");
  print_result (stdout, verdict, &v);
  fflush (stdout);
  if (output != NULL)
    {
      FILE *f = fopen (output, "w");
      if (f == NULL)
        {
          fprintf (stderr, "certnn verify: cannot write %s: %s\n", output, strerror (errno));
          rc = CLI_BAD_INPUT;
          goto done;
        }
      print_result (f, verdict, &v);
      if (fclose (f) != 0)
        {
          fprintf (stderr, "certnn verify: cannot write %s: %s\n", output, strerror (errno));
          rc = CLI_BAD_INPUT;
        }
    }
  if (!v.quiet)
    fprintf (stderr, "certnn verify: %s in %.2f s, %ld domains\n", verdict, cli_now () - t0, v.domains);
done:
  free (v.cex_x);
  free (v.cex_y);
  cn_spec_clear (&spec);
  cn_graph_free (g);
  return rc;
}
