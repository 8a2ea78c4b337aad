/* GPU dedisperser, host side: the work of one time chunk.  Per DM range the
 * raw chunk becomes channel-major lane-packed words (dd_pack), the DM tiles'
 * smallest delays per channel are found (dd_bounds), the shared-memory or
 * direct kernel writes the plane, dd_scale scales it, and the plane is copied
 * into the caller's at the chunk's offset.  Every launch is checked and
 * waited for, so a fault is reported with the kernel's name. */
#include <cuda_runtime.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>

#include "optimized/gpu/dd_host.h"
#include "optimized/gpu/gpu_check.h"
#include "optimized/gpu/gpu_dd.h"

namespace xcdd {

xc_status ev_begin(ctx &c)
{
    xc_error *err = c.err;
    XC_GPU_CK(cudaEventRecord(c.s->ev0, 0), "cudaEventRecord");
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
    XC_GPU_CK(cudaEventRecord(c.s->ev1, 0), "cudaEventRecord");
    XC_GPU_CK(cudaEventSynchronize(c.s->ev1), name);
    float f = 0;
    XC_GPU_CK(cudaEventElapsedTime(&f, c.s->ev0, c.s->ev1), "cudaEventElapsedTime");
    if (ms)
        *ms += f;
    return XC_OK;
}

/* Runs the tile-bounds kernel for range k at dy trials per tile: fills tmin
 * when given and returns {largest spread, largest delay, smallest delay}. */
xc_status delay_bounds(ctx &c, int k, int dy, int32_t *tmin, int stats[3])
{
    xc_error *err = c.err;
    const range_plan &r = c.s->rp[k];
    const int init[3] = {0, 0, INT_MAX};
    XC_GPU_CK(cudaMemcpy(c.s->d_stats, init, sizeof init, cudaMemcpyHostToDevice), "cudaMemcpy(delay statistics)");
    dd_bounds_args a;
    a.del = r.d_del;
    a.ndm = (int)r.ndm;
    a.nuse = c.s->nuse;
    a.dy = dy;
    a.ntiles = ceil_div(r.ndm, (size_t)dy);
    a.tmin = tmin;
    a.stats = c.s->d_stats;
    xc_status st = ev_begin(c);
    if (!st)
        st = ev_end(c, dd_launch_bounds(a, 0), "dd_bounds", &c.prep_ms);
    if (st)
        return st;
    XC_GPU_CK(cudaMemcpy(stats, c.s->d_stats, 3 * sizeof(int), cudaMemcpyDeviceToHost), "cudaMemcpy(delay statistics)");
    return XC_OK;
}

/* ---- per-chunk work ------------------------------------------------------------ */

dd_pack_args pack_args(const ctx &c, int k, int yfmt, size_t S, size_t T0, size_t W, const void *raw, void *Y)
{
    const range_plan &r = c.s->rp[k];
    const size_t pitch = c.y_cap / ((size_t)c.s->nuse * dd_word_bytes(yfmt)) / 32 * 32;
    const size_t j0 = ceil_div(T0, (size_t)r.ds);
    const size_t off = j0 * (size_t)r.ds - T0;
    dd_pack_args a;
    a.raw = raw;
    a.raw_f32 = xc_block_is_float(c.job->in);
    a.raw_u8 = 0;
    a.nc = (size_t)c.s->nc;
    a.chan = c.s->d_chan;
    a.nuse = c.s->nuse;
    a.ds = r.ds;
    a.off = off;
    a.ns_avail = W > off ? (W - off) / (size_t)r.ds : 0;
    a.S = S;
    a.np = pitch;
    a.Y = Y;
    a.pitch = pitch;
    a.row_tile0 = 0;
    return a;
}

cudaError_t launch_pack_all(int yfmt, dd_pack_args a, int nuse, cudaStream_t st)
{
    const size_t tiles_y = ceil_div((size_t)nuse, 32);
    for (size_t t0 = 0; t0 < tiles_y; t0 += 65535) {
        const size_t ty = tiles_y - t0 < 65535 ? tiles_y - t0 : 65535;
        a.row_tile0 = (int)t0;
        const cudaError_t e = dd_launch_pack(yfmt, dim3((unsigned)ceil_div(a.np, 32), (unsigned)ty), a, st);
        if (e != cudaSuccess)
            return e;
    }
    return cudaSuccess;
}

/* Fills Y for range k in the word format yfmt with lane stride S (skipped when
 * Y already holds exactly that). */
xc_status ensure_pack(ctx &c, int k, int yfmt, size_t S)
{
    const range_plan &r = c.s->rp[k];
    if (c.y_chunk == c.chunk && c.y_ds == r.ds && c.y_fmt == yfmt && (dd_lanes(yfmt) == 1 || c.y_S == S))
        return XC_OK;
    c.y_chunk = -1;
    const dd_pack_args a = pack_args(c, k, yfmt, S, c.T0, c.W, c.s->d_raw, c.s->d_Y);
    char name[48];
    snprintf(name, sizeof name, "dd_pack_%s", fmt_name(yfmt));
    xc_status st = ev_begin(c);
    if (!st)
        st = ev_end(c, launch_pack_all(yfmt, a, c.s->nuse, 0), name, &c.prep_ms);
    if (st)
        return st;
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
    const range_plan &r = c.s->rp[k];
    const int dy = r.cand[j].dy;
    if (c.s->tmin_range == k && c.s->tmin_dy == dy)
        return XC_OK;
    c.s->tmin_range = -1;
    int stats[3];
    xc_status st = delay_bounds(c, k, dy, c.s->d_tmin, stats);
    if (st)
        return st;
    if (stats[0] != r.spread[j] || stats[1] != r.dmax)
        return xc_error_set(c.err, XC_EINVAL, "gpu: internal: range %d: delay bounds changed (%d, %d; were %d, %d)", k,
                            stats[0], stats[1], r.spread[j], r.dmax);
    c.s->tmin_range = k;
    c.s->tmin_dy = dy;
    return XC_OK;
}

dd_smem_args smem_args(const ctx &c, int k, int j, size_t lk, const int32_t *tmin, const void *Y, float *out)
{
    const range_plan &r = c.s->rp[k];
    const cfg &g = r.cand[j];
    dd_smem_args a;
    a.Y = static_cast<const uint32_t *>(Y);
    a.pitch = c.y_cap / ((size_t)c.s->nuse * 4) / 32 * 32;
    a.del = r.d_del;
    a.tmin = tmin;
    a.nuse = c.s->nuse;
    a.ndm = (int)r.ndm;
    a.dy = g.dy;
    a.cs = g.cs;
    a.rowlen = r.rowlen[j];
    a.k1 = r.k1;
    a.k2 = r.k2;
    a.k3 = r.k3;
    a.out = out;
    a.opitch = lk;
    a.lk = lk;
    a.ttile0 = 0;
    return a;
}

cudaError_t launch_smem_all(const range_plan &r, int j, dd_smem_args a, size_t tiles, cudaStream_t st)
{
    const cfg &g = r.cand[j];
    const size_t S = tile_words(r, j), L = (size_t)dd_lanes(r.fmt);
    const size_t ttiles = ceil_div(a.lk, S * L);
    for (size_t t0 = 0; t0 < ttiles; t0 += 65535) {
        const size_t ty = ttiles - t0 < 65535 ? ttiles - t0 : 65535;
        a.ttile0 = t0;
        const cudaError_t e = dd_launch_smem(r.fmt, g.R, r.wide, dim3((unsigned)tiles, (unsigned)ty),
                                             dim3(32 * (unsigned)g.wx, (unsigned)g.dy), r.smem[j], a, st);
        if (e != cudaSuccess)
            return e;
    }
    return cudaSuccess;
}

xc_status check_smem(const ctx &c, int k, int j, size_t lk, size_t tiles)
{
    const range_plan &r = c.s->rp[k];
    const size_t pitch = c.y_cap / ((size_t)c.s->nuse * 4) / 32 * 32;
    if (smem_words(r, j, lk) > pitch)
        return xc_error_set(c.err, XC_EINVAL, "gpu: internal: range %d needs %zu words per row, the plan made %zu", k,
                            smem_words(r, j, lk), pitch);
    if (tiles > INT_MAX)
        return xc_error_set(c.err, XC_EINVAL, "gpu: range %d: %zu DM tiles are more than a grid holds", k, tiles);
    return XC_OK;
}

void smem_name(const range_plan &r, int j, char *name, size_t n)
{
    snprintf(name, n, "dd_smem_%s%s<R=%d>", fmt_name(r.fmt), r.wide ? "_wide" : "", r.cand[j].R);
}

/* Launches the shared-memory kernel (candidate j) over DM tiles [0, tiles). */
xc_status run_smem(ctx &c, int k, int j, size_t lk, size_t tiles, double *ms)
{
    xc_status st = check_smem(c, k, j, lk, tiles);
    if (st)
        return st;
    const range_plan &r = c.s->rp[k];
    char name[64];
    smem_name(r, j, name, sizeof name);
    const dd_smem_args a = smem_args(c, k, j, lk, c.s->d_tmin, c.s->d_Y, c.s->d_out);
    if (!(st = ev_begin(c)))
        st = ev_end(c, launch_smem_all(r, j, a, tiles, 0), name, ms);
    return st;
}

dd_direct_args direct_args(const ctx &c, int k, size_t lk, const void *Y, float *out)
{
    const range_plan &r = c.s->rp[k];
    dd_direct_args a;
    a.Y = Y;
    a.pitch = c.y_cap / ((size_t)c.s->nuse * dd_word_bytes(direct_fmt(r))) / 32 * 32;
    a.del = r.d_del;
    a.nuse = c.s->nuse;
    a.ndm = (int)r.ndm;
    a.out = out;
    a.opitch = lk;
    a.lk = lk;
    a.tblock0 = 0;
    return a;
}

cudaError_t launch_direct_all(const range_plan &r, dd_direct_args a, cudaStream_t st)
{
    const size_t bx = ceil_div(a.lk, (size_t)DD_DIRECT_THREADS * DD_DIRECT_SAMPS);
    for (size_t b0 = 0; b0 < bx; b0 += 65535) {
        const size_t ny = bx - b0 < 65535 ? bx - b0 : 65535;
        a.tblock0 = b0;
        const cudaError_t e = dd_launch_direct(direct_fmt(r), dim3((unsigned)r.ndm, (unsigned)ny), a, st);
        if (e != cudaSuccess)
            return e;
    }
    return cudaSuccess;
}

xc_status check_direct(const ctx &c, int k, size_t lk)
{
    const range_plan &r = c.s->rp[k];
    const size_t pitch = c.y_cap / ((size_t)c.s->nuse * dd_word_bytes(direct_fmt(r))) / 32 * 32;
    if (lk + (size_t)r.dmax > pitch)
        return xc_error_set(c.err, XC_EINVAL, "gpu: internal: range %d needs %zu words per row, the plan made %zu", k,
                            lk + (size_t)r.dmax, pitch);
    return XC_OK;
}

static xc_status run_direct(ctx &c, int k, size_t lk, double *ms)
{
    xc_status st = check_direct(c, k, lk);
    if (st)
        return st;
    const range_plan &r = c.s->rp[k];
    char name[48];
    snprintf(name, sizeof name, "dd_direct_%s", fmt_name(direct_fmt(r)));
    const dd_direct_args a = direct_args(c, k, lk, c.s->d_Y, c.s->d_out);
    if (!(st = ev_begin(c)))
        st = ev_end(c, launch_direct_all(r, a, 0), name, ms);
    return st;
}

bool scale_of(const ctx &c, int k, dd_scale *sc)
{
    if (c.job->conv->scaling == XC_SCALE_SUM)
        return false;
    /* the same float expressions as xc_scale_real, evaluated by the host compiler */
    sc->kind = (int)c.job->conv->scaling;
    sc->den = xc_dedisp_in_range(c.job->in->nbits) * (float)c.s->nc;
    sc->factor = XC_DEDISP_SCALE;
    sc->fnch = (float)c.s->nc;
    sc->fds = (float)c.s->rp[k].ds;
    return true;
}

static xc_status copy_out(ctx &c, int k, size_t j0, size_t lk)
{
    xc_error *err = c.err;
    const range_plan &r = c.s->rp[k];
    xc_planerange *o = &c.out->r[k];
    float *dst = o->data + j0;
    xc_status st = ev_begin(c);
    if (st)
        return st;
    if (lk == o->nsamp) {
        XC_GPU_CK(cudaMemcpy(dst, c.s->d_out, r.ndm * lk * sizeof(float), plane_kind(c)), "cudaMemcpy(plane)");
    } else if (o->nsamp * sizeof(float) <= INT_MAX) {
        XC_GPU_CK(cudaMemcpy2D(dst, o->nsamp * sizeof(float), c.s->d_out, lk * sizeof(float), lk * sizeof(float), r.ndm,
                               plane_kind(c)),
                  "cudaMemcpy2D(plane)");
    } else {
        for (size_t d = 0; d < r.ndm; d++)
            XC_GPU_CK(cudaMemcpy(dst + d * o->nsamp, c.s->d_out + d * lk, lk * sizeof(float), plane_kind(c)),
                      "cudaMemcpy(plane row)");
    }
    return ev_end(c, cudaSuccess, "cudaMemcpy(plane)", &c.d2h_ms);
}

size_t range_span(const ctx &c, int k, size_t T0, size_t *j0)
{
    const range_plan &r = c.s->rp[k];
    const size_t ds = (size_t)r.ds;
    const size_t Tend = chunk_end(c, T0);
    *j0 = ceil_div(T0, ds);
    size_t j1 = ceil_div(Tend, ds);
    if (j1 > r.nout)
        j1 = r.nout;
    return j1 > *j0 ? j1 - *j0 : 0;
}

xc_status do_range(ctx &c, int k)
{
    range_plan &r = c.s->rp[k];
    size_t j0;
    const size_t lk = range_span(c, k, c.T0, &j0);
    if (!lk)
        return XC_OK;
    xc_status st = XC_OK;
    if (!r.decided) {
        /* on the range's first chunk with outputs, this job's or an earlier one's */
        const double t = now_ms();
        st = decide(c, k, lk);
        c.setup_ms += now_ms() - t;
        if (st)
            return st;
    }
    if (r.direct) {
        if ((st = ensure_pack(c, k, direct_fmt(r), 0)) || (st = run_direct(c, k, lk, &r.kernel_ms)))
            return st;
    } else {
        if ((st = ensure_pack(c, k, r.fmt, tile_words(r, r.use))) || (st = ensure_tmin(c, k, r.use)) ||
            (st = run_smem(c, k, r.use, lk, ceil_div(r.ndm, (size_t)r.cand[r.use].dy), &r.kernel_ms)))
            return st;
    }
    dd_scale sc;
    if (scale_of(c, k, &sc) &&
        ((st = ev_begin(c)) || (st = ev_end(c, dd_launch_scale(c.s->d_out, r.ndm * lk, sc, 0), "dd_scale", &r.kernel_ms))))
        return st;
    /* test hook: a fault injected where every kernel of the range has run;
     * the run must stop here with the stage named, never copy a plane */
    if (c.s->test_fault && k == 0 &&
        ((st = ev_begin(c)) || (st = ev_end(c, dd_launch_fault(c.s->test_fault, 0), "dd_fault", NULL))))
        return st;
    return copy_out(c, k, j0, lk);
}

} // namespace xcdd
