/* sp_count_hd.h: exact order statistics of integer-valued rows by counting
 * (k_sp_medians, k_sp_mad, sp_gpu_count.cuh), compiled by the host compiler
 * and by nvcc alike (core/base/xc_hd.h), so a host test emulates the passes
 * with the code the kernels run.
 *
 * A plane dedispersed from integer samples holds integers (sums of 8- or
 * 16-bit samples), exactly representable in float below 2^24.  The rank k
 * of such values is found by counting instead of selecting: a pass counts
 * the values under a range [lo, hi] of integers and histograms those inside
 * it into XC_SP_CNT_NB bins of 2^s consecutive integers (a radix select, as
 * in Knuth, TAOCP vol. 3, 5.2.5, over the values' offsets from lo); the bin
 * holding the rank becomes the next range, until a bin is one integer.  The
 * first range is a bracket around the rank's estimate from a sorted sample
 * of XC_SP_CNT_NS values (Floyd and Rivest, CACM 18(3), 1975), so on noise
 * a block of integers of spread up to about 5000 takes one pass; a range
 * that misses the rank becomes every value the row may hold.  The values
 * found are the rows' own integers, so the medians are the reference's
 * doubles ((a + b) / 2 of integers is exact), and the deviations
 * |x - m_b|, with m_b an integer or half of one, are exact halves of the
 * integers |2x - 2m_b|, whose median gives the reference's MAD. */
#ifndef XC_SP_COUNT_HD_H
#define XC_SP_COUNT_HD_H

#include <math.h>
#include <stdint.h>

#include "core/base/xc_hd.h"

#define XC_SP_CNT_NB 4096   /* bins of a pass (16 KiB of counts) */
#define XC_SP_CNT_NS 256    /* sample values of the first bracket: one a thread */
#define XC_SP_CNT_SW 40     /* the bracket's half width, sample ranks (5 standard deviations of 256 draws) */
/* Every value a block median's row may hold (integers under 2^24 in
 * magnitude), and every doubled deviation of such a row. */
#define XC_SP_CNT_VMAX 0xffffff
#define XC_SP_CNT_DMAX 0x4000000
/* Passes after which a selection gives up (never on integer rows: a
 * bracket, the full range, two narrowings of its 26 bits, the ends). */
#define XC_SP_CNT_PASSES 8

/* Whether v is an integer of magnitude under 2^24 (not NaN, not infinite):
 * such a row's values, offsets and doubled deviations are exact in 32-bit
 * integers. */
XC_HD static inline int xc_sp_cnt_int(float v) { return (fabsf(v) < 0x1p24f) & (v == truncf(v)); }

/* The least s that puts every offset 0 .. span in one of XC_SP_CNT_NB bins
 * of 2^s. */
XC_HD static inline unsigned xc_sp_cnt_shift(uint32_t span)
{
    unsigned s = 0;
    while ((span >> s) >= (uint32_t)XC_SP_CNT_NB)
        s++;
    return s;
}

/* 2m as an integer, for m a median of integers under 2^24 in magnitude (an
 * integer or half of one). */
XC_HD static inline int32_t xc_sp_cnt_twice(double m) { return (int32_t)(2.0 * m); }

/* |2x - m2|: twice the deviation of the integer x from the baseline m2 / 2. */
XC_HD static inline int32_t xc_sp_cnt_dev2(int32_t x, int32_t m2)
{
    const int32_t d = 2 * x - m2;
    return d < 0 ? -d : d;
}

/* The first range for rank k of N values from their sorted sample
 * smp[0 .. XC_SP_CNT_NS): XC_SP_CNT_SW sample ranks either side of the
 * rank's estimate, the full range's end where that passes the sample's. */
XC_HD static inline void xc_sp_cnt_bracket(const int32_t *smp, uint64_t N, uint64_t k, int32_t flo, int32_t fhi,
                                           int32_t *lo, int32_t *hi)
{
    const int64_t j = (int64_t)(k * XC_SP_CNT_NS / N), jl = j - XC_SP_CNT_SW, jh = j + 1 + XC_SP_CNT_SW;
    *lo = jl <= 0 ? flo : smp[jl];
    *hi = jh >= XC_SP_CNT_NS - 1 ? fhi : smp[jh];
}

/* What follows a pass over [lo, hi] with bins of 2^s, the ranks k0 <= k1
 * (k1 at most k0 + 1) in bins b0 <= b1: */
enum {
    XC_SP_CNT_DONE,     /* s = 0: the values are lo + b0 and lo + b1 */
    XC_SP_CNT_NARROW,   /* one bin of several integers: it is the next range, *nlo .. *nhi */
    XC_SP_CNT_ENDS      /* two bins of several integers: k0 is b0's largest value, k1 b1's least */
};

XC_HD static inline int xc_sp_cnt_next(int32_t lo, unsigned s, unsigned b0, unsigned b1, int32_t *nlo, int32_t *nhi)
{
    if (s == 0)
        return XC_SP_CNT_DONE;
    if (b0 != b1)
        return XC_SP_CNT_ENDS;
    *nlo = (int32_t)((uint32_t)lo + (b0 << s));
    *nhi = (int32_t)((uint32_t)*nlo + ((1u << s) - 1));
    return XC_SP_CNT_NARROW;
}

/* The median from the values of ranks (N - 1) / 2 and N / 2, as the
 * reference takes it: the middle value, or (a + b) / 2 in double. */
XC_HD static inline double xc_sp_cnt_mid(double a, double b, uint64_t N) { return N % 2 ? a : (a + b) / 2; }

#endif
