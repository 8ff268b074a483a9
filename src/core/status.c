/* SPDX-License-Identifier: MIT */
/* src/core/status.c: status strings and the first-error-wins record. */
#include <config.h>
#include <stdio.h>
#include <string.h>
#include "certnn/status.h"

const char *
cn_status_str (cn_status s)
{
  static const char *const str[] = {
#define CN__X(id, msg) [CN_##id] = msg,
    CN_STATUS_MAP (CN__X)
#undef CN__X
  };
  _Static_assert (sizeof str / sizeof str[0] == CN_STATUS_COUNT, "status map and table disagree");
  return (unsigned) s < CN_STATUS_COUNT ? str[s] : "unknown status";
}

const char *
cn_status_name (cn_status s)
{
  static const char *const name[] = {
#define CN__X(id, msg) [CN_##id] = #id,
    CN_STATUS_MAP (CN__X)
#undef CN__X
  };
  return (unsigned) s < CN_STATUS_COUNT ? name[s] : "UNKNOWN";
}

void
cn_error_clear (cn_error *err)
{
  if (err == NULL)
    return;
  err->code = CN_OK;
  err->msg[0] = '\0';
}

cn_status
cn_error_setv (cn_error *err, cn_status code, const char *fmt, va_list ap)
{
  if (err == NULL || err->code != CN_OK || code == CN_OK)
    return code;
  err->code = code;
  vsnprintf (err->msg, sizeof err->msg, fmt, ap);
  return code;
}

cn_status
cn_error_set (cn_error *err, cn_status code, const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  cn_error_setv (err, code, fmt, ap);
  va_end (ap);
  return code;
}

#ifdef CN_ASSERTIONS
#include <stdio.h>
#include <stdlib.h>
#include "core/assert.h"

/* Only in builds configured with --enable-assertions (see core/assert.h). */
void
cn__assert_fail (const char *cond, const char *file, int line)
{
  fprintf (stderr, "certnn: internal invariant violated: %s (%s:%d)\n", cond, file, line);
  abort ();
}
#endif
