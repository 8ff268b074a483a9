/* SPDX-License-Identifier: MIT */
/* src/cli/cmd_ops.c: `certnn ops`, the coverage report of the operator table (issue 4, item 6).
 *
 * Per family (in the order of cn_family), one row per operator of include/certnn/ops.def with the
 * seed's four columns, every cell computed from the operator's rule (cn_op_coverage_get):
 *   Rule      the sorts the forward computes in when the rule has one: "f64, f32" (the model's
 *             scalar in binary64 and binary32), "bool", "words" (integer words), joined by ", "
 *             (cn_op_coverage.sorts); "no forward" for a rule without one, "none" without a rule.
 *   CUDA      "yes" or "no" (the rule's cuda flag).
 *   Gradient  the seed's form: the kinds of the pullback's certificate records (grad_cell), then
 *             "forward mode" with the kinds of the jvp's; "no value input" for a rule none of
 *             whose ports is a value port; "none".
 *   Bounds    "checker, " when the rule has a checker step (certnn check-certificate), then "IBP"
 *             and/or "CROWN", then "; enclosure" when an enclosure record is declared.
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

enum { K_RULE, K_CUDA, K_PULLBACK, K_JVP, K_IBP, K_CROWN, K_CHECKER, K_FORWARD, K_CUDA_SOME, K_COUNT };

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
      s->count[K_CHECKER] += strstr (bounds, "checker") != NULL;
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
  char rule[32], cuda[4], grad[160], bounds[64];
};

/* The kinds of OP's records about arm ARM that concern input I (I < 0: any input), as a mask
 * (bit k: kind k). */
static unsigned
cert_kinds (cn_op op, cn_cert_arm arm, int i)
{
  unsigned m = 0;
  for (int k = 0; k < cn_op_n_certs (op); k++)
    {
      cn_cert_info ci;
      cn_error e;
      cn_error_clear (&e);
      if (cn_op_cert_get (op, k, &ci, &e) == CN_OK && ci.arm == arm && (i < 0 || (i < 32 && (ci.inputs >> i) & 1u)))
        m |= 1u << ci.kind;
    }
  return m;
}

/* "algebraic, derivative" for a kind mask; "no certificate" for 0. */
static void
kinds_text (unsigned m, char *buf, size_t size)
{
  size_t n = 0;
  buf[0] = '\0';
  for (int k = 0; k < CN_CERT_KIND_COUNT; k++)
    if ((m >> k) & 1u)
      n += (size_t) snprintf (buf + n, n < size ? size - n : 0, "%s%s", n ? ", " : "", cn_cert_kind_name ((cn_cert_kind) k));
  if (m == 0)
    snprintf (buf, size, "no certificate");
}

/* The Gradient cell in the seed's form: the kinds of the pullback's records per value input (one
 * group when every value input has the same kinds, else "input 0: ...; inputs 1 and 2: ..."),
 * then "forward mode" when the rule has a jvp, with the kinds of the jvp's records in
 * parentheses. */
static void
grad_cell (cn_op op, const cn_op_coverage *c, char *buf, size_t size)
{
  size_t n = 0;
  char kt[64];
  if (!c->rule)
    {
      snprintf (buf, size, "none");
      return;
    }
  if (c->pullback && c->value_input)
    {
      unsigned vmask = cn_op_value_inputs (op), km[32];
      int vin[32], nv = 0, groups = 0;
      for (int i = 0; i < 32 && vmask != ~0u; i++)
        if ((vmask >> i) & 1u)
          {
            vin[nv] = i;
            km[nv++] = cert_kinds (op, CN_CERT_ARM_PULLBACK, i);
          }
      if (nv == 0)   /* variadic: every input alike */
        {
          kinds_text (cert_kinds (op, CN_CERT_ARM_PULLBACK, -1), kt, sizeof kt);
          n += (size_t) snprintf (buf + n, size - n, "%s", kt);
        }
      else
        {
          int same = 1;
          for (int j = 1; j < nv; j++)
            same &= km[j] == km[0];
          for (int j = 0; j < nv && n < size;)
            {
              int e = j;
              while (e + 1 < nv && km[e + 1] == km[j])
                e++;
              kinds_text (km[j], kt, sizeof kt);
              if (same)
                n += (size_t) snprintf (buf + n, size - n, "%s", kt);
              else if (e == j)
                n += (size_t) snprintf (buf + n, size - n, "%sinput %d: %s", groups ? "; " : "", vin[j], kt);
              else
                {
                  n += (size_t) snprintf (buf + n, size - n, "%sinputs ", groups ? "; " : "");
                  for (int q = j; q <= e && n < size; q++)
                    n += (size_t) snprintf (buf + n, size - n, "%s%d", q == j ? "" : q == e ? " and " : ", ", vin[q]);
                  n += (size_t) snprintf (buf + n, n < size ? size - n : 0, ": %s", kt);
                }
              groups++;
              j = e + 1;
            }
        }
    }
  else
    {
      unsigned pm = cert_kinds (op, CN_CERT_ARM_PULLBACK, -1);   /* a convention about a non-value port */
      kinds_text (pm, kt, sizeof kt);
      n += (size_t) snprintf (buf + n, size - n, "%s%s%s%s", c->value_input ? "no pullback" : "no value input",
                              pm ? " (" : "", pm ? kt : "", pm ? ")" : "");
    }
  if (c->jvp && n < size)
    {
      unsigned jm = cert_kinds (op, CN_CERT_ARM_JVP, -1);
      kinds_text (jm, kt, sizeof kt);
      snprintf (buf + n, size - n, "; forward mode%s%s%s", jm ? " (" : "", jm ? kt : "", jm ? ")" : "");
    }
}

static void
cells_of (cn_op op, const cn_op_coverage *c, struct cells *o)
{
  snprintf (o->rule, sizeof o->rule, "%s", !c->rule ? "none" : c->forward ? c->sorts : "no forward");
  snprintf (o->cuda, sizeof o->cuda, "%s", c->cuda ? "yes" : "no");
  grad_cell (op, c, o->grad, sizeof o->grad);
  int enclosure = cert_kinds (op, CN_CERT_ARM_IBP, -1) != 0 || cert_kinds (op, CN_CERT_ARM_CROWN, -1) != 0;
  if (c->ibp || c->crown || c->crown_box)
    snprintf (o->bounds, sizeof o->bounds, "%s%s%s%s%s%s", c->checker ? "checker, " : "", c->ibp ? "IBP" : "",
              c->ibp && (c->crown || c->crown_box) ? ", " : "", c->crown ? "CROWN" : c->crown_box ? "box" : "",
              c->alpha ? " (alpha)" : "", enclosure ? "; enclosure" : "");
  else
    snprintf (o->bounds, sizeof o->bounds, "none");
}

/* The records per kind over the table, and the seed's registrations as its "Operator
 * Certificates" section states them (14 algebraic, 64 derivative, 1 convention, 0 prepared, 0
 * roundoff, 7 enclosure: a sentence of the seed, not a table this command can read). */
static const int seed_cert_counts[CN_CERT_KIND_COUNT] = { 14, 64, 1, 0, 0, 7 };

static void
cert_counts (int *count)
{
  memset (count, 0, CN_CERT_KIND_COUNT * sizeof *count);
  for (int op = 0; op < CN_OP_COUNT; op++)
    for (int k = 0; k < cn_op_n_certs ((cn_op) op); k++)
      {
        cn_cert_info ci;
        cn_error e;
        cn_error_clear (&e);
        if (cn_op_cert_get ((cn_op) op, k, &ci, &e) == CN_OK)
          count[ci.kind]++;
      }
}

static void
print_cert_counts (FILE *f, int markdown)
{
  int count[CN_CERT_KIND_COUNT];
  cert_counts (count);
  fprintf (f, "%scertificate records:", markdown ? "**Certificates.** " : "");
  for (int k = 0; k < CN_CERT_KIND_COUNT; k++)
    fprintf (f, "%s %d %s (seed %d)", k ? "," : "", count[k], cn_cert_kind_name ((cn_cert_kind) k), seed_cert_counts[k]);
  fprintf (f, "\n");
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
      count[K_CHECKER] += c.checker;
    }
}

static const char *const count_name[] = { "rule", "cuda", "pullback", "jvp", "ibp", "crown", "checker" };
#define N_COMPARED 7

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
              "  Gradient  in the seed's form: the kinds of the certificate records about the pullback\n"
              "            (algebraic, derivative, convention; 'no certificate'), per value input where they\n"
              "            differ ('input 0: ...; inputs 1 and 2: ...'), then '; forward mode' when the rule\n"
              "            has a jvp, with the kinds of the jvp's records in parentheses; 'no value input',\n"
              "            'no pullback'; none (certnn certs lists the records)\n"
              "  Bounds    'checker, ' where certnn check-certificate can re-derive bounds through the operator,\n"
              "            then IBP and/or CROWN (an arm that relaxes) or box (a CROWN arm that only takes the\n"
              "            node's own IBP box), ' (alpha)' where alpha-CROWN optimises its lines, '; enclosure'\n"
              "            when an enclosure record is declared; none\n"
              "A closing line counts the operators with each capability, a line compares the counts\n"
              "with the seed's table (%s: --seed FILE, else $CERTNN_DATA/%s, else the installed copy);\n"
              "without one it says 'seed table not found'.  The seed's cells count as: rule = not 'none',\n"
              "cuda = 'yes', pullback = gradient not 'no value input', jvp = gradient mentions 'forward mode',\n"
              "ibp, crown and checker = bounds mention 'IBP', 'CROWN' and 'checker'.  A last line counts the certificate\n"
              "records per kind against the registrations the seed's text states.\n\n"
              "  --markdown  the same report as Markdown tables, one per family\n"
              "  --json      {\"operators\": [{\"name\", \"family\", \"rule\", \"forward\", \"pullback\", \"jvp\",\n"
              "              \"ibp\", \"crown\" (relaxes), \"crown_box\" (takes its box), \"alpha\", \"cuda\",\n"
              "              \"reference\", \"checker\" (the certificate checker's step), \"value_input\" (booleans),\n"
              "              \"outputs\" (the outputs' names: [\"values\", \"indices\"] for sort), \"cells\": {\"rule\",\n"
              "              \"cuda\", \"gradient\", \"bounds\"}, \"seed\": the seed's cells or null}, ...],\n"
              "              \"counts\": {...}, \"seed_counts\": {...} or null, \"seed_table\": path or null,\n"
              "              \"comparison\": the comparison line, \"certificate_counts\" and\n"
              "              \"seed_certificate_counts\": {kind: count}}\n"
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
      cells_of ((cn_op) op, &c, &ce);
      const struct seed_row *sr = &s->row[op];
      json_t *seed = sr->cell[0] == NULL ? json_null ()
                                         : json_pack ("{s:s, s:s, s:s, s:s}", "rule", sr->cell[0], "cuda", sr->cell[1],
                                                      "gradient", sr->cell[2], "bounds", sr->cell[3]);
      /* the outputs' names (several for sort, topk, cummax, cummin, batchNorm), [] without a rule */
      json_t *outs = json_array ();
      for (int k = 0; k < cn_op_n_outputs ((cn_op) op); k++)
        json_array_append_new (outs, json_string (cn_op_output_name ((cn_op) op, k)));
      json_array_append_new (
          ops, json_pack ("{s:s, s:s, s:b, s:b, s:b, s:b, s:b, s:b, s:b, s:b, s:b, s:b, s:b, s:b, s:o, s:{s:s, s:s, s:s, s:s}, s:o}",
                          "name", cn_op_name ((cn_op) op), "family", cn_family_name (cn_op_family ((cn_op) op)), "rule",
                          c.rule, "forward", c.forward, "pullback", c.pullback, "jvp", c.jvp, "ibp", c.ibp, "crown",
                          c.crown, "crown_box", c.crown_box, "alpha", c.alpha, "cuda", c.cuda, "reference", c.reference, "checker", c.checker, "value_input", c.value_input, "outputs", outs,
                          "cells", "rule",
                          ce.rule, "cuda", ce.cuda, "gradient", ce.grad, "bounds", ce.bounds, "seed", seed));
    }
  json_t *counts = json_pack ("{s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:i}", "operators", CN_OP_COUNT, "rule",
                              ours[K_RULE], "forward", ours[K_FORWARD], "cuda", ours[K_CUDA], "pullback",
                              ours[K_PULLBACK], "jvp", ours[K_JVP], "ibp", ours[K_IBP], "crown", ours[K_CROWN],
                              "checker", ours[K_CHECKER]);
  json_t *scounts = !s->found ? json_null ()
                              : json_pack ("{s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:i}", "operators", s->n, "rule",
                                           s->count[K_RULE], "cuda", s->count[K_CUDA], "cuda_some",
                                           s->count[K_CUDA_SOME], "pullback", s->count[K_PULLBACK], "jvp",
                                           s->count[K_JVP], "ibp", s->count[K_IBP], "crown", s->count[K_CROWN],
                                           "checker", s->count[K_CHECKER], "unknown", s->unknown);
  char line[1024];
  FILE *mf = fmemopen (line, sizeof line, "w");
  if (mf != NULL)
    {
      print_comparison (mf, ours, s);
      fclose (mf);
    }
  else
    line[0] = '\0';
  int cc[CN_CERT_KIND_COUNT];
  cert_counts (cc);
  json_t *ccounts = json_object (), *sccounts = json_object ();
  for (int k = 0; k < CN_CERT_KIND_COUNT && ccounts != NULL && sccounts != NULL; k++)
    {
      json_object_set_new (ccounts, cn_cert_kind_name ((cn_cert_kind) k), json_integer (cc[k]));
      json_object_set_new (sccounts, cn_cert_kind_name ((cn_cert_kind) k), json_integer (seed_cert_counts[k]));
    }
  json_t *root = json_pack ("{s:o, s:o, s:o, s:o, s:s, s:o?, s:o?}", "operators", ops, "counts", counts, "seed_counts",
                            scounts, "seed_table", s->found ? json_string (s->path) : json_null (), "comparison", line,
                            "certificate_counts", ccounts, "seed_certificate_counts", sccounts);
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
        printf ("%s%s (%d operators, %d with a rule)\n  %-26s %-21s %-4s %-40s %s\n", fam ? "\n" : "",
                cn_family_name ((cn_family) fam), in_family, with_rule, "operator", "Rule", "CUDA", "Gradient",
                "Bounds");
      for (int op = 0; op < CN_OP_COUNT; op++)
        {
          if (cn_op_family ((cn_op) op) != (cn_family) fam)
            continue;
          cn_op_coverage c;
          cn_op_coverage_get ((cn_op) op, &c);
          struct cells ce;
          cells_of ((cn_op) op, &c, &ce);
          if (markdown)
            printf ("| %s | %s | %s | %s | %s |\n", cn_op_name ((cn_op) op), ce.rule, ce.cuda, ce.grad, ce.bounds);
          else
            printf ("  %-26s %-21s %-4s %-40s %s\n", cn_op_name ((cn_op) op), ce.rule, ce.cuda, ce.grad, ce.bounds);
        }
    }
  printf ("\n%s%d operators: %d with a rule, %d forward, %d pullback, %d jvp, %d ibp, %d crown, %d checker, %d cuda\n",
          markdown ? "**Counts.** " : "", CN_OP_COUNT, ours[K_RULE], ours[K_FORWARD], ours[K_PULLBACK], ours[K_JVP],
          ours[K_IBP], ours[K_CROWN], ours[K_CHECKER], ours[K_CUDA]);
  if (markdown)
    {
      printf ("\n| | rule | cuda | pullback | jvp | ibp | crown | checker |\n|---|---|---|---|---|---|---|---|\n| ours |");
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
  print_cert_counts (stdout, markdown);
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
