/* The GPU pipeline's banded jobs against the reference (dd_bands.cu): from
 * page-locked input into a page-locked host plane (or buffers the plan
 * registers and keeps) a job may run as one chunk of its whole time, the
 * head (range 0's first trials) dedispersed piece by piece while the input
 * is uploaded, then every range's trials in bands, each band's plane copied
 * out in one piece.  The test hook bands every job that may be banded, in
 * bands of 24 trials, so the band buffers' ring wraps many times; ranges of
 * ds 1, 2 and 3 pack Y three ways (repacked between ranges); the dedisp
 * convention scales every band and every head piece.  Two jobs run through
 * one state: the first plans its head without rates (or with planted ones),
 * the second with the rates the first measured.  Every plane must equal the
 * reference's bit for bit (integer input); where the input or the plane is
 * pageable and not registered, the job must not be banded.  Skipped without
 * a device. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "core/dedisp/xc_dedisperse.h"
#include "optimized/gpu/xc_gpu.h"
#include "reference/xc_reference.h"
#include "tests/xc_fixture.h"
#include "tests/xc_test.h"

#ifdef XC_HAVE_CUDA
/* Two jobs of f's through one state, the input and the plane page-locked as
 * mode's bits 1 and 2 say (mode 4: pageable, registered and kept by the
 * state); x > 0 plants the rates of the first job's plan.  Returns the
 * failures (each printed); *banded counts the banded jobs. */
static int band_run(xc_fixture *f, const xc_plane *ref, int mode, double x, int *banded)
{
    xc_error err;
    xc_plane p;
    CU_ASSERT_EQUAL_FATAL(xc_plane_alloc(&p, &f->job, &err), XC_OK);
    xc_fx_pinned pn;
    xc_fx_pin(f, &p, mode, &pn);
    f->job.tune.gpu_register = mode == 4 ? 2 : 0;
    const int may = mode == 3 || mode == 4;
    xc_gpu_ddstate *st = NULL;
    CU_ASSERT_EQUAL_FATAL(xc_gpu_ddstate_create(&st, &err), XC_OK);
    int bad = 0;
    for (int job = 0; job < 2; job++) {
        for (int k = 0; k < p.nranges; k++)
            memset(p.r[k].data, 0xFF, p.r[k].ndm * p.r[k].nsamp * sizeof(float));
        xc_gpu_ddinfo info;
        memset(&info, 0, sizeof info);
        info.test_bands = 24;
        info.test_ramp = job == 0 ? x : 0;
        const xc_status rc = xc_dedisperse_gpu_exec(st, &f->job, &p, &info, &err);
        char what[200];
        snprintf(what, sizeof what, "%s, job %d, rates %s, input %s, plane %s: %d bands, head in %d pieces, %d chunks",
                 f->cv->name, job, job ? "measured" : x > 0 ? "planted" : "none",
                 mode == 4 ? "registered" : mode & 1 ? "page-locked" : "pageable",
                 mode == 4 ? "registered" : mode & 2 ? "page-locked" : "pageable", info.bands, info.head_pieces,
                 info.nchunks);
        printf("\n  %s", what);
        if (rc) {
            printf(": %s", err.msg);
            bad++;
            break;
        }
        bad += !xc_fx_planes_equal(ref, &p, what);
        /* banded exactly where both sides are page-locked; a head of
         * several pieces (the job is long against the first piece) */
        if (may != (info.bands > 0) || (may && (info.nchunks != 1 || info.head_pieces < 2))) {
            printf(": expected %s", may ? "bands, one chunk and a head of at least 2 pieces" : "no bands");
            bad++;
        }
        *banded += info.bands > 0;
    }
    xc_gpu_ddstate_destroy(st);
    xc_fx_unpin(f, &p, &pn);
    f->job.tune.gpu_register = 0;
    xc_plane_free(&p);
    return bad;
}
#endif

XC_TEST_IF(test_gpu_bands, "gpu_bands", xc_fx_skip_gpu)
{
#ifdef XC_HAVE_CUDA
    static const char *const convs[] = {"crosscheck", "dedisp"};
    int bad = 0, banded = 0;
    for (size_t cv = 0; cv < sizeof convs / sizeof convs[0]; cv++) {
        xc_fixture f;
        xc_fx_random_job(&f, 40, 8, 1400, -2, 64e-6, "0:300:2,300:400:5:2,400:430:10:3", convs[cv], 90000,
                         1931 + (uint64_t)cv);
        xc_plane ref;
        xc_error err;
        CU_ASSERT_EQUAL_FATAL(xc_plane_alloc(&ref, &f.job, &err), XC_OK);
        CU_ASSERT_EQUAL_FATAL(xc_dedisperse_reference(&f.job, &ref, &err), XC_OK);
        bad += band_run(&f, &ref, 3, 0, &banded);
        bad += band_run(&f, &ref, 3, 3.0, &banded);
        bad += band_run(&f, &ref, 4, 0, &banded);
        bad += band_run(&f, &ref, 1, 0, &banded);
        bad += band_run(&f, &ref, 2, 0, &banded);
        xc_plane_free(&ref);
        xc_fx_free(&f);
    }
    CU_ASSERT_EQUAL(bad, 0);
    CU_ASSERT_EQUAL(banded, 12);   /* two jobs of three runs of each convention */
#endif
}

XC_TEST_MAIN("gpu_bands")
