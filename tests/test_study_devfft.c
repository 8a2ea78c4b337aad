/* The study's device-transform path (xc_study.fft_new/fft_run/fft_free,
 * study/search/study_pulsar.c), its plumbing checked without a device: the
 * hooks here transform with FFTW on the host (the same plan and bits as the
 * study's own FFT path), so the rows must be the rows of a study without
 * them, byte for byte, with a worker's cache and without one.  The hooks
 * also count: one transform made per worker (kept from pulsar to pulsar)
 * and one per series without a cache (made and freed), each series handed
 * over whole (its even length) from the worker's kept series buffer, the
 * same buffer every pulsar, allocated through the study's host_alloc (the
 * page-locked allocator in a device study). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/io/xc_fft.h"
#include "optimized/xc_impls.h"
#include "study/spec/study_internal.h"
#include "study/xc_study.h"
#include "tests/xc_fixture.h"
#include "tests/xc_test.h"

static struct {
    int made, freed, runs, allocs;
    const float *x[8];
    size_t n[8];
} seen;

static xc_status host_new(void **f, xc_error *err)
{
    (void)err;
    seen.made++;
    *f = &seen;
    return XC_OK;
}

static xc_status host_run(void *f, const float *x, size_t n, float *out, const float **dev, xc_error *err)
{
    (void)f;
    if (seen.runs < 8) {
        seen.x[seen.runs] = x;
        seen.n[seen.runs] = n;
    }
    seen.runs++;
    *dev = NULL;
    return xc_realfft_forward(x, n, XC_FFT_SINGLE, out, err);
}

static void host_free(void *f)
{
    (void)f;
    seen.freed++;
}

static xc_status count_alloc(void **p, size_t bytes, xc_error *err)
{
    seen.allocs++;
    *p = malloc(bytes);
    return *p ? XC_OK : xc_error_set(err, XC_ENOMEM, "out of memory");
}

static void load(xc_study *st, xc_registry **reg)
{
    const char *pop = xc_fx_tmp("pop-devfft.json");
    xc_fx_write_text(pop, "{\"fixed\": {\"nbits\": 8, \"nchans\": 64, \"tsamp_us\": 1000, \"tobs_s\": 8, "
                          "\"fch1\": 1500, \"foff\": -4, \"width_pct\": 45},"
                          " \"draw\": {\"period_ms\": {\"dist\": \"loguniform\", \"lo\": 20, \"hi\": 200},"
                          "            \"dm\": {\"dist\": \"uniform\", \"lo\": 10, \"hi\": 300},"
                          "            \"snrpeak\": {\"dist\": \"loguniform\", \"lo\": 0.1, \"hi\": 30}}}");
    const char *path = xc_fx_tmp("study-devfft.json");
    xc_fx_write_text(path, "{\"population\": {\"spec\": \"pop-devfft.json\", \"n\": 4, \"seed\": 3},"
                           " \"searchers\": [{\"name\": \"pulscan\", \"family\": \"pulscan\","
                           "                  \"sweep\": {\"zmax\": [0, 10], \"numharm\": [1, 2]}}]}");
    xc_error err;
    CU_ASSERT_EQUAL_FATAL(xc_registry_builtin(reg, &err), XC_OK);
    xc_status s = xc_study_load(st, path, *reg, &err);
    if (s)
        printf("\n%s\n", err.msg);
    CU_ASSERT_EQUAL_FATAL(s, XC_OK);
}

/* Pulsars 0..3's rows (one pulsar's lines joined), through a cache or not. */
static void rows_of(const xc_study *st, int cached, char **out)
{
    xc_error err;
    xc_study_cache *cache = NULL;
    if (cached)
        CU_ASSERT_EQUAL_FATAL(xc_study_cache_new(st, &cache, &err), XC_OK);
    for (uint64_t id = 0; id < 4; id++) {
        xc_study_rows r = {0};
        xc_status s = xc_study_pulsar_cached(st, cache, id, NULL, 1, &r, NULL, &err);
        if (s)
            printf("\npulsar %llu: %s\n", (unsigned long long)id, err.msg);
        CU_ASSERT_EQUAL_FATAL(s, XC_OK);
        CU_ASSERT_EQUAL(r.n, 4);   /* zmax 0, 10 x numharm 1, 2 */
        size_t len = 1;
        for (size_t k = 0; k < r.n; k++)
            len += strlen(r.r[k].line) + 1;
        CU_ASSERT_PTR_NOT_NULL_FATAL(out[id] = calloc(len, 1));
        for (size_t k = 0; k < r.n; k++)
            strcat(strcat(out[id], r.r[k].line), "\n");
        xc_study_rows_free(&r);
    }
    xc_study_cache_free(cache);
}

XC_TEST(test_study_devfft_plumbing, "study_devfft_plumbing")
{
    xc_study st;
    xc_registry *reg = NULL;
    load(&st, &reg);
    char *plain[4], *hooked[4], *once[4];
    rows_of(&st, 1, plain);
    st.fft_new = host_new;
    st.fft_run = host_run;
    st.fft_free = host_free;
    st.host_alloc = count_alloc;
    st.host_free = free;
    memset(&seen, 0, sizeof seen);
    rows_of(&st, 1, hooked);
    CU_ASSERT_EQUAL(seen.made, 1);
    CU_ASSERT_EQUAL(seen.freed, 1);
    CU_ASSERT_EQUAL(seen.runs, 4);
    CU_ASSERT_EQUAL(seen.allocs, 2);   /* the kept series and spectrum, once each */
    for (int k = 0; k < 4; k++) {
        CU_ASSERT(seen.n[k] > 7000 && seen.n[k] % 2 == 0);
        CU_ASSERT_PTR_EQUAL(seen.x[k], seen.x[0]);
    }
    memset(&seen, 0, sizeof seen);
    rows_of(&st, 0, once);
    CU_ASSERT_EQUAL(seen.made, 4);
    CU_ASSERT_EQUAL(seen.freed, 4);
    CU_ASSERT_EQUAL(seen.runs, 4);
    for (int id = 0; id < 4; id++) {
        CU_ASSERT_STRING_EQUAL(hooked[id], plain[id]);
        CU_ASSERT_STRING_EQUAL(once[id], plain[id]);
        if (strcmp(hooked[id], plain[id]))
            printf("\npulsar %d through the hooks:\n%sexpected\n%s", id, hooked[id], plain[id]);
        free(plain[id]);
        free(hooked[id]);
        free(once[id]);
    }
    xc_study_free(&st);
    xc_registry_destroy(reg);
}

XC_TEST_MAIN("study_devfft")
