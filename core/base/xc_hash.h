/* xc_hash.h: a 64-bit checksum of files (FNV-1a's offset and prime over
 * 8-byte little-endian words, then the tail bytes), to tell whether a file
 * is the one a manifest was written with.  Not cryptographic: it detects
 * files replaced by another run, not tampering. */
#ifndef XC_HASH_H
#define XC_HASH_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "core/base/xc_error.h"

#ifdef __cplusplus
extern "C" {
#endif

#define XC_HASH_INIT 0xcbf29ce484222325ULL

uint64_t xc_hash64(uint64_t h, const void *p, size_t n);
/* The hash and length of fp's bytes from the start (fp is left at its end);
 * `name` for messages.  XC_EIO naming the byte offset of a read error. */
xc_status xc_hash_stream(FILE *fp, const char *name, uint64_t *hash, uint64_t *bytes, xc_error *err);

#ifdef __cplusplus
}
#endif
#endif
