/* xc_fs.c: see xc_fs.h. */
#include "core/base/xc_fs.h"

#include <errno.h>
#include <ftw.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

xc_status xc_mkdirs_new(const char *path, size_t *first_new, xc_error *err)
{
    *first_new = 0;
    size_t n = path ? strlen(path) : 0;
    if (n == 0)
        return xc_error_set(err, XC_EINVAL, "cannot create a folder without a name");
    char *buf = malloc(n + 1);
    if (!buf)
        return xc_error_set(err, XC_ENOMEM, "%s: out of memory", path);
    memcpy(buf, path, n + 1);
    while (n > 1 && buf[n - 1] == '/')
        buf[--n] = '\0';
    /* Every prefix ending before a '/', then the whole path. */
    xc_status st = XC_OK;
    for (size_t i = 1; i <= n && !st; i++) {
        if (buf[i] != '/' && buf[i] != '\0')
            continue;
        char c = buf[i];
        buf[i] = '\0';
        if (mkdir(buf, 0777) == 0) {
            if (!*first_new)
                *first_new = i;
        } else if (errno != EEXIST) {
            st = xc_error_set(err, XC_EIO, "%s: cannot create directory %s: %s", path, buf, strerror(errno));
        }
        buf[i] = c;
    }
    struct stat sb;
    if (!st && (stat(buf, &sb) != 0 || !S_ISDIR(sb.st_mode)))
        st = xc_error_set(err, XC_EIO, "%s: not a directory", path);
    free(buf);
    return st;
}

xc_status xc_mkdirs(const char *path, xc_error *err)
{
    size_t first_new;
    return xc_mkdirs_new(path, &first_new, err);
}

void xc_rmdirs_new(const char *path, size_t first_new)
{
    char *buf = first_new ? strdup(path) : NULL;
    if (!buf)
        return;
    size_t n = strlen(buf);
    while (n > 1 && buf[n - 1] == '/')
        buf[--n] = '\0';
    while (n >= first_new && rmdir(buf) == 0) {
        char *slash = strrchr(buf, '/');
        if (!slash)
            break;
        *slash = '\0';
        n = strlen(buf);
    }
    free(buf);
}

static int rm_one(const char *p, const struct stat *sb, int type, struct FTW *ftw)
{
    (void)sb;
    (void)type;
    (void)ftw;
    return remove(p) ? -1 : 0;
}

xc_status xc_rmtree(const char *path, xc_error *err)
{
    struct stat sb;
    if (lstat(path, &sb) && errno == ENOENT)
        return XC_OK;
    /* Children first (FTW_DEPTH), never following links out of the tree (FTW_PHYS). */
    if (nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS))
        return xc_error_set(err, XC_EIO, "%s: cannot remove: %s", path, strerror(errno));
    return XC_OK;
}

xc_status xc_pathf(char *buf, size_t n, xc_error *err, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(buf, n, fmt, ap);
    va_end(ap);
    if (k >= 0 && (size_t)k < n)
        return XC_OK;
    if (n)
        buf[0] = '\0';
    char *whole = NULL;
    va_start(ap, fmt);
    int m = vasprintf(&whole, fmt, ap);
    va_end(ap);
    xc_status st = xc_error_set(err, XC_EINVAL, "%s: path of %d bytes, longer than the %zu this place holds",
                                m >= 0 ? whole : fmt, m, n ? n - 1 : 0);
    if (m >= 0)
        free(whole);
    return st;
}

static xc_status vadd(xc_path *p, size_t at, xc_error *err, const char *fmt, va_list ap)
{
    va_list aq;
    va_copy(aq, ap);
    int k = vsnprintf(NULL, 0, fmt, aq);
    va_end(aq);
    if (k < 0)
        return xc_error_set(err, XC_EINVAL, "%s: cannot format the path", fmt);
    size_t need = at + (size_t)k + 1;
    if (need > p->cap) {
        size_t cap = p->cap ? p->cap : 64;
        while (cap < need)
            cap *= 2;
        char *s = realloc(p->s, cap);
        if (!s)
            return xc_error_set(err, XC_ENOMEM, "out of memory for a path of %zu bytes", need);
        p->s = s;
        p->cap = cap;
    }
    vsnprintf(p->s + at, p->cap - at, fmt, ap);
    p->len = at + (size_t)k;
    return XC_OK;
}

xc_status xc_path_setf(xc_path *p, xc_error *err, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    xc_status st = vadd(p, 0, err, fmt, ap);
    va_end(ap);
    return st;
}

xc_status xc_path_addf(xc_path *p, xc_error *err, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    xc_status st = vadd(p, p->len, err, fmt, ap);
    va_end(ap);
    return st;
}

const char *xc_path_str(const xc_path *p) { return p->s ? p->s : ""; }

void xc_path_free(xc_path *p)
{
    free(p->s);
    *p = (xc_path)XC_PATH_INIT;
}

xc_status xc_path_under(char *buf, size_t n, const char *base, const char *path, xc_error *err)
{
    if (path[0] == '/')
        return xc_pathf(buf, n, err, "%s", path);
    return xc_pathf(buf, n, err, "%s/%s", base, path);
}
