/* SPDX-License-Identifier: MIT */
/* src/cli/cli.h: the certnn command's subcommands and shared helpers. */
#ifndef CN_CLI_H
#define CN_CLI_H

#include <stdio.h>
#include "certnn/certnn.h"

/* Exit statuses: 0 success, 2 bad input or usage, 1 an internal failure (out of memory,
 * an unsound precondition). */
enum { CLI_OK = 0, CLI_FAIL = 1, CLI_BAD_INPUT = 2 };

int cli_run (int argc, char **argv);
int cli_bounds (int argc, char **argv);
int cli_ops (int argc, char **argv);
int cli_certs (int argc, char **argv);
int cli_verify (int argc, char **argv);
int cli_check_certificate (int argc, char **argv);
int cli_check (int argc, char **argv);
int cli_export (int argc, char **argv);

/* Prints "certnn: <msg>" for ERR on stderr and returns the exit status for its code. */
int cli_fail (const cn_error *err);
/* Prints "certnn <cmd>: <printf message>" on stderr and returns CLI_BAD_INPUT. */
int cli_usage_error (const char *cmd, const char *fmt, ...)
#ifdef __GNUC__
  __attribute__ ((format (printf, 2, 3)))
#endif
  ;
/* Writes X with the shortest decimal form that reads back to the same double. */
void cli_print_double (FILE *f, double x);
/* Reads whitespace-separated numbers from PATH into a malloc'd array; N gets the count. */
cn_status cli_read_numbers (const char *path, double **x, int64_t *n, cn_error *err);

/* Loads NET (ONNX) and, if SPEC_PATH is not NULL, the VNN-LIB spec, checking that the spec's
 * X and Y counts match the network's single input and output 0.  On failure nothing is left
 * allocated. */
cn_status cli_load (const char *net, const char *spec_path, cn_graph **g, cn_spec *spec, cn_error *err);
/* Parses an option shared by the commands that bound (--method M, --threads N) at argv[*i]:
 * returns 0 if argv[*i] is neither, 1 if it was consumed (with its value; *i advanced), and
 * CLI_BAD_INPUT's negation after printing a usage error for a bad value. */
/* Whether S is a whole decimal integer in [LO, HI] (no trailing text, no overflow); *OUT gets it. */
int cli_parse_int (const char *s, long lo, long hi, long *out);
int cli_bounds_option (const char *cmd, int argc, char **argv, int *i, cn_bounds_opts *o);
/* Seconds from a monotonic clock. */
double cli_now (void);

#endif
