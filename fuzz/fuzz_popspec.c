/* fuzz_popspec.c: population specs (xc_popspec_load, `crosscheck
 * population -spec`).
 *
 * Properties of an accepted spec: every drawn field has finite lo <= hi
 * (lo > 0 for log-uniform); and its use: pulsars 0 and 1 of seed 1
 * (xc_popspec_pulsar) are either refused after XC_POP_MAX_ATTEMPTS rejected
 * draws or have parameters that pass xc_synth_params_check. */
#include <math.h>

#include "fuzz/fuzz_util.h"
#include "synth/population/xc_population.h"
#include "synth/model/xc_synth.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = xc_fuzz_input("in.pop.json", data, size);
    xc_popspec s;
    xc_error e;
    if (xc_popspec_load(&s, path, &e) != XC_OK)
        return 0;
    for (size_t i = 0; i < s.ndraw; i++) {
        const xc_popdraw *d = &s.draw[i];
        XC_FUZZ_CHECK(isfinite(d->lo) && isfinite(d->hi) && d->lo <= d->hi, "popspec: %s: lo %g hi %g accepted",
                      d->field, d->lo, d->hi);
        XC_FUZZ_CHECK(d->dist != XC_DIST_LOGUNIFORM || d->lo > 0, "popspec: %s: log-uniform from %g accepted",
                      d->field, d->lo);
    }
    for (uint64_t i = 0; i < 2; i++) {
        xc_synth_params p;
        int attempts = 0;
        if (xc_popspec_pulsar(&s, 1, i, &p, &attempts, &e) == XC_OK) {
            XC_FUZZ_CHECK(attempts >= 1 && attempts <= XC_POP_MAX_ATTEMPTS, "popspec: %d attempts", attempts);
            XC_FUZZ_CHECK(xc_synth_params_check(&p, "popspec", &e) == XC_OK,
                          "popspec: pulsar %llu drawn from an accepted spec is invalid: %s", (unsigned long long)i,
                          e.msg);
            xc_synth_params_free(&p);
        }
    }
    xc_popspec_free(&s);
    return 0;
}
