/* Corner turn for the CPU dedisperser: time-major input (channel fastest) to a
 * channel-major copy of the unmasked channels, time-scrunched by ds, in the
 * narrowest type that holds the scrunched values.
 *
 * Blocks of CONV_C channels x CONV_T output samples keep both the strided
 * reads and the strided writes inside L1.  Integer input at ds 1 into 8- or
 * 16-bit copies (8- and 16-bit data, the common case) goes through 8 x 8
 * transposes of 16-bit lanes in SSE2 registers (x86-64's baseline, so every
 * x86-64 runs it; elsewhere the scalar loop): eight consecutive unmasked
 * channels by sixteen samples at a time, the rest of a block scalar.  It
 * moves the same values, so the copy is byte for byte the scalar one's. */
#include <string.h>

#include "optimized/cpu/cpu_internal.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#define XC_CONV_SSE2 1
#endif

#define CONV_C 64
#define CONV_T 256

#ifdef XC_CONV_SSE2
/* Rows a[0..8) (eight samples of eight channels each) to columns: d[c] holds
 * channel c's eight samples in time order (the classic unpack ladder). */
static inline void tr8x8(const __m128i a[8], __m128i d[8])
{
    __m128i b[8], c[8];
    for (int k = 0; k < 4; k++) {
        b[2 * k] = _mm_unpacklo_epi16(a[2 * k], a[2 * k + 1]);
        b[2 * k + 1] = _mm_unpackhi_epi16(a[2 * k], a[2 * k + 1]);
    }
    c[0] = _mm_unpacklo_epi32(b[0], b[2]), c[1] = _mm_unpackhi_epi32(b[0], b[2]);
    c[2] = _mm_unpacklo_epi32(b[1], b[3]), c[3] = _mm_unpackhi_epi32(b[1], b[3]);
    c[4] = _mm_unpacklo_epi32(b[4], b[6]), c[5] = _mm_unpackhi_epi32(b[4], b[6]);
    c[6] = _mm_unpacklo_epi32(b[5], b[7]), c[7] = _mm_unpackhi_epi32(b[5], b[7]);
    for (int k = 0; k < 4; k++) {
        d[2 * k] = _mm_unpacklo_epi64(c[k], c[k + 4]);
        d[2 * k + 1] = _mm_unpackhi_epi64(c[k], c[k + 4]);
    }
}

/* Sixteen samples [j, j + 16) of the eight channels from input channel c
 * on (consecutive) into rows dst + i*stride (i < 8), at ds 1.  bytes: 1 for
 * an 8-bit copy (values <= 255, so the saturating pack is exact), 2 for 16-bit. */
static inline void turn8x16(const uint16_t *in, size_t nc, size_t c, size_t j, void *dst, size_t stride, int bytes)
{
    __m128i a[8], lo[8], hi[8];
    for (int t = 0; t < 8; t++)
        a[t] = _mm_loadu_si128((const __m128i *)(in + (j + (size_t)t) * nc + c));
    tr8x8(a, lo);
    for (int t = 0; t < 8; t++)
        a[t] = _mm_loadu_si128((const __m128i *)(in + (j + 8 + (size_t)t) * nc + c));
    tr8x8(a, hi);
    for (int i = 0; i < 8; i++) {
        if (bytes == 1) {
            _mm_storeu_si128((__m128i *)((uint8_t *)dst + (size_t)i * stride + j), _mm_packus_epi16(lo[i], hi[i]));
        } else {
            uint16_t *row = (uint16_t *)dst + (size_t)i * stride + j;
            _mm_storeu_si128((__m128i *)row, lo[i]);
            _mm_storeu_si128((__m128i *)(row + 8), hi[i]);
        }
    }
}
#endif

/* Channels [c0, c1) x samples [j0, j1) of the block at ds 1 into an 8- or
 * 16-bit copy: 8 x 16 transposes where eight chosen channels are
 * consecutive in the input, the rest one sample at a time. */
#define XC_TURN_DS1(NAME, DSTT)                                                                                 \
    static void NAME(const xc_block *in, const int *chans, size_t c0, size_t c1, size_t j0, size_t j1,        \
                     size_t stride, DSTT *dst)                                                                 \
    {                                                                                                          \
        const size_t nc = (size_t)in->nchans;                                                                  \
        size_t i = c0;                                                                                         \
        for (; i + 8 <= c1; i += 8) {                                                                          \
            size_t j = j0;                                                                                     \
            if (XC_CONV_SSE2_ON && chans[i + 7] - chans[i] == 7) /* chans increase: consecutive */            \
                for (; j + 16 <= j1; j += 16)                                                                  \
                    XC_TURN8(in->u16, nc, (size_t)chans[i], j, dst + i * stride, stride, (int)sizeof(DSTT)); \
            for (; j < j1; j++)                                                                                \
                for (size_t q = i; q < i + 8; q++)                                                             \
                    dst[q * stride + j] = (DSTT)in->u16[j * nc + (size_t)chans[q]];                            \
        }                                                                                                      \
        for (size_t j = j0; j < j1; j++)                                                                       \
            for (size_t q = i; q < c1; q++)                                                                    \
                dst[q * stride + j] = (DSTT)in->u16[j * nc + (size_t)chans[q]];                                \
    }

#ifdef XC_CONV_SSE2
#define XC_CONV_SSE2_ON 1
#define XC_TURN8 turn8x16
#else
#define XC_CONV_SSE2_ON 0
#define XC_TURN8(...) ((void)0)
#endif
XC_TURN_DS1(turn_u8, uint8_t)
XC_TURN_DS1(turn_u16, uint16_t)

/* Integer sums are exact (the caller chose a type that holds (2^nbits-1)*ds);
 * float sums are taken in double and rounded once. */
#define XC_CONVERT(NAME, SRCFIELD, SUMT, DSTT, DS1)                                           \
    static void NAME(const xc_block *in, const int *chans, int nch, int ds, size_t ns,        \
                     size_t stride, DSTT *dst, int nthreads)                                  \
    {                                                                                         \
        const size_t nc = (size_t)in->nchans;                                                 \
        const size_t ncb = ((size_t)nch + CONV_C - 1) / CONV_C;                               \
        const size_t ntb = (ns + CONV_T - 1) / CONV_T;                                        \
        _Pragma("omp parallel for schedule(static) collapse(2) num_threads(nthreads)")        \
        for (size_t cb = 0; cb < ncb; cb++)                                                   \
            for (size_t tb = 0; tb < ntb; tb++) {                                             \
                size_t c0 = cb * CONV_C, c1 = c0 + CONV_C < (size_t)nch ? c0 + CONV_C : (size_t)nch; \
                size_t j0 = tb * CONV_T, j1 = j0 + CONV_T < ns ? j0 + CONV_T : ns;            \
                DS1                                                                           \
                for (size_t j = j0; j < j1; j++) {                                            \
                    const size_t base = j * (size_t)ds * nc;                                  \
                    for (size_t i = c0; i < c1; i++) {                                        \
                        const size_t c = (size_t)chans[i];                                    \
                        SUMT s = 0;                                                           \
                        for (int q = 0; q < ds; q++)                                          \
                            s += (SUMT)in->SRCFIELD[base + (size_t)q * nc + c];               \
                        dst[i * stride + j] = (DSTT)s;                                        \
                    }                                                                         \
                }                                                                             \
                if (tb == ntb - 1)                                                            \
                    for (size_t i = c0; i < c1; i++)                                          \
                        memset(dst + i * stride + ns, 0, (stride - ns) * sizeof(DSTT));       \
            }                                                                                 \
    }

/* DS1: a statement prefix taking the block at ds 1 (ending in else), or nothing. */
#define DS1_U8 if (ds == 1) turn_u8(in, chans, c0, c1, j0, j1, stride, dst); else
#define DS1_U16 if (ds == 1) turn_u16(in, chans, c0, c1, j0, j1, stride, dst); else
#define DS1_NONE
XC_CONVERT(convert_u8, u16, uint32_t, uint8_t, DS1_U8)
XC_CONVERT(convert_u16, u16, uint32_t, uint16_t, DS1_U16)
XC_CONVERT(convert_u32, u16, uint64_t, uint32_t, DS1_NONE)
XC_CONVERT(convert_u64, u16, uint64_t, uint64_t, DS1_NONE)
XC_CONVERT(convert_f32, f32, double, float, DS1_NONE)

void xc_cpu_convert(const xc_block *in, const int *chans, int nchosen, int ds, size_t ns,
                    size_t stride, xc_cpu_type type, void *dst, int nthreads)
{
    switch (type) {
    case XC_CPU_U8: convert_u8(in, chans, nchosen, ds, ns, stride, dst, nthreads); break;
    case XC_CPU_U16: convert_u16(in, chans, nchosen, ds, ns, stride, dst, nthreads); break;
    case XC_CPU_U32: convert_u32(in, chans, nchosen, ds, ns, stride, dst, nthreads); break;
    case XC_CPU_U64: convert_u64(in, chans, nchosen, ds, ns, stride, dst, nthreads); break;
    case XC_CPU_F32: convert_f32(in, chans, nchosen, ds, ns, stride, dst, nthreads); break;
    }
}
