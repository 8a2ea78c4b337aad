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

void xc_fmt_bytes(char *buf, size_t n, double b)
{
    if (b >= 1024.0 * 1024 * 1024)
        xc_fmt(buf, n, "%.2f GiB", b / (1024.0 * 1024 * 1024));
    else if (b >= 1024.0 * 1024)
        xc_fmt(buf, n, "%.1f MiB", b / (1024.0 * 1024));
    else
        xc_fmt(buf, n, "%.1f KiB", b / 1024.0);
}
