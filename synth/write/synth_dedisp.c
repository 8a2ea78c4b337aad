/* The dedispersed fast path: the PRESTO .dat/.inf that dedispersing the
 * synthesized filterbank at its true DM would give, without the filterbank. */
#include "synth/model/xc_synth.h"
#include "synth/write/xc_synth_dedisp.h"
#include "synth/signal/synth_signal.h"
#include "synth/write/synth_truth.h"
#include "synth/noise/synth_noise.h"

#include <errno.h>
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/xc_atomic.h"
#include "core/io/xc_presto.h"

#define CHUNK 65536   /* output samples per chunk, a multiple of 16 */

/* The band's response to a top-hat pulsar after dedispersion: channel c adds
 * G_c(u - r_c), r_c = dmin_c - D_c tsamp its residual delay after the rounded
 * shift D_c, so a sample [u0, u1) relative to the pulse's leading edge gets
 *     amp/tsamp [H(u1) - H(u0) - H(u1 - w) + H(u0 - w)],  H = sum_c G_c(. - r_c).
 * H is 0 below min r_c, linear above max(r_c + S_c), and tabulated between:
 * exact values on a grid of step h = tsamp/1024 (or span/65535 when the span
 * exceeds 64 tsamp), linearly interpolated, so a sample edge is off by at most
 * h/(4 tsamp) of one channel's full-sample contribution (1/4096 at most DMs). */
typedef struct {
    double umin, umax, h, slope, offset;
    size_t n;
    double *v;
} band_response;

static double band_eval(const band_response *b, double u)
{
    if (u <= b->umin)
        return 0;
    if (u >= b->umax)
        return b->slope * u - b->offset;
    double x = (u - b->umin) / b->h;
    size_t k = (size_t)x;
    if (k >= b->n - 1)
        k = b->n - 2;
    double f = x - (double)k;
    return b->v[k] + f * (b->v[k + 1] - b->v[k]);
}

static xc_status band_init(band_response *b, const xc_chgeo *geo, const double *r, int nchans, double tsamp,
                           int nthreads, xc_error *err)
{
    b->umin = INFINITY;
    b->umax = -INFINITY;
    b->slope = nchans;
    b->offset = 0;
    for (int c = 0; c < nchans; c++) {
        b->umin = fmin(b->umin, r[c]);
        b->umax = fmax(b->umax, r[c] + geo[c].S);
        b->offset += r[c] + geo[c].dbar;
    }
    double span = b->umax - b->umin;
    size_t n = (size_t)ceil(span / (tsamp / 1024.0)) + 2;
    if (n > 65536)
        n = 65536;
    b->n = n;
    b->h = span > 0 ? span / (double)(n - 1) : tsamp;
    b->v = malloc(n * sizeof *b->v);
    if (!b->v)
        return xc_error_set(err, XC_ENOMEM, "out of memory for a %zu-point band response", n);
    const long nl = (long)n;
#pragma omp parallel for num_threads(nthreads) schedule(static)
    for (long k = 0; k < nl; k++) {
        double u = b->umin + (double)k * b->h, s = 0;
        for (int c = 0; c < nchans; c++)
            s += xc_chgeo_ramp(&geo[c], u - r[c]);
        b->v[k] = s;
    }
    return XC_OK;
}

static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

/* Where the chunks go: a file, or memory.  Called with the chunk's first
 * sample j0, its n values and the series' length nout. */
typedef xc_status (*dd_sink)(void *ctx, uint64_t j0, const float *x, size_t n, uint64_t nout, xc_error *err);

/* What the series holds: the delays D (nchans) a dedisperser of p's
 * convention uses at the pulsar's DM (the first pulse's when there is no
 * pulsar), the nsamp - max_delay samples they leave rounded down to an even
 * count, and the statistics of the noise and the signal in the output units.
 *
 * Even, because PRESTO's realfft refuses an odd N ("arrays lengths must be
 * evenly divisible by 2", src/fastffts.c) and PRESTO's own writers of
 * dedispersed series, prepdata and prepsubband, always write an even length
 * (choose_good_N, src/misc_utils.c).  Where the sweep leaves an odd count
 * the last complete sample is dropped, not padded as prepsubband pads: every
 * written sample then holds signal and noise, and T = N * tsamp in the truth
 * is the series' own length. */
static xc_status dd_info(const xc_synth_params *p, int32_t *D, xc_dedisp_info *info, xc_error *err)
{
    const int nch = p->nchans;
    const double dm = p->psr.period_ms > 0 ? p->psr.dm : p->npulses ? p->pulses[0].dm : 0.0;
    double dmv = dm;
    xc_dmrange rng = {dm, dm + 1, 1, 1, 1, &dmv};
    xc_geometry geom = {nch, p->fch1, xc_synth_foff(p), p->tsamp};
    xc_status st = xc_delays_compute(p->convention, &geom, &rng, D, err);
    if (st)
        return st;
    int64_t maxd = 0;
    for (int c = 0; c < nch; c++)
        maxd = D[c] > maxd ? D[c] : maxd;
    const uint64_t nsamp = xc_synth_nsamp(p);
    if ((uint64_t)maxd + 2 > nsamp)
        return xc_error_set(err, XC_EINVAL, "tobs_s (-tobs) = %.15g: %llu samples, fewer than 2 more than the "
                            "%lld-sample dispersion sweep at DM %.15g", p->tobs, (unsigned long long)nsamp,
                            (long long)maxd, dm);
    const uint64_t nout = (nsamp - (uint64_t)maxd) & ~(uint64_t)1;
    double lmean, lrms, lgain;
    xc_synth_level_stats(p->noise ? p->nbits : 32, &lmean, &lrms, &lgain);
    *info = (xc_dedisp_info){dm, nout, maxd, nch * lmean, sqrt((double)nch) * lrms, lgain};
    return XC_OK;
}

/* One series in the making: the delays, the pulsar's events and, for a
 * top-hat pulsar, the band's response. */
typedef struct {
    const xc_synth_params *p;
    int nthreads;
    const int32_t *D;
    xc_dedisp_info info;
    xc_signal sig;
    band_response band;
    int tophat_psr;
    double rlo, rhi;    /* the residual delays' span (Gaussian pulsar) */
} dd_make;

/* The top-hat pulsar's pulses in chunk ck, through the band's response. */
static xc_status chunk_tophat(dd_make *m, const xc_chunk *ck, xc_error *err)
{
    const double ts = m->p->tsamp, T0 = (double)ck->first * ts, T1 = (double)(ck->first + ck->n) * ts;
    const uint64_t J0 = ck->first;
    const size_t n = ck->n;
    xc_status st = xc_signal_pulses_between(&m->sig, T0 - m->band.umax - ts, T1 - m->band.umin + ts, err);
    if (st)
        return st;
    const double a = m->sig.amp / ts;
    for (size_t k = 0; k < m->sig.nev; k++) {
        const double ta = m->sig.ev[k][0], w = m->sig.ev[k][1] - ta;
        double ja = floor((ta + m->band.umin) / ts) - 1, jb = floor((ta + w + m->band.umax) / ts) + 1;
        if (jb < (double)J0 || ja > (double)(J0 + n - 1))
            continue;
        uint64_t j0 = ja > (double)J0 ? (uint64_t)ja : J0, j1 = jb < (double)(J0 + n - 1) ? (uint64_t)jb
                                                                                        : J0 + n - 1;
        for (uint64_t j = j0; j <= j1; j++) {
            double u0 = (double)j * ts - ta, u1 = (double)(j + 1) * ts - ta;
            double f = (band_eval(&m->band, u1) - band_eval(&m->band, u0)) -
                       (band_eval(&m->band, u1 - w) - band_eval(&m->band, u0 - w));
            ck->x[j - J0] += (float)(a * f);
        }
    }
    return XC_OK;
}

/* The signal of chunk ck (zeroed first): the pulsar and the single pulses,
 * each channel shifted by its rounded delay. */
static xc_status chunk_signal(dd_make *m, const xc_chunk *ck, xc_error *err)
{
    const xc_synth_params *p = m->p;
    const int nch = p->nchans;
    const double ts = p->tsamp, T0 = (double)ck->first * ts, T1 = (double)(ck->first + ck->n) * ts;
    xc_status st;
    memset(ck->x, 0, ck->n * sizeof *ck->x);
    if (m->tophat_psr) {
        if ((st = chunk_tophat(m, ck, err)))
            return st;
    } else if (m->sig.has_psr) {
        /* Gaussian pulsar: each channel's slices, shifted by its rounded delay. */
        if ((st = xc_signal_pulses_between(&m->sig, T0 - m->rhi - ts, T1 - m->rlo + ts, err)))
            return st;
        for (int c = 0; c < nch; c++)
            for (size_t k = 0; k < m->sig.nev; k++)
                xc_signal_gauss(p, ck, 0, c, m->info.dm, m->sig.ev[k][0] - (double)m->D[c] * ts, m->sig.ev[k][1],
                                m->sig.amp);
    }
    for (size_t k = 0; k < p->npulses; k++) {
        const xc_synth_pulse *pl = &p->pulses[k];
        const double w = pl->width_ms * 1e-3, amp = pl->snr / sqrt((double)nch);
        if (xc_synth_pulse_is_burst(pl)) {
            const double a = xc_synth_pulse_snr(p, pl) / sqrt((double)nch), mean = xc_synth_pulse_spectral_mean(p, pl);
            for (int c = 0; c < nch; c++) {
                xc_synth_pulse sh = *pl;
                sh.t_s -= (double)m->D[c] * ts;
                xc_signal_burst(p, ck, 0, c, &sh, a * xc_synth_pulse_spectral_weight(p, pl, c, mean));
            }
            continue;
        }
        for (int c = 0; c < nch; c++) {
            if (p->profile == XC_PROFILE_GAUSSIAN) {
                xc_signal_gauss(p, ck, 0, c, pl->dm, pl->t_s - (double)m->D[c] * ts, w / 2.3548200450309493, amp);
            } else {
                xc_chgeo g;
                xc_chgeo_set(&g, p, c, pl->dm);
                g.dmin -= (double)m->D[c] * ts;
                xc_signal_tophat(ck, 0, &g, pl->t_s - 0.5 * w, pl->t_s + 0.5 * w, amp);
            }
        }
    }
    return XC_OK;
}

/* Noise added to chunk ck and the sum scaled: one N(0,1) per output sample,
 * 16 per Philox counter. */
static void chunk_noise(const dd_make *m, const xc_chunk *ck)
{
    const xc_synth_params *p = m->p;
    const uint64_t J0 = ck->first;
    const size_t n = ck->n;
    float *x = ck->x;
    const long ng = (long)((n + 15) / 16);
#pragma omp parallel for num_threads(m->nthreads) schedule(static)
    for (long g = 0; g < ng; g++) {
        float z[16];
        uint64_t j = J0 + 16 * (uint64_t)g;
        if (p->noise)
            xc_synth_gauss_stream(p->seed, XC_STREAM_DEDISP, j / 16, 0, 4, z);
        else
            memset(z, 0, sizeof z);
        for (size_t k = 0; k < 16 && j + k < J0 + n; k++) {
            size_t i = (size_t)(j + k - J0);
            double sum = m->info.mean + m->info.sigma * z[k] + m->info.gain * x[i];
            x[i] = xc_scale_real(p->convention, sum, p->nchans, 1, p->nbits);
        }
    }
}

/* Sets up m for p: delays, residual delays, the pulsar's events and the band. */
static xc_status make_init(dd_make *m, const xc_synth_params *p, int32_t *D, double *r, xc_chgeo *geo,
                           xc_error *err)
{
    const int nch = p->nchans;
    m->p = p;
    m->nthreads = p->nthreads > 0 ? p->nthreads : omp_get_max_threads();
    m->D = D;
    xc_status st;
    if ((st = dd_info(p, D, &m->info, err)) || (st = xc_signal_init(&m->sig, p, err)))
        return st;
    m->tophat_psr = m->sig.has_psr && p->profile == XC_PROFILE_TOPHAT;
    for (int c = 0; c < nch; c++) {
        xc_chgeo_set(&geo[c], p, c, m->info.dm);
        r[c] = geo[c].dmin - (double)D[c] * p->tsamp;
    }
    if (m->tophat_psr && (st = band_init(&m->band, geo, r, nch, p->tsamp, m->nthreads, err)))
        return st;
    m->rlo = INFINITY;
    m->rhi = -INFINITY;
    for (int c = 0; c < nch; c++) {
        m->rlo = fmin(m->rlo, r[c]);
        m->rhi = fmax(m->rhi, r[c] + geo[c].S);
    }
    return XC_OK;
}

/* Makes the dedispersed series chunk by chunk into sink, or, with dest,
 * in place into the buffer dest hands over for the series' length (no chunk
 * to copy; the same values: a chunk's are those of its samples alone);
 * *info_out gets the series' statistics (the truth describes the series
 * with them). */
static xc_status dedisp_make(const xc_synth_params *p, dd_sink sink, void *sctx, const xc_synth_dest *dest,
                             xc_dedisp_info *info_out, xc_error *err)
{
    xc_status st = xc_synth_params_check(p, NULL, err);
    if (st)
        return st;
    if (p->fake_phase)
        return xc_error_set(err, XC_EINVAL, "fake_phase (-fake_phase): not available with -dedispersed (fake's "
                            "point-sampled pulses are made only in filterbanks)");
    const int nch = p->nchans;
    int32_t *D = malloc((size_t)nch * sizeof *D);
    double *r = malloc((size_t)nch * sizeof *r);
    xc_chgeo *geo = malloc((size_t)nch * sizeof *geo);
    float *x = dest ? NULL : malloc(CHUNK * sizeof *x), *out = NULL;
    dd_make m;
    memset(&m, 0, sizeof m);
    if (!D || !r || !geo || (!dest && !x)) {
        st = xc_error_set(err, XC_ENOMEM, "out of memory for %d channels", nch);
        goto done;
    }
    if ((st = make_init(&m, p, D, r, geo, err)))
        goto done;
    const uint64_t nout = m.info.nsamp;
    if (dest && !(out = dest->buffer(dest->ctx, nout))) {
        st = xc_error_set(err, XC_ENOMEM, "out of memory for a %llu-sample series", (unsigned long long)nout);
        goto done;
    }
    for (uint64_t J0 = 0; J0 < nout; J0 += CHUNK) {
        const size_t n = (size_t)(nout - J0 < CHUNK ? nout - J0 : CHUNK);
        xc_chunk ck = {out ? out + J0 : x, J0, n, 1, p->tsamp};
        if ((st = chunk_signal(&m, &ck, err)))
            goto done;
        chunk_noise(&m, &ck);
        if (!out && (st = sink(sctx, J0, x, n, nout, err)))
            goto done;
        if (p->progress)
            p->progress(p->progress_ctx, J0 + n, nout);
    }
    *info_out = m.info;
done:
    xc_signal_free(&m.sig);
    free(m.band.v);
    free(D);
    free(r);
    free(geo);
    free(x);
    return st;
}

typedef struct {
    FILE *fp;
    const char *path;
} file_sink;

static xc_status to_file(void *ctx, uint64_t j0, const float *x, size_t n, uint64_t nout, xc_error *err)
{
    (void)j0;
    (void)nout;
    file_sink *f = ctx;
    if (fwrite(x, sizeof *x, n, f->fp) != n)
        return xc_error_set(err, XC_EIO, "%s: write failed: %s", f->path, strerror(errno));
    return XC_OK;
}

xc_status xc_synth_write_dedispersed(const xc_synth_params *p, const char *stem, const char *truth_path,
                                     const char *cmdline, xc_error *err)
{
    char dat[4200], inf[4200], tpath[4200];
    if (snprintf(dat, sizeof dat, "%s.dat", stem) >= (int)sizeof dat ||
        snprintf(inf, sizeof inf, "%s.inf", stem) >= (int)sizeof inf)
        return xc_error_set(err, XC_EINVAL, "%s: path too long", stem);
    xc_status st;
    if (!truth_path) {
        if ((st = xc_synth_truth_path(dat, tpath, sizeof tpath, err)))
            return st;
        truth_path = tpath;
    }
    if ((st = xc_synth_params_check(p, NULL, err)))
        return st;
    const int nch = p->nchans;
    const double ts = p->tsamp;
    char *truth = NULL;
    xc_dedisp_info info;
    xc_atomic da, ta;
    int dat_open = 0, truth_open = 0;
    if ((st = xc_atomic_open(&da, dat, 0, err)))
        goto done;
    dat_open = 1;
    file_sink fs = {da.fp, dat};
    if ((st = dedisp_make(p, to_file, &fs, NULL, &info, err)))
        goto done;
    if (!(truth = xc_synth_truth_text(p, p->file_label ? p->file_label : dat, cmdline, &info, err))) {
        st = err ? err->code : XC_ENOMEM;
        goto done;
    }
    const double dm = info.dm;
    const uint64_t nout = info.nsamp;
    if ((st = xc_atomic_open(&ta, truth_path, 0, err)))
        goto done;
    truth_open = 1;
    size_t len = strlen(truth);
    if (fwrite(truth, 1, len, ta.fp) != len || fputc('\n', ta.fp) == EOF) {
        st = xc_error_set(err, XC_EIO, "%s: write failed: %s", truth_path, strerror(errno));
        goto done;
    }
    xc_inf inf_rec;
    xc_inf_init(&inf_rec);
    snprintf(inf_rec.name, sizeof inf_rec.name, "%s", base_name(stem));
    snprintf(inf_rec.object, sizeof inf_rec.object, "%s",
             p->psr.period_ms > 0 ? "crosscheck synth pulsar" : "crosscheck synth");
    snprintf(inf_rec.instrument, sizeof inf_rec.instrument, "crosscheck synth");
    inf_rec.mjd = p->tstart;
    inf_rec.n = (double)nout;
    inf_rec.dt = ts;
    inf_rec.dm = dm;
    inf_rec.freq_low = p->fch1 + (nch - 1) * xc_synth_foff(p);
    inf_rec.bw = nch * fabs(p->foff);
    inf_rec.nchan = nch;
    inf_rec.chan_wid = fabs(p->foff);
    snprintf(inf_rec.notes, sizeof inf_rec.notes, "dedispersed at DM %.6g by crosscheck synth -dedispersed "
             "(convention %s, seed %llu); truth in %.200s", dm, p->convention->name, (unsigned long long)p->seed,
             base_name(truth_path));
    if ((st = xc_inf_write(&inf_rec, inf, err)))
        goto done;
    if ((st = xc_atomic_commit(&da, err))) {
        dat_open = 0;
        remove(inf);
        goto done;
    }
    dat_open = 0;
    if ((st = xc_atomic_commit(&ta, err))) {
        truth_open = 0;
        remove(inf);
        remove(dat);
        goto done;
    }
    truth_open = 0;
done:
    if (dat_open)
        xc_atomic_abort(&da);
    if (truth_open)
        xc_atomic_abort(&ta);
    free(truth);
    return st;
}

/* ---- in memory (the study runner) ------------------------------------------ */

xc_status xc_synth_dedispersed_truth(const xc_synth_params *p, const char *label, xc_truth *t, xc_error *err)
{
    xc_status st = xc_synth_params_check(p, NULL, err);
    if (st)
        return st;
    int32_t *D = malloc((size_t)p->nchans * sizeof *D);
    if (!D)
        return xc_error_set(err, XC_ENOMEM, "out of memory for %d channels", p->nchans);
    xc_dedisp_info info;
    st = dd_info(p, D, &info, err);
    free(D);
    return st ? st : xc_synth_truth(p, label, &info, t, err);
}

static float *to_malloc(void *ctx, uint64_t n)
{
    (void)ctx;
    return n <= SIZE_MAX / sizeof(float) ? malloc((size_t)n * sizeof(float)) : NULL;
}

xc_status xc_synth_dedispersed_series(const xc_synth_params *p, const char *label, float **x, uint64_t *n,
                                      xc_truth *truth, xc_error *err)
{
    const xc_synth_dest dest = {to_malloc, NULL};
    xc_status st = xc_synth_dedispersed_into(p, label, &dest, x, n, truth, err);
    if (st) {
        free(*x);
        *x = NULL;
    }
    return st;
}

/* The caller's destination, and the buffer it handed out. */
typedef struct {
    const xc_synth_dest *d;
    float *got;
} dest_seen;

static float *seen_buffer(void *ctx, uint64_t n)
{
    dest_seen *w = ctx;
    return w->got = w->d->buffer(w->d->ctx, n);
}

xc_status xc_synth_dedispersed_into(const xc_synth_params *p, const char *label, const xc_synth_dest *dest,
                                    float **x, uint64_t *n, xc_truth *truth, xc_error *err)
{
    *x = NULL;
    *n = 0;
    memset(truth, 0, sizeof *truth);
    dest_seen w = {dest, NULL};
    const xc_synth_dest seen = {seen_buffer, &w};
    xc_dedisp_info info;
    xc_status st = dedisp_make(p, NULL, NULL, &seen, &info, err);
    *x = w.got;
    if (!st)
        st = xc_synth_truth(p, label, &info, truth, err);
    if (!st)
        *n = info.nsamp;
    return st;
}
