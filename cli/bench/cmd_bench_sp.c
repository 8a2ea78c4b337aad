/* crosscheck bench singlepulse: the search of a plane against the CPU
 * dedispersion of the same plane, same threads. */
#include <jansson.h>
#include <stdio.h>

#include "bench/xc_bench_dd.h"
#include "bench/xc_bench_sp.h"
#include "cli/bench/bench_util.h"
#include "cli/base/cli.h"
#include "cli/base/cli_opts.h"

int xc_bench_singlepulse(const xc_cmd *self, int argc, char **argv)
{
    const xc_optspec spec = XC_CMD_SPEC(self);
    const char *json_path = NULL, *impl = NULL, *ddimpl = NULL;
    unsigned long long nout = 32768;
    xc_bench_sp_opts o = {1024, 8, 64, 0, TABLE2_PLAN, 12, 0, 3, NULL, NULL};
    int fused = 0;
    double seconds = 10;
    const xc_opt opts[] = {
        XC_OPT_STR("json", &json_path, .arg = "FILE", .help = "write the record as JSON (atomically)"),
        XC_OPT_STR("impl", &impl, .arg = "NAME", .help = "single-pulse searcher", .def = "the threaded CPU one"),
        XC_OPT_STR("ddimpl", &ddimpl, .arg = "NAME", .help = "dedisperser", .def = "the threaded CPU one"),
        XC_OPT_INT("nchans", &o.nchans, 1, 1 << 20, .arg = "N", .help = "channels", .def = "1024"),
        XC_OPT_INT("nbits", &o.nbits, 1, 16, .arg = "B", .help = "bits per sample", .def = "8"),
        XC_OPT_U64("nout", &nout, .arg = "N", .help = "output samples per trial", .def = "32768"),
        XC_OPT_STR("dmplan", &o.dmplan, .arg = "PLAN", .help = "DM plan", .def = "the AstroAccelerate paper's Table 2"),
        XC_OPT_INT("nwidths", &o.nwidths, 1, 31, .arg = "N", .help = "widths 1, 2, 4, ... 2^(N-1)", .def = "12"),
        XC_OPT_INT("threads", &o.threads, 0, 4096, .arg = "N", .help = "threads of both", .def = "all"),
        XC_OPT_INT("repeat", &o.repeat, 1, XC_BENCH_MAX_RUNS, .arg = "R", .help = "runs of each; the median is kept",
                   .def = "3"),
        XC_OPT_FLAG("fused", &fused,
                    .help = "on a device: the fused GPU pipeline (gpu dedisperser into device memory, gpu\n"
                            "searcher there, candidates out) against the dedispersion kernels alone, for\n"
                            "512..8192 channels x 8, 16 bits (Table 2 plan, -seconds of data), and the\n"
                            "AstroAccelerate paper's low/mid/high scenarios' real-time factors\n"
                            "(docs/SINGLEPULSE.md); -nwidths, -repeat and -json apply"),
        XC_OPT_DOUBLE("seconds", &seconds, .arg = "S", .help = "-fused: seconds of data per channel count",
                      .def = "10"),
        XC_OPT_END,
    };
    int rc = xc_opts_parse(&spec, opts, argc, argv, NULL);
    if (rc != XC_OPTS_GO)
        return rc;
    if (fused) {
        if (!(seconds >= 1 && seconds <= 3600))
            return xc_cli_failf("bench singlepulse", "option -seconds: %g is outside [1, 3600]", seconds);
        return xc_bench_sp_fused_cmd("bench singlepulse", json_path, seconds, o.nwidths, o.repeat);
    }
    o.nout = (size_t)nout;
    if (!(o.sp = xc_spsearcher_of(xc_cli_impl("bench singlepulse", XC_FAMILY_SINGLEPULSE, impl))) ||
        !(o.dd = xc_dedisperser_of(xc_cli_impl("bench singlepulse", XC_FAMILY_DEDISPERSE, ddimpl))))
        return 2;
    xc_error err;
    xc_error_clear(&err);
    json_t *rec = NULL;
    xc_status st = xc_bench_sp_run(&o, &rec, &err);
    if (!st) {
        printf("bench singlepulse: %s on %lld trials x %lld samples, %d widths, %d threads: search %.3f s, "
               "dedispersion (%s) %.3f s, ratio %.3f\n", o.sp->impl.name,
               (long long)json_integer_value(json_object_get(rec, "trials")),
               (long long)json_integer_value(json_object_get(rec, "nout")), o.nwidths,
               (int)json_integer_value(json_object_get(rec, "threads")),
               json_real_value(json_object_get(rec, "seconds")), o.dd->impl.name,
               json_real_value(json_object_get(rec, "dedisperse_seconds")),
               json_real_value(json_object_get(rec, "ratio")));
        if (json_path)
            st = xc_cli_write_json(json_path, rec, JSON_INDENT(2), &err);
    }
    json_decref(rec);
    return st ? xc_cli_fail("bench singlepulse", &err) : 0;
}
