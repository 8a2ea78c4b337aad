/* cli_opts.h: the subcommands' option parser.  A command lists its options in
 * a table (the name without the dash, as PRESTO and SIGPROC spell it: "zmax",
 * "dm", "nbits"; what kind of value; where it goes; what it means and its
 * default) and xc_opts_parse runs getopt_long_only over the table, so every
 * command answers the same way:
 *
 *   -h, -help, --help      the command's help on stdout, exit 0: its usage
 *                          and description, then every option of the table
 *                          with its meaning and default (xc_opts_help)
 *   a bad value            "crosscheck <cmd>: option -nchans: 'x' is not an integer", exit 2
 *                          (the strict parsers of cli.h: xc_cli_int, xc_cli_double, xc_cli_u64)
 *   an unknown option or a missing value   xc_cli_badopt, exit 2
 *   a positional argument beyond those the command takes
 *                          "crosscheck <cmd>: unexpected argument 'x'", exit 2
 *
 * Values are applied as they are met, so the first bad one ends the parse.
 * Names may be abbreviated where that is unambiguous (getopt_long_only). */
#ifndef XC_CLI_OPTS_H
#define XC_CLI_OPTS_H

#include <stddef.h>

#include "cli/base/cli.h"
#include "core/base/xc_error.h"

typedef enum {
    XC_OPTK_END = 0,  /* ends a table */
    XC_OPTK_FLAG,     /* no value: stores lo into the int at dest */
    XC_OPTK_STR,      /* the value itself (const char *) */
    XC_OPTK_INT,      /* an int in [lo, hi] */
    XC_OPTK_DOUBLE,   /* a double */
    XC_OPTK_NONNEG,   /* a finite double >= 0 */
    XC_OPTK_U64,      /* an unsigned long long (no sign) */
    XC_OPTK_INTS,     /* a comma-separated list of ints in [lo, hi] (xc_cli_ints) */
    XC_OPTK_CHOICE,   /* one of the '|'-separated words of choices: its index (int) */
    XC_OPTK_CALL,     /* fn parses the value (lists, special checks); dest is fn's */
    XC_OPTK_TABLE,    /* dest is another table, whose options this one takes in */
    XC_OPTK_LATER     /* the same, applied only by xc_opts_parse_later */
} xc_optkind;

typedef struct xc_opt xc_opt;

/* For XC_OPTK_CALL: opt is the option as typed in messages ("-pulse"), val
 * its value.  Returns XC_OK, or fills err (naming opt and val). */
typedef xc_status (*xc_opt_fn)(const xc_opt *o, const char *opt, const char *val, xc_error *err);

struct xc_opt {
    const char *name;     /* without the dash */
    xc_optkind kind;
    void *dest;           /* FLAG, INT, CHOICE: int *; STR: const char **; DOUBLE, NONNEG: double *;
                             U64: unsigned long long *; INTS: xc_cli_ints *; TABLE, LATER: const xc_opt * */
    long lo, hi;          /* INT, INTS: the allowed range; FLAG: the value stored */
    const char *choices;  /* CHOICE: "lsb|msb" */
    xc_opt_fn fn;         /* CALL */
    int *given;           /* optional: set to 1 when the option is applied */
    const char *arg;      /* the value's name in the help ("FILE", "N"); NULL for a FLAG */
    const char *help;     /* what it does; '\n' starts another line of the help; NULL: not listed */
    const char *def;      /* the default, shown as " [def]" after the help; NULL: none said */
};

/* A list of ints (XC_OPTK_INTS): v has room for max; n is how many.  The
 * value replaces the list (so v may hold defaults). */
typedef struct {
    int *v;
    int n, max;
} xc_cli_ints;

/* Table entries; what follows the fixed arguments are more members, as the
 * help's: XC_OPT_STR("i", &in, .arg = "X.dat", .help = "input series").  An
 * entry with a `given` flag is written out:
 *   {.name = "lodm", .kind = XC_OPTK_DOUBLE, .dest = &lodm, .given = &tol_given, .arg = "DM", ...} */
#define XC_OPT_FLAG(n, p, ...)       {.name = (n), .kind = XC_OPTK_FLAG, .dest = (p), .lo = 1, __VA_ARGS__}
/* -quiet (what it silences: quiet_help) and -progress, the pair of every
 * command with a progress meter (cli/base/cli_meter.h: xc_progress_want). */
#define XC_OPT_METER(quiet, progress, quiet_help)                                                             \
    XC_OPT_FLAG("quiet", (quiet), .help = (quiet_help)),                                                     \
        XC_OPT_FLAG("progress", (progress),                                                                  \
                    .help = "progress lines in a log from the start (not only past 5 s; on a\n"               \
                            "terminal one line, redrawn, with the total and the time left)")
#define XC_OPT_SET(n, p, v, ...)     {.name = (n), .kind = XC_OPTK_FLAG, .dest = (p), .lo = (v), __VA_ARGS__}
#define XC_OPT_STR(n, p, ...)        {.name = (n), .kind = XC_OPTK_STR, .dest = (p), __VA_ARGS__}
#define XC_OPT_INT(n, p, l, h, ...)  {.name = (n), .kind = XC_OPTK_INT, .dest = (p), .lo = (l), .hi = (h), __VA_ARGS__}
#define XC_OPT_DOUBLE(n, p, ...)     {.name = (n), .kind = XC_OPTK_DOUBLE, .dest = (p), __VA_ARGS__}
#define XC_OPT_NONNEG(n, p, ...)     {.name = (n), .kind = XC_OPTK_NONNEG, .dest = (p), __VA_ARGS__}
#define XC_OPT_U64(n, p, ...)        {.name = (n), .kind = XC_OPTK_U64, .dest = (p), __VA_ARGS__}
#define XC_OPT_INTS(n, p, l, h, ...) {.name = (n), .kind = XC_OPTK_INTS, .dest = (p), .lo = (l), .hi = (h), __VA_ARGS__}
#define XC_OPT_CHOICE(n, p, c, ...)  {.name = (n), .kind = XC_OPTK_CHOICE, .dest = (p), .choices = (c), __VA_ARGS__}
#define XC_OPT_CALL(n, f, ctx, ...)  {.name = (n), .kind = XC_OPTK_CALL, .dest = (ctx), .fn = (f), __VA_ARGS__}
#define XC_OPT_TABLE(t)            {.name = "", .kind = XC_OPTK_TABLE, .dest = (void *)(t)}
#define XC_OPT_LATER(t)            {.name = "", .kind = XC_OPTK_LATER, .dest = (void *)(t)}
#define XC_OPT_END                 {.name = 0, .kind = XC_OPTK_END}

/* xc_opts_parse returns this when the command should go on. */
#define XC_OPTS_GO (-1)
/* max_args for a command that checks its positional arguments itself. */
#define XC_OPTS_ANY_ARGS (-1)

/* What the parser needs of a command besides its options.  Its help is the
 * usage line, the description, the options of the table and the closing
 * text, in that order (xc_opts_help).  A command fills the first three from
 * its descriptor: XC_CMD_SPEC(self, .max_args = XC_OPTS_ANY_ARGS). */
typedef struct {
    const char *cmd;       /* as messages name it: "crosscheck <cmd>: ..." */
    int max_args;          /* positional arguments allowed, or XC_OPTS_ANY_ARGS */
    const char *usage;     /* after "usage: crosscheck <cmd> "; NULL: "[options]" */
    const char *about;     /* the description, between the usage and the options; NULL: none */
    const char *after;     /* after the options (exit status, examples); NULL: none */
    void (*more)(void);    /* prints what the texts cannot hold (a list made at run time), after them */
} xc_optspec;

#define XC_CMD_SPEC(self, ...) {.cmd = (self)->name, .usage = (self)->usage, .about = (self)->about, __VA_ARGS__}

/* The command's help on stdout, from s and the table opts. */
void xc_opts_help(const xc_optspec *s, const xc_opt *opts);

/* Parses argv[1..argc-1] (argv[0] is the command's name) against the table
 * opts (ended by XC_OPT_END), applying every option but those of XC_OPT_LATER
 * tables, which it only recognises.  Returns XC_OPTS_GO with the positional
 * arguments at argv[*first..argc-1] (getopt moves them to the end; first may
 * be NULL), or the exit code the command returns: 0 after the help, 2 (or the
 * code of the error a callback set) after a message on stderr. */
int xc_opts_parse(const xc_optspec *s, const xc_opt *opts, int argc, char **argv, int *first);
/* For a command's run function whose options take no positional argument:
 * xc_opts_parse(s, opts, argc, argv, NULL), returning its exit code from the
 * function unless the command is to go on. */
#define XC_OPTS_PARSE_OR_RETURN(s, opts, argc, argv)                           \
    do {                                                                      \
        int xc_rc_ = xc_opts_parse((s), (opts), (argc), (argv), NULL);        \
        if (xc_rc_ != XC_OPTS_GO)                                             \
            return xc_rc_;                                                    \
    } while (0)

/* Applies the options of the XC_OPT_LATER tables, in command-line order,
 * after xc_opts_parse went through the same argv: for options that must
 * override values read from a file the first pass named (synth -spec).
 * Returns XC_OPTS_GO or the exit code, as xc_opts_parse. */
int xc_opts_parse_later(const xc_optspec *s, const xc_opt *opts, int argc, char **argv);

/* A default the help shows, made from the value itself (so the help cannot
 * drift from the code's defaults): v printed with the given decimals. */
typedef struct {
    double v;
    int decimals;
} xc_cli_defv;
#define XC_DEF_LEN 48
/* d[k] = v[k] formatted, for k < n. */
void xc_cli_defaults(char (*d)[XC_DEF_LEN], const xc_cli_defv *v, int n);

/* A command of commands (bench, check, gate): runs the one of subs[0..n)
 * whose name's last word argv[1] is, with argv from that word on.  -h, -help,
 * --help: the help on stdout (s's usage and about, then each sub's word and
 * what, then s's after), exit 0; no argument: the same help, exit 2; any other word:
 * "crosscheck <cmd>: unknown <noun> 'x' (there are: a, b)", exit 2. */
int xc_subcmd_run(const xc_optspec *s, const char *noun, const xc_cmd *subs, size_t n, int argc, char **argv);
/* Defines FN, the run function of a command of commands whose table SUBS (an
 * array in scope) lists them: xc_subcmd_run with the command's own usage and
 * about, NOUN naming a sub in messages. */
#define XC_SUBCMD_MAIN(FN, NOUN, SUBS) \
    int FN(const xc_cmd *self, int argc, char **argv) \
    { \
        const xc_optspec spec = XC_CMD_SPEC(self); \
        return xc_subcmd_run(&spec, NOUN, SUBS, sizeof SUBS / sizeof SUBS[0], argc, argv); \
    }

/* Which of the '|'-separated words of choices val is (0, 1, ...), or -1 with
 * err set to "<opt>: '<val>' is not a, b or c". */
int xc_cli_choice(const char *opt, const char *val, const char *choices, xc_error *err);

#endif
