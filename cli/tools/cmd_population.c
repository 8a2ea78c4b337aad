/* crosscheck population: N synthetic pulsars drawn from a spec, with a manifest. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/base/cli.h"
#include "cli/base/cli_meter.h"
#include "cli/base/cli_opts.h"
#include "synth/population/xc_population.h"
#include "core/base/xc_progress.h"

int xc_cmd_population(const xc_cmd *self, int argc, char **argv)
{
    const xc_optspec ospec = XC_CMD_SPEC(self);
    const char *spec = NULL, *out = NULL;
    unsigned long long n = 0, seed = 1, first = 0;
    int have_n = 0, quiet = 0, progress = 0;
    xc_popopts o;
    memset(&o, 0, sizeof o);
    const xc_opt opts[] = {
        XC_OPT_STR("spec", &spec, .arg = "FILE.json",
                   .help = "the population spec (required): {\"fixed\": {synth fields},\n"
                           "\"draw\": {FIELD: {\"dist\": \"uniform\"|\"loguniform\", \"lo\": A, \"hi\": B}}}"),
        {.name = "n", .kind = XC_OPTK_U64, .dest = &n, .given = &have_n, .arg = "N",
         .help = "number of pulsars (required)"},
        XC_OPT_STR("out", &out, .arg = "DIR", .help = "output directory, created if missing (required)"),
        XC_OPT_U64("seed", &seed, .arg = "S",
                   .help = "population seed, 0..2^64-1; pulsar i's draws and noise seed come\n"
                           "from (S, i) alone, so they do not depend on N", .def = "1"),
        XC_OPT_U64("first", &first, .arg = "K",
                   .help = "id of the first pulsar: -first 100 -n 100 makes pulsars 100..199", .def = "0"),
        XC_OPT_FLAG("dedispersed", &o.dedispersed,
                    .help = "write the dedispersed .dat/.inf fast path instead of filterbanks"),
        XC_OPT_INT("threads", &o.nthreads, 0, 4096, .arg = "N",
                   .help = "OpenMP threads per pulsar (0: the OpenMP default)", .def = "0"),
        XC_OPT_METER(&quiet, &progress, "no progress meter and no summary line"),
        XC_OPT_END,
    };
    int rc = xc_opts_parse(&ospec, opts, argc, argv, NULL);
    if (rc != XC_OPTS_GO)
        return rc;
    if (!spec || !out || !have_n)
        return xc_cli_failf("population", "-spec FILE.json, -n N and -out DIR are required (see crosscheck "
                            "population -h)");
    if (n < 1)
        return xc_cli_failf("population", "-n: %llu pulsars: must be at least 1", n);
    xc_error err;
    xc_error_clear(&err);
    xc_popspec s;
    if (xc_popspec_load(&s, spec, &err))
        return xc_cli_fail("population", &err);
    o.first = first;
    xc_progress prog;
    xc_progress_start(&prog, "population", n, xc_progress_want(quiet, progress));
    prog.unit = "pulsars";
    o.progress = xc_progress_step;
    o.progress_ctx = &prog;
    xc_status st = xc_population_run(&s, n, seed, out, &o, &err);
    xc_popspec_free(&s);
    if (st) {
        if (prog.enabled)
            fputc('\n', stderr);
        return xc_cli_fail("population", &err);
    }
    xc_progress_end(&prog);
    if (!quiet)
        printf("%s/manifest.csv: %llu pulsars (%llu made, %llu already complete), seed %llu\n", out, n,
               (unsigned long long)o.made, (unsigned long long)o.skipped, seed);
    return 0;
}
