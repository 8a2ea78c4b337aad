/* The single-pulse search benchmark (xc_bench_sp.h): dedisperse random data
 * once through a plan (timed), then search the plane (timed), so the
 * search's cost is a fraction of the dedispersion that feeds it. */
#include <jansson.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "bench/xc_bench_sp.h"

typedef struct {
    xc_ddplan *p;
    const xc_block *in;
    xc_plane *pl;
    const xc_spsearcher *sp;
    const xc_spopts *so;
    const xc_spplane *views;
    int nviews;
    double tsamp;
    const double *dms;
    size_t ndms, ncand;
} sp_ctx;

static xc_status dd_once(void *ctx, xc_error *err)
{
    sp_ctx *c = ctx;
    return xc_ddplan_execute(c->p, c->in, c->pl, err);
}

static xc_status sp_once(void *ctx, xc_error *err)
{
    sp_ctx *c = ctx;
    xc_spcandlist l;
    xc_spcandlist_init(&l);
    xc_status st = xc_sp_search(c->sp, c->so, c->views, c->nviews, c->tsamp, c->dms, c->ndms, &l, err);
    c->ncand = l.n;
    xc_spcandlist_free(&l);
    return st;
}

xc_status xc_bench_sp_run(const xc_bench_sp_opts *o, json_t **rec, xc_error *err)
{
    double foff = -300.0 / o->nchans, tsamp = o->tsamp_us * 1e-6;
    xc_geometry g = {o->nchans, 1550 + foff / 2, foff, tsamp};
    xc_dmplan plan;
    xc_dmplan_init(&plan);
    xc_ddopts ddo;
    memset(&ddo, 0, sizeof ddo);
    ddo.threads = o->threads;
    sp_ctx c = {0};
    xc_plane pl = {0, NULL};
    uint16_t *u = NULL;
    xc_spplane *views = NULL;
    double *dms = NULL, td[XC_BENCH_MAX_RUNS], ts[XC_BENCH_MAX_RUNS];
    int nd = 0, ns = 0;
    xc_status st = xc_dmplan_parse(&plan, o->dmplan, "bench singlepulse -dmplan", err);
    if (!st)
        st = xc_ddplan_create(&c.p, o->dd, &g, o->nbits, &plan, xc_convention_get("crosscheck"), NULL, &ddo, err);
    size_t nin = st ? 0 : (size_t)xc_ddplan_max_delay(c.p) + o->nout, ndms = xc_dmplan_ndm(&plan);
    if (!st && (!(u = malloc(nin * (size_t)o->nchans * sizeof *u)) ||
                !(views = calloc((size_t)plan.nranges, sizeof *views)) || !(dms = malloc(ndms * sizeof *dms))))
        st = xc_error_set(err, XC_ENOMEM, "bench singlepulse: out of memory for %zu spectra", nin);
    xc_block in = {o->nchans, nin, o->nbits, u, NULL};
    if (!st) {
        xc_bench_fill_random(u, nin * (size_t)o->nchans, o->nbits, 20261128);
        st = xc_ddplan_plane_alloc(c.p, nin, &pl, err);
    }
    xc_spopts so;
    xc_spopts_default(&so, XC_SP_HEIMDALL);
    so.threads = o->threads;
    so.nwidths = o->nwidths < XC_SP_MAXW ? o->nwidths : XC_SP_MAXW;
    for (int i = 0; i < so.nwidths; i++)
        so.widths[i] = (int32_t)1 << (i < 30 ? i : 30);
    c.in = &in, c.pl = &pl, c.sp = o->sp, c.so = &so, c.views = views, c.nviews = plan.nranges, c.tsamp = tsamp;
    c.dms = dms, c.ndms = ndms;
    if (!st)
        st = xc_bench_time(dd_once, NULL, &c, o->repeat, 0, td, &nd, err);
    if (!st) {
        xc_spplane_views(&plan, &pl, tsamp, views, dms);
        st = xc_bench_time(sp_once, NULL, &c, o->repeat, 0, ts, &ns, err);
    }
    if (!st) {
        double sd = td[nd / 2], ss = ts[ns / 2];
        int threads = o->threads > 0 ? o->threads : omp_get_max_threads();
        *rec = json_pack("{s:s,s:s,s:s,s:i,s:i,s:f,s:I,s:I,s:s,s:i,s:i,s:f,s:f,s:f,s:I}", "kind", "singlepulse",
                         "searcher", o->sp->impl.name, "dedisperser", o->dd->impl.name, "nchans", o->nchans, "nbits",
                         o->nbits, "tsamp_us", o->tsamp_us, "trials", (json_int_t)ndms, "nout",
                         (json_int_t)pl.r[0].nsamp, "dmplan", o->dmplan, "widths", so.nwidths, "threads", threads,
                         "seconds", ss, "dedisperse_seconds", sd, "ratio", ss / sd, "candidates",
                         (json_int_t)c.ncand);
        if (!*rec)
            st = xc_error_set(err, XC_ENOMEM, "bench singlepulse: out of memory");
    }
    xc_plane_free(&pl);
    xc_ddplan_destroy(c.p);
    xc_dmplan_free(&plan);
    free(u);
    free(views);
    free(dms);
    return st;
}
