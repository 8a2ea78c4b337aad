/* The GPU pipeline's chunk ramps against the reference: a job starts with
 * short chunks that grow, and from page-locked input into a page-locked
 * host plane whose copy out is faster than the kernels ends with the same
 * lengths reversed, through three slots (dd_memplan.cu, dd_pipeline.cu).
 * Rates planted through the test hook (kernels 8, 5 and 2 times the copy
 * in's time per input spectrum) plan the ramps for every combination of
 * pageable and page-locked input and plane (the ramp of a page-locked input
 * is sized from the DMA's rate); every plane must equal the reference's bit
 * for bit (integer input), the chunk boundaries falling off the ranges' ds 2
 * and 3.  The plane has 204 bytes per output against 80 bytes of input per
 * spectrum, so its copy out takes 2.55 times the copy in's time: x8 and x5
 * end with a tail where both are page-locked (and nowhere else), x2 ramps
 * over most of the job and has none.  Skipped without a device. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "core/dedisp/xc_dedisperse.h"
#include "optimized/gpu/xc_gpu.h"
#include "reference/xc_reference.h"
#include "tests/xc_fixture.h"
#include "tests/xc_test.h"

#ifdef XC_HAVE_CUDA
/* One run of f's job with ramp rate x; the input and the plane page-locked
 * as mode's bits 1 and 2 say.  Returns the failures (each printed). */
static int tail_run(xc_fixture *f, const xc_plane *ref, double x, int mode, int *tails)
{
    xc_error err;
    xc_plane p;
    CU_ASSERT_EQUAL_FATAL(xc_plane_alloc(&p, &f->job, &err), XC_OK);
    xc_fx_pinned pn;
    xc_fx_pin(f, &p, mode, &pn);
    for (int k = 0; k < p.nranges; k++)
        memset(p.r[k].data, 0xFF, p.r[k].ndm * p.r[k].nsamp * sizeof(float));
    xc_gpu_ddinfo info;
    memset(&info, 0, sizeof info);
    info.test_ramp = x;
    info.test_bands = -1;   /* the ramps under test, never a banded job */
    const xc_status st = xc_dedisperse_gpu_info(&f->job, &p, &info, &err);
    char what[160];
    snprintf(what, sizeof what, "ramp x%g, input %s, plane %s: %d chunks, %d ramped, %d in the tail", x,
             mode & 1 ? "page-locked" : "pageable", mode & 2 ? "page-locked" : "pageable", info.nchunks,
             info.ramp_chunks, info.tail_chunks);
    printf("\n  %s", what);
    int bad = 0;
    if (st) {
        printf(": %s", err.msg);
        bad++;
    } else {
        bad += !xc_fx_planes_equal(ref, &p, what);
        /* a tail is the ramp reversed, only from page-locked input into a
         * page-locked plane, and none where the job is too short */
        bad += info.ramp_chunks < 1 || (info.tail_chunks && info.tail_chunks != info.ramp_chunks);
        bad += mode != 3 && info.tail_chunks != 0;
        *tails += info.tail_chunks > 0;
    }
    xc_fx_unpin(f, &p, &pn);
    xc_plane_free(&p);
    return bad;
}
#endif

XC_TEST_IF(test_gpu_tail, "gpu_tail", xc_fx_skip_gpu)
{
#ifdef XC_HAVE_CUDA
    xc_fixture f;
    xc_fx_random_job(&f, 40, 8, 1400, -2, 64e-6, "0:200:5,200:400:10:2,400:430:10:3", "crosscheck", 90000, 979);
    xc_plane ref;
    xc_error err;
    CU_ASSERT_EQUAL_FATAL(xc_plane_alloc(&ref, &f.job, &err), XC_OK);
    CU_ASSERT_EQUAL_FATAL(xc_dedisperse_reference(&f.job, &ref, &err), XC_OK);
    static const double rates[] = {8.0, 5.0, 2.0};
    int bad = 0, tails = 0;
    for (size_t r = 0; r < sizeof rates / sizeof rates[0]; r++)
        for (int mode = 0; mode < 4; mode++)
            bad += tail_run(&f, &ref, rates[r], mode, &tails);
    CU_ASSERT_EQUAL(bad, 0);
    CU_ASSERT_EQUAL(tails, 2);   /* x8 and x5, both page-locked */
    xc_plane_free(&ref);
    xc_fx_free(&f);
#endif
}

XC_TEST_MAIN("gpu_tail")
