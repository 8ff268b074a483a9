/* SPDX-License-Identifier: MIT */
/* tests/random_checks.c: the random family's and the spectral transforms' own checks, beyond the
 * generic tests (tu_random_check, tu_spectral_check, called by tests/check_ops.c): Random123's
 * known answers of Philox4x32-10, the documented key and counter layout, determinism and the
 * moments of the draws; rfft and irfft against numpy's values, a long double DFT and each
 * other; selectiveScan by hand and against a long double recurrence; the checks, out_sort hooks
 * and IBP edges of both families.  The generic tests' instances of these operators are drawn in
 * src/ops/cases_random.c. */
#include <config.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "testutil.h"
#include "ops/ops_impl.h"

/* ---- the generator's own check ------------------------------------------------------------ */

/* The Philox4x32-10 block function of src/ops/random.c (internal). */
void cn__philox4x32_10 (uint32_t c[4], uint32_t k0, uint32_t k1);

int tu_random_check (char *msg, size_t size);

static int
fail (char *msg, size_t size, const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  vsnprintf (msg, size, fmt, ap);
  va_end (ap);
  return 0;
}

/* Draws N entries of OP (attributes P) under KEY through the rule's forward in binary64 into Y. */
static cn_status
draw_n (cn_op op, const void *p, uint64_t key, int64_t n, double *y, cn_error *err)
{
  const struct cn_op_rule *r = cn__op_rule (op);
  cn_shape ks, os;
  tu_shape_set (&ks, 0, NULL);
  tu_shape_set (&os, 1, &n);
  const cn_shape *in_shape[1] = { &ks };
  const cn_tensor *in_const[1] = { NULL };
  cn_node_view nv = { .op = op, .rule = cn__op_rule (op), .params = p, .n_in = 1, .in_shape = in_shape, .in_const = in_const,
                      .out_shape = &os, .name = "draw" };
  cn_tensor k, out;
  cn_status st = cn_tensor_init (&k, CN_DTYPE_U64, &ks, err);
  if (st != CN_OK)
    return st;
  *(uint64_t *) k.data = key;
  if ((st = cn_tensor_init (&out, CN_DTYPE_F64, &os, err)) != CN_OK)
    {
      cn_tensor_clear (&k);
      return st;
    }
  const cn_tensor *args[1] = { &k };
  st = r->forward (&nv, args, &out, err);
  if (st == CN_OK)
    memcpy (y, out.data, (size_t) n * sizeof *y);
  cn_tensor_clear (&k);
  cn_tensor_clear (&out);
  return st;
}

static int random_edges (char *msg, size_t size);
static cn_status forward_f64 (cn_op op, const void *p, int n_in, const cn_shape *sh, const double *const *x,
                              cn_shape *os, double *y, cn_error *err);

/* The masks and random draws beyond the generic tests.  The generator: Random123's known answers
 * of Philox4x32-10, the documented key and counter layout and 53-bit uniforms, determinism (equal
 * keys give equal bits, other keys other draws), and plausibly right moments over many draws
 * (randUniform's mean and variance and a 16-bin chi-square, randn's mean, variance, 5% tail and
 * range, bernoulliMask's frequency), each within 6 standard deviations.  Then the edges of the
 * arms (random_edges).  Returns 1 on success, else 0 with a message in MSG. */
int
tu_random_check (char *msg, size_t size)
{
  static const uint32_t kat[3][10] = {
    { 0, 0, 0, 0, 0, 0, 0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8 },
    { 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff,
      0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd },
    { 0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344, 0xa4093822, 0x299f31d0,
      0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1 } };
  for (int t = 0; t < 3; t++)
    {
      uint32_t c[4] = { kat[t][0], kat[t][1], kat[t][2], kat[t][3] };
      cn__philox4x32_10 (c, kat[t][4], kat[t][5]);
      for (int w = 0; w < 4; w++)
        if (c[w] != kat[t][6 + w])
          return fail (msg, size, "philox4x32-10: known answer %d word %d is %08x, expected %08x", t, w, c[w],
                       kat[t][6 + w]);
    }
  enum { N = 200000 };
  double *y = malloc (N * sizeof *y), *y2 = malloc (N * sizeof *y2);
  if (y == NULL || y2 == NULL)
    {
      free (y);
      free (y2);
      return fail (msg, size, "out of memory");
    }
  int ok = 0;
  cn_error err;
  cn_error_clear (&err);
  cn_params_rand_uniform pu;
  memset (&pu, 0, sizeof pu);
  pu.lo = 0;
  pu.hi = 1;
  /* the layout: position j, key K -> counter (j mod 2^32, j div 2^32, 0, 0), key halves (K mod 2^32,
   * K div 2^32), u = the top 53 bits of r0 + 2^32 r1 */
  for (int t = 0; t < 50; t++)
    {
      uint64_t key = tu_rand (), j = (uint64_t) tu_int (0, 63);
      if (draw_n (CN_OP_RAND_UNIFORM, &pu, key, 64, y, &err) != CN_OK)
        {
          fail (msg, size, "randUniform: %s", err.msg);
          goto done;
        }
      uint32_t c[4] = { (uint32_t) j, (uint32_t) (j >> 32), 0, 0 };
      cn__philox4x32_10 (c, (uint32_t) key, (uint32_t) (key >> 32));
      double u = (double) (((uint64_t) c[0] | (uint64_t) c[1] << 32) >> 11) * 0x1p-53;
      if (y[j] != u)
        {
          fail (msg, size, "randUniform: draw %llu under key %llu is %a, the documented construction gives %a",
                (unsigned long long) j, (unsigned long long) key, y[j], u);
          goto done;
        }
    }
  /* determinism, and other keys give other draws */
  uint64_t key = tu_rand ();
  if (draw_n (CN_OP_RAND_UNIFORM, &pu, key, N, y, &err) != CN_OK
      || draw_n (CN_OP_RAND_UNIFORM, &pu, key, N, y2, &err) != CN_OK)
    {
      fail (msg, size, "randUniform: %s", err.msg);
      goto done;
    }
  if (memcmp (y, y2, N * sizeof *y) != 0)
    {
      fail (msg, size, "randUniform: two draws under key %llu differ", (unsigned long long) key);
      goto done;
    }
  if (draw_n (CN_OP_RAND_UNIFORM, &pu, key + 1, N, y2, &err) != CN_OK)
    {
      fail (msg, size, "randUniform: %s", err.msg);
      goto done;
    }
  int64_t same = 0;
  for (int64_t j = 0; j < N; j++)
    same += y[j] == y2[j];
  if (same > 2)
    {
      fail (msg, size, "randUniform: keys %llu and %llu share %lld draws", (unsigned long long) key,
            (unsigned long long) (key + 1), (long long) same);
      goto done;
    }
  /* uniform moments: mean 1/2 (sd sqrt(1/12 N)), variance 1/12 (sd sqrt(1/180 N)), 16 bins */
  double m = 0, v = 0, bins[16] = { 0 };
  for (int64_t j = 0; j < N; j++)
    {
      if (!(y[j] >= 0 && y[j] < 1))
        {
          fail (msg, size, "randUniform: draw %lld = %g outside [0, 1)", (long long) j, y[j]);
          goto done;
        }
      m += y[j];
      bins[(int) (y[j] * 16)]++;
    }
  m /= N;
  for (int64_t j = 0; j < N; j++)
    v += (y[j] - m) * (y[j] - m);
  v /= N - 1;
  double chi = 0;
  for (int b = 0; b < 16; b++)
    chi += (bins[b] - N / 16.0) * (bins[b] - N / 16.0) / (N / 16.0);
  /* chi-square with 15 degrees of freedom: mean 15, sd sqrt(30); 15 + 6 sd < 48 */
  if (fabs (m - 0.5) > 6 * sqrt (1.0 / 12 / N) || fabs (v - 1.0 / 12) > 6 * sqrt (1.0 / 180 / N) || chi > 48)
    {
      fail (msg, size, "randUniform: mean %.6f, variance %.6f, chi-square %.2f over %d draws", m, v, chi, N);
      goto done;
    }
  /* randn: mean 0 (sd 1/sqrt N), variance 1 (sd sqrt(2/N)), |z| <= sqrt(106 ln 2) */
  cn_params_randn pn;
  memset (&pn, 0, sizeof pn);
  pn.mean = 0;
  pn.std = 1;
  if (draw_n (CN_OP_RANDN, &pn, key, N, y, &err) != CN_OK)
    {
      fail (msg, size, "randn: %s", err.msg);
      goto done;
    }
  m = v = 0;
  double r = sqrt (106 * log (2.0)), tail = 0;
  for (int64_t j = 0; j < N; j++)
    {
      if (!(fabs (y[j]) <= r))
        {
          fail (msg, size, "randn: draw %lld = %g outside [-%g, %g]", (long long) j, y[j], r, r);
          goto done;
        }
      m += y[j];
      v += y[j] * y[j];
      tail += fabs (y[j]) > 1.959963984540054;
    }
  m /= N;
  v /= N;
  /* P(|z| > 1.96) = 0.05, sd sqrt(0.05 0.95 / N) */
  if (fabs (m) > 6 / sqrt ((double) N) || fabs (v - 1) > 6 * sqrt (2.0 / N)
      || fabs (tail / N - 0.05) > 6 * sqrt (0.0475 / N))
    {
      fail (msg, size, "randn: mean %.6f, variance %.6f, two-sided 5%% tail %.6f over %d draws", m, v, tail / N, N);
      goto done;
    }
  /* bernoulliMask: frequency p (sd sqrt(p (1 - p) / N)) */
  cn_params_bernoulli pb;
  memset (&pb, 0, sizeof pb);
  pb.p = 0.3;
  if (draw_n (CN_OP_BERNOULLI_MASK, &pb, key, N, y, &err) != CN_OK)
    {
      fail (msg, size, "bernoulliMask: %s", err.msg);
      goto done;
    }
  m = 0;
  for (int64_t j = 0; j < N; j++)
    {
      if (y[j] != 0 && y[j] != 1)
        {
          fail (msg, size, "bernoulliMask: draw %lld = %g is not 0 or 1", (long long) j, y[j]);
          goto done;
        }
      m += y[j];
    }
  m /= N;
  if (fabs (m - 0.3) > 6 * sqrt (0.21 / N))
    {
      fail (msg, size, "bernoulliMask: frequency %.6f for p = 0.3 over %d draws", m, N);
      goto done;
    }
  ok = random_edges (msg, size);
done:
  free (y);
  free (y2);
  return ok;
}

/* ---- the spectral operators' own check ---------------------------------------------------- */

int tu_spectral_check (char *msg, size_t size);
static cn_status ibp_call (cn_op op, const void *p, int n_in, const cn_shape *sh, const double *const *lo,
                           const double *const *hi, double *ol, double *oh, cn_error *err);

/* The binary64 forward of OP (attributes P) on N_IN inputs of shapes SH with data X into Y (the
 * checked output shape in *OS). */
static cn_status
forward_f64 (cn_op op, const void *p, int n_in, const cn_shape *sh, const double *const *x, cn_shape *os, double *y,
             cn_error *err)
{
  const struct cn_op_rule *r = cn__op_rule (op);
  const cn_shape *in_shape[CN__CASE_MAX_IN];
  const cn_tensor *in_const[CN__CASE_MAX_IN] = { 0 }, *args[CN__CASE_MAX_IN];
  cn_tensor t[CN__CASE_MAX_IN], out;
  for (int i = 0; i < n_in; i++)
    in_shape[i] = &sh[i];
  cn_error_clear (err);
  cn_status st = r->check (r, p, n_in, in_shape, os, err);
  if (st != CN_OK)
    return st;
  cn_node_view nv = { .op = op, .rule = cn__op_rule (op), .params = p, .n_in = n_in, .in_shape = in_shape, .in_const = in_const,
                      .out_shape = os, .name = "check" };
  int made = 0;
  for (; made < n_in; made++)
    {
      if ((st = cn_tensor_init (&t[made], CN_DTYPE_F64, &sh[made], err)) != CN_OK)
        goto done;
      memcpy (t[made].data, x[made], (size_t) cn_shape_numel (&sh[made]) * sizeof (double));
      args[made] = &t[made];
    }
  if ((st = cn_tensor_init (&out, CN_DTYPE_F64, os, err)) != CN_OK)
    goto done;
  st = r->forward (&nv, args, &out, err);
  if (st == CN_OK)
    memcpy (y, out.data, (size_t) cn_shape_numel (os) * sizeof (double));
  cn_tensor_clear (&out);
done:
  for (int i = 0; i < made; i++)
    cn_tensor_clear (&t[i]);
  return st;
}

/* rfft and irfft against numpy's values and an independent DFT in long double, the round trip
 * irfft(rfft(x)) = x under every norm, irfft ignoring the imaginary parts of X_0 and X_{N/2};
 * selectiveScan against a value computed by hand and an independent long double recurrence.
 * Returns 1 on success, else 0 with a message in MSG. */
int
tu_spectral_check (char *msg, size_t size)
{
  cn_error err;
  cn_error_clear (&err);
  cn_shape sh[6], os;
  double y[64], z[64];
  /* numpy.fft.rfft([1, 2, 3, 4]) = [10, -2+2j, -2]; rfft([1, 2, 3, 4, 5]) = [15, -2.5+3.4409548011779334j,
   * -2.5+0.8122992405822659j] */
  {
    static const double x4[4] = { 1, 2, 3, 4 }, w4[6] = { 10, 0, -2, 2, -2, 0 };
    static const double x5[5] = { 1, 2, 3, 4, 5 }, w5[6] = { 15, 0, -2.5, 3.4409548011779334, -2.5,
                                                             0.8122992405822659 };
    for (int c = 0; c < 2; c++)
      for (int norm = 0; norm < 3; norm++)
        {
          int64_t n = c ? 5 : 4;
          const double *x = c ? x5 : x4, *w = c ? w5 : w4;
          cn_params_fft p = { .n = 0, .norm = (cn_fft_norm) norm };
          tu_shape_set (&sh[0], 1, &n);
          const double *xs[1] = { x };
          if (forward_f64 (CN_OP_RFFT, &p, 1, sh, xs, &os, y, &err) != CN_OK)
            return fail (msg, size, "rfft: %s", err.msg);
          double sc = norm == CN_FFT_BACKWARD ? 1 : norm == CN_FFT_ORTHO ? 1 / sqrt ((double) n) : 1 / (double) n;
          if (os.rank != 2 || os.dim[0] != 3 || os.dim[1] != 2)
            return fail (msg, size, "rfft: output rank %d for an input of length %lld", os.rank, (long long) n);
          for (int j = 0; j < 6; j++)
            if (fabs (y[j] - sc * w[j]) > 1e-14 * 16)
              return fail (msg, size, "rfft: N = %lld norm %d entry %d = %.17g, numpy %.17g", (long long) n, norm, j,
                           y[j], sc * w[j]);
        }
  }
  for (int it = 0; it < 200; it++)
    {
      int64_t n = tu_int (1, 16), m = n / 2 + 1, lead = tu_int (1, 2);
      int64_t d1[2] = { lead, n }, d2[3] = { lead, m, 2 };
      double x[32], X[48], back[32];
      for (int64_t j = 0; j < lead * n; j++)
        x[j] = tu_uniform (-1, 1);
      cn_params_fft p = { .n = n, .norm = (cn_fft_norm) tu_int (0, 2) };
      tu_shape_set (&sh[0], 2, d1);
      const double *xs[1] = { x };
      if (forward_f64 (CN_OP_RFFT, &p, 1, sh, xs, &os, X, &err) != CN_OK)
        return fail (msg, size, "rfft: %s", err.msg);
      /* the DFT in long double */
      long double sc = p.norm == CN_FFT_BACKWARD ? 1 : p.norm == CN_FFT_ORTHO ? 1 / sqrtl ((long double) n)
                                                                                 : 1 / (long double) n;
      for (int64_t r = 0; r < lead; r++)
        for (int64_t k = 0; k < m; k++)
          {
            long double re = 0, im = 0, mag = 0;
            for (int64_t t = 0; t < n; t++)
              {
                long double a = 2 * 3.14159265358979323846264338327950288L * (long double) (k * t) / (long double) n;
                re += x[r * n + t] * cosl (a);
                im -= x[r * n + t] * sinl (a);
                mag += fabsl (x[r * n + t]);
              }
            double e1 = fabs (X[(r * m + k) * 2] - (double) (sc * re));
            double e2 = fabs (X[(r * m + k) * 2 + 1] - (double) (sc * im));
            if (e1 > 1e-14 * (double) (sc * mag) || e2 > 1e-14 * (double) (sc * mag))
              return fail (msg, size, "rfft: N = %lld bin %lld = (%.17g, %.17g), the DFT gives (%.17g, %.17g)",
                           (long long) n, (long long) k, X[(r * m + k) * 2], X[(r * m + k) * 2 + 1], (double) (sc * re),
                           (double) (sc * im));
          }
      /* the round trip with the same norm */
      tu_shape_set (&sh[0], 3, d2);
      const double *Xs[1] = { X };
      if (forward_f64 (CN_OP_IRFFT, &p, 1, sh, Xs, &os, back, &err) != CN_OK)
        return fail (msg, size, "irfft: %s", err.msg);
      if (os.rank != 2 || os.dim[1] != n)
        return fail (msg, size, "irfft: output of rank %d, extent %lld, for n = %lld", os.rank, (long long) os.dim[1],
                     (long long) n);
      for (int64_t j = 0; j < lead * n; j++)
        if (fabs (back[j] - x[j]) > 1e-14 * (double) n)
          return fail (msg, size, "irfft(rfft(x)): N = %lld norm %d entry %lld = %.17g, x = %.17g", (long long) n,
                       (int) p.norm, (long long) j, back[j], x[j]);
      /* the imaginary parts of X_0 and (N even) X_{N/2} are ignored */
      for (int64_t r = 0; r < lead; r++)
        {
          X[(r * m) * 2 + 1] = tu_uniform (-5, 5);
          if (n % 2 == 0)
            X[(r * m + n / 2) * 2 + 1] = tu_uniform (-5, 5);
        }
      if (forward_f64 (CN_OP_IRFFT, &p, 1, sh, Xs, &os, z, &err) != CN_OK)
        return fail (msg, size, "irfft: %s", err.msg);
      if (memcmp (z, back, (size_t) (lead * n) * sizeof *z) != 0)
        return fail (msg, size, "irfft: the imaginary part of X_0 or X_{N/2} changes the output (N = %lld)",
                     (long long) n);
    }
  /* edges: checks refuse malformed nodes; IBP refuses NaN ends (messages naming the operator and the
   * node), gives infinite ends for infinite inputs and never NaN; a point box gives a tight box */
  {
    cn_params_fft p = { .n = 6, .norm = CN_FFT_BACKWARD };
    int64_t bad[2] = { 3, 2 }, good[2] = { 4, 2 }, six = 6;
    tu_shape_set (&sh[0], 2, bad);
    const cn_shape *in[1] = { &sh[0] };
    if (cn__op_rule (CN_OP_IRFFT)->check (cn__op_rule (CN_OP_IRFFT), &p, 1, in, &os, &err) != CN_ESHAPE)
      return fail (msg, size, "irfft: 3 frequencies accepted for n = 6");
    tu_shape_set (&sh[0], 2, good);
    if (cn__op_rule (CN_OP_IRFFT)->check (cn__op_rule (CN_OP_IRFFT), &p, 1, in, &os, &err) != CN_OK || os.rank != 1 || os.dim[0] != 6)
      return fail (msg, size, "irfft: [4, 2] for n = 6 refused or misshaped");
    p.norm = (cn_fft_norm) 7;
    if (cn__op_rule (CN_OP_IRFFT)->check (cn__op_rule (CN_OP_IRFFT), &p, 1, in, &os, &err) != CN_EINVAL)
      return fail (msg, size, "irfft: norm 7 accepted");
    p.norm = CN_FFT_ORTHO;
    tu_shape_set (&sh[0], 1, &six);
    double xl[6] = { 0, 1, 2, 3, 4, 5 }, xh[6] = { 0, 1, 2, 3, 4, 5 }, ol[8], oh[8];
    const double *lo[1] = { xl }, *hi[1] = { xh };
    if (ibp_call (CN_OP_RFFT, &p, 1, sh, lo, hi, ol, oh, &err) != CN_OK)
      return fail (msg, size, "rfft: IBP: %s", err.msg);
    for (int j = 0; j < 8; j++)
      if (!(oh[j] - ol[j] < 1e-13))
        return fail (msg, size, "rfft: IBP of a point box has width %g at %d", oh[j] - ol[j], j);
    xh[2] = INFINITY;
    if (ibp_call (CN_OP_RFFT, &p, 1, sh, lo, hi, ol, oh, &err) != CN_OK)
      return fail (msg, size, "rfft: IBP: %s", err.msg);
    /* X_0 = sum x_t / sqrt 6 is unbounded above; Re X_1 has the coefficient cos(2 pi 2/6) < 0 on x_2 */
    if (oh[0] != INFINITY || ol[0] == -INFINITY || ol[2] != -INFINITY || !isfinite (oh[2]))
      return fail (msg, size, "rfft: IBP with x_2 in [2, inf]: X_0 in [%g, %g], Re X_1 in [%g, %g]", ol[0], oh[0],
                   ol[2], oh[2]);
    xl[4] = NAN;
    if (ibp_call (CN_OP_RFFT, &p, 1, sh, lo, hi, ol, oh, &err) != CN_ENUMERIC)
      return fail (msg, size, "rfft: a NaN end is not CN_ENUMERIC");
  }
  {
    int64_t ld[2] = { 2, 1 }, a11[2] = { 1, 1 }, one = 1;
    tu_shape_set (&sh[0], 2, ld);
    sh[1] = sh[0];
    tu_shape_set (&sh[2], 2, a11);
    sh[3] = sh[0];
    sh[4] = sh[2];              /* C of the wrong shape */
    tu_shape_set (&sh[5], 1, &one);
    const cn_shape *in[6] = { &sh[0], &sh[1], &sh[2], &sh[3], &sh[4], &sh[5] };
    if (cn__op_rule (CN_OP_SELECTIVE_SCAN)->check (cn__op_rule (CN_OP_SELECTIVE_SCAN), NULL, 6, in, &os, &err) != CN_ESHAPE)
      return fail (msg, size, "selectiveScan: C of shape [1, 1] accepted for L = 2");
    sh[4] = sh[0];
    double l[6][2] = { { 1, 1 }, { 0.5, 0.25 }, { -1, 0 }, { 2, 3 }, { 1, 4 }, { 0.5, 0 } };
    double h[6][2] = { { 1, INFINITY }, { 0.5, 0.25 }, { -1, 0 }, { 2, 3 }, { 1, 4 }, { 0.5, 0 } };
    const double *lo[6], *hi[6];
    double ol[2], oh[2];
    for (int i = 0; i < 6; i++)
      {
        lo[i] = l[i];
        hi[i] = h[i];
      }
    if (ibp_call (CN_OP_SELECTIVE_SCAN, NULL, 6, sh, lo, hi, ol, oh, &err) != CN_OK)
      return fail (msg, size, "selectiveScan: IBP: %s", err.msg);
    if (!(ol[0] <= 1.5 && oh[0] >= 1.5 && oh[0] - ol[0] < 1e-14) || oh[1] != INFINITY || !(ol[1] > 0))
      return fail (msg, size, "selectiveScan: IBP [%.17g, %.17g] [%g, %g]", ol[0], oh[0], ol[1], oh[1]);
    l[3][1] = NAN;
    if (ibp_call (CN_OP_SELECTIVE_SCAN, NULL, 6, sh, lo, hi, ol, oh, &err) != CN_ENUMERIC)
      return fail (msg, size, "selectiveScan: a NaN end is not CN_ENUMERIC");
  }
  /* selectiveScan by hand: L = 2, D = P = 1, u = (1, 2), delta = (1/2, 1/4), A = -1, B = (2, 3), C = (1, 4),
   * Dskip = 1/2: h_0 = 1, y_0 = 3/2; h_1 = e^{-1/4} + 3/2, y_1 = 4 e^{-1/4} + 7 */
  {
    static const double u[2] = { 1, 2 }, dl[2] = { 0.5, 0.25 }, A[1] = { -1 }, B[2] = { 2, 3 }, C[2] = { 1, 4 },
                        Ds[1] = { 0.5 };
    int64_t l1[2] = { 2, 1 }, one = 1, a11[2] = { 1, 1 };
    tu_shape_set (&sh[0], 2, l1);
    sh[1] = sh[0];
    tu_shape_set (&sh[2], 2, a11);
    sh[3] = sh[4] = sh[0];
    tu_shape_set (&sh[5], 1, &one);
    const double *xs[6] = { u, dl, A, B, C, Ds };
    if (forward_f64 (CN_OP_SELECTIVE_SCAN, NULL, 6, sh, xs, &os, y, &err) != CN_OK)
      return fail (msg, size, "selectiveScan: %s", err.msg);
    double y1 = 4 * exp (-0.25) + 7;
    if (y[0] != 1.5 || fabs (y[1] - y1) > 4e-16 * y1)
      return fail (msg, size, "selectiveScan: (%.17g, %.17g), by hand (1.5, %.17g)", y[0], y[1], y1);
  }
  /* selectiveScan against a long double recurrence, with two leading axes */
  for (int it = 0; it < 100; it++)
    {
      int64_t b0 = tu_int (1, 2), b1 = tu_int (1, 2), L = tu_int (1, 4), D = tu_int (1, 3), P = tu_int (1, 3);
      int64_t du[4] = { b0, b1, L, D }, db[4] = { b0, b1, L, P }, da[2] = { D, P };
      tu_shape_set (&sh[0], 4, du);
      sh[1] = sh[0];
      tu_shape_set (&sh[2], 2, da);
      tu_shape_set (&sh[3], 4, db);
      sh[4] = sh[3];
      tu_shape_set (&sh[5], 1, &D);
      double v[6][64];
      const double *xs[6];
      for (int i = 0; i < 6; i++)
        {
          for (int64_t j = 0; j < cn_shape_numel (&sh[i]); j++)
            v[i][j] = tu_uniform (-1, 1);
          xs[i] = v[i];
        }
      if (forward_f64 (CN_OP_SELECTIVE_SCAN, NULL, 6, sh, xs, &os, y, &err) != CN_OK)
        return fail (msg, size, "selectiveScan: %s", err.msg);
      for (int64_t b = 0; b < b0 * b1; b++)
        for (int64_t d = 0; d < D; d++)
          {
            long double h[3] = { 0, 0, 0 }, hm[3] = { 0, 0, 0 };
            for (int64_t t = 0; t < L; t++)
              {
                int64_t q = (b * L + t) * D + d;
                long double acc = (long double) v[5][d] * v[0][q], mag = fabsl (acc);
                for (int64_t p = 0; p < P; p++)
                  {
                    long double a = expl ((long double) v[1][q] * v[2][d * P + p]);
                    long double zz = (long double) v[1][q] * v[3][(b * L + t) * P + p] * v[0][q];
                    h[p] = a * h[p] + zz;
                    hm[p] = a * hm[p] + fabsl (zz);
                    acc += v[4][(b * L + t) * P + p] * h[p];
                    mag += fabsl (v[4][(b * L + t) * P + p]) * hm[p];
                  }
                if (fabs (y[q] - (double) acc) > 1e-14 * (double) mag)
                  return fail (msg, size, "selectiveScan: entry %lld = %.17g, the recurrence gives %.17g",
                               (long long) q,
                               y[q], (double) acc);
              }
          }
    }
  return 1;
}

/* ---- edges of the IBP arms ---------------------------------------------------------------- */

/* IBP of OP (attributes P) on N_IN input boxes of shapes SH and ends LO[i], HI[i] into OL, OH;
 * the status, with the message checked to name the operator and the node. */
static cn_status
ibp_call (cn_op op, const void *p, int n_in, const cn_shape *sh, const double *const *lo, const double *const *hi,
          double *ol, double *oh, cn_error *err)
{
  const struct cn_op_rule *r = cn__op_rule (op);
  const cn_shape *in_shape[CN__CASE_MAX_IN];
  const cn_tensor *in_const[CN__CASE_MAX_IN] = { 0 };
  cn_box b[CN__CASE_MAX_IN], o;
  const cn_box *bp[CN__CASE_MAX_IN];
  cn_shape os;
  for (int i = 0; i < n_in; i++)
    in_shape[i] = &sh[i];
  cn_error_clear (err);       /* the first error wins: start from a clear one */
  cn_status st = r->check (r, p, n_in, in_shape, &os, err);
  if (st != CN_OK)
    return st;
  cn_node_view nv = { .op = op, .rule = cn__op_rule (op), .params = p, .n_in = n_in, .in_shape = in_shape, .in_const = in_const,
                      .out_shape = &os, .name = "edge" };
  for (int i = 0; i < n_in; i++)
    {
      b[i].n = cn_shape_numel (&sh[i]);
      b[i].lo = (double *) lo[i];
      b[i].hi = (double *) hi[i];
      bp[i] = &b[i];
    }
  o.n = cn_shape_numel (&os);
  o.lo = ol;
  o.hi = oh;
  st = r->ibp (&nv, bp, &o, err);
  if (st != CN_OK && (strncmp (err->msg, cn_op_name (op), strlen (cn_op_name (op))) != 0
                      || strstr (err->msg, "'edge'") == NULL))
    return CN_EUNSOUND;     /* a message that does not name the operator and node */
  for (int64_t j = 0; st == CN_OK && j < o.n; j++)
    if (isnan (ol[j]) || isnan (oh[j]) || ol[j] > oh[j])
      return CN_EUNSOUND;   /* never NaN or an empty box */
  return st;
}

/* The checks, out_sort hooks and IBP edges of the random family. */
static int
random_edges (char *msg, size_t size)
{
  cn_error err;
  cn_error_clear (&err);
  cn_shape sh[2], os;
  double ol[8], oh[8];
  /* checks and sorts: the key is a u64 scalar; attributes refused */
  {
    cn_params_randn pn;
    memset (&pn, 0, sizeof pn);
    pn.std = 1;
    int64_t two = 2;
    tu_shape_set (&sh[0], 1, &two);
    const cn_shape *in[1] = { &sh[0] };
    if (cn__op_rule (CN_OP_RANDN)->check (cn__op_rule (CN_OP_RANDN), &pn, 1, in, &os, &err) != CN_ESHAPE)
      return fail (msg, size, "randn: a key of shape [2] accepted");
    cn_dtype f64 = CN_DTYPE_F64, u64 = CN_DTYPE_U64, o;
    if (cn__op_rule (CN_OP_RANDN)->out_sort (cn__op_rule (CN_OP_RANDN), &pn, 1, &f64, &o, &err) != CN_EINVAL
        || cn__op_rule (CN_OP_RANDN)->out_sort (cn__op_rule (CN_OP_RANDN), &pn, 1, &u64, &o, &err) != CN_OK || o != CN_DTYPE_F64)
      return fail (msg, size, "randn: the key's sort is not checked");
    pn.std = -1;
    tu_shape_set (&sh[0], 0, NULL);
    if (cn__op_rule (CN_OP_RANDN)->check (cn__op_rule (CN_OP_RANDN), &pn, 1, in, &os, &err) != CN_EINVAL)
      return fail (msg, size, "randn: std = -1 accepted");
    cn_params_rand_uniform pu;
    memset (&pu, 0, sizeof pu);
    pu.lo = 1;
    pu.hi = 0;
    if (cn__op_rule (CN_OP_RAND_UNIFORM)->check (cn__op_rule (CN_OP_RAND_UNIFORM), &pu, 1, in, &os, &err) != CN_EINVAL)
      return fail (msg, size, "randUniform: lo > hi accepted");
    cn_params_dropout pd = { .p = 1 };
    const cn_shape *in2[2] = { &sh[0], &sh[0] };
    if (cn__op_rule (CN_OP_DROPOUT)->check (cn__op_rule (CN_OP_DROPOUT), &pd, 2, in2, &os, &err) != CN_EINVAL)
      return fail (msg, size, "dropout: p = 1 accepted");
  }
  /* draws: the range whatever the key */
  {
    int64_t three = 3;
    double kl[1] = { 0 }, kh[1] = { 1e6 };
    const double *lo[1] = { kl }, *hi[1] = { kh };
    tu_shape_set (&sh[0], 0, NULL);
    cn_params_randn pn;
    memset (&pn, 0, sizeof pn);
    tu_shape_set (&pn.shape, 1, &three);
    pn.mean = 1;
    pn.std = 2;
    if (ibp_call (CN_OP_RANDN, &pn, 1, sh, lo, hi, ol, oh, &err) != CN_OK)
      return fail (msg, size, "randn: IBP: %s", err.msg);
    double r = sqrt (106 * log (2.0));
    if (!(ol[2] <= 1 - 2 * r && ol[2] > 1 - 2 * r - 1e-12 && oh[2] >= 1 + 2 * r && oh[2] < 1 + 2 * r + 1e-12))
      return fail (msg, size, "randn: IBP [%.17g, %.17g], expected 1 -+ 2 sqrt(106 ln 2) rounded outward", ol[2],
                   oh[2]);
    cn_params_bernoulli pb;
    memset (&pb, 0, sizeof pb);
    tu_shape_set (&pb.shape, 1, &three);
    for (int k = 0; k < 3; k++)
      {
        pb.p = k == 0 ? 0 : k == 1 ? 1 : 0.5;
        if (ibp_call (CN_OP_BERNOULLI_MASK, &pb, 1, sh, lo, hi, ol, oh, &err) != CN_OK)
          return fail (msg, size, "bernoulliMask: IBP: %s", err.msg);
        if (ol[0] != (k == 1) || oh[0] != (k != 0))
          return fail (msg, size, "bernoulliMask: IBP [%g, %g] for p = %g", ol[0], oh[0], pb.p);
      }
    kl[0] = NAN;
    if (ibp_call (CN_OP_RANDN, &pn, 1, sh, lo, hi, ol, oh, &err) != CN_ENUMERIC)
      return fail (msg, size, "randn: a NaN end in the key's box is not CN_ENUMERIC");
  }
  /* dropout: known true, known false, unknown masks; infinite ends; NaN */
  {
    int64_t four = 4;
    tu_shape_set (&sh[0], 1, &four);
    sh[1] = sh[0];
    cn_params_dropout pd = { .p = 0.5 };
    double xl[4] = { 1, 1, -1, -INFINITY }, xh[4] = { 2, 2, 3, INFINITY };
    double ml[4] = { 1, 0, 0, 0 }, mh[4] = { 1, 0, 1, 1 };
    const double *lo[2] = { xl, ml }, *hi[2] = { xh, mh };
    if (ibp_call (CN_OP_DROPOUT, &pd, 2, sh, lo, hi, ol, oh, &err) != CN_OK)
      return fail (msg, size, "dropout: IBP: %s", err.msg);
    if (!(ol[0] <= 2 && ol[0] > 2 - 1e-14 && oh[0] >= 4 && oh[0] < 4 + 1e-14) || ol[1] != 0 || oh[1] != 0
        || !(ol[2] <= -2 && ol[2] > -2 - 1e-14 && oh[2] >= 6 && oh[2] < 6 + 1e-14) || ol[3] != -INFINITY
        || oh[3] != INFINITY)
      return fail (msg, size, "dropout: IBP [%.17g, %.17g] [%g, %g] [%.17g, %.17g] [%g, %g]", ol[0], oh[0], ol[1],
                   oh[1], ol[2],
                   oh[2], ol[3], oh[3]);
    xl[1] = NAN;
    if (ibp_call (CN_OP_DROPOUT, &pd, 2, sh, lo, hi, ol, oh, &err) != CN_ENUMERIC)
      return fail (msg, size, "dropout: a NaN end is not CN_ENUMERIC");
  }
  /* topKMask: certain, excluded and undecided entries; ties at the ends count as undecided; a tie
   * deciding the forward fails */
  {
    int64_t four = 4;
    tu_shape_set (&sh[0], 1, &four);
    cn_params_topk_mask pt = { .axis = 0, .k = 2, .largest = 1 };
    double xl[4] = { 0, 2, 4, 3 }, xh[4] = { 1, 3, 5, 3.5 };
    const double *lo[1] = { xl }, *hi[1] = { xh };
    if (ibp_call (CN_OP_TOP_KMASK, &pt, 1, sh, lo, hi, ol, oh, &err) != CN_OK)
      return fail (msg, size, "topKMask: IBP: %s", err.msg);
    /* entry 2 is always first; 3 is second unless tied with 1 at 3 (undecided); 0 is out */
    if (ol[0] != 0 || oh[0] != 0 || ol[1] != 0 || oh[1] != 1 || ol[2] != 1 || oh[2] != 1 || ol[3] != 0 || oh[3] != 1)
      return fail (msg, size, "topKMask: IBP [%g,%g] [%g,%g] [%g,%g] [%g,%g]", ol[0], oh[0], ol[1], oh[1], ol[2], oh[2],
                   ol[3], oh[3]);
    pt.largest = 0;
    if (ibp_call (CN_OP_TOP_KMASK, &pt, 1, sh, lo, hi, ol, oh, &err) != CN_OK)
      return fail (msg, size, "topKMask: IBP: %s", err.msg);
    if (ol[0] != 1 || oh[0] != 1 || ol[2] != 0 || oh[2] != 0 || oh[1] != 1 || ol[3] != 0)
      return fail (msg, size, "topKMask smallest: IBP [%g,%g] [%g,%g] [%g,%g] [%g,%g]", ol[0], oh[0], ol[1], oh[1],
                   ol[2], oh[2], ol[3], oh[3]);
    double x[4] = { 1, 3, 5, 3 }, y[4];
    const double *xs[1] = { x };
    pt.largest = 1;
    if (forward_f64 (CN_OP_TOP_KMASK, &pt, 1, sh, xs, &os, y, &err) != CN_EINVAL || strstr (err.msg, "tied") == NULL)
      return fail (msg, size, "topKMask: a tie deciding the selection did not fail");
    x[3] = 2;
    if (forward_f64 (CN_OP_TOP_KMASK, &pt, 1, sh, xs, &os, y, &err) != CN_OK || y[0] != 0 || y[1] != 1 || y[2] != 1
        || y[3] != 0)
      return fail (msg, size, "topKMask: forward (%g, %g, %g, %g) on (1, 3, 5, 2), k = 2", y[0], y[1], y[2], y[3]);
  }
  return 1;
}
