/* How a study's searches of one pulsar run (study/study_internal.h): one
 * configuration at a time, or a matched filter's sweep as one search, with
 * the worker's sessions kept from pulsar to pulsar (xc_study_cache), device
 * searches one caller at a time. */
#include <stdlib.h>
#include <time.h>

#include <omp.h>

#include "core/search/xc_accel.h"
#include "core/search/xc_search.h"
#include "study/study_internal.h"

static xc_status search_any(const xc_study_searcher *s, const xc_study_config *c, const xc_spectrum *sp,
                            int threads, xc_candlist *cl, xc_error *err)
{
    if (s->family == XC_FAMILY_ACCEL) {
        xc_accel_opts o = c->ac;
        o.threads = threads;
        return xc_accel_run(xc_accel_searcher_of(s->impl), sp, &o, cl, err);
    }
    xc_psopts o = c->ps;
    o.threads = threads;
    return xc_pulscan_run(xc_searcher_of(s->impl), sp, &o, cl, err);
}

/* ---- sessions kept from pulsar to pulsar ------------------------------------ */

/* A worker's Pulscan sessions (core/search/xc_search.h), one per search, made at
 * the first pulsar and kept while the spectra keep their length: the
 * thresholds, and a device searcher's plan, are made once per study rather
 * than once per pulsar; likewise an accel searcher's session per searcher
 * (its sweep's plans and state).  The candidates are the same bits. */
struct xc_study_cache {
    size_t n, ns;
    xc_pulscan_session **ps;   /* per search */
    int *threads;
    xc_accel_session **as;     /* per searcher: a matched filter's sweep */
    int *athreads;
    xc_study_gate *gate;       /* device searches at once (NULL: one at a time) */
};

/* ---- the device's slots ------------------------------------------------------ */

enum { GATE_MAX = 64 };

struct xc_study_gate {
    int n;
    omp_lock_t slot[GATE_MAX];
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
    for (int k = 0; k < g->n; k++)
        omp_destroy_lock(&g->slot[k]);
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
        (*c)->ns = st->ns;
        (*c)->ps = calloc(n ? n : 1, sizeof *(*c)->ps);
        (*c)->threads = calloc(n ? n : 1, sizeof *(*c)->threads);
        (*c)->as = calloc(st->ns ? st->ns : 1, sizeof *(*c)->as);
        (*c)->athreads = calloc(st->ns ? st->ns : 1, sizeof *(*c)->athreads);
    }
    if (!*c || !(*c)->ps || !(*c)->threads || !(*c)->as || !(*c)->athreads) {
        xc_study_cache_free(*c);
        *c = NULL;
        return xc_error_set(err, XC_ENOMEM, "out of memory for a study's sessions");
    }
    return XC_OK;
}

void xc_study_cache_free(xc_study_cache *c)
{
    if (!c)
        return;
    for (size_t k = 0; c->ps && k < c->n; k++)
        xc_pulscan_session_close(c->ps[k]);
    for (size_t k = 0; c->as && k < c->ns; k++)
        xc_accel_session_close(c->as[k]);
    free(c->ps);
    free(c->threads);
    free(c->as);
    free(c->athreads);
    free(c);
}

static xc_status session_search(const xc_study_searcher *s, const xc_study_config *c, xc_study_cache *cache,
                                size_t q, const xc_spectrum *sp, int threads, xc_candlist *cl, xc_error *err)
{
    xc_status e = XC_OK;
    xc_pulscan_session **ss = &cache->ps[q];
    if (*ss && (xc_pulscan_session_nbins(*ss) != sp->nbins || cache->threads[q] != threads)) {
        xc_pulscan_session_close(*ss);
        *ss = NULL;
    }
    if (!*ss) {
        xc_psopts o = c->ps;
        o.threads = threads;
        e = xc_pulscan_session_open(xc_searcher_of(s->impl), sp->nbins, &o, ss, err);
        cache->threads[q] = threads;
    }
    return e ? e : xc_pulscan_session_run(*ss, sp, cl, err);
}

/* Every configuration of an accel searcher at once (core/search/xc_accel.h,
 * xc_accel_run_sweep: one search when they nest), on the device one
 * caller at a time as search() below. */
static xc_status sweep_any(const xc_study_searcher *s, xc_study_cache *cache, size_t k, const xc_accel_opts *o,
                           const xc_spectrum *sp, int threads, xc_candlist *cl, xc_error *err)
{
    const xc_accel_searcher *as = xc_accel_searcher_of(s->impl);
    /* A device searcher's session too (templates, cuFFT plans, buffers and
     * pinned staging made once per worker): test_gpu_accel's
     * gpu_accel_sweep holds a kept device session to fresh sweeps bit for
     * bit. */
    if (!cache)
        return xc_accel_run_sweep(as, sp, o, s->ncfg, cl, err);
    xc_accel_session **ss = &cache->as[k];
    if (*ss && (!xc_accel_session_fits(*ss, sp) || cache->athreads[k] != threads)) {
        xc_accel_session_close(*ss);
        *ss = NULL;
    }
    xc_status e = XC_OK;
    if (!*ss) {
        e = xc_accel_session_open(as, sp->nbins, sp->T, o, s->ncfg, ss, err);
        cache->athreads[k] = threads;
    }
    return e ? e : xc_accel_session_run(*ss, sp, cl, err);
}

xc_status xc_study_search_sweep(const xc_study_searcher *s, xc_study_cache *cache, size_t k, const xc_spectrum *sp,
                                int threads, xc_candlist *cl, xc_error *err)
{
    xc_accel_opts *o = malloc(s->ncfg * sizeof *o);
    if (!o)
        return xc_error_set(err, XC_ENOMEM, "out of memory");
    for (size_t c = 0; c < s->ncfg; c++) {
        o[c] = s->cfg[c].ac;
        o[c].threads = threads;
    }
    xc_status e;
    if ((s->impl->caps & XC_CAP_DEVICE) && cache && cache->gate) {
        int slot = gate_take(cache->gate);
        e = sweep_any(s, cache, k, o, sp, threads, cl, err);
        omp_unset_lock(&cache->gate->slot[slot]);
    } else if (s->impl->caps & XC_CAP_DEVICE) {
#pragma omp critical(xc_study_device)
        e = sweep_any(s, cache, k, o, sp, threads, cl, err);
    } else {
        e = sweep_any(s, cache, k, o, sp, threads, cl, err);
    }
    free(o);
    return e;
}

/* Device searches run one at a time unless the worker's cache has a gate
 * of more slots (xc_study_gate_new).  Two host threads may search on one
 * GPU: the GPU Pulscan plans share a kernel's shared-memory limit, a
 * setting of the process, so every caller sets the largest
 * (optimized/gpu/gpu_check.h, xc_gpu_smem_optin); each setting its own size
 * would give illegal memory accesses or "invalid argument". */
xc_status xc_study_search_one(const xc_study_searcher *s, const xc_study_config *c, xc_study_cache *cache,
                              size_t q, const xc_spectrum *sp, int threads, xc_candlist *cl, xc_error *err)
{
    xc_status e;
    int keep = cache && s->family == XC_FAMILY_PULSCAN;
    if ((s->impl->caps & XC_CAP_DEVICE) && cache && cache->gate) {
        int slot = gate_take(cache->gate);
        e = keep ? session_search(s, c, cache, q, sp, threads, cl, err) : search_any(s, c, sp, threads, cl, err);
        omp_unset_lock(&cache->gate->slot[slot]);
    } else if (s->impl->caps & XC_CAP_DEVICE) {
#pragma omp critical(xc_study_device)
        e = keep ? session_search(s, c, cache, q, sp, threads, cl, err) : search_any(s, c, sp, threads, cl, err);
    } else {
        e = keep ? session_search(s, c, cache, q, sp, threads, cl, err) : search_any(s, c, sp, threads, cl, err);
    }
    return e;
}
