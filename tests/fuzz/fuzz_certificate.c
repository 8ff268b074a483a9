/* SPDX-License-Identifier: MIT */
/* tests/fuzz/fuzz_certificate.c: the bound-certificate checker (cn_proof_check, certnn/proof.h).
 *
 * The certificate is checked against one of the fixed problems below: the one whose property
 * digest its text names ("property sha256 HEX", as certnn verify --certificate writes it), else
 * the first, so that mutations of a real certificate reach past the header.  The networks and
 * properties are read once from CN_FUZZ_DATA (default: the source tree's tests/data/verify).
 * Any bytes: CN_OK with a verdict (a rejection names its reason), or a failure with a message.
 * The problems are all unsat, so an accepted certificate is no wrong answer; it is the checker's
 * job, not the harness's, to tell a valid one (the corpus holds valid ones). */
#include "fuzz.h"

#ifndef CN_FUZZ_DATADIR
#define CN_FUZZ_DATADIR "tests/data/verify"
#endif

static const char *const problems[][2] = {
  { "tiny.onnx", "tiny_unsat.vnnlib" },
  { "tinyconv.onnx", "tinyconv_unsat.vnnlib" },
};
#define N_PROBLEMS ((int) (sizeof problems / sizeof problems[0]))

typedef struct problem
{
  cn_graph *g;
  cn_spec spec;
  char net_sha[65], spec_sha[65];
} problem;

static problem loaded[N_PROBLEMS];

static void
load_all (void)
{
  static int done;
  if (done)
    return;
  done = 1;
  const char *dir = getenv ("CN_FUZZ_DATA");
  if (dir == NULL)
    dir = CN_FUZZ_DATADIR;
  for (int k = 0; k < N_PROBLEMS; k++)
    {
      char net[4096], prop[4096];
      snprintf (net, sizeof net, "%s/%s", dir, problems[k][0]);
      snprintf (prop, sizeof prop, "%s/%s", dir, problems[k][1]);
      cn_error err;
      cn_error_clear (&err);
      if (cn_sha256_file (net, loaded[k].net_sha, &err) != CN_OK
          || cn_sha256_file (prop, loaded[k].spec_sha, &err) != CN_OK
          || cn_graph_load_onnx (net, &loaded[k].g, &err) != CN_OK
          || cn_spec_load_vnnlib (prop, &loaded[k].spec, &err) != CN_OK)
        fuzz_fail ("certificate", "cannot load the fixed problems (set CN_FUZZ_DATA)", &err);
    }
}

/* The problem whose property digest DATA names, else 0. */
static int
pick (const uint8_t *data, size_t size)
{
  static const char key[] = "property sha256 ";
  size_t kl = sizeof key - 1;
  for (size_t i = 0; i + kl + 64 <= size && i < 512; i++)
    if (memcmp (data + i, key, kl) == 0)
      {
        for (int k = 0; k < N_PROBLEMS; k++)
          if (memcmp (data + i + kl, loaded[k].spec_sha, 64) == 0)
            return k;
        return 0;
      }
  return 0;
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  fuzz_setup ();
  load_all ();
  problem *p = &loaded[pick (data, size)];
  /* fmemopen of zero bytes is not portable: give it one byte and read none of it */
  FILE *f = size > 0 ? fmemopen ((void *) data, size, "r") : fmemopen ((void *) "", 1, "r");
  if (f == NULL)
    return 0;
  if (size == 0)
    fgetc (f);
  cn_proof_opts o;
  cn_proof_opts_init (&o);
  o.threads = 1;
  cn_proof_result res;
  cn_error err;
  cn_error_clear (&err);
  cn_status st = cn_proof_check (p->g, &p->spec, p->net_sha, p->spec_sha, f, &o, &res, &err);
  fclose (f);
  fuzz_check_status ("certificate", st, &err);
  if (st == CN_OK && !res.accepted && res.reason[0] == '\0')
    fuzz_fail ("certificate", "a rejection without a reason", &err);
  return 0;
}
