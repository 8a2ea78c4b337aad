/* gpu-hostcopy-probe: what bounds the GPU dedisperser's pageable path on a
 * host.  Measures, with one untimed run and the median of 3 timed:
 *   - the host copy between page-locked staging and pageable memory at 1..16
 *     OpenMP threads, both directions, with memcpy and with non-temporal
 *     (streaming) stores, into warm pages, first-touch pages and 2 MiB-aligned
 *     pages advised MADV_HUGEPAGE;
 *   - that copy while the DMA engines move a page-locked buffer each way;
 *   - cudaHostRegister / cudaHostUnregister of 256 MiB .. 2 GiB (warm and
 *     untouched pages);
 *   - cudaMemcpy of 1 GiB each way: page-locked, registered, pageable.
 * Build (static, like scripts/gpu-check.sh build):
 *   gcc -O2 -fopenmp -I/usr/local/cuda/include scripts/gpu-hostcopy-probe.c -o probe \
 *       -L/usr/local/cuda/lib64 -lcudart_static -ldl -lrt -lpthread
 * Run: ./probe [MiB] (default 512). One line per measurement, GB/s = 1e9 B/s. */
#define _GNU_SOURCE
#include <cuda_runtime.h>
#include <emmintrin.h>
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void ck(cudaError_t e, const char *what)
{
    if (e != cudaSuccess) {
        fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(e));
        exit(1);
    }
}

/* n bytes, streaming stores where dst is 16-byte aligned */
static void copy_nt(char *dst, const char *src, size_t n)
{
    size_t head = (16 - ((uintptr_t)dst & 15)) & 15;
    if (head > n)
        head = n;
    memcpy(dst, src, head);
    dst += head, src += head, n -= head;
    size_t m = n & ~(size_t)63;
    for (size_t k = 0; k < m; k += 64) {
        __m128i a = _mm_loadu_si128((const __m128i *)(src + k)), b = _mm_loadu_si128((const __m128i *)(src + k + 16));
        __m128i c = _mm_loadu_si128((const __m128i *)(src + k + 32)), d = _mm_loadu_si128((const __m128i *)(src + k + 48));
        _mm_stream_si128((__m128i *)(dst + k), a);
        _mm_stream_si128((__m128i *)(dst + k + 16), b);
        _mm_stream_si128((__m128i *)(dst + k + 32), c);
        _mm_stream_si128((__m128i *)(dst + k + 48), d);
    }
    memcpy(dst + m, src + m, n - m);
    _mm_sfence();
}

static void pcopy(char *dst, const char *src, size_t n, int T, int nt)
{
#pragma omp parallel num_threads(T)
    {
        const size_t t = (size_t)omp_get_thread_num(), TT = (size_t)omp_get_num_threads();
        const size_t a = n * t / TT, b = n * (t + 1) / TT;
        if (nt)
            copy_nt(dst + a, src + a, b - a);
        else
            memcpy(dst + a, src + a, b - a);
    }
}

static int cmpd(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double rate(char *dst, const char *src, size_t n, int T, int nt)
{
    double t[3];
    for (int i = -1; i < 3; i++) {
        double t0 = now();
        pcopy(dst, src, n, T, nt);
        if (i >= 0)
            t[i] = now() - t0;
    }
    qsort(t, 3, sizeof *t, cmpd);
    return (double)n / t[1] / 1e9;
}

static char *huge_alloc(size_t n)
{
    void *p = NULL;
    if (posix_memalign(&p, (size_t)2 << 20, n))
        return NULL;
    madvise(p, n, MADV_HUGEPAGE);
    memset(p, 1, n);
    return p;
}

static void host_copies(size_t n)
{
    char *pin = NULL;
    ck(cudaHostAlloc((void **)&pin, n, cudaHostAllocDefault), "cudaHostAlloc");
    memset(pin, 2, n);
    char *pg = malloc(n), *hg = huge_alloc(n);
    memset(pg, 1, n);
    const int Ts[] = {1, 2, 4, 8, 12, 16};
    printf("# host copy %zu MiB, GB/s: threads | out memcpy, out NT, out huge memcpy, out huge NT | in memcpy, in NT, "
           "in huge memcpy\n", n >> 20);
    for (size_t k = 0; k < sizeof Ts / sizeof Ts[0]; k++) {
        const int T = Ts[k];
        printf("copy T=%2d | %6.1f %6.1f %6.1f %6.1f | %6.1f %6.1f %6.1f\n", T, rate(pg, pin, n, T, 0),
               rate(pg, pin, n, T, 1), rate(hg, pin, n, T, 0), rate(hg, pin, n, T, 1), rate(pin, pg, n, T, 0),
               rate(pin, pg, n, T, 1), rate(pin, hg, n, T, 0));
        fflush(stdout);
    }
    /* first touch: a fresh mapping each time (freed, so the next malloc maps anew) */
    for (int nt = 0; nt < 2; nt++) {
        double t[3];
        for (int i = 0; i < 3; i++) {
            char *f = malloc(n);
            double t0 = now();
            pcopy(f, pin, n, 16, nt);
            t[i] = now() - t0;
            free(f);
        }
        qsort(t, 3, sizeof *t, cmpd);
        printf("first-touch out T=16 %s: %.1f GB/s\n", nt ? "NT" : "memcpy", (double)n / t[1] / 1e9);
    }
    /* the copy while DMA runs both ways on page-locked buffers */
    char *p2 = NULL, *p3 = NULL;
    void *d2 = NULL, *d3 = NULL;
    const size_t dn = (size_t)2 << 30;
    ck(cudaHostAlloc((void **)&p2, dn, cudaHostAllocDefault), "cudaHostAlloc");
    ck(cudaHostAlloc((void **)&p3, dn, cudaHostAllocDefault), "cudaHostAlloc");
    memset(p2, 0, dn);
    memset(p3, 0, dn);
    ck(cudaMalloc(&d2, dn), "cudaMalloc");
    ck(cudaMalloc(&d3, dn), "cudaMalloc");
    cudaStream_t s2, s3;
    cudaStreamCreate(&s2);
    cudaStreamCreate(&s3);
    for (int nt = 0; nt < 2; nt++) {
        cudaDeviceSynchronize();
        double t0 = now();
        cudaMemcpyAsync(p2, d2, dn, cudaMemcpyDeviceToHost, s2);
        cudaMemcpyAsync(d3, p3, dn, cudaMemcpyHostToDevice, s3);
        double c0 = now();
        pcopy(pg, pin, n, 16, nt);
        pcopy(pin, pg, n, 16, nt);
        double c1 = now();
        cudaDeviceSynchronize();
        double t1 = now();
        printf("copy out+in T=16 %s during DMA both ways: %.1f GB/s (DMA 2 x %.1f GB/s alone-time %.3f s, all %.3f s)\n",
               nt ? "NT" : "memcpy", 2.0 * (double)n / (c1 - c0) / 1e9, (double)dn / (t1 - t0) / 1e9, t1 - t0,
               t1 - t0);
    }
    cudaFree(d2);
    cudaFree(d3);
    cudaFreeHost(p2);
    cudaFreeHost(p3);
    cudaFreeHost(pin);
    free(pg);
    free(hg);
}

static void registration(void)
{
    const size_t sz[] = {(size_t)256 << 20, (size_t)1 << 30, (size_t)2 << 30};
    for (int k = 0; k < 3; k++)
        for (int warm = 1; warm >= 0; warm--) {
            char *p = malloc(sz[k]);
            if (warm)
                memset(p, 1, sz[k]);
            double t0 = now();
            ck(cudaHostRegister(p, sz[k], cudaHostRegisterDefault), "cudaHostRegister");
            double t1 = now();
            ck(cudaHostUnregister(p), "cudaHostUnregister");
            double t2 = now();
            printf("register %4zu MiB %s: %.1f ms (%.0f ms/GB), unregister %.1f ms\n", sz[k] >> 20,
                   warm ? "warm" : "untouched", (t1 - t0) * 1e3, (t1 - t0) * 1e3 / ((double)sz[k] / 1e9),
                   (t2 - t1) * 1e3);
            free(p);
        }
}

static double dma(void *dst, const void *src, size_t n, enum cudaMemcpyKind kind)
{
    double t[3];
    for (int i = -1; i < 3; i++) {
        double t0 = now();
        ck(cudaMemcpy(dst, src, n, kind), "cudaMemcpy");
        if (i >= 0)
            t[i] = now() - t0;
    }
    qsort(t, 3, sizeof *t, cmpd);
    return (double)n / t[1] / 1e9;
}

static void transfers(void)
{
    const size_t n = (size_t)1 << 30;
    void *d = NULL;
    char *pin = NULL, *pg = malloc(n), *rg = malloc(n);
    ck(cudaMalloc(&d, n), "cudaMalloc");
    ck(cudaHostAlloc((void **)&pin, n, cudaHostAllocDefault), "cudaHostAlloc");
    memset(pin, 1, n);
    memset(pg, 1, n);
    memset(rg, 1, n);
    ck(cudaHostRegister(rg, n, cudaHostRegisterDefault), "cudaHostRegister");
    printf("1 GiB cudaMemcpy GB/s: D2H pinned %.1f registered %.1f pageable %.1f | H2D pinned %.1f registered %.1f "
           "pageable %.1f\n",
           dma(pin, d, n, cudaMemcpyDeviceToHost), dma(rg, d, n, cudaMemcpyDeviceToHost),
           dma(pg, d, n, cudaMemcpyDeviceToHost), dma(d, pin, n, cudaMemcpyHostToDevice),
           dma(d, rg, n, cudaMemcpyHostToDevice), dma(d, pg, n, cudaMemcpyHostToDevice));
    cudaHostUnregister(rg);
    cudaFreeHost(pin);
    cudaFree(d);
    free(pg);
    free(rg);
}

int main(int argc, char **argv)
{
    size_t mib = argc > 1 ? (size_t)atol(argv[1]) : 512;
    ck(cudaFree(0), "cudaFree(0)");
    printf("omp_get_max_threads %d\n", omp_get_max_threads());
    host_copies(mib << 20);
    registration();
    transfers();
    return 0;
}
