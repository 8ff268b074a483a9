/* SPDX-License-Identifier: MIT */
/* src/cli/cmd_check.c: `certnn check`, the checks of an IR artifact (cn_artifact_check,
 * certnn/artifact.h), and `certnn export`, an ONNX network written as an artifact. */
#include <config.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>
#include "cli/cli.h"

/* The words listed per result in the text report (--json lists every one). */
#define TEXT_WORDS 20

static void
check_help (FILE *f)
{
  fprintf (f, "Usage: certnn check ARTIFACT [--checks LIST] [--json]\n\n"
              "Checks an IR artifact (doc/ARTIFACT.md: a typed program of registered operators, its arguments\n"
              "and reference outputs as exact words) and reports one finding per requested check, in order:\n"
              "  structure        known members, every node a registered operator reading only values defined\n"
              "                   before it, word strings of the right length\n"
              "  types            every node's record decoded and checked against the values it reads; the\n"
              "                   arguments and references of the program's sorts and shapes\n"
              "  execute          the program evaluated on the arguments (each operation rounded once to\n"
              "                   nearest in the program's binary32 or binary64)\n"
              "  compare          the results equal the references, two NaNs agreeing whatever their words\n"
              "  compare_bitwise  the results equal the references word for word\n"
              "--checks LIST (comma-separated; default structure,types,execute,compare) chooses them; an\n"
              "unknown name is reported unsupported, as is a check the artifact gives nothing to run on.\n"
              "Each finding: name, status (passed, failed, unsupported), message, and its scope: what passing\n"
              "establishes and what it does not (not a theorem about all inputs, not a proof of the\n"
              "translation, not a validation of external kernels).  A failed comparison lists per result the\n"
              "differing positions with the IR's and the reference's words (the first %d in text, all with\n"
              "--json).  The artifact's capture_constraints are reported as unchecked metadata.\n"
              "Exit status 0 when no finding failed, 1 when one did, 2 for an unreadable file, text that is\n"
              "not one JSON object, or bad usage.\n", TEXT_WORDS);
}

/* The word W of sort T in hexadecimal of the sort's width. */
static void
word_text (cn_dtype t, uint64_t w, char *buf, size_t n)
{
  snprintf (buf, n, "%0*llx", (int) (2 * cn_dtype_size (t)), (unsigned long long) w);
}

static int
read_file (const char *path, char **text, size_t *len, cn_error *err)
{
  FILE *f = fopen (path, "rb");
  if (f == NULL)
    return cn_error_set (err, CN_EIO, "%s: %s", path, strerror (errno));
  size_t cap = 1 << 16, n = 0;
  char *b = malloc (cap);
  while (b != NULL)
    {
      size_t r = fread (b + n, 1, cap - n, f);
      n += r;
      if (n < cap)
        break;
      char *nb = cap < ((size_t) 1 << 40) ? realloc (b, cap * 2) : NULL;
      if (nb == NULL)
        {
          free (b);
          b = NULL;
          break;
        }
      b = nb;
      cap *= 2;
    }
  int bad = ferror (f);
  fclose (f);
  if (b == NULL)
    return cn_error_set (err, CN_ENOMEM, "%s: out of memory", path);
  if (bad)
    {
      free (b);
      return cn_error_set (err, CN_EIO, "%s: read error", path);
    }
  *text = b;
  *len = n;
  return CN_OK;
}

static json_t *
report_json (const char *path, const cn_check_report *r)
{
  json_t *fs = json_array ();
  for (int i = 0; i < r->n_findings; i++)
    {
      const cn_finding *f = &r->findings[i];
      json_t *o = json_pack ("{s:s, s:s, s:s, s:s, s:s}", "name", f->name, "status", cn_finding_status_name (f->status),
                             "message", f->message, "establishes", f->establishes, "does_not_establish",
                             f->not_established);
      if (f->n_mismatch > 0)
        {
          json_t *ms = json_array ();
          for (int k = 0; k < f->n_mismatch; k++)
            {
              const cn_mismatch *m = &f->mismatch[k];
              json_t *el = json_array ();
              for (int64_t j = 0; j < m->n_diff; j++)
                {
                  char a[24], b[24];
                  word_text (m->dtype, m->ir_word[j], a, sizeof a);
                  word_text (m->dtype, m->ref_word[j], b, sizeof b);
                  json_array_append_new (el, json_pack ("{s:I, s:s, s:s}", "position", (json_int_t) m->pos[j], "ir", a,
                                                        "reference", b));
                }
              json_t *mj = json_pack ("{s:i, s:s, s:I, s:I, s:I, s:o}", m->node >= 0 ? "node_output" : "result",
                                      m->output, "sort", cn_dtype_name (m->dtype), "total", (json_int_t) m->total,
                                      "differing", (json_int_t) m->n_diff, "nan_words", (json_int_t) m->nan_words,
                                      "elements", el);
              if (m->node >= 0)
                json_object_set_new (mj, "node", json_integer (m->node));
              json_array_append_new (ms, mj);
            }
          json_object_set_new (o, "mismatches", ms);
          json_t *cw = json_array ();
          for (int k = 0; k < f->n_consistent_with; k++)
            json_array_append_new (cw, json_string (f->consistent_with[k]));
          json_object_set_new (o, "consistent_with", cw);
        }
      json_array_append_new (fs, o);
    }
  json_t *root = json_pack ("{s:s, s:o}", "artifact", path, "findings", fs);
  if (r->certnn != NULL)
    json_object_set_new (root, "certnn", json_string (r->certnn));
  if (r->producer != NULL)
    json_object_set_new (root, "reference_producer", json_string (r->producer));
  if (r->capture_constraints != NULL)
    {
      json_t *cc = json_loads (r->capture_constraints, JSON_DECODE_ANY, NULL);
      json_object_set_new (root, "capture_constraints", cc != NULL ? cc : json_null ());
      json_object_set_new (root, "capture_constraints_checked", json_false ());
    }
  return root;
}

static void
report_text (FILE *o, const char *path, const cn_check_report *r)
{
  fprintf (o, "certnn check: %s%s%s%s\n", path, r->certnn != NULL ? " (written by " : "", r->certnn ? r->certnn : "",
           r->certnn != NULL ? ")" : "");
  for (int i = 0; i < r->n_findings; i++)
    {
      const cn_finding *f = &r->findings[i];
      fprintf (o, "%-16s %-11s %s\n", f->name, cn_finding_status_name (f->status), f->message);
      for (int k = 0; k < f->n_mismatch; k++)
        {
          const cn_mismatch *m = &f->mismatch[k];
          if (m->node >= 0)
            fprintf (o, "    node %d output %d (%s): %lld of %lld elements differ, %lld NaN words\n", m->node, m->output,
                     cn_dtype_name (m->dtype), (long long) m->n_diff, (long long) m->total, (long long) m->nan_words);
          else
            fprintf (o, "    result %d (%s): %lld of %lld elements differ, %lld NaN words\n", m->output,
                     cn_dtype_name (m->dtype), (long long) m->n_diff, (long long) m->total, (long long) m->nan_words);
          for (int64_t j = 0; j < m->n_diff && j < TEXT_WORDS; j++)
            {
              char a[24], b[24];
              word_text (m->dtype, m->ir_word[j], a, sizeof a);
              word_text (m->dtype, m->ref_word[j], b, sizeof b);
              fprintf (o, "      position %lld: IR %s, reference %s\n", (long long) m->pos[j], a, b);
            }
          if (m->n_diff > TEXT_WORDS)
            fprintf (o, "      ... %lld more (--json lists all)\n", (long long) (m->n_diff - TEXT_WORDS));
        }
      fprintf (o, "    establishes: %s\n    does not establish: %s\n", f->establishes, f->not_established);
    }
  if (r->producer != NULL)
    fprintf (o, "reference outputs computed by: %s (as the artifact says; not checked)\n", r->producer);
  if (r->capture_constraints != NULL)
    fprintf (o, "capture_constraints (unchecked metadata): %s\n", r->capture_constraints);
}

int
cli_check (int argc, char **argv)
{
  const char *path = NULL, *list = NULL;
  int json = 0;
  for (int i = 1; i < argc; i++)
    {
      if (strcmp (argv[i], "--help") == 0 || strcmp (argv[i], "-h") == 0)
        {
          check_help (stdout);
          return CLI_OK;
        }
      else if (strcmp (argv[i], "--json") == 0)
        json = 1;
      else if (strcmp (argv[i], "--checks") == 0 && i + 1 < argc)
        list = argv[++i];
      else if (argv[i][0] == '-')
        return cli_usage_error ("check", "unknown option '%s' (try certnn check --help)", argv[i]);
      else if (path == NULL)
        path = argv[i];
      else
        return cli_usage_error ("check", "one ARTIFACT only, not also '%s'", argv[i]);
    }
  if (path == NULL)
    return cli_usage_error ("check", "need ARTIFACT (try certnn check --help)");
  /* the requested checks, split at commas (an empty name is a usage error) */
  const char *names[64];
  char *copy = NULL;
  int n = 0;
  if (list != NULL)
    {
      copy = strdup (list);
      if (copy == NULL)
        return cli_usage_error ("check", "out of memory");
      for (char *p = copy, *q; p != NULL; p = q)
        {
          q = strchr (p, ',');
          if (q != NULL)
            *q++ = '\0';
          if (*p == '\0' || n == 64)
            {
              free (copy);
              return cli_usage_error ("check", "--checks takes 1 to 64 comma-separated names, not '%s'", list);
            }
          names[n++] = p;
        }
    }
  cn_error err;
  cn_error_clear (&err);
  char *text = NULL;
  size_t len = 0;
  cn_check_report r;
  memset (&r, 0, sizeof r);
  int rc;
  if (read_file (path, &text, &len, &err) != CN_OK || cn_artifact_check (text, len, n, names, &r, &err) != CN_OK)
    rc = err.code == CN_ENOMEM ? cli_fail (&err) : cli_usage_error ("check", "%s", err.msg);
  else
    {
      if (json)
        {
          json_t *root = report_json (path, &r);
          json_dumpf (root, stdout, JSON_INDENT (1) | JSON_PRESERVE_ORDER);
          putchar ('\n');
          json_decref (root);
        }
      else
        report_text (stdout, path, &r);
      rc = CLI_OK;
      for (int i = 0; i < r.n_findings; i++)
        if (r.findings[i].status == CN_FINDING_FAILED)
          rc = CLI_FAIL;
    }
  cn_check_report_clear (&r);
  free (text);
  free (copy);
  return rc;
}

static void
export_help (FILE *f)
{
  fprintf (f, "Usage: certnn export NET.onnx -o ARTIFACT [--dtype f64|f32] [--input FILE [--reference FILE]]\n\n"
              "Writes the ONNX network as an IR artifact (doc/ARTIFACT.md) for certnn check: its program (the\n"
              "graph's operators as wire records, its constants as exact words), with the values of the model's\n"
              "scalar in --dtype (default f32; a constant f32 does not hold exactly is refused, naming it).\n"
              "--input FILE (whitespace-separated numbers: the network's inputs in order, each row-major)\n"
              "becomes the arguments; the reference outputs are then certnn's own evaluation in --dtype, or\n"
              "with --reference FILE (the outputs' numbers likewise, each exact in its sort) the values\n"
              "another engine computed.  Exit status 0, 2 bad input or usage, 1 an internal failure.\n");
}

/* Reads the numbers of PATH into N tensors of the shapes of the values VALUE (G, i), as f64. */
static cn_status
read_tensors (const char *path, const cn_graph *g, int n, int (*value) (const cn_graph *, int), cn_tensor *t,
              cn_error *err)
{
  double *x = NULL;
  int64_t got = 0, need = 0;
  cn_status st = cli_read_numbers (path, &x, &got, err);
  if (st != CN_OK)
    return st;
  for (int i = 0; i < n; i++)
    need += cn_shape_numel (cn_graph_value_shape (g, value (g, i)));
  if (got != need)
    {
      free (x);
      return cn_error_set (err, CN_ESHAPE, "%s holds %lld numbers; %d tensors of %lld elements are needed", path,
                           (long long) got, n, (long long) need);
    }
  int64_t off = 0;
  for (int i = 0; st == CN_OK && i < n; i++)
    {
      const cn_shape *s = cn_graph_value_shape (g, value (g, i));
      if ((st = cn_tensor_init (&t[i], CN_DTYPE_F64, s, err)) == CN_OK)
        {
          memcpy (t[i].data, x + off, (size_t) cn_shape_numel (s) * sizeof *x);
          off += cn_shape_numel (s);
        }
    }
  free (x);
  return st;
}

int
cli_export (int argc, char **argv)
{
  const char *net = NULL, *outp = NULL, *input = NULL, *refp = NULL;
  cn_dtype dtype = CN_DTYPE_F32;
  for (int i = 1; i < argc; i++)
    {
      if (strcmp (argv[i], "--help") == 0 || strcmp (argv[i], "-h") == 0)
        {
          export_help (stdout);
          return CLI_OK;
        }
      else if (strcmp (argv[i], "-o") == 0 && i + 1 < argc)
        outp = argv[++i];
      else if (strcmp (argv[i], "--input") == 0 && i + 1 < argc)
        input = argv[++i];
      else if (strcmp (argv[i], "--reference") == 0 && i + 1 < argc)
        refp = argv[++i];
      else if (strcmp (argv[i], "--dtype") == 0 && i + 1 < argc)
        {
          i++;
          if (strcmp (argv[i], "f64") == 0)
            dtype = CN_DTYPE_F64;
          else if (strcmp (argv[i], "f32") == 0)
            dtype = CN_DTYPE_F32;
          else
            return cli_usage_error ("export", "--dtype is f64 or f32, not '%s'", argv[i]);
        }
      else if (argv[i][0] == '-')
        return cli_usage_error ("export", "unknown option '%s' (try certnn export --help)", argv[i]);
      else if (net == NULL)
        net = argv[i];
      else
        return cli_usage_error ("export", "one NET.onnx only, not also '%s'", argv[i]);
    }
  if (net == NULL || outp == NULL)
    return cli_usage_error ("export", "need NET.onnx and -o ARTIFACT (try certnn export --help)");
  if (refp != NULL && input == NULL)
    return cli_usage_error ("export", "--reference needs --input (the arguments it was computed on)");
  cn_error err;
  cn_error_clear (&err);
  cn_graph *g = NULL;
  cn_tensor *args = NULL, *refs = NULL;
  char *text = NULL;
  int rc = CLI_OK, ni = 0, no = 0;
  char producer[512];
  snprintf (producer, sizeof producer, "supplied in %s", refp != NULL ? refp : "");
  /* any number of inputs and outputs (--input and --reference hold them one after the other) */
  if (cn_graph_load_onnx (net, &g, &err) != CN_OK)
    {
      rc = cli_fail (&err);
      goto done;
    }
  ni = cn_graph_n_inputs (g);
  no = cn_graph_n_outputs (g);
  args = calloc ((size_t) ni + 1, sizeof *args);
  refs = calloc ((size_t) no + 1, sizeof *refs);
  if (args == NULL || refs == NULL)
    {
      cn_error_set (&err, CN_ENOMEM, "export: out of memory");
      rc = cli_fail (&err);
      goto done;
    }
  if ((input != NULL && read_tensors (input, g, ni, cn_graph_input, args, &err) != CN_OK)
      || (refp != NULL && read_tensors (refp, g, no, cn_graph_output, refs, &err) != CN_OK)
      || cn_artifact_export (g, dtype, input != NULL ? args : NULL, refp != NULL ? refs : NULL,
                             producer, &text, &err) != CN_OK)
    {
      rc = cli_fail (&err);
      goto done;
    }
  FILE *f = fopen (outp, "w");
  int wbad = f == NULL || fputs (text, f) < 0 || fputc ('\n', f) < 0;
  if (f != NULL && fclose (f) != 0)
    wbad = 1;
  if (wbad)
    {
      cn_error_set (&err, CN_EIO, "export: %s: %s", outp, strerror (errno));
      rc = cli_fail (&err);
    }
done:
  for (int i = 0; args != NULL && i < ni; i++)
    cn_tensor_clear (&args[i]);
  for (int i = 0; refs != NULL && i < no; i++)
    cn_tensor_clear (&refs[i]);
  free (args);
  free (refs);
  free (text);
  cn_graph_free (g);
  return rc;
}
