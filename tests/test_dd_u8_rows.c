/* The 8-bit dedispersion kernel's row tables (dd_u8_rows.c) and the kernel
 * (xc_cpu_tile_u8) on them, against plain sums: trials in pairs and in
 * quads, with delays whose
 * steps from trial to trial make every pattern of equal rows a quad can have
 * (counted, so the test fails if one is missing), trial counts that leave
 * every remainder of four, and channel counts from 1 past 256.  Tolerance 0:
 * integer sums.  Every kernel version reads both layouts (the driver gives
 * each the one xc_cpu_u8_group names), so both are checked whatever the
 * version: built with -DXC_CPU_NO_CLONES and -mavx2 or the baseline flags,
 * this checks the widening versions. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "optimized/cpu/cpu_internal.h"
#include "tests/xc_test.h"

enum { NBLK = 2, SPAN = NBLK * XC_CPU_BLOCK_U8, DMAX = 40, CMAX = 300 };

static uint64_t rng(uint64_t *x)
{
    *x = *x * 6364136223846793005ull + 1442695040888963407ull;
    return *x >> 33;
}

/* One case: nd trials of nc channels, channel i's delay at trial d is
 * floor((d * step_i + phase_i) / 4) for a step drawn from 0..8 and a phase
 * from 0..3 (quarter samples: rows equal for runs of trials, or never), plus
 * a random start.  The kernel runs
 * on the same table into part, then from part into wide (set), then into
 * wide again: wide must hold three times each plain sum (twice where the
 * channels are too many to carry the sums).
 * pat[8]: quad patterns seen.  Returns mismatches. */
static int one_case(const uint8_t *data, int nd, int nc, int group, uint64_t *x, long *pat)
{
    const size_t stride = SPAN + DMAX * 2 + 64;
    const uint8_t **plain = malloc((size_t)nd * (size_t)nc * sizeof *plain);
    const uint8_t **rows = malloc((size_t)nd * (size_t)nc * sizeof *rows);
    int *shared = malloc((2 * (size_t)nd + 2) * sizeof *shared);
    uint16_t *part = aligned_alloc(64, (size_t)nd * SPAN * sizeof *part);
    uint32_t *wide = malloc((size_t)nd * SPAN * sizeof *wide);
    int *step = malloc((size_t)nc * sizeof *step), *start = malloc((size_t)nc * sizeof *start);
    int *phase = malloc((size_t)nc * sizeof *phase);
    if (!plain || !rows || !shared || !part || !wide || !step || !start || !phase) {
        printf("out of memory\n");
        return 1;
    }
    for (int i = 0; i < nc; i++) {
        step[i] = (int)(rng(x) % 9);
        start[i] = (int)(rng(x) % 13);
        phase[i] = (int)(rng(x) % 4);
    }
    for (int d = 0; d < nd; d++)
        for (int i = 0; i < nc; i++)
            plain[(size_t)d * nc + i] = data + (size_t)i * stride + (size_t)start[i] +
                                         (size_t)((d * step[i] + phase[i]) / 4);
    for (int q = 0; q + 4 <= nd; q += 4)
        for (int i = 0; i < nc; i++) {
            const uint8_t *const *p = plain + (size_t)q * nc + i;
            pat[(p[0] == p[nc]) << 2 | (p[nc] == p[2 * nc]) << 1 | (p[2 * nc] == p[3 * nc])]++;
        }
    xc_cpu_u8_group_rows(plain, nd, nc, rows, shared, group);
    /* carried through part only where twice the sums fit the narrow bound, as the driver keeps them */
    const int carry = 2 * nc * 255 <= 65535;
    if (carry)
        xc_cpu_tile_u8(rows, nd, nc, NBLK, part, 0, XC_U8_TO_PART, wide, SPAN, NULL, 0, shared, group);
    xc_cpu_tile_u8(rows, nd, nc, NBLK, part, carry, XC_U8_TO_WIDE_SET, wide, SPAN, NULL, 0, shared, group);
    xc_cpu_tile_u8(rows, nd, nc, NBLK, part, 0, XC_U8_TO_WIDE, wide, SPAN, NULL, 0, shared, group);
    int bad = 0;
    for (int d = 0; d < nd; d++)
        for (int k = 0; k < SPAN; k++) {
            uint32_t want = 0;
            for (int i = 0; i < nc; i++)
                want += plain[(size_t)d * nc + i][k];
            want *= 2 + (uint32_t)carry;
            if (wide[(size_t)d * SPAN + k] != want && bad++ < 3)
                printf("group %d, %d trials x %d channels: trial %d sample %d: %u, want %u\n", group, nd, nc, d, k,
                       wide[(size_t)d * SPAN + k], want);
        }
    free(plain);
    free((void *)rows);
    free(shared);
    free(part);
    free(wide);
    free(step);
    free(start);
    free(phase);
    return bad;
}

XC_TEST(test_u8_rows_groups, "u8_rows_groups")
{
    static const int nds[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 13, 32, 35};
    static const int ncs[] = {1, 2, 5, 32, 33, 128, 129, 257};   /* 257 x 255: the narrow bound */
    const size_t stride = SPAN + DMAX * 2 + 64;
    uint8_t *data = malloc((size_t)CMAX * stride);
    CU_ASSERT_FATAL(data != NULL);
    uint64_t x = 4242;
    for (size_t i = 0; i < (size_t)CMAX * stride; i++)
        data[i] = i % 3 ? (uint8_t)rng(&x) : 255;
    CU_ASSERT(xc_cpu_u8_group() == 2 || xc_cpu_u8_group() == 4);
    for (int group = 2; group <= 4; group += 2) {
        long pat[8] = {0};
        int bad = 0;
        for (size_t a = 0; a < sizeof nds / sizeof *nds; a++)
            for (size_t b = 0; b < sizeof ncs / sizeof *ncs; b++)
                bad += one_case(data, nds[a], ncs[b], group, &x, pat);
        CU_ASSERT_EQUAL(bad, 0);
        for (int k = 0; k < 8; k++) {
            if (!pat[k])
                printf("quad pattern %d never made\n", k);
            CU_ASSERT(pat[k] > 0);
        }
    }
    free(data);
}

XC_TEST_MAIN("dd_u8_rows")
