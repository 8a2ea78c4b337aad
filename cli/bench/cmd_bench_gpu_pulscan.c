/* crosscheck bench gpu-pulscan: the GPU Pulscan benchmark's command
 * (bench/xc_bench_gpu.h measures): options, the stage table, the JSON file. */
#include <stdio.h>

#include "cli/bench/bench_util.h"
#include "cli/base/cli.h"
#include "cli/base/cli_opts.h"
#ifdef XC_HAVE_CUDA
#include "bench/xc_bench_gpu.h"
#endif

#ifdef XC_HAVE_CUDA

/* The stage table, against Pulscan's own GPU code. */
static void print_stages(const xc_bench_gpups *r)
{
    static const char *names[XC_BENCH_PS_NSTAGE] = {"h2d",    "separate", "normalise", "power",  "decimate",
                                                    "boxcar", "logp",     "d2h",       "kernels"};
    static const char *anchor[XC_BENCH_PS_NSTAGE] = {"",      "0.011", "0.022 (median of medians)", "0.008", "0.007",
                                                     "0.228", "0.060", "",
                                                     "0.336 (the paper's GH200: 0.49, boxcar 0.42)"};
    printf("%-10s %10s   %s\n", "stage", "ms (med)", "Pulscan's GPU code, H200, Nsight Compute (scripts/peer-pulscan.sh)");
    for (int s = 0; s < XC_BENCH_PS_NSTAGE; s++)
        printf("%-10s %10.4f   %s\n", names[s], r->med[s], anchor[s]);
    printf("  screen   %10.4f\n  exact    %10.4f   (%zu flagged groups of 8 starts, %zu peaks)\n", r->screen, r->exact,
           r->flagged_groups, r->peaks);
    printf("%-10s %10.4f   (host clock, copy in to peaks on the host; spectrum in pageable memory)\n", "wall pageable",
           r->wall_pageable);
    printf("%-10s %10.4f   (the same, spectrum in page-locked memory: h2d %.4f, kernels %.4f)\n", "wall", r->wall,
           r->h2d_pinned, r->kernels_pinned);
    printf("%-10s %10.4f   (plan: device buffers, thresholds, list space; once per size and options)\n", "setup",
           r->setup);
}

/* The screen's rate, the lists against the cpu's, the approximations. */
static void print_results(const xc_bench_gpups *r)
{
    printf("\nscreen: %.3g float additions, %.2f T/s = %.0f %% of the FP32 add rate (%d SMs x 128 x %.0f MHz)\n",
           r->adds, r->rate / 1e12, 100 * r->rate / r->fp32, r->sms, r->clock_khz / 1e3);
    printf("candidates: cpu %zu, gpu %zu: %s (largest relative power/sigma difference %.2g, bound %.0e); "
           "cpu %.3f s, %.0fx the gpu's kernels\n",
           r->ncpu, r->ngpu, r->same ? "identical" : "DIFFERENT", r->maxrel, r->rtol, r->cpu_s,
           r->cpu_s / (r->med[XC_BENCH_PS_NSTAGE - 1] * 1e-3));
    printf("approximations (-norm mom -logp poly) vs exact cpu: %zu vs %zu candidates, %zu matched, %zu/%zu "
           "unmatched; max |dsigma| %.3g, max power rel. diff %.3g; kernels %.4f ms\n",
           r->na, r->nb, r->npairs, r->na_only, r->nb_only, r->max_abs_dsigma, r->max_rel_dpower, r->approx_kernels_ms);
}

static int run_bench(const char *cmd, const char *json, const xc_bench_gpups_opts *o)
{
    xc_error err;
    xc_bench_gpups r;
    if (xc_bench_gpups_prepare(o, &r, &err))
        return xc_cli_fail(cmd, &err);
    printf("device: %s\n", r.device);
    printf("spectrum: N = %zu samples of %.4g s (T = %.1f s), %zu bins; zmax %d, %d harmonic stage%s, sigma %.1f, "
           "zstep %d\n\n", r.N, o->tsamp, r.sp.T, r.nbins, o->zmax, o->numharm, o->numharm > 1 ? "s" : "", r.o.sigma,
           r.o.zstep);
    int rc = 0;
    if (xc_bench_gpups_measure(o, &r, &err)) {
        rc = xc_cli_fail(cmd, &err);
    } else {
        print_stages(&r);
        print_results(&r);
        /* a mismatch (exit 1) is a result too: gpu_matches_cpu says so */
        rc = xc_bench_write_json(cmd, json, r.doc);
        if (!rc && !r.same)
            rc = 1;
    }
    xc_bench_gpups_free(&r);
    return rc;
}

#endif

int xc_bench_gpu_pulscan(const xc_cmd *self, int argc, char **argv)
{
    const xc_optspec spec = XC_CMD_SPEC(self);
    const char *cmd = spec.cmd;
    const char *json = NULL, *fft = NULL;
    double tobs = 600, tsamp = 128e-6;
    int zmax = 256, numharm = 4, reps = 10, zlog = 0;
    unsigned long long seed = 1;
    const xc_opt opts[] = {
        XC_OPT_STR("json", &json, .arg = "FILE", .help = "write the results as JSON (required)"),
        XC_OPT_DOUBLE("tobs", &tobs, .arg = "S", .help = "observation length in seconds", .def = "600"),
        XC_OPT_DOUBLE("tsamp", &tsamp, .arg = "S", .help = "sample time in seconds", .def = "128e-6"),
        XC_OPT_INT("zmax", &zmax, 0, 100000, .arg = "Z", .help = "largest drift in bins", .def = "256"),
        XC_OPT_INT("numharm", &numharm, 1, 8, .arg = "H", .help = "harmonic stages", .def = "4"),
        XC_OPT_FLAG("zlog", &zlog,
                    .help = "search z in {0, 1, 2, 4, 8, ...} (Pulscan's GPU code's widths) instead of\n"
                            "every second z"),
        XC_OPT_INT("reps", &reps, 1, 64, .arg = "N", .help = "timed runs", .def = "10"),
        XC_OPT_U64("seed", &seed, .arg = "N", .help = "noise seed", .def = "1"),
        XC_OPT_STR("fft", &fft, .arg = "FILE",
                   .help = "also write the spectrum as a PRESTO .fft (complex float32 bins), for\n"
                           "running other searchers on the same data"),
        XC_OPT_END,
    };
    XC_OPTS_PARSE_OR_RETURN(&spec, opts, argc, argv);
    if (!json)
        return xc_cli_failf(cmd, "-json FILE is required (see -h)");
    if (!(tsamp > 0) || !(tobs > 0) || tobs / tsamp < 64 || tobs / tsamp > 4e9)
        return xc_cli_failf(cmd, "-tobs %g / -tsamp %g must give 64 to 4e9 samples", tobs, tsamp);
#ifdef XC_HAVE_CUDA
    const xc_bench_gpups_opts o = {tobs, tsamp, zmax, numharm, zlog, reps, seed, fft, xc_cli_cmdline()};
    return run_bench(cmd, json, &o);
#else
    (void)seed, (void)fft, (void)zlog;
    return xc_bench_no_cuda(cmd);
#endif
}
