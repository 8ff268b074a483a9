/* SPDX-License-Identifier: MIT */
/* tests/check_core.c: units for statuses, tensors, boxes, the instance generator, the graph
 * builder, and the sound floating-point kernels of src/sound/sound.h checked against MPFR. */
#include <config.h>
#include <check.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "testutil.h"
#include "sound/sound.h"
#include "sound/elementary.h"
#include "core/sha256.h"
#include <mpfi.h>

START_TEST (status_strings)
{
  for (int s = 0; s < CN_STATUS_COUNT; s++)
    {
      ck_assert_ptr_nonnull (cn_status_str ((cn_status) s));
      ck_assert_ptr_nonnull (cn_status_name ((cn_status) s));
    }
  ck_assert_str_eq (cn_status_name (CN_ESHAPE), "ESHAPE");
  cn_error e;
  cn_error_clear (&e);
  ck_assert_int_eq (cn_error_set (&e, CN_EINVAL, "first %d", 1), CN_EINVAL);
  cn_error_set (&e, CN_ESHAPE, "second");
  ck_assert_int_eq (e.code, CN_EINVAL);         /* the first error wins */
  ck_assert_str_eq (e.msg, "first 1");
  ck_assert_int_eq (cn_error_set (NULL, CN_EIO, "ignored"), CN_EIO);
}
END_TEST

START_TEST (tensor_basics)
{
  cn_shape s;
  int64_t d[3] = { 2, 3, 4 };
  ck_assert_int_eq (cn_shape_make (&s, 3, d, NULL), CN_OK);
  ck_assert_int_eq (cn_shape_numel (&s), 24);
  char buf[64];
  ck_assert_str_eq (cn_shape_format (&s, buf, sizeof buf), "[2,3,4]");
  int64_t bad[1] = { -1 };
  cn_error e;
  cn_error_clear (&e);
  ck_assert_int_eq (cn_shape_make (&s, 1, bad, &e), CN_EINVAL);
  ck_assert_int_eq (cn_shape_make (&s, CN_MAX_RANK + 1, d, NULL), CN_EINVAL);
  ck_assert_int_eq (cn_shape_make (&s, 3, d, NULL), CN_OK);
  cn_tensor t, u;
  ck_assert_int_eq (cn_tensor_init (&t, CN_DTYPE_F32, &s, NULL), CN_OK);
  for (int i = 0; i < 24; i++)
    ((float *) t.data)[i] = (float) i / 3.0f;
  ck_assert_int_eq (cn_tensor_convert (&u, CN_DTYPE_F64, &t, NULL), CN_OK);
  for (int i = 0; i < 24; i++)
    ck_assert (cn_tensor_get_f64 (&u, i) == (double) ((float) i / 3.0f));   /* f32 -> f64 is exact */
  cn_tensor_clear (&u);
  cn_error_clear (&e);
  ((float *) t.data)[5] = 2.5f;
  ck_assert_int_eq (cn_tensor_convert (&u, CN_DTYPE_I32, &t, &e), CN_ENUMERIC);  /* 1/3 is no integer */
  ck_assert_ptr_null (u.data);
  cn_tensor_clear (&t);
  cn_tensor_clear (&t);   /* clearing twice is harmless */
}
END_TEST

/* The reduced formats against MPFR.  The oracle: MPFR at the format's precision with its exponent
 * range (emin, emax in MPFR's convention, significand in [1/2, 1)) and mpfr_subnormalize, which
 * is IEEE 754's round to nearest even with gradual underflow; past the range +-inf.  Every word
 * decodes to the value its fields say and encodes back (NaNs to the quiet NaN); every double
 * between two neighbouring numbers, at their midpoint and one ulp of binary64 either side, and
 * random doubles over the whole range round as MPFR does. */
static double
mpfr_reduced (double x, int prec, mpfr_exp_t emin, mpfr_exp_t emax)
{
  mpfr_exp_t old_min = mpfr_get_emin (), old_max = mpfr_get_emax ();
  mpfr_t r;
  mpfr_init2 (r, prec);
  mpfr_set_emin (emin);
  mpfr_set_emax (emax);
  int t = mpfr_set_d (r, x, MPFR_RNDN);
  t = mpfr_check_range (r, t, MPFR_RNDN);
  mpfr_subnormalize (r, t, MPFR_RNDN);
  mpfr_set_emin (old_min);
  mpfr_set_emax (old_max);
  double v = mpfr_get_d (r, MPFR_RNDN);   /* exact: prec <= 53 and within binary64's range */
  mpfr_clear (r);
  return v;
}

static int
same_double (double a, double b)
{
  return (isnan (a) && isnan (b)) || (a == b && signbit (a) == signbit (b));
}

START_TEST (reduced_formats)
{
  static const struct
  {
    cn_dtype t;
    int prec;
    mpfr_exp_t emin, emax;
  } fmt[] = { { CN_DTYPE_F16, 11, -23, 16 }, { CN_DTYPE_BF16, 8, -132, 128 } };
  for (size_t f = 0; f < sizeof fmt / sizeof fmt[0]; f++)
    {
      cn_dtype t = fmt[f].t;
      ck_assert (cn_dtype_is_float (t) && cn_dtype_is_reduced (t) && cn_dtype_size (t) == 2);
      int mbits = fmt[f].prec - 1;
      for (uint32_t w = 0; w < 65536; w++)
        {
          double v = cn_reduced_decode (t, (uint16_t) w);
          int field = (int) (w & 0x7fff) >> mbits, emax_field = (int) (0x7fff >> mbits);
          if (field == emax_field && (w & ((1u << mbits) - 1)) != 0)
            {
              ck_assert (isnan (v));
              uint16_t q = cn_reduced_encode (t, v);
              ck_assert (isnan (cn_reduced_decode (t, q)));
              continue;
            }
          /* the oracle agrees that V is a number of the format, and the word comes back */
          ck_assert_msg (same_double (mpfr_reduced (v, fmt[f].prec, fmt[f].emin, fmt[f].emax), v), "%s word %04x",
                         cn_dtype_name (t), (unsigned) w);
          ck_assert_msg (cn_reduced_encode (t, v) == w, "%s word %04x", cn_dtype_name (t), (unsigned) w);
          /* between V and the next number up: the midpoint and its binary64 neighbours */
          if (field == emax_field || (w & 0x8000) != 0 || w == (uint32_t) (emax_field << mbits) - 1)
            continue;
          double up = cn_reduced_decode (t, (uint16_t) (w + 1));
          double mid = v / 2 + up / 2;
          const double probe[] = { mid, nextafter (mid, -INFINITY), nextafter (mid, INFINITY),
                                   nextafter (v, INFINITY), nextafter (up, -INFINITY) };
          for (size_t k = 0; k < sizeof probe / sizeof probe[0]; k++)
            for (int sg = 0; sg < 2; sg++)
              {
                double x = sg ? -probe[k] : probe[k];
                double want = mpfr_reduced (x, fmt[f].prec, fmt[f].emin, fmt[f].emax);
                ck_assert_msg (same_double (cn_dtype_round (t, x), want), "%s: %a rounds to %a, MPFR %a",
                               cn_dtype_name (t), x, cn_dtype_round (t, x), want);
              }
        }
      /* past the largest number: its tie rounds to infinity, just below it to the largest */
      double max = cn_reduced_decode (t, (uint16_t) (((0x7fff >> mbits) << mbits) - 1));
      double below = cn_reduced_decode (t, (uint16_t) (((0x7fff >> mbits) << mbits) - 2));
      double tie = max + (max - below) / 2;
      ck_assert (isinf (cn_dtype_round (t, tie)) && cn_dtype_round (t, nextafter (tie, 0)) == max);
      ck_assert (isinf (cn_dtype_round (t, -DBL_MAX)) && cn_dtype_round (t, -DBL_MAX) < 0);
      ck_assert (signbit (cn_dtype_round (t, -0x1p-1074)) && cn_dtype_round (t, -0x1p-1074) == 0);
      for (int k = 0; k < 200000; k++)
        {
          /* a random double: random significand bits, exponent over the format's range and past it */
          double x = ldexp (1 + tu_uniform (0, 1), (int) tu_int (fmt[f].emin - 4, fmt[f].emax + 2));
          if (tu_int (0, 1))
            x = -x;
          double want = mpfr_reduced (x, fmt[f].prec, fmt[f].emin, fmt[f].emax);
          ck_assert_msg (same_double (cn_dtype_round (t, x), want), "%s: %a rounds to %a, MPFR %a", cn_dtype_name (t),
                         x, cn_dtype_round (t, x), want);
        }
      /* tensors: words in and out, conversions rounding once */
      cn_shape s;
      int64_t d[1] = { 3 };
      cn_tensor a, b;
      ck_assert_int_eq (cn_shape_make (&s, 1, d, NULL), CN_OK);
      ck_assert_int_eq (cn_tensor_init (&a, CN_DTYPE_F64, &s, NULL), CN_OK);
      ((double *) a.data)[0] = 1.0 / 3;
      ((double *) a.data)[1] = -1e30;
      ((double *) a.data)[2] = 0x1p-140;
      ck_assert_int_eq (cn_tensor_convert (&b, t, &a, NULL), CN_OK);
      for (int j = 0; j < 3; j++)
        ck_assert (same_double (cn_tensor_get_f64 (&b, j), cn_dtype_round (t, ((double *) a.data)[j])));
      cn_tensor_clear (&a);
      ck_assert_int_eq (cn_tensor_convert (&a, CN_DTYPE_F32, &b, NULL), CN_OK);   /* exact */
      for (int j = 0; j < 3; j++)
        ck_assert (same_double (cn_tensor_get_f64 (&a, j), cn_tensor_get_f64 (&b, j)));
      cn_tensor_clear (&a);
      cn_tensor_clear (&b);
    }
  ck_assert (!cn_dtype_is_reduced (CN_DTYPE_F32) && !cn_dtype_is_reduced (CN_DTYPE_U16));
  ck_assert_str_eq (cn_dtype_name (CN_DTYPE_F16), "f16");
  ck_assert_str_eq (cn_dtype_name (CN_DTYPE_BF16), "bf16");
}
END_TEST

START_TEST (box_basics)
{
  cn_box b;
  cn_error e;
  cn_error_clear (&e);
  double x0[3] = { 0.1, -1e300, 0 };
  ck_assert_int_eq (cn_box_init_linf (&b, 3, x0, 0.3, &e), CN_OK);
  mpfr_t t;
  mpfr_init2 (t, 2000);
  for (int i = 0; i < 3; i++)
    {
      /* lo <= x0 - eps and hi >= x0 + eps exactly */
      mpfr_set_d (t, x0[i], MPFR_RNDN);
      mpfr_sub_d (t, t, 0.3, MPFR_RNDN);
      ck_assert (mpfr_cmp_d (t, b.lo[i]) >= 0);
      mpfr_set_d (t, x0[i], MPFR_RNDN);
      mpfr_add_d (t, t, 0.3, MPFR_RNDN);
      ck_assert (mpfr_cmp_d (t, b.hi[i]) <= 0);
    }
  mpfr_clear (t);
  ck_assert_int_eq (cn_box_validate (&b, "box", &e), CN_OK);
  b.lo[1] = 1e301;
  ck_assert_int_eq (cn_box_validate (&b, "box", &e), CN_EINVAL);
  ck_assert_msg (strstr (e.msg, "empty") != NULL, "%s", e.msg);
  cn_box_clear (&b);
  cn_error_clear (&e);
  ck_assert_int_eq (cn_box_init_linf (&b, 1, x0, NAN, &e), CN_EINVAL);
}
END_TEST

/* A random double of any magnitude, sign, normal or subnormal. */
static double
random_double (void)
{
  switch (tu_int (0, 5))
    {
    case 0: return 0;
    case 1: return ldexp (tu_uniform (-1, 1), -1074 + (int) tu_int (0, 60));  /* subnormal range */
    case 2: return ldexp (tu_uniform (-1, 1), (int) tu_int (-1020, 1020));
    case 3: return nextafter (1.0, tu_rand () & 1 ? 2.0 : 0.0);
    default: return tu_uniform (-10, 10);
    }
}

START_TEST (sound_up_down)
{
  for (int i = 0; i < 100000; i++)
    {
      double c = random_double ();
      /* every real that rounds to c is at most succ(c) */
      ck_assert_msg (cn__up (c) >= nextafter (c, INFINITY), "up(%a) = %a (CN_TEST_SEED=%lu)", c, cn__up (c), tu_seed ());
      ck_assert_msg (cn__down (c) <= nextafter (c, -INFINITY), "down(%a) = %a", c, cn__down (c));
      ck_assert (cn__up (c) <= c + 8 * CN_U * fabs (c) + 4 * CN_ETA + 0x1p-1070);  /* and not much more */
    }
  ck_assert (cn__up (DBL_MAX) == INFINITY);
  ck_assert (cn__down (-DBL_MAX) == -INFINITY);
}
END_TEST

START_TEST (sound_gamma_kappa)
{
  mpfr_t g, t;
  mpfr_init2 (g, 300);
  mpfr_init2 (t, 300);
  int64_t ks[] = { 1, 2, 3, 7, 100, 4096, 123457, 1 << 26, (int64_t) 1 << 40 };
  for (size_t i = 0; i < sizeof ks / sizeof ks[0]; i++)
    {
      int64_t k = ks[i];
      /* gamma_k = k u / (1 - k u) */
      mpfr_set_si (t, 1, MPFR_RNDN);
      mpfr_mul_2si (t, t, -53, MPFR_RNDN);
      mpfr_mul_si (t, t, (long) k, MPFR_RNDN);
      mpfr_si_sub (g, 1, t, MPFR_RNDN);
      mpfr_div (g, t, g, MPFR_RNDU);
      ck_assert_msg (mpfr_cmp_d (g, cn__gamma (k)) <= 0, "gamma_%lld too small", (long long) k);
      /* kappa_k = 1/(1 - gamma_k) */
      mpfr_si_sub (g, 1, g, MPFR_RNDD);
      mpfr_si_div (g, 1, g, MPFR_RNDU);
      ck_assert_msg (mpfr_cmp_d (g, cn__kappa (k)) <= 0, "kappa_%lld too small", (long long) k);
    }
  mpfr_clear (g);
  mpfr_clear (t);
}
END_TEST

START_TEST (sound_dot)
{
  enum { K = 300 };
  double a[K], b[K], l[K], u[K];
  mpfr_t exact, t;
  mpfr_init2 (exact, 4400);
  mpfr_init2 (t, 4400);
  for (int rep = 0; rep < 300; rep++)
    {
      int k = (int) tu_int (1, K);
      int scale = (int) tu_int (-1000, 1000);
      mpfr_set_ui (exact, 0, MPFR_RNDN);
      for (int j = 0; j < k; j++)
        {
          a[j] = ldexp (tu_uniform (-1, 1), scale / 2 + (int) tu_int (-30, 30));
          b[j] = rep % 3 == 0 ? -a[j] * (1 + 0x1p-40 * tu_uniform (-1, 1)) : ldexp (tu_uniform (-1, 1), scale / 2);
          mpfr_set_d (t, a[j], MPFR_RNDN);
          mpfr_mul_d (t, t, b[j], MPFR_RNDN);    /* exact at 4400 bits */
          mpfr_add (exact, exact, t, MPFR_RNDN); /* exact: the span of the exponents fits */
          l[j] = b[j] - fabs (tu_uniform (0, 1)) * fabs (b[j]);
          u[j] = b[j] + fabs (tu_uniform (0, 1)) * fabs (b[j]);
        }
      double lo, hi;
      cn__dot_bounds (k, a, b, &lo, &hi);
      ck_assert_msg (mpfr_cmp_d (exact, lo) >= 0 && mpfr_cmp_d (exact, hi) <= 0, "dot bounds miss the exact value (CN_TEST_SEED=%lu)",
                     tu_seed ());
      /* the selection form bounds the exact minimum over the box [l, u] */
      double mn = cn__box_min_dot (k, a, l, u), mx = cn__box_max_dot (k, a, l, u);
      mpfr_set_ui (exact, 0, MPFR_RNDN);
      for (int j = 0; j < k; j++)
        {
          mpfr_set_d (t, a[j], MPFR_RNDN);
          mpfr_mul_d (t, t, a[j] >= 0 ? l[j] : u[j], MPFR_RNDN);
          mpfr_add (exact, exact, t, MPFR_RNDN);
        }
      ck_assert (mpfr_cmp_d (exact, mn) >= 0);
      mpfr_set_ui (exact, 0, MPFR_RNDN);
      for (int j = 0; j < k; j++)
        {
          mpfr_set_d (t, a[j], MPFR_RNDN);
          mpfr_mul_d (t, t, a[j] >= 0 ? u[j] : l[j], MPFR_RNDN);
          mpfr_add (exact, exact, t, MPFR_RNDN);
        }
      ck_assert (mpfr_cmp_d (exact, mx) <= 0);
    }
  mpfr_clear (exact);
  mpfr_clear (t);
}
END_TEST

/* a . x in MPFR at 4400 bits (exact for these exponent spans), compared with U: <= 0 iff a . x <= u */
static int
exact_dot_cmp (int n, const double *a, const double *x, double u, mpfr_t acc, mpfr_t t)
{
  mpfr_set_ui (acc, 0, MPFR_RNDN);
  for (int j = 0; j < n; j++)
    {
      mpfr_set_d (t, a[j], MPFR_RNDN);
      mpfr_mul_d (t, t, x[j], MPFR_RNDN);
      mpfr_add (acc, acc, t, MPFR_RNDN);
    }
  return mpfr_cmp_d (acc, u);
}

/* cn__box_clip_halfspace keeps every point of the box with a . x <= u (exactly), on random
 * points, on points pushed to the halfspace's edge along each axis, and at the minimising
 * corner; it reports an empty part only when the corner misses the halfspace; and it clips
 * to within a small slack of the exact hull's ends along each axis from the corner. */
START_TEST (sound_clip)
{
  enum { K = 24 };
  double a[K], lo[K], hi[K], clo[K], chi[K], x[K], xs[K];
  mpfr_t acc, t;
  mpfr_init2 (acc, 4400);
  mpfr_init2 (t, 4400);
  int shrunk = 0;
  for (int rep = 0; rep < 400; rep++)
    {
      int n = (int) tu_int (1, K), scale = (int) tu_int (-20, 20);
      for (int j = 0; j < n; j++)
        {
          a[j] = tu_int (0, 5) == 0 ? 0 : ldexp (tu_uniform (-1, 1), (int) tu_int (-8, 8));
          double c = ldexp (tu_uniform (-1, 1), scale), r = ldexp (tu_uniform (0, 1), scale + (int) tu_int (-6, 0));
          lo[j] = c - r;
          hi[j] = c + r;
          xs[j] = a[j] > 0 ? lo[j] : a[j] < 0 ? hi[j] : lo[j];   /* the minimising corner */
        }
      double mn = cn__box_min_dot (n, a, lo, hi), mx = cn__box_max_dot (n, a, lo, hi);
      /* u from slightly below the minimum to the maximum */
      double u = mn + (mx - mn) * tu_uniform (-0.05, rep % 4 == 0 ? 1 : 0.2);
      memcpy (clo, lo, sizeof lo);
      memcpy (chi, hi, sizeof hi);
      int none = cn__box_clip_halfspace (n, a, u, clo, chi);
      int corner_in = exact_dot_cmp (n, a, xs, u, acc, t) <= 0;
      if (none)
        {
          ck_assert_msg (!corner_in, "clip: a box meeting the halfspace called empty (CN_TEST_SEED=%lu)", tu_seed ());
          for (int j = 0; j < n; j++)
            ck_assert (clo[j] == lo[j] && chi[j] == hi[j]);
          continue;
        }
      for (int j = 0; j < n; j++)
        ck_assert_msg (lo[j] <= clo[j] && clo[j] <= chi[j] && chi[j] <= hi[j], "clip: not a sub-box (CN_TEST_SEED=%lu)",
                       tu_seed ());
      /* points pushed along one axis from the corner to the halfspace's edge */
      for (int i = 0; i < n && corner_in; i++)
        {
          if (a[i] == 0)
            continue;
          memcpy (x, xs, sizeof xs);
          /* the edge e: a_i (e - x*_i) = u - a . x*, rounded; then the doubles around it */
          exact_dot_cmp (n, a, xs, u, acc, t);
          mpfr_d_sub (acc, u, acc, MPFR_RNDN);
          mpfr_div_d (acc, acc, a[i], MPFR_RNDN);
          mpfr_add_d (acc, acc, xs[i], MPFR_RNDN);
          double e = mpfr_get_d (acc, MPFR_RNDN);
          double e0 = e;
          for (int step = 0; step < 4; step++)
            e0 = a[i] > 0 ? nextafter (e0, -INFINITY) : nextafter (e0, INFINITY);
          for (int step = 0; step < 8; step++, e0 = a[i] > 0 ? nextafter (e0, INFINITY) : nextafter (e0, -INFINITY))
            {
              if (!(e0 >= lo[i] && e0 <= hi[i]))
                continue;
              x[i] = e0;
              if (exact_dot_cmp (n, a, x, u, acc, t) <= 0)
                ck_assert_msg (clo[i] <= e0 && e0 <= chi[i], "clip: the edge point %.17g of axis %d lost "
                               "(CN_TEST_SEED=%lu)", e0, i, tu_seed ());
            }
          /* tightness: the clipped end lies past the edge by at most the dot product's error
           * bound (a few times over) and a relative 1e-9 of the box */
          double end = a[i] > 0 ? chi[i] : clo[i];
          double mag = 0;
          for (int j = 0; j < n; j++)
            mag += fabs (a[j] * xs[j]);
          double slack = 1e-9 * (hi[i] - lo[i]) + 1e-12 * fabs (e) + 4 * (cn__dot_err (mag, n) + fabs (u) * 0x1p-50) / fabs (a[i]);
          if (e > lo[i] && e < hi[i])
            {
              ck_assert_msg (fabs (end - e) <= slack, "clip: end %.17g far from the edge %.17g (CN_TEST_SEED=%lu)", end,
                             e, tu_seed ());
              shrunk++;
            }
        }
      /* random points of the box */
      for (int p = 0; p < 20; p++)
        {
          for (int j = 0; j < n; j++)
            x[j] = tu_int (0, 3) == 0 ? (tu_int (0, 1) ? lo[j] : hi[j]) : lo[j] + (hi[j] - lo[j]) * tu_uniform (0, 1);
          if (exact_dot_cmp (n, a, x, u, acc, t) > 0)
            continue;
          for (int j = 0; j < n; j++)
            ck_assert_msg (clo[j] <= x[j] && x[j] <= chi[j], "clip: a point of the halfspace lost (CN_TEST_SEED=%lu)",
                           tu_seed ());
        }
    }
  ck_assert_msg (shrunk > 100, "clip: only %d ends were clipped (CN_TEST_SEED=%lu)", shrunk, tu_seed ());
  mpfr_clear (acc);
  mpfr_clear (t);
}
END_TEST

/* ---- the binary64 enclosures of src/sound/elementary.c against MPFI at 300 bits ---- */

enum { EL_EXP, EL_EXPM1, EL_LOG1P, EL_SIGMOID, EL_DSIGMOID, EL_TANH, EL_DTANH, EL_SOFTPLUS, EL_COUNT };
static const char *const el_name[EL_COUNT] = { "exp", "expm1", "log1p", "sigmoid", "dsigmoid", "tanh", "dtanh",
                                               "softplus" };

static void
el_fast (int f, double x, double *lo, double *hi)
{
  switch (f)
    {
    case EL_EXP: cn__exp_encl (x, lo, hi); break;
    case EL_EXPM1: cn__expm1_encl (x, lo, hi); break;
    case EL_LOG1P: cn__log1p_encl (x, lo, hi); break;
    case EL_SIGMOID: cn__sigmoid_encl (x, lo, hi); break;
    case EL_DSIGMOID: cn__dsigmoid_encl (x, lo, hi); break;
    case EL_TANH: cn__tanh_encl (x, lo, hi); break;
    case EL_DTANH: cn__dtanh_encl (x, lo, hi); break;
    default: cn__softplus_encl (x, lo, hi); break;
    }
}

/* Y := an MPFI enclosure of f(x) at Y's precision (formulas without cancellation). */
static void
el_ref (int f, double x, mpfi_ptr y)
{
  mpfi_t t, e;
  mpfi_init2 (t, mpfi_get_prec (y));
  mpfi_init2 (e, mpfi_get_prec (y));
  mpfi_set_d (t, x);
  switch (f)
    {
    case EL_EXP: mpfi_exp (y, t); break;
    case EL_EXPM1: mpfi_expm1 (y, t); break;
    case EL_LOG1P: mpfi_log1p (y, t); break;
    case EL_SIGMOID:
      mpfi_neg (t, t);
      mpfi_exp (t, t);
      mpfi_add_ui (t, t, 1);
      mpfi_ui_div (y, 1, t);
      break;
    case EL_DSIGMOID:
    case EL_DTANH:
      /* e/(1 + e)^2 with e = exp(-|x|) (times 4, e = exp(-2|x|), for tanh') */
      mpfi_abs (t, t);
      if (f == EL_DTANH)
        mpfi_mul_2ui (t, t, 1);
      mpfi_neg (t, t);
      mpfi_exp (e, t);
      mpfi_add_ui (t, e, 1);
      mpfi_sqr (t, t);
      mpfi_div (y, e, t);
      if (f == EL_DTANH)
        mpfi_mul_2ui (y, y, 2);
      break;
    case EL_TANH: mpfi_tanh (y, t); break;
    default:
      if (x > 0)
        {
          mpfi_neg (e, t);
          mpfi_exp (e, e);
          mpfi_log1p (e, e);
          mpfi_add (y, e, t);
        }
      else
        {
          mpfi_exp (e, t);
          mpfi_log1p (y, e);
        }
      break;
    }
  /* the ranges (sigmoid in [0, 1], sigmoid' in [0, 1/4], tanh in [-1, 1], tanh' in [0, 1]): the
   * enclosures clamp to them, and an MPFI quotient of two enclosures may stick out by an ulp */
  static const double rl[EL_COUNT] = { -INFINITY, -INFINITY, -INFINITY, 0, 0, -1, 0, -INFINITY };
  static const double rh[EL_COUNT] = { INFINITY, INFINITY, INFINITY, 1, 0.25, 1, 1, INFINITY };
  mpfi_interv_d (t, rl[f], rh[f]);
  mpfi_intersect (y, y, t);
  mpfi_clear (t);
  mpfi_clear (e);
}

/* The width of [lo, hi] in ulps of the reference's magnitude M (a subnormal M counts eta). */
static double
el_ulps (double lo, double hi, double m)
{
  m = fabs (m);
  double ulp = m >= DBL_MIN ? ldexp (1, ilogb (m) - 52) : CN_ETA;
  return (hi - lo) / ulp;
}

START_TEST (sound_elementary)
{
  /* the constants: ln 2's split to 2^-86, 1/ln 2 and the coefficients correctly rounded */
  mpfr_t c, d;
  mpfr_init2 (c, 300);
  mpfr_init2 (d, 300);
  mpfr_const_log2 (c, MPFR_RNDN);
  mpfr_sub_d (c, c, cn__elem_ln2_hi, MPFR_RNDN);
  mpfr_sub_d (c, c, cn__elem_ln2_lo, MPFR_RNDN);
  mpfr_abs (c, c, MPFR_RNDN);
  ck_assert (mpfr_cmp_d (c, 0x1p-86) <= 0);
  ck_assert (ldexp (cn__elem_ln2_hi, 32) == nearbyint (ldexp (cn__elem_ln2_hi, 32)));   /* 32 bits */
  mpfr_const_log2 (c, MPFR_RNDN);
  mpfr_ui_div (c, 1, c, MPFR_RNDN);
  ck_assert (mpfr_get_d (c, MPFR_RNDN) == cn__elem_inv_ln2);
  mpfr_set_ui (d, 1, MPFR_RNDN);   /* d = i! */
  for (int i = 0; i < 14; i++)
    {
      if (i > 0)
        mpfr_mul_ui (d, d, (unsigned long) i, MPFR_RNDN);
      mpfr_ui_div (c, 1, d, MPFR_RNDN);
      ck_assert_msg (mpfr_get_d (c, MPFR_RNDN) == cn__elem_exp_c[i], "exp coefficient %d", i);
      mpfr_div_ui (c, c, (unsigned long) i + 1, MPFR_RNDN);
      ck_assert_msg (mpfr_get_d (c, MPFR_RNDN) == cn__elem_expm1_c[i], "expm1 coefficient %d", i);
    }
  for (int i = 0; i < 17; i++)
    {
      mpfr_set_ui (c, 1, MPFR_RNDN);
      mpfr_div_ui (c, c, (unsigned long) (2 * i + 1), MPFR_RNDN);
      ck_assert_msg (mpfr_get_d (c, MPFR_RNDN) == cn__elem_atanh_c[i], "atanh coefficient %d", i);
    }
  mpfr_clear (c);
  mpfr_clear (d);

  /* every function at the edges and at 40000 random points: the exact value inside, the width
   * small (in ulps of the value, where it is normal) */
  static const double edges[] = { 0.0, -0.0, 0x1p-1074, -0x1p-1074, DBL_MIN, -DBL_MIN, 1e-300, -1e-300, 0x1p-30,
                                  -0x1p-30, 0.3465, -0.3465, 0.3467, -0.3467, 0.17, -0.17, 0.5, -0.5, 0.4999999999999999,
                                  1, -1, 20, -20, 37.5, -37.5, 40, -40, 354.9, 355, 700, -700, 709.78, 709.79,
                                  709.7827, -708.4, -745.1, -745.3, 1000, -1000, 1e300, -1e300, DBL_MAX, -DBL_MAX,
                                  INFINITY, -INFINITY, 1.0 - 0x1p-53, 0x1p-53, 0.75 };
  int nedge = (int) (sizeof edges / sizeof edges[0]);
  mpfi_t y;
  mpfi_init2 (y, 300);
  mpfr_t yl, yh;
  mpfr_inits2 (300, yl, yh, (mpfr_ptr) 0);
  for (int f = 0; f < EL_COUNT; f++)
    {
      double worst = 0, wx = 0;
      for (int i = 0; i < nedge + 40000; i++)
        {
          double x;
          if (i < nedge)
            x = edges[i];
          else if (i % 4 == 0)
            x = tu_uniform (-40, 40);
          else if (i % 4 == 1)
            x = ldexp (tu_uniform (-1, 1), (int) tu_int (-60, 10));
          else if (i % 4 == 2)
            x = tu_uniform (-800, 800);
          else
            x = tu_uniform (-1, 1);
          if (f == EL_LOG1P)
            x = fabs (x) <= 1 ? fabs (x) : fmod (fabs (x), 1.0);
          if (f == EL_LOG1P && !(x >= 0 && x <= 1))
            continue;
          double lo, hi;
          el_fast (f, x, &lo, &hi);
          el_ref (f, x, y);
          mpfi_get_left (yl, y);
          mpfi_get_right (yh, y);
          ck_assert_msg (!isnan (lo) && !isnan (hi) && mpfr_cmp_d (yl, lo) >= 0 && mpfr_cmp_d (yh, hi) <= 0,
                         "%s(%a): [%a, %a] misses [%a, %a] (CN_TEST_SEED=%lu)", el_name[f], x, lo, hi,
                         mpfr_get_d (yl, MPFR_RNDD), mpfr_get_d (yh, MPFR_RNDU), tu_seed ());
          double m = mpfr_get_d (yl, MPFR_RNDN);
          if (isfinite (m) && isfinite (hi) && isfinite (lo))
            {
              double w = el_ulps (lo, hi, m);
              if (w > worst)
                {
                  worst = w;
                  wx = x;
                }
            }
        }
      /* every enclosure is a few roundings wide; expm1 from exp - 1 loses a factor e^x/|e^x - 1| <= 3.4 */
      ck_assert_msg (worst <= 96, "%s: width %.1f ulps at %a (CN_TEST_SEED=%lu)", el_name[f], worst, wx, tu_seed ());
      if (getenv ("CN_VERBOSE") != NULL)
        printf ("%-9s widest %.1f ulps at %a\n", el_name[f], worst, wx);
    }
  mpfr_clears (yl, yh, (mpfr_ptr) 0);
  mpfi_clear (y);
}
END_TEST

START_TEST (fpenv)
{
  cn_error e;
  cn_error_clear (&e);
  ck_assert_int_eq (cn_fpenv_check (&e), CN_OK);
}
END_TEST

/* The instance generator (src/core/rng.h) against the draws the tests made before it existed: for
 * seed 12345, tests/testutil.c's own xoshiro256** (seeded by splitmix64) drew these three words,
 * then this uniform in [-2, 3] and this integer in [-5, 10^6]; a change here changes every seed's
 * instances.  Two states seeded alike draw alike, and the drawing of cases leaves no global state
 * behind (the same seed, the same case). */
START_TEST (rng_known_answers)
{
  cn__rng r, q;
  cn__rng_seed (&r, 12345);
  ck_assert_uint_eq (cn__rng_next (&r), 0xbe6a36374160d49bull);
  ck_assert_uint_eq (cn__rng_next (&r), 0x214aaa0637a688c6ull);
  ck_assert_uint_eq (cn__rng_next (&r), 0xf69d16de9954d388ull);
  ck_assert (cn__rng_uniform (&r, -2, 3) == -0x1.c21fe942770dap+0);
  ck_assert_int_eq (cn__rng_int (&r, -5, 1000000), 861599);
  ck_assert_int_eq (cn__rng_int (&r, 7, 7), 7);
  ck_assert_int_eq (cn__rng_int (&r, 7, 3), 7);
  for (int op = 0; op < CN_OP_COUNT; op++)
    {
      struct cn__op_case a, b;
      cn__rng_seed (&r, tu_seed () + (unsigned long) op);
      cn__rng_seed (&q, tu_seed () + (unsigned long) op);
      int da = cn__op_case_draw ((cn_op) op, &r, 1, &a), db = cn__op_case_draw ((cn_op) op, &q, 1, &b);
      ck_assert_int_eq (da, db);
      ck_assert_int_eq (a.n_in, b.n_in);
      for (int i = 0; i < a.n_in; i++)
        ck_assert_msg (cn_shape_equal (&a.in_shape[i], &b.in_shape[i]) && a.in_const[i] == b.in_const[i]
                       && a.in_dtype[i] == b.in_dtype[i], "%s: one seed, two cases (CN_TEST_SEED=%lu)",
                       cn_op_name ((cn_op) op), tu_seed ());
      ck_assert_uint_eq (cn__rng_next (&r), cn__rng_next (&q));
    }
}
END_TEST

/* SHA-256 on the examples of FIPS 180-4 (one block, two blocks, a million bytes) and on lengths
 * about the padding's edges (55, 56, 63, 64 and 119 bytes, digests from Python's hashlib), each
 * also fed in pieces of random lengths. */
START_TEST (sha256_known_answers)
{
  static const struct { const char *text; size_t repeat; const char *hex; } known[] = {
    { "", 1, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" },
    { "abc", 1, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" },
    { "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", 1,
      "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1" },
    { "a", 1000000, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0" },
    { "a", 55, "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318" },
    { "a", 56, "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a" },
    { "a", 63, "7d3e74a05d7db15bce4ad9ec0658ea98e3f06eeecf16b4c6fff2da457ddc2f34" },
    { "a", 64, "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb" },
    { "a", 119, "31eba51c313a5c08226adf18d4a359cfdfd8d2e816b13f4af952f7ea6584dcfb" },
  };
  for (size_t q = 0; q < sizeof known / sizeof known[0]; q++)
    {
      size_t len = strlen (known[q].text) * known[q].repeat;
      char *msg = malloc (len + 1);
      ck_assert (msg != NULL);
      for (size_t i = 0; i < known[q].repeat; i++)
        memcpy (msg + i * strlen (known[q].text), known[q].text, strlen (known[q].text));
      char hex[65];
      cn__sha256_hex (msg, len, hex);
      ck_assert_msg (strcmp (hex, known[q].hex) == 0, "sha256 of case %zu: %s, expected %s", q, hex, known[q].hex);
      /* the same bytes in pieces of 0 to 130 bytes */
      cn__sha256 s;
      unsigned char d[32], e[32];
      cn__sha256_init (&s);
      for (size_t at = 0; at < len;)
        {
          size_t take = (size_t) tu_int (0, 130);
          if (take > len - at)
            take = len - at;
          cn__sha256_update (&s, msg + at, take);
          at += take;
        }
      cn__sha256_final (&s, d);
      cn__sha256_init (&s);
      cn__sha256_update (&s, msg, len);
      cn__sha256_final (&s, e);
      ck_assert_msg (memcmp (d, e, 32) == 0, "sha256 of case %zu differs when fed in pieces (CN_TEST_SEED=%lu)", q,
                     tu_seed ());
      free (msg);
    }
}
END_TEST

START_TEST (graph_builder_errors)
{
  cn_graph *g;
  cn_error e;
  cn_error_clear (&e);
  ck_assert_int_eq (cn_graph_create (&g, &e), CN_OK);
  cn_shape s;
  int64_t d[2] = { 2, 3 };
  cn_shape_make (&s, 2, d, NULL);
  int x, y, z;
  ck_assert_int_eq (cn_graph_add_input (g, "x", CN_DTYPE_F64, &s, &x, &e), CN_OK);
  /* an operator without a rule is refused, naming it (the first one the table lacks) */
  cn_op none = CN_OP_COUNT;
  for (int op = 0; op < CN_OP_COUNT && none == CN_OP_COUNT; op++)
    {
      cn_op_coverage cov;
      cn_op_coverage_get ((cn_op) op, &cov);
      if (!cov.rule)
        none = (cn_op) op;
    }
  if (none != CN_OP_COUNT)
    {
      ck_assert_int_eq (cn_graph_add_node (g, none, NULL, 1, &x, "sm", &y, &e), CN_EUNSUPPORTED);
      ck_assert_msg (strstr (e.msg, cn_op_name (none)) && strstr (e.msg, "sm"), "%s", e.msg);
    }
  /* a NaN constant is refused */
  cn_tensor t;
  cn_tensor_init (&t, CN_DTYPE_F32, &s, NULL);
  ((float *) t.data)[4] = NAN;
  cn_error_clear (&e);
  ck_assert_int_eq (cn_graph_add_constant (g, "w", &t, &z, &e), CN_ENUMERIC);
  ck_assert_msg (strstr (e.msg, "NaN") && strstr (e.msg, "4"), "%s", e.msg);
  cn_tensor_clear (&t);
  /* a value that does not exist */
  int bad = 99;
  cn_error_clear (&e);
  ck_assert_int_eq (cn_graph_add_node (g, CN_OP_RELU, NULL, 1, &bad, "r", &y, &e), CN_EINVAL);
  /* wrong arity */
  int two[2] = { x, x };
  cn_error_clear (&e);
  ck_assert_int_eq (cn_graph_add_node (g, CN_OP_RELU, NULL, 2, two, "r", &y, &e), CN_EINVAL);
  /* shape mismatch in a binary elementwise op, named */
  int64_t d2[1] = { 3 };
  cn_shape s2;
  cn_shape_make (&s2, 1, d2, NULL);
  int w;
  ck_assert_int_eq (cn_graph_add_input (g, "w", CN_DTYPE_F64, &s2, &w, NULL), CN_OK);
  int xw[2] = { x, w };
  cn_error_clear (&e);
  ck_assert_int_eq (cn_graph_add_node (g, CN_OP_ADD, NULL, 2, xw, "plus", &y, &e), CN_ESHAPE);
  ck_assert_msg (strstr (e.msg, "add") && strstr (e.msg, "plus"), "%s", e.msg);
  cn_graph_free (g);
  cn_graph_free (NULL);
}
END_TEST

int
main (void)
{
  tu_init ();
  Suite *s = suite_create ("core");
  TCase *tc = tcase_create ("core");
  tcase_set_timeout (tc, 120);
  tcase_add_test (tc, status_strings);
  tcase_add_test (tc, tensor_basics);
  tcase_add_test (tc, reduced_formats);
  tcase_add_test (tc, box_basics);
  tcase_add_test (tc, sound_up_down);
  tcase_add_test (tc, sound_gamma_kappa);
  tcase_add_test (tc, sound_dot);
  tcase_add_test (tc, sound_clip);
  tcase_add_test (tc, sound_elementary);
  tcase_add_test (tc, fpenv);
  tcase_add_test (tc, rng_known_answers);
  tcase_add_test (tc, sha256_known_answers);
  tcase_add_test (tc, graph_builder_errors);
  suite_add_tcase (s, tc);
  return tu_run_suite (s);
}
