/* SPDX-License-Identifier: MIT */
/* tests/check_vnnlib.c: the VNN-LIB reader.  Every benchmark file parses with the structure of
 * its family and its constants rounded outward exactly; the DNF is multiplied out and grouped as
 * certnn/spec.h says; every refusal carries its status and "name:line:column:".  The files of
 * tests/data/vnnlib state their expected result on their first line. */
#include <config.h>
#include <check.h>
#include <dirent.h>
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <gmp.h>
#include <mpfr.h>
#include "testutil.h"
#include "certnn/spec.h"

/* Declarations on lines 1 and 2, bounds of X_0 on lines 3 and 4; a test's own line is 5. */
#define DECL "(declare-const X_0 Real)\n(declare-const Y_0 Real)\n"
#define BOX "(assert (>= X_0 0))\n(assert (<= X_0 1))\n"

/* An assertion for hot loops: Check's ck_assert records a mark point on every call, which costs
 * a write per check; this one costs nothing until it fails. */
#define REQUIRE(cond, ...)                                                 \
  do                                                                       \
    {                                                                      \
      if (!(cond))                                                         \
        ck_abort_msg (__VA_ARGS__);                                        \
    }                                                                      \
  while (0)

static cn_status
parse (const char *text, cn_spec *s, cn_error *e)
{
  cn_error_clear (e);
  return cn_spec_parse_vnnlib (text, strlen (text), "t", s, e);
}

/* "n_x=.. n_y=.. (r r ..) (..)": the row counts of the clauses of each case. */
static void
shape (const cn_spec *s, char *buf, size_t n)
{
  size_t k = (size_t) snprintf (buf, n, "n_x=%lld n_y=%lld", (long long) s->n_x,
                                (long long) s->n_y);
  for (int64_t c = 0; c < s->n_cases && k < n; c++)
    for (int64_t j = 0; j < s->cases[c].n_clauses && k < n; j++)
      k += (size_t) snprintf (buf + k, n - k, "%s%lld%s", j == 0 ? " (" : " ",
                              (long long) s->cases[c].clauses[j].n_rows,
                              j + 1 == s->cases[c].n_clauses ? ")" : "");
}

/* The oracle for the outward rounding of a decimal string, by another route than the reader:
 * r = strtod (round to nearest), then the sign of r - c from MPFR at 256 bits (enough for the
 * short decimals used here) says whether r is RD(c), RU(c) or both. */
static void
oracle (const char *dec, double *rd, double *ru)
{
  double r = strtod (dec, NULL);
  mpfr_t v;
  mpfr_init2 (v, 256);
  mpfr_set_str (v, dec, 10, MPFR_RNDN);
  int cmp = isinf (r) ? (r > 0 ? -1 : 1) : mpfr_cmp_d (v, r);
  mpfr_clear (v);
  *rd = *ru = r;
  if (cmp > 0)
    *ru = nextafter (r, INFINITY);
  else if (cmp < 0)
    *rd = nextafter (r, -INFINITY);
}

/* Checks that a failed parse left SPEC empty (cn_spec_clear is then harmless). */
static void
assert_empty (cn_spec *s)
{
  ck_assert_int_eq (s->n_cases, 0);
  ck_assert_ptr_null (s->cases);
  cn_spec_clear (s);
}

/* ---- 1. the benchmark files ---------------------------------------------------------------- */

/* Every clause of a classification spec: one row  y_label - y_j <= 0, a distinct j != label in
 * each of the 9 clauses, the same label throughout. */
static void
check_robustness (const cn_spec *s, const char *path)
{
  int64_t label = -1;
  int seen[10] = { 0 };
  ck_assert_msg (s->n_cases == 1 && s->cases[0].n_clauses == 9, "%s", path);
  for (int64_t j = 0; j < 9; j++)
    {
      const cn_spec_clause *cl = &s->cases[0].clauses[j];
      int64_t plus = -1, minus = -1;
      ck_assert_msg (cl->n_rows == 1, "%s", path);
      for (int64_t k = 0; k < 10; k++)
        {
          double m = cl->mat[k];
          if (m == 1)
            plus = k;
          else if (m == -1)
            minus = k;
          else
            ck_assert_msg (m == 0, "%s: coefficient %g", path, m);
        }
      ck_assert_msg (plus >= 0 && minus >= 0 && plus != minus, "%s: clause %lld", path,
                     (long long) j);
      ck_assert_msg (label < 0 || label == plus, "%s: two labels", path);
      label = plus;
      ck_assert_msg (!seen[minus], "%s: Y_%lld twice", path, (long long) minus);
      seen[minus] = 1;
      ck_assert (cl->rhs_up[0] == 0 && cl->rhs_down[0] == 0);
    }
}

/* Each top-level "(assert (<= X_i c))" or ">=" line of the file against the box, through the
 * oracle.  Valid for files with one bound of each kind per X outside any `or`. */
static int64_t
check_box_text (const cn_spec *s, const char *text, const char *path)
{
  const cn_box *b = &s->cases[0].box;
  int64_t n = 0;
  for (const char *l = text; l != NULL && *l; l = strchr (l, '\n'), l = l ? l + 1 : NULL)
    {
      /* sscanf takes the length of its whole input: give it one line. */
      char line[128], op[3], num[64];
      size_t m = strcspn (l, "\n");
      int i;
      if (m >= sizeof line)
        continue;
      memcpy (line, l, m);
      line[m] = '\0';
      if (sscanf (line, "(assert (%2s X_%d %63[^) \t\n])", op, &i, num) != 3)
        continue;
      double rd, ru;
      oracle (num, &rd, &ru);
      REQUIRE (i >= 0 && i < b->n, "%s: X_%d", path, i);
      if (strcmp (op, ">=") == 0)
        REQUIRE (b->lo[i] == rd, "%s: X_%d >= %s: lo %a, expected %a", path, i, num,
                       b->lo[i], rd);
      else
        REQUIRE (b->hi[i] == ru, "%s: X_%d <= %s: hi %a, expected %a", path, i, num,
                       b->hi[i], ru);
      n++;
    }
  return n;
}

/* Facts common to every benchmark spec. */
static void
check_common (const cn_spec *s, const char *path)
{
  REQUIRE (s->n_cases >= 1, "%s", path);
  for (int64_t c = 0; c < s->n_cases; c++)
    {
      const cn_spec_case *k = &s->cases[c];
      REQUIRE (k->box.n == s->n_x, "%s", path);
      REQUIRE (cn_box_validate (&k->box, path, NULL) == CN_OK, "%s", path);
      for (int64_t i = 0; i < s->n_x; i++)
        REQUIRE (isfinite (k->box.lo[i]) && isfinite (k->box.hi[i]), "%s", path);
      REQUIRE (k->n_clauses >= 1, "%s", path);
      for (int64_t j = 0; j < k->n_clauses; j++)
        {
          const cn_spec_clause *cl = &k->clauses[j];
          REQUIRE (cl->n_rows >= 1, "%s", path);
          for (int64_t r = 0; r < cl->n_rows; r++)
            {
              for (int64_t q = 0; q < s->n_y; q++)
                {
                  double m = cl->mat[r * s->n_y + q];
                  REQUIRE (m == 0 || m == 1 || m == -1, "%s: coefficient %g", path, m);
                }
              double d = cl->rhs_down[r], u = cl->rhs_up[r];
              REQUIRE (d == u || nextafter (d, INFINITY) == u, "%s: rhs [%a, %a]", path,
                             d, u);
            }
        }
    }
}

static void
check_file (const char *dir, const char *file, const char *path)
{
  cn_spec s;
  cn_error e;
  char sh[256];
  cn_error_clear (&e);
  ck_assert_msg (cn_spec_load_vnnlib (path, &s, &e) == CN_OK, "%s", e.msg);
  check_common (&s, path);
  shape (&s, sh, sizeof sh);
  if (strcmp (dir, "acasxu/vnnlib") == 0)
    {
      static const char *const expect[][2] = {
        { "prop_1.vnnlib", "(1)" }, { "prop_2.vnnlib", "(4)" }, { "prop_3.vnnlib", "(4)" },
        { "prop_4.vnnlib", "(4)" }, { "prop_5.vnnlib", "(1 1 1 1)" },
        { "prop_6.vnnlib", "(1 1 1 1) (1 1 1 1)" }, { "prop_7.vnnlib", "(3 3)" },
        { "prop_8.vnnlib", "(2 2 2)" }, { "prop_9.vnnlib", "(1 1 1 1)" },
        { "prop_10.vnnlib", "(1 1 1 1)" },
      };
      size_t k;
      for (k = 0; k < sizeof expect / sizeof expect[0]; k++)
        if (strcmp (file, expect[k][0]) == 0)
          {
            char want[64];
            snprintf (want, sizeof want, "n_x=5 n_y=5 %s", expect[k][1]);
            ck_assert_msg (strcmp (sh, want) == 0, "%s: %s, expected %s", path, sh, want);
            break;
          }
      ck_assert_msg (k < sizeof expect / sizeof expect[0], "%s: unexpected file", path);
      if (strcmp (file, "prop_6.vnnlib") == 0)
        {
          /* the two boxes differ only in X_1: [0.11140846, 0.499999896] and its mirror. */
          const cn_box *b0 = &s.cases[0].box, *b1 = &s.cases[1].box;
          ck_assert (b0->lo[1] > 0 && b1->hi[1] < 0 && b0->lo[1] == -b1->hi[1]);
          ck_assert (b0->lo[0] == b1->lo[0] && b0->hi[4] == b1->hi[4]);
        }
      if (strcmp (file, "prop_1.vnnlib") == 0)
        {
          /* (>= Y_0 3.991125645861615) is  -y_0 <= -c. */
          double rd, ru;
          const cn_spec_clause *cl = &s.cases[0].clauses[0];
          oracle ("3.991125645861615", &rd, &ru);
          ck_assert (cl->mat[0] == -1 && cl->rhs_up[0] == -rd && cl->rhs_down[0] == -ru);
          ck_assert (rd < ru);
        }
    }
  else if (strncmp (dir, "mnist_fc/", 9) == 0 || strncmp (dir, "oval21/", 7) == 0)
    {
      int mnist = dir[0] == 'm';
      int64_t n_x = mnist ? 784 : 3072;
      size_t len;
      char want[64], *text = tu_read_file (path, &len);
      snprintf (want, sizeof want, "n_x=%lld n_y=10 (1 1 1 1 1 1 1 1 1)", (long long) n_x);
      ck_assert_msg (strcmp (sh, want) == 0, "%s: %s", path, sh);
      check_robustness (&s, path);
      ck_assert_ptr_nonnull (text);
      ck_assert_int_eq (check_box_text (&s, text, path), 2 * n_x);
      free (text);
      if (mnist)
        for (int64_t i = 0; i < n_x; i++)
          REQUIRE (s.cases[0].box.lo[i] >= 0 && s.cases[0].box.hi[i] <= 1, "%s", path);
    }
  else
    {
      const char *want = strcmp (file, "test_prop.vnnlib") == 0 ? "n_x=5 n_y=5 (4)"
                                                                : "n_x=1 n_y=1 (1)";
      ck_assert_msg (strcmp (sh, want) == 0, "%s: %s", path, sh);
      if (strcmp (file, "test_tiny.vnnlib") == 0 || strcmp (file, "test_small.vnnlib") == 0)
        {
          /* X bounds and the Y term inside one `and` of one `or`: -1 <= x <= 1, -y_0 <= -100. */
          const cn_spec_clause *cl = &s.cases[0].clauses[0];
          ck_assert (s.cases[0].box.lo[0] == -1 && s.cases[0].box.hi[0] == 1);
          ck_assert (cl->mat[0] == -1 && cl->rhs_up[0] == -100 && cl->rhs_down[0] == -100);
        }
    }
  cn_spec_clear (&s);
  cn_spec_clear (&s);
}

START_TEST (benchmarks_parse)
{
  static const struct
  {
    const char *dir;
    int files;
  } dirs[] = {
    { "acasxu/vnnlib", 10 }, { "mnist_fc/vnnlib", 30 }, { "mnist_fc/vnnlib_2022", 30 },
    { "oval21/vnnlib", 30 }, { "oval21/vnnlib_2022", 30 }, { "test/vnnlib", 4 },
  };
  const char *root = tu_benchmarks ();
  if (root == NULL)
    {
      fprintf (stderr, "check_vnnlib: ../shared/benchmarks is absent; benchmark files skipped\n");
      return;
    }
  for (size_t d = 0; d < sizeof dirs / sizeof dirs[0]; d++)
    {
      char dpath[4096], path[8192];
      int n = 0;
      snprintf (dpath, sizeof dpath, "%s/%s", root, dirs[d].dir);
      DIR *dh = opendir (dpath);
      ck_assert_msg (dh != NULL, "cannot open %s", dpath);
      for (struct dirent *de; (de = readdir (dh)) != NULL;)
        {
          size_t l = strlen (de->d_name);
          if (l < 7 || strcmp (de->d_name + l - 7, ".vnnlib") != 0)
            continue;
          snprintf (path, sizeof path, "%s/%s", dpath, de->d_name);
          check_file (dirs[d].dir, de->d_name, path);
          n++;
        }
      closedir (dh);
      ck_assert_msg (n == dirs[d].files, "%s: %d files", dpath, n);
    }
}
END_TEST

/* ---- 2. exact outward rounding ------------------------------------------------------------- */

/* The box of "X_0 >= DEC" and "X_0 <= DEC", both from the same constant. */
static void
bound_pair (const char *dec, double *lo, double *hi)
{
  char text[512];
  cn_spec s;
  cn_error e;
  snprintf (text, sizeof text, DECL "(assert (>= X_0 %s))\n(assert (<= X_0 %s))\n", dec, dec);
  ck_assert_msg (parse (text, &s, &e) == CN_OK, "%s: %s", dec, e.msg);
  *lo = s.cases[0].box.lo[0];
  *hi = s.cases[0].box.hi[0];
  cn_spec_clear (&s);
}

START_TEST (rounding_bounds)
{
  double lo, hi, rd, ru;

  /* 0.1 is no double: the doubles on each side, adjacent. */
  bound_pair ("0.1", &lo, &hi);
  ck_assert (lo < hi && nextafter (lo, INFINITY) == hi);
  ck_assert (lo == 0x1.9999999999999p-4 && hi == 0x1.999999999999ap-4);
  /* Exactly representable constants, in every notation: lo == hi == the value. */
  static const struct
  {
    const char *dec;
    double v;
  } exact[] = {
    { "0.5", 0.5 }, { ".5", 0.5 }, { "3.", 3.0 }, { "-1E+3", -1000.0 }, { "+1e3", 1000.0 },
    { "0.25e-0", 0.25 }, { "-0", 0.0 }, { "0.000", 0.0 }, { "6.103515625E-05", 0x1p-14 },
    { "0.1000000000000000055511151231257827021181583404541015625", 0x1.999999999999ap-4 },
  };
  for (size_t k = 0; k < sizeof exact / sizeof exact[0]; k++)
    {
      bound_pair (exact[k].dec, &lo, &hi);
      ck_assert_msg (lo == exact[k].v && hi == exact[k].v, "%s: [%a, %a]", exact[k].dec, lo, hi);
      ck_assert_msg (!signbit (lo) || lo != 0, "%s: -0", exact[k].dec);
    }
  /* Just above and just below that double: strtod would give it in both cases. */
  bound_pair ("0.10000000000000000555111512312578270211815834045410156251", &lo, &hi);
  ck_assert (lo == 0x1.999999999999ap-4 && hi == 0x1.999999999999bp-4);
  bound_pair ("0.10000000000000000555111512312578270211815834045410156249", &lo, &hi);
  ck_assert (lo == 0x1.9999999999999p-4 && hi == 0x1.999999999999ap-4);
  /* Scientific notation, subnormals, underflow and overflow. */
  static const char *const inexact[] = {
    "5.8e-05", "-5.8E-05", "0.700434925", "-0.129289109", "3.991125645861615", "1e-310",
    "-2.5e-320", "1.7976931348623157e308", "123456789012345678901234567890",
  };
  for (size_t k = 0; k < sizeof inexact / sizeof inexact[0]; k++)
    {
      bound_pair (inexact[k], &lo, &hi);
      oracle (inexact[k], &rd, &ru);
      ck_assert_msg (lo == rd && hi == ru && lo < hi, "%s: [%a, %a], expected [%a, %a]",
                     inexact[k], lo, hi, rd, ru);
    }
  bound_pair ("1e-400", &lo, &hi);
  ck_assert (lo == 0 && hi == 0x1p-1074);
  bound_pair ("-1e-400", &lo, &hi);
  ck_assert (lo == -0x1p-1074 && hi == 0);
  bound_pair ("1e400", &lo, &hi);
  ck_assert (lo == DBL_MAX && isinf (hi) && hi > 0);
  bound_pair ("-1e400", &lo, &hi);
  ck_assert (isinf (lo) && lo < 0 && hi == -DBL_MAX);
  /* Exponents beyond MPFR's own range. */
  bound_pair ("1e99999999999999", &lo, &hi);
  ck_assert (lo == DBL_MAX && isinf (hi) && hi > 0);
  bound_pair ("-1e99999999999999", &lo, &hi);
  ck_assert (isinf (lo) && lo < 0 && hi == -DBL_MAX);
  bound_pair ("1e-99999999999999", &lo, &hi);
  ck_assert (lo == 0 && hi == 0x1p-1074);
  bound_pair ("-0e99999999999999", &lo, &hi);
  ck_assert (lo == 0 && hi == 0 && !signbit (lo));
}
END_TEST

START_TEST (rounding_random)
{
  /* Random decimals of 1 to 25 digits with exponents in [-330, 310] against the oracle. */
  for (int t = 0; t < 300; t++)
    {
      char dec[64];
      int nd = (int) tu_int (1, 25), k = 0;
      double lo, hi, rd, ru;
      if (tu_int (0, 1))
        dec[k++] = '-';
      for (int i = 0; i < nd; i++)
        {
          dec[k++] = (char) ('0' + tu_int (i == 0 ? 1 : 0, 9));
          if (i == 0)
            dec[k++] = '.';
        }
      snprintf (dec + k, sizeof dec - (size_t) k, "e%d", (int) tu_int (-330, 300));
      bound_pair (dec, &lo, &hi);
      oracle (dec, &rd, &ru);
      ck_assert_msg (lo == rd && hi == ru, "%s: [%a, %a], expected [%a, %a] (CN_TEST_SEED=%lu)",
                     dec, lo, hi, rd, ru, tu_seed ());
    }
}
END_TEST

START_TEST (rounding_rows)
{
  /* Each form of a row against a constant, with 0.1 = (RD, RU) = (d, u):
   *   y <= c: rhs [d, u];  y >= c, c <= y: -y <= -c, rhs [-u, -d];  c >= y: y <= c. */
  static const struct
  {
    const char *term;
    double coef;
    int neg;
  } rows[] = {
    { "(<= Y_0 0.1)", 1, 0 }, { "(>= Y_0 0.1)", -1, 1 }, { "(<= 0.1 Y_0)", -1, 1 },
    { "(>= 0.1 Y_0)", 1, 0 },
  };
  const double d = 0x1.9999999999999p-4, u = 0x1.999999999999ap-4;
  for (size_t k = 0; k < sizeof rows / sizeof rows[0]; k++)
    {
      char text[256];
      cn_spec s;
      cn_error e;
      snprintf (text, sizeof text, DECL BOX "(assert %s)\n", rows[k].term);
      ck_assert_msg (parse (text, &s, &e) == CN_OK, "%s", e.msg);
      const cn_spec_clause *cl = &s.cases[0].clauses[0];
      ck_assert_int_eq (cl->n_rows, 1);
      ck_assert (cl->mat[0] == rows[k].coef);
      ck_assert_msg (cl->rhs_down[0] == (rows[k].neg ? -u : d)
                     && cl->rhs_up[0] == (rows[k].neg ? -d : u), "%s: [%a, %a]", rows[k].term,
                     cl->rhs_down[0], cl->rhs_up[0]);
      cn_spec_clear (&s);
    }
  /* An exact constant: rhs_up == rhs_down; a zero stays +0 after negation. */
  cn_spec s;
  cn_error e;
  ck_assert (parse (DECL BOX "(assert (>= Y_0 0.25))(assert (<= 0 Y_0))", &s, &e) == CN_OK);
  const cn_spec_clause *cl = &s.cases[0].clauses[0];
  ck_assert (cl->rhs_up[0] == -0.25 && cl->rhs_down[0] == -0.25);
  ck_assert (cl->rhs_up[1] == 0 && !signbit (cl->rhs_up[1]) && !signbit (cl->rhs_down[1]));
  cn_spec_clear (&s);
}
END_TEST

/* ---- the DNF and its grouping ------------------------------------------------------------- */

START_TEST (dnf_structure)
{
  cn_spec s;
  cn_error e;
  char sh[256];

  /* No assert on Y: one case, one clause with no rows (its arrays are not NULL). */
  ck_assert (parse (DECL BOX, &s, &e) == CN_OK);
  shape (&s, sh, sizeof sh);
  ck_assert_str_eq (sh, "n_x=1 n_y=1 (0)");
  ck_assert (s.cases[0].clauses[0].mat != NULL && s.cases[0].clauses[0].rhs_up != NULL
             && s.cases[0].clauses[0].rhs_down != NULL);
  cn_spec_clear (&s);

  /* Top-level asserts are conjoined into one clause, rows in file order (acasxu prop_2). */
  ck_assert (parse ("(declare-const Y_2 Real)(declare-const X_0 Real)(declare-const Y_1 Real)"
                    "(declare-const Y_0 Real)" BOX "(assert (<= Y_1 Y_0))(assert (>= Y_2 Y_0))"
                    "(assert (<= Y_0 Y_0))", &s, &e) == CN_OK);
  shape (&s, sh, sizeof sh);
  ck_assert_str_eq (sh, "n_x=1 n_y=3 (3)");
  {
    const double want[9] = { -1, 1, 0, 1, 0, -1, 0, 0, 0 };
    for (int k = 0; k < 9; k++)
      ck_assert (s.cases[0].clauses[0].mat[k] == want[k]);
  }
  cn_spec_clear (&s);

  /* Bounds on one X intersect, the tightest wins whatever the order; bounds may follow the
   * `or`. */
  ck_assert (parse (DECL "(assert (>= X_0 -3))(assert (or (and (>= X_0 -1) (<= Y_0 0)) "
                    "(and (>= X_0 -5))))(assert (<= X_0 2))(assert (<= X_0 9))(assert (>= X_0 -7))",
                    &s, &e) == CN_OK);
  shape (&s, sh, sizeof sh);
  ck_assert_str_eq (sh, "n_x=1 n_y=1 (1) (0)");
  ck_assert (s.cases[0].box.lo[0] == -1 && s.cases[0].box.hi[0] == 2);
  ck_assert (s.cases[1].box.lo[0] == -3 && s.cases[1].box.hi[0] == 2);
  cn_spec_clear (&s);

  /* Cross product of two disjunctions; a bare comparison is a disjunct; equal boxes merge in
   * order of first appearance. */
  ck_assert (parse (DECL "(assert (or (and (>= X_0 0) (<= X_0 1)) (and (>= X_0 1) (<= X_0 2)) "
                    "(and (<= X_0 1) (>= X_0 0) (<= Y_0 3))))"
                    "(assert (or (<= Y_0 5) (>= Y_0 6)))", &s, &e) == CN_OK);
  shape (&s, sh, sizeof sh);
  ck_assert_str_eq (sh, "n_x=1 n_y=1 (1 1 2 2) (1 1)");
  ck_assert (s.cases[0].box.lo[0] == 0 && s.cases[1].box.lo[0] == 1);
  ck_assert (s.cases[0].clauses[1].mat[0] == -1 && s.cases[0].clauses[1].rhs_up[0] == -6);
  ck_assert (s.cases[0].clauses[2].rhs_up[0] == 3 && s.cases[0].clauses[2].rhs_up[1] == 5);
  cn_spec_clear (&s);

  /* Nested `and`, skipped commands, comments at the end of the text without a newline. */
  ck_assert (parse ("(set-logic QF_LRA)\t(declare-const X_0 Real);c\n(declare-const Y_0 Real)"
                    "(assert (and (and (>= X_0 0)) (<= X_0 1) (and)))(check-sat)(get-model) ;",
                    &s, &e) == CN_OK);
  shape (&s, sh, sizeof sh);
  ck_assert_str_eq (sh, "n_x=1 n_y=1 (0)");
  cn_spec_clear (&s);

  /* An empty text declares nothing: no inputs, one clause with no rows. */
  ck_assert (cn_spec_parse_vnnlib (NULL, 0, "t", &s, &e) == CN_OK);
  shape (&s, sh, sizeof sh);
  ck_assert_str_eq (sh, "n_x=0 n_y=0 (0)");
  cn_spec_clear (&s);
}
END_TEST

/* ---- 3. refusals ---------------------------------------------------------------------------- */

/* A text the reader must refuse: with CODE, a message starting with WHERE ("t:line:column: ")
 * and holding WHAT. */
struct refusal
{
  const char *text;
  cn_status code;
  const char *where, *what;
};

/* Parses each of the N texts of BAD: its status, the message's place and words, an empty spec. */
static void
check_refusals (const struct refusal *bad, size_t n)
{
  for (size_t k = 0; k < n; k++)
    {
      cn_spec s;
      cn_error e;
      cn_status st = parse (bad[k].text, &s, &e);
      ck_assert_msg (st == bad[k].code && e.code == st, "case %zu: %s, expected %s: %s", k,
                     cn_status_name (st), cn_status_name (bad[k].code), e.msg);
      ck_assert_msg (strncmp (e.msg, bad[k].where, strlen (bad[k].where)) == 0,
                     "case %zu: '%s' does not start with '%s'", k, e.msg, bad[k].where);
      ck_assert_msg (strstr (e.msg, bad[k].what) != NULL, "case %zu: '%s' lacks '%s'", k, e.msg,
                     bad[k].what);
      assert_empty (&s);
    }
}

START_TEST (errors)
{
  static const struct refusal bad[] = {
    /* syntax */
    { DECL "(assert (<= X_0 1)", CN_EPARSE, "t:3:1: ", "never closed" },
    { DECL BOX "(assert (or (and (<= Y_0 1))", CN_EPARSE, "t:5:1: ", "never closed" },
    { "(declare-const X_0 Real))", CN_EPARSE, "t:1:25: ", "unexpected ')'" },
    { DECL "foo", CN_EPARSE, "t:3:1: ", "expected '('" },
    { DECL BOX "(define-fun f () Real 1)", CN_EPARSE, "t:5:2: ", "unknown command" },
    { DECL BOX "(assert (<= Z_0 1))", CN_EPARSE, "t:5:13: ", "unknown symbol 'Z_0'" },
    { DECL BOX "(assert (foo Y_0 1))", CN_EPARSE, "t:5:10: ", "unknown symbol 'foo'" },
    { DECL BOX "(assert (<= Y_1 1))", CN_EPARSE, "t:5:13: ", "undeclared variable 'Y_1'" },
    { "(assert (<= X_0 1))\n(declare-const X_0 Real)", CN_EPARSE, "t:1:13: ", "undeclared" },
    { DECL BOX "(assert (or (and (or (<= Y_0 1)))))", CN_EUNSUPPORTED, "t:5:18: ",
      "'or' inside an 'and' inside an 'or'" },
    { DECL BOX "(assert (or (and (!= Y_0 1))))", CN_EUNSUPPORTED, "t:5:18: ", "'!=' inside" },
    { DECL BOX "(assert (or (and (and (or (<= Y_0 1))))))", CN_EUNSUPPORTED, "t:5:23: ", "'or'" },
    { DECL BOX "(assert (or))", CN_EPARSE, "t:5:9: ", "empty 'or'" },
    { DECL BOX "(assert (<= Y_0 1) (<= Y_0 2))", CN_EPARSE, "t:5:20: ", "one formula" },
    { DECL BOX "(assert (<= Y_0 1.2.3))", CN_EPARSE, "t:5:17: ", "malformed number '1.2.3'" },
    { DECL BOX "(assert (<= Y_0 1e))", CN_EPARSE, "t:5:17: ", "malformed number" },
    { DECL BOX "(assert (<= Y_0 1e+))", CN_EPARSE, "t:5:17: ", "malformed number" },
    { DECL BOX "(assert (<= Y_0 --1))", CN_EPARSE, "t:5:17: ", "malformed number" },
    { DECL BOX "(assert (<= Y_0 0x10))", CN_EPARSE, "t:5:17: ", "malformed number" },
    { DECL BOX "(assert (<= Y_0 .))", CN_EPARSE, "t:5:17: ", "malformed number" },
    { DECL BOX "(assert (<= Y_0 -.e1))", CN_EPARSE, "t:5:17: ", "malformed number" },
    { DECL BOX "(assert (<= Y_0 1,5))", CN_EPARSE, "t:5:17: ", "malformed number" },
    { DECL BOX "(assert (<= Y_0 1e5.0))", CN_EPARSE, "t:5:17: ", "malformed number" },
    { DECL BOX "(assert (<= Y_0 nan))", CN_EPARSE, "t:5:17: ", "unknown symbol" },
    /* declarations */
    { "(declare-const X_0 Real)\n(declare-const X_2 Real)", CN_EPARSE, "t:2:16: ",
      "X_2 is declared but X_1 is not" },
    { "(declare-const Y_1 Real)", CN_EPARSE, "t:1:16: ", "Y_0 is not" },
    { DECL "(declare-const X_0 Real)", CN_EPARSE, "t:3:16: ", "declared twice (first at 1:16)" },
    { "(declare-const X_01 Real)", CN_EPARSE, "t:1:16: ", "unknown symbol 'X_01'" },
    { "(declare-const X_99999999999999999999999 Real)", CN_EPARSE, "t:1:16: ", "too large" },
    { "(declare-const X_0 Int)", CN_EUNSUPPORTED, "t:1:20: ", "sort 'Int'" },
    /* the box */
    { DECL "(assert (<= X_0 1))", CN_EPARSE, "t:1:16: ", "X_0 has no lower bound" },
    { DECL "(assert (>= X_0 1))\n(assert (<= Y_0 1))", CN_EPARSE, "t:1:16: ",
      "X_0 has no upper bound" },
    { DECL "(assert (>= X_0 0))(assert (or (and (<= X_0 1)) (and (<= Y_0 1))))", CN_EPARSE,
      "t:1:16: ", "X_0 has no upper bound in one of the disjuncts" },
    { DECL BOX "(assert (>= X_0 1.5))", CN_EPARSE, "t:5:9: ", "empty box: X_0" },
    { DECL "(assert (<= X_0 0))\n(assert (>= X_0 0.1))", CN_EPARSE, "t:4:9: ", "empty box" },
    /* outside the subset */
    { DECL BOX "(assert (<= Y_0 X_0))", CN_EUNSUPPORTED, "t:5:9: ", "input X with an output Y" },
    { DECL BOX "(assert (>= X_0 Y_0))", CN_EUNSUPPORTED, "t:5:9: ", "input X with an output Y" },
    { DECL BOX "(assert (<= X_0 X_0))", CN_EUNSUPPORTED, "t:5:9: ", "two inputs" },
    { DECL BOX "(assert (<= 1 2))", CN_EUNSUPPORTED, "t:5:9: ", "two constants" },
    { DECL BOX "(assert (<= (* Y_0 Y_0) 1))", CN_EUNSUPPORTED, "t:5:13: ", "not linear" },
    { DECL BOX "(assert (>= Y_0 (+ Y_0 1)))", CN_EUNSUPPORTED, "t:5:9: ", "no variable once" },
    { DECL BOX "(assert (>= Y_0 (/ 1 2)))", CN_EUNSUPPORTED, "t:5:18: ", "'/' is not an arith" },
    { DECL BOX "(assert (>= Y_0 (+)))", CN_EPARSE, "t:5:17: ", "at least one operand" },
    { DECL BOX "(assert (>= Y_0 (+ 1 X_0)))", CN_EUNSUPPORTED, "t:5:9: ", "input X with" },
    { DECL "(declare-const X_1 Real)\n(assert (<= (+ X_0 X_1) 1))", CN_EUNSUPPORTED, "t:4:9: ",
      "two or more inputs" },
    { DECL BOX "(assert (<= Y_0 (* 1e5000 2)))", CN_EUNSUPPORTED, "t:5:20: ", "exact arithmetic" },
    { DECL BOX "(assert (=> (<= Y_0 1) (<= Y_0 2)))", CN_EUNSUPPORTED, "t:5:10: ", "'=>'" },
    { DECL "(assert (>= X_0 1.00000000000000000001))\n(assert (<= X_0 1))", CN_EPARSE, "t:4:9: ",
      "leave no number" },
    { DECL "(assert (> X_0 1))\n(assert (<= X_0 1))", CN_EPARSE, "t:4:9: ", "leave no number" },
    { DECL "(assert (>= X_0 1))\n(assert (< X_0 1))", CN_EPARSE, "t:4:9: ", "leave no number" },
    { DECL "(vnnlib-version <2.0>)", CN_EPARSE, "t:3:2: ", "must be the first statement" },
    { DECL "(declare-network N)", CN_EPARSE, "t:3:2: ", "declare-network is VNN-LIB 2.0" },
    { DECL BOX "(assert (not (<= Y_0 1)))", CN_EUNSUPPORTED, "t:5:10: ", "'not'" },
    { DECL BOX "(assert (<= Y_0 1 2))", CN_EUNSUPPORTED, "t:5:9: ", "more than two operands" },
  };
  check_refusals (bad, sizeof bad / sizeof bad[0]);
}
END_TEST

START_TEST (errors_limits)
{
  cn_spec s;
  cn_error e;
  /* 2^23 terms: refused before anything is multiplied out. */
  size_t cap = 1 << 12, n = 0;
  char *text = malloc (cap);
  ck_assert_ptr_nonnull (text);
  n += (size_t) snprintf (text, cap, "%s", DECL BOX);
  for (int k = 0; k < 23; k++)
    n += (size_t) snprintf (text + n, cap - n, "(assert (or (<= Y_0 %d) (>= Y_0 %d)))", k, k);
  ck_assert (n < cap);
  ck_assert_int_eq (parse (text, &s, &e), CN_EUNSUPPORTED);
  ck_assert_msg (strstr (e.msg, "too many disjuncts") != NULL, "%s", e.msg);
  assert_empty (&s);
  /* `and` nested without end. */
  n = (size_t) snprintf (text, cap, "%s(assert ", DECL BOX);
  for (int k = 0; k < 100; k++)
    n += (size_t) snprintf (text + n, cap - n, "(and ");
  ck_assert_int_eq (parse (text, &s, &e), CN_EPARSE);
  ck_assert_msg (strstr (e.msg, "nested more than") != NULL, "%s", e.msg);
  assert_empty (&s);
  free (text);
  /* A missing file. */
  cn_error_clear (&e);
  ck_assert_int_eq (cn_spec_load_vnnlib ("/nonexistent/x.vnnlib", &s, &e), CN_EIO);
  ck_assert_msg (strstr (e.msg, "/nonexistent/x.vnnlib") != NULL, "%s", e.msg);
  assert_empty (&s);
  cn_spec_clear (NULL);
}
END_TEST

/* ---- 4. VNN-LIB 2.0 ------------------------------------------------------------------------ */

/* A growing text buffer. */
typedef struct
{
  char *s;
  size_t n, cap;
} text_buf;

static void
tb_add (text_buf *b, const char *fmt, ...)
{
  va_list ap;
  if (b->cap == 0)
    {
      b->cap = 256;
      b->s = malloc (b->cap);
      ck_assert_ptr_nonnull (b->s);
    }
  for (;;)
    {
      va_start (ap, fmt);
      int k = vsnprintf (b->s + b->n, b->cap - b->n, fmt, ap);
      va_end (ap);
      ck_assert (k >= 0);
      if (b->n + (size_t) k < b->cap)
        {
          b->n += (size_t) k;
          return;
        }
      b->cap = 2 * (b->n + (size_t) k + 64);
      b->s = realloc (b->s, b->cap);
      ck_assert_ptr_nonnull (b->s);
    }
}

/* Appends the N bytes at S. */
static void
tb_put (text_buf *b, const char *s, size_t n)
{
  if (b->n + n + 1 > b->cap)
    {
      b->cap = 2 * (b->n + n + 64);
      b->s = realloc (b->s, b->cap);
      ck_assert_ptr_nonnull (b->s);
    }
  memcpy (b->s + b->n, s, n);
  b->n += n;
  b->s[b->n] = '\0';
}

/* Whether A and B are the same specification, double for double (-0 equal to +0). */
static int
spec_same (const cn_spec *a, const cn_spec *b, char *why, size_t n)
{
  if (a->n_x != b->n_x || a->n_y != b->n_y || a->n_cases != b->n_cases)
    return snprintf (why, n, "sizes %lld %lld %lld vs %lld %lld %lld", (long long) a->n_x,
                     (long long) a->n_y, (long long) a->n_cases, (long long) b->n_x,
                     (long long) b->n_y, (long long) b->n_cases), 0;
  for (int64_t c = 0; c < a->n_cases; c++)
    {
      const cn_spec_case *p = &a->cases[c], *q = &b->cases[c];
      for (int64_t i = 0; i < a->n_x; i++)
        if (p->box.lo[i] != q->box.lo[i] || p->box.hi[i] != q->box.hi[i])
          return snprintf (why, n, "case %lld X %lld: [%a, %a] vs [%a, %a]", (long long) c,
                           (long long) i, p->box.lo[i], p->box.hi[i], q->box.lo[i],
                           q->box.hi[i]), 0;
      if (p->n_clauses != q->n_clauses)
        return snprintf (why, n, "case %lld: %lld vs %lld clauses", (long long) c,
                         (long long) p->n_clauses, (long long) q->n_clauses), 0;
      for (int64_t j = 0; j < p->n_clauses; j++)
        {
          const cn_spec_clause *u = &p->clauses[j], *v = &q->clauses[j];
          if (u->n_rows != v->n_rows)
            return snprintf (why, n, "case %lld clause %lld: %lld vs %lld rows", (long long) c,
                             (long long) j, (long long) u->n_rows, (long long) v->n_rows), 0;
          for (int64_t r = 0; r < u->n_rows; r++)
            {
              if (u->rhs_up[r] != v->rhs_up[r] || u->rhs_down[r] != v->rhs_down[r])
                return snprintf (why, n, "case %lld clause %lld row %lld: rhs [%a, %a] vs [%a, %a]",
                                 (long long) c, (long long) j, (long long) r, u->rhs_down[r],
                                 u->rhs_up[r], v->rhs_down[r], v->rhs_up[r]), 0;
              for (int64_t k = 0; k < a->n_y; k++)
                if (u->mat[r * a->n_y + k] != v->mat[r * a->n_y + k])
                  return snprintf (why, n, "case %lld clause %lld row %lld: coefficient %lld",
                                   (long long) c, (long long) j, (long long) r, (long long) k), 0;
            }
        }
    }
  return 1;
}

/* TEXT (VNN-LIB 1.0) rewritten as 2.0: a header declaring X of shape [1, N_X] and Y of shape
 * [1, N_Y] (or scalars when SCALAR and the count is 1), the declare-const forms dropped, X_i
 * and Y_j written X[0,i] and Y[0,j]. */
static char *
to_v2 (const char *text, int64_t n_x, int64_t n_y)
{
  text_buf b = { 0 };
  int sx = n_x == 1, sy = n_y == 1;
  tb_add (&b, "(vnnlib-version <2.0>)\n(declare-network net\n");
  if (sx)
    tb_add (&b, "  (declare-input X Real [])\n");
  else
    tb_add (&b, "  (declare-input X Real [1, %lld])\n", (long long) n_x);
  if (sy)
    tb_add (&b, "  (declare-output Y float32 [] \"out\"))\n");
  else
    tb_add (&b, "  (declare-output Y float32 [1,%lld] \"out\"))\n", (long long) n_y);
  for (const char *p = text; *p;)
    {
      if (strncmp (p, "(declare-const", 14) == 0)
        {
          p = strchr (p, ')');
          ck_assert_ptr_nonnull (p);
          p++;
          continue;
        }
      if ((p[0] == 'X' || p[0] == 'Y') && p[1] == '_' && p[2] >= '0' && p[2] <= '9'
          && (p == text || strchr (" (\t\n", p[-1]) != NULL))
        {
          char v = p[0];
          long long i = strtoll (p + 2, (char **) &p, 10);
          if ((v == 'X' && sx) || (v == 'Y' && sy))
            tb_add (&b, "%c", v);
          else
            tb_add (&b, "%c[0,%lld]", v, i);
          continue;
        }
      /* copy up to the next place a variable may start */
      size_t k = 1;
      while (p[k] && p[k] != 'X' && p[k] != 'Y' && p[k] != '(')
        k++;
      tb_put (&b, p, k);
      p += k;
    }
  return b.s;
}

/* Every VNN-LIB 1.0 file of the benchmarks and of tests/data/vnnlib that parses, rewritten as
 * 2.0, parses to the same specification. */
static int
v2_same_file (const char *path)
{
  size_t len;
  char *text = tu_read_file (path, &len), why[256];
  cn_spec a, b;
  cn_error e;
  ck_assert_ptr_nonnull (text);
  if (parse (text, &a, &e) != CN_OK)
    {
      free (text);
      return 0;
    }
  char *t2 = to_v2 (text, a.n_x, a.n_y);
  cn_status st = parse (t2, &b, &e);
  ck_assert_msg (st == CN_OK, "%s as 2.0: %s", path, e.msg);
  ck_assert_msg (spec_same (&a, &b, why, sizeof why), "%s as 2.0: %s", path, why);
  cn_spec_clear (&a);
  cn_spec_clear (&b);
  free (text);
  free (t2);
  return 1;
}

START_TEST (v2_same_as_v1)
{
  static const char *const dirs[] = {
    "acasxu/vnnlib", "cgan_2023/vnnlib", "collins_rul_cnn_2023/vnnlib", "dist_shift_2023/vnnlib",
    "linearizenn/vnnlib", "ml4acopf_2024/vnnlib", "mnist_fc/vnnlib", "mnist_fc/vnnlib_2022",
    "nn4sys_2023/vnnlib", "oval21/vnnlib", "oval21/vnnlib_2022", "safenlp/vnnlib/medical",
    "safenlp/vnnlib/ruarobot", "test/vnnlib", "vit_2023/vnnlib"
  };
  const size_t n_dirs = sizeof dirs / sizeof dirs[0];
  char dpath[4096], path[8192];
  int n = 0;
  for (size_t k = 0; k <= n_dirs; k++)
    {
      const char *root = k == 0 ? tu_srcdir () : tu_benchmarks ();
      if (root == NULL)
        continue;
      snprintf (dpath, sizeof dpath, "%s/%s", root, k == 0 ? "tests/data/vnnlib" : dirs[k - 1]);
      DIR *dh = opendir (dpath);
      if (dh == NULL)
        continue;
      for (struct dirent *de; (de = readdir (dh)) != NULL;)
        {
          size_t l = strlen (de->d_name);
          if (l < 7 || strcmp (de->d_name + l - 7, ".vnnlib") != 0
              || strncmp (de->d_name, "v2_", 3) == 0)
            continue;
          snprintf (path, sizeof path, "%s/%s", dpath, de->d_name);
          n += v2_same_file (path);
        }
      closedir (dh);
    }
  fprintf (stderr, "check_vnnlib: %d files read the same as 1.0 and 2.0\n", n);
  ck_assert_int_ge (n, 5);
}
END_TEST

/* A random decimal of 1 to 12 digits with an exponent, as text. */
static void
random_decimal (char *buf, size_t n)
{
  int digits = (int) tu_int (1, 12), point = (int) tu_int (0, digits);
  size_t k = 0;
  if (tu_int (0, 1))
    buf[k++] = '-';
  for (int i = 0; i < digits; i++)
    {
      if (i == point && i > 0)
        buf[k++] = '.';
      buf[k++] = (char) ('0' + tu_int (0, 9));
    }
  if (tu_int (0, 2) == 0)
    k += (size_t) snprintf (buf + k, n - k, "e%d", (int) tu_int (-40, 40));
  buf[k] = '\0';
}

/* The negation of the decimal text D. */
static void
negate_decimal (const char *d, char *buf, size_t n)
{
  size_t k = 0;
  if (d[0] == '-')
    d++;
  else if (n > 1)
    buf[k++] = '-';
  while (*d && k + 1 < n)
    buf[k++] = *d++;
  buf[k] = '\0';
}

/* Generated properties, each written twice: in VNN-LIB 1.0 with plain comparisons, and in 2.0
 * with the same constraints through arithmetic (scaled, negated, shifted, flipped), strict
 * comparisons for ranges written as or-ed halves, == and !=; both must give the same
 * specification, double for double. */
START_TEST (v2_arithmetic_same)
{
  for (int round = 0; round < 300; round++)
    {
      text_buf one = { 0 }, two = { 0 };
      int64_t nx = tu_int (1, 4), ny = tu_int (2, 4);
      char c[64], nc[64], why[256];
      for (int64_t i = 0; i < nx; i++)
        tb_add (&one, "(declare-const X_%lld Real)\n", (long long) i);
      for (int64_t j = 0; j < ny; j++)
        tb_add (&one, "(declare-const Y_%lld Real)\n", (long long) j);
      tb_add (&two, "(vnnlib-version <2.0>)\n(declare-network n (declare-input X Real [%lld]) "
              "(declare-output Y Real [1, %lld]))\n", (long long) nx, (long long) ny);
      /* the box: X_i in [c, c + 1 or more] */
      for (int64_t i = 0; i < nx; i++)
        {
          random_decimal (c, sizeof c);
          negate_decimal (c, nc, sizeof nc);
          double lo = strtod (c, NULL);
          char hi[64];
          snprintf (hi, sizeof hi, "%.17g", fabs (lo) * 2 + 1);
          tb_add (&one, "(assert (>= X_%lld %s))\n(assert (<= X_%lld %s))\n", (long long) i, c,
                  (long long) i, hi);
          switch (tu_int (0, 3))
            {
            case 0:
              tb_add (&two, "(assert (<= %s X[%lld]))\n", c, (long long) i);
              break;
            case 1:
              tb_add (&two, "(assert (<= (- X[%lld]) %s))\n", (long long) i, nc);
              break;
            case 2:
              tb_add (&two, "(assert (>= (* 4 X[%lld]) (* %s 4.0)))\n", (long long) i, c);
              break;
            default:
              tb_add (&two, "(assert (>= (+ X[%lld] 0.1 %s) (+ %s 0.1 %s)))\n", (long long) i,
                      nc, c, nc);
            }
          if (tu_int (0, 1))
            tb_add (&two, "(assert (>= %s X[%lld]))\n", hi, (long long) i);
          else
            tb_add (&two, "(assert (and (<= (* -1 (- X[%lld])) %s)))\n", (long long) i, hi);
        }
      /* the outputs: 1 to 3 asserts, each a row or an or of ands of rows */
      int na = (int) tu_int (1, 3);
      for (int k = 0; k < na; k++)
        {
          int disj = (int) tu_int (0, 2);
          tb_add (&one, "(assert %s", disj ? "(or " : "");
          tb_add (&two, "(assert %s", disj ? "(or " : "");
          for (int d = 0; d < (disj ? disj + 1 : 1); d++)
            {
              int rows = (int) tu_int (1, 2), form = (int) tu_int (0, 6);
              int64_t a = tu_int (0, ny - 1), b = (a + tu_int (1, ny - 1)) % ny;
              random_decimal (c, sizeof c);
              negate_decimal (c, nc, sizeof nc);
              if (form == 5 && disj)
                {
                  /* y_a != c  as  (or (< y_a c) (> y_a c)): only directly in an or */
                  tb_add (&one, "(< Y_%lld %s) (> Y_%lld %s) ", (long long) a, c, (long long) a,
                          c);
                  tb_add (&two, "(!= Y[0,%lld] %s) ", (long long) a, c);
                  continue;
                }
              if (form == 6)
                {
                  /* y_a == y_b  as  (and (<= y_a y_b) (<= y_b y_a)) */
                  tb_add (&one, "(and (<= Y_%lld Y_%lld) (<= Y_%lld Y_%lld)) ", (long long) a,
                          (long long) b, (long long) b, (long long) a);
                  tb_add (&two, "(== (* 2 Y[0,%lld]) (+ Y[0,%lld] Y[0,%lld])) ", (long long) a,
                          (long long) b, (long long) a);
                  continue;
                }
              tb_add (&one, "(and ");
              tb_add (&two, "(and ");
              for (int r = 0; r < rows; r++)
                switch (form)
                  {
                  case 0:
                    tb_add (&one, "(<= Y_%lld Y_%lld) ", (long long) a, (long long) b);
                    tb_add (&two, "(<= (* 3 Y[0,%lld]) (* 3 Y[0,%lld])) ", (long long) a,
                            (long long) b);
                    break;
                  case 1:
                    tb_add (&one, "(>= Y_%lld %s) ", (long long) a, c);
                    tb_add (&two, "(<= (* 2.5 %s) (* Y[0,%lld] 2.5)) ", c, (long long) a);
                    break;
                  case 2:
                    tb_add (&one, "(<= Y_%lld %s) ", (long long) a, c);
                    tb_add (&two, "(>= (- %s Y[0,%lld]) 0) ", c, (long long) a);
                    break;
                  case 3:
                    tb_add (&one, "(< Y_%lld %s) ", (long long) a, c);
                    tb_add (&two, "(> (- Y[0,%lld]) %s) ", (long long) a, nc);
                    break;
                  default:
                    tb_add (&one, "(> Y_%lld Y_%lld) ", (long long) a, (long long) b);
                    tb_add (&two, "(< (- Y[0,%lld] Y[0,%lld] Y[0,%lld]) (- Y[0,%lld])) ",
                            (long long) b, (long long) a, (long long) b, (long long) b);
                  }
              tb_add (&one, ") ");
              tb_add (&two, ") ");
            }
          tb_add (&one, "%s)\n", disj ? ")" : "");
          tb_add (&two, "%s)\n", disj ? ")" : "");
        }
      cn_spec s1, s2;
      cn_error e;
      cn_status st = parse (one.s, &s1, &e);
      ck_assert_msg (st == CN_OK, "round %d, 1.0: %s\n%s", round, e.msg, one.s);
      st = parse (two.s, &s2, &e);
      ck_assert_msg (st == CN_OK, "round %d, 2.0: %s\n%s", round, e.msg, two.s);
      ck_assert_msg (spec_same (&s1, &s2, why, sizeof why), "round %d: %s\n%s\n%s", round, why,
                     one.s, two.s);
      cn_spec_clear (&s1);
      cn_spec_clear (&s2);
      free (one.s);
      free (two.s);
    }
}
END_TEST

/* Rows with rational coefficients: (<= (+ (* p Y[0]) (* q Y[1])) c) is stored as the coprime
 * integers m = (m0, m1) proportional to (p, q), and rhs bounds that enclose c * m0 / p,
 * checked against the rational computed here. */
START_TEST (v2_rational_rows)
{
  mpq_t p, q, c, t;
  mpfr_t f;
  mpq_inits (p, q, c, t, NULL);
  mpfr_init2 (f, 53);
  for (int round = 0; round < 500; round++)
    {
      char sp[64], sq[64], sc[64], text[512];
      long ip = (long) tu_int (-999, 999), iq = (long) tu_int (-999, 999);
      int ep = (int) tu_int (0, 3), eq = (int) tu_int (0, 3);
      if (ip == 0)
        ip = 7;
      if (iq == 0)
        iq = -3;
      snprintf (sp, sizeof sp, "%lde-%d", ip, ep);
      snprintf (sq, sizeof sq, "%lde-%d", iq, eq);
      long ic = (long) tu_int (-1000000000, 1000000000);
      int ec = (int) tu_int (-8, 8);
      snprintf (sc, sizeof sc, "%lde%d", ic, ec);
      snprintf (text, sizeof text,
                "(vnnlib-version <2.0>)\n(declare-network n (declare-input X Real [1]) "
                "(declare-output Y Real [2]))\n(assert (>= X[0] 0))(assert (<= X[0] 1))\n"
                "(assert (<= (+ (* %s Y[0]) (* Y[1] %s)) %s))\n", sp, sq, sc);
      cn_spec s;
      cn_error e;
      ck_assert_msg (parse (text, &s, &e) == CN_OK, "%s: %s", text, e.msg);
      const cn_spec_clause *cl = &s.cases[0].clauses[0];
      double m0 = cl->mat[0], m1 = cl->mat[1];
      mpq_set_si (p, ip, 1);
      mpq_set_si (t, ep == 0 ? 1 : ep == 1 ? 10 : ep == 2 ? 100 : 1000, 1);
      mpq_div (p, p, t);
      mpq_set_si (q, iq, 1);
      mpq_set_si (t, eq == 0 ? 1 : eq == 1 ? 10 : eq == 2 ? 100 : 1000, 1);
      mpq_div (q, q, t);
      /* c = ic 10^ec exactly */
      mpq_set_si (c, ic, 1);
      mpz_ui_pow_ui (mpq_numref (t), 10, (unsigned long) abs (ec));
      mpz_set_ui (mpq_denref (t), 1);
      if (ec >= 0)
        mpq_mul (c, c, t);
      else
        mpq_div (c, c, t);
      /* m0 / m1 == p / q, integers, coprime, same signs as p and q */
      ck_assert (m0 == trunc (m0) && m1 == trunc (m1));
      ck_assert ((m0 > 0) == (mpq_sgn (p) > 0) && (m1 > 0) == (mpq_sgn (q) > 0));
      mpq_set_d (t, m0 / 1.0);
      mpq_mul (t, t, q);
      {
        mpq_t u;
        mpq_init (u);
        mpq_set_d (u, m1);
        mpq_mul (u, u, p);
        ck_assert_msg (mpq_equal (t, u), "%s: %g %g", text, m0, m1);
        mpq_clear (u);
      }
      {
        mpz_t g, a, b;
        mpz_inits (g, a, b, NULL);
        mpz_set_d (a, m0);
        mpz_set_d (b, m1);
        mpz_gcd (g, a, b);
        ck_assert (mpz_cmp_ui (g, 1) == 0);
        mpz_clears (g, a, b, NULL);
      }
      /* rhs = c * m0 / p, rounded both ways */
      mpq_set_d (t, m0);
      mpq_mul (t, t, c);
      mpq_div (t, t, p);
      mpfr_set_q (f, t, MPFR_RNDD);
      ck_assert_msg (cl->rhs_down[0] == mpfr_get_d (f, MPFR_RNDD), "%s", text);
      mpfr_set_q (f, t, MPFR_RNDU);
      ck_assert_msg (cl->rhs_up[0] == mpfr_get_d (f, MPFR_RNDU), "%s", text);
      cn_spec_clear (&s);
    }
  mpq_clears (p, q, c, t, NULL);
  mpfr_clear (f);
}
END_TEST

/* Strictness: a strict row keeps RU(r) for refutations and a counterexample bound below r. */
START_TEST (v2_strict)
{
  static const struct
  {
    const char *cmp;
    double mat, down, up;
  } rows[] = {
    { "(< Y 1)", 1, 0x1.fffffffffffffp-1, 1 },
    { "(<= Y 1)", 1, 1, 1 },
    { "(> Y 1)", -1, -0x1.0000000000001p0, -1 },
    { "(< Y 0.1)", 1, 0x1.9999999999999p-4, 0x1.999999999999ap-4 },
    { "(< 0 Y)", -1, -0x0.0000000000001p-1022, 0 },
  };
  for (size_t k = 0; k < sizeof rows / sizeof rows[0]; k++)
    {
      char text[256];
      cn_spec s;
      cn_error e;
      snprintf (text, sizeof text, "(vnnlib-version <2.0>)(declare-network n (declare-input X "
                "Real []) (declare-output Y Real []))(assert (>= X 0))(assert (<= X 1))"
                "(assert %s)", rows[k].cmp);
      ck_assert_msg (parse (text, &s, &e) == CN_OK, "%s", e.msg);
      const cn_spec_clause *cl = &s.cases[0].clauses[0];
      ck_assert_msg (cl->mat[0] == rows[k].mat && cl->rhs_down[0] == rows[k].down
                     && cl->rhs_up[0] == rows[k].up, "%s: %g [%a, %a]", rows[k].cmp,
                     cl->mat[0], cl->rhs_down[0], cl->rhs_up[0]);
      cn_spec_clear (&s);
    }
}
END_TEST

#define V2H "(vnnlib-version <2.0>)\n"
#define V2N V2H "(declare-network n (declare-input X Real [2]) (declare-output Y Real [1,2]))\n"
#define V2B "(assert (>= X[0] 0))(assert (<= X[0] 1))(assert (>= X[1] 0))(assert (<= X[1] 1))\n"

START_TEST (v2_errors)
{
  static const struct refusal bad[] = {
    { V2H "(vnnlib-version <2.0>)", CN_EPARSE, "t:2:2: ", "must be the first" },
    { "(vnnlib-version <3.0>)", CN_EUNSUPPORTED, "t:1:17: ", "version <3.0> is not supported" },
    { "(vnnlib-version 2.0)", CN_EPARSE, "t:1:17: ", "malformed version" },
    { "(vnnlib-version <2.>)", CN_EPARSE, "t:1:17: ", "malformed version" },
    { "; a comment\n" V2H, CN_EPARSE, "t:2:1: ", "no declare-network" },
    { V2H "(declare-const X_0 Real)", CN_EPARSE, "t:2:2: ", "declare-const is VNN-LIB 1.0" },
    { V2H "(declare-network n (declare-input X Real [2]))", CN_EPARSE, "t:2:1: ", "no output" },
    { V2H "(declare-network n (declare-output Y Real [2]))", CN_EPARSE, "t:2:1: ", "no input" },
    { V2N "(declare-network m (declare-input A Real [2]) (declare-output B Real [2]))",
      CN_EUNSUPPORTED, "t:3:18: ", "second network 'm' (the first is at 2:1)" },
    { V2H "(declare-network n (declare-input X Real [2]) (declare-input Z Real [2]) "
      "(declare-output Y Real [2]))", CN_EUNSUPPORTED, "t:2:47: ", "second input 'Z'" },
    { V2H "(declare-network n (declare-input X Real [2]) (declare-output Y Real [2]) "
      "(declare-output Z Real [2]))", CN_EUNSUPPORTED, "t:2:75: ", "second output 'Z'" },
    { V2H "(declare-network n (declare-input X Real [2]) (declare-hidden H Real [2] \"h\") "
      "(declare-output Y Real [2]))", CN_EUNSUPPORTED, "t:2:48: ", "declare-hidden" },
    { V2H "(declare-network n (declare-output Y Real [2]) (declare-input X Real [2]))",
      CN_EPARSE, "t:2:48: ", "declare-input after declare-output" },
    { V2H "(declare-network n (equal-to m) (declare-input X Real [2]) (declare-output Y Real "
      "[2]))", CN_EUNSUPPORTED, "t:2:21: ", "relates two networks" },
    { V2H "(declare-network n (declare-input X int64 [2]) (declare-output Y Real [2]))",
      CN_EUNSUPPORTED, "t:2:37: ", "element type 'int64'" },
    { V2H "(declare-network n (declare-input X Reals [2]) (declare-output Y Real [2]))",
      CN_EPARSE, "t:2:37: ", "unknown element type 'Reals'" },
    { V2H "(declare-network n (declare-input X Real [2,0]) (declare-output Y Real [2]))",
      CN_EUNSUPPORTED, "t:2:45: ", "size 0" },
    { V2H "(declare-network n (declare-input X Real [2 3]) (declare-output Y Real [2]))",
      CN_EPARSE, "t:2:45: ", "expected ',' or ']'" },
    { V2H "(declare-network n (declare-input X Real [-2]) (declare-output Y Real [2]))",
      CN_EPARSE, "t:2:43: ", "positive integer" },
    { V2H "(declare-network n (declare-input X Real [1,1,1,1,1,1,1,1,1]) (declare-output Y "
      "Real [2]))", CN_EUNSUPPORTED, "t:2:59: ", "more than 8 dimensions" },
    { V2H "(declare-network n (declare-input X Real [4000000000,4000000000]) (declare-output "
      "Y Real [2]))", CN_ELIMIT, "t:2:35: ", "size limit" },
    { V2H "(declare-network n (declare-input X Real [2]) (declare-output X Real [2]))",
      CN_EPARSE, "t:2:63: ", "X is declared twice (first at 2:35)" },
    { V2H "(declare-network n (declare-input X Real [2] \"x) (declare-output Y Real [2]))",
      CN_EPARSE, "t:2:46: ", "never closed" },
    { V2H "(declare-network 9n (declare-input X Real [2]) (declare-output Y Real [2]))",
      CN_EPARSE, "t:2:18: ", "not a name" },
    { V2N V2B "(declare-network m (declare-input A Real [2]) (declare-output B Real [2]))",
      CN_EPARSE, "t:4:1: ", "declare-network after an assert" },
    { V2N V2B "(assert (<= Y 1))", CN_EPARSE, "t:4:13: ", "'Y' has shape [1,2]: an element "
      "takes 2 indices, found 0" },
    { V2N V2B "(assert (<= Y[0] 1))", CN_EPARSE, "t:4:13: ", "takes 2 indices, found 1" },
    { V2N V2B "(assert (<= Y[0,2] 1))", CN_EPARSE, "t:4:17: ", "index 2 is out of range" },
    { V2N V2B "(assert (<= Y[0,1,0] 1))", CN_EPARSE, "t:4:19: ", "too many indices" },
    { V2N V2B "(assert (<= Y[0,-1] 1))", CN_EPARSE, "t:4:17: ", "nonnegative integer" },
    { V2N V2B "(assert (<= Y[0,] 1))", CN_EPARSE, "t:4:17: ", "expected an index" },
    { V2N V2B "(assert (<= Z[0,0] 1))", CN_EPARSE, "t:4:13: ", "undeclared variable 'Z'" },
    { V2N V2B "(assert (<= n 1))", CN_EPARSE, "t:4:13: ", "names a network" },
    { V2N V2B "(assert (<= Y[0,0] X[0]))", CN_EUNSUPPORTED, "t:4:9: ", "input X with" },
    { V2N V2B "(assert (<= (+ X[0] X[1]) 1))", CN_EUNSUPPORTED, "t:4:9: ", "two or more inputs" },
    { V2N V2B "(assert (<= (* Y[0,0] Y[0,1]) 1))", CN_EUNSUPPORTED, "t:4:13: ", "not linear" },
    { V2N "(assert (>= X[0] 0))(assert (<= X[0] 1))", CN_EPARSE, "t:2:20: ",
      "X has 2 elements, but the asserts bound only 1 from below" },
    { V2N "(assert (>= X[0] 0))(assert (<= X[0] 1))(assert (>= X[0] 0))", CN_EPARSE, "t:2:20: ",
      "X[1] has no lower bound" },
    { V2N "(assert (> X[0] 1))(assert (<= X[0] 1))(assert (>= X[1] 0))(assert (<= X[1] 1))",
      CN_EPARSE, "t:3:28: ", "empty box: X[0] lies in [1, 1]" },
    { V2H "(declare-network n (declare-input X Real [2,2]) (declare-output Y Real [2]))"
      "(assert (>= X[0,0] 0))(assert (<= X[0,0] 1))(assert (>= X[0,1] 0))(assert (<= X[0,1] 1))"
      "(assert (>= X[1,0] 0))(assert (<= X[1,0] 1))(assert (>= X[1,1] 2))(assert (<= X[1,1] 1))",
      CN_EPARSE, "t:2:239: ", "empty box: X[1,1] in [2, 1]" },
  };
  check_refusals (bad, sizeof bad / sizeof bad[0]);
}
END_TEST

/* ---- the files of tests/data/vnnlib -------------------------------------------------------- */

START_TEST (data_files)
{
  char dpath[4096], path[8192];
  int n = 0;
  snprintf (dpath, sizeof dpath, "%s/tests/data/vnnlib", tu_srcdir ());
  DIR *dh = opendir (dpath);
  ck_assert_msg (dh != NULL, "cannot open %s", dpath);
  for (struct dirent *de; (de = readdir (dh)) != NULL;)
    {
      size_t l = strlen (de->d_name), len;
      if (l < 7 || strcmp (de->d_name + l - 7, ".vnnlib") != 0)
        continue;
      snprintf (path, sizeof path, "%s/%s", dpath, de->d_name);
      char *text = tu_read_file (path, &len);
      ck_assert_ptr_nonnull (text);
      /* First line: "; expect: OK <shape>" or "; expect: <STATUS> <line>:<column>". */
      char status[32], rest[256], sh[256];
      ck_assert_msg (sscanf (text, "; expect: %31s %255[^\r\n]", status, rest) == 2,
                     "%s: no expectation", path);
      free (text);
      cn_spec s;
      cn_error e;
      cn_error_clear (&e);
      cn_status st = cn_spec_load_vnnlib (path, &s, &e);
      ck_assert_msg (strcmp (cn_status_name (st), status) == 0, "%s: %s, expected %s: %s", path,
                     cn_status_name (st), status, e.msg);
      if (st == CN_OK)
        {
          shape (&s, sh, sizeof sh);
          ck_assert_msg (strcmp (sh, rest) == 0, "%s: %s, expected %s", path, sh, rest);
          cn_spec_clear (&s);
        }
      else
        {
          char where[8704];
          snprintf (where, sizeof where, "%s:%s: ", path, rest);
          ck_assert_msg (strncmp (e.msg, where, strlen (where)) == 0, "%s: message '%s'", path,
                         e.msg);
          assert_empty (&s);
        }
      n++;
    }
  closedir (dh);
  ck_assert_int_ge (n, 10);
}
END_TEST

int
main (void)
{
  tu_init ();
  Suite *s = suite_create ("vnnlib");
  TCase *tc = tcase_create ("vnnlib");
  tcase_set_timeout (tc, 120);
  tcase_add_test (tc, benchmarks_parse);
  tcase_add_test (tc, rounding_bounds);
  tcase_add_test (tc, rounding_random);
  tcase_add_test (tc, rounding_rows);
  tcase_add_test (tc, dnf_structure);
  tcase_add_test (tc, errors);
  tcase_add_test (tc, errors_limits);
  tcase_add_test (tc, data_files);
  tcase_add_test (tc, v2_same_as_v1);
  tcase_add_test (tc, v2_arithmetic_same);
  tcase_add_test (tc, v2_rational_rows);
  tcase_add_test (tc, v2_strict);
  tcase_add_test (tc, v2_errors);
  suite_add_tcase (s, tc);
  return tu_run_suite (s);
}
