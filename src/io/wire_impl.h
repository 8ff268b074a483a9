/* SPDX-License-Identifier: MIT */
/* src/io/wire_impl.h: the pieces of the wire codec (src/io/wire.c, certnn/wire.h) that IR
 * artifacts (src/io/artifact.c, doc/ARTIFACT.md) reuse: a program as custom's PROGRAM field writes
 * it, and a tensor as {"sort", "shape", "words"}.  Internal. */
#ifndef CN_IO_WIRE_IMPL_H
#define CN_IO_WIRE_IMPL_H

#include <jansson.h>
#include "certnn/wire.h"

/* The program G as {"inputs", "constants", "nodes", "outputs"} (certnn/wire.h, PROGRAM), in a
 * new object *OUT; messages start "wire: artifact: field 'program'". */
cn_status cn__wire_encode_program (const cn_graph *g, json_t **out, cn_error *err);
/* Decodes the program J with every check of the codec (each node's record, its inputs' sorts and
 * shapes against the values it reads, the rule's check) into a graph owned by OWNER (zeroed
 * first by the caller; release with cn_wire_op_clear), *G borrowing it. */
cn_status cn__wire_decode_program (const json_t *j, cn_wire_op *owner, const cn_graph **g, cn_error *err);
/* The tensor T as {"sort", "shape", "words"} (words as PROGRAM's constants write them); NULL when
 * out of memory. */
json_t *cn__wire_encode_tensor (const cn_tensor *t);
/* Reads {"sort", "shape", "words"} (exactly these members) into the new tensor *T, which the
 * caller clears; WHERE starts the messages.  On failure *T holds nothing. */
cn_status cn__wire_decode_tensor (const json_t *j, const char *where, cn_tensor *t, cn_error *err);

#endif
