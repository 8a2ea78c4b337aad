/* The GPU Pulscan searcher against the CPU one (itself bit-identical to the
 * reference, tests/test_pulscan.c): the normalised powers bit for bit in both
 * normalisation modes (awkward spectrum and block sizes, the remainder block,
 * borrowed statistics), the raw peaks (start, width, stage and power) bit for
 * bit over every search mode (z steps, log z, R-blocks, 1 to 8 harmonics,
 * zmax from 0 to 3000, which takes the shared-memory phases, the opt-in and
 * the global-memory row tables), the candidate lists with sigma within the
 * searcher's stated 1e-9 (log p is computed on the device), a hand-worked
 * spectrum, the overflow of the device's peak lists, and clean errors.
 * Every case is skipped (never passed) without CUDA or a usable device. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/io/xc_fft.h"
#include "optimized/gpu/xc_gpu.h"
#include "optimized/cpu/xc_cpu.h"
#include "core/search/xc_search.h"
#include "optimized/xc_impls.h"
#include "core/search/stats/xc_signif.h"
#include "tests/xc_fixture.h"
#include "tests/xc_test.h"

/* ---- wrappers: the entry points exist only in a CUDA build -------------- */

static xc_status g_powers(const xc_spectrum *sp, const xc_psopts *o, double *P, xc_error *err)
{
#ifdef XC_HAVE_CUDA
    return xc_pulscan_powers_gpu(sp, o, P, err);
#else
    (void)sp, (void)o, (void)P;
    return xc_error_set(err, XC_EDEVICE, "built without CUDA");
#endif
}

static xc_status g_peaks(const xc_spectrum *sp, const xc_psopts *o, xc_pspeaks *pk, xc_gpu_psinfo *info,
                         xc_error *err)
{
#ifdef XC_HAVE_CUDA
    if (info) {     /* the info comes with a full run; the peaks from the plain call */
        xc_candlist l;
        xc_candlist_init(&l);
        xc_status st = xc_pulscan_gpu_info(sp, o, &l, info, err);
        xc_candlist_free(&l);
        if (st)
            return st;
    }
    return xc_pulscan_peaks_gpu(sp, o, pk, err);
#else
    (void)sp, (void)o, (void)pk, (void)info;
    return xc_error_set(err, XC_EDEVICE, "built without CUDA");
#endif
}

/* ---- spectra --------------------------------------------------------------- */

typedef struct {
    uint64_t s;
} rng;

static double urand(rng *r)
{
    r->s ^= r->s >> 12;
    r->s ^= r->s << 25;
    r->s ^= r->s >> 27;
    return ((r->s * 2685821657736338717ull) >> 11) * 0x1.0p-53;
}

static double gauss(rng *r)
{
    double u = urand(r), v = urand(r);
    return sqrt(-2 * log(u > 0 ? u : 1e-300)) * cos(2 * M_PI * v);
}

/* Noise with an offset and a scale per part, and signals: narrow tones, a
 * drifting one (a ramp of loud bins), a fundamental with its harmonic. */
static xc_spectrum make_spectrum(size_t nbins, uint64_t seed, int signals)
{
    xc_spectrum sp;
    memset(&sp, 0, sizeof sp);
    sp.data = malloc(2 * nbins * sizeof(float));
    CU_ASSERT_PTR_NOT_NULL_FATAL(sp.data);
    sp.nbins = nbins;
    sp.T = 64.0;
    sp.dt = sp.T / (2.0 * (double)nbins);
    sp.owned = 1;
    rng r = {seed * 0x9e3779b97f4a7c15ull + 1};
    for (size_t k = 0; k < 2 * nbins; k++)
        sp.data[k] = (float)((k % 2 ? -0.7 : 0.4) + (k % 2 ? 3.0 : 5.0) * gauss(&r));
    if (signals && nbins > 64) {
        size_t n = nbins;
        sp.data[2 * (n / 3)] += 70.0f;
        sp.data[2 * (n / 7)] += 45.0f;
        sp.data[2 * (2 * (n / 7))] -= 40.0f;
        size_t ramp = n / 40 < 200 ? n / 40 : 200;
        for (size_t k = n / 2; k < n / 2 + ramp; k++)
            sp.data[2 * k + 1] += 25.0f;
        sp.data[2 * (size_t)(0.61 * n)] += 32.0f;
        sp.data[2 * (size_t)(0.87 * n) + 1] -= 55.0f;
    }
    return sp;
}

/* CPU and GPU raw peaks: the same (stage, width, start) and the same power bit for bit. */
static int same_peaks(const xc_spectrum *sp, const xc_psopts *o, xc_gpu_psinfo *info, const char *what)
{
    xc_pspeaks a, b;
    xc_pspeaks_init(&a);
    xc_pspeaks_init(&b);
    xc_error err;
    xc_error_clear(&err);
    xc_status st = xc_pulscan_peaks(&xc_ps_cpu, sp, o, &a, &err);
    if (!st)
        st = g_peaks(sp, o, &b, info, &err);
    int ok = !st;
    if (st)
        printf("\n%s: %s\n", what, err.msg);
    qsort(a.p, a.n, sizeof *a.p, xc_pspeak_cmp);
    qsort(b.p, b.n, sizeof *b.p, xc_pspeak_cmp);
    if (ok && a.n != b.n) {
        printf("\n%s: %zu cpu peaks, %zu gpu peaks\n", what, a.n, b.n);
        ok = 0;
    }
    for (size_t k = 0; ok && k < a.n; k++)
        if (xc_pspeak_cmp(&a.p[k], &b.p[k]) || a.p[k].power != b.p[k].power) {
            printf("\n%s: peak %zu: cpu (h %d w %d i %zu %.17g), gpu (h %d w %d i %zu %.17g)\n", what, k,
                   a.p[k].numharm, a.p[k].width, a.p[k].i, a.p[k].power, b.p[k].numharm, b.p[k].width, b.p[k].i,
                   b.p[k].power);
            ok = 0;
        }
    xc_pspeaks_free(&a);
    xc_pspeaks_free(&b);
    return ok;
}

/* ---- implementations, chosen by capability ------------------------------- */

static xc_registry *reg;

/* The first available built-in searcher with every bit of want and none of
 * avoid; NULL if none (without a device: the gpu one). */
static const xc_searcher *pick(unsigned want, unsigned avoid)
{
    xc_error err;
    if (!reg && xc_registry_builtin(&reg, &err))
        return NULL;
    return xc_searcher_of(xc_registry_pick(reg, XC_FAMILY_PULSCAN, want, avoid));
}

#define GPU_SEARCHER() pick(XC_CAP_DEVICE, 0)
#define CPU_SEARCHER() pick(XC_CAP_THREADED, XC_CAP_DEVICE | XC_CAP_RUNTIME)

/* ---- cases ----------------------------------------------------------------- */

XC_TEST_IF(test_gpu_ps_listed, "gpu_ps_listed", xc_fx_skip_gpu)
{
    const xc_searcher *g = GPU_SEARCHER();
    CU_ASSERT_PTR_NOT_NULL_FATAL(g);
    char why[256] = "";
    CU_ASSERT_EQUAL(xc_impl_available(&g->impl, why, sizeof why), 1);
    CU_ASSERT_EQUAL(g->impl.tol.kind, XC_TOL_RELATIVE);
    CU_ASSERT(g->impl.tol.value > 0 && g->impl.tol.value <= 1e-9);
}

/* Powers bit for bit, both normalisation modes, blocks of every shape. */
XC_TEST_IF(test_gpu_ps_powers, "gpu_ps_powers", xc_fx_skip_gpu)
{
    static const struct {
        size_t nbins, normw;
    } sz[] = {{3, 16}, {17, 16}, {33, 16}, {1000, 16}, {12345, 1500}, {65537, 6000}, {100003, 777}, {5000, 6000}};
    int bad = 0;
    for (size_t c = 0; c < XC_NCASES(sz); c++)
        for (int mode = 0; mode < 2; mode++) {
            xc_spectrum sp = make_spectrum(sz[c].nbins, 10 + c, c % 2);
            xc_psopts o;
            xc_psopts_default(&o);
            o.normwidth = sz[c].normw;
            o.norm = mode ? XC_NORM_MOM : XC_NORM_EXACT;
            double *a = malloc(sp.nbins * sizeof *a), *b = malloc(sp.nbins * sizeof *b);
            CU_ASSERT_FATAL(a && b);
            xc_error err;
            CU_ASSERT_EQUAL_FATAL(xc_pulscan_powers(&xc_ps_cpu, &sp, &o, a, &err), XC_OK);
            xc_status st = g_powers(&sp, &o, b, &err);
            if (st)
                printf("\n%s\n", err.msg);
            CU_ASSERT_EQUAL_FATAL(st, XC_OK);
            size_t diff = 0;
            for (size_t k = 0; k < sp.nbins; k++)
                diff += a[k] != b[k];
            if (diff)
                printf("\n%zu bins, normwidth %zu, mode %d: %zu powers differ\n", sz[c].nbins, sz[c].normw, mode, diff);
            bad += diff != 0;
            free(a);
            free(b);
            xc_spectrum_free(&sp);
        }
    CU_ASSERT_EQUAL(bad, 0);
}

/* Constant blocks (MAD 0, and runs of equal values around the median) borrow
 * from their nearest neighbour on both sides of the spectrum. */
XC_TEST_IF(test_gpu_ps_borrow, "gpu_ps_borrow", xc_fx_skip_gpu)
{
    xc_spectrum sp = make_spectrum(20001, 77, 1);
    for (size_t k = 1; k < 4001; k++) {     /* blocks 0-1 of the real parts constant */
        sp.data[2 * k] = 3.0f;
    }
    for (size_t k = 12001; k < 16001; k++)     /* blocks 6-7 of the imaginary parts: mostly 0 */
        sp.data[2 * k + 1] = k % 5 ? 0.0f : -0.0f;
    int bad = 0;
    for (int mode = 0; mode < 2; mode++) {
        xc_psopts o;
        xc_psopts_default(&o);
        o.normwidth = 2000;
        o.norm = mode ? XC_NORM_MOM : XC_NORM_EXACT;
        double *a = malloc(sp.nbins * sizeof *a), *b = malloc(sp.nbins * sizeof *b);
        CU_ASSERT_FATAL(a && b);
        xc_error err;
        CU_ASSERT_EQUAL_FATAL(xc_pulscan_powers(&xc_ps_cpu, &sp, &o, a, &err), XC_OK);
        CU_ASSERT_EQUAL_FATAL(g_powers(&sp, &o, b, &err), XC_OK);
        for (size_t k = 0; k < sp.nbins; k++)
            bad += a[k] != b[k];
        free(a);
        free(b);
    }
    CU_ASSERT_EQUAL(bad, 0);
    xc_spectrum_free(&sp);
}

/* How many of the n configurations give other peaks on the GPU than on the
 * cpu, each on a spectrum with signals from seed0 + its index (with drift, 9
 * more power in bins 5000 to 6199), named "<label> <index>". */
static int configs_differ(const xc_fx_pscfg *cfg, size_t n, uint64_t seed0, int drift, const char *label)
{
    int bad = 0;
    for (size_t c = 0; c < n; c++) {
        xc_spectrum sp = make_spectrum(cfg[c].nbins, seed0 + c, 1);
        for (size_t k = 5000; drift && k < 6200; k++)
            sp.data[2 * k] += 9.0f;
        xc_psopts o = xc_fx_ps_opts(&cfg[c]);
        char what[64];
        snprintf(what, sizeof what, "%s %zu", label, c);
        bad += !same_peaks(&sp, &o, NULL, what);
        xc_spectrum_free(&sp);
    }
    return bad;
}

XC_TEST_IF(test_gpu_ps_peaks, "gpu_ps_peaks", xc_fx_skip_gpu)
{
    CU_ASSERT_EQUAL(configs_differ(xc_fx_ps_configs, XC_FX_PS_NCONFIGS, 100, 0, "config"), 0);
}

XC_TEST_IF(test_gpu_ps_cands, "gpu_ps_cands", xc_fx_skip_gpu)
{
    const xc_searcher *g = GPU_SEARCHER(), *cpu = CPU_SEARCHER();
    CU_ASSERT_PTR_NOT_NULL_FATAL(g);
    CU_ASSERT_PTR_NOT_NULL_FATAL(cpu);
    int bad = 0;
    size_t total = 0;
    for (size_t c = 0; c < XC_FX_PS_NCONFIGS; c++) {
        xc_spectrum sp = make_spectrum(xc_fx_ps_configs[c].nbins, 100 + c, 1);
        xc_psopts o = xc_fx_ps_opts(&xc_fx_ps_configs[c]);
        xc_candlist a, b;
        xc_candlist_init(&a);
        xc_candlist_init(&b);
        xc_error err;
        CU_ASSERT_EQUAL_FATAL(xc_pulscan_run(cpu, &sp, &o, &a, &err), XC_OK);
        xc_status st = xc_pulscan_run(g, &sp, &o, &b, &err);
        if (st)
            printf("\n%s\n", err.msg);
        CU_ASSERT_EQUAL_FATAL(st, XC_OK);
        char what[64];
        snprintf(what, sizeof what, "config %zu", c);
        bad += !xc_fx_same_cands(&a, &b, g->impl.tol.value, what);
        total += a.n;
        xc_candlist_free(&a);
        xc_candlist_free(&b);
        xc_spectrum_free(&sp);
    }
    CU_ASSERT_EQUAL(bad, 0);
    CU_ASSERT(total >= 30);     /* the comparison had candidates to compare */
}

/* Wide searches: more widths than one shared-memory window of the screen
 * (1024), a row table that needs the opt-in shared memory (zmax 1500, zstep
 * 1: 120 KB) and one that does not fit at all (zmax 3000: 240 KB, global). */
XC_TEST_IF(test_gpu_ps_wide, "gpu_ps_wide", xc_fx_skip_gpu)
{
    static const xc_fx_pscfg wide[] = {
        {30011, 1500, 2, 1, 0, 0, 0, 32768, 6000, XC_NORM_EXACT, XC_LOGP_EXACT, 1.0},
        {24001, 3000, 1, 1, 0, 0, 0, 32768, 6000, XC_NORM_EXACT, XC_LOGP_EXACT, 1.0},
        {24001, 3000, 1, 1, 0, 1, 0, 4000, 6000, XC_NORM_EXACT, XC_LOGP_EXACT, 1.0},
    };
    /* with a long drift: 1200 bins of moderate power */
    CU_ASSERT_EQUAL(configs_differ(wide, XC_NCASES(wide), 300, 1, "wide config"), 0);
}

/* So many boxcars above threshold that the device's lists (65536 groups,
 * 16384 peaks) overflow and are grown: half of every normalisation block is
 * 30 times louder than the other half. */
XC_TEST_IF(test_gpu_ps_overflow, "gpu_ps_overflow", xc_fx_skip_gpu)
{
    xc_spectrum sp = make_spectrum(1200001, 5, 0);
    for (size_t k = 1; k < sp.nbins; k++)
        if ((k - 1) % 6000 >= 3000) {
            sp.data[2 * k] *= 30.0f;
            sp.data[2 * k + 1] *= 30.0f;
        }
    for (int rb = 0; rb < 2; rb++) {
        xc_psopts o;
        xc_psopts_default(&o);
        o.zmax = 6;
        o.zstep = 1;
        o.rblock = rb;
        o.chunkwidth = 64;
        xc_gpu_psinfo info;
        memset(&info, 0, sizeof info);
        CU_ASSERT(same_peaks(&sp, &o, &info, rb ? "overflow, R-blocks" : "overflow"));
        CU_ASSERT(info.flagged_groups > 65536);
        CU_ASSERT(info.peaks > 16384);
    }
    xc_spectrum_free(&sp);
}

/* 9 bins, one block.  Real parts 1,-1,1,-1,5,-1,1,-1 (sorted middle -1, 1:
 * median 0; |x| seven 1s and a 5: MAD 1), imaginary 1,-1,-1,1,1,-1,-1,1
 * (median 0, MAD 1): P[k] = (re^2 + im^2) / 1.482602218505602^2, i.e. 2q
 * everywhere but P[5] = 26q, q = 0.4549.  zmax 0, one stage, 8 trials:
 * sigma > 0 needs e^{-P/2} < 1/16, P > 5.545, so bin 5 is the one peak, with
 * ln p = -P/2 exactly. */
XC_TEST_IF(test_gpu_ps_hand, "gpu_ps_hand", xc_fx_skip_gpu)
{
    static const float re[9] = {0, 1, -1, 1, -1, 5, -1, 1, -1}, im[9] = {0, 1, -1, -1, 1, 1, -1, -1, 1};
    xc_spectrum sp;
    memset(&sp, 0, sizeof sp);
    float data[18];
    for (int k = 0; k < 9; k++) {
        data[2 * k] = re[k];
        data[2 * k + 1] = im[k];
    }
    sp.data = data;
    sp.nbins = 9;
    sp.T = 1.0;
    sp.dt = 1.0 / 18;
    xc_psopts o;
    xc_psopts_default(&o);
    o.zmax = 0;
    o.sigma = 0;
    o.normwidth = 16;
    double P[9] = {0};
    xc_error err;
    CU_ASSERT_EQUAL_FATAL(g_powers(&sp, &o, P, &err), XC_OK);
    const double c = XC_MAD_TO_SIGMA;
    for (int k = 1; k < 9; k++) {
        double r = re[k] / c, i = im[k] / c;
        CU_ASSERT_EQUAL(P[k], r * r + i * i);
    }
    XC_ASSERT_NEAR(P[5], 26 / (c * c), 1e-14);
    XC_ASSERT_NEAR(P[2], 2 / (c * c), 1e-15);
    xc_candlist l;
    xc_candlist_init(&l);
    const xc_searcher *g = GPU_SEARCHER();
    CU_ASSERT_PTR_NOT_NULL_FATAL(g);
    CU_ASSERT_EQUAL_FATAL(xc_pulscan_run(g, &sp, &o, &l, &err), XC_OK);
    CU_ASSERT_EQUAL_FATAL(l.n, 1);
    CU_ASSERT_EQUAL(l.c[0].r, 5.0);
    CU_ASSERT_EQUAL(l.c[0].width, 1);
    CU_ASSERT_EQUAL(l.c[0].power, P[5]);
    XC_ASSERT_NEAR(l.c[0].logp, -P[5] / 2, 1e-14);
    XC_ASSERT_NEAR(l.c[0].sigma, xc_sigma_from_logp(-P[5] / 2 + log(xc_pulscan_ntrials(9, 1, 0))), 1e-9);
    xc_candlist_free(&l);
}

XC_TEST_IF(test_gpu_ps_errors, "gpu_ps_errors", xc_fx_skip_gpu)
{
    xc_spectrum sp = make_spectrum(1000, 3, 0);
    xc_psopts o;
    xc_psopts_default(&o);
    xc_candlist l;
    xc_candlist_init(&l);
    xc_error err;
    const xc_searcher *g = GPU_SEARCHER();
    CU_ASSERT_PTR_NOT_NULL_FATAL(g);
    sp.data[2 * 500 + 1] = NAN;
    CU_ASSERT_EQUAL(xc_pulscan_run(g, &sp, &o, &l, &err), XC_EFORMAT);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "bin 500 (imaginary part"));
    for (size_t k = 0; k < 2 * sp.nbins; k++)
        sp.data[k] = k % 2 ? 1.0f : (float)k;
    CU_ASSERT_EQUAL(xc_pulscan_run(g, &sp, &o, &l, &err), XC_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "imaginary parts of bins 1..999 have a median absolute deviation of 0"));
    o.zmax = -1;
    CU_ASSERT_EQUAL(xc_pulscan_run(g, &sp, &o, &l, &err), XC_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "-zmax -1"));
    CU_ASSERT_EQUAL(l.n, 0);
    xc_candlist_free(&l);
    xc_spectrum_free(&sp);
}


#ifdef XC_HAVE_CUDA
/* Two candidate lists equal: r, width, stage, power and sigma bit for bit. */
static int same_cands(const xc_candlist *a, const xc_candlist *b, const char *what)
{
    if (a->n != b->n) {
        printf("\n%s: %zu against %zu candidates\n", what, a->n, b->n);
        return 0;
    }
    for (size_t k = 0; k < a->n; k++)
        if (a->c[k].r != b->c[k].r || a->c[k].width != b->c[k].width || a->c[k].numharm != b->c[k].numharm ||
            a->c[k].power != b->c[k].power || a->c[k].sigma != b->c[k].sigma) {
            printf("\n%s: candidate %zu: r %.17g w %d h %d P %.17g sigma %.17g against r %.17g w %d h %d P %.17g "
                   "sigma %.17g\n", what, k, a->c[k].r, a->c[k].width, a->c[k].numharm, a->c[k].power, a->c[k].sigma,
                   b->c[k].r, b->c[k].width, b->c[k].numharm, b->c[k].power, b->c[k].sigma);
            return 0;
        }
    return 1;
}
#endif

/* The plan (xc_pulscan_gpu_plan/_execute, and core's session over it):
 * repeated searches through one
 * plan give the one-shot call's list, for two spectra in turn and for a
 * page-locked copy (copied asynchronously, info says so); the device's own
 * finiteness check names the first bad value as the host's does, also
 * through the session (which leaves the check to it); a spectrum
 * of another size is refused. */
XC_TEST_IF(test_gpu_ps_plan, "gpu_ps_plan", xc_fx_skip_gpu)
{
#ifdef XC_HAVE_CUDA
    const size_t nbins = 100003;
    xc_spectrum s1 = make_spectrum(nbins, 11, 1), s2 = make_spectrum(nbins, 12, 1);
    xc_psopts o;
    xc_psopts_default(&o);
    o.zmax = 60;
    o.numharm = 4;
    xc_error err;
    xc_error_clear(&err);
    xc_candlist one1, one2, l;
    xc_candlist_init(&one1);
    xc_candlist_init(&one2);
    xc_candlist_init(&l);
    CU_ASSERT_EQUAL_FATAL(xc_pulscan_gpu(&s1, &o, &one1, &err), XC_OK);
    CU_ASSERT_EQUAL_FATAL(xc_pulscan_gpu(&s2, &o, &one2, &err), XC_OK);
    CU_ASSERT(one1.n > 0 && one2.n > 0);
    /* core's session over the searcher's plan (peaks_in): the same lists */
    xc_pulscan_session *ss = NULL;
    CU_ASSERT_EQUAL_FATAL(xc_pulscan_session_open(&xc_ps_gpu, nbins, &o, &ss, &err), XC_OK);
    for (int rep = 0; rep < 2; rep++) {
        xc_candlist_free(&l);
        CU_ASSERT_EQUAL(xc_pulscan_session_run(ss, rep ? &s2 : &s1, &l, &err), XC_OK);
        CU_ASSERT(same_cands(&l, rep ? &one2 : &one1, "session"));
    }
    xc_pulscan_session_close(ss);
    xc_psgpu_plan *p = NULL;
    CU_ASSERT_EQUAL_FATAL(xc_pulscan_gpu_plan(nbins, &o, &p, &err), XC_OK);
    xc_gpu_psinfo info;
    for (int rep = 0; rep < 2; rep++) {
        xc_candlist_free(&l);
        CU_ASSERT_EQUAL(xc_pulscan_gpu_execute(p, &s1, &l, &info, &err), XC_OK);
        CU_ASSERT(same_cands(&l, &one1, "plan, spectrum 1"));
        CU_ASSERT_EQUAL(info.input_pinned, 0);
        xc_candlist_free(&l);
        CU_ASSERT_EQUAL(xc_pulscan_gpu_execute(p, &s2, &l, NULL, &err), XC_OK);
        CU_ASSERT(same_cands(&l, &one2, "plan, spectrum 2"));
    }
    void *buf = NULL;
    CU_ASSERT_EQUAL_FATAL(xc_gpu_host_alloc(&buf, 2 * nbins * sizeof(float), &err), XC_OK);
    memcpy(buf, s1.data, 2 * nbins * sizeof(float));
    xc_spectrum pin = s1;
    pin.data = buf;
    pin.owned = 0;
    xc_candlist_free(&l);
    CU_ASSERT_EQUAL(xc_pulscan_gpu_execute(p, &pin, &l, &info, &err), XC_OK);
    CU_ASSERT(same_cands(&l, &one1, "plan, page-locked spectrum"));
    CU_ASSERT_EQUAL(info.input_pinned, 1);
    CU_ASSERT(info.kernels_ms > 0 && info.wall_ms > 0);
    /* the first non-finite value, found on the device: bin 777's imaginary part before bin 5000's real one */
    ((float *)buf)[2 * 5000] = INFINITY;
    ((float *)buf)[2 * 777 + 1] = NAN;
    xc_candlist_free(&l);
    CU_ASSERT_EQUAL(xc_pulscan_gpu_execute(p, &pin, &l, NULL, &err), XC_EFORMAT);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "bin 777 (imaginary part, byte offset 6220)"));
    /* the same through core's session, which leaves that check to the device */
    CU_ASSERT_EQUAL_FATAL(xc_pulscan_session_open(&xc_ps_gpu, nbins, &o, &ss, &err), XC_OK);
    xc_candlist_free(&l);
    CU_ASSERT_EQUAL(xc_pulscan_session_run(ss, &pin, &l, &err), XC_EFORMAT);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "bin 777 (imaginary part, byte offset 6220)"));
    xc_candlist_free(&l);
    CU_ASSERT_EQUAL(xc_pulscan_session_run(ss, &s2, &l, &err), XC_OK);
    CU_ASSERT(same_cands(&l, &one2, "session, after a refused spectrum"));
    xc_pulscan_session_close(ss);
    /* and the plan still serves a good spectrum afterwards */
    xc_candlist_free(&l);
    CU_ASSERT_EQUAL(xc_pulscan_gpu_execute(p, &s2, &l, NULL, &err), XC_OK);
    CU_ASSERT(same_cands(&l, &one2, "plan, after a refused spectrum"));
    xc_gpu_host_free(buf);
    xc_spectrum s3 = make_spectrum(nbins - 1, 13, 0);
    CU_ASSERT_EQUAL(xc_pulscan_gpu_execute(p, &s3, &l, NULL, &err), XC_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "100002 bins; the GPU Pulscan plan was made for 100003"));
    xc_pulscan_gpu_destroy(p);
    xc_candlist_free(&one1);
    xc_candlist_free(&one2);
    xc_candlist_free(&l);
    xc_spectrum_free(&s1);
    xc_spectrum_free(&s2);
    xc_spectrum_free(&s3);
#endif
}

/* A spectrum already on the device (xc_spectrum.dev, a study's device
 * transform) is searched there: a plan given the device copy of spectrum 1
 * beside host data of spectrum 2 finds spectrum 1's list, so it read the
 * device copy and uploaded nothing.  The study's transform on the device
 * (xc_gpu_realfft_run: Bluestein in double, rounded to float once) against
 * FFTW's double transform rounded to float, in PRESTO's layout (DC and
 * Nyquist in bin 0): rms error below 2e-7 and the largest below 2e-5 of the
 * output's rms (a value 100 times the rms may round one float ulp apart), the
 * same bits on a second run, and its device copy the host's values (a search
 * of either gives the same list). */
XC_TEST_IF(test_gpu_ps_devspec, "gpu_ps_devspec", xc_fx_skip_gpu)
{
#ifdef XC_HAVE_CUDA
    const size_t nbins = 50035;   /* 100070 = 2 x 5 x 10007 samples, as the paper's lengths */
    xc_spectrum s1 = make_spectrum(nbins, 21, 1), s2 = make_spectrum(nbins, 22, 1);
    xc_psopts o;
    xc_psopts_default(&o);
    o.zmax = 30;
    o.numharm = 2;
    xc_error err;
    xc_error_clear(&err);
    xc_candlist one1, l;
    xc_candlist_init(&one1), xc_candlist_init(&l);
    CU_ASSERT_EQUAL_FATAL(xc_pulscan_gpu(&s1, &o, &one1, &err), XC_OK);
    void *d1 = NULL;
    CU_ASSERT_EQUAL_FATAL(xc_gpu_upload(&d1, s1.data, 2 * nbins * sizeof(float), &err), XC_OK);
    xc_spectrum mix = s2;
    mix.owned = 0;
    mix.dev = d1;
    xc_psgpu_plan *p = NULL;
    CU_ASSERT_EQUAL_FATAL(xc_pulscan_gpu_plan(nbins, &o, &p, &err), XC_OK);
    CU_ASSERT_EQUAL(xc_pulscan_gpu_execute(p, &mix, &l, NULL, &err), XC_OK);
    CU_ASSERT(same_cands(&l, &one1, "plan, spectrum 1 on the device"));
    xc_gpu_free(d1);
    /* the device transform */
    const size_t n = 2 * nbins;
    float *x = malloc(n * sizeof *x), *ref = malloc(n * sizeof *ref), *a = malloc(n * sizeof *a),
          *b = malloc(n * sizeof *b);
    CU_ASSERT_PTR_NOT_NULL_FATAL(x && ref && a && b);
    rng r = {77};
    for (size_t k = 0; k < n; k++)
        x[k] = (float)(3.0 * gauss(&r) + 0.5 + 2.0 * sin(0.0123 * (double)k));
    CU_ASSERT_EQUAL_FATAL(xc_realfft_forward(x, n, XC_FFT_DOUBLE, ref, &err), XC_OK);
    xc_gpu_realfft *f = NULL;
    const float *dev = NULL;
    CU_ASSERT_EQUAL_FATAL(xc_gpu_realfft_new(&f, &err), XC_OK);
    CU_ASSERT_EQUAL_FATAL(xc_gpu_realfft_run(f, x, n, a, &dev, &err), XC_OK);
    CU_ASSERT_PTR_NOT_NULL(dev);
    double ss = 0, se = 0, emax = 0;
    for (size_t k = 0; k < n; k++) {
        double d = fabs((double)a[k] - (double)ref[k]);
        ss += (double)ref[k] * ref[k];
        se += d * d;
        emax = d > emax ? d : emax;
    }
    double rms = sqrt(ss / (double)n), erms = sqrt(se / (double)n) / rms;
    if (!(erms < 2e-7 && emax / rms < 2e-5))
        printf("\ngpu realfft: rms error %.3g (tolerance 2e-7), largest %.3g (2e-5) of the output's rms %.6g\n", erms,
               emax / rms, rms);
    XC_ASSERT_BELOW(erms, 2e-7);
    XC_ASSERT_BELOW(emax / rms, 2e-5);
    /* bin 0 holds DC and Nyquist */
    XC_ASSERT_NEAR(a[0], ref[0], 2e-5 * rms);
    XC_ASSERT_NEAR(a[1], ref[1], 2e-5 * rms);
    /* the device copy is what came back: a search of either finds one list */
    xc_spectrum hs = {a, nbins, 1e-3, 2e-3 * (double)nbins, 0, NULL}, ds = hs;
    ds.dev = dev;
    xc_candlist lh, ld;
    xc_candlist_init(&lh), xc_candlist_init(&ld);
    CU_ASSERT_EQUAL(xc_pulscan_gpu(&hs, &o, &lh, &err), XC_OK);
    CU_ASSERT_EQUAL(xc_pulscan_gpu(&ds, &o, &ld, &err), XC_OK);
    CU_ASSERT(same_cands(&ld, &lh, "the device transform's device copy"));
    /* another length, then the first again: the same bits */
    CU_ASSERT_EQUAL(xc_gpu_realfft_run(f, x, n - 2, b, &dev, &err), XC_OK);
    CU_ASSERT_EQUAL(xc_gpu_realfft_run(f, x, n, b, &dev, &err), XC_OK);
    CU_ASSERT_EQUAL(memcmp(a, b, n * sizeof *a), 0);
    CU_ASSERT_EQUAL(xc_gpu_realfft_run(f, x, n - 1, b, &dev, &err), XC_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "must be even"));
    xc_gpu_realfft_free(f);
    xc_candlist_free(&lh), xc_candlist_free(&ld);
    free(x), free(ref), free(a), free(b);
    xc_pulscan_gpu_destroy(p);
    xc_candlist_free(&one1), xc_candlist_free(&l);
    xc_spectrum_free(&s1), xc_spectrum_free(&s2);
#endif
}

XC_TEST_MAIN("gpu_pulscan")
