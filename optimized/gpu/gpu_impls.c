/* The descriptors of the CUDA implementations (built when the Makefile finds
 * nvcc).  Without a usable device they report the CUDA runtime's reason and
 * every caller passes them over. */
#include <stdlib.h>
#include <string.h>

#include "core/dedisp/approx/xc_ddapprox.h"
#include "optimized/gpu/xc_gpu.h"

/* Without a device every entry reports the CUDA runtime's reason. */
static int available(const xc_impl *self, char *why, size_t n)
{
    (void)self;
    return xc_gpu_available(why, n);
}

/* What distinguishes gpu from gpu-direct: the kernel path. */
typedef struct {
    int force_direct;   /* 1: the direct (L1/cache) kernel for every range */
} dd_variant;

static const dd_variant smem = {.force_direct = 0}, direct = {.force_direct = 1};

/* The plan's state keeps device buffers, the uploaded delays and the tuning
 * between gulps (xc_gpu_ddstate), and what the last execute ran (stats). */
typedef struct {
    xc_gpu_ddstate *st;
    xc_gpu_ddinfo info;
} dd_state;

static void dd_destroy(const xc_dedisperser *self, void *state)
{
    (void)self;
    dd_state *s = state;
    if (s)
        xc_gpu_ddstate_destroy(s->st);
    free(s);
}

static xc_status dd_plan(const xc_dedisperser *self, const xc_ddjob *proto, void **state, xc_error *err)
{
    (void)proto;
    dd_state *s = calloc(1, sizeof *s);
    if (!s)
        return xc_error_set(err, XC_ENOMEM, "%s: out of memory for a plan", self->impl.name);
    xc_status st = xc_gpu_ddstate_create(&s->st, err);
    if (st) {
        dd_destroy(self, s);
        return st;
    }
    *state = s;
    return XC_OK;
}

static xc_status dd_execute(const xc_dedisperser *self, void *state, const xc_ddjob *job, xc_plane *out,
                            xc_error *err)
{
    const dd_variant *v = self->impl.data;
    dd_state *s = state;
    s->info = (xc_gpu_ddinfo){.force_direct = v->force_direct};
    return xc_dedisperse_gpu_exec(s->st, job, out, &s->info, err);
}

/* "smem" when every range ran a shared-memory kernel, "direct" when every
 * one ran the direct kernel, else "mixed". */
static void dd_stats(const xc_dedisperser *self, const void *state, xc_ddstats *out)
{
    (void)self;
    const xc_gpu_ddinfo *in = &((const dd_state *)state)->info;
    int smem = 0;
    for (int k = 0; k < in->nranges; k++)
        smem += !strncmp(in->range[k].kernel, "smem", 4);
    out->path = smem == in->nranges ? "smem" : smem == 0 ? "direct" : "mixed";
    out->kernel_ms = in->kernel_ms;
    out->setup_ms = in->setup_ms;
    out->exec_ms = in->exec_ms;
    out->chunks = in->nchunks;
    out->pinned_bytes = in->pinned_bytes;
}

/* Integer input bit for bit; float input within 1 x N 2^-24 max|ref|. */
const xc_dedisperser xc_dd_gpu = {
    .impl = {.family = XC_FAMILY_DEDISPERSE, .name = "gpu", .tol = {XC_TOL_ROUNDING, 1.0}, .caps = XC_CAP_DEVICE,
             .available = available, .data = &smem,
             .desc = "CUDA shared-memory direct dedispersion (AstroAccelerate GPU algorithm)"},
    .plan = dd_plan, .execute = dd_execute, .destroy = dd_destroy, .stats = dd_stats};

/* The same kernels forced onto the direct (L1/cache) kernel that the
 * shared-memory one falls back to, so the conformance suite and the
 * benchmark check and time that path on its own. */
const xc_dedisperser xc_dd_gpu_direct = {
    .impl = {.family = XC_FAMILY_DEDISPERSE, .name = "gpu-direct", .tol = {XC_TOL_ROUNDING, 1.0}, .caps = XC_CAP_DEVICE,
             .available = available, .data = &direct,
             .desc = "CUDA direct dedispersion through the cache (the gpu fallback kernel alone)"},
    .plan = dd_plan, .execute = dd_execute, .destroy = dd_destroy, .stats = dd_stats};

/* Subband and tree on the device: core's plans, the CPU versions' order of
 * exact sums (optimized/gpu/dd_approx_gpu.cu), so each is its reference bit
 * for bit on integer input and is judged, like them, by its declared
 * smearing bound (signal-loss 0.8: reference/subband_ref.c and
 * reference/tree_ref.c derive it for the conformance suite's measure).  One
 * plan serves the three; the algorithm is the entry's data. */
const xc_dedisperser xc_dd_subband_gpu = {
    .impl = {.family = XC_FAMILY_DEDISPERSE, .name = "subband-gpu", .tol = {XC_TOL_SIGNAL_LOSS, 0.8},
             .caps = XC_CAP_DEVICE | XC_CAP_APPROXIMATE, .available = available, .data = &xc_ddapprox_subband,
             .desc = "CUDA two-stage subband dedispersion (PRESTO prepsubband, Barsdell et al. 2012 s4), exact sums"},
    .plan = xc_gpu_approx_plan, .execute = xc_gpu_approx_execute, .destroy = xc_gpu_approx_destroy,
    .bound = xc_ddapprox_bounds, .stats = xc_gpu_approx_stats};

const xc_dedisperser xc_dd_tree_gpu = {
    .impl = {.family = XC_FAMILY_DEDISPERSE, .name = "tree-gpu", .tol = {XC_TOL_SIGNAL_LOSS, 0.8},
             .caps = XC_CAP_DEVICE | XC_CAP_APPROXIMATE, .available = available, .data = &xc_ddapprox_tree,
             .desc = "CUDA piecewise-linear tree dedispersion (Taylor 1974; Barsdell et al. 2012 s3.1.1), butterfly "
                     "steps in device memory"},
    .plan = xc_gpu_approx_plan, .execute = xc_gpu_approx_execute, .destroy = xc_gpu_approx_destroy,
    .bound = xc_ddapprox_bounds, .stats = xc_gpu_approx_stats};

const xc_dedisperser xc_dd_tree_padded_gpu = {
    .impl = {.family = XC_FAMILY_DEDISPERSE, .name = "tree-padded-gpu", .tol = {XC_TOL_SIGNAL_LOSS, 0.8},
             .caps = XC_CAP_DEVICE | XC_CAP_APPROXIMATE, .available = available, .data = &xc_ddapprox_tree_padded,
             .desc = "CUDA frequency-padded tree dedispersion (Barsdell et al. 2012 s3.1.2), butterfly steps in "
                     "device memory"},
    .plan = xc_gpu_approx_plan, .execute = xc_gpu_approx_execute, .destroy = xc_gpu_approx_destroy,
    .bound = xc_ddapprox_bounds, .stats = xc_gpu_approx_stats};

static xc_status ps_powers(const xc_searcher *self, const xc_spectrum *sp, const xc_psopts *o, double *P,
                           xc_error *err)
{
    (void)self;
    return xc_pulscan_powers_gpu(sp, o, P, err);
}

/* The device computes its own powers and thresholds and scores its peaks. */
static xc_status ps_peaks(const xc_searcher *self, const xc_spectrum *sp, const xc_psopts *o, const double *P,
                          const double *thr, xc_pspeaks *pk, xc_error *err)
{
    (void)self;
    (void)P;
    (void)thr;
    return xc_pulscan_peaks_gpu(sp, o, pk, err);
}

/* Sessions keep a plan (buffers, thresholds, widths) for every spectrum of
 * their length. */
static xc_status ps_plan(const xc_searcher *self, size_t nbins, const xc_psopts *o, void **state, xc_error *err)
{
    (void)self;
    xc_psgpu_plan *p = NULL;
    xc_status st = xc_pulscan_gpu_plan(nbins, o, &p, err);
    *state = p;
    return st;
}

static xc_status ps_peaks_in(const xc_searcher *self, void *state, const xc_spectrum *sp, const xc_psopts *o,
                             const double *P, const double *thr, xc_pspeaks *pk, xc_error *err)
{
    (void)self;
    (void)o;
    (void)P;
    (void)thr;
    return xc_pulscan_gpu_peaks_planned((xc_psgpu_plan *)state, sp, pk, err);
}

static xc_status ps_replan(const xc_searcher *self, void *state, size_t nbins, const xc_psopts *o, const double *thr,
                           xc_error *err)
{
    (void)self;
    return xc_pulscan_gpu_replan((xc_psgpu_plan *)state, nbins, o, thr, err);
}

static void ps_destroy(const xc_searcher *self, void *state)
{
    (void)self;
    xc_pulscan_gpu_destroy((xc_psgpu_plan *)state);
}

/* Powers and boxcars bit-identical; log p computed on the device (ulps from
 * the host's libm), hence sigma within 1e-9 rather than equal.  Significance
 * and sifting run on the host's threads. */
const xc_searcher xc_ps_gpu = {
    .impl = {.family = XC_FAMILY_PULSCAN, .name = "gpu", .tol = {XC_TOL_RELATIVE, 1e-9},
             .caps = XC_CAP_DEVICE | XC_CAP_THREADED, .available = available,
             .desc = "CUDA: Pulscan's GPU stages, float screen + exact double boxcars, device log p"},
    .powers = ps_powers, .peaks = ps_peaks, .own_powers = 1, .plan = ps_plan, .peaks_in = ps_peaks_in,
    .destroy = ps_destroy, .checks_finite = 1, .replan = ps_replan};

/* Matched-filter accel/jerk search: the plane on the device (in one pass
 * with an FFT of our own for segments of 2^11..2^14 points, else cuFFT); with
 * preset exact the harmonic sums and thresholds too (only points above
 * threshold come back), with preset presto core sums accelsearch's way on
 * the host.  Tolerance against the reference (double, direct), as the CPU
 * searcher's: relative 2e-3 on candidates' power and sigma.  Both are float
 * overlap-save correlations of the same segments with the same float-rounded
 * templates; the device FFT's single-precision error (ours: rms 2e-7 of
 * the output's rms against FFTW's double transform, test_accel_gpu_fft;
 * cuFFT's documented accuracy is of the same order as FFTW's in float), like
 * FFTW's, is O(1e-7 log2 L) of the segment's total power, so the bound the CPU entry states holds for the
 * same reason: the worst point is a weak one beside a strong signal in the
 * same segment (error ~1e-6 x strong/weak power); the rest (float templates,
 * fused multiply-adds in the products) is ~1e-7.  Identical run to run: the
 * same kernels on the same data (cuFFT is deterministic for a fixed plan); the
 * device's sums are float (core's are double: a few 1e-7), and the order in
 * which points above threshold arrive (an atomic counter) does not reach the
 * list, core's exact selection being order-independent. */
const xc_accel_searcher xc_accel_gpu = {
    .impl = {.family = XC_FAMILY_ACCEL, .name = "gpu", .tol = {XC_TOL_RELATIVE, 2e-3},
             .caps = XC_CAP_DEVICE | XC_CAP_THREADED, .available = available,
             .desc = "CUDA: overlap-save correlation, the plane in one pass (own block FFT; cuFFT for other segment lengths), templates' FFTs kept on the device"},
    .create = xc_accel_gpu_create, .plane = xc_accel_gpu_plane, .destroy = xc_accel_gpu_destroy,
    .search = xc_accel_gpu_search, .search_amps = xc_accel_gpu_search_amps, .keeps = xc_accel_gpu_keeps,
    .takes_gate = 1};

/* Single-pulse search on the device (optimized/gpu/sp_gpu*.cu): the plane
 * on the host (copied in) or already on the device (a dedisperser's, read
 * where it lies); only the detections come back.  Tolerance as the cpu
 * entry's: integer-valued planes give the reference's detections bit for
 * bit (exact prefix sums, exact order statistics, the S/N formula without
 * FMA), float planes an S/N within rounding of the reference's. */
const xc_spsearcher xc_sp_gpu = {
    .impl = {.family = XC_FAMILY_SINGLEPULSE, .name = "gpu", .tol = {XC_TOL_ROUNDING, 1}, .caps = XC_CAP_DEVICE,
             .available = available,
             .desc = "CUDA boxcar single-pulse search: sampled-selection medians, tile prefix sums, plane read where it lies"},
    .plan = xc_sp_gpu_plan, .execute = xc_sp_gpu_execute, .destroy = xc_sp_gpu_destroy, .row_stats = 1};
