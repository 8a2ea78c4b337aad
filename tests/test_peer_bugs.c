/* Peer bugs confirmed by reading their sources (docs/PEERS.md), planted as
 * cases the suite's checks must fail: each is a copy of the peer's faulty
 * code (or of ours with the peer's fault put in), run on the suite's own
 * input beside the correct code, which must pass the same check.
 *  - SIGPROC fake's 1-bit output (src/scaledata.c float2one): it quantises
 *    to 4 bits and sets a bit for every level above 0, so a one unless the
 *    value is below -4 + 0.5 * 8/15 sigma: 99.99 % ones.
 *  - Pulscan GPU's boxcar loop (pulscan_gpu.cu boxcarFilterArray): `if (z =
 *    targetZ)` assigns, so the loop runs 9 times and a "width" sums 10
 *    scattered bins instead of z + 1 contiguous ones; also through `gate
 *    search -family pulscan -cmd`, with this program as the searcher
 *    (--as-pulscan-gpu below).
 *  - SIGPROC fake's -accn and -binary timing model (phase t/P(t)): its
 *    series fails the truth check of a search (tests/peers/sigproc/).
 *  - AstroAccelerate's shared-memory dedispersion kernel
 *    (aa_device_dedispersion_kernel.cu shared_dedisperse_kernel): a
 *    channel's shift is trunc(s DM_b) + trunc(s (DM - DM_b)), DM_b the first
 *    DM of the trial's block of 64 (SDIVINDM), not trunc(s DM); through
 *    `gate dedisperse -cmd` with this program as the dedisperser
 *    (--as-aa-dedisperse below).
 *  - AstroAccelerate FDAS's interbinning (aa_fdas_device.cu
 *    cuda_ffdotpow_concat_2d_inbin): the last thread block of each 889-bin
 *    segment stores 7 shared words it never set over the next segment's
 *    first 7 half bins; through `gate search -cmd` with this program as the
 *    searcher (--as-aa-fdas below), where the power oracle fails the stale
 *    candidates on both tone cases.
 *  - AstroAccelerate FDAS's mean and SD of the plane
 *    (aa_device_MSD_outlier_rejection_kernel.cu
 *    MSD_BLN_grid_outlier_rejection): the block reduction's first step
 *    reads shared slots 512..1023 with no barrier after they are stored; a
 *    slot read before its store gives a NaN SD, no peak above S/N 10, no
 *    list; through `gate search -cmd` (--as-aa-fdas nobarrier|barrier),
 *    where tone-drift's truth is not found without the barrier.
 *  - sigpyproc's 4-bit reader: tests/test_gate.c (the gate's own helpers).
 *  - dedisp's dropped channels (whole 32-bit words of channels only):
 *    through `gate dedisperse -cmd` on tests/peers/dedisp/dedisperse.sh. */
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/io/xc_filterbank.h"
#include "core/io/xc_npy.h"
#include "core/search/xc_accel.h"
#include "core/search/xc_cands.h"
#include "core/search/xc_search.h"
#include "core/search/xc_spectrum.h"
#include "reference/xc_accel_ref.h"
#include "reference/xc_reference.h"
#include "synth/model/xc_synth.h"
#include "tests/xc_fixture.h"
#include "tests/xc_test.h"

/* The suite's 1-bit noise check (as test_synth's onebit_half_set): the
 * fraction of ones within 5 standard errors of 1/2.  1 when it passes. */
static int onebit_half_set(const uint16_t *v, size_t n, double *frac)
{
    double set = 0;
    for (size_t i = 0; i < n; i++)
        set += v[i];
    *frac = set / (double)n;
    return fabs(*frac - 0.5) < 5 * 0.5 / sqrt((double)n);
}

/* fake's float2one on one value: float2int(f, n, 4, -4, 4) then
 * charof8ints's `i > 0`. */
static uint16_t fake_float2one(float x)
{
    const float mn = -4, mx = 4, imax = 15;
    x = x > mx ? mx : x;
    const int level = x < mn ? 0 : (int)rint((x - mn) * imax / (mx - mn));
    return level > 0;
}

XC_TEST(test_fake_onebit, "planted: SIGPROC fake's 1-bit quantiser fails the 1-bit noise check; ours passes")
{
    const size_t nsamp = 65536, nchans = 64, n = nsamp * nchans;
    uint16_t *ours = malloc(n * sizeof *ours), *fake = malloc(n * sizeof *fake);
    CU_ASSERT_PTR_NOT_NULL_FATAL(ours);
    CU_ASSERT_PTR_NOT_NULL_FATAL(fake);
    for (size_t i = 0; i < nsamp; i++)
        for (size_t c = 0; c < nchans; c++) {
            const float x = xc_synth_noise(7, i, (int)c);
            ours[i * nchans + c] = xc_synth_quantise(x, 1);
            fake[i * nchans + c] = fake_float2one(x);
        }
    double fo, ff;
    const int po = onebit_half_set(ours, n, &fo), pf = onebit_half_set(fake, n, &ff);
    printf("\n  ones: ours %.5f, fake's quantiser %.5f (expected 0.5 within %.5f)", fo, ff, 5 * 0.5 / sqrt((double)n));
    CU_ASSERT(po);
    CU_ASSERT(!pf);
    /* the fault's own signature: a zero only below -3.733 sigma, P = 9.5e-5
     * (5 binomial standard deviations: 25 % of it at this n) */
    XC_ASSERT_NEAR(1 - ff, 0.5 * erfc(3.7333333 / sqrt(2)), 5 * sqrt(9.5e-5 / (double)n));
    free(ours);
    free(fake);
}

/* Boxcar sums of Pulscan's definition: sum of lookup[i .. i+z] for the
 * widths z = 1, 2, 4, ..., 128 into out[0..8). */
static void boxcar_contiguous(const float *lookup, int i, float out[8])
{
    float sum = 0;
    int k = 0;
    for (int z = 0; z <= 128; z++) {
        sum += lookup[i + z];
        if (z == 1 << k)
            out[k++] = sum;
    }
}

/* Pulscan GPU's loop as written (the assignment in the condition, which the
 * doubled parentheses keep from a warning): the sum starts at lookup[i]
 * and z jumps as the assignment moves it. */
static int boxcar_pulscan_gpu(const float *lookup, int i, float out[9])
{
    float sum = lookup[i];
    int targetZ = 1, n = 0;
    for (int z = 0; z < 256; z++) {
        sum += lookup[i + z];
        if ((z = targetZ)) {
            if (n < 9)
                out[n++] = sum;
            targetZ *= 2;
        }
    }
    return n;
}

XC_TEST(test_pulscan_gpu_boxcar_loop, "planted: Pulscan GPU's boxcar loop sums 10 scattered bins; the check fails it")
{
    /* a spectrum of distinct powers, so that each bin a sum takes shows */
    float lookup[512];
    for (int j = 0; j < 512; j++)
        lookup[j] = (float)(1 + j % 97) + 0.001f * (float)j;
    float want[8], got[9];
    boxcar_contiguous(lookup, 10, want);
    const int n = boxcar_pulscan_gpu(lookup, 10, got);
    /* the loop's body runs at z = 0, 2, 3, 5, 9, 17, 33, 65, 129 */
    XC_ASSERT_NEAR(n, 9, 0);
    /* its last sum holds bin i twice and the 8 bins i + 2, 3, 5, 9, 17, 33,
     * 65, 129: float sums of 10 values of at most 98, exact to 1e-3 */
    const int off[] = {0, 0, 2, 3, 5, 9, 17, 33, 65, 129};
    double sparse = 0;
    for (int j = 0; j < 10; j++)
        sparse += lookup[10 + off[j]];
    XC_ASSERT_NEAR(got[8], sparse, 1e-3);
    /* the check: each width's sum equals the contiguous one within float
     * round-off (129 values of at most 98: 1e-2); the loop fails at every
     * width it reports */
    int agree = 0;
    for (int k = 0; k < 8; k++)
        agree += fabs((double)got[k] - (double)want[k]) <= 1e-2;
    printf("\n  width 128: contiguous %.3f, Pulscan GPU's loop %.3f; %d of 8 widths agree", want[7], got[7], agree);
    XC_ASSERT_NEAR(agree, 0, 0);
}

/* ---- the loop through the gate: this program as a Pulscan GPU stand-in -----

   `test_peer_bugs --as-pulscan-gpu sparse|contiguous FFT OUT.csv ZMAX
   NUMHARM` searches FFT as Pulscan GPU's pipeline does where it has no
   fault of its own to hide the loop's: crosscheck's reference powers and
   harmonic sums, the widths its loop reports (z = 1, 2, 4, ... <= ZMAX)
   and z = 0 (one bin, which it does not search; without it the control
   below misses the reference's z = 0 tone's power), per width the largest
   boxcar of each block of 256 starts (its thread blocks; at its exact
   start, not the block's first bin), then crosscheck's significance and
   sifting.  sparse: each width z > 0 sums what its loop holds when it
   reports that z (boxcar_pulscan_gpu above: bin i twice and bins i + 2, 3,
   5, 9, ...); contiguous: the z + 1 bins of Pulscan's definition, the
   control that must pass.  The two differ in the loop alone. */
static int as_sparse;

static double gpu_loop_sum(const double *S, size_t i, int zrep)
{
    double sum = S[i];
    int targetZ = 1;
    for (int z = 0; z < 256; z++) {
        sum += S[i + (size_t)z];
        if ((z = targetZ)) {
            if (z == zrep)
                return sum;
            targetZ *= 2;
        }
    }
    return sum;
}

static xc_status gpu_peaks(const xc_searcher *self, const xc_spectrum *sp, const xc_psopts *o, const double *P,
                           const double *thr, xc_pspeaks *pk, xc_error *err)
{
    (void)self;
    size_t nbins = sp->nbins, stride = (size_t)o->zmax + 2;
    double *S = malloc(nbins * sizeof *S);
    if (!S)
        return xc_error_set(err, XC_ENOMEM, "out of memory for %zu bins", nbins);
    xc_status st = XC_OK;
    for (int h = 1; h <= o->numharm && !st; h++) {
        size_t L = xc_pulscan_nfund(nbins, h);
        for (size_t i = 0; i < L; i++)
            S[i] = xc_pulscan_sh(P, h, i);
        for (int z = 0; z <= o->zmax && z <= 256 && (size_t)z + 2 <= L && !st; z = z ? 2 * z : 1) {
            size_t w = (size_t)z + 1, lo = (size_t)(h - 1) * w > 1 ? (size_t)(h - 1) * w : 1, hi = L - w;
            for (size_t b = lo / 256 * 256; b <= hi && !st; b += 256) {
                size_t best = 0;
                double v = -INFINITY;
                for (size_t i = b > lo ? b : lo; i < b + 256 && i <= hi; i++) {
                    double x = 0;
                    if (as_sparse && z)
                        x = gpu_loop_sum(S, i, z);
                    else
                        for (size_t m = 0; m < w; m++)
                            x += S[i + m];
                    if (x > v)
                        v = x, best = i;
                }
                if (v > thr[(size_t)(h - 1) * stride + w])
                    st = xc_pspeaks_push(pk, best, (int)w, h, v, err);
            }
        }
    }
    free(S);
    return st;
}

/* A stand-in searcher's run: FFT loaded, search(sp, ctx) into a list,
 * written to CSV; 0, or 2 after a message naming who. */
typedef xc_status (*standin_fn)(const xc_spectrum *sp, void *ctx, xc_candlist *cl, xc_error *e);

static int standin_search(const char *who, const char *fft, const char *csv, standin_fn search, void *ctx)
{
    xc_spectrum sp;
    xc_candlist cl;
    xc_candlist_init(&cl);
    xc_error e;
    xc_status st = xc_spectrum_load(&sp, fft, &e);
    if (!st) {
        st = search(&sp, ctx, &cl, &e);
        xc_spectrum_free(&sp);
    }
    if (!st)
        st = xc_cands_write_csv(&cl, csv, &e);
    if (st)
        fprintf(stderr, "%s: %s\n", who, e.msg);
    xc_candlist_free(&cl);
    return st ? 2 : 0;
}

struct ps_run {
    const xc_searcher *s;
    const xc_psopts *o;
};

static xc_status ps_search(const xc_spectrum *sp, void *ctx, xc_candlist *cl, xc_error *e)
{
    const struct ps_run *r = ctx;
    return xc_pulscan_run(r->s, sp, r->o, cl, e);
}

static int as_pulscan_gpu(int argc, char **argv)
{
    if (argc != 5 || (strcmp(argv[0], "sparse") && strcmp(argv[0], "contiguous"))) {
        fprintf(stderr, "usage: --as-pulscan-gpu sparse|contiguous FFT OUT.csv ZMAX NUMHARM\n");
        return 2;
    }
    as_sparse = !strcmp(argv[0], "sparse");
    xc_searcher s = xc_ps_reference;
    s.peaks = gpu_peaks;
    s.impl.name = as_sparse ? "pulscan-gpu-loop" : "pulscan-gpu-loop-fixed";
    xc_psopts o;
    xc_psopts_default(&o);
    o.zmax = atoi(argv[3]);
    o.numharm = atoi(argv[4]);
    o.rblock = 1;
    struct ps_run r = {&s, &o};
    return standin_search("as-pulscan-gpu", argv[1], argv[2], ps_search, &r);
}

static char self[PATH_MAX];

/* `crosscheck gate GATE -tier quick -quiet -cmd` with this program run as
 * `AS MODE ARGS` (a stand-in); the gate's exit status, its output in out. */
static int gate_self(const char *gate, const char *as, const char *mode, const char *args, char *out, size_t n)
{
    char cmd[4 * PATH_MAX];
    snprintf(cmd, sizeof cmd, "'%s' gate %s -tier quick -quiet -cmd \"'%s' %s %s %s\"", xc_fx_bin(), gate, self, as,
             mode, args);
    return xc_fx_sh(out, n, cmd);
}

/* The Pulscan quick tier with this program as Pulscan GPU in mode. */
static int gate_pulscan_gpu(const char *mode, char *out, size_t n)
{
    return gate_self("search -family pulscan", "--as-pulscan-gpu", mode, "{fft} {out}.csv {zmax} {numharm}", out, n);
}

XC_TEST_IF(test_pulscan_gpu_loop_gate, "planted: Pulscan GPU's boxcar loop through gate search -family pulscan "
           "-cmd fails; the same stand-in with contiguous sums passes", xc_fx_skip_no_bin)
{
    static char out[1 << 15];
    int rc = gate_pulscan_gpu("contiguous", out, sizeof out);
    if (rc != 0)
        printf("\n  contiguous: exit %d, expected 0:\n%s", rc, out);
    CU_ASSERT_EQUAL(rc, 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "9 checks, 0 failed"));
    /* The loop: found where the truth is (its sums still peak there), but
     * the powers are not the boxcar's.  A steady tone (tone-pair's truth,
     * z = 0) fills bin i alone: the "width 2" sum is 2 x bin i, twice the
     * reference's width-1 power (within 0.01 %). */
    rc = gate_pulscan_gpu("sparse", out, sizeof out);
    if (rc != 1)
        printf("\n  sparse: exit %d, expected 1:\n%s", rc, out);
    CU_ASSERT_EQUAL(rc, 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "9 checks, 2 failed"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "FAIL accel-psr: power and sigma vs reference"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "FAIL tone-pair: power and sigma vs reference"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "power 6869.91, reference 3434.81"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "PASS tone-pair: recovers truth r, z"));
}

/* 1 when out holds want; else prints what is missing (the observed output
 * follows in the caller's message). */
static int has(const char *out, const char *want)
{
    if (strstr(out, want))
        return 1;
    printf("\n  expected in the gate's output: \"%s\"", want);
    return 0;
}

/* dedisp's channel drop (docs/PEERS.md): dedisp_execute_guru uses nchans /
 * (32/nbits) whole 32-bit words of channels, so with nchans x nbits not a
 * multiple of 32 the last channels are never read.  The stand-in
 * (tests/peers/dedisp/dedisperse.sh: crosscheck's dedisperser, dedisp's
 * convention, those channels dropped) through `gate dedisperse -convention
 * dedisp -cmd` must fail exactly the quick tier's 4-bit 42-channel case (5
 * words of 8 channels: 40 and 41 unread), with the device's own numbers
 * (every one of 446400 samples differs; amplitude ratio 0.9534 of the
 * reference's, printed to 4 digits, so within 5e-5), and pass the 64-channel
 * 8-bit, 48-channel float and 64-channel impulse cases, whose channels fill
 * whole words: the plane bound there is the float-summation one, the
 * impulses' bit for bit. */
XC_TEST_IF(test_dedisp_channel_drop_gate, "planted: dedisp's dropped tail channels (nchans x nbits not a multiple "
           "of 32) fail gate dedisperse -cmd on 4bit-42ch only", xc_fx_skip_no_bin)
{
    static char out[1 << 15], xml[1 << 16];
    char cmd[5 * PATH_MAX], junit[PATH_MAX];
    xc_fx_tmp_path(junit, sizeof junit, "dedisp-drop.xml");
    remove(junit);
    snprintf(cmd, sizeof cmd, "'%s' gate dedisperse -convention dedisp -tier quick -quiet -junit '%s' -cmd \"sh "
             "tests/peers/dedisp/dedisperse.sh '%s' dedisp {in} {out} {nbits} {nchans} {dm_lo}:{dm_end}:{dm_step}\"",
             xc_fx_bin(), junit, xc_fx_bin());
    int rc = xc_fx_sh(out, sizeof out, cmd), ok = rc == 1;
    xc_fx_slurp_into(junit, xml, sizeof xml);
    if (rc != 1)
        printf("\n  exit %d, expected 1 (a check failed)", rc);
    ok &= has(out, "9 checks, 1 failed");
    ok &= has(out, "FAIL 4bit-42ch: plane vs reference");
    ok &= has(out, "446400 of 446400 samples differ");
    ok &= has(out, "PASS 4bit-42ch: pulse 0");
    static const char *const pass[] = {"8bit-64ch: plane vs reference", "8bit-64ch: pulse 0", "8bit-64ch: pulse 1",
                                       "float32-48ch: plane vs reference", "float32-48ch: pulse 0",
                                       "impulses-64ch: plane vs reference", "impulses-64ch: lone-channel impulses"};
    for (size_t k = 0; k < XC_NCASES(pass); k++) {
        char line[96];
        snprintf(line, sizeof line, "PASS %s", pass[k]);
        ok &= has(out, line);
    }
    /* the JUnit file holds the measured line unwrapped */
    const char *r = strstr(xml, "amplitude ratio max|output| / max|reference| ");
    double ratio = r ? atof(r + strlen("amplitude ratio max|output| / max|reference| ")) : 0;
    if (!ok)
        printf("\n  the gate's output:\n%s", out);
    CU_ASSERT(ok);
    XC_ASSERT_NEAR(ratio, 0.9534, 5e-5);
}

/* SIGPROC fake's -accn and -binary (docs/PEERS.md): its phase t/P(t)
 * drifts twice as fast as the orbit given.  tests/peers/sigproc/fake-model.sh
 * writes fake's model (synth -fake_phase) and the physical signal, searches
 * both (accel -zmax 80) and scores each against both truths with compare
 * cands -truth (fundamental within 2 bins and 4 in z).  The model's series
 * must fail the physical truth (found about 9 bins low at |z| 34, where the
 * truth has |z| 17.5) and pass its own; the physical series passes the
 * physical truth, so the check, not the search, separates them. */
XC_TEST_IF(test_fake_phase_model, "planted: SIGPROC fake's -accn/-binary model (t/P(t)) fails the truth check; "
           "the physical signal passes", xc_fx_skip_no_bin)
{
    static const char *const sig[2][2] = {{"accn", "-accn 10000"}, {"binary", "-binary -bper 0.25 -bphase 0.25"}};
    static char out[1 << 13];
    for (int k = 0; k < 2; k++) {
        char cmd[4 * PATH_MAX];
        snprintf(cmd, sizeof cmd, "sh tests/peers/sigproc/fake-model.sh '%s' '%s/fake-model' %s %s", xc_fx_bin(),
                 xc_test_tmpdir(), sig[k][0], sig[k][1]);
        int rc = xc_fx_sh(out, sizeof out, cmd);
        printf("\n%s", out);
        CU_ASSERT_EQUAL(rc, 0);
        static const char *const want[] = {"phys vs phys: rc 0", "fake vs phys: rc 1", "fake vs fake: rc 0"};
        for (int j = 0; j < 3; j++) {
            char line[64];
            snprintf(line, sizeof line, "%s %s", sig[k][0], want[j]);
            CU_ASSERT_PTR_NOT_NULL(strstr(out, line));
        }
        /* the model's drift: |z| 34 where the physical one is 16 to 18 */
        char line[64];
        snprintf(line, sizeof line, "%s fake vs fake: rc 0; fundamental", sig[k][0]);
        const char *f = strstr(out, line);
        CU_ASSERT(f && strstr(f, "|z| 34.00"));
    }
}

/* ---- AstroAccelerate's 64-trial split shift through gate dedisperse -------

   `test_peer_bugs --as-aa-dedisperse split|whole FIL OUT DM_LO DM_STEP NDM`
   dedisperses FIL as AstroAccelerate does (its dm_shifts s_c, seconds per
   unit DM, float from double: aa_ddtr_strategy.cpp; DMs in samples,
   startdm/tsamp and step/tsamp in float: aa_dedisperse.cpp; sum / nchans
   in float) and writes OUT.npy, float32 [NDM][nsamp - largest shift].
   split: trial d of block b = d / 64 shifted by trunc(s_c (start + 64 b
   step)) + trunc(s_c (d mod 64) step), its shared-memory kernel's shift_two
   and shift_one; whole: trunc(s_c (start + d step)), its cache kernel's
   one term.  The two differ in the split alone. */
static int as_aa_dedisperse(int argc, char **argv)
{
    if (argc != 6 || (strcmp(argv[0], "split") && strcmp(argv[0], "whole"))) {
        fprintf(stderr, "usage: --as-aa-dedisperse split|whole FIL OUT DM_LO DM_STEP NDM\n");
        return 2;
    }
    const int split = !strcmp(argv[0], "split");
    const size_t ndm = (size_t)atol(argv[5]);
    xc_fbopts fo = {XC_BITORDER_LSB, 0};
    xc_fbreader *r = NULL;
    xc_error e;
    if (xc_fbreader_open(&r, argv[1], &fo, &e)) {
        fprintf(stderr, "as-aa-dedisperse: %s\n", e.msg);
        return 2;
    }
    const xc_fbheader *h = xc_fbreader_header(r);
    const int nc = h->nchans;
    const size_t ns = (size_t)h->nsamp;
    const float tsamp = (float)h->tsamp, mstart = (float)atof(argv[3]) / tsamp, mstep = (float)atof(argv[4]) / tsamp;
    float *in = malloc(ns * (size_t)nc * sizeof *in), *s = malloc((size_t)nc * sizeof *s);
    int *sh = malloc(ndm * (size_t)nc * sizeof *sh);
    int rc = !in || !s || !sh || xc_fbreader_read_f32(r, 0, ns, 0, in, &e);
    const double f1 = xc_fbheader_freq(h, 0), k = (double)4148.741601f;
    int maxsh = 0;
    for (int c = 0; !rc && c < nc; c++) {
        const double f = xc_fbheader_freq(h, c);
        s[c] = (float)(k * (1.0 / (f * f) - 1.0 / (f1 * f1)));
    }
    for (size_t d = 0; !rc && d < ndm; d++)
        for (int c = 0; c < nc; c++) {
            const float b = (float)(d / 64) * 64.0f * mstep, i = (float)(d % 64) * mstep;
            int v = split ? (int)truncf(s[c] * (mstart + b)) + (int)truncf(i * s[c])
                          : (int)truncf(s[c] * (mstart + (float)d * mstep));
            sh[d * (size_t)nc + (size_t)c] = v;
            maxsh = v > maxsh ? v : maxsh;
        }
    const size_t nout = rc || (size_t)maxsh >= ns ? 0 : ns - (size_t)maxsh;
    float *out = nout ? malloc(ndm * nout * sizeof *out) : NULL;
    rc |= !out;
    for (size_t d = 0; !rc && d < ndm; d++)
        for (size_t t = 0; t < nout; t++) {
            float sum = 0;
            for (int c = 0; c < nc; c++)
                sum += in[(t + (size_t)sh[d * (size_t)nc + (size_t)c]) * (size_t)nc + (size_t)c];
            out[d * nout + t] = sum / (float)nc;
        }
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s.npy", argv[2]);
    if (!rc && xc_npy_write_f32(path, out, ndm, nout, &e))
        rc = 1;
    if (rc)
        fprintf(stderr, "as-aa-dedisperse: %s\n", nout ? e.msg : "no output sample");
    free(in);
    free(s);
    free(sh);
    free(out);
    xc_fbreader_close(r);
    return rc ? 2 : 0;
}

/* The quick tier of gate dedisperse -convention astroaccelerate with this
 * program as the dedisperser in mode; the gate's exit status, its output
 * in out. */
static int gate_aa(const char *mode, char *out, size_t n)
{
    return gate_self("dedisperse -convention astroaccelerate -format npy", "--as-aa-dedisperse", mode,
                     "{in} {out} {dm_lo} {dm_step} {ndm}", out, n);
}

/* AstroAccelerate run on an H200 (docs/PEERS.md) wrote the split's very
 * numbers on the gate's 8bit-64ch case (DM 0..198 in steps of 2): 154282
 * of 441500 samples differ in the 35 trials from 65 on (trial 64 starts its
 * block: its second term is 0), first at DM 130, sample 0, 132.453125
 * against 128.703125, largest 20.5 at DM 150, sample 3133; the impulse case
 * (50 trials, one block) is bit for bit.  The one-term shift passes both. */
XC_TEST_IF(test_aa_split_shift_gate, "planted: AstroAccelerate's 64-trial split shift through gate dedisperse -cmd "
           "fails from trial 65 as AstroAccelerate does; the one-term shift passes", xc_fx_skip_no_bin)
{
    static char out[1 << 15];
    int rc = gate_aa("whole", out, sizeof out);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "PASS 8bit-64ch: plane vs reference"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "PASS impulses-64ch: plane vs reference"));
    if (!strstr(out, "PASS 8bit-64ch: plane vs reference"))
        printf("\n  whole: exit %d:\n%s", rc, out);
    rc = gate_aa("split", out, sizeof out);
    CU_ASSERT_EQUAL(rc, 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "154282 of 441500 samples differ in 35 DM trials; first at DM 130 (trial 65), "
                                       "sample 0: 132.453125,"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "reference 128.703125; largest |diff| 20.5 at DM 150, sample 3133"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "PASS impulses-64ch: plane vs reference"));
    if (rc != 1 || !strstr(out, "154282 of 441500"))
        printf("\n  split: exit %d, expected 1:\n%s", rc, out);
}

/* ---- AstroAccelerate FDAS's interbinning race through gate search -------

   Its power kernel with fdas_inbin (aa_fdas_device.cu
   cuda_ffdotpow_concat_2d_inbin) runs 14 blocks of 64 threads over each
   889-bin segment (sigblock = KERNLEN 1024 - 2 x 68 + 1, 68 the template
   half width at z 96; half bins 1778 a segment) and loops over the
   segments inside the block.  In the last
   block (bins 832..895) threads tx >= 57 fail `tidx < sigblock`, so only
   shared words 0..113 of local_data_inbin are ever set there, yet each
   thread tx < 57 also stores word tx + 64: for tx 50..56 words 114..120,
   which that block never writes in any pass, to half bins 1778 + 0..6 of
   the segment, the next segment's first 7, which that segment's block 0
   writes properly: whichever store lands last stays.  The words hold what
   the SM's shared memory held before the block started (the kernels
   before it), so the same stale values in every segment of a row: on the
   H200 one power repeated along each row (88.727 at z 70 on tone-drift,
   20365.6 at z 72 on accel-psr, above the pulsar).

   `test_peer_bugs --as-aa-fdas stale|fixed|barrier|nobarrier FFT OUT.csv
   ZMAX NUMHARM`:
   crosscheck's reference accel search (its exact half bins, not
   AstroAccelerate's interbinning, which the power oracle would fail in
   both modes) on AstroAccelerate's segment layout.  stale: in every row,
   half bins i >= 1778 with i mod 1778 < 7 take one value, the row's
   largest power (a value of the program's own, not of that segment, the
   same along the row, and as on the device as strong as the row's best),
   the stale store always landing last (on the device it lost some races:
   the lists' lengths changed from run to run).  The row's largest power is
   found by a first search of the same plane.  fixed: the same program,
   every half bin its own.  The two differ in the race alone.  barrier and
   nobarrier (below): fixed's plane, its peaks kept as AstroAccelerate
   keeps them, by S/N of the plane's mean and SD. */
enum { AA_SEG_HALF = 1778, AA_STALE = 7 };

static struct {
    int stale, pass;   /* pass -1: keep the top plane; 0: find each row's largest power; 1: the search kept */
    int msd;           /* 0: no S/N cut; 1: AstroAccelerate's MSD with the barrier; 2: without it */
    float *rowmax;
    float *plane;      /* ntempl rows of nh half bins (pass -1) */
    long nh, ilo, iend;
    int ntempl;
} aa;

static xc_status aa_create(const xc_accel_searcher *self, const xc_accel_plan *p, void **state, xc_error *err)
{
    (void)self;
    if (!aa.rowmax && !(aa.rowmax = calloc((size_t)p->ntempl, sizeof *aa.rowmax)))
        return xc_error_set(err, XC_ENOMEM, "as-aa-fdas: out of memory");
    if (aa.msd && aa.pass < 0 && !aa.plane) {
        aa.nh = 2 * (long)p->nbins;
        if (!(aa.plane = calloc((size_t)p->ntempl * (size_t)aa.nh, sizeof *aa.plane)))
            return xc_error_set(err, XC_ENOMEM, "as-aa-fdas: out of memory for the plane");
        aa.ilo = 2 * p->rlo;
        aa.iend = 2 * p->rhi < aa.nh ? 2 * p->rhi : aa.nh;
        aa.ntempl = p->ntempl;
    }
    return xc_accel_reference.create(&xc_accel_reference, p, state, err);
}

static void aa_destroy(const xc_accel_searcher *self, void *state)
{
    (void)self;
    xc_accel_reference.destroy(&xc_accel_reference, state);
}

static xc_status aa_plane(const xc_accel_searcher *self, void *state, const xc_accel_plan *p,
                          const xc_accel_block *b, xc_error *err)
{
    (void)self;
    xc_status st = xc_accel_reference.plane(&xc_accel_reference, state, p, b, err);
    for (int t = 0; !st && t < p->ntempl; t++) {
        if (b->want && !b->want[t])
            continue;
        float *row = b->out + (size_t)t * b->nr;
        for (size_t j = 0; j < b->nr; j++) {
            long i = b->i0 + (long)j;
            if (aa.pass < 0) {
                if (i < aa.nh)
                    aa.plane[(size_t)t * (size_t)aa.nh + (size_t)i] = row[j];
            } else if (aa.pass == 0)
                aa.rowmax[t] = row[j] > aa.rowmax[t] ? row[j] : aa.rowmax[t];
            else if (aa.stale && i >= AA_SEG_HALF && i % AA_SEG_HALF < AA_STALE)
                row[j] = aa.rowmax[t];
        }
    }
    return st;
}

struct aa_run {
    const xc_accel_searcher *s;
    const xc_accel_opts *o;
};

/* ---- AstroAccelerate FDAS's mean and SD: the reduction without a barrier --

   Its S/N is (P - mean)/SD with the mean and SD of the plane from
   MSD_grid_outlier_rejection (src/aa_device_MSD.cu, sigma_constant 3 in
   the glue, as its input_files example): partials (sum, sum of squared
   deviations) of 32 x 32 cells, then one block of 1024 threads
   (MSD_BLN_grid_outlier_rejection, src/aa_device_MSD_outlier_rejection_kernel.cu)
   merges them: each thread its cells tid, tid + 1024, ..., a tree
   1024 -> 32 over the shared arrays Ms, Ss, js, a warp shuffle 32 -> 1;
   then 5 more rounds over the cells whose mean lies within 3 SD of the
   last round's.  Each round does `__syncthreads(); Ms[tid] = M; Ss[tid] =
   S; js[tid] = j;` and the tree's first step (i = 512) reads js[i + tid],
   Ms[i + tid], Ss[i + tid] with no barrier after those stores: thread tid
   may read slot 512 + tid before its warp stored it (compute-sanitizer
   racecheck: 14336 RAW hazards there on an H200).

   The model (race 1): in the first round the first step reads the upper
   512 slots as they were before the stores, 0 here (memory no kernel of
   this run wrote; CUDA leaves it undefined, and an earlier kernel's words
   do the same harm unless they happen to equal the partial).  A count jv
   of 0 in the kernel's merge, S += Ss + (j/(jv (j + jv))) ftemp^2 with
   ftemp = jv/j M - Ms = 0, is S + inf x 0: NaN, so the round's SD is NaN;
   every later round then rejects every cell (its comparisons with NaN are
   false), ends at 0/0 and stays NaN, and (P - NaN)/NaN > 10 keeps no peak:
   no list, AstroAccelerate's empty output.  The later rounds' first steps
   are read after the stores: a stale slot there holds the previous round's
   partial of the same cells, nearly the same.  race 0: the barrier in
   place.  Our cells are 1024 half bins of one z row (the quick tier has
   fewer than 32 rows); the reduction is the kernel's, in double.  The
   modes: barrier (race 0) and nobarrier (race 1) search as fixed and keep
   the candidates above S/N 10, which keep crosscheck's sigma (the gate's
   checks judge it); the plane's mean and SD come from a first search of
   one harmonic, whose list is the kept one when NUMHARM is 1. */
enum { MSD_NT = 1024, MSD_HALF = 512, MSD_WARP = 32, MSD_ROUNDS = 5 };

typedef struct {
    double M, S, j;
} aa_msd_part;

/* The kernel's merge of (Mv, Sv, jv) into p; skip: its outlier rounds'
 * form (an empty side is skipped or taken whole). */
static void msd_merge(aa_msd_part *p, aa_msd_part v, int skip)
{
    if (skip && v.j == 0)
        return;
    if (skip && p->j == 0) {
        *p = v;
        return;
    }
    double ftemp = v.j / p->j * p->M - v.M;
    p->S = p->S + v.S + (p->j / (v.j * (p->j + v.j))) * ftemp * ftemp;
    p->M += v.M;
    p->j += v.j;
}

/* One round of the block: reg[tid] each thread's merged cells; tree, then
 * shuffle; lane 0's result.  stale: the upper slots as the racing first
 * step reads them (NULL: after the stores). */
static aa_msd_part msd_block(aa_msd_part *reg, const aa_msd_part *stale, int skip)
{
    for (int i = MSD_HALF; i > MSD_WARP / 2; i >>= 1)
        for (int tid = 0; tid < i; tid++)
            msd_merge(&reg[tid], stale && i == MSD_HALF ? stale[tid] : reg[i + tid], skip);
    for (int q = MSD_WARP / 2; q > 0; q >>= 1)
        for (int l = 0; l < q; l++)
            msd_merge(&reg[l], reg[l + q], skip);
    return reg[0];
}

/* One round over n cell partials: every cell (f < 0, the first round) or
 * those whose mean lies within mult SD of mean (the outlier rounds); each
 * thread's cells merged in order (the first taken whole), then the block;
 * with n <= 1024 the kernel's other branch, thread 0 alone, has no tree
 * and no race.  race: the first round's missing barrier. */
static aa_msd_part msd_round(const aa_msd_part *cell, size_t n, int f, double mean, double sd, double mult, int race)
{
    static aa_msd_part reg[MSD_NT];
    static const aa_msd_part zero[MSD_HALF];
    size_t nt = n > MSD_NT ? MSD_NT : 1;
    for (size_t tid = 0; tid < nt; tid++) {
        reg[tid] = (aa_msd_part){0, 0, 0};
        for (size_t pos = tid; pos < n; pos += nt) {
            double m = cell[pos].M / cell[pos].j;
            if (f < 0 || (m > mean - mult * sd && m < mean + mult * sd))
                msd_merge(&reg[tid], cell[pos], 1);
        }
    }
    return nt == 1 ? reg[0] : msd_block(reg, race && f < 0 ? zero : NULL, f >= 0);
}

/* Mean and SD of n cell partials as the kernel with multiplier mult: the
 * first round and 5 outlier rounds; race: the first round's missing
 * barrier (above). */
static void aa_msd(const aa_msd_part *cell, size_t n, double mult, int race, double *mean, double *sd)
{
    *mean = *sd = 0;
    for (int f = -1; f < MSD_ROUNDS; f++) {
        aa_msd_part r = msd_round(cell, n, f, *mean, *sd, mult, race);
        *mean = r.M / r.j, *sd = sqrt(r.S / r.j);
    }
}

/* The kept plane's cells (whole ones only, as its grid) into the mean and
 * SD; XC_EINVAL when there is none. */
static xc_status aa_plane_msd(int ntempl, double *mean, double *sd, xc_error *e)
{
    long ncol = (aa.iend - aa.ilo) / MSD_NT;
    size_t n = (size_t)ntempl * (size_t)(ncol > 0 ? ncol : 0);
    if (n == 0)
        return xc_error_set(e, XC_EINVAL, "as-aa-fdas: no whole cell of %d half bins in the plane", MSD_NT);
    aa_msd_part *cell = malloc(n * sizeof *cell);
    if (!cell)
        return xc_error_set(e, XC_ENOMEM, "as-aa-fdas: out of memory for %zu cells", n);
    for (size_t c = 0; c < n; c++) {
        const float *v = aa.plane + (c / (size_t)ncol) * (size_t)aa.nh + (size_t)aa.ilo + c % (size_t)ncol * MSD_NT;
        double sum = 0, ss = 0;
        for (int k = 0; k < MSD_NT; k++)
            sum += v[k];
        for (int k = 0; k < MSD_NT; k++)
            ss += (v[k] - sum / MSD_NT) * (v[k] - sum / MSD_NT);
        cell[c] = (aa_msd_part){sum, ss, MSD_NT};
    }
    aa_msd(cell, n, 3.0, aa.msd == 2, mean, sd);
    free(cell);
    return XC_OK;
}

/* AstroAccelerate keeps a peak when (P - mean)/SD > 10; a sum of h
 * harmonics (FDAS has none; crosscheck's reference sums them) is held to
 * (P - h mean)/(sqrt(h) SD) > 10, the same cut on the sum's own mean and
 * SD.  The candidates keep crosscheck's sigma. */
static void aa_keep_snr(xc_candlist *cl, double mean, double sd)
{
    size_t k = 0;
    for (size_t m = 0; m < cl->n; m++) {
        double h = cl->c[m].numharm;
        if ((cl->c[m].power - h * mean) / (sqrt(h) * sd) > 10)
            cl->c[k++] = cl->c[m];
    }
    cl->n = k;
}

/* Two searches of the same plane: the first finds each row's largest
 * power, the second (kept) writes it over the stale half bins. */
static xc_status aa_search(const xc_spectrum *sp, void *ctx, xc_candlist *cl, xc_error *e)
{
    const struct aa_run *r = ctx;
    xc_status st = XC_OK;
    double mean = 0, sd = 0;
    if (aa.msd) {
        xc_accel_opts top = *r->o;
        top.numharm = 1;
        aa.pass = -1;
        st = xc_accel_run(r->s, sp, &top, cl, e);
        if (!st)
            st = aa_plane_msd(aa.ntempl, &mean, &sd, e);
    }
    /* With one harmonic the first search's list is the kept search's. */
    for (aa.pass = aa.stale ? 0 : 1; !st && aa.pass < 2 && !(aa.msd && r->o->numharm == 1); aa.pass++) {
        xc_candlist_free(cl);
        xc_candlist_init(cl);
        st = xc_accel_run(r->s, sp, r->o, cl, e);
    }
    if (!st && aa.msd)
        aa_keep_snr(cl, mean, sd);
    return st;
}

static int as_aa_fdas(int argc, char **argv)
{
    static const char *const mode[] = {"fixed", "stale", "barrier", "nobarrier"};
    int m = 0;
    while (argc == 5 && m < (int)XC_NCASES(mode) && strcmp(argv[0], mode[m]))
        m++;
    if (argc != 5 || m == (int)XC_NCASES(mode)) {
        fprintf(stderr, "usage: --as-aa-fdas fixed|stale|barrier|nobarrier FFT OUT.csv ZMAX NUMHARM\n");
        return 2;
    }
    aa.stale = m == 1;
    aa.msd = m >= 2 ? m - 1 : 0;
    xc_accel_searcher s = xc_accel_reference;
    static const char *const name[] = {"aa-fdas-inbin-fixed", "aa-fdas-inbin-race", "aa-fdas-msd-barrier",
                                       "aa-fdas-msd-race"};
    s.impl.name = name[m];
    s.impl.caps = 0;
    s.create = aa_create;
    s.plane = aa_plane;
    s.destroy = aa_destroy;
    xc_accel_opts o;
    xc_accel_opts_default(&o);
    o.zmax = atoi(argv[3]);
    o.numharm = atoi(argv[4]);
    struct aa_run r = {&s, &o};
    int rc = standin_search("as-aa-fdas", argv[1], argv[2], aa_search, &r);
    free(aa.rowmax);
    free(aa.plane);
    return rc;
}

/* The quick tier of gate search with this program as AstroAccelerate's
 * FDAS in mode; the gate's exit status, its output in out. */
static int gate_aa_fdas(const char *mode, char *out, size_t n)
{
    return gate_self("search", "--as-aa-fdas", mode, "{fft} {out}.csv {zmax} {numharm}", out, n);
}

/* The quick tier with the FDAS stand-in in mode: 1 when the gate exits
 * rc and its output holds each of want[0..n); else prints the exit
 * status, what is missing and the output. */
static int gate_aa_fdas_expect(const char *mode, int rc, const char *const *want, size_t n)
{
    static char out[1 << 15];
    int got = gate_aa_fdas(mode, out, sizeof out), ok = got == rc;
    if (!ok)
        printf("\n  %s: exit %d, expected %d%s", mode, got, rc, rc ? " (a check failed)" : "");
    for (size_t k = 0; k < n; k++)
        ok &= has(out, want[k]);
    if (!ok)
        printf("\n  the gate's output (%s):\n%s", mode, out);
    return ok;
}

/* The race's stale values through the gate: the fixed search passes all 14
 * checks (its plane is the reference's: power and sigma differ by 0); the
 * stale one fails the power oracle on both tone cases, which checks every
 * candidate (sigma > 0) against the direct correlation at its r and z
 * within 2e-3: tone-drift's own power (649.02 at z 24) copied to r 2667 (3
 * segments of 889 bins), where the correlation is 0.05, and on tone-harm a
 * summed pair at r 16002 (18 segments).  The truth and the reference's
 * candidates are still found, with their own powers: crosscheck's sigma is
 * the chi-square tail of the normalised power, which stale plane values do
 * not move, where AstroAccelerate's S/N divides by the SD of a plane they
 * inflate (on the device the pulsar fell below its S/N 10).  accel-psr's
 * checks judge the truth and the reference's candidates only, so its 12
 * stale candidates beside the pulsar pass. */
XC_TEST_IF(test_aa_fdas_inbin_race_gate, "planted: AstroAccelerate FDAS's interbinning race (stale first 7 half bins "
           "of each 889-bin segment) fails gate search's power oracle; the same search without it passes",
           xc_fx_skip_no_bin)
{
    static const char *const pass[] = {"14 checks, 0 failed"};
    CU_ASSERT(gate_aa_fdas_expect("fixed", 0, pass, XC_NCASES(pass)));
    static const char *const want[] = {
        "14 checks, 2 failed",
        "FAIL tone-drift: power vs direct correlation",
        "worst at r 2667.00 z 24.0 numharm 1: power 649.01886, direct 0.049948131",
        "FAIL tone-harm: power vs direct correlation",
        "worst at r 16002.00 z 0.0 numharm 2: power 5130.3052, direct 0.46385901",
        "PASS accel-psr: recovers truth r, z",
        "PASS tone-drift: recovers truth r, z",
        "1 of 1 found (the output has 13 candidates)",
        "1 of 1 found (the output has 39 candidates)"};
    CU_ASSERT(gate_aa_fdas_expect("stale", 1, want, XC_NCASES(want)));
}

/* The reduction's missing barrier through the gate (model above): without
 * it the mean and SD are NaN, no peak passes (P - mean)/SD > 10 and the
 * list is empty, as AstroAccelerate's lost lists on tone-drift: the truth
 * (r 4000.20, z 23.3) and the reference's candidate (r 4000, z 24, sigma
 * 24.80) not found; accel-psr the same; tone-harm (zmax 4: 315 cells, at
 * most 1024) takes the kernel's one-thread branch, which has no race, and
 * passes.  With the barrier the same stand-in passes all 14 checks (the
 * ones fixed passes; tone-drift's 3 candidates kept; the plane's mean
 * 0.998 and SD 1.197 there, 2583 cells; on tone-harm the cut drops one of
 * fixed's 2 candidates, whose checks still pass).  The messages are the
 * gate's, matched whole. */
XC_TEST_IF(test_aa_fdas_msd_race_gate, "planted: AstroAccelerate FDAS's mean/SD reduction without its barrier "
           "(NaN SD: no peak kept) fails gate search on tone-drift; the same search with the barrier passes",
           xc_fx_skip_no_bin)
{
    static const char *const pass[] = {"14 checks, 0 failed", "PASS tone-drift: recovers truth r, z",
                                       "PASS tone-drift: finds the accel reference's candidate",
                                       "1 of 1 found (the output has 3 candidates)"};
    CU_ASSERT(gate_aa_fdas_expect("barrier", 0, pass, XC_NCASES(pass)));
    static const char *const fail[] = {
        "14 checks, 5 failed",
        "FAIL tone-drift: recovers truth r, z                      fundamental not found above sigma 6",
        "0 of 1 found (the output has 0 candidates); missing: r 4000.00 z 24.0 sigma 24.80",
        "FAIL tone-drift: power vs direct correlation              no candidate above the cut",
        "FAIL accel-psr: recovers truth r, z",
        "PASS tone-harm: recovers truth r, z"};
    CU_ASSERT(gate_aa_fdas_expect("nobarrier", 1, fail, XC_NCASES(fail)));
}

int main(int argc, char **argv)
{
    if (argc >= 2 && !strcmp(argv[1], "--as-pulscan-gpu"))
        return as_pulscan_gpu(argc - 2, argv + 2);
    if (argc >= 2 && !strcmp(argv[1], "--as-aa-dedisperse"))
        return as_aa_dedisperse(argc - 2, argv + 2);
    if (argc >= 2 && !strcmp(argv[1], "--as-aa-fdas"))
        return as_aa_fdas(argc - 2, argv + 2);
    if (!realpath(argv[0], self))
        snprintf(self, sizeof self, "%s", argv[0]);
    /* The gate's runs share each case's synthetic input and reference
     * output, made by the first run that needs them (cli/gate/gate_cache.c):
     * every run still judges its tool against them. */
    setenv("CROSSCHECK_GATE_CACHE", xc_fx_tmp("gate-cache"), 1);
    return xc_test_main("peer_bugs");
}
