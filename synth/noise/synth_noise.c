/* Counter-based Gaussian noise and fake-style quantisation.
 *
 * One Philox4x32-10 block (counter: sample, channel quad, stream; key: seed)
 * gives four 32-bit words: (w0, w1) and (w2, w3) are two Box-Muller pairs for
 * the channels 4q..4q+3 (cos, sin, cos, sin).  Box-Muller runs in float with
 * fixed polynomials (Cephes logf and sinf/cosf on [-pi/4, pi/4]) and no fused
 * multiply-add, so the SSE2 path below and the one-value reference give the
 * same bits, and so does any thread count or chunk size.
 *   u = ((w0 >> 1) + 0.5) 2^-31 in (0, 1]: radius sqrt(-2 ln u) <= 6.66 sigma
 *       (a tail of probability 2^-32 per pair is cut);
 *   theta = q pi/2 + t, q = w1 >> 30, t uniform in [-pi/4, pi/4) from the other
 *       30 bits, so the polynomials never see more than pi/4. */
#include "synth/model/xc_synth.h"
#include "synth/noise/synth_noise.h"

#include <math.h>
#include <string.h>

#if defined(__SSE2__) && defined(__x86_64__)
#include <immintrin.h>
#define XC_SYNTH_SSE2 1
#endif

#define PHILOX_M0 0xD2511F53u
#define PHILOX_M1 0xCD9E8D57u
#define PHILOX_W0 0x9E3779B9u
#define PHILOX_W1 0xBB67AE85u

static inline void philox_round(uint32_t x[4], const uint32_t k[2])
{
    uint64_t p0 = (uint64_t)PHILOX_M0 * x[0];
    uint64_t p1 = (uint64_t)PHILOX_M1 * x[2];
    uint32_t y0 = (uint32_t)(p1 >> 32) ^ x[1] ^ k[0];
    uint32_t y2 = (uint32_t)(p0 >> 32) ^ x[3] ^ k[1];
    x[1] = (uint32_t)p1;
    x[3] = (uint32_t)p0;
    x[0] = y0;
    x[2] = y2;
}

void xc_synth_philox4x32_10(const uint32_t ctr[4], const uint32_t key[2], uint32_t out[4])
{
    uint32_t x[4] = {ctr[0], ctr[1], ctr[2], ctr[3]};
    uint32_t k[2] = {key[0], key[1]};
    for (int r = 0; r < 10; r++) {
        if (r) {
            k[0] += PHILOX_W0;
            k[1] += PHILOX_W1;
        }
        philox_round(x, k);
    }
    for (int i = 0; i < 4; i++)
        out[i] = x[i];
}

void xc_synth_words(uint64_t seed, uint32_t stream, uint64_t a, uint32_t c, uint32_t out[4])
{
    const uint32_t ctr[4] = {(uint32_t)a, (uint32_t)(a >> 32), c, stream};
    const uint32_t key[2] = {(uint32_t)seed, (uint32_t)(seed >> 32)};
    xc_synth_philox4x32_10(ctr, key, out);
}

/* ---- Box-Muller, one pair at a time: the definition ---------------------------- */

#define SQRTHF 0.707106781186547524f
#define ANGLE_STEP 1.46291807926715968e-09f   /* (pi/2) / 2^30 */
static const float logp[9] = {7.0376836292E-2f,  -1.1514610310E-1f, 1.1676998740E-1f,
                              -1.2420140846E-1f, 1.4249322787E-1f,  -1.6668057665E-1f,
                              2.0000714765E-1f,  -2.4999993993E-1f, 3.3333331174E-1f};

static inline float f_of(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

static inline uint32_t u_of(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

/* Cephes logf for a normal float > 0. */
static float log_ref(float u)
{
    uint32_t b = u_of(u);
    int32_t e = (int32_t)(b >> 23) - 126;
    float m = f_of((b & 0x007fffffu) | 0x3f000000u);
    int lt = m < SQRTHF;
    e -= lt;
    float x = lt ? (m + m) - 1.0f : m - 1.0f;
    float z = x * x;
    float y = logp[0];
    for (int k = 1; k < 9; k++)
        y = y * x + logp[k];
    y = (y * x) * z;
    float fe = (float)e;
    y = y + -2.12194440e-4f * fe;
    y = y + -0.5f * z;
    float r = x + y;
    return r + 0.693359375f * fe;
}

static void box_muller_ref(uint32_t a, uint32_t b, float *zc, float *zs)
{
    float u = ((float)(int32_t)(a >> 1) + 0.5f) * 0x1p-31f;
    float r2 = -2.0f * log_ref(u);
    r2 = r2 > 0.0f ? r2 : 0.0f;
    float r = sqrtf(r2);
    uint32_t q = b >> 30;
    float t = (float)((int32_t)(b & 0x3fffffffu) - (1 << 29)) * ANGLE_STEP;
    float z = t * t;
    float s = ((-1.9515295891E-4f * z + 8.3321608736E-3f) * z - 1.6666654611E-1f);
    s = ((s * z) * t) + t;
    float c = ((2.443315711809948E-5f * z - 1.388731625493765E-3f) * z + 4.166664568298827E-2f);
    c = (((c * z) * z) - 0.5f * z) + 1.0f;
    float C = (q & 1u) ? s : c, S = (q & 1u) ? c : s;
    if (((q + 1u) >> 1) & 1u)
        C = -C;
    if (q >> 1)
        S = -S;
    *zc = r * C;
    *zs = r * S;
}

float xc_synth_noise_ref(uint64_t seed, uint64_t sample, int chan)
{
    uint32_t w[4], k = (uint32_t)chan & 3u;
    xc_synth_words(seed, XC_STREAM_NOISE, sample, (uint32_t)chan >> 2, w);
    float z[2];
    box_muller_ref(w[k & 2u], w[(k & 2u) + 1], &z[0], &z[1]);
    return z[k & 1u];
}

/* ---- the same numbers, four Philox blocks at a time ----------------------------- */

#ifdef XC_SYNTH_SSE2
/* The vector Philox and Box-Muller are one body (synth_noise_simd.h) built at three
 * widths: SSE2 four blocks at a time, AVX2 eight, AVX-512F sixteen; only the lane
 * count differs.  The macros name each width's intrinsics. */
#define V(op) _mm_##op
#define VSI(op) _mm_##op##_si128
#define VF __m128
#define VI __m128i
#define V_CASTI _mm_castps_si128
#define V_CASTF _mm_castsi128_ps
#define VM __m128
#define V_LT(a, b) _mm_cmplt_ps(a, b)
#define V_EQI(a, b) _mm_castsi128_ps(_mm_cmpeq_epi32(a, b))
#define V_SEL(m, a, b) _mm_or_ps(_mm_and_ps(m, a), _mm_andnot_ps(m, b))
#define V_DEC(e, m) _mm_add_epi32(e, _mm_castps_si128(m))
#define V_XORF(f, i) _mm_xor_ps(f, _mm_castsi128_ps(i))
#define V_LANES _mm_set_epi32(3, 2, 1, 0)
#define V_ATTR
#define V_NAME(name) name##4
#include "synth/noise/synth_noise_simd.h"

#define V(op) _mm256_##op
#define VSI(op) _mm256_##op##_si256
#define VF __m256
#define VI __m256i
#define V_CASTI _mm256_castps_si256
#define V_CASTF _mm256_castsi256_ps
#define VM __m256
#define V_LT(a, b) _mm256_cmp_ps(a, b, _CMP_LT_OQ)
#define V_EQI(a, b) _mm256_castsi256_ps(_mm256_cmpeq_epi32(a, b))
#define V_SEL(m, a, b) _mm256_blendv_ps(b, a, m)
#define V_DEC(e, m) _mm256_add_epi32(e, _mm256_castps_si256(m))
#define V_XORF(f, i) _mm256_xor_ps(f, _mm256_castsi256_ps(i))
#define V_ODD(a, b) _mm256_blend_epi32(a, b, 0xAA)
#define V_LANES _mm256_set_epi32(7, 6, 5, 4, 3, 2, 1, 0)
#define V_ATTR __attribute__((target("avx2")))
#define V_NAME(name) name##8
#include "synth/noise/synth_noise_simd.h"

/* AVX-512F: masks are __mmask16 and the selects blends; the arithmetic is the same. */
#define V(op) _mm512_##op
#define VSI(op) _mm512_##op##_si512
#define VF __m512
#define VI __m512i
#define V_CASTI _mm512_castps_si512
#define V_CASTF _mm512_castsi512_ps
#define VM __mmask16
#define V_LT(a, b) _mm512_cmp_ps_mask(a, b, _CMP_LT_OQ)
#define V_EQI(a, b) _mm512_cmpeq_epi32_mask(a, b)
#define V_SEL(m, a, b) _mm512_mask_blend_ps(m, b, a)
#define V_DEC(e, m) _mm512_mask_sub_epi32(e, m, e, _mm512_set1_epi32(1))
#define V_XORF(f, i) _mm512_castsi512_ps(_mm512_xor_si512(_mm512_castps_si512(f), i))
#define V_ODD(a, b) _mm512_mask_blend_epi32(0xAAAA, a, b)
#define V_LANES _mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0)
#define V_ATTR __attribute__((target("avx512f")))
#define V_NAME(name) name##16
#include "synth/noise/synth_noise_simd.h"

/* 16 values: the blocks b..b+3 of one counter (sample, stream). */
static void group4(const uint32_t key[2], uint64_t sample, uint32_t stream, uint32_t b, float *out)
{
    __m128 r[4];
    gauss_t4(key, sample, stream, b, r);
    for (int k = 0; k < 4; k++)
        _mm_storeu_ps(out + 4 * k, r[k]);
}

/* 32 values: the blocks b..b+7 of one counter; the halves of r are blocks 0-3 and 4-7. */
__attribute__((target("avx2"))) static void group8(const uint32_t key[2], uint64_t sample, uint32_t stream,
                                                   uint32_t b, float *out)
{
    __m256 r[4];
    gauss_t8(key, sample, stream, b, r);
    _mm256_storeu_ps(out, _mm256_permute2f128_ps(r[0], r[1], 0x20));
    _mm256_storeu_ps(out + 8, _mm256_permute2f128_ps(r[2], r[3], 0x20));
    _mm256_storeu_ps(out + 16, _mm256_permute2f128_ps(r[0], r[1], 0x31));
    _mm256_storeu_ps(out + 24, _mm256_permute2f128_ps(r[2], r[3], 0x31));
}

/* Lane j of (a0, a1, b0, b1) holds block j's four values: out[4j + k] gets value k
 * (each 128-bit quarter transposed, then the quarters in turn). */
__attribute__((target("avx512f"))) static void store_t16(__m512 a0, __m512 a1, __m512 b0, __m512 b1, float *out)
{
    __m512 t0 = _mm512_unpacklo_ps(a0, a1), t1 = _mm512_unpackhi_ps(a0, a1);
    __m512 t2 = _mm512_unpacklo_ps(b0, b1), t3 = _mm512_unpackhi_ps(b0, b1);
    __m512 r0 = _mm512_shuffle_ps(t0, t2, _MM_SHUFFLE(1, 0, 1, 0)), r1 = _mm512_shuffle_ps(t0, t2, _MM_SHUFFLE(3, 2, 3, 2));
    __m512 r2 = _mm512_shuffle_ps(t1, t3, _MM_SHUFFLE(1, 0, 1, 0)), r3 = _mm512_shuffle_ps(t1, t3, _MM_SHUFFLE(3, 2, 3, 2));
    __m512 u0 = _mm512_shuffle_f32x4(r0, r1, _MM_SHUFFLE(1, 0, 1, 0));
    __m512 u1 = _mm512_shuffle_f32x4(r0, r1, _MM_SHUFFLE(3, 2, 3, 2));
    __m512 u2 = _mm512_shuffle_f32x4(r2, r3, _MM_SHUFFLE(1, 0, 1, 0));
    __m512 u3 = _mm512_shuffle_f32x4(r2, r3, _MM_SHUFFLE(3, 2, 3, 2));
    _mm512_storeu_ps(out, _mm512_shuffle_f32x4(u0, u2, _MM_SHUFFLE(2, 0, 2, 0)));
    _mm512_storeu_ps(out + 16, _mm512_shuffle_f32x4(u0, u2, _MM_SHUFFLE(3, 1, 3, 1)));
    _mm512_storeu_ps(out + 32, _mm512_shuffle_f32x4(u1, u3, _MM_SHUFFLE(2, 0, 2, 0)));
    _mm512_storeu_ps(out + 48, _mm512_shuffle_f32x4(u1, u3, _MM_SHUFFLE(3, 1, 3, 1)));
}

/* 64 values: the blocks b..b+15 of one counter, in channel order. */
__attribute__((target("avx512f"))) static void group16(const uint32_t key[2], uint64_t sample, uint32_t stream,
                                                      uint32_t b, float *out)
{
    __m512 a0, a1, b0, b1;
    gauss16(key, sample, stream, b, &a0, &a1, &b0, &b1);
    store_t16(a0, a1, b0, b1, out);
}

/* Philox4x32-10 of two sets of sixteen counters, their rounds interleaved so
 * that one set's multiplies run while the other's wait (the same words). */
__attribute__((target("avx512f"))) static inline void philox16x2(const uint32_t key[2], __m512i x[4], __m512i y[4])
{
    const __m512i m0 = _mm512_set1_epi32((int)PHILOX_M0), m1 = _mm512_set1_epi32((int)PHILOX_M1);
    uint32_t k0 = key[0], k1 = key[1];
    for (int r = 0; r < 10; r++) {
        if (r) {
            k0 += PHILOX_W0;
            k1 += PHILOX_W1;
        }
        const __m512i kk0 = _mm512_set1_epi32((int)k0), kk1 = _mm512_set1_epi32((int)k1);
        __m512i lo0, hi0, lo1, hi1, mo0, ni0, mo1, ni1;
        mul_hilo16(x[0], m0, &lo0, &hi0);
        mul_hilo16(y[0], m0, &mo0, &ni0);
        mul_hilo16(x[2], m1, &lo1, &hi1);
        mul_hilo16(y[2], m1, &mo1, &ni1);
        x[0] = _mm512_xor_si512(_mm512_xor_si512(hi1, x[1]), kk0);
        y[0] = _mm512_xor_si512(_mm512_xor_si512(ni1, y[1]), kk0);
        x[2] = _mm512_xor_si512(_mm512_xor_si512(hi0, x[3]), kk1);
        y[2] = _mm512_xor_si512(_mm512_xor_si512(ni0, y[3]), kk1);
        x[1] = lo1, y[1] = mo1, x[3] = lo0, y[3] = mo0;
    }
}

/* Blocks b..b+15 of counter (sample, stream) into x, b+16..b+31 into y, both
 * through Philox (philox16x2): lane j of x[k] is word k of block b + j. */
__attribute__((target("avx512f"))) static inline void philox32(const uint32_t key[2], uint64_t sample, uint32_t stream,
                                                              uint32_t b, __m512i x[4], __m512i y[4])
{
    const __m512i lanes = _mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
    const __m512i s0 = _mm512_set1_epi32((int)(uint32_t)sample), s1 = _mm512_set1_epi32((int)(uint32_t)(sample >> 32));
    const __m512i st = _mm512_set1_epi32((int)stream);
    x[0] = y[0] = s0, x[1] = y[1] = s1, x[3] = y[3] = st;
    x[2] = _mm512_add_epi32(_mm512_set1_epi32((int)b), lanes);
    y[2] = _mm512_add_epi32(_mm512_set1_epi32((int)(b + 16)), lanes);
    philox16x2(key, x, y);
}

/* The 128 values of the Philox words of two sets of sixteen blocks (x, y):
 * block j of x at out[4j..4j+3], block j of y at out[64 + 4j..]. */
__attribute__((target("avx512f"))) static inline void box_muller32(const __m512i x[4], const __m512i y[4], float *out)
{
    __m512 a0, a1, b0, b1, c0, c1, d0, d1;
    box_muller16(x[0], x[1], &a0, &a1);
    box_muller16(y[0], y[1], &c0, &c1);
    box_muller16(x[2], x[3], &b0, &b1);
    box_muller16(y[2], y[3], &d0, &d1);
    store_t16(a0, a1, b0, b1, out);
    store_t16(c0, c1, d0, d1, out + 64);
}

/* 128 values: the blocks b..b+31 of one counter, in channel order (group16 twice). */
__attribute__((target("avx512f"))) static void group32(const uint32_t key[2], uint64_t sample, uint32_t stream,
                                                      uint32_t b, float *out)
{
    __m512i x[4], y[4];
    philox32(key, sample, stream, b, x, y);
    box_muller32(x, y, out);
}

/* The words of blocks b..b+15 of counter (sample, stream) in channel order
 * (block j's word k at 4j + k). */
__attribute__((target("avx512f"))) static void words16(const uint32_t key[2], uint64_t sample, uint32_t stream,
                                                      uint32_t b, uint32_t *out)
{
    __m512i x[4] = {_mm512_set1_epi32((int)(uint32_t)sample), _mm512_set1_epi32((int)(uint32_t)(sample >> 32)),
                    _mm512_add_epi32(_mm512_set1_epi32((int)b),
                                     _mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0)),
                    _mm512_set1_epi32((int)stream)};
    philox16(key, x);
    float tmp[64];
    store_t16(_mm512_castsi512_ps(x[0]), _mm512_castsi512_ps(x[1]), _mm512_castsi512_ps(x[2]),
              _mm512_castsi512_ps(x[3]), tmp);
    memcpy(out, tmp, sizeof tmp);
}

/* The words of blocks b..b+31 (words16 twice, the rounds interleaved). */
__attribute__((target("avx512f"))) static void words32(const uint32_t key[2], uint64_t sample, uint32_t stream,
                                                      uint32_t b, uint32_t *out)
{
    __m512i x[4], y[4];
    philox32(key, sample, stream, b, x, y);
    float tmp[128];
    store_t16(_mm512_castsi512_ps(x[0]), _mm512_castsi512_ps(x[1]), _mm512_castsi512_ps(x[2]),
              _mm512_castsi512_ps(x[3]), tmp);
    store_t16(_mm512_castsi512_ps(y[0]), _mm512_castsi512_ps(y[1]), _mm512_castsi512_ps(y[2]),
              _mm512_castsi512_ps(y[3]), tmp + 64);
    memcpy(out, tmp, sizeof tmp);
}

/* Lanes of the up to 16 counters (a[j], c[j], stream) (missing lanes zero) as Philox's x[0..3]. */
__attribute__((target("avx512f"))) static inline void counters16(uint32_t stream, const uint64_t *a, const uint32_t *c,
                                                                size_t n, __m512i x[4])
{
    /* masked loads (no copy through the stack, whose stores the loads would wait on) */
    const __mmask16 m = (__mmask16)((1u << n) - 1u);
    const __m512i lo = _mm512_set_epi32(30, 28, 26, 24, 22, 20, 18, 16, 14, 12, 10, 8, 6, 4, 2, 0);
    const __m512i a0 = _mm512_maskz_loadu_epi64((__mmask8)m, a), a1 = _mm512_maskz_loadu_epi64((__mmask8)(m >> 8), a + 8);
    x[0] = _mm512_permutex2var_epi32(a0, lo, a1);
    x[1] = _mm512_permutex2var_epi32(a0, _mm512_add_epi32(lo, _mm512_set1_epi32(1)), a1);
    x[2] = _mm512_maskz_loadu_epi32(m, c);
    x[3] = _mm512_set1_epi32((int)stream);
}

/* Word 0 of up to 16 counters (a[j], c[j]) of stream `stream`. */
__attribute__((target("avx512f"))) static void words_at16(const uint32_t key[2], uint32_t stream, const uint64_t *a,
                                                         const uint32_t *c, size_t n, uint32_t *w0)
{
    uint32_t tmp[16];
    __m512i x[4];
    counters16(stream, a, c, n, x);
    philox16(key, x);
    _mm512_storeu_si512(tmp, x[0]);
    memcpy(w0, tmp, n * sizeof *w0);
}

/* Box-Muller of up to 32 counters (a[j], blocks[j]) of stream `stream`, two
 * sets of sixteen with their Philox rounds interleaved: block j's four values
 * at out[4j..4j+3]. */
__attribute__((target("avx512f"))) static void gauss_at32(const uint32_t key[2], uint32_t stream, const uint64_t *a,
                                                         const uint32_t *blocks, size_t n, float *out)
{
    __m512i x[4], y[4];
    const size_t n1 = n < 16 ? n : 16;
    counters16(stream, a, blocks, n1, x);
    counters16(stream, a + n1, blocks + n1, n - n1, y);
    philox16x2(key, x, y);
    if (n == 32) {
        box_muller32(x, y, out);
        return;
    }
    float tmp[128];
    box_muller32(x, y, tmp);
    memcpy(out, tmp, 4 * n * sizeof *out);
}

/* Box-Muller of up to 32 counters (a[j], blocks[j]) (gauss_at32's values),
 * value k of block j at z[k][j]. */
__attribute__((target("avx512f"))) static void planes32(const uint32_t key[2], uint32_t stream, const uint64_t *a,
                                                       const uint32_t *blocks, size_t n, float *const z[4], size_t at)
{
    __m512i x[4], y[4];
    const size_t n1 = n < 16 ? n : 16;
    counters16(stream, a, blocks, n1, x);
    counters16(stream, a + n1, blocks + n1, n - n1, y);
    philox16x2(key, x, y);
    __m512 v[8];   /* value k of the first sixteen blocks, then of the others */
    box_muller16(x[0], x[1], &v[0], &v[1]);
    box_muller16(x[2], x[3], &v[2], &v[3]);
    box_muller16(y[0], y[1], &v[4], &v[5]);
    box_muller16(y[2], y[3], &v[6], &v[7]);
    const __mmask16 m0 = (__mmask16)((1u << n1) - 1u), m1 = (__mmask16)((1u << (n - n1)) - 1u);
    for (int k = 0; k < 4; k++) {
        _mm512_mask_storeu_ps(z[k] + at, m0, v[k]);
        _mm512_mask_storeu_ps(z[k] + at + 16, m1, v[4 + k]);
    }
}

/* Up to 16 listed blocks of counter (sample, stream) through Box-Muller: block
 * blocks[j]'s four values at out[4j..4j+3]. */
__attribute__((target("avx512f"))) static void gauss_list16(const uint32_t key[2], uint64_t sample, uint32_t stream,
                                                           const uint32_t *blocks, size_t n, float *out)
{
    uint32_t idx[16] = {0};
    memcpy(idx, blocks, n * sizeof *idx);
    __m512 a0, a1, b0, b1;
    float tmp[64];
    gauss_at16(key, sample, stream, _mm512_loadu_si512(idx), &a0, &a1, &b0, &b1);
    store_t16(a0, a1, b0, b1, tmp);
    memcpy(out, tmp, 4 * n * sizeof *out);
}

/* nblocks blocks from first_block, `lanes` at a time through `group`; a short
 * tail goes through a scratch buffer. */
static void groups(void (*group)(const uint32_t[2], uint64_t, uint32_t, uint32_t, float *), size_t lanes,
                   uint64_t seed, uint32_t stream, uint64_t sample, uint32_t first_block, size_t nblocks, float *out)
{
    const uint32_t key[2] = {(uint32_t)seed, (uint32_t)(seed >> 32)};
    float tmp[64];
    size_t j = 0;
    for (; j + lanes <= nblocks; j += lanes)
        group(key, sample, stream, first_block + (uint32_t)j, out + 4 * j);
    if (j < nblocks) {
        group(key, sample, stream, first_block + (uint32_t)j, tmp);
        memcpy(out + 4 * j, tmp, 4 * (nblocks - j) * sizeof *out);
    }
}
#endif

static void blocks_ref(uint64_t seed, uint32_t stream, uint64_t sample, uint32_t first_block, size_t nblocks, float *out)
{
    for (size_t j = 0; j < nblocks; j++) {
        uint32_t w[4];
        xc_synth_words(seed, stream, sample, first_block + (uint32_t)j, w);
        box_muller_ref(w[0], w[1], &out[4 * j], &out[4 * j + 1]);
        box_muller_ref(w[2], w[3], &out[4 * j + 2], &out[4 * j + 3]);
    }
}

int xc_synth_noise_path_available(int path)
{
#ifdef XC_SYNTH_SSE2
    if (path == 3)
        return __builtin_cpu_supports("avx512f") ? 1 : 0;
    if (path == 2)
        return __builtin_cpu_supports("avx2") ? 1 : 0;
    return path == 0 || path == 1;
#else
    return path == 0;
#endif
}

void xc_synth_noise_path(int path, uint64_t seed, uint32_t stream, uint64_t sample, uint32_t first_block,
                         size_t nblocks, float *out)
{
#ifdef XC_SYNTH_SSE2
    if (path == 3 && xc_synth_noise_path_available(3)) {
        const size_t pairs = nblocks / 32 * 32;
        const uint32_t key[2] = {(uint32_t)seed, (uint32_t)(seed >> 32)};
        for (size_t j = 0; j < pairs; j += 32)
            group32(key, sample, stream, first_block + (uint32_t)j, out + 4 * j);
        groups(group16, 16, seed, stream, sample, first_block + (uint32_t)pairs, nblocks - pairs, out + 4 * pairs);
        return;
    }
    if (path >= 2 && xc_synth_noise_path_available(2)) {
        groups(group8, 8, seed, stream, sample, first_block, nblocks, out);
        return;
    }
    if (path >= 1) {
        groups(group4, 4, seed, stream, sample, first_block, nblocks, out);
        return;
    }
#endif
    blocks_ref(seed, stream, sample, first_block, nblocks, out);
}

void xc_synth_gauss_stream(uint64_t seed, uint32_t stream, uint64_t sample, uint32_t first_block, size_t nblocks,
                           float *out)
{
#ifdef XC_SYNTH_SSE2
    xc_synth_noise_path(3, seed, stream, sample, first_block, nblocks, out);   /* the widest this CPU has */
#else
    blocks_ref(seed, stream, sample, first_block, nblocks, out);
#endif
}

float xc_synth_noise(uint64_t seed, uint64_t sample, int chan)
{
    float z[4];
    xc_synth_gauss_stream(seed, XC_STREAM_NOISE, sample, (uint32_t)chan >> 2, 1, z);
    return z[chan & 3];
}

void xc_synth_noise_spectrum(uint64_t seed, uint64_t sample, int nchans, float *out)
{
    size_t full = (size_t)nchans / 4;
    xc_synth_gauss_stream(seed, XC_STREAM_NOISE, sample, 0, full, out);
    if ((size_t)nchans > 4 * full) {
        float z[4];
        xc_synth_gauss_stream(seed, XC_STREAM_NOISE, sample, (uint32_t)full, 1, z);
        memcpy(out + 4 * full, z, ((size_t)nchans - 4 * full) * sizeof *out);
    }
}

void xc_synth_words_blocks(uint64_t seed, uint32_t stream, uint64_t sample, uint32_t first_block, size_t nblocks,
                           uint32_t *out)
{
    const uint32_t key[2] = {(uint32_t)seed, (uint32_t)(seed >> 32)};
    size_t j = 0;
#ifdef XC_SYNTH_SSE2
    if (xc_synth_noise_path_available(3)) {
        uint32_t tmp[64];
        for (; j + 32 <= nblocks; j += 32)
            words32(key, sample, stream, first_block + (uint32_t)j, out + 4 * j);
        for (; j + 16 <= nblocks; j += 16)
            words16(key, sample, stream, first_block + (uint32_t)j, out + 4 * j);
        if (j < nblocks) {
            words16(key, sample, stream, first_block + (uint32_t)j, tmp);
            memcpy(out + 4 * j, tmp, 4 * (nblocks - j) * sizeof *out);
        }
        return;
    }
#endif
    for (; j < nblocks; j++)
        xc_synth_words(seed, stream, sample, first_block + (uint32_t)j, out + 4 * j);
}

void xc_synth_words_at(uint64_t seed, uint32_t stream, const uint64_t *a, const uint32_t *c, size_t n, uint32_t *w0)
{
    size_t j = 0;
#ifdef XC_SYNTH_SSE2
    if (xc_synth_noise_path_available(3)) {
        const uint32_t key[2] = {(uint32_t)seed, (uint32_t)(seed >> 32)};
        for (; j < n; j += 16)
            words_at16(key, stream, a + j, c + j, n - j < 16 ? n - j : 16, w0 + j);
        return;
    }
#endif
    for (; j < n; j++) {
        uint32_t w[4];
        xc_synth_words(seed, stream, a[j], c[j], w);
        w0[j] = w[0];
    }
}

void xc_synth_gauss_at(uint64_t seed, uint32_t stream, const uint64_t *a, const uint32_t *blocks, size_t n,
                       float *out)
{
    size_t j = 0;
#ifdef XC_SYNTH_SSE2
    if (xc_synth_noise_path_available(3)) {
        const uint32_t key[2] = {(uint32_t)seed, (uint32_t)(seed >> 32)};
        for (; j < n; j += 32)
            gauss_at32(key, stream, a + j, blocks + j, n - j < 32 ? n - j : 32, out + 4 * j);
        return;
    }
#endif
    for (; j < n; j++)
        blocks_ref(seed, stream, a[j], blocks[j], 1, out + 4 * j);
}

void xc_synth_gauss_list(uint64_t seed, uint32_t stream, uint64_t sample, const uint32_t *blocks, size_t n,
                         float *out)
{
    const uint32_t key[2] = {(uint32_t)seed, (uint32_t)(seed >> 32)};
    size_t j = 0;
#ifdef XC_SYNTH_SSE2
    if (xc_synth_noise_path_available(3)) {
        for (; j < n; j += 16)
            gauss_list16(key, sample, stream, blocks + j, n - j < 16 ? n - j : 16, out + 4 * j);
        return;
    }
#endif
    for (; j < n; j++)
        blocks_ref(seed, stream, sample, blocks[j], 1, out + 4 * j);
}

void xc_synth_gauss_planes(uint64_t seed, uint32_t stream, const uint64_t *a, const uint32_t *blocks, size_t n,
                           float *const z[4])
{
    size_t j = 0;
#ifdef XC_SYNTH_SSE2
    if (xc_synth_noise_path_available(3)) {
        const uint32_t key[2] = {(uint32_t)seed, (uint32_t)(seed >> 32)};
        for (; j < n; j += 32)
            planes32(key, stream, a + j, blocks + j, n - j < 32 ? n - j : 32, z, j);
        return;
    }
#endif
    for (float v[4]; j < n; j++) {
        blocks_ref(seed, stream, a[j], blocks[j], 1, v);
        z[0][j] = v[0], z[1][j] = v[1], z[2][j] = v[2], z[3][j] = v[3];
    }
}
