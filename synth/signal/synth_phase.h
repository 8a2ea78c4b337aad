/* synth_phase.h: a periodic pulsar's sample values tabulated by the pulse's
 * sub-sample phase (not installed API).
 *
 * A pulsar whose pulses keep their shape (constant period: no orbit, no
 * acceleration, no spin-down) sends every pulse through a channel as the same
 * top hat shifted in time, so what channel c adds to the samples a pulse
 * reaches depends only on where the pulse's start x0 = ta + dmin_c falls
 * within its sample, the phase phi = x0/tsamp - floor(x0/tsamp).  The table
 * holds, per channel, the closed form's values (xc_signal_tophat: the sample
 * averages of the top hat through the channel's smearing ramp G) at the M + 1
 * phases j/M, j = 0..M, for the K samples from floor(x0/tsamp) on; a pulse's
 * values are the linear interpolation, in float, between the two nodes around
 * its phase.  So no square root or divide is made per value.
 *
 * The error against the closed form, per value (derivation in synth_phase.c):
 *     |table - closed| <= amp min(h, tsamp g2 h^2 / 4) + float rounding,
 * h = 1/M, g2 = fhi^3 / (2 K df) the largest slope of the channel's fraction
 * of delays (G''), amp the peak amplitude; M is the smallest power of two from
 * XC_PHASE_MMIN to XC_PHASE_MMAX whose bound is at most XC_PHASE_TOL noise
 * sigmas in every channel.  Where none is (an unsmeared channel's kinks need
 * h <= TOL/amp), or the table would pass XC_PHASE_BYTES, the pulsar keeps the
 * closed form. */
#ifndef XC_SYNTH_PHASE_H
#define XC_SYNTH_PHASE_H

#include <stddef.h>

#include "synth/model/xc_orbit.h"
#include "synth/signal/synth_tophat.h"

#define XC_PHASE_TOL 1e-4   /* noise sigmas: the largest stated error of a value */
#define XC_PHASE_MMIN 8
#define XC_PHASE_MMAX 64
#define XC_PHASE_KMAX 64    /* samples a pulse may reach in a channel (else the closed form) */
#define XC_PHASE_BYTES (16u << 20) /* the largest table (else the closed form) */

typedef struct {
    int M;          /* phase intervals */
    int K;          /* samples per node, a multiple of 16 */
    int nchans;
    double w;       /* the top hat's width in time (s) */
    double bound;   /* the stated bound, the largest over channels (noise sigmas) */
    float *tab;     /* [nchans][M + 1][K] */
    unsigned char (*span)[2]; /* [nchans][M + 1]: first and last k holding a nonzero value */
} xc_phase_table;

/* Whether the pulsar of p keeps its shape (constant period, top hat, its own
 * timing model) so that a table may stand for the closed form. */
int xc_phase_applies(const xc_synth_params *p, const xc_timing *tm);
/* The stated bound at M intervals for channel geometry g and amplitude amp. */
double xc_phase_bound(const xc_chgeo *g, double tsamp, double amp, int M);
/* Builds the table of the pulsar (width w s, amplitude amp) for geometries
 * geo[nchans] at the M the tolerance asks for; 0 with t->tab NULL where the
 * closed form stays (no M meets it, or a pulse reaches too many samples);
 * XC_ENOMEM. */
xc_status xc_phase_init(xc_phase_table *t, const xc_chgeo *geo, int nchans, double tsamp, double w, double amp,
                        xc_error *err);
void xc_phase_free(xc_phase_table *t);
/* The values of a pulse starting at ta (at fch1) added to the columns of
 * channels c0..c1-1 of the chunk (geo: their geometries, geo[c] for channel
 * c): in sample order, only the table's nonzero span, and only the samples the
 * chunk holds (the same floats whatever the chunk). */
void xc_phase_add(const xc_phase_table *t, const xc_chunk *ck, int c0, int c1, const xc_chgeo *geo, double ta);

/* Whether xc_phase_levels8 makes levels on this CPU (AVX-512F and BW) for this table. */
int xc_phase_levels8_available(const xc_phase_table *t);
/* The exact generator's 8-bit levels (synth_levels.h) of the values the
 * pulses ev[0..nev) (start at fch1 in ev[e][0], in time order, none reaching a
 * sample of a channel the one before reaches) give channels c0..c1-1
 * (c1 - c0 <= 16) of spectra first..first+n-1 of nchans channels: each value
 * with signal s gets level xc_synth_quantise(xc_synth_noise + s, 8), written
 * over the table draw in out (the part's bytes); the others are left as they
 * are.  The bytes xc_phase_add into a zeroed buffer and xc_levels_part give. */
void xc_phase_levels8(const xc_phase_table *t, uint64_t seed, uint64_t first, size_t n, int nchans, double ts, int c0,
                      int c1, const xc_chgeo *geo, const double (*ev)[2], size_t nev, uint8_t *out);

#endif
