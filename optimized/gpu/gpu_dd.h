/* gpu_dd.h: what the dedispersion host code (dedisperse_gpu.cu, dd_host.h) and the
 * kernels share.  C++ (nvcc) only.  Each kernel family lives in its own file
 * with its host launcher (declared below), so no kernel is launched and no
 * device function is called across files (no -rdc):
 *   dd_prep_kernels.cu   corner turn + scrunch + pack, delay bounds per DM tile
 *   dd_smem_kernel.cu    the shared-memory kernel (dd_accumulators.h: its sums)
 *   dd_direct_kernel.cu  the direct (L1/cache) kernel
 *   dd_scale_kernel.cu   the output scaling
 *
 * Device data of one time chunk and one DM range:
 *   raw   the chunk as uploaded, [W][nchans] u16 or f32, channel fastest;
 *   Y     channel-major, time-scrunched "words" [nuse][pitch], one row per
 *         unmasked channel.  Word p of a row packs L samples of that channel:
 *         lane l holds scrunched sample p + l*S (zero past the chunk's data).
 *         S is the shared-memory kernel's words per tile row, so a thread that
 *         owns word j of a tile owns samples j, j+S, ..., j+(L-1)S, and every
 *         shift moves all its lanes at once (the packed SIMD-in-word addition).
 *   del   delays [ndm][nuse] of the unmasked channels (job->delays, exact);
 *   tmin  per DM tile and channel the smallest delay of the tile's DMs: the
 *         "block part" of the shift; a thread's part is d - tmin. */
#ifndef XC_GPU_DD_H
#define XC_GPU_DD_H

#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>

/* Word formats, chosen by the largest scrunched sample value vmax. */
enum dd_fmt {
    DD_Q4 = 0,   /* 4 x 8-bit lanes, pre-summed in 8-bit lanes (vmax <= 127): 1..4-bit input */
    DD_Q8,       /* 4 x 8-bit lanes, split into two u32 sums per add (vmax <= 255): 8-bit */
    DD_P16,      /* 2 x 16-bit lanes summed in place (vmax <= 32767): scrunched 8-bit */
    DD_S16,      /* 2 x 16-bit lanes, split into two u32 sums per add (vmax <= 65535): 16-bit */
    DD_W32,      /* one u32 sample (vmax < 2^32): scrunched 16-bit */
    DD_F32,      /* one float sample: 32-bit input */
    DD_U64,      /* one u64 sample (vmax >= 2^32): direct kernel only */
    DD_NFMT
};

__host__ __device__ constexpr int dd_lanes(int fmt) { return fmt <= DD_Q8 ? 4 : fmt <= DD_S16 ? 2 : 1; }
/* bits per lane of a packed word */
__host__ __device__ constexpr int dd_lane_bits(int fmt) { return fmt <= DD_Q8 ? 8 : fmt <= DD_S16 ? 16 : 32; }
static inline size_t dd_word_bytes(int fmt) { return fmt == DD_U64 ? 8 : 4; }

/* Output scaling: the float operations of xc_scale_real after its (float)sum,
 * constants computed on the host with the same float expressions. */
struct dd_scale {
    int kind;        /* xc_scaling */
    float den;       /* XC_SCALE_DEDISP: xc_dedisp_in_range(nbits) * (float)nchans */
    float factor;    /* XC_SCALE_DEDISP: XC_DEDISP_SCALE */
    float fnch;      /* XC_SCALE_MEAN_AA: (float)nchans */
    float fds;       /* XC_SCALE_MEAN_AA: (float)ds */
};

struct dd_pack_args {
    const void *raw;        /* uint16_t, uint8_t (raw_u8) or float [W][nc] */
    int raw_f32;
    int raw_u8;             /* integer samples one byte each (staged input of at most 8 bits) */
    size_t nc;              /* row pitch of raw (all channels) */
    const int *chan;        /* nuse channel numbers; NULL: channel i is row i */
    int nuse;
    int ds;
    size_t off;             /* raw sample of scrunched sample 0 */
    size_t ns_avail;        /* scrunched samples that exist in raw */
    size_t S;               /* lane stride in words (unused when L == 1) */
    size_t np;              /* words to write per row */
    void *Y;                /* uint32_t, or unsigned long long for DD_U64 */
    size_t pitch;           /* words per row of Y */
    int row_tile0;          /* first 32-row tile of this launch (grid.y limit) */
};

struct dd_bounds_args {
    const int32_t *del;     /* [ndm][nuse] */
    int ndm, nuse, dy;
    size_t ntiles;          /* DM tiles */
    int32_t *tmin;          /* [ntiles][nuse], or NULL for the statistics alone */
    int *stats;             /* [0] max spread, [1] max delay, [2] min delay */
};

struct dd_smem_args {
    const uint32_t *Y;
    size_t pitch;
    const int32_t *del;     /* [ndm][nuse] */
    const int32_t *tmin;    /* [ntiles][nuse] */
    int nuse, ndm;
    int dy;                 /* DMs per block (= blockDim.y); blockIdx.x is the DM tile */
    size_t ttile0;          /* time tile of blockIdx.y == 0 (grid.y holds 65535) */
    int cs;                 /* channels per stage (two stages are in shared memory at once) */
    int rowlen;             /* words staged per channel: S + largest spread */
    int k1, k2, k3;         /* flush periods of the narrow accumulators (dd_accumulators.h) */
    float *out;             /* [ndm][opitch]: (float)sum, k_scale does the rest */
    size_t opitch, lk;      /* row pitch and valid samples of out */
};

struct dd_direct_args {
    const void *Y;          /* uint32_t, float or unsigned long long words, one sample each */
    size_t pitch;
    const int32_t *del;
    int nuse, ndm;          /* blockIdx.x is the trial */
    size_t tblock0;         /* time block of blockIdx.y == 0 */
    float *out;
    size_t opitch, lk;
};

#define DD_DIRECT_THREADS 256
#define DD_DIRECT_SAMPS 4   /* per thread */

/* Launchers: each returns the launch's cudaGetLastError(). */
cudaError_t dd_launch_pack(int fmt, dim3 grid, const dd_pack_args &a, cudaStream_t s);
cudaError_t dd_launch_bounds(const dd_bounds_args &a, cudaStream_t s);
/* R: words per thread, a supported value (dd_smem_supported).  Sets the
 * kernel's dynamic shared-memory limit first. */
cudaError_t dd_launch_smem(int fmt, int R, int wide, dim3 grid, dim3 block, size_t smem,
                           const dd_smem_args &a, cudaStream_t s);
/* out[i] = the rest of xc_scale_real applied to (float)sum, for i < n. */
cudaError_t dd_launch_scale(float *out, size_t n, const dd_scale &sc, cudaStream_t s);
/* The same over rows x cols floats of row pitch pitch (a part of a plane). */
cudaError_t dd_launch_scale_rows(float *out, size_t rows, size_t cols, size_t pitch, const dd_scale &sc, cudaStream_t s);
/* Test hook (xc_gpu_ddinfo.test_fault): mode 1 launches a kernel with an
 * invalid configuration (the launch fails), mode 2 one that traps (the
 * launch succeeds, the wait fails and the context is lost). */
cudaError_t dd_launch_fault(int mode, cudaStream_t s);
cudaError_t dd_launch_direct(int fmt, dim3 grid, const dd_direct_args &a, cudaStream_t s);
/* 1 if a shared-memory kernel exists for (fmt, R, wide). */
int dd_smem_supported(int fmt, int R, int wide);
/* Registers and local (spill) bytes of a shared-memory kernel instance, for reports. */
cudaError_t dd_smem_attributes(int fmt, int R, int wide, cudaFuncAttributes *attr);

#endif
