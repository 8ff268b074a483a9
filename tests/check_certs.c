/* SPDX-License-Identifier: MIT */
/* tests/check_certs.c: the operators' certificate records (certnn/ops.h).
 *
 * Over every operator: a rule has at least one record, every record passes the table's checks
 * (cn_op_cert_get), names are unique within an operator, and the standard records are there where
 * the arms are (an enclosure record for every IBP arm, a derivative record for every pullback
 * that reaches a value input, an algebraic one where there is also a jvp).  Then the table's
 * refusals, on broken copies of a rule: a record about an arm the rule lacks, a gradient record
 * about a port that is not a value input, an algebraic record without a jvp, a kind about an arm
 * it cannot be about, no statement, an unknown kind.  Then every convention record's statement
 * at the point it names (conventions_hold), every record's evidence through its runner
 * (evidence_of_every_record), and each runner failing a copy of relu whose arm it is about was
 * broken on purpose: the pullback's sign flipped, the pullback scaled by 1 + 2^-10, the IBP box
 * one ulp narrower, the CROWN intercept moved by 1e-9, the checker step's bias raised by 1e-9
 * (broken_rules_fail, printing each failure). */
#include <config.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <check.h>
#include "certnn/graph.h"
#include "certnn/tape.h"
#include "certnn/certs.h"
#include "certs/certs_impl.h"
#include "ops/ops_impl.h"
#include "testutil.h"

#define OK(call) ck_assert_msg ((call) == CN_OK, "%s failed: %s", #call, err.msg)

/* Whether OP has a record of kind K about arm A. */
static int
has_record (cn_op op, cn_cert_kind k, cn_cert_arm a)
{
  for (int i = 0; i < cn_op_n_certs (op); i++)
    {
      cn_cert_info ci;
      cn_error err;
      if (cn_op_cert_get (op, i, &ci, &err) == CN_OK && ci.kind == k && ci.arm == a)
        return 1;
    }
  return 0;
}

START_TEST (records_of_every_rule)
{
  cn_op op = (cn_op) _i;
  const struct cn_op_rule *r = cn__op_rule (op);
  const char *name = cn_op_name (op);
  if (r == NULL)
    {
      ck_assert_int_eq (cn_op_n_certs (op), 0);
      return;
    }
  int n = cn_op_n_certs (op);
  ck_assert_msg (n >= 1, "%s: a rule without a certificate record", name);
  for (int i = 0; i < n; i++)
    {
      cn_cert_info ci;
      cn_error err;
      OK (cn_op_cert_get (op, i, &ci, &err));
      ck_assert_int_eq (ci.op, op);
      ck_assert_msg (ci.inputs != 0, "%s.%s: no input positions", name, ci.name);
      ck_assert_ptr_nonnull (cn_cert_kind_name (ci.kind));
      ck_assert_ptr_nonnull (cn_cert_arm_name (ci.arm));
      ck_assert_msg (ci.statement != NULL && strlen (ci.statement) > 10, "%s.%s: no statement", name, ci.name);
      for (int j = 0; j < i; j++)
        {
          cn_cert_info cj;
          OK (cn_op_cert_get (op, j, &cj, &err));
          ck_assert_msg (strcmp (ci.name, cj.name) != 0, "%s: two records named %s", name, ci.name);
        }
    }
  cn_error err;
  cn_cert_info ci;
  ck_assert_int_eq (cn_op_cert_get (op, n, &ci, &err), CN_EINVAL);
  ck_assert_int_eq (cn_op_cert_get (op, -1, &ci, &err), CN_EINVAL);
  if (r->ibp != NULL)
    ck_assert_msg (has_record (op, CN_CERT_ENCLOSURE, CN_CERT_ARM_IBP), "%s: an IBP arm without enclosure record", name);
  if (r->crown != NULL && r->crown != cn__crown_own_box)
    ck_assert_msg (has_record (op, CN_CERT_ENCLOSURE, CN_CERT_ARM_CROWN), "%s: a CROWN arm without enclosure record",
                   name);
  if (r->roundoff32 != NULL)
    ck_assert_msg (has_record (op, CN_CERT_ROUNDOFF, CN_CERT_ARM_FORWARD), "%s: a binary32 roundoff bound without "
                   "its roundoff record", name);
  if (r->pullback != NULL && cn_op_value_inputs (op) != 0)
    {
      ck_assert_msg (has_record (op, CN_CERT_DERIVATIVE, CN_CERT_ARM_PULLBACK), "%s: a pullback without derivative "
                     "record", name);
      if (r->jvp != NULL)
        ck_assert_msg (has_record (op, CN_CERT_ALGEBRAIC, CN_CERT_ARM_PULLBACK), "%s: a pullback and a jvp without "
                       "algebraic record", name);
    }
}
END_TEST

/* Resolves the one record C on a copy of relu's rule changed by the caller; the status. */
static cn_status
resolve_on (const struct cn_op_rule *rule, struct cn_op_cert c, char *msg)
{
  cn_error err = { 0 };
  cn_cert_info info;
  cn_status st = cn__cert_resolve (rule, &c, &info, &err);
  snprintf (msg, sizeof err.msg, "%s", err.msg);
  return st;
}

START_TEST (refusals)
{
  const struct cn_op_rule *relu = cn__op_rule (CN_OP_RELU);
  ck_assert_ptr_nonnull (relu);
  char msg[sizeof ((cn_error *) 0)->msg];
  struct cn_op_rule copy = *relu;
  const struct cn_op_cert ibp = CN__CERT_IBP, crown = CN__CERT_CROWN, deriv = CN__CERT_DERIVATIVE,
                          adj = CN__CERT_ADJOINT;
  /* the unchanged rule takes its standard records */
  ck_assert_int_eq (resolve_on (&copy, ibp, msg), CN_OK);
  ck_assert_int_eq (resolve_on (&copy, crown, msg), CN_OK);
  ck_assert_int_eq (resolve_on (&copy, deriv, msg), CN_OK);
  ck_assert_int_eq (resolve_on (&copy, adj, msg), CN_OK);
  /* a record about an arm the rule lacks */
  copy.crown = NULL;
  ck_assert_int_eq (resolve_on (&copy, crown, msg), CN_EINVAL);
  ck_assert_msg (strstr (msg, "CROWN arm, which the rule lacks") != NULL, "%s", msg);
  copy.crown = cn__crown_own_box;   /* a CROWN arm that only takes the box relaxes nothing */
  ck_assert_int_eq (resolve_on (&copy, crown, msg), CN_EINVAL);
  copy = *relu;
  copy.jvp = NULL;                  /* algebraic: the adjoint of which tangent map? */
  ck_assert_int_eq (resolve_on (&copy, adj, msg), CN_EINVAL);
  ck_assert_msg (strstr (msg, "without a jvp") != NULL, "%s", msg);
  copy = *relu;
  /* a gradient record about input 1 of a one-input rule */
  struct cn_op_cert c = deriv;
  c.inputs = 2u;
  ck_assert_int_eq (resolve_on (&copy, c, msg), CN_EINVAL);
  ck_assert_msg (strstr (msg, "not value inputs") != NULL, "%s", msg);
  /* a gradient record on a rule without value input (eq: Boolean output, no pullback) */
  const struct cn_op_rule *eq = cn__op_rule (CN_OP_EQ);
  ck_assert_ptr_nonnull (eq);
  ck_assert_int_eq (resolve_on (eq, deriv, msg), CN_EINVAL);
  /* a kind about an arm it cannot be about */
  c = ibp;
  c.kind = CN_CERT_DERIVATIVE;
  ck_assert_int_eq (resolve_on (&copy, c, msg), CN_EINVAL);
  c = deriv;
  c.kind = CN_CERT_ENCLOSURE;
  ck_assert_int_eq (resolve_on (&copy, c, msg), CN_EINVAL);
  c = ibp;
  c.kind = CN_CERT_ROUNDOFF;
  ck_assert_int_eq (resolve_on (&copy, c, msg), CN_EINVAL);
  /* no statement; an unknown kind or arm */
  c = ibp;
  c.statement = "";
  ck_assert_int_eq (resolve_on (&copy, c, msg), CN_EINVAL);
  c = ibp;
  c.kind = CN_CERT_KIND_COUNT;
  ck_assert_int_eq (resolve_on (&copy, c, msg), CN_EINVAL);
  c = ibp;
  c.arm = CN_CERT_ARM_COUNT;
  ck_assert_int_eq (resolve_on (&copy, c, msg), CN_EINVAL);
  /* names of kinds and arms */
  ck_assert_str_eq (cn_cert_kind_name (CN_CERT_ENCLOSURE), "enclosure");
  ck_assert_str_eq (cn_cert_arm_name (CN_CERT_ARM_JVP), "forward mode");
  ck_assert_ptr_null (cn_cert_kind_name (CN_CERT_KIND_COUNT));
  ck_assert_ptr_null (cn_cert_arm_name ((cn_cert_arm) -1));
  ck_assert_int_eq (cn_op_n_certs (CN_OP_COUNT), 0);
}
END_TEST

/* The conventions of the one-input elementwise rules, checked where they are stated: a graph
 * y = op(x) of 5 entries, x = AT in every entry (a uniform draw in [-2, 2] where AT is NaN), a
 * cotangent w and a tangent t drawn in [-1, 1]; the pullback's gradient must be F0 w and the
 * tangent F0 t, exactly. */
START_TEST (conventions_hold)
{
  cn_op op = (cn_op) _i;
  int n = cn_op_n_certs (op);
  for (int k = 0; k < n; k++)
    {
      const struct cn_op_cert *c = &cn__op_rule (op)->certs[k];
      if (c->kind != CN_CERT_CONVENTION)
        continue;
      const char *name = cn_op_name (op);
      ck_assert_msg (cn__op_rule (op)->n_in == 1, "%s.%s: the test covers one-input rules", name, c->name);
      cn_error err;
      cn_error_clear (&err);
      cn_graph *g;
      OK (cn_graph_create (&g, &err));
      cn_shape s = { .rank = 1, .dim = { 5 } };
      int x, y;
      OK (cn_graph_add_input (g, "x", CN_DTYPE_F64, &s, &x, &err));
      OK (cn_graph_add_node (g, op, NULL, 1, &x, "y", &y, &err));
      OK (cn_graph_set_outputs (g, 1, &y, &err));
      for (int d = 0; d < 8; d++)
        {
          double xv[5], w[5], t[5], gx[5], ty[5];
          for (int j = 0; j < 5; j++)
            {
              xv[j] = isnan (c->at) ? tu_uniform (-2, 2) : c->at;
              w[j] = tu_uniform (-1, 1);
              t[j] = tu_uniform (-1, 1);
            }
          if (c->arm == CN_CERT_ARM_PULLBACK)
            {
              cn_status st = cn_graph_gradient (g, xv, w, NULL, gx, &err);
              ck_assert_msg (st == CN_OK, "%s.%s: gradient failed: %s", name, c->name, err.msg);
              for (int j = 0; j < 5; j++)
                ck_assert_msg (gx[j] == c->factor[0] * w[j], "%s.%s: at x = %.17g the gradient is %.17g, not %g w = "
                               "%.17g (CN_TEST_SEED=%lu)", name, c->name, xv[j], gx[j], c->factor[0],
                               c->factor[0] * w[j], tu_seed ());
            }
          else
            {
              const double *xs[1] = { xv }, *ts[1] = { t };
              OK (cn_graph_jvp (g, xs, ts, 0, NULL, ty, &err));
              for (int j = 0; j < 5; j++)
                ck_assert_msg (ty[j] == c->factor[0] * t[j], "%s.%s: at x = %.17g the tangent is %.17g, not %g t "
                               "(CN_TEST_SEED=%lu)", name, c->name, xv[j], ty[j], c->factor[0], tu_seed ());
            }
        }
      cn_graph_free (g);
    }
}
END_TEST

/* Every record's evidence through the library's runner, at the test's seed: every kind that has
 * records has a runner, and every record passes. */
START_TEST (evidence_of_every_record)
{
  cn_op op = (cn_op) _i;
  for (int k = 0; k < cn_op_n_certs (op); k++)
    {
      cn_cert_result res;
      cn_error err;
      cn_error_clear (&err);
      cn_cert_info ci;
      OK (cn_op_cert_get (op, k, &ci, &err));
      cn_status st = cn_op_cert_check (op, k, tu_seed (), 20, &res, &err);
      ck_assert_msg (st == CN_OK, "%s.%s: %s", cn_op_name (op), ci.name, err.msg);
      ck_assert_msg (res.passed, "%s.%s failed: %s (CN_TEST_SEED=%lu)", cn_op_name (op), ci.name, res.detail,
                     tu_seed ());
      ck_assert (res.checks > 0);
      const char *dn;
      ck_assert_ptr_nonnull (cn_cert_scope (ci.kind, ci.arm, &dn));
      ck_assert_ptr_nonnull (dn);
    }
}
END_TEST

/* Relu's own pullback with its contribution to g_z multiplied by K (the pullback adds to g_in). */
static cn_status
pullback_times (const cn_node_view *nv, const cn_tensor *const *in, const cn_tensor *out, const double *g_out,
                double *const *g_in, double k, cn_error *err)
{
  int64_t n = cn_tensor_numel (out);
  double *before = malloc ((size_t) (n + 1) * sizeof *before);
  if (before == NULL)
    return cn_error_set (err, CN_ENOMEM, "out of memory");
  if (g_in[0] != NULL)
    memcpy (before, g_in[0], (size_t) n * sizeof *before);
  cn_status st = cn__op_rule (CN_OP_RELU)->pullback (nv, in, out, g_out, g_in, err);
  if (st == CN_OK && g_in[0] != NULL)
    for (int64_t j = 0; j < n; j++)
      g_in[0][j] = before[j] + (g_in[0][j] - before[j]) * k;
  free (before);
  return st;
}

/* A broken relu: the pullback's sign flipped.  Its adjoint record must fail, and the unbroken
 * copy pass. */
static cn_status
flipped_pullback (const cn_node_view *nv, const cn_tensor *const *in, const cn_tensor *out, const double *g_out,
                  double *const *g_in, cn_error *err)
{
  return pullback_times (nv, in, out, g_out, g_in, -1, err);
}

/* A broken relu IBP: relu's own box, its upper ends lowered by one ulp. */
static cn_status
narrowed_ibp (const cn_node_view *nv, const cn_box *const *in, cn_box *out, cn_error *err)
{
  cn_status st = cn__op_rule (CN_OP_RELU)->ibp (nv, in, out, err);
  for (int64_t j = 0; st == CN_OK && j < out->n; j++)
    out->hi[j] = nextafter (out->hi[j], -INFINITY);
  return st;
}

/* A broken relu CROWN step: relu's own step, each row's intercept raised by 1e-9 (for a row that
 * bounds -relu from below, the upper line's intercept lowered by 1e-9), which claims a bound the
 * relaxation does not give. */
static cn_status
raised_crown (const cn_crown_step *st, cn_error *err)
{
  cn_status rc = cn__op_rule (CN_OP_RELU)->crown (st, err);
  for (int64_t s = 0; rc == CN_OK && s < st->rows; s++)
    st->bias[s] += 1e-9;
  return rc;
}

/* A broken relu checker step: relu's own step, each row's bias raised by 1e-9, so that the
 * bound the checker would re-derive claims more than the lines give. */
static cn_status
raised_checker (const cn_proof_step *st, cn_error *err)
{
  cn_status rc = cn__op_rule (CN_OP_RELU)->proof (st, err);
  for (int64_t s = 0; rc == CN_OK && s < st->rows; s++)
    mpfi_add_d (st->bias[s], st->bias[s], 1e-9);
  return rc;
}

/* A broken relu pullback: relu's own gradient scaled by 1 + 2^-10. */
static cn_status
scaled_pullback (const cn_node_view *nv, const cn_tensor *const *in, const cn_tensor *out, const double *g_out,
                 double *const *g_in, cn_error *err)
{
  return pullback_times (nv, in, out, g_out, g_in, 1 + 0x1p-10, err);
}

/* The index of relu's record of kind K about arm A. */
static int
relu_record (cn_cert_kind k, cn_cert_arm a)
{
  for (int i = 0; i < cn_op_n_certs (CN_OP_RELU); i++)
    {
      cn_cert_info ci;
      cn_error err;
      if (cn_op_cert_get (CN_OP_RELU, i, &ci, &err) == CN_OK && ci.kind == k && ci.arm == a)
        return i;
    }
  ck_abort_msg ("relu has no %s record about its %s arm", cn_cert_kind_name (k), cn_cert_arm_name (a));
  return -1;
}

/* Each runner on a copy of relu, unbroken (it passes) and with the arm its record is about
 * broken (it fails, saying where). */
START_TEST (broken_rules_fail)
{
  const struct cn_op_rule *relu = cn__op_rule (CN_OP_RELU);
  static struct cn_op_rule broken;
  const struct
  {
    cn_cert_kind kind;
    cn_cert_arm arm;
    const char *says;
  } cases[] = {
    { CN_CERT_ALGEBRAIC, CN_CERT_ARM_PULLBACK, "<pullback(x; w), t> =" },
    { CN_CERT_DERIVATIVE, CN_CERT_ARM_PULLBACK, "" },
    { CN_CERT_ENCLOSURE, CN_CERT_ARM_IBP, "" },
    { CN_CERT_ENCLOSURE, CN_CERT_ARM_CROWN, "" },
    { CN_CERT_ENCLOSURE, CN_CERT_ARM_CHECKER, "below the step's line" },
  };
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++)
    {
      int k = relu_record (cases[c].kind, cases[c].arm);
      cn_cert_result res;
      cn_error err;
      cn_error_clear (&err);
      broken = *relu;
      OK (cn__cert_check_rule (&broken, k, tu_seed (), 20, &res, &err));
      ck_assert_msg (res.passed, "%s: the unbroken copy failed: %s", relu->certs[k].name, res.detail);
      if (c == 0)
        broken.pullback = flipped_pullback;
      else if (c == 1)
        broken.pullback = scaled_pullback;
      else if (c == 2)
        broken.ibp = narrowed_ibp;
      else if (c == 3)
        broken.crown = raised_crown;
      else
        broken.proof = raised_checker;
      OK (cn__cert_check_rule (&broken, k, tu_seed (), 20, &res, &err));
      ck_assert_msg (!res.passed, "%s: a broken arm passed: %s", relu->certs[k].name, res.detail);
      ck_assert_msg (strstr (res.detail, cases[c].says) != NULL, "%s", res.detail);
      printf ("broken relu, %s: %s\n", relu->certs[k].name, res.detail);
    }
  /* the convention at 0 holds for the flipped pullback too (0 = -0): the evidence says what it checks */
}
END_TEST

/* linear's binary32 bound divided by 4: still far above the typical error, below the worst. */
static cn_status
quartered_roundoff (const cn_node_view *nv, const cn_box *const *in, const cn_box *out, double *e, cn_error *err)
{
  cn_status st = cn__op_rule (CN_OP_LINEAR)->roundoff32 (nv, in, out, e, err);
  for (int64_t j = 0; st == CN_OK && j < out->n; j++)
    e[j] /= 4;
  return st;
}

/* The roundoff runner on copies of linear and add: unbroken they pass; with the bound claimed 0
 * (exact) they fail, and linear's with its bound quartered fails too, saying where. */
START_TEST (broken_roundoff_fails)
{
  static struct cn_op_rule broken;
  const cn_op ops[2] = { CN_OP_LINEAR, CN_OP_ADD };
  for (int w = 0; w < 3; w++)
    {
      const struct cn_op_rule *r = cn__op_rule (ops[w == 2]);
      int k = -1;
      for (int i = 0; r->certs[i].name != NULL; i++)
        if (r->certs[i].kind == CN_CERT_ROUNDOFF)
          k = i;
      ck_assert (k >= 0);
      cn_cert_result res;
      cn_error err;
      cn_error_clear (&err);
      broken = *r;
      OK (cn__cert_check_rule (&broken, k, tu_seed (), 40, &res, &err));
      ck_assert_msg (res.passed, "%s: the unbroken copy failed: %s", cn_op_name (r->op), res.detail);
      broken.roundoff32 = w == 1 ? quartered_roundoff : cn__roundoff32_exact;
      OK (cn__cert_check_rule (&broken, k, tu_seed (), 40, &res, &err));
      ck_assert_msg (!res.passed, "%s: a broken bound passed: %s", cn_op_name (r->op), res.detail);
      ck_assert_msg (strstr (res.detail, "leaves the binary32 box") != NULL, "%s", res.detail);
      printf ("broken %s roundoff (%s): %s\n", cn_op_name (r->op), w == 1 ? "quartered" : "claimed exact", res.detail);
    }
}
END_TEST

static Suite *
certs_suite (void)
{
  Suite *s = suite_create ("certs");
  TCase *tc = tcase_create ("certs");
  tcase_add_loop_test (tc, records_of_every_rule, 0, CN_OP_COUNT);
  tcase_add_test (tc, refusals);
  tcase_add_loop_test (tc, conventions_hold, 0, CN_OP_COUNT);
  tcase_add_loop_test (tc, evidence_of_every_record, 0, CN_OP_COUNT);
  tcase_add_test (tc, broken_rules_fail);
  tcase_add_test (tc, broken_roundoff_fails);
  suite_add_tcase (s, tc);
  return s;
}

int
main (void)
{
  tu_init ();
  return tu_run_suite (certs_suite ());
}
