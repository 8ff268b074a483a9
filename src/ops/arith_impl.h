/* SPDX-License-Identifier: MIT */
/* src/ops/arith_impl.h: the integer-word meaning of the arithmetic, internal.
 *
 * add, sub, mul, div and neg (src/ops/arith.c) and pow and remainder (src/ops/elementwise.c)
 * take element ports: at integer words they compute PyTorch's integer meaning.  The words'
 * forward, IBP and MPFI arms live in arith.c, whose opening comment states their math ("Element
 * sorts") and how their boxes stay sound (exact GMP ranges, then the wrap); an operator names its
 * word operation in its own data and calls them. */
#ifndef CN_ARITH_IMPL_H
#define CN_ARITH_IMPL_H

#include "ops/ops_impl.h"

/* An operation on integer words: NONE for an operator (or a rounding mode) without one (true
 * division, the operators that take the model's scalar only). */
enum cn__wop
{
  CN__WOP_NONE,
  CN__WOP_ADD,
  CN__WOP_SUB,
  CN__WOP_MUL,
  CN__WOP_NEG,
  CN__WOP_DIV_TRUNC,
  CN__WOP_DIV_FLOOR,
  CN__WOP_POW,
  CN__WOP_REM
};

/* Whether the node view says its inputs hold integer words (the IBP, MPFI and CROWN arms read
 * the sort there; a view without sorts is taken as the model's scalar, the arms' old contract). */
static inline int
cn__word_view (const cn_node_view *nv)
{
  return nv->in_sort != NULL && (unsigned) nv->in_sort[0] < CN_DTYPE_COUNT && !cn_dtype_is_float (nv->in_sort[0]);
}

/* The out_sort hook of add, sub, mul, neg, pow and remainder: the element ports hold one sort,
 * the model's scalar or one integer sort; Booleans are refused ("add: Booleans have no arithmetic
 * ..."), the message naming the rule's operator.  OUT is that sort (CN_DTYPE_F64 for the model's
 * scalar). */
cn_status cn__arith_out_sort (const struct cn_op_rule *rule, const void *p, int n_in, const cn_dtype *in,
                              cn_dtype *out, cn_error *err);

/* The forward of OP (not NONE) on word tensors of the node's sort: every entry's divisor or
 * exponent is checked first, so that nothing is written unless all of them have a value
 * (CN_ENUMERIC naming the node's operator and the node otherwise). */
cn_status cn__word_forward (enum cn__wop op, const cn_node_view *nv, const cn_tensor *const *in, cn_tensor *out,
                            cn_error *err);

/* IBP and MPFI of OP at words (the sort read from the view, nv->in_sort): sound boxes and
 * enclosures of the words OP gives over the input boxes; CN_ENUMERIC for a box without a word of
 * the sort or one holding a point outside OP's domain (a zero divisor, a negative exponent). */
cn_status cn__word_ibp (enum cn__wop op, const cn_node_view *nv, const cn_box *const *in, cn_box *out,
                        cn_error *err);
cn_status cn__word_mpfi (enum cn__wop op, const cn_node_view *nv, const cn_mpfi_vec *const *in, cn_mpfi_vec *out,
                         cn_error *err);

#endif
