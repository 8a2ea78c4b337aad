/* GPU dedisperser, host side: the settings.  Per DM range the word format
 * (by the largest scrunched value) and the flush periods of the narrow lane
 * sums; the candidate settings (the requested one, rounded to what the
 * kernels support, and with autotuning a fixed list of others); and, from the
 * delays on the device, which candidates' tiles fit in shared memory. */
#include <cuda_runtime.h>
#include <stdint.h>

#include "core/base/xc_nbits.h"
#include "optimized/gpu/dd_host.h"
#include "optimized/gpu/gpu_dd.h"
#include "optimized/gpu/xc_gpu.h"

namespace xcdd {

const char *fmt_name(int fmt)
{
    static const char *const n[] = {"q4", "q8", "p16", "s16", "w32", "f32", "u64"};
    return fmt >= 0 && fmt < DD_NFMT ? n[fmt] : "?";
}

static int max_r(int fmt, int wide)
{
    for (int R = 16; R >= 1; R /= 2)
        if (dd_smem_supported(fmt, R, wide))
            return R;
    return 0;
}

static int floor_pow2(int v)
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
    if (xc_nbits_is_float(nbits)) {
        r->fmt = DD_F32;
        r->vmax = 0;
        return;
    }
    const uint64_t v = (((uint64_t)1 << nbits) - 1) * (uint64_t)r->ds;
    r->vmax = v;
    r->fmt = v <= 127     ? DD_Q4
             : v <= 255   ? DD_Q8
             : v <= 32767 ? DD_P16
             : v <= 65535 ? DD_S16
             : v <= UINT32_MAX ? DD_W32
                               : DD_U64;
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
        /* the sum of w >> 8 holds lanes 1, 2, 3 at weights 1, 2^8, 2^16
         * (dd_accumulators.h): k1 * v * 65793 must stay below 2^32 */
        r->k1 = (int)(u32max / (65793u * v));
        r->k2 = r->wide ? (int)(u32max / ((uint64_t)r->k1 * v)) : 0;
        break;
    case DD_P16:
        r->k1 = (int)(65535 / v);
        r->k2 = r->wide ? (int)(u32max / ((uint64_t)r->k1 * v)) : 0;
        break;
    case DD_S16:
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
static cfg resolve(int fmt, int wide, int nuse, int spt, int dy, int spb, int cs)
{
    const int L = dd_lanes(fmt);
    cfg c;
    int R = (spt > 0 ? spt : DEF_SPT) / L;
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

static int same_cfg(const cfg &a, const cfg &b) { return a.R == b.R && a.wx == b.wx && a.dy == b.dy && a.cs == b.cs; }


void build_candidates(range_plan *r, const xc_ddtune *o, int nuse)
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


xc_status measure_ranges(ctx &c)
{
    xc_error *err = c.err;
    for (int k = 0; k < c.s->nr; k++) {
        range_plan &r = c.s->rp[k];
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
            if (c.s->force_direct || r.fmt == DD_U64)
                continue;
            /* two stages (one being added while the next is copied in): each
             * cs rows of S + spread words, and the dy x cs thread shifts */
            const size_t row = tile_words(r, j) + (size_t)stats[0];
            const size_t per_chan = 2 * (row * 4 + (size_t)r.cand[j].dy * 4);
            if (per_chan > c.s->smem_optin)
                continue;
            /* three blocks per SM where a channel fits that budget (the
             * registers of the 8-bit kernel allow three: 84 a thread), else
             * as many channels as one block's shared memory holds */
            const size_t third = c.s->smem_sm / 3 > 1024 ? c.s->smem_sm / 3 - 1024 : 0;
            size_t cs = (third >= per_chan ? third : c.s->smem_optin) / per_chan;
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

} // namespace xcdd
