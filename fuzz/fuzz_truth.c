/* fuzz_truth.c: truth files (xc_truth_read, what `compare cands -truth`
 * reads: f0_hz or a period, r, z, tobs_s or nsamp * tsamp_s, at the top
 * level or under "pulsar", "truth" or "params").
 *
 * Properties of an accepted file: f0 finite and > 0; T finite and >= 0;
 * z finite; r finite (NaN only when neither the file nor the caller gives T
 * and the file has no r).  Read twice: once with the file's T, once with
 * T = 1000 s from the caller.  Read a third time with its single pulses
 * (xc_truth_load_pulses): each t_s, dm and width_ms finite, width_ms >= 0. */
#include <math.h>

#include "synth/truth/xc_truth.h"
#include "fuzz/fuzz_util.h"

static void check(const xc_truth *t)
{
    XC_FUZZ_CHECK(isfinite(t->f0_hz) && t->f0_hz > 0, "truth: f0 %g accepted", t->f0_hz);
    XC_FUZZ_CHECK(isfinite(t->T) && t->T >= 0, "truth: T %g accepted", t->T);
    XC_FUZZ_CHECK(isfinite(t->z), "truth: z %g accepted", t->z);
    XC_FUZZ_CHECK(isfinite(t->r) || (isnan(t->r) && t->T == 0 && !t->have_rz), "truth: r %g accepted (T %g)", t->r,
                  t->T);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = xc_fuzz_input("in.truth.json", data, size);
    xc_truth t;
    xc_error e;
    if (xc_truth_read(&t, path, 0, &e) == XC_OK)
        check(&t);
    if (xc_truth_read(&t, path, 1000.0, &e) == XC_OK)
        check(&t);
    if (xc_truth_load_pulses(&t, path, &e) == XC_OK) {
        XC_FUZZ_CHECK(t.npulses > 0 && t.pulses, "truth: %zu pulses accepted", t.npulses);
        for (size_t i = 0; i < t.npulses; i++) {
            const xc_truth_pulse *p = &t.pulses[i];
            XC_FUZZ_CHECK(isfinite(p->t_s) && isfinite(p->dm) && isfinite(p->width_ms) && p->width_ms >= 0,
                          "truth: pulse %zu t_s %g dm %g width_ms %g accepted", i, p->t_s, p->dm, p->width_ms);
        }
        xc_truth_free(&t);
    }
    return 0;
}
