/* fuzz_cands_csv.c: our candidate CSV (xc_cands_read_csv), both forms (with
 * and without w).  Properties: cands_props.h (every candidate in range, CSV
 * write-then-read identity, .pulscand fixed point). */
#include "core/search/xc_cands.h"
#include "fuzz/cands_props.h"
#include "fuzz/fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = xc_fuzz_input("in.csv", data, size);
    xc_candlist l;
    xc_error e;
    xc_candlist_init(&l);
    if (xc_cands_read_csv(&l, path, &e) == XC_OK)
        xc_fuzz_cands_props("csv", &l);
    else
        XC_FUZZ_CHECK(l.n == 0, "csv: refused, but %zu candidates left in the list", l.n);
    xc_candlist_free(&l);
    return 0;
}
