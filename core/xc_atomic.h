/* xc_atomic.h: write a file under a temporary name and rename it into place,
 * so a failed run never leaves a half-written output behind. */
#ifndef XC_ATOMIC_H
#define XC_ATOMIC_H

#include <stdio.h>

#include "core/xc_error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    FILE *fp;
    char path[4096];
    char tmp[4200];
} xc_atomic;

/* Opens `path`.tmp.<pid>.<n> for writing ("wb"; "w+b" when rw is non-zero). */
xc_status xc_atomic_open(xc_atomic *a, const char *path, int rw, xc_error *err);
/* Flushes, closes and renames to the final path. */
xc_status xc_atomic_commit(xc_atomic *a, xc_error *err);
/* Closes and removes the temporary file. Safe to call twice. */
void xc_atomic_abort(xc_atomic *a);

#ifdef __cplusplus
}
#endif
#endif
