/* fake-style quantisation of the synthesizer's floats and the levels' statistics.
 * The float code adds before it multiplies, so nothing can fuse into a
 * multiply-add and the SIMD loops give xc_synth_quantise's bits; the
 * statistics' double sums are compiled under -std=c11, which contracts nothing. */
#include "synth/model/xc_synth.h"

#include <math.h>
#include <string.h>

#if defined(__SSE2__) && defined(__x86_64__)
#include <immintrin.h>
#define XC_SYNTH_SSE2 1
#endif

/* ---- quantisation ------------------------------------------------------------- */

uint16_t xc_synth_quantise(float x, int nbits)
{
    /* fake's float2one sets a bit when its 4-bit level is > 0, i.e. x > -3.73
     * sigma, so its 1-bit files are almost all ones; the sign is what a 1-bit
     * digitiser records. */
    if (nbits <= 1)
        return x > 0.0f ? 1 : 0;
    /* fake also widens [min, max] to [min, max*snr] when the per-channel snr
     * exceeds 1, which makes the noise level depend on the signal; we keep the
     * range fixed so the noise statistics never change.  The scale
     * (2^nbits - 1)/8 is exact in float. */
    const float top = (float)((1u << nbits) - 1u), scale = top * 0.125f;
    float v = (x + 4.0f) * scale;
    v = v > 0.0f ? v : 0.0f;   /* NaN -> 0, as the SSE2 max below */
    v = v < top ? v : top;
    return (uint16_t)rintf(v);
}

#ifdef XC_SYNTH_SSE2
/* The SSE2 loop below, sixteen values an instruction: the same operations. */
__attribute__((target("avx512f"))) static size_t quantise8_avx512(const float *x, size_t n, uint8_t *out)
{
    const __m512 four = _mm512_set1_ps(4.0f), scale = _mm512_set1_ps(31.875f), top = _mm512_set1_ps(255.0f);
    const __m512 zero = _mm512_setzero_ps();
    size_t i = 0;
    for (; i + 64 <= n; i += 64)
        for (int k = 0; k < 4; k++) {
            __m512 v = _mm512_mul_ps(_mm512_add_ps(_mm512_loadu_ps(x + i + 16 * k), four), scale);
            v = _mm512_min_ps(_mm512_max_ps(v, zero), top);
            _mm_storeu_si128((__m128i *)(out + i + 16 * k), _mm512_cvtepi32_epi8(_mm512_cvtps_epi32(v)));
        }
    return i;
}
#endif

void xc_synth_quantise_pack(const float *x, size_t n, int nbits, xc_bitorder order, uint8_t *out)
{
    size_t i = 0;
#ifdef XC_SYNTH_SSE2
    if (nbits == 8 && xc_synth_noise_path_available(3))
        i = quantise8_avx512(x, n, out);
    if (nbits == 8) {
        const __m128 four = _mm_set1_ps(4.0f), scale = _mm_set1_ps(31.875f), top = _mm_set1_ps(255.0f);
        const __m128 zero = _mm_setzero_ps();
        for (; i + 16 <= n; i += 16) {
            __m128i q[4];
            for (int k = 0; k < 4; k++) {
                __m128 v = _mm_mul_ps(_mm_add_ps(_mm_loadu_ps(x + i + 4 * k), four), scale);
                v = _mm_min_ps(_mm_max_ps(v, zero), top);
                q[k] = _mm_cvtps_epi32(v);   /* round half to even, as rintf */
            }
            __m128i w = _mm_packus_epi16(_mm_packs_epi32(q[0], q[1]), _mm_packs_epi32(q[2], q[3]));
            _mm_storeu_si128((__m128i *)(out + i), w);
        }
    }
#endif
    if (nbits == 8) {
        for (; i < n; i++)
            out[i] = (uint8_t)xc_synth_quantise(x[i], 8);
        return;
    }
    /* Other widths through the core packer, 256 values (whole bytes) at a time. */
    uint16_t lev[256];
    while (i < n) {
        size_t m = n - i < 256 ? n - i : 256;
        for (size_t k = 0; k < m; k++)
            lev[k] = xc_synth_quantise(x[i + k], nbits);
        xc_fb_pack_u16(lev, m, nbits, order, out + i * (size_t)nbits / 8);
        i += m;
    }
}

void xc_synth_level_stats(int nbits, double *mean, double *rms, double *gain)
{
    if (nbits >= 32) {
        *mean = 0;
        *rms = 1;
        *gain = 1;
        return;
    }
    const double inv_sqrt2pi = 0.39894228040143267794;
    if (nbits <= 1) {
        *mean = 0.5;
        *rms = 0.5;
        *gain = inv_sqrt2pi;
        return;
    }
    /* Level k covers x in [(k - 1/2)/scale - 4, (k + 1/2)/scale - 4), the end
     * levels taking the clipped tails; each threshold raises the level by one. */
    const int top = (1 << nbits) - 1;
    const double scale = top / 8.0;
    double m = 0, m2 = 0, g = 0;
    for (int k = 0; k <= top; k++) {
        double lo = k == 0 ? -INFINITY : (k - 0.5) / scale - 4.0;
        double hi = k == top ? INFINITY : (k + 0.5) / scale - 4.0;
        double pk = 0.5 * (erfc(-hi / M_SQRT2) - erfc(-lo / M_SQRT2));
        m += k * pk;
        m2 += (double)k * k * pk;
        if (k > 0)
            g += inv_sqrt2pi * exp(-0.5 * lo * lo);
    }
    *mean = m;
    *rms = sqrt(fmax(m2 - m * m, 0.0));
    *gain = g;
}
