/* SPDX-License-Identifier: MIT */
/* src/io/onnx/resize.c: ONNX's resizing (Upsample, Resize) onto data movement and products with a
 * constant operand: reshape, broadcast, slice, gather (constant indices), pad, permute, linear
 * (a constant weight) and div (a constant divisor).  Every one of them has a CROWN arm that is
 * exact (data movement) or affine with a constant operand, so the bounds stay those of the
 * interpolation itself.
 *
 * Resizing is separable: output y[o_0, ..., o_{r-1}] = sum over the terms of every axis of
 * prod_a c_a(o_a, k_a) x[q_a(o_a, k_a), ...], so the node is a chain of one map per axis, each
 * acting on its axis only (the maps commute in real arithmetic; nearest maps are exact moves).
 * For axis a with input extent n, output extent m, scale s and output width W = s n (a
 * rational: the scales entry is a binary32 number, read exactly; with sizes, s = m / n and W = m):
 *
 *   Coordinates (ONNX's reference implementation, onnx/reference/ops/op_resize.py, computed here
 *   exactly in rationals: GMP's mpq) of output position x in [0, m):
 *     half_pixel            x_o = (x + 1/2) / s - 1/2
 *     half_pixel_symmetric  x_o = n/2 (1 - m / W) + (x + 1/2) / s - 1/2     (opset 19)
 *     pytorch_half_pixel    x_o = W == 1 ? -1/2 : (x + 1/2) / s - 1/2  (the text's 0 for W == 1
 *                                 selects the same entries)
 *     align_corners         x_o = W == 1 ? 0 : x (n - 1) / (W - 1)
 *     asymmetric            x_o = x / s
 *     tf_half_pixel_for_nn  x_o = (x + 1/2) / s                                 (opsets 11, 12)
 *     tf_crop_and_resize    x_o = (W == 1 ? (e - b) (n - 1) / 2 : x (e - b) (n - 1) / (W - 1))
 *                                 + b (n - 1), roi (b, e) of the axis; x_o outside [0, n - 1]
 *                                 gives the extrapolation value
 *   Upsample (opsets 7 and 9) and Resize-10 have no coordinate attribute: asymmetric, and for
 *   nearest the floor of x_o (ONNX Runtime's legacy mode: its truncation for x_o >= 0).
 *   The specification's text writes length_resized where the reference uses W in align_corners,
 *   tf_crop_and_resize and pytorch_half_pixel; where the two differ (W not the integer m, or m = 1
 *   with W != 1 for pytorch_half_pixel) the node is refused, as is a Resize-10 nearest
 *   downsampling whose x_o is not an integer (its rounding is not specified).
 *
 *   Neighbours and weights (the reference's _get_neighbor, _linear_coeffs, _nearest_coeffs):
 *   with r = 1 if x_o is an integer, else r = x_o - floor(x_o), the two neighbours of x_o are
 *   q0 = x_o - 1, q1 = x_o for an integer x_o and q0 = floor(x_o), q1 = q0 + 1 otherwise (the two
 *   indices nearest x_o among [-1, n], ties to the lower; beyond -1 or n the pair (-1, 0) or
 *   (n - 1, n)), and the coefficients (c0, c1) are
 *     linear   (1 - r, r);
 *     nearest  (0, 1) for an integer x_o, else by nearest_mode: round_prefer_floor (r <= 1/2,
 *              r > 1/2), round_prefer_ceil (r < 1/2, r >= 1/2), floor (1, 0), ceil (0, 1), read
 *              as Booleans.
 *   exclude_outside = 1 sets the coefficient of a neighbour outside [0, n) to 0 and divides both
 *   by their sum (a sum of 0, which the reference turns into NaN, is refused).  Then each
 *   neighbour is clamped into [0, n - 1] (the reference pads the data with its edge entries), two
 *   terms on one index are merged and a term of weight 0 is dropped (it contributes 0 for finite
 *   data): each output position of the axis has one term of weight 1 or two terms.
 *
 *   Lowering of one axis:
 *     - extrapolation (tf_crop_and_resize): the input gets one entry E appended on the axis (pad,
 *       value E), and an extrapolated position is the term (n, 1);
 *     - every position one term of weight 1 (every nearest map, and a linear one sampling the
 *       grid): an index map q(x).  The identity is skipped; q(x) = floor(x / k) with m = k n (an
 *       integer upsampling) is x reshaped to [..., n, 1, ...], broadcast to [..., n, k, ...] and
 *       reshaped to [..., k n, ...], for all such axes at once; q(x) = q(0) + t x (t >= 1) a
 *       slice; any other map a gather (torch.gather) whose index tensor holds q(x) at every
 *       [..., x, ...] (a folded constant).  All exact moves of any sort.
 *     - otherwise the axis is moved last (permute), multiplied by the constant matrix
 *       C[x, q] = sum of the weights of the terms (x, q) (linear, bias 0), and moved back.  Where
 *       every weight is a binary64 number C holds them; else C holds the integers D c for the
 *       least common denominator D of the axis's weights and a div by D follows, so the graph's
 *       value is the interpolation exactly (a weight or D beyond 2^53 is refused).
 *   The axes are mapped from the last to the first (the reference's order: inner axes first);
 *   integer upsamplings last.
 *
 * Output extents: sizes, or floor(n s) from scales (exact; refused where n s computed in
 * binary32, as runtimes compute it, has another floor), or with keep_aspect_ratio_policy
 * (opset 18; sizes on the listed axes) s = the least (not_larger) or greatest (not_smaller)
 * sizes[i] / n_i and m_i = floor(s n_i + 1/2).  The opset 18 and 19 attributes (axes,
 * keep_aspect_ratio_policy, antialias, half_pixel_symmetric) are read in any model, as
 * logic.c reads the opset-18 operators.  Refused: mode cubic, antialias = 1 (with a scale below
 * 1; above 1 it is the plain interpolation), scales, sizes or roi that are not constants, the
 * readings and extents above, Upsample scales below 1, tf_half_pixel_for_nn from opset 13, linear
 * interpolation and extrapolation of Booleans and words. */
#include <config.h>
#include <gmp.h>
#include <math.h>
#include <mpfr.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "graph/graph_impl.h"
#include "io/onnx/onnx_impl.h"

/* Sets st to an error of the node and jumps to the cleanup of the function (its label done). */
#define FAIL(...)                                                                                  \
  do                                                                                               \
    {                                                                                              \
      st = cn_error_set (nc->err, __VA_ARGS__);                                                    \
      goto done;                                                                                   \
    }                                                                                              \
  while (0)

enum ctm
{
  CTM_HALF_PIXEL, CTM_PYTORCH_HALF_PIXEL, CTM_ALIGN_CORNERS, CTM_ASYMMETRIC, CTM_TF_HALF_PIXEL_FOR_NN,
  CTM_TF_CROP_AND_RESIZE, CTM_HALF_PIXEL_SYMMETRIC
};
static const char *const ctm_names[] = { "half_pixel", "pytorch_half_pixel", "align_corners", "asymmetric",
                                         "tf_half_pixel_for_nn", "tf_crop_and_resize", "half_pixel_symmetric",
                                         NULL };

enum near { NEAR_ROUND_PREFER_FLOOR, NEAR_ROUND_PREFER_CEIL, NEAR_FLOOR, NEAR_CEIL };
static const char *const near_names[] = { "round_prefer_floor", "round_prefer_ceil", "floor", "ceil", NULL };

/* What one Upsample or Resize node asks for. */
struct resize
{
  int linear;                  /* mode linear, else nearest */
  enum ctm ctm;
  enum near near;
  int legacy;                  /* Upsample, Resize-10: asymmetric, floor; inexact downsampling refused */
  int exclude_outside;
  double extrapolation;
  int rank;
  int64_t n[CN_MAX_RANK], m[CN_MAX_RANK];
  mpq_t s[CN_MAX_RANK], w[CN_MAX_RANK];    /* the scale and the output width s n */
  mpq_t b[CN_MAX_RANK], e[CN_MAX_RANK];    /* the roi (tf_crop_and_resize) */
};

static void
resize_init (struct resize *rs)
{
  memset (rs, 0, sizeof *rs);
  for (int a = 0; a < CN_MAX_RANK; a++)
    {
      mpq_inits (rs->s[a], rs->w[a], rs->b[a], rs->e[a], NULL);
      mpq_set_ui (rs->s[a], 1, 1);
      mpq_set_ui (rs->e[a], 1, 1);
    }
}

static void
resize_clear (struct resize *rs)
{
  for (int a = 0; a < CN_MAX_RANK; a++)
    mpq_clears (rs->s[a], rs->w[a], rs->b[a], rs->e[a], NULL);
}

/* The map of one axis: output position x has the terms (q[2x], w[2x]) and, if w[2x + 1] != 0,
 * (q[2x + 1], w[2x + 1]); indices in [0, n + pad), index n the appended extrapolation entry. */
struct axis_map
{
  int64_t n, m;
  int pad;
  int64_t *q;
  mpq_t *w;
};

static void
map_clear (struct axis_map *mp)
{
  if (mp->w != NULL)
    for (int64_t k = 0; k < 2 * mp->m; k++)
      mpq_clear (mp->w[k]);
  free (mp->w);
  free (mp->q);
  memset (mp, 0, sizeof *mp);
}

/* floor(Q) as an int64 (Q is bounded by a few times the extents, far inside int64). */
static int64_t
q_floor (const mpq_t q, mpz_t t)
{
  mpz_fdiv_q (t, mpq_numref (q), mpq_denref (q));
  return mpz_get_si (t);
}

static int
q_is_int (const mpq_t q)
{
  return mpz_cmp_ui (mpq_denref (q), 1) == 0;
}

/* XO = the coordinate of output position X on axis A (the formulas above). */
static void
coordinate (const struct resize *rs, int a, int64_t x, mpq_t xo, mpq_t t, mpq_t u)
{
  int64_t n = rs->n[a];
  int w1 = mpq_cmp_ui (rs->w[a], 1, 1) == 0;
  switch (rs->ctm)
    {
    case CTM_HALF_PIXEL:
    case CTM_PYTORCH_HALF_PIXEL:
    case CTM_HALF_PIXEL_SYMMETRIC:
    case CTM_TF_HALF_PIXEL_FOR_NN:
      if (rs->ctm == CTM_PYTORCH_HALF_PIXEL && w1)
        {
          mpq_set_si (xo, -1, 2);
          return;
        }
      /* (x + 1/2) / s */
      mpq_set_si (t, 2 * x + 1, 2);
      mpq_div (xo, t, rs->s[a]);
      if (rs->ctm != CTM_TF_HALF_PIXEL_FOR_NN)
        {
          mpq_set_si (t, 1, 2);
          mpq_sub (xo, xo, t);
        }
      if (rs->ctm == CTM_HALF_PIXEL_SYMMETRIC)
        {
          /* + n/2 (1 - m / W) */
          mpq_set_si (t, rs->m[a], 1);
          mpq_div (t, t, rs->w[a]);
          mpq_set_ui (u, 1, 1);
          mpq_sub (t, u, t);
          mpq_set_si (u, n, 2);
          mpq_mul (t, t, u);
          mpq_add (xo, xo, t);
        }
      return;
    case CTM_ALIGN_CORNERS:
      if (w1)
        mpq_set_ui (xo, 0, 1);
      else
        {
          /* x (n - 1) / (W - 1) */
          mpq_set_ui (u, 1, 1);
          mpq_sub (u, rs->w[a], u);
          mpq_set_si (t, x * (n - 1), 1);
          mpq_div (xo, t, u);
        }
      return;
    case CTM_ASYMMETRIC:
      mpq_set_si (t, x, 1);
      mpq_div (xo, t, rs->s[a]);
      return;
    case CTM_TF_CROP_AND_RESIZE:
      /* (e - b) (n - 1) times 1/2 (W == 1) or x / (W - 1), plus b (n - 1) */
      mpq_sub (t, rs->e[a], rs->b[a]);
      mpq_set_si (u, n - 1, 1);
      mpq_mul (t, t, u);
      if (w1)
        mpq_set_si (u, 1, 2);
      else
        {
          mpq_set_ui (u, 1, 1);
          mpq_sub (u, rs->w[a], u);
          mpq_inv (u, u);
          mpq_set_si (xo, x, 1);
          mpq_mul (u, u, xo);
        }
      mpq_mul (xo, t, u);
      mpq_set_si (u, n - 1, 1);
      mpq_mul (t, rs->b[a], u);
      mpq_add (xo, xo, t);
      return;
    }
}

/* Builds the map of axis A into *MP (the rules above). */
static cn_status
build_map (cn__onnx_node *nc, const struct resize *rs, int a, struct axis_map *mp)
{
  int64_t n = rs->n[a], m = rs->m[a];
  memset (mp, 0, sizeof *mp);
  mp->n = n;
  mp->m = m;
  mp->q = calloc ((size_t) (2 * m), sizeof *mp->q);
  mp->w = malloc ((size_t) (2 * m) * sizeof *mp->w);
  if (mp->q == NULL || mp->w == NULL)
    {
      free (mp->q);
      free (mp->w);
      mp->q = NULL;
      mp->w = NULL;
      return cn__onnx_nomem (nc);
    }
  for (int64_t k = 0; k < 2 * m; k++)
    mpq_init (mp->w[k]);
  mpq_t xo, r, t, u, half;
  mpz_t z;
  mpq_inits (xo, r, t, u, half, NULL);
  mpz_init (z);
  mpq_set_si (half, 1, 2);
  cn_status st = CN_OK;
  for (int64_t x = 0; x < m && st == CN_OK; x++)
    {
      int64_t *q = mp->q + 2 * x;
      mpq_ptr c0 = mp->w[2 * x], c1 = mp->w[2 * x + 1];
      coordinate (rs, a, x, xo, t, u);
      if (rs->ctm == CTM_TF_CROP_AND_RESIZE)
        {
          mpq_set_si (t, n - 1, 1);
          if (mpq_sgn (xo) < 0 || mpq_cmp (xo, t) > 0)
            {
              /* now x_o is outside [0, n - 1]: the extrapolation value */
              q[0] = q[1] = n;
              mpq_set_ui (c0, 1, 1);
              mpq_set_ui (c1, 0, 1);
              mp->pad = 1;
              continue;
            }
        }
      int integral = q_is_int (xo);
      int64_t fl = q_floor (xo, z);
      if (integral)
        mpq_set_ui (r, 1, 1);
      else
        {
          mpq_set_si (t, fl, 1);
          mpq_sub (r, xo, t);
        }
      /* the two neighbours among [-1, n], as the reference's padded search picks them */
      if (mpq_cmp_si (xo, -1, 1) <= 0)
        q[0] = -1;                             /* x_o <= -1: (-1, 0) */
      else if (mpq_cmp_si (xo, n, 1) >= 0)
        q[0] = n - 1;                          /* x_o >= n: (n - 1, n) */
      else
        q[0] = integral ? fl - 1 : fl;
      q[1] = q[0] + 1;
      /* the coefficients */
      if (rs->linear)
        {
          mpq_set_ui (t, 1, 1);
          mpq_sub (c0, t, r);
          mpq_set (c1, r);
        }
      else
        {
          int second;
          if (integral)
            second = 1;
          else if (rs->legacy)
            {
              if (mpq_cmp_ui (rs->s[a], 1, 1) < 0)
                {
                  st = cn_error_set (nc->err, CN_EUNSUPPORTED, "nearest downsampling by %.9g on axis %d maps output "
                                     "position %lld to %.9g, whose rounding Resize-10 leaves open",
                                     mpq_get_d (rs->s[a]), a, (long long) x, mpq_get_d (xo));
                  break;
                }
              second = 0;                    /* floor */
            }
          else
            switch (rs->near)
              {
              case NEAR_ROUND_PREFER_FLOOR: second = mpq_cmp (r, half) > 0; break;
              case NEAR_ROUND_PREFER_CEIL: second = mpq_cmp (r, half) >= 0; break;
              case NEAR_FLOOR: second = 0; break;
              default: second = 1; break;
              }
          mpq_set_ui (c0, !second, 1);
          mpq_set_ui (c1, second, 1);
        }
      if (rs->exclude_outside)
        {
          if (q[0] < 0 || q[0] >= n)
            mpq_set_ui (c0, 0, 1);
          if (q[1] < 0 || q[1] >= n)
            mpq_set_ui (c1, 0, 1);
          mpq_add (t, c0, c1);
          if (mpq_sgn (t) == 0)
            {
              st = cn_error_set (nc->err, CN_EUNSUPPORTED, "exclude_outside = 1 leaves no weight at output position "
                                 "%lld of axis %d (its nearest entry is outside the input)", (long long) x, a);
              break;
            }
          mpq_div (c0, c0, t);
          mpq_div (c1, c1, t);
        }
      /* now c0 + c1 = 1; clamp (edge padding), merge, drop terms of weight 0 */
      for (int k = 0; k < 2; k++)
        q[k] = q[k] < 0 ? 0 : q[k] > n - 1 ? n - 1 : q[k];
      if (q[0] == q[1])
        {
          mpq_add (c0, c0, c1);
          mpq_set_ui (c1, 0, 1);
        }
      if (mpq_sgn (c0) == 0)
        {
          q[0] = q[1];
          mpq_swap (c0, c1);
        }
      if (mpq_sgn (c1) == 0)
        q[1] = q[0];
    }
  mpq_clears (xo, r, t, u, half, NULL);
  mpz_clear (z);
  if (st != CN_OK)
    map_clear (mp);
  return st;
}

/* Whether every position of MP has one term (of weight 1): an index map. */
static int
map_moves (const struct axis_map *mp)
{
  for (int64_t x = 0; x < mp->m; x++)
    if (mpq_sgn (mp->w[2 * x + 1]) != 0)
      return 0;
  return 1;
}

static int
map_identity (const struct axis_map *mp)
{
  if (mp->pad || mp->m != mp->n || !map_moves (mp))
    return 0;
  for (int64_t x = 0; x < mp->m; x++)
    if (mp->q[2 * x] != x)
      return 0;
  return 1;
}

/* The factor k of an integer upsampling q(x) = floor(x / k), m = k n; 0 if MP is not one. */
static int64_t
map_repeat (const struct axis_map *mp)
{
  if (mp->pad || mp->n < 1 || mp->m % mp->n != 0 || mp->m == mp->n || !map_moves (mp))
    return 0;
  int64_t k = mp->m / mp->n;
  for (int64_t x = 0; x < mp->m; x++)
    if (mp->q[2 * x] != x / k)
      return 0;
  return k;
}

/* ---- the nodes ------------------------------------------------------------------------------ */

/* *V = X with entry E appended on axis A (pad). */
static cn_status
pad_axis (cn__onnx_node *nc, int x, int a, double e, int *v)
{
  cn_params_pad p;
  char sfx[32];
  memset (&p, 0, sizeof p);
  p.rank = cn_graph_value_shape (nc->imp->g, x)->rank;
  p.end[a] = 1;
  p.value = e;
  snprintf (sfx, sizeof sfx, "axis%d_extrapolation", a);
  return cn__onnx_add1 (nc, CN_OP_PAD, &p, x, sfx, v);
}

/* *V = X with axis A mapped by the index map Q (M entries): a slice for an arithmetic
 * progression of step >= 1, else a gather with the constant index tensor. */
static cn_status
move_axis (cn__onnx_node *nc, int x, int a, const int64_t *q, int64_t m, int *v)
{
  cn_shape xs = *cn_graph_value_shape (nc->imp->g, x);
  char sfx[32];
  int64_t step = m >= 2 ? q[2] - q[0] : 1;
  int prog = step >= 1;
  for (int64_t k = 1; prog && k < m; k++)
    prog = q[2 * k] - q[2 * (k - 1)] == step;
  if (prog)
    {
      cn_params_slice p;
      memset (&p, 0, sizeof p);
      p.rank = xs.rank;
      for (int i = 0; i < xs.rank; i++)
        {
          p.stop[i] = xs.dim[i];
          p.step[i] = 1;
        }
      p.start[a] = q[0];
      p.stop[a] = q[2 * (m - 1)] + 1;
      p.step[a] = step;
      snprintf (sfx, sizeof sfx, "axis%d_slice", a);
      return cn__onnx_add1 (nc, CN_OP_SLICE, &p, x, sfx, v);
    }
  /* the index vector, reshaped to [1, .., m, .., 1] and broadcast to the output's shape (folded) */
  cn_shape vs, ls, gs = xs;
  cn_shape_make (&vs, 1, &m, NULL);
  memset (&ls, 0, sizeof ls);
  ls.rank = xs.rank;
  for (int i = 0; i < xs.rank; i++)
    ls.dim[i] = i == a ? m : 1;
  gs.dim[a] = m;
  cn_tensor idx;
  cn_status st = cn_tensor_init (&idx, CN_DTYPE_F64, &vs, nc->err);
  if (st != CN_OK)
    return st;
  for (int64_t k = 0; k < m; k++)
    ((double *) idx.data)[k] = (double) q[2 * k];
  int c, r, gi;
  cn_params_gather pg = { a };
  char s1[32], s2[32], s3[32];
  snprintf (s1, sizeof s1, "axis%d_index_list", a);
  snprintf (s2, sizeof s2, "axis%d_index_line", a);
  snprintf (s3, sizeof s3, "axis%d_indices", a);
  snprintf (sfx, sizeof sfx, "axis%d_gather", a);
  if ((st = cn__onnx_add_const (nc, &idx, s1, &c)) == CN_OK && (st = cn__onnx_reshape (nc, c, &ls, s2, &r)) == CN_OK
      && (st = cn__onnx_broadcast (nc, r, &gs, s3, &gi)) == CN_OK)
    st = cn__onnx_add2 (nc, CN_OP_GATHER, &pg, x, gi, sfx, v);
  cn_tensor_clear (&idx);
  return st;
}

/* Whether the rational Q is a binary64 number; then *D = it. */
static int
q_double (const mpq_t q, mpfr_t f, double *d)
{
  int inexact = mpfr_set_q (f, q, MPFR_RNDN);
  *d = mpfr_get_d (f, MPFR_RNDN);
  return inexact == 0 && isfinite (*d);
}

/* *V = X with axis A mapped by the interpolation matrix of MP (permute, linear, div, permute). */
static cn_status
interpolate_axis (cn__onnx_node *nc, int x, int a, const struct axis_map *mp, int *v)
{
  cn_graph *g = nc->imp->g;
  cn_shape xs = *cn_graph_value_shape (g, x);
  int r = xs.rank;
  int64_t n1 = xs.dim[a], m = mp->m;           /* n1 = n + pad */
  cn_status st = CN_OK;
  mpfr_t f;
  mpz_t den, lim;
  mpq_t t;
  mpfr_init2 (f, 53);
  mpz_inits (den, lim, NULL);
  mpq_init (t);
  mpz_set_ui (lim, 1);
  mpz_mul_2exp (lim, lim, 53);
  /* the weights as binary64 numbers, or D = lcm of their denominators and the integers D c */
  int exact = 1;
  double dummy;
  mpz_set_ui (den, 1);
  for (int64_t k = 0; k < 2 * m; k++)
    {
      exact &= q_double (mp->w[k], f, &dummy);
      mpz_lcm (den, den, mpq_denref (mp->w[k]));
    }
  if (!exact && mpz_cmp (den, lim) > 0)
    FAIL (CN_EUNSUPPORTED, "the interpolation weights of axis %d have no exact form in "
          "binary64 (their common denominator is above 2^53)", a);
  double d = exact ? 1.0 : mpz_get_d (den);
  cn_shape wsh;
  int64_t wd[2] = { m, n1 };
  cn_shape_make (&wsh, 2, wd, NULL);
  cn_tensor wt;
  if ((st = cn_tensor_init (&wt, CN_DTYPE_F64, &wsh, nc->err)) != CN_OK)
    goto done;
  double *W = wt.data;
  for (int64_t o = 0; o < m && st == CN_OK; o++)
    for (int k = 0; k < 2; k++)
      {
        mpq_ptr c = mp->w[2 * o + k];
        if (mpq_sgn (c) == 0)
          continue;
        double val;
        if (exact)
          q_double (c, f, &val);
        else
          {
            /* D c, an integer */
            mpq_set_z (t, den);
            mpq_mul (t, t, c);
            if (mpz_cmpabs (mpq_numref (t), lim) > 0)
              {
                st = cn_error_set (nc->err, CN_EUNSUPPORTED, "the interpolation weights of axis %d have no exact form "
                                   "in binary64 (a numerator is above 2^53)", a);
                break;
              }
            val = mpz_get_d (mpq_numref (t));
          }
        W[o * n1 + mp->q[2 * o + k]] += val;
      }
  /* now W[o, q] = c (or D c) for the terms (q, c) of position o, exactly */
  int perm[CN_MAX_RANK], y = x, wv, bv, lv, dv;
  char s1[32], s2[32], s3[32], s4[32], s5[32], s6[32];
  for (int i = 0; i < r; i++)
    perm[i] = i;
  perm[a] = r - 1;
  perm[r - 1] = a;
  cn_shape bs;
  cn_shape_make (&bs, 1, &m, NULL);
  snprintf (s1, sizeof s1, "axis%d_last", a);
  snprintf (s2, sizeof s2, "axis%d_weights", a);
  snprintf (s3, sizeof s3, "axis%d_bias", a);
  snprintf (s4, sizeof s4, "axis%d_interpolated", a);
  snprintf (s5, sizeof s5, "axis%d_denominator", a);
  snprintf (s6, sizeof s6, "axis%d_back", a);
  if (st == CN_OK && (st = cn__onnx_permute (nc, x, r, perm, s1, &y)) == CN_OK
      && (st = cn__onnx_add_const (nc, &wt, s2, &wv)) == CN_OK
      && (st = cn__onnx_fill (nc, CN_DTYPE_F64, &bs, 0.0, s3, &bv)) == CN_OK)
    {
      int in3[3] = { y, wv, bv };
      st = cn__onnx_add (nc, CN_OP_LINEAR, NULL, 3, in3, s4, &lv);
    }
  cn_tensor_clear (&wt);
  if (st == CN_OK && !exact)
    {
      cn_params_div pd = { CN_DIV_TRUE };
      int c;
      snprintf (s4, sizeof s4, "axis%d_divided", a);
      if ((st = cn__onnx_fill (nc, CN_DTYPE_F64, cn_graph_value_shape (g, lv), d, s5, &c)) == CN_OK)
        st = cn__onnx_add2 (nc, CN_OP_DIV, &pd, lv, c, s4, &dv);
      lv = dv;
    }
  if (st == CN_OK)
    st = cn__onnx_permute (nc, lv, r, perm, s6, v);
done:
  mpfr_clear (f);
  mpz_clears (den, lim, NULL);
  mpq_clear (t);
  return st;
}

/* The node's output: X resized as RS says. */
static cn_status
emit_resize (cn__onnx_node *nc, const struct resize *rs)
{
  cn_status st;
  int r = rs->rank, x;
  struct axis_map maps[CN_MAX_RANK];
  int64_t rep[CN_MAX_RANK];
  memset (maps, 0, sizeof maps);
  cn_dtype sort = cn__onnx_sort (nc, 0);
  /* the output's size is refused before the maps are allocated, and each axis's map (2 m
   * rationals, 32 bytes and up each) to the bytes the size limit allows: m <= limit / 8 */
  cn_shape ys = { .rank = r };
  for (int a = 0; a < r; a++)
    ys.dim[a] = rs->m[a];
  if ((st = cn_shape_check_limit (&ys, "the output", nc->err)) != CN_OK)
    return st;
  for (int a = 0; a < r; a++)
    if (rs->m[a] > cn_max_numel () / 8)
      return cn_error_set (nc->err, CN_ELIMIT, "output axis %d of %lld entries exceeds the size limit's %lld an axis",
                           a, (long long) rs->m[a], (long long) (cn_max_numel () / 8));
  for (int a = 0; a < r; a++)
    if ((st = build_map (nc, rs, a, &maps[a])) != CN_OK)
      goto done;
  int any = 0, n_rep = 0;
  for (int a = 0; a < r; a++)
    {
      rep[a] = map_repeat (&maps[a]);
      n_rep += rep[a] != 0;
      any |= !map_identity (&maps[a]);
      if (!cn_dtype_is_float (sort) && (maps[a].pad || !map_moves (&maps[a])))
        FAIL (CN_EUNSUPPORTED, "%s of %s values on axis %d is not supported (only the model's "
              "floating-point values)", maps[a].pad ? "extrapolation" : "linear interpolation",
              cn__onnx_sort_name (sort), a);
    }
  if (!any)
    {
      st = cn__onnx_out_alias (nc, 0, 0);
      goto done;
    }
  if (r + n_rep > CN_MAX_RANK)
    {
      /* no room for the joint reshape: those axes become gathers */
      for (int a = 0; a < r; a++)
        rep[a] = 0;
      n_rep = 0;
    }
  if ((st = cn__onnx_in (nc, 0, &x)) != CN_OK)
    goto done;
  /* the maps that are not integer upsamplings, last axis first */
  for (int a = r - 1; a >= 0; a--)
    {
      const struct axis_map *mp = &maps[a];
      if (rep[a] || map_identity (mp))
        continue;
      if (mp->pad && (st = pad_axis (nc, x, a, rs->extrapolation, &x)) != CN_OK)
        goto done;
      if (map_moves (mp))
        st = move_axis (nc, x, a, mp->q, mp->m, &x);
      else
        st = interpolate_axis (nc, x, a, mp, &x);
      if (st != CN_OK)
        goto done;
    }
  /* the integer upsamplings at once: [.., n_a, 1, ..] -> [.., n_a, k_a, ..] -> [.., k_a n_a, ..] */
  if (n_rep > 0)
    {
      cn_shape xs = *cn_graph_value_shape (nc->imp->g, x), p, q, u;
      memset (&p, 0, sizeof p);
      memset (&q, 0, sizeof q);
      u = xs;
      for (int a = 0; a < r; a++)
        {
          p.dim[p.rank++] = xs.dim[a];
          q.dim[q.rank++] = xs.dim[a];
          if (rep[a])
            {
              p.dim[p.rank++] = 1;
              q.dim[q.rank++] = rep[a];
              u.dim[a] = xs.dim[a] * rep[a];
            }
        }
      int s1, s2;
      if ((st = cn__onnx_reshape (nc, x, &p, "spread", &s1)) != CN_OK
          || (st = cn__onnx_broadcast (nc, s1, &q, "repeated", &s2)) != CN_OK
          || (st = cn__onnx_reshape (nc, s2, &u, "upsampled", &x)) != CN_OK)
        goto done;
    }
  st = cn__onnx_out (nc, 0, x, 1);
done:
  for (int a = 0; a < r; a++)
    map_clear (&maps[a]);
  return st;
}

/* ---- reading the node ----------------------------------------------------------------------- */

/* Sets the extents from the scales SC (one per axis): s = SC[a] exactly, m = floor(n s), refused
 * where a binary32 evaluation of n s has another floor. */
static cn_status
extents_from_scales (cn__onnx_node *nc, struct resize *rs, const double *sc)
{
  mpq_t t;
  mpz_t z;
  mpq_init (t);
  mpz_init (z);
  cn_status st = CN_OK;
  for (int a = 0; a < rs->rank && st == CN_OK; a++)
    {
      if (!(sc[a] > 0) || !isfinite (sc[a]))
        {
          st = cn_error_set (nc->err, CN_EINVAL, "scale %g on axis %d is not a positive number", sc[a], a);
          break;
        }
      mpq_set_d (rs->s[a], sc[a]);
      mpq_set_si (t, rs->n[a], 1);
      mpq_mul (rs->w[a], rs->s[a], t);
      if (mpq_get_d (rs->w[a]) > 0x1p40)
        {
          st = cn_error_set (nc->err, CN_EUNSUPPORTED, "the output extent on axis %d is too large", a);
          break;
        }
      /* m = floor(n s) exactly; n s in binary32 (as runtimes compute it) must have that floor */
      rs->m[a] = q_floor (rs->w[a], z);
      if (floorf ((float) sc[a] * (float) rs->n[a]) != (float) rs->m[a])
        st = cn_error_set (nc->err, CN_EUNSUPPORTED, "the output extent floor(%lld x %.9g) on axis %d is %lld, but "
                           "another value in binary32 (give sizes)", (long long) rs->n[a], sc[a], a,
                           (long long) rs->m[a]);
    }
  mpq_clear (t);
  mpz_clear (z);
  return st;
}

/* Checks the extents (>= 1, a representable output) and the readings where the specification's
 * text and its reference differ. */
static cn_status
check_extents (cn__onnx_node *nc, const struct resize *rs)
{
  int64_t total = 1;
  for (int a = 0; a < rs->rank; a++)
    {
      int64_t m = rs->m[a];
      if (m < 1 || m > CN__ONNX_GEOM_MAX || __builtin_mul_overflow (total, m, &total))
        return cn_error_set (nc->err, CN_EUNSUPPORTED, "output extent %lld on axis %d is not supported", (long long) m,
                             a);
      int w_is_m = mpq_cmp_si (rs->w[a], m, 1) == 0;
      if ((rs->ctm == CTM_ALIGN_CORNERS || rs->ctm == CTM_TF_CROP_AND_RESIZE) && !w_is_m)
        return cn_error_set (nc->err, CN_EUNSUPPORTED, "%s with scale %.9g on axis %d: the output extent %lld is not "
                             "extent x scale, where the specification and its reference implementation disagree "
                             "(give sizes)", ctm_names[rs->ctm], mpq_get_d (rs->s[a]), a, (long long) m);
      if (rs->ctm == CTM_PYTORCH_HALF_PIXEL && m == 1 && !w_is_m)
        return cn_error_set (nc->err, CN_EUNSUPPORTED, "pytorch_half_pixel with scale %.9g on axis %d: an output "
                             "extent of 1 from a width of %.9g, where the specification and its reference "
                             "implementation disagree (give sizes)", mpq_get_d (rs->s[a]), a, mpq_get_d (rs->w[a]));
    }
  if (total > ((int64_t) 1 << 32))
    return cn_error_set (nc->err, CN_EUNSUPPORTED, "the output has %lld entries (too many)", (long long) total);
  return CN_OK;
}

static cn_status
mode_of (cn__onnx_node *nc, struct resize *rs)
{
  static const char *const modes[] = { "nearest", "linear", "cubic", NULL };
  int mode;
  cn_status st = cn__onnx_attr_choice (nc, "mode", "nearest", modes, &mode);
  if (st == CN_OK && mode == 2)
    st = cn_error_set (nc->err, CN_EUNSUPPORTED, "mode 'cubic' is not supported (nearest and linear are)");
  rs->linear = mode == 1;
  return st;
}

/* Upsample: opset 7 (and 8) with the scales attribute, opset 9 with the constant scales input;
 * asymmetric coordinates, nearest as floor, scales >= 1. */
static cn_status
op_upsample (cn__onnx_node *nc)
{
  struct resize rs;
  double sc[CN_MAX_RANK];
  int n = -1;
  cn_status st;
  resize_init (&rs);
  if ((st = cn__onnx_need (nc, 0)) != CN_OK || (st = mode_of (nc, &rs)) != CN_OK)
    goto done;
  const cn_shape *xs = cn__onnx_shape (nc, 0);
  rs.rank = xs->rank;
  rs.legacy = 1;
  rs.ctm = CTM_ASYMMETRIC;
  rs.near = NEAR_FLOOR;
  const Onnx__AttributeProto *at = cn__onnx_attr (nc, "scales");
  if (nc->imp->opset < 9)
    {
      if (at == NULL || !cn__onnx_attr_is (at, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOATS))
        FAIL (CN_EPARSE, "the attribute scales (a list of floats) is missing");
      if (at->n_floats > CN_MAX_RANK)
        FAIL (CN_EINVAL, "attribute 'scales' has %zu entries, at most %d expected", at->n_floats, CN_MAX_RANK);
      n = (int) at->n_floats;
      for (int a = 0; a < n; a++)
        sc[a] = at->floats[a];
    }
  else
    {
      if (at != NULL)
        FAIL (CN_EUNSUPPORTED, "attribute scales is not supported from opset 9 (scales is input 1)");
      if ((st = cn__onnx_need (nc, 1)) != CN_OK
          || (st = cn__onnx_const_floats (nc, 1, "scales", sc, CN_MAX_RANK, &n)) != CN_OK)
        goto done;
    }
  if (n != rs.rank)
    FAIL (CN_EINVAL, "scales has %d entries for rank %d", n, rs.rank);
  for (int a = 0; a < n; a++)
    {
      rs.n[a] = xs->dim[a];
      if (!(sc[a] >= 1))
        FAIL (CN_EINVAL, "scale %g on axis %d is below 1 (Upsample takes scales >= 1)", sc[a], a);
    }
  if ((st = extents_from_scales (nc, &rs, sc)) != CN_OK || (st = check_extents (nc, &rs)) != CN_OK)
    goto done;
  st = emit_resize (nc, &rs);
done:
  resize_clear (&rs);
  return st;
}

/* Resize: opset 10 (X, scales; asymmetric), opsets 11 to 19 (X, roi, scales, sizes and the
 * coordinate attributes). */
static cn_status
op_resize (cn__onnx_node *nc)
{
  static const char *const policies[] = { "stretch", "not_larger", "not_smaller", NULL };
  struct resize rs;
  double sc[CN_MAX_RANK], roi[2 * CN_MAX_RANK];
  int64_t sz[CN_MAX_RANK], ax[CN_MAX_RANK], antialias = 0, excl = 0;
  int ns = 0, nz = 0, na = -1, nr = 0, ctm = CTM_HALF_PIXEL, near = 0, policy = 0;
  cn_status st;
  resize_init (&rs);
  if ((st = cn__onnx_need (nc, 0)) != CN_OK || (st = mode_of (nc, &rs)) != CN_OK)
    goto done;
  const cn_shape *xs = cn__onnx_shape (nc, 0);
  int r = rs.rank = xs->rank;
  for (int a = 0; a < r; a++)
    rs.n[a] = xs->dim[a];
  if (nc->imp->opset < 11)
    {
      for (size_t k = 0; k < nc->np->n_attribute; k++)
        if (strcmp (nc->np->attribute[k]->name, "mode") != 0)
          FAIL (CN_EUNSUPPORTED, "attribute '%s' is not part of Resize-10", nc->np->attribute[k]->name);
      rs.legacy = 1;
      rs.ctm = CTM_ASYMMETRIC;
      rs.near = NEAR_FLOOR;
      if ((st = cn__onnx_need (nc, 1)) != CN_OK
          || (st = cn__onnx_const_floats (nc, 1, "scales", sc, CN_MAX_RANK, &ns)) != CN_OK)
        goto done;
      if (ns != r)
        FAIL (CN_EINVAL, "scales has %d entries for rank %d", ns, r);
      if ((st = extents_from_scales (nc, &rs, sc)) != CN_OK || (st = check_extents (nc, &rs)) != CN_OK)
        goto done;
      st = emit_resize (nc, &rs);
      goto done;
    }
  if ((st = cn__onnx_attr_choice (nc, "coordinate_transformation_mode", "half_pixel", ctm_names, &ctm)) != CN_OK
      || (st = cn__onnx_attr_choice (nc, "nearest_mode", "round_prefer_floor", near_names, &near)) != CN_OK
      || (st = cn__onnx_attr_choice (nc, "keep_aspect_ratio_policy", "stretch", policies, &policy)) != CN_OK
      || (st = cn__onnx_attr_int (nc, "antialias", 0, &antialias)) != CN_OK
      || (st = cn__onnx_attr_int (nc, "exclude_outside", 0, &excl)) != CN_OK
      || (st = cn__onnx_attr_float (nc, "extrapolation_value", 0.0, &rs.extrapolation)) != CN_OK
      || (st = cn__onnx_attr_ints (nc, "axes", ax, CN_MAX_RANK, &na)) != CN_OK)
    goto done;
  rs.ctm = (enum ctm) ctm;
  rs.near = (enum near) near;
  rs.exclude_outside = excl != 0;
  if (ctm == CTM_TF_HALF_PIXEL_FOR_NN && nc->imp->opset >= 13)
    FAIL (CN_EUNSUPPORTED, "coordinate_transformation_mode 'tf_half_pixel_for_nn' is not part of Resize from opset 13");
  if (!isfinite (rs.extrapolation))
    FAIL (CN_EUNSUPPORTED, "attribute extrapolation_value = %g is not finite", rs.extrapolation);
  /* the axes the scales, sizes and roi speak of: AXES (opset 18), else all */
  int axis_of[CN_MAX_RANK];
  uint32_t seen = 0;
  if (na < 0)
    {
      na = r;
      for (int i = 0; i < r; i++)
        axis_of[i] = i;
    }
  else
    for (int i = 0; i < na; i++)
      {
        if ((st = cn__onnx_axis (nc, ax[i], r, "axis", &axis_of[i])) != CN_OK)
          goto done;
        if (seen & (1u << axis_of[i]))
          FAIL (CN_EINVAL, "axis %d is repeated", axis_of[i]);
        seen |= 1u << axis_of[i];
      }
  /* scales (input 2) and sizes (input 3): exactly one, empty tensors counting as absent */
  if (cn__onnx_has (nc, 2) && (st = cn__onnx_const_floats (nc, 2, "scales", sc, CN_MAX_RANK, &ns)) != CN_OK)
    goto done;
  if (cn__onnx_has (nc, 3) && (st = cn__onnx_const_ints (nc, 3, "sizes", sz, CN_MAX_RANK, &nz)) != CN_OK)
    goto done;
  if ((ns > 0) == (nz > 0))
    FAIL (CN_EINVAL, ns > 0 ? "both scales and sizes are given" : "neither scales nor sizes is given");
  if ((ns > 0 ? ns : nz) != na)
    FAIL (CN_EINVAL, "%s has %d entries for %d axes", ns > 0 ? "scales" : "sizes", ns > 0 ? ns : nz, na);
  if (ctm == CTM_TF_CROP_AND_RESIZE)
    {
      if (!cn__onnx_has (nc, 1))
        FAIL (CN_EPARSE, "tf_crop_and_resize needs the roi (input 1)");
      if ((st = cn__onnx_const_floats (nc, 1, "roi", roi, 2 * CN_MAX_RANK, &nr)) != CN_OK)
        goto done;
      if (nr != 2 * na)
        FAIL (CN_EINVAL, "roi has %d entries for %d axes", nr, na);
      for (int i = 0; i < na; i++)
        {
          if (!isfinite (roi[i]) || !isfinite (roi[na + i]))
            FAIL (CN_EINVAL, "the roi of axis %d is not finite", axis_of[i]);
          mpq_set_d (rs.b[axis_of[i]], roi[i]);
          mpq_set_d (rs.e[axis_of[i]], roi[na + i]);
        }
    }
  /* scales and extents: every axis unchanged (s = 1), then those named */
  double sc_full[CN_MAX_RANK];
  for (int a = 0; a < r; a++)
    {
      sc_full[a] = 1.0;
      rs.m[a] = rs.n[a];
      mpq_set_si (rs.w[a], rs.n[a], 1);
    }
  if (ns > 0)
    {
      if (policy != 0)
        FAIL (CN_EINVAL, "keep_aspect_ratio_policy needs sizes, not scales");
      for (int i = 0; i < na; i++)
        sc_full[axis_of[i]] = sc[i];
      if ((st = extents_from_scales (nc, &rs, sc_full)) != CN_OK)
        goto done;
    }
  else
    {
      mpq_t t, best;
      mpz_t z;
      mpq_inits (t, best, NULL);
      mpz_init (z);
      for (int i = 0; i < na && st == CN_OK; i++)
        {
          int a = axis_of[i];
          if (sz[i] < 1 || rs.n[a] < 1)
            st = cn_error_set (nc->err, CN_EUNSUPPORTED, "size %lld on axis %d (input extent %lld) is not supported",
                               (long long) sz[i], a, (long long) rs.n[a]);
          else
            {
              /* s = m / n, W = m */
              mpq_set_si (t, sz[i], rs.n[a]);
              mpq_canonicalize (t);
              if (i == 0 || (policy == 1 && mpq_cmp (t, best) < 0) || (policy == 2 && mpq_cmp (t, best) > 0))
                mpq_set (best, t);
              mpq_set (rs.s[a], t);
              rs.m[a] = sz[i];
              mpq_set_si (rs.w[a], sz[i], 1);
            }
        }
      if (st == CN_OK && policy != 0)
        for (int i = 0; i < na; i++)
          {
            /* the common scale; m = floor(s n + 1/2), W = s n */
            int a = axis_of[i];
            mpq_set (rs.s[a], best);
            mpq_set_si (t, rs.n[a], 1);
            mpq_mul (rs.w[a], best, t);
            mpq_set_si (t, 1, 2);
            mpq_add (t, rs.w[a], t);
            rs.m[a] = q_floor (t, z);
          }
      mpq_clears (t, best, NULL);
      mpz_clear (z);
      if (st != CN_OK)
        goto done;
    }
  if ((st = check_extents (nc, &rs)) != CN_OK)
    goto done;
  if (antialias != 0)
    {
      if (!rs.linear)
        FAIL (CN_EUNSUPPORTED, "antialias = %lld is not defined for mode nearest", (long long) antialias);
      for (int a = 0; a < r; a++)
        if (mpq_cmp_ui (rs.s[a], 1, 1) < 0)
          FAIL (CN_EUNSUPPORTED, "antialias = %lld is not supported (downsampling by %.9g on "
                "axis %d)", (long long) antialias, mpq_get_d (rs.s[a]), a);
    }
  st = emit_resize (nc, &rs);
done:
  resize_clear (&rs);
  return st;
}

const struct cn__onnx_handler cn__onnx_resize[] = {
  { "Resize", op_resize, "antialias axes coordinate_transformation_mode cubic_coeff_a exclude_outside "
    "extrapolation_value keep_aspect_ratio_policy mode nearest_mode", 1 },
  { "Upsample", op_upsample, "mode scales", 1 },
  { NULL, NULL, NULL, 0 },
};
