/* GPU dedisperser, host side: AstroAccelerate's shared-memory algorithm
 * (Novotny et al. 2023, section 4.1, Algorithm 3) with exact integer sums.
 *
 * Setup: the delays of the unmasked channels (job->delays, exact) go to the
 * device; for every candidate setting a kernel measures the largest spread of
 * delays inside one block's trials, which decides whether the tile fits in
 * shared memory and how long a staged row is; then the time-chunk length is
 * the longest whose buffers fit the budget (free memory or gpu_max_bytes).
 * Per time chunk: the raw block (u16 or f32, channel fastest) is copied to the
 * device once, with the largest delay (plus ds - 1) of overlap; per DM range a
 * kernel turns it into channel-major, scrunched, lane-packed words (gpu_dd.h),
 * a kernel finds each DM tile's smallest delay per channel (the block part of
 * the shift; the thread part is the rest of the exact delay, so no float delay
 * formula is involved), and the shared-memory kernel (or, when a tile's shifts
 * span more than shared memory holds, the direct kernel) writes the plane,
 * which is copied back into the caller's plane at the chunk's offset.
 *
 * Word formats by the largest scrunched value vmax = (2^nbits - 1) * ds:
 *   q4  (vmax <= 127: 1/2/4-bit) 4 samples per word, 8-bit lane sums;
 *   q8  (vmax <= 255: 8-bit)     4 samples per word, 16-bit lane sums;
 *   p16 (vmax <= 32767)          2 samples per word, 16-bit lane sums;
 *   w32 (vmax < 2^32: 16-bit)    1 sample per word, u32 sums;
 *   f32 (float)                  float sums per stage, double across stages;
 *   u64 (vmax >= 2^32)           direct kernel, u64 sums.
 * "wide" instances add u64 sums when nuse * vmax may pass 2^32 - 1.
 *
 * Tunables (xc_ddopts, 0 = default; values are rounded to what exists and the
 * effective ones reported in xc_gpu_ddinfo):
 *   gpu_samps_per_thread  R*L: R words per thread (1,2,4,8; 16 for p16/w32/f32)
 *   gpu_samps_per_block   32*WX*R*L: WX warps along time (1..16)
 *   gpu_dms_per_block     dy, with 32*WX*dy <= 512 threads
 *   gpu_chans_per_stage   channels staged in shared memory per __syncthreads
 * Defaults: R = 8, WX = 1, dy = 8, 16 channels per stage (to be revisited with
 * the device's own numbers: `crosscheck bench gpu -autotune`). */
#include <cuda_runtime.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "optimized/gpu/gpu_check.h"
#include "optimized/gpu/gpu_dd.h"
#include "optimized/gpu/xc_gpu.h"

namespace {

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

const char *fmt_name(int fmt)
{
    static const char *const n[] = {"q4", "q8", "p16", "w32", "f32", "u64"};
    return fmt >= 0 && fmt < DD_NFMT ? n[fmt] : "?";
}

int max_r(int fmt, int wide)
{
    for (int R = 16; R >= 1; R /= 2)
        if (dd_smem_supported(fmt, R, wide))
            return R;
    return 0;
}

size_t ceil_div(size_t a, size_t b) { return (a + b - 1) / b; }
size_t round_up(size_t a, size_t b) { return ceil_div(a, b) * b; }

int floor_pow2(int v)
{
    int p = 1;
    while (p * 2 <= v)
        p *= 2;
    return p;
}

/* ---- format and settings --------------------------------------------------- */

void choose_format(range_plan *r, int nbits, int nuse, int test_wide, int test_period)
{
    r->wide = 0;
    r->k1 = r->k2 = r->k3 = 0;
    if (nbits == 32) {
        r->fmt = DD_F32;
        r->vmax = 0;
        return;
    }
    const uint64_t v = (((uint64_t)1 << nbits) - 1) * (uint64_t)r->ds;
    r->vmax = v;
    r->fmt = v <= 127 ? DD_Q4 : v <= 255 ? DD_Q8 : v <= 32767 ? DD_P16 : v <= UINT32_MAX ? DD_W32 : DD_U64;
    if (r->fmt == DD_U64)
        return;
    r->wide = (uint64_t)nuse * v > UINT32_MAX || test_wide;
    const uint64_t u32max = UINT32_MAX;
    switch (r->fmt) {
    case DD_Q4:
        r->k1 = (int)(255 / v);
        r->k2 = (int)(65535 / ((uint64_t)r->k1 * v));
        r->k3 = r->wide ? (int)(u32max / ((uint64_t)r->k2 * r->k1 * v)) : 0;
        break;
    case DD_Q8:
    case DD_P16:
        r->k1 = (int)(65535 / v);
        r->k2 = r->wide ? (int)(u32max / ((uint64_t)r->k1 * v)) : 0;
        break;
    case DD_W32:
        r->k1 = r->wide ? (int)(u32max / v) : 0;
        break;
    default: break;
    }
    /* flushing sooner is always safe; tests use it to reach every flush */
    if (test_period > 0) {
        r->k1 = r->k1 > test_period ? test_period : r->k1;
        r->k2 = r->k2 > test_period ? test_period : r->k2;
        r->k3 = r->k3 > test_period ? test_period : r->k3;
    }
}

/* Rounds requested settings to ones the kernels support. */
cfg resolve(int fmt, int wide, int nuse, int spt, int dy, int spb, int cs)
{
    const int L = dd_lanes(fmt);
    cfg c;
    int R = spt > 0 ? spt / L : DEF_R;
    R = floor_pow2(R < 1 ? 1 : R);
    const int rmax = max_r(fmt, wide);
    c.R = R > rmax ? rmax : R;
    int wx = spb > 0 ? spb / (32 * c.R * L) : DEF_WX;
    c.wx = wx < 1 ? 1 : wx > 16 ? 16 : wx;
    const int dymax = XC_GPU_MAX_THREADS / (32 * c.wx);
    int y = dy > 0 ? dy : DEF_DY;
    c.dy = y > dymax ? dymax : y;
    int s = cs > 0 ? cs : DEF_CS;
    c.cs = s > nuse ? (nuse > 0 ? nuse : 1) : s;
    return c;
}

int same_cfg(const cfg &a, const cfg &b) { return a.R == b.R && a.wx == b.wx && a.dy == b.dy && a.cs == b.cs; }


void build_candidates(range_plan *r, const xc_ddopts *o, int nuse)
{
    const int L = dd_lanes(r->fmt);
    r->ncand = 0;
    r->cand[r->ncand++] = resolve(r->fmt, r->wide, nuse, o->gpu_samps_per_thread, o->gpu_dms_per_block,
                                  o->gpu_samps_per_block, o->gpu_chans_per_stage);
    if (!o->gpu_autotune)
        return;
    /* (words per thread, warps along time, DMs per block, channels per stage) */
    static const int tpl[][4] = {{8, 1, 8, 16}, {8, 1, 16, 16}, {4, 1, 16, 16}, {4, 2, 8, 16},
                                 {8, 1, 8, 32}, {16, 1, 8, 16}, {16, 1, 16, 8}, {2, 2, 16, 16},
                                 {8, 2, 4, 16}, {4, 1, 8, 64},  {8, 1, 4, 32}};
    for (size_t i = 0; i < sizeof tpl / sizeof tpl[0] && r->ncand < MAX_CAND; i++) {
        const cfg c = resolve(r->fmt, r->wide, nuse, tpl[i][0] * L, tpl[i][2], 32 * tpl[i][1] * tpl[i][0] * L,
                              tpl[i][3]);
        int dup = 0;
        for (int j = 0; j < r->ncand; j++)
            dup |= same_cfg(c, r->cand[j]);
        if (!dup)
            r->cand[r->ncand++] = c;
    }
}

size_t tile_words(const range_plan &r, int j) { return 32 * (size_t)r.cand[j].wx * (size_t)r.cand[j].R; }

/* ---- memory plan -------------------------------------------------------------
 * Every buffer is sized from the chunk length Lc (full-resolution outputs per
 * chunk) for every candidate that may run, so one plan covers autotuning and
 * every chunk. */

size_t raw_samples(const ctx &c, size_t Lc)
{
    const size_t w = Lc + (size_t)c.job->max_delay + (size_t)c.maxds - 1;
    return w < c.job->in->nsamp ? w : c.job->in->nsamp;
}

size_t lk_max(const range_plan &r, size_t Lc)
{
    const size_t l = ceil_div(Lc, (size_t)r.ds);
    return l < r.nout ? l : r.nout;
}

/* Words per Y row the shared-memory kernel reads with candidate j for lk
 * outputs: whole tiles (less than lk + S*L) plus the largest block shift plus
 * the rows' staged spread. */
size_t smem_words(const range_plan &r, int j, size_t lk)
{
    const size_t sl = tile_words(r, j) * (size_t)dd_lanes(r.fmt);
    return ceil_div(lk, sl) * sl + (size_t)r.dmax + (size_t)r.spread[j];
}

size_t y_words(const range_plan &r, size_t Lc)
{
    const size_t lk = lk_max(r, Lc);
    size_t np = lk + (size_t)r.dmax;   /* direct kernel */
    if (!r.direct)
        for (int j = 0; j < r.ncand; j++)
            if (r.fits[j]) {
                const size_t w = lk + tile_words(r, j) * (size_t)dd_lanes(r.fmt) + (size_t)r.dmax + (size_t)r.spread[j];
                np = w > np ? w : np;
            }
    return round_up(np, 32);
}

size_t tmin_bytes(const ctx &c, const range_plan &r)
{
    size_t t = 0;
    if (!r.direct)
        for (int j = 0; j < r.ncand; j++)
            if (r.fits[j]) {
                const size_t b = ceil_div(r.ndm, (size_t)r.cand[j].dy) * (size_t)c.nuse * sizeof(int32_t);
                t = b > t ? b : t;
            }
    return t;
}

/* Device bytes at chunk length Lc; *ybytes, *obytes, *tbytes: the Y, plane and
 * tile-delay buffers. */
size_t plan_bytes(const ctx &c, size_t Lc, size_t *ybytes, size_t *obytes, size_t *tbytes)
{
    size_t y = 0, o = 0, t = 0, fixed = 0;
    for (int k = 0; k < c.nr; k++) {
        const range_plan &r = c.rp[k];
        const size_t yb = (size_t)c.nuse * y_words(r, Lc) * (r.fmt == DD_U64 ? 8 : 4);
        const size_t ob = r.ndm * lk_max(r, Lc) * sizeof(float);
        const size_t tb = tmin_bytes(c, r);
        y = yb > y ? yb : y;
        o = ob > o ? ob : o;
        t = tb > t ? tb : t;
        fixed += r.ndm * (size_t)c.nuse * sizeof(int32_t);
    }
    fixed += (c.nuse < c.nc ? (size_t)c.nuse * sizeof(int) : 0) + 4 * sizeof(int);
    if (ybytes)
        *ybytes = y;
    if (obytes)
        *obytes = o;
    if (tbytes)
        *tbytes = t;
    return raw_samples(c, Lc) * (size_t)c.nc * c.esize + y + o + t + fixed;
}

/* ---- small helpers ------------------------------------------------------------ */

xc_status dev_alloc(ctx &c, void **p, size_t bytes, const char *what)
{
    xc_error *err = c.err;
    char msg[96];
    snprintf(msg, sizeof msg, "cudaMalloc(%s, %zu bytes)", what, bytes);
    XC_GPU_CK(cudaMalloc(p, bytes ? bytes : 1), msg);
    c.allocated += bytes;
    return XC_OK;
}

xc_status ev_begin(ctx &c)
{
    xc_error *err = c.err;
    XC_GPU_CK(cudaEventRecord(c.ev0, 0), "cudaEventRecord");
    return XC_OK;
}

/* Checks a launch, waits for the kernel (so a fault is reported with its
 * name) and adds its time to *ms. */
xc_status ev_end(ctx &c, cudaError_t launched, const char *name, double *ms)
{
    xc_error *err = c.err;
    char what[96];
    if (launched != cudaSuccess) {
        snprintf(what, sizeof what, "launch %s", name);
        return xc_gpu_fail(err, launched, what);
    }
    XC_GPU_CK(cudaEventRecord(c.ev1, 0), "cudaEventRecord");
    XC_GPU_CK(cudaEventSynchronize(c.ev1), name);
    float f = 0;
    XC_GPU_CK(cudaEventElapsedTime(&f, c.ev0, c.ev1), "cudaEventElapsedTime");
    if (ms)
        *ms += f;
    return XC_OK;
}

/* Runs the tile-bounds kernel for range k at dy trials per tile: fills tmin
 * when given and returns {largest spread, largest delay, smallest delay}. */
xc_status delay_bounds(ctx &c, int k, int dy, int32_t *tmin, int stats[3])
{
    xc_error *err = c.err;
    const range_plan &r = c.rp[k];
    const int init[3] = {0, 0, INT_MAX};
    XC_GPU_CK(cudaMemcpy(c.d_stats, init, sizeof init, cudaMemcpyHostToDevice), "cudaMemcpy(delay statistics)");
    dd_bounds_args a;
    a.del = r.d_del;
    a.ndm = (int)r.ndm;
    a.nuse = c.nuse;
    a.dy = dy;
    a.ntiles = ceil_div(r.ndm, (size_t)dy);
    a.tmin = tmin;
    a.stats = c.d_stats;
    xc_status st = ev_begin(c);
    if (!st)
        st = ev_end(c, dd_launch_bounds(a, 0), "dd_bounds", &c.prep_ms);
    if (st)
        return st;
    XC_GPU_CK(cudaMemcpy(stats, c.d_stats, 3 * sizeof(int), cudaMemcpyDeviceToHost), "cudaMemcpy(delay statistics)");
    return XC_OK;
}

/* ---- per-chunk work ------------------------------------------------------------ */

/* Fills Y for range k in the word format yfmt with lane stride S (skipped when
 * Y already holds exactly that). */
xc_status ensure_pack(ctx &c, int k, int yfmt, size_t S)
{
    const range_plan &r = c.rp[k];
    if (c.y_chunk == c.chunk && c.y_ds == r.ds && c.y_fmt == yfmt && (dd_lanes(yfmt) == 1 || c.y_S == S))
        return XC_OK;
    c.y_chunk = -1;
    const size_t pitch = c.y_cap / ((size_t)c.nuse * dd_word_bytes(yfmt)) / 32 * 32;
    const size_t j0 = ceil_div(c.T0, (size_t)r.ds);
    const size_t off = j0 * (size_t)r.ds - c.T0;
    dd_pack_args a;
    a.raw = c.d_raw;
    a.raw_f32 = c.job->in->nbits == 32;
    a.nc = (size_t)c.nc;
    a.chan = c.d_chan;
    a.nuse = c.nuse;
    a.ds = r.ds;
    a.off = off;
    a.ns_avail = c.W > off ? (c.W - off) / (size_t)r.ds : 0;
    a.S = S;
    a.np = pitch;
    a.Y = c.d_Y;
    a.pitch = pitch;
    const size_t tiles_y = ceil_div((size_t)c.nuse, 32);
    char name[48];
    snprintf(name, sizeof name, "dd_pack_%s", fmt_name(yfmt));
    for (size_t t0 = 0; t0 < tiles_y; t0 += 65535) {
        const size_t ty = tiles_y - t0 < 65535 ? tiles_y - t0 : 65535;
        a.row_tile0 = (int)t0;
        xc_status st = ev_begin(c);
        if (!st)
            st = ev_end(c, dd_launch_pack(yfmt, dim3((unsigned)ceil_div(pitch, 32), (unsigned)ty), a, 0), name,
                        &c.prep_ms);
        if (st)
            return st;
    }
    c.y_chunk = c.chunk;
    c.y_ds = r.ds;
    c.y_fmt = yfmt;
    c.y_S = S;
    return XC_OK;
}

/* tmin for range k and candidate j; its statistics must be those measured
 * before the plan (same delays, same tiles). */
xc_status ensure_tmin(ctx &c, int k, int j)
{
    const range_plan &r = c.rp[k];
    const int dy = r.cand[j].dy;
    if (c.tmin_range == k && c.tmin_dy == dy)
        return XC_OK;
    c.tmin_range = -1;
    int stats[3];
    xc_status st = delay_bounds(c, k, dy, c.d_tmin, stats);
    if (st)
        return st;
    if (stats[0] != r.spread[j] || stats[1] != r.dmax)
        return xc_error_set(c.err, XC_EINVAL, "gpu: internal: range %d: delay bounds changed (%d, %d; were %d, %d)", k,
                            stats[0], stats[1], r.spread[j], r.dmax);
    c.tmin_range = k;
    c.tmin_dy = dy;
    return XC_OK;
}

/* Launches the shared-memory kernel (candidate j) over DM tiles [0, tiles). */
xc_status run_smem(ctx &c, int k, int j, size_t lk, size_t tiles, double *ms)
{
    xc_error *err = c.err;
    const range_plan &r = c.rp[k];
    const cfg &g = r.cand[j];
    const size_t S = tile_words(r, j), L = (size_t)dd_lanes(r.fmt);
    const size_t ttiles = ceil_div(lk, S * L);
    const size_t pitch = c.y_cap / ((size_t)c.nuse * 4) / 32 * 32;
    if (smem_words(r, j, lk) > pitch)
        return xc_error_set(err, XC_EINVAL, "gpu: internal: range %d needs %zu words per row, the plan made %zu", k,
                            smem_words(r, j, lk), pitch);
    if (tiles > INT_MAX)
        return xc_error_set(err, XC_EINVAL, "gpu: range %d: %zu DM tiles are more than a grid holds", k, tiles);
    dd_smem_args a;
    a.Y = static_cast<const uint32_t *>(c.d_Y);
    a.pitch = pitch;
    a.del = r.d_del;
    a.tmin = c.d_tmin;
    a.nuse = c.nuse;
    a.ndm = (int)r.ndm;
    a.dy = g.dy;
    a.cs = g.cs;
    a.rowlen = r.rowlen[j];
    a.k1 = r.k1;
    a.k2 = r.k2;
    a.k3 = r.k3;
    a.out = c.d_out;
    a.opitch = lk;
    a.lk = lk;
    char name[64];
    snprintf(name, sizeof name, "dd_smem_%s%s<R=%d>", fmt_name(r.fmt), r.wide ? "_wide" : "", g.R);
    for (size_t t0 = 0; t0 < ttiles; t0 += 65535) {
        const size_t ty = ttiles - t0 < 65535 ? ttiles - t0 : 65535;
        a.ttile0 = t0;
        xc_status st = ev_begin(c);
        if (!st)
            st = ev_end(c,
                        dd_launch_smem(r.fmt, g.R, r.wide, dim3((unsigned)tiles, (unsigned)ty),
                                       dim3(32 * (unsigned)g.wx, (unsigned)g.dy), r.smem[j], a, 0),
                        name, ms);
        if (st)
            return st;
    }
    return XC_OK;
}

/* The word format the direct kernel reads for range k. */
int direct_fmt(const range_plan &r) { return r.fmt == DD_F32 ? DD_F32 : r.fmt == DD_U64 ? DD_U64 : DD_W32; }

xc_status run_direct(ctx &c, int k, size_t lk, double *ms)
{
    xc_error *err = c.err;
    const range_plan &r = c.rp[k];
    const int yfmt = direct_fmt(r);
    const size_t pitch = c.y_cap / ((size_t)c.nuse * dd_word_bytes(yfmt)) / 32 * 32;
    if (lk + (size_t)r.dmax > pitch)
        return xc_error_set(err, XC_EINVAL, "gpu: internal: range %d needs %zu words per row, the plan made %zu", k,
                            lk + (size_t)r.dmax, pitch);
    dd_direct_args a;
    a.Y = c.d_Y;
    a.pitch = pitch;
    a.del = r.d_del;
    a.nuse = c.nuse;
    a.ndm = (int)r.ndm;
    a.out = c.d_out;
    a.opitch = lk;
    a.lk = lk;
    const size_t bx = ceil_div(lk, (size_t)DD_DIRECT_THREADS * DD_DIRECT_SAMPS);
    char name[48];
    snprintf(name, sizeof name, "dd_direct_%s", fmt_name(yfmt));
    for (size_t b0 = 0; b0 < bx; b0 += 65535) {
        const size_t ny = bx - b0 < 65535 ? bx - b0 : 65535;
        a.tblock0 = b0;
        xc_status st = ev_begin(c);
        if (!st)
            st = ev_end(c, dd_launch_direct(yfmt, dim3((unsigned)r.ndm, (unsigned)ny), a, 0), name, ms);
        if (st)
            return st;
    }
    return XC_OK;
}

/* Chooses range k's setting on its first chunk: the only candidate that fits,
 * or, with several, the one whose launch over the first TUNE_DMS trials of this
 * chunk takes the least time per trial. */
xc_status decide(ctx &c, int k, size_t lk)
{
    range_plan &r = c.rp[k];
    r.decided = 1;
    if (r.direct)
        return XC_OK;
    r.use = -1;
    if (r.nfit == 1) {
        for (int j = 0; j < r.ncand; j++)
            if (r.fits[j])
                r.use = j;
        return XC_OK;
    }
    double best = 0;
    for (int j = 0; j < r.ncand; j++) {
        if (!r.fits[j])
            continue;
        const cfg &g = r.cand[j];
        const size_t want = r.ndm < TUNE_DMS ? r.ndm : TUNE_DMS;
        const size_t tiles = ceil_div(want, (size_t)g.dy);
        double warm = 0, ms = 0;
        xc_status st = ensure_pack(c, k, r.fmt, tile_words(r, j));
        if (!st)
            st = ensure_tmin(c, k, j);
        if (!st)
            st = run_smem(c, k, j, lk, tiles, &warm);
        if (!st)
            st = run_smem(c, k, j, lk, tiles, &ms);
        if (st)
            return st;
        c.tune_ms += warm + ms;
        const size_t dms = tiles * (size_t)g.dy < r.ndm ? tiles * (size_t)g.dy : r.ndm;
        const double score = ms / (double)dms;
        r.ntimed++;
        if (r.use < 0 || score < best) {
            r.use = j;
            best = score;
        }
    }
    r.tuned = 1;
    return XC_OK;
}

xc_status copy_out(ctx &c, int k, size_t j0, size_t lk)
{
    xc_error *err = c.err;
    const range_plan &r = c.rp[k];
    xc_planerange *o = &c.out->r[k];
    float *dst = o->data + j0;
    xc_status st = ev_begin(c);
    if (st)
        return st;
    if (lk == o->nsamp) {
        XC_GPU_CK(cudaMemcpy(dst, c.d_out, r.ndm * lk * sizeof(float), cudaMemcpyDeviceToHost), "cudaMemcpy(plane)");
    } else if (o->nsamp * sizeof(float) <= INT_MAX) {
        XC_GPU_CK(cudaMemcpy2D(dst, o->nsamp * sizeof(float), c.d_out, lk * sizeof(float), lk * sizeof(float), r.ndm,
                               cudaMemcpyDeviceToHost),
                  "cudaMemcpy2D(plane)");
    } else {
        for (size_t d = 0; d < r.ndm; d++)
            XC_GPU_CK(cudaMemcpy(dst + d * o->nsamp, c.d_out + d * lk, lk * sizeof(float), cudaMemcpyDeviceToHost),
                      "cudaMemcpy(plane row)");
    }
    return ev_end(c, cudaSuccess, "cudaMemcpy(plane)", &c.d2h_ms);
}

xc_status do_range(ctx &c, int k)
{
    range_plan &r = c.rp[k];
    const size_t ds = (size_t)r.ds;
    const size_t Tend = c.T0 + c.Lc < c.job->nout ? c.T0 + c.Lc : c.job->nout;
    const size_t j0 = ceil_div(c.T0, ds);
    size_t j1 = ceil_div(Tend, ds);
    if (j1 > r.nout)
        j1 = r.nout;
    if (j1 <= j0)
        return XC_OK;
    const size_t lk = j1 - j0;
    xc_status st = XC_OK;
    if (!r.decided && (st = decide(c, k, lk)))
        return st;
    if (r.direct) {
        if ((st = ensure_pack(c, k, direct_fmt(r), 0)) || (st = run_direct(c, k, lk, &r.kernel_ms)))
            return st;
    } else {
        if ((st = ensure_pack(c, k, r.fmt, tile_words(r, r.use))) || (st = ensure_tmin(c, k, r.use)) ||
            (st = run_smem(c, k, r.use, lk, ceil_div(r.ndm, (size_t)r.cand[r.use].dy), &r.kernel_ms)))
            return st;
    }
    if (c.job->conv->scaling != XC_SCALE_SUM) {
        /* the same float expressions as xc_scale_real, evaluated by the host compiler */
        const int nbits = c.job->in->nbits;
        const float in_range = nbits >= 32 ? 1.0f : (float)((1u << nbits) - 1u);
        dd_scale sc;
        sc.kind = (int)c.job->conv->scaling;
        sc.den = in_range * (float)c.nc;
        sc.factor = (3.f * 1024.f) / 255.f / 16.f;
        sc.fnch = (float)c.nc;
        sc.fds = (float)r.ds;
        if ((st = ev_begin(c)) || (st = ev_end(c, dd_launch_scale(c.d_out, r.ndm * lk, sc, 0), "dd_scale", &r.kernel_ms)))
            return st;
    }
    return copy_out(c, k, j0, lk);
}

/* ---- setup -------------------------------------------------------------------- */

xc_status check_job(const xc_ddjob *job, const xc_plane *out, xc_error *err)
{
    const xc_ddopts *o = &job->opts;
    static const char *const names[] = {"gpu_samps_per_thread", "gpu_dms_per_block", "gpu_samps_per_block",
                                        "gpu_chans_per_stage"};
    const int vals[] = {o->gpu_samps_per_thread, o->gpu_dms_per_block, o->gpu_samps_per_block,
                        o->gpu_chans_per_stage};
    for (int i = 0; i < 4; i++)
        if (vals[i] < 0)
            return xc_error_set(err, XC_EINVAL, "gpu: opts.%s = %d must be >= 0 (0: default)", names[i], vals[i]);
    if (!out || out->nranges != job->plan->nranges)
        return xc_error_set(err, XC_EINVAL, "gpu: the plane has %d ranges, the plan %d", out ? out->nranges : 0,
                            job->plan->nranges);
    for (int k = 0; k < job->plan->nranges; k++) {
        const xc_dmrange *r = &job->plan->r[k];
        const xc_planerange *o2 = &out->r[k];
        if (o2->ndm != r->ndm || o2->nsamp != job->nout / (size_t)r->ds || (!o2->data && o2->ndm * o2->nsamp != 0))
            return xc_error_set(err, XC_EINVAL, "gpu: plane range %d has the wrong shape (%zu x %zu, want %zu x %zu)", k,
                                o2->ndm, o2->nsamp, r->ndm, job->nout / (size_t)r->ds);
        if (r->ndm > (size_t)INT_MAX - 1024)
            return xc_error_set(err, XC_EINVAL, "gpu: range %d: %zu DM trials is more than the kernels index", k,
                                r->ndm);
    }
    return XC_OK;
}

/* Delays of the unmasked channels, exactly as the job computed them, to the
 * device; then each candidate's spread and fit, and the range's kernel. */
xc_status upload_delays(ctx &c)
{
    xc_error *err = c.err;
    const xc_ddjob *job = c.job;
    xc_status st = XC_OK;
    int32_t *tmp = NULL;
    for (int k = 0; k < c.nr && !st; k++) {
        range_plan &r = c.rp[k];
        const size_t n = r.ndm * (size_t)c.nuse;
        if ((st = dev_alloc(c, (void **)&r.d_del, n * sizeof(int32_t), "delays")))
            break;
        const int32_t *src = job->delays[k];
        if (c.h_chan) {
            int32_t *t2 = (int32_t *)realloc(tmp, (n ? n : 1) * sizeof(int32_t));
            if (!t2) {
                st = xc_error_set(err, XC_ENOMEM, "gpu: out of memory for %zu delays", n);
                break;
            }
            tmp = t2;
            for (size_t d = 0; d < r.ndm; d++)
                for (int i = 0; i < c.nuse; i++)
                    tmp[d * (size_t)c.nuse + (size_t)i] = job->delays[k][d * (size_t)c.nc + (size_t)c.h_chan[i]];
            src = tmp;
        }
        cudaError_t e = cudaMemcpy(r.d_del, src, n * sizeof(int32_t), cudaMemcpyHostToDevice);
        if (e != cudaSuccess)
            st = xc_gpu_fail(err, e, "cudaMemcpy(delays)");
    }
    free(tmp);
    return st;
}

xc_status measure_ranges(ctx &c)
{
    xc_error *err = c.err;
    for (int k = 0; k < c.nr; k++) {
        range_plan &r = c.rp[k];
        r.nfit = 0;
        for (int j = 0; j < r.ncand; j++) {
            int stats[3];
            xc_status st = delay_bounds(c, k, r.cand[j].dy, NULL, stats);
            if (st)
                return st;
            /* no kernel may read past the chunk: the job's largest delay bounds every delay */
            if (stats[2] < 0 || (int64_t)stats[1] * r.ds > c.job->max_delay)
                return xc_error_set(err, XC_EINVAL,
                                    "gpu: range %d: delays span %d..%d samples of ds %d, outside 0..%lld / %d (the job's largest delay)",
                                    k, stats[2], stats[1], r.ds, (long long)c.job->max_delay, r.ds);
            r.dmax = stats[1];
            r.spread[j] = stats[0];
            r.fits[j] = 0;
            if (c.force_direct || r.fmt == DD_U64)
                continue;
            /* one stage: cs rows of S + spread words, and the dy x cs thread shifts */
            const size_t row = tile_words(r, j) + (size_t)stats[0];
            const size_t per_chan = row * 4 + (size_t)r.cand[j].dy * 4;
            if (per_chan > c.smem_optin)
                continue;
            size_t cs = c.smem_optin / per_chan;
            if (cs > (size_t)r.cand[j].cs)
                cs = (size_t)r.cand[j].cs;
            r.cand[j].cs = (int)cs;
            r.rowlen[j] = (int)row;
            r.smem[j] = cs * per_chan;
            r.fits[j] = 1;
            r.nfit++;
        }
        r.direct = r.nfit == 0;
    }
    return XC_OK;
}

xc_status setup(ctx &c)
{
    xc_error *err = c.err;
    const xc_ddjob *job = c.job;
    c.nc = job->in->nchans;
    c.esize = job->in->nbits == 32 ? sizeof(float) : sizeof(uint16_t);
    if (c.nuse < c.nc) {
        c.h_chan = (int *)malloc((size_t)c.nuse * sizeof(int));
        if (!c.h_chan)
            return xc_error_set(err, XC_ENOMEM, "gpu: out of memory for the channel list");
        for (int ch = 0, i = 0; ch < c.nc; ch++)
            if (job->killmask[ch])
                c.h_chan[i++] = ch;
    }
    c.rp = (range_plan *)calloc((size_t)c.nr, sizeof *c.rp);
    if (!c.rp)
        return xc_error_set(err, XC_ENOMEM, "gpu: out of memory");
    c.maxds = 1;
    for (int k = 0; k < c.nr; k++) {
        range_plan &r = c.rp[k];
        r.ds = job->plan->r[k].ds;
        r.ndm = job->plan->r[k].ndm;
        r.nout = job->nout / (size_t)r.ds;
        if (r.ds > c.maxds)
            c.maxds = r.ds;
        choose_format(&r, job->in->nbits, c.nuse, c.test_wide, c.test_period);
        build_candidates(&r, &job->opts, c.nuse);
    }
    int optin = 0, dev = 0;
    XC_GPU_CK(cudaGetDevice(&dev), "cudaGetDevice");
    XC_GPU_CK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev),
              "cudaDeviceGetAttribute(shared memory per block)");
    c.smem_optin = (size_t)optin;
    XC_GPU_CK(cudaEventCreate(&c.ev0), "cudaEventCreate");
    XC_GPU_CK(cudaEventCreate(&c.ev1), "cudaEventCreate");
    c.have_ev = 1;
    /* the delay tables come first: refuse a cap they alone exceed before allocating them */
    size_t fixed = 4 * sizeof(int);
    for (int k = 0; k < c.nr; k++)
        fixed += c.rp[k].ndm * (size_t)c.nuse * sizeof(int32_t);
    if (job->opts.gpu_max_bytes && fixed > job->opts.gpu_max_bytes)
        return xc_error_set(err, XC_EINVAL,
                            "gpu: gpu_max_bytes = %zu is below the %zu bytes of the delay tables alone (%d channels)",
                            job->opts.gpu_max_bytes, fixed, c.nuse);
    xc_status st;
    if ((st = dev_alloc(c, (void **)&c.d_stats, 4 * sizeof(int), "delay statistics")) || (st = upload_delays(c)) ||
        (st = measure_ranges(c)))
        return st;

    /* the chunk plan: the longest chunk whose buffers fit the budget */
    size_t budget = job->opts.gpu_max_bytes;
    if (!budget) {
        size_t fr = 0, tot = 0;
        XC_GPU_CK(cudaMemGetInfo(&fr, &tot), "cudaMemGetInfo");
        budget = c.allocated + fr / 10 * 9;
    }
    c.budget = budget;
    const size_t need1 = plan_bytes(c, 1, NULL, NULL, NULL);
    if (need1 > budget) {
        if (job->opts.gpu_max_bytes)
            return xc_error_set(err, XC_EINVAL,
                                "gpu: gpu_max_bytes = %zu is below the %zu bytes the smallest time chunk needs "
                                "(%d channels, largest delay %lld samples)",
                                budget, need1, c.nc, (long long)job->max_delay);
        return xc_error_set(err, XC_EDEVICE,
                            "gpu: device memory: %zu bytes usable, the smallest time chunk needs %zu", budget, need1);
    }
    size_t lo = 1, hi = job->nout;
    while (lo < hi) {
        const size_t mid = lo + (hi - lo + 1) / 2;
        if (plan_bytes(c, mid, NULL, NULL, NULL) <= budget)
            lo = mid;
        else
            hi = mid - 1;
    }
    c.Lc = lo;
    c.nchunks = (long)ceil_div(job->nout, c.Lc);
    size_t out_b = 0, tmin_b = 0;
    plan_bytes(c, c.Lc, &c.y_cap, &out_b, &tmin_b);
    if ((st = dev_alloc(c, &c.d_raw, raw_samples(c, c.Lc) * (size_t)c.nc * c.esize, "input chunk")) ||
        (st = dev_alloc(c, &c.d_Y, c.y_cap, "channel-major words")) ||
        (st = dev_alloc(c, (void **)&c.d_out, out_b, "plane chunk")) ||
        (st = dev_alloc(c, (void **)&c.d_tmin, tmin_b, "tile delays")))
        return st;
    if (c.h_chan) {
        if ((st = dev_alloc(c, (void **)&c.d_chan, (size_t)c.nuse * sizeof(int), "channel list")))
            return st;
        XC_GPU_CK(cudaMemcpy(c.d_chan, c.h_chan, (size_t)c.nuse * sizeof(int), cudaMemcpyHostToDevice),
                  "cudaMemcpy(channel list)");
    }
    return XC_OK;
}

xc_status run_all(ctx &c)
{
    xc_error *err = c.err;
    const xc_ddjob *job = c.job;
    c.y_chunk = -1;
    c.tmin_range = -1;
    xc_status st = setup(c);
    if (st)
        return st;
    for (c.chunk = 0; c.chunk < c.nchunks; c.chunk++) {
        c.T0 = (size_t)c.chunk * c.Lc;
        const size_t Tend = c.T0 + c.Lc < job->nout ? c.T0 + c.Lc : job->nout;
        size_t w = Tend - c.T0 + (size_t)job->max_delay + (size_t)c.maxds - 1;
        if (w > job->in->nsamp - c.T0)
            w = job->in->nsamp - c.T0;
        c.W = w;
        const void *src = job->in->nbits == 32 ? (const void *)(job->in->f32 + c.T0 * (size_t)c.nc)
                                                : (const void *)(job->in->u16 + c.T0 * (size_t)c.nc);
        if ((st = ev_begin(c)))
            return st;
        XC_GPU_CK(cudaMemcpy(c.d_raw, src, w * (size_t)c.nc * c.esize, cudaMemcpyHostToDevice), "cudaMemcpy(input chunk)");
        if ((st = ev_end(c, cudaSuccess, "cudaMemcpy(input chunk)", &c.h2d_ms)))
            return st;
        for (int k = 0; k < c.nr; k++)
            if ((st = do_range(c, k)))
                return st;
    }
    return XC_OK;
}

void ctx_free(ctx &c)
{
    /* errors are ignored here: after a fault the context may refuse even frees */
    cudaFree(c.d_raw);
    cudaFree(c.d_Y);
    cudaFree(c.d_out);
    cudaFree(c.d_tmin);
    cudaFree(c.d_stats);
    cudaFree(c.d_chan);
    if (c.rp)
        for (int k = 0; k < c.nr; k++)
            cudaFree(c.rp[k].d_del);
    if (c.have_ev) {
        cudaEventDestroy(c.ev0);
        cudaEventDestroy(c.ev1);
    }
    free(c.rp);
    free(c.h_chan);
}

void fill_info(const ctx &c, xc_gpu_ddinfo *info)
{
    const xc_gpu_ddinfo in = *info;
    memset(info, 0, sizeof *info);
    info->force_direct = in.force_direct;
    info->test_wide = in.test_wide;
    info->test_period = in.test_period;
    info->nranges = c.nr < XC_GPU_MAX_RANGES ? c.nr : XC_GPU_MAX_RANGES;
    for (int k = 0; k < info->nranges; k++) {
        xc_gpu_ddrange *o = &info->range[k];
        const range_plan *r = c.rp ? &c.rp[k] : NULL;
        if (!r || !r->decided) {
            snprintf(o->kernel, sizeof o->kernel, "none");
        } else if (r->direct) {
            snprintf(o->kernel, sizeof o->kernel, "direct");
            o->samps_per_thread = DD_DIRECT_SAMPS;
            o->dms_per_block = 1;
            o->samps_per_block = DD_DIRECT_THREADS * DD_DIRECT_SAMPS;
        } else {
            const cfg &g = r->cand[r->use];
            const int L = dd_lanes(r->fmt);
            snprintf(o->kernel, sizeof o->kernel, "smem-%s%s", fmt_name(r->fmt), r->wide ? "-wide" : "");
            o->samps_per_thread = g.R * L;
            o->dms_per_block = g.dy;
            o->samps_per_block = 32 * g.wx * g.R * L;
            o->chans_per_stage = g.cs;
            o->shift_span = r->spread[r->use];
            o->smem_bytes = r->smem[r->use];
        }
        if (r) {
            o->autotuned = r->tuned;
            o->candidates = r->ntimed;
            o->kernel_ms = r->kernel_ms;
        }
    }
    info->nchunks = (int)c.nchunks;
    info->chunk_samples = c.Lc;
    info->device_bytes = c.allocated;
    info->budget_bytes = c.budget;
    info->kernel_ms = c.kernel_ms;
    info->prep_ms = c.prep_ms;
    info->autotune_ms = c.tune_ms;
    info->h2d_ms = c.h2d_ms;
    info->d2h_ms = c.d2h_ms;
}

} // namespace

extern "C" xc_status xc_dedisperse_gpu_info(const xc_ddjob *job, xc_plane *out, xc_gpu_ddinfo *info, xc_error *err)
{
    XC_GPU_CK_PRIOR("dedisperse");
    xc_status st = check_job(job, out, err);
    if (st)
        return st;
    ctx c;
    memset(&c, 0, sizeof c);
    c.job = job;
    c.out = out;
    c.err = err;
    c.nr = job->plan->nranges;
    c.force_direct = info ? info->force_direct : 0;
    c.test_wide = info ? info->test_wide : 0;
    c.test_period = info ? info->test_period : 0;
    for (int ch = 0; ch < job->in->nchans; ch++)
        c.nuse += !job->killmask || job->killmask[ch];
    if (job->nout == 0 || c.nuse == 0) {
        /* nothing to add: every output is the scaled empty sum */
        for (int k = 0; k < out->nranges; k++) {
            const float z = xc_scale_int(job->conv, 0, job->in->nchans, out->r[k].ds, job->in->nbits);
            for (size_t i = 0; i < out->r[k].ndm * out->r[k].nsamp; i++)
                out->r[k].data[i] = z;
        }
        st = XC_OK;
    } else {
        st = run_all(c);
    }
    for (int k = 0; c.rp && k < c.nr; k++)
        c.kernel_ms += c.rp[k].kernel_ms;
    if (info)
        fill_info(c, info);
    if (!st && job->opts.gpu_kernel_ms)
        *job->opts.gpu_kernel_ms = c.kernel_ms;
    ctx_free(c);
    return st;
}

extern "C" xc_status xc_dedisperse_gpu(const xc_ddjob *job, xc_plane *out, xc_error *err)
{
    return xc_dedisperse_gpu_info(job, out, NULL, err);
}
