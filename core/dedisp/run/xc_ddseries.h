/* xc_ddseries.h: dedispersed trials as one time series file per trial, for
 * the tools that take one series at a time.
 *
 *   presto  BASE_DM<dm>.dat (float32) + BASE_DM<dm>.inf, named and laid out
 *           as PRESTO's prepsubband writes them ("%s_DM%.*f", -dmprec
 *           decimals, 2 by default); the .inf is filled from the filterbank
 *           header as PRESTO's spectra_info_to_inf does.  Padding to -numout
 *           samples is the trial's mean, and the .inf says so with breaks 1
 *           and the on/off pairs (0, ndata-1), (N-1, N-1), as prepsubband.
 *   tim     BASE_DM<dm>.tim: a SIGPROC time series, the filterbank's header
 *           with nchans 1, nifs 1, nbits 32, data_type 2, refdm = the trial's
 *           DM and tsamp times the range's downsample factor (sigpyproc3's
 *           Filterbank.dedisperse makes the same header), then float32 samples.
 *
 * Every file is written under a temporary name and renamed at commit, so a
 * failed run leaves none of them; the temporaries stay closed between
 * segments, so a plan of thousands of trials needs no more file handles. */
#ifndef XC_DDSERIES_H
#define XC_DDSERIES_H

#include <stddef.h>
#include <stdint.h>

#include "core/dedisp/plan/xc_dmplan.h"
#include "core/dedisp/run/xc_planefile.h"
#include "core/io/xc_filterbank.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum { XC_DDOUT_NPY = 0, XC_DDOUT_PRESTO = 1, XC_DDOUT_TIM = 2 } xc_ddformat;

typedef struct {
    xc_ddformat format;
    int dmprec;          /* decimals of the DM in the names (PRESTO -dmprec); 0 means 2 */
    uint64_t numout;     /* presto: samples per series at downsample 1 (a range with ds gets numout/ds),
                            padded with the mean or cut; 0: the dedispersed samples as they are */
} xc_ddseries_opts;

typedef struct xc_serieswriter xc_serieswriter;

/* The file name of trial DM dm: base_DM<dm><suffix>. */
void xc_ddseries_name(char *out, size_t n, const char *base, int dmprec, double dm, const char *suffix);

/* Opens one temporary per trial of the plan; range k holds nsamp[k] samples
 * per trial.  Two trials whose names would be the same are refused (raise
 * -dmprec), as is a header a series cannot come from. */
xc_status xc_serieswriter_open(xc_serieswriter **w, const char *base, const xc_ddseries_opts *o,
                               const xc_dmplan *plan, const size_t *nsamp, const xc_fbheader *h, xc_error *err);
/* Writes samples [t0, t0 + pr->nsamp) of every trial of range k; segments
 * must come in time order (each trial's mean is summed as they come). */
xc_status xc_serieswriter_put(xc_serieswriter *w, int k, size_t t0, const xc_planerange *pr, xc_error *err);
/* Pads, writes the .inf files (presto) and renames everything into place;
 * m gives the notes (implementation, convention, input). Frees w. */
xc_status xc_serieswriter_commit(xc_serieswriter *w, const xc_planemeta *m, xc_error *err);
void xc_serieswriter_abort(xc_serieswriter *w);

#ifdef __cplusplus
}
#endif
#endif
