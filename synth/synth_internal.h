/* synth_internal.h: pieces shared by the synth sources (not installed API). */
#ifndef XC_SYNTH_INTERNAL_H
#define XC_SYNTH_INTERNAL_H

#include "synth/xc_orbit.h"
#include "synth/xc_synth.h"
#include "synth/xc_truth.h"

#define XC_SYNTH_MAX_NCHANS (1 << 24)

/* Philox counter word 3: independent streams drawn from one seed. */
enum { XC_STREAM_NOISE = 0, XC_STREAM_DEDISP = 1, XC_STREAM_DRAW = 2, XC_STREAM_SEED = 3 };

/* Each checks one field; `src` (a file name or NULL) prefixes the message, which
 * names the JSON field, the CLI option and the value.  XC_EINVAL. */
xc_status xc_synth_check_nchans(const char *src, long v, xc_error *err);
xc_status xc_synth_check_nbits(const char *src, long v, xc_error *err);
xc_status xc_synth_check_tsamp(const char *src, double tsamp_s, xc_error *err);
xc_status xc_synth_check_tobs(const char *src, double v, xc_error *err);
xc_status xc_synth_check_fch1(const char *src, double v, xc_error *err);
xc_status xc_synth_check_foff(const char *src, double v, xc_error *err);
xc_status xc_synth_check_finite(const char *src, const char *field, const char *opt, double v, xc_error *err);
xc_status xc_synth_check_positive(const char *src, const char *field, const char *opt, double v, xc_error *err);
xc_status xc_synth_check_dm(const char *src, const char *field, const char *opt, double v, xc_error *err);
xc_status xc_synth_check_period(const char *src, double v, xc_error *err);
xc_status xc_synth_check_width_pct(const char *src, double v, xc_error *err);
xc_status xc_synth_check_ecc(const char *src, double v, xc_error *err);
xc_status xc_synth_check_pulse(const char *src, size_t i, const xc_synth_pulse *pl, xc_error *err);

/* The lowest frequency any part of the band reaches (the bottom edge of the
 * last channel when smearing, its centre otherwise), MHz. */
double xc_synth_lowest_freq(const xc_synth_params *p);

/* Four uniform 32-bit words of stream `stream` at counter (a, b, c). */
void xc_synth_words(uint64_t seed, uint32_t stream, uint64_t a, uint32_t c, uint32_t out[4]);
/* N(0,1) values of stream `stream`: the same generator as the noise. */
void xc_synth_gauss_stream(uint64_t seed, uint32_t stream, uint64_t sample, uint32_t first_block,
                           size_t nblocks, float *out);

/* ---- JSON ------------------------------------------------------------------- */

/* A seed as JSON: an integer, or above 2^63-1 (which does not fit a jansson
 * integer) a string of digits, which the loaders also accept.  NULL: no memory. */
struct json_t *xc_synth_seed_json(uint64_t seed);

/* ---- signal ----------------------------------------------------------------- */

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
/* Adds a Gaussian of peak amp, centre tc and sigma sig (at fch1) as channel c
 * sees it at this dm to column col, the channel cut into slices whose delay is
 * linear in frequency. */
void xc_signal_gauss(const xc_synth_params *p, const xc_chunk *ck, int col, int c, double dm, double tc, double sig,
                     double amp);

/* The signal generator's state over a whole file (sequential across chunks). */
typedef struct {
    const xc_synth_params *p;
    int has_psr;
    xc_timing tm;
    double dc;               /* duty cycle */
    double amp;              /* per-channel peak amplitude of the pulsar */
    xc_chgeo *geo;           /* [nchans] at the pulsar's DM */
    double dlo, dhi;         /* earliest and latest delay over the band (pulsar DM) */
    double (*ev)[2];         /* pulses of the current chunk: top hat edges, or Gaussian centre and sigma */
    size_t nev, evcap;
    /* -fake_phase state, carried from chunk to chunk as fake's loop does */
    double *shift;           /* [nchans], fake's dmdelay(fch1, f_c, DM) */
    double fk_time, fk_period, fk_plst, fk_rising, fk_trailing;
    float fk_amp;
} xc_signal;

xc_status xc_signal_init(xc_signal *s, const xc_synth_params *p, xc_error *err);
void xc_signal_free(xc_signal *s);
/* Adds the pulsar and the single pulses to the chunk (threads split channels). */
xc_status xc_signal_add(xc_signal *s, const xc_chunk *ck, int nthreads, xc_error *err);
/* Fills s->ev with the pulsar's pulses whose arrival at fch1 lies in [ta, tb]
 * (edges of each pulse inclusive).  XC_ENOMEM. */
xc_status xc_signal_pulses_between(xc_signal *s, double ta, double tb, xc_error *err);

/* ---- files ------------------------------------------------------------------- */

/* The truth file's text (JSON, caller frees), or NULL with err set (XC_ENOMEM).
 * `dedisp` (may be NULL) describes the .dat of the fast path. */
typedef struct {
    double dm;
    uint64_t nsamp;
    int64_t max_delay;
    double mean, sigma, gain;   /* of the noise and signal in the output units */
} xc_dedisp_info;
char *xc_synth_truth_text(const xc_synth_params *p, const char *path, const char *cmdline,
                          const xc_dedisp_info *dedisp, xc_error *err);
/* The same truth as a struct (what xc_truth_parse of that text gives, read
 * from the tree before it is written out): the in-memory synthesis. */
xc_status xc_synth_truth(const xc_synth_params *p, const char *label, const xc_dedisp_info *dedisp, xc_truth *t,
                         xc_error *err);

#endif
