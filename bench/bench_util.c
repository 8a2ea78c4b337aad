/* The benchmark library's common pieces (xc_bench.h). */
#include "bench/xc_bench.h"

#include <jansson.h>
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "core/base/xc_progress.h"
#include "optimized/cpu/xc_cpu.h"

/* ---- timing ---------------------------------------------------------------- */

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

xc_status xc_bench_time(xc_bench_fn run, void (*after)(void *ctx), void *ctx, int repeat, double budget, double *t,
                        int *runs, xc_error *err)
{
    double spent = 0;
    xc_status st = XC_OK;
    *runs = 0;
    for (int r = 0; r < repeat && (r == 0 || budget <= 0 || spent < budget) && !st; r++) {
        double t0 = xc_now();
        st = run(ctx, err);
        t[r] = xc_now() - t0;
        if (after)
            after(ctx);
        spent += t[r];
        (*runs)++;
    }
    qsort(t, (size_t)*runs, sizeof *t, cmp_double);
    return st;
}

double xc_bench_median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* ---- the machine ----------------------------------------------------------- */

static void cpuinfo(xc_bench_machine *m)
{
    snprintf(m->model, sizeof m->model, "unknown");
    m->mhz = 0;
    FILE *fp = fopen("/proc/cpuinfo", "r");
    if (!fp)
        return;
    char line[512];
    int got_model = 0, got_mhz = 0;
    while (fgets(line, sizeof line, fp) && !(got_model && got_mhz)) {
        char *colon = strchr(line, ':');
        if (!colon)
            continue;
        char *v = colon + 1;
        while (*v == ' ' || *v == '\t')
            v++;
        v[strcspn(v, "\n")] = '\0';
        if (!got_model && !strncmp(line, "model name", 10)) {
            snprintf(m->model, sizeof m->model, "%s", v);
            got_model = 1;
        } else if (!got_mhz && !strncmp(line, "cpu MHz", 7)) {
            m->mhz = atof(v);
            got_mhz = 1;
        }
    }
    fclose(fp);
}

/* Best-of-3 streaming read of `bytes` with `threads` threads: the sustained
 * DRAM read bandwidth the kernel could hope for (4 accumulators so the loop is
 * not latency-bound). */
static double read_bandwidth(size_t bytes, int threads)
{
    size_t n = bytes / sizeof(uint64_t);
    uint64_t *buf = malloc(n * sizeof *buf);
    if (!buf)
        return 0;
#pragma omp parallel for schedule(static) num_threads(threads)
    for (size_t i = 0; i < n; i++)
        buf[i] = i;
    double best = 0;
    volatile uint64_t sink = 0;
    for (int r = 0; r < 3; r++) {
        double t0 = xc_now();
        uint64_t total = 0;
#pragma omp parallel for schedule(static) num_threads(threads) reduction(+ : total)
        for (size_t b = 0; b < n / 1024; b++) {
            uint64_t a0 = 0, a1 = 0, a2 = 0, a3 = 0;
            const uint64_t *p = buf + b * 1024;
            for (size_t i = 0; i < 1024; i += 4) {
                a0 += p[i];
                a1 += p[i + 1];
                a2 += p[i + 2];
                a3 += p[i + 3];
            }
            total += a0 + a1 + a2 + a3;
        }
        double t = xc_now() - t0;
        sink += total;
        if (t > 0 && (double)(n / 1024 * 1024 * 8) / t > best)
            best = (double)(n / 1024 * 1024 * 8) / t;
    }
    (void)sink;
    free(buf);
    return best;
}

/* Speedup of N threads over 1 on a register-only integer loop: what the
 * machine gives right now (a shared VM gives less than N), to read the CPU
 * kernel's own N-thread speedup against. */
static double parallel_speedup(int threads)
{
    double t[2];
    for (int k = 0; k < 2; k++) {
        int nt = k ? threads : 1;
        uint64_t total = 0;
        double t0 = xc_now();
#pragma omp parallel num_threads(nt) reduction(+ : total)
        {
            uint64_t a = 1, b = 2, c = 3, d = (uint64_t)omp_get_thread_num();
            for (long i = 0; i < 100000000L; i++) {
                a = a * 3 + 1;
                b = b * 5 + 1;
                c = c * 7 + 1;
                d = d * 9 + 1;
            }
            total += a + b + c + d;
        }
        t[k] = xc_now() - t0;
        volatile uint64_t sink = total;
        (void)sink;
    }
    return t[1] > 0 ? threads * t[0] / t[1] : 0;
}

/* One core's 16-bit lane adds per second on the kernels' vector unit: the
 * best of ten runs of xc_cpu_add_probe, five at each of its two places (each about 2.6e9 lane adds with
 * AVX-512), timed in the thread's own CPU time, so what the core can do
 * whatever else shares the machine (the kernels' rates are wall-clock). */
static double thread_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double add_peak(void)
{
    const long iters = 10000000;
    double best = 0;
    for (int r = 0; r < 10; r++) {
        int lanes = 0;
        double t0 = thread_seconds();
        volatile uint16_t sink = xc_cpu_add_probe(iters, r % 2, &lanes);
        double t = thread_seconds() - t0;
        (void)sink;
        if (t > 0 && 8.0 * (double)lanes * (double)iters / t > best)
            best = 8.0 * (double)lanes * (double)iters / t;
    }
    return best;
}

/* The direct 8-bit kernel's instruction mix per CPU second (xc_cpu_mix_probe):
 * the best of six runs of about 1.6e9 sample adds each; 0 where the kernel
 * version has no such loop. */
static double mix_peak(int split)
{
    double best = 0;
    for (int r = 0; r < 6; r++) {
        double adds = 0;
        uint16_t keep = 0;
        double t0 = thread_seconds();
        int ok = xc_cpu_mix_probe(100000, split, &adds, &keep);
        double t = thread_seconds() - t0;
        volatile uint16_t sink = keep;
        (void)sink;
        if (!ok)
            return 0;
        if (t > 0 && adds / t > best)
            best = adds / t;
    }
    return best;
}

void xc_bench_machine_measure(xc_bench_machine *m, size_t bwbytes, int threads)
{
    cpuinfo(m);
    m->cores = (int)sysconf(_SC_NPROCESSORS_ONLN);
    m->isa = xc_cpu_isa(&m->vector_bytes);
    m->bw1 = read_bandwidth(bwbytes, 1);
    m->bwn = threads > 1 ? read_bandwidth(bwbytes, threads) : m->bw1;
    m->speedup = threads > 1 ? parallel_speedup(threads) : 1.0;
    m->add16 = add_peak();
    m->mix_split = mix_peak(1);
    m->mix_aligned = mix_peak(0);
}

json_t *xc_bench_machine_json(const xc_bench_machine *m)
{
    json_t *o = json_object();
    json_object_set_new(o, "cpu_model", json_string(m->model));
    json_object_set_new(o, "cores", json_integer(m->cores));
    json_object_set_new(o, "cpu_mhz", json_real(m->mhz));
    json_object_set_new(o, "compiler", json_string("gcc " __VERSION__));
    json_object_set_new(o, "kernel_isa", json_string(m->isa));
    json_object_set_new(o, "vector_bytes", json_integer(m->vector_bytes));
    json_object_set_new(o, "read_bandwidth_1_thread", json_real(m->bw1));
    json_object_set_new(o, "read_bandwidth_n_threads", json_real(m->bwn));
    json_object_set_new(o, "compute_speedup_n_threads", json_real(m->speedup));
    json_object_set_new(o, "add16_per_s_1_thread", json_real(m->add16));
    if (m->mix_split > 0) {
        json_object_set_new(o, "direct_mix_split_adds_per_s_1_thread", json_real(m->mix_split));
        json_object_set_new(o, "direct_mix_aligned_adds_per_s_1_thread", json_real(m->mix_aligned));
    }
    return o;
}

/* ---- input ----------------------------------------------------------------- */

void xc_bench_fill_random(uint16_t *u, size_t n, int nbits, uint64_t seed)
{
    const size_t chunk = 1 << 20;
#pragma omp parallel for schedule(static)
    for (size_t c = 0; c < (n + chunk - 1) / chunk; c++) {
        uint64_t s = (seed + c) * 0x9E3779B97F4A7C15ull | 1;
        size_t end = (c + 1) * chunk < n ? (c + 1) * chunk : n;
        for (size_t i = c * chunk; i < end; i++) {
            s ^= s >> 12;
            s ^= s << 25;
            s ^= s >> 27;
            u[i] = (uint16_t)((s * 2685821657736338717ull) >> (64 - nbits));
        }
    }
}

xc_status xc_bench_noise_spectrum(xc_spectrum *sp, size_t nbins, unsigned long seed, void (*add)(xc_spectrum *sp),
                                  const char *cmd, xc_error *err)
{
    memset(sp, 0, sizeof *sp);
    sp->data = malloc(2 * nbins * sizeof(float));
    if (!sp->data)
        return xc_error_set(err, XC_ENOMEM, "%s: out of memory for %zu bins", cmd, nbins);
    sp->nbins = nbins;
    sp->dt = 64e-6;
    sp->T = 2.0 * (double)nbins * sp->dt;
    sp->owned = 1;
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    if (!r) {
        xc_spectrum_free(sp);
        return xc_error_set(err, XC_ENOMEM, "%s: out of memory for the random generator", cmd);
    }
    gsl_rng_set(r, seed);
    for (size_t k = 0; k < 2 * nbins; k++)
        sp->data[k] = (float)gsl_ran_gaussian_ziggurat(r, 1.0);
    gsl_rng_free(r);
    if (add)
        add(sp);
    return XC_OK;
}

xc_status xc_bench_emit(const xc_bench_sink *s, json_t *rec, xc_error *err)
{
    if (!rec || json_array_append_new(s->records, rec))
        return xc_error_set(err, XC_ENOMEM, "out of memory for a record");
    if (s->row)
        s->row(s->ctx, rec);
    return XC_OK;
}

int xc_bench_same_cands(const xc_candlist *a, const xc_candlist *b, double rtol, double *maxrel)
{
    *maxrel = 0;
    if (a->n != b->n)
        return 0;
    for (size_t k = 0; k < a->n; k++) {
        const xc_cand *x = &a->c[k], *y = &b->c[k];
        if (x->r != y->r || x->width != y->width || x->numharm != y->numharm)
            return 0;
        double dp = fabs(x->power - y->power) / fabs(x->power), ds = fabs(x->sigma - y->sigma) / fabs(x->sigma);
        *maxrel = fmax(*maxrel, fmax(dp, ds));
        if (dp > rtol || ds > rtol)
            return 0;
    }
    return 1;
}

xc_status xc_bench_search_once(void *ctx, xc_error *err)
{
    xc_bench_search *c = ctx;
    xc_candlist own, *l = c->l ? c->l : &own;
    if (c->l)
        xc_candlist_free(l);
    xc_candlist_init(l);
    xc_status st = xc_psearch_once(c->impl, c->sp, c->o, 1, l, err);
    c->ncands = l->n;
    if (!c->l)
        xc_candlist_free(l);
    return st;
}
