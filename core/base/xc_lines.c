/* xc_lines.c: a text file read line by line (core/base/xc_lines.h). */
#include "core/base/xc_lines.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

xc_status xc_lines_each(const char *path, xc_status (*fn)(void *user, char *line, int lineno, xc_error *err),
                        void *user, int *nlines, xc_error *err)
{
    if (nlines)
        *nlines = 0;
    FILE *fp = fopen(path, "r");
    if (!fp)
        return xc_error_set(err, XC_EIO, "%s: cannot open: %s", path, strerror(errno));
    char *line = NULL;
    size_t cap = 0;
    int lineno = 0;
    xc_status st = XC_OK;
    for (ssize_t len; !st && (len = getline(&line, &cap, fp)) != -1;) {
        lineno++;
        /* a NUL byte would end the line early, silently dropping its tail */
        if (strlen(line) != (size_t)len) {
            st = xc_error_set(err, XC_EFORMAT, "%s: line %d: holds a NUL byte (not a text file)", path, lineno);
            break;
        }
        while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
            line[--len] = '\0';
        st = fn(user, line, lineno, err);
    }
    if (!st && ferror(fp))
        st = xc_error_set(err, XC_EIO, "%s: read failed: %s", path, strerror(errno));
    free(line);
    fclose(fp);
    if (nlines)
        *nlines = lineno;
    return st;
}
