/* xc_synth.h: synthetic SIGPROC filterbanks with known answers.
 *
 * The model follows SIGPROC `fake` (research/periodicity.md 4; SixByNine/sigproc
 * src/fake.c) where fake is right, and departs from it where fake is wrong or
 * untestable; every departure is listed here and in `crosscheck synth -h`:
 *  - foff is forced negative as fake does (channel 0 is the highest frequency).
 *  - The sample count is round(tobs/tsamp); fake rounds up to a multiple of 512.
 *  - Noise is N(0,1) from a counter-based generator (Philox4x32-10 keyed by the
 *    seed, counter = sample and channel pair, Box-Muller), so a seed gives the
 *    same bytes at any thread count and chunk size; fake uses NR ran2 seeded
 *    from the clock.  Our default seed is fixed (1) so runs are reproducible.
 *  - Quantisation as fake's float2int over [-4, 4] for 2/4/8/16 bits, but
 *    without its `max *= snr` rescaling, and 1-bit is x > 0 (fake's 1-bit data
 *    are 99.99 % ones).  32-bit is the raw float.
 *  - Pulses are top hats integrated over each sample interval (a sample gets
 *    amplitude times the fraction of [i*tsamp, (i+1)*tsamp) the pulse covers), so
 *    energy is conserved; fake tests only the phase of each sample and widens
 *    the duty cycle by tsamp and a dispersion-smearing estimate instead.
 *  - Dispersion delays are exact, in double, with the k_DM of the chosen
 *    convention.  Intra-channel smearing cuts each channel into XC_SYNTH_NSUB
 *    slices and spreads the top hat uniformly over each slice's delay span
 *    (the delay taken linear in frequency within a slice), integrated exactly
 *    over each sample; fake instead widens the duty cycle by an estimate
 *    8.3e3*DM*foff/fch1^3 taken at the top channel for every channel.
 *  - No period derivative, acceleration or binary orbit yet (xc_synth_pulsar is
 *    where they will go).
 *
 * Time origin: t = 0 is the start of sample 0; sample i covers [i*tsamp, (i+1)*tsamp).
 * Per-channel amplitudes are snr/sqrt(nchans) noise sigmas (as fake), so the
 * band sum of a dedispersed sample has S/N = snr.
 */
#ifndef XC_SYNTH_H
#define XC_SYNTH_H

#include <stddef.h>
#include <stdint.h>

#include "xc_dmplan.h"
#include "xc_error.h"
#include "xc_filterbank.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Slices per channel for intra-channel dispersion smearing. */
#define XC_SYNTH_NSUB 8
/* Quantisation range in noise sigmas (fake src/scaledata.c). */
#define XC_SYNTH_QMIN (-4.0)
#define XC_SYNTH_QMAX 4.0
/* Spectra per chunk when params.chunk is 0: about 4 Mi values in memory. */
#define XC_SYNTH_CHUNK_VALUES (1u << 22)
#define XC_SYNTH_CHUNK_MAX 4096

/* One dispersed single pulse (an FRB-like burst). */
typedef struct {
    double t_s;        /* centre of the top hat at the highest channel (fch1), s from the start of sample 0 */
    double dm;         /* pc cm^-3 */
    double width_ms;   /* full width of the top hat, ms, > 0 */
    double snr;        /* band-summed S/N of a dedispersed sample fully covered by the pulse */
} xc_synth_pulse;

/* A periodic pulsar: a top hat centred on phase 0.5, phase = (t - delay)/P.
 * Orbit and spin-derivative fields will be added here. */
typedef struct {
    double period_ms;  /* 0: no periodic pulsar */
    double width_pct;  /* duty cycle, percent of the period, in (0, 100] */
    double snrpeak;    /* band-summed S/N of an on-pulse dedispersed sample */
    double dm;         /* pc cm^-3 */
} xc_synth_pulsar;

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
    xc_bitorder bitorder;             /* sub-byte packing, default LSB (SIGPROC) */
    /* signals */
    xc_synth_pulsar psr;
    xc_synth_pulse *pulses;           /* owned; append with xc_synth_params_add_pulse */
    size_t npulses, pulses_cap;
    /* execution: never changes the bytes written */
    size_t chunk;                     /* spectra per chunk, 0: automatic */
    int nthreads;                     /* OpenMP threads, 0: the OpenMP default */
    xc_synth_progress_fn progress;    /* may be NULL */
    void *progress_ctx;
} xc_synth_params;

/* fake's defaults (nchans 128, nbits 4, tsamp 80 us, tobs 10 s, fch1 433.968,
 * foff -0.062, tstart 50000, width 4 %, snrpeak 1), smearing and noise on, seed 1,
 * convention "crosscheck", no periodic pulsar (fake picks a random period and
 * DM; we make "no pulsar" the default so noise-only files need no option), no pulses. */
void xc_synth_params_init(xc_synth_params *p);
void xc_synth_params_free(xc_synth_params *p);
/* Appends a copy of *pulse.  XC_ENOMEM. */
xc_status xc_synth_params_add_pulse(xc_synth_params *p, const xc_synth_pulse *pulse, xc_error *err);
/* Checks every value.  Messages start with `source` (a file name, or NULL) and
 * name the JSON field and the CLI option, e.g. "tsamp_us (-tsamp) = 0: must be > 0".
 * XC_EINVAL. */
xc_status xc_synth_params_check(const xc_synth_params *p, const char *source, xc_error *err);
/* Reads the JSON object found under `key` (the top level if key is NULL) of
 * json_path and sets the fields it has:
 *   nchans nbits tsamp_us tobs_s fch1 foff tstart seed convention smear noise
 *   bitorder period_ms width_pct snrpeak dm pulses:[{t_s,dm,width_ms,snr}]
 * Pulses are appended.  An unknown field, a wrong type or a bad value is
 * XC_EINVAL naming the file, the field and the value; an unreadable file
 * XC_EIO; invalid JSON XC_EFORMAT (with line and column). */
xc_status xc_synth_params_load(xc_synth_params *p, const char *json_path, const char *key, xc_error *err);
/* The same from a jansson object already in memory (a json_t *); `source`
 * names it in messages (e.g. "run.json: synthetic[2].synth"). */
struct json_t;
xc_status xc_synth_params_from_json(xc_synth_params *p, const struct json_t *obj, const char *source,
                                    xc_error *err);

/* Samples written: round(tobs/tsamp). */
uint64_t xc_synth_nsamp(const xc_synth_params *p);
/* Channel width as written: -|foff|. */
double xc_synth_foff(const xc_synth_params *p);
/* Delay in s of frequency f (MHz) after the top channel fch1 for the given DM. */
double xc_synth_delay(const xc_synth_params *p, double dm, double f);
/* Default truth name: PATH with a trailing ".fil" replaced by ".truth.json"
 * (appended otherwise).  XC_EINVAL if it does not fit in n bytes. */
xc_status xc_synth_truth_path(const char *path, char *out, size_t n, xc_error *err);

/* Writes the filterbank to `path` and the truth JSON to `truth_path` (NULL:
 * xc_synth_truth_path), both atomically: on error neither exists.  `cmdline`
 * (may be NULL) is recorded in the truth file.  Memory is bounded by the chunk
 * size whatever tobs.  OpenMP threads split the spectra of a chunk for noise
 * and quantisation and its channels for the pulses; no value's sum depends on
 * the split.  XC_EINVAL (bad params), XC_EIO, XC_ENOMEM. */
xc_status xc_synth_write(const xc_synth_params *p, const char *path, const char *truth_path,
                         const char *cmdline, xc_error *err);

/* ---- the pieces, exposed so tests can recompute any written value ---------- */
/* Philox4x32-10 (Salmon et al. 2011, Random123), one block. */
void xc_synth_philox4x32_10(const uint32_t ctr[4], const uint32_t key[2], uint32_t out[4]);
/* The noise value of (sample, chan): N(0,1), rounded to float as in the file. */
float xc_synth_noise(uint64_t seed, uint64_t sample, int chan);
/* Noise for channels [0, nchans) of one spectrum into out[nchans]; equals
 * xc_synth_noise for every channel. */
void xc_synth_noise_spectrum(uint64_t seed, uint64_t sample, int nchans, float *out);
/* The integer level of value x (noise sigmas) for nbits 1..16 (see above). */
uint16_t xc_synth_quantise(float x, int nbits);

#ifdef __cplusplus
}
#endif
#endif
