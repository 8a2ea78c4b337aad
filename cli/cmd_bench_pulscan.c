/* crosscheck bench pulscan: seconds per Pulscan search for each searcher,
 * over spectrum sizes, zmax, harmonic stages, threads and peak modes, with
 * every CPU candidate list checked against the reference's where both ran. */
#include <jansson.h>
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/bench_util.h"
#include "cli/cli.h"
#include "cli/cli_opts.h"
#include "core/search/xc_search.h"

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

static void help(void)
{
    printf("usage: crosscheck bench pulscan [-json FILE] [-quick] [-runs N] [-ncpus LIST] [-ref_max_nbins N]\n\n"
           "Times one whole search (normalisation, harmonic sums, boxcars, significance, sifting; no file\n"
           "I/O) on a synthetic spectrum: white complex Gaussian noise plus ten tones, three of them\n"
           "drifting.  Full grid: nbins 2^20 and 2^23, zmax 200 and 1200, numharm 1 and 4, 1 and 2\n"
           "threads, both peak modes (rblock: Pulscan's per-block maxima, the algorithm of its timings;\n"
           "local: our default), zstep 2 and the other options at their defaults.  The reference (one\n"
           "thread, direct sums: O(nbins * zmax^2)) runs only where nbins <= -ref_max_nbins and\n"
           "zmax <= 200; there every cpu list is compared with its list (same r, width, stage, power\n"
           "and sigma within the searcher's tolerance).  Anchors on the development machine: Pulscan's\n"
           "own CPU code 0.25 s (1 thread) and 0.16 s (2 threads) on 2^20 bins, zmax 200, numharm 1;\n"
           "the paper 4.61 s on 2^23 bins at zmax 1200.\n\n"
           "  -json FILE         write the records (impl, mode, nbins, zmax, numharm, threads, seconds,\n"
           "                     candidates, matches_reference) to FILE; without it, a table only\n"
           "  -quick             nbins 2^18 and 2^20, zmax 200 only (about half a minute)\n"
           "  -runs N            best of N runs per record (default 3; the reference always 1)\n"
           "  -ncpus LIST        thread counts, comma separated (default 1,2)\n"
           "  -ref_max_nbins N   largest spectrum the reference is timed on (default 1048576)\n");
}

static int same(const xc_candlist *a, const xc_candlist *b, double rtol)
{
    if (a->n != b->n)
        return 0;
    for (size_t k = 0; k < a->n; k++) {
        const xc_cand *x = &a->c[k], *y = &b->c[k];
        if (x->r != y->r || x->width != y->width || x->numharm != y->numharm ||
            fabs(x->power - y->power) > rtol * fabs(x->power) || fabs(x->sigma - y->sigma) > rtol * fabs(x->sigma))
            return 0;
    }
    return 1;
}

/* One search, as xc_bench_time times it. */
typedef struct {
    const xc_searcher *s;
    const xc_spectrum *sp;
    const xc_psopts *o;
    xc_candlist *l;
} search_ctx;

static xc_status search_once(void *ctx, xc_error *err)
{
    search_ctx *c = ctx;
    return xc_pulscan_run(c->s, c->sp, c->o, c->l, err);
}

int xc_bench_pulscan(int argc, char **argv)
{
    static const xc_optspec spec = {"bench pulscan", help, 0};
    xc_error err;
    xc_error_clear(&err);
    const char *json = NULL;
    int quick = 0, runs = 3, threads_v[8] = {1, 2};
    xc_cli_ints threads = {threads_v, 2, 8};
    unsigned long long refmax = 1ull << 20;
    const xc_opt opts[] = {
        XC_OPT_STR("json", &json),
        XC_OPT_FLAG("quick", &quick),
        XC_OPT_INT("runs", &runs, 1, 100),
        XC_OPT_INTS("ncpus", &threads, 1, 4096),
        XC_OPT_U64("ref_max_nbins", &refmax),
        XC_OPT_END,
    };
    int rc = xc_opts_parse(&spec, opts, argc, argv, NULL);
    if (rc != XC_OPTS_GO)
        return rc;
    xc_status st = XC_OK;

    json_t *records = json_array();
    size_t sizes[2] = {quick ? 1u << 18 : 1u << 20, quick ? 1u << 20 : 1u << 23};
    int zmaxes[2] = {200, 1200}, nz = quick ? 1 : 2, harms[2] = {1, 4};
    const char *modes[2] = {"rblock", "local"};
    /* The reference, and the default implementation (the threaded CPU one), chosen by capability. */
    const xc_searcher *ref = xc_searcher_of(xc_registry_pick(xc_cli_registry(), XC_FAMILY_PULSCAN, XC_CAP_REFERENCE, 0));
    const xc_searcher *cpu = xc_searcher_of(xc_cli_impl("bench pulscan", XC_FAMILY_PULSCAN, NULL));
    if (!ref || !cpu) {
        json_decref(records);
        return ref ? 2 : xc_cli_failf("bench pulscan", "no reference searcher is registered");
    }
    printf("%-9s %-6s %8s %5s %7s %7s %10s %10s %s\n", "impl", "mode", "nbins", "zmax", "numharm", "threads",
           "seconds", "candidates", "same as reference");
    for (int si = 0; si < 2 && !st; si++) {
        xc_spectrum sp;
        if ((st = xc_bench_noise_spectrum(&sp, sizes[si], 20240101, add_tones, "bench", &err)))
            break;
        for (int zi = 0; zi < nz && !st; zi++)
            for (int hi = 0; hi < 2 && !st; hi++)
                for (int mi = 0; mi < 2 && !st; mi++) {
                    xc_psopts o;
                    xc_psopts_default(&o);
                    o.zmax = zmaxes[zi];
                    o.numharm = harms[hi];
                    o.rblock = mi == 0;
                    xc_candlist rl;
                    xc_candlist_init(&rl);
                    int have_ref = sizes[si] <= refmax && o.zmax <= 200;
                    for (int ii = have_ref ? 0 : 1; ii < 2 && !st; ii++) {
                        const xc_searcher *s = ii ? cpu : ref;
                        for (int ti = 0; ti < (ii ? threads.n : 1) && !st; ti++) {
                            o.threads = ii ? threads.v[ti] : 1;
                            xc_candlist l;
                            xc_candlist_init(&l);
                            double t[XC_BENCH_MAX_RUNS];
                            int nrun;
                            search_ctx sc = {s, &sp, &o, &l};
                            st = xc_bench_time(search_once, NULL, &sc, ii ? runs : 1, 0, t, &nrun, &err);
                            double best = t[0];
                            if (st) {
                                xc_candlist_free(&l);
                                break;
                            }
                            int match = -1;
                            if (!ii) {
                                xc_candlist_free(&rl);
                                rl = l;
                                xc_candlist_init(&l);
                            } else if (have_ref) {
                                match = same(&rl, &l, cpu->impl.tol.kind == XC_TOL_RELATIVE ? cpu->impl.tol.value : 0);
                            }
                            size_t ncand = ii ? l.n : rl.n;
                            printf("%-9s %-6s %8zu %5d %7d %7d %10.3f %10zu %s\n", s->impl.name, modes[mi], sp.nbins,
                                   o.zmax, o.numharm, o.threads, best, ncand,
                                   match < 0 ? "-" : match ? "yes" : "NO");
                            fflush(stdout);
                            json_t *rec = json_pack("{s:s,s:s,s:I,s:i,s:i,s:i,s:f,s:I,s:i}", "impl", s->impl.name, "mode",
                                                    modes[mi], "nbins", (json_int_t)sp.nbins, "zmax", o.zmax,
                                                    "numharm", o.numharm, "threads", o.threads, "seconds", best,
                                                    "candidates", (json_int_t)ncand, "runs", ii ? runs : 1);
                            json_object_set_new(rec, "matches_reference",
                                                match < 0 ? json_null() : json_boolean(match));
                            json_array_append_new(records, rec);
                            xc_candlist_free(&l);
                        }
                    }
                    xc_candlist_free(&rl);
                }
        xc_spectrum_free(&sp);
    }
    if (st) {
        json_decref(records);
        return xc_cli_fail("bench pulscan", &err);
    }
    int mismatches = 0;
    size_t ix;
    json_t *r;
    json_array_foreach(records, ix, r) mismatches += json_is_false(json_object_get(r, "matches_reference"));
    if (json) {
        json_t *root = json_object();
        json_object_set_new(root, "benchmark", json_string("pulscan"));
        json_object_set_new(root, "command", json_string(xc_cli_cmdline()));
        json_object_set_new(root, "quick", json_boolean(quick));
        json_object_set_new(root, "max_threads", json_integer(omp_get_max_threads()));
        json_object_set_new(root, "compiler", json_string("gcc " __VERSION__));
        json_object_set_new(root, "options", json_string("zstep 2, chunkwidth 32768, normalizechunkwidth 6000, "
                                                         "sigma 2, norm exact, logp exact, sifting on"));
        json_object_set_new(root, "definitions",
                            json_pack("{s:s,s:s,s:s,s:s}", "seconds",
                                      "best of `runs` wall-clock runs of one whole search call (no file I/O)",
                                      "mode", "rblock: per R-block and width maxima (Pulscan's search); local: "
                                              "local maxima of the (start, width) grid (our default)",
                                      "reference", "one thread; timed only where nbins <= ref_max_nbins and "
                                                   "zmax <= 200",
                                      "anchors", "Pulscan CPU 0.25 s (1 thread), 0.16 s (2 threads) on 2^20 bins "
                                                 "zmax 200 numharm 1; paper 4.61 s on 2^23 bins zmax 1200"));
        json_object_set_new(root, "ref_max_nbins", json_integer((json_int_t)refmax));
        json_object_set_new(root, "records", records);
        st = xc_cli_write_json(json, root, JSON_INDENT(2) | JSON_REAL_PRECISION(6), &err);
        json_decref(root);
        if (st)
            return xc_cli_fail("bench pulscan", &err);
    } else {
        json_decref(records);
    }
    if (mismatches)
        return xc_cli_failf("bench pulscan", "%d cpu candidate lists differ from the reference's", mismatches);
    return 0;
}
