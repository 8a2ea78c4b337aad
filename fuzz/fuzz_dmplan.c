/* fuzz_dmplan.c: DM plans, as a -dmplan string (xc_dmplan_parse), as a
 * plan file (xc_dmplan_read: "lo hi step ds", "lo:hi:step:ds" or
 * AstroAccelerate's "range lo hi step inBin outBin" lines) and as a table
 * DDplan.py printed (xc_ddp_read), the same input given to each.
 *
 * Properties of an accepted plan:
 *  - 1..XC_DMPLAN_MAX_TRIALS trials in all, each range at least one;
 *  - every DM finite, ascending within a range and from range to range;
 *  - every downsample factor in 1..XC_DMPLAN_MAX_DS;
 *  - its use: the largest delay (xc_dmplan_max_delay) of a 4-channel
 *    1100-1400 MHz, 64 us geometry is computed or refused with an error,
 *    and is never negative (no overflow on the way). */
#include <math.h>
#include <stdlib.h>

#include "core/dedisp/plan/xc_ddplan_presto.h"
#include "core/dedisp/plan/xc_dmplan.h"
#include "fuzz/fuzz_util.h"

static void check(const char *what, const xc_dmplan *p)
{
    XC_FUZZ_CHECK(p->nranges >= 1, "%s: a plan of %d ranges accepted", what, p->nranges);
    size_t total = 0;
    double prev = -INFINITY;
    for (int k = 0; k < p->nranges; k++) {
        const xc_dmrange *r = &p->r[k];
        XC_FUZZ_CHECK(r->ds >= 1 && r->ds <= XC_DMPLAN_MAX_DS, "%s: range %d: downsample %d accepted", what, k, r->ds);
        XC_FUZZ_CHECK(r->ndm >= 1, "%s: range %d has no trials", what, k);
        for (size_t j = 0; j < r->ndm; j++) {
            XC_FUZZ_CHECK(isfinite(r->dms[j]) && r->dms[j] > prev, "%s: range %d trial %zu: DM %.17g after %.17g",
                          what, k, j, r->dms[j], prev);
            prev = r->dms[j];
        }
        total += r->ndm;
    }
    XC_FUZZ_CHECK(total == xc_dmplan_ndm(p) && total <= XC_DMPLAN_MAX_TRIALS, "%s: %zu trials accepted", what, total);
    const xc_geometry g = {4, 1400.0, -100.0, 64e-6};
    xc_error e;
    size_t n;
    const xc_convention *cv = xc_convention_list(&n);
    for (size_t i = 0; i < n; i++) {
        int64_t maxd = -1;
        if (xc_dmplan_max_delay(&cv[i], &g, p, &maxd, &e) == XC_OK)
            XC_FUZZ_CHECK(maxd >= 0, "%s: largest delay %lld (%s)", what, (long long)maxd, cv[i].name);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    xc_dmplan p;
    xc_error e;
    char *s = xc_fuzz_cstr(data, size);
    xc_dmplan_init(&p);
    if (xc_dmplan_parse(&p, s, "-dmplan", &e) == XC_OK)
        check("-dmplan", &p);
    xc_dmplan_free(&p);
    free(s);
    const char *path = xc_fuzz_input("in.dmplan", data, size);
    xc_dmplan_init(&p);
    if (xc_dmplan_read(&p, path, &e) == XC_OK)
        check("plan file", &p);
    xc_dmplan_free(&p);
    if (xc_ddp_read(&p, path, &e) == XC_OK)
        check("DDplan.py table", &p);
    xc_dmplan_free(&p);
    return 0;
}
