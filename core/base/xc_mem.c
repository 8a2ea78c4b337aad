#include "core/base/xc_mem.h"

#include <unistd.h>

double xc_mem_physical(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGE_SIZE);
    return pages > 0 && size > 0 ? (double)pages * (double)size : 0;
}

xc_status xc_mem_check(double bytes, const char *who, const char *what, const char *avoid, xc_error *err)
{
    double phys = xc_mem_physical();
    if (phys > 0 && bytes > 0.9 * phys)
        return xc_error_set(err, XC_ENOMEM, "%s: %s would need %.3g GB, the machine has %.3g GB; %s", who, what,
                            bytes / 1e9, phys / 1e9, avoid);
    return XC_OK;
}
