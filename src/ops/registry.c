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

/* ---- certificate records ------------------------------------------------------------------ */

static const char *const cert_kind_name[] = {
  [CN_CERT_ALGEBRAIC] = "algebraic", [CN_CERT_DERIVATIVE] = "derivative", [CN_CERT_CONVENTION] = "convention",
  [CN_CERT_PREPARED] = "prepared",   [CN_CERT_ROUNDOFF] = "roundoff",     [CN_CERT_ENCLOSURE] = "enclosure",
};
_Static_assert (sizeof cert_kind_name / sizeof cert_kind_name[0] == CN_CERT_KIND_COUNT, "kind names incomplete");
static const char *const cert_arm_name[] = {
  [CN_CERT_ARM_PULLBACK] = "pullback", [CN_CERT_ARM_JVP] = "forward mode", [CN_CERT_ARM_FORWARD] = "forward",
  [CN_CERT_ARM_IBP] = "IBP",           [CN_CERT_ARM_CROWN] = "CROWN",     [CN_CERT_ARM_CHECKER] = "checker",
};
_Static_assert (sizeof cert_arm_name / sizeof cert_arm_name[0] == CN_CERT_ARM_COUNT, "arm names incomplete");

const char *
cn_cert_kind_name (cn_cert_kind k)
{
  return (unsigned) k < CN_CERT_KIND_COUNT ? cert_kind_name[k] : NULL;
}

const char *
cn_cert_arm_name (cn_cert_arm a)
{
  return (unsigned) a < CN_CERT_ARM_COUNT ? cert_arm_name[a] : NULL;
}

int
cn_op_n_certs (cn_op op)
{
  const struct cn_op_rule *r = cn__op_rule (op);
  int n = 0;
  if (r != NULL && r->certs != NULL)
    while (r->certs[n].name != NULL)
      n++;
  return n;
}

/* The value inputs of R as a mask: the ports a gradient can reach (at the model's scalar). */
static unsigned
value_inputs (const struct cn_op_rule *r)
{
  if (r->n_in < 0)
    return cn__port_differentiable (r, 0, CN_DTYPE_F64) ? ~0u : 0;   /* variadic: every input */
  unsigned m = 0;
  int n = r->n_in;
  for (int i = 0; i < n && i < 32; i++)
    if (cn__port_differentiable (r, i, CN_DTYPE_F64))
      m |= 1u << i;
  return m;
}

unsigned
cn_op_value_inputs (cn_op op)
{
  const struct cn_op_rule *r = cn__op_rule (op);
  return r != NULL ? value_inputs (r) : 0;
}

cn_status
cn__cert_resolve (const struct cn_op_rule *r, const struct cn_op_cert *c, cn_cert_info *info, cn_error *err)
{
  const char *op = cn_op_name (r->op);
  if ((unsigned) c->kind >= CN_CERT_KIND_COUNT || (unsigned) c->arm >= CN_CERT_ARM_COUNT)
    return cn_error_set (err, CN_EINVAL, "%s: record %s has an unknown kind or arm", op, c->name);
  /* the arm the record names must exist (the one its kind is about) */
  const void *arm = NULL;
  switch (c->arm)
    {
    case CN_CERT_ARM_PULLBACK: arm = (const void *) r->pullback; break;
    case CN_CERT_ARM_JVP: arm = (const void *) r->jvp; break;
    case CN_CERT_ARM_FORWARD: arm = (const void *) r->forward; break;
    case CN_CERT_ARM_IBP: arm = (const void *) r->ibp; break;
    case CN_CERT_ARM_CROWN: arm = r->crown == cn__crown_own_box ? NULL : (const void *) r->crown; break;
    case CN_CERT_ARM_CHECKER: arm = (const void *) r->proof; break;
    default: break;
    }
  if (arm == NULL)
    return cn_error_set (err, CN_EINVAL, "%s: record %s is about the %s arm, which the rule lacks", op, c->name,
                         cert_arm_name[c->arm]);
  /* the kinds and the arms they can be about */
  int fits = 0;
  switch (c->kind)
    {
    case CN_CERT_ALGEBRAIC: fits = c->arm == CN_CERT_ARM_PULLBACK && r->jvp != NULL; break;
    case CN_CERT_DERIVATIVE:
    case CN_CERT_CONVENTION:
    case CN_CERT_PREPARED: fits = c->arm == CN_CERT_ARM_PULLBACK || c->arm == CN_CERT_ARM_JVP; break;
    case CN_CERT_ROUNDOFF: fits = c->arm == CN_CERT_ARM_FORWARD; break;
    case CN_CERT_ENCLOSURE:
      fits = c->arm == CN_CERT_ARM_IBP || c->arm == CN_CERT_ARM_CROWN || c->arm == CN_CERT_ARM_CHECKER;
      break;
    default: break;
    }
  if (!fits)
    return cn_error_set (err, CN_EINVAL, "%s: record %s: a %s record cannot be about the %s arm%s", op, c->name,
                         cert_kind_name[c->kind], cert_arm_name[c->arm],
                         c->kind == CN_CERT_ALGEBRAIC && r->jvp == NULL ? " of a rule without a jvp" : "");
  /* gradient kinds concern value inputs; the bound kinds every input */
  unsigned vin = value_inputs (r), inputs = c->inputs;
  /* (a convention may concern an input the rule does not differentiate: detach) */
  int gradient = (c->arm == CN_CERT_ARM_PULLBACK || c->arm == CN_CERT_ARM_JVP) && c->kind != CN_CERT_CONVENTION;
  if (gradient)
    {
      if (vin == 0)
        return cn_error_set (err, CN_EINVAL, "%s: record %s is about a gradient, and the rule has no value input", op,
                             c->name);
      if (inputs == 0)
        inputs = vin;
      if ((inputs & ~vin) != 0)
        return cn_error_set (err, CN_EINVAL, "%s: record %s concerns input positions (mask 0x%x) that are not value "
                             "inputs (mask 0x%x)", op, c->name, inputs, vin);
    }
  else if (inputs == 0)
    inputs = r->n_in < 0 || r->n_in >= 32 ? ~0u : (1u << r->n_in) - 1;
  if (c->kind == CN_CERT_CONVENTION && r->n_in > 2)
    return cn_error_set (err, CN_EINVAL, "%s: record %s: conventions are stated for rules of one or two inputs", op,
                         c->name);
  if (c->statement == NULL || c->statement[0] == '\0')
    return cn_error_set (err, CN_EINVAL, "%s: record %s has no statement", op, c->name);
  info->op = r->op;
  info->kind = c->kind;
  info->arm = c->arm;
  info->inputs = inputs;
  info->name = c->name;
  info->statement = c->statement;
  return CN_OK;
}

cn_status
cn_op_cert_get (cn_op op, int i, cn_cert_info *info, cn_error *err)
{
  const struct cn_op_rule *r = cn__op_rule (op);
  if (r == NULL || i < 0 || i >= cn_op_n_certs (op))
    return cn_error_set (err, CN_EINVAL, "%s: no certificate record %d", cn_op_name (op) ? cn_op_name (op) : "?", i);
  return cn__cert_resolve (r, &r->certs[i], info, err);
}

int
cn__two_varying (const cn_node_view *nv)
{
  return nv->n_in >= 2 && nv->in_const[0] == NULL && nv->in_const[1] == NULL;
}
