/* xc_synth.h: synthetic SIGPROC filterbanks with known answers.
 *
 * The model follows SIGPROC `fake` (SixByNine/sigproc
 * src/fake.c) where fake is right, and departs from it where fake is wrong or
 * untestable; every departure is listed here and in `crosscheck synth -h`:
 *  - foff is forced negative as fake does (channel 0 is the highest frequency).
 *  - The sample count is round(tobs/tsamp); fake rounds up to a multiple of 512.
 *  - Noise is N(0,1) from a counter-based generator (Philox4x32-10 keyed by the
 *    seed, counter = sample, channel quad, stream; Box-Muller in float with
 *    fixed polynomials), so a seed gives the same bytes at any thread count and
 *    chunk size; fake uses NR ran2 seeded from the clock.  Default seed 1.
 *  - Quantisation as fake's float2int over [-4, 4] for 2/4/8/16 bits, but
 *    without its `max *= snr` rescaling, and 1-bit is x > 0 (fake's 1-bit data
 *    are 99.99 % ones).  32-bit is the raw float.
 *  - Timing: the pulse phase is the integral of the spin frequency in the
 *    pulsar frame, and a pulse emitted at pulsar time tau arrives at
 *    t = tau + D(tau) - D(0), D the light-travel (Roemer) delay of a Keplerian
 *    orbit (-binary) or of a constant line-of-sight acceleration (-accn,
 *    D = a tau^2 / 2c); -pdot makes the spin period p0 + pdot tau.  fake
 *    instead puts pulses at phase t/P(t), which doubles -accn's fdot and drifts
 *    by milliseconds in binary mode; -fake_phase reproduces fake's model.
 *  - Orbits use GM_sun = 1.32712440018e20 m^3 s^-2 (IAU); fake uses
 *    M_SUN 2.0e30 x G 6.672e-11 (0.55 % high) and PI = 3.14159265.
 *  - Pulses are top hats in phase (or Gaussians, -gaussian) whose arrival is
 *    integrated over each sample interval, so energy is conserved; fake tests
 *    only the phase of each sample and widens the duty cycle by tsamp and a
 *    smearing estimate 8.3e3*DM*foff/fch1^3 instead.
 *  - Intra-channel smearing of a top hat is exact for a channel that integrates
 *    uniformly over its band (the delay 1/f^2 averaged in closed form); a
 *    pulsar with a constant period takes these values from a table by the
 *    pulse's sub-sample phase, within 1e-4 noise sigmas of the closed form
 *    (synth/signal/synth_phase.h).  A Gaussian is spread over XC_SYNTH_NSUB
 *    slices with a delay linear in frequency inside each slice.
 *
 * Time origin: t = 0 is the start of sample 0; sample i covers [i*tsamp, (i+1)*tsamp).
 * Arrival times refer to fch1 (channel 0's centre); lower channels arrive
 * kdm*DM*(1/f^2 - 1/fch1^2) later.  Pulse n of a pulsar is centred at spin
 * phase n + 0.5, as in fake, and phase 0 is emitted at t = 0.
 * Per-channel amplitudes are snr/sqrt(nchans) noise sigmas (as fake), so the
 * band sum of a dedispersed sample has S/N = snr.
 */
#ifndef XC_SYNTH_H
#define XC_SYNTH_H

#include <stddef.h>
#include <stdint.h>

#include "core/dedisp/plan/xc_dmplan.h"
#include "core/base/xc_error.h"
#include "core/io/xc_filterbank.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Slices per channel for the intra-channel smearing of Gaussian pulses. */
#define XC_SYNTH_NSUB 8
/* Quantisation range in noise sigmas (fake src/scaledata.c). */
#define XC_SYNTH_QMIN (-4.0)
#define XC_SYNTH_QMAX 4.0
/* Spectra per chunk when params.chunk is 0: about 1 Mi values in memory. */
#define XC_SYNTH_CHUNK_VALUES (1u << 20)
#define XC_SYNTH_CHUNK_MAX 4096

/* Physical constants of the default model. */
#define XC_SYNTH_C 299792458.0          /* m/s */
#define XC_SYNTH_GM_SUN 1.32712440018e20 /* m^3 s^-2, IAU 2009 */

typedef enum { XC_PROFILE_TOPHAT = 0, XC_PROFILE_GAUSSIAN = 1 } xc_synth_profile;

/* One dispersed single pulse, or an FRB burst: the pulse with a fluence, a
 * scattering tail and a spectral index.  The first four members are the
 * single pulse of -pulse; the rest default (xc_synth_pulse_init) to a plain
 * pulse, drawn exactly as before they existed.
 *
 * Scattering: each channel's pulse is convolved with the one-sided
 * exponential exp(-t/tau)/tau, tau(f) = tau_ms (f/tau_ref_mhz)^tau_index at
 * the channel's centre (a thin screen: tau ~ f^-4, Cordes & Lazio 2002 NE2001;
 * f^-4.4 for a Kolmogorov spectrum).
 * Spectral index: channel c's amplitude is scaled by
 * f_c^alpha / mean_c(f_c^alpha), so the band-averaged flux (and the band-summed
 * S/N of a dedispersed sample) is what snr or fluence_jyms says whatever alpha.
 * Fluence: with fluence_jyms > 0, snr is replaced by the radiometer equation
 * (Cordes & McLaughlin 2003, ApJ 596, 1142, eq. 13; Lorimer & Kramer 2005 eq. A1.21):
 * a channel's noise is sigma = SEFD / sqrt(npol df tsamp) Jy per sample, so a
 * peak flux density S_peak = F / W_eq (W_eq the width of the top hat, sigma
 * sqrt(2 pi) of the Gaussian: the area over the peak) gives
 *     snr = S_peak / SEFD * sqrt(npol * nchans * |foff| * tsamp),
 * and a box of width W over the whole unscattered top hat reaches
 *     S/N = F / SEFD * sqrt(npol * BW / W),  BW = nchans |foff|. */
typedef struct {
    double t_s;        /* centre of the pulse at the highest channel (fch1), s from the start of sample 0 */
    double dm;         /* pc cm^-3 */
    double width_ms;   /* intrinsic full width of the top hat (FWHM of a Gaussian), ms, > 0 */
    double snr;        /* band-summed S/N of a dedispersed sample at the unscattered pulse's peak */
    double fluence_jyms; /* > 0: band-averaged fluence in Jy ms, which sets snr (params' sefd_jy, npol); 0: snr */
    double tau_ms;     /* scattering time at tau_ref_mhz, ms (0: none) */
    double tau_ref_mhz; /* frequency of tau_ms [1000] */
    double tau_index;  /* tau ~ f^tau_index [-4] */
    double alpha;      /* spectral index: flux ~ f^alpha [0] */
} xc_synth_pulse;

#define XC_SYNTH_TAU_REF_MHZ 1000.0
#define XC_SYNTH_TAU_INDEX (-4.0)
/* Radiometer defaults: about the Parkes multibeam receiver (Tsys 28 K over a
 * gain of 0.7 K/Jy, Staveley-Smith et al. 1996) and two polarisations. */
#define XC_SYNTH_SEFD_JY 40.0
#define XC_SYNTH_NPOL 2

/* A Keplerian orbit with fake's options and units. */
typedef struct {
    int on;            /* -binary */
    double pb_h;       /* -bper: orbital period, hours (10) */
    double ecc;        /* -becc: eccentricity, 0 <= e < 1 (0) */
    double inc_deg;    /* -binc: inclination, degrees (90: edge on) */
    double omega_deg;  /* -bomega: longitude of periastron, degrees (0) */
    double phase;      /* -bphase: periastron at phase*Pb after the first sample (0) */
    double mp, mc;     /* -bpmass, -bcmass: pulsar and companion masses, solar masses (1.4, 5.0) */
} xc_synth_binary;

/* A periodic pulsar: top hat (or Gaussian) centred on spin phase 0.5. */
typedef struct {
    double period_ms;  /* 0: no periodic pulsar.  With -accn the apparent period at
                          mid-observation (fake: p0 = period/(1 + a tobs/2c)),
                          otherwise the rest-frame period at t = 0 */
    double width_pct;  /* duty cycle, percent of the period, in (0, 100] */
    double snrpeak;    /* band-summed S/N of an on-pulse dedispersed sample */
    double dm;         /* pc cm^-3 */
    double pdot;       /* -pdot: period derivative, s/s (0) */
    double accn;       /* -accn: line-of-sight acceleration, m/s^2, > 0 away (0) */
    xc_synth_binary bin;
} xc_synth_pulsar;

/* How quantised noise is drawn.  BOXMULLER: every value is
 * xc_synth_quantise(xc_synth_noise + signal).  EXACT (nbits 1..16): a value
 * without signal is drawn directly from the level's discrete law
 * (xc_synth_level_probs, rounded to 2^-32) by a Walker alias table from 16
 * bits of a Philox word of its own stream up to 8 bits (a whole word wider;
 * synth_levels.h); a value with signal is as BOXMULLER's
 * (xc_synth_noise + signal, quantised).  32-bit files have no levels: both
 * write xc_synth_noise + signal. */
typedef enum { XC_NOISE_BOXMULLER = 0, XC_NOISE_EXACT = 1 } xc_synth_noise_gen;

/* Called after every chunk with spectra written so far (the CLI draws a meter). */
typedef void (*xc_synth_progress_fn)(void *ctx, uint64_t done, uint64_t total);

typedef struct {
    /* observation */
    int nchans;
    int nbits;                        /* 1, 2, 4, 8, 16 or 32 */
    double tsamp;                     /* s */
    double tobs;                      /* s; nsamp = round(tobs/tsamp) */
    double fch1, foff;                /* MHz; a positive foff is written negated */
    double tstart;                    /* MJD */
    uint64_t seed;
    const xc_convention *convention;  /* its kdm sets the delays; default "crosscheck" */
    int smear;                        /* intra-channel smearing (fake's default: on) */
    int noise;                        /* 0: noiseless data for tests */
    xc_synth_noise_gen noise_gen;     /* how the quantised noise is drawn [boxmuller] */
    xc_bitorder bitorder;             /* sub-byte packing, default LSB (SIGPROC) */
    /* signals */
    xc_synth_pulsar psr;
    xc_synth_profile profile;         /* of the pulsar and of every single pulse */
    int fake_phase;                   /* fake's t/P(t) model, point-sampled (see above) */
    xc_synth_pulse *pulses;           /* owned; append with xc_synth_params_add_pulse */
    size_t npulses, pulses_cap;
    /* execution: never changes the bytes written */
    size_t chunk;                     /* spectra per chunk, 0: automatic */
    int nthreads;                     /* OpenMP threads, 0: the OpenMP default */
    xc_synth_progress_fn progress;    /* may be NULL */
    void *progress_ctx;
    const char *file_label;           /* the name the truth file gives the data (NULL: its path) */
    /* the radiometer of bursts given by fluence */
    double sefd_jy;                   /* system equivalent flux density, Jy [40] */
    int npol;                         /* polarisations summed, 1 or 2 [2] */
} xc_synth_params;

/* fake's defaults (nchans 128, nbits 4, tsamp 80 us, tobs 10 s, fch1 433.968,
 * foff -0.062, tstart 50000, width 4 %, snrpeak 1, bper 10 h, becc 0, binc 90,
 * bomega 0, bphase 0, bpmass 1.4, bcmass 5), smearing and noise on, seed 1,
 * convention "crosscheck", no periodic pulsar (fake picks a random period and
 * DM; we make "no pulsar" the default so noise-only files need no option), no pulses. */
void xc_synth_params_init(xc_synth_params *p);
/* xc_synth_params_init, then the observation's channels, bits per sample,
 * sample time (s) and length (s); everything else keeps its default. */
void xc_synth_params_init_obs(xc_synth_params *p, int nchans, int nbits, double tsamp, double tobs);
void xc_synth_params_free(xc_synth_params *p);
/* Deep copy (the pulse list is duplicated).  XC_ENOMEM. */
xc_status xc_synth_params_copy(xc_synth_params *dst, const xc_synth_params *src, xc_error *err);
/* A plain pulse at (t_s, dm, width_ms, snr): no fluence, no scattering
 * (reference 1000 MHz, index -4 when tau_ms is set), flat spectrum. */
void xc_synth_pulse_init(xc_synth_pulse *pl, double t_s, double dm, double width_ms, double snr);
/* 1 if the pulse uses a burst member (fluence, scattering or spectral index). */
int xc_synth_pulse_is_burst(const xc_synth_pulse *pl);
/* The band-summed S/N of a dedispersed sample at the unscattered peak: snr,
 * or what the radiometer equation makes of fluence_jyms (see xc_synth_pulse). */
double xc_synth_pulse_snr(const xc_synth_params *p, const xc_synth_pulse *pl);
/* Scattering time (s) at frequency f (MHz): 0 when tau_ms is 0. */
double xc_synth_pulse_tau(const xc_synth_pulse *pl, double f);
/* mean over channels of (f_c/fch1)^alpha (1 for alpha 0); channel c's
 * amplitude factor is (f_c/fch1)^alpha / that mean. */
double xc_synth_pulse_spectral_mean(const xc_synth_params *p, const xc_synth_pulse *pl);
double xc_synth_pulse_spectral_weight(const xc_synth_params *p, const xc_synth_pulse *pl, int c, double mean);
/* Appends a copy of *pulse.  XC_ENOMEM. */
xc_status xc_synth_params_add_pulse(xc_synth_params *p, const xc_synth_pulse *pulse, xc_error *err);
/* Checks every value.  Messages start with `source` (a file name, or NULL) and
 * name the JSON field and the CLI option, e.g. "tsamp_us (-tsamp) = 0: must be > 0".
 * XC_EINVAL. */
xc_status xc_synth_params_check(const xc_synth_params *p, const char *source, xc_error *err);
/* Reads the JSON object found under `key` (the top level if key is NULL) of
 * json_path and sets the fields it has:
 *   nchans nbits tsamp_us tobs_s fch1 foff tstart seed convention smear noise
 *   bitorder period_ms width_pct snrpeak dm pdot accn binary bper_h becc
 *   binc_deg bomega_deg bphase bpmass bcmass profile fake_phase
 *   pulses:[{t_s,dm,width_ms,snr,fluence_jyms,tau_ms,tau_ref_mhz,tau_index,alpha}]
 *   sefd_jy npol
 * Pulses are appended.  An unknown field, a wrong type or a bad value is
 * XC_EINVAL naming the file, the field and the value; an unreadable file
 * XC_EIO; invalid JSON XC_EFORMAT (with line and column). */
xc_status xc_synth_params_load(xc_synth_params *p, const char *json_path, const char *key, xc_error *err);
/* The same from a jansson object already in memory (a json_t *); `source`
 * names it in messages (e.g. "run.json: synthetic[2].synth"). */
struct json_t;
xc_status xc_synth_params_from_json(xc_synth_params *p, const struct json_t *obj, const char *source,
                                    xc_error *err);
/* The inputs as a JSON object under the names xc_synth_params_from_json reads
 * (a new reference, NULL when out of memory). */
struct json_t *xc_synth_params_to_json(const xc_synth_params *p);

/* Samples written: round(tobs/tsamp). */
uint64_t xc_synth_nsamp(const xc_synth_params *p);
/* Channel width as written: -|foff|. */
double xc_synth_foff(const xc_synth_params *p);
/* Delay in s of frequency f (MHz) after the top channel fch1 for the given DM. */
double xc_synth_delay(const xc_synth_params *p, double dm, double f);
/* The lowest frequency any part of the band reaches (the bottom edge of the
 * last channel when smearing, its centre otherwise), MHz. */
double xc_synth_lowest_freq(const xc_synth_params *p);
/* Default truth name: PATH with a trailing ".fil" or ".dat" replaced by
 * ".truth.json" (appended otherwise).  XC_EINVAL if it does not fit in n bytes. */
xc_status xc_synth_truth_path(const char *path, char *out, size_t n, xc_error *err);

/* Writes the filterbank to `path` and the truth JSON to `truth_path` (NULL:
 * xc_synth_truth_path), both atomically: on error neither exists.  `cmdline`
 * (may be NULL) is recorded in the truth file.  Memory is bounded by the chunk
 * size whatever tobs.  OpenMP threads split the spectra of a chunk for noise
 * and quantisation and its channels for the pulses; no value's sum depends on
 * the split.  XC_EINVAL (bad params), XC_EIO, XC_ENOMEM. */
xc_status xc_synth_write(const xc_synth_params *p, const char *path, const char *truth_path,
                         const char *cmdline, xc_error *err);

/* The fast path: writes `stem`.dat and `stem`.inf (PRESTO) holding what
 * dedispersing the filterbank xc_synth_write would write, at the pulsar's DM
 * (the first pulse's when there is no pulsar), with the convention's rounded
 * delays and scaling, would give: nsamp - max_delay samples rounded down to
 * an even count (PRESTO's realfft takes only even N, and prepdata and
 * prepsubband write even lengths), each the channel sum of the quantised
 * values.  The noise of that sum is drawn directly as
 * N(nchans*mean, nchans*var) of the quantised levels (its own Philox stream);
 * the signal is each channel's pulse, with its smearing and its residual
 * delay after rounding, times the quantiser's small-signal gain.  The truth
 * JSON (NULL: `stem`.truth.json) describes the .dat.  XC_EINVAL, XC_EIO, XC_ENOMEM. */
xc_status xc_synth_write_dedispersed(const xc_synth_params *p, const char *stem, const char *truth_path,
                                     const char *cmdline, xc_error *err);

/* Streams the filterbank's data bytes (no header) to `sink` chunk by chunk:
 * what xc_synth_write puts after the header.  The sink returns non-zero to
 * stop (then XC_EIO).  For benchmarks and for tests of the chunking. */
typedef int (*xc_synth_sink_fn)(void *ctx, const uint8_t *bytes, size_t n);
xc_status xc_synth_stream(const xc_synth_params *p, xc_synth_sink_fn sink, void *ctx, xc_error *err);

/* ---- the noise, exposed so tests can recompute any written value ----------- */
/* Philox4x32-10 (Salmon et al. 2011, Random123), one block. */
void xc_synth_philox4x32_10(const uint32_t ctr[4], const uint32_t key[2], uint32_t out[4]);
/* The noise value of (sample, chan): N(0,1), as added before quantisation. */
float xc_synth_noise(uint64_t seed, uint64_t sample, int chan);
/* Noise for channels [0, nchans) of one spectrum into out[nchans]; equals
 * xc_synth_noise for every channel. */
void xc_synth_noise_spectrum(uint64_t seed, uint64_t sample, int nchans, float *out);
/* The reference (plain C, one value at a time) version of the same numbers;
 * tests compare it with the vectorised generator. */
float xc_synth_noise_ref(uint64_t seed, uint64_t sample, int chan);
/* The generator's code paths, 0 plain C, 1 SSE2, 2 AVX2, 3 AVX-512F (the
 * widest the CPU has is chosen at run time): all give the same bits, which
 * tests check.  _path fills 4*nblocks values of (seed, stream, sample) from
 * channel quad first_block with one path (the widest available one below it
 * when that path is not available; plain C without SSE2). */
int xc_synth_noise_path_available(int path);
void xc_synth_noise_path(int path, uint64_t seed, uint32_t stream, uint64_t sample, uint32_t first_block,
                         size_t nblocks, float *out);
/* The integer level of value x (noise sigmas) for nbits 1..16:
 * rint((x + 4)*((2^nbits - 1)/8)) in float, clipped; 1 bit: x > 0. */
uint16_t xc_synth_quantise(float x, int nbits);
/* xc_synth_quantise of n values, packed as the file stores them (n*nbits a
 * multiple of 8; nbits 1..16); vectorised for 8 bits. */
void xc_synth_quantise_pack(const float *x, size_t n, int nbits, xc_bitorder order, uint8_t *out);
/* The probability of each level of xc_synth_quantise(Z), Z ~ N(0,1), into
 * p[2^nbits] (nbits 1..16): normal CDF differences over the bins. */
void xc_synth_level_probs(int nbits, double *p);
/* The level the exact generator draws for (sample, chan) where there is no
 * signal (one value at a time, for tests). */
uint16_t xc_synth_level_exact(uint64_t seed, uint64_t sample, int chan, int nbits);
/* Statistics of the quantised noise for nbits (32: 0, 1, 1): the mean and rms
 * of the level of N(0,1), and the small-signal gain d<level>/dx at x = 0
 * (levels per sigma).  gain/rms is the S/N kept by quantisation. */
void xc_synth_level_stats(int nbits, double *mean, double *rms, double *gain);

#ifdef __cplusplus
}
#endif
#endif
