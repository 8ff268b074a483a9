/* SPDX-License-Identifier: MIT */
/* src/core/tensor.c: shapes and dense tensors. */
#include <config.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "certnn/tensor.h"
#include "core/reduced.h"

static const struct
{
  const char *name;
  size_t size;
} dtype_info[] = {
  [CN_DTYPE_F64] = { "f64", 8 },  [CN_DTYPE_F32] = { "f32", 4 }, [CN_DTYPE_BOOL] = { "bool", 1 },
  [CN_DTYPE_I8] = { "i8", 1 },    [CN_DTYPE_I16] = { "i16", 2 }, [CN_DTYPE_I32] = { "i32", 4 },
  [CN_DTYPE_I64] = { "i64", 8 },  [CN_DTYPE_U8] = { "u8", 1 },   [CN_DTYPE_U16] = { "u16", 2 },
  [CN_DTYPE_U32] = { "u32", 4 },  [CN_DTYPE_U64] = { "u64", 8 }, [CN_DTYPE_F16] = { "f16", 2 },
  [CN_DTYPE_BF16] = { "bf16", 2 },
};
_Static_assert (sizeof dtype_info / sizeof dtype_info[0] == CN_DTYPE_COUNT, "dtype table incomplete");

size_t
cn_dtype_size (cn_dtype t)
{
  return (unsigned) t < CN_DTYPE_COUNT ? dtype_info[t].size : 0;
}

const char *
cn_dtype_name (cn_dtype t)
{
  return (unsigned) t < CN_DTYPE_COUNT ? dtype_info[t].name : "invalid";
}

int
cn_dtype_is_float (cn_dtype t)
{
  return t == CN_DTYPE_F64 || t == CN_DTYPE_F32 || t == CN_DTYPE_F16 || t == CN_DTYPE_BF16;
}

int
cn_dtype_is_reduced (cn_dtype t)
{
  return t == CN_DTYPE_F16 || t == CN_DTYPE_BF16;
}

/* ---- the reduced formats -------------------------------------------------------------------
 * A format of M stored significand bits (precision p = M + 1) and E exponent bits, bias
 * 2^(E-1) - 1: f16 M = 10, E = 5; bf16 M = 7, E = 8.  Its normal numbers are m 2^(e-M) with
 * 2^M <= m < 2^(M+1) and 1 - bias <= e <= bias, its subnormals m 2^(1-bias-M) with 0 < m < 2^M;
 * word = sign << 15 | biased exponent << M | (m mod 2^M), biased exponent 0 for subnormals and
 * zeros, 2^E - 1 for the infinities (m = 0) and NaNs. */
struct reduced
{
  int m, e;
};

static int
reduced_of (cn_dtype t, struct reduced *f)
{
  if (t == CN_DTYPE_F16)
    *f = (struct reduced) { 10, 5 };
  else if (t == CN_DTYPE_BF16)
    *f = (struct reduced) { 7, 8 };
  else
    return 0;
  return 1;
}

/* The integer nearest to Q >= 0, ties to even, computed without the rounding mode: Q is a double
 * below 2^53, floor(Q) within 1 of it, so d = Q - floor(Q) is exact (a multiple of Q's ulp below
 * 1). */
static double
nearest_even (double q)
{
  double f = floor (q), d = q - f;
  if (d > 0.5 || (d == 0.5 && fmod (f, 2) != 0))
    f += 1;
  return f;
}

uint16_t
cn_reduced_encode (cn_dtype t, double x)
{
  struct reduced f;
  if (!reduced_of (t, &f))
    return 0;
  uint16_t sign = signbit (x) ? 0x8000 : 0;
  int bias = (1 << (f.e - 1)) - 1, emax_field = (1 << f.e) - 1;
  if (isnan (x))
    return (uint16_t) (sign | emax_field << f.m | 1 << (f.m - 1));   /* the quiet NaN */
  double a = fabs (x);
  if (isinf (a))
    return (uint16_t) (sign | emax_field << f.m);
  /* a = m 2^k with m in [1/2, 1): its exponent is k - 1; below the least normal 2^(1-bias) the
   * quantum is the subnormals' 2^(1-bias-M) */
  int k;
  frexp (a, &k);
  int ex = k - 1 < 1 - bias ? 1 - bias : k - 1;
  /* q = a / quantum: below 2^(M+1), exact (a scaling by a power of two of a double; no
   * underflow, since the quantum is at most a); n = q rounded to nearest even, the one rounding */
  double n = nearest_even (ldexp (a, f.m - ex));
  if (n >= ldexp (1, f.m + 1))
    {
      /* carried into the next binade: n = 2^(M+1), the significand 2^M one exponent up */
      n = ldexp (1, f.m);
      ex++;
    }
  if (n < ldexp (1, f.m))
    /* a subnormal (or zero, or the carry into the least normal 2^M, which the next line
     * encodes as exponent field 1 and significand 0, that number's word) */
    return (uint16_t) (sign | (uint16_t) n);
  int field = ex + bias;
  if (field >= emax_field)
    return (uint16_t) (sign | emax_field << f.m);   /* overflow: past the largest and its tie */
  return (uint16_t) (sign | field << f.m | ((uint16_t) n - (1 << f.m)));
}

int
cn__reduced_limits (cn_dtype t, int *p, double *q, double *overflow)
{
  struct reduced f;
  if (!reduced_of (t, &f))
    return 0;
  int bias = (1 << (f.e - 1)) - 1;
  *p = f.m + 1;
  *q = ldexp (1, 1 - bias - f.m);
  /* the largest number (2^(M+1) - 1) 2^(bias-M), half its ulp 2^(bias-M-1) */
  *overflow = ldexp (ldexp (1, f.m + 1) - 1, bias - f.m) + ldexp (1, bias - f.m - 1);
  return 1;
}

double
cn_reduced_decode (cn_dtype t, uint16_t w)
{
  struct reduced f;
  if (!reduced_of (t, &f))
    return NAN;
  int bias = (1 << (f.e - 1)) - 1, emax_field = (1 << f.e) - 1;
  int field = (w >> f.m) & emax_field;
  unsigned mant = w & ((1u << f.m) - 1);
  double v;
  if (field == emax_field)
    v = mant != 0 ? NAN : INFINITY;
  else if (field == 0)
    v = ldexp (mant, 1 - bias - f.m);
  else
    v = ldexp (mant + (1u << f.m), field - bias - f.m);
  return w & 0x8000 ? -v : v;
}

double
cn_dtype_round (cn_dtype t, double x)
{
  switch (t)
    {
    case CN_DTYPE_F64: return x;
    case CN_DTYPE_F32: return (float) x;
    case CN_DTYPE_F16:
    case CN_DTYPE_BF16: return cn_reduced_decode (t, cn_reduced_encode (t, x));
    default: return NAN;
    }
}

cn_status
cn_shape_make (cn_shape *s, int rank, const int64_t *dim, cn_error *err)
{
  if (rank < 0 || rank > CN_MAX_RANK)
    return cn_error_set (err, CN_EINVAL, "shape: rank %d outside 0..%d", rank, CN_MAX_RANK);
  memset (s, 0, sizeof *s);
  s->rank = rank;
  for (int i = 0; i < rank; i++)
    {
      if (dim[i] < 0)
        return cn_error_set (err, CN_EINVAL, "shape: negative extent %lld on axis %d",
                             (long long) dim[i], i);
      s->dim[i] = dim[i];
    }
  if (cn_shape_numel (s) < 0)
    return cn_error_set (err, CN_EINVAL, "shape: element count overflows");
  return CN_OK;
}

int64_t
cn_shape_numel (const cn_shape *s)
{
  int64_t n = 1;
  for (int i = 0; i < s->rank; i++)
    {
      if (s->dim[i] != 0 && n > INT64_MAX / s->dim[i])
        return -1;
      n *= s->dim[i];
    }
  return n;
}

/* the size limit (certnn/tensor.h); read everywhere, written only by cn_set_max_numel */
static int64_t max_numel = CN_MAX_NUMEL_DEFAULT;

void
cn_set_max_numel (int64_t n)
{
  max_numel = n < 1 ? CN_MAX_NUMEL_DEFAULT : n;
}

int64_t
cn_max_numel (void)
{
  return max_numel;
}

cn_status
cn_shape_check_limit (const cn_shape *s, const char *what, cn_error *err)
{
  int64_t n = cn_shape_numel (s);
  if (n >= 0 && n <= max_numel)
    return CN_OK;
  char buf[160];
  cn_shape_format (s, buf, sizeof buf);
  if (n < 0)
    return cn_error_set (err, CN_ELIMIT, "%s: shape %s has more numbers than int64 counts, more than the limit %lld",
                         what, buf, (long long) max_numel);
  return cn_error_set (err, CN_ELIMIT, "%s: shape %s has %lld numbers, more than the limit %lld", what, buf,
                       (long long) n, (long long) max_numel);
}

int
cn_shape_equal (const cn_shape *a, const cn_shape *b)
{
  if (a->rank != b->rank)
    return 0;
  for (int i = 0; i < a->rank; i++)
    if (a->dim[i] != b->dim[i])
      return 0;
  return 1;
}

char *
cn_shape_format (const cn_shape *s, char *buf, size_t size)
{
  size_t k = 0;
  if (size == 0)
    return buf;
  buf[0] = '\0';
  k += (size_t) snprintf (buf + k, size - k, "[");
  for (int i = 0; i < s->rank && k < size; i++)
    k += (size_t) snprintf (buf + k, size - k, i ? ",%lld" : "%lld", (long long) s->dim[i]);
  if (k < size)
    snprintf (buf + k, size - k, "]");
  return buf;
}

cn_status
cn_tensor_init (cn_tensor *t, cn_dtype dtype, const cn_shape *shape, cn_error *err)
{
  memset (t, 0, sizeof *t);
  if ((unsigned) dtype >= CN_DTYPE_COUNT)
    return cn_error_set (err, CN_EINVAL, "tensor: invalid element sort %d", (int) dtype);
  cn_status st = cn_shape_check_limit (shape, "tensor", err);
  if (st != CN_OK)
    return st;
  int64_t n = cn_shape_numel (shape);
  t->dtype = dtype;
  t->shape = *shape;
  if (n > 0)
    {
      t->data = calloc ((size_t) n, cn_dtype_size (dtype));
      if (t->data == NULL)
        return cn_error_set (err, CN_ENOMEM, "tensor: cannot allocate %lld elements", (long long) n);
    }
  return CN_OK;
}

void
cn_tensor_clear (cn_tensor *t)
{
  if (t == NULL)
    return;
  free (t->data);
  t->data = NULL;
}

int64_t
cn_tensor_numel (const cn_tensor *t)
{
  return cn_shape_numel (&t->shape);
}

double
cn_tensor_get_f64 (const cn_tensor *t, int64_t i)
{
  switch (t->dtype)
    {
    case CN_DTYPE_F64: return ((const double *) t->data)[i];
    case CN_DTYPE_F32: return ((const float *) t->data)[i];
    case CN_DTYPE_BOOL: return ((const uint8_t *) t->data)[i] != 0;
    case CN_DTYPE_I8: return ((const int8_t *) t->data)[i];
    case CN_DTYPE_I16: return ((const int16_t *) t->data)[i];
    case CN_DTYPE_I32: return ((const int32_t *) t->data)[i];
    case CN_DTYPE_I64: return (double) ((const int64_t *) t->data)[i];
    case CN_DTYPE_U8: return ((const uint8_t *) t->data)[i];
    case CN_DTYPE_U16: return ((const uint16_t *) t->data)[i];
    case CN_DTYPE_U32: return ((const uint32_t *) t->data)[i];
    case CN_DTYPE_U64: return (double) ((const uint64_t *) t->data)[i];
    case CN_DTYPE_F16:
    case CN_DTYPE_BF16: return cn_reduced_decode (t->dtype, ((const uint16_t *) t->data)[i]);
    default: return NAN;
    }
}

/* Writes V into element I of T; 0 if V is representable there (exactly for integer sorts,
 * rounded to nearest for the floating sorts narrower than f64), -1 otherwise. */
static int
put_f64 (cn_tensor *t, int64_t i, double v)
{
  switch (t->dtype)
    {
    case CN_DTYPE_F64: ((double *) t->data)[i] = v; return 0;
    case CN_DTYPE_F32: ((float *) t->data)[i] = (float) v; return 0;
    case CN_DTYPE_BOOL: ((uint8_t *) t->data)[i] = v != 0; return 0;
    case CN_DTYPE_F16:
    case CN_DTYPE_BF16: ((uint16_t *) t->data)[i] = cn_reduced_encode (t->dtype, v); return 0;
    default: break;
    }
  if (v != floor (v))
    return -1;
#define PUT(type, lo, hi)                                    \
  do {                                                       \
    if (!(v >= (double) (lo) && v <= (double) (hi)))         \
      return -1;                                             \
    ((type *) t->data)[i] = (type) v;                        \
    return 0;                                                \
  } while (0)
  switch (t->dtype)
    {
    case CN_DTYPE_I8: PUT (int8_t, INT8_MIN, INT8_MAX);
    case CN_DTYPE_I16: PUT (int16_t, INT16_MIN, INT16_MAX);
    case CN_DTYPE_I32: PUT (int32_t, INT32_MIN, INT32_MAX);
    case CN_DTYPE_I64: PUT (int64_t, -9223372036854775808.0, 9223372036854774784.0);
    case CN_DTYPE_U8: PUT (uint8_t, 0, UINT8_MAX);
    case CN_DTYPE_U16: PUT (uint16_t, 0, UINT16_MAX);
    case CN_DTYPE_U32: PUT (uint32_t, 0, UINT32_MAX);
    case CN_DTYPE_U64: PUT (uint64_t, 0, 18446744073709549568.0);
    default: return -1;
    }
#undef PUT
}

cn_status
cn_tensor_convert (cn_tensor *dst, cn_dtype dtype, const cn_tensor *src, cn_error *err)
{
  cn_status st = cn_tensor_init (dst, dtype, &src->shape, err);
  if (st != CN_OK)
    return st;
  int64_t n = cn_tensor_numel (src);
  if (dtype == src->dtype)
    {
      if (n > 0)
        memcpy (dst->data, src->data, (size_t) n * cn_dtype_size (dtype));
      return CN_OK;
    }
  for (int64_t i = 0; i < n; i++)
    if (put_f64 (dst, i, cn_tensor_get_f64 (src, i)) != 0)
      {
        cn_tensor_clear (dst);
        return cn_error_set (err, CN_ENUMERIC, "tensor: element %lld (%g) not representable as %s",
                             (long long) i, cn_tensor_get_f64 (src, i), cn_dtype_name (dtype));
      }
  return CN_OK;
}
