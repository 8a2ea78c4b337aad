/* synth_tophat.h: a channel's dispersion geometry and the top hat it sees,
 * one channel or eight at a time (not installed API). */
#ifndef XC_SYNTH_TOPHAT_H
#define XC_SYNTH_TOPHAT_H

#include <stddef.h>
#include <stdint.h>

#include "synth/model/xc_synth.h"

/* A channel's dispersion for constant K = kdm*DM: the delay of its top edge
 * (its centre without smearing) after fch1, the span of delays across it, and
 * what the ramp integral G needs. */
typedef struct {
    double dmin, S;
    double K, fhi, fhi2, df, dbar;
    double inv_df, fhi2_k, kf3;   /* 1/df, fhi^2/K, K/fhi^3 */
} xc_chgeo;

void xc_chgeo_set(xc_chgeo *g, const xc_synth_params *p, int c, double dm);
/* G(u) = (1/df) integral over the channel of max(u - (D(f) - dmin), 0) df: the
 * integral of the channel's response to a step that starts at its top edge. */
double xc_chgeo_ramp(const xc_chgeo *g, double u);

/* One chunk of spectra [first, first+n) held as floats, channel fastest. */
typedef struct {
    float *x;
    uint64_t first;
    size_t n;
    int nchans;
    double tsamp;
} xc_chunk;

/* Adds amp times the sample average of a top hat [ta, tb) (times at fch1) seen
 * through channel geometry g to column c of the chunk. */
void xc_signal_tophat(const xc_chunk *ck, int c, const xc_chgeo *g, double ta, double tb, double amp);
/* The geometries of nchans channels in groups of eight lanes, one field after
 * another (xc_signal_tophat8's layout); NULL when out of memory.  free() it. */
double *xc_chgeo_lanes(const xc_chgeo *geo, int nchans);
/* xc_signal_tophat into channels c0..c0+nc-1 (column = channel, nc <= 8),
 * the same values added in the same order; eight at a time where the CPU has
 * AVX-512F, c0 is a multiple of 8 and lanes (xc_chgeo_lanes of geo) is given. */
void xc_signal_tophat8(const xc_chunk *ck, int c0, int nc, const xc_chgeo *geo, const double *lanes, double ta,
                       double tb, double amp);

#endif
