/* SPDX-License-Identifier: MIT */
/* src/ops/random.c: the masks and random draws: randUniform, randn, bernoulliMask (keyed draws),
 * dropout and topKMask (the records of certnn/ops.h, "masks and random draws").
 *
 * ---- the generator ----
 * Every draw is a deterministic function of its key K (an INTEGER port of sort u64 and shape [],
 * checked by out_sort) and of the draw's position j (row-major in the output).  Position j takes
 * one block of Philox4x32-10 (Salmon, Moraes, Dror, Shaw, "Parallel random numbers: as easy as
 * 1, 2, 3", SC 2011; the generator of cuRAND's Philox and Random123):
 *   key     (k0, k1) = (K mod 2^32, K div 2^32);
 *   counter (c0, c1, c2, c3) = (j mod 2^32, j div 2^32, 0, 0);
 *   round   (c0, c1, c2, c3) <- (hi(M1 c2) ^ c1 ^ k0, lo(M1 c2), hi(M0 c0) ^ c3 ^ k1, lo(M0 c0)),
 *           M0 = 0xD2511F53, M1 = 0xCD9E8D57, hi/lo the halves of the 64-bit product;
 *           ten rounds, the key bumped by (0x9E3779B9, 0xBB67AE85) (mod 2^32) before rounds 2..10;
 *   output  (r0, r1, r2, r3), the state after round 10 (Random123's known answers hold: tested).
 * Two 53-bit uniforms come out of each block:
 *   u_j = floor((r0 + 2^32 r1) / 2^11) 2^-53,   v_j = floor((r2 + 2^32 r3) / 2^11) 2^-53,
 * both in {0, 2^-53, ..., 1 - 2^-53}, exact in binary64.  randUniform and bernoulliMask use u_j;
 * randn uses u_j and v_j (two uniforms per draw).
 *
 * ---- the draws (one input, the key; output the model's scalar of the record's shape) ----
 *   randUniform  y_j = lo + (hi - lo) u_j   (lo <= hi finite, hi - lo finite), in [lo, hi).
 *   randn        y_j = mean + std sqrt(-2 ln u'_j) cos(2 pi v_j),  u'_j = max(u_j, 2^-53) (the first
 *                uniform clamped away from zero: Box-Muller), mean finite, std finite and >= 0.
 *   bernoulliMask y_j = 1 if u_j < p else 0 (0 <= p <= 1): P(y_j = 1) = p up to 2^-53.
 * The arms are shared: each draw's rule's impl (struct draw_impl) holds its formula in binary64,
 * its range whatever the key and its MPFI enclosure, written next to each other below.
 * The draw is DEFINED as the exact real value of these formulas (the reference's value); the
 * forward computes it in binary64 and rounds it to the evaluation's sort:
 *   randUniform  fl(lo + fl(fl(hi - lo) u_j)): three roundings, within 3u (|lo| + |hi - lo|) of the
 *                draw (u = 2^-53; by analysis);
 *   randn        r = sqrt(-2 log u'), c = cos(2 pi v) with 2 pi v reduced exactly (4v = q + f,
 *                the angle f pi/2 or (1 - f) pi/2 <= pi/4 for cos or sin, the quadrant q by symmetry,
 *                the angle from a double-double product), y = fl(mean + fl(std fl(r c))).  Not
 *                correctly rounded: measured against MPFR at 300 bits (glibc, x86-64; 1.02 10^6
 *                draws under random keys, mean 0, std 1), z = r c within 2.7 ulp of the exact value
 *                where |z| > 2^-20, and within 2.8 u r absolutely everywhere (near the zeros of the
 *                cosine the error is absolute); binary32 draws (the binary64 value rounded once)
 *                within 0.5 ulp (binary32) of the exact value on the same draws.
 *   bernoulliMask exact (one exact comparison).
 * A draw has no value input: no pullback; the jvp writes zero tangents (forward mode).
 *   IBP   at a point key (a box [K, K]: the word is then K exactly, even beyond 2^53, since a
 *         word's box contains it), the MPFI enclosure below at 64 bits rounded outward to binary64:
 *         a box of an ulp or so around each draw.  Otherwise the draw's range whatever the key:
 *         randUniform [lo, hi]; randn [mean - std R, mean + std R] with R >= sqrt(-2 ln 2^-53) =
 *         sqrt(106 ln 2) (MPFR: ln 2 rounded up, times 106 up, sqrt up; then the product and the
 *         sums rounded outward with cn__up / cn__down), since |cos| <= 1 and u' >= 2^-53;
 *         bernoulliMask [0, 1], [0, 0] for p = 0, [1, 1] for p = 1.
 *   MPFI  at a point key (an enclosure [K, K], K an integer in [0, 2^64)), the enclosure of the
 *         exact draw: u, v exact, then mpfi_log, mpfi_sqrt, mpfi_const_pi, mpfi_cos, mpfi_mul and
 *         mpfi_add at the output's precision (bernoulliMask: the exact 0 or 1); any other key
 *         enclosure gives the range as IBP does (computed in MPFI).
 *
 * ---- dropout(x, mask) ----
 * x a value port, MASK a bool port of x's shape, 0 <= p < 1:  y = mask ? x / (1 - p) : 0 (an
 * entry whose mask is false is 0 whatever x, NaN included).  In a float evaluation a mask entry
 * is true when its value is >= 0.5 (as maskedSoftmax); a CN_DTYPE_BOOL mask is read as bytes.
 *   forward  q = fl(1 - p) in the tensor's sort (binary32: the binary64 1 - p rounded to float),
 *            y = fl(x / q): two roundings, within about 2u relative of x / (1 - p) (one rounding,
 *            correctly rounded, when 1 - p is exact in the sort: p = 0 or 1/2 <= p < 1 in binary64,
 *            by Sterbenz; by analysis).
 *   pullback g_x += mask ? g / q : 0, q = fl(1 - p) in binary64; the mask gets nothing.
 *   jvp      t = mask ? t_x / q : 0.  Linear in x for a fixed mask: no one-sided choice.
 *   IBP      per entry, from the mask's box [ml, mh] (true known when ml >= 0.5, false known when
 *            mh < 0.5, else unknown) and x's box [xl, xu]: with [ql, qh] enclosing 1 - p
 *            (cn__down / cn__up of fl(1 - p), ql > 0), x / (1 - p) lies in [xl / (xl >= 0 ? qh : ql)
 *            rounded down, xu / (xu >= 0 ? ql : qh) rounded up]; false gives [0, 0], unknown the
 *            hull of that box and 0.  A NaN end is CN_ENUMERIC; infinite ends stay infinite.
 *   MPFI     the same three cases in MPFI (x / (1 - p) by mpfi_ui_sub and mpfi_div, the hull with 0
 *            by mpfi_put_si).
 *   CROWN    linear where the mask is known: lam_x,j = fl(lam_j / q) for a true mask (two
 *            roundings: |lam_j / (1 - p) - lam_x,j| <= 3u |lam_x,j| + eta, charged as
 *            sum_j up(4u |lam_x,j| + 2 eta) m_j with m_j = max(|xl_j|, |xu_j|), closed upward by (N)),
 *            0 for a false mask; where the mask is unknown the entry is concretised against its IBP
 *            box: lam_j y_j >= lam_j (lam_j >= 0 ? yl_j : yu_j), added to the bias with the (G)
 *            charge (cn__crown_add_dot), or an infinite charge when that end is infinite.  The
 *            mask's coefficients stay 0.  Needs the boxes (CN_RULE_NEEDS_BOUNDS).
 *
 * ---- topKMask(x) ----
 * x a frozen port; y = 1 at the K largest (smallest if !largest) entries of every slice along
 * AXIS, else 0, in the model's scalar; 0 <= K <= n.  The order is topk's (src/ops/scan.c): a
 * stable sort, NaN larger than every number; the forward FAILS (CN_EINVAL, "tied entries decide
 * the selection") where 0 < K < n and the K-th and (K+1)-th entries of that order are tied (==,
 * or both NaN).  No pullback (no value input); the jvp writes zero tangents.
 *   IBP   for entry i of a slice with box [l, u] (largest):
 *           known in  when #{j != i : u_j >= l_i} <= K - 1 (its low end beats the high end of all
 *                     but K - 1 others: at every point of the box fewer than K entries exceed it);
 *           known out when #{j != i : l_j > u_i} >= K (at every point K entries exceed it);
 *         else [0, 1].  smallest mirrors it: known in when #{j != i : l_j <= u_i} <= K - 1, known
 *         out when #{j != i : u_j < l_i} >= K.  Exact
 *         comparisons, no rounding; a tie at the box's ends counts against certainty, so the box
 *         holds the selection at every point where the forward does not fail.  A NaN end is
 *         CN_ENUMERIC.
 *   MPFI  the same counts on the enclosures' ends (mpfr_cmp); on point enclosures without ties it
 *         is the exact mask.
 *   CROWN (beyond the seed's table; as the comparisons of src/ops/logic.c) the mask is discharged
 *         over its own IBP box: bias[s] += cn__box_min_dot (lam_out[s], box); no coefficient
 *         reaches x.  CN_RULE_NEEDS_BOUNDS: CROWN tightens x's box first (deciding more entries).
 * The draws have no CROWN arm: their key is a constant in a model, and the sweep discharges a
 * value that does not depend on the graph input over its box.  Every arm receives tensors, boxes
 * and vectors of the node's shapes and sorts under attributes the check admitted (the graph
 * builder checked the node): it states that with CN__ASSERTD, and refuses only values. */
#include <config.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "ops/ops_impl.h"
#include "sound/sound.h"

/* pi = PI_HI + PI_LO to about 2^-107 relative. */
#define PI_HI 0x1.921fb54442d18p+1
#define PI_LO 0x1.1a62633145c07p-53
#define TWO53 9007199254740992.0

/* ---- the generator ---------------------------------------------------------------------- */

/* Philox4x32-10 on the counter C (in place) under the key (K0, K1).  Not static: the known-answer
 * test of tests/random_checks.c calls it. */
void cn__philox4x32_10 (uint32_t c[4], uint32_t k0, uint32_t k1);

void
cn__philox4x32_10 (uint32_t c[4], uint32_t k0, uint32_t k1)
{
  for (int r = 0; r < 10; r++)
    {
      if (r > 0)
        {
          k0 += 0x9E3779B9u;
          k1 += 0xBB67AE85u;
        }
      uint64_t p0 = (uint64_t) 0xD2511F53u * c[0], p1 = (uint64_t) 0xCD9E8D57u * c[2];
      uint32_t n0 = (uint32_t) (p1 >> 32) ^ c[1] ^ k0, n2 = (uint32_t) (p0 >> 32) ^ c[3] ^ k1;
      c[1] = (uint32_t) p1;
      c[3] = (uint32_t) p0;
      c[0] = n0;
      c[2] = n2;
    }
}

/* The two uniforms of position J under KEY (header): *U and *V in [0, 1 - 2^-53], exact. */
static void
uniforms (uint64_t key, uint64_t j, double *u, double *v)
{
  uint32_t c[4] = { (uint32_t) j, (uint32_t) (j >> 32), 0, 0 };
  cn__philox4x32_10 (c, (uint32_t) key, (uint32_t) (key >> 32));
  uint64_t a = (uint64_t) c[0] | (uint64_t) c[1] << 32, b = (uint64_t) c[2] | (uint64_t) c[3] << 32;
  *u = (double) (a >> 11) * 0x1p-53;
  *v = (double) (b >> 11) * 0x1p-53;
}

/* cos(2 pi v) for v in [0, 1) (header: the exact reduction 4v = q + f, the angle <= pi/4 in
 * double-double). */
static double
cos_2pi (double v)
{
  double t = 4 * v, q = floor (t), f = t - q;     /* exact: v has at most 53 bits below 1 */
  int comp = f > 0.5;
  double g = comp ? 1 - f : f;                    /* exact */
  /* the angle a = g pi / 2 */
  double ah = g * PI_HI, al = fma (g, PI_HI, -ah);
  double a = 0.5 * (ah + (al + g * PI_LO));
  double cs = comp ? sin (a) : cos (a), sn = comp ? cos (a) : sin (a);
  /* cs = cos(f pi/2), sn = sin(f pi/2); rotate by q pi/2 */
  switch ((int) q)
    {
    case 0: return cs;
    case 1: return -sn;
    case 2: return -cs;
    default: return sn;
    }
}

/* ---- shared checks ---------------------------------------------------------------------- */

static cn_status
need_params (const char *op, const void *p, cn_error *err)
{
  return p == NULL ? cn_error_set (err, CN_EINVAL, "%s: missing attributes", op) : CN_OK;
}

/* The check of a draw: one key input of shape [], the output shape SHAPE. */
static cn_status
draw_check (const char *op, const cn_shape *shape, int n_in, const cn_shape *const *in, cn_shape *out,
            cn_error *err)
{
  if (n_in != 1)
    return cn_error_set (err, CN_EINVAL, "%s: takes 1 input (the key), got %d", op, n_in);
  cn_status st = cn__input_valid (op, 0, in[0], err);
  if (st != CN_OK)
    return st;
  if (in[0]->rank != 0)
    return cn_error_set (err, CN_ESHAPE, "%s: the key has rank %d, expected a scalar []", op, in[0]->rank);
  if ((st = cn__shape_valid (op, "the draw's shape", shape, err)) != CN_OK)
    return st;
  *out = cn__shape_clean (shape);
  return CN_OK;
}

/* The out_sort arm of the draws: one key of sort u64, the draws of the model's scalar. */
static cn_status
draw_out_sort (const struct cn_op_rule *rule, const void *params, int n_in, const cn_dtype *in, cn_dtype *out,
               cn_error *err)
{
  (void) params;
  const char *op = cn_op_name (rule->op);
  if (n_in != 1)
    return cn_error_set (err, CN_EINVAL, "%s: takes 1 input (the key), got %d", op, n_in);
  if (in[0] != CN_DTYPE_U64)
    return cn_error_set (err, CN_EINVAL, "%s: the key is of sort %s, expected %s", op, cn_dtype_name (in[0]),
                         cn_dtype_name (CN_DTYPE_U64));
  *out = CN_DTYPE_F64;
  return CN_OK;
}

static cn_status
rand_uniform_check (const struct cn_op_rule *rule, const void *params, int n_in, const cn_shape *const *in, cn_shape *out,
                    cn_error *err)
{
  (void) rule;
  cn_status st = need_params ("randUniform", params, err);
  if (st != CN_OK)
    return st;
  const cn_params_rand_uniform *p = params;
  if (!isfinite (p->lo) || !isfinite (p->hi) || !(p->lo <= p->hi) || !isfinite (p->hi - p->lo))
    return cn_error_set (err, CN_EINVAL, "randUniform: the range [%g, %g] is not finite and ordered", p->lo, p->hi);
  return draw_check ("randUniform", &p->shape, n_in, in, out, err);
}

static cn_status
randn_check (const struct cn_op_rule *rule, const void *params, int n_in, const cn_shape *const *in, cn_shape *out,
             cn_error *err)
{
  (void) rule;
  cn_status st = need_params ("randn", params, err);
  if (st != CN_OK)
    return st;
  const cn_params_randn *p = params;
  if (!isfinite (p->mean) || !isfinite (p->std) || !(p->std >= 0))
    return cn_error_set (err, CN_EINVAL, "randn: mean %g and std %g must be finite, std >= 0", p->mean, p->std);
  return draw_check ("randn", &p->shape, n_in, in, out, err);
}

static cn_status
bernoulli_check (const struct cn_op_rule *rule, const void *params, int n_in, const cn_shape *const *in, cn_shape *out,
                 cn_error *err)
{
  (void) rule;
  cn_status st = need_params ("bernoulliMask", params, err);
  if (st != CN_OK)
    return st;
  const cn_params_bernoulli *p = params;
  if (!(p->p >= 0 && p->p <= 1))
    return cn_error_set (err, CN_EINVAL, "bernoulliMask: p = %g outside [0, 1]", p->p);
  return draw_check ("bernoulliMask", &p->shape, n_in, in, out, err);
}

/* ---- the three draws: each one's value, range and enclosure (its rule's impl) ------------- */

/* What the shared arms of a draw read of it (its rule's impl): the draw from the uniforms U and
 * V of its position, in binary64 (VALUE); the range of every draw whatever the key (RANGE, the
 * IBP box of a key that is not a point); and the enclosure of the exact draw into Y (MPFI: at a
 * point key, POINT, from the exact U and V; else the range), with scratch A and B of Y's
 * precision.  P is the draw's attribute record. */
struct draw_impl
{
  double (*value) (const void *p, double u, double v);
  void (*range) (const void *p, double *lo, double *hi);
  void (*mpfi) (const void *p, int point, double u, double v, mpfi_ptr y, mpfi_ptr a, mpfi_ptr b);
};

/* randUniform: lo + (hi - lo) u, in [lo, hi). */
static double
uniform_value (const void *pv, double u, double v)
{
  (void) v;
  const cn_params_rand_uniform *p = pv;
  return p->lo + (p->hi - p->lo) * u;
}

static void
uniform_range (const void *pv, double *lo, double *hi)
{
  const cn_params_rand_uniform *p = pv;
  *lo = p->lo;
  *hi = p->hi;
}

static void
uniform_mpfi (const void *pv, int point, double u, double v, mpfi_ptr y, mpfi_ptr a, mpfi_ptr b)
{
  (void) v;
  (void) b;
  const cn_params_rand_uniform *p = pv;
  if (!point)
    {
      mpfi_interv_d (y, p->lo, p->hi);
      return;
    }
  /* lo + (hi - lo) u, u exact */
  mpfi_set_d (a, p->hi);
  mpfi_sub_d (a, a, p->lo);
  mpfi_mul_d (a, a, u);
  mpfi_add_d (y, a, p->lo);
}

/* bernoulliMask: 1 if u < p, else 0. */
static double
bernoulli_value (const void *pv, double u, double v)
{
  (void) v;
  return u < ((const cn_params_bernoulli *) pv)->p ? 1 : 0;
}

static void
bernoulli_range (const void *pv, double *lo, double *hi)
{
  double p = ((const cn_params_bernoulli *) pv)->p;
  *lo = p == 1 ? 1 : 0;     /* u < 1 = p always */
  *hi = p == 0 ? 0 : 1;     /* u < 0 never */
}

static void
bernoulli_mpfi (const void *pv, int point, double u, double v, mpfi_ptr y, mpfi_ptr a, mpfi_ptr b)
{
  (void) v;
  (void) a;
  (void) b;
  double p = ((const cn_params_bernoulli *) pv)->p;
  if (point)
    mpfi_set_ui (y, u < p ? 1 : 0);       /* exact comparison of exact numbers */
  else
    mpfi_interv_si (y, p == 1 ? 1 : 0, p == 0 ? 0 : 1);
}

/* randn: mean + std sqrt(-2 ln u') cos(2 pi v), u' = max(u, 2^-53). */
static double
normal_value (const void *pv, double u, double v)
{
  const cn_params_randn *p = pv;
  double u1 = u > 0x1p-53 ? u : 0x1p-53;
  double z = sqrt (-2 * log (u1)) * cos_2pi (v);
  return p->mean + p->std * z;
}

/* R >= sqrt(-2 ln 2^-53) = sqrt(106 ln 2), the largest radius of Box-Muller here, in T. */
static void
radius_up (mpfr_ptr t)
{
  mpfr_const_log2 (t, MPFR_RNDU);
  mpfr_mul_ui (t, t, 106, MPFR_RNDU);
  mpfr_sqrt (t, t, MPFR_RNDU);
}

static void
normal_range (const void *pv, double *lo, double *hi)
{
  const cn_params_randn *p = pv;
  mpfr_t t;
  mpfr_init2 (t, 53);
  radius_up (t);
  double R = mpfr_get_d (t, MPFR_RNDU);
  mpfr_clear (t);
  double sr = p->std == 0 ? 0 : cn__mul_up (p->std, R);
  /* now 0 <= std |z| <= sr for every draw z */
  *lo = cn__down (p->mean - sr);
  *hi = cn__up (p->mean + sr);
}

static void
normal_mpfi (const void *pv, int point, double u, double v, mpfi_ptr y, mpfi_ptr a, mpfi_ptr b)
{
  const cn_params_randn *p = pv;
  if (point)
    {
      /* sqrt(-2 ln u') cos(2 pi v) */
      mpfi_set_d (a, u > 0x1p-53 ? u : 0x1p-53);
      mpfi_log (a, a);
      mpfi_mul_si (a, a, -2);
      mpfi_sqrt (a, a);
      mpfi_const_pi (b);
      mpfi_mul_d (b, b, v);
      mpfi_mul_2ui (b, b, 1);
      mpfi_cos (b, b);
      mpfi_mul (a, a, b);
    }
  else
    {
      /* [-R, R], R = sqrt(106 ln 2) */
      mpfi_const_log2 (a);
      mpfi_mul_ui (a, a, 106);
      mpfi_sqrt (a, a);
      mpfi_neg (b, a);
      mpfi_union (a, a, b);
    }
  mpfi_mul_d (a, a, p->std);
  mpfi_add_d (y, a, p->mean);
}

/* ---- draws: forward and jvp ------------------------------------------------------------- */

/* The key held by T: a u64 word, or (for robustness) an exact integer of another sort. */
static cn_status
key_of (const cn_node_view *nv, const cn_tensor *t, uint64_t *key, cn_error *err)
{
  const char *op = cn_op_name (nv->op);
  CN__ASSERTD (cn_tensor_numel (t) == 1);   /* the check: a key of shape [] */
  if (t->dtype == CN_DTYPE_U64)
    {
      *key = *(const uint64_t *) t->data;
      return CN_OK;
    }
  double v = cn_tensor_get_f64 (t, 0);
  if (t->dtype == CN_DTYPE_I64 && *(const int64_t *) t->data >= 0)
    {
      *key = (uint64_t) *(const int64_t *) t->data;
      return CN_OK;
    }
  if (!(v >= 0 && v < 0x1p64) || v != floor (v))
    return cn_error_set (err, CN_ENUMERIC, "%s: the key %g is not an integer in [0, 2^64) (node '%s')", op, v,
                         cn__node_name (nv));
  *key = (uint64_t) v;
  return CN_OK;
}

/* The binary64 draw of position J under KEY. */
static double
draw_d (const cn_node_view *nv, uint64_t key, uint64_t j)
{
  const struct draw_impl *d = nv->rule->impl;
  double u, v;
  uniforms (key, j, &u, &v);
  return d->value (nv->params, u, v);
}

static cn_status
draw_forward (const cn_node_view *nv, const cn_tensor *const *in, cn_tensor *out, cn_error *err)
{
  int64_t n = cn__numel (nv->out_shape);
  CN__ASSERTD (cn_dtype_is_float (out->dtype) && cn_tensor_numel (out) == n && nv->params != NULL);
  uint64_t key = 0;
  cn_status st = key_of (nv, in[0], &key, err);
  if (st != CN_OK)
    return st;
  for (int64_t j = 0; j < n; j++)
    {
      double y = draw_d (nv, key, (uint64_t) j);
      if (out->dtype == CN_DTYPE_F64)
        ((double *) out->data)[j] = y;
      else
        ((float *) out->data)[j] = (float) y;
    }
  return CN_OK;
}


/* ---- draws: IBP and MPFI ---------------------------------------------------------------- */

static cn_status draw_mpfi (const cn_node_view *nv, const cn_mpfi_vec *const *in, cn_mpfi_vec *out, cn_error *err);

/* IBP at the point key K (see the top): draw_mpfi at 64 bits, its ends rounded outward. */
static cn_status
draw_ibp_point (const cn_node_view *nv, double K, cn_box *out, cn_error *err)
{
  cn_mpfi_vec kv, yv;
  cn_status st = cn_mpfi_vec_init (&kv, 1, 64, err);
  if (st != CN_OK)
    return st;
  if ((st = cn_mpfi_vec_init (&yv, out->n, 64, err)) != CN_OK)
    {
      cn_mpfi_vec_clear (&kv);
      return st;
    }
  mpfi_set_d (kv.v[0], K);
  const cn_mpfi_vec *kp[1] = { &kv };
  if ((st = draw_mpfi (nv, kp, &yv, err)) == CN_OK)
    for (int64_t j = 0; j < out->n; j++)
      {
        out->lo[j] = mpfr_get_d (&yv.v[j]->left, MPFR_RNDD);
        out->hi[j] = mpfr_get_d (&yv.v[j]->right, MPFR_RNDU);
      }
  cn_mpfi_vec_clear (&kv);
  cn_mpfi_vec_clear (&yv);
  return st;
}

static cn_status
draw_ibp (const cn_node_view *nv, const cn_box *const *in, cn_box *out, cn_error *err)
{
  const char *op = cn_op_name (nv->op);
  CN__ASSERTD (out->n == cn__numel (nv->out_shape) && in[0]->n == 1 && nv->params != NULL);
  if (isnan (in[0]->lo[0]) || isnan (in[0]->hi[0]))
    return cn_error_set (err, CN_ENUMERIC, "%s: NaN end in the key's box (node '%s')", op, cn__node_name (nv));
  double K = in[0]->lo[0];
  if (K == in[0]->hi[0] && K >= 0 && K < 0x1p64 && K == floor (K))
    return draw_ibp_point (nv, K, out, err);
  double lo, hi;
  ((const struct draw_impl *) nv->rule->impl)->range (nv->params, &lo, &hi);
  for (int64_t j = 0; j < out->n; j++)
    {
      out->lo[j] = lo;
      out->hi[j] = hi;
    }
  return CN_OK;
}

/* Whether the enclosure X is one integer key in [0, 2^64); the key in *KEY. */
static int
point_key (mpfi_srcptr x, uint64_t *key)
{
  if (mpfi_nan_p (x) || !mpfr_equal_p (&x->left, &x->right) || !mpfr_integer_p (&x->left)
      || mpfr_sgn (&x->left) < 0 || mpfr_cmp_d (&x->left, 0x1p64) >= 0)
    return 0;
  /* K = 2^32 hi + lo, both halves exact in a 64-bit MPFR number */
  mpfr_t t;
  mpfr_init2 (t, 64);
  mpfr_div_2ui (t, &x->left, 32, MPFR_RNDN);
  mpfr_floor (t, t);
  uint64_t hi = mpfr_get_ui (t, MPFR_RNDN);
  mpfr_mul_2ui (t, t, 32, MPFR_RNDN);
  mpfr_sub (t, &x->left, t, MPFR_RNDN);
  uint64_t lo = mpfr_get_ui (t, MPFR_RNDN);
  mpfr_clear (t);
  *key = hi << 32 | lo;
  return 1;
}

static cn_status
draw_mpfi (const cn_node_view *nv, const cn_mpfi_vec *const *in, cn_mpfi_vec *out, cn_error *err)
{
  const struct draw_impl *d = nv->rule->impl;
  const char *op = cn_op_name (nv->op);
  CN__ASSERTD (out->n == cn__numel (nv->out_shape) && in[0]->n == 1 && nv->params != NULL);
  if (mpfi_nan_p (in[0]->v[0]))
    return cn_error_set (err, CN_ENUMERIC, "%s: NaN in the key's enclosure (node '%s')", op, cn__node_name (nv));
  if (out->n == 0)
    return CN_OK;
  mpfr_prec_t prec = mpfi_get_prec (out->v[0]);
  uint64_t key;
  int point = point_key (in[0]->v[0], &key);
  mpfi_t a, b;
  mpfi_init2 (a, prec);
  mpfi_init2 (b, prec);
  for (int64_t j = 0; j < out->n; j++)
    {
      double u = 0, v = 0;
      if (point)
        uniforms (key, (uint64_t) j, &u, &v);
      d->mpfi (nv->params, point, u, v, out->v[j], a, b);
    }
  mpfi_clear (a);
  mpfi_clear (b);
  return CN_OK;
}

/* ---- dropout ---------------------------------------------------------------------------- */

static cn_status
dropout_check (const struct cn_op_rule *rule, const void *params, int n_in, const cn_shape *const *in, cn_shape *out,
               cn_error *err)
{
  (void) rule;
  cn_status st = need_params ("dropout", params, err);
  if (st != CN_OK)
    return st;
  const cn_params_dropout *p = params;
  if (!(p->p >= 0 && p->p < 1))
    return cn_error_set (err, CN_EINVAL, "dropout: p = %g outside [0, 1)", p->p);
  if (n_in != 2)
    return cn_error_set (err, CN_EINVAL, "dropout: takes 2 inputs (x, mask), got %d", n_in);
  for (int i = 0; i < 2; i++)
    if ((st = cn__input_valid ("dropout", i, in[i], err)) != CN_OK)
      return st;
  if (!cn_shape_equal (in[0], in[1]))
    {
      char a[128], b[128];
      return cn_error_set (err, CN_ESHAPE, "dropout: mask shape %s differs from input shape %s",
                           cn_shape_format (in[1], b, sizeof b), cn_shape_format (in[0], a, sizeof a));
    }
  *out = *in[0];
  return CN_OK;
}

/* Mask entry J of T: a Boolean byte, or a float >= 0.5. */
static inline int
mask_at (const cn_tensor *t, int64_t j)
{
  switch (t->dtype)
    {
    case CN_DTYPE_BOOL: return ((const uint8_t *) t->data)[j] != 0;
    case CN_DTYPE_F64: return ((const double *) t->data)[j] >= 0.5;
    case CN_DTYPE_F32: return ((const float *) t->data)[j] >= 0.5f;
    default: return cn_tensor_get_f64 (t, j) >= 0.5;
    }
}

/* Whether the arms' tensors are what the graph builder and the engines give (stated with
 * CN__ASSERTD): x and y of one floating sort (binary64 for the derivatives, NEED_F64), the mask
 * of any sort, all of the node's shape. */
static inline int
dropout_tensors_fit (const cn_node_view *nv, const cn_tensor *const *in, const cn_tensor *out, int need_f64)
{
  int64_t n = cn__numel (nv->out_shape);
  return nv->params != NULL && cn_tensor_numel (out) == n && cn_tensor_numel (in[0]) == n
         && cn_tensor_numel (in[1]) == n && cn_dtype_is_float (out->dtype) && in[0]->dtype == out->dtype
         && (!need_f64 || out->dtype == CN_DTYPE_F64);
}

static cn_status
dropout_forward (const cn_node_view *nv, const cn_tensor *const *in, cn_tensor *out, cn_error *err)
{
  (void) err;
  CN__ASSERTD (dropout_tensors_fit (nv, in, out, 0));
  double p = ((const cn_params_dropout *) nv->params)->p;
  int64_t n = cn_tensor_numel (out);
  if (out->dtype == CN_DTYPE_F64)
    {
      const double *x = in[0]->data;
      double *y = out->data, q = 1 - p;
      for (int64_t j = 0; j < n; j++)
        y[j] = mask_at (in[1], j) ? x[j] / q : 0;
    }
  else
    {
      const float *x = in[0]->data;
      float *y = out->data, q = (float) (1 - p);
      for (int64_t j = 0; j < n; j++)
        y[j] = mask_at (in[1], j) ? x[j] / q : 0;
    }
  return CN_OK;
}

static cn_status
dropout_pullback (const cn_node_view *nv, const cn_tensor *const *in, const cn_tensor *out, const double *g_out,
                  double *const *g_in, cn_error *err)
{
  (void) err;
  CN__ASSERTD (dropout_tensors_fit (nv, in, out, 1));
  if (g_in[0] == NULL)
    return CN_OK;
  double q = 1 - ((const cn_params_dropout *) nv->params)->p;
  int64_t n = cn_tensor_numel (out);
  for (int64_t j = 0; j < n; j++)
    if (mask_at (in[1], j))
      g_in[0][j] += g_out[j] / q;
  return CN_OK;
}

static cn_status
dropout_jvp (const cn_node_view *nv, const cn_tensor *const *in, const cn_tensor *out, const double *const *t_in,
             double *t_out, cn_error *err)
{
  (void) err;
  CN__ASSERTD (dropout_tensors_fit (nv, in, out, 1));
  double q = 1 - ((const cn_params_dropout *) nv->params)->p;
  int64_t n = cn_tensor_numel (out);
  for (int64_t j = 0; j < n; j++)
    t_out[j] = t_in[0] != NULL && mask_at (in[1], j) ? t_in[0][j] / q : 0;
  return CN_OK;
}

/* The mask's state from its box: 1 true, 0 false, -1 unknown. */
static inline int
mask_state (double ml, double mh)
{
  return ml >= 0.5 ? 1 : mh < 0.5 ? 0 : -1;
}

/* [*lo, *hi] contains y over x in [xl, xu] for the mask state S, with [ql, qh] enclosing 1 - p
 * (0 < ql). */
static inline void
dropout_entry (int s, double xl, double xu, double ql, double qh, double *lo, double *hi)
{
  if (s == 0)
    {
      *lo = *hi = 0;
      return;
    }
  /* x / q is increasing in x and, for fixed x, monotone in q of the sign of -x */
  double l = cn__div_down (xl, xl >= 0 ? qh : ql), h = cn__div_up (xu, xu >= 0 ? ql : qh);
  /* an end at +inf (-inf) of the wrong side gives NaN through cn__down (cn__up): no value there */
  l = isnan (l) ? DBL_MAX : l;
  h = isnan (h) ? -DBL_MAX : h;
  if (s < 0)
    {
      l = fmin (l, 0);
      h = fmax (h, 0);
    }
  *lo = l;
  *hi = h;
}

static void
one_minus_p (double p, double *ql, double *qh)
{
  double q = 1 - p;
  *ql = cn__down (q);
  *qh = cn__up (q);
  /* now 0 < ql <= 1 - p <= qh: q >= 2^-53 as p < 1, and cn__down loses less than 3u q */
}

static cn_status
dropout_ibp (const cn_node_view *nv, const cn_box *const *in, cn_box *out, cn_error *err)
{
  int64_t n = cn__numel (nv->out_shape);
  CN__ASSERTD (nv->params != NULL && out->n == n && in[0]->n == n && in[1]->n == n);
  double ql, qh;
  one_minus_p (((const cn_params_dropout *) nv->params)->p, &ql, &qh);
  for (int64_t j = 0; j < n; j++)
    {
      double xl = in[0]->lo[j], xu = in[0]->hi[j], ml = in[1]->lo[j], mh = in[1]->hi[j];
      if (isnan (xl) || isnan (xu) || isnan (ml) || isnan (mh))
        return cn_error_set (err, CN_ENUMERIC, "dropout: NaN end in an input box at entry %lld (node '%s')",
                             (long long) j, cn__node_name (nv));
      dropout_entry (mask_state (ml, mh), xl, xu, ql, qh, &out->lo[j], &out->hi[j]);
    }
  return CN_OK;
}

static cn_status
dropout_mpfi (const cn_node_view *nv, const cn_mpfi_vec *const *in, cn_mpfi_vec *out, cn_error *err)
{
  int64_t n = cn__numel (nv->out_shape);
  CN__ASSERTD (nv->params != NULL && out->n == n && in[0]->n == n && in[1]->n == n);
  if (n == 0)
    return CN_OK;
  mpfi_t q;
  mpfi_init2 (q, mpfi_get_prec (out->v[0]));
  mpfi_set_d (q, ((const cn_params_dropout *) nv->params)->p);
  mpfi_ui_sub (q, 1, q);
  cn_status st = CN_OK;
  for (int64_t j = 0; j < n; j++)
    {
      mpfi_srcptr x = in[0]->v[j], m = in[1]->v[j];
      if (mpfi_nan_p (x) || mpfi_nan_p (m))
        {
          st = cn_error_set (err, CN_ENUMERIC, "dropout: NaN in an input enclosure at entry %lld (node '%s')",
                             (long long) j, cn__node_name (nv));
          break;
        }
      int s = mpfr_cmp_d (&m->left, 0.5) >= 0 ? 1 : mpfr_cmp_d (&m->right, 0.5) < 0 ? 0 : -1;
      if (s == 0)
        {
          mpfi_set_ui (out->v[j], 0);
          continue;
        }
      mpfi_div (out->v[j], x, q);
      if (s < 0)
        mpfi_put_si (out->v[j], 0);
    }
  mpfi_clear (q);
  return st;
}

static cn_status
dropout_crown (const cn_crown_step *st, cn_error *err)
{
  const cn_node_view *nv = st->nv;
  int64_t n = cn__numel (nv->out_shape);
  CN__ASSERTD (nv->params != NULL && st->in_box[0]->n == n && st->in_box[1]->n == n);
  double p = ((const cn_params_dropout *) nv->params)->p, q = 1 - p, ql, qh;
  one_minus_p (p, &ql, &qh);
  const cn_box *xb = st->in_box[0], *mb = st->in_box[1];
  double *mag = malloc ((size_t) (n ? n : 1) * sizeof *mag), *sel = malloc ((size_t) (n ? n : 1) * sizeof *sel);
  double *lam = malloc ((size_t) (n ? n : 1) * sizeof *lam);
  int *state = malloc ((size_t) (n ? n : 1) * sizeof *state);
  if (mag == NULL || sel == NULL || lam == NULL || state == NULL)
    {
      free (mag), free (sel), free (lam), free (state);
      return cn_error_set (err, CN_ENOMEM, "dropout: out of memory (node '%s')", cn__node_name (nv));
    }
  cn__box_magnitude (xb, mag);
  for (int64_t j = 0; j < n; j++)
    state[j] = mask_state (mb->lo[j], mb->hi[j]);
  for (int64_t s = 0; s < st->rows; s++)
    {
      const double *lo = st->lam_out + s * n;
      double *li = st->lam_in[0] != NULL ? st->lam_in[0] + s * n : NULL;
      double t = 0;
      int64_t k = 0;
      int unbounded = 0;
      for (int64_t j = 0; j < n; j++)
        {
          if (lo[j] == 0 || state[j] == 0)
            continue;
          if (state[j] > 0 && li != NULL)
            {
              li[j] = lo[j] / q;
              /* two roundings (fl(1 - p), the quotient): charged up(4u |li| + 2 eta) >= 3u |li| + eta
               * per unit of x, even where 4u |li| underflows */
              if (mag[j] != 0)
                t += cn__up (4 * CN_U * fabs (li[j]) + 2 * CN_ETA) * mag[j];
              continue;
            }
          /* unknown mask (or a constant x): lam_j y_j >= lam_j times the end of y's box */
          double yl, yh;
          dropout_entry (state[j], xb->lo[j], xb->hi[j], ql, qh, &yl, &yh);
          double e = lo[j] > 0 ? yl : yh;
          if (!isfinite (e))
            unbounded = 1;
          lam[k] = lo[j];
          sel[k++] = e;
        }
      if (t != 0)
        cn__crown_charge (st, s, cn__nonneg_up (t, n));
      if (unbounded)
        cn__crown_charge (st, s, INFINITY);
      else if (k > 0)
        cn__crown_add_dot (st, s, k, lam, sel);
    }
  free (mag), free (sel), free (lam), free (state);
  return CN_OK;
}

/* ---- topKMask --------------------------------------------------------------------------- */

static cn_status
topk_mask_check (const struct cn_op_rule *rule, const void *params, int n_in, const cn_shape *const *in, cn_shape *out,
                 cn_error *err)
{
  (void) rule;
  cn_status st = need_params ("topKMask", params, err);
  if (st != CN_OK)
    return st;
  const cn_params_topk_mask *p = params;
  if (n_in != 1)
    return cn_error_set (err, CN_EINVAL, "topKMask: takes 1 input, got %d", n_in);
  if ((st = cn__input_valid ("topKMask", 0, in[0], err)) != CN_OK)
    return st;
  if (in[0]->rank < 1)
    return cn_error_set (err, CN_ESHAPE, "topKMask: the input has rank 0");
  if (p->axis < 0 || p->axis >= in[0]->rank)
    return cn_error_set (err, CN_EINVAL, "topKMask: axis %d outside the input's rank %d", p->axis, in[0]->rank);
  if (p->largest != 0 && p->largest != 1)
    return cn_error_set (err, CN_EINVAL, "topKMask: largest must be 0 or 1, got %d", p->largest);
  int64_t n = in[0]->dim[p->axis];
  if (p->k < 0 || p->k > n)
    return cn_error_set (err, CN_EINVAL, "topKMask: k = %lld outside [0, %lld], the extent on axis %d",
                         (long long) p->k, (long long) n, p->axis);
  *out = *in[0];
  return CN_OK;
}

/* The rows along the axis: OUTER x N x INNER. */
struct tgeom
{
  int64_t outer, n, inner;
};

static struct tgeom
tgeom_of (const cn_node_view *nv)
{
  const cn_params_topk_mask *p = nv->params;
  const cn_shape *s = nv->in_shape[0];
  struct tgeom g = { 1, s->dim[p->axis], 1 };
  for (int a = 0; a < p->axis; a++)
    g.outer *= s->dim[a];
  for (int a = p->axis + 1; a < s->rank; a++)
    g.inner *= s->dim[a];
  return g;
}

static cn_status
topk_mask_forward (const cn_node_view *nv, const cn_tensor *const *in, cn_tensor *out, cn_error *err)
{
  int64_t total = cn__numel (nv->out_shape);
  /* x and the mask of the evaluation's floating sort and of the node's shape */
  CN__ASSERTD (nv->params != NULL && cn_dtype_is_float (out->dtype) && in[0]->dtype == out->dtype
               && cn_tensor_numel (out) == total && cn_tensor_numel (in[0]) == total);
  const cn_params_topk_mask *p = nv->params;
  struct tgeom g = tgeom_of (nv);
  if (total == 0)
    return CN_OK;
  struct cn__order_key *keys = malloc ((size_t) g.n * sizeof *keys);
  unsigned char *sel = malloc ((size_t) total);
  if (keys == NULL || sel == NULL)
    {
      free (keys);
      free (sel);
      return cn_error_set (err, CN_ENOMEM, "topKMask: out of memory (node '%s')", cn__node_name (nv));
    }
  memset (sel, 0, (size_t) total);
  cn_status st = CN_OK;
  for (int64_t o = 0; o < g.outer && st == CN_OK; o++)
    for (int64_t i = 0; i < g.inner; i++)
      {
        int64_t base = o * g.n * g.inner + i;
        for (int64_t k = 0; k < g.n; k++)
          {
            keys[k].v = cn_tensor_get_f64 (in[0], base + k * g.inner);
            keys[k].i = k;
          }
        cn__order_keys (keys, g.n, p->largest);
        if (p->k > 0 && p->k < g.n && cn__order_tied (keys[p->k - 1].v, keys[p->k].v))
          {
            st = cn_error_set (err, CN_EINVAL,
                               "topKMask: tied entries decide the selection (entries %lld and %lld of a row along "
                               "axis %d are equal) (node '%s')", (long long) keys[p->k - 1].i,
                               (long long) keys[p->k].i, p->axis, cn__node_name (nv));
            break;
          }
        for (int64_t k = 0; k < p->k; k++)
          sel[base + keys[k].i * g.inner] = 1;
      }
  /* every row checked before the output is written */
  if (st == CN_OK)
    for (int64_t j = 0; j < total; j++)
      {
        if (out->dtype == CN_DTYPE_F64)
          ((double *) out->data)[j] = sel[j];
        else
          ((float *) out->data)[j] = sel[j];
      }
  free (keys);
  free (sel);
  return st;
}

/* The mask box of entry I of a row with ends L, U (N entries, stride S) (header). */
static void
topk_mask_entry (int largest, int64_t k, const double *l, const double *u, int64_t n, int64_t s, int64_t i,
                 double *lo, double *hi)
{
  int64_t cin = 0, cout = 0;
  for (int64_t j = 0; j < n; j++)
    {
      if (j == i)
        continue;
      if (largest)
        {
          cin += u[j * s] >= l[i * s];
          cout += l[j * s] > u[i * s];
        }
      else
        {
          cin += l[j * s] <= u[i * s];
          cout += u[j * s] < l[i * s];
        }
    }
  /* cin bounds above the number of entries that may precede i, cout below those that must */
  *lo = cin < k ? 1 : 0;
  *hi = cout >= k ? 0 : 1;
}

/* The same over MPFI enclosures: the box of entry A of the slice X (N entries, STRIDE apart). */
static void
topk_mask_entry_fr (int largest, int64_t k, mpfi_t *x, int64_t n, int64_t stride, int64_t a, mpfi_ptr out)
{
  mpfi_srcptr xa = x[a * stride];
  int64_t cin = 0, cout = 0;
  for (int64_t b = 0; b < n; b++)
    {
      if (b == a)
        continue;
      mpfi_srcptr xb = x[b * stride];
      if (largest)
        {
          cin += mpfr_cmp (&xb->right, &xa->left) >= 0;
          cout += mpfr_cmp (&xb->left, &xa->right) > 0;
        }
      else
        {
          cin += mpfr_cmp (&xb->left, &xa->right) <= 0;
          cout += mpfr_cmp (&xb->right, &xa->left) < 0;
        }
    }
  mpfi_interv_si (out, cin < k ? 1 : 0, cout >= k ? 0 : 1);
}

/* The IBP arm (box input BIN, box output BOUT) and the MPFI arm (MIN, MOUT) of topKMask in one:
 * exactly one of the pairs is given.  Every entry's box comes from topk_mask_entry or
 * topk_mask_entry_fr over its slice along the axis. */
static cn_status
topk_mask_bounds (const cn_node_view *nv, const cn_box *bin, const cn_mpfi_vec *min, cn_box *bout, cn_mpfi_vec *mout,
                  cn_error *err)
{
  int64_t total = cn__numel (nv->out_shape);
  CN__ASSERTD (nv->params != NULL && (bout != NULL ? bout->n : mout->n) == total
               && (bin != NULL ? bin->n : min->n) == total);
  for (int64_t j = 0; j < total; j++)
    if (bin != NULL ? isnan (bin->lo[j]) || isnan (bin->hi[j]) : mpfi_nan_p (min->v[j]))
      return cn_error_set (err, CN_ENUMERIC, "topKMask: %s at entry %lld (node '%s')",
                           bin != NULL ? "NaN end in the input box" : "NaN in the input enclosure", (long long) j,
                           cn__node_name (nv));
  const cn_params_topk_mask *p = nv->params;
  struct tgeom g = tgeom_of (nv);
  for (int64_t o = 0; o < g.outer; o++)
    for (int64_t i = 0; i < g.inner; i++)
      {
        int64_t base = o * g.n * g.inner + i;
        for (int64_t k = 0; k < g.n; k++)
          if (bin != NULL)
            topk_mask_entry (p->largest, p->k, bin->lo + base, bin->hi + base, g.n, g.inner, k,
                             &bout->lo[base + k * g.inner], &bout->hi[base + k * g.inner]);
          else
            topk_mask_entry_fr (p->largest, p->k, min->v + base, g.n, g.inner, k, mout->v[base + k * g.inner]);
      }
  return CN_OK;
}

static cn_status
topk_mask_ibp (const cn_node_view *nv, const cn_box *const *in, cn_box *out, cn_error *err)
{
  return topk_mask_bounds (nv, in[0], NULL, out, NULL, err);
}

static cn_status
topk_mask_mpfi (const cn_node_view *nv, const cn_mpfi_vec *const *in, cn_mpfi_vec *out, cn_error *err)
{
  return topk_mask_bounds (nv, NULL, in[0], NULL, out, err);
}

/* ---- the rules -------------------------------------------------------------------------- */

static const cn_port_kind key_port[1] = { CN_PORT_INTEGER };
static const cn_port_kind dropout_ports[2] = { CN_PORT_VALUE, CN_PORT_BOOL };
static const cn_port_kind frozen_port[1] = { CN_PORT_FROZEN };

static const struct draw_impl uniform_impl = { uniform_value, uniform_range, uniform_mpfi };
const struct cn_op_rule cn__rule_RAND_UNIFORM = { .op = CN_OP_RAND_UNIFORM, .impl = &uniform_impl,
  .sorts = "f64, f32, words",   /* a word key, draws of the model's scalar */
  .n_in = 1, .in_kind = key_port, .check = rand_uniform_check,
  .out_sort = draw_out_sort, .forward = draw_forward, .jvp = cn__zero_jvp, .ibp = draw_ibp, .ibp_mpfi = draw_mpfi,
  .certs = CN__CERTS (CN__CERT_IBP),
};

static const struct draw_impl normal_impl = { normal_value, normal_range, normal_mpfi };
const struct cn_op_rule cn__rule_RANDN = { .op = CN_OP_RANDN, .impl = &normal_impl,
  .sorts = "f64, f32, words",   /* a word key, draws of the model's scalar */
  .n_in = 1, .in_kind = key_port, .check = randn_check,
  .out_sort = draw_out_sort, .forward = draw_forward, .jvp = cn__zero_jvp, .ibp = draw_ibp, .ibp_mpfi = draw_mpfi,
  .certs = CN__CERTS (CN__CERT_IBP),
};

static const struct draw_impl bernoulli_impl = { bernoulli_value, bernoulli_range, bernoulli_mpfi };
const struct cn_op_rule cn__rule_BERNOULLI_MASK = { .op = CN_OP_BERNOULLI_MASK, .impl = &bernoulli_impl,
  .sorts = "f64, f32, words",   /* a word key, draws of the model's scalar */
  .n_in = 1, .in_kind = key_port, .check = bernoulli_check,
  .out_sort = draw_out_sort, .forward = draw_forward, .jvp = cn__zero_jvp, .ibp = draw_ibp, .ibp_mpfi = draw_mpfi,
  .certs = CN__CERTS (CN__CERT_IBP),
};

const struct cn_op_rule cn__rule_DROPOUT = { .op = CN_OP_DROPOUT,
  .n_in = 2, .in_kind = dropout_ports, .flags = CN_RULE_NEEDS_BOUNDS,
  .check = dropout_check, .forward = dropout_forward, .pullback = dropout_pullback, .jvp = dropout_jvp,
  .ibp = dropout_ibp, .ibp_mpfi = dropout_mpfi, .crown = dropout_crown,
  .certs = CN__CERTS (CN__CERT_GRADIENT, CN__CERT_BOUNDS),
};

/* topKMask's CROWN arm discharges the mask over its own IBP box (header): cn__crown_own_box. */
const struct cn_op_rule cn__rule_TOP_KMASK = { .op = CN_OP_TOP_KMASK,
  .n_in = 1, .in_kind = frozen_port, .flags = CN_RULE_NEEDS_BOUNDS,
  .check = topk_mask_check, .forward = topk_mask_forward, .jvp = cn__zero_jvp, .ibp = topk_mask_ibp,
  .ibp_mpfi = topk_mask_mpfi, .crown = cn__crown_own_box,
  .certs = CN__CERTS (CN__CERT_IBP),
};
