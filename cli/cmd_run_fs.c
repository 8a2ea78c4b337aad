/* crosscheck run: the work folder, in C (no shell: a path with a quote or a
 * space must not change what runs). */
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cmd_run.h"
#include "core/base/xc_fmt.h"

xc_status run_mkdirs(const char *path, xc_error *err)
{
    char buf[4096];
    size_t n = strlen(path);
    if (!n || n >= sizeof buf)
        return xc_error_set(err, XC_EINVAL, "%s: empty or too long a path", path);
    memcpy(buf, path, n + 1);
    /* Every prefix ending before a '/', then the whole path (mkdir -p). */
    for (size_t i = 1; i <= n; i++) {
        if (i < n && buf[i] != '/')
            continue;
        buf[i] = '\0';
        if (mkdir(buf, 0777) && errno != EEXIST)
            return xc_error_set(err, XC_EIO, "%s: cannot create: %s", buf, strerror(errno));
        buf[i] = i < n ? '/' : '\0';
    }
    struct stat sb;
    if (stat(path, &sb) || !S_ISDIR(sb.st_mode))
        return xc_error_set(err, XC_EIO, "%s: not a directory", path);
    return XC_OK;
}

static int rm_one(const char *p, const struct stat *sb, int type, struct FTW *ftw)
{
    (void)sb;
    (void)type;
    (void)ftw;
    return remove(p) ? -1 : 0;
}

xc_status run_rmtree(const char *path, xc_error *err)
{
    struct stat sb;
    if (lstat(path, &sb) && errno == ENOENT)
        return XC_OK;
    /* Children first (FTW_DEPTH), never following links out of the tree (FTW_PHYS). */
    if (nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS))
        return xc_error_set(err, XC_EIO, "%s: cannot remove: %s", path, strerror(errno));
    return XC_OK;
}

void run_path(char *buf, size_t n, const char *base, const char *path)
{
    if (path[0] == '/')
        xc_fmt(buf, n, "%s", path);
    else
        xc_fmt(buf, n, "%s/%s", base, path);
}
