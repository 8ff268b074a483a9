/* SPDX-License-Identifier: MIT */
/* src/cli/cmd_proof.c: `certnn check-certificate`, re-checking a bound certificate written by
 * `certnn verify --certificate` with cn_proof_check (certnn/proof.h): the tree of input splits
 * covers every case's box, every leaf has every clause refuted, and every refutation's bound
 * holds when re-derived in MPFI. */
#include <config.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "cli/cli.h"

static void
help (FILE *f)
{
  fprintf (f, "Usage: certnn check-certificate NET.onnx SPEC.vnnlib CERTIFICATE [--threads N] [--precision BITS]\n"
              "                                [--quiet]\n\n"
              "Re-checks a bound certificate written by certnn verify --certificate, independently of the\n"
              "search that wrote it: the certificate must name NET and SPEC by their SHA-256; per case of the\n"
              "property its tree of input splits must cover the case's box (one root, every inner node split\n"
              "in two halves at a point strictly inside its box); at every leaf every clause must be refuted\n"
              "there or above; and every refutation's CROWN bound is re-derived over its box in MPFI interval\n"
              "arithmetic (intermediate boxes by the operators' MPFI arms and CROWN sweeps through their\n"
              "checker steps, none of the fast path's code), which must imply the claimed linear bound, the\n"
              "claimed bound, and a bound above the clause's right-hand sides.\n"
              "The first line of standard output is 'accepted' or 'rejected: REASON' (naming the line or the\n"
              "node and what failed); a summary (nodes, leaves, refutations, seconds) goes to standard error\n"
              "unless --quiet.  --threads N checks N nodes in parallel (default: all cores); --precision BITS\n"
              "sets the intervals' precision (default 64, at least 53).\n"
              "Exit status 0 accepted, 1 rejected, 2 bad input or usage (an operator without a checker step\n"
              "is named), 1 an internal failure.\n");
}

int
cli_check_certificate (int argc, char **argv)
{
  const char *net = NULL, *specp = NULL, *certp = NULL;
  int quiet = 0;
  cn_proof_opts po;
  cn_proof_opts_init (&po);
  for (int i = 1; i < argc; i++)
    {
      long k;
      if (strcmp (argv[i], "--help") == 0 || strcmp (argv[i], "-h") == 0)
        {
          help (stdout);
          return CLI_OK;
        }
      else if (strcmp (argv[i], "--quiet") == 0)
        quiet = 1;
      else if (strcmp (argv[i], "--threads") == 0 && i + 1 < argc)
        {
          if (!cli_parse_int (argv[++i], 1, 4096, &k))
            return cli_usage_error ("check-certificate", "--threads must be an integer from 1 to 4096, not '%s'",
                                    argv[i]);
          po.threads = (int) k;
        }
      else if (strcmp (argv[i], "--precision") == 0 && i + 1 < argc)
        {
          if (!cli_parse_int (argv[++i], 53, 4096, &k))
            return cli_usage_error ("check-certificate", "--precision must be an integer from 53 to 4096, not '%s'",
                                    argv[i]);
          po.precision = k;
        }
      else if (argv[i][0] == '-' && argv[i][1] != '\0')
        return cli_usage_error ("check-certificate", "unknown or incomplete option '%s' (try certnn check-certificate "
                                "--help)", argv[i]);
      else if (net == NULL)
        net = argv[i];
      else if (specp == NULL)
        specp = argv[i];
      else if (certp == NULL)
        certp = argv[i];
      else
        return cli_usage_error ("check-certificate", "unexpected argument '%s'", argv[i]);
    }
  if (certp == NULL)
    return cli_usage_error ("check-certificate", "need NET.onnx, SPEC.vnnlib and CERTIFICATE (try certnn "
                            "check-certificate --help)");
  cn_error err;
  cn_error_clear (&err);
  char net_sha[65], spec_sha[65];
  if (cn_sha256_file (net, net_sha, &err) != CN_OK || cn_sha256_file (specp, spec_sha, &err) != CN_OK)
    return cli_fail (&err);
  FILE *f = fopen (certp, "r");
  if (f == NULL)
    {
      fprintf (stderr, "certnn check-certificate: cannot read %s: %s\n", certp, strerror (errno));
      return CLI_BAD_INPUT;
    }
  cn_graph *g = NULL;
  cn_spec spec;
  memset (&spec, 0, sizeof spec);
  if (cli_load (net, specp, &g, &spec, &err) != CN_OK)
    {
      fclose (f);
      return cli_fail (&err);
    }
  cn_proof_result res;
  cn_status st = cn_proof_check (g, &spec, net_sha, spec_sha, f, &po, &res, &err);
  fclose (f);
  int rc;
  if (st != CN_OK)
    rc = cli_fail (&err);
  else
    {
      if (res.accepted)
        printf ("accepted\n");
      else
        printf ("rejected: %s\n", res.reason);
      fflush (stdout);
      if (!quiet)
        fprintf (stderr, "certnn check-certificate: %s, %lld nodes, %lld leaves, %lld refutations, %.2f s\n",
                 res.accepted ? "accepted" : "rejected", (long long) res.nodes, (long long) res.leaves,
                 (long long) res.refutations, res.seconds);
      rc = res.accepted ? CLI_OK : CLI_FAIL;
    }
  cn_spec_clear (&spec);
  cn_graph_free (g);
  return rc;
}
