/* The CPU dedisperser: AstroAccelerate's tiled CPU algorithm (Novotny et al.
 * 2023, section 3 and Algorithm 2) with exact integer sums.
 *
 * Per downsample factor the unmasked channels are copied once into a
 * channel-major, time-scrunched array of the narrowest integer type that holds
 * (2^nbits-1)*ds (cpu_convert.c).  The output of a range is cut into work items
 * of tile_t samples x tile_dm trials, shared out by OpenMP; inside one, the
 * channels are taken tile_c at a time and the kernel (cpu_kernels.c) sums them
 * into a register block of time samples in a narrow type, widened into uint64
 * (float input: float, widened into double) once per channel tile.  Each output
 * sample is summed by one work item in a fixed order, so the result does not
 * depend on the thread count; integer results equal the reference bit for bit.
 *
 * Float input: a scrunched sample is rounded once to float from a double sum,
 * a channel tile (ct channels) is summed in float and the tiles in double.  For
 * non-negative input with exact sum S, to first order in u = 2^-24,
 *   one tile:   |cpu - S| <= (m - 1 + [ds > 1]) u S   (the float tile sum is the result)
 *   m > ct:     |cpu - S| <= (ct + [ds > 1]) u S       (plus the final rounding)
 * and the reference is within u S, so |cpu - ref| <= m*ds*u*S = N u S, the
 * registry's float_tol 1 (N = unmasked channels * ds); the output scalings apply
 * the same one or two float operations to both.  tests/test_dedisperse.c checks
 * it; measured errors are a few percent of it. */
#include <limits.h>
#include <omp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "core/base/xc_nbits.h"
#include "optimized/cpu/cpu_internal.h"

xc_status xc_cpu_layout_for(int nbits, int ds, xc_cpu_layout *out, xc_error *err)
{
    memset(out, 0, sizeof *out);
    if (ds < 1)
        return xc_error_set(err, XC_EINVAL, "cpu: downsample: %d must be >= 1", ds);
    if (xc_nbits_is_float(nbits)) {
        *out = (xc_cpu_layout){XC_CPU_F32, XC_CPU_F32, 4, 4, 0, XC_CPU_BLOCK_F32};
        return XC_OK;
    }
    if (!xc_nbits_is_int(nbits))
        return xc_error_set(err, XC_EINVAL, "cpu: nbits: %d is not supported (1, 2, 4, 8, 16, 32)", nbits);
    /* Largest scrunched value; < 2^47 for any int ds. */
    unsigned long long v = ((1ull << nbits) - 1ull) * (unsigned long long)ds;
    if (v <= UINT8_MAX)
        *out = (xc_cpu_layout){XC_CPU_U8, XC_CPU_U16, 1, 2, UINT16_MAX / v, XC_CPU_BLOCK_U8};
    else if (v <= UINT16_MAX)
        *out = (xc_cpu_layout){XC_CPU_U16, XC_CPU_U32, 2, 4, UINT32_MAX / v, XC_CPU_BLOCK_U16};
    else if (v <= UINT32_MAX)
        *out = (xc_cpu_layout){XC_CPU_U32, XC_CPU_U32, 4, 4, UINT32_MAX / v, XC_CPU_BLOCK_U32};
    else
        *out = (xc_cpu_layout){XC_CPU_U64, XC_CPU_U64, 8, 8, UINT64_MAX / v, XC_CPU_BLOCK_U64};
    return XC_OK;
}

const char *xc_cpu_isa(int *vector_bytes)
{
    /* The same order as the target_clones resolver in cpu_kernels.c. */
    int vb = 16;
    const char *name = "baseline SSE2";
    __builtin_cpu_init();
    if (__builtin_cpu_supports("x86-64-v4")) {
        vb = 64;
        name = "x86-64-v4 (AVX-512BW)";
    } else if (__builtin_cpu_supports("avx2")) {
        vb = 32;
        name = "AVX2";
    }
    if (vector_bytes)
        *vector_bytes = vb;
    return name;
}

/* ---- output scaling ------------------------------------------------------ */

typedef struct {
    int replica;              /* 1: xc_cpu_scale_*; 0: call xc_scale_* per sample */
    int kind;
    float k1, k2;
    const xc_convention *cv;
    int nchans, ds, nbits;
} scaler;

/* Sets up the vectorized copy of xc_scale_real and keeps it only if it agrees
 * bit for bit with the library functions on probe sums spanning every
 * magnitude; otherwise falls back to calling them (slower, same result). */
static void scaler_init(scaler *s, const xc_convention *cv, int nchans, int ds, int nbits)
{
    *s = (scaler){0, (int)cv->scaling, 1.0f, 1.0f, cv, nchans, ds, nbits};
    switch (cv->scaling) {
    case XC_SCALE_SUM:
        break;
    case XC_SCALE_DEDISP:
        s->k1 = xc_dedisp_in_range(nbits) * (float)nchans;
        s->k2 = XC_DEDISP_SCALE;
        break;
    case XC_SCALE_MEAN_AA:
        s->k1 = (float)nchans;
        s->k2 = (float)ds;
        break;
    default:
        return;
    }
    static const uint64_t iprobe[] = {0, 1, 2, 3, 7, 100, 255, 256, 1000, 65535, 65536, 1234567,
                                      16777215, 16777216, 16777217, 123456789, 2147483653ull,
                                      1099511627779ull, 4503599627370497ull};
    static const double fprobe[] = {0.0, -0.0, 1.0, -1.5, 0.1, 1e-30, 3.0e10, -7.25e5,
                                    16777217.0, 1.0e-45, 123.456};
    float a[sizeof iprobe / sizeof iprobe[0]], a32[sizeof iprobe / sizeof iprobe[0]];
    float b[sizeof fprobe / sizeof fprobe[0]];
    uint32_t i32[sizeof iprobe / sizeof iprobe[0]];
    for (size_t i = 0; i < sizeof iprobe / sizeof iprobe[0]; i++)
        i32[i] = (uint32_t)iprobe[i];
    xc_cpu_scale_u64(s->kind, s->k1, s->k2, iprobe, a, sizeof iprobe / sizeof iprobe[0]);
    xc_cpu_scale_u32(s->kind, s->k1, s->k2, i32, a32, sizeof iprobe / sizeof iprobe[0]);
    xc_cpu_scale_f64(s->kind, s->k1, s->k2, fprobe, b, sizeof fprobe / sizeof fprobe[0]);
    for (size_t i = 0; i < sizeof iprobe / sizeof iprobe[0]; i++) {
        float r = xc_scale_int(cv, iprobe[i], nchans, ds, nbits);
        float r32 = xc_scale_int(cv, i32[i], nchans, ds, nbits);
        if (memcmp(&r, &a[i], sizeof r) || memcmp(&r32, &a32[i], sizeof r32))
            return;
    }
    for (size_t i = 0; i < sizeof fprobe / sizeof fprobe[0]; i++) {
        float r = xc_scale_real(cv, fprobe[i], nchans, ds, nbits);
        if (memcmp(&r, &b[i], sizeof r))
            return;
    }
    s->replica = 1;
}

/* The element type of a work item's wide tile. */
enum { WIDE_U64, WIDE_U32, WIDE_F64 };

/* Sums at[0..n) of a tile (double for float input, uint32_t for 8-bit, uint64_t otherwise) to output samples. */
static void scale_row(const scaler *s, int wt, const void *wide, size_t at, float *out, size_t n)
{
    const double *f = (const double *)wide + at;
    const uint64_t *u = (const uint64_t *)wide + at;
    const uint32_t *u32 = (const uint32_t *)wide + at;
    if (s->replica && wt == WIDE_F64)
        xc_cpu_scale_f64(s->kind, s->k1, s->k2, f, out, n);
    else if (s->replica && wt == WIDE_U32)
        xc_cpu_scale_u32(s->kind, s->k1, s->k2, u32, out, n);
    else if (s->replica)
        xc_cpu_scale_u64(s->kind, s->k1, s->k2, u, out, n);
    else
        for (size_t i = 0; i < n; i++)
            out[i] = wt == WIDE_F64   ? xc_scale_real(s->cv, f[i], s->nchans, s->ds, s->nbits)
                     : wt == WIDE_U32 ? xc_scale_int(s->cv, u32[i], s->nchans, s->ds, s->nbits)
                                      : xc_scale_int(s->cv, u[i], s->nchans, s->ds, s->nbits);
}

/* ---- one range ------------------------------------------------------------ */

typedef struct {
    const xc_ddjob *job;
    const xc_cpu_layout *lay;
    const int *chans;         /* unmasked channels */
    int m;                    /* how many */
    const void *x;            /* channel-major copy, m rows of `stride` samples */
    size_t stride;
    int nthreads;
} range_ctx;

static size_t round_up(size_t v, size_t to) { return (v + to - 1) / to * to; }

#define HUGE_PAGE ((size_t)2 << 20)

/* Fills the pointer table of one channel tile: input row of unmasked channel
 * c0+i, shifted by its delay at trial d0+d and by the work item's first sample.
 * The delay table (trials x channels of int32, megabytes) is read a trial's
 * short run of channels at a time, each a miss; so each trial also prefetches
 * every line of the next tile's run (nx: the next channel tile, or the next
 * work item's first), which the kernel's run hides (the fill was 8 % of the
 * 8-bit run, 3 % with it, measured). */
#define FILL_ROWS(T)                                                                           \
    do {                                                                                       \
        const T *x0 = (const T *)rc->x + (size_t)c0 * rc->stride + t0;                         \
        const int *ch = rc->chans + c0;                                                        \
        const size_t stride = rc->stride;                                                      \
        const T **rows = (const T **)rowbuf;                                                   \
        for (int d = 0; d < nd; d++) {                                                         \
            const int32_t *dl = delays + (size_t)(d0 + (size_t)d) * (size_t)nchans;            \
            const T **rd = rows + (size_t)d * (size_t)nci;                                     \
            const T *xi = x0;                                                                  \
            for (int i = 0; i < nci; i++, xi += stride)                                        \
                rd[i] = xi + dl[ch[i]];                                                        \
            if (d < nx.nd) {                                                                   \
                const int32_t *nl = delays + (nx.d0 + (size_t)d) * (size_t)nchans;             \
                const int32_t *a = nl + rc->chans[nx.c0], *e = nl + rc->chans[nx.c0 + nx.n - 1]; \
                for (; a < e; a += 16)                                                         \
                    __builtin_prefetch(a);                                                     \
                __builtin_prefetch(e);                                                         \
            }                                                                                  \
        }                                                                                      \
    } while (0)

/* The channel tile a work item's tile (d0, c0, nci) is followed by: its next
 * channels, or else the next DM tile's first (that work item is the next one
 * of its thread unless another thread takes it; the prefetches are hints). */
typedef struct {
    size_t d0;
    int nd, c0, n;             /* nd 0: none */
} next_tile;

static next_tile next_of(size_t d0, int nd, int c0, int nci, int m, int ct, size_t td, size_t ndm)
{
    if (c0 + nci < m)
        return (next_tile){d0, nd, c0 + nci, m - c0 - nci < ct ? m - c0 - nci : ct};
    if (d0 + td < ndm)
        return (next_tile){d0 + td, (int)(ndm - d0 - td < td ? ndm - d0 - td : td), 0, m < ct ? m : ct};
    return (next_tile){0, 0, 0, 0};
}

/* 8-bit: a channel tile's plain pointer table (FILL_ROWS) into one with the
 * trials in pairs (xc_cpu_tile_u8's shared layout).  Trials d and d+1 read
 * the same row of a channel where their delays are equal, often where the
 * delays change slowly (high frequencies, low DM); the kernel loads such a
 * row once for both.  Two pointers of a channel are equal exactly when the
 * delays are.  Sorted without a branch: a shared row goes to the front,
 * trial d's own rows fill its part from the back, trial d+1's follow; a slot
 * written for the other case is free, and is written over later or lies
 * past the rows the kernel reads.  From the plain table, in L1, not while
 * reading the delays: sorted there, the fill took about four times the plain
 * fill's time, more than the shared loads saved (measured). */
static void pair_rows(const uint8_t *const *plain, int nd, int nci, const uint8_t **rows, int *shared)
{
    int d = 0;
    for (; d + 1 < nd; d += 2) {
        const uint8_t *const *pa = plain + (size_t)d * (size_t)nci, *const *pb = pa + nci;
        const uint8_t **r = rows + (size_t)d * (size_t)nci;
        int ns = 0, na = 0;
        for (int i = 0; i < nci; i++) {
            const uint8_t *a = pa[i], *b = pb[i];
            const int eq = a == b;
            r[ns] = a;
            r[nci - 1 - na] = a;
            r[nci + na] = b;
            ns += eq;
            na += !eq;
        }
        shared[d / 2] = ns;
    }
    if (d < nd)
        memcpy(rows + (size_t)d * (size_t)nci, plain + (size_t)d * (size_t)nci, (size_t)nci * sizeof *rows);
}

/* 8-bit: the rows of the tile nx at its first and last DM (pf[i], pf[n + i]),
 * which the kernel fetches into L2 while it sums the tile before them. */
static void next_rows(const range_ctx *rc, const int32_t *delays, int nchans, size_t t0, next_tile nx,
                      const uint8_t **pf)
{
    const uint8_t *x0 = (const uint8_t *)rc->x + (size_t)nx.c0 * rc->stride + t0;
    const int32_t *lo = delays + nx.d0 * (size_t)nchans, *hi = delays + (nx.d0 + (size_t)nx.nd - 1) * (size_t)nchans;
    const int *ch = rc->chans + nx.c0;
    for (int i = 0; i < nx.n; i++, x0 += rc->stride) {
        pf[i] = x0 + lo[ch[i]];
        pf[nx.n + i] = x0 + hi[ch[i]];
    }
}

/* One channel tile of store type T through its kernel. */
#define TILE(T, kernel)                                                          \
    do {                                                                       \
        FILL_ROWS(T);                                                          \
        kernel((const T *const *)rowbuf, nd, nci, nblk, wide, tt);             \
    } while (0)

static xc_status run_range(const range_ctx *rc, int k, xc_planerange *o, xc_error *err)
{
    const xc_ddjob *job = rc->job;
    const xc_dmrange *r = &job->plan->r[k];
    const xc_cpu_layout *lay = rc->lay;
    const int32_t *delays = job->delays[k];
    const int nchans = job->in->nchans, ds = r->ds;
    const size_t nout = o->nsamp, ndm = r->ndm;
    if (nout == 0 || ndm == 0)
        return XC_OK;

    const xc_ddtune *op = &job->tune;
    const size_t B = (size_t)lay->block;
    size_t tt = round_up(op->tile_t > 0 ? (size_t)op->tile_t : XC_CPU_TILE_T, B);
    if (tt > round_up(nout, B))
        tt = round_up(nout, B);
    const int isu8 = lay->store == XC_CPU_U8;
    /* 8-bit, many channels: a time tile's rows (m x tt bytes) are read again
     * by every DM tile, from beyond L2; larger DM tiles read them less often */
    size_t td = op->tile_dm > 0                               ? (size_t)op->tile_dm
                : isu8 && rc->m >= XC_CPU_MANY_CHANS_U8 ? XC_CPU_TILE_DM_MANY_U8
                                                          : XC_CPU_TILE_DM;
    if (td > ndm)
        td = ndm;
    const int ct0 = isu8 ? xc_cpu_tile_c_u8() : XC_CPU_TILE_C;
    unsigned long long ct = (unsigned long long)(op->tile_c > 0 ? op->tile_c : ct0);
    if (lay->narrow_channels && ct > lay->narrow_channels)
        ct = lay->narrow_channels;
    if (ct > (unsigned long long)rc->m)
        ct = rc->m > 0 ? (unsigned long long)rc->m : 1;
    const size_t ntt = (nout + tt - 1) / tt, ndt = (ndm + td - 1) / td;
    const int m = rc->m;

    scaler sc;
    scaler_init(&sc, job->conv, nchans, ds, job->in->nbits);

    int failed = 0;
#pragma omp parallel num_threads(rc->nthreads)
    {
        const int isfloat = lay->store == XC_CPU_F32;
        /* 8-bit: sums below 2^32 (the driver's channel bound), half the bytes
         * of uint64 for the widening and the scaling to pass */
        const int wt = isfloat ? WIDE_F64 : isu8 ? WIDE_U32 : WIDE_U64;
        void *wide = malloc(td * tt * (isfloat ? sizeof(double) : sizeof(uint64_t)));
        void **rowbuf = malloc(td * (size_t)ct * sizeof(void *));
        /* 8-bit: the narrow sums carried between channel tiles (xc_cpu_tile_u8) */
        uint16_t *part = isu8 ? aligned_alloc(64, td * tt * sizeof(uint16_t)) : NULL;
        /* 8-bit: the next channel tile's rows, fetched into L2 by the kernel */
        const uint8_t **pf = isu8 ? malloc(2 * (size_t)ct * sizeof *pf) : NULL;
        /* 8-bit: per pair of trials, how many rows they share (pair_rows) */
        int *nsh = isu8 ? malloc((td / 2 + 1) * sizeof *nsh) : NULL;
        const uint8_t **prow = isu8 ? malloc(td * (size_t)ct * sizeof *prow) : NULL;
        if (!wide || !rowbuf || (isu8 && (!part || !pf || !nsh || !prow))) {
#pragma omp atomic write
            failed = 1;
        }
#pragma omp barrier
        int ok;
#pragma omp atomic read
        ok = failed;
        ok = !ok;
#pragma omp for schedule(dynamic, 1) collapse(2)
        for (size_t it = 0; it < ntt; it++)
            for (size_t id = 0; id < ndt; id++) {
                if (!ok)
                    continue;
                const size_t t0 = it * tt, d0 = id * td;
                const size_t nt = nout - t0 < tt ? nout - t0 : tt;
                const int nd = (int)(ndm - d0 < td ? ndm - d0 : td);
                const int nblk = (int)((nt + B - 1) / B);
                /* 8-bit: the first widening writes the tile (2 % of the run, zeroing it, measured) */
                if (!isu8 || m == 0)
                    memset(wide, 0, (size_t)nd * tt * (isfloat ? sizeof(double) : sizeof(uint64_t)));
                for (int c0 = 0, nci, carried = 0, widened = 0; c0 < m; c0 += nci) {
                    nci = m - c0 < (int)ct ? m - c0 : (int)ct;
                    /* 8-bit: the sums stay narrow while the next tile still fits the bound */
                    const int rest = m - c0 - nci, next = rest < (int)ct ? rest : (int)ct;
                    const int keep = rest > 0 && (unsigned long long)(carried + nci + next) <= lay->narrow_channels;
                    const next_tile nx = next_of(d0, nd, c0, nci, m, (int)ct, td, ndm);
                    switch (lay->store) {
                    case XC_CPU_U8:
                        FILL_ROWS(uint8_t);
                        pair_rows((const uint8_t *const *)rowbuf, nd, nci, prow, nsh);
                        if (pf && nx.nd)
                            next_rows(rc, delays, nchans, t0, nx, pf);
                        xc_cpu_tile_u8(prow, nd, nci, nblk, part, carried > 0,
                                       keep ? XC_U8_TO_PART : widened ? XC_U8_TO_WIDE : XC_U8_TO_WIDE_SET,
                                       (uint32_t *)wide, tt, pf && nx.nd ? pf : NULL, nx.n, nsh);
                        carried = keep ? carried + nci : 0;
                        widened |= !keep;
                        break;
                    case XC_CPU_U16: TILE(uint16_t, xc_cpu_tile_u16); break;
                    case XC_CPU_U32: TILE(uint32_t, xc_cpu_tile_u32); break;
                    case XC_CPU_U64: TILE(uint64_t, xc_cpu_tile_u64); break;
                    case XC_CPU_F32: TILE(float, xc_cpu_tile_f32); break;
                    }
                }
                for (int d = 0; d < nd; d++) {
                    scale_row(&sc, wt, wide, (size_t)d * tt, o->data + (d0 + (size_t)d) * nout + t0, nt);
                }
                xc_cpu_sfence();   /* the rows went out in streaming stores */
            }
        free(wide);
        free(rowbuf);
        free(part);
        free(pf);
        free(nsh);
        free((void *)prow);
    }
    if (failed)
        return xc_error_set(err, XC_ENOMEM, "cpu: out of memory for the per-thread tiles (%zu x %zu samples)",
                            td, tt);
    return XC_OK;
}

/* ---- driver ---------------------------------------------------------------- */

static xc_status check_opts(const xc_ddopts *r, const xc_ddtune *o, xc_error *err)
{
    if (r->threads < 0 || r->threads > 4096)
        return xc_error_set(err, XC_EINVAL, "cpu: threads: %d must be 0 (default) or 1..4096", r->threads);
    if (o->tile_t < 0 || o->tile_t > (1 << 24))
        return xc_error_set(err, XC_EINVAL, "cpu: tile_t: %d must be 0 (default) or 1..%d", o->tile_t, 1 << 24);
    if (o->tile_dm < 0 || o->tile_dm > (1 << 20))
        return xc_error_set(err, XC_EINVAL, "cpu: tile_dm: %d must be 0 (default) or 1..%d", o->tile_dm, 1 << 20);
    if (o->tile_c < 0)
        return xc_error_set(err, XC_EINVAL, "cpu: tile_c: %d must be 0 (default) or positive", o->tile_c);
    return XC_OK;
}

xc_status xc_dedisperse_cpu(const xc_ddjob *job, xc_plane *out, xc_error *err)
{
    const xc_block *in = job->in;
    const int nc = in->nchans;
    const int nr = job->plan->nranges;
    xc_status st = check_opts(&job->opts, &job->tune, err);
    if (st)
        return st;
    if (out->nranges != nr)
        return xc_error_set(err, XC_EINVAL, "cpu: plane has %d ranges, plan %d", out->nranges, nr);
    for (int k = 0; k < nr; k++) {
        const xc_dmrange *r = &job->plan->r[k];
        if (out->r[k].ndm != r->ndm || out->r[k].nsamp != job->nout / (size_t)r->ds)
            return xc_error_set(err, XC_EINVAL, "cpu: plane range %d has the wrong shape (%zu x %zu, want %zu x %zu)",
                                k, out->r[k].ndm, out->r[k].nsamp, r->ndm, job->nout / (size_t)r->ds);
    }
    const int nthreads = job->opts.threads > 0 ? job->opts.threads : omp_get_max_threads();

    int *chans = malloc((size_t)nc * sizeof *chans);
    /* Per range: scrunched input samples it reads, and whether it has run. */
    struct {
        size_t need;
        int done;
    } *rs = calloc((size_t)nr, sizeof *rs);
    if (!chans || !rs) {
        free(chans);
        free(rs);
        return xc_error_set(err, XC_ENOMEM, "cpu: out of memory");
    }
    int m = 0;
    for (int c = 0; c < nc; c++)
        if (!job->killmask || job->killmask[c])
            chans[m++] = c;

    /* Scrunched samples each range reads: nout/ds + its largest delay.  The
     * delays come from the job, so check them rather than trust max_delay. */
    for (int k = 0; k < nr && !st; k++) {
        const xc_dmrange *r = &job->plan->r[k];
        int32_t maxd = 0;
        const size_t n = r->ndm * (size_t)nc;
        for (size_t i = 0; i < n; i++) {
            int32_t d = job->delays[k][i];
            if (d < 0) {
                st = xc_error_set(err, XC_EINVAL, "cpu: range %d: negative delay %d", k, (int)d);
                break;
            }
            if (d > maxd)
                maxd = d;
        }
        rs[k].need = job->nout / (size_t)r->ds + (size_t)maxd;
        if (!st && rs[k].need > in->nsamp / (size_t)r->ds)
            st = xc_error_set(err, XC_EINVAL,
                              "cpu: range %d: delay %d (x ds %d) reaches past the %zu input samples",
                              k, (int)maxd, r->ds, in->nsamp);
    }

    /* One copy per distinct downsample factor, shared by its ranges. */
    for (int k = 0; k < nr && !st; k++) {
        if (rs[k].done)
            continue;
        const int ds = job->plan->r[k].ds;
        xc_cpu_layout lay;
        st = xc_cpu_layout_for(in->nbits, ds, &lay, err);
        if (st)
            break;
        /* The 8-bit path's tile sums are uint32: past 2^32/255 channels, the 16-bit one */
        if (lay.store == XC_CPU_U8 && (unsigned long long)m * UINT8_MAX > UINT32_MAX)
            lay = (xc_cpu_layout){XC_CPU_U16, XC_CPU_U32, 2, 4, UINT32_MAX / UINT8_MAX, XC_CPU_BLOCK_U16};
        size_t ns = 0;
        for (int q = k; q < nr; q++)
            if (job->plan->r[q].ds == ds && rs[q].need > ns)
                ns = rs[q].need;
        const size_t stride = round_up(ns + (size_t)lay.block, 64);
        void *x = NULL;
        size_t bytes = (size_t)m * stride * (size_t)lay.store_bytes;
        const size_t align = bytes >= HUGE_PAGE ? HUGE_PAGE : 64;
        if (bytes && !(x = aligned_alloc(align, round_up(bytes, align)))) {
            st = xc_error_set(err, XC_ENOMEM, "cpu: out of memory for the %d x %zu channel-major copy", m, stride);
            break;
        }
        /* Every channel row is its own page; with 4 KiB pages a channel tile
         * misses the first-level TLB on every row.  Advice only: failure is harmless. */
        if (bytes >= HUGE_PAGE)
            (void)madvise(x, round_up(bytes, HUGE_PAGE), MADV_HUGEPAGE);
        if (m)
            xc_cpu_convert(in, chans, m, ds, ns, stride, lay.store, x, nthreads);
        range_ctx rc = {job, &lay, chans, m, x, stride, nthreads};
        for (int q = k; q < nr && !st; q++)
            if (job->plan->r[q].ds == ds) {
                st = run_range(&rc, q, &out->r[q], err);
                rs[q].done = 1;
            }
        free(x);
    }
    free(chans);
    free(rs);
    return st;
}

void xc_cpu_plane_write(xc_plane *pl, int streamed, int threads)
{
    enum { CHUNK = 2048 };
    for (int k = 0; k < pl->nranges; k++) {
        const xc_planerange *o = &pl->r[k];
#pragma omp parallel num_threads(threads > 0 ? threads : 1)
        {
            uint32_t sum[CHUNK];
            for (int i = 0; i < CHUNK; i++)
                sum[i] = (uint32_t)i * 2654435761u;
#pragma omp for schedule(static)
            for (size_t d = 0; d < o->ndm; d++)
                for (size_t t0 = 0; t0 < o->nsamp; t0 += CHUNK) {
                    const size_t nt = o->nsamp - t0 < CHUNK ? o->nsamp - t0 : CHUNK;
                    if (streamed)
                        xc_cpu_store_u32(sum, o->data + d * o->nsamp + t0, nt);
                    else
                        xc_cpu_store_u32_plain(sum, o->data + d * o->nsamp + t0, nt);
                }
            xc_cpu_sfence();
        }
    }
}

/* Integer input bit for bit; float input summed in float per channel tile,
 * within 1 x N 2^-24 max|ref| (N = channels x ds). */
static xc_status cpu_run(const xc_dedisperser *self, const xc_ddjob *job, xc_plane *out, xc_error *err)
{
    (void)self;
    return xc_dedisperse_cpu(job, out, err);
}

static void cpu_stats(const xc_dedisperser *self, const void *state, xc_ddstats *out)
{
    (void)self;
    (void)state;
    out->path = "cpu-tiled";
}

const xc_dedisperser xc_dd_cpu = {
    .impl = {.family = XC_FAMILY_DEDISPERSE, .name = "cpu", .tol = {XC_TOL_ROUNDING, 1.0}, .caps = XC_CAP_THREADED,
             .desc = "tiled OpenMP/SIMD direct dedispersion (AstroAccelerate CPU algorithm)"},
    .run = cpu_run, .stats = cpu_stats};
