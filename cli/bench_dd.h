/* bench_dd.h: what the dedispersion benchmarks (cmd_bench.c: bench
 * dedisperse; cmd_bench_gpu.c: bench gpu) share: the AstroAccelerate paper's
 * Table 2 plan, and what a record is held against (bench_dd_measures.c). */
#ifndef XC_CLI_BENCH_DD_H
#define XC_CLI_BENCH_DD_H

#include "bench/xc_bench_dd.h"
#include "cli/bench_util.h"
#include "core/dedisp/xc_dedisperse.h"

/* The worst S/N loss of approximate dedisperser a against direct
 * dedispersion on injected pulses of 1 and 4 samples, with the run's nsub
 * and smear budget: every > 0, a pulse at every every-th trial of the Table 2
 * plan (direct on the device for a device entry); every 0, the quick
 * measure.  NAN when it cannot be measured. */
double xc_bench_dd_worst_loss(const xc_dedisperser *a, const xc_geometry *g, const xc_convention *cv,
                              const xc_ddopts *run, int every);
/* Adds the machine's limits for this record to rec: peak integer adds/s at
 * the record's threads and SIMD lanes, the compulsory-traffic memory bound
 * (input read once, float plane written once) and the no-reuse bound. */
void xc_bench_dd_limits(struct json_t *rec, const xc_bench_machine *mc, int nbits, int threads, double adds,
                        const xc_ddjob *job);

#endif
