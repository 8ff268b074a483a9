/* SPDX-License-Identifier: MIT */
/* tests/check_onnx.c: the ONNX importer.
 *
 * 1. Every benchmark network of ../shared/benchmarks imports, and its forward values on fixed
 *    inputs match the references of tests/data/onnx/ref/: in binary64 within 1e-6 relative of
 *    numpy's binary64 values; in binary32 bit for bit equal to "f32seq", the emulation of our
 *    own binary32 evaluation order (every operator's order is documented in its forward arm in
 *    src/ops/ (each family file) and emulated operation by operation by tools/gen_onnx_tests.py), and, as a
 *    sanity check, within a few ulps of the output's largest magnitude of PyTorch's binary32
 *    values (its BLAS sums in another order).  Skipped when the benchmarks are absent.
 * 2. The small models of tests/data/onnx/ops/ (every supported operator and attribute variant,
 *    opsets 8 to 17) import and evaluate to their references in the same three ways, with a few
 *    structural checks.
 * 3. Malformed and unsupported models give the right status and a message naming the node.
 * 4. The operators on Booleans and integer words, transposed convolution, random draws, DFT,
 *    Einsum and TopK's indices: their small models are in 2 (Boolean and integer inputs are
 *    given as numbers, outputs compared as numbers, exactly where every operation is exact);
 *    here their lowering, the sorts of the graph values, a cast failing at evaluation, the
 *    draws' determinism and range, and the refusals.
 * 5. Constant folding: a MatMul of two constants that would round stays a node (evaluated and
 *    bounded against MPFR), a shape computation on words and a Boolean and integer computation
 *    fold away, and the whole pass on a built graph.
 * The data of 1 to 4 is written by tools/gen_onnx_tests.py; the models of 5 are written here. */
#include <config.h>
#include <check.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <mpfr.h>
#include "graph/graph_impl.h"
#include "testutil.h"

#define F32_ULPS 8             /* binary32 tolerance, in ulps of the output's largest magnitude */

/* ---- reference files ---------------------------------------------------------------------- */

struct vec
{
  int64_t n;
  double *v;
};

struct refcase
{
  struct vec *in, *out64, *out32, *seq32, *mag;   /* mag: NULL entries when the file gives none */
  int only64;                  /* the file gives out64 only (no out32, f32seq) */
};

struct ref
{
  int n_in, n_out, n_cases;
  struct refcase *cases;
};

/* The inputs' generator of tools/gen_onnx_tests.py (splitmix64), bit for bit. */
static void
gen_values (double *out, int64_t n, uint64_t seed, double lo, double hi, int f32)
{
  uint64_t s = seed;
  for (int64_t i = 0; i < n; i++)
    {
      s += 0x9E3779B97F4A7C15ull;
      uint64_t z = s;
      z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
      z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
      z ^= z >> 31;
      double u = (double) (z >> 11) * 0x1p-53;
      double x = lo + (hi - lo) * u;
      out[i] = f32 ? (double) (float) x : x;
    }
}

static void
vec_free (struct vec *v, int n)
{
  for (int i = 0; v && i < n; i++)
    free (v[i].v);
  free (v);
}

static void
ref_free (struct ref *r)
{
  for (int c = 0; c < r->n_cases; c++)
    {
      vec_free (r->cases[c].in, r->n_in);
      vec_free (r->cases[c].out64, r->n_out);
      vec_free (r->cases[c].out32, r->n_out);
      vec_free (r->cases[c].seq32, r->n_out);
      vec_free (r->cases[c].mag, r->n_out);
    }
  free (r->cases);
  memset (r, 0, sizeof *r);
}

/* Reads "<tag> <n> v..." (or the generated forms of "in") from *P into V. */
static int
parse_vec (char **p, const char *tag, struct vec *v)
{
  char *s = *p;
  while (*s == '\n' || *s == ' ')
    s++;
  size_t tl = strlen (tag);
  if (strncmp (s, tag, tl) != 0 || s[tl] != ' ')
    return 0;
  s += tl;
  int gen = 0;
  while (*s == ' ')
    s++;
  if (strncmp (s, "vals ", 5) == 0)
    s += 5;
  else if (strncmp (s, "gen32 ", 6) == 0 || strncmp (s, "gen64 ", 6) == 0)
    {
      gen = s[3] == '3' ? 32 : 64;
      s += 6;
    }
  char *e;
  v->n = strtoll (s, &e, 10);
  if (e == s || v->n < 0)
    return 0;
  s = e;
  v->v = malloc ((size_t) (v->n ? v->n : 1) * sizeof (double));
  if (v->v == NULL)
    return 0;
  if (gen)
    {
      uint64_t seed = strtoull (s, &e, 10);
      double lo = strtod (e, &s);
      double hi = strtod (s, &e);
      s = e;
      gen_values (v->v, v->n, seed, lo, hi, gen == 32);
    }
  else
    for (int64_t i = 0; i < v->n; i++)
      {
        v->v[i] = strtod (s, &e);
        if (e == s)
          return 0;
        s = e;
      }
  *p = s;
  return 1;
}

static int
ref_load (const char *path, struct ref *r)
{
  memset (r, 0, sizeof *r);
  size_t len;
  char *buf = tu_read_file (path, &len), *p;
  if (buf == NULL)
    return 0;
  int ok = 0;
  /* Skip comment lines. */
  p = buf;
  while (*p == '#')
    {
      p = strchr (p, '\n');
      if (p == NULL)
        goto done;
      p++;
    }
  if (sscanf (p, "inputs %d\noutputs %d", &r->n_in, &r->n_out) != 2)
    goto done;
  for (;;)
    {
      char *c = strstr (p, "\ncase");
      if (c == NULL)
        break;
      p = c + 5;
      struct refcase *nc = realloc (r->cases, (size_t) (r->n_cases + 1) * sizeof *nc);
      if (nc == NULL)
        goto done;
      r->cases = nc;
      struct refcase *rc = &r->cases[r->n_cases++];
      rc->in = calloc ((size_t) r->n_in + 1, sizeof *rc->in);
      rc->out64 = calloc ((size_t) r->n_out + 1, sizeof *rc->out64);
      rc->out32 = calloc ((size_t) r->n_out + 1, sizeof *rc->out32);
      rc->seq32 = calloc ((size_t) r->n_out + 1, sizeof *rc->seq32);
      rc->mag = calloc ((size_t) r->n_out + 1, sizeof *rc->mag);
      if (!rc->in || !rc->out64 || !rc->out32 || !rc->seq32 || !rc->mag)
        goto done;
      for (int i = 0; i < r->n_in; i++)
        if (!parse_vec (&p, "in", &rc->in[i]))
          goto done;
      for (int i = 0; i < r->n_out; i++)
        if (!parse_vec (&p, "out64", &rc->out64[i]))
          goto done;
      /* A model whose binary32 evaluation order is not emulated gives out64 lines only. */
      {
        char *q = p;
        struct vec probe = { 0, NULL };
        rc->only64 = r->n_out > 0 && !parse_vec (&q, "out32", &probe);
        free (probe.v);
      }
      for (int i = 0; i < r->n_out && !rc->only64; i++)
        if (!parse_vec (&p, "out32", &rc->out32[i]))
          goto done;
      for (int i = 0; i < r->n_out && !rc->only64; i++)
        if (!parse_vec (&p, "f32seq", &rc->seq32[i]))
          goto done;
      for (int i = 0; i < r->n_out; i++)
        {
          char *q = p;
          if (!parse_vec (&q, "mag", &rc->mag[i]))
            break;
          p = q;
        }
    }
  ok = r->n_cases > 0;
done:
  free (buf);
  if (!ok)
    ref_free (r);
  return ok;
}

/* ---- comparing -------------------------------------------------------------------------- */

static struct
{
  int64_t values, exact32, seq_exact;
  double max_ulps32, max_rel64, max_tol32;
} stats[2];                    /* [0] benchmarks, [1] small models */

/* The binary32 forward is compared bit for bit with the emulation of its order only where C
 * evaluates float expressions in float (FLT_EVAL_METHOD 0, as on x86-64 with SSE and on
 * AArch64); with excess precision (x87) every operation may be rounded twice. */
#if defined FLT_EVAL_METHOD && FLT_EVAL_METHOD == 0
#define SEQ_EXACT 1
#else
#define SEQ_EXACT 0
#endif

/* The bits of the binary32 number X (a double that holds one exactly). */
static uint32_t
f32_bits (double x)
{
  float f = (float) x;
  uint32_t u;
  memcpy (&u, &f, sizeof u);
  return u;
}

static double
ulp32 (double x)
{
  float f = (float) fabs (x);
  if (f < FLT_MIN)
    return 0x1p-149;
  return (double) nextafterf (f, INFINITY) - (double) f;
}

/* Evaluates G on the case RC in both sorts and compares with the references; WHO names it. */
static void
check_case (const cn_graph *g, const struct ref *r, const struct refcase *rc, const char *who, int kind)
{
  int n_in = cn_graph_n_inputs (g), n_out = cn_graph_n_outputs (g);
  ck_assert_msg (n_in == r->n_in && n_out == r->n_out, "%s: graph has %d inputs/%d outputs, reference %d/%d", who,
                 n_in, n_out, r->n_in, r->n_out);
  cn_tensor *in = calloc ((size_t) n_in + 1, sizeof *in);
  cn_tensor *out = calloc ((size_t) n_out + 1, sizeof *out);
  ck_assert (in && out);
  for (int i = 0; i < n_in; i++)
    {
      /* A Boolean or integer input is given as binary64 numbers (integers), which cn_graph_eval
       * converts value-preservingly to its sort. */
      int v = cn_graph_input (g, i);
      cn_dtype dt = cn_graph_value_dtype (g, v);
      if (!cn_dtype_is_float (dt))
        dt = CN_DTYPE_F64;
      ck_assert_int_eq (cn_tensor_init (&in[i], dt, cn_graph_value_shape (g, v), NULL), CN_OK);
      ck_assert_msg (cn_tensor_numel (&in[i]) == rc->in[i].n, "%s: input %d has %lld elements, reference %lld", who, i,
                     (long long) cn_tensor_numel (&in[i]), (long long) rc->in[i].n);
      for (int64_t k = 0; k < rc->in[i].n; k++)
        if (dt == CN_DTYPE_F32)
          ((float *) in[i].data)[k] = (float) rc->in[i].v[k];
        else
          ((double *) in[i].data)[k] = rc->in[i].v[k];
    }
  for (int pass = 0; pass < 2; pass++)
    {
      cn_dtype dt = pass == 0 ? CN_DTYPE_F64 : CN_DTYPE_F32;
      cn_error e;
      cn_error_clear (&e);
      cn_status st = cn_graph_eval (g, dt, in, out, &e);
      ck_assert_msg (st == CN_OK, "%s: eval in %s: %s", who, cn_dtype_name (dt), e.msg);
      for (int o = 0; o < n_out; o++)
        {
          const struct vec *ref = pass == 0 || rc->only64 ? &rc->out64[o] : &rc->out32[o];
          ck_assert_msg (cn_tensor_numel (&out[o]) == ref->n, "%s: output %d has %lld elements, reference %lld", who,
                         o, (long long) cn_tensor_numel (&out[o]), (long long) ref->n);
          double scale = 0;
          for (int64_t k = 0; k < ref->n; k++)
            scale = fmax (scale, fabs (ref->v[k]));
          for (int64_t k = 0; k < ref->n; k++)
            {
              double y = cn_tensor_get_f64 (&out[o], k), x = ref->v[k];
              if (pass == 0)
                {
                  /* Within 1e-6 relative (entries far below the output's scale are measured
                   * against a thousandth of it). */
                  double den = fmax (fmax (fabs (x), 1e-3 * scale), DBL_MIN);
                  double rel = fabs (y - x) / den;
                  stats[kind].max_rel64 = fmax (stats[kind].max_rel64, rel);
                  ck_assert_msg (rel <= 1e-6, "%s: output %d[%lld] = %.17g in binary64, reference %.17g", who, o,
                                 (long long) k, y, x);
                }
              else if (rc->only64)
                {
                  /* Only the binary64 reference: the binary32 forward within 1e-4 of the
                   * output's scale (at least 1), as tools/gen_onnx_tests.py cross-checks its
                   * own binary32 evaluations. */
                  ck_assert_msg (fabs (y - x) <= 1e-4 * fmax (scale, 1.0), "%s: output %d[%lld] = %.9g in binary32, "
                                 "binary64 reference %.17g", who, o, (long long) k, y, x);
                }
              else
                {
                  /* Bit for bit the emulation of our binary32 order (the sign of zero
                   * included). */
                  double q = rc->seq32[o].v[k];
                  ck_assert_msg ((double) (float) q == q, "%s: f32seq reference %.17g of output %d[%lld] is not a "
                                 "binary32 number", who, q, o, (long long) k);
                  int same = f32_bits (y) == f32_bits (q);
                  stats[kind].seq_exact += same;
                  ck_assert_msg (same || !SEQ_EXACT, "%s: output %d[%lld] = %a (%.9g) in binary32, emulated sequential "
                                 "order %a (%.9g): %.1f ulps apart", who, o, (long long) k, y, y, q, q,
                                 fabs (y - q) / ulp32 (fmax (fabs (y), fabs (q))));
                  /* Within F32_ULPS ulps of the output's largest magnitude (normwise), plus,
                   * where the file gives the magnitude M of the computation along its active
                   * paths, four unit roundoffs of M: the summation orders differ (PyTorch's
                   * BLAS, our fixed sequential order), and cancellation leaves small outputs
                   * with the absolute error of the large terms they were summed from. */
                  double u = ulp32 (scale);
                  double m = rc->mag[o].v != NULL ? rc->mag[o].v[k] : 0;
                  double d = fabs (y - x) / u;
                  stats[kind].values++;
                  stats[kind].exact32 += y == x;
                  stats[kind].max_ulps32 = fmax (stats[kind].max_ulps32, d);
                  stats[kind].max_tol32 = fmax (stats[kind].max_tol32, fabs (y - x) / (F32_ULPS * u + 0x1p-22 * m));
                  double x64 = rc->out64[o].v[k];
                  ck_assert_msg (fabs (y - x) <= F32_ULPS * u + 0x1p-22 * m, "%s: output %d[%lld] = %.9g in binary32, "
                                 "reference %.9g (%.1f ulps; magnitude %.3g); errors from binary64: ours %.1f ulps, "
                                 "PyTorch's %.1f ulps", who, o, (long long) k, y, x, d, m, fabs (y - x64) / u,
                                 fabs (x - x64) / u);
                }
            }
          cn_tensor_clear (&out[o]);
        }
    }
  for (int i = 0; i < n_in; i++)
    cn_tensor_clear (&in[i]);
  free (in);
  free (out);
}

/* Loads MODEL and checks it against the reference file REFPATH. */
static void
check_model (const char *model, const char *refpath, const char *who, int kind)
{
  cn_graph *g = NULL;
  cn_error e;
  cn_error_clear (&e);
  cn_status st = cn_graph_load_onnx (model, &g, &e);
  ck_assert_msg (st == CN_OK, "%s: import failed: %s: %s", who, cn_status_name (st), e.msg);
  struct ref r;
  ck_assert_msg (ref_load (refpath, &r), "%s: cannot read the reference %s", who, refpath);
  for (int c = 0; c < r.n_cases; c++)
    check_case (g, &r, &r.cases[c], who, kind);
  ref_free (&r);
  cn_graph_free (g);
}

/* ---- lists ------------------------------------------------------------------------------- */

static char **bench_list, **ops_list;
static int n_bench, n_ops;

/* Reads the lines of PATH; returns the count (-1 if the file is missing). */
static int
read_list (const char *path, char ***out)
{
  size_t len;
  char *buf = tu_read_file (path, &len);
  *out = NULL;
  if (buf == NULL)
    return -1;
  int n = 0;
  for (char *line = strtok (buf, "\n"); line; line = strtok (NULL, "\n"))
    if (*line)
      {
        char **nl = realloc (*out, (size_t) (n + 1) * sizeof *nl);
        if (nl == NULL)
          break;
        *out = nl;
        (*out)[n++] = strdup (line);
      }
  free (buf);
  return n;
}

static char *
data_path (char *buf, size_t n, const char *fmt, const char *a, const char *b)
{
  char rel[512];
  snprintf (rel, sizeof rel, fmt, a, b);
  snprintf (buf, n, "%s/tests/data/onnx/%s", tu_srcdir (), rel);
  return buf;
}

/* ---- 1. benchmark networks ------------------------------------------------------------------ */

START_TEST (benchmark_forward)
{
  const char *bdir = tu_benchmarks ();
  if (bdir == NULL)
    return;
  char bench[128], net[256], model[4096], ref[4096];
  ck_assert_int_eq (sscanf (bench_list[_i], "%127s %255s", bench, net), 2);
  snprintf (model, sizeof model, "%s/%s/onnx/%s.onnx", bdir, bench, net);
  data_path (ref, sizeof ref, "ref/%s__%s.txt", bench, net);
  check_model (model, ref, bench_list[_i], 0);
}
END_TEST

START_TEST (benchmark_list)
{
  if (tu_benchmarks () == NULL)
    return;
  /* 45 acasxu, 3 mnist_fc, 3 oval21, 5 test networks. */
  ck_assert_int_eq (n_bench, 56);
}
END_TEST

/* ---- 2. small models ------------------------------------------------------------------------- */

START_TEST (ops_forward)
{
  char model[4096], ref[4096];
  data_path (model, sizeof model, "ops/%s%s", ops_list[_i], ".onnx");
  data_path (ref, sizeof ref, "ops/%s%s", ops_list[_i], ".txt");
  check_model (model, ref, ops_list[_i], 1);
}
END_TEST

static cn_graph *
load_ops (const char *name)
{
  char path[4096];
  data_path (path, sizeof path, "ops/%s%s", name, ".onnx");
  cn_graph *g = NULL;
  cn_error e;
  cn_error_clear (&e);
  cn_status st = cn_graph_load_onnx (path, &g, &e);
  ck_assert_msg (st == CN_OK, "%s: %s", name, e.msg);
  return g;
}

/* The operators of G's nodes, as "op,op,..." */
static char *
node_ops (const cn_graph *g, char *buf, size_t n)
{
  buf[0] = '\0';
  for (int k = 0; k < cn_graph_n_nodes (g); k++)
    {
      size_t l = strlen (buf);
      snprintf (buf + l, n - l, "%s%s", k ? "," : "", cn_op_name (cn_graph_node_op (g, k)));
    }
  return buf;
}

static void
expect_ops (const char *model, const char *ops)
{
  char buf[1024];
  cn_graph *g = load_ops (model);
  ck_assert_msg (strcmp (node_ops (g, buf, sizeof buf), ops) == 0, "%s: nodes %s, expected %s", model, buf, ops);
  cn_graph_free (g);
}

START_TEST (structure)
{
  /* Gemm with a constant weight is one linear node; transposes of constants are folded;
   * alpha of f32 weights folds exactly, of f64 weights it needs a mul node. */
  expect_ops ("o9_gemm_transB", "linear");
  expect_ops ("o11_gemm_alpha_beta", "linear");
  expect_ops ("o11_gemm_alpha_odd", "linear,add");
  expect_ops ("o17_gemm_f64", "linear,mul,add");
  expect_ops ("o13_gemm_transA_input", "permute,linear");
  expect_ops ("o13_gemm_transA_const", "matmul,add");
  /* Constant operands are expanded at import; other operands get broadcast nodes. */
  expect_ops ("o8_binary_const", "add,sub,mul,div");
  expect_ops ("o13_binary_bcast", "broadcast,add,broadcast,mul,broadcast,sub,broadcast,div");
  /* Shape computations and constant subgraphs fold away. */
  expect_ops ("o9_shape_chain", "reshape");
  expect_ops ("o13_shape_chain", "reshape");
  expect_ops ("o13_fold", "matmul,add");
  expect_ops ("o9_constant_of_shape", "mul");
  expect_ops ("o13_reduce_noop", "relu");
  expect_ops ("o8_dropout", "relu");
  expect_ops ("o17_identity", "relu");
  expect_ops ("o11_conv_group_nobias", "conv");
  /* Resizing: an integer nearest upsampling is reshape, broadcast, reshape; other index maps
   * slices and gathers; linear maps a linear node on the last axis (permutes around it for the
   * others), with a div where the weights are not binary64 numbers (thirds on axis 2, halves on
   * axis 3 of o13_resize_linear_align_corners); the identity no node; sizes from a shape
   * computation and Size fold away.  ScatterND: reshapes around one scatter (a constant
   * update's reshape folds). */
  expect_ops ("o9_upsample_nearest", "reshape,broadcast,reshape");
  expect_ops ("o13_resize_nearest_down", "slice,slice");
  expect_ops ("o13_resize_linear_half_pixel", "linear,permute,linear,permute");
  expect_ops ("o13_resize_linear_align_corners", "linear,permute,linear,div,permute");
  expect_ops ("o13_resize_nearest_tf_crop", "pad,gather,pad,gather");
  expect_ops ("o13_resize_identity", "");
  expect_ops ("o13_resize_sizes_from_shape", "linear,permute,linear,permute");
  expect_ops ("o13_size_fold", "div");
  expect_ops ("o13_scatter_nd", "reshape,scatter,reshape");
  expect_ops ("o13_scatter_nd_update_input", "reshape,reshape,scatter,reshape");

  /* Names: ONNX node names on nodes ("<op_type>#<index>" when empty), ONNX value names on values. */
  cn_graph *g = load_ops ("o8_relu_neg");
  ck_assert_str_eq (cn_graph_node_name (g, 0), "neg");
  ck_assert_str_eq (cn_graph_node_name (g, 1), "relu");
  ck_assert_str_eq (cn_graph_value_name (g, cn_graph_node_output (g, 0, 0)), "n");
  ck_assert_str_eq (cn_graph_value_name (g, cn_graph_output (g, 0)), "y");
  ck_assert_str_eq (cn_graph_value_name (g, cn_graph_input (g, 0)), "x");
  cn_graph_free (g);
  g = load_ops ("o8_binary_const");
  ck_assert_str_eq (cn_graph_node_name (g, 0), "Add#0");
  ck_assert_str_eq (cn_graph_node_name (g, 3), "Div#3");
  ck_assert_str_eq (cn_graph_value_name (g, cn_graph_output (g, 0)), "y");
  cn_graph_free (g);
  /* The linear node reads the stored weight itself, under its name. */
  g = load_ops ("o9_gemm_transB");
  ck_assert_str_eq (cn_graph_value_name (g, cn_graph_node_input (g, 0, 1)), "w");
  ck_assert_ptr_nonnull (cn_graph_value_constant (g, cn_graph_node_input (g, 0, 1)));
  cn_graph_free (g);
  /* A symbolic batch extent is taken as 1; sorts are kept. */
  g = load_ops ("o8_symbolic_batch");
  char b[64];
  ck_assert_str_eq (cn_shape_format (cn_graph_value_shape (g, cn_graph_input (g, 0)), b, sizeof b), "[1,4]");
  ck_assert_int_eq (cn_graph_value_dtype (g, cn_graph_input (g, 0)), CN_DTYPE_F32);
  cn_graph_free (g);
  g = load_ops ("o11_f64");
  ck_assert_int_eq (cn_graph_value_dtype (g, cn_graph_input (g, 0)), CN_DTYPE_F64);
  cn_graph_free (g);
}
END_TEST

START_TEST (buffer_api)
{
  char path[4096];
  data_path (path, sizeof path, "ops/%s%s", "o11_conv_basic", ".onnx");
  size_t len;
  char *buf = tu_read_file (path, &len);
  ck_assert_ptr_nonnull (buf);
  cn_graph *g = NULL, *h = load_ops ("o11_conv_basic");
  cn_error e;
  cn_error_clear (&e);
  ck_assert_int_eq (cn_graph_load_onnx_buffer (buf, len, &g, &e), CN_OK);
  ck_assert_int_eq (cn_graph_n_nodes (g), cn_graph_n_nodes (h));
  ck_assert_int_eq (cn_graph_n_values (g), cn_graph_n_values (h));
  cn_graph_free (g);
  cn_graph_free (h);
  free (buf);
}
END_TEST

/* ---- 3. malformed and unsupported models ----------------------------------------------------- */

/* Loads bad/MODEL.onnx: expects status ST and a message holding each of the WORDS (NULL-ended);
 * WHAT names the case in the messages. */
static void
expect_error (const char *what, const char *model, cn_status st, const char *const *words)
{
  char path[4096];
  data_path (path, sizeof path, "bad/%s%s", model, ".onnx");
  cn_graph *g = (cn_graph *) 1;
  cn_error e;
  cn_error_clear (&e);
  cn_status got = cn_graph_load_onnx (path, &g, &e);
  ck_assert_msg (got == st, "%s (%s): status %s, expected %s (%s)", what, model, cn_status_name (got),
                 cn_status_name (st), e.msg);
  ck_assert_ptr_null (g);
  ck_assert_int_eq (e.code, st);
  ck_assert_msg (strncmp (e.msg, "onnx: ", 6) == 0, "%s (%s): message '%s'", what, model, e.msg);
  for (const char *const *w = words; *w != NULL; w++)
    ck_assert_msg (strstr (e.msg, *w) != NULL, "%s (%s): message '%s' lacks '%s'", what, model, e.msg, *w);
}

/* The malformed and refused models: bad/MODEL.onnx, the status expected and the words its
 * message must hold (at most 4: the last slot stays NULL and ends the list); NAME names the
 * case in the failure messages. */
static const struct
{
  const char *name, *model;
  cn_status st;
  const char *words[5];
} bad_models[] = {
  { "bad_truncated", "truncated", CN_EPARSE, { "malformed" } },
  { "bad_random", "random", CN_EPARSE, { NULL } },
  { "bad_empty", "empty", CN_EPARSE, { "no graph" } },
  { "bad_unsupported_op", "lstm", CN_EUNSUPPORTED, { "node 'rnn' (LSTM): operator not supported" } },
  { "bad_unsupported_op_lstm", "lstm", CN_EUNSUPPORTED, { "'rnn'", "LSTM" } },
  { "bad_domain", "domain", CN_EUNSUPPORTED, { "'custom'", "com.example" } },
  { "bad_attr_pad_reflect", "pad_reflect", CN_EUNSUPPORTED, { "'padder'", "(Pad)", "reflect" } },
  { "bad_attr_ceil_mode", "maxpool_ceil", CN_EUNSUPPORTED, { "'pool'", "(MaxPool)", "ceil_mode" } },
  { "bad_attr_unknown", "unknown_attr", CN_EUNSUPPORTED, { "'r'", "(Relu)", "alpha" } },
  { "bad_external", "external", CN_EUNSUPPORTED, { "'fc'", "(Gemm)", "'w'", "external" } },
  { "bad_missing_init", "missing_init", CN_EPARSE, { "'add'", "(Add)", "'bias'" } },
  { "bad_matmul_shape", "matmul_shape", CN_ESHAPE, { "'mm'", "(MatMul)", "[1,5]", "[4,3]" } },
  { "bad_add_shape", "add_shape", CN_ESHAPE, { "'add'", "(Add)", "[2,3]", "[4]" } },
  { "bad_nan_weight", "nan_weight", CN_ENUMERIC, { "'fc'", "(Gemm)", "NaN", "'w'" } },
  { "bad_raw_size", "raw_size", CN_EPARSE, { "'fc'", "(Gemm)", "'w'", "raw_data" } },
  { "bad_raw_size_unused", "unused_raw_size", CN_EPARSE, { "unused initializer", "'w'", "raw_data" } },
  { "bad_elem_type", "complex_weight", CN_EUNSUPPORTED, { "'mm'", "(MatMul)", "COMPLEX64" } },
  { "bad_int_input", "int_input", CN_EUNSUPPORTED, { "'r'", "(Relu)", "'x'", "INT64" } },
  { "bad_opset", "opset18", CN_EUNSUPPORTED, { "opset 18" } },
  /* Attribute values and uses of the later operators that are refused. */
  { "bad_mod_fmod", "mod_fmod2", CN_EUNSUPPORTED, { "'modulo'", "(Mod)", "fmod = 2" } },
  { "bad_clip_input_bound", "clip_input_bound", CN_EUNSUPPORTED, { "'clamp'", "(Clip)", "'lo'" } },
  { "bad_shrink_bias", "shrink_bias", CN_EUNSUPPORTED, { "'shr'", "(Shrink)", "bias" } },
  { "bad_topk_unsorted", "topk_unsorted", CN_EUNSUPPORTED, { "'top'", "(TopK)", "sorted = 0" } },
  { "bad_cumsum_exclusive", "cumsum_exclusive", CN_EUNSUPPORTED, { "'cs'", "(CumSum)", "exclusive" } },
  { "bad_gathernd_batch_dims", "gathernd_batch_dims", CN_EUNSUPPORTED, { "'gnd'", "(GatherND)", "batch_dims" } },
  /* The operators on the new rules. */
  { "bad_isinf_none", "isinf_none", CN_EUNSUPPORTED, { "'inf'", "(IsInf)", "detect_positive = 0" } },
  { "bad_bitshift_signed", "bitshift_signed", CN_EUNSUPPORTED, { "'shift'", "(BitShift)", "INT8", "unsigned" } },
  { "bad_bitshift_direction", "bitshift_no_direction", CN_EPARSE, { "'shift'", "(BitShift)", "direction" } },
  { "bad_and_float", "and_float", CN_EUNSUPPORTED, { "'conj'", "(And)", "'x'", "BOOL expected" } },
  { "bad_relu_bool", "relu_bool", CN_EUNSUPPORTED, { "'r'", "(Relu)", "'b'", "BOOL" } },
  { "bad_cast_string", "cast_string", CN_EUNSUPPORTED, { "'text'", "(Cast)", "STRING" } },
  { "bad_convtranspose_output_shape", "convtranspose_odd_output_shape", CN_EUNSUPPORTED,
    { "'up'", "(ConvTranspose)", "output_shape", "odd" } },
  { "bad_convtranspose_same", "convtranspose_same_odd", CN_EUNSUPPORTED, { "'up'", "auto_pad", "odd" } },
  { "bad_random_noseed", "random_noseed", CN_EUNSUPPORTED, { "'draw'", "(RandomUniform)", "seed" } },
  { "bad_random_seed", "random_seed_frac", CN_EUNSUPPORTED, { "'draw'", "(RandomNormalLike)", "seed = 1.5" } },
  { "bad_random_dtype", "random_dtype", CN_EUNSUPPORTED, { "'draw'", "dtype = FLOAT16" } },
  { "bad_dft_inverse", "dft_inverse", CN_EUNSUPPORTED, { "'fft'", "(DFT)", "inverse = 1" } },
  { "bad_dft_twosided", "dft_twosided", CN_EUNSUPPORTED, { "'fft'", "(DFT)", "onesided = 0" } },
  { "bad_dft_complex", "dft_complex", CN_EUNSUPPORTED, { "'fft'", "(DFT)", "[1,8,2]", "real" } },
  { "bad_einsum_ellipsis", "einsum_ellipsis", CN_EUNSUPPORTED, { "'ein'", "'...ij,...jk->...ik'", "ellipsis" } },
  { "bad_einsum_diagonal", "einsum_diagonal", CN_EUNSUPPORTED, { "'ein'", "'ii->i'", "diagonal" } },
  { "bad_einsum_three", "einsum_three", CN_EUNSUPPORTED, { "'ein'", "'ij,jk,kl->il'", "two operands" } },
  /* Data movement of Booleans and words: one sort per node, Boolean scatters replace, padding
   * values of the data's sort. */
  { "bad_concat_sorts", "concat_sorts", CN_EUNSUPPORTED, { "'cat'", "(Concat)", "'i'", "INT32 values where" } },
  { "bad_concat_sorts_first", "concat_sorts", CN_EUNSUPPORTED, { "'cat'", "input 0 ('b') holds BOOL" } },
  { "bad_where_sorts", "where_sorts", CN_EUNSUPPORTED, { "'sel'", "(Where)", "FLOAT values where", "UINT8" } },
  { "bad_scatter_bool_add", "scatter_bool_add", CN_EUNSUPPORTED, { "'sc'", "(ScatterElements)", "'add'", "BOOL" } },
  { "bad_pad_bool_value", "pad_bool_value", CN_EINVAL, { "'padder'", "(Pad)", "0.5", "Boolean" } },
  { "bad_pad_value_sort", "pad_value_sort", CN_EUNSUPPORTED, { "'padder'", "(Pad)", "INT32 values where", "INT8" } },
  /* Integer arithmetic: Booleans have none; operands of one sort; an integer exponent must fit
   * the base's sort. */
  { "bad_add_bool", "add_bool", CN_EUNSUPPORTED, { "'plus'", "(Add)", "'b'", "no arithmetic" } },
  { "bad_neg_bool", "neg_bool", CN_EUNSUPPORTED, { "'minus'", "(Neg)", "'b'", "no arithmetic" } },
  { "bad_add_sorts", "add_sorts", CN_EUNSUPPORTED, { "'plus'", "'i'", "INT64 values where", "INT32" } },
  { "bad_mul_float_int", "mul_float_int", CN_EUNSUPPORTED, { "'times'", "(Mul)", "'k'", "holds FLOAT" } },
  { "bad_pow_exponent_range", "pow_exponent_range", CN_EUNSUPPORTED, { "'power'", "(Pow)", "300", "INT8" } },
  /* Upsample, Resize and ScatterND: cubic, antialias on a downsampling, scales and sizes that are
   * not constants, readings where the specification's text and its reference differ, an output
   * extent that binary32 computes otherwise, repeated indices without a reduction. */
  { "bad_resize_cubic", "resize_cubic", CN_EUNSUPPORTED, { "'rs'", "(Resize)", "mode 'cubic' is not supported" } },
  { "bad_resize_antialias", "resize_antialias", CN_EUNSUPPORTED, { "'rs'", "antialias = 1", "downsampling by 0.5" } },
  { "bad_resize_scales_input", "resize_scales_input", CN_EUNSUPPORTED,
    { "'rs'", "(Resize)", "the scales (input 2, 's') must be a constant" } },
  { "bad_resize_sizes_input", "resize_sizes_input", CN_EUNSUPPORTED,
    { "'rs'", "the sizes (input 3, 'z') must be a constant" } },
  { "bad_resize_both", "resize_both", CN_EINVAL, { "'rs'", "both scales and sizes" } },
  { "bad_resize_align_corners_scale", "resize_align_corners_scale", CN_EUNSUPPORTED,
    { "'rs'", "align_corners with scale 1.60000002", "axis 2", "disagree" } },
  { "bad_resize_pytorch_extent1", "resize_pytorch_extent1", CN_EUNSUPPORTED,
    { "'rs'", "pytorch_half_pixel", "extent of 1", "disagree" } },
  { "bad_resize_extent_binary32", "resize_extent_binary32", CN_EUNSUPPORTED,
    { "'rs'", "floor(10 x 0.699999988)", "is 6", "binary32" } },
  { "bad_resize10_nearest_down", "resize10_nearest_down", CN_EUNSUPPORTED,
    { "'rs'", "nearest downsampling by 0.60000002", "Resize-10 leaves open" } },
  { "bad_resize10_attr", "resize10_attr", CN_EUNSUPPORTED,
    { "'rs'", "'coordinate_transformation_mode' is not part of Resize-10" } },
  { "bad_resize_exclude_nearest", "resize_exclude_nearest", CN_EUNSUPPORTED,
    { "'rs'", "exclude_outside = 1 leaves no weight", "axis 0" } },
  { "bad_resize_linear_int", "resize_linear_int", CN_EUNSUPPORTED, { "'rs'", "linear interpolation of INT32" } },
  { "bad_resize_tf_half_pixel", "resize_tf_half_pixel_o13", CN_EUNSUPPORTED,
    { "'rs'", "'tf_half_pixel_for_nn' is not part of Resize from opset 13" } },
  { "bad_upsample_below_one", "upsample_below_one", CN_EINVAL, { "'up'", "(Upsample)", "scale 0.5 on axis 2" } },
  { "bad_upsample_scales_input", "upsample_scales_input", CN_EUNSUPPORTED,
    { "'up'", "the scales (input 1, 's') must be a constant" } },
  { "bad_scatter_nd_duplicate", "scatter_nd_duplicate", CN_EINVAL,
    { "'snd'", "(ScatterND)", "index position 2 repeats an index", "'none'" } },
  { "bad_scatter_elements_duplicate", "scatter_elements_duplicate", CN_EINVAL,
    { "'sel'", "(ScatterElements)", "index position 2 repeats an output entry", "'none'" } },
  { "bad_scatter_nd_indices_input", "scatter_nd_indices_input", CN_EUNSUPPORTED,
    { "'snd'", "the indices (input 1, 'i') must be a constant" } },
  { "bad_scatter_nd_bool_add", "scatter_nd_bool_add", CN_EUNSUPPORTED, { "'snd'", "'add'", "BOOL" } },
};

START_TEST (bad_model)
{
  expect_error (bad_models[_i].name, bad_models[_i].model, bad_models[_i].st, bad_models[_i].words);
}
END_TEST

/* ---- 4. element sorts and the new rules -------------------------------------------------- */

/* The sort of graph input I of G and of output O. */
static cn_dtype
in_dtype (const cn_graph *g, int i)
{
  return cn_graph_value_dtype (g, cn_graph_input (g, i));
}

static cn_dtype
out_dtype (const cn_graph *g, int o)
{
  return cn_graph_value_dtype (g, cn_graph_output (g, o));
}

START_TEST (sorts_structure)
{
  /* Constant comparisons, logic, Where and Cast fold away (a shape computation). */
  expect_ops ("o13_logic_fold", "mul");
  expect_ops ("o13_fold_sorts", "");
  /* Equal of Booleans and of words is one eq node (the comparisons take any one sort);
   * Booleans and words of another shape go through a broadcast node, never a cast round trip
   * through the model's scalar. */
  expect_ops ("o13_equal_bool_int", "eq,eq,eq");
  expect_ops ("o13_logic", "logicalNot,logicalAnd,broadcast,logicalOr,logicalXor,logicalAnd");
  expect_ops ("o13_isnan_isinf", "isNaN,isInf,isInf,gt,logicalAnd,isInf,lt,logicalAnd");
  expect_ops ("o16_where", "gt,select,broadcast,broadcast,select,select");
  /* Data movement of Booleans and words: the same nodes at every sort, no cast anywhere. */
  /* Gather of a non-constant tensor at indices in no progression: gather nodes, no refusal */
  expect_ops ("o13_gather_any", "gather,reshape,gather,reshape");
  expect_ops ("o13_move_bool", "slice,reshape,permute,reshape,reshape,reshape,cat,slice,slice,reshape,gather,scatter,"
              "reshape,broadcast,reshape,pad,broadcast,select,reshape,permute,reshape,reshape,permute,reshape,slice,"
              "slice");
  expect_ops ("o16_move_int8", "slice,reshape,permute,reshape,reshape,reshape,cat,slice,slice,reshape,gather,scatter,"
              "reshape,broadcast,reshape,pad,broadcast,select,reshape,permute,reshape,reshape,permute,reshape,slice,"
              "slice");
  expect_ops ("o8_move_bool_attrs", "pad,slice,broadcast,cat");
  /* Integer arithmetic: Mod fmod = 1 on words is div (trunc), mul, sub; constants folded. */
  expect_ops ("o13_arith_i8", "broadcast,add,broadcast,sub,broadcast,mul,neg,div,remainder,div,mul,sub,div,mul,"
              "broadcast,max,max,broadcast,min,pow,pow,broadcast,lt,ge,eq,sub");
  expect_ops ("o11_bitshift", "bitwiseLeftShift,shiftRightLogical,bitwiseLeftShift");
  expect_ops ("o11_convtranspose", "convTranspose");
  /* Bernoulli: one constant probability is bernoulliMask, others lt (randUniform, p). */
  expect_ops ("o15_bernoulli", "randUniform,lt,cast,bernoulliMask,cast,randUniform,lt,bernoulliMask");
  expect_ops ("o17_dft", "reshape,rfft,reshape,slice,rfft");
  expect_ops ("o17_dft_axis", "reshape,permute,rfft,permute,reshape,pad,rfft");
  expect_ops ("o12_einsum", "contract,permute,reduce,contract,contract");
  expect_ops ("o12_einsum_batch", "matmul,matmul,permute,permute,reshape,matmul,reshape,permute,reduce,permute");

  /* Boolean and integer graph inputs keep their sorts; so do the outputs. */
  cn_graph *g = load_ops ("o13_cast_values");
  ck_assert_int_eq (in_dtype (g, 0), CN_DTYPE_F32);
  ck_assert_int_eq (in_dtype (g, 1), CN_DTYPE_I32);
  ck_assert_int_eq (out_dtype (g, 0), CN_DTYPE_I32);
  ck_assert_int_eq (out_dtype (g, 1), CN_DTYPE_BOOL);
  ck_assert_int_eq (out_dtype (g, 4), CN_DTYPE_U8);
  ck_assert (cn_dtype_is_float (out_dtype (g, 2)));
  cn_graph_free (g);
  g = load_ops ("o13_logic");
  for (int i = 0; i < 3; i++)
    ck_assert_int_eq (in_dtype (g, i), CN_DTYPE_BOOL);
  cn_graph_free (g);
  g = load_ops ("o11_bitshift");
  ck_assert_int_eq (in_dtype (g, 0), CN_DTYPE_U8);
  /* the constant amount enters the graph in its ONNX sort, expanded to [2,3] */
  const cn_tensor *k = cn_graph_value_constant (g, cn_graph_node_input (g, 2, 1));
  ck_assert_ptr_nonnull (k);
  ck_assert_int_eq (k->dtype, CN_DTYPE_U8);
  ck_assert_int_eq (cn_tensor_numel (k), 6);
  cn_graph_free (g);
  /* The key of a draw is the seed, a u64 constant []. */
  g = load_ops ("o13_random");
  k = cn_graph_value_constant (g, cn_graph_node_input (g, 0, 0));
  ck_assert_ptr_nonnull (k);
  ck_assert_int_eq (k->dtype, CN_DTYPE_U64);
  ck_assert_int_eq (k->shape.rank, 0);
  ck_assert (cn_tensor_get_f64 (k, 0) == 7);
  cn_graph_free (g);
  /* TopK's Indices are output 1 of the topk node that computes the Values (output 0). */
  g = load_ops ("o13_topk_indices_ties");
  for (int o = 0; o < cn_graph_n_outputs (g); o++)
    {
      int v = cn_graph_output (g, o), node = cn_graph_value_producer (g, v);
      if (node >= 0 && cn_graph_node_op (g, node) == CN_OP_TOPK)
        ck_assert (cn_graph_node_output (g, node, 0) == v || cn_graph_node_output (g, node, 1) == v);
    }
  {
    int found = 0;
    for (int o = 0; o < cn_graph_n_outputs (g); o++)
      {
        int v = cn_graph_output (g, o), node = cn_graph_value_producer (g, v);
        found |= node >= 0 && cn_graph_node_op (g, node) == CN_OP_TOPK && cn_graph_node_output (g, node, 1) == v;
      }
    ck_assert_msg (found, "no output of o13_topk_indices_ties is a topk node's indices");
  }
  cn_graph_free (g);
  char path[4096];
  data_path (path, sizeof path, "bad/%s%s", "topk_indices", ".onnx");
  ck_assert_int_eq (cn_graph_load_onnx (path, &g, NULL), CN_OK);
  ck_assert_int_eq (cn_graph_n_outputs (g), 2);
  cn_graph_free (g);
  /* Models once refused (words broadcast, Where of words, Less of words; a fold that would round,
   * which stays a node; Trilu of a graph input, a select with a constant mask) now import. */
  static const struct { const char *model, *ops; cn_dtype out; } once_bad[] = {
    { "bitshift_broadcast", "broadcast,shiftRightLogical", CN_DTYPE_U8 },
    { "where_int", "select", CN_DTYPE_I32 },
    { "less_int", "lt", CN_DTYPE_BOOL },
    { "inexact_fold", "div,mul", CN_DTYPE_F32 },
    { "trilu_input", "select", CN_DTYPE_F32 },
  };
  for (size_t m = 0; m < sizeof once_bad / sizeof once_bad[0]; m++)
    {
      char ops[1024];
      cn_error e;
      cn_error_clear (&e);
      data_path (path, sizeof path, "bad/%s%s", once_bad[m].model, ".onnx");
      ck_assert_msg (cn_graph_load_onnx (path, &g, &e) == CN_OK, "%s: %s", once_bad[m].model, e.msg);
      ck_assert_str_eq (node_ops (g, ops, sizeof ops), once_bad[m].ops);
      ck_assert_int_eq (out_dtype (g, 0), once_bad[m].out);
      cn_graph_free (g);
    }
  /* The movement models keep their sorts: every output holds the data's sort, and the
   * constants they move enter the graph in their ONNX sort. */
  static const struct { const char *model; cn_dtype sort; } moved[] = {
    { "o13_move_bool", CN_DTYPE_BOOL }, { "o16_move_int8", CN_DTYPE_I8 }, { "o16_move_uint16", CN_DTYPE_U16 },
    { "o16_move_int64", CN_DTYPE_I64 }, { "o8_move_bool_attrs", CN_DTYPE_BOOL },
  };
  for (size_t m = 0; m < sizeof moved / sizeof moved[0]; m++)
    {
      g = load_ops (moved[m].model);
      for (int o = 0; o < cn_graph_n_outputs (g); o++)
        ck_assert_msg (out_dtype (g, o) == moved[m].sort, "%s: output %d holds %s", moved[m].model, o,
                       cn_dtype_name (out_dtype (g, o)));
      int cats = 0;
      for (int k = 0; k < cn_graph_n_nodes (g); k++)
        {
          ck_assert_int_ne (cn_graph_node_op (g, k), CN_OP_CAST);
          if (cn_graph_node_op (g, k) == CN_OP_CAT && strcmp (moved[m].model, "o8_move_bool_attrs") != 0)
            {
              /* Concat (x, k, x): k a constant [2, 1] of the data's sort */
              const cn_tensor *c = cn_graph_value_constant (g, cn_graph_node_input (g, k, 1));
              ck_assert_ptr_nonnull (c);
              ck_assert_int_eq (c->dtype, moved[m].sort);
              ck_assert_int_eq (cn_tensor_numel (c), 2);
              cats++;
            }
        }
      ck_assert_int_eq (cats, strcmp (moved[m].model, "o8_move_bool_attrs") != 0);
      cn_graph_free (g);
    }
}
END_TEST

/* Integer arithmetic on words: every div node of the integer models truncates, every output
 * holds the operands' sort (or BOOL for the comparisons), the integer exponent of Pow (b, 2) is a
 * constant of the base's sort, and a zero divisor fails at evaluation (Div and Mod), in both
 * evaluation sorts, naming the operator. */
START_TEST (sorts_integer_arith)
{
  static const struct { const char *model; cn_dtype sort; } am[] = {
    { "o13_arith_i8", CN_DTYPE_I8 }, { "o13_arith_u8", CN_DTYPE_U8 }, { "o13_arith_i16", CN_DTYPE_I16 },
    { "o13_arith_i32", CN_DTYPE_I32 },
  };
  for (size_t m = 0; m < sizeof am / sizeof am[0]; m++)
    {
      cn_graph *g = load_ops (am[m].model);
      int divs = 0, pows = 0;
      for (int k = 0; k < cn_graph_n_nodes (g); k++)
        {
          cn_op op = cn_graph_node_op (g, k);
          ck_assert_int_ne (op, CN_OP_CAST);
          if (op == CN_OP_DIV)
            {
              const cn_params_div *p = cn_graph_node_params (g, k);
              ck_assert_int_eq (p->rounding, CN_DIV_TRUNC);
              divs++;
            }
          if (op == CN_OP_POW)
            {
              const cn_tensor *e = cn_graph_value_constant (g, cn_graph_node_input (g, k, 1));
              ck_assert_ptr_nonnull (e);
              ck_assert_int_eq (e->dtype, am[m].sort);
              pows++;
            }
        }
      ck_assert_int_eq (divs, 3);
      ck_assert_int_eq (pows, 2);
      for (int o = 0; o < cn_graph_n_outputs (g); o++)
        {
          cn_dtype t = out_dtype (g, o);
          ck_assert_msg (t == am[m].sort || t == CN_DTYPE_BOOL, "%s: output %d holds %s", am[m].model, o,
                         cn_dtype_name (t));
        }
      /* the divisor d (input 2) with a zero */
      int n_in = cn_graph_n_inputs (g), n_out = cn_graph_n_outputs (g);
      cn_tensor in[4], out[32];
      ck_assert_int_le (n_out, 32);
      memset (out, 0, sizeof out);
      for (int i = 0; i < n_in; i++)
        {
          ck_assert_int_eq (cn_tensor_init (&in[i], CN_DTYPE_F64, cn_graph_value_shape (g, cn_graph_input (g, i)),
                                            NULL), CN_OK);
          for (int64_t j = 0; j < cn_tensor_numel (&in[i]); j++)
            ((double *) in[i].data)[j] = 1 + (double) j;
        }
      ck_assert_int_eq (cn_graph_eval (g, CN_DTYPE_F64, in, out, NULL), CN_OK);
      for (int o = 0; o < n_out; o++)
        cn_tensor_clear (&out[o]);
      ((double *) in[2].data)[4] = 0;
      for (int pass = 0; pass < 2; pass++)
        {
          cn_error e;
          cn_error_clear (&e);
          cn_status st = cn_graph_eval (g, pass ? CN_DTYPE_F32 : CN_DTYPE_F64, in, out, &e);
          ck_assert_msg (st == CN_ENUMERIC, "%s: status %s: %s", am[m].model, cn_status_name (st), e.msg);
          ck_assert_msg (strstr (e.msg, "div") != NULL || strstr (e.msg, "remainder") != NULL, "%s", e.msg);
        }
      for (int i = 0; i < n_in; i++)
        cn_tensor_clear (&in[i]);
      cn_graph_free (g);
    }
}
END_TEST

/* A value cast to an integer sort outside its range fails at evaluation, in both sorts, before
 * any output exists. */
START_TEST (sorts_cast_range)
{
  cn_graph *g = load_ops ("o13_cast_values");
  cn_tensor in[2], out[8];
  memset (out, 0, sizeof out);
  for (int i = 0; i < 2; i++)
    ck_assert_int_eq (cn_tensor_init (&in[i], CN_DTYPE_F64, cn_graph_value_shape (g, cn_graph_input (g, i)), NULL),
                      CN_OK);
  ((double *) in[0].data)[4] = 3e9;            /* beyond int32 */
  for (int pass = 0; pass < 2; pass++)
    {
      cn_error e;
      cn_error_clear (&e);
      cn_status st = cn_graph_eval (g, pass ? CN_DTYPE_F32 : CN_DTYPE_F64, in, out, &e);
      ck_assert_msg (st == CN_ENUMERIC, "status %s: %s", cn_status_name (st), e.msg);
      ck_assert_msg (strstr (e.msg, "cast") != NULL, "%s", e.msg);
    }
  ((double *) in[0].data)[4] = -2147483648.5;  /* truncates to INT32_MIN: in range */
  ck_assert_int_eq (cn_graph_eval (g, CN_DTYPE_F64, in, out, NULL), CN_OK);
  ck_assert (cn_tensor_get_f64 (&out[0], 4) == -2147483648.0);
  for (int o = 0; o < cn_graph_n_outputs (g); o++)
    cn_tensor_clear (&out[o]);
  for (int i = 0; i < 2; i++)
    cn_tensor_clear (&in[i]);
  cn_graph_free (g);
}
END_TEST

/* The draws depend on the seed only: two evaluations agree, the inputs do not matter, and the
 * uniform draws lie in [low, high). */
START_TEST (sorts_random)
{
  cn_graph *g = load_ops ("o13_random");
  cn_tensor in, a[5], b[5];
  ck_assert_int_eq (cn_tensor_init (&in, CN_DTYPE_F32, cn_graph_value_shape (g, cn_graph_input (g, 0)), NULL), CN_OK);
  ck_assert_int_eq (cn_graph_eval (g, CN_DTYPE_F64, &in, a, NULL), CN_OK);
  ((float *) in.data)[0] = 0.5f;
  ck_assert_int_eq (cn_graph_eval (g, CN_DTYPE_F64, &in, b, NULL), CN_OK);
  for (int o = 0; o < 4; o++)
    {
      ck_assert_int_eq (cn_tensor_numel (&a[o]), cn_tensor_numel (&b[o]));
      for (int64_t i = 0; i < cn_tensor_numel (&a[o]); i++)
        ck_assert (cn_tensor_get_f64 (&a[o], i) == cn_tensor_get_f64 (&b[o], i));
    }
  int distinct = 0;
  for (int64_t i = 0; i < 6; i++)
    {
      double u = cn_tensor_get_f64 (&a[0], i);
      ck_assert_msg (u >= -2 && u < 3, "uniform draw %g outside [-2, 3)", u);
      distinct += i > 0 && u != cn_tensor_get_f64 (&a[0], i - 1);
    }
  ck_assert_int_ge (distinct, 4);
  for (int o = 0; o < 5; o++)
    {
      cn_tensor_clear (&a[o]);
      cn_tensor_clear (&b[o]);
    }
  cn_tensor_clear (&in);
  cn_graph_free (g);
}
END_TEST

/* ---- 5. models written here: constant folding ------------------------------------------------
 *
 * tools/gen_onnx_tests.py needs python's onnx, which the test machines may lack; these models are
 * written here as protobuf bytes (the few fields of onnx.proto they use, by field number), so the
 * importer reads bytes it did not write. */

struct pb
{
  unsigned char *b;
  size_t n, cap;
};

static void
pb_byte (struct pb *p, unsigned char c)
{
  if (p->n == p->cap)
    {
      p->cap = p->cap ? 2 * p->cap : 256;
      p->b = realloc (p->b, p->cap);
      ck_assert_ptr_nonnull (p->b);
    }
  p->b[p->n++] = c;
}

static void
pb_varint (struct pb *p, uint64_t v)
{
  do
    {
      pb_byte (p, (unsigned char) ((v & 0x7f) | (v > 0x7f ? 0x80 : 0)));
      v >>= 7;
    }
  while (v != 0);
}

/* Field F as a varint (wire type 0) or as bytes (wire type 2). */
static void
pb_uint (struct pb *p, int f, uint64_t v)
{
  pb_varint (p, (uint64_t) f << 3);
  pb_varint (p, v);
}

static void
pb_bytes (struct pb *p, int f, const void *d, size_t n)
{
  pb_varint (p, ((uint64_t) f << 3) | 2);
  pb_varint (p, n);
  for (size_t i = 0; i < n; i++)
    pb_byte (p, ((const unsigned char *) d)[i]);
}

static void
pb_str (struct pb *p, int f, const char *s)
{
  pb_bytes (p, f, s, strlen (s));
}

/* Field F holding the message M, which is released. */
static void
pb_msg (struct pb *p, int f, struct pb *m)
{
  pb_bytes (p, f, m->b, m->n);
  free (m->b);
  memset (m, 0, sizeof *m);
}

/* An initializer (GraphProto.initializer = 5): TensorProto {dims = 1, data_type = 2, name = 8,
 * raw_data = 9}, ELEM bytes per entry (little-endian host). */
static void
pb_init (struct pb *g, const char *name, int type, int rank, const int64_t *dims, const void *data, size_t elem)
{
  struct pb t = { 0 };
  size_t n = 1;
  for (int i = 0; i < rank; i++)
    {
      pb_uint (&t, 1, (uint64_t) dims[i]);
      n *= (size_t) dims[i];
    }
  pb_uint (&t, 2, (uint64_t) type);
  pb_str (&t, 8, name);
  pb_bytes (&t, 9, data, n * elem);
  pb_msg (g, 5, &t);
}

/* A graph input (11) or output (12): ValueInfoProto {name = 1, type = 2: TypeProto {tensor_type = 1:
 * {elem_type = 1, shape = 2: {dim = 1: {dim_value = 1}}}}}; no shape for RANK < 0. */
static void
pb_value (struct pb *g, int field, const char *name, int type, int rank, const int64_t *dims)
{
  struct pb v = { 0 }, tp = { 0 }, tt = { 0 }, sh = { 0 };
  pb_str (&v, 1, name);
  pb_uint (&tt, 1, (uint64_t) type);
  for (int i = 0; i < rank; i++)
    {
      struct pb d = { 0 };
      pb_uint (&d, 1, (uint64_t) dims[i]);
      pb_msg (&sh, 1, &d);
    }
  if (rank >= 0)
    pb_msg (&tt, 2, &sh);
  pb_msg (&tp, 1, &tt);
  pb_msg (&v, 2, &tp);
  pb_msg (g, field, &v);
}

/* A node (GraphProto.node = 1): NodeProto {input = 1, output = 2, name = 3, op_type = 4,
 * attribute = 5}; INS and OUTS are NULL-ended; AXIS >= -8 adds the integer attribute "axis"
 * (AttributeProto {name = 1, i = 3, type = 20: INT = 2}). */
static void
pb_node (struct pb *g, const char *op, const char *name, const char *const *ins, const char *const *outs, int axis)
{
  struct pb n = { 0 };
  for (; *ins != NULL; ins++)
    pb_str (&n, 1, *ins);
  for (; *outs != NULL; outs++)
    pb_str (&n, 2, *outs);
  pb_str (&n, 3, name);
  pb_str (&n, 4, op);
  if (axis >= -8)
    {
      struct pb a = { 0 };
      pb_str (&a, 1, "axis");
      pb_uint (&a, 3, (uint64_t) (int64_t) axis);
      pb_uint (&a, 20, 2);
      pb_msg (&n, 5, &a);
    }
  pb_msg (g, 1, &n);
}

/* The model (ir_version = 1: 8, opset_import = 8: {version = 2: 13}, graph = 7) around G, which is
 * released; imported with cn_graph_load_onnx_buffer. */
static cn_graph *
pb_load (struct pb *g, const char *who)
{
  struct pb m = { 0 }, os = { 0 };
  pb_uint (&m, 1, 8);
  pb_uint (&os, 2, 13);
  pb_msg (&m, 8, &os);
  pb_str (g, 2, who);
  pb_msg (&m, 7, g);
  cn_graph *gr = NULL;
  cn_error e;
  cn_error_clear (&e);
  cn_status st = cn_graph_load_onnx_buffer (m.b, m.n, &gr, &e);
  free (m.b);
  ck_assert_msg (st == CN_OK, "%s: %s", who, e.msg);
  return gr;
}

#define ONNX_FLOAT 1
#define ONNX_INT32 6
#define ONNX_INT64 7

/* A MatMul of two constants whose product is not a binary64 number stays a matmul node (it used to
 * refuse the model: "folding the constant inputs would round"); evaluation gives the rounded
 * product, and IBP and CROWN boxes enclose the exact one (MPFR at 256 bits) without being a
 * point there. */
START_TEST (fold_inexact_matmul)
{
  static const float A[4] = { 3.3f, 1e-3f, 1.0f / 3.0f, 7.7f }, B[4] = { 5.5f, 0.1f, 0.01f, 1.0f / 7.0f };
  static const int64_t d22[2] = { 2, 2 };
  struct pb g = { 0 };
  pb_node (&g, "MatMul", "mm", (const char *[]) { "a", "b", NULL }, (const char *[]) { "c", NULL }, -9);
  pb_node (&g, "Add", "add", (const char *[]) { "x", "c", NULL }, (const char *[]) { "y", NULL }, -9);
  pb_init (&g, "a", ONNX_FLOAT, 2, d22, A, 4);
  pb_init (&g, "b", ONNX_FLOAT, 2, d22, B, 4);
  pb_value (&g, 11, "x", ONNX_FLOAT, 2, d22);
  pb_value (&g, 12, "y", ONNX_FLOAT, 2, d22);
  cn_graph *gr = pb_load (&g, "inexact_matmul");
  char ops[256];
  ck_assert_str_eq (node_ops (gr, ops, sizeof ops), "matmul,add");
  ck_assert_ptr_nonnull (cn_graph_value_constant (gr, cn_graph_node_input (gr, 0, 0)));
  ck_assert_ptr_nonnull (cn_graph_value_constant (gr, cn_graph_node_input (gr, 0, 1)));
  /* the exact y = x + A B at x = (1, -2, 0.5, 3) */
  static const double x[4] = { 1, -2, 0.5, 3 };
  mpfr_t e[4], t;
  mpfr_init2 (t, 256);
  int inexact = 0;
  for (int i = 0; i < 4; i++)
    {
      int r = i / 2, c = i % 2;
      mpfr_init2 (e[i], 256);
      mpfr_set_d (e[i], (double) A[2 * r] * (double) B[c], MPFR_RNDN);          /* exact: 24 + 24 bits */
      mpfr_set_d (t, (double) A[2 * r + 1] * (double) B[2 + c], MPFR_RNDN);
      mpfr_add (e[i], e[i], t, MPFR_RNDN);
      inexact |= mpfr_cmp_d (e[i], mpfr_get_d (e[i], MPFR_RNDN)) != 0;
      mpfr_add_d (e[i], e[i], x[i], MPFR_RNDN);
    }
  ck_assert_msg (inexact, "A B is exact in binary64: the case tests nothing");
  cn_tensor in, out;
  ck_assert_int_eq (cn_tensor_init (&in, CN_DTYPE_F64, cn_graph_value_shape (gr, cn_graph_input (gr, 0)), NULL), CN_OK);
  memcpy (in.data, x, sizeof x);
  ck_assert_int_eq (cn_graph_eval (gr, CN_DTYPE_F64, &in, &out, NULL), CN_OK);
  for (int i = 0; i < 4; i++)
    {
      double y = cn_tensor_get_f64 (&out, i), ex = mpfr_get_d (e[i], MPFR_RNDN);
      ck_assert_msg (fabs (y - ex) <= 4 * DBL_EPSILON * fabs (ex), "y[%d] = %.17g, exact %.17g", i, y, ex);
    }
  cn_tensor_clear (&out);
  cn_box box;
  ck_assert_int_eq (cn_box_init (&box, 4, NULL), CN_OK);
  for (int i = 0; i < 4; i++)
    box.lo[i] = box.hi[i] = x[i];
  for (int m = 0; m < 2; m++)
    {
      cn_bounds_opts o;
      cn_bounds_opts_init (&o);
      o.method = m ? CN_METHOD_CROWN : CN_METHOD_IBP;
      cn_box yb;
      cn_error err;
      cn_error_clear (&err);
      ck_assert_msg (cn_bounds_output (gr, &box, &o, &yb, &err) == CN_OK, "%s", err.msg);
      int wide = 0;
      for (int i = 0; i < 4; i++)
        {
          ck_assert_msg (mpfr_cmp_d (e[i], yb.lo[i]) >= 0 && mpfr_cmp_d (e[i], yb.hi[i]) <= 0,
                         "%s: y[%d] in [%.17g, %.17g] misses the exact value", cn_method_name (o.method), i, yb.lo[i],
                         yb.hi[i]);
          wide |= yb.lo[i] < yb.hi[i];
        }
      ck_assert (wide);
      cn_box_clear (&yb);
    }
  for (int i = 0; i < 4; i++)
    mpfr_clear (e[i]);
  mpfr_clear (t);
  cn_box_clear (&box);
  cn_tensor_clear (&in);
  cn_graph_free (gr);
}
END_TEST

/* A shape computation on integer words: Shape (x) -> Gather (its extents 0, 1 and 2) -> Mul (the
 * first two, INT64 words) -> Concat (extent 2, product) -> Reshape (x): folded to constants at
 * import, the graph is the one reshape, to [4, 6], and moves x as it is. */
START_TEST (fold_shape_chain)
{
  static const int64_t d234[3] = { 2, 3, 4 }, d1[1] = { 1 }, i0[1] = { 0 }, i1[1] = { 1 }, i2[1] = { 2 };
  struct pb g = { 0 };
  pb_node (&g, "Shape", "shape", (const char *[]) { "x", NULL }, (const char *[]) { "s", NULL }, -9);
  pb_node (&g, "Gather", "g0", (const char *[]) { "s", "i0", NULL }, (const char *[]) { "s0", NULL }, 0);
  pb_node (&g, "Gather", "g1", (const char *[]) { "s", "i1", NULL }, (const char *[]) { "s1", NULL }, 0);
  pb_node (&g, "Gather", "g2", (const char *[]) { "s", "i2", NULL }, (const char *[]) { "s2", NULL }, 0);
  pb_node (&g, "Mul", "prod", (const char *[]) { "s0", "s1", NULL }, (const char *[]) { "p", NULL }, -9);
  pb_node (&g, "Concat", "cat", (const char *[]) { "s2", "p", NULL }, (const char *[]) { "t", NULL }, 0);
  pb_node (&g, "Reshape", "reshape", (const char *[]) { "x", "t", NULL }, (const char *[]) { "y", NULL }, -9);
  pb_init (&g, "i0", ONNX_INT64, 1, d1, i0, 8);
  pb_init (&g, "i1", ONNX_INT64, 1, d1, i1, 8);
  pb_init (&g, "i2", ONNX_INT64, 1, d1, i2, 8);
  pb_value (&g, 11, "x", ONNX_FLOAT, 3, d234);
  pb_value (&g, 12, "y", ONNX_FLOAT, -1, NULL);
  cn_graph *gr = pb_load (&g, "shape_chain");
  char ops[256], b[64];
  ck_assert_str_eq (node_ops (gr, ops, sizeof ops), "reshape");
  ck_assert_str_eq (cn_shape_format (cn_graph_value_shape (gr, cn_graph_output (gr, 0)), b, sizeof b), "[4,6]");
  /* only the input and the output are left: the folded words are dropped */
  ck_assert_int_eq (cn_graph_n_values (gr), 2);
  cn_tensor in, out;
  ck_assert_int_eq (cn_tensor_init (&in, CN_DTYPE_F64, cn_graph_value_shape (gr, cn_graph_input (gr, 0)), NULL), CN_OK);
  for (int i = 0; i < 24; i++)
    ((double *) in.data)[i] = i - 7.5;
  ck_assert_int_eq (cn_graph_eval (gr, CN_DTYPE_F64, &in, &out, NULL), CN_OK);
  for (int i = 0; i < 24; i++)
    ck_assert (cn_tensor_get_f64 (&out, i) == i - 7.5);
  cn_tensor_clear (&out);
  cn_tensor_clear (&in);
  cn_graph_free (gr);
}
END_TEST

/* Boolean and integer arithmetic on constants, folded: with INT32 constants a and b,
 * k = Where (Not (a > b), a + b, a - b) (wrapping: 2147483647 + 1), Cast to INT8 (wrapping),
 * Cast to FLOAT, then y = x * k.  The graph is the one mul, whose constant factor is k computed
 * here in C's integer arithmetic. */
START_TEST (fold_bool_int)
{
  static const int32_t a[4] = { -3, 7, 100, 2147483647 }, bv[4] = { 2, -2, 3, 1 };
  static const int64_t d4[1] = { 4 };
  struct pb g = { 0 };
  pb_node (&g, "Greater", "gt", (const char *[]) { "a", "b", NULL }, (const char *[]) { "c", NULL }, -9);
  pb_node (&g, "Not", "not", (const char *[]) { "c", NULL }, (const char *[]) { "nc", NULL }, -9);
  pb_node (&g, "Add", "sum", (const char *[]) { "a", "b", NULL }, (const char *[]) { "s", NULL }, -9);
  pb_node (&g, "Sub", "diff", (const char *[]) { "a", "b", NULL }, (const char *[]) { "d", NULL }, -9);
  pb_node (&g, "Where", "pick", (const char *[]) { "nc", "s", "d", NULL }, (const char *[]) { "w", NULL }, -9);
  struct pb n8 = { 0 }, at = { 0 };
  pb_str (&n8, 1, "w");
  pb_str (&n8, 2, "w8");
  pb_str (&n8, 3, "to_i8");
  pb_str (&n8, 4, "Cast");
  pb_str (&at, 1, "to");
  pb_uint (&at, 3, 3);             /* INT8 */
  pb_uint (&at, 20, 2);
  pb_msg (&n8, 5, &at);
  pb_msg (&g, 1, &n8);
  struct pb nf = { 0 }, af = { 0 };
  pb_str (&nf, 1, "w8");
  pb_str (&nf, 2, "k");
  pb_str (&nf, 3, "to_float");
  pb_str (&nf, 4, "Cast");
  pb_str (&af, 1, "to");
  pb_uint (&af, 3, ONNX_FLOAT);
  pb_uint (&af, 20, 2);
  pb_msg (&nf, 5, &af);
  pb_msg (&g, 1, &nf);
  pb_node (&g, "Mul", "mul", (const char *[]) { "x", "k", NULL }, (const char *[]) { "y", NULL }, -9);
  pb_init (&g, "a", ONNX_INT32, 1, d4, a, 4);
  pb_init (&g, "b", ONNX_INT32, 1, d4, bv, 4);
  pb_value (&g, 11, "x", ONNX_FLOAT, 1, d4);
  pb_value (&g, 12, "y", ONNX_FLOAT, 1, d4);
  cn_graph *gr = pb_load (&g, "bool_int");
  char ops[256];
  ck_assert_str_eq (node_ops (gr, ops, sizeof ops), "mul");
  const cn_tensor *k = cn_graph_value_constant (gr, cn_graph_node_input (gr, 0, 1));
  ck_assert_ptr_nonnull (k);
  for (int i = 0; i < 4; i++)
    {
      uint32_t w = a[i] > bv[i] ? (uint32_t) a[i] - (uint32_t) bv[i] : (uint32_t) a[i] + (uint32_t) bv[i];
      int8_t w8 = (int8_t) (uint8_t) w;
      ck_assert_msg (cn_tensor_get_f64 (k, i) == (double) w8, "k[%d] = %g, expected %d", i, cn_tensor_get_f64 (k, i),
                     (int) w8);
    }
  cn_graph_free (gr);
}
END_TEST

/* The whole pass on a built graph: add (a, b) of constants is exact and folds; mul (that, 0.1) of
 * binary64 numbers rounds and stays; the dead constants go, the node numbers close up. */
START_TEST (fold_pass)
{
  cn_graph *g;
  cn_shape s;
  int64_t three = 3;
  int x, a, b, c, y, z, v;
  cn_tensor t;
  ck_assert_int_eq (cn_graph_create (&g, NULL), CN_OK);
  ck_assert_int_eq (cn_shape_make (&s, 1, &three, NULL), CN_OK);
  ck_assert_int_eq (cn_graph_add_input (g, "x", CN_DTYPE_F64, &s, &x, NULL), CN_OK);
  ck_assert_int_eq (cn_tensor_init (&t, CN_DTYPE_F64, &s, NULL), CN_OK);
  for (int i = 0; i < 3; i++)
    ((double *) t.data)[i] = 0.5 * i;
  ck_assert_int_eq (cn_graph_add_constant (g, "a", &t, &a, NULL), CN_OK);
  for (int i = 0; i < 3; i++)
    ((double *) t.data)[i] = 0.25;
  ck_assert_int_eq (cn_graph_add_constant (g, "b", &t, &b, NULL), CN_OK);
  for (int i = 0; i < 3; i++)
    ((double *) t.data)[i] = 0.1;
  ck_assert_int_eq (cn_graph_add_constant (g, "c", &t, &c, NULL), CN_OK);
  cn_tensor_clear (&t);
  ck_assert_int_eq (cn_graph_add_node (g, CN_OP_ADD, NULL, 2, (int[]) { a, b }, "ab", &y, NULL), CN_OK);
  ck_assert_int_eq (cn_graph_add_node (g, CN_OP_MUL, NULL, 2, (int[]) { y, c }, "abc", &z, NULL), CN_OK);
  ck_assert_int_eq (cn_graph_add_node (g, CN_OP_ADD, NULL, 2, (int[]) { x, z }, "out", &v, NULL), CN_OK);
  ck_assert_int_eq (cn_graph_set_outputs (g, 1, &v, NULL), CN_OK);
  int n = -1;
  cn_error e;
  cn_error_clear (&e);
  ck_assert_msg (cn__graph_fold (g, &n, &e) == CN_OK, "%s", e.msg);
  ck_assert_int_eq (n, 1);
  char ops[256];
  ck_assert_str_eq (node_ops (g, ops, sizeof ops), "mul,add");
  /* x, the folded a + b, c, and the two outputs; a and b are gone */
  ck_assert_int_eq (cn_graph_n_values (g), 5);
  const cn_tensor *ab = cn_graph_value_constant (g, cn_graph_node_input (g, 0, 0));
  ck_assert_ptr_nonnull (ab);
  for (int i = 0; i < 3; i++)
    ck_assert (cn_tensor_get_f64 (ab, i) == 0.5 * i + 0.25);
  ck_assert_ptr_null (cn_graph_value_constant (g, cn_graph_node_input (g, 1, 1)));
  ck_assert_int_eq (cn_graph_node_input (g, 1, 0), cn_graph_input (g, 0));
  cn_tensor in, out;
  ck_assert_int_eq (cn_tensor_init (&in, CN_DTYPE_F64, &s, NULL), CN_OK);
  ck_assert_int_eq (cn_graph_eval (g, CN_DTYPE_F64, &in, &out, NULL), CN_OK);
  for (int i = 0; i < 3; i++)
    ck_assert (cn_tensor_get_f64 (&out, i) == (0.5 * i + 0.25) * 0.1);
  cn_tensor_clear (&out);
  cn_tensor_clear (&in);
  cn_graph_free (g);
}
END_TEST

START_TEST (bad_nonexistent)
{
  cn_graph *g = (cn_graph *) 1;
  cn_error e;
  cn_error_clear (&e);
  ck_assert_int_eq (cn_graph_load_onnx ("/nonexistent/dir/model.onnx", &g, &e), CN_EIO);
  ck_assert_ptr_null (g);
  ck_assert_msg (strstr (e.msg, "/nonexistent/dir/model.onnx") != NULL, "%s", e.msg);
}
END_TEST

START_TEST (bad_buffer_prefixes)
{
  /* Every proper prefix of a valid model is refused cleanly (never a crash), and the whole is
   * accepted. */
  char path[4096];
  data_path (path, sizeof path, "bad/%s%s", "good", ".onnx");
  size_t len;
  char *buf = tu_read_file (path, &len);
  ck_assert_ptr_nonnull (buf);
  for (size_t n = 0; n < len; n++)
    {
      cn_graph *g = NULL;
      cn_error e;
      cn_error_clear (&e);
      cn_status st = cn_graph_load_onnx_buffer (buf, n, &g, &e);
      if (st == CN_OK)
        cn_graph_free (g);
      else
        ck_assert_ptr_null (g);
    }
  cn_graph *g = NULL;
  ck_assert_int_eq (cn_graph_load_onnx_buffer (buf, len, &g, NULL), CN_OK);
  cn_graph_free (g);
  free (buf);
}
END_TEST

int
main (void)
{
  tu_init ();
  char path[4096];
  n_ops = read_list (data_path (path, sizeof path, "ops/%s%s", "LIST", ""), &ops_list);
  n_bench = read_list (data_path (path, sizeof path, "ref/%s%s", "LIST", ""), &bench_list);
  if (n_ops < 0)
    {
      fprintf (stderr, "check_onnx: no test data under %s/tests/data/onnx\n", tu_srcdir ());
      return 77;
    }
  if (tu_benchmarks () == NULL)
    fprintf (stderr, "check_onnx: no ../shared/benchmarks: the benchmark part is skipped\n");

  Suite *s = suite_create ("onnx");
  TCase *tc = tcase_create ("onnx");
  tcase_set_timeout (tc, 300);
  tcase_add_loop_test (tc, benchmark_forward, 0, n_bench > 0 ? n_bench : 0);
  tcase_add_test (tc, benchmark_list);
  tcase_add_loop_test (tc, ops_forward, 0, n_ops);
  tcase_add_test (tc, structure);
  tcase_add_test (tc, buffer_api);
  tcase_add_loop_test (tc, bad_model, 0, (int) (sizeof bad_models / sizeof bad_models[0]));
  tcase_add_test (tc, sorts_structure);
  tcase_add_test (tc, sorts_cast_range);
  tcase_add_test (tc, sorts_integer_arith);
  tcase_add_test (tc, sorts_random);
  tcase_add_test (tc, fold_inexact_matmul);
  tcase_add_test (tc, fold_shape_chain);
  tcase_add_test (tc, fold_bool_int);
  tcase_add_test (tc, fold_pass);
  tcase_add_test (tc, bad_nonexistent);
  tcase_add_test (tc, bad_buffer_prefixes);
  suite_add_tcase (s, tc);
  int failed = tu_run_suite (s);
  for (int k = 0; k < 2; k++)
    if (stats[k].values > 0)
      fprintf (stderr, "check_onnx: %s: binary64 max relative error %.3g; binary32 %lld of %lld values bit-exact "
               "with the emulated sequential order%s; against PyTorch %lld bit-exact, max %.1f ulps of the output "
               "scale (%.2f of the tolerance)\n",
               k == 0 ? "benchmarks" : "small models", stats[k].max_rel64, (long long) stats[k].seq_exact,
               (long long) stats[k].values, SEQ_EXACT ? "" : " (not required: FLT_EVAL_METHOD is not 0)",
               (long long) stats[k].exact32, stats[k].max_ulps32, stats[k].max_tol32);
  for (int i = 0; i < n_ops; i++)
    free (ops_list[i]);
  for (int i = 0; i < n_bench; i++)
    free (bench_list[i]);
  free (ops_list);
  free (bench_list);
  return failed;
}
