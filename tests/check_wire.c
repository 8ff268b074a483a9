/* SPDX-License-Identifier: MIT */
/* tests/check_wire.c: the wire codec (certnn/wire.h).
 *
 * 1. Descriptors: all 154 operators have one (a hand-made or drawn record of each encodes), and
 *    the codec's record size equals the rule's for every operator with a rule.
 * 2. Round trip of random instances: for every operator with a case generator (src/ops/cases_*.c;
 *    custom: src/certs/case_custom.c), DRAWS instances; decode(encode(op)) gives the same operator,
 *    input sorts and shapes (bytes), record (bytes, memcmp of the zero-initialised records; custom:
 *    its name and the re-encoding), and the same JSON when encoded again; the rule checked it.
 *    The instance is also built into a graph (tu_op_graph) and its node encoded with
 *    cn_wire_encode_node: the same record.
 * 3. Round trip of hand-made instances (random attributes, shapes by the contracts of
 *    certnn/ops.h) of the 42 operators whose rules came last (comparisons and logic, integer
 *    words, random draws, convTranspose, smoothMaxPool, attention, spectral, custom), whether or
 *    not they have a rule or generator yet: every operator without a generator must have one, so
 *    that the descriptor table is exercised for all 154; where the operator has a rule, its check
 *    accepts the instance (the contract and the rule agree).  custom carries a program with
 *    constants of several sorts (and, once custom has a rule, a nested custom node).
 * 4. Doubles read back exactly (random bit patterns, subnormals, extremes, -0), non-finite values
 *    as "inf", "-inf", "nan" where a field may hold them, refused where it may not.
 * 5. Malformed records: bad JSON, version 2, unknown tag, missing / extra / ill-typed fields and
 *    members, enumeration names outside their set, counts that disagree, an axis outside the
 *    rank, a negative kernel, NaN where a finite number is required, bad sorts, shapes, ports,
 *    program references: each gives the expected status and a message naming the tag and field,
 *    and leaves the output cleared.  Encoding refuses the invalid instances too.
 * 6. IR artifacts (certnn/artifact.h): for every operator with a case generator, its drawn instance's
 *    graph exported (cn_artifact_export, binary64, a drawn argument) passes structure, types,
 *    execute and compare_bitwise (decode(export(g)) evaluates to the words export evaluated);
 *    then MUTANTS mutations of the text (bytes replaced, spans deleted, the text cut short) are
 *    checked: each gives CN_OK with a finding per request, or CN_EPARSE, never a crash (ASan
 *    builds run this too); JSON texts that are not objects give CN_EPARSE.
 * The seed is printed (tu_init); CN_TEST_SEED reproduces a run. */
#include <config.h>
#include <check.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>
#include "testutil.h"
#include "certnn/wire.h"
#include "certnn/artifact.h"

#define DRAWS 16        /* random instances per operator */
#define MUTANTS 24      /* mutated artifacts per operator */

/* Operators round-tripped from drawn instances, from hand-made ones, and from hand-made ones only
 * (no generator); the suite runs unforked, so the loop tests count here. */
static int n_drawn, n_hand_made, n_hand_made_only;

/* ---- helpers ----------------------------------------------------------------------------- */

static void
shape_of (cn_shape *s, int rank, const int64_t *d)
{
  tu_shape_set (s, rank, d);
}
#define SHAPE(s, ...)                                                                         \
  shape_of ((s), (int) (sizeof (int64_t[]) { __VA_ARGS__ } / sizeof (int64_t)), (int64_t[]) { __VA_ARGS__ })

static int
has_rule (cn_op op)
{
  cn_op_coverage c;
  cn_op_coverage_get (op, &c);
  return c.rule;
}

/* The decoded record of the cn_wire_op W, as a cn_params_REC. */
#define WP(w, rec) ((const cn_params_##rec *) (w).params)

/* An instance as the encoder takes it. */
struct inst
{
  cn_op op;
  cn__params params;
  int n_in;
  cn_shape in_shape[CN__CASE_MAX_IN];
  cn_dtype in_dtype[CN__CASE_MAX_IN];
};

static void
inst_init (struct inst *x, cn_op op, int n_in)
{
  memset (x, 0, sizeof *x);
  x->op = op;
  x->n_in = n_in;
}

/* Encodes X, decodes the string, and checks that everything came back; returns the string
 * (malloc'd) for further checks. */
static char *
round_trip (const struct inst *x, const char *what)
{
  const char *name = cn_op_name (x->op);
  size_t psize = cn_wire_params_size (x->op);
  cn_error err;
  cn_error_clear (&err);
  char *s = NULL;
  cn_status st = cn_wire_encode_string (x->op, psize ? &x->params : NULL, x->n_in, x->in_shape, x->in_dtype, &s, &err);
  ck_assert_msg (st == CN_OK, "%s (%s): encode failed: %s (CN_TEST_SEED=%lu)", name, what, err.msg, tu_seed ());
  ck_assert_ptr_nonnull (s);
  cn_wire_op w;
  st = cn_wire_decode_string (s, &w, &err);
  ck_assert_msg (st == CN_OK, "%s (%s): decode of %s failed: %s (CN_TEST_SEED=%lu)", name, what, s, err.msg,
                 tu_seed ());
  ck_assert_int_eq (w.op, x->op);
  ck_assert_int_eq (w.n_in, x->n_in);
  for (int i = 0; i < x->n_in; i++)
    {
      ck_assert_msg (memcmp (&w.in_shape[i], &x->in_shape[i], sizeof (cn_shape)) == 0, "%s: input %d's shape differs",
                     name, i);
      ck_assert_int_eq (w.in_dtype[i], x->in_dtype[i]);
    }
  ck_assert_int_eq (w.checked, has_rule (x->op));
  if (x->op == CN_OP_CUSTOM)
    {
      ck_assert_str_eq (WP (w, custom)->name, x->params.custom.name);
      ck_assert_int_ge (w.n_graphs, 1);
      ck_assert_ptr_eq (WP (w, custom)->program, w.graphs[0]);
      ck_assert_ptr_ne (WP (w, custom)->program, x->params.custom.program);
    }
  else
    for (size_t b = 0; b < psize; b++)
      ck_assert_msg (((const unsigned char *) w.params)[b] == ((const unsigned char *) &x->params)[b],
                     "%s (%s): decoded record differs at byte %zu of %zu: %s (CN_TEST_SEED=%lu)", name, what, b, psize,
                     s, tu_seed ());
  /* the decoded instance encodes to the same text */
  char *s2 = NULL;
  st = cn_wire_encode_string (w.op, w.params, w.n_in, w.in_shape, w.in_dtype, &s2, &err);
  ck_assert_msg (st == CN_OK, "%s: re-encode failed: %s", name, err.msg);
  ck_assert_str_eq (s2, s);
  free (s2);
  cn_wire_op_clear (&w);
  ck_assert_int_eq (w.n_in, 0);
  ck_assert_ptr_null (w.in_shape);
  return s;
}

/* ---- 1. descriptors ------------------------------------------------------------------------ */

START_TEST (descriptor_sizes)
{
  for (int op = 0; op < CN_OP_COUNT; op++)
    if (has_rule ((cn_op) op))
      ck_assert_msg (cn_wire_params_size ((cn_op) op) == cn_op_params_size ((cn_op) op),
                     "%s: the codec's record has %zu bytes, the rule's %zu", cn_op_name ((cn_op) op),
                     cn_wire_params_size ((cn_op) op), cn_op_params_size ((cn_op) op));
  ck_assert_uint_eq (cn_wire_params_size (CN_OP_COUNT), 0);
  ck_assert_uint_eq (cn_wire_params_size (CN_OP_CONV), sizeof (cn_params_conv));
  ck_assert_uint_eq (cn_wire_params_size (CN_OP_SMOOTH_MAX_POOL), sizeof (cn_params_pool));
  ck_assert_uint_eq (cn_wire_params_size (CN_OP_CUSTOM), sizeof (cn_params_custom));
  ck_assert_uint_eq (cn_wire_params_size (CN_OP_RELU), 0);
  cn_wire_op_clear (NULL);
  cn_wire_op z;
  memset (&z, 0, sizeof z);
  cn_wire_op_clear (&z);
}
END_TEST

/* ---- 2. random instances ------------------------------------------------------------------- */

START_TEST (random_round_trip)
{
  cn_op op = (cn_op) _i;
  const char *name = cn_op_name (op);
  struct cn__op_case c;
  if (!tu_op_case (op, &c))
    return;                             /* hand-made instead (hand_made_round_trip) */
  int skipped = 0;
  n_drawn++;
  for (int d = 0; d < DRAWS; d++)
    {
      if (d > 0)
        ck_assert (tu_op_case (op, &c));
      struct inst x;
      inst_init (&x, op, c.n_in);
      ck_assert_int_le (c.n_in, CN__CASE_MAX_IN);
      ck_assert_uint_le (cn_wire_params_size (op), sizeof c.params);
      memcpy (&x.params, &c.params, cn_wire_params_size (op));
      for (int i = 0; i < c.n_in; i++)
        {
          x.in_shape[i] = c.in_shape[i];
          x.in_dtype[i] = c.in_dtype[i];
        }
      /* An operator with a rule: the graph builder and the codec agree on whether the drawn
       * instance is one (a generator not yet following its ports' sorts gives instances that
       * both refuse). */
      cn_graph *g = NULL;
      cn_error err;
      cn_error_clear (&err);
      if (has_rule (op) && tu_op_graph (&c, &g, &err) != CN_OK)
        {
          char *s = NULL;
          cn_error err2;
          cn_error_clear (&err2);
          ck_assert_msg (cn_wire_encode_string (op, &x.params, x.n_in, x.in_shape, x.in_dtype, &s, &err2) != CN_OK,
                         "%s: the graph builder refuses the drawn instance (%s), the codec encodes it", name, err.msg);
          ck_assert_ptr_null (s);
          ck_assert_ptr_nonnull (strstr (err2.msg, name));
          skipped++;
          continue;
        }
      char *s = round_trip (&x, "drawn");

      /* The same instance as a graph node: cn_wire_encode_node writes a record that decodes to
       * the same operator, record, shapes and output. */
      if (g != NULL)
        {
          int node = -1;
          for (int n = 0; n < cn_graph_n_nodes (g); n++)
            if (cn_graph_node_op (g, n) == op)
              node = n;
          ck_assert_int_ge (node, 0);
          json_t *j = NULL;
          cn_status st = cn_wire_encode_node (g, node, &j, &err);
          ck_assert_msg (st == CN_OK, "%s: encode_node failed: %s", name, err.msg);
          cn_wire_op w;
          st = cn_wire_decode (j, &w, &err);
          ck_assert_msg (st == CN_OK, "%s: decode of encode_node failed: %s", name, err.msg);
          ck_assert_int_eq (w.op, op);
          ck_assert_int_eq (w.n_in, c.n_in);
          for (int i = 0; i < c.n_in; i++)
            ck_assert (cn_shape_equal (&w.in_shape[i], &c.in_shape[i]));
          if (op != CN_OP_CUSTOM && cn_wire_params_size (op) > 0)
            ck_assert (memcmp (w.params, &c.params, cn_wire_params_size (op)) == 0);
          else if (cn_wire_params_size (op) == 0)
            ck_assert_ptr_null (w.params);
          ck_assert (cn_shape_equal (&w.out_shape, cn_graph_value_shape (g, cn_graph_node_output (g, node, 0))));
          ck_assert_int_eq (w.out_dtype, cn_graph_value_dtype (g, cn_graph_node_output (g, node, 0)));
          cn_wire_op_clear (&w);
          json_decref (j);
        }
      cn_graph_free (g);
      free (s);
    }
  if (skipped > 0)
    fprintf (stderr, "check_wire: %s: %d of %d drawn instances refused by the graph builder and the codec alike\n",
             name, skipped, DRAWS);
}
END_TEST

/* ---- 3. hand-made instances ---------------------------------------------------------------- */

static const cn_dtype int_sorts[] = { CN_DTYPE_I8, CN_DTYPE_I16, CN_DTYPE_I32, CN_DTYPE_I64,
                                      CN_DTYPE_U8, CN_DTYPE_U16, CN_DTYPE_U32, CN_DTYPE_U64 };

static cn_dtype
rand_int_sort (void)
{
  return int_sorts[tu_int (0, 7)];
}

/* A shape of rank 1 to 3, extents 1 to 4. */
static cn_shape
small_shape (void)
{
  cn_shape s;
  tu_small_shape (&s, 4);
  return s;
}

/* The program of a hand-made custom instance: x [2,3] -> relu(x * w), with unused constants of
 * several sorts (their words must travel exactly). */
static cn_graph *
make_program (void)
{
  cn_graph *g;
  cn_error err;
  cn_error_clear (&err);
  ck_assert (cn_graph_create (&g, &err) == CN_OK);
  cn_shape s;
  SHAPE (&s, 2, 3);
  int x, w, m, r;
  ck_assert (cn_graph_add_input (g, "x", CN_DTYPE_F64, &s, &x, &err) == CN_OK);
  cn_tensor t;
  ck_assert (cn_tensor_init (&t, CN_DTYPE_F64, &s, &err) == CN_OK);
  for (int i = 0; i < 6; i++)
    ((double *) t.data)[i] = tu_uniform (-2, 2);
  ((double *) t.data)[0] = -0.0;
  ((double *) t.data)[1] = 0x1p-1074;
  ck_assert (cn_graph_add_constant (g, "w", &t, &w, &err) == CN_OK);
  cn_tensor_clear (&t);
  /* unused constants of other sorts */
  const cn_dtype sorts[] = { CN_DTYPE_F32, CN_DTYPE_BOOL, CN_DTYPE_I8, CN_DTYPE_I16, CN_DTYPE_I32, CN_DTYPE_I64,
                             CN_DTYPE_U8, CN_DTYPE_U16, CN_DTYPE_U32, CN_DTYPE_U64 };
  for (size_t k = 0; k < sizeof sorts / sizeof sorts[0]; k++)
    {
      cn_shape cs;
      SHAPE (&cs, 3);
      ck_assert (cn_tensor_init (&t, sorts[k], &cs, &err) == CN_OK);
      for (int i = 0; i < 3; i++)
        switch (sorts[k])
          {
          case CN_DTYPE_F32: ((float *) t.data)[i] = (float) tu_uniform (-3, 3); break;
          case CN_DTYPE_BOOL: ((uint8_t *) t.data)[i] = (uint8_t) tu_int (0, 1); break;
          case CN_DTYPE_I8: ((int8_t *) t.data)[i] = (int8_t) tu_int (-128, 127); break;
          case CN_DTYPE_I16: ((int16_t *) t.data)[i] = (int16_t) tu_int (-32768, 32767); break;
          case CN_DTYPE_I32: ((int32_t *) t.data)[i] = (int32_t) tu_int (INT32_MIN, INT32_MAX); break;
          case CN_DTYPE_I64: ((int64_t *) t.data)[i] = tu_int (-((int64_t) 1 << 53), (int64_t) 1 << 53); break;
          case CN_DTYPE_U8: ((uint8_t *) t.data)[i] = (uint8_t) tu_int (0, 255); break;
          case CN_DTYPE_U16: ((uint16_t *) t.data)[i] = (uint16_t) tu_int (0, 65535); break;
          case CN_DTYPE_U32: ((uint32_t *) t.data)[i] = (uint32_t) tu_int (0, UINT32_MAX); break;
          default: ((uint64_t *) t.data)[i] = (uint64_t) tu_int (0, (int64_t) 1 << 53); break;
          }
      int v;
      char nm[16];
      snprintf (nm, sizeof nm, "c_%s", cn_dtype_name (sorts[k]));
      ck_assert_msg (cn_graph_add_constant (g, nm, &t, &v, &err) == CN_OK, "%s", err.msg);
      cn_tensor_clear (&t);
    }
  int in2[2] = { x, w };
  ck_assert_msg (cn_graph_add_node (g, CN_OP_MUL, NULL, 2, in2, "m", &m, &err) == CN_OK, "%s", err.msg);
  ck_assert_msg (cn_graph_add_node (g, CN_OP_RELU, NULL, 1, &m, "r", &r, &err) == CN_OK, "%s", err.msg);
  ck_assert (cn_graph_set_outputs (g, 1, &r, &err) == CN_OK);
  return g;
}

/* Window fields of one spatial axis that keep every window partly inside (pads below K). */
static void
window_axis (int64_t *K, int64_t *stride, int64_t *pb, int64_t *pe, int64_t *dil, int64_t *S)
{
  *K = tu_int (1, 3);
  *stride = tu_int (1, 2);
  *dil = 1;
  *pb = tu_int (0, *K - 1);
  *pe = tu_int (0, *K - 1);
  *S = tu_int (*K, *K + 2);
}

/* Fills X with a hand-made instance of OP, valid by the contract of certnn/ops.h, with random
 * attributes; returns 0 if there is none (PROGRAM receives custom's program to free). */
static int
hand_made (cn_op op, struct inst *x, cn_graph **program)
{
  cn__params *p = &x->params;
  cn_shape s = small_shape ();
  *program = NULL;
  switch (op)
    {
    case CN_OP_EQ: case CN_OP_NE: case CN_OP_LT: case CN_OP_LE: case CN_OP_GT: case CN_OP_GE:
      inst_init (x, op, 2);
      x->in_shape[0] = x->in_shape[1] = s;
      return 1;
    case CN_OP_IS_NA_N: case CN_OP_IS_INF: case CN_OP_IS_FINITE:
      inst_init (x, op, 1);
      x->in_shape[0] = s;
      return 1;
    case CN_OP_LOGICAL_NOT:
      inst_init (x, op, 1);
      x->in_shape[0] = s;
      x->in_dtype[0] = CN_DTYPE_BOOL;
      return 1;
    case CN_OP_LOGICAL_AND: case CN_OP_LOGICAL_OR: case CN_OP_LOGICAL_XOR:
      inst_init (x, op, 2);
      x->in_shape[0] = x->in_shape[1] = s;
      x->in_dtype[0] = x->in_dtype[1] = CN_DTYPE_BOOL;
      return 1;
    case CN_OP_SELECT:
      inst_init (x, op, 3);
      x->in_shape[0] = x->in_shape[1] = x->in_shape[2] = s;
      x->in_dtype[0] = CN_DTYPE_BOOL;
      return 1;
    case CN_OP_CAST:
      inst_init (x, op, 1);
      x->in_shape[0] = s;
      x->in_dtype[0] = (cn_dtype) tu_int (0, CN_DTYPE_COUNT - 1);
      if (x->in_dtype[0] == CN_DTYPE_F32)
        x->in_dtype[0] = CN_DTYPE_F64;
      p->cast.to = (cn_dtype) tu_int (0, CN_DTYPE_COUNT - 1);
      return 1;
    case CN_OP_BITWISE_AND: case CN_OP_BITWISE_OR: case CN_OP_BITWISE_XOR: case CN_OP_BITWISE_LEFT_SHIFT:
    case CN_OP_SHIFT_RIGHT_ARITHMETIC: case CN_OP_SHIFT_RIGHT_LOGICAL: case CN_OP_MULHI:
      inst_init (x, op, 2);
      x->in_shape[0] = x->in_shape[1] = s;
      x->in_dtype[0] = x->in_dtype[1] = rand_int_sort ();
      return 1;
    case CN_OP_BITWISE_NOT: case CN_OP_POPULATION_COUNT: case CN_OP_COUNT_LEADING_ZEROS:
      inst_init (x, op, 1);
      x->in_shape[0] = s;
      x->in_dtype[0] = rand_int_sort ();
      return 1;
    case CN_OP_BITCAST:
      {
        /* an integer word read as another sort of its width */
        static const cn_dtype pairs[][2] = {
          { CN_DTYPE_I8, CN_DTYPE_U8 }, { CN_DTYPE_U16, CN_DTYPE_I16 }, { CN_DTYPE_I32, CN_DTYPE_F32 },
          { CN_DTYPE_U32, CN_DTYPE_I32 }, { CN_DTYPE_U64, CN_DTYPE_F64 }, { CN_DTYPE_I64, CN_DTYPE_U64 },
        };
        int k = (int) tu_int (0, 5);
        inst_init (x, op, 1);
        x->in_shape[0] = s;
        x->in_dtype[0] = pairs[k][0];
        p->bitcast.to = pairs[k][1];
        return 1;
      }
    case CN_OP_ENCODE_INDEX: case CN_OP_DECODE_INDEX:
      {
        inst_init (x, op, 1);
        p->index_code.r = (int) tu_int (1, 3);
        for (int c = 0; c < p->index_code.r; c++)
          p->index_code.bound[c] = tu_int (1, 5);
        p->index_code.word = rand_int_sort ();
        int64_t a = tu_int (1, 4);
        if (op == CN_OP_ENCODE_INDEX)
          SHAPE (&x->in_shape[0], a, p->index_code.r);
        else
          {
            SHAPE (&x->in_shape[0], a);
            x->in_dtype[0] = p->index_code.word;
          }
        return 1;
      }
    case CN_OP_DROPOUT:
      inst_init (x, op, 2);
      x->in_shape[0] = x->in_shape[1] = s;
      x->in_dtype[1] = CN_DTYPE_BOOL;
      p->dropout.p = tu_uniform (0, 0.9);
      return 1;
    case CN_OP_TOP_KMASK:
      inst_init (x, op, 1);
      x->in_shape[0] = s;
      p->topk_mask.axis = (int) tu_int (0, s.rank - 1);
      p->topk_mask.k = tu_int (0, s.dim[p->topk_mask.axis]);
      p->topk_mask.largest = (int) tu_int (0, 1);
      return 1;
    case CN_OP_BERNOULLI_MASK: case CN_OP_RAND_UNIFORM: case CN_OP_RANDN:
      inst_init (x, op, 1);
      SHAPE (&x->in_shape[0]);               /* the key, a u64 scalar */
      x->in_dtype[0] = CN_DTYPE_U64;
      if (op == CN_OP_BERNOULLI_MASK)
        {
          p->bernoulli.shape = s;
          p->bernoulli.p = tu_uniform (0, 1);
        }
      else if (op == CN_OP_RAND_UNIFORM)
        {
          p->rand_uniform.shape = s;
          p->rand_uniform.lo = tu_uniform (-3, 0);
          p->rand_uniform.hi = tu_uniform (0.5, 3);
        }
      else
        {
          p->randn.shape = s;
          p->randn.mean = tu_uniform (-2, 2);
          p->randn.std = tu_uniform (0.1, 2);
        }
      return 1;
    case CN_OP_CONV_TRANSPOSE:
      {
        cn_params_conv_transpose *q = &p->conv_transpose;
        inst_init (x, op, 3);
        q->nd = (int) tu_int (1, 3);
        int64_t G = tu_int (1, 2), Cg = tu_int (1, 2), Fg = tu_int (1, 2);
        int64_t xd[5] = { 1, G * Cg }, wd[5] = { G * Cg, Fg };
        for (int i = 0; i < q->nd; i++)
          {
            int64_t K = tu_int (1, 3);
            q->stride[i] = tu_int (1, 3);
            q->dilation[i] = tu_int (1, 2);
            int64_t span = q->dilation[i] * (K - 1);
            q->pad_begin[i] = tu_int (0, span / 2);
            q->pad_end[i] = tu_int (0, span / 2);
            int64_t m = q->stride[i] > q->dilation[i] ? q->stride[i] : q->dilation[i];
            q->output_padding[i] = tu_int (0, m - 1);
            xd[2 + i] = tu_int (1, 3);
            wd[2 + i] = K;
          }
        q->groups = G;
        tu_shape_set (&x->in_shape[0], q->nd + 2, xd);
        tu_shape_set (&x->in_shape[1], q->nd + 2, wd);
        SHAPE (&x->in_shape[2], G * Fg);
        return 1;
      }
    case CN_OP_SMOOTH_MAX_POOL:
      {
        cn_params_pool *q = &p->pool;
        inst_init (x, op, 2);
        q->kind = (cn_pool_kind) tu_int (0, 1);
        q->nd = (int) tu_int (1, 3);
        q->count_include_pad = (int) tu_int (0, 1);
        int64_t xd[5] = { tu_int (1, 2), tu_int (1, 2) };
        for (int i = 0; i < q->nd; i++)
          window_axis (&q->kernel[i], &q->stride[i], &q->pad_begin[i], &q->pad_end[i], &q->dilation[i], &xd[2 + i]);
        tu_shape_set (&x->in_shape[0], q->nd + 2, xd);
        SHAPE (&x->in_shape[1]);             /* beta, a scalar */
        return 1;
      }
    case CN_OP_ATTENTION: case CN_OP_ATTENTION_FROM_SCORES:
      {
        int64_t B = tu_int (1, 2), L = tu_int (1, 3), S = tu_int (L, 4), D = tu_int (1, 3), E = tu_int (1, 3);
        if (op == CN_OP_ATTENTION)
          {
            inst_init (x, op, 3);
            SHAPE (&x->in_shape[0], B, L, D);
            SHAPE (&x->in_shape[1], B, S, D);
            SHAPE (&x->in_shape[2], B, S, E);
            p->attention.scale = tu_int (0, 1) ? 0 : tu_uniform (0.1, 2);
            p->attention.causal = (int) tu_int (0, 1);
          }
        else
          {
            inst_init (x, op, 2);
            SHAPE (&x->in_shape[0], B, L, S);
            SHAPE (&x->in_shape[1], B, S, E);
          }
        return 1;
      }
    case CN_OP_MULTIHEAD_ATTENTION:
      {
        inst_init (x, op, 7);
        p->multihead.heads = (int) tu_int (1, 2);
        p->multihead.causal = (int) tu_int (0, 1);
        int64_t M = p->multihead.heads * tu_int (1, 2), B = tu_int (1, 2), L = tu_int (1, 3), S = tu_int (L, 3);
        SHAPE (&x->in_shape[0], B, L, M);
        SHAPE (&x->in_shape[1], B, S, M);
        SHAPE (&x->in_shape[2], B, S, M);
        SHAPE (&x->in_shape[3], 3 * M, M);
        SHAPE (&x->in_shape[4], 3 * M);
        SHAPE (&x->in_shape[5], M, M);
        SHAPE (&x->in_shape[6], M);
        return 1;
      }
    case CN_OP_RFFT: case CN_OP_IRFFT:
      {
        int64_t B = tu_int (1, 3), N = tu_int (1, 6);
        inst_init (x, op, 1);
        p->fft.n = N;
        p->fft.norm = (cn_fft_norm) tu_int (0, 2);
        if (op == CN_OP_RFFT)
          SHAPE (&x->in_shape[0], B, N);
        else
          SHAPE (&x->in_shape[0], B, N / 2 + 1, 2);
        return 1;
      }
    case CN_OP_SELECTIVE_SCAN:
      {
        int64_t B = tu_int (1, 2), L = tu_int (1, 3), D = tu_int (1, 3), P = tu_int (1, 3);
        inst_init (x, op, 6);
        SHAPE (&x->in_shape[0], B, L, D);
        SHAPE (&x->in_shape[1], B, L, D);
        SHAPE (&x->in_shape[2], D, P);
        SHAPE (&x->in_shape[3], B, L, P);
        SHAPE (&x->in_shape[4], B, L, P);
        SHAPE (&x->in_shape[5], D);
        return 1;
      }
    case CN_OP_CUSTOM:
      inst_init (x, op, 1);
      SHAPE (&x->in_shape[0], 2, 3);
      *program = make_program ();
      p->custom.program = *program;
      snprintf (p->custom.name, sizeof p->custom.name, "block_%d", (int) tu_int (0, 999));
      return 1;
    default:
      return 0;
    }
}

START_TEST (hand_made_round_trip)
{
  cn_op op = (cn_op) _i;
  struct cn__op_case c;
  struct inst x;
  cn_graph *prog;
  int generator = tu_op_case (op, &c), mine = hand_made (op, &x, &prog);
  cn_graph_free (prog);
  ck_assert_msg (generator || mine, "%s: neither a case generator nor a hand-made instance", cn_op_name (op));
  if (!mine)
    return;
  n_hand_made++;
  if (!generator)
    n_hand_made_only++;
  for (int d = 0; d < DRAWS; d++)
    {
      hand_made (op, &x, &prog);
      free (round_trip (&x, "hand-made"));
      cn_graph_free (prog);
    }
}
END_TEST

/* Once custom has a rule: a program holding a custom node round-trips, the inner program decoded
 * into its own graph owned by the result. */
START_TEST (nested_custom)
{
  if (!has_rule (CN_OP_CUSTOM))
    return;
  cn_error err;
  cn_error_clear (&err);
  cn_graph *inner = make_program (), *outer;
  ck_assert (cn_graph_create (&outer, &err) == CN_OK);
  cn_shape s;
  SHAPE (&s, 2, 3);
  int xv, cv, rv;
  ck_assert (cn_graph_add_input (outer, "x", CN_DTYPE_F64, &s, &xv, &err) == CN_OK);
  cn_params_custom pc;
  memset (&pc, 0, sizeof pc);
  pc.program = inner;
  strcpy (pc.name, "inner");
  ck_assert_msg (cn_graph_add_node (outer, CN_OP_CUSTOM, &pc, 1, &xv, "c", &cv, &err) == CN_OK, "%s", err.msg);
  ck_assert (cn_graph_add_node (outer, CN_OP_NEG, NULL, 1, &cv, "n", &rv, &err) == CN_OK);
  ck_assert (cn_graph_set_outputs (outer, 1, &rv, &err) == CN_OK);
  struct inst x;
  inst_init (&x, CN_OP_CUSTOM, 1);
  x.in_shape[0] = s;
  x.params.custom.program = outer;
  strcpy (x.params.custom.name, "outer");
  char *str = round_trip (&x, "nested");
  cn_wire_op w;
  ck_assert (cn_wire_decode_string (str, &w, &err) == CN_OK);
  ck_assert_int_eq (w.n_graphs, 2);
  ck_assert_int_eq (cn_graph_n_nodes (w.graphs[0]), 2);
  ck_assert_ptr_eq (((const cn_params_custom *) cn_graph_node_params (w.graphs[0], 0))->program, w.graphs[1]);
  cn_wire_op_clear (&w);
  free (str);
  cn_graph_free (outer);
  cn_graph_free (inner);
}
END_TEST

/* A program with a node of several outputs (sort: values and indices) round-trips: the decoded
 * program numbers every output as the builder does, and evaluates to the same values. */
START_TEST (program_several_outputs)
{
  if (!has_rule (CN_OP_CUSTOM) || cn_op_n_outputs (CN_OP_SORT) != 2)
    return;
  cn_error err;
  cn_error_clear (&err);
  cn_graph *p;
  ck_assert (cn_graph_create (&p, &err) == CN_OK);
  cn_shape s;
  SHAPE (&s, 2, 3);
  int xv, sv, nv, yv;
  ck_assert (cn_graph_add_input (p, "x", CN_DTYPE_F64, &s, &xv, &err) == CN_OK);
  cn_params_sort ps = { 1, 0 };
  ck_assert (cn_graph_add_node (p, CN_OP_SORT, &ps, 1, &xv, "s", &sv, &err) == CN_OK);
  int iv = cn_graph_node_output (p, cn_graph_value_producer (p, sv), 1);
  ck_assert (cn_graph_add_node (p, CN_OP_NEG, NULL, 1, &sv, "n", &nv, &err) == CN_OK);
  int ai[2] = { iv, nv };
  ck_assert (cn_graph_add_node (p, CN_OP_ADD, NULL, 2, ai, "y", &yv, &err) == CN_OK);
  ck_assert (cn_graph_set_outputs (p, 1, &yv, &err) == CN_OK);
  struct inst x;
  inst_init (&x, CN_OP_CUSTOM, 1);
  x.in_shape[0] = s;
  x.params.custom.program = p;
  strcpy (x.params.custom.name, "sorted");
  char *str = round_trip (&x, "several outputs");
  cn_wire_op w;
  ck_assert (cn_wire_decode_string (str, &w, &err) == CN_OK);
  const cn_graph *q = w.graphs[0];
  ck_assert_int_eq (cn_graph_n_nodes (q), 3);
  ck_assert_int_eq (cn_graph_node_n_outputs (q, 0), 2);
  /* the add reads the sort's indices (output 1) and the negated values */
  ck_assert_int_eq (cn_graph_node_input (q, 2, 0), cn_graph_node_output (q, 0, 1));
  cn_tensor in, a, b;
  ck_assert (cn_tensor_init (&in, CN_DTYPE_F64, &s, &err) == CN_OK);
  const double xs[6] = { 3, -1, 2, 0.5, 0.25, -7 };
  memcpy (in.data, xs, sizeof xs);
  ck_assert (cn_graph_eval (p, CN_DTYPE_F64, &in, &a, &err) == CN_OK);
  ck_assert (cn_graph_eval (q, CN_DTYPE_F64, &in, &b, &err) == CN_OK);
  /* row 0 sorted: -1 (1), 2 (2), 3 (0): y = 1 + 1, 2 - 2, 0 - 3; row 1: -7 (2), 0.25 (1), 0.5 (0) */
  const double want[6] = { 2, 0, -3, 9, 0.75, -0.5 };
  for (int j = 0; j < 6; j++)
    ck_assert_msg (((double *) a.data)[j] == want[j] && ((double *) b.data)[j] == want[j], "entry %d: %g, %g", j,
                   ((double *) a.data)[j], ((double *) b.data)[j]);
  cn_tensor_clear (&in);
  cn_tensor_clear (&a);
  cn_tensor_clear (&b);
  cn_wire_op_clear (&w);
  free (str);
  cn_graph_free (p);
}
END_TEST

/* ---- 4. doubles ---------------------------------------------------------------------------- */

/* Decodes TEXT into W, which must succeed. */
static void
decode_ok (const char *text, cn_wire_op *w)
{
  cn_error err;
  cn_error_clear (&err);
  cn_status st = cn_wire_decode_string (text, w, &err);
  ck_assert_msg (st == CN_OK, "%s: %s", text, err.msg);
}

START_TEST (doubles_exact)
{
  struct inst x;
  inst_init (&x, CN_OP_SCALE, 1);
  SHAPE (&x.in_shape[0], 3);
  const double fixed[] = { 0.0, -0.0, 1.0, 0.1, 1.0 / 3, DBL_MAX, -DBL_MAX, DBL_MIN, 0x1p-1074, -0x1p-1074,
                           0x1.fffffffffffffp-1023, 0x1p53 + 2, 1e300, -1e-300, 123456789012345678.0 };
  for (int k = 0; k < 400; k++)
    {
      double v;
      if (k < (int) (sizeof fixed / sizeof fixed[0]))
        v = fixed[k];
      else
        {
          /* a random finite bit pattern */
          do
            {
              uint64_t u = tu_rand ();
              memcpy (&v, &u, sizeof v);
            }
          while (!isfinite (v));
        }
      x.params.scale.factor = v;
      char *s = round_trip (&x, "double");   /* byte equality of the record: the bits come back */
      free (s);
    }
  /* integers are accepted for a double field where exact */
  cn_wire_op w;
  decode_ok ("{\"version\": 1, \"tag\": \"scale\", \"inputs\": [{\"sort\": \"f64\", \"shape\": [2]}], "
             "\"fields\": {\"factor\": 3}}", &w);
  ck_assert (WP (w, scale)->factor == 3.0);
  cn_wire_op_clear (&w);
  /* non-finite values where a field may hold them */
  inst_init (&x, CN_OP_NAN_TO_NUM, 1);
  SHAPE (&x.in_shape[0], 2, 2);
  x.params.nan_to_num.nan_value = NAN;
  x.params.nan_to_num.posinf = INFINITY;
  x.params.nan_to_num.neginf = -INFINITY;
  x.params.nan_to_num.posinf_set = 1;
  char *s = NULL;
  cn_error err;
  cn_error_clear (&err);
  ck_assert (cn_wire_encode_string (CN_OP_NAN_TO_NUM, &x.params, 1, x.in_shape, NULL, &s, &err) == CN_OK);
  ck_assert_ptr_nonnull (strstr (s, "\"nan_value\": \"nan\""));
  ck_assert_ptr_nonnull (strstr (s, "\"posinf\": \"inf\""));
  ck_assert_ptr_nonnull (strstr (s, "\"neginf\": \"-inf\""));
  ck_assert_ptr_nonnull (strstr (s, "\"posinf_set\": true"));
  ck_assert (cn_wire_decode_string (s, &w, &err) == CN_OK);
  ck_assert (isnan (WP (w, nan_to_num)->nan_value));
  ck_assert (WP (w, nan_to_num)->posinf == INFINITY && WP (w, nan_to_num)->neginf == -INFINITY);
  ck_assert_int_eq (WP (w, nan_to_num)->posinf_set, 1);
  ck_assert_int_eq (WP (w, nan_to_num)->neginf_set, 0);
  cn_wire_op_clear (&w);
  free (s);
  inst_init (&x, CN_OP_FULL_LIKE, 1);
  SHAPE (&x.in_shape[0], 2);
  x.params.full_like.value = -INFINITY;
  free (round_trip (&x, "fullLike -inf"));
  /* refused where finite is required: encoding and decoding */
  inst_init (&x, CN_OP_SCALE, 1);
  SHAPE (&x.in_shape[0], 2);
  x.params.scale.factor = INFINITY;
  cn_error_clear (&err);
  ck_assert_int_eq (cn_wire_encode_string (CN_OP_SCALE, &x.params, 1, x.in_shape, NULL, &s, &err), CN_EINVAL);
  ck_assert_ptr_null (s);
  ck_assert_ptr_nonnull (strstr (err.msg, "scale"));
  ck_assert_ptr_nonnull (strstr (err.msg, "'factor'"));
}
END_TEST

/* ---- 5. malformed records -------------------------------------------------------------------- */

/* Decoding TEXT fails with status ST and a message holding A and B (NULL: no check). */
static void
expect_fail (const char *text, cn_status st, const char *a, const char *b)
{
  cn_wire_op w;
  cn_error err;
  cn_error_clear (&err);
  memset (&w, 0x5a, sizeof w);
  cn_status got = cn_wire_decode_string (text, &w, &err);
  ck_assert_msg (got == st, "%s: status %s, expected %s (%s)", text, cn_status_name (got), cn_status_name (st), err.msg);
  ck_assert_msg (strncmp (err.msg, "wire: ", 6) == 0, "%s: message '%s' does not start with 'wire: '", text, err.msg);
  ck_assert_msg (a == NULL || strstr (err.msg, a) != NULL, "%s: message '%s' lacks '%s'", text, err.msg, a);
  ck_assert_msg (b == NULL || strstr (err.msg, b) != NULL, "%s: message '%s' lacks '%s'", text, err.msg, b);
  ck_assert_int_eq (w.n_in, 0);
  ck_assert_ptr_null (w.in_shape);
  ck_assert_ptr_null (w.graphs);
  cn_wire_op_clear (&w);
}

#define IN1(shape) "\"inputs\": [{\"sort\": \"f64\", \"shape\": " shape "}]"
#define REC1(tag, shape, fields) "{\"version\": 1, \"tag\": \"" tag "\", " IN1 (shape) ", \"fields\": " fields "}"

START_TEST (malformed)
{
  /* a valid record to start from */
  cn_wire_op w;
  cn_error err;
  cn_error_clear (&err);
  ck_assert_msg (cn_wire_decode_string (REC1 ("softmax", "[2, 3]", "{\"axis\": 1}"), &w, &err) == CN_OK, "%s",
                 err.msg);
  ck_assert_int_eq (w.op, CN_OP_SOFTMAX);
  ck_assert_int_eq (WP (w, softmax)->axis, 1);
  ck_assert_int_eq (w.checked, 1);
  ck_assert_int_eq (w.out_shape.rank, 2);
  cn_wire_op_clear (&w);

  /* members in any order, a whole number for a double field */
  ck_assert_msg (cn_wire_decode_string ("{\"fields\": {\"dilation\": [1], \"count_include_pad\": true, \"kernel\": [2], "
                                        "\"stride\": [2], \"nd\": 1, \"pad_end\": [1], \"pad_begin\": [0], "
                                        "\"kind\": \"avg\"}, \"inputs\": [{\"shape\": [1, 2, 5], \"sort\": \"f32\"}], "
                                        "\"tag\": \"pool\", \"version\": 1}", &w, &err) == CN_OK, "%s", err.msg);
  ck_assert_int_eq (WP (w, pool)->kind, CN_POOL_AVG);
  ck_assert_int_eq (WP (w, pool)->nd, 1);
  ck_assert_int_eq (WP (w, pool)->kernel[0], 2);
  ck_assert_int_eq (WP (w, pool)->kernel[1], 0);
  ck_assert_int_eq (WP (w, pool)->pad_end[0], 1);
  ck_assert_int_eq (WP (w, pool)->count_include_pad, 1);
  ck_assert_int_eq (w.in_dtype[0], CN_DTYPE_F32);
  ck_assert_int_eq (w.out_dtype, CN_DTYPE_F32);
  ck_assert_int_eq (w.out_shape.rank, 3);
  ck_assert_int_eq (w.out_shape.dim[2], 3);
  cn_wire_op_clear (&w);
  ck_assert_int_eq (cn_wire_decode (NULL, &w, &err), CN_EINVAL);
  cn_error_clear (&err);
  ck_assert_int_eq (cn_wire_decode_string (NULL, &w, &err), CN_EINVAL);

  /* JSON and the envelope */
  expect_fail ("{\"version\": 1, \"tag\": ", CN_EPARSE, "malformed JSON", NULL);
  expect_fail (REC1 ("softmax", "[2, 3]", "{\"axis\": 1}") " x", CN_EPARSE, "malformed JSON", NULL);
  expect_fail ("[1, 2]", CN_EPARSE, "an array", NULL);
  expect_fail ("{\"version\": 1, \"version\": 1, \"tag\": \"relu\"}", CN_EPARSE, "malformed JSON", NULL);
  expect_fail ("{\"version\": 2, \"tag\": \"softmax\", " IN1 ("[2, 3]") ", \"fields\": {\"axis\": 1}}", CN_EPARSE,
               "version 2", NULL);
  expect_fail ("{\"version\": \"1\", \"tag\": \"softmax\", " IN1 ("[2, 3]") ", \"fields\": {\"axis\": 1}}",
               CN_EPARSE, "'version'", NULL);
  expect_fail ("{\"tag\": \"softmax\", " IN1 ("[2, 3]") ", \"fields\": {\"axis\": 1}}", CN_EPARSE, "'version'", NULL);
  expect_fail (REC1 ("softMax", "[2, 3]", "{\"axis\": 1}"), CN_EPARSE, "unknown tag", "softMax");
  expect_fail ("{\"version\": 1, \"tag\": 7, " IN1 ("[2]") ", \"fields\": {}}", CN_EPARSE, "'tag'", NULL);
  expect_fail ("{\"version\": 1, \"tag\": \"relu\", " IN1 ("[2]") ", \"fields\": {}, \"extra\": 0}", CN_EPARSE,
               "relu", "'extra'");
  expect_fail ("{\"version\": 1, \"tag\": \"relu\", \"fields\": {}}", CN_EPARSE, "relu", "'inputs'");
  expect_fail ("{\"version\": 1, \"tag\": \"relu\", " IN1 ("[2]") "}", CN_EPARSE, "relu", "'fields'");
  expect_fail ("{\"version\": 1, \"tag\": \"relu\", " IN1 ("[2]") ", \"fields\": []}", CN_EPARSE, "relu", "'fields'");
  expect_fail ("{\"version\": 1, \"tag\": \"relu\", \"inputs\": [], \"fields\": {}}", CN_EINVAL, "relu", "inputs");

  /* fields: missing, extra, ill-typed */
  expect_fail (REC1 ("softmax", "[2, 3]", "{}"), CN_EPARSE, "softmax", "'axis'");
  expect_fail (REC1 ("softmax", "[2, 3]", "{\"axis\": 1, \"dim\": 1}"), CN_EPARSE, "softmax", "'dim'");
  expect_fail (REC1 ("relu", "[2, 3]", "{\"axis\": 1}"), CN_EPARSE, "relu", "'axis'");
  expect_fail (REC1 ("softmax", "[2, 3]", "{\"axis\": \"1\"}"), CN_EPARSE, "softmax", "'axis'");
  expect_fail (REC1 ("softmax", "[2, 3]", "{\"axis\": 1.0}"), CN_EPARSE, "softmax", "'axis'");
  expect_fail (REC1 ("softmax", "[2, 3]", "{\"axis\": 4294967296}"), CN_EINVAL, "softmax", "'axis'");
  expect_fail (REC1 ("reduce", "[2, 3]", "{\"kind\": \"sum\", \"axes\": [1], \"keepdims\": 1}"), CN_EPARSE, "reduce",
               "'keepdims'");
  expect_fail (REC1 ("scale", "[2]", "{\"factor\": \"big\"}"), CN_EPARSE, "scale", "'factor'");
  expect_fail (REC1 ("scale", "[2]", "{\"factor\": null}"), CN_EPARSE, "scale", "'factor'");
  expect_fail (REC1 ("scale", "[2]", "{\"factor\": 9007199254740993}"), CN_EINVAL, "scale", "'factor'");

  /* enumerations and sorts */
  expect_fail ("{\"version\": 1, \"tag\": \"div\", \"inputs\": [{\"sort\": \"f64\", \"shape\": [2]}, "
               "{\"sort\": \"f64\", \"shape\": [2]}], \"fields\": {\"rounding\": \"round\"}}",
               CN_EPARSE, "div", "'rounding'");
  expect_fail (REC1 ("gelu", "[2]", "{\"approximate\": \"Tanh\"}"), CN_EPARSE, "gelu", "'approximate'");
  expect_fail (REC1 ("reduce", "[2, 3]", "{\"kind\": \"mean\", \"axes\": [1], \"keepdims\": false}"), CN_EPARSE,
               "reduce", "'kind'");
  expect_fail (REC1 ("cast", "[2]", "{\"to\": \"f8\"}"), CN_EPARSE, "cast", "'to'");
  expect_fail ("{\"version\": 1, \"tag\": \"relu\", \"inputs\": [{\"sort\": \"float\", \"shape\": [2]}], "
               "\"fields\": {}}", CN_EPARSE, "relu", "input 0");
  expect_fail ("{\"version\": 1, \"tag\": \"relu\", \"inputs\": [{\"sort\": \"bool\", \"shape\": [2]}], "
               "\"fields\": {}}", CN_EINVAL, "relu", "input 0");
  expect_fail ("{\"version\": 1, \"tag\": \"relu\", \"inputs\": [{\"sort\": \"f64\", \"shape\": [2], \"name\": \"x\"}], "
               "\"fields\": {}}", CN_EPARSE, "relu", "'name'");
  expect_fail ("{\"version\": 1, \"tag\": \"relu\", \"inputs\": [{\"shape\": [2]}], \"fields\": {}}", CN_EPARSE,
               "relu", "'sort'");

  /* shapes and input counts */
  expect_fail (REC1 ("relu", "[2, -1]", "{}"), CN_EINVAL, "relu", "extent 1");
  expect_fail (REC1 ("relu", "[1, 1, 1, 1, 1, 1, 1, 1, 1]", "{}"), CN_EINVAL, "relu", "rank");
  expect_fail (REC1 ("relu", "[4294967296, 4294967296, 4294967296]", "{}"), CN_EINVAL, "relu", "too many");
  expect_fail (REC1 ("relu", "[2.5]", "{}"), CN_EPARSE, "relu", "extent 0");
  expect_fail (REC1 ("add", "[2]", "{}"), CN_EINVAL, "add", "inputs");
  expect_fail (REC1 ("reshape", "[2, 3]", "{\"shape\": [5]}"), CN_ESHAPE, "reshape", NULL);
  expect_fail (REC1 ("reshape", "[2, 3]", "{\"shape\": [6, -1]}"), CN_EINVAL, "reshape", "'shape'");

  /* ranges and the rule's check */
  expect_fail (REC1 ("softmax", "[2, 3]", "{\"axis\": 2}"), CN_EINVAL, "softmax", "axis");
  expect_fail (REC1 ("softmax", "[2, 3]", "{\"axis\": -1}"), CN_EINVAL, "softmax", "axis");
  expect_fail (REC1 ("cumsum", "[4]", "{\"axis\": 1}"), CN_EINVAL, "cumsum", "axis");
  expect_fail (REC1 ("pool", "[1, 1, 4, 4]", "{\"kind\": \"max\", \"nd\": 2, \"kernel\": [-1, 2], \"stride\": [1, 1], "
                     "\"pad_begin\": [0, 0], \"pad_end\": [0, 0], \"dilation\": [1, 1], \"count_include_pad\": false}"),
               CN_EINVAL, "pool", "'kernel'");
  expect_fail (REC1 ("pool", "[1, 1, 4, 4]", "{\"kind\": \"max\", \"nd\": 2, \"kernel\": [2], \"stride\": [1, 1], "
                     "\"pad_begin\": [0, 0], \"pad_end\": [0, 0], \"dilation\": [1, 1], \"count_include_pad\": false}"),
               CN_EINVAL, "pool", "'kernel'");
  expect_fail (REC1 ("pool", "[1, 1, 4, 4]", "{\"kind\": \"max\", \"nd\": 4, \"kernel\": [2, 2, 2, 2], "
                     "\"stride\": [1, 1, 1, 1], \"pad_begin\": [0, 0, 0, 0], \"pad_end\": [0, 0, 0, 0], "
                     "\"dilation\": [1, 1, 1, 1], \"count_include_pad\": false}"),
               CN_EINVAL, "pool", "'nd'");
  expect_fail (REC1 ("pool", "[1, 1, 4, 4]", "{\"kind\": \"max\", \"nd\": 2, \"kernel\": [2, 9], \"stride\": [1, 1], "
                     "\"pad_begin\": [0, 0], \"pad_end\": [0, 0], \"dilation\": [1, 1], \"count_include_pad\": false}"),
               CN_ESHAPE, "pool", NULL);
  expect_fail (REC1 ("pad", "[2]", "{\"rank\": 1, \"begin\": [-1], \"end\": [0], \"value\": 0}"), CN_EINVAL, "pad",
               "'begin'");
  expect_fail (REC1 ("scale", "[2]", "{\"factor\": \"nan\"}"), CN_EINVAL, "scale", "'factor'");
  expect_fail (REC1 ("scale", "[2]", "{\"factor\": \"inf\"}"), CN_EINVAL, "scale", "'factor'");
  expect_fail (REC1 ("pad", "[2]", "{\"rank\": 1, \"begin\": [1], \"end\": [0], \"value\": \"-inf\"}"), CN_EINVAL,
               "pad", "'value'");
  expect_fail (REC1 ("reduce", "[2, 3]", "{\"kind\": \"sum\", \"axes\": [1, 1], \"keepdims\": false}"), CN_EINVAL,
               "reduce", "'axes'");
  expect_fail (REC1 ("reduce", "[2, 3]", "{\"kind\": \"sum\", \"axes\": [32], \"keepdims\": false}"), CN_EINVAL,
               "reduce", "'axes'");
  expect_fail (REC1 ("permute", "[2, 3]", "{\"rank\": 2, \"perm\": [1, 1]}"), CN_EINVAL, "permute", NULL);
  expect_fail (REC1 ("topk", "[4]", "{\"axis\": 0, \"k\": -1, \"largest\": true, \"ties_by_index\": false}"), CN_EINVAL, "topk", "'k'");
  expect_fail (REC1 ("encodeIndex", "[3, 2]", "{\"r\": 2, \"bound\": [2, 0], \"word\": \"i64\"}"), CN_EINVAL,
               "encodeIndex", "'bound'");
  expect_fail (REC1 ("randUniform", "[]", "{\"shape\": [2], \"lo\": 0, \"hi\": \"nan\"}"), CN_EINVAL, "randUniform",
               "'hi'");
  expect_fail (REC1 ("multiheadAttention", "[2]", "{\"heads\": 0, \"causal\": false}"), CN_EINVAL,
               "multiheadAttention", "'heads'");

  /* custom: the name and the program */
  const char *prog_ok = "{\"inputs\": [{\"name\": \"x\", \"sort\": \"f64\", \"shape\": [2]}], \"constants\": [], "
                        "\"nodes\": [{\"name\": \"r\", \"op\": " REC1 ("relu", "[2]", "{}") ", \"in\": [0]}], "
                        "\"outputs\": [1]}";
  char buf[2048];
  snprintf (buf, sizeof buf, REC1 ("custom", "[2]", "{\"program\": %s, \"name\": \"c\"}"), prog_ok);
  cn_error_clear (&err);
  cn_status st = cn_wire_decode_string (buf, &w, &err);
  ck_assert_msg (st == CN_OK, "%s", err.msg);
  ck_assert_int_eq (w.n_graphs, 1);
  ck_assert_int_eq (cn_graph_n_nodes (w.graphs[0]), 1);
  ck_assert_int_eq (cn_graph_node_op (w.graphs[0], 0), CN_OP_RELU);
  cn_wire_op_clear (&w);
  snprintf (buf, sizeof buf, REC1 ("custom", "[2]", "{\"program\": %s, \"name\": \"%s\"}"), prog_ok,
            "0123456789012345678901234567890123456789012345678901234567890123");
  expect_fail (buf, CN_EINVAL, "custom", "'name'");
  snprintf (buf, sizeof buf, REC1 ("custom", "[3]", "{\"program\": %s, \"name\": \"c\"}"), prog_ok);
  expect_fail (buf, CN_EINVAL, "custom", "'program'");
  expect_fail (REC1 ("custom", "[2]", "{\"program\": 0, \"name\": \"c\"}"), CN_EPARSE, "custom", "'program'");
  expect_fail (REC1 ("custom", "[2]", "{\"program\": {\"inputs\": [{\"name\": \"x\", \"sort\": \"f64\", \"shape\": [2]}], "
                     "\"constants\": [], \"nodes\": [{\"name\": \"r\", \"op\": " REC1 ("relu", "[2]", "{}")
                     ", \"in\": [5]}], \"outputs\": [1]}, \"name\": \"c\"}"),
               CN_EINVAL, "custom", "value 5");
  expect_fail (REC1 ("custom", "[2]", "{\"program\": {\"inputs\": [{\"name\": \"x\", \"sort\": \"f64\", \"shape\": [2]}], "
                     "\"constants\": [], \"nodes\": [{\"name\": \"r\", \"op\": " REC1 ("relu", "[3]", "{}")
                     ", \"in\": [0]}], \"outputs\": [1]}, \"name\": \"c\"}"),
               CN_EINVAL, "custom", "node 0");
  expect_fail (REC1 ("custom", "[2]", "{\"program\": {\"inputs\": [{\"name\": \"x\", \"sort\": \"f64\", \"shape\": [2]}], "
                     "\"constants\": [], \"nodes\": [{\"name\": \"r\", \"op\": " REC1 ("softmax", "[2]", "{\"axis\": 3}")
                     ", \"in\": [0]}], \"outputs\": [1]}, \"name\": \"c\"}"),
               CN_EINVAL, "custom", "softmax");
  expect_fail (REC1 ("custom", "[2]", "{\"program\": {\"inputs\": [{\"name\": \"x\", \"sort\": \"f64\", \"shape\": [2]}], "
                     "\"constants\": [{\"name\": \"w\", \"sort\": \"f64\", \"shape\": [2], \"words\": \"3ff0\"}], "
                     "\"nodes\": [], \"outputs\": [0]}, \"name\": \"c\"}"),
               CN_EINVAL, "custom", "'words'");
  expect_fail (REC1 ("custom", "[2]", "{\"program\": {\"inputs\": [{\"name\": \"x\", \"sort\": \"f64\", \"shape\": [2]}], "
                     "\"constants\": [{\"name\": \"w\", \"sort\": \"f64\", \"shape\": [1], \"words\": \"7ff8000000000000\"}], "
                     "\"nodes\": [], \"outputs\": [0]}, \"name\": \"c\"}"),
               CN_ENUMERIC, "custom", "NaN");
  expect_fail (REC1 ("custom", "[2]", "{\"program\": {\"inputs\": [{\"name\": \"x\", \"sort\": \"f64\", \"shape\": [2]}], "
                     "\"constants\": [{\"name\": \"b\", \"sort\": \"bool\", \"shape\": [1], \"words\": \"02\"}], "
                     "\"nodes\": [], \"outputs\": [0]}, \"name\": \"c\"}"),
               CN_EINVAL, "custom", "Boolean");
  expect_fail (REC1 ("custom", "[2]", "{\"program\": {\"inputs\": [{\"name\": \"x\", \"sort\": \"f64\", \"shape\": [2]}], "
                     "\"constants\": [], \"nodes\": [], \"outputs\": [0], \"params\": 1}, \"name\": \"c\"}"),
               CN_EPARSE, "custom", "'params'");
}
END_TEST

/* Encoding checks the instance as decoding does. */
START_TEST (encode_refuses)
{
  cn_error err;
  cn_shape s;
  SHAPE (&s, 2, 3);
  char *out = (char *) 1;
  cn_params_softmax sm = { .axis = 2 };
  cn_error_clear (&err);
  ck_assert_int_eq (cn_wire_encode_string (CN_OP_SOFTMAX, &sm, 1, &s, NULL, &out, &err), CN_EINVAL);
  ck_assert_ptr_null (out);
  ck_assert_ptr_nonnull (strstr (err.msg, "softmax"));
  cn_params_argmax am = { .axis = 0, .keepdims = 2 };
  cn_error_clear (&err);
  ck_assert_int_eq (cn_wire_encode_string (CN_OP_ARGMAX, &am, 1, &s, NULL, &out, &err), CN_EINVAL);
  ck_assert_ptr_nonnull (strstr (err.msg, "'keepdims'"));
  cn_error_clear (&err);
  ck_assert_int_eq (cn_wire_encode_string (CN_OP_SOFTMAX, NULL, 1, &s, NULL, &out, &err), CN_EINVAL);
  ck_assert_ptr_nonnull (strstr (err.msg, "softmax"));
  cn_error_clear (&err);
  ck_assert_int_eq (cn_wire_encode_string (CN_OP_COUNT, NULL, 1, &s, NULL, &out, &err), CN_EINVAL);
  cn_params_div dv = { .rounding = (cn_div_rounding) 7 };
  cn_shape two[2] = { s, s };
  cn_error_clear (&err);
  ck_assert_int_eq (cn_wire_encode_string (CN_OP_DIV, &dv, 2, two, NULL, &out, &err), CN_EINVAL);
  ck_assert_ptr_nonnull (strstr (err.msg, "'rounding'"));
  cn_params_custom pc;
  memset (&pc, 0, sizeof pc);
  cn_error_clear (&err);
  ck_assert_int_eq (cn_wire_encode_string (CN_OP_CUSTOM, &pc, 1, &s, NULL, &out, &err), CN_EINVAL);
  ck_assert_ptr_nonnull (strstr (err.msg, "'program'"));
  /* a name that is not UTF-8 is refused by field, not reported as out of memory */
  if (has_rule (CN_OP_CUSTOM))
    {
      cn_graph *prog = make_program ();
      pc.program = prog;
      strcpy (pc.name, "bad\xff");
      cn_error_clear (&err);
      ck_assert_int_eq (cn_wire_encode_string (CN_OP_CUSTOM, &pc, 1, &s, NULL, &out, &err), CN_EINVAL);
      ck_assert_msg (strstr (err.msg, "'name'") != NULL && strstr (err.msg, "UTF-8") != NULL, "%s", err.msg);
      cn_graph_free (prog);
    }
  /* a record of the right form prints as documented */
  sm.axis = 1;
  ck_assert (cn_wire_encode_string (CN_OP_SOFTMAX, &sm, 1, &s, NULL, &out, &err) == CN_OK);
  ck_assert_str_eq (out, "{\"version\": 1, \"tag\": \"softmax\", \"inputs\": [{\"sort\": \"f64\", \"shape\": [2, 3]}], "
                         "\"fields\": {\"axis\": 1}}");
  free (out);
}
END_TEST

/* ---- 6. artifacts ----------------------------------------------------------------------- */

static int n_artifacts;

/* TEXT (N bytes) with one to four random mutations, in a new NUL-terminated buffer. */
static char *
mutate (const char *text, size_t n, size_t *len)
{
  static const char bytes[] = "{}[]\",:0123456789-+.eE\"\\ftnaxyz ";
  char *m = malloc (n + 1);
  ck_assert_ptr_nonnull (m);
  memcpy (m, text, n);
  size_t k = n;
  for (int r = (int) tu_int (1, 4); r > 0 && k > 0; r--)
    switch (tu_int (0, 2))
      {
      case 0:   /* a byte replaced */
        m[tu_int (0, (int64_t) k - 1)] = bytes[tu_int (0, (int64_t) sizeof bytes - 2)];
        break;
      case 1:   /* a span deleted */
        {
          size_t a = (size_t) tu_int (0, (int64_t) k - 1), b = a + (size_t) tu_int (1, 16);
          if (b > k)
            b = k;
          memmove (m + a, m + b, k - b);
          k -= b - a;
          break;
        }
      default:  /* cut short */
        k = (size_t) tu_int (0, (int64_t) k - 1);
        break;
      }
  m[k] = '\0';
  *len = k;
  return m;
}

START_TEST (artifact_round_trip)
{
  cn_op op = (cn_op) _i;
  const char *name = cn_op_name (op);
  struct cn__op_case c;
  if (!has_rule (op) || !tu_op_case (op, &c))
    return;
  cn_graph *g = NULL;
  cn_error err;
  cn_error_clear (&err);
  if (tu_op_graph (&c, &g, &err) != CN_OK)
    return;   /* a drawn instance the graph builder refuses (random_round_trip checks those) */
  int xin = cn_graph_input (g, 0);
  cn_tensor x;
  ck_assert (cn_tensor_init (&x, CN_DTYPE_F64, cn_graph_value_shape (g, xin), &err) == CN_OK);
  if (cn_tensor_numel (&x) > 0)
    tu_draw_point (&c, x.data);
  char *text = NULL;
  cn_status st = cn_artifact_export (g, CN_DTYPE_F64, &x, NULL, NULL, &text, &err);
  ck_assert_msg (st == CN_OK, "%s: export failed: %s (CN_TEST_SEED=%lu)", name, err.msg, tu_seed ());
  static const char *const checks[] = { "structure", "types", "execute", "compare", "compare_bitwise" };
  cn_check_report r;
  ck_assert (cn_artifact_check (text, strlen (text), 5, checks, &r, &err) == CN_OK);
  ck_assert_int_eq (r.n_findings, 5);
  for (int i = 0; i < 5; i++)
    ck_assert_msg (r.findings[i].status == CN_FINDING_PASSED, "%s: %s %s: %s (CN_TEST_SEED=%lu)", name,
                   r.findings[i].name, cn_finding_status_name (r.findings[i].status), r.findings[i].message, tu_seed ());
  cn_check_report_clear (&r);
  n_artifacts++;
  /* texts that are JSON but not an object are refused as such */
  static const char *const not_objects[] = { "[1, 2]", "3", "\"x\"", "null", " true " };
  for (int k = 0; k < 5; k++)
    {
      cn_error_clear (&err);
      ck_assert (cn_artifact_check (not_objects[k], strlen (not_objects[k]), 0, NULL, &r, &err) == CN_EPARSE);
      ck_assert (k > 0 ? err.msg[0] != '\0' : strstr (err.msg, "not an artifact object") != NULL);
      ck_assert_int_eq (r.n_findings, 0);
    }
  for (int k = 0; k < MUTANTS; k++)
    {
      size_t len;
      char *m = mutate (text, strlen (text), &len);
      cn_error_clear (&err);
      st = cn_artifact_check (m, len, 5, checks, &r, &err);
      ck_assert_msg (st == CN_OK || st == CN_EPARSE, "%s: mutant %d: status %d (%s)", name, k, (int) st, err.msg);
      if (st == CN_OK)
        for (int i = 0; i < r.n_findings; i++)
          ck_assert_msg (r.findings[i].message != NULL && r.findings[i].establishes != NULL, "%s: mutant %d", name, k);
      else
        ck_assert (r.n_findings == 0 && err.msg[0] != '\0');
      cn_check_report_clear (&r);
      free (m);
    }
  free (text);
  cn_tensor_clear (&x);
  cn_graph_free (g);
}
END_TEST

START_TEST (summary)
{
  ck_assert_int_eq (n_drawn + n_hand_made_only, CN_OP_COUNT);
  ck_assert_int_gt (n_artifacts, 100);
  fprintf (stderr, "check_wire: %d operators round-tripped from drawn instances, %d from hand-made ones (%d of them "
           "without a case generator); %d exported as artifacts that pass every check\n", n_drawn, n_hand_made,
           n_hand_made_only, n_artifacts);
}
END_TEST

static Suite *
wire_suite (void)
{
  Suite *s = suite_create ("wire");
  TCase *tc = tcase_create ("codec");
  tcase_set_timeout (tc, 120);
  tcase_add_test (tc, descriptor_sizes);
  tcase_add_loop_test (tc, random_round_trip, 0, CN_OP_COUNT);
  tcase_add_loop_test (tc, hand_made_round_trip, 0, CN_OP_COUNT);
  tcase_add_test (tc, nested_custom);
  tcase_add_test (tc, program_several_outputs);
  tcase_add_test (tc, doubles_exact);
  tcase_add_test (tc, malformed);
  tcase_add_test (tc, encode_refuses);
  tcase_add_loop_test (tc, artifact_round_trip, 0, CN_OP_COUNT);
  tcase_add_test (tc, summary);
  suite_add_tcase (s, tc);
  return s;
}

int
main (void)
{
  tu_init ();
  tu_element_sorts = 1;   /* the generators may draw Booleans and words at element ports */
  return tu_run_suite (wire_suite ());
}
