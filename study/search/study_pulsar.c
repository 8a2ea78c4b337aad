/* One pulsar of a study: its data made once (the synthesizer's dedispersed
 * series at the true DM, then PRESTO's realfft layout), every search run on
 * them, each scored against the truth into one detections.csv row. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare/xc_cmpcands.h"
#include "core/dedisp/xc_dedisperse.h"
#include "core/io/xc_fft.h"
#include "core/io/xc_filterbank.h"
#include "core/base/xc_progress.h"
#include "study/spec/study_internal.h"
#include "synth/write/xc_synth_dedisp.h"

/* ---- the truth ------------------------------------------------------------ */

/* The truth the synthesizer handed over must describe a pulsar (w 0 when it
 * has none). */
static xc_status check_truth(xc_truth *t, uint64_t id, xc_error *err)
{
    if (!(t->f0_hz > 0) || !t->have_rz)
        return xc_error_set(err, XC_EFORMAT, "pulsar %llu: the truth has no f0_hz, r and z (is it a pulsar?)",
                            (unsigned long long)id);
    if (!isfinite(t->w))
        t->w = 0;
    return XC_OK;
}

/* ---- the filterbank path ------------------------------------------------------- */

/* The filterbank made in memory and dedispersed at the pulsar's DM (one
 * trial, ds 1) by dd: the same nsamp - max_delay samples the fast path
 * makes, with real channel noise and quantisation. */
static xc_status fb_series(const xc_impl *dd, const xc_synth_params *p, float **x, uint64_t *n, xc_error *err)
{
    *x = NULL;
    *n = 0;
    const double dm = p->psr.dm;
    xc_study_fb fb;
    xc_dmplan plan;
    xc_dmplan_init(&plan);
    xc_ddplan *dp = NULL;
    xc_plane pl = {0, NULL};
    char spec[128];
    snprintf(spec, sizeof spec, "%.17g:%.17g:1:1", dm, dm + 0.5);
    xc_status e = xc_study_fb_make(p, &fb, err);
    if (e)
        return e;
    xc_ddopts o;
    memset(&o, 0, sizeof o);
    o.threads = p->nthreads;
    if ((e = xc_dmplan_parse(&plan, spec, "study data.filterbank", err)) ||
        (e = xc_ddplan_create(&dp, xc_dedisperser_of(dd), &fb.geom, fb.blk.nbits, &plan, p->convention, NULL, &o,
                              err)) ||
        (e = xc_ddplan_plane_alloc(dp, fb.blk.nsamp, &pl, err)) || (e = xc_ddplan_execute(dp, &fb.blk, &pl, err)))
        goto done;
    *n = pl.r[0].nsamp;
    *x = pl.r[0].data;   /* the one trial's series: taken over from the plane */
    pl.r[0].data = NULL;
done:
    xc_plane_free(&pl);
    xc_ddplan_destroy(dp);
    xc_dmplan_free(&plan);
    xc_study_fb_free(&fb);
    return e;
}

xc_status xc_study_score(const xc_study *st, uint64_t id, int k, int c, const xc_synth_params *p,
                         const xc_truth *t, const xc_candlist *cl, xc_study_row *row, xc_error *err)
{
    const xc_study_searcher *s = &st->s[k];
    xc_cmpcands_opts o;
    xc_cmpcands_opts_init(&o);
    o.truth_sigma = s->baseline ? st->base_sigma : st->det_sigma;
    o.ftol = st->det_ftol;
    o.fundamental = !st->det_harmonics;
    xc_truth tr = *t;
    tr.have_rz = 1;
    xc_truthmatch m;
    xc_status e = xc_cands_match_truth(cl, &tr, &o, &m, err);
    if (e)
        return e;
    const xc_detection *d = NULL;
    const char *match = "none";
    if (m.fund.found) {
        d = &m.fund;
        match = "fundamental";
    } else if (st->det_harmonics) {
        if (m.harm.found && (!m.sub.found || m.harm.sigma >= m.sub.sigma)) {
            d = &m.harm;
            match = "harmonic";
        } else if (m.sub.found) {
            d = &m.sub;
            match = "subharmonic";
        }
    }
    char v[16][40];
    double meas[] = {NAN, NAN, NAN, NAN, NAN, NAN, NAN, NAN};
    int numharm = 0, hn = 0;
    if (d) {
        const xc_cand *cd = &cl->c[d->index];
        double scale = !strcmp(match, "harmonic") ? d->n : !strcmp(match, "subharmonic") ? 1.0 / d->n : 1.0;
        numharm = cd->numharm;
        hn = d->n;
        meas[0] = cd->sigma;
        meas[1] = cd->r;
        meas[2] = cd->z;
        meas[3] = s->family == XC_FAMILY_ACCEL ? cd->w : NAN;
        meas[4] = cd->r - t->r * scale;
        /* A boxcar cannot tell the sign of z: its error is on |z|. */
        meas[5] = s->signed_z ? cd->z - t->z * scale : fabs(cd->z) - fabs(t->z) * scale;
        meas[6] = s->family == XC_FAMILY_ACCEL ? cd->w - t->w * scale : NAN;
        meas[7] = cd->f_hz;
    }
    for (int q = 0; q < 8; q++)
        xc_study_fmt_num(v[q], sizeof v[q], meas[q], 10);
    const double tv[] = {t->f0_hz, t->r, t->z, t->w, t->snr_folded, p->psr.period_ms, p->psr.width_pct,
                         p->psr.snrpeak, p->psr.dm, p->psr.bin.pb_h, p->psr.bin.ecc, p->psr.bin.phase,
                         p->psr.bin.mp, p->psr.bin.mc};
    char tail[1024];
    size_t len = 0;
    for (size_t q = 0; q < sizeof tv / sizeof tv[0]; q++) {
        char b[40];
        xc_study_fmt_num(b, sizeof b, tv[q], 10);
        len += (size_t)snprintf(tail + len, sizeof tail - len, ",%s", b);
    }
    char line[2048];
    int n = snprintf(line, sizeof line, "%llu,%s,%s,%d,%s,%d,%s,%d,%s,%s,%s,%s,%s,%s,%s%s,%zu", (unsigned long long)id,
                     s->name, s->cfg[c].label, d != NULL, v[0], numharm, match, hn, v[1], v[2], v[3], v[4], v[5], v[6],
                     v[7], tail, m.nabove);
    if (n < 0 || (size_t)n >= sizeof line)
        return xc_error_set(err, XC_EINVAL, "pulsar %llu: row too long", (unsigned long long)id);
    char where[96];
    snprintf(where, sizeof where, "pulsar %llu", (unsigned long long)id);
    if ((e = xc_study_row_parse(st, line, row, where, err)))
        return e;
    if (!(row->line = strdup(line)))
        return xc_error_set(err, XC_ENOMEM, "out of memory");
    return XC_OK;
}

/* The kept transform planned for the series' length, its input the
 * series' buffer; how long the planning took. */
typedef struct {
    xc_study_cache *cache;
    xc_realfft *fft;
    double plan_s;
} fft_dest;

static float *into_fft(void *ctx, uint64_t n)
{
    fft_dest *d = ctx;
    const double t = xc_now();
    d->fft = n <= SIZE_MAX / 2 ? xc_study_cache_fft(d->cache, (size_t)n) : NULL;
    d->plan_s = xc_now() - t;
    return d->fft ? xc_realfft_input(d->fft) : NULL;
}

/* The worker's kept series buffer for the device transform. */
typedef struct {
    xc_study_cache *cache;
    const xc_study *st;
} series_dest;

static float *into_series(void *ctx, uint64_t n)
{
    series_dest *d = ctx;
    return n <= SIZE_MAX ? xc_study_cache_series(d->cache, d->st, (size_t)n) : NULL;
}

/* One pulsar's searches: the study, the worker's kept searches, the
 * searches wanted, the pulsar's parameters, truth and spectrum, and where
 * its rows and times go. */
typedef struct {
    const xc_study *st;
    xc_study_cache *cache;
    uint64_t id;
    const unsigned char *want;
    int threads;
    const xc_synth_params *p;
    const xc_truth *t;
    const xc_spectrum *sp;
    xc_study_rows *out;
    double *secs;
} pulsar_t;

/* Searcher k's rows of one pulsar (its searches are idx.. of the pulsar's):
 * one search of every configuration where they are searched as one (a
 * matched filter's sweep, xc_psearch_joint, of every configuration whichever
 * are wanted: the lists then do not depend on what an interrupted run had
 * left to do; its time shared evenly), else one search per wanted
 * configuration. */
static xc_status searcher_rows(const pulsar_t *q, size_t k, size_t idx, xc_error *err)
{
    const xc_study *st = q->st;
    const xc_study_searcher *s = &st->s[k];
    const unsigned char *want = q->want;
    int any = 0;
    for (size_t c = 0; c < s->ncfg; c++)
        any |= !want || want[idx + c];
    if (!any)
        return XC_OK;
    xc_candlist *cl = calloc(s->ncfg, sizeof *cl);
    if (!cl)
        return xc_error_set(err, XC_ENOMEM, "out of memory");
    for (size_t c = 0; c < s->ncfg; c++)
        xc_candlist_init(&cl[c]);
    const size_t per = !st->separate && xc_psearch_joint(s->impl, s->ncfg) ? s->ncfg : 1;
    xc_error se;
    xc_error_clear(&se);
    const char *failed = "";
    xc_status e = XC_OK;
    for (size_t c0 = 0; c0 < s->ncfg && !e; c0 += per) {
        if (per == 1 && want && !want[idx + c0])
            continue;
        double ts = xc_now();
        e = xc_study_search(s, c0, per, q->cache, idx + c0, q->sp, q->threads, &cl[c0], &se);
        for (size_t c = c0; q->secs && c < c0 + per; c++)
            q->secs[2 + idx + c] += (xc_now() - ts) / (double)per;
        failed = per > 1 ? "the sweep of every configuration" : s->cfg[c0].label;
        for (size_t c = c0; c < c0 + per && !e; c++) {
            if (want && !want[idx + c])
                continue;
            xc_study_row row;
            memset(&row, 0, sizeof row);
            if (!(e = xc_study_score(st, q->id, (int)k, (int)c, q->p, q->t, &cl[c], &row, err)) &&
                (e = xc_study_rows_push(q->out, &row, err)))
                free(row.line);
        }
    }
    if (e && se.msg[0])
        xc_error_set(err, e, "pulsar %llu, searcher %s (%s), %s: %s", (unsigned long long)q->id, s->name,
                     s->impl->name, failed, se.msg);
    for (size_t c = 0; c < s->ncfg; c++)
        xc_candlist_free(&cl[c]);
    free(cl);
    return e;
}


xc_status xc_study_pulsar(const xc_study *st, uint64_t id, const unsigned char *want, int threads,
                          xc_study_rows *out, xc_error *err)
{
    return xc_study_pulsar_timed(st, id, want, threads, out, NULL, err);
}

xc_status xc_study_pulsar_timed(const xc_study *st, uint64_t id, const unsigned char *want, int threads,
                                xc_study_rows *out, double *secs, xc_error *err)
{
    return xc_study_pulsar_cached(st, NULL, id, want, threads, out, secs, err);
}

/* The pulsar's filterbank dedispersed by the study's dedisperser: the
 * series and its truth. The series must be the one the truth describes:
 * the dedisperser's nsamp - max_delay samples, of which the truth, as synth
 * -dedispersed writes, keeps an even count (the last odd one dropped). */
static xc_status dedispersed_series(const xc_study *st, const xc_synth_params *p, const char *label, uint64_t id,
                                    xc_truth *t, float **x, uint64_t *n, xc_error *err)
{
    xc_error de;
    xc_error_clear(&de);
    xc_status e = xc_synth_dedispersed_truth(p, label, t, err);
    if (e)
        return e;
    if ((e = fb_series(st->dedisperser, p, x, n, &de)))
        return xc_error_set(err, e, "pulsar %llu: filterbank dedispersed by %s: %s", (unsigned long long)id,
                            st->dedisperser->name, de.msg);
    const uint64_t want = t->nsamp_dedispersed;
    if (want && want != (*n & ~(uint64_t)1))
        return xc_error_set(err, XC_EINVAL, "pulsar %llu: %s gave %llu samples, the truth describes %llu",
                            (unsigned long long)id, st->dedisperser->name, (unsigned long long)*n,
                            (unsigned long long)want);
    *n = want ? want : *n;
    return XC_OK;
}

xc_status xc_study_pulsar_cached(const xc_study *st, xc_study_cache *cache, uint64_t id, const unsigned char *want,
                                 int threads, xc_study_rows *out, double *secs, xc_error *err)
{
    if (st->frb)
        return xc_study_frb_burst(st, id, want, threads, out, secs, err);
    double t0 = xc_now();
    const double ts = t0;
    xc_realfft *fft = NULL;
    float *kept = NULL;   /* the series in the kept transform's input */
    xc_synth_params p;
    char label[64];
    xc_status e = xc_study_params(st, id, threads, "pulsar", &p, label, sizeof label, err);
    if (e)
        return e;
    float *x = NULL;
    uint64_t n = 0;
    xc_truth t;
    memset(&t, 0, sizeof t);
    xc_spectrum sp;
    memset(&sp, 0, sizeof sp);
    if (st->dedisperser) {
        if ((e = dedispersed_series(st, &p, label, id, &t, &x, &n, err)))
            goto done;
    } else if (cache && st->fft_run) {
        /* straight into the worker's kept (page-locked) series buffer, for
         * the device transform */
        series_dest sd = {cache, st};
        const xc_synth_dest dest = {into_series, &sd};
        e = xc_synth_dedispersed_into(&p, label, &dest, &x, &n, &t, err);
        kept = x;
        if (e)
            goto done;
    } else if (cache) {
        /* straight into the worker's kept transform's input (the planning
         * it needs for this length timed as the FFT's) */
        fft_dest fd = {cache, NULL, 0};
        const xc_synth_dest dest = {into_fft, &fd};
        e = xc_synth_dedispersed_into(&p, label, &dest, &x, &n, &t, err);
        fft = fd.fft;
        kept = x;
        t0 += fd.plan_s;
        if (e)
            goto done;
    } else if ((e = xc_synth_dedispersed_series(&p, label, &x, &n, &t, err))) {
        goto done;
    }
    if ((e = check_truth(&t, id, err)))
        goto done;
    /* realfft needs an even length: an odd series (from a truth without
     * nsamp_dedispersed) loses its last sample, and the truth is taken to the
     * shorter T (r ~ T, z ~ T^2, w ~ T^3). */
    uint64_t nf = n & ~(uint64_t)1;
    if (nf < 4) {
        e = xc_error_set(err, XC_EINVAL, "pulsar %llu: %llu samples: too short to search", (unsigned long long)id,
                         (unsigned long long)n);
        goto done;
    }
    double q = (double)nf / (double)n;
    t.r *= q;
    t.z *= q * q;
    t.w *= q * q * q;
    t.T = (double)nf * p.tsamp;
    double t1 = xc_now();
    /* into the worker's kept buffer (page-locked for a device searcher) by
     * the device transform, or by its kept transform, or in place by a
     * transform made for this one */
    float *spec = xc_study_cache_spectrum(cache, st, (size_t)nf);
    if (!kept && !st->fft_run)
        fft = xc_study_cache_fft(cache, (size_t)nf);
    if (st->fft_run) {
        if (!spec)
            spec = x;
        if ((e = xc_study_device_fft(cache, st, x, (size_t)nf, spec, &sp.dev, err)))
            goto done;
        sp.share = sp.dev ? xc_study_cache_share(cache) : NULL;
    } else if (fft && spec) {
        if (kept)
            xc_realfft_exec(fft, spec, (size_t)nf + 2);
        else
            xc_realfft_run(fft, x, spec);
    } else if (kept) {   /* no kept spectrum: the series' own buffer */
        xc_realfft_exec(fft, kept, (size_t)nf);
        spec = kept;
    } else if ((e = xc_realfft_forward(x, (size_t)nf, XC_FFT_SINGLE, spec ? spec : x, err))) {
        goto done;
    }
    if (!spec)
        spec = x;
    if (secs) {
        secs[0] += t1 - t0;
        secs[1] += xc_now() - t1 + (t0 - ts);
    }
    sp.data = spec;
    sp.nbins = (size_t)(nf / 2);
    sp.dt = p.tsamp;
    sp.T = t.T;
    const pulsar_t psr = {st, cache, id, want, threads, &p, &t, &sp, out, secs};
    for (size_t k = 0, idx = 0; k < st->ns && !e; idx += st->s[k].ncfg, k++)
        e = searcher_rows(&psr, k, idx, err);
done:
    if (x != kept)
        free(x);
    xc_synth_params_free(&p);
    return e;
}
