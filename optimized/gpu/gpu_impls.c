/* The descriptors of the CUDA implementations (built when the Makefile finds
 * nvcc).  Without a usable device they report the CUDA runtime's reason and
 * every caller passes them over. */
#include "core/dedisp/xc_subband.h"
#include "core/dedisp/xc_tree.h"
#include "optimized/gpu/xc_gpu.h"

/* The plan's state keeps device buffers, the uploaded delays and the tuning
 * between gulps (xc_gpu_ddstate). */
static xc_status dd_plan(const xc_ddjob *proto, void **state, xc_error *err)
{
    (void)proto;
    return xc_gpu_ddstate_create((xc_gpu_ddstate **)state, err);
}

static xc_status dd_execute(void *state, const xc_ddjob *job, xc_plane *out, xc_error *err)
{
    return xc_dedisperse_gpu_exec(state, job, out, NULL, err);
}

static void dd_destroy(void *state) { xc_gpu_ddstate_destroy(state); }

/* Integer input bit for bit; float input within 1 x N 2^-24 max|ref|. */
const xc_dedisperser xc_dd_gpu = {
    {XC_FAMILY_DEDISPERSE, "gpu", "CUDA shared-memory direct dedispersion (AstroAccelerate GPU algorithm)",
     {XC_TOL_ROUNDING, 1.0}, XC_CAP_DEVICE, xc_gpu_available},
    dd_plan, dd_execute, dd_destroy, NULL, NULL};

/* The same kernels forced onto the direct (L1/cache) kernel that the
 * shared-memory one falls back to, so the conformance suite and the
 * benchmark check and time that path on its own. */
static xc_status dd_execute_direct(void *state, const xc_ddjob *job, xc_plane *out, xc_error *err)
{
    xc_gpu_ddinfo info = {.force_direct = 1};
    return xc_dedisperse_gpu_exec(state, job, out, &info, err);
}

const xc_dedisperser xc_dd_gpu_direct = {
    {XC_FAMILY_DEDISPERSE, "gpu-direct", "CUDA direct dedispersion through the cache (the gpu fallback kernel alone)",
     {XC_TOL_ROUNDING, 1.0}, XC_CAP_DEVICE, xc_gpu_available},
    dd_plan, dd_execute_direct, dd_destroy, NULL, NULL};

/* Subband and tree on the device: core's plans, the CPU versions' order of
 * exact sums (optimized/gpu/dd_approx_gpu.cu), so each is its reference bit
 * for bit on integer input and is judged, like them, by its declared
 * smearing bound (signal-loss 0.8: reference/subband_ref.c and
 * reference/tree_ref.c derive it for the conformance suite's measure). */
static xc_status ap_plan_sub(const xc_ddjob *proto, void **state, xc_error *err)
{
    return xc_gpu_approx_plan(proto, state, 0, err);
}

static xc_status ap_plan_pw(const xc_ddjob *proto, void **state, xc_error *err)
{
    return xc_gpu_approx_plan(proto, state, 1, err);
}

static xc_status ap_plan_pad(const xc_ddjob *proto, void **state, xc_error *err)
{
    return xc_gpu_approx_plan(proto, state, 2, err);
}

const xc_dedisperser xc_dd_subband_gpu = {
    {XC_FAMILY_DEDISPERSE, "subband-gpu",
     "CUDA two-stage subband dedispersion (PRESTO prepsubband, Barsdell et al. 2012 s4), exact sums",
     {XC_TOL_SIGNAL_LOSS, 0.8}, XC_CAP_DEVICE | XC_CAP_APPROXIMATE, xc_gpu_available},
    ap_plan_sub, xc_gpu_approx_execute, xc_gpu_approx_destroy, NULL, xc_subband_bounds};

const xc_dedisperser xc_dd_tree_gpu = {
    {XC_FAMILY_DEDISPERSE, "tree-gpu",
     "CUDA piecewise-linear tree dedispersion (Taylor 1974; Barsdell et al. 2012 s3.1.1), butterfly steps in "
     "device memory",
     {XC_TOL_SIGNAL_LOSS, 0.8}, XC_CAP_DEVICE | XC_CAP_APPROXIMATE, xc_gpu_available},
    ap_plan_pw, xc_gpu_approx_execute, xc_gpu_approx_destroy, NULL, xc_tree_bounds_piecewise};

const xc_dedisperser xc_dd_tree_padded_gpu = {
    {XC_FAMILY_DEDISPERSE, "tree-padded-gpu",
     "CUDA frequency-padded tree dedispersion (Barsdell et al. 2012 s3.1.2), butterfly steps in device memory",
     {XC_TOL_SIGNAL_LOSS, 0.8}, XC_CAP_DEVICE | XC_CAP_APPROXIMATE, xc_gpu_available},
    ap_plan_pad, xc_gpu_approx_execute, xc_gpu_approx_destroy, NULL, xc_tree_bounds_padded};

static xc_status ps_powers(const xc_spectrum *sp, const xc_psopts *o, double *P, xc_error *err)
{
    return xc_pulscan_powers_gpu(sp, o, P, err);
}

/* The device computes its own powers and thresholds and scores its peaks. */
static xc_status ps_peaks(const xc_spectrum *sp, const xc_psopts *o, const double *P, const double *thr,
                          xc_pspeaks *pk, xc_error *err)
{
    (void)P;
    (void)thr;
    return xc_pulscan_peaks_gpu(sp, o, pk, err);
}

/* Sessions keep a plan (buffers, thresholds, widths) for every spectrum of
 * their length. */
static xc_status ps_plan(size_t nbins, const xc_psopts *o, void **state, xc_error *err)
{
    xc_psgpu_plan *p = NULL;
    xc_status st = xc_pulscan_gpu_plan(nbins, o, &p, err);
    *state = p;
    return st;
}

static xc_status ps_peaks_in(void *state, const xc_spectrum *sp, const xc_psopts *o, const double *P,
                             const double *thr, xc_pspeaks *pk, xc_error *err)
{
    (void)o;
    (void)P;
    (void)thr;
    return xc_pulscan_gpu_peaks_planned((xc_psgpu_plan *)state, sp, pk, err);
}

static void ps_destroy(void *state) { xc_pulscan_gpu_destroy((xc_psgpu_plan *)state); }

/* Powers and boxcars bit-identical; log p computed on the device (ulps from
 * the host's libm), hence sigma within 1e-9 rather than equal.  Significance
 * and sifting run on the host's threads. */
const xc_searcher xc_ps_gpu = {
    {XC_FAMILY_PULSCAN, "gpu", "CUDA: Pulscan's GPU stages, float screen + exact double boxcars, device log p",
     {XC_TOL_RELATIVE, 1e-9}, XC_CAP_DEVICE | XC_CAP_THREADED, xc_gpu_available},
    ps_powers, ps_peaks, 1, ps_plan, ps_peaks_in, ps_destroy};

/* Matched-filter accel/jerk search: the plane on the device (cuFFT); with
 * preset exact the harmonic sums and thresholds too (only points above
 * threshold come back), with preset presto core sums accelsearch's way on
 * the host.  Tolerance against the reference (double, direct), as the CPU
 * searcher's: relative 2e-3 on candidates' power and sigma.  Both are float
 * overlap-save correlations of the same segments with the same float-rounded
 * templates; cuFFT's single-precision error, like FFTW's, is O(1e-7 log2 L)
 * of the segment's total power (cuFFT's documented accuracy is of the same
 * order as FFTW's in float), so the bound the CPU entry states holds for the
 * same reason: the worst point is a weak one beside a strong signal in the
 * same segment (error ~1e-6 x strong/weak power); the rest (float templates,
 * fused multiply-adds in the products) is ~1e-7.  Identical run to run: the
 * same plans on the same data (cuFFT is deterministic for a fixed plan); the
 * device's sums are float (core's are double: a few 1e-7), and the order in
 * which points above threshold arrive (an atomic counter) does not reach the
 * list, core's exact selection being order-independent. */
const xc_accel_searcher xc_accel_gpu = {
    {XC_FAMILY_ACCEL, "gpu", "CUDA: overlap-save correlation with batched cuFFT, templates' FFTs kept on the device",
     {XC_TOL_RELATIVE, 2e-3}, XC_CAP_DEVICE | XC_CAP_THREADED, xc_gpu_available},
    xc_accel_gpu_create, xc_accel_gpu_plane, xc_accel_gpu_destroy, xc_accel_gpu_search};
