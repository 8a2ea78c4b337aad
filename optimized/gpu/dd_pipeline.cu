/* GPU dedisperser, host side: the time chunks of a job pipelined through
 * CUDA streams, one a slot: three where the input and a host plane are both
 * page-locked (no host copy), else two (the default; tune.gpu_serial = 1
 * runs the chunks one launch at a time, dd_launch.cu).
 *
 * Before the first chunk every range's setting is decided (autotuned on the
 * first chunk where asked, dd_autotune.cu) and its tile delays computed once
 * into a buffer of its own.  Then chunk i goes to slot i % n: the host waits
 * for that slot's previous chunk (i - n), copies its planes from pinned
 * staging into the caller's plane, copies chunk i's input into the slot's
 * pinned staging, and queues on the slot's stream the copy in, per range the
 * packing, kernel, scaling and the copy out into staging.  The GPU meanwhile
 * runs the chunks before it on the other streams, so copies in and out
 * overlap the other chunks' kernels, and the host copies overlap both.  In a
 * slot's stream each range's copy out comes before the next range's kernel
 * (the slot's plane buffer holds one range), and the next chunk's copy in
 * after the last one: with two slots, where the copies out take about as
 * long as the kernels (8-bit, 1024 channels on an H200), the chunk two on
 * waited for them with the device idle (1.9 ms per two chunks of 9 ms); a
 * third slot lets its copy in and packing go ahead.  Through staging the
 * host's copies set the pace, and the job keeps two slots: with three (and
 * the tail ramp) the staged gulps of `bench gpu` moved both ways, -13 to +21
 * points of the bound in one run, 26 ms slower at 8192 channels.  A page-locked
 * input (cudaHostAlloc, cudaHostRegister) is copied in without staging, and a
 * page-locked plane receives its chunks straight from the device; a job of
 * one chunk has nothing to overlap and copies straight to and from the
 * caller's memory whatever it is (no pinned staging is allocated for it).
 * A plane in device memory (a fused search reads it there) never crosses
 * PCIe: the kernels write each chunk into it at its offset (rows of the
 * plane's length), unless a scaling pass must follow on a chunk narrower
 * than the plane; then the chunk's plane is copied into it on the device.
 *
 * Nothing overlaps the first chunk's copy in, so a job after the first
 * starts with a ramp of shorter chunks (dd_memplan.cu), sized from the rates
 * the last job measured here: the host's copy into staging per input
 * spectrum (a staged input), or the device's time of the copies in per
 * spectrum (a page-locked input: an event pair around each), and the
 * device's kernel time per output (the union of the chunks' kernel
 * windows); into a page-locked host plane it also ends with one (the last
 * chunk's plane is copied out after every kernel).
 * A staged input chunk goes in pieces (IN_PIECE), each copied to the device
 * while the host fills the next; samples of at most 8 bits (held in 16 by
 * the block) are staged and copied one byte each, and the packing reads
 * them so, which halves the bytes of every copy in, the first chunk's
 * included (nothing overlaps that one); a staged plane comes out range by range,
 * each copied from staging once the event after its copy to the host has
 * fired, while the later ranges' kernels and copies run.
 * A fault surfaces when the slot's stream (or a range's event) is waited
 * for; the error names the chunk and the kernels queued for it.  Every copy
 * out (staged or direct) is queued after its range's kernels, so a kernel
 * that faults keeps its own range's and the later ranges' outputs out of
 * the plane, as in the serial path.
 * Kernel times come from an event pair per range and chunk; with several
 * streams a kernel may share the device with the other chunk's copies and packing,
 * so the serial mode is the one for kernel-only timing. */
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "optimized/gpu/dd_host.h"
#include "optimized/gpu/gpu_check.h"
#include "optimized/gpu/gpu_dd.h"
#include "optimized/gpu/gpu_hostcopy.h"
#include "optimized/gpu/xc_gpu.h"

namespace xcdd {

bool host_pinned(const void *p)
{
    return xc_gpu_is_pinned(p) != 0;
}

size_t chunk_samples(const ctx &c, size_t T0)
{
    const size_t Tend = chunk_end(c, T0);
    size_t w = Tend - T0 + (size_t)c.job->max_delay + (size_t)c.s->maxds - 1;
    return w > c.job->in->nsamp - T0 ? c.job->in->nsamp - T0 : w;
}

static const void *input_at(const ctx &c, size_t T0)
{
    return xc_block_is_float(c.job->in) ? (const void *)(c.job->in->f32 + T0 * (size_t)c.s->nc)
                                  : (const void *)(c.job->in->u16 + T0 * (size_t)c.s->nc);
}

void pipeline_release(xc_gpu_ddstate *s)
{
    host_release(s);
    bands_release(s);
    for (int q = 0; q < MAX_SLOTS; q++) {
        slot &sl = s->sl[q];
        if (sl.have_st)
            cudaStreamDestroy(sl.st);
        for (int e = 0; e < sl.nev; e++)
            cudaEventDestroy(sl.ev[e]);
        free(sl.ev);
        cudaFreeHost(sl.h_in);
        cudaFreeHost(sl.h_out);
        memset(&sl, 0, sizeof sl);
        sl.chunk = -1;
    }
}

/* Page-locked host memory of at least bytes (grown, never shrunk). */
static xc_status pinned(ctx &c, void **p, size_t *cap, size_t bytes, const char *what)
{
    if (*cap >= bytes && *p)
        return XC_OK;
    cudaFreeHost(*p);
    *p = NULL;
    *cap = 0;
    xc_error *err = c.err;
    char msg[96];
    snprintf(msg, sizeof msg, "cudaHostAlloc(%s, %zu bytes)", what, bytes);
    XC_GPU_CK(cudaHostAlloc(p, bytes ? bytes : 1, cudaHostAllocDefault), msg);
    *cap = bytes;
    return XC_OK;
}

/* Decisions on chunk 0 where a range has none yet, every range's tile
 * delays, streams, events and staging. */
xc_status pipe_setup(ctx &c)
{
    xc_error *err = c.err;
    xc_gpu_ddstate *s = c.s;
    const double t0 = now_ms();
    int undecided = 0;
    for (int k = 0; k < s->nr; k++)
        undecided |= !s->rp[k].decided;
    if (undecided) {
        c.chunk = 0;
        c.T0 = 0;
        c.W = chunk_samples(c, 0);
        xc_status st = ev_begin(c);
        if (st)
            return st;
        XC_GPU_CK(cudaMemcpy(s->d_raw, input_at(c, 0), c.W * (size_t)s->nc * s->esize, cudaMemcpyHostToDevice),
                  "cudaMemcpy(input chunk)");
        if ((st = ev_end(c, cudaSuccess, "cudaMemcpy(input chunk)", &c.h2d_ms)))
            return st;
        for (int k = 0; k < s->nr; k++) {
            size_t j0;
            const size_t lk = range_span(c, k, 0, &j0);
            if (!s->rp[k].decided && lk && (st = decide(c, k, lk)))
                return st;
        }
    }
    for (int k = 0; k < s->nr; k++) {
        range_plan &r = s->rp[k];
        if (!r.decided || r.direct || r.d_tmin)
            continue;
        const int dy = r.cand[r.use].dy;
        const size_t n = ceil_div(r.ndm, (size_t)dy) * (size_t)s->nuse;
        xc_status st = dev_alloc(c, (void **)&r.d_tmin, n * sizeof(int32_t), "tile delays of a range");
        int stats[3];
        if (!st)
            st = delay_bounds(c, k, dy, r.d_tmin, stats);
        if (st)
            return st;
        if (stats[0] != r.spread[r.use] || stats[1] != r.dmax)
            return xc_error_set(err, XC_EINVAL, "gpu: internal: range %d: delay bounds changed (%d, %d; were %d, %d)",
                                k, stats[0], stats[1], r.spread[r.use], r.dmax);
    }
    /* one chunk overlaps nothing: no staging then, the copies go straight
     * between the caller's memory and the device */
    c.staged = c.nchunks > 1;
    c.narrow = c.staged && !c.in_pinned && !xc_block_is_float(c.job->in) && c.job->in->nbits <= 8;
    size_t in = 0, out = 0;
    if (c.staged)
        pinned_need(c, &in, &out);
    for (int q = 0; q < c.nslot; q++) {
        slot &sl = s->sl[q];
        if (!sl.have_st) {
            /* the device's greatest priority: where a fused stream searches
             * the last block while this one is dedispersed (sp_fused.c), the
             * search's blocks fill what the chunks leave free and do not
             * delay them; alone, both slots are equal as before */
            int least = 0, greatest = 0;
            if (cudaDeviceGetStreamPriorityRange(&least, &greatest) != cudaSuccess) {
                (void)cudaGetLastError();
                greatest = 0;
            }
            XC_GPU_CK(cudaStreamCreateWithPriority(&sl.st, cudaStreamNonBlocking, greatest), "cudaStreamCreate");
            sl.have_st = 1;
        }
        if (sl.nev != 3 * s->nr + 2) {
            sl.ev = (cudaEvent_t *)calloc((size_t)(3 * s->nr + 2), sizeof *sl.ev);
            if (!sl.ev)
                return xc_error_set(err, XC_ENOMEM, "gpu: out of memory for events");
            for (; sl.nev < 3 * s->nr + 2; sl.nev++)
                XC_GPU_CK(cudaEventCreate(&sl.ev[sl.nev]), "cudaEventCreate");
        }
        xc_status st;
        if ((in && (st = pinned(c, &sl.h_in, &sl.cap_in, in, "input staging"))) ||
            (out && (st = pinned(c, (void **)&sl.h_out, &sl.cap_out, out, "plane staging"))))
            return st;
        sl.d_raw = q == 2 ? s->d_raw2 : q ? s->d_raw1 : s->d_raw;
        sl.d_Y = q == 2 ? s->d_Y2 : q ? s->d_Y1 : s->d_Y;
        sl.d_out = q == 2 ? s->d_out2 : q ? s->d_out1 : s->d_out;
        sl.chunk = -1;
    }
    c.setup_ms += now_ms() - t0;
    return XC_OK;
}

static void note(slot &q, const char *name)
{
    const size_t n = strlen(q.names);
    snprintf(q.names + n, sizeof q.names - n, "%s%s", n ? ", " : "", name);
}

static xc_status launched(ctx &c, slot &q, cudaError_t e, const char *name)
{
    note(q, name);
    if (e == cudaSuccess)
        return XC_OK;
    char what[96];
    snprintf(what, sizeof what, "launch %s", name);
    return xc_gpu_fail(c.err, e, what);
}

/* A copy that failed: a copy to or from pageable memory waits for the
 * stream's earlier work, so its error may be a kernel's; the chunk's kernels
 * are named with it. */
static xc_status copy_failed(ctx &c, slot &q, cudaError_t e, const char *what)
{
    char msg[320];
    snprintf(msg, sizeof msg, "time chunk %ld (%s): %s", q.chunk, q.names, what);
    return xc_gpu_fail(c.err, e, msg);
}

/* Where range k's kernels of a chunk write: a plane in device memory
 * receives them straight at the chunk's offset (*pitch its row length),
 * with no copy, unless a scaling pass follows (it runs over whole rows) and
 * the chunk is not the whole plane; else the slot's plane buffer (*pitch
 * lk), copied out after.  Not with the fault hook, which must find nothing
 * of its chunk in the plane. */
static float *kernel_out(const ctx &c, const slot &q, int k, size_t j0, size_t lk, size_t *pitch)
{
    const xc_planerange *o = &c.out->r[k];
    dd_scale sc;
    *pitch = lk;
    if (!c.plane_dev || c.s->test_fault || (scale_of(c, k, &sc) && !(j0 == 0 && lk == o->nsamp)))
        return q.d_out;
    *pitch = o->nsamp;
    return o->data + j0;
}

template <class A> static A pitched(A a, size_t pitch)
{
    a.opitch = pitch;
    return a;
}

/* What the slot's Y holds of its chunk: ranges of one ds read the same
 * words (the pitch is the chunk plan's), so a range packs only when its
 * format, ds or lane stride differ from the last packing's, as the serial
 * path's ensure_pack does. */
struct packed {
    int ds, fmt;
    size_t S;
};

/* The words per Y row range k's kernel reads for lk outputs (check_smem's
 * and check_direct's bounds). */
static size_t read_words(const range_plan &r, size_t lk)
{
    return r.direct ? lk + (size_t)r.dmax : smem_words(r, r.use, lk);
}

/* The words per row a packing for range k of the chunk at T0 fills: what
 * the kernels of k and of the ranges after it that reuse the packing (same
 * ds, format and lane stride) read, rounded up to 32, at most the pitch.
 * The pitch is the longest chunk's, so a ramp's short chunks would pack
 * mostly words no kernel reads (up to twice the packing of a job at 8192
 * channels). */
size_t pack_words(const ctx &c, int k, size_t T0, int yfmt, size_t S, size_t pitch)
{
    size_t need = 0;
    for (int k2 = k; k2 < c.s->nr; k2++) {
        const range_plan &r = c.s->rp[k2];
        size_t j0;
        const size_t lk = range_span(c, k2, T0, &j0);
        if (!lk)
            continue;
        const int f = r.direct ? direct_fmt(r) : r.fmt;
        const size_t S2 = r.direct ? 0 : tile_words(r, r.use);
        if (r.ds != c.s->rp[k].ds || f != yfmt || (dd_lanes(f) != 1 && S2 != S))
            break;
        const size_t w = read_words(r, lk);
        need = w > need ? w : need;
    }
    need = round_up(need, 32);
    return need < pitch ? need : pitch;
}

/* Range k of chunk i on slot q: pack (unless y already holds it), kernel,
 * scale, copy out. */
static xc_status enqueue_range(ctx &c, slot &q, int k, size_t T0, size_t W, size_t *off, packed &y)
{
    xc_error *err = c.err;
    range_plan &r = c.s->rp[k];
    size_t j0;
    const size_t lk = range_span(c, k, T0, &j0);
    if (!lk)
        return XC_OK;
    xc_status st;
    char name[64];
    const int yfmt = r.direct ? direct_fmt(r) : r.fmt;
    const size_t S = r.direct ? 0 : tile_words(r, r.use);
    size_t pitch;
    float *dout = kernel_out(c, q, k, j0, lk, &pitch);
    if (y.ds != r.ds || y.fmt != yfmt || (dd_lanes(yfmt) != 1 && y.S != S)) {
        snprintf(name, sizeof name, "dd_pack_%s", fmt_name(yfmt));
        dd_pack_args a = pack_args(c, k, yfmt, S, T0, W, q.d_raw, q.d_Y);
        a.raw_u8 = c.narrow;
        a.np = pack_words(c, k, T0, yfmt, S, a.pitch);
        if ((st = launched(c, q, launch_pack_all(yfmt, a, c.s->nuse, q.st), name)))
            return st;
        y = packed{r.ds, yfmt, S};
    }
    XC_GPU_CK(cudaEventRecord(q.ev[2 * k], q.st), "cudaEventRecord");
    if (r.direct) {
        snprintf(name, sizeof name, "dd_direct_%s", fmt_name(yfmt));
        if ((st = check_direct(c, k, lk)) ||
            (st = launched(c, q, launch_direct_all(r, pitched(direct_args(c, k, lk, q.d_Y, dout), pitch), q.st), name)))
            return st;
    } else {
        const size_t tiles = ceil_div(r.ndm, (size_t)r.cand[r.use].dy);
        smem_name(r, r.use, name, sizeof name);
        if ((st = check_smem(c, k, r.use, lk, tiles)) ||
            (st = launched(c, q,
                           launch_smem_all(r, r.use, pitched(smem_args(c, k, r.use, lk, r.d_tmin, q.d_Y, dout), pitch),
                                           tiles, q.st),
                           name)))
            return st;
    }
    dd_scale sc;
    if (scale_of(c, k, &sc) && (st = launched(c, q, dd_launch_scale(dout, r.ndm * lk, sc, q.st), "dd_scale")))
        return st;
    XC_GPU_CK(cudaEventRecord(q.ev[2 * k + 1], q.st), "cudaEventRecord");
    /* test hook, as in the serial path: the run must stop with the stage
     * named and copy nothing of this chunk into the plane */
    if (c.s->test_fault && k == 0 && (st = launched(c, q, dd_launch_fault(c.s->test_fault, q.st), "dd_fault")))
        return st;
    const xc_planerange *o = &c.out->r[k];
    if (dout != q.d_out)
        return XC_OK;
    const size_t bytes = r.ndm * lk * sizeof(float);
    cudaError_t e;
    if (!c.staged || c.plane_dev || host_pinned(o->data)) {
        e = cudaMemcpy2DAsync(o->data + j0, o->nsamp * sizeof(float), q.d_out, lk * sizeof(float), lk * sizeof(float),
                              r.ndm, plane_kind(c), q.st);
    } else {
        /* staged: an event after the copy lets finish copy this range on
         * while the later ranges' kernels and copies run */
        e = cudaMemcpyAsync(q.h_out + *off, q.d_out, bytes, cudaMemcpyDeviceToHost, q.st);
        if (e == cudaSuccess)
            e = cudaEventRecord(q.ev[2 * c.s->nr + k], q.st);
        *off += r.ndm * lk;
    }
    return e == cudaSuccess ? XC_OK : copy_failed(c, q, e, "copy of the plane to the host");
}

/* Chunk i on slot q: input staged and copied in, then every range.  The
 * slot's plane buffer holds one range, so in its stream a range's copy out
 * comes before the next range's kernel: the other slots' chunks keep the
 * device busy meanwhile.  (Tried: each chunk's kernels waiting for the
 * previous chunk's, to start the copies out sooner; with one range's buffer
 * that left kernels and copies idle in turn, 10-25 ms a gulp in an H200's
 * CUPTI trace, docs/MEASUREMENTS.md.) */
static xc_status enqueue(ctx &c, slot &q, long i)
{
    const size_t T0 = chunk_start(c, i), W = chunk_samples(c, T0);
    /* narrowed: a byte a sample in staging and on the device, the packing
     * reads bytes */
    const size_t bytes = W * (size_t)c.s->nc * (c.narrow ? 1 : c.s->esize);
    const void *src = input_at(c, T0);
    q.chunk = i;
    q.names[0] = 0;
    /* through staging in pieces: a piece's copy to the device runs while the
     * host copies the next one into staging */
    const bool stage = !c.in_pinned && c.staged;
    size_t piece = stage ? IN_PIECE : bytes;
    if (stage && i == 0) {
        const size_t p0 = round_up(ceil_div(bytes, IN_FIRST_PIECES), 4096);
        piece = p0 < IN_PIECE_MIN ? IN_PIECE_MIN : p0 < piece ? p0 : piece;
    }
    const double t0 = now_ms();
    /* from page-locked input the copy is the DMA's alone: its device time
     * is the ramp's copy rate for such input */
    q.W = W;
    q.timed_in = c.in_pinned && cudaEventRecord(q.ev[3 * c.s->nr], q.st) == cudaSuccess;
    for (size_t a = 0; a < bytes; a += piece) {
        const size_t n = bytes - a < piece ? bytes - a : piece;
        const char *from = (const char *)src + a;
        if (c.narrow)
            xc_gpu_narrow_bytes((uint8_t *)q.h_in + a, (const uint16_t *)src + a, n);
        else if (stage)
            xc_gpu_copy_bytes((char *)q.h_in + a, from, n);
        if (stage)
            from = (const char *)q.h_in + a;
        const cudaError_t e = cudaMemcpyAsync((char *)q.d_raw + a, from, n, cudaMemcpyHostToDevice, q.st);
        if (e != cudaSuccess)
            return copy_failed(c, q, e, "copy of the input chunk to the device");
    }
    if (stage) {
        c.stage_ms += now_ms() - t0;
        c.staged_spectra += (double)W;
    }
    if (q.timed_in && cudaEventRecord(q.ev[3 * c.s->nr + 1], q.st) != cudaSuccess)
        q.timed_in = 0;
    size_t off = 0;
    packed y = {-1, -1, 0};
    for (int k = 0; k < c.s->nr; k++) {
        xc_status st = enqueue_range(c, q, k, T0, W, &off, y);
        if (st)
            return st;
    }
    return XC_OK;
}

static xc_status wait_failed(ctx &c, slot &q, long i, cudaError_t e)
{
    char what[256];
    snprintf(what, sizeof what, "time chunk %ld (%s)", i, q.names);
    return xc_gpu_fail(c.err, e, what);
}

/* The time the device spent on the job's kernels, for the chunk ramp's rate:
 * each chunk's window (its first range's kernel start to its last one's
 * end, from the job's start event) counted where no earlier chunk's window
 * covers it.  The two streams' kernels share the device, so one chunk's
 * window may hold the other's kernels: the windows' union, not their sum,
 * is the device's time. */
static void busy_window(ctx &c, slot &q, size_t T0)
{
    int kf = -1, kl = -1;
    for (int k = 0; k < c.s->nr; k++) {
        size_t j0;
        if (range_span(c, k, T0, &j0)) {
            kf = kf < 0 ? k : kf;
            kl = k;
        }
    }
    float a = 0, b = 0;
    if (kf < 0 || cudaEventElapsedTime(&a, c.s->ev0, q.ev[2 * kf]) != cudaSuccess ||
        cudaEventElapsedTime(&b, c.s->ev0, q.ev[2 * kl + 1]) != cudaSuccess)
        return;
    const double from = a > c.busy_end ? a : c.busy_end;
    if (b > from)
        c.busy_ms += b - from;
    c.busy_end = b > c.busy_end ? b : c.busy_end;
}

/* Waits for slot q's chunk, adds its kernel times and copies its planes
 * from staging into the caller's, range by range as each one's copy to the
 * host ends (the later ranges' kernels and copies run meanwhile); a fault
 * stops it at the range whose wait sees it, so the faulting range and the
 * later ones stay out of the caller's plane. */
static xc_status finish(ctx &c, slot &q)
{
    if (q.chunk < 0)
        return XC_OK;
    const long i = q.chunk;
    q.chunk = -1;
    const bool host_copy = c.staged && !c.plane_dev && !c.plane_reg;
    const size_t T0 = chunk_start(c, i);
    size_t off = 0;
    cudaError_t e;
    for (int k = 0; k < c.s->nr && host_copy; k++) {
        const range_plan &r = c.s->rp[k];
        size_t j0;
        const size_t lk = range_span(c, k, T0, &j0);
        xc_planerange *o = &c.out->r[k];
        if (!lk || host_pinned(o->data))
            continue;
        if ((e = cudaEventSynchronize(q.ev[2 * c.s->nr + k])) != cudaSuccess)
            return wait_failed(c, q, i, e);
        xc_gpu_copy_rows(o->data + j0, o->nsamp, q.h_out + off, lk, lk, r.ndm);
        off += r.ndm * lk;
    }
    if ((e = cudaStreamSynchronize(q.st)) != cudaSuccess)
        return wait_failed(c, q, i, e);
    for (int k = 0; k < c.s->nr; k++) {
        size_t j0;
        float ms = 0;
        if (range_span(c, k, T0, &j0) && cudaEventElapsedTime(&ms, q.ev[2 * k], q.ev[2 * k + 1]) == cudaSuccess)
            c.s->rp[k].kernel_ms += ms;
    }
    float ms = 0;
    if (q.timed_in && cudaEventElapsedTime(&ms, q.ev[3 * c.s->nr], q.ev[3 * c.s->nr + 1]) == cudaSuccess) {
        c.dma_ms += ms;
        c.dma_spectra += (double)q.W;
    }
    busy_window(c, q, T0);
    return XC_OK;
}

static xc_status run_chunks(ctx &c);

/* A job plan_bands made banded (dd_memplan.cu) runs as DM bands over its
 * whole time (dd_bands.cu), any other as time chunks. */
xc_status run_pipelined(ctx &c)
{
    host_register(c);
    const xc_status st = c.banded ? run_banded(c) : run_chunks(c);
    host_unregister(c);
    return st;
}

static xc_status run_chunks(ctx &c)
{
    xc_status st = pipe_setup(c);
    if (st)
        return st;
    slot *sl = c.s->sl;
    if (cudaEventRecord(c.s->ev0, sl[0].st) != cudaSuccess)
        (void)cudaGetLastError();   /* no window then: the ramp keeps the last rates */
    for (long i = 0; i < c.nchunks && !st; i++) {
        slot &q = sl[i % c.nslot];
        if (!(st = finish(c, q)))
            st = enqueue(c, q, i);
    }
    /* the oldest chunk first: its slot is the one the next chunk would take */
    for (long i = c.nchunks; i < c.nchunks + c.nslot && !st; i++)
        st = finish(c, sl[i % c.nslot]);
    if (!st && c.busy_ms > 0 && (c.staged_spectra > 0 || c.dma_spectra > 0)) {
        /* the rates the next job's chunk ramp starts from */
        if (c.staged_spectra > 0)
            c.s->stage_ns = c.stage_ms * 1e6 / c.staged_spectra;
        if (c.dma_spectra > 0)
            c.s->dma_ns = c.dma_ms * 1e6 / c.dma_spectra;
        c.s->kernel_ns = c.busy_ms * 1e6 / (double)c.job->nout;
        double sum = 0;
        for (int k = 0; k < c.s->nr; k++)
            sum += c.s->rp[k].kernel_ms;
        c.s->kern_ns = sum * 1e6 / (double)c.job->nout;
    }
    if (st)
        for (int q = 0; q < MAX_SLOTS; q++) {
            /* nothing may still write into staging or the plane after we return */
            if (sl[q].have_st)
                cudaStreamSynchronize(sl[q].st);
            sl[q].chunk = -1;
        }
    return st;
}

} // namespace xcdd
