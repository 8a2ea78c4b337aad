/* accel_gpu_fronts_hd.h: internal to optimized/gpu: the order in which the
 * device's harmonic sums (k_sums, accel_gpu_sums.cu) visit the fundamentals,
 * written once for nvcc and the host C compiler (core/base/xc_hd.h) so that
 * a host test (tests/test_accel_gpu_fronts.c) walks exactly what the
 * kernel's blocks and threads walk.
 *
 * Why an order: the 3/4 harmonic of fundamental column i is column
 * round(3 i / 4) of the same plane, read again from DRAM when the two reads
 * are far apart in time (the sums read about 1.9 planes from DRAM with rows
 * swept one after the other).  So the top range [ilo, iend) is cut into
 * fronts whose bounds shrink by 3/4 from the top down (lo[k-1] =
 * round(3 lo[k] / 4)), and all fronts are swept together in S steps: step
 * s visits the s-th S-th of every front, so the 3/4 harmonics of front k's
 * columns at step s are front k-1's columns at the same step (within a
 * column), read as fundamentals close in time, while they are still in L2.
 * The 1/2 and 1/4 harmonics (2 and 4 are not powers of 4/3) still come
 * from DRAM.  An item is one step of one template's row, items numbered
 * step x ntempl + template: consecutive items are a step's rows, and the
 * rows their 3/4 harmonics fall in (the templates of z' = 3 z / 4, at most
 * a quarter of the rows away) are a few hundred items on.
 *
 * Why a resident grid: with a block launched per item (4096 points), each
 * block's launch, span arithmetic (64-bit divisions), barrier and drain
 * cost more than the bytes the order saved (measured, docs/PERFORMANCE.md).
 * So the grid is the blocks the device holds at once, G of them, block b
 * taking items b, b + G, b + 2G, ... (round j of the grid covers items
 * jG .. jG + G - 1: the order's window in L2 is the same), stepping from
 * one item to the next without a division (xc_sums_next), and each step's
 * spans read from a table the host builds once per search
 * (xc_sums_table).  Only the order changes: each point's sums are the same
 * additions in the same order. */
#ifndef XC_ACCEL_GPU_FRONTS_HD_H
#define XC_ACCEL_GPU_FRONTS_HD_H

#include <limits.h>

#include "core/base/xc_hd.h"

#define XC_SUMS_MAXF 32     /* fronts at most: (4/3)^31 = 7 500, so the paper's 4.7 M columns go down to 630 */
#define XC_SUMS_MINW 64     /* no front narrower than this: below it the rest of the range is one front */
#define XC_SUMS_COLS 4096   /* columns a step (all fronts together): an item's points, 16 a thread */
#define XC_SUMS_THREADS 256 /* a block's threads */
#define XC_SUMS_UNROLL 4    /* a thread's points loaded together, XC_SUMS_THREADS apart */
#define XC_SUMS_MAXCOLS (INT_MAX / 2)   /* a step's points at most (int counters in the kernel) */

typedef struct {
    long lo[XC_SUMS_MAXF + 1];   /* front k is [lo[k], lo[k+1]); lo[0] = ilo, lo[nf] = iend */
    int nf;
    long nstep;                  /* S */
} xc_sums_fronts;

/* The fronts and steps of the top range [ilo, iend) (iend > ilo >= 0) for
 * ntempl templates: at most INT_MAX items (S ntempl), so very long ranges
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

/* Whether a step's points fit the kernel's int counters: always, unless the
 * range times the templates passes about 2^61 points (a plane of exabytes,
 * which no device holds). */
static inline int xc_sums_fronts_ok(const xc_sums_fronts *F)
{
    return (F->lo[F->nf] - F->lo[0]) / F->nstep + XC_SUMS_MAXF < XC_SUMS_MAXCOLS;
}

/* Front k's columns at step s: [*c0, *c0 + *n). */
static inline void xc_sums_span(const xc_sums_fronts *F, long s, int k, long *c0, long *n)
{
    const long L = F->lo[k + 1] - F->lo[k];
    const long a = F->lo[k] + s * L / F->nstep, e = F->lo[k] + (s + 1) * L / F->nstep;
    *c0 = a;
    *n = e - a;
}

/* A step's table entry for front k: end, the points of the step's fronts
 * 0..k laid end to end (front nf-1's: the step's points, at most
 * XC_SUMS_MAXCOLS), and dlt, what turns a point of front k into its column
 * (the column is f + dlt).  One 16-byte load in the kernel. */
typedef struct {
    long end, dlt;
} xc_sums_entry;

/* The table of every step (nstep x nf entries, step s's at s nf). */
static inline void xc_sums_table(const xc_sums_fronts *F, xc_sums_entry *tab)
{
    for (long s = 0; s < F->nstep; s++) {
        long before = 0;
        for (int k = 0; k < F->nf; k++) {
            long c0, n;
            xc_sums_span(F, s, k, &c0, &n);
            tab[s * F->nf + k].dlt = c0 - before;
            before += n;
            tab[s * F->nf + k].end = before;
        }
    }
}

/* The column of a step's point f from its table row, f < the step's
 * points; *k is the front of the caller's previous f, which must not be
 * larger. */
static inline XC_HD long xc_sums_col(const xc_sums_entry *row, int f, int *k)
{
    xc_sums_entry e = row[*k];
    while (f >= e.end)
        e = row[++*k];
    return f + e.dlt;
}

/* The item G on from (*s, *t), G = gq ntempl + gr (0 <= gr < ntempl), items
 * numbered s ntempl + t (at most INT_MAX of them). */
static inline XC_HD void xc_sums_next(int *s, int *t, int gq, int gr, int ntempl)
{
    *s += gq;
    *t += gr;
    if (*t >= ntempl) {
        *t -= ntempl;
        ++*s;
    }
}

#endif
