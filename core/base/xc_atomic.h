/* xc_atomic.h: write a file under a temporary name and rename it into place,
 * so a failed run never leaves a half-written output behind. */
#ifndef XC_ATOMIC_H
#define XC_ATOMIC_H

#include <stdio.h>

#include "core/base/xc_error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    FILE *fp;
    char path[4096];
    char tmp[4200];
    int live;             /* its slot in the table of live temporaries, -1 if the table was full */
} xc_atomic;

/* Opens `path`.tmp.<pid>.<n> for writing ("wb"; "w+b" when rw is non-zero).
 * First removes `path`.tmp.<pid>.* left by processes that no longer exist
 * (a SIGKILL leaves its temporaries; the next write of the same output
 * clears them).  The temporary is listed (below) until commit or abort. */
xc_status xc_atomic_open(xc_atomic *a, const char *path, int rw, xc_error *err);
/* Flushes, closes and renames to the final path. */
xc_status xc_atomic_commit(xc_atomic *a, xc_error *err);
/* Closes and removes the temporary file. Safe to call twice. */
void xc_atomic_abort(xc_atomic *a);
/* Writes the n bytes of buf to path atomically (open, write, commit): on
 * error no file is left. */
xc_status xc_atomic_write(const char *path, const void *buf, size_t n, xc_error *err);

/* Removes every temporary this process has open (async-signal-safe: only
 * unlink(2) on a fixed table), for a SIGINT/SIGTERM handler; returns how
 * many it removed.  The table (XC_ATOMIC_LIVE entries; an output beyond it
 * is still written atomically, only not removed by a signal) is the one
 * piece of process-wide state of the I/O layer: a signal handler can reach
 * nothing else. */
#define XC_ATOMIC_LIVE 256
int xc_atomic_remove_live(void);
/* A working folder a command made for itself (gate's crosscheck-gate.XXXXXX),
 * removed with its contents by xc_atomic_remove_live too; NULL clears it.
 * One folder per process.  The handler removes it with `rm -rf` in a
 * forked child (fork, execve and waitpid are async-signal-safe; walking a
 * tree with readdir is not). */
void xc_atomic_live_dir(const char *dir);

#ifdef __cplusplus
}
#endif
#endif
