/* SPDX-License-Identifier: MIT */
/* src/ops/movement.c: reshape, permute, broadcast, pad, cat, flip, detach.
 *
 * Each of these operators reads every output entry o off one input entry, or writes the
 * padding value there:  v_o = u_{k(o)}[j(o)]  (or v_o = value for pad).  The arms share one
 * engine built on that map (k, j); each rule's impl (struct move_impl) says how its operator
 * fills the map and whether the map sums (broadcast), pads (pad) or reads several inputs (cat):
 *   forward  copies in the sort of the tensors, and the pad value rounded to nearest in that sort
 *            ((float) value for f32).  Exact otherwise: no arithmetic.
 *   IBP      [lo, hi]_o = [lo, hi] of u_{k(o)}[j(o)] (or [value, value]).  Exact, no rounding;
 *            infinite ends are copied as they are.
 *   CROWN    lam . v = sum_o lam_o u_{k(o)}[j(o)] + value sum_{o padded} lam_o, so
 *            lam_in[k][j] = sum_{o : (k(o), j(o)) = (k, j)} lam_o.
 *            reshape, permute, pad and cat hit every (k, j) at most once: a scatter of exact
 *            copies, no charge.
 *            broadcast hits input entry j from K = numel(out)/numel(in) outputs: the sums are
 *            computed in round-to-nearest, sequentially in output order, so lam_in = fl(lam A)
 *            with A the 0/1 matrix of the copies and inner length K; charged by
 *            cn__crown_charge_affine with w_up[o] = m_{j(o)} = (|A| m)[o] exactly (one 1 per
 *            row of A), m from cn__box_magnitude.  K = 1 is a plain copy (no charge).
 *            The pad value and the entries of an input without coefficients (a constant) are
 *            discharged over their boxes: the bias gets fl(sum_o lam_o sel_o), sel_o the box end
 *            that minimises lam_o x (the value itself for padding), and the charge its (G) error
 *            (cn__dot_err) plus the rounding of the addition (cn__crown_add_bias); an infinite end
 *            needed there makes the charge +inf.
 *   MPFI     mpfi_set of the mapped entry (mpfi_set_d of the pad value).
 *   pullback the tangent map is dv_o = du_{k(o)}[j(o)] (0 at padding: the pad value is a constant),
 *            its adjoint  g_in[k][j] += sum_{o : (k(o), j(o)) = (k, j)} g_o:  a scatter-add of the
 *            output's cotangent, in output order.  reshape, permute, pad and cat add each g_o to
 *            a different entry; broadcast sums the K = numel(out)/numel(in) copies of an entry.
 *   jvp      the tangent map itself: t_o = t_{k(o)}[j(o)], and t_o = 0 at padding or where input
 *            k(o) has no tangent (a constant).  Exact copies: the transpose of the pullback's
 *            scatter-add, with no rounding at all.
 *
 * reshape    the same elements in C order: j(o) = o.  Equal element counts.
 * permute    output axis a is input axis perm[a]: j(i_0..i_{r-1}) = sum_a i_a stride_in[perm[a]].
 * broadcast  numpy rules: trailing axes aligned, an input extent is 1 (index 0 is read) or the
 *            target's; leading target axes are new.
 * pad        constant padding, begin[a], end[a] >= 0; the value must be finite (the network is
 *            read over the reals, and an infinity or a NaN is not a real value).
 * cat        the inputs (at least one, equal ranks, equal extents off AXIS) one after the other
 *            along AXIS.
 * flip       torch.flip: the axes whose bit is set in cn_params_flip.axes reversed (bits past the
 *            rank refused): j(i) = sum_a (flipped ? extent_a - 1 - i_a : i_a) stride_in[a].  One-to-
 *            one, so IBP, CROWN (no charge), pullback and jvp are exact copies as for permute.
 * detach     the identity on values, j(o) = o (forward, IBP, MPFI and CROWN as reshape to the same
 *            shape: exact copies).  Its port is detached (the seed's "no value input"; the
 *            convention of PyTorch's detach): the pullback adds nothing (it exists because every
 *            rule has one) and the jvp writes 0, adjoint to each other.
 *
 * Sorts (the seed's Op.Element).  The data ports of reshape, permute, broadcast, pad, cat and flip
 * are element ports (CN_PORT_ELEMENT): the model's scalar (a value port), Booleans or integer
 * words of any width.  out_sort checks that the ports agree ("cat: input 1 holds i32 where input 0
 * holds bool") and returns their sort, so the output holds what the inputs hold.
 *   the model's scalar  everything above, unchanged.
 *   bool, i8 .. u64     forward copies the elements bit for bit (one byte per Boolean, the word's
 *            pattern), exact, in every evaluation sort.  pad's value must be an element of the
 *            sort: 0 or 1 for bool, an integer in [min, max] for a word sort (out_sort refuses
 *            anything else, naming the value and the sort; forward asserts it); it is then
 *            written exactly (false/true, the word).  IBP and MPFI: the boxes hold the numbers
 *            (a Boolean box [0, 1] is unknown), and the map moves them unchanged, so the arms
 *            above are exact for every element the boxes admit (pad's value is the exact double
 *            of its element).  CROWN: lam . v = sum_o lam_o u_{k(o)}[j(o)] + value (padding)
 *            holds of the numbers whatever their sort, so the arm above stays sound (no
 *            relaxation; it only moves coefficients, and a Boolean or word value never needs
 *            one); in practice the sweep meets such a node only between Boolean operators,
 *            whose arms discharge their own boxes.  No gradients: a node whose output is not
 *            the model's scalar receives no cotangent and no tangent (the pullback and jvp arms
 *            take binary64 tensors only).
 * The arms trust the shapes and sorts the graph builder checked (debug assertions state them). */
#include <config.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ops/ops_impl.h"

/* ---- shape checks --------------------------------------------------------------------- */

static cn_status
reshape_check (const struct cn_op_rule *rule, const void *p, int n_in, const cn_shape *const *in, cn_shape *out, cn_error *err)
{
  (void) rule;
  const cn_params_reshape *r = p;
  cn_status st;
  if (r == NULL)
    return cn_error_set (err, CN_EINVAL, "reshape: missing attributes");
  if (n_in != 1)
    return cn_error_set (err, CN_EINVAL, "reshape: takes 1 input, got %d", n_in);
  if ((st = cn__shape_valid ("reshape", "input", in[0], err)) != CN_OK
      || (st = cn__shape_valid ("reshape", "target shape", &r->shape, err)) != CN_OK)
    return st;
  if (cn_shape_numel (&r->shape) != cn_shape_numel (in[0]))
    {
      char a[128], b[128];
      return cn_error_set (err, CN_ESHAPE, "reshape: cannot reshape %s (%lld elements) to %s (%lld elements)",
                           cn_shape_format (in[0], a, sizeof a), (long long) cn_shape_numel (in[0]),
                           cn_shape_format (&r->shape, b, sizeof b), (long long) cn_shape_numel (&r->shape));
    }
  *out = cn__shape_clean (&r->shape);
  return CN_OK;
}

static cn_status
permute_check (const struct cn_op_rule *rule, const void *p, int n_in, const cn_shape *const *in, cn_shape *out, cn_error *err)
{
  (void) rule;
  const cn_params_permute *pm = p;
  cn_status st;
  if (pm == NULL)
    return cn_error_set (err, CN_EINVAL, "permute: missing attributes");
  if (n_in != 1)
    return cn_error_set (err, CN_EINVAL, "permute: takes 1 input, got %d", n_in);
  if ((st = cn__shape_valid ("permute", "input", in[0], err)) != CN_OK)
    return st;
  if (pm->rank != in[0]->rank)
    return cn_error_set (err, CN_EINVAL, "permute: permutation of rank %d for an input of rank %d", pm->rank,
                         in[0]->rank);
  int seen[CN_MAX_RANK] = { 0 };
  cn_shape o;
  memset (&o, 0, sizeof o);
  o.rank = pm->rank;
  for (int a = 0; a < pm->rank; a++)
    {
      int q = pm->perm[a];
      if (q < 0 || q >= pm->rank)
        return cn_error_set (err, CN_EINVAL, "permute: perm[%d] = %d is not an axis of rank %d", a, q, pm->rank);
      if (seen[q]++)
        return cn_error_set (err, CN_EINVAL, "permute: axis %d appears twice in the permutation", q);
      o.dim[a] = in[0]->dim[q];
    }
  *out = o;
  return CN_OK;
}

static cn_status
broadcast_check (const struct cn_op_rule *rule, const void *p, int n_in, const cn_shape *const *in, cn_shape *out, cn_error *err)
{
  (void) rule;
  const cn_params_broadcast *b = p;
  cn_status st;
  if (b == NULL)
    return cn_error_set (err, CN_EINVAL, "broadcast: missing attributes");
  if (n_in != 1)
    return cn_error_set (err, CN_EINVAL, "broadcast: takes 1 input, got %d", n_in);
  if ((st = cn__shape_valid ("broadcast", "input", in[0], err)) != CN_OK
      || (st = cn__shape_valid ("broadcast", "target shape", &b->shape, err)) != CN_OK)
    return st;
  char sa[128], sb[128];
  int r = in[0]->rank, R = b->shape.rank;
  if (r > R)
    return cn_error_set (err, CN_ESHAPE, "broadcast: cannot broadcast %s to the lower rank %s",
                         cn_shape_format (in[0], sa, sizeof sa), cn_shape_format (&b->shape, sb, sizeof sb));
  for (int a = 0; a < r; a++)
    {
      int64_t e = in[0]->dim[a], t = b->shape.dim[a + R - r];
      if (e != t && e != 1)
        return cn_error_set (err, CN_ESHAPE, "broadcast: cannot broadcast %s to %s (extent %lld against %lld)",
                             cn_shape_format (in[0], sa, sizeof sa), cn_shape_format (&b->shape, sb, sizeof sb),
                             (long long) e, (long long) t);
    }
  *out = cn__shape_clean (&b->shape);
  return CN_OK;
}

static cn_status
pad_check (const struct cn_op_rule *rule, const void *p, int n_in, const cn_shape *const *in, cn_shape *out, cn_error *err)
{
  (void) rule;
  const cn_params_pad *pd = p;
  cn_status st;
  if (pd == NULL)
    return cn_error_set (err, CN_EINVAL, "pad: missing attributes");
  if (n_in != 1)
    return cn_error_set (err, CN_EINVAL, "pad: takes 1 input, got %d", n_in);
  if ((st = cn__shape_valid ("pad", "input", in[0], err)) != CN_OK)
    return st;
  if (pd->rank != in[0]->rank)
    return cn_error_set (err, CN_EINVAL, "pad: padding of rank %d for an input of rank %d", pd->rank, in[0]->rank);
  if (!isfinite (pd->value))
    return cn_error_set (err, CN_EINVAL, "pad: the value %g is not finite", pd->value);
  cn_shape o;
  memset (&o, 0, sizeof o);
  o.rank = pd->rank;
  for (int a = 0; a < pd->rank; a++)
    {
      if (pd->begin[a] < 0)
        return cn_error_set (err, CN_EINVAL, "pad: negative padding %lld before axis %d", (long long) pd->begin[a], a);
      if (pd->end[a] < 0)
        return cn_error_set (err, CN_EINVAL, "pad: negative padding %lld after axis %d", (long long) pd->end[a], a);
      int64_t e = in[0]->dim[a];
      if (pd->begin[a] > INT64_MAX - e || pd->end[a] > INT64_MAX - e - pd->begin[a])
        return cn_error_set (err, CN_EINVAL, "pad: padded extent of axis %d overflows", a);
      o.dim[a] = e + pd->begin[a] + pd->end[a];
    }
  if (cn_shape_numel (&o) < 0)
    return cn_error_set (err, CN_EINVAL, "pad: the output has too many elements");
  *out = o;
  return CN_OK;
}

static cn_status
cat_check (const struct cn_op_rule *rule, const void *p, int n_in, const cn_shape *const *in, cn_shape *out, cn_error *err)
{
  (void) rule;
  const cn_params_cat *c = p;
  cn_status st;
  if (c == NULL)
    return cn_error_set (err, CN_EINVAL, "cat: missing attributes");
  if (n_in < 1)
    return cn_error_set (err, CN_EINVAL, "cat: takes at least 1 input, got %d", n_in);
  char what[32];
  for (int i = 0; i < n_in; i++)
    {
      snprintf (what, sizeof what, "input %d", i);
      if ((st = cn__shape_valid ("cat", what, in[i], err)) != CN_OK)
        return st;
    }
  int r = in[0]->rank;
  if (r == 0)
    return cn_error_set (err, CN_EINVAL, "cat: cannot concatenate rank-0 inputs");
  if (c->axis < 0 || c->axis >= r)
    return cn_error_set (err, CN_EINVAL, "cat: axis %d out of range for rank %d", c->axis, r);
  cn_shape o = cn__shape_clean (in[0]);
  for (int i = 1; i < n_in; i++)
    {
      char sa[128], sb[128];
      if (in[i]->rank != r)
        return cn_error_set (err, CN_ESHAPE, "cat: input %d has rank %d, input 0 rank %d", i, in[i]->rank, r);
      for (int a = 0; a < r; a++)
        if (a != c->axis && in[i]->dim[a] != in[0]->dim[a])
          return cn_error_set (err, CN_ESHAPE, "cat: input shapes %s and %s differ on axis %d",
                               cn_shape_format (in[0], sa, sizeof sa), cn_shape_format (in[i], sb, sizeof sb), a);
      if (in[i]->dim[c->axis] > INT64_MAX - o.dim[c->axis])
        return cn_error_set (err, CN_EINVAL, "cat: the extent of axis %d overflows", c->axis);
      o.dim[c->axis] += in[i]->dim[c->axis];
    }
  if (cn_shape_numel (&o) < 0)
    return cn_error_set (err, CN_EINVAL, "cat: the output has too many elements");
  *out = o;
  return CN_OK;
}

/* ---- sorts ---------------------------------------------------------------------------- */


/* Whether V is an element of the sort T (Boolean or integer words): 0 or 1 for bool, an integer
 * in [min, max] for a word sort.  The test is exact: min is a double, and V < max + 1 with
 * max + 1 a power of two (2^63 and 2^64 for the 64-bit sorts, whose max is not a double). */
static int
element_of (cn_dtype t, double v)
{
  if (t == CN_DTYPE_BOOL)
    return v == 0 || v == 1;
  double lim = t == CN_DTYPE_I64 ? 0x1p63 : t == CN_DTYPE_U64 ? 0x1p64 : cn__dtype_max (t) + 1;
  return v >= cn__dtype_min (t) && v < lim && v == floor (v);
}

static cn_status
pad_value_ok (cn_dtype t, double v, cn_error *err)
{
  if (cn_dtype_is_float (t) || element_of (t, v))
    return CN_OK;
  if (t == CN_DTYPE_BOOL)
    return cn_error_set (err, CN_EINVAL, "pad: the value %.17g is not a Boolean (0 or 1) for a bool input", v);
  return cn_error_set (err, CN_EINVAL, "pad: the value %.17g is not an %s word", v, cn__sort_name (t));
}

/* reshape, permute, broadcast, cat, flip: the element ports agree, and the output holds their
 * sort. */
static cn_status
move_out_sort (const struct cn_op_rule *rule, const void *p, int n_in, const cn_dtype *in, cn_dtype *out,
               cn_error *err)
{
  (void) p;
  return cn__element_sort (cn_op_name (rule->op), n_in, in, out, err);
}

/* pad: the element ports agree, and a Boolean or word output needs a value of its sort. */
static cn_status
pad_out_sort (const struct cn_op_rule *rule, const void *p, int n_in, const cn_dtype *in, cn_dtype *out, cn_error *err)
{
  (void) rule;
  const cn_params_pad *pd = p;
  if (pd == NULL)
    return cn_error_set (err, CN_EINVAL, "pad: missing attributes");
  cn_status st = cn__element_sort ("pad", n_in, in, out, err);
  if (st != CN_OK)
    return st;
  return pad_value_ok (*out, pd->value, err);
}

/* ---- the map -------------------------------------------------------------------------- */

/* out[o] = input K[o] (0 if K is NULL) at entry J[o], or the pad value where J[o] < 0. */
struct movemap
{
  int64_t n;
  int *k;
  int64_t *j;
  double value;
  int sums;        /* several outputs may read one input entry (broadcast) */
};

/* The family's data of one operator, its rule's impl: every arm below is shared, and reads from
 * here how the operator maps its output entries. */
struct move_impl
{
  /* Writes J[o] (and K[o] when the map has it) for every output entry o of node NV. */
  void (*fill) (const cn_node_view *nv, struct movemap *m);
  int sums;        /* several outputs may read one input entry (broadcast) */
  int padded;      /* entries no input reads hold the attribute's value (pad) */
  int inputs;      /* several inputs, K[o] says which one entry o reads (cat) */
};

/* The impl of node NV's rule. */
static inline const struct move_impl *
move_impl_of (const cn_node_view *nv)
{
  return nv->rule->impl;
}

/* Walks the output multi-index IDX (rank R, extents DIM) to the next entry in C order. */
static inline void
next_index (int r, const int64_t *dim, int64_t *idx)
{
  for (int a = r - 1; a >= 0; a--)
    {
      if (++idx[a] < dim[a])
        return;
      idx[a] = 0;
    }
}

/* reshape, detach: the same entries in C order, j(o) = o. */
static void
identity_fill (const cn_node_view *nv, struct movemap *m)
{
  (void) nv;
  for (int64_t o = 0; o < m->n; o++)
    m->j[o] = o;
}

/* permute: output axis a reads input axis perm[a]. */
static void
permute_fill (const cn_node_view *nv, struct movemap *m)
{
  const cn_shape *os = nv->out_shape, *is = nv->in_shape[0];
  const cn_params_permute *pm = nv->params;
  int64_t idx[CN_MAX_RANK] = { 0 };
  int64_t istr[CN_MAX_RANK];
  cn__strides (is, istr);
  for (int64_t o = 0; o < m->n; o++)
    {
      int64_t j = 0;
      for (int a = 0; a < os->rank; a++)
        j += idx[a] * istr[pm->perm[a]];
      m->j[o] = j;
      next_index (os->rank, os->dim, idx);
    }
}

/* broadcast: trailing axes aligned, an input axis of extent 1 read at index 0. */
static void
broadcast_fill (const cn_node_view *nv, struct movemap *m)
{
  const cn_shape *os = nv->out_shape, *is = nv->in_shape[0];
  int64_t idx[CN_MAX_RANK] = { 0 };
  int64_t istr[CN_MAX_RANK];
  cn__strides (is, istr);
  int off = os->rank - is->rank;
  for (int64_t o = 0; o < m->n; o++)
    {
      int64_t j = 0;
      for (int a = off; a < os->rank; a++)
        if (is->dim[a - off] != 1)
          j += idx[a] * istr[a - off];
      m->j[o] = j;
      next_index (os->rank, os->dim, idx);
    }
}

/* pad: the entry begin[a] before on every axis, or -1 (the pad value) outside the input. */
static void
pad_fill (const cn_node_view *nv, struct movemap *m)
{
  const cn_shape *os = nv->out_shape, *is = nv->in_shape[0];
  const cn_params_pad *pd = nv->params;
  int64_t idx[CN_MAX_RANK] = { 0 };
  int64_t istr[CN_MAX_RANK];
  cn__strides (is, istr);
  for (int64_t o = 0; o < m->n; o++)
    {
      int64_t j = 0;
      for (int a = 0; a < os->rank; a++)
        {
          int64_t q = idx[a] - pd->begin[a];
          if (q < 0 || q >= is->dim[a])
            {
              j = -1;
              break;
            }
          j += q * istr[a];
        }
      m->j[o] = j;
      next_index (os->rank, os->dim, idx);
    }
}

/* cat: the input whose stretch of AXIS holds the output's index there, at the rest of it. */
static void
cat_fill (const cn_node_view *nv, struct movemap *m)
{
  const cn_shape *os = nv->out_shape;
  int64_t idx[CN_MAX_RANK] = { 0 };
  int ax = ((const cn_params_cat *) nv->params)->axis;
  for (int64_t o = 0; o < m->n; o++)
    {
      int64_t q = idx[ax];
      int k = 0;
      while (k < nv->n_in - 1 && q >= nv->in_shape[k]->dim[ax])
        q -= nv->in_shape[k++]->dim[ax];
      /* now q < extent of input k on AXIS (the output's extent is the sum) */
      int64_t j = 0, acc = 1;
      const cn_shape *ks = nv->in_shape[k];
      for (int a = ks->rank - 1; a >= 0; a--)
        {
          j += (a == ax ? q : idx[a]) * acc;
          acc *= ks->dim[a];
        }
      m->k[o] = k;
      m->j[o] = j;
      next_index (os->rank, os->dim, idx);
    }
}

/* flip: the axes of the mask read backwards. */
static void
flip_fill (const cn_node_view *nv, struct movemap *m)
{
  const cn_shape *os = nv->out_shape, *is = nv->in_shape[0];
  uint32_t axes = ((const cn_params_flip *) nv->params)->axes;
  int64_t idx[CN_MAX_RANK] = { 0 };
  int64_t istr[CN_MAX_RANK];
  cn__strides (is, istr);
  for (int64_t o = 0; o < m->n; o++)
    {
      int64_t j = 0;
      for (int a = 0; a < os->rank; a++)
        j += ((axes >> a) & 1u ? os->dim[a] - 1 - idx[a] : idx[a]) * istr[a];
      m->j[o] = j;
      next_index (os->rank, os->dim, idx);
    }
}

static void
map_clear (struct movemap *m)
{
  free (m->k);
  free (m->j);
  m->k = NULL;
  m->j = NULL;
}

/* The pad value of node NV: the attribute of pad, 0 (never read) for the others. */
static double
move_value (const cn_node_view *nv)
{
  return move_impl_of (nv)->padded ? ((const cn_params_pad *) nv->params)->value : 0;
}

static cn_status
map_build (const char *opn, const cn_node_view *nv, struct movemap *m, cn_error *err)
{
  const struct move_impl *d = move_impl_of (nv);
  memset (m, 0, sizeof *m);
  m->n = cn__numel (nv->out_shape);
  m->sums = d->sums;
  if (d->padded)
    m->value = move_value (nv);
  m->j = malloc ((size_t) (m->n ? m->n : 1) * sizeof *m->j);
  if (d->inputs)
    m->k = malloc ((size_t) (m->n ? m->n : 1) * sizeof *m->k);
  if (m->j == NULL || (d->inputs && m->k == NULL))
    {
      map_clear (m);
      return cn_error_set (err, CN_ENOMEM, "%s: out of memory (node '%s')", opn, nv->name);
    }
  d->fill (nv, m);
  return CN_OK;
}

/* ---- the arms ------------------------------------------------------------------------- */

/* Copies the entries of the map in the element type T: y[o] = the mapped input entry, or FILL. */
#define MOVE_COPY(T)                                                                               \
  do                                                                                               \
    {                                                                                              \
      T *y_ = out->data, f_;                                                                       \
      memcpy (&f_, fill, sizeof f_);                                                               \
      for (int64_t o = 0; o < n; o++)                                                              \
        y_[o] = m.j[o] < 0 ? f_ : ((const T *) in[m.k ? m.k[o] : 0]->data)[m.j[o]];                \
    }                                                                                              \
  while (0)

static cn_status
move_forward (const cn_node_view *nv, const cn_tensor *const *in, cn_tensor *out, cn_error *err)
{
  const char *opn = cn_op_name (nv->op);
  int64_t n = cn__numel (nv->out_shape);
  cn_dtype t = out->dtype;
  CN__ASSERTD ((unsigned) t < CN_DTYPE_COUNT && cn_tensor_numel (out) == n);
  for (int i = 0; i < nv->n_in; i++)
    CN__ASSERTD (in[i]->dtype == t && cn_tensor_numel (in[i]) == cn__numel (nv->in_shape[i]));
  /* the pad value as an element of T: (float) value for f32, else exact (out_sort checked that
   * it is an element of T) */
  unsigned char fill[8] = { 0 };
  double v = move_value (nv);
  CN__ASSERTD (cn_dtype_is_float (t) || element_of (t, v));
  cn_status st;
  switch (t)
    {
    case CN_DTYPE_F64: { double e = v; memcpy (fill, &e, sizeof e); break; }
    case CN_DTYPE_F32: { float e = (float) v; memcpy (fill, &e, sizeof e); break; }
    case CN_DTYPE_BOOL: { uint8_t e = v != 0; memcpy (fill, &e, sizeof e); break; }
    case CN_DTYPE_I8: { int8_t e = (int8_t) v; memcpy (fill, &e, sizeof e); break; }
    case CN_DTYPE_I16: { int16_t e = (int16_t) v; memcpy (fill, &e, sizeof e); break; }
    case CN_DTYPE_I32: { int32_t e = (int32_t) v; memcpy (fill, &e, sizeof e); break; }
    case CN_DTYPE_I64: { int64_t e = (int64_t) v; memcpy (fill, &e, sizeof e); break; }
    case CN_DTYPE_U8: { uint8_t e = (uint8_t) v; memcpy (fill, &e, sizeof e); break; }
    case CN_DTYPE_U16: { uint16_t e = (uint16_t) v; memcpy (fill, &e, sizeof e); break; }
    case CN_DTYPE_U32: { uint32_t e = (uint32_t) v; memcpy (fill, &e, sizeof e); break; }
    default: { uint64_t e = (uint64_t) v; memcpy (fill, &e, sizeof e); break; }
    }
  /* now FILL holds the pad value as an element of T (each conversion exact: V is an element of
   * the word sorts, pad_value_ok in out_sort) */
  struct movemap m;
  if ((st = map_build (opn, nv, &m, err)) != CN_OK)
    return st;
  switch (t)
    {
    case CN_DTYPE_F64: MOVE_COPY (double); break;
    case CN_DTYPE_F32: MOVE_COPY (float); break;
    default:
      /* Booleans and words: their patterns, through the unsigned type of their width */
      switch (cn_dtype_size (t))
        {
        case 1: MOVE_COPY (uint8_t); break;
        case 2: MOVE_COPY (uint16_t); break;
        case 4: MOVE_COPY (uint32_t); break;
        default: MOVE_COPY (uint64_t); break;
        }
      break;
    }
  /* now every output entry is a copy of the input entry the map names, or the pad value */
  map_clear (&m);
  return CN_OK;
}

static cn_status
move_ibp (const cn_node_view *nv, const cn_box *const *in, cn_box *out, cn_error *err)
{
  int64_t n = cn__numel (nv->out_shape);
  CN__ASSERTD (out->n == n);
  for (int i = 0; i < nv->n_in; i++)
    CN__ASSERTD (in[i]->n == cn__numel (nv->in_shape[i]));
  struct movemap m;
  cn_status st = map_build (cn_op_name (nv->op), nv, &m, err);
  if (st != CN_OK)
    return st;
  for (int64_t o = 0; o < n; o++)
    {
      if (m.j[o] < 0)
        {
          out->lo[o] = out->hi[o] = m.value;
          continue;
        }
      const cn_box *b = in[m.k ? m.k[o] : 0];
      out->lo[o] = b->lo[m.j[o]];
      out->hi[o] = b->hi[m.j[o]];
    }
  /* now out is the image of the input boxes under the map, exactly */
  map_clear (&m);
  return CN_OK;
}

static cn_status
move_mpfi (const cn_node_view *nv, const cn_mpfi_vec *const *in, cn_mpfi_vec *out, cn_error *err)
{
  int64_t n = cn__numel (nv->out_shape);
  CN__ASSERTD (out->n == n);
  for (int i = 0; i < nv->n_in; i++)
    CN__ASSERTD (in[i]->n == cn__numel (nv->in_shape[i]));
  struct movemap m;
  cn_status st = map_build (cn_op_name (nv->op), nv, &m, err);
  if (st != CN_OK)
    return st;
  for (int64_t o = 0; o < n; o++)
    if (m.j[o] < 0)
      mpfi_set_d (out->v[o], m.value);
    else
      mpfi_set (out->v[o], in[m.k ? m.k[o] : 0]->v[m.j[o]]);
  map_clear (&m);
  return CN_OK;
}

/* The checker's step (cn_proof_step): output entry o is input entry j of input k (the map), or
 * the fill value; so D_k[s, j] += L[s, o], and a constant's or the fill's L[s, o] x into the bias
 * (equality: data movement computes nothing). */
static cn_status
move_proof (const cn_proof_step *st, cn_error *err)
{
  const cn_node_view *nv = st->nv;
  int64_t n = cn__numel (nv->out_shape);
  struct movemap m;
  cn_status status = map_build (cn_op_name (nv->op), nv, &m, err);
  if (status != CN_OK)
    return status;
  for (int64_t s = 0; s < st->rows; s++)
    for (int64_t o = 0; o < n; o++)
      {
        mpfi_ptr l = st->lam_out[s * n + o];
        if (mpfi_is_zero (l))
          continue;
        int k = m.k ? m.k[o] : 0;
        int64_t j = m.j[o];
        if (j >= 0 && st->lam_in[k] != NULL)
          {
            mpfi_ptr d = st->lam_in[k][s * st->in_box[k]->n + j];
            mpfi_add (d, d, l);
          }
        else if (j >= 0)
          cn__proof_add_product (st->bias[s], l, st->in_box[k]->v[j], st->tmp);
        else
          {
            mpfi_mul_d (st->tmp, l, m.value);
            mpfi_add (st->bias[s], st->bias[s], st->tmp);
          }
      }
  map_clear (&m);
  return CN_OK;
}

static cn_status
move_crown (const cn_crown_step *st, cn_error *err)
{
  const cn_node_view *nv = st->nv;
  const char *opn = cn_op_name (nv->op);
  int64_t n = cn__numel (nv->out_shape);
  for (int i = 0; i < nv->n_in; i++)
    CN__ASSERTD (st->in_box[i]->n == cn__numel (nv->in_shape[i]));
  struct movemap m;
  cn_status status = map_build (opn, nv, &m, err);
  if (status != CN_OK)
    return status;
#pragma omp parallel for num_threads(st->threads > 0 ? st->threads : 1) if (st->rows * n > 65536)
  for (int64_t s = 0; s < st->rows; s++)
    {
      const double *lo = st->lam_out + s * n;
      double d = 0, t = 0;
      int64_t cnt = 0;
      int unbounded = 0;
      for (int64_t o = 0; o < n; o++)
        {
          double lam = lo[o];
          if (lam == 0)
            continue;
          int k = m.k ? m.k[o] : 0;
          int64_t j = m.j[o];
          double x;
          if (j >= 0 && st->lam_in[k] != NULL)
            {
              int64_t nk = st->in_box[k]->n;
              st->lam_in[k][s * nk + j] += lam;
              continue;
            }
          if (j < 0)
            x = m.value;
          else
            x = lam > 0 ? st->in_box[k]->lo[j] : st->in_box[k]->hi[j];
          if (x == 0)
            continue;
          if (isinf (x))
            unbounded = 1;
          d += lam * x;
          t += fabs (lam) * fabs (x);
          cnt++;
        }
      /* now every lam_in entry is the RN sum, in output order, of the lam_o that read it (a
       * plain copy unless m.sums); d = fl(sum lam_o sel_o) over the padded and constant
       * entries, |d - sum lam_o sel_o| <= cn__dot_err (t, cnt) by (G) */
      cn__crown_add_sum (st, s, d, t, cnt, unbounded);
    }
  if (m.sums && st->lam_in[0] != NULL)
    {
      int64_t ni = st->in_box[0]->n;
      int64_t K = ni > 0 ? n / ni : 0;
      if (K > 1)
        {
          double *mag = malloc ((size_t) ni * sizeof *mag);
          double *w = malloc ((size_t) (n ? n : 1) * sizeof *w);
          if (mag == NULL || w == NULL)
            {
              free (mag);
              free (w);
              map_clear (&m);
              return cn_error_set (err, CN_ENOMEM, "%s: out of memory (node '%s')", opn, nv->name);
            }
          double m1 = cn__box_magnitude (st->in_box[0], mag);
          for (int64_t o = 0; o < n; o++)
            w[o] = mag[m.j[o]];
          /* now w[o] = (|A| m)[o] exactly, A the 0/1 copy matrix */
          cn__crown_charge_affine (st, w, K, m1);
          free (mag);
          free (w);
        }
    }
  map_clear (&m);
  return CN_OK;
}

static cn_status
move_pullback (const cn_node_view *nv, const cn_tensor *const *in, const cn_tensor *out, const double *g_out,
               double *const *g_in, cn_error *err)
{
  int64_t n = cn__numel (nv->out_shape);
  CN__ASSERTD (cn__diff_shapes_match (nv, in, out));
  int any = 0;
  for (int i = 0; i < nv->n_in; i++)
    any |= g_in[i] != NULL;
  if (!any)
    return CN_OK;
  struct movemap m;
  cn_status st = map_build (cn_op_name (nv->op), nv, &m, err);
  if (st != CN_OK)
    return st;
  for (int64_t o = 0; o < n; o++)
    {
      double *gk = g_in[m.k ? m.k[o] : 0];
      if (m.j[o] >= 0 && gk != NULL)
        gk[m.j[o]] += g_out[o];
    }
  /* now g_in[k][j] has received the sum, in output order, of the g_o that read (k, j) */
  map_clear (&m);
  return CN_OK;
}

static cn_status
move_jvp (const cn_node_view *nv, const cn_tensor *const *in, const cn_tensor *out, const double *const *t_in,
          double *t_out, cn_error *err)
{
  int64_t n = cn__numel (nv->out_shape);
  CN__ASSERTD (cn__diff_shapes_match (nv, in, out));
  struct movemap m;
  cn_status st = map_build (cn_op_name (nv->op), nv, &m, err);
  if (st != CN_OK)
    return st;
  for (int64_t o = 0; o < n; o++)
    {
      const double *tk = t_in[m.k ? m.k[o] : 0];
      t_out[o] = m.j[o] >= 0 && tk != NULL ? tk[m.j[o]] : 0;
    }
  /* now t_out[o] is the tangent of the entry o reads, or 0 (padding, constant input) */
  map_clear (&m);
  return CN_OK;
}

/* ---- the operators -------------------------------------------------------------------- */

static cn_status
flip_check (const struct cn_op_rule *rule, const void *p, int n_in, const cn_shape *const *in, cn_shape *out, cn_error *err)
{
  (void) rule;
  const cn_params_flip *f = p;
  cn_status st;
  if (f == NULL)
    return cn_error_set (err, CN_EINVAL, "flip: missing attributes");
  if (n_in != 1)
    return cn_error_set (err, CN_EINVAL, "flip: takes 1 input, got %d", n_in);
  if ((st = cn__shape_valid ("flip", "input", in[0], err)) != CN_OK)
    return st;
  if (in[0]->rank < 32 && (f->axes >> in[0]->rank) != 0)
    return cn_error_set (err, CN_EINVAL, "flip: axes mask 0x%x names an axis past rank %d", (unsigned) f->axes,
                         in[0]->rank);
  *out = cn__shape_clean (in[0]);
  return CN_OK;
}

static cn_status
detach_check (const struct cn_op_rule *rule, const void *p, int n_in, const cn_shape *const *in, cn_shape *out, cn_error *err)
{
  (void) rule;
  (void) p;
  cn_status st;
  if (n_in != 1)
    return cn_error_set (err, CN_EINVAL, "detach: takes 1 input, got %d", n_in);
  if ((st = cn__shape_valid ("detach", "input", in[0], err)) != CN_OK)
    return st;
  *out = cn__shape_clean (in[0]);
  return CN_OK;
}

/* detach: no gradient through the detached port. */
static cn_status
detach_pullback (const cn_node_view *nv, const cn_tensor *const *in, const cn_tensor *out, const double *g_out,
                 double *const *g_in, cn_error *err)
{
  (void) g_out;
  (void) g_in;
  (void) err;
  CN__ASSERTD (cn__diff_shapes_match (nv, in, out));
  /* nothing to add: the port is detached */
  return CN_OK;
}

/* detach: the tangent is 0 (the convention of PyTorch's detach in forward mode). */
static cn_status
detach_jvp (const cn_node_view *nv, const cn_tensor *const *in, const cn_tensor *out, const double *const *t_in,
            double *t_out, cn_error *err)
{
  (void) t_in;
  (void) err;
  CN__ASSERTD (cn__diff_shapes_match (nv, in, out));
  int64_t n = cn_tensor_numel (out);
  for (int64_t o = 0; o < n; o++)
    t_out[o] = 0;
  return CN_OK;
}

static const cn_port_kind detach_ports[1] = { CN_PORT_DETACHED };
/* one element port (cat: every port, a variadic rule's ports taking in_kind[0]) */
static const cn_port_kind element_ports[1] = { CN_PORT_ELEMENT };

/* Every rule points at the shared arms; what differs is in its impl. */
static const struct move_impl flip_impl = { .fill = flip_fill };

const struct cn_op_rule cn__rule_FLIP = { .op = CN_OP_FLIP, .impl = &flip_impl,
  .n_in = 1, .in_kind = element_ports, .check = flip_check,
  .out_sort = move_out_sort, .forward = move_forward, .pullback = move_pullback, .jvp = move_jvp, .ibp = move_ibp,
  .ibp_mpfi = move_mpfi, .crown = move_crown, .proof = move_proof, .roundoff32 = cn__roundoff32_exact,
  .certs = CN__CERTS (CN__CERT_GRADIENT, CN__CERT_BOUNDS, CN__CERT_CHECKER,
                      CN__CERT_ROUNDOFF32 (CN__ROUNDOFF32_EXACT_WHY)),
};

/* detach moves as reshape does; its own pullback and jvp send nothing through the port. */
static const struct move_impl detach_impl = { .fill = identity_fill };

const struct cn_op_rule cn__rule_DETACH = { .op = CN_OP_DETACH, .impl = &detach_impl,
  .n_in = 1, .in_kind = detach_ports, .check = detach_check, .forward = move_forward,
  .pullback = detach_pullback, .jvp = detach_jvp, .ibp = move_ibp, .ibp_mpfi = move_mpfi, .crown = move_crown, .proof = move_proof,
  .roundoff32 = cn__roundoff32_exact,
  .certs = CN__CERTS (CN__CERT_BOUNDS, CN__CERT_CHECKER, CN__CERT_ROUNDOFF32 (CN__ROUNDOFF32_EXACT_WHY),
                      CN__CERT_CONVENTION (CN_CERT_ARM_PULLBACK, "pullback_detach",
                                           "detach(x) = x forward, and the pullback sends nothing to x: the gradient "
                                           "of x is 0 by convention (stop-gradient), not the derivative 1",
                                           NAN, 0.0, 0.0),
                      CN__CERT_CONVENTION (CN_CERT_ARM_JVP, "jvp_detach",
                                           "the tangent of detach(x) is 0 by convention, whatever the tangent of x",
                                           NAN, 0.0, 0.0)),
};

static const struct move_impl reshape_impl = { .fill = identity_fill };

const struct cn_op_rule cn__rule_RESHAPE = { .op = CN_OP_RESHAPE, .impl = &reshape_impl,
  .n_in = 1, .in_kind = element_ports, .check = reshape_check,
  .out_sort = move_out_sort, .forward = move_forward, .pullback = move_pullback, .jvp = move_jvp, .ibp = move_ibp,
  .ibp_mpfi = move_mpfi, .crown = move_crown, .proof = move_proof, .roundoff32 = cn__roundoff32_exact,
  .certs = CN__CERTS (CN__CERT_GRADIENT, CN__CERT_BOUNDS, CN__CERT_CHECKER,
                      CN__CERT_ROUNDOFF32 (CN__ROUNDOFF32_EXACT_WHY)),
};

static const struct move_impl permute_impl = { .fill = permute_fill };

const struct cn_op_rule cn__rule_PERMUTE = { .op = CN_OP_PERMUTE, .impl = &permute_impl,
  .n_in = 1, .in_kind = element_ports, .check = permute_check,
  .out_sort = move_out_sort, .forward = move_forward, .pullback = move_pullback, .jvp = move_jvp, .ibp = move_ibp,
  .ibp_mpfi = move_mpfi, .crown = move_crown, .proof = move_proof, .roundoff32 = cn__roundoff32_exact,
  .certs = CN__CERTS (CN__CERT_GRADIENT, CN__CERT_BOUNDS, CN__CERT_CHECKER,
                      CN__CERT_ROUNDOFF32 (CN__ROUNDOFF32_EXACT_WHY)),
};

static const struct move_impl broadcast_impl = { .fill = broadcast_fill, .sums = 1 };

const struct cn_op_rule cn__rule_BROADCAST = { .op = CN_OP_BROADCAST, .impl = &broadcast_impl,
  .n_in = 1, .in_kind = element_ports, .check = broadcast_check,
  .out_sort = move_out_sort, .forward = move_forward, .pullback = move_pullback, .jvp = move_jvp, .ibp = move_ibp,
  .ibp_mpfi = move_mpfi, .crown = move_crown, .proof = move_proof, .roundoff32 = cn__roundoff32_exact,
  .certs = CN__CERTS (CN__CERT_GRADIENT, CN__CERT_BOUNDS, CN__CERT_CHECKER,
                      CN__CERT_ROUNDOFF32 (CN__ROUNDOFF32_EXACT_WHY)),
};

/* pad in binary32: the entries are input words or the pad value, stored as a binary32 word by
 * the deployed network; a value that is no binary32 word is another network (refused). */
static cn_status
pad_roundoff32 (const cn_node_view *nv, const cn_box *const *in, const cn_box *out, double *e, cn_error *err)
{
  const cn_params_pad *p = nv->params;
  if (!cn__is_b32 (p->value))
    return cn_error_set (err, CN_EUNSUPPORTED, "pad: the value %.17g is no binary32 word (node '%s')", p->value,
                         cn__node_name (nv));
  return cn__roundoff32_exact (nv, in, out, e, err);
}

static const struct move_impl pad_impl = { .fill = pad_fill, .padded = 1 };

const struct cn_op_rule cn__rule_PAD = { .op = CN_OP_PAD, .impl = &pad_impl,
  .n_in = 1, .in_kind = element_ports, .check = pad_check,
  .out_sort = pad_out_sort, .forward = move_forward, .pullback = move_pullback, .jvp = move_jvp, .ibp = move_ibp,
  .ibp_mpfi = move_mpfi, .crown = move_crown, .proof = move_proof, .roundoff32 = pad_roundoff32,
  .certs = CN__CERTS (CN__CERT_GRADIENT, CN__CERT_BOUNDS, CN__CERT_CHECKER,
                      CN__CERT_ROUNDOFF32 ("pad copies input words and writes its value, which must be a binary32 "
                                           "word (0 error)")),
};

static const struct move_impl cat_impl = { .fill = cat_fill, .inputs = 1 };

const struct cn_op_rule cn__rule_CAT = { .op = CN_OP_CAT, .impl = &cat_impl,
  .n_in = -1, .in_kind = element_ports, .check = cat_check,
  .out_sort = move_out_sort, .forward = move_forward, .pullback = move_pullback, .jvp = move_jvp, .ibp = move_ibp,
  .ibp_mpfi = move_mpfi, .crown = move_crown, .proof = move_proof, .roundoff32 = cn__roundoff32_exact,
  .certs = CN__CERTS (CN__CERT_GRADIENT, CN__CERT_BOUNDS, CN__CERT_CHECKER,
                      CN__CERT_ROUNDOFF32 (CN__ROUNDOFF32_EXACT_WHY)),
};
