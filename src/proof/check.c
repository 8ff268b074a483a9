/* SPDX-License-Identifier: MIT */
/* src/proof/check.c: the independent checker of bound certificates (certnn/proof.h).
 *
 * It reads the certificate strictly (every line, every field), rebuilds each case's tree of
 * input boxes from the property's box and the splits, checks that the leaves cover the box and
 * that every leaf has every clause refuted, and re-derives every refutation's bound over its box
 * in MPFI: intermediate boxes by the operators' MPFI arms (and, for the method crown, CROWN
 * sweeps over the unstable relu entries), the sweeps through the operators' checker steps (the
 * rules' proof hook, cn_proof_step in src/ops/ops_impl.h).  Nothing here calls the fast
 * engines (src/crown, src/analysis, src/sound's charges, src/bab): tests/layering.sh checks
 * that no file of src/proof includes their headers. */
#include <config.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifdef _OPENMP
#include <omp.h>
#endif
#include "certnn/proof.h"
#include "core/clock.h"
#include "graph/graph_impl.h"
#include "proof/proof_impl.h"

/* Rows of one sweep at most (intermediate rows go in blocks of this many). */
#define ROWS_BLOCK 32

/* ReLU splits at depth below this are checked as OpenMP tasks (the two children at once). */
#define CHECK_TASK_DEPTH 10

void
cn_proof_opts_init (cn_proof_opts *o)
{
  memset (o, 0, sizeof *o);
}

/* ---- the certificate, parsed -------------------------------------------------------------- */

/* A node's kind: the root or an input split (its boxes derived from its input box alone), a
 * ReLU split (its boxes its parent's, intersected with their re-derivation and the split), a
 * restart (its parent's domain, its boxes derived afresh). */
enum { K_INPUT, K_SPLIT, K_RESTART };

typedef struct pnode
{
  int64_t kase, parent, axis;     /* parent -1: the case's root */
  double mid;
  int side;                       /* 0 below, 1 above */
  int kind;
  int q, sign;                    /* K_SPLIT: entry J of relaxed value Q is >= 0 (SIGN 1) or <= 0 */
  int64_t j;
  int empty;                      /* claims an empty domain */
  int64_t nsplit;                 /* the K_SPLIT nodes from it up to the first other one */
  int64_t ref0, nref;             /* its refutations */
  int64_t box0;                   /* its box lines' numbers: cert.boxv[box0 ..], lo then hi per value */
  int nbox;                       /* box lines read */
  int64_t child[2];
  int nchild;
  int64_t line;
} pnode;

typedef struct pref
{
  int64_t clause, rows0, nrows;   /* rows: cert.rows[rows0 .. rows0 + nrows) */
  int64_t alpha0;                 /* -1, or the relus' slopes at cert.alphav[alpha0 ..] (relus_numel,
                                     NaN: by SLOPE) */
  int64_t beta0, nbeta;           /* -1, or the path's betas at cert.betav[beta0 ..] */
  int last_relu;                  /* the last alpha line's relu (parsing) */
  int slope;
  double lower, c;
  int64_t line;                   /* coefficients: cert.coef[index * n_x ..] */
} pref;

typedef struct cert
{
  int crown;                      /* 1: method crown (tightened intermediate boxes), 0: crown-ibp */
  int slope;                      /* the intermediate sweeps' slope */
  pnode *nodes;
  int64_t n_nodes, cap_nodes;
  pref *refs;
  int64_t n_refs, cap_refs;
  int64_t *rows;
  int64_t n_rows, cap_rows;
  double *coef;                   /* n_refs x n_x */
  int64_t cap_coef;
  double *boxv;                   /* the box lines' claims: per value its entries' lo, then their hi */
  int64_t n_boxv, cap_boxv;
  unsigned char *boxk;            /* per claimed entry (boxv's lo index): '-', '+' or 'p' (a pair) */
  int64_t cap_boxk;
  int n_relaxed;                  /* the relaxed values (cn__proof_relaxed_values): their sizes */
  const int64_t *relaxed_n;
  int n_relus;                    /* the relus (cn__proof_relus): their sizes, and their sum */
  const int64_t *relu_n;
  int64_t relus_numel;
  double *alphav, *betav;
  int64_t n_alphav, cap_alphav, n_betav, cap_betav;
} cert;

static void
cert_clear (cert *c)
{
  free (c->nodes);
  free (c->refs);
  free (c->rows);
  free (c->coef);
  free (c->boxv);
  free (c->boxk);
  free (c->alphav);
  free (c->betav);
  memset (c, 0, sizeof *c);
}

/* Grows *P (elements of SIZE bytes, *CAP of them) to hold at least N; 0, or -1 out of memory. */
static int
grow (void **p, int64_t *cap, int64_t n, size_t size)
{
  if (n <= *cap)
    return 0;
  int64_t c = *cap ? *cap : 64;
  while (c < n)
    c *= 2;
  void *q = realloc (*p, (size_t) c * size);
  if (q == NULL)
    return -1;
  *p = q;
  *cap = c;
  return 0;
}

/* Sets the result's reason (the first one only) and returns 1 (rejected). */
static int
reject (cn_proof_result *r, const char *fmt, ...)
{
  if (r->reason[0] == '\0')
    {
      va_list ap;
      va_start (ap, fmt);
      vsnprintf (r->reason, sizeof r->reason, fmt, ap);
      va_end (ap);
    }
  r->accepted = 0;
  return 1;
}

/* A nonnegative decimal integer filling the token S. */
static int
parse_int (const char *s, int64_t *v)
{
  if (s == NULL || *s < '0' || *s > '9')
    return 0;
  char *e;
  long long x = strtoll (s, &e, 10);
  if (*e != '\0' || x < 0)
    return 0;
  *v = x;
  return 1;
}

/* A finite number filling the token S (hexadecimal or decimal, as strtod reads it: exact for
 * hexadecimal). */
static int
parse_double (const char *s, double *v)
{
  if (s == NULL || *s == '\0')
    return 0;
  char *e;
  double x = strtod (s, &e);
  if (*e != '\0' || !isfinite (x))
    return 0;
  *v = x;
  return 1;
}

/* A number filling the token S, infinite allowed (a box's end), NaN not. */
static int
parse_end (const char *s, double *v)
{
  if (s == NULL || *s == '\0')
    return 0;
  char *e;
  double x = strtod (s, &e);
  if (*e != '\0' || isnan (x))
    return 0;
  *v = x;
  return 1;
}

/* Splits LINE in place at single spaces into at most MAX tokens; returns the count, or -1 when
 * there are more, or an empty field (two spaces, a leading or a trailing one). */
static int
split (char *line, char **tok, int max)
{
  int n = 0;
  char *p = line;
  for (;;)
    {
      if (n == max)
        return -1;
      tok[n++] = p;
      char *sp = strchr (p, ' ');
      if (sp == NULL)
        break;
      *sp = '\0';
      p = sp + 1;
    }
  for (int i = 0; i < n; i++)
    if (tok[i][0] == '\0')
      return -1;
  return n;
}

/* Reads the next line of F into *BUF (its newline removed); 1, 0 at the end of the file, -1 for
 * a last line without a newline (a truncated file). */
static int
next_line (FILE *f, char **buf, size_t *cap, int64_t *lineno)
{
  ssize_t got = getline (buf, cap, f);
  if (got < 0)
    return 0;
  ++*lineno;
  if (got == 0 || (*buf)[got - 1] != '\n')
    return -1;
  (*buf)[got - 1] = '\0';
  return 1;
}

/* Parses the certificate in F into C, checking every field against SPEC and the digests.
 * Returns 0 when it reads whole, 1 when rejected (R says why), -1 out of memory. */
static int
cert_read (FILE *f, const cn_spec *spec, const char *net_sha, const char *prop_sha, cert *c, cn_proof_result *r)
{
  char *buf = NULL;
  size_t cap = 0;
  int64_t ln = 0;
  int res = 1;
  int64_t n = spec->n_x, maxtok = n + 16 > 4096 + 16 ? n + 16 : 4096 + 16;   /* beta: one per split */
  for (int q = 0; q < c->n_relaxed; q++)
    maxtok = 2 * c->relaxed_n[q] + 16 > maxtok ? 2 * c->relaxed_n[q] + 16 : maxtok;
  for (int q = 0; q < c->n_relus; q++)
    maxtok = c->relu_n[q] + 16 > maxtok ? c->relu_n[q] + 16 : maxtok;
  char **tok = malloc ((size_t) maxtok * sizeof *tok);
  if (tok == NULL)
    return -1;
  int nt, got;
#define NEXT()                                                                                               \
  do                                                                                                         \
    {                                                                                                        \
      got = next_line (f, &buf, &cap, &ln);                                                                  \
      if (got <= 0)                                                                                          \
        {                                                                                                    \
          reject (r, got == 0 ? "truncated: the file ends after line %lld, before its end line"              \
                              : "truncated: line %lld has no newline (the file ends inside it)", (long long) ln); \
          goto done;                                                                                         \
        }                                                                                                    \
      nt = split (buf, tok, (int) maxtok);                                                                   \
    }                                                                                                        \
  while (0)
  NEXT ();
  if (nt != 2 || strcmp (tok[0], "certnn-certificate") != 0)
    {
      reject (r, "line 1: not a certnn certificate (it must begin with 'certnn-certificate %d')", CN_PROOF_VERSION);
      goto done;
    }
  char version[16];
  snprintf (version, sizeof version, "%d", CN_PROOF_VERSION);
  if (strcmp (tok[1], version) != 0)
    {
      reject (r, "line 1: certificate format version %s; this checker reads version %d", tok[1], CN_PROOF_VERSION);
      goto done;
    }
  NEXT ();
  if (nt != 3 || strcmp (tok[0], "network") != 0 || strcmp (tok[1], "sha256") != 0 || strlen (tok[2]) != 64)
    {
      reject (r, "line %lld: expected 'network sha256 HEX' (64 hexadecimal digits)", (long long) ln);
      goto done;
    }
  if (strcmp (tok[2], net_sha) != 0)
    {
      reject (r, "wrong network: the certificate is for the network with SHA-256 %s, this network's is %s", tok[2],
              net_sha);
      goto done;
    }
  NEXT ();
  if (nt != 3 || strcmp (tok[0], "property") != 0 || strcmp (tok[1], "sha256") != 0 || strlen (tok[2]) != 64)
    {
      reject (r, "line %lld: expected 'property sha256 HEX' (64 hexadecimal digits)", (long long) ln);
      goto done;
    }
  if (strcmp (tok[2], prop_sha) != 0)
    {
      reject (r, "wrong property: the certificate is for the property with SHA-256 %s, this property's is %s",
              tok[2], prop_sha);
      goto done;
    }
  NEXT ();
  if (nt != 4 || strcmp (tok[0], "bounds") != 0 || strcmp (tok[2], "slope") != 0
      || (strcmp (tok[1], "crown") != 0 && strcmp (tok[1], "crown-ibp") != 0)
      || (c->slope = cn__proof_slope_lookup (tok[3])) < 0)
    {
      reject (r, "line %lld: expected 'bounds crown|crown-ibp slope adaptive|zero|one|ratio'", (long long) ln);
      goto done;
    }
  c->crown = strcmp (tok[1], "crown") == 0;
  NEXT ();
  if (nt != 2 || strcmp (tok[0], "semantics") != 0)
    {
      reject (r, "line %lld: expected 'semantics real'", (long long) ln);
      goto done;
    }
  if (strcmp (tok[1], "real") != 0)
    {
      reject (r, "line %lld: a certificate for the %s semantics; this checker re-derives the exact real one only",
              (long long) ln, tok[1]);
      goto done;
    }
  NEXT ();
  int64_t nx, ny, nk;
  if (nt != 7 || strcmp (tok[0], "shape") != 0 || strcmp (tok[1], "inputs") != 0 || !parse_int (tok[2], &nx)
      || strcmp (tok[3], "outputs") != 0 || !parse_int (tok[4], &ny) || strcmp (tok[5], "cases") != 0
      || !parse_int (tok[6], &nk))
    {
      reject (r, "line %lld: expected 'shape inputs N outputs M cases K'", (long long) ln);
      goto done;
    }
  if (nx != spec->n_x || ny != spec->n_y || nk != spec->n_cases)
    {
      reject (r, "line %lld: the certificate's shape (%lld inputs, %lld outputs, %lld cases) is not the property's "
                 "(%lld, %lld, %lld)", (long long) ln, (long long) nx, (long long) ny, (long long) nk,
              (long long) spec->n_x, (long long) spec->n_y, (long long) spec->n_cases);
      goto done;
    }
  for (;;)
    {
      NEXT ();
      if (nt >= 1 && strcmp (tok[0], "end") == 0)
        {
          int64_t en, er;
          if (nt != 3 || !parse_int (tok[1], &en) || !parse_int (tok[2], &er))
            {
              reject (r, "line %lld: expected 'end NODES REFUTATIONS'", (long long) ln);
              goto done;
            }
          if (en != c->n_nodes || er != c->n_refs)
            {
              reject (r, "line %lld: the end line counts %lld nodes and %lld refutations, the file has %lld and %lld",
                      (long long) ln, (long long) en, (long long) er, (long long) c->n_nodes, (long long) c->n_refs);
              goto done;
            }
          got = next_line (f, &buf, &cap, &ln);
          if (got != 0)
            {
              reject (r, "line %lld: text after the end line", (long long) ln);
              goto done;
            }
          res = 0;
          goto done;
        }
      if (nt >= 1 && strcmp (tok[0], "node") == 0)
        {
          int64_t kase, id;
          if ((nt != 4 && nt != 5 && nt != 7 && nt != 8) || !parse_int (tok[1], &kase) || !parse_int (tok[2], &id))
            {
              reject (r, "line %lld: expected 'node CASE ID root', 'node CASE ID PARENT AXIS MID below|above', "
                         "'node CASE ID PARENT split Q J +|-' or 'node CASE ID PARENT restart'", (long long) ln);
              goto done;
            }
          if (id != c->n_nodes)
            {
              reject (r, "line %lld: node id %lld out of order (expected %lld: ids count from 0 in file order)",
                      (long long) ln, (long long) id, (long long) c->n_nodes);
              goto done;
            }
          if (kase >= spec->n_cases)
            {
              reject (r, "line %lld: node %lld of case %lld, the property has %lld cases", (long long) ln,
                      (long long) id, (long long) kase, (long long) spec->n_cases);
              goto done;
            }
          if (grow ((void **) &c->nodes, &c->cap_nodes, c->n_nodes + 1, sizeof *c->nodes) != 0)
            {
              res = -1;
              goto done;
            }
          pnode *nd = &c->nodes[c->n_nodes];
          memset (nd, 0, sizeof *nd);
          nd->kase = kase;
          nd->line = ln;
          nd->ref0 = c->n_refs;
          nd->box0 = c->n_boxv;
          nd->parent = -1;
          nd->kind = K_INPUT;
          if (nt == 4)
            {
              if (strcmp (tok[3], "root") != 0)
                {
                  reject (r, "line %lld: expected 'root' or a parent, axis, point and side", (long long) ln);
                  goto done;
                }
            }
          else
            {
              int64_t par, axis = 0, qq = 0, jj = 0;
              double mid = 0;
              if (nt == 5)
                {
                  if (!parse_int (tok[3], &par) || strcmp (tok[4], "restart") != 0)
                    {
                      reject (r, "line %lld: expected 'node CASE ID PARENT restart'", (long long) ln);
                      goto done;
                    }
                  nd->kind = K_RESTART;
                }
              else if (nt == 8)
                {
                  if (!parse_int (tok[3], &par) || strcmp (tok[4], "split") != 0 || !parse_int (tok[5], &qq)
                      || !parse_int (tok[6], &jj) || (strcmp (tok[7], "+") != 0 && strcmp (tok[7], "-") != 0))
                    {
                      reject (r, "line %lld: expected 'node CASE ID PARENT split Q J +|-'", (long long) ln);
                      goto done;
                    }
                  if (qq >= c->n_relaxed || jj >= c->relaxed_n[qq])
                    {
                      reject (r, "line %lld: a split of entry %lld of relaxed value %lld, which the network does not "
                                 "have (%d relaxed values)", (long long) ln, (long long) jj, (long long) qq,
                              c->n_relaxed);
                      goto done;
                    }
                  nd->kind = K_SPLIT;
                  nd->q = (int) qq;
                  nd->j = jj;
                  nd->sign = tok[7][0] == '+' ? 1 : -1;
                }
              else if (!parse_int (tok[3], &par) || !parse_int (tok[4], &axis) || !parse_double (tok[5], &mid)
                       || (strcmp (tok[6], "below") != 0 && strcmp (tok[6], "above") != 0))
                {
                  reject (r, "line %lld: expected 'node CASE ID PARENT AXIS MID below|above'", (long long) ln);
                  goto done;
                }
              if (par >= id)
                {
                  reject (r, "line %lld: node %lld names the parent %lld, which is not an earlier node",
                          (long long) ln, (long long) id, (long long) par);
                  goto done;
                }
              if (c->nodes[par].kase != kase)
                {
                  reject (r, "line %lld: node %lld of case %lld names the parent %lld of case %lld", (long long) ln,
                          (long long) id, (long long) kase, (long long) par, (long long) c->nodes[par].kase);
                  goto done;
                }
              if (axis >= spec->n_x)
                {
                  reject (r, "line %lld: split axis %lld, the input has %lld", (long long) ln, (long long) axis,
                          (long long) spec->n_x);
                  goto done;
                }
              nd->parent = par;
              nd->axis = axis;
              nd->mid = mid;
              nd->side = nt == 7 && strcmp (tok[6], "above") == 0;
            }
          c->n_nodes++;
          continue;
        }
      if (nt >= 1 && strcmp (tok[0], "empty") == 0)
        {
          if (nt != 1 || c->n_nodes == 0 || c->nodes[c->n_nodes - 1].nbox > 0 || c->nodes[c->n_nodes - 1].nref > 0
              || c->nodes[c->n_nodes - 1].empty)
            {
              reject (r, "line %lld: an empty line belongs right after its node line", (long long) ln);
              goto done;
            }
          c->nodes[c->n_nodes - 1].empty = 1;
          continue;
        }
      if (nt >= 1 && (strcmp (tok[0], "alpha") == 0 || strcmp (tok[0], "beta") == 0))
        {
          /* a refutation's sweep parameters, right after its refute line */
          pnode *nd = c->n_nodes > 0 ? &c->nodes[c->n_nodes - 1] : NULL;
          if (nd == NULL || nd->nref == 0)
            {
              reject (r, "line %lld: an %s line belongs after its refute line", (long long) ln, tok[0]);
              goto done;
            }
          pref *rf = &c->refs[c->n_refs - 1];
          if (tok[0][0] == 'b')
            {
              if (rf->beta0 >= 0)
                {
                  reject (r, "line %lld: a second beta line for one refutation", (long long) ln);
                  goto done;
                }
              if (grow ((void **) &c->betav, &c->cap_betav, c->n_betav + nt, sizeof *c->betav) != 0)
                {
                  res = -1;
                  goto done;
                }
              rf->beta0 = c->n_betav;
              rf->nbeta = nt - 1;
              for (int t = 1; t < nt; t++)
                {
                  double b;
                  if (!parse_double (tok[t], &b) || !(b >= 0))
                    {
                      reject (r, "line %lld: beta %d is not a finite number >= 0", (long long) ln, t - 1);
                      goto done;
                    }
                  c->betav[c->n_betav++] = b;
                }
              continue;
            }
          int64_t rr;
          if (rf->beta0 >= 0 || nt < 2 || !parse_int (tok[1], &rr) || rr >= c->n_relus || (int) rr <= rf->last_relu)
            {
              reject (r, "line %lld: expected 'alpha R' for a relu after the last one (the network has %d relus), "
                         "before the beta line", (long long) ln, c->n_relus);
              goto done;
            }
          if (nt != 2 + c->relu_n[rr])
            {
              reject (r, "line %lld: relu %lld has %lld entries, the line %d", (long long) ln, (long long) rr,
                      (long long) c->relu_n[rr], nt - 2);
              goto done;
            }
          if (rf->alpha0 < 0)
            {
              if (grow ((void **) &c->alphav, &c->cap_alphav, c->n_alphav + c->relus_numel + 1,
                        sizeof *c->alphav) != 0)
                {
                  res = -1;
                  goto done;
                }
              rf->alpha0 = c->n_alphav;
              for (int64_t e = 0; e < c->relus_numel; e++)
                c->alphav[c->n_alphav++] = NAN;
            }
          int64_t at = rf->alpha0;
          for (int q = 0; q < rr; q++)
            at += c->relu_n[q];
          for (int64_t e = 0; e < c->relu_n[rr]; e++)
            {
              if (strcmp (tok[2 + e], ".") == 0)
                continue;
              double a;
              if (!parse_double (tok[2 + e], &a) || !(a >= 0 && a <= 1))
                {
                  reject (r, "line %lld: slope %lld of relu %lld is not '.' or a number in [0, 1]", (long long) ln,
                          (long long) e, (long long) rr);
                  goto done;
                }
              c->alphav[at + e] = a;
            }
          rf->last_relu = (int) rr;
          continue;
        }
      if (nt >= 1 && strcmp (tok[0], "box") == 0)
        {
          int64_t k;
          if (c->n_nodes == 0 || c->nodes[c->n_nodes - 1].nref > 0)
            {
              reject (r, "line %lld: a box line belongs right after its node line, before its refutations",
                      (long long) ln);
              goto done;
            }
          pnode *nd = &c->nodes[c->n_nodes - 1];
          if (nt < 2 || !parse_int (tok[1], &k) || k != nd->nbox || k >= c->n_relaxed)
            {
              reject (r, "line %lld: expected 'box %d' (the network has %d relaxed values)", (long long) ln, nd->nbox,
                      c->n_relaxed);
              goto done;
            }
          int64_t nk = c->relaxed_n[k];
          if (nt != 2 + nk)
            {
              reject (r, "line %lld: box %lld has %lld entries, the line %d", (long long) ln, (long long) k,
                      (long long) nk, nt - 2);
              goto done;
            }
          if (grow ((void **) &c->boxv, &c->cap_boxv, c->n_boxv + 2 * nk, sizeof *c->boxv) != 0
              || grow ((void **) &c->boxk, &c->cap_boxk, c->n_boxv + 2 * nk, sizeof *c->boxk) != 0)
            {
              res = -1;
              goto done;
            }
          /* each entry: '-' claims hi <= 0, '+' lo >= 0, "LO,HI" the interval */
          double *lo = c->boxv + c->n_boxv, *hi = lo + nk;
          unsigned char *kind = c->boxk + c->n_boxv;
          for (int64_t j = 0; j < nk; j++)
            {
              char *t = tok[2 + j], *comma = strchr (t, ',');
              if (strcmp (t, "-") == 0)
                {
                  kind[j] = '-';
                  lo[j] = -INFINITY;
                  hi[j] = 0;
                  continue;
                }
              if (strcmp (t, "+") == 0)
                {
                  kind[j] = '+';
                  lo[j] = 0;
                  hi[j] = INFINITY;
                  continue;
                }
              kind[j] = 'p';
              if (comma != NULL)
                *comma = '\0';
              if (comma == NULL || !parse_end (t, &lo[j]) || !parse_end (comma + 1, &hi[j]) || !(lo[j] <= hi[j]))
                {
                  reject (r, "line %lld: entry %lld of box %lld is not '-', '+' or an interval LO,HI with LO <= HI",
                          (long long) ln, (long long) j, (long long) k);
                  goto done;
                }
            }
          c->n_boxv += 2 * nk;
          nd->nbox++;
          continue;
        }
      if (nt >= 1 && strcmp (tok[0], "refute") == 0)
        {
          if (c->n_nodes == 0)
            {
              reject (r, "line %lld: a refutation before any node", (long long) ln);
              goto done;
            }
          pnode *nd = &c->nodes[c->n_nodes - 1];
          if (nd->nbox != c->n_relaxed)
            {
              reject (r, "line %lld: node %lld refutes with the boxes of %d relaxed values, the network has %d",
                      (long long) ln, (long long) (c->n_nodes - 1), nd->nbox, c->n_relaxed);
              goto done;
            }
          const cn_spec_case *cs = &spec->cases[nd->kase];
          int64_t clause;
          int slope;
          double lower, cc;
          if (nt != 6 + n || !parse_int (tok[1], &clause) || (slope = cn__proof_slope_lookup (tok[3])) < 0
              || !parse_double (tok[4], &lower) || !parse_double (tok[5], &cc))
            {
              reject (r, "line %lld: expected 'refute CLAUSE ROWS SLOPE LOWER C' and %lld finite coefficients",
                      (long long) ln, (long long) n);
              goto done;
            }
          if (clause >= cs->n_clauses)
            {
              reject (r, "line %lld: clause %lld, case %lld has %lld", (long long) ln, (long long) clause,
                      (long long) nd->kase, (long long) cs->n_clauses);
              goto done;
            }
          if (grow ((void **) &c->refs, &c->cap_refs, c->n_refs + 1, sizeof *c->refs) != 0
              || grow ((void **) &c->coef, &c->cap_coef, (c->n_refs + 1) * (n ? n : 1), sizeof *c->coef) != 0)
            {
              res = -1;
              goto done;
            }
          pref *rf = &c->refs[c->n_refs];
          rf->clause = clause;
          rf->alpha0 = rf->beta0 = -1;
          rf->nbeta = 0;
          rf->last_relu = -1;
          rf->slope = slope;
          rf->lower = lower;
          rf->c = cc;
          rf->line = ln;
          rf->rows0 = c->n_rows;
          rf->nrows = 0;
          /* the rows: distinct indices of the clause's rows, comma-separated */
          for (char *p = tok[2];;)
            {
              char *comma = strchr (p, ',');
              if (comma != NULL)
                *comma = '\0';
              int64_t row;
              if (!parse_int (p, &row) || row >= cs->clauses[clause].n_rows)
                {
                  reject (r, "line %lld: '%s' is not a row of clause %lld (it has %lld)", (long long) ln, p,
                          (long long) clause, (long long) cs->clauses[clause].n_rows);
                  goto done;
                }
              for (int64_t q = 0; q < rf->nrows; q++)
                if (c->rows[rf->rows0 + q] == row)
                  {
                    reject (r, "line %lld: row %lld listed twice", (long long) ln, (long long) row);
                    goto done;
                  }
              if (grow ((void **) &c->rows, &c->cap_rows, c->n_rows + 1, sizeof *c->rows) != 0)
                {
                  res = -1;
                  goto done;
                }
              c->rows[c->n_rows++] = row;
              rf->nrows++;
              if (comma == NULL)
                break;
              p = comma + 1;
            }
          for (int64_t i = 0; i < n; i++)
            if (!parse_double (tok[6 + i], &c->coef[c->n_refs * n + i]))
              {
                reject (r, "line %lld: coefficient %lld is not a finite number", (long long) ln, (long long) i);
                goto done;
              }
          c->n_refs++;
          nd->nref++;
          continue;
        }
      reject (r, "line %lld: unknown record '%s' (expected node, empty, box, refute, alpha, beta or end)",
              (long long) ln, tok[0]);
      goto done;
    }
done:
#undef NEXT
  free (buf);
  free (tok);
  return res;
}

/* ---- the tree ------------------------------------------------------------------------------ */

/* Links C's nodes into trees and computes every node's box into LO, HI (n_nodes x n_x each):
 * one root per case with the case's box, two children per inner node, split at one point
 * strictly inside the parent's box on one axis.  Then every leaf must have every clause refuted
 * at it or above.  Returns 0, 1 when rejected, -1 out of memory. */
static int
tree_check (const cn_spec *spec, cert *c, double *lo, double *hi, cn_proof_result *r)
{
  int64_t n = spec->n_x;
  int64_t *root = malloc ((size_t) (spec->n_cases + 1) * sizeof *root);
  if (root == NULL)
    return -1;
  for (int64_t k = 0; k < spec->n_cases; k++)
    root[k] = -1;
  int res = 1;
  for (int64_t i = 0; i < c->n_nodes; i++)
    {
      pnode *nd = &c->nodes[i];
      double *l = lo + i * n, *h = hi + i * n;
      if (nd->nbox > 0 && nd->nref == 0 && nd->kind == K_INPUT)
        {
          reject (r, "line %lld: node %lld carries boxes but refutes nothing", (long long) nd->line, (long long) i);
          goto done;
        }
      if (nd->nbox > 0 && nd->nbox != c->n_relaxed)
        {
          reject (r, "line %lld: node %lld carries the boxes of %d relaxed values, the network has %d",
                  (long long) nd->line, (long long) i, nd->nbox, c->n_relaxed);
          goto done;
        }
      if (nd->parent < 0)
        {
          if (root[nd->kase] >= 0)
            {
              reject (r, "line %lld: case %lld has a second root (node %lld; the first is node %lld)",
                      (long long) nd->line, (long long) nd->kase, (long long) i, (long long) root[nd->kase]);
              goto done;
            }
          root[nd->kase] = i;
          memcpy (l, spec->cases[nd->kase].box.lo, (size_t) n * sizeof *l);
          memcpy (h, spec->cases[nd->kase].box.hi, (size_t) n * sizeof *h);
          continue;
        }
      pnode *p = &c->nodes[nd->parent];
      if (p->nchild == 2 || (p->nchild == 1 && (nd->kind == K_RESTART || c->nodes[p->child[0]].kind == K_RESTART)))
        {
          reject (r, "line %lld: node %lld is a %s child of node %lld (a node has two children of one split, or one "
                     "restart)", (long long) nd->line, (long long) i, p->nchild == 2 ? "third" : "second",
                  (long long) nd->parent);
          goto done;
        }
      nd->nsplit = nd->kind == K_SPLIT ? p->nsplit + 1 : 0;
      if (p->nchild == 1 && c->nodes[p->child[0]].kind != nd->kind)
        {
          reject (r, "line %lld: nodes %lld and %lld, the children of node %lld, split it differently (one on an "
                     "input, one on a relu)", (long long) nd->line, (long long) p->child[0], (long long) i,
                  (long long) nd->parent);
          goto done;
        }
      if (nd->kind != K_INPUT)
        {
          if (p->nchild == 1)
            {
              const pnode *sib = &c->nodes[p->child[0]];
              if (sib->q != nd->q || sib->j != nd->j)
                {
                  reject (r, "line %lld: nodes %lld and %lld, the children of node %lld, split it differently "
                             "(entry %lld of relaxed value %d, entry %lld of %d)", (long long) nd->line,
                          (long long) p->child[0], (long long) i, (long long) nd->parent, (long long) sib->j, sib->q,
                          (long long) nd->j, nd->q);
                  goto done;
                }
              if (sib->sign == nd->sign)
                {
                  reject (r, "line %lld: nodes %lld and %lld, the children of node %lld, both split entry %lld of "
                             "relaxed value %d %s 0: the other sign is not covered", (long long) nd->line,
                          (long long) p->child[0], (long long) i, (long long) nd->parent, (long long) nd->j, nd->q,
                          nd->sign > 0 ? ">=" : "<=");
                  goto done;
                }
            }
          /* z_j >= 0 and z_j <= 0 cover the parent's domain; a restart is the parent's domain */
          p->child[p->nchild++] = i;
          memcpy (l, lo + nd->parent * n, (size_t) n * sizeof *l);
          memcpy (h, hi + nd->parent * n, (size_t) n * sizeof *h);
          continue;
        }
      if (p->nchild == 1)
        {
          const pnode *sib = &c->nodes[p->child[0]];
          if (sib->axis != nd->axis || sib->mid != nd->mid)
            {
              reject (r, "line %lld: nodes %lld and %lld, the children of node %lld, split it differently (axis %lld "
                         "at %a, axis %lld at %a)", (long long) nd->line, (long long) p->child[0], (long long) i,
                      (long long) nd->parent, (long long) sib->axis, sib->mid, (long long) nd->axis, nd->mid);
              goto done;
            }
          if (sib->side == nd->side)
            {
              reject (r, "line %lld: nodes %lld and %lld, the children of node %lld, are both %s: the other half of "
                         "its box is not covered", (long long) nd->line, (long long) p->child[0], (long long) i,
                      (long long) nd->parent, nd->side ? "above" : "below");
              goto done;
            }
        }
      p->child[p->nchild++] = i;
      const double *pl = lo + nd->parent * n, *ph = hi + nd->parent * n;
      if (!(pl[nd->axis] < nd->mid && nd->mid < ph[nd->axis]))
        {
          reject (r, "line %lld: node %lld splits axis %lld at %a, not strictly inside its parent's [%a, %a]",
                  (long long) nd->line, (long long) i, (long long) nd->axis, nd->mid, pl[nd->axis], ph[nd->axis]);
          goto done;
        }
      memcpy (l, pl, (size_t) n * sizeof *l);
      memcpy (h, ph, (size_t) n * sizeof *h);
      /* [lo, mid] and [mid, hi] cover the parent's [lo, hi] on the axis */
      if (nd->side)
        l[nd->axis] = nd->mid;
      else
        h[nd->axis] = nd->mid;
    }
  for (int64_t k = 0; k < spec->n_cases; k++)
    if (root[k] < 0)
      {
        reject (r, "case %lld has no root node: nothing covers its box", (long long) k);
        goto done;
      }
  for (int64_t i = 0; i < c->n_nodes; i++)
    if (c->nodes[i].nchild == 1 && c->nodes[c->nodes[i].child[0]].kind == K_SPLIT)
      {
        const pnode *ch = &c->nodes[c->nodes[i].child[0]];
        reject (r, "node %lld (line %lld) has one child, node %lld (entry %lld of relaxed value %d %s 0): the other "
                   "sign is not covered", (long long) i, (long long) c->nodes[i].line, (long long) c->nodes[i].child[0],
                (long long) ch->j, ch->q, ch->sign > 0 ? ">=" : "<=");
        goto done;
      }
    else if (c->nodes[i].nchild == 1 && c->nodes[c->nodes[i].child[0]].kind == K_INPUT)
      {
        const pnode *ch = &c->nodes[c->nodes[i].child[0]];
        reject (r, "node %lld (line %lld) has one child, node %lld (%s): the %s half of its box is not covered",
                (long long) i, (long long) c->nodes[i].line, (long long) c->nodes[i].child[0],
                ch->side ? "above" : "below", ch->side ? "lower" : "upper");
        goto done;
      }
  /* every leaf: each clause refuted at it or at an ancestor (whose box holds the leaf's) */
  int64_t ncmax = 1;
  for (int64_t k = 0; k < spec->n_cases; k++)
    ncmax = spec->cases[k].n_clauses > ncmax ? spec->cases[k].n_clauses : ncmax;
  unsigned char *done_here = malloc ((size_t) ncmax);
  if (done_here == NULL)
    {
      res = -1;
      goto done;
    }
  for (int64_t i = 0; i < c->n_nodes; i++)
    {
      const pnode *nd = &c->nodes[i];
      if (nd->nchild != 0)
        continue;
      r->leaves++;
      int64_t nc = spec->cases[nd->kase].n_clauses;
      memset (done_here, 0, (size_t) ncmax);
      for (int64_t a = i; a >= 0; a = c->nodes[a].parent)
        {
          for (int64_t q = 0; q < c->nodes[a].nref; q++)
            done_here[c->refs[c->nodes[a].ref0 + q].clause] = 1;
          if (c->nodes[a].empty)
            memset (done_here, 1, (size_t) ncmax);   /* an empty domain meets no clause */
        }
      for (int64_t j = 0; j < nc; j++)
        if (!done_here[j])
          {
            reject (r, "node %lld (line %lld, case %lld) is a leaf where clause %lld is refuted neither there nor at an "
                       "ancestor", (long long) i, (long long) nd->line, (long long) nd->kase, (long long) j);
            free (done_here);
            goto done;
          }
    }
  free (done_here);
  /* a refutation's betas: one per split on its node's path from its search's root */
  for (int64_t i = 0; i < c->n_nodes; i++)
    for (int64_t q = 0; q < c->nodes[i].nref; q++)
      {
        const pref *rf = &c->refs[c->nodes[i].ref0 + q];
        if (rf->beta0 >= 0 && rf->nbeta != c->nodes[i].nsplit)
          {
            reject (r, "line %lld: %lld betas for a node with %lld relu splits on its path", (long long) rf->line,
                    (long long) rf->nbeta, (long long) c->nodes[i].nsplit);
            goto done;
          }
      }
  res = 0;
done:
  free (root);
  return res;
}

/* ---- re-deriving bounds in MPFI ------------------------------------------------------------ */

/* What every thread shares: the graph, which values matter, the certificate. */
typedef struct shared
{
  const cn_graph *g;
  const cn_spec *spec;
  const cert *c;
  const double *lo, *hi;          /* the nodes' boxes */
  mpfr_prec_t prec;
  unsigned char *needed;          /* values output 0 depends on */
  int *relaxed;                   /* the relaxed values (cn__proof_relaxed_values) */
  int n_relaxed;
  int64_t *relaxed_n, *relaxed_off; /* their sizes, and where each one's ends start in a node's
                                      box numbers (lo then hi) */
  int *relaxed_index;             /* per value: its place among the relaxed, or -1 */
  int64_t relaxed_numel;          /* the sum of relaxed_n */
  int *relus;                     /* the relus (cn__proof_relus), their sizes, where each one's
                                     slopes start in a refutation's, and per node its place (-1) */
  int n_relus;
  int64_t *relu_n, *relu_off, relus_numel;
  int *relu_ord;
  int x, y;                       /* the graph input and output 0 */
  int max_in;
} shared;

/* One thread's MPFI state: a box per needed value, coefficient rows per needed varying value. */
typedef struct machine
{
  const shared *sh;
  cn_mpfi_vec *box;               /* per value */
  cn_mpfi_vec *lam;               /* per needed varying value: ROWS_BLOCK x numel */
  unsigned char *touched;         /* per value: its LAM rows hold this sweep's coefficients */
  mpfi_t bias[ROWS_BLOCK];
  mpfi_t tmp, acc, t2;
  mpfr_t end;
  const cn_mpfi_vec **args;
  mpfi_t **lam_in;
  int tasks;                      /* the subtrees below a ReLU split may go to OpenMP tasks */
} machine;

static void
machine_clear (machine *m, int nvals)
{
  if (m->box != NULL)
    for (int v = 0; v < nvals; v++)
      cn_mpfi_vec_clear (&m->box[v]);
  if (m->lam != NULL)
    for (int v = 0; v < nvals; v++)
      cn_mpfi_vec_clear (&m->lam[v]);
  free (m->box);
  free (m->lam);
  free (m->touched);
  free (m->args);
  free (m->lam_in);
  if (m->sh != NULL)
    {
      for (int s = 0; s < ROWS_BLOCK; s++)
        mpfi_clear (m->bias[s]);
      mpfi_clear (m->tmp);
      mpfi_clear (m->acc);
      mpfi_clear (m->t2);
      mpfr_clear (m->end);
    }
  memset (m, 0, sizeof *m);
}

static cn_status
machine_init (machine *m, const shared *sh, cn_error *err)
{
  memset (m, 0, sizeof *m);
  const cn_graph *g = sh->g;
  int nv = g->n_values;
  m->box = calloc ((size_t) nv, sizeof *m->box);
  m->lam = calloc ((size_t) nv, sizeof *m->lam);
  m->touched = calloc ((size_t) nv, 1);
  m->args = malloc ((size_t) sh->max_in * sizeof *m->args);
  m->lam_in = malloc ((size_t) sh->max_in * sizeof *m->lam_in);
  if (m->box == NULL || m->lam == NULL || m->touched == NULL || m->args == NULL || m->lam_in == NULL)
    {
      machine_clear (m, nv);
      return cn_error_set (err, CN_ENOMEM, "check-certificate: out of memory");
    }
  m->sh = sh;
  for (int s = 0; s < ROWS_BLOCK; s++)
    mpfi_init2 (m->bias[s], sh->prec);
  mpfi_init2 (m->tmp, sh->prec);
  mpfi_init2 (m->acc, sh->prec);
  mpfi_init2 (m->t2, sh->prec);
  mpfr_init2 (m->end, sh->prec);
  for (int v = 0; v < nv; v++)
    {
      const struct cn__value *cv = &g->values[v];
      if (!sh->needed[v])
        continue;
      if (cn_mpfi_vec_init (&m->box[v], cv->numel, sh->prec, err) != CN_OK
          || (!cv->is_constant && cn_mpfi_vec_init (&m->lam[v], ROWS_BLOCK * cv->numel, sh->prec, err) != CN_OK))
        {
          machine_clear (m, nv);
          return cn_error_set (err, CN_ENOMEM, "check-certificate: out of memory");
        }
      if (cv->is_constant)
        for (int64_t j = 0; j < cv->numel; j++)
          mpfi_set_d (m->box[v].v[j], cv->cdata[j]);   /* exact: the constant's binary64 copy */
    }
  return CN_OK;
}

/* A split on the path of the node a sweep bounds, with its refutation's multiplier. */
typedef struct path_split
{
  int v;                          /* the split value (a relaxed one) */
  int64_t j;
  int sign;                       /* sign z_j >= 0 on the node's domain */
  double beta;                    /* >= 0 */
} path_split;

/* beta-CROWN's term at value W, whose coefficient rows (ROWS of them) are complete: for every
 * split (z_j of W, sign s, beta >= 0) on the path, lam[w][r][j] -= s beta.  On the node's domain
 * s z_j >= 0, so -s beta z_j <= 0, and a lower bound of C V - sum s beta z_j is one of C V. */
static void
apply_betas (machine *m, int w, int64_t rows, const path_split *ps, int64_t nps)
{
  const cn_graph *g = m->sh->g;
  for (int64_t t = 0; t < nps; t++)
    {
      if (ps[t].v != w || !(ps[t].beta > 0))
        continue;
      int64_t numel = g->values[w].numel;
      if (!m->touched[w])
        {
          for (int64_t q = 0; q < rows * numel; q++)
            mpfi_set_ui (m->lam[w].v[q], 0);
          m->touched[w] = 1;
        }
      for (int64_t r = 0; r < rows; r++)
        {
          mpfi_ptr l = m->lam[w].v[r * numel + ps[t].j];
          if (ps[t].sign > 0)
            mpfi_sub_d (l, l, ps[t].beta);
          else
            mpfi_add_d (l, l, ps[t].beta);
        }
    }
}

/* One backward sweep of ROWS rows from value V, whose coefficient rows the caller set in
 * m->lam[V] (and m->touched[V]); m->bias[0 .. ROWS) start at 0 here.  Through every node the
 * rule's checker step, relus with the lower slopes ALPHA (NULL: none; relus_numel, NaN: by SLOPE,
 * for every row), and at each split value of PS (NPS of them) its beta term; afterwards, for
 * exact reals in the intervals,
 *     row s of C V(x) >= lam[x][s] . x + bias[s]   for every x in the input box that meets the
 *                                                   splits PS (every x, without betas). */
static cn_status
sweep (machine *m, int v, int64_t rows, int slope, const double *alpha, const path_split *ps, int64_t nps,
       cn_error *err)
{
  const shared *sh = m->sh;
  const cn_graph *g = sh->g;
  for (int64_t s = 0; s < rows; s++)
    mpfi_set_ui (m->bias[s], 0);
  int start = g->values[v].producer;
  for (int k = start; k >= 0; k--)
    {
      const struct cn__node *nd = &g->nodes[k];
      int o = nd->out[0];
      if (nps > 0)
        apply_betas (m, o, rows, ps, nps);
      if (!m->touched[o])
        continue;
      for (int i = 0; i < nd->n_in; i++)
        {
          int u = nd->in[i];
          m->args[i] = &m->box[u];
          if (g->values[u].is_constant)
            {
              m->lam_in[i] = NULL;
              continue;
            }
          if (!m->touched[u])
            {
              int64_t cnt = rows * g->values[u].numel;
              for (int64_t q = 0; q < cnt; q++)
                mpfi_set_ui (m->lam[u].v[q], 0);
              m->touched[u] = 1;
            }
          m->lam_in[i] = m->lam[u].v;
        }
      const double *al = NULL;
      if (alpha != NULL && sh->relu_ord[k] >= 0)
        al = alpha + sh->relu_off[sh->relu_ord[k]];
      if (al != NULL && rows != 1)
        return cn_error_set (err, CN_EINVAL, "check-certificate: slopes for a sweep of %lld rows", (long long) rows);
      cn_proof_step st = { .nv = &nd->view[0], .rows = rows, .lam_out = m->lam[o].v, .lam_in = m->lam_in,
                           .in_box = m->args, .bias = m->bias, .slope = slope, .alpha = al, .tmp = m->tmp };
      cn_status ret = nd->rule->proof (&st, err);
      if (ret != CN_OK)
        return ret;
      /* now row s of C V >= the frontier's coefficients . values + bias[s] (+ the betas' terms) */
    }
  if (nps > 0)
    apply_betas (m, sh->x, rows, ps, nps);
  return CN_OK;
}

/* Starts a sweep from V: no value touched but V, whose first ROWS rows are zeroed. */
static void
sweep_begin (machine *m, int v, int64_t rows)
{
  const cn_graph *g = m->sh->g;
  memset (m->touched, 0, (size_t) g->n_values);
  m->touched[v] = 1;
  int64_t cnt = rows * g->values[v].numel;
  for (int64_t q = 0; q < cnt; q++)
    mpfi_set_ui (m->lam[v].v[q], 0);
}

/* m->acc := bias[s] + lam[x][s] . box[x] (the sweep's bound of row s over the input box). */
static void
concretise (machine *m, int64_t s)
{
  const shared *sh = m->sh;
  int64_t n = sh->spec->n_x;
  mpfi_set (m->acc, m->bias[s]);
  if (!m->touched[sh->x])
    return;
  for (int64_t i = 0; i < n; i++)
    {
      mpfi_mul (m->tmp, m->lam[sh->x].v[s * n + i], m->box[sh->x].v[i]);
      mpfi_add (m->acc, m->acc, m->tmp);
    }
}

/* What a failed refutation check says, for the smallest failing node. */
typedef struct failure
{
  int64_t node;
  char msg[512];
} failure;

/* Checks the box node I claims for the relaxed value V: per entry j the claim CL[j], CH[j] of
 * kind KIND[j] ('-': (-inf, 0], '+': [0, +inf), 'p': an interval the search relaxed with).  The
 * true range of each entry lies in the MPFI arms' box over the (checked) boxes upstream, and,
 * where that does not already lie inside the claim (and, in PASS 1, for every '+' entry), also in
 * the box of a CROWN sweep with rows +e_j and -e_j (method crown), ROWS_BLOCK rows at a time; the
 * claim must contain their intersection.  Then V's box becomes, per entry, the claim itself for a
 * pair (the relaxations downstream read exactly the search's box) and the claim intersected with
 * the derivation for '-' and '+' (whose relu relaxation depends on the sign alone; their box
 * only feeds the boxes downstream).  Returns 0, or 1 with F filled when a claim fails (or *ST set). */
static int
check_claims (machine *m, int64_t i, int v, const double *cl, const double *ch, const unsigned char *kind, int pass,
              failure *f, cn_status *st, cn_error *err)
{
  const shared *sh = m->sh;
  const cn_graph *g = sh->g;
  int64_t numel = g->values[v].numel;
  cn_mpfi_vec *b = &m->box[v];
  int64_t j0 = 0;
  for (;;)
    {
      /* the next entries whose claim the arms' box does not imply */
      int64_t ent[ROWS_BLOCK / 2], ne = 0;
      for (; j0 < numel && ne < ROWS_BLOCK / 2; j0++)
        if (mpfr_cmp_d (&b->v[j0]->left, cl[j0]) < 0 || mpfr_cmp_d (&b->v[j0]->right, ch[j0]) > 0
            || mpfr_nan_p (&b->v[j0]->left) || mpfr_nan_p (&b->v[j0]->right) || (pass == 1 && kind[j0] == '+'))
          ent[ne++] = j0;
      if (ne == 0)
        break;
      if (!sh->c->crown)
        {
          f->node = i;
          snprintf (f->msg, sizeof f->msg, "node %lld (line %lld): the box claimed for entry %lld of '%s', [%a, %a], is "
                    "tighter than its MPFI box (method crown-ibp)", (long long) i, (long long) sh->c->nodes[i].line,
                    (long long) ent[0], g->values[v].name, cl[ent[0]], ch[ent[0]]);
          return 1;
        }
      sweep_begin (m, v, 2 * ne);
      for (int64_t q = 0; q < ne; q++)
        {
          mpfi_set_si (m->lam[v].v[(2 * q) * numel + ent[q]], 1);
          mpfi_set_si (m->lam[v].v[(2 * q + 1) * numel + ent[q]], -1);
        }
      if ((*st = sweep (m, v, 2 * ne, sh->c->slope, NULL, NULL, 0, err)) != CN_OK)
        return 1;
      for (int64_t q = 0; q < ne; q++)
        {
          mpfi_ptr z = b->v[ent[q]];
          /* z_j >= the left end of row 2q's bound, and -z_j >= that of row 2q + 1's */
          concretise (m, 2 * q);
          mpfi_get_left (m->end, m->acc);
          if (mpfr_cmp (m->end, &z->left) > 0)
            mpfr_set (&z->left, m->end, MPFR_RNDD);
          concretise (m, 2 * q + 1);
          mpfi_get_left (m->end, m->acc);
          mpfr_neg (m->end, m->end, MPFR_RNDU);
          if (mpfr_cmp (m->end, &z->right) < 0)
            mpfr_set (&z->right, m->end, MPFR_RNDU);
        }
    }
  for (int64_t j = 0; j < numel; j++)
    {
      mpfi_ptr z = b->v[j];
      if (mpfr_nan_p (&z->left) || mpfr_nan_p (&z->right) || mpfr_cmp_d (&z->left, cl[j]) < 0
          || mpfr_cmp_d (&z->right, ch[j]) > 0)
        {
          f->node = i;
          snprintf (f->msg, sizeof f->msg, "node %lld (line %lld): the box claimed for entry %lld of '%s', [%a, %a], "
                    "does not contain its re-derivation [%a, %a]", (long long) i, (long long) sh->c->nodes[i].line,
                    (long long) j, g->values[v].name, cl[j], ch[j], mpfr_get_d (&z->left, MPFR_RNDD),
                    mpfr_get_d (&z->right, MPFR_RNDU));
          return 1;
        }
      /* now the claim contains the entry's range over the node's box */
      if (kind[j] == 'p')
        mpfi_interv_d (z, cl[j], ch[j]);
      else if (kind[j] == '+' && mpfr_sgn (&z->left) < 0)
        mpfr_set_ui (&z->left, 0, MPFR_RNDD);
      else if (kind[j] == '-' && mpfr_sgn (&z->right) > 0)
        mpfr_set_ui (&z->right, 0, MPFR_RNDU);
    }
  return 0;
}

/* Settles value W's box at node I after its MPFI arm (or, for the input, the node's box): with
 * the parent's boxes P (a K_SPLIT node; NULL otherwise) each relaxed entry intersected with the
 * parent's (its domain holds this one's), then the node's own split cut at 0, then the node's
 * claim checked (check_claims) where it has box lines.  Returns 0, 1 with F filled when a claim
 * fails (or *ST set), 2 when an entry's box is empty (the domain is empty). */
static int
settle (machine *m, int64_t i, int w, const double *P, int pass, failure *f, cn_status *st, cn_error *err)
{
  const shared *sh = m->sh;
  const cert *c = sh->c;
  const pnode *nd = &c->nodes[i];
  int q = sh->relaxed_index[w];
  if (q < 0)
    return 0;
  cn_mpfi_vec *b = &m->box[w];
  int64_t numel = sh->relaxed_n[q];
  if (P != NULL)
    {
      const double *pl = P + sh->relaxed_off[q], *ph = pl + numel;
      for (int64_t j = 0; j < numel; j++)
        {
          mpfi_ptr z = b->v[j];
          if (mpfr_nan_p (&z->left) || mpfr_nan_p (&z->right))
            continue;             /* check_claims refuses it, or the relaxation does */
          if (mpfr_cmp_d (&z->left, pl[j]) < 0)
            mpfr_set_d (&z->left, pl[j], MPFR_RNDD);
          if (mpfr_cmp_d (&z->right, ph[j]) > 0)
            mpfr_set_d (&z->right, ph[j], MPFR_RNDU);
        }
    }
  if (nd->kind == K_SPLIT && nd->q == q)
    {
      /* on the node's domain sign z_j >= 0 */
      mpfi_ptr z = b->v[nd->j];
      if (nd->sign > 0 && !(mpfr_sgn (&z->left) >= 0))
        mpfr_set_ui (&z->left, 0, MPFR_RNDD);
      else if (nd->sign < 0 && !(mpfr_sgn (&z->right) <= 0))
        mpfr_set_ui (&z->right, 0, MPFR_RNDU);
    }
  if (P != NULL || nd->kind == K_SPLIT)
    for (int64_t j = 0; j < numel; j++)
      if (mpfr_cmp (&b->v[j]->left, &b->v[j]->right) > 0)
        return 2;                 /* no point of the domain reaches entry j */
  if (nd->nbox > 0)
    {
      int64_t at = nd->box0 + sh->relaxed_off[q];
      const double *cl = c->boxv + at, *ch = cl + numel;
      if (check_claims (m, i, w, cl, ch, c->boxk + at, pass, f, st, err))
        return 1;
    }
  return 0;
}

/* Checks node I of the certificate: its boxes (from its input box, and for a K_SPLIT node from
 * its parent's checked boxes P and its split), its claims, and every refutation; *EMPTY set when
 * the boxes show the domain empty (then nothing else needs to hold).  0 when all holds, 1 with F
 * filled when something fails, or with *ST set when an arm failed. */
static int
check_node_pass (machine *m, int64_t i, int pass, const double *P, int *empty, failure *f, cn_status *st,
                 cn_error *err)
{
  const shared *sh = m->sh;
  const cn_graph *g = sh->g;
  const cert *c = sh->c;
  const pnode *nd = &c->nodes[i];
  int64_t n = sh->spec->n_x, ny = sh->spec->n_y;
  const double *lo = sh->lo + i * n, *hi = sh->hi + i * n;
  *empty = 0;
  /* the input box, exactly */
  for (int64_t j = 0; j < n; j++)
    mpfi_interv_d (m->box[sh->x].v[j], lo[j], hi[j]);
  int sv = settle (m, i, sh->x, P, pass, f, st, err);
  /* forward: every needed node's MPFI arm over its inputs' boxes, each relaxed value's box settled */
  for (int k = 0; k < g->n_nodes && sv == 0; k++)
    {
      const struct cn__node *gn = &g->nodes[k];
      if (!sh->needed[gn->out[0]])
        continue;
      for (int q = 0; q < gn->n_in; q++)
        m->args[q] = &m->box[gn->in[q]];
      if ((*st = gn->rule->ibp_mpfi (&gn->view[0], m->args, &m->box[gn->out[0]], err)) != CN_OK)
        return 1;
      /* now the output's box encloses the node's exact values over its inputs' boxes */
      sv = settle (m, i, gn->out[0], P, pass, f, st, err);
    }
  if (sv == 1)
    return 1;
  if (sv == 2)
    {
      *empty = 1;                 /* every claim and refutation of an empty domain holds */
      return 0;
    }
  if (nd->empty)
    {
      f->node = i;
      snprintf (f->msg, sizeof f->msg, "node %lld (line %lld) claims an empty domain, but its re-derived boxes are "
                "not empty", (long long) i, (long long) nd->line);
      return 1;
    }
  /* the splits on the node's path from its search's root, top first, for the betas */
  int64_t nps = nd->nsplit;
  path_split *ps = malloc ((size_t) (nps + 1) * sizeof *ps);
  if (ps == NULL)
    {
      *st = cn_error_set (err, CN_ENOMEM, "check-certificate: out of memory");
      return 1;
    }
  for (int64_t a = i, t = nps - 1; t >= 0; a = c->nodes[a].parent, t--)
    ps[t] = (path_split) { .v = sh->relaxed[c->nodes[a].q], .j = c->nodes[a].j, .sign = c->nodes[a].sign };
  int res = 1;
  const cn_spec_case *cs = &sh->spec->cases[nd->kase];
  for (int64_t q = 0; q < nd->nref; q++)
    {
      const pref *rf = &c->refs[nd->ref0 + q];
      const cn_spec_clause *cl = &cs->clauses[rf->clause];
      const double *a = c->coef + (nd->ref0 + q) * n;
      /* the row: the sum of the listed rows of the clause */
      sweep_begin (m, sh->y, 1);
      for (int64_t t = 0; t < rf->nrows; t++)
        for (int64_t o = 0; o < ny; o++)
          {
            double mo = cl->mat[c->rows[rf->rows0 + t] * ny + o];
            if (mo != 0)
              mpfi_add_d (m->lam[sh->y].v[o], m->lam[sh->y].v[o], mo);
          }
      const double *al = rf->alpha0 >= 0 ? c->alphav + rf->alpha0 : NULL;
      for (int64_t t = 0; t < nps; t++)
        ps[t].beta = rf->beta0 >= 0 ? c->betav[rf->beta0 + t] : 0;
      if ((*st = sweep (m, sh->y, 1, rf->slope, al, ps, rf->beta0 >= 0 ? nps : 0, err)) != CN_OK)
        goto done;
      /* E = (L - A) . B + b - C: the re-derived bound minus the claimed linear one, over B */
      mpfi_sub_d (m->acc, m->bias[0], rf->c);
      for (int64_t j = 0; j < n; j++)
        {
          if (m->touched[sh->x])
            mpfi_sub_d (m->t2, m->lam[sh->x].v[j], a[j]);
          else
            mpfi_set_d (m->t2, -a[j]);
          mpfi_mul (m->tmp, m->t2, m->box[sh->x].v[j]);
          mpfi_add (m->acc, m->acc, m->tmp);
        }
      mpfi_get_left (m->end, m->acc);
      if (mpfr_nan_p (m->end) || mpfr_sgn (m->end) < 0)
        {
          f->node = i;
          snprintf (f->msg, sizeof f->msg, "node %lld, refutation of clause %lld (line %lld): the claimed linear bound "
                    "A . x + C is not implied by the bound re-derived in MPFI (their difference over the box may be "
                    "as low as %.6g)", (long long) i, (long long) rf->clause, (long long) rf->line,
                    mpfr_get_d (m->end, MPFR_RNDD));
          goto done;
        }
      /* F = A . B + C - LOWER */
      mpfi_set_d (m->acc, rf->c);
      mpfi_sub_d (m->acc, m->acc, rf->lower);
      for (int64_t j = 0; j < n; j++)
        {
          mpfi_mul_d (m->tmp, m->box[sh->x].v[j], a[j]);
          mpfi_add (m->acc, m->acc, m->tmp);
        }
      mpfi_get_left (m->end, m->acc);
      if (mpfr_nan_p (m->end) || mpfr_sgn (m->end) < 0)
        {
          f->node = i;
          snprintf (f->msg, sizeof f->msg, "node %lld, refutation of clause %lld (line %lld): the claimed bound %.17g "
                    "exceeds the minimum of A . x + C over the box (short by up to %.6g)", (long long) i,
                    (long long) rf->clause, (long long) rf->line, rf->lower, -mpfr_get_d (m->end, MPFR_RNDD));
          goto done;
        }
      /* G = LOWER - sum of the rows' rhs (upper bounds of the exact ones) */
      mpfi_set_d (m->acc, rf->lower);
      for (int64_t t = 0; t < rf->nrows; t++)
        mpfi_sub_d (m->acc, m->acc, cl->rhs_up[c->rows[rf->rows0 + t]]);
      mpfi_get_left (m->end, m->acc);
      if (mpfr_nan_p (m->end) || mpfr_sgn (m->end) <= 0)
        {
          f->node = i;
          snprintf (f->msg, sizeof f->msg, "node %lld, refutation of clause %lld (line %lld): the claimed bound %.17g "
                    "does not exceed the rows' right-hand sides (the clause is not refuted)", (long long) i,
                    (long long) rf->clause, (long long) rf->line, rf->lower);
          goto done;
        }
    }
  res = 0;
done:
  free (ps);
  return res;
}

/* Checks node I (check_node_pass): first with the active entries' boxes as the MPFI arms give
 * them, and when a claim or a bound then fails, again with every active entry also tightened by
 * CROWN (the search may have tightened them: its boxes downstream are then tighter than the arms'
 * alone); the second pass's failure is the one reported. */
static int
check_node (machine *m, int64_t i, const double *P, int *empty, failure *f, cn_status *st, cn_error *err)
{
  if (!check_node_pass (m, i, 0, P, empty, f, st, err))
    return 0;
  if (*st != CN_OK)
    return 1;
  return check_node_pass (m, i, 1, P, empty, f, st, err);
}

/* Checks node I and, below it, the ReLU splits of its domain (each child's boxes its parent's,
 * re-derived and cut by its split): P the parent's checked boxes (NULL unless I is a K_SPLIT
 * node).  0 when everything holds, else 1 as check_node. */
static int
check_subtree (machine *m, int64_t i, const double *P, failure *f, cn_status *st, cn_error *err)
{
  const shared *sh = m->sh;
  const cert *c = sh->c;
  const pnode *nd = &c->nodes[i];
  int empty;
  if (check_node (m, i, P, &empty, f, st, err))
    return 1;
  if (empty || nd->nchild == 0 || c->nodes[nd->child[0]].kind != K_SPLIT)
    return 0;                     /* an empty domain's subtree is empty too */
  /* the checked boxes of the relaxed values, outward in binary64, for the children */
  double *V = malloc (2 * (size_t) sh->relaxed_numel * sizeof *V + 1);
  if (V == NULL)
    {
      *st = cn_error_set (err, CN_ENOMEM, "check-certificate: out of memory");
      return 1;
    }
  for (int q = 0; q < sh->n_relaxed; q++)
    {
      const cn_mpfi_vec *b = &m->box[sh->relaxed[q]];
      double *vl = V + sh->relaxed_off[q], *vh = vl + sh->relaxed_n[q];
      for (int64_t j = 0; j < sh->relaxed_n[q]; j++)
        {
          vl[j] = mpfr_get_d (&b->v[j]->left, MPFR_RNDD);
          vh[j] = mpfr_get_d (&b->v[j]->right, MPFR_RNDU);
        }
    }
  int bad = 0;
  if (m->tasks && nd->nchild == 2 && nd->nsplit < CHECK_TASK_DEPTH)
    {
      /* the two children as OpenMP tasks, each with its own machine; the failure reported is a
       * failed status first, else the smaller node's */
      int cb[2] = { 0, 0 };
      failure cf[2];
      cn_status cs[2] = { CN_OK, CN_OK };
      cn_error ce[2];
      for (int t = 0; t < 2; t++)
        {
#pragma omp task shared(cb, cf, cs, ce) firstprivate(t)
          {
            machine mt;
            cn_error_clear (&ce[t]);
            cf[t].node = nd->child[t];
            cf[t].msg[0] = '\0';
            if ((cs[t] = machine_init (&mt, sh, &ce[t])) != CN_OK)
              cb[t] = 1;
            else
              {
                mt.tasks = 1;
                cb[t] = check_subtree (&mt, nd->child[t], V, &cf[t], &cs[t], &ce[t]);
                machine_clear (&mt, sh->g->n_values);
              }
          }
        }
#pragma omp taskwait
      for (int t = 0; t < 2; t++)
        if (cb[t] && cs[t] != CN_OK && *st == CN_OK)
          {
            *st = cs[t];
            *err = ce[t];
            bad = 1;
          }
      int found = 0;
      for (int t = 0; t < 2 && !bad; t++)
        if (cb[t] && (!found || cf[t].node < f->node))
          {
            *f = cf[t];
            found = 1;
          }
      bad |= found;
    }
  else
    for (int t = 0; t < nd->nchild && !bad; t++)
      bad = check_subtree (m, nd->child[t], V, f, st, err);
  free (V);
  return bad;
}

/* Marks what the checker needs of G and refuses what it cannot check. */
static cn_status
shared_init (shared *sh, const cn_graph *g, cn_error *err)
{
  int nv = g->n_values;
  sh->needed = calloc ((size_t) nv, 1);
  sh->relaxed_index = malloc ((size_t) nv * sizeof *sh->relaxed_index);
  if (sh->needed == NULL || sh->relaxed_index == NULL || cn__proof_relaxed_values (g, &sh->relaxed, &sh->n_relaxed) != 0
      || (sh->relaxed_n = malloc ((size_t) (sh->n_relaxed + 1) * sizeof *sh->relaxed_n)) == NULL
      || (sh->relaxed_off = malloc ((size_t) (sh->n_relaxed + 1) * sizeof *sh->relaxed_off)) == NULL)
    return cn_error_set (err, CN_ENOMEM, "check-certificate: out of memory");
  for (int v = 0; v < nv; v++)
    sh->relaxed_index[v] = -1;
  for (int q = 0, off = 0; q < sh->n_relaxed; q++)
    {
      sh->relaxed_index[sh->relaxed[q]] = q;
      sh->relaxed_n[q] = g->values[sh->relaxed[q]].numel;
      sh->relaxed_off[q] = off;
      off += 2 * (int) sh->relaxed_n[q];
      sh->relaxed_numel += sh->relaxed_n[q];
    }
  if (cn__proof_relus (g, &sh->relus, &sh->n_relus) != 0
      || (sh->relu_n = malloc ((size_t) (sh->n_relus + 1) * sizeof *sh->relu_n)) == NULL
      || (sh->relu_off = malloc ((size_t) (sh->n_relus + 1) * sizeof *sh->relu_off)) == NULL
      || (sh->relu_ord = malloc ((size_t) (g->n_nodes + 1) * sizeof *sh->relu_ord)) == NULL)
    return cn_error_set (err, CN_ENOMEM, "check-certificate: out of memory");
  for (int k = 0; k < g->n_nodes; k++)
    sh->relu_ord[k] = -1;
  for (int r = 0; r < sh->n_relus; r++)
    {
      sh->relu_ord[sh->relus[r]] = r;
      sh->relu_n[r] = g->values[g->nodes[sh->relus[r]].out[0]].numel;
      sh->relu_off[r] = sh->relus_numel;
      sh->relus_numel += sh->relu_n[r];
    }
  sh->x = g->inputs[0];
  sh->y = g->outputs[0];
  cn__graph_mark_needed (g, sh->y, sh->needed);
  sh->max_in = 1;
  for (int k = 0; k < g->n_nodes; k++)
    {
      const struct cn__node *nd = &g->nodes[k];
      if (!cn__node_any_out (nd, sh->needed))
        continue;
      if (nd->n_out != 1)
        return cn_error_set (err, CN_EUNSUPPORTED, "check-certificate: node '%s' (%s) has %d outputs; the checker "
                             "takes single-output nodes", nd->name, cn_op_name (nd->op), nd->n_out);
      if (nd->rule->ibp_mpfi == NULL || nd->rule->proof == NULL)
        return cn_error_set (err, CN_EUNSUPPORTED, "check-certificate: node '%s' (%s) has no %s: the checker cannot "
                             "re-derive bounds through it", nd->name, cn_op_name (nd->op),
                             nd->rule->ibp_mpfi == NULL ? "MPFI arm" : "checker step");
      for (int i = 0; i < nd->n_in; i++)
        {
          const struct cn__value *u = &g->values[nd->in[i]];
          if (u->is_constant && u->cdata == NULL)
            return cn_error_set (err, CN_EUNSUPPORTED, "check-certificate: node '%s' (%s) reads the constant '%s', "
                                 "which is not of the model's scalar", nd->name, cn_op_name (nd->op), u->name);
        }
      sh->max_in = nd->n_in > sh->max_in ? nd->n_in : sh->max_in;
    }
  return CN_OK;
}

cn_status
cn_proof_check (const cn_graph *g, const cn_spec *spec, const char *network_sha256, const char *property_sha256,
                FILE *f, const cn_proof_opts *opts, cn_proof_result *result, cn_error *err)
{
  double t0 = cn__now ();
  memset (result, 0, sizeof *result);
  if (g == NULL || spec == NULL || f == NULL || network_sha256 == NULL || property_sha256 == NULL)
    return cn_error_set (err, CN_EINVAL, "check-certificate: missing network, property, digest or file");
  cn_proof_opts o;
  cn_proof_opts_init (&o);
  if (opts != NULL)
    o = *opts;
  if (o.precision == 0)
    o.precision = 64;
  if (o.precision < 53 || o.precision > 4096)
    return cn_error_set (err, CN_EINVAL, "check-certificate: precision %ld bits (53 to 4096)", o.precision);
  cert c;
  memset (&c, 0, sizeof c);
  shared sh;
  memset (&sh, 0, sizeof sh);
  double *lo = NULL, *hi = NULL;
  cn_status st = CN_OK;
  /* the network must be the property's shape (the digests say whether it is the one the certificate names) */
  if (cn_graph_n_inputs (g) != 1 || cn_graph_n_outputs (g) < 1
      || cn_shape_numel (cn_graph_value_shape (g, cn_graph_input (g, 0))) != spec->n_x
      || cn_shape_numel (cn_graph_value_shape (g, cn_graph_output (g, 0))) != spec->n_y)
    {
      st = cn_error_set (err, CN_ESHAPE, "check-certificate: the network's input and output do not match the "
                         "property's %lld inputs and %lld outputs", (long long) spec->n_x, (long long) spec->n_y);
      goto done;
    }
  if ((st = shared_init (&sh, g, err)) != CN_OK)
    goto done;
  c.n_relaxed = sh.n_relaxed;
  c.relaxed_n = sh.relaxed_n;
  c.n_relus = sh.n_relus;
  c.relu_n = sh.relu_n;
  c.relus_numel = sh.relus_numel;
  int rd = cert_read (f, spec, network_sha256, property_sha256, &c, result);
  if (rd < 0)
    {
      st = cn_error_set (err, CN_ENOMEM, "check-certificate: out of memory");
      goto done;
    }
  if (rd > 0)
    goto done;
  result->nodes = c.n_nodes;
  result->refutations = c.n_refs;
  int64_t n = spec->n_x;
  lo = malloc ((size_t) (c.n_nodes * n + 1) * sizeof *lo);
  hi = malloc ((size_t) (c.n_nodes * n + 1) * sizeof *hi);
  if (lo == NULL || hi == NULL)
    {
      st = cn_error_set (err, CN_ENOMEM, "check-certificate: out of memory");
      goto done;
    }
  int tc = tree_check (spec, &c, lo, hi, result);
  if (tc < 0)
    st = cn_error_set (err, CN_ENOMEM, "check-certificate: out of memory");
  if (tc != 0)
    goto done;
  sh.g = g;
  sh.spec = spec;
  sh.c = &c;
  sh.lo = lo;
  sh.hi = hi;
  sh.prec = (mpfr_prec_t) o.precision;
  /* the nodes with refutations, checked in parallel; the failure reported is the first node's */
  int64_t *todo = malloc ((size_t) (c.n_nodes + 1) * sizeof *todo), nt = 0;
  if (todo == NULL)
    {
      st = cn_error_set (err, CN_ENOMEM, "check-certificate: out of memory");
      goto done;
    }
  /* the work: every node whose boxes are derived afresh (not a ReLU split) and that refutes,
   * claims boxes, claims an empty domain or has ReLU-split children (checked below it, each
   * from its parent's boxes, by check_subtree) */
  for (int64_t i = 0; i < c.n_nodes; i++)
    {
      const pnode *nd = &c.nodes[i];
      if (nd->kind != K_SPLIT
          && (nd->nref > 0 || nd->nbox > 0 || nd->empty || (nd->nchild > 0 && c.nodes[nd->child[0]].kind == K_SPLIT)))
        todo[nt++] = i;
    }
  failure first = { .node = INT64_MAX };
  cn_status fail_st = CN_OK;
  cn_error fail_err;
  cn_error_clear (&fail_err);
  int threads = o.threads;
#ifdef _OPENMP
  if (threads <= 0)
    threads = omp_get_max_threads ();
#else
  threads = 1;
#endif
#pragma omp parallel num_threads(threads)
  {
    machine m;
    cn_error e;
    cn_error_clear (&e);
    cn_status ms = machine_init (&m, &sh, &e);
    m.tasks = threads > 1;
    if (ms != CN_OK)
      {
#pragma omp critical
        if (fail_st == CN_OK)
          {
            fail_st = ms;
            fail_err = e;
          }
      }
#pragma omp for schedule(dynamic, 1)
    for (int64_t t = 0; t < nt; t++)
      {
        int64_t i = todo[t];
        int skip;
#pragma omp atomic read
        skip = fail_st;
        if (ms != CN_OK || skip != CN_OK)
          continue;
        failure fl = { .node = i };
        cn_status s2 = CN_OK;
        if (check_subtree (&m, i, NULL, &fl, &s2, &e))
          {
#pragma omp critical
            {
              if (s2 != CN_OK)
                {
                  if (fail_st == CN_OK)
                    {
                      fail_st = s2;
                      fail_err = e;
                    }
                }
              else if (fl.node < first.node)
                first = fl;
            }
          }
      }
    if (ms == CN_OK)
      machine_clear (&m, g->n_values);
  }
  free (todo);
  if (fail_st != CN_OK)
    {
      *err = fail_err;
      st = fail_st;
      goto done;
    }
  if (first.node != INT64_MAX)
    {
      reject (result, "%s", first.msg);
      goto done;
    }
  result->accepted = 1;
done:
  result->seconds = cn__now () - t0;
  free (sh.needed);
  free (sh.relaxed);
  free (sh.relaxed_n);
  free (sh.relaxed_off);
  free (sh.relaxed_index);
  free (sh.relus);
  free (sh.relu_n);
  free (sh.relu_off);
  free (sh.relu_ord);
  free (lo);
  free (hi);
  cert_clear (&c);
  return st;
}
