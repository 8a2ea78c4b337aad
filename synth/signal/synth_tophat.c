/* A channel's dispersion geometry and the top hat it sees: one channel at a
 * time (xc_signal_tophat), or eight neighbouring channels at once
 * (xc_signal_tophat8, below). */
#include "synth/signal/synth_tophat.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ---- one channel's dispersion ------------------------------------------------------
 * A channel integrating uniformly over [flo, fhi] sees a pulse that reaches its
 * top edge at x with delays D(f) - D(fhi) spread over [0, S].  Integrated over a
 * sample [t0, t1), a top hat [x0, x1) gives
 *     G(t1 - x0) - G(t0 - x0) - G(t1 - x1) + G(t0 - x1),
 * G(u) = (1/df) int max(u - D'(f), 0) df, D' = D - D(fhi).  With f_u the
 * frequency whose delay is u (fhi - f_u = fhi eps/((1 + sqrt(1+eps)) sqrt(1+eps)),
 * eps = u fhi^2/K) the integral is
 *     G(u) = (fhi - f_u)/df * (u - K (fhi - f_u)/(f_u fhi^2))   for 0 < u < S,
 * (f_u = fhi/sqrt(1 + eps))
 * 0 below and u - K df/(flo fhi^2) above (the mean delay). */

void xc_chgeo_set(xc_chgeo *g, const xc_synth_params *p, int c, double dm)
{
    const double bw = fabs(p->foff), fc = p->fch1 - c * bw;
    g->K = p->convention->kdm * dm;
    if (!p->smear || g->K == 0) {
        g->dmin = xc_synth_delay(p, dm, fc);
        g->S = 0;
        g->dbar = 0;
        g->fhi = fc;
        g->fhi2 = fc * fc;
        g->df = bw;
        g->inv_df = 1.0 / bw;
        g->fhi2_k = 0;
        g->kf3 = 0;
        return;
    }
    const double fhi = fc + 0.5 * bw, flo = fc - 0.5 * bw;
    g->fhi = fhi;
    g->fhi2 = fhi * fhi;
    g->df = bw;
    g->inv_df = 1.0 / bw;
    g->fhi2_k = g->fhi2 / g->K;
    g->kf3 = g->K / (fhi * g->fhi2);
    g->dmin = xc_synth_delay(p, dm, fhi);
    g->S = g->K * (1.0 / (flo * flo) - 1.0 / g->fhi2);
    g->dbar = g->K * bw / (flo * g->fhi2);
}

static inline double ramp(const xc_chgeo *g, double u)
{
    if (u <= 0)
        return 0;
    if (u >= g->S)
        return u - g->dbar;
    /* f_u = fhi/sqrt(1 + eps), so K d/(f_u fhi^2) = (K/fhi^3) d sqrt(1 + eps) */
    double eps = u * g->fhi2_k, sq = sqrt(1.0 + eps);
    double d = g->fhi * eps / ((1.0 + sq) * sq);
    return d * g->inv_df * (u - g->kf3 * d * sq);
}

double xc_chgeo_ramp(const xc_chgeo *g, double u) { return ramp(g, u); }

void xc_signal_tophat(const xc_chunk *ck, int c, const xc_chgeo *g, double ta, double tb, double amp)
{
    const double ts = ck->tsamp, x0 = ta + g->dmin, x1 = tb + g->dmin;
    const double lo = (double)ck->first, hi = (double)(ck->first + ck->n) - 1;
    double ia = floor(x0 / ts) - 1, ib = floor((x1 + g->S) / ts) + 1;
    if (ib < lo || ia > hi)
        return;
    uint64_t i0 = (uint64_t)(ia > lo ? ia : lo), i1 = (uint64_t)(ib < hi ? ib : hi);
    /* A sample's value depends only on (ta, tb, geometry, amp, its index),
     * never on where the chunk starts, so the bytes do not depend on the
     * chunk size; t0 of sample i+1 is computed exactly as t1 of sample i. */
    double t0 = (double)i0 * ts;
    double ga0 = ramp(g, t0 - x0), gb0 = ramp(g, t0 - x1);
    for (uint64_t i = i0; i <= i1; i++) {
        double t1 = (double)(i + 1) * ts;
        double ga1 = ramp(g, t1 - x0), gb1 = ramp(g, t1 - x1);
        double f = (ga1 - ga0) - (gb1 - gb0);
        if (f > 0)
            ck->x[(size_t)(i - ck->first) * (size_t)ck->nchans + (size_t)c] += (float)(amp * f / ts);
        ga0 = ga1;
        gb0 = gb1;
    }
}

/* ---- one top hat into eight neighbouring channels at once ---------------------------
 *
 * xc_signal_tophat walks one channel's samples, and a channel's pulse has only
 * a dozen or so sample boundaries, about half of them on the smearing ramp:
 * too few for the vector square root and divide, whose latency then sets the
 * pace.  Here the eight lanes are eight channels, each at its own k-th sample
 * from its own first one: the channels of one pulse have nearly the same
 * number of samples and reach their ramps at nearly the same k, so the lanes
 * stay full and the square roots and divides run at their throughput.  Every
 * lane does the IEEE operations of xc_signal_tophat in the same order (this
 * file is built without fused multiply-add), the last divide excepted
 * (float_quot8 gives its float without it), so the values added are the same
 * bits, and each value still gets its additions in pulse order. */

#if defined(__SSE2__) && defined(__x86_64__)
#include <immintrin.h>
#define XC_TOPHAT_AVX512 1
#endif

enum { F_DMIN, F_S, F_DBAR, F_FHI2K, F_FHI, F_INVDF, F_KF3, F_N };

double *xc_chgeo_lanes(const xc_chgeo *geo, int nchans)
{
    const size_t ngrp = ((size_t)nchans + 7) / 8;
    double *l = malloc(ngrp * F_N * 8 * sizeof *l);
    if (!l)
        return NULL;
    for (size_t g = 0; g < ngrp; g++)
        for (size_t k = 0; k < 8; k++) {
            /* lanes past the last channel copy it; they are never active */
            const size_t c = 8 * g + k < (size_t)nchans ? 8 * g + k : (size_t)nchans - 1;
            const xc_chgeo *e = &geo[c];
            const double v[F_N] = {e->dmin, e->S, e->dbar, e->fhi2_k, e->fhi, e->inv_df, e->kf3};
            for (int f = 0; f < F_N; f++)
                l[(g * F_N + (size_t)f) * 8 + k] = v[f];
        }
    return l;
}

#ifdef XC_TOPHAT_AVX512
/* xc_signal_tophat's ramp for eight channels: the square root and divide only
 * when some lane's u lies on its ramp. */
__attribute__((target("avx512f"))) static inline __m512d ramp8(const double *gl, __m512d u)
{
    const __m512d zero = _mm512_setzero_pd(), one = _mm512_set1_pd(1.0), S = _mm512_loadu_pd(gl + 8 * F_S);
    __mmask8 pos = _mm512_cmp_pd_mask(u, zero, _CMP_GT_OQ), past = _mm512_cmp_pd_mask(u, S, _CMP_GE_OQ);
    __m512d r = _mm512_maskz_sub_pd(pos, u, _mm512_loadu_pd(gl + 8 * F_DBAR));
    __mmask8 on = pos & (__mmask8)~past;
    if (!on)
        return r;
    __m512d eps = _mm512_mul_pd(u, _mm512_loadu_pd(gl + 8 * F_FHI2K));
    __m512d sq = _mm512_sqrt_pd(_mm512_add_pd(one, eps));
    __m512d d = _mm512_div_pd(_mm512_mul_pd(_mm512_loadu_pd(gl + 8 * F_FHI), eps),
                              _mm512_mul_pd(_mm512_add_pd(one, sq), sq));
    __m512d in = _mm512_sub_pd(u, _mm512_mul_pd(_mm512_mul_pd(_mm512_loadu_pd(gl + 8 * F_KF3), d), sq));
    return _mm512_mask_mov_pd(r, on, _mm512_mul_pd(_mm512_mul_pd(d, _mm512_loadu_pd(gl + 8 * F_INVDF)), in));
}

/* (float)(a / ts) without the divide: a * (1/ts) is within 4 units of the
 * last place of the quotient a / ts (three roundings), so both round to the
 * same float unless the product lies within 8 units of a float's rounding
 * midpoint (bit 28 of the double's significand), or outside the normal
 * floats; then, once in about 2^25 values, the divide itself.  Lanes not
 * in `lanes` get -0.0f, which added changes no float. */
__attribute__((target("avx512f"))) static inline __m256 float_quot8(__m512d a, __m512d ts, __m512d inv_ts,
                                                                     __mmask8 lanes)
{
    const __m512d q = _mm512_mul_pd(a, inv_ts);
    const __m512i b = _mm512_castpd_si512(q), low = _mm512_set1_epi64((1ll << 29) - 1);
    const __m512i mid = _mm512_abs_epi64(_mm512_sub_epi64(_mm512_and_si512(b, low), _mm512_set1_epi64(1ll << 28)));
    const __m512i e = _mm512_and_si512(_mm512_srli_epi64(b, 52), _mm512_set1_epi64(0x7ff));
    __mmask8 risky = lanes & (_mm512_cmple_epu64_mask(mid, _mm512_set1_epi64(8)) |
                              _mm512_cmplt_epu64_mask(e, _mm512_set1_epi64(1023 - 125)) |
                              _mm512_cmpge_epu64_mask(e, _mm512_set1_epi64(1023 + 127)));
    return _mm512_cvtpd_ps(_mm512_mask_mov_pd(_mm512_set1_pd(-0.0), lanes, risky ? _mm512_div_pd(a, ts) : q));
}

__attribute__((target("avx512f"))) static void tophat8_avx512(const xc_chunk *ck, int c0, int nc, const double *gl,
                                                             double ta, double tb, double amp)
{
    const __m512d ts = _mm512_set1_pd(ck->tsamp), one = _mm512_set1_pd(1.0), vamp = _mm512_set1_pd(amp);
    const __m512d inv_ts = _mm512_set1_pd(1.0 / ck->tsamp);
    const __m512d lo = _mm512_set1_pd((double)ck->first), hi = _mm512_set1_pd((double)(ck->first + ck->n) - 1);
    const __m512d dmin = _mm512_loadu_pd(gl + 8 * F_DMIN);
    const __m512d x0 = _mm512_add_pd(_mm512_set1_pd(ta), dmin), x1 = _mm512_add_pd(_mm512_set1_pd(tb), dmin);
    __m512d ia = _mm512_sub_pd(_mm512_roundscale_pd(_mm512_div_pd(x0, ts), _MM_FROUND_TO_NEG_INF), one);
    __m512d ib = _mm512_add_pd(
        _mm512_roundscale_pd(_mm512_div_pd(_mm512_add_pd(x1, _mm512_loadu_pd(gl + 8 * F_S)), ts), _MM_FROUND_TO_NEG_INF),
        one);
    __mmask8 act = (__mmask8)((1u << nc) - 1u);
    act &= _mm512_cmp_pd_mask(ib, lo, _CMP_GE_OQ) & _mm512_cmp_pd_mask(ia, hi, _CMP_LE_OQ);
    if (!act)
        return;
    const __m512d i0 = _mm512_max_pd(ia, lo), i1 = _mm512_min_pd(ib, hi);
    double i0d[8], nd[8];
    _mm512_storeu_pd(i0d, i0);
    _mm512_storeu_pd(nd, _mm512_sub_pd(i1, i0));
    size_t row0[8], steps = 0;
    for (int l = 0; l < 8; l++) {
        row0[l] = (size_t)((uint64_t)i0d[l] - ck->first) * (size_t)ck->nchans + (size_t)(c0 + l);
        if ((act >> l & 1) && (size_t)nd[l] + 1 > steps)
            steps = (size_t)nd[l] + 1;
    }
    /* The lanes' values of up to BATCH steps, then each lane's run from its
     * first to its last step with a value added down its column (a step
     * between them without one adds -0.0f, which changes no float). */
    enum { BATCH = 32 };
    float val[BATCH][8];
    __m512d t = _mm512_mul_pd(i0, ts), i = i0;
    __m512d ga0 = ramp8(gl, _mm512_sub_pd(t, x0)), gb0 = ramp8(gl, _mm512_sub_pd(t, x1));
    const size_t rowstep = (size_t)ck->nchans;
    for (size_t k0 = 0; k0 < steps; k0 += BATCH) {
        const size_t nk = steps - k0 < BATCH ? steps - k0 : BATCH;
        __m512i kfirst = _mm512_set1_epi32(BATCH), klast = _mm512_set1_epi32(-1);
        for (size_t k = 0; k < nk; k++) {
            act &= _mm512_cmp_pd_mask(i, i1, _CMP_LE_OQ);
            i = _mm512_add_pd(i, one);
            t = _mm512_mul_pd(i, ts);
            __m512d ga1 = ramp8(gl, _mm512_sub_pd(t, x0)), gb1 = ramp8(gl, _mm512_sub_pd(t, x1));
            __m512d f = _mm512_sub_pd(_mm512_sub_pd(ga1, ga0), _mm512_sub_pd(gb1, gb0));
            const __mmask8 on = act & _mm512_cmp_pd_mask(f, _mm512_setzero_pd(), _CMP_GT_OQ);
            _mm256_storeu_ps(val[k], on ? float_quot8(_mm512_mul_pd(vamp, f), ts, inv_ts, on)
                                           : _mm256_set1_ps(-0.0f));
            const __m512i kv = _mm512_set1_epi32((int)k);
            klast = _mm512_mask_mov_epi32(klast, on, kv);
            kfirst = _mm512_mask_min_epi32(kfirst, on, kfirst, kv);
            ga0 = ga1;
            gb0 = gb1;
        }
        int kf[16], kl[16];
        _mm512_storeu_si512(kf, kfirst);
        _mm512_storeu_si512(kl, klast);
        for (int l = 0; l < 8; l++) {
            if (kf[l] > kl[l])
                continue;
            float *x = ck->x + row0[l] + k0 * rowstep;
            for (int k = kf[l]; k <= kl[l]; k++)
                x[(size_t)k * rowstep] += val[k][l];
        }
    }
}
#endif

void xc_signal_tophat8(const xc_chunk *ck, int c0, int nc, const xc_chgeo *geo, const double *lanes, double ta,
                       double tb, double amp)
{
#ifdef XC_TOPHAT_AVX512
    if (lanes && c0 % 8 == 0 && __builtin_cpu_supports("avx512f")) {
        tophat8_avx512(ck, c0, nc, lanes + (size_t)(c0 / 8) * F_N * 8, ta, tb, amp);
        return;
    }
#endif
    (void)lanes;
    for (int c = c0; c < c0 + nc; c++)
        xc_signal_tophat(ck, c, &geo[c], ta, tb, amp);
}
