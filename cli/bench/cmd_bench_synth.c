/* crosscheck bench synth: how fast the synthesizer makes filterbank data. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>

#include "bench/xc_bench_synth.h"
#include "cli/base/cli.h"
#include "cli/base/cli_opts.h"
#include "cli/bench/bench_util.h"

/* One table row per record. */
static void print_row(void *ctx, const json_t *r)
{
    (void)ctx;
    double sec = json_real_value(json_object_get(r, "seconds")), rate = json_real_value(json_object_get(r, "samples_per_s"));
    printf("  %-8lld %-7s %10.3f %14.4g\n", (long long)json_integer_value(json_object_get(r, "threads")),
           json_string_value(json_object_get(r, "sink")), sec, rate);
    xc_cli_print_peer(r);
}

int xc_bench_synth(const xc_cmd *self, int argc, char **argv)
{
    static const char about[] =
        "Times `crosscheck synth` making a filterbank (noise, a dispersed pulsar, quantisation and\n"
        "packing) into memory, at each thread count, and reports channel samples per second.  The\n"
        "data are the same bytes synth writes; only the disk is left out (see -dir).  With -peer\n"
        "PATH/fake, SIGPROC's fake makes a file of the same geometry (channels, bits, sample time,\n"
        "length, band, pulsar period, DM, peak S/N and width) in the same run, and ours writes its\n"
        "file beside it, in turn (scripts/peers/build-sigproc.sh builds fake).\n";
    xc_optspec spec = XC_CMD_SPEC(self);
    spec.about = about;
    xc_error err;
    xc_error_clear(&err);
    const char *json_path = NULL, *threads_s = "1,2";
    xc_bench_synth_opts o = {512, 8, 64, 20, 5, 100, 3, 0, 0, NULL, 0, NULL};
    xc_cli_peers peers = {.n = 0};
    xc_opt peeropts[XC_CLI_PEEROPTS];
    xc_cli_peeropts(peeropts, &peers,
                    "SIGPROC's fake, making a file of the same geometry with its options, in\n"
                    "turn with ours writing the same file (-repeat pairs, medians; fake is\n"
                    "single-threaded); repeat the option for more peers.  Without it, no ratio to\n"
                    "a peer");
    const xc_opt opts[] = {
        XC_OPT_STR("json", &json_path, .arg = "FILE", .help = "write the records as JSON (atomically)"),
        XC_OPT_STR("threads", &threads_s, .arg = "LIST",   /* checked below, after the others */
                   .help = "comma-separated thread counts", .def = "1,2"),
        XC_OPT_INT("nchans", &o.nchans, 1, 1 << 24, .arg = "N", .help = "channels", .def = "512"),
        XC_OPT_INT("nbits", &o.nbits, 1, 32, .arg = "B", .help = "bits per sample", .def = "8"),
        XC_OPT_DOUBLE("tsamp", &o.tsamp_us, .arg = "US", .help = "sample time in microseconds", .def = "64"),
        XC_OPT_DOUBLE("tobs", &o.tobs, .arg = "S", .help = "seconds of data per run", .def = "20"),
        XC_OPT_DOUBLE("period", &o.period, .arg = "MS", .help = "pulsar period, 0 for noise only", .def = "5"),
        XC_OPT_DOUBLE("dm", &o.dm, .arg = "DM", .help = "pulsar DM", .def = "100"),
        XC_OPT_INT("repeat", &o.repeat, 1, XC_BENCH_MAX_RUNS, .arg = "R",
                   .help = "runs per thread count; the median is kept", .def = "3"),
        XC_OPT_INT("chunk", &o.chunk, 0, 1 << 30, .arg = "N", .help = "spectra per chunk (0: synth's automatic size)",
                   .def = "0"),
        XC_OPT_CHOICE("noise", &o.noise_gen, "boxmuller|exact", .arg = "GEN",
                      .help = "the synthesizer's noise generator (synth -noise)", .def = "boxmuller"),
        XC_OPT_STR("dir", &o.dir, .arg = "DIR", .help = "also time writing real files in DIR (removed afterwards)"),
        XC_OPT_TABLE(peeropts),
        XC_OPT_END,
    };
    int rc = xc_opts_parse(&spec, opts, argc, argv, NULL);
    if (rc != XC_OPTS_GO || (rc = xc_cli_peers_ready("bench synth", &peers, XC_PEER_BIT(XC_PEER_FAKE))))
        return rc;
    o.peers = xc_cli_peers_of(&peers, o.repeat);
    int th[64], nth = 0;
    for (const char *s = threads_s; *s && nth < 64;) {
        char *end;
        long v = strtol(s, &end, 10);
        if (end == s || v < 1 || v > 4096 || (*end && *end != ','))
            return xc_cli_failf("bench synth", "-threads: '%s' is not a list of counts like 1,2", threads_s);
        th[nth++] = (int)v;
        s = *end ? end + 1 : end;
    }
    o.threads = th, o.nthreads = nth;
    xc_synth_params p;
    if (xc_bench_synth_params(&o, &p, &err))
        return xc_cli_fail("bench synth", &err);
    const double values = (double)xc_synth_nsamp(&p) * o.nchans;
    printf("bench synth: %d channels, %d bits, %.6g s at %g us (%.3g M values), %s; median of %d\n", o.nchans, o.nbits,
           o.tobs, o.tsamp_us, values / 1e6, o.period > 0 ? "noise + dispersed pulsar" : "noise only", o.repeat);
    printf("  %-8s %-7s %10s %14s\n", "threads", "sink", "seconds", "values/s");
    json_t *doc;
    xc_status st = xc_bench_synth_run(&p, &o, print_row, NULL, &doc, &err);
    xc_synth_params_free(&p);
    if (st)
        return xc_cli_peers_fail("bench synth", &peers, &err);
    xc_cli_peers_done(&peers);
    if (json_path)
        st = xc_cli_write_json(json_path, doc, JSON_INDENT(2), &err);
    json_decref(doc);
    return st ? xc_cli_fail("bench synth", &err) : 0;
}
