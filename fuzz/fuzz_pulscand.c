/* fuzz_pulscand.c: Pulscan's .pulscand candidate files
 * (xc_cands_read_pulscand, T = 100 s).  Properties: cands_props.h. */
#include "core/search/xc_cands.h"
#include "fuzz/cands_props.h"
#include "fuzz/fuzz_util.h"

/* The .pulscand reader at T = 100 s. */
static xc_status read_pulscand(xc_candlist *l, const char *path, xc_error *err)
{
    return xc_cands_read_pulscand(l, path, 100.0, err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    xc_fuzz_cands_read("pulscand", xc_fuzz_input("in.pulscand", data, size), read_pulscand);
    return 0;
}
