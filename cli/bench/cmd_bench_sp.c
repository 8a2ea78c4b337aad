/* crosscheck bench singlepulse: the search of a plane against the CPU
 * dedispersion of the same plane, same threads. */
#include <jansson.h>
#include <omp.h>
#include <stdio.h>
#include <string.h>

#include "bench/xc_bench_dd.h"
#include "bench/xc_bench_sp.h"
#include "cli/bench/bench_util.h"
#include "cli/base/cli.h"
#include "cli/base/cli_opts.h"
#include "cli/bench/bench_util.h"
#include "cli/gate/gate.h"
#include "core/base/xc_fs.h"

/* -peer_cmd's template filled: the argv of `sh -c TEXT` into argv (TEXT in
 * text[0..n)); *dat: whether it names the series, *fil: whether it reads
 * the filterbank alone.  0, or the exit status after the error. */
static int peer_command(const char *tmpl, const xc_cli_peers *p, const xc_bench_sp_opts *o, char *text, size_t n,
                        char *argv[4], int *fil, int *dat)
{
    char pf[4200], pd[4200], thr[16], nw[16], mw[16], mws[32], nch[16], nb[16];
    xc_error err;
    if (xc_pathf(pf, sizeof pf, &err, "%s/bench.fil", p->dir) || xc_pathf(pd, sizeof pd, &err, "%s/bench", p->dir))
        return xc_cli_fail("bench singlepulse", &err);
    snprintf(thr, sizeof thr, "%d", o->threads > 0 ? o->threads : omp_get_max_threads());
    snprintf(nw, sizeof nw, "%d", o->nwidths), snprintf(mw, sizeof mw, "%d", 1 << (o->nwidths - 1));
    snprintf(mws, sizeof mws, "%.9g", (1 << (o->nwidths - 1)) * o->tsamp_us * 1e-6);
    snprintf(nch, sizeof nch, "%d", o->nchans), snprintf(nb, sizeof nb, "%d", o->nbits);
    const gate_kv kv[] = {{"fil", pf}, {"dat", pd}, {"dir", p->dir}, {"threads", thr}, {"nwidths", nw},
                          {"maxwidth", mw}, {"maxwidth_s", mws}, {"nchans", nch}, {"nbits", nb}};
    if (gate_fill("-peer_cmd", tmpl, kv, sizeof kv / sizeof *kv, text, n, &err))
        return xc_cli_fail("bench singlepulse", &err);
    /* a peer given the series searches; one given only the filterbank
     * dedisperses too */
    *dat = strstr(tmpl, "{dat}") != NULL;
    *fil = !*dat;
    argv[0] = "/bin/sh", argv[1] = "-c", argv[2] = text, argv[3] = NULL;
    return 0;
}

/* The comparison with the peer, one line. */
static void print_peer(const json_t *doc)
{
    const json_t *recs = json_object_get(doc, "records");
    for (size_t i = 1; i < json_array_size(recs); i++) {
        const json_t *r = json_array_get(recs, i);
        printf("ours: %s\n", json_string_value(json_object_get(r, "ours")));
        xc_cli_print_peer(r);
    }
}

int xc_bench_singlepulse(const xc_cmd *self, int argc, char **argv)
{
    const xc_optspec spec = XC_CMD_SPEC(self);
    const char *json_path = NULL, *impl = NULL, *ddimpl = NULL;
    unsigned long long nout = 32768;
    xc_bench_sp_opts o = {1024, 8, 64, 0, TABLE2_PLAN, 12, 0, 3, NULL, NULL, NULL, NULL, 0, 0};
    const char *peer_cmd = NULL;
    xc_cli_peers peers = {.n = 0, .timeout = XC_BENCH_PEER_TIMEOUT};
    int fused = 0, nchans_given = 0, nbits_given = 0;
    double seconds = 10;
    const xc_opt opts[] = {
        XC_OPT_STR("json", &json_path, .arg = "FILE", .help = "write the record as JSON (atomically)"),
        XC_OPT_STR("impl", &impl, .arg = "NAME", .help = "single-pulse searcher", .def = "the threaded CPU one"),
        XC_OPT_STR("ddimpl", &ddimpl, .arg = "NAME", .help = "dedisperser", .def = "the threaded CPU one"),
        XC_OPT_INT("nchans", &o.nchans, 1, 1 << 20, .arg = "N", .help = "channels", .def = "1024",
                   .given = &nchans_given),
        XC_OPT_INT("nbits", &o.nbits, 1, 16, .arg = "B", .help = "bits per sample", .def = "8", .given = &nbits_given),
        XC_OPT_U64("nout", &nout, .arg = "N", .help = "output samples per trial", .def = "32768"),
        XC_OPT_STR("dmplan", &o.dmplan, .arg = "PLAN", .help = "DM plan", .def = "the AstroAccelerate paper's Table 2"),
        XC_OPT_INT("nwidths", &o.nwidths, 1, 31, .arg = "N", .help = "widths 1, 2, 4, ... 2^(N-1)", .def = "12"),
        XC_OPT_INT("threads", &o.threads, 0, 4096, .arg = "N", .help = "threads of both", .def = "all"),
        XC_OPT_INT("repeat", &o.repeat, 1, XC_BENCH_MAX_RUNS, .arg = "R", .help = "runs of each; the median is kept",
                   .def = "3"),
        XC_OPT_STR("peer_cmd", &peer_cmd, .arg = "TEMPLATE",
                   .help = "a single-pulse search of the field, as a shell command, run in turn with\n"
                           "ours (-repeat pairs, medians) on the same input: the synthesizer's noise\n"
                           "written to {fil} (a filterbank: ours then times dedispersion and search)\n"
                           "or, when the template names {dat}, dedispersed into {dat}_DM<dm>.dat/.inf\n"
                           "(ours times the search of the plane).  Also {dir} (the work folder),\n"
                           "{threads}, {nwidths}, {maxwidth} (samples), {maxwidth_s} (seconds),\n"
                           "{nchans}, {nbits}.  E.g. 'single_pulse_search.py -p -m {maxwidth_s}\n"
                           "{dat}_DM*.dat' (PRESTO; examples/peers/presto/single-pulse.sh) or\n"
                           "'heimdall -f {fil} -dm 0 500 -boxcar_max {maxwidth}' (a GPU)"),
        XC_OPT_STR("peer_dir", &peers.dir, .arg = "DIR", .help = "folder for the peer's input, output and log (kept)",
                   .def = "a temporary folder, removed at the end"),
        XC_OPT_NONNEG("peer_timeout", &peers.timeout, .arg = "S",
                      .help = "seconds one run of the peer may take: a peer still running then is\n"
                              "killed (with what it started) and the benchmark exits 2 naming it;\n"
                              "0: no limit", .def = "3600"),
        XC_OPT_FLAG("fused", &fused,
                    .help = "on a device: the fused GPU pipeline (gpu dedisperser into device memory, gpu\n"
                            "searcher there, candidates out) against the dedispersion kernels alone (and\n"
                            "against its own kernels: dedispersion and search, each timed alone), for\n"
                            "512..8192 channels x 8, 16 bits (Table 2 plan, -seconds of data), and the\n"
                            "AstroAccelerate paper's low/mid/high scenarios' real-time factors\n"
                            "(docs/SINGLEPULSE.md); -nwidths, -repeat and -json apply; -nchans or\n"
                            "-nbits given: only those rows of the sweep, and no scenarios"),
        XC_OPT_DOUBLE("seconds", &seconds, .arg = "S", .help = "-fused: seconds of data per channel count",
                      .def = "10"),
        XC_OPT_END,
    };
    XC_OPTS_PARSE_OR_RETURN(&spec, opts, argc, argv);
    if (fused) {
        if (!(seconds >= 1 && seconds <= 3600))
            return xc_cli_failf("bench singlepulse", "option -seconds: %g is outside [1, 3600]", seconds);
        return xc_bench_sp_fused_cmd("bench singlepulse", json_path, seconds, o.nwidths, o.repeat,
                                     nchans_given ? o.nchans : 0, nbits_given ? o.nbits : 0);
    }
    o.nout = (size_t)nout;
    if (!(o.sp = xc_spsearcher_of(xc_cli_impl("bench singlepulse", XC_FAMILY_SINGLEPULSE, impl))) ||
        !(o.dd = xc_dedisperser_of(xc_cli_impl("bench singlepulse", XC_FAMILY_DEDISPERSE, ddimpl))))
        return 2;
    char text[8192], *pargv[4];
    int rc;
    if ((rc = xc_cli_peers_cmd("bench singlepulse", &peers, peer_cmd)))
        return rc;
    const xc_bench_peers ps = xc_cli_peers_of(&peers, o.repeat);
    if (peer_cmd) {
        if ((rc = peer_command(peer_cmd, &peers, &o, text, sizeof text, pargv, &o.peer_fil, &o.peer_dat))) {
            xc_cli_peers_done(&peers);
            return rc;
        }
        o.peers = &ps, o.peer_argv = pargv;
    }
    xc_error err;
    xc_error_clear(&err);
    json_t *rec = NULL;
    xc_status st = xc_bench_sp_run(&o, &rec, &err);
    if (st) {
        json_decref(rec);
        return xc_cli_peers_fail("bench singlepulse", &peers, &err);
    }
    xc_cli_peers_done(&peers);
    /* with a peer, the search's own record leads the document's */
    const json_t *r0 = peer_cmd ? json_array_get(json_object_get(rec, "records"), 0) : rec;
    printf("bench singlepulse: %s on %lld trials x %lld samples, %d widths, %d threads: search %.3f s, "
           "dedispersion (%s) %.3f s, ratio %.3f\n", o.sp->impl.name,
           (long long)json_integer_value(json_object_get(r0, "trials")),
           (long long)json_integer_value(json_object_get(r0, "nout")), o.nwidths,
           (int)json_integer_value(json_object_get(r0, "threads")),
           json_real_value(json_object_get(r0, "seconds")), o.dd->impl.name,
           json_real_value(json_object_get(r0, "dedisperse_seconds")),
           json_real_value(json_object_get(r0, "ratio")));
    if (peer_cmd)
        print_peer(rec);
    if (json_path)
        st = xc_cli_write_json(json_path, rec, JSON_INDENT(2), &err);
    json_decref(rec);
    return st ? xc_cli_fail("bench singlepulse", &err) : 0;
}
