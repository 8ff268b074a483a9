/* SPDX-License-Identifier: MIT */
/* src/bind/flat.c: the flat interface of certnn/flat.h, for bindings.  It sits above the engines
 * and the readers (it loads a property and runs the bounds or the verifier), below nothing but the
 * bindings themselves: a thin layer of option parsing and array copies, no arithmetic. */
#include <config.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "certnn/bounds.h"
#include "certnn/box.h"
#include "certnn/flat.h"
#include "certnn/spec.h"
#include "certnn/verify.h"
#include "core/clock.h"

int64_t
cn_flat_input_size (const cn_graph *g)
{
  if (g == NULL || cn_graph_n_inputs (g) < 1)
    return -1;
  return cn_shape_numel (cn_graph_value_shape (g, cn_graph_input (g, 0)));
}

int64_t
cn_flat_output_size (const cn_graph *g)
{
  if (g == NULL || cn_graph_n_outputs (g) < 1)
    return -1;
  return cn_shape_numel (cn_graph_value_shape (g, cn_graph_output (g, 0)));
}

/* The options both calls take: the bounds' into *B, verify's into *V (NULL for bounds). */
static cn_status
parse_options (const char *text, cn_bounds_opts *b, cn_verify_opts *v, cn_error *err)
{
  if (text == NULL)
    return CN_OK;
  size_t len = strlen (text);
  char *buf = malloc (len + 1);
  if (buf == NULL)
    return cn_error_set (err, CN_ENOMEM, "options: out of memory");
  memcpy (buf, text, len + 1);
  cn_status st = CN_OK;
  unsigned seen = 0;
  char *save = NULL;
  for (char *w = strtok_r (buf, " \t\n", &save); w != NULL && st == CN_OK; w = strtok_r (NULL, " \t\n", &save))
    {
      char *eq = strchr (w, '=');
      if (eq == NULL || eq == w || eq[1] == '\0')
        {
          st = cn_error_set (err, CN_EINVAL, "options: '%s' is not KEY=VALUE", w);
          break;
        }
      *eq = '\0';
      const char *key = w, *val = eq + 1;
      static const char *const keys[] = { "method", "semantics", "threads", "iterations", "lr",
                                          "fix_intermediate", "max_memory", "timeout", "seed" };
      int k = 0;
      while (k < 9 && strcmp (key, keys[k]) != 0)
        k++;
      if (k == 9 || (k >= 7 && v == NULL))
        {
          st = cn_error_set (err, CN_EINVAL, "options: unknown key '%s' (%s)", key,
                             v == NULL ? "bounds take method, semantics, threads, iterations, lr, fix_intermediate, "
                                         "max_memory"
                                       : "verify takes method, semantics, threads, iterations, lr, "
                                         "fix_intermediate, max_memory, timeout, seed");
          break;
        }
      if (seen & (1u << k))
        {
          st = cn_error_set (err, CN_EINVAL, "options: '%s' given twice", key);
          break;
        }
      seen |= 1u << k;
      char *end;
      errno = 0;
      double x = k >= 2 ? strtod (val, &end) : 0;
      int num_ok = k < 2 || (*end == '\0' && errno == 0 && isfinite (x));
      int int_ok = num_ok && x == floor (x);
      switch (k)
        {
        case 0: st = cn_method_lookup (val, &b->method, err); break;
        case 1: st = cn_semantics_lookup (val, &b->semantics, err); break;
        case 2:
          if (!int_ok || x < 1 || x > 1024)
            st = cn_error_set (err, CN_EINVAL, "options: threads must be an integer in 1..1024, not '%s'", val);
          else
            b->threads = (int) x;
          break;
        case 3:
          if (!int_ok || x < 1 || x > 100000)
            st = cn_error_set (err, CN_EINVAL, "options: iterations must be an integer in 1..100000, not '%s'", val);
          else
            b->iterations = (int) x;
          break;
        case 4:
          if (!num_ok || !(x > 0))
            st = cn_error_set (err, CN_EINVAL, "options: lr must be a finite number > 0, not '%s'", val);
          else
            b->lr = x;
          break;
        case 5:
          if (!int_ok || (x != 0 && x != 1))
            st = cn_error_set (err, CN_EINVAL, "options: fix_intermediate must be 0 or 1, not '%s'", val);
          else
            b->alpha_intermediate = x == 0;
          break;
        case 6:
          if (!num_ok || !(x > 0))
            st = cn_error_set (err, CN_EINVAL, "options: max_memory must be a finite number of MiB > 0, not '%s'",
                               val);
          else
            b->max_memory_mb = x;
          break;
        case 7:
          if (!num_ok || !(x > 0))
            st = cn_error_set (err, CN_EINVAL, "options: timeout must be a finite number of seconds > 0, not '%s'",
                               val);
          else
            v->timeout = x;
          break;
        default:
          if (!int_ok || x < 0 || x > 4294967295.0)
            st = cn_error_set (err, CN_EINVAL, "options: seed must be an integer in 0..2^32-1, not '%s'", val);
          else
            v->seed = (uint64_t) x;
          break;
        }
    }
  free (buf);
  return st;
}

cn_status
cn_flat_vnnlib_box (const char *path, int64_t n, double *lo, double *hi, cn_error *err)
{
  cn_spec spec;
  cn_status st = cn_spec_load_vnnlib (path, &spec, err);
  if (st != CN_OK)
    return st;
  if (spec.n_cases < 1 || spec.cases[0].box.n != n)
    st = cn_error_set (err, CN_ESHAPE, "%s: the property has %lld inputs, not %lld", path,
                       (long long) (spec.n_cases < 1 ? 0 : spec.cases[0].box.n), (long long) n);
  else
    {
      memcpy (lo, spec.cases[0].box.lo, (size_t) n * sizeof *lo);
      memcpy (hi, spec.cases[0].box.hi, (size_t) n * sizeof *hi);
    }
  cn_spec_clear (&spec);
  return st;
}

cn_status
cn_flat_bounds (const cn_graph *g, int64_t n, const double *lo, const double *hi, const char *options, int64_t m,
                double *out_lo, double *out_hi, double *seconds, cn_error *err)
{
  /* the box alone, no linear functions */
  return cn_flat_linear (g, n, lo, hi, NULL, -1, options, m, out_lo, out_hi, NULL, NULL, NULL, NULL, seconds, err);
}

cn_status
cn_flat_linear (const cn_graph *g, int64_t n, const double *lo, const double *hi, const double *center, double l2_eps,
                const char *options, int64_t m, double *out_lo, double *out_hi, double *lo_coef, double *lo_off,
                double *up_coef, double *up_off, double *seconds, cn_error *err)
{
  if (g == NULL || lo == NULL || hi == NULL || out_lo == NULL || out_hi == NULL)
    return cn_error_set (err, CN_EINVAL, "bounds: a NULL argument");
  if (n != cn_flat_input_size (g) || m != cn_flat_output_size (g))
    return cn_error_set (err, CN_ESHAPE, "bounds: the network has %lld inputs and %lld outputs, the arrays %lld and %lld",
                         (long long) cn_flat_input_size (g), (long long) cn_flat_output_size (g), (long long) n,
                         (long long) m);
  cn_bounds_opts o;
  cn_bounds_opts_init (&o);
  cn_status st = parse_options (options, &o, NULL, err);
  if (st != CN_OK)
    return st;
  if (center != NULL && o.method == CN_METHOD_IBP)
    return cn_error_set (err, CN_EINVAL, "bounds: an L2 ball needs a CROWN method (IBP bounds the enclosing box)");
  cn_box box, out;
  memset (&out, 0, sizeof out);
  if ((st = cn_box_init (&box, n, err)) != CN_OK)
    return st;
  memcpy (box.lo, lo, (size_t) n * sizeof *lo);
  memcpy (box.hi, hi, (size_t) n * sizeof *hi);
  double t0 = cn__now ();
  cn_analysis *a = NULL;
  if ((st = cn_analysis_create (g, &box, &o, &a, err)) == CN_OK
      && (center == NULL || (st = cn_analysis_set_l2 (a, center, l2_eps, err)) == CN_OK)
      && (st = cn_analysis_output_box (a, &out, err)) == CN_OK
      && (lo_coef != NULL || up_coef != NULL))
    st = cn_analysis_linear (a, cn_graph_output (g, 0), NULL, m, lo_coef, lo_off, up_coef, up_off, err);
  if (st == CN_OK)
    {
      memcpy (out_lo, out.lo, (size_t) m * sizeof *out_lo);
      memcpy (out_hi, out.hi, (size_t) m * sizeof *out_hi);
    }
  if (seconds != NULL)
    *seconds = cn__now () - t0;
  cn_box_clear (&out);
  cn_analysis_free (a);
  cn_box_clear (&box);
  return st;
}

cn_status
cn_flat_verify (const cn_graph *g, const char *path, const char *options, int *verdict, int64_t n_x, double *x,
                int64_t n_y, double *y, int64_t *domains, cn_error *err)
{
  if (g == NULL || path == NULL || verdict == NULL)
    return cn_error_set (err, CN_EINVAL, "verify: a NULL argument");
  cn_verify_opts o;
  cn_verify_opts_init (&o);
  cn_status st = parse_options (options, &o.bounds, &o, err);
  if (st != CN_OK)
    return st;
  cn_spec spec;
  if ((st = cn_spec_load_vnnlib (path, &spec, err)) != CN_OK)
    return st;
  if ((x != NULL && n_x != spec.n_x) || (y != NULL && n_y != spec.n_y))
    {
      st = cn_error_set (err, CN_ESHAPE, "verify: the property has %lld inputs and %lld outputs, the arrays %lld and "
                         "%lld", (long long) spec.n_x, (long long) spec.n_y, (long long) n_x, (long long) n_y);
      cn_spec_clear (&spec);
      return st;
    }
  cn_verify_result r;
  if ((st = cn_verify (g, &spec, &o, &r, err)) == CN_OK)
    {
      *verdict = (int) r.verdict;
      if (domains != NULL)
        *domains = r.domains;
      if (r.verdict == CN_VERDICT_SAT && x != NULL)
        memcpy (x, r.x, (size_t) n_x * sizeof *x);
      if (r.verdict == CN_VERDICT_SAT && y != NULL)
        memcpy (y, r.y, (size_t) n_y * sizeof *y);
      cn_verify_result_clear (&r);
    }
  cn_spec_clear (&spec);
  return st;
}
