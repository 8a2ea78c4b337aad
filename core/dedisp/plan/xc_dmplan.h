/* xc_dmplan.h: dispersion conventions, DM plans and per-channel delays.
 *
 * A plan is a list of ranges.  A range holds DM trials and a downsample
 * (time-scrunch) factor ds: its input samples are summed in groups of ds and its
 * delays are rounded in units of ds*tsamp.
 *
 *  - AstroAccelerate-style ranges "lo:hi:step:ds": N = round((hi-lo)/step) trials
 *    DM_j = lo + j*step, hi excluded.  Unlike AstroAccelerate we do NOT round N up
 *    to a multiple of 64 nor re-chain the ranges (AstroAccelerate src/aa_ddtr_strategy.cpp).
 *  - dedisp/Heimdall tolerance lists (dedisp src/kernels.cuh generate_dm_list,
 *    computed in double, stored as float after every step, stop at the first
 *    DM >= hi): one range with ds = 1.
 *
 * Delays are measured from the highest-frequency channel, in units of ds*tsamp:
 *    d(c, DM) = round_mode( k_DM * DM * (1/f_c^2 - 1/f_ref^2) / (ds*tsamp) )
 * with k_DM, the rounding mode and the precision of the per-channel table taken
 * from a convention preset (a row of data, see xc_convention_list).
 */
#ifndef XC_DMPLAN_H
#define XC_DMPLAN_H

#include <stddef.h>
#include <stdint.h>

#include "core/base/xc_error.h"
#include "core/dedisp/plan/xc_dedisp_scale.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    XC_ROUND_HALF_AWAY,   /* round(): PRESTO NEAREST_LONG, crosscheck default */
    XC_ROUND_HALF_EVEN,   /* rint() in float: dedisp __float2uint_rn */
    XC_ROUND_TRUNC        /* truncation: AstroAccelerate __float2int_rz */
} xc_rounding;

typedef enum {
    XC_PREC_DOUBLE,       /* delay computed in double from the exact formula */
    XC_PREC_FLOAT         /* dedisp: float table (k/dt)*(a*a-b*b), a=1.f/f_c, b=1.f/f_ref;
                             delay = round_mode((float)DM * table[c]) in float */
} xc_precision;

typedef enum {
    XC_SCALE_SUM,         /* output = sum over unmasked channels */
    XC_SCALE_DEDISP,      /* dedisp float output: sum/(in_range*nchans)*XC_DEDISP_SCALE */
    XC_SCALE_MEAN_AA      /* AstroAccelerate: sum/nchans/ds */
} xc_scaling;

typedef struct {
    const char *name;
    double kdm;           /* s MHz^2 cm^3 / pc */
    xc_rounding rounding;
    xc_precision precision;
    xc_scaling scaling;
    const char *source;   /* where the convention comes from */
} xc_convention;

/* The table of presets: crosscheck (default), sigproc, presto, dedisp, astroaccelerate. */
const xc_convention *xc_convention_list(size_t *n);
/* Looks a preset up by name; NULL if unknown. */
const xc_convention *xc_convention_get(const char *name);
const char *xc_rounding_name(xc_rounding r);
const char *xc_scaling_name(xc_scaling s);

/* Scales an exact integer channel sum to the output float.  Every dedisperser
 * must use these two functions so integer paths agree bit for bit. */
float xc_scale_int(const xc_convention *cv, uint64_t sum, int nchans, int ds, int nbits);
float xc_scale_real(const xc_convention *cv, double sum, int nchans, int ds, int nbits);

/* Limits every plan obeys, checked before anything is allocated: the
 * downsample factor (inBin) and the trials of the whole plan (10 million:
 * surveys search 10^3..10^5; a plane of more would not fit in memory at any
 * useful length). */
#define XC_DMPLAN_MAX_DS 1000000
#define XC_DMPLAN_MAX_TRIALS 10000000

typedef struct {
    double lo, hi, step;  /* as given; step 0 for explicit/tolerance lists */
    int ds;               /* downsample factor >= 1 */
    size_t ndm;
    double *dms;          /* ndm values, ascending (owned) */
} xc_dmrange;

typedef struct {
    int nranges;
    xc_dmrange *r;        /* owned */
    char kind[16];        /* "ranges" or "tolerance" */
    double tol, pulse_width_us;  /* for kind "tolerance" */
} xc_dmplan;

void xc_dmplan_init(xc_dmplan *p);
void xc_dmplan_free(xc_dmplan *p);
/* Parses "lo:hi:step:ds[,lo:hi:step:ds...]" (ds may be omitted: 1).  `source`
 * names where the text came from (e.g. "-dmplan" or a file name) for messages.
 * Errors: XC_EINVAL for a malformed field, step <= 0, hi <= lo (empty range),
 * ds outside 1..XC_DMPLAN_MAX_DS, more than XC_DMPLAN_MAX_TRIALS trials, or
 * ranges not in ascending order (overlap). */
xc_status xc_dmplan_parse(xc_dmplan *p, const char *spec, const char *source, xc_error *err);
/* Reads a plan file: one range per line as "lo hi step ds" or "lo:hi:step:ds" or
 * AstroAccelerate's "range lo hi step inBin outBin"; '#' starts a comment. */
xc_status xc_dmplan_read(xc_dmplan *p, const char *path, xc_error *err);
/* dedisp/Heimdall tolerance list (see header comment).  f0 is the highest
 * channel frequency in MHz, df the channel width (its sign is ignored: dedisp
 * forces it negative), pulse_width in microseconds, tsamp in seconds.
 * tol <= 1 is XC_EINVAL (dedisp loops forever at 1 and returns NaN below). */
xc_status xc_dmplan_tolerance(xc_dmplan *p, double lo, double hi, double tsamp,
                              double pulse_width_us, double f0, double df, int nchans,
                              double tol, xc_error *err);
/* Total number of DM trials over all ranges. */
size_t xc_dmplan_ndm(const xc_dmplan *p);

/* Geometry of the data the plan is applied to. */
typedef struct {
    int nchans;
    double fch1, foff;    /* MHz; channel c at fch1 + c*foff, either sign */
    double tsamp;         /* seconds */
} xc_geometry;

/* Delays of range r for every trial and channel: out[j*nchans + c], in units of
 * r->ds*tsamp samples, never negative.  XC_EINVAL if a frequency is <= 0. */
xc_status xc_delays_compute(const xc_convention *cv, const xc_geometry *g,
                            const xc_dmrange *r, int32_t *out, xc_error *err);
/* Largest delay of the whole plan in original samples: max over ranges of
 * ds * max delay of that range. */
xc_status xc_dmplan_max_delay(const xc_convention *cv, const xc_geometry *g,
                              const xc_dmplan *p, int64_t *maxd, xc_error *err);

#ifdef __cplusplus
}
#endif
#endif
