/* Corner turn for the CPU dedisperser: time-major input (channel fastest) to a
 * channel-major copy of the unmasked channels, time-scrunched by ds, in the
 * narrowest type that holds the scrunched values.
 *
 * Blocks of CONV_C channels x CONV_T output samples keep both the strided
 * reads and the strided writes inside L1. */
#include <string.h>

#include "optimized/cpu/cpu_internal.h"

#define CONV_C 64
#define CONV_T 256

/* Integer sums are exact (the caller chose a type that holds (2^nbits-1)*ds);
 * float sums are taken in double and rounded once. */
#define XC_CONVERT(NAME, SRCFIELD, SUMT, DSTT)                                                \
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

XC_CONVERT(convert_u8, u16, uint32_t, uint8_t)
XC_CONVERT(convert_u16, u16, uint32_t, uint16_t)
XC_CONVERT(convert_u32, u16, uint64_t, uint32_t)
XC_CONVERT(convert_u64, u16, uint64_t, uint64_t)
XC_CONVERT(convert_f32, f32, double, float)

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
