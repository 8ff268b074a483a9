/* SPDX-License-Identifier: MIT */
/* src/certs/case_custom.c: random instances of custom (cn__case_custom, certs_impl.h), whose
 * program only a graph can hold, so they are drawn here, above the IR, and not beside the table.
 *
 * Each instance carries a small random program, one of:
 *   0. tanh(a x + b), a and b constants of x's shape;
 *   1. sigmoid(x) y - 0.5 y, two inputs (one of them sometimes a constant of the instance);
 *   2. exp(x / 4), beside a node off the output's path (relu(x), never needed);
 *   3. relu(custom(tanh(a x + b))) + x: a custom node inside the program (nesting);
 *   4. x x + c, the input read twice;
 *   5. the identity (the program's output is its input);
 *   6. select(x > 0, tanh(x), x / 10): a comparison (frozen ports, a Boolean output, no pullback
 *      or jvp) and a Boolean port inside the program, which the derivative arms must pass by.
 * Custom has no CROWN arm: crown_ok stays 0. */
#include <config.h>
#include <stdio.h>
#include <string.h>
#include "certs/certs_impl.h"
#include "ops/cases_impl.h"

/* The programs of one draw, built while every step succeeds: after a failure each step does
 * nothing and ST holds the first failure. */
struct builder
{
  cn__rng *r;
  cn_graph **progs;
  int n_progs;
  cn_status st;
  cn_error *err;
};

static cn_graph *
new_program (struct builder *b)
{
  cn_graph *g = NULL;
  if (b->st == CN_OK && (b->st = cn_graph_create (&g, b->err)) == CN_OK)
    b->progs[b->n_progs++] = g;
  return g;
}

static int
input (struct builder *b, cn_graph *g, const char *name, const cn_shape *s)
{
  int v = -1;
  if (b->st == CN_OK)
    b->st = cn_graph_add_input (g, name, CN_DTYPE_F64, s, &v, b->err);
  return v;
}

/* A constant of shape S with entries uniform in [LO, HI]. */
static int
constant (struct builder *b, cn_graph *g, const char *name, const cn_shape *s, double lo, double hi)
{
  int v = -1;
  cn_tensor t;
  if (b->st != CN_OK || (b->st = cn_tensor_init (&t, CN_DTYPE_F64, s, b->err)) != CN_OK)
    return v;
  for (int64_t j = 0; j < cn_shape_numel (s); j++)
    ((double *) t.data)[j] = cn__rng_uniform (b->r, lo, hi);
  b->st = cn_graph_add_constant (g, name, &t, &v, b->err);
  cn_tensor_clear (&t);
  return v;
}

static int
node (struct builder *b, cn_graph *g, cn_op op, const void *params, int n_in, const int *in, const char *name)
{
  int v = -1;
  if (b->st == CN_OK)
    b->st = cn_graph_add_node (g, op, params, n_in, in, name, &v, b->err);
  return v;
}

static void
output (struct builder *b, cn_graph *g, int y)
{
  if (b->st == CN_OK)
    b->st = cn_graph_set_outputs (g, 1, &y, b->err);
}

/* The program tanh(a x + b) on inputs of shape S. */
static cn_graph *
affine_tanh (struct builder *b, const cn_shape *s)
{
  cn_graph *g = new_program (b);
  int x = input (b, g, "x", s);
  int a = constant (b, g, "a", s, -2, 2), c = constant (b, g, "b", s, -1, 1);
  int t = node (b, g, CN_OP_MUL, NULL, 2, (int[]) { a, x }, "ax");
  int u = node (b, g, CN_OP_ADD, NULL, 2, (int[]) { t, c }, "ax+b");
  output (b, g, node (b, g, CN_OP_TANH, NULL, 1, &u, "tanh"));
  return g;
}

cn_status
cn__case_custom (cn__rng *r, struct cn__op_case *c, cn_graph **programs, int *n_programs, cn_error *err)
{
  struct builder b = { .r = r, .progs = programs, .n_progs = 0, .st = CN_OK, .err = err };
  memset (c, 0, sizeof *c);
  c->op = CN_OP_CUSTOM;
  cn_shape s;
  cn__case_small_shape (r, &s, 4);
  int kind = (int) cn__rng_int (r, 0, 6);
  cn_graph *g = NULL;
  int x, y, t, u, v;
  c->n_in = 1;
  c->in_shape[0] = s;
  switch (kind)
    {
    case 0:
      g = affine_tanh (&b, &s);
      break;
    case 1:
      {
        g = new_program (&b);
        x = input (&b, g, "x", &s);
        y = input (&b, g, "y", &s);
        cn_params_scale half = { .factor = 0.5 };
        t = node (&b, g, CN_OP_SIGMOID, NULL, 1, &x, "sig");
        u = node (&b, g, CN_OP_MUL, NULL, 2, (int[]) { t, y }, "sig*y");
        v = node (&b, g, CN_OP_SCALE, &half, 1, &y, "y/2");
        output (&b, g, node (&b, g, CN_OP_SUB, NULL, 2, (int[]) { u, v }, "out"));
        c->n_in = 2;
        c->in_shape[1] = s;
        c->const_lo[0] = c->const_lo[1] = -2;
        c->const_hi[0] = c->const_hi[1] = 2;
        int k = (int) cn__rng_int (r, 0, 3);
        if (k < 2)
          c->in_const[k] = 1;
        break;
      }
    case 2:
      {
        g = new_program (&b);
        x = input (&b, g, "x", &s);
        cn_params_scale quarter = { .factor = 0.25 };
        node (&b, g, CN_OP_RELU, NULL, 1, &x, "dead");
        t = node (&b, g, CN_OP_SCALE, &quarter, 1, &x, "x/4");
        output (&b, g, node (&b, g, CN_OP_EXP, NULL, 1, &t, "exp"));
        break;
      }
    case 3:
      {
        cn_graph *inner = affine_tanh (&b, &s);
        g = new_program (&b);
        x = input (&b, g, "x", &s);
        cn_params_custom cp;
        memset (&cp, 0, sizeof cp);
        cp.program = inner;
        snprintf (cp.name, sizeof cp.name, "inner");
        t = node (&b, g, CN_OP_CUSTOM, &cp, 1, &x, "inner");
        u = node (&b, g, CN_OP_RELU, NULL, 1, &t, "relu");
        output (&b, g, node (&b, g, CN_OP_ADD, NULL, 2, (int[]) { u, x }, "out"));
        break;
      }
    case 4:
      {
        g = new_program (&b);
        x = input (&b, g, "x", &s);
        int k = constant (&b, g, "c", &s, -1, 1);
        t = node (&b, g, CN_OP_MUL, NULL, 2, (int[]) { x, x }, "xx");
        output (&b, g, node (&b, g, CN_OP_ADD, NULL, 2, (int[]) { t, k }, "out"));
        break;
      }
    case 6:
      {
        g = new_program (&b);
        x = input (&b, g, "x", &s);
        int zero = constant (&b, g, "zero", &s, 0, 0), cond;
        cn_params_scale tenth = { .factor = 0.1 };
        cond = node (&b, g, CN_OP_GT, NULL, 2, (int[]) { x, zero }, "x>0");
        t = node (&b, g, CN_OP_TANH, NULL, 1, &x, "tanh");
        u = node (&b, g, CN_OP_SCALE, &tenth, 1, &x, "x/10");
        output (&b, g, node (&b, g, CN_OP_SELECT, NULL, 3, (int[]) { cond, t, u }, "out"));
        break;
      }
    default:
      g = new_program (&b);
      x = input (&b, g, "x", &s);
      output (&b, g, x);
      break;
    }
  *n_programs = b.n_progs;
  if (b.st != CN_OK)
    return b.st;
  c->params.custom.program = g;
  snprintf (c->params.custom.name, sizeof c->params.custom.name, "prog%d", kind);
  int n_out = cn_op_n_outputs (CN_OP_CUSTOM);
  if (n_out > 1)
    c->out_index = (int) cn__rng_int (r, 0, n_out - 1);
  return CN_OK;
}

cn_status
cn__cert_case_draw (cn_op op, cn__rng *r, struct cn__cert_case *cc, cn_error *err)
{
  cc->n_programs = 0;
  if (op == CN_OP_CUSTOM)
    return cn__case_custom (r, &cc->c, cc->programs, &cc->n_programs, err);
  if (!cn__op_case_draw (op, r, 0, &cc->c))
    return cn_error_set (err, CN_EUNSUPPORTED, "%s: no instance generator", cn_op_name (op));
  return CN_OK;
}

void
cn__cert_case_clear (struct cn__cert_case *cc)
{
  for (int i = 0; i < cc->n_programs; i++)
    cn_graph_free (cc->programs[i]);
  cc->n_programs = 0;
}
