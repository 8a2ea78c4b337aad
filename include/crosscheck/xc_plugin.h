/* xc_plugin.h: crosscheck's plugin ABI, version 2.2.
 *
 * A plugin is a shared library that adds its own implementations to
 * crosscheck's registry, so that `list`, `run`, `bench`, `gate`, the
 * conformance suite and the study runner judge them like the built-in ones.
 * This header is all a plugin needs: it includes only <stddef.h> and
 * <stdint.h>, compiles as C (C99 or later) and as C++, and a plugin links
 * nothing of crosscheck.  What a plugin calls of crosscheck comes through the
 * host table it is handed (xcp_host: error messages, output scaling, raw
 * peaks).  Installed as <prefix>/include/crosscheck/xc_plugin.h by
 * `make install`; `pkg-config --cflags crosscheck` names its folder.
 *
 * The model is dedisp's dedisp.h (no includes of its own, plain types,
 * handles the caller cannot look into) and SQLite's sqlite3_vfs (a version
 * field, members only ever appended): every struct that crosses between
 * crosscheck and a plugin is declared here, not crosscheck's internal ones,
 * and starts with `size`, its sizeof as the side that made it was built:
 *   - views (xcp_ddjob, xcp_plane, xcp_spectrum, xcp_psopts, xcp_peak,
 *     xcp_spconf, xcp_spplane) are filled by crosscheck from its internal
 *     structs for each call; an internal struct can grow or be reordered
 *     without a plugin noticing;
 *   - descriptors (xcp_dedisperser, xcp_searcher, xcp_spsearcher) and the
 *     xcp_peak and xcp_spdet a plugin pushes carry the plugin's sizeof:
 *     crosscheck reads no member beyond it
 *     (a member a newer header appended reads as 0 / NULL);
 *   - elements of arrays (xcp_ddrange, xcp_planerange, xcp_ddbound) and
 *     xcp_error never change: what a later version adds per element comes as
 *     a new array appended to the view that holds them.
 * Every name here starts with xcp_ / XCP_ or XC_PLUGIN_.
 *
 * Versions (XC_PLUGIN_ABI_MAJOR.MINOR).  A minor version appends members to
 * the structs above and to xcp_host; a major version changes what is there.
 * crosscheck refuses a plugin built against another major version, or
 * against a newer minor one (it may read what this crosscheck does not
 * fill), with a message naming both versions; it checks before it calls
 * anything else of the plugin.  XCP_HAS(p, type, member) says whether the
 * struct p points to holds member.
 *   2.0  dedispersers, Pulscan searchers
 *   2.1  single-pulse searchers (xcp_spsearcher; xcp_host gains
 *        add_spsearcher, spdets_push, sp_row_stats, sp_box_baseline).  A 2.0
 *        plugin loads unchanged: its xcp_info and descriptors are as they were.
 *   2.2  a single-pulse searcher may take the whole rows' statistics of a
 *        search in gulps (xcp_spsearcher.row_stats; xcp_spplane gains row_s,
 *        row_m).  A 2.0 or 2.1 plugin loads unchanged (its row_stats reads
 *        0: it is handed no statistics and measures each plane's own).
 *
 * ---- Writing a plugin (C) ---------------------------------------------------
 *
 *   #include "xc_plugin.h"
 *
 *   static const xcp_host *host;
 *
 *   // job: the block (nchans x nsamp, channel fastest), the geometry, the
 *   // convention, the DM plan with crosscheck's delays per range; out: one
 *   // float32 [ndm][nsamp] array per range, nsamp = nout / ds.
 *   static xcp_status my_run(const xcp_dedisperser *self, const xcp_ddjob *job, xcp_plane *out, xcp_error *err)
 *   {
 *       ... sum the channels; out->range[k].data[j * nsamp + t] =
 *           host->scale_int(job, sum, job->range[k].ds);
 *       ... or on failure: return host->error_set(err, XCP_ENOMEM, "mine: out of memory");
 *       return XCP_OK;
 *   }
 *
 *   static const xcp_dedisperser mine = {
 *       .size = sizeof(xcp_dedisperser), .name = "mine", .desc = "my direct dedisperser",
 *       .tol_kind = XCP_TOL_ROUNDING, .tol_value = 1.0, .caps = XCP_CAP_THREADED, .run = my_run};
 *
 *   static xcp_status init(const xcp_host *h, xcp_error *err)
 *   {
 *       host = h;
 *       return h->add_dedisperser(h, &mine, err);
 *   }
 *
 *   XC_PLUGIN_DEFINE("mine", "1.0", init)
 *
 *   cc -std=c11 -O2 -shared -fPIC $(pkg-config --cflags crosscheck) -o libmine.so mine.c -lm
 *
 * Every method gets its descriptor as `self`; `data` is the plugin's own
 * (e.g. one kernel code registered twice with two settings).  A dedisperser
 * gives `run`, or `plan` (state from a job whose block is not set: u16, f32
 * NULL, nsamp 0), `execute` and `destroy`.  A Pulscan searcher gives
 * `powers` and `peaks`; crosscheck drives the rest of the pipeline
 * (thresholds, significance, sifting) as for its own searchers.  A
 * single-pulse searcher gives `detect`: the detections of one DM-time plane;
 * crosscheck drives the ranges of a plan and clusters the detections into
 * candidates as for its own (docs/SINGLEPULSE.md).
 *
 * ---- C++ and CUDA -------------------------------------------------------------
 *
 * The same source builds as C++ (XC_PLUGIN_DEFINE gives the entry C
 * linkage under C++, so it is found unmangled):
 *
 *   c++ -std=c++20 -O2 -shared -fPIC $(pkg-config --cflags crosscheck) -o libmine.so mine.cpp
 *
 * (C++20 takes the designated initialisers above in declaration order; for
 * older standards assign the members in init.)  A CUDA plugin keeps its
 * kernels and the code that launches them in a .cu file, the descriptor and
 * XC_PLUGIN_DEFINE in the same or in a C file:
 *
 *   nvcc -O3 -shared -Xcompiler -fPIC $(pkg-config --cflags crosscheck) -o libmine.so mine.cu -lcudart
 *
 * and says where it cannot run through `available` ("no CUDA device"), so
 * crosscheck skips it there instead of failing it.
 *
 * ---- What crosscheck enforces and provides ------------------------------------
 *
 * add_dedisperser / add_searcher / add_spsearcher return XCP_EINVAL with a
 * message naming the plugin and the descriptor for: a size below the ABI
 * version's that introduced it, no name, a name already registered in the
 * family, caps holding a bit not defined here, a missing method (dedisperser:
 * run, or plan and execute; searcher: peaks, and powers unless own_powers;
 * single-pulse searcher: detect; one whose tol_kind is not XCP_TOL_EXACT or
 * XCP_TOL_ROUNDING, or is approximate), an approximate dedisperser without bound or a
 * signal-loss tolerance (or bound on an exact one).  The
 * descriptor and its strings stay valid while the plugin is loaded (static
 * const).  Registered implementations carry crosscheck's `runtime` capability;
 * a plugin is never a reference (the built-in references define the
 * semantics).
 *
 * Isolation: every call into a plugin's kernel (a dedisperser's run, or its
 * plan + execute + destroy; a searcher's powers and peaks; a single-pulse
 * searcher's detect) runs in a child
 * process (fork) with a time limit, so a plugin that crashes or hangs is
 * reported as a failed check ("killed by signal 11", "did not finish within
 * 60 s") and never takes crosscheck down.  Environment:
 *   CROSSCHECK_PLUGINS            colon-separated list of plugins to load
 *   CROSSCHECK_PLUGIN_TIMEOUT     seconds one call may take (default 60)
 *   CROSSCHECK_PLUGIN_ISOLATE=0   call the plugin in-process (debuggers, bench)
 * available() and an approximate dedisperser's bound() are called
 * in-process.  A plugin that uses OpenMP in the child process may deadlock
 * when crosscheck had started its own OpenMP threads before the fork
 * (libgomp is not fork-safe); the time limit then reports it.  Set
 * CROSSCHECK_PLUGIN_ISOLATE=0 for such a plugin, or give it its own threads.
 * A CUDA plugin initialises the device in the child, each call anew. */
#ifndef XC_PLUGIN_H
#define XC_PLUGIN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define XC_PLUGIN_ABI_MAJOR 2
#define XC_PLUGIN_ABI_MINOR 2

/* The symbol a plugin exports (XC_PLUGIN_DEFINE writes it). */
#define XC_PLUGIN_ENTRY_NAME "xc_plugin_entry"

/* 1 if the struct p points to (of type `type`, starting with `size`) holds member. */
#define XCP_HAS(p, type, member) ((p)->size >= offsetof(type, member) + sizeof(((type *)0)->member))

#if defined(__GNUC__) || defined(__clang__)
#define XCP_PRINTF(f, a) __attribute__((format(printf, f, a)))
#define XCP_EXPORT __attribute__((visibility("default")))
#else
#define XCP_PRINTF(f, a)
#define XCP_EXPORT
#endif

/* ---- status and errors (the values of crosscheck's own codes) ---------------- */

typedef int xcp_status;
enum {
    XCP_OK = 0,
    XCP_EINVAL = 1,     /* invalid argument or option value */
    XCP_EFORMAT = 2,    /* malformed content */
    XCP_EIO = 3,        /* open/read/write failed */
    XCP_ENOMEM = 4,     /* allocation failed */
    XCP_EUNAVAIL = 5,   /* not available here (no device) */
    XCP_EMISMATCH = 6,  /* inputs that must agree do not */
    XCP_EDEVICE = 7     /* accelerator runtime error */
};

/* Filled by a failing method (host->error_set, or directly); never changes. */
typedef struct xcp_error {
    int code;
    char msg[1024];
} xcp_error;

/* ---- what a descriptor declares ------------------------------------------------- */

/* caps (crosscheck adds `runtime`; a plugin is never the reference) */
enum {
    XCP_CAP_THREADED = 1u << 1,     /* uses several CPU threads */
    XCP_CAP_DEVICE = 1u << 2,       /* runs on an accelerator; may be unavailable here */
    XCP_CAP_APPROXIMATE = 1u << 3,  /* judged by a signal-loss bound (tol_kind XCP_TOL_SIGNAL_LOSS) */
    XCP_CAP_RUNTIME = 1u << 4       /* added at run time (crosscheck sets it for every plugin's) */
};

/* tol_kind: how far the implementation may stand from the reference */
enum {
    XCP_TOL_EXACT = 0,       /* bit for bit, every input */
    XCP_TOL_ROUNDING = 1,    /* integer input bit for bit; float input within tol_value x the family's
                                rounding bound (dedispersion: N 2^-24 max|ref|, N = channels x ds) */
    XCP_TOL_RELATIVE = 2,    /* searchers: same candidates, power and sigma within tol_value, relative */
    XCP_TOL_SIGNAL_LOSS = 3  /* approximate: peak S/N at most a fraction tol_value below the reference's */
};

/* ---- dedispersion ------------------------------------------------------------------ */

/* The convention's delay rounding, delay precision and output scaling
 * (xcp_ddjob.rounding, .precision, .scaling). */
enum { XCP_ROUND_HALF_AWAY = 0, XCP_ROUND_HALF_EVEN = 1, XCP_ROUND_TRUNC = 2 };
enum { XCP_PREC_DOUBLE = 0, XCP_PREC_FLOAT = 1 };
enum { XCP_SCALE_SUM = 0, XCP_SCALE_DEDISP = 1, XCP_SCALE_MEAN_AA = 2 };

/* One range of the DM plan (an array element: never changes). */
typedef struct xcp_ddrange {
    int ds;                  /* downsample factor: input samples summed in groups of ds */
    size_t ndm;              /* DM trials */
    const double *dms;       /* ndm DMs, pc cm^-3, ascending */
    const int32_t *delays;   /* [ndm][nchans]: crosscheck's delay of each trial and channel in samples of
                                ds * tsamp, from the highest frequency, under the job's convention */
} xcp_ddrange;

/* One dedispersion job: a block of filterbank data and the plan.  Output of
 * range k: nout / ds samples per trial, sample t of trial j being
 *     scale( sum over unmasked channels c of x_ds[t + delays[j][c]][c] ),
 *     x_ds[i][c] = sum_{m < ds} x[i * ds + m][c]
 * (integer input: exact sums, scaled by host->scale_int, bit for bit as the
 * reference; float input: host->scale_real within the declared tolerance). */
typedef struct xcp_ddjob {
    size_t size;
    int nchans;              /* channels of a spectrum */
    int nbits;               /* 1, 2, 4, 8, 16: values in u16; 32: float values in f32 */
    size_t nsamp;            /* spectra in the block (0 in plan's job) */
    const uint16_t *u16;     /* nsamp x nchans, channel fastest (NULL unless nbits <= 16, and in plan) */
    const float *f32;        /* the same for nbits 32 */
    double fch1, foff;       /* MHz: channel c at fch1 + c * foff, either sign */
    double tsamp;            /* seconds */
    const char *convention;  /* the preset's name ("crosscheck", "presto", "dedisp", ...) */
    double kdm;              /* dispersion constant, s MHz^2 cm^3 / pc */
    int rounding;            /* XCP_ROUND_*: how the delays were rounded */
    int precision;           /* XCP_PREC_*: double from the exact formula, or dedisp's float table */
    int scaling;             /* XCP_SCALE_*: what host->scale_int / scale_real apply */
    int threads;             /* CPU threads asked for (0: the implementation's default) */
    int nranges;
    const xcp_ddrange *range;   /* nranges */
    int64_t max_delay;       /* the plan's largest delay in input samples */
    size_t nout;             /* full-resolution output samples: nsamp - max_delay */
    const uint8_t *killmask; /* nchans entries, non-zero = use the channel; NULL = all */
} xcp_ddjob;

/* One range of the output plane (an array element: never changes). */
typedef struct xcp_planerange {
    int ds;
    size_t ndm;
    size_t nsamp;            /* nout / ds */
    float *data;             /* [ndm][nsamp], allocated by crosscheck */
} xcp_planerange;

typedef struct xcp_plane {
    size_t size;
    int nranges;
    xcp_planerange *range;
} xcp_plane;

/* The smearing bound of one output trial an approximate dedisperser declares
 * (an array element: never changes): smear is the continuous deviation of
 * the approximated dispersion curve from the exact one, bound the integer
 * spread, both in samples of the range; nominal the DM the approximation is
 * made at. */
typedef struct xcp_ddbound {
    double smear;
    int32_t bound;
    double nominal;
} xcp_ddbound;

typedef struct xcp_dedisperser xcp_dedisperser;
struct xcp_dedisperser {
    size_t size;             /* sizeof(xcp_dedisperser) */
    const char *name;        /* what -impl takes */
    const char *desc;        /* one line for `crosscheck list` */
    int tol_kind;            /* XCP_TOL_* */
    unsigned caps;           /* XCP_CAP_* */
    double tol_value;
    const void *data;        /* the plugin's own, for its methods (self->data) */
    /* 1 if usable here, else 0 with the reason in why.  NULL: always. */
    int (*available)(const xcp_dedisperser *self, char *why, size_t n);
    /* Stateless: the whole job (or NULL, and the three below). */
    xcp_status (*run)(const xcp_dedisperser *self, const xcp_ddjob *job, xcp_plane *out, xcp_error *err);
    /* State made once from a job whose block is not set, one execute per
     * block of the same plan, destroy (may be NULL). */
    xcp_status (*plan)(const xcp_dedisperser *self, const xcp_ddjob *job, void **state, xcp_error *err);
    xcp_status (*execute)(const xcp_dedisperser *self, void *state, const xcp_ddjob *job, xcp_plane *out,
                          xcp_error *err);
    void (*destroy)(const xcp_dedisperser *self, void *state);
    /* XCP_CAP_APPROXIMATE only (else NULL): fills b[k][j], trial j of range
     * k, for a job whose block is not set. */
    xcp_status (*bound)(const xcp_dedisperser *self, const xcp_ddjob *job, xcp_ddbound *const *b, xcp_error *err);
};

/* ---- Pulscan searchers ------------------------------------------------------------- */

/* A spectrum in PRESTO's .fft layout. */
typedef struct xcp_spectrum {
    size_t size;
    size_t nbins;            /* complex bins */
    const float *data;       /* 2 * nbins floats (re, im); bin 0 holds (DC, Nyquist) and is never used */
    double dt;               /* seconds per time sample */
    double T;                /* observation length, 2 * nbins * dt */
} xcp_spectrum;

enum { XCP_NORM_EXACT = 0, XCP_NORM_MOM = 1 };   /* exact median and MAD, or the median of medians of 4 */
enum { XCP_LOGP_EXACT = 0, XCP_LOGP_POLY = 1 };  /* for crosscheck's significance; a stage may ignore it */

/* The search's options, as crosscheck's Pulscan pipeline documents them
 * (crosscheck's core/search/xc_search.h): */
typedef struct xcp_psopts {
    size_t size;
    int zmax;                /* widths 1 .. zmax + 1 (z = width - 1) */
    int numharm;             /* harmonic stages 1 .. numharm */
    int zstep;               /* widths with z % zstep == 0 ... */
    int zlog;                /* ... or, when 1, z in {0, 1, 2, 4, ...} */
    int rblock;              /* 1: one peak per R-block (chunkwidth starts) per width per stage */
    int nosift;
    int norm;                /* XCP_NORM_* */
    int logp;                /* XCP_LOGP_* */
    int threads;             /* 0: the implementation's default */
    size_t chunkwidth;       /* R-block width in starts */
    size_t normwidth;        /* normalisation block in bins */
    double sigma;            /* candidates kept above this sigma */
} xcp_psopts;

/* A raw peak (pushed with host->peaks_push): stage numharm, boxcar width,
 * start bin i, summed power.  logp (single-trial ln p) and filled (the fill
 * test) are set by a stage that scores its own peaks (own_powers), else
 * NAN and -1. */
typedef struct xcp_peak {
    size_t size;             /* sizeof(xcp_peak) */
    size_t i;
    int width, numharm;
    int filled;
    double power;
    double logp;
} xcp_peak;

/* crosscheck's list of raw peaks: a handle, filled only by host->peaks_push. */
typedef struct xcp_peaks xcp_peaks;

typedef struct xcp_searcher xcp_searcher;
struct xcp_searcher {
    size_t size;             /* sizeof(xcp_searcher) */
    const char *name;
    const char *desc;
    int tol_kind;            /* XCP_TOL_EXACT or XCP_TOL_RELATIVE */
    unsigned caps;
    int own_powers;          /* 1: peaks computes the powers itself (P is NULL) and sets logp and filled */
    double tol_value;
    const void *data;
    int (*available)(const xcp_searcher *self, char *why, size_t n);
    /* Normalisation and powers: P[0 .. nbins-1] (P[0] = 0). */
    xcp_status (*powers)(const xcp_searcher *self, const xcp_spectrum *sp, const xcp_psopts *o, double *P,
                         xcp_error *err);
    /* Harmonic sums, boxcars and raw peaks above thr[(h - 1) * (zmax + 2) + width] pushed into pk. */
    xcp_status (*peaks)(const xcp_searcher *self, const xcp_spectrum *sp, const xcp_psopts *o, const double *P,
                        const double *thr, xcp_peaks *pk, xcp_error *err);
};

/* ---- single-pulse searchers (ABI 2.1) ------------------------------------------------ */

/* The row statistics of the search's preset (xcp_spconf.stat): per block of
 * `block` samples the median and one robust rms per row (1.4826 x the median
 * absolute deviation; presets heimdall, presto), or one block with the mean
 * and the standard deviation (astroaccelerate). */
enum { XCP_SP_MEDIAN_MAD = 0, XCP_SP_MEAN_SD = 1 };

/* What a single-pulse searcher runs with, resolved by crosscheck from the
 * family's options (preset, -threshold, -wmax / -widths) for one plane. */
typedef struct xcp_spconf {
    size_t size;
    int stat;                /* XCP_SP_* */
    int nwidths;             /* >= 1 */
    double threshold;        /* S/N */
    size_t block;            /* baseline block L, samples of the plane, >= 1 */
    const int32_t *widths;   /* nwidths boxcar widths, samples of the plane, ascending, each >= 1 */
    int threads;             /* 0: the implementation's default */
} xcp_spconf;

/* One DM-time plane (one range of a plan), float32 in host memory: row r is
 * DM trial dms[r], data[r * stride + t], t < nsamp.
 *
 * ABI 2.2: a search in gulps hands a searcher whose row_stats is 1 each gulp's
 * window of its rows (nsamp samples of longer rows) with the whole rows'
 * statistics, so that its S/N is the whole search's: row_s[r] is row r's rms,
 * row_m[r] (XCP_SP_MEAN_SD only; else NULL) its mean.  The searcher takes
 * them in place of the rms (and of the mean, m[0]) that host->sp_row_stats
 * gives for the window; the block medians stay the window's (its blocks are
 * the row's).  NULL (one gulp, or row_stats 0): the plane's own. */
typedef struct xcp_spplane {
    size_t size;
    const float *data;
    size_t nrows, nsamp, stride;
    double tsamp;            /* seconds per sample of this plane */
    int ds;                  /* series samples per sample of this plane */
    const double *dms;       /* nrows DMs, pc cm^-3 */
    const double *row_s;     /* ABI 2.2: nrows rms, or NULL */
    const double *row_m;     /* ABI 2.2: nrows means (XCP_SP_MEAN_SD), or NULL */
} xcp_spplane;

/* One detection (pushed with host->spdets_push): per row r and width
 * widths[windex], each maximal run of starts t (t + width <= nsamp) whose
 *     snr = (S - B) / (rms sqrt(width)),
 *     S = the box's sum in double, B = host->sp_box_baseline(...)
 * is >= threshold gives one detection at its largest snr (earliest t on
 * ties); begin = the run's first t, end = its last t + width.  Everything in
 * samples and rows of the plane; crosscheck places them in the series and
 * clusters them into candidates (snr, sample, width, dm_index, members,
 * begin/end) as for its own searchers.  A row whose rms is 0 gives nothing. */
typedef struct xcp_spdet {
    size_t size;             /* sizeof(xcp_spdet) */
    double snr;
    int64_t sample;          /* the best box's first sample */
    int32_t width, windex, dm_index;   /* width = widths[windex]; dm_index = the row */
    int64_t begin, end;
} xcp_spdet;

/* crosscheck's list of detections: a handle, filled only by host->spdets_push. */
typedef struct xcp_spdets xcp_spdets;

/* tol_kind: XCP_TOL_EXACT (the reference's list, S/N bit for bit, on every
 * plane) or XCP_TOL_ROUNDING (integer-valued planes bit for bit; float planes
 * the same list with S/N within the family's summation bound,
 * docs/SINGLEPULSE.md; tol_value is shown, the bound is the family's). */
typedef struct xcp_spsearcher xcp_spsearcher;
struct xcp_spsearcher {
    size_t size;             /* sizeof(xcp_spsearcher) */
    const char *name;
    const char *desc;
    int tol_kind;
    unsigned caps;
    double tol_value;
    const void *data;
    int (*available)(const xcp_spsearcher *self, char *why, size_t n);
    /* The detections of one plane, pushed into out in any order. */
    xcp_status (*detect)(const xcp_spsearcher *self, const xcp_spconf *c, const xcp_spplane *pl, xcp_spdets *out,
                         xcp_error *err);
    /* ABI 2.2: 1 when detect takes pl->row_s / row_m in place of its own rms
     * and mean (crosscheck then gathers them before a search in gulps). */
    int row_stats;
};

/* ---- the host table and the entry point ------------------------------------------------ */

typedef struct xcp_host xcp_host;
struct xcp_host {
    size_t size;
    int abi_major, abi_minor;   /* this crosscheck's XC_PLUGIN_ABI_MAJOR / MINOR */
    void *ctx;                  /* crosscheck's; not for the plugin */
    /* Register a descriptor (see the rules above).  XCP_EINVAL, XCP_ENOMEM. */
    xcp_status (*add_dedisperser)(const xcp_host *host, const xcp_dedisperser *d, xcp_error *err);
    xcp_status (*add_searcher)(const xcp_host *host, const xcp_searcher *s, xcp_error *err);
    /* Fills err (printf format) and returns code. */
    xcp_status (*error_set)(xcp_error *err, xcp_status code, const char *fmt, ...) XCP_PRINTF(3, 4);
    /* The job's convention's scaling of an integer or float channel sum of
     * range downsample ds: what the reference writes. */
    float (*scale_int)(const xcp_ddjob *job, uint64_t sum, int ds);
    float (*scale_real)(const xcp_ddjob *job, double sum, int ds);
    /* Appends a raw peak to pk.  XCP_ENOMEM. */
    xcp_status (*peaks_push)(xcp_peaks *pk, const xcp_peak *p, xcp_error *err);
    /* ABI 2.1: single-pulse searchers. */
    xcp_status (*add_spsearcher)(const xcp_host *host, const xcp_spsearcher *s, xcp_error *err);
    /* Appends a detection to out.  XCP_EINVAL (outside the plane, a width
     * not widths[windex], an snr not finite), XCP_ENOMEM. */
    xcp_status (*spdets_push)(xcp_spdets *out, const xcp_spdet *d, xcp_error *err);
    /* The reference's row statistics of x[0..n-1] under c: m[b] for the
     * max(1, n / block) blocks (the last holding the remainder; one, the
     * mean, for XCP_SP_MEAN_SD) and the rms *s; tmp holds n doubles. */
    void (*sp_row_stats)(const xcp_spconf *c, const float *x, size_t n, double *m, double *s, double *tmp);
    /* B of the box [t, t + w): over the blocks it overlaps, in increasing
     * order, (its samples in the block) x m[b], summed from 0.0 in double. */
    double (*sp_box_baseline)(const xcp_spconf *c, const double *m, size_t n, size_t t, size_t w);
};

/* What a plugin's entry returns.  abi_major and abi_minor come first in
 * every version, so any crosscheck can read them. */
typedef struct xcp_info {
    int abi_major, abi_minor;   /* XC_PLUGIN_ABI_MAJOR / MINOR the plugin was built with */
    size_t size;                /* sizeof(xcp_info) */
    const char *name;           /* the plugin's name, for messages */
    const char *version;        /* the plugin's own version */
    /* Adds the plugin's descriptors (host->add_*); host stays valid while
     * the plugin is loaded. */
    xcp_status (*init)(const xcp_host *host, xcp_error *err);
} xcp_info;

typedef const xcp_info *(*xcp_entry_fn)(void);

#ifdef __cplusplus
}
#define XCP_EXTERN_C extern "C"
#else
#define XCP_EXTERN_C
#endif

/* Defines the exported entry point of a plugin named NAME (a string), of
 * version VERSION, whose init function is INIT; C linkage under C++. */
#define XC_PLUGIN_DEFINE(NAME, VERSION, INIT) \
    XCP_EXTERN_C XCP_EXPORT const xcp_info *xc_plugin_entry(void); \
    XCP_EXTERN_C XCP_EXPORT const xcp_info *xc_plugin_entry(void) \
    { \
        static const xcp_info info = {XC_PLUGIN_ABI_MAJOR, XC_PLUGIN_ABI_MINOR, sizeof(xcp_info), (NAME), (VERSION), \
                                      (INIT)}; \
        return &info; \
    }

#endif
