/* SPDX-License-Identifier: MIT */
/* tests/check_alloc.c: allocation-failure injection (as MPFR's tests/memory.c): every allocation
 * certnn makes in a small run is made to fail, one at a time, and the run must then end with a
 * status (CN_ENOMEM with a message), never a crash, never a leak, and never a different answer.
 *
 * The program is linked with -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc,--wrap=free,
 * --wrap=strdup (Makefile.am): the library's own calls (its objects are linked into this program
 * from the convenience library) go through the wrappers below, while GMP, MPFR, jansson,
 * protobuf-c and OpenBLAS keep the system allocator (GMP aborts when its allocator fails, by
 * design, so its allocations are not certnn's to inject).  Under the sanitizer build the
 * wrappers call ASan's allocator, which then reports any leak or misuse on the failure paths.
 *
 * Each workload W (reading ONNX and VNN-LIB from memory, bounds by IBP, CROWN, CROWN-IBP and
 * alpha-CROWN, linear bounds over an L2 ball, verification with a certificate, the certificate
 * checker, the wire codec, artifact export and check) runs once counting its allocations, N, and
 * its answer (a digest of what it returns); then for k = 1..N with the k-th allocation failing.
 * Checked each time: the status is CN_OK or CN_ENOMEM, CN_ENOMEM carries a message, CN_OK gives
 * the same digest (a failure the code recovers from must not change the answer), and every block
 * allocated through the wrappers during the run has been freed (a set of live pointers).  The
 * workloads use one thread and no time limit, so that their allocations come in the same order
 * every run. */
#define _GNU_SOURCE 1 /* dladdr */
#include <config.h>
#include <dirent.h>
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>
#include "certnn/certnn.h"
#include "certnn/artifact.h"
#include "certnn/proof.h"
#include "certnn/wire.h"
#include "testutil.h"

void *__real_malloc (size_t n);
void *__real_calloc (size_t n, size_t m);
void *__real_realloc (void *p, size_t n);
void __real_free (void *p);
char *__real_strdup (const char *s);
void *__wrap_malloc (size_t n);
void *__wrap_calloc (size_t n, size_t m);
void *__wrap_realloc (void *p, size_t n);
void __wrap_free (void *p);
char *__wrap_strdup (const char *s);

/* ---- the wrappers: counting, failing the k-th, and the set of live blocks ------------------ */

static int tracking;            /* counting and recording only while a workload runs */
static long n_calls;            /* allocation calls since the workload started */
static long fail_at;            /* the call that fails (1-based; 0: none) */
static int failed;              /* the injected failure happened */
static void *fail_site;         /* where: the failed call's return address */
static long live_count;

/* open addressing over pointers; a tombstone keeps the probe chains */
#define LIVE_SIZE (1 << 20)
static void **live;
#define TOMB ((void *) 1)

static size_t
slot_of (void *p)
{
  uintptr_t h = (uintptr_t) p;
  h ^= h >> 17;
  h *= 0xed5ad4bbU;
  h ^= h >> 11;
  return (size_t) h & (LIVE_SIZE - 1);
}

static void
live_add (void *p)
{
  if (live == NULL || live_count >= LIVE_SIZE / 2)
    return;
  for (size_t i = slot_of (p);; i = (i + 1) & (LIVE_SIZE - 1))
    if (live[i] == NULL || live[i] == TOMB)
      {
        live[i] = p;
        live_count++;
        return;
      }
}

static void
live_remove (void *p)
{
  if (live == NULL)
    return;
  for (size_t i = slot_of (p); live[i] != NULL; i = (i + 1) & (LIVE_SIZE - 1))
    if (live[i] == p)
      {
        live[i] = TOMB;
        live_count--;
        return;
      }
}

/* 1 if this call is the one to fail */
#define inject() inject_at (__builtin_return_address (0))
static int
inject_at (void *site)
{
  if (!tracking)
    return 0;
  n_calls++;
  if (n_calls == fail_at)
    {
      failed = 1;
      fail_site = site;
      return 1;
    }
  return 0;
}

/* Prints where the failed call was made, as an offset addr2line reads ("addr2line -e
 * tests/check_alloc OFFSET" names the file and line). */
static void
print_site (void)
{
  Dl_info d;
  if (fail_site != NULL && dladdr (fail_site, &d) != 0)
    printf ("  (the failed call returns to %s+%#lx)\n", d.dli_fname,
            (unsigned long) ((uintptr_t) fail_site - (uintptr_t) d.dli_fbase));
}

void *
__wrap_malloc (size_t n)
{
  if (inject ())
    return NULL;
  void *p = __real_malloc (n);
  if (p != NULL && tracking)
    live_add (p);
  return p;
}

void *
__wrap_calloc (size_t n, size_t m)
{
  if (inject ())
    return NULL;
  void *p = __real_calloc (n, m);
  if (p != NULL && tracking)
    live_add (p);
  return p;
}

void *
__wrap_realloc (void *p, size_t n)
{
  if (inject ())
    return NULL;        /* P stays allocated, as realloc leaves it */
  void *q = __real_realloc (p, n);
  if (q != NULL && tracking)
    {
      if (p != NULL)
        live_remove (p);
      live_add (q);
    }
  return q;
}

void
__wrap_free (void *p)
{
  if (p != NULL && tracking)
    live_remove (p);
  __real_free (p);
}

char *
__wrap_strdup (const char *s)
{
  size_t n = strlen (s) + 1;
  char *d = __wrap_malloc (n);
  if (d != NULL)
    memcpy (d, s, n);
  return d;
}

/* ---- the workloads ----------------------------------------------------------------------- */

/* What the workloads read, loaded before any counting. */
static struct
{
  void *onnx_tiny, *onnx_conv;
  size_t onnx_tiny_n, onnx_conv_n;
  char *vnn_tiny, *vnn_conv;
  size_t vnn_tiny_n, vnn_conv_n;
  cn_graph *tiny, *conv;
  cn_spec spec_tiny, spec_conv;
  char sha_tiny[65], sha_conv[65], sha_vtiny[65], sha_vconv[65];
  char *cert;           /* a certificate of conv's unsat verdict (relu splits) */
  size_t cert_n;
} in;

/* Digests: a running FNV-1a hash of the bytes of what a workload returns. */
static void
dig (uint64_t *h, const void *p, size_t n)
{
  const unsigned char *b = p;
  for (size_t i = 0; i < n; i++)
    *h = (*h ^ b[i]) * 0x100000001b3ULL;
}

static void
dig_box (uint64_t *h, const cn_box *b)
{
  dig (h, b->lo, (size_t) b->n * sizeof (double));
  dig (h, b->hi, (size_t) b->n * sizeof (double));
}

static cn_status
w_onnx (const void *ctx, uint64_t *h, cn_error *err)
{
  (void) ctx;                   /* no context */
  cn_graph *g = NULL;
  cn_status st = cn_graph_load_onnx_buffer (in.onnx_conv, in.onnx_conv_n, &g, err);
  if (st == CN_OK)
    {
      int n = cn_graph_n_values (g);
      dig (h, &n, sizeof n);
      cn_graph_free (g);
      st = cn_graph_load_onnx_buffer (in.onnx_tiny, in.onnx_tiny_n, &g, err);
      if (st == CN_OK)
        {
          n = cn_graph_n_nodes (g);
          dig (h, &n, sizeof n);
          cn_graph_free (g);
        }
    }
  return st;
}

static cn_status
w_vnnlib (const void *ctx, uint64_t *h, cn_error *err)
{
  (void) ctx;                   /* no context */
  static const char disj[] = "(declare-const X_0 Real)\n(declare-const X_1 Real)\n(declare-const Y_0 Real)\n"
    "(declare-const Y_1 Real)\n(assert (or (and (>= X_0 -1) (<= X_0 0)) (and (>= X_0 0) (<= X_0 1))))\n"
    "(assert (<= X_1 0.1))\n(assert (>= X_1 -0.1))\n(assert (or (and (<= Y_0 Y_1)) (and (>= Y_0 0.5) (<= Y_1 -1e-3))))\n";
  cn_spec s;
  cn_status st = cn_spec_parse_vnnlib (in.vnn_conv, in.vnn_conv_n, "conv.vnnlib", &s, err);
  if (st == CN_OK)
    dig_box (h, &s.cases[0].box);
  cn_spec_clear (&s);
  if (st != CN_OK)
    return st;
  st = cn_spec_parse_vnnlib (disj, sizeof disj - 1, "disj.vnnlib", &s, err);
  if (st == CN_OK)
    {
      dig (h, &s.n_cases, sizeof s.n_cases);
      for (int64_t k = 0; k < s.n_cases; k++)
        dig_box (h, &s.cases[k].box);
    }
  cn_spec_clear (&s);
  return st;
}

static cn_status
bounds_by (cn_method m, uint64_t *h, cn_error *err)
{
  cn_bounds_opts o;
  cn_bounds_opts_init (&o);
  o.method = m;
  o.threads = 1;
  o.iterations = 3;
  cn_box out;
  cn_status st = cn_bounds_output (in.conv, &in.spec_conv.cases[0].box, &o, &out, err);
  if (st == CN_OK)
    {
      dig_box (h, &out);
      cn_box_clear (&out);
    }
  return st;
}

static cn_status
w_ibp (const void *ctx, uint64_t *h, cn_error *err)
{
  (void) ctx;                   /* no context */
  return bounds_by (CN_METHOD_IBP, h, err);
}

static cn_status
w_crown (const void *ctx, uint64_t *h, cn_error *err)
{
  (void) ctx;                   /* no context */
  cn_status st = bounds_by (CN_METHOD_CROWN, h, err);
  return st != CN_OK ? st : bounds_by (CN_METHOD_CROWN_IBP, h, err);
}

static cn_status
w_alpha (const void *ctx, uint64_t *h, cn_error *err)
{
  (void) ctx;                   /* no context */
  return bounds_by (CN_METHOD_ALPHA_CROWN, h, err);
}

static cn_status
w_linear (const void *ctx, uint64_t *h, cn_error *err)
{
  (void) ctx;                   /* no context */
  cn_bounds_opts o;
  cn_bounds_opts_init (&o);
  o.threads = 1;
  cn_analysis *a = NULL;
  const cn_box *b = &in.spec_conv.cases[0].box;
  cn_status st = cn_analysis_create (in.conv, b, &o, &a, err);
  if (st != CN_OK)
    return st;
  double center[64], lc[2 * 64], uc[2 * 64], lo[2], uo[2];
  int64_t n = b->n < 64 ? b->n : 64;
  for (int64_t i = 0; i < n; i++)
    center[i] = 0.5 * (b->lo[i] + b->hi[i]);
  int y = cn_graph_output (in.conv, 0);
  st = cn_analysis_set_l2 (a, center, 0.25, err);
  if (st == CN_OK)
    st = cn_analysis_linear (a, y, NULL, 2, lc, lo, uc, uo, err);
  if (st == CN_OK)
    {
      dig (h, lc, (size_t) (2 * n) * sizeof (double));
      dig (h, uo, sizeof uo);
    }
  cn_analysis_free (a);
  return st;
}

/* The verify workload's options: one thread, a short attack, no time-bound sampling, the
 * ReLU-split search on tinyconv with its certificate written to CERT. */
static void
verify_opts (cn_verify_opts *o, FILE *cert)
{
  cn_verify_opts_init (o);
  o->bounds.threads = 1;
  o->attack_restarts = 1;
  o->attack_steps = 3;
  o->random_samples = 0;
  o->input_split_max = -1;
  o->certificate = cert;
  o->network_sha256 = in.sha_conv;
  o->property_sha256 = in.sha_vconv;
}

static cn_status
w_verify (const void *ctx, uint64_t *h, cn_error *err)
{
  (void) ctx;                   /* no context */
  FILE *f = tmpfile ();
  if (f == NULL)
    return CN_OK;
  cn_verify_opts o;
  verify_opts (&o, f);
  cn_verify_result r;
  cn_status st = cn_verify (in.conv, &in.spec_conv, &o, &r, err);
  fclose (f);
  if (st == CN_OK)
    {
      dig (h, &r.verdict, sizeof r.verdict);
      dig (h, &r.domains, sizeof r.domains);
      cn_verify_result_clear (&r);
    }
  return st;
}

static cn_status
w_proof (const void *ctx, uint64_t *h, cn_error *err)
{
  (void) ctx;                   /* no context */
  FILE *f = fmemopen (in.cert, in.cert_n, "r");
  if (f == NULL)
    return CN_OK;
  cn_proof_opts o;
  cn_proof_opts_init (&o);
  o.threads = 1;
  cn_proof_result r;
  cn_status st = cn_proof_check (in.conv, &in.spec_conv, in.sha_conv, in.sha_vconv, f, &o, &r, err);
  fclose (f);
  if (st == CN_OK)
    {
      dig (h, &r.accepted, sizeof r.accepted);
      dig (h, &r.nodes, sizeof r.nodes);
    }
  return st;
}

static cn_status
w_wire (const void *ctx, uint64_t *h, cn_error *err)
{
  (void) ctx;                   /* no context */
  cn_status st = CN_OK;
  for (int node = 0; node < cn_graph_n_nodes (in.conv) && st == CN_OK; node++)
    {
      json_t *j = NULL;
      st = cn_wire_encode_node (in.conv, node, &j, err);
      if (st != CN_OK)
        break;
      char *s = json_dumps (j, 0);      /* jansson's allocator, not certnn's */
      json_decref (j);
      if (s == NULL)
        return cn_error_set (err, CN_ENOMEM, "test: json_dumps");
      cn_wire_op w;
      memset (&w, 0, sizeof w);
      st = cn_wire_decode_string (s, &w, err);
      if (st == CN_OK)
        dig (h, &w.out_shape, sizeof w.out_shape);
      cn_wire_op_clear (&w);
      free (s);
    }
  return st;
}

static cn_status
w_artifact (const void *ctx, uint64_t *h, cn_error *err)
{
  (void) ctx;                   /* no context */
  const cn_shape *xs = cn_graph_value_shape (in.tiny, cn_graph_input (in.tiny, 0));
  cn_tensor x;
  cn_status st = cn_tensor_init (&x, CN_DTYPE_F64, xs, err);
  if (st != CN_OK)
    return st;
  double *xd = x.data;
  for (int64_t i = 0; i < cn_tensor_numel (&x); i++)
    xd[i] = 0.25 * (double) (i + 1);
  char *text = NULL;
  st = cn_artifact_export (in.tiny, CN_DTYPE_F32, &x, NULL, NULL, &text, err);
  cn_tensor_clear (&x);
  if (st != CN_OK)
    return st;
  cn_check_report r;
  st = cn_artifact_check (text, strlen (text), 0, NULL, &r, err);
  free (text);
  if (st != CN_OK)
    return st;
  for (int i = 0; i < r.n_findings; i++)
    {
      /* a finding that failed for want of memory says so; any other must match the first run */
      if (r.findings[i].status != CN_FINDING_PASSED && r.findings[i].message != NULL
          && strstr (r.findings[i].message, "memory") != NULL)
        {
          cn_check_report_clear (&r);
          return cn_error_set (err, CN_ENOMEM, "finding %d: %s", i, r.findings[i].message);
        }
      dig (h, &r.findings[i].status, sizeof r.findings[i].status);
    }
  cn_check_report_clear (&r);
  return st;
}

static char *read_file (const char *path, size_t *n);

/* One network of tests/data/onnx/ops (CTX: its struct file): read, evaluated at zero in binary64,
 * and, with one floating input, bounded by IBP over [-1, 1]^n. */
struct file
{
  char *name, *data;
  size_t n;
};

static cn_status
w_onnx_file (const void *ctx, uint64_t *h, cn_error *err)
{
  const struct file *fl = ctx;
  cn_graph *g = NULL;
  cn_status st = cn_graph_load_onnx_buffer (fl->data, fl->n, &g, err);
  if (st != CN_OK)
    return st == CN_ENOMEM ? st : CN_OK;      /* a refusal of the file is its answer */
  int ni = cn_graph_n_inputs (g), no = cn_graph_n_outputs (g);
  cn_tensor *x = calloc ((size_t) ni + 1, sizeof *x), *y = calloc ((size_t) no + 1, sizeof *y);
  int made = 0;
  if (x == NULL || y == NULL)
    st = cn_error_set (err, CN_ENOMEM, "test: out of memory");
  for (; st == CN_OK && made < ni; made++)
    {
      int v = cn_graph_input (g, made);
      if ((st = cn_tensor_init (&x[made], cn_graph_value_dtype (g, v), cn_graph_value_shape (g, v), err)) != CN_OK)
        break;
    }
  if (st == CN_OK)
    {
      cn_error local;
      cn_error_clear (&local);
      cn_status e = cn_graph_eval (g, CN_DTYPE_F64, x, y, &local);
      if (e == CN_OK)
        for (int i = 0; i < no; i++)
          {
            dig (h, y[i].data, (size_t) cn_tensor_numel (&y[i]) * cn_dtype_size (y[i].dtype));
            cn_tensor_clear (&y[i]);
          }
      else if (e == CN_ENOMEM)
        st = cn_error_set (err, CN_ENOMEM, "%s", local.msg);
      else
        dig (h, &e, sizeof e);
    }
  for (int i = 0; i < made; i++)
    cn_tensor_clear (&x[i]);
  free (x);
  free (y);
  if (st == CN_OK && ni == 1 && cn_dtype_is_float (cn_graph_value_dtype (g, cn_graph_input (g, 0))))
    {
      cn_box b, out;
      int64_t n = cn_shape_numel (cn_graph_value_shape (g, cn_graph_input (g, 0)));
      if ((st = cn_box_init (&b, n, err)) == CN_OK)
        {
          for (int64_t i = 0; i < n; i++)
            b.lo[i] = -1, b.hi[i] = 1;
          cn_bounds_opts o;
          cn_bounds_opts_init (&o);
          o.method = CN_METHOD_IBP;
          o.threads = 1;
          cn_error local;
          cn_error_clear (&local);
          cn_status e = cn_bounds_output (g, &b, &o, &out, &local);
          if (e == CN_OK)
            {
              dig_box (h, &out);
              cn_box_clear (&out);
            }
          else if (e == CN_ENOMEM)
            st = cn_error_set (err, CN_ENOMEM, "%s", local.msg);
          else
            dig (h, &e, sizeof e);
          cn_box_clear (&b);
        }
    }
  cn_graph_free (g);
  return st;
}

static const struct workload
{
  const char *name;
  cn_status (*run) (const void *ctx, uint64_t *h, cn_error *err);
} workloads[] = {
  { "onnx", w_onnx }, { "vnnlib", w_vnnlib }, { "ibp", w_ibp }, { "crown", w_crown }, { "alpha-crown", w_alpha },
  { "linear-l2", w_linear }, { "verify", w_verify }, { "certificate", w_proof }, { "wire", w_wire },
  { "artifact", w_artifact },
};

static struct file *ops_files;
static int n_ops_files;

/* The networks of tests/data/onnx/ops, read into memory. */
static void
read_ops (void)
{
  char dir[4096];
  snprintf (dir, sizeof dir, "%s/tests/data/onnx/ops", tu_srcdir ());
  DIR *d = opendir (dir);
  if (d == NULL)
    return;
  struct dirent *e;
  while ((e = readdir (d)) != NULL)
    {
      size_t len = strlen (e->d_name);
      if (len < 6 || strcmp (e->d_name + len - 5, ".onnx") != 0)
        continue;
      struct file *nf = __real_realloc (ops_files, (size_t) (n_ops_files + 1) * sizeof *nf);
      if (nf == NULL)
        break;
      ops_files = nf;
      char p[8192];
      snprintf (p, sizeof p, "%s/%s", dir, e->d_name);
      struct file *fl = &ops_files[n_ops_files];
      fl->data = read_file (p, &fl->n);
      fl->name = __real_strdup (e->d_name);
      if (fl->data != NULL && fl->name != NULL)
        n_ops_files++;
    }
  closedir (d);
}

/* ---- the driver -------------------------------------------------------------------------- */

static char *
read_file (const char *path, size_t *n)
{
  FILE *f = fopen (path, "rb");
  if (f == NULL)
    return NULL;
  char *buf = __real_malloc (1 << 20);
  *n = buf != NULL ? fread (buf, 1, (1 << 20) - 1, f) : 0;
  fclose (f);
  if (buf != NULL)
    buf[*n] = '\0';
  return buf;
}

static void
setup (void)
{
  char p[4096];
  cn_error err;
  cn_error_clear (&err);
  snprintf (p, sizeof p, "%s/tests/data/verify/tiny.onnx", tu_srcdir ());
  in.onnx_tiny = read_file (p, &in.onnx_tiny_n);
  if (cn_sha256_file (p, in.sha_tiny, &err) != CN_OK)
    goto fail;
  snprintf (p, sizeof p, "%s/tests/data/verify/tinyconv.onnx", tu_srcdir ());
  in.onnx_conv = read_file (p, &in.onnx_conv_n);
  if (cn_sha256_file (p, in.sha_conv, &err) != CN_OK)
    goto fail;
  snprintf (p, sizeof p, "%s/tests/data/verify/tiny_unsat.vnnlib", tu_srcdir ());
  in.vnn_tiny = read_file (p, &in.vnn_tiny_n);
  if (cn_sha256_file (p, in.sha_vtiny, &err) != CN_OK)
    goto fail;
  snprintf (p, sizeof p, "%s/tests/data/verify/tinyconv_unsat.vnnlib", tu_srcdir ());
  in.vnn_conv = read_file (p, &in.vnn_conv_n);
  if (cn_sha256_file (p, in.sha_vconv, &err) != CN_OK)
    goto fail;
  if (in.onnx_tiny == NULL || in.onnx_conv == NULL || in.vnn_tiny == NULL || in.vnn_conv == NULL
      || cn_graph_load_onnx_buffer (in.onnx_tiny, in.onnx_tiny_n, &in.tiny, &err) != CN_OK
      || cn_graph_load_onnx_buffer (in.onnx_conv, in.onnx_conv_n, &in.conv, &err) != CN_OK
      || cn_spec_parse_vnnlib (in.vnn_tiny, in.vnn_tiny_n, "tiny", &in.spec_tiny, &err) != CN_OK
      || cn_spec_parse_vnnlib (in.vnn_conv, in.vnn_conv_n, "conv", &in.spec_conv, &err) != CN_OK)
    goto fail;
  /* the certificate the checker workload reads: the verify workload's own */
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream (&buf, &len);
  if (f == NULL)
    goto fail;
  cn_verify_opts o;
  verify_opts (&o, f);
  cn_verify_result r;
  if (cn_verify (in.conv, &in.spec_conv, &o, &r, &err) != CN_OK)
    goto fail;
  if (r.verdict != CN_VERDICT_UNSAT)
    {
      fprintf (stderr, "check_alloc: tinyconv_unsat is %s, expected unsat\n", cn_verdict_name (r.verdict));
      exit (1);
    }
  cn_verify_result_clear (&r);
  fclose (f);
  in.cert = buf;
  in.cert_n = len;
  return;
fail:
  fprintf (stderr, "check_alloc: cannot set up: %s\n", err.msg);
  exit (1);
}

static int bad;
static long total_runs;

/* Runs RUN (CTX) once counting its allocations, then once per allocation with that one failing;
 * adds to *N, *ENOMEM and *RECOVERED; reports each broken promise under NAME. */
static void
inject_all (const char *name, cn_status (*run) (const void *, uint64_t *, cn_error *), const void *ctx, long cap,
            long *n_alloc, long *enomem, long *recovered)
{
  cn_error err;
  cn_error_clear (&err);
  uint64_t h0 = 0xcbf29ce484222325ULL;
  tracking = 1;
  n_calls = 0;
  fail_at = 0;
  failed = 0;
  cn_status st = run (ctx, &h0, &err);
  tracking = 0;
  long n = n_calls;
  *n_alloc += n;
  if (st != CN_OK)
    {
      printf ("FAIL %s: the run without failures returns %s: %s\n", name, cn_status_name (st), err.msg);
      bad++;
      return;
    }
  if (live_count != 0)
    {
      printf ("FAIL %s: %ld blocks left allocated by the run without failures\n", name, live_count);
      bad++;
      memset (live, 0, LIVE_SIZE * sizeof *live);
      live_count = 0;
    }
  long upto = cap > 0 && cap < n ? cap : n;
  for (long k = 1; k <= upto && bad <= 40; k++)
    {
      uint64_t h = 0xcbf29ce484222325ULL;
      cn_error_clear (&err);
      tracking = 1;
      n_calls = 0;
      fail_at = k;
      failed = 0;
      st = run (ctx, &h, &err);
      tracking = 0;
      total_runs++;
      if (st == CN_ENOMEM)
        {
          ++*enomem;
          if (err.msg[0] == '\0' || err.code != CN_ENOMEM)
            {
              printf ("FAIL %s: allocation %ld: CN_ENOMEM without its message\n", name, k);
              print_site ();
              bad++;
            }
        }
      else if (st == CN_OK)
        {
          ++*recovered;
          if (h != h0)
            {
              printf ("FAIL %s: allocation %ld failed and the run succeeded with a different answer\n", name, k);
              print_site ();
              bad++;
            }
        }
      else
        {
          printf ("FAIL %s: allocation %ld: status %s (%s), expected CN_ENOMEM\n", name, k, cn_status_name (st),
                  err.msg);
          print_site ();
          bad++;
        }
      if (live_count != 0)
        {
          printf ("FAIL %s: allocation %ld failed: %ld blocks leaked\n", name, k, live_count);
          print_site ();
          bad++;
          memset (live, 0, LIVE_SIZE * sizeof *live);
          live_count = 0;
        }
    }
}

int
main (void)
{
  tu_init ();
  setup ();
  read_ops ();
  live = __real_calloc (LIVE_SIZE, sizeof *live);
  if (live == NULL)
    return 1;
  /* CN_ALLOC_MAX (default 0: all) caps the injected calls per workload, for quick local runs */
  const char *cap_env = getenv ("CN_ALLOC_MAX");
  long cap = cap_env != NULL ? atol (cap_env) : 0;
  for (size_t w = 0; w < sizeof workloads / sizeof workloads[0] && bad <= 40; w++)
    {
      long n = 0, enomem = 0, recovered = 0;
      inject_all (workloads[w].name, workloads[w].run, NULL, cap, &n, &enomem, &recovered);
      printf ("%-12s %7ld allocations, each failed in turn: %ld CN_ENOMEM, %ld recovered with the same answer\n",
              workloads[w].name, n, enomem, recovered);
    }
  long n = 0, enomem = 0, recovered = 0;
  for (int i = 0; i < n_ops_files && bad <= 40; i++)
    inject_all (ops_files[i].name, w_onnx_file, &ops_files[i], cap, &n, &enomem, &recovered);
  printf ("%-12s %7ld allocations in %d networks, each failed in turn: %ld CN_ENOMEM, %ld recovered with the same "
          "answer\n", "onnx-ops", n, n_ops_files, enomem, recovered);
  if (n_ops_files == 0)
    {
      printf ("FAIL: no networks in tests/data/onnx/ops\n");
      bad++;
    }
  printf ("%ld injected runs, %d failures\n", total_runs, bad);
  return bad != 0;
}
