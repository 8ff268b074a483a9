/* SPDX-License-Identifier: MIT */
/* src/core/assert.h: the debug tier of internal checks (internal).
 *
 * The library never aborts on anything a caller can give it: bad input is a status with a
 * message, checked where it enters (the graph builder, the readers, the public entry points).
 * What has been established there is an invariant, not input: every arm receives tensors, boxes
 * and MPFI vectors of its node's shapes and sorts, since the builder checked the node and the
 * engines allocate from the graph.  Such invariants are stated with CN__ASSERTD (COND) instead of
 * being re-validated in every arm.  With --enable-assertions (the test builds of tools/test.sh) a
 * false COND prints the condition, file and line on standard error and aborts, as MPFR's
 * MPFR_ASSERTD does; otherwise it compiles to nothing (COND is not evaluated, so it must have no
 * side effects). */
#ifndef CN_CORE_ASSERT_H
#define CN_CORE_ASSERT_H

#ifdef CN_ASSERTIONS
void cn__assert_fail (const char *cond, const char *file, int line) __attribute__ ((noreturn));
#define CN__ASSERTD(cond) ((cond) ? (void) 0 : cn__assert_fail (#cond, __FILE__, __LINE__))
#else
#define CN__ASSERTD(cond) ((void) sizeof ((cond) ? 1 : 0))
#endif

#endif
