/* SPDX-License-Identifier: MIT */
/* src/io/onnx/product.c: ONNX's products (MatMul, Gemm, Einsum) onto matmul, linear and contract,
 * with permute, reshape and reduce around them.  Products of constants fold where their value is
 * exact; one that would round (a MatMul of two constants, say) stays a node and is bounded as
 * such. */
#include <config.h>
#include <stdio.h>
#include <string.h>
#include "graph/graph_impl.h"
#include "io/onnx/onnx_impl.h"

/* Checks numpy matmul shapes (1-D operands promoted, batch prefixes broadcast). */
static cn_status
check_matmul (cn__onnx_node *nc, const cn_shape *a, const cn_shape *b)
{
  char x[128], y[128];
  if (a->rank == 0 || b->rank == 0)
    goto bad;
  int64_t ka = a->dim[a->rank - 1];
  int64_t kb = b->rank == 1 ? b->dim[0] : b->dim[b->rank - 2];
  if (ka != kb)
    goto bad;
  if (a->rank > 2 || b->rank > 2)
    {
      cn_shape pa, pb, po;
      memset (&pa, 0, sizeof pa);
      memset (&pb, 0, sizeof pb);
      pa.rank = a->rank > 2 ? a->rank - 2 : 0;
      pb.rank = b->rank > 2 ? b->rank - 2 : 0;
      memcpy (pa.dim, a->dim, (size_t) pa.rank * sizeof pa.dim[0]);
      memcpy (pb.dim, b->dim, (size_t) pb.rank * sizeof pb.dim[0]);
      if (!cn__onnx_broadcast_shape (&pa, &pb, &po))
        goto bad;
    }
  return CN_OK;
bad:
  return cn_error_set (nc->err, CN_ESHAPE, "input shapes %s and %s do not multiply", cn_shape_format (a, x, sizeof x),
                       cn_shape_format (b, y, sizeof y));
}

static cn_status
op_matmul (cn__onnx_node *nc)
{
  cn_status st;
  int x[2], v;
  if ((st = cn__onnx_need (nc, 0)) != CN_OK || (st = cn__onnx_need (nc, 1)) != CN_OK
      || (st = check_matmul (nc, cn__onnx_shape (nc, 0), cn__onnx_shape (nc, 1))) != CN_OK
      || (st = cn__onnx_in (nc, 0, &x[0])) != CN_OK || (st = cn__onnx_in (nc, 1, &x[1])) != CN_OK
      || (st = cn__onnx_add (nc, CN_OP_MATMUL, NULL, 2, x, NULL, &v)) != CN_OK)
    return st;
  return cn__onnx_out (nc, 0, v, 1);
}

/* *V = F X where that product folds exactly (F a constant of X's shape; X itself for F = 1),
 * else *V = -1 (nothing added). */
static cn_status
scale_folded (cn__onnx_node *nc, int x, double f, const char *suffix, int *v)
{
  if (f == 1.0)
    {
      *v = x;
      return CN_OK;
    }
  int c, in[2];
  char nm[64];
  snprintf (nm, sizeof nm, "%s_factor", suffix);
  cn_status st = cn__onnx_fill (nc, CN_DTYPE_F64, cn_graph_value_shape (nc->imp->g, x), f, nm, &c);
  in[0] = x;
  in[1] = c;
  return st != CN_OK ? st : cn__onnx_add_folded (nc, CN_OP_MUL, NULL, 2, in, suffix, v);
}

/* Gemm: Y = alpha A' B' + beta C with A' = transA ? A^T : A, B' likewise.  With a constant
 * floating B it is linear(A', W, bias): W = alpha B'^T where that product is exact (always so
 * for binary32 weights, whose products with a binary32 factor fit in binary64), else B'^T and a
 * mul by alpha after the product; the bias beta C as a vector when C is constant, the same for
 * every row and exactly scaled, else zeros and C added after the product (scaled by beta, exactly
 * folded or by a mul node).  Otherwise a matmul.  Transposes are permute nodes (folded for
 * constants). */
static cn_status
op_gemm (cn__onnx_node *nc)
{
  cn_status st;
  int64_t ta, tb;
  double alpha, beta;
  static const int perm[2] = { 1, 0 };
  char s1[128], s2[128];
  if ((st = cn__onnx_need (nc, 0)) != CN_OK || (st = cn__onnx_need (nc, 1)) != CN_OK
      || (st = cn__onnx_attr_int (nc, "transA", 0, &ta)) != CN_OK
      || (st = cn__onnx_attr_int (nc, "transB", 0, &tb)) != CN_OK
      || (st = cn__onnx_attr_float (nc, "alpha", 1.0, &alpha)) != CN_OK
      || (st = cn__onnx_attr_float (nc, "beta", 1.0, &beta)) != CN_OK)
    return st;
  cn_shape sa = *cn__onnx_shape (nc, 0), sb = *cn__onnx_shape (nc, 1);
  if (sa.rank != 2 || sb.rank != 2)
    return cn_error_set (nc->err, CN_ESHAPE, "A %s and B %s must be matrices", cn_shape_format (&sa, s1, sizeof s1),
                         cn_shape_format (&sb, s2, sizeof s2));
  int64_t m = ta ? sa.dim[1] : sa.dim[0], k = ta ? sa.dim[0] : sa.dim[1];
  int64_t kb = tb ? sb.dim[1] : sb.dim[0], n = tb ? sb.dim[0] : sb.dim[1];
  if (k != kb)
    return cn_error_set (nc->err, CN_ESHAPE, "A %s%s and B %s%s do not multiply", cn_shape_format (&sa, s1, sizeof s1),
                         ta ? " (transposed)" : "", cn_shape_format (&sb, s2, sizeof s2), tb ? " (transposed)" : "");
  cn_shape ys, bs, rs;
  int64_t yd[2] = { m, n }, one_n[2] = { 1, n };
  cn_shape_make (&ys, 2, yd, NULL);
  cn_shape_make (&bs, 1, &n, NULL);
  cn_shape_make (&rs, 2, one_n, NULL);
  int has_c = cn__onnx_has (nc, 2);

  /* a = A' */
  int a, y;
  if ((st = cn__onnx_in (nc, 0, &a)) != CN_OK || (ta && (st = cn__onnx_permute (nc, a, 2, perm, "A_T", &a)) != CN_OK))
    return st;
  int c_done = 0;          /* beta C already in the linear node's bias */
  int alpha_done = 0;      /* alpha already folded into the weight */
  const cn_tensor *B = cn__onnx_const (nc, 1);
  if (B != NULL && cn_dtype_is_float (B->dtype))
    {
      /* W = alpha B'^T, [n, k]: folded exactly when possible */
      int b, w, bias, in3[3];
      if ((st = cn__onnx_in (nc, 1, &b)) != CN_OK || (!tb && (st = cn__onnx_permute (nc, b, 2, perm, "W", &b)) != CN_OK)
          || (st = scale_folded (nc, b, alpha, "W", &w)) != CN_OK)
        return st;
      alpha_done = w >= 0;
      if (!alpha_done)
        w = b;
      /* The bias: beta C as a vector [n] when C is constant and row-independent (rank < 2 or one
       * row), scaled exactly; zeros otherwise (C is then added after the product). */
      const cn_tensor *C = has_c ? cn__onnx_const (nc, 2) : NULL;
      if (C != NULL && cn_dtype_is_float (C->dtype) && alpha_done && (C->shape.rank < 2 || C->shape.dim[0] == 1))
        {
          int c, cr, cs;
          cn_shape cshape = C->shape;
          if ((st = cn__onnx_in (nc, 2, &c)) != CN_OK)
            return st;
          if (beta == 1.0 && cn_shape_equal (&cshape, &bs))
            {
              bias = c;
              c_done = 1;
            }
          else
            {
              char a1[128];
              cn_shape t;
              if (!cn__onnx_broadcast_shape (&cshape, &rs, &t) || !cn_shape_equal (&t, &rs))
                return cn_error_set (nc->err, CN_ESHAPE, "a constant of shape %s does not broadcast to %s",
                                     cn_shape_format (&cshape, a1, sizeof a1), cn_shape_format (&rs, s2, sizeof s2));
              if ((st = cn__onnx_broadcast (nc, c, &rs, "bias_row", &cr)) != CN_OK
                  || (st = scale_folded (nc, cr, beta, "bias_scaled", &cs)) != CN_OK)
                return st;
              if (cs >= 0)
                {
                  if ((st = cn__onnx_reshape (nc, cs, &bs, "bias", &bias)) != CN_OK)
                    return st;
                  c_done = 1;
                }
            }
        }
      if (!c_done && (st = cn__onnx_fill (nc, CN_DTYPE_F64, &bs, 0.0, "zero_bias", &bias)) != CN_OK)
        return st;
      in3[0] = a;
      in3[1] = w;
      in3[2] = bias;
      if ((st = cn__onnx_add (nc, CN_OP_LINEAR, NULL, 3, in3, (c_done || !has_c) && alpha_done ? NULL : "linear", &y))
          != CN_OK)
        return st;
    }
  else
    {
      int b, last = !has_c && alpha == 1.0;
      if ((st = cn__onnx_in (nc, 1, &b)) != CN_OK
          || (tb && (st = cn__onnx_permute (nc, b, 2, perm, "B_T", &b)) != CN_OK)
          || (st = cn__onnx_add2 (nc, CN_OP_MATMUL, NULL, a, b, last ? NULL : "matmul", &y)) != CN_OK)
        return st;
    }
  if (!alpha_done && alpha != 1.0)
    {
      int last = !has_c || c_done;
      if ((st = cn__onnx_mul_scalar (nc, y, alpha, last ? NULL : "alpha", &y)) != CN_OK)
        return st;
    }
  if (has_c && !c_done)
    {
      /* Y = y + beta C, C broadcast to [m, n]. */
      int c, cb;
      cn_shape cshape = *cn__onnx_shape (nc, 2), t;
      if (!cn__onnx_broadcast_shape (&cshape, &ys, &t) || !cn_shape_equal (&t, &ys))
        return cn_error_set (nc->err, CN_ESHAPE, "C %s does not broadcast to %s",
                             cn_shape_format (&cshape, s1, sizeof s1),
                             cn_shape_format (&ys, s2, sizeof s2));
      const cn_tensor *C = cn__onnx_const (nc, 2);
      if ((st = cn__onnx_operand_at (nc, 2, &ys, "C", &cb)) != CN_OK)
        return st;
      c = cb;
      if (beta != 1.0)
        {
          /* a constant C scaled exactly folds; otherwise a mul node */
          if (C != NULL && cn_dtype_is_float (C->dtype) && (st = scale_folded (nc, cb, beta, "C", &c)) != CN_OK)
            return st;
          if ((C == NULL || c < 0) && (st = cn__onnx_mul_scalar (nc, cb, beta, "beta", &c)) != CN_OK)
            return st;
        }
      if ((st = cn__onnx_add2 (nc, CN_OP_ADD, NULL, y, c, NULL, &y)) != CN_OK)
        return st;
    }
  return cn__onnx_out (nc, 0, y, 1);
}

/* ---- Einsum ----------------------------------------------------------------------------------
 *
 * One or two operands, every subscript a letter, no ellipsis and no letter twice in one operand
 * (no diagonals); the output explicit ("ij,jk->ik") or implicit (the letters seen once, in
 * alphabetical order, as numpy).  A letter names one extent everywhere (no broadcasting).
 * Mapping: the letters of an operand that appear nowhere else (neither in the other operand nor
 * in the output) are summed out first (reduce); then one operand is a permute; two operands
 * without a letter shared by both and the output are one contract (the shared letters summed),
 * and with such batch letters one matmul of [batch, free_a, shared] by [batch, shared, free_b]
 * (permutes and reshapes around it); a permute puts the output's letters in order.  Other
 * equations are refused, naming the equation. */
#define EINSUM_MAX 64

struct ein
{
  int n;                            /* operands */
  char sub[2][CN_MAX_RANK + 1];     /* their letters */
  char out[CN_MAX_RANK + 1];        /* the output's letters */
  int64_t ext[128];                 /* extent of each letter, -1 when unseen */
};

/* Parses EQ (the attribute) for the operand shapes; messages name the equation. */
static cn_status
einsum_parse (cn__onnx_node *nc, const char *eq, struct ein *e)
{
  char sides[2][EINSUM_MAX];
  int explicit_out = 0, k = 0, side = 0;
  memset (e, 0, sizeof *e);
  for (int c = 0; c < 128; c++)
    e->ext[c] = -1;
  memset (sides, 0, sizeof sides);
  for (const char *p = eq; *p; p++)
    {
      if (*p == ' ')
        continue;
      if (p[0] == '-' && p[1] == '>' && side == 0)
        {
          side = 1;
          k = 0;
          explicit_out = 1;
          p++;
          continue;
        }
      if (k >= EINSUM_MAX - 1)
        goto bad;
      sides[side][k++] = *p;
    }
  if (strstr (eq, "...") != NULL)
    return cn_error_set (nc->err, CN_EUNSUPPORTED, "equation '%s': an ellipsis is not supported", eq);
  /* the operands, separated by commas */
  const char *l = sides[0];
  for (e->n = 0;; e->n++)
    {
      const char *comma = strchr (l, ',');
      size_t len = comma ? (size_t) (comma - l) : strlen (l);
      if (e->n >= 2)
        return cn_error_set (nc->err, CN_EUNSUPPORTED, "equation '%s': more than two operands are not supported", eq);
      if (len > CN_MAX_RANK)
        goto bad;
      memcpy (e->sub[e->n], l, len);
      e->sub[e->n][len] = '\0';
      if (comma == NULL)
        {
          e->n++;
          break;
        }
      l = comma + 1;
    }
  if (e->n != nc->n_in)
    return cn_error_set (nc->err, CN_EINVAL, "equation '%s' has %d operands, the node %d inputs", eq, e->n, nc->n_in);
  for (int i = 0; i < e->n; i++)
    {
      cn_status st = cn__onnx_need (nc, i);
      if (st != CN_OK)
        return st;
      const cn_shape *s = cn__onnx_shape (nc, i);
      const char *q = e->sub[i];
      if ((int) strlen (q) != s->rank)
        return cn_error_set (nc->err, CN_ESHAPE, "equation '%s': operand %d has %zu subscripts and rank %d", eq, i,
                             strlen (q), s->rank);
      for (int d = 0; q[d]; d++)
        {
          unsigned char c = (unsigned char) q[d];
          if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')))
            goto bad;
          if (strchr (q + d + 1, c) != NULL)
            return cn_error_set (nc->err, CN_EUNSUPPORTED, "equation '%s': the subscript '%c' twice in operand %d "
                                 "(a diagonal) is not supported", eq, c, i);
          if (e->ext[c] >= 0 && e->ext[c] != s->dim[d])
            return cn_error_set (nc->err, CN_ESHAPE, "equation '%s': subscript '%c' has extents %lld and %lld", eq, c,
                                 (long long) e->ext[c], (long long) s->dim[d]);
          e->ext[c] = s->dim[d];
        }
    }
  if (explicit_out)
    {
      if (strlen (sides[1]) > CN_MAX_RANK)
        goto bad;
      strcpy (e->out, sides[1]);
      for (int d = 0; e->out[d]; d++)
        {
          unsigned char c = (unsigned char) e->out[d];
          if (c >= 128 || e->ext[c] < 0 || strchr (e->out + d + 1, c) != NULL)
            goto bad;
        }
    }
  else
    {
      /* the letters seen once, in alphabetical order (upper case before lower case, as ASCII) */
      int k2 = 0;
      for (int c = 'A'; c <= 'z'; c++)
        if (e->ext[c] >= 0)
          {
            int seen = 0;
            for (int i = 0; i < e->n; i++)
              seen += strchr (e->sub[i], c) != NULL;
            if (seen == 1)
              {
                if (k2 >= CN_MAX_RANK)
                  goto bad;
                e->out[k2++] = (char) c;
              }
          }
    }
  return CN_OK;
bad:
  return cn_error_set (nc->err, CN_EUNSUPPORTED, "equation '%s' is not supported (letters only, at most %d per "
                       "operand, each output letter once and in an operand)", eq, CN_MAX_RANK);
}

/* *V = X (letters *SUB) with the letters that are in neither KEEP1 nor KEEP2 summed out; *SUB
 * becomes the remaining letters. */
static cn_status
einsum_sum_out (cn__onnx_node *nc, int x, char *sub, const char *keep1, const char *keep2, const char *suffix, int *v)
{
  uint32_t mask = 0;
  char rest[CN_MAX_RANK + 1];
  int k = 0;
  for (int d = 0; sub[d]; d++)
    if (strchr (keep1, sub[d]) == NULL && strchr (keep2, sub[d]) == NULL)
      mask |= 1u << d;
    else
      rest[k++] = sub[d];
  rest[k] = '\0';
  *v = x;
  if (mask == 0)
    return CN_OK;
  cn_params_reduce p = { CN_REDUCE_SUM, mask, 0 };
  strcpy (sub, rest);
  return cn__onnx_add1 (nc, CN_OP_REDUCE, &p, x, suffix, v);
}

/* The permutation taking the letters FROM to the order TO (the same letters). */
static void
letters_perm (const char *from, const char *to, int *perm)
{
  for (int i = 0; to[i]; i++)
    perm[i] = (int) (strchr (from, to[i]) - from);
}

static cn_status
op_einsum (cn__onnx_node *nc)
{
  const Onnx__AttributeProto *at = cn__onnx_attr (nc, "equation");
  char eq[EINSUM_MAX + 1];
  struct ein e;
  cn_status st;
  if (at == NULL || !cn__onnx_attr_is (at, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING))
    return cn_error_set (nc->err, CN_EPARSE, "attribute equation is missing");
  if (at->s.len > EINSUM_MAX)
    return cn_error_set (nc->err, CN_EUNSUPPORTED, "an equation of %zu characters is not supported", at->s.len);
  if (at->s.len > 0)
    memcpy (eq, at->s.data, at->s.len);
  eq[at->s.len] = '\0';
  if (strlen (eq) != at->s.len)
    return cn_error_set (nc->err, CN_EPARSE, "the equation holds a NUL character");
  if ((st = einsum_parse (nc, eq, &e)) != CN_OK)
    return st;
  int perm[CN_MAX_RANK], a, a0, b, v;
  char sa[CN_MAX_RANK + 1], sb[CN_MAX_RANK + 1];
  strcpy (sa, e.sub[0]);
  strcpy (sb, e.n == 2 ? e.sub[1] : "");
  if ((st = cn__onnx_in (nc, 0, &a0)) != CN_OK || (st = einsum_sum_out (nc, a0, sa, e.out, sb, "sum0", &a)) != CN_OK)
    return st;
  if (e.n == 1)
    {
      letters_perm (sa, e.out, perm);
      if ((st = cn__onnx_permute (nc, a, (int) strlen (e.out), perm, NULL, &v)) != CN_OK)
        return st;
      return v == a0 ? cn__onnx_out_alias (nc, 0, 0) : cn__onnx_out (nc, 0, v, 1);
    }
  if ((st = cn__onnx_in (nc, 1, &b)) != CN_OK || (st = einsum_sum_out (nc, b, sb, e.out, sa, "sum1", &b)) != CN_OK)
    return st;
  /* the letters: batch (both operands and the output), shared (both, summed), free_a, free_b */
  char bat[CN_MAX_RANK + 1] = "", shr[CN_MAX_RANK + 1] = "", fa[CN_MAX_RANK + 1] = "", fb[CN_MAX_RANK + 1] = "";
  int nbat = 0, nshr = 0, nfa = 0, nfb = 0;
  for (int d = 0; sa[d]; d++)
    if (strchr (sb, sa[d]) == NULL)
      fa[nfa++] = sa[d];
    else if (strchr (e.out, sa[d]) != NULL)
      bat[nbat++] = sa[d];
    else
      shr[nshr++] = sa[d];
  for (int d = 0; sb[d]; d++)
    if (strchr (sa, sb[d]) == NULL)
      fb[nfb++] = sb[d];
  bat[nbat] = shr[nshr] = fa[nfa] = fb[nfb] = '\0';
  char res[2 * CN_MAX_RANK + 1];
  int y;
  if (nbat == 0)
    {
      cn_params_contract pc;
      memset (&pc, 0, sizeof pc);
      pc.n = nshr;
      for (int q = 0; q < nshr; q++)
        {
          pc.a_axes[q] = (int) (strchr (sa, shr[q]) - sa);
          pc.b_axes[q] = (int) (strchr (sb, shr[q]) - sb);
        }
      if (nfa + nfb > CN_MAX_RANK)
        return cn_error_set (nc->err, CN_EUNSUPPORTED, "equation '%s': the product has rank %d, above %d", eq,
                             nfa + nfb, CN_MAX_RANK);
      if ((st = cn__onnx_add2 (nc, CN_OP_CONTRACT, &pc, a, b, "contract", &y)) != CN_OK)
        return st;
      snprintf (res, sizeof res, "%s%s", fa, fb);
    }
  else
    {
      /* [batch, free_a, shared] @ [batch, shared, free_b] as [Bt, M, K] @ [Bt, K, N] */
      char oa[CN_MAX_RANK + 1], ob[CN_MAX_RANK + 1];
      int64_t Bt = 1, M = 1, K = 1, N = 1;
      snprintf (oa, sizeof oa, "%s%s%s", bat, fa, shr);
      snprintf (ob, sizeof ob, "%s%s%s", bat, shr, fb);
      for (int d = 0; bat[d]; d++)
        Bt *= e.ext[(unsigned char) bat[d]];
      for (int d = 0; fa[d]; d++)
        M *= e.ext[(unsigned char) fa[d]];
      for (int d = 0; shr[d]; d++)
        K *= e.ext[(unsigned char) shr[d]];
      for (int d = 0; fb[d]; d++)
        N *= e.ext[(unsigned char) fb[d]];
      cn_shape s3a, s3b, sr;
      int64_t da[3] = { Bt, M, K }, db[3] = { Bt, K, N };
      cn_shape_make (&s3a, 3, da, NULL);
      cn_shape_make (&s3b, 3, db, NULL);
      snprintf (res, sizeof res, "%s%s%s", bat, fa, fb);
      if (strlen (res) > CN_MAX_RANK)
        return cn_error_set (nc->err, CN_EUNSUPPORTED, "equation '%s': the product has rank %zu, above %d", eq,
                             strlen (res), CN_MAX_RANK);
      memset (&sr, 0, sizeof sr);
      sr.rank = (int) strlen (res);
      for (int d = 0; res[d]; d++)
        sr.dim[d] = e.ext[(unsigned char) res[d]];
      letters_perm (sa, oa, perm);
      if ((st = cn__onnx_permute (nc, a, (int) strlen (oa), perm, "order0", &a)) != CN_OK
          || (st = cn__onnx_reshape (nc, a, &s3a, "flat0", &a)) != CN_OK)
        return st;
      letters_perm (sb, ob, perm);
      if ((st = cn__onnx_permute (nc, b, (int) strlen (ob), perm, "order1", &b)) != CN_OK
          || (st = cn__onnx_reshape (nc, b, &s3b, "flat1", &b)) != CN_OK
          || (st = cn__onnx_add2 (nc, CN_OP_MATMUL, NULL, a, b, "matmul", &y)) != CN_OK
          || (st = cn__onnx_reshape (nc, y, &sr, "product", &y)) != CN_OK)
        return st;
    }
  letters_perm (res, e.out, perm);
  if ((st = cn__onnx_permute (nc, y, (int) strlen (e.out), perm, NULL, &v)) != CN_OK)
    return st;
  return cn__onnx_out (nc, 0, v, 1);
}

const struct cn__onnx_handler cn__onnx_product[] = {
  { "Einsum", op_einsum, "equation", 0 },
  { "Gemm", op_gemm, "alpha beta transA transB", 0 },
  { "MatMul", op_matmul, "", 0 },
  { NULL, NULL, NULL, 0 },
};
