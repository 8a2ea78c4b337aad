/* cpu_internal.h: the pieces of the CPU dedisperser shared between its files. */
#ifndef XC_CPU_INTERNAL_H
#define XC_CPU_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "optimized/cpu/xc_cpu.h"
#include "core/dedisp/approx/xc_ddapprox.h"
#include "core/dedisp/xc_dedisperse.h"

/* Register-block lengths: 512 bytes of narrow accumulators (eight AVX-512
 * registers), so the block stays in registers across the channel loop.  8-bit
 * input: 256 samples, also eight registers (two samples a 16-bit lane).  With
 * 64-channel tiles 512 samples (sixteen registers) ran 10-20 % faster, the
 * channel loop's overhead halved; with 32-channel tiles whose narrow sums are
 * carried between tiles, 256 keeps a block's rows and its trials' carried sums
 * (10 + 16 KiB) inside a 32 KiB L1, where 512 (18 + 32 KiB) did not: 1-5 %
 * faster per CPU second at 512-4096 channels, measured. */
#define XC_CPU_BLOCK_U8 256    /* uint8 input, uint16 accumulators (a multiple of 256) */
#define XC_CPU_BLOCK_U16 128   /* uint16 input, uint32 accumulators */
#define XC_CPU_BLOCK_U32 128   /* uint32 input, uint32 accumulators */
#define XC_CPU_BLOCK_U64 64    /* uint64 input and accumulators */
#define XC_CPU_BLOCK_F32 128   /* float input and accumulators */

/* One channel tile of one work item.  rows[d*nc + i] points at the first input
 * sample that output sample 0 of the work item needs from channel i at DM d
 * (row base + delay + first output sample).  For every block b < nblk and DM
 * d < nd the kernel adds sum_i rows[d*nc+i][b*B + k] (k < B) into
 * wide[d*wstride + b*B + k].  Rows must hold nblk*B readable samples. */
/* 8-bit: the narrow sums may also carry over from one channel tile to the next
 * through part (nd rows of wstride uint16): from_part starts from them; `to`
 * says where they go: XC_U8_TO_PART leaves them there, XC_U8_TO_WIDE adds them
 * into wide, XC_U8_TO_WIDE_SET writes them over wide (the first widening of a
 * work item, so wide need not be zeroed first); the caller keeps a run's
 * channels within the narrow bound. */
enum { XC_U8_TO_WIDE = 0, XC_U8_TO_PART = 1, XC_U8_TO_WIDE_SET = 2 };
/* pf (or NULL): the next channel tile's rows at its first and last DM, npf
 * of each (pf[i], pf[npf + i]); with each block the kernel fetches that
 * block's span of them into L2, a hint only.
 * shared (or NULL): the trials are taken in pairs (2q, 2q+1), q < nd/2, whose
 * 2*nc row pointers from rows + 2q*nc are the shared[q] rows both trials read
 * (equal delays), then trial 2q's other nc - shared[q], then trial 2q+1's;
 * a last odd trial has the plain layout.  The shared rows are loaded once. */
void xc_cpu_tile_u8(const uint8_t *const *rows, int nd, int nc, int nblk, uint16_t *part, int from_part,
                    int to, uint32_t *wide, size_t wstride, const uint8_t *const *pf, int npf,
                    const int *shared);
/* The default channel tile of xc_cpu_tile_u8 for the version the loader picks:
 * XC_CPU_TILE_C_U8 for the paired AVX-512 kernel, XC_CPU_TILE_C for the
 * widening ones (on the EPYC of docs/PERFORMANCE.md their AVX2 build ran
 * 10 % slower at 32 channels than at 64, CPU time). */
int xc_cpu_tile_c_u8(void);
void xc_cpu_tile_u16(const uint16_t *const *rows, int nd, int nc, int nblk, uint64_t *wide, size_t wstride);
void xc_cpu_tile_u32(const uint32_t *const *rows, int nd, int nc, int nblk, uint64_t *wide, size_t wstride);
void xc_cpu_tile_u64(const uint64_t *const *rows, int nd, int nc, int nblk, uint64_t *wide, size_t wstride);
void xc_cpu_tile_f32(const float *const *rows, int nd, int nc, int nblk, double *wide, size_t wstride);

/* Output scaling, the same arithmetic as xc_scale_real (xc_dmplan.c) written
 * so it vectorizes: y = f for XC_SCALE_SUM, (f*1.0f)/k1*k2 for XC_SCALE_DEDISP,
 * f/k1/k2 for XC_SCALE_MEAN_AA, with f = (float)(double)sum.  The driver checks
 * it against xc_scale_int/xc_scale_real before use (see dedisperse_cpu.c). */
void xc_cpu_scale_u64(int kind, float k1, float k2, const uint64_t *sum, float *out, size_t n);
void xc_cpu_scale_u32(int kind, float k1, float k2, const uint32_t *sum, float *out, size_t n);
void xc_cpu_scale_f64(int kind, float k1, float k2, const double *sum, float *out, size_t n);

/* Channel-major scrunched copy of the unmasked channels:
 * dst[i*stride + j] = sum_{q<ds} in[(j*ds + q)*nchans + chans[i]] for j < ns,
 * and 0 for ns <= j < stride.  dst's element type is `type`; parallel over
 * nthreads.  The caller guarantees the sums fit the type. */
void xc_cpu_convert(const xc_block *in, const int *chans, int nchosen, int ds, size_t ns,
                    size_t stride, xc_cpu_type type, void *dst, int nthreads);

/* ---- the approximate dedispersers' gulp loop (approx_common.c) ---------- */

/* Three builds of a kernel picked by the loader (target_clones), as in cpu_kernels.c: AVX-512BW where the
 * machine has it, under a plain -O3.  XC_CPU_NO_CLONES builds one, for the compiler's -m flags. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(XC_CPU_NO_CLONES)
#define XC_CPU_CLONES __attribute__((target_clones("arch=x86-64-v4", "avx2", "default")))
#else
#define XC_CPU_CLONES
#endif

/* out[i] = F(i) for i < n, F a function-like macro of the index: the 64-float runs at 64-byte aligned
 * addresses go out as non-temporal (streaming) stores through a 64-float buffer, the rest as plain stores.
 * A plane row is written once and read by nobody before the execute returns, so a streaming store need not
 * read each line before writing it (a plain store may) and keeps the plane from pushing the kernel's rows out
 * of cache; on the EPYC of docs/PERFORMANCE.md both kinds cost the same, measured (bench dedisperse's
 * plane_write_cpu_seconds and plane_write_streamed_cpu_seconds).  Non-temporal stores are weakly ordered: the work item
 * that made them ends with xc_cpu_sfence() (OpenMP's barrier does not order them).  Values are the plain
 * loop's, bit for bit: only the store instruction differs. */
#if defined(__SSE2__)
#include <immintrin.h>
#define XC_CPU_STREAM(out, n, F)                                                                                \
    do {                                                                                                        \
        float *const o_ = (out);                                                                                \
        const size_t n_ = (n);                                                                                  \
        size_t i_ = 0;                                                                                          \
        for (; i_ < n_ && ((uintptr_t)(o_ + i_) & 63); i_++)                                                    \
            o_[i_] = F(i_);                                                                                     \
        for (; i_ + 64 <= n_; i_ += 64) {                                                                       \
            float t_[64] __attribute__((aligned(64)));                                                          \
            for (size_t k_ = 0; k_ < 64; k_++)                                                                  \
                t_[k_] = F(i_ + k_);                                                                            \
            for (size_t k_ = 0; k_ < 64; k_ += 4)                                                               \
                _mm_stream_ps(o_ + i_ + k_, _mm_load_ps(t_ + k_));                                              \
        }                                                                                                       \
        for (; i_ < n_; i_++)                                                                                   \
            o_[i_] = F(i_);                                                                                     \
    } while (0)
static inline void xc_cpu_sfence(void) { _mm_sfence(); }
#else
#define XC_CPU_STREAM(out, n, F)                                                                                \
    do {                                                                                                        \
        float *const o_ = (out);                                                                                \
        for (size_t i_ = 0; i_ < (n); i_++)                                                                     \
            o_[i_] = F(i_);                                                                                     \
    } while (0)
static inline void xc_cpu_sfence(void) {}
#endif

/* Row sums (approx_kernels.c): dst[u] = sum_{i < nrows} src[i][u] for at <= u < at + n, exact where the caller
 * guarantees every sum fits DST; vectorized like the tile kernels.  at lets a caller sum a row in pieces (blocks
 * of time through several groups' rows) from one table of row pointers.  store_u32: out[u] = (float)(double)sum[u]. */
void xc_cpu_rowsum_u8_u16(const uint8_t *const *src, int nrows, size_t at, size_t n, uint16_t *dst);
void xc_cpu_rowsum_u16_u16(const uint16_t *const *src, int nrows, size_t at, size_t n, uint16_t *dst);
void xc_cpu_rowsum_u16_u32(const uint16_t *const *src, int nrows, size_t at, size_t n, uint32_t *dst);
/* dst[u] = a[u] + b[u], u < n (the caller guarantees the sums fit uint16). */
void xc_cpu_rowadd_u16(const uint16_t *a, const uint16_t *b, size_t n, uint16_t *dst);
/* The same sums written to the plane as store_u32 writes them, (float)(double)sum, in streaming stores (the caller
 * fences), bit for bit rowsum_u16_u32 then store_u32.  group: how many rows' sums the caller guarantees fit uint16
 * (where 2 or more, they are added in uint16 lanes first); scratch: n uint32 the versions without AVX-512 use. */
void xc_cpu_rowsum_u16_f32(const uint16_t *const *src, int nrows, size_t n, int group, uint32_t *scratch, float *out);
/* The same for samples [at, at + n) of the rows into out[at, at + n) (scratch: at + n uint32), so a caller can
 * walk one table of row pointers block by block without offsetting every pointer. */
void xc_cpu_rowsum_u16_f32_at(const uint16_t *const *src, int nrows, size_t at, size_t n, int group,
                              uint32_t *scratch, float *out);
/* The same with the rows added in uint16 lanes in the ncut groups [cut[g], cut[g + 1]) (cut[0] = 0, cut[ncut] =
 * nrows; the caller guarantees each group's sums fit uint16): rows of unequal bounds, as subbands of unequal
 * widths, grouped as far as each fits. */
void xc_cpu_rowsum_u16_f32_cut(const uint16_t *const *src, int nrows, size_t at, size_t n, const int32_t *cut,
                               int ncut, uint32_t *scratch, float *out);
/* out[u] = (float)(double)sum[u], u < n, through XC_CPU_STREAM (the caller fences); _plain: ordinary stores. */
void xc_cpu_store_u32(const uint32_t *sum, float *out, size_t n);
void xc_cpu_store_u32_plain(const uint32_t *sum, float *out, size_t n);
void xc_cpu_store_u64(const uint64_t *sum, float *out, size_t n);
void xc_cpu_store_f64(const double *sum, float *out, size_t n);

/* The work-item kernels of a copy, in this order; narrow ones add in uint32
 * (exact where every sum of a trial fits 32 bits, twice the lanes of uint64). */
enum { XC_CPU_ITEM_U8N, XC_CPU_ITEM_U8W, XC_CPU_ITEM_U16N, XC_CPU_ITEM_U16W, XC_CPU_ITEM_U32N, XC_CPU_ITEM_U32W,
       XC_CPU_ITEM_U64W, XC_CPU_ITEM_F32, XC_CPU_NITEMS };
/* The same list for a dedisperser's kernel macro: X(name, copy type, sum type). */
#define XC_CPU_ITEM_KINDS(X)                                                                                    \
    X(item_u8n, uint8_t, uint32_t) X(item_u8w, uint8_t, uint64_t) X(item_u16n, uint16_t, uint32_t)               \
    X(item_u16w, uint16_t, uint64_t) X(item_u32n, uint32_t, uint32_t) X(item_u32w, uint32_t, uint64_t)          \
    X(item_u64w, uint64_t, uint64_t) X(item_f32, float, double)
#define XC_CPU_ITEM_NAME(name, src, acc) name,

/* Scales the nt sums a (uint32, uint64 or double) of a trial into dst: xc_scale_real
 * of each, written as (float)(double)sum for XC_SCALE_SUM so it vectorizes, in streaming
 * stores (the work item ends with xc_cpu_sfence()); used inside the kernel macros, where a's type is the sums'. */
#define XC_CPU_STORE(job, a, dst, nt, nchans, ds)                                                               \
    do {                                                                                                        \
        float *const d_ = (dst);                                                                                \
        if ((job)->conv->scaling == XC_SCALE_SUM)                                                               \
            _Generic((a), uint32_t *: xc_cpu_store_u32, const uint32_t *: xc_cpu_store_u32,                     \
                     uint64_t *: xc_cpu_store_u64, const uint64_t *: xc_cpu_store_u64,                          \
                     double *: xc_cpu_store_f64, const double *: xc_cpu_store_f64)((a), d_, (nt));              \
        else                                                                                                    \
            for (size_t t_ = 0; t_ < (nt); t_++)                                                                \
                d_[t_] = xc_scale_real((job)->conv, (double)(a)[t_], (nchans), (ds), (job)->in->nbits);         \
    } while (0)

/* One channel-major copy (xc_cpu_convert) of a gulp at one downsample factor:
 * x holds m rows of stride >= nsd + 1 samples (NULL if m == 0); item: the
 * XC_CPU_ITEM_* kernel for its type and sums. */
typedef struct {
    int item;
    const void *x;
    size_t nsd, stride;
} xc_cpu_copy;

/* Range k (of nonzero size) of the plane from the copy at its ds. */
typedef void (*xc_cpu_range_fn)(const void *state, const xc_ddjob *job, int k, const xc_cpu_copy *cp,
                                 xc_planerange *o);

/* The plan subband_cpu.c and tree_cpu.c share, the first member of their
 * states: core's plan of the descriptor's algorithm, the unmasked channels
 * and one scratch block per thread. */
typedef struct {
    const char *name;     /* for messages: "subband", "tree" */
    xc_ddapprox_plan p;
    int nchans;           /* the plan's channel count, for the narrow bound */
    int nthreads;
    int m;                /* unmasked channels, listed in chans */
    int *chans, *row;     /* per channel its row in the copy, -1 if masked */
    size_t scratch;       /* bytes per thread, set by the caller before xc_cpu_approx_buffers */
    void **buf;           /* nthreads scratch blocks */
    xc_cpu_range_fn range;
    int nranges;
    void *ranges;         /* nranges zeroed elements of the dedisperser's own per-range type */
    void *copy;           /* the channel-major copy, kept from execute to execute (grown, never shrunk) */
    size_t copy_bytes;
} xc_cpu_approx;

/* Allocates *out, a zeroed state of `size` bytes whose first member is an xc_cpu_approx, and makes that:
 * checks opts.threads, makes core's plan, the channel list and `ranges` (elements of range_elem bytes).
 * Whatever this returns, *out is NULL or may be handed to the state's destroy (which ends with
 * xc_cpu_approx_free). */
xc_status xc_cpu_approx_new(void **out, size_t size, const char *name, const xc_dedisperser *self,
                            const xc_ddjob *proto, xc_cpu_range_fn range, size_t range_elem, xc_error *err);
/* One block of a->scratch bytes per thread. */
xc_status xc_cpu_approx_buffers(xc_cpu_approx *a, xc_error *err);
void xc_cpu_approx_free(xc_cpu_approx *a);

/* The execute method of both (state: a state whose first member is an
 * xc_cpu_approx): checks the plane's shape, then per distinct downsample
 * factor makes one copy, shared by every range with that factor, and runs
 * a->range on them.  The copy's buffer stays with the state, so a run of
 * gulps allocates and first touches it once; one execute at a time per state. */
xc_status xc_cpu_approx_execute(const xc_dedisperser *self, void *state, const xc_ddjob *job, xc_plane *out,
                                xc_error *err);

#endif
