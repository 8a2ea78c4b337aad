/* test_accel_gpu_fronts.c: the order of the device's harmonic sums
 * (optimized/gpu/accel_gpu_fronts_hd.h), its host build, walked as the
 * kernel (k_sums, optimized/gpu/accel_gpu_sums.cu) walks it:
 *  - the resident grid's blocks, each stepping through its items with
 *    xc_sums_next, take every (step, template) item exactly once, block b
 *    in round j item b + j G, for grids of one block, fewer blocks than
 *    templates, more, and one an item;
 *  - within a step, every thread's points through the host's step table
 *    (xc_sums_table, xc_sums_col): every column of [ilo, iend) exactly
 *    once, none outside; a step's points fit the kernel's int counters;
 *  - the fronts' bounds shrink by the 3/4 harmonic's rounding;
 *  - the 3/4 harmonic of each column of a front above the lowest two is
 *    front k-1's column at the same step or one beside it (what makes the
 *    order find it in L2; in fronts of fewer columns than steps, within the
 *    steps one column spans), the rounding edges (column lo[k]) excepted.
 * No device needed. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

#include "optimized/gpu/accel_gpu_fronts_hd.h"
#include "tests/xc_assert.h"
#include "tests/xc_test.h"

/* The step of front k that holds column j (j in the front). */
static long step_of(const xc_sums_fronts *F, int k, long j)
{
    const long L = F->lo[k + 1] - F->lo[k];
    long s = (j - F->lo[k]) * F->nstep / L;
    long c, n;
    for (;;) {
        xc_sums_span(F, s, k, &c, &n);
        if (j < c)
            s--;
        else if (j >= c + n)
            s++;
        else
            return s;
    }
}

/* How many steps apart a column of front k+1 and its 3/4 harmonic in front
 * k may be: one, or, in a front of fewer columns than steps (a column every
 * S / L steps), the bounds' one-column roundings make S / L + 1. */
static long near(const xc_sums_fronts *F, int k)
{
    const long L = F->lo[k + 1] - F->lo[k];
    return L >= F->nstep ? 1 : F->nstep / L + 1;
}

/* The grid of G blocks over the items of F (ntempl templates), as the kernel
 * steps: the number of failures (printed). */
static int walk_items(const xc_sums_fronts *F, int ntempl, long G)
{
    const long items = F->nstep * (long)ntempl;
    unsigned char *seen = calloc((size_t)items, 1);
    CU_ASSERT_FATAL(seen != NULL);
    const int gq = (int)(G / ntempl), gr = (int)(G % ntempl);
    long twice = 0, wrong = 0, missed = 0;
    for (long b = 0; b < G; b++) {
        int s = (int)(b / ntempl), t = (int)(b % ntempl);
        for (long j = 0; s < F->nstep; xc_sums_next(&s, &t, gq, gr, ntempl), j++) {
            const long it = (long)s * ntempl + t;
            if (t < 0 || t >= ntempl || it != b + j * G) {
                wrong++;
                break;
            }
            twice += seen[it]++ > 0;
        }
    }
    for (long it = 0; it < items; it++)
        missed += !seen[it];
    free(seen);
    if (twice || wrong || missed)
        printf("\n  %ld steps x %d templates, %ld blocks: %ld items twice, %ld out of order, %ld missed", F->nstep,
               ntempl, G, twice, wrong, missed);
    return (twice || wrong || missed) ? 1 : 0;
}

/* One step's points as the threads take them through the table; seen and
 * the counts of failures updated. */
static void walk_step(const xc_sums_fronts *F, const xc_sums_entry *trow, long s, unsigned char *seen,
                      long *outside, long *twice, long *far, long *edge)
{
    const long ilo = F->lo[0], iend = F->lo[F->nf];
    const int total = (int)trow[F->nf - 1].end;
    for (int tid = 0; tid < XC_SUMS_THREADS; tid++) {
        int k = 0;
        for (int f0 = tid; f0 < total; f0 += XC_SUMS_UNROLL * XC_SUMS_THREADS)
            for (int u = 0; u < XC_SUMS_UNROLL; u++) {
                const int f = f0 + u * XC_SUMS_THREADS;
                if (f >= total)
                    continue;
                const long i = xc_sums_col(trow, f, &k);
                if (i < ilo || i >= iend) {
                    ++*outside;
                    continue;
                }
                *twice += seen[i - ilo]++ > 0;
                if (k < 2)
                    continue;
                const long j = (3 * i + 2) / 4;   /* the kernel's sub_index(i, 3, 2) */
                if (j == F->lo[k])
                    ++*edge;
                else if (j < F->lo[k - 1] || j >= F->lo[k] || labs(step_of(F, k - 1, j) - s) > near(F, k - 1))
                    ++*far;
            }
    }
}

/* Walks [ilo, iend) for ntempl templates; returns the number of failures
 * (printed). */
static int walk(long ilo, long iend, int ntempl)
{
    xc_sums_fronts F;
    xc_sums_fronts_make(&F, ilo, iend, ntempl);
    int bad = 0;
    if (F.nf < 1 || F.nf > XC_SUMS_MAXF || F.lo[0] != ilo || F.lo[F.nf] != iend || F.nstep < 1 ||
        F.nstep > INT_MAX / ntempl || !xc_sums_fronts_ok(&F)) {
        printf("\n  [%ld, %ld) x %d: %d fronts %ld..%ld, %ld steps", ilo, iend, ntempl, F.nf, F.lo[0], F.lo[F.nf],
               F.nstep);
        return 1;
    }
    for (int k = 0; k < F.nf; k++)
        if (F.lo[k + 1] <= F.lo[k] || (k >= 1 && F.lo[k] != (3 * F.lo[k + 1] + 2) / 4)) {
            printf("\n  [%ld, %ld): front %d is [%ld, %ld), expected lo = round(3/4 of %ld)", ilo, iend, k, F.lo[k],
                   F.lo[k + 1], F.lo[k + 1]);
            bad++;
        }
    const size_t n = (size_t)F.nstep * (size_t)F.nf;
    xc_sums_entry *tab = malloc(n * sizeof *tab);
    unsigned char *seen = calloc((size_t)(iend - ilo), 1);
    CU_ASSERT_FATAL(tab != NULL && seen != NULL);
    xc_sums_table(&F, tab);
    long outside = 0, twice = 0, far = 0, edge = 0;
    for (long s = 0; s < F.nstep; s++)
        walk_step(&F, tab + s * F.nf, s, seen, &outside, &twice, &far, &edge);
    long missed = 0;
    for (long i = 0; i < iend - ilo; i++)
        missed += !seen[i];
    free(seen);
    free(tab);
    if (outside || twice || missed || far || edge > F.nf) {
        printf("\n  [%ld, %ld) x %d (%d fronts, %ld steps): %ld outside, %ld twice, %ld missed, %ld 3/4 harmonics "
               "more than a step away, %ld at a front's edge",
               ilo, iend, ntempl, F.nf, F.nstep, outside, twice, missed, far, edge);
        bad++;
    }
    /* grids as the launch makes them (min(resident blocks, items)); the
     * items of the capped case (INT_MAX / 2 templates) are too many to mark */
    const long items = F.nstep * (long)ntempl;
    static const long grids[] = {1, 3, 1056, 1201, 1202, 8448};
    for (size_t g = 0; items <= (1L << 24) && g < sizeof grids / sizeof *grids; g++)
        bad += walk_items(&F, ntempl, grids[g] < items ? grids[g] : items);
    if (items <= (1L << 24))
        bad += walk_items(&F, ntempl, items);
    return bad;
}

XC_TEST(test_fronts_cover, "fronts_cover")
{
    /* the paper's plane (2 343 750 bins: 4.69 M half-bins), zmax 1200's 1201
     * templates; short ranges with one front, a rest front, many steps of
     * few columns; a template count that caps the steps at one */
    static const struct {
        long ilo, iend;
        int ntempl;
    } c[] = {{40, 4687500, 1201}, {2, 4687500, 1201}, {0, 1, 1}, {5, 6, 3},     {0, 100, 1},
             {1000, 1200, 7},     {3, 70001, 41},     {20, 8198, 201},  {0, 100000, INT_MAX / 2}};
    int bad = 0;
    for (size_t n = 0; n < sizeof c / sizeof *c; n++)
        bad += walk(c[n].ilo, c[n].iend, c[n].ntempl);
    xc_sums_fronts F;
    xc_sums_fronts_make(&F, 40, 4687500, 1201);
    printf("\n  the paper's range: %d fronts, lowest geometric bound %ld, %ld steps (%ld items)", F.nf, F.lo[1],
           F.nstep, F.nstep * 1201);
    CU_ASSERT_EQUAL(bad, 0);
}

XC_TEST_MAIN("accel_gpu_fronts")
