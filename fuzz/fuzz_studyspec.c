/* fuzz_studyspec.c: study specs (xc_study_load, `crosscheck study -spec`).
 *
 * The spec's population.spec names "pulscan-table1.json", written beside the
 * input (a copy of Table 1's spec, embedded here); the registry holds the
 * reference searchers and dedisperser (what every build has).
 *
 * Properties of an accepted spec: at least one searcher, each with 1 to
 * XC_STUDY_MAX_CONFIGS configurations whose labels are distinct, start with
 * "zmax=" and pass the family's own option checks; an implementation of the
 * searcher's family; n >= 1; detection and baseline thresholds >= 0, a frequency
 * window in (0, 0.5]; and loading the same bytes again gives the same hash. */
#include <math.h>
#include <string.h>

#include "fuzz/fuzz_util.h"
#include "reference/xc_accel_ref.h"
#include "reference/xc_reference.h"
#include "study/xc_study.h"

static const char table1[] =
    "{\"fixed\": {\"nbits\": 8, \"nchans\": 16, \"tsamp_us\": 1000, \"tobs_s\": 4, \"fch1\": 1550, \"foff\": -4,"
    " \"binary\": true},"
    " \"draw\": {\"period_ms\": {\"dist\": \"loguniform\", \"lo\": 1, \"hi\": 10},"
    "  \"snrpeak\": {\"dist\": \"loguniform\", \"lo\": 0.01, \"hi\": 0.1},"
    "  \"dm\": {\"dist\": \"loguniform\", \"lo\": 10, \"hi\": 100},"
    "  \"bper_h\": {\"dist\": \"loguniform\", \"lo\": 1, \"hi\": 10}}}";

static xc_registry *registry(void)
{
    static xc_registry *reg;
    xc_error e;
    if (!reg && xc_registry_create(&reg, &e) == XC_OK) {
        xc_registry_add(reg, &xc_dd_reference.impl, &e);
        xc_registry_add(reg, &xc_ps_reference.impl, &e);
        xc_registry_add(reg, &xc_accel_reference.impl, &e);
    }
    return reg;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    xc_fuzz_input("pulscan-table1.json", (const uint8_t *)table1, sizeof table1 - 1);
    const char *path = xc_fuzz_input("in.study.json", data, size);
    xc_registry *reg = registry();
    if (!reg)
        return 0;
    xc_study st;
    xc_error e;
    if (xc_study_load(&st, path, reg, &e) != XC_OK)
        return 0;
    XC_FUZZ_CHECK(st.ns >= 1 && st.n >= 1, "study: %zu searchers, n %llu accepted", st.ns,
                  (unsigned long long)st.n);
    XC_FUZZ_CHECK(st.det_sigma >= 0 && st.det_ftol > 0 && st.det_ftol <= 0.5, "study: detection %g sigma, ftol %g",
                  st.det_sigma, st.det_ftol);
    XC_FUZZ_CHECK(st.base_sigma >= 0 && isfinite(st.base_sigma), "study: baseline sigma %g", st.base_sigma);
    for (size_t k = 0; k < st.ns; k++) {
        const xc_study_searcher *s = &st.s[k];
        XC_FUZZ_CHECK(s->impl && s->impl->family == s->family, "study: searcher %s: no implementation of its family",
                      s->name);
        XC_FUZZ_CHECK(s->ncfg >= 1 && s->ncfg <= XC_STUDY_MAX_CONFIGS, "study: searcher %s: %zu configurations",
                      s->name, s->ncfg);
        for (size_t c = 0; c < s->ncfg; c++) {
            XC_FUZZ_CHECK(!strncmp(s->cfg[c].label, "zmax=", 5), "study: label '%s'", s->cfg[c].label);
            XC_FUZZ_CHECK(s->cfg[c].opts.family == s->family, "study: %s %s: options of another family", s->name,
                          s->cfg[c].label);
            xc_status ok = xc_psearch_opts_check(&s->cfg[c].opts, &e);
            XC_FUZZ_CHECK(ok == XC_OK, "study: %s %s accepted but its options fail: %s", s->name, s->cfg[c].label,
                          e.msg);
            for (size_t c2 = c + 1; c2 < s->ncfg; c2++)
                XC_FUZZ_CHECK(strcmp(s->cfg[c].label, s->cfg[c2].label), "study: %s: label '%s' twice", s->name,
                              s->cfg[c].label);
        }
    }
    xc_study again;
    XC_FUZZ_CHECK(xc_study_load(&again, path, reg, &e) == XC_OK, "study: accepted once, refused again: %s", e.msg);
    XC_FUZZ_CHECK(again.hash == st.hash, "study: two loads of the same bytes, hashes %llx and %llx",
                  (unsigned long long)st.hash, (unsigned long long)again.hash);
    xc_study_free(&again);
    xc_study_free(&st);
    return 0;
}
