/* SPDX-License-Identifier: MIT */
/* tests/op_cases_custom.c: random instances of custom for the generic operator tests.
 *
 * Each case carries a small random program built with the cn_graph_* calls, one of:
 *   0. tanh(a x + b), a and b constants of x's shape;
 *   1. sigmoid(x) y - 0.5 y, two inputs (one of them sometimes a constant of the case);
 *   2. exp(x / 4), beside a node off the output's path (relu(x), never needed);
 *   3. relu(custom(tanh(a x + b))) + x: a custom node inside the program (nesting);
 *   4. x x + c, the input read twice;
 *   5. the identity (the program's output is its input);
 *   6. select(x > 0, tanh(x), x / 10): a comparison (frozen ports, a Boolean output, no pullback
 *      or jvp) and a Boolean port inside the program, which the derivative arms must pass by.
 * The record borrows its program, so the programs live in a pool freed at exit (tests only).
 * Custom has no CROWN arm: crown_ok stays 0. */
#include <config.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "testutil.h"

static cn_graph **pool;
static size_t pool_n, pool_cap;

static void
pool_free (void)
{
  for (size_t i = 0; i < pool_n; i++)
    cn_graph_free (pool[i]);
  free (pool);
  pool = NULL;
  pool_n = pool_cap = 0;
}

/* Keeps G alive until the process exits. */
static void
pool_keep (cn_graph *g)
{
  if (pool_n == pool_cap)
    {
      if (pool == NULL)
        atexit (pool_free);
      pool_cap = pool_cap ? 2 * pool_cap : 64;
      pool = realloc (pool, pool_cap * sizeof *pool);
      if (pool == NULL)
        {
          fprintf (stderr, "op_cases_custom: out of memory\n");
          abort ();
        }
    }
  pool[pool_n++] = g;
}

static void
ok (cn_status st, const cn_error *err)
{
  if (st != CN_OK)
    {
      fprintf (stderr, "op_cases_custom: building a program failed: %s\n", err->msg);
      abort ();
    }
}

/* A constant of shape S with entries uniform in [LO, HI], added to G. */
static int
add_const (cn_graph *g, const char *name, const cn_shape *s, double lo, double hi)
{
  cn_error err;
  cn_error_clear (&err);
  cn_tensor t;
  ok (cn_tensor_init (&t, CN_DTYPE_F64, s, &err), &err);
  for (int64_t j = 0; j < cn_shape_numel (s); j++)
    ((double *) t.data)[j] = tu_uniform (lo, hi);
  int v;
  ok (cn_graph_add_constant (g, name, &t, &v, &err), &err);
  cn_tensor_clear (&t);
  return v;
}

/* The program tanh(a x + b) on inputs of shape S (kept in the pool). */
static cn_graph *
affine_tanh (const cn_shape *s)
{
  cn_error err;
  cn_error_clear (&err);
  cn_graph *g;
  int x, a, b, t, u, y;
  ok (cn_graph_create (&g, &err), &err);
  pool_keep (g);
  ok (cn_graph_add_input (g, "x", CN_DTYPE_F64, s, &x, &err), &err);
  a = add_const (g, "a", s, -2, 2);
  b = add_const (g, "b", s, -1, 1);
  ok (cn_graph_add_node (g, CN_OP_MUL, NULL, 2, (int[]) { a, x }, "ax", &t, &err), &err);
  ok (cn_graph_add_node (g, CN_OP_ADD, NULL, 2, (int[]) { t, b }, "ax+b", &u, &err), &err);
  ok (cn_graph_add_node (g, CN_OP_TANH, NULL, 1, &u, "tanh", &y, &err), &err);
  ok (cn_graph_set_outputs (g, 1, &y, &err), &err);
  return g;
}

int
tu_op_case_custom (cn_op op, struct cn__op_case *c)
{
  if (op != CN_OP_CUSTOM)
    return 0;
  cn_error err;
  cn_error_clear (&err);
  cn_shape s;
  tu_small_shape (&s, 4);
  int kind = (int) tu_int (0, 6);
  cn_graph *g = NULL;
  int x, y, t, u, v;
  c->n_in = 1;
  c->in_shape[0] = s;
  switch (kind)
    {
    case 0:
      g = affine_tanh (&s);
      break;
    case 1:
      {
        ok (cn_graph_create (&g, &err), &err);
        pool_keep (g);
        ok (cn_graph_add_input (g, "x", CN_DTYPE_F64, &s, &x, &err), &err);
        ok (cn_graph_add_input (g, "y", CN_DTYPE_F64, &s, &y, &err), &err);
        cn_params_scale half = { .factor = 0.5 };
        ok (cn_graph_add_node (g, CN_OP_SIGMOID, NULL, 1, &x, "sig", &t, &err), &err);
        ok (cn_graph_add_node (g, CN_OP_MUL, NULL, 2, (int[]) { t, y }, "sig*y", &u, &err), &err);
        ok (cn_graph_add_node (g, CN_OP_SCALE, &half, 1, &y, "y/2", &v, &err), &err);
        ok (cn_graph_add_node (g, CN_OP_SUB, NULL, 2, (int[]) { u, v }, "out", &t, &err), &err);
        ok (cn_graph_set_outputs (g, 1, &t, &err), &err);
        c->n_in = 2;
        c->in_shape[1] = s;
        c->const_lo[0] = c->const_lo[1] = -2;
        c->const_hi[0] = c->const_hi[1] = 2;
        int k = (int) tu_int (0, 3);
        if (k < 2)
          c->in_const[k] = 1;
        break;
      }
    case 2:
      {
        ok (cn_graph_create (&g, &err), &err);
        pool_keep (g);
        ok (cn_graph_add_input (g, "x", CN_DTYPE_F64, &s, &x, &err), &err);
        cn_params_scale quarter = { .factor = 0.25 };
        ok (cn_graph_add_node (g, CN_OP_RELU, NULL, 1, &x, "dead", &u, &err), &err);
        ok (cn_graph_add_node (g, CN_OP_SCALE, &quarter, 1, &x, "x/4", &t, &err), &err);
        ok (cn_graph_add_node (g, CN_OP_EXP, NULL, 1, &t, "exp", &y, &err), &err);
        ok (cn_graph_set_outputs (g, 1, &y, &err), &err);
        break;
      }
    case 3:
      {
        cn_graph *inner = affine_tanh (&s);
        ok (cn_graph_create (&g, &err), &err);
        pool_keep (g);
        ok (cn_graph_add_input (g, "x", CN_DTYPE_F64, &s, &x, &err), &err);
        cn_params_custom cp;
        memset (&cp, 0, sizeof cp);
        cp.program = inner;
        snprintf (cp.name, sizeof cp.name, "inner");
        ok (cn_graph_add_node (g, CN_OP_CUSTOM, &cp, 1, &x, "inner", &t, &err), &err);
        ok (cn_graph_add_node (g, CN_OP_RELU, NULL, 1, &t, "relu", &u, &err), &err);
        ok (cn_graph_add_node (g, CN_OP_ADD, NULL, 2, (int[]) { u, x }, "out", &y, &err), &err);
        ok (cn_graph_set_outputs (g, 1, &y, &err), &err);
        break;
      }
    case 4:
      {
        ok (cn_graph_create (&g, &err), &err);
        pool_keep (g);
        ok (cn_graph_add_input (g, "x", CN_DTYPE_F64, &s, &x, &err), &err);
        int k = add_const (g, "c", &s, -1, 1);
        ok (cn_graph_add_node (g, CN_OP_MUL, NULL, 2, (int[]) { x, x }, "xx", &t, &err), &err);
        ok (cn_graph_add_node (g, CN_OP_ADD, NULL, 2, (int[]) { t, k }, "out", &y, &err), &err);
        ok (cn_graph_set_outputs (g, 1, &y, &err), &err);
        break;
      }
    case 6:
      {
        ok (cn_graph_create (&g, &err), &err);
        pool_keep (g);
        ok (cn_graph_add_input (g, "x", CN_DTYPE_F64, &s, &x, &err), &err);
        int zero = add_const (g, "zero", &s, 0, 0), c;
        cn_params_scale tenth = { .factor = 0.1 };
        ok (cn_graph_add_node (g, CN_OP_GT, NULL, 2, (int[]) { x, zero }, "x>0", &c, &err), &err);
        ok (cn_graph_add_node (g, CN_OP_TANH, NULL, 1, &x, "tanh", &t, &err), &err);
        ok (cn_graph_add_node (g, CN_OP_SCALE, &tenth, 1, &x, "x/10", &u, &err), &err);
        ok (cn_graph_add_node (g, CN_OP_SELECT, NULL, 3, (int[]) { c, t, u }, "out", &y, &err), &err);
        ok (cn_graph_set_outputs (g, 1, &y, &err), &err);
        break;
      }
    default:
      ok (cn_graph_create (&g, &err), &err);
      pool_keep (g);
      ok (cn_graph_add_input (g, "x", CN_DTYPE_F64, &s, &x, &err), &err);
      ok (cn_graph_set_outputs (g, 1, &x, &err), &err);
      break;
    }
  c->params.custom.program = g;
  snprintf (c->params.custom.name, sizeof c->params.custom.name, "prog%d", kind);
  return 1;
}
