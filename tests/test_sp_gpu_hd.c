/* Host checks of the code the GPU single-pulse kernels share with the host
 * (optimized/gpu/sp_flag_hd.h); host code only, so they run
 * with or without CUDA.
 *
 * The float filter's box estimates (k_sp_flag): taken four box starts a
 * group from aligned loads, the largest E(u, w) = fl(F[u + w] - F[u]) over a
 * tile's starts u < uend must be the one a box at a time gives, bit for
 * bit, for every residue of w mod 4, narrow and wide widths, full tiles and
 * tiles cut short at any start (the groups' masks), on prefix sums of noise,
 * of a burst and of equal values.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "optimized/gpu/sp_flag_hd.h"
#include "tests/xc_test.h"

#define TILE 4096u
#define WMAX 2048u

/* The largest fl(F[u + w] - F[u]) over u < uend, a box at a time. */
static float naive_max(const float *F, unsigned uend, unsigned w)
{
    float best = -INFINITY;
    for (unsigned u = 0; u < uend; u++) {
        const float e = F[u + w] - F[u];
        best = e > best ? e : best;
    }
    return best;
}

/* F[0] = 0, F[i + 1] = F[i] + y_i in float for i < len, y of the kind;
 * past len, values that no box may read (a large constant). */
static void fill(float *F, size_t len, size_t have, int kind, uint64_t seed)
{
    uint64_t s = seed * 0x9E3779B97F4A7C15ull | 1;
    F[0] = 0.0f;
    for (size_t i = 0; i < len; i++) {
        s ^= s >> 12, s ^= s << 25, s ^= s >> 27;
        const double g = (double)((s * 2685821657736338717ull) >> 11) * 0x1p-53 - 0.5;
        float y = (float)(10.0 * g);
        if (kind == 1 && i >= 1500 && i < 1530)
            y += 40.0f;   /* a burst */
        if (kind == 2)
            y = 1.0f;   /* equal values: ties among the E */
        F[i + 1] = F[i] + y;
    }
    for (size_t i = len + 1; i < have; i++)
        F[i] = 1e30f;
}

XC_TEST(test_sp_flag_groups, "sp_flag_groups")
{
    const size_t have = TILE + WMAX + 8;
    float *F = malloc(have * sizeof *F);
    CU_ASSERT_PTR_NOT_NULL_FATAL(F);
    static const unsigned widths[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 14, 16, 20, 30, 45, 64, 70, 100, 127, 128, 150,
                                      1023, 1024, 2047, 2048};
    static const unsigned uends[] = {TILE, TILE - 1, TILE - 2, TILE - 3, TILE - 4, 1, 2, 3, 4, 5, 1000, 2049};
    int bad = 0;
    for (int kind = 0; kind < 3; kind++)
        for (size_t i = 0; i < XC_NCASES(widths); i++)
            for (size_t j = 0; j < XC_NCASES(uends); j++) {
                const unsigned w = widths[i], uend = uends[j];
                /* a row's last tile: its prefix sums end at the last box's end */
                fill(F, uend + w - 1, have, kind, 7 * i + j);
                const float got = xc_sp_flag_width_max(F, uend, w), want = naive_max(F, uend, w);
                if (memcmp(&got, &want, sizeof got) && bad++ < 5)
                    fprintf(stderr, "  kind %d, w %u, uend %u: observed %.9g, expected %.9g, tolerance 0\n", kind, w,
                            uend, (double)got, (double)want);
                CU_ASSERT_EQUAL(memcmp(&got, &want, sizeof got), 0);
            }
    free(F);
}

/* A group with no valid start leaves the running maximum as it was; one
 * with a single valid start takes that box only. */
XC_TEST(test_sp_flag_masks, "sp_flag_masks")
{
    const float f[4] = {0, 1, 2, 3}, a[4] = {10, 20, 30, 40}, b[4] = {50, 60, 70, 80};
    CU_ASSERT_EQUAL(xc_sp_flag_max4(f, a, b, 0, 0, -5.0f), -5.0f);
    CU_ASSERT_EQUAL(xc_sp_flag_max4(f, a, b, 0, 1, -5.0f), 10.0f);
    CU_ASSERT_EQUAL(xc_sp_flag_max4(f, a, b, 3, 1, -5.0f), 40.0f);   /* r = 3: F[u0 + w] = a[3] */
    CU_ASSERT_EQUAL(xc_sp_flag_max4(f, a, b, 3, 2, -5.0f), 49.0f);   /* b[0] - f[1] */
    CU_ASSERT_EQUAL(xc_sp_flag_max4(f, a, b, 2, 4, -5.0f), 57.0f);   /* b[1] - f[3] */
}

XC_TEST_MAIN("sp_gpu_hd")
