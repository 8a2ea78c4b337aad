/* GPU dedisperser, host side: a banded job (planned by plan_bands,
 * dd_memplan.cu).  The job is one chunk of its whole time: the input goes to
 * the device whole and each range's trials are dedispersed in bands of
 * about BAND_TRIALS over the whole time, so a band's plane is one contiguous
 * range of the caller's page-locked plane (rows of the plane's length) and
 * crosses PCIe in one copy, while the next bands' kernels run.  A job of
 * time chunks copies each chunk's plane out one row per trial and chunk;
 * an H200 paid about 0.2 us a row beyond the bytes, so where the copy out
 * binds (8-bit at 512 channels: 36 ms of copies for a 32.9 ms plane) the
 * rows cost more than the bound leaves (docs/MEASUREMENTS.md).
 *
 * No band can start before the whole input is on the device, so the head,
 * range 0's first trials (sized in plan_bands so that their work lasts
 * about three times the upload), is dedispersed piece by piece while the
 * input arrives: the input is uploaded in pieces of growing length, each
 * packed as it lands, the head's kernels run over the outputs those words
 * cover, band by band, and each band's part is copied out (a 2D copy of its
 * rows: few rows, as the pieces are few).  Five streams: the upload, the
 * packing (above the kernels in priority), two for the kernels (consecutive
 * launches overlap, so one's last wave does not idle the device) and the
 * copies out; events order them (an event's wait takes its last record at
 * the time of the wait, so one event serves each hand-over).  BAND_RING
 * band buffers rotate: a band's kernel waits for the copy out of the band
 * BAND_RING before it.  The job's last trials go in quarter bands, so
 * little is left to copy after the last kernel.  Ranges packed differently
 * (ds, word format, lane stride) repack the whole of Y after every earlier
 * kernel has read it. */
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "optimized/gpu/dd_host.h"
#include "optimized/gpu/gpu_check.h"
#include "optimized/gpu/gpu_dd.h"

namespace xcdd {

enum { BS_UP, BS_PACK, BS_K0, BS_K1, BS_OUT, BS_N };
enum { E_UP, E_PACK, E_KERN, E_JOIN, E_RING };

void bands_release(xc_gpu_ddstate *s)
{
    if (!s->have_bands)
        return;
    for (int i = 0; i < BS_N; i++)
        cudaStreamDestroy(s->bst[i]);
    for (int i = 0; i < E_RING + BAND_RING; i++)
        cudaEventDestroy(s->bev[i]);
    s->have_bands = 0;
}

static xc_status band_streams(ctx &c)
{
    xc_gpu_ddstate *s = c.s;
    if (s->have_bands)
        return XC_OK;
    int least = 0, greatest = 0;
    if (cudaDeviceGetStreamPriorityRange(&least, &greatest) != cudaSuccess) {
        (void)cudaGetLastError();
        greatest = 0;
    }
    cudaError_t e = cudaSuccess;
    int ns = 0, ne = 0;
    /* the packing of the next piece goes before more of the kernels' blocks
     * (a head kernel that filled the device held a piece's packing back
     * 2.8 ms in an H200's trace): the kernels one step below it, where the
     * device has priorities */
    const int below = greatest < least ? greatest + 1 : greatest;
    while (ns < BS_N && (e = cudaStreamCreateWithPriority(&s->bst[ns], cudaStreamNonBlocking,
                                                          ns == BS_K0 || ns == BS_K1 ? below : greatest)) == cudaSuccess)
        ns++;
    while (e == cudaSuccess && ne < E_RING + BAND_RING &&
           (e = cudaEventCreateWithFlags(&s->bev[ne], cudaEventDisableTiming)) == cudaSuccess)
        ne++;
    if (e != cudaSuccess) {
        while (ns > 0)
            cudaStreamDestroy(s->bst[--ns]);
        while (ne > 0)
            cudaEventDestroy(s->bev[--ne]);
        return xc_gpu_fail(c.err, e, "the banded job's streams and events");
    }
    s->have_bands = 1;
    return XC_OK;
}

/* One banded job in flight: its streams, what Y holds, the kernels issued
 * and their names (for an error). */
struct brun {
    cudaStream_t st[BS_N];
    cudaEvent_t *ev;
    cudaEvent_t *tev;          /* slot 0's timing events: [2k], [2k + 1] around range k's kernels, then the upload's */
    int nk;                    /* kernels issued: the next goes to BS_K0 + nk % 2 */
    int ds, fmt;
    size_t S;
    int timed[64];             /* range k's window has begun (k < 64) */
    char names[200];
};

/* Stream `to` waits for what `from` has queued so far. */
static cudaError_t band_hand(brun &b, int from, int e, int to)
{
    cudaError_t r = cudaEventRecord(b.ev[e], b.st[from]);
    return r == cudaSuccess ? cudaStreamWaitEvent(b.st[to], b.ev[e], 0) : r;
}

static xc_status band_fail(ctx &c, cudaError_t e, const char *what)
{
    return xc_gpu_fail(c.err, e, what);
}

/* Words [w0, w1) of range k's packing (format yfmt, lane stride S) on the
 * packing stream: the whole-job packing's words, offset (word p holds the
 * scrunched samples p + l S, so a part is the same words). */
static xc_status pack_part(ctx &c, brun &b, int k, int yfmt, size_t S, size_t w0, size_t w1)
{
    if (w1 <= w0)
        return XC_OK;
    dd_pack_args a = pack_args(c, k, yfmt, S, 0, c.W, c.s->d_raw, c.s->d_Y);
    a.Y = (char *)a.Y + w0 * dd_word_bytes(yfmt);
    a.off += w0 * (size_t)c.s->rp[k].ds;
    a.ns_avail = a.ns_avail > w0 ? a.ns_avail - w0 : 0;
    a.np = w1 - w0;
    const cudaError_t e = launch_pack_all(yfmt, a, c.s->nuse, b.st[BS_PACK]);
    return e == cudaSuccess ? XC_OK : band_fail(c, e, "launch dd_pack (banded job)");
}

/* Range k's trials [d, d + nb), outputs [t0, t0 + lk) (t0 a whole number
 * of time tiles), into out (row pitch opitch, out at output t0), on the
 * next kernel stream, then the scaling; returns that stream in *ks. */
static xc_status band_kernel(ctx &c, brun &b, int k, size_t d, size_t nb, size_t t0, size_t lk, float *out,
                             size_t opitch, int *ks)
{
    range_plan &r = c.s->rp[k];
    const int j = r.use;
    const size_t dy = (size_t)r.cand[j].dy, tiles = ceil_div(nb, dy);
    *ks = BS_K0 + b.nk % 2;
    /* the pitch holds the words read through output t0 + lk (t0 is tile-aligned) */
    xc_status st = check_smem(c, k, j, t0 + lk, tiles);
    if (st)
        return st;
    dd_smem_args a = smem_args(c, k, j, lk, r.d_tmin + d / dy * (size_t)c.s->nuse,
                               static_cast<const uint32_t *>(c.s->d_Y) + t0, out);
    a.del = r.d_del + d * (size_t)c.s->nuse;
    a.ndm = (int)nb;
    a.opitch = opitch;
    char name[64];
    smem_name(r, j, name, sizeof name);
    if (!strstr(b.names, name)) {
        const size_t n = strlen(b.names);
        snprintf(b.names + n, sizeof b.names - n, "%s%s", n ? ", " : "", name);
    }
    cudaError_t e = cudaSuccess;
    if (k < 64 && !b.timed[k]) {
        e = cudaEventRecord(b.tev[2 * k], b.st[*ks]);
        b.timed[k] = 1;
    }
    if (e == cudaSuccess)
        e = launch_smem_all(r, j, a, tiles, b.st[*ks]);
    dd_scale sc;
    if (e == cudaSuccess && scale_of(c, k, &sc))
        e = opitch == lk ? dd_launch_scale(out, nb * lk, sc, b.st[*ks])
                         : dd_launch_scale_rows(out, nb, lk, opitch, sc, b.st[*ks]);
    if (e == cudaSuccess && k < 64)
        e = cudaEventRecord(b.tev[2 * k + 1], b.st[*ks]);
    b.nk++;
    if (e != cudaSuccess) {
        char what[96];
        snprintf(what, sizeof what, "launch %s (banded job)", name);
        return band_fail(c, e, what);
    }
    return XC_OK;
}

/* Rows [d, d + nb) of range k, outputs [t0, t0 + lk), from src (row pitch
 * spitch) into the caller's plane, on the copy stream after stream ks's
 * kernels: one copy where the rows are whole. */
static xc_status copy_rows(ctx &c, brun &b, int ks, int k, size_t d, size_t nb, size_t t0, size_t lk, const float *src,
                           size_t spitch)
{
    const xc_planerange *o = &c.out->r[k];
    float *dst = o->data + d * o->nsamp + t0;
    cudaError_t e = band_hand(b, ks, E_KERN, BS_OUT);
    if (e == cudaSuccess && lk == o->nsamp && spitch == lk)
        e = cudaMemcpyAsync(dst, src, nb * lk * sizeof(float), cudaMemcpyDeviceToHost, b.st[BS_OUT]);
    else if (e == cudaSuccess)
        e = cudaMemcpy2DAsync(dst, o->nsamp * sizeof(float), src, spitch * sizeof(float), lk * sizeof(float), nb,
                              cudaMemcpyDeviceToHost, b.st[BS_OUT]);
    return e == cudaSuccess ? XC_OK : band_fail(c, e, "copy of a band's plane to the host");
}

/* The head's trials of range 0 (at most its buffer, a whole number of DM
 * tiles unless all of the range) and the pieces' output boundaries t[0..n]
 * (whole time tiles, growing so that the head's work on a piece outlasts
 * the next piece's upload); returns n, 0 without a head. */
static int head_pieces(const ctx &c, size_t lk0, size_t *head, size_t t[BAND_PIECES + 1])
{
    const range_plan &r0 = c.s->rp[0];
    *head = 0;
    if (!lk0)
        return 0;
    const size_t dy = (size_t)r0.cand[r0.use].dy;
    size_t h = c.head_want < r0.ndm ? c.head_want : r0.ndm;
    if (h < r0.ndm)
        h = h / dy * dy;
    if (h * lk0 > c.head_cap)
        h = c.head_cap / lk0 / dy * dy;
    *head = h;
    if (!h)
        return 0;
    const size_t TS = tile_words(r0, r0.use) * (size_t)dd_lanes(r0.fmt);
    const double D = (double)(c.job->max_delay + c.s->maxds - 1) / r0.ds;
    double g = c.head_rate > 0 ? (double)*head * c.head_rate / 1.2 : 2.0;
    g = g < 1.25 ? 1.25 : g > 8 ? 8 : g;
    double want = D / 2 > (double)RAMP_MIN / r0.ds ? D / 2 : (double)RAMP_MIN / r0.ds;
    int n = 0;
    t[0] = 0;
    size_t len = round_up((size_t)want + 1, TS);
    while (n < BAND_PIECES - 1 && t[n] + len < lk0) {
        t[n + 1] = t[n] + len;
        n++;
        len = round_up((size_t)((double)len * g), TS);
    }
    t[++n] = lk0;
    return n;
}

/* The input uploaded in pieces, range 0's packing of each piece, and the
 * head's kernels and copies out over the outputs each piece completes. */
static xc_status head_phase(ctx &c, brun &b, size_t lk0)
{
    xc_gpu_ddstate *s = c.s;
    const range_plan &r0 = s->rp[0];
    const size_t row = (size_t)s->nc * s->esize;
    const char *src = (const char *)(xc_block_is_float(c.job->in) ? (const void *)c.job->in->f32
                                                                  : (const void *)c.job->in->u16);
    size_t head = 0, t[BAND_PIECES + 1];
    int n = head_pieces(c, lk0, &head, t);
    c.npieces = n;
    /* range 0 undecided (no outputs): nothing to pack for it */
    const int yfmt = r0.fmt;
    const size_t S = lk0 ? tile_words(r0, r0.use) : 0, L = (size_t)dd_lanes(yfmt);
    const size_t pitch = c.y_cap / ((size_t)s->nuse * dd_word_bytes(yfmt)) / 32 * 32;
    const size_t npk = lk0 ? pack_words(c, 0, 0, yfmt, S, pitch) : 0;
    const size_t hb = lk0 ? round_up(c.band_trials, (size_t)r0.cand[r0.use].dy) : 1;
    size_t wdone = 0, udone = 0;
    cudaError_t e = cudaEventRecord(b.tev[3 * s->nr], b.st[BS_UP]);
    for (int p = 0; p < (n ? n : 1) && e == cudaSuccess; p++) {
        const bool last = !n || p + 1 == n;
        size_t w1 = last ? npk : t[p] + smem_words(r0, r0.use, t[p + 1] - t[p]);
        w1 = w1 > npk ? npk : w1 < wdone ? wdone : w1;
        size_t u1 = last ? c.W : (w1 + (L - 1) * S) * (size_t)r0.ds;
        u1 = u1 > c.W ? c.W : u1 < udone ? udone : u1;
        if (u1 > udone)
            e = cudaMemcpyAsync((char *)s->d_raw + udone * row, src + udone * row, (u1 - udone) * row,
                                cudaMemcpyHostToDevice, b.st[BS_UP]);
        if (e == cudaSuccess && last)
            e = cudaEventRecord(b.tev[3 * s->nr + 1], b.st[BS_UP]);
        if (e == cudaSuccess)
            e = band_hand(b, BS_UP, E_UP, BS_PACK);
        if (e != cudaSuccess)
            return band_fail(c, e, "copy of the input to the device (banded job)");
        xc_status st = lk0 ? pack_part(c, b, 0, yfmt, S, wdone, w1) : XC_OK;
        wdone = w1;
        udone = u1;
        if (st)
            return st;
        if (!n)
            break;
        if ((e = cudaEventRecord(b.ev[E_PACK], b.st[BS_PACK])) != cudaSuccess)
            return band_fail(c, e, "cudaEventRecord (banded job)");
        /* the piece's head in bands, each copied out when its kernel ends:
         * one launch over the whole head left the copies idle while it ran
         * (an H200's trace: 1.2 ms at 512 channels, 8-bit) */
        const size_t len = t[p + 1] - t[p];
        for (size_t d = 0; d < head; d += hb) {
            const size_t nb = head - d < hb ? head - d : hb;
            int ks = BS_K0 + b.nk % 2;
            if ((e = cudaStreamWaitEvent(b.st[ks], b.ev[E_PACK], 0)) != cudaSuccess)
                return band_fail(c, e, "cudaStreamWaitEvent (banded job)");
            float *out = s->d_out + d * lk0 + t[p];
            if ((st = band_kernel(c, b, 0, d, nb, t[p], len, out, lk0, &ks)) ||
                (st = copy_rows(c, b, ks, 0, d, nb, t[p], len, out, lk0)))
                return st;
        }
    }
    if (e != cudaSuccess)
        return band_fail(c, e, "cudaEventRecord (banded job)");
    if (lk0) {
        b.ds = r0.ds;
        b.fmt = yfmt;
        b.S = S;
    }
    c.head_want = head;   /* what the bands of range 0 start after */
    return XC_OK;
}

/* Every range's bands after the head: repacked where the range's packing
 * differs from Y's, each band's kernel into the next ring buffer, then its
 * copy out. */
static xc_status band_phase(ctx &c, brun &b)
{
    xc_gpu_ddstate *s = c.s;
    cudaError_t e = cudaSuccess;
    for (int k = 0; k < s->nr; k++) {
        range_plan &r = s->rp[k];
        size_t j0;
        const size_t lk = range_span(c, k, 0, &j0);
        if (!lk || !r.ndm)
            continue;
        const size_t S = tile_words(r, r.use);
        if (b.ds != r.ds || b.fmt != r.fmt || (dd_lanes(r.fmt) != 1 && b.S != S)) {
            /* every kernel so far has read Y before it is packed again */
            if ((e = band_hand(b, BS_K0, E_JOIN, BS_PACK)) != cudaSuccess || (e = band_hand(b, BS_K1, E_JOIN, BS_PACK)) != cudaSuccess)
                return band_fail(c, e, "cudaStreamWaitEvent (banded job)");
            const size_t pitch = c.y_cap / ((size_t)s->nuse * dd_word_bytes(r.fmt)) / 32 * 32;
            xc_status st = pack_part(c, b, k, r.fmt, S, 0, pack_words(c, k, 0, r.fmt, S, pitch));
            if (st)
                return st;
            b.ds = r.ds;
            b.fmt = r.fmt;
            b.S = S;
        }
        /* this range's kernels on both streams read the packing */
        if ((e = cudaEventRecord(b.ev[E_PACK], b.st[BS_PACK])) != cudaSuccess ||
            (e = cudaStreamWaitEvent(b.st[BS_K0], b.ev[E_PACK], 0)) != cudaSuccess ||
            (e = cudaStreamWaitEvent(b.st[BS_K1], b.ev[E_PACK], 0)) != cudaSuccess)
            return band_fail(c, e, "cudaStreamWaitEvent (banded job)");
        const size_t dy = (size_t)r.cand[r.use].dy, fit = c.ring_cap / lk / dy * dy;
        size_t B = round_up(c.band_trials, dy);
        B = B > fit ? fit : B;
        if (!B)
            return xc_error_set(c.err, XC_EINVAL, "gpu: internal: range %d: a band buffer of %zu floats holds no DM tile",
                                k, c.ring_cap);
        size_t later = 0;   /* trials of the ranges after this one */
        for (int k2 = k + 1; k2 < s->nr; k2++) {
            size_t j2;
            later += range_span(c, k2, 0, &j2) ? s->rp[k2].ndm : 0;
        }
        const size_t small = round_up(B / 4 ? B / 4 : 1, dy);
        for (size_t d = k == 0 ? c.head_want : 0, nb; d < r.ndm; d += nb) {
            /* the job's last 2 B trials in quarter bands: the copies out
             * left after the last kernel are short */
            const size_t step = r.ndm - d + later <= 2 * B ? small : B;
            nb = r.ndm - d < step ? r.ndm - d : step;
            const int ring = c.nbands % BAND_RING;
            float *buf = s->d_out1 + (size_t)ring * c.ring_cap;
            const int next = BS_K0 + b.nk % 2;
            if (c.nbands >= BAND_RING && (e = cudaStreamWaitEvent(b.st[next], b.ev[E_RING + ring], 0)) != cudaSuccess)
                return band_fail(c, e, "cudaStreamWaitEvent (banded job)");
            int ks;
            xc_status st = band_kernel(c, b, k, d, nb, 0, lk, buf, lk, &ks);
            if (!st)
                st = copy_rows(c, b, ks, k, d, nb, 0, lk, buf, lk);
            if (st)
                return st;
            if ((e = cudaEventRecord(b.ev[E_RING + ring], b.st[BS_OUT])) != cudaSuccess)
                return band_fail(c, e, "cudaEventRecord (banded job)");
            c.nbands++;
        }
    }
    return XC_OK;
}

/* The kernels' windows per range (and their union, the device's time on
 * them) and the upload's time: the rates the next job plans with. */
static void band_rates(ctx &c, brun &b)
{
    xc_gpu_ddstate *s = c.s;
    double busy = 0, end = 0, sum = 0;
    for (int k = 0; k < s->nr && k < 64; k++) {
        float a = 0, z = 0, ms = 0;
        if (!b.timed[k] || cudaEventElapsedTime(&ms, b.tev[2 * k], b.tev[2 * k + 1]) != cudaSuccess ||
            cudaEventElapsedTime(&a, s->ev0, b.tev[2 * k]) != cudaSuccess ||
            cudaEventElapsedTime(&z, s->ev0, b.tev[2 * k + 1]) != cudaSuccess)
            continue;
        s->rp[k].kernel_ms += ms;
        sum += ms;
        const double from = a > end ? a : end;
        busy += z > from ? z - from : 0;
        end = z > end ? z : end;
    }
    float up = 0;
    if (cudaEventElapsedTime(&up, b.tev[3 * s->nr], b.tev[3 * s->nr + 1]) == cudaSuccess && c.W)
        s->dma_ns = up * 1e6 / (double)c.W;
    if (busy > 0) {
        s->kernel_ns = busy * 1e6 / (double)c.job->nout;
        s->kern_ns = sum * 1e6 / (double)c.job->nout;
    }
    (void)cudaGetLastError();
}

xc_status run_banded(ctx &c)
{
    xc_status st = pipe_setup(c);
    if (!st)
        st = band_streams(c);
    if (st)
        return st;
    xc_gpu_ddstate *s = c.s;
    brun b;
    memset(&b, 0, sizeof b);
    for (int i = 0; i < BS_N; i++)
        b.st[i] = s->bst[i];
    b.ev = s->bev;
    b.tev = s->sl[0].ev;
    b.ds = b.fmt = -1;
    c.chunk = 0;
    c.T0 = 0;
    c.W = chunk_samples(c, 0);
    c.nbands = 0;
    size_t j0;
    const size_t lk0 = s->rp[0].ndm ? range_span(c, 0, 0, &j0) : 0;
    cudaError_t e = cudaEventRecord(s->ev0, b.st[BS_UP]);
    if (e != cudaSuccess)
        return band_fail(c, e, "cudaEventRecord (banded job)");
    st = head_phase(c, b, lk0);
    if (!st)
        st = band_phase(c, b);
    /* nothing may still write into the plane after we return */
    cudaError_t first = cudaSuccess;
    for (int i = 0; i < BS_N; i++) {
        const cudaError_t w = cudaStreamSynchronize(b.st[i]);
        first = first == cudaSuccess ? w : first;
    }
    if (st)
        return st;
    if (first != cudaSuccess) {
        char what[256];
        snprintf(what, sizeof what, "banded job (%s)", b.names);
        return band_fail(c, first, what);
    }
    band_rates(c, b);
    return XC_OK;
}

} // namespace xcdd
