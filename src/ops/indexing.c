/* SPDX-License-Identifier: MIT */
/* src/ops/indexing.c: gather, scatter, indexAt, embedding (slice and indices, whose map the
 * attributes fix, are in src/ops/slice.c).
 *
 * Index ports (gather's, scatter's and indexAt's input 1, embedding's input 0) hold integers as
 * floats in a float evaluation.  Forward, pullback and jvp validate them: an entry that is not an
 * integer in [0, bound) is CN_EINVAL naming the operator and node.  IBP and MPFI read the index
 * box: a point box is the exact index; a wider box gives the hull over the integers it holds
 * (gather, indexAt, embedding; CN_ENUMERIC if it holds none or reaches past [0, bound));
 * scatter and every CROWN arm need point indices (CN_EUNSUPPORTED otherwise).  Index ports
 * receive no gradient and carry no tangent.
 *
 * gather     torch.gather (ONNX GatherElements), cn_params_gather: x [S], index [I] of x's rank,
 *            I[a] <= S[a] off AXIS; out[i] = x[i with i_axis := index[i]].  One term per output.
 * indexAt    ONNX GatherND without batch axes: x [S], index [P..., r], 1 <= r <= rank; out
 *            [P..., S_r...], out[p, t] = x[index[p, 0], ..., index[p, r-1], t].
 * embedding  torch.nn.functional.embedding(indices, weight) (the port order is torch's):
 *            indices [P...], weight [V, D] -> [P..., D], out[p, d] = weight[indices[p], d]; no
 *            padding_idx, no max_norm.
 * scatter    torch.scatter / scatter_reduce with include_self (ONNX ScatterElements),
 *            cn_params_scatter: x [S], index [I], src [I] (src must have the index's shape);
 *            out = x, then for every index position i in ROW-MAJOR order of the index tensor
 *            out[t(i)] := fold(out[t(i)], src[i]): REPLACE (the last write wins), SUM, PROD, MAX,
 *            MIN (the IEEE 754-2019 maximum/minimum: NaN propagates, +0 > -0).
 *   These four share one map (struct pick): output o is the left fold of its terms (input k,
 *   entry j), one term for gather/indexAt/embedding/REPLACE, x[t] then the src writes for the
 *   reductions.
 *   forward  the fold in the tensors' sort, left to right.  Exact copies except SUM and PROD,
 *            rounded once per fold step in the tensor's sort (as torch's sequential kernel).
 *   IBP      copies: the box entry (the hull of the candidates for a non-point index box);
 *            SUM: [down(lo + l), up(hi + h)] per step; PROD: the four corner products, 0 times
 *            an infinite end read as 0, each rounded outwards; MAX/MIN: endpointwise, exact.
 *            An inf - inf end becomes -inf / +inf (nothing known), never NaN.
 *   MPFI     mpfi_set / mpfi_union (hull), mpfi_add, mpfi_mul, endpointwise mpfr_max/min.
 *   CROWN    copies and SUM only (PROD, MAX, MIN: CN_EUNSUPPORTED): lam_in[k][j] = sum of the
 *            lam_o of the terms reading (k, j).  Scatter reads each entry once: exact scatters, no
 *            charge.  Gather/indexAt/embedding may read an entry K > 1 times: the RN sums are
 *            charged with cn__crown_charge_affine (w[o] = m_{j(o)}, inner length K), as broadcast.
 *   pullback g_in[k][j] += g_o times the partial derivative: 1 for copies and SUM; the product of
 *            the other terms for PROD; for MAX/MIN, 1/ties on each term equal to the result (the
 *            gradient shared evenly among the tied entries, torch's scatter_reduce amax rule; a
 *            NaN result ties with the NaN terms).
 *   jvp      the same partial derivatives times the tangents, summed (MAX/MIN: the mean over the
 *            tied terms), the transpose of the pullback.
 * The four rules share every arm; what differs lives in each rule's impl (struct pick_impl):
 * which input is the index port, how the operator builds its map, whether its element ports may
 * hold Booleans and words, and whether the arms read that sort from the view.
 *
 * Sorts (the seed's Op.Element).  gather's x and scatter's x and src are element ports
 * (CN_PORT_ELEMENT): the model's scalar (value ports), Booleans or integer words of any width;
 * the index ports stay index ports (integers held in the model's scalar).  out_sort checks that
 * the element ports agree ("scatter: input 2 holds i32 where input 0 holds bool") and
 * returns their sort.  indexAt's x is an element port too (beyond the seed's list; it moves
 * elements as gather does); embedding keeps value ports: the model's scalar only.  At a
 * Boolean or word sort (the arms read it from nv->in_sort; a view without sorts is read as the
 * model's scalar):
 *   gather, indexAt, scatter REPLACE   forward copies the elements bit for bit, exact.  IBP and
 *            MPFI: the boxes hold the numbers (a Boolean box [0, 1] is unknown) and are moved
 *            unchanged (gather's hull over an index box's candidates included): exact for every
 *            element the boxes admit.  CROWN: the arms only move coefficients (lam . v is the same
 *            sum of the same numbers whatever their sort), so they stay sound.
 *   scatter at bool   a rule only as a replacement (the seed's "a Boolean scatter has a rule only
 *            as a replacement"): out_sort refuses SUM, PROD, MAX and MIN ("scatter: a Boolean
 *            scatter has a rule only as a replacement, not reduce 'sum'"), and the arms refuse
 *            them (the arms state it as a debug assertion).
 *   scatter at words  MAX and MIN are the order of the sort (signed or unsigned), exact in every
 *            arm (IBP and MPFI endpointwise as for the scalar).  SUM and PROD wrap as PyTorch's
 *            integer arithmetic: the fold modulo 2^N read back in the sort (two's complement when
 *            signed).  Forward: the patterns sign- or zero-extended to 64 bits, added or
 *            multiplied modulo 2^64, the low N bits stored; exact, since reduction modulo 2^N is
 *            a ring morphism (wrapping every step equals wrapping once: w(o) = S mod 2^N read in
 *            the sort, S the exact integer fold).  IBP and MPFI, per output entry: if every term's
 *            box is a point holding a word of the sort, the same modular fold gives the exact
 *            word (written outward-rounded as doubles beyond 2^53, exactly in MPFI at precision
 *            >= 64).  Otherwise the interval fold of the scalar case (outward rounded) encloses
 *            S for every choice of the words (indeed of the reals) in the boxes: if it lies in
 *            [min, max + 1) then S is an integer there, so S <= max, nothing wraps and the result
 *            is S, inside the enclosure; else the arm gives the sort's whole range [min, max]
 *            (cn__dtype_min/max, outward beyond 2^53).  CROWN: no relaxation of a wrapping sum
 *            (it is not affine), so the arm refuses SUM at words with CN_EUNSUPPORTED (PROD, MAX
 *            and MIN it refuses at every sort).
 *   No gradients at Booleans and words: such a node receives no cotangent and no tangent (the
 *   pullback and jvp arms take binary64 tensors only).
 * The arms trust the shapes and sorts the graph builder checked (debug assertions state them);
 * the index values are input, checked in every arm as above. */
#include <config.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "ops/ops_impl.h"

/* ---- element sorts ------------------------------------------------------------------------ */



/* The element sort of a Boolean or word tensor: width N (8 for bool), two's complement or not,
 * mask 2^N - 1, and the exact doubles min and lim = max + 1 (a power of two). */
struct esort
{
  int w;
  int sgn;
  uint64_t mask;
  double min, lim;
};

/* Fills S for the sort T; 0 if T is a floating sort (or invalid). */
static int
esort_of (cn_dtype t, struct esort *s)
{
  switch (t)
    {
    case CN_DTYPE_BOOL: case CN_DTYPE_U8: s->w = 8; s->sgn = 0; break;
    case CN_DTYPE_U16: s->w = 16; s->sgn = 0; break;
    case CN_DTYPE_U32: s->w = 32; s->sgn = 0; break;
    case CN_DTYPE_U64: s->w = 64; s->sgn = 0; break;
    case CN_DTYPE_I8: s->w = 8; s->sgn = 1; break;
    case CN_DTYPE_I16: s->w = 16; s->sgn = 1; break;
    case CN_DTYPE_I32: s->w = 32; s->sgn = 1; break;
    case CN_DTYPE_I64: s->w = 64; s->sgn = 1; break;
    default: return 0;
    }
  s->mask = s->w == 64 ? UINT64_MAX : ((uint64_t) 1 << s->w) - 1;
  s->min = s->sgn ? -ldexp (1, s->w - 1) : 0;
  s->lim = t == CN_DTYPE_BOOL ? 2 : ldexp (1, s->sgn ? s->w - 1 : s->w);
  return 1;
}

/* Entry J of a Boolean or word tensor, its pattern sign-extended (signed sorts) or zero-extended
 * to 64 bits: the word's value modulo 2^64. */
static inline uint64_t
elem_get (const void *data, const struct esort *s, int64_t j)
{
  uint64_t p = cn__word_load (data, s->w, j);
  if (s->sgn && ((p >> (s->w - 1)) & 1))
    p |= ~s->mask;
  return p;
}

/* Stores the low N bits of P into entry J (the word P mod 2^N, read in the sort). */
static inline void
elem_put (void *data, const struct esort *s, int64_t j, uint64_t p)
{
  cn__word_store (data, s->w, j, p);
}

/* P widened back from its low N bits (sign- or zero-extension), as elem_get would read it. */
static inline uint64_t
elem_widen (const struct esort *s, uint64_t p)
{
  p &= s->mask;
  if (s->sgn && ((p >> (s->w - 1)) & 1))
    p |= ~s->mask;
  return p;
}

/* The value of the widened pattern P of sort S as a double, rounded down (UP = 0) or up; exact
 * below 2^53 in magnitude. */
static double
elem_to_d (const struct esort *s, uint64_t p, int up)
{
  if (s->sgn && (p >> 63))
    return -cn__u64_dir (~p + 1, !up);   /* -v = ~p + 1 <= 2^63, exact in uint64_t */
  return cn__u64_dir (p, up);
}

/* Whether the double X is a word of S (an integer in [min, lim)); then *P its widened pattern
 * (the conversions are exact there). */
static inline int
elem_of_d (const struct esort *s, double x, uint64_t *p)
{
  if (!(x >= s->min && x < s->lim && x == floor (x)))
    return 0;
  *p = s->sgn ? (uint64_t) (int64_t) x : (uint64_t) x;
  return 1;
}

/* ---- gather, scatter, indexAt, embedding: the pick map ---------------------------------- */

/* Walks the multi-index IDX (rank R, extents DIM) to the next entry in C order. */
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

/* Output entry o is the fold, over the terms t in [ptr[o], ptr[o + 1]), of input k[t] at entry
 * j[t].  MODE says how: PICK_COPY (one term; several only when a non-point index box leaves
 * several candidates, and then the IBP/MPFI arms take their hull), PICK_SUM, PICK_PROD,
 * PICK_MAX, PICK_MIN (scatter's reductions, folded left to right in the order of the terms). */
enum pick_mode { PICK_COPY, PICK_SUM, PICK_PROD, PICK_MAX, PICK_MIN };

struct pick
{
  int64_t n;
  int64_t *ptr;
  int *k;
  int64_t *j;
  int64_t nt, cap;
  int mode;
  int hull;              /* some entry has several candidates (PICK_COPY only) */
};

/* Where the index entries come from: a tensor (exact values), a box or an MPFI vector. */
struct idxsrc
{
  const cn_tensor *t;
  const cn_box *b;
  const cn_mpfi_vec *v;
};

/* The family's data of one operator, its rule's impl: the rules of gather, scatter, indexAt and
 * embedding share every arm below, which read from here what differs. */
struct pick_impl
{
  int index_port;       /* the input that holds the indices */
  int words;            /* the element ports may hold Booleans and words (not embedding's) */
  int reads_sort;       /* the arms read the element sort from the view (gather, scatter); indexAt
                           and embedding compute as in the model's scalar */
  /* Fills the terms of M (M->n, M->ptr allocated, M->ptr[0] = 0, no term yet) from the index
   * entries S; on failure returns the status set in ERR (M is cleared by the caller). */
  cn_status (*build) (const cn_node_view *nv, const struct idxsrc *s, struct pick *m, cn_error *err);
};

/* The impl of node NV's rule. */
static inline const struct pick_impl *
pick_impl_of (const cn_node_view *nv)
{
  return nv->rule->impl;
}

static void
pick_clear (struct pick *m)
{
  free (m->ptr);
  free (m->k);
  free (m->j);
  memset (m, 0, sizeof *m);
}

static int
pick_push (struct pick *m, int k, int64_t j)
{
  if (m->nt == m->cap)
    {
      int64_t c = m->cap ? 2 * m->cap : 64;
      int *nk = realloc (m->k, (size_t) c * sizeof *nk);
      if (nk == NULL)
        return 0;
      m->k = nk;
      int64_t *nj = realloc (m->j, (size_t) c * sizeof *nj);
      if (nj == NULL)
        return 0;
      m->j = nj;
      m->cap = c;
    }
  m->k[m->nt] = k;
  m->j[m->nt++] = j;
  return 1;
}

/* The integers [*LO, *HI] that index entry E may hold, all in [0, BOUND).  A tensor entry must
 * be an integer in range (CN_EINVAL otherwise); a box or an interval gives the integers it
 * holds, and must hold one and stay within [0, BOUND) (CN_ENUMERIC otherwise). */
static cn_status
idx_range (const cn_node_view *nv, const struct idxsrc *s, int64_t e, int64_t bound, int64_t *lo, int64_t *hi,
           cn_error *err)
{
  const char *opn = cn_op_name (nv->op);
  double l, h;
  if (s->t != NULL)
    {
      double v = cn_tensor_get_f64 (s->t, e);
      if (!(v >= 0 && v < (double) bound && v == floor (v)))
        return cn_error_set (err, CN_EINVAL, "%s: index %g at entry %lld is not an integer in [0, %lld) (node '%s')", opn,
                             v, (long long) e, (long long) bound, cn__node_name (nv));
      *lo = *hi = (int64_t) v;
      return CN_OK;
    }
  if (s->b != NULL)
    {
      l = s->b->lo[e];
      h = s->b->hi[e];
    }
  else
    {
      l = mpfr_get_d (&s->v->v[e]->left, MPFR_RNDD);
      h = mpfr_get_d (&s->v->v[e]->right, MPFR_RNDU);
    }
  if (isnan (l) || isnan (h))
    return cn_error_set (err, CN_ENUMERIC, "%s: index box at entry %lld has a NaN end (node '%s')", opn, (long long) e,
                         cn__node_name (nv));
  double L = ceil (l), H = floor (h);
  if (L > H)
    return cn_error_set (err, CN_ENUMERIC, "%s: index box [%g, %g] at entry %lld holds no integer (node '%s')", opn, l, h,
                         (long long) e, cn__node_name (nv));
  if (L < 0 || H >= (double) bound)
    return cn_error_set (err, CN_ENUMERIC, "%s: index box [%g, %g] at entry %lld reaches past [0, %lld) (node '%s')", opn,
                         l, h, (long long) e, (long long) bound, cn__node_name (nv));
  *lo = (int64_t) L;
  *hi = (int64_t) H;
  return CN_OK;
}

static cn_status
pick_oom (const cn_node_view *nv, struct pick *m, cn_error *err)
{
  pick_clear (m);
  return cn_error_set (err, CN_ENOMEM, "%s: out of memory (node '%s')", cn_op_name (nv->op), cn__node_name (nv));
}

/* gather: output o (multi-index i) has the terms x[i with i_axis := q] for the integers q the
 * index entry o may hold (one for a point index). */
static cn_status
gather_map (const cn_node_view *nv, const struct idxsrc *s, struct pick *m, cn_error *err)
{
  const cn_shape *os = nv->out_shape;
  int ax = ((const cn_params_gather *) nv->params)->axis;
  const cn_shape *xs = nv->in_shape[0];
  int64_t xstr[CN_MAX_RANK], idx[CN_MAX_RANK] = { 0 };
  int64_t L, H;
  cn_status st;
  cn__strides (xs, xstr);
  for (int64_t o = 0; o < m->n; o++)
    {
      if ((st = idx_range (nv, s, o, xs->dim[ax], &L, &H, err)) != CN_OK)
        return st;
      int64_t base = 0;
      for (int a = 0; a < os->rank; a++)
        if (a != ax)
          base += idx[a] * xstr[a];
      for (int64_t q = L; q <= H; q++)
        if (!pick_push (m, 0, base + q * xstr[ax]))
          return pick_oom (nv, m, err);
      m->ptr[o + 1] = m->nt;
      next_index (os->rank, os->dim, idx);
    }
  return CN_OK;
}

/* embedding: output (p, d) has the terms weight[q, d] for the rows q index entry p may hold. */
static cn_status
embedding_map (const cn_node_view *nv, const struct idxsrc *s, struct pick *m, cn_error *err)
{
  const cn_shape *ws = nv->in_shape[1];
  int64_t V = ws->dim[0], D = ws->dim[1], np = cn__numel (nv->in_shape[0]);
  int64_t L, H;
  cn_status st;
  for (int64_t p = 0; p < np; p++)
    {
      if ((st = idx_range (nv, s, p, V, &L, &H, err)) != CN_OK)
        return st;
      for (int64_t d = 0; d < D; d++)
        {
          for (int64_t q = L; q <= H; q++)
            if (!pick_push (m, 1, q * D + d))
              return pick_oom (nv, m, err);
          m->ptr[p * D + d + 1] = m->nt;
        }
    }
  return CN_OK;
}

/* indexAt: output (p, t) has the terms x[q_0, ..., q_{r-1}, t] for every tuple the index
 * entries (p, 0..r-1) may hold, in C order of the tuples. */
static cn_status
index_at_map (const cn_node_view *nv, const struct idxsrc *s, struct pick *m, cn_error *err)
{
  const cn_shape *xs = nv->in_shape[0], *is = nv->in_shape[1];
  int r = (int) is->dim[is->rank - 1];
  int64_t xstr[CN_MAX_RANK], ql[CN_MAX_RANK], qh[CN_MAX_RANK], q[CN_MAX_RANK];
  cn_status st;
  cn__strides (xs, xstr);
  int64_t T = xstr[r - 1], np = cn__numel (is) / r;
  for (int64_t p = 0; p < np; p++)
    {
      for (int a = 0; a < r; a++)
        if ((st = idx_range (nv, s, p * r + a, xs->dim[a], &ql[a], &qh[a], err)) != CN_OK)
          return st;
      for (int64_t t = 0; t < T; t++)
        {
          for (int a = 0; a < r; a++)
            q[a] = ql[a];
          for (;;)
            {
              int64_t j = t;
              for (int a = 0; a < r; a++)
                j += q[a] * xstr[a];
              if (!pick_push (m, 0, j))
                return pick_oom (nv, m, err);
              int a = r - 1;
              for (; a >= 0; a--)
                {
                  if (++q[a] <= qh[a])
                    break;
                  q[a] = ql[a];
                }
              if (a < 0)
                break;
            }
          m->ptr[p * T + t + 1] = m->nt;
        }
    }
  return CN_OK;
}

/* scatter: output t has the term x[t], replaced by src at the last position writing t (REPLACE)
 * or followed by src at every position writing t in row-major order (the reductions); the
 * indices must be points. */
static cn_status
scatter_map (const cn_node_view *nv, const struct idxsrc *s, struct pick *m, cn_error *err)
{
  const cn_params_scatter *sp = nv->params;
  int ax = sp->axis;
  const cn_shape *xs = nv->in_shape[0], *is = nv->in_shape[1];
  int64_t ni = cn__numel (is);
  int64_t xstr[CN_MAX_RANK], idx[CN_MAX_RANK] = { 0 };
  int64_t L, H;
  cn_status st = CN_OK;
  cn__strides (xs, xstr);
  int64_t *tgt = malloc ((size_t) (ni + 1) * sizeof *tgt), *cnt = calloc ((size_t) (m->n + 1), sizeof *cnt);
  if (tgt == NULL || cnt == NULL)
    {
      free (tgt);
      free (cnt);
      return pick_oom (nv, m, err);
    }
  for (int64_t i = 0; i < ni && st == CN_OK; i++)
    {
      if ((st = idx_range (nv, s, i, xs->dim[ax], &L, &H, err)) != CN_OK)
        break;
      if (L != H)
        {
          st = cn_error_set (err, CN_EUNSUPPORTED, "scatter: the index at entry %lld is not a point (node '%s')",
                             (long long) i, cn__node_name (nv));
          break;
        }
      int64_t t = 0;
      for (int a = 0; a < is->rank; a++)
        t += (a == ax ? L : idx[a]) * xstr[a];
      tgt[i] = t;
      next_index (is->rank, is->dim, idx);
    }
  if (st != CN_OK)
    {
      free (tgt);
      free (cnt);
      return st;
    }
  /* now tgt[i] is the output entry that index position i (row-major) writes */
  if (sp->reduce == CN_SCATTER_REPLACE)
    {
      for (int64_t t = 0; t < m->n; t++)
        cnt[t] = -1;
      for (int64_t i = 0; i < ni; i++)
        cnt[tgt[i]] = i;
      /* now cnt[t] is the last position writing t, or -1 */
      for (int64_t t = 0; t < m->n; t++)
        {
          if (!(cnt[t] >= 0 ? pick_push (m, 2, cnt[t]) : pick_push (m, 0, t)))
            {
              free (tgt);
              free (cnt);
              return pick_oom (nv, m, err);
            }
          m->ptr[t + 1] = m->nt;
        }
    }
  else
    {
      m->mode = sp->reduce == CN_SCATTER_SUM ? PICK_SUM
                : sp->reduce == CN_SCATTER_PROD ? PICK_PROD
                : sp->reduce == CN_SCATTER_MAX ? PICK_MAX : PICK_MIN;
      for (int64_t i = 0; i < ni; i++)
        cnt[tgt[i]]++;
      for (int64_t t = 0; t < m->n; t++)
        m->ptr[t + 1] = m->ptr[t] + 1 + cnt[t];
      m->nt = m->cap = m->ptr[m->n];
      m->k = malloc ((size_t) (m->nt + 1) * sizeof *m->k);
      m->j = malloc ((size_t) (m->nt + 1) * sizeof *m->j);
      if (m->k == NULL || m->j == NULL)
        {
          free (tgt);
          free (cnt);
          return pick_oom (nv, m, err);
        }
      for (int64_t t = 0; t < m->n; t++)
        {
          m->k[m->ptr[t]] = 0;
          m->j[m->ptr[t]] = t;
          cnt[t] = m->ptr[t] + 1;
        }
      for (int64_t i = 0; i < ni; i++)
        {
          int64_t w = cnt[tgt[i]]++;
          m->k[w] = 2;
          m->j[w] = i;
        }
      /* now the terms of t are x[t], then src[i] for the positions i writing t in row-major order */
    }
  free (tgt);
  free (cnt);
  return CN_OK;
}

/* Builds the map of node NV with its index entries read from S (the operator's own map builder,
 * from its impl). */
static cn_status
pick_build (const cn_node_view *nv, const struct idxsrc *s, struct pick *m, cn_error *err)
{
  memset (m, 0, sizeof *m);
  m->n = cn__numel (nv->out_shape);
  m->ptr = malloc ((size_t) (m->n + 1) * sizeof *m->ptr);
  if (m->ptr == NULL)
    return pick_oom (nv, m, err);
  m->ptr[0] = 0;
  cn_status st = pick_impl_of (nv)->build (nv, s, m, err);
  if (st != CN_OK)
    {
      pick_clear (m);
      return st;
    }
  /* now output o is the fold of the terms [ptr[o], ptr[o + 1]) */
  for (int64_t o = 0; o < m->n && m->mode == PICK_COPY; o++)
    if (m->ptr[o + 1] - m->ptr[o] != 1)
      m->hull = 1;
  return CN_OK;
}

/* The sort of the elements the node moves: gather's and scatter's input 0 as the view records
 * it; the model's scalar (CN_DTYPE_F64) for indexAt and embedding, and for a view without sorts. */
static cn_dtype
pick_sort (const cn_node_view *nv)
{
  if (!pick_impl_of (nv)->reads_sort || nv->in_sort == NULL || cn_dtype_is_float (nv->in_sort[0]))
    return CN_DTYPE_F64;
  return nv->in_sort[0];
}

/* A Boolean scatter has a rule only as a replacement: out_sort refuses the reductions, so the
 * map of a node at sort T is a copy when T is bool (the arms assert it). */
static inline int
pick_mode_ok (const struct pick *m, cn_dtype t)
{
  return t != CN_DTYPE_BOOL || m->mode == PICK_COPY;
}

/* One step of scatter's fold on words (widened patterns A, B of sort S): SUM and PROD modulo
 * 2^64 (their low N bits are the wrapped word), MAX and MIN in the sort's order (the widened
 * patterns compare as signed 64-bit values, or as unsigned ones). */
static inline uint64_t
word_fold (int mode, const struct esort *s, uint64_t a, uint64_t b)
{
  uint64_t flip = s->sgn ? (uint64_t) 1 << 63 : 0;   /* a ^ flip orders signed values as unsigned */
  switch (mode)
    {
    case PICK_SUM: return a + b;
    case PICK_PROD: return a * b;
    case PICK_MAX: return (b ^ flip) > (a ^ flip) ? b : a;
    case PICK_MIN: return (b ^ flip) < (a ^ flip) ? b : a;
    default: return b;
    }
}

/* IEEE 754-2019 maximum and minimum: a NaN propagates, +0 > -0. */
static inline double
fold_max (double a, double b)
{
  if (isnan (a) || isnan (b))
    return NAN;
  if (a == b)
    return signbit (a) ? b : a;
  return b > a ? b : a;
}

static inline double
fold_min (double a, double b)
{
  if (isnan (a) || isnan (b))
    return NAN;
  if (a == b)
    return signbit (a) ? a : b;
  return b < a ? b : a;
}

static inline float
fold_maxf (float a, float b)
{
  if (isnan (a) || isnan (b))
    return NAN;
  if (a == b)
    return signbit (a) ? b : a;
  return b > a ? b : a;
}

static inline float
fold_minf (float a, float b)
{
  if (isnan (a) || isnan (b))
    return NAN;
  if (a == b)
    return signbit (a) ? a : b;
  return b < a ? b : a;
}

/* Whether the forward's inputs are of the node's shapes, the element ports of the output's sort
 * and the index port of a floating sort (the graph builder's invariant). */
static int
pick_tensors_ok (const cn_node_view *nv, const cn_tensor *const *in, const cn_tensor *out)
{
  int ip = pick_impl_of (nv)->index_port;
  for (int i = 0; i < nv->n_in; i++)
    if ((i == ip ? !cn_dtype_is_float (in[i]->dtype) : in[i]->dtype != out->dtype)
        || cn_tensor_numel (in[i]) != cn__numel (nv->in_shape[i]))
      return 0;
  return 1;
}

static cn_status
pick_forward (const cn_node_view *nv, const cn_tensor *const *in, cn_tensor *out, cn_error *err)
{
  const struct pick_impl *d = pick_impl_of (nv);
  int64_t n = cn__numel (nv->out_shape);
  int ip = d->index_port;
  struct esort es = { 0, 0, 0, 0, 0 };
  int word = esort_of (out->dtype, &es);
  CN__ASSERTD ((cn_dtype_is_float (out->dtype) || (word && d->words)) && cn_tensor_numel (out) == n);
  /* the element ports hold the output's sort, the index port the model's scalar (the evaluation's
   * floating sort) */
  CN__ASSERTD (pick_tensors_ok (nv, in, out));
  struct idxsrc src = { .t = in[ip] };
  struct pick m;
  cn_status st = pick_build (nv, &src, &m, err);
  if (st != CN_OK)
    return st;
  CN__ASSERTD (pick_mode_ok (&m, out->dtype));
  if (word)
    {
      for (int64_t o = 0; o < n; o++)
        {
          int64_t t = m.ptr[o];
          uint64_t acc = elem_get (in[m.k[t]]->data, &es, m.j[t]);
          for (t++; t < m.ptr[o + 1]; t++)
            acc = word_fold (m.mode, &es, acc, elem_get (in[m.k[t]]->data, &es, m.j[t]));
          elem_put (out->data, &es, o, acc);
        }
      /* now y[o] is o's term copied (a Boolean's byte, a word's pattern), or the left fold of its
       * terms: the exact integer fold modulo 2^N read in the sort for SUM and PROD (reduction
       * modulo 2^N commutes with + and *), the sort's maximum or minimum for MAX and MIN */
    }
  else if (out->dtype == CN_DTYPE_F64)
    {
      double *y = out->data;
      for (int64_t o = 0; o < n; o++)
        {
          int64_t t = m.ptr[o];
          double acc = ((const double *) in[m.k[t]]->data)[m.j[t]];
          for (t++; t < m.ptr[o + 1]; t++)
            {
              double v = ((const double *) in[m.k[t]]->data)[m.j[t]];
              acc = m.mode == PICK_SUM ? acc + v
                    : m.mode == PICK_PROD ? acc * v : m.mode == PICK_MAX ? fold_max (acc, v) : fold_min (acc, v);
            }
          y[o] = acc;
        }
    }
  else
    {
      float *y = out->data;
      for (int64_t o = 0; o < n; o++)
        {
          int64_t t = m.ptr[o];
          float acc = ((const float *) in[m.k[t]]->data)[m.j[t]];
          for (t++; t < m.ptr[o + 1]; t++)
            {
              float v = ((const float *) in[m.k[t]]->data)[m.j[t]];
              acc = m.mode == PICK_SUM ? acc + v
                    : m.mode == PICK_PROD ? acc * v : m.mode == PICK_MAX ? fold_maxf (acc, v) : fold_minf (acc, v);
            }
          y[o] = acc;
        }
    }
  /* now y[o] is the left fold of o's terms in the tensors' sort (a copy for PICK_COPY) */
  pick_clear (&m);
  return CN_OK;
}

/* Whether the pullback's and the jvp's tensors are binary64 of the node's shapes (an invariant:
 * the engines give the derivative arms binary64 points). */
static int
pick_point_args (const cn_node_view *nv, const cn_tensor *const *in, const cn_tensor *out)
{
  if (out->dtype != CN_DTYPE_F64 || cn_tensor_numel (out) != cn__numel (nv->out_shape))
    return 0;
  for (int i = 0; i < nv->n_in; i++)
    if (in[i]->dtype != CN_DTYPE_F64 || cn_tensor_numel (in[i]) != cn__numel (nv->in_shape[i]))
      return 0;
  return 1;
}

/* The number of terms of output O that tie with its value R (MAX, MIN), NaN tying with NaN. */
static inline int
pick_tie (double v, double r)
{
  return v == r || (isnan (v) && isnan (r));
}

static cn_status
pick_pullback (const cn_node_view *nv, const cn_tensor *const *in, const cn_tensor *out, const double *g_out,
               double *const *g_in, cn_error *err)
{
  CN__ASSERTD (pick_point_args (nv, in, out));
  int ip = pick_impl_of (nv)->index_port;
  int any = 0;
  for (int i = 0; i < nv->n_in; i++)
    any |= g_in[i] != NULL && i != ip;
  if (!any)
    return CN_OK;
  struct idxsrc src = { .t = in[ip] };
  struct pick m;
  cn_status st;
  if ((st = pick_build (nv, &src, &m, err)) != CN_OK)
    return st;
  const double *y = out->data;
#define VAL(t) (((const double *) in[m.k[t]]->data)[m.j[t]])
  for (int64_t o = 0; o < m.n; o++)
    {
      int64_t t0 = m.ptr[o], t1 = m.ptr[o + 1];
      int ties = 0;
      if (m.mode == PICK_MAX || m.mode == PICK_MIN)
        for (int64_t t = t0; t < t1; t++)
          ties += pick_tie (VAL (t), y[o]);
      for (int64_t t = t0; t < t1; t++)
        {
          double *gk = g_in[m.k[t]];
          if (gk == NULL)
            continue;
          double d;
          switch (m.mode)
            {
            case PICK_PROD:
              d = g_out[o];
              for (int64_t q = t0; q < t1; q++)
                if (q != t)
                  d *= VAL (q);
              break;
            case PICK_MAX:
            case PICK_MIN:
              if (!pick_tie (VAL (t), y[o]))
                continue;
              d = g_out[o] / ties;
              break;
            default:
              d = g_out[o];
              break;
            }
          gk[m.j[t]] += d;
        }
    }
  /* now every term received g_o times its partial derivative (PROD: the product of the other
   * terms; MAX/MIN: 1/ties on the terms equal to the result) */
  pick_clear (&m);
  return CN_OK;
}

static cn_status
pick_jvp (const cn_node_view *nv, const cn_tensor *const *in, const cn_tensor *out, const double *const *t_in,
          double *t_out, cn_error *err)
{
  CN__ASSERTD (pick_point_args (nv, in, out));
  int ip = pick_impl_of (nv)->index_port;
  struct idxsrc src = { .t = in[ip] };
  struct pick m;
  cn_status st;
  if ((st = pick_build (nv, &src, &m, err)) != CN_OK)
    return st;
  const double *y = out->data;
  for (int64_t o = 0; o < m.n; o++)
    {
      int64_t t0 = m.ptr[o], t1 = m.ptr[o + 1];
      double acc = 0;
      int ties = 0;
      for (int64_t t = t0; t < t1; t++)
        {
          const double *tk = m.k[t] == ip ? NULL : t_in[m.k[t]];
          double d = tk != NULL ? tk[m.j[t]] : 0;
          switch (m.mode)
            {
            case PICK_PROD:
              for (int64_t q = t0; q < t1; q++)
                if (q != t)
                  d *= VAL (q);
              break;
            case PICK_MAX:
            case PICK_MIN:
              if (!pick_tie (VAL (t), y[o]))
                continue;
              ties++;
              break;
            default:
              break;
            }
          acc += d;
        }
      t_out[o] = ties > 1 ? acc / ties : acc;
    }
#undef VAL
  /* now t_out[o] is the sum over o's terms of the partial derivative times the tangent (MAX,
   * MIN: their mean over the tied terms), the transpose of the pullback */
  pick_clear (&m);
  return CN_OK;
}

/* Bounds of the exact product of two reals in [a, b] and [c, d] (0 times an infinite end is 0). */
static void
interval_mul (double a, double b, double c, double d, double *lo, double *hi)
{
  double p[4] = { a * c, a * d, b * c, b * d };
  double x[4] = { a, a, b, b }, y[4] = { c, d, c, d };
  double l = INFINITY, h = -INFINITY;
  for (int i = 0; i < 4; i++)
    {
      if (x[i] == 0 || y[i] == 0)
        p[i] = 0;
      l = fmin (l, cn__down (p[i]));
      h = fmax (h, cn__up (p[i]));
    }
  *lo = l;
  *hi = h;
}

static cn_status
pick_ibp (const cn_node_view *nv, const cn_box *const *in, cn_box *out, cn_error *err)
{
  int64_t n = cn__numel (nv->out_shape);
  CN__ASSERTD (out->n == n);
  for (int i = 0; i < nv->n_in; i++)
    CN__ASSERTD (in[i]->n == cn__numel (nv->in_shape[i]));
  struct idxsrc src = { .b = in[pick_impl_of (nv)->index_port] };
  struct pick m;
  cn_status st = pick_build (nv, &src, &m, err);
  if (st != CN_OK)
    return st;
  cn_dtype sort = pick_sort (nv);
  CN__ASSERTD (pick_mode_ok (&m, sort));
  struct esort es = { 0, 0, 0, 0, 0 };
  int wrap = esort_of (sort, &es) && (m.mode == PICK_SUM || m.mode == PICK_PROD);
  for (int64_t o = 0; o < n; o++)
    {
      int64_t t = m.ptr[o];
      if (wrap)
        {
          /* words: every term a point holding a word gives the exact wrapped fold */
          uint64_t acc = 0, p = 0;
          int point = 1;
          for (int64_t q = t; q < m.ptr[o + 1] && point; q++)
            {
              const cn_box *b = in[m.k[q]];
              point = b->lo[m.j[q]] == b->hi[m.j[q]] && elem_of_d (&es, b->lo[m.j[q]], &p);
              if (point)
                acc = q == t ? p : word_fold (m.mode, &es, acc, p);
            }
          if (point)
            {
              acc = elem_widen (&es, acc);
              out->lo[o] = elem_to_d (&es, acc, 0);
              out->hi[o] = elem_to_d (&es, acc, 1);
              continue;
            }
        }
      double lo = in[m.k[t]]->lo[m.j[t]], hi = in[m.k[t]]->hi[m.j[t]];
      for (t++; t < m.ptr[o + 1]; t++)
        {
          double l = in[m.k[t]]->lo[m.j[t]], h = in[m.k[t]]->hi[m.j[t]];
          switch (m.mode)
            {
            case PICK_COPY:
              lo = fmin (lo, l);
              hi = fmax (hi, h);
              break;
            case PICK_SUM:
              lo = cn__down (lo + l);
              hi = cn__up (hi + h);
              break;
            case PICK_PROD:
              interval_mul (lo, hi, l, h, &lo, &hi);
              break;
            case PICK_MAX:
              lo = fmax (lo, l);
              hi = fmax (hi, h);
              break;
            default:
              lo = fmin (lo, l);
              hi = fmin (hi, h);
              break;
            }
          /* a NaN end (inf - inf) knows nothing */
          if (isnan (lo))
            lo = -INFINITY;
          if (isnan (hi))
            hi = INFINITY;
        }
      if (wrap && !(lo >= es.min && hi < es.lim))
        {
          /* the exact fold may leave the sort's range and wrap: every word of the sort */
          lo = cn__dtype_min (sort);
          hi = cn__dtype_max (sort);
        }
      /* (words) now [lo, hi] holds S for every choice in the boxes, and lies in [min, max + 1),
       * so S is a word of the sort and the wrapped result is S itself; or it is the whole range */
      out->lo[o] = lo;
      out->hi[o] = hi;
    }
  /* now [lo, hi]_o holds the fold of o's terms over the input boxes (the hull over the
   * candidates when an index box is not a point); sums and products rounded outwards */
  pick_clear (&m);
  return CN_OK;
}

static cn_status
pick_mpfi (const cn_node_view *nv, const cn_mpfi_vec *const *in, cn_mpfi_vec *out, cn_error *err)
{
  int64_t n = cn__numel (nv->out_shape);
  CN__ASSERTD (out->n == n);
  for (int i = 0; i < nv->n_in; i++)
    CN__ASSERTD (in[i]->n == cn__numel (nv->in_shape[i]));
  struct idxsrc src = { .v = in[pick_impl_of (nv)->index_port] };
  struct pick m;
  cn_status st = pick_build (nv, &src, &m, err);
  if (st != CN_OK)
    return st;
  cn_dtype sort = pick_sort (nv);
  CN__ASSERTD (pick_mode_ok (&m, sort));
  struct esort es = { 0, 0, 0, 0, 0 };
  int wrap = esort_of (sort, &es) && (m.mode == PICK_SUM || m.mode == PICK_PROD);
  for (int64_t o = 0; o < n; o++)
    {
      int64_t t = m.ptr[o];
      if (wrap)
        {
          /* words: every term a point holding a word gives the exact wrapped fold */
          uint64_t acc = 0, p = 0;
          int point = 1;
          for (int64_t q = t; q < m.ptr[o + 1] && point; q++)
            {
              mpfi_ptr v = in[m.k[q]]->v[m.j[q]];
              point = !mpfi_nan_p (v) && mpfr_equal_p (&v->left, &v->right) && mpfr_integer_p (&v->left)
                      && mpfr_cmp_d (&v->left, es.min) >= 0 && mpfr_cmp_d (&v->left, es.lim) < 0;
              if (point)
                p = es.sgn ? (uint64_t) mpfr_get_sj (&v->left, MPFR_RNDN) : (uint64_t) mpfr_get_uj (&v->left, MPFR_RNDN);
              /* now P is the word's widened pattern, exactly (an integer of the sort's range) */
              if (point)
                acc = q == t ? p : word_fold (m.mode, &es, acc, p);
            }
          if (point)
            {
              acc = elem_widen (&es, acc);
              if (es.sgn)
                {
                  intmax_t w = (acc >> 63) ? -(intmax_t) (~acc) - 1 : (intmax_t) acc;
                  mpfr_set_sj (&out->v[o]->left, w, MPFR_RNDD);
                  mpfr_set_sj (&out->v[o]->right, w, MPFR_RNDU);
                }
              else
                {
                  mpfr_set_uj (&out->v[o]->left, acc, MPFR_RNDD);
                  mpfr_set_uj (&out->v[o]->right, acc, MPFR_RNDU);
                }
              continue;
            }
        }
      mpfi_set (out->v[o], in[m.k[t]]->v[m.j[t]]);
      for (t++; t < m.ptr[o + 1]; t++)
        {
          mpfi_ptr v = in[m.k[t]]->v[m.j[t]];
          switch (m.mode)
            {
            case PICK_COPY:
              mpfi_union (out->v[o], out->v[o], v);
              break;
            case PICK_SUM:
              mpfi_add (out->v[o], out->v[o], v);
              break;
            case PICK_PROD:
              mpfi_mul (out->v[o], out->v[o], v);
              break;
            case PICK_MAX:
              mpfr_max (&out->v[o]->left, &out->v[o]->left, &v->left, MPFR_RNDD);
              mpfr_max (&out->v[o]->right, &out->v[o]->right, &v->right, MPFR_RNDU);
              break;
            default:
              mpfr_min (&out->v[o]->left, &out->v[o]->left, &v->left, MPFR_RNDD);
              mpfr_min (&out->v[o]->right, &out->v[o]->right, &v->right, MPFR_RNDU);
              break;
            }
        }
      if (wrap
          && (mpfi_nan_p (out->v[o]) || mpfr_cmp_d (&out->v[o]->left, es.min) < 0
              || mpfr_cmp_d (&out->v[o]->right, es.lim) >= 0))
        {
          /* the exact fold may leave the sort's range and wrap: every word of the sort */
          mpfr_set_d (&out->v[o]->left, es.min, MPFR_RNDD);
          mpfr_set_uj (&out->v[o]->right, es.sgn ? es.mask >> 1 : es.mask, MPFR_RNDU);
        }
    }
  pick_clear (&m);
  return CN_OK;
}

/* CROWN: PICK_COPY with point indices and PICK_SUM are linear in the inputs,
 *     lam . v = sum_o lam_o sum_{t of o} u_{k[t]}[j[t]],
 * so lam_in[k][j] = sum of the lam_o of the terms reading (k, j), accumulated in RN in output
 * order.  Scatter reads every (k, j) at most once (a scatter of exact copies, no charge); gather,
 * indexAt and embedding may read an entry from K > 1 outputs, and then lam_in = fl(lam A) with A
 * the 0/1 selection matrix and inner length K, charged by cn__crown_charge_affine with
 * w[o] = m_{j(o)} = (|A| m)[o] exactly, as broadcast.  Terms of inputs without coefficients
 * (constants) are discharged over their boxes as in slice. */
static cn_status
pick_crown (const cn_crown_step *st, cn_error *err)
{
  const cn_node_view *nv = st->nv;
  const char *opn = cn_op_name (nv->op);
  int ip = pick_impl_of (nv)->index_port;
  int64_t n = cn__numel (nv->out_shape);
  for (int i = 0; i < nv->n_in; i++)
    CN__ASSERTD (st->in_box[i]->n == cn__numel (nv->in_shape[i]));
  struct idxsrc src = { .b = st->in_box[ip] };
  struct pick m;
  cn_status status = pick_build (nv, &src, &m, err);
  if (status != CN_OK)
    return status;
  if (m.hull || (m.mode != PICK_COPY && m.mode != PICK_SUM))
    {
      pick_clear (&m);
      return cn_error_set (err, CN_EUNSUPPORTED, "%s: the CROWN arm needs point indices and a linear mode (node '%s')",
                           opn, cn__node_name (nv));
    }
  if (m.mode == PICK_SUM && !cn_dtype_is_float (pick_sort (nv)))
    {
      pick_clear (&m);
      return cn_error_set (err, CN_EUNSUPPORTED,
                           "%s: the CROWN arm has no relaxation of a wrapping sum of %s words (node '%s')", opn,
                           cn__sort_name (pick_sort (nv)), cn__node_name (nv));
    }
  /* K: the most terms reading one entry of an input with coefficients */
  int64_t K = 1;
  int64_t *cnt[3] = { NULL, NULL, NULL };
  for (int i = 0; i < nv->n_in && i < 3; i++)
    if (st->lam_in[i] != NULL && i != ip)
      {
        cnt[i] = calloc ((size_t) (st->in_box[i]->n + 1), sizeof (int64_t));
        if (cnt[i] == NULL)
          {
            for (int q = 0; q < 3; q++)
              free (cnt[q]);
            pick_clear (&m);
            return cn_error_set (err, CN_ENOMEM, "%s: out of memory (node '%s')", opn, cn__node_name (nv));
          }
      }
  for (int64_t t = 0; t < m.nt; t++)
    if (cnt[m.k[t]] != NULL && ++cnt[m.k[t]][m.j[t]] > K)
      K = cnt[m.k[t]][m.j[t]];
  for (int q = 0; q < 3; q++)
    free (cnt[q]);
#pragma omp parallel for num_threads(st->threads > 0 ? st->threads : 1) if (st->rows * n > 65536)
  for (int64_t s = 0; s < st->rows; s++)
    {
      const double *lo = st->lam_out + s * n;
      double d = 0, tt = 0;
      int64_t c = 0;
      int unbounded = 0;
      for (int64_t o = 0; o < n; o++)
        {
          double lam = lo[o];
          if (lam == 0)
            continue;
          for (int64_t t = m.ptr[o]; t < m.ptr[o + 1]; t++)
            {
              int k = m.k[t];
              int64_t j = m.j[t];
              if (st->lam_in[k] != NULL)
                {
                  st->lam_in[k][s * st->in_box[k]->n + j] += lam;
                  continue;
                }
              double x = lam > 0 ? st->in_box[k]->lo[j] : st->in_box[k]->hi[j];
              if (x == 0)
                continue;
              if (isinf (x))
                unbounded = 1;
              d += lam * x;
              tt += fabs (lam) * fabs (x);
              c++;
            }
        }
      /* now every lam_in entry is the RN sum, in output order, of the lam_o of the terms that
       * read it (a plain copy when K = 1); d = fl(sum lam_o sel) over the constant terms,
       * |d - sum lam_o sel| <= cn__dot_err (tt, c) by (G) */
      cn__crown_add_sum (st, s, d, tt, c, unbounded);
    }
  if (K > 1)
    {
      /* only gather, indexAt and embedding get here: one term per output, one value input, the
       * port other than the index port */
      int kv = ip == 0 ? 1 : 0;
      int64_t ni = st->in_box[kv]->n;
      double *mag = malloc ((size_t) (ni + 1) * sizeof *mag), *w = malloc ((size_t) (n + 1) * sizeof *w);
      if (mag == NULL || w == NULL)
        {
          free (mag);
          free (w);
          pick_clear (&m);
          return cn_error_set (err, CN_ENOMEM, "%s: out of memory (node '%s')", opn, cn__node_name (nv));
        }
      double m1 = cn__box_magnitude (st->in_box[kv], mag);
      for (int64_t o = 0; o < n; o++)
        w[o] = mag[m.j[m.ptr[o]]];
      /* now w[o] = (|A| m)[o] exactly, A the 0/1 selection matrix */
      cn__crown_charge_affine (st, w, K, m1);
      free (mag);
      free (w);
    }
  pick_clear (&m);
  return CN_OK;
}

/* ---- checks ------------------------------------------------------------------------------ */

/* The index shape I against x's shape S along AXIS (gather, scatter): equal ranks, I[a] <= S[a]
 * off the axis, and S[axis] >= 1 when I has entries (an index needs a target). */
static cn_status
index_shape_ok (const char *op, int axis, const cn_shape *x, const cn_shape *ix, cn_error *err)
{
  char sa[128], sb[128];
  if (x->rank < 1)
    return cn_error_set (err, CN_EINVAL, "%s: the input must have rank >= 1", op);
  if (axis < 0 || axis >= x->rank)
    return cn_error_set (err, CN_EINVAL, "%s: axis %d out of range for rank %d", op, axis, x->rank);
  if (ix->rank != x->rank)
    return cn_error_set (err, CN_ESHAPE, "%s: index of rank %d for an input of rank %d", op, ix->rank, x->rank);
  for (int a = 0; a < x->rank; a++)
    if (a != axis && ix->dim[a] > x->dim[a])
      return cn_error_set (err, CN_ESHAPE, "%s: index shape %s exceeds the input shape %s on axis %d", op,
                           cn_shape_format (ix, sa, sizeof sa), cn_shape_format (x, sb, sizeof sb), a);
  if (cn_shape_numel (ix) > 0 && x->dim[axis] == 0)
    return cn_error_set (err, CN_ESHAPE, "%s: axis %d of the input is empty, so no index is valid", op, axis);
  return CN_OK;
}

static cn_status
gather_check (const struct cn_op_rule *rule, const void *p, int n_in, const cn_shape *const *in, cn_shape *out, cn_error *err)
{
  (void) rule;
  const cn_params_gather *g = p;
  cn_status st;
  if (g == NULL)
    return cn_error_set (err, CN_EINVAL, "gather: missing attributes");
  if (n_in != 2)
    return cn_error_set (err, CN_EINVAL, "gather: takes 2 inputs (x, index), got %d", n_in);
  if ((st = cn__shape_valid ("gather", "input", in[0], err)) != CN_OK || (st = cn__shape_valid ("gather", "index", in[1], err)) != CN_OK
      || (st = index_shape_ok ("gather", g->axis, in[0], in[1], err)) != CN_OK)
    return st;
  *out = cn__shape_clean (in[1]);
  return CN_OK;
}

static cn_status
scatter_check (const struct cn_op_rule *rule, const void *p, int n_in, const cn_shape *const *in, cn_shape *out, cn_error *err)
{
  (void) rule;
  const cn_params_scatter *sp = p;
  cn_status st;
  if (sp == NULL)
    return cn_error_set (err, CN_EINVAL, "scatter: missing attributes");
  if (n_in != 3)
    return cn_error_set (err, CN_EINVAL, "scatter: takes 3 inputs (x, index, src), got %d", n_in);
  if ((int) sp->reduce < (int) CN_SCATTER_REPLACE || (int) sp->reduce > (int) CN_SCATTER_MIN)
    return cn_error_set (err, CN_EINVAL, "scatter: unknown reduction %d", (int) sp->reduce);
  if ((st = cn__shape_valid ("scatter", "input", in[0], err)) != CN_OK
      || (st = cn__shape_valid ("scatter", "index", in[1], err)) != CN_OK
      || (st = cn__shape_valid ("scatter", "src", in[2], err)) != CN_OK
      || (st = index_shape_ok ("scatter", sp->axis, in[0], in[1], err)) != CN_OK)
    return st;
  if (!cn_shape_equal (in[1], in[2]))
    {
      char sa[128], sb[128];
      return cn_error_set (err, CN_ESHAPE, "scatter: src shape %s differs from the index shape %s",
                           cn_shape_format (in[2], sa, sizeof sa), cn_shape_format (in[1], sb, sizeof sb));
    }
  *out = cn__shape_clean (in[0]);
  return CN_OK;
}

static cn_status
index_at_check (const struct cn_op_rule *rule, const void *p, int n_in, const cn_shape *const *in, cn_shape *out, cn_error *err)
{
  (void) rule;
  (void) p;
  cn_status st;
  if (n_in != 2)
    return cn_error_set (err, CN_EINVAL, "indexAt: takes 2 inputs (x, index), got %d", n_in);
  if ((st = cn__shape_valid ("indexAt", "input", in[0], err)) != CN_OK
      || (st = cn__shape_valid ("indexAt", "index", in[1], err)) != CN_OK)
    return st;
  const cn_shape *xs = in[0], *is = in[1];
  if (is->rank < 1)
    return cn_error_set (err, CN_ESHAPE, "indexAt: the index must have rank >= 1 (its last axis holds the tuples)");
  int64_t r = is->dim[is->rank - 1];
  if (r < 1 || r > xs->rank)
    return cn_error_set (err, CN_ESHAPE, "indexAt: index tuples of length %lld for an input of rank %d", (long long) r,
                         xs->rank);
  if (is->rank - 1 + xs->rank - r > CN_MAX_RANK)
    return cn_error_set (err, CN_ESHAPE, "indexAt: the output rank exceeds %d", CN_MAX_RANK);
  for (int a = 0; a < r; a++)
    if (xs->dim[a] == 0 && cn_shape_numel (is) > 0)
      return cn_error_set (err, CN_ESHAPE, "indexAt: axis %d of the input is empty, so no index is valid", a);
  cn_shape o;
  memset (&o, 0, sizeof o);
  for (int a = 0; a < is->rank - 1; a++)
    o.dim[o.rank++] = is->dim[a];
  for (int a = (int) r; a < xs->rank; a++)
    o.dim[o.rank++] = xs->dim[a];
  if (cn_shape_numel (&o) < 0)
    return cn_error_set (err, CN_EINVAL, "indexAt: the output has too many elements");
  *out = o;
  return CN_OK;
}

static cn_status
embedding_check (const struct cn_op_rule *rule, const void *p, int n_in, const cn_shape *const *in, cn_shape *out, cn_error *err)
{
  (void) rule;
  (void) p;
  cn_status st;
  if (n_in != 2)
    return cn_error_set (err, CN_EINVAL, "embedding: takes 2 inputs (indices, weight), got %d", n_in);
  if ((st = cn__shape_valid ("embedding", "indices", in[0], err)) != CN_OK
      || (st = cn__shape_valid ("embedding", "weight", in[1], err)) != CN_OK)
    return st;
  if (in[1]->rank != 2)
    return cn_error_set (err, CN_ESHAPE, "embedding: the weight must have rank 2 ([num, dim]), got rank %d", in[1]->rank);
  if (in[0]->rank + 1 > CN_MAX_RANK)
    return cn_error_set (err, CN_ESHAPE, "embedding: the output rank exceeds %d", CN_MAX_RANK);
  if (in[1]->dim[0] == 0 && cn_shape_numel (in[0]) > 0)
    return cn_error_set (err, CN_ESHAPE, "embedding: the weight has no rows, so no index is valid");
  cn_shape o = cn__shape_clean (in[0]);
  o.dim[o.rank++] = in[1]->dim[1];
  if (cn_shape_numel (&o) < 0)
    return cn_error_set (err, CN_EINVAL, "embedding: the output has too many elements");
  *out = o;
  return CN_OK;
}

/* gather and indexAt: x an element port, the index the model's scalar (an index port); the
 * output holds x's sort. */
static cn_status
pick_out_sort (const struct cn_op_rule *rule, const void *p, int n_in, const cn_dtype *in, cn_dtype *out,
               cn_error *err)
{
  (void) p;
  const char *op = cn_op_name (rule->op);
  cn_dtype x = CN_DTYPE_F64, ix = CN_DTYPE_F64;
  cn_status st;
  if (n_in != 2)
    return cn_error_set (err, CN_EINVAL, "%s: takes 2 inputs (x, index), got %d", op, n_in);
  if ((st = cn__sort_at (op, 0, in, &x, err)) != CN_OK || (st = cn__sort_at (op, 1, in, &ix, err)) != CN_OK)
    return st;
  if (ix != CN_DTYPE_F64)
    return cn_error_set (err, CN_EINVAL, "%s: the index (input 1) holds %s where the model's scalar is expected", op,
                         cn__sort_name (ix));
  *out = x;
  return CN_OK;
}

/* scatter: x and src (element ports) agree, the index holds the model's scalar, and a Boolean
 * scatter is a replacement. */
static cn_status
scatter_out_sort (const struct cn_op_rule *rule, const void *p, int n_in, const cn_dtype *in, cn_dtype *out, cn_error *err)
{
  (void) rule;
  static const char *const red[] = { "replace", "sum", "prod", "max", "min" };
  const cn_params_scatter *sp = p;
  cn_dtype x = CN_DTYPE_F64, ix = CN_DTYPE_F64, src = CN_DTYPE_F64;
  cn_status st;
  if (sp == NULL)
    return cn_error_set (err, CN_EINVAL, "scatter: missing attributes");
  if (n_in != 3)
    return cn_error_set (err, CN_EINVAL, "scatter: takes 3 inputs (x, index, src), got %d", n_in);
  if ((st = cn__sort_at ("scatter", 0, in, &x, err)) != CN_OK || (st = cn__sort_at ("scatter", 1, in, &ix, err)) != CN_OK
      || (st = cn__sort_at ("scatter", 2, in, &src, err)) != CN_OK)
    return st;
  if (ix != CN_DTYPE_F64)
    return cn_error_set (err, CN_EINVAL, "scatter: the index (input 1) holds %s where the model's scalar is expected",
                         cn__sort_name (ix));
  if (src != x)
    return cn_error_set (err, CN_EINVAL, "scatter: input 2 holds %s where input 0 holds %s", cn__sort_name (src),
                         cn__sort_name (x));
  if (x == CN_DTYPE_BOOL && sp->reduce != CN_SCATTER_REPLACE)
    {
      int r = (int) sp->reduce;
      return cn_error_set (err, CN_EINVAL, "scatter: a Boolean scatter has a rule only as a replacement, not reduce '%s'",
                           r >= 0 && r <= (int) CN_SCATTER_MIN ? red[r] : "(invalid)");
    }
  *out = x;
  return CN_OK;
}

static const cn_port_kind gather_elem_ports[2] = { CN_PORT_ELEMENT, CN_PORT_INDEX };   /* gather, indexAt */
static const cn_port_kind scatter_ports[3] = { CN_PORT_ELEMENT, CN_PORT_INDEX, CN_PORT_ELEMENT };
static const cn_port_kind embedding_ports[2] = { CN_PORT_INDEX, CN_PORT_VALUE };

static const struct pick_impl gather_impl = { .index_port = 1, .words = 1, .reads_sort = 1, .build = gather_map };

const struct cn_op_rule cn__rule_GATHER = { .op = CN_OP_GATHER, .impl = &gather_impl,
  .n_in = 2, .in_kind = gather_elem_ports, .check = gather_check,
  .out_sort = pick_out_sort, .forward = pick_forward, .pullback = pick_pullback, .jvp = pick_jvp, .ibp = pick_ibp,
  .ibp_mpfi = pick_mpfi, .crown = pick_crown, .roundoff32 = cn__roundoff32_exact,
  .certs = CN__CERTS (CN__CERT_GRADIENT, CN__CERT_BOUNDS, CN__CERT_ROUNDOFF32 (CN__ROUNDOFF32_EXACT_WHY)),
};

static const struct pick_impl scatter_impl = { .index_port = 1, .words = 1, .reads_sort = 1, .build = scatter_map };

const struct cn_op_rule cn__rule_SCATTER = { .op = CN_OP_SCATTER, .impl = &scatter_impl,
  .n_in = 3, .in_kind = scatter_ports, .check = scatter_check,
  .out_sort = scatter_out_sort, .forward = pick_forward, .pullback = pick_pullback, .jvp = pick_jvp, .ibp = pick_ibp,
  .ibp_mpfi = pick_mpfi, .crown = pick_crown,
  .certs = CN__CERTS (CN__CERT_GRADIENT, CN__CERT_BOUNDS),
};

static const struct pick_impl index_at_impl = { .index_port = 1, .words = 1, .reads_sort = 0, .build = index_at_map };

const struct cn_op_rule cn__rule_INDEX_AT = { .op = CN_OP_INDEX_AT, .impl = &index_at_impl,
  .n_in = 2, .in_kind = gather_elem_ports, .check = index_at_check, .out_sort = pick_out_sort,
  .forward = pick_forward, .pullback = pick_pullback, .jvp = pick_jvp, .ibp = pick_ibp, .ibp_mpfi = pick_mpfi,
  .crown = pick_crown,
  .certs = CN__CERTS (CN__CERT_GRADIENT, CN__CERT_BOUNDS),
};

static const struct pick_impl embedding_impl = { .index_port = 0, .words = 0, .reads_sort = 0, .build = embedding_map };

const struct cn_op_rule cn__rule_EMBEDDING = { .op = CN_OP_EMBEDDING, .impl = &embedding_impl,
  .n_in = 2, .in_kind = embedding_ports, .check = embedding_check,
  .forward = pick_forward, .pullback = pick_pullback, .jvp = pick_jvp, .ibp = pick_ibp, .ibp_mpfi = pick_mpfi,
  .crown = pick_crown,
  .certs = CN__CERTS (CN__CERT_GRADIENT, CN__CERT_BOUNDS),
};
