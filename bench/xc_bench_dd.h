/* xc_bench_dd.h: the dedispersion benchmarks: the AstroAccelerate paper's
 * Table 2 plan, what a record is held against (bench_dd_measures.c), and
 * the approximate entries' speed-against-loss report (bench_ddcurve.c). */
#ifndef XC_BENCH_DD_H
#define XC_BENCH_DD_H

#include "bench/xc_bench.h"
#include "core/base/xc_impl.h"
#include "core/dedisp/xc_dedisperse.h"

#ifdef __cplusplus
extern "C" {
#endif

struct json_t;

/* The frequency-resolution test's DM plan (Novotny et al. 2023, section 5.2,
 * Table 2): 3050 trials. */
#define TABLE2_PLAN "0:150:0.1:1,150:300:0.2:1,300:500:0.25:1"

/* bench dedisperse -report DIR: the approximate entries' speed against their
 * worst S/N loss, with the subband/tree goals drawn as points. */
xc_status xc_bench_dd_curve_report(const struct json_t *records, const char *dir, xc_error *err);

#ifdef __cplusplus
}
#endif

#endif
