/* SPDX-License-Identifier: MIT */
/* src/io/vnnlib.c: VNN-LIB 1.0 (the SMT-LIB subset of VNN-COMP, VNNCOMP.md section 3) and
 * VNN-LIB 2.0 (the LBNF grammar of VNNLIB-Standard), read into one cn_spec.
 *
 * Versions.  A file whose first statement is (vnnlib-version <2.x>) is 2.0; any other is 1.0.
 *   1.0: (declare-const X_i Real), (declare-const Y_j Real); (check-sat), (get-model),
 *        (set-logic ..), (set-info ..) and (set-option ..) are skipped.
 *   2.0: (declare-network N (declare-input X T [d0,...]) (declare-output Y T [..])), each with
 *        an optional "onnx-name" (accepted, not used: the network has one input and one
 *        output, which the declarations name in order); T is Real or a floating-point ONNX
 *        type (float16, float32, float64, bfloat16, ...), whose values are reals, so the
 *        property is read over the reals (a sound superset of a float-typed set; every
 *        counterexample is checked in binary32 too).  An element is X[i0,...,ik] (one index
 *        per dimension, row-major into X's flat numbering) or X for a scalar (shape []).
 *        Refused by name (CN_EUNSUPPORTED): a second network, a second input or output,
 *        declare-hidden, isomorphic-to and equal-to, integer and other non-real types.
 * Both versions then take (assert F) with
 *   F := C | (and F ...) | (or F ...),   C := (op A A),   op one of <= >= < > == = != distinct,
 *   A := a variable element | a number | (+ A ...) | (- A) | (- A A ...) | (* A ...),
 * where a product has at most one factor with a variable (the arithmetic is linear) and the
 * formulas are those whose multiplied-out form is a conjunction of "factors", each a disjunction
 * of conjunctions of comparisons: an 'and' at the top of an assert splits it into factors, an
 * 'or' inside an 'or' and an 'and' inside an 'and' flatten, an 'or' below an 'and' below an
 * 'or' is refused (it would be multiplied out).  a != b is (or (< a b) (> a b)), so it stands
 * where a disjunct may; a == b is (and (<= a b) (<= b a)).  Each comparison, once its sides
 * are a linear form  F = l - r  exact over Q, must bound one input element by a constant (the
 * input set is a box) or be a row over outputs only.  Everything else is refused with a
 * "name:line:column: message": CN_EPARSE for malformed text, CN_EUNSUPPORTED for text that is
 * well formed but outside what certnn reads (an input against an output, two inputs in one
 * comparison, a nonlinear product, ...).
 *
 * Semantics.  The file is the conjunction of its asserts, and the conjunction of the factors
 * of each.  A factor is a disjunction of conjunctions ("disjuncts"); a comparison or an `and`
 * is a disjunction of one.  Multiplying out gives the DNF  OR over (d_1, ..., d_K) of  d_1 AND
 * ... AND d_K,  one term per choice of a disjunct in every factor.  In each term the X
 * comparisons intersect into a box and the Y comparisons form one clause; terms whose boxes are
 * equal (as doubles) share a case.  The term count is the product of the disjunct counts; it is
 * capped (CN_EUNSUPPORTED beyond the caps), so memory and time stay bounded.  A term with no Y
 * comparison is a clause with n_rows == 0: the unsafe condition then holds at every point of
 * the box.
 *
 * Rounding.  A plain constant c (one side of a comparison whose other side is one variable) is
 * read from its decimal text by MPFR, correctly rounded in both directions: c_d = RD(c) and
 * c_u = RU(c), so c_d <= c <= c_u exactly, with c_d == c_u iff c is a double.  Arithmetic is
 * exact over the rationals (GMP), and its results are rounded the same way by MPFR.  A bound
 * X_i >= c stores lo = c_d and X_i <= c stores hi = c_u: the stored box holds the exact box.  A
 * row  a . y <= r  stores rhs_up = RU(r), rhs_down = RD(r); for r = -c these are -c_d and -c_u,
 * exact negations.  A row from arithmetic is first scaled by a positive rational so that its
 * coefficients are coprime integers (refused beyond 53 bits), exact doubles.  A strict row
 * a . y < r keeps rhs_up = RU(r) (a lower bound above it refutes the row) and sets rhs_down to
 * the double below r where r is a double, so a value <= rhs_down satisfies the row.
 * Intersections take max of the lows and min of the highs; since RD and RU are monotone, max_k
 * RD(c_k) = RD(max_k c_k), so the intersection of rounded bounds is the rounding of the exact
 * intersection.  Emptiness is judged on the stored doubles: lo > hi is an empty box (refused);
 * lo == hi is the single point lo only when both ends are closed there (their constants were
 * doubles and the comparisons not strict), and otherwise empty (refused); an exact box that is
 * empty but whose rounded ends satisfy lo < hi (within one ulp) is kept as that rounded box, a
 * superset of the exact set, in which no counterexample can be found (a counterexample lies
 * strictly between rounded ends, or on a single-point axis). */
#include <config.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <mpfr.h>
#include "certnn/spec.h"
#include "certnn/tensor.h"

/* Caps on the multiplied-out DNF: terms, box evaluations (terms over the asserts that bound X,
 * times n_x), and stored doubles (boxes plus rows).  Far above every VNN-COMP file (at most 8
 * terms), far below what would exhaust memory. */
#define MAX_TERMS ((uint64_t) 1 << 22)
#define MAX_BOX_WORK ((uint64_t) 1 << 28)
#define MAX_DOUBLES ((uint64_t) 1 << 27)
/* Nesting of formulas (and, or) and of arithmetic terms. */
#define MAX_DEPTH 64
/* Arithmetic is exact over the rationals; a number of arithmetic may have at most MAX_DIGITS
 * digits and a decimal exponent of magnitude at most MAX_EXP, and every rational met on the way
 * at most MAX_QBITS bits.  (A plain constant compared with a variable has no such cap: it is
 * rounded by MPFR straight from its text.) */
#define MAX_DIGITS 4000
#define MAX_EXP 4000
#define MAX_QBITS 65536
#define NONE SIZE_MAX

/* T_LB, T_RB, T_COMMA and T_STR exist in VNN-LIB 2.0 only ('[', ']', ',' and a "string"). */
enum tok_kind { T_END, T_LP, T_RP, T_ATOM, T_LB, T_RB, T_COMMA, T_STR, T_BADSTR };

struct tok
{
  enum tok_kind kind;
  size_t off, len;              /* byte offset and length in the text */
};

/* A side of a comparison: an input element, an output element, a constant c given as
 * [c_d, c_u] (and its token, for arithmetic), or 'L', an arithmetic term (a linear form). */
struct term
{
  char kind;                    /* 'X', 'Y', 'C' or 'L' */
  int64_t idx;
  double d, u;
  struct tok t;
};

/* A linear form  c0 + sum_k c_k v_k  over the elements v_k of X and Y, exact over Q. */
struct lterm
{
  char kind;                    /* 'X' or 'Y' */
  int64_t idx;
  mpq_t c;
};

struct lin
{
  struct lterm *t;
  size_t n, cap;
  mpq_t c0;
};

enum atom_kind { A_XLO, A_XHI, A_ROW };

/* One comparison, normalised.  A_XLO: x_a >= lo with lo = d.  A_XHI: x_a <= hi with hi = u.
 * OPEN says that the exact bound excludes the stored double (the constant was not a double, or
 * the comparison was strict): then lo == hi means an empty set, not a point.  A_ROW:
 * sum_k coef[c0 + k].c y_{coef[c0 + k].idx} <= r with d and u the rounded rhs: u = RU(r), and d
 * <= r such that a value <= d satisfies the row (d = RD(r), or the double below r for a strict
 * row with r a double).  Atoms are stored in file order. */
struct atom
{
  unsigned char kind, open;
  int64_t a;
  size_t c0, nc;
  double d, u;
  size_t off;                   /* offset of the comparison's '(' */
};

struct rowcoef
{
  int64_t idx;
  double c;                     /* an integer below 2^53 in magnitude: exact */
};

/* A disjunct: atoms [a0, a0 + na).  An assert ("factor"): disjuncts [d0, d0 + nd). */
struct disj
{
  size_t a0, na;
  int has_x;
};

struct factor
{
  size_t d0, nd;
  int has_x;
};

/* VNN-LIB 1.0: declared variables of one kind, decl[i] the offset of X_i's declaration, NONE
 * if absent.  In 2.0 only COUNT is used (the element count of the declared tensor). */
struct vars
{
  size_t *decl;
  size_t cap;
  int64_t count, max;
};

/* VNN-LIB 2.0: a declared tensor. */
struct tensor_decl
{
  size_t off;                   /* its declaration's '(', NONE if not declared */
  struct tok name;
  cn_shape shape;
};

struct parser
{
  const char *text;
  size_t len, pos;
  const char *name;
  cn_error *err;
  int v2;                       /* the text begins with (vnnlib-version <2.x>) */
  size_t stmt_off;              /* '(' of the statement being read */
  struct vars x, y;
  struct tok network;           /* 2.0: the declared network's name (len 0 before) */
  size_t network_off, first_assert, version_off;
  struct tensor_decl in, out;   /* 2.0: the network's input X and output Y */
  struct atom *atoms;
  size_t n_atoms, cap_atoms;
  struct rowcoef *coefs;
  size_t n_coefs, cap_coefs;
  struct disj *disjs;
  size_t n_disjs, cap_disjs;
  struct factor *factors;
  size_t n_factors, cap_factors;
  char *buf;                    /* NUL-terminated copy of a number */
  size_t cap_buf;
  mpfr_t num;
  mpq_t q, q2;                  /* scratch */
  mpz_t z;
};

/* ---- errors ----------------------------------------------------------------------------- */

/* The line and column of the byte at OFF, both from 1; a column counts bytes, a tab is one. */
static void
line_col (const struct parser *p, size_t off, unsigned long *line, unsigned long *col)
{
  size_t bol = 0;
  *line = 1;
  if (off > p->len)
    off = p->len;
  for (size_t i = 0; i < off; i++)
    if (p->text[i] == '\n')
      {
        ++*line;
        bol = i + 1;
      }
  *col = (unsigned long) (off - bol + 1);
}

/* Records "name:line:column: message" for the byte at OFF. */
static cn_status
perr (struct parser *p, cn_status code, size_t off, const char *fmt, ...)
#ifdef __GNUC__
  __attribute__ ((format (printf, 4, 5)))
#endif
  ;

static cn_status
perr (struct parser *p, cn_status code, size_t off, const char *fmt, ...)
{
  char msg[CN_ERROR_MSG_SIZE];
  unsigned long line, col;
  va_list ap;

  line_col (p, off, &line, &col);
  va_start (ap, fmt);
  vsnprintf (msg, sizeof msg, fmt, ap);
  va_end (ap);
  return cn_error_set (p->err, code, "%s:%lu:%lu: %s", p->name, line, col, msg);
}

static cn_status
nomem (struct parser *p)
{
  return cn_error_set (p->err, CN_ENOMEM, "%s: out of memory", p->name);
}

/* Text of a token for messages, at most 40 bytes. */
#define TOKF "%.*s"
#define TOKA(p, t) (int) ((t)->len > 40 ? 40 : (t)->len), (p)->text + (t)->off

/* Returns PTR (an array of SIZE-byte elements with capacity *CAP) grown, by doubling, to hold at
 * least N elements: PTR itself if it already does, NULL (PTR untouched) if memory is short. */
static void *
grow (void *ptr, size_t *cap, size_t n, size_t size)
{
  if (n <= *cap && ptr != NULL)
    return ptr;
  size_t c = *cap ? *cap : 16;
  while (c < n)
    {
      if (c > SIZE_MAX / 2 / size)
        return NULL;
      c *= 2;
    }
  void *q = realloc (ptr, c * size);
  if (q != NULL)
    *cap = c;
  return q;
}

/* Grows the array ARR of capacity CAP to N elements; evaluates to 0, or -1 if memory is short. */
#define GROW(arr, cap, n)                                                  \
  (grow_tmp = grow ((arr), &(cap), (n), sizeof *(arr)),                    \
   grow_tmp == NULL ? -1 : ((arr) = grow_tmp, 0))

/* ---- lexer ------------------------------------------------------------------------------ */

static int
is_space (char c)
{
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

/* A token ends at white space, a parenthesis or a comment; in VNN-LIB 2.0 also at '[', ']',
 * ',' and '"'. */
static int
is_delim (const struct parser *p, char c)
{
  return is_space (c) || c == '(' || c == ')' || c == ';'
    || (p->v2 && (c == '[' || c == ']' || c == ',' || c == '"'));
}

/* Reads the next token; comments (';' to the end of the line) and white space are skipped.  A
 * 2.0 string runs from '"' to the next '"' not escaped by a backslash (T_BADSTR when the text
 * ends first). */
static void
next_tok (struct parser *p, struct tok *t)
{
  const char *s = p->text;
  size_t n = p->len, i = p->pos;

  for (;;)
    {
      while (i < n && is_space (s[i]))
        i++;
      if (i < n && s[i] == ';')
        {
          while (i < n && s[i] != '\n')
            i++;
          continue;
        }
      break;
    }
  t->off = i;
  t->len = 1;
  if (i >= n)
    {
      t->kind = T_END;
      t->len = 0;
    }
  else if (s[i] == '(')
    t->kind = T_LP, i++;
  else if (s[i] == ')')
    t->kind = T_RP, i++;
  else if (p->v2 && s[i] == '[')
    t->kind = T_LB, i++;
  else if (p->v2 && s[i] == ']')
    t->kind = T_RB, i++;
  else if (p->v2 && s[i] == ',')
    t->kind = T_COMMA, i++;
  else if (p->v2 && s[i] == '"')
    {
      size_t j = i + 1;
      while (j < n && s[j] != '"')
        j += s[j] == '\\' ? 2 : 1;
      t->kind = j < n ? T_STR : T_BADSTR;
      i = j < n ? j + 1 : n;
      t->len = i - t->off;
    }
  else
    {
      size_t j = i;
      while (j < n && !is_delim (p, s[j]))
        j++;
      t->kind = T_ATOM;
      t->len = j - i;
      i = j;
    }
  p->pos = i;
}

/* The kind of the next token, without reading it. */
static enum tok_kind
peek_kind (struct parser *p)
{
  size_t pos = p->pos;
  struct tok t;
  next_tok (p, &t);
  p->pos = pos;
  return t.kind;
}

static int
tok_is (const struct parser *p, const struct tok *t, const char *word)
{
  size_t n = strlen (word);
  return t->kind == T_ATOM && t->len == n && memcmp (p->text + t->off, word, n) == 0;
}

/* The error for token T where WHAT was expected; at the end of the text, the statement's '('
 * is reported as never closed. */
static cn_status
unexpected (struct parser *p, const struct tok *t, const char *what)
{
  switch (t->kind)
    {
    case T_END:
      return perr (p, CN_EPARSE, p->stmt_off, "unbalanced parentheses: this '(' is never closed");
    case T_LP:
      return perr (p, CN_EPARSE, t->off, "expected %s, found '('", what);
    case T_RP:
      return perr (p, CN_EPARSE, t->off, "expected %s, found ')'", what);
    case T_LB:
      return perr (p, CN_EPARSE, t->off, "expected %s, found '['", what);
    case T_RB:
      return perr (p, CN_EPARSE, t->off, "expected %s, found ']'", what);
    case T_COMMA:
      return perr (p, CN_EPARSE, t->off, "expected %s, found ','", what);
    case T_STR:
      return perr (p, CN_EPARSE, t->off, "expected %s, found a string", what);
    case T_BADSTR:
      return perr (p, CN_EPARSE, t->off, "this string is never closed by a '\"'");
    default:
      return perr (p, CN_EPARSE, t->off, "expected %s, found '" TOKF "'", what, TOKA (p, t));
    }
}

/* Reads the ')' that closes a form, where WHAT describes what else was found. */
static cn_status
expect_rp (struct parser *p, const char *what)
{
  struct tok t;
  next_tok (p, &t);
  if (t.kind == T_RP)
    return CN_OK;
  return unexpected (p, &t, what);
}

/* ---- variables and numbers -------------------------------------------------------------- */

/* If T reads X_<n> or Y_<n> (n decimal without leading zeros), returns 'X' or 'Y' and sets
 * *IDX; 0 otherwise.  *IDX is -1 when n is too large to be a dense index of this text. */
static char
var_name (const struct parser *p, const struct tok *t, int64_t *idx)
{
  const char *s = p->text + t->off;
  size_t n = t->len;
  if (t->kind != T_ATOM || n < 3 || (s[0] != 'X' && s[0] != 'Y') || s[1] != '_')
    return 0;
  if (s[2] == '0' && n > 3)
    return 0;
  uint64_t v = 0;
  for (size_t i = 2; i < n; i++)
    {
      if (s[i] < '0' || s[i] > '9')
        return 0;
      if (v <= (uint64_t) INT64_MAX / 16)
        v = v * 10 + (uint64_t) (s[i] - '0');
    }
  /* A dense numbering up to n takes n declarations of more than one byte each. */
  *idx = v < (uint64_t) p->len ? (int64_t) v : -1;
  return s[0];
}

/* Whether T is meant as a number: it starts with a digit or '.', or with a sign and goes on
 * ("-" and "+" alone are symbols). */
static int
numeric_start (const struct parser *p, const struct tok *t)
{
  char c = p->text[t->off];
  return (c >= '0' && c <= '9') || c == '.' || ((c == '+' || c == '-') && t->len > 1);
}

/* Whether T is a decimal number  [+-]? (d+ (. d*)? | . d+) ([eE] [+-]? d+)?. */
static int
numeric_ok (const struct parser *p, const struct tok *t)
{
  const char *s = p->text + t->off;
  size_t n = t->len, i = 0, digits = 0;
  if (i < n && (s[i] == '+' || s[i] == '-'))
    i++;
  while (i < n && s[i] >= '0' && s[i] <= '9')
    i++, digits++;
  if (i < n && s[i] == '.')
    {
      i++;
      while (i < n && s[i] >= '0' && s[i] <= '9')
        i++, digits++;
    }
  if (digits == 0)
    return 0;
  if (i < n && (s[i] == 'e' || s[i] == 'E'))
    {
      size_t e = 0;
      i++;
      if (i < n && (s[i] == '+' || s[i] == '-'))
        i++;
      while (i < n && s[i] >= '0' && s[i] <= '9')
        i++, e++;
      if (e == 0)
        return 0;
    }
  return i == n;
}

/* Reads the number T exactly: *D = RD(c), *U = RU(c) for the real c its decimal text denotes.
 * mpfr_strtofr rounds the exact decimal value correctly downward to 53 bits with an unbounded
 * exponent, v = RD53(c), and its ternary value says whether v == c.  If not, RU53(c) is the
 * successor of v among the 53-bit numbers (mpfr_nextabove; +inf above the largest one).
 * mpfr_get_d then rounds in the same direction onto the doubles (subnormals, overflow), and
 * RD(RD53(c)) = RD(c), RU(RU53(c)) = RU(c) because the doubles are a subset of the 53-bit
 * numbers. */
static cn_status
read_number (struct parser *p, const struct tok *t, double *d, double *u)
{
  char *end;
  void *grow_tmp;
  if (!numeric_ok (p, t))
    return perr (p, CN_EPARSE, t->off, "malformed number '" TOKF "'", TOKA (p, t));
  if (GROW (p->buf, p->cap_buf, t->len + 1) != 0)
    return nomem (p);
  memcpy (p->buf, p->text + t->off, t->len);
  p->buf[t->len] = '\0';
  int inexact = mpfr_strtofr (p->num, p->buf, &end, 10, MPFR_RNDD);
  if (end != p->buf + t->len)
    return perr (p, CN_EPARSE, t->off, "malformed number '" TOKF "'", TOKA (p, t));
  *d = mpfr_get_d (p->num, MPFR_RNDD);
  if (inexact)
    mpfr_nextabove (p->num);
  /* now p->num = RU53(c). */
  *u = mpfr_get_d (p->num, MPFR_RNDU);
  /* Adding +0 turns a zero of either sign into +0 (RN: -0 + +0 = +0) and changes nothing else. */
  *d += 0.0;
  *u += 0.0;
  /* now *d <= c <= *u exactly, both the nearest doubles in their directions. */
  return CN_OK;
}

/* Whether the tokens A and B spell the same text. */
static int
same_text (const struct parser *p, const struct tok *a, const struct tok *b)
{
  return a->len == b->len && memcmp (p->text + a->off, p->text + b->off, a->len) == 0;
}

/* Whether T is a VNN-LIB 2.0 VariableName: an ASCII letter, then letters, digits and '_'. */
static int
valid_name (const struct parser *p, const struct tok *t)
{
  const char *s = p->text + t->off;
  if (t->kind != T_ATOM || t->len == 0)
    return 0;
  for (size_t i = 0; i < t->len; i++)
    {
      char c = s[i];
      int letter = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
      if (!letter && (i == 0 || !((c >= '0' && c <= '9') || c == '_')))
        return 0;
    }
  return 1;
}

/* If T is digits only, sets *V to their value (INT64_MAX if larger) and returns 1; else 0. */
static int
read_count (const struct parser *p, const struct tok *t, int64_t *v)
{
  const char *s = p->text + t->off;
  uint64_t x = 0;
  if (t->kind != T_ATOM || t->len == 0)
    return 0;
  for (size_t i = 0; i < t->len; i++)
    {
      if (s[i] < '0' || s[i] > '9')
        return 0;
      x = x > (uint64_t) INT64_MAX / 10 ? (uint64_t) INT64_MAX : x * 10 + (uint64_t) (s[i] - '0');
    }
  *v = x > (uint64_t) INT64_MAX ? INT64_MAX : (int64_t) x;
  return 1;
}

/* Writes S as "[d0,d1,...]". */
static void
shape_text (const cn_shape *s, char *buf, size_t size)
{
  size_t n = 0;
  n += (size_t) snprintf (buf + n, size - n, "[");
  for (int k = 0; k < s->rank && n < size; k++)
    n += (size_t) snprintf (buf + n, size - n, k ? ",%lld" : "%lld", (long long) s->dim[k]);
  if (n < size)
    snprintf (buf + n, size - n, "]");
}

/* Reads an entry of a bracketed list of counts (an index, a dimension) into *V; a token that is
 * not digits is refused: "MUST, found 'TOKEN'" for a word, else as WHAT was expected. */
static cn_status
list_count (struct parser *p, struct tok *t, int64_t *v, const char *must, const char *what)
{
  next_tok (p, t);
  if (read_count (p, t, v))
    return CN_OK;
  return t->kind == T_ATOM ? perr (p, CN_EPARSE, t->off, "%s, found '" TOKF "'", must, TOKA (p, t))
                           : unexpected (p, t, what);
}

/* Reads the ',' or ']' after an entry of such a list; *LAST says it was the ']'. */
static cn_status
list_sep (struct parser *p, int *last)
{
  struct tok t;
  next_tok (p, &t);
  *last = t.kind == T_RB;
  return *last || t.kind == T_COMMA ? CN_OK : unexpected (p, &t, "',' or ']'");
}

/* The name of element I of the input (V = 'X') or output: X_i in 1.0, NAME[i0,i1,...] (or
 * NAME for a scalar) in 2.0. */
static void
elem_name (const struct parser *p, char v, int64_t i, char *buf, size_t size)
{
  if (!p->v2)
    {
      snprintf (buf, size, "%c_%lld", v, (long long) i);
      return;
    }
  const struct tensor_decl *d = v == 'X' ? &p->in : &p->out;
  int64_t idx[CN_MAX_RANK];
  for (int k = d->shape.rank; k-- > 0;)
    {
      idx[k] = i % d->shape.dim[k];
      i /= d->shape.dim[k];
    }
  size_t n = (size_t) snprintf (buf, size, TOKF, TOKA (p, &d->name));
  for (int k = 0; k < d->shape.rank && n < size; k++)
    n += (size_t) snprintf (buf + n, size - n, "%s%lld", k ? "," : "[", (long long) idx[k]);
  if (d->shape.rank > 0 && n < size)
    snprintf (buf + n, size - n, "]");
}

/* Reads the element of a 2.0 tensor named by T: NAME for a scalar, NAME[i0,...,ik] with one
 * index per dimension otherwise; *OUT gets its kind and row-major (flat) index. */
static cn_status
var_ref_v2 (struct parser *p, const struct tok *t, struct term *out)
{
  const struct tensor_decl *d;
  char kind;
  if (p->in.off != NONE && same_text (p, t, &p->in.name))
    d = &p->in, kind = 'X';
  else if (p->out.off != NONE && same_text (p, t, &p->out.name))
    d = &p->out, kind = 'Y';
  else if (p->network.len > 0 && same_text (p, t, &p->network))
    return perr (p, CN_EPARSE, t->off, "'" TOKF "' names a network, not a tensor", TOKA (p, t));
  else if (valid_name (p, t))
    return perr (p, CN_EPARSE, t->off, "undeclared variable '" TOKF "'", TOKA (p, t));
  else
    return perr (p, CN_EPARSE, t->off, "unknown symbol '" TOKF "'", TOKA (p, t));

  char shp[160];                 /* the shape, written for a message */
  int k = 0, last = 0;
  int64_t flat = 0;
  cn_status st;
  if (peek_kind (p) == T_LB)
    {
      struct tok lb, it;
      next_tok (p, &lb);
      if (d->shape.rank == 0)
        return perr (p, CN_EPARSE, lb.off, "'" TOKF "' is a scalar (shape []): it takes no index",
                     TOKA (p, t));
      while (!last)
        {
          int64_t v;
          if ((st = list_count (p, &it, &v, "an index must be a nonnegative integer", "an index"))
              != CN_OK)
            return st;
          if (k == d->shape.rank || v >= d->shape.dim[k])
            {
              shape_text (&d->shape, shp, sizeof shp);
              return k == d->shape.rank
                ? perr (p, CN_EPARSE, it.off, "too many indices: '" TOKF "' has shape %s",
                        TOKA (p, t), shp)
                : perr (p, CN_EPARSE, it.off, "index %lld is out of range: '" TOKF "' has shape %s",
                        (long long) v, TOKA (p, t), shp);
            }
          /* now flat < dim[0] * ... * dim[k]: it cannot overflow */
          flat = flat * d->shape.dim[k] + v;
          k++;
          if ((st = list_sep (p, &last)) != CN_OK)
            return st;
        }
    }
  if (k != d->shape.rank)
    {
      shape_text (&d->shape, shp, sizeof shp);
      return perr (p, CN_EPARSE, t->off,
                   "'" TOKF "' has shape %s: an element takes %d ind%s, found %d", TOKA (p, t), shp,
                   d->shape.rank, d->shape.rank == 1 ? "ex" : "ices", k);
    }
  out->kind = kind;
  out->idx = flat;
  return CN_OK;
}

/* Reads the term T (a token that is not a parenthesis): a variable element or a constant. */
static cn_status
parse_atom_term (struct parser *p, const struct tok *t, struct term *out)
{
  out->t = *t;
  if (p->v2)
    {
      if (numeric_start (p, t))
        {
          out->kind = 'C';
          return read_number (p, t, &out->d, &out->u);
        }
      return var_ref_v2 (p, t, out);
    }
  int64_t idx;
  char v = var_name (p, t, &idx);
  if (v)
    {
      struct vars *vs = v == 'X' ? &p->x : &p->y;
      if (idx < 0 || (size_t) idx >= vs->cap || vs->decl[idx] == NONE)
        return perr (p, CN_EPARSE, t->off, "undeclared variable '" TOKF "'", TOKA (p, t));
      out->kind = v;
      out->idx = idx;
      return CN_OK;
    }
  if (numeric_start (p, t))
    {
      out->kind = 'C';
      return read_number (p, t, &out->d, &out->u);
    }
  return perr (p, CN_EPARSE, t->off, "unknown symbol '" TOKF "'", TOKA (p, t));
}

/* ---- exact arithmetic ------------------------------------------------------------------- */

/* Reads the number T exactly into Q: its decimal text is d_1 ... d_m (a dot anywhere) times
 * 10^e, so Q = D * 10^(e - f) with D the digits and f the count after the dot.  Refused
 * (CN_EUNSUPPORTED) beyond MAX_DIGITS significant digits or a scale beyond MAX_EXP. */
static cn_status
decimal_to_q (struct parser *p, const struct tok *t, mpq_t q)
{
  const char *s = p->text + t->off;
  size_t n = t->len, i = 0, m = 0;
  int64_t frac = 0, e = 0;
  int neg = 0, dot = 0;
  void *grow_tmp;

  if (!numeric_ok (p, t))
    return perr (p, CN_EPARSE, t->off, "malformed number '" TOKF "'", TOKA (p, t));
  if (GROW (p->buf, p->cap_buf, n + 1) != 0)
    return nomem (p);
  if (s[i] == '+' || s[i] == '-')
    neg = s[i++] == '-';
  for (; i < n && s[i] != 'e' && s[i] != 'E'; i++)
    {
      if (s[i] == '.')
        {
          dot = 1;
          continue;
        }
      frac += dot;
      if (m > 0 || s[i] != '0')
        p->buf[m++] = s[i];
    }
  if (i < n)
    {
      int eneg = 0;
      i++;
      if (s[i] == '+' || s[i] == '-')
        eneg = s[i++] == '-';
      for (; i < n; i++)
        if (e <= 10 * (int64_t) MAX_EXP)
          e = e * 10 + (s[i] - '0');
      if (eneg)
        e = -e;
    }
  if (m == 0)
    {
      mpq_set_ui (q, 0, 1);
      return CN_OK;
    }
  /* now the value is (-1)^neg * D * 10^scale, D the m digits in buf */
  int64_t scale = e - frac;
  if (m > MAX_DIGITS || scale > MAX_EXP || scale < -(int64_t) (MAX_EXP + MAX_DIGITS))
    return perr (p, CN_EUNSUPPORTED, t->off,
                 "the number '" TOKF "' is too long, too large or too small for exact arithmetic "
                 "(at most %d digits and a scale of 10^%d)", TOKA (p, t), MAX_DIGITS, MAX_EXP);
  p->buf[m] = '\0';
  mpz_set_str (mpq_numref (q), p->buf, 10);
  mpz_ui_pow_ui (p->z, 10, (unsigned long) (scale < 0 ? -scale : scale));
  if (scale >= 0)
    {
      mpz_mul (mpq_numref (q), mpq_numref (q), p->z);
      mpz_set_ui (mpq_denref (q), 1);
    }
  else
    mpz_set (mpq_denref (q), p->z);
  mpq_canonicalize (q);
  if (neg)
    mpq_neg (q, q);
  return CN_OK;
}

/* Rounds Q both ways: *D = RD(Q), *U = RU(Q), equal iff Q is a double (the same argument as in
 * read_number: mpfr_set_q rounds correctly to 53 bits with an unbounded exponent, mpfr_get_d
 * then in the same direction onto the doubles). */
static void
q_round (struct parser *p, const mpq_t q, double *d, double *u)
{
  mpfr_set_q (p->num, q, MPFR_RNDD);
  *d = mpfr_get_d (p->num, MPFR_RNDD) + 0.0;
  mpfr_set_q (p->num, q, MPFR_RNDU);
  *u = mpfr_get_d (p->num, MPFR_RNDU) + 0.0;
}

static int
q_too_big (const mpq_t q)
{
  return mpz_sizeinbase (mpq_numref (q), 2) > MAX_QBITS
    || mpz_sizeinbase (mpq_denref (q), 2) > MAX_QBITS;
}

static void
lin_init (struct lin *f)
{
  f->t = NULL;
  f->n = f->cap = 0;
  mpq_init (f->c0);
}

static void
lin_clear (struct lin *f)
{
  for (size_t k = 0; k < f->n; k++)
    mpq_clear (f->t[k].c);
  free (f->t);
  mpq_clear (f->c0);
  f->t = NULL;
  f->n = f->cap = 0;
}

/* Appends the term C v (v element IDX of KIND). */
static cn_status
lin_push (struct parser *p, struct lin *f, char kind, int64_t idx, const mpq_t c)
{
  void *grow_tmp;
  if (GROW (f->t, f->cap, f->n + 1) != 0)
    return nomem (p);
  struct lterm *t = &f->t[f->n++];
  t->kind = kind;
  t->idx = idx;
  mpq_init (t->c);
  mpq_set (t->c, c);
  return CN_OK;
}

/* DST += SIGN * SRC. */
static cn_status
lin_add (struct parser *p, struct lin *dst, const struct lin *src, int sign)
{
  for (size_t k = 0; k < src->n; k++)
    {
      if (sign < 0)
        mpq_neg (p->q, src->t[k].c);
      else
        mpq_set (p->q, src->t[k].c);
      cn_status st = lin_push (p, dst, src->t[k].kind, src->t[k].idx, p->q);
      if (st != CN_OK)
        return st;
    }
  if (sign < 0)
    mpq_sub (dst->c0, dst->c0, src->c0);
  else
    mpq_add (dst->c0, dst->c0, src->c0);
  return CN_OK;
}

static void
lin_scale (struct lin *f, const mpq_t q)
{
  for (size_t k = 0; k < f->n; k++)
    mpq_mul (f->t[k].c, f->t[k].c, q);
  mpq_mul (f->c0, f->c0, q);
}

static void
lin_neg (struct lin *f)
{
  for (size_t k = 0; k < f->n; k++)
    mpq_neg (f->t[k].c, f->t[k].c);
  mpq_neg (f->c0, f->c0);
}

static int
lterm_cmp (const void *a, const void *b)
{
  const struct lterm *x = a, *y = b;
  if (x->kind != y->kind)
    return x->kind < y->kind ? -1 : 1;
  return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* Combines the terms of each variable and drops the zero ones: afterwards the terms are sorted
 * (X before Y, by index), one per variable, none zero.  The form's value is unchanged. */
static void
lin_merge (struct lin *f)
{
  size_t w = 0;
  if (f->n > 1)
    qsort (f->t, f->n, sizeof *f->t, lterm_cmp);
  for (size_t k = 0; k < f->n; k++)
    {
      if (w > 0 && f->t[w - 1].kind == f->t[k].kind && f->t[w - 1].idx == f->t[k].idx)
        {
          mpq_add (f->t[w - 1].c, f->t[w - 1].c, f->t[k].c);
          mpq_clear (f->t[k].c);
          continue;
        }
      if (w > 0 && mpq_sgn (f->t[w - 1].c) == 0)
        {
          mpq_clear (f->t[w - 1].c);
          w--;
        }
      f->t[w++] = f->t[k];
    }
  if (w > 0 && mpq_sgn (f->t[w - 1].c) == 0)
    {
      mpq_clear (f->t[w - 1].c);
      w--;
    }
  f->n = w;
}

/* CN_EUNSUPPORTED (at OFF) if a rational of F has grown past MAX_QBITS bits. */
static cn_status
lin_check (struct parser *p, const struct lin *f, size_t off)
{
  int big = q_too_big (f->c0);
  for (size_t k = 0; k < f->n && !big; k++)
    big = q_too_big (f->t[k].c);
  if (big)
    return perr (p, CN_EUNSUPPORTED, off,
                 "this arithmetic needs numbers of more than %d bits", MAX_QBITS);
  return CN_OK;
}

/* F += the simple term S (a variable element or a constant). */
static cn_status
lin_add_term (struct parser *p, struct lin *f, const struct term *s)
{
  if (s->kind == 'C')
    {
      cn_status st = decimal_to_q (p, &s->t, p->q2);
      if (st == CN_OK)
        mpq_add (f->c0, f->c0, p->q2);
      return st;
    }
  mpq_set_ui (p->q2, 1, 1);
  return lin_push (p, f, s->kind, s->idx, p->q2);
}

static cn_status parse_lin (struct parser *p, const struct tok *t, struct lin *f, int depth);

/* Reads an arithmetic term whose '(' (OPEN) was read, into F (empty on entry):
 * (+ a ...) is the sum, (- a) the negation, (- a b ...) = a - b - ..., (* a ...) the product,
 * where every factor of a product but one must be a constant (the terms stay linear). */
static cn_status
parse_arith (struct parser *p, const struct tok *open, struct lin *f, int depth)
{
  struct tok op;
  size_t count = 0;
  cn_status st = CN_OK;

  if (depth > MAX_DEPTH)
    return perr (p, CN_EPARSE, open->off, "arithmetic nested more than %d deep", MAX_DEPTH);
  next_tok (p, &op);
  if (op.kind != T_ATOM)
    return unexpected (p, &op, "an arithmetic operator");
  int plus = tok_is (p, &op, "+"), minus = tok_is (p, &op, "-"), times = tok_is (p, &op, "*");
  if (!plus && !minus && !times)
    return perr (p, CN_EUNSUPPORTED, op.off,
                 "'" TOKF "' is not an arithmetic operator here (only +, - and *)", TOKA (p, &op));
  for (;;)
    {
      struct tok t;
      struct lin g;
      next_tok (p, &t);
      if (t.kind == T_RP)
        break;
      lin_init (&g);
      st = parse_lin (p, &t, &g, depth + 1);
      if (st == CN_OK && (count == 0 || !times))
        st = lin_add (p, f, &g, count > 0 && minus ? -1 : 1);
      else if (st == CN_OK)
        {
          /* a product: one of the two factors must be a constant */
          lin_merge (f);
          lin_merge (&g);
          if (g.n == 0)
            lin_scale (f, g.c0);
          else if (f->n == 0)
            {
              mpq_swap (p->q2, f->c0);
              mpq_set_ui (f->c0, 0, 1);
              st = lin_add (p, f, &g, 1);
              lin_scale (f, p->q2);
            }
          else
            st = perr (p, CN_EUNSUPPORTED, open->off,
                       "a product of two terms with variables is not linear: only linear "
                       "arithmetic is supported");
        }
      lin_clear (&g);
      if (st == CN_OK)
        st = lin_check (p, f, open->off);
      if (st != CN_OK)
        return st;
      count++;
    }
  if (count == 0)
    return perr (p, CN_EPARSE, open->off, "'" TOKF "' needs at least one operand", TOKA (p, &op));
  if (minus && count == 1)
    lin_neg (f);
  return CN_OK;
}

/* Reads the term T (already read) into the empty form F. */
static cn_status
parse_lin (struct parser *p, const struct tok *t, struct lin *f, int depth)
{
  struct term s;
  cn_status st;
  if (t->kind == T_LP)
    return parse_arith (p, t, f, depth);
  if (t->kind != T_ATOM)
    return unexpected (p, t, "a variable, a number or an arithmetic term");
  /* a number is read once, exactly (lin_add_term), not also rounded as a plain constant is */
  if (numeric_start (p, t))
    s = (struct term) { .kind = 'C', .t = *t };
  else if ((st = parse_atom_term (p, t, &s)) != CN_OK)
    return st;
  return lin_add_term (p, f, &s);
}

/* Reads one side of a comparison: a simple term into *OUT, or an arithmetic term into F
 * (OUT->kind 'L'). */
static cn_status
parse_side (struct parser *p, struct term *out, struct lin *f)
{
  struct tok t;
  next_tok (p, &t);
  if (t.kind == T_LP)
    {
      out->kind = 'L';
      return parse_arith (p, &t, f, 1);
    }
  if (t.kind != T_ATOM)
    return unexpected (p, &t, "a variable or a number");
  return parse_atom_term (p, &t, out);
}

/* ---- comparisons ------------------------------------------------------------------------ */

static cn_status
push_atom (struct parser *p, const struct atom *a)
{
  void *grow_tmp;
  if (GROW (p->atoms, p->cap_atoms, p->n_atoms + 1) != 0)
    return nomem (p);
  p->atoms[p->n_atoms++] = *a;
  return CN_OK;
}

static cn_status
push_coef (struct parser *p, int64_t idx, double c)
{
  void *grow_tmp;
  if (GROW (p->coefs, p->cap_coefs, p->n_coefs + 1) != 0)
    return nomem (p);
  p->coefs[p->n_coefs++] = (struct rowcoef) { .idx = idx, .c = c };
  return CN_OK;
}

/* Appends the row atom whose coefficients are p->coefs[C0 ..] and whose rhs r has the
 * roundings D = RD(r) <= r <= U = RU(r).  A strict row needs value < r: where r is a double
 * (D == U) its counterexample bound is the double below r; otherwise D < r already. */
static cn_status
push_row (struct parser *p, size_t off, size_t c0, double d, double u, int strict)
{
  struct atom a = { .kind = A_ROW, .c0 = c0, .nc = p->n_coefs - c0, .off = off, .u = u };
  a.d = strict && d == u ? nextafter (d, -INFINITY) : d;
  return push_atom (p, &a);
}

/* Appends the atom of  l <= r  (l < r if STRICT) for simple terms. */
static cn_status
emit_simple (struct parser *p, size_t off, const struct term *l, const struct term *r,
             int strict)
{
  struct atom a = { .off = off };
  size_t c0 = p->n_coefs;
  cn_status st;

  if (l->kind == 'C' && r->kind == 'C')
    return perr (p, CN_EUNSUPPORTED, off, "a comparison of two constants is not supported");
  if ((l->kind == 'X' && r->kind == 'Y') || (l->kind == 'Y' && r->kind == 'X'))
    return perr (p, CN_EUNSUPPORTED, off,
                 "a comparison of an input X with an output Y is not supported");
  if (l->kind == 'X' && r->kind == 'X')
    return perr (p, CN_EUNSUPPORTED, off, "a comparison of two inputs X is not supported");
  if (l->kind == 'X')
    {
      /* x_a <= c, hence x_a <= RU(c); the bound is open unless c is a double and <= is wide */
      a.kind = A_XHI;
      a.a = l->idx;
      a.d = r->d;
      a.u = r->u;
      a.open = strict || r->d != r->u;
      return push_atom (p, &a);
    }
  if (r->kind == 'X')
    {
      /* c <= x_a, hence RD(c) <= x_a. */
      a.kind = A_XLO;
      a.a = r->idx;
      a.d = l->d;
      a.u = l->u;
      a.open = strict || l->d != l->u;
      return push_atom (p, &a);
    }
  if (r->kind == 'C')
    {
      /* y_a <= c. */
      if ((st = push_coef (p, l->idx, 1)) != CN_OK)
        return st;
      return push_row (p, off, c0, r->d, r->u, strict);
    }
  if (l->kind == 'C')
    {
      /* c <= y_a  <=>  -y_a <= -c, with RD(-c) = -RU(c) and RU(-c) = -RD(c). */
      if ((st = push_coef (p, r->idx, -1)) != CN_OK)
        return st;
      return push_row (p, off, c0, -l->u + 0.0, -l->d + 0.0, strict);
    }
  /* y_a <= y_b  <=>  y_a - y_b <= 0 (a zero row when a == b). */
  if ((st = push_coef (p, l->idx, 1)) != CN_OK || (st = push_coef (p, r->idx, -1)) != CN_OK)
    return st;
  return push_row (p, off, c0, 0, 0, strict);
}

/* Appends the atom of  F <= 0  (F < 0 if STRICT); F is merged and may be rescaled by a
 * positive rational on the way, which changes neither relation. */
static cn_status
emit_lin (struct parser *p, size_t off, struct lin *f, int strict)
{
  size_t nx = 0, ny = 0;
  cn_status st;
  for (size_t k = 0; k < f->n; k++)
    nx += f->t[k].kind == 'X', ny += f->t[k].kind == 'Y';
  if (nx + ny == 0)
    return perr (p, CN_EUNSUPPORTED, off,
                 "this comparison has no variable once its arithmetic is simplified");
  if (nx > 0 && ny > 0)
    return perr (p, CN_EUNSUPPORTED, off,
                 "a comparison of an input X with an output Y is not supported");
  if (nx > 1)
    return perr (p, CN_EUNSUPPORTED, off,
                 "a comparison over two or more inputs is not supported (the input set must "
                 "be a box)");
  if (nx == 1)
    {
      /* a x + c0 <= 0 (a != 0)  <=>  x <= b if a > 0, x >= b if a < 0, with b = -c0 / a */
      struct atom a = { .off = off, .a = f->t[0].idx };
      mpq_div (p->q, f->c0, f->t[0].c);
      mpq_neg (p->q, p->q);
      q_round (p, p->q, &a.d, &a.u);
      a.kind = mpq_sgn (f->t[0].c) > 0 ? A_XHI : A_XLO;
      a.open = strict || a.d != a.u;
      return push_atom (p, &a);
    }
  /* Rows: scale by k / g > 0, k the lcm of the denominators and g the gcd of the resulting
   * integers, so the coefficients are coprime integers, exact doubles if below 2^53. */
  mpz_set_ui (p->z, 1);
  for (size_t k = 0; k < f->n; k++)
    mpz_lcm (p->z, p->z, mpq_denref (f->t[k].c));
  mpq_set_z (p->q, p->z);
  lin_scale (f, p->q);
  mpz_set_ui (p->z, 0);
  for (size_t k = 0; k < f->n; k++)
    mpz_gcd (p->z, p->z, mpq_numref (f->t[k].c));
  mpq_set_z (p->q, p->z);
  mpq_inv (p->q, p->q);
  lin_scale (f, p->q);
  size_t c0 = p->n_coefs;
  for (size_t k = 0; k < f->n; k++)
    {
      if (mpz_sizeinbase (mpq_numref (f->t[k].c), 2) > 53)
        return perr (p, CN_EUNSUPPORTED, off,
                     "an output coefficient needs more than 53 bits once the row is scaled to "
                     "integers");
      /* now the coefficient is an integer of at most 53 bits: mpz_get_d is exact */
      if ((st = push_coef (p, f->t[k].idx, mpz_get_d (mpq_numref (f->t[k].c)))) != CN_OK)
        return st;
    }
  double d, u;
  mpq_neg (p->q, f->c0);
  q_round (p, p->q, &d, &u);
  return push_row (p, off, c0, d, u, strict);
}

enum cmp { CMP_LE, CMP_LT, CMP_GE, CMP_GT, CMP_EQ, CMP_NE };

/* The comparison operator T names, or -1. */
static int
cmp_op (const struct parser *p, const struct tok *t)
{
  static const struct { const char *name; int op; } ops[] = {
    { "<=", CMP_LE }, { "<", CMP_LT }, { ">=", CMP_GE }, { ">", CMP_GT }, { "==", CMP_EQ },
    { "=", CMP_EQ }, { "!=", CMP_NE }, { "distinct", CMP_NE }
  };
  for (size_t k = 0; k < sizeof ops / sizeof ops[0]; k++)
    if (tok_is (p, t, ops[k].name))
      return ops[k].op;
  return -1;
}

static cn_status new_disj (struct parser *p);
static void end_disj (struct parser *p);

/* Reads the operands and the ')' of a comparison whose '(' is at OPEN and whose operator OP
 * was read; appends its atoms to the current disjunct.  a == b is two atoms, a <= b and
 * b <= a; a != b is a < b, then (SPLIT must allow it) a new disjunct with b < a. */
static cn_status
parse_cmp (struct parser *p, size_t open, int op, int split)
{
  struct term l = { 0 }, r = { 0 }, ts;
  struct lin fl, fr, fs;
  cn_status st;

  lin_init (&fl);
  lin_init (&fr);
  if ((st = parse_side (p, &l, &fl)) != CN_OK || (st = parse_side (p, &r, &fr)) != CN_OK)
    goto done;
  {
    struct tok t;
    next_tok (p, &t);
    if (t.kind == T_ATOM || t.kind == T_LP)
      st = perr (p, CN_EUNSUPPORTED, open,
                 "a comparison with more than two operands is not supported");
    else if (t.kind != T_RP)
      st = unexpected (p, &t, "')'");
    if (st != CN_OK)
      goto done;
  }
  if (op == CMP_NE && !split)
    {
      st = perr (p, CN_EUNSUPPORTED, open,
                 "'!=' inside an 'and' inside an 'or' is not supported (it is a disjunction)");
      goto done;
    }
  if (op == CMP_GE || op == CMP_GT)
    {
      ts = l, l = r, r = ts;
      fs = fl, fl = fr, fr = fs;
      op = op == CMP_GE ? CMP_LE : CMP_LT;
    }
  /* now the comparison reads l op r with op one of <=, <, ==, != */
  int strict = op == CMP_LT || op == CMP_NE;
  if (l.kind != 'L' && r.kind != 'L')
    {
      st = emit_simple (p, open, &l, &r, strict);
      if (st == CN_OK && op == CMP_EQ)
        st = emit_simple (p, open, &r, &l, 0);
      if (st == CN_OK && op == CMP_NE)
        {
          end_disj (p);
          if ((st = new_disj (p)) == CN_OK)
            st = emit_simple (p, open, &r, &l, 1);
        }
      goto done;
    }
  /* F = l - r, and the comparison reads F op 0 */
  if ((l.kind != 'L' && (st = lin_add_term (p, &fl, &l)) != CN_OK)
      || (r.kind != 'L' && (st = lin_add_term (p, &fr, &r)) != CN_OK)
      || (st = lin_add (p, &fl, &fr, -1)) != CN_OK)
    goto done;
  lin_merge (&fl);
  if ((st = lin_check (p, &fl, open)) != CN_OK || (st = emit_lin (p, open, &fl, strict)) != CN_OK)
    goto done;
  if (op == CMP_EQ || op == CMP_NE)
    {
      lin_neg (&fl);
      if (op == CMP_NE)
        {
          end_disj (p);
          if ((st = new_disj (p)) != CN_OK)
            goto done;
        }
      st = emit_lin (p, open, &fl, strict);
    }

done:
  lin_clear (&fl);
  lin_clear (&fr);
  return st;
}

/* ---- formulas --------------------------------------------------------------------------- */

static cn_status
new_disj (struct parser *p)
{
  void *grow_tmp;
  if (GROW (p->disjs, p->cap_disjs, p->n_disjs + 1) != 0)
    return nomem (p);
  p->disjs[p->n_disjs++] = (struct disj) { .a0 = p->n_atoms };
  return CN_OK;
}

/* Closes the last disjunct: counts its atoms and whether one bounds an input. */
static void
end_disj (struct parser *p)
{
  struct disj *d = &p->disjs[p->n_disjs - 1];
  d->na = p->n_atoms - d->a0;
  for (size_t k = d->a0; k < p->n_atoms; k++)
    if (p->atoms[k].kind != A_ROW)
      d->has_x = 1;
}

/* Opens a factor: the disjuncts from now on, until end_factor. */
static cn_status
begin_factor (struct parser *p)
{
  void *grow_tmp;
  if (GROW (p->factors, p->cap_factors, p->n_factors + 1) != 0)
    return nomem (p);
  p->factors[p->n_factors] = (struct factor) { .d0 = p->n_disjs };
  return CN_OK;
}

static void
end_factor (struct parser *p)
{
  struct factor *f = &p->factors[p->n_factors++];
  f->nd = p->n_disjs - f->d0;
  for (size_t k = f->d0; k < p->n_disjs; k++)
    f->has_x |= p->disjs[k].has_x;
}

/* Where a formula stands: at the top of an assert (conjunctions are flattened into factors),
 * directly in an 'or' (each operand a disjunct), or in a conjunction inside an 'or'. */
enum ctx { CTX_TOP, CTX_OR, CTX_AND };

static cn_status parse_formula (struct parser *p, const struct tok *open, enum ctx ctx,
                                int depth);

/* Reads the operands of a connective up to its ')', each a formula in context CTX. */
static cn_status
parse_operands (struct parser *p, enum ctx ctx, int depth)
{
  for (;;)
    {
      struct tok t;
      cn_status st;
      next_tok (p, &t);
      if (t.kind == T_RP)
        return CN_OK;
      if (t.kind != T_LP)
        {
          if (tok_is (p, &t, "true") || tok_is (p, &t, "false"))
            return perr (p, CN_EUNSUPPORTED, t.off,
                         "'" TOKF "' is not supported (only comparisons)", TOKA (p, &t));
          return unexpected (p, &t, "a formula");
        }
      if ((st = parse_formula (p, &t, ctx, depth)) != CN_OK)
        return st;
    }
}

/* Reads a formula whose '(' (OPEN) was read, in context CTX.  The formulas read are those whose
 * multiplied-out form is a conjunction of factors, each a disjunction of conjunctions of
 * comparisons: 'and' at the top splits into factors, 'or' in 'or' flattens, 'and' in 'and'
 * flattens, and an 'or' below an 'and' below an 'or' is refused. */
static cn_status
parse_formula (struct parser *p, const struct tok *open, enum ctx ctx, int depth)
{
  static const char *const unsupported[] = {
    "not", "=>", "xor", "ite", "let", "+", "-", "*", "/", "true", "false"
  };
  struct tok op;
  cn_status st;

  if (depth > MAX_DEPTH)
    return perr (p, CN_EPARSE, open->off, "formulas nested more than %d deep", MAX_DEPTH);
  next_tok (p, &op);
  if (tok_is (p, &op, "and"))
    {
      if (ctx != CTX_OR)
        return parse_operands (p, ctx, depth + 1);
      if ((st = new_disj (p)) != CN_OK || (st = parse_operands (p, CTX_AND, depth + 1)) != CN_OK)
        return st;
      end_disj (p);
      return CN_OK;
    }
  if (tok_is (p, &op, "or"))
    {
      if (ctx == CTX_AND)
        return perr (p, CN_EUNSUPPORTED, open->off,
                     "an 'or' inside an 'and' inside an 'or' is not supported (write the "
                     "disjunction at the top of the assert)");
      if (ctx == CTX_OR)
        return parse_operands (p, CTX_OR, depth + 1);
      if ((st = begin_factor (p)) != CN_OK || (st = parse_operands (p, CTX_OR, depth + 1)) != CN_OK)
        return st;
      if (p->n_disjs == p->factors[p->n_factors].d0)
        return perr (p, CN_EPARSE, open->off, "empty 'or' (it is false)");
      end_factor (p);
      return CN_OK;
    }
  int c = cmp_op (p, &op);
  if (c < 0)
    {
      if (op.kind != T_ATOM)
        return unexpected (p, &op, "a comparison operator");
      for (size_t k = 0; k < sizeof unsupported / sizeof unsupported[0]; k++)
        if (tok_is (p, &op, unsupported[k]))
          return perr (p, CN_EUNSUPPORTED, op.off,
                       "'" TOKF "' is not supported here (a formula is a comparison, 'and' or "
                       "'or')", TOKA (p, &op));
      return perr (p, CN_EPARSE, op.off, "unknown symbol '" TOKF "'", TOKA (p, &op));
    }
  if (ctx == CTX_AND)
    return parse_cmp (p, open->off, c, 0);
  if (ctx == CTX_TOP && (st = begin_factor (p)) != CN_OK)
    return st;
  if ((st = new_disj (p)) != CN_OK || (st = parse_cmp (p, open->off, c, 1)) != CN_OK)
    return st;
  end_disj (p);
  if (ctx == CTX_TOP)
    end_factor (p);
  return CN_OK;
}

/* Reads the formula of an assert and the assert's ')' ("(assert" was read). */
static cn_status
parse_assert (struct parser *p)
{
  struct tok t, c;
  cn_status st;

  next_tok (p, &t);
  if (t.kind != T_LP)
    {
      if (tok_is (p, &t, "true") || tok_is (p, &t, "false"))
        return perr (p, CN_EUNSUPPORTED, t.off,
                     "assert of '" TOKF "' is not supported (only comparisons)", TOKA (p, &t));
      return unexpected (p, &t, "a formula");
    }
  if ((st = parse_formula (p, &t, CTX_TOP, 1)) != CN_OK)
    return st;
  next_tok (p, &c);
  if (c.kind == T_ATOM || c.kind == T_LP)
    return perr (p, CN_EPARSE, c.off, "assert takes exactly one formula");
  if (c.kind != T_RP)
    return unexpected (p, &c, "')'");
  return CN_OK;
}

/* Reads "NAME SORT)" of a declare-const. */
static cn_status
parse_declare (struct parser *p)
{
  struct tok t, s;
  int64_t idx;
  char v;

  next_tok (p, &t);
  if (t.kind != T_ATOM)
    return unexpected (p, &t, "a variable name");
  v = var_name (p, &t, &idx);
  if (!v)
    return perr (p, CN_EPARSE, t.off,
                 "declare-const: unknown symbol '" TOKF "' (expected X_i or Y_j)", TOKA (p, &t));
  if (idx < 0)
    return perr (p, CN_EPARSE, t.off,
                 "declare-const: index of '" TOKF "' too large for dense numbering from 0",
                 TOKA (p, &t));
  next_tok (p, &s);
  if (s.kind != T_ATOM)
    return unexpected (p, &s, "a sort");
  if (!tok_is (p, &s, "Real"))
    return perr (p, CN_EUNSUPPORTED, s.off,
                 "declare-const: sort '" TOKF "' is not supported (only Real)", TOKA (p, &s));
  cn_status st = expect_rp (p, "')'");
  if (st != CN_OK)
    return st;

  struct vars *vs = v == 'X' ? &p->x : &p->y;
  if ((size_t) idx >= vs->cap)
    {
      size_t old = vs->cap;
      void *grow_tmp;
      if (GROW (vs->decl, vs->cap, (size_t) idx + 1) != 0)
        return nomem (p);
      for (size_t k = old; k < vs->cap; k++)
        vs->decl[k] = NONE;
    }
  if (vs->decl[idx] != NONE)
    {
      unsigned long line, col;
      line_col (p, vs->decl[idx], &line, &col);
      return perr (p, CN_EPARSE, t.off, TOKF " is declared twice (first at %lu:%lu)",
                   TOKA (p, &t), line, col);
    }
  vs->decl[idx] = t.off;
  vs->count++;
  if (idx > vs->max)
    vs->max = idx;
  return CN_OK;
}

/* ---- VNN-LIB 2.0 declarations ----------------------------------------------------------- */

/* Reads "<M.N>)" of a vnnlib-version: M must be 2. */
static cn_status
parse_version (struct parser *p)
{
  struct tok t;
  next_tok (p, &t);
  if (t.kind != T_ATOM)
    return unexpected (p, &t, "a version such as <2.0>");
  const char *s = p->text + t.off;
  size_t n = t.len, i = 1, major_end;
  int ok = n >= 5 && s[0] == '<' && s[n - 1] == '>';
  while (ok && i < n - 1 && s[i] >= '0' && s[i] <= '9')
    i++;
  major_end = i;
  ok = ok && major_end > 1 && i < n - 1 && s[i] == '.';
  for (i++; ok && i < n - 1; i++)
    ok = s[i] >= '0' && s[i] <= '9';
  ok = ok && s[major_end + 1] != '>';
  if (!ok)
    return perr (p, CN_EPARSE, t.off,
                 "malformed version '" TOKF "' (expected <major.minor>, such as <2.0>)",
                 TOKA (p, &t));
  size_t z = 1;
  while (z + 1 < major_end && s[z] == '0')
    z++;
  if (!(major_end - z == 1 && s[z] == '2'))
    return perr (p, CN_EUNSUPPORTED, t.off,
                 "VNN-LIB version " TOKF " is not supported (this reader takes 1.0, which has "
                 "no version statement, and 2.x)", TOKA (p, &t));
  return expect_rp (p, "')'");
}

/* 1 for an element type whose values are real numbers (Real and the floating-point types of
 * ONNX), 0 for another ONNX type, -1 for a name that is no type. */
static int
element_type (const struct parser *p, const struct tok *t)
{
  static const char *const real[] = {
    "Real", "float", "double", "float16", "float32", "float64", "bfloat16"
  };
  static const char *const other[] = {
    "int4", "int8", "int16", "int32", "int64", "uint4", "uint8", "uint16", "uint32", "uint64",
    "bool", "string", "complex64", "complex128"
  };
  char w[16];
  if (t->kind != T_ATOM || t->len >= sizeof w)
    return -1;
  for (size_t i = 0; i < t->len; i++)
    {
      char c = p->text[t->off + i];
      w[i] = c >= 'A' && c <= 'Z' ? (char) (c - 'A' + 'a') : c;
    }
  w[t->len] = '\0';
  for (size_t k = 0; k < sizeof real / sizeof real[0]; k++)
    if (strcmp (w, k == 0 ? "real" : real[k]) == 0)
      return 1;
  if (strncmp (w, "float8", 6) == 0 || strncmp (w, "float4", 6) == 0)
    return 1;
  for (size_t k = 0; k < sizeof other / sizeof other[0]; k++)
    if (strcmp (w, other[k]) == 0)
      return 0;
  return -1;
}

/* Reads "NAME TYPE SHAPE ["onnx-name"])" of a declare-input or declare-output (WHAT) whose '('
 * is at OPEN, into D. */
static cn_status
parse_tensor_decl (struct parser *p, size_t open, const char *what, struct tensor_decl *d)
{
  struct tok name, type, t;
  int64_t dim[CN_MAX_RANK], numel = 1;
  int rank = 0;
  cn_status st;

  next_tok (p, &name);
  if (name.kind != T_ATOM)
    return unexpected (p, &name, "a tensor name");
  if (!valid_name (p, &name))
    return perr (p, CN_EPARSE, name.off,
                 "'" TOKF "' is not a name (a letter, then letters, digits and '_')",
                 TOKA (p, &name));
  const struct tensor_decl *other = d == &p->in ? &p->out : &p->in;
  if (other->off != NONE && same_text (p, &name, &other->name))
    {
      unsigned long line, col;
      line_col (p, other->name.off, &line, &col);
      return perr (p, CN_EPARSE, name.off, TOKF " is declared twice (first at %lu:%lu)",
                   TOKA (p, &name), line, col);
    }
  next_tok (p, &type);
  int et = element_type (p, &type);
  if (et < 0)
    return type.kind == T_ATOM
      ? perr (p, CN_EPARSE, type.off, "unknown element type '" TOKF "' (expected Real or an "
              "ONNX type such as float32)", TOKA (p, &type))
      : unexpected (p, &type, "an element type");
  if (et == 0)
    return perr (p, CN_EUNSUPPORTED, type.off,
                 "element type '" TOKF "' is not supported (only Real and floating-point types)",
                 TOKA (p, &type));
  next_tok (p, &t);
  if (t.kind != T_LB)
    return unexpected (p, &t, "a shape such as [1,784]");
  if (peek_kind (p) == T_RB)
    next_tok (p, &t);
  else
    for (int last = 0; !last;)
      {
        int64_t v;
        if ((st = list_count (p, &t, &v, "a dimension must be a positive integer", "a dimension"))
            != CN_OK)
          return st;
        if (v == 0)
          return perr (p, CN_EUNSUPPORTED, t.off,
                       "a dimension of size 0 (an empty tensor) is not supported");
        if (rank == CN_MAX_RANK)
          return perr (p, CN_EUNSUPPORTED, t.off, "a tensor of more than %d dimensions is not "
                       "supported", CN_MAX_RANK);
        /* the element count so far is at most cn_max_numel (), so this cannot overflow */
        if (v > cn_max_numel () / numel)
          return perr (p, CN_ELIMIT, name.off, "%s '" TOKF "' has more than %lld elements (the "
                       "size limit)", what, TOKA (p, &name), (long long) cn_max_numel ());
        numel *= v;
        dim[rank++] = v;
        if ((st = list_sep (p, &last)) != CN_OK)
          return st;
      }
  if ((st = cn_shape_make (&d->shape, rank, dim, p->err)) != CN_OK)
    return st;
  next_tok (p, &t);
  if (t.kind == T_STR)
    next_tok (p, &t);
  if (t.kind != T_RP)
    return unexpected (p, &t, "')'");
  d->off = open;
  d->name = name;
  return CN_OK;
}

/* Reads "NAME DECLARATIONS...)" of a declare-network. */
static cn_status
parse_network (struct parser *p)
{
  struct tok name;
  int stage = 0;                /* 0: inputs, 1: hidden tensors, 2: outputs */
  static const char *const stages[] = { "declare-input", "declare-hidden", "declare-output" };
  cn_status st;

  next_tok (p, &name);
  if (name.kind != T_ATOM)
    return unexpected (p, &name, "a network name");
  if (!valid_name (p, &name))
    return perr (p, CN_EPARSE, name.off,
                 "'" TOKF "' is not a name (a letter, then letters, digits and '_')",
                 TOKA (p, &name));
  if (p->first_assert != NONE)
    return perr (p, CN_EPARSE, p->stmt_off,
                 "declare-network after an assert (a query declares its networks first)");
  if (p->network.len > 0)
    {
      unsigned long line, col;
      line_col (p, p->network_off, &line, &col);
      return perr (p, CN_EUNSUPPORTED, name.off,
                   "a second network '" TOKF "' (the first is at %lu:%lu): certnn verifies "
                   "queries over one network", TOKA (p, &name), line, col);
    }
  p->network = name;
  p->network_off = p->stmt_off;
  for (;;)
    {
      struct tok t, kw;
      next_tok (p, &t);
      if (t.kind == T_RP)
        break;
      if (t.kind != T_LP)
        return unexpected (p, &t, "a declaration");
      next_tok (p, &kw);
      int s = tok_is (p, &kw, "declare-input") ? 0 : tok_is (p, &kw, "declare-hidden") ? 1
        : tok_is (p, &kw, "declare-output") ? 2 : -1;
      if (tok_is (p, &kw, "isomorphic-to") || tok_is (p, &kw, "equal-to"))
        return perr (p, CN_EUNSUPPORTED, kw.off, "'" TOKF "' relates two networks: certnn "
                     "verifies queries over one network", TOKA (p, &kw));
      if (s < 0)
        return kw.kind == T_ATOM
          ? perr (p, CN_EPARSE, kw.off, "unknown declaration '" TOKF "' (expected "
                  "declare-input, declare-hidden or declare-output)", TOKA (p, &kw))
          : unexpected (p, &kw, "a declaration");
      if (s < stage)
        return perr (p, CN_EPARSE, t.off, "%s after %s (inputs come first, then hidden "
                     "tensors, then outputs)", stages[s], stages[stage]);
      stage = s;
      if (s == 1)
        return perr (p, CN_EUNSUPPORTED, kw.off,
                     "declare-hidden (a constraint on a hidden tensor) is not supported");
      struct tensor_decl *d = s == 0 ? &p->in : &p->out, tmp = { .off = NONE };
      if ((st = parse_tensor_decl (p, t.off, s == 0 ? "input" : "output", &tmp)) != CN_OK)
        return st;
      if (d->off != NONE)
        return perr (p, CN_EUNSUPPORTED, t.off, "a second %s '" TOKF "': certnn verifies "
                     "networks with one input and one output", s == 0 ? "input" : "output",
                     TOKA (p, &tmp.name));
      *d = tmp;
    }
  if (p->in.off == NONE || p->out.off == NONE)
    return perr (p, CN_EPARSE, p->stmt_off, "network '" TOKF "' declares no %s",
                 TOKA (p, &name), p->in.off == NONE ? "input" : "output");
  return CN_OK;
}

/* Skips the rest of a form up to its matching ')'. */
static cn_status
skip_form (struct parser *p)
{
  size_t depth = 1;
  while (depth > 0)
    {
      struct tok t;
      next_tok (p, &t);
      if (t.kind == T_END)
        return unexpected (p, &t, "')'");
      depth += t.kind == T_LP;
      depth -= t.kind == T_RP;
    }
  return CN_OK;
}

static cn_status
parse_file (struct parser *p)
{
  static const char *const ignored[] = {
    "check-sat", "get-model", "set-logic", "set-info", "set-option"
  };
  for (int first = 1;; first = 0)
    {
      struct tok t, cmd;
      cn_status st;
      next_tok (p, &t);
      if (t.kind == T_END)
        return CN_OK;
      if (t.kind == T_RP)
        return perr (p, CN_EPARSE, t.off, "unbalanced parentheses: unexpected ')'");
      if (t.kind == T_ATOM)
        return perr (p, CN_EPARSE, t.off, "expected '(', found '" TOKF "'", TOKA (p, &t));
      p->stmt_off = t.off;
      next_tok (p, &cmd);
      if (tok_is (p, &cmd, "vnnlib-version"))
        {
          if (!first)
            return perr (p, CN_EPARSE, cmd.off,
                         "vnnlib-version must be the first statement of the file");
          st = parse_version (p);
        }
      else if (tok_is (p, &cmd, "declare-const"))
        {
          if (p->v2)
            return perr (p, CN_EPARSE, cmd.off, "declare-const is VNN-LIB 1.0: a 2.0 query "
                         "declares its tensors in declare-network");
          st = parse_declare (p);
        }
      else if (tok_is (p, &cmd, "declare-network"))
        {
          if (!p->v2)
            return perr (p, CN_EPARSE, cmd.off, "declare-network is VNN-LIB 2.0: such a file "
                         "begins with (vnnlib-version <2.0>)");
          st = parse_network (p);
        }
      else if (tok_is (p, &cmd, "assert"))
        {
          if (p->first_assert == NONE)
            p->first_assert = t.off;
          st = parse_assert (p);
        }
      else if (cmd.kind == T_ATOM)
        {
          size_t k, n = sizeof ignored / sizeof ignored[0];
          for (k = 0; k < n && !tok_is (p, &cmd, ignored[k]); k++)
            ;
          if (k == n)
            return perr (p, CN_EPARSE, cmd.off, "unknown command '" TOKF "'", TOKA (p, &cmd));
          st = skip_form (p);
        }
      else
        st = unexpected (p, &cmd, "a command");
      if (st != CN_OK)
        return st;
    }
}

/* CN_OK if the indices of VS are exactly 0 .. count-1. */
static cn_status
check_dense (struct parser *p, const struct vars *vs, char v)
{
  if (vs->count == 0 || vs->max + 1 == vs->count)
    return CN_OK;
  int64_t miss = 0;
  while (vs->decl[miss] != NONE)
    miss++;
  return perr (p, CN_EPARSE, vs->decl[vs->max],
               "%c_%lld is declared but %c_%lld is not (indices must be dense from 0)", v,
               (long long) vs->max, v, (long long) miss);
}

/* VNN-LIB 2.0: one network was declared; its element counts become n_x and n_y.  Every input
 * element needs a lower bound, each its own atom: fewer lower-bound atoms than elements is
 * refused before any box of n_x numbers is allocated. */
static cn_status
check_network (struct parser *p)
{
  if (p->network.len == 0)
    return perr (p, CN_EPARSE, p->version_off, "no declare-network (a VNN-LIB 2.0 query declares "
                 "its network before its asserts)");
  size_t lows = 0;
  for (size_t k = 0; k < p->n_atoms; k++)
    lows += p->atoms[k].kind == A_XLO;
  p->x.count = cn_shape_numel (&p->in.shape);
  p->y.count = cn_shape_numel (&p->out.shape);
  if ((uint64_t) p->x.count > (uint64_t) lows)
    return perr (p, CN_EPARSE, p->in.off, TOKF " has %lld elements, but the asserts bound only "
                 "%zu from below (every element needs a lower and an upper bound)",
                 TOKA (p, &p->in.name), (long long) p->x.count, lows);
  return CN_OK;
}

/* ---- multiplying out -------------------------------------------------------------------- */

struct builder
{
  struct parser *p;
  cn_spec *spec;
  int64_t n_x, n_y;
  size_t cap_cases, cap_cc, cap_hash;
  size_t *cap_clauses;          /* per case */
  uint64_t *hash;               /* per case */
  int64_t *table;               /* open addressing over case indices, -1 empty */
  size_t table_size;
  uint64_t doubles;             /* stored so far */
};

static uint64_t
box_hash (const double *lo, const double *hi, int64_t n)
{
  uint64_t h = 0x9e3779b97f4a7c15u;
  for (int64_t i = 0; i < n; i++)
    for (int k = 0; k < 2; k++)
      {
        /* +0.0 makes -0 and +0 hash alike, as they compare equal. */
        double v = (k ? hi[i] : lo[i]) + 0.0;
        uint64_t w;
        memcpy (&w, &v, sizeof w);
        h ^= w;
        h *= 0x100000001b3u;
        h ^= h >> 29;
      }
  return h;
}

static int
box_equal (const cn_box *b, const double *lo, const double *hi)
{
  for (int64_t i = 0; i < b->n; i++)
    if (b->lo[i] != lo[i] || b->hi[i] != hi[i])
      return 0;
  return 1;
}

static cn_status
table_rebuild (struct builder *bd, size_t size)
{
  int64_t *t = malloc (size * sizeof *t);
  if (t == NULL)
    return nomem (bd->p);
  for (size_t k = 0; k < size; k++)
    t[k] = -1;
  for (int64_t c = 0; c < bd->spec->n_cases; c++)
    {
      size_t k = bd->hash[c] & (size - 1);
      while (t[k] >= 0)
        k = (k + 1) & (size - 1);
      t[k] = c;
    }
  free (bd->table);
  bd->table = t;
  bd->table_size = size;
  return CN_OK;
}

/* Finds the case whose box is [LO, HI], or appends a new one; *OUT is its index. */
static cn_status
find_case (struct builder *bd, const double *lo, const double *hi, int64_t *out)
{
  cn_spec *sp = bd->spec;
  uint64_t h = box_hash (lo, hi, bd->n_x);
  size_t k = h & (bd->table_size - 1);
  cn_status st;

  for (; bd->table[k] >= 0; k = (k + 1) & (bd->table_size - 1))
    {
      int64_t c = bd->table[k];
      if (bd->hash[c] == h && box_equal (&sp->cases[c].box, lo, hi))
        {
          *out = c;
          return CN_OK;
        }
    }
  bd->doubles += 2 * (uint64_t) bd->n_x;
  if (bd->doubles > MAX_DOUBLES)
    return cn_error_set (bd->p->err, CN_EUNSUPPORTED,
                         "%s: the specification is too large once its disjunctions are "
                         "multiplied out", bd->p->name);
  size_t n = (size_t) sp->n_cases;
  void *grow_tmp;
  if (GROW (sp->cases, bd->cap_cases, n + 1) != 0 || GROW (bd->cap_clauses, bd->cap_cc, n + 1) != 0
      || GROW (bd->hash, bd->cap_hash, n + 1) != 0)
    return nomem (bd->p);
  cn_spec_case *c = &sp->cases[n];
  memset (c, 0, sizeof *c);
  bd->cap_clauses[n] = 0;
  if ((st = cn_box_init (&c->box, bd->n_x, bd->p->err)) != CN_OK)
    return st;
  sp->n_cases++;
  if (bd->n_x > 0)
    {
      memcpy (c->box.lo, lo, (size_t) bd->n_x * sizeof *lo);
      memcpy (c->box.hi, hi, (size_t) bd->n_x * sizeof *hi);
    }
  bd->hash[n] = h;
  bd->table[k] = (int64_t) n;
  if (2 * (size_t) sp->n_cases > bd->table_size
      && (st = table_rebuild (bd, 2 * bd->table_size)) != CN_OK)
    return st;
  *out = (int64_t) n;
  return CN_OK;
}

/* Appends to case CI the clause of the rows of the disjuncts chosen by CH (one per factor). */
static cn_status
add_clause (struct builder *bd, int64_t ci, const size_t *ch)
{
  struct parser *p = bd->p;
  cn_spec_case *c = &bd->spec->cases[ci];
  cn_spec_clause *cl;
  size_t rows = 0, r = 0;

  for (size_t f = 0; f < p->n_factors; f++)
    {
      const struct disj *d = &p->disjs[p->factors[f].d0 + ch[f]];
      for (size_t k = d->a0; k < d->a0 + d->na; k++)
        rows += p->atoms[k].kind == A_ROW;
    }
  bd->doubles += (uint64_t) rows * ((uint64_t) bd->n_y + 2);
  if (bd->doubles > MAX_DOUBLES)
    return cn_error_set (p->err, CN_EUNSUPPORTED,
                         "%s: the specification is too large once its disjunctions are "
                         "multiplied out", p->name);
  void *grow_tmp;
  if (GROW (c->clauses, bd->cap_clauses[ci], (size_t) c->n_clauses + 1) != 0)
    return nomem (p);
  cl = &c->clauses[c->n_clauses];
  memset (cl, 0, sizeof *cl);
  c->n_clauses++;
  /* With no rows the clause holds at every point of the box.  Its arrays are still allocated
   * (one unused entry), so that no consumer meets a NULL pointer (memcpy of 0 bytes from NULL
   * is undefined). */
  size_t nr = rows ? rows : 1, nm = rows * (size_t) bd->n_y;
  cl->mat = calloc (nm ? nm : 1, sizeof *cl->mat);
  cl->rhs_up = calloc (nr, sizeof *cl->rhs_up);
  cl->rhs_down = calloc (nr, sizeof *cl->rhs_down);
  if (cl->mat == NULL || cl->rhs_up == NULL || cl->rhs_down == NULL)
    return nomem (p);
  cl->n_rows = (int64_t) rows;
  for (size_t f = 0; f < p->n_factors; f++)
    {
      const struct disj *d = &p->disjs[p->factors[f].d0 + ch[f]];
      for (size_t k = d->a0; k < d->a0 + d->na; k++)
        {
          const struct atom *a = &p->atoms[k];
          if (a->kind != A_ROW)
            continue;
          double *m = cl->mat + r * (size_t) bd->n_y;
          /* integers below 2^53, one per output but for y_a - y_a: the sums are exact */
          for (size_t q = a->c0; q < a->c0 + a->nc; q++)
            m[p->coefs[q].idx] += p->coefs[q].c;
          cl->rhs_up[r] = a->u;
          cl->rhs_down[r] = a->d;
          r++;
        }
    }
  return CN_OK;
}

/* Intersects the box (LO, HI; SLO, SHI the atoms that set each end) with the input bounds of
 * disjunct D.  LO and HI start as NaN ("no bound").  Of two atoms that set an end to the same
 * double, the open one is kept: the exact set is then open at that end. */
static void
apply_bounds (const struct parser *p, const struct disj *d, double *lo, double *hi, size_t *slo,
              size_t *shi)
{
  for (size_t k = d->a0; k < d->a0 + d->na; k++)
    {
      const struct atom *a = &p->atoms[k];
      if (a->kind == A_XLO && (!(lo[a->a] >= a->d) || (lo[a->a] == a->d && a->open)))
        lo[a->a] = a->d, slo[a->a] = k;
      else if (a->kind == A_XHI && (!(hi[a->a] <= a->u) || (hi[a->a] == a->u && a->open)))
        hi[a->a] = a->u, shi[a->a] = k;
    }
}

/* Advances the odometer CH over the factors selected by SEL (the last one fastest); returns 0
 * when it wrapped around. */
static int
odometer (const struct parser *p, size_t *ch, int sel)
{
  for (size_t f = p->n_factors; f-- > 0;)
    {
      const struct factor *fa = &p->factors[f];
      if (fa->nd < 2 || fa->has_x != sel)
        continue;
      if (++ch[f] < fa->nd)
        return 1;
      ch[f] = 0;
    }
  return 0;
}

static cn_status
build (struct parser *p, cn_spec *spec)
{
  struct builder bd = { .p = p, .spec = spec, .n_x = p->x.count, .n_y = p->y.count };
  size_t nx = (size_t) bd.n_x;
  double *blo = NULL, *bhi = NULL, *lo = NULL, *hi = NULL;
  size_t *bslo = NULL, *bshi = NULL, *slo = NULL, *shi = NULL, *ch = NULL;
  uint64_t n_box = 1, n_row = 1;
  cn_status st = CN_OK;

  /* The term count: products over the asserts with more than one disjunct, those that bound
   * an input (they select the box) and the others (they select rows only). */
  for (size_t f = 0; f < p->n_factors; f++)
    {
      uint64_t *n = p->factors[f].has_x ? &n_box : &n_row;
      if (p->factors[f].nd > MAX_TERMS || *n * p->factors[f].nd > MAX_TERMS)
        return cn_error_set (p->err, CN_EUNSUPPORTED,
                             "%s: too many disjuncts once the disjunctions are multiplied out "
                             "(more than %llu)", p->name, (unsigned long long) MAX_TERMS);
      *n *= p->factors[f].nd;
    }
  if (n_box * n_row > MAX_TERMS || n_box * ((uint64_t) nx + 1) > MAX_BOX_WORK)
    return cn_error_set (p->err, CN_EUNSUPPORTED,
                         "%s: too many disjuncts once the disjunctions are multiplied out "
                         "(%llu input boxes, %llu terms)", p->name, (unsigned long long) n_box,
                         (unsigned long long) (n_box * n_row));

  size_t m = nx ? nx : 1;
  blo = malloc (m * sizeof *blo);
  bhi = malloc (m * sizeof *bhi);
  lo = malloc (m * sizeof *lo);
  hi = malloc (m * sizeof *hi);
  bslo = malloc (m * sizeof *bslo);
  bshi = malloc (m * sizeof *bshi);
  slo = malloc (m * sizeof *slo);
  shi = malloc (m * sizeof *shi);
  ch = calloc (p->n_factors ? p->n_factors : 1, sizeof *ch);
  bd.table_size = 16;
  if (blo == NULL || bhi == NULL || lo == NULL || hi == NULL || bslo == NULL || bshi == NULL
      || slo == NULL || shi == NULL || ch == NULL)
    {
      st = nomem (p);
      goto fail;
    }
  if ((st = table_rebuild (&bd, bd.table_size)) != CN_OK)
    goto fail;

  /* The base box: the input bounds of the asserts with one disjunct, common to every term. */
  for (size_t i = 0; i < nx; i++)
    blo[i] = bhi[i] = NAN, bslo[i] = bshi[i] = NONE;
  for (size_t f = 0; f < p->n_factors; f++)
    if (p->factors[f].nd == 1)
      apply_bounds (p, &p->disjs[p->factors[f].d0], blo, bhi, bslo, bshi);

  do
    {
      int64_t ci = 0;
      /* The box of this choice of input disjuncts. */
      if (nx > 0)
        {
          memcpy (lo, blo, nx * sizeof *lo);
          memcpy (hi, bhi, nx * sizeof *hi);
          memcpy (slo, bslo, nx * sizeof *slo);
          memcpy (shi, bshi, nx * sizeof *shi);
        }
      for (size_t f = 0; f < p->n_factors; f++)
        if (p->factors[f].nd > 1 && p->factors[f].has_x)
          apply_bounds (p, &p->disjs[p->factors[f].d0 + ch[f]], lo, hi, slo, shi);
      for (size_t i = 0; i < nx; i++)
        {
          char nm[192];
          size_t decl = p->v2 ? p->in.off : p->x.decl[i];
          if (isnan (lo[i]) || isnan (hi[i]))
            {
              elem_name (p, 'X', (int64_t) i, nm, sizeof nm);
              st = perr (p, CN_EPARSE, decl, "%s has no %s bound%s", nm,
                         isnan (lo[i]) ? "lower" : "upper",
                         n_box > 1 ? " in one of the disjuncts" : "");
              goto fail;
            }
          if (lo[i] > hi[i])
            {
              size_t k = slo[i] > shi[i] ? slo[i] : shi[i];
              elem_name (p, 'X', (int64_t) i, nm, sizeof nm);
              st = perr (p, CN_EPARSE, p->atoms[k].off,
                         "empty box: %s in [%.17g, %.17g]", nm, lo[i], hi[i]);
              goto fail;
            }
          /* Equal ends are a point only if both bounds are closed at that double: an open end
           * (a strict comparison, or a constant rounded outward onto it) excludes it, and
           * the exact set is empty.  (A counterexample on a degenerate axis is its end.) */
          if (lo[i] == hi[i] && (p->atoms[slo[i]].open || p->atoms[shi[i]].open))
            {
              size_t k = slo[i] > shi[i] ? slo[i] : shi[i];
              elem_name (p, 'X', (int64_t) i, nm, sizeof nm);
              st = perr (p, CN_EPARSE, p->atoms[k].off,
                         "empty box: %s lies in [%.17g, %.17g] as rounded, but its exact bounds "
                         "leave no number (one is strict, or falls between doubles)", nm, lo[i],
                         hi[i]);
              goto fail;
            }
        }
      /* now lo <= x <= hi is the conjunction of the chosen input bounds, rounded outward. */
      if ((st = find_case (&bd, lo, hi, &ci)) != CN_OK)
        goto fail;
      do
        if ((st = add_clause (&bd, ci, ch)) != CN_OK)
          goto fail;
      while (odometer (p, ch, 0));
    }
  while (odometer (p, ch, 1));
  spec->n_x = bd.n_x;
  spec->n_y = bd.n_y;

fail:
  free (blo);
  free (bhi);
  free (lo);
  free (hi);
  free (bslo);
  free (bshi);
  free (slo);
  free (shi);
  free (ch);
  free (bd.cap_clauses);
  free (bd.hash);
  free (bd.table);
  return st;
}

/* ---- entry points ----------------------------------------------------------------------- */

cn_status
cn_spec_parse_vnnlib (const char *text, size_t len, const char *name, cn_spec *spec,
                      cn_error *err)
{
  struct parser p;
  cn_status st;

  if (spec == NULL)
    return cn_error_set (err, CN_EINVAL, "cn_spec_parse_vnnlib: spec is NULL");
  memset (spec, 0, sizeof *spec);
  if (text == NULL && len > 0)
    return cn_error_set (err, CN_EINVAL, "cn_spec_parse_vnnlib: text is NULL");
  memset (&p, 0, sizeof p);
  p.text = text;
  p.len = len;
  p.name = name ? name : "vnnlib";
  p.err = err;
  p.x.max = p.y.max = -1;
  p.in.off = p.out.off = p.first_assert = NONE;
  mpfr_init2 (p.num, 53);
  mpq_init (p.q);
  mpq_init (p.q2);
  mpz_init (p.z);

  /* A file whose first statement is (vnnlib-version ...) is read as VNN-LIB 2.0. */
  {
    struct tok a, b;
    next_tok (&p, &a);
    next_tok (&p, &b);
    p.v2 = a.kind == T_LP && tok_is (&p, &b, "vnnlib-version");
    p.version_off = a.off;
    p.pos = 0;
  }
  if ((st = parse_file (&p)) != CN_OK)
    goto fail;
  if (p.v2 && (st = check_network (&p)) != CN_OK)
    goto fail;
  if (!p.v2 && ((st = check_dense (&p, &p.x, 'X')) != CN_OK
                || (st = check_dense (&p, &p.y, 'Y')) != CN_OK))
    goto fail;
  /* now every atom names declared variables and the indices are 0 .. n-1. */
  st = build (&p, spec);

fail:
  if (st != CN_OK)
    cn_spec_clear (spec);
  mpfr_clear (p.num);
  mpq_clear (p.q);
  mpq_clear (p.q2);
  mpz_clear (p.z);
  free (p.coefs);
  free (p.x.decl);
  free (p.y.decl);
  free (p.atoms);
  free (p.disjs);
  free (p.factors);
  free (p.buf);
  return st;
}

cn_status
cn_spec_load_vnnlib (const char *path, cn_spec *spec, cn_error *err)
{
  FILE *fp = NULL;
  char *buf = NULL;
  size_t len = 0, cap = 0;
  cn_status st;

  if (spec == NULL || path == NULL)
    return cn_error_set (err, CN_EINVAL, "cn_spec_load_vnnlib: %s is NULL",
                         spec == NULL ? "spec" : "path");
  memset (spec, 0, sizeof *spec);
  fp = fopen (path, "rb");
  if (fp == NULL)
    return cn_error_set (err, CN_EIO, "%s: cannot open: %s", path, strerror (errno));
  /* The size, when the stream can tell it, saves reallocations; the loop reads to the end
   * whatever it is. */
  if (fseek (fp, 0, SEEK_END) == 0)
    {
      long size = ftell (fp);
      if (size > 0 && (unsigned long) size < SIZE_MAX - 1)
        cap = (size_t) size + 1;
      rewind (fp);
      if (cap > 0 && (buf = malloc (cap)) == NULL)
        {
          st = cn_error_set (err, CN_ENOMEM, "%s: out of memory", path);
          goto fail;
        }
    }
  for (;;)
    {
      void *grow_tmp;
      if (len == cap && GROW (buf, cap, len + 65536) != 0)
        {
          st = cn_error_set (err, CN_ENOMEM, "%s: out of memory", path);
          goto fail;
        }
      size_t n = fread (buf + len, 1, cap - len, fp);
      len += n;
      if (n == 0)
        break;
    }
  if (ferror (fp))
    {
      st = cn_error_set (err, CN_EIO, "%s: read error: %s", path, strerror (errno));
      goto fail;
    }
  st = cn_spec_parse_vnnlib (buf, len, path, spec, err);

fail:
  fclose (fp);
  free (buf);
  return st;
}

void
cn_spec_clear (cn_spec *spec)
{
  if (spec == NULL)
    return;
  for (int64_t c = 0; c < spec->n_cases; c++)
    {
      cn_spec_case *k = &spec->cases[c];
      cn_box_clear (&k->box);
      for (int64_t j = 0; j < k->n_clauses; j++)
        {
          free (k->clauses[j].mat);
          free (k->clauses[j].rhs_up);
          free (k->clauses[j].rhs_down);
        }
      free (k->clauses);
    }
  free (spec->cases);
  memset (spec, 0, sizeof *spec);
}
