/* The ceiling the direct 8-bit kernel's own instruction mix allows on this core.
 *
 * The AVX-512 8-bit tile kernel (cpu_kernels.c, tile_u8_v4) adds two samples per
 * 16-bit lane: per 64 input bytes one load, one shift by 8 and two 16-bit adds,
 * so 64 sample adds cost three vector operations where the add probe's loop
 * retires 32 lane adds per operation.  And dedispersion reads every (trial,
 * channel) row from its own delay, at any byte offset: almost every 64-byte load
 * straddles two cache lines.  This probe runs exactly that mix over rows that sit
 * in L1 (32 rows of 512 bytes), with every row at a byte offset that splits each
 * load (the kernel's case) or on a line's start (what no real plan gives: the
 * most the mix could do), in hand-written assembly so the compiler can neither
 * fold the load into both adds nor spill the sixteen accumulators.  Its rate per
 * CPU second is the most the kernel can reach, whatever its loop overheads; the
 * bench reports the kernel against it beside the add peak. */
#include "xc_cpu.h"

#include <string.h>

#define MIX_ROWS 32
#define MIX_ROW 512    /* bytes a row, eight 64-byte loads */
#define MIX_STRIDE 576 /* rows 9 lines apart, so a row at an offset stays inside its own lines */
#define XC_MIX_STR2(x) #x
#define XC_MIX_STR(x) XC_MIX_STR2(x)

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(XC_CPU_NO_CLONES)
/* One row: eight loads, each added as the word (low sample + 256 high) into
 * zmm0..7 and shifted by 8 (the high sample) into zmm8..15. */
#define MIX_LOAD(OFF, LO, HI, DATA, SHIFTED)                                                           \
    "vmovdqu64 " #OFF "(%[p]), %%zmm" #DATA "\n\t"                                                     \
    "vpaddw %%zmm" #DATA ", %%zmm" #LO ", %%zmm" #LO "\n\t"                                           \
    "vpsrlw $8, %%zmm" #DATA ", %%zmm" #SHIFTED "\n\t"                                                \
    "vpaddw %%zmm" #SHIFTED ", %%zmm" #HI ", %%zmm" #HI "\n\t"

#define MIX_ZERO(R) "vpxord %%zmm" #R ", %%zmm" #R ", %%zmm" #R "\n\t"
#define MIX_FOLD(R) "vpxord %%zmm" #R ", %%zmm0, %%zmm0\n\t"

/* The whole loop in one statement, so the sixteen accumulators are the
 * statement's own registers from the first add to the fold. */
__attribute__((target("arch=x86-64-v4"))) static uint16_t mix_v4(const unsigned char *rows, long iters)
{
    typedef uint16_t v32 __attribute__((vector_size(64)));
    v32 out;
    long rowsleft = 0;
    const unsigned char *p = rows;
    __asm__ volatile(MIX_ZERO(0) MIX_ZERO(1) MIX_ZERO(2) MIX_ZERO(3) MIX_ZERO(4) MIX_ZERO(5) MIX_ZERO(6)
                         MIX_ZERO(7) MIX_ZERO(8) MIX_ZERO(9) MIX_ZERO(10) MIX_ZERO(11) MIX_ZERO(12) MIX_ZERO(13)
                             MIX_ZERO(14) MIX_ZERO(15)
                     "test %[n], %[n]\n\t"
                     "jle 3f\n"
                     "1:\n\t"
                     "mov %[base], %[p]\n\t"
                     "mov $" XC_MIX_STR(MIX_ROWS) ", %[left]\n"
                     "2:\n\t" MIX_LOAD(0, 0, 8, 16, 17) MIX_LOAD(64, 1, 9, 18, 19) MIX_LOAD(128, 2, 10, 20, 21)
                         MIX_LOAD(192, 3, 11, 22, 23) MIX_LOAD(256, 4, 12, 24, 25) MIX_LOAD(320, 5, 13, 26, 27)
                             MIX_LOAD(384, 6, 14, 28, 29) MIX_LOAD(448, 7, 15, 30, 31)
                     "add $" XC_MIX_STR(MIX_STRIDE) ", %[p]\n\t"
                     "dec %[left]\n\t"
                     "jnz 2b\n\t"
                     "dec %[n]\n\t"
                     "jnz 1b\n"
                     "3:\n\t" MIX_FOLD(1) MIX_FOLD(2) MIX_FOLD(3) MIX_FOLD(4) MIX_FOLD(5) MIX_FOLD(6) MIX_FOLD(7)
                         MIX_FOLD(8) MIX_FOLD(9) MIX_FOLD(10) MIX_FOLD(11) MIX_FOLD(12) MIX_FOLD(13) MIX_FOLD(14)
                             MIX_FOLD(15) "vmovdqu64 %%zmm0, %[out]"
                     : [out] "=m"(out), [n] "+&r"(iters), [p] "+&r"(p), [left] "+&r"(rowsleft)
                     : [base] "r"(rows)
                     : "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9", "xmm10",
                       "xmm11", "xmm12", "xmm13", "xmm14", "xmm15", "xmm16", "xmm17", "xmm18", "xmm19", "xmm20",
                       "xmm21", "xmm22", "xmm23", "xmm24", "xmm25", "xmm26", "xmm27", "xmm28", "xmm29", "xmm30",
                       "xmm31", "cc", "memory");
    uint16_t r = 0;
    for (int k = 0; k < 32; k++)
        r = (uint16_t)(r ^ out[k]);
    return r;
}
#endif

int xc_cpu_mix_probe(long iters, int split, double *adds, uint16_t *keep)
{
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(XC_CPU_NO_CLONES)
    __builtin_cpu_init();
    if (__builtin_cpu_supports("x86-64-v4")) {
        /* 13 bytes past a line's start: every 64-byte load spans two lines. */
        _Alignas(64) unsigned char rows[MIX_ROWS * MIX_STRIDE];
        for (size_t i = 0; i < sizeof rows; i++)
            rows[i] = (unsigned char)(i * 37u + 11u);
        *keep = mix_v4(rows + (split ? 13 : 0), iters);
        *adds = (double)iters * MIX_ROWS * MIX_ROW;
        return 1;
    }
#endif
    (void)iters, (void)split;
    *adds = 0;
    *keep = 0;
    return 0;
}
