/* crosscheck bench singlepulse -fused: the fused GPU pipeline (filterbank
 * block in, candidates out) against the gpu dedisperser's kernels alone,
 * over channel counts and bits, and the AstroAccelerate paper's three
 * pipeline scenarios as real-time factors (bench/bench_sp_gpu.c measures). */
#include <jansson.h>
#include <stdio.h>

#include "bench/xc_bench_dd.h"
#include "cli/bench/bench_util.h"
#include "cli/base/cli.h"
#ifdef XC_HAVE_CUDA
#include "bench/xc_bench_gpu.h"

static void print_row(const json_t *r)
{
    printf("%-6s %5lld %5lld %9.3g %10.2f %9.3f %9.3f %9.3f %7.1f %9.1f %9.1f %6lld %8.3f %8.3f %9.4f %8.1f %8.3f %8.3f "
           "%8.3f %6.1f\n",
           json_string_value(json_object_get(r, "case")), (long long)json_integer_value(json_object_get(r, "nbits")),
           (long long)json_integer_value(json_object_get(r, "nchans")), json_real_value(json_object_get(r, "tobs_s")),
           json_real_value(json_object_get(r, "kernel_ms")),
           json_real_value(json_object_get(r, "kernel_adds_per_s")) / 1e12,
           json_real_value(json_object_get(r, "fused_s")),
           json_real_value(json_object_get(r, "fused_adds_per_s")) / 1e12,
           100 * json_real_value(json_object_get(r, "fused_fraction_of_kernel")),
           json_real_value(json_object_get(r, "realtime_factor")),
           json_real_value(json_object_get(r, "realtime_factor_kernel")),
           (long long)json_integer_value(json_object_get(r, "candidates")),
           json_real_value(json_object_get(r, "fused_dedisperse_s")), json_real_value(json_object_get(r, "fused_search_s")),
           json_real_value(json_object_get(r, "stream_s")),
           100 * json_real_value(json_object_get(r, "stream_fraction_of_kernel")),
           json_real_value(json_object_get(r, "stream_dedisperse_s")), json_real_value(json_object_get(r, "stream_search_s")),
           json_real_value(json_object_get(r, "search_kernel_ms")),
           100 * json_real_value(json_object_get(r, "fused_fraction_of_own_kernels")));
    fflush(stdout);
}

static json_t *definitions(void)
{
    return json_pack(
        "{s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s}", "adds", "sum over DM ranges of trials x output samples x channels",
        "kernel_adds_per_s",
        "adds / the dedispersion kernels' summed CUDA-event time (gpu dedisperser, serial path: every launch timed "
        "on its own; median of runs)",
        "fused_adds_per_s",
        "adds / host clock of xc_sp_gpu_fused_execute, what each gulp of a run pays: the block in pageable host "
        "memory copied in, dedispersed into a plane in device memory (pipelined path), that plane searched on the "
        "device (heimdall preset, widths 1..2^(widths-1)), the detections back and clustered; the plans (the "
        "device plane, the dedisperser's buffers, delays and page-locked staging) made once and kept from call to "
        "call, as in a run of gulps; median of runs after a first one (fused_first_s, which sets the plans up)",
        "fused_fraction_of_kernel", "fused_adds_per_s / kernel_adds_per_s", "realtime_factor",
        "tobs_s / fused_s: observation seconds per processing second, filterbank in host memory to candidates (the "
        "paper's R = t_obs / t_c excludes the input transfer and has no search)",
        "realtime_factor_kernel", "tobs_s / kernel_ms: the dedispersion kernels alone", "fused_first_s",
        "host clock of the first execute of the fused plan: the plans' setup (device plane allocated, delays "
        "uploaded, staging page-locked) and one gulp",
        "stream_s",
        "host clock of xc_sp_gpu_fused_submit in a stream of gulps (the same block each time): the gulp copied in "
        "and dedispersed into one of two device planes while the search of the gulp before runs on a host thread "
        "of its own (its own device stream), then that search waited for and the gulp's search started: what one "
        "more gulp of a long run costs; two gulps untimed first, median of runs; every gulp's candidates number "
        "the execute's",
        "stream_fraction_of_kernel", "(adds / stream_s) / kernel_adds_per_s", "stream_dedisperse_s",
        "host clock of the last timed gulp's dedispersion in the stream (while the gulp before is searched)",
        "stream_search_s", "host clock of the search that gulp's submit waited for (the gulp before's, run beside it)",
        "search_kernel_ms",
        "the search's kernels alone in the pipelined execute: CUDA-event time of the statistics and float filter "
        "(first launch to the filter's end) and of the exact boxes, summed over the plan's ranges; median of runs",
        "search_kernel_ps_per_sample", "search_kernel_ms per plane sample (trials x output samples), in ps",
        "own_kernels_adds_per_s",
        "adds / (kernel_ms + search_kernel_ms): the pipeline's own kernels, each half timed alone, with no transfer, "
        "idle gap or host work and no overlap of the halves",
        "fused_fraction_of_own_kernels",
        "fused_adds_per_s / own_kernels_adds_per_s: how much of the transfers and idle time the fusion removes (1 "
        "when none is left)");
}

int xc_bench_sp_fused_cmd(const char *cmd, const char *json, double seconds, int nwidths, int reps, int only_nchans,
                          int only_nbits)
{
    char why[256];
    if (!xc_gpu_available(why, sizeof why))
        return xc_cli_failf(cmd, "gpu unavailable: %s", why);
    xc_error err;
    char desc[512];
    if (xc_gpu_describe(desc, sizeof desc, &err))
        return xc_cli_fail(cmd, &err);
    printf("device: %s\nsweep: plan %s, %.3g s of 64 us samples, 1250-1550 MHz; scenarios: Novotny et al. 2023 "
           "Table 3; %d widths, %d timed run%s\n\n",
           desc, TABLE2_PLAN, seconds, nwidths, reps, reps > 1 ? "s (median)" : "");
    printf("%-6s %5s %5s %9s %10s %9s %9s %9s %7s %9s %9s %6s %8s %8s %9s %8s %8s %8s %8s %6s\n", "case", "nbits",
           "nchans", "tobs s", "kernel ms", "T adds/s", "fused s", "T adds/s", "fused%", "RT fused", "RT kernel", "cands",
           "dd s", "search s", "stream s", "stream%", "q dd s", "q srch s", "srch ms", "own%");
    static const int nchans[] = {512, 1024, 2048, 4096, 8192}, nbits[] = {8, 16};
    json_t *sweep = json_array(), *scen = json_array();
    xc_status st = XC_OK;
    for (int b = 0; b < 2 && !st; b++)
        for (int c = 0; c < 5 && !st; c++) {
            if ((only_nchans && nchans[c] != only_nchans) || (only_nbits && nbits[b] != only_nbits))
                continue;
            const xc_bench_spgpu_case k = {"sweep", nchans[c], nbits[b], 1400, 300, 64e-6, seconds, TABLE2_PLAN};
            json_t *r = NULL;
            if (!(st = xc_bench_sp_fused(&k, nwidths, reps, &r, &err))) {
                print_row(r);
                json_array_append_new(sweep, r);
            }
        }
    for (int s = 0; s < 3 && !st && !only_nchans && !only_nbits; s++) {
        json_t *r = NULL;
        if (!(st = xc_bench_sp_fused(&xc_bench_spgpu_scenarios[s], nwidths, reps, &r, &err))) {
            print_row(r);
            json_array_append_new(scen, r);
        }
    }
    json_t *root = json_pack("{s:s, s:s, s:s, s:o, s:o, s:o}", "kind", "singlepulse-fused", "device", desc, "command",
                             xc_cli_cmdline(), "definitions", definitions(), "results", sweep, "scenarios", scen);
    int rc = st ? xc_cli_fail(cmd, &err) : json ? xc_bench_write_json(cmd, json, root) : 0;
    json_decref(root);
    return rc;
}

#else

int xc_bench_sp_fused_cmd(const char *cmd, const char *json, double seconds, int nwidths, int reps, int only_nchans,
                          int only_nbits)
{
    (void)json, (void)seconds, (void)nwidths, (void)reps, (void)only_nchans, (void)only_nbits;
    return xc_bench_no_cuda(cmd);
}

#endif
