/* SPDX-License-Identifier: MIT */
/* src/cli/cmd_ops.c: `certnn ops`, the coverage report of the operator table (issue 4, item 6).
 *
 * Per family (in the order of cn_family), one row per operator of include/certnn/ops.def with the
 * seed's four columns, every cell computed from the operator's rule (cn_op_coverage_get):
 *   Rule      the sorts the forward computes in when the rule has one: "f64, f32" (the model's
 *             scalar in binary64 and binary32), "bool", "words" (integer words), joined by ", "
 *             (cn_op_coverage.sorts); "no forward" for a rule without one, "none" without a rule.
 *   CUDA      "yes" or "no" (the rule's cuda flag).
 *   Gradient  "pullback" and/or "forward mode" (the jvp arm), joined by "; " as in the seed's
 *             cells; "no value input" for a rule none of whose ports is a value port; "none".
 *   Bounds    "IBP" and/or "CROWN", then "; reference" when the rule has an MPFI arm (the
 *             enclosure the tests check IBP against); "none".
 * A closing line counts the operators with each capability, and a line compares those counts
 * with the seed's, read from a copy of the seed's table (data/seed-operators.tsv: a header and one
 * line per operator, tab-separated family, operator, rule, cuda, gradient, bounds).  The seed's
 * cells are counted as follows (substrings of the cell):
 *   rule      the cell is not "none";
 *   cuda      the cell is "yes" (an entry at every attribute), plus, reported apart, "at some
 *             attributes";
 *   pullback  the gradient cell does not begin with "no value input" (the seed has a pullback for
 *             every operator with a value input: "derivative", "algebraic", "no certificate");
 *   jvp       the gradient cell contains "forward mode" ("at some attributes" included);
 *   ibp       the bounds cell contains "IBP";  crown: it contains "CROWN".
 * Ours count the same way: rule = has a rule, pullback, jvp, ibp = has that arm, crown = has a CROWN
 * arm that relaxes (one that only takes the node's box is "box", not counted), cuda = the
 * flag.  The table is looked for at --seed FILE, else $CERTNN_DATA/seed-operators.tsv, else
 * CERTNN_DATADIR/seed-operators.tsv (the installed data, a compile-time macro), else
 * CERTNN_SRCDATADIR/seed-operators.tsv (the source tree's data folder, a compile-time macro).  When
 * none is readable the comparison line says "seed table not found" and the command still
 * succeeds. */
#include <config.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>
#include "cli/cli.h"

#define SEED_FILE "seed-operators.tsv"

/* ---- the seed's table ---------------------------------------------------------------------- */

enum { K_RULE, K_CUDA, K_PULLBACK, K_JVP, K_IBP, K_CROWN, K_FORWARD, K_CUDA_SOME, K_COUNT };

struct seed_row
{
  char *cell[4];                /* rule, cuda, gradient, bounds */
};

struct seed
{
  char path[4096];
  int found;
  int n;                        /* operators listed */
  int unknown;                  /* operators not in our table */
  int count[K_COUNT];
  struct seed_row row[CN_OP_COUNT];   /* by our operator number; cells NULL if not listed */
};

static void
seed_free (struct seed *s)
{
  for (int op = 0; op < CN_OP_COUNT; op++)
    for (int k = 0; k < 4; k++)
      free (s->row[op].cell[k]);
}

/* Splits LINE (its newline removed) at tabs into at most MAX fields; returns the count. */
static int
split_tabs (char *line, char **f, int max)
{
  int n = 0;
  line[strcspn (line, "\r\n")] = '\0';
  while (n < max)
    {
      f[n++] = line;
      char *t = strchr (line, '\t');
      if (t == NULL)
        break;
      *t = '\0';
      line = t + 1;
    }
  return n;
}

/* Reads the table at PATH into S; returns 0 if it cannot be opened or has no operator line. */
static int
seed_read (const char *path, struct seed *s)
{
  FILE *f = fopen (path, "r");
  if (f == NULL)
    return 0;
  char line[8192];
  int first = 1;
  while (fgets (line, sizeof line, f) != NULL)
    {
      char *fld[6];
      if (split_tabs (line, fld, 6) != 6)
        continue;
      if (first && strcmp (fld[1], "operator") == 0)
        {
          first = 0;
          continue;             /* the header */
        }
      first = 0;
      const char *rule = fld[2], *cuda = fld[3], *grad = fld[4], *bounds = fld[5];
      s->n++;
      s->count[K_RULE] += strcmp (rule, "none") != 0;
      s->count[K_CUDA] += strcmp (cuda, "yes") == 0;
      s->count[K_CUDA_SOME] += strcmp (cuda, "at some attributes") == 0;
      s->count[K_PULLBACK] += strncmp (grad, "no value input", 14) != 0;
      s->count[K_JVP] += strstr (grad, "forward mode") != NULL;
      s->count[K_IBP] += strstr (bounds, "IBP") != NULL;
      s->count[K_CROWN] += strstr (bounds, "CROWN") != NULL;
      cn_op op = cn_op_lookup (fld[1]);
      if (op == CN_OP_COUNT)
        {
          s->unknown++;
          continue;
        }
      for (int k = 0; k < 4; k++)
        {
          free (s->row[op].cell[k]);
          s->row[op].cell[k] = strdup (fld[2 + k]);
        }
    }
  fclose (f);
  snprintf (s->path, sizeof s->path, "%s", path);
  return s->n > 0;
}

/* Finds and reads the seed's table (see the header); S->found says whether one was read. */
static void
seed_load (const char *explicit_path, struct seed *s)
{
  memset (s, 0, sizeof *s);
  if (explicit_path != NULL)
    {
      s->found = seed_read (explicit_path, s);
      if (!s->found)
        snprintf (s->path, sizeof s->path, "%s", explicit_path);
      return;
    }
  const char *dirs[3] = { getenv ("CERTNN_DATA"), NULL, NULL };
#ifdef CERTNN_DATADIR
  dirs[1] = CERTNN_DATADIR;
#endif
#ifdef CERTNN_SRCDATADIR
  dirs[2] = CERTNN_SRCDATADIR;
#endif
  for (int i = 0; i < 3 && !s->found; i++)
    {
      if (dirs[i] == NULL || dirs[i][0] == '\0')
        continue;
      char path[4096];
      snprintf (path, sizeof path, "%s/%s", dirs[i], SEED_FILE);
      seed_free (s);
      memset (s, 0, sizeof *s);
      s->found = seed_read (path, s);
    }
}

/* ---- our cells ---------------------------------------------------------------------------- */

struct cells
{
  char rule[32], cuda[4], grad[48], bounds[40];
};

static void
cells_of (const cn_op_coverage *c, struct cells *o)
{
  snprintf (o->rule, sizeof o->rule, "%s", !c->rule ? "none" : c->forward ? c->sorts : "no forward");
  snprintf (o->cuda, sizeof o->cuda, "%s", c->cuda ? "yes" : "no");
  if (c->pullback || c->jvp)
    snprintf (o->grad, sizeof o->grad, "%s%s%s", c->pullback ? "pullback" : "", c->pullback && c->jvp ? "; " : "",
              c->jvp ? "forward mode" : "");
  else
    snprintf (o->grad, sizeof o->grad, "%s", c->rule && !c->value_input ? "no value input" : "none");
  if (c->ibp || c->crown || c->crown_box)
    snprintf (o->bounds, sizeof o->bounds, "%s%s%s%s%s", c->ibp ? "IBP" : "",
              c->ibp && (c->crown || c->crown_box) ? ", " : "", c->crown ? "CROWN" : c->crown_box ? "box" : "",
              c->alpha ? " (alpha)" : "", c->reference ? "; reference" : "");
  else
    snprintf (o->bounds, sizeof o->bounds, "%s", c->reference ? "reference" : "none");
}

/* Our counts, indexed as the seed's. */
static void
our_counts (int *count)
{
  memset (count, 0, K_COUNT * sizeof *count);
  for (int op = 0; op < CN_OP_COUNT; op++)
    {
      cn_op_coverage c;
      cn_op_coverage_get ((cn_op) op, &c);
      count[K_RULE] += c.rule;
      count[K_FORWARD] += c.forward;
      count[K_CUDA] += c.cuda;
      count[K_PULLBACK] += c.pullback;
      count[K_JVP] += c.jvp;
      count[K_IBP] += c.ibp;
      count[K_CROWN] += c.crown;
    }
}

static const char *const count_name[] = { "rule", "cuda", "pullback", "jvp", "ibp", "crown" };
#define N_COMPARED 6

/* The comparison line (no newline). */
static void
print_comparison (FILE *f, const int *ours, const struct seed *s)
{
  if (!s->found)
    {
      if (s->path[0] != '\0')
        fprintf (f, "seed table not found (%s is not a readable table)", s->path);
      else
        fprintf (f, "seed table not found (looked for %s in $CERTNN_DATA and the installed data)", SEED_FILE);
      return;
    }
  fprintf (f, "compared with the seed's %d operators (ours/seed):", s->n);
  for (int k = 0; k < N_COMPARED; k++)
    fprintf (f, " %s %d/%d%s", count_name[k], ours[k], s->count[k], k + 1 < N_COMPARED ? "," : "");
  if (s->count[K_CUDA_SOME] > 0)
    fprintf (f, " (seed cuda at some attributes: %d more)", s->count[K_CUDA_SOME]);
  if (s->unknown > 0)
    fprintf (f, " (%d seed operators not in our table)", s->unknown);
}

/* ---- output ------------------------------------------------------------------------------- */

static void
help (FILE *f)
{
  fprintf (f, "Usage: certnn ops [--json | --markdown] [--seed FILE]\n\n"
              "The coverage report of the operator table (include/certnn/ops.def): per family, one row per\n"
              "operator with the columns Rule, CUDA, Gradient and Bounds, every cell computed from the\n"
              "operator's rule:\n"
              "  Rule      the sorts the forward computes in: f64, f32 (the model's scalar in binary64 and\n"
              "            binary32), bool, words (integer words); or none\n"
              "  CUDA      yes or no\n"
              "  Gradient  pullback and/or forward mode (jvp); no value input; none\n"
              "  Bounds    IBP and/or CROWN (an arm that relaxes) or box (a CROWN arm that only takes the\n"
              "            node's own IBP box), ' (alpha)' where alpha-CROWN optimises its lines, '; reference'\n"
              "            with an MPFI reference arm; none\n"
              "A closing line counts the operators with each capability, and a line compares the counts\n"
              "with the seed's table (%s: --seed FILE, else $CERTNN_DATA/%s, else the installed copy);\n"
              "without one it says 'seed table not found'.  The seed's cells count as: rule = not 'none',\n"
              "cuda = 'yes', pullback = gradient not 'no value input', jvp = gradient mentions 'forward mode',\n"
              "ibp and crown = bounds mention 'IBP' and 'CROWN'.\n\n"
              "  --markdown  the same report as Markdown tables, one per family\n"
              "  --json      {\"operators\": [{\"name\", \"family\", \"rule\", \"forward\", \"pullback\", \"jvp\",\n"
              "              \"ibp\", \"crown\" (relaxes), \"crown_box\" (takes its box), \"alpha\", \"cuda\",\n"
              "              \"reference\", \"value_input\" (booleans),\n"
              "              \"outputs\" (the outputs' names: [\"values\", \"indices\"] for sort), \"cells\": {\"rule\",\n"
              "              \"cuda\", \"gradient\", \"bounds\"}, \"seed\": the seed's cells or null}, ...],\n"
              "              \"counts\": {...}, \"seed_counts\": {...} or null, \"seed_table\": path or null,\n"
              "              \"comparison\": the comparison line}\n"
              "  --seed FILE read the seed's table from FILE\n",
           SEED_FILE, SEED_FILE);
}

static int
print_json (const int *ours, const struct seed *s)
{
  json_t *ops = json_array ();
  for (int op = 0; op < CN_OP_COUNT; op++)
    {
      cn_op_coverage c;
      cn_op_coverage_get ((cn_op) op, &c);
      struct cells ce;
      cells_of (&c, &ce);
      const struct seed_row *sr = &s->row[op];
      json_t *seed = sr->cell[0] == NULL ? json_null ()
                                         : json_pack ("{s:s, s:s, s:s, s:s}", "rule", sr->cell[0], "cuda", sr->cell[1],
                                                      "gradient", sr->cell[2], "bounds", sr->cell[3]);
      /* the outputs' names (several for sort, topk, cummax, cummin, batchNorm), [] without a rule */
      json_t *outs = json_array ();
      for (int k = 0; k < cn_op_n_outputs ((cn_op) op); k++)
        json_array_append_new (outs, json_string (cn_op_output_name ((cn_op) op, k)));
      json_array_append_new (
          ops, json_pack ("{s:s, s:s, s:b, s:b, s:b, s:b, s:b, s:b, s:b, s:b, s:b, s:b, s:b, s:o, s:{s:s, s:s, s:s, s:s}, s:o}",
                          "name", cn_op_name ((cn_op) op), "family", cn_family_name (cn_op_family ((cn_op) op)), "rule",
                          c.rule, "forward", c.forward, "pullback", c.pullback, "jvp", c.jvp, "ibp", c.ibp, "crown",
                          c.crown, "crown_box", c.crown_box, "alpha", c.alpha, "cuda", c.cuda, "reference", c.reference, "value_input", c.value_input, "outputs", outs,
                          "cells", "rule",
                          ce.rule, "cuda", ce.cuda, "gradient", ce.grad, "bounds", ce.bounds, "seed", seed));
    }
  json_t *counts = json_pack ("{s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:i}", "operators", CN_OP_COUNT, "rule",
                              ours[K_RULE], "forward", ours[K_FORWARD], "cuda", ours[K_CUDA], "pullback",
                              ours[K_PULLBACK], "jvp", ours[K_JVP], "ibp", ours[K_IBP], "crown", ours[K_CROWN]);
  json_t *scounts = !s->found ? json_null ()
                              : json_pack ("{s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:i}", "operators", s->n, "rule",
                                           s->count[K_RULE], "cuda", s->count[K_CUDA], "cuda_some",
                                           s->count[K_CUDA_SOME], "pullback", s->count[K_PULLBACK], "jvp",
                                           s->count[K_JVP], "ibp", s->count[K_IBP], "crown", s->count[K_CROWN],
                                           "unknown", s->unknown);
  char line[1024];
  FILE *mf = fmemopen (line, sizeof line, "w");
  if (mf != NULL)
    {
      print_comparison (mf, ours, s);
      fclose (mf);
    }
  else
    line[0] = '\0';
  json_t *root = json_pack ("{s:o, s:o, s:o, s:o, s:s}", "operators", ops, "counts", counts, "seed_counts", scounts,
                            "seed_table", s->found ? json_string (s->path) : json_null (), "comparison", line);
  char *txt = root != NULL ? json_dumps (root, JSON_INDENT (1)) : NULL;
  if (txt == NULL)
    {
      json_decref (root);
      fprintf (stderr, "certnn ops: out of memory\n");
      return CLI_FAIL;
    }
  puts (txt);
  free (txt);
  json_decref (root);
  return CLI_OK;
}

static void
print_table (int markdown, const int *ours, const struct seed *s)
{
  if (markdown)
    printf ("# Operator coverage\n\n%d operators in %d families (include/certnn/ops.def); every cell is computed "
            "from the operator's rule.\n",
            CN_OP_COUNT, CN_FAMILY_COUNT);
  for (int fam = 0; fam < CN_FAMILY_COUNT; fam++)
    {
      int in_family = 0, with_rule = 0;
      for (int op = 0; op < CN_OP_COUNT; op++)
        if (cn_op_family ((cn_op) op) == (cn_family) fam)
          {
            cn_op_coverage c;
            cn_op_coverage_get ((cn_op) op, &c);
            in_family++;
            with_rule += c.rule;
          }
      if (in_family == 0)
        continue;
      if (markdown)
        printf ("\n## %s (%d operators, %d with a rule)\n\n| Operator | Rule | CUDA | Gradient | Bounds |\n"
                "|---|---|---|---|---|\n",
                cn_family_name ((cn_family) fam), in_family, with_rule);
      else
        printf ("%s%s (%d operators, %d with a rule)\n  %-26s %-21s %-4s %-24s %s\n", fam ? "\n" : "",
                cn_family_name ((cn_family) fam), in_family, with_rule, "operator", "Rule", "CUDA", "Gradient",
                "Bounds");
      for (int op = 0; op < CN_OP_COUNT; op++)
        {
          if (cn_op_family ((cn_op) op) != (cn_family) fam)
            continue;
          cn_op_coverage c;
          cn_op_coverage_get ((cn_op) op, &c);
          struct cells ce;
          cells_of (&c, &ce);
          if (markdown)
            printf ("| %s | %s | %s | %s | %s |\n", cn_op_name ((cn_op) op), ce.rule, ce.cuda, ce.grad, ce.bounds);
          else
            printf ("  %-26s %-21s %-4s %-24s %s\n", cn_op_name ((cn_op) op), ce.rule, ce.cuda, ce.grad, ce.bounds);
        }
    }
  printf ("\n%s%d operators: %d with a rule, %d forward, %d pullback, %d jvp, %d ibp, %d crown, %d cuda\n",
          markdown ? "**Counts.** " : "", CN_OP_COUNT, ours[K_RULE], ours[K_FORWARD], ours[K_PULLBACK], ours[K_JVP],
          ours[K_IBP], ours[K_CROWN], ours[K_CUDA]);
  if (markdown)
    {
      printf ("\n| | rule | cuda | pullback | jvp | ibp | crown |\n|---|---|---|---|---|---|---|\n| ours |");
      for (int k = 0; k < N_COMPARED; k++)
        printf (" %d |", ours[k]);
      if (s->found)
        {
          printf ("\n| seed |");
          for (int k = 0; k < N_COMPARED; k++)
            printf (" %d |", s->count[k]);
        }
      printf ("\n\n");
    }
  print_comparison (stdout, ours, s);
  printf ("\n");
}

int
cli_ops (int argc, char **argv)
{
  int json = 0, markdown = 0;
  const char *seed_path = NULL;
  for (int i = 1; i < argc; i++)
    {
      if (strcmp (argv[i], "--json") == 0)
        json = 1;
      else if (strcmp (argv[i], "--markdown") == 0)
        markdown = 1;
      else if (strcmp (argv[i], "--seed") == 0)
        {
          if (i + 1 >= argc)
            return cli_usage_error ("ops", "--seed needs a file (try certnn ops --help)");
          seed_path = argv[++i];
        }
      else if (strcmp (argv[i], "--help") == 0 || strcmp (argv[i], "-h") == 0)
        {
          help (stdout);
          return CLI_OK;
        }
      else
        return cli_usage_error ("ops", "unknown argument '%s' (try certnn ops --help)", argv[i]);
    }
  if (json && markdown)
    return cli_usage_error ("ops", "--json and --markdown exclude each other");
  struct seed *s = malloc (sizeof *s);
  if (s == NULL)
    {
      fprintf (stderr, "certnn ops: out of memory\n");
      return CLI_FAIL;
    }
  seed_load (seed_path, s);
  int ours[K_COUNT];
  our_counts (ours);
  int rc = CLI_OK;
  if (json)
    rc = print_json (ours, s);
  else
    print_table (markdown, ours, s);
  seed_free (s);
  free (s);
  return rc;
}
