/* fuzz_accel.c: PRESTO _ACCEL_<zmax>[_JERK_<wmax>] candidate tables
 * (xc_cands_read_accel).  Properties: cands_props.h. */
#include "core/search/xc_cands.h"
#include "fuzz/cands_props.h"
#include "fuzz/fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    xc_fuzz_cands_read("accel", xc_fuzz_input("in_ACCEL_200", data, size), xc_cands_read_accel);
    return 0;
}
