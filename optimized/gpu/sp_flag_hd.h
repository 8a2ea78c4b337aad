/* sp_flag_hd.h: the float filter's box estimates (k_sp_flag,
 * sp_gpu_boxes.cu), compiled by the host compiler and by nvcc alike
 * (core/base/xc_hd.h), so a host test checks the same code the kernel runs.
 *
 * The filter's estimate of a box's S - B is E(u, w) = fl(F[u + w] - F[u]),
 * F the tile's float prefix sums.  A thread takes the box starts four at a
 * time, u0 .. u0 + 3 with u0 a multiple of 4, so that each group's F[u0 ..]
 * and F[u0 + w ..] come from aligned 16-byte loads: one load for the ends
 * where w is a multiple of 4, two (the eight values from u0 + w - r, r =
 * w mod 4) otherwise; a load a box was most of the instructions a box
 * cost (on an H200, the filter of one range of 1500 trials at 512 channels:
 * 0.94 G warp instructions and 1.02 ms where a box at a time took 1.15 G and
 * 1.26 ms, Nsight Compute).  The estimates, and so the tiles listed, are the
 * ones a box at a time gives. */
#ifndef XC_SP_FLAG_HD_H
#define XC_SP_FLAG_HD_H

#include <math.h>

#include "core/base/xc_hd.h"

/* Box starts a group holds. */
#define XC_SP_FLAG_GROUP 4

/* max(best, E(u0 + i, w)) over i < nvalid (at most 4): f = F[u0 .. u0 + 3],
 * a = F[u0 + w - r .. u0 + w - r + 3] and b the four after them, r = w mod 4
 * (b is not read where r = 0).  E is one rounding of the difference, as a
 * box at a time takes it; the maximum of finite E is one of them. */
XC_HD static inline float xc_sp_flag_max4(const float *f, const float *a, const float *b, unsigned r, unsigned nvalid,
                                          float best)
{
    for (unsigned i = 0; i < XC_SP_FLAG_GROUP; i++) {
        const float end = i + r < XC_SP_FLAG_GROUP ? a[i + r] : b[i + r - XC_SP_FLAG_GROUP];
        const float e = end - f[i];
        if (i < nvalid)
            best = fmaxf(best, e);
    }
    return best;
}

/* Whether a box of the group of box starts u0 .. u0 + nvalid - 1 (u0 a
 * multiple of 4, nvalid at most 4) has E(u, w) >= cut, F the tile's prefix
 * sums: which of a thread's groups listed a tile, asked only where their
 * largest E reached the cut. */
XC_HD static inline int xc_sp_flag_group_hit(const float *F, unsigned u0, unsigned nvalid, unsigned w, float cut)
{
    const unsigned r = w % XC_SP_FLAG_GROUP, q = w - r;
    return xc_sp_flag_max4(F + u0, F + u0 + q, F + u0 + q + XC_SP_FLAG_GROUP, r, nvalid, -INFINITY) >= cut;
}

/* The largest E(u, w) over the box starts u < uend of a tile, group by
 * group as the kernel takes them (F holding at least uend + w + 8 values
 * past a multiple of 4): what the kernel's threads find together. */
XC_HD static inline float xc_sp_flag_width_max(const float *F, unsigned uend, unsigned w)
{
    const unsigned r = w % XC_SP_FLAG_GROUP, q = w - r;
    float best = -INFINITY;
    for (unsigned u0 = 0; u0 < uend; u0 += XC_SP_FLAG_GROUP) {
        const unsigned nv = uend - u0 < XC_SP_FLAG_GROUP ? uend - u0 : XC_SP_FLAG_GROUP;
        best = xc_sp_flag_max4(F + u0, F + u0 + q, F + u0 + q + XC_SP_FLAG_GROUP, r, nv, best);
    }
    return best;
}

#endif
