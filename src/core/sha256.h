/* SPDX-License-Identifier: MIT */
/* src/core/sha256.h: SHA-256 (FIPS 180-4), for naming the network and the property a bound
 * certificate speaks of by their contents (internal).  No listed dependency provides it. */
#ifndef CN_CORE_SHA256_H
#define CN_CORE_SHA256_H

#include <stddef.h>
#include <stdint.h>

typedef struct cn__sha256
{
  uint32_t h[8];             /* the hash value so far */
  uint64_t bytes;            /* message length so far, in bytes */
  unsigned char block[64];   /* the block being filled */
  size_t fill;               /* its bytes so far (< 64) */
} cn__sha256;

void cn__sha256_init (cn__sha256 *s);
void cn__sha256_update (cn__sha256 *s, const void *data, size_t len);
/* Pads, writes the 32-byte digest into OUT, and leaves S to be initialised again. */
void cn__sha256_final (cn__sha256 *s, unsigned char out[32]);
/* The digest of LEN bytes at DATA as 64 lowercase hexadecimal digits and a NUL into HEX. */
void cn__sha256_hex (const void *data, size_t len, char hex[65]);

#endif
