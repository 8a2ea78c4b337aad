/* cli_memory.c: see cli_memory.h. */
#include "cli/base/cli_memory.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

xc_status xc_cli_parse_bytes(const char *val, double *bytes)
{
    char *end;
    double v = strtod(val, &end);
    double mul = 1;
    switch (*end) {
    case 'k': case 'K': mul = 1024.0; end++; break;
    case 'm': case 'M': mul = 1024.0 * 1024; end++; break;
    case 'g': case 'G': mul = 1024.0 * 1024 * 1024; end++; break;
    case 't': case 'T': mul = 1024.0 * 1024 * 1024 * 1024; end++; break;
    default: break;
    }
    if (*end == 'i' || *end == 'B')   /* "4GiB", "4GB" read as 4G */
        end += *end == 'i' ? 1 : 0;
    if (*end == 'B')
        end++;
    if (end == val || *end || !isfinite(v) || !(v > 0))
        return XC_EINVAL;
    *bytes = v * mul;
    return XC_OK;
}

xc_status xc_cli_opt_bytes(const xc_opt *o, const char *opt, const char *val, xc_error *err)
{
    if (xc_cli_parse_bytes(val, o->dest))
        return xc_error_set(err, XC_EINVAL, "%s: '%s': expected a size in bytes > 0, with an optional K, M or G "
                                            "suffix (4G, 512M)", opt, val);
    return XC_OK;
}
