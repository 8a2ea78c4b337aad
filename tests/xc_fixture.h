/* xc_fixture.h: test data several CUnit test programs share, linked into each
 * like xc_test.c: a random filterbank block with its DM plan and dedispersion
 * job (the dedispersers' tests), and files under the test program's temporary
 * directory (the synthesizer's and the populations' tests).  The functions
 * assert with CUnit (the _FATAL ones end the calling case), so a failure is
 * reported against the case that called them. */
#ifndef XC_FIXTURE_H
#define XC_FIXTURE_H

#include <stddef.h>
#include <stdint.h>

#include "compare/conform/xc_conform.h"
#include "core/search/xc_accel.h"
#include "core/dedisp/xc_dedisperse.h"
#include "core/search/xc_search.h"
#include "synth/model/xc_synth.h"

/* ---- a filterbank block and its dedispersion job --------------------------- */

typedef struct {
    xc_geometry g;
    xc_dmplan plan;
    const xc_convention *cv;
    xc_block blk;
    uint16_t *u16;
    float *f32;
    xc_ddjob job;
    int ok;          /* job initialised: xc_fx_free frees it */
    uint8_t *mask;   /* NULL, or the kill mask xc_fx_free frees */
} xc_fixture;

/* xorshift64*: enough for test data, state owned by the caller. */
uint64_t xc_fx_rng_next(uint64_t *s);

/* Parses the plan and computes the samples needed for nout outputs at full
 * resolution; allocates (zeroed) data of that length. */
void xc_fx_init(xc_fixture *f, int nchans, int nbits, double fch1, double foff, double tsamp, const char *plan,
                const char *preset, size_t nout);
/* xc_fx_init, xc_fx_random (seed) and xc_fx_job with every channel kept. */
void xc_fx_random_job(xc_fixture *f, int nchans, int nbits, double fch1, double foff, double tsamp, const char *plan,
                      const char *preset, size_t nout, uint64_t seed);
/* Fills the block with values drawn from seed: uniform in [0, 2^nbits) for
 * integer data, in [0, 100) for float data. */
void xc_fx_random(xc_fixture *f, uint64_t seed);
/* Sets every value of an integer block to v. */
void xc_fx_fill(xc_fixture *f, uint16_t v);
/* Builds f->job over the block (mask: NULL, or 1 per channel kept). */
void xc_fx_job(xc_fixture *f, const uint8_t *mask);
void xc_fx_free(xc_fixture *f);
/* Writes f's integer block (u16) as a SIGPROC filterbank of its geometry
 * and nbits at path (a test fails where it cannot). */
void xc_fx_write_fil(const xc_fixture *f, const char *path);
/* Writes nsamp spectra v (channel fastest, values below 2^nbits) as a SIGPROC
 * filterbank of geometry g (tstart MJD 60000) at path. */
void xc_fx_write_fil_u16(const char *path, const xc_geometry *g, int nbits, const uint16_t *v, size_t nsamp);

/* Checks one fixture (f->job built) named what; returns its mismatches. */
typedef int (*xc_fx_check)(xc_fixture *f, const char *what, const void *ctx);
/* Every integer nbits (1, 2, 4, 8, 16) under every convention preset: 13
 * channels of random data (seed 100 + 10 * nbits index + preset index) at
 * 1500 MHz down by 8 MHz, 100 us, under plan with nout outputs, each handed to
 * check.  Returns the sum of check's mismatches. */
int xc_fx_each_nbits_preset(const char *plan, size_t nout, xc_fx_check check, const void *ctx);

/* The killmask cases' masks (free()d by the caller): trial 2 kills every
 * channel, trial 1 all but the middle one, any other about a quarter at
 * random, drawn from *s (untouched for trial 2). */
uint8_t *xc_fx_killmask(int nchans, int trial, uint64_t *s);
/* The float cases: nchans channels of random 32-bit data (seed) over 100 MHz
 * below 1500 MHz, 100 us, under plan and preset with nout outputs, job built;
 * all channels kept, or (kill) channel 3 of every 7 killed.  Returns the
 * number kept. */
int xc_fx_float_case(xc_fixture *f, int nchans, const char *plan, const char *preset, int kill, size_t nout,
                     uint64_t seed);

/* ---- the hand-worked cases of the approximate dedispersers ----------------- */

/* One dedispersion case of the equality tables: a band of 300 MHz below 1500 MHz in
 * nchans channels of nbits, plan and preset as named, channels masked by kill. */
typedef struct {
    int nchans, nbits, nsub;
    double dmsub;
    const char *plan, *preset;
    char kill;
} xc_fx_ddcase;

/* The equality cases shared by the tree and gpu dedisperser tests (nsub as
 * subband takes it; xc_fx_tree_nsub for the trees). */
extern const xc_fx_ddcase xc_fx_ddcases[];
extern const size_t xc_fx_nddcases;
/* The largest power of two at most nsub (0 stays 0: the default). */
int xc_fx_tree_nsub(int nsub);

/* Makes in for case c with nout outputs (tsamp 1e-4 s), random data from seed and
 * the case's mask (mask seed 5); a failure is a fatal assertion. */
void xc_fx_ddcase_input(xc_conform_ddinput *in, const xc_fx_ddcase *c, size_t nout, uint64_t seed);

/* ---- the integer spread against its bound (subband and tree plans) ---------- */

/* What the spread checks gather: whether the bound without its rounding terms
 * broke somewhere, the smallest bound - spread, how many trials were seen. */
typedef struct {
    int tight_broken, margin;
    size_t ntrials;
} xc_fx_spread;

/* A job of nc 8-bit channels below 1500 MHz (foff MHz wide, tsamp 64 us,
 * crosscheck convention) under plan text dmplan with options o; a failure is a
 * fatal assertion.  Free with xc_fx_spread_job_free. */
void xc_fx_spread_job(xc_dmplan *plan, xc_ddjob *job, int nc, double foff, const char *dmplan, xc_ddopts o);
void xc_fx_spread_job_free(xc_dmplan *plan, xc_ddjob *job);
/* One trial's spread: asserts spread <= bound and counts it (tight: the bound
 * without its rounding terms).  Returns whether the bound broke. */
int xc_fx_spread_add(xc_fx_spread *s, int spread, int bound, int tight);
/* Asserts the bound without its rounding terms broke somewhere and prints the tally. */
void xc_fx_spread_check(const xc_fx_spread *s);

/* The float-bound case: 128 float channels below 1500 MHz (2 MHz wide, tsamp
 * 1e-4 s), plan "0:100:1:1,100:200:2:2", 4200 outputs, random data from seed 7;
 * a failure is a fatal assertion. */
void xc_fx_float_input(xc_conform_ddinput *in);

/* Direct dedispersion (xc_dd_reference) against each of d[0..nd) with options o,
 * over nchans 8-bit channels below 1400 MHz (3.7 MHz wide, tsamp 1e-4 s) under
 * plan and preset with nout outputs, random data from seed, channels masked
 * 'q' (mask seed 3): asserts every plane equal, what naming the comparison. */
void xc_fx_direct_equal(int nchans, const char *plan, const char *preset, size_t nout, uint64_t seed,
                        const xc_ddopts *o, const xc_dedisperser *const *d, int nd, const char *what);

/* 4 channels at 1000, 800, 600, 400 MHz, 8 bits, tsamp 1 ms, crosscheck
 * convention, under plan with 4 outputs, x[t][c] = (c+1) t; job built over it
 * with options o.  Ends the case if either cannot be made. */
void xc_fx_hand_input(xc_conform_ddinput *in, const char *plan, const xc_ddopts *o, xc_ddjob *job);
/* Frees what xc_fx_hand_input made. */
void xc_fx_hand_free(xc_conform_ddinput *in, xc_ddjob *job);
/* Runs ref and cpu over in with o: asserts that each plane's range 0 has 4
 * samples, its 3 trials exactly want. */
void xc_fx_hand_planes(const xc_dedisperser *ref, const xc_dedisperser *cpu, const xc_conform_ddinput *in,
                       const xc_ddopts *o, const float want[3][4]);

/* ---- planes ----------------------------------------------------------------- */

/* 1 if the planes are identical bit for bit; else prints what differs (how
 * many values, and the first) and returns 0. */
int xc_fx_planes_equal(const xc_plane *a, const xc_plane *b, const char *what);
/* Asserts per range that |p - ref| <= nkept * ds * 2^-24 * max|ref| (a float
 * sum of nkept * ds terms in any order; a NaN in p fails it) and that ref is
 * not all zero; prints the ranges out of bound and returns how many. */
int xc_fx_float_bound(const xc_plane *ref, const xc_plane *p, int nkept, const char *what);

/* ---- Pulscan peaks and candidates ----------------------------------------- */

/* The real series x[0..n) (n even) transformed by FFTW into PRESTO's .fft
 * layout in data[0..n): data[0] the DC term, data[1] the Nyquist term (both
 * real), then re, im of bins 1 .. n/2 - 1 (PRESTO realfft's packing). */
void xc_fx_real_fft(const double *x, size_t n, float *data);

/* 1 if the lists hold the same candidates in the same order: r, width and
 * numharm equal, power, sigma and logp within rtol relative (0: bit for
 * bit); else prints the first difference, prefixed by what, and returns 0. */
int xc_fx_same_cands(const xc_candlist *a, const xc_candlist *b, double rtol, const char *what);
/* 1 if the lists have the same length and every field of every candidate
 * is equal (bit for bit); else prints the first difference, prefixed by
 * what, and returns 0. */
int xc_fx_same_bits(const xc_candlist *a, const xc_candlist *b, const char *what);

/* ---- fields of a struct ------------------------------------------------- */

/* Asserts got[i] == want[i] exactly for i < n, each its own assertion: a
 * failure names the field (the i-th of the space-separated names) and prints
 * both values, against the caller's file and line. */
void xc_fx_assert_fields_at(const char *names, const double *got, const double *want, size_t n, const char *file,
                            unsigned line);
#define xc_fx_assert_fields(names, got, want, n) xc_fx_assert_fields_at((names), (got), (want), (n), __FILE__, __LINE__)

/* ---- statistics ------------------------------------------------------------ */

/* The least-squares line through (x[i], y[i]), i < n: returns its slope, with
 * the means of x and y (it passes through them) in *xmean and *ymean. */
double xc_fx_line_fit(const double *x, const double *y, size_t n, double *xmean, double *ymean);
/* Mean and rms about it of n values, float (f32) or integer (u16, when f32
 * is NULL), summed in double in two passes. */
void xc_fx_mean_rms(const float *f32, const uint16_t *u16, size_t n, double *mean, double *rms);

/* ---- synthesizer parameters ---------------------------------------------- */

/* xc_synth_params_init, then the observation: channels, bits, sampling time
 * (s), length (s), first channel and channel step (MHz). */
void xc_fx_synth_obs(xc_synth_params *p, int nchans, int nbits, double tsamp, double tobs, double fch1,
                     double foff);
/* The pulsar: period (ms), DM, duty cycle (%) and peak S/N per sample. */
void xc_fx_synth_psr(xc_synth_params *p, double period_ms, double dm, double width_pct, double snrpeak);
/* Asserts (exactly) that p describes that observation. */
void xc_fx_assert_synth_obs(const xc_synth_params *p, int nchans, int nbits, double tsamp, double tobs, double fch1,
                            double foff);

/* ---- files ------------------------------------------------------------------ */

/* name under xc_test_tmpdir() / xc_test_datasets().  The result lives in one of
 * 8 (datasets: 4) buffers reused in turn, so a few can be held at once. */
const char *xc_fx_tmp(const char *name);
const char *xc_fx_dataset(const char *name);
/* The whole file, NUL-terminated (not counted in *n; n may be NULL); NULL if
 * unreadable.
 * The caller frees it. */
unsigned char *xc_fx_slurp(const char *path, size_t *n);
/* 1 if both files can be read and hold the same bytes. */
int xc_fx_same_file(const char *a, const char *b);
int xc_fx_exists(const char *path);
/* out = <tmpdir>/name, <datasets>/sigpyproc3/name (the PRESTO and sigpyproc
 * files), as xc_fx_tmp and xc_fx_dataset but into the caller's buffer. */
void xc_fx_tmp_path(char *out, size_t n, const char *name);
void xc_fx_sigpyproc_path(char *out, size_t n, const char *name);
/* A skip test's body: non-zero with "<path> not found" when path does not
 * exist. */
int xc_fx_skip_missing(const char *path, char *why, size_t n);
/* Reads at most n - 1 bytes of the file into buf, NUL-terminated; a failure
 * to open ends the case. */
void xc_fx_read_text(const char *path, char *buf, size_t n);
/* How many entries of xc_test_tmpdir() have names starting with prefix (-1 if
 * it cannot be read). */
int xc_fx_count_prefix(const char *prefix);
/* Writes text to path (replacing it); a failure to open ends the case. */
void xc_fx_write_text(const char *path, const char *text);

/* The skip test of every GPU case: non-zero with the reason (the CUDA
 * runtime's, or "built without CUDA") when no usable device is here. */
int xc_fx_skip_gpu(char *why, size_t n);

/* A GPU transfer case's caller memory page-locked (xc_gpu_host_alloc): f's
 * input block when mode has bit 1, p's ranges in one block when it has bit 2
 * (at most 8 ranges); xc_fx_unpin puts f's and p's own buffers back and
 * frees the page-locked ones.  Without CUDA both do nothing. */
typedef struct {
    void *in, *plane;
    float *heap[8];
    int mode;
} xc_fx_pinned;
void xc_fx_pin(xc_fixture *f, xc_plane *p, int mode, xc_fx_pinned *pn);
void xc_fx_unpin(xc_fixture *f, xc_plane *p, xc_fx_pinned *pn);


/* The Pulscan search configurations both Pulscan test programs sweep: sizes
 * that are multiples of nothing, odd zmax, short last normalisation blocks,
 * every z sampling, both peak modes, both normalisations and both logp
 * forms; the first XC_FX_PS_SMALL are cheap enough for the reference. */
typedef struct {
    size_t nbins;
    int zmax, numharm, zstep, zlog, rblock, nosift;
    size_t chunk, normw;
    xc_norm_mode norm;
    xc_logp_mode logp;
    double sigma;
} xc_fx_pscfg;

#define XC_FX_PS_NCONFIGS 11
#define XC_FX_PS_SMALL 7
extern const xc_fx_pscfg xc_fx_ps_configs[XC_FX_PS_NCONFIGS];
/* The options of a configuration (the rest at their defaults). */
xc_psopts xc_fx_ps_opts(const xc_fx_pscfg *c);

/* ---- options and searches ----------------------------------------------- */

/* Dedispersion options: all zero but these (align: an XC_SUBALIGN_ value). */
xc_ddopts xc_fx_ddopts(int nsub, double dmsub, int align, int threads);
/* Accel options: the defaults but these. */
xc_accel_opts xc_fx_accel_opts(int zmax, int wmax, int numharm, int threads);
/* The plane b->out of one nonzero bin A_k0 = 1 against the exact powers
 * P(r, z) = |R(k0 - r; z)|^2 within each template's half-width, 0 beyond:
 * the largest |out - P| over every template and half-bin of b. */
double xc_fx_plane_delta_worst(const xc_accel_plan *p, const xc_accel_block *b, long k0);
/* Runs the accel searcher as (when non-NULL), else the Pulscan searcher ps,
 * over sp with opts (an xc_accel_opts for as, an xc_psopts for ps) into l,
 * initialised first; prints the implementation's name and message when it
 * fails.  Returns the status. */
xc_status xc_fx_search(const xc_accel_searcher *as, const xc_searcher *ps, const xc_spectrum *sp, const void *opts,
                       xc_candlist *l);
/* xc_fx_search of an accel searcher that ends the calling case when it fails. */
#define xc_fx_accel_or_fail(s, sp, o, l) CU_ASSERT_EQUAL_FATAL(xc_fx_search((s), NULL, (sp), (o), (l)), XC_OK)

/* The cpu searcher's stages as methods of any descriptor (self ignored):
 * what the tests' stand-in searchers wrap. */
xc_status xc_fx_cpu_powers(const xc_searcher *self, const xc_spectrum *sp, const xc_psopts *o, double *P,
                           xc_error *err);
xc_status xc_fx_cpu_peaks(const xc_searcher *self, const xc_spectrum *sp, const xc_psopts *o, const double *P,
                          const double *thr, xc_pspeaks *pk, xc_error *err);

/* The crosscheck binary the CLI tests run: $XC_BIN, else bin/crosscheck. */
const char *xc_fx_bin(void);
/* Skip test for the CLI cases: non-zero (with the path) when it is not built. */
int xc_fx_skip_no_bin(char *why, size_t n);
/* Runs `crosscheck ARGS` with its output discarded; the exit status, or -1
 * if it did not exit normally. */
int xc_fx_run_cli(const char *args);
/* The same, with what it wrote on stderr in errbuf (n bytes, NUL-terminated; NULL: not kept). */
int xc_fx_run_cli_err(const char *args, char *errbuf, size_t n);
/* xc_fx_run_cli_err with the arguments formatted as printf does (a line
 * longer than 2 KiB ends the case). */
int xc_fx_run_clif(char *errbuf, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Runs `sh -c CMD` (from the current folder), its stdout and stderr into
 * out (n bytes, through a file in the test's temporary folder); the exit
 * status, or -1 (also for a command too long).  No assertion, so a skip
 * test may call it outside a case. */
int xc_fx_sh(char *out, size_t n, const char *cmd);
/* The first n - 1 bytes of the file at path into buf, NUL-terminated ("" if unreadable). */
void xc_fx_slurp_into(const char *path, char *buf, size_t n);

#endif
