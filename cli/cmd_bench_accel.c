/* crosscheck bench accel: seconds per matched-filter accel/jerk search for
 * each implementation, over spectrum sizes, zmax, wmax, harmonics and
 * threads (issue 12's grid), on a synthetic spectrum. */
#include <jansson.h>
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "cli/bench_util.h"
#include "cli/cli.h"
#include "cli/cli_opts.h"
#include "core/xc_accel.h"
#include "core/xc_progress.h"

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

static void help(void)
{
    printf("usage: crosscheck bench accel [-json FILE] [-nbins LIST] [-zmax LIST] [-wmax LIST] [-numharm LIST]\n"
           "                              [-ncpus LIST] [-impl LIST] [-runs N] [-ref_max_nbins N]\n\n"
           "Times one whole accel search (normalisation, templates, plane, harmonic sums, selection,\n"
           "significance; no file I/O) on a synthetic spectrum: white complex Gaussian noise plus a\n"
           "drifting tone (r = nbins/3, z = 60, as a Fresnel response).  Defaults: 2^20 bins, zmax\n"
           "200, wmax 0, numharm 1, 1 and 2 threads, cpu; the issue's grid is -nbins 1048576,4194304\n"
           "-zmax 0,200,1200 -numharm 1,4 -wmax 0,300.  The reference runs only where nbins <=\n"
           "-ref_max_nbins (default 16384).  Anchor: accelsearch on 2^20 bins, zmax 200, 1 harmonic,\n"
           "about 11 s on 1 thread on this kind of machine (15.1 s with 4 harmonics).  On a machine\n"
           "shared with other work, run with OMP_WAIT_POLICY=passive: OpenMP threads otherwise spin at\n"
           "every barrier while a sibling waits for a core, and 2 threads can take several times longer\n"
           "than 1.\n\n"
           "  -json FILE         records: impl, nbins, zmax, wmax, numharm, threads, seconds (best run),\n"
           "                     median_seconds, cpu_seconds (user + system of all threads, per run:\n"
           "                     robust to other tenants' load), templates, templates_per_second, candidates,\n"
           "                     peak_rss_mb (the process's high-water mark so far, getrusage)\n"
           "  -nbins LIST        spectrum sizes (complex bins), comma separated\n"
           "  -zmax LIST, -wmax LIST, -numharm LIST, -ncpus LIST   the grid\n"
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
    int runs = 1, refmax = 16384, which = 1;
    const char *json = NULL;
    xc_cli_ints Lnb = {nb, 1, MAXL}, Lzm = {zm, 1, MAXL}, Lwm = {wm, 1, MAXL}, Lnh = {nh, 1, MAXL}, Lth = {th, 2, MAXL};
    const xc_opt opts[] = {
        XC_OPT_STR("json", &json),
        XC_OPT_INTS("nbins", &Lnb, 64, 1 << 28),
        XC_OPT_INTS("zmax", &Lzm, 0, 1200),
        XC_OPT_INTS("wmax", &Lwm, 0, 4000),
        XC_OPT_INTS("numharm", &Lnh, 1, 32),
        XC_OPT_INTS("ncpus", &Lth, 1, 4096),
        XC_OPT_CHOICE("impl", &which, "reference|cpu|both"),
        XC_OPT_INT("runs", &runs, 1, XC_BENCH_MAX_RUNS),
        XC_OPT_INT("ref_max_nbins", &refmax, 0, 1 << 28),
        XC_OPT_END,
    };
    int rc = xc_opts_parse(&spec, opts, argc, argv, NULL);
    if (rc != XC_OPTS_GO)
        return rc;
    xc_registry *reg = xc_cli_registry();
    json_t *recs = json_array();
    xc_error err;
    xc_error_clear(&err);
    xc_status st = XC_OK;
    double t[XC_BENCH_MAX_RUNS];
    printf("%-10s %9s %5s %5s %4s %3s %10s %10s %12s %6s\n", "impl", "nbins", "zmax", "wmax", "harm", "thr", "seconds",
           "cpu_s", "templates/s", "cands");
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
                            bench_ctx ctx = {xc_accel_searcher_of(im), &sp, &o, 0};
                            int n = 0;
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
                            xc_accel_plan p;
                            xc_accel_plan_make(&p, &o, sp.nbins, sp.T, &err);
                            int ntempl = p.ntempl;
                            xc_accel_plan_free(&p);
                            struct rusage ru;
                            getrusage(RUSAGE_SELF, &ru);
                            printf("%-10s %9d %5d %5d %4d %3d %10.3f %10.3f %12.1f %6zu\n", im->name, nb[a], zm[b],
                                   wm[c], nh[d], th[k], t[0], cpu, ntempl / t[0], ctx.ncands);
                            fflush(stdout);
                            json_t *r = json_object();
                            json_object_set_new(r, "impl", json_string(im->name));
                            json_object_set_new(r, "nbins", json_integer(nb[a]));
                            json_object_set_new(r, "zmax", json_integer(zm[b]));
                            json_object_set_new(r, "wmax", json_integer(wm[c]));
                            json_object_set_new(r, "numharm", json_integer(nh[d]));
                            json_object_set_new(r, "threads", json_integer(th[k]));
                            json_object_set_new(r, "seconds", json_real(t[0]));
                            json_object_set_new(r, "median_seconds", json_real(t[n / 2]));
                            json_object_set_new(r, "cpu_seconds", json_real(cpu));
                            json_object_set_new(r, "templates", json_integer(ntempl));
                            json_object_set_new(r, "templates_per_second", json_real(ntempl / t[0]));
                            json_object_set_new(r, "candidates", json_integer((json_int_t)ctx.ncands));
                            json_object_set_new(r, "peak_rss_mb", json_real(ru.ru_maxrss / 1024.0));
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
