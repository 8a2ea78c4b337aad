/* Plane files (.json + .npy), streaming dedispersion, and no output on failure. */
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "reference/xc_reference.h"
#include "optimized/cpu/xc_cpu.h"
#include "core/dedisp/run/xc_ddstream.h"
#include "core/io/xc_npy.h"
#include "core/dedisp/run/xc_planefile.h"
#include "tests/xc_fixture.h"
#include "tests/xc_test.h"

XC_TEST(test_npy_roundtrip, "npy round trip and header alignment")
{
    char path[512];
    snprintf(path, sizeof path, "%s/a.npy", xc_test_tmpdir());
    float v[3 * 5];
    for (int i = 0; i < 15; i++)
        v[i] = (float)i * 0.5f - 3.0f;
    xc_error e;
    CU_ASSERT_EQUAL_FATAL(xc_npy_write_f32(path, v, 3, 5, &e), XC_OK);
    FILE *fp = fopen(path, "rb");
    CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
    unsigned char hdr[10];
    CU_ASSERT_EQUAL(fread(hdr, 1, 10, fp), 10u);
    fseek(fp, 0, SEEK_END);
    long size = ftell(fp);
    fclose(fp);
    CU_ASSERT(memcmp(hdr, "\x93NUMPY\x01\x00", 8) == 0);
    size_t hlen = hdr[8] | ((size_t)hdr[9] << 8);
    CU_ASSERT_EQUAL((10 + hlen) % 64, 0u);            /* numpy aligns data to 64 bytes */
    CU_ASSERT_EQUAL((size_t)size, 10 + hlen + 15 * sizeof(float));
    float *back;
    size_t r, c;
    CU_ASSERT_EQUAL_FATAL(xc_npy_read_f32(path, &back, &r, &c, &e), XC_OK);
    CU_ASSERT_EQUAL(r, 3u);
    CU_ASSERT_EQUAL(c, 5u);
    CU_ASSERT(memcmp(back, v, sizeof v) == 0);
    free(back);
    /* not a .npy */
    snprintf(path, sizeof path, "%s/bad.npy", xc_test_tmpdir());
    fp = fopen(path, "wb");
    fputs("hello world, not numpy", fp);
    fclose(fp);
    CU_ASSERT_EQUAL(xc_npy_read_f32(path, &back, &r, &c, &e), XC_EFORMAT);
    CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "bad.npy"));
}

/* Random 8-bit filterbank, written with the SIGPROC writer. */
static void write_fil(const char *path, int nchans, size_t nsamp, int nbits, unsigned seed)
{
    xc_fbheader h;
    xc_fbheader_init(&h);
    snprintf(h.source_name, sizeof h.source_name, "planefile test");
    h.nchans = nchans;
    h.nbits = nbits;
    h.nifs = 1;
    h.tsamp = 128e-6;
    h.fch1 = 1500.0;
    h.foff = -2.0;
    h.tstart = 60000.0;
    h.data_type = 1;
    xc_fbkey keys[] = {XC_FB_SOURCE_NAME, XC_FB_DATA_TYPE, XC_FB_FCH1, XC_FB_FOFF, XC_FB_NCHANS,
                       XC_FB_NBITS, XC_FB_TSTART, XC_FB_TSAMP, XC_FB_NIFS};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        xc_fbheader_set(&h, keys[i]);
    xc_fbwriter *w;
    xc_error e;
    CU_ASSERT_EQUAL_FATAL(xc_fbwriter_open(&w, path, &h, XC_BITORDER_LSB, &e), XC_OK);
    uint16_t *v = malloc(nsamp * (size_t)nchans * sizeof *v);
    srand(seed);
    for (size_t i = 0; i < nsamp * (size_t)nchans; i++)
        v[i] = (uint16_t)(rand() % (1 << nbits));
    CU_ASSERT_EQUAL(xc_fbwriter_write_u16(w, v, nsamp, &e), XC_OK);
    CU_ASSERT_EQUAL(xc_fbwriter_commit(w, &e), XC_OK);
    free(v);
    xc_fbheader_free(&h);
}

XC_TEST(test_plane_write_read, "plane write then read")
{
    char out[512], json[600];
    snprintf(out, sizeof out, "%s/pw", xc_test_tmpdir());
    snprintf(json, sizeof json, "%s.json", out);
    xc_dmplan plan;
    xc_error e;
    CU_ASSERT_EQUAL_FATAL(xc_dmplan_parse(&plan, "0:3:1:1,3:5:0.5:2", "test", &e), XC_OK);
    xc_plane pl = {2, calloc(2, sizeof(xc_planerange))};
    for (int k = 0; k < 2; k++) {
        pl.r[k].ds = plan.r[k].ds;
        pl.r[k].ndm = plan.r[k].ndm;
        pl.r[k].nsamp = (size_t)(10 / pl.r[k].ds);
        pl.r[k].data = malloc(pl.r[k].ndm * pl.r[k].nsamp * sizeof(float));
        for (size_t i = 0; i < pl.r[k].ndm * pl.r[k].nsamp; i++)
            pl.r[k].data[i] = (float)(k * 1000 + (int)i);
    }
    xc_planemeta m;
    memset(&m, 0, sizeof m);
    strcpy(m.impl, "reference");
    strcpy(m.convention, "sigproc");
    strcpy(m.cmdline, "crosscheck test");
    m.nbits = 8;
    m.nchans = 4;
    m.nchans_used = 3;
    m.tsamp = 64e-6;
    m.fch1 = 1400;
    m.foff = -1;
    CU_ASSERT_EQUAL_FATAL(xc_plane_write(out, &pl, &plan, &m, &e), XC_OK);
    xc_planefile pf;
    CU_ASSERT_EQUAL_FATAL(xc_planefile_read(&pf, json, &e), XC_OK);
    CU_ASSERT_STRING_EQUAL(pf.meta.impl, "reference");
    CU_ASSERT_STRING_EQUAL(pf.meta.convention, "sigproc");
    CU_ASSERT_EQUAL(pf.meta.nchans_used, 3);
    CU_ASSERT_EQUAL(pf.plan.nranges, 2);
    CU_ASSERT_EQUAL(pf.plan.r[0].ndm, 3u);
    CU_ASSERT_EQUAL(pf.plan.r[1].ndm, 4u);
    CU_ASSERT_EQUAL(pf.plan.r[1].ds, 2);
    XC_ASSERT_CLOSE(pf.plan.r[1].dms[3], 4.5, 1e-12);
    XC_ASSERT_CLOSE(pf.freqs[3], 1397.0, 1e-12);
    for (int k = 0; k < 2; k++) {
        CU_ASSERT_EQUAL(pf.plane.r[k].nsamp, pl.r[k].nsamp);
        CU_ASSERT(memcmp(pf.plane.r[k].data, pl.r[k].data, pl.r[k].ndm * pl.r[k].nsamp * sizeof(float)) == 0);
    }
    xc_planefile_free(&pf);
    xc_plane_free(&pl);
    xc_dmplan_free(&plan);
    CU_ASSERT_EQUAL(xc_fx_count_prefix("pw.json.tmp"), 0);
}

/* Gulps of any size must give the same plane as one pass over the whole file. */
XC_TEST(test_stream_equals_whole, "streamed gulps equal one pass (reference and cpu)")
{
    char fil[512], out[512], json[600];
    snprintf(fil, sizeof fil, "%s/s.fil", xc_test_tmpdir());
    const int nchans = 61;
    const size_t nsamp = 3001;
    write_fil(fil, nchans, nsamp, 8, 5);
    xc_dmplan plan;
    xc_error e;
    CU_ASSERT_EQUAL_FATAL(xc_dmplan_parse(&plan, "0:40:2.5:1,40:80:5:2,80:120:10:3", "test", &e), XC_OK);
    const xc_convention *cv = xc_convention_get("crosscheck");
    /* whole file in memory, reference */
    xc_fbreader *r;
    CU_ASSERT_EQUAL_FATAL(xc_fbreader_open(&r, fil, NULL, &e), XC_OK);
    uint16_t *v = malloc(nsamp * nchans * sizeof *v);
    CU_ASSERT_EQUAL_FATAL(xc_fbreader_read_u16(r, 0, nsamp, 0, v, &e), XC_OK);
    xc_block blk = {nchans, nsamp, 8, v, NULL};
    xc_geometry g = {nchans, 1500.0, -2.0, 128e-6};
    xc_ddjob job;
    CU_ASSERT_EQUAL_FATAL(xc_ddjob_init(&job, &blk, &plan, cv, &g, NULL, &e), XC_OK);
    xc_plane whole;
    CU_ASSERT_EQUAL_FATAL(xc_plane_alloc(&whole, &job, &e), XC_OK);
    CU_ASSERT_EQUAL_FATAL(xc_dedisperse_reference(&job, &whole, &e), XC_OK);
    size_t gulps[] = {7, 12, 1000, 0};
    for (int impl = 0; impl < 2; impl++)
        for (size_t gi = 0; gi < sizeof gulps / sizeof gulps[0]; gi++) {
            snprintf(out, sizeof out, "%s/st%d_%zu", xc_test_tmpdir(), impl, gi);
            snprintf(json, sizeof json, "%s.json", out);
            xc_ddstream_args a;
            memset(&a, 0, sizeof a);
            a.impl = impl ? &xc_dd_cpu : &xc_dd_reference;
            a.conv = cv;
            a.plan = &plan;
            a.gulp = gulps[gi];
            a.input_name = fil;
            CU_ASSERT_EQUAL_FATAL(xc_dedisperse_stream(r, out, &a, NULL, &e), XC_OK);
            xc_planefile pf;
            CU_ASSERT_EQUAL_FATAL(xc_planefile_read(&pf, json, &e), XC_OK);
            CU_ASSERT_EQUAL(pf.meta.max_delay, job.max_delay);
            CU_ASSERT_EQUAL(pf.meta.nsamp_in, nsamp);
            for (int k = 0; k < whole.nranges; k++) {
                CU_ASSERT_EQUAL(pf.plane.r[k].nsamp, whole.r[k].nsamp);
                CU_ASSERT(memcmp(pf.plane.r[k].data, whole.r[k].data,
                                 whole.r[k].ndm * whole.r[k].nsamp * sizeof(float)) == 0);
            }
            xc_planefile_free(&pf);
        }
    xc_plane_free(&whole);
    xc_ddjob_free(&job);
    xc_fbreader_close(r);
    free(v);
    xc_dmplan_free(&plan);
}

/* A plan whose largest delay exceeds the data fails and leaves no file behind. */
XC_TEST(test_failure_leaves_nothing, "failed run leaves no output")
{
    char fil[512], out[512], json[600], npy[600];
    snprintf(fil, sizeof fil, "%s/short.fil", xc_test_tmpdir());
    write_fil(fil, 16, 100, 4, 9);
    snprintf(out, sizeof out, "%s/nothing", xc_test_tmpdir());
    snprintf(json, sizeof json, "%s.json", out);
    snprintf(npy, sizeof npy, "%s.r0.npy", out);
    xc_dmplan plan;
    xc_error e;
    CU_ASSERT_EQUAL_FATAL(xc_dmplan_parse(&plan, "0:5000:1000:1", "test", &e), XC_OK);
    xc_fbreader *r;
    CU_ASSERT_EQUAL_FATAL(xc_fbreader_open(&r, fil, NULL, &e), XC_OK);
    xc_ddstream_args a;
    memset(&a, 0, sizeof a);
    a.impl = &xc_dd_reference;
    a.conv = xc_convention_get("crosscheck");
    a.plan = &plan;
    a.input_name = fil;
    CU_ASSERT_EQUAL(xc_dedisperse_stream(r, out, &a, NULL, &e), XC_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "short.fil"));
    CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "largest delay"));
    CU_ASSERT_FALSE(xc_fx_exists(json));
    CU_ASSERT_FALSE(xc_fx_exists(npy));
    CU_ASSERT_EQUAL(xc_fx_count_prefix("nothing"), 0);
    xc_fbreader_close(r);
    xc_dmplan_free(&plan);
}

XC_TEST_MAIN("planefile")
