/* SPDX-License-Identifier: MIT */
/* tools/compare_eval.c: the evaluation driver of tools/compare_builds.py (not installed).
 *
 *     compare_eval MODEL.onnx f64|f32
 *
 * Loads the model through the public API, feeds every graph input a fixed point of its sort
 * (reals in [-0.9, 0.9] for the model's scalar, small integers for words, 0/1 for Booleans), and
 * prints every output entry with 17 significant digits, or the error message.  Built against each
 * of the two libraries being compared, so it uses only what both export. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <certnn/certnn.h>

static int
fail (const cn_error *err)
{
  printf ("error %d: %s\n", (int) err->code, err->msg);
  return 2;
}

int
main (int argc, char **argv)
{
  if (argc != 3)
    {
      fprintf (stderr, "usage: compare_eval MODEL.onnx f64|f32\n");
      return 64;
    }
  cn_dtype dt = strcmp (argv[2], "f32") == 0 ? CN_DTYPE_F32 : CN_DTYPE_F64;
  cn_error err;
  cn_error_clear (&err);
  cn_graph *g = NULL;
  if (cn_graph_load_onnx (argv[1], &g, &err) != CN_OK)
    return fail (&err);
  int ni = cn_graph_n_inputs (g), no = cn_graph_n_outputs (g);
  cn_tensor *in = calloc ((size_t) ni + 1, sizeof *in), *out = calloc ((size_t) no + 1, sizeof *out);
  if (in == NULL || out == NULL)
    return 1;
  for (int i = 0; i < ni; i++)
    {
      int v = cn_graph_input (g, i);
      cn_dtype t = cn_graph_value_dtype (g, v);
      cn_tensor x;
      if (cn_tensor_init (&x, CN_DTYPE_F64, cn_graph_value_shape (g, v), &err) != CN_OK)
        return fail (&err);
      double *d = x.data;
      for (int64_t j = 0; j < cn_tensor_numel (&x); j++)
        {
          if (cn_dtype_is_float (t))
            d[j] = (double) ((j * 7919 + i * 104729) % 2001 - 1000) * 0.0009;
          else if (t == CN_DTYPE_BOOL)
            d[j] = (double) ((j + i) % 2);
          else
            d[j] = (double) ((j * 3 + i) % 5) - (t >= CN_DTYPE_U8 ? 0 : 2);
        }
      cn_status st = cn_tensor_convert (&in[i], cn_dtype_is_float (t) ? CN_DTYPE_F64 : t, &x, &err);
      cn_tensor_clear (&x);
      if (st != CN_OK)
        return fail (&err);
    }
  if (cn_graph_eval (g, dt, in, out, &err) != CN_OK)
    return fail (&err);
  for (int k = 0; k < no; k++)
    {
      printf ("output %d %s:", k, cn_dtype_name (out[k].dtype));
      for (int64_t j = 0; j < cn_tensor_numel (&out[k]); j++)
        printf (" %.17g", cn_tensor_get_f64 (&out[k], j));
      printf ("\n");
      cn_tensor_clear (&out[k]);
    }
  for (int i = 0; i < ni; i++)
    cn_tensor_clear (&in[i]);
  free (in);
  free (out);
  cn_graph_free (g);
  return 0;
}
