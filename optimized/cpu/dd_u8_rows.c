/* The 8-bit kernel's row tables: a channel tile's plain table of row
 * pointers (trial d's nci rows from plain + d*nci) sorted into the layout
 * xc_cpu_tile_u8 reads, trials in pairs or in quads, so that a row that
 * adjacent trials share is loaded once (cpu_internal.h). */
#include <string.h>

#include "optimized/cpu/cpu_internal.h"

/* 8-bit: a channel tile's plain pointer table (the driver's FILL_ROWS) into one with the
 * trials in pairs (xc_cpu_tile_u8's shared layout).  Trials d and d+1 read
 * the same row of a channel where their delays are equal, often where the
 * delays change slowly (high frequencies, low DM); the kernel loads such a
 * row once for both.  Two pointers of a channel are equal exactly when the
 * delays are.  Sorted without a branch: a shared row goes to the front,
 * trial d's own rows fill its part from the back, trial d+1's follow; a slot
 * written for the other case is free, and is written over later or lies
 * past the rows the kernel reads.  From the plain table, in L1, not while
 * reading the delays: sorted there, the fill took about four times the plain
 * fill's time, more than the shared loads saved (measured). */
static void pair_rows(const uint8_t *const *plain, int nd, int nci, const uint8_t **rows, int *shared)
{
    int d = 0;
    for (; d + 1 < nd; d += 2) {
        const uint8_t *const *pa = plain + (size_t)d * (size_t)nci, *const *pb = pa + nci;
        const uint8_t **r = rows + (size_t)d * (size_t)nci;
        int ns = 0, na = 0;
        for (int i = 0; i < nci; i++) {
            const uint8_t *a = pa[i], *b = pb[i];
            const int eq = a == b;
            r[ns] = a;
            r[nci - 1 - na] = a;
            r[nci + na] = b;
            ns += eq;
            na += !eq;
        }
        shared[d / 2] = ns;
    }
    if (d < nd)
        memcpy(rows + (size_t)d * (size_t)nci, plain + (size_t)d * (size_t)nci, (size_t)nci * sizeof *rows);
}

/* 8-bit, trials in fours (xc_cpu_tile_u8's quads): each quad's channels
 * sorted by the pattern of equal pointers among its four trials, a counting
 * sort (one pass to count, one to place) with no branch on the pattern.  Four
 * trials share more rows than two: 0.774 loads a trial and channel against
 * pairs' 0.85 in the bench's plan (counted at 512 and 4096 channels).  The
 * eight counts, and then the eight next places, are 16-bit fields of two
 * registers (a channel tile is below 2^16 channels: the narrow bound), not
 * an array indexed by the pattern, where a channel's count would wait on
 * the store of the one before. */
#define QUAD_PATTERN(p, n, i)                                                                                   \
    ((unsigned)((p)[i] == (p)[(n) + (i)]) << 2 | (unsigned)((p)[(n) + (i)] == (p)[2 * (n) + (i)]) << 1 |       \
     (unsigned)((p)[2 * (n) + (i)] == (p)[3 * (n) + (i)]))
static void quad_rows(const uint8_t *const *plain, int nd, int nci, const uint8_t **rows, int *shared)
{
    static const int order[8] = XC_U8_QUAD_ORDER;
    const int nq = nd / 4;
    for (int q = 0; q < nq; q++) {
        const uint8_t *const *p = plain + (size_t)(4 * q) * (size_t)nci;
        const uint8_t **r = rows + (size_t)(4 * q) * (size_t)nci;
        uint64_t c[2] = {0, 0};
        unsigned char pat[256];   /* the patterns again, where a tile has at most 256 channels */
        for (int i = 0; i < nci; i++) {
            const unsigned k = QUAD_PATTERN(p, nci, i);
            pat[i & 255] = (unsigned char)k;
            const uint64_t one = 1ull << (16 * (k & 3)), hi = (uint64_t)0 - (k >> 2);
            c[0] += one & ~hi;
            c[1] += one & hi;
        }
        int *cnt = shared + 8 * q;
        for (int k = 0; k < 8; k++)
            cnt[k] = (int)(c[k >> 2] >> (16 * (k & 3)) & 0xffff);
        uint64_t at[2] = {0, 0};
        for (int k = 0, s = 0; k < 8; k++) {
            at[order[k] >> 2] |= (uint64_t)s << (16 * (order[k] & 3));
            s += cnt[order[k]];
        }
        for (int i = 0; i < nci; i++) {
            const unsigned k = nci <= 256 ? pat[i] : QUAD_PATTERN(p, nci, i);
            const uint64_t hi = (uint64_t)0 - (k >> 2), a = (at[0] & ~hi) | (at[1] & hi);
            const uint64_t one = 1ull << (16 * (k & 3));
            const uint8_t **e = r + 4 * (size_t)(a >> (16 * (k & 3)) & 0xffff);
            at[0] += one & ~hi;
            at[1] += one & hi;
            e[0] = p[i];
            e[1] = p[nci + i];
            e[2] = p[2 * nci + i];
            e[3] = p[3 * nci + i];
        }
    }
    pair_rows(plain + (size_t)(4 * nq) * (size_t)nci, nd - 4 * nq, nci, rows + (size_t)(4 * nq) * (size_t)nci,
              shared + 8 * nq);
}
#undef QUAD_PATTERN

void xc_cpu_u8_group_rows(const uint8_t *const *plain, int nd, int nci, const uint8_t **rows, int *shared,
                          int group)
{
    if (group == 4)
        quad_rows(plain, nd, nci, rows, shared);
    else
        pair_rows(plain, nd, nci, rows, shared);
}
