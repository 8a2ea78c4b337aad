#include "core/base/xc_error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

xc_status xc_error_set(xc_error *err, xc_status code, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        err->code = code;
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
    }
    return code;
}

void xc_error_clear(xc_error *err)
{
    if (err) {
        err->code = XC_OK;
        err->msg[0] = '\0';
    }
}

const char *xc_strerror(xc_status code)
{
    static const char *const names[] = {
        "success", "invalid argument", "malformed input", "input/output error",
        "out of memory", "implementation unavailable", "inputs do not match",
        "device error",
    };
    if ((unsigned)code < sizeof names / sizeof names[0])
        return names[code];
    return "unknown error";
}

int xc_status_exit_code(xc_status code)
{
    /* Exit 1 is reserved for a verdict ("disagree"); every error is 2. */
    return code == XC_OK ? 0 : 2;
}
