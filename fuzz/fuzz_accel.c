/* fuzz_accel.c: PRESTO _ACCEL_<zmax>[_JERK_<wmax>] candidate tables
 * (xc_cands_read_accel).  Properties: cands_props.h. */
#include "core/search/xc_cands.h"
#include "fuzz/cands_props.h"
#include "fuzz/fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = xc_fuzz_input("in_ACCEL_200", data, size);
    xc_candlist l;
    xc_error e;
    xc_candlist_init(&l);
    if (xc_cands_read_accel(&l, path, &e) == XC_OK)
        xc_fuzz_cands_props("accel", &l);
    else
        XC_FUZZ_CHECK(l.n == 0, "accel: refused, but %zu candidates left in the list", l.n);
    xc_candlist_free(&l);
    return 0;
}
