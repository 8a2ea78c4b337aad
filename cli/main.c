/* crosscheck: one program, one subcommand per step of the pipeline. */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"

static const struct {
    const char *name;
    xc_cmd_fn fn;
    const char *what;
} commands[] = {
    {"list", xc_cmd_list, "list every registered implementation and whether it is available"},
    {"synth", xc_cmd_synth, "write a synthetic filterbank (noise, pulsar, dispersed pulses) + truth JSON"},
    {"population", xc_cmd_population, "draw N synthetic pulsars from a spec (Pulscan Table 1) + manifest.csv"},
    {"plan", xc_cmd_plan, "print a DM plan (ranges or dedisp tolerance list) as a table or JSON"},
    {"fft", xc_cmd_fft, "forward real FFT of a PRESTO .dat into a PRESTO .fft (realfft layout)"},
    {"pulscan", xc_cmd_pulscan, "Pulscan boxcar acceleration search of a PRESTO .fft -> candidates (CSV)"},
    {"accel", xc_cmd_accel, "matched-filter accel/jerk search (PRESTO accelsearch-compatible) -> CSV or _ACCEL_"},
    {"dedisperse", xc_cmd_dedisperse, "dedisperse a filterbank into DM-time planes (.json + .npy)"},
    {"run", xc_cmd_run, "the default cross-check: every implementation, verdict table, report"},
    {"compare", xc_cmd_compare, "compare DM-time planes (exact or float bound) or candidate lists (also vs truth)"},
    {"bench", xc_cmd_bench, "benchmarks: dedisperse, pulscan, synth, gpu (JSON records)"},
    {"check", xc_cmd_check, "measure the Pulscan GPU approximations and noise statistics (check approximations)"},
};

static void usage(FILE *fp)
{
    fprintf(fp, "usage: crosscheck <command> [options]   (crosscheck <command> -h for its options)\n\n"
                "crosscheck checks that fast pulsar/FRB search kernels compute what exact references compute.\n\n"
                "commands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(fp, "  %-12s %s\n", commands[i].name, commands[i].what);
}

int main(int argc, char **argv)
{
    xc_cli_set_cmdline(argc, argv);
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "help")) {
        usage(stdout);
        return 0;
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (!strcmp(argv[1], commands[i].name)) {
            xc_cli_getopt_reset();
            return commands[i].fn(argc - 1, argv + 1);
        }
    fprintf(stderr, "crosscheck: unknown command '%s'\n", argv[1]);
    usage(stderr);
    return 2;
}
