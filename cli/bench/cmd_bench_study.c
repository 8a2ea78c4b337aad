/* crosscheck bench study: how fast a study goes, stage by stage, and what
 * that projects for the Pulscan paper's full study (a periodicity study) or
 * for the spec's population (an FRB study). */
#include <jansson.h>
#include <math.h>
#include <stdio.h>

#include "bench/xc_bench_study.h"
#include "cli/base/cli.h"
#include "cli/base/cli_opts.h"
#include "cli/study/study.h"

/* One line per search q: secs[q] / n. */
static void print_searches(const xc_study *st, const double *secs, double n)
{
    char name[200];
    for (size_t k = 0, q = 0; k < st->ns; k++)
        for (size_t c = 0; c < st->s[k].ncfg; c++, q++) {
            snprintf(name, sizeof name, "%s/%s %s", st->s[k].name, st->s[k].impl->name, st->s[k].cfg[c].label);
            printf("  %-44s %10.4f\n", name, secs[q] / n);
        }
}

/* The stages' table: synthesis, FFT, each search, each searcher. */
static void print_stages(const xc_study *st, const xc_bench_study_opts *o, const xc_bench_study_result *r,
                         const char *spec)
{
    const double n = (double)r->ns;
    printf("bench study: %s, %llu pulsars (the first %llu also one at a time), ~%.0f bins each\n", spec,
           (unsigned long long)o->n, (unsigned long long)r->ns, r->nbins);
    printf("  %-44s %10s\n", "stage", "s/pulsar");
    printf("  %-44s %10.4f\n", "synthesis (dedispersed series)", r->secs[0] / n);
    printf("  %-44s %10.4f\n", "FFT", r->secs[1] / n);
    print_searches(st, r->secs + 2, n);
    char name[200];
    for (size_t k = 0, q = 0; k < st->ns; q += st->s[k].ncfg, k++) {
        double tot = 0;
        for (size_t c = 0; c < st->s[k].ncfg; c++)
            tot += r->secs[2 + q + c];
        int swept = st->s[k].family == XC_FAMILY_ACCEL && st->s[k].ncfg > 1 && !o->separate;
        snprintf(name, sizeof name, "%s/%s, all %zu%s", st->s[k].name, st->s[k].impl->name, st->s[k].ncfg,
                 swept ? " (one sweep)" : "");
        printf("  %-44s %10.4f\n", name, tot / n);
    }
    printf("  %-44s %10.4f  (%.3f pulsars/s per core)\n", "total, one thread", r->per_psr, 1.0 / r->per_psr);
}

/* An FRB study's table: synthesis, dedispersion, each search, scoring. */
static void print_frb_stages(const xc_study *st, const xc_bench_study_opts *o, const xc_bench_study_result *r,
                             const char *spec)
{
    const double n = (double)r->ns;
    printf("bench study: %s, %llu bursts of an FRB study (the first %llu also one at a time)\n", spec,
           (unsigned long long)o->n, (unsigned long long)r->ns);
    printf("  %-44s %10s\n", "stage", "s/burst");
    printf("  %-44s %10.4f\n", "synthesis (parameters, truth, filterbank)", r->secs[0] / n);
    printf("  %-44s %10.4f\n", "dedispersion (each plane once)", r->secs[1] / n);
    print_searches(st, r->secs + 3, n);
    printf("  %-44s %10.4f\n", "scoring", r->secs[2] / n);
    printf("  %-44s %10.4f  (%.3f bursts/s per core)\n", "total, one thread", r->per_psr, 1.0 / r->per_psr);
    if (isfinite(r->wall))
        printf("  side by side, %d bursts at once on %d threads: %.2f s wall, %.3f bursts/s (%.2fx the serial pass)\n",
               r->W, r->T, r->wall, (double)o->n / r->wall, r->per_psr * (double)o->n / r->wall);
    printf("  the spec's population (%llu bursts): %.3f %s", (unsigned long long)st->n, r->serial_h,
           r->anydev ? "hours one burst at a time on this device" : "core-hours");
    if (isfinite(r->machine_h))
        printf(", %.3f hours on this machine side by side", r->machine_h);
    printf("\n");
}

/* The side-by-side pass's stages in worker-seconds per pulsar, and the
 * device slots' wait and hold. */
static void print_parallel(const xc_study *st, const xc_bench_study_result *r, double n)
{
    printf("    worker-s per pulsar: synthesis %.4f, FFT %.4f", r->psecs[0] / n, r->psecs[1] / n);
    for (size_t k = 0, q = 0; k < st->ns; q += st->s[k].ncfg, k++) {
        double tot = 0;
        for (size_t c = 0; c < st->s[k].ncfg; c++)
            tot += r->psecs[2 + q + c];
        printf(", %s %.4f", st->s[k].name, tot / n);
    }
    printf("\n");
    if (r->anydev)
        printf("    device slots per pulsar: waited %.4f s, held %.4f s (of %d slots x %.4f s wall)\n",
               r->slot_wait / n, r->slot_held / n, r->K, r->wall / n);
}

/* The side-by-side pass and the projections. */
static void print_projection(const xc_study *st, const xc_bench_study_opts *o, const xc_bench_study_result *r)
{
    const double n = (double)o->n;
    if (isfinite(r->wall)) {
        char how[64] = "";
        if (r->anydev)
            snprintf(how, sizeof how, ", %d device search%s at once", r->K, r->K > 1 ? "es" : "");
        printf("  side by side, %d pulsars at once on %d threads%s: %.2f s wall, %.3f pulsars/s (%.2fx the serial "
               "pass)\n",
               r->W, r->T, how, r->wall, n / r->wall, r->per_psr * n / r->wall);
        if (r->psecs)
            print_parallel(st, r, n);
    }
    if (r->anydev)
        printf("  the paper's study (10 955 pulsars, x%.2f bins): %.2f hours one pulsar at a time on this device\n",
               r->scale, r->serial_h);
    else
        printf("  the paper's study (10 955 pulsars, x%.2f bins): %.1f core-hours, %.2f hours on 16 cores\n", r->scale,
               r->serial_h, r->serial_h / 16);
    if (isfinite(r->rate)) {
        printf("  side by side, steady from completion %d (the first round's end) to the last: %.3f pulsars/s; fixed "
               "%.2f s (the workers' sessions, the first round's fill, the last round's tail); start-up %.2f s\n",
               r->W, r->rate, r->fixed, isfinite(r->startup) ? r->startup : 0);
        printf("  the paper's study on this machine, %d pulsars at once: %.3f hours (start-up + fixed + 10 955 x%.2f "
               "/ steady rate; the %llu pulsars' wall scaled: %.3f hours)\n",
               r->W, r->machine_h, r->scale, (unsigned long long)o->n, r->scaled_h);
    } else if (isfinite(r->machine_h)) {
        printf("  the paper's study on this machine, %d pulsars at once: %.3f hours (the %llu pulsars' wall scaled: "
               "too few completions past the first round for a steady rate)\n",
               r->W, r->machine_h, (unsigned long long)o->n);
    }
}

int xc_bench_study(const xc_cmd *self, int argc, char **argv)
{
    const xc_optspec ospec = XC_CMD_SPEC(self);
    const char *spec = "datasets/study-table1-small.json", *json = NULL;
    unsigned long long n = 6, serial = 0;
    int threads = 0, device = 0, workers = 0, separate = 0, fresh = 0, jobs = 0;
    const xc_opt opts[] = {
        XC_OPT_STR("spec", &spec, .arg = "FILE", .help = "the study", .def = "datasets/study-table1-small.json"),
        XC_OPT_U64("n", &n, .arg = "N", .help = "pulsars timed", .def = "6"),
        XC_OPT_U64("serial", &serial, .arg = "S",
                   .help = "pulsars of the one-at-a-time pass, the first S of the N (0: all N): a long\n"
                           "side-by-side pass for the steady rate without as long a serial one", .def = "0"),
        XC_OPT_INT("threads", &threads, 0, 4096, .arg = "T",
                   .help = "threads of the side-by-side run (0: OpenMP default)", .def = "0"),
        XC_OPT_FLAG("device", &device,
                    .help = "searchers whose spec names no impl use a device implementation where one is\n"
                            "available (the serial pass gives every thread to the host side)"),
        XC_OPT_INT("workers", &workers, 0, 4096, .arg = "W",
                   .help = "pulsars at once in the side-by-side pass, each on one thread (OpenMP's nested\n"
                           "parallelism is off)", .def = "T, or 8 with -device"),
        XC_OPT_FLAG("separate", &separate,
                    .help = "every configuration its own search and nothing kept from pulsar to pulsar (the\n"
                            "A/B baseline of sweeps and sessions)"),
        XC_OPT_FLAG("fresh", &fresh,
                    .help = "sweeps as usual, but no session kept from pulsar to pulsar (each pulsar makes\n"
                            "its searchers' plans, templates and device buffers again: the sessions' A/B)"),
        XC_OPT_INT("device_jobs", &jobs, 0, 64, .arg = "K",
                   .help = "device searches at once among the side-by-side pass's workers (0, 1: one at a\n"
                           "time), as crosscheck study -device_jobs", .def = "2 with -device"),
        XC_OPT_STR("json", &json, .arg = "FILE", .help = "write the record as JSON (atomically)"),
        XC_OPT_END,
    };
    int rc = xc_opts_parse(&ospec, opts, argc, argv, NULL);
    if (rc != XC_OPTS_GO)
        return rc;
    if (n < 1)
        return xc_cli_failf("bench study", "-n: must be at least 1");
    xc_error err;
    xc_error_clear(&err);
    xc_study st;
    if (xc_study_load(&st, spec, xc_cli_registry(), &err))
        return xc_cli_fail("bench study", &err);
    if (device)
        xc_study_prefer(&st, xc_cli_registry(), XC_CAP_DEVICE);
    xc_study_use_pinned(&st);
    xc_study_keep_freed_memory();
    const xc_bench_study_opts o = {n, threads, workers, jobs, separate, fresh, serial};
    xc_bench_study_result r;
    if (xc_bench_study_measure(&st, &o, &r, &err)) {
        xc_study_free(&st);
        return xc_cli_fail("bench study", &err);
    }
    json_t *root = xc_bench_study_json(&st, spec, &o, &r);
    if (st.frb) {
        print_frb_stages(&st, &o, &r, spec);
    } else {
        print_stages(&st, &o, &r, spec);
        print_projection(&st, &o, &r);
    }
    xc_bench_study_result_free(&r);
    xc_study_free(&st);
    xc_status e = json ? xc_cli_write_json(json, root, JSON_INDENT(2) | JSON_REAL_PRECISION(6), &err) : XC_OK;
    json_decref(root);
    return e ? xc_cli_fail("bench study", &err) : 0;
}
