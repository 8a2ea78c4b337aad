/* xc_dedisperse.h: the dedispersion interface: jobs, planes, plans and the
 * descriptor of an implementation.
 *
 * A job is one block of filterbank data held in memory (one IF, channel fastest)
 * plus a plan; every implementation fills the same plane from it.  Delays are
 * computed once by core (xc_delays_compute) and handed to the implementations,
 * so they differ only in how they add.
 *
 * Output of range k (downsample ds): nout/ds samples per trial, where nout is the
 * number of full-resolution output samples the job asks for; sample t is
 *     scale( sum_{c unmasked} x_ds[t + d(c)][c] ),
 *     x_ds[j][c] = sum_{i<ds} x[j*ds + i][c]
 * For integer input the sum is exact (uint64) and scaled by xc_scale_int, so
 * every implementation must agree bit for bit.  For float input the reference
 * adds in double; others state their tolerance in `tol`.
 */
#ifndef XC_DEDISPERSE_H
#define XC_DEDISPERSE_H

#include <stddef.h>
#include <stdint.h>

#include "core/dedisp/plan/xc_dmplan.h"
#include "core/base/xc_error.h"
#include "core/base/xc_impl.h"
#include "core/base/xc_nbits.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A block of input: nsamp spectra of nchans channels, channel fastest. */
typedef struct {
    int nchans;
    size_t nsamp;
    int nbits;                 /* 1,2,4,8,16: values in u16; 32: values in f32 */
    const uint16_t *u16;
    const float *f32;
} xc_block;

/* The sample kind of a block: 1 if its values are float32 (in f32), 0 if
 * unsigned integers (in u16). */
static inline int xc_block_is_float(const xc_block *b)
{
    return xc_nbits_is_float(b->nbits);
}

/* The request: what changes the output (and the thread count). */
typedef struct {
    XC_GROWN(front)
    int threads;               /* 0: OpenMP default */
    /* Subband dedispersers (core/dedisp/approx/xc_subband.h; ignored by the others; 0: defaults): */
    int nsub;                  /* subbands (0: chosen from the geometry, core/dedisp/approx/xc_ddloss.h; at most nchans) */
    double dmsub;              /* spacing of the nominal DMs, pc cm^-3 (0: chosen from subbudget) */
    int subalign;              /* xc_subalign: 0 centre (midway in delay), 1 highest channel (PRESTO), 2 early edge */
    double subbudget;          /* smear allowed when dmsub is 0, samples of ds*tsamp (0: 0.8, DDplan.py's) */
    /* Every approximate dedisperser (core/dedisp/approx/xc_ddloss.h; 0: defaults): */
    double maxloss;            /* largest declared S/N-loss bound accepted, a fraction (0: 0.2); the
                                * parameters left at 0 above are chosen to meet it */
    double losswidth;          /* the pulse width that bound is stated for, samples of each range (0: 8) */
    int subsplit;              /* subband dedispersers: xc_subsplit, how the channels are cut into subbands
                                * (0: equal delay spread; 1: equal width, PRESTO's) */
    XC_GROWN(back)
} xc_ddopts;

/* Backend tuning: how an implementation computes the same output (tile
 * sizes, kernel shapes, memory caps); each ignores the members that are not
 * its own; 0 everywhere: its defaults.  Given to a plan apart from the
 * request (xc_ddplan_create_tuned). */
typedef struct {
    /* CPU direct dedispersion (optimized/cpu): */
    int tile_t;                /* time samples per tile (0: implementation default) */
    int tile_dm;               /* DM trials per tile */
    int tile_c;                /* channels per tile */
    /* GPU implementations: */
    size_t gpu_max_bytes;      /* cap on device memory used, forcing time chunks (0: what is free) */
    int gpu_samps_per_thread;  /* 0: implementation default */
    int gpu_dms_per_block;
    int gpu_samps_per_block;
    int gpu_chans_per_stage;
    int gpu_autotune;          /* time the candidate settings on the device and keep the best */
    int gpu_serial;            /* 1: one stream, every launch waited for (kernel times without overlap);
                                * 0: time chunks pipelined through two streams (three where the input and
                                *    the host plane are page-locked) */
    int gpu_register;          /* 1: the pipeline page-locks the caller's pageable input and plane for the
                                * job (cudaHostRegister) and copies straight to and from them, instead of
                                * staging through its own page-locked buffers and a host copy; 2: the same,
                                * and the plan keeps each registration while later jobs pass the same
                                * address and size (unregistered when two jobs in a row have not passed
                                * it, or at the plan's destroy): such a buffer must stay allocated until
                                * then */
} xc_ddtune;

/* What a plan's implementation reports of its last execute (xc_ddplan_stats). */
typedef struct {
    const char *path;          /* the kernel path that ran: "smem", "direct", "cpu-tiled", "subband", "tree",
                                  "tree-padded" (an approximate entry's algorithm, core/dedisp/approx/xc_ddapprox.h),
                                  ...; "" where the implementation does not say */
    double kernel_ms;          /* kernels only, without copies (ms); -1 where the backend does not measure it */
    double setup_ms;           /* the state's setup in that execute (allocations, uploads, autotuning); -1: not measured */
    double exec_ms;            /* the rest of that execute (copies, packing, kernels, waits); -1: not measured */
    int chunks;                /* time chunks it ran in (1 where the backend does not chunk; 0: none ran yet) */
    size_t pinned_bytes;       /* page-locked host staging held (0: none) */
    double plan_seconds;       /* what the plan's create took (xc_ddplan_seconds) */
} xc_ddstats;

typedef struct {
    const xc_block *in;
    const xc_dmplan *plan;
    const xc_convention *conv;
    xc_geometry geom;
    int nbits;                 /* of the input the job was prepared for */
    const uint8_t *killmask;   /* nchans entries, non-zero = use; NULL = all */
    int32_t **delays;          /* per range: [ndm][nchans] in units of ds samples (owned) */
    int64_t max_delay;         /* plan's largest delay in original samples */
    size_t nout;               /* full-resolution output samples to compute */
    xc_ddopts opts;
    xc_ddtune tune;            /* backend tuning (zero: defaults) */
} xc_ddjob;

/* Prepares a job: computes delays and max_delay and sets nout = nsamp - max_delay.
 * XC_EINVAL if the plan's largest delay is not smaller than in->nsamp (message
 * names both numbers), if nbits is unsupported or nchans < 1. */
xc_status xc_ddjob_init(xc_ddjob *job, const xc_block *in, const xc_dmplan *plan,
                        const xc_convention *conv, const xc_geometry *g,
                        const uint8_t *killmask, xc_error *err);
void xc_ddjob_free(xc_ddjob *job);
/* The two halves of xc_ddjob_init: prepare computes the delays for blocks of
 * nchans channels and nbits bits (job->in stays NULL); bind checks a block
 * against them and sets in and nout.  A plan prepares once and binds per gulp. */
xc_status xc_ddjob_prepare(xc_ddjob *job, int nchans, int nbits, const xc_dmplan *plan, const xc_convention *conv,
                           const xc_geometry *g, const uint8_t *killmask, xc_error *err);
xc_status xc_ddjob_bind(xc_ddjob *job, const xc_block *in, xc_error *err);

/* The DM-time plane: one float32 array [ndm][nsamp] per range. */
typedef struct {
    int ds;
    size_t ndm;
    size_t nsamp;
    float *data;
} xc_planerange;

typedef struct {
    int nranges;
    xc_planerange *r;
} xc_plane;

/* Allocates the plane for a job: range k gets job->nout/ds samples. */
xc_status xc_plane_alloc(xc_plane *pl, const xc_ddjob *job, xc_error *err);
void xc_plane_free(xc_plane *pl);

/* ---- implementations ---------------------------------------------------- */

/* A dedisperser (family XC_FAMILY_DEDISPERSE): the common head, then the
 * plan/execute/destroy triple of FFTW and dedisp.  plan makes whatever the
 * implementation keeps between gulps (device buffers, uploaded delays, tuning)
 * from a job whose delays are set but whose input is not (proto->in is NULL);
 * execute runs one job of the same plan; destroy frees the state.  A
 * stateless implementation gives only run (plan, execute and destroy NULL).
 * impl.tol: XC_TOL_EXACT, or XC_TOL_ROUNDING with value v: float input within
 * v * N * 2^-24 * max|ref|, N = unmasked channels * ds (integer input always
 * bit for bit), or XC_TOL_SIGNAL_LOSS for approximate algorithms. */
/* The per-trial smearing bound an approximate dedisperser declares (see
 * core/dedisp/approx/xc_ddbound.h for its meaning and derivations). */
typedef struct {
    double smear;      /* S_cont, samples of the range */
    int32_t bound;     /* S, samples of the range */
    double nominal;    /* the DM the approximation is made at (subband: the nominal DM; tree: the trial's) */
} xc_ddbound;

struct xc_dedisperser;

/* Fills b[k] (k < job->plan->nranges, each job->plan->r[k].ndm entries,
 * allocated here) for a prepared job (delays, max_delay and opts set). */
typedef xc_status (*xc_ddbound_fn)(const struct xc_dedisperser *self, const xc_ddjob *job, xc_ddbound ***b,
                                   xc_error *err);

/* Every method gets its descriptor first (self), so one function serves
 * several entries that differ only in self->impl.data. */
typedef struct xc_dedisperser {
    xc_impl impl;
    xc_status (*plan)(const struct xc_dedisperser *self, const xc_ddjob *proto, void **state, xc_error *err);
    xc_status (*execute)(const struct xc_dedisperser *self, void *state, const xc_ddjob *job, xc_plane *out,
                         xc_error *err);
    void (*destroy)(const struct xc_dedisperser *self, void *state);
    xc_status (*run)(const struct xc_dedisperser *self, const xc_ddjob *job, xc_plane *out, xc_error *err);
    /* Approximate algorithms (XC_CAP_APPROXIMATE): the smearing bound each
     * output trial may show, judged by compare/xc_smear.h; NULL for exact ones. */
    xc_ddbound_fn bound;
    /* Optional: what the last execute on state ran (path, kernel time,
     * chunks; the members it does not measure left as xc_ddplan_stats
     * preset them).  state is NULL for an implementation with run only. */
    void (*stats)(const struct xc_dedisperser *self, const void *state, xc_ddstats *out);
} xc_dedisperser;

/* The descriptor behind a registry entry; NULL if impl is of another family. */
const xc_dedisperser *xc_dedisperser_of(const xc_impl *impl);

/* ---- plan / execute ------------------------------------------------------ */

/* A plan: one implementation, geometry, nbits, DM plan, convention, kill mask
 * and options, with the delays (and the implementation's state) made once. */
typedef struct xc_ddplan xc_ddplan;

/* Makes a plan.  plan and conv must outlive it; killmask (nchans entries, NULL
 * = all channels) and opts (NULL = defaults) are copied.  XC_EINVAL for an
 * unsupported nbits, nchans < 1 or an empty DM plan; the implementation's own
 * errors (XC_EDEVICE, ...). */
xc_status xc_ddplan_create(xc_ddplan **p, const xc_dedisperser *impl, const xc_geometry *g, int nbits,
                           const xc_dmplan *plan, const xc_convention *conv, const uint8_t *killmask,
                           const xc_ddopts *opts, xc_error *err);
/* The same with backend tuning (copied; NULL: defaults). */
xc_status xc_ddplan_create_tuned(xc_ddplan **p, const xc_dedisperser *impl, const xc_geometry *g, int nbits,
                                 const xc_dmplan *plan, const xc_convention *conv, const uint8_t *killmask,
                                 const xc_ddopts *opts, const xc_ddtune *tune, xc_error *err);
void xc_ddplan_destroy(xc_ddplan *p);
/* The plan's largest delay in original samples: a gulp of n spectra gives
 * n - max_delay output samples. */
int64_t xc_ddplan_max_delay(const xc_ddplan *p);
const xc_dedisperser *xc_ddplan_impl(const xc_ddplan *p);
/* Allocates the plane for a gulp of nsamp input spectra.  XC_EINVAL if
 * nsamp <= max_delay. */
xc_status xc_ddplan_plane_alloc(const xc_ddplan *p, size_t nsamp, xc_plane *pl, xc_error *err);
/* Dedisperses one gulp into out (from xc_ddplan_plane_alloc for in->nsamp).
 * XC_EINVAL if the block's nchans or nbits differ from the plan's, if
 * in->nsamp <= max_delay (naming both), or if out has the wrong shape. */
xc_status xc_ddplan_execute(xc_ddplan *p, const xc_block *in, xc_plane *out, xc_error *err);
/* Seconds the last create spent (delays and the implementation's plan). */
double xc_ddplan_seconds(const xc_ddplan *p);
/* What the last execute ran and how long its kernels took, as far as the
 * implementation reports it (xc_ddstats; before any execute: chunks 0). */
xc_status xc_ddplan_stats(const xc_ddplan *p, xc_ddstats *out);

#ifdef __cplusplus
}
#endif
#endif
