/* SPDX-License-Identifier: MIT */
/* src/ops/unary_impl.h: the scaffolding shared by the elementwise families and the
 * families whose arms state the same invariants (the check arms that name the rule's operator,
 * and the predicates CN__ASSERTD states), internal.
 *
 * Every helper here checks shapes or sizes only; none of them computes a value, so the
 * family-specific math (and its soundness argument) stays in the family's file.  The helpers
 * are static inline: a file that does not call one pays nothing for it. */
#ifndef CN_UNARY_IMPL_H
#define CN_UNARY_IMPL_H

#include "ops/ops_impl.h"

/* The check arm of a one-input operator: a valid input shape, copied to OUT. */
static inline cn_status
cn__check_unary (const char *op, int n_in, const cn_shape *const *in, cn_shape *out, cn_error *err)
{
  if (n_in != 1)
    return cn_error_set (err, CN_EINVAL, "%s: takes 1 input, got %d", op, n_in);
  cn_status st = cn__input_valid (op, 0, in[0], err);
  if (st != CN_OK)
    return st;
  *out = *in[0];
  return CN_OK;
}

/* The check arm of a two-input operator without broadcasting: two valid, equal shapes. */
static inline cn_status
cn__check_binary (const char *op, int n_in, const cn_shape *const *in, cn_shape *out, cn_error *err)
{
  if (n_in != 2)
    return cn_error_set (err, CN_EINVAL, "%s: takes 2 inputs, got %d", op, n_in);
  for (int i = 0; i < 2; i++)
    {
      cn_status st = cn__input_valid (op, i, in[i], err);
      if (st != CN_OK)
        return st;
    }
  if (!cn_shape_equal (in[0], in[1]))
    {
      char a[128], b[128];
      return cn_error_set (err, CN_ESHAPE, "%s: input shapes %s and %s differ", op,
                           cn_shape_format (in[0], a, sizeof a), cn_shape_format (in[1], b, sizeof b));
    }
  *out = *in[0];
  return CN_OK;
}

/* The same as check arms, naming the rule's operator: .check = cn__unary_check, or
 * cn__binary_check, for an operator without attributes. */
static inline cn_status
cn__unary_check (const struct cn_op_rule *rule, const void *p, int n_in, const cn_shape *const *in, cn_shape *out,
                 cn_error *err)
{
  (void) p;
  return cn__check_unary (cn_op_name (rule->op), n_in, in, out, err);
}

static inline cn_status
cn__binary_check (const struct cn_op_rule *rule, const void *p, int n_in, const cn_shape *const *in, cn_shape *out,
                  cn_error *err)
{
  (void) p;
  return cn__check_binary (cn_op_name (rule->op), n_in, in, out, err);
}

/* The invariants every arm of these families may state with CN__ASSERTD (src/core/assert.h):
 * the graph builder checked the node and the engines allocate from the graph, so an arm receives
 * tensors, boxes and MPFI vectors of its node's element count and sorts.  These predicates only
 * read sizes and sorts; under CN__ASSERTD they are not even evaluated in a plain build. */

/* Forward: OUT is a floating tensor with the node's element count, and every input has its sort
 * and count. */
static inline int
cn__tensors_match (const cn_node_view *nv, const cn_tensor *const *in, const cn_tensor *out)
{
  int64_t n = cn__numel (nv->out_shape);
  if (!cn_dtype_is_float (out->dtype) || cn_tensor_numel (out) != n)
    return 0;
  for (int i = 0; i < nv->n_in; i++)
    if (in[i]->dtype != out->dtype || cn_tensor_numel (in[i]) != n)
      return 0;
  return 1;
}

/* Pullback and jvp: the inputs and the output are binary64 tensors of the node's element
 * count. */
static inline int
cn__diff_match (const cn_node_view *nv, const cn_tensor *const *in, const cn_tensor *out)
{
  int64_t n = cn__numel (nv->out_shape);
  if (out->dtype != CN_DTYPE_F64 || cn_tensor_numel (out) != n)
    return 0;
  for (int i = 0; i < nv->n_in; i++)
    if (in[i]->dtype != CN_DTYPE_F64 || cn_tensor_numel (in[i]) != n)
      return 0;
  return 1;
}

/* IBP: the input and output boxes have the node's element count. */
static inline int
cn__boxes_match (const cn_node_view *nv, const cn_box *const *in, const cn_box *out)
{
  int64_t n = cn__numel (nv->out_shape);
  if (out->n != n)
    return 0;
  for (int i = 0; i < nv->n_in; i++)
    if (in[i]->n != n)
      return 0;
  return 1;
}

/* MPFI: the input and output interval vectors have the node's element count. */
static inline int
cn__mpfi_match (const cn_node_view *nv, const cn_mpfi_vec *const *in, const cn_mpfi_vec *out)
{
  int64_t n = cn__numel (nv->out_shape);
  if (out->n != n)
    return 0;
  for (int i = 0; i < nv->n_in; i++)
    if (in[i]->n != n)
      return 0;
  return 1;
}

#endif
