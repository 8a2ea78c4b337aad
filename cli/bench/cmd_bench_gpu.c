/* crosscheck bench gpu: the GPU dedispersion benchmark's command
 * (bench/bench_gpu_dd.c measures): options, the table, the JSON file. */
#include <jansson.h>
#include <stdio.h>

#include "bench/xc_bench_dd.h"
#include "cli/bench/bench_util.h"
#include "cli/base/cli.h"
#include "cli/base/cli_opts.h"
#ifdef XC_HAVE_CUDA
#include "bench/xc_bench_gpu.h"
#endif

#define MAXN 16

#ifdef XC_HAVE_CUDA

static void print_row(const xc_bench_gpu_dd *r)
{
    const xc_gpu_ddrange *g = &r->info.range[0];
    printf("%5d %6d  %-9s %4d %3d %5d %3d  %9.2f %9.3f  %9.2f %9.3f  %6.1f  %8.2f %9.2f %9.3f %6.1f %9.2f %6.1f"
           "  %9.3f %6.1f %6.1f  %9.3f %6.1f %6.1f %7.1f %6.1f\n",
           r->nbits, r->nchans, g->kernel, g->samps_per_thread, g->dms_per_block, g->samps_per_block,
           g->chans_per_stage, r->kernel_ms, r->adds_kernel / 1e12, r->total_ms, r->adds_total / 1e12,
           100 * r->smem_frac, r->setup_ms, r->gulp_ms, r->adds_gulp / 1e12, 100 * r->adds_gulp / r->adds_kernel,
           r->gulp_pinned_ms, 100 * r->kernel_ms / r->gulp_pinned_ms, r->adds_bound / 1e12,
           100 * r->adds_gulp / r->adds_bound, 100 * r->adds / (r->gulp_reg_ms * 1e-3) / r->adds_bound,
           r->adds_pageable_bound / 1e12, 100 * r->adds_gulp / r->adds_pageable_bound,
           100 * r->adds / (r->gulp_kept_ms * 1e-3) / r->adds_bound,
           r->adds_schedule_bound > 0 ? 100 * r->adds_gulp / r->adds_schedule_bound : 0.0,
           100 * r->adds / (r->gulp_pinned_ms * 1e-3) / r->adds_bound);
    fflush(stdout);
}

/* Pulscan on the same device: the paper's Table 4 case (bench gpu-pulscan's
 * defaults), into both arrays. */
static xc_status pulscan_record(int reps, json_t *arr, json_t *psrecs, xc_error *err)
{
    json_t *ps = NULL;
    xc_status st = xc_bench_gpu_pulscan_record(reps < 5 ? 5 : reps, &ps, err);
    if (st)
        return st;
    printf("\npulscan (T = 600 s at 128 us, zmax 256, 4 harmonics, through a plan): kernels %.4f ms, wall %.4f "
           "ms with the spectrum page-locked (%.4f ms pageable), candidates %s the cpu's\n",
           json_real_value(json_object_get(ps, "kernel_ms")), json_real_value(json_object_get(ps, "wall_ms")),
           json_real_value(json_object_get(ps, "wall_pageable_ms")),
           json_is_true(json_object_get(ps, "gpu_matches_cpu")) ? "equal to" : "DIFFERENT from");
    json_array_append(arr, ps);
    json_array_append_new(psrecs, ps);
    return XC_OK;
}

static int run_bench(const char *cmd, const char *json, const int *nbits, int nnb, const int *nchans, int nnc,
                     int reps, double seconds, int autotune)
{
    char why[256];
    if (!xc_gpu_available(why, sizeof why))
        return xc_cli_failf(cmd, "gpu unavailable: %s", why);
    xc_error err;
    xc_gpu_props props;
    char desc[512];
    if (xc_gpu_properties(&props, &err) || xc_gpu_describe(desc, sizeof desc, &err))
        return xc_cli_fail(cmd, &err);
    printf("device: %s\n", desc);
    printf("plan %s (3050 trials), %.3g s of 64 us samples, 1250-1550 MHz, %d timed run%s%s\n\n", TABLE2_PLAN,
           seconds, reps, reps > 1 ? "s (median)" : "", autotune ? ", autotuned" : "");
    printf("%5s %6s  %-9s %4s %3s %5s %3s  %9s %9s  %9s %9s  %6s  %8s %9s %9s %6s %9s %6s  %9s %6s %6s  %9s %6s %6s %7s %6s\n",
           "nbits",
           "nchans", "kernel", "spt", "dy", "spb", "cs", "kernel ms", "T adds/s", "total ms", "T adds/s", "smem %",
           "setup ms", "gulp ms", "T adds/s", "e2e %", "pinned ms", "e2e %", "bound T/s", "bnd %", "reg %", "pgbnd T/s", "pgb %", "kept %", "sched %", "pin %");
    json_t *arr = json_array(), *psrecs = json_array();
    xc_status st = XC_OK;
    for (int b = 0; b < nnb && !st; b++)
        for (int c = 0; c < nnc && !st; c++) {
            xc_bench_gpu_dd r;
            if (!(st = xc_bench_gpu_dd_one(nbits[b], nchans[c], seconds, reps, autotune, &props, &r, &err))) {
                print_row(&r);
                json_array_append_new(arr, xc_bench_gpu_dd_json(&r));
            }
        }
    if (!st)
        st = pulscan_record(reps, arr, psrecs, &err);
    if (st) {
        json_decref(arr);
        json_decref(psrecs);
        return xc_cli_fail(cmd, &err);
    }
    json_t *root = xc_bench_gpu_doc(desc, &props, xc_cli_cmdline(), seconds, reps, arr, psrecs);
    int rc = xc_bench_write_json(cmd, json, root);
    json_decref(root);
    return rc;
}

#endif

int xc_bench_gpu(const xc_cmd *self, int argc, char **argv)
{
    const xc_optspec spec = XC_CMD_SPEC(self);
    const char *cmd = spec.cmd;
    const char *json = NULL;
    int quick = 0, autotune = 0, reps = 3, nchans_given = 0, reps_given = 0;
    int nchans_v[MAXN] = {512, 1024, 2048, 4096, 8192}, nbits_v[MAXN] = {8, 16};
    xc_cli_ints nchans = {nchans_v, 5, MAXN}, nbits = {nbits_v, 2, MAXN};
    double seconds = 10.0;
    const xc_opt opts[] = {
        XC_OPT_STR("json", &json, .arg = "FILE", .help = "write the results as JSON (required)"),
        XC_OPT_FLAG("quick", &quick, .help = "1024 and 4096 channels, one timed run"),
        {.name = "nchans", .kind = XC_OPTK_INTS, .dest = &nchans, .lo = 1, .hi = 1 << 20, .given = &nchans_given,
         .arg = "LIST", .help = "channel counts, comma-separated", .def = "512,1024,2048,4096,8192"},
        XC_OPT_INTS("nbits", &nbits, 1, 16, .arg = "LIST", .help = "bits per sample, comma-separated, from 1,2,4,8,16",
                    .def = "8,16"),
        XC_OPT_FLAG("autotune", &autotune,
                    .help = "let the untimed run time the candidate settings and use the\n"
                            "fastest (that of the first DM range) for the timed runs and gulps"),
        {.name = "reps", .kind = XC_OPTK_INT, .dest = &reps, .lo = 1, .hi = 1000, .given = &reps_given, .arg = "N",
         .help = "timed runs per configuration", .def = "3"},
        XC_OPT_DOUBLE("seconds", &seconds, .arg = "S", .help = "length of the data in seconds", .def = "10"),
        XC_OPT_END,
    };
    XC_OPTS_PARSE_OR_RETURN(&spec, opts, argc, argv);
    if (xc_bench_check_nbits(cmd, nbits.v, nbits.n))
        return 2;
    if (!(seconds > 0.5 && seconds <= 3600))
        return xc_cli_failf(cmd, "option -seconds: %g is outside (0.5, 3600]", seconds);
    if (!json)
        return xc_cli_failf(cmd, "-json FILE is required (see -h)");
    if (quick) {
        if (!nchans_given) {
            nchans.v[0] = 1024;
            nchans.v[1] = 4096;
            nchans.n = 2;
        }
        if (!reps_given)
            reps = 1;
    }
#ifdef XC_HAVE_CUDA
    return run_bench(cmd, json, nbits.v, nbits.n, nchans.v, nchans.n, reps, seconds, autotune);
#else
    (void)autotune;
    return xc_bench_no_cuda(cmd);
#endif
}
