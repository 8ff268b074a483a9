/* SPDX-License-Identifier: MIT */
/* src/ops/spectral.c: the spectral transforms rfft, irfft (cn_params_fft) and Mamba's selective
 * scan, selectiveScan (no attributes).
 *
 * ---- rfft, irfft ----
 * Both work on rows: rfft maps every row x_0..x_{N-1} of the last axis (N >= 1) to the
 * M = N/2 + 1 complex numbers X_k, stored as [.., M, 2] (real part, imaginary part); irfft maps
 * the [.., M, 2] numbers of a row back to N reals (N = cn_params_fft.n, M = N/2 + 1 required):
 *
 *   rfft   X_k = sc sum_{t<N} x_t e^{-i theta_{kt}},   theta_m = 2 pi m / N,
 *          Re X_k = sc sum_t x_t cos theta_{kt},  Im X_k = -sc sum_t x_t sin theta_{kt};
 *   irfft  x_t = sc sum_{k<M} f_k (Re X_k cos theta_{kt} - Im X_k sin theta_{kt}),
 *          f_k = 1 for k = 0 and (N even) k = N/2, else 2 (the Hermitian partners of X_k), and the
 *          imaginary parts of X_0 and X_{N/2} (N even) ignored, as numpy's irfft (their sine
 *          factors sin 0 and sin (pi t) are 0 anyway).
 *   sc (NORM, numpy's names): rfft 1 (backward), 1/sqrt(N) (ortho), 1/N (forward); irfft 1/N
 *   (backward), 1/sqrt(N) (ortho), 1 (forward).  So irfft(rfft(x)) = x for every NORM.
 * Both are linear maps y = W x per row, and every arm works with the coefficient of input i in
 * output o (coef () below): a twiddle index m = k t mod N (computed exactly in integers, so no
 * large angle is ever formed), a cosine or a sine, and a small integer factor f in {0, +-1, +-2}.
 *
 * Twiddles.  theta_m is reduced exactly: 4m = qN + r (0 <= r < N) gives theta_m = q pi/2 + phi
 * with phi = r pi / (2N) in [0, pi/2); for 2r > N the complement pi/2 - phi = (N - r) pi/(2N)
 * is used, so the angle actually evaluated is a = j pi / (2N) with 0 < j <= N/2, a in (0, pi/4].
 * r = 0 gives the exact values (cos, sin) in {0, +-1}; the quadrant q only permutes and negates.
 *   forward twiddles (binary64): a is formed in double-double (j/(2N) with its remainder by fma,
 *   times pi = PI_HI + PI_LO), rounded once, then glibc's cos and sin.  Measured against MPFR at
 *   300 bits (glibc, x86-64; every m for every N <= 512 and 5 10^4 random m with N up to 2^31):
 *   at most 1.46 ulp of the exact cos theta_m or sin theta_m (the rounding of a, relative 2^-53,
 *   plus libm's error); the exact zeros and ones are exact.
 *   enclosures (IBP, CROWN, MPFI): sc cos theta_m and sc sin theta_m in MPFI (mpfi_const_pi,
 *   mpfi_mul_ui, mpfi_div_ui, mpfi_cos, mpfi_sin, the scale 1/N or 1/sqrt(N) by mpfi_ui_div /
 *   mpfi_sqrt), at 80 bits for the double arms (then the left end rounded down, the right end up:
 *   [lo, hi] with lo <= sc cos theta_m <= hi, one ulp wide or a point) and at the output's
 *   precision + 16 bits for the MPFI arm; the exact cases r = 0 are set exactly in both.
 *   forward  in the tensor's sort T (binary64 or binary32; binary32 uses the binary64 twiddles
 *            rounded to float), per output a running sum over the inputs in increasing order,
 *            acc += (f w) x_i with f w exact (f in {+-1, +-2}), then one product by sc (rounded to
 *            T) unless sc = 1.  Not correctly rounded.  Measured against MPFR at 300 bits (4000
 *            random rows of N = 1..64 per operator, entries uniform in [-1, 1], every NORM), in units of
 *            u sum_i |W_oi x_i| (u the unit roundoff of T; the dot-product yardstick, since the
 *            outputs cancel), the largest seen: rfft 3.7 (binary64) / 3.8 (binary32), irfft 3.7 /
 *            3.9 (binary32 against the exact transform of the float inputs).  Relative to |y_o|
 *            the error is unbounded where an output nearly cancels; an output that is exactly 0
 *            for every x (Im X_0, Im X_{N/2}) is exactly 0.
 *   pullback (binary64) the transpose: g_x,i += sc sum_o g_o f w (per input, increasing o);
 *   jvp      the forward map in binary64 applied to the tangent.  Linear: no one-sided choice.
 *   IBP      per output o the selection sums of sum_i [lo, hi]_oi [xl_i, xu_i] (cn__itv_term: the
 *            coefficient enclosure times the box, every corner product the RN rounding of the
 *            exact extreme corner), closed by cn__sum_lo / cn__sum_hi with the (G) error of the K
 *            terms.  The exact linear map with the exact twiddles lies in the coefficient
 *            enclosures, so the box contains the exact range (ALGORITHMS.md 1.1 and 6.4).  A NaN
 *            end is CN_ENUMERIC; infinite ends give infinite ends (an inf - inf sum becomes the
 *            infinite end, cn__sum_lo / cn__sum_hi).
 *   MPFI     sum_i W_oi x_i with mpfi_mul and mpfi_add, W_oi the MPFI enclosure of the coefficient.
 *   CROWN    lam_in = fl(lam_out W~) with W~ the binary64 nearest to each exact coefficient (the
 *            rounded midpoint of its enclosure) and |W - W~| <= E (E = f max(hi - W~, W~ - lo)
 *            rounded up).  Then lam_out W x = lam_in x + (lam_out W~ - lam_in) x
 *            + lam_out (W - W~) x, and the two error terms are charged: the first by (G)
 *            (cn__crown_charge_affine, with w_o >= sum_i |W~_oi| m_i), the second by
 *            sum_o |lam_o| e_o with e_o >= sum_i E_oi m_i (m_i = max(|xl_i|, |xu_i|)), every sum
 *            of nonnegative terms closed upward by (N).  No relaxation: the arm needs no bounds
 *            for soundness, only the magnitudes m of the input box.
 *
 * ---- selectiveScan ----
 * Inputs u [.., L, D], delta [.., L, D], A [D, P], B [.., L, P], C [.., L, P], Dskip [D] (the
 * leading axes of u, delta, B and C equal, no broadcasting); output y [.., L, D].  For every batch
 * index b and channel d, with h_0[p] = 0:
 *   a_t[p] = exp(delta_t[d] A[d,p]),  z_t[p] = delta_t[d] B_t[p] u_t[d],
 *   h_t[p] = a_t[p] h_{t-1}[p] + z_t[p],  y_t[d] = sum_p C_t[p] h_t[p] + Dskip[d] u_t[d].
 *   forward  in the tensor's sort T (exp / expf), in this order: for t = 0..L-1, for p = 0..P-1:
 *            a = exp(delta A), h = a h + (delta B) u, acc += C h; then y = acc + Dskip u.  Not
 *            correctly rounded: measured against MPFR at 300 bits (2 10^4 random instances with
 *            L, D, P <= 6, entries uniform in [-1, 1]), in units of
 *            u (sum_p |C_t[p]| H_t[p] + |Dskip u_t|) with H the recurrence on magnitudes
 *            (H_t = a_t H_{t-1} + |z_t|: the yardstick of a sum that may cancel, as for rfft), the
 *            largest seen: binary64 4.2, binary32 4.5.
 *   pullback (binary64) reverse mode through the recurrence, the states h_t of one (b, d)
 *            recomputed and kept (L P doubles): with gh_t[p] = g_t C_t[p] + a_{t+1}[p] gh_{t+1}[p],
 *              g_C,t[p] += g_t h_t[p],  g_delta,t += sum_p gh_t (h_{t-1} a_t A[d,p] + B_t u_t),
 *              g_A[d,p] += sum_t gh_t h_{t-1} a_t delta_t,  g_B,t[p] += gh_t delta_t u_t,
 *              g_u,t += sum_p gh_t delta_t B_t + g_t Dskip,  g_Dskip += sum_t g_t u_t.
 *   jvp      tangents through the recurrence: a' = a (delta' A + delta A'),
 *            z' = delta' B u + delta B' u + delta B u', h' = a' h_{t-1} + a h'_{t-1} + z',
 *            y' = sum_p (C' h + C h') + Dskip' u + Dskip u'.  Smooth: no one-sided choice.
 *   IBP      interval arithmetic through the recurrence (the dependency between a_t and z_t
 *            through delta_t ignored, which only widens): the product delta A and the products of
 *            z as intervals with every corner product rounded outward (cn__down / cn__up of its
 *            RN value, 0 inf = 0, an overflowing corner DBL_MAX / -DBL_MAX on the inner side),
 *            exp's ends from MPFR at 53 bits with directed rounding (exp(l) down, exp(u) up), the
 *            sum a h + z outward, and y_t by the selection sums of sum_p [C][h] + [Dskip][u]
 *            closed with the (G) error (cn__itv_term, cn__sum_lo, cn__sum_hi).  Every step
 *            contains the exact interval operation on its inputs, so the box contains y over the
 *            input boxes.  A NaN end is CN_ENUMERIC; a step that meets inf - inf gives the
 *            infinite end.
 *   MPFI     the same recurrence with mpfi_mul, mpfi_exp, mpfi_add at the output's precision (an
 *            enclosure that comes out NaN, from 0 inf, is replaced by [-inf, +inf]).
 *   CROWN    (beyond the seed's table, which has no bounds for it; as the comparisons of
 *            src/ops/logic.c) the output is discharged over its own IBP box: bias[s] +=
 *            cn__box_min_dot (lam_out[s], box), a lower bound of lam_out[s] . y with its rounding
 *            charged; no coefficient reaches the inputs, so a sweep passes through the node at the
 *            quality of IBP there.  CN_RULE_NEEDS_BOUNDS: CROWN tightens the inputs' boxes first.
 * rfft and irfft share every arm but the check; each rule's impl (struct fft_impl) says which
 * direction it transforms.  The arms trust the shapes and sorts the graph builder checked (debug
 * assertions state them); NaN ends are input, refused as above. */
#include <config.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "ops/ops_impl.h"
#include "sound/sound.h"

/* pi = PI_HI + PI_LO to about 2^-107 relative. */
#define PI_HI 0x1.921fb54442d18p+1
#define PI_LO 0x1.1a62633145c07p-53
/* The largest transform length: k t < N^2 stays far inside int64_t. */
#define FFT_NMAX ((int64_t) 1 << 31)
/* Precision of the twiddle enclosures of the binary64 arms. */
#define TW_PREC 80

/* ---- geometry --------------------------------------------------------------------------- */

/* A node's rows: ROWS rows, each with NIN inputs and NOUT outputs; N the transform length. */
struct fgeom
{
  int inverse;
  int64_t rows, n, m, nin, nout;
  cn_fft_norm norm;
};

/* The family's data of rfft and irfft, their rules' impl: they share every arm but the check,
 * and differ in the direction of the transform. */
struct fft_impl
{
  int inverse;
};

static struct fgeom
fgeom_of (const cn_node_view *nv)
{
  const cn_params_fft *p = nv->params;
  struct fgeom g;
  g.inverse = ((const struct fft_impl *) nv->rule->impl)->inverse;
  g.norm = p->norm;
  const cn_shape *s = nv->in_shape[0];
  if (!g.inverse)
    {
      g.n = s->dim[s->rank - 1];
      g.m = g.n / 2 + 1;
      g.nin = g.n;
      g.nout = 2 * g.m;
    }
  else
    {
      g.n = p->n;
      g.m = g.n / 2 + 1;
      g.nin = 2 * g.m;
      g.nout = g.n;
    }
  int64_t total = cn__numel (s);
  g.rows = g.nin > 0 ? total / g.nin : 0;
  return g;
}

/* The coefficient of row input I in row output O: twiddle index *M, *SINE (0: cos, 1: sin) and
 * the factor returned (0: no dependence). */
static inline int
coef (const struct fgeom *g, int64_t o, int64_t i, int64_t *m, int *sine)
{
  if (!g->inverse)
    {
      int64_t k = o >> 1;
      *m = (k * i) % g->n;
      *sine = (int) (o & 1);
      return *sine ? -1 : 1;
    }
  int64_t k = i >> 1;
  int edge = k == 0 || 2 * k == g->n;
  *m = (k * o) % g->n;
  *sine = (int) (i & 1);
  if (*sine)
    return edge ? 0 : -2;
  return edge ? 1 : 2;
}

/* The scale sc as a double (in binary64 arithmetic): 1, 1/N or 1/sqrt(N). */
static int
scale_kind (const struct fgeom *g)
{
  /* 0: 1, 1: 1/N, 2: 1/sqrt(N) */
  if (g->norm == CN_FFT_ORTHO)
    return 2;
  if (g->inverse)
    return g->norm == CN_FFT_BACKWARD ? 1 : 0;
  return g->norm == CN_FFT_FORWARD ? 1 : 0;
}

/* ---- twiddles --------------------------------------------------------------------------- */

/* The exact reduction of theta_m = 2 pi m / N (header): quadrant *Q, and *J with the evaluated
 * angle a = j pi / (2N) (j = 0: exact), *COMP set when the complement was taken. */
static inline void
reduce (int64_t m, int64_t N, int *q, int64_t *j, int *comp)
{
  int64_t m4 = 4 * m;
  *q = (int) (m4 / N);
  int64_t r = m4 - (int64_t) *q * N;
  *comp = 2 * r > N;
  *j = *comp ? N - r : r;
}

/* cos theta_m and sin theta_m in binary64 (header: at most 0.93 ulp measured). */
static void
twiddle_d (int64_t m, int64_t N, double *c, double *s)
{
  int q, comp;
  int64_t j;
  reduce (m, N, &q, &j, &comp);
  double cp = 1, sp = 0;
  if (j != 0)
    {
      /* a = (j / 2N) pi in double-double: qh + ql = j / 2N to 2^-106, then times PI_HI + PI_LO */
      double d = 2.0 * (double) N, qh = (double) j / d;
      double ql = fma (-qh, d, (double) j) / d;
      double ah = qh * PI_HI, al = fma (qh, PI_HI, -ah);
      double a = ah + (al + (qh * PI_LO + ql * PI_HI));
      double cj = cos (a), sj = sin (a);
      cp = comp ? sj : cj;
      sp = comp ? cj : sj;
    }
  switch (q)
    {
    case 0: *c = cp; *s = sp; break;
    case 1: *c = -sp; *s = cp; break;
    case 2: *c = -cp; *s = -sp; break;
    default: *c = sp; *s = -cp; break;
    }
}

/* The MPFI enclosures C, S of sc cos theta_m and sc sin theta_m (SC the scale's enclosure; T, U
 * scratch of the same precision). */
static void
twiddle_fi (int64_t m, int64_t N, mpfi_srcptr sc, mpfi_ptr c, mpfi_ptr s, mpfi_ptr t, mpfi_ptr u)
{
  int q, comp;
  int64_t j;
  reduce (m, N, &q, &j, &comp);
  if (j == 0)
    {
      mpfi_set_ui (t, 1);
      mpfi_set_ui (u, 0);
    }
  else
    {
      mpfi_const_pi (c);
      mpfi_mul_ui (c, c, (unsigned long) j);
      mpfi_div_ui (c, c, (unsigned long) (2 * N));
      /* now c encloses a = j pi / (2N) */
      mpfi_cos (comp ? u : t, c);
      mpfi_sin (comp ? t : u, c);
    }
  /* t, u enclose cos and sin of phi; rotate by q pi/2 */
  switch (q)
    {
    case 0: mpfi_set (c, t); mpfi_set (s, u); break;
    case 1: mpfi_neg (c, u); mpfi_set (s, t); break;
    case 2: mpfi_neg (c, t); mpfi_neg (s, u); break;
    default: mpfi_set (c, u); mpfi_neg (s, t); break;
    }
  mpfi_mul (c, c, sc);
  mpfi_mul (s, s, sc);
}

/* The enclosure of the scale sc in SC. */
static void
scale_fi (const struct fgeom *g, mpfi_ptr sc)
{
  switch (scale_kind (g))
    {
    case 0: mpfi_set_ui (sc, 1); break;
    case 1:
      mpfi_set_ui (sc, (unsigned long) g->n);
      mpfi_ui_div (sc, 1, sc);
      break;
    default:
      mpfi_set_ui (sc, (unsigned long) g->n);
      mpfi_sqrt (sc, sc);
      mpfi_ui_div (sc, 1, sc);
      break;
    }
}

/* The binary64 twiddle tables of a node: TC[m] = cos theta_m, TS[m] = sin theta_m (unscaled). */
static cn_status
tables_d (const cn_node_view *nv, const struct fgeom *g, double **tc, double **ts, cn_error *err)
{
  size_t n = (size_t) (g->n > 0 ? g->n : 1);
  *tc = malloc (n * sizeof **tc);
  *ts = malloc (n * sizeof **ts);
  if (*tc == NULL || *ts == NULL)
    {
      free (*tc);
      free (*ts);
      *tc = *ts = NULL;
      return cn_error_set (err, CN_ENOMEM, "%s: out of memory (node '%s')", cn_op_name (nv->op), cn__node_name (nv));
    }
  for (int64_t m = 0; m < g->n; m++)
    twiddle_d (m, g->n, &(*tc)[m], &(*ts)[m]);
  return CN_OK;
}

/* The enclosure tables of the binary64 arms, scaled: ENC[6 m + 0..2] = lo, nearest, hi of
 * sc cos theta_m, ENC[6 m + 3..5] the same for sc sin theta_m. */
static cn_status
tables_enc (const cn_node_view *nv, const struct fgeom *g, double **enc, cn_error *err)
{
  *enc = malloc ((size_t) (g->n > 0 ? g->n : 1) * 6 * sizeof **enc);
  if (*enc == NULL)
    return cn_error_set (err, CN_ENOMEM, "%s: out of memory (node '%s')", cn_op_name (nv->op), cn__node_name (nv));
  mpfi_t sc, c, s, t, u;
  mpfi_init2 (sc, TW_PREC);
  mpfi_init2 (c, TW_PREC);
  mpfi_init2 (s, TW_PREC);
  mpfi_init2 (t, TW_PREC);
  mpfi_init2 (u, TW_PREC);
  mpfr_t mid;
  mpfr_init2 (mid, TW_PREC);
  scale_fi (g, sc);
  for (int64_t m = 0; m < g->n; m++)
    {
      twiddle_fi (m, g->n, sc, c, s, t, u);
      double *e = *enc + 6 * m;
      e[0] = mpfr_get_d (&c->left, MPFR_RNDD);
      e[2] = mpfr_get_d (&c->right, MPFR_RNDU);
      mpfi_mid (mid, c);
      e[1] = fmin (fmax (mpfr_get_d (mid, MPFR_RNDN), e[0]), e[2]);
      e[3] = mpfr_get_d (&s->left, MPFR_RNDD);
      e[5] = mpfr_get_d (&s->right, MPFR_RNDU);
      mpfi_mid (mid, s);
      e[4] = fmin (fmax (mpfr_get_d (mid, MPFR_RNDN), e[3]), e[5]);
      /* now e[0] <= sc cos theta_m <= e[2] and e[3] <= sc sin theta_m <= e[5] */
    }
  mpfi_clear (sc);
  mpfi_clear (c);
  mpfi_clear (s);
  mpfi_clear (t);
  mpfi_clear (u);
  mpfr_clear (mid);
  return CN_OK;
}

/* ---- checks ----------------------------------------------------------------------------- */

static cn_status
fft_params_ok (const char *op, const cn_params_fft *p, cn_error *err)
{
  if (p == NULL)
    return cn_error_set (err, CN_EINVAL, "%s: missing attributes", op);
  if (p->norm != CN_FFT_BACKWARD && p->norm != CN_FFT_ORTHO && p->norm != CN_FFT_FORWARD)
    return cn_error_set (err, CN_EINVAL, "%s: unknown norm %d", op, (int) p->norm);
  return CN_OK;
}

static cn_status
rfft_check (const struct cn_op_rule *rule, const void *params, int n_in, const cn_shape *const *in, cn_shape *out, cn_error *err)
{
  (void) rule;
  cn_status st = fft_params_ok ("rfft", params, err);
  if (st != CN_OK)
    return st;
  if (n_in != 1)
    return cn_error_set (err, CN_EINVAL, "rfft: takes 1 input, got %d", n_in);
  if ((st = cn__input_valid ("rfft", 0, in[0], err)) != CN_OK)
    return st;
  const cn_shape *s = in[0];
  if (s->rank < 1 || s->rank >= CN_MAX_RANK)
    return cn_error_set (err, CN_ESHAPE, "rfft: the input needs rank 1 to %d, got %d", CN_MAX_RANK - 1, s->rank);
  int64_t n = s->dim[s->rank - 1];
  if (n < 1 || n > FFT_NMAX)
    return cn_error_set (err, CN_ESHAPE, "rfft: transform length %lld outside [1, 2^31]", (long long) n);
  cn_shape o = cn__shape_clean (s);
  o.dim[s->rank - 1] = n / 2 + 1;
  o.dim[s->rank] = 2;
  o.rank = s->rank + 1;
  if ((st = cn__shape_valid ("rfft", "output", &o, err)) != CN_OK)
    return st;
  *out = o;
  return CN_OK;
}

static cn_status
irfft_check (const struct cn_op_rule *rule, const void *params, int n_in, const cn_shape *const *in, cn_shape *out, cn_error *err)
{
  (void) rule;
  cn_status st = fft_params_ok ("irfft", params, err);
  if (st != CN_OK)
    return st;
  const cn_params_fft *p = params;
  if (n_in != 1)
    return cn_error_set (err, CN_EINVAL, "irfft: takes 1 input, got %d", n_in);
  if ((st = cn__input_valid ("irfft", 0, in[0], err)) != CN_OK)
    return st;
  const cn_shape *s = in[0];
  if (s->rank < 2)
    return cn_error_set (err, CN_ESHAPE, "irfft: the input needs rank 2 or more ([.., M, 2]), got %d", s->rank);
  if (s->dim[s->rank - 1] != 2)
    return cn_error_set (err, CN_ESHAPE, "irfft: the last axis has extent %lld, expected 2 (real, imaginary)",
                         (long long) s->dim[s->rank - 1]);
  if (p->n < 1 || p->n > FFT_NMAX)
    return cn_error_set (err, CN_EINVAL, "irfft: output length n = %lld outside [1, 2^31]", (long long) p->n);
  if (s->dim[s->rank - 2] != p->n / 2 + 1)
    return cn_error_set (err, CN_ESHAPE, "irfft: %lld frequencies on axis %d, expected n/2 + 1 = %lld for n = %lld",
                         (long long) s->dim[s->rank - 2], s->rank - 2, (long long) (p->n / 2 + 1), (long long) p->n);
  cn_shape o = cn__shape_clean (s);
  o.rank = s->rank - 1;
  o.dim[o.rank] = 0;
  o.dim[o.rank - 1] = p->n;
  if ((st = cn__shape_valid ("irfft", "output", &o, err)) != CN_OK)
    return st;
  *out = o;
  return CN_OK;
}

/* ---- forward, pullback, jvp ------------------------------------------------------------- */

/* y = W x row by row with the unscaled tables TC, TS in sort T, then times SC unless it is 1. */
#define FFT_APPLY_FN(NAME, T)                                                                    \
  static void NAME (const struct fgeom *g, const T *tc, const T *ts, T sc, int scaled, const T *x, \
                    T *y)                                                                        \
  {                                                                                              \
    for (int64_t r = 0; r < g->rows; r++)                                                        \
      {                                                                                          \
        const T *xr = x + r * g->nin;                                                            \
        T *yr = y + r * g->nout;                                                                 \
        for (int64_t o = 0; o < g->nout; o++)                                                    \
          {                                                                                      \
            T acc = 0;                                                                           \
            for (int64_t i = 0; i < g->nin; i++)                                                 \
              {                                                                                  \
                int64_t m;                                                                       \
                int sine, f = coef (g, o, i, &m, &sine);                                         \
                if (f == 0)                                                                      \
                  continue;                                                                      \
                acc += ((T) f * (sine ? ts[m] : tc[m])) * xr[i];                                 \
              }                                                                                  \
            /* acc = the RN running sum of the exact coefficient-table products */              \
            yr[o] = scaled ? acc * sc : acc;                                                     \
          }                                                                                      \
      }                                                                                          \
  }

FFT_APPLY_FN (fft_apply_f64, double)
FFT_APPLY_FN (fft_apply_f32, float)

static double
scale_d (const struct fgeom *g)
{
  int k = scale_kind (g);
  return k == 0 ? 1 : k == 1 ? 1 / (double) g->n : 1 / sqrt ((double) g->n);
}

static float
scale_f (const struct fgeom *g)
{
  int k = scale_kind (g);
  return k == 0 ? 1.0f : k == 1 ? 1.0f / (float) g->n : 1.0f / sqrtf ((float) g->n);
}

/* Whether the node has its attributes and one input, and arrays of N_IN and N_OUT entries are its
 * input and output (an invariant: the graph builder checked them, and the engines allocate from
 * the shapes). */
static int
fft_sizes_ok (const cn_node_view *nv, int64_t n_in, int64_t n_out)
{
  return nv->params != NULL && nv->n_in == 1 && n_in == cn__numel (nv->in_shape[0])
         && n_out == cn__numel (nv->out_shape);
}

static cn_status
fft_forward (const cn_node_view *nv, const cn_tensor *const *in, cn_tensor *out, cn_error *err)
{
  const char *op = cn_op_name (nv->op);
  CN__ASSERTD (cn_dtype_is_float (out->dtype) && in[0]->dtype == out->dtype);
  CN__ASSERTD (fft_sizes_ok (nv, cn_tensor_numel (in[0]), cn_tensor_numel (out)));
  cn_status st;
  struct fgeom g = fgeom_of (nv);
  if (g.rows == 0)
    return CN_OK;
  double *tc, *ts;
  if ((st = tables_d (nv, &g, &tc, &ts, err)) != CN_OK)
    return st;
  int scaled = scale_kind (&g) != 0;
  if (out->dtype == CN_DTYPE_F64)
    fft_apply_f64 (&g, tc, ts, scale_d (&g), scaled, in[0]->data, out->data);
  else
    {
      float *fc = malloc ((size_t) g.n * sizeof *fc), *fs = malloc ((size_t) g.n * sizeof *fs);
      if (fc == NULL || fs == NULL)
        st = cn_error_set (err, CN_ENOMEM, "%s: out of memory (node '%s')", op, cn__node_name (nv));
      else
        {
          for (int64_t m = 0; m < g.n; m++)
            {
              fc[m] = (float) tc[m];
              fs[m] = (float) ts[m];
            }
          fft_apply_f32 (&g, fc, fs, scale_f (&g), scaled, in[0]->data, out->data);
        }
      free (fc);
      free (fs);
    }
  free (tc);
  free (ts);
  return st;
}

/* Whether the pullback's and the jvp's tensors are binary64 of the node's shapes (an invariant:
 * the engines give the derivative arms binary64 points). */
static int
fft_points_ok (const cn_node_view *nv, const cn_tensor *const *in, const cn_tensor *out)
{
  return in[0]->dtype == CN_DTYPE_F64 && out->dtype == CN_DTYPE_F64
         && fft_sizes_ok (nv, cn_tensor_numel (in[0]), cn_tensor_numel (out));
}

static cn_status
fft_pullback (const cn_node_view *nv, const cn_tensor *const *in, const cn_tensor *out, const double *g_out,
              double *const *g_in, cn_error *err)
{
  CN__ASSERTD (fft_points_ok (nv, in, out));
  if (g_in[0] == NULL)
    return CN_OK;
  cn_status st;
  struct fgeom g = fgeom_of (nv);
  if (g.rows == 0)
    return CN_OK;
  double *tc, *ts;
  if ((st = tables_d (nv, &g, &tc, &ts, err)) != CN_OK)
    return st;
  double sc = scale_d (&g);
  for (int64_t r = 0; r < g.rows; r++)
    {
      const double *gr = g_out + r * g.nout;
      double *gx = g_in[0] + r * g.nin;
      for (int64_t i = 0; i < g.nin; i++)
        {
          double acc = 0;
          for (int64_t o = 0; o < g.nout; o++)
            {
              int64_t m;
              int sine, f = coef (&g, o, i, &m, &sine);
              if (f != 0)
                acc += (f * (sine ? ts[m] : tc[m])) * gr[o];
            }
          /* acc = sum_o g_o f w (the transpose's row i, unscaled) */
          gx[i] += acc * sc;
        }
    }
  free (tc);
  free (ts);
  return CN_OK;
}

static cn_status
fft_jvp (const cn_node_view *nv, const cn_tensor *const *in, const cn_tensor *out, const double *const *t_in,
         double *t_out, cn_error *err)
{
  CN__ASSERTD (fft_points_ok (nv, in, out));
  cn_status st;
  struct fgeom g = fgeom_of (nv);
  int64_t no = cn_tensor_numel (out);
  if (t_in[0] == NULL || g.rows == 0)
    {
      for (int64_t j = 0; j < no; j++)
        t_out[j] = 0;
      return CN_OK;
    }
  double *tc, *ts;
  if ((st = tables_d (nv, &g, &tc, &ts, err)) != CN_OK)
    return st;
  fft_apply_f64 (&g, tc, ts, scale_d (&g), scale_kind (&g) != 0, t_in[0], t_out);
  free (tc);
  free (ts);
  return CN_OK;
}

/* ---- IBP -------------------------------------------------------------------------------- */

/* The enclosure [*LO, *HI] of the coefficient f w (the table entry E of the twiddle, SINE). */
static inline void
coef_enc (const double *enc, int64_t m, int sine, int f, double *lo, double *hi)
{
  const double *e = enc + 6 * m + 3 * sine;
  if (f > 0)
    {
      *lo = f * e[0];
      *hi = f * e[2];
    }
  else
    {
      *lo = f * e[2];
      *hi = f * e[0];
    }
  /* exact: f in {1, 2, -1, -2} scales by a power of two and |e| <= 1 */
}

static cn_status
fft_ibp (const cn_node_view *nv, const cn_box *const *in, cn_box *out, cn_error *err)
{
  const char *op = cn_op_name (nv->op);
  CN__ASSERTD (fft_sizes_ok (nv, in[0]->n, out->n));
  cn_status st;
  for (int64_t j = 0; j < in[0]->n; j++)
    if (isnan (in[0]->lo[j]) || isnan (in[0]->hi[j]))
      return cn_error_set (err, CN_ENUMERIC, "%s: NaN end in the input box at entry %lld (node '%s')", op,
                           (long long) j, cn__node_name (nv));
  struct fgeom g = fgeom_of (nv);
  if (g.rows == 0)
    return CN_OK;
  double *enc;
  if ((st = tables_enc (nv, &g, &enc, err)) != CN_OK)
    return st;
  for (int64_t r = 0; r < g.rows; r++)
    {
      const double *xl = in[0]->lo + r * g.nin, *xu = in[0]->hi + r * g.nin;
      for (int64_t o = 0; o < g.nout; o++)
        {
          double sl = 0, tl = 0, sh = 0, th = 0;
          int64_t k = 0;
          for (int64_t i = 0; i < g.nin; i++)
            {
              int64_t m;
              int sine, f = coef (&g, o, i, &m, &sine);
              if (f == 0)
                continue;
              double cl, ch;
              coef_enc (enc, m, sine, f, &cl, &ch);
              cn__itv_term (cl, ch, xl[i], xu[i], &sl, &tl, &sh, &th);
              k++;
            }
          /* the exact sum over the coefficient enclosures and the box lies in [sum_lo, sum_hi] */
          out->lo[r * g.nout + o] = k ? cn__sum_lo (sl, tl, k) : 0;
          out->hi[r * g.nout + o] = k ? cn__sum_hi (sh, th, k) : 0;
        }
    }
  free (enc);
  return CN_OK;
}

/* ---- MPFI ------------------------------------------------------------------------------- */

static cn_status
fft_mpfi (const cn_node_view *nv, const cn_mpfi_vec *const *in, cn_mpfi_vec *out, cn_error *err)
{
  const char *op = cn_op_name (nv->op);
  CN__ASSERTD (fft_sizes_ok (nv, in[0]->n, out->n));
  for (int64_t j = 0; j < in[0]->n; j++)
    if (mpfi_nan_p (in[0]->v[j]))
      return cn_error_set (err, CN_ENUMERIC, "%s: NaN in the input enclosure at entry %lld (node '%s')", op,
                           (long long) j, cn__node_name (nv));
  struct fgeom g = fgeom_of (nv);
  if (g.rows == 0 || out->n == 0)
    return CN_OK;
  mpfr_prec_t prec = mpfi_get_prec (out->v[0]);
  mpfi_t *wc = malloc ((size_t) g.n * sizeof *wc), *ws = malloc ((size_t) g.n * sizeof *ws);
  if (wc == NULL || ws == NULL)
    {
      free (wc);
      free (ws);
      return cn_error_set (err, CN_ENOMEM, "%s: out of memory (node '%s')", op, cn__node_name (nv));
    }
  mpfi_t sc, t, u, acc;
  mpfi_init2 (sc, prec + 16);
  mpfi_init2 (t, prec + 16);
  mpfi_init2 (u, prec + 16);
  mpfi_init2 (acc, prec + 16);
  scale_fi (&g, sc);
  for (int64_t m = 0; m < g.n; m++)
    {
      mpfi_init2 (wc[m], prec + 16);
      mpfi_init2 (ws[m], prec + 16);
      twiddle_fi (m, g.n, sc, wc[m], ws[m], t, u);
    }
  for (int64_t r = 0; r < g.rows; r++)
    for (int64_t o = 0; o < g.nout; o++)
      {
        mpfi_set_ui (acc, 0);
        for (int64_t i = 0; i < g.nin; i++)
          {
            int64_t m;
            int sine, f = coef (&g, o, i, &m, &sine);
            if (f == 0)
              continue;
            mpfi_mul_si (t, sine ? ws[m] : wc[m], f);
            mpfi_mul (t, t, in[0]->v[r * g.nin + i]);
            mpfi_add (acc, acc, t);
          }
        mpfi_set (out->v[r * g.nout + o], acc);
        if (mpfi_nan_p (out->v[r * g.nout + o]))
          mpfi_interv_d (out->v[r * g.nout + o], -INFINITY, INFINITY);
      }
  for (int64_t m = 0; m < g.n; m++)
    {
      mpfi_clear (wc[m]);
      mpfi_clear (ws[m]);
    }
  mpfi_clear (sc);
  mpfi_clear (t);
  mpfi_clear (u);
  mpfi_clear (acc);
  free (wc);
  free (ws);
  return CN_OK;
}

/* ---- CROWN ------------------------------------------------------------------------------ */

static cn_status
fft_crown (const cn_crown_step *st, cn_error *err)
{
  const cn_node_view *nv = st->nv;
  const char *op = cn_op_name (nv->op);
  CN__ASSERTD (fft_sizes_ok (nv, st->in_box[0]->n, cn__numel (nv->out_shape)));
  if (st->lam_in[0] == NULL)
    return cn_error_set (err, CN_EINVAL, "%s: CROWN step on a constant input (node '%s')", op, cn__node_name (nv));
  struct fgeom g = fgeom_of (nv);
  int64_t nin = cn__numel (nv->in_shape[0]), nout = cn__numel (nv->out_shape);
  if (g.rows == 0 || nout == 0)
    return CN_OK;
  double *enc = NULL, *mag = malloc ((size_t) nin * sizeof *mag);
  double *w = malloc ((size_t) nout * sizeof *w), *e = malloc ((size_t) nout * sizeof *e);
  cn_status stt = CN_OK;
  if (mag == NULL || w == NULL || e == NULL)
    {
      stt = cn_error_set (err, CN_ENOMEM, "%s: out of memory (node '%s')", op, cn__node_name (nv));
      goto done;
    }
  if ((stt = tables_enc (nv, &g, &enc, err)) != CN_OK)
    goto done;
  double m1 = cn__box_magnitude (st->in_box[0], mag);
  /* w_o >= sum_i |W~_oi| m_i and e_o >= sum_i E_oi m_i for every output o */
  for (int64_t r = 0; r < g.rows; r++)
    for (int64_t o = 0; o < g.nout; o++)
      {
        double tw = 0, te = 0;
        for (int64_t i = 0; i < g.nin; i++)
          {
            int64_t m;
            int sine, f = coef (&g, o, i, &m, &sine);
            if (f == 0)
              continue;
            const double *q = enc + 6 * m + 3 * sine;
            double mi = mag[r * g.nin + i];
            double dev = q[0] == q[2] ? 0 : cn__up (fmax (q[2] - q[1], q[1] - q[0]));
            /* zero terms skipped: 0 times an infinite magnitude is 0 here */
            if (q[1] != 0)
              tw += fabs (f * q[1]) * mi;
            if (dev != 0)
              te += abs (f) * dev * mi;
          }
        w[r * g.nout + o] = cn__nonneg_up (tw, g.nin);
        e[r * g.nout + o] = cn__nonneg_up (te, g.nin);
      }
  for (int64_t s = 0; s < st->rows; s++)
    {
      const double *lo = st->lam_out + s * nout;
      double *li = st->lam_in[0] + s * nin;
      for (int64_t r = 0; r < g.rows; r++)
        for (int64_t i = 0; i < g.nin; i++)
          {
            double acc = 0;
            for (int64_t o = 0; o < g.nout; o++)
              {
                int64_t m;
                int sine, f = coef (&g, o, i, &m, &sine);
                if (f != 0)
                  acc += lo[r * g.nout + o] * (f * enc[6 * m + 3 * sine + 1]);
              }
            li[r * g.nin + i] = acc;
          }
      /* now lam_in = fl(lam_out W~), inner products of at most nout-per-row terms */
      double te = 0;
      for (int64_t o = 0; o < nout; o++)
        te += fabs (lo[o]) * e[o];
      /* |lam_out (W - W~) x| <= |lam_out| . e, closed upward by (N) */
      cn__crown_charge (st, s, cn__nonneg_up (te, nout));
    }
  cn__crown_charge_affine (st, w, g.nout, m1);
done:
  free (enc);
  free (mag);
  free (w);
  free (e);
  return stt;
}

/* ---- selectiveScan ---------------------------------------------------------------------- */

/* The sizes of a selectiveScan node: BATCH leading rows, L steps, D channels, P states. */
struct sgeom
{
  int64_t batch, l, d, p;
};

static cn_status
ss_check (const struct cn_op_rule *rule, const void *params, int n_in, const cn_shape *const *in, cn_shape *out, cn_error *err)
{
  (void) rule;
  (void) params;
  char a[128], b[128];
  if (n_in != 6)
    return cn_error_set (err, CN_EINVAL, "selectiveScan: takes 6 inputs (u, delta, A, B, C, Dskip), got %d", n_in);
  for (int i = 0; i < 6; i++)
    {
      cn_status st = cn__input_valid ("selectiveScan", i, in[i], err);
      if (st != CN_OK)
        return st;
    }
  const cn_shape *u = in[0];
  if (u->rank < 2)
    return cn_error_set (err, CN_ESHAPE, "selectiveScan: u needs rank 2 or more ([.., L, D]), got %d", u->rank);
  if (!cn_shape_equal (in[1], u))
    return cn_error_set (err, CN_ESHAPE, "selectiveScan: delta has shape %s, u %s",
                         cn_shape_format (in[1], a, sizeof a),
                         cn_shape_format (u, b, sizeof b));
  int64_t D = u->dim[u->rank - 1];
  if (in[2]->rank != 2 || in[2]->dim[0] != D)
    return cn_error_set (err, CN_ESHAPE, "selectiveScan: A has shape %s, expected [%lld, P]",
                         cn_shape_format (in[2], a, sizeof a), (long long) D);
  int64_t P = in[2]->dim[1];
  for (int i = 3; i <= 4; i++)
    {
      cn_shape want = *u;
      want.dim[u->rank - 1] = P;
      if (!cn_shape_equal (in[i], &want))
        return cn_error_set (err, CN_ESHAPE, "selectiveScan: %s has shape %s, expected %s", i == 3 ? "B" : "C",
                             cn_shape_format (in[i], a, sizeof a), cn_shape_format (&want, b, sizeof b));
    }
  if (in[5]->rank != 1 || in[5]->dim[0] != D)
    return cn_error_set (err, CN_ESHAPE, "selectiveScan: Dskip has shape %s, expected [%lld]",
                         cn_shape_format (in[5], a, sizeof a), (long long) D);
  *out = *u;
  return CN_OK;
}

/* The geometry *G of node NV, whose shapes ss_check accepted (an invariant the arms assert). */
static void
ss_geom (const cn_node_view *nv, struct sgeom *g)
{
  const cn_shape *u = nv->in_shape[0];
  CN__ASSERTD (nv->n_in == 6 && u->rank >= 2 && nv->in_shape[2]->rank == 2);
  g->l = u->dim[u->rank - 2];
  g->d = u->dim[u->rank - 1];
  g->p = nv->in_shape[2]->dim[1];
  g->batch = 1;
  for (int a = 0; a < u->rank - 2; a++)
    g->batch *= u->dim[a];
}

/* Whether the six inputs have N_IN[i] entries and the output N_OUT, as the geometry G says (an
 * invariant: the graph builder checked the shapes, and the engines allocate from them). */
static int
ss_sizes_ok (const struct sgeom *g, const int64_t *n_in, int64_t n_out)
{
  int64_t nu = g->batch * g->l * g->d, nb = g->batch * g->l * g->p;
  const int64_t want[6] = { nu, nu, g->d * g->p, nb, nb, g->d };
  for (int i = 0; i < 6; i++)
    if (n_in[i] != want[i])
      return 0;
  return n_out == nu;
}

#define SS_FORWARD_FN(NAME, T, EXP)                                                              \
  static void NAME (const struct sgeom *g, const T *u, const T *dl, const T *A, const T *B,      \
                    const T *C, const T *Ds, T *y, T *h)                                         \
  {                                                                                              \
    for (int64_t b = 0; b < g->batch; b++)                                                       \
      for (int64_t d = 0; d < g->d; d++)                                                         \
        {                                                                                        \
          for (int64_t p = 0; p < g->p; p++)                                                     \
            h[p] = 0;                                                                            \
          for (int64_t t = 0; t < g->l; t++)                                                     \
            {                                                                                    \
              int64_t q = (b * g->l + t) * g->d + d, qb = (b * g->l + t) * g->p;                  \
              T del = dl[q], uu = u[q], acc = 0;                                                 \
              for (int64_t p = 0; p < g->p; p++)                                                 \
                {                                                                                \
                  T a = EXP (del * A[d * g->p + p]);                                             \
                  h[p] = a * h[p] + (del * B[qb + p]) * uu;                                      \
                  acc += C[qb + p] * h[p];                                                       \
                }                                                                                \
              /* now h = h_t of channel d, acc = sum_p C_t h_t in RN */                          \
              y[q] = acc + Ds[d] * uu;                                                           \
            }                                                                                    \
        }                                                                                        \
  }

SS_FORWARD_FN (ss_forward_f64, double, exp)
SS_FORWARD_FN (ss_forward_f32, float, expf)

static void
ss_numels (const cn_tensor *const *in, int64_t *n)
{
  for (int i = 0; i < 6; i++)
    n[i] = cn_tensor_numel (in[i]);
}

static cn_status
ss_forward (const cn_node_view *nv, const cn_tensor *const *in, cn_tensor *out, cn_error *err)
{
  CN__ASSERTD (cn_dtype_is_float (out->dtype));
  for (int i = 0; i < 6; i++)
    CN__ASSERTD (in[i]->dtype == out->dtype);
  int64_t n[6];
  struct sgeom g;
  ss_numels (in, n);
  ss_geom (nv, &g);
  CN__ASSERTD (ss_sizes_ok (&g, n, cn_tensor_numel (out)));
  size_t es = out->dtype == CN_DTYPE_F64 ? sizeof (double) : sizeof (float);
  void *h = malloc ((size_t) (g.p ? g.p : 1) * es);
  if (h == NULL)
    return cn_error_set (err, CN_ENOMEM, "selectiveScan: out of memory (node '%s')", cn__node_name (nv));
  if (out->dtype == CN_DTYPE_F64)
    ss_forward_f64 (&g, in[0]->data, in[1]->data, in[2]->data, in[3]->data, in[4]->data, in[5]->data, out->data, h);
  else
    ss_forward_f32 (&g, in[0]->data, in[1]->data, in[2]->data, in[3]->data, in[4]->data, in[5]->data, out->data, h);
  free (h);
  return CN_OK;
}

/* The geometry *G of a derivative arm's node, whose tensors are binary64 of the node's shapes
 * (an invariant: the engines give the derivative arms binary64 points). */
static void
ss_diff_geom (const cn_node_view *nv, const cn_tensor *const *in, const cn_tensor *out, struct sgeom *g)
{
  for (int i = 0; i < 6; i++)
    CN__ASSERTD (in[i]->dtype == CN_DTYPE_F64);
  CN__ASSERTD (out->dtype == CN_DTYPE_F64);
  int64_t n[6];
  ss_numels (in, n);
  ss_geom (nv, g);
  CN__ASSERTD (ss_sizes_ok (g, n, cn_tensor_numel (out)));
}

static cn_status
ss_pullback (const cn_node_view *nv, const cn_tensor *const *in, const cn_tensor *out, const double *g_out,
             double *const *g_in, cn_error *err)
{
  struct sgeom g;
  ss_diff_geom (nv, in, out, &g);
  cn_status st = CN_OK;
  const double *u = in[0]->data, *dl = in[1]->data, *A = in[2]->data, *B = in[3]->data, *C = in[4]->data;
  const double *Ds = in[5]->data;
  double *gu = g_in[0], *gdl = g_in[1], *gA = g_in[2], *gB = g_in[3], *gC = g_in[4], *gD = g_in[5];
  int64_t P = g.p, L = g.l;
  /* H[t P + p] = h_t[p] for t = 0..L (h_0 = 0), E[t P + p] = a_{t+1}[p], carry[p] = a_{t+1} gh_{t+1} */
  double *H = malloc ((size_t) ((L + 1) * P + 1) * sizeof *H), *E = malloc ((size_t) (L * P + 1) * sizeof *E);
  double *carry = malloc ((size_t) (P + 1) * sizeof *carry);
  if (H == NULL || E == NULL || carry == NULL)
    {
      st = cn_error_set (err, CN_ENOMEM, "selectiveScan: out of memory (node '%s')", cn__node_name (nv));
      goto done;
    }
  for (int64_t b = 0; b < g.batch; b++)
    for (int64_t d = 0; d < g.d; d++)
      {
        for (int64_t p = 0; p < P; p++)
          H[p] = 0;
        for (int64_t t = 0; t < L; t++)
          {
            int64_t q = (b * L + t) * g.d + d, qb = (b * L + t) * P;
            for (int64_t p = 0; p < P; p++)
              {
                double a = exp (dl[q] * A[d * P + p]);
                E[t * P + p] = a;
                H[(t + 1) * P + p] = a * H[t * P + p] + (dl[q] * B[qb + p]) * u[q];
              }
          }
        for (int64_t p = 0; p < P; p++)
          carry[p] = 0;
        for (int64_t t = L - 1; t >= 0; t--)
          {
            int64_t q = (b * L + t) * g.d + d, qb = (b * L + t) * P;
            double gy = g_out[q], del = dl[q], uu = u[q], gdel = 0, guu = gy * Ds[d];
            if (gD != NULL)
              gD[d] += gy * uu;
            for (int64_t p = 0; p < P; p++)
              {
                double a = E[t * P + p], hp = H[t * P + p], ht = H[(t + 1) * P + p];
                double gh = gy * C[qb + p] + carry[p];
                /* gh = dL/dh_t[p]; dL/da_t = gh h_{t-1}, da/ddelta = A a, da/dA = delta a */
                double ga = gh * hp * a;
                if (gC != NULL)
                  gC[qb + p] += gy * ht;
                gdel += ga * A[d * P + p] + gh * (B[qb + p] * uu);
                if (gA != NULL)
                  gA[d * P + p] += ga * del;
                if (gB != NULL)
                  gB[qb + p] += gh * (del * uu);
                guu += gh * (del * B[qb + p]);
                carry[p] = a * gh;
              }
            if (gdl != NULL)
              gdl[q] += gdel;
            if (gu != NULL)
              gu[q] += guu;
          }
      }
done:
  free (H);
  free (E);
  free (carry);
  return st;
}

static cn_status
ss_jvp (const cn_node_view *nv, const cn_tensor *const *in, const cn_tensor *out, const double *const *t_in,
        double *t_out, cn_error *err)
{
  struct sgeom g;
  ss_diff_geom (nv, in, out, &g);
  const double *u = in[0]->data, *dl = in[1]->data, *A = in[2]->data, *B = in[3]->data, *C = in[4]->data;
  const double *Ds = in[5]->data;
  const double *tu = t_in[0], *tdl = t_in[1], *tA = t_in[2], *tB = t_in[3], *tC = t_in[4], *tD = t_in[5];
  int64_t P = g.p, L = g.l;
  double *h = malloc ((size_t) (2 * P + 1) * sizeof *h);
  if (h == NULL)
    return cn_error_set (err, CN_ENOMEM, "selectiveScan: out of memory (node '%s')", cn__node_name (nv));
  double *th = h + P;
  for (int64_t b = 0; b < g.batch; b++)
    for (int64_t d = 0; d < g.d; d++)
      {
        for (int64_t p = 0; p < P; p++)
          h[p] = th[p] = 0;
        for (int64_t t = 0; t < L; t++)
          {
            int64_t q = (b * L + t) * g.d + d, qb = (b * L + t) * P;
            double del = dl[q], uu = u[q], tdel = tdl ? tdl[q] : 0, tuu = tu ? tu[q] : 0, tacc = 0;
            for (int64_t p = 0; p < P; p++)
              {
                double Adp = A[d * P + p], tAdp = tA ? tA[d * P + p] : 0, Bp = B[qb + p], tBp = tB ? tB[qb + p] : 0;
                double a = exp (del * Adp);
                double ta = a * (tdel * Adp + del * tAdp);
                double tz = tdel * Bp * uu + del * tBp * uu + del * Bp * tuu;
                th[p] = ta * h[p] + a * th[p] + tz;
                h[p] = a * h[p] + (del * Bp) * uu;
                tacc += (tC ? tC[qb + p] * h[p] : 0) + C[qb + p] * th[p];
              }
            /* now h = h_t, th = its tangent */
            t_out[q] = tacc + (tD ? tD[d] * uu : 0) + Ds[d] * tuu;
          }
      }
  free (h);
  return CN_OK;
}

/* Outward ends of a real whose RN value is R: the lower end (NaN from inf - inf: -inf; +inf: the
 * exact value exceeds DBL_MAX) and the upper end. */
static inline double
lo_of (double r)
{
  return isnan (r) ? -INFINITY : r == INFINITY ? DBL_MAX : cn__down (r);
}

static inline double
hi_of (double r)
{
  return isnan (r) ? INFINITY : r == -INFINITY ? -DBL_MAX : cn__up (r);
}

/* [*lo, *hi] contains [al, ah] [bl, bh] (0 inf := 0), every corner rounded outward. */
static void
itv_mul (double al, double ah, double bl, double bh, double *lo, double *hi)
{
  double c[4] = { cn__mul0 (al, bl), cn__mul0 (al, bh), cn__mul0 (ah, bl), cn__mul0 (ah, bh) };
  double l = INFINITY, h = -INFINITY;
  for (int k = 0; k < 4; k++)
    {
      l = fmin (l, lo_of (c[k]));
      h = fmax (h, hi_of (c[k]));
    }
  /* each corner's RN value bounds the exact corner after lo_of / hi_of; the hull of the exact
   * corners is the exact product interval */
  *lo = l;
  *hi = h;
}

/* The opening of the IBP arm (input boxes BIN) and the MPFI arm (input enclosures MIN; exactly
 * one of the two is given) with OUT_N output entries: the geometry *G by ss_geom, and no NaN in
 * any input (CN_ENUMERIC naming the input and the entry otherwise). */
static cn_status
ss_open (const cn_node_view *nv, const cn_box *const *bin, const cn_mpfi_vec *const *min, int64_t out_n,
         struct sgeom *g, cn_error *err)
{
  int64_t n[6];
  for (int i = 0; i < 6; i++)
    n[i] = bin != NULL ? bin[i]->n : min[i]->n;
  ss_geom (nv, g);
  CN__ASSERTD (ss_sizes_ok (g, n, out_n));
  for (int i = 0; i < 6; i++)
    for (int64_t j = 0; j < n[i]; j++)
      if (bin != NULL ? isnan (bin[i]->lo[j]) || isnan (bin[i]->hi[j]) : mpfi_nan_p (min[i]->v[j]))
        return cn_error_set (err, CN_ENUMERIC, "selectiveScan: NaN %s %d at entry %lld (node '%s')",
                             bin != NULL ? "end in input box" : "in input enclosure", i, (long long) j,
                             cn__node_name (nv));
  return CN_OK;
}

static cn_status
ss_ibp (const cn_node_view *nv, const cn_box *const *in, cn_box *out, cn_error *err)
{
  struct sgeom g;
  cn_status st = ss_open (nv, in, NULL, out->n, &g, err);
  if (st != CN_OK)
    return st;
  int64_t P = g.p, L = g.l;
  double *hl = malloc ((size_t) (2 * P + 1) * sizeof *hl);
  if (hl == NULL)
    return cn_error_set (err, CN_ENOMEM, "selectiveScan: out of memory (node '%s')", cn__node_name (nv));
  double *hh = hl + P;
  const cn_box *U = in[0], *DL = in[1], *A = in[2], *B = in[3], *C = in[4], *Ds = in[5];
  mpfr_t e;
  mpfr_init2 (e, 53);
  for (int64_t b = 0; b < g.batch; b++)
    for (int64_t d = 0; d < g.d; d++)
      {
        for (int64_t p = 0; p < P; p++)
          hl[p] = hh[p] = 0;
        for (int64_t t = 0; t < L; t++)
          {
            int64_t q = (b * L + t) * g.d + d, qb = (b * L + t) * P;
            double sl = 0, tl = 0, sh = 0, th = 0;
            for (int64_t p = 0; p < P; p++)
              {
                double xl, xh, al, ah, zl, zh, pl, ph;
                int64_t ap = d * P + p;
                itv_mul (DL->lo[q], DL->hi[q], A->lo[ap], A->hi[ap], &xl, &xh);
                /* a_t in [exp(xl) down, exp(xh) up] */
                mpfr_set_d (e, xl, MPFR_RNDN);
                mpfr_exp (e, e, MPFR_RNDD);
                al = mpfr_get_d (e, MPFR_RNDD);
                mpfr_set_d (e, xh, MPFR_RNDN);
                mpfr_exp (e, e, MPFR_RNDU);
                ah = mpfr_get_d (e, MPFR_RNDU);
                itv_mul (DL->lo[q], DL->hi[q], B->lo[qb + p], B->hi[qb + p], &zl, &zh);
                itv_mul (zl, zh, U->lo[q], U->hi[q], &zl, &zh);
                itv_mul (al, ah, hl[p], hh[p], &pl, &ph);
                hl[p] = lo_of (pl + zl);
                hh[p] = hi_of (ph + zh);
                /* now [hl, hh] contains h_t[p] over the boxes */
                cn__itv_term (C->lo[qb + p], C->hi[qb + p], hl[p], hh[p], &sl, &tl, &sh, &th);
              }
            cn__itv_term (Ds->lo[d], Ds->hi[d], U->lo[q], U->hi[q], &sl, &tl, &sh, &th);
            out->lo[q] = cn__sum_lo (sl, tl, P + 1);
            out->hi[q] = cn__sum_hi (sh, th, P + 1);
          }
      }
  mpfr_clear (e);
  free (hl);
  return CN_OK;
}

static cn_status
ss_mpfi (const cn_node_view *nv, const cn_mpfi_vec *const *in, cn_mpfi_vec *out, cn_error *err)
{
  struct sgeom g;
  cn_status st = ss_open (nv, NULL, in, out->n, &g, err);
  if (st != CN_OK)
    return st;
  if (out->n == 0)
    return CN_OK;
  mpfr_prec_t prec = mpfi_get_prec (out->v[0]);
  int64_t P = g.p, L = g.l;
  mpfi_t *h = malloc ((size_t) (P + 1) * sizeof *h);
  if (h == NULL)
    return cn_error_set (err, CN_ENOMEM, "selectiveScan: out of memory (node '%s')", cn__node_name (nv));
  for (int64_t p = 0; p < P; p++)
    mpfi_init2 (h[p], prec);
  mpfi_t a, z, acc;
  mpfi_init2 (a, prec);
  mpfi_init2 (z, prec);
  mpfi_init2 (acc, prec);
  const cn_mpfi_vec *U = in[0], *DL = in[1], *A = in[2], *B = in[3], *C = in[4], *Ds = in[5];
  for (int64_t b = 0; b < g.batch; b++)
    for (int64_t d = 0; d < g.d; d++)
      {
        for (int64_t p = 0; p < P; p++)
          mpfi_set_ui (h[p], 0);
        for (int64_t t = 0; t < L; t++)
          {
            int64_t q = (b * L + t) * g.d + d, qb = (b * L + t) * P;
            mpfi_mul (acc, Ds->v[d], U->v[q]);
            for (int64_t p = 0; p < P; p++)
              {
                mpfi_mul (a, DL->v[q], A->v[d * P + p]);
                mpfi_exp (a, a);
                mpfi_mul (z, DL->v[q], B->v[qb + p]);
                mpfi_mul (z, z, U->v[q]);
                mpfi_mul (h[p], h[p], a);
                mpfi_add (h[p], h[p], z);
                if (mpfi_nan_p (h[p]))
                  mpfi_interv_d (h[p], -INFINITY, INFINITY);
                mpfi_mul (z, C->v[qb + p], h[p]);
                mpfi_add (acc, acc, z);
              }
            mpfi_set (out->v[q], acc);
            if (mpfi_nan_p (out->v[q]))
              mpfi_interv_d (out->v[q], -INFINITY, INFINITY);
          }
      }
  for (int64_t p = 0; p < P; p++)
    mpfi_clear (h[p]);
  mpfi_clear (a);
  mpfi_clear (z);
  mpfi_clear (acc);
  free (h);
  return CN_OK;
}

/* ---- the rules -------------------------------------------------------------------------- */

static const struct fft_impl rfft_impl = { .inverse = 0 };

const struct cn_op_rule cn__rule_RFFT = { .op = CN_OP_RFFT, .impl = &rfft_impl,
  .n_in = 1, .check = rfft_check, .forward = fft_forward,
  .pullback = fft_pullback, .jvp = fft_jvp, .ibp = fft_ibp, .ibp_mpfi = fft_mpfi, .crown = fft_crown,
  .certs = CN__CERTS (CN__CERT_GRADIENT, CN__CERT_BOUNDS),
};

static const struct fft_impl irfft_impl = { .inverse = 1 };

const struct cn_op_rule cn__rule_IRFFT = { .op = CN_OP_IRFFT, .impl = &irfft_impl,
  .n_in = 1, .check = irfft_check, .forward = fft_forward,
  .pullback = fft_pullback, .jvp = fft_jvp, .ibp = fft_ibp, .ibp_mpfi = fft_mpfi, .crown = fft_crown,
  .certs = CN__CERTS (CN__CERT_GRADIENT, CN__CERT_BOUNDS),
};

/* CROWN: y is discharged over its own IBP box (header): lam_out[s] . y >= cn__box_min_dot (lam_out[s],
 * box), the minimum's lower bound with its rounding charged; no coefficient reaches the inputs. */
const struct cn_op_rule cn__rule_SELECTIVE_SCAN = { .op = CN_OP_SELECTIVE_SCAN,
  .n_in = 6, .flags = CN_RULE_NEEDS_BOUNDS, .check = ss_check, .forward = ss_forward,
  .pullback = ss_pullback, .jvp = ss_jvp, .ibp = ss_ibp, .ibp_mpfi = ss_mpfi, .crown = cn__crown_own_box,
  .certs = CN__CERTS (CN__CERT_GRADIENT, CN__CERT_IBP),
};
