/* bench_util.h: what the `crosscheck bench` commands share on top of the
 * benchmark library (bench/xc_bench.h): option checks and output. */
#ifndef XC_CLI_BENCH_UTIL_H
#define XC_CLI_BENCH_UTIL_H

#include "bench/xc_bench.h"
#include "bench/xc_bench_peer.h"
#include "cli/base/cli_opts.h"

struct json_t;

/* 0 when every value of an -nbits list is a dedispersion input width (1, 2,
 * 4, 8, 16); else 2 after saying which is not. */
int xc_bench_check_nbits(const char *cmd, const int *nbits, int n);

/* Writes root to path (indented, 10 significant digits) and says so: 0, or the
 * exit status after the error. */
int xc_bench_write_json(const char *cmd, const char *path, const struct json_t *root);
/* The exit status of a GPU benchmark in a build without CUDA, after saying so. */
int xc_bench_no_cuda(const char *cmd);
/* bench singlepulse -fused (cmd_bench_sp_fused.c): the fused GPU pipeline
 * over channel counts and bits (seconds of data each) and the
 * AstroAccelerate paper's three scenarios; the document to json (may be
 * NULL).  The exit status. */
int xc_bench_sp_fused_cmd(const char *cmd, const char *json, double seconds, int nwidths, int reps, int only_nchans,
                          int only_nbits);


/* The -peer options the benchmarks share: -peer PATH (repeatable),
 * -peer_kind NAME, -peer_dir DIR, -peer_timeout S. */
typedef struct {
    const char *path[XC_BENCH_MAX_PEERS];
    int n;
    const char *kind, *dir;
    double timeout;            /* seconds one peer run may take; 0: no limit (xc_cli_peeropts sets the default) */
    xc_bench_peer peer[XC_BENCH_MAX_PEERS];
    char tmp[4200];            /* the temporary work folder made when no -peer_dir was given */
} xc_cli_peers;
/* The table of those options into t, for XC_OPT_TABLE; what names the
 * input each peer kind gets from this benchmark. */
#define XC_CLI_PEEROPTS 5
void xc_cli_peeropts(xc_opt t[XC_CLI_PEEROPTS], xc_cli_peers *p, const char *what);
/* After parsing: each -peer checked and recognised (its kind one of want,
 * a set of XC_PEER_BIT(kind)), and the work folder made (-peer_dir, or a
 * temporary one).  0, or the exit status after the error. */
#define XC_PEER_BIT(k) (1u << (unsigned)(k))
int xc_cli_peers_ready(const char *cmd, xc_cli_peers *p, unsigned want);
/* -peer_cmd TEMPLATE: p's one peer, the command (its text the peer's
 * path, run by /bin/sh -c once filled), and the work folder made.  0 (also
 * without a template, when -peer_dir was not given alone), or the exit
 * status after the error. */
int xc_cli_peers_cmd(const char *cmd, xc_cli_peers *p, const char *tmpl);
/* The peers as the benchmarks take them, runs interleaved pairs each. */
xc_bench_peers xc_cli_peers_of(const xc_cli_peers *p, int runs);
/* A record's comparison with its peer, one line (nothing without one). */
void xc_cli_print_peer(const struct json_t *r);
/* Removes the temporary work folder (none with -peer_dir). */
void xc_cli_peers_done(xc_cli_peers *p);
/* The exit status after err, said with a note when the temporary work folder
 * (and so the log err names) is removed; removes it. */
int xc_cli_peers_fail(const char *cmd, xc_cli_peers *p, xc_error *err);

#endif
