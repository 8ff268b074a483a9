/* SPDX-License-Identifier: MIT */
/* src/certs/coverage.c: what the table holds for each operator, read off its rule: the arms
 * present (forward, pullback, jvp, ibp, ibp_mpfi as "reference", crown when it relaxes, crown_box
 * when it is cn__crown_own_box, alpha, proof as "checker"), the CUDA flag, and
 * whether some input port is a value port (CN_PORT_VALUE), the ports a gradient flows to.  An
 * operator without a rule has every flag 0. */
#include <config.h>
#include <stdio.h>
#include <string.h>
#include "ops/ops_impl.h"

void
cn_op_coverage_get (cn_op op, cn_op_coverage *cov)
{
  memset (cov, 0, sizeof *cov);
  const struct cn_op_rule *r = cn__op_rule (op);
  if (r == NULL)
    return;
  cov->rule = 1;
  cov->forward = r->forward != NULL;
  cov->pullback = r->pullback != NULL;
  cov->jvp = r->jvp != NULL;
  cov->ibp = r->ibp != NULL;
  /* an arm that is cn__crown_own_box takes the node's box, which is not a relaxation */
  cov->crown_box = r->crown == cn__crown_own_box;
  cov->crown = r->crown != NULL && !cov->crown_box;
  cov->alpha = cov->crown && r->alpha != NULL;
  cov->cuda = r->cuda != 0;
  cov->reference = r->ibp_mpfi != NULL;
  cov->checker = r->proof != NULL;
  /* A value port (and an element port at the model's scalar) receives a gradient; all ports are value ports when in_kind is NULL, and a
   * variadic rule (n_in = -1) describes its ports by in_kind[0]. */
  int n = r->n_in < 0 ? 1 : r->n_in;
  cov->value_input = r->in_kind == NULL;
  for (int i = 0; i < n && !cov->value_input; i++)
    cov->value_input = r->in_kind[i] == CN_PORT_VALUE || r->in_kind[i] == CN_PORT_ELEMENT;
  /* The sorts the forward computes in (the Rule cell): the rule's own words, else from the ports
   * (scalar kinds: f64, f32; bool; integer: words; any and element: all three) and, without an
   * out_sort hook, the output's (the model's scalar). */
  if (r->sorts != NULL)
    snprintf (cov->sorts, sizeof cov->sorts, "%s", r->sorts);
  else
    {
      int sc = r->out_sort == NULL, bo = 0, wo = 0;
      for (int i = 0; i < n; i++)
        switch (cn__port_kind (r, i))
          {
          case CN_PORT_BOOL: bo = 1; break;
          case CN_PORT_INTEGER: wo = 1; break;
          case CN_PORT_ANY:
          case CN_PORT_ELEMENT: sc = bo = wo = 1; break;
          default: sc = 1; break;
          }
      snprintf (cov->sorts, sizeof cov->sorts, "%s%s%s%s%s", sc ? "f64, f32" : "", sc && bo ? ", " : "",
                bo ? "bool" : "", (sc || bo) && wo ? ", " : "", wo ? "words" : "");
    }
}
