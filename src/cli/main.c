/* SPDX-License-Identifier: MIT */
/* src/cli/main.c: the certnn command. */
#include <config.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include "cli/cli.h"

static const struct
{
  const char *name;
  int (*run) (int, char **);
  const char *summary;
} commands[] = {
  { "verify", cli_verify, "decide a VNN-LIB property of an ONNX network (sat, unsat, unknown, timeout)" },
  { "bounds", cli_bounds, "sound bounds of every network output over a property's input box" },
  { "run", cli_run, "evaluate the network on one input" },
  { "ops", cli_ops, "the operator table and what each operator supports" },
};

static void
usage (FILE *f)
{
  fprintf (f, "Usage: certnn COMMAND [ARGS...]\n"
              "       certnn COMMAND --help\n"
              "       certnn --version\n\n"
              "Sound neural-network verification: bounds that hold in exact real arithmetic.\n\n"
              "Commands:\n");
  for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
    fprintf (f, "  %-8s %s\n", commands[i].name, commands[i].summary);
  fprintf (f, "\nExit status: 0 success, 2 bad input or usage, 1 internal failure.\n");
}

/* OpenMP threads that the kernel migrates between cores made the same bound computation take
 * anywhere from one to four times as long on the 2-core machines we measured; bound threads
 * (OMP_PROC_BIND=true) run steadily.  libgomp reads its settings before main, so the command
 * re-executes itself once with the setting, unless the user chose one. */
static void
bind_openmp_threads (char **argv)
{
  if (getenv ("OMP_PROC_BIND") != NULL || getenv ("CN_NO_REEXEC") != NULL)
    return;
  if (setenv ("OMP_PROC_BIND", "true", 0) != 0 || setenv ("CN_NO_REEXEC", "1", 0) != 0)
    return;
  execv ("/proc/self/exe", argv);
  /* execv failed (no /proc): carry on unbound, which is only slower. */
}

int
main (int argc, char **argv)
{
  bind_openmp_threads (argv);
#ifdef __GLIBC__
  /* The sweeps allocate and free coefficient blocks of megabytes per node; keep them in the heap
   * instead of fresh mmap'd (and page-faulted) memory each time. */
  mallopt (M_MMAP_THRESHOLD, 32 << 20);
  mallopt (M_TRIM_THRESHOLD, 1 << 30);
#endif
  if (argc < 2)
    {
      usage (stderr);
      return CLI_BAD_INPUT;
    }
  if (strcmp (argv[1], "--help") == 0 || strcmp (argv[1], "-h") == 0 || strcmp (argv[1], "help") == 0)
    {
      usage (stdout);
      return CLI_OK;
    }
  if (strcmp (argv[1], "--version") == 0)
    {
      printf ("certnn %s\n", cn_version ());
      return CLI_OK;
    }
  /* certnn parallelises rows with OpenMP; OpenBLAS's own pool would compete for the cores. */
  cn_set_blas_threads (1);
  for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
    if (strcmp (argv[1], commands[i].name) == 0)
      return commands[i].run (argc - 1, argv + 1);
  fprintf (stderr, "certnn: unknown command '%s' (try certnn --help)\n", argv[1]);
  return CLI_BAD_INPUT;
}
