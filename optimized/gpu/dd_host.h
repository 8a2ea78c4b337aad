/* dd_host.h: what the files of the GPU dedisperser's host side share (C++,
 * nvcc only): the per-range plan, the context of one run and the functions
 * one file calls in another.
 *   dedisperse_gpu.cu  the entry points: checks, setup, the chunk loop, info
 *   dd_settings.cu     word format, flush periods, candidate settings and
 *                      which of them fit in shared memory
 *   dd_memplan.cu      device bytes per chunk length, the chunk plan
 *   dd_launch.cu       per chunk: pack, tile delays, kernels, scaling, copy back
 *   dd_autotune.cu     the choice among the candidates that fit
 * The kernels and their launchers are declared in gpu_dd.h. */
#ifndef XC_DD_HOST_H
#define XC_DD_HOST_H

#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>

#include "core/xc_dedisperse.h"
#include "core/xc_error.h"
#include "optimized/gpu/gpu_dd.h"

namespace xcdd {

const int DEF_R = 8, DEF_WX = 1, DEF_DY = 8, DEF_CS = 16;
const int MAX_CAND = 16;
/* DM trials per autotune trial launch (all time tiles of the chunk) */
const size_t TUNE_DMS = 256;

struct cfg {
    int R, wx, dy, cs;
};

struct range_plan {
    int ds;
    size_t ndm, nout;          /* this range's trials and output samples */
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
    int direct;                /* no candidate fits (or forced, or u64 words) */
    int decided, tuned, ntimed, use;   /* chosen candidate */
    double kernel_ms;
};

struct ctx {
    const xc_ddjob *job;
    xc_plane *out;
    xc_error *err;
    int force_direct, test_wide, test_period;
    int nc, nuse, nr, maxds;
    int *h_chan;               /* unmasked channels, or NULL when none is masked */
    int *d_chan;
    range_plan *rp;
    size_t esize;              /* bytes per raw sample */
    size_t smem_optin;
    void *d_raw;
    void *d_Y;
    size_t y_cap;
    float *d_out;
    int32_t *d_tmin;
    int *d_stats;
    cudaEvent_t ev0, ev1;
    int have_ev;
    /* what Y and tmin hold now */
    long y_chunk;
    int y_ds, y_fmt;
    size_t y_S;
    int tmin_range, tmin_dy;
    /* the current chunk */
    long chunk;
    size_t T0, W;
    size_t allocated, budget, Lc;
    long nchunks;
    double kernel_ms, prep_ms, tune_ms, h2d_ms, d2h_ms;
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
void build_candidates(range_plan *r, const xc_ddopts *o, int nuse);
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

/* dd_launch.cu */
xc_status dev_alloc(ctx &c, void **p, size_t bytes, const char *what);
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

/* dd_autotune.cu */
/* Chooses range k's setting on its first chunk (lk outputs). */
xc_status decide(ctx &c, int k, size_t lk);

} // namespace xcdd

#endif