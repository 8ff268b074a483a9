/* SPDX-License-Identifier: MIT */
/* src/ops/softmax.c: softmax, logSoftmax and maskedSoftmax (cn_params_softmax).
 *
 * All three work on the slices of x along AXIS (extent n): with outer the product of the extents
 * before AXIS and inner the product after it, slice (o, i) holds the entries (o n + k) inner + i,
 * k = 0..n-1.  maskedSoftmax has a second input, the mask, a bool port of x's shape: the forward
 * reads it through its sort, a Boolean tensor (CN_DTYPE_BOOL, what typed evaluation hands a bool
 * port) true where nonzero, or, for compatibility, a mask held in the model's scalar (f64 or f32)
 * true where >= 0.5 (0 and 1 read exactly; NaN is false); no other sort reaches it (the graph
 * builder admits Booleans only at a bool port; the forward asserts it).  Its
 * slice's kept set K is the entries whose mask is true; softmax and logSoftmax keep every entry.
 *
 *   softmax        y_k = exp(x_k) / sum_{j in K} exp(x_j)              (k in K; 0 elsewhere)
 *   logSoftmax     y_k = x_k - log sum_j exp(x_j)
 *   maskedSoftmax  softmax over K, y_k = 0 for k outside K; a slice with K empty is all 0 (as
 *                  PyTorch's masked softmax for fully masked rows).  Masked entries of x are never
 *                  read: a NaN or infinity there changes nothing.
 *
 *   Forward  in the tensors' sort T (double or float, exp/expf and log1p/log1pf), in a fixed order
 *            per slice: m = the max over K and a its first index (a NaN entry is skipped by the
 *            comparison and then propagates through its exponential), e_k = fl(exp(fl(x_k - m))) for
 *            k in K, s' = the RN sum of e_k over K without a, in increasing k (NaN if m is +-inf), then
 *              softmax:    y_k = fl(e_k / fl(1 + s'));
 *              logSoftmax: y_k = fl(fl(x_k - m) - fl(log1p s'))   (log-sum-exp: no overflow).
 *            Subtracting the max keeps every exponential in (0, 1] and s' in [0, n - 1], so nothing
 *            overflows and the largest term never underflows.  As in PyTorch a NaN in a kept entry
 *            makes the whole slice NaN, a slice whose max is +inf is NaN, and a slice of -inf is NaN.
 *            logSoftmax takes log1p of the sum without the first maximum's term (exactly 1), so
 *            the maximum's y = -log1p(s') keeps its relative accuracy when it is near 0, and the
 *            others are y_k = -(|x_k - m| + log1p(s')), a sum of two terms of one sign.
 *            Measured error against MPFR at 300 bits (glibc, x86-64; 100000 random slices of n = 1..16
 *            with entries uniform in [-R, R]; f32 against the exact value at the float inputs), the
 *            largest seen, in ulps of the exact result, f64 / f32:
 *              R = 2:   softmax 4.0 / 5.6    logSoftmax 2.1 / 2.9
 *              R = 20:  softmax 34 / 34      logSoftmax 32 / 32
 *            Neither is correctly rounded.  The error grows with the spread |x_k - m|: the rounding
 *            of the difference fl(x_k - m) (relative u) becomes an error of about |x_k - m| u in
 *            exp, hence in y (PyTorch's formula has the same behaviour); roughly
 *            (|x_k - m| + n + 2) ulps at worst.  The generic test's tolerance (16e-12 (1 + |r|) in
 *            f64, 16e-4 (1 + |r|) in f32) is far above these on its ranges.
 *   IBP      (ALGORITHMS.md 1.6) softmax is increasing in its own argument and decreasing in the
 *            others, so over the box [l, u] the exact range of y_i (i in K, |K| >= 2) is
 *                [1 / (1 + S_i^+),  1 / (1 + S_i^-)],
 *                S_i^+ = sum_{j in K, j != i} exp(u_j - l_i),   S_i^- = sum_{j in K, j != i} exp(l_j - u_i),
 *            and logSoftmax's is [-log1p(S_i^+), -log1p(S_i^-)].  Computed in O(n) per slice without
 *            overflow: with M = max_K u_j, t_j = exp(u_j - M) in (0, 1] is bounded above by MPFR at 53
 *            bits (the difference and the exponential rounded up, then mpfr_get_d up); the sums
 *            A_i >= sum_{j != i} t_j come from prefix and suffix sums (no cancellation) with cn__up
 *            after each addition; then S_i^+ <= A_i exp(M - l_i), the product, the difference and
 *            the exponential rounded up in MPFR (whose exponent range holds exp(M - l_i) far beyond
 *            double's), and the end 1/(1 + S) (resp. -log1p(S)) rounded down in MPFR and converted
 *            down.  The upper end mirrors it with Ml = max_K l_j, every rounding down (sums clamped
 *            at 0), the end rounded up.  Every step is monotone in the right direction, so the box
 *            contains the exact range; it is within a few ulps of it.  Ends: a NaN end of a kept
 *            entry is CN_ENUMERIC; infinite ends give their limits through MPFR (exp(+inf) = +inf,
 *            1/(1 + inf) = 0, -log1p(+inf) = -inf); where a step meets inf - inf or 0 inf (a shift by
 *            an infinite max, an entry whose box is [+inf, +inf]) the end falls back to the trivial
 *            bound (softmax 0 or 1, logSoftmax -inf or 0), sound and loose.  |K| = 1 gives [1, 1]
 *            (logSoftmax [0, 0]), entries outside K [0, 0].  maskedSoftmax reads the mask's box as
 *            Booleans (an end >= 0.5 is true): entries known kept form K0, entries of unknown mask
 *            ([0, 1]) form U.  With x fixed, adding an entry to the kept set only lowers y_i, so for
 *            every kept set K0 <= K <= K0 + U holding i, y_i over K lies between its value over
 *            K0 + U and its value over K0 + {i}.  Hence: an entry known kept gets [the row bound's
 *            lower end over K0 + U, its upper end over K0]; an unknown entry [0, the upper end over
 *            K0 + {i}] (it may be masked: 0); a masked entry [0, 0].  Without unknown entries this
 *            is the plain row bound over K.
 *   MPFI     the same computation as IBP on the enclosures' ends at the output's precision (MPFR
 *            with directed rounding: M and Ml the largest right and left ends, exp(right_j - M) and
 *            exp(left_j - Ml) rounded up and down, prefix and suffix sums, the products with
 *            exp(M - left_i) and exp(Ml - right_i), the ends 1/(1 + S) or -log1p(S) rounded outward),
 *            which is interval arithmetic on the monotone form of 1.6: on point inputs it encloses
 *            the exact value, on boxes it gives the exact range up to rounding, so IBP's box contains
 *            it.  The same fallbacks (a NaN step gives the trivial end), the same mask rules (an
 *            enclosure of a mask entry holding 0.5 or more only is true, below 0.5 only false,
 *            else unknown).
 *   Pullback (binary64, y the forward output)
 *              softmax, maskedSoftmax: g_x,k += y_k (g_k - sum_j g_j y_j)   (y = 0 outside K, so
 *                masked entries get nothing and the mask, a bool port, never a gradient);
 *              logSoftmax: g_x,k += g_k - exp(y_k) sum_j g_j.
 *   Jvp      the transposes: softmax t_k = y_k (t_x,k - sum_j y_j t_x,j); logSoftmax
 *            t_k = t_x,k - sum_j exp(y_k) t_x,j.  The functions are smooth: no one-sided choice.
 *   CROWN    softmax, logSoftmax and maskedSoftmax with a known mask: per output, planes with the
 *            gradient at the box's centre and intercepts from Taylor's theorem with a bound of the
 *            Hessian's quadratic form (the section "CROWN" below).
 * The forward of contiguous rows (cn__softmax_rows_f64/f32) and the IBP and MPFI computations of one
 * row of kept entries (cn__softmax_row_ibp, cn__softmax_row_mpfi) are shared with
 * src/ops/attention.c through src/ops/attention_impl.h; the arms here gather each slice's kept
 * entries into a row and scatter the row's bounds back.
 * The three rules share every hook; each rule's impl (struct sm_impl) says which function it
 * computes.  The arms trust the shapes and sorts the graph builder checked (debug assertions
 * state them); NaN ends are input, refused as above. */
#include <config.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "ops/ops_impl.h"
#include "ops/attention_impl.h"
#include "sound/elementary.h"
#include "sound/sound.h"

/* Which function a row computes: softmax, logSoftmax, or softmax over the mask's kept entries. */
enum sm_kind { SM, LSM, MSM };

/* The family's data of one operator, its rule's impl. */
struct sm_impl
{
  enum sm_kind kind;
};

static enum sm_kind
sm_kind_of (const cn_node_view *nv)
{
  return ((const struct sm_impl *) nv->rule->impl)->kind;
}

/* ---- check ---------------------------------------------------------------------------- */

/* The axis in range; maskedSoftmax's mask (the rule's second port) of the input's shape. */
static cn_status
sm_check (const struct cn_op_rule *rule, const void *params, int n_in, const cn_shape *const *in, cn_shape *out,
          cn_error *err)
{
  const char *op = cn_op_name (rule->op);
  int want = rule->n_in;
  const cn_params_softmax *p = params;
  char a[128], b[128];
  if (p == NULL)
    return cn_error_set (err, CN_EINVAL, "%s: missing attributes", op);
  if (n_in != want)
    return cn_error_set (err, CN_EINVAL, "%s: takes %d input%s, got %d", op, want, want > 1 ? "s" : "", n_in);
  for (int i = 0; i < n_in; i++)
    {
      cn_status st = cn__input_valid (op, i, in[i], err);
      if (st != CN_OK)
        return st;
    }
  if (in[0]->rank < 1)
    return cn_error_set (err, CN_ESHAPE, "%s: input has rank 0", op);
  if (p->axis < 0 || p->axis >= in[0]->rank)
    return cn_error_set (err, CN_EINVAL, "%s: axis %d out of range for input %s", op, p->axis,
                         cn_shape_format (in[0], a, sizeof a));
  if (want == 2 && !cn_shape_equal (in[0], in[1]))
    return cn_error_set (err, CN_ESHAPE, "%s: mask shape %s differs from input shape %s", op,
                         cn_shape_format (in[1], b, sizeof b), cn_shape_format (in[0], a, sizeof a));
  *out = *in[0];
  return CN_OK;
}

/* The slice layout of the node: outer x n x inner. */
static void
sm_dims (const cn_node_view *nv, int64_t *outer, int64_t *n, int64_t *inner)
{
  const cn_params_softmax *p = nv->params;
  const cn_shape *x = nv->in_shape[0];
  int64_t a = 1, b = 1;
  for (int i = 0; i < p->axis; i++)
    a *= x->dim[i];
  for (int i = p->axis + 1; i < x->rank; i++)
    b *= x->dim[i];
  *outer = a;
  *n = x->dim[p->axis];
  *inner = b;
}

/* ---- forward -------------------------------------------------------------------------- */

/* Whether entry Q of the mask MK (of sort MDT) is true: a Boolean is true when nonzero; a mask
 * held in the model's scalar (f64 or f32) when it is >= 0.5 (NaN is false). */
static inline int
mask_true (const void *mk, cn_dtype mdt, int64_t q)
{
  switch (mdt)
    {
    case CN_DTYPE_BOOL: return ((const uint8_t *) mk)[q] != 0;
    case CN_DTYPE_F64: return ((const double *) mk)[q] >= 0.5;
    case CN_DTYPE_F32: return ((const float *) mk)[q] >= 0.5f;
    default: return 0;
    }
}

#define SM_FORWARD_FN(NAME, T, EXP, LOG1P)                                                   \
  static void NAME (enum sm_kind kind, int64_t outer, int64_t n, int64_t inner, const T *x,  \
                    const void *mk, cn_dtype mdt, T *y)                                      \
  {                                                                                          \
    for (int64_t o = 0; o < outer; o++)                                                      \
      for (int64_t i = 0; i < inner; i++)                                                    \
        {                                                                                    \
          int64_t base = o * n * inner + i;                                                  \
          T m = -INFINITY, s = 0;                                                            \
          int any = 0;                                                                       \
          int64_t am = -1;                                                                   \
          for (int64_t k = 0; k < n; k++)                                                    \
            {                                                                                \
              int64_t q = base + k * inner;                                                  \
              if (mk != NULL && !mask_true (mk, mdt, q))                                       \
                continue;                                                                    \
              any = 1;                                                                       \
              if (x[q] > m)                                                                  \
                m = x[q], am = k;                                                            \
            }                                                                                \
          if (!any)                                                                          \
            {                                                                                \
              for (int64_t k = 0; k < n; k++)                                                \
                y[base + k * inner] = 0;                                                     \
              continue;                                                                      \
            }                                                                                \
          /* m is the max over the kept entries (-inf if all are -inf or NaN) */            \
          for (int64_t k = 0; k < n; k++)                                                    \
            {                                                                                \
              int64_t q = base + k * inner;                                                  \
              if (mk != NULL && !mask_true (mk, mdt, q))                                       \
                {                                                                            \
                  y[q] = 0;                                                                  \
                  continue;                                                                  \
                }                                                                            \
              T e = EXP (x[q] - m);                                                          \
              if (k != am)                                                                   \
                s += e;                                                                      \
              if (kind != LSM)                                                               \
                y[q] = e;                                                                    \
            }                                                                                \
          /* s = the sum of exp(x_k - m) over the kept entries but the first maximum, whose   \
           * term is exactly 1 (am = -1 when m = -inf: every term is NaN then), in [0, n - 1] */ \
          if (am < 0 || isinf (m))                                                           \
            s = (T) NAN;                                                                     \
          T ls = kind == LSM ? LOG1P (s) : 0;                                                \
          s = 1 + s;                                                                         \
          for (int64_t k = 0; k < n; k++)                                                    \
            {                                                                                \
              int64_t q = base + k * inner;                                                  \
              if (mk != NULL && !mask_true (mk, mdt, q))                                       \
                continue;                                                                    \
              y[q] = kind == LSM ? (x[q] - m) - ls : y[q] / s;                               \
            }                                                                                \
        }                                                                                    \
  }

SM_FORWARD_FN (sm_forward_f64, double, exp, log1p)
SM_FORWARD_FN (sm_forward_f32, float, expf, log1pf)

static cn_status
sm_forward (const cn_node_view *nv, const cn_tensor *const *in, cn_tensor *out, cn_error *err)
{
  (void) err;
  int64_t total = cn__numel (nv->out_shape);
  CN__ASSERTD (cn_dtype_is_float (out->dtype) && cn_tensor_numel (out) == total);
  CN__ASSERTD (in[0]->dtype == out->dtype && cn_tensor_numel (in[0]) == total);
  /* The mask (a bool port) arrives as Booleans; a mask held in the model's scalar (f64 or f32)
   * is read as true where >= 0.5. */
  CN__ASSERTD (nv->n_in != 2
               || ((in[1]->dtype == CN_DTYPE_BOOL || cn_dtype_is_float (in[1]->dtype))
                   && cn_tensor_numel (in[1]) == total));
  enum sm_kind kind = sm_kind_of (nv);
  int64_t outer, n, inner;
  sm_dims (nv, &outer, &n, &inner);
  const void *mk = kind == MSM ? in[1]->data : NULL;
  cn_dtype mdt = kind == MSM ? in[1]->dtype : CN_DTYPE_BOOL;
  if (out->dtype == CN_DTYPE_F64)
    sm_forward_f64 (kind, outer, n, inner, in[0]->data, mk, mdt, out->data);
  else
    sm_forward_f32 (kind, outer, n, inner, in[0]->data, mk, mdt, out->data);
  return CN_OK;
}

void
cn__softmax_rows_f64 (int64_t rows, int64_t n, const double *x, double *y)
{
  sm_forward_f64 (SM, rows, n, 1, x, NULL, CN_DTYPE_BOOL, y);
}

void
cn__softmax_rows_f32 (int64_t rows, int64_t n, const float *x, float *y)
{
  sm_forward_f32 (SM, rows, n, 1, x, NULL, CN_DTYPE_BOOL, y);
}

/* ---- pullback and jvp ----------------------------------------------------------------- */

/* Whether the pullback's and the jvp's value tensors are binary64 of the node's shape (an
 * invariant: the engines give the derivative arms binary64 points). */
static int
sm_points_ok (const cn_node_view *nv, const cn_tensor *const *in, const cn_tensor *out)
{
  int64_t total = cn__numel (nv->out_shape);
  return out->dtype == CN_DTYPE_F64 && cn_tensor_numel (out) == total && in[0]->dtype == CN_DTYPE_F64
         && cn_tensor_numel (in[0]) == total;
}

static cn_status
sm_pullback (const cn_node_view *nv, const cn_tensor *const *in, const cn_tensor *out, const double *g_out,
             double *const *g_in, cn_error *err)
{
  (void) err;
  CN__ASSERTD (sm_points_ok (nv, in, out));
  if (g_in[0] == NULL)
    return CN_OK;
  enum sm_kind kind = sm_kind_of (nv);
  int64_t outer, n, inner;
  sm_dims (nv, &outer, &n, &inner);
  const double *y = out->data;
  double *gx = g_in[0];
  for (int64_t o = 0; o < outer; o++)
    for (int64_t i = 0; i < inner; i++)
      {
        int64_t base = o * n * inner + i;
        double s = 0;
        for (int64_t k = 0; k < n; k++)
          {
            int64_t q = base + k * inner;
            s += kind == LSM ? g_out[q] : g_out[q] * y[q];
          }
        for (int64_t k = 0; k < n; k++)
          {
            int64_t q = base + k * inner;
            if (kind == LSM)
              gx[q] += g_out[q] - exp (y[q]) * s;
            else
              gx[q] += y[q] * (g_out[q] - s);
          }
      }
  return CN_OK;
}

static cn_status
sm_jvp (const cn_node_view *nv, const cn_tensor *const *in, const cn_tensor *out, const double *const *t_in,
        double *t_out, cn_error *err)
{
  (void) err;
  CN__ASSERTD (sm_points_ok (nv, in, out));
  int64_t total = cn_tensor_numel (out);
  if (t_in[0] == NULL)
    {
      for (int64_t j = 0; j < total; j++)
        t_out[j] = 0;
      return CN_OK;
    }
  enum sm_kind kind = sm_kind_of (nv);
  int64_t outer, n, inner;
  sm_dims (nv, &outer, &n, &inner);
  const double *y = out->data, *tx = t_in[0];
  for (int64_t o = 0; o < outer; o++)
    for (int64_t i = 0; i < inner; i++)
      {
        int64_t base = o * n * inner + i;
        double s = 0;
        for (int64_t k = 0; k < n; k++)
          {
            int64_t q = base + k * inner;
            s += (kind == LSM ? exp (y[q]) : y[q]) * tx[q];
          }
        for (int64_t k = 0; k < n; k++)
          {
            int64_t q = base + k * inner;
            t_out[q] = kind == LSM ? tx[q] - s : y[q] * (tx[q] - s);
          }
      }
  return CN_OK;
}

/* ---- IBP ------------------------------------------------------------------------------ */

/* The end of entry i from the bound S of its sum (an upper bound of S_i^+ when LOWER, a lower
 * bound of S_i^- otherwise), S a 53-bit MPFR number: softmax 1/(1 + S), logSoftmax -log1p(S),
 * rounded down for the lower end and up for the upper; a NaN S gives the trivial bound. */
static double
sm_end (enum sm_kind kind, int lower, mpfr_ptr S)
{
  if (mpfr_nan_p (S))
    return kind == LSM ? (lower ? -INFINITY : 0) : (lower ? 0 : 1);
  mpfr_rnd_t r = lower ? MPFR_RNDD : MPFR_RNDU;
  if (kind == LSM)
    {
      /* -log1p(S): log1p rounded the other way, then negated (exact) */
      mpfr_log1p (S, S, lower ? MPFR_RNDU : MPFR_RNDD);
      mpfr_neg (S, S, MPFR_RNDN);
      double v = mpfr_get_d (S, r);
      if (isnan (v))
        return lower ? -INFINITY : 0;
      return v > 0 ? 0 : v;
    }
  mpfr_add_ui (S, S, 1, lower ? MPFR_RNDU : MPFR_RNDD);
  mpfr_ui_div (S, 1, S, r);
  double v = mpfr_get_d (S, r);
  if (isnan (v))
    return lower ? 0 : 1;
  return v < 0 ? 0 : v > 1 ? 1 : v;
}

/* The kept entries of slice BASE: the positions k known kept into KEEP (their count returned),
 * then those of unknown mask into KEEP + count, *N_UNKNOWN of them; or -1 with CN_ENUMERIC when a
 * kept or unknown entry has a NaN end or a mask end is NaN. */
static int64_t
sm_kept (const cn_node_view *nv, const cn_box *const *in, int64_t base, int64_t n, int64_t inner, int64_t *keep,
         int64_t *n_unknown, cn_status *st, cn_error *err)
{
  const char *op = cn_op_name (nv->op);
  int64_t cnt = 0, unk = 0;
  for (int pass = 0; pass < 2; pass++)
  for (int64_t k = 0; k < n; k++)
    {
      int64_t q = base + k * inner;
      if (nv->n_in == 2)
        {
          double ml = in[1]->lo[q], mh = in[1]->hi[q];
          if (isnan (ml) || isnan (mh))
            {
              *st = cn_error_set (err, CN_ENUMERIC, "%s: NaN end in the mask's box at entry %lld (node '%s')", op,
                                  (long long) q, cn__node_name (nv));
              return -1;
            }
          int known = ml >= 0.5, maybe = mh >= 0.5;
          if (!maybe || known != (pass == 0))
            continue;               /* pass 0 takes the known entries, pass 1 the unknown ones */
        }
      else if (pass == 1)
        continue;
      if (isnan (in[0]->lo[q]) || isnan (in[0]->hi[q]))
        {
          *st = cn_error_set (err, CN_ENUMERIC, "%s: NaN end in the input box at entry %lld (node '%s')", op,
                              (long long) q, cn__node_name (nv));
          return -1;
        }
      if (pass == 0)
        keep[cnt++] = k;
      else
        keep[cnt + unk++] = k;
    }
  *n_unknown = unk;
  return cnt;
}

/* The work space of cn__softmax_row_ibp for rows of up to CAP entries. */
int
cn__sm_ibp_work_init (cn__sm_ibp_work *w, int64_t cap)
{
  size_t c = (size_t) (cap > 0 ? cap : 1);
  w->cap = cap;
  w->tu = malloc (c * sizeof *w->tu);
  w->tl = malloc (c * sizeof *w->tl);
  w->pu = malloc ((c + 1) * sizeof *w->pu);
  w->pl = malloc ((c + 1) * sizeof *w->pl);
  mpfr_init2 (w->t, 53);
  mpfr_init2 (w->e, 53);
  if (w->tu == NULL || w->tl == NULL || w->pu == NULL || w->pl == NULL)
    {
      cn__sm_ibp_work_clear (w);
      return 0;
    }
  return 1;
}

void
cn__sm_ibp_work_clear (cn__sm_ibp_work *w)
{
  free (w->tu);
  free (w->tl);
  free (w->pu);
  free (w->pl);
  w->tu = w->tl = w->pu = w->pl = NULL;
  mpfr_clear (w->t);
  mpfr_clear (w->e);
}

/* IBP of softmax (LOG = 0) or logSoftmax (LOG = 1) over one row of K >= 1 entries, the boxes
 * [LO[a], HI[a]] (no NaN end), as in the header: [OLO[a], OHI[a]] contains y_a over the box. */
void
cn__softmax_row_ibp (cn__sm_ibp_work *w, int log, int64_t K, const double *lo, const double *hi, double *olo,
                     double *ohi)
{
  enum sm_kind kind = log ? LSM : SM;
  if (K <= 0)
    return;
  if (K == 1)
    {
      olo[0] = ohi[0] = log ? 0 : 1;
      return;
    }
  double *tu = w->tu, *tl = w->tl, *pu = w->pu, *pl = w->pl;
  mpfr_ptr t = w->t, e = w->e;
  /* M >= every u_j, Ml >= every l_j */
  double M = -INFINITY, Ml = -INFINITY;
  for (int64_t a = 0; a < K; a++)
    {
      M = fmax (M, hi[a]);
      Ml = fmax (Ml, lo[a]);
    }
  /* tu[a] >= exp(u_j - M) and 0 <= tl[a] <= exp(l_j - Ml) (NaN where inf - inf) */
  for (int64_t a = 0; a < K; a++)
    {
      mpfr_set_d (t, hi[a], MPFR_RNDN);
      mpfr_sub_d (t, t, M, MPFR_RNDU);
      mpfr_exp (t, t, MPFR_RNDU);
      tu[a] = mpfr_get_d (t, MPFR_RNDU);
      mpfr_set_d (t, lo[a], MPFR_RNDN);
      mpfr_sub_d (t, t, Ml, MPFR_RNDD);
      mpfr_exp (t, t, MPFR_RNDD);
      tl[a] = mpfr_get_d (t, MPFR_RNDD);
    }
  /* prefix sums: pu[a] >= sum_{b < a} tu[b], 0 <= pl[a] <= sum_{b < a} tl[b] */
  pu[0] = pl[0] = 0;
  for (int64_t a = 0; a < K; a++)
    {
      pu[a + 1] = cn__up (pu[a] + tu[a]);
      pl[a + 1] = fmax (0, cn__down (pl[a] + tl[a]));
    }
  /* suffix sums run backwards in su, sl; A_i = prefix before i + suffix after i */
  double su = 0, sl = 0;
  for (int64_t a = K - 1; a >= 0; a--)
    {
      /* su >= sum_{b > a} tu[b], 0 <= sl <= sum_{b > a} tl[b] */
      double Au = cn__up (pu[a] + su), Al = fmax (0, cn__down (pl[a] + sl));
      /* S_i^+ <= Au exp(M - l_i) */
      mpfr_set_d (e, M, MPFR_RNDN);
      mpfr_sub_d (e, e, lo[a], MPFR_RNDU);
      mpfr_exp (e, e, MPFR_RNDU);
      mpfr_mul_d (e, e, Au, MPFR_RNDU);
      if (Au == 0 || isnan (Au))
        mpfr_set_nan (e);
      olo[a] = sm_end (kind, 1, e);
      /* S_i^- >= Al exp(Ml - u_i) */
      mpfr_set_d (e, Ml, MPFR_RNDN);
      mpfr_sub_d (e, e, hi[a], MPFR_RNDD);
      mpfr_exp (e, e, MPFR_RNDD);
      if (Al == 0 && !mpfr_nan_p (e))
        mpfr_set_zero (e, 1);     /* 0 times a bound of a positive number, +inf included */
      else
        mpfr_mul_d (e, e, Al, MPFR_RNDD);
      if (isnan (Al))
        mpfr_set_nan (e);
      ohi[a] = sm_end (kind, 0, e);
      /* now [olo, ohi] contains y_i over the box */
      su = cn__up (su + tu[a]);
      sl = fmax (0, cn__down (sl + tl[a]));
    }
}

static cn_status
sm_ibp (const cn_node_view *nv, const cn_box *const *in, cn_box *out, cn_error *err)
{
  const char *op = cn_op_name (nv->op);
  enum sm_kind kind = sm_kind_of (nv);
  int64_t total = cn__numel (nv->out_shape);
  CN__ASSERTD (out->n == total);
  for (int i = 0; i < nv->n_in; i++)
    CN__ASSERTD (in[i]->n == total);
  int64_t outer, n, inner;
  sm_dims (nv, &outer, &n, &inner);
  if (total == 0)
    return CN_OK;
  cn_status st = CN_OK;
  cn__sm_ibp_work w;
  int64_t *keep = malloc ((size_t) n * sizeof *keep);
  double *buf = malloc ((size_t) (6 * n) * sizeof *buf);
  if (keep == NULL || buf == NULL || !cn__sm_ibp_work_init (&w, n))
    {
      free (keep), free (buf);
      return cn_error_set (err, CN_ENOMEM, "%s: out of memory (node '%s')", op, cn__node_name (nv));
    }
  double *glo = buf, *ghi = buf + n, *ylo = buf + 2 * n, *yhi = buf + 3 * n, *zlo = buf + 4 * n, *zhi = buf + 5 * n;
  for (int64_t o = 0; o < outer && st == CN_OK; o++)
    for (int64_t i = 0; i < inner && st == CN_OK; i++)
      {
        int64_t base = o * n * inner + i;
        for (int64_t k = 0; k < n; k++)
          out->lo[base + k * inner] = out->hi[base + k * inner] = 0;
        int64_t U = 0, K = sm_kept (nv, in, base, n, inner, keep, &U, &st, err);
        if (K < 0 || K + U == 0)
          continue;
        /* the kept entries (known, then unknown) gathered into one row, their bounds scattered back */
        for (int64_t a = 0; a < K + U; a++)
          {
            glo[a] = in[0]->lo[base + keep[a] * inner];
            ghi[a] = in[0]->hi[base + keep[a] * inner];
          }
        /* over K0 + U: the lower ends of the known entries (all of them when U is empty) */
        cn__softmax_row_ibp (&w, kind == LSM, K + U, glo, ghi, ylo, yhi);
        if (U > 0 && K > 0)
          {
            /* over K0: the upper ends of the known entries */
            cn__softmax_row_ibp (&w, kind == LSM, K, glo, ghi, zlo, zhi);
            for (int64_t a = 0; a < K; a++)
              yhi[a] = zhi[a];
          }
        for (int64_t a = K; a < K + U; a++)
          {
            /* an unknown entry: over K0 + {i} (entry i moved next to K0), lower end 0 */
            double sl = glo[K], sh = ghi[K];
            glo[K] = glo[a], ghi[K] = ghi[a];
            cn__softmax_row_ibp (&w, kind == LSM, K + 1, glo, ghi, zlo, zhi);
            glo[K] = sl, ghi[K] = sh;
            ylo[a] = 0;
            yhi[a] = zhi[K];
          }
        for (int64_t a = 0; a < K + U; a++)
          {
            out->lo[base + keep[a] * inner] = ylo[a];
            out->hi[base + keep[a] * inner] = yhi[a];
          }
      }
  cn__sm_ibp_work_clear (&w);
  free (keep), free (buf);
  return st;
}

/* ---- MPFI ----------------------------------------------------------------------------- */

/* The end of entry i at precision P from the MPFR bound S (as sm_end), into R. */
static void
sm_end_fr (enum sm_kind kind, int lower, mpfr_ptr S, mpfr_ptr R)
{
  if (mpfr_nan_p (S))
    {
      if (kind == LSM)
        lower ? mpfr_set_inf (R, -1) : mpfr_set_zero (R, -1);
      else
        mpfr_set_ui (R, lower ? 0 : 1, MPFR_RNDN);
      return;
    }
  if (kind == LSM)
    {
      mpfr_log1p (R, S, lower ? MPFR_RNDU : MPFR_RNDD);
      mpfr_neg (R, R, MPFR_RNDN);
      return;
    }
  mpfr_add_ui (R, S, 1, lower ? MPFR_RNDU : MPFR_RNDD);
  mpfr_ui_div (R, 1, R, lower ? MPFR_RNDD : MPFR_RNDU);
}

int
cn__sm_mpfi_work_init (cn__sm_mpfi_work *w, int64_t cap, mpfr_prec_t prec)
{
  size_t c = (size_t) (cap > 0 ? cap : 1);
  w->cap = cap;
  w->PU = malloc ((c + 1) * sizeof *w->PU);
  w->PL = malloc ((c + 1) * sizeof *w->PL);
  w->TU = malloc (c * sizeof *w->TU);
  w->TL = malloc (c * sizeof *w->TL);
  if (w->PU == NULL || w->PL == NULL || w->TU == NULL || w->TL == NULL)
    {
      free (w->PU), free (w->PL), free (w->TU), free (w->TL);
      w->PU = w->PL = w->TU = w->TL = NULL;
      return 0;
    }
  for (size_t k = 0; k <= c; k++)
    {
      mpfr_init2 (w->PU[k], prec);
      mpfr_init2 (w->PL[k], prec);
      if (k < c)
        {
          mpfr_init2 (w->TU[k], prec);
          mpfr_init2 (w->TL[k], prec);
        }
    }
  mpfr_inits2 (prec, w->M, w->Ml, w->su, w->sl, w->A, w->e, w->lo, w->hi, (mpfr_ptr) 0);
  return 1;
}

void
cn__sm_mpfi_work_clear (cn__sm_mpfi_work *w)
{
  if (w->PU == NULL)
    return;
  size_t c = (size_t) (w->cap > 0 ? w->cap : 1);
  for (size_t k = 0; k <= c; k++)
    {
      mpfr_clear (w->PU[k]);
      mpfr_clear (w->PL[k]);
      if (k < c)
        {
          mpfr_clear (w->TU[k]);
          mpfr_clear (w->TL[k]);
        }
    }
  mpfr_clears (w->M, w->Ml, w->su, w->sl, w->A, w->e, w->lo, w->hi, (mpfr_ptr) 0);
  free (w->PU), free (w->PL), free (w->TU), free (w->TL);
  w->PU = w->PL = w->TU = w->TL = NULL;
}

/* The MPFI counterpart of cn__softmax_row_ibp: X[a] (K >= 1 enclosures without NaN) -> Y[a]. */
void
cn__softmax_row_mpfi (cn__sm_mpfi_work *w, int log, int64_t K, mpfi_srcptr const *x, mpfi_ptr const *y)
{
  enum sm_kind kind = log ? LSM : SM;
  if (K <= 0)
    return;
  if (K == 1)
    {
      mpfi_set_ui (y[0], log ? 0 : 1);
      return;
    }
  mpfr_t *PU = w->PU, *PL = w->PL, *TU = w->TU, *TL = w->TL;
  /* M = max right end, Ml = max left end; TU >= exp(right - M), TL <= exp(left - Ml) */
  mpfr_set_inf (w->M, -1);
  mpfr_set_inf (w->Ml, -1);
  for (int64_t a = 0; a < K; a++)
    {
      mpfr_max (w->M, w->M, &x[a]->right, MPFR_RNDU);
      mpfr_max (w->Ml, w->Ml, &x[a]->left, MPFR_RNDD);
    }
  mpfr_set_zero (PU[0], 1);
  mpfr_set_zero (PL[0], 1);
  for (int64_t a = 0; a < K; a++)
    {
      mpfr_sub (TU[a], &x[a]->right, w->M, MPFR_RNDU);
      mpfr_exp (TU[a], TU[a], MPFR_RNDU);
      mpfr_sub (TL[a], &x[a]->left, w->Ml, MPFR_RNDD);
      mpfr_exp (TL[a], TL[a], MPFR_RNDD);
      mpfr_add (PU[a + 1], PU[a], TU[a], MPFR_RNDU);
      mpfr_add (PL[a + 1], PL[a], TL[a], MPFR_RNDD);
    }
  mpfr_set_zero (w->su, 1);
  mpfr_set_zero (w->sl, 1);
  for (int64_t a = K - 1; a >= 0; a--)
    {
      /* S+ <= (sum_{b != a} TU_b) exp(M - left), S- >= (sum_{b != a} TL_b) exp(Ml - right) */
      mpfr_add (w->A, PU[a], w->su, MPFR_RNDU);
      mpfr_sub (w->e, w->M, &x[a]->left, MPFR_RNDU);
      mpfr_exp (w->e, w->e, MPFR_RNDU);
      if (mpfr_zero_p (w->A) || mpfr_nan_p (w->A))
        mpfr_set_nan (w->e);
      else
        mpfr_mul (w->e, w->e, w->A, MPFR_RNDU);
      sm_end_fr (kind, 1, w->e, w->lo);
      mpfr_add (w->A, PL[a], w->sl, MPFR_RNDD);
      mpfr_sub (w->e, w->Ml, &x[a]->right, MPFR_RNDD);
      mpfr_exp (w->e, w->e, MPFR_RNDD);
      if (mpfr_nan_p (w->A) || mpfr_nan_p (w->e))
        mpfr_set_nan (w->e);
      else if (mpfr_zero_p (w->A) || mpfr_zero_p (w->e))
        mpfr_set_zero (w->e, 1);
      else
        mpfr_mul (w->e, w->e, w->A, MPFR_RNDD);
      sm_end_fr (kind, 0, w->e, w->hi);
      mpfi_interv_fr (y[a], w->lo, w->hi);
      mpfr_add (w->su, w->su, TU[a], MPFR_RNDU);
      mpfr_add (w->sl, w->sl, TL[a], MPFR_RNDD);
    }
}

static cn_status
sm_ibp_mpfi (const cn_node_view *nv, const cn_mpfi_vec *const *in, cn_mpfi_vec *out, cn_error *err)
{
  const char *op = cn_op_name (nv->op);
  enum sm_kind kind = sm_kind_of (nv);
  int64_t total = cn__numel (nv->out_shape);
  CN__ASSERTD (out->n == total);
  for (int i = 0; i < nv->n_in; i++)
    CN__ASSERTD (in[i]->n == total);
  if (total == 0)
    return CN_OK;
  int64_t outer, n, inner;
  sm_dims (nv, &outer, &n, &inner);
  mpfr_prec_t prec = mpfi_get_prec (out->v[0]);
  cn__sm_mpfi_work w;
  mpfi_srcptr *xs = malloc ((size_t) n * sizeof *xs);
  mpfi_ptr *ys = malloc ((size_t) n * sizeof *ys);
  mpfi_ptr *zs = malloc ((size_t) n * sizeof *zs);
  mpfi_t *tmp = malloc ((size_t) n * sizeof *tmp);
  if (xs == NULL || ys == NULL || zs == NULL || tmp == NULL || !cn__sm_mpfi_work_init (&w, n, prec))
    {
      free (xs), free (ys), free (zs), free (tmp);
      return cn_error_set (err, CN_ENOMEM, "%s: out of memory (node '%s')", op, cn__node_name (nv));
    }
  for (int64_t k = 0; k < n; k++)
    {
      mpfi_init2 (tmp[k], prec);
      zs[k] = tmp[k];
    }
  cn_status st = CN_OK;
  for (int64_t o = 0; o < outer && st == CN_OK; o++)
    for (int64_t i = 0; i < inner && st == CN_OK; i++)
      {
        /* the known kept entries first (K), then those of unknown mask (U), as in sm_ibp */
        int64_t base = o * n * inner + i, K = 0, U = 0;
        for (int pass = 0; pass < 2 && st == CN_OK; pass++)
          for (int64_t k = 0; k < n && st == CN_OK; k++)
            {
              int64_t q = base + k * inner;
              if (pass == 0)
                mpfi_set_ui (out->v[q], 0);
              if (nv->n_in == 2)
                {
                  mpfi_srcptr m = in[1]->v[q];
                  if (mpfi_nan_p (m))
                    {
                      st = cn_error_set (err, CN_ENUMERIC, "%s: NaN in the mask's enclosure at entry %lld (node '%s')",
                                         op, (long long) q, cn__node_name (nv));
                      break;
                    }
                  int known = mpfr_cmp_d (&m->left, 0.5) >= 0, maybe = mpfr_cmp_d (&m->right, 0.5) >= 0;
                  if (!maybe || known != (pass == 0))
                    continue;
                }
              else if (pass == 1)
                continue;
              if (mpfi_nan_p (in[0]->v[q]))
                {
                  st = cn_error_set (err, CN_ENUMERIC, "%s: NaN in the input enclosure at entry %lld (node '%s')", op,
                                     (long long) q, cn__node_name (nv));
                  break;
                }
              xs[K + U] = in[0]->v[q];
              ys[K + U] = out->v[q];
              if (pass == 0)
                K++;
              else
                U++;
            }
        if (st != CN_OK || K + U == 0)
          continue;
        /* over K0 + U: the known entries' lower ends (their whole enclosures when U is empty) */
        cn__softmax_row_mpfi (&w, kind == LSM, K + U, xs, ys);
        if (U == 0)
          continue;
        if (K > 0)
          {
            /* over K0: the known entries' upper ends */
            cn__softmax_row_mpfi (&w, kind == LSM, K, xs, zs);
            for (int64_t a = 0; a < K; a++)
              mpfi_interv_fr (ys[a], &ys[a]->left, &zs[a]->right);
          }
        for (int64_t a = K; a < K + U; a++)
          {
            /* an unknown entry: [0, its upper end over K0 + {i}] */
            mpfi_srcptr keepx = xs[K];
            xs[K] = xs[a];
            cn__softmax_row_mpfi (&w, kind == LSM, K + 1, xs, zs);
            xs[K] = keepx;
            mpfr_t zero;
            mpfr_init2 (zero, prec);
            mpfr_set_zero (zero, 1);
            mpfi_interv_fr (ys[a], zero, &zs[K]->right);
            mpfr_clear (zero);
          }
      }
  for (int64_t k = 0; k < n; k++)
    mpfi_clear (tmp[k]);
  cn__sm_mpfi_work_clear (&w);
  free (xs), free (ys), free (zs), free (tmp);
  return st;
}

/* ---- rules ---------------------------------------------------------------------------- */

static const cn_port_kind masked_ports[2] = { CN_PORT_VALUE, CN_PORT_BOOL };

/* ---- CROWN (softmax, logSoftmax) ---------------------------------------------------------
 *
 * Per slice and output i, two planes  a . x + bl <= f_i(x) <= a . x + bu  over the slice's box,
 * with a the gradient of f_i at the box's centre c (binary64: softmax y_i (e_i - y), logSoftmax
 * e_i - y, y = softmax(c)), and with d = x - c, |d_j| <= r_j, by Taylor's theorem for
 * g = f_i - a . x:
 *     g(c + d) = g(c) + (grad f_i(c) - a) . d + d^T H(xi) d / 2,
 * where for softmax  d^T H d = y_i ((d_i - y.d)^2 - (sum_j y_j d_j^2 - (y.d)^2)) lies in
 * [-Y_i sum_j Y_j r_j^2, Y_i (r_i + sum_j Y_j r_j)^2], and for logSoftmax (concave)
 * d^T H d = -(sum_j y_j d_j^2 - (y.d)^2) in [-sum_j Y_j r_j^2, 0], Y the upper ends of the node's
 * softmax box over the whole box (the variance term lies between 0 and sum y_j d_j^2, sum y = 1).
 * So bl = g(c) - E1 - low and bu = g(c) + E1 + high, E1 = sum_j |grad_j - a_j| r_j with the
 * gradient enclosed by interval arithmetic on the enclosure of y(c) (the IBP arm on the point c;
 * logSoftmax: exp of its enclosure), g(c) = f_i(c) - a . c with a . c bounded by (G); every step
 * rounded outward.  Each side keeps the node's IBP end instead where that is tighter at the
 * centre.  lam_x = sum_i lam_i a_i over the slice (inner products of length n, charged by
 * cn__crown_charge_affine), the intercepts added with cn__crown_add_dot.  The planes depend on the
 * boxes alone and are kept in the step's memo.  maskedSoftmax with a known mask is softmax over its
 * kept set K: a masked output is 0 (its gradient 0 and Y 0: the line 0), and the masked inputs
 * have y_j = 0, so they drop out of the gradient and of the bounds above.  An unknown mask entry,
 * slices with an infinite end and nodes above 2^24 gradient entries have none (CN_EUNSUPPORTED:
 * the sweep takes the node's box). */

static cn_status
sm_planes (const cn_crown_step *st, cn__slice_planes *mm, cn_error *err)
{
  const cn_node_view *nv = st->nv;
  enum sm_kind kind = sm_kind_of (nv);
  int64_t outer, n, inner, total = mm->total;
  sm_dims (nv, &outer, &n, &inner);
  const cn_box *X = st->in_box[0];
  cn_box yb, cb, yc;
  cn_status rc = cn_box_init (&yb, total, err);
  if (rc != CN_OK)
    return rc;
  if ((rc = cn_box_init (&cb, total, err)) != CN_OK)
    {
      cn_box_clear (&yb);
      return rc;
    }
  if ((rc = cn_box_init (&yc, total, err)) != CN_OK)
    {
      cn_box_clear (&yb);
      cn_box_clear (&cb);
      return rc;
    }
  double *r = malloc ((size_t) (4 * total + 2 * n + 1) * sizeof *r);
  if (r == NULL)
    {
      rc = cn_error_set (err, CN_ENOMEM, "%s: out of memory (node '%s')", cn_op_name (nv->op), st->node);
      goto done;
    }
  double *Y = r + total, *ylo = Y + total, *yhi = ylo + total, *glo = yhi + total, *ghi = glo + n;
  for (int64_t q = 0; q < total; q++)
    {
      double l = X->lo[q], u = X->hi[q];
      if (!isfinite (l) || !isfinite (u))
        {
          rc = cn_error_set (err, CN_EUNSUPPORTED, "%s: no relaxation over an infinite box (node '%s')",
                             cn_op_name (nv->op), st->node);
          goto done;
        }
      r[q] = cn__centre_radius (l, u, &cb.lo[q]);
      cb.hi[q] = cb.lo[q];
    }
  /* maskedSoftmax: its mask's box (constant, checked by sm_crown) with both boxes */
  const cn_box *ip[2] = { X, nv->n_in > 1 ? st->in_box[1] : NULL }, *cp[2] = { &cb, ip[1] };
  if ((rc = sm_ibp (nv, ip, &yb, err)) != CN_OK || (rc = sm_ibp (nv, cp, &yc, err)) != CN_OK)
    goto done;
  /* now yb holds f over the box and yc f at the centre; Y, [ylo, yhi]: softmax's upper ends over
   * the box and its enclosure at the centre */
  for (int64_t q = 0; q < total; q++)
    if (kind != LSM)
      {
        Y[q] = yb.hi[q];
        ylo[q] = yc.lo[q];
        yhi[q] = yc.hi[q];
      }
    else
      {
        double lo, hi;
        cn__exp_encl (yb.hi[q], &lo, &hi);
        Y[q] = fmin (hi, 1);
        cn__exp_encl (yc.lo[q], &lo, &hi);
        ylo[q] = fmax (lo, 0);
        cn__exp_encl (yc.hi[q], &lo, &hi);
        yhi[q] = fmin (hi, 1);
      }
  double *m = malloc ((size_t) (total + 1) * sizeof *m);
  if (m == NULL)
    {
      rc = cn_error_set (err, CN_ENOMEM, "%s: out of memory (node '%s')", cn_op_name (nv->op), st->node);
      goto done;
    }
  mm->m1 = cn__box_magnitude (X, m);
  double kap = cn__kappa (n + 1);
  for (int64_t o = 0; o < outer; o++)
    for (int64_t in = 0; in < inner; in++)
      {
        int64_t base = o * n * inner + in;
        double S1 = 0, S2 = 0;
        for (int64_t j = 0; j < n; j++)
          {
            int64_t qj = base + j * inner;
            S1 = cn__up (S1 + cn__up (Y[qj] * r[qj]));
            S2 = cn__up (S2 + cn__up (Y[qj] * cn__up (r[qj] * r[qj])));
          }
        for (int64_t i = 0; i < n; i++)
          {
            int64_t qi = base + i * inner;
            double *a = mm->A + qi * n;
            double yi = ylo[qi] / 2 + yhi[qi] / 2;
            double e1 = 0, s = 0, t = 0, w = 0;
            for (int64_t j = 0; j < n; j++)
              {
                int64_t qj = base + j * inner;
                double yj = ylo[qj] / 2 + yhi[qj] / 2, dij = i == j;
                /* the gradient's entry enclosed: softmax y_i (d_ij - y_j), logSoftmax d_ij - y_j */
                double hl = cn__down (dij - yhi[qj]), hh = cn__up (dij - ylo[qj]);
                if (kind != LSM)
                  {
                    double c4[4] = { ylo[qi] * hl, ylo[qi] * hh, yhi[qi] * hl, yhi[qi] * hh };
                    glo[j] = INFINITY, ghi[j] = -INFINITY;
                    for (int e = 0; e < 4; e++)
                      glo[j] = fmin (glo[j], cn__down (c4[e])), ghi[j] = fmax (ghi[j], cn__up (c4[e]));
                    a[j] = yi * (dij - yj);
                  }
                else
                  {
                    glo[j] = hl, ghi[j] = hh;
                    a[j] = dij - yj;
                  }
                double ej = fmax (cn__up (ghi[j] - a[j]), cn__up (a[j] - glo[j]));
                e1 = cn__up (e1 + cn__up (ej * r[qj]));
                s += a[j] * cb.lo[qj];
                t += fabs (a[j] * cb.lo[qj]);
                w += fabs (a[j]) * m[qj];
              }
            double de = cn__dot_err (t, n);
            double ac_lo = cn__down (s - de), ac_hi = cn__up (s + de);   /* a . c lies within */
            double low, high;
            if (kind != LSM)
              {
                low = cn__up (cn__up (Y[qi] * S2) / 2);
                double q2 = cn__up (r[qi] + S1);
                high = cn__up (cn__up (Y[qi] * cn__up (q2 * q2)) / 2);
              }
            else
              {
                low = cn__up (S2 / 2);
                high = 0;
              }
            double bl = cn__down (cn__down (cn__down (yc.lo[qi] - ac_hi) - e1) - low);
            double bu = cn__up (cn__up (cn__up (yc.hi[qi] - ac_lo) + e1) + high);
            /* now a . x + bl <= f_i(x) <= a . x + bu over the slice's box */
            double *lower = a, *upper = mm->A + (total + qi) * n;
            memcpy (upper, lower, (size_t) n * sizeof *upper);
            if (!(isfinite (bl) && s + bl > yb.lo[qi]))
              {
                memset (lower, 0, (size_t) n * sizeof *lower);
                bl = yb.lo[qi];
              }
            if (!(isfinite (bu) && s + bu < yb.hi[qi]))
              {
                memset (upper, 0, (size_t) n * sizeof *upper);
                bu = yb.hi[qi];
              }
            mm->B[2 * qi] = bl;
            mm->B[2 * qi + 1] = bu;
            double u = cn__up (kap * cn__up (w + (double) (n + 1) * CN_ETA));
            mm->w_up[qi] = isnan (u) ? INFINITY : u;
          }
      }
  free (m);
done:
  free (r);
  cn_box_clear (&yb);
  cn_box_clear (&cb);
  cn_box_clear (&yc);
  return rc;
}

static cn_status
sm_crown (const cn_crown_step *st, cn_error *err)
{
  const cn_node_view *nv = st->nv;
  const char *op = cn_op_name (nv->op);
  if (sm_kind_of (nv) == MSM)
    {
      /* a known mask only (each entry's box one point): softmax over the kept set K, which the
       * planes below handle as they are (a masked y is 0 with a zero gradient and Y = 0) */
      const cn_box *mk = st->in_box[1];
      for (int64_t q = 0; q < mk->n; q++)
        if (!(mk->lo[q] == mk->hi[q]))
          return cn_error_set (err, CN_EUNSUPPORTED, "%s: no CROWN relaxation with an unknown mask entry (node '%s')",
                               op, st->node);
    }
  if (st->lam_in[0] == NULL)
    return cn_error_set (err, CN_EINVAL, "%s: CROWN step on a constant input (node '%s')", op, st->node);
  int64_t outer, n, inner, total = st->n_out;
  sm_dims (nv, &outer, &n, &inner);
  if (total == 0)
    return CN_OK;
  if (n > 0 && total > ((int64_t) 1 << 24) / n)
    return cn_error_set (err, CN_EUNSUPPORTED, "%s: too many slopes for a relaxation (node '%s')", op, st->node);
  return cn__crown_slice_planes_kept (st, op, outer, n, inner, sm_planes, err);
}

static const struct sm_impl softmax_impl = { .kind = SM };

const struct cn_op_rule cn__rule_SOFTMAX = { .op = CN_OP_SOFTMAX, .impl = &softmax_impl,
  .n_in = 1, .flags = CN_RULE_NEEDS_BOUNDS, .check = sm_check, .forward = sm_forward,
  .pullback = sm_pullback, .jvp = sm_jvp, .ibp = sm_ibp, .ibp_mpfi = sm_ibp_mpfi, .crown = sm_crown,
  .certs = CN__CERTS (CN__CERT_GRADIENT, CN__CERT_BOUNDS),
};

static const struct sm_impl log_softmax_impl = { .kind = LSM };

const struct cn_op_rule cn__rule_LOG_SOFTMAX = { .op = CN_OP_LOG_SOFTMAX, .impl = &log_softmax_impl,
  .n_in = 1, .flags = CN_RULE_NEEDS_BOUNDS, .check = sm_check, .forward = sm_forward,
  .pullback = sm_pullback, .jvp = sm_jvp, .ibp = sm_ibp, .ibp_mpfi = sm_ibp_mpfi, .crown = sm_crown,
  .certs = CN__CERTS (CN__CERT_GRADIENT, CN__CERT_BOUNDS),
};

static const struct sm_impl masked_softmax_impl = { .kind = MSM };

const struct cn_op_rule cn__rule_MASKED_SOFTMAX = { .op = CN_OP_MASKED_SOFTMAX, .impl = &masked_softmax_impl,
  .n_in = 2, .in_kind = masked_ports, .flags = CN_RULE_NEEDS_BOUNDS, .check = sm_check,
  .forward = sm_forward, .pullback = sm_pullback, .jvp = sm_jvp, .ibp = sm_ibp, .ibp_mpfi = sm_ibp_mpfi,
  .crown = sm_crown,
  .certs = CN__CERTS (CN__CERT_GRADIENT, CN__CERT_BOUNDS),
};
