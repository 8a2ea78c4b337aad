/* The CPU accel/jerk searcher: the plane by overlap-save correlation with
 * single-precision FFTW (the method of accelsearch's subharm_fderivs_vol,
 * PRESTO src/accel_utils.c; our own code).
 *
 * The data are spread onto a half-bin grid (bin k at position 2k, zeros
 * between: "Fourier interpolation" at numbetween = 2, not interbinning), a
 * segment of L positions is FFT'd once, and for each template the product
 * with the conjugate FFT of the kernel R(j/2), j = -2hw..2hw (placed with
 * wrap-around) is transformed back: out[m] = sum_j data[m + j] conj(R(j/2)),
 * valid for the L - 4 hwmax positions whose kernel stays inside the
 * segment (overlap-save).  P = |out|^2 / L^2.
 *
 * Plans are made once per search (create), with FFTW_ESTIMATE so that every
 * run picks the same algorithm (FFTW_MEASURE, accelsearch's choice, can pick
 * another one from run to run and change the last bits), and executed with
 * the new-array interface from every thread on arrays of the same alignment
 * (fftwf_malloc).  OpenMP runs over (template, segment) pairs; each pair's
 * arithmetic is the same whichever thread does it, so the plane is identical
 * at any thread count.
 *
 * Tolerance against the reference (double, direct): relative 2e-3 on the
 * candidates' power and sigma.  The float FFT's rounding error is about
 * 1e-7 log2(L) of the segment's total power, not of the output point's, so
 * a point near the sigma threshold next to a very strong signal in the same
 * segment carries a relative error ~1e-6 x (strong/weak power); templates
 * are rounded to float (6e-8).  Measured on the test spectra: below 1e-4. */
#include <complex.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <fftw3.h>
#include <omp.h>

#include "core/search/xc_accel.h"
#include "core/io/xc_fft.h"
#include "optimized/cpu/xc_accel_cpu.h"
#include "optimized/cpu/accel_cpu_internal.h"

static void cpu_destroy(const xc_accel_searcher *self, void *state)
{
    (void)self;
    cpu_state *s = state;
    if (!s)
        return;
    if (s->fwd)
        XC_FFTW_PLANNER(fftwf_destroy_plan(s->fwd));
    if (s->inv)
        XC_FFTW_PLANNER(fftwf_destroy_plan(s->inv));
    fftwf_free(s->kern);
    free(s);
}

/* A template row into its kernel: FFT'd in place, conjugated and scaled. */
static void cpu_kernel_fft(void *ctx, float *row)
{
    const cpu_state *s = ctx;
    fftwf_complex *k = (fftwf_complex *)row;
    fftwf_execute_dft(s->fwd, k, k);
    for (size_t q = 0; q < (size_t)s->L; q++)
        k[q] = conjf(k[q]) / (float)s->L;
}

static xc_status cpu_create(const xc_accel_searcher *self, const xc_accel_plan *p, void **state, xc_error *err)
{
    (void)self;
    cpu_state *s = calloc(1, sizeof *s);
    if (!s)
        return xc_error_set(err, XC_ENOMEM, "accel cpu: out of memory");
    s->hwmax = p->hwmax;
    s->ntempl = p->ntempl;
    s->threads = p->o.threads;
    /* L: a power of 2 with at most a quarter of it lost to the kernel's
     * wings (accelsearch's fftlen_from_kernwidth gives 2048 at zmax 200,
     * losing a quarter as well; ours grows with zmax so the fraction stays). */
    s->L = 2048;
    while (s->L < 16 * p->hwmax)
        s->L *= 2;
    s->V = s->L - 4 * p->hwmax;
    size_t L = (size_t)s->L;
    s->kern = fftwf_malloc((size_t)p->ntempl * L * sizeof *s->kern);
    fftwf_complex *a = fftwf_malloc(L * sizeof *a), *b = fftwf_malloc(L * sizeof *b);
    xc_status st = XC_OK;
    if (!s->kern || !a || !b)
        st = xc_error_set(err, XC_ENOMEM, "accel cpu: out of memory (%d kernels of %d points)", p->ntempl, s->L);
    if (!st) {
        /* in place, both (executed on other arrays of the same alignment) */
        XC_FFTW_PLANNER(s->fwd = fftwf_plan_dft_1d(s->L, a, a, FFTW_FORWARD, FFTW_ESTIMATE));
        /* out of place: no copy */
        XC_FFTW_PLANNER(s->inv = fftwf_plan_dft_1d(s->L, a, b, FFTW_BACKWARD, FFTW_ESTIMATE));
        if (!s->fwd || !s->inv)
            st = xc_error_set(err, XC_ENOMEM, "accel cpu: no FFTW plan for %d points", s->L);
    }
    /* Kernels: exact double templates, rounded to float, FFT'd, conjugated
     * and scaled by 1/L (the inverse FFT's normalisation); independent, so
     * made in parallel (the same values whichever thread makes them). */
    if (!st)
        st = xc_accel_template_rows(p, 0, p->ntempl, s->L, (float *)s->kern, cpu_kernel_fft, s, "accel cpu", err);
    fftwf_free(a);
    fftwf_free(b);
    if (st) {
        cpu_destroy(self, s);
        return st;
    }
    *state = s;
    return XC_OK;
}

static xc_status cpu_plane(const xc_accel_searcher *self, void *state, const xc_accel_plan *p, const xc_accel_block *b, xc_error *err)
{
    (void)self;
    const cpu_state *s = state;
    (void)p;
    size_t L = (size_t)s->L, V = (size_t)s->V;
    size_t nseg = (b->nr + V - 1) / V;
    fftwf_complex *D = fftwf_malloc(nseg * L * sizeof *D);
    if (!D)
        return xc_error_set(err, XC_ENOMEM, "accel cpu: out of memory (%zu segments of %zu points)", nseg, L);
    int nth = s->threads > 0 ? s->threads : omp_get_max_threads();
    /* No more threads than pieces of work: an idle OpenMP thread spins at
     * the barrier and takes a core from the others (and from other tenants). */
    int nth1 = nseg < (size_t)nth ? (int)nseg : nth;
    /* Each segment's data, rounded to float, spread and FFT'd once. */
    int bad = 0;
#pragma omp parallel num_threads(nth1)
    {
        float *af = malloc((L + 2) * sizeof *af);
        if (!af) {
#pragma omp atomic write
            bad = 1;
        }
#pragma omp for schedule(static)
        for (size_t g = 0; g < nseg; g++)
            if (af)
                xc_accel_cpu_block_segment(s, b, g, af, D + g * L);
        free(af);
    }
    /* (template, segment) pairs: with few templates (zmax 0: one) the
     * segments still spread over the threads; a thread's consecutive pairs
     * mostly share a template, whose kernel stays in cache. */
    long npair = (long)s->ntempl * (long)nseg;
    int nth2 = npair < nth ? (int)npair : nth;
#pragma omp parallel num_threads(nth2)
    {
        fftwf_complex *tmp = fftwf_malloc(2 * L * sizeof *tmp);
        if (!tmp) {
#pragma omp atomic write
            bad = 1;
        }
#pragma omp for schedule(dynamic, 8)
        for (long pr = 0; pr < npair; pr++) {
            int t = (int)(pr / (long)nseg);
            size_t g = (size_t)(pr % (long)nseg);
            if (!tmp || (b->want && !b->want[t]))
                continue;
            xc_accel_cpu_pair(s, D + g * L, t, g, b->nr, b->out + (size_t)t * b->nr, tmp, INFINITY);
        }
        fftwf_free(tmp);
    }
    fftwf_free(D);
    return bad ? xc_error_set(err, XC_ENOMEM, "accel cpu: out of memory (work arrays)") : XC_OK;
}

const xc_accel_searcher xc_accel_cpu = {
    .impl = {.family = XC_FAMILY_ACCEL, .name = "cpu", .tol = {XC_TOL_RELATIVE, 2e-3}, .caps = XC_CAP_THREADED,
             .desc = "overlap-save correlation, single-precision FFTW (plans made once), OpenMP over templates"},
    .create = cpu_create, .plane = cpu_plane, .destroy = cpu_destroy, .search_amps = xc_accel_cpu_search,
    .rows = xc_accel_cpu_rows};
