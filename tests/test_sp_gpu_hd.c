/* Host checks of the code the GPU single-pulse kernels share with the host
 * (optimized/gpu/sp_flag_hd.h, sp_select_hd.h); host code only, so they run
 * with or without CUDA.
 *
 * The float filter's box estimates (k_sp_flag): taken four box starts a
 * group from aligned loads, the largest E(u, w) = fl(F[u + w] - F[u]) over a
 * tile's starts u < uend must be the one a box at a time gives, bit for
 * bit, for every residue of w mod 4, narrow and wide widths, full tiles and
 * tiles cut short at any start (the groups' masks), on prefix sums of noise,
 * of a burst and of equal values.  A filter tile of four exact tiles lists
 * exactly the exact tiles that hold a box at or above the cut.
 *
 * The block medians' bracket test (k_sp_medians): float comparisons against
 * the values of the bracket's keys must count and keep exactly the samples
 * the keys' comparisons do, for signed zeros, subnormals, infinities, NaNs
 * of either sign and random bit patterns, against brackets of such keys. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "optimized/gpu/sp_flag_hd.h"
#include "optimized/gpu/sp_select_hd.h"
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

/* Floats worth a key each: zeros, subnormals, the extremes, infinities,
 * NaNs of both signs, then random bit patterns. */
static size_t some_floats(float *v, size_t n)
{
    static const uint32_t special[] = {0x00000000u, 0x80000000u, 0x00000001u, 0x80000001u, 0x007fffffu, 0x807fffffu,
                                       0x00800000u, 0x3f800000u, 0xbf800000u, 0x7f7fffffu, 0xff7fffffu, 0x7f800000u,
                                       0xff800000u, 0x7fc00000u, 0xffc00000u, 0x7f800001u, 0xff800001u, 0x42c80000u,
                                       0x42c80001u, 0x42c7ffffu};
    size_t k = 0;
    for (; k < XC_NCASES(special) && k < n; k++)
        v[k] = xc_sp_bits_float(special[k]);
    uint64_t s = 0x243F6A8885A308D3ull;
    for (; k < n; k++) {
        s ^= s >> 12, s ^= s << 25, s ^= s >> 27;
        const uint32_t u = (uint32_t)((s * 2685821657736338717ull) >> 32);
        /* half of them near 100, where noise planes' medians lie */
        v[k] = k % 2 ? xc_sp_bits_float(u) : xc_sp_bits_float(0x42c80000u + (u & 0xffffu) - 0x8000u);
    }
    return k;
}

/* The filter's tile of 16 ft box starts as k_sp_flag takes it with ft
 * threads (ft a multiple of 256): thread t's group j at u0 = 4 (t + ft j),
 * which lies in the tile of TILE (4 j ft) / TILE; a thread whose largest E
 * reaches the cut asks which of its groups did (xc_sp_flag_group_hit).  Bit
 * i of the result: the i-th tile of TILE listed by some thread. */
#define FGROUPS 4u
static unsigned kernel_hits(const float *F, unsigned ft, unsigned uend, unsigned w, float cut)
{
    const unsigned r = w % XC_SP_FLAG_GROUP, q = w - r;
    unsigned hits = 0;
    for (unsigned t = 0; t < ft; t++) {
        float best = -INFINITY;
        for (unsigned j = 0; j < FGROUPS; j++) {
            const unsigned u0 = (t + j * ft) * XC_SP_FLAG_GROUP;
            if (u0 >= uend)
                break;
            const unsigned nv = uend - u0 < XC_SP_FLAG_GROUP ? uend - u0 : XC_SP_FLAG_GROUP;
            best = xc_sp_flag_max4(F + u0, F + u0 + q, F + u0 + q + XC_SP_FLAG_GROUP, r, nv, best);
        }
        if (!(best >= cut))
            continue;
        for (unsigned j = 0; j < FGROUPS; j++) {
            const unsigned u0 = (t + j * ft) * XC_SP_FLAG_GROUP;
            if (u0 < uend && xc_sp_flag_group_hit(F, u0, uend - u0 < 4 ? uend - u0 : 4, w, cut))
                hits |= 1u << (j * XC_SP_FLAG_GROUP * ft / TILE);
        }
    }
    return hits;
}

/* Bit j: some box start u < uend of the j-th tile of TILE has
 * fl(F[u + w] - F[u]) >= cut, a box at a time. */
static unsigned naive_hits(const float *F, unsigned uend, unsigned w, float cut)
{
    unsigned hits = 0;
    for (unsigned u = 0; u < uend; u++)
        if (F[u + w] - F[u] >= cut)
            hits |= 1u << (u / TILE);
    return hits;
}

/* Every tile of TILE whose boxes reach the cut is listed, and no other:
 * noise with a burst in the second tile of TILE, cuts at each tile's
 * largest E (ties at the cut), above every E and below it, for full filter
 * tiles and ones cut short, filter blocks of 1024 threads (the kernel's),
 * 512 and 256. */
/* One filter tile of ft threads, width w, box starts below uend: noise and
 * a burst in the second tile of TILE, the tiles listed at each cut against
 * a box at a time; *bad counts the mismatches, *some the cuts that list
 * some of the tiles and not all.  Returns the cuts tried. */
static int subtile_case(float *F, size_t have, unsigned ft, unsigned w, unsigned uend, uint64_t seed, int *bad,
                        int *some)
{
    fill(F, uend + w - 1, have, 0, seed);
    for (unsigned t = 5000; t < 5040 && t + 1 < uend + w; t++)
        F[t + 1] += 40.0f * (float)(t - 4999);   /* a burst in the second tile */
    for (unsigned t = 5040; t + 1 < uend + w; t++)
        F[t + 1] += 1600.0f;
    float cuts[4 + 2];
    unsigned nc = 0;
    for (unsigned j = 0; j * TILE < uend; j++) {
        const unsigned e = (j + 1) * TILE < uend ? (j + 1) * TILE : uend;
        float best = -INFINITY;
        for (unsigned u = j * TILE; u < e; u++)
            best = F[u + w] - F[u] > best ? F[u + w] - F[u] : best;
        cuts[nc++] = best;
    }
    cuts[nc++] = 1e9f;
    cuts[nc++] = -1e9f;
    for (unsigned c = 0; c < nc; c++) {
        const unsigned got = kernel_hits(F, ft, uend, w, cuts[c]), want = naive_hits(F, uend, w, cuts[c]);
        *some += want != 0 && want != (1u << ((uend + TILE - 1) / TILE)) - 1;
        if (got != want && (*bad)++ < 5)
            fprintf(stderr, "  %u threads, w %u, uend %u, cut %.9g: observed tiles 0x%x, expected 0x%x, tolerance 0\n",
                    ft, w, uend, (double)cuts[c], got, want);
        CU_ASSERT_EQUAL(got, want);
    }
    return (int)nc;
}

/* Every tile of TILE whose boxes reach the cut is listed, and no other: cuts
 * at each tile's largest E (ties at the cut), above every E and below it,
 * for full filter tiles and ones cut short, filter blocks of 1024 threads
 * (the kernel's), 512 and 256. */
XC_TEST(test_sp_flag_subtiles, "sp_flag_subtiles")
{
    const size_t have = 4 * TILE + WMAX + 8;
    float *F = malloc(have * sizeof *F);
    CU_ASSERT_PTR_NOT_NULL_FATAL(F);
    static const unsigned widths[] = {1, 2, 3, 5, 16, 30, 64, 127, 1024, 2048};
    static const unsigned uends[] = {4 * TILE, 4 * TILE - 3, 3 * TILE + 1, 2 * TILE, 2 * TILE - 1, 5000, 7};
    static const unsigned fts[] = {1024, 512, 256};
    int bad = 0, cases = 0, some = 0;
    for (size_t f = 0; f < XC_NCASES(fts); f++)
        for (size_t i = 0; i < XC_NCASES(widths); i++)
            for (size_t k = 0; k < XC_NCASES(uends); k++) {
                const unsigned ftile = 16 * fts[f], uend = uends[k] < ftile ? uends[k] : ftile;
                cases += subtile_case(F, have, fts[f], widths[i], uend, 11 * i + k, &bad, &some);
            }
    CU_ASSERT(cases > 0);
    CU_ASSERT(some > 0);
    free(F);
}

XC_TEST(test_sp_select_keys, "sp_select_keys")
{
    enum { NV = 400 };
    float v[NV];
    some_floats(v, NV);
    int bad = 0;
    for (int i = 0; i < NV; i++) {
        /* the key orders as the value (NaNs aside), and names its float */
        const uint32_t ki = xc_sp_fkey(v[i]);
        CU_ASSERT_EQUAL(xc_sp_fkey(xc_sp_fkey_float(ki)), ki);
        for (int j = 0; j < NV; j++) {
            if (v[i] != v[i] || v[j] != v[j])
                continue;
            const uint32_t kj = xc_sp_fkey(v[j]);
            if ((v[i] < v[j]) != (ki < kj) || (v[i] == v[j]) != (ki == kj))
                bad++;
        }
    }
    CU_ASSERT_EQUAL(bad, 0);
}

XC_TEST(test_sp_select_bracket, "sp_select_bracket")
{
    enum { NV = 400 };
    float v[NV];
    some_floats(v, NV);
    int bad = 0, brackets = 0;
    for (int i = 0; i < NV; i += 3)
        for (int j = 0; j < NV; j += 7) {
            uint32_t lo = xc_sp_fkey(v[i]), hi = xc_sp_fkey(v[j]);
            if (lo > hi) {
                const uint32_t t = lo;
                lo = hi, hi = t;
            }
            if (xc_sp_fkey_nan(lo) || xc_sp_fkey_nan(hi))
                continue;   /* the kernel takes the keys' own pass then */
            brackets++;
            const float vlo = xc_sp_fkey_float(lo), vhi = xc_sp_fkey_float(hi);
            for (int t = 0; t < NV; t++) {
                const uint32_t k = xc_sp_fkey(v[t]);
                const int below = xc_sp_fkey_below(v[t], vlo), in = xc_sp_fkey_inside(v[t], vlo, vhi);
                if ((below != (k < lo) || in != (k >= lo && k <= hi)) && bad++ < 5)
                    fprintf(stderr, "  x %a (key %08x), bracket [%08x, %08x]: observed below %d in %d, expected %d %d\n",
                            (double)v[t], k, lo, hi, below, in, k < lo, k >= lo && k <= hi);
            }
        }
    CU_ASSERT(brackets > 1000);
    CU_ASSERT_EQUAL(bad, 0);
}

XC_TEST_MAIN("sp_gpu_hd")
