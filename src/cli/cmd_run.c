/* SPDX-License-Identifier: MIT */
/* src/cli/cmd_run.c: `certnn run`, forward evaluation of a network on one input. */
#include <config.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>
#include "cli/cli.h"

static void
help (FILE *f)
{
  fprintf (f, "Usage: certnn run NET.onnx --input FILE [--dtype f64|f32] [--json]\n\n"
              "Evaluates the network on one input: FILE holds whitespace-separated numbers, the input tensor in\n"
              "C order.  Each operator rounds to nearest in the chosen format (default f64) in a fixed order.\n"
              "Prints the values of every network output, one per line (--json: {\"outputs\": [[...], ...],\n"
              "\"dtype\": \"f64\"}).  This is a floating-point evaluation, not a bound.\n");
}

int
cli_run (int argc, char **argv)
{
  const char *net = NULL, *input = NULL;
  int json = 0;
  cn_dtype dtype = CN_DTYPE_F64;
  for (int i = 1; i < argc; i++)
    {
      if (strcmp (argv[i], "--help") == 0 || strcmp (argv[i], "-h") == 0)
        {
          help (stdout);
          return CLI_OK;
        }
      else if (strcmp (argv[i], "--json") == 0)
        json = 1;
      else if (strcmp (argv[i], "--input") == 0 && i + 1 < argc)
        input = argv[++i];
      else if (strcmp (argv[i], "--dtype") == 0 && i + 1 < argc)
        {
          const char *d = argv[++i];
          if (strcmp (d, "f64") == 0)
            dtype = CN_DTYPE_F64;
          else if (strcmp (d, "f32") == 0)
            dtype = CN_DTYPE_F32;
          else
            return cli_usage_error ("run", "--dtype must be f64 or f32, not '%s'", d);
        }
      else if (argv[i][0] == '-' && argv[i][1] != '\0')
        return cli_usage_error ("run", "unknown or incomplete option '%s' (try certnn run --help)", argv[i]);
      else if (net == NULL)
        net = argv[i];
      else
        return cli_usage_error ("run", "unexpected argument '%s'", argv[i]);
    }
  if (net == NULL || input == NULL)
    return cli_usage_error ("run", "need NET.onnx and --input FILE (try certnn run --help)");
  cn_error err;
  cn_error_clear (&err);
  cn_graph *g = NULL;
  double *x = NULL;
  int64_t n = 0;
  int rc = CLI_OK;
  cn_tensor in, *out = NULL;
  memset (&in, 0, sizeof in);
  if (cli_load (net, NULL, &g, NULL, &err) != CN_OK || cli_read_numbers (input, &x, &n, &err) != CN_OK)
    {
      rc = cli_fail (&err);
      goto done;
    }
  const cn_shape *shape = cn_graph_value_shape (g, cn_graph_input (g, 0));
  if (n != cn_shape_numel (shape))
    {
      char b[128];
      rc = cli_usage_error ("run", "%s holds %lld numbers; the network input %s needs %lld", input, (long long) n,
                            cn_shape_format (shape, b, sizeof b), (long long) cn_shape_numel (shape));
      goto done;
    }
  if (cn_tensor_init (&in, CN_DTYPE_F64, shape, &err) != CN_OK)
    {
      rc = cli_fail (&err);
      goto done;
    }
  memcpy (in.data, x, (size_t) n * sizeof *x);
  int nout = cn_graph_n_outputs (g);
  out = calloc ((size_t) nout, sizeof *out);
  if (out == NULL || cn_graph_eval (g, dtype, &in, out, &err) != CN_OK)
    {
      if (out == NULL)
        cn_error_set (&err, CN_ENOMEM, "run: out of memory");
      free (out);
      out = NULL;
      rc = cli_fail (&err);
      goto done;
    }
  if (json)
    {
      json_t *outs = json_array ();
      for (int k = 0; k < nout; k++)
        {
          json_t *a = json_array ();
          for (int64_t j = 0; j < cn_tensor_numel (&out[k]); j++)
            json_array_append_new (a, json_real (cn_tensor_get_f64 (&out[k], j)));
          json_array_append_new (outs, a);
        }
      json_t *root = json_pack ("{s:o, s:s}", "outputs", outs, "dtype", cn_dtype_name (dtype));
      json_dumpf (root, stdout, JSON_REAL_PRECISION (17));
      putchar ('\n');
      json_decref (root);
    }
  else
    for (int k = 0; k < nout; k++)
      for (int64_t j = 0; j < cn_tensor_numel (&out[k]); j++)
        {
          cli_print_double (stdout, cn_tensor_get_f64 (&out[k], j));
          putchar ('\n');
        }
  for (int k = 0; k < nout; k++)
    cn_tensor_clear (&out[k]);
done:
  free (out);
  cn_tensor_clear (&in);
  free (x);
  cn_graph_free (g);
  return rc;
}
