/* SPDX-License-Identifier: MIT */
/* certnn/artifact.h: IR artifacts (a captured tensor computation with its arguments and reference
 * outputs) and their checks, the library side of `certnn check` and `certnn export`.
 *
 * An artifact (doc/ARTIFACT.md, format version 2; version 1 lacks "jaxpr") is one JSON object:
 *
 *   {"format": "certnn-ir", "version": 2,
 *    "certnn": "certnn 0.1.0",                     optional: the revision that wrote or evaluates it
 *    "program": PROGRAM,                           the typed program (certnn/wire.h, custom's PROGRAM:
 *                                                  inputs with sort and shape, constants as words,
 *                                                  nodes as wire records, outputs)
 *    "arguments": [TENSOR, ...],                   optional: one per program input
 *    "reference": {"outputs": [TENSOR, ...],       optional: one per program output
 *                  "nodes": [{"node": K, "outputs": [TENSOR, ...]}, ...],
 *                                                  optional: node K's values (one per output)
 *                  "producer": "..."},             optional text: what computed them
 *    "capture_constraints": ANY,                   optional: kept and reported, never checked
 *    "jaxpr": {"reference_execution": "jit" | "primitive", "backend": "xla-cpu",
 *              "computation": [...], "jit_computations": [...],
 *              "primitive_index": [...], "primitive_reference": [TENSOR, ...]}}
 *                                                  optional: how a Jaxpr reference was computed;
 *                                                  with backend xla-cpu a failed comparison gets
 *                                                  the consistent_with advice (cn_finding)
 *
 * TENSOR = {"sort": "f32", "shape": [2, 3], "words": "3f800000..."}: the elements' complete words
 * in row-major order, hexadecimal, the sort's width each (8 digits for f32, 16 for f64, 2 for
 * bool and i8, ...), read with no host-float conversion.
 *
 * The checks (cn_artifact_check; each reports one finding, in the order requested):
 *   structure        the object's members, the program's shape: every node names a registered
 *                    operator and reads only values defined before it (no forward reference, so
 *                    no cycle), outputs defined, every word string of its tensor's length;
 *   types            every node's record decodes with every field checked (certnn/wire.h) and its
 *                    inputs' sorts and shapes are those of the values it reads, the rule accepts
 *                    the instance; arguments and reference outputs have the program's sorts and
 *                    shapes;
 *   execute          certnn's evaluator runs the program on the arguments in its values' declared
 *                    sorts (cn_graph_eval_declared: each operation rounded once to nearest in
 *                    binary32 or binary64, a binary16 or bfloat16 node computed in binary32 and
 *                    rounded once to its format; integer and Boolean values exact);
 *   compare          the results equal the reference outputs element for element, two NaNs
 *                    agreeing whatever their sign and payload;
 *   compare_bitwise  the same with equal words required, NaNs included.
 * A check that cannot run on the artifact (no arguments, no reference, a program mixing binary32
 * and binary64, a request of an unknown name) is reported as unsupported, never dropped; a check
 * whose prerequisite failed is reported failed ("not run: ...").  Passing is not a theorem about
 * all inputs, nor a proof of the frontend's translation, nor a validation of external kernels:
 * every finding states what it establishes and what it does not. */
#ifndef CERTNN_ARTIFACT_H
#define CERTNN_ARTIFACT_H

#include <stddef.h>
#include <stdint.h>
#include "certnn/graph.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The artifact format version this library writes; it reads versions 1 to this one (version 2
 * adds the optional "jaxpr" member). */
#define CN_ARTIFACT_VERSION 2
/* The most behaviours a consistent_with list names. */
#define CN_MAX_CONSISTENT_WITH 8

typedef enum cn_finding_status
{
  CN_FINDING_PASSED,
  CN_FINDING_FAILED,
  CN_FINDING_UNSUPPORTED
} cn_finding_status;

CN_API const char *cn_finding_status_name (cn_finding_status s);   /* "passed", "failed", "unsupported" */

/* The elements of one result that disagree with its reference (compare, compare_bitwise). */
typedef struct cn_mismatch
{
  int output;               /* the program output, or with NODE >= 0 that node's output */
  int node;                 /* -1: a program output; else the node whose referenced value this is */
  cn_dtype dtype;           /* its sort (the words' width) */
  int64_t total;            /* its elements */
  int64_t n_diff;           /* elements that disagree under the check's NaN policy */
  int64_t nan_words;        /* elements where both words are NaNs of different sign or payload */
  int64_t *pos;             /* the n_diff positions (row-major), owned */
  uint64_t *ir_word;        /* the IR's words there, owned */
  uint64_t *ref_word;       /* the reference's words there, owned */
} cn_mismatch;

/* One check's outcome. */
typedef struct cn_finding
{
  char name[40];            /* the check as requested */
  cn_finding_status status;
  char *message;            /* what happened, owned */
  const char *establishes;  /* the check's scope: what passing establishes (static text) */
  const char *not_established; /* and what it does not (static text) */
  int n_mismatch;           /* compare, compare_bitwise: the results that disagree */
  cn_mismatch *mismatch;    /* owned */
  /* a failed compare or compare_bitwise of a Jaxpr artifact whose reference XLA's CPU backend
   * computed: the documented behaviours whose emulation reproduces every differing element
   * (static codes: "divisor_reciprocal", "rewritten_division", "power_products", "subnormal",
   * "reciprocal_sqrt", "power");
   * advice, not an explanation */
  int n_consistent_with;
  const char *consistent_with[CN_MAX_CONSISTENT_WITH];
} cn_finding;

typedef struct cn_check_report
{
  int n_findings;
  cn_finding *findings;     /* one per request, in order; owned */
  char *certnn;             /* the artifact's "certnn" member, or NULL; owned */
  char *producer;           /* the reference's "producer", or NULL; owned */
  char *capture_constraints; /* the member's JSON text, unchecked metadata, or NULL; owned */
} cn_check_report;

/* Runs the checks CHECKS[0..N_CHECKS-1] (names as above; N_CHECKS = 0: structure, types,
 * execute, compare) on the artifact TEXT (LEN bytes, JSON) and fills *OUT (overwritten; release
 * with cn_check_report_clear).  What is wrong with the artifact becomes a failed finding; the
 * status is CN_EPARSE only when TEXT is not one JSON object (the message says where), CN_ENOMEM
 * when memory runs out; then *OUT holds nothing. */
CN_API cn_status cn_artifact_check (const char *text, size_t len, int n_checks, const char *const *checks,
                                    cn_check_report *out, cn_error *err);
/* Frees what *R owns and zeroes it; NULL and a zeroed report are allowed. */
CN_API void cn_check_report_clear (cn_check_report *r);

/* Writes the graph G (one program) as an artifact in a new NUL-terminated string *OUT (free ()):
 * its values of the model's scalar in DTYPE (CN_DTYPE_F64 or CN_DTYPE_F32; a constant that DTYPE
 * does not hold exactly is refused, naming it), with ARGS (one tensor per graph input, converted
 * to the inputs' sorts and refused unless exact; NULL: no arguments) and reference outputs: REFS
 * (one tensor per graph output, converted likewise) with PRODUCER (may be NULL), or with REFS NULL
 * and ARGS given, certnn's own evaluation in DTYPE (producer "certnn evaluation in f32"). */
CN_API cn_status cn_artifact_export (const cn_graph *g, cn_dtype dtype, const cn_tensor *args, const cn_tensor *refs,
                                     const char *producer, char **out, cn_error *err);

#ifdef __cplusplus
}
#endif
#endif
