/* SPDX-License-Identifier: MIT */
/* src/ops/scan.c: the scans and orderings: cumsum, cumprod, cummax, cummin, sort, topk, argmax,
 * argmin.
 *
 * Every operator works along one axis of its one input x (rank >= 1, 0 <= axis < rank; the
 * attribute records of certnn/ops.h).  With x of shape [A.., n, B..] (n the extent on the axis),
 * a "row" is the n entries x[a, 0..n-1, b] for one outer index a and one inner index b; the row
 * entries sit inner = prod(B..) apart in memory.  Rows are independent.
 *
 * The arms are shared: each rule's impl (struct scan_impl) holds the operator's kind (a running
 * sum or product, a running extreme, an ordering, an arg), which extreme it takes, whether it
 * keeps topk's first k, and the readers of its record's axis and order.  The arms receive
 * tensors, boxes and vectors of the node's shapes and of the evaluation's sort under attributes
 * the check admitted (the graph builder checked the node): they state it with CN__ASSERTD.
 *
 * Outputs.  As in the seed, cummax, cummin, sort and topk return the values at output 0 and, at
 * output 1 ("indices", an index output), the index along the axis each value came from; argmax and
 * argmin return only an index tensor.  Index tensors are of the model's float sort holding the
 * integers 0..n-1 (exact in binary32 for n <= 2^24).  An index output carries no gradient: the
 * engines never call pullback or jvp for it (out_kind CN_PORT_INDEX), and the arms, if asked,
 * add nothing and write 0.  argmax's and argmin's input is a frozen port (the seed's gradient cell
 * "no value input"): the pullback adds nothing and the jvp writes 0.
 *
 * The index outputs' IBP and MPFI arms (index_hull_row below) bound the set of indices an output
 * position can take over the box:
 *   - sort, topk (the stable order: ascending, or descending; ties keep the row's order): entry i
 *     stands at position rank_i(x) = #{q < i: x_q <= x_i} + #{q > i: x_q < x_i} (ascending;
 *     descending: >= and >).  Each indicator is monotone in x_i and in x_q, so over the box
 *     rank_i lies in [#{q < i: u_q <= l_i} + #{q > i: u_q < l_i}, #{q < i: l_q <= u_i} +
 *     #{q > i: l_q < u_i}] (descending: the mirror).  Position k holds an i whose range contains
 *     k; the output is [least such i, greatest such i], a hull of the exact set.
 *   - cummax (ties move to the later entry): position j holds i <= j iff x_i >= x_q for q < i and
 *     x_i > x_q for i < q <= j; some point of the box does that iff u_i >= l_q (q < i) and
 *     u_i > l_q (i < q <= j) (take x_i = u_i, x_q = l_q).  cummin mirrors it.  The output is
 *     the [least, greatest] candidate.
 *   The MPFI arm runs the same on the enclosures' ends rounded outward to binary64: the candidate
 *   sets only grow as the box widens, so the result holds, and at binary64 points it is exact.
 *
 * NaN ordering and ties follow PyTorch (CPU):
 *   - sort (stable = True): ascending puts every NaN after every number, descending before; equal
 *     entries (-0 and +0 are equal, NaNs are equal to each other) keep their order in the row.
 *   - topk: NaN counts as larger than every number (torch.topk); the order is that of the stable
 *     sort above (descending for largest, ascending otherwise).  The seed's import policy (unless
 *     ties_by_index, ONNX's rule that the lower index comes first, which is that stable order):
 *     topk fails at execution where tied entries would decide its selection: where 0 < k < n and the
 *     k-th and (k+1)-th entries of that order are equal (== on numbers, or both NaN), forward is
 *     CN_EINVAL ("topk: tied entries decide the selection ...").  IBP and MPFI bound the
 *     continuous extension (the values do not depend on how a tie is broken), so they never fail
 *     for ties.
 *   - cummax, cummin (torch's cummax_cummin_helper): the running extreme m and its index move to
 *     entry i when x_i is NaN, or when m is not NaN and x_i >= m (cummax; <= for cummin): a NaN
 *     propagates, and a tie selects the LATER entry.
 *   - argmax, argmin: a NaN counts as extreme (the first NaN, torch.argmax); among equal extremes
 *     the first index (the last with select_last_index, ONNX's attribute).
 *
 * cumsum  v_j = sum_{i <= j} x_i along the row.
 *   forward  PyTorch's widened accumulation type (the seed's import policy): the running sum is a
 *            double for both sorts, s = 0, s = fl(s + x_i), v_i = s rounded to the tensor's sort
 *            (one more rounding in binary32, so v is within 1 ulp + the double sum's error).
 *   IBP      per row the prefix sums of the lower ends and of the upper ends in RN, with the
 *            sums of magnitudes t: by (G) (sound.h), sum_{i<=j} l_i >= cn__down (s_j -
 *            cn__dot_err (t_j, j + 1)) and the mirror for the upper end (cn__sum_lo / cn__sum_hi,
 *            which turn a NaN from inf - inf into the infinite end).  The sum is nondecreasing in
 *            each x_i, so the box holds every real result.
 *   MPFI     running mpfi_add.
 *   pullback g_x[i] += sum_{j >= i} g_j (a reverse running sum in RN).
 *   jvp      t_j = sum_{i <= j} t_i (a running sum in RN).
 *   CROWN    affine: lam_x = the reverse running sums of lam (cumsum_crown), charged by (G).
 *
 * cumprod  v_j = prod_{i <= j} x_i.
 *   forward  as cumsum, the running product a double from 1 (widened), v_i rounded to the sort.
 *   IBP      interval multiplication from [1, 1], each corner product rounded outward (cn__down /
 *            cn__up of the RN product, which bound the exact product; 0 * inf := 0; an RN product
 *            of +inf as a lower corner means the exact product exceeds DBL_MAX, so DBL_MAX).
 *   MPFI     running mpfi_mul.
 *   pullback d v_j / d x_i = P_{i-1} prod_{i < q <= j} x_q for i <= j (P_i the prefix product),
 *            without division: g_x[i] += P_{i-1} R_i with R_{n-1} = g_{n-1}, R_i = g_i + x_{i+1}
 *            R_{i+1} (a reverse sweep).
 *   jvp      by the product rule T_0 = t_0, T_j = T_{j-1} x_j + P_{j-1} t_j.
 *
 * cummax, cummin  v_j = max_{i <= j} x_i (min).
 *   forward  torch's helper above, in the tensor's sort (exact: v_j is an entry).
 *   IBP      [running max of the lower ends, running max of the upper ends] (min: likewise):
 *            max is nondecreasing in each argument and exact on doubles, so this is the exact
 *            hull; no rounding.
 *   MPFI     the same with mpfr_max / mpfr_min on the enclosures' ends (left RNDD, right RNDU).
 *   pullback g_x[idx_j] += g_j, idx_j torch's index above (the later entry at a tie: a one-sided
 *            choice, shared by jvp).
 *   jvp      t_j = t[idx_j].
 *   CROWN    the values: below, the entry with the greatest lower end; above, that entry where it
 *            dominates, else the greatest upper end (cummax_crown); the indices: their box.
 *
 * sort   v = the row sorted (ascending, or descending).  topk: the first k of the row sorted
 *        descending (largest) or ascending (smallest).
 *   forward  a stable index sort of the row (values compared exactly; the tie-break by index makes
 *            the order total), v_j = x_{perm_j} in the tensor's sort; topk checks the tie rule.
 *   IBP      sorted lower ends and sorted upper ends.  Proof: write s_k(x) for the k-th smallest
 *            entry of the row x (k = 1..n).  Then s_k(x) = min over the sets S of n - k + 1
 *            indices of max_{i in S} x_i (any such S holds an entry >= s_k, since at most k - 1
 *            entries are < s_k, and the S of the n - k + 1 largest entries attains it).  A min of
 *            maxes of coordinates is nondecreasing in every coordinate, so for l <= x <= u
 *            entrywise, s_k(l) <= s_k(x) <= s_k(u): the k-th smallest of the lower ends and the
 *            k-th smallest of the upper ends bound the k-th smallest of x, and both are attained
 *            (at x = l and x = u), so the box is the exact hull.  Descending order is s_{n+1-k};
 *            topk's outputs are s_n..s_{n-k+1} (largest) or s_1..s_k (smallest), so the same
 *            sorted ends bound them.  No rounding.
 *   MPFI     the same on the enclosures' ends (mpfr_cmp sorts; left ends rounded down, right up).
 *   pullback g_x[perm_j] += g_j (the stable permutation; at a tie a one-sided choice shared by
 *            jvp).
 *   jvp      t_j = t[perm_j].
 *   CROWN    the values: x_i exactly at a position an entry surely holds over the box, else the
 *            values' box (order_crown); the indices: their box.
 *
 * argmax, argmin  the index (as above), the axis removed (or kept as extent 1 with keepdims).
 *   IBP      the set of indices that are the argmax at some point of the box.  For first-index
 *            ties: i is the argmax at x iff x_i > x_q for q < i and x_i >= x_q for q > i.  If that
 *            holds at some x of the box then u_i >= x_i > x_q >= l_q (q < i) and u_i >= l_q
 *            (q > i); conversely if u_i > l_q for q < i and u_i >= l_q for q > i, the point
 *            x_i = u_i, x_q = l_q (q != i) lies in the box and has argmax i.  So the candidates are
 *            exactly the i with u_i > l_q (q < i) and u_i >= l_q (q > i); the output box is
 *            [least candidate, greatest candidate] (the first index attaining max_q l_q is always a
 *            candidate, so the set is not empty).  select_last_index swaps the strict and wide
 *            comparisons; argmin mirrors (l_i < u_q, l_i <= u_q).  Exact integers, no rounding.
 *   MPFI     the same on the enclosures' ends (mpfr_cmp); on point enclosures it gives the exact
 *            index.
 *   pullback nothing (a frozen port); jvp writes 0.
 *
 * A NaN end in an input box (or a NaN enclosure) is CN_ENUMERIC in every IBP and MPFI arm.
 * Infinite ends give infinite ends (cumsum, cumprod through cn__sum_lo / prod corners; the
 * orderings move them exactly).  CROWN: none (NULL): the sweep discharges these nodes against
 * their boxes, as the seed does ("the cumulative and sorting operators").
 *
 * Forward accuracy: cummax, cummin, sort, topk, argmax and argmin are exact.  cumsum and cumprod
 * are not correctly rounded: each output is a running double sum (product) of up to n terms, with
 * the usual error bound (n - 1) u sum |x_i| (relative (n - 1) u for products), then in binary32
 * one rounding to float.  Measured against MPFR (200000 rows of 5 entries uniform in [-2, 2]),
 * the largest error in ulps of the exact result, f64 / f32: cumsum 3.3e4 / 0.5 (4 / 0.5 where
 * |sum| > |terms| / 4: the f64 maximum comes from cancelling sums), cumprod 2.9 / 0.5.  The
 * binary32 results are correctly rounded on these samples because the double accumulation of a
 * few floats is (nearly) exact. */
#include <config.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "ops/ops_impl.h"
#include "sound/sound.h"

/* ---- the operators' impl, geometry and shared checks ------------------------------------------ */

/* The scans' kinds: the family's vocabulary, which each rule's impl names.  SCAN_RUN is the
 * running extreme (cummax, cummin), SCAN_ORDER the orderings (sort, topk), SCAN_ARG argmax and
 * argmin. */
enum scan_kind { SCAN_SUM, SCAN_PROD, SCAN_RUN, SCAN_ORDER, SCAN_ARG };

/* What the shared arms read of a scan (its rule's impl). */
struct scan_impl
{
  enum scan_kind kind;
  int mx;                        /* cummax, argmax: the greatest (else the least) */
  int topk;                      /* topk: the first k of the order, under its tie rule */
  int (*axis) (const void *p);   /* the axis, from the operator's attribute record */
  int (*desc) (const void *p);   /* sort, topk: whether the order descends (NULL for the others) */
};

static int
cum_axis (const void *p)
{
  return ((const cn_params_cumulative *) p)->axis;
}

static int
sort_axis (const void *p)
{
  return ((const cn_params_sort *) p)->axis;
}

static int
topk_axis (const void *p)
{
  return ((const cn_params_topk *) p)->axis;
}

static int
arg_axis (const void *p)
{
  return ((const cn_params_argmax *) p)->axis;
}

static int
sort_desc (const void *p)
{
  return ((const cn_params_sort *) p)->descending;
}

static int
topk_desc (const void *p)
{
  return ((const cn_params_topk *) p)->largest;
}

/* The impl of the rule of NV. */
static inline const struct scan_impl *
scan_of (const cn_node_view *nv)
{
  return nv->rule->impl;
}

/* The rows of a shape along AXIS: OUTER rows of N entries INNER apart, times INNER. */
struct geom
{
  int64_t outer, n, inner;
};

static struct geom
geom_of (const cn_shape *s, int axis)
{
  struct geom g = { 1, s->dim[axis], 1 };
  for (int a = 0; a < axis; a++)
    g.outer *= s->dim[a];
  for (int a = axis + 1; a < s->rank; a++)
    g.inner *= s->dim[a];
  return g;
}

/* Offset of entry 0 of row R (0 <= R < outer * inner) in a tensor whose axis extent is N. */
static inline int64_t
row_base (const struct geom *g, int64_t n, int64_t r)
{
  return (r / g->inner) * n * g->inner + r % g->inner;
}

static cn_status
check_input (const char *op, int n_in, const cn_shape *const *in, int axis, cn_error *err)
{
  if (n_in != 1)
    return cn_error_set (err, CN_EINVAL, "%s: takes 1 input, got %d", op, n_in);
  const cn_shape *s = in[0];
  if (s == NULL || s->rank < 1 || s->rank > CN_MAX_RANK)
    return cn_error_set (err, CN_EINVAL, "%s: the input needs rank 1 to %d", op, CN_MAX_RANK);
  cn_status st = cn__shape_valid (op, "input", s, err);
  if (st != CN_OK)
    return st;
  if (axis < 0 || axis >= s->rank)
    return cn_error_set (err, CN_EINVAL, "%s: axis %d outside the input's rank %d", op, axis, s->rank);
  return CN_OK;
}

/* The attribute record of the node, or an error. */
static cn_status
need_params (const char *op, const void *p, cn_error *err)
{
  if (p == NULL)
    return cn_error_set (err, CN_EINVAL, "%s: missing attributes", op);
  return CN_OK;
}

static int
axis_of (const cn_node_view *nv)
{
  return scan_of (nv)->axis (nv->params);
}

/* The input geometry of the node and the output's extent on the axis.  The check admitted the
 * attributes and the input's shape, and the arms receive N_IN input and N_OUT output entries of
 * the node's shapes (stated with CN__ASSERTD). */
static void
node_geom (const cn_node_view *nv, int64_t n_in, int64_t n_out, struct geom *g, int64_t *m)
{
  const struct scan_impl *d = scan_of (nv);
  CN__ASSERTD (nv->params != NULL && nv->n_in == 1);
  int axis = axis_of (nv);
  const cn_shape *s = nv->in_shape[0];
  CN__ASSERTD (axis >= 0 && axis < s->rank);
  *g = geom_of (s, axis);
  *m = d->topk ? ((const cn_params_topk *) nv->params)->k : d->kind == SCAN_ARG ? 1 : g->n;
  CN__ASSERTD (n_in == cn__numel (s) && n_out == cn__numel (nv->out_shape) && n_out == g->outer * *m * g->inner);
  (void) n_in;
  (void) n_out;
}

/* ---- checks ------------------------------------------------------------------------------- */

/* The check of cumsum, cumprod, cummax and cummin. */
static cn_status
cum_check (const struct cn_op_rule *rule, const void *p, int n_in, const cn_shape *const *in, cn_shape *out,
           cn_error *err)
{
  const char *op = cn_op_name (rule->op);
  cn_status st = need_params (op, p, err);
  if (st != CN_OK)
    return st;
  const cn_params_cumulative *q = p;
  if ((st = check_input (op, n_in, in, q->axis, err)) != CN_OK)
    return st;
  *out = *in[0];
  return CN_OK;
}

static cn_status
sort_check (const struct cn_op_rule *rule, const void *p, int n_in, const cn_shape *const *in, cn_shape *out,
            cn_error *err)
{
  (void) rule;
  cn_status st = need_params ("sort", p, err);
  if (st != CN_OK)
    return st;
  const cn_params_sort *q = p;
  if ((st = check_input ("sort", n_in, in, q->axis, err)) != CN_OK)
    return st;
  if (q->descending != 0 && q->descending != 1)
    return cn_error_set (err, CN_EINVAL, "sort: descending must be 0 or 1, got %d", q->descending);
  *out = *in[0];
  return CN_OK;
}

static cn_status
topk_check (const struct cn_op_rule *rule, const void *p, int n_in, const cn_shape *const *in, cn_shape *out,
            cn_error *err)
{
  (void) rule;
  cn_status st = need_params ("topk", p, err);
  if (st != CN_OK)
    return st;
  const cn_params_topk *q = p;
  if ((st = check_input ("topk", n_in, in, q->axis, err)) != CN_OK)
    return st;
  if (q->largest != 0 && q->largest != 1)
    return cn_error_set (err, CN_EINVAL, "topk: largest must be 0 or 1, got %d", q->largest);
  if (q->ties_by_index != 0 && q->ties_by_index != 1)
    return cn_error_set (err, CN_EINVAL, "topk: ties_by_index must be 0 or 1, got %d", q->ties_by_index);
  int64_t n = in[0]->dim[q->axis];
  if (q->k < 0 || q->k > n)
    return cn_error_set (err, CN_EINVAL, "topk: k = %lld outside [0, %lld], the extent on axis %d", (long long) q->k,
                         (long long) n, q->axis);
  *out = *in[0];
  out->dim[q->axis] = q->k;
  return CN_OK;
}

/* The check of argmax and argmin. */
static cn_status
arg_check (const struct cn_op_rule *rule, const void *p, int n_in, const cn_shape *const *in, cn_shape *out,
           cn_error *err)
{
  const char *op = cn_op_name (rule->op);
  cn_status st = need_params (op, p, err);
  if (st != CN_OK)
    return st;
  const cn_params_argmax *q = p;
  if ((st = check_input (op, n_in, in, q->axis, err)) != CN_OK)
    return st;
  if (q->keepdims != 0 && q->keepdims != 1)
    return cn_error_set (err, CN_EINVAL, "%s: keepdims must be 0 or 1, got %d", op, q->keepdims);
  if (q->select_last_index != 0 && q->select_last_index != 1)
    return cn_error_set (err, CN_EINVAL, "%s: select_last_index must be 0 or 1, got %d", op, q->select_last_index);
  if (in[0]->dim[q->axis] < 1)
    return cn_error_set (err, CN_EINVAL, "%s: empty axis %d (no entry to select)", op, q->axis);
  if (in[0]->dim[q->axis] > (int64_t) 1 << 24)
    return cn_error_set (err, CN_EINVAL, "%s: extent %lld on axis %d: indices above 2^24 are not exact in binary32",
                         op, (long long) in[0]->dim[q->axis], q->axis);
  cn_shape s = *in[0];
  if (q->keepdims)
    s.dim[q->axis] = 1;
  else
    {
      for (int a = q->axis; a + 1 < s.rank; a++)
        s.dim[a] = s.dim[a + 1];
      s.dim[s.rank - 1] = 0;
      s.rank--;
    }
  *out = s;
  return CN_OK;
}

/* ---- orderings -------------------------------------------------------------------------- */

/* Ascending with NaN after every number; ties (==, or both NaN) by index: a total order. */
static int
cmp_asc (const void *pa, const void *pb)
{
  const struct cn__order_key *a = pa, *b = pb;
  int na = isnan (a->v), nb = isnan (b->v);
  if (na != nb)
    return na - nb;
  if (!na && a->v != b->v)
    return a->v < b->v ? -1 : 1;
  return (a->i > b->i) - (a->i < b->i);
}

/* Descending with NaN before every number; ties by index. */
static int
cmp_desc (const void *pa, const void *pb)
{
  const struct cn__order_key *a = pa, *b = pb;
  int na = isnan (a->v), nb = isnan (b->v);
  if (na != nb)
    return nb - na;
  if (!na && a->v != b->v)
    return a->v > b->v ? -1 : 1;
  return (a->i > b->i) - (a->i < b->i);
}

static inline double
load (const cn_tensor *t, int64_t j)
{
  return t->dtype == CN_DTYPE_F64 ? ((const double *) t->data)[j] : (double) ((const float *) t->data)[j];
}

static inline void
store (cn_tensor *t, int64_t j, double v)
{
  if (t->dtype == CN_DTYPE_F64)
    ((double *) t->data)[j] = v;
  else
    ((float *) t->data)[j] = (float) v;
}

void
cn__order_keys (struct cn__order_key *keys, int64_t n, int desc)
{
  qsort (keys, (size_t) n, sizeof *keys, desc ? cmp_desc : cmp_asc);
}

/* Whether the node orders descending (sort descending, topk largest). */
static int
order_desc (const cn_node_view *nv)
{
  return scan_of (nv)->desc (nv->params);
}

/* Sorts row R of the values X (f64 or f32, or a plain double array if T is NULL) into KEYS. */
static void
sort_row (const cn_tensor *t, const double *x, const struct geom *g, int64_t r, int desc, struct cn__order_key *keys)
{
  int64_t base = row_base (g, g->n, r);
  for (int64_t i = 0; i < g->n; i++)
    {
      int64_t j = base + i * g->inner;
      keys[i].v = t != NULL ? load (t, j) : x[j];
      keys[i].i = i;
    }
  cn__order_keys (keys, g->n, desc);
  /* now keys[0..n-1] is the row in the stable order (NaN placement as in the header) */
}

/* ---- forward ------------------------------------------------------------------------------ */

static cn_status
scan_forward (const cn_node_view *nv, const cn_tensor *const *in, cn_tensor *out, cn_error *err)
{
  const struct scan_impl *d = scan_of (nv);
  const char *op = cn_op_name (nv->op);
  struct geom g;
  int64_t m;
  /* the input and the output are of the evaluation's floating sort */
  CN__ASSERTD (cn_dtype_is_float (out->dtype) && in[0]->dtype == out->dtype);
  node_geom (nv, cn_tensor_numel (in[0]), cn_tensor_numel (out), &g, &m);
  int64_t rows = g.outer * g.inner;
  const cn_tensor *x = in[0];
  struct cn__order_key *keys = NULL;
  if (d->kind == SCAN_ORDER)
    {
      keys = malloc ((size_t) (g.n ? g.n : 1) * sizeof *keys);
      if (keys == NULL)
        return cn_error_set (err, CN_ENOMEM, "%s: out of memory (node '%s')", op, cn__node_name (nv));
    }
  for (int64_t r = 0; r < rows; r++)
    {
      int64_t bi = row_base (&g, g.n, r), bo = row_base (&g, m, r), s = g.inner;
      switch (d->kind)
        {
        case SCAN_SUM:
        case SCAN_PROD:
          {
            /* the widened accumulation: a double for both sorts */
            int prod = d->kind == SCAN_PROD;
            double acc = prod ? 1 : 0;
            for (int64_t i = 0; i < g.n; i++)
              {
                double v = load (x, bi + i * s);
                acc = prod ? acc * v : acc + v;
                store (out, bo + i * s, acc);
              }
            break;
          }
        case SCAN_RUN:
          {
            int mx = d->mx;
            double cur = g.n > 0 ? load (x, bi) : 0;
            int64_t idx = 0;
            for (int64_t i = 0; i < g.n; i++)
              {
                double v = load (x, bi + i * s);
                if (isnan (v) || (!isnan (cur) && (mx ? v >= cur : v <= cur)))
                  {
                    cur = v;
                    idx = i;
                  }
                /* exact: cur is an entry of the tensor's sort, idx an integer below 2^24 */
                store (out, bo + i * s, nv->out_index == 1 ? (double) idx : cur);
              }
            break;
          }
        case SCAN_ORDER:
          {
            sort_row (x, NULL, &g, r, order_desc (nv), keys);
            if (d->topk && !((const cn_params_topk *) nv->params)->ties_by_index && m > 0 && m < g.n
                && cn__order_tied (keys[m - 1].v, keys[m].v))
              {
                long long i1 = (long long) keys[m - 1].i, i2 = (long long) keys[m].i;
                free (keys);
                return cn_error_set (err, CN_EINVAL,
                                     "topk: tied entries decide the selection (entries %lld and %lld of a row along "
                                     "axis %d are equal) (node '%s')", i1, i2, axis_of (nv), cn__node_name (nv));
              }
            for (int64_t k = 0; k < m; k++)
              store (out, bo + k * s, nv->out_index == 1 ? (double) keys[k].i : keys[k].v);
            break;
          }
        default:
          {
            /* argmax, argmin: a NaN is extreme; ties to the first (last) index */
            const cn_params_argmax *q = nv->params;
            int mx = d->mx, last = q->select_last_index;
            int64_t best = 0;
            double bv = load (x, bi);
            for (int64_t i = 1; i < g.n && !(isnan (bv) && !last); i++)
              {
                double v = load (x, bi + i * s);
                int better;
                if (isnan (bv))
                  better = isnan (v);             /* only with select_last_index */
                else if (isnan (v))
                  better = 1;
                else
                  better = mx ? (last ? v >= bv : v > bv) : (last ? v <= bv : v < bv);
                if (better)
                  {
                    best = i;
                    bv = v;
                  }
              }
            store (out, bo, (double) best);
            break;
          }
        }
    }
  free (keys);
  return CN_OK;
}

/* ---- pullback and jvp --------------------------------------------------------------------- */

/* The geometry of a pullback or jvp, whose tensors are binary64 of the node's shapes. */
static void
diff_geom (const cn_node_view *nv, const cn_tensor *const *in, const cn_tensor *out, struct geom *g, int64_t *m)
{
  CN__ASSERTD (in[0]->dtype == CN_DTYPE_F64 && out->dtype == CN_DTYPE_F64);
  node_geom (nv, cn_tensor_numel (in[0]), cn_tensor_numel (out), g, m);
}

/* The source index along the row of output position k, for the selecting operators (cummax,
 * cummin: torch's running index; sort, topk: the stable permutation), of row R into SRC[0..m-1]. */
static void
select_row (const cn_node_view *nv, const double *x, const struct geom *g, int64_t r, struct cn__order_key *keys,
            int64_t m, int64_t *src)
{
  const struct scan_impl *d = scan_of (nv);
  if (d->kind == SCAN_RUN)
    {
      int mx = d->mx;
      int64_t b = row_base (g, g->n, r), idx = 0;
      double cur = g->n > 0 ? x[b] : 0;
      for (int64_t i = 0; i < g->n; i++)
        {
          double v = x[b + i * g->inner];
          if (isnan (v) || (!isnan (cur) && (mx ? v >= cur : v <= cur)))
            {
              cur = v;
              idx = i;
            }
          src[i] = idx;
        }
      return;
    }
  sort_row (NULL, x, g, r, order_desc (nv), keys);
  for (int64_t k = 0; k < m; k++)
    src[k] = keys[k].i;
}

static cn_status
scan_pullback (const cn_node_view *nv, const cn_tensor *const *in, const cn_tensor *out, const double *g_out,
               double *const *g_in, cn_error *err)
{
  const struct scan_impl *d = scan_of (nv);
  const char *op = cn_op_name (nv->op);
  struct geom g;
  int64_t m;
  cn_status st = CN_OK;
  diff_geom (nv, in, out, &g, &m);
  if (g_in[0] == NULL || d->kind == SCAN_ARG || nv->out_index == 1)
    return st;                           /* argmax, argmin: a frozen port; an index output: no gradient */
  const double *x = in[0]->data;
  double *gx = g_in[0];
  int64_t rows = g.outer * g.inner, s = g.inner;
  struct cn__order_key *keys = malloc ((size_t) (g.n ? g.n : 1) * sizeof *keys);
  int64_t *src = malloc ((size_t) (g.n ? g.n : 1) * sizeof *src);
  if (keys == NULL || src == NULL)
    {
      st = cn_error_set (err, CN_ENOMEM, "%s: out of memory (node '%s')", op, cn__node_name (nv));
      goto done;
    }
  for (int64_t r = 0; r < rows; r++)
    {
      int64_t bi = row_base (&g, g.n, r), bo = row_base (&g, m, r);
      if (d->kind == SCAN_SUM)
        {
          double acc = 0;
          for (int64_t i = g.n - 1; i >= 0; i--)
            {
              acc += g_out[bo + i * s];
              gx[bi + i * s] += acc;
            }
          /* now g_x[i] has received sum_{j >= i} g_j */
        }
      else if (d->kind == SCAN_PROD)
        {
          /* keys[i].v holds the prefix products P_{i-1} here */
          double p = 1;
          for (int64_t i = 0; i < g.n; i++)
            {
              keys[i].v = p;
              p *= x[bi + i * s];
            }
          double rr = 0;
          for (int64_t i = g.n - 1; i >= 0; i--)
            {
              rr = i == g.n - 1 ? g_out[bo + i * s] : g_out[bo + i * s] + x[bi + (i + 1) * s] * rr;
              gx[bi + i * s] += keys[i].v * rr;
            }
          /* now g_x[i] has received P_{i-1} R_i = sum_{j >= i} g_j d v_j / d x_i */
        }
      else
        {
          select_row (nv, x, &g, r, keys, m, src);
          for (int64_t k = 0; k < m; k++)
            gx[bi + src[k] * s] += g_out[bo + k * s];
          /* now each selected entry has received the cotangents of the outputs that copy it */
        }
    }
done:
  free (keys);
  free (src);
  return st;
}

static cn_status
scan_jvp (const cn_node_view *nv, const cn_tensor *const *in, const cn_tensor *out, const double *const *t_in,
          double *t_out, cn_error *err)
{
  const struct scan_impl *d = scan_of (nv);
  const char *op = cn_op_name (nv->op);
  struct geom g;
  int64_t m;
  cn_status st = CN_OK;
  diff_geom (nv, in, out, &g, &m);
  int64_t no = cn_tensor_numel (out);
  if (t_in[0] == NULL || d->kind == SCAN_ARG || nv->out_index == 1)
    {
      for (int64_t j = 0; j < no; j++)
        t_out[j] = 0;
      return CN_OK;
    }
  const double *x = in[0]->data, *t = t_in[0];
  int64_t rows = g.outer * g.inner, s = g.inner;
  struct cn__order_key *keys = malloc ((size_t) (g.n ? g.n : 1) * sizeof *keys);
  int64_t *src = malloc ((size_t) (g.n ? g.n : 1) * sizeof *src);
  if (keys == NULL || src == NULL)
    {
      st = cn_error_set (err, CN_ENOMEM, "%s: out of memory (node '%s')", op, cn__node_name (nv));
      goto done;
    }
  for (int64_t r = 0; r < rows; r++)
    {
      int64_t bi = row_base (&g, g.n, r), bo = row_base (&g, m, r);
      if (d->kind == SCAN_SUM)
        {
          double acc = 0;
          for (int64_t i = 0; i < g.n; i++)
            {
              acc += t[bi + i * s];
              t_out[bo + i * s] = acc;
            }
        }
      else if (d->kind == SCAN_PROD)
        {
          double p = 1, tt = 0;
          for (int64_t i = 0; i < g.n; i++)
            {
              double xi = x[bi + i * s];
              tt = tt * xi + p * t[bi + i * s];
              p *= xi;
              t_out[bo + i * s] = tt;
              /* now tt = T_i, the derivative of P_i along t, and p = P_i */
            }
        }
      else
        {
          select_row (nv, x, &g, r, keys, m, src);
          for (int64_t k = 0; k < m; k++)
            t_out[bo + k * s] = t[bi + src[k] * s];
        }
    }
done:
  free (keys);
  free (src);
  return st;
}

/* ---- IBP ---------------------------------------------------------------------------------- */

/* Lower and upper candidates of x*y (0 * inf := 0), NaN-free (as reduce PROD's IBP). */
static inline void
prod_cand (double x, double y, double *lo, double *hi)
{
  if (x == 0 || y == 0)
    {
      *lo = *hi = 0;
      return;
    }
  double p = x * y;
  /* one rounding: p = fl(x y); +inf as a lower candidate means x y > DBL_MAX */
  double l = p == INFINITY ? DBL_MAX : cn__down (p);
  double h = p == -INFINITY ? -DBL_MAX : cn__up (p);
  *lo = isnan (l) ? -INFINITY : l;
  *hi = isnan (h) ? INFINITY : h;
}

static int
cmp_d_asc (const void *pa, const void *pb)
{
  double a = *(const double *) pa, b = *(const double *) pb;
  return (a > b) - (a < b);
}

static int
cmp_d_desc (const void *pa, const void *pb)
{
  double a = *(const double *) pa, b = *(const double *) pb;
  return (a < b) - (a > b);
}

/* Whether entry I of a row with ends L, U (N entries, stride S) is the argmax (MX) or argmin at
 * some point of the box, under the first-index (LAST = 0) or last-index tie rule. */
static int
arg_candidate (int mx, int last, const double *l, const double *u, int64_t n, int64_t s, int64_t i)
{
  for (int64_t q = 0; q < n; q++)
    {
      if (q == i)
        continue;
      int strict = last ? q > i : q < i;
      if (mx)
        {
          double a = u[i * s], b = l[q * s];
          if (strict ? !(a > b) : !(a >= b))
            return 0;
        }
      else
        {
          double a = l[i * s], b = u[q * s];
          if (strict ? !(a < b) : !(a <= b))
            return 0;
        }
    }
  return 1;
}

/* The index output of row R (see the top): for each of the M output positions, the least and
 * greatest index the position can hold over the box [L, U] (the row's entries INNER apart),
 * written to LO/HI at the output's row.  O(n^2) per row. */
static void
index_hull_row (const cn_node_view *nv, const struct geom *g, int64_t m, const double *l, const double *u,
                int64_t *minr, int64_t *maxr, double *lo, double *hi)
{
  const struct scan_impl *d = scan_of (nv);
  int64_t n = g->n, s = g->inner;
  if (d->kind == SCAN_RUN)
    {
      int mx = d->mx;
      for (int64_t j = 0; j < n; j++)
        {
          int64_t first = -1, last = -1;
          for (int64_t i = 0; i <= j; i++)
            {
              int ok = 1;
              for (int64_t q = 0; q <= j && ok; q++)
                if (q < i)
                  ok = mx ? u[i * s] >= l[q * s] : l[i * s] <= u[q * s];
                else if (q > i)
                  ok = mx ? u[i * s] > l[q * s] : l[i * s] < u[q * s];
              if (ok)
                {
                  if (first < 0)
                    first = i;
                  last = i;
                }
            }
          /* the index the forward returns at any point of the box is a candidate; an empty set
           * cannot happen for a box without NaN ends, but [0, j] stays sound if it did */
          lo[j * s] = first < 0 ? 0 : (double) first;
          hi[j * s] = first < 0 ? (double) j : (double) last;
        }
      return;
    }
  int desc = order_desc (nv);
  for (int64_t i = 0; i < n; i++)
    {
      int64_t a = 0, b = 0;
      double li = l[i * s], ui = u[i * s];
      for (int64_t q = 0; q < n; q++)
        {
          if (q == i)
            continue;
          double lq = l[q * s], uq = u[q * s];
          if (!desc)
            {
              a += q < i ? uq <= li : uq < li;       /* x_i = l_i, x_q = u_q: the least rank */
              b += q < i ? lq <= ui : lq < ui;       /* x_i = u_i, x_q = l_q: the greatest */
            }
          else
            {
              a += q < i ? lq >= ui : lq > ui;
              b += q < i ? uq >= li : uq > li;
            }
        }
      minr[i] = a;
      maxr[i] = b;
    }
  for (int64_t k = 0; k < m; k++)
    {
      int64_t first = -1, last = -1;
      for (int64_t i = 0; i < n; i++)
        if (minr[i] <= k && k <= maxr[i])
          {
            if (first < 0)
              first = i;
            last = i;
          }
      lo[k * s] = first < 0 ? 0 : (double) first;
      hi[k * s] = first < 0 ? (double) (n - 1) : (double) last;
    }
}

/* The index output over the box [XL, XU] (every row), into LO/HI. */
static cn_status
index_hull (const cn_node_view *nv, const struct geom *g, int64_t m, const double *xl, const double *xu, double *lo,
            double *hi, cn_error *err)
{
  int64_t *minr = malloc ((size_t) (g->n ? g->n : 1) * sizeof *minr);
  int64_t *maxr = malloc ((size_t) (g->n ? g->n : 1) * sizeof *maxr);
  if (minr == NULL || maxr == NULL)
    {
      free (minr);
      free (maxr);
      return cn_error_set (err, CN_ENOMEM, "%s: out of memory (node '%s')", cn_op_name (nv->op), cn__node_name (nv));
    }
  for (int64_t r = 0; r < g->outer * g->inner; r++)
    {
      int64_t bi = row_base (g, g->n, r), bo = row_base (g, m, r);
      index_hull_row (nv, g, m, xl + bi, xu + bi, minr, maxr, lo + bo, hi + bo);
    }
  free (minr);
  free (maxr);
  return CN_OK;
}

/* The index output in MPFI: index_hull on the enclosures' ends rounded outward to binary64. */
static cn_status
index_mpfi (const cn_node_view *nv, const struct geom *g, int64_t m, const cn_mpfi_vec *x, cn_mpfi_vec *out,
            cn_error *err)
{
  int64_t n = x->n, no = out->n;
  double *xl = malloc ((size_t) (n ? n : 1) * sizeof *xl), *xu = malloc ((size_t) (n ? n : 1) * sizeof *xu);
  double *lo = malloc ((size_t) (no ? no : 1) * sizeof *lo), *hi = malloc ((size_t) (no ? no : 1) * sizeof *hi);
  cn_status st = CN_OK;
  if (xl == NULL || xu == NULL || lo == NULL || hi == NULL)
    st = cn_error_set (err, CN_ENOMEM, "%s: out of memory (node '%s')", cn_op_name (nv->op), cn__node_name (nv));
  else
    {
      for (int64_t j = 0; j < n; j++)
        {
          xl[j] = mpfr_get_d (&x->v[j]->left, MPFR_RNDD);
          xu[j] = mpfr_get_d (&x->v[j]->right, MPFR_RNDU);
        }
      if ((st = index_hull (nv, g, m, xl, xu, lo, hi, err)) == CN_OK)
        for (int64_t j = 0; j < no; j++)
          mpfi_interv_d (out->v[j], lo[j], hi[j]);
    }
  free (xl);
  free (xu);
  free (lo);
  free (hi);
  return st;
}

static cn_status
scan_ibp (const cn_node_view *nv, const cn_box *const *in, cn_box *out, cn_error *err)
{
  const struct scan_impl *d = scan_of (nv);
  const char *op = cn_op_name (nv->op);
  struct geom g;
  int64_t m;
  cn_status st = CN_OK;
  node_geom (nv, in[0]->n, out->n, &g, &m);
  const double *xl = in[0]->lo, *xu = in[0]->hi;
  for (int64_t j = 0; j < in[0]->n; j++)
    if (isnan (xl[j]) || isnan (xu[j]))
      return cn_error_set (err, CN_ENUMERIC, "%s: NaN end in the input box at entry %lld (node '%s')", op,
                           (long long) j, cn__node_name (nv));
  if (nv->out_index == 1)
    return index_hull (nv, &g, m, xl, xu, out->lo, out->hi, err);
  int64_t rows = g.outer * g.inner, s = g.inner;
  double *bl = malloc ((size_t) (g.n ? g.n : 1) * sizeof *bl), *bh = malloc ((size_t) (g.n ? g.n : 1) * sizeof *bh);
  if (bl == NULL || bh == NULL)
    {
      st = cn_error_set (err, CN_ENOMEM, "%s: out of memory (node '%s')", op, cn__node_name (nv));
      goto done;
    }
  for (int64_t r = 0; r < rows; r++)
    {
      int64_t bi = row_base (&g, g.n, r), bo = row_base (&g, m, r);
      const double *l = xl + bi, *u = xu + bi;
      double *ol = out->lo + bo, *oh = out->hi + bo;
      switch (d->kind)
        {
        case SCAN_SUM:
          {
            double sl = 0, tl = 0, sh = 0, th = 0;
            for (int64_t i = 0; i < g.n; i++)
              {
                sl += l[i * s];
                tl += fabs (l[i * s]);
                sh += u[i * s];
                th += fabs (u[i * s]);
                /* now sl = fl(sum_{q<=i} l_q) and tl = fl(sum |l_q|) (sequential RN sums of i + 1
                 * terms), likewise sh, th: by (G) the exact sums lie within cn__dot_err */
                ol[i * s] = cn__sum_lo (sl, tl, i + 1);
                oh[i * s] = cn__sum_hi (sh, th, i + 1);
              }
            break;
          }
        case SCAN_PROD:
          {
            double a = 1, b = 1;
            for (int64_t i = 0; i < g.n; i++)
              {
                double c = l[i * s], d = u[i * s], cl[4], ch[4];
                prod_cand (a, c, &cl[0], &ch[0]);
                prod_cand (a, d, &cl[1], &ch[1]);
                prod_cand (b, c, &cl[2], &ch[2]);
                prod_cand (b, d, &cl[3], &ch[3]);
                double lo = cl[0], hi = ch[0];
                for (int q = 1; q < 4; q++)
                  {
                    lo = cl[q] < lo ? cl[q] : lo;
                    hi = ch[q] > hi ? ch[q] : hi;
                  }
                /* now [lo, hi] encloses [a, b] [c, d], hence the exact prefix product */
                a = ol[i * s] = lo;
                b = oh[i * s] = hi;
              }
            break;
          }
        case SCAN_RUN:
          {
            int mx = d->mx;
            double a = 0, b = 0;
            for (int64_t i = 0; i < g.n; i++)
              {
                a = i == 0 ? l[0] : mx ? fmax (a, l[i * s]) : fmin (a, l[i * s]);
                b = i == 0 ? u[0] : mx ? fmax (b, u[i * s]) : fmin (b, u[i * s]);
                ol[i * s] = a;
                oh[i * s] = b;
                /* exact hull of the running extreme over the box */
              }
            break;
          }
        case SCAN_ORDER:
          {
            int desc = order_desc (nv);
            for (int64_t i = 0; i < g.n; i++)
              {
                bl[i] = l[i * s];
                bh[i] = u[i * s];
              }
            qsort (bl, (size_t) g.n, sizeof *bl, desc ? cmp_d_desc : cmp_d_asc);
            qsort (bh, (size_t) g.n, sizeof *bh, desc ? cmp_d_desc : cmp_d_asc);
            for (int64_t k = 0; k < m; k++)
              {
                ol[k * s] = bl[k];
                oh[k * s] = bh[k];
              }
            /* order statistics are nondecreasing in every entry (header): the exact hull */
            break;
          }
        default:
          {
            const cn_params_argmax *q = nv->params;
            int mx = d->mx;
            int64_t first = -1, lastc = -1;
            for (int64_t i = 0; i < g.n; i++)
              if (arg_candidate (mx, q->select_last_index, l, u, g.n, s, i))
                {
                  if (first < 0)
                    first = i;
                  lastc = i;
                }
            if (first < 0)
              {
                /* unreachable for real boxes (header); refuse rather than guess */
                st = cn_error_set (err, CN_ENUMERIC, "%s: no candidate index in a row of the box (node '%s')", op,
                                   cn__node_name (nv));
                goto done;
              }
            ol[0] = (double) first;
            oh[0] = (double) lastc;
            break;
          }
        }
    }
done:
  free (bl);
  free (bh);
  return st;
}

/* ---- MPFI --------------------------------------------------------------------------------- */

static int
cmp_fr (const void *pa, const void *pb)
{
  mpfr_srcptr a = *(mpfr_srcptr const *) pa, b = *(mpfr_srcptr const *) pb;
  return mpfr_cmp (a, b);
}

static int
cmp_fr_desc (const void *pa, const void *pb)
{
  return -cmp_fr (pa, pb);
}

static int
arg_candidate_fr (int mx, int last, const cn_mpfi_vec *x, int64_t b, int64_t n, int64_t s, int64_t i)
{
  for (int64_t q = 0; q < n; q++)
    {
      if (q == i)
        continue;
      int strict = last ? q > i : q < i;
      int c = mx ? mpfr_cmp (&x->v[b + i * s]->right, &x->v[b + q * s]->left)
                 : mpfr_cmp (&x->v[b + q * s]->right, &x->v[b + i * s]->left);
      /* c > 0: u_i > l_q (argmax) or u_q > l_i (argmin) */
      if (strict ? c <= 0 : c < 0)
        return 0;
    }
  return 1;
}

static cn_status
scan_mpfi (const cn_node_view *nv, const cn_mpfi_vec *const *in, cn_mpfi_vec *out, cn_error *err)
{
  const struct scan_impl *d = scan_of (nv);
  const char *op = cn_op_name (nv->op);
  struct geom g;
  int64_t m;
  cn_status st = CN_OK;
  node_geom (nv, in[0]->n, out->n, &g, &m);
  const cn_mpfi_vec *x = in[0];
  for (int64_t j = 0; j < x->n; j++)
    if (mpfi_nan_p (x->v[j]))
      return cn_error_set (err, CN_ENUMERIC, "%s: NaN in the input enclosure at entry %lld (node '%s')", op,
                           (long long) j, cn__node_name (nv));
  if (out->n == 0)
    return CN_OK;
  if (nv->out_index == 1)
    return index_mpfi (nv, &g, m, x, out, err);
  mpfr_prec_t prec = mpfi_get_prec (out->v[0]);
  int64_t rows = g.outer * g.inner, s = g.inner;
  mpfr_srcptr *pl = malloc ((size_t) (g.n ? g.n : 1) * sizeof *pl);
  mpfr_srcptr *ph = malloc ((size_t) (g.n ? g.n : 1) * sizeof *ph);
  mpfr_t l, r;
  mpfr_init2 (l, prec);
  mpfr_init2 (r, prec);
  if (pl == NULL || ph == NULL)
    {
      st = cn_error_set (err, CN_ENOMEM, "%s: out of memory (node '%s')", op, cn__node_name (nv));
      goto done;
    }
  for (int64_t rr = 0; rr < rows; rr++)
    {
      int64_t bi = row_base (&g, g.n, rr), bo = row_base (&g, m, rr);
      switch (d->kind)
        {
        case SCAN_SUM:
        case SCAN_PROD:
          for (int64_t i = 0; i < g.n; i++)
            {
              mpfi_ptr o = out->v[bo + i * s];
              mpfi_srcptr xi = x->v[bi + i * s];
              if (i == 0)
                mpfi_set (o, xi);
              else if (d->kind == SCAN_SUM)
                mpfi_add (o, out->v[bo + (i - 1) * s], xi);
              else
                mpfi_mul (o, out->v[bo + (i - 1) * s], xi);
              /* now o encloses the exact prefix sum (product) of the enclosures' points */
            }
          break;
        case SCAN_RUN:
          {
            int mx = d->mx;
            for (int64_t i = 0; i < g.n; i++)
              {
                mpfi_srcptr xi = x->v[bi + i * s];
                if (i == 0)
                  {
                    mpfr_set (l, &xi->left, MPFR_RNDD);
                    mpfr_set (r, &xi->right, MPFR_RNDU);
                  }
                else if (mx)
                  {
                    mpfr_max (l, l, &xi->left, MPFR_RNDD);
                    mpfr_max (r, r, &xi->right, MPFR_RNDU);
                  }
                else
                  {
                    mpfr_min (l, l, &xi->left, MPFR_RNDD);
                    mpfr_min (r, r, &xi->right, MPFR_RNDU);
                  }
                mpfi_interv_fr (out->v[bo + i * s], l, r);
              }
            break;
          }
        case SCAN_ORDER:
          {
            int desc = order_desc (nv);
            for (int64_t i = 0; i < g.n; i++)
              {
                pl[i] = &x->v[bi + i * s]->left;
                ph[i] = &x->v[bi + i * s]->right;
              }
            qsort (pl, (size_t) g.n, sizeof *pl, desc ? cmp_fr_desc : cmp_fr);
            qsort (ph, (size_t) g.n, sizeof *ph, desc ? cmp_fr_desc : cmp_fr);
            for (int64_t k = 0; k < m; k++)
              {
                mpfr_set (l, pl[k], MPFR_RNDD);
                mpfr_set (r, ph[k], MPFR_RNDU);
                mpfi_interv_fr (out->v[bo + k * s], l, r);
              }
            break;
          }
        default:
          {
            const cn_params_argmax *q = nv->params;
            int mx = d->mx;
            int64_t first = -1, lastc = -1;
            for (int64_t i = 0; i < g.n; i++)
              if (arg_candidate_fr (mx, q->select_last_index, x, bi, g.n, s, i))
                {
                  if (first < 0)
                    first = i;
                  lastc = i;
                }
            if (first < 0)
              {
                st = cn_error_set (err, CN_ENUMERIC, "%s: no candidate index in a row of the enclosure (node '%s')",
                                   op, cn__node_name (nv));
                goto done;
              }
            mpfi_interv_si (out->v[bo], (long) first, (long) lastc);
            break;
          }
        }
    }
done:
  mpfr_clear (l);
  mpfr_clear (r);
  free (pl);
  free (ph);
  return st;
}

/* ---- the rules ---------------------------------------------------------------------------- */

static const cn_port_kind frozen_port[1] = { CN_PORT_FROZEN };

/* Output 1 of cummax, cummin, sort and topk: the indices, of output 0's shape, the model's scalar. */
static const char *const values_indices[2] = { "values", "indices" };
static const cn_port_kind value_index[2] = { CN_PORT_VALUE, CN_PORT_INDEX };

/* The out_extra arm of cummax, cummin, sort and topk: output 1, the indices, of output 0's shape
 * (the rule's own check gives it) and of the model's scalar, whose integers must be exact in
 * binary32. */
static cn_status
index_extra (const struct cn_op_rule *rule, const void *p, int n_in, const cn_shape *const *in, int k,
             cn_shape *shape, cn_dtype *sort, cn_error *err)
{
  const char *op = cn_op_name (rule->op);
  if (k != 1)
    return cn_error_set (err, CN_EINVAL, "%s: no output %d", op, k);
  *sort = CN_DTYPE_F64;
  cn_status st = rule->check (rule, p, n_in, in, shape, err);
  if (st != CN_OK)
    return st;
  int axis = ((const struct scan_impl *) rule->impl)->axis (p);
  if (in[0]->dim[axis] > (int64_t) 1 << 24)
    return cn_error_set (err, CN_EINVAL, "%s: extent %lld on axis %d: indices above 2^24 are not exact in binary32",
                         op, (long long) in[0]->dim[axis], axis);
  return CN_OK;
}

/* cumsum's CROWN step (affine, no relaxation): lam . v = sum_j lam_j sum_{i <= j} x_i =
 * sum_i x_i R_i with R_i = sum_{j >= i} lam_j along the row, so lam_x = R, computed as the reverse
 * running sum in RN (a recursive sum of at most n terms per entry).  Charged by
 * cn__crown_charge_affine with K = n and w_up[j] >= sum_{i <= j} m_i (the prefix sums of the input
 * box's magnitudes, rounded up by (N)): v = A x with A the lower-triangular ones, |A| m = those
 * prefix sums.  w_up depends on the box alone and is kept in the step's memo. */
static cn_status
cumsum_crown (const cn_crown_step *st, cn_error *err)
{
  const cn_node_view *nv = st->nv;
  if (st->lam_in[0] == NULL)
    return cn_error_set (err, CN_EINVAL, "cumsum: CROWN step on a constant input (node '%s')", st->node);
  struct geom g = geom_of (nv->in_shape[0], cum_axis (nv->params));
  int64_t n_all = st->n_out, rows = g.outer * g.inner, s = g.inner;
  CN__ASSERTD (n_all == rows * g.n);
  for (int64_t q = 0; q < st->rows; q++)
    {
      const double *lam = st->lam_out + q * n_all;
      double *li = st->lam_in[0] + q * n_all;
      for (int64_t r = 0; r < rows; r++)
        {
          int64_t b = row_base (&g, g.n, r);
          double acc = 0;
          for (int64_t i = g.n - 1; i >= 0; i--)
            {
              acc += lam[b + i * s];
              li[b + i * s] = acc;
            }
          /* now li = the reverse running sums of lam along the row, in RN */
        }
    }
  int64_t K = g.n > 0 ? g.n : 1;
  if (cn__crown_charge_affine_memo (st, K))
    return CN_OK;
  double *m = malloc ((size_t) (2 * n_all + 1) * sizeof *m);
  if (m == NULL)
    return cn_error_set (err, CN_ENOMEM, "cumsum: out of memory (node '%s')", st->node);
  double *w_up = m + n_all;
  double m1 = cn__box_magnitude (st->in_box[0], m);
  double kap = cn__kappa (K);
  for (int64_t r = 0; r < rows; r++)
    {
      int64_t b = row_base (&g, g.n, r);
      double t = 0;
      for (int64_t i = 0; i < g.n; i++)
        {
          t += m[b + i * s];
          double u = cn__up (kap * cn__up (t + (double) (i + 1) * CN_ETA));
          w_up[b + i * s] = isnan (u) ? INFINITY : u;
        }
    }
  cn__crown_charge_affine (st, w_up, K, m1);
  cn__crown_affine_keep (st, w_up, m1);
  free (m);
  return CN_OK;
}

/* The step of an arm each of whose output entries is, on each side, one input entry or a constant:
 * side 0 (a lower bound, where lam >= 0) and side 1 (an upper one) of output q are x[SRC[2q + side]]
 * or, where that is negative, the constant CST[2q + side].  So lam_x[src] += lam (RN sums: the
 * caller charges them when several outputs share an entry) and bias += lam . cst
 * (cn__crown_add_dot); a row that needs a constant that is not finite gets the charge +inf.
 * BSEL: scratch of n_out. */
static void
pick_step (const cn_crown_step *st, const int64_t *src, const double *cst, double *bsel)
{
  int64_t n_out = st->n_out, n_in = st->in_box[0]->n;
  for (int64_t row = 0; row < st->rows; row++)
    {
      const double *lam = st->lam_out + row * n_out;
      double *li = st->lam_in[0] + row * n_in;
      int unbounded = 0;
      for (int64_t q = 0; q < n_out; q++)
        {
          double l = lam[q];
          int side = l < 0;
          bsel[q] = 0;
          if (l == 0)
            continue;
          if (src[2 * q + side] >= 0)
            li[src[2 * q + side]] += l;   /* l v_q >= l x_src (side 0), or <= becomes >= for l < 0 */
          else if (isfinite (cst[2 * q + side]))
            bsel[q] = cst[2 * q + side];
          else
            unbounded = 1;
        }
      cn__crown_add_dot (st, row, n_out, lam, bsel);
      if (unbounded)
        cn__crown_charge (st, row, INFINITY);
    }
}

/* cummax's CROWN step (cummin mirrors it: min = -max(-x)), output 0 (the indices: their box).
 * For v_j = max_{i <= j} x_i over the row's boxes: with p the first i <= j of the greatest lower
 * end l_p, v_j >= x_p (the lower line, exact); if l_p >= u_i for every other i <= j, x_p is the
 * maximum on the whole box, v_j = x_p (the upper line too), else v_j <= U_j = max_{i <= j} u_i
 * (a constant).  So lam_x[p] += lam_j where lam_j >= 0 or x_p dominates, else bias += lam_j U_j
 * (cn__crown_add_dot).  Each lam_x entry is an RN sum of at most n of the lam_j: charged by
 * cn__crown_charge_affine, K = n, w_up[j] = m_p (v_j is the entry x_p or a constant). */
static cn_status
cummax_crown (const cn_crown_step *st, cn_error *err)
{
  const cn_node_view *nv = st->nv;
  const struct scan_impl *d = scan_of (nv);
  const char *op = cn_op_name (nv->op);
  if (nv->out_index != 0)
    return cn__crown_own_box (st, err);
  if (st->lam_in[0] == NULL)
    return cn_error_set (err, CN_EINVAL, "%s: CROWN step on a constant input (node '%s')", op, st->node);
  struct geom g = geom_of (nv->in_shape[0], cum_axis (nv->params));
  int64_t n_all = st->n_out, rows = g.outer * g.inner, s = g.inner;
  const cn_box *X = st->in_box[0];
  int64_t *src = malloc ((size_t) (2 * n_all + 1) * sizeof *src);
  double *buf = malloc ((size_t) (4 * n_all + 1) * sizeof *buf);
  if (src == NULL || buf == NULL)
    {
      free (src), free (buf);
      return cn_error_set (err, CN_ENOMEM, "%s: out of memory (node '%s')", op, st->node);
    }
  double *cst = buf, *m = cst + 2 * n_all, *w_up = m + n_all;
  /* in the max picture (w = x for cummax, -x for cummin): lower ends lo = l (cummin: -u), upper
   * ends hi = u (cummin: -l); the max's lower side is w_p, its upper w_p where x_p dominates, else
   * the greatest hi; cummin takes the sides the other way round, the constant negated */
  int mx = d->mx;
  for (int64_t r = 0; r < rows; r++)
    {
      int64_t b = row_base (&g, g.n, r), p = -1;
      double best = -INFINITY, top = -INFINITY, second = -INFINITY;   /* second: max hi over i != p */
      for (int64_t i = 0; i < g.n; i++)
        {
          int64_t q = b + i * s;
          double lo = mx ? X->lo[q] : -X->hi[q], hi = mx ? X->hi[q] : -X->lo[q];
          if (p < 0 || lo > best)
            {
              if (p >= 0)
                second = fmax (second, mx ? X->hi[p] : -X->lo[p]);   /* the old pick joins the others */
              p = q;
              best = lo;
            }
          else
            second = fmax (second, hi);
          top = fmax (top, hi);
          /* v_q = x_p exactly where x_p >= l_p >= u_i >= x_i for the others; else the max's upper
           * side is the greatest upper end so far, top */
          int dom = best >= second;
          src[2 * q + !mx] = p;
          src[2 * q + mx] = dom ? p : -1;
          cst[2 * q + !mx] = 0;
          cst[2 * q + mx] = mx ? top : -top;
        }
    }
  double m1 = cn__box_magnitude (X, m);
  pick_step (st, src, cst, w_up);
  for (int64_t q = 0; q < n_all; q++)
    w_up[q] = m[src[2 * q + !mx]];   /* v_q is the entry x_p or a constant */
  cn__crown_charge_affine (st, w_up, g.n > 0 ? g.n : 1, m1);
  free (src);
  free (buf);
  return CN_OK;
}

/* sort's and topk's CROWN step, output 0 (the indices: their box).  Entry i of a row has a fixed
 * position k over the box when every other entry q is surely before it in the stable order
 * (ascending: u_q <= l_i for q < i, u_q < l_i for q > i; descending: l_q >= u_i, l_q > u_i) or surely
 * after it (the mirror): then v_k = x_i at every point of the box, a line with slope 1 (exact).
 * A position no entry surely holds takes the values' IBP box (its constants).  So lam_x[i] += lam_k
 * (one entry per position: exact copies, no charge) and bias += lam . (the chosen ends). */
static cn_status
order_crown (const cn_crown_step *st, cn_error *err)
{
  const cn_node_view *nv = st->nv;
  const struct scan_impl *d = scan_of (nv);
  const char *op = cn_op_name (nv->op);
  if (nv->out_index != 0)
    return cn__crown_own_box (st, err);
  if (st->lam_in[0] == NULL)
    return cn_error_set (err, CN_EINVAL, "%s: CROWN step on a constant input (node '%s')", op, st->node);
  const cn_box *X = st->in_box[0];
  struct geom g;
  int64_t m;
  node_geom (nv, X->n, st->n_out, &g, &m);
  int desc = d->desc (nv->params);
  int64_t n_out = st->n_out, rows = g.outer * g.inner, s = g.inner;
  cn_box out;
  cn_status rc = cn_box_init (&out, n_out, err);
  if (rc != CN_OK)
    return rc;
  int64_t *src = malloc ((size_t) (2 * n_out + 1) * sizeof *src);
  double *bsel = malloc ((size_t) (3 * n_out + 1) * sizeof *bsel);
  if (src == NULL || bsel == NULL)
    {
      rc = cn_error_set (err, CN_ENOMEM, "%s: out of memory (node '%s')", op, st->node);
      goto done;
    }
  const cn_box *ip[1] = { X };
  if ((rc = scan_ibp (nv, ip, &out, err)) != CN_OK)
    goto done;
  double *cst = bsel + n_out;
  for (int64_t q = 0; q < n_out; q++)
    {
      src[2 * q] = src[2 * q + 1] = -1;
      cst[2 * q] = out.lo[q];
      cst[2 * q + 1] = out.hi[q];
    }
  for (int64_t r = 0; r < rows; r++)
    {
      int64_t bi = row_base (&g, g.n, r), bo = row_base (&g, m, r);
      for (int64_t i = 0; i < g.n; i++)
        {
          double li = X->lo[bi + i * s], ui = X->hi[bi + i * s];
          int64_t before = 0, fixed = 1;
          for (int64_t q = 0; q < g.n && fixed; q++)
            {
              if (q == i)
                continue;
              double lq = X->lo[bi + q * s], uq = X->hi[bi + q * s];
              /* surely before i, surely after i (ties go to the lower index) */
              int pre = desc ? (q < i ? lq >= ui : lq > ui) : (q < i ? uq <= li : uq < li);
              int post = desc ? (q < i ? uq < li : uq <= li) : (q < i ? lq > ui : lq >= ui);
              before += pre;
              fixed = pre || post;
            }
          if (fixed && before < m)
            src[2 * (bo + before * s)] = src[2 * (bo + before * s) + 1] = bi + i * s;
        }
    }
  /* one position per entry: exact copies, no charge */
  pick_step (st, src, cst, bsel);
done:
  free (src);
  free (bsel);
  cn_box_clear (&out);
  return rc;
}

/* The rules: the kind, the record's readers and the selection in the impl; the arms are shared. */

static const struct scan_impl cumsum_impl = { SCAN_SUM, 0, 0, cum_axis, NULL };
const struct cn_op_rule cn__rule_CUMSUM = { .op = CN_OP_CUMSUM, .impl = &cumsum_impl,
  .n_in = 1, .flags = CN_RULE_NEEDS_BOUNDS, .check = cum_check,
  .forward = scan_forward, .pullback = scan_pullback, .jvp = scan_jvp, .ibp = scan_ibp, .ibp_mpfi = scan_mpfi,
  .crown = cumsum_crown,
  .certs = CN__CERTS (CN__CERT_GRADIENT, CN__CERT_BOUNDS),
};

static const struct scan_impl cumprod_impl = { SCAN_PROD, 0, 0, cum_axis, NULL };
const struct cn_op_rule cn__rule_CUMPROD = { .op = CN_OP_CUMPROD, .impl = &cumprod_impl,
  .n_in = 1, .check = cum_check,
  .forward = scan_forward, .pullback = scan_pullback, .jvp = scan_jvp, .ibp = scan_ibp, .ibp_mpfi = scan_mpfi,
  .certs = CN__CERTS (CN__CERT_GRADIENT, CN__CERT_IBP),
};

static const struct scan_impl cummax_impl = { SCAN_RUN, 1, 0, cum_axis, NULL };
const struct cn_op_rule cn__rule_CUMMAX = { .op = CN_OP_CUMMAX, .impl = &cummax_impl,
  .n_in = 1, .flags = CN_RULE_NEEDS_BOUNDS, .check = cum_check, .crown = cummax_crown,
  .n_out = 2, .out_name = values_indices, .out_kind = value_index, .out_extra = index_extra,
  .forward = scan_forward, .pullback = scan_pullback, .jvp = scan_jvp, .ibp = scan_ibp, .ibp_mpfi = scan_mpfi,
  .certs = CN__CERTS (CN__CERT_GRADIENT, CN__CERT_BOUNDS),
};

static const struct scan_impl cummin_impl = { SCAN_RUN, 0, 0, cum_axis, NULL };
const struct cn_op_rule cn__rule_CUMMIN = { .op = CN_OP_CUMMIN, .impl = &cummin_impl,
  .n_in = 1, .flags = CN_RULE_NEEDS_BOUNDS, .check = cum_check, .crown = cummax_crown,
  .n_out = 2, .out_name = values_indices, .out_kind = value_index, .out_extra = index_extra,
  .forward = scan_forward, .pullback = scan_pullback, .jvp = scan_jvp, .ibp = scan_ibp, .ibp_mpfi = scan_mpfi,
  .certs = CN__CERTS (CN__CERT_GRADIENT, CN__CERT_BOUNDS),
};

static const struct scan_impl sort_impl = { SCAN_ORDER, 0, 0, sort_axis, sort_desc };
const struct cn_op_rule cn__rule_SORT = { .op = CN_OP_SORT, .impl = &sort_impl,
  .n_in = 1, .flags = CN_RULE_NEEDS_BOUNDS, .check = sort_check, .crown = order_crown,
  .n_out = 2, .out_name = values_indices, .out_kind = value_index, .out_extra = index_extra,
  .forward = scan_forward, .pullback = scan_pullback, .jvp = scan_jvp, .ibp = scan_ibp, .ibp_mpfi = scan_mpfi,
  .certs = CN__CERTS (CN__CERT_GRADIENT, CN__CERT_BOUNDS),
};

static const struct scan_impl topk_impl = { SCAN_ORDER, 0, 1, topk_axis, topk_desc };
const struct cn_op_rule cn__rule_TOPK = { .op = CN_OP_TOPK, .impl = &topk_impl,
  .n_in = 1, .flags = CN_RULE_NEEDS_BOUNDS, .check = topk_check, .crown = order_crown,
  .n_out = 2, .out_name = values_indices, .out_kind = value_index, .out_extra = index_extra,
  .forward = scan_forward, .pullback = scan_pullback, .jvp = scan_jvp, .ibp = scan_ibp, .ibp_mpfi = scan_mpfi,
  .certs = CN__CERTS (CN__CERT_GRADIENT, CN__CERT_BOUNDS),
};

static const struct scan_impl argmax_impl = { SCAN_ARG, 1, 0, arg_axis, NULL };
const struct cn_op_rule cn__rule_ARGMAX = { .op = CN_OP_ARGMAX, .impl = &argmax_impl,
  .n_in = 1, .in_kind = frozen_port, .check = arg_check,
  .forward = scan_forward, .pullback = scan_pullback, .jvp = scan_jvp, .ibp = scan_ibp, .ibp_mpfi = scan_mpfi,
  .certs = CN__CERTS (CN__CERT_IBP),
};

static const struct scan_impl argmin_impl = { SCAN_ARG, 0, 0, arg_axis, NULL };
const struct cn_op_rule cn__rule_ARGMIN = { .op = CN_OP_ARGMIN, .impl = &argmin_impl,
  .n_in = 1, .in_kind = frozen_port, .check = arg_check,
  .forward = scan_forward, .pullback = scan_pullback, .jvp = scan_jvp, .ibp = scan_ibp, .ibp_mpfi = scan_mpfi,
  .certs = CN__CERTS (CN__CERT_IBP),
};
