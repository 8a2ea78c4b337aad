/* The fused GPU pipeline (optimized/gpu/xc_gpu.h): a block dedispersed by
 * the GPU dedisperser into a plane in device memory, and that plane searched
 * where it lies by the GPU single-pulse searcher.  The float plane never
 * crosses PCIe: the block goes in, the candidates come back.
 *
 * Plan and execute, as FFTW and dedisp do: the plan keeps the device plane
 * (grown, never shrunk) and the searcher's plan (its device buffers) from
 * one block to the next, so a run of gulps pays their allocation once; the
 * dedisperser's plan keeps its own chunk buffers, delays and page-locked
 * staging the same way.
 *
 * A stream of blocks (submit, then finish): the search of one block's plane
 * runs on a host thread of its own (the searcher's work on its own device
 * stream, sp_gpu.cu) while the caller's thread dedisperses the next block
 * into a second device plane, so a long run of gulps pays about the larger
 * of the two halves a gulp, not their sum, where the device has room to run
 * both at once.  Each block's candidates are those of an execute of it. */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/xc_progress.h"
#include "optimized/gpu/sp_fused.h"
#include "optimized/gpu/xc_gpu.h"

struct xc_spfused {
    xc_ddplan *p;
    const xc_dmplan *plan;
    double tsamp;
    const xc_spsearcher *s;
    void *dev[2];        /* the device planes: [0] for execute; a stream alternates */
    size_t cap[2];       /* their bytes */
    xc_planerange *r[2]; /* each plane's ranges, laid out in dev per block */
    xc_spplane *v[2];
    double *dms;
    size_t ndms;
    void *sstate;     /* the searcher's plan, kept from block to block */
    size_t snsamp;    /* the samples of a row it is planned for */
    /* a stream: the plane the next submit fills, and the search in flight */
    int next;
    int running;
    pthread_t th;
    int tb;              /* the plane it searches */
    xc_spopts topts;
    xc_spcandlist tout;
    xc_status tst;
    xc_error terr;
    double tsearch_s;
};

int xc_sp_gpu_fusable(const xc_dedisperser *dd, const xc_spsearcher *s)
{
    return dd && s && (dd == &xc_dd_gpu || dd == &xc_dd_gpu_direct) && s == &xc_sp_gpu;
}

static xc_status not_fusable(const xc_dedisperser *dd, const xc_spsearcher *s, xc_error *err)
{
    return xc_error_set(err, XC_EINVAL, "gpu: fused search: the dedisperser (%s) and the searcher (%s) are not the "
                                        "GPU ones",
                        dd ? dd->impl.name : "none", s ? s->impl.name : "none");
}

/* Ranges start 256 bytes apart (the device's widest aligned access). */
static size_t range_floats(size_t ndm, size_t nsamp)
{
    return (ndm * nsamp + 63) / 64 * 64;
}

void xc_sp_gpu_fused_destroy(xc_spfused *f)
{
    if (!f)
        return;
    if (f->running)
        pthread_join(f->th, NULL);
    xc_spcandlist_free(&f->tout);
    if (f->sstate && f->s->destroy)
        f->s->destroy(f->s, f->sstate);
    for (int b = 0; b < 2; b++) {
        xc_gpu_free(f->dev[b]);
        free(f->r[b]);
        free(f->v[b]);
    }
    free(f->dms);
    free(f);
}

xc_status xc_sp_gpu_fused_create(xc_spfused **out, xc_ddplan *p, const xc_dmplan *plan, double tsamp,
                                 const xc_spsearcher *s, xc_error *err)
{
    *out = NULL;
    if (!xc_sp_gpu_fusable(xc_ddplan_impl(p), s))
        return not_fusable(xc_ddplan_impl(p), s, err);
    xc_spfused *f = calloc(1, sizeof *f);
    const size_t nr = (size_t)(plan->nranges ? plan->nranges : 1);
    int ok = f != NULL;
    if (f) {
        xc_spcandlist_init(&f->tout);
        f->ndms = xc_dmplan_ndm(plan);
        for (int b = 0; b < 2; b++) {
            f->r[b] = calloc(nr, sizeof *f->r[b]);
            f->v[b] = calloc(nr, sizeof *f->v[b]);
            ok = ok && f->r[b] && f->v[b];
        }
        f->dms = malloc((f->ndms ? f->ndms : 1) * sizeof *f->dms);
        ok = ok && f->dms;
    }
    if (!ok) {
        xc_sp_gpu_fused_destroy(f);
        return xc_error_set(err, XC_ENOMEM, "out of memory for a fused plan of %zu DM trials", xc_dmplan_ndm(plan));
    }
    f->p = p;
    f->plan = plan;
    f->tsamp = tsamp;
    f->s = s;
    *out = f;
    return XC_OK;
}

/* The plane for a block of nout output samples, laid out in f->dev[b],
 * which grows when it is too small for it. */
static xc_status device_plane(xc_spfused *f, int b, size_t nout, xc_plane *pl, size_t *bytes, xc_error *err)
{
    const xc_dmplan *plan = f->plan;
    size_t n = 0;
    for (int k = 0; k < plan->nranges; k++)
        n += range_floats(plan->r[k].ndm, nout / (size_t)plan->r[k].ds);
    *bytes = n * sizeof(float);
    if (*bytes > f->cap[b] || !f->dev[b]) {
        xc_gpu_free(f->dev[b]);
        f->dev[b] = NULL;
        f->cap[b] = 0;
        xc_status st = xc_gpu_upload(&f->dev[b], NULL, *bytes, err);
        if (st) {
            char msg[sizeof err->msg];
            memcpy(msg, err->msg, sizeof msg);
            return xc_error_set(err, st, "%s (a plane of %zu bytes on the device%s)", msg, *bytes,
                                b ? ", the second of a stream" : "");
        }
        f->cap[b] = *bytes;
    }
    pl->nranges = plan->nranges;
    pl->r = f->r[b];
    float *at = f->dev[b];
    for (int k = 0; k < plan->nranges; k++) {
        xc_planerange *r = &pl->r[k];
        r->ds = plan->r[k].ds;
        r->ndm = plan->r[k].ndm;
        r->nsamp = nout / (size_t)r->ds;
        r->data = at;
        at += range_floats(r->ndm, r->nsamp);
    }
    return XC_OK;
}

/* The searcher's plan, made again only where plane b's rows are longer
 * than it was made for. */
static xc_status search_plan(xc_spfused *f, int b, const xc_spopts *o, xc_error *err)
{
    size_t n = 0;
    for (int k = 0; k < f->plan->nranges; k++)
        n = f->v[b][k].nsamp > n ? f->v[b][k].nsamp : n;
    if (f->sstate && n <= f->snsamp)
        return XC_OK;
    if (f->sstate && f->s->destroy)
        f->s->destroy(f->s, f->sstate);
    f->sstate = NULL;
    xc_spconf c;
    xc_status st = xc_spconf_make(o, f->tsamp, &c, err);
    if (!st && f->s->plan)
        st = f->s->plan(f->s, &c, n, &f->sstate, err);
    f->snsamp = st ? 0 : n;
    return st;
}

/* The plane of block in, dedispersed into the device plane b of f. */
static xc_status fused_plane(xc_spfused *f, int b, const xc_block *in, xc_plane *pl, size_t *bytes, xc_error *err)
{
    const int64_t md = xc_ddplan_max_delay(f->p);
    if ((int64_t)in->nsamp <= md)
        return xc_error_set(err, XC_EINVAL, "gpu: fused search: %zu spectra are not more than the plan's largest "
                                            "delay, %lld samples",
                            in->nsamp, (long long)md);
    xc_status st = device_plane(f, b, in->nsamp - (size_t)md, pl, bytes, err);
    return st ? st : xc_ddplan_execute(f->p, in, pl, err);
}

/* Plane b's device views (f->v[b]) and the searcher's plan for them. */
static xc_status search_ready(xc_spfused *f, int b, const xc_plane *pl, const xc_spopts *o, xc_error *err)
{
    xc_spplane_views(f->plan, pl, f->tsamp, f->v[b], f->dms);
    for (int k = 0; k < f->plan->nranges; k++)
        f->v[b][k].device = 1;
    return search_plan(f, b, o, err);
}

static xc_status search_views(xc_spfused *f, int b, const xc_spopts *o, xc_spcandlist *out, xc_error *err)
{
    return xc_sp_search_planned(f->s, f->sstate, o, f->v[b], f->plan->nranges, f->tsamp, f->dms, f->ndms, out, err);
}

static xc_status stream_busy(xc_error *err)
{
    return xc_error_set(err, XC_EINVAL, "gpu: fused search: a submitted block's search is still in flight "
                                        "(xc_sp_gpu_fused_finish first)");
}

xc_status xc_sp_gpu_fused_execute(xc_spfused *f, const xc_block *in, const xc_spopts *o, xc_spcandlist *out,
                                  xc_spfused_info *info, xc_error *err)
{
    xc_spfused_info z;
    memset(&z, 0, sizeof z);
    if (f->running)
        return stream_busy(err);
    xc_plane pl = {0, NULL};
    const double t0 = xc_now();
    xc_status st = fused_plane(f, 0, in, &pl, &z.plane_bytes, err);
    const double t1 = xc_now();
    if (!st && !(st = search_ready(f, 0, &pl, o, err))) {
        (void)xc_sp_gpu_take_kernel_ms(f->sstate);   /* from this search on */
        xc_sp_gpu_take_trace(f->sstate, &z.search_trace);
        st = search_views(f, 0, o, out, err);
        z.search_kernel_s = xc_sp_gpu_take_kernel_ms(f->sstate) * 1e-3;
        xc_sp_gpu_take_trace(f->sstate, &z.search_trace);
    }
    z.dedisperse_s = t1 - t0;
    z.search_s = xc_now() - t1;
    if (info)
        *info = z;
    return st;
}

static void *search_thread(void *arg)
{
    xc_spfused *f = arg;
    const double t0 = xc_now();
    f->tst = search_views(f, f->tb, &f->topts, &f->tout, &f->terr);
    f->tsearch_s = xc_now() - t0;
    return NULL;
}

/* Waits for the search in flight, if any: its candidates appended to
 * *prev (NULL: dropped), *have set; its status returned (its message in
 * err). */
static xc_status join_search(xc_spfused *f, xc_spcandlist *prev, int *have, double *search_s, xc_error *err)
{
    if (!f->running)
        return XC_OK;
    pthread_join(f->th, NULL);
    f->running = 0;
    xc_status st = f->tst;
    if (st)
        *err = f->terr;
    if (search_s)
        *search_s = f->tsearch_s;
    for (size_t i = 0; !st && prev && i < f->tout.n; i++)
        st = xc_spcandlist_add(prev, &f->tout.c[i], err);
    if (!st && have)
        *have = 1;
    xc_spcandlist_free(&f->tout);
    xc_spcandlist_init(&f->tout);
    return st;
}

xc_status xc_sp_gpu_fused_submit(xc_spfused *f, const xc_block *in, const xc_spopts *o, xc_spcandlist *prev,
                                 int *have_prev, xc_spfused_info *info, xc_error *err)
{
    xc_spfused_info z;
    memset(&z, 0, sizeof z);
    if (have_prev)
        *have_prev = 0;
    const int b = f->next;
    xc_plane pl = {0, NULL};
    const double t0 = xc_now();
    /* the plane the search in flight reads is the other one */
    xc_status st = fused_plane(f, b, in, &pl, &z.plane_bytes, err);
    z.dedisperse_s = xc_now() - t0;
    xc_error jerr;
    const xc_status js = join_search(f, prev, have_prev, &z.search_s, &jerr);
    if (!st && js) {
        st = js;
        *err = jerr;
    }
    if (!st && !(st = search_ready(f, b, &pl, o, err))) {
        f->topts = *o;
        f->tb = b;
        f->tst = XC_OK;
        if (pthread_create(&f->th, NULL, search_thread, f) != 0)
            st = xc_error_set(err, XC_ENOMEM, "gpu: fused search: no thread for a block's search");
        else {
            f->running = 1;
            f->next = b ^ 1;
        }
    }
    if (info)
        *info = z;
    return st;
}

xc_status xc_sp_gpu_fused_finish(xc_spfused *f, xc_spcandlist *out, int *have, double *search_s, xc_error *err)
{
    if (have)
        *have = 0;
    return join_search(f, out, have, search_s, err);
}

xc_status xc_sp_gpu_fused(xc_ddplan *p, const xc_dmplan *plan, const xc_block *in, double tsamp,
                          const xc_spsearcher *s, const xc_spopts *o, xc_spcandlist *out, xc_spfused_info *info,
                          xc_error *err)
{
    xc_spfused *f = NULL;
    xc_status st = xc_sp_gpu_fused_create(&f, p, plan, tsamp, s, err);
    if (!st)
        st = xc_sp_gpu_fused_execute(f, in, o, out, info, err);
    xc_sp_gpu_fused_destroy(f);
    return st;
}

/* The gulps' plane source: the fused plan, made on the first gulp's
 * dedisperser plan (the gulps' own), its device plane reused after. */
typedef struct {
    xc_spfused *f;
    const xc_dmplan *plan;
    double tsamp;
    const xc_spsearcher *s;
    size_t peak;      /* the largest plane's bytes */
} fused_source;

static xc_status source_plane(void *ctx, xc_ddplan *p, const xc_block *in, xc_plane *pl, xc_error *err)
{
    fused_source *fs = ctx;
    size_t bytes = 0;
    xc_status st = fs->f ? XC_OK : xc_sp_gpu_fused_create(&fs->f, p, fs->plan, fs->tsamp, fs->s, err);
    if (!st && (st = fused_plane(fs->f, 0, in, pl, &bytes, err)) == XC_OK && bytes > fs->peak)
        fs->peak = bytes;
    return st;
}

xc_status xc_sp_gpu_search_fil(xc_fbreader *r, const xc_spgulp_args *a, xc_spcandlist *out, xc_spgulp_info *info,
                               size_t *plane_bytes, xc_error *err)
{
    if (!xc_sp_gpu_fusable(a->dd, a->search))
        return not_fusable(a->dd, a->search, err);
    fused_source fs = {NULL, a->plan, xc_fbreader_header(r)->tsamp, a->search, 0};
    xc_spgulp_args b = *a;
    b.source = (xc_spgulp_source){source_plane, &fs, 1};
    xc_status st = xc_sp_search_fil(r, &b, out, info, err);
    xc_sp_gpu_fused_destroy(fs.f);   /* frees its own buffers only: the gulps' plan p is gone by now */
    if (plane_bytes)
        *plane_bytes = fs.peak;
    return st;
}
