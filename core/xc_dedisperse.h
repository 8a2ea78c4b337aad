/* xc_dedisperse.h: the dedispersion interface and its registry.
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

#include "core/xc_dmplan.h"
#include "core/xc_error.h"

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

typedef struct {
    int threads;               /* 0: OpenMP default */
    int tile_t;                /* time samples per tile (0: implementation default) */
    int tile_dm;               /* DM trials per tile */
    int tile_c;                /* channels per tile */
    /* GPU implementations (ignored by CPU ones): */
    size_t gpu_max_bytes;      /* cap on device memory used, forcing time chunks (0: what is free) */
    int gpu_samps_per_thread;  /* 0: implementation default */
    int gpu_dms_per_block;
    int gpu_samps_per_block;
    int gpu_chans_per_stage;
    int gpu_autotune;          /* time the candidate settings on the device and keep the best */
    double *gpu_kernel_ms;     /* if not NULL, receives the kernel-only time of the run (ms) */
} xc_ddopts;

typedef struct {
    const xc_block *in;
    const xc_dmplan *plan;
    const xc_convention *conv;
    xc_geometry geom;
    const uint8_t *killmask;   /* nchans entries, non-zero = use; NULL = all */
    int32_t **delays;          /* per range: [ndm][nchans] in units of ds samples (owned) */
    int64_t max_delay;         /* plan's largest delay in original samples */
    size_t nout;               /* full-resolution output samples to compute */
    xc_ddopts opts;
} xc_ddjob;

/* Prepares a job: computes delays and max_delay and sets nout = nsamp - max_delay.
 * XC_EINVAL if the plan's largest delay is not smaller than in->nsamp (message
 * names both numbers), if nbits is unsupported or nchans < 1. */
xc_status xc_ddjob_init(xc_ddjob *job, const xc_block *in, const xc_dmplan *plan,
                        const xc_convention *conv, const xc_geometry *g,
                        const uint8_t *killmask, xc_error *err);
void xc_ddjob_free(xc_ddjob *job);

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

typedef struct {
    const char *name;          /* "reference", "cpu", "gpu", ... */
    const char *desc;
    /* Tolerance for float (nbits 32) input, relative to N*2^-24*max|ref| where
     * N = unmasked channels * ds; 0 means exact.  Integer input is always exact. */
    double float_tol;
    /* Returns 1 if usable here, else 0 with the reason in why. */
    int (*available)(char *why, size_t n);
    xc_status (*run)(const xc_ddjob *job, xc_plane *out, xc_error *err);
} xc_dedisperser;

/* The registry: NULL-terminated list of every built implementation. */
const xc_dedisperser *const *xc_dedisperser_list(void);
const xc_dedisperser *xc_dedisperser_get(const char *name);

/* Implementations (declared here so the registry and tests can reach them). */
xc_status xc_dedisperse_reference(const xc_ddjob *job, xc_plane *out, xc_error *err);
xc_status xc_dedisperse_cpu(const xc_ddjob *job, xc_plane *out, xc_error *err);

#ifdef __cplusplus
}
#endif
#endif
