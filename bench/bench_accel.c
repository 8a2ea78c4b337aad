/* The matched-filter accel/jerk search benchmark (xc_bench_search.h):
 * seconds per whole search for each implementation, over spectrum sizes,
 * zmax, wmax, harmonics and threads, on a synthetic spectrum. */
#include <jansson.h>
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "bench/xc_bench_search.h"
#include "core/base/xc_fmt.h"
#include "core/base/xc_fs.h"
#include "core/search/xc_accel.h"

/* The signal on the noise: one accelerated tone (z = 60) at a third of the band. */
static void add_signal(xc_spectrum *sp)
{
    double r0 = (double)sp->nbins / 3 + 0.25;
    for (long k = (long)r0 - 100; k <= (long)r0 + 100; k++) {
        double R[2];
        xc_accel_resp_z((double)k - r0, 60, R);
        sp->data[2 * k] += (float)(40 * R[0]);
        sp->data[2 * k + 1] += (float)(40 * R[1]);
    }
}

/* Peak resident memory of one record: the kernel's high-water mark (VmHWM)
 * is reset before the search (writing 5 to /proc/self/clear_refs, Linux
 * 4.0+) and read after it, so each record says its own peak; where the reset
 * is refused, the process's peak so far (getrusage) is given instead and the
 * record says so. */
static int reset_peak(void)
{
    FILE *fp = fopen("/proc/self/clear_refs", "w");
    if (!fp)
        return 0;
    int ok = fputs("5", fp) >= 0;
    return fclose(fp) == 0 && ok;
}

static double peak_mb(void)
{
    FILE *fp = fopen("/proc/self/status", "r");
    char line[256];
    double kb = -1;
    while (fp && fgets(line, sizeof line, fp))
        if (!strncmp(line, "VmHWM:", 6))
            kb = strtod(line + 6, NULL);
    if (fp)
        fclose(fp);
    if (kb < 0) {
        struct rusage ru;
        getrusage(RUSAGE_SELF, &ru);
        kb = (double)ru.ru_maxrss;
    }
    return kb / 1024.0;
}

void xc_bench_accel_opts_default(xc_bench_accel_opts *o)
{
    memset(o, 0, sizeof *o);
    o->nbins[0] = 1 << 20, o->nnbins = 1;
    o->zmax[0] = 200, o->nzmax = 1;
    o->wmax[0] = 0, o->nwmax = 1;
    o->numharm[0] = 1, o->nnumharm = 1;
    o->threads[0] = 1, o->threads[1] = 2, o->nthreads = 2;
    o->which = 1;
    o->runs = 1;
    o->ref_max_nbins = 16384;
}

void xc_bench_accel_opts_full(xc_bench_accel_opts *o)
{
    static const int fnb[] = {1 << 20, 1 << 22}, fzm[] = {0, 200, 1200}, fwm[] = {0, 300}, fnh[] = {1, 4},
                     fth[] = {1, 2, 0};
    memcpy(o->nbins, fnb, sizeof fnb), o->nnbins = 2;
    memcpy(o->zmax, fzm, sizeof fzm), o->nzmax = 3;
    memcpy(o->wmax, fwm, sizeof fwm), o->nwmax = 2;
    memcpy(o->numharm, fnh, sizeof fnh), o->nnumharm = 2;
    memcpy(o->threads, fth, sizeof fth), o->nthreads = 3;
}

/* What a grid's records share: the registry, the options, the records so
 * far, and whether each record's peak memory is its own. */
typedef struct {
    const xc_registry *reg;
    const xc_bench_accel_opts *o;
    xc_bench_sink out;
    int peak_reset;
    char fft[4200];            /* the spectrum as the peers read it (with peers) */
} accel_grid;

static double seconds_of(const struct rusage *a, const struct rusage *b)
{
    return (double)(b->ru_utime.tv_sec - a->ru_utime.tv_sec) + 1e-6 * (double)(b->ru_utime.tv_usec - a->ru_utime.tv_usec) +
           (double)(b->ru_stime.tv_sec - a->ru_stime.tv_sec) + 1e-6 * (double)(b->ru_stime.tv_usec - a->ru_stime.tv_usec);
}

/* Speedups against the same settings timed earlier in this run: the
 * reference (its best time at any thread count: it is not threaded), and for
 * a device the cpu searcher at the same threads. */
static void add_speedups(const accel_grid *g, const xc_impl *im, json_t *r, double best)
{
    const int isref = !!(im->caps & XC_CAP_REFERENCE);
    const char *same[4] = {"nbins", "zmax", "wmax", "numharm"};
    double tref = INFINITY;
    for (size_t q = 0; q < json_array_size(g->out.records); q++) {
        json_t *o2 = json_array_get(g->out.records, q);
        const char *nm = json_string_value(json_object_get(o2, "impl"));
        int k = 0;
        while (k < 4 && json_integer_value(json_object_get(o2, same[k])) == json_integer_value(json_object_get(r, same[k])))
            k++;
        if (k < 4 || !nm)
            continue;
        const xc_impl *other = xc_registry_find(g->reg, XC_FAMILY_ACCEL, nm);
        double ts = json_real_value(json_object_get(o2, "seconds"));
        if (other && (other->caps & XC_CAP_REFERENCE) && !isref && ts < tref) {
            tref = ts;
            json_object_set_new(r, "speedup_vs_reference", json_real(ts / best));
        }
        if (other && (im->caps & XC_CAP_DEVICE) && !(other->caps & (XC_CAP_DEVICE | XC_CAP_REFERENCE)) &&
            json_integer_value(json_object_get(o2, "threads")) == json_integer_value(json_object_get(r, "threads")))
            json_object_set_new(r, "speedup_vs_cpu", json_real(ts / best));
    }
}

/* The record of one timed point: t[0..n-1] sorted, cpu seconds per run,
 * the peak resident memory in MB. */
static json_t *accel_record(const accel_grid *g, const xc_impl *im, const xc_accel_opts *o, size_t nbins, int nthr,
                            const double *t, int n, const double cpu_peak[2], const xc_bench_search *bc,
                            const xc_accel_plan *p)
{
    double points = (double)p->ntempl * (double)(2 * (p->rhi - p->rlo) + 1);
    json_t *r = json_object();
    json_object_set_new(r, "impl", json_string(im->name));
    json_object_set_new(r, "nbins", json_integer((json_int_t)nbins));
    json_object_set_new(r, "zmax", json_integer(o->zmax));
    json_object_set_new(r, "wmax", json_integer(o->wmax));
    json_object_set_new(r, "numharm", json_integer(o->numharm));
    json_object_set_new(r, "threads", json_integer(nthr));
    json_object_set_new(r, "preset", json_string(o->preset == XC_ACCEL_PRESTO ? "presto" : "exact"));
    json_object_set_new(r, "seconds", json_real(t[0]));
    json_object_set_new(r, "median_seconds", json_real(t[n / 2]));
    json_object_set_new(r, "cpu_seconds", json_real(cpu_peak[0]));
    json_object_set_new(r, "templates", json_integer(p->ntempl));
    json_object_set_new(r, "templates_per_second", json_real(p->ntempl / t[0]));
    json_object_set_new(r, "plane_points_per_second", json_real(points / t[0]));
    json_object_set_new(r, "candidates", json_integer((json_int_t)bc->ncands));
    json_object_set_new(r, "peak_rss_mb", json_real(cpu_peak[1]));
    json_object_set_new(r, "memory_method", json_string(g->peak_reset ? "VmHWM reset before the record (this search)"
                                                                       : "getrusage: the process's peak so far"));
    add_speedups(g, im, r, t[0]);
    return r;
}

/* accelsearch's output for the spectrum at fft searched to zmax, wmax:
 * X_ACCEL_Z or X_ACCEL_Z_JERK_W beside it. */
static xc_status accel_peer_out(const char *fft, const xc_accel_opts *o, char *out, size_t n, xc_error *err)
{
    const int stem = (int)strlen(fft) - 4;
    return o->wmax ? xc_pathf(out, n, err, "%.*s_ACCEL_%d_JERK_%d", stem, fft, o->zmax, o->wmax)
                   : xc_pathf(out, n, err, "%.*s_ACCEL_%d", stem, fft, o->zmax);
}

/* Removes accelsearch's other outputs (.cand, .txtcand), untimed. */
static void accel_peer_clean(const char *out)
{
    char path[4300];
    xc_fmt(path, sizeof path, "%s.cand", out);
    remove(path);
    xc_fmt(path, sizeof path, "%s.txtcand", out);
    remove(path);
}

/* One point timed against each peer: ours and accelsearch (-zmax, -wmax,
 * -numharm, -ncpus as ours) in turn on the same spectrum, one record each. */
static xc_status time_vs_peers(accel_grid *g, const xc_impl *im, const xc_spectrum *sp, const xc_accel_opts *o,
                               int nthr, xc_bench_search *bc, xc_error *err)
{
    const xc_bench_peers *ps = &g->o->peers;
    char out[4300], z[16], w[16], h[16], thr[16];
    snprintf(z, sizeof z, "%d", o->zmax), snprintf(w, sizeof w, "%d", o->wmax);
    snprintf(h, sizeof h, "%d", o->numharm), snprintf(thr, sizeof thr, "%d", nthr);
    xc_status st = accel_peer_out(g->fft, o, out, sizeof out, err);
    for (int k = 0; k < ps->npeers && !st; k++) {
        char *argv[12];
        int a = 0;
        argv[a++] = (char *)ps->peers[k].exe;
        argv[a++] = "-zmax", argv[a++] = z, argv[a++] = "-numharm", argv[a++] = h, argv[a++] = "-ncpus", argv[a++] = thr;
        if (o->wmax)
            argv[a++] = "-wmax", argv[a++] = w;
        argv[a++] = g->fft;
        argv[a] = NULL;
        xc_bench_side us, them;
        if (g->peak_reset)
            g->peak_reset = reset_peak();
        st = xc_bench_peer_turns(ps, k, argv, NULL, out, xc_bench_search_once, NULL, bc, &us, &them, err);
        accel_peer_clean(out);
        if (st)
            break;
        xc_accel_plan p;
        if ((st = xc_accel_plan_make(&p, o, sp->nbins, sp->T, err)))
            break;
        const double cpu_peak[2] = {us.cpu_seconds, peak_mb()};
        /* the record's times are the medians, as the peer's */
        json_t *r = accel_record(g, im, o, sp->nbins, nthr, &us.seconds, 1, cpu_peak, bc, &p);
        xc_accel_plan_free(&p);
        if (r)
            xc_bench_peer_fields(r, &ps->peers[k], &us, &them, nthr);
        st = xc_bench_emit(&g->out, r, err);
    }
    return st;
}

/* One point: implementation im on sp with options o. */
static xc_status time_point(accel_grid *g, const xc_impl *im, const xc_spectrum *sp, const xc_accel_opts *o,
                            xc_error *err)
{
    double t[XC_BENCH_MAX_RUNS];
    const int nthr = o->threads > 0 ? o->threads : omp_get_max_threads();
    xc_psearch_opts po = {.family = XC_FAMILY_ACCEL, .ac = *o};
    xc_bench_search bc = {im, sp, &po, NULL, 0};
    if (g->o->peers.npeers)
        return time_vs_peers(g, im, sp, o, nthr, &bc, err);
    int n = 0;
    if (g->peak_reset)
        g->peak_reset = reset_peak();
    struct rusage r0, r1;
    getrusage(RUSAGE_SELF, &r0);
    xc_status st = xc_bench_time(xc_bench_search_once, NULL, &bc, g->o->runs, 0, t, &n, err);
    getrusage(RUSAGE_SELF, &r1);
    /* CPU seconds (user + system, all threads) per run: a measure that other
     * tenants' load does not inflate the way wall time */
    const double cpu_peak[2] = {seconds_of(&r0, &r1) / (n > 0 ? n : 1), st ? 0 : peak_mb()};
    if (st)
        return st;
    xc_accel_plan p;
    if ((st = xc_accel_plan_make(&p, o, sp->nbins, sp->T, err)))
        return st;
    json_t *r = accel_record(g, im, o, sp->nbins, nthr, t, n, cpu_peak, &bc, &p);
    xc_accel_plan_free(&p);
    return xc_bench_emit(&g->out, r, err);
}

/* Every zmax, wmax, numharm and thread count of implementation im on sp;
 * a device's first search is untimed (its context and its libraries'
 * kernels load on first use, once per process). */
static xc_status time_impl(accel_grid *g, const xc_impl *im, const xc_spectrum *sp, xc_error *err)
{
    const xc_bench_accel_opts *b = g->o;
    xc_status st = XC_OK;
    if (im->caps & XC_CAP_DEVICE) {
        xc_psearch_opts w;
        xc_psearch_opts_default(&w, XC_FAMILY_ACCEL);
        w.ac.zmax = 0;
        w.ac.numharm = 1;
        xc_bench_search wc = {im, sp, &w, NULL, 0};
        st = xc_bench_search_once(&wc, err);
    }
    for (int zi = 0; zi < b->nzmax && !st; zi++)
        for (int wi = 0; wi < b->nwmax && !st; wi++)
            for (int hi = 0; hi < b->nnumharm && !st; hi++)
                for (int ti = 0; ti < b->nthreads && !st; ti++) {
                    xc_accel_opts o;
                    xc_accel_opts_default(&o);
                    o.zmax = b->zmax[zi];
                    o.wmax = b->wmax[wi];
                    o.numharm = b->numharm[hi];
                    o.threads = b->threads[ti];
                    o.preset = b->presto ? XC_ACCEL_PRESTO : XC_ACCEL_EXACT;
                    st = time_point(g, im, sp, &o, err);
                }
    return st;
}

xc_status xc_bench_accel_run(const xc_registry *reg, const xc_bench_accel_opts *o, xc_bench_row_fn row, void *ctx,
                             json_t **doc, xc_error *err)
{
    *doc = NULL;
    accel_grid g = {reg, o, {json_array(), row, ctx}, reset_peak()};
    if (!g.out.records)
        return xc_error_set(err, XC_ENOMEM, "out of memory");
    xc_status st = XC_OK;
    for (int a = 0; a < o->nnbins && !st; a++) {
        xc_spectrum sp;
        if ((st = xc_bench_noise_spectrum(&sp, (size_t)o->nbins[a], 20261124, add_signal, "bench accel", err)))
            break;
        if (o->peers.npeers && (st = xc_bench_peer_spectrum(&sp, o->peers.dir, g.fft, sizeof g.fft, err))) {
            xc_spectrum_free(&sp);
            break;
        }
        for (size_t e = 0; e < xc_registry_count(reg, XC_FAMILY_ACCEL) && !st; e++) {
            const xc_impl *im = xc_registry_at(reg, XC_FAMILY_ACCEL, e);
            int isref = !!(im->caps & XC_CAP_REFERENCE);
            char why[8];
            if ((o->which == 0 && !isref) || (o->which == 1 && isref) || !xc_impl_available(im, why, sizeof why))
                continue;
            if (!(isref && o->nbins[a] > o->ref_max_nbins))
                st = time_impl(&g, im, &sp, err);
        }
        xc_spectrum_free(&sp);
    }
    if (st) {
        json_decref(g.out.records);
        return st;
    }
    *doc = json_object();
    json_object_set_new(*doc, "benchmark", json_string("accel"));
    json_object_set_new(*doc, "command", json_string(o->command ? o->command : ""));
    json_object_set_new(*doc, "records", g.out.records);
    return XC_OK;
}
