/* SPDX-License-Identifier: MIT */
/* src/certs/evidence.c: the evidence of the operators' certificate records (certnn/certs.h).
 *
 * Each runner draws instances of the record's operator from a generator seeded by the caller
 * (cn__op_case_draw), builds the instance's one-node graph (cn__case_graph) and checks the
 * record's statement on random probes through the graph's binary64 engines (cn_graph_gradient,
 * cn_graph_jvp), which call the rule's pullback and jvp arms. */
#include <config.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "certnn/certs.h"
#include "certnn/graph.h"
#include "certnn/reference.h"
#include "certnn/tape.h"
#include "certs/certs_impl.h"
#include "graph/graph_impl.h"
#include "ops/ops_impl.h"

#define ALGEBRAIC_TOL 1e-12
#define DERIV_PREC 256          /* bits of the MPFI reference of the central differences */
#define DERIV_STEP 0x1p-30      /* the step h of the central differences */
#define DERIV_TOL 1e-6          /* relative tolerance of a derivative against them */
#define DERIV_REDRAWS 40        /* probes in a row that may meet a kink before the draw fails */

/* ---- instances ------------------------------------------------------------------------------ */

/* One drawn instance of the record's operator: its graph, whose nodes of the operator use RULE
 * (the rule under test), and room for a probe (x, t, gx over the N inputs; w, s over the M
 * outputs). */
struct probe
{
  struct cn__cert_case cc;
  struct cn__op_case c;         /* cc.c */
  cn_graph *g;
  int64_t n, m;
  double *x, *t, *gx, *w, *s;
};

/* Points every node of OP in G at RULE (and its views, which the arms read). */
void
cn__cert_use_rule (cn_graph *g, cn_op op, const struct cn_op_rule *rule)
{
  for (int k = 0; k < g->n_nodes; k++)
    if (g->nodes[k].op == op)
      {
        g->nodes[k].rule = rule;
        cn__node_refresh_views (g, &g->nodes[k]);
      }
}

cn_status
cn__cert_instance (const struct cn_op_rule *rule, cn_op op, int only_crown, cn__rng *r, struct cn__cert_case *cc,
                   cn_graph **g, cn_error *err)
{
  *g = NULL;
  cn_status st = cn__cert_case_draw (op, r, cc, err);
  if (st != CN_OK || (only_crown && !cc->c.crown_ok))
    {
      cn__cert_case_clear (cc);
      return st;                         /* CN_OK: outside the arm's scope, drawn again */
    }
  cn_error gerr;
  cn_error_clear (&gerr);
  st = cn__case_graph (&cc->c, r, g, &gerr);
  if (st == CN_OK)
    {
      cn__cert_use_rule (*g, op, rule);
      return CN_OK;
    }
  cn__cert_case_clear (cc);
  if (st == CN_ENOMEM)
    return cn_error_set (err, st, "%s", gerr.msg);
  return CN_OK;                          /* refused by the graph builder: drawn again */
}

/* Draws an instance into P: 1 on success, 0 if the graph builder refused it (drawn again by the
 * caller), -1 with ERR set for a status the caller returns (no generator, out of memory). */
static int
probe_draw (const struct cn_op_rule *rule, cn_op op, cn__rng *rng, struct probe *p, cn_error *err)
{
  memset (p, 0, sizeof *p);
  const char *name = cn_op_name (op);
  if (cn__cert_instance (rule, op, 0, rng, &p->cc, &p->g, err) != CN_OK)
    return -1;
  if (p->g == NULL)
    return 0;
  p->c = p->cc.c;
  p->n = cn_shape_numel (cn_graph_value_shape (p->g, cn_graph_input (p->g, 0)));
  p->m = cn_shape_numel (cn_graph_value_shape (p->g, cn_graph_output (p->g, 0)));
  double *buf = malloc ((size_t) (3 * (p->n + 1) + 2 * (p->m + 1)) * sizeof *buf);
  if (buf == NULL)
    {
      cn_graph_free (p->g);
      p->g = NULL;
      cn__cert_case_clear (&p->cc);
      cn_error_set (err, CN_ENOMEM, "%s: out of memory for a probe of %lld inputs", name, (long long) p->n);
      return -1;
    }
  p->x = buf;
  p->t = p->x + p->n + 1;
  p->gx = p->t + p->n + 1;
  p->w = p->gx + p->n + 1;
  p->s = p->w + p->m + 1;
  return 1;
}

static void
probe_free (struct probe *p)
{
  free (p->x);
  cn_graph_free (p->g);
  cn__cert_case_clear (&p->cc);
  memset (p, 0, sizeof *p);
}

/* A probe of P: the point x (cn__case_draw_point), the cotangent w uniform in [-1, 1] and the
 * tangent t on the grid of 2^-10 in [-1, 1], zero outside the record's input positions INPUTS,
 * at ports RULE does not differentiate and at ports not of the model's scalar (x holds the
 * varying ports one after the other).  Returns the positions t varies (bit i: input i); a probe
 * that varies none checks nothing, and the runners draw another instance. */
static unsigned
probe_point (const struct cn_op_rule *rule, unsigned inputs, struct probe *p, cn__rng *rng)
{
  /* x and t have one entry when the instance has no varying port: zero, like every entry no
   * port fills */
  memset (p->x, 0, (size_t) p->n * sizeof *p->x);
  memset (p->t, 0, (size_t) p->n * sizeof *p->t);
  cn__case_draw_point (&p->c, rng, p->x);
  for (int64_t j = 0; j < p->m; j++)
    p->w[j] = cn__rng_uniform (rng, -1, 1);
  unsigned varied = 0;
  int64_t off = 0;
  for (int i = 0; i < p->c.n_in; i++)
    {
      if (p->c.in_const[i])
        continue;
      int64_t k = cn_shape_numel (&p->c.in_shape[i]);
      int on = i < 32 && ((inputs >> i) & 1u) && cn__port_differentiable (rule, i, p->c.in_dtype[i])
               && p->c.in_dtype[i] == CN_DTYPE_F64;
      for (int64_t j = 0; j < k; j++)
        p->t[off + j] = on ? ldexp ((double) cn__rng_int (rng, -1024, 1024), -10) : 0.0;
      if (on && k > 0)
        varied |= 1u << i;
      off += k;
    }
  return varied;
}

/* ---- algebraic: <pullback(x; w), t> = <w, jvp(x; t)> ---------------------------------------
 *
 * At a probe (probe_point): with g = pullback(x; w) (cn_graph_gradient) and s = jvp(x; t)
 * (cn_graph_jvp),
 *     |<g, t> - <w, s>| <= 1e-12 (sum |g_i t_i| + sum |w_j s_j|),
 * both sums in binary64 (their rounding is far below the tolerance at these sizes).  A probe whose
 * sums are not finite is drawn again. */
static cn_status
check_algebraic (const struct cn_op_rule *rule, const cn_cert_info *info, cn__rng *rng, int draws,
                 cn_cert_result *res, cn_error *err)
{
  for (int d = 0; d < draws; d++)
    {
      struct probe p;
      int r = probe_draw (rule, info->op, rng, &p, err);
      if (r < 0)
        return err->code;
      if (r == 0)
        {
          res->redrawn++;
          continue;
        }
      unsigned varied = probe_point (rule, info->inputs, &p, rng);
      if (varied == 0)
        {
          probe_free (&p);
          res->redrawn++;
          continue;
        }
      const double *xs[1] = { p.x }, *ts[1] = { p.t };
      cn_status st = cn_graph_gradient (p.g, p.x, p.w, NULL, p.gx, err);
      if (st == CN_OK)
        st = cn_graph_jvp (p.g, xs, ts, 0, NULL, p.s, err);
      if (st != CN_OK)
        {
          probe_free (&p);
          if (st == CN_ENOMEM)
            return st;
          res->passed = 0;
          snprintf (res->detail, sizeof res->detail, "draw %d: the engines refused the probe: %.400s", d, err->msg);
          return CN_OK;
        }
      double lhs = 0, rhs = 0, scale = 0;
      for (int64_t i = 0; i < p.n; i++)
        {
          lhs += p.gx[i] * p.t[i];
          scale += fabs (p.gx[i] * p.t[i]);
        }
      for (int64_t j = 0; j < p.m; j++)
        {
          rhs += p.w[j] * p.s[j];
          scale += fabs (p.w[j] * p.s[j]);
        }
      probe_free (&p);
      if (!isfinite (scale) || !isfinite (lhs) || !isfinite (rhs))
        {
          res->redrawn++;
          continue;
        }
      double rel = scale > 0 ? fabs (lhs - rhs) / scale : 0;
      res->checks++;
      res->exercised |= varied;
      if (rel > res->worst)
        res->worst = rel;
      if (fabs (lhs - rhs) > ALGEBRAIC_TOL * scale)
        {
          res->passed = 0;
          snprintf (res->detail, sizeof res->detail,
                    "draw %d: <pullback(x; w), t> = %.17g but <w, jvp(x; t)> = %.17g (relative %.3g > %g)", d, lhs, rhs,
                    rel, ALGEBRAIC_TOL);
          return CN_OK;
        }
    }
  res->passed = res->checks > 0;
  snprintf (res->detail, sizeof res->detail, "%lld probes, worst relative error %.3g (tolerance %g)",
            (long long) res->checks, res->worst, ALGEBRAIC_TOL);
  return CN_OK;
}

/* ---- derivative: the arm against central differences of the exact forward ------------------
 *
 * phi(s) = <w, f(x + s t)> with f evaluated exactly (the MPFI reference at DERIV_PREC bits on
 * point intervals, the midpoint taken), x + s t exact in binary64 for s = +-h (x on the grid of
 * 2^-20 and small, h t on the grid of 2^-40; a probe where it is not is drawn again).  With
 *     cd = (phi(h) - phi(-h)) / (2h),   kink = |phi(h) + phi(-h) - 2 phi(0)| / (2h)
 * (kink is O(h) where f is smooth and O(1) across a kink), the arm's directional derivative
 * D = <pullback(x; w), t> (arm pullback) or <w, jvp(x; t)> (arm jvp) must satisfy
 *     |D - cd| <= 1e-6 (sum |terms of D| + |cd|).
 * A probe where kink exceeds a tenth of that tolerance, or where the reference refuses or is not
 * finite, is drawn again (up to DERIV_REDRAWS times in a row): f is not differentiable there to
 * the resolution of the test, and the record claims nothing there. */
static cn_status
phi_at (const cn_graph *g, const double *x, int64_t n, const double *w, int64_t m, mpfr_t phi, int *ok,
        cn_error *err)
{
  cn_mpfi_vec in, y;
  *ok = 0;
  cn_status st = cn_mpfi_vec_init (&in, n, DERIV_PREC, err);
  if (st != CN_OK)
    return st;
  for (int64_t j = 0; j < n; j++)
    mpfi_set_d (in.v[j], x[j]);
  cn_error rerr;
  cn_error_clear (&rerr);
  st = cn_reference_ibp (g, &in, DERIV_PREC, &y, &rerr);
  cn_mpfi_vec_clear (&in);
  if (st == CN_ENOMEM)
    return cn_error_set (err, st, "%s", rerr.msg);
  if (st != CN_OK)
    return CN_OK;   /* refused here: *ok = 0, drawn again */
  mpfr_t t;
  mpfr_init2 (t, 2 * DERIV_PREC);
  mpfr_set_zero (phi, 1);
  int fin = y.n == m;
  for (int64_t j = 0; j < m && fin; j++)
    {
      mpfi_mid (t, y.v[j]);
      fin = mpfr_number_p (t) != 0;
      mpfr_mul_d (t, t, w[j], MPFR_RNDN);
      mpfr_add (phi, phi, t, MPFR_RNDN);
    }
  mpfr_clear (t);
  cn_mpfi_vec_clear (&y);
  *ok = fin;
  return CN_OK;
}

static cn_status
check_derivative (const struct cn_op_rule *rule, const cn_cert_info *info, cn__rng *rng, int draws,
                  cn_cert_result *res, cn_error *err)
{
  int pull = info->arm == CN_CERT_ARM_PULLBACK;
  for (int d = 0; d < draws; d++)
    {
      struct probe p;
      int r = probe_draw (rule, info->op, rng, &p, err);
      if (r < 0)
        return err->code;
      if (r == 0)
        {
          res->redrawn++;
          continue;
        }
      double *xp = malloc ((size_t) (2 * (p.n + 1)) * sizeof *xp);
      if (xp == NULL)
        {
          probe_free (&p);
          return cn_error_set (err, CN_ENOMEM, "%s: out of memory for a probe", cn_op_name (info->op));
        }
      double *xm = xp + p.n + 1;
      mpfr_t pp, p0, pm, d1, d2;
      mpfr_inits2 (2 * DERIV_PREC, pp, p0, pm, d1, d2, (mpfr_ptr) 0);
      cn_status st = CN_OK;
      int done = 0, failed = 0, vacuous = 0;
      for (int attempt = 0; attempt < DERIV_REDRAWS && !done && !failed && st == CN_OK; attempt++)
        {
          unsigned varied = probe_point (rule, info->inputs, &p, rng);
          if (varied == 0)
            {
              vacuous = 1;
              break;
            }
          int exact = 1;
          for (int64_t i = 0; i < p.n; i++)
            {
              xp[i] = p.x[i] + DERIV_STEP * p.t[i];
              xm[i] = p.x[i] - DERIV_STEP * p.t[i];
              exact &= xp[i] - p.x[i] == DERIV_STEP * p.t[i] && p.x[i] - xm[i] == DERIV_STEP * p.t[i];
            }
          const double *xs[1] = { p.x }, *ts[1] = { p.t };
          st = pull ? cn_graph_gradient (p.g, p.x, p.w, NULL, p.gx, err) : cn_graph_jvp (p.g, xs, ts, 0, NULL, p.s, err);
          if (st != CN_OK)
            break;
          int ok[3] = { 0, 0, 0 };
          if (exact)
            {
              if ((st = phi_at (p.g, xp, p.n, p.w, p.m, pp, &ok[0], err)) != CN_OK
                  || (st = phi_at (p.g, p.x, p.n, p.w, p.m, p0, &ok[1], err)) != CN_OK
                  || (st = phi_at (p.g, xm, p.n, p.w, p.m, pm, &ok[2], err)) != CN_OK)
                break;
            }
          double dot = 0, mag = 0;
          if (pull)
            for (int64_t i = 0; i < p.n; i++)
              {
                dot += p.gx[i] * p.t[i];
                mag += fabs (p.gx[i] * p.t[i]);
              }
          else
            for (int64_t j = 0; j < p.m; j++)
              {
                dot += p.w[j] * p.s[j];
                mag += fabs (p.w[j] * p.s[j]);
              }
          if (!exact || !ok[0] || !ok[1] || !ok[2] || !isfinite (mag))
            {
              res->redrawn++;
              continue;
            }
          mpfr_sub (d1, pp, pm, MPFR_RNDN);
          mpfr_div_d (d1, d1, 2 * DERIV_STEP, MPFR_RNDN);   /* the central difference */
          mpfr_add (d2, pp, pm, MPFR_RNDN);
          mpfr_mul_2ui (p0, p0, 1, MPFR_RNDN);
          mpfr_sub (d2, d2, p0, MPFR_RNDN);
          mpfr_div_d (d2, d2, 2 * DERIV_STEP, MPFR_RNDN);   /* what a kink could add to it */
          double cd = mpfr_get_d (d1, MPFR_RNDN), kink = fabs (mpfr_get_d (d2, MPFR_RNDN));
          double scale = mag + fabs (cd);
          if (!isfinite (cd) || kink > 0.1 * DERIV_TOL * scale)
            {
              res->redrawn++;
              continue;
            }
          double e = fabs (dot - cd);
          res->checks++;
          res->exercised |= varied;
          if (scale > 0 && e / scale > res->worst)
            res->worst = e / scale;
          if (e > DERIV_TOL * scale)
            {
              failed = 1;
              snprintf (res->detail, sizeof res->detail,
                        "draw %d: the %s gives the directional derivative %.17g, the exact forward's central "
                        "difference is %.17g (relative %.3g > %g)", d, pull ? "pullback" : "jvp", dot, cd,
                        scale > 0 ? e / scale : e, DERIV_TOL);
            }
          done = 1;
        }
      mpfr_clears (pp, p0, pm, d1, d2, (mpfr_ptr) 0);
      free (xp);
      probe_free (&p);
      if (st == CN_ENOMEM)
        return st;
      if (st != CN_OK)
        {
          res->passed = 0;
          snprintf (res->detail, sizeof res->detail, "draw %d: the engines refused the probe: %.400s", d, err->msg);
          return CN_OK;
        }
      if (failed)
        {
          res->passed = 0;
          return CN_OK;
        }
      if (vacuous)
        {
          res->redrawn++;
          continue;
        }
      if (!done)
        {
          res->passed = 0;
          snprintf (res->detail, sizeof res->detail, "draw %d: %d probes in a row met a kink or a point the "
                    "reference refuses", d, DERIV_REDRAWS);
          return CN_OK;
        }
    }
  res->passed = res->checks > 0;
  snprintf (res->detail, sizeof res->detail, "%lld probes against MPFR central differences (%d bits, h = 2^-30), "
            "worst relative error %.3g (tolerance %g)", (long long) res->checks, DERIV_PREC, res->worst, DERIV_TOL);
  return CN_OK;
}

/* ---- convention: the stated derivative at the stated point ---------------------------------
 *
 * A graph y = op(x) of 5 entries (one-input rules without attributes), x = AT in every entry
 * (uniform in [-2, 2] where AT is NaN: the convention holds anywhere), w and t uniform in
 * [-1, 1]: the pullback's gradient must be F0 w and the tangent F0 t, exactly (F0 is 0 or a
 * small integer in the records: the products are exact). */
static cn_status
check_convention (const struct cn_op_rule *rule, const struct cn_op_cert *rec, const cn_cert_info *info,
                  cn__rng *rng, int draws, cn_cert_result *res, cn_error *err)
{
  const char *name = cn_op_name (info->op);
  if (rule->n_in != 1 || cn_op_params_size (info->op) != 0)
    return cn_error_set (err, CN_EUNSUPPORTED, "%s.%s: conventions are checked on one-input rules without "
                         "attributes", name, info->name);
  cn_graph *g;
  cn_status st = cn_graph_create (&g, err);
  if (st != CN_OK)
    return st;
  cn_shape sh = { .rank = 1, .dim = { 5 } };
  int x, y;
  if ((st = cn_graph_add_input (g, "x", CN_DTYPE_F64, &sh, &x, err)) != CN_OK
      || (st = cn_graph_add_node (g, info->op, NULL, 1, &x, "y", &y, err)) != CN_OK
      || (st = cn_graph_set_outputs (g, 1, &y, err)) != CN_OK)
    {
      cn_graph_free (g);
      return st;
    }
  cn__cert_use_rule (g, info->op, rule);
  for (int d = 0; d < draws; d++)
    {
      double xv[5], w[5], t[5], out[5];
      for (int j = 0; j < 5; j++)
        {
          xv[j] = isnan (rec->at) ? cn__rng_uniform (rng, -2, 2) : rec->at;
          w[j] = cn__rng_uniform (rng, -1, 1);
          t[j] = cn__rng_uniform (rng, -1, 1);
        }
      const double *xs[1] = { xv }, *ts[1] = { t };
      int pull = info->arm == CN_CERT_ARM_PULLBACK;
      st = pull ? cn_graph_gradient (g, xv, w, NULL, out, err) : cn_graph_jvp (g, xs, ts, 0, NULL, out, err);
      if (st != CN_OK)
        {
          cn_graph_free (g);
          if (st == CN_ENOMEM)
            return st;
          res->passed = 0;
          snprintf (res->detail, sizeof res->detail, "the engines refused the probe: %.400s", err->msg);
          return CN_OK;
        }
      for (int j = 0; j < 5; j++)
        {
          double want = rec->factor[0] * (pull ? w[j] : t[j]);
          res->checks++;
          if (out[j] != want)
            {
              cn_graph_free (g);
              res->passed = 0;
              snprintf (res->detail, sizeof res->detail, "at x = %.17g the %s is %.17g, not %g %s = %.17g", xv[j],
                        pull ? "gradient" : "tangent", out[j], rec->factor[0], pull ? "w" : "t", want);
              return CN_OK;
            }
        }
    }
  cn_graph_free (g);
  res->exercised = 1u;
  res->passed = res->checks > 0;
  snprintf (res->detail, sizeof res->detail, "%lld entries at the stated point, all exact", (long long) res->checks);
  return CN_OK;
}

cn_status
cn__cert_check_rule (const struct cn_op_rule *rule, int i, uint64_t seed, int draws, cn_cert_result *res,
                     cn_error *err)
{
  memset (res, 0, sizeof *res);
  const char *op = cn_op_name (rule->op);
  int n = 0;
  while (rule->certs != NULL && rule->certs[n].name != NULL)
    n++;
  if (i < 0 || i >= n)
    return cn_error_set (err, CN_EINVAL, "%s: no certificate record %d", op, i);
  cn_cert_info info;
  cn_status st = cn__cert_resolve (rule, &rule->certs[i], &info, err);
  if (st != CN_OK)
    return st;
  if (draws < 1)
    return cn_error_set (err, CN_EINVAL, "%s.%s: %d draws (at least 1)", op, info.name, draws);
  cn__rng rng;
  cn__rng_seed (&rng, seed);
  switch (info.kind)
    {
    case CN_CERT_ALGEBRAIC:
      return check_algebraic (rule, &info, &rng, draws, res, err);
    case CN_CERT_DERIVATIVE:
      return check_derivative (rule, &info, &rng, draws, res, err);
    case CN_CERT_CONVENTION:
      return check_convention (rule, &rule->certs[i], &info, &rng, draws, res, err);
    case CN_CERT_ROUNDOFF:
      return cn__cert_check_roundoff (rule, &info, &rng, draws, res, err);
    case CN_CERT_ENCLOSURE:
      return info.arm == CN_CERT_ARM_IBP     ? cn__cert_check_ibp (rule, &info, &rng, draws, res, err)
             : info.arm == CN_CERT_ARM_CHECKER ? cn__cert_check_checker (rule, &info, &rng, draws, res, err)
                                               : cn__cert_check_crown (rule, &info, &rng, draws, res, err);
    default:
      return cn_error_set (err, CN_EUNSUPPORTED, "%s.%s: no evidence runner for %s records yet (the test suite "
                           "checks them: tests/check_tape.c, tests/check_ops.c)", op, info.name,
                           cn_cert_kind_name (info.kind));
    }
}

cn_status
cn_op_cert_check (cn_op op, int i, uint64_t seed, int draws, cn_cert_result *res, cn_error *err)
{
  memset (res, 0, sizeof *res);
  const struct cn_op_rule *rule = cn__op_rule (op);
  if (rule == NULL)
    return cn_error_set (err, CN_EINVAL, "%s: no rule, no certificate record", cn_op_name (op) ? cn_op_name (op) : "?");
  return cn__cert_check_rule (rule, i, seed, draws, res, err);
}

const char *
cn_cert_scope (cn_cert_kind k, cn_cert_arm a, const char **does_not)
{
  switch (k)
    {
    case CN_CERT_ALGEBRAIC:
      *does_not = "it is sampled: not a proof for all points, and nothing about the tangent map being a derivative";
      return "the pullback agreed with the adjoint of the jvp at every sampled point, cotangent and tangent";
    case CN_CERT_DERIVATIVE:
      *does_not = "it is sampled and to 1e-6 relative: not a proof for all points, nothing at kinks (probes there "
                  "are drawn again), nothing about rounding";
      return a == CN_CERT_ARM_PULLBACK
               ? "the pullback's directional derivative matched MPFR central differences of the exact forward"
               : "the tangent matched MPFR central differences of the exact forward";
    case CN_CERT_CONVENTION:
      *does_not = "it says nothing away from the stated point, and it is sampled where the point is 'anywhere'";
      return "the arm returned the stated derivative at the stated point, exactly";
    case CN_CERT_ENCLOSURE:
      if (a == CN_CERT_ARM_IBP)
        {
          *does_not = "it is sampled: boxes and points drawn, not every box; a tight MPFI arm makes it a check "
                      "against that arm, which shares the operator's formulas";
          return "the IBP box contained the MPFI arm's enclosure of every sampled box and sub-box, and the exact "
                 "value at its corners and sampled points";
        }
      if (a == CN_CERT_ARM_CHECKER)
        {
          *does_not = "it is sampled: rows, boxes and points drawn, not every one; it checks the step's intervals "
                      "against the residual's, up to their widths";
          return "the checker step's inequality held in MPFI at every sampled row and point of its input boxes";
        }
      *does_not = "it is sampled: rows, boxes and points drawn, not every one; nothing about how tight the lines are";
      return "the CROWN step's inequality held in MPFI at every sampled row and point of its input boxes, "
             "its charge included";
    case CN_CERT_ROUNDOFF:
      *does_not = "it is sampled, in certnn's own binary32 order only (the bound claims every order: the orders "
                  "are tested in tests/check_binary32.c), on weights rounded to binary32";
      return "the binary32 forward lay in the binary32 semantics' IBP box over each sampled point (the exact value "
             "widened by the declared bound) and over the sampled box";
    default:
      *does_not = NULL;
      return NULL;
    }
}
