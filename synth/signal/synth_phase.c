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

#include "synth/noise/synth_noise.h"

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

/* ---- the exact generator's 8-bit levels straight from the table ----------------------
 * A value with signal s is level_of(z + s) at 8 bits (synth_levels.h), z
 * value c % 4 of the Box-Muller block (sample, c / 4) of XC_STREAM_NOISE,
 * and a pulse's s are the table's interpolation v[k] above.  So each
 * pulse-channel pair's values are made where its v is, 16 samples a vector
 * (a run), with no float buffer: the runs of a channel quad ask for the
 * blocks of one span of samples (the quad's four channels lie a few samples
 * apart), whose counters are listed once and made dense, 32 a Philox set,
 * into four planes (value k of each block), where a run's 16 Gaussians are one
 * load; each level is then a byte stored in its own row.  Where pulses do not
 * overlap in a channel (the caller's condition) each s is the one float the
 * float path summed into a zeroed buffer (0 + v = v), so the bytes are the same. */
#ifdef XC_PHASE_AVX512
#define LIST 2048   /* counters a batch (a pulse's block asks for at most 16 K = 1024) */
#define RUNS 256    /* runs a batch (a pulse's block makes at most 16 K / 16 = 64) */
#define PAD 16      /* planes' entries before the first (a run's lanes before its first value) */
#define QSPAN 48    /* samples a quad's span may cover; wider, each run its own */

typedef struct {
    uint64_t a[LIST + 16];   /* the listed counters: sample */
    uint32_t q[LIST + 16];   /* and channel quad */
    float z[4][PAD + LIST + 16];
    size_t nc;
    uint64_t s0[RUNS];       /* a run: sample of lane 0 */
    uint32_t chan[RUNS];
    uint16_t mask[RUNS];     /* the lanes with signal inside the part */
    int32_t pos[RUNS];       /* lane 0's entry in the planes (less PAD) */
    float v[RUNS * 16];
    size_t n;
} run_batch;

/* Each batched run's levels over the table draws already in out. */
__attribute__((target("avx512f,avx512bw"))) static void runs_level(uint64_t seed, uint64_t first, size_t nch,
                                                                  run_batch *r, uint8_t *out)
{
    float *const z[4] = {r->z[0] + PAD, r->z[1] + PAD, r->z[2] + PAD, r->z[3] + PAD};
    xc_synth_gauss_planes(seed, XC_STREAM_NOISE, r->a, r->q, r->nc, z);
    const __m512 four = _mm512_set1_ps(4.0f), scale = _mm512_set1_ps(31.875f), top = _mm512_set1_ps(255.0f);
    for (size_t j = 0; j < r->n; j++) {
        const __m512 g = _mm512_maskz_loadu_ps(r->mask[j], z[r->chan[j] & 3u] + r->pos[j]);
        __m512 v = _mm512_add_ps(_mm512_add_ps(g, _mm512_loadu_ps(r->v + 16 * j)), four);
        v = _mm512_min_ps(_mm512_max_ps(_mm512_mul_ps(v, scale), _mm512_setzero_ps()), top);
        uint8_t b[16];
        _mm_storeu_si128((__m128i *)b, _mm512_cvtepi32_epi8(_mm512_cvtps_epi32(v)));
        const unsigned m = r->mask[j], f = (unsigned)__builtin_ctz(m), l = 31u - (unsigned)__builtin_clz(m);
        /* a pointer down the column: the lanes are one stretch but where v is 0 */
        uint8_t *o = out + (size_t)(r->s0[j] - first + f) * nch + r->chan[j];
        for (unsigned k = f; k <= l; k++, o += nch)
            if (m >> k & 1u)
                *o = b[k];
    }
    r->n = 0;
    r->nc = 0;
}

/* Where one pulse falls in 16 channels (PHASE_ADD_BODY's operations, eight
 * channels a vector: IEEE division, floor, subtraction and product, the
 * truncation and rounding of the casts, so the same numbers): each lane's
 * first sample base, node j, fraction fr, and the part's spectra as offsets
 * from base, lo..hi. */
typedef struct {
    double base[16], lo[16], hi[16];
    int32_t j[16];
    float fr[16];
} pulse_place;

__attribute__((target("avx512f"))) static void place16(const double *dmin, double ta, double ts, int M, uint64_t first,
                                                      size_t n, pulse_place *w)
{
    const __m512d a = _mm512_set1_pd(ta), t = _mm512_set1_pd(ts), m = _mm512_set1_pd((double)M);
    const __m512d f0 = _mm512_set1_pd((double)first), f1 = _mm512_set1_pd((double)(first + n) - 1);
    for (int h = 0; h < 16; h += 8) {
        const __m512d u = _mm512_div_pd(_mm512_add_pd(a, _mm512_loadu_pd(dmin + h)), t);
        const __m512d base = _mm512_roundscale_pd(u, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC);
        const __m512d pos = _mm512_mul_pd(_mm512_sub_pd(u, base), m);
        __m256i j = _mm512_cvttpd_epi32(pos);
        j = _mm256_min_epi32(_mm256_max_epi32(j, _mm256_setzero_si256()), _mm256_set1_epi32(M - 1));
        _mm256_storeu_si256((__m256i *)(w->j + h), j);
        _mm256_storeu_ps(w->fr + h, _mm512_cvtpd_ps(_mm512_sub_pd(pos, _mm512_cvtepi32_pd(j))));
        _mm512_storeu_pd(w->base + h, base);
        _mm512_storeu_pd(w->lo + h, _mm512_sub_pd(f0, base));
        _mm512_storeu_pd(w->hi + h, _mm512_sub_pd(f1, base));
    }
}

/* One pulse's runs in channel c (lane l of w): the interpolation of
 * PHASE_ADD_BODY, the lanes clipped to the part's spectra. */
__attribute__((target("avx512f,avx512bw"))) static void pulse_runs(const xc_phase_table *t, int c, const pulse_place *w,
                                                                  int l, run_batch *r)
{
    const double lo = w->lo[l], hi = w->hi[l];
    if (hi < 0 || lo > t->K - 1)
        return;
    const int k0 = lo < 0 ? 0 : (int)lo, k1 = hi > t->K - 1 ? t->K - 1 : (int)hi;
    const size_t node = (size_t)c * (size_t)(t->M + 1) + (size_t)w->j[l];
    const float *a = t->tab + node * (size_t)t->K, *b = a + t->K;
    const __m512 f = _mm512_set1_ps(w->fr[l]);
    const __m512i lanes = _mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
    for (int k = 0; k < t->K; k += 16) {
        if (k + 15 < k0 || k > k1)
            continue;
        const __m512 x = _mm512_loadu_ps(a + k);
        const __m512 v = _mm512_add_ps(x, _mm512_mul_ps(f, _mm512_sub_ps(_mm512_loadu_ps(b + k), x)));
        const __m512i kk = _mm512_add_epi32(lanes, _mm512_set1_epi32(k));
        const __mmask16 in = _mm512_cmpge_epi32_mask(kk, _mm512_set1_epi32(k0)) &
                             _mm512_cmple_epi32_mask(kk, _mm512_set1_epi32(k1));
        const __mmask16 m = in & _mm512_cmp_ps_mask(v, _mm512_setzero_ps(), _CMP_NEQ_UQ);
        if (!m)
            continue;
        r->s0[r->n] = (uint64_t)(int64_t)w->base[l] + (uint64_t)k;
        r->chan[r->n] = (uint32_t)c;
        r->mask[r->n] = m;
        _mm512_storeu_ps(r->v + 16 * r->n, v);
        r->n++;
    }
}

/* Lists the counters (sample, quad) of samples s..s+len-1 (whole vectors:
 * the lists have room for 16 past LIST); returns the first's entry. */
__attribute__((target("avx512f"))) static int32_t list_span(run_batch *r, uint64_t s, uint32_t len, uint32_t quad)
{
    const __m512i l8 = _mm512_set_epi64(7, 6, 5, 4, 3, 2, 1, 0);
    const size_t at = r->nc;
    for (uint32_t i = 0; i < len; i += 16) {
        const __m512i s8 = _mm512_add_epi64(_mm512_set1_epi64((long long)(s + i)), l8);
        _mm512_storeu_si512(r->a + at + i, s8);
        _mm512_storeu_si512(r->a + at + i + 8, _mm512_add_epi64(s8, _mm512_set1_epi64(8)));
        _mm512_storeu_si512(r->q + at + i, _mm512_set1_epi32((int)quad));
    }
    r->nc += len;
    return (int32_t)at;
}

/* The counters runs r0.. (one channel quad's) ask for: the quad's span of
 * samples once where it covers at most QSPAN, else each run's own. */
static void quad_list(run_batch *r, size_t r0, uint32_t quad)
{
    uint64_t lo = UINT64_MAX, hi = 0;
    for (size_t j = r0; j < r->n; j++) {
        const uint64_t f = r->s0[j] + (uint64_t)__builtin_ctz(r->mask[j]);
        const uint64_t l = r->s0[j] + 31u - (uint64_t)__builtin_clz(r->mask[j]);
        lo = f < lo ? f : lo;
        hi = l > hi ? l : hi;
    }
    if (r0 < r->n && hi - lo < QSPAN) {
        const int32_t at = list_span(r, lo, (uint32_t)(hi - lo + 1), quad);
        for (size_t j = r0; j < r->n; j++)
            r->pos[j] = at + (int32_t)(int64_t)(r->s0[j] - lo);
        return;
    }
    for (size_t j = r0; j < r->n; j++) {
        const uint32_t f = (uint32_t)__builtin_ctz(r->mask[j]), l = 31u - (uint32_t)__builtin_clz(r->mask[j]);
        r->pos[j] = list_span(r, r->s0[j] + f, l - f + 1, quad) - (int32_t)f;
    }
}

__attribute__((target("avx512f,avx512bw"))) static void levels8_avx512(const xc_phase_table *t, uint64_t seed,
                                                                      uint64_t first, size_t n, int nchans, double ts,
                                                                      int c0, int c1, const xc_chgeo *geo,
                                                                      const double (*ev)[2], size_t nev, uint8_t *out)
{
    run_batch r;
    r.n = r.nc = 0;
    const size_t most = 16 * (size_t)t->K;   /* a pulse's runs' lanes in 16 channels */
    double dmin[16];
    for (int k = 0; k < 16; k++)
        dmin[k] = geo[c0 + k < c1 ? c0 + k : c0].dmin;
    pulse_place w;
    for (size_t e = 0; e < nev; e++) {
        if (r.n + most / 16 > RUNS || r.nc + most > LIST)
            runs_level(seed, first, (size_t)nchans, &r, out);
        place16(dmin, ev[e][0], ts, t->M, first, n, &w);
        for (int c = c0; c < c1; c += 4) {
            const size_t r0 = r.n;
            for (int k = c; k < c + 4 && k < c1; k++)
                pulse_runs(t, k, &w, k - c0, &r);
            quad_list(&r, r0, (uint32_t)c / 4);
        }
    }
    if (r.n)
        runs_level(seed, first, (size_t)nchans, &r, out);
}
#endif

int xc_phase_levels8_available(const xc_phase_table *t)
{
#ifdef XC_PHASE_AVX512
    return t->tab && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw");
#else
    (void)t;
    return 0;
#endif
}

void xc_phase_levels8(const xc_phase_table *t, uint64_t seed, uint64_t first, size_t n, int nchans, double ts, int c0,
                      int c1, const xc_chgeo *geo, const double (*ev)[2], size_t nev, uint8_t *out)
{
#ifdef XC_PHASE_AVX512
    if (xc_phase_levels8_available(t))
        levels8_avx512(t, seed, first, n, nchans, ts, c0, c1, geo, ev, nev, out);
#else
    (void)t, (void)seed, (void)first, (void)n, (void)nchans, (void)ts, (void)c0, (void)c1, (void)geo, (void)ev;
    (void)nev, (void)out;
#endif
}
