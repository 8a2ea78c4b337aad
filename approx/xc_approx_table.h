/* xc_approx_table.h: the table `crosscheck check approximations` prints from
 * the measurements of xc_approx.h: rows of numbers (a key and its values as
 * text) and the pass/fail checks (what each one tests, its bound, and the
 * measured value and bound as text for the table, the report and the JSON).
 * The tests themselves are xc_stats.h's.  Nothing here prints. */
#ifndef XC_APPROX_TABLE_H
#define XC_APPROX_TABLE_H

#include "approx/xc_approx.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- rows (approx/approx_rows.c) ------------------------------------------ */

typedef struct {
    char key[256];
    char value[512];
} xc_row;

/* One block size of measurement 1: the location bias, the locations' spread,
 * both scales and their ratio.  Returns the rows written (5). */
int xc_mom_blocks_rows(const xc_mom_blocks *b, xc_row out[5]);
/* The normalised powers: the mean under each estimator (against
 * xc_approx_mean_power_pred of `blocks`), the tail fractions, the KS
 * distances.  Returns the rows written (3 + XC_APPROX_NTHR). */
int xc_mom_powers_rows(const xc_mom_powers *p, const xc_mom_blocks *blocks, xc_row out[3 + XC_APPROX_NTHR]);
/* Measurement 2: the grid's largest errors and valid ranges, then one row per
 * curve.  Returns the rows written (5 + XC_APPROX_NDOFCURVE). */
int xc_logp_rows(const xc_logp_check *l, xc_row out[5 + XC_APPROX_NDOFCURVE]);
/* Measurement 3: one row per mode, keys starting with `scenario`. */
void xc_zloss_rows(const xc_zloss_result *r, const char *scenario, xc_row out[XC_APPROX_NMODES]);
/* The report's paragraph on measurement 3 as run: n pulsars, per_seed drawn
 * from each seed with f uniform in [f_lo, f_hi] Hz and design sigma uniform in
 * [s_lo, s_hi] (xc_zloss_draw), searched by the searcher named `searcher`. */
void xc_zloss_describe(const xc_zloss_opts *o, size_t n, int per_seed, double f_lo, double f_hi, double s_lo,
                       double s_hi, const char *searcher, char *buf, size_t len);
/* Measurement 4: one boxcar test of seed number seed_index; one false-alarm threshold. */
void xc_noise_ks_row(const xc_noise_ks *k, int seed_index, xc_row *out);
void xc_noise_fa_row(const xc_noise_fa *f, xc_row *out);

/* ---- verdicts (approx/approx_verdict.c) ----------------------------------- */

/* Standard errors a mean may stray from its expected value before a check fails. */
#define XC_APPROX_NSE 4.5

typedef struct {
    char impl[64];         /* what is checked: "median of medians", "cpu", ... */
    char check[160];
    char measured[512];
    char bound[512];
    int pass;
} xc_verdict;

/* One block size of measurement 1: the median of medians' location is
 * unbiased (within 4.5 SE of 0), the exact MAD is within 4.5 SE of its
 * finite-n expectation 1 - 0.8/n (Croux & Rousseeuw 1992), and, when b has a
 * prediction, the median of medians' scale is within 4.5 SE + 4/n of it.
 * Returns the number written to out (2 or 3). */
int xc_mom_blocks_verdicts(const xc_mom_blocks *b, xc_verdict out[3]);

/* The mean normalised power under each estimator (exact, then median of
 * medians) within 4.5 combined SE of xc_approx_mean_power_pred of `blocks`
 * (the powers' SE and 4 x the scale's, dE[P]/dE[s] = -4). */
void xc_mom_powers_verdicts(const xc_mom_powers *p, const xc_mom_blocks *blocks, xc_verdict out[2]);

/* The ntests boxcar tests of measurement 4 (ntests / per_seed seeds of
 * per_seed tests each): every KS and Pearson p-value above alpha / (2 ntests)
 * (Bonferroni over both tests of each). */
void xc_noise_ks_verdict(const xc_noise_ks *ks, int ntests, int per_seed, double alpha, xc_verdict *out);

/* One threshold of the false alarms, searched by `impl`: for zmax 0 (every
 * bin an independent trial) the spectra above it lie within [lo, hi]; for
 * zmax > 0 (overlapping boxcars, for which Bonferroni is only an upper bound)
 * they are at most hi. */
void xc_noise_fa_verdict(const xc_noise_fa *f, const char *impl, xc_verdict *out);

#ifdef __cplusplus
}
#endif
#endif
