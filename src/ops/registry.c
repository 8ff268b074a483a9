/* SPDX-License-Identifier: MIT */
/* src/ops/registry.c: the operator table, generated from certnn/ops.def: each operator's name,
 * family, rule and attribute record (its descriptor, src/ops/records.c, and so its size).
 * Tables are indexed by designated initializers, so row order cannot drift. */
#include <config.h>
#include <string.h>
#include "ops/ops_impl.h"

#define CN__RULE_PTR_0(id) NULL
#define CN__RULE_PTR_1(id) &cn__rule_##id

static const struct
{
  const char *name;
  cn_family family;
  const struct cn_op_rule *rule;
  const struct cn__record *record;    /* the descriptor of the record the row names */
} op_info[] = {
#define CN_OP(id, name, family, rule, record)                                                     \
  [CN_OP_##id] = { name, CN_FAMILY_##family, CN__RULE_PTR_##rule (id), &cn__record_##record },
#include "certnn/ops.def"
#undef CN_OP
};
_Static_assert (sizeof op_info / sizeof op_info[0] == CN_OP_COUNT, "ops.def and op_info[] disagree");
_Static_assert (CN_OP_COUNT == 154, "the seed's table has 154 operators");

static const char *const family_name[] = {
  [CN_FAMILY_ELEMENTWISE] = "elementwise",       [CN_FAMILY_TRANSCENDENTAL] = "transcendental",
  [CN_FAMILY_ROUNDING] = "rounding",             [CN_FAMILY_EXTREMA] = "extrema",
  [CN_FAMILY_ACTIVATION] = "activation",         [CN_FAMILY_LOGIC] = "logic",
  [CN_FAMILY_INTEGER] = "integer",               [CN_FAMILY_SCAN] = "scan",
  [CN_FAMILY_INDEXING] = "indexing",             [CN_FAMILY_MOVEMENT] = "movement",
  [CN_FAMILY_REDUCTION] = "reduction",           [CN_FAMILY_PRODUCT] = "product",
  [CN_FAMILY_CONV] = "conv",                     [CN_FAMILY_NORMALIZATION] = "normalization",
  [CN_FAMILY_SOFTMAX] = "softmax",               [CN_FAMILY_LOSS] = "loss",
  [CN_FAMILY_RANDOM] = "random",                 [CN_FAMILY_SPECTRAL] = "spectral",
  [CN_FAMILY_GRAPH] = "graph",
};
_Static_assert (sizeof family_name / sizeof family_name[0] == CN_FAMILY_COUNT, "family names incomplete");

const struct cn_op_rule *
cn__op_rule (cn_op op)
{
  return (unsigned) op < CN_OP_COUNT ? op_info[op].rule : NULL;
}

const char *
cn_op_name (cn_op op)
{
  return (unsigned) op < CN_OP_COUNT ? op_info[op].name : NULL;
}

cn_family
cn_op_family (cn_op op)
{
  return (unsigned) op < CN_OP_COUNT ? op_info[op].family : CN_FAMILY_COUNT;
}

const char *
cn_family_name (cn_family f)
{
  return (unsigned) f < CN_FAMILY_COUNT ? family_name[f] : NULL;
}

cn_op
cn_op_lookup (const char *name)
{
  for (int i = 0; i < CN_OP_COUNT; i++)
    if (strcmp (op_info[i].name, name) == 0)
      return (cn_op) i;
  return CN_OP_COUNT;
}

int
cn_op_n_outputs (cn_op op)
{
  const struct cn_op_rule *r = cn__op_rule (op);
  return r ? cn__rule_n_out (r) : 0;
}

const char *
cn_op_output_name (cn_op op, int k)
{
  const struct cn_op_rule *r = cn__op_rule (op);
  if (r == NULL || k < 0 || k >= cn__rule_n_out (r))
    return NULL;
  return r->out_name != NULL ? r->out_name[k] : "output";
}

const struct cn__record *
cn__op_record (cn_op op)
{
  return (unsigned) op < CN_OP_COUNT ? op_info[op].record : NULL;
}

size_t
cn_op_params_size (cn_op op)
{
  return (unsigned) op < CN_OP_COUNT ? op_info[op].record->size : 0;
}
