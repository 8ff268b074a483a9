/* SPDX-License-Identifier: MIT */
/* src/io/vnnlib.c: the VNN-LIB subset of VNN-COMP (VNNCOMP.md section 3), read into a cn_spec.
 *
 * Accepted statements: (declare-const X_i Real), (declare-const Y_j Real), and (assert F) where
 *   F := C | (and A ...) | (or D ...),   D := C | (and A ...),   A := C | (and A ...),
 *   C := (<= T T) | (>= T T),            T := X_i | Y_j | numeric constant.
 * A comparison of X_i with a constant bounds the input; one of Y_j with a constant or with Y_k is
 * an output row  mat . y <= rhs.  (check-sat), (get-model), (set-logic ..), (set-info ..) and
 * (set-option ..) are skipped.  Everything else is refused with a "name:line:column: message":
 * CN_EPARSE for malformed text, CN_EUNSUPPORTED for SMT-LIB that is well formed but outside the
 * subset (strict comparisons, arithmetic terms, X compared with Y, ...).
 *
 * Semantics.  The file is the conjunction of its asserts.  Assert k is a disjunction of
 * conjunctions ("disjuncts"); a comparison or an `and` is a disjunction of one.  Multiplying out
 * gives the DNF  OR over (d_1, ..., d_K) of  d_1 AND ... AND d_K,  one term per choice of a
 * disjunct in every assert.  In each term the X comparisons intersect into a box and the Y
 * comparisons form one clause; terms whose boxes are equal (as doubles) share a case.  The term
 * count is the product of the disjunct counts; it is capped (CN_EUNSUPPORTED beyond the caps),
 * so memory and time stay bounded.  A term with no Y comparison is a clause with n_rows == 0:
 * the unsafe condition then holds at every point of the box.
 *
 * Rounding.  Every constant c is read from its decimal text by MPFR, correctly rounded in both
 * directions: c_d = RD(c) and c_u = RU(c), so c_d <= c <= c_u exactly, with c_d == c_u iff c is
 * a double.  A bound X_i >= c stores lo = c_d and X_i <= c stores hi = c_u: the stored box holds
 * the exact box.  A row  a . y <= r  stores rhs_up = RU(r), rhs_down = RD(r); for r = -c these
 * are -c_d and -c_u, exact negations.  Intersections take max of the lows and min of the highs;
 * since RD and RU are monotone, max_k RD(c_k) = RD(max_k c_k), so the intersection of rounded
 * bounds is the rounding of the exact intersection.  Emptiness is judged on the stored doubles:
 * an exact box that is empty but whose rounded ends still satisfy lo <= hi (both ends within one
 * ulp of each other) is kept as that rounded, nonempty box, a superset of the exact set. */
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

/* Caps on the multiplied-out DNF: terms, box evaluations (terms over the asserts that bound X,
 * times n_x), and stored doubles (boxes plus rows).  Far above every VNN-COMP file (at most 8
 * terms), far below what would exhaust memory. */
#define MAX_TERMS ((uint64_t) 1 << 22)
#define MAX_BOX_WORK ((uint64_t) 1 << 28)
#define MAX_DOUBLES ((uint64_t) 1 << 27)
/* Nesting of `and` inside `and`. */
#define MAX_DEPTH 64
#define NONE SIZE_MAX

enum tok_kind { T_END, T_LP, T_RP, T_ATOM };

struct tok
{
  enum tok_kind kind;
  size_t off, len;              /* byte offset and length in the text */
};

/* A term of a comparison: an input, an output or a constant c given as [c_d, c_u]. */
struct term
{
  char kind;                    /* 'X', 'Y' or 'C' */
  int64_t idx;
  double d, u;
};

enum atom_kind { A_XLO, A_XHI, A_ROW };

/* One comparison, normalised.  A_XLO: x_a >= lo with lo = d.  A_XHI: x_a <= hi with hi = u.
 * A_ROW: ca y_a + cb y_b <= r with d = RD(r), u = RU(r); b < 0 when only y_a occurs.  Atoms are
 * stored in file order. */
struct atom
{
  unsigned char kind;
  int64_t a, b;
  double ca, cb;
  double d, u;
  size_t off;                   /* offset of the comparison's '(' */
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

/* Declared variables of one kind: decl[i] is the offset of X_i's declaration, NONE if absent. */
struct vars
{
  size_t *decl;
  size_t cap;
  int64_t count, max;
};

struct parser
{
  const char *text;
  size_t len, pos;
  const char *name;
  cn_error *err;
  size_t stmt_off;              /* '(' of the statement being read */
  struct vars x, y;
  struct atom *atoms;
  size_t n_atoms, cap_atoms;
  struct disj *disjs;
  size_t n_disjs, cap_disjs;
  struct factor *factors;
  size_t n_factors, cap_factors;
  char *buf;                    /* NUL-terminated copy of a number */
  size_t cap_buf;
  mpfr_t num;
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

static int
is_delim (char c)
{
  return is_space (c) || c == '(' || c == ')' || c == ';';
}

/* Reads the next token; comments (';' to the end of the line) and white space are skipped. */
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
  else
    {
      size_t j = i;
      while (j < n && !is_delim (s[j]))
        j++;
      t->kind = T_ATOM;
      t->len = j - i;
      i = j;
    }
  p->pos = i;
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

/* Reads one term of a comparison. */
static cn_status
parse_term (struct parser *p, struct term *out)
{
  struct tok t;
  next_tok (p, &t);
  if (t.kind == T_LP)
    {
      struct tok op;
      next_tok (p, &op);
      if (op.kind == T_ATOM)
        return perr (p, CN_EUNSUPPORTED, t.off,
                     "the term (" TOKF " ...) is not supported: each side of a comparison must "
                     "be one variable or one numeric constant", TOKA (p, &op));
      return unexpected (p, &op, "an operator");
    }
  if (t.kind != T_ATOM)
    return unexpected (p, &t, "a variable or a number");
  int64_t idx;
  char v = var_name (p, &t, &idx);
  if (v)
    {
      struct vars *vs = v == 'X' ? &p->x : &p->y;
      if (idx < 0 || (size_t) idx >= vs->cap || vs->decl[idx] == NONE)
        return perr (p, CN_EPARSE, t.off, "undeclared variable '" TOKF "'", TOKA (p, &t));
      out->kind = v;
      out->idx = idx;
      return CN_OK;
    }
  if (numeric_start (p, &t))
    {
      out->kind = 'C';
      return read_number (p, &t, &out->d, &out->u);
    }
  return perr (p, CN_EPARSE, t.off, "unknown symbol '" TOKF "'", TOKA (p, &t));
}

/* ---- formulas --------------------------------------------------------------------------- */

static cn_status
push_atom (struct parser *p, const struct atom *a)
{
  void *grow_tmp;
  if (GROW (p->atoms, p->cap_atoms, p->n_atoms + 1) != 0)
    return nomem (p);
  p->atoms[p->n_atoms++] = *a;
  return CN_OK;
}

/* Reads the operands and the ')' of a comparison whose '(' is at OPEN and whose operator (<=
 * or >=) was read; appends its atom. */
static cn_status
parse_cmp (struct parser *p, size_t open, int ge)
{
  struct term l = { 0 }, r = { 0 }, tmp;
  struct atom a = { .b = -1, .off = open };
  cn_status st;

  if ((st = parse_term (p, &l)) != CN_OK || (st = parse_term (p, &r)) != CN_OK)
    return st;
  {
    struct tok t;
    next_tok (p, &t);
    if (t.kind == T_ATOM || t.kind == T_LP)
      return perr (p, CN_EUNSUPPORTED, open,
                   "a comparison with more than two operands is not supported");
    if (t.kind != T_RP)
      return unexpected (p, &t, "')'");
  }
  if (ge)
    {
      tmp = l;
      l = r;
      r = tmp;
    }
  /* now the comparison reads l <= r. */
  if (l.kind == 'C' && r.kind == 'C')
    return perr (p, CN_EUNSUPPORTED, open, "a comparison of two constants is not supported");
  if ((l.kind == 'X' && r.kind == 'Y') || (l.kind == 'Y' && r.kind == 'X'))
    return perr (p, CN_EUNSUPPORTED, open,
                 "a comparison of an input X with an output Y is not supported");
  if (l.kind == 'X' && r.kind == 'X')
    return perr (p, CN_EUNSUPPORTED, open, "a comparison of two inputs X is not supported");
  if (l.kind == 'X')
    {
      /* x_a <= c, hence x_a <= RU(c). */
      a.kind = A_XHI;
      a.a = l.idx;
      a.d = r.d;
      a.u = r.u;
    }
  else if (r.kind == 'X')
    {
      /* c <= x_a, hence RD(c) <= x_a. */
      a.kind = A_XLO;
      a.a = r.idx;
      a.d = l.d;
      a.u = l.u;
    }
  else if (r.kind == 'C')
    {
      /* y_a <= c. */
      a.kind = A_ROW;
      a.a = l.idx;
      a.ca = 1;
      a.d = r.d;
      a.u = r.u;
    }
  else if (l.kind == 'C')
    {
      /* c <= y_a  <=>  -y_a <= -c, with RD(-c) = -RU(c) and RU(-c) = -RD(c). */
      a.kind = A_ROW;
      a.a = r.idx;
      a.ca = -1;
      a.d = -l.u + 0.0;
      a.u = -l.d + 0.0;
    }
  else
    {
      /* y_a <= y_b  <=>  y_a - y_b <= 0 (a zero row when a == b). */
      a.kind = A_ROW;
      a.a = l.idx;
      a.ca = 1;
      a.b = r.idx;
      a.cb = -1;
      a.d = 0;
      a.u = 0;
    }
  return push_atom (p, &a);
}

/* Dispatches a form whose '(' is at OPEN and whose operator OP was read, in a position where
 * only a comparison may stand. */
static cn_status
parse_cmp_op (struct parser *p, size_t open, const struct tok *op)
{
  static const char *const unsupported[] = {
    "<", ">", "=", "distinct", "not", "=>", "xor", "ite", "+", "-", "*", "/", "true", "false"
  };
  if (tok_is (p, op, "<="))
    return parse_cmp (p, open, 0);
  if (tok_is (p, op, ">="))
    return parse_cmp (p, open, 1);
  if (op->kind != T_ATOM)
    return unexpected (p, op, "a comparison operator");
  for (size_t k = 0; k < sizeof unsupported / sizeof unsupported[0]; k++)
    if (tok_is (p, op, unsupported[k]))
      return perr (p, CN_EUNSUPPORTED, op->off,
                   "'" TOKF "' is not supported here (only <= and >= comparisons)",
                   TOKA (p, op));
  return perr (p, CN_EPARSE, op->off, "unknown symbol '" TOKF "'", TOKA (p, op));
}

/* Reads the atoms of a conjunction up to and including its ')' (the "(and" was read). */
static cn_status
parse_conj (struct parser *p, int depth)
{
  for (;;)
    {
      struct tok t, op;
      cn_status st;
      next_tok (p, &t);
      if (t.kind == T_RP)
        return CN_OK;
      if (t.kind != T_LP)
        return unexpected (p, &t, "a comparison");
      next_tok (p, &op);
      if (tok_is (p, &op, "and"))
        {
          if (depth >= MAX_DEPTH)
            return perr (p, CN_EPARSE, t.off, "'and' nested more than %d deep", MAX_DEPTH);
          st = parse_conj (p, depth + 1);
        }
      else if (tok_is (p, &op, "or"))
        return perr (p, CN_EPARSE, t.off,
                     "an 'or' inside an 'and' is not supported: an assert takes "
                     "(or (and ...) ...) at its top");
      else
        st = parse_cmp_op (p, t.off, &op);
      if (st != CN_OK)
        return st;
    }
}

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

/* Reads the formula of an assert and the assert's ')' ("(assert" was read). */
static cn_status
parse_assert (struct parser *p)
{
  struct tok t, op;
  struct factor f;
  cn_status st;
  void *grow_tmp;

  if (GROW (p->factors, p->cap_factors, p->n_factors + 1) != 0)
    return nomem (p);
  f.d0 = p->n_disjs;
  next_tok (p, &t);
  if (t.kind != T_LP)
    {
      if (tok_is (p, &t, "true") || tok_is (p, &t, "false"))
        return perr (p, CN_EUNSUPPORTED, t.off,
                     "assert of '" TOKF "' is not supported (only comparisons)", TOKA (p, &t));
      return unexpected (p, &t, "a formula");
    }
  next_tok (p, &op);
  if (tok_is (p, &op, "or"))
    {
      for (;;)
        {
          struct tok d, dop;
          next_tok (p, &d);
          if (d.kind == T_RP)
            break;
          if (d.kind != T_LP)
            return unexpected (p, &d, "a disjunct");
          next_tok (p, &dop);
          if ((st = new_disj (p)) != CN_OK)
            return st;
          if (tok_is (p, &dop, "and"))
            st = parse_conj (p, 1);
          else if (tok_is (p, &dop, "or"))
            return perr (p, CN_EPARSE, d.off, "an 'or' inside an 'or' is not supported");
          else
            st = parse_cmp_op (p, d.off, &dop);
          if (st != CN_OK)
            return st;
          end_disj (p);
        }
      if (p->n_disjs == f.d0)
        return perr (p, CN_EPARSE, t.off, "empty 'or' (it is false)");
    }
  else
    {
      if ((st = new_disj (p)) != CN_OK)
        return st;
      if (tok_is (p, &op, "and"))
        st = parse_conj (p, 1);
      else
        st = parse_cmp_op (p, t.off, &op);
      if (st != CN_OK)
        return st;
      end_disj (p);
    }
  f.nd = p->n_disjs - f.d0;
  f.has_x = 0;
  for (size_t k = f.d0; k < p->n_disjs; k++)
    f.has_x |= p->disjs[k].has_x;
  p->factors[p->n_factors++] = f;
  {
    struct tok c;
    next_tok (p, &c);
    if (c.kind == T_ATOM || c.kind == T_LP)
      return perr (p, CN_EPARSE, c.off, "assert takes exactly one formula");
    if (c.kind != T_RP)
      return unexpected (p, &c, "')'");
  }
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
  for (;;)
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
      if (tok_is (p, &cmd, "declare-const"))
        st = parse_declare (p);
      else if (tok_is (p, &cmd, "assert"))
        st = parse_assert (p);
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
          m[a->a] += a->ca;
          if (a->b >= 0)
            m[a->b] += a->cb;
          cl->rhs_up[r] = a->u;
          cl->rhs_down[r] = a->d;
          r++;
        }
    }
  return CN_OK;
}

/* Intersects the box (LO, HI; SLO, SHI the atoms that set each end) with the input bounds of
 * disjunct D.  LO and HI start as NaN ("no bound"); fmax and fmin ignore a NaN operand. */
static void
apply_bounds (const struct parser *p, const struct disj *d, double *lo, double *hi, size_t *slo,
              size_t *shi)
{
  for (size_t k = d->a0; k < d->a0 + d->na; k++)
    {
      const struct atom *a = &p->atoms[k];
      if (a->kind == A_XLO && !(lo[a->a] >= a->d))
        lo[a->a] = a->d, slo[a->a] = k;
      else if (a->kind == A_XHI && !(hi[a->a] <= a->u))
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
          if (isnan (lo[i]) || isnan (hi[i]))
            {
              st = perr (p, CN_EPARSE, p->x.decl[i], "X_%zu has no %s bound%s", i,
                         isnan (lo[i]) ? "lower" : "upper",
                         n_box > 1 ? " in one of the disjuncts" : "");
              goto fail;
            }
          if (lo[i] > hi[i])
            {
              size_t k = slo[i] > shi[i] ? slo[i] : shi[i];
              st = perr (p, CN_EPARSE, p->atoms[k].off,
                         "empty box: X_%zu in [%.17g, %.17g]", i, lo[i], hi[i]);
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
  mpfr_init2 (p.num, 53);

  if ((st = parse_file (&p)) != CN_OK || (st = check_dense (&p, &p.x, 'X')) != CN_OK
      || (st = check_dense (&p, &p.y, 'Y')) != CN_OK)
    goto fail;
  /* now every atom names declared variables and the indices are 0 .. n-1. */
  st = build (&p, spec);

fail:
  if (st != CN_OK)
    cn_spec_clear (spec);
  mpfr_clear (p.num);
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
