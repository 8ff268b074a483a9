/* SPDX-License-Identifier: MIT */
/* src/cli/util.c: helpers of the certnn command. */
#include <config.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "cli/cli.h"

int
cli_fail (const cn_error *err)
{
  fprintf (stderr, "certnn: %s\n", err->msg[0] ? err->msg : cn_status_str (err->code));
  switch (err->code)
    {
    case CN_OK: return CLI_OK;
    case CN_ENOMEM: case CN_EUNSOUND: case CN_ELP: return CLI_FAIL;
    default: return CLI_BAD_INPUT;
    }
}

int
cli_usage_error (const char *cmd, const char *fmt, ...)
{
  va_list ap;
  fprintf (stderr, "certnn %s: ", cmd);
  va_start (ap, fmt);
  vfprintf (stderr, fmt, ap);
  va_end (ap);
  fprintf (stderr, "\n");
  return CLI_BAD_INPUT;
}

void
cli_print_double (FILE *f, double x)
{
  char buf[64];
  if (isnan (x)) { fputs ("nan", f); return; }
  if (isinf (x)) { fputs (x > 0 ? "inf" : "-inf", f); return; }
  for (int p = 1; p <= 17; p++)
    {
      snprintf (buf, sizeof buf, "%.*g", p, x);
      if (strtod (buf, NULL) == x)
        break;
    }
  fputs (buf, f);
}

cn_status
cli_read_numbers (const char *path, double **x, int64_t *n, cn_error *err)
{
  FILE *f = fopen (path, "r");
  if (f == NULL)
    return cn_error_set (err, CN_EIO, "%s: %s", path, strerror (errno));
  int64_t cap = 64, cnt = 0;
  double *v = malloc ((size_t) cap * sizeof *v);
  char tok[128];
  cn_status st = CN_OK;
  if (v == NULL)
    {
      fclose (f);
      return cn_error_set (err, CN_ENOMEM, "%s: out of memory", path);
    }
  while (fscanf (f, "%127s", tok) == 1)
    {
      char *end;
      errno = 0;
      double d = strtod (tok, &end);
      if (*end != '\0' || end == tok)
        {
          st = cn_error_set (err, CN_EPARSE, "%s: number %lld: '%s' is not a number", path, (long long) cnt + 1, tok);
          break;
        }
      if (cnt == cap)
        {
          double *nv = realloc (v, (size_t) (cap *= 2) * sizeof *nv);
          if (nv == NULL)
            {
              st = cn_error_set (err, CN_ENOMEM, "%s: out of memory", path);
              break;
            }
          v = nv;
        }
      v[cnt++] = d;
    }
  fclose (f);
  if (st != CN_OK)
    {
      free (v);
      return st;
    }
  *x = v;
  *n = cnt;
  return CN_OK;
}

double
cli_now (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (double) ts.tv_sec + 1e-9 * (double) ts.tv_nsec;
}

cn_status
cli_load (const char *net, const char *spec_path, cn_graph **g, cn_spec *spec, cn_error *err)
{
  cn_status st = cn_graph_load_onnx (net, g, err);
  if (st != CN_OK)
    return st;
  if (cn_graph_n_inputs (*g) != 1 || cn_graph_n_outputs (*g) < 1)
    {
      st = cn_error_set (err, CN_EUNSUPPORTED, "%s: the network has %d inputs and %d outputs; one input and at least one output are supported",
                         net, cn_graph_n_inputs (*g), cn_graph_n_outputs (*g));
      goto fail;
    }
  if (spec_path == NULL)
    return CN_OK;
  if ((st = cn_spec_load_vnnlib (spec_path, spec, err)) != CN_OK)
    goto fail;
  int64_t nx = cn_shape_numel (cn_graph_value_shape (*g, cn_graph_input (*g, 0)));
  int64_t ny = cn_shape_numel (cn_graph_value_shape (*g, cn_graph_output (*g, 0)));
  if (spec->n_x != nx || spec->n_y != ny)
    {
      st = cn_error_set (err, CN_ESHAPE, "%s declares %lld inputs and %lld outputs; the network %s has %lld and %lld",
                         spec_path, (long long) spec->n_x, (long long) spec->n_y, net, (long long) nx, (long long) ny);
      cn_spec_clear (spec);
      goto fail;
    }
  if (spec->n_cases < 1)
    {
      st = cn_error_set (err, CN_EPARSE, "%s: the property has no input box", spec_path);
      cn_spec_clear (spec);
      goto fail;
    }
  return CN_OK;
fail:
  cn_graph_free (*g);
  *g = NULL;
  return st;
}

int
cli_parse_int (const char *s, long lo, long hi, long *out)
{
  char *end;
  errno = 0;
  long t = strtol (s, &end, 10);
  if (*end != '\0' || end == s || errno != 0 || t < lo || t > hi)
    return 0;
  *out = t;
  return 1;
}

int
cli_bounds_option (const char *cmd, int argc, char **argv, int *i, cn_bounds_opts *o)
{
  if (strcmp (argv[*i], "--fix-intermediate") == 0)
    {
      o->alpha_intermediate = 0;
      return 1;
    }
  if (*i + 1 >= argc)
    return 0;
  if (strcmp (argv[*i], "--method") == 0)
    {
      cn_error err;
      cn_error_clear (&err);
      if (cn_method_lookup (argv[++*i], &o->method, &err) != CN_OK)
        return -cli_usage_error (cmd, "%s", err.msg);
      return 1;
    }
  if (strcmp (argv[*i], "--semantics") == 0)
    {
      cn_error err;
      cn_error_clear (&err);
      if (cn_semantics_lookup (argv[++*i], &o->semantics, &err) != CN_OK)
        return -cli_usage_error (cmd, "%s", err.msg);
      return 1;
    }
  /* the integer options: name, range, destination */
  const struct
  {
    const char *name;
    long lo, hi;
    int *dst;
  } ints[] = {
    { "--threads", 1, 1024, &o->threads },
    { "--iterations", 1, 100000, &o->iterations },
    { "--iterations-intermediate", 1, 100000, &o->iterations_intermediate },
  };
  for (size_t k = 0; k < sizeof ints / sizeof ints[0]; k++)
    if (strcmp (argv[*i], ints[k].name) == 0)
      {
        long t;
        if (!cli_parse_int (argv[++*i], ints[k].lo, ints[k].hi, &t))
          return -cli_usage_error (cmd, "%s must be an integer in %ld..%ld, not '%s'", ints[k].name, ints[k].lo,
                                   ints[k].hi, argv[*i]);
        *ints[k].dst = (int) t;
        return 1;
      }
  /* the positive real options, likewise */
  const struct
  {
    const char *name;
    double *dst;
  } reals[] = {
    { "--lr", &o->lr },
    { "--alpha-memory", &o->memory_mb },      /* MiB */
    { "--max-memory", &o->max_memory_mb },    /* MiB */
  };
  for (size_t k = 0; k < sizeof reals / sizeof reals[0]; k++)
    if (strcmp (argv[*i], reals[k].name) == 0)
      {
        char *end;
        double x = strtod (argv[++*i], &end);
        if (*end != '\0' || end == argv[*i] || !(x > 0) || isinf (x))
          return -cli_usage_error (cmd, "%s must be a finite number > 0, not '%s'", reals[k].name, argv[*i]);
        *reals[k].dst = x;
        return 1;
      }
  return 0;
}
