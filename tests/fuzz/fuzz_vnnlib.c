/* SPDX-License-Identifier: MIT */
/* tests/fuzz/fuzz_vnnlib.c: the VNN-LIB reader (cn_spec_parse_vnnlib, certnn/spec.h).
 *
 * Any bytes: a status with a message; a syntax or subset error names the file, line and column
 * ("fuzz.vnnlib:L:C: ...").  An accepted property is well formed: every case's box has n_x
 * entries with lo <= hi (no NaN), every clause's rows hold finite coefficients and
 * rhs_down <= rhs_up; then it is freed. */
#include <math.h>
#include "fuzz.h"

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  fuzz_setup ();
  cn_spec spec;
  cn_error err;
  cn_error_clear (&err);
  cn_status st = cn_spec_parse_vnnlib ((const char *) data, size, "fuzz.vnnlib", &spec, &err);
  fuzz_check_status ("vnnlib", st, &err);
  if ((st == CN_EPARSE || st == CN_EUNSUPPORTED) && strncmp (err.msg, "fuzz.vnnlib:", 12) != 0)
    fuzz_fail ("vnnlib", "a syntax error that does not name the file and line", &err);
  if (st == CN_OK)
    {
      if (spec.n_x < 0 || spec.n_y < 0 || spec.n_cases < 0)
        fuzz_fail ("vnnlib", "negative counts", &err);
      for (int64_t k = 0; k < spec.n_cases; k++)
        {
          const cn_spec_case *c = &spec.cases[k];
          if (c->box.n != spec.n_x)
            fuzz_fail ("vnnlib", "a case box of the wrong size", &err);
          for (int64_t i = 0; i < c->box.n; i++)
            if (!(c->box.lo[i] <= c->box.hi[i]))
              fuzz_fail ("vnnlib", "an empty or NaN box entry accepted", &err);
          for (int64_t j = 0; j < c->n_clauses; j++)
            {
              const cn_spec_clause *cl = &c->clauses[j];
              for (int64_t r = 0; r < cl->n_rows; r++)
                {
                  if (!(cl->rhs_down[r] <= cl->rhs_up[r]))
                    fuzz_fail ("vnnlib", "rhs_down > rhs_up", &err);
                  for (int64_t q = 0; q < spec.n_y; q++)
                    if (!isfinite (cl->mat[r * spec.n_y + q]))
                      fuzz_fail ("vnnlib", "a non-finite coefficient", &err);
                }
            }
        }
    }
  cn_spec_clear (&spec);
  return 0;
}
