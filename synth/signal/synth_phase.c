/* A periodic pulsar's sample values tabulated by sub-sample phase (synth_phase.h).
 *
 * The bound.  A pulse starting at x0 in a channel adds to the sample [t0, t1)
 * the value v(x0) = (amp/ts) F(x0),
 *     F(x0) = G(t1 - x0) - G(t0 - x0) - G(t1 - x0 - w) + G(t0 - x0 - w),
 * G the channel's ramp integral (synth_tophat.c).  G' is the fraction of the
 * channel whose delay is below u, 0 <= G' <= 1, continuous when the channel is
 * smeared (S > 0); G'' = (1/df) |df_u/du| = f_u^3 / (2 K df) on (0, S), at
 * most g2 = fhi^3 / (2 K df), 0 elsewhere.  So, in the phase phi = x0/ts,
 *     |dv/dphi| <= 2 amp   (the two G' of each sign lie in [0, 1]),
 *     |d2v/dphi2| <= 2 amp ts g2   (each pair of G'' of opposite sign differs by at most g2).
 * Linear interpolation between nodes h apart is then off by at most
 * 2 t(1-t) (2 amp) h <= amp h (any Lipschitz function; t the fraction between
 * the nodes) and by at most (h^2/8) 2 amp ts g2 = amp ts g2 h^2/4 where G' is
 * continuous (Taylor with the integral remainder, G' absolutely continuous).
 * Floats: each node is the closed form's float, and the interpolation's three
 * roundings and that of the fraction add at most 4 units of 2^-24 amp. */
#include "synth/signal/synth_phase.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#if defined(__SSE2__) && defined(__x86_64__)
#include <immintrin.h>
#define XC_PHASE_AVX512 1
#endif

int xc_phase_applies(const xc_synth_params *p, const xc_timing *tm)
{
    return p->psr.period_ms > 0 && !p->fake_phase && p->profile == XC_PROFILE_TOPHAT && !tm->binary &&
           tm->pdot == 0 && tm->accn == 0 && !tm->fake;
}

double xc_phase_bound(const xc_chgeo *g, double tsamp, double amp, int M)
{
    const double h = 1.0 / M, lip = fabs(amp) * h;
    if (g->S <= 0 || g->K <= 0)
        return lip;
    const double g2 = g->fhi * g->fhi2 / (2.0 * g->K * g->df);
    const double smooth = fabs(amp) * tsamp * g2 * h * h / 4.0;
    return smooth < lip ? smooth : lip;
}

/* The closed form's value for sample k of a pulse starting at phase phi of
 * sample 0 (xc_signal_tophat's operations on times relative to that sample). */
static float closed_value(const xc_chgeo *g, double ts, double w, double amp, double phi, int k)
{
    const double x0 = phi * ts, x1 = x0 + w, t0 = (double)k * ts, t1 = (double)(k + 1) * ts;
    const double f = (xc_chgeo_ramp(g, t1 - x0) - xc_chgeo_ramp(g, t0 - x0)) -
                     (xc_chgeo_ramp(g, t1 - x1) - xc_chgeo_ramp(g, t0 - x1));
    return f > 0 ? (float)(amp * f / ts) : 0.0f;
}

xc_status xc_phase_init(xc_phase_table *t, const xc_chgeo *geo, int nchans, double tsamp, double w, double amp,
                        xc_error *err)
{
    memset(t, 0, sizeof *t);
    /* samples from floor(x0/ts) up to the one holding the last edge x0 + w + S */
    int kneed = 0;
    for (int c = 0; c < nchans; c++) {
        const double span = 2.0 + floor((w + geo[c].S) / tsamp);
        if (!(span <= XC_PHASE_KMAX))
            return XC_OK;
        kneed = (int)span > kneed ? (int)span : kneed;
    }
    int M = 0;
    for (int m = XC_PHASE_MMIN; m <= XC_PHASE_MMAX && !M; m *= 2) {
        double worst = 0;
        for (int c = 0; c < nchans; c++) {
            const double b = xc_phase_bound(&geo[c], tsamp, amp, m);
            worst = b > worst ? b : worst;
        }
        if (worst <= XC_PHASE_TOL) {
            M = m;
            t->bound = worst;
        }
    }
    if (!M)
        return XC_OK;
    const int K = (kneed + 15) / 16 * 16;
    const size_t nodes = (size_t)nchans * (size_t)(M + 1);
    if (nodes * (size_t)K * sizeof *t->tab > XC_PHASE_BYTES) {
        t->bound = 0;
        return XC_OK;
    }
    t->tab = malloc(nodes * (size_t)K * sizeof *t->tab);
    t->span = malloc(nodes * sizeof *t->span);
    if (!t->tab || !t->span) {
        xc_phase_free(t);
        return xc_error_set(err, XC_ENOMEM, "out of memory for the pulsar's phase table (%d channels, %d phases)",
                            nchans, M + 1);
    }
    t->M = M;
    t->K = K;
    t->nchans = nchans;
    t->w = w;
    for (int c = 0; c < nchans; c++)
        for (int j = 0; j <= M; j++) {
            const size_t node = (size_t)c * (size_t)(M + 1) + (size_t)j;
            float *row = t->tab + node * (size_t)K;
            int lo = K, hi = -1;
            for (int k = 0; k < K; k++) {
                row[k] = k < kneed ? closed_value(&geo[c], tsamp, w, amp, (double)j / M, k) : 0.0f;
                if (row[k] != 0.0f) {
                    lo = lo < k ? lo : k;
                    hi = k;
                }
            }
            t->span[node][0] = (unsigned char)(hi < 0 ? K - 1 : lo);
            t->span[node][1] = (unsigned char)(hi < 0 ? 0 : hi);
        }
    return XC_OK;
}

void xc_phase_free(xc_phase_table *t)
{
    free(t->tab);
    free(t->span);
    memset(t, 0, sizeof *t);
}

/* One pulse into channel c: the interpolation v[k] = a[k] + fr (b[k] - a[k])
 * over the node pair's K values (the same float operations in every build:
 * this file has no fused multiply-add), then its nonzero span added down the
 * column, clipped to the chunk.  `VEC` marks the AVX-512 copy, whose scalar
 * code the compiler gives the same IEEE operations (floor is exact). */
#define PHASE_ADD_BODY(LERP)                                                                                     \
    const double u = (ta + dmin) / ck->tsamp, base = floor(u), pos = (u - base) * t->M;                        \
    int j = (int)pos;                                                                                          \
    j = j < 0 ? 0 : j >= t->M ? t->M - 1 : j;                                                                  \
    const float fr = (float)(pos - j);                                                                         \
    const size_t node = (size_t)c * (size_t)(t->M + 1) + (size_t)j;                                           \
    const int lo = t->span[node][0] < t->span[node + 1][0] ? t->span[node][0] : t->span[node + 1][0];         \
    const int hi = t->span[node][1] > t->span[node + 1][1] ? t->span[node][1] : t->span[node + 1][1];         \
    /* the samples base + lo .. base + hi, clipped to the chunk */                                            \
    const double first = (double)ck->first, last = (double)(ck->first + ck->n) - 1;                           \
    const double k0 = (double)lo > first - base ? (double)lo : first - base;                                 \
    const double k1 = (double)hi < last - base ? (double)hi : last - base;                                   \
    if (k1 < k0)                                                                                               \
        return;                                                                                                \
    float v[XC_PHASE_KMAX];                                                                                    \
    const float *a = t->tab + node * (size_t)t->K, *b = a + t->K;                                             \
    LERP;                                                                                                      \
    const size_t nch = (size_t)ck->nchans;                                                                     \
    float *x = ck->x + (size_t)((uint64_t)(base + k0) - ck->first) * nch + (size_t)c;                         \
    for (int k = (int)k0; k <= (int)k1; k++, x += nch)                                                         \
        x[0] += v[k];

#ifdef XC_PHASE_AVX512
__attribute__((target("avx512f"))) static inline void add_avx512(const xc_phase_table *t, const xc_chunk *ck, int c,
                                                                double dmin, double ta)
{
    PHASE_ADD_BODY({
        const __m512 f = _mm512_set1_ps(fr);
        for (int k = 0; k < t->K; k += 16) {
            const __m512 x = _mm512_loadu_ps(a + k);
            _mm512_storeu_ps(v + k, _mm512_add_ps(x, _mm512_mul_ps(f, _mm512_sub_ps(_mm512_loadu_ps(b + k), x))));
        }
    })
}

__attribute__((target("avx512f"))) static void add_block_avx512(const xc_phase_table *t, const xc_chunk *ck, int c0,
                                                               int c1, const xc_chgeo *geo, double ta)
{
    for (int c = c0; c < c1; c++)
        add_avx512(t, ck, c, geo[c].dmin, ta);
}
#endif

static inline void add_one(const xc_phase_table *t, const xc_chunk *ck, int c, double dmin, double ta)
{
    PHASE_ADD_BODY(for (int k = 0; k < t->K; k++) v[k] = a[k] + fr * (b[k] - a[k]))
}

void xc_phase_add(const xc_phase_table *t, const xc_chunk *ck, int c0, int c1, const xc_chgeo *geo, double ta)
{
#ifdef XC_PHASE_AVX512
    if (__builtin_cpu_supports("avx512f")) {
        add_block_avx512(t, ck, c0, c1, geo, ta);
        return;
    }
#endif
    for (int c = c0; c < c1; c++)
        add_one(t, ck, c, geo[c].dmin, ta);
}
