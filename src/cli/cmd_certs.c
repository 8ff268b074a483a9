/* SPDX-License-Identifier: MIT */
/* src/cli/cmd_certs.c: `certnn certs`, the operators' certificate records (certnn/ops.h).
 *
 * One line per record, in the order of include/certnn/ops.def and, within an operator, of its
 * declaration beside the rule: the operator and record name, the kind, the arm, the input
 * positions it concerns, and the statement.  --op NAME and --kind K select; --json and
 * --markdown change the form.  A record the table refuses (cn_op_cert_get fails) is reported
 * with the table's message and makes the command fail: a refused record is a defect of the
 * table, never a line to skip. */
#include <config.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>
#include "certnn/certs.h"
#include "cli/cli.h"

static void
help (FILE *f)
{
  fprintf (f, "Usage: certnn certs [--op NAME] [--kind KIND] [--check [--seed N] [--draws N]] [--json | --markdown]\n\n"
              "Lists the certificate records declared beside the operators' rules: per record the operator,\n"
              "its name, its kind, the arm it is about and the input positions it concerns (the others\n"
              "held fixed), and its statement.  The kinds (the seed's):\n"
              "  algebraic   the pullback is the adjoint of the forward-mode tangent map (no claim that the\n"
              "              map is a derivative)\n"
              "  derivative  the pullback (or the jvp) is the derivative of the exact forward where it is\n"
              "              differentiable\n"
              "  convention  a value fixed by convention where there is no derivative (a subgradient at a\n"
              "              kink, detach)\n"
              "  prepared    a prepared pullback returns the dense one (none declared)\n"
              "  roundoff    an error bound of a floating route (none declared)\n"
              "  enclosure   the IBP arm encloses the exact forward over its boxes, or the CROWN step's lines\n"
              "              bound it\n"
              "A record is a statement in C, not a proof.  --check runs each record's evidence on random\n"
              "instances of its operator (the seed printed; the same seed draws the same instances) and\n"
              "reports it as passed or FAILED, with what the evidence establishes and what it does not.\n"
              "Every kind with records has a runner: algebraic (the adjoint dot-product test, relative\n"
              "1e-12), derivative (against MPFR central differences of the exact forward, relative 1e-6),\n"
              "convention (the stated derivative at the stated point, exactly), enclosure (IBP boxes\n"
              "against the MPFI enclosure and exact values; one CROWN step against the exact function at\n"
              "sampled points, in MPFI).  Exit status 1 when a record fails its evidence.\n\n"
              "  --op NAME    only the records of operator NAME\n"
              "  --kind KIND  only the records of kind KIND\n"
              "  --check      run the evidence\n"
              "  --seed N     the generator's seed (default 1)\n"
              "  --draws N    instances per record (default 40)\n"
              "  --markdown   a Markdown table\n"
              "  --json       {\"records\": [{\"op\", \"name\", \"kind\", \"arm\", \"inputs\" (positions),\n"
              "               \"statement\", with --check \"check\": {\"verdict\": \"passed\", \"failed\" or \"no runner\",\n"
              "               \"checks\", \"redrawn\", \"worst\", \"detail\", \"establishes\", \"does_not\"}}, ...],\n"
              "               \"counts\": {kind: count}, \"seed\"}\n");
}

/* "0", "0, 1", ... or "all" for every input of a variadic rule. */
static void
inputs_text (unsigned m, char *buf, size_t size)
{
  size_t n = 0;
  buf[0] = '\0';
  if (m == ~0u)
    {
      snprintf (buf, size, "all");
      return;
    }
  for (int i = 0; i < 32; i++)
    if ((m >> i) & 1u)
      n += (size_t) snprintf (buf + n, n < size ? size - n : 0, "%s%d", n ? ", " : "", i);
}

int
cli_certs (int argc, char **argv)
{
  int json = 0, markdown = 0;
  const char *op_name = NULL;
  int kind = -1, check = 0;
  long long seed = 1, draws = 40;
  for (int i = 1; i < argc; i++)
    {
      if (strcmp (argv[i], "--check") == 0)
        check = 1;
      else if (strcmp (argv[i], "--seed") == 0 || strcmp (argv[i], "--draws") == 0)
        {
          char *end = NULL;
          int is_seed = argv[i][2] == 's';
          if (i + 1 >= argc)
            return cli_usage_error ("certs", "%s needs a number", argv[i]);
          long long v = strtoll (argv[++i], &end, 10);
          if (end == argv[i] || *end != '\0' || v < (is_seed ? 0 : 1) || v > (is_seed ? (long long) 1 << 62 : 100000))
            return cli_usage_error ("certs", "%s: '%s' is not a number in range (%s)", argv[i - 1], argv[i],
                                    is_seed ? "0 to 2^62" : "1 to 100000");
          if (is_seed)
            seed = v;
          else
            draws = v;
        }
      else if (strcmp (argv[i], "--json") == 0)
        json = 1;
      else if (strcmp (argv[i], "--markdown") == 0)
        markdown = 1;
      else if (strcmp (argv[i], "--op") == 0 || strcmp (argv[i], "--kind") == 0)
        {
          if (i + 1 >= argc)
            return cli_usage_error ("certs", "%s needs a value (try certnn certs --help)", argv[i]);
          if (argv[i][2] == 'o')
            op_name = argv[++i];
          else
            {
              const char *k = argv[++i];
              for (int q = 0; q < CN_CERT_KIND_COUNT; q++)
                if (strcmp (k, cn_cert_kind_name ((cn_cert_kind) q)) == 0)
                  kind = q;
              if (kind < 0)
                return cli_usage_error ("certs", "unknown kind '%s' (algebraic, derivative, convention, prepared, "
                                        "roundoff, enclosure)", k);
            }
        }
      else if (strcmp (argv[i], "--help") == 0 || strcmp (argv[i], "-h") == 0)
        {
          help (stdout);
          return CLI_OK;
        }
      else
        return cli_usage_error ("certs", "unknown argument '%s' (try certnn certs --help)", argv[i]);
    }
  if (json && markdown)
    return cli_usage_error ("certs", "--json and --markdown exclude each other");
  int first_op = 0, end_op = CN_OP_COUNT;
  if (op_name != NULL)
    {
      cn_op op = cn_op_lookup (op_name);
      if (op == CN_OP_COUNT)
        return cli_usage_error ("certs", "unknown operator '%s' (certnn ops lists them)", op_name);
      first_op = (int) op;
      end_op = first_op + 1;
    }
  json_t *records = json ? json_array () : NULL;
  int count[CN_CERT_KIND_COUNT] = { 0 }, refused = 0, listed = 0, n_pass = 0, n_fail = 0, n_none = 0;
  if (json && records == NULL)
    {
      fprintf (stderr, "certnn certs: out of memory\n");
      return CLI_FAIL;
    }
  if (check && !json)
    printf ("%sevidence with seed %lld, %lld draws per record\n\n", markdown ? "**Check.** " : "", seed, draws);
  if (markdown)
    printf ("| Record | Kind | Arm | Inputs | Statement%s |\n|---|---|---|---|---|%s\n", check ? " | Evidence" : "",
            check ? "---|" : "");
  for (int op = first_op; op < end_op; op++)
    for (int k = 0; k < cn_op_n_certs ((cn_op) op); k++)
      {
        cn_cert_info ci;
        cn_error err;
        cn_error_clear (&err);
        if (cn_op_cert_get ((cn_op) op, k, &ci, &err) != CN_OK)
          {
            fprintf (stderr, "certnn certs: the table refuses a record: %s\n", err.msg);
            refused++;
            continue;
          }
        if (kind >= 0 && (int) ci.kind != kind)
          continue;
        count[ci.kind]++;
        listed++;
        char in[128];
        inputs_text (ci.inputs, in, sizeof in);
        const char *on = cn_op_name ((cn_op) op), *kn = cn_cert_kind_name (ci.kind), *an = cn_cert_arm_name (ci.arm);
        /* the evidence, when asked */
        cn_cert_result cr;
        const char *verdict = NULL, *est = NULL, *dn = NULL;
        char ev[800];
        ev[0] = '\0';
        if (check)
          {
            cn_error_clear (&err);
            cn_status cs = cn_op_cert_check ((cn_op) op, k, (uint64_t) seed, (int) draws, &cr, &err);
            if (cs == CN_ENOMEM)
              {
                json_decref (records);
                fprintf (stderr, "certnn certs: %s\n", err.msg);
                return CLI_FAIL;
              }
            if (cs != CN_OK)
              {
                verdict = "no runner";
                n_none++;
                snprintf (ev, sizeof ev, "no runner: %s", err.msg);
              }
            else
              {
                verdict = cr.passed ? "passed" : "failed";
                est = cn_cert_scope (ci.kind, ci.arm, &dn);
                if (cr.passed)
                  n_pass++;
                else
                  n_fail++;
                snprintf (ev, sizeof ev, "%s: %s%s%s%s%s", cr.passed ? "passed" : "FAILED", cr.detail,
                          cr.passed && est ? "; establishes: " : "", cr.passed && est ? est : "",
                          cr.passed && dn ? "; does not establish: " : "", cr.passed && dn ? dn : "");
              }
          }
        if (json)
          {
            json_t *pos = json_array ();
            for (int i = 0; i < 32 && pos != NULL; i++)
              if ((ci.inputs >> i) & 1u)
                json_array_append_new (pos, json_integer (i));
            json_t *chk = NULL;
            if (check)
              chk = verdict[0] == 'n' ? json_pack ("{s:s, s:s}", "verdict", verdict, "detail", ev)
                    : json_pack ("{s:s, s:I, s:I, s:f, s:s, s:s?, s:s?}", "verdict", verdict, "checks",
                                 (json_int_t) cr.checks, "redrawn", (json_int_t) cr.redrawn, "worst", cr.worst,
                                 "detail", cr.detail, "establishes", est, "does_not", dn);
            json_t *rec = json_pack ("{s:s, s:s, s:s, s:s, s:o?, s:s, s:o?}", "op", on, "name", ci.name, "kind", kn,
                                     "arm", an, "inputs", pos, "statement", ci.statement, "check", chk);
            if (rec == NULL || json_array_append_new (records, rec) != 0)
              {
                json_decref (records);
                fprintf (stderr, "certnn certs: out of memory\n");
                return CLI_FAIL;
              }
          }
        else if (markdown)
          printf ("| %s.%s | %s | %s | %s | %s |%s%s%s\n", on, ci.name, kn, an, in, ci.statement, check ? " " : "", ev,
                  check ? " |" : "");
        else if (check)
          printf ("%s.%s\t%s\t%s\t%s\n", on, ci.name, kn, an, ev);
        else
          printf ("%s.%s\t%s\t%s\tinputs %s\t%s\n", on, ci.name, kn, an, in, ci.statement);
      }
  if (json)
    {
      json_t *counts = json_object ();
      for (int k = 0; k < CN_CERT_KIND_COUNT && counts != NULL; k++)
        json_object_set_new (counts, cn_cert_kind_name ((cn_cert_kind) k), json_integer (count[k]));
      json_t *root = json_pack ("{s:o, s:o?, s:I}", "records", records, "counts", counts, "seed", (json_int_t) seed);
      char *txt = root != NULL ? json_dumps (root, JSON_INDENT (1)) : NULL;
      json_decref (root);
      if (txt == NULL)
        {
          fprintf (stderr, "certnn certs: out of memory\n");
          return CLI_FAIL;
        }
      puts (txt);
      free (txt);
    }
  else
    {
      printf ("%s%d records:", markdown ? "\n**Counts.** " : "\n", listed);
      for (int k = 0; k < CN_CERT_KIND_COUNT; k++)
        printf ("%s %d %s", k ? "," : "", count[k], cn_cert_kind_name ((cn_cert_kind) k));
      printf ("\n");
      if (check)
        printf ("evidence: %d passed, %d FAILED, %d without a runner (seed %lld)\n", n_pass, n_fail, n_none, seed);
    }
  return refused || n_fail ? CLI_FAIL : CLI_OK;
}
