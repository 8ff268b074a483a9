/* SPDX-License-Identifier: MIT */
/* src/cli/cmd_ops.c: `certnn ops`, the operator table and what each operator supports. */
#include <config.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>
#include "cli/cli.h"

static void
help (FILE *f)
{
  fprintf (f, "Usage: certnn ops [--json]\n\n"
              "One row per operator of the table (include/certnn/ops.def): its name, its family, and whether\n"
              "it has a forward rule, a pullback, a forward mode (jvp), an IBP arm, a CROWN arm and a CUDA kernel.\n"
              "Every cell is read off the operator's rule; an operator without a rule shows 'no' everywhere.\n"
              "A closing line counts the operators with each capability.\n\n"
              "  --json   print {\"operators\": [{\"name\", \"family\", \"forward\", \"pullback\", \"jvp\", \"ibp\",\n"
              "           \"crown\", \"cuda\"}, ...]} with booleans\n");
}

int
cli_ops (int argc, char **argv)
{
  int json = 0;
  for (int i = 1; i < argc; i++)
    {
      if (strcmp (argv[i], "--json") == 0)
        json = 1;
      else if (strcmp (argv[i], "--help") == 0 || strcmp (argv[i], "-h") == 0)
        {
          help (stdout);
          return CLI_OK;
        }
      else
        return cli_usage_error ("ops", "unknown argument '%s' (try certnn ops --help)", argv[i]);
    }
  int count[7] = { 0 };
  if (json)
    {
      json_t *ops = json_array ();
      for (int op = 0; op < CN_OP_COUNT; op++)
        {
          cn_op_coverage c;
          cn_op_coverage_get ((cn_op) op, &c);
          json_array_append_new (ops, json_pack ("{s:s, s:s, s:b, s:b, s:b, s:b, s:b, s:b}", "name", cn_op_name ((cn_op) op),
                                                 "family", cn_family_name (cn_op_family ((cn_op) op)), "forward", c.forward,
                                                 "pullback", c.pullback, "jvp", c.jvp, "ibp", c.ibp, "crown", c.crown,
                                                 "cuda", c.cuda));
        }
      json_t *root = json_pack ("{s:o}", "operators", ops);
      char *s = json_dumps (root, JSON_INDENT (1));
      if (s == NULL)
        {
          json_decref (root);
          fprintf (stderr, "certnn ops: out of memory\n");
          return CLI_FAIL;
        }
      puts (s);
      free (s);
      json_decref (root);
      return CLI_OK;
    }
  printf ("%-26s %-15s %-8s %-9s %-4s %-4s %-6s %-4s\n", "operator", "family", "forward", "pullback", "jvp", "ibp",
          "crown", "cuda");
  for (int op = 0; op < CN_OP_COUNT; op++)
    {
      cn_op_coverage c;
      cn_op_coverage_get ((cn_op) op, &c);
      int cell[7] = { c.rule, c.forward, c.pullback, c.jvp, c.ibp, c.crown, c.cuda };
      for (int k = 0; k < 7; k++)
        count[k] += cell[k];
#define YN(x) ((x) ? "yes" : "no")
      printf ("%-26s %-15s %-8s %-9s %-4s %-4s %-6s %-4s\n", cn_op_name ((cn_op) op),
              cn_family_name (cn_op_family ((cn_op) op)), YN (c.forward), YN (c.pullback), YN (c.jvp), YN (c.ibp),
              YN (c.crown), YN (c.cuda));
#undef YN
    }
  printf ("\n%d operators: %d with a rule, %d forward, %d pullback, %d jvp, %d ibp, %d crown, %d cuda\n", CN_OP_COUNT,
          count[0], count[1], count[2], count[3], count[4], count[5], count[6]);
  return CLI_OK;
}
