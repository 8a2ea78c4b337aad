/* The synthesizer's fast paths: the vector top hat (synth/signal/synth_tophat.c)
 * against the scalar definition, bit for bit, and the stream's bytes at one and
 * two threads and any chunk size.
 *
 * The definition is xc_signal_tophat's loop: G = xc_chgeo_ramp at the sample
 * boundaries t_k = (i0 + k) tsamp, f = (G(t1 - x0) - G(t0 - x0)) - (G(t1 - x1)
 * - G(t0 - x1)), the value (float)(amp f / tsamp) where f > 0.  The vector
 * path does the same IEEE operations in the same order, so the comparison is
 * exact (tolerance 0): any difference is a bug, not rounding. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "synth/model/xc_synth.h"
#include "synth/signal/synth_signal.h"
#include "tests/xc_test.h"

static int skip_no_vector(char *why, size_t n)
{
    xc_chgeo g = {0};
    float v[1];
    uint64_t on;
    if (xc_tophat_values(&g, 1e-4, 0, 1e-4, 1, 0, 1, v, &on))
        return 0;
    snprintf(why, n, "this CPU (or build) has no vector top-hat path");
    return 1;
}

/* The scalar definition of one sample's value; returns whether it is added. */
static int ref_value(const xc_chgeo *g, double ts, double x0, double x1, double amp, uint64_t i, float *out)
{
    double t0 = (double)i * ts, t1 = (double)(i + 1) * ts;
    double f = (xc_chgeo_ramp(g, t1 - x0) - xc_chgeo_ramp(g, t0 - x0)) -
               (xc_chgeo_ramp(g, t1 - x1) - xc_chgeo_ramp(g, t0 - x1));
    *out = (float)(amp * f / ts);
    return f > 0;
}

/* A small deterministic generator for the cases (splitmix64). */
static double unit(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return (double)((z ^ (z >> 31)) >> 11) * 0x1p-53;
}

XC_TEST_IF(test_tophat_vector_matches_scalar, "tophat_vector_matches_scalar", skip_no_vector)
{
    /* Bands from 150 MHz to 3 GHz, 16 to 4096 channels, DM 0 to 2000, smearing
     * on and off; each case puts a pulse edge, its smear ramp or its middle
     * in the block at random, with every block length 1..64. */
    uint64_t st = 12345;
    size_t cases = 0, values = 0, bad = 0, added = 0;
    for (int t = 0; t < 3000; t++) {
        xc_synth_params p;
        xc_synth_params_init(&p);
        p.nchans = 16 << (t % 9);
        p.fch1 = 150 + 2850 * unit(&st);
        p.foff = -(p.fch1 * 0.5 * unit(&st)) / p.nchans - 1e-3;
        p.tsamp = 1e-5 * (1 + 100 * unit(&st));
        p.smear = t % 5 != 0;
        const double dm = t % 7 == 0 ? 0 : 2000 * unit(&st);
        const int c = (int)(unit(&st) * p.nchans);
        xc_chgeo g;
        xc_chgeo_set(&g, &p, c, dm);
        const double ts = p.tsamp, w = ts * 20 * unit(&st), amp = 0.01 + unit(&st);
        const uint64_t i0 = (uint64_t)(unit(&st) * 1e7);
        /* x0 within a few smear spans and samples of the block's start */
        const double x0 = (double)i0 * ts + (unit(&st) - 0.5) * (4 * g.S + 40 * ts), x1 = x0 + w;
        const size_t n = 1 + (size_t)t % XC_TOPHAT_BLOCK;
        float v[XC_TOPHAT_BLOCK + 1];
        v[n] = -7.0f;   /* nothing past n is written */
        uint64_t on = 0;
        CU_ASSERT_FATAL(xc_tophat_values(&g, ts, x0, x1, amp, i0, n, v, &on));
        bad += v[n] != -7.0f;
        for (size_t k = 0; k < n; k++) {
            float r;
            int use = ref_value(&g, ts, x0, x1, amp, i0 + k, &r);
            int got = (int)((on >> k) & 1u);
            bad += use != got || (use && memcmp(&r, &v[k], sizeof r) != 0);
            added += (size_t)use;
            values++;
        }
        bad += n < 64 && (on >> n) != 0;
        cases++;
        xc_synth_params_free(&p);
    }
    if (bad)
        printf("\n  %zu of %zu values differ from the scalar definition in %zu cases (expected 0, exact)\n", bad,
               values, cases);
    CU_ASSERT_EQUAL(bad, 0);
    /* the cases exercise the pulse, not only empty blocks */
    CU_ASSERT(added > values / 10);
    CU_ASSERT(added < values);
}

/* A sink that keeps a running hash of the bytes and fails at call fail_at. */
typedef struct {
    uint64_t hash, bytes;
    int calls, fail_at;
} hash_sink;

static int hash_bytes(void *ctx, const uint8_t *b, size_t n)
{
    hash_sink *h = ctx;
    if (++h->calls == h->fail_at)
        return 1;
    for (size_t i = 0; i < n; i++)
        h->hash = (h->hash ^ b[i]) * 0x100000001B3ull;   /* FNV-1a */
    h->bytes += n;
    return 0;
}

static void stream_params(xc_synth_params *p, int threads)
{
    xc_synth_params_init(p);
    p->nchans = 512;
    p->nbits = 8;
    p->tsamp = 64e-6;
    p->tobs = 0.3;
    p->fch1 = 1550;
    p->foff = -300.0 / 512;
    p->psr.period_ms = 5;
    p->psr.dm = 100;
    p->psr.snrpeak = 20;
    p->psr.width_pct = 10;
    p->nthreads = threads;
}

XC_TEST(test_stream_parts_same_bytes, "stream_parts_same_bytes")
{
    /* One thread and two (chunks made in parallel, written in order) give the
     * same bytes, with the automatic chunk and with odd chunk sizes;
     * a failing sink stops the stream with XC_EIO naming the spectra. */
    static const size_t chunks[3] = {0, 1000, 77};
    uint64_t want = 0;
    for (int t = 0; t < 3; t++)
        for (int threads = 1; threads <= 2; threads++) {
            xc_synth_params p;
            stream_params(&p, threads);
            p.chunk = chunks[t];
            hash_sink h = {0xcbf29ce484222325ull, 0, 0, 0};
            xc_error err;
            CU_ASSERT_EQUAL_FATAL(xc_synth_stream(&p, hash_bytes, &h, &err), XC_OK);
            CU_ASSERT_EQUAL(h.bytes, xc_synth_nsamp(&p) * 512);
            if (!want)
                want = h.hash;
            if (h.hash != want)
                printf("\n  chunk %zu, %d threads: hash %016llx, expected %016llx (exact)\n", chunks[t], threads,
                       (unsigned long long)h.hash, (unsigned long long)want);
            CU_ASSERT_EQUAL(h.hash, want);
            hash_sink bad = {0, 0, 0, 3};
            CU_ASSERT_EQUAL(xc_synth_stream(&p, hash_bytes, &bad, &err), XC_EIO);
            CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "writing spectra"));
            CU_ASSERT_EQUAL(bad.calls, 3);   /* nothing handed over after the failure */
            xc_synth_params_free(&p);
        }
}

XC_TEST_MAIN("synth_fast")
