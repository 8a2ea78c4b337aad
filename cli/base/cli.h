/* cli.h: helpers shared by the `crosscheck` subcommands.  Only cli/ parses
 * arguments or prints to stdout. */
#ifndef XC_CLI_H
#define XC_CLI_H

#include <stddef.h>

#include "core/base/xc_error.h"
#include "core/base/xc_impl.h"

/* A command: what it is (its name, its line in the list of commands, its
 * usage and description, printed by its -h) and the function that runs it.
 * Each command is described once, in the table that lists it: the top-level
 * commands in cli/cli_commands.c, those of bench, check and gate beside their
 * dispatchers. */
typedef struct xc_cmd xc_cmd;
struct xc_cmd {
    const char *name;    /* as messages name it: "fft", "bench pulscan" (its last word is what is typed) */
    int (*run)(const xc_cmd *self, int argc, char **argv);   /* argv[0] is that word; returns the exit code */
    const char *what;    /* its line in the list of commands; '\n' starts another */
    const char *usage;   /* after "usage: crosscheck <name> "; NULL: "[options]" */
    const char *about;   /* the description, between the usage and the options; NULL: none */
};

/* The top-level commands, in the order crosscheck -h lists them (cli/cli_commands.c). */
extern const xc_cmd xc_commands[];
extern const size_t xc_ncommands;

/* The full command line of this process (set by main), for output metadata. */
const char *xc_cli_cmdline(void);
void xc_cli_set_cmdline(int argc, char **argv);

/* Prints "crosscheck <cmd>: <message>" on stderr and returns the exit code (2). */
int xc_cli_fail(const char *cmd, const xc_error *err);
/* Prints "crosscheck <cmd>: <printf message>" on stderr and returns 2. */
int xc_cli_failf(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* 0 when the file path can be written (created, or opened for writing if it
 * exists; nothing is truncated and a file made to try is removed), so that an
 * output given by option opt fails before the work starts; else the message
 * and 2. */
int xc_cli_writable(const char *cmd, const char *opt, const char *path);

/* Strict number parsing: the whole string must be a number.  On failure they
 * fill err naming the option and the value and return XC_EINVAL. */
xc_status xc_cli_double(const char *opt, const char *val, double *out, xc_error *err);
xc_status xc_cli_int(const char *opt, const char *val, long lo, long hi, int *out, xc_error *err);
xc_status xc_cli_u64(const char *opt, const char *val, unsigned long long *out, xc_error *err);

/* -maxloss L (dest: double): the largest declared S/N-loss bound accepted
 * from an approximate dedisperser, a fraction in (0, 1] (core/dedisp/approx/xc_ddloss.h). */
struct xc_opt;
xc_status xc_cli_opt_maxloss(const struct xc_opt *o, const char *opt, const char *val, xc_error *err);

/* Writes root to path atomically (temp file + rename) as json_dumpf(root, fp,
 * flags) followed by a newline; flags are jansson's, e.g. JSON_INDENT(2) |
 * JSON_REAL_PRECISION(10).  On failure nothing is left at path and err names
 * the file. */
struct json_t;
xc_status xc_cli_write_json(const char *path, const struct json_t *root, size_t flags, xc_error *err);

/* Resets getopt so each subcommand can parse its own argv. */
void xc_cli_getopt_reset(void);
/* For an unknown option or missing value (getopt returned '?' or ':'). */
int xc_cli_badopt(const char *cmd, int argc, char **argv);

/* The registry of this process: the built-in implementations, and whatever
 * is added at run time. */
xc_registry *xc_cli_registry(void);
/* The default implementation, chosen by capability: the first available one
 * that is threaded and neither on a device, approximate nor added at run time
 * (the tiled CPU code in the built-in table). */
#define XC_CLI_DEFAULT_WANT XC_CAP_THREADED
#define XC_CLI_DEFAULT_AVOID (XC_CAP_DEVICE | XC_CAP_APPROXIMATE | XC_CAP_RUNTIME)
/* The implementation of family f a person named with -impl, or the default
 * for name NULL.  NULL after printing why (not registered, or unavailable:
 * the reason); the caller returns 2. */
const xc_impl *xc_cli_impl(const char *cmd, xc_family f, const char *name);

/* Subcommands. */
int xc_cmd_list(const xc_cmd *self, int argc, char **argv);
int xc_cmd_synth(const xc_cmd *self, int argc, char **argv);
int xc_cmd_population(const xc_cmd *self, int argc, char **argv);
int xc_cmd_study(const xc_cmd *self, int argc, char **argv);
int xc_bench_singlepulse(const xc_cmd *self, int argc, char **argv); /* `bench singlepulse`, cli/bench/cmd_bench_sp.c */
int xc_bench_synth(const xc_cmd *self, int argc, char **argv);       /* `bench synth`, cli/bench/cmd_bench_synth.c */
int xc_bench_study(const xc_cmd *self, int argc, char **argv);       /* `bench study`, cli/bench/cmd_bench_study.c */
int xc_cmd_plan(const xc_cmd *self, int argc, char **argv);
int xc_cmd_header(const xc_cmd *self, int argc, char **argv);   /* cli/tools/cmd_header.c */
int xc_cmd_plan_ddplan(int argc, char **argv); /* `plan -ddplan`, cli/tools/cmd_plan_ddplan.c */
int xc_cmd_dedisperse(const xc_cmd *self, int argc, char **argv);
int xc_cmd_singlepulse(const xc_cmd *self, int argc, char **argv);
int xc_cmd_run(const xc_cmd *self, int argc, char **argv);
int xc_cmd_compare(const xc_cmd *self, int argc, char **argv);
int xc_cmd_compare_cands(int argc, char **argv);   /* `compare cands`, cli/tools/cmd_cmpcands.c */
int xc_cmd_fft(const xc_cmd *self, int argc, char **argv);
int xc_cmd_pulscan(const xc_cmd *self, int argc, char **argv);
int xc_cmd_accel(const xc_cmd *self, int argc, char **argv);   /* cli/tools/cmd_accel.c */
int xc_bench_accel(const xc_cmd *self, int argc, char **argv);  /* `bench accel`, cli/bench/cmd_bench_accel.c */
/* `crosscheck bench pulscan` (cli/bench/cmd_bench_pulscan.c), reached through xc_cmd_bench. */
int xc_bench_pulscan(const xc_cmd *self, int argc, char **argv);
/* `crosscheck bench gpu` (cli/bench/cmd_bench_gpu.c): GPU dedispersion throughput. */
int xc_bench_gpu(const xc_cmd *self, int argc, char **argv);
/* `crosscheck bench gpu-pulscan` (cli/bench/cmd_bench_gpu_pulscan.c): GPU Pulscan stage times (Table 4). */
int xc_bench_gpu_pulscan(const xc_cmd *self, int argc, char **argv);
int xc_cmd_bench(const xc_cmd *self, int argc, char **argv);
int xc_cmd_check(const xc_cmd *self, int argc, char **argv);   /* `check approximations`, cli/check/cmd_check.c */
int xc_cmd_gate(const xc_cmd *self, int argc, char **argv);    /* `gate dedisperse`, `gate search`: cli/cmd_gate*.c */
int xc_cmd_check_smearing(const xc_cmd *self, int argc, char **argv);   /* `check smearing`, cli/check/cmd_check_smearing.c */

#endif
