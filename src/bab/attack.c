/* SPDX-License-Identifier: MIT */
/* src/bab/attack.c: candidate counterexamples, their exact check, and the attacks.
 *
 * Only cn_verify_check_point decides that a point is a counterexample: the point must lie in
 * the case's exact box and the network's exact output there (MPFI at CN__CHECK_PREC bits,
 * the weights read as exact reals) must satisfy every row of the clause, sup(M_r y) <=
 * RD(rhs_r) <= rhs_r; a verdict of sat also needs the point to hold when the network is
 * evaluated in binary32 (holds_in_binary32).  Everything else here (random sampling, PGD, the
 * binary64 filter) only proposes points.  ALGORITHMS.md 5.5. */
#include <config.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <mpfi.h>
#include "bab/bab_impl.h"
#include "sound/sound.h"
#include "certnn/reference.h"

double
cn__uniform (uint64_t *state)
{
  /* splitmix64 */
  uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  z ^= z >> 31;
  return (double) (z >> 11) * 0x1p-53;
}

/* A number of the exact interval whose rounded ends are LO <= HI, near X, binary32 where one
 * lies strictly inside: strictly between LO and HI (an end may have been rounded outward, so
 * the exact end lies between it and the next double), or LO itself when LO == HI (outward
 * rounding gives equal ends only for an exact double). */
static double
inside (double lo, double hi, double x)
{
  if (lo == hi)
    return lo;
  if (!(x > lo))
    x = lo;
  if (!(x < hi))
    x = hi;
  float f = (float) x;
  while ((double) f <= lo && f < INFINITY)
    f = nextafterf (f, INFINITY);
  while ((double) f >= hi && f > -INFINITY)
    f = nextafterf (f, -INFINITY);
  if ((double) f > lo && (double) f < hi)
    return (double) f;
  /* no binary32 number strictly inside: a double */
  double d = x;
  if (!(d > lo))
    d = nextafter (lo, INFINITY);
  if (!(d < hi))
    d = nextafter (hi, -INFINITY);
  return d > lo && d < hi ? d : lo + 0.5 * (hi - lo);
}

void
cn__point_inside (const cn__verifier *v, int64_t k, const double *x, double *out)
{
  const cn_box *b = &v->spec->cases[k].box;
  for (int64_t i = 0; i < b->n; i++)
    out[i] = inside (b->lo[i], b->hi[i], x[i]);
}

double
cn__clause_violation (const cn__verifier *v, int64_t k, int64_t j, const double *y, int64_t *row)
{
  const cn_spec_clause *cl = &v->spec->cases[k].clauses[j];
  int64_t m = v->spec->n_y;
  double worst = -INFINITY;
  int64_t wr = 0;
  for (int64_t r = 0; r < cl->n_rows; r++)
    {
      double acc = 0;
      for (int64_t i = 0; i < m; i++)
        acc += cl->mat[r * m + i] * y[i];
      double d = acc - cl->rhs_down[r];
      if (isnan (d))
        d = INFINITY;
      if (d > worst)
        {
          worst = d;
          wr = r;
        }
    }
  if (row != NULL)
    *row = wr;
  return worst;
}

cn_status
cn__eval_point (const cn__verifier *v, const double *x, double *y, cn_error *err)
{
  const cn_graph *g = v->g;
  cn_tensor in, out;
  if (cn_tensor_init (&in, CN_DTYPE_F64, cn_graph_value_shape (g, cn_graph_input (g, 0)), err) != CN_OK)
    return err->code;
  memcpy (in.data, x, (size_t) v->spec->n_x * sizeof (double));
  cn_status st = cn_graph_eval (g, CN_DTYPE_F64, &in, &out, err);
  cn_tensor_clear (&in);
  if (st != CN_OK)
    return st;
  memcpy (y, out.data, (size_t) v->spec->n_y * sizeof (double));
  cn_tensor_clear (&out);
  return CN_OK;
}

/* Whether X lies in the exact interval whose rounded ends are LO <= HI: strictly between them (an
 * end rounded outward may not be the exact one), or equal to both on a degenerate axis. */
static int
in_exact_interval (double lo, double hi, double x)
{
  return (x > lo && x < hi) || (lo == hi && x == lo);
}

/* Whether every row of clause CL holds at the outputs Y (n_y = Y->n intervals): sup(M_r y) <=
 * RD(rhs_r) <= rhs_r for every row r, M_r y enclosed in MPFI at PREC bits (a NaN fails). */
static int
rows_hold (const cn_spec_clause *cl, const cn_mpfi_vec *y, mpfr_prec_t prec)
{
  int64_t m = y->n;
  mpfi_t acc, t;
  mpfi_init2 (acc, prec);
  mpfi_init2 (t, prec);
  int good = 1;
  for (int64_t r = 0; r < cl->n_rows && good; r++)
    {
      mpfi_set_ui (acc, 0);
      for (int64_t i = 0; i < m; i++)
        if (cl->mat[r * m + i] != 0)
          {
            mpfi_mul_d (t, y->v[i], cl->mat[r * m + i]);
            mpfi_add (acc, acc, t);
          }
      /* acc contains M_r y; mpfr_cmp_d with a NaN end is 0, so a NaN is tested apart */
      good = !mpfi_nan_p (acc) && mpfr_cmp_d (&acc->right, cl->rhs_down[r]) <= 0;
    }
  mpfi_clear (acc);
  mpfi_clear (t);
  return good;
}

/* Whether the counterexample X (in case K's exact box, clause J holding exactly) also holds when
 * the network is evaluated in binary32, as the competition replays it (onnxruntime, float32,
 * zero output tolerance): the input rounded to binary32 (the replay reads the printed decimals
 * into floats; a box end that is no binary32 number may move it outside, so it must stay in the
 * exact box), the graph evaluated by cn_graph_eval in CN_DTYPE_F32 (each operator rounding to
 * nearest in binary32, in certnn's order), and every row's sup(M_r y32) <= RD(rhs_r) in MPFI.
 * *OK 1 when all hold.  Another evaluation order may still differ near the boundary (the
 * category driver replays every sat in onnxruntime to measure it). */
static cn_status
holds_in_binary32 (const cn__verifier *v, int64_t k, int64_t j, const double *x, int *ok, cn_error *err)
{
  const cn_graph *g = v->g;
  const cn_spec_case *cs = &v->spec->cases[k];
  const cn_spec_clause *cl = &cs->clauses[j];
  int64_t n = v->spec->n_x, m = v->spec->n_y;
  *ok = 0;
  cn_tensor in, out;
  cn_status st = cn_tensor_init (&in, CN_DTYPE_F32, cn_graph_value_shape (g, cn_graph_input (g, 0)), err);
  if (st != CN_OK)
    return st;
  float *xf = in.data;
  int inside_box = 1;
  for (int64_t i = 0; i < n; i++)
    {
      xf[i] = (float) x[i];
      inside_box &= in_exact_interval (cs->box.lo[i], cs->box.hi[i], xf[i]);
    }
  if (!inside_box)
    {
      cn_tensor_clear (&in);
      return CN_OK;
    }
  st = cn_graph_eval (g, CN_DTYPE_F32, &in, &out, err);
  cn_tensor_clear (&in);
  if (st != CN_OK)
    return st;
  const float *y = out.data;
  cn_mpfi_vec yv;
  if ((st = cn_mpfi_vec_init (&yv, m, CN__CHECK_PREC, err)) != CN_OK)
    {
      cn_tensor_clear (&out);
      return st;
    }
  for (int64_t i = 0; i < m; i++)
    mpfi_set_d (yv.v[i], (double) y[i]);   /* exact: a float is a double */
  *ok = rows_hold (cl, &yv, CN__CHECK_PREC);
  cn_mpfi_vec_clear (&yv);
  cn_tensor_clear (&out);
  return CN_OK;
}

cn_status
cn_verify_check_point (const cn_graph *g, const cn_spec *spec, int64_t case_index, int64_t clause_index,
                       const double *x, long prec, int *ok, double *y, cn_error *err)
{
  *ok = 0;
  if (case_index < 0 || case_index >= spec->n_cases)
    return cn_error_set (err, CN_EINVAL, "verify: no case %lld", (long long) case_index);
  const cn_spec_case *cs = &spec->cases[case_index];
  if (clause_index < 0 || clause_index >= cs->n_clauses)
    return cn_error_set (err, CN_EINVAL, "verify: case %lld has no clause %lld", (long long) case_index,
                         (long long) clause_index);
  if (prec < MPFR_PREC_MIN || prec > 1 << 16)
    return cn_error_set (err, CN_EINVAL, "verify: precision %ld out of range", prec);
  int64_t n = spec->n_x, m = spec->n_y;
  /* In the exact box: strictly inside the rounded ends, or on a degenerate axis. */
  for (int64_t i = 0; i < n; i++)
    if (!in_exact_interval (cs->box.lo[i], cs->box.hi[i], x[i]))
      return CN_OK;
  cn_mpfi_vec xv, yv;
  if (cn_mpfi_vec_init (&xv, n, (mpfr_prec_t) prec, err) != CN_OK)
    return err->code;
  for (int64_t i = 0; i < n; i++)
    mpfi_set_d (xv.v[i], x[i]);
  cn_status st = cn_reference_ibp (g, &xv, (mpfr_prec_t) prec, &yv, err);
  cn_mpfi_vec_clear (&xv);
  if (st != CN_OK)
    return st;
  if (yv.n != m)
    {
      cn_mpfi_vec_clear (&yv);
      return cn_error_set (err, CN_ESHAPE, "verify: the network has %lld outputs, the property %lld",
                           (long long) yv.n, (long long) m);
    }
  /* every row's M_r y enclosed; sup <= RD(rhs_r) <= rhs_r proves it */
  int good = rows_hold (&cs->clauses[clause_index], &yv, (mpfr_prec_t) prec);
  if (good && y != NULL)
    {
      mpfr_t mid;
      mpfr_init2 (mid, (mpfr_prec_t) prec);
      for (int64_t i = 0; i < m; i++)
        {
          mpfi_mid (mid, yv.v[i]);
          y[i] = mpfr_get_d (mid, MPFR_RNDN);
        }
      mpfr_clear (mid);
    }
  cn_mpfi_vec_clear (&yv);
  *ok = good;
  return CN_OK;
}

/* A sound box Y (initialised here, n_y entries) of the network's outputs at the point P, by IBP
 * over the point box under the semantics of V's options: with the real semantics it holds the
 * exact outputs; with binary32 every binary32 evaluation of the network at P in any order, with
 * or without fused multiply-adds (P's entries must then be binary32 words for it to mean that). */
static cn_status
point_enclosure (const cn__verifier *v, const double *p, cn_box *y, cn_error *err)
{
  int64_t n = v->spec->n_x;
  cn_box pb;
  cn_status st = cn_box_init (&pb, n, err);
  if (st != CN_OK)
    return st;
  memcpy (pb.lo, p, (size_t) n * sizeof (double));
  memcpy (pb.hi, p, (size_t) n * sizeof (double));
  cn_bounds_opts o;
  cn_bounds_opts_init (&o);
  o.method = CN_METHOD_IBP;
  o.semantics = v->opts.bounds.semantics;
  o.threads = 1;
  cn_analysis *an = NULL;
  if ((st = cn_analysis_create (v->g, &pb, &o, &an, err)) == CN_OK)
    st = cn_box_copy (y, cn_analysis_box (an, cn_graph_output (v->g, 0)), err);
  cn_analysis_free (an);
  cn_box_clear (&pb);
  return st;
}

/* Whether some row of clause CL fails everywhere on the box Y: a lower bound of min_Y M_r y above
 * RU(rhs_r) >= rhs_r.  Then no point of Y violates the property through CL. */
static int
clause_excluded (const cn_spec_clause *cl, const cn_box *y)
{
  for (int64_t r = 0; r < cl->n_rows; r++)
    if (cn__box_min_dot (y->n, cl->mat + r * y->n, y->lo, y->hi) > cl->rhs_up[r])
      return 1;
  return 0;
}

/* Whether every row of clause CL holds everywhere on the box Y: an upper bound of max_Y M_r y at
 * most RD(rhs_r) <= rhs_r. */
static int
clause_holds_on_box (const cn_spec_clause *cl, const cn_box *y)
{
  for (int64_t r = 0; r < cl->n_rows; r++)
    if (!(cn__box_max_dot (y->n, cl->mat + r * y->n, y->lo, y->hi) <= cl->rhs_down[r]))
      return 0;
  return 1;
}

/* The binary32 semantics' counterexample test: the candidate X rounded to binary32 (the deployed
 * network reads binary32 inputs) must lie in case K's exact box, and clause J must hold on the
 * whole binary32 point enclosure, so every binary32 evaluation of the network at it, in any
 * order, violates the property.  *OK 1 when it does; the rounded point into P32 (n_x entries). */
static cn_status
holds_in_every_binary32_order (const cn__verifier *v, int64_t k, int64_t j, const double *x, double *p32, int *ok,
                               cn_error *err)
{
  const cn_spec_case *cs = &v->spec->cases[k];
  *ok = 0;
  for (int64_t i = 0; i < v->spec->n_x; i++)
    {
      p32[i] = (double) (float) x[i];
      if (!in_exact_interval (cs->box.lo[i], cs->box.hi[i], p32[i]))
        return CN_OK;
    }
  cn_box y;
  memset (&y, 0, sizeof y);
  cn_status st = point_enclosure (v, p32, &y, err);
  if (st == CN_OK)
    *ok = clause_holds_on_box (&cs->clauses[j], &y);
  cn_box_clear (&y);
  return st;
}

int
cn__try_point (cn__verifier *v, int64_t k, int64_t j, const double *x, double *viol, cn_error *err)
{
  int64_t n = v->spec->n_x, m = v->spec->n_y;
  double *p = malloc ((size_t) (2 * n + 2 * m) * sizeof (double) + 1);
  if (p == NULL)
    {
      cn_error_set (err, CN_ENOMEM, "verify: out of memory");
      return -1;
    }
  double *y = p + n, *ye = y + m, *p32 = ye + m;   /* p32: n entries */
  int res = 0;
  cn__point_inside (v, k, x, p);
#pragma omp atomic
  v->attack_points++;
  if (cn__eval_point (v, p, y, err) != CN_OK)
    {
      res = -1;
      goto done;
    }
  /* Binary64 filter: a row violated by more than a generous rounding allowance is violated
   * exactly, so the exact check is only paid for near or actual counterexamples. */
  double scale = 1;
  for (int64_t i = 0; i < m; i++)
    scale = fmax (scale, fabs (y[i]));
  double vl = cn__clause_violation (v, k, j, y, NULL);
  if (viol != NULL && vl < *viol)
    *viol = vl;
  int ok = 0;
  if (v->opts.bounds.semantics == CN_SEMANTICS_BINARY32)
    {
      /* Binary32 semantics: the point is a counterexample if every binary32 evaluation of the
       * network at its binary32 rounding violates the property.  The binary64 filter is no guide
       * to that (binary32 rounds 2^29 times coarser), so the enclosure decides. */
      if (holds_in_every_binary32_order (v, k, j, p, p32, &ok, err) != CN_OK)
        {
          res = -1;
          goto done;
        }
      if (ok)
        {
          memcpy (p, p32, (size_t) n * sizeof (double));
          /* the outputs reported: certnn's own binary32 evaluation at the point */
          cn_tensor in, out;
          if (cn_tensor_init (&in, CN_DTYPE_F32, cn_graph_value_shape (v->g, cn_graph_input (v->g, 0)), err) != CN_OK)
            {
              res = -1;
              goto done;
            }
          for (int64_t i = 0; i < n; i++)
            ((float *) in.data)[i] = (float) p[i];
          cn_status est = cn_graph_eval (v->g, CN_DTYPE_F32, &in, &out, err);
          cn_tensor_clear (&in);
          if (est != CN_OK)
            {
              res = -1;
              goto done;
            }
          for (int64_t i = 0; i < m; i++)
            ye[i] = ((const float *) out.data)[i];
          cn_tensor_clear (&out);
        }
    }
  else
    {
      if (vl > 1e-9 * scale)
        {
          /* The binary64 evaluation says the clause is violated by a wide margin; it may be wrong
           * where the network cancels large terms.  The point is dropped only when a sound
           * enclosure of the exact outputs there excludes the clause too; otherwise the exact check
           * decides. */
          cn_box yb;
          memset (&yb, 0, sizeof yb);
          if (point_enclosure (v, p, &yb, err) != CN_OK)
            {
              cn_box_clear (&yb);
              res = -1;
              goto done;
            }
          int excluded = clause_excluded (&v->spec->cases[k].clauses[j], &yb);
          cn_box_clear (&yb);
          if (excluded)
            goto done;
#pragma omp atomic
          v->filter_overruled++;
        }
      if (cn_verify_check_point (v->g, v->spec, k, j, p, CN__CHECK_PREC, &ok, ye, err) != CN_OK)
        {
          res = -1;
          goto done;
        }
    }
  if (ok && v->opts.bounds.semantics != CN_SEMANTICS_BINARY32)
    {
      /* the exact network violates the property at p; the answer is sat only if its binary32
       * evaluation does too (the competition's replay), else the point is counted and the
       * search goes on */
      int ok32 = 0;
      if (holds_in_binary32 (v, k, j, p, &ok32, err) != CN_OK)
        {
          res = -1;
          goto done;
        }
      if (!ok32)
        {
#pragma omp atomic
          v->binary32_rejected++;
          ok = 0;
        }
    }
  if (ok)
    {
#pragma omp critical   /* unnamed: a named one would be a global symbol of the library */
      {
        if (!v->found)
          {
            v->found = 1;
            v->found_case = k;
            v->found_clause = j;
            memcpy (v->cex_x, p, (size_t) n * sizeof (double));
            memcpy (v->cex_y, ye, (size_t) m * sizeof (double));
          }
      }
#pragma omp atomic write
      v->stop = 1;
      res = 1;
    }
done:
  free (p);
  return res;
}

int
cn__pgd (cn__verifier *v, int64_t k, int64_t j, const double *lo, const double *hi, const double *x0, int steps,
         cn_error *err)
{
  const cn_spec_clause *cl = &v->spec->cases[k].clauses[j];
  int64_t n = v->spec->n_x, m = v->spec->n_y;
  double *x = malloc ((size_t) (3 * n + m) * sizeof (double) + 1);
  if (x == NULL)
    {
      cn_error_set (err, CN_ENOMEM, "verify: out of memory");
      return -1;
    }
  double *gx = x + n, *step = gx + n, *y = step + n;
  int res = 0;
  memcpy (x, x0, (size_t) n * sizeof (double));
  for (int64_t i = 0; i < n; i++)
    step[i] = 0.25 * (hi[i] - lo[i]);
  /* Minimise the clause's largest row violation max_r (M_r f(x) - rhs_r) by signed gradient
   * steps, projected onto the box; the step shrinks geometrically. */
  /* The row r whose gradient is taken is the worst row at the previous point (row 0 at the
   * start); one gradient call evaluates the network too. */
  int64_t r = 0;
  for (int t = 0; t <= steps; t++)
    {
      if (cn__should_stop (v))
        break;
      cn_status st = cn_graph_gradient (v->g, x, cl->mat + r * m, y, gx, err);
      if (st == CN_EUNSUPPORTED)
        {
          /* an operator without a pullback: no gradient attack on this network */
          cn_error_clear (err);
          res = 0;
          break;
        }
      if (st != CN_OK)
        {
          res = -1;
          break;
        }
      int64_t worst;
      double viol = cn__clause_violation (v, k, j, y, &worst);
      double scale = 1;
      for (int64_t i = 0; i < m; i++)
        scale = fmax (scale, fabs (y[i]));
      if (viol <= 1e-9 * scale || t == steps)
        {
          res = cn__try_point (v, k, j, x, NULL, err);
          if (res != 0 || t == steps)
            break;
        }
      if (worst != r)
        {
          /* the gradient of the row that is now worst */
          r = worst;
          st = cn_graph_gradient (v->g, x, cl->mat + r * m, NULL, gx, err);
          if (st != CN_OK)
            {
              res = -1;
              break;
            }
        }
      for (int64_t i = 0; i < n; i++)
        {
          double d = gx[i] > 0 ? -step[i] : gx[i] < 0 ? step[i] : 0;
          double xi = x[i] + d;
          x[i] = xi < lo[i] ? lo[i] : xi > hi[i] ? hi[i] : xi;
          step[i] *= 0.9;
        }
    }
  free (x);
  return res;
}

/* A random point of the box [LO, HI] (N entries) into X: each coordinate is the lower end, the
 * upper end, or uniform in between, with probabilities 1/5, 1/5 and 3/5 (points on faces and
 * at corners are where counterexamples often are, and uniform sampling never reaches them). */
static void
random_point (cn__verifier *v, int64_t n, const double *lo, const double *hi, double *x)
{
  for (int64_t i = 0; i < n; i++)
    {
      double r = cn__uniform (&v->rng);
      x[i] = r < 0.2 ? lo[i] : r < 0.4 ? hi[i] : lo[i] + cn__uniform (&v->rng) * (hi[i] - lo[i]);
    }
}

/* The number of best random points kept per clause as PGD starts. */
#define KEEP 8

int
cn__attack_case (cn__verifier *v, int64_t k, cn_error *err)
{
  const cn_spec_case *cs = &v->spec->cases[k];
  int64_t n = v->spec->n_x, m = v->spec->n_y;
  const double *lo = cs->box.lo, *hi = cs->box.hi;
  double *x = malloc ((size_t) (2 * n + m) * sizeof (double) + 1);
  int64_t nc = cs->n_clauses;
  /* per clause, the KEEP least violated random points, unordered */
  double *best = malloc ((size_t) (nc ? nc : 1) * KEEP * sizeof (double));
  double *bestx = malloc ((size_t) (nc ? nc : 1) * KEEP * (size_t) n * sizeof (double) + 1);
  int res = 0;
  if (x == NULL || best == NULL || bestx == NULL)
    {
      cn_error_set (err, CN_ENOMEM, "verify: out of memory");
      res = -1;
      goto done;
    }
  double *y = x + n;
  for (int64_t j = 0; j < nc * KEEP; j++)
    best[j] = INFINITY;
  /* Random points, for at most a fiftieth of the time limit (at least half a second): each is
   * tried on every clause by the binary64 filter, and the least violated ones are kept. */
  double t0 = cn__now ();
  double budget = isfinite (v->deadline) ? fmax (0.5, 0.02 * (v->deadline - v->t0)) : 2.0;
  for (int64_t s = 0; s < v->opts.random_samples && res == 0; s++)
    {
      if (cn__should_stop (v) || ((s & 63) == 0 && cn__now () - t0 > budget))
        break;
      random_point (v, n, lo, hi, x);
      cn__point_inside (v, k, x, x);
      if (cn__eval_point (v, x, y, err) != CN_OK)
        {
          res = -1;
          break;
        }
      v->attack_points++;
      for (int64_t j = 0; j < nc && res == 0; j++)
        {
          double viol = cn__clause_violation (v, k, j, y, NULL);
          /* replace the worst kept point if this one is better */
          int64_t w = j * KEEP;
          for (int64_t q = j * KEEP + 1; q < (j + 1) * KEEP; q++)
            if (best[q] > best[w])
              w = q;
          if (viol < best[w])
            {
              best[w] = viol;
              memcpy (bestx + w * n, x, (size_t) n * sizeof (double));
            }
          if (viol <= 0)
            res = cn__try_point (v, k, j, x, NULL, err);
        }
    }
  /* PGD per clause: from the kept random points, the centre, then fresh random points. */
  for (int64_t j = 0; j < nc && res == 0; j++)
    {
      for (int rs = 0; rs < v->opts.attack_restarts && res == 0; rs++)
        {
          if (cn__should_stop (v))
            break;
          if (rs < KEEP && isfinite (best[j * KEEP + rs]))
            memcpy (x, bestx + (j * KEEP + rs) * n, (size_t) n * sizeof (double));
          else if (rs == KEEP)
            for (int64_t i = 0; i < n; i++)
              x[i] = lo[i] + 0.5 * (hi[i] - lo[i]);
          else
            random_point (v, n, lo, hi, x);
          res = cn__pgd (v, k, j, lo, hi, x, v->opts.attack_steps, err);
        }
    }
done:
  free (x);
  free (best);
  free (bestx);
  return res;
}
