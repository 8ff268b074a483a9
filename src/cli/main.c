/* SPDX-License-Identifier: MIT */
/* src/cli/main.c: the certnn command. */
#include <config.h>
#include <stdio.h>
#include <string.h>
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

int
main (int argc, char **argv)
{
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
