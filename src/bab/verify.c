/* SPDX-License-Identifier: MIT */
/* src/bab/verify.c: complete verification by input-splitting branch and bound (ALGORITHMS.md 5).
 *
 * A case of the specification is an input box B and a disjunction of clauses, clause j being
 * the conjunction of rows M_r y <= rhs_r.  The case is proved (unsat) when every clause is
 * refuted on every box of a finite cover of B; a clause is refuted on a box when one of its
 * rows has a sound lower bound of M_r f(x) above RU(rhs_r) (CROWN, certnn/bounds.h), since
 * then no x of the box satisfies that row.
 *
 * Domains are sub-boxes of B with the set of clauses not yet refuted on them (a clause
 * refuted on a box stays refuted on its sub-boxes).  A queue holds the open domains, ordered
 * both by their margin, the worst clause's best row lower bound minus rhs (lowest first), and by
 * the least binary64 violation seen at their points (struct queue).  Each round pops a batch,
 * alternately from either order, splits every domain in two halves along the dimension it scored best when it
 * was bounded (ALGORITHMS.md 5.4:
 *     score_i = max_r  max(|Lambda_r,i|, 1e-3) (hi_i - lo_i)/2 + (lb_r - rhs_r),
 * Lambda_r the input coefficients of row r's CROWN lower bound), and bounds all children in
 * parallel, one per OpenMP thread.  What holds after a round: the union of the queued boxes
 * and of the boxes where some clause stays open covers every point of B where some clause is
 * not yet refuted.  Past the queue cap, popped domains are searched depth first inside the
 * worker, which bounds memory by the depth.
 *
 * Every bounded domain's centre, and for each open clause the corner minimising its best row's
 * linear lower bound, are tried as counterexamples (cheap binary64 filter, then the exact
 * check).  Attacks (random points and PGD) run before the search, and every PGD_EVERY rounds a
 * short PGD runs inside the queued domain with the least violation seen. */
#include <config.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <omp.h>
#include "bab/bab_impl.h"
#include "proof/proof_impl.h"
#include "sound/sound.h"

#define MAX_DEPTH 400          /* splits along one path; binary64 boxes stop far earlier */
#define BATCH_PER_THREAD 4     /* domains popped per thread and round */
#define PGD_EVERY 16           /* rounds between PGD runs in the worst domain */
#define ESCALATE_ITERATIONS 3  /* alpha-CROWN sweeps per row once the search escalates */

const char *
cn_verdict_name (cn_verdict v)
{
  switch (v)
    {
    case CN_VERDICT_UNSAT: return "unsat";
    case CN_VERDICT_SAT: return "sat";
    case CN_VERDICT_UNKNOWN: return "unknown";
    case CN_VERDICT_TIMEOUT: return "timeout";
    default: return "invalid";
    }
}

void
cn_verify_opts_init (cn_verify_opts *o)
{
  memset (o, 0, sizeof *o);
  cn_bounds_opts_init (&o->bounds);
  o->timeout = 0;
  o->max_queue = 0;
  o->attack_restarts = 20;
  o->attack_steps = 50;
  o->random_samples = 10000;
  o->seed = 1;
  o->slopes = 1;
  o->lookahead = 1;
  o->combine = 1;
  o->clip = 1;
  o->escalate = 16384;
  o->relu_split = 1;
  o->beta = 1;
  o->fsb = 4;
  o->progress_interval = 0.5;
}

void
cn_verify_result_clear (cn_verify_result *r)
{
  if (r == NULL)
    return;
  free (r->x);
  free (r->y);
  memset (r, 0, sizeof *r);
}

int
cn__should_stop (cn__verifier *v)
{
  int s;
#pragma omp atomic read
  s = v->stop;
  if (s)
    return 1;
  if (cn__now () > v->deadline)
    {
#pragma omp atomic write
      v->stop = 1;
      return 1;
    }
  return 0;
}

/* ---- domains ------------------------------------------------------------------------- */

/* An open domain: a sub-box of the case's box, the clauses still open on it, and what its
 * bounding decided (margin and split dimension).  One allocation: the struct, lo, hi, live. */
typedef struct domain
{
  double margin;               /* min over open clauses of max over rows (lb - RU(rhs)) */
  double viol;                 /* the least binary64 clause violation seen at the domain's points */
  int refs;                    /* queues holding the domain (see struct queue) */
  int taken;                   /* popped from one queue: the other drops it when it meets it */
  int64_t split[2];            /* candidate dimensions to split (5.4 score, widest in input
                                  units); -1 where none, split[1] -1 if it equals split[0] */
  int depth;
  double *lo, *hi;
  unsigned char *live;
  /* with a certificate: the node's place in its case's tree, and its refutations */
  int64_t id, parent, axis;    /* id once written; parent -1 for a root; the parent's split */
  double mid;
  int side;                    /* 0: [lo, mid] on the axis, 1: [mid, hi] */
  int kind;                    /* NODE_INPUT (root or input split), NODE_SPLIT, NODE_RESTART */
  int split_q;                 /* NODE_SPLIT: entry split_j of relaxed value split_q, >= 0 for */
  int64_t split_j;             /*   split_sign 1, <= 0 for -1 */
  int split_sign;
  int empty;                   /* the domain was found empty */
  int64_t n_path;              /* NODE_SPLIT: the splits on the path from its search's root */
  struct refutation *ref;      /* nc entries (NULL without a certificate) */
  double *ref_a;               /* nc x n: each refutation's input coefficients */
  int64_t nc;                  /* with a certificate: the entries of ref */
  double *boxes;               /* NULL, or (malloc'd, once a clause is refuted here) the boxes of
                                  the relaxed values (cn__verifier.relaxed) the bounds used: per
                                  value its lo then its hi */
} domain;

/* How clause j was refuted on a domain (the certificate's refute line): the sum of rows ra and
 * rb (rb -1: row ra alone; ra -1: all the clause's rows), the sweep's slope, the claimed bound
 * and the linear bound's intercept c (its coefficients in the domain's ref_a). */
struct refutation
{
  double lower, c;
  int64_t ra, rb;
  int slope;
  int set;
  double *alpha;               /* NULL, or (a ReLU-split refutation by explicit parameters,
                                  malloc'd) the relus' lower slopes (relus_numel, NaN: by the
                                  slope), then the path's n_path betas */
};

/* A certificate node's kind (domain.kind). */
enum { NODE_INPUT, NODE_SPLIT, NODE_RESTART };

/* One allocation: the struct, lo, hi, (with CERT) ref_a and ref, then live. */
static domain *
domain_new (int64_t n, int64_t nc, int cert)
{
  size_t evidence = cert ? (size_t) nc * ((size_t) n * sizeof (double) + sizeof (struct refutation)) : 0;
  size_t size = sizeof (domain) + 2 * (size_t) n * sizeof (double) + evidence + (size_t) nc + 1;
  domain *d = malloc (size);
  if (d == NULL)
    return NULL;
  d->lo = (double *) (d + 1);
  d->hi = d->lo + n;
  d->ref_a = cert ? d->hi + n : NULL;
  d->ref = cert ? (struct refutation *) (d->hi + n + nc * n) : NULL;
  d->live = cert ? (unsigned char *) (d->ref + nc) : (unsigned char *) (d->hi + n);
  for (int64_t j = 0; cert && j < nc; j++)
    {
      d->ref[j].set = 0;
      d->ref[j].alpha = NULL;
    }
  d->nc = cert ? nc : 0;
  d->kind = NODE_INPUT;
  d->split_q = d->split_sign = d->empty = 0;
  d->split_j = d->n_path = 0;
  d->id = d->parent = d->axis = -1;
  d->boxes = NULL;
  d->mid = 0;
  d->side = 0;
  d->margin = -INFINITY;
  d->viol = INFINITY;
  d->refs = 0;
  d->taken = 0;
  d->split[0] = d->split[1] = -1;
  d->depth = 0;
  return d;
}

/* Frees D (NULL: nothing) and its boxes. */
static void
domain_free (domain *d)
{
  if (d != NULL)
    {
      free (d->boxes);
      for (int64_t j = 0; j < d->nc; j++)
        free (d->ref[j].alpha);
    }
  free (d);
}

/* The two halves of D along dimension I: returns 1, or 0 (no children) when the midpoint is not
 * strictly inside (the box cannot be split further in binary64), -1 when out of memory. */
static int
domain_split (const domain *d, int64_t i, int64_t n, int64_t nc, domain **left, domain **right)
{
  *left = *right = NULL;
  if (i < 0)
    return 0;
  double lo = d->lo[i], hi = d->hi[i];
  double mid = lo + 0.5 * (hi - lo);
  if (!(mid > lo && mid < hi))
    return 0;
  int cert = d->ref != NULL;
  domain *a = domain_new (n, nc, cert), *b = domain_new (n, nc, cert);
  if (a == NULL || b == NULL)
    {
      domain_free (a);
      domain_free (b);
      return -1;
    }
  for (domain **c = (domain *[]) { a, b, NULL }; *c != NULL; c++)
    {
      memcpy ((*c)->lo, d->lo, (size_t) n * sizeof (double));
      memcpy ((*c)->hi, d->hi, (size_t) n * sizeof (double));
      memcpy ((*c)->live, d->live, (size_t) nc);
      (*c)->depth = d->depth + 1;
      (*c)->parent = d->id;
      (*c)->axis = i;
      (*c)->mid = mid;
    }
  b->side = 1;
  /* [lo, mid] and [mid, hi] cover [lo, hi] */
  a->hi[i] = mid;
  b->lo[i] = mid;
  *left = a;
  *right = b;
  return 1;
}

/* A binary min-heap of domains by one key: the margin (KEY 0) or the violation (KEY 1). */
typedef struct heap
{
  domain **d;
  int64_t n, cap;
  int key;
} heap;

static double
heap_key (const heap *h, const domain *d)
{
  return h->key ? d->viol : d->margin;
}

static int
heap_push (heap *h, domain *d)
{
  if (h->n == h->cap)
    {
      int64_t cap = h->cap ? 2 * h->cap : 1024;
      domain **p = realloc (h->d, (size_t) cap * sizeof *p);
      if (p == NULL)
        return -1;
      h->d = p;
      h->cap = cap;
    }
  int64_t i = h->n++;
  double k = heap_key (h, d);
  while (i > 0 && heap_key (h, h->d[(i - 1) / 2]) > k)
    {
      h->d[i] = h->d[(i - 1) / 2];
      i = (i - 1) / 2;
    }
  h->d[i] = d;
  return 0;
}

static domain *
heap_pop (heap *h)
{
  if (h->n == 0)
    return NULL;
  domain *top = h->d[0], *last = h->d[--h->n];
  double kl = heap_key (h, last);
  int64_t i = 0;
  for (;;)
    {
      int64_t c = 2 * i + 1;
      if (c >= h->n)
        break;
      if (c + 1 < h->n && heap_key (h, h->d[c + 1]) < heap_key (h, h->d[c]))
        c++;
      if (heap_key (h, h->d[c]) >= kl)
        break;
      h->d[i] = h->d[c];
      i = c;
    }
  if (h->n > 0)
    h->d[i] = last;
  return top;
}

/* The open domains, held by two heaps: by margin (worst first: what the proof needs) and by
 * the least violation seen at their points (most promising first: where a counterexample is
 * likeliest).  Each round takes domains from both, so the order costs a proof nothing (every
 * domain is bounded anyway) and a counterexample is looked for where it is likeliest.  A
 * domain taken from one heap is marked and dropped by the other when it comes up (lazy
 * deletion); REFS counts its holders (the heaps, and the round that took it), and the last
 * holder to let go frees it. */
typedef struct queue
{
  heap by_margin, by_viol;
  int64_t live;                /* domains not yet taken */
} queue;

/* One holder lets go of D. */
static void
domain_release (domain *d)
{
  if (d != NULL && --d->refs <= 0)
    domain_free (d);
}

static int
queue_push (queue *q, domain *d)
{
  if (heap_push (&q->by_margin, d) != 0)
    return -1;
  d->refs = 1;
  if (heap_push (&q->by_viol, d) != 0)
    {
      /* only the margin heap holds it: still a valid queue entry */
      q->live++;
      return 0;
    }
  d->refs = 2;
  q->live++;
  return 0;
}

/* Takes the top live domain of heap H of Q (NULL if none): the heap's hold passes to the
 * caller, who releases it. */
static domain *
queue_take (queue *q, heap *h)
{
  for (;;)
    {
      domain *d = heap_pop (h);
      if (d == NULL)
        return NULL;
      if (d->taken)
        {
          domain_release (d);
          continue;
        }
      d->taken = 1;
      q->live--;
      return d;
    }
}

/* The top live domain of heap H without taking it (dropping dead tops), or NULL. */
static domain *
queue_peek (heap *h)
{
  while (h->n > 0 && h->d[0]->taken)
    {
      domain_release (heap_pop (h));
    }
  return h->n > 0 ? h->d[0] : NULL;
}

static void
queue_clear (queue *q)
{
  heap *hs[2] = { &q->by_margin, &q->by_viol };
  for (int k = 0; k < 2; k++)
    {
      for (int64_t i = 0; i < hs[k]->n; i++)
        domain_release (hs[k]->d[i]);
      free (hs[k]->d);
      hs[k]->d = NULL;
      hs[k]->n = hs[k]->cap = 0;
    }
  q->live = 0;
}

/* ---- bounding one domain ------------------------------------------------------------- */

/* Per-thread scratch for bounding domains of case K. */
typedef struct work
{
  int64_t rows_max;
  double *c, *lower, *alt, *coef, *point, *corner;
  double *lower_coef;          /* the bound of the sweep whose input coefficients are coef */
  double *clo, *chi, *hlo, *hhi; /* a clause's clipped box, the hull over the open clauses */
  int64_t *row_clause;         /* the clause of each bounded row */
  double *row_rhs;             /* an upper bound of the row's right-hand side */
  int64_t *row_a, *row_b;      /* the clause rows summed in each bounded row (struct refutation) */
  /* with a certificate: per slope q of SLOPES_CERT, each row's bound and its input coefficients
   * (rows_max and rows_max x n per slope), and the slope each row's best bound came from */
  double *lower_q, *coef_q;
  int *row_q;
  double *boxes;               /* the relaxed values' boxes of the domain bounded last */
  cn_box box;
} work;

/* The slopes a certified domain is bounded with (the first replaced by the search's own). */
static const cn_slope slopes_cert[] = { CN_SLOPE_ADAPTIVE, CN_SLOPE_ZERO, CN_SLOPE_ONE, CN_SLOPE_RATIO };
#define N_SLOPES_CERT 4

/* Sums of rows of one clause bounded with its rows (a conjunction M_r y <= rhs_r, r in R): if
 * the sum over a subset S has a lower bound above the sum of the rhs_r, no y satisfies every row
 * of S, so the clause is refuted even where no single row is.  The subsets used: all rows
 * (|R| >= 2) and every pair (3 <= |R| <= 6). */
static int64_t
combinations (int64_t nr)
{
  return (nr >= 2 ? 1 : 0) + (nr >= 3 && nr <= 6 ? nr * (nr - 1) / 2 : 0);
}

/* Whether X is an integer of magnitude below 2^50 (VNN-LIB 1.0 rows are 0 and +-1; 2.0 rows
 * may hold any integer below 2^53). */
static int
small_integer (double x)
{
  return x == trunc (x) && fabs (x) < 0x1p50;
}

/* Appends to W's rows the sum of the rows of clause CL whose indices are set in the mask
 * SUBSET (bit r for row r), labelled clause J, unless a coefficient is not a small integer
 * (the sum could round, and the bound would be of another row).  Returns the new row count. */
static int64_t
add_combination (work *w, int64_t rows, int64_t m, const cn_spec_clause *cl, int64_t j, uint64_t subset)
{
  double *c = w->c + rows * m;
  double rhs = 0;
  memset (c, 0, (size_t) m * sizeof *c);
  for (int64_t r = 0; r < cl->n_rows; r++)
    {
      if (!(r < 64 ? subset >> r & 1 : subset == ~(uint64_t) 0))
        continue;
      for (int64_t i = 0; i < m; i++)
        {
          if (!small_integer (cl->mat[r * m + i]))
            return rows;
          c[i] += cl->mat[r * m + i];
          /* the sum of two integers is exact iff its magnitude is below 2^53 (rounding is
           * monotone and 2^53 a double, so a larger exact sum rounds to 2^53 or more) */
          if (!(fabs (c[i]) < 0x1p53))
            return rows;
        }
      rhs = cn__up (rhs + cl->rhs_up[r]);  /* now rhs >= the exact sum of the rhs so far */
    }
  w->row_clause[rows] = j;
  w->row_rhs[rows] = rhs;
  /* all rows, or the pair: the two lowest bits set */
  int pair = subset != ~(uint64_t) 0 && cl->n_rows > 2 && __builtin_popcountll (subset) == 2;
  w->row_a[rows] = pair ? __builtin_ctzll (subset) : -1;
  w->row_b[rows] = pair ? 63 - __builtin_clzll (subset) : -1;
  return rows + 1;
}


static void
work_clear (work *w)
{
  free (w->c);
  free (w->lower);
  free (w->alt);
  free (w->coef);
  free (w->point);
  free (w->corner);
  free (w->lower_coef);
  free (w->clo);
  free (w->chi);
  free (w->hlo);
  free (w->hhi);
  free (w->row_clause);
  free (w->row_rhs);
  free (w->row_a);
  free (w->row_b);
  free (w->lower_q);
  free (w->coef_q);
  free (w->row_q);
  free (w->boxes);
  cn_box_clear (&w->box);
  memset (w, 0, sizeof *w);
}

static cn_status
work_init (work *w, const cn__verifier *v, int64_t k, cn_error *err)
{
  memset (w, 0, sizeof *w);
  const cn_spec_case *cs = &v->spec->cases[k];
  int64_t n = v->spec->n_x, m = v->spec->n_y, rows = 0;
  for (int64_t j = 0; j < cs->n_clauses; j++)
    rows += cs->clauses[j].n_rows + combinations (cs->clauses[j].n_rows);
  w->rows_max = rows;
  size_t r1 = (size_t) (rows ? rows : 1);
  w->c = malloc (r1 * (size_t) m * sizeof (double) + 1);
  w->lower = malloc (r1 * sizeof (double));
  w->alt = malloc (r1 * sizeof (double));
  w->coef = malloc (r1 * (size_t) n * sizeof (double) + 1);
  w->point = malloc ((size_t) n * sizeof (double) + 1);
  w->corner = malloc ((size_t) n * sizeof (double) + 1);
  w->lower_coef = malloc (r1 * sizeof (double));
  w->clo = malloc ((size_t) n * sizeof (double) + 1);
  w->chi = malloc ((size_t) n * sizeof (double) + 1);
  w->hlo = malloc ((size_t) n * sizeof (double) + 1);
  w->hhi = malloc ((size_t) n * sizeof (double) + 1);
  w->row_clause = malloc (r1 * sizeof (int64_t));
  w->row_rhs = malloc (r1 * sizeof (double));
  w->row_a = malloc (r1 * sizeof (int64_t));
  w->row_b = malloc (r1 * sizeof (int64_t));
  int cert = v->opts.certificate != NULL;
  if (cert)
    {
      w->lower_q = malloc (N_SLOPES_CERT * r1 * sizeof (double));
      w->coef_q = malloc (N_SLOPES_CERT * r1 * (size_t) n * sizeof (double) + 1);
      w->row_q = malloc (r1 * sizeof (int));
      w->boxes = malloc (2 * (size_t) v->relaxed_numel * sizeof (double) + 1);
    }
  if ((cert && (w->lower_q == NULL || w->coef_q == NULL || w->row_q == NULL || w->boxes == NULL)) || w->row_a == NULL
      || w->row_b == NULL || w->c == NULL || w->lower == NULL || w->alt == NULL || w->coef == NULL || w->point == NULL || w->corner == NULL
      || w->lower_coef == NULL || w->clo == NULL || w->chi == NULL || w->hlo == NULL || w->hhi == NULL
      || w->row_clause == NULL || w->row_rhs == NULL || cn_box_init (&w->box, n, err) != CN_OK)
    {
      work_clear (w);
      return cn_error_set (err, CN_ENOMEM, "verify: out of memory");
    }
  return CN_OK;
}

enum bound_result { B_REFUTED, B_OPEN, B_FOUND, B_STOP, B_FAILED };

/* Fills W's rows with those of the open clauses LIVE of case K (and their combinations);
 * returns the row count. */
static int64_t
open_rows (const cn__verifier *v, work *w, int64_t k, const unsigned char *live)
{
  const cn_spec_case *cs = &v->spec->cases[k];
  int64_t m = v->spec->n_y, rows = 0;
  for (int64_t j = 0; j < cs->n_clauses; j++)
    {
      if (!live[j])
        continue;
      const cn_spec_clause *cl = &cs->clauses[j];
      for (int64_t r = 0; r < cl->n_rows; r++, rows++)
        {
          memcpy (w->c + rows * m, cl->mat + r * m, (size_t) m * sizeof (double));
          w->row_clause[rows] = j;
          w->row_rhs[rows] = cl->rhs_up[r];
          w->row_a[rows] = r;
          w->row_b[rows] = -1;
        }
      if (!v->opts.combine || cl->n_rows < 2)
        continue;
      rows = add_combination (w, rows, m, cl, j, cl->n_rows >= 64 ? ~(uint64_t) 0 : ((uint64_t) 1 << cl->n_rows) - 1);
      if (cl->n_rows >= 3 && cl->n_rows <= 6)
        for (int64_t a = 0; a < cl->n_rows; a++)
          for (int64_t b = a + 1; b < cl->n_rows; b++)
            rows = add_combination (w, rows, m, cl, j, ((uint64_t) 1 << a) | ((uint64_t) 1 << b));
    }
  return rows;
}

/* Sound lower bounds of W's ROWS rows of graph output 0 over A's domain into W->lower, their input
 * coefficients into W->coef (the adaptive sweep's).  Every lower slope gives a sound bound, so
 * with SLOPES the best per row of the adaptive and the fixed slopes is kept (a cheap
 * stand-in for optimising them, ALGORITHMS.md 4); A's slope is left as it was. */
static cn_status
domain_lower (const cn__verifier *v, work *w, cn_analysis *a, int64_t rows, cn_slope slope, int slopes, cn_error *err)
{
  int y = cn_graph_output (v->g, 0);
  cn_status st;
  if (rows == 0)
    return CN_OK;
  if (v->opts.certificate != NULL)
    {
      /* every slope's bound with its own coefficients (the certificate records the pair that
       * refutes), the search's slope first; W->coef and lower_coef stay the first sweep's */
      int64_t n = v->spec->n_x, rm = w->rows_max;
      int ns = slopes ? N_SLOPES_CERT : 1;
      for (int q = 0; q < ns; q++)
        {
          cn_analysis_set_slope (a, q == 0 ? slope : slopes_cert[q]);
          st = cn_analysis_lower_coef (a, y, w->c, rows, w->lower_q + q * rm, w->coef_q + q * rm * n, err);
          cn_analysis_set_slope (a, slope);
          if (st != CN_OK)
            return st;
        }
      for (int64_t r = 0; r < rows; r++)
        {
          w->row_q[r] = 0;
          for (int q = 1; q < ns; q++)
            if (w->lower_q[q * rm + r] > w->lower_q[w->row_q[r] * rm + r])
              w->row_q[r] = q;
          w->lower[r] = w->lower_q[w->row_q[r] * rm + r];
        }
      memcpy (w->lower_coef, w->lower_q, (size_t) rows * sizeof *w->lower);
      memcpy (w->coef, w->coef_q, (size_t) (rows * n) * sizeof *w->coef);
      return CN_OK;
    }
  if ((st = cn_analysis_lower_coef (a, y, w->c, rows, w->lower, w->coef, err)) != CN_OK)
    return st;
  memcpy (w->lower_coef, w->lower, (size_t) rows * sizeof *w->lower);
  static const cn_slope others[] = { CN_SLOPE_ZERO, CN_SLOPE_ONE, CN_SLOPE_RATIO };
  for (size_t q = 0; q < sizeof others / sizeof others[0] && slopes; q++)
    {
      cn_analysis_set_slope (a, others[q]);
      st = cn_analysis_lower (a, y, w->c, rows, w->alt, err);
      cn_analysis_set_slope (a, slope);
      if (st != CN_OK)
        return st;
      for (int64_t r = 0; r < rows; r++)
        if (w->alt[r] > w->lower[r])
          w->lower[r] = w->alt[r];
    }
  return CN_OK;
}

/* The rows of one clause start at R0 of W's ROWS: *R1 receives the first row past them, *BEST
 * the row of the largest margin lb - RU(rhs), and that margin is returned (NaN: -inf).  The
 * clause is refuted iff it is > 0. */
static double
clause_margin (const work *w, int64_t r0, int64_t rows, int64_t *r1, int64_t *best)
{
  int64_t j = w->row_clause[r0], r = r0;
  double cm = -INFINITY;
  *best = r0;
  for (; r < rows && w->row_clause[r] == j; r++)
    {
      double mg = w->lower[r] - w->row_rhs[r];
      if (mg > cm || r == r0)
        {
          cm = isnan (mg) ? -INFINITY : mg;
          *best = r;
        }
    }
  *r1 = r;
  return cm;
}

/* The corner of the box [LO, HI] (N entries) minimising the linear function LAM . x into X: the
 * lower end where lam_i > 0, the upper where lam_i < 0, the midpoint where lam_i = 0. */
static void
min_corner (const double *lam, const double *lo, const double *hi, int64_t n, double *x)
{
  for (int64_t i = 0; i < n; i++)
    x[i] = lam[i] > 0 ? lo[i] : lam[i] < 0 ? hi[i] : lo[i] + 0.5 * (hi[i] - lo[i]);
}

/* Shrinks domain D's box to the hull of the parts where each open clause can hold ("clip and
 * verify"), from the ROWS rows of W bounded over it by one CROWN sweep each: row r's sweep
 * proves f_r(x) >= a_r . x + d_r on the box for some real d_r, with lower_coef[r] <=
 * min_box a_r . x + d_r, so d_r >= lower_coef[r] - RU(min_box a_r . x).  A point where clause
 * j holds has f_r(x) <= rhs_r for each of its rows, hence
 *     a_r . x <= u_r = RU(RU(rhs_r - lower_coef[r]) + RU(min_box a_r . x)),
 * and lies in the box clipped by every such halfspace (cn__box_clip_halfspace, twice over the
 * rows, as each clip helps the others).  A clause none of whose points survive is refuted on D
 * (D->live[j] cleared).  What holds after: every point of D's former box where an open clause
 * holds lies in D's box.  Returns 1 when every clause is refuted, else 0. */
static int
clip_domain (work *w, int64_t rows, int64_t n, domain *d)
{
  int any = 0;
  for (int64_t r0 = 0, r1; r0 < rows; r0 = r1)
    {
      int64_t j = w->row_clause[r0];
      for (r1 = r0; r1 < rows && w->row_clause[r1] == j; r1++)
        ;
      memcpy (w->clo, d->lo, (size_t) n * sizeof (double));
      memcpy (w->chi, d->hi, (size_t) n * sizeof (double));
      for (int pass = 0; pass < 2 && d->live[j]; pass++)
        for (int64_t r = r0; r < r1; r++)
          {
            const double *a = w->coef + r * n;
            if (!(w->lower_coef[r] > -INFINITY))
              continue;
            double u = cn__up (cn__up (w->row_rhs[r] - w->lower_coef[r]) + cn__box_min_dot_up (n, a, d->lo, d->hi));
            if (cn__box_clip_halfspace (n, a, u, w->clo, w->chi))
              {
                d->live[j] = 0;    /* no point of the box meets clause j */
                break;
              }
          }
      if (!d->live[j])
        continue;
      for (int64_t i = 0; i < n; i++)
        {
          w->hlo[i] = any ? fmin (w->hlo[i], w->clo[i]) : w->clo[i];
          w->hhi[i] = any ? fmax (w->hhi[i], w->chi[i]) : w->chi[i];
        }
      any = 1;
    }
  if (!any)
    return 1;
  memcpy (d->lo, w->hlo, (size_t) n * sizeof (double));
  memcpy (d->hi, w->hhi, (size_t) n * sizeof (double));
  return 0;
}

/* Records in D that clause J was refuted by W's row BEST (the certificate's refute line), bounded
 * by LOWER through a sweep with SLOPE and input coefficients A: a claimed bound and the intercept
 *     c = RU (claim - RD (min over the box of a . x)),
 * so that a . x + c >= claim on the box.  The claim sits a little below the row's bound lower
 * (by 2^-32 of the magnitudes involved, and never down to the rhs): the checker re-derives the
 * bound in MPFI from its own intermediate boxes, which differ from binary64's in the last bits,
 * and must find a bound at least this one. */
static void
record_bound (const cn__verifier *v, const work *w, domain *d, int64_t j, int64_t best, int slope, double lower,
              const double *a)
{
  int64_t n = v->spec->n_x;
  double rhs = w->row_rhs[best];
  double scale = fabs (lower);
  for (int64_t i = 0; i < n; i++)
    scale += fabs (a[i]) * fmax (fabs (d->lo[i]), fabs (d->hi[i]));
  double claim = lower - 0x1p-32 * scale;
  if (!(claim > rhs))
    claim = rhs + 0.5 * (lower - rhs);
  if (!(claim > rhs && claim <= lower))
    claim = lower;
  struct refutation *rf = &d->ref[j];
  rf->lower = claim;
  rf->c = cn__up (claim - cn__box_min_dot (n, a, d->lo, d->hi));
  rf->ra = w->row_a[best];
  rf->rb = w->row_b[best];
  rf->slope = slope;
  rf->set = 1;
  memcpy (d->ref_a + j * n, a, (size_t) n * sizeof *a);
  if (d->boxes == NULL && (d->boxes = malloc (2 * (size_t) v->relaxed_numel * sizeof (double) + 1)) != NULL)
    memcpy (d->boxes, w->boxes, 2 * (size_t) v->relaxed_numel * sizeof (double));
}

/* record_bound for W's row BEST as domain_lower bounded it (its best slope's sweep). */
static void
record_refutation (const cn__verifier *v, const work *w, domain *d, int64_t j, int64_t best)
{
  int64_t n = v->spec->n_x;
  int q = w->row_q[best];
  record_bound (v, w, d, j, best, q == 0 ? v->opts.bounds.slope : slopes_cert[q], w->lower[best],
                w->coef_q + (q * w->rows_max + best) * n);
}

/* Writes domain D of case K to the certificate (its node line, then its refutations), giving
 * it the next id; on a write failure marks the verifier's certificate failed and stops. */
static void
cert_emit (cn__verifier *v, int64_t k, domain *d)
{
  if (v->opts.certificate == NULL)
    return;
  const cn_spec_case *cs = &v->spec->cases[k];
  int64_t n = v->spec->n_x;
  FILE *f = v->opts.certificate;
  int bad = 0;
#pragma omp critical
  {
    d->id = v->cert_nodes++;
    if (d->kind == NODE_SPLIT)
      bad |= cn__proof_write_node_split (f, k, d->id, d->parent, d->split_q, d->split_j, d->split_sign);
    else if (d->kind == NODE_RESTART)
      bad |= cn__proof_write_node_restart (f, k, d->id, d->parent);
    else
      bad |= cn__proof_write_node (f, k, d->id, d->parent, d->axis, d->mid, d->side);
    if (d->empty)
      bad |= cn__proof_write_empty (f);
    /* boxes where the node refutes, and at a ReLU-split search's root (its boxes are the ones
     * the nodes below inherit) */
    int any = d->kind == NODE_RESTART && !d->empty;
    for (int64_t j = 0; j < cs->n_clauses; j++)
      any |= d->ref[j].set;
    if (any && d->boxes == NULL)
      {
        bad = 1;           /* out of memory keeping the boxes: the certificate cannot be complete */
        v->cert_nomem = 1;
      }
    for (int q = 0, off = 0; any && d->boxes != NULL && q < v->n_relaxed; q++)
      {
        int64_t nq = v->relaxed_n[q];
        bad |= cn__proof_write_box (f, q, d->boxes + off, d->boxes + off + nq, nq);
        off += 2 * (int) nq;
      }
    for (int64_t j = 0; j < cs->n_clauses; j++)
      {
        const struct refutation *rf = &d->ref[j];
        if (!rf->set)
          continue;
        int64_t nr = 0;
        if (rf->ra < 0)
          for (int64_t r = 0; r < cs->clauses[j].n_rows; r++)
            v->cert_rows[nr++] = r;
        else
          {
            v->cert_rows[nr++] = rf->ra;
            if (rf->rb >= 0)
              v->cert_rows[nr++] = rf->rb;
          }
        bad |= cn__proof_write_refute (f, j, v->cert_rows, nr, rf->slope, rf->lower, rf->c, d->ref_a + j * n, n);
        if (rf->alpha != NULL)
          {
            /* the sweep's parameters: each relu's slopes where one is not the slope's, the betas */
            const double *al = rf->alpha;
            for (int r = 0; r < v->n_relus; r++)
              {
                int64_t nr_r = cn_shape_numel (cn_graph_value_shape (v->g, cn_graph_node_output (v->g, v->relus[r], 0)));
                int64_t e = 0;
                while (e < nr_r && isnan (al[e]))
                  e++;
                if (e < nr_r)
                  bad |= cn__proof_write_alpha (f, r, al, nr_r);
                al += nr_r;
              }
            if (d->n_path > 0)
              bad |= cn__proof_write_beta (f, rf->alpha + v->relus_numel, d->n_path);
          }
        v->cert_refs++;
      }
    if (bad)
      v->cert_failed = 1;
  }
  if (bad)
    {
#pragma omp atomic write
      v->stop = 1;
    }
}

/* Bounds domain D of case K: refutes what clauses it can (clearing D->live[j]), sets
 * D->margin and D->split, and tries the centre and the minimising corners as
 * counterexamples. */
static enum bound_result
bound_domain (cn__verifier *v, work *w, int64_t k, domain *d, cn_error *err)
{
  if (cn__should_stop (v))
    return B_STOP;
  const cn_spec_case *cs = &v->spec->cases[k];
  const cn_graph *g = v->g;
  int64_t n = v->spec->n_x;
  cn_bounds_opts bo = v->opts.bounds;
  bo.threads = 1;
  if (bo.method == CN_METHOD_CROWN && v->opts.escalate > 0 && v->domains >= v->opts.escalate)
    {
      /* a hard search: alpha-CROWN from here on, a few sweeps per row, as that many domains
       * bounded by CROWN did not settle it (fewer, dearer domains) */
      bo.method = CN_METHOD_ALPHA_CROWN;
      bo.iterations = ESCALATE_ITERATIONS;
    }
  memcpy (w->box.lo, d->lo, (size_t) n * sizeof (double));
  memcpy (w->box.hi, d->hi, (size_t) n * sizeof (double));
  cn_analysis *a = NULL;
  if (cn_analysis_create (g, &w->box, &bo, &a, err) != CN_OK)
    return B_FAILED;
#pragma omp atomic
  v->domains++;
  /* The rows of the open clauses, and their combinations. */
  int64_t rows = open_rows (v, w, k, d->live);
  if (domain_lower (v, w, a, rows, bo.slope, v->opts.slopes, err) != CN_OK)
    {
      cn_analysis_free (a);
      return B_FAILED;
    }
  if (v->opts.certificate != NULL)
    for (int q = 0, off = 0; q < v->n_relaxed; q++)
      {
        /* the boxes the sweeps relaxed with: the certificate's box lines */
        const cn_box *b = cn_analysis_box (a, v->relaxed[q]);
        memcpy (w->boxes + off, b->lo, (size_t) b->n * sizeof (double));
        memcpy (w->boxes + off + b->n, b->hi, (size_t) b->n * sizeof (double));
        off += 2 * (int) b->n;
      }
  cn_analysis_free (a);
  if (v->opts.clip && bo.method != CN_METHOD_ALPHA_CROWN && clip_domain (w, rows, n, d))
    return B_REFUTED;
  /* Refute clause by clause: clause j is refuted iff one of its rows has lb > RU(rhs). */
  d->margin = INFINITY;
  int open = 0;
  for (int64_t r0 = 0; r0 < rows;)
    {
      int64_t j = w->row_clause[r0], r1, best;
      double cm = clause_margin (w, r0, rows, &r1, &best);
      if (!d->live[j])
        {
          r0 = r1;               /* refuted by its clip */
          continue;
        }
      if (cm > 0)
        {
          d->live[j] = 0;
          if (d->ref != NULL)
            record_refutation (v, w, d, j, best);
        }
      else
        {
          open = 1;
          if (cm < d->margin)
            d->margin = cm;
          /* the corner minimising the best row's linear lower bound */
          min_corner (w->coef + best * n, d->lo, d->hi, n, w->corner);
          int hit = cn__try_point (v, k, j, w->corner, &d->viol, err);
          if (hit != 0)
            return hit > 0 ? B_FOUND : B_FAILED;
        }
      r0 = r1;
    }
  if (!open)
    return B_REFUTED;
  for (int64_t i = 0; i < n; i++)
    w->point[i] = d->lo[i] + 0.5 * (d->hi[i] - d->lo[i]);
  for (int64_t j = 0; j < cs->n_clauses; j++)
    if (d->live[j])
      {
        int hit = cn__try_point (v, k, j, w->point, &d->viol, err);
        if (hit != 0)
          return hit > 0 ? B_FOUND : B_FAILED;
      }
  /* Candidate 0: the split dimension by the score of ALGORITHMS.md 5.4 over the open rows.
   * Candidate 1: the widest dimension, in the network's own input units (alpha-beta-CROWN's
   * "naive" input split).  The score reads the linear bound's input coefficients, which miss a
   * dimension whose influence goes through loose relaxations that cancel in the final
   * coefficients; the widest dimension covers that, and the search keeps the candidate whose
   * children bound better (a two-way lookahead).  Width relative to the case's box was tried
   * instead and is far worse where the box is narrow in some inputs: on ACAS Xu prop_1 it spends
   * splits on the two speeds, whose whole range is 0.05 wide, and 4_7 took 61 s instead of
   * 2.2 s (CROWN, one thread). */
  d->split[0] = d->split[1] = -1;
  double best_score = -INFINITY, best_width = -INFINITY;
  for (int64_t i = 0; i < n; i++)
    {
      double half = 0.5 * (d->hi[i] - d->lo[i]);
      double mid = d->lo[i] + half;
      if (!(mid > d->lo[i] && mid < d->hi[i]))
        continue;
      double s = -INFINITY;
      for (int64_t r = 0; r < rows; r++)
        {
          if (!d->live[w->row_clause[r]])
            continue;
          double mg = w->lower[r] - w->row_rhs[r];
          if (!isfinite (mg))
            mg = 0;
          double t = fmax (fabs (w->coef[r * n + i]), 1e-3) * half + mg;
          if (t > s)
            s = t;
        }
      if (!isfinite (s))
        s = half;
      if (s > best_score)
        {
          best_score = s;
          d->split[0] = i;
        }
      if (d->hi[i] - d->lo[i] > best_width)
        {
          best_width = d->hi[i] - d->lo[i];
          d->split[1] = i;
        }
    }
  if (d->split[1] == d->split[0] || !v->opts.lookahead)
    d->split[1] = -1;
  return B_OPEN;
}

/* Records the first failure of a worker and stops everyone. */
static void
record_failure (cn__verifier *v, const cn_error *err)
{
#pragma omp critical   /* unnamed: a named one would be a global symbol of the library */
  {
    if (v->fail == CN_OK)
      {
        v->fail = err->code != CN_OK ? err->code : CN_EUNSOUND;
        v->fail_err = *err;
      }
  }
#pragma omp atomic write
  v->stop = 1;
}

/* A split of a bounded open domain: the children along each candidate dimension (two or four),
 * their bounding results, and which pair is kept. */
typedef struct task
{
  domain *parent;
  domain *child[4];
  enum bound_result res[4];
  int nchild;
  int dfs;                     /* past the queue cap: the parent is searched depth first */
  enum bound_result dfs_res;
} task;

/* Creates the children of T->parent along its candidate dimensions.  Returns 1, 0 if no
 * candidate can be split (the box is too small), -1 when out of memory. */
static int
task_make (task *t, int64_t n, int64_t nc)
{
  const domain *d = t->parent;
  t->nchild = 0;
  if (d->depth >= MAX_DEPTH)
    return 0;
  for (int q = 0; q < 2; q++)
    {
      if (d->split[q] < 0)
        continue;
      int s = domain_split (d, d->split[q], n, nc, &t->child[t->nchild], &t->child[t->nchild + 1]);
      if (s < 0)
        return -1;
      if (s > 0)
        t->nchild += 2;
    }
  return t->nchild > 0;
}

/* After the children of T are bounded: with two pairs, keeps the pair whose worse child bounds
 * better (a refuted child counts +inf) and frees the other, moving the kept pair to slots 0 and
 * 1.  Either pair covers the parent, so the choice is free. */
static void
task_choose (task *t)
{
  if (t->nchild < 4)
    return;
  double m[2];
  for (int p = 0; p < 2; p++)
    {
      m[p] = INFINITY;
      for (int c = 2 * p; c < 2 * p + 2; c++)
        {
          double mc = t->res[c] == B_REFUTED ? INFINITY : t->res[c] == B_OPEN ? t->child[c]->margin : -INFINITY;
          if (mc < m[p])
            m[p] = mc;
        }
    }
  int keep = m[1] > m[0];
  for (int c = 0; c < 2; c++)
    {
      domain_free (t->child[2 * (1 - keep) + c]);
      t->child[c] = t->child[2 * keep + c];
      t->res[c] = t->res[2 * keep + c];
    }
  t->nchild = 2;
}

/* Depth-first search below the bounded open domain D (not freed).  Returns B_REFUTED when
 * every clause is refuted below D, B_OPEN when some box could not be split further, B_FOUND,
 * B_STOP or B_FAILED. */
static enum bound_result
depth_first (cn__verifier *v, work *w, int64_t k, domain *d, cn_error *err)
{
  int64_t n = v->spec->n_x, nc = v->spec->cases[k].n_clauses;
  task t = { .parent = d };
  int s = task_make (&t, n, nc);
  if (s < 0)
    {
      for (int c = 0; c < t.nchild; c++)
        domain_free (t.child[c]);
      cn_error_set (err, CN_ENOMEM, "verify: out of memory");
      return B_FAILED;
    }
  if (s == 0)
    return B_OPEN;
  enum bound_result res = B_REFUTED;
  for (int c = 0; c < t.nchild; c++)
    {
      t.res[c] = bound_domain (v, w, k, t.child[c], err);
      if (t.res[c] == B_FOUND || t.res[c] == B_STOP || t.res[c] == B_FAILED)
        {
          res = t.res[c];
          goto done;
        }
    }
  task_choose (&t);
  for (int c = 0; c < 2; c++)
    cert_emit (v, k, t.child[c]);     /* both kept children are refuted or open here */
  for (int c = 0; c < 2; c++)
    {
      enum bound_result b = t.res[c];
      if (b == B_OPEN)
        b = depth_first (v, w, k, t.child[c], err);
      if (b == B_FOUND || b == B_STOP || b == B_FAILED)
        {
          res = b;
          break;
        }
      if (b == B_OPEN)
        res = B_OPEN;
    }
done:
  for (int c = 0; c < t.nchild; c++)
    domain_free (t.child[c]);
  return res;
}

/* ---- ReLU splitting ------------------------------------------------------------------- */

/* Domains are the case's box with sign splits z_j >= 0 or z_j <= 0 on entries of relu inputs
 * (cn_analysis_create_split); the two children of a domain split one unstable entry (lo < 0 <
 * hi in the domain's box) both ways, so they cover it.  Each domain is bounded by CROWN over its
 * boxes (the splits clamp them; the sweeps concretise over the case's box, a superset: sound),
 * then by alpha-beta-CROWN, whose split multipliers bring the splits' constraints into the
 * bound; a domain with every relu stable by the LP bound; an empty domain is refuted.  The
 * search is depth first, each child analysed from its parent's analysis (boxes upstream of the
 * split copied), so memory is the depth times one analysis.  What holds: every point of the case's
 * box lies in a refuted domain or in the domain being searched, so a search that returns
 * B_REFUTED has proved the case. */

#define RELU_MAX_DEPTH 4096            /* splits along one path */
#define RELU_MAX_DOMAINS_UNTIMED 65536 /* domains per case when there is no time limit */

/* Whether G has a relu node (a sign to split). */
static int
has_relu (const cn_graph *g)
{
  for (int node = 0; node < cn_graph_n_nodes (g); node++)
    if (cn_graph_node_op (g, node) == CN_OP_RELU)
      return 1;
  return 0;
}

/* The entry to split in A's domain: among the unstable entries of relu inputs, the one whose
 * relu relaxation is loosest, -lo hi / (hi - lo) (the triangle's height over the entry); -1 in
 * *VALUE when none is left. */
static void
relu_choose (const cn_graph *g, const cn_analysis *a, int *value, int64_t *index)
{
  double best = 0;
  *value = -1;
  *index = -1;
  for (int node = 0; node < cn_graph_n_nodes (g); node++)
    {
      if (cn_graph_node_op (g, node) != CN_OP_RELU)
        continue;
      int z = cn_graph_node_input (g, node, 0);
      const cn_box *b = cn_analysis_box (a, z);
      for (int64_t j = 0; j < b->n; j++)
        if (b->lo[j] < 0 && b->hi[j] > 0)
          {
            double h = -b->lo[j] * b->hi[j] / (b->hi[j] - b->lo[j]);
            if (h > best || *value < 0)
              {
                best = h;
                *value = z;
                *index = j;
              }
          }
    }
}

/* The warm starts of alpha-beta-CROWN along the search's path: a domain's optimised parameters
 * per row of the case (row ids: a row's index when every clause is open, FIRST[j] the first of
 * clause J's), NaN where the domain did not optimise the row.  A child's layout is its parent's
 * plus one multiplier, its new split's (cn_analysis_alpha_width: the alpha parameters, then
 * one beta per split in order), so a parent's row is a child's start with a NaN (the arms'
 * own choice, beta 0) appended. */
typedef struct warm
{
  int64_t rows;                /* rows of the case, all clauses open */
  int64_t *first;              /* per clause, its first row id */
} warm;

/* The row id of W's row R (open_rows over some clauses), and IDS (ROWS entries) filled with the
 * row ids of W's ROWS rows: within a clause the rows come in the same order whatever else is
 * open. */
static int64_t
row_id (const work *w, const warm *wm, int64_t r)
{
  int64_t j = w->row_clause[r], r0 = r;
  while (r0 > 0 && w->row_clause[r0 - 1] == j)
    r0--;
  return wm->first[j] + (r - r0);
}

static void
row_ids (const work *w, const warm *wm, int64_t rows, int64_t *ids)
{
  for (int64_t r = 0; r < rows; r++)
    ids[r] = row_id (w, wm, r);
}

/* The starts of W's ROWS rows in a domain's layout (WIDTH parameters a row) into TH (ROWS x
 * WIDTH): each row's parameters in its parent's (PARENT: the case's rows x PARENT_WIDTH, NULL:
 * none), then NaN (the arms' own choice, beta 0) for the splits the parent did not have. */
static void
warm_rows (const work *w, const warm *wm, int64_t rows, const double *parent, int64_t parent_width, int64_t width,
           double *th)
{
  for (int64_t r = 0; r < rows; r++)
    {
      const double *src = parent != NULL ? parent + row_id (w, wm, r) * parent_width : NULL;
      for (int64_t c = 0; c < width; c++)
        th[r * width + c] = src != NULL && c < parent_width ? src[c] : NAN;
    }
}

/* Bounds the open rows (ROWS of them, W's) of A's domain by alpha-beta-CROWN into W->lower,
 * warm-started from PARENT_THETA (the case's rows x PARENT_WIDTH, or NULL), the best parameters
 * kept in THETA (the case's rows x WIDTH, NaN elsewhere), stopping once every row's bound
 * passes its rhs.  Every bound is sound whatever the parameters (cn_analysis_lower_alpha). */
static cn_status
domain_lower_beta (const cn__verifier *v, work *w, const warm *wm, cn_analysis *a, int64_t rows,
                   const double *parent_theta, int64_t parent_width, double *theta, int64_t width, cn_error *err)
{
  int y = cn_graph_output (v->g, 0);
  int64_t *ids = malloc ((size_t) (rows ? rows : 1) * sizeof *ids);
  double *th = malloc ((size_t) (rows * width + 1) * sizeof *th);
  cn_status st = CN_OK;
  if (ids == NULL || th == NULL)
    {
      st = cn_error_set (err, CN_ENOMEM, "verify: out of memory");
      goto done;
    }
  row_ids (w, wm, rows, ids);
  warm_rows (w, wm, rows, parent_theta, parent_width, width, th);
  if ((st = cn_analysis_lower_alpha (a, y, w->c, rows, w->row_rhs, th, w->lower, NULL, err)) != CN_OK)
    goto done;
  for (int64_t r = 0; r < rows; r++)
    memcpy (theta + ids[r] * width, th + r * width, (size_t) width * sizeof *th);
done:
  free (ids);
  free (th);
  return st;
}

/* Candidates for the split of A's domain by BaBSR's score (Bunel et al. 2020), summed over W's
 * ROWS open rows: an unstable entry z_j (l < 0 < u) of a relu input whose output has coefficient
 * lam in a row's CROWN bound costs that bound, when lam < 0, the upper line's intercept
 * -lam (-l u / (u - l)), which a split removes; when lam > 0 the lower line has no intercept and
 * a split changes only its slope, scored a tenth as much.  The best K (at most) go into CAND by
 * decreasing score, *NCAND of them; where every score is 0, relu_choose's entry alone.  Only a
 * guide: any choice keeps the search sound. */
static cn_status
relu_candidates (const cn__verifier *v, work *w, cn_analysis *a, int64_t rows, int K, cn_split *cand, int *ncand,
                 cn_error *err)
{
  const cn_graph *g = v->g;
  int nn = cn_graph_n_nodes (g), nr = 0, z0;
  int64_t j0;
  int *at = malloc ((size_t) (nn + 1) * sizeof *at), *zin = malloc ((size_t) (nn + 1) * sizeof *zin);
  double **lam = calloc ((size_t) (nn + 1), sizeof *lam), *score = malloc ((size_t) (K + 1) * sizeof *score);
  cn_status st = CN_OK;
  *ncand = 0;
  relu_choose (g, a, &z0, &j0);
  if (z0 < 0)
    goto done;
  cand[0] = (cn_split) { .value = z0, .index = j0, .sign = 1 };
  *ncand = 1;
  if (at == NULL || zin == NULL || lam == NULL || score == NULL || rows == 0)
    goto done;
  for (int node = 0; node < nn; node++)
    if (cn_graph_node_op (g, node) == CN_OP_RELU)
      {
        zin[nr] = cn_graph_node_input (g, node, 0);
        at[nr] = cn_graph_node_output (g, node, 0);
        if ((lam[nr] = malloc ((size_t) rows * (size_t) cn_analysis_box (a, zin[nr])->n * sizeof (double) + 1)) == NULL)
          goto done;
        nr++;
      }
  if ((st = cn_analysis_lower_at (a, cn_graph_output (g, 0), w->c, rows, w->alt, nr, at, lam, err)) != CN_OK)
    goto done;
  int nk = 0;
  for (int i = 0; i < nr; i++)
    {
      const cn_box *b = cn_analysis_box (a, zin[i]);
      for (int64_t j = 0; j < b->n; j++)
        {
          double l = b->lo[j], u = b->hi[j];
          if (!(l < 0 && u > 0))
            continue;
          double inter = -l * u / (u - l), sc = 0;
          for (int64_t s = 0; s < rows; s++)
            {
              double c = lam[i][s * b->n + j];
              sc += (c < 0 ? -c : 0.1 * c) * inter;
            }
          if (!(sc > 0) || (nk == K && sc <= score[K - 1]))
            continue;
          /* insert into the sorted list of the best K */
          int p = nk < K ? nk++ : K - 1;
          while (p > 0 && score[p - 1] < sc)
            {
              score[p] = score[p - 1];
              cand[p] = cand[p - 1];
              p--;
            }
          score[p] = sc;
          cand[p] = (cn_split) { .value = zin[i], .index = j, .sign = 1 };
        }
    }
  if (nk > 0)
    *ncand = nk;
done:
  for (int i = 0; lam != NULL && i < nr; i++)
    free (lam[i]);
  free (lam);
  free (at);
  free (zin);
  free (score);
  return st;
}

/* The worst margin over W's ROWS rows (the open clauses of case K) in the domain of SPLITS (NS)
 * below A, by one cheap bound: A's boxes with the new split's clamped, nothing downstream
 * recomputed (inherit_boxes, as alpha-beta-CROWN's FSB keeps its intermediate bounds; IBP of
 * the values below the split cost more than the sweep and changed few choices); +inf for an
 * empty domain.  FSB's estimate of a child.  With THETA (the parent's alpha-beta parameters, the
 * case's rows x WIDTH = cn_analysis_alpha_width of A, NaN where not optimised; NULL: none) the
 * bound is one sweep with them and the new split's multiplier 0, as alpha-beta-CROWN scores its
 * candidates with the parent's alphas and betas: without the path's multipliers the estimate
 * forgets every earlier split but for its clamped box, and ranks the candidates badly (on
 * mnist_fc 256x2 prop_10 at eps 0.05 it took the search past 5000 domains where BaBSR alone
 * needs 178).  Either bound is sound; only the choice of split depends on it. */
static cn_status
child_margin (cn__verifier *v, work *w, const warm *wm, int64_t k, const cn_analysis *a, const cn_split *splits,
              int64_t ns, int64_t rows, const double *theta, int64_t width, double *th, double *margin, cn_error *err)
{
  const cn_spec_case *cs = &v->spec->cases[k];
  cn_bounds_opts bo = v->opts.bounds;
  bo.method = CN_METHOD_CROWN_IBP;
  bo.inherit_boxes = 1;
  bo.iterations = 1;            /* one sweep with the parameters given, no step */
  if (v->threads > 1)
    bo.threads = 1;
  cn_analysis *c = NULL;
  cn_status st = cn_analysis_create_split (v->g, &cs->box, &bo, a, splits, ns, &c, err);
  if (st != CN_OK)
    return st;
  *margin = INFINITY;
  if (!cn_analysis_infeasible (c) && rows > 0)
    {
      int y = cn_graph_output (v->g, 0);
      if (theta != NULL)
        {
          warm_rows (w, wm, rows, theta, width, width + 1, th);
          st = cn_analysis_lower_alpha (c, y, w->c, rows, NULL, th, w->lower, NULL, err);
        }
      else
        st = cn_analysis_lower (c, y, w->c, rows, w->lower, err);
      if (st == CN_OK)
        for (int64_t r0 = 0; r0 < rows;)
          {
            int64_t r1, best;
            *margin = fmin (*margin, clause_margin (w, r0, rows, &r1, &best));
            r0 = r1;
          }
    }
  cn_analysis_free (c);
  return st;
}

/* The entry to split in A's domain (SPLITS, NS of them, room for one more): BaBSR's best, or
 * with opts.fsb > 1 filtered smart branching (alpha-beta-CROWN's default): of BaBSR's best
 * opts.fsb candidates, the one whose worse child has the best cheap bound (child_margin).
 * -1 in *VALUE when no entry is unstable. */
static cn_status
relu_branch (cn__verifier *v, work *w, const warm *wm, int64_t k, cn_analysis *a, cn_split *splits, int64_t ns,
             const unsigned char *live, const double *theta, int64_t width, int *value, int64_t *index,
             cn_error *err)
{
  int K = v->opts.fsb > 1 ? v->opts.fsb : 1, nc = 0;
  int64_t rows = open_rows (v, w, k, live);
  cn_split *cand = malloc ((size_t) K * sizeof *cand);
  double *th = theta != NULL && K > 1 ? malloc ((size_t) (rows * (width + 1) + 1) * sizeof *th) : NULL;
  if (cand == NULL || (theta != NULL && K > 1 && th == NULL))
    {
      free (cand);
      free (th);
      return cn_error_set (err, CN_ENOMEM, "verify: out of memory");
    }
  cn_status st = relu_candidates (v, w, a, rows, K, cand, &nc, err);
  *value = -1;
  *index = -1;
  if (st == CN_OK && nc > 0)
    {
      int pick = 0;
      double best = -INFINITY;
      for (int q = 0; q < nc && nc > 1 && st == CN_OK; q++)
        {
          double worse = INFINITY;
          for (int side = 0; side < 2 && st == CN_OK; side++)
            {
              double m;
              splits[ns] = (cn_split) { .value = cand[q].value, .index = cand[q].index, .sign = side ? -1 : 1 };
              if ((st = child_margin (v, w, wm, k, a, splits, ns + 1, rows, theta, width, th, &m, err)) == CN_OK)
                worse = fmin (worse, m);
            }
          if (worse > best)
            {
              best = worse;
              pick = q;
            }
        }
      *value = cand[pick].value;
      *index = cand[pick].index;
    }
  free (cand);
  free (th);
  return st;
}

/* The place of value Z among the relaxed values (cn__verifier.relaxed), -1 if none. */
static int
relaxed_place (const cn__verifier *v, int z)
{
  for (int q = 0; q < v->n_relaxed; q++)
    if (v->relaxed[q] == z)
      return q;
  return -1;
}

/* With a certificate: clause J of D (a domain of the ReLU-split search, bounded in A) refuted by
 * W's row BEST with the parameters TH (one row of cn_analysis_alpha_width; projected here).  One
 * sweep with them (cn_analysis_lower_theta) gives the bound and the linear function D records,
 * with the relus' slopes (NaN on the entries the boxes make stable) and the path's betas.
 * Returns 1 when that bound refutes the clause (recorded), 0 when it does not (the clause stays
 * open: the certificate could not show the refutation), -1 on a failure (ERR set). */
static int
certify_theta (const cn__verifier *v, const work *w, cn_analysis *a, domain *d, int64_t j, int64_t best,
               double *th, cn_error *err)
{
  const cn_graph *g = v->g;
  int y = cn_graph_output (g, 0);
  int64_t n = v->spec->n_x, ny = v->spec->n_y, nv = cn_graph_n_values (g);
  double low;
  double *coef = malloc ((size_t) n * sizeof *coef + 1);
  int64_t *off = malloc ((size_t) nv * sizeof *off + 1);
  double *al = malloc ((size_t) (v->relus_numel + d->n_path + 1) * sizeof *al);
  int res = -1;
  if (coef == NULL || off == NULL || al == NULL)
    {
      cn_error_set (err, CN_ENOMEM, "verify: out of memory");
      goto done;
    }
  if (cn_analysis_lower_theta (a, y, w->c + best * ny, 1, th, &low, coef, err) != CN_OK)
    goto done;
  res = 0;
  if (!(low - w->row_rhs[best] > 0))
    goto done;
  int64_t aw = cn_analysis_alpha_offsets (a, y, off);
  if (aw < 0)
    {
      res = -1;
      cn_error_set (err, CN_ENOMEM, "verify: out of memory");
      goto done;
    }
  double *p = al;
  for (int r = 0; r < v->n_relus; r++)
    {
      int out = cn_graph_node_output (g, v->relus[r], 0), z = cn_graph_node_input (g, v->relus[r], 0);
      const cn_box *b = cn_analysis_box (a, z);
      for (int64_t e = 0; e < b->n; e++)
        *p++ = off[out] >= 0 && b->lo[e] < 0 && b->hi[e] > 0 ? th[off[out] + e] : NAN;
    }
  for (int64_t q = 0; q < d->n_path; q++)
    *p++ = th[aw + q];
  record_bound (v, w, d, j, best, v->opts.bounds.slope, low, coef);
  free (d->ref[j].alpha);
  d->ref[j].alpha = al;
  al = NULL;
  res = 1;
done:
  free (coef);
  free (off);
  free (al);
  return res;
}

/* Decides a domain A of case K whose relus are all stable, the clauses LIVE open on it, by the LP
 * bound (cn_analysis_lower_lp): B_REFUTED when it refutes every open clause, B_FOUND when an LP
 * minimiser is a counterexample, else B_OPEN (a bound within rounding of the threshold). */
static enum bound_result
relu_leaf (cn__verifier *v, work *w, int64_t k, cn_analysis *a, unsigned char *live, domain *d, cn_error *err)
{
  int64_t n = v->spec->n_x, rows = open_rows (v, w, k, live);
  int64_t width = d != NULL ? cn_analysis_alpha_width (a, cn_graph_output (v->g, 0)) : 0;
  double *xlp = malloc ((size_t) (rows * n + 1) * sizeof *xlp);
  double *theta = d != NULL && width >= 0 ? malloc ((size_t) (rows * width + 1) * sizeof *theta) : NULL;
  if (xlp == NULL || (d != NULL && theta == NULL))
    {
      free (xlp);
      free (theta);
      cn_error_set (err, CN_ENOMEM, "verify: out of memory");
      return B_FAILED;
    }
  for (int64_t i = 0; i < rows * n; i++)
    xlp[i] = NAN;
  enum bound_result res = B_REFUTED;
  cn_status st;
  /* GLPK's environment is per process here: one LP at a time */
#pragma omp critical   /* unnamed: a named one would be a global symbol of the library */
  st = cn_analysis_lower_lp_theta (a, cn_graph_output (v->g, 0), w->c, rows, w->lower, xlp, theta, err);
  if (st != CN_OK)
    {
      free (xlp);
      free (theta);
      /* an LP over the memory budget leaves the leaf open (unknown), as a failed one would not */
      if (st == CN_ELIMIT)
        {
          cn_error_clear (err);
          return B_OPEN;
        }
      return B_FAILED;
    }
  for (int64_t r0 = 0; r0 < rows && res == B_REFUTED;)
    {
      int64_t j = w->row_clause[r0], r1, best;
      if (clause_margin (w, r0, rows, &r1, &best) > 0)
        {
          live[j] = 0;
          /* with a certificate, the LP's multipliers as the betas of the refutation it records
           * (a row whose CROWN bound stood: NaN, the arms' lines and no betas) */
          int c = d != NULL ? certify_theta (v, w, a, d, j, best, theta + best * width, err) : 1;
          if (c < 0)
            res = B_FAILED;
          else if (c == 0)
            res = B_OPEN;     /* refuted, but not by a bound the certificate can show */
        }
      else
        {
          res = B_OPEN;
          if (!isnan (xlp[best * n]))
            {
              /* the LP's minimiser, then a short PGD from it over the case's box (the minimiser
               * sits on the domain's boundary, where moving it onto binary32 numbers can undo a
               * thin violation) */
              const cn_box *box = &v->spec->cases[k].box;
              double *x = xlp + best * n;
              for (int64_t i = 0; i < n; i++)
                x[i] = fmin (fmax (x[i], box->lo[i]), box->hi[i]);   /* GLPK's tolerance */
              int hit = cn__try_point (v, k, j, x, NULL, err);
              if (hit == 0 && v->opts.attack_steps > 0)
                hit = cn__pgd (v, k, j, box->lo, box->hi, x, v->opts.attack_steps / 2 + 1, err);
              if (hit != 0)
                res = hit > 0 ? B_FOUND : B_FAILED;
            }
        }
      r0 = r1;
    }
  free (xlp);
  free (theta);
  return res;
}

static enum bound_result relu_search (cn__verifier *v, work *w, const warm *wm, int64_t k, const cn_analysis *parent,
                                      const double *parent_theta, cn_split *splits, int64_t ns,
                                      const unsigned char *live_in, int64_t *budget, int64_t parent_id,
                                      cn_error *err);

/* Splits at depth below this are searched as OpenMP tasks (the two children at once). */
#define RELU_TASK_DEPTH 12

/* The verdict of two children searched apart: the first failure, else a counterexample, else
 * a stop, else an open leaf, else refuted (both). */
static enum bound_result
combine_children (enum bound_result a, enum bound_result b)
{
  static const enum bound_result order[] = { B_FAILED, B_FOUND, B_STOP, B_OPEN };
  for (size_t q = 0; q < sizeof order / sizeof order[0]; q++)
    if (a == order[q] || b == order[q])
      return order[q];
  return B_REFUTED;
}

/* The two children of A's domain (SPLITS, NS of them, then entry IDX of value Z both ways) as two
 * OpenMP tasks, each with its own scratch, path and error, waited for here (the parent's
 * analysis and parameters outlive them). */
static enum bound_result
relu_children_tasks (cn__verifier *v, const warm *wm, int64_t k, const cn_analysis *a, const double *theta,
                     const cn_split *splits, int64_t ns, int z, int64_t idx, const unsigned char *live,
                     int64_t *budget, int64_t id, cn_error *err)
{
  enum bound_result res[2] = { B_FAILED, B_FAILED };
  cn_error errs[2];
  for (int side = 0; side < 2; side++)
    {
#pragma omp task shared(res, errs) firstprivate(side)
      {
        cn_error_clear (&errs[side]);
        work wk;
        cn_split *path = malloc (RELU_MAX_DEPTH * sizeof *path);
        if (path == NULL)
          cn_error_set (&errs[side], CN_ENOMEM, "verify: out of memory");
        else if (work_init (&wk, v, k, &errs[side]) == CN_OK)
          {
            memcpy (path, splits, (size_t) ns * sizeof *path);
            path[ns] = (cn_split) { .value = z, .index = idx, .sign = side ? -1 : 1 };
            res[side] = relu_search (v, &wk, wm, k, a, theta, path, ns + 1, live, budget, id, &errs[side]);
            work_clear (&wk);
          }
        free (path);
      }
    }
#pragma omp taskwait
  enum bound_result r = combine_children (res[0], res[1]);
  if (r == B_FAILED)
    *err = res[0] == B_FAILED ? errs[0] : errs[1];
  return r;
}

/* Searches the domain of SPLITS (NS of them; room for RELU_MAX_DEPTH) of case K below PARENT
 * (its analysis, or NULL at the root), the clauses LIVE open on it; PARENT_THETA (NULL: none)
 * holds the parent's alpha-beta parameters (see warm).  With a certificate the domain is written
 * as a node below certificate node PARENT_ID (a restart node at the root, else a split node),
 * with the refutations found on it, before its children.  Returns B_REFUTED when every clause is
 * refuted on every leaf, B_OPEN when some leaf cannot be split further or the domain budget is
 * spent, or B_FOUND, B_STOP, B_FAILED. */
static enum bound_result
relu_search (cn__verifier *v, work *w, const warm *wm, int64_t k, const cn_analysis *parent,
             const double *parent_theta, cn_split *splits, int64_t ns, const unsigned char *live_in,
             int64_t *budget, int64_t parent_id, cn_error *err)
{
  if (cn__should_stop (v))
    return B_STOP;
  int spent = 0;
#pragma omp critical
  {
    /* a budget of -1 is no limit; a positive one counts down to 0 and stays there */
    if (*budget == 0)
      spent = 1;
    else if (*budget > 0)
      --*budget;
  }
  if (spent)
    return B_OPEN;
  /* an analysis cannot be interrupted: start one only if one as costly as the costliest so far
   * ends before the deadline (the time limit is a promise to the caller) */
  double t_start = cn__now (), worst;
#pragma omp critical
  worst = v->domain_cost;
  if (t_start + worst > v->deadline)
    return B_STOP;
  const cn_spec_case *cs = &v->spec->cases[k];
  const cn_graph *g = v->g;
  int64_t n = v->spec->n_x, nc = cs->n_clauses;
  cn_bounds_opts bo = v->opts.bounds;
  if (v->threads > 1)
    bo.threads = 1;             /* the threads go to the domains (tasks), not to their rows */
  /* below the root, without relu_refine: the parent's intermediate boxes, intersected with
   * their IBP from the clamped splits (as alpha-beta-CROWN keeps its root's), not new sweeps */
  if (parent != NULL && !v->opts.relu_refine && bo.method != CN_METHOD_IBP)
    bo.method = CN_METHOD_CROWN_IBP;
  /* at the root, intermediate boxes by alpha-CROWN (every domain below inherits them): on deep
   * networks they are far tighter than CROWN's, and everything below is bounded with them (not
   * with a certificate, which has no record of the intermediate rows' parameters) */
  if (parent == NULL && bo.method == CN_METHOD_CROWN && v->opts.certificate == NULL)
    bo.method = CN_METHOD_ALPHA_CROWN;
  cn_analysis *a = NULL;
  if (cn_analysis_create_split (g, &cs->box, &bo, parent, splits, ns, &a, err) != CN_OK)
    return B_FAILED;
#pragma omp atomic
  v->domains++;
  domain *d = NULL;
  if (v->opts.certificate != NULL)
    {
      /* the certificate's node: the case's box, its place below PARENT_ID, the boxes relaxed */
      if ((d = domain_new (n, nc, 1)) == NULL)
        {
          cn_analysis_free (a);
          cn_error_set (err, CN_ENOMEM, "verify: out of memory");
          return B_FAILED;
        }
      memcpy (d->lo, cs->box.lo, (size_t) n * sizeof (double));
      memcpy (d->hi, cs->box.hi, (size_t) n * sizeof (double));
      d->parent = parent_id;
      d->n_path = ns;
      d->kind = parent == NULL ? NODE_RESTART : NODE_SPLIT;
      if (parent != NULL)
        {
          d->split_q = relaxed_place (v, splits[ns - 1].value);
          d->split_j = splits[ns - 1].index;
          d->split_sign = splits[ns - 1].sign;
          if (d->split_q < 0)
            {
              domain_free (d);
              cn_analysis_free (a);
              cn_error_set (err, CN_EINVAL, "verify: a split on a value whose box a certificate does not carry");
              return B_FAILED;
            }
        }
      d->empty = cn_analysis_infeasible (a);
      for (int q = 0, off = 0; !d->empty && q < v->n_relaxed; q++)
        {
          const cn_box *b = cn_analysis_box (a, v->relaxed[q]);
          memcpy (w->boxes + off, b->lo, (size_t) b->n * sizeof (double));
          memcpy (w->boxes + off + b->n, b->hi, (size_t) b->n * sizeof (double));
          off += 2 * (int) b->n;
        }
      if (parent == NULL && !d->empty)
        {
          if ((d->boxes = malloc (2 * (size_t) v->relaxed_numel * sizeof (double) + 1)) == NULL)
            {
              domain_free (d);
              cn_analysis_free (a);
              cn_error_set (err, CN_ENOMEM, "verify: out of memory");
              return B_FAILED;
            }
          memcpy (d->boxes, w->boxes, 2 * (size_t) v->relaxed_numel * sizeof (double));
        }
    }
  if (cn_analysis_infeasible (a))
    {
      if (d != NULL)
        cert_emit (v, k, d);
      domain_free (d);
      cn_analysis_free (a);
      return B_REFUTED;         /* no input meets the splits */
    }
  enum bound_result res = B_REFUTED;
  int emitted = 0;
  unsigned char *live = malloc ((size_t) nc + 1);
  int y = cn_graph_output (g, 0);
  int64_t width = v->opts.beta ? cn_analysis_alpha_width (a, y) : 0;
  double *theta = v->opts.beta ? malloc ((size_t) (wm->rows * width + 1) * sizeof *theta) : NULL;
  double *th_row = d != NULL && width > 0 ? malloc ((size_t) width * sizeof *th_row) : NULL;
  if (live == NULL || width < 0 || (v->opts.beta && theta == NULL) || (d != NULL && width > 0 && th_row == NULL))
    {
      free (live);
      free (theta);
      free (th_row);
      domain_free (d);
      cn_analysis_free (a);
      cn_error_set (err, CN_ENOMEM, "verify: out of memory");
      return B_FAILED;
    }
  for (int64_t i = 0; theta != NULL && i < wm->rows * width; i++)
    theta[i] = NAN;
  memcpy (live, live_in, (size_t) nc);
  int64_t rows = open_rows (v, w, k, live);
  /* the fixed slopes only without beta: alpha-beta-CROWN follows, and optimises the slopes */
  if (domain_lower (v, w, a, rows, bo.slope, v->opts.slopes && !v->opts.beta, err) != CN_OK)
    {
      res = B_FAILED;
      goto done;
    }
  /* refute clause by clause (a row with lb > RU(rhs)); try the corner minimising the best
   * row's linear bound of each open clause as a counterexample */
  int open = 0;
  for (int64_t r0 = 0; r0 < rows;)
    {
      int64_t j = w->row_clause[r0], r1, best;
      double cm = clause_margin (w, r0, rows, &r1, &best);
      r0 = r1;
      if (cm > 0)
        {
          live[j] = 0;
          if (d != NULL)
            record_refutation (v, w, d, j, best);
          continue;
        }
      open = 1;
      min_corner (w->coef + best * n, cs->box.lo, cs->box.hi, n, w->corner);
      int hit = cn__try_point (v, k, j, w->corner, NULL, err);
      if (hit != 0)
        {
          res = hit > 0 ? B_FOUND : B_FAILED;
          goto done;
        }
    }
  if (open && v->opts.beta)
    {
      /* alpha-beta-CROWN on the rows still open (beta-CROWN's multipliers bring the splits'
       * constraints into the bound, which the sweeps concretise over the whole box) */
      open = 0;
      rows = open_rows (v, w, k, live);
      if (domain_lower_beta (v, w, wm, a, rows, parent_theta, width - 1, theta, width, err) != CN_OK)
        {
          res = B_FAILED;
          goto done;
        }
      for (int64_t r0 = 0; r0 < rows;)
        {
          int64_t j = w->row_clause[r0], r1, best;
          int refuted = clause_margin (w, r0, rows, &r1, &best) > 0;
          if (refuted && d != NULL)
            {
              /* the best row's parameters, re-bounded for the certificate */
              memcpy (th_row, theta + row_id (w, wm, best) * width, (size_t) width * sizeof *th_row);
              int c = certify_theta (v, w, a, d, j, best, th_row, err);
              if (c < 0)
                {
                  res = B_FAILED;
                  goto done;
                }
              refuted = c;
            }
          if (refuted)
            live[j] = 0;
          else
            open = 1;
          r0 = r1;
        }
    }
  /* the root's analysis (alpha-CROWN boxes) is a one-off: the deadline guard weighs the domains
   * below it, which inherit its boxes */
  double cost = cn__now () - t_start;
  if (parent != NULL)
    {
#pragma omp critical
      v->domain_cost = fmax (v->domain_cost, cost);
    }
  if (!open)
    goto done;
  int z = -1;
  int64_t idx = -1;
  if (relu_branch (v, w, wm, k, a, splits, ns, live, v->opts.beta ? theta : NULL, width, &z, &idx, err) != CN_OK)
    {
      res = B_FAILED;
      goto done;
    }
  if (z < 0)
    {
      /* every relu is stable: the domain is a polytope on which the network is affine, and the
       * LP bound is its minimum (within rounding); the LP's minimisers are tried as points */
      res = relu_leaf (v, w, k, a, live, d, err);
      goto done;
    }
  if (ns >= RELU_MAX_DEPTH)
    {
      res = B_OPEN;
      goto done;
    }
  /* the node goes into the certificate before its children (they name it as their parent) */
  if (d != NULL)
    {
      cert_emit (v, k, d);
      emitted = 1;
    }
  int64_t id = d != NULL ? d->id : -1;
  if (v->threads > 1 && ns < RELU_TASK_DEPTH)
    {
      res = relu_children_tasks (v, wm, k, a, theta, splits, ns, z, idx, live, budget, id, err);
      goto done;
    }
  for (int side = 0; side < 2 && res == B_REFUTED; side++)
    {
      splits[ns] = (cn_split) { .value = z, .index = idx, .sign = side ? -1 : 1 };
      res = relu_search (v, w, wm, k, a, theta, splits, ns + 1, live, budget, id, err);
    }
done:
  if (d != NULL && !emitted)
    cert_emit (v, k, d);
  domain_free (d);
  free (live);
  free (theta);
  free (th_row);
  cn_analysis_free (a);
  return res;
}

/* Decides case K by ReLU splitting from the root's open clauses LIVE (with a certificate, below
 * its root node ROOT_ID). */
static enum bound_result
relu_case (cn__verifier *v, work *w, int64_t k, const unsigned char *live, int64_t root_id, cn_error *err)
{
  if (!has_relu (v->g) || v->opts.bounds.method == CN_METHOD_IBP)
    return B_OPEN;
  const cn_spec_case *cs = &v->spec->cases[k];
  cn_split *splits = malloc (RELU_MAX_DEPTH * sizeof *splits);
  warm wm = { .first = malloc ((size_t) (cs->n_clauses + 1) * sizeof *wm.first) };
  unsigned char *all = malloc ((size_t) cs->n_clauses + 1);
  if (splits == NULL || wm.first == NULL || all == NULL)
    {
      free (splits);
      free (wm.first);
      free (all);
      cn_error_set (err, CN_ENOMEM, "verify: out of memory");
      return B_FAILED;
    }
  /* row ids: the rows open_rows gives with every clause open */
  memset (all, 1, (size_t) cs->n_clauses);
  wm.rows = open_rows (v, w, k, all);
  for (int64_t j = cs->n_clauses - 1, r = wm.rows; j >= 0; j--)
    {
      while (r > 0 && w->row_clause[r - 1] == j)
        r--;
      wm.first[j] = r;
    }
  free (all);
  int64_t budget = v->opts.timeout > 0 ? -1 : RELU_MAX_DOMAINS_UNTIMED;
  enum bound_result r = B_FAILED;
  v->domain_cost = 0;           /* the guard weighs this search's own domains */
  /* one thread starts the search; with several, the children near the root become tasks */
#pragma omp parallel num_threads(v->threads)
#pragma omp single
  r = relu_search (v, w, &wm, k, NULL, NULL, splits, 0, live, &budget, root_id, err);
  free (splits);
  free (wm.first);
  return r;
}

/* One unit of parallel work: child C of task T (C = -1: the task's depth-first search). */
typedef struct job
{
  task *t;
  int c;
} job;

/* Bounds the whole box of case K as the domain *ROOT (new; NULL on a failure): B_REFUTED when
 * that proves the case, B_OPEN when it leaves clauses open (*ROOT then holds them, for
 * search_case), or B_FOUND, B_STOP, B_FAILED.  The caller frees *ROOT. */
static enum bound_result
bound_root (cn__verifier *v, int64_t k, domain **root, cn_error *err)
{
  const cn_spec_case *cs = &v->spec->cases[k];
  int64_t n = v->spec->n_x, nc = cs->n_clauses;
  work w;
  *root = domain_new (n, nc, v->opts.certificate != NULL);
  if (*root == NULL)
    {
      cn_error_set (err, CN_ENOMEM, "verify: out of memory");
      return B_FAILED;
    }
  if (work_init (&w, v, k, err) != CN_OK)
    return B_FAILED;
  memcpy ((*root)->lo, cs->box.lo, (size_t) n * sizeof (double));
  memcpy ((*root)->hi, cs->box.hi, (size_t) n * sizeof (double));
  memset ((*root)->live, 1, (size_t) nc);
  double t_root = cn__now ();
  enum bound_result b = bound_domain (v, &w, k, *root, err);
  v->domain_cost = fmax (v->domain_cost, cn__now () - t_root);
  work_clear (&w);
  if (b == B_REFUTED || b == B_OPEN)
    cert_emit (v, k, *root);
  return b;
}

/* Decides case K from ROOT, its whole box bounded by bound_root and left open (taken over and
 * freed here).  Returns B_REFUTED (proved), B_OPEN (some box could not be split: unknown),
 * B_FOUND, B_STOP (deadline or another thread's stop) or B_FAILED. */
static enum bound_result
search_case (cn__verifier *v, int64_t k, domain *root, int64_t *queued_out, cn_error *err)
{
  const cn_spec_case *cs = &v->spec->cases[k];
  int64_t n = v->spec->n_x, nc = cs->n_clauses;
  int T = v->threads;
  enum bound_result res = B_REFUTED;
  work *ws = calloc ((size_t) T, sizeof *ws);
  job *jobs = NULL;
  task *tasks = NULL;
  queue q = { .by_margin = { .key = 0 }, .by_viol = { .key = 1 } };
  int64_t batch = (int64_t) BATCH_PER_THREAD * T;
  jobs = malloc ((size_t) (4 * batch) * sizeof *jobs);
  tasks = calloc ((size_t) batch, sizeof *tasks);
  if (ws == NULL || jobs == NULL || tasks == NULL)
    {
      cn_error_set (err, CN_ENOMEM, "verify: out of memory");
      free (ws);
      domain_free (root);
      free (jobs);
      free (tasks);
      return B_FAILED;
    }
  for (int t = 0; t < T; t++)
    if (work_init (&ws[t], v, k, err) != CN_OK)
      {
        res = B_FAILED;
        goto done;
      }
  /* input splitting for a box with few free axes (only those are ever split); with the default
   * limit, a network without relus (nothing else to split) up to a larger one */
  int64_t free_axes = 0;
  for (int64_t i = 0; i < n; i++)
    free_axes += cs->box.lo[i] < cs->box.hi[i];
  int64_t limit = v->opts.input_split_max;
  if (limit == 0)
    limit = has_relu (v->g) && v->opts.relu_split ? CN_VERIFY_SPLIT_MAX : CN_VERIFY_SPLIT_MAX_NO_RELU;
  if (limit < 0 || free_axes > limit)
    {
      /* too many inputs to split: split relus instead, where the options allow; when that search
       * ends open (a leaf it cannot decide) before the deadline, a box of at most
       * CN_VERIFY_SPLIT_MAX_NO_RELU free axes goes on by input splitting (default limit, with a time
       * limit) */
      res = v->opts.relu_split ? relu_case (v, &ws[0], k, root->live, root->id, err) : B_OPEN;
      int go_on = res == B_OPEN && v->opts.input_split_max == 0 && free_axes <= CN_VERIFY_SPLIT_MAX_NO_RELU
                  && v->opts.timeout > 0 && !cn__should_stop (v);
      /* a certificate cannot hold both searches below one root: the case stays unknown */
      if (go_on && v->opts.certificate != NULL)
        {
          v->uncertified++;
          go_on = 0;
        }
      if (!go_on)
        goto done;
      res = B_REFUTED;
    }
  /* The cap on queued domains: about 1 GiB of them, at least 4096; with a memory budget, half
   * of it, at least 16 (past the cap the search goes depth first, which queues few) */
  int64_t per = (int64_t) (sizeof (domain) + 2 * (size_t) n * sizeof (double) + (size_t) nc + 64);
  int64_t cap = v->opts.max_queue > 0 ? v->opts.max_queue : ((int64_t) 1 << 30) / per;
  if (cap < 4096 && v->opts.max_queue <= 0)
    cap = 4096;
  double budget = v->opts.bounds.max_memory_mb;
  if (budget > 0 && v->opts.max_queue <= 0 && (double) cap * (double) per > budget * 524288.0)
    {
      cap = (int64_t) (budget * 524288.0 / (double) per);
      if (cap < 16)
        cap = 16;
    }
  if (queue_push (&q, root) != 0)
    {
      cn_error_set (err, CN_ENOMEM, "verify: out of memory");
      res = B_FAILED;
      goto done;
    }
  root = NULL;
  double last_progress = cn__now ();
  int64_t round = 0;
  while (q.live > 0)
    {
      if (cn__should_stop (v))
        {
          res = B_STOP;
          goto done;
        }
      /* Every PGD_EVERY rounds, a short PGD inside the queued domain with the least violation
       * seen, from its centre, on its first open clause. */
      const domain *dv;
      if (v->opts.attack_steps > 0 && ++round % PGD_EVERY == 0 && (dv = queue_peek (&q.by_viol)) != NULL)
        {
          const domain *d = dv;
          for (int64_t i = 0; i < n; i++)
            ws[0].point[i] = d->lo[i] + 0.5 * (d->hi[i] - d->lo[i]);
          for (int64_t j = 0; j < nc; j++)
            if (d->live[j])
              {
                int hit = cn__pgd (v, k, j, d->lo, d->hi, ws[0].point, v->opts.attack_steps / 2 + 1, err);
                if (hit != 0)
                  {
                    res = hit > 0 ? B_FOUND : B_FAILED;
                    goto done;
                  }
                break;
              }
        }
      /* Pop a batch; split every domain, or past the cap hand it to a depth-first worker. */
      int64_t nt = 0, nj = 0;
      int dfs = q.live > cap;
      for (int64_t i = 0; i < batch && q.live > 0; i++)
        {
          task *t = &tasks[nt];
          memset (t, 0, sizeof *t);
          /* alternately the worst bound and the least violation */
          t->parent = queue_take (&q, (i & 1) ? &q.by_viol : &q.by_margin);
          if (t->parent == NULL)
            t->parent = queue_take (&q, &q.by_margin);
          if (t->parent == NULL)
            break;
          if (dfs)
            {
              t->dfs = 1;
              jobs[nj++] = (job) { .t = t, .c = -1 };
              nt++;
              continue;
            }
          int s = task_make (t, n, nc);
          if (s < 0)
            {
              for (int c = 0; c < t->nchild; c++)
                domain_free (t->child[c]);
              domain_release (t->parent);
              cn_error_set (err, CN_ENOMEM, "verify: out of memory");
              res = B_FAILED;
              goto done_tasks;
            }
          if (s == 0)
            {
              domain_release (t->parent);
              res = B_OPEN;      /* this box cannot be split further: the case stays unknown */
              continue;
            }
          for (int c = 0; c < t->nchild; c++)
            jobs[nj++] = (job) { .t = t, .c = c };
          nt++;
        }
#pragma omp parallel for schedule(dynamic, 1) num_threads(T) if (T > 1)
      for (int64_t i = 0; i < nj; i++)
        {
          work *w = &ws[T > 1 ? omp_get_thread_num () : 0];
          cn_error e;
          cn_error_clear (&e);
          task *t = jobs[i].t;
          enum bound_result r;
          if (jobs[i].c < 0)
            r = t->dfs_res = depth_first (v, w, k, t->parent, &e);
          else
            r = t->res[jobs[i].c] = bound_domain (v, w, k, t->child[jobs[i].c], &e);
          if (r == B_FAILED)
            record_failure (v, &e);
        }
      int stopped = 0;
      for (int64_t i = 0; i < nt; i++)
        {
          task *t = &tasks[i];
          if (t->dfs)
            {
              if (t->dfs_res == B_OPEN)
                res = B_OPEN;
              else if (t->dfs_res != B_REFUTED)
                stopped = 1;
              continue;
            }
          int bad = 0;
          for (int c = 0; c < t->nchild; c++)
            bad |= t->res[c] == B_FOUND || t->res[c] == B_STOP || t->res[c] == B_FAILED;
          if (bad)
            {
              stopped = 1;
              continue;
            }
          task_choose (t);
          for (int c = 0; c < 2 && !stopped; c++)
            cert_emit (v, k, t->child[c]);   /* refuted or open: kept in the tree */
          for (int c = 0; c < 2; c++)
            {
              if (t->res[c] != B_OPEN || stopped)
                continue;
              if (queue_push (&q, t->child[c]) != 0)
                {
                  cn_error_set (err, CN_ENOMEM, "verify: out of memory");
                  res = B_FAILED;
                  stopped = 1;
                  continue;
                }
              t->child[c] = NULL;      /* now the queue's */
            }
        }
    done_tasks:
      for (int64_t i = 0; i < nt; i++)
        {
          for (int c = 0; c < tasks[i].nchild; c++)
            domain_free (tasks[i].child[c]);
          domain_release (tasks[i].parent);
          memset (&tasks[i], 0, sizeof tasks[i]);
        }
      if (res == B_FAILED)
        goto done;
      if (v->fail != CN_OK)
        {
          *err = v->fail_err;
          res = B_FAILED;
          goto done;
        }
      if (v->found)
        {
          res = B_FOUND;
          goto done;
        }
      if (stopped)
        {
          if (res != B_FAILED)
            res = B_STOP;
          goto done;
        }
      if (v->opts.progress != NULL && cn__now () - last_progress >= v->opts.progress_interval)
        {
          last_progress = cn__now ();
          cn_verify_progress p = { .case_index = k, .n_cases = v->spec->n_cases, .domains_done = v->domains,
                                   .domains_queued = q.live,
                                   .worst_margin = queue_peek (&q.by_margin) ? queue_peek (&q.by_margin)->margin : 0,
                                   .elapsed = last_progress - v->t0 };
          v->opts.progress (&p, v->opts.progress_user);
        }
    }
done:
  *queued_out = q.live;
  queue_clear (&q);
  domain_free (root);
  for (int t = 0; t < T; t++)
    work_clear (&ws[t]);
  free (ws);
  free (jobs);
  free (tasks);
  return res;
}

/* The attacks (cn__attack_case, with V's options) on every case of V not PROVED, while *VERDICT
 * is unsat (no answer yet): *VERDICT becomes sat on a counterexample, timeout at the deadline.
 * Returns the status of a failure (CN_OK if none). */
static cn_status
attack_cases (cn__verifier *v, const unsigned char *proved, cn_verdict *verdict, cn_error *err)
{
  for (int64_t k = 0; k < v->spec->n_cases && *verdict == CN_VERDICT_UNSAT; k++)
    {
      if (proved[k])
        continue;
      int hit = cn__attack_case (v, k, err);
      if (hit < 0)
        return err->code != CN_OK ? err->code : CN_EUNSOUND;
      if (hit > 0 || v->found)
        *verdict = CN_VERDICT_SAT;
      else if (cn__should_stop (v))
        *verdict = CN_VERDICT_TIMEOUT;
    }
  return CN_OK;
}

/* Frees what a certificate-writing search keeps (V zeroed or filled by cn_verify; NULLs them). */
static void
free_certificate_lists (cn__verifier *v)
{
  free (v->cert_rows);
  free (v->relaxed);
  free (v->relaxed_n);
  free (v->relus);
  v->cert_rows = NULL;
  v->relaxed = NULL;
  v->relaxed_n = NULL;
  v->relus = NULL;
}

cn_status
cn_verify (const cn_graph *g, const cn_spec *spec, const cn_verify_opts *opts, cn_verify_result *result,
           cn_error *err)
{
  memset (result, 0, sizeof *result);
  cn__verifier v;
  memset (&v, 0, sizeof v);
  v.g = g;
  v.spec = spec;
  if (opts != NULL)
    v.opts = *opts;
  else
    cn_verify_opts_init (&v.opts);
  v.t0 = cn__now ();
  v.deadline = v.opts.timeout > 0 ? v.t0 + v.opts.timeout : INFINITY;
  v.threads = v.opts.bounds.threads > 0 ? v.opts.bounds.threads : omp_get_max_threads ();
  v.rng = v.opts.seed;
  cn_error_clear (&v.fail_err);
  if (g == NULL || spec == NULL)
    return cn_error_set (err, CN_EINVAL, "verify: no graph or no specification");
  if (cn_graph_n_inputs (g) != 1 || cn_graph_n_outputs (g) < 1)
    return cn_error_set (err, CN_EINVAL, "verify: the network must have one input and an output (it has %d and %d)",
                         cn_graph_n_inputs (g), cn_graph_n_outputs (g));
  int64_t nin = cn_shape_numel (cn_graph_value_shape (g, cn_graph_input (g, 0)));
  int64_t nout = cn_shape_numel (cn_graph_value_shape (g, cn_graph_output (g, 0)));
  if (nin != spec->n_x || nout != spec->n_y)
    return cn_error_set (err, CN_ESHAPE,
                         "verify: the property declares %lld inputs and %lld outputs, the network has %lld and %lld",
                         (long long) spec->n_x, (long long) spec->n_y, (long long) nin, (long long) nout);
  if (v.opts.certificate != NULL && v.opts.bounds.semantics != CN_SEMANTICS_REAL)
    return cn_error_set (err, CN_EUNSUPPORTED, "verify: certificates hold for the real semantics only (their checker "
                         "re-derives exact bounds in MPFI); there is none yet for --semantics %s",
                         cn_semantics_name (v.opts.bounds.semantics));
  if (v.opts.certificate != NULL)
    {
      /* the search as a certificate can record it (certnn/verify.h) */
      cn_method me = v.opts.bounds.method;
      if (me != CN_METHOD_CROWN && me != CN_METHOD_CROWN_IBP)
        return cn_error_set (err, CN_EINVAL, "verify: a certificate records CROWN bounds: the method must be crown or "
                             "crown-ibp, not %s", cn_method_name (me));
      if (cn__proof_slope_name (v.opts.bounds.slope) == NULL)
        return cn_error_set (err, CN_EINVAL, "verify: unknown slope %d", (int) v.opts.bounds.slope);
      const char *hs[2] = { v.opts.network_sha256, v.opts.property_sha256 };
      for (int q = 0; q < 2; q++)
        if (hs[q] == NULL || strlen (hs[q]) != 64 || strspn (hs[q], "0123456789abcdef") != 64)
          return cn_error_set (err, CN_EINVAL, "verify: a certificate needs the %s's SHA-256 (64 lower-case "
                               "hexadecimal digits)", q ? "property" : "network");
      v.opts.clip = 0;
      v.opts.escalate = 0;
      v.opts.bounds.tighten_slopes = 0;
      v.opts.relu_refine = 0;
      int64_t rmax = 1;
      for (int64_t k = 0; k < spec->n_cases; k++)
        for (int64_t j = 0; j < spec->cases[k].n_clauses; j++)
          rmax = spec->cases[k].clauses[j].n_rows > rmax ? spec->cases[k].clauses[j].n_rows : rmax;
      v.cert_rows = malloc ((size_t) rmax * sizeof *v.cert_rows);
      if (v.cert_rows == NULL || cn__proof_relaxed_values (g, &v.relaxed, &v.n_relaxed) != 0
          || (v.relaxed_n = malloc ((size_t) (v.n_relaxed + 1) * sizeof *v.relaxed_n)) == NULL)
        {
          free (v.cert_rows);
          free (v.relaxed);
          return cn_error_set (err, CN_ENOMEM, "verify: out of memory");
        }
      for (int q = 0; q < v.n_relaxed; q++)
        v.relaxed_numel += v.relaxed_n[q] = cn_shape_numel (cn_graph_value_shape (g, v.relaxed[q]));
      if (cn__proof_relus (g, &v.relus, &v.n_relus) != 0)
        {
          free (v.cert_rows);
          free (v.relaxed);
          free (v.relaxed_n);
          return cn_error_set (err, CN_ENOMEM, "verify: out of memory");
        }
      for (int r = 0; r < v.n_relus; r++)
        v.relus_numel += cn_shape_numel (cn_graph_value_shape (g, cn_graph_node_output (g, v.relus[r], 0)));
      if (cn__proof_write_header (v.opts.certificate, v.opts.network_sha256, v.opts.property_sha256,
                                  cn_method_name (me), v.opts.bounds.slope, spec->n_x, spec->n_y, spec->n_cases) != 0)
        {
          free (v.cert_rows);
          free (v.relaxed);
          free (v.relaxed_n);
          free (v.relus);
          return cn_error_set (err, CN_EIO, "verify: writing the certificate failed");
        }
    }
  result->n_x = spec->n_x;
  result->n_y = spec->n_y;
  v.cex_x = malloc ((size_t) spec->n_x * sizeof (double) + 1);
  v.cex_y = malloc ((size_t) spec->n_y * sizeof (double) + 1);
  if (v.cex_x == NULL || v.cex_y == NULL)
    {
      free (v.cex_x);
      free (v.cex_y);
      free_certificate_lists (&v);
      return cn_error_set (err, CN_ENOMEM, "verify: out of memory");
    }
  cn_verdict verdict = CN_VERDICT_UNSAT;
  cn_status st = CN_OK;
  /* Short attacks on every case (random points for a tenth of the usual time, one PGD run per
   * clause), then one bound of each case's box (what it proves needs no longer attack), then the
   * full attacks on the cases left (a counterexample in a later case must not wait for the
   * search of an earlier one), then the search, case by case, from each open case's bounded
   * box. */
  unsigned char *proved = calloc ((size_t) spec->n_cases + 1, 1);
  domain **roots = calloc ((size_t) spec->n_cases + 1, sizeof *roots);   /* the open roots */
  if (proved == NULL || roots == NULL)
    {
      free (proved);
      free (roots);
      free (v.cex_x);
      free (v.cex_y);
      free_certificate_lists (&v);
      return cn_error_set (err, CN_ENOMEM, "verify: out of memory");
    }
  cn_verify_opts full = v.opts;
  v.opts.random_samples = full.random_samples / 10;
  v.opts.attack_restarts = full.attack_restarts > 0 ? 1 : 0;
  st = attack_cases (&v, proved, &verdict, err);
  v.opts = full;
  for (int64_t k = 0; k < spec->n_cases && st == CN_OK && verdict == CN_VERDICT_UNSAT; k++)
    {
      enum bound_result r = bound_root (&v, k, &roots[k], err);
      if (r == B_FAILED)
        st = err->code != CN_OK ? err->code : CN_EUNSOUND;
      else if (r == B_FOUND || v.found)
        verdict = CN_VERDICT_SAT;
      else if (r == B_STOP)
        verdict = CN_VERDICT_TIMEOUT;
      proved[k] = r == B_REFUTED;
      if (r != B_OPEN)
        {
          domain_free (roots[k]);      /* only an open root goes on to the search */
          roots[k] = NULL;
        }
    }
  if (st == CN_OK)
    st = attack_cases (&v, proved, &verdict, err);
  for (int64_t k = 0; k < spec->n_cases && st == CN_OK
                      && (verdict == CN_VERDICT_UNSAT || verdict == CN_VERDICT_UNKNOWN); k++)
    {
      if (proved[k])
        continue;
      int64_t queued = 0;
      enum bound_result r = search_case (&v, k, roots[k], &queued, err);
      roots[k] = NULL;
      if (r == B_FAILED)
        {
          st = err->code != CN_OK ? err->code : CN_EUNSOUND;
          break;
        }
      if (r == B_FOUND || v.found)
        {
          verdict = CN_VERDICT_SAT;
          break;
        }
      if (r == B_STOP)
        {
          verdict = CN_VERDICT_TIMEOUT;
          break;
        }
      if (r == B_OPEN)
        verdict = CN_VERDICT_UNKNOWN;   /* go on: a later case may still give a counterexample */
    }
  for (int64_t k = 0; k < spec->n_cases; k++)
    domain_free (roots[k]);
  free (roots);
  free (proved);
  if (v.opts.certificate != NULL)
    {
      /* unsat only with the whole certificate written (its end line last) */
      if (st == CN_OK && v.cert_nomem)
        st = cn_error_set (err, CN_ENOMEM, "verify: out of memory keeping the boxes the certificate records");
      if (st == CN_OK && (v.cert_failed || (verdict == CN_VERDICT_UNSAT
                                            && cn__proof_write_end (v.opts.certificate, v.cert_nodes, v.cert_refs) != 0)))
        st = cn_error_set (err, CN_EIO, "verify: writing the certificate failed");
      free_certificate_lists (&v);
      result->uncertified = v.uncertified;
    }
  result->verdict = verdict;
  result->domains = v.domains;
  result->attack_points = v.attack_points;
  result->binary32_rejected = v.binary32_rejected;
  result->filter_overruled = v.filter_overruled;
  result->seconds = cn__now () - v.t0;
  if (st == CN_OK && verdict == CN_VERDICT_SAT)
    {
      result->x = v.cex_x;
      result->y = v.cex_y;
      result->case_index = v.found_case;
      result->clause_index = v.found_clause;
    }
  else
    {
      free (v.cex_x);
      free (v.cex_y);
    }
  return st;
}
