/* accel_gpu_fronts_hd.h: internal to optimized/gpu: the order in which the
 * device's harmonic sums (k_sums, accel_gpu_sums.cu) visit the fundamentals,
 * written once for nvcc and the host C compiler (core/base/xc_hd.h) so that
 * a host test (tests/test_accel_gpu_fronts.c) can check that every
 * fundamental is visited exactly once.
 *
 * Why an order: the 3/4 harmonic of fundamental column i is column
 * round(3 i / 4) of the same plane, read again from DRAM when the two reads
 * are far apart in time (the sums read about 1.9 planes from DRAM with rows
 * swept one after the other).  So the top range [ilo, iend) is cut into
 * fronts whose bounds shrink by 3/4 from the top down (lo[k-1] =
 * round(3 lo[k] / 4)), and all fronts are swept together in S steps: step
 * s visits the s-th S-th of every front, so the 3/4 harmonics of front k's
 * columns at step s are front k-1's columns at the same step (within a
 * column), read as fundamentals by blocks close in the launch order, while
 * they are still in L2.  The 1/2 and 1/4 harmonics (2 and 4 are not powers
 * of 4/3) still come from DRAM.  A block is one step of one template's row
 * (blockIdx = step x ntempl + template): blocks are dispatched roughly in
 * index order, which puts a step's rows, and the rows their 3/4 harmonics
 * fall in (the templates of z' = 3 z / 4, at most a quarter of the rows
 * away), on the device together.  Only the order changes: each point's sums
 * are the same additions in the same order. */
#ifndef XC_ACCEL_GPU_FRONTS_HD_H
#define XC_ACCEL_GPU_FRONTS_HD_H

#include <limits.h>

#include "core/base/xc_hd.h"

#define XC_SUMS_MAXF 32     /* fronts at most: (4/3)^31 = 7 500, so the paper's 4.7 M columns go down to 630 */
#define XC_SUMS_MINW 64     /* no front narrower than this: below it the rest of the range is one front */
#define XC_SUMS_COLS 4096   /* columns a step (all fronts together): a block's points, 16 a thread */
#define XC_SUMS_THREADS 256 /* a block's threads */
#define XC_SUMS_UNROLL 4    /* a thread's points loaded together, XC_SUMS_THREADS apart */

typedef struct {
    long lo[XC_SUMS_MAXF + 1];   /* front k is [lo[k], lo[k+1]); lo[0] = ilo, lo[nf] = iend */
    int nf;
    long nstep;                  /* S */
} xc_sums_fronts;

/* The fronts and steps of the top range [ilo, iend) (iend > ilo >= 0) for
 * ntempl templates: at most INT_MAX blocks (S ntempl), so very long ranges
 * get more than XC_SUMS_COLS columns a step. */
static inline void xc_sums_fronts_make(xc_sums_fronts *F, long ilo, long iend, int ntempl)
{
    long b[XC_SUMS_MAXF + 1];
    int n = 0;
    b[n++] = iend;
    for (long cur = iend; n < XC_SUMS_MAXF;) {
        long nxt = (3 * cur + 2) / 4;   /* round(3 cur / 4), as sub_index rounds the 3/4 harmonic */
        if (nxt <= ilo || cur - nxt < XC_SUMS_MINW)
            break;
        b[n++] = nxt;
        cur = nxt;
    }
    b[n++] = ilo;
    F->nf = n - 1;
    for (int k = 0; k < n; k++)
        F->lo[k] = b[n - 1 - k];
    long S = (iend - ilo + XC_SUMS_COLS - 1) / XC_SUMS_COLS, most = INT_MAX / (ntempl > 0 ? ntempl : 1);
    F->nstep = S < 1 ? 1 : S > most ? most : S;
}

/* Front k's columns at step s: [*c0, *c0 + *n). */
static inline XC_HD void xc_sums_span(const xc_sums_fronts *F, long s, int k, long *c0, long *n)
{
    const long L = F->lo[k + 1] - F->lo[k];
    const long a = F->lo[k] + s * L / F->nstep, e = F->lo[k] + (s + 1) * L / F->nstep;
    *c0 = a;
    *n = e - a;
}

/* The column of a step's point f, the fronts' spans laid end to end
 * (off[k] points before front k; off[nf] all of them), f < off[nf]; *k is
 * the front of the caller's previous f, which must not be larger. */
static inline XC_HD long xc_sums_col(const long *c0, const long *off, long f, int *k)
{
    while (f >= off[*k + 1])
        ++*k;
    return c0[*k] + (f - off[*k]);
}

#endif
