/* SPDX-License-Identifier: MIT */
/* certnn/wire.h: the wire codec, an operator instance as a versioned JSON record and back.
 *
 * An operator instance is the operator, its attribute record and the sorts and shapes of its
 * inputs (shapes are attributes in certnn: the inputs fix them).  Its record (format version 1):
 *
 *   {"version": 1, "tag": "softmax",
 *    "inputs": [{"sort": "f64", "shape": [2, 3]}],
 *    "fields": {"axis": 1}}
 *
 * - "tag" is the operator's name (cn_op_name); "inputs" lists every input port in order, its sort
 *   as cn_dtype_name writes it ("f64" or "f32" for the model's scalar, "bool", "i8" .. "u64") and its
 *   shape as the list of extents ([] for a scalar).
 * - "fields" holds one member per member of the operator's attribute record, the record its row
 *   of certnn/ops.def names, declared in certnn/ops.h as the list of its members (CN_PARAMS_<rec>):
 *   named as the record's member, in the record's order; an operator without a record has
 *   "fields": {}.  The members are written by their kind in that list:
 *     INT, I64, COUNT               JSON integers;
 *     FLAG (keepdims, causal, ...)  true or false (the record holds 0 or 1);
 *     F64, F64X (double)            a JSON number printed with 17 significant digits, so that it
 *                                   reads back to the same double (-0 included); where the field may
 *                                   hold a non-finite value (F64X: nanToNum's three values, fullLike's
 *                                   value, the losses' parameters) the strings "inf", "-inf", "nan";
 *                                   elsewhere (F64) a non-finite value is refused;
 *     ENUM                          its name, as the enumeration's map in certnn/ops.h gives it
 *                                   (CN_POOL_KIND_MAP: pool kind "max" | "avg"; CN_DIV_ROUNDING_MAP:
 *                                   div rounding "none" (true division, torch's rounding_mode=None) |
 *                                   "trunc" | "floor"; reduce kind, gelu approximate, sqrt mode, loss
 *                                   reduction, scatter reduce, fft norm likewise);
 *     DTYPE (cn_dtype)              its cn_dtype_name ("f64", "bool", "u64", ...);
 *     SHAPE (cn_shape)              the list of extents;
 *     AXES (uint32_t, bit a = axis a)   the increasing list of its axes;
 *     INTS, I64S (an array with a count member: conv's stride[nd], permute's perm[rank], slice's
 *                                   start[rank], contract's a_axes[n], index_code's bound[r], ...)
 *                                   the list of its first COUNT entries; entries past the count are
 *                                   not part of the operator: they are not written, and a decoded
 *                                   record holds zeros there;
 *     NAME (custom's name)          a string (at most 63 bytes);
 *     PROGRAM (custom's program)    an object {"inputs": [{"name", "sort", "shape"}, ...],
 *                                   "constants": [{"name", "sort", "shape", "words"}, ...],
 *                                   "nodes": [{"name", "op": <record>, "in": [values]}, ...],
 *                                   "outputs": [values]}: values are numbered inputs first, then
 *                                   constants, then each node's output, in order; "op" is the node's
 *                                   operator record (a custom node's holds its own program); "words"
 *                                   is the constant's elements in row-major order, each the
 *                                   hexadecimal bit pattern of its sort's width (16 digits for f64,
 *                                   8 for f32, 2 for bool and i8, ...), most significant digit first.
 *
 * Decoding checks everything: the version, the tag, every member present with its type and no
 * other member, enumeration names, counts within the record's arrays, the contract's ranges that
 * hold whatever the inputs (window strides, dilations and kernels >= 1, paddings >= 0, slice
 * steps >= 1, ...), finiteness where a field must be finite; then, for an operator with a rule,
 * each input's sort against its port, the rule's out_sort and the rule's check with the decoded
 * record and input shapes, so that a record whose axis lies outside the rank decodes to an error,
 * never to an operator.  An operator without a rule yet gets every check but the rule's.
 * Encoding runs the same checks on the record it is given, so that whatever it writes decodes.
 *
 * Errors: CN_EPARSE for malformed JSON and malformed records (a wrong version, an unknown tag, a
 * missing, extra or ill-typed member, an unknown enumeration name), CN_EINVAL for values outside
 * their range, and whatever status the rule's check returns (CN_EINVAL, CN_ESHAPE); CN_ENOMEM.
 * Messages start with "wire: TAG:" and name the field ("wire: softmax: field 'axis': ...") or the
 * input.
 *
 * The JSON functions take and return jansson objects (declare them by including <jansson.h>); the
 * string functions need no jansson at the caller. */
#ifndef CERTNN_WIRE_H
#define CERTNN_WIRE_H

#include <stddef.h>
#include "certnn/graph.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The format version this codec writes and the only one it reads. */
#define CN_WIRE_VERSION 1

struct json_t;

/* A decoded operator instance.  It owns its record, its arrays and, for custom, the decoded
 * program graphs; cn_wire_op_clear frees them. */
typedef struct cn_wire_op
{
  cn_op op;
  void *params;            /* the record, owned (malloc'd): cn_op_params_size (op) bytes, zero where
                              the wire carries nothing (entries past a count, padding); NULL for an
                              operator without attributes */
  int n_in;
  cn_shape *in_shape;      /* n_in input shapes (entries past each rank zero) */
  cn_dtype *in_dtype;      /* n_in input sorts */
  int checked;             /* 1 if the operator's rule checked the instance (it has a rule) */
  cn_shape out_shape;      /* if checked: the output shape the rule's check wrote */
  cn_dtype out_dtype;      /* if checked: the output's sort as the graph builder records it (the
                              first floating input's sort for the model's scalar, else the rule's
                              out_sort) */
  int n_graphs;            /* custom: the graphs decoded from the record, owned: graphs[0] is the */
  cn_graph **graphs;       /* program (the cn_params_custom's program), the others the programs of
                              custom nodes inside it */
} cn_wire_op;

/* The size of OP's attribute record (0 for none and for an invalid OP), whether or not the
 * operator has a rule: cn_op_params_size (op), the record OP's ops.def row names. */
CN_API size_t cn_wire_params_size (cn_op op);

/* Encodes the instance of OP with the record PARAMS (borrowed; NULL for an operator without
 * attributes) and N_IN inputs of shapes IN_SHAPE[0..N_IN-1] and sorts IN_DTYPE[0..N_IN-1] (NULL:
 * all CN_DTYPE_F64, the model's scalar) into a new JSON object *OUT, which the caller releases
 * with json_decref.  The instance is checked as decoding checks it (an invalid instance is refused
 * with decoding's message and status); for custom the program graph is encoded.  On failure *OUT
 * is NULL. */
CN_API cn_status cn_wire_encode (cn_op op, const void *params, int n_in, const cn_shape *in_shape,
                                 const cn_dtype *in_dtype, struct json_t **out, cn_error *err);
/* cn_wire_encode of node NODE of graph G (its operator, record, and its inputs' shapes and sorts). */
CN_API cn_status cn_wire_encode_node (const cn_graph *g, int node, struct json_t **out, cn_error *err);
/* cn_wire_encode, written into a malloc'd NUL-terminated one-line string *OUT that the caller
 * frees with free (); *OUT is NULL on failure. */
CN_API cn_status cn_wire_encode_string (cn_op op, const void *params, int n_in, const cn_shape *in_shape,
                                        const cn_dtype *in_dtype, char **out, cn_error *err);

/* Decodes the record REC (borrowed) into *OUT, which is overwritten (not cleared first) and owned
 * by the caller on success: release it with cn_wire_op_clear.  The graph builder takes the result
 * as it is: cn_graph_add_node (g, out->op, out->params, out->n_in, values, name, ...), the
 * custom program staying alive until cn_wire_op_clear.  On failure *OUT is left cleared (and may
 * still be passed to cn_wire_op_clear). */
CN_API cn_status cn_wire_decode (const struct json_t *rec, cn_wire_op *out, cn_error *err);
/* cn_wire_decode of the JSON text TEXT (NUL-terminated; one JSON object, nothing after it, no
 * repeated member names). */
CN_API cn_status cn_wire_decode_string (const char *text, cn_wire_op *out, cn_error *err);
/* Frees what a decoded instance owns (its record, arrays and program graphs) and zeroes it.  A
 * zeroed cn_wire_op may be cleared; NULL is allowed. */
CN_API void cn_wire_op_clear (cn_wire_op *w);

#ifdef __cplusplus
}
#endif
#endif
