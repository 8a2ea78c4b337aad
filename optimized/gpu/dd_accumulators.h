/* dd_accumulators.h: the accumulators of the shared-memory dedispersion
 * kernel (dd_smem_kernel.cu; device code, nvcc only).
 *
 * Each keeps one thread's R words' worth of lanes.  add(r, w) adds one word,
 * add2(r, w0, w1) two words of consecutive channels (one three-input add
 * where the format allows).  Flushes move narrow lane sums into wider ones
 * before they can overflow: the host sets k1 (channels per first flush), k2
 * and k3 (flushes of the previous level per next flush) from the largest word
 * value, so a lane never exceeds its width.  The kernel adds runs of channels
 * that end where a first-level flush is due and calls flush() there (only
 * for accumulators that are "counted"):
 *   q4:  8-bit lanes (k1 channels) -> 16-bit lanes (k2) -> u32 (k3) -> u64
 *   q8:  two u32 sums, of w & 0x00FF00FF and of w >> 8 (k1 channels) -> u32 lanes (k2) -> u64
 *   p16: 16-bit lanes (k1 channels) -> u32 (k2) -> u64
 *   s16: two u32 sums, of w & 0xFFFF and of w >> 16 (k1 channels) -> u64
 *   w32: u32 (k1 channels) -> u64
 * The u64 level exists only in the "wide" instances (sums that may pass 2^32);
 * s16 and w32 count channels only there. */
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

/* The u32 lanes (L per word) that q4, q8 and p16 end in and, in the wide
 * instances, their u64 sums.  ACC (the accumulator built on it) moves its
 * narrow lanes into a32 in f16(); flush() and finish() here are those of the
 * two-level q8 and p16 (u32 every k1 channels, u64 every k2 of those), which
 * q4 replaces with its own three levels. */
template <class ACC, int L, int R, bool WIDE>
struct lanes32 {
    static constexpr bool counted = true;
    uint32_t a32[L][R];
    unsigned long long a64[WIDE ? L : 1][WIDE ? R : 1];
    __device__ __forceinline__ void zero32()
    {
#pragma unroll
        for (int r = 0; r < R; ++r)
#pragma unroll
            for (int l = 0; l < L; ++l) {
                a32[l][r] = 0;
                if constexpr (WIDE)
                    a64[l][r] = 0;
            }
    }
    __device__ __forceinline__ void f32()
    {
        if constexpr (WIDE) {
#pragma unroll
            for (int r = 0; r < R; ++r)
#pragma unroll
                for (int l = 0; l < L; ++l) {
                    a64[l][r] += a32[l][r];
                    a32[l][r] = 0;
                }
        }
    }
    /* one more flush of the level below the u32 lanes (n of k done): every
     * k of them the u32 lanes go into u64 (wide instances only) */
    __device__ __forceinline__ void step64(int &n, int k)
    {
        if constexpr (WIDE) {
            if (++n == k) {
                n = 0;
                f32();
            }
        }
    }
    /* k1 channels have been added since the last flush */
    __device__ __forceinline__ void flush(counts &c)
    {
        static_cast<ACC *>(this)->f16();
        step64(c.n2, c.k2);
    }
    __device__ __forceinline__ void stage_done() {}
    __device__ __forceinline__ void finish()
    {
        static_cast<ACC *>(this)->f16();
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

/* Two u32 sums of every word added, A of w & MASK and T of w >> SHIFT (the
 * adds of q8 and s16). */
template <int R, uint32_t MASK, int SHIFT>
struct two_sums {
    uint32_t A[R], T[R];
    __device__ __forceinline__ void zero2()
    {
#pragma unroll
        for (int r = 0; r < R; ++r)
            A[r] = T[r] = 0;
    }
    __device__ __forceinline__ void add(int r, uint32_t w)
    {
        A[r] += w & MASK;
        T[r] += w >> SHIFT;
    }
    __device__ __forceinline__ void add2(int r, uint32_t w0, uint32_t w1)
    {
        A[r] += (w0 & MASK) + (w1 & MASK);
        T[r] += (w0 >> SHIFT) + (w1 >> SHIFT);
    }
};

/* q4: whole words add into 8-bit lanes (a8), split every k1 channels into
 * two words of 16-bit lane pairs (lanes 0 and 2, lanes 1 and 3), which go
 * into u32 lanes every k2 splits, and in the wide instances the u32 lanes
 * into u64 every k3 of those. */
template <int R, bool WIDE>
struct acc_q4 : lanes32<acc_q4<R, WIDE>, 4, R, WIDE> {
    using lanes32<acc_q4, 4, R, WIDE>::a32;
    uint32_t a8[R], a16[2][R];
    __device__ __forceinline__ void zero()
    {
        this->zero32();
#pragma unroll
        for (int r = 0; r < R; ++r)
            a8[r] = a16[0][r] = a16[1][r] = 0;
    }
    __device__ __forceinline__ void add(int r, uint32_t w) { a8[r] += w; }
    __device__ __forceinline__ void add2(int r, uint32_t w0, uint32_t w1) { a8[r] += w0 + w1; }
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
    /* k1 channels have been added since the last flush */
    __device__ __forceinline__ void flush(counts &c)
    {
        split();
        if (++c.n2 == c.k2) {
            c.n2 = 0;
            f16();
            this->step64(c.n3, c.k3);
        }
    }
    __device__ __forceinline__ void finish()
    {
        split();
        f16();
        this->f32();
    }
};

/* q8: a word's lanes b0..b3 (8 bits each) go into two u32 sums per add,
 *   A += w & 0x00FF00FF   (b0 + 2^16 b2: two 16-bit fields)
 *   T += w >> 8           (b1 + 2^8 b2 + 2^16 b3)
 * three operations per word where splitting into two 16-bit lane pairs took
 * five.  After k channels with k * v * 65793 < 2^32 (v the largest lane
 * value) neither sum has wrapped and every lane sum Li is below 2^16, so
 *   L0 = A & 0xFFFF, L2 = A >> 16, T - 2^8 L2 = L1 + 2^16 L3 (L1 < 2^16)
 * recovers all four exactly; f16 adds them to the u32 lanes every k1
 * channels, and the wide instances those into u64 every k2 of those. */
template <int R, bool WIDE>
struct acc_q8 : lanes32<acc_q8<R, WIDE>, 4, R, WIDE>, two_sums<R, 0x00FF00FFu, 8> {
    using lanes32<acc_q8, 4, R, WIDE>::a32;
    using two_sums<R, 0x00FF00FFu, 8>::A;
    using two_sums<R, 0x00FF00FFu, 8>::T;
    __device__ __forceinline__ void zero()
    {
        this->zero32();
        this->zero2();
    }
    __device__ __forceinline__ void f16()
    {
#pragma unroll
        for (int r = 0; r < R; ++r) {
            const uint32_t l2 = A[r] >> 16, u = T[r] - (l2 << 8);
            a32[0][r] += A[r] & 0xFFFFu;
            a32[2][r] += l2;
            a32[1][r] += u & 0xFFFFu;
            a32[3][r] += u >> 16;
            A[r] = T[r] = 0;
        }
    }
};

/* p16: two 16-bit lanes summed in place, split into u32 lanes every k1
 * channels, those into u64 every k2 splits (wide). */
template <int R, bool WIDE>
struct acc_p16 : lanes32<acc_p16<R, WIDE>, 2, R, WIDE> {
    using lanes32<acc_p16, 2, R, WIDE>::a32;
    uint32_t a16[R];
    __device__ __forceinline__ void zero()
    {
        this->zero32();
#pragma unroll
        for (int r = 0; r < R; ++r)
            a16[r] = 0;
    }
    __device__ __forceinline__ void add(int r, uint32_t w) { a16[r] += w; }
    __device__ __forceinline__ void add2(int r, uint32_t w0, uint32_t w1) { a16[r] += w0 + w1; }
    __device__ __forceinline__ void f16()
    {
#pragma unroll
        for (int r = 0; r < R; ++r) {
            a32[0][r] += a16[r] & 0xFFFFu;
            a32[1][r] += a16[r] >> 16;
            a16[r] = 0;
        }
    }
};

/* s16: two 16-bit lanes split into two u32 sums per add (lane 0: w & 0xFFFF,
 * lane 1: w >> 16); the wide instances move them into u64 every k1 channels. */
template <int R, bool WIDE>
struct acc_s16 : two_sums<R, 0xFFFFu, 16> {
    using two_sums<R, 0xFFFFu, 16>::A;
    using two_sums<R, 0xFFFFu, 16>::T;
    static constexpr bool counted = WIDE;
    unsigned long long a64[WIDE ? 2 : 1][WIDE ? R : 1];
    __device__ __forceinline__ void zero()
    {
        this->zero2();
        if constexpr (WIDE) {
#pragma unroll
            for (int r = 0; r < R; ++r)
                a64[0][r] = a64[1][r] = 0;
        }
    }
    __device__ __forceinline__ void flush(counts &)
    {
        if constexpr (WIDE) {
#pragma unroll
            for (int r = 0; r < R; ++r) {
                a64[0][r] += A[r];
                a64[1][r] += T[r];
                A[r] = T[r] = 0;
            }
        }
    }
    __device__ __forceinline__ void stage_done() {}
    __device__ __forceinline__ void finish()
    {
        counts c = {};
        flush(c);
    }
    __device__ __forceinline__ double sum(int l, int r) const
    {
        if constexpr (WIDE)
            return (double)a64[l][r];
        else
            return (double)(l ? T[r] : A[r]);
    }
};

/* w32: one u32 sum per word, into u64 every k1 channels (wide). */
template <int R, bool WIDE>
struct acc_w32 {
    static constexpr bool counted = WIDE;
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
    __device__ __forceinline__ void add2(int r, uint32_t w0, uint32_t w1) { a32[r] += w0 + w1; }
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
    __device__ __forceinline__ void flush(counts &) { f32(); }
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
    static constexpr bool counted = false;
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
    /* one channel after the other: the CPU kernel's order of float additions */
    __device__ __forceinline__ void add2(int r, uint32_t w0, uint32_t w1)
    {
        af[r] += __uint_as_float(w0);
        af[r] += __uint_as_float(w1);
    }
    __device__ __forceinline__ void flush(counts &) {}
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
template <int R, bool WIDE> struct acc_of<DD_S16, R, WIDE> { using type = acc_s16<R, WIDE>; };
template <int R, bool WIDE> struct acc_of<DD_W32, R, WIDE> { using type = acc_w32<R, WIDE>; };
template <int R, bool WIDE> struct acc_of<DD_F32, R, WIDE> { using type = acc_f32<R, WIDE>; };

} // namespace xcdd

#endif
