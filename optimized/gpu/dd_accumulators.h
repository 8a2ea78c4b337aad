/* dd_accumulators.h: the accumulators of the shared-memory dedispersion
 * kernel (dd_smem_kernel.cu; device code, nvcc only).
 *
 * Each keeps one thread's R words' worth of lanes.  Flushes move narrow lane
 * sums into wider ones before they can overflow: the host sets k1 (channels
 * per first flush), k2 and k3 (flushes of the previous level per next flush)
 * from the largest word value, so a lane never exceeds its width:
 *   q4:  8-bit lanes (k1 channels) -> 16-bit lanes (k2) -> u32 (k3) -> u64
 *   q8:  16-bit lanes (k1 channels) -> u32 (k2) -> u64
 *   p16: 16-bit lanes (k1 channels) -> u32 (k2) -> u64
 *   w32: u32 (k1 channels) -> u64
 * The u64 level exists only in the "wide" instances (sums that may pass 2^32). */
#ifndef XC_DD_ACCUMULATORS_H
#define XC_DD_ACCUMULATORS_H

#include <cuda_runtime.h>
#include <stdint.h>

#include "optimized/gpu/gpu_dd.h"

namespace xcdd {

struct counts {
    int k1, k2, k3;
    int n1, n2, n3;
};

/* The 4-lane formats.  q4 adds whole words into 8-bit lanes (a8) and splits
 * them into two words of 16-bit lane pairs every k1 channels; q8 splits every
 * word as it adds it.  From the 16-bit pairs on both are the same (f16, f32,
 * sum): the pairs go into u32 lanes every k2 splits (q4) or k1 channels (q8),
 * and in the wide instances the u32 lanes into u64 every k3 (q4) or k2 (q8)
 * of those.  (channel_done spells both chains out: a shared helper taking the
 * counter by reference changed the non-wide q4 instances' SASS.) */
template <int R, bool WIDE, bool Q4>
struct acc_lanes4 {
    uint32_t a8[Q4 ? R : 1], a16[2][R], a32[4][R];
    unsigned long long a64[WIDE ? 4 : 1][WIDE ? R : 1];
    __device__ __forceinline__ void zero()
    {
#pragma unroll
        for (int r = 0; r < R; ++r) {
            if constexpr (Q4)
                a8[r] = 0;
            a16[0][r] = a16[1][r] = 0;
#pragma unroll
            for (int l = 0; l < 4; ++l) {
                a32[l][r] = 0;
                if constexpr (WIDE)
                    a64[l][r] = 0;
            }
        }
    }
    __device__ __forceinline__ void add(int r, uint32_t w)
    {
        if constexpr (Q4) {
            a8[r] += w;
        } else {
            a16[0][r] += w & 0x00FF00FFu;
            a16[1][r] += (w >> 8) & 0x00FF00FFu;
        }
    }
    __device__ __forceinline__ void split()
    {
#pragma unroll
        for (int r = 0; r < R; ++r) {
            a16[0][r] += a8[r] & 0x00FF00FFu;          /* lanes 0 and 2 */
            a16[1][r] += (a8[r] >> 8) & 0x00FF00FFu;   /* lanes 1 and 3 */
            a8[r] = 0;
        }
    }
    __device__ __forceinline__ void f16()
    {
#pragma unroll
        for (int r = 0; r < R; ++r) {
            a32[0][r] += a16[0][r] & 0xFFFFu;
            a32[2][r] += a16[0][r] >> 16;
            a32[1][r] += a16[1][r] & 0xFFFFu;
            a32[3][r] += a16[1][r] >> 16;
            a16[0][r] = a16[1][r] = 0;
        }
    }
    __device__ __forceinline__ void f32()
    {
        if constexpr (WIDE) {
#pragma unroll
            for (int r = 0; r < R; ++r)
#pragma unroll
                for (int l = 0; l < 4; ++l) {
                    a64[l][r] += a32[l][r];
                    a32[l][r] = 0;
                }
        }
    }
    __device__ __forceinline__ void channel_done(counts &c)
    {
        if (++c.n1 == c.k1) {
            c.n1 = 0;
            if constexpr (Q4) {
                split();
                if (++c.n2 == c.k2) {
                    c.n2 = 0;
                    f16();
                    if constexpr (WIDE) {
                        if (++c.n3 == c.k3) {
                            c.n3 = 0;
                            f32();
                        }
                    }
                }
            } else {
                f16();
                if constexpr (WIDE) {
                    if (++c.n2 == c.k2) {
                        c.n2 = 0;
                        f32();
                    }
                }
            }
        }
    }
    __device__ __forceinline__ void stage_done() {}
    __device__ __forceinline__ void finish()
    {
        if constexpr (Q4)
            split();
        f16();
        f32();
    }
    __device__ __forceinline__ double sum(int l, int r) const
    {
        if constexpr (WIDE)
            return (double)a64[l][r];
        else
            return (double)a32[l][r];
    }
};

template <int R, bool WIDE> using acc_q4 = acc_lanes4<R, WIDE, true>;
template <int R, bool WIDE> using acc_q8 = acc_lanes4<R, WIDE, false>;

template <int R, bool WIDE>
struct acc_p16 {
    uint32_t a16[R], a32[2][R];
    unsigned long long a64[WIDE ? 2 : 1][WIDE ? R : 1];
    __device__ __forceinline__ void zero()
    {
#pragma unroll
        for (int r = 0; r < R; ++r) {
            a16[r] = 0;
#pragma unroll
            for (int l = 0; l < 2; ++l) {
                a32[l][r] = 0;
                if constexpr (WIDE)
                    a64[l][r] = 0;
            }
        }
    }
    __device__ __forceinline__ void add(int r, uint32_t w) { a16[r] += w; }
    __device__ __forceinline__ void f16()
    {
#pragma unroll
        for (int r = 0; r < R; ++r) {
            a32[0][r] += a16[r] & 0xFFFFu;
            a32[1][r] += a16[r] >> 16;
            a16[r] = 0;
        }
    }
    __device__ __forceinline__ void f32()
    {
        if constexpr (WIDE) {
#pragma unroll
            for (int r = 0; r < R; ++r)
#pragma unroll
                for (int l = 0; l < 2; ++l) {
                    a64[l][r] += a32[l][r];
                    a32[l][r] = 0;
                }
        }
    }
    __device__ __forceinline__ void channel_done(counts &c)
    {
        if (++c.n1 == c.k1) {
            c.n1 = 0;
            f16();
            if constexpr (WIDE) {
                if (++c.n2 == c.k2) {
                    c.n2 = 0;
                    f32();
                }
            }
        }
    }
    __device__ __forceinline__ void stage_done() {}
    __device__ __forceinline__ void finish()
    {
        f16();
        f32();
    }
    __device__ __forceinline__ double sum(int l, int r) const
    {
        if constexpr (WIDE)
            return (double)a64[l][r];
        else
            return (double)a32[l][r];
    }
};

template <int R, bool WIDE>
struct acc_w32 {
    uint32_t a32[R];
    unsigned long long a64[WIDE ? R : 1];
    __device__ __forceinline__ void zero()
    {
#pragma unroll
        for (int r = 0; r < R; ++r) {
            a32[r] = 0;
            if constexpr (WIDE)
                a64[r] = 0;
        }
    }
    __device__ __forceinline__ void add(int r, uint32_t w) { a32[r] += w; }
    __device__ __forceinline__ void f32()
    {
        if constexpr (WIDE) {
#pragma unroll
            for (int r = 0; r < R; ++r) {
                a64[r] += a32[r];
                a32[r] = 0;
            }
        }
    }
    __device__ __forceinline__ void channel_done(counts &c)
    {
        if constexpr (WIDE) {
            if (++c.n1 == c.k1) {
                c.n1 = 0;
                f32();
            }
        } else {
            (void)c;
        }
    }
    __device__ __forceinline__ void stage_done() {}
    __device__ __forceinline__ void finish() { f32(); }
    __device__ __forceinline__ double sum(int, int r) const
    {
        if constexpr (WIDE)
            return (double)a64[r];
        else
            return (double)a32[r];
    }
};

/* Float words: float sums over one stage (at most cs channels), double across
 * stages, like the CPU kernel's float tiles. */
template <int R, bool WIDE>
struct acc_f32 {
    float af[R];
    double ad[R];
    __device__ __forceinline__ void zero()
    {
#pragma unroll
        for (int r = 0; r < R; ++r) {
            af[r] = 0.0f;
            ad[r] = 0.0;
        }
    }
    __device__ __forceinline__ void add(int r, uint32_t w) { af[r] += __uint_as_float(w); }
    __device__ __forceinline__ void channel_done(counts &) {}
    __device__ __forceinline__ void stage_done()
    {
#pragma unroll
        for (int r = 0; r < R; ++r) {
            ad[r] += (double)af[r];
            af[r] = 0.0f;
        }
    }
    __device__ __forceinline__ void finish() { stage_done(); }
    __device__ __forceinline__ double sum(int, int r) const { return ad[r]; }
};

template <int FMT, int R, bool WIDE>
struct acc_of;
template <int R, bool WIDE> struct acc_of<DD_Q4, R, WIDE> { using type = acc_q4<R, WIDE>; };
template <int R, bool WIDE> struct acc_of<DD_Q8, R, WIDE> { using type = acc_q8<R, WIDE>; };
template <int R, bool WIDE> struct acc_of<DD_P16, R, WIDE> { using type = acc_p16<R, WIDE>; };
template <int R, bool WIDE> struct acc_of<DD_W32, R, WIDE> { using type = acc_w32<R, WIDE>; };
template <int R, bool WIDE> struct acc_of<DD_F32, R, WIDE> { using type = acc_f32<R, WIDE>; };

} // namespace xcdd

#endif
