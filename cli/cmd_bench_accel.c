/* crosscheck bench accel: seconds per matched-filter accel/jerk search for
 * each implementation, over spectrum sizes, zmax, wmax, harmonics and
 * threads, on a synthetic spectrum. */
#include <jansson.h>
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "cli/bench_util.h"
#include "cli/cli.h"
#include "cli/cli_opts.h"
#include "core/search/xc_accel.h"
#include "core/base/xc_progress.h"

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

/* accelsearch's single-thread times measured on the development machine
 * (2^20 bins, zmax 200, wmax 0), NAN where none was measured. */
static double accelsearch_anchor(int nbins, int zmax, int wmax, int numharm, int threads)
{
    if (nbins != 1 << 20 || zmax != 200 || wmax != 0 || threads != 1)
        return NAN;
    return numharm == 1 ? 11.0 : numharm == 4 ? 15.1 : NAN;
}

static void help(void)
{
    printf("usage: crosscheck bench accel [-json FILE] [-nbins LIST] [-zmax LIST] [-wmax LIST] [-numharm LIST]\n"
           "                              [-ncpus LIST] [-impl LIST] [-runs N] [-ref_max_nbins N] [-full]\n\n"
           "Times one whole accel search (normalisation, templates, plane, harmonic sums, selection,\n"
           "significance; no file I/O) on a synthetic spectrum: white complex Gaussian noise plus a\n"
           "drifting tone (r = nbins/3, z = 60, as a Fresnel response).  Defaults: 2^20 bins, zmax\n"
           "200, wmax 0, numharm 1, 1 and 2 threads, cpu; the whole grid is -nbins 1048576,4194304\n"
           "-zmax 0,200,1200 -numharm 1,4 -wmax 0,300.  The reference runs only where nbins <=\n"
           "-ref_max_nbins (default 16384).  Anchor: accelsearch on 2^20 bins, zmax 200, 1 harmonic,\n"
           "about 11 s on 1 thread on this kind of machine (15.1 s with 4 harmonics).  On a machine\n"
           "shared with other work, run with OMP_WAIT_POLICY=passive: OpenMP threads otherwise spin at\n"
           "every barrier while a sibling waits for a core, and 2 threads can take several times longer\n"
           "than 1.\n\n"
           "  -json FILE         records: impl, nbins, zmax, wmax, numharm, threads, seconds (best run),\n"
           "                     median_seconds, cpu_seconds (user + system of all threads, per run:\n"
           "                     robust to other tenants' load), templates, templates_per_second (the plan's\n"
           "                     templates / seconds), plane_points_per_second (templates x searched half-bin\n"
           "                     r points / seconds), candidates, peak_rss_mb (this record's peak resident\n"
           "                     memory, memory_method says how it was measured), and where known\n"
           "                     accelsearch_seconds with speedup_vs_accelsearch, speedup_vs_reference (the\n"
           "                     reference at the same settings), speedup_vs_cpu (device implementations: the\n"
           "                     cpu searcher at the same settings and threads, timed in this run)\n"
           "  -nbins LIST        spectrum sizes (complex bins), comma separated\n"
           "  -zmax LIST, -wmax LIST, -numharm LIST   the grid\n"
           "  -ncpus LIST        threads; 0 means all (OpenMP's default)\n"
           "  -full              the whole grid (2^20 and 2^22 bins, zmax 0/200/1200, numharm 1/4,\n"
           "                     wmax 0/300, 1, 2 and all threads): hours on 2 cores\n"
           "  -impl LIST         reference, cpu or both (default cpu); cpu means every non-reference\n"
           "                     implementation available here: gpu too, in a CUDA build with a device\n"
           "  -runs N            best of N runs per record (default 1)\n"
           "  -ref_max_nbins N   largest spectrum the reference is timed on\n");
}

typedef struct {
    const xc_accel_searcher *s;
    const xc_spectrum *sp;
    const xc_accel_opts *o;
    size_t ncands;
} bench_ctx;

static xc_status once(void *ctx, xc_error *err)
{
    bench_ctx *c = ctx;
    xc_candlist l;
    xc_candlist_init(&l);
    xc_status st = xc_accel_run(c->s, c->sp, c->o, &l, err);
    c->ncands = l.n;
    xc_candlist_free(&l);
    return st;
}

#define MAXL 8

int xc_bench_accel(int argc, char **argv)
{
    static const xc_optspec spec = {"bench accel", help, 0};
    int nb[MAXL] = {1 << 20}, zm[MAXL] = {200}, wm[MAXL] = {0}, nh[MAXL] = {1}, th[MAXL] = {1, 2};
    int runs = 1, refmax = 16384, which = 1, full = 0;
    const char *json = NULL;
    xc_cli_ints Lnb = {nb, 1, MAXL}, Lzm = {zm, 1, MAXL}, Lwm = {wm, 1, MAXL}, Lnh = {nh, 1, MAXL}, Lth = {th, 2, MAXL};
    const xc_opt opts[] = {
        XC_OPT_STR("json", &json),
        XC_OPT_INTS("nbins", &Lnb, 64, 1 << 28),
        XC_OPT_INTS("zmax", &Lzm, 0, 1200),
        XC_OPT_INTS("wmax", &Lwm, 0, 4000),
        XC_OPT_INTS("numharm", &Lnh, 1, 32),
        XC_OPT_INTS("ncpus", &Lth, 0, 4096),
        XC_OPT_CHOICE("impl", &which, "reference|cpu|both"),
        XC_OPT_INT("runs", &runs, 1, XC_BENCH_MAX_RUNS),
        XC_OPT_INT("ref_max_nbins", &refmax, 0, 1 << 28),
        XC_OPT_FLAG("full", &full),
        XC_OPT_END,
    };
    int rc = xc_opts_parse(&spec, opts, argc, argv, NULL);
    if (rc != XC_OPTS_GO)
        return rc;
    if (full) {
        static const int fnb[] = {1 << 20, 1 << 22}, fzm[] = {0, 200, 1200}, fwm[] = {0, 300}, fnh[] = {1, 4},
                         fth[] = {1, 2, 0};
        memcpy(nb, fnb, sizeof fnb), Lnb.n = 2;
        memcpy(zm, fzm, sizeof fzm), Lzm.n = 3;
        memcpy(wm, fwm, sizeof fwm), Lwm.n = 2;
        memcpy(nh, fnh, sizeof fnh), Lnh.n = 2;
        memcpy(th, fth, sizeof fth), Lth.n = 3;
    }
    int peak_reset = reset_peak();
    xc_registry *reg = xc_cli_registry();
    json_t *recs = json_array();
    xc_error err;
    xc_error_clear(&err);
    xc_status st = XC_OK;
    double t[XC_BENCH_MAX_RUNS];
    printf("%-10s %9s %5s %5s %4s %3s %10s %10s %12s %6s %9s\n", "impl", "nbins", "zmax", "wmax", "harm", "thr",
           "seconds", "cpu_s", "templates/s", "cands", "peak_MB");
    for (int a = 0; a < Lnb.n && !st; a++) {
        xc_spectrum sp;
        if ((st = xc_bench_noise_spectrum(&sp, (size_t)nb[a], 20261124, add_signal, "bench accel", &err)))
            break;
        for (size_t e = 0; e < xc_registry_count(reg, XC_FAMILY_ACCEL) && !st; e++) {
            const xc_impl *im = xc_registry_at(reg, XC_FAMILY_ACCEL, e);
            int isref = !!(im->caps & XC_CAP_REFERENCE);
            char why[8];
            if ((which == 0 && !isref) || (which == 1 && isref) || !xc_impl_available(im, why, sizeof why))
                continue;
            if (isref && nb[a] > refmax)
                continue;
            if (im->caps & XC_CAP_DEVICE) {
                /* one untimed search first: the device's context and its
                 * libraries' kernels load on first use, once per process */
                xc_accel_opts w;
                xc_accel_opts_default(&w);
                w.zmax = 0;
                w.numharm = 1;
                bench_ctx wc = {xc_accel_searcher_of(im), &sp, &w, 0};
                if ((st = once(&wc, &err)))
                    break;
            }
            for (int b = 0; b < Lzm.n && !st; b++)
                for (int c = 0; c < Lwm.n && !st; c++)
                    for (int d = 0; d < Lnh.n && !st; d++)
                        for (int k = 0; k < Lth.n && !st; k++) {
                            xc_accel_opts o;
                            xc_accel_opts_default(&o);
                            o.zmax = zm[b];
                            o.wmax = wm[c];
                            o.numharm = nh[d];
                            o.threads = th[k];
                            int nthr = th[k] > 0 ? th[k] : omp_get_max_threads();
                            bench_ctx ctx = {xc_accel_searcher_of(im), &sp, &o, 0};
                            int n = 0;
                            if (peak_reset)
                                peak_reset = reset_peak();
                            struct rusage r0, r1;
                            getrusage(RUSAGE_SELF, &r0);
                            st = xc_bench_time(once, NULL, &ctx, runs, 0, t, &n, &err);
                            getrusage(RUSAGE_SELF, &r1);
                            /* CPU seconds (user + system, all threads) per run: a measure
                             * that other tenants' load does not inflate the way wall time */
                            double cpu = ((double)(r1.ru_utime.tv_sec - r0.ru_utime.tv_sec) +
                                          1e-6 * (double)(r1.ru_utime.tv_usec - r0.ru_utime.tv_usec) +
                                          (double)(r1.ru_stime.tv_sec - r0.ru_stime.tv_sec) +
                                          1e-6 * (double)(r1.ru_stime.tv_usec - r0.ru_stime.tv_usec)) /
                                         (n > 0 ? n : 1);
                            if (st)
                                break;
                            double peak = peak_mb();
                            xc_accel_plan p;
                            if ((st = xc_accel_plan_make(&p, &o, sp.nbins, sp.T, &err)))
                                break;
                            int ntempl = p.ntempl;
                            double points = (double)ntempl * (double)(2 * (p.rhi - p.rlo) + 1);
                            xc_accel_plan_free(&p);
                            printf("%-10s %9d %5d %5d %4d %3d %10.3f %10.3f %12.1f %6zu %9.0f\n", im->name, nb[a],
                                   zm[b], wm[c], nh[d], nthr, t[0], cpu, ntempl / t[0], ctx.ncands, peak);
                            fflush(stdout);
                            json_t *r = json_object();
                            json_object_set_new(r, "impl", json_string(im->name));
                            json_object_set_new(r, "nbins", json_integer(nb[a]));
                            json_object_set_new(r, "zmax", json_integer(zm[b]));
                            json_object_set_new(r, "wmax", json_integer(wm[c]));
                            json_object_set_new(r, "numharm", json_integer(nh[d]));
                            json_object_set_new(r, "threads", json_integer(nthr));
                            json_object_set_new(r, "seconds", json_real(t[0]));
                            json_object_set_new(r, "median_seconds", json_real(t[n / 2]));
                            json_object_set_new(r, "cpu_seconds", json_real(cpu));
                            json_object_set_new(r, "templates", json_integer(ntempl));
                            json_object_set_new(r, "templates_per_second", json_real(ntempl / t[0]));
                            json_object_set_new(r, "plane_points_per_second", json_real(points / t[0]));
                            json_object_set_new(r, "candidates", json_integer((json_int_t)ctx.ncands));
                            json_object_set_new(r, "peak_rss_mb", json_real(peak));
                            json_object_set_new(r, "memory_method",
                                                json_string(peak_reset ? "VmHWM reset before the record (this search)"
                                                                       : "getrusage: the process's peak so far"));
                            double an = accelsearch_anchor(nb[a], zm[b], wm[c], nh[d], nthr);
                            if (isfinite(an)) {
                                json_object_set_new(r, "accelsearch_seconds", json_real(an));
                                json_object_set_new(r, "speedup_vs_accelsearch", json_real(an / t[0]));
                            }
                            /* the same settings timed earlier in this run: the reference, and
                             * for a device the cpu searcher at the same threads */
                            double tref = INFINITY;
                            for (size_t q = 0; q < json_array_size(recs); q++) {
                                json_t *o2 = json_array_get(recs, q);
                                const char *nm = json_string_value(json_object_get(o2, "impl"));
                                if (json_integer_value(json_object_get(o2, "nbins")) != nb[a] ||
                                    json_integer_value(json_object_get(o2, "zmax")) != zm[b] ||
                                    json_integer_value(json_object_get(o2, "wmax")) != wm[c] ||
                                    json_integer_value(json_object_get(o2, "numharm")) != nh[d] || !nm)
                                    continue;
                                const xc_impl *other = xc_registry_find(reg, XC_FAMILY_ACCEL, nm);
                                double ts = json_real_value(json_object_get(o2, "seconds"));
                                if (other && (other->caps & XC_CAP_REFERENCE) && !isref && ts < tref) {
                                    /* the reference is not threaded: its best time at any thread count */
                                    tref = ts;
                                    json_object_set_new(r, "speedup_vs_reference", json_real(ts / t[0]));
                                }
                                if (other && (im->caps & XC_CAP_DEVICE) && !(other->caps & (XC_CAP_DEVICE | XC_CAP_REFERENCE)) &&
                                    json_integer_value(json_object_get(o2, "threads")) == nthr)
                                    json_object_set_new(r, "speedup_vs_cpu", json_real(ts / t[0]));
                            }
                            json_array_append_new(recs, r);
                        }
        }
        xc_spectrum_free(&sp);
    }
    if (!st && json) {
        json_t *root = json_object();
        json_object_set_new(root, "benchmark", json_string("accel"));
        json_object_set_new(root, "command", json_string(xc_cli_cmdline()));
        json_object_set(root, "records", recs);
        st = xc_cli_write_json(json, root, JSON_INDENT(2) | JSON_REAL_PRECISION(10), &err);
        json_decref(root);
    }
    json_decref(recs);
    return st ? xc_cli_fail("bench accel", &err) : 0;
}
