/* SPDX-License-Identifier: MIT */
/* src/proof/format.c: the certificate format's writers (certnn/proof.h, doc/CERTIFICATE.md), and
 * the digests that name a certificate's network and property.  Floating numbers go out in C99
 * hexadecimal (%a), which strtod reads back exactly. */
#include <config.h>
#include <errno.h>
#include <math.h>
#include <string.h>
#include "certnn/ops.h"
#include <stdlib.h>
#include "core/sha256.h"
#include "graph/graph_impl.h"
#include "proof/proof_impl.h"

static const char *const slope_names[] = { [CN_SLOPE_ADAPTIVE] = "adaptive", [CN_SLOPE_ZERO] = "zero",
                                           [CN_SLOPE_ONE] = "one", [CN_SLOPE_RATIO] = "ratio" };

const char *
cn__proof_slope_name (int slope)
{
  return slope >= 0 && slope < (int) (sizeof slope_names / sizeof slope_names[0]) ? slope_names[slope] : NULL;
}

int
cn__proof_slope_lookup (const char *name)
{
  for (int s = 0; s < (int) (sizeof slope_names / sizeof slope_names[0]); s++)
    if (strcmp (name, slope_names[s]) == 0)
      return s;
  return -1;
}

int
cn__proof_write_header (FILE *f, const char *network_sha256, const char *property_sha256, const char *method,
                        int slope, int64_t n_x, int64_t n_y, int64_t n_cases)
{
  const char *sn = cn__proof_slope_name (slope);
  if (sn == NULL)
    return -1;
  return fprintf (f, "certnn-certificate %d\nnetwork sha256 %s\nproperty sha256 %s\nbounds %s slope %s\n"
                     "semantics real\nshape inputs %lld outputs %lld cases %lld\n",
                  CN_PROOF_VERSION, network_sha256, property_sha256, method, sn, (long long) n_x, (long long) n_y,
                  (long long) n_cases) < 0 ? -1 : 0;
}

int
cn__proof_write_node (FILE *f, int64_t kase, int64_t id, int64_t parent, int64_t axis, double mid, int side)
{
  if (parent < 0)
    return fprintf (f, "node %lld %lld root\n", (long long) kase, (long long) id) < 0 ? -1 : 0;
  return fprintf (f, "node %lld %lld %lld %lld %a %s\n", (long long) kase, (long long) id, (long long) parent,
                  (long long) axis, mid, side ? "above" : "below") < 0 ? -1 : 0;
}

int
cn__proof_write_refute (FILE *f, int64_t clause, const int64_t *rows, int64_t nrows, int slope, double lower,
                        double c, const double *a, int64_t n)
{
  const char *sn = cn__proof_slope_name (slope);
  if (sn == NULL || nrows < 1 || fprintf (f, "refute %lld ", (long long) clause) < 0)
    return -1;
  for (int64_t r = 0; r < nrows; r++)
    if (fprintf (f, r ? ",%lld" : "%lld", (long long) rows[r]) < 0)
      return -1;
  if (fprintf (f, " %s %a %a", sn, lower, c) < 0)
    return -1;
  for (int64_t i = 0; i < n; i++)
    if (fprintf (f, " %a", a[i]) < 0)
      return -1;
  return fputc ('\n', f) == EOF ? -1 : 0;
}

int
cn__proof_write_end (FILE *f, int64_t nodes, int64_t refutations)
{
  if (fprintf (f, "end %lld %lld\n", (long long) nodes, (long long) refutations) < 0)
    return -1;
  return fflush (f) == 0 && !ferror (f) ? 0 : -1;
}

int
cn__proof_write_node_split (FILE *f, int64_t kase, int64_t id, int64_t parent, int q, int64_t j, int sign)
{
  return fprintf (f, "node %lld %lld %lld split %d %lld %c\n", (long long) kase, (long long) id, (long long) parent,
                  q, (long long) j, sign > 0 ? '+' : '-') < 0 ? -1 : 0;
}

int
cn__proof_write_node_restart (FILE *f, int64_t kase, int64_t id, int64_t parent)
{
  return fprintf (f, "node %lld %lld %lld restart\n", (long long) kase, (long long) id, (long long) parent) < 0 ? -1
                                                                                                                 : 0;
}

int
cn__proof_write_empty (FILE *f)
{
  return fputs ("empty\n", f) == EOF ? -1 : 0;
}

int
cn__proof_write_alpha (FILE *f, int r, const double *alpha, int64_t n)
{
  if (fprintf (f, "alpha %d", r) < 0)
    return -1;
  for (int64_t j = 0; j < n; j++)
    if ((isnan (alpha[j]) ? fputs (" .", f) : fprintf (f, " %a", alpha[j])) < 0)
      return -1;
  return fputc ('\n', f) == EOF ? -1 : 0;
}

int
cn__proof_write_beta (FILE *f, const double *beta, int64_t nb)
{
  if (fputs ("beta", f) == EOF)
    return -1;
  for (int64_t q = 0; q < nb; q++)
    if (fprintf (f, " %a", beta[q]) < 0)
      return -1;
  return fputc ('\n', f) == EOF ? -1 : 0;
}

int
cn__proof_relus (const cn_graph *g, int **list, int *n)
{
  *list = NULL;
  *n = 0;
  unsigned char *needed = calloc ((size_t) g->n_values + 1, 1);
  if (needed == NULL)
    return -1;
  if (g->n_outputs > 0)
    cn__graph_mark_needed (g, g->outputs[0], needed);
  int cnt = 0;
  for (int pass = 0; pass < 2; pass++)
    {
      cnt = 0;
      for (int k = 0; k < g->n_nodes; k++)
        if (g->nodes[k].op == CN_OP_RELU && cn__node_any_out (&g->nodes[k], needed))
          {
            if (pass == 1)
              (*list)[cnt] = k;
            cnt++;
          }
      if (pass == 0 && cnt > 0 && (*list = malloc ((size_t) cnt * sizeof **list)) == NULL)
        {
          free (needed);
          return -1;
        }
      if (cnt == 0)
        break;
    }
  free (needed);
  *n = cnt;
  return 0;
}

int
cn__proof_write_box (FILE *f, int k, const double *lo, const double *hi, int64_t n)
{
  if (fprintf (f, "box %d", k) < 0)
    return -1;
  /* relu's relaxation of an entry with hi <= 0 or lo >= 0 depends on that sign alone: '-', '+' */
  for (int64_t j = 0; j < n; j++)
    if ((hi[j] <= 0 ? fputs (" -", f) : lo[j] >= 0 ? fputs (" +", f) : fprintf (f, " %a,%a", lo[j], hi[j])) < 0)
      return -1;
  return fputc ('\n', f) == EOF ? -1 : 0;
}

int
cn__proof_relaxed_values (const cn_graph *g, int **list, int *n)
{
  *list = NULL;
  *n = 0;
  int nv = g->n_values;
  unsigned char *needed = calloc ((size_t) nv + 1, 1), *relaxed = calloc ((size_t) nv + 1, 1);
  if (needed == NULL || relaxed == NULL)
    {
      free (needed);
      free (relaxed);
      return -1;
    }
  if (g->n_outputs > 0)
    cn__graph_mark_needed (g, g->outputs[0], needed);
  for (int k = 0; k < g->n_nodes; k++)
    {
      const struct cn__node *nd = &g->nodes[k];
      if (!cn__node_any_out (nd, needed) || !cn__node_reads_boxes (g, nd, CN_RULE_NEEDS_BOUNDS))
        continue;
      for (int i = 0; i < nd->n_in; i++)
        if (!g->values[nd->in[i]].is_constant)
          relaxed[nd->in[i]] = 1;
    }
  int cnt = 0;
  for (int v = 0; v < nv; v++)
    cnt += relaxed[v];
  if (cnt > 0 && (*list = malloc ((size_t) cnt * sizeof **list)) == NULL)
    cnt = -1;
  for (int v = 0, q = 0; cnt > 0 && v < nv; v++)
    if (relaxed[v])
      (*list)[q++] = v;
  free (needed);
  free (relaxed);
  if (cnt < 0)
    return -1;
  *n = cnt;
  return 0;
}

void
cn_sha256_hex (const void *data, size_t n, char hex[65])
{
  cn__sha256_hex (data, n, hex);
}

cn_status
cn_sha256_file (const char *path, char hex[65], cn_error *err)
{
  FILE *f = fopen (path, "rb");
  if (f == NULL)
    return cn_error_set (err, CN_EIO, "%s: %s", path, strerror (errno));
  cn__sha256 s;
  cn__sha256_init (&s);
  unsigned char buf[65536];
  size_t got;
  while ((got = fread (buf, 1, sizeof buf, f)) > 0)
    cn__sha256_update (&s, buf, got);
  int bad = ferror (f);
  fclose (f);
  if (bad)
    return cn_error_set (err, CN_EIO, "%s: read error", path);
  unsigned char d[32];
  cn__sha256_final (&s, d);
  static const char digits[] = "0123456789abcdef";
  for (int i = 0; i < 32; i++)
    {
      hex[2 * i] = digits[d[i] >> 4];
      hex[2 * i + 1] = digits[d[i] & 15];
    }
  hex[64] = '\0';
  return CN_OK;
}
