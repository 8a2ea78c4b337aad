/* xc_gpu.h: C entry points of the CUDA implementations (optimized/gpu, .cu files).
 * Built only when the Makefile finds nvcc (CUDA=1); the registry lists them
 * then, and they report "unavailable: <CUDA runtime's reason>" on machines
 * without a usable device.  The header itself is plain C and may be included
 * by a build without CUDA (the functions are then not linked). */
#ifndef XC_GPU_H
#define XC_GPU_H

#include <stddef.h>

#include "core/search/xc_accel.h"
#include "core/dedisp/xc_dedisperse.h"
#include "core/base/xc_error.h"
#include "core/search/xc_search.h"
#include "core/sp/xc_spsearch.h"

#ifdef __cplusplus
extern "C" {
#endif

/* 1 if a CUDA device of compute capability >= 9.0 is usable; else 0 with the
 * CUDA runtime's reason (or "no CUDA device") in why. */
int xc_gpu_available(char *why, size_t n);
/* Name of device 0 and its properties as one line, for reports. */
xc_status xc_gpu_describe(char *buf, size_t n, xc_error *err);

typedef struct {
    char name[256];
    int cc_major, cc_minor;
    int sms;                   /* multiprocessors */
    int clock_khz;             /* peak SM clock */
    size_t global_bytes;
    size_t smem_block_optin;   /* shared memory one block may opt in to */
    size_t smem_per_sm;
    /* Theoretical shared-memory bandwidth as in the AstroAccelerate paper's
     * eq. (8): SMs x 32 banks x 4 bytes x clock, bytes/s. */
    double smem_bytes_per_s;
} xc_gpu_props;

/* Properties of device 0.  XC_EDEVICE with the runtime's message on failure. */
xc_status xc_gpu_properties(xc_gpu_props *p, xc_error *err);

/* Page-locked host memory (cudaHostAlloc).  An input block or plane ranges
 * placed there are copied by the pipelined dedisperser straight to and from
 * the device, without its pinned staging and host copies. */
xc_status xc_gpu_host_alloc(void **p, size_t bytes, xc_error *err);
void xc_gpu_host_free(void *p);
/* 1 if p points into page-locked host memory known to CUDA. */
int xc_gpu_is_pinned(const void *p);
/* Device memory (cudaMalloc) holding a copy of bytes of host memory at src
 * (src NULL: uninitialised), for a caller that hands a device view to a
 * searcher (a test placing a plane on the device); xc_gpu_free frees it
 * (NULL is fine). */
xc_status xc_gpu_upload(void **dev, const void *src, size_t bytes, xc_error *err);
void xc_gpu_free(void *dev);
/* Host-device copy bandwidth between page-locked host memory and the
 * device, bytes/s each way: the median of 3 copies of bytes after an untimed
 * one (CUDA events).  XC_EDEVICE naming the failing call. */
xc_status xc_gpu_bandwidth(size_t bytes, double *h2d, double *d2h, xc_error *err);

/* The forward FFT of n real samples (n even, 2..INT_MAX) in PRESTO's layout
 * (core/io/xc_fft.h) on the device (optimized/gpu/realfft_gpu.cu: Bluestein's
 * chirp z-transform in double through one power-of-2 cuFFT plan, rounded to
 * float once): x (host, page-locked for an asynchronous copy) to out (host,
 * n floats) and *dev, the same n floats on the device, valid until the next
 * run or free.  Its own bits, not FFTW's: the same on every run of a length.
 * One caller at a time per object; XC_EDEVICE naming the failing call. */
typedef struct xc_gpu_realfft xc_gpu_realfft;
xc_status xc_gpu_realfft_new(xc_gpu_realfft **f, xc_error *err);
xc_status xc_gpu_realfft_run(xc_gpu_realfft *f, const float *x, size_t n, float *out, const float **dev,
                             xc_error *err);
void xc_gpu_realfft_free(xc_gpu_realfft *f);

/* The descriptors (optimized/gpu/gpu_impls.c), listed in optimized/xc_impls.h. */
extern const xc_dedisperser xc_dd_gpu;
extern const xc_dedisperser xc_dd_gpu_direct;
extern const xc_dedisperser xc_dd_subband_gpu;
extern const xc_dedisperser xc_dd_tree_gpu;
extern const xc_dedisperser xc_dd_tree_padded_gpu;
extern const xc_searcher xc_ps_gpu;
extern const xc_accel_searcher xc_accel_gpu;
extern const xc_spsearcher xc_sp_gpu;

/* ---- dedispersion ------------------------------------------------------- */

#define XC_GPU_MAX_THREADS 512   /* threads per block of the shared-memory kernel */
#define XC_GPU_MAX_RANGES 32     /* ranges reported in xc_gpu_ddinfo */

/* What ran for one DM range. */
typedef struct {
    char kernel[32];           /* "smem-q4", "smem-q8", "smem-p16", "smem-w32", "smem-f32",
                                  with "-wide" when 64-bit sums are needed, or "direct" */
    int samps_per_thread;      /* effective settings (after rounding to supported values) */
    int dms_per_block;
    int samps_per_block;
    int chans_per_stage;
    int shift_span;            /* largest spread of delays inside one block's DMs (samples) */
    size_t smem_bytes;         /* dynamic shared memory per block */
    int autotuned;             /* 1 if the settings were chosen by timing candidates (through a
                                  state: on this job or an earlier one, and kept) */
    int candidates;            /* candidates timed by the autotuner */
    double kernel_ms;          /* dedispersion kernel time of this range (all chunks) */
} xc_gpu_ddrange;

/* Optional in/out record of one run (xc_dedisperse_gpu_info, _exec). */
typedef struct {
    /* in */
    int force_direct;          /* 1: use the direct (L1/cache) kernel for every range */
    int test_wide;             /* test hook: 64-bit-sum kernel instances even where 32 bits suffice */
    int test_period;           /* test hook: > 0 flushes narrow sums at least this often */
    int test_fault;            /* test hook: a fault after range 0's kernels: 1 a launch with an invalid
                                  configuration, 2 a kernel that traps (the context is lost: run it in a
                                  process of its own); the run must fail naming the stage "dd_fault" */
    double test_ramp;          /* test hook: > 0 plans the pipeline's chunk ramp as if the kernels took
                                  test_ramp times as long per output sample as the copy in (into staging,
                                  or the DMA's from page-locked input) per input spectrum (else the
                                  state's last pipelined job's measured rates) */
    int test_bands;            /* test hook: > 0 runs a job that may go banded (page-locked input and host
                                  plane, shared-memory kernels, pipelined) in DM bands of this many trials
                                  whatever the rates say; < 0 never bands a job */
    /* out */
    int nranges;               /* ranges described (min(plan ranges, XC_GPU_MAX_RANGES)) */
    xc_gpu_ddrange range[XC_GPU_MAX_RANGES];
    int nchunks;               /* time chunks the data was processed in */
    int ramp_chunks;           /* of them, the pipeline's first chunks, shorter than chunk_samples and
                                  growing, so the first chunk's copy in (which nothing hides) is short */
    int tail_chunks;           /* and the last ones, from page-locked input into a page-locked host plane:
                                  the ramp's lengths reversed, so the last chunk's plane copied out after
                                  the last kernel is short */
    int bands;                 /* a banded job's band kernels (each range's trials in bands over the whole
                                  time, each band's plane copied out in one piece; 0: time chunks) */
    int head_pieces;           /* and the pieces its head was dedispersed in while the input was uploaded */
    int pipelined;             /* 1: the chunks went through the pipeline's streams (tune.gpu_serial 0);
                                  then kernel_ms may include overlap with the other streams' copies and
                                  packing, and prep_ms, h2d_ms and d2h_ms cover only what ran before the
                                  pipeline (autotuning's chunk); 0: every launch timed on its own */
    int narrowed;              /* 1: the input (at most 8 bits) was staged and copied in one byte a sample */
    size_t pinned_bytes;       /* page-locked host staging held (pipeline) */
    size_t chunk_samples;      /* full-resolution output samples per chunk */
    size_t device_bytes;       /* device memory held after the run (all buffers; a state's, through _exec) */
    size_t budget_bytes;       /* the cap the chunk plan was made for */
    double kernel_ms;          /* dedispersion kernels, all ranges and chunks */
    double prep_ms;            /* transpose/scrunch/pack and delay-bound kernels */
    double autotune_ms;        /* kernel time spent timing candidates */
    double h2d_ms, d2h_ms;     /* host-device copies */
    /* Host clock of the call, in two parts.  setup_ms: the state's setup
     * (device allocations, the delays' upload and bounds), the job's chunk
     * plan and buffer growth, and autotuning: what a state's first job pays
     * and its later jobs (almost) do not.  exec_ms: the rest (copies,
     * packing, kernels, waits).  The event times above overlap both. */
    double setup_ms, exec_ms;
} xc_gpu_ddinfo;

/* AstroAccelerate-style shared-memory dedispersion; same semantics as
 * xc_dedisperse_reference (bit-identical for integer input, float input within
 * N * 2^-24 * max|ref|, N = unmasked channels * ds).  Tunables come from
 * job->tune (gpu_* fields).  Errors: XC_EINVAL for a plane of the wrong shape,
 * a negative tunable, or a gpu_max_bytes too small for one time chunk;
 * XC_ENOMEM for host memory; XC_EDEVICE for any CUDA error, the message naming
 * the call or kernel: "gpu: <kernel or call>: <CUDA error string>". */
xc_status xc_dedisperse_gpu(const xc_ddjob *job, xc_plane *out, xc_error *err);
/* The same, filling *info (may be NULL) with what ran.  Both are one job run
 * through a state of their own (xc_gpu_ddstate_create, _exec, _destroy). */
xc_status xc_dedisperse_gpu_info(const xc_ddjob *job, xc_plane *out, xc_gpu_ddinfo *info, xc_error *err);

/* Plan and execute: a state keeps what does not change from one job to the
 * next (device buffers, the delays on the device, the chosen settings), for a
 * caller that dedisperses data gulp by gulp.  One thread at a time uses a
 * state; states are independent of each other. */
typedef struct xc_gpu_ddstate xc_gpu_ddstate;   /* opaque */
/* An empty state; nothing is allocated on the device until its first job. */
xc_status xc_gpu_ddstate_create(xc_gpu_ddstate **st, xc_error *err);
/* Frees the state and its device memory; NULL is fine. */
void xc_gpu_ddstate_destroy(xc_gpu_ddstate *st);
/* Runs one job, as xc_dedisperse_gpu_info (same output, same errors).  A
 * plane whose ranges lie in device memory (cudaMalloc) stays there: the
 * chunks' planes are copied into it on the device, or, when one chunk covers
 * the job, the kernels write into it directly; nothing crosses PCIe but the
 * input (a plane partly on the device is XC_EINVAL).  The
 * first job binds the state to its plan, delays, convention, geometry,
 * nbits, nchans, max_delay, kill mask and tuning (job->tune's gpu_* fields,
 * and info's test hooks).  Later jobs must carry the same:
 * the same plan, delays, conv and killmask pointers (the delays and the mask
 * are read once: their contents must not change) and equal values of the
 * rest; they may differ in their input block (in, of any nsamp) and nout.  A
 * job that differs is XC_EINVAL with a message naming what differs.  The
 * device buffers grow when a job needs more (within the memory budget); each
 * range's setting, autotuned or not, is chosen on its first chunk and kept.
 * If the job that sets the state up on the device (its first with something
 * to add) fails, the state is left unbound and empty, and the next job binds
 * it afresh; a later failure keeps the binding, the delays and the settings. */
xc_status xc_dedisperse_gpu_exec(xc_gpu_ddstate *st, const xc_ddjob *job, xc_plane *out, xc_gpu_ddinfo *info,
                                 xc_error *err);

/* ---- subband and tree dedispersion (dd_approx_gpu.cu) -------------------------- */

/* Plan, execute and destroy of the GPU subband, piecewise-linear tree and
 * frequency-padded tree dedispersers, the algorithm read from the
 * descriptor (self->impl.data, core/dedisp/approx/xc_ddapprox.h): core's plans
 * (core/dedisp/approx/xc_subband.h, core/dedisp/approx/xc_tree.h) with the CPU versions' order of exact
 * additions, so integer input gives the references' planes bit for bit
 * (float input: the reference's double sums, in the CPU versions' order).
 * The plan is made on the host; the device is first touched by execute.
 * The stage-1 scratch takes at most a quarter of tune.gpu_max_bytes when
 * that is set, else a quarter of the free device memory; stats reports the
 * device time of the last execute's kernels (without the copies).  Errors as xc_dedisperse_gpu's ("subband-gpu: <call>: <reason>"). */
xc_status xc_gpu_approx_plan(const xc_dedisperser *self, const xc_ddjob *proto, void **state, xc_error *err);
xc_status xc_gpu_approx_execute(const xc_dedisperser *self, void *state, const xc_ddjob *job, xc_plane *out,
                                xc_error *err);
void xc_gpu_approx_destroy(const xc_dedisperser *self, void *state);
/* The last execute's path (the algorithm) and kernel time. */
void xc_gpu_approx_stats(const xc_dedisperser *self, const void *state, xc_ddstats *out);

/* ---- Pulscan ------------------------------------------------------------ */

/* Stage times of one search (CUDA events around each stage, ms), as the
 * Pulscan paper's Table 4, and what the boxcar stage found. */
typedef struct {
    double h2d_ms;             /* spectrum to the device */
    double separate_ms;        /* complex components into two arrays */
    double normalise_ms;       /* median and MAD per block (exact or median of medians), borrowing */
    double power_ms;           /* normalised powers */
    double decimate_ms;        /* harmonic sums S_h and their float copies */
    double boxcar_ms;          /* screen + exact (+ the R-block reduction) */
    double screen_ms;          /* float screen of every boxcar against its width's threshold */
    double exact_ms;           /* double boxcars, local maxima / R-block maxima of flagged groups */
    double logp_ms;            /* ln p of the peaks (exact or the paper's polynomial), fill tests */
    double d2h_ms;             /* peaks back to the host */
    double kernels_ms;         /* separate + normalise + power + decimate + boxcar + logp */
    double wall_ms;            /* host clock, device work of the search from h2d to d2h */
    size_t flagged_groups;     /* groups of 8 starts the screen passed to the exact kernel */
    size_t peaks;              /* raw peaks (before significance) */
    size_t device_bytes;       /* device memory allocated */
    int input_pinned;          /* the spectrum lay in page-locked memory (h2d asynchronous) */
} xc_gpu_psinfo;

/* The Pulscan search on the GPU: the pipeline of xc_search.h, the paper's GPU
 * stages (separate, normalise, power, decimate, boxcar with a per-group
 * maximum screen, log p).  Powers and boxcar sums are the CPU's bit for bit
 * (same double operations in the same order); log p is computed on the device
 * (ulps from the host's libm), and the fill test's quarter sums come from a
 * running sum over the flagged group's window (local maxima) or are summed
 * directly (R-block peaks) instead of the CPU's prefix sums over the whole
 * spectrum, so a fill decision could differ only for a quarter within ~1e-12
 * relative of the 1/16 boundary.  Same candidates as xc_pulscan_cpu; power
 * identical, sigma within 1e-9 relative.  XC_EDEVICE naming the kernel or
 * call on any CUDA error; the input checks of xc_pulscan_check_input. */
xc_status xc_pulscan_gpu(const xc_spectrum *sp, const xc_psopts *o, xc_candlist *out, xc_error *err);
/* The same, filling *info (may be NULL). */
xc_status xc_pulscan_gpu_info(const xc_spectrum *sp, const xc_psopts *o, xc_candlist *out, xc_gpu_psinfo *info,
                              xc_error *err);
/* A plan for searches of spectra of nbins bins with the options o (copied):
 * the device buffers, thresholds, searched widths and list space, made once,
 * so that each search only copies the spectrum in, queues the kernels, and
 * waits once for the counters and the peaks.  Execute checks the spectrum's
 * size and T on the host and its values' finiteness on the device (the same
 * error as xc_pulscan_check_input's, naming the first bad value); *info (may
 * be NULL) gets the stage times.  A spectrum in page-locked memory
 * (xc_gpu_host_alloc) is copied asynchronously.  One plan serves one host
 * thread at a time. */
typedef struct xc_psgpu_plan xc_psgpu_plan;
xc_status xc_pulscan_gpu_plan(size_t nbins, const xc_psopts *o, xc_psgpu_plan **plan, xc_error *err);
/* The raw peaks of sp through plan p (the searcher's peaks_in: core's
 * sessions, core/search/xc_search.h), as xc_pulscan_peaks_gpu would give them. */
xc_status xc_pulscan_gpu_peaks_planned(xc_psgpu_plan *p, const xc_spectrum *sp, xc_pspeaks *pk, xc_error *err);
xc_status xc_pulscan_gpu_execute(xc_psgpu_plan *plan, const xc_spectrum *sp, xc_candlist *out, xc_gpu_psinfo *info,
                                 xc_error *err);
void xc_pulscan_gpu_destroy(xc_psgpu_plan *plan);
/* The plan made again for spectra of nbins bins at o (thr: o's thresholds
 * for nbins, xc_pulscan_thresholds'; NULL: computed here), as
 * xc_pulscan_gpu_plan would make it, keeping its stream, events and every
 * buffer still large enough (each made a sixty-fourth larger than asked, so
 * that the next pulsar's slightly longer spectrum fits it): no device
 * memory freed (a cudaFree waits for the whole device).  On failure the
 * plan is fit only for destroy. */
xc_status xc_pulscan_gpu_replan(xc_psgpu_plan *plan, size_t nbins, const xc_psopts *o, const double *thr,
                                xc_error *err);
/* The normalised powers (stages separate..power), for the tests. */
xc_status xc_pulscan_powers_gpu(const xc_spectrum *sp, const xc_psopts *o, double *P, xc_error *err);
/* The raw peaks (through the boxcar stage, logp and filled also set). */
xc_status xc_pulscan_peaks_gpu(const xc_spectrum *sp, const xc_psopts *o, xc_pspeaks *pk, xc_error *err);

/* ---- matched-filter accel/jerk search (optimized/gpu/accel_gpu.cu) --------- */

/* The plane stage of core/search/xc_accel.h on the device: the CPU searcher's
 * overlap-save correlation (same segment length L and valid part V) in
 * single precision: the segments' FFTs by cuFFT, then each (template,
 * segment) pair's product, inverse FFT and power in one pass of a block's own
 * FFT (accel_gpu_plane1.cu; cuFFT for segment lengths it does not take); the templates' FFTs made once
 * (create) and kept on the device with the block buffers (grown to the
 * largest block, reused).  Harmonic sums, selection and significance are
 * core's (xc_accel_run), as for every accel searcher.  Errors: XC_EINVAL
 * for a plan or block it was not made for; XC_EDEVICE naming the CUDA or
 * cuFFT call ("gpu: accel <call>: <reason>"), out of device memory included
 * (the templates' FFTs, ntempl x L x 8 bytes, must fit); XC_ENOMEM. */
xc_status xc_accel_gpu_create(const xc_accel_searcher *self, const xc_accel_plan *p, void **state, xc_error *err);
xc_status xc_accel_gpu_plane(const xc_accel_searcher *self, void *state, const xc_accel_plan *p,
                             const xc_accel_block *b, xc_error *err);
void xc_accel_gpu_destroy(const xc_accel_searcher *self, void *state);
/* The searcher's own search (core/search/xc_accel.h `search`): the plane, harmonic
 * sums and thresholds on the device in blocks of at most 1 GiB of plane;
 * only points above threshold come back (optimized/gpu/accel_gpu_sums.cu). */
xc_status xc_accel_gpu_search(const xc_accel_searcher *self, void *state, const xc_accel_plan *p, const double *amp,
                              size_t nbins, long ilo, long iend, xc_accel_emit_fn emit, void *ctx, xc_error *err);
/* The same with the amplitudes read from the spectrum and its blocks'
 * scales (`search_amps`, the values search's would be rounded to), so that
 * core makes no array of them; its plane (whole) in a slot of p->gate where
 * the plan has one, taken only while the device works (takes_gate). */
xc_status xc_accel_gpu_search_amps(const xc_accel_searcher *self, void *state, const xc_accel_plan *p,
                                   const xc_accel_amps *a, long ilo, long iend, xc_accel_emit_fn emit, void *ctx,
                                   xc_error *err);
/* 1: state serves p (the same templates: `keeps`). */
int xc_accel_gpu_keeps(const xc_accel_searcher *self, void *state, const xc_accel_plan *p);

/* ---- single-pulse search (optimized/gpu/sp_gpu*.cu) ----------------------- */

/* The searcher's plan, execute and destroy (core/sp/xc_spsearch.h): per DM
 * trial the blocks' medians and the MAD rms (exact order statistics by
 * sampled selection) or the mean and standard deviation, every box's S/N
 * from prefix sums of tiles and the runs above threshold on the device; only
 * the detections come back.  The plan keeps small device buffers; a view
 * with `device` set is read where it lies (every row in one launch), a host
 * view is copied in batch by batch.  Integer-valued planes give
 * the reference's detections bit for bit; float planes' S/N (and the
 * astroaccelerate preset's mean and sd, whose sums run in a fixed tree
 * order rather than sample order) within rounding.  Errors: XC_EINVAL for a
 * plane longer than planned or a device view that is not device memory;
 * XC_EDEVICE naming the CUDA call or kernel ("gpu: sp <what>: <reason>"). */
xc_status xc_sp_gpu_plan(const xc_spsearcher *self, const xc_spconf *c, size_t nsamp, void **state, xc_error *err);
xc_status xc_sp_gpu_execute(const xc_spsearcher *self, void *state, const xc_spconf *c, const xc_spplane *pl,
                            xc_spdets *out, xc_error *err);
void xc_sp_gpu_destroy(const xc_spsearcher *self, void *state);
/* The device time (CUDA events) of a gpu searcher plan's kernels since the
 * last call, in ms (the statistics and the float filter from their first
 * launch to the filter's end, and the exact boxes), then set to 0: the
 * search timed alone, without the host's waits and copies between them. */
double xc_sp_gpu_take_kernel_ms(void *state);
/* A gpu searcher plan's host clock since the last call (then set to 0):
 * its execute calls (one a view, a DM range of a fused plane), of which the
 * waits for its stream and the host's sorting and joining of the
 * detections; the rest (total - wait - sort) is the host enqueueing work
 * (launches, small copies, checks). */
typedef struct {
    double total_s, wait_s, sort_s;
    unsigned calls, waits;
} xc_sp_gpu_trace;
void xc_sp_gpu_take_trace(void *state, xc_sp_gpu_trace *t);

/* ---- the fused pipeline: dedispersion and single-pulse search on the device (sp_fused.c) ---- */

/* 1 if dd writes its plane into device memory (gpu, gpu-direct) and s
 * searches a plane there (the gpu searcher): the pair xc_sp_gpu_fused runs. */
int xc_sp_gpu_fusable(const xc_dedisperser *dd, const xc_spsearcher *s);

typedef struct {
    double dedisperse_s;       /* host clock: the plane made in device memory (block in, kernels, no copy out) */
    double search_s;           /* host clock: the search of that plane, the candidates back and clustered */
    double search_kernel_s;    /* the search's kernels' device time (xc_sp_gpu_take_kernel_ms); execute only */
    xc_sp_gpu_trace search_trace; /* the search's host clock, step by step (xc_sp_gpu_take_trace); execute only */
    size_t plane_bytes;        /* device memory the plane took */
} xc_spfused_info;

/* Dedisperses in through p (a plan of a dedisperser xc_sp_gpu_fusable
 * accepts, made for plan) into a plane in device memory, and searches it
 * there with s under o, as xc_sp_search would search the host plane
 * (tsamp: the series' sample time): the same candidates, without the
 * plane's copy to the host.  The plane is freed before return (a plan,
 * below, keeps it for the next block); *info (may be
 * NULL) gets the two stages' times.  Errors: XC_EINVAL for a pair that is
 * not fusable or a block not longer than the plan's largest delay;
 * XC_EDEVICE when the plane does not fit in device memory (naming its
 * bytes) and for the stages' device errors. */
xc_status xc_sp_gpu_fused(xc_ddplan *p, const xc_dmplan *plan, const xc_block *in, double tsamp,
                          const xc_spsearcher *s, const xc_spopts *o, xc_spcandlist *out, xc_spfused_info *info,
                          xc_error *err);

/* The same as a plan, for a run of blocks (gulps): create once (p, plan and
 * s as above; p and plan must outlive it), execute per block, destroy.  The
 * plan keeps the device plane from one block to the next (grown when a
 * block needs more, never shrunk; freed by destroy), so a block pays the
 * plane's allocation only when it is longer than every earlier one;
 * xc_sp_gpu_fused is create, one execute and destroy.  Errors as
 * xc_sp_gpu_fused (the pair is checked by create). */
typedef struct xc_spfused xc_spfused;
xc_status xc_sp_gpu_fused_create(xc_spfused **f, xc_ddplan *p, const xc_dmplan *plan, double tsamp,
                                 const xc_spsearcher *s, xc_error *err);
xc_status xc_sp_gpu_fused_execute(xc_spfused *f, const xc_block *in, const xc_spopts *o, xc_spcandlist *out,
                                  xc_spfused_info *info, xc_error *err);
void xc_sp_gpu_fused_destroy(xc_spfused *f);

/* The same plan as a stream of blocks: submit dedisperses in into one of
 * two device planes while the search of the block submitted before (on a
 * host thread of its own, the searcher on its own device stream) reads the
 * other; then it waits for that search, appends its candidates to *prev
 * (may be NULL: dropped; *have_prev, may be NULL, 1 where there was one)
 * and starts the search of in's plane, which finish (or the next submit)
 * collects.  Each block's candidates are those execute gives it.  *info
 * gets in's dedispersion time and the previous block's search time.  in
 * may change once submit returns; o is copied.  Errors as execute (a
 * search's own at the submit or finish that collects it); execute while a
 * search is in flight: XC_EINVAL.  destroy waits for a search in flight
 * and drops its candidates. */
xc_status xc_sp_gpu_fused_submit(xc_spfused *f, const xc_block *in, const xc_spopts *o, xc_spcandlist *prev,
                                 int *have_prev, xc_spfused_info *info, xc_error *err);
xc_status xc_sp_gpu_fused_finish(xc_spfused *f, xc_spcandlist *out, int *have, double *search_s, xc_error *err);

#ifdef __cplusplus
}
#endif
#endif
