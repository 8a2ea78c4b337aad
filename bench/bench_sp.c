/* The single-pulse search benchmark (xc_bench_sp.h): dedisperse random data
 * once through a plan (timed), then search the plane (timed), so the
 * search's cost is a fraction of the dedispersion that feeds it. */
#include <jansson.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "bench/xc_bench_sp.h"
#include "core/base/xc_fs.h"
#include "core/dedisp/run/xc_ddstream.h"

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

/* What a peer that reads the filterbank does: both. */
static xc_status dd_sp_once(void *ctx, xc_error *err)
{
    xc_status st = dd_once(ctx, err);
    return st ? st : sp_once(ctx, err);
}

/* The peer's input: the synthesizer's noise as dir/bench.fil, read back
 * into u (nin spectra), and its series dir/bench_DM<dm>.dat when asked. */
static xc_status peer_input(const xc_bench_sp_opts *o, const xc_dmplan *plan, size_t nin, uint16_t *u, xc_error *err)
{
    char fil[4200], stem[4200];
    const int threads = o->threads > 0 ? o->threads : omp_get_max_threads();
    xc_status st = xc_pathf(fil, sizeof fil, err, "%s/bench.fil", o->peers->dir);
    if (!st)
        st = xc_pathf(stem, sizeof stem, err, "%s/bench", o->peers->dir);
    if (!st)
        st = xc_bench_peer_filterbank(fil, o->nbits, o->nchans, o->tsamp_us * 1e-6, nin, threads, err);
    xc_fbreader *r;
    const xc_fbopts fo = {XC_BITORDER_LSB, 0};
    if (st || (st = xc_fbreader_open(&r, fil, &fo, err)))
        return st;
    st = xc_fbreader_read_u16(r, 0, nin, 0, u, err);
    xc_ddstream_args a;
    memset(&a, 0, sizeof a);
    a.impl = o->dd, a.conv = xc_convention_get("crosscheck"), a.plan = plan, a.opts.threads = o->threads;
    a.input_name = fil, a.series.format = XC_DDOUT_PRESTO;
    if (!st && o->peer_dat)
        st = xc_dedisperse_stream(r, stem, &a, NULL, err);
    xc_fbreader_close(r);
    return st;
}

/* Each peer in turn with ours; its record appended to recs. */
static xc_status vs_peers(const xc_bench_sp_opts *o, sp_ctx *c, json_t *first, json_t *recs, xc_error *err)
{
    xc_status st = XC_OK;
    for (int k = 0; k < o->peers->npeers && !st; k++) {
        xc_bench_side us, them;
        st = xc_bench_peer_turns(o->peers, k, o->peer_argv, NULL, NULL, o->peer_fil ? dd_sp_once : sp_once, NULL, c,
                                 &us, &them, err);
        if (st)
            break;
        json_t *rec = json_pack("{s:s, s:s, s:s, s:O, s:O, s:O, s:O, s:s}", "kind", "singlepulse_peer", "searcher",
                                o->sp->impl.name, "dedisperser", o->dd->impl.name, "trials",
                                json_object_get(first, "trials"), "nout", json_object_get(first, "nout"), "widths",
                                json_object_get(first, "widths"), "threads", json_object_get(first, "threads"),
                                "ours", o->peer_fil ? "dedispersion and search" : "search of the plane");
        if (rec)
            xc_bench_peer_fields(rec, &o->peers->peers[k], &us, &them,
                                 (int)json_integer_value(json_object_get(first, "threads")));
        st = xc_bench_emit(&(xc_bench_sink){recs, NULL, NULL}, rec, err);
    }
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
    if (!st && o->peers)
        st = peer_input(o, &plan, nin, u, err);
    else if (!st)
        xc_bench_fill_random(u, nin * (size_t)o->nchans, o->nbits, 20261128);
    if (!st)
        st = xc_ddplan_plane_alloc(c.p, nin, &pl, err);
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
    if (!st && o->peers) {
        json_t *recs = json_array(), *doc = json_pack("{s:s, s:o}", "benchmark", "singlepulse", "records", recs);
        if (!doc)
            json_decref(*rec);
        st = doc && !json_array_append_new(recs, *rec) ? vs_peers(o, &c, *rec, recs, err)
                                                        : xc_error_set(err, XC_ENOMEM, "out of memory");
        *rec = doc;
    }
    xc_plane_free(&pl);
    xc_ddplan_destroy(c.p);
    xc_dmplan_free(&plan);
    free(u);
    free(views);
    free(dms);
    return st;
}
