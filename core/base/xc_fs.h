/* xc_fs.h: the file-system chores every layer has: make a folder and its
 * parents (mkdir -p), remove a tree (rm -rf, never following links out of
 * it), and paths built without silent cuts: a path that does not fit is an
 * error naming it, never a shorter path that names another file. */
#ifndef XC_FS_H
#define XC_FS_H

#include <stddef.h>

#include "core/base/xc_error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* mkdir -p path (mode 0777 before the umask).  Trailing slashes are ignored.
 * XC_EINVAL for an empty path, XC_EIO naming the component that could not be
 * created, or the path when it exists and is not a folder. */
xc_status xc_mkdirs(const char *path, xc_error *err);

/* The same, and *first_new gets the length of the first component it created
 * (0 when every one existed), so that xc_rmdirs_new can undo exactly that. */
xc_status xc_mkdirs_new(const char *path, size_t *first_new, xc_error *err);
/* Removes the (empty) folders xc_mkdirs_new created along path, deepest
 * first; stops at the first that will not go. */
void xc_rmdirs_new(const char *path, size_t first_new);

/* rm -rf path: children first, links removed and not followed.  XC_OK when
 * path does not exist; XC_EIO naming it otherwise. */
xc_status xc_rmtree(const char *path, xc_error *err);

/* printf into buf[0..n) for a path: XC_EINVAL naming the whole path when it
 * does not fit (buf then holds "", so a cut path is never used). */
xc_status xc_pathf(char *buf, size_t n, xc_error *err, const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* A path that grows as it is written (never cut).  Zero-initialise it
 * (XC_PATH_INIT); s is "" until something is written, then the path. */
typedef struct {
    char *s;
    size_t len, cap;
} xc_path;
#define XC_PATH_INIT {0}

/* Sets p to printf(fmt, ...).  XC_ENOMEM (p unchanged).  The arguments must
 * not point into p itself. */
xc_status xc_path_setf(xc_path *p, xc_error *err, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Appends printf(fmt, ...) to p.  XC_ENOMEM (p unchanged). */
xc_status xc_path_addf(xc_path *p, xc_error *err, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* The path, "" when nothing was written. */
const char *xc_path_str(const xc_path *p);
void xc_path_free(xc_path *p);

/* path as given when absolute, else base/path, into buf[0..n) (xc_pathf). */
xc_status xc_path_under(char *buf, size_t n, const char *base, const char *path, xc_error *err);

#ifdef __cplusplus
}
#endif
#endif
