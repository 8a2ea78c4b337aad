#include "core/xc_atomic.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

xc_status xc_atomic_open(xc_atomic *a, const char *path, int rw, xc_error *err)
{
    /* A counter keeps two outputs of one process apart; it holds no state a
     * kernel reads, only a unique suffix. */
    static atomic_uint serial;
    unsigned n = atomic_fetch_add(&serial, 1u);
    memset(a, 0, sizeof *a);
    if (strlen(path) >= sizeof a->path)
        return xc_error_set(err, XC_EINVAL, "%s: path too long", path);
    strcpy(a->path, path);
    snprintf(a->tmp, sizeof a->tmp, "%s.tmp.%ld.%u", path, (long)getpid(), n);
    a->fp = fopen(a->tmp, rw ? "w+b" : "wb");
    if (!a->fp)
        return xc_error_set(err, XC_EIO, "%s: cannot create: %s", path, strerror(errno));
    return XC_OK;
}

xc_status xc_atomic_commit(xc_atomic *a, xc_error *err)
{
    int bad = 0;
    if (!a->fp)
        return xc_error_set(err, XC_EIO, "%s: not open", a->path);
    if (fflush(a->fp) != 0 || ferror(a->fp))
        bad = errno ? errno : EIO;
    if (fclose(a->fp) != 0 && !bad)
        bad = errno ? errno : EIO;
    a->fp = NULL;
    if (bad) {
        remove(a->tmp);
        return xc_error_set(err, XC_EIO, "%s: write failed: %s", a->path, strerror(bad));
    }
    if (rename(a->tmp, a->path) != 0) {
        int e = errno;
        remove(a->tmp);
        return xc_error_set(err, XC_EIO, "%s: cannot rename from %s: %s", a->path, a->tmp,
                            strerror(e));
    }
    return XC_OK;
}

void xc_atomic_abort(xc_atomic *a)
{
    if (a->fp) {
        fclose(a->fp);
        a->fp = NULL;
        remove(a->tmp);
    }
}
