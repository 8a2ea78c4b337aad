/* xc_fmt.c: see xc_fmt.h. */
#include "core/base/xc_fmt.h"

#include <stdarg.h>
#include <stdio.h>

void xc_fmt(char *buf, size_t n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, n, fmt, ap);
    va_end(ap);
}
