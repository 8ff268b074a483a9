/* SPDX-License-Identifier: MIT */
/* src/certs/case_graph.c: the graph of one operator instance (cn__case_graph, certs_impl.h), the
 * graph the generic tests and the certificate evidence evaluate.  Only the constant ports draw
 * from the generator state, in port order; the varying ports read slices of the one input. */
#include <config.h>
#include <string.h>
#include "certs/certs_impl.h"

/* Adds the constant port I of C to G as *V: its entries drawn from R in binary64, then converted
 * exactly to the port's sort (Booleans 0/1, words integers in [const_lo, const_hi]). */
static cn_status
constant_port (cn_graph *g, const struct cn__op_case *c, int i, cn__rng *r, int *v, cn_error *err)
{
  int64_t n = cn_shape_numel (&c->in_shape[i]);
  cn_dtype sort = c->in_dtype[i];
  cn_tensor t, ts;
  cn_status st = cn_tensor_init (&t, CN_DTYPE_F64, &c->in_shape[i], err);
  if (st != CN_OK)
    return st;
  for (int64_t j = 0; j < n; j++)
    ((double *) t.data)[j] = sort == CN_DTYPE_BOOL ? (double) cn__rng_int (r, 0, 1)
                             : c->const_integer[i] || !cn_dtype_is_float (sort)
                               ? (double) cn__rng_int (r, (int64_t) c->const_lo[i], (int64_t) c->const_hi[i])
                               : cn__rng_uniform (r, c->const_lo[i], c->const_hi[i]);
  if (cn_dtype_is_float (sort))
    st = cn_graph_add_constant (g, "c", &t, v, err);
  else if ((st = cn_tensor_convert (&ts, sort, &t, err)) == CN_OK)
    {
      st = cn_graph_add_constant (g, "c", &ts, v, err);
      cn_tensor_clear (&ts);
    }
  cn_tensor_clear (&t);
  return st;
}

/* Adds the varying port I of C to G as *V: the entries OFF .. OFF + n - 1 of the input X reshaped
 * to the port's shape, then gt(that, 0) for a Boolean port or cast(that) for an integer one (the
 * points are drawn integer-valued there: x_integer). */
static cn_status
varying_port (cn_graph *g, const struct cn__op_case *c, int i, int x, int64_t off, int *v, cn_error *err)
{
  int64_t n = cn_shape_numel (&c->in_shape[i]);
  cn_dtype sort = c->in_dtype[i];
  cn_params_slice sl;
  memset (&sl, 0, sizeof sl);
  sl.rank = 1;
  sl.start[0] = off;
  sl.stop[0] = off + n;
  sl.step[0] = 1;
  int part, port;
  cn_status st = cn_graph_add_node (g, CN_OP_SLICE, &sl, 1, &x, "part", &part, err);
  if (st != CN_OK)
    return st;
  cn_params_reshape rs;
  memset (&rs, 0, sizeof rs);
  rs.shape = c->in_shape[i];
  if ((st = cn_graph_add_node (g, CN_OP_RESHAPE, &rs, 1, &part, "port", &port, err)) != CN_OK)
    return st;
  if (sort == CN_DTYPE_BOOL)
    {
      /* a Boolean port reads gt(part, 0) */
      cn_tensor z;
      int zero;
      if ((st = cn_tensor_init (&z, CN_DTYPE_F64, &c->in_shape[i], err)) != CN_OK)
        return st;
      st = cn_graph_add_constant (g, "zero", &z, &zero, err);
      cn_tensor_clear (&z);
      if (st != CN_OK)
        return st;
      int gin[2] = { port, zero };
      return cn_graph_add_node (g, CN_OP_GT, NULL, 2, gin, "bool port", v, err);
    }
  if (!cn_dtype_is_float (sort))
    {
      /* an integer port reads cast(part) */
      cn_params_cast pc = { .to = sort };
      return cn_graph_add_node (g, CN_OP_CAST, &pc, 1, &port, "word port", v, err);
    }
  *v = port;
  return CN_OK;
}

cn_status
cn__case_graph (const struct cn__op_case *c, cn__rng *r, cn_graph **out, cn_error *err)
{
  if (c->n_in < 0 || c->n_in > CN__CASE_MAX_IN)
    return cn_error_set (err, CN_EINVAL, "case graph: %d inputs (at most %d)", c->n_in, CN__CASE_MAX_IN);
  cn_graph *g = NULL;
  cn_status st = cn_graph_create (&g, err);
  if (st != CN_OK)
    return st;
  int64_t total = 0;
  for (int i = 0; i < c->n_in; i++)
    if (!c->in_const[i])
      total += cn_shape_numel (&c->in_shape[i]);
  cn_shape xs;
  int64_t dim0 = total > 0 ? total : 1;
  int x, ins[CN__CASE_MAX_IN], y;
  if ((st = cn_shape_make (&xs, 1, &dim0, err)) != CN_OK
      || (st = cn_graph_add_input (g, "x", CN_DTYPE_F64, &xs, &x, err)) != CN_OK)
    goto fail;
  int64_t off = 0;
  for (int i = 0; i < c->n_in; i++)
    {
      if (c->in_const[i])
        st = constant_port (g, c, i, r, &ins[i], err);
      else
        {
          st = varying_port (g, c, i, x, off, &ins[i], err);
          off += cn_shape_numel (&c->in_shape[i]);
        }
      if (st != CN_OK)
        goto fail;
    }
  /* now ins holds the n_in ports, and off = total: the varying ports tile x */
  if ((st = cn_graph_add_node (g, c->op, &c->params, c->n_in, ins, "op", &y, err)) != CN_OK)
    goto fail;
  y = cn_graph_node_output (g, cn_graph_value_producer (g, y), c->out_index);
  if ((st = cn_graph_set_outputs (g, 1, &y, err)) != CN_OK)
    goto fail;
  *out = g;
  return CN_OK;
fail:
  cn_graph_free (g);
  return st;
}
