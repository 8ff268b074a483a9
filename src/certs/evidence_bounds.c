/* SPDX-License-Identifier: MIT */
/* src/certs/evidence_bounds.c: the evidence of the enclosure records (certnn/certs.h): the IBP
 * arm against the MPFI arm and the exact value, and one CROWN step against its invariant.
 *
 * Both draw instances of the record's operator (cn__op_case_draw) and boxes of four widths
 * (a point, up to 1e-6, up to 0.5, up to 3 around a centre in [-2, 2]) mapped into the instance's
 * domain; the exact value at a point is the MPFI arm at EXACT_PREC bits on point intervals. */
#include <config.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "certnn/bounds.h"
#include "certnn/certs.h"
#include "certnn/reference.h"
#include "certs/certs_impl.h"
#include "graph/graph_impl.h"
#include "ops/ops_impl.h"

#define EXACT_PREC 256
#define SUB_BOXES 7      /* a box, its two halves and their halves (along the widest entry) */
#define BOX_POINTS 4     /* points per box for the IBP check: two corners, two inside */
#define STEP_ROWS 3
#define STEP_POINTS 24   /* points per step for the CROWN check */

/* A random box of B->n entries: every entry of the same one of the four widths (the first
 * mapped into the domain [x_lo, x_hi] of C when it has one, keeping relative widths, with
 * integer ends for x_integer cases). */
static void
random_box (cn_box *b, const struct cn__op_case *c, int in_range, cn__rng *r)
{
  int kind = (int) cn__rng_int (r, 0, 3);
  for (int64_t j = 0; j < b->n; j++)
    {
      double m = cn__rng_uniform (r, -2, 2), w;
      switch (kind)
        {
        case 0: w = 0; break;
        case 1: w = cn__rng_uniform (r, 0, 1e-6); break;
        case 2: w = cn__rng_uniform (r, 0, 0.5); break;
        default: w = cn__rng_uniform (r, 0, 3); break;
        }
      b->lo[j] = m - w;
      b->hi[j] = m + w;
      if (b->lo[j] > b->hi[j])
        b->lo[j] = b->hi[j];
    }
  if (in_range)
    cn__case_box_in_range (b, c);
}

/* A point of box B into X: a corner (CORNER) or uniform inside; integer for INTEGER. */
static void
box_point (const cn_box *b, int corner, int integer, cn__rng *r, double *x)
{
  for (int64_t j = 0; j < b->n; j++)
    {
      x[j] = corner ? (cn__rng_next (r) & 1 ? b->hi[j] : b->lo[j]) : cn__rng_uniform (r, b->lo[j], b->hi[j]);
      if (integer)
        x[j] = fmin (fmax (round (x[j]), b->lo[j]), b->hi[j]);
    }
}

/* Boxes SUB[1..SUB_BOXES-1] from SUB[0]: SUB[k] is split at the middle of its widest entry into
 * SUB[2k+1] (lower half) and SUB[2k+2] (upper half); the middle is an integer for INTEGER.  A
 * point box gives copies of itself. */
static void
subdivide (cn_box *sub, int integer)
{
  for (int k = 0; 2 * k + 2 < SUB_BOXES; k++)
    {
      int64_t wide = 0;
      for (int64_t j = 1; j < sub[k].n; j++)
        if (sub[k].hi[j] - sub[k].lo[j] > sub[k].hi[wide] - sub[k].lo[wide])
          wide = j;
      for (int h = 1; h <= 2; h++)
        {
          memcpy (sub[2 * k + h].lo, sub[k].lo, (size_t) sub[k].n * sizeof (double));
          memcpy (sub[2 * k + h].hi, sub[k].hi, (size_t) sub[k].n * sizeof (double));
        }
      if (sub[k].n == 0)
        continue;
      double mid = sub[k].lo[wide] + (sub[k].hi[wide] - sub[k].lo[wide]) / 2;
      if (integer)
        mid = floor (mid);
      mid = fmin (fmax (mid, sub[k].lo[wide]), sub[k].hi[wide]);
      sub[2 * k + 1].hi[wide] = mid;
      sub[2 * k + 2].lo[wide] = mid;
    }
}

/* ---- IBP: ibp(B) contains the MPFI arm's enclosure over B and the exact value at points of B ----
 *
 * For each sampled box B (SUB_BOXES of them per instance): y = the graph's IBP over B
 * (cn__graph_ibp, the arms of the rule under test), R = the MPFI reference over B at EXACT_PREC
 * bits; R must lie in y, and so must the exact value (R at a point) at two corners and two
 * points inside B.  An instance the arm or the reference refuses with CN_EUNSUPPORTED is drawn
 * again; any other refusal fails the record. */
static int
inside (const cn_mpfi_vec *r, const cn_box *y, int64_t *at)
{
  for (int64_t j = 0; j < y->n; j++)
    if (mpfr_cmp_d (&r->v[j]->left, y->lo[j]) < 0 || mpfr_cmp_d (&r->v[j]->right, y->hi[j]) > 0
        || mpfr_nan_p (&r->v[j]->left) || mpfr_nan_p (&r->v[j]->right))
      {
        *at = j;
        return 0;
      }
  return 1;
}

cn_status
cn__cert_check_ibp (const struct cn_op_rule *rule, const cn_cert_info *info, cn__rng *rng, int draws,
                    cn_cert_result *res, cn_error *err)
{
  const char *name = cn_op_name (info->op);
  for (int d = 0; d < draws; d++)
    {
      struct cn__cert_case cc;
      cn_graph *g;
      cn_status st = cn__cert_instance (rule, info->op, 0, rng, &cc, &g, err);
      if (st != CN_OK)
        return st;
      if (g == NULL)
        {
          res->redrawn++;
          continue;
        }
      const struct cn__op_case c = cc.c;
      int64_t n = cn_shape_numel (cn_graph_value_shape (g, cn_graph_input (g, 0)));
      int64_t m = cn_shape_numel (cn_graph_value_shape (g, cn_graph_output (g, 0)));
      cn_box sub[SUB_BOXES], y;
      int n_sub = 0, have_y = 0;
      double *x = malloc ((size_t) (n + 1) * sizeof *x);
      cn_mpfi_vec in;
      int have_in = 0;
      if (x == NULL)
        st = cn_error_set (err, CN_ENOMEM, "%s: out of memory for a box", name);
      while (st == CN_OK && n_sub < SUB_BOXES)
        if ((st = cn_box_init (&sub[n_sub], n, err)) == CN_OK)
          n_sub++;
      if (st == CN_OK && (st = cn_box_init (&y, m, err)) == CN_OK)
        have_y = 1;
      if (st == CN_OK && (st = cn_mpfi_vec_init (&in, n, EXACT_PREC, err)) == CN_OK)
        have_in = 1;
      char fail[400] = "";
      int redraw = 0;
      if (st == CN_OK)
        {
          random_box (&sub[0], &c, 1, rng);
          subdivide (sub, c.x_integer);
        }
      for (int k = 0; k < SUB_BOXES && st == CN_OK && !fail[0] && !redraw; k++)
        {
          const cn_box *bp[1] = { &sub[k] };
          cn_error aerr;
          cn_error_clear (&aerr);
          cn_status sa = cn__graph_ibp (g, bp, 0, &y, &aerr);
          if (sa == CN_ENOMEM)
            st = cn_error_set (err, sa, "%s", aerr.msg);
          else if (sa == CN_EUNSUPPORTED)
            redraw = 1;
          else if (sa != CN_OK)
            snprintf (fail, sizeof fail, "the arm refused a box: %.300s", aerr.msg);
          if (st != CN_OK || redraw || fail[0])
            break;
          /* the MPFI enclosure over the box, then the exact value at points of it */
          for (int q = -1; q < BOX_POINTS && !fail[0] && !redraw && st == CN_OK; q++)
            {
              if (q < 0)
                for (int64_t j = 0; j < n; j++)
                  mpfi_interv_d (in.v[j], sub[k].lo[j], sub[k].hi[j]);
              else
                {
                  box_point (&sub[k], q < 2, c.x_integer, rng, x);
                  for (int64_t j = 0; j < n; j++)
                    mpfi_set_d (in.v[j], x[j]);
                }
              cn_mpfi_vec r;
              cn_status sr = cn_reference_ibp (g, &in, EXACT_PREC, &r, &aerr);
              if (sr == CN_ENOMEM)
                st = cn_error_set (err, sr, "%s", aerr.msg);
              else if (sr != CN_OK)
                redraw = 1;
              if (sr != CN_OK)
                break;
              int64_t at = 0;
              res->checks++;
              if (!inside (&r, &y, &at))
                {
                  double rl = mpfr_get_d (&r.v[at]->left, MPFR_RNDD), rh = mpfr_get_d (&r.v[at]->right, MPFR_RNDU);
                  snprintf (fail, sizeof fail, "box %d of draw %d: the IBP box [%.17g, %.17g] at output entry %lld "
                            "does not contain %s [%.17g, %.17g]", k, d, y.lo[at], y.hi[at], (long long) at,
                            q < 0 ? "the MPFI enclosure over the box" : q < 2 ? "the exact value at a corner"
                                                                        : "the exact value at a point inside",
                            rl, rh);
                }
              cn_mpfi_vec_clear (&r);
            }
        }
      if (have_in)
        cn_mpfi_vec_clear (&in);
      if (have_y)
        cn_box_clear (&y);
      for (int k = 0; k < n_sub; k++)
        cn_box_clear (&sub[k]);
      free (x);
      cn_graph_free (g);
      cn__cert_case_clear (&cc);
      if (st != CN_OK)
        return st;
      if (fail[0])
        {
          res->passed = 0;
          snprintf (res->detail, sizeof res->detail, "%s", fail);
          return CN_OK;
        }
      if (redraw)
        res->redrawn++;
      else
        res->exercised |= info->inputs;
    }
  res->passed = res->checks > 0;
  snprintf (res->detail, sizeof res->detail, "%lld inclusions over %d boxes per instance (MPFI at %d bits)",
            (long long) res->checks, SUB_BOXES, EXACT_PREC);
  if (res->checks == 0)
    snprintf (res->detail, sizeof res->detail, "no instance could be checked (%lld drawn again)",
              (long long) res->redrawn);
  return CN_OK;
}

/* ---- the steps' instances (CROWN and the checker) ------------------------------------------- */

/* The box B (initialised here) of a step's input U for instance C: a constant's point box; for a
 * varying Boolean port false, true or unknown ([0, 1]); for a word port integer ends; otherwise a
 * random box (random_box) in the instance's domain. */
static cn_status
step_box (const struct cn__value *u, const struct cn__op_case *c, cn__rng *rng, cn_box *b, cn_error *err)
{
  cn_status st = cn_box_init (b, u->numel, err);
  if (st != CN_OK)
    return st;
  if (u->is_constant)
    for (int64_t j = 0; j < u->numel; j++)
      b->lo[j] = b->hi[j] = u->cdata[j];
  else if (u->dtype == CN_DTYPE_BOOL)
    for (int64_t j = 0; j < u->numel; j++)
      {
        /* false, true or unknown */
        b->lo[j] = (double) cn__rng_int (rng, 0, 1);
        b->hi[j] = fmax (b->lo[j], (double) cn__rng_int (rng, 0, 1));
      }
  else if (!cn_dtype_is_float (u->dtype))
    {
      random_box (b, c, 1, rng);
      for (int64_t j = 0; j < u->numel; j++)
        {
          b->lo[j] = ceil (b->lo[j]);
          b->hi[j] = fmax (floor (b->hi[j]), b->lo[j]);
        }
    }
  else
    random_box (b, c, !c->x_integer, rng);
  return CN_OK;
}

/* Point K of the step's input boxes BOXES (node ND of G) into the point intervals XIN: corners
 * (odd K), uniform, every fourth beside a multiple of 1/2 (the jumps of roundings and signs);
 * Booleans and words at integers. */
static void
step_point (const cn_graph *g, const struct cn__node *nd, const cn_box *boxes, int k, cn__rng *rng, cn_mpfi_vec *xin)
{
  for (int i = 0; i < nd->n_in; i++)
    for (int64_t j = 0; j < boxes[i].n; j++)
      {
        int word = !cn_dtype_is_float (g->values[nd->in[i]].dtype);
        double lo = boxes[i].lo[j], hi = boxes[i].hi[j];
        double v = k % 2 ? (cn__rng_next (rng) & 1 ? hi : lo) : cn__rng_uniform (rng, lo, hi);
        if (word)
          v = fmin (fmax (round (v), lo), hi);   /* Booleans and words take integer values */
        else if (k % 4 == 2)
          {
            int side = (int) cn__rng_int (rng, 0, 2);
            double h = round (2 * v) / 2;
            /* beside 0 a normal number (a subnormal product would be inexact in acc) */
            if (side != 0)
              h = h == 0 ? (side == 1 ? -0x1p-60 : 0x1p-60) : nextafter (h, side == 1 ? -INFINITY : INFINITY);
            if (h >= lo && h <= hi)
              v = h;
          }
        mpfi_set_d (xin[i].v[j], v);
      }
}

/* Draws the next instance of RULE's operator for a step record into *CC and *G (cn__cert_instance):
 * returns 1 when there is one; 0 with *ST = CN_OK when the draw is to be made again (counted in
 * RES), 0 with *ST set on a failure. */
static int
step_instance (const struct cn_op_rule *rule, const cn_cert_info *info, cn__rng *rng, cn_cert_result *res,
               struct cn__cert_case *cc, cn_graph **g, cn_status *st, cn_error *err)
{
  *st = cn__cert_instance (rule, info->op, 1, rng, cc, g, err);
  if (*st != CN_OK)
    return 0;
  if (*g == NULL)
    {
      res->redrawn++;
      return 0;
    }
  return 1;
}

/* The exact value Y at the point intervals XP of draw D: RULE's MPFI arm.  Returns 1, or 0 with
 * FAIL (SIZE bytes) saying the arm refused the point, or *ST set when out of memory. */
static int
step_exact (const struct cn_op_rule *rule, const cn_node_view *nv, const cn_mpfi_vec *const *xp, cn_mpfi_vec *y,
            int d, char *fail, size_t size, cn_status *st, cn_error *err)
{
  cn_error aerr;
  cn_error_clear (&aerr);
  cn_status sr = rule->ibp_mpfi (nv, xp, y, &aerr);
  if (sr == CN_OK)
    return 1;
  if (sr == CN_ENOMEM)
    *st = cn_error_set (err, sr, "%s", aerr.msg);
  else
    snprintf (fail, size, "draw %d: the MPFI arm refused a point of the boxes: %.300s", d, aerr.msg);
  return 0;
}

/* ---- CROWN: one step of the arm keeps the sweep's invariant ---------------------------------
 *
 * The step of the instance's node over random input boxes (constants: their point boxes) with
 * STEP_ROWS random rows lam_out in [-1, 1] (every third instance scaled by 2^40, which stresses
 * the charges), a random lower-slope choice and, for an arm with free parameters (ALPHA) every
 * other instance, a random valid set per row (random numbers projected by the hook).  At
 * STEP_POINTS points x of the boxes (corners, uniform, every fourth beside a multiple of 1/2:
 * the jumps of roundings and signs), with f(x) from the MPFI arm at point intervals, in MPFI at
 * 4 EXACT_PREC bits:
 *     lam_out[s] . f(x) - sum_i lam_in_i[s] . x_i - bias[s] + charge[s] >= 0.
 * A varying Boolean port's box is false, true or unknown ([0, 1]), a word port's has integer ends,
 * and their points are integers.  Instances outside the arm's scope (crown_ok) are drawn again:
 * the sweep discharges those over their IBP boxes. */
cn_status
cn__cert_check_crown (const struct cn_op_rule *rule, const cn_cert_info *info, cn__rng *rng, int draws,
                      cn_cert_result *res, cn_error *err)
{
  const char *name = cn_op_name (info->op);
  for (int d = 0; d < draws; d++)
    {
      struct cn__cert_case cc;
      cn_graph *g;
      cn_status st;
      if (!step_instance (rule, info, rng, res, &cc, &g, &st, err))
        {
          if (st != CN_OK)
            return st;
          continue;
        }
      const struct cn__op_case c = cc.c;
      const struct cn__node *nd = &g->nodes[g->n_nodes - 1];
      const cn_node_view *nv = &nd->view[c.out_index];
      int n_in = nd->n_in;
      int64_t n_out = g->values[nd->out[c.out_index]].numel, rows = STEP_ROWS;
      cn_box boxes[CN__CASE_MAX_IN];
      const cn_box *bp[CN__CASE_MAX_IN];
      double *lam_in[CN__CASE_MAX_IN] = { NULL };
      cn_mpfi_vec xin[CN__CASE_MAX_IN], y;
      const cn_mpfi_vec *xp[CN__CASE_MAX_IN];
      int n_box = 0, n_xin = 0, have_y = 0;
      double *lam_out = malloc ((size_t) (rows * n_out + 1) * sizeof *lam_out);
      double *theta = NULL;
      double bias[STEP_ROWS] = { 0 }, charge[STEP_ROWS] = { 0 };
      char fail[400] = "";
      if (lam_out == NULL)
        st = cn_error_set (err, CN_ENOMEM, "%s: out of memory for a step", name);
      for (; st == CN_OK && n_box < n_in; n_box++)
        {
          const struct cn__value *u = &g->values[nd->in[n_box]];
          if ((st = step_box (u, &c, rng, &boxes[n_box], err)) != CN_OK)
            break;
          if (!u->is_constant)
            {
              lam_in[n_box] = calloc ((size_t) (rows * u->numel + 1), sizeof (double));
              if (lam_in[n_box] == NULL)
                st = cn_error_set (err, CN_ENOMEM, "%s: out of memory for a step", name);
            }
          bp[n_box] = &boxes[n_box];
        }
      int slope = (int) (cn__rng_next (rng) % 4);
      cn_crown_step step = { .rows = rows, .lam_out = lam_out, .lam_in = lam_in, .in_box = bp,
                             .bias = bias, .charge = charge, .threads = 1, .slope = slope };
      if (st == CN_OK)
        {
          double scale = d % 3 == 0 ? 0x1p40 : 1;
          for (int64_t j = 0; j < rows * n_out; j++)
            lam_out[j] = cn__rng_uniform (rng, -1, 1) * scale;
          if (rule->alpha != NULL && (rule->alpha_takes == NULL || rule->alpha_takes (nv)) && d % 2 == 0 && n_in >= 1
              && lam_in[0] != NULL)
            {
              if ((theta = malloc ((size_t) (rows * n_out + 1) * sizeof *theta)) == NULL)
                st = cn_error_set (err, CN_ENOMEM, "%s: out of memory for a step", name);
              for (int64_t r = 0; r < rows && st == CN_OK; r++)
                {
                  for (int64_t j = 0; j < n_out; j++)
                    theta[r * n_out + j] = cn__rng_uniform (rng, -0.5, 1.5);
                  rule->alpha (nv, bp[0], slope, 0, theta + r * n_out);
                }
              step.theta = theta;
              step.theta_stride = n_out;
            }
        }
      if (st == CN_OK)
        {
          cn__crown_step_bind (&step, nv);
          cn_error aerr;
          cn_error_clear (&aerr);
          cn_status sa = rule->crown (&step, &aerr);
          if (sa == CN_ENOMEM)
            st = cn_error_set (err, sa, "%s", aerr.msg);
          else if (sa != CN_OK)
            snprintf (fail, sizeof fail, "draw %d: the arm refused an instance the generator says it takes: %.300s",
                      d, aerr.msg);
        }
      for (; st == CN_OK && n_xin < n_in; n_xin++)
        {
          if ((st = cn_mpfi_vec_init (&xin[n_xin], boxes[n_xin].n, EXACT_PREC, err)) != CN_OK)
            break;
          xp[n_xin] = &xin[n_xin];
        }
      if (st == CN_OK && (st = cn_mpfi_vec_init (&y, n_out, EXACT_PREC, err)) == CN_OK)
        have_y = 1;
      mpfi_t acc, t;
      mpfi_init2 (acc, 4 * EXACT_PREC);
      mpfi_init2 (t, 4 * EXACT_PREC);
      for (int k = 0; k < STEP_POINTS && st == CN_OK && !fail[0]; k++)
        {
          step_point (g, nd, boxes, k, rng, xin);
          if (!step_exact (rule, nv, xp, &y, d, fail, sizeof fail, &st, err))
            break;
          for (int64_t r = 0; r < rows && !fail[0]; r++)
            {
              cn__case_crown_residual (acc, t, &y, lam_out, n_out, n_in, xin, lam_in, r, bias[r]);
              mpfi_add_d (acc, acc, charge[r]);
              res->checks++;
              if (!(mpfr_sgn (&acc->left) >= 0) && !isinf (charge[r]))
                snprintf (fail, sizeof fail, "draw %d, row %lld, point %d: lam_out . f(x) falls %.3g below the step's "
                          "line (bias %.17g, charge %.3g)", d, (long long) r, k, -mpfr_get_d (&acc->left, MPFR_RNDD),
                          bias[r], charge[r]);
            }
        }
      mpfi_clear (acc);
      mpfi_clear (t);
      if (have_y)
        cn_mpfi_vec_clear (&y);
      for (int i = 0; i < n_xin; i++)
        cn_mpfi_vec_clear (&xin[i]);
      for (int i = 0; i < n_box; i++)
        cn_box_clear (&boxes[i]);
      for (int i = 0; i < n_in; i++)
        free (lam_in[i]);
      free (lam_out);
      free (theta);
      cn_graph_free (g);
      cn__cert_case_clear (&cc);
      if (st != CN_OK)
        return st;
      if (fail[0])
        {
          res->passed = 0;
          snprintf (res->detail, sizeof res->detail, "%s", fail);
          return CN_OK;
        }
      res->exercised |= info->inputs;
    }
  res->passed = res->checks > 0;
  snprintf (res->detail, sizeof res->detail, "%lld row-point inequalities in MPFI (%lld instances drawn again: "
            "outside the arm's scope)", (long long) res->checks, (long long) res->redrawn);
  return CN_OK;
}

/* ---- the certificate checker's step: its lines hold at sampled points -----------------------
 *
 * The checker's step (the rule's proof hook, certnn/proof.h) of the instance's node over input
 * boxes drawn as for the CROWN step, in MPFI at CHECKER_PREC bits: STEP_ROWS rows L of random
 * numbers in [-1, 1] (every third instance scaled by 2^40) as point intervals, every other
 * instance each widened around its number (one entry in four to an interval holding 0, the case
 * where no line's sign is known), and a random lower-slope choice.  At STEP_POINTS points x of
 * the boxes, f(x) from the MPFI arm at EXACT_PREC bits on point intervals, the residual
 *     L[s] . f(x) - sum_i D_i[s] . x_i - b[s]
 * in MPFI at 4 EXACT_PREC bits (D_i and b what the step added) must not lie wholly below 0: for
 * every exact row in L the step's contract puts exact coefficients and bias in D_i and b whose
 * residual is >= 0, and that residual lies in the interval.  An instance the step declines
 * (CN_EUNSUPPORTED: two varying matmul operands, words) is drawn again: the checker refuses
 * such a network, naming the node. */
#define CHECKER_PREC 64

cn_status
cn__cert_check_checker (const struct cn_op_rule *rule, const cn_cert_info *info, cn__rng *rng, int draws,
                        cn_cert_result *res, cn_error *err)
{
  for (int d = 0; d < draws; d++)
    {
      struct cn__cert_case cc;
      cn_graph *g;
      cn_status st;
      if (!step_instance (rule, info, rng, res, &cc, &g, &st, err))
        {
          if (st != CN_OK)
            return st;
          continue;
        }
      const struct cn__op_case c = cc.c;
      const struct cn__node *nd = &g->nodes[g->n_nodes - 1];
      const cn_node_view *nv = &nd->view[c.out_index];
      int n_in = nd->n_in;
      int64_t n_out = g->values[nd->out[c.out_index]].numel, rows = STEP_ROWS;
      cn_box boxes[CN__CASE_MAX_IN];
      cn_mpfi_vec ebox[CN__CASE_MAX_IN], lamv[CN__CASE_MAX_IN], xin[CN__CASE_MAX_IN], lam_out, bias, y;
      const cn_mpfi_vec *ep[CN__CASE_MAX_IN], *xp[CN__CASE_MAX_IN];
      mpfi_t *lam_in[CN__CASE_MAX_IN] = { NULL };
      memset (ebox, 0, sizeof ebox);
      memset (lamv, 0, sizeof lamv);
      memset (xin, 0, sizeof xin);
      memset (&lam_out, 0, sizeof lam_out);
      memset (&bias, 0, sizeof bias);
      memset (&y, 0, sizeof y);
      int n_box = 0, declined = 0;
      char fail[400] = "";
      for (; st == CN_OK && n_box < n_in; n_box++)
        {
          const struct cn__value *u = &g->values[nd->in[n_box]];
          if ((st = step_box (u, &c, rng, &boxes[n_box], err)) != CN_OK)
            break;
          if ((st = cn_mpfi_vec_init (&ebox[n_box], u->numel, CHECKER_PREC, err)) != CN_OK
              || (st = cn_mpfi_vec_init (&xin[n_box], u->numel, EXACT_PREC, err)) != CN_OK)
            {
              n_box++;
              break;
            }
          for (int64_t j = 0; j < u->numel; j++)
            mpfi_interv_d (ebox[n_box].v[j], boxes[n_box].lo[j], boxes[n_box].hi[j]);
          ep[n_box] = &ebox[n_box];
          xp[n_box] = &xin[n_box];
          if (!u->is_constant)
            {
              if ((st = cn_mpfi_vec_init (&lamv[n_box], rows * u->numel, CHECKER_PREC, err)) != CN_OK)
                {
                  n_box++;
                  break;
                }
              lam_in[n_box] = lamv[n_box].v;
            }
        }
      mpfi_t tmp, acc, t;
      mpfi_init2 (tmp, CHECKER_PREC);
      mpfi_init2 (acc, 4 * EXACT_PREC);
      mpfi_init2 (t, 4 * EXACT_PREC);
      if (st == CN_OK && (st = cn_mpfi_vec_init (&lam_out, rows * n_out, CHECKER_PREC, err)) == CN_OK
          && (st = cn_mpfi_vec_init (&bias, rows, CHECKER_PREC, err)) == CN_OK
          && (st = cn_mpfi_vec_init (&y, n_out, EXACT_PREC, err)) == CN_OK)
        {
          double scale = d % 3 == 0 ? 0x1p40 : 1;
          for (int64_t j = 0; j < rows * n_out; j++)
            {
              double l = cn__rng_uniform (rng, -1, 1) * scale;
              if (d % 2 == 1)
                {
                  double w = cn__rng_next (rng) % 4 == 0 ? 2 * fabs (l) : fabs (l) * 0x1p-20;
                  mpfi_interv_d (lam_out.v[j], l - w, l + w);
                }
              else
                mpfi_set_d (lam_out.v[j], l);
            }
          cn_proof_step step = { .nv = nv, .rows = rows, .lam_out = lam_out.v, .lam_in = lam_in, .in_box = ep,
                                 .bias = bias.v, .slope = (int) (cn__rng_next (rng) % 4), .tmp = tmp };
          cn_error aerr;
          cn_error_clear (&aerr);
          cn_status sa = rule->proof (&step, &aerr);
          if (sa == CN_ENOMEM)
            st = cn_error_set (err, sa, "%s", aerr.msg);
          else if (sa == CN_EUNSUPPORTED)
            declined = 1;
          else if (sa != CN_OK)
            snprintf (fail, sizeof fail, "draw %d: the step failed: %.300s", d, aerr.msg);
        }
      for (int k = 0; k < STEP_POINTS && st == CN_OK && !fail[0] && !declined; k++)
        {
          step_point (g, nd, boxes, k, rng, xin);
          if (!step_exact (rule, nv, xp, &y, d, fail, sizeof fail, &st, err))
            break;
          for (int64_t r = 0; r < rows && !fail[0]; r++)
            {
              mpfi_neg (acc, bias.v[r]);
              for (int64_t j = 0; j < n_out; j++)
                {
                  mpfi_mul (t, lam_out.v[r * n_out + j], y.v[j]);
                  mpfi_add (acc, acc, t);
                }
              for (int i = 0; i < n_in; i++)
                if (lam_in[i] != NULL)
                  for (int64_t j = 0; j < xin[i].n; j++)
                    {
                      mpfi_mul (t, lam_in[i][r * xin[i].n + j], xin[i].v[j]);
                      mpfi_sub (acc, acc, t);
                    }
              /* now acc holds L[r] . f(x) - D[r] . x - b[r] for the exact rows in the intervals */
              res->checks++;
              if (mpfr_nan_p (&acc->right) || mpfr_sgn (&acc->right) < 0)
                snprintf (fail, sizeof fail, "draw %d, row %lld, point %d: L . f(x) falls %.3g below the step's line "
                          "(bias [%.17g, %.17g])", d, (long long) r, k, -mpfr_get_d (&acc->right, MPFR_RNDU),
                          mpfr_get_d (&bias.v[r]->left, MPFR_RNDD), mpfr_get_d (&bias.v[r]->right, MPFR_RNDU));
            }
        }
      if (declined)
        res->redrawn++;
      mpfi_clear (tmp);
      mpfi_clear (acc);
      mpfi_clear (t);
      cn_mpfi_vec_clear (&lam_out);
      cn_mpfi_vec_clear (&bias);
      cn_mpfi_vec_clear (&y);
      for (int i = 0; i < n_box; i++)
        {
          cn_box_clear (&boxes[i]);
          cn_mpfi_vec_clear (&ebox[i]);
          cn_mpfi_vec_clear (&lamv[i]);
          cn_mpfi_vec_clear (&xin[i]);
        }
      cn_graph_free (g);
      cn__cert_case_clear (&cc);
      if (st != CN_OK)
        return st;
      if (fail[0])
        {
          res->passed = 0;
          snprintf (res->detail, sizeof res->detail, "%s", fail);
          return CN_OK;
        }
      if (!declined)
        res->exercised |= info->inputs;
    }
  res->passed = res->checks > 0;
  snprintf (res->detail, sizeof res->detail, "%lld row-point inequalities in MPFI (%lld instances drawn again: "
            "outside the step's scope)", (long long) res->checks, (long long) res->redrawn);
  if (res->checks == 0)
    snprintf (res->detail, sizeof res->detail, "no instance could be checked (%lld drawn again)",
              (long long) res->redrawn);
  return CN_OK;
}

/* ---- ROUNDOFF (binary32): the binary32 forward lies in the binary32 semantics' boxes ----------
 *
 * The instance's constants of the model's scalar are rounded to binary32 words first (the
 * deployed network's weights), the box's ends to words inward.  At ROUND_POINTS binary32 points
 * x of the box, y32 = the graph's binary32 forward at x (cn_graph_eval in CN_DTYPE_F32, certnn's
 * order) must lie in the binary32 IBP box over the point [x, x] (the exact value, enclosed to
 * binary64 rounding, widened by the rule's ROUNDOFF32 bound: the sharp test of the bound) and in
 * the binary32 IBP box over the whole box (the bound over a box).  An instance that the binary32
 * semantics refuses (an operator upstream without a declaration, a value the forward refuses)
 * is drawn again. */
#define ROUND_POINTS 6

/* Rounds every constant of the model's scalar in G to the nearest binary32 word, in both of its
 * copies, and every binary64 attribute of its nodes (scale's factor, pad's value) where the word
 * is finite and zero only for zero (the graph is the runner's own instance). */
static void
round_constants_b32 (cn_graph *g)
{
  for (int k = 0; k < g->n_nodes; k++)
    {
      const struct cn__record *rec = cn__op_record (g->nodes[k].op);
      for (int i = 0; rec != NULL && g->nodes[k].params != NULL && i < rec->n; i++)
        if (rec->f[i].kind == CN__FIELD_F64 || rec->f[i].kind == CN__FIELD_F64X)
          {
            double *x = (double *) (void *) ((char *) g->nodes[k].params + rec->f[i].off);
            float w = (float) *x;
            if (isfinite (w) && (w != 0 || *x == 0))
              *x = w;
          }
    }
  for (int v = 0; v < g->n_values; v++)
    {
      struct cn__value *val = &g->values[v];
      if (!val->is_constant || !cn_dtype_is_float (val->dtype))
        continue;
      for (int64_t j = 0; j < val->numel; j++)
        {
          if (val->cdata != NULL)
            val->cdata[j] = (float) val->cdata[j];
          if (val->constant.dtype == CN_DTYPE_F64)
            ((double *) val->constant.data)[j] = (float) ((double *) val->constant.data)[j];
        }
    }
}

/* The binary32 semantics' IBP box of G's output over B into Y (initialised here). */
static cn_status
b32_box (const cn_graph *g, const cn_box *b, cn_box *y, cn_error *err)
{
  cn_bounds_opts o;
  cn_bounds_opts_init (&o);
  o.method = CN_METHOD_IBP;
  o.semantics = CN_SEMANTICS_BINARY32;
  o.threads = 1;
  return cn_bounds_output (g, b, &o, y, err);
}

cn_status
cn__cert_check_roundoff (const struct cn_op_rule *rule, const cn_cert_info *info, cn__rng *rng, int draws,
                         cn_cert_result *res, cn_error *err)
{
  for (int d = 0; d < draws; d++)
    {
      struct cn__cert_case cc;
      cn_graph *g;
      cn_status st = cn__cert_instance (rule, info->op, 0, rng, &cc, &g, err);
      if (st != CN_OK)
        return st;
      if (g == NULL)
        {
          res->redrawn++;
          continue;
        }
      round_constants_b32 (g);
      const struct cn__op_case c = cc.c;
      int64_t n = cn_shape_numel (cn_graph_value_shape (g, cn_graph_input (g, 0)));
      int64_t m = cn_shape_numel (cn_graph_value_shape (g, cn_graph_output (g, 0)));
      cn_box box, pt, yb, yp;
      memset (&box, 0, sizeof box);
      memset (&pt, 0, sizeof pt);
      memset (&yb, 0, sizeof yb);
      memset (&yp, 0, sizeof yp);
      cn_tensor in, out;
      int have_in = 0;
      char fail[400] = "";
      int redraw = 0;
      cn_error aerr;
      cn_error_clear (&aerr);
      if ((st = cn_box_init (&box, n, err)) == CN_OK && (st = cn_box_init (&pt, n, err)) == CN_OK
          && (st = cn_tensor_init (&in, CN_DTYPE_F32, cn_graph_value_shape (g, cn_graph_input (g, 0)), err)) == CN_OK)
        have_in = 1;
      if (st == CN_OK)
        {
          random_box (&box, &c, 1, rng);
          /* ends to binary32 words, inward (a degenerate box to the word nearest its point) */
          for (int64_t j = 0; j < n; j++)
            {
              float lo = (float) box.lo[j], hi = (float) box.hi[j];
              if (lo < box.lo[j])
                lo = nextafterf (lo, INFINITY);
              if (hi > box.hi[j])
                hi = nextafterf (hi, -INFINITY);
              if (lo > hi)
                lo = hi = (float) box.lo[j];
              box.lo[j] = lo;
              box.hi[j] = hi;
            }
          cn_status sa = b32_box (g, &box, &yb, &aerr);
          if (sa == CN_ENOMEM)
            st = cn_error_set (err, sa, "%s", aerr.msg);
          else if (sa != CN_OK)
            redraw = 1;
        }
      for (int q = 0; q < ROUND_POINTS && st == CN_OK && !redraw && !fail[0]; q++)
        {
          float *xf = in.data;
          for (int64_t j = 0; j < n; j++)
            {
              double x = q < 2 ? (cn__rng_next (rng) & 1 ? box.hi[j] : box.lo[j])
                               : cn__rng_uniform (rng, box.lo[j], box.hi[j]);
              if (c.x_integer)
                x = round (x);
              float f = (float) x;
              f = f < box.lo[j] ? (float) box.lo[j] : f > box.hi[j] ? (float) box.hi[j] : f;
              xf[j] = f;
              pt.lo[j] = pt.hi[j] = f;
            }
          cn_status se = cn_graph_eval (g, CN_DTYPE_F32, &in, &out, &aerr);
          if (se == CN_ENOMEM)
            st = cn_error_set (err, se, "%s", aerr.msg);
          else if (se != CN_OK)
            redraw = 1;
          if (se != CN_OK)
            break;
          cn_status sp = b32_box (g, &pt, &yp, &aerr);
          if (sp == CN_ENOMEM)
            st = cn_error_set (err, sp, "%s", aerr.msg);
          else if (sp != CN_OK)
            redraw = 1;
          if (sp == CN_OK)
            {
              const float *y = out.data;
              for (int64_t j = 0; j < m && !fail[0]; j++)
                {
                  double v = y[j];
                  res->checks++;
                  if (isnan (v))
                    {
                      redraw = 1;
                      break;
                    }
                  if (!(yp.lo[j] <= v && v <= yp.hi[j]))
                    snprintf (fail, sizeof fail, "draw %d, point %d: the binary32 forward %.9g at output entry %lld "
                              "leaves the binary32 box over the point [%.17g, %.17g]", d, q, v, (long long) j,
                              yp.lo[j], yp.hi[j]);
                  else if (!(yb.lo[j] <= v && v <= yb.hi[j]))
                    snprintf (fail, sizeof fail, "draw %d, point %d: the binary32 forward %.9g at output entry %lld "
                              "leaves the binary32 box over the box [%.17g, %.17g]", d, q, v, (long long) j,
                              yb.lo[j], yb.hi[j]);
                }
              cn_box_clear (&yp);
            }
          cn_tensor_clear (&out);
        }
      if (have_in)
        cn_tensor_clear (&in);
      cn_box_clear (&yb);
      cn_box_clear (&box);
      cn_box_clear (&pt);
      cn_graph_free (g);
      cn__cert_case_clear (&cc);
      if (st != CN_OK)
        return st;
      if (fail[0])
        {
          res->passed = 0;
          snprintf (res->detail, sizeof res->detail, "%s", fail);
          return CN_OK;
        }
      if (redraw)
        res->redrawn++;
      else
        res->exercised |= info->inputs;
    }
  res->passed = res->checks > 0;
  snprintf (res->detail, sizeof res->detail, "%lld binary32 outputs inside their point and box enclosures",
            (long long) res->checks);
  if (res->checks == 0)
    snprintf (res->detail, sizeof res->detail, "no instance could be checked (%lld drawn again)",
              (long long) res->redrawn);
  return CN_OK;
}
