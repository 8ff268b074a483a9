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
  { "certs", cli_certs, "the operators' certificate records" },
  { "check-certificate", cli_check_certificate, "re-check a bound certificate of an unsat verdict in MPFI" },
  { "check", cli_check, "check an IR artifact: structure, types, execute, compare" },
  { "export", cli_export, "write an ONNX network (with arguments and reference outputs) as an IR artifact" },
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
 * re-executes itself once with the setting, unless the user chose one.  Measured (2026-12) on
 * the project's 2-core machine, certnn bounds --method crown --threads 2, median of 9: the
 * bound time of mnist_fc 256x4 is 0.034 s bound against 0.104 s unbound, of 256x6 0.064 against
 * 0.136 s, of oval21 cifar_deep_kw 0.104 against 0.212 s.  With one thread nothing migrates
 * (the same runs with --threads 1 take the same time either way) and the second exec only costs
 * start-up (about 10 ms), so `--threads 1` skips it. */
static int
one_thread (char **argv)
{
  for (int i = 1; argv[i] != NULL; i++)
    if (strcmp (argv[i], "--threads") == 0 && argv[i + 1] != NULL && strcmp (argv[i + 1], "1") == 0)
      return 1;
  return 0;
}

static void
bind_openmp_threads (char **argv)
{
  if (getenv ("OMP_PROC_BIND") != NULL || getenv ("CN_NO_REEXEC") != NULL || one_thread (argv))
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
  /* The CROWN sweeps allocate and free coefficient blocks of megabytes per node; keep them in
   * the heap instead of fresh mmap'd (and page-faulted) memory each time.  Measured (2026-12) on the
   * 2-core machine, certnn bounds --method crown --threads 1, median of 7: without these two settings
   * the bound time of mnist_fc 256x4 is 1.9 times, of oval21 cifar_base_kw 1.8 times as long
   * (ACAS Xu, whose blocks are small, the same).  A pool of blocks kept by the analysis instead
   * was measured too: 1.16 times as long in median over bench_bounds.py's CROWN rows (up to 1.56),
   * since the blocks it holds apart grow the process's memory, and each new page is a fault;
   * glibc's heap, never trimmed, reuses and coalesces the same pages.  A library caller gets the
   * same speed by setting the same two options (README, "The library"). */
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
