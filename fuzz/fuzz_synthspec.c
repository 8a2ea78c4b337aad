/* fuzz_synthspec.c: synth parameter files (xc_synth_params_load, `crosscheck
 * synth -spec`, and the "synth" objects of run and population specs).
 *
 * A file may hold only some fields (command-line options may follow it), so
 * loading does not check the whole set: xc_synth_params_check does, as the
 * commands call it.  Properties of parameters that load and pass that
 * check: the JSON the library
 * writes for them (xc_synth_params_to_json, as truth files record them)
 * loads back into parameters that write the same JSON: write-then-read is
 * the identity, except tsamp: the file holds microseconds and the
 * synthesizer seconds (tsamp_us * 1e-6, as the -tsamp option), so tsamp may
 * move by a few units in the last place per round trip (measured: 100 us
 * reads back as 99.999999999999986 us); it must stay within 1e-15 relative. */
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz/fuzz_util.h"
#include "synth/model/xc_synth.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = xc_fuzz_input("in.synth.json", data, size);
    xc_synth_params p, q;
    xc_error e;
    xc_synth_params_init(&p);
    if (xc_synth_params_load(&p, path, NULL, &e) != XC_OK) {
        xc_synth_params_free(&p);
        return 0;
    }
    if (xc_synth_params_check(&p, "synthspec", &e) != XC_OK) {
        xc_synth_params_free(&p);
        return 0;
    }
    json_t *j = xc_synth_params_to_json(&p);
    XC_FUZZ_CHECK(j != NULL, "synthspec: no JSON for accepted parameters");
    xc_synth_params_init(&q);
    XC_FUZZ_CHECK(xc_synth_params_from_json(&q, j, "synthspec written", &e) == XC_OK,
                  "synthspec: the JSON written does not load: %s", e.msg);
    XC_FUZZ_CHECK(fabs(q.tsamp - p.tsamp) <= 1e-15 * p.tsamp, "synthspec: tsamp %.17g reads back as %.17g", p.tsamp,
                  q.tsamp);
    json_t *k = xc_synth_params_to_json(&q);
    json_object_del(j, "tsamp_us");
    if (k)
        json_object_del(k, "tsamp_us");
    char *a = json_dumps(j, JSON_SORT_KEYS | JSON_REAL_PRECISION(17));
    char *b = k ? json_dumps(k, JSON_SORT_KEYS | JSON_REAL_PRECISION(17)) : NULL;
    XC_FUZZ_CHECK(a && b && !strcmp(a, b), "synthspec: write-then-read changes the parameters:\n%s\n%s", a ? a : "",
                  b ? b : "");
    free(a);
    free(b);
    json_decref(j);
    json_decref(k);
    xc_synth_params_free(&q);
    xc_synth_params_free(&p);
    return 0;
}
