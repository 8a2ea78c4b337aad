/* xc_bench_peer.h: the field's programs timed in the same run as ours.  A
 * benchmark writes the input a peer reads (PRESTO accelsearch and Pulscan
 * read a .fft and its .inf; SIGPROC fake takes options for the same file
 * geometry), then runs ours and the peer in turn (ours, peer, ours, peer,
 * ...), each peer run a child process whose CPU time (user + system) comes
 * from wait4, ours from getrusage; medians of both.  Nothing here prints. */
#ifndef XC_BENCH_PEER_H
#define XC_BENCH_PEER_H

#include "bench/xc_bench.h"

#ifdef __cplusplus
extern "C" {
#endif

struct json_t;

/* The most -peer programs one benchmark takes. */
#define XC_BENCH_MAX_PEERS 8

/* XC_PEER_CMD: a command line of the user's (-peer_cmd), run by sh -c. */
typedef enum {
    XC_PEER_ACCELSEARCH = 0,
    XC_PEER_PULSCAN,
    XC_PEER_FAKE,
    XC_PEER_PREPSUBBAND,
    XC_PEER_DEDISPERSE,
    XC_PEER_CMD,
    XC_PEER_NKINDS
} xc_bench_peer_kind;

/* "accelsearch", "pulscan", "fake", "prepsubband", "dedisperse", "cmd". */
const char *xc_bench_peer_kind_name(xc_bench_peer_kind k);
/* The kind of the program at path: kind_name when not NULL (one of the
 * names above), else the program's own name (its file name).  XC_EINVAL
 * naming the program, or the kind, when neither says one. */
xc_status xc_bench_peer_kind_of(const char *path, const char *kind_name, xc_bench_peer_kind *k, xc_error *err);

/* A peer as the benchmarks take it. */
typedef struct {
    const char *path;          /* the program, as given */
    char exe[4096];            /* the same, absolute (peers run in their work folder) */
    xc_bench_peer_kind kind;
    char commit[128];          /* the first line of a file COMMIT beside the program (the
                                  scripts/peers/ build scripts write one) or in the folder
                                  above it (examples/peers/: DEST/COMMIT, DEST/bin/...), "" when none */
} xc_bench_peer;

/* Fills p (path, its kind, its COMMIT line); XC_EINVAL as xc_bench_peer_kind_of,
 * or naming the path when it is not an executable file. */
xc_status xc_bench_peer_init(xc_bench_peer *p, const char *path, const char *kind_name, xc_error *err);

/* The time limit of one peer run when none is given: generous, so that only
 * a peer that hangs meets it. */
#define XC_BENCH_PEER_TIMEOUT 3600.0

/* Where peers run: dir holds their input, output and logs; runs is the
 * number of interleaved pairs, each side's median kept; timeout the seconds
 * one run of a peer may take (0: no limit). */
typedef struct {
    const xc_bench_peer *peers;
    int npeers;
    const char *dir;
    int runs;
    double timeout;
} xc_bench_peers;

/* One peer run: argv (argv[0] the program, NULL-ended) in folder dir, stdin
 * from /dev/null, stdout to out (NULL: the log), stderr to the log; after it,
 * the file expect (a path) must exist and not be empty.  With nsteps > 0 the
 * run is steps[0..nsteps) one after the other instead (a program that takes
 * one DM trial a call), its times the sums.  Each program runs in its own
 * process group; one still running timeout seconds (> 0) after the run began
 * is killed with its group. */
typedef struct {
    char *const *argv;
    const char *dir, *out, *log, *expect;
    double timeout;
    char *const *const *steps;
    int nsteps;
} xc_bench_peer_cmd;

/* One side of a comparison: medians over the runs of wall-clock and CPU
 * (user + system) seconds. */
typedef struct {
    double seconds, cpu_seconds;
    int runs;
} xc_bench_side;

/* Runs c once: *wall and *cpu get its wall-clock and CPU seconds.  XC_EIO
 * naming the program, its exit status (or signal) and the log's last line
 * when it fails, or the time limit when it was killed for overrunning it, or
 * the file it should have written when that is missing or empty. */
xc_status xc_bench_peer_spawn(const xc_bench_peer_cmd *c, double *wall, double *cpu, xc_error *err);

/* ours(ctx) and the peer command c, in turn, runs times each (at least
 * once); after(ctx) (may be NULL) after each of ours, and the peer's expect
 * file removed after each of its runs, untimed.  Medians into *us and *them. */
xc_status xc_bench_vs_peer(xc_bench_fn ours, void (*after)(void *ctx), void *ctx, const xc_bench_peer_cmd *c,
                           int runs, xc_bench_side *us, xc_bench_side *them, xc_error *err);
/* The same for peer k of ps run as argv in ps->dir, its log there as
 * <kind>-<k>.log, its stdout to out (NULL: the log), expect as above, within
 * ps->timeout. */
xc_status xc_bench_peer_turns(const xc_bench_peers *ps, int k, char *const *argv, const char *out,
                              const char *expect, xc_bench_fn ours, void (*after)(void *ctx), void *ctx,
                              xc_bench_side *us, xc_bench_side *them, xc_error *err);
/* The same with the peer's run as the steps of c (its log, dir and timeout
 * set here as above). */
xc_status xc_bench_peer_turns_cmd(const xc_bench_peers *ps, int k, xc_bench_peer_cmd c, xc_bench_fn ours,
                                  void (*after)(void *ctx), void *ctx, xc_bench_side *us, xc_bench_side *them,
                                  xc_error *err);

/* Sets a record's comparison fields: seconds and cpu_seconds (ours'
 * medians), peer (its path), peer_kind, peer_commit (when known),
 * peer_seconds, peer_cpu_seconds, ratio (peer_seconds / seconds), cpu_ratio,
 * peer_threads, runs and timing (how they were measured). */
void xc_bench_peer_fields(struct json_t *rec, const xc_bench_peer *p, const xc_bench_side *us,
                          const xc_bench_side *them, int peer_threads);

/* Writes sp as dir/bench.fft and dir/bench.inf (PRESTO's layout, what
 * accelsearch and Pulscan read); fft[0..n) gets the .fft's path. */
xc_status xc_bench_peer_spectrum(const xc_spectrum *sp, const char *dir, char *fft, size_t n, xc_error *err);

/* Writes fil: nsamp spectra of the synthesizer's noise (seed 1), nchans
 * channels of nbits over 1250-1550 MHz (foff = -300/nchans, fch1 = 1550 +
 * foff/2), tsamp seconds, made on threads threads: the filterbank a
 * dedispersion or single-pulse peer reads. */
xc_status xc_bench_peer_filterbank(const char *fil, int nbits, int nchans, double tsamp, size_t nsamp, int threads,
                                   xc_error *err);

#ifdef __cplusplus
}
#endif

#endif
