/* bench dedisperse -peer (xc_bench_dd.h): ours and a dedispersion program of
 * the field on the same filterbank and DM trials, in turn, each file to
 * files: PRESTO prepsubband writing a .dat and .inf per trial (ours through
 * the presto convention and series format), SIGPROC dedisperse a .tim per
 * trial, one call per trial (ours through the sigproc convention and the
 * tim format).  The input is noise from the synthesizer. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/xc_bench_dd.h"
#include "bench/xc_bench_peer.h"
#include "core/base/xc_fs.h"
#include "core/dedisp/run/xc_ddstream.h"

/* Ours once: the filterbank read, dedispersed and written as the peer
 * writes it (into a folder emptied after each run, untimed). */
typedef struct {
    const char *fil, *outdir;
    char out[4300];
    xc_ddstream_args a;
} ours_ctx;

static xc_status ours_once(void *ctx, xc_error *err)
{
    ours_ctx *o = ctx;
    xc_fbreader *r;
    const xc_fbopts fo = {XC_BITORDER_LSB, 0};
    xc_status st = xc_mkdirs(o->outdir, err);
    if (!st)
        st = xc_fbreader_open(&r, o->fil, &fo, err);
    if (st)
        return st;
    st = xc_dedisperse_stream(r, o->out, &o->a, NULL, err);
    xc_fbreader_close(r);
    return st;
}

static void ours_clean(void *ctx)
{
    const ours_ctx *o = ctx;
    xc_error e;
    (void)xc_rmtree(o->outdir, &e);
}

/* The peer's run of the plan's one range: prepsubband's argv into argv (its
 * strings in buf), or SIGPROC dedisperse's one call per trial into steps
 * (strings in *mem, freed by the caller).  expect: the first trial's file. */
typedef struct {
    char *argv[24];
    char buf[8][64];
    char ***steps;
    char *mem;
    int nsteps;
    char expect[4400];
} peer_args;

static xc_status peer_argv(const xc_bench_peer *p, const char *fil, const char *stem, const xc_dmrange *r,
                           int nchans, int threads, peer_args *pa, xc_error *err)
{
    memset(pa, 0, sizeof *pa);
    char(*b)[64] = pa->buf;
    if (p->kind == XC_PEER_PREPSUBBAND) {
        snprintf(b[0], 64, "%.17g", r->lo), snprintf(b[1], 64, "%.17g", r->step);
        snprintf(b[2], 64, "%zu", r->ndm), snprintf(b[3], 64, "%d", nchans);
        snprintf(b[4], 64, "%d", threads), snprintf(b[5], 64, "%d", r->ds);
        /* -nsub = channels: one channel a subband, direct dedispersion with
         * PRESTO's delays; -noclip: no clipping of the raw data */
        char *v[] = {(char *)p->exe, "-nobary", "-noclip", "-lodm", b[0], "-dmstep", b[1], "-numdms", b[2], "-nsub",
                     b[3], "-ncpus", b[4], "-downsamp", b[5], "-o", (char *)stem, (char *)fil, NULL};
        memcpy(pa->argv, v, sizeof v);
        return xc_pathf(pa->expect, sizeof pa->expect, err, "%s_DM%.2f.dat", stem, r->dms[0]);
    }
    if (r->ds != 1)
        return xc_error_set(err, XC_EINVAL, "-peer %s: SIGPROC dedisperse does not downsample; the DM plan's "
                            "range has ds %d", p->path, r->ds);
    /* dedisperse FILE -d DM -nobaseline -o STEM_DM<dm>.tim, one call a trial */
    const size_t per = 8 * sizeof(char *) + 64 + 4400;
    pa->mem = calloc(r->ndm, per);
    pa->steps = calloc(r->ndm, sizeof *pa->steps);
    if (!pa->mem || !pa->steps)
        return xc_error_set(err, XC_ENOMEM, "out of memory for %zu peer calls", r->ndm);
    for (size_t j = 0; j < r->ndm; j++) {
        char **v = (char **)(void *)(pa->mem + j * per), *dm = pa->mem + j * per + 8 * sizeof(char *),
             *out = dm + 64;
        snprintf(dm, 64, "%.17g", r->dms[j]);
        xc_status st = xc_pathf(out, 4400, err, "%s_DM%.2f.tim", stem, r->dms[j]);
        if (st)
            return st;
        char *w[] = {(char *)p->exe, (char *)fil, "-d", dm, "-nobaseline", "-o", out, NULL};
        memcpy(v, w, sizeof w);
        pa->steps[j] = v;
    }
    pa->nsteps = (int)r->ndm;
    return xc_pathf(pa->expect, sizeof pa->expect, err, "%s", (char *)pa->steps[0][6]);
}

/* One record: ours (impl at threads) against peer k on fil. */
static xc_status one_vs_peer(const xc_bench_peers *ps, int k, const xc_dedisperser *impl, int threads,
                             const char *fil, const xc_dmplan *plan, int nbits, int nchans, size_t nsamp,
                             const xc_bench_sink *out, xc_error *err)
{
    const xc_bench_peer *p = &ps->peers[k];
    const int presto = p->kind == XC_PEER_PREPSUBBAND;
    char odir[4200], pdir[4200], pstem[4300];
    ours_ctx oc = {fil, odir, "", {0}};
    xc_status st = xc_pathf(odir, sizeof odir, err, "%s/ours", ps->dir);
    if (!st)
        st = xc_pathf(oc.out, sizeof oc.out, err, "%s/bench", odir);
    if (!st)
        st = xc_pathf(pdir, sizeof pdir, err, "%s/peer", ps->dir);
    if (!st)
        st = xc_pathf(pstem, sizeof pstem, err, "%s/bench", pdir);
    if (!st)
        st = xc_mkdirs(pdir, err);
    if (st)
        return st;
    oc.a.impl = impl;
    oc.a.conv = xc_convention_get(presto ? "presto" : "sigproc");
    oc.a.plan = plan;
    oc.a.opts.threads = threads;
    oc.a.input_name = fil;
    oc.a.series.format = presto ? XC_DDOUT_PRESTO : XC_DDOUT_TIM;
    /* SIGPROC dedisperse is single-threaded; prepsubband takes -ncpus */
    const int pthreads = presto ? threads : 1;
    peer_args pa;
    st = peer_argv(p, fil, pstem, &plan->r[0], nchans, pthreads, &pa, err);
    xc_bench_side us, them;
    if (!st) {
        const xc_bench_peer_cmd c = {.argv = pa.argv, .expect = pa.expect, .steps = (char *const *const *)pa.steps,
                                     .nsteps = pa.nsteps};
        st = xc_bench_peer_turns_cmd(ps, k, c, ours_once, ours_clean, &oc, &us, &them, err);
    }
    free(pa.steps);
    free(pa.mem);
    xc_error e;
    (void)xc_rmtree(pdir, &e);
    if (st)
        return st;
    const xc_dmrange *r = &plan->r[0];
    const double adds = (double)r->ndm * (double)(nsamp / (size_t)r->ds) * nchans;
    json_t *rec = json_pack("{s:s, s:i, s:i, s:i, s:I, s:I, s:s, s:f, s:f}", "impl", impl->impl.name, "nbits", nbits,
                            "nchans", nchans, "threads", threads, "nsamp_in", (json_int_t)nsamp, "ndm",
                            (json_int_t)r->ndm, "convention", oc.a.conv->name, "adds", adds, "adds_per_s",
                            adds / us.seconds);
    if (rec) {
        xc_bench_peer_fields(rec, p, &us, &them, pthreads);
        json_object_set_new(rec, "work",
                            json_string(presto ? "filterbank read, dedispersed, a .dat and .inf written per trial"
                                               : "filterbank read, dedispersed, a .tim written per trial (SIGPROC "
                                                 "dedisperse: one call per trial, -nobaseline)"));
    }
    return xc_bench_emit(out, rec, err);
}

xc_status xc_bench_dd_peers_run(const xc_bench_dd_opts *s, const xc_bench_peers *ps, const xc_dmplan *plan,
                                xc_bench_row_fn row, void *ctx, json_t **doc, xc_error *err)
{
    *doc = NULL;
    if (plan->nranges != 1)
        return xc_error_set(err, XC_EINVAL, "-peer_dmplan: %d ranges; the peers take one (lo:hi:step:ds)",
                            plan->nranges);
    char fil[4200];
    xc_status st = xc_pathf(fil, sizeof fil, err, "%s/bench.fil", ps->dir);
    const xc_bench_sink out = {json_array(), row, ctx};
    if (!out.records)
        return xc_error_set(err, XC_ENOMEM, "out of memory");
    for (int b = 0; b < s->nnbits && !st; b++)
        for (int n = 0; n < s->nnchans && !st; n++) {
            const size_t nsamp = (size_t)(s->seconds / 64e-6 + 0.5);
            st = xc_bench_peer_filterbank(fil, s->nbits[b], s->nchans[n], 64e-6, nsamp, s->threads, err);
            for (int i = 0; i < s->nimpl && !st; i++) {
                const int threaded = (s->impls[i]->impl.caps & XC_CAP_THREADED) != 0;
                for (int t = threaded && s->threads > 1 ? 0 : 1; t < 2 && !st; t++)
                    for (int k = 0; k < ps->npeers && !st; k++)
                        st = one_vs_peer(ps, k, s->impls[i], t ? s->threads : 1, fil, plan, s->nbits[b],
                                         s->nchans[n], nsamp, &out, err);
            }
            remove(fil);
        }
    if (!st)
        *doc = json_pack("{s:s, s:s, s:f, s:f, s:s, s:O}", "benchmark", "dedisperse", "command",
                         s->command ? s->command : "", "tsamp_s", 64e-6, "seconds_of_data", s->seconds,
                         "band_mhz", "1250-1550, foff = -300/nchans, fch1 = 1550 + foff/2", "records", out.records);
    if (!st && !*doc)
        st = xc_error_set(err, XC_ENOMEM, "out of memory");
    json_decref(out.records);
    return st;
}
