/* xc_mem.h: refusing work that cannot fit before allocating for it.  A plan
 * whose tables or buffers would need more than the machine's memory is
 * refused with the size it needs and the option that avoids it, instead of
 * being found out by a failed (or, with overcommit, a swapping) allocation
 * halfway through. */
#ifndef XC_MEM_H
#define XC_MEM_H

#include "core/base/xc_error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Physical memory in bytes (sysconf), or 0 when unknown. */
double xc_mem_physical(void);
/* XC_ENOMEM when `bytes` exceed 90 % of physical memory: "<who>: <what>
 * would need X GB, the machine has Y GB; <avoid>". */
xc_status xc_mem_check(double bytes, const char *who, const char *what, const char *avoid, xc_error *err);

#ifdef __cplusplus
}
#endif
#endif
