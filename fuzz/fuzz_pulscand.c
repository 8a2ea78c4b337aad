/* fuzz_pulscand.c: Pulscan's .pulscand candidate files
 * (xc_cands_read_pulscand, T = 100 s).  Properties: cands_props.h. */
#include "core/search/xc_cands.h"
#include "fuzz/cands_props.h"
#include "fuzz/fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = xc_fuzz_input("in.pulscand", data, size);
    xc_candlist l;
    xc_error e;
    xc_candlist_init(&l);
    if (xc_cands_read_pulscand(&l, path, 100.0, &e) == XC_OK)
        xc_fuzz_cands_props("pulscand", &l);
    else
        XC_FUZZ_CHECK(l.n == 0, "pulscand: refused, but %zu candidates left in the list", l.n);
    xc_candlist_free(&l);
    return 0;
}
