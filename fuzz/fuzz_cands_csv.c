/* fuzz_cands_csv.c: our candidate CSV (xc_cands_read_csv), both forms (with
 * and without w).  Properties: cands_props.h (every candidate in range, CSV
 * write-then-read identity, .pulscand fixed point). */
#include "core/search/xc_cands.h"
#include "fuzz/cands_props.h"
#include "fuzz/fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    xc_fuzz_cands_read("csv", xc_fuzz_input("in.csv", data, size), xc_cands_read_csv);
    return 0;
}
