/* SPDX-License-Identifier: MIT */
/* src/cli/util.c: helpers of the certnn command. */
#include <config.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
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
