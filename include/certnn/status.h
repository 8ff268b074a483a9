/* SPDX-License-Identifier: MIT */
/* certnn/status.h: status codes and the error record every fallible function fills.
 *
 * The library never aborts, exits or prints.  A fallible function returns a cn_status and,
 * when given a non-NULL cn_error, writes a message that starts with the function or operator
 * name ("conv: input 1 has rank 3, expected 4").  The first error wins: a message already in
 * the record is kept, so the innermost cause survives the unwinding. */
#ifndef CERTNN_STATUS_H
#define CERTNN_STATUS_H

#include <stdarg.h>

#ifdef __cplusplus
extern "C" {
#endif

/* CN_API marks the library's public functions: the library is compiled with hidden visibility
 * (-fvisibility=hidden), so a function exported from libcertnn.so is exactly one declared with
 * CN_API in a header of include/certnn/ (tests/symbols.sh checks it).  For a caller it is only
 * the attribute that the declaration has default visibility. */
#if defined(__GNUC__) || defined(__clang__)
#define CN_API __attribute__ ((visibility ("default")))
#else
#define CN_API
#endif

#define CN_STATUS_MAP(X)                                                   \
  X(OK, "success")                                                         \
  X(ENOMEM, "out of memory")                                               \
  X(EINVAL, "invalid argument")                                            \
  X(EIO, "input/output error")                                             \
  X(EPARSE, "malformed input")                                             \
  X(ESHAPE, "shape mismatch")                                              \
  X(EUNSUPPORTED, "operator or attribute not supported")                   \
  X(ENUMERIC, "non-finite or out-of-range number")                         \
  X(EUNSOUND, "soundness precondition violated")                           \
  X(ELP, "LP solver failed")                                               \
  X(ETIMEOUT, "time limit reached")                                        \
  X(ELIMIT, "size limit exceeded")

typedef enum cn_status
{
#define CN__X(id, msg) CN_##id,
  CN_STATUS_MAP (CN__X)
#undef CN__X
  CN_STATUS_COUNT
} cn_status;

#define CN_ERROR_MSG_SIZE 512

typedef struct cn_error
{
  cn_status code;               /* CN_OK while no error was recorded */
  char msg[CN_ERROR_MSG_SIZE];  /* NUL-terminated, "" while code == CN_OK */
} cn_error;

/* The fixed description of a status ("shape mismatch"); never NULL. */
CN_API const char *cn_status_str (cn_status s);

/* The name of a status ("ESHAPE"); never NULL. */
CN_API const char *cn_status_name (cn_status s);

/* Resets ERR to CN_OK with an empty message.  ERR may be NULL. */
CN_API void cn_error_clear (cn_error *err);

/* Records CODE and the printf-style message in ERR unless ERR already holds an error, and
 * returns CODE, so that `return cn_error_set (err, CN_EINVAL, "...")` reads naturally.
 * ERR may be NULL. */
CN_API cn_status cn_error_set (cn_error *err, cn_status code, const char *fmt, ...)
       #ifdef __GNUC__
         __attribute__ ((format (printf, 3, 4)))
       #endif
         ;
CN_API cn_status cn_error_setv (cn_error *err, cn_status code, const char *fmt, va_list ap);

#ifdef __cplusplus
}
#endif
#endif
