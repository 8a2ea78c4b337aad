/* How a study's searches of one pulsar run (study/spec/study_internal.h): through
 * the periodicity-search contract (core/search/xc_psearch.h), whatever the
 * searcher's family, with the worker's searches kept from pulsar to pulsar
 * (xc_study_cache) and device searches one caller at a time. */
#include <stdlib.h>
#include <time.h>

#include <omp.h>

#include "core/base/xc_nbits.h"
#include "core/search/xc_psearch.h"
#include "study/spec/study_internal.h"

/* ---- searches kept from pulsar to pulsar -------------------------------------- */

/* A worker's searches, made at the first pulsar and kept while the spectra
 * fit them (their length, and T where the family's grid depends on it): the
 * thresholds, templates and a device searcher's plan and buffers are made
 * once per study rather than once per pulsar.  The candidates are the same
 * bits.  A search of several configurations is kept at its first one's
 * index. */
struct xc_study_cache {
    size_t n;
    xc_psearch **s;            /* per search of a pulsar */
    int *threads;
    xc_study_gate *gate;       /* device searches at once (NULL: one at a time) */
    xc_realfft *fft;           /* the pulsars' forward transform */
    float *spec;               /* the pulsars' spectra (spec_n floats) */
    size_t spec_n;
    void (*spec_free)(void *); /* how spec was allocated */
    void *dfft;                /* the pulsars' transform on the device (xc_study.fft_new) */
    void (*dfft_free)(void *);
    float *series;             /* the pulsars' series for it (series_n floats) */
    size_t series_n;
    void (*series_free)(void *);
    xc_devshare share;         /* what device searches derive from dfft's spectrum (gen: its transforms) */
};

/* ---- the device's slots ------------------------------------------------------ */

enum { GATE_MAX = 64 };

struct xc_study_gate {
    int n;
    omp_lock_t slot[GATE_MAX];
    xc_devslot mem[GATE_MAX];  /* each slot's kept device memory (core/base/xc_devgate.h) */
    double since[GATE_MAX];    /* when its holder took it */
    double wait_s, held_s;     /* summed over the searches (omp atomic) */
};

xc_status xc_study_gate_new(int jobs, xc_study_gate **g, xc_error *err)
{
    *g = NULL;
    if (jobs < 1 || jobs > GATE_MAX)
        return xc_error_set(err, XC_EINVAL, "-device_jobs %d: must be 1 to %d", jobs, GATE_MAX);
    if (!(*g = calloc(1, sizeof **g)))
        return xc_error_set(err, XC_ENOMEM, "out of memory");
    (*g)->n = jobs;
    for (int k = 0; k < jobs; k++)
        omp_init_lock(&(*g)->slot[k]);
    return XC_OK;
}

void xc_study_gate_free(xc_study_gate *g)
{
    if (!g)
        return;
    for (int k = 0; k < g->n; k++) {
        omp_destroy_lock(&g->slot[k]);
        if (g->mem[k].mem && g->mem[k].release)
            g->mem[k].release(g->mem[k].mem);
    }
    free(g);
}

/* A free slot, waiting (50 us naps) while every one is taken. */
static int gate_take(xc_study_gate *g)
{
    for (;;) {
        for (int k = 0; k < g->n; k++)
            if (omp_test_lock(&g->slot[k]))
                return k;
        struct timespec ts = {0, 50000};
        nanosleep(&ts, NULL);
    }
}

/* The gate as a searcher takes it around its device memory
 * (xc_psearch_gate): the same slots and times. */
static xc_devslot *devgate_take(void *ctx)
{
    xc_study_gate *g = ctx;
    double t0 = omp_get_wtime();
    int k = gate_take(g);
    double t1 = omp_get_wtime();
    g->since[k] = t1;
#pragma omp atomic
    g->wait_s += t1 - t0;
    return &g->mem[k];
}

static void devgate_give(void *ctx, xc_devslot *m)
{
    xc_study_gate *g = ctx;
    int k = (int)(m - g->mem);
    double dt = omp_get_wtime() - g->since[k];
    omp_unset_lock(&g->slot[k]);
#pragma omp atomic
    g->held_s += dt;
}

void xc_study_gate_times(xc_study_gate *g, double *wait_s, double *held_s)
{
    double w = 0, h = 0;
    if (g) {
#pragma omp atomic read
        w = g->wait_s;
#pragma omp atomic read
        h = g->held_s;
    }
    *wait_s = w;
    *held_s = h;
}

void xc_study_cache_gate(xc_study_cache *c, xc_study_gate *g)
{
    if (c)
        c->gate = g;
}

xc_status xc_study_cache_new(const xc_study *st, xc_study_cache **c, xc_error *err)
{
    *c = calloc(1, sizeof **c);
    size_t n = xc_study_nsearch(st);
    if (*c) {
        (*c)->n = n;
        (*c)->s = calloc(n ? n : 1, sizeof *(*c)->s);
        (*c)->threads = calloc(n ? n : 1, sizeof *(*c)->threads);
    }
    if (!*c || !(*c)->s || !(*c)->threads) {
        xc_study_cache_free(*c);
        *c = NULL;
        return xc_error_set(err, XC_ENOMEM, "out of memory for a study's searches");
    }
    return XC_OK;
}

void xc_study_cache_free(xc_study_cache *c)
{
    if (!c)
        return;
    for (size_t k = 0; c->s && k < c->n; k++)
        xc_psearch_close(c->s[k]);
    xc_realfft_free(c->fft);
    if (c->spec)
        c->spec_free(c->spec);
    if (c->share.state && c->share.state_free)
        c->share.state_free(c->share.state);
    if (c->dfft)
        c->dfft_free(c->dfft);
    if (c->series)
        c->series_free(c->series);
    free(c->s);
    free(c->threads);
    free(c);
}

/* A kept buffer of at least n floats: page-locked where the study has
 * host_alloc and it succeeds, else 64-byte aligned; NULL without memory. */
static float *kept_buffer(const xc_study *st, float **buf, size_t *cap, void (**fr)(void *), size_t n)
{
    if (*buf && *cap >= n)
        return *buf;
    if (*buf)
        (*fr)(*buf);
    *buf = NULL;
    *cap = 0;
    void *p = NULL;
    xc_error e;
    if (st->host_alloc && st->host_free && !st->host_alloc(&p, n * sizeof(float), &e)) {
        *fr = st->host_free;
    } else {
        if (posix_memalign(&p, 64, n * sizeof(float)))
            p = NULL;
        *fr = free;
    }
    if (p) {
        *buf = p;
        *cap = n;
    }
    return *buf;
}

/* Both kept buffers are made a sixteenth larger than asked: the next
 * pulsar's series is a few thousand samples longer or shorter, and a
 * page-locked buffer's free and allocation each wait for the whole device
 * (every worker's queued kernels). */
static float *kept_room(const xc_study *st, float **buf, size_t *cap, void (**fr)(void *), size_t n)
{
    if (*buf && *cap >= n)
        return *buf;
    return n <= SIZE_MAX / 2 ? kept_buffer(st, buf, cap, fr, n + n / 16) : NULL;
}

float *xc_study_cache_spectrum(xc_study_cache *c, const xc_study *st, size_t n)
{
    return c ? kept_room(st, &c->spec, &c->spec_n, &c->spec_free, n + 2) : NULL;
}

float *xc_study_cache_series(xc_study_cache *c, const xc_study *st, size_t n)
{
    return c ? kept_room(st, &c->series, &c->series_n, &c->series_free, n) : NULL;
}

xc_status xc_study_device_fft(xc_study_cache *c, const xc_study *st, const float *x, size_t n, float *out,
                              const float **dev, xc_error *err)
{
    *dev = NULL;
    if (!st->fft_new || !st->fft_run || !st->fft_free)
        return xc_error_set(err, XC_EINVAL, "the study has no device transform");
    void *once = NULL, **f = c ? &c->dfft : &once;
    xc_status e = XC_OK;
    if (!*f && !(e = st->fft_new(f, err)) && c)
        c->dfft_free = st->fft_free;
    if (!e)
        e = st->fft_run(*f, x, n, out, dev, err);
    if (c)
        c->share.gen++;   /* the device copy's values changed (or may have, on an error) */
    if (once) {   /* no worker to keep it: nor its device copy */
        st->fft_free(once);
        *dev = NULL;
    }
    return e;
}

xc_devshare *xc_study_cache_share(xc_study_cache *c)
{
    return c ? &c->share : NULL;
}

xc_realfft *xc_study_cache_fft(xc_study_cache *c, size_t n)
{
    xc_error err;
    if (!c)
        return NULL;
    if (c->fft && !xc_realfft_resize(c->fft, n, &err))
        return c->fft;
    xc_realfft_free(c->fft);
    c->fft = NULL;
    if (xc_realfft_new(n, &c->fft, &err))
        c->fft = NULL;
    return c->fft;
}

/* ---- one search ---------------------------------------------------------------- */

/* A search of s's configurations c0..c0+nc-1 for sp's length and T. */
static xc_status open_search(const xc_study_searcher *s, size_t c0, size_t nc, const xc_spectrum *sp, int threads,
                             xc_psearch **ps, xc_error *err)
{
    xc_psearch_opts *o = malloc(nc * sizeof *o);
    if (!o)
        return xc_error_set(err, XC_ENOMEM, "out of memory");
    for (size_t c = 0; c < nc; c++) {
        o[c] = s->cfg[c0 + c].opts;
        xc_psearch_opts_threads(&o[c], threads);
    }
    xc_status e = xc_psearch_open(ps, s->impl, sp->nbins, sp->T, o, nc, err);
    free(o);
    return e;
}

/* The search, through the worker's kept one when there is a cache, made
 * or moved to sp's length: *ps (*once when there is no cache, for the
 * caller to close).  A device searcher's search too (templates, plans,
 * buffers and pinned staging made once per worker): test_gpu_accel's
 * gpu_accel_sweep holds a kept device session to fresh sweeps bit for bit. */
static xc_status prepare(const xc_study_searcher *s, size_t c0, size_t nc, xc_study_cache *cache, size_t q,
                         const xc_spectrum *sp, int threads, xc_psearch **once, xc_psearch ***ps, xc_error *err)
{
    *once = NULL;
    *ps = cache ? &cache->s[q] : once;
    xc_error re;
    /* a spectrum of another length (every pulsar's series has its own):
     * the kept search made again for it, keeping its device state, or
     * made anew where that fails */
    if (**ps && (cache->threads[q] != threads || xc_psearch_refit(**ps, sp, &re))) {
        xc_psearch_close(**ps);
        **ps = NULL;
    }
    xc_status e = XC_OK;
    if (!**ps) {
        e = open_search(s, c0, nc, sp, threads, *ps, err);
        if (cache)
            cache->threads[q] = threads;
    }
    return e;
}

static xc_status search(const xc_study_searcher *s, size_t c0, size_t nc, xc_study_cache *cache, size_t q,
                        const xc_spectrum *sp, int threads, xc_candlist *cl, xc_error *err)
{
    xc_psearch *once, **ps;
    xc_status e = prepare(s, c0, nc, cache, q, sp, threads, &once, &ps, err);
    if (!e)
        e = xc_psearch_run(*ps, sp, cl, err);
    xc_psearch_close(once);
    return e;
}

/* Whether a device search takes one of the gate's slots: the accel
 * searcher's plane (22.5 GB at the Pulscan paper's size) lives while it
 * searches, so the slots bound the device's memory; a built-in Pulscan
 * device searcher (the GPU one) holds its device memory in its kept plan
 * whatever runs beside it, and its kernels (0.25 ms of its 10 ms at that
 * size) queue on the device in order, so it goes without one: holding a
 * slot through its host side (checks, significance) kept the FDAS searches
 * waiting.  A plugin's or a test's (XC_CAP_RUNTIME), whose memory is not
 * known here, takes one. */
static int takes_slot(const xc_study_searcher *s)
{
    return s->family != XC_FAMILY_PULSCAN || (s->impl->caps & XC_CAP_RUNTIME);
}

/* Device searches run one at a time unless the worker's cache has a gate
 * (xc_study_gate_new): then those that take a slot (takes_slot) run as many
 * at once as it has slots, and the others without one.  A searcher that
 * takes the slot itself around its device memory (xc_psearch_gate: the GPU
 * accel searcher, around its plane) holds it only while the device works,
 * not through the search's host side (normalisation before, scoring
 * after); the others hold it through the whole search.  Two host threads
 * may search on one GPU: the GPU Pulscan plans share a kernel's
 * shared-memory limit, a setting of the process, so every caller sets the
 * largest (optimized/gpu/gpu_check.h, xc_gpu_smem_optin); each setting its
 * own size would give illegal memory accesses or "invalid argument". */
xc_status xc_study_search(const xc_study_searcher *s, size_t c0, size_t nc, xc_study_cache *cache, size_t q,
                          const xc_spectrum *sp, int threads, xc_candlist *cl, xc_error *err)
{
    if (!(s->impl->caps & XC_CAP_DEVICE))
        return search(s, c0, nc, cache, q, sp, threads, cl, err);
    xc_status e;
    if (cache && cache->gate && !takes_slot(s)) {
        e = search(s, c0, nc, cache, q, sp, threads, cl, err);
    } else if (cache && cache->gate) {
        xc_study_gate *g = cache->gate;
        xc_psearch *once, **ps;
        if ((e = prepare(s, c0, nc, cache, q, sp, threads, &once, &ps, err)))
            return e;
        const xc_devgate dg = {g, devgate_take, devgate_give};
        if (xc_psearch_gate(*ps, &dg))
            return xc_psearch_run(*ps, sp, cl, err);
        xc_devslot *slot = devgate_take(g);
        e = xc_psearch_run(*ps, sp, cl, err);
        devgate_give(g, slot);
    } else {
#pragma omp critical(xc_study_device)
        e = search(s, c0, nc, cache, q, sp, threads, cl, err);
    }
    return e;
}

/* One searcher's kept searches: joint over its configurations, or one each. */
static xc_status searcher_memory(const xc_study *st, const xc_study_searcher *s, size_t nbins, double T, int threads,
                                 double *bytes, xc_error *err)
{
    const size_t per = !st->separate && xc_psearch_joint(s->impl, s->ncfg) ? s->ncfg : 1;
    xc_psearch_opts *o = malloc((s->ncfg ? s->ncfg : 1) * sizeof *o);
    if (!o)
        return xc_error_set(err, XC_ENOMEM, "out of memory");
    for (size_t c = 0; c < s->ncfg; c++) {
        o[c] = s->cfg[c].opts;
        xc_psearch_opts_threads(&o[c], threads);
    }
    xc_status e = XC_OK;
    for (size_t c0 = 0; c0 < s->ncfg && !e; c0 += per) {
        double b = 0;
        e = xc_psearch_memory(s->impl, nbins, T, &o[c0], per, &b, err);
        *bytes += b;
    }
    free(o);
    return e;
}

xc_status xc_study_worker_memory(const xc_study *st, int threads, double *bytes, xc_error *err)
{
    *bytes = 0;
    if (st->frb)
        return xc_study_frb_memory(st, threads, bytes, err);
    xc_synth_params p;
    char label[64];
    xc_status e = xc_study_params(st, 0, threads, "pulsar", &p, label, sizeof label, err);
    if (e)
        return e;
    const double n = (double)xc_synth_nsamp(&p), nvals = n * p.nchans;
    const size_t nbins = (size_t)(n / 2);
    const double T = 2.0 * (double)nbins * p.tsamp;
    /* the series, the kept spectrum, the kept transform's two buffers and
     * its plan's tables (FFTW's twiddles: measured 3.3 n floats at 256 000
     * samples, 1.2 n at 4 687 500; 4 n here) */
    double b = 2 * n * sizeof(float) + n * sizeof(float) + (n / 2 + 1) * 2 * sizeof(float) + 4 * n * sizeof(float);
    if (st->dedisperser)   /* the series is the plane's one trial */
        b += nvals * (xc_nbits_is_float(p.nbits) ? 4.0 : p.nbits / 8.0 + 2.0);
    for (size_t k = 0; k < st->ns && !e; k++)
        e = searcher_memory(st, &st->s[k], nbins, T, threads, &b, err);
    xc_synth_params_free(&p);
    *bytes = e ? 0 : b;
    return e;
}
