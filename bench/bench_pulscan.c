/* The Pulscan search benchmark (xc_bench_search.h): seconds per whole search
 * on a synthetic spectrum, the cpu searcher's lists checked against the
 * reference's where the reference is timed. */
#include <jansson.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/xc_fs.h"

#include "bench/xc_bench_search.h"

/* The signals on the noise (seed 20240101): ten tones, every third drifting. */
static void add_tones(xc_spectrum *sp)
{
    for (int t = 0; t < 10; t++) {
        size_t at = (size_t)((0.05 + 0.09 * t) * (double)sp->nbins);
        int drift = t % 3 == 0 ? 40 * (t + 1) : 0;
        for (int j = 0; j <= drift; j++)
            sp->data[2 * (at + (size_t)j)] += (float)(drift ? 2.5 : 8.0);
    }
}

static const char *const modes[2] = {"rblock", "local"};

/* One point of the grid: the reference (where it is timed, its list kept in
 * *rl) or the cpu searcher at each thread count. */
typedef struct {
    const xc_impl *ref, *cpu;
    const xc_bench_pulscan_opts *o;
    const xc_spectrum *sp;
    xc_bench_sink out;
    const char *fft;           /* the spectrum as the peers read it (with peers) */
} pulscan_grid;

/* Pulscan's `pulscan` on the spectrum with o's zmax, numharm, threads,
 * zstep, chunk widths and sigma: one record per peer, ours (the cpu
 * searcher) and it in turn. */
static xc_status time_vs_peers(const pulscan_grid *g, const xc_psopts *o, int mode, xc_error *err)
{
    const xc_bench_peers *ps = &g->o->peers;
    char out[4300], v[6][32];
    const int stem = (int)strlen(g->fft) - 4;
    xc_status st = xc_pathf(out, sizeof out, err, "%.*s_ZMAX_%d_NUMHARM_%d_TURBO_0.pulscand", stem, g->fft, o->zmax,
                            o->numharm);
    const int nthr = o->threads > 0 ? o->threads : omp_get_max_threads();
    snprintf(v[0], 32, "%d", nthr), snprintf(v[1], 32, "%d", o->zmax), snprintf(v[2], 32, "%d", o->numharm);
    snprintf(v[3], 32, "%d", o->zstep), snprintf(v[4], 32, "%zu", o->chunkwidth), snprintf(v[5], 32, "%zu", o->normwidth);
    char sig[32];
    snprintf(sig, sizeof sig, "%g", o->sigma);
    xc_psearch_opts po = {.family = XC_FAMILY_PULSCAN, .ps = *o};
    xc_bench_search sc = {g->cpu, g->sp, &po, NULL, 0};
    for (int k = 0; k < ps->npeers && !st; k++) {
        char *argv[] = {(char *)ps->peers[k].exe, (char *)g->fft, "-ncpus", v[0], "-zmax", v[1], "-numharm", v[2],
                        "-zstep", v[3], "-chunkwidth", v[4], "-normalizechunkwidth", v[5], "-sigma", sig, NULL};
        xc_bench_side us, them;
        if ((st = xc_bench_peer_turns(ps, k, argv, NULL, out, xc_bench_search_once, NULL, &sc, &us, &them, err)))
            break;
        json_t *rec = json_pack("{s:s,s:s,s:I,s:i,s:i,s:i,s:f,s:I,s:i}", "impl", g->cpu->name, "mode", modes[mode],
                                "nbins", (json_int_t)g->sp->nbins, "zmax", o->zmax, "numharm", o->numharm, "threads",
                                nthr, "seconds", us.seconds, "candidates", (json_int_t)sc.ncands, "runs", us.runs);
        if (rec) {
            json_object_set_new(rec, "matches_reference", json_null());
            xc_bench_peer_fields(rec, &ps->peers[k], &us, &them, nthr);
        }
        st = xc_bench_emit(&g->out, rec, err);
    }
    return st;
}

static xc_status time_one(const pulscan_grid *g, int isref, int have_ref, xc_psopts *o, int mode, xc_candlist *rl,
                          xc_error *err)
{
    if (!isref && g->o->peers.npeers)
        return time_vs_peers(g, o, mode, err);
    const xc_impl *s = isref ? g->ref : g->cpu;
    const int nrun = isref ? 1 : g->o->runs;
    xc_candlist l;
    xc_candlist_init(&l);
    double t[XC_BENCH_MAX_RUNS];
    int n;
    xc_psearch_opts po = {.family = XC_FAMILY_PULSCAN, .ps = *o};
    xc_bench_search sc = {s, g->sp, &po, &l, 0};
    xc_status st = xc_bench_time(xc_bench_search_once, NULL, &sc, nrun, 0, t, &n, err);
    if (st) {
        xc_candlist_free(&l);
        return st;
    }
    int match = -1;
    if (isref) {
        xc_candlist_free(rl);
        *rl = l;
        xc_candlist_init(&l);
    } else if (have_ref) {
        double maxrel;
        match = xc_bench_same_cands(rl, &l, g->cpu->tol.kind == XC_TOL_RELATIVE ? g->cpu->tol.value : 0,
                                    &maxrel);
    }
    size_t ncand = isref ? rl->n : l.n;
    json_t *rec = json_pack("{s:s,s:s,s:I,s:i,s:i,s:i,s:f,s:I,s:i}", "impl", s->name, "mode", modes[mode],
                            "nbins", (json_int_t)g->sp->nbins, "zmax", o->zmax, "numharm", o->numharm, "threads",
                            o->threads, "seconds", t[0], "candidates", (json_int_t)ncand, "runs", nrun);
    if (rec)
        json_object_set_new(rec, "matches_reference", match < 0 ? json_null() : json_boolean(match));
    xc_candlist_free(&l);
    return xc_bench_emit(&g->out, rec, err);
}

/* Every zmax, numharm and mode on one spectrum. */
static xc_status time_spectrum(const pulscan_grid *g, xc_error *err)
{
    static const int zmaxes[2] = {200, 1200}, harms[2] = {1, 4};
    const int *zl = g->o->nzmax ? g->o->zmax : zmaxes, *hl = g->o->nnumharm ? g->o->numharm : harms;
    const int nz = g->o->nzmax ? g->o->nzmax : g->o->quick ? 1 : 2, nh = g->o->nnumharm ? g->o->nnumharm : 2;
    xc_status st = XC_OK;
    for (int zi = 0; zi < nz && !st; zi++)
        for (int hi = 0; hi < nh && !st; hi++)
            for (int mi = 0; mi < 2 && !st; mi++) {
                xc_psopts o;
                xc_psopts_default(&o);
                o.zmax = zl[zi];
                o.numharm = hl[hi];
                o.rblock = mi == 0;
                xc_candlist rl;
                xc_candlist_init(&rl);
                int have_ref = g->sp->nbins <= g->o->ref_max_nbins && o.zmax <= 200;
                if (have_ref) {
                    o.threads = 1;
                    st = time_one(g, 1, 1, &o, mi, &rl, err);
                }
                for (int ti = 0; ti < g->o->nthreads && !st; ti++) {
                    o.threads = g->o->threads[ti];
                    st = time_one(g, 0, have_ref, &o, mi, &rl, err);
                }
                xc_candlist_free(&rl);
            }
    return st;
}

static json_t *pulscan_doc(const xc_bench_pulscan_opts *o, json_t *records)
{
    json_t *root = json_object();
    json_object_set_new(root, "benchmark", json_string("pulscan"));
    json_object_set_new(root, "command", json_string(o->command ? o->command : ""));
    json_object_set_new(root, "quick", json_boolean(o->quick));
    json_object_set_new(root, "max_threads", json_integer(omp_get_max_threads()));
    json_object_set_new(root, "compiler", json_string("gcc " __VERSION__));
    json_object_set_new(root, "options", json_string("zstep 2, chunkwidth 32768, normalizechunkwidth 6000, "
                                                     "sigma 2, norm exact, logp exact, sifting on"));
    json_t *defs = json_pack("{s:s,s:s,s:s}", "seconds",
                             "best of `runs` wall-clock runs of one whole search call (no file I/O)", "mode",
                             "rblock: per R-block and width maxima (Pulscan's search); local: "
                             "local maxima of the (start, width) grid (our default)",
                             "reference", "one thread; timed only where nbins <= ref_max_nbins and zmax <= 200");
    if (defs && o->peers.npeers)
        json_object_set_new(defs, "peer", json_string("Pulscan's pulscan on the same spectrum, in turn with ours; "
                                                      "there seconds and peer_seconds are medians"));
    json_object_set_new(root, "definitions", defs);
    json_object_set_new(root, "ref_max_nbins", json_integer((json_int_t)o->ref_max_nbins));
    json_object_set_new(root, "records", records);
    return root;
}

xc_status xc_bench_pulscan_run(const xc_impl *ref, const xc_impl *cpu, const xc_bench_pulscan_opts *o,
                               xc_bench_row_fn row, void *ctx, json_t **doc, int *mismatches, xc_error *err)
{
    *doc = NULL;
    *mismatches = 0;
    json_t *records = json_array();
    if (!records)
        return xc_error_set(err, XC_ENOMEM, "out of memory");
    const size_t sizes[2] = {o->quick ? 1u << 18 : 1u << 20, o->quick ? 1u << 20 : 1u << 23};
    const int nsizes = o->nnbins ? o->nnbins : 2;
    xc_status st = XC_OK;
    for (int si = 0; si < nsizes && !st; si++) {
        xc_spectrum sp;
        char fft[4200];
        if ((st = xc_bench_noise_spectrum(&sp, o->nnbins ? (size_t)o->nbins[si] : sizes[si], 20240101, add_tones,
                                          "bench", err)))
            break;
        if (o->peers.npeers && (st = xc_bench_peer_spectrum(&sp, o->peers.dir, fft, sizeof fft, err))) {
            xc_spectrum_free(&sp);
            break;
        }
        pulscan_grid g = {ref, cpu, o, &sp, {records, row, ctx}, fft};
        st = time_spectrum(&g, err);
        xc_spectrum_free(&sp);
    }
    if (st) {
        json_decref(records);
        return st;
    }
    size_t ix;
    json_t *r;
    json_array_foreach(records, ix, r) *mismatches += json_is_false(json_object_get(r, "matches_reference"));
    *doc = pulscan_doc(o, records);
    return XC_OK;
}
