/* SPDX-License-Identifier: MIT */
/* certnn/proof.h: bound certificates, and their independent checker.
 *
 * `certnn verify --certificate FILE` (cn_verify_opts.certificate) writes, for an unsat verdict,
 * what the proof used: per case of the property, the tree of input splits and of relu-sign
 * splits and, at every node where a clause was refuted, the clause's row (a sum of the clause's
 * rows), the CROWN lower bound's input coefficients A and intercept C over the node's domain, the
 * claimed bound LOWER, the relu lower slopes (a policy, or per entry) and the beta multipliers of
 * the splits on its path that produced them.  cn_proof_check re-checks such a file against the
 * network and the property, sharing no code with the fast engines beyond the operators' MPFI arms
 * and their checker steps (the rules' proof hook):
 *   1. the file names the network and the property by their SHA-256 (cn_sha256_file of the
 *      files' bytes) and matches the property's shape;
 *   2. per case one root, whose box is the case's box as the property reader gives it; every
 *      other node is a child of an earlier node of its case: split along one axis at one point
 *      MID strictly inside the parent's box (below: [lo, MID], above: [MID, hi]), or on the sign of
 *      entry J of relaxed value Q (+: z_J >= 0, -: z_J <= 0), or a restart (the parent's domain,
 *      its only child); a node has no child (a leaf), two of one split with both sides, or one
 *      restart, so the leaves cover the case's box;
 *   3. at every leaf every clause of the case is refuted at the leaf or at an ancestor (its domain
 *      holds the leaf's), or the leaf or an ancestor is claimed empty;
 *   4. every node's boxes are re-derived over its domain in MPFI interval arithmetic: the
 *      operators' MPFI arms over its box, below a relu split intersected with the parent's boxes
 *      and cut at the split, and where the node's claimed boxes (its box lines) are not implied
 *      by that, a CROWN sweep with the file's slope policy; every claim must contain the
 *      re-derivation, and a domain claimed empty must re-derive an empty box;
 *   5. every refutation holds: the rows' sum C o(x) of the network's output is re-bounded by CROWN
 *      in MPFI (the relaxations reading the claimed boxes; the refutation's slopes; each split
 *      entry's coefficient lowered by sign x beta), giving intervals L and b with
 *      C o(x) >= L* . x + b* on the domain for exact reals L* in L, b* in b; then, evaluated in
 *      MPFI over the node's box B,
 *          inf ((L - A) . B + b - C) >= 0     (the claimed linear bound is implied),
 *          inf (A . B + C - LOWER) >= 0       (it gives the claimed bound), and
 *          inf (LOWER - sum of the rows' rhs) > 0   (the clause is refuted: no x of the domain
 *                                                     meets every row, as their sum would be <= it).
 * A certificate that fails any test is rejected with a message naming the line or the node and
 * what failed.
 *
 * The format (doc/CERTIFICATE.md), version 3, is text, one record per line, fields separated by
 * one space, floating numbers in C99 hexadecimal (%a; exact), integers in decimal:
 *     certnn-certificate 3
 *     network sha256 HEX
 *     property sha256 HEX
 *     bounds METHOD slope SLOPE            (crown or crown-ibp; adaptive, zero, one or ratio)
 *     shape inputs N outputs M cases K
 *     node CASE ID root
 *     node CASE ID PARENT AXIS MID below|above
 *     node CASE ID PARENT split Q J +|-
 *     node CASE ID PARENT restart
 *     empty                    (right after a node line: its domain is empty)
 *     box Q E_0 .. E_{n-1}     (relaxed value Q's box at the node: per entry '-' for hi <= 0,
 *                               '+' for lo >= 0, or LO,HI; one line per relaxed value, before
 *                               the refutations, on a node with refutations or a restart)
 *     refute CLAUSE ROWS SLOPE LOWER C A_0 .. A_{N-1}   (ROWS: row indices of the clause, "0,2")
 *     alpha R S_0 .. S_{n-1}   (after a refute line: relu R's lower slopes, '.' for SLOPE's)
 *     beta B_0 .. B_{d-1}      (after those: the multipliers of the path's d relu splits)
 *     end NODES REFUTATIONS
 * Node ids count from 0 in file order; a refute line belongs to the node line before it. */
#ifndef CERTNN_PROOF_H
#define CERTNN_PROOF_H

#include <stdint.h>
#include <stdio.h>
#include "certnn/graph.h"
#include "certnn/spec.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Version 4 names the semantics the certificate holds for (its "semantics real" line). */
#define CN_PROOF_VERSION 4

/* The SHA-256 (FIPS 180-4) of the N bytes at DATA as 64 lower-case hexadecimal digits and a NUL
 * into HEX. */
CN_API void cn_sha256_hex (const void *data, size_t n, char hex[65]);
/* The same of the file PATH; CN_EIO naming the file if it cannot be read. */
CN_API cn_status cn_sha256_file (const char *path, char hex[65], cn_error *err);

typedef struct cn_proof_opts
{
  int threads;          /* nodes checked in parallel (0: the OpenMP default) */
  long precision;       /* bits of the MPFI intervals (0: 64) */
} cn_proof_opts;

CN_API void cn_proof_opts_init (cn_proof_opts *o);

typedef struct cn_proof_result
{
  int accepted;         /* 1 when every test above passed */
  char reason[512];     /* when not accepted: what failed, naming the line or node */
  int64_t nodes, leaves, refutations;
  double seconds;
} cn_proof_result;

/* Checks the certificate read from F against G (one input, output 0 the property's Y) and SPEC,
 * NETWORK_SHA256 and PROPERTY_SHA256 being the SHA-256 of the files G and SPEC were read from
 * (as cn_sha256_file gives them).  RESULT says whether it is accepted, and why not.  The status
 * is CN_OK whenever the certificate was judged (accepted or not); CN_EUNSUPPORTED when a node
 * the network's output depends on has no MPFI arm or no checker step (the message names the
 * node and its operator), CN_ENOMEM, CN_EINVAL for bad arguments. */
CN_API cn_status cn_proof_check (const cn_graph *g, const cn_spec *spec, const char *network_sha256,
                                 const char *property_sha256, FILE *f, const cn_proof_opts *opts,
                                 cn_proof_result *result, cn_error *err);

#ifdef __cplusplus
}
#endif
#endif
