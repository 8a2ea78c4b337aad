/* crosscheck bench accel: seconds per matched-filter accel/jerk search for
 * each implementation, over spectrum sizes, zmax, wmax, harmonics and
 * threads, on a synthetic spectrum. */
#include <jansson.h>
#include <stdio.h>

#include "bench/xc_bench_search.h"
#include "cli/base/cli.h"
#include "cli/base/cli_opts.h"
#include "cli/bench/bench_util.h"

/* One table row per record. */
static void print_row(void *ctx, const json_t *r)
{
    (void)ctx;
    printf("%-10s %9lld %5lld %5lld %4lld %3lld %10.3f %10.3f %12.1f %6lld %9.0f\n",
           json_string_value(json_object_get(r, "impl")), (long long)json_integer_value(json_object_get(r, "nbins")),
           (long long)json_integer_value(json_object_get(r, "zmax")),
           (long long)json_integer_value(json_object_get(r, "wmax")),
           (long long)json_integer_value(json_object_get(r, "numharm")),
           (long long)json_integer_value(json_object_get(r, "threads")), json_real_value(json_object_get(r, "seconds")),
           json_real_value(json_object_get(r, "cpu_seconds")),
           json_real_value(json_object_get(r, "templates_per_second")),
           (long long)json_integer_value(json_object_get(r, "candidates")),
           json_real_value(json_object_get(r, "peak_rss_mb")));
    xc_cli_print_peer(r);
    fflush(stdout);
}

int xc_bench_accel(const xc_cmd *self, int argc, char **argv)
{
    const xc_optspec spec = XC_CMD_SPEC(self);
    xc_bench_accel_opts b;
    xc_bench_accel_opts_default(&b);
    int full = 0, runs_given = 0;
    const char *json = NULL;
    xc_cli_peers peers = {.n = 0};
    xc_opt peeropts[XC_CLI_PEEROPTS];
    xc_cli_peeropts(peeropts, &peers,
                    "PRESTO's accelsearch, run on the same spectrum (written as a .fft and its\n"
                    ".inf) with the same -zmax, -wmax, -numharm and -ncpus, in turn with ours;\n"
                    "repeat the option for more peers.  Without it, no ratio to a peer");
    xc_cli_ints Lnb = {b.nbins, 1, XC_BENCH_ACCEL_MAXL}, Lzm = {b.zmax, 1, XC_BENCH_ACCEL_MAXL},
                Lwm = {b.wmax, 1, XC_BENCH_ACCEL_MAXL}, Lnh = {b.numharm, 1, XC_BENCH_ACCEL_MAXL},
                Lth = {b.threads, 2, XC_BENCH_ACCEL_MAXL};
    const xc_opt opts[] = {
        XC_OPT_STR("json", &json, .arg = "FILE",
                   .help = "records: impl, nbins, zmax, wmax, numharm, threads, seconds (best run),\n"
                           "preset, median_seconds, cpu_seconds (user + system of all threads, per run:\n"
                           "robust to other tenants' load), templates, templates_per_second (the plan's\n"
                           "templates / seconds), plane_points_per_second (templates x searched half-bin\n"
                           "r points / seconds), candidates, peak_rss_mb (this record's peak resident\n"
                           "memory, memory_method says how it was measured), and where known\n"
                           "speedup_vs_reference (the\n"
                           "reference at the same settings), speedup_vs_cpu (device implementations: the\n"
                           "cpu searcher at the same settings and threads, timed in this run).  With\n"
                           "-peer, one record per point and peer: seconds and cpu_seconds become medians\n"
                           "of the runs interleaved with the peer's, and peer, peer_kind, peer_commit,\n"
                           "peer_threads, peer_seconds, peer_cpu_seconds, ratio (peer_seconds /\n"
                           "seconds), cpu_ratio and timing are added"),
        XC_OPT_INTS("nbins", &Lnb, 64, 1 << 28, .arg = "LIST", .help = "spectrum sizes (complex bins), comma separated",
                    .def = "1048576: 2^20"),
        XC_OPT_INTS("zmax", &Lzm, 0, 1200, .arg = "LIST", .help = "the grid's zmax values", .def = "200"),
        XC_OPT_INTS("wmax", &Lwm, 0, 4000, .arg = "LIST", .help = "the grid's wmax values", .def = "0"),
        XC_OPT_INTS("numharm", &Lnh, 1, 32, .arg = "LIST", .help = "the grid's harmonic counts", .def = "1"),
        XC_OPT_INTS("ncpus", &Lth, 0, 4096, .arg = "LIST", .help = "threads; 0 means all (OpenMP's default)",
                    .def = "1,2"),
        XC_OPT_INTS("threads", &Lth, 0, 4096, .arg = "LIST", .help = "the same as -ncpus"),
        XC_OPT_FLAG("full", &full,
                    .help = "the whole grid (2^20 and 2^22 bins, zmax 0/200/1200, numharm 1/4,\n"
                            "wmax 0/300, 1, 2 and all threads): hours on 2 cores"),
        XC_OPT_CHOICE("impl", &b.which, "reference|cpu|both", .arg = "LIST",
                      .help = "reference, cpu or both; cpu means every non-reference\n"
                              "implementation available here: gpu too, in a CUDA build with a device",
                      .def = "cpu"),
        XC_OPT_INT("runs", &b.runs, 1, XC_BENCH_MAX_RUNS, .arg = "N", .given = &runs_given,
                   .help = "best of N runs per record; with -peer, N runs of ours and N of each\n"
                           "peer in turn, medians kept", .def = "1; 3 with -peer"),
        XC_OPT_INT("ref_max_nbins", &b.ref_max_nbins, 0, 1 << 28, .arg = "N",
                   .help = "largest spectrum the reference is timed on", .def = "16384"),
        XC_OPT_CHOICE("preset", &b.presto, "exact|presto", .arg = "exact|presto",
                      .help = "the searches' preset (crosscheck accel -preset): presto keeps\n"
                              "accelsearch's blocks, normalisation and candidate insertion",
                      .def = "exact"),
        XC_OPT_TABLE(peeropts),
        XC_OPT_END,
    };
    int rc = xc_opts_parse(&spec, opts, argc, argv, NULL);
    if (rc != XC_OPTS_GO || (rc = xc_cli_peers_ready("bench accel", &peers, XC_PEER_BIT(XC_PEER_ACCELSEARCH))))
        return rc;
    b.peers = xc_cli_peers_of(&peers, runs_given ? b.runs : 3);
    b.nnbins = Lnb.n, b.nzmax = Lzm.n, b.nwmax = Lwm.n, b.nnumharm = Lnh.n, b.nthreads = Lth.n;
    if (full)
        xc_bench_accel_opts_full(&b);
    b.command = xc_cli_cmdline();
    xc_error err;
    xc_error_clear(&err);
    printf("%-10s %9s %5s %5s %4s %3s %10s %10s %12s %6s %9s\n", "impl", "nbins", "zmax", "wmax", "harm", "thr",
           "seconds", "cpu_s", "templates/s", "cands", "peak_MB");
    json_t *doc;
    xc_status st = xc_bench_accel_run(xc_cli_registry(), &b, print_row, NULL, &doc, &err);
    if (!st && json)
        st = xc_cli_write_json(json, doc, JSON_INDENT(2) | JSON_REAL_PRECISION(10), &err);
    json_decref(doc);
    if (st)
        return xc_cli_peers_fail("bench accel", &peers, &err);
    xc_cli_peers_done(&peers);
    return 0;
}
