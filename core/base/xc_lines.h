/* xc_lines.h: a text file read line by line, what every line-based reader
 * (candidate files of each tool) starts from. */
#ifndef XC_LINES_H
#define XC_LINES_H

#include "core/base/xc_error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Calls fn(user, line, lineno, err) for each line of path (numbered from 1,
 * "\n" and "\r" removed); the first failure ends the read and is returned.
 * XC_EIO naming path when it cannot be opened or read; XC_EFORMAT naming the
 * line when one holds a NUL byte (not a text file).  *nlines (may be NULL)
 * gets the number of lines read. */
xc_status xc_lines_each(const char *path, xc_status (*fn)(void *user, char *line, int lineno, xc_error *err),
                        void *user, int *nlines, xc_error *err);

#ifdef __cplusplus
}
#endif
#endif
