/* synth_signal.h: the signal generator, a chunk of spectra at a time (not installed API). */
#ifndef XC_SYNTH_SIGNAL_H
#define XC_SYNTH_SIGNAL_H

#include "synth/model/xc_orbit.h"
#include "synth/model/xc_synth.h"
#include "synth/signal/synth_phase.h"
#include "synth/signal/synth_tophat.h"

/* Adds a Gaussian of peak amp, centre tc and sigma sig (at fch1) as channel c
 * sees it at this dm to column col, the channel cut into slices whose delay is
 * linear in frequency. */
void xc_signal_gauss(const xc_synth_params *p, const xc_chunk *ck, int col, int c, double dm, double tc, double sig,
                     double amp);

/* Adds burst pl scattered (tau_ms > 0) as channel c sees it to column col:
 * its profile convolved with exp(-t/tau(f_c))/tau(f_c), each of the
 * channel's slices (delay linear in frequency) integrated over each sample. */
void xc_signal_scattered(const xc_synth_params *p, const xc_chunk *ck, int col, int c, const xc_synth_pulse *pl,
                         double amp);
/* Adds burst pl, peak amplitude amp (noise sigmas, the spectral weight
 * included), as channel c sees it to column col: scattered, or as a plain
 * pulse when tau_ms is 0. */
void xc_signal_burst(const xc_synth_params *p, const xc_chunk *ck, int col, int c, const xc_synth_pulse *pl,
                     double amp);
/* How long after its unscattered end a burst's tail is drawn (s). */
double xc_signal_burst_tail(const xc_synth_params *p, const xc_synth_pulse *pl);

/* The signal generator's state over a whole file (sequential across chunks). */
typedef struct {
    const xc_synth_params *p;
    int has_psr;
    xc_timing tm;
    double dc;               /* duty cycle */
    double amp;              /* per-channel peak amplitude of the pulsar */
    xc_chgeo *geo;           /* [nchans] at the pulsar's DM */
    double *lanes;           /* geo as xc_chgeo_lanes lays it out */
    double dlo, dhi;         /* earliest and latest delay over the band (pulsar DM) */
    double (*blk)[2];        /* each 16-channel block's earliest and latest delay (pulsar DM) */
    xc_phase_table ph;       /* the pulsar's values by phase where they keep their shape (tab NULL: closed form) */
    double (*ev)[2];         /* pulses of the current chunk: top hat edges, or Gaussian centre and sigma */
    size_t nev, evcap;
    /* -fake_phase state, carried from chunk to chunk as fake's loop does */
    double *shift;           /* [nchans], fake's dmdelay(fch1, f_c, DM) */
    double fk_time, fk_period, fk_plst, fk_rising, fk_trailing;
    float fk_amp;
} xc_signal;

xc_status xc_signal_init(xc_signal *s, const xc_synth_params *p, xc_error *err);
void xc_signal_free(xc_signal *s);
/* Adds the pulsar and the single pulses to the chunk (threads split channels):
 * xc_signal_prepare for its spectra, then xc_signal_apply. */
xc_status xc_signal_add(xc_signal *s, const xc_chunk *ck, int nthreads, xc_error *err);
/* The pulsar's pulses that reach spectra [first, first+n) at sample time ts,
 * into s->ev.  XC_ENOMEM. */
xc_status xc_signal_prepare(xc_signal *s, uint64_t first, size_t n, double ts, xc_error *err);
/* Adds the signal to ck, whose spectra lie within the range last prepared
 * (any part of it, in any size: the values are those of xc_signal_add on the
 * whole range; -fake_phase's state needs the parts in order). */
void xc_signal_apply(xc_signal *s, const xc_chunk *ck, int nthreads);
/* Whether the pulsar's 8-bit exact levels may be made straight from its phase
 * table (xc_signal_levels8) for the pulses last prepared: a table, no single
 * pulses, pulses that do not overlap in a channel, a CPU with AVX-512F/BW. */
int xc_signal_levels8_applies(const xc_signal *s);
/* The exact generator's 8-bit levels of the values with signal of spectra
 * first..first+n-1 (within the range last prepared) over the table draws in
 * out (xc_phase_levels8): the bytes xc_signal_apply into zeroed floats and
 * xc_levels_part give, without the floats. */
void xc_signal_levels8(const xc_signal *s, uint64_t seed, uint64_t first, size_t n, uint8_t *out);
/* Spectra per part that make parts pay (noise, signal and levels of one part
 * while it is in cache): XC_SIGNAL_PART_VALUES values, or SIZE_MAX where the
 * signal's cost grows with the number of parts (whole chunks then). */
#define XC_SIGNAL_PART_VALUES (1u << 17)
size_t xc_signal_part_rows(const xc_signal *s);
/* Fills s->ev with the pulsar's pulses whose arrival at fch1 lies in [ta, tb]
 * (edges of each pulse inclusive).  XC_ENOMEM. */
xc_status xc_signal_pulses_between(xc_signal *s, double ta, double tb, xc_error *err);

#endif
