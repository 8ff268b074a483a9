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
#include "certnn/tape.h"
#include "certs/certs_impl.h"
#include "graph/graph_impl.h"
#include "ops/ops_impl.h"

#define ALGEBRAIC_TOL 1e-12

/* ---- algebraic: <pullback(x; w), t> = <w, jvp(x; t)> ---------------------------------------
 *
 * At a point x of the instance (cn__case_draw_point), a cotangent w uniform in [-1, 1] and a
 * tangent t on the grid of 2^-10 in [-1, 1], zero outside the record's input positions, at
 * ports the rule does not differentiate and at ports not of the model's scalar: with
 * g = pullback(x; w) (cn_graph_gradient) and s = jvp(x; t) (cn_graph_jvp),
 *     |<g, t> - <w, s>| <= 1e-12 (sum |g_i t_i| + sum |w_j s_j|),
 * both sums in binary64 (their rounding is far below the tolerance at these sizes).  A probe whose
 * sums are not finite is drawn again. */
static cn_status
check_algebraic (const struct cn_op_rule *rule, const cn_cert_info *info, cn__rng *rng, int draws,
                 cn_cert_result *res, cn_error *err)
{
  const char *name = cn_op_name (info->op);
  for (int d = 0; d < draws; d++)
    {
      struct cn__op_case c;
      if (!cn__op_case_draw (info->op, rng, 0, &c))
        return cn_error_set (err, CN_EUNSUPPORTED, "%s: no instance generator", name);
      cn_graph *g = NULL;
      cn_error gerr;
      cn_status st = cn__case_graph (&c, rng, &g, &gerr);
      if (st == CN_ENOMEM)
        return cn_error_set (err, CN_ENOMEM, "%s", gerr.msg);
      if (st != CN_OK)
        {
          res->redrawn++;
          continue;
        }
      for (int k = 0; k < g->n_nodes; k++)   /* the rule under test at the instance's node */
        if (g->nodes[k].op == info->op)
          g->nodes[k].rule = rule;
      int xin = cn_graph_input (g, 0), yv = cn_graph_output (g, 0);
      int64_t n = cn_shape_numel (cn_graph_value_shape (g, xin)), m = cn_shape_numel (cn_graph_value_shape (g, yv));
      double *buf = malloc ((size_t) (3 * (n + 1) + 2 * (m + 1)) * sizeof *buf);
      if (buf == NULL)
        {
          cn_graph_free (g);
          return cn_error_set (err, CN_ENOMEM, "%s: out of memory for a probe of %lld inputs", name, (long long) n);
        }
      double *x = buf, *t = x + n + 1, *gx = t + n + 1, *w = gx + n + 1, *s = w + m + 1;
      cn__case_draw_point (&c, rng, x);
      for (int64_t j = 0; j < m; j++)
        w[j] = cn__rng_uniform (rng, -1, 1);
      /* t: nonzero only at the record's value ports of the model's scalar (x holds the varying
         ports one after the other) */
      unsigned varied = 0;
      int64_t off = 0;
      for (int i = 0; i < c.n_in; i++)
        {
          if (c.in_const[i])
            continue;
          int64_t k = cn_shape_numel (&c.in_shape[i]);
          int on = i < 32 && ((info->inputs >> i) & 1u) && cn__port_differentiable (rule, i, c.in_dtype[i])
                   && c.in_dtype[i] == CN_DTYPE_F64;
          for (int64_t j = 0; j < k; j++)
            t[off + j] = on ? ldexp ((double) cn__rng_int (rng, -1024, 1024), -10) : 0.0;
          if (on && k > 0)
            varied |= 1u << i;
          off += k;
        }
      const double *xs[1] = { x }, *ts[1] = { t };
      st = cn_graph_gradient (g, x, w, NULL, gx, err);
      if (st == CN_OK)
        st = cn_graph_jvp (g, xs, ts, 0, NULL, s, err);
      if (st != CN_OK)
        {
          free (buf);
          cn_graph_free (g);
          if (st == CN_ENOMEM)
            return st;
          res->passed = 0;
          snprintf (res->detail, sizeof res->detail, "draw %d: the engines refused the probe: %.400s", d, err->msg);
          return CN_OK;
        }
      double lhs = 0, rhs = 0, scale = 0;
      for (int64_t i = 0; i < n; i++)
        {
          lhs += gx[i] * t[i];
          scale += fabs (gx[i] * t[i]);
        }
      for (int64_t j = 0; j < m; j++)
        {
          rhs += w[j] * s[j];
          scale += fabs (w[j] * s[j]);
        }
      free (buf);
      cn_graph_free (g);
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
  g->nodes[0].rule = rule;
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
    case CN_CERT_CONVENTION:
      return check_convention (rule, &rule->certs[i], &info, &rng, draws, res, err);
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
cn_cert_scope (cn_cert_kind k, const char **does_not)
{
  switch (k)
    {
    case CN_CERT_ALGEBRAIC:
      *does_not = "it is sampled: not a proof for all points, and nothing about the tangent map being a derivative";
      return "the pullback agreed with the adjoint of the jvp at every sampled point, cotangent and tangent";
    case CN_CERT_CONVENTION:
      *does_not = "it says nothing away from the stated point, and it is sampled where the point is 'anywhere'";
      return "the arm returned the stated derivative at the stated point, exactly";
    default:
      *does_not = NULL;
      return NULL;
    }
}
