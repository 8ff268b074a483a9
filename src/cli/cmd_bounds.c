/* SPDX-License-Identifier: MIT */
/* src/cli/cmd_bounds.c: `certnn bounds`, sound bounds of the network outputs over an input box. */
#include <config.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>
#include "certnn/reference.h"
#include "cli/cli.h"

/* The default precision of --reference mpfi, in bits: the precision of the test suite's oracle. */
#define REFERENCE_PREC 256
/* The largest precision the command accepts (MPFR's own limit is far beyond any useful one). */
#define PREC_CAP (1L << 20)

static void
help (FILE *f)
{
  fprintf (f, "Usage: certnn bounds NET.onnx --vnnlib SPEC.vnnlib [--method ibp|crown|crown-ibp|alpha-crown] [--json]\n"
              "                     [--semantics real|binary32] [--threads N] [--iterations N] [--lr X]\n"
              "                     [--fix-intermediate] [--history] [--repeat R]\n"
              "       certnn bounds NET.onnx --center FILE --eps E [--norm inf|2] [...]\n"
              "       certnn bounds NET.onnx (--vnnlib SPEC | --center FILE --eps E) --method ibp --reference mpfi\n"
              "                     [--precision BITS] [--json]\n\n"
              "Sound bounds of every entry of the network's output 0 over an input set: the first input box of\n"
              "SPEC (its constants rounded outward), or the ball of radius E (L-infinity; L2 with --norm 2)\n"
              "around the point in FILE (numbers in C order).  The bounds hold for the network evaluated in exact real arithmetic with its\n"
              "stored weights, for every input of the set: rounding errors are charged, never ignored.\n\n"
              "  --semantics real (default): the bounds hold in exact real arithmetic; binary32: they hold\n"
              "             instead for the network as deployed in binary32 (every input a binary32 word of the\n"
              "             set, every operator rounding to nearest in binary32 in any order of its sums, with or\n"
              "             without fused multiply-adds): each node's box and relaxation is widened by the\n"
              "             operator's declared worst rounding error (`certnn certs` lists the binary32_roundoff\n"
              "             records); an operator without one is refused by name, and so is a weight that is no\n"
              "             binary32 word\n"
              "  --method   ibp: interval propagation; crown (default): CROWN with full-CROWN intermediate bounds;\n"
              "             crown-ibp: IBP intermediate bounds and one CROWN sweep from the output;\n"
              "             alpha-crown: CROWN whose sweeps have the free parameters of their relaxations (the\n"
              "             lower slopes of relu, leakyReLU and abs, the tangent points of the smooth elementwise\n"
              "             operators, the mix of McCormick's planes of a product of two variables: `certnn\n"
              "             ops` marks them \"CROWN (alpha)\") optimised for every bound\n"
              "             (Adam, the best of the iterations kept, every one a sound sweep's; with\n"
              "             --fix-intermediate never looser than crown; optimised intermediate bounds are tighter,\n"
              "             which almost always, not always, tightens the output)\n"
              "  --fix-intermediate\n"
              "             (alpha-crown) keep CROWN's intermediate bounds, optimise the output's sweep only (by\n"
              "             default every intermediate bound's sweep is optimised too, each for its own bound)\n"
              "  --iterations N, --lr X\n"
              "             (alpha-crown) sweeps per bound, the first with CROWN's slopes (default 20), and Adam's\n"
              "             learning rate (default 0.5; decayed by 0.98 per step; stops after 10 steps without gain)\n"
              "  --alpha-memory MB\n"
              "             (alpha-crown) working memory of one optimisation (default 2048 MiB): when its rows\n"
              "             together need more (parameters, the sweep's records, the gradient's forward values)\n"
              "             they are optimised in blocks that fit, one after the other (the same bounds)\n"
              "  --max-memory MB\n"
              "             a budget for the working memory (MiB): an analysis whose estimate (the boxes of every\n"
              "             value, the coefficient blocks of its sweeps) exceeds it is refused with a message (exit\n"
              "             2) before it allocates, and alpha-crown's blocks fit in half of it\n"
              "  --history  (alpha-crown, with --json) add each iteration's bounds as \"history\"\n"
              "  --norm inf|2\n"
              "             (with --center, --eps) the input set is the ball of that norm: inf (default) the box\n"
              "             [x0 - E, x0 + E]; 2 the Euclidean ball ||x - x0||_2 <= E, whose intermediate bounds are\n"
              "             the enclosing box's and whose output bounds take the better of the box's and the ball's\n"
              "             minimum of each CROWN linear bound (x0 . a + d - E ||a||_2, rounded the safe way); not\n"
              "             with ibp\n"
              "  --linear   (with --json) add \"linear\": for each output entry y_j the sound affine bounds\n"
              "             lower.coef[j] . x + lower.offset[j] <= y_j(x) <= upper.coef[j] . x + upper.offset[j]\n"
              "             for every input x of the set, read in exact arithmetic on the printed numbers (17\n"
              "             significant digits: the binary64 numbers themselves), under the chosen semantics: one\n"
              "             CROWN sweep's coefficients with every rounding error charged to the offsets; an offset\n"
              "             nothing finite is known of prints as null\n"
              "  --repeat R (a benchmark's measurement) compute the bounds 1 + R times from scratch, the same each\n"
              "             time; \"seconds\" is then the median of the last R (warm: memory already faulted in once,\n"
              "             as a peer timed after a warm-up call), and --json adds \"seconds_cold\" (the first) and\n"
              "             \"repeat\"\n"
              "  --json     print {\"method\", \"semantics\", \"lower\", \"upper\", \"seconds\", \"discharged\"} (an\n"
              "             infinite bound\n"
              "             prints as null); seconds times the bound computation only; discharged counts the CROWN\n"
              "             steps that found no relaxation and used the node's IBP box (also noted on stderr);\n"
              "             alpha-crown adds \"iterations\", the sweeps run for the output's bounds\n"
              "  --threads  OpenMP threads for the row-parallel work (default: OpenMP's)\n"
              "  --reference mpfi\n"
              "             (with --method ibp only) the whole IBP pass in MPFI interval arithmetic instead, through\n"
              "             every operator's MPFI arm: the reference the soundness tests compare against (slow).  The\n"
              "             enclosure of each output is rounded outward to binary64; an end MPFI cannot bound prints\n"
              "             as -inf/inf.  With --json the method prints as \"ibp-mpfi\" and a \"precision\" field is\n"
              "             added; --threads has no effect\n"
              "  --precision BITS\n"
              "             (with --reference only) the MPFR precision of the reference, %d..%ld (default %d)\n\n"
              "Text output: one line per output entry, 'index lower upper'.\n", (int) MPFR_PREC_MIN, (long) PREC_CAP,
           REFERENCE_PREC);
}

/* {"lower": {"coef": [[...] per output entry], "offset": [...]}, "upper": {...}}: the sound
 * linear bounds of every output entry in the input (cn_analysis_linear); an infinite offset
 * prints as null. */
static cn_status
linear_json (const cn_graph *g, cn_analysis *an, json_t **out, cn_error *err)
{
  int y = cn_graph_output (g, 0);
  int64_t m = cn_shape_numel (cn_graph_value_shape (g, y));
  int64_t n = cn_shape_numel (cn_graph_value_shape (g, cn_graph_input (g, 0)));
  double *lc = malloc ((size_t) (m * n + 1) * sizeof *lc), *uc = malloc ((size_t) (m * n + 1) * sizeof *uc);
  double *lo = malloc ((size_t) (m + 1) * sizeof *lo), *uo = malloc ((size_t) (m + 1) * sizeof *uo);
  cn_status st = CN_OK;
  *out = NULL;
  if (lc == NULL || uc == NULL || lo == NULL || uo == NULL)
    st = cn_error_set (err, CN_ENOMEM, "bounds: out of memory");
  else if ((st = cn_analysis_linear (an, y, NULL, m, lc, lo, uc, uo, err)) == CN_OK)
    {
      json_t *side[2];
      for (int k = 0; k < 2; k++)
        {
          const double *c = k ? uc : lc, *o = k ? uo : lo;
          json_t *rows = json_array (), *offs = json_array ();
          for (int64_t s = 0; s < m; s++)
            {
              json_t *r = json_array ();
              for (int64_t j = 0; j < n; j++)
                json_array_append_new (r, json_real (c[s * n + j]));
              json_array_append_new (rows, r);
              json_array_append_new (offs, isfinite (o[s]) ? json_real (o[s]) : json_null ());
            }
          side[k] = json_pack ("{s:o, s:o}", "coef", rows, "offset", offs);
        }
      *out = json_pack ("{s:o, s:o}", "lower", side[0], "upper", side[1]);
      if (*out == NULL)
        st = cn_error_set (err, CN_ENOMEM, "bounds: out of memory");
    }
  free (lc);
  free (uc);
  free (lo);
  free (uo);
  return st;
}

int
cli_bounds (int argc, char **argv)
{
  const char *net = NULL, *vnnlib = NULL, *center = NULL;
  double eps = -1;
  int json = 0, history = 0, repeat = 0, norm2 = 0, linear = 0;
  const char *reference = NULL;
  long prec = -1;
  cn_bounds_opts opts;
  cn_bounds_opts_init (&opts);
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
      else if (strcmp (argv[i], "--json") == 0)
        json = 1;
      else if (strcmp (argv[i], "--history") == 0)
        history = 1;
      else if (strcmp (argv[i], "--linear") == 0)
        linear = 1;
      else if (strcmp (argv[i], "--norm") == 0 && i + 1 < argc)
        {
          ++i;
          if (strcmp (argv[i], "2") == 0)
            norm2 = 1;
          else if (strcmp (argv[i], "inf") == 0)
            norm2 = 0;
          else
            return cli_usage_error ("bounds", "--norm takes inf or 2, not '%s'", argv[i]);
        }
      else if (strcmp (argv[i], "--repeat") == 0 && i + 1 < argc)
        {
          long r;
          if (!cli_parse_int (argv[++i], 0, 1000, &r))
            return cli_usage_error ("bounds", "--repeat must be an integer in 0..1000, not '%s'", argv[i]);
          repeat = (int) r;
        }
      else if (strcmp (argv[i], "--vnnlib") == 0 && i + 1 < argc)
        vnnlib = argv[++i];
      else if (strcmp (argv[i], "--center") == 0 && i + 1 < argc)
        center = argv[++i];
      else if (strcmp (argv[i], "--eps") == 0 && i + 1 < argc)
        {
          char *end;
          eps = strtod (argv[++i], &end);
          if (*end != '\0' || !(eps >= 0) || isinf (eps))
            return cli_usage_error ("bounds", "--eps must be a finite number >= 0, not '%s'", argv[i]);
        }
      else if (strcmp (argv[i], "--reference") == 0 && i + 1 < argc)
        {
          reference = argv[++i];
          if (strcmp (reference, "mpfi") != 0)
            return cli_usage_error ("bounds", "--reference takes mpfi, not '%s'", reference);
        }
      else if (strcmp (argv[i], "--precision") == 0 && i + 1 < argc)
        {
          if (!cli_parse_int (argv[++i], (long) MPFR_PREC_MIN, PREC_CAP, &prec))
            return cli_usage_error ("bounds", "--precision must be an integer in %d..%ld, not '%s'", (int) MPFR_PREC_MIN,
                                    (long) PREC_CAP, argv[i]);
        }
      else if ((opt = cli_bounds_option ("bounds", argc, argv, &i, &opts)) != 0)
        {
          if (opt < 0)
            return -opt;
        }
      else if (argv[i][0] == '-' && argv[i][1] != '\0')
        return cli_usage_error ("bounds", "unknown or incomplete option '%s' (try certnn bounds --help)", argv[i]);
      else if (net == NULL)
        net = argv[i];
      else
        return cli_usage_error ("bounds", "unexpected argument '%s'", argv[i]);
    }
  if (net == NULL || (vnnlib == NULL) == (center == NULL))
    return cli_usage_error ("bounds", "need NET.onnx and either --vnnlib SPEC or --center FILE --eps E (try --help)");
  if (center != NULL && eps < 0)
    return cli_usage_error ("bounds", "--center needs --eps E");
  if (reference != NULL && opts.semantics != CN_SEMANTICS_REAL)
    return cli_usage_error ("bounds",
                            "--reference mpfi computes the exact real semantics; it takes no --semantics binary32");
  if (reference != NULL && opts.method != CN_METHOD_IBP)
    return cli_usage_error ("bounds", "--reference mpfi needs --method ibp (the reference runs IBP only)");
  if (history && (!json || opts.method != CN_METHOD_ALPHA_CROWN))
    return cli_usage_error ("bounds", "--history needs --json and --method alpha-crown");
  if (norm2 && center == NULL)
    return cli_usage_error ("bounds", "--norm 2 needs --center FILE --eps E (the ball's center and radius)");
  if (norm2 && (reference != NULL || opts.method == CN_METHOD_IBP))
    return cli_usage_error ("bounds", "--norm 2 needs a CROWN method (crown, crown-ibp, alpha-crown): IBP and the "
                            "reference bound the enclosing box only");
  if (linear && (!json || reference != NULL))
    return cli_usage_error ("bounds", "--linear needs --json (and no --reference)");
  if (prec >= 0 && reference == NULL)
    return cli_usage_error ("bounds", "--precision needs --reference mpfi");
  if (prec < 0)
    prec = REFERENCE_PREC;

  cn_graph *g = NULL;
  cn_spec spec;
  memset (&spec, 0, sizeof spec);
  cn_box box, out;
  memset (&box, 0, sizeof box);
  memset (&out, 0, sizeof out);
  cn_analysis *an = NULL;
  double *x0 = NULL;
  cn_alpha_trace trace = { 0 };   /* before the first goto done: done frees its history */
  int rc = CLI_OK;
  if (cli_load (net, vnnlib, &g, &spec, &err) != CN_OK)
    {
      rc = cli_fail (&err);
      goto done;
    }
  if (vnnlib != NULL)
    {
      if (cn_box_copy (&box, &spec.cases[0].box, &err) != CN_OK)
        {
          rc = cli_fail (&err);
          goto done;
        }
    }
  else
    {
      int64_t n;
      int64_t nx = cn_shape_numel (cn_graph_value_shape (g, cn_graph_input (g, 0)));
      if (cli_read_numbers (center, &x0, &n, &err) != CN_OK)
        {
          rc = cli_fail (&err);
          goto done;
        }
      if (n != nx)
        {
          rc = cli_usage_error ("bounds", "%s holds %lld numbers; the network input needs %lld", center, (long long) n,
                                (long long) nx);
          goto done;
        }
      if (cn_box_init_linf (&box, n, x0, eps, &err) != CN_OK)
        {
          rc = cli_fail (&err);
          goto done;
        }
    }
  double t0 = cli_now ();
  /* Either the fast sound pass or the MPFI reference; both leave in OUT a binary64 box that
     contains the exact output over BOX. */
  int64_t discharged = 0;
  cn_status bst;
  int64_t n_out = cn_shape_numel (cn_graph_value_shape (g, cn_graph_output (g, 0)));
  if (history && (trace.history = malloc ((size_t) opts.iterations * (size_t) (2 * n_out + 1) * sizeof (double)))
                     == NULL)
    {
      fprintf (stderr, "certnn: bounds: out of memory\n");
      rc = CLI_FAIL;
      goto done;
    }
  /* With --repeat R the computation runs 1 + R times, each from scratch; the first (cold: its
   * memory faulted in afresh) is reported as seconds_cold, the median of the others as seconds
   * (the protocol of benchmarks/lirpa_bounds.py for the peer).  The runs are identical. */
  double secs = 0, cold = 0;
  double *times = calloc ((size_t) (repeat + 1), sizeof *times);
  if (times == NULL)
    {
      fprintf (stderr, "certnn: bounds: out of memory\n");
      rc = CLI_FAIL;
      goto done;
    }
  for (int run = 0; run <= repeat; run++)
    {
      if (run > 0)
        {
          cn_analysis_free (an);
          an = NULL;
          cn_box_clear (&out);
          t0 = cli_now ();
        }
      if (reference != NULL)
        bst = cn_reference_output_box (g, &box, (mpfr_prec_t) prec, &out, &err);
      else if ((bst = cn_analysis_create (g, &box, &opts, &an, &err)) == CN_OK
               && (!norm2 || (bst = cn_analysis_set_l2 (an, x0, eps, &err)) == CN_OK)
               && (bst = cn_analysis_output_box_trace (an, &out, &trace, &err)) == CN_OK)
        discharged = cn_analysis_discharged (an);
      if (bst != CN_OK)
        {
          free (times);
          rc = cli_fail (&err);
          goto done;
        }
      times[run] = cli_now () - t0;
    }
  cold = times[0];
  if (repeat == 0)
    secs = cold;
  else
    {
      /* the median of times[1..repeat] (insertion sort: R is small) */
      for (int i = 2; i <= repeat; i++)
        for (int j = i; j > 1 && times[j - 1] > times[j]; j--)
          {
            double t = times[j];
            times[j] = times[j - 1];
            times[j - 1] = t;
          }
      secs = repeat % 2 ? times[1 + repeat / 2] : (times[repeat / 2] + times[repeat / 2 + 1]) / 2;
    }
  free (times);
  if (discharged > 0)
    fprintf (stderr, "certnn: bounds: note: %lld CROWN step%s found no relaxation and used the node's IBP box "
             "(sound, possibly loose)\n", (long long) discharged, discharged == 1 ? "" : "s");
  if (json)
    {
      json_t *lo = json_array (), *hi = json_array ();
      for (int64_t j = 0; j < out.n; j++)
        {
          json_array_append_new (lo, isfinite (out.lo[j]) ? json_real (out.lo[j]) : json_null ());
          json_array_append_new (hi, isfinite (out.hi[j]) ? json_real (out.hi[j]) : json_null ());
        }
      json_t *root = json_pack ("{s:s, s:o, s:o, s:f, s:I}", "method",
                                reference != NULL ? "ibp-mpfi" : cn_method_name (opts.method), "lower", lo, "upper", hi,
                                "seconds", secs, "discharged", (json_int_t) discharged);
      if (root != NULL && reference != NULL)
        json_object_set_new (root, "precision", json_integer (prec));
      if (root != NULL)
        json_object_set_new (root, "semantics", json_string (cn_semantics_name (opts.semantics)));
      if (root != NULL && center != NULL)
        json_object_set_new (root, "norm", json_string (norm2 ? "2" : "inf"));
      if (root != NULL && linear)
        {
          json_t *lin = NULL;
          if ((bst = linear_json (g, an, &lin, &err)) != CN_OK)
            {
              json_decref (root);
              rc = cli_fail (&err);
              goto done;
            }
          json_object_set_new (root, "linear", lin);
        }
      if (root != NULL && repeat > 0)
        {
          json_object_set_new (root, "seconds_cold", json_real (cold));
          json_object_set_new (root, "repeat", json_integer (repeat));
        }
      if (root != NULL && opts.method == CN_METHOD_ALPHA_CROWN)
        {
          json_object_set_new (root, "iterations", json_integer (trace.iterations));
          if (trace.approx > 0)
            json_object_set_new (root, "approximate_gradient_nodes", json_integer (trace.approx));
        }
      if (root != NULL && history)
        {
          /* iteration k's sweep: row 2j bounds y_j from below, row 2j + 1 bounds -y_j */
          json_t *h = json_array ();
          for (int k = 0; k < trace.iterations; k++)
            {
              json_t *hl = json_array (), *hu = json_array ();
              const double *r = trace.history + (int64_t) k * 2 * n_out;
              for (int64_t j = 0; j < n_out; j++)
                {
                  json_array_append_new (hl, isfinite (r[2 * j]) ? json_real (r[2 * j]) : json_null ());
                  json_array_append_new (hu, isfinite (r[2 * j + 1]) ? json_real (-r[2 * j + 1]) : json_null ());
                }
              json_array_append_new (h, json_pack ("{s:o, s:o}", "lower", hl, "upper", hu));
            }
          json_object_set_new (root, "history", h);
        }
      if (root == NULL)
        {
          fprintf (stderr, "certnn: bounds: out of memory\n");
          rc = CLI_FAIL;
          goto done;
        }
      json_dumpf (root, stdout, JSON_REAL_PRECISION (17));
      putchar ('\n');
      json_decref (root);
    }
  else
    for (int64_t j = 0; j < out.n; j++)
      {
        printf ("%lld ", (long long) j);
        cli_print_double (stdout, out.lo[j]);
        putchar (' ');
        cli_print_double (stdout, out.hi[j]);
        putchar ('\n');
      }
done:
  free (trace.history);
  free (x0);
  cn_analysis_free (an);
  cn_box_clear (&box);
  cn_box_clear (&out);
  cn_spec_clear (&spec);
  cn_graph_free (g);
  return rc;
}
