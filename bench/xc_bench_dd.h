/* xc_bench_dd.h: the dedispersion benchmarks: the AstroAccelerate paper's
 * Table 2 plan, what a record is held against (bench_dd_measures.c), and
 * the approximate entries' speed-against-loss report (bench_ddcurve.c). */
#ifndef XC_BENCH_DD_H
#define XC_BENCH_DD_H

#include "bench/xc_bench.h"
#include "bench/xc_bench_peer.h"
#include "core/base/xc_impl.h"
#include "core/dedisp/xc_dedisperse.h"

#ifdef __cplusplus
extern "C" {
#endif

struct json_t;

/* The frequency-resolution test's DM plan (Novotny et al. 2023, section 5.2,
 * Table 2): 3050 trials. */
#define TABLE2_PLAN "0:150:0.1:1,150:300:0.2:1,300:500:0.25:1"

#define XC_BENCH_TABLE2_NDM 3050

#define XC_BENCH_DD_MAXL 16

/* bench dedisperse: each implementation on random data of every nbits x
 * nchans, the Table 2 plan on 64 us samples over 1250-1550 MHz (bench_dd.c). */
typedef struct {
    int quick;               /* max delay + 4096 samples, one run */
    int threads;             /* of the second run of a threaded entry (the first uses 1) */
    int repeat;              /* timed runs per record after a first, the best kept; stops once they have used 20 s */
    int ref_nout;            /* the reference's output samples (0: 2000, fewer where that passes ~4e9 adds) */
    double seconds;          /* of data */
    xc_ddopts opts;          /* the request (threads set per record) */
    xc_ddtune tune;          /* tiles */
    int nsub[XC_BENCH_DD_MAXL], nnsub;          /* approximate entries: at each subband count */
    double budget[XC_BENCH_DD_MAXL];            /* ... and each smear budget */
    int nbudget;
    int loss_every;          /* approximate entries' loss measure (xc_bench_dd_worst_loss); -1: by entry */
    int nbits[XC_BENCH_DD_MAXL], nnbits;
    int nchans[XC_BENCH_DD_MAXL], nnchans;
    const xc_dedisperser *impls[XC_BENCH_DD_MAXL];   /* available ones, in order */
    int nimpl;
    const char *command;     /* the command line, for the document */
} xc_bench_dd_opts;

/* Times every configuration; *doc gets the document ({"benchmark":
 * "dedisperse", "machine", ..., "definitions", "records"}), each record
 * going to row as it is made.  reg: for the direct entry an approximate
 * entry's loss is measured against.  On failure *doc is NULL. */
xc_status xc_bench_dd_run(const xc_registry *reg, const xc_bench_dd_opts *s, const xc_bench_machine *mc,
                          xc_bench_row_fn row, void *ctx, struct json_t **doc, xc_error *err);

/* bench dedisperse -peer (bench_dd_peer.c): each of s's implementations but
 * the reference, on 1 and s->threads threads, against each peer of ps
 * (PRESTO prepsubband, SIGPROC dedisperse) on the same filterbank of noise
 * (s->seconds, every nbits x nchans of s) and the trials of plan's one range,
 * in turn, file to files; records with the peer fields (xc_bench_peer.h).
 * *doc as xc_bench_dd_run's; NULL on failure. */
xc_status xc_bench_dd_peers_run(const xc_bench_dd_opts *s, const xc_bench_peers *ps, const xc_dmplan *plan,
                                xc_bench_row_fn row, void *ctx, struct json_t **doc, xc_error *err);

/* The pulse widths, in samples, the approximate entries' loss is measured at. */
#define XC_BENCH_DD_LOSS_NW 2
extern const int xc_bench_dd_loss_widths[XC_BENCH_DD_LOSS_NW];

/* The worst S/N loss of approximate dedisperser a against direct
 * dedispersion (reg's direct device entry for a device entry when every > 0,
 * else its default) on injected pulses of xc_bench_dd_loss_widths samples,
 * with the run's nsub and smear budget: every > 0, a pulse at every every-th
 * trial of the Table 2 plan; every 0, the quick measure.  by_width[w] gets
 * the worst at width w.  NAN (everywhere) when it cannot be measured. */
double xc_bench_dd_worst_loss(const xc_registry *reg, const xc_dedisperser *a, const xc_geometry *g,
                              const xc_convention *cv, const xc_ddopts *run, int every, double *by_width);
/* Adds the machine's limits for this record to rec: peak integer adds/s at
 * the record's threads and SIMD lanes, the compulsory-traffic memory bound
 * (input read once, float plane written once), the no-reuse bound and, with
 * the record's CPU seconds (cpu > 0), its adds per CPU second over one core's peak. */
void xc_bench_dd_limits(struct json_t *rec, const xc_bench_machine *mc, int nbits, int threads, double adds,
                        double cpu, const xc_ddjob *job);

/* bench dedisperse -report DIR: the approximate entries' speed against their
 * worst S/N loss, with the subband/tree goals drawn as points. */
xc_status xc_bench_dd_curve_report(const struct json_t *records, const char *dir, xc_error *err);

#ifdef __cplusplus
}
#endif

#endif
