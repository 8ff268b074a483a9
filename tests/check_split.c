/* SPDX-License-Identifier: MIT */
/* tests/check_split.c: analyses of branch-and-bound domains (cn_analysis_create_split) on
 * generated relu networks x -> dense -> z1 -> relu -> dense -> z2 -> relu -> dense -> y.
 *
 * 1. Soundness: random sign splits on entries of z1 and z2; every sampled input whose z1 and z2
 *    meet the splits (evaluated in binary64, kept only when each split entry is farther than
 *    1e-9 from 0) has its exact (MPFI) output inside the domain's CROWN bounds, and its z1, z2
 *    inside the domain's boxes; both with a prior analysis (the parent domain: one split fewer)
 *    and without, the child's boxes never wider than the parent's; and the child's
 *    alpha-beta-CROWN bounds (never looser than its CROWN ones).
 * 2. Empty domains: a split against an entry's settled sign is found infeasible (every lower
 *    bound +inf, the output box refused); a split on a constant, a bad index or a bad sign,
 *    and a prior over another input box or with a split the child lacks, are CN_EINVAL.
 * 3. beta-CROWN: on a domain where every sweep's concretisation over the box misses the split's
 *    constraint, the multiplier is found and the bound reaches the domain's true minimum; on a row
 *    the split cannot help, no multiplier lifts the bound above the true minimum.
 * 4. LP: over a domain whose relus are all split, the LP bound (cn_analysis_lower_lp) is at or
 *    below the exact minimum (the optimal vertex solved in rationals from the network's numbers) and within
 *    1e-6 of it; random multipliers in its place stay below it.
 * The seed is printed (CN_TEST_SEED reproduces a run). */
#include <config.h>
#include <check.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <glpk.h>
#include "testutil.h"
#include "lp/lp.h"

#define PREC 256
enum { N = 3, H = 10, M = 2, NS = 4 };

struct net
{
  cn_graph *g;
  int z1, z2, y;
};

static struct net
network (void)
{
  cn_error err;
  cn_error_clear (&err);
  struct net t;
  ck_assert (cn_graph_create (&t.g, &err) == CN_OK);
  cn_shape s = { .rank = 1, .dim = { N } };
  int x, r1, r2;
  ck_assert (cn_graph_add_input (t.g, "x", CN_DTYPE_F64, &s, &x, &err) == CN_OK);
  ck_assert (tu_linear_layer (t.g, x, N, H, &t.z1, &err) == CN_OK);
  ck_assert (cn_graph_add_node (t.g, CN_OP_RELU, NULL, 1, &t.z1, "r1", &r1, &err) == CN_OK);
  ck_assert (tu_linear_layer (t.g, r1, H, H, &t.z2, &err) == CN_OK);
  ck_assert (cn_graph_add_node (t.g, CN_OP_RELU, NULL, 1, &t.z2, "r2", &r2, &err) == CN_OK);
  ck_assert (tu_linear_layer (t.g, r2, H, M, &t.y, &err) == CN_OK);
  int outs[3] = { t.y, t.z1, t.z2 };
  ck_assert (cn_graph_set_outputs (t.g, 3, outs, &err) == CN_OK);
  return t;
}

static cn_box
unit_box (double r)
{
  cn_error err;
  cn_box b;
  ck_assert (cn_box_init (&b, N, &err) == CN_OK);
  for (int j = 0; j < N; j++)
    {
      b.lo[j] = -r;
      b.hi[j] = r;
    }
  return b;
}

/* The domain's bounds of y: lo[j] = lower (e_j y), hi[j] = -lower (-e_j y), by CROWN or (BETA)
 * alpha-beta-CROWN. */
static void
output_bounds (cn_analysis *a, int y, int beta, double *lo, double *hi)
{
  cn_error err;
  cn_error_clear (&err);
  double c[2 * M * M] = { 0 }, low[2 * M];
  for (int j = 0; j < M; j++)
    {
      c[(2 * j) * M + j] = 1;
      c[(2 * j + 1) * M + j] = -1;
    }
  double *theta = NULL;
  if (beta == 2)
    {
      /* random multipliers in [0, 2] after the alpha parameters (NaN: the arms' own); A runs
       * one sweep with them: sound whatever they are */
      int64_t width = cn_analysis_alpha_width (a, y);
      theta = malloc ((size_t) (2 * M * width) * sizeof *theta);
      ck_assert (theta != NULL);
      for (int64_t r = 0; r < 2 * M; r++)
        for (int64_t j = 0; j < width; j++)
          theta[r * width + j] = j < width - NS ? NAN : tu_uniform (0, 2);
    }
  if (beta)
    ck_assert_msg (cn_analysis_lower_alpha (a, y, c, 2 * M, NULL, theta, low, NULL, &err) == CN_OK, "%s", err.msg);
  else
    ck_assert_msg (cn_analysis_lower (a, y, c, 2 * M, low, &err) == CN_OK, "%s", err.msg);
  for (int j = 0; j < M; j++)
    {
      lo[j] = low[2 * j];
      hi[j] = -low[2 * j + 1];
    }
  free (theta);
}

/* Whether the binary64 values Z of the split entries meet SP with a margin. */
static int
meets (const cn_split *sp, int ns, const struct net *t, const double *z1, const double *z2)
{
  for (int q = 0; q < ns; q++)
    {
      double z = sp[q].value == t->z1 ? z1[sp[q].index] : z2[sp[q].index];
      if (!(sp[q].sign * z > 1e-9))
        return 0;
    }
  return 1;
}

START_TEST (sound_by_sampling)
{
  cn_error err;
  cn_error_clear (&err);
  struct net t = network ();
  cn_box box = unit_box (1);
  cn_bounds_opts o;
  cn_bounds_opts_init (&o);
  o.threads = 1;
  cn_analysis *root, *parent, *child, *alone;
  ck_assert (cn_analysis_create (t.g, &box, &o, &root, &err) == CN_OK);
  /* splits on unstable entries of z1 and z2 (root boxes), signs at random */
  cn_split sp[NS];
  int ns = 0;
  for (int pass = 0; pass < 2 && ns < NS; pass++)
    {
      int v = pass ? t.z2 : t.z1;
      const cn_box *b = cn_analysis_box (root, v);
      for (int64_t j = 0; j < b->n && ns < 2 * (pass + 1); j++)
        if (b->lo[j] < 0 && b->hi[j] > 0 && tu_uniform (0, 1) < 0.6)
          sp[ns++] = (cn_split) { .value = v, .index = j, .sign = tu_uniform (0, 1) < 0.5 ? 1 : -1 };
    }
  ck_assert_msg (ns >= 2, "too few unstable entries (CN_TEST_SEED=%lu)", tu_seed ());
  ck_assert_msg (cn_analysis_create_split (t.g, &box, &o, root, sp, ns - 1, &parent, &err) == CN_OK, "%s", err.msg);
  ck_assert_msg (cn_analysis_create_split (t.g, &box, &o, parent, sp, ns, &child, &err) == CN_OK, "%s", err.msg);
  /* the child with its boxes inherited from the parent (only the new split's entry clamped) */
  cn_analysis *inherited;
  o.inherit_boxes = 1;
  ck_assert_msg (cn_analysis_create_split (t.g, &box, &o, parent, sp, ns, &inherited, &err) == CN_OK, "%s", err.msg);
  o.inherit_boxes = 0;
  o.iterations = 1;
  ck_assert_msg (cn_analysis_create_split (t.g, &box, &o, NULL, sp, ns, &alone, &err) == CN_OK, "%s", err.msg);
  /* the child's bounds by CROWN, without the prior by CROWN, by alpha-beta-CROWN (the
   * multipliers of the splits optimised with the relus' slopes), and by one sweep with random
   * multipliers (with NS splits) */
  cn_analysis *doms[4] = { child, alone, child, alone };
  static const char *name[4] = { "with prior", "without prior", "alpha-beta", "random beta" };
  double lo[4][M], hi[4][M];
  int infeasible = cn_analysis_infeasible (child), better = 0, nd = ns == NS ? 4 : 3;
  ck_assert_int_eq (infeasible, cn_analysis_infeasible (alone) || infeasible);
  for (int d = 0; d < nd && !infeasible; d++)
    output_bounds (doms[d], t.y, d < 2 ? 0 : d - 1, lo[d], hi[d]);
  /* inherited: the parent's boxes, the splits' entries clamped, nothing else changed; so the
   * child's (recomputed and intersected) lie inside them */
  double lo_inh[M], hi_inh[M];
  int inh_infeasible = cn_analysis_infeasible (inherited);
  ck_assert (!inh_infeasible || infeasible);
  if (!inh_infeasible)
    output_bounds (inherited, t.y, 0, lo_inh, hi_inh);
  for (int w = 0; w < cn_graph_n_values (t.g) && !infeasible; w++)
    {
      const cn_box *bi = cn_analysis_box (inherited, w), *bp = cn_analysis_box (parent, w),
                   *bc = cn_analysis_box (child, w);
      for (int64_t j = 0; j < bi->n; j++)
        {
          double plo = bp->lo[j], phi = bp->hi[j];
          for (int q = 0; q < ns; q++)
            if (sp[q].value == w && sp[q].index == j)
              {
                plo = sp[q].sign > 0 ? fmax (plo, 0) : plo;
                phi = sp[q].sign < 0 ? fmin (phi, 0) : phi;
              }
          ck_assert_msg (bi->lo[j] == plo && bi->hi[j] == phi, "inherited: value %d entry %lld is not the parent's "
                         "box clamped by the splits", w, (long long) j);
          ck_assert (bc->lo[j] >= bi->lo[j] && bc->hi[j] <= bi->hi[j]);
        }
    }
  for (int j = 0; j < M && !infeasible; j++)
    {
      /* keep-best: never worse than the first sweep, CROWN's */
      ck_assert (lo[2][j] >= lo[0][j] && hi[2][j] <= hi[0][j]);
      better += (lo[2][j] > lo[0][j]) + (hi[2][j] < hi[0][j]);
    }
  /* the child's boxes inside the parent's */
  for (int w = 0; w < cn_graph_n_values (t.g) && !infeasible; w++)
    {
      const cn_box *bc = cn_analysis_box (child, w), *bp = cn_analysis_box (parent, w);
      for (int64_t j = 0; j < bc->n; j++)
        ck_assert_msg (bc->lo[j] >= bp->lo[j] && bc->hi[j] <= bp->hi[j], "value %d entry %lld wider than its parent's",
                       w, (long long) j);
    }
  int kept = 0;
  for (int k = 0; k < 4000 && !infeasible; k++)
    {
      double x[N], y[M], z1[H], z2[H];
      for (int j = 0; j < N; j++)
        x[j] = tu_uniform (box.lo[j], box.hi[j]);
      cn_shape s = { .rank = 1, .dim = { N } };
      cn_tensor in, out[3];
      ck_assert (cn_tensor_init (&in, CN_DTYPE_F64, &s, &err) == CN_OK);
      memcpy (in.data, x, sizeof x);
      ck_assert (cn_graph_eval (t.g, CN_DTYPE_F64, &in, out, &err) == CN_OK);
      memcpy (y, out[0].data, sizeof y);
      memcpy (z1, out[1].data, sizeof z1);
      memcpy (z2, out[2].data, sizeof z2);
      for (int i = 0; i < 3; i++)
        cn_tensor_clear (&out[i]);
      cn_tensor_clear (&in);
      if (!meets (sp, ns, &t, z1, z2))
        continue;
      kept++;
      cn_mpfi_vec ye;
      ck_assert (tu_eval_mpfi (t.g, x, PREC, &ye, &err) == CN_OK);
      for (int d = 0; d < nd; d++)
        {
          for (int j = 0; j < M; j++)
            ck_assert_msg (mpfr_cmp_d (&ye.v[j]->left, lo[d][j]) >= 0 && mpfr_cmp_d (&ye.v[j]->right, hi[d][j]) <= 0,
                           "%s: y%d of a point of the domain escapes [%.17g, %.17g] (CN_TEST_SEED=%lu)",
                           name[d], j, lo[d][j], hi[d][j], tu_seed ());
          if (d == 0)
            for (int j = 0; j < M; j++)
              ck_assert_msg (mpfr_cmp_d (&ye.v[j]->left, lo_inh[j]) >= 0 && mpfr_cmp_d (&ye.v[j]->right, hi_inh[j]) <= 0,
                             "inherited boxes: y%d of a point of the domain escapes [%.17g, %.17g] (CN_TEST_SEED=%lu)",
                             j, lo_inh[j], hi_inh[j], tu_seed ());
          const cn_box *b1 = cn_analysis_box (doms[d], t.z1), *b2 = cn_analysis_box (doms[d], t.z2);
          for (int j = 0; j < H; j++)
            ck_assert_msg (z1[j] >= b1->lo[j] - 1e-9 && z1[j] <= b1->hi[j] + 1e-9 && z2[j] >= b2->lo[j] - 1e-9
                           && z2[j] <= b2->hi[j] + 1e-9, "entry %d of z1 or z2 escapes the domain's box "
                           "(CN_TEST_SEED=%lu)", j, tu_seed ());
        }
      cn_mpfi_vec_clear (&ye);
    }
  /* a domain with no sample is likelier empty; one with samples is not */
  if (kept > 0)
    ck_assert_msg (!infeasible, "a domain with %d points found infeasible (CN_TEST_SEED=%lu)", kept, tu_seed ());
  fprintf (stderr, "split domain %d: %d splits, %d sampled points inside, %s, alpha-beta tighter on %d of %d ends\n",
           _i, ns, kept, infeasible ? "infeasible" : "sound", better, 2 * M);
  cn_analysis_free (alone);
  cn_analysis_free (inherited);
  cn_analysis_free (child);
  cn_analysis_free (parent);
  cn_analysis_free (root);
  cn_box_clear (&box);
  cn_graph_free (t.g);
}
END_TEST

/* x in [-1, 1]^2, z = x0 - x1, y = relu (z), on the domain z >= 0 (and z <= 0): every sweep
 * concretises over the whole box, so CROWN's lower bound of y (relu active: y >= z) is min (x0 -
 * x1) = -2 and of -z on z <= 0 also -2, though both are >= 0 on their domains.  beta-CROWN's
 * multiplier of the split, beta (1 - beta)(x0 - x1), is best at beta = 1 (bound 0): the
 * optimisation must come near it, and every bound stays below the true minimum 0. */
START_TEST (beta_uses_the_split)
{
  cn_error err;
  cn_error_clear (&err);
  cn_graph *g;
  ck_assert (cn_graph_create (&g, &err) == CN_OK);
  cn_shape s2 = { .rank = 1, .dim = { 2 } };
  int x, z, y;
  static const double w[2] = { 1, -1 }, b[1] = { 0 };
  ck_assert (cn_graph_add_input (g, "x", CN_DTYPE_F64, &s2, &x, &err) == CN_OK);
  ck_assert (tu_dense_layer (g, x, 2, 1, w, b, &z, &err) == CN_OK);
  ck_assert (cn_graph_add_node (g, CN_OP_RELU, NULL, 1, &z, "y", &y, &err) == CN_OK);
  int outs[2] = { y, z };
  ck_assert (cn_graph_set_outputs (g, 2, outs, &err) == CN_OK);
  cn_box box;
  ck_assert (cn_box_init (&box, 2, &err) == CN_OK);
  box.lo[0] = box.lo[1] = -1;
  box.hi[0] = box.hi[1] = 1;
  cn_bounds_opts o;
  cn_bounds_opts_init (&o);
  o.threads = 1;
  o.iterations = 60;
  o.patience = 0;
  o.lr_beta = 0.1;
  for (int sign = 1; sign >= -1; sign -= 2)
    {
      cn_split sp = { .value = z, .index = 0, .sign = sign };
      cn_analysis *a;
      ck_assert_msg (cn_analysis_create_split (g, &box, &o, NULL, &sp, 1, &a, &err) == CN_OK, "%s", err.msg);
      int v = sign > 0 ? y : z;
      double c = sign > 0 ? 1 : -1, crown, beta, theta[2] = { NAN, NAN };
      ck_assert_int_eq (cn_analysis_alpha_width (a, v), sign > 0 ? 2 : 1);   /* relu's slope (if reached), beta */
      ck_assert (cn_analysis_lower (a, v, &c, 1, &crown, &err) == CN_OK);
      ck_assert_msg (cn_analysis_lower_alpha (a, v, &c, 1, NULL, theta, &beta, NULL, &err) == CN_OK, "%s", err.msg);
      double b = theta[cn_analysis_alpha_width (a, v) - 1];
      fprintf (stderr, "beta on split z %s 0: CROWN %.6g, beta-CROWN %.6g (beta %.6g)\n", sign > 0 ? ">=" : "<=",
               crown, beta, b);
      ck_assert (crown <= -2 + 1e-9);
      ck_assert_msg (beta <= 0 && beta > -0.05, "beta-CROWN's bound %.17g (beta %.17g)", beta, b);
      ck_assert (b > 0.95 && b < 1.05);
      /* the other side, -s z (min -2 on the domain, at x = +-(1, -1)): no multiplier may lift it,
       * the start beta = 1 included */
      double c2 = -sign, th2 = 1, other;
      ck_assert_int_eq (cn_analysis_alpha_width (a, z), 1);
      ck_assert_msg (cn_analysis_lower_alpha (a, z, &c2, 1, NULL, &th2, &other, NULL, &err) == CN_OK, "%s", err.msg);
      ck_assert_msg (other <= -2, "-s z bounded by %.17g on the domain, above its minimum -2", other);
      cn_analysis_free (a);
    }
  cn_box_clear (&box);
  cn_graph_free (g);
}
END_TEST

/* The minimum of SG y_k over the domain where every z_j has sign SIGNS[j] (x -> z = W1 x + b1 ->
 * relu -> y = W2 relu (z) + b2, x in [-R, R]^N), exactly: GLPK's simplex on the LP in (x, z)
 * finds the optimal vertex (its N nonbasic columns: x_i at a bound, z_j at 0), which is then
 * solved again in rational arithmetic (GMP) from the network's own numbers, checked feasible,
 * and its objective rounded down.  That is the exact minimum when the basis is optimal (and an
 * upper bound of it anyway, the vertex being feasible).  +inf for an empty domain; NAN when the
 * vertex cannot be recovered (a singular system: skipped). */
static double
exact_minimum (const double *w1, const double *b1, const double *w2, const double *b2, const int *signs, int k,
               int sg, double r)
{
  enum { HH = 8 };
  glp_term_out (GLP_OFF);
  glp_prob *lp = glp_create_prob ();
  glp_set_obj_dir (lp, GLP_MIN);
  glp_add_cols (lp, N + HH);
  glp_add_rows (lp, HH);
  for (int i = 0; i < N; i++)
    glp_set_col_bnds (lp, i + 1, GLP_DB, -r, r);
  int ia[1 + HH * (N + 1)], ja[1 + HH * (N + 1)], nz = 0;
  double ar[1 + HH * (N + 1)];
  for (int j = 0; j < HH; j++)
    {
      /* z_j - W1_j x = b1_j, and the sign of z_j */
      glp_set_row_bnds (lp, j + 1, GLP_FX, b1[j], b1[j]);
      for (int i = 0; i < N; i++)
        {
          nz++;
          ia[nz] = j + 1, ja[nz] = i + 1, ar[nz] = -w1[j * N + i];
        }
      nz++;
      ia[nz] = j + 1, ja[nz] = N + j + 1, ar[nz] = 1;
      glp_set_col_bnds (lp, N + j + 1, signs[j] > 0 ? GLP_LO : GLP_UP, 0, 0);
      /* relu (z_j) = z_j where active, 0 where not */
      glp_set_obj_coef (lp, N + j + 1, signs[j] > 0 ? sg * w2[k * HH + j] : 0);
    }
  glp_load_matrix (lp, nz, ia, ja, ar);
  glp_smcp parm;
  glp_init_smcp (&parm);
  parm.msg_lev = GLP_MSG_OFF;
  ck_assert (glp_simplex (lp, &parm) == 0);
  int status = glp_get_status (lp);
  ck_assert (status == GLP_OPT || status == GLP_NOFEAS);
  if (status != GLP_OPT)
    {
      glp_delete_prob (lp);
      return INFINITY;
    }
  /* the vertex: N equations in x from the nonbasic columns, solved in rationals */
  mpq_t m[N][N + 1], f, t, y;
  for (int a = 0; a < N; a++)
    for (int b = 0; b <= N; b++)
      mpq_init (m[a][b]);
  mpq_inits (f, t, y, NULL);
  int ne = 0;
  for (int col = 1; col <= N + HH && ne < N; col++)
    {
      int stat = glp_get_col_stat (lp, col);
      if (stat == GLP_BS)
        continue;
      if (col <= N)
        {
          mpq_set_ui (m[ne][col - 1], 1, 1);        /* x_i = its bound */
          mpq_set_d (m[ne][N], stat == GLP_NU ? r : -r);
        }
      else
        {
          int j = col - N - 1;                      /* z_j = W1_j x + b1_j = 0 */
          for (int i = 0; i < N; i++)
            mpq_set_d (m[ne][i], w1[j * N + i]);
          mpq_set_d (m[ne][N], -b1[j]);
        }
      ne++;
    }
  glp_delete_prob (lp);
  double res = NAN;
  int singular = ne < N;
  for (int c = 0; c < N && !singular; c++)
    {
      int p = c;
      while (p < N && mpq_sgn (m[p][c]) == 0)
        p++;
      if (p == N)
        {
          singular = 1;
          break;
        }
      for (int b = 0; b <= N; b++)
        mpq_swap (m[c][b], m[p][b]);
      for (int a = 0; a < N; a++)
        if (a != c && mpq_sgn (m[a][c]) != 0)
          {
            mpq_div (f, m[a][c], m[c][c]);
            for (int b = 0; b <= N; b++)
              {
                mpq_mul (t, f, m[c][b]);
                mpq_sub (m[a][b], m[a][b], t);
              }
          }
    }
  if (!singular)
    {
      /* x_i = m[i][N] / m[i][i]; the vertex must be feasible; y = sg (b2_k + sum_active w2 z) */
      mpq_t x[N], z;
      for (int i = 0; i < N; i++)
        {
          mpq_init (x[i]);
          mpq_div (x[i], m[i][N], m[i][i]);
        }
      mpq_init (z);
      mpq_set_d (y, sg * b2[k]);
      int feasible = 1;
      for (int i = 0; i < N; i++)
        {
          mpq_set_d (t, r);
          feasible &= mpq_cmp (x[i], t) <= 0;
          mpq_neg (t, t);
          feasible &= mpq_cmp (x[i], t) >= 0;
        }
      for (int j = 0; j < HH; j++)
        {
          mpq_set_d (z, b1[j]);
          for (int i = 0; i < N; i++)
            {
              mpq_set_d (t, w1[j * N + i]);
              mpq_mul (t, t, x[i]);
              mpq_add (z, z, t);
            }
          feasible &= signs[j] * mpq_sgn (z) >= 0;
          if (signs[j] > 0)
            {
              mpq_set_d (t, sg * w2[k * HH + j]);
              mpq_mul (t, t, z);
              mpq_add (y, y, t);
            }
        }
      ck_assert_msg (feasible, "the exact vertex of GLPK's basis is not feasible (CN_TEST_SEED=%lu)", tu_seed ());
      /* rounded down: a double at or below the vertex's value */
      res = mpq_get_d (y);
      mpq_set_d (t, res);
      if (mpq_cmp (t, y) > 0)
        res = nextafter (res, -INFINITY);
      for (int i = 0; i < N; i++)
        mpq_clear (x[i]);
      mpq_clear (z);
    }
  for (int a = 0; a < N; a++)
    for (int b = 0; b <= N; b++)
      mpq_clear (m[a][b]);
  mpq_clears (f, t, y, NULL);
  return res;
}

/* The LP bound (cn_analysis_lower_lp) of a domain whose relus are all split: at or below the
 * domain's exact minimum (exact_minimum: the optimal vertex in rationals) and within
 * 1e-6 of it; alpha-beta-CROWN's bound and one sweep with the LP bound's inputs perturbed
 * (random multipliers) also at or below it.  The splits are the signs of z at a random point
 * (so the domain holds it), or with one sign flipped (a domain that may be empty). */
START_TEST (lp_bound_at_full_splits)
{
  enum { HH = 8 };
  cn_error err;
  cn_error_clear (&err);
  double w1[HH * N], b1[HH], w2[M * HH], b2[M], r = 0.5;
  for (int j = 0; j < HH * N; j++)
    w1[j] = tu_uniform (-1, 1);
  for (int j = 0; j < HH; j++)
    b1[j] = tu_uniform (-0.3, 0.3);
  for (int j = 0; j < M * HH; j++)
    w2[j] = tu_uniform (-1, 1);
  for (int j = 0; j < M; j++)
    b2[j] = tu_uniform (-0.3, 0.3);
  cn_graph *g;
  ck_assert (cn_graph_create (&g, &err) == CN_OK);
  cn_shape s = { .rank = 1, .dim = { N } };
  int x, z, rl, y;
  ck_assert (cn_graph_add_input (g, "x", CN_DTYPE_F64, &s, &x, &err) == CN_OK);
  ck_assert (tu_dense_layer (g, x, N, HH, w1, b1, &z, &err) == CN_OK);
  ck_assert (cn_graph_add_node (g, CN_OP_RELU, NULL, 1, &z, "r", &rl, &err) == CN_OK);
  ck_assert (tu_dense_layer (g, rl, HH, M, w2, b2, &y, &err) == CN_OK);
  ck_assert (cn_graph_set_outputs (g, 1, &y, &err) == CN_OK);
  cn_box box = unit_box (r);
  /* the signs of z at a random point, one flipped in odd runs */
  double x0[N];
  for (int i = 0; i < N; i++)
    x0[i] = tu_uniform (-r, r);
  int signs[HH];
  cn_split sp[HH];
  for (int j = 0; j < HH; j++)
    {
      double zj = b1[j];
      for (int i = 0; i < N; i++)
        zj += w1[j * N + i] * x0[i];
      signs[j] = zj >= 0 ? 1 : -1;
    }
  if (_i % 2)
    signs[(int) tu_int (0, HH - 1)] *= -1;
  for (int j = 0; j < HH; j++)
    sp[j] = (cn_split) { .value = z, .index = j, .sign = signs[j] };
  cn_bounds_opts o;
  cn_bounds_opts_init (&o);
  o.threads = 1;
  cn_analysis *a;
  ck_assert_msg (cn_analysis_create_split (g, &box, &o, NULL, sp, HH, &a, &err) == CN_OK, "%s", err.msg);
  double c[2 * M * M] = { 0 }, lp[2 * M], crown[2 * M], ab[2 * M], xl[2 * M * N];
  for (int k = 0; k < M; k++)
    {
      c[(2 * k) * M + k] = 1;
      c[(2 * k + 1) * M + k] = -1;
    }
  ck_assert (cn_analysis_lower (a, y, c, 2 * M, crown, &err) == CN_OK);
  ck_assert_msg (cn_analysis_lower_lp (a, y, c, 2 * M, lp, xl, &err) == CN_OK, "%s", err.msg);
  ck_assert_msg (cn_analysis_lower_alpha (a, y, c, 2 * M, NULL, NULL, ab, NULL, &err) == CN_OK, "%s", err.msg);
  int64_t width = cn_analysis_alpha_width (a, y);
  ck_assert_int_eq (width, cn_analysis_infeasible (a) ? HH : HH + HH);   /* relu's slopes (if reached), the betas */
  /* one sweep with random multipliers (the LP's perturbed), from an analysis running one */
  cn_analysis *a1;
  o.iterations = 1;
  ck_assert (cn_analysis_create_split (g, &box, &o, NULL, sp, HH, &a1, &err) == CN_OK);
  double *theta = malloc ((size_t) (2 * M * width) * sizeof *theta), pert[2 * M];
  for (int64_t q = 0; q < 2 * M * width; q++)
    theta[q] = q % width < width - HH ? NAN : tu_uniform (0, 3);
  ck_assert (cn_analysis_lower_alpha (a1, y, c, 2 * M, NULL, theta, pert, NULL, &err) == CN_OK);
  free (theta);
  for (int row = 0; row < 2 * M; row++)
    {
      int k = row / 2, sg = row % 2 ? -1 : 1;
      double ex = exact_minimum (w1, b1, w2, b2, signs, k, sg, r);
      if (isnan (ex))
        continue;                   /* a degenerate vertex: no exact value */
      if (cn_analysis_infeasible (a))
        ck_assert (lp[row] == INFINITY);
      ck_assert_msg (lp[row] <= ex && ab[row] <= ex && pert[row] <= ex && crown[row] <= ex,
                     "row %d: LP %.17g, alpha-beta %.17g, perturbed %.17g, CROWN %.17g above the exact minimum %.17g "
                     "(CN_TEST_SEED=%lu)", row, lp[row], ab[row], pert[row], crown[row], ex, tu_seed ());
      if (isfinite (ex))
        ck_assert_msg (lp[row] >= ex - 1e-6 * (1 + fabs (ex)), "row %d: LP bound %.17g, exact minimum %.17g "
                       "(CN_TEST_SEED=%lu)", row, lp[row], ex, tu_seed ());
      ck_assert (lp[row] >= crown[row]);
      if (row == 0)
        fprintf (stderr, "LP bound over %d full splits%s: %.12g, exact %.12g, alpha-beta %.12g, CROWN %.12g\n", HH,
                 _i % 2 ? " (one flipped)" : "", lp[row], ex, ab[row], crown[row]);
    }
  cn_analysis_free (a1);
  cn_analysis_free (a);
  cn_box_clear (&box);
  cn_graph_free (g);
}
END_TEST

/* The LP solver (src/lp): min x s.t. -x <= -0.5 over [-1, 1] has its optimum 0.5 at x = 0.5 and
 * multiplier 1; the elastic form of an infeasible one (x >= 2) pays the penalty, its multiplier
 * the penalty; a NaN is refused, a program too large is unsupported, nothing crashes. */
START_TEST (lp_solver)
{
  cn_error err;
  cn_error_clear (&err);
  double obj = 1, a = -1, b = -0.5, lo = -1, hi = 1, mu, x, opt;
  ck_assert_msg (cn__lp_solve (1, 1, &obj, &a, &b, &lo, &hi, 100, &mu, &x, &opt, &err) == CN_OK, "%s", err.msg);
  ck_assert (fabs (opt - 0.5) < 1e-12 && fabs (x - 0.5) < 1e-12 && fabs (mu - 1) < 1e-12);
  b = -2;
  ck_assert (cn__lp_solve (1, 1, &obj, &a, &b, &lo, &hi, 100, &mu, &x, &opt, &err) == CN_OK);
  ck_assert (fabs (mu - 100) < 1e-9 && fabs (x - 1) < 1e-12);
  double nan_obj = NAN;
  ck_assert_int_eq (cn__lp_solve (1, 1, &nan_obj, &a, &b, &lo, &hi, 100, &mu, &x, &opt, &err), CN_EINVAL);
  cn_error_clear (&err);
  ck_assert_int_eq (cn__lp_solve (1, 1, &obj, &a, &b, &lo, &hi, INFINITY, &mu, &x, &opt, &err), CN_EINVAL);
  cn_error_clear (&err);
  ck_assert_int_eq (cn__lp_solve (1 << 20, 1 << 19, &obj, &a, &b, &lo, &hi, 100, &mu, &x, &opt, &err),
                    CN_EUNSUPPORTED);
  cn_error_clear (&err);
  /* no rows: the box's minimising corner */
  obj = -3;
  ck_assert (cn__lp_solve (1, 0, &obj, NULL, NULL, &lo, &hi, 100, NULL, &x, &opt, &err) == CN_OK);
  ck_assert (x == 1 && opt == -3);
}
END_TEST

START_TEST (empty_and_bad_domains)
{
  cn_error err;
  cn_error_clear (&err);
  struct net t = network ();
  cn_box box = unit_box (0.3);
  cn_bounds_opts o;
  cn_bounds_opts_init (&o);
  o.threads = 1;
  cn_analysis *root, *a;
  ck_assert (cn_analysis_create (t.g, &box, &o, &root, &err) == CN_OK);
  ck_assert_int_eq (cn_analysis_infeasible (root), 0);
  /* a settled entry of z1 split against its sign */
  const cn_box *b = cn_analysis_box (root, t.z1);
  int64_t j = 0;
  while (j < b->n && !(b->lo[j] > 0 || b->hi[j] < 0))
    j++;
  if (j < b->n)
    {
      cn_split sp = { .value = t.z1, .index = j, .sign = b->lo[j] > 0 ? -1 : 1 };
      ck_assert (cn_analysis_create_split (t.g, &box, &o, root, &sp, 1, &a, &err) == CN_OK);
      ck_assert_int_eq (cn_analysis_infeasible (a), 1);
      double c[M] = { 1 }, low;
      ck_assert (cn_analysis_lower (a, t.y, c, 1, &low, &err) == CN_OK);
      ck_assert (low == INFINITY);
      cn_box ob;
      ck_assert_int_eq (cn_analysis_output_box (a, &ob, &err), CN_EINVAL);
      cn_error_clear (&err);
      cn_analysis_free (a);
    }
  /* bad splits */
  cn_split bad[3] = { { .value = t.z1, .index = H, .sign = 1 }, { .value = t.z1, .index = 0, .sign = 0 },
                      { .value = cn_graph_n_values (t.g), .index = 0, .sign = 1 } };
  for (int q = 0; q < 3; q++)
    {
      ck_assert_int_eq (cn_analysis_create_split (t.g, &box, &o, NULL, &bad[q], 1, &a, &err), CN_EINVAL);
      cn_error_clear (&err);
    }
  /* a prior over a box the child's leaves, or with a split the child lacks */
  cn_split s1 = { .value = t.z2, .index = 1, .sign = 1 };
  cn_analysis *p1;
  ck_assert (cn_analysis_create_split (t.g, &box, &o, NULL, &s1, 1, &p1, &err) == CN_OK);
  ck_assert_int_eq (cn_analysis_create_split (t.g, &box, &o, p1, NULL, 0, &a, &err), CN_EINVAL);
  cn_error_clear (&err);
  cn_box wide = unit_box (0.5);
  ck_assert_int_eq (cn_analysis_create_split (t.g, &wide, &o, root, NULL, 0, &a, &err), CN_EINVAL);
  cn_error_clear (&err);
  cn_box_clear (&wide);
  cn_analysis_free (p1);
  cn_analysis_free (root);
  cn_box_clear (&box);
  cn_graph_free (t.g);
}
END_TEST

int
main (void)
{
  tu_init ();
  Suite *s = suite_create ("split");
  TCase *tc = tcase_create ("domains");
  tcase_set_timeout (tc, 120);
  tcase_add_loop_test (tc, sound_by_sampling, 0, 40);
  tcase_add_loop_test (tc, empty_and_bad_domains, 0, 8);
  tcase_add_test (tc, beta_uses_the_split);
  tcase_add_loop_test (tc, lp_bound_at_full_splits, 0, 24);
  tcase_add_test (tc, lp_solver);
  suite_add_tcase (s, tc);
  return tu_run_suite (s);
}
