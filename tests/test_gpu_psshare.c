/* GPU Pulscan's shared powers (xc_spectrum.share, optimized/gpu/
 * pulscan_gpu.cu): the searches of one device spectrum (a study worker's
 * configurations of a pulsar) normalise it once.  Each configuration's list
 * is its own search's bit for bit, also after one of another normalisation
 * width; a spectrum transformed again into the same device buffer is
 * normalised again once the share's generation says so (and, which shows
 * that the powers are read from the share, not before); a share holding another
 * searcher's state is left alone. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/search/xc_search.h"
#include "optimized/gpu/xc_gpu.h"
#include "tests/xc_fixture.h"
#include "tests/xc_test.h"

#ifdef XC_HAVE_CUDA
enum { NCFG = 4 };

/* The same candidates bit for bit (quiet: no message on a difference). */
static int same_cands(const xc_candlist *a, const xc_candlist *b, const char *what, int quiet)
{
    if (a->n != b->n) {
        if (!quiet)
            printf("\n%s: %zu against %zu candidates\n", what, a->n, b->n);
        return 0;
    }
    for (size_t k = 0; k < a->n; k++)
        if (a->c[k].r != b->c[k].r || a->c[k].width != b->c[k].width || a->c[k].numharm != b->c[k].numharm ||
            a->c[k].power != b->c[k].power || a->c[k].sigma != b->c[k].sigma) {
            if (!quiet)
                printf("\n%s: candidate %zu: r %.17g P %.17g sigma %.17g against r %.17g P %.17g sigma %.17g\n", what,
                       k, a->c[k].r, a->c[k].power, a->c[k].sigma, b->c[k].r, b->c[k].power, b->c[k].sigma);
            return 0;
        }
    return 1;
}

/* A series: noise, an offset, a sinusoid and a pulse train (seeded LCG). */
static void series(float *x, size_t n, uint64_t seed)
{
    uint64_t s = seed * 0x9e3779b97f4a7c15ull + 1;
    for (size_t k = 0; k < n; k++) {
        double u = 0;
        for (int j = 0; j < 12; j++) {
            s = s * 6364136223846793005ull + 1442695040888963407ull;
            u += (double)(s >> 11) * 0x1.0p-53;
        }
        x[k] = (float)(3.0 * (u - 6) + 0.5 + 2.0 * sin(0.0123 * (double)k) + (k % 731 < 4 ? 6.0 : 0.0));
    }
}

static void foreign_free(void *s)
{
    (void)s;
}

/* Every configuration through its plan, sharing sp's powers, against ref. */
static void search_all(xc_psgpu_plan **p, const xc_spectrum *sp, xc_candlist *ref, const char *what)
{
    char label[160];
    xc_error err;
    xc_error_clear(&err);
    for (int c = 0; c < NCFG; c++) {
        xc_candlist l;
        xc_candlist_init(&l);
        xc_status st = xc_pulscan_gpu_execute(p[c], sp, &l, NULL, &err);
        if (st)
            printf("\n%s, configuration %d: %s\n", what, c, err.msg);
        CU_ASSERT_EQUAL(st, XC_OK);
        snprintf(label, sizeof label, "%s, configuration %d", what, c);
        CU_ASSERT(same_cands(&l, &ref[c], label, 0));
        xc_candlist_free(&l);
    }
}
#endif

XC_TEST_IF(test_gpu_ps_share, "gpu_ps_share", xc_fx_skip_gpu)
{
#ifdef XC_HAVE_CUDA
    const size_t nbins = 50035, n = 2 * nbins;
    xc_psopts o[NCFG];
    for (int c = 0; c < NCFG; c++)
        xc_psopts_default(&o[c]);
    o[1].zmax = 30;
    o[1].numharm = 2;
    o[2].zmax = 40;
    o[2].numharm = 2;
    o[2].normwidth = 3000;   /* another normalisation between two of the default's */
    o[3].zmax = 100;
    o[3].numharm = 4;
    float *x = malloc(n * sizeof *x), *a1 = malloc(n * sizeof *a1), *a2 = malloc(n * sizeof *a2);
    CU_ASSERT_PTR_NOT_NULL_FATAL(x && a1 && a2);
    xc_error err;
    xc_error_clear(&err);
    xc_gpu_realfft *f = NULL;
    const float *dev1 = NULL, *dev2 = NULL;
    CU_ASSERT_EQUAL_FATAL(xc_gpu_realfft_new(&f, &err), XC_OK);
    series(x, n, 1);
    CU_ASSERT_EQUAL_FATAL(xc_gpu_realfft_run(f, x, n, a1, &dev1, &err), XC_OK);
    /* each configuration's own search of either spectrum, from the host */
    xc_spectrum h1 = {a1, nbins, 1e-3, 2e-3 * (double)nbins, 0, NULL, NULL}, h2 = h1;
    h2.data = a2;
    xc_candlist ref1[NCFG], ref2[NCFG];
    for (int c = 0; c < NCFG; c++) {
        xc_candlist_init(&ref1[c]);
        xc_candlist_init(&ref2[c]);
        CU_ASSERT_EQUAL_FATAL(xc_pulscan_gpu(&h1, &o[c], &ref1[c], &err), XC_OK);
    }
    xc_psgpu_plan *p[NCFG] = {NULL};
    for (int c = 0; c < NCFG; c++)
        CU_ASSERT_EQUAL_FATAL(xc_pulscan_gpu_plan(nbins, &o[c], &p[c], &err), XC_OK);
    xc_devshare share = {0, NULL, NULL};
    xc_spectrum d1 = h1;
    d1.dev = dev1;
    d1.share = &share;
    search_all(p, &d1, ref1, "shared, spectrum 1");
    CU_ASSERT_PTR_NOT_NULL(share.state);
    CU_ASSERT_PTR_NOT_NULL(share.state_free);
    /* the next series into the same device buffer */
    series(x, n, 2);
    CU_ASSERT_EQUAL_FATAL(xc_gpu_realfft_run(f, x, n, a2, &dev2, &err), XC_OK);
    CU_ASSERT_PTR_EQUAL_FATAL(dev2, dev1);
    for (int c = 0; c < NCFG; c++)
        CU_ASSERT_EQUAL_FATAL(xc_pulscan_gpu(&h2, &o[c], &ref2[c], &err), XC_OK);
    xc_spectrum d2 = h2;
    d2.dev = dev2;
    d2.share = &share;
    /* the share not told (its generation unchanged): the last
     * configuration's powers are still spectrum 1's, read from the share,
     * so its list is not spectrum 2's */
    xc_candlist stale;
    xc_candlist_init(&stale);
    CU_ASSERT_EQUAL(xc_pulscan_gpu_execute(p[NCFG - 1], &d2, &stale, NULL, &err), XC_OK);
    CU_ASSERT(!same_cands(&stale, &ref2[NCFG - 1], "", 1));
    xc_candlist_free(&stale);
    share.gen++;
    search_all(p, &d2, ref2, "shared, spectrum 2 (next generation)");
    /* a share holding another searcher's state: not used, not changed */
    int other = 0;
    xc_devshare foreign = {7, &other, foreign_free};
    d2.share = &foreign;
    search_all(p, &d2, ref2, "a foreign share");
    CU_ASSERT(foreign.state == &other && foreign.state_free == foreign_free && foreign.gen == 7);
    for (int c = 0; c < NCFG; c++) {
        xc_pulscan_gpu_destroy(p[c]);
        xc_candlist_free(&ref1[c]);
        xc_candlist_free(&ref2[c]);
    }
    share.state_free(share.state);
    xc_gpu_realfft_free(f);
    free(x);
    free(a1);
    free(a2);
#endif
}

XC_TEST_MAIN("gpu_psshare")
