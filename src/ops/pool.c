/* SPDX-License-Identifier: MIT */
/* src/ops/pool.c: placeholder until the rules land (no arms). */
#include <config.h>
#include "ops/ops_impl.h"

static cn_status
no_rule_yet (const void *p, int n, const cn_shape *const *in, cn_shape *out, cn_error *err)
{
  (void) p; (void) n; (void) in; (void) out;
  return cn_error_set (err, CN_EUNSUPPORTED, "operator not implemented yet");
}

const struct cn_op_rule cn__rule_POOL = { .n_in = 1, .check = no_rule_yet };
