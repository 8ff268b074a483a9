/* SPDX-License-Identifier: MIT */
/* tests/testutil.c: helpers shared by the test programs. */
#include <config.h>
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include "testutil.h"

static unsigned long seed;
static uint64_t state[4];
static int initialised;

static uint64_t
splitmix (uint64_t *x)
{
  uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

void
tu_init (void)
{
  if (initialised)
    return;
  initialised = 1;
  const char *s = getenv ("CN_TEST_SEED");
  seed = s != NULL ? strtoul (s, NULL, 10) : (unsigned long) time (NULL);
  uint64_t x = seed;
  for (int i = 0; i < 4; i++)
    state[i] = splitmix (&x);
  fprintf (stderr, "CN_TEST_SEED=%lu (include this in bug reports)\n", seed);
}

unsigned long
tu_seed (void)
{
  tu_init ();
  return seed;
}

static inline uint64_t
rotl (uint64_t x, int k)
{
  return (x << k) | (x >> (64 - k));
}

uint64_t
tu_rand (void)
{
  tu_init ();
  uint64_t r = rotl (state[1] * 5, 7) * 9, t = state[1] << 17;
  state[2] ^= state[0];
  state[3] ^= state[1];
  state[1] ^= state[2];
  state[0] ^= state[3];
  state[2] ^= t;
  state[3] = rotl (state[3], 45);
  return r;
}

double
tu_uniform (double a, double b)
{
  double u = (double) (tu_rand () >> 11) * 0x1p-53;
  double x = a + (b - a) * u;
  return x < a ? a : (x > b ? b : x);
}

int64_t
tu_int (int64_t a, int64_t b)
{
  if (b <= a)
    return a;
  return a + (int64_t) (tu_rand () % (uint64_t) (b - a + 1));
}

const char *
tu_srcdir (void)
{
  const char *s = getenv ("CN_SRCDIR");
  return s != NULL && *s ? s : ".";
}

const char *
tu_benchmarks (void)
{
  static char path[4096];
  const char *env = getenv ("CN_BENCHMARKS");
  struct stat sb;
  if (env != NULL && *env)
    snprintf (path, sizeof path, "%s", env);
  else
    snprintf (path, sizeof path, "%s/../shared/benchmarks", tu_srcdir ());
  if (stat (path, &sb) != 0 || !S_ISDIR (sb.st_mode))
    return NULL;
  return path;
}

char *
tu_read_file (const char *path, size_t *len)
{
  FILE *f = fopen (path, "rb");
  if (f == NULL)
    return NULL;
  size_t cap = 1 << 16, n = 0;
  char *buf = malloc (cap + 1);
  while (buf != NULL)
    {
      size_t r = fread (buf + n, 1, cap - n, f);
      n += r;
      if (n < cap)
        break;
      char *nb = realloc (buf, 2 * cap + 1);
      if (nb == NULL)
        {
          free (buf);
          buf = NULL;
          break;
        }
      buf = nb;
      cap *= 2;
    }
  if (buf != NULL && ferror (f))
    {
      free (buf);
      buf = NULL;
    }
  fclose (f);
  if (buf == NULL)
    return NULL;
  buf[n] = '\0';
  if (len != NULL)
    *len = n;
  return buf;
}

int
tu_op_case (cn_op op, struct tu_op_case *c)
{
  memset (c, 0, sizeof *c);
  c->op = op;
  int (*const gen[]) (cn_op, struct tu_op_case *) = { tu_op_case_basic, tu_op_case_linear, tu_op_case_transcendental,
                                                        tu_op_case_activation, tu_op_case_arith, tu_op_case_rounding,
                                                        tu_op_case_softmax, tu_op_case_loss, tu_op_case_scan,
                                                        tu_op_case_index, tu_op_case_prod, tu_op_case_logic,
                                                        tu_op_case_integer, tu_op_case_random, tu_op_case_attention,
                                                        tu_op_case_custom };
  for (size_t i = 0; i < sizeof gen / sizeof gen[0]; i++)
    {
      memset (c, 0, sizeof *c);
      c->op = op;
      if (gen[i] (op, c))
        return 1;
    }
  return 0;
}

cn_status
tu_op_graph (const struct tu_op_case *c, cn_graph **out, cn_error *err)
{
  cn_graph *g = NULL;
  cn_status st = cn_graph_create (&g, err);
  if (st != CN_OK)
    return st;
  int64_t total = 0;
  for (int i = 0; i < c->n_in; i++)
    if (!c->in_const[i])
      total += cn_shape_numel (&c->in_shape[i]);
  cn_shape xs;
  int64_t dim0 = total > 0 ? total : 1;
  cn_shape_make (&xs, 1, &dim0, NULL);
  int x, ins[TU_MAX_IN], y;
  if ((st = cn_graph_add_input (g, "x", CN_DTYPE_F64, &xs, &x, err)) != CN_OK)
    goto fail;
  int64_t off = 0;
  for (int i = 0; i < c->n_in; i++)
    {
      int64_t n = cn_shape_numel (&c->in_shape[i]);
      cn_dtype sort = c->in_dtype[i];
      if (c->in_const[i])
        {
          /* Drawn in binary64, then converted exactly to the port's sort (Booleans 0/1, words
           * integers in [const_lo, const_hi]). */
          cn_tensor t, ts;
          if ((st = cn_tensor_init (&t, CN_DTYPE_F64, &c->in_shape[i], err)) != CN_OK)
            goto fail;
          for (int64_t j = 0; j < n; j++)
            ((double *) t.data)[j] = sort == CN_DTYPE_BOOL ? (double) tu_int (0, 1)
                                     : c->const_integer[i] || !cn_dtype_is_float (sort)
                                       ? (double) tu_int ((int64_t) c->const_lo[i], (int64_t) c->const_hi[i])
                                       : tu_uniform (c->const_lo[i], c->const_hi[i]);
          if (cn_dtype_is_float (sort))
            st = cn_graph_add_constant (g, "c", &t, &ins[i], err);
          else if ((st = cn_tensor_convert (&ts, sort, &t, err)) == CN_OK)
            {
              st = cn_graph_add_constant (g, "c", &ts, &ins[i], err);
              cn_tensor_clear (&ts);
            }
          cn_tensor_clear (&t);
          if (st != CN_OK)
            goto fail;
          continue;
        }
      cn_params_slice sl;
      memset (&sl, 0, sizeof sl);
      sl.rank = 1;
      sl.start[0] = off;
      sl.stop[0] = off + n;
      sl.step[0] = 1;
      int part;
      if ((st = cn_graph_add_node (g, CN_OP_SLICE, &sl, 1, &x, "part", &part, err)) != CN_OK)
        goto fail;
      cn_params_reshape rs;
      memset (&rs, 0, sizeof rs);
      rs.shape = c->in_shape[i];
      if ((st = cn_graph_add_node (g, CN_OP_RESHAPE, &rs, 1, &part, "port", &ins[i], err)) != CN_OK)
        goto fail;
      off += n;
      if (sort == CN_DTYPE_BOOL)
        {
          /* a Boolean port reads gt(part, 0) */
          cn_tensor z;
          int zero, part_f = ins[i];
          if ((st = cn_tensor_init (&z, CN_DTYPE_F64, &c->in_shape[i], err)) != CN_OK)
            goto fail;
          st = cn_graph_add_constant (g, "zero", &z, &zero, err);
          cn_tensor_clear (&z);
          int gin[2] = { part_f, zero };
          if (st != CN_OK || (st = cn_graph_add_node (g, CN_OP_GT, NULL, 2, gin, "bool port", &ins[i], err)) != CN_OK)
            goto fail;
        }
      else if (!cn_dtype_is_float (sort))
        {
          /* an integer port reads cast(part) (the tests draw X integer-valued: x_integer) */
          cn_params_cast pc = { .to = sort };
          int part_f = ins[i];
          if ((st = cn_graph_add_node (g, CN_OP_CAST, &pc, 1, &part_f, "word port", &ins[i], err)) != CN_OK)
            goto fail;
        }
    }
  if ((st = cn_graph_add_node (g, c->op, &c->params, c->n_in, ins, "op", &y, err)) != CN_OK)
    goto fail;
  if ((st = cn_graph_set_outputs (g, 1, &y, err)) != CN_OK)
    goto fail;
  *out = g;
  return CN_OK;
fail:
  cn_graph_free (g);
  return st;
}

cn_status
tu_eval_mpfi (const cn_graph *g, const double *x, mpfr_prec_t prec, cn_mpfi_vec *out, cn_error *err)
{
  cn_mpfi_vec in;
  int64_t n = cn_shape_numel (cn_graph_value_shape (g, cn_graph_input (g, 0)));
  cn_status st = cn_mpfi_vec_init (&in, n, prec, err);
  if (st != CN_OK)
    return st;
  for (int64_t j = 0; j < n; j++)
    mpfi_set_d (in.v[j], x[j]);
  st = cn_reference_ibp (g, &in, prec, out, err);
  cn_mpfi_vec_clear (&in);
  return st;
}

int
tu_run_suite (Suite *s)
{
  SRunner *sr = srunner_create (s);
  srunner_set_fork_status (sr, CK_NOFORK);
  srunner_run_all (sr, CK_NORMAL);
  int failed = srunner_ntests_failed (sr);
  srunner_free (sr);
  return failed == 0 ? 0 : 1;
}

/* ---- shapes and constants of the case generators -------------------------------------------- */

void
tu_small_shape (cn_shape *s, int64_t emax)
{
  int rank = (int) tu_int (1, 3);
  int64_t d[3];
  for (int a = 0; a < rank; a++)
    d[a] = tu_int (1, emax);
  cn_shape_make (s, rank, d, NULL);
}

cn_shape
tu_rand_shape (int rmin, int rmax, int64_t emax, int64_t maxn)
{
  cn_shape s;
  memset (&s, 0, sizeof s);
  s.rank = (int) tu_int (rmin, rmax);
  int64_t n = 1;
  for (int a = 0; a < s.rank; a++)
    {
      int64_t hi = emax;
      while (hi > 1 && n > maxn / hi)
        hi--;
      s.dim[a] = tu_int (1, hi);
      n *= s.dim[a];
    }
  return s;
}

void
tu_shape_set (cn_shape *s, int rank, const int64_t *dim)
{
  memset (s, 0, sizeof *s);
  s->rank = rank;
  for (int i = 0; i < rank; i++)
    s->dim[i] = dim[i];
}

void
tu_set_const (struct tu_op_case *c, int i, double lo, double hi)
{
  c->in_const[i] = 1;
  c->const_lo[i] = lo;
  c->const_hi[i] = hi;
}

void
tu_pair_case (struct tu_op_case *c)
{
  c->n_in = 2;
  tu_small_shape (&c->in_shape[0], 4);
  c->in_shape[1] = c->in_shape[0];
  for (int i = 0; i < 2; i++)
    {
      c->const_lo[i] = -2;
      c->const_hi[i] = 2;
    }
  /* sometimes one constant operand */
  switch ((int) tu_int (0, 3))
    {
    case 0: c->in_const[0] = 1; break;
    case 1: c->in_const[1] = 1; break;
    default: break;
    }
}
