/* crosscheck bench pulscan: seconds per Pulscan search for each searcher,
 * over spectrum sizes, zmax, harmonic stages, threads and peak modes, with
 * every CPU candidate list checked against the reference's where both ran. */
#include <jansson.h>
#include <stdio.h>

#include "bench/xc_bench_search.h"
#include "cli/base/cli.h"
#include "cli/base/cli_opts.h"
#include "cli/bench/bench_util.h"
#include "core/search/xc_psearch.h"

/* The command, apart from its options (their help is in the table). */
/* One table row per record. */
static void print_row(void *ctx, const json_t *r)
{
    (void)ctx;
    const json_t *m = json_object_get(r, "matches_reference");
    printf("%-9s %-6s %8lld %5lld %7lld %7lld %10.3f %10lld %s\n", json_string_value(json_object_get(r, "impl")),
           json_string_value(json_object_get(r, "mode")), (long long)json_integer_value(json_object_get(r, "nbins")),
           (long long)json_integer_value(json_object_get(r, "zmax")),
           (long long)json_integer_value(json_object_get(r, "numharm")),
           (long long)json_integer_value(json_object_get(r, "threads")),
           json_real_value(json_object_get(r, "seconds")),
           (long long)json_integer_value(json_object_get(r, "candidates")),
           json_is_null(m) ? "-" : json_is_true(m) ? "yes" : "NO");
    xc_cli_print_peer(r);
    fflush(stdout);
}

int xc_bench_pulscan(const xc_cmd *self, int argc, char **argv)
{
    xc_error err;
    xc_error_clear(&err);
    const char *json = NULL;
    int quick = 0, runs = 3, runs_given = 0, threads_v[8] = {1, 2}, nbins_v[8], zmax_v[8], harm_v[8];
    xc_cli_ints threads = {threads_v, 2, 8}, nbins = {nbins_v, 0, 8}, zmax = {zmax_v, 0, 8}, harm = {harm_v, 0, 8};
    unsigned long long refmax = 1ull << 20;
    xc_cli_peers peers = {.n = 0};
    xc_opt peeropts[XC_CLI_PEEROPTS];
    xc_cli_peeropts(peeropts, &peers,
                    "Pulscan's CPU program `pulscan`, run on the same spectrum (written as a .fft\n"
                    "and its .inf) with the same -zmax, -numharm, -ncpus, zstep, chunk widths and\n"
                    "sigma, in turn with ours (each peak mode); repeat the option for more peers.\n"
                    "Without it, no ratio to a peer");
    const xc_opt opts[] = {
        XC_OPT_STR("json", &json, .arg = "FILE",
                   .help = "write the records (impl, mode, nbins, zmax, numharm, threads, seconds,\n"
                           "candidates, matches_reference) to FILE; without it, a table only"),
        XC_OPT_FLAG("quick", &quick, .help = "nbins 2^18 and 2^20, zmax 200 only (about half a minute)"),
        XC_OPT_INT("runs", &runs, 1, 100, .arg = "N", .given = &runs_given,
                   .help = "best of N runs per record; with -peer, N runs of ours and N of each\n"
                           "peer in turn, medians kept",
                   .def = "3; the reference always 1"),
        XC_OPT_INTS("ncpus", &threads, 1, 4096, .arg = "LIST", .help = "thread counts, comma separated", .def = "1,2"),
        XC_OPT_INTS("threads", &threads, 1, 4096, .arg = "LIST", .help = "the same as -ncpus"),
        XC_OPT_INTS("nbins", &nbins, 64, 1 << 30, .arg = "LIST", .help = "spectrum sizes (complex bins), instead of the grid's",
                    .def = "2^20,2^23; -quick 2^18,2^20"),
        XC_OPT_INTS("zmax", &zmax, 0, 100000, .arg = "LIST", .help = "the zmax values, instead of the grid's",
                    .def = "200,1200; -quick 200"),
        XC_OPT_INTS("numharm", &harm, 1, 8, .arg = "LIST", .help = "the harmonic stages, instead of the grid's",
                    .def = "1,4"),
        XC_OPT_TABLE(peeropts),
        XC_OPT_U64("ref_max_nbins", &refmax, .arg = "N", .help = "largest spectrum the reference is timed on",
                   .def = "1048576"),
        XC_OPT_END,
    };
    const xc_optspec spec = XC_CMD_SPEC(self);
    int rc = xc_opts_parse(&spec, opts, argc, argv, NULL);
    if (rc != XC_OPTS_GO || (rc = xc_cli_peers_ready("bench pulscan", &peers, XC_PEER_BIT(XC_PEER_PULSCAN))))
        return rc;
    /* The reference, and the default implementation (the threaded CPU one), chosen by capability. */
    const xc_impl *ref = xc_registry_pick(xc_cli_registry(), XC_FAMILY_PULSCAN, XC_CAP_REFERENCE, 0);
    const xc_impl *cpu = xc_cli_impl("bench pulscan", XC_FAMILY_PULSCAN, NULL);
    if (!ref || !cpu)
        return ref ? 2 : xc_cli_failf("bench pulscan", "no reference searcher is registered");
    printf("%-9s %-6s %8s %5s %7s %7s %10s %10s %s\n", "impl", "mode", "nbins", "zmax", "numharm", "threads",
           "seconds", "candidates", "same as reference");
    const xc_bench_pulscan_opts o = {quick,   runs,   threads.v, threads.n, refmax, xc_cli_cmdline(), nbins.v, zmax.v,
                                     harm.v,  nbins.n, zmax.n,    harm.n,
                                     xc_cli_peers_of(&peers, runs_given ? runs : 3)};
    json_t *doc;
    int mismatches;
    if (xc_bench_pulscan_run(ref, cpu, &o, print_row, NULL, &doc, &mismatches, &err))
        return xc_cli_peers_fail("bench pulscan", &peers, &err);
    xc_cli_peers_done(&peers);
    xc_status st = json ? xc_cli_write_json(json, doc, JSON_INDENT(2) | JSON_REAL_PRECISION(6), &err) : XC_OK;
    json_decref(doc);
    if (st)
        return xc_cli_fail("bench pulscan", &err);
    if (mismatches)
        return xc_cli_failf("bench pulscan", "%d cpu candidate lists differ from the reference's", mismatches);
    return 0;
}
