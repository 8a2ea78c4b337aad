/* GPU dedisperser, host side: the memory plan of a job.  Every buffer is
 * sized from the chunk length Lc (full-resolution outputs per chunk) for
 * every candidate that may run, so one plan covers autotuning and every
 * chunk; the job's chunks are the longest whose buffers fit the budget. */
#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>

#include "optimized/gpu/dd_host.h"
#include "optimized/gpu/gpu_check.h"
#include "optimized/gpu/gpu_dd.h"

namespace xcdd {

size_t raw_samples(const ctx &c, size_t Lc)
{
    const size_t w = Lc + (size_t)c.job->max_delay + (size_t)c.s->maxds - 1;
    return w < c.job->in->nsamp ? w : c.job->in->nsamp;
}

static size_t lk_max(const range_plan &r, size_t Lc)
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

static size_t y_words(const range_plan &r, size_t Lc)
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

static size_t tmin_bytes(const ctx &c, const range_plan &r)
{
    size_t t = 0;
    if (!r.direct)
        for (int j = 0; j < r.ncand; j++)
            if (r.fits[j]) {
                const size_t b = ceil_div(r.ndm, (size_t)r.cand[j].dy) * (size_t)c.s->nuse * sizeof(int32_t);
                t = b > t ? b : t;
            }
    return t;
}

size_t plan_bytes(const ctx &c, size_t Lc, size_t *ybytes, size_t *obytes, size_t *tbytes)
{
    size_t y = 0, o = 0, t = 0, fixed = 0, tall = 0;
    for (int k = 0; k < c.s->nr; k++) {
        const range_plan &r = c.s->rp[k];
        const size_t yb = (size_t)c.s->nuse * y_words(r, Lc) * (r.fmt == DD_U64 ? 8 : 4);
        const size_t ob = r.ndm * lk_max(r, Lc) * sizeof(float);
        const size_t tb = tmin_bytes(c, r);
        y = yb > y ? yb : y;
        o = ob > o ? ob : o;
        t = tb > t ? tb : t;
        tall += tb;
        fixed += r.ndm * (size_t)c.s->nuse * sizeof(int32_t);
    }
    fixed += (c.s->nuse < c.s->nc ? (size_t)c.s->nuse * sizeof(int) : 0) + 4 * sizeof(int);
    if (ybytes)
        *ybytes = y;
    if (obytes)
        *obytes = o;
    if (tbytes)
        *tbytes = t;
    const size_t raw = raw_samples(c, Lc) * (size_t)c.s->nc * c.s->esize;
    /* the pipeline: the other slots' raw, Y and plane buffers, and every
     * range's tile delays kept */
    if (c.pipe)
        fixed += (size_t)(c.nslot - 1) * (raw + y + o) + tall;
    return raw + y + o + t + fixed;
}

/* Pinned host bytes of the pipeline at chunk length Lc: per slot *in (the
 * raw chunk, 0 when the input is page-locked) and *out (every range's plane
 * chunk; 0 when the plane is device memory or registered for the job);
 * returns all slots' total. */
static size_t pinned_parts(const ctx &c, size_t Lc, size_t *in, size_t *out)
{
    size_t o = 0;
    for (int k = 0; k < c.s->nr; k++)
        o += c.s->rp[k].ndm * lk_max(c.s->rp[k], Lc) * sizeof(float);
    *in = c.in_pinned ? 0 : raw_samples(c, Lc) * (size_t)c.s->nc * c.s->esize;
    *out = c.plane_dev || c.plane_reg ? 0 : o;
    return (size_t)c.nslot * (*in + *out);
}

size_t pinned_need(const ctx &c, size_t *in, size_t *out) { return pinned_parts(c, c.Lc, in, out); }

size_t chunk_start(const ctx &c, long i)
{
    const size_t H = c.ramp[c.nramp];
    if (i <= c.nramp)
        return c.ramp[i];
    const long nmid = c.nchunks - c.nramp - c.ntail, j = i - c.nramp;
    if (!c.ntail || j < nmid)
        return H + (size_t)j * c.Lmid;
    return c.tail0 + H - c.ramp[c.nramp - (j - nmid)];   /* the ramp's lengths reversed */
}

size_t chunk_end(const ctx &c, size_t T0)
{
    const size_t H = c.ramp[c.nramp];
    size_t e = T0 + c.Lmid;
    if (T0 < H) {
        for (int i = 0; i < c.nramp; i++)
            if (c.ramp[i + 1] > T0) {
                e = c.ramp[i + 1];
                break;
            }
    } else if (c.ntail && T0 >= c.tail0) {
        for (int t = 1; t <= c.ntail; t++)
            if (c.tail0 + H - c.ramp[c.nramp - t] > T0) {
                e = c.tail0 + H - c.ramp[c.nramp - t];
                break;
            }
    } else if (c.ntail && e > c.tail0) {
        e = c.tail0;
    }
    return e < c.job->nout ? e : c.job->nout;
}

/* For a plane in device memory (the fused search's), the least common
 * multiple of every range's time tile in full-resolution outputs (ds x
 * words per tile row x lanes): chunks of a multiple of it leave no range's
 * kernel a part-filled tile but at the job's end (the serial path's one
 * chunk has one such tile a range, a pipelined job one a range and chunk).
 * 1 (no rounding) for a host plane, whose chunking sets its copies out
 * too, while a range is undecided (the job that decides it), or where the
 * multiple passes RAMP_MIN. */
static size_t tile_quantum(const ctx &c)
{
    if (!c.plane_dev || !c.pipe)
        return 1;
    size_t q = 1;
    for (int k = 0; k < c.s->nr; k++) {
        const range_plan &r = c.s->rp[k];
        if (!r.decided)
            return 1;
        if (r.direct)
            continue;
        const size_t t = (size_t)r.ds * tile_words(r, r.use) * (size_t)dd_lanes(r.fmt);
        size_t a = q, b = t;
        while (b) {
            const size_t x = a % b;
            a = b;
            b = x;
        }
        q = q / a * t;
        if (q > RAMP_MIN)
            return 1;
    }
    return q;
}

/* The ramp of a pipelined job, from the state's rates (a previous job's):
 * nothing overlaps the first chunk's copy in (into staging and to the
 * device, or only to the device from page-locked input), so the first chunk
 * is short and each next one as long as the kernels of the one before can
 * hide its copy.  With a copy of s per input spectrum (the host's copy into
 * staging, or the DMA's from page-locked input), kernels of k per output and
 * D spectra of overlap (the largest delay), chunk i + 1 of L' outputs copies
 * s (L' + D), which hides behind chunk i's k L when L' <= r L - D, r = k / (s
 * RAMP_MARGIN).  The first chunk L0 = 1.5 D / (r - 1) lets the chunks grow
 * (by at least D / 2 each); the ramp ends where a chunk reaches Lc (or the
 * job's end).  Into a page-locked host plane from page-locked input, where
 * the copy out is faster than the kernels (per output sample, at the copy
 * in's rate per byte), the job ends with the same lengths reversed: nothing overlaps the last chunk's copy of its plane
 * out either (its last range's, after every kernel), and a short last chunk
 * keeps it short; the chunks between are made equal (at most Lc).  Where
 * the copy out binds, every chunk more costs it time (a copy into a host
 * plane is one row per trial and chunk; an H200 moved 16 KB rows at 33 GB/s,
 * 150 KB rows at 50, against 55 contiguous), so no tail then.  Through
 * staging (a host copy each way) the tail was not kept: in two `bench gpu`
 * runs on an H200 the pageable gulp at 8192 channels took 351 ms with it
 * (once with a third slot, once without) against 325 without. */
static bool tail_pays(const ctx &c, double s_ns)
{
    const xc_gpu_ddstate *s = c.s;
    double plane = 0;   /* plane bytes per full-resolution output */
    for (int k = 0; k < s->nr; k++)
        plane += (double)s->rp[k].ndm * sizeof(float) / s->rp[k].ds;
    const double k = s->kern_ns > 0 ? s->kern_ns : s->kernel_ns;
    return c.locked_io && k > plane * s_ns / ((double)s->nc * (double)s->esize);
}

static void plan_ramp(ctx &c)
{
    const xc_gpu_ddstate *s = c.s;
    c.nramp = 0;
    c.ramp[0] = 0;
    const double s_ns = c.in_pinned ? s->dma_ns : s->stage_ns;
    if (!c.pipe || (c.in_pinned && c.plane_dev) || s_ns <= 0 || s->kernel_ns <= 0)
        return;
    const double r = s->kernel_ns / (s_ns * RAMP_MARGIN), D = (double)(c.job->max_delay + s->maxds - 1);
    if (r <= 1.05)
        return;   /* the copies cannot be hidden by shorter chunks */
    double L = 1.5 * D / (r - 1);
    L = L < (double)RAMP_MIN ? (double)RAMP_MIN : L;
    size_t acc = 0;
    const size_t nout = c.job->nout, q = tile_quantum(c);
    while (c.nramp < RAMP_MAX && L < (double)c.Lc && acc + (size_t)L < nout) {
        c.ramp[c.nramp++] = acc;
        acc += (size_t)L / q * q;   /* L >= RAMP_MIN >= q */
        L = r * L - D;
    }
    c.ramp[c.nramp] = acc;
    if (c.nramp && nout >= 2 * acc && tail_pays(c, s_ns)) {
        c.ntail = c.nramp;
        c.tail0 = nout - acc;
        const size_t mid = c.tail0 - acc, nmid = ceil_div(mid, c.Lc);
        c.Lmid = nmid ? round_up(ceil_div(mid, nmid), q) : c.Lc;
        c.Lmid = c.Lmid > c.Lc ? c.Lc : c.Lmid;
        c.nchunks = 2 * c.nramp + (long)ceil_div(mid, c.Lmid);
        return;
    }
    c.nchunks = c.nramp + (long)ceil_div(nout - acc, c.Lc);
}

/* The largest DM tile (trials per block) of any candidate range k may use. */
static size_t dy_max(const range_plan &r)
{
    size_t d = 1;
    for (int j = 0; j < r.ncand; j++)
        d = (size_t)r.cand[j].dy > d ? (size_t)r.cand[j].dy : d;
    return d;
}

/* A banded job: one chunk of the whole job, the input whole on the device,
 * each range's trials in bands over the whole time, so that a band's plane
 * is one contiguous range of the caller's (rows of the plane's length) and
 * crosses PCIe in one copy.  Into a host plane a chunk's copy out is one
 * row per trial: an H200 paid about 0.2 us a row beyond the bytes (16 KB
 * rows at 33 GB/s, 150 KB at 50, a contiguous copy 55), so where the copy
 * out binds a job of time chunks loses that much per chunk
 * (docs/MEASUREMENTS.md).  Only from page-locked input into a page-locked
 * host plane (nothing staged), every range on the shared-memory kernel,
 * and where the copy out takes at least BAND_COPY_SHARE of the kernels'
 * time by the last jobs' rates (per output: the plane's bytes at the copy
 * in's rate per byte, against the kernels').  The head, range 0's first
 * trials, is dedispersed piece by piece while the input is uploaded
 * (dd_bands.cu): it gets the trials whose work lasts about HEAD_RATE times
 * the upload, so the upload hides behind it. */
static const double HEAD_RATE = 3.0;

bool plan_bands(ctx &c, size_t need[BUF_N])
{
    const xc_gpu_ddstate *s = c.s;
    const xc_ddjob *job = c.job;
    c.banded = 0;
    if (!c.pipe || !c.locked_io || c.plane_dev || s->test_fault || c.test_bands < 0 || job->nout < 2 || !s->nr)
        return false;
    double plane = 0, trials = 0;   /* plane bytes and trials per full-resolution output */
    size_t dymax = 1, lkmax = 0;
    for (int k = 0; k < s->nr; k++) {
        const range_plan &r = s->rp[k];
        if (r.direct)
            return false;
        plane += (double)r.ndm * sizeof(float) / r.ds;
        trials += (double)r.ndm / r.ds;
        dymax = dy_max(r) > dymax ? dy_max(r) : dymax;
        lkmax = lk_max(r, job->nout) > lkmax ? lk_max(r, job->nout) : lkmax;
    }
    /* both kernel rates overstate the kernels (kern_ns sums event times the
     * other slots' kernels share, kernel_ns's windows hold the copies out
     * between a slot's ranges): the smaller */
    const double kns = s->kern_ns > 0 && (s->kernel_ns <= 0 || s->kern_ns < s->kernel_ns) ? s->kern_ns : s->kernel_ns;
    const bool rated = s->dma_ns > 0 && kns > 0;
    const double out_ns = rated ? plane * s->dma_ns / ((double)s->nc * (double)s->esize) : 0;
    if (c.test_bands <= 0 && (!rated || out_ns < BAND_COPY_SHARE * kns))
        return false;
    const range_plan &r0 = s->rp[0];
    /* the head's trials; without rates (the test hook on a first job) half of range 0 */
    double h = (double)r0.ndm / 2;
    c.head_rate = 0;
    if (rated) {
        c.head_rate = (kns > out_ns ? kns : out_ns) / (trials * r0.ds) / s->dma_ns;
        h = HEAD_RATE / c.head_rate;
    }
    size_t head = h < (double)r0.ndm ? (size_t)h : r0.ndm;
    head = round_up(head, dymax);
    const size_t band = round_up(c.test_bands > 0 ? (size_t)c.test_bands : BAND_TRIALS, dymax);
    const size_t lk0 = lk_max(r0, job->nout);
    size_t head_bytes = head * lk0 * sizeof(float);
    const size_t ring_bytes = band * lkmax * sizeof(float);
    /* an undecided range is autotuned first (pipe_setup) over its first
     * TUNE_DMS trials of the job, into the head's buffer */
    for (int k = 0; k < s->nr; k++) {
        const range_plan &r = s->rp[k];
        const size_t tune = round_up(r.ndm < TUNE_DMS ? r.ndm : TUNE_DMS, dymax) * lk_max(r, job->nout) * sizeof(float);
        if (!r.decided && r.nfit > 1 && tune > head_bytes)
            head_bytes = tune;
    }
    size_t y = 0, o = 0, t = 0, tall = 0;
    c.pipe = 0;   /* one slot's buffers: the pipeline's others are not used */
    const size_t base = plan_bytes(c, job->nout, &y, &o, &t);
    c.pipe = 1;
    for (int k = 0; k < s->nr; k++)
        tall += tmin_bytes(c, s->rp[k]);
    if (base - o + head_bytes + (size_t)BAND_RING * ring_bytes + tall > c.budget)
        return false;
    for (int b = 0; b < BUF_N; b++)
        need[b] = 0;
    need[BUF_RAW] = raw_samples(c, job->nout) * (size_t)s->nc * s->esize;
    need[BUF_Y] = y;
    need[BUF_TMIN] = t;
    need[BUF_OUT] = head_bytes;
    need[BUF_OUT1] = (size_t)BAND_RING * ring_bytes;
    c.y_cap = y;
    c.head_want = head;
    c.head_cap = head * lk0;
    c.ring_cap = band * lkmax;
    c.band_trials = c.test_bands > 0 ? (size_t)c.test_bands : BAND_TRIALS;
    c.Lc = c.Lmid = job->nout;
    c.nchunks = 1;
    c.nramp = c.ntail = 0;
    c.ramp[0] = 0;
    c.tail0 = job->nout;
    c.banded = 1;
    return true;
}

xc_status plan_chunks(ctx &c, size_t need[BUF_N])
{
    xc_error *err = c.err;
    const xc_ddjob *job = c.job;
    size_t budget = job->tune.gpu_max_bytes;
    if (!budget) {
        /* the chunk buffers the state holds count as usable: state_buffers
         * frees a buffer before it makes a larger one */
        size_t fr = 0, tot = 0;
        XC_GPU_CK(cudaMemGetInfo(&fr, &tot), "cudaMemGetInfo");
        budget = c.s->allocated + fr / 10 * 9;
    }
    c.budget = budget;
    if (plan_bands(c, need))
        return XC_OK;
    const size_t need1 = plan_bytes(c, 1, NULL, NULL, NULL);
    if (need1 > budget) {
        if (job->tune.gpu_max_bytes)
            return xc_error_set(err, XC_EINVAL,
                                "gpu: gpu_max_bytes = %zu is below the %zu bytes the smallest time chunk needs "
                                "(%d channels, largest delay %lld samples)",
                                budget, need1, c.s->nc, (long long)job->max_delay);
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
    if (c.pipe) {
        /* at least PIPE_CHUNKS chunks, so that copies overlap kernels, unless
         * a chunk would be shorter than PIPE_MIN_CHUNK outputs or twice the
         * largest delay (the overlap each chunk copies again) */
        size_t want = ceil_div(job->nout, PIPE_CHUNKS);
        const size_t floor_len = PIPE_MIN_CHUNK > 2 * (size_t)job->max_delay ? PIPE_MIN_CHUNK : 2 * (size_t)job->max_delay;
        if (want < floor_len)
            want = floor_len;
        if (want < lo)
            lo = want;
        /* and the pinned staging within PIPE_MAX_PINNED */
        size_t pin_in, pin_out;
        while (lo > 1 && pinned_parts(c, lo, &pin_in, &pin_out) > PIPE_MAX_PINNED)
            lo = lo > 4 ? lo / 4 * 3 : lo - 1;
    }
    const size_t q = tile_quantum(c);
    if (lo >= 4 * q && lo < job->nout)
        lo = lo / q * q;
    c.Lc = c.Lmid = lo;
    c.ntail = 0;
    c.tail0 = job->nout;
    c.nchunks = (long)ceil_div(job->nout, c.Lc);
    if (c.nchunks > 1)
        plan_ramp(c);
    plan_bytes(c, c.Lc, &need[BUF_Y], &need[BUF_OUT], &need[BUF_TMIN]);
    need[BUF_RAW] = raw_samples(c, c.Lc) * (size_t)c.s->nc * c.s->esize;
    need[BUF_RAW1] = c.pipe ? need[BUF_RAW] : 0;
    need[BUF_Y1] = c.pipe ? need[BUF_Y] : 0;
    need[BUF_OUT1] = c.pipe ? need[BUF_OUT] : 0;
    need[BUF_RAW2] = c.pipe && c.nslot > 2 ? need[BUF_RAW] : 0;
    need[BUF_Y2] = c.pipe && c.nslot > 2 ? need[BUF_Y] : 0;
    need[BUF_OUT2] = c.pipe && c.nslot > 2 ? need[BUF_OUT] : 0;
    c.y_cap = need[BUF_Y];
    return XC_OK;
}

} // namespace xcdd
