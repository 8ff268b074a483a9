/* SPDX-License-Identifier: MIT */
/* src/ops/integer_impl.h: what the files of integer words share (internal): src/ops/integer.c (the
 * word operators, which defines the functions declared here), src/ops/bitcast.c and
 * src/ops/index_code.c.
 *
 * Words, their patterns and offsets, and how an arm reads a box or an MPFI enclosure of a word
 * port, are those of the opening comment of src/ops/integer.c.  Every helper here is exact on
 * integers; the only doubles written are the ends of cn__word_off_to_d, rounded in the direction
 * asked (exact below 2^53), and the entries of cn__float_put, rounded to nearest into f32. */
#ifndef CN_INTEGER_IMPL_H
#define CN_INTEGER_IMPL_H

#include "ops/ops_impl.h"

/* The sort of input I as the graph recorded it (CN_DTYPE_F64 for the model's scalar), or
 * CN_DTYPE_COUNT when the view does not carry the sorts. */
static inline cn_dtype
cn__view_input_sort (const cn_node_view *nv, int i)
{
  return nv->in_sort != NULL ? nv->in_sort[i] : CN_DTYPE_COUNT;
}

/* The word sort of input I for an IBP or MPFI arm, into *S; CN_EUNSUPPORTED if the view does not
 * carry the sorts.  The input's sort is a word sort (out_sort checked it). */
cn_status cn__view_word_sort (const cn_node_view *nv, int i, cn__wsort *s, cn_error *err);

/* The pattern P widened to 64 bits with the sort's meaning: sign-extended if signed. */
static inline uint64_t
cn__word_widen (const cn__wsort *s, uint64_t p)
{
  return s->sgn && (p & s->top) ? p | ~s->mask : p;
}

/* Offsets: u = v - min, an order-preserving map of the sort's words onto [0, 2^N).  The pattern of
 * offset u is u ^ 2^(N-1) for a signed sort and u itself for an unsigned one (and back). */
static inline uint64_t
cn__word_pat (const cn__wsort *s, uint64_t u)
{
  return s->sgn ? u ^ s->top : u;
}

/* The offset of the word of value V >= 0 (V a word of the sort). */
static inline uint64_t
cn__word_off_nonneg (const cn__wsort *s, uint64_t v)
{
  return s->sgn ? v + s->top : v;
}

/* The offset of the signed value V (a word of the signed sort S): (V + 2^(N-1)) computed modulo
 * 2^64, exact since the result is in [0, 2^N). */
static inline uint64_t
cn__word_off_signed (const cn__wsort *s, int64_t v)
{
  return ((uint64_t) v + s->top) & s->mask;
}

/* The value of offset U as a double, rounded down (UP = 0) or up (UP = 1); exact below 2^53. */
double cn__word_off_to_d (const cn__wsort *s, uint64_t u, int up);

/* Reads the box [L, H] of word port I at entry J as the offsets [*A, *B] of the words of the
 * sort S it holds (src/ops/integer.c's opening comment).  Returns CN_ENUMERIC, naming the
 * operator and node, for a NaN end or no word. */
cn_status cn__word_box (const cn_node_view *nv, const cn__wsort *s, double l, double h, int i, int64_t j,
                        uint64_t *a, uint64_t *b, cn_error *err);

/* The same for an MPFI enclosure X: ceil(left) and floor(right) by mpfr_get_sj / mpfr_get_uj,
 * which saturate at the 64-bit range (a saturated end is cut to the sort's range anyway; it can
 * only widen the set, never lose a word). */
cn_status cn__word_enclosure (const cn_node_view *nv, const cn__wsort *s, mpfi_srcptr x, int i, int64_t j,
                              uint64_t *a, uint64_t *b, cn_error *err);

/* Sets R to the words of offsets [A, B] (exact at precision >= 64, else rounded outward); T0 and
 * T1 are scratch variables of R's precision. */
void cn__word_mpfi_set (mpfi_ptr r, const cn__wsort *s, uint64_t a, uint64_t b, mpfr_ptr t0, mpfr_ptr t1);

/* The patterns of the words of offsets [A, B], as at most two intervals P[k] = [P[k][0],
 * P[k][1]] within one half each (the sign bit constant); returns their number. */
int cn__word_halves (const cn__wsort *s, uint64_t a, uint64_t b, uint64_t p[2][2]);

/* Widens the hull [*LO, *HI] (empty when *ANY = 0) by [A, B]. */
static inline void
cn__word_hull (int *any, uint64_t *lo, uint64_t *hi, uint64_t a, uint64_t b)
{
  if (!*any || a < *lo)
    *lo = a;
  if (!*any || b > *hi)
    *hi = b;
  *any = 1;
}

/* Entry J of the floating tensor T (f64 or f32) as a double (exact). */
static inline double
cn__float_get (const cn_tensor *t, int64_t j)
{
  return t->dtype == CN_DTYPE_F64 ? ((const double *) t->data)[j] : (double) ((const float *) t->data)[j];
}

/* Stores V into entry J of the floating tensor T (rounded to nearest into f32). */
static inline void
cn__float_put (cn_tensor *t, int64_t j, double v)
{
  if (t->dtype == CN_DTYPE_F64)
    ((double *) t->data)[j] = v;
  else
    ((float *) t->data)[j] = (float) v;
}

#endif
