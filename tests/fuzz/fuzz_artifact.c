/* SPDX-License-Identifier: MIT */
/* tests/fuzz/fuzz_artifact.c: the IR artifact checker (cn_artifact_check, certnn/artifact.h).
 *
 * Any bytes: CN_OK with a report of one finding per check, each with a message and a status
 * among passed, failed and unsupported; or CN_EPARSE (not one JSON object) or CN_ENOMEM with a
 * message and nothing in the report.  The default checks run (structure, types, execute,
 * compare); compare_bitwise reads the same results and adds nothing the reader does not reach. */
#include "fuzz.h"

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  fuzz_setup ();
  cn_check_report r;
  cn_error err;
  cn_error_clear (&err);
  cn_status st = cn_artifact_check ((const char *) data, size, 0, NULL, &r, &err);
  fuzz_check_status ("artifact", st, &err);
  if (st != CN_OK)
    {
      if (st != CN_EPARSE && st != CN_ENOMEM)
        fuzz_fail ("artifact", "a status the checker does not document", &err);
      if (r.n_findings != 0 || r.findings != NULL)
        fuzz_fail ("artifact", "a failed check left findings", &err);
      return 0;
    }
  if (r.n_findings != 4)
    fuzz_fail ("artifact", "not one finding per default check", &err);
  for (int i = 0; i < r.n_findings; i++)
    {
      const cn_finding *f = &r.findings[i];
      const char *name = cn_finding_status_name (f->status);
      if (name == NULL || (strcmp (name, "passed") != 0 && strcmp (name, "failed") != 0
                           && strcmp (name, "unsupported") != 0))
        fuzz_fail ("artifact", "a finding with an unknown status", &err);
      if (f->status != CN_FINDING_PASSED && (f->message == NULL || f->message[0] == '\0'))
        fuzz_fail ("artifact", "a failed or unsupported finding without a message", &err);
      if (f->n_mismatch < 0 || (f->n_mismatch > 0 && f->mismatch == NULL))
        fuzz_fail ("artifact", "a mismatch count without mismatches", &err);
    }
  cn_check_report_clear (&r);
  return 0;
}
