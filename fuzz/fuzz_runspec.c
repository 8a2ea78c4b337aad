/* fuzz_runspec.c: run specs (xc_runspec_load, `crosscheck run -spec`).
 *
 * Properties of an accepted spec: every DM plan it names parses
 * (xc_dmplan_parse); every synth object loads and passes
 * xc_synth_params_check; periodicity entries have zmax >= 0, numharm in
 * 1..32 and a finite sigma; the convention is a known preset. */
#include <math.h>

#include "compare/check/xc_runspec.h"
#include "core/dedisp/plan/xc_dmplan.h"
#include "fuzz/fuzz_util.h"
#include "synth/model/xc_synth.h"

static void plan_ok(const char *what, size_t i, const char *s)
{
    xc_dmplan p;
    xc_error e;
    XC_FUZZ_CHECK(xc_dmplan_parse(&p, s, "runspec", &e) == XC_OK, "runspec: %s[%zu]: dmplan accepted but %s", what, i,
                  e.msg);
    xc_dmplan_free(&p);
}

static void synth_ok(const char *what, size_t i, const json_t *o)
{
    xc_synth_params p;
    xc_error e;
    xc_synth_params_init(&p);
    XC_FUZZ_CHECK(xc_synth_params_from_json(&p, o, "runspec", &e) == XC_OK &&
                  xc_synth_params_check(&p, "runspec", &e) == XC_OK,
                  "runspec: %s[%zu]: synth accepted but %s", what, i, e.msg);
    xc_synth_params_free(&p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = xc_fuzz_input("in.run.json", data, size);
    xc_runspec s;
    xc_error e;
    if (xc_runspec_load(&s, path, &e) != XC_OK) {
        xc_runspec_free(&s);
        return 0;
    }
    XC_FUZZ_CHECK(s.convention && xc_convention_get(s.convention), "runspec: convention '%s' accepted",
                  s.convention ? s.convention : "(null)");
    for (size_t i = 0; i < s.nsyn; i++) {
        plan_ok("synthetic", i, s.syn[i].dmplan);
        synth_ok("synthetic", i, s.syn[i].synth);
    }
    for (size_t i = 0; i < s.nreal; i++)
        plan_ok("real", i, s.real[i].dmplan);
    for (size_t i = 0; i < s.nper; i++) {
        const xc_rs_periodicity *p = &s.per[i];
        XC_FUZZ_CHECK((p->fft != NULL) != (p->synth != NULL), "runspec: periodicity[%zu]: fft and synth", i);
        XC_FUZZ_CHECK(p->zmax >= 0 && p->numharm >= 1 && p->numharm <= 32 && isfinite(p->sigma),
                      "runspec: periodicity[%zu]: zmax %d numharm %d sigma %g accepted", i, p->zmax, p->numharm,
                      p->sigma);
        if (p->synth)
            synth_ok("periodicity", i, p->synth);
    }
    xc_runspec_free(&s);
    return 0;
}
