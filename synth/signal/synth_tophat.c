/* A top hat's sample values through a channel's smearing ramp, eight samples at
 * a time (AVX-512F doubles).
 *
 * The arithmetic is xc_signal_tophat's, operation for operation: every lane
 * evaluates the ramp G(u) of synth_signal.c with the same multiplies, adds,
 * square root and divide in the same order (IEEE-754 correctly rounded in a
 * vector lane as in a scalar register, no fused multiply-add: -std=c11 keeps
 * -ffp-contract=off and the intrinsics below name each operation), and the
 * branches u <= 0 and u >= S become selects.  So the values, and the file's
 * bytes, are those of the scalar loop; tests/test_synth.c compares the two
 * bit for bit. */
#include "synth/signal/synth_signal.h"

#include <string.h>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>

#define TOPHAT_ATTR __attribute__((target("avx512f")))

/* The smooth part of G(u) for eight u in (0, S). */
TOPHAT_ATTR static inline __m512d smooth8(const xc_chgeo *g, __m512d u)
{
    const __m512d one = _mm512_set1_pd(1.0);
    __m512d eps = _mm512_mul_pd(u, _mm512_set1_pd(g->fhi2_k));
    __m512d sq = _mm512_sqrt_pd(_mm512_add_pd(one, eps));
    __m512d d = _mm512_div_pd(_mm512_mul_pd(_mm512_set1_pd(g->fhi), eps), _mm512_mul_pd(_mm512_add_pd(one, sq), sq));
    __m512d in = _mm512_sub_pd(u, _mm512_mul_pd(_mm512_mul_pd(_mm512_set1_pd(g->kf3), d), sq));
    return _mm512_mul_pd(_mm512_mul_pd(d, _mm512_set1_pd(g->inv_df)), in);
}

/* G(u) of eight u into out where u <= 0 (0) or u >= S (u - dbar); the lanes
 * in between (the smear ramp, a few boundaries at each edge of a pulse) are
 * queued, u and place, for smooth8: its square root and divide then run on
 * full vectors. */
TOPHAT_ATTR static inline void ramp8(const xc_chgeo *g, __m512d u, double *out, int64_t at, double *qu, int64_t *qat,
                                     size_t *nq)
{
    __mmask8 flat = _mm512_cmp_pd_mask(u, _mm512_set1_pd(g->S), _CMP_GE_OQ);
    __mmask8 pos = _mm512_cmp_pd_mask(u, _mm512_setzero_pd(), _CMP_NLE_UQ);   /* !(u <= 0) */
    __m512d r = _mm512_maskz_sub_pd(flat, u, _mm512_set1_pd(g->dbar));
    _mm512_storeu_pd(out + at, _mm512_maskz_mov_pd(pos, r));
    __mmask8 mid = pos & (__mmask8)~flat;
    if (mid) {
        const __m512i place = _mm512_add_epi64(_mm512_set1_epi64(at), _mm512_set_epi64(7, 6, 5, 4, 3, 2, 1, 0));
        /* compress in a register, then a plain store: the compressing store is slow on some CPUs */
        _mm512_storeu_pd(qu + *nq, _mm512_maskz_compress_pd(mid, u));
        _mm512_storeu_si512(qat + *nq, _mm512_maskz_compress_epi64(mid, place));
        *nq += (size_t)__builtin_popcount(mid);
    }
}

TOPHAT_ATTR static void values8(const xc_chgeo *g, double ts, double x0, double x1, double amp, uint64_t i0,
                                size_t n, float *v, uint64_t *on)
{
    /* boundaries k = 0..n: t_k = (i0 + k) ts, (double)i0 + k exact below 2^53 as (double)(i0 + k);
     * ga at G[k], gb at G[W + k] */
    enum { W = XC_TOPHAT_BLOCK + 16 };
    double G[2 * W], qu[2 * W + 8];
    int64_t qat[2 * W + 8];
    size_t nq = 0;
    const __m512d tsv = _mm512_set1_pd(ts), base = _mm512_set1_pd((double)i0);
    const __m512d lane = _mm512_set_pd(7, 6, 5, 4, 3, 2, 1, 0);
    for (size_t k = 0; k <= n + 1; k += 8) {   /* to n + 8 at least: the tail lanes below read them */
        __m512d t = _mm512_mul_pd(_mm512_add_pd(base, _mm512_add_pd(_mm512_set1_pd((double)k), lane)), tsv);
        ramp8(g, _mm512_sub_pd(t, _mm512_set1_pd(x0)), G, (int64_t)k, qu, qat, &nq);
        ramp8(g, _mm512_sub_pd(t, _mm512_set1_pd(x1)), G, (int64_t)(W + k), qu, qat, &nq);
    }
    _mm512_storeu_pd(qu + nq, _mm512_setzero_pd());   /* the last vector's unused lanes */
    for (size_t j = 0; j < nq; j += 8) {
        double r[8];
        _mm512_storeu_pd(r, smooth8(g, _mm512_loadu_pd(qu + j)));
        for (size_t l = 0; l < 8 && j + l < nq; l++)
            G[qat[j + l]] = r[l];
    }
    const double *ga = G, *gb = G + W;
    const __m512d ampv = _mm512_set1_pd(amp);
    uint64_t bits = 0;
    for (size_t k = 0; k < n; k += 8) {
        __m512d da = _mm512_sub_pd(_mm512_loadu_pd(ga + k + 1), _mm512_loadu_pd(ga + k));
        __m512d db = _mm512_sub_pd(_mm512_loadu_pd(gb + k + 1), _mm512_loadu_pd(gb + k));
        __m512d f = _mm512_sub_pd(da, db);
        __mmask8 m = _mm512_cmp_pd_mask(f, _mm512_setzero_pd(), _CMP_GT_OQ);
        __m256 y = _mm512_cvtpd_ps(_mm512_div_pd(_mm512_mul_pd(ampv, f), tsv));
        _mm256_storeu_ps(v + k, y);
        bits |= (uint64_t)m << k;
    }
    *on = n < 64 ? bits & ((UINT64_C(1) << n) - 1) : bits;
}

int xc_tophat_values(const xc_chgeo *g, double ts, double x0, double x1, double amp, uint64_t i0, size_t n, float *v,
                     uint64_t *on)
{
    if (n > XC_TOPHAT_BLOCK || !__builtin_cpu_supports("avx512f"))
        return 0;
    float tmp[XC_TOPHAT_BLOCK + 8];
    values8(g, ts, x0, x1, amp, i0, n, tmp, on);
    memcpy(v, tmp, n * sizeof *v);
    return 1;
}
#else
int xc_tophat_values(const xc_chgeo *g, double ts, double x0, double x1, double amp, uint64_t i0, size_t n, float *v,
                     uint64_t *on)
{
    (void)g, (void)ts, (void)x0, (void)x1, (void)amp, (void)i0, (void)n, (void)v, (void)on;
    return 0;
}
#endif
