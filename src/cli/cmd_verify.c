/* SPDX-License-Identifier: MIT */
/* src/cli/cmd_verify.c: `certnn verify`, deciding a VNN-LIB property with cn_verify
 * (certnn/verify.h: attacks, then input-splitting branch and bound with sound CROWN bounds;
 * a counterexample counts only after the exact MPFI check).  The command prints the verdict on
 * the first line of standard output (and of --output FILE), the counterexample after `sat` in
 * the VNN-COMP format, and progress on standard error when it is a terminal. */
#include <config.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cli/cli.h"
#include "certnn/reference.h"
#include "certnn/proof.h"


static void
help (FILE *f)
{
  fprintf (f, "Usage: certnn verify NET.onnx SPEC.vnnlib [--timeout S] [--output FILE]\n"
              "                     [--method crown|crown-ibp|ibp|alpha-crown] [--iterations N] [--lr X] [--alpha-memory MB]\n"
              "                     [--max-memory MB] [--semantics real|binary32] [--threads N] [--seed N]\n"
              "                     [--no-relu-split]\n"
              "                     [--no-beta] [--fsb K]\n"
              "                     [--relu-refine] [--no-clip] [--input-split-max N] [--certificate FILE] [--quiet]\n\n"
              "Decides whether some input of the property's input set makes its (unsafe) output condition true.\n"
              "The first line of standard output (and of FILE) is the verdict:\n"
              "  unsat    proved: no input satisfies the condition (sound bounds refuted every disjunct)\n"
              "  sat      a counterexample, checked by exact (MPFI, 256-bit) evaluation of the network and by its\n"
              "           binary32 evaluation (as VNN-COMP replays it, zero output tolerance), follows in the\n"
              "           VNN-COMP format ((X_0 v) ... (Y_0 v) ...)\n"
              "  unknown  neither could be shown (inputs too many to split, or a box too small to split)\n"
              "  timeout  the time limit (--timeout, default 60 s) was reached\n"
              "Never a wrong answer: when in doubt the verdict is unknown.  Progress goes to standard error when it\n"
              "is a terminal (not with --quiet).  --threads N bounds N domains in parallel (default: all cores);\n"
              "--seed N seeds the random attacks (default 1).  --max-memory MB: a working-memory budget (MiB): the\n"
              "queue of domains is kept within half of it (the search goes depth first past that), and an\n"
              "analysis whose estimate exceeds it is refused (exit 2) before it allocates.\n"
              "Method: random and PGD attacks, then branch and bound splitting the input box (a box of at most\n"
              "20 free axes, 64 for a network without relus; --input-split-max N: at most N, 0: never), worst\n"
              "domain first, bounded by the --method (default crown; alpha-crown optimises\n"
              "every domain's bounds, see certnn bounds --help), each domain's box clipped to the part where its\n"
              "linear bounds let the condition hold (--no-clip: not); past 16384 domains, crown escalates to\n"
              "alpha-crown with 3 sweeps per row.  A larger input of a network with relus is\n"
              "searched by splitting the signs of relu inputs instead, depth first, each domain bounded by CROWN\n"
              "over boxes clamped to its splits, then by alpha-beta-CROWN (a multiplier per split and the relus'\n"
              "slopes optimised, warm-started from the parent domain; --no-beta: CROWN only), a domain whose relus\n"
              "are all stable by an LP (GLPK; its multipliers re-evaluated soundly); intermediate boxes from the\n"
              "root's alpha-CROWN, inherited (--relu-refine: recomputed by CROWN in every domain); the relu split\n"
              "chosen by filtered smart branching among BaBSR's best K (--fsb K, default 4; 0: BaBSR's best);\n"
              "--no-relu-split: one bound per case.  Where the relu search leaves a leaf undecided before the\n"
              "limit, a box of at most 64 free axes goes on by input splitting.\n"
              "--certificate FILE writes a bound certificate of an unsat verdict (doc/CERTIFICATE.md), which\n"
              "certnn check-certificate re-checks independently in MPFI: the tree of input and relu splits\n"
              "and every refutation's CROWN bound (with its slopes and betas).  The search then runs as the\n"
              "file can record it: method crown or crown-ibp, no clipping, no escalation to alpha-crown, the\n"
              "relu search's root boxes by CROWN (not alpha-CROWN), no --relu-refine, no input splitting\n"
              "after a relu search (a case that needs it stays unknown); unsat is reported only once the\n"
              "file is complete, and for any other verdict the file is removed.\n"
              "--semantics real (default): the verdict is about the network in exact real arithmetic with its\n"
              "stored weights; binary32: about the network as deployed in binary32 (every input a binary32 word,\n"
              "every operator rounding to nearest in binary32 in any order of its sums, with or without fused\n"
              "multiply-adds): unsat then means no such evaluation violates the property, and sat needs a\n"
              "binary32 input at which every such evaluation violates it (a sound enclosure of all of them\n"
              "inside the unsafe set); an input where only some orders violate leaves the verdict unknown.  The\n"
              "summary on standard error names the semantics.  No --certificate under binary32 (yet).\n"
              "Exit status 0 with any verdict, 2 on bad input, 1 on an internal failure.\n");
}

static void
print_result (FILE *f, const cn_verify_result *r)
{
  fprintf (f, "%s\n", cn_verdict_name (r->verdict));
  if (r->verdict != CN_VERDICT_SAT)
    return;
  /* %.17g gives every double back exactly; the X are binary32 numbers */
  fputc ('(', f);
  for (int64_t j = 0; j < r->n_x; j++)
    fprintf (f, "(X_%lld %.17g)\n", (long long) j, r->x[j]);
  for (int64_t j = 0; j < r->n_y; j++)
    fprintf (f, "(Y_%lld %.17g)%s\n", (long long) j, r->y[j], j + 1 == r->n_y ? ")" : "");
}

static void
progress (const cn_verify_progress *p, void *user)
{
  (void) user;
  fprintf (stderr, "\rcertnn verify: case %lld/%lld, %lld domains bounded, %lld queued, worst margin %.3g, %.1f s   ",
           (long long) p->case_index + 1, (long long) p->n_cases, (long long) p->domains_done,
           (long long) p->domains_queued, p->worst_margin, p->elapsed);
}

int
cli_verify (int argc, char **argv)
{
  const char *net = NULL, *specp = NULL, *output = NULL, *certificate = NULL;
  char net_sha[65], spec_sha[65];
  FILE *cf = NULL;
  double timeout = 60;
  int quiet = 0;
  cn_verify_opts vo;
  cn_verify_opts_init (&vo);
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
        quiet = 1;
      else if (strcmp (argv[i], "--no-relu-split") == 0)
        vo.relu_split = 0;
      else if (strcmp (argv[i], "--no-beta") == 0)
        vo.beta = 0;
      else if (strcmp (argv[i], "--no-clip") == 0)
        vo.clip = 0;
      else if (strcmp (argv[i], "--relu-refine") == 0)
        vo.relu_refine = 1;
      else if (strcmp (argv[i], "--fsb") == 0 && i + 1 < argc)
        {
          char *end;
          errno = 0;
          long k = strtol (argv[++i], &end, 10);
          if (*end != '\0' || errno != 0 || argv[i][0] == '\0' || k < 0 || k > 64)
            return cli_usage_error ("verify", "--fsb must be an integer from 0 to 64, not '%s'", argv[i]);
          vo.fsb = (int) k;
        }
      else if (strcmp (argv[i], "--input-split-max") == 0 && i + 1 < argc)
        {
          char *end;
          errno = 0;
          long long k = strtoll (argv[++i], &end, 10);
          if (*end != '\0' || errno != 0 || argv[i][0] == '\0' || k < 0)
            return cli_usage_error ("verify", "--input-split-max must be a nonnegative integer, not '%s'", argv[i]);
          /* the library reads 0 as its default and a negative count as never */
          vo.input_split_max = k == 0 ? -1 : (int64_t) k;
        }
      else if (strcmp (argv[i], "--output") == 0 && i + 1 < argc)
        output = argv[++i];
      else if (strcmp (argv[i], "--certificate") == 0 && i + 1 < argc)
        certificate = argv[++i];
      else if (strcmp (argv[i], "--timeout") == 0 && i + 1 < argc)
        {
          char *end;
          timeout = strtod (argv[++i], &end);
          if (*end != '\0' || !(timeout > 0) || !isfinite (timeout))
            return cli_usage_error ("verify", "--timeout must be a number of seconds > 0, not '%s'", argv[i]);
        }
      else if (strcmp (argv[i], "--seed") == 0 && i + 1 < argc)
        {
          char *end;
          errno = 0;
          unsigned long long sd = strtoull (argv[++i], &end, 10);
          if (*end != '\0' || errno != 0 || argv[i][0] == '-' || argv[i][0] == '\0')
            return cli_usage_error ("verify", "--seed must be a nonnegative integer, not '%s'", argv[i]);
          vo.seed = (uint64_t) sd;
        }
      else if ((opt = cli_bounds_option ("verify", argc, argv, &i, &vo.bounds)) != 0)
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
  cn_graph *g = NULL;
  cn_spec spec;
  memset (&spec, 0, sizeof spec);
  cn_verify_result res;
  memset (&res, 0, sizeof res);
  int rc = CLI_OK;
  if (cli_load (net, specp, &g, &spec, &err) != CN_OK)
    return cli_fail (&err);
  /* the time limit counts from the start of the command, loading included */
  vo.timeout = timeout - (cli_now () - t0);
  if (!(vo.timeout > 0))
    vo.timeout = 1e-9;
  int show = !quiet && isatty (2);
  if (show)
    vo.progress = progress;
  if (certificate != NULL)
    {
      if (cn_sha256_file (net, net_sha, &err) != CN_OK || cn_sha256_file (specp, spec_sha, &err) != CN_OK)
        {
          rc = cli_fail (&err);
          goto done;
        }
      if ((cf = fopen (certificate, "w")) == NULL)
        {
          fprintf (stderr, "certnn verify: cannot write %s: %s\n", certificate, strerror (errno));
          rc = CLI_BAD_INPUT;
          goto done;
        }
      vo.certificate = cf;
      vo.network_sha256 = net_sha;
      vo.property_sha256 = spec_sha;
    }
  cn_status vs = cn_verify (g, &spec, &vo, &res, &err);
  if (cf != NULL)
    {
      /* the certificate is kept only when complete and of an unsat verdict */
      int closed = fclose (cf) == 0;
      cf = NULL;
      if (vs == CN_OK && res.verdict == CN_VERDICT_UNSAT && !closed)
        vs = cn_error_set (&err, CN_EIO, "verify: writing the certificate %s failed", certificate);
      if (vs != CN_OK || res.verdict != CN_VERDICT_UNSAT)
        {
          remove (certificate);
          if (vs == CN_OK && !quiet)
            fprintf (stderr, "certnn verify: no certificate written: the verdict is %s%s\n", cn_verdict_name (res.verdict),
                     res.uncertified > 0 ? " (a case would need input splitting after its relu search, which a "
                                                             "certificate cannot record)"
                                         : "");
        }
    }
  if (vs != CN_OK)
    {
      rc = cli_fail (&err);
      goto done;
    }
  if (show)
    fprintf (stderr, "\r%100s\r", "");
  print_result (stdout, &res);
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
      print_result (f, &res);
      if (fclose (f) != 0)
        {
          fprintf (stderr, "certnn verify: cannot write %s: %s\n", output, strerror (errno));
          rc = CLI_BAD_INPUT;
        }
    }
  if (!quiet)
    {
      fprintf (stderr, "certnn verify: %s (%s semantics) in %.2f s, %lld domains bounded, %lld attack points",
               cn_verdict_name (res.verdict), cn_semantics_name (vo.bounds.semantics), cli_now () - t0,
               (long long) res.domains, (long long) res.attack_points);
      if (res.binary32_rejected > 0)
        fprintf (stderr, ", %lld exact counterexamples rejected in binary32", (long long) res.binary32_rejected);
      if (res.filter_overruled > 0)
        fprintf (stderr, ", %lld candidates the binary64 filter rejected checked exactly",
                 (long long) res.filter_overruled);
      fprintf (stderr, "\n");
    }
done:
  if (cf != NULL)
    {
      fclose (cf);
      remove (certificate);
    }
  cn_verify_result_clear (&res);
  cn_spec_clear (&spec);
  cn_graph_free (g);
  return rc;
}
