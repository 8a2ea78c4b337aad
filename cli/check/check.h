/* check.h: what the files of `crosscheck check approximations` share
 * (cmd_check.c: options, sections 1-4, the report; cmd_check_accel.c:
 * section 5, the matched-filter accel search): the run's context and the
 * helpers that print a result and add it to the report and the JSON
 * (check.c). */
#ifndef XC_CMD_CHECK_H
#define XC_CMD_CHECK_H

#include <jansson.h>
#include <stdint.h>

#include "approx/xc_approx.h"
#include "approx/xc_approx_table.h"
#include "cli/base/cli_verdict.h"
#include "compare/check/xc_checks.h"
#include "core/search/xc_accel.h"
#include "core/search/xc_search.h"
#include "reports/xc_report.h"

/* Measurement k draws from seed + k * SEED_STRIDE (the false alarms from
 * consecutive seeds above theirs), so no two share a random stream. */
#define SEED_STRIDE 1000003ull
#define FA_NBINS 8192
#define KS_ALPHA 1e-3      /* family-wise false-alarm rate of the KS/GOF verdicts */
#define FA_ALPHA 1e-3      /* two-sided, per false-alarm count */

/* What the measurements share: the output, and the run's options. */
typedef struct {
    xc_vd vd;                  /* the verdicts and the report; the first report or memory failure */
    json_t *root;
    uint64_t seed;
    int nseeds, quick, threads, npsr, zmax, numharm;
    const xc_searcher *searcher;
    const xc_accel_searcher *accel, *accel_ref;   /* the default accel searcher and the reference */
} ctx;

/* check.c */
/* Sets o[k] = v when v is not NULL (v's reference is taken). */
void ck_jset(json_t *o, const char *k, json_t *v);
/* A new empty object, set as o[k]; returned borrowed (o holds it). */
json_t *ck_jpart(json_t *o, const char *k);
/* Prints rows and adds them to the report. */
void ck_rows(ctx *c, const xc_row *r, int n);
/* Verdicts into the check rows, the table, the report and the JSON. */
void ck_verdicts(ctx *c, const xc_verdict *v, int n);
/* A heading (and a text) on stdout and in the report. */
void ck_section(ctx *c, const char *title, const char *text);
void ck_plot(ctx *c, const char *title, const char *xl, const char *yl, const xc_series *s, size_t ns, int logx,
             int logy);

/* Section 5 (cmd_check_accel.c). */
xc_status ck_check_accel(ctx *c, xc_error *err);

#endif
