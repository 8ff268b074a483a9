/* SPDX-License-Identifier: MIT */
/* tests/check_ulps.c: forward accuracy of every operator against an MPFR reference (issue 4).
 *
 * For every operator with a rule the test draws instances through tu_op_case / tu_op_graph (the
 * generators of the generic test) and a point input X, evaluates the forward with cn_graph_eval in
 * f64 (at X, constants as drawn) and f32 (at X rounded to binary32, the graph's floating constants
 * rounded to binary32 in place, so that the f32 evaluation and its reference read the same
 * numbers).  The exact value is the MPFI reference (tu_eval_mpfi at
 * PREC bits on the point X; its interval is a point or a few ulps of PREC wide, and its midpoint
 * stands for the exact value).  The error of cn_graph_eval's output F against the exact R is
 * measured in the scale of the operator's row of tests/data/ulps.tsv:
 *
 *   ulp     max_j |F_j - R_j| / ulp_p(R_j), ulp_p the unit in the last place of R_j in the
 *           evaluation's format (p = 53 or 24 bits, subnormal ulps below the normal range), so
 *           0.5 is a correctly rounded result and an exact result measures 0;
 *   scaled  max_j |F_j - R_j| / (u M), u = 2^-53 or 2^-24 the unit roundoff and
 *           M = max (max_j |R_j|, max_i |X_i|, max |constant entries|) the instance's natural
 *           magnitude (word inputs, e.g. a random key, do not count; a random draw's M is its
 *           range, max (|lo|, |hi|) or |mean| + 8.57 std; cosineLoss's, 1 - c with |c| <= 1, is at
 *           least 1): a result that cancels (a sum, a dot
 *           product, a norm, a softmax-weighted sum, a loss, a transform) has an error
 *           proportional to the size of its terms, not to its own size.  M is a proxy for the
 *           terms' size (sum |terms| is not available generically).  Softmax-weighted sums have an
 *           error that grows with the logits' size A = max (1, max |X_i|, max |constants|): M is
 *           multiplied by A for attentionFromScores and distill, by A^2 for attention and
 *           multiheadAttention (logits are products q k);
 *   exact   the output must equal R (words compared word for word; floating outputs bit for bit
 *           up to the sign of a zero).
 *
 * An error above the row's bound (the binary64 column for the f64 evaluation, the binary32
 * column for the f32 one) fails the test.  The bounds are measured maxima (9000 draws per
 * operator, each of 1 to a few hundred outputs, plus the edge pass) times 2, rounded up: see the
 * data file's header.  The binary64 evaluation reads full binary64 inputs and the constants as
 * drawn; the binary32 one reads the inputs and the constants rounded to binary32 (and its own
 * reference at those numbers).
 *
 * Edge pass: the elementwise operators of the elementwise, transcendental, rounding, extrema and
 * activation families are evaluated at inputs made of zeros of both signs, infinities, NaN,
 * subnormals, huge magnitudes and ordinary numbers.  Where the reference is NaN the forward must
 * be NaN (fmax, fmin, nanToNum and fullLike ignore or replace NaN as the seed documents; nanToNum is
 * checked against torch.nan_to_num's own definition); where it is an infinity the forward must be
 * the same infinity (rsqrt (-0) = -inf is IEEE 754's rSqrt, MPFR's rec_sqrt says +inf: accepted);
 * where it is a finite point the forward must be within the row's bound (ulp rows), a number of the
 * right sign at least the format's largest where the exact value overflows.  Not compared: an
 * interval reference (the MPFI arm cannot decide, e.g. frac (inf)); a NaN or an infinity out where
 * an operand is infinite and the MPFI arm takes a limit or its own convention (0 inf = 0 in MPFI,
 * remainder (c, +inf) = c there but +inf in Python's and torch's remainder, torch's lerp form
 * e - (e - s)(1 - w)); an overflow inside lerp, addcmul, addcdiv on huge finite operands (torch's
 * formulas; counted, listed by --measure).  A forward that refuses the input (CN_ENUMERIC,
 * CN_EINVAL: the seed's domain refusals) is counted, not failed.  NaN probe: independently of the
 * reference (whose MPFI arm may enclose a NaN operand's result by the whole line), one entry of an
 * ordinary X is set to NaN and every output entry that changed must be NaN.
 *
 * Usage: check_ulps [--measure N] [--op NAME] [--verbose]
 *   without arguments: DRAWS draws per operator and the edge pass, asserting the bounds;
 *   --measure N: N draws per operator, prints the worst values (no assertion); to set bounds.
 *   CN_TEST_SEED reproduces a run; CN_SRCDIR locates tests/data/ulps.tsv. */
#include <config.h>

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "graph/graph_impl.h"

#define PREC 320
#define DRAWS 100
#define EDGE_DRAWS 24

struct row
{
  int present;
  char scale[16];   /* "ulp", "scaled", "exact" */
  double b64, b32;  /* bounds; 0 for "exact" */
};

static struct row rows[CN_OP_COUNT];

/* Worst values of one operator: [scale][format], scale 0 = ulp, 1 = scaled. */
struct worst
{
  double w[2][2];
  int64_t evals, refusals, interval_refs, edge_checked, ieee_invalid, overflow;
  char overflow_where[400];
  int word_mismatch;
  char where[2][2][512];
};

static int
read_table (void)
{
  char path[4096];
  snprintf (path, sizeof path, "%s/tests/data/ulps.tsv", tu_srcdir ());
  FILE *f = fopen (path, "r");
  if (f == NULL)
    {
      fprintf (stderr, "check_ulps: cannot open %s\n", path);
      return 0;
    }
  char line[1024];
  int ok = 1;
  while (fgets (line, sizeof line, f))
    {
      if (line[0] == '#' || line[0] == '\n')
        continue;
      char name[128], scale[16], b64[64], b32[64];
      if (sscanf (line, "%127s %15s %63s %63s", name, scale, b64, b32) != 4)
        {
          fprintf (stderr, "check_ulps: bad line in %s: %s", path, line);
          ok = 0;
          continue;
        }
      cn_op op = cn_op_lookup (name);
      if (op == CN_OP_COUNT)
        {
          fprintf (stderr, "check_ulps: unknown operator '%s' in %s\n", name, path);
          ok = 0;
          continue;
        }
      struct row *r = &rows[op];
      r->present = 1;
      snprintf (r->scale, sizeof r->scale, "%s", scale);
      r->b64 = strcmp (b64, "exact") == 0 ? 0 : strtod (b64, NULL);
      r->b32 = strcmp (b32, "exact") == 0 ? 0 : strtod (b32, NULL);
      if (strcmp (scale, "ulp") && strcmp (scale, "scaled") && strcmp (scale, "exact"))
        {
          fprintf (stderr, "check_ulps: unknown scale '%s' for %s\n", scale, name);
          ok = 0;
        }
    }
  fclose (f);
  return ok;
}

/* Rounds the graph's floating constants to binary32 (in their binary64 copies too), so that an
 * f32 evaluation reads the numbers the reference reads.  Returns max |entry|. */
static double
round_constants (cn_graph *g)
{
  double mag = 0;
  for (int i = 0; i < g->n_values; i++)
    {
      struct cn__value *v = &g->values[i];
      if (!v->is_constant || !cn_dtype_is_float (v->dtype))
        continue;
      if (v->constant.dtype == CN_DTYPE_F64)
        {
          double *d = v->constant.data;
          for (int64_t j = 0; j < v->numel; j++)
            d[j] = (float) d[j];
        }
      if (v->cdata != NULL && v->cdata != v->constant.data)
        for (int64_t j = 0; j < v->numel; j++)
          v->cdata[j] = (float) v->cdata[j];
      for (int64_t j = 0; j < v->numel; j++)
        {
          double e = v->cdata != NULL ? v->cdata[j] : cn_tensor_get_f64 (&v->constant, j);
          if (fabs (e) > mag)
            mag = fabs (e);
        }
    }
  return mag;
}

/* ulp_p (r) in the format of P bits and minimal exponent EMIN (of the smallest normal, as
 * frexp counts), as a double power of two. */
static double
ulp_of (double r, int p, int emin)
{
  int e;
  if (r == 0 || !isfinite (r))
    return ldexp (1, emin - p);
  frexp (r, &e);
  if (e < emin)
    e = emin;
  return ldexp (1, e - p);
}

/* The midpoint of the reference interval V, rounded to binary64 (R), and its width W. */
static void
ref_point (mpfi_t v, double *r, double *w)
{
  mpfr_t m;
  mpfr_init2 (m, mpfi_get_prec (v));
  mpfi_mid (m, v);
  *r = mpfr_get_d (m, MPFR_RNDN);
  mpfr_sub (m, &v->right, &v->left, MPFR_RNDU);
  *w = mpfr_get_d (m, MPFR_RNDU);
  mpfr_clear (m);
}

/* |F - R| in the ulp scale, computed in MPFR from the interval's midpoint (no double rounding of
 * R first). */
static double
ulp_err (double f, mpfi_t v, int p, int emin)
{
  mpfr_t m, d;
  mpfr_init2 (m, mpfi_get_prec (v));
  mpfr_init2 (d, mpfi_get_prec (v) + 64);
  mpfi_mid (m, v);
  double r = mpfr_get_d (m, MPFR_RNDN);
  double res;
  if (isnan (f) || isinf (f))
    res = (mpfr_nan_p (m) && isnan (f)) || (mpfr_inf_p (m) && isinf (f) && (f > 0) == (mpfr_sgn (m) > 0)) ? 0
          : INFINITY;
  else if (mpfr_nan_p (m) || mpfr_inf_p (m))
    res = INFINITY;
  else
    {
      /* ulp of the exact value (R rounded to the format, then its exponent) */
      double rr = p == 24 ? (double) (float) r : r;
      int e;
      frexp (ulp_of (rr, p, emin), &e);
      mpfr_sub_d (d, m, f, MPFR_RNDN);
      mpfr_abs (d, d, MPFR_RNDN);
      mpfr_mul_2si (d, d, 1 - e, MPFR_RNDN);   /* |F - R| / ulp, exact scaling by a power of 2 */
      res = mpfr_get_d (d, MPFR_RNDU);
    }
  mpfr_clear (m);
  mpfr_clear (d);
  return res;
}

static int
word_equal (const cn_tensor *out, int64_t j, mpfi_t r)
{
  switch (out->dtype)
    {
    case CN_DTYPE_I64:
      return mpfr_cmp_si (&r->left, ((const int64_t *) out->data)[j]) == 0
             && mpfr_cmp_si (&r->right, ((const int64_t *) out->data)[j]) == 0;
    case CN_DTYPE_U64:
      return mpfr_cmp_ui (&r->left, ((const uint64_t *) out->data)[j]) == 0
             && mpfr_cmp_ui (&r->right, ((const uint64_t *) out->data)[j]) == 0;
    default:
      {
        double w = cn_tensor_get_f64 (out, j);
        return mpfr_cmp_d (&r->left, w) == 0 && mpfr_cmp_d (&r->right, w) == 0;
      }
    }
}

static void
format_x (char *buf, size_t size, const double *x, int64_t n)
{
  size_t k = 0;
  buf[0] = 0;
  for (int64_t i = 0; i < n && k + 32 < size; i++)
    k += (size_t) snprintf (buf + k, size - k, "%s%a", i ? "," : "", x[i]);
  if (n > 0 && k + 32 >= size)
    snprintf (buf + k, size - k, ",...");
}

/* A number drawn for X: uniform in the case's range when it has one (integers for word ports),
 * else uniform in [-2, 2] (4 draws in 10), in [-5, 5] (2 in 10), in [-40, 40] (2 in 10; the tails
 * of the activations), or of a log-uniform magnitude in [2^-30, 2^20] (2 in 10). */
static double
draw_x (const struct cn__op_case *c)
{
  double v;
  if (c->x_lo < c->x_hi)
    {
      v = tu_uniform (c->x_lo, c->x_hi);
      if (c->x_integer)
        return fmin (fmax (round (v), ceil (c->x_lo)), floor (c->x_hi));
      return v;
    }
  int k = (int) tu_int (0, 9);
  if (k < 4)
    v = tu_uniform (-2, 2);
  else if (k < 6)
    v = tu_uniform (-5, 5);
  else if (k < 8)
    v = tu_uniform (-40, 40);
  else
    v = (tu_rand () & 1 ? -1 : 1) * ldexp (1, (int) tu_int (-30, 19)) * tu_uniform (1, 2);
  return v;
}

/* Evaluates G at X in sort T; OUT initialised on success. */
static cn_status
eval_at (const cn_graph *g, const double *x, int64_t n, cn_dtype t, cn_tensor *out, cn_error *err)
{
  cn_tensor in;
  cn_shape xs = *cn_graph_value_shape (g, cn_graph_input (g, 0));
  cn_status st = cn_tensor_init (&in, CN_DTYPE_F64, &xs, err);
  if (st != CN_OK)
    return st;
  memcpy (in.data, x, (size_t) n * sizeof *x);
  st = cn_graph_eval (g, t, &in, out, err);
  cn_tensor_clear (&in);
  return st;
}

/* Operators whose composite forward may overflow inside on finite operands near the top of the
 * format although the exact result is finite (measured; listed in the report): lerp, addcmul,
 * addcdiv on huge finite operands (the edge pass), poissonLoss in binary32 (exp (x) for
 * x > 88.7 where the mean is representable). */
static int
overflow_ok (cn_op op)
{
  return op == CN_OP_LERP || op == CN_OP_ADDCMUL || op == CN_OP_ADDCDIV || op == CN_OP_POISSON_LOSS;
}

/* The largest finite magnitude of the evaluation's format. */
static double
format_max (int dt)
{
  return dt ? FLT_MAX : DBL_MAX;
}

/* One draw of OP: updates W.  The binary64 evaluation reads X64 (binary64 numbers) and the
 * graph's constants as drawn; the binary32 evaluation reads X32 = X64 rounded to binary32 and the
 * constants rounded to binary32 (round_constants), and each is compared with the reference at its
 * own input.  Returns 0 on a harness failure (message printed). */
static int
one_draw (cn_op op, struct worst *w)
{
  const char *name = cn_op_name (op);
  struct cn__op_case c;
  cn_error err;
  cn_error_clear (&err);
  if (!tu_op_case (op, &c))
    return 0;
  cn_graph *g = NULL;
  if (tu_op_graph (&c, &g, &err) != CN_OK)
    {
      fprintf (stderr, "%s: building the case failed: %s\n", name, err.msg);
      return 0;
    }
  int xin = cn_graph_input (g, 0), yv = cn_graph_output (g, 0);
  int64_t n = cn_shape_numel (cn_graph_value_shape (g, xin));
  int64_t m = cn_shape_numel (cn_graph_value_shape (g, yv));
  double *x64 = malloc ((size_t) (n + 1) * sizeof *x64), *x32 = malloc ((size_t) (n + 1) * sizeof *x32);
  if (x64 == NULL || x32 == NULL)
    abort ();
  for (int64_t i = 0; i < n; i++)
    {
      x64[i] = draw_x (&c);
      x32[i] = (float) x64[i];
      if (c.x_lo < c.x_hi && (x32[i] < c.x_lo || x32[i] > c.x_hi))
        x32[i] = x64[i] = (float) x64[i] < c.x_lo ? nextafterf ((float) c.x_lo, INFINITY)
                                                : nextafterf ((float) c.x_hi, -INFINITY);
    }
  int ok = 1, words = !cn_dtype_is_float (cn_graph_value_dtype (g, yv));
  for (int dt = 0; dt < 2 && ok; dt++)
    {
      cn_dtype t = dt ? CN_DTYPE_F32 : CN_DTYPE_F64;
      const double *x = dt ? x32 : x64;
      double cmag = dt ? round_constants (g) : 0, xmag = 0, rmag = 0, lim = format_max (dt);
      if (!dt)
        {
          /* the constants' magnitude without rounding them yet */
          for (int i = 0; i < g->n_values; i++)
            if (g->values[i].is_constant && g->values[i].cdata != NULL)
              for (int64_t j = 0; j < g->values[i].numel; j++)
                cmag = fmax (cmag, fabs (g->values[i].cdata[j]));
        }
      for (int64_t i = 0; i < n && !c.x_integer; i++)
        xmag = fmax (xmag, fabs (x[i]));   /* (word inputs, e.g. a key, are not magnitudes) */
      cn_mpfi_vec ref;
      if (tu_eval_mpfi (g, x, PREC, &ref, &err) != CN_OK)
        {
          /* a domain refusal of the reference (a drawn value outside a validate's range) */
          w->refusals++;
          continue;
        }
      for (int64_t j = 0; j < m && !words; j++)
        {
          double r, wd;
          ref_point (ref.v[j], &r, &wd);
          if (fabs (r) <= lim)
            rmag = fmax (rmag, fabs (r));
        }
      double mag = fmax (rmag, fmax (xmag, cmag));
      /* a random draw's natural magnitude is its range: [lo, hi], mean +- std sqrt (106 ln 2) */
      if (op == CN_OP_RAND_UNIFORM)
        mag = fmax (mag, fmax (fabs (c.params.rand_uniform.lo), fabs (c.params.rand_uniform.hi)));
      if (op == CN_OP_RANDN)
        mag = fmax (mag, fabs (c.params.randn.mean) + 8.57 * fabs (c.params.randn.std));
      /* cosineLoss is 1 - c with |c| <= 1: its terms have size 1 whatever the inputs' size */
      if (op == CN_OP_COSINE_LOSS)
        mag = fmax (mag, 1);
      /* softmax-weighted sums: the weights' relative error is u times the logits' spread, so
         the error is u M times the logits' size: the inputs' (scores, distill's logits) or their
         products (attention's q k, multiheadAttention's projections) */
      double a1 = fmax (1, fmax (xmag, cmag));
      if (op == CN_OP_ATTENTION_FROM_SCORES || op == CN_OP_DISTILL)
        mag *= a1;
      if (op == CN_OP_ATTENTION || op == CN_OP_MULTIHEAD_ATTENTION)
        mag *= a1 * a1;
      cn_tensor out;
      if (eval_at (g, x, n, t, &out, &err) != CN_OK)
        {
          fprintf (stderr, "%s: forward %s failed: %s (CN_TEST_SEED=%lu)\n", name, cn_dtype_name (t), err.msg,
                   tu_seed ());
          cn_mpfi_vec_clear (&ref);
          ok = 0;
          break;
        }
      int p = dt ? 24 : 53, emin = dt ? -125 : -1021;
      double u = ldexp (1, -p), eu = 0, es = 0;
      char wentry[160] = "";
      for (int64_t j = 0; j < m; j++)
        {
          if (words)
            {
              if (!word_equal (&out, j, ref.v[j]))
                {
                  w->word_mismatch = 1;
                  eu = es = INFINITY;
                }
              continue;
            }
          double f = cn_tensor_get_f64 (&out, j), r, wd;
          ref_point (ref.v[j], &r, &wd);
          if (fabs (r) > lim && (f > 0) == (r > 0) && fabs (f) >= lim)
            continue;   /* the exact value overflows the format: an infinity (or the largest
                           finite number) of its sign */
          if (isinf (f) && isfinite (r) && overflow_ok (op))
            {
              /* an overflow inside (poissonLoss's exp (x) in binary32 for x > 88.7 where the
                 mean is representable): counted, listed by --measure, not measured */
              w->overflow++;
              continue;
            }
          double ej = ulp_err (f, ref.v[j], p, emin);
          if (!(ej <= eu))
            {
              eu = ej;
              snprintf (wentry, sizeof wentry, "entry %lld: got %a, exact %a", (long long) j, f, r);
            }
          double a = fabs (f - r);
          if (isnan (f) || isnan (r) || isinf (r) || isinf (f))
            a = (isnan (f) && isnan (r)) || f == r ? 0 : INFINITY;
          es = fmax (es, mag > 0 ? a / (u * mag) : (a == 0 ? 0 : INFINITY));
        }
      double e2[2] = { eu, es };
      for (int s = 0; s < 2; s++)
        if (!(e2[s] <= w->w[s][dt]))
          {
            w->w[s][dt] = isnan (e2[s]) ? INFINITY : e2[s];
            char xs[400];
            format_x (xs, sizeof xs, x, n);
            snprintf (w->where[s][dt], sizeof w->where[s][dt], "%s X=[%s] n=%lld", s ? "" : wentry, xs,
                      (long long) n);
          }
      cn_tensor_clear (&out);
      cn_mpfi_vec_clear (&ref);
    }
  w->evals++;
  free (x64);
  free (x32);
  cn_graph_free (g);
  return ok;
}

/* ---- edge pass ------------------------------------------------------------------------- */

static int
edge_family (cn_op op)
{
  cn_family f = cn_op_family (op);
  return f == CN_FAMILY_ELEMENTWISE || f == CN_FAMILY_TRANSCENDENTAL || f == CN_FAMILY_ROUNDING
         || f == CN_FAMILY_EXTREMA || f == CN_FAMILY_ACTIVATION;
}

/* Operators whose seed semantics replace or ignore NaN (no NaN out for a NaN in). */
static int
nan_exempt (cn_op op)
{
  return op == CN_OP_FMAX || op == CN_OP_FMIN || op == CN_OP_NAN_TO_NUM || op == CN_OP_FULL_LIKE;
}

static double
edge_value (void)
{
  static const double v[] = { 0.0, -0.0, INFINITY, -INFINITY, NAN, 0x1p-1074, -0x1p-1074, 0x1.8p-1030, -0x1.8p-1030,
                              0x1p-149, -0x1p-140, DBL_MAX, -DBL_MAX, 1e300, -1e300, 1e30, -1e30, 0x1.fffffep127,
                              1e38, -1e38, 1.0, -1.0, 0.5, -0.5, 2.0, 3.0, 1e-300, -1e-300, 1e-40, 710.0, -745.0, 89.0 };
  int k = (int) tu_int (0, (int64_t) (sizeof v / sizeof v[0]) + 3);
  if (k >= (int) (sizeof v / sizeof v[0]))
    return tu_uniform (-4, 4);
  return v[k];
}

/* One edge draw of OP; returns 0 if a check failed (message printed when ASSERT). */
static int
one_edge (cn_op op, struct worst *w, int assert)
{
  const char *name = cn_op_name (op);
  struct cn__op_case c;
  cn_error err;
  cn_error_clear (&err);
  if (!tu_op_case (op, &c))
    return 1;
  for (int i = 0; i < c.n_in; i++)
    if (c.in_dtype[i] != CN_DTYPE_F64 && !c.in_const[i])
      return 1;   /* word or Boolean ports: not an elementwise float operator */
  cn_graph *g = NULL;
  if (tu_op_graph (&c, &g, &err) != CN_OK)
    return 1;
  int xin = cn_graph_input (g, 0), yv = cn_graph_output (g, 0);
  int64_t n = cn_shape_numel (cn_graph_value_shape (g, xin));
  int64_t m = cn_shape_numel (cn_graph_value_shape (g, yv));
  int ok = 1;
  if (!cn_dtype_is_float (cn_graph_value_dtype (g, yv)))
    {
      cn_graph_free (g);
      return 1;
    }
  double *x = malloc ((size_t) (n + 1) * sizeof *x), *x32 = malloc ((size_t) (n + 1) * sizeof *x);
  if (x == NULL || x32 == NULL)
    abort ();
  for (int64_t i = 0; i < n; i++)
    {
      x[i] = edge_value ();
      x32[i] = (float) x[i];
    }
  struct row *r = &rows[op];
  for (int dt = 0; dt < 2; dt++)
    {
      cn_dtype t = dt ? CN_DTYPE_F32 : CN_DTYPE_F64;
      const double *xp = dt ? x32 : x;
      if (dt)
        round_constants (g);
      int has_inf = 0, has_huge = 0;
      for (int64_t i = 0; i < n; i++)
        {
          has_inf |= isinf (xp[i]);
          has_huge |= isfinite (xp[i]) && fabs (xp[i]) > format_max (dt) / 16;
        }
      cn_mpfi_vec ref;
      cn_tensor out;
      cn_status sf = eval_at (g, xp, n, t, &out, &err);
      if (sf != CN_OK)
        {
          w->refusals++;
          continue;
        }
      if (tu_eval_mpfi (g, xp, PREC, &ref, &err) != CN_OK)
        {
          w->interval_refs++;
          cn_tensor_clear (&out);
          continue;
        }
      int p = dt ? 24 : 53, emin = dt ? -125 : -1021;
      double bound = dt ? r->b32 : r->b64;
      for (int64_t j = 0; j < m; j++)
        {
          double f = cn_tensor_get_f64 (&out, j);
          mpfi_ptr v = ref.v[j];
          const char *why = NULL;
          if (op == CN_OP_NAN_TO_NUM)
            {
              /* torch.nan_to_num's own definition (the MPFI arm is the identity on the reals) */
              const cn_params_nan_to_num *q = &c.params.nan_to_num;
              double xj = xp[j], lim = dt ? FLT_MAX : DBL_MAX, e;
              e = isnan (xj) ? q->nan_value
                  : xj == INFINITY ? (q->posinf_set ? q->posinf : lim)
                  : xj == -INFINITY ? (q->neginf_set ? q->neginf : -lim) : xj;
              if (dt)
                e = (float) e;
              if (!(f == e) && !(isnan (f) && isnan (e)))
                why = "nanToNum differs from torch.nan_to_num";
            }
          else if (isnan (f) && has_inf && !(mpfr_nan_p (&v->left) || mpfr_nan_p (&v->right)))
            {
              /* an IEEE invalid operation on an infinite operand (inf - inf, 0 inf, torch's lerp
                 form e - (e - s)(1 - w)) where the MPFI arm takes a limit or 0 inf = 0 */
              w->ieee_invalid++;
              continue;
            }
          else if (mpfr_nan_p (&v->left) || mpfr_nan_p (&v->right))
            {
              if (!isnan (f) && !nan_exempt (op))
                why = "reference NaN, forward not NaN";
            }
          else if (!mpfr_equal_p (&v->left, &v->right)
                   && !(mpfr_zero_p (&v->left) && mpfr_zero_p (&v->right)))
            {
              /* not a point: the MPFI arm cannot decide (e.g. frac (inf) encloses [-1, 0]) */
              w->interval_refs++;
              continue;
            }
          else if (mpfr_inf_p (&v->left))
            {
              if (op == CN_OP_RSQRT && xp[j] == 0 && isinf (f))
                w->ieee_invalid++;  /* rsqrt (-0): -inf (IEEE 754 rSqrt), MPFR's rec_sqrt says +inf */
              else if (!(isinf (f) && (f > 0) == (mpfr_sgn (&v->left) > 0)))
                why = "reference infinite, forward differs";
            }
          else
            {
              double rr, wd;
              ref_point (v, &rr, &wd);
              double lim = dt ? FLT_MAX : DBL_MAX;
              if (isinf (f) && has_inf)
                {
                  /* an infinite operand: the MPFI arm's value at infinity is a limit or a
                     convention of its own (remainder (c, +inf) = c there, +inf in Python's and
                     torch's remainder), not an IEEE semantics to compare with */
                  w->ieee_invalid++;
                  continue;
                }
              if (fabs (rr) > lim)
                {
                  /* the exact value overflows the format: an infinity of its sign or the
                     largest finite number are both acceptable roundings for a non-correctly
                     rounded operator */
                  if (!(fabs (f) >= lim && (f > 0) == (rr > 0)))
                    why = "exact value overflows, forward not huge of its sign";
                }
              else if ((isnan (f) || isinf (f)) && has_huge)
                {
                  /* an intermediate overflow on a huge operand (e.g. torch's lerp form
                     e - (e - s)(1 - w) with e - s beyond the format) */
                  w->overflow++;
                  if (!overflow_ok (op))
                    why = "exact value finite, forward overflowed inside";
                  else if (w->overflow_where[0] == 0)
                    {
                      char xs[300];
                      format_x (xs, sizeof xs, xp, n);
                      snprintf (w->overflow_where, sizeof w->overflow_where, "%s entry %lld = %a, X=[%s]",
                                cn_dtype_name (t), (long long) j, f, xs);
                    }
                }
              else if (isnan (f))
                why = "reference finite, forward NaN";
              else
                {
                  double e = ulp_err (f, v, p, emin);
                  if (strcmp (r->scale, "ulp") == 0 || strcmp (r->scale, "exact") == 0)
                    {
                      if (e > w->w[0][dt])
                        w->w[0][dt] = e;
                      if (assert && e > (strcmp (r->scale, "exact") == 0 ? 0 : bound))
                        why = "outside the documented ulps";
                    }
                }
            }
          w->edge_checked++;
          if (why != NULL)
            {
              char xs[400];
              format_x (xs, sizeof xs, xp, n);
              fprintf (stderr, "%s: edge %s entry %lld: %s: got %a, reference [%s] (X=[%s]) (CN_TEST_SEED=%lu)\n",
                       name, cn_dtype_name (t), (long long) j, why, f,
                       mpfr_get_d (&v->left, MPFR_RNDD) == mpfr_get_d (&v->right, MPFR_RNDU) ? "point" : "interval",
                       xs, tu_seed ());
              {
                mpfr_fprintf (stderr, "    reference = [%Ra, %Ra]\n", &v->left, &v->right);
              }
              ok = 0;
            }
        }
      cn_mpfi_vec_clear (&ref);
      cn_tensor_clear (&out);
    }
  free (x);
  free (x32);
  cn_graph_free (g);
  return ok;
}

/* NaN propagation, independent of the reference (whose MPFI arm may enclose a NaN operand's
 * result by the whole line): X drawn as in one_draw, then one entry set to NaN; every output entry
 * that changed must be NaN, except for the operators whose seed semantics ignore or replace NaN.
 * Returns 0 on a violation (message printed). */
static int
nan_probe (cn_op op, struct worst *w)
{
  const char *name = cn_op_name (op);
  struct cn__op_case c;
  cn_error err;
  cn_error_clear (&err);
  if (nan_exempt (op) || op == CN_OP_COPYSIGN || !tu_op_case (op, &c))
    return 1;
  for (int i = 0; i < c.n_in; i++)
    if (c.in_dtype[i] != CN_DTYPE_F64 && !c.in_const[i])
      return 1;
  cn_graph *g = NULL;
  if (tu_op_graph (&c, &g, &err) != CN_OK)
    return 1;
  int xin = cn_graph_input (g, 0), yv = cn_graph_output (g, 0), ok = 1;
  int64_t n = cn_shape_numel (cn_graph_value_shape (g, xin));
  int64_t m = cn_shape_numel (cn_graph_value_shape (g, yv));
  double *x = malloc ((size_t) (n + 1) * sizeof *x);
  if (x == NULL)
    abort ();
  for (int64_t i = 0; i < n; i++)
    x[i] = (float) draw_x (&c);
  for (int probe = 0; probe < 8 && ok && n > 0 && cn_dtype_is_float (cn_graph_value_dtype (g, yv)); probe++)
    {
      int64_t k = n <= 8 ? probe % n : tu_int (0, n - 1);
      int dt = (int) tu_int (0, 1);
      cn_dtype t = dt ? CN_DTYPE_F32 : CN_DTYPE_F64;
      cn_tensor o0, o1;
      double keep = x[k];
      if (eval_at (g, x, n, t, &o0, &err) != CN_OK)
        break;
      x[k] = NAN;
      cn_status st = eval_at (g, x, n, t, &o1, &err);
      x[k] = keep;
      if (st != CN_OK)
        {
          w->refusals++;   /* a NaN refused before any output is written */
          cn_tensor_clear (&o0);
          continue;
        }
      for (int64_t j = 0; j < m; j++)
        {
          double a = cn_tensor_get_f64 (&o0, j), b = cn_tensor_get_f64 (&o1, j);
          int changed = !(a == b && signbit (a) == signbit (b)) && !(isnan (a) && isnan (b));
          w->edge_checked++;
          if (changed && !isnan (b))
            {
              char xs[400];
              format_x (xs, sizeof xs, x, n);
              fprintf (stderr, "%s: NaN in, number out: %s entry %lld = %a (was %a) with X[%lld] = NaN, X=[%s] "
                       "(CN_TEST_SEED=%lu)\n", name, cn_dtype_name (t), (long long) j, b, a, (long long) k, xs,
                       tu_seed ());
              ok = 0;
              break;
            }
        }
      cn_tensor_clear (&o0);
      cn_tensor_clear (&o1);
    }
  free (x);
  cn_graph_free (g);
  return ok;
}

int
main (int argc, char **argv)
{
  int measure = 0, verbose = 0;
  long draws = DRAWS;
  const char *only = NULL;
  for (int i = 1; i < argc; i++)
    {
      if (strcmp (argv[i], "--measure") == 0 && i + 1 < argc)
        {
          measure = 1;
          draws = strtol (argv[++i], NULL, 10);
        }
      else if (strcmp (argv[i], "--op") == 0 && i + 1 < argc)
        only = argv[++i];
      else if (strcmp (argv[i], "--verbose") == 0)
        verbose = 1;
    }
  tu_init ();
  if (!read_table () && !measure)
    return 1;
  int failed = 0, n_rule = 0, n_rows = 0;
  printf ("%-26s %-6s %10s %10s | %10s %10s | %10s %10s | %s\n", "operator", "scale", "f64 bound", "f32 bound",
          "f64 worst", "f32 worst", "ulp64", "ulp32", "evals");
  for (int k = 0; k < CN_OP_COUNT; k++)
    {
      cn_op op = (cn_op) k;
      const char *name = cn_op_name (op);
      if (only != NULL && strcmp (only, name) != 0)
        continue;
      cn_op_coverage cov;
      cn_op_coverage_get (op, &cov);
      if (!cov.rule)
        continue;
      n_rule++;
      struct row *r = &rows[op];
      if (r->present)
        n_rows++;
      else if (!measure)
        {
          fprintf (stderr, "%s: no row in tests/data/ulps.tsv\n", name);
          failed = 1;
          continue;
        }
      struct worst w;
      memset (&w, 0, sizeof w);
      for (long d = 0; d < draws; d++)
        if (!one_draw (op, &w))
          {
            failed = 1;
            break;
          }
      int edge_ok = 1;
      if (edge_family (op))
        for (long d = 0; d < (measure ? draws / 4 + 1 : EDGE_DRAWS); d++)
          {
            edge_ok &= one_edge (op, &w, r->present);
            edge_ok &= nan_probe (op, &w);
          }
      if (!edge_ok)
        failed = 1;
      int s = r->present && strcmp (r->scale, "scaled") == 0 ? 1 : 0;
      int exact = r->present && strcmp (r->scale, "exact") == 0;
      for (int dt = 0; dt < 2 && r->present && !measure; dt++)
        {
          double b = exact ? 0 : (dt ? r->b32 : r->b64);
          if (!(w.w[s][dt] <= b))
            {
              fprintf (stderr, "%s: forward %s error %.3g (%s) exceeds the bound %.3g at %s (CN_TEST_SEED=%lu)\n", name,
                       dt ? "f32" : "f64", w.w[s][dt], s ? "scaled" : "ulp", b, w.where[s][dt], tu_seed ());
              failed = 1;
            }
        }
      if (w.word_mismatch)
        fprintf (stderr, "%s: a word output differs from the exact word\n", name);
      if (measure)
        printf ("%-26s %-14s ulp %.4g %.4g scaled %.4g %.4g evals %lld refusals %lld edge %lld intervals %lld invalid %lld overflow %lld %s\n", name,
                cn_family_name (cn_op_family (op)), w.w[0][0], w.w[0][1], w.w[1][0], w.w[1][1], (long long) w.evals,
                (long long) w.refusals, (long long) w.edge_checked, (long long) w.interval_refs, (long long) w.ieee_invalid, (long long) w.overflow, w.overflow_where);
      else
        printf ("%-26s %-6s %10.3g %10.3g | %10.3g %10.3g | %10.3g %10.3g | %lld%s\n", name, r->scale,
                exact ? 0 : r->b64, exact ? 0 : r->b32, w.w[s][0], w.w[s][1], w.w[0][0], w.w[0][1],
                (long long) w.evals, w.overflow ? " (overflow inside counted)" : "");
      if (verbose)
        for (int a = 0; a < 2; a++)
          for (int dt = 0; dt < 2; dt++)
            printf ("    worst %s %s: %s\n", a ? "scaled" : "ulp", dt ? "f32" : "f64", w.where[a][dt]);
      fflush (stdout);
    }
  if (!measure && only == NULL && n_rows != n_rule)
    {
      fprintf (stderr, "check_ulps: %d operators with a rule, %d rows\n", n_rule, n_rows);
      failed = 1;
    }
  return failed ? 1 : 0;
}
