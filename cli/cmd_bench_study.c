/* crosscheck bench study: how fast a study goes, stage by stage, and what
 * that projects for the Pulscan paper's full study. */
#include <jansson.h>
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cli_opts.h"
#include "core/base/xc_progress.h"
#include "study/xc_study.h"

/* The paper's study (White et al. 2024, section 3): 10 955 pulsars of 600 s
 * at 128 us, i.e. 4 687 500 samples, 2 343 750 complex bins. */
#define PAPER_NPSR 10955.0
#define PAPER_NBINS 2343750.0

static void help(void)
{
    printf("usage: crosscheck bench study [-spec STUDY.json] [-n N] [-threads T] [-device] [-workers W]\n"
           "                          [-separate | -fresh] [-json FILE]\n\n"
           "Times a study's stages on its first N pulsars: synthesis (the dedispersed series), FFT and each\n"
           "searcher configuration, one pulsar at a time on one thread (the cost per core), then the same\n"
           "pulsars side by side on T threads (the throughput `crosscheck study` gets).  Reports pulsars per\n"
           "second per core, and projects the Pulscan paper's full study (10 955 Table 1 pulsars of 600 s at\n"
           "128 us: 2 343 750 bins) from the per-core cost, scaled linearly by bins (every stage here is\n"
           "O(bins) per configuration) when the spec's spectra are shorter.  A matched filter's zmax x numharm\n"
           "sweep is one search (the largest, cut to each configuration): its time is shared evenly by its\n"
           "configurations, and the searcher's total is printed after them.\n\n"
           "  -spec FILE     the study [datasets/study-table1-small.json]\n"
           "  -n N           pulsars timed [6]\n"
           "  -threads T     threads of the side-by-side run (0: OpenMP default) [0]\n"
           "  -device        searchers whose spec names no impl use a device implementation where one is\n"
           "                 available (the serial pass gives every thread to the host side)\n"
           "  -workers W     pulsars at once in the side-by-side pass, each on one thread (OpenMP's nested\n"
           "                 parallelism is off) [T, or 8 with -device]\n"
           "  -separate      every configuration its own search and nothing kept from pulsar to pulsar (the\n"
           "                 A/B baseline of sweeps and sessions)\n"
           "  -fresh         sweeps as usual, but no session kept from pulsar to pulsar (each pulsar makes\n"
           "                 its searchers' plans, templates and device buffers again: the sessions' A/B)\n"
           "  -device_jobs K device searches at once among the side-by-side pass's workers (0, 1: one at a\n"
           "                 time), as crosscheck study -device_jobs [2 with -device]\n"
           "  -json FILE     write the record as JSON (atomically)\n"
           "  -h             this help\n");
}

int xc_bench_study(int argc, char **argv)
{
    static const xc_optspec ospec = {"bench study", help, 0};
    const char *spec = "datasets/study-table1-small.json", *json = NULL;
    unsigned long long n = 6;
    int threads = 0, device = 0, workers = 0, separate = 0, fresh = 0, jobs = 0;
    const xc_opt opts[] = {
        XC_OPT_STR("spec", &spec), XC_OPT_U64("n", &n), XC_OPT_INT("threads", &threads, 0, 4096),
        XC_OPT_FLAG("device", &device), XC_OPT_INT("workers", &workers, 0, 4096), XC_OPT_STR("json", &json),
        XC_OPT_FLAG("separate", &separate), XC_OPT_FLAG("fresh", &fresh), XC_OPT_INT("device_jobs", &jobs, 0, 64),
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
    st.separate = separate;
    const size_t ns = xc_study_nsearch(&st);
    double *secs = calloc(2 + ns, sizeof *secs);
    if (!secs) {
        xc_study_free(&st);
        return xc_cli_failf("bench study", "out of memory");
    }
    int T = threads > 0 ? threads : omp_get_max_threads();
    int anydev = 0;
    for (size_t k = 0; k < st.ns; k++)
        anydev |= (st.s[k].impl->caps & XC_CAP_DEVICE) != 0;
    /* 1. serial, one thread (all threads for a device searcher's host side) */
    xc_status e = XC_OK;
    double t0 = xc_now();
    xc_study_cache *cache = NULL;
    if (!separate && !fresh)
        e = xc_study_cache_new(&st, &cache, &err);
    for (uint64_t i = 0; i < n && !e; i++) {
        xc_study_rows rows = {0};
        e = xc_study_pulsar_cached(&st, cache, i, NULL, anydev ? T : 1, &rows, secs, &err);
        xc_study_rows_free(&rows);
    }
    xc_study_cache_free(cache);
    double serial = xc_now() - t0;
    /* 2. side by side, as the study runs them (with a device searcher, W
     * pulsars share the device: their host stages overlap its work) */
    double wall = NAN;
    int W = workers > 0 ? workers : anydev ? 8 : T;
    const int K = jobs > 0 ? jobs : anydev ? 2 : 1;
    if (W > (int)n)
        W = (int)n;
    xc_study_gate *gate = NULL;
    if (!e && anydev && W > 1)
        e = xc_study_gate_new(K, &gate, &err);
    if (!e && W > 1) {
        xc_status e2 = XC_OK;
        const int inner = T / W > 0 ? T / W : 1;
        t0 = xc_now();
#pragma omp parallel num_threads(W)
        {
            xc_study_cache *wc = NULL;
            xc_error e1;
            xc_error_clear(&e1);
            xc_status s1 = separate || fresh ? XC_OK : xc_study_cache_new(&st, &wc, &e1);
            xc_study_cache_gate(wc, gate);
#pragma omp for schedule(dynamic, 1)
            for (long long i = 0; i < (long long)n; i++) {
                xc_study_rows rows = {0};
                if (!s1)
                    s1 = xc_study_pulsar_cached(&st, wc, (uint64_t)i, NULL, inner, &rows, NULL, &e1);
                xc_study_rows_free(&rows);
            }
            if (s1)
#pragma omp critical(bench_study_err)
            {
                e2 = e1.code;
                err = e1;
            }
            xc_study_cache_free(wc);
        }
        wall = xc_now() - t0;
        e = e2;
    }
    xc_study_gate_free(gate);
    if (e) {
        free(secs);
        xc_study_free(&st);
        return xc_cli_fail("bench study", &err);
    }
    /* the spectrum length of this spec (pulsar 0) */
    xc_synth_params p;
    int att;
    double nbins = NAN;
    if (!xc_popspec_pulsar(&st.pop, st.seed, 0, &p, &att, &err)) {
        nbins = floor((double)xc_synth_nsamp(&p) / 2);
        xc_synth_params_free(&p);
    }
    const double per_psr = serial / (double)n;
    const double scale = isfinite(nbins) && nbins > 0 ? PAPER_NBINS / nbins : NAN;
    json_t *root = json_object(), *stages = json_array();
    json_object_set_new(root, "benchmark", json_string("study"));
    json_object_set_new(root, "spec", json_string(spec));
    json_object_set_new(root, "pulsars", json_integer((json_int_t)n));
    json_object_set_new(root, "separate", json_boolean(separate));
    json_object_set_new(root, "sessions_kept", json_boolean(!separate && !fresh));
    json_object_set_new(root, "device_jobs", json_integer(anydev ? K : 0));
    json_object_set_new(root, "nbins_approx", json_real(nbins));
    json_object_set_new(root, "serial_threads", json_integer(anydev ? T : 1));
    json_object_set_new(root, "serial_s_per_pulsar", json_real(per_psr));
    json_object_set_new(root, "pulsars_per_s_per_core", json_real(1.0 / per_psr));
    json_object_set_new(root, "synthesis_s_per_pulsar", json_real(secs[0] / (double)n));
    json_object_set_new(root, "fft_s_per_pulsar", json_real(secs[1] / (double)n));
    printf("bench study: %s, %llu pulsars, ~%.0f bins each\n", spec, n, nbins);
    printf("  %-44s %10s\n", "stage", "s/pulsar");
    printf("  %-44s %10.4f\n", "synthesis (dedispersed series)", secs[0] / (double)n);
    printf("  %-44s %10.4f\n", "FFT", secs[1] / (double)n);
    for (size_t k = 0, q = 0; k < st.ns; k++)
        for (size_t c = 0; c < st.s[k].ncfg; c++, q++) {
            json_t *o = json_object();
            json_object_set_new(o, "searcher", json_string(st.s[k].name));
            json_object_set_new(o, "impl", json_string(st.s[k].impl->name));
            json_object_set_new(o, "config", json_string(st.s[k].cfg[c].label));
            json_object_set_new(o, "s_per_pulsar", json_real(secs[2 + q] / (double)n));
            json_array_append_new(stages, o);
            char name[200];
            snprintf(name, sizeof name, "%s/%s %s", st.s[k].name, st.s[k].impl->name, st.s[k].cfg[c].label);
            printf("  %-44s %10.4f\n", name, secs[2 + q] / (double)n);
        }
    json_object_set_new(root, "searches", stages);
    /* per searcher: a matched filter's sweep is one search
     * (xc_accel_run_sweep), its time shared evenly by its configurations above */
    json_t *bys = json_array();
    for (size_t k = 0, q = 0; k < st.ns; q += st.s[k].ncfg, k++) {
        double tot = 0;
        for (size_t c = 0; c < st.s[k].ncfg; c++)
            tot += secs[2 + q + c];
        int swept = st.s[k].family == XC_FAMILY_ACCEL && st.s[k].ncfg > 1 && !separate;
        json_t *o = json_object();
        json_object_set_new(o, "searcher", json_string(st.s[k].name));
        json_object_set_new(o, "impl", json_string(st.s[k].impl->name));
        json_object_set_new(o, "configurations", json_integer((json_int_t)st.s[k].ncfg));
        json_object_set_new(o, "one_sweep", json_boolean(swept));
        json_object_set_new(o, "s_per_pulsar", json_real(tot / (double)n));
        json_array_append_new(bys, o);
        char name[200];
        snprintf(name, sizeof name, "%s/%s, all %zu%s", st.s[k].name, st.s[k].impl->name, st.s[k].ncfg,
                 swept ? " (one sweep)" : "");
        printf("  %-44s %10.4f\n", name, tot / (double)n);
    }
    json_object_set_new(root, "searchers", bys);
    printf("  %-44s %10.4f  (%.3f pulsars/s per core)\n", "total, one thread", per_psr, 1.0 / per_psr);
    if (isfinite(wall)) {
        json_object_set_new(root, "parallel_workers", json_integer(W));
        json_object_set_new(root, "parallel_threads", json_integer(T));
        json_object_set_new(root, "parallel_wall_s", json_real(wall));
        json_object_set_new(root, "parallel_pulsars_per_s", json_real((double)n / wall));
        char how[64] = "";
        if (anydev)
            snprintf(how, sizeof how, ", %d device search%s at once", K, K > 1 ? "es" : "");
        printf("  side by side, %d pulsars at once on %d threads%s: %.2f s wall, %.3f pulsars/s (%.2fx the serial "
               "pass)\n",
               W, T, how, wall, (double)n / wall, serial / wall);
    }
    /* Projection: the paper's study at this spec's configurations, from the
     * serial pass (per core on a CPU, per device) and from the side-by-side
     * pass (this machine as it ran). */
    const double serial_h = PAPER_NPSR * per_psr * scale / 3600.0;
    const double machine_h = isfinite(wall) ? PAPER_NPSR * wall / (double)n * scale / 3600.0 : NAN;
    json_t *proj = json_object();
    json_object_set_new(proj, "paper_pulsars", json_real(PAPER_NPSR));
    json_object_set_new(proj, "paper_nbins", json_real(PAPER_NBINS));
    json_object_set_new(proj, "bins_scale", json_real(scale));
    json_object_set_new(proj, anydev ? "hours_serial_on_this_device" : "core_hours", json_real(serial_h));
    if (!anydev)
        json_object_set_new(proj, "hours_on_16_cores", json_real(serial_h / 16));
    json_object_set_new(proj, "hours_on_this_machine_side_by_side", isfinite(machine_h) ? json_real(machine_h)
                                                                                         : json_null());
    json_object_set_new(proj, "assumption", json_string("time per pulsar scales linearly with bins (x bins_scale); "
                                                        "this spec's configurations, not necessarily the paper's"));
    json_object_set_new(root, "projection", proj);
    if (anydev)
        printf("  the paper's study (10 955 pulsars, x%.2f bins): %.2f hours one pulsar at a time on this device\n",
               scale, serial_h);
    else
        printf("  the paper's study (10 955 pulsars, x%.2f bins): %.1f core-hours, %.2f hours on 16 cores\n", scale,
               serial_h, serial_h / 16);
    if (isfinite(machine_h))
        printf("  the paper's study on this machine, %d pulsars at once: %.2f hours\n", W, machine_h);
    free(secs);
    xc_study_free(&st);
    if (json && xc_cli_write_json(json, root, JSON_INDENT(2) | JSON_REAL_PRECISION(6), &err)) {
        json_decref(root);
        return xc_cli_fail("bench study", &err);
    }
    json_decref(root);
    return 0;
}
