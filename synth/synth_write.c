/* The synthesizer's main loop: chunks of spectra -> noise + pulses -> levels -> file. */
#include "xc_synth.h"
#include "synth_internal.h"

#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xc_atomic.h"

/* One chunk of spectra [first, first+n) held as floats, channel fastest. */
typedef struct {
    float *x;
    uint64_t first;
    size_t n;
    int nchans;
    double tsamp;
} chunk;

/* Integral over a sample of a top hat of width w starting at x0 + d, averaged
 * over delays d uniform in [0, s) (s = 0: no smearing), divided by the sample
 * time, is  g(t1-x0) - g(t0-x0) - g(t1-x0-w) + g(t0-x0-w)  over the sample's
 * [t0, t1), with g the integral of the ramp max(u, 0) averaged over the delays.
 * Written this way g has no 1/s, so s -> 0 gives the plain top hat overlap. */
static double ramp_avg(double u, double s)
{
    if (u <= 0)
        return 0;
    if (u >= s)
        return u - 0.5 * s;
    return 0.5 * u * u / s;
}

/* Adds amp times that fraction to every sample of channel c the smeared top hat
 * touches.  A sample's value depends only on (x0, w, s, amp, sample index),
 * never on where the chunk starts, so the bytes are independent of the chunk
 * size. */
static void add_tophat(const chunk *ck, int c, double x0, double w, double s, double amp)
{
    const double ts = ck->tsamp, x1 = x0 + w + s;
    const double lo = (double)ck->first, hi = (double)(ck->first + ck->n) - 1;
    /* One sample of margin each side: the support test below decides. */
    double ia = floor(x0 / ts) - 1, ib = floor(x1 / ts) + 1;
    if (ib < lo || ia > hi)
        return;
    uint64_t i0 = (uint64_t)(ia > lo ? ia : lo), i1 = (uint64_t)(ib < hi ? ib : hi);
    for (uint64_t i = i0; i <= i1; i++) {
        double t0 = (double)i * ts, t1 = (double)(i + 1) * ts;
        if (t1 <= x0 || t0 >= x1)
            continue;
        double f = ramp_avg(t1 - x0, s) - ramp_avg(t0 - x0, s) - ramp_avg(t1 - x0 - w, s) + ramp_avg(t0 - x0 - w, s);
        if (f > 0)
            ck->x[(size_t)(i - ck->first) * (size_t)ck->nchans + (size_t)c] += (float)(amp * f / ts);
    }
}

/* Dispersion geometry per channel and sub-channel slice: a delay is kdm*dm*g
 * with g = 1/f^2 - 1/fch1^2.  With smearing each channel is cut into nsub
 * equal slices and the delay is taken linear in frequency across a slice, so
 * a slice spreads the pulse uniformly over [kdm*dm*g0, kdm*dm*(g0 + gs)); the
 * piecewise-linear delay follows 1/f^2 closely at 8 slices and, unlike
 * averaging 8 point frequencies, leaves no comb of copies when the smearing
 * is wider than the pulse.  Without smearing: the channel centre, gs = 0. */
typedef struct {
    int nsub;
    double *g0, *gs;   /* [nchans*nsub] */
    double gmin, gmax; /* over all slices, edges included */
} geometry;

static double geom_of(double f, double fch1) { return 1.0 / (f * f) - 1.0 / (fch1 * fch1); }

static int make_geometry(const xc_synth_params *p, geometry *g)
{
    g->nsub = p->smear ? XC_SYNTH_NSUB : 1;
    size_t n = (size_t)p->nchans * (size_t)g->nsub;
    g->g0 = malloc(n * sizeof *g->g0);
    g->gs = malloc(n * sizeof *g->gs);
    if (!g->g0 || !g->gs)
        return -1;
    const double bw = fabs(p->foff);
    g->gmin = INFINITY;
    g->gmax = -INFINITY;
    for (int c = 0; c < p->nchans; c++) {
        double fc = p->fch1 - c * bw;
        for (int k = 0; k < g->nsub; k++) {
            size_t j = (size_t)c * (size_t)g->nsub + (size_t)k;
            if (g->nsub == 1) {
                g->g0[j] = geom_of(fc, p->fch1);
                g->gs[j] = 0;
            } else {
                double ftop = fc + bw * (0.5 - (double)k / g->nsub);
                double fbot = fc + bw * (0.5 - (double)(k + 1) / g->nsub);
                g->g0[j] = geom_of(ftop, p->fch1);
                g->gs[j] = geom_of(fbot, p->fch1) - g->g0[j];
            }
            g->gmin = fmin(g->gmin, g->g0[j]);
            g->gmax = fmax(g->gmax, g->g0[j] + g->gs[j]);
        }
    }
    return 0;
}

static void add_pulsar(const xc_synth_params *p, const chunk *ck, const geometry *g, int nthreads)
{
    const double P = p->psr.period_ms * 1e-3, dc = p->psr.width_pct / 100.0, w = dc * P;
    const double amp = p->psr.snrpeak / sqrt((double)p->nchans) / g->nsub;
    const double kd = p->convention->kdm * p->psr.dm;
    const double T0 = (double)ck->first * ck->tsamp, T1 = (double)(ck->first + ck->n) * ck->tsamp;
    /* Channels are independent, so threads split them; the order of the
     * additions into one value is the same whatever the split. */
#pragma omp parallel for num_threads(nthreads) schedule(dynamic, 4)
    for (int c = 0; c < p->nchans; c++)
        for (int k = 0; k < g->nsub; k++) {
            size_t j = (size_t)c * (size_t)g->nsub + (size_t)k;
            double d = kd * g->g0[j], s = kd * g->gs[j];
            /* pulse n starts at (n + 0.5 - dc/2)*P + d: centred on phase 0.5 as fake */
            double nlo = floor((T0 - d - s) / P - 0.5 - 0.5 * dc) - 1, nhi = floor((T1 - d) / P - 0.5 + 0.5 * dc) + 1;
            for (double n = nlo; n <= nhi; n++)
                add_tophat(ck, c, (n + 0.5 - 0.5 * dc) * P + d, w, s, amp);
        }
}

static void add_pulses(const xc_synth_params *p, const chunk *ck, const geometry *g, int nthreads)
{
    const double T0 = (double)ck->first * ck->tsamp, T1 = (double)(ck->first + ck->n) * ck->tsamp;
    for (size_t j = 0; j < p->npulses; j++) {
        const xc_synth_pulse *pl = &p->pulses[j];
        const double kd = p->convention->kdm * pl->dm, w = pl->width_ms * 1e-3;
        /* Most pulses miss most chunks: skip them before touching channels. */
        if (pl->t_s + 0.5 * w + kd * g->gmax < T0 - ck->tsamp || pl->t_s - 0.5 * w + kd * g->gmin > T1 + ck->tsamp)
            continue;
        const double amp = pl->snr / sqrt((double)p->nchans) / g->nsub;
#pragma omp parallel for num_threads(nthreads) schedule(dynamic, 4)
        for (int c = 0; c < p->nchans; c++)
            for (int k = 0; k < g->nsub; k++) {
                size_t i = (size_t)c * (size_t)g->nsub + (size_t)k;
                add_tophat(ck, c, pl->t_s - 0.5 * w + kd * g->g0[i], w, kd * g->gs[i], amp);
            }
    }
}

static void fill_header(const xc_synth_params *p, xc_fbheader *h)
{
    xc_fbheader_init(h);
    /* fake's keywords in fake's order (research/periodicity.md 1.6).  fake
     * writes data_type 2 and refdm for one channel; ours stays a filterbank. */
    if (p->psr.period_ms > 0)
        snprintf(h->source_name, sizeof h->source_name, "P: %.12f ms, DM: %.3f", p->psr.period_ms, p->psr.dm);
    else
        snprintf(h->source_name, sizeof h->source_name, "crosscheck synth");
    xc_fbheader_set(h, XC_FB_SOURCE_NAME);
    h->machine_id = 10;
    xc_fbheader_set(h, XC_FB_MACHINE_ID);
    h->telescope_id = 4;
    xc_fbheader_set(h, XC_FB_TELESCOPE_ID);
    h->data_type = 1;
    xc_fbheader_set(h, XC_FB_DATA_TYPE);
    h->fch1 = p->fch1;
    xc_fbheader_set(h, XC_FB_FCH1);
    h->foff = xc_synth_foff(p);
    xc_fbheader_set(h, XC_FB_FOFF);
    h->nchans = p->nchans;
    xc_fbheader_set(h, XC_FB_NCHANS);
    h->nbits = p->nbits;
    xc_fbheader_set(h, XC_FB_NBITS);
    h->tstart = p->tstart;
    xc_fbheader_set(h, XC_FB_TSTART);
    h->tsamp = p->tsamp;
    xc_fbheader_set(h, XC_FB_TSAMP);
    h->nifs = 1;
    xc_fbheader_set(h, XC_FB_NIFS);
}

/* Streams every chunk into the open writer. */
static xc_status write_data(const xc_synth_params *p, xc_fbwriter *w, xc_error *err)
{
    const uint64_t nsamp = xc_synth_nsamp(p);
    const size_t nch = (size_t)p->nchans;
    size_t csz = p->chunk;
    if (!csz) {
        csz = XC_SYNTH_CHUNK_VALUES / nch;
        csz = csz < 1 ? 1 : csz > XC_SYNTH_CHUNK_MAX ? XC_SYNTH_CHUNK_MAX : csz;
    }
    if (csz > nsamp)
        csz = (size_t)nsamp;
    const int nthreads = p->nthreads > 0 ? p->nthreads : omp_get_max_threads();
    float *x = malloc(csz * nch * sizeof *x);
    uint16_t *q = p->nbits < 32 ? malloc(csz * nch * sizeof *q) : NULL;
    geometry geom = {0, NULL, NULL, 0, 0};
    xc_status st = XC_OK;
    if (!x || make_geometry(p, &geom) || (p->nbits < 32 && !q)) {
        st = xc_error_set(err, XC_ENOMEM, "out of memory for a chunk of %zu spectra x %zu channels", csz, nch);
        goto done;
    }
    for (uint64_t first = 0; first < nsamp; first += csz) {
        chunk ck = {x, first, (size_t)(nsamp - first < csz ? nsamp - first : csz), p->nchans, p->tsamp};
        const long ns = (long)ck.n;
#pragma omp parallel for num_threads(nthreads) schedule(static)
        for (long i = 0; i < ns; i++) {
            float *row = x + (size_t)i * nch;
            if (p->noise)
                xc_synth_noise_spectrum(p->seed, first + (uint64_t)i, p->nchans, row);
            else
                memset(row, 0, nch * sizeof *row);
        }
        if (p->psr.period_ms > 0)
            add_pulsar(p, &ck, &geom, nthreads);
        add_pulses(p, &ck, &geom, nthreads);
        if (p->nbits == 32) {
            st = xc_fbwriter_write_f32(w, x, ck.n, err);
        } else {
            const long nv = (long)(ck.n * nch);
#pragma omp parallel for num_threads(nthreads) schedule(static)
            for (long i = 0; i < nv; i++)
                q[i] = xc_synth_quantise(x[i], p->nbits);
            st = xc_fbwriter_write_u16(w, q, ck.n, err);
        }
        if (st)
            break;
        if (p->progress)
            p->progress(p->progress_ctx, first + ck.n, nsamp);
    }
done:
    free(x);
    free(q);
    free(geom.g0);
    free(geom.gs);
    return st;
}

xc_status xc_synth_write(const xc_synth_params *p, const char *path, const char *truth_path, const char *cmdline,
                         xc_error *err)
{
    xc_status st = xc_synth_params_check(p, NULL, err);
    if (st)
        return st;
    char tpath[4096];
    if (!truth_path) {
        if ((st = xc_synth_truth_path(path, tpath, sizeof tpath, err)))
            return st;
        truth_path = tpath;
    }
    if (!strcmp(truth_path, path))
        return xc_error_set(err, XC_EINVAL, "%s: the truth file must not be the filterbank itself", path);
    char *truth = xc_synth_truth_text(p, path, cmdline, err);
    if (!truth)
        return err ? err->code : XC_ENOMEM;

    xc_fbheader h;
    fill_header(p, &h);
    xc_fbwriter *w = NULL;
    st = xc_fbwriter_open(&w, path, &h, p->bitorder, err);
    xc_fbheader_free(&h);
    if (st) {
        free(truth);
        return st;
    }
    if ((st = write_data(p, w, err))) {
        xc_fbwriter_abort(w);
        free(truth);
        return st;
    }
    /* Both files are complete under temporary names before either is renamed;
     * if the second rename fails the first file is removed again. */
    xc_atomic a;
    if ((st = xc_atomic_open(&a, truth_path, 0, err))) {
        xc_fbwriter_abort(w);
        free(truth);
        return st;
    }
    size_t len = strlen(truth);
    if (fwrite(truth, 1, len, a.fp) != len || fputc('\n', a.fp) == EOF) {
        xc_atomic_abort(&a);
        xc_fbwriter_abort(w);
        free(truth);
        return xc_error_set(err, XC_EIO, "%s: write failed", truth_path);
    }
    free(truth);
    if ((st = xc_fbwriter_commit(w, err))) {
        xc_atomic_abort(&a);
        return st;
    }
    if ((st = xc_atomic_commit(&a, err))) {
        remove(path);
        return st;
    }
    return XC_OK;
}
