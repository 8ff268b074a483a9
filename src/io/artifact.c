/* SPDX-License-Identifier: MIT */
/* src/io/artifact.c: IR artifacts and their checks (certnn/artifact.h states the contract,
 * doc/ARTIFACT.md the format).
 *
 * The checks build on one another: structure reads the JSON alone; types decodes the program
 * with the wire codec's checks and the arguments and references as tensors; execute evaluates the
 * decoded program on the arguments; compare and compare_bitwise read execute's results.  Each is
 * run at most once (whatever the requests), and a request reports the outcome of its check, or
 * "not run" where a prerequisite failed.
 *
 * Decisions made here:
 * - execute evaluates each value in its declared sort (cn_graph_eval_declared): binary64 or
 *   binary32, and binary16 and bfloat16 computed in binary32 and rounded once per node.  A
 *   program with both f32 and f64 values is not executed (unsupported): certnn's graphs record
 *   a cast between the two as the model's scalar, not as a rounding to binary32.
 * - A word is compared as its sort's bit pattern; NaN is classified per format (exponent all
 *   ones, significand nonzero); integer and Boolean sorts have no NaN. */
#include <config.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>
#include "io/wire_impl.h"
#include "io/xla_impl.h"
#include "certnn/artifact.h"
#include "certnn/env.h"

#define MSG CN_ERROR_MSG_SIZE

const char *
cn_finding_status_name (cn_finding_status s)
{
  switch (s)
    {
    case CN_FINDING_PASSED: return "passed";
    case CN_FINDING_FAILED: return "failed";
    case CN_FINDING_UNSUPPORTED: return "unsupported";
    }
  return "?";
}

/* ---- the checks' scopes ----------------------------------------------------------------- */

enum { C_STRUCTURE, C_TYPES, C_EXECUTE, C_COMPARE, C_BITWISE, C_UNKNOWN };

static const struct
{
  const char *name, *establishes, *not_established;
} scope[] = {
  [C_STRUCTURE] = { "structure",
                    "the artifact is a version-1 object with known members; every node names a registered operator "
                    "and reads only values defined before it (no forward reference, no cycle); the outputs are "
                    "defined; every word string has its tensor's length",
                    "that any node's attributes, sorts or shapes are valid, or anything about the values computed" },
  [C_TYPES] = { "types",
                "every node's record decodes with every field checked, its inputs have the sorts and shapes of the "
                "values it reads, its rule accepts the instance; the arguments and reference outputs have the "
                "program's sorts and shapes",
                "that the program is the computation the frontend captured (not a proof of the translation)" },
  [C_EXECUTE] = { "execute",
                  "certnn's evaluator ran the program on the supplied arguments, each value in its declared sort: "
                  "each operation rounded once to nearest in binary32 or binary64, a binary16 or bfloat16 node "
                  "computed in binary32 and rounded once to its format, integer and Boolean values exact",
                  "anything about other arguments (not a theorem about all inputs)" },
  [C_COMPARE] = { "compare",
                  "on the supplied arguments the IR's results equal the reference outputs element for element, and "
                  "so do the node values the reference gives, two NaNs agreeing whatever their sign and payload",
                  "anything about other arguments (not a theorem about all inputs), that the frontend translated "
                  "the program faithfully, or that the kernels that computed the reference are right" },
  [C_BITWISE] = { "compare_bitwise",
                  "on the supplied arguments the IR's results (and the node values the reference gives) equal the "
                  "reference's word for word, NaNs included",
                  "anything about other arguments (not a theorem about all inputs), that the frontend translated "
                  "the program faithfully, or that the kernels that computed the reference are right" },
  [C_UNKNOWN] = { NULL, "nothing: the check is not one this checker knows", "anything" },
};

/* ---- the state shared by the checks ---------------------------------------------------- */

enum { NOT_RUN, RAN_OK, RAN_FAILED, UNSUPPORTED };

typedef struct state
{
  json_t *root;
  int structure;                /* RAN_OK or RAN_FAILED, with msg */
  char structure_msg[MSG];
  int types;
  char types_msg[MSG];
  cn_wire_op owner;             /* owns the decoded program */
  const cn_graph *g;
  cn_tensor *args, *refs;       /* decoded by types: one per input, one per output (NULL if absent) */
  int n_args, n_refs;
  cn_tensor *prim_refs;         /* the jaxpr record's primitive_reference, decoded by types (or NULL) */
  int n_node_refs;              /* reference.nodes, decoded by types: */
  int *node_ref_node;           /* per entry its node, */
  cn_tensor **node_ref;         /* its reference values (one per output of the node), */
  cn_tensor **node_val;         /* and execute's values of them */
  int execute;
  char execute_msg[MSG];
  cn_dtype sort;                /* the program's floating format */
  cn_tensor *outs;              /* execute's results, one per output */
} state;

static void
say (char *buf, const char *fmt, ...)
#ifdef __GNUC__
  __attribute__ ((format (printf, 2, 3)))
#endif
  ;
static void
say (char *buf, const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  vsnprintf (buf, MSG, fmt, ap);
  va_end (ap);
}

static const char *
jtype (const json_t *j)
{
  switch (json_typeof (j))
    {
    case JSON_OBJECT: return "an object";
    case JSON_ARRAY: return "an array";
    case JSON_STRING: return "a string";
    case JSON_INTEGER: return "an integer";
    case JSON_REAL: return "a real number";
    case JSON_TRUE: case JSON_FALSE: return "a Boolean";
    default: return "null";
    }
}

/* Whether OBJ has no member outside NAMES[0..N-1]; else the message names the first other one. */
static int
known_members (const json_t *obj, const char *const *names, int n, const char *where, char *msg)
{
  const char *key;
  json_t *v;
  json_object_foreach ((json_t *) obj, key, v)
  {
    int ok = 0;
    for (int i = 0; i < n && !ok; i++)
      ok = strcmp (key, names[i]) == 0;
    if (!ok)
      {
        say (msg, "%s: unknown member '%s'", where, key);
        return 0;
      }
  }
  return 1;
}

/* The sort named NAME; CN_DTYPE_COUNT if none. */
static cn_dtype
sort_named (const char *name)
{
  for (int t = 0; t < CN_DTYPE_COUNT; t++)
    if (strcmp (cn_dtype_name ((cn_dtype) t), name) == 0)
      return (cn_dtype) t;
  return CN_DTYPE_COUNT;
}

/* Whether SORT, SHAPE and WORDS (any may be NULL: missing) describe a tensor: a known sort, a
 * shape of at most CN_MAX_RANK extents >= 0 whose product fits, and a string of exactly numel
 * words of the sort's width in hexadecimal digits (a Boolean word 0 or 1). */
static int
tensor_ok (const json_t *sort, const json_t *shape, const json_t *words, const char *where, char *msg)
{
  if (sort == NULL || shape == NULL || words == NULL)
    {
      say (msg, "%s: needs the members 'sort', 'shape' and 'words'", where);
      return 0;
    }
  cn_dtype t;
  if (!json_is_string (sort) || (t = sort_named (json_string_value (sort))) == CN_DTYPE_COUNT)
    {
      say (msg, "%s: 'sort' is %s%s%s, not a sort name", where, json_is_string (sort) ? "'" : jtype (sort),
           json_is_string (sort) ? json_string_value (sort) : "", json_is_string (sort) ? "'" : "");
      return 0;
    }
  if (!json_is_array (shape) || json_array_size (shape) > CN_MAX_RANK)
    {
      say (msg, "%s: 'shape' must be a list of at most %d extents", where, CN_MAX_RANK);
      return 0;
    }
  int64_t numel = 1;
  for (size_t i = 0; i < json_array_size (shape); i++)
    {
      const json_t *e = json_array_get (shape, i);
      if (!json_is_integer (e) || json_integer_value (e) < 0)
        {
          say (msg, "%s: shape extent %zu is not an integer >= 0", where, i);
          return 0;
        }
      json_int_t x = json_integer_value (e);
      if (x != 0 && numel > INT64_MAX / 16 / x)
        {
          say (msg, "%s: the shape's %zu extents hold too many elements", where, json_array_size (shape));
          return 0;
        }
      numel *= x;
    }
  if (!json_is_string (words))
    {
      say (msg, "%s: 'words' is %s, not a string of hexadecimal words", where, jtype (words));
      return 0;
    }
  size_t w = 2 * cn_dtype_size (t), len = json_string_length (words);
  if ((uint64_t) len != (uint64_t) numel * w)
    {
      say (msg, "%s: 'words' has %zu digits; %" PRId64 " words of %s take %" PRId64 " (a wrong word count)", where,
           len, numel, cn_dtype_name (t), numel * (int64_t) w);
      return 0;
    }
  const char *s = json_string_value (words);
  for (size_t i = 0; i < len; i++)
    if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f') || (s[i] >= 'A' && s[i] <= 'F')))
      {
        say (msg, "%s: 'words': word %zu holds '%c', not a hexadecimal digit", where, i / w, s[i]);
        return 0;
      }
  if (t == CN_DTYPE_BOOL)
    for (size_t i = 0; i < len; i += 2)
      if (s[i] != '0' || (s[i + 1] != '0' && s[i + 1] != '1'))
        {
          say (msg, "%s: 'words': Boolean word %zu is %.2s, not 00 or 01 (out of range)", where, i / 2, s + i);
          return 0;
        }
  return 1;
}

static int
tensor_object_ok (const json_t *j, const char *where, char *msg)
{
  static const char *const names[] = { "sort", "shape", "words" };
  if (!json_is_object (j))
    {
      say (msg, "%s: %s where a tensor object is expected", where, jtype (j));
      return 0;
    }
  return known_members (j, names, 3, where, msg)
         && tensor_ok (json_object_get (j, "sort"), json_object_get (j, "shape"), json_object_get (j, "words"), where,
                       msg);
}

/* Whether J is an object with no member outside NAMES[0..N-1]; else 0 with the message. */
static int
object_of (const json_t *j, const char *const *names, int n, const char *where, char *msg)
{
  if (!json_is_object (j))
    {
      say (msg, "%s: %s where an object is expected", where, jtype (j));
      return 0;
    }
  return known_members (j, names, n, where, msg);
}

/* Whether the jaxpr member NAME, A (absent: NULL), lists N_NODES entries, each a number in
 * [0, INT_MAX) or null; else 0 with the message. */
static int
per_node_numbers (const json_t *a, const char *name, size_t n_nodes, char *msg)
{
  if (a == NULL)
    return 1;
  if (!json_is_array (a) || json_array_size (a) != n_nodes)
    {
      say (msg, "jaxpr: '%s' must list %zu entries, one per node", name, n_nodes);
      return 0;
    }
  for (size_t i = 0; i < n_nodes; i++)
    {
      const json_t *x = json_array_get (a, i);
      if (!json_is_null (x) && !(json_is_integer (x) && json_integer_value (x) >= 0 && json_integer_value (x) < INT_MAX))
        {
          say (msg, "jaxpr: %s %zu is neither a number nor null", name, i);
          return 0;
        }
    }
  return 1;
}

/* The structure check: 1 if it passes, else 0 with the message in MSG. */
static int
structure (const json_t *root, char *msg)
{
  static const char *const top[] = { "format", "version", "certnn", "program", "arguments", "reference",
                                     "capture_constraints", "jaxpr" };
  static const char *const jaxpr[] = { "reference_execution", "backend", "computation", "jit_computations",
                                       "primitive_index", "primitive_reference" };
  static const char *const prog[] = { "inputs", "constants", "nodes", "outputs" };
  static const char *const ref[] = { "outputs", "producer", "nodes" };
  static const char *const node_ref[] = { "node", "outputs" };
  static const char *const input[] = { "name", "sort", "shape" };
  static const char *const constant[] = { "name", "sort", "shape", "words" };
  static const char *const node[] = { "name", "op", "in" };
  char where[96];
  const json_t *v0 = json_object_get (root, "version");
  /* version 1 has no "jaxpr" member */
  if (!known_members (root, top, v0 != NULL && json_is_integer (v0) && json_integer_value (v0) == 1 ? 7 : 8, "artifact",
                      msg))
    return 0;
  const json_t *f = json_object_get (root, "format"), *v = json_object_get (root, "version");
  if (f == NULL || !json_is_string (f) || strcmp (json_string_value (f), "certnn-ir") != 0)
    {
      say (msg, "artifact: 'format' must be \"certnn-ir\"");
      return 0;
    }
  if (v == NULL || !json_is_integer (v))
    {
      say (msg, "artifact: 'version' must be an integer");
      return 0;
    }
  if (json_integer_value (v) < 1 || json_integer_value (v) > CN_ARTIFACT_VERSION)
    {
      say (msg, "artifact: version %" JSON_INTEGER_FORMAT "; this checker reads versions 1 to %d",
           json_integer_value (v), CN_ARTIFACT_VERSION);
      return 0;
    }
  const json_t *c = json_object_get (root, "certnn");
  if (c != NULL && !json_is_string (c))
    {
      say (msg, "artifact: 'certnn' is %s, not a string", jtype (c));
      return 0;
    }
  const json_t *p = json_object_get (root, "program");
  if (p == NULL || !json_is_object (p))
    {
      say (msg, "artifact: 'program' must be an object");
      return 0;
    }
  if (!known_members (p, prog, 4, "program", msg))
    return 0;
  const json_t *ins = json_object_get (p, "inputs"), *cs = json_object_get (p, "constants"),
               *ns = json_object_get (p, "nodes"), *os = json_object_get (p, "outputs");
  if (!json_is_array (ins) || !json_is_array (cs) || !json_is_array (ns) || !json_is_array (os))
    {
      say (msg, "program: 'inputs', 'constants', 'nodes' and 'outputs' must be arrays");
      return 0;
    }
  /* NV counts the values defined so far: inputs, then constants, then each node's outputs */
  int64_t nv = 0;
  for (size_t i = 0; i < json_array_size (ins); i++, nv++)
    {
      const json_t *e = json_array_get (ins, i);
      snprintf (where, sizeof where, "program input %zu", i);
      if (!object_of (e, input, 3, where, msg))
        return 0;
      const json_t *nm = json_object_get (e, "name"), *so = json_object_get (e, "sort"), *sh = json_object_get (e, "shape");
      if (nm == NULL || !json_is_string (nm) || so == NULL || !json_is_string (so)
          || sort_named (json_string_value (so)) == CN_DTYPE_COUNT || sh == NULL || !json_is_array (sh))
        {
          say (msg, "%s: needs a string 'name', a sort name 'sort' and a list 'shape'", where);
          return 0;
        }
    }
  for (size_t i = 0; i < json_array_size (cs); i++, nv++)
    {
      const json_t *e = json_array_get (cs, i);
      snprintf (where, sizeof where, "program constant %zu", i);
      if (!json_is_object (e))
        {
          say (msg, "%s: %s where an object is expected", where, jtype (e));
          return 0;
        }
      if (!known_members (e, constant, 4, where, msg)
          || !tensor_ok (json_object_get (e, "sort"), json_object_get (e, "shape"), json_object_get (e, "words"), where,
                         msg))
        return 0;
    }
  for (size_t i = 0; i < json_array_size (ns); i++)
    {
      const json_t *e = json_array_get (ns, i);
      snprintf (where, sizeof where, "program node %zu", i);
      if (!json_is_object (e))
        {
          say (msg, "%s: %s where an object is expected", where, jtype (e));
          return 0;
        }
      if (!known_members (e, node, 3, where, msg))
        return 0;
      const json_t *nm = json_object_get (e, "name"), *op = json_object_get (e, "op"), *in = json_object_get (e, "in");
      const char *name = nm != NULL && json_is_string (nm) ? json_string_value (nm) : "?";
      const json_t *tag = op != NULL && json_is_object (op) ? json_object_get (op, "tag") : NULL;
      if (nm == NULL || !json_is_string (nm) || tag == NULL || !json_is_string (tag) || in == NULL || !json_is_array (in))
        {
          say (msg, "%s ('%s'): needs a string 'name', an operator record 'op' with a 'tag' and a list 'in'", where, name);
          return 0;
        }
      cn_op o = cn_op_lookup (json_string_value (tag));
      if (o == CN_OP_COUNT)
        {
          say (msg, "%s ('%s'): unknown operator '%s'", where, name, json_string_value (tag));
          return 0;
        }
      for (size_t k = 0; k < json_array_size (in); k++)
        {
          const json_t *x = json_array_get (in, k);
          if (!json_is_integer (x) || json_integer_value (x) < 0 || json_integer_value (x) >= nv)
            {
              if (json_is_integer (x) && json_integer_value (x) >= nv)
                say (msg, "%s ('%s'): input %zu reads value %" JSON_INTEGER_FORMAT ", which is not defined before the "
                     "node (%" PRId64 " values are: a forward reference or a cycle)", where, name, k,
                     json_integer_value (x), nv);
              else
                say (msg, "%s ('%s'): input %zu is not a value number", where, name, k);
              return 0;
            }
        }
      int no = cn_op_n_outputs (o);
      nv += no > 0 ? no : 1;
    }
  if (json_array_size (os) == 0)
    {
      say (msg, "program: no outputs");
      return 0;
    }
  for (size_t i = 0; i < json_array_size (os); i++)
    {
      const json_t *x = json_array_get (os, i);
      if (!json_is_integer (x) || json_integer_value (x) < 0 || json_integer_value (x) >= nv)
        {
          say (msg, "program: output %zu is not one of the %" PRId64 " values", i, nv);
          return 0;
        }
    }
  const json_t *a = json_object_get (root, "arguments");
  if (a != NULL)
    {
      if (!json_is_array (a) || json_array_size (a) != json_array_size (ins))
        {
          say (msg, "artifact: 'arguments' must list %zu tensors, one per program input", json_array_size (ins));
          return 0;
        }
      for (size_t i = 0; i < json_array_size (a); i++)
        {
          snprintf (where, sizeof where, "argument %zu", i);
          if (!tensor_object_ok (json_array_get (a, i), where, msg))
            return 0;
        }
    }
  const json_t *r = json_object_get (root, "reference");
  if (r != NULL)
    {
      const json_t *ro = json_is_object (r) ? json_object_get (r, "outputs") : NULL,
                   *pr = json_is_object (r) ? json_object_get (r, "producer") : NULL;
      if (!json_is_object (r) || !known_members (r, ref, json_integer_value (v) >= 2 ? 3 : 2, "reference", msg))
        {
          if (!json_is_object (r))
            say (msg, "artifact: 'reference' is %s, not an object", jtype (r));
          return 0;
        }
      if (pr != NULL && !json_is_string (pr))
        {
          say (msg, "reference: 'producer' is %s, not a string", jtype (pr));
          return 0;
        }
      if (ro == NULL || !json_is_array (ro) || json_array_size (ro) != json_array_size (os))
        {
          say (msg, "reference: 'outputs' must list %zu tensors, one per program output", json_array_size (os));
          return 0;
        }
      for (size_t i = 0; i < json_array_size (ro); i++)
        {
          snprintf (where, sizeof where, "reference output %zu", i);
          if (!tensor_object_ok (json_array_get (ro, i), where, msg))
            return 0;
        }
      const json_t *rn = json_object_get (r, "nodes");
      if (rn != NULL && !json_is_array (rn))
        {
          say (msg, "reference: 'nodes' is %s, not a list", jtype (rn));
          return 0;
        }
      for (size_t i = 0; rn != NULL && i < json_array_size (rn); i++)
        {
          const json_t *e = json_array_get (rn, i);
          snprintf (where, sizeof where, "reference node %zu", i);
          if (!object_of (e, node_ref, 2, where, msg))
            return 0;
          const json_t *k = json_object_get (e, "node"), *no = json_object_get (e, "outputs");
          if (k == NULL || !json_is_integer (k) || json_integer_value (k) < 0
              || (size_t) json_integer_value (k) >= json_array_size (ns))
            {
              say (msg, "%s: 'node' must be one of the %zu node numbers", where, json_array_size (ns));
              return 0;
            }
          for (size_t j = 0; j < i; j++)
            if (json_integer_value (json_object_get (json_array_get (rn, j), "node")) == json_integer_value (k))
              {
                say (msg, "%s: node %" JSON_INTEGER_FORMAT " is referenced twice", where, json_integer_value (k));
                return 0;
              }
          const json_t *op = json_object_get (json_array_get (ns, (size_t) json_integer_value (k)), "op");
          int n_out = cn_op_n_outputs (cn_op_lookup (json_string_value (json_object_get (op, "tag"))));
          n_out = n_out > 0 ? n_out : 1;
          if (no == NULL || !json_is_array (no) || json_array_size (no) != (size_t) n_out)
            {
              say (msg, "%s: 'outputs' must list %d tensors, one per output of node %" JSON_INTEGER_FORMAT, where,
                   n_out, json_integer_value (k));
              return 0;
            }
          for (size_t j = 0; j < json_array_size (no); j++)
            {
              snprintf (where, sizeof where, "reference node %zu output %zu", i, j);
              if (!tensor_object_ok (json_array_get (no, j), where, msg))
                return 0;
            }
        }
    }
  const json_t *jx = json_object_get (root, "jaxpr");
  if (jx != NULL)
    {
      if (!json_is_object (jx) || !known_members (jx, jaxpr, 6, "jaxpr", msg))
        {
          if (!json_is_object (jx))
            say (msg, "artifact: 'jaxpr' is %s, not an object", jtype (jx));
          return 0;
        }
      const json_t *re = json_object_get (jx, "reference_execution"), *be = json_object_get (jx, "backend"),
                   *co = json_object_get (jx, "computation"), *jc = json_object_get (jx, "jit_computations");
      if (re == NULL || !json_is_string (re)
          || (strcmp (json_string_value (re), "jit") != 0 && strcmp (json_string_value (re), "primitive") != 0))
        {
          say (msg, "jaxpr: 'reference_execution' must be \"jit\" or \"primitive\"");
          return 0;
        }
      if (be != NULL && !json_is_string (be))
        {
          say (msg, "jaxpr: 'backend' is %s, not a string", jtype (be));
          return 0;
        }
      if (!per_node_numbers (co, "computation", json_array_size (ns), msg))
        return 0;
      if (jc != NULL && !json_is_array (jc))
        {
          say (msg, "jaxpr: 'jit_computations' is %s, not a list", jtype (jc));
          return 0;
        }
      const json_t *pi = json_object_get (jx, "primitive_index"), *pr = json_object_get (jx, "primitive_reference");
      if (!per_node_numbers (pi, "primitive_index", json_array_size (ns), msg))
        return 0;
      if (pr != NULL)
        {
          if (strcmp (json_string_value (re), "jit") != 0)
            {
              say (msg, "jaxpr: a 'primitive_reference' goes beside a jax.jit reference only");
              return 0;
            }
          if (!json_is_array (pr) || json_array_size (pr) != json_array_size (os))
            {
              say (msg, "jaxpr: 'primitive_reference' must list %zu tensors, one per program output",
                   json_array_size (os));
              return 0;
            }
          for (size_t i = 0; i < json_array_size (pr); i++)
            {
              snprintf (where, sizeof where, "primitive reference output %zu", i);
              if (!tensor_object_ok (json_array_get (pr, i), where, msg))
                return 0;
            }
        }
      for (size_t i = 0; jc != NULL && i < json_array_size (jc); i++)
        {
          const json_t *x = json_array_get (jc, i);
          if (!json_is_integer (x) || json_integer_value (x) < 0 || json_integer_value (x) >= INT_MAX)
            {
              say (msg, "jaxpr: jit_computations entry %zu is not a computation number", i);
              return 0;
            }
        }
    }
  say (msg, "%zu inputs, %zu constants, %zu nodes, %zu outputs%s%s%s", json_array_size (ins), json_array_size (cs),
       json_array_size (ns), json_array_size (os), a != NULL ? ", arguments" : "", r != NULL ? ", reference outputs" : "",
       jx != NULL ? ", a Jaxpr compilation record" : "");
  return 1;
}

/* Whether tensor T has the sort and shape of value V of G; else the message says how they differ. */
static int
matches_value (const cn_tensor *t, const cn_graph *g, int v, const char *what, char *msg)
{
  if (t->dtype == cn_graph_value_dtype (g, v) && cn_shape_equal (&t->shape, cn_graph_value_shape (g, v)))
    return 1;
  char a[128], b[128];
  cn_shape_format (&t->shape, a, sizeof a);
  cn_shape_format (cn_graph_value_shape (g, v), b, sizeof b);
  say (msg, "%s is %s %s, the program's '%s' is %s %s (a shape or sort mismatch)", what, cn_dtype_name (t->dtype), a,
       cn_graph_value_name (g, v), cn_dtype_name (cn_graph_value_dtype (g, v)), b);
  return 0;
}

/* Decodes the tensors of the JSON array A (n of them) into a new array *OUT, checked against the
 * values VALUE(g, i); 1 on success, 0 with the message, -1 out of memory. */
static int
decode_tensors (const json_t *a, const cn_graph *g, int (*value) (const cn_graph *, int), const char *what,
                cn_tensor **out, char *msg)
{
  size_t n = json_array_size (a);
  cn_tensor *t = calloc (n > 0 ? n : 1, sizeof *t);
  if (t == NULL)
    return -1;
  *out = t;
  char where[64];
  for (size_t i = 0; i < n; i++)
    {
      cn_error e;
      cn_error_clear (&e);
      snprintf (where, sizeof where, "%s %zu", what, i);
      cn_status st = cn__wire_decode_tensor (json_array_get (a, i), where, &t[i], &e);
      if (st == CN_ENOMEM)
        return -1;
      if (st != CN_OK)
        {
          say (msg, "%s", e.msg);
          return 0;
        }
      if (!matches_value (&t[i], g, value (g, (int) i), where, msg))
        return 0;
    }
  return 1;
}

/* The types check (structure passed): 1, 0 with the message, -1 out of memory. */
static int
types (state *s)
{
  const json_t *p = json_object_get (s->root, "program");
  cn_error e;
  cn_error_clear (&e);
  cn_status st = cn__wire_decode_program (p, &s->owner, &s->g, &e);
  if (st == CN_ENOMEM)
    return -1;
  if (st != CN_OK)
    {
      say (s->types_msg, "%s", e.msg);
      return 0;
    }
  const json_t *a = json_object_get (s->root, "arguments"), *r = json_object_get (s->root, "reference");
  int rc;
  if (a != NULL)
    {
      s->n_args = (int) json_array_size (a);
      if ((rc = decode_tensors (a, s->g, cn_graph_input, "argument", &s->args, s->types_msg)) != 1)
        return rc;
    }
  if (r != NULL)
    {
      const json_t *ro = json_object_get (r, "outputs");
      s->n_refs = (int) json_array_size (ro);
      if ((rc = decode_tensors (ro, s->g, cn_graph_output, "reference output", &s->refs, s->types_msg)) != 1)
        return rc;
    }
  const json_t *rn = r != NULL ? json_object_get (r, "nodes") : NULL;
  if (rn != NULL && json_array_size (rn) > 0)
    {
      size_t n = json_array_size (rn);
      s->node_ref_node = calloc (n, sizeof *s->node_ref_node);
      s->node_ref = calloc (n, sizeof *s->node_ref);
      s->node_val = calloc (n, sizeof *s->node_val);
      if (s->node_ref_node == NULL || s->node_ref == NULL || s->node_val == NULL)
        return -1;
      s->n_node_refs = (int) n;
      for (size_t i = 0; i < n; i++)
        {
          const json_t *e = json_array_get (rn, i), *to = json_object_get (e, "outputs");
          int k = (int) json_integer_value (json_object_get (e, "node"));
          s->node_ref_node[i] = k;
          s->node_ref[i] = calloc (json_array_size (to) + 1, sizeof **s->node_ref);
          if (s->node_ref[i] == NULL)
            return -1;
          for (size_t j = 0; j < json_array_size (to); j++)
            {
              char where[96];
              cn_error e2;
              cn_error_clear (&e2);
              snprintf (where, sizeof where, "reference node %zu output %zu", i, j);
              cn_status st2 = cn__wire_decode_tensor (json_array_get (to, j), where, &s->node_ref[i][j], &e2);
              if (st2 == CN_ENOMEM)
                return -1;
              if (st2 != CN_OK)
                {
                  say (s->types_msg, "%s", e2.msg);
                  return 0;
                }
              if (!matches_value (&s->node_ref[i][j], s->g, cn_graph_node_output (s->g, k, (int) j), where,
                                  s->types_msg))
                return 0;
            }
        }
    }
  const json_t *jx = json_object_get (s->root, "jaxpr");
  const json_t *pr = jx != NULL ? json_object_get (jx, "primitive_reference") : NULL;
  if (pr != NULL && (rc = decode_tensors (pr, s->g, cn_graph_output, "primitive reference output", &s->prim_refs,
                                          s->types_msg)) != 1)
    return rc;
  say (s->types_msg, "%d nodes decode and type-check%s%s", cn_graph_n_nodes (s->g),
       a != NULL ? "; the arguments match the inputs" : "", r != NULL ? "; the reference outputs match the outputs" : "");
  return 1;
}

/* Evaluates the program with the values of the nodes reference.nodes names: the program decoded
 * again with those values among its outputs (the same value numbers), into S->outs and
 * S->node_val. */
static cn_status
eval_with_nodes (state *s, cn_error *err)
{
  int no = cn_graph_n_outputs (s->g), extra = 0;
  for (int i = 0; i < s->n_node_refs; i++)
    extra += cn_graph_node_n_outputs (s->g, s->node_ref_node[i]);
  json_t *p = json_deep_copy (json_object_get (s->root, "program")), *outs = json_array ();
  cn_tensor *res = calloc ((size_t) (no + extra) + 1, sizeof *res);
  cn_wire_op owner;
  memset (&owner, 0, sizeof owner);
  const cn_graph *g2 = NULL;
  cn_status st = CN_OK;
  if (p == NULL || outs == NULL || res == NULL)
    st = cn_error_set (err, CN_ENOMEM, "execute: out of memory");
  for (int i = 0; st == CN_OK && i < no; i++)
    if (json_array_append_new (outs, json_integer (cn_graph_output (s->g, i))) < 0)
      st = cn_error_set (err, CN_ENOMEM, "execute: out of memory");
  for (int i = 0; st == CN_OK && i < s->n_node_refs; i++)
    for (int j = 0; j < cn_graph_node_n_outputs (s->g, s->node_ref_node[i]); j++)
      if (json_array_append_new (outs, json_integer (cn_graph_node_output (s->g, s->node_ref_node[i], j))) < 0)
        st = cn_error_set (err, CN_ENOMEM, "execute: out of memory");
  if (st == CN_OK && json_object_set (p, "outputs", outs) < 0)
    st = cn_error_set (err, CN_ENOMEM, "execute: out of memory");
  if (st == CN_OK)
    st = cn__wire_decode_program (p, &owner, &g2, err);
  if (st == CN_OK)
    st = cn_graph_eval_declared (g2, s->args, res, err);
  if (st == CN_OK)
    {
      for (int i = 0; i < no; i++)
        s->outs[i] = res[i];
      int r = no;
      for (int i = 0; i < s->n_node_refs && st == CN_OK; i++)
        {
          int n = cn_graph_node_n_outputs (s->g, s->node_ref_node[i]);
          if ((s->node_val[i] = calloc ((size_t) n, sizeof **s->node_val)) == NULL)
            st = cn_error_set (err, CN_ENOMEM, "execute: out of memory");
          for (int j = 0; j < n; j++, r++)
            if (s->node_val[i] != NULL)
              s->node_val[i][j] = res[r];
            else
              cn_tensor_clear (&res[r]);
        }
      for (; r < no + extra; r++)
        cn_tensor_clear (&res[r]);
    }
  free (res);
  cn_wire_op_clear (&owner);
  json_decref (outs);
  json_decref (p);
  return st;
}

/* The execute check (types passed): RAN_OK, RAN_FAILED or UNSUPPORTED with the message; -1 out
 * of memory. */
static int
execute (state *s)
{
  if (s->args == NULL)
    {
      say (s->execute_msg, "the artifact supplies no arguments");
      return UNSUPPORTED;
    }
  const cn_graph *g = s->g;
  int seen = 0;
  s->sort = CN_DTYPE_F64;
  for (int v = 0; v < cn_graph_n_values (g); v++)
    {
      cn_dtype t = cn_graph_value_dtype (g, v);
      if (!cn_dtype_is_float (t) || cn_dtype_is_reduced (t))
        continue;
      if (seen && t != s->sort)
        {
          say (s->execute_msg, "the program mixes f32 and f64 values (value '%s' is %s); certnn's graphs record a "
               "cast between the two as the model's scalar, not as a rounding", cn_graph_value_name (g, v),
               cn_dtype_name (t));
          return UNSUPPORTED;
        }
      s->sort = t;
      seen = 1;
    }
  int no = cn_graph_n_outputs (g);
  s->outs = calloc ((size_t) (no > 0 ? no : 1), sizeof *s->outs);
  if (s->outs == NULL)
    return -1;
  cn_error e;
  cn_error_clear (&e);
  cn_status st = s->n_node_refs > 0 ? eval_with_nodes (s, &e) : cn_graph_eval_declared (g, s->args, s->outs, &e);
  if (st == CN_ENOMEM)
    return -1;
  if (st != CN_OK)
    {
      free (s->outs);
      s->outs = NULL;
      say (s->execute_msg, "%s", e.msg);
      return RAN_FAILED;
    }
  int64_t nan = 0, total = 0;
  int reduced = 0;
  for (int v = 0; v < cn_graph_n_values (g); v++)
    reduced |= cn_dtype_is_reduced (cn_graph_value_dtype (g, v));
  for (int k = 0; k < no; k++)
    for (int64_t i = 0; i < cn_tensor_numel (&s->outs[k]); i++, total++)
      nan += cn_dtype_is_float (s->outs[k].dtype) && isnan (cn_tensor_get_f64 (&s->outs[k], i));
  say (s->execute_msg, "%d nodes evaluated in %s%s: %d results, %" PRId64 " elements, %" PRId64 " NaN",
       cn_graph_n_nodes (g), seen && s->sort == CN_DTYPE_F64 ? "binary64" : "binary32",
       reduced ? " (binary16 and bfloat16 values computed in binary32, rounded once per node)" : "", no, total, nan);
  return RAN_OK;
}

/* Element I's word in T. */
static uint64_t
word_of (const cn_tensor *t, int64_t i)
{
  const unsigned char *d = t->data;
  switch (cn_dtype_size (t->dtype))
    {
    case 1: return d[i];
    case 2: { uint16_t x; memcpy (&x, d + 2 * i, 2); return x; }
    case 4: { uint32_t x; memcpy (&x, d + 4 * i, 4); return x; }
    default: { uint64_t x; memcpy (&x, d + 8 * i, 8); return x; }
    }
}

/* Whether word W of sort T is a NaN (exponent all ones, significand nonzero). */
static int
is_nan_word (cn_dtype t, uint64_t w)
{
  if (t == CN_DTYPE_F16)
    return (w & 0x7c00u) == 0x7c00u && (w & 0x3ffu) != 0;
  if (t == CN_DTYPE_BF16)
    return (w & 0x7f80u) == 0x7f80u && (w & 0x7fu) != 0;
  if (t == CN_DTYPE_F32)
    return (w & 0x7f800000u) == 0x7f800000u && (w & 0x7fffffu) != 0;
  if (t == CN_DTYPE_F64)
    return (w & 0x7ff0000000000000u) == 0x7ff0000000000000u && (w & 0xfffffffffffffu) != 0;
  return 0;
}

/* Compares the result A with its reference B into the next entry of F->mismatch when they differ
 * (OUTPUT, NODE as cn_mismatch says); *DIFFER, *NANW, *TOTAL accumulate the counts.  -1 out of
 * memory, 1 when they differ, else 0. */
static int
compare_tensor (const cn_tensor *a, const cn_tensor *b, int bitwise, int output, int node, cn_finding *f,
                int64_t *differ, int64_t *nanw, int64_t *total)
{
  int64_t n = cn_tensor_numel (a), nd = 0, nw = 0;
  for (int64_t i = 0; i < n; i++)
    {
      uint64_t x = word_of (a, i), y = word_of (b, i);
      if (x == y)
        continue;
      int both_nan = is_nan_word (a->dtype, x) && is_nan_word (a->dtype, y);
      nw += both_nan;
      nd += bitwise || !both_nan;
    }
  *total += n;
  *differ += nd;
  *nanw += nw;
  if (nd == 0)
    return 0;
  cn_mismatch *m = &f->mismatch[f->n_mismatch++];
  m->output = output;
  m->node = node;
  m->dtype = a->dtype;
  m->total = n;
  m->n_diff = nd;
  m->nan_words = nw;
  m->pos = malloc ((size_t) nd * sizeof *m->pos);
  m->ir_word = malloc ((size_t) nd * sizeof *m->ir_word);
  m->ref_word = malloc ((size_t) nd * sizeof *m->ref_word);
  if (m->pos == NULL || m->ir_word == NULL || m->ref_word == NULL)
    return -1;
  int64_t j = 0;
  for (int64_t i = 0; i < n; i++)
    {
      uint64_t x = word_of (a, i), y = word_of (b, i);
      if (x == y || (!bitwise && is_nan_word (a->dtype, x) && is_nan_word (a->dtype, y)))
        continue;
      m->pos[j] = i;
      m->ir_word[j] = x;
      m->ref_word[j] = y;
      j++;
    }
  return 1;
}

/* Compares execute's results with the references into F, the program's outputs first, then the
 * values of the nodes reference.nodes names; -1 out of memory, else 0. */
static int
compare (state *s, int bitwise, cn_finding *f, char *msg)
{
  int no = cn_graph_n_outputs (s->g), bad = 0, bad_nodes = 0, first = -1, n_vals = 0;
  int64_t total = 0, differ = 0, nanw = 0;
  for (int i = 0; i < s->n_node_refs; i++)
    n_vals += cn_graph_node_n_outputs (s->g, s->node_ref_node[i]);
  f->mismatch = calloc ((size_t) (no + n_vals) + 1, sizeof *f->mismatch);
  if (f->mismatch == NULL)
    return -1;
  for (int k = 0; k < no; k++)
    {
      const cn_tensor *a = &s->outs[k], *b = &s->refs[k];
      /* types made the reference's sort and shape the output's; the evaluator keeps both */
      if (a->dtype != b->dtype || cn_tensor_numel (a) != cn_tensor_numel (b))
        {
          say (msg, "result %d: the evaluation gave %s of %" PRId64 " elements, the reference %s of %" PRId64, k,
               cn_dtype_name (a->dtype), cn_tensor_numel (a), cn_dtype_name (b->dtype), cn_tensor_numel (b));
          f->status = CN_FINDING_FAILED;
          return 0;
        }
      int rc = compare_tensor (a, b, bitwise, k, -1, f, &differ, &nanw, &total);
      if (rc < 0)
        return -1;
      bad += rc;
    }
  int n_bad_results = bad;
  int64_t nd_differ = 0, nd_nanw = 0, nd_total = 0;   /* the node values' counts, apart */
  for (int i = 0; i < s->n_node_refs; i++)
    for (int j = 0; j < cn_graph_node_n_outputs (s->g, s->node_ref_node[i]); j++)
      {
        int rc = compare_tensor (&s->node_val[i][j], &s->node_ref[i][j], bitwise, j, s->node_ref_node[i], f,
                                 &nd_differ, &nd_nanw, &nd_total);
        if (rc < 0)
          return -1;
        bad_nodes += rc;
        if (rc && (first < 0 || s->node_ref_node[i] < first))
          first = s->node_ref_node[i];
      }
  f->status = bad || bad_nodes ? CN_FINDING_FAILED : CN_FINDING_PASSED;
  char nodes[MSG / 2];
  nodes[0] = '\0';
  if (s->n_node_refs > 0 && bad_nodes)
    snprintf (nodes, sizeof nodes, "; %d of %d node values differ (%" PRId64 " of %" PRId64 " elements), the first in "
              "program order at node %d ('%.80s', %s)", bad_nodes, n_vals, nd_differ, nd_total, first,
              cn_graph_node_name (s->g, first), cn_op_name (cn_graph_node_op (s->g, first)));
  else if (s->n_node_refs > 0)
    snprintf (nodes, sizeof nodes, "; the %d node values agree", n_vals);
  if (bad || bad_nodes)
    say (msg, "%" PRId64 " of %" PRId64 " elements differ in %d of %d results (%" PRId64 " where both are NaNs of "
         "different words%s)%s", differ, total, n_bad_results, no, nanw, bitwise ? ", counted as differing" : "", nodes);
  else
    say (msg, "%d results, %" PRId64 " elements, equal to the reference%s (%" PRId64 " NaNs of different words)%s", no,
         total, bitwise ? " word for word" : "", nanw, nodes);
  return 0;
}
static void
state_clear (state *s)
{
  for (int i = 0; s->args != NULL && i < s->n_args; i++)
    cn_tensor_clear (&s->args[i]);
  for (int i = 0; s->refs != NULL && i < s->n_refs; i++)
    cn_tensor_clear (&s->refs[i]);
  if (s->outs != NULL)
    for (int k = 0; k < cn_graph_n_outputs (s->g); k++)
      cn_tensor_clear (&s->outs[k]);
  free (s->args);
  free (s->refs);
  for (int i = 0; s->prim_refs != NULL && i < cn_graph_n_outputs (s->g); i++)
    cn_tensor_clear (&s->prim_refs[i]);
  free (s->prim_refs);
  for (int i = 0; i < s->n_node_refs; i++)
    {
      int n_out = s->node_ref_node != NULL && s->g != NULL ? cn_graph_node_n_outputs (s->g, s->node_ref_node[i]) : 0;
      for (int j = 0; j < n_out; j++)
        {
          if (s->node_ref[i] != NULL)
            cn_tensor_clear (&s->node_ref[i][j]);
          if (s->node_val[i] != NULL)
            cn_tensor_clear (&s->node_val[i][j]);
        }
      if (s->node_ref != NULL)
        free (s->node_ref[i]);
      if (s->node_val != NULL)
        free (s->node_val[i]);
    }
  free (s->node_ref_node);
  free (s->node_ref);
  free (s->node_val);
  free (s->outs);
  cn_wire_op_clear (&s->owner);
  json_decref (s->root);
}

static char *
dup (const char *s)
{
  size_t n = strlen (s) + 1;
  char *d = malloc (n);
  if (d != NULL)
    memcpy (d, s, n);
  return d;
}

/* Whether the reference's word Y of the binary format T lies within W steps of the emulated word
 * X in the order of the magnitudes, keeping X's sign and staying finite (the window never
 * crosses zero nor reaches an infinity: both words finite, of one sign). */
static int
window_reproduces (cn_dtype t, uint64_t x, uint64_t y, int w)
{
  int bits = 8 * (int) cn_dtype_size (t);
  uint64_t sign = (uint64_t) 1 << (bits - 1), mag = sign - 1;
  uint64_t inf = t == CN_DTYPE_F64 ? 0x7ff0000000000000u : t == CN_DTYPE_F32 ? 0x7f800000u : 0;
  if (inf == 0 || (x & sign) != (y & sign) || (x & mag) >= inf || (y & mag) >= inf)
    return 0;
  uint64_t a = x & mag, b = y & mag;
  return (a > b ? a - b : b - a) <= (uint64_t) w;
}

/* The compilation record of the jaxpr member JX for a graph of NN nodes into *C, with COMP and
 * JITS (owned by the caller, NN and jit_computations entries): as recorded, or with PRIMITIVE the
 * primitive-by-primitive execution beside a jax.jit one (no jax.jit; each node its own
 * computation, its primitive_index where recorded). */
static void
read_compilation (const json_t *jx, int nn, int primitive, int *comp, int *jits, cn__xla_compilation *c)
{
  const json_t *co = json_object_get (jx, primitive ? "primitive_index" : "computation"),
               *jc = json_object_get (jx, "jit_computations");
  memset (c, 0, sizeof *c);
  c->jit = !primitive && strcmp (json_string_value (json_object_get (jx, "reference_execution")), "jit") == 0;
  for (int k = 0; k < nn; k++)
    {
      const json_t *x = co != NULL ? json_array_get (co, (size_t) k) : NULL;
      /* a primitive reference without indices: every node its own primitive */
      comp[k] = x != NULL && json_is_integer (x) ? (int) json_integer_value (x) : primitive && co == NULL ? k : -1;
    }
  c->n_nodes = nn;
  c->computation = comp;
  if (!primitive)
    {
      for (size_t i = 0; i < json_array_size (jc); i++)
        jits[i] = (int) json_integer_value (json_array_get (jc, i));
      c->n_jit = (int) json_array_size (jc);
      c->jit_computations = jits;
    }
}

/* Whether word Y agrees with word X of sort T under the NaN policy (BITWISE) or within the
 * window W of XLA's own function (W > 0; *BY then set in USED when that was needed). */
static int
agrees (cn_dtype t, uint64_t x, uint64_t y, int bitwise, int w, int by, int *used)
{
  if (x == y || (!bitwise && is_nan_word (t, x) && is_nan_word (t, y)))
    return 1;
  if (w > 0 && window_reproduces (t, x, y, w))
    {
      used[by] = 1;
      return 1;
    }
  return 0;
}

/* Runs the emulation of S's program under C and tells whether it reproduces the words TARGET
 * (one tensor per output) at every element where they differ from AGAINST (the IR's results),
 * under the NaN policy; USED receives the behaviours used.  1 or 0; -1 out of memory; 2 when the
 * emulation could not run (the message appended to MSG). */
static int
reproduces (state *s, const cn__xla_compilation *c, const cn_tensor *target, const cn_tensor *against, int bitwise,
            int *used, char *msg)
{
  int no = cn_graph_n_outputs (s->g);
  cn_tensor *em = calloc ((size_t) no + 1, sizeof *em);
  int *window = calloc ((size_t) no + 1, sizeof *window), *by = calloc ((size_t) no + 1, sizeof *by);
  if (em == NULL || window == NULL || by == NULL)
    {
      free (em), free (window), free (by);
      return -1;
    }
  cn_error e;
  cn_error_clear (&e);
  cn_status st = cn__xla_emulate (s->g, c, s->args, em, used, window, by, &e);
  int rc = 1;
  if (st != CN_OK)
    {
      size_t len = strlen (msg);
      snprintf (msg + len, MSG - len, "; XLA's CPU emulation did not run: %.200s", e.msg);
      rc = st == CN_ENOMEM ? -1 : 2;
    }
  for (int k = 0; st == CN_OK && k < no && rc == 1; k++)
    for (int64_t i = 0; i < cn_tensor_numel (&target[k]) && rc == 1; i++)
      {
        uint64_t ir = word_of (&against[k], i), y = word_of (&target[k], i);
        if (!agrees (target[k].dtype, ir, y, bitwise, 0, 0, used))
          rc = agrees (target[k].dtype, word_of (&em[k], i), y, bitwise, window[k], by[k], used);
      }
  for (int k = 0; st == CN_OK && k < no; k++)
    cn_tensor_clear (&em[k]);
  free (em), free (window), free (by);
  return rc;
}

/* The consistent_with advice of a failed comparison F of a Jaxpr artifact whose reference XLA's
 * CPU backend computed ("jaxpr": {"backend": "xla-cpu"}): the program run again as XLA's CPU code
 * computes it (src/io/xla.c); when that run gives the reference's word (under F's NaN policy, or
 * within the window of XLA's own rsqrt or pow) at every differing element, F lists the
 * behaviours the run used.  Under jax.jit, a primitive-by-primitive reference beside it must then
 * agree with the IR or be reproduced by the emulation without jax.jit (each primitive its own
 * computation), else the advice is withheld.  The message says which.  -1 out of memory, else
 * 0. */
static int
explain (state *s, int bitwise, cn_finding *f, char *msg)
{
  const json_t *jx = json_object_get (s->root, "jaxpr");
  const json_t *be = jx != NULL ? json_object_get (jx, "backend") : NULL;
  int outputs_differ = 0;
  for (int i = 0; i < f->n_mismatch; i++)
    outputs_differ |= f->mismatch[i].node < 0;
  if (be == NULL || strcmp (json_string_value (be), "xla-cpu") != 0 || !outputs_differ)
    return 0;   /* the emulation explains results; node values are not emulated */
  int nn = cn_graph_n_nodes (s->g);
  int *comp = calloc ((size_t) nn + 1, sizeof *comp);
  int *jits = calloc (json_array_size (json_object_get (jx, "jit_computations")) + 1, sizeof *jits);
  if (comp == NULL || jits == NULL)
    {
      free (comp), free (jits);
      return -1;
    }
  cn__xla_compilation c;
  int used[CN__XLA_COUNT] = { 0 }, unused[CN__XLA_COUNT] = { 0 };
  read_compilation (jx, nn, 0, comp, jits, &c);
  int rc = reproduces (s, &c, s->refs, s->outs, bitwise, used, msg), any = 0;
  for (int b = 0; b < CN__XLA_COUNT; b++)
    any |= used[b];
  int withheld = 0;
  if (rc == 1 && any && c.jit && s->prim_refs != NULL)
    {
      /* the primitive reference: the IR's words, or the emulation's without jax.jit */
      read_compilation (jx, nn, 1, comp, jits, &c);
      int same = 1;
      for (int k = 0; k < cn_graph_n_outputs (s->g) && same; k++)
        for (int64_t i = 0; i < cn_tensor_numel (&s->outs[k]) && same; i++)
          same = agrees (s->outs[k].dtype, word_of (&s->outs[k], i), word_of (&s->prim_refs[k], i), bitwise, 0, 0,
                         unused);
      int prc = same ? 1 : reproduces (s, &c, s->prim_refs, s->outs, bitwise, unused, msg);
      if (prc < 0)
        rc = -1;
      withheld = prc == 0;
    }
  free (comp), free (jits);
  if (rc < 0)
    return -1;
  if (rc == 2)
    return 0;
  size_t len = strlen (msg);
  if (rc == 1 && any && !withheld)
    {
      for (int b = 0; b < CN__XLA_COUNT; b++)
        if (used[b] && f->n_consistent_with < CN_MAX_CONSISTENT_WITH)
          f->consistent_with[f->n_consistent_with++] = cn__xla_code (b);
      snprintf (msg + len, MSG - len, "; XLA's CPU emulation reproduces every differing element: consistent with");
      for (int i = 0; i < f->n_consistent_with; i++)
        {
          len = strlen (msg);
          snprintf (msg + len, MSG - len, "%s %s", i > 0 ? "," : "", f->consistent_with[i]);
        }
      len = strlen (msg);
      snprintf (msg + len, MSG - len, " (advice, not an explanation)");
    }
  else if (withheld)
    snprintf (msg + len, MSG - len, "; XLA's CPU emulation reproduces them, but the primitive-by-primitive reference "
              "neither agrees with the IR nor is reproduced without jax.jit: no advice");
  else
    snprintf (msg + len, MSG - len, "; XLA's CPU emulation does not reproduce them");
  return 0;
}

/* Runs (once) the checks up to WHICH and writes WHICH's outcome into F; -1 out of memory. */
static int
run_check (state *s, int which, cn_finding *f)
{
  char msg[MSG];
  msg[0] = '\0';
  f->establishes = scope[which].establishes;
  f->not_established = scope[which].not_established;
  if (which == C_UNKNOWN)
    {
      f->status = CN_FINDING_UNSUPPORTED;
      say (msg, "unknown check '%s' (known: structure, types, execute, compare, compare_bitwise)", f->name);
      goto out;
    }
  if (s->structure == NOT_RUN)
    s->structure = structure (s->root, s->structure_msg) ? RAN_OK : RAN_FAILED;
  if (which == C_STRUCTURE)
    {
      f->status = s->structure == RAN_OK ? CN_FINDING_PASSED : CN_FINDING_FAILED;
      say (msg, "%s", s->structure_msg);
      goto out;
    }
  if (s->structure != RAN_OK)
    {
      f->status = CN_FINDING_FAILED;
      say (msg, "not run: the structure check failed (%s)", s->structure_msg);
      goto out;
    }
  if (s->types == NOT_RUN)
    {
      int rc = types (s);
      if (rc < 0)
        return -1;
      s->types = rc ? RAN_OK : RAN_FAILED;
    }
  if (which == C_TYPES)
    {
      f->status = s->types == RAN_OK ? CN_FINDING_PASSED : CN_FINDING_FAILED;
      say (msg, "%s", s->types_msg);
      goto out;
    }
  if (s->types != RAN_OK)
    {
      f->status = CN_FINDING_FAILED;
      say (msg, "not run: the types check failed (%s)", s->types_msg);
      goto out;
    }
  if (s->execute == NOT_RUN)
    {
      int rc = execute (s);
      if (rc < 0)
        return -1;
      s->execute = rc;
    }
  if (which == C_EXECUTE || s->execute != RAN_OK)
    {
      f->status = s->execute == RAN_OK      ? CN_FINDING_PASSED
                  : s->execute == RAN_FAILED ? CN_FINDING_FAILED
                                             : CN_FINDING_UNSUPPORTED;
      say (msg, "%s%s", which == C_EXECUTE ? "" : s->execute == RAN_FAILED ? "not run: execute failed: " : "not run: ",
           s->execute_msg);
      goto out;
    }
  if (s->refs == NULL)
    {
      f->status = CN_FINDING_UNSUPPORTED;
      say (msg, "the artifact has no reference outputs");
      goto out;
    }
  if (compare (s, which == C_BITWISE, f, msg) < 0)
    return -1;
  if (f->status == CN_FINDING_FAILED && f->n_mismatch > 0 && explain (s, which == C_BITWISE, f, msg) < 0)
    return -1;
out:
  f->message = dup (msg);
  return f->message == NULL ? -1 : 0;
}

cn_status
cn_artifact_check (const char *text, size_t len, int n_checks, const char *const *checks, cn_check_report *out,
                   cn_error *err)
{
  static const char *const defaults[] = { "structure", "types", "execute", "compare" };
  memset (out, 0, sizeof *out);
  if (n_checks <= 0)
    {
      n_checks = 4;
      checks = defaults;
    }
  json_error_t je;
  state s;
  memset (&s, 0, sizeof s);
  s.root = json_loadb (text, len, JSON_REJECT_DUPLICATES, &je);
  if (s.root == NULL)
    return cn_error_set (err, CN_EPARSE, "artifact: line %d, column %d: %s", je.line, je.column, je.text);
  if (!json_is_object (s.root))
    {
      cn_error_set (err, CN_EPARSE, "artifact: the text is %s, not an artifact object", jtype (s.root));
      json_decref (s.root);
      return CN_EPARSE;
    }
  out->findings = calloc ((size_t) n_checks, sizeof *out->findings);
  if (out->findings == NULL)
    goto nomem;
  out->n_findings = n_checks;
  for (int i = 0; i < n_checks; i++)
    {
      cn_finding *f = &out->findings[i];
      snprintf (f->name, sizeof f->name, "%s", checks[i]);
      int which = C_UNKNOWN;
      for (int c = 0; c < C_UNKNOWN; c++)
        if (strcmp (checks[i], scope[c].name) == 0)
          which = c;
      if (run_check (&s, which, f) < 0)
        goto nomem;
    }
  /* the metadata, reported as it stands (the structure check says whether it is well formed) */
  const json_t *c = json_object_get (s.root, "certnn"), *r = json_object_get (s.root, "reference"),
               *cc = json_object_get (s.root, "capture_constraints");
  const json_t *pr = r != NULL && json_is_object (r) ? json_object_get (r, "producer") : NULL;
  if ((c != NULL && json_is_string (c) && (out->certnn = dup (json_string_value (c))) == NULL)
      || (pr != NULL && json_is_string (pr) && (out->producer = dup (json_string_value (pr))) == NULL)
      || (cc != NULL && (out->capture_constraints = json_dumps (cc, JSON_ENCODE_ANY | JSON_COMPACT)) == NULL))
    goto nomem;
  state_clear (&s);
  return CN_OK;
nomem:
  state_clear (&s);
  cn_check_report_clear (out);
  return cn_error_set (err, CN_ENOMEM, "artifact: out of memory");
}

void
cn_check_report_clear (cn_check_report *r)
{
  if (r == NULL)
    return;
  for (int i = 0; r->findings != NULL && i < r->n_findings; i++)
    {
      cn_finding *f = &r->findings[i];
      free (f->message);
      for (int k = 0; f->mismatch != NULL && k < f->n_mismatch; k++)
        {
          free (f->mismatch[k].pos);
          free (f->mismatch[k].ir_word);
          free (f->mismatch[k].ref_word);
        }
      free (f->mismatch);
    }
  free (r->findings);
  free (r->certnn);
  free (r->producer);
  free (r->capture_constraints);
  memset (r, 0, sizeof *r);
}

/* ---- export ------------------------------------------------------------------------------ */

/* *DST = SRC converted to SORT, refused (CN_EINVAL naming WHAT) unless every element is kept. */
static cn_status
convert_exact (cn_tensor *dst, cn_dtype sort, const cn_tensor *src, const char *what, cn_error *err)
{
  cn_status st = cn_tensor_convert (dst, sort, src, err);
  if (st != CN_OK || !cn_dtype_is_float (sort))
    return st;
  for (int64_t i = 0; i < cn_tensor_numel (src); i++)
    {
      double a = cn_tensor_get_f64 (src, i), b = cn_tensor_get_f64 (dst, i);
      if (!(a == b || (isnan (a) && isnan (b))))
        {
          cn_tensor_clear (dst);
          return cn_error_set (err, CN_EINVAL, "export: %s: element %lld (%.17g) is not a %s number", what,
                               (long long) i, a, sort == CN_DTYPE_F32 ? "binary32" : "binary64");
        }
    }
  return CN_OK;
}

/* Whether the sort named by the string member MEMBER of E is f32 or f64 and not TO (the model's
 * scalar in another sort; a reduced format is a rounding, kept). */
static int
other_scalar (const json_t *e, const char *member, cn_dtype to)
{
  const char *n = json_string_value (json_object_get (e, member));
  cn_dtype t = n != NULL ? sort_named (n) : CN_DTYPE_COUNT;
  return (t == CN_DTYPE_F32 || t == CN_DTYPE_F64) && t != to;
}

static int
other_float (const json_t *e, cn_dtype to)
{
  return other_scalar (e, "sort", to);
}

/* Rewrites every f32 or f64 sort of the program P's values as TO: its inputs, its constants
 * (their words converted, refused unless exact), its nodes' records' inputs, and the f32 or f64
 * target of a cast (which names the model's scalar: certnn/ops.h), custom programs within them
 * too.  binary16 and bfloat16 values stay as they are (their casts round). */
static cn_status
program_to_sort (json_t *p, cn_dtype to, int depth, cn_error *err)
{
  if (depth > 16)
    return cn_error_set (err, CN_EINVAL, "export: programs nested too deep");
  json_t *ins = json_object_get (p, "inputs"), *cs = json_object_get (p, "constants"), *ns = json_object_get (p, "nodes");
  json_t *sort = json_string (cn_dtype_name (to));
  size_t i;
  json_t *e;
  cn_status st = CN_OK;
  if (sort == NULL)
    return cn_error_set (err, CN_ENOMEM, "export: out of memory");
  json_array_foreach (ins, i, e)
    if (other_float (e, to) && json_object_set (e, "sort", sort) < 0)
      goto nomem;
  json_array_foreach (cs, i, e)
  {
    if (!other_float (e, to))
      continue;
    json_t *tj = json_pack ("{s:O, s:O, s:O}", "sort", json_object_get (e, "sort"), "shape",
                            json_object_get (e, "shape"), "words", json_object_get (e, "words"));
    if (tj == NULL)
      goto nomem;
    cn_tensor t, tc;
    char what[96];
    snprintf (what, sizeof what, "constant '%s'", json_string_value (json_object_get (e, "name")));
    st = cn__wire_decode_tensor (tj, "export", &t, err);
    json_decref (tj);
    if (st != CN_OK)
      goto done;
    st = convert_exact (&tc, to, &t, what, err);
    cn_tensor_clear (&t);
    if (st != CN_OK)
      goto done;
    json_t *enc = cn__wire_encode_tensor (&tc);
    cn_tensor_clear (&tc);
    if (enc == NULL || json_object_update (e, enc) < 0)
      {
        json_decref (enc);
        goto nomem;
      }
    json_decref (enc);
  }
  json_array_foreach (ns, i, e)
  {
    json_t *op = json_object_get (e, "op"), *ri = json_object_get (op, "inputs"), *x;
    size_t k;
    json_array_foreach (ri, k, x)
      if (other_float (x, to) && json_object_set (x, "sort", sort) < 0)
        goto nomem;
    json_t *fields = json_object_get (op, "fields");
    const char *tag = json_string_value (json_object_get (op, "tag"));
    if (tag != NULL && strcmp (tag, cn_op_name (CN_OP_CAST)) == 0 && other_scalar (fields, "to", to)
        && json_object_set (fields, "to", sort) < 0)
      goto nomem;
    json_t *sub = json_object_get (json_object_get (op, "fields"), "program");
    if (sub != NULL && json_is_object (sub) && (st = program_to_sort (sub, to, depth + 1, err)) != CN_OK)
      goto done;
  }
  goto done;
nomem:
  st = cn_error_set (err, CN_ENOMEM, "export: out of memory");
done:
  json_decref (sort);
  return st;
}

/* A JSON array of the N tensors T converted (exactly) to the sorts of the values VALUE (G, i). */
static cn_status
tensors_json (const cn_graph *g, int (*value) (const cn_graph *, int), int n, const cn_tensor *t, const char *what,
              json_t **out, cn_error *err)
{
  json_t *a = json_array ();
  if (a == NULL)
    return cn_error_set (err, CN_ENOMEM, "export: out of memory");
  for (int i = 0; i < n; i++)
    {
      int v = value (g, i);
      char w[96];
      snprintf (w, sizeof w, "%s %d ('%s')", what, i, cn_graph_value_name (g, v));
      if (cn_tensor_numel (&t[i]) != cn_shape_numel (cn_graph_value_shape (g, v)))
        {
          json_decref (a);
          return cn_error_set (err, CN_ESHAPE, "export: %s has %lld elements, the program's %lld", w,
                               (long long) cn_tensor_numel (&t[i]),
                               (long long) cn_shape_numel (cn_graph_value_shape (g, v)));
        }
      cn_tensor c;
      cn_status st = convert_exact (&c, cn_graph_value_dtype (g, v), &t[i], w, err);
      if (st != CN_OK)
        {
          json_decref (a);
          return st;
        }
      c.shape = *cn_graph_value_shape (g, v);
      json_t *e = cn__wire_encode_tensor (&c);
      cn_tensor_clear (&c);
      if (e == NULL || json_array_append_new (a, e) < 0)
        {
          json_decref (a);
          return cn_error_set (err, CN_ENOMEM, "export: out of memory");
        }
    }
  *out = a;
  return CN_OK;
}

cn_status
cn_artifact_export (const cn_graph *g, cn_dtype dtype, const cn_tensor *args, const cn_tensor *refs,
                    const char *producer, char **out, cn_error *err)
{
  *out = NULL;
  if (dtype != CN_DTYPE_F32 && dtype != CN_DTYPE_F64)
    return cn_error_set (err, CN_EINVAL, "export: the model's scalar goes in f32 or f64, not %s", cn_dtype_name (dtype));
  json_t *prog = NULL, *root = NULL, *aj = NULL, *rj = NULL;
  cn_tensor *outs = NULL;
  cn_wire_op owner;
  memset (&owner, 0, sizeof owner);
  const cn_graph *g2 = NULL;
  cn_status st = cn__wire_encode_program (g, &prog, err);
  if (st != CN_OK)
    return st;
  if ((st = program_to_sort (prog, dtype, 0, err)) != CN_OK)
    goto done;
  /* G2: the program as the artifact states it (its sorts), decoded with every check */
  if ((st = cn__wire_decode_program (prog, &owner, &g2, err)) != CN_OK)
    goto done;
  int no = cn_graph_n_outputs (g2);
  char prod[64];
  if (args != NULL)
    {
      if ((st = tensors_json (g2, cn_graph_input, cn_graph_n_inputs (g2), args, "argument", &aj, err)) != CN_OK)
        goto done;
      if (refs == NULL)
        {
          /* the reference: certnn's evaluation of G2 on the arguments as the artifact holds them, in
           * its declared sorts as execute evaluates it (every f32 or f64 value is DTYPE now) */
          cn_tensor *a2 = calloc ((size_t) cn_graph_n_inputs (g2) + 1, sizeof *a2);
          outs = calloc ((size_t) no + 1, sizeof *outs);
          if (a2 == NULL || outs == NULL)
            {
              free (a2);
              st = cn_error_set (err, CN_ENOMEM, "export: out of memory");
              goto done;
            }
          for (int i = 0; st == CN_OK && i < cn_graph_n_inputs (g2); i++)
            st = convert_exact (&a2[i], cn_graph_value_dtype (g2, cn_graph_input (g2, i)), &args[i], "argument", err);
          if (st == CN_OK)
            st = cn_graph_eval_declared (g2, a2, outs, err);
          for (int i = 0; i < cn_graph_n_inputs (g2); i++)
            cn_tensor_clear (&a2[i]);
          free (a2);
          if (st != CN_OK)
            {
              free (outs);
              outs = NULL;
              goto done;
            }
          refs = outs;
          snprintf (prod, sizeof prod, "certnn %s evaluation in %s", cn_version (), cn_dtype_name (dtype));
          producer = prod;
        }
    }
  if (refs != NULL && (st = tensors_json (g2, cn_graph_output, no, refs, "reference output", &rj, err)) != CN_OK)
    goto done;
  char ver[64];
  snprintf (ver, sizeof ver, "certnn %s", cn_version ());
  root = json_pack ("{s:s, s:i, s:s, s:O}", "format", "certnn-ir", "version", CN_ARTIFACT_VERSION, "certnn", ver,
                    "program", prog);
  if (root == NULL || (aj != NULL && json_object_set (root, "arguments", aj) < 0))
    goto nomem;
  if (rj != NULL)
    {
      json_t *r = json_pack ("{s:O}", "outputs", rj);
      if (r == NULL || (producer != NULL && json_object_set_new (r, "producer", json_string (producer)) < 0)
          || json_object_set_new (root, "reference", r) < 0)
        goto nomem;
    }
  if ((*out = json_dumps (root, JSON_INDENT (1) | JSON_PRESERVE_ORDER)) == NULL)
    goto nomem;
  goto done;
nomem:
  st = cn_error_set (err, CN_ENOMEM, "export: out of memory");
done:
  if (outs != NULL)
    for (int k = 0; k < cn_graph_n_outputs (g2); k++)
      cn_tensor_clear (&outs[k]);
  free (outs);
  json_decref (root);
  json_decref (prog);
  json_decref (aj);
  json_decref (rj);
  cn_wire_op_clear (&owner);
  return st;
}
