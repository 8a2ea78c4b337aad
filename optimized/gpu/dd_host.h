/* dd_host.h: what the files of the GPU dedisperser's host side share (C++,
 * nvcc only): the per-range plan, the state that outlives one job
 * (xc_gpu_ddstate, opaque in xc_gpu.h), the context of one job and the
 * functions one file calls in another.
 *   dedisperse_gpu.cu  the entry points: job checks, binding, the chunk loop, info
 *   dd_state.cu        the state's device side: setup on the first job (delays
 *                      uploaded, ranges measured), buffers grown per job, release
 *   dd_settings.cu     word format, flush periods, candidate settings and
 *                      which of them fit in shared memory
 *   dd_memplan.cu      device bytes per chunk length, the chunk plan of a job
 *                      (time chunks, or one banded chunk)
 *   dd_pipeline.cu     time chunks through the slots' streams
 *   dd_bands.cu        a banded job: DM bands over the whole time, each band's
 *                      plane copied out in one piece
 *   dd_launch.cu       per chunk: pack, tile delays, kernels, scaling, copy back
 *   dd_autotune.cu     the choice among the candidates that fit
 *   dd_hostreg.cu      the caller's pageable buffers page-locked for a job, or
 *                      kept so between jobs (tune.gpu_register)
 * The kernels and their launchers are declared in gpu_dd.h. */
#ifndef XC_DD_HOST_H
#define XC_DD_HOST_H

#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "core/dedisp/xc_dedisperse.h"
#include "core/base/xc_error.h"
#include "optimized/gpu/gpu_dd.h"

namespace xcdd {

/* defaults: 32 samples per thread (R = 32 / lanes per word, at most what the
 * format's instances have), one warp along time, 8 trials per block, 32
 * channels per stage; the fastest on an H200 of those `bench gpu -autotune`
 * tried (8-bit: 12.8 T adds/s at 32 channels per stage, 11.6 at 16) */
const int DEF_SPT = 32, DEF_WX = 1, DEF_DY = 8, DEF_CS = 32;
const int MAX_CAND = 16;
/* DM trials per autotune trial launch (all time tiles of the chunk) */
const size_t TUNE_DMS = 256;
/* the pipeline's chunking (dd_memplan.cu) and its cap on pinned host memory */
const size_t PIPE_CHUNKS = 4, PIPE_MIN_CHUNK = 32768;
const size_t PIPE_MAX_PINNED = (size_t)4 << 30;
/* bytes of a staged input chunk copied to the device at a time, so the copy
 * into staging of the next piece overlaps it (16 threads of 2 MiB) */
const size_t IN_PIECE = (size_t)32 << 20;
/* the first chunk, which nothing overlaps, goes in IN_FIRST_PIECES pieces
 * (of at least IN_PIECE_MIN bytes), so only the last, short one's copy is
 * left after its staging: at 512 channels the first chunk (23 MB, 8-bit)
 * was one piece, 0.5 ms of copy after 1 ms of staging */
const size_t IN_FIRST_PIECES = 8, IN_PIECE_MIN = (size_t)1 << 20;
/* the pipeline's ramp of chunks (dd_memplan.cu): at most RAMP_MAX chunks
 * growing from a short first one, each copy into staging at most 1 /
 * RAMP_MARGIN of the kernel time it hides behind; no chunk shorter than
 * RAMP_MIN outputs */
const int RAMP_MAX = 32;
const double RAMP_MARGIN = 1.5;
const size_t RAMP_MIN = 4096;
/* a banded job (dd_bands.cu): trials per band (rounded up to the range's
 * DM tile), band buffers in flight, the head's time pieces at most, and
 * the share of the kernels' time the plane's copy out must take for a job
 * to go banded (dd_memplan.cu) */
const size_t BAND_TRIALS = 128;
const int BAND_RING = 4;
const int BAND_PIECES = 16;
const double BAND_COPY_SHARE = 0.5;

/* the buffers one job may page-lock (tune.gpu_register): the input and the
 * plane's ranges */
const int MAX_REG = 1 + 64;

struct cfg {
    int R, wx, dy, cs;
};

/* One DM range.  Everything but nout and kernel_ms is fixed when the state
 * is set up (and the choice when the range first runs); those two are the
 * current job's. */
struct range_plan {
    int ds;
    size_t ndm, nout;          /* this range's trials, and the job's output samples */
    int fmt, wide;
    uint64_t vmax;
    int k1, k2, k3;
    int ncand;
    cfg cand[MAX_CAND];
    /* per candidate, measured before the memory plan: the largest spread of
     * delays inside one block's trials, and whether its tile fits in shared
     * memory (cs reduced if needed) */
    int spread[MAX_CAND], fits[MAX_CAND], rowlen[MAX_CAND];
    size_t smem[MAX_CAND];
    int nfit;
    int dmax;                  /* largest delay of the range (ds samples) */
    int32_t *d_del;            /* [ndm][nuse] on the device */
    int32_t *d_tmin;           /* the pipeline's tile delays of the chosen candidate, or NULL */
    int direct;                /* no candidate fits (or forced, or u64 words) */
    int decided, tuned, ntimed, use;   /* chosen candidate */
    double kernel_ms;          /* the job's kernel time of this range */
};

/* The chunk buffers (xc_gpu_ddstate's d_raw, d_Y, d_out, d_tmin; the
 * pipeline's second and third slots' raw, Y and plane buffers, empty without
 * them). */
enum { BUF_RAW, BUF_Y, BUF_OUT, BUF_TMIN, BUF_RAW1, BUF_Y1, BUF_OUT1, BUF_RAW2, BUF_Y2, BUF_OUT2, BUF_N };
/* the pipeline's slots: three where the input and the host plane are
 * page-locked (no host copy), else two */
const int MAX_SLOTS = 3;

/* One slot of the pipeline (dd_pipeline.cu): a stream, the device buffers of
 * one time chunk (slot 0 uses the state's d_raw, d_Y, d_out; slots 1 and 2 their own),
 * pinned staging for the chunk's input and all its ranges' planes, and a
 * pair of events per range around its kernels. */
struct slot {
    cudaStream_t st;
    int have_st;
    void *d_raw, *d_Y;
    float *d_out;
    void *h_in;                /* pinned: the raw chunk */
    float *h_out;              /* pinned: every range's plane of the chunk, one after the other */
    size_t cap_in, cap_out;    /* bytes of h_in, h_out */
    cudaEvent_t *ev;           /* [nr][2] around the kernels, then [nr] after each staged copy out, then
                                  2 around a page-locked input's copy in */
    int nev;
    long chunk;                /* the chunk in flight, or -1 */
    size_t W;                  /* its input spectra */
    int timed_in;              /* its copy in has the event pair (page-locked input) */
    char names[200];           /* the kernels launched for it, for an error */
};

/* A caller's buffer the state keeps page-locked (tune.gpu_register = 2):
 * address, bytes, the last job that passed it. */
struct hostreg {
    void *p;
    size_t n;
    long job;
};

} // namespace xcdd

/* What outlives one job: the binding (what every later job must share with
 * the first), the ranges' plans with their delays on the device and their
 * choices, and the buffers, which grow when a job needs more. */
struct xc_gpu_ddstate {
    /* the binding, recorded from the first job */
    int bound;
    const xc_dmplan *plan;
    int32_t **delays;
    const uint8_t *killmask;
    const xc_convention *conv;
    xc_geometry geom;
    int nbits;
    int64_t max_delay;
    xc_ddtune tune;            /* the gpu_* settings the state is bound to */
    int force_direct, test_wide, test_period, test_fault;
    int nc, nuse, nr, maxds;
    /* the device side, set up by the first job with something to add */
    int ready;
    int *h_chan;               /* unmasked channels, or NULL when none is masked */
    int *d_chan;
    xcdd::range_plan *rp;
    size_t esize;              /* bytes per raw sample */
    size_t smem_optin, smem_sm;   /* shared memory one block may opt in to; one SM's */
    int *d_stats;
    cudaEvent_t ev0, ev1;
    int have_ev;
    /* the chunk buffers and their sizes in bytes (cap[BUF_RAW] ...) */
    void *d_raw;               /* the raw chunk */
    void *d_Y;                 /* channel-major words */
    float *d_out;              /* the plane of one range and chunk */
    int32_t *d_tmin;           /* tile delays */
    void *d_raw1, *d_Y1;       /* the pipeline's second slot */
    float *d_out1;
    void *d_raw2, *d_Y2;       /* and third (a host plane's pipeline) */
    float *d_out2;
    xcdd::slot sl[xcdd::MAX_SLOTS];
    size_t cap[xcdd::BUF_N];
    size_t allocated;          /* device bytes held, all buffers */
    /* what the tile-delay buffer holds (the delays never change: valid across jobs) */
    int tmin_range, tmin_dy;
    /* the last staged pipelined job's rates: host clock of the copy into
     * staging per input spectrum, kernel time per output sample (all
     * ranges), both in ns; 0 before one (the chunk ramp's inputs) */
    double stage_ns, kernel_ns;
    /* the last pipelined job with a page-locked input: device time of its
     * copies in per input spectrum (ns), the ramp's copy rate for such input */
    double dma_ns;
    /* and its kernels' own event times summed per output (ns): the windows
     * behind kernel_ns also hold the copies out a slot's stream runs between
     * its ranges' kernels */
    double kern_ns;
    /* the caller's buffers kept page-locked between jobs (dd_hostreg.cu),
     * and the jobs that could register so far */
    xcdd::hostreg kept[xcdd::MAX_REG];
    int nkept;
    long jobs;
    /* a banded job's streams (upload, packing, two for kernels, copies
     * out) and events (dd_bands.cu) */
    cudaStream_t bst[5];
    cudaEvent_t bev[4 + xcdd::BAND_RING];
    int have_bands;
};

namespace xcdd {

/* One job run through a state. */
struct ctx {
    xc_gpu_ddstate *s;
    const xc_ddjob *job;
    xc_plane *out;
    xc_error *err;
    size_t y_cap;              /* bytes of Y this job's plan uses (its row pitch derives from them) */
    /* what Y holds now */
    long y_chunk;
    int y_ds, y_fmt;
    size_t y_S;
    /* the current chunk */
    long chunk;
    size_t T0, W;
    size_t budget, Lc;
    long nchunks;
    /* the pipeline's first nramp chunks are [ramp[i], ramp[i + 1]), shorter
     * than Lc; the rest start at ramp[nramp] + (i - nramp) Lc (nramp = 0:
     * every chunk Lc) */
    size_t ramp[RAMP_MAX + 1];
    int nramp;
    /* with a ramp into a host plane the job ends with the ramp's lengths
     * reversed (ntail = nramp chunks from tail0), so the last chunk's plane
     * copied out after the kernels is short; the chunks between the ramps
     * are Lmid long (the last may be shorter; Lmid = Lc without a tail) */
    int ntail;
    size_t tail0, Lmid;
    double stage_ms, staged_spectra;   /* this job's copies into staging, for the rates */
    double dma_ms, dma_spectra;        /* this job's copies in from page-locked input (events) */
    double busy_ms, busy_end;          /* the device's time on its kernels so far, the last window's end (ms) */
    double kernel_ms, prep_ms, tune_ms, h2d_ms, d2h_ms;
    double setup_ms;           /* host clock: device setup, chunk plan and buffers, autotuning */
    int pipe;                  /* chunks through the pipeline's streams (tune.gpu_serial == 0) */
    int nslot;                 /* its slots: 3 with locked_io, else 2 */
    int locked_io;             /* the input and the host plane were page-locked when the job was planned */
    int in_pinned;             /* the job's input is page-locked: no staging */
    int narrow;                /* staged samples of at most 8 bits go one byte each (half the copy) */
    int staged;                /* the pipeline stages through pinned memory (more than one chunk) */
    int plane_dev;             /* the caller's plane is device memory: it stays there (copies device to
                                  device, or the kernels write into it), no pinned staging for it */
    int plane_reg;             /* the caller's plane was page-locked for the job (tune.gpu_register): no
                                  staging for it */
    void *reg[MAX_REG];        /* what the job registered (the input, then ranges), unregistered after it */
    int nreg;
    /* a banded job (dd_bands.cu): one chunk of the whole job, its ranges' trials in bands */
    int banded;
    size_t band_trials;        /* trials per band asked (test hook, else BAND_TRIALS) */
    size_t head_cap, ring_cap; /* floats of the head's buffer (BUF_OUT) and of each ring buffer (BUF_OUT1) */
    size_t head_want;          /* the head's trials as planned (before rounding to the tile) */
    double head_rate;          /* a head trial's work per output over the upload's time per spectrum (0: no rates) */
    int test_bands;            /* hook: > 0 bands every job that may be banded, this many trials a band */
    int nbands, npieces;       /* what the job ran: band kernels, head pieces */
};

inline size_t ceil_div(size_t a, size_t b) { return (a + b - 1) / b; }
inline size_t round_up(size_t a, size_t b) { return ceil_div(a, b) * b; }
/* Words per tile row of candidate j: 32 * warps along time * words per thread. */
inline size_t tile_words(const range_plan &r, int j) { return 32 * (size_t)r.cand[j].wx * (size_t)r.cand[j].R; }
/* The word format the direct kernel reads for range r. */
inline int direct_fmt(const range_plan &r) { return r.fmt == DD_F32 ? DD_F32 : r.fmt == DD_U64 ? DD_U64 : DD_W32; }

/* dd_settings.cu */
const char *fmt_name(int fmt);
/* Word format and flush periods of range r for nbits input (test hooks: wide
 * sums anyway, flush at least every test_period). */
void choose_format(range_plan *r, int nbits, int nuse, int test_wide, int test_period);
/* The requested setting (rounded to what the kernels support) and, with
 * o->gpu_autotune, the other candidates. */
void build_candidates(range_plan *r, const xc_ddtune *o, int nuse);
/* Per range and candidate: the delay bounds, whether its tile fits in shared
 * memory (cs reduced to fit), and whether the range must run direct. */
xc_status measure_ranges(ctx &c);

/* dd_memplan.cu */
size_t raw_samples(const ctx &c, size_t Lc);
/* Words per Y row the shared-memory kernel reads with candidate j for lk outputs. */
size_t smem_words(const range_plan &r, int j, size_t lk);
/* Device bytes at chunk length Lc; *ybytes, *obytes, *tbytes (may be NULL):
 * the Y, plane and tile-delay buffers. */
size_t plan_bytes(const ctx &c, size_t Lc, size_t *ybytes, size_t *obytes, size_t *tbytes);
/* The job's chunk plan: the budget (gpu_max_bytes, or what the state holds
 * plus 90% of the free memory), the longest chunk Lc whose buffers fit it,
 * the number of chunks, and in need[] each chunk buffer's bytes. */
xc_status plan_chunks(ctx &c, size_t need[BUF_N]);
/* The pipeline's pinned bytes at the planned chunk length: per slot *in
 * (raw chunk; 0 when the input is page-locked) and *out (all ranges' planes);
 * returns all slots' total. */
size_t pinned_need(const ctx &c, size_t *in, size_t *out);
/* The first output sample of chunk i, and one past the last of the chunk
 * that starts at T0 (at most the job's nout). */
size_t chunk_start(const ctx &c, long i);
size_t chunk_end(const ctx &c, size_t T0);

/* dd_state.cu */
inline double now_ms()
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}
/* cudaMalloc counted in the state's allocated bytes (at least 1 byte, so a
 * buffer is never NULL). */
xc_status dev_alloc(ctx &c, void **p, size_t bytes, const char *what);
/* The device side of a bound state, from the current job: channel list,
 * ranges' formats and candidates, events, delays uploaded, ranges measured. */
xc_status state_setup(ctx &c);
/* Grows (or, when keeping the larger buffers would pass the budget,
 * reallocates to exactly) the chunk buffers to need[]. */
xc_status state_buffers(ctx &c, const size_t need[BUF_N]);
/* Frees everything on the device and the host; the state is unbound. */
void state_release(xc_gpu_ddstate *s);

/* dd_launch.cu */
xc_status ev_begin(ctx &c);
/* Checks a launch, waits for it (a fault is reported with its name) and adds
 * its time to *ms (may be NULL). */
xc_status ev_end(ctx &c, cudaError_t launched, const char *name, double *ms);
/* The tile-bounds kernel for range k at dy trials per tile: fills tmin when
 * given and returns {largest spread, largest delay, smallest delay}. */
xc_status delay_bounds(ctx &c, int k, int dy, int32_t *tmin, int stats[3]);
/* Y for range k in word format yfmt with lane stride S (kept when it holds that). */
xc_status ensure_pack(ctx &c, int k, int yfmt, size_t S);
/* tmin for range k and candidate j (kept when it holds that). */
xc_status ensure_tmin(ctx &c, int k, int j);
/* The shared-memory kernel (candidate j) over DM tiles [0, tiles), lk outputs. */
xc_status run_smem(ctx &c, int k, int j, size_t lk, size_t tiles, double *ms);
/* Range k of the current chunk, from the packing to the copy into the plane. */
xc_status do_range(ctx &c, int k);
/* Outputs [*j0, *j0 + return) of range k in the chunk that starts at T0. */
size_t range_span(const ctx &c, int k, size_t T0, size_t *j0);
/* Arguments and launch loops (over grid.y's limit) shared with the pipeline. */
dd_pack_args pack_args(const ctx &c, int k, int yfmt, size_t S, size_t T0, size_t W, const void *raw, void *Y);
cudaError_t launch_pack_all(int yfmt, dd_pack_args a, int nuse, cudaStream_t st);
dd_smem_args smem_args(const ctx &c, int k, int j, size_t lk, const int32_t *tmin, const void *Y, float *out);
cudaError_t launch_smem_all(const range_plan &r, int j, dd_smem_args a, size_t tiles, cudaStream_t st);
xc_status check_smem(const ctx &c, int k, int j, size_t lk, size_t tiles);
void smem_name(const range_plan &r, int j, char *name, size_t n);
dd_direct_args direct_args(const ctx &c, int k, size_t lk, const void *Y, float *out);
cudaError_t launch_direct_all(const range_plan &r, dd_direct_args a, cudaStream_t st);
xc_status check_direct(const ctx &c, int k, size_t lk);
/* The output scaling of range k; false when the convention sums only. */
bool scale_of(const ctx &c, int k, dd_scale *sc);
/* The kind of a copy of the plane out of the device: to the host, or, for a
 * plane in device memory, within the device. */
inline cudaMemcpyKind plane_kind(const ctx &c) { return c.plane_dev ? cudaMemcpyDeviceToDevice : cudaMemcpyDeviceToHost; }

/* A banded job's plan where it may run so and pays (copies out as long as
 * BAND_COPY_SHARE of the kernels, by the rates the last jobs measured, or
 * the test hook): every range's trials in bands over the whole job's time,
 * the input whole on the device; sets c.banded and need[] then. */
bool plan_bands(ctx &c, size_t need[BUF_N]);

/* dd_bands.cu */
/* The banded job: the input uploaded in pieces, each packed and the head's
 * trials (range 0's first) dedispersed over it as it arrives, then every
 * band over the whole time, each copied out in one piece. */
xc_status run_banded(ctx &c);
void bands_release(xc_gpu_ddstate *s);

/* dd_pipeline.cu */
/* Decisions, tile delays, streams, events and staging of a pipelined job. */
xc_status pipe_setup(ctx &c);
/* Words per Y row the packing for range k of the chunk at T0 fills. */
size_t pack_words(const ctx &c, int k, size_t T0, int yfmt, size_t S, size_t pitch);
/* p is page-locked host memory (cudaHostAlloc, cudaHostRegister). */
bool host_pinned(const void *p);
/* Raw samples of the chunk that starts at T0 (its outputs plus the overlap). */
size_t chunk_samples(const ctx &c, size_t T0);
/* Every chunk of the job through the slots' streams: decisions and tile delays
 * first, then per chunk staging, copy in, kernels and copy out queued on one
 * slot while the other slots' chunks run, and each slot's planes copied into the
 * caller's after its stream has finished. */
xc_status run_pipelined(ctx &c);
/* Streams, events and pinned staging of the pipeline. */
void pipeline_release(xc_gpu_ddstate *s);

/* dd_hostreg.cu */
/* tune.gpu_register on a job of several chunks: the caller's pageable input
 * and plane page-locked (for the job, or kept from an earlier one); sets
 * c.in_pinned and c.plane_reg. */
void host_register(ctx &c);
/* After the job: what it registered for itself unregistered, and the kept
 * buffers the last two jobs did not pass. */
void host_unregister(ctx &c);
/* Every kept registration dropped (the state's release). */
void host_release(xc_gpu_ddstate *s);

/* dd_autotune.cu */
/* Chooses range k's setting on its first chunk (lk outputs). */
xc_status decide(ctx &c, int k, size_t lk);

} // namespace xcdd

#endif