/* The synthesizer's stream: the same bytes at one and two threads and any
 * chunk size (compared through a 64-bit FNV-1a hash of every byte, exact),
 * and a failing sink that stops it. */
#include <stdio.h>
#include <string.h>

#include "synth/model/xc_synth.h"
#include "tests/xc_test.h"

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

static uint64_t stream_hash(const xc_synth_params *p)
{
    hash_sink h = {0xcbf29ce484222325ull, 0, 0, 0};
    xc_error err;
    CU_ASSERT_EQUAL_FATAL(xc_synth_stream(p, hash_bytes, &h, &err), XC_OK);
    CU_ASSERT_EQUAL(h.bytes, xc_synth_nsamp(p) * (uint64_t)p->nchans * (uint64_t)p->nbits / 8);
    return h.hash;
}

XC_TEST(test_stream_exact_same_bytes, "stream_exact_same_bytes")
{
    /* The exact generator (table draws and the Gaussian path where the pulsar
     * is) gives the same bytes at 1, 2 and 7 threads and any chunk size, at 8
     * bits (its vector path) and 4 (packed), and not the Box-Muller bytes. */
    static const size_t chunks[3] = {0, 1000, 77};
    static const int threads[3] = {1, 2, 7}, nbits[2] = {8, 4};
    for (int b = 0; b < 2; b++) {
        uint64_t want = 0;
        for (int t = 0; t < 3; t++)
            for (int k = 0; k < 3; k++) {
                xc_synth_params p;
                stream_params(&p, threads[k]);
                p.nbits = nbits[b];
                p.chunk = chunks[t];
                p.noise_gen = XC_NOISE_EXACT;
                uint64_t h = stream_hash(&p);
                if (!want) {
                    want = h;
                    p.noise_gen = XC_NOISE_BOXMULLER;
                    CU_ASSERT_NOT_EQUAL(stream_hash(&p), want);
                }
                if (h != want)
                    printf("\n  %d bits, chunk %zu, %d threads: hash %016llx, expected %016llx (exact)\n", nbits[b],
                           chunks[t], threads[k], (unsigned long long)h, (unsigned long long)want);
                CU_ASSERT_EQUAL(h, want);
                xc_synth_params_free(&p);
            }
    }
}

XC_TEST_MAIN("synth_stream")
