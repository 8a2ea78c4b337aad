/* cli_search.h: what the two spectrum searches, `crosscheck pulscan` and
 * `crosscheck accel`, share: the input argument, the output name's root, a
 * bin-count option, and the load - search - write - summary sequence. */
#ifndef XC_CLI_SEARCH_H
#define XC_CLI_SEARCH_H

#include "cli/base/cli.h"
#include "cli/base/cli_opts.h"
#include "core/search/xc_cands.h"
#include "core/base/xc_error.h"
#include "core/search/xc_psearch.h"
#include "core/search/xc_search.h"

/* XC_OPTK_CALL parser: a count of bins in o->lo..2^o->hi (o->hi is the
 * exponent) into the size_t at o->dest. */
xc_status xc_cli_opt_bins(const xc_opt *o, const char *opt, const char *val, xc_error *err);

/* The end of a search command's option table: -quiet (no summary, no
 * meter) and -progress, then XC_OPT_END. */
#define XC_CLI_SEARCH_OPTS_END(quiet, progress)                                                                     \
    XC_OPT_METER((quiet), (progress), "no summary on stdout and no progress meter"), XC_OPT_END

/* xc_opts_parse of self's options (any number of arguments), then the
 * input spectrum: *input as -i gave it, or the only positional argument.
 * XC_OPTS_GO with *input set, or the exit code. */
int xc_cli_search_parse(const xc_cmd *self, const xc_opt *opts, int argc, char **argv, const char **input);

/* The length of input without a trailing ".fft": the root of default names. */
int xc_cli_fft_root(const char *input);

/* One search of one spectrum, for xc_cli_search_run. */
typedef struct xc_cli_search xc_cli_search;
struct xc_cli_search {
    const char *cmd;    /* in messages: "crosscheck <cmd>: ..." */
    const char *input;  /* X.fft (X.inf beside it) */
    const char *out;    /* the output file (or root) */
    int format;         /* the command's -format choice */
    int quiet;          /* no summary */
    int want;           /* the progress meter: XC_PROGRESS_AUTO, _QUIET or _FORCE (cli/cli_meter.h) */
    const void *impl;   /* the command's searcher and options, for the three below */
    const void *opts;
    xc_status (*search)(const xc_cli_search *s, const xc_spectrum *sp, xc_candlist *cl, xc_progress_cb cb,
                        xc_error *err);
    xc_status (*write)(const xc_cli_search *s, const xc_spectrum *sp, xc_candlist *cl, xc_error *err);
    /* prints the summary on stdout; secs is the time search took */
    void (*summary)(const xc_cli_search *s, const xc_spectrum *sp, const xc_candlist *cl, double secs);
};

/* Loads s->input, searches it (with a progress meter on stderr, as s->want
 * says), writes the candidates and prints the summary (unless quiet).
 * Returns the exit code: 0, or 2 after a message. */
int xc_cli_search_run(const xc_cli_search *s);
/* One search of sp by impl (a Pulscan or accel implementation) at o through
 * the search contract (core/search/xc_psearch.h), its progress to cb. */
xc_status xc_cli_search_once(const xc_impl *impl, const xc_spectrum *sp, const xc_psearch_opts *o, xc_progress_cb cb,
                             xc_candlist *cl, xc_error *err);

#endif
