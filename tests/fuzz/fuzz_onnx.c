/* SPDX-License-Identifier: MIT */
/* tests/fuzz/fuzz_onnx.c: the ONNX importer (cn_graph_load_onnx_buffer, certnn/graph.h).
 *
 * Any bytes: a status with a message.  An accepted graph is one the library can use: when it is
 * small (every value together at most FUZZ_NUMEL numbers, so that a file of a few bytes claiming
 * a huge tensor is the importer's to refuse, not the harness's to wait for), it is evaluated at
 * zero in binary64 and binary32, exported as an artifact (the wire codec over the whole program:
 * a status, never a false "out of memory"), and, with one floating input, bounded by IBP over
 * [-1, 1]^n, and by CROWN when tinier still; each of these returns a status with a message, and a
 * box it returns is ordered (lo <= hi, no NaN).  Then it is freed. */
#include "fuzz.h"

#define FUZZ_NUMEL (1 << 18)
#define FUZZ_NUMEL_CROWN (1 << 10)

/* Every value's numbers together, saturating at INT64_MAX / 2. */
static int64_t
total_numel (const cn_graph *g)
{
  int64_t total = 0;
  for (int v = 0; v < cn_graph_n_values (g); v++)
    {
      int64_t n = cn_shape_numel (cn_graph_value_shape (g, v));
      if (n < 0 || n > INT64_MAX / 4 - total)
        return INT64_MAX / 2;
      total += n;
    }
  return total;
}

static void
evaluate (const cn_graph *g, cn_dtype dtype)
{
  int ni = cn_graph_n_inputs (g), no = cn_graph_n_outputs (g);
  cn_tensor *in = calloc ((size_t) ni + 1, sizeof *in), *out = calloc ((size_t) no + 1, sizeof *out);
  cn_error err;
  cn_error_clear (&err);
  int made = 0;
  if (in == NULL || out == NULL)
    goto done;
  for (; made < ni; made++)
    {
      int v = cn_graph_input (g, made);
      if (cn_tensor_init (&in[made], cn_graph_value_dtype (g, v), cn_graph_value_shape (g, v), &err) != CN_OK)
        goto done;      /* zero-filled */
    }
  cn_status st = cn_graph_eval (g, dtype, in, out, &err);
  fuzz_check_status ("onnx", st, &err);
  if (st == CN_OK)
    for (int i = 0; i < no; i++)
      cn_tensor_clear (&out[i]);
done:
  for (int i = 0; i < made; i++)
    cn_tensor_clear (&in[i]);
  free (in);
  free (out);
}

static void
bound (const cn_graph *g, cn_method method)
{
  int v = cn_graph_input (g, 0);
  int64_t n = cn_shape_numel (cn_graph_value_shape (g, v));
  cn_error err;
  cn_error_clear (&err);
  cn_box box, out;
  if (cn_box_init (&box, n, &err) != CN_OK)
    return;
  for (int64_t i = 0; i < n; i++)
    box.lo[i] = -1, box.hi[i] = 1;
  cn_bounds_opts o;
  cn_bounds_opts_init (&o);
  o.method = method;
  o.threads = 1;
  cn_status st = cn_bounds_output (g, &box, &o, &out, &err);
  fuzz_check_status ("onnx", st, &err);
  if (st == CN_OK)
    {
      for (int64_t i = 0; i < out.n; i++)
        if (!(out.lo[i] <= out.hi[i]))
          fuzz_fail ("onnx", "an output box with lo > hi or NaN", &err);
      cn_box_clear (&out);
    }
  cn_box_clear (&box);
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  fuzz_setup ();
  cn_graph *g = NULL;
  cn_error err;
  cn_error_clear (&err);
  cn_status st = cn_graph_load_onnx_buffer (data, size, &g, &err);
  fuzz_check_status ("onnx", st, &err);
  if (st != CN_OK)
    {
      if (g != NULL)
        fuzz_fail ("onnx", "a graph returned with a failure", &err);
      return 0;
    }
  if (g == NULL)
    fuzz_fail ("onnx", "CN_OK without a graph", &err);
  int64_t total = total_numel (g);
  if (total <= FUZZ_NUMEL)
    {
      /* the wire codec writes the whole program (what certnn export does); a graph this small
       * cannot run out of memory, so CN_ENOMEM would hide another failure */
      char *text = NULL;
      cn_error_clear (&err);
      st = cn_artifact_export (g, CN_DTYPE_F64, NULL, NULL, NULL, &text, &err);
      fuzz_check_status ("onnx", st, &err);
      if (st == CN_ENOMEM)
        fuzz_fail ("onnx", "out of memory claimed exporting a small graph", &err);
      free (text);
      evaluate (g, CN_DTYPE_F64);
      evaluate (g, CN_DTYPE_F32);
      if (cn_graph_n_inputs (g) == 1 && cn_graph_n_outputs (g) >= 1
          && cn_dtype_is_float (cn_graph_value_dtype (g, cn_graph_input (g, 0))))
        {
          bound (g, CN_METHOD_IBP);
          if (total <= FUZZ_NUMEL_CROWN)
            bound (g, CN_METHOD_CROWN);
        }
    }
  cn_graph_free (g);
  return 0;
}
