/* crosscheck study: what it shows while and after it runs, alone or over
 * MPI ranks (study.h): the progress line and the rates table. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <omp.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "cli/base/cli.h"
#include "cli/base/cli_memory.h"
#include "cli/study/study.h"
#include "core/base/xc_fmt.h"
#include "core/base/xc_fs.h"
#ifdef XC_HAVE_CUDA
#include "optimized/gpu/xc_gpu.h"
#endif

/* The meter, ended when every pulsar is done. */
static void meter_fn(void *ctx, const char *label, uint64_t done, uint64_t total)
{
    xc_study_meter *m = ctx;
    (void)label;
    m->p.total = total ? total : 1;
    xc_progress_update(&m->p, done);
    if (done >= total)
        xc_progress_end(&m->p);
}

void xc_study_meter_start(xc_progress_cb *cb, xc_study_meter *m, int want)
{
    memset(m, 0, sizeof *m);
    xc_progress_start(&m->p, "study", 1, want);
    m->p.unit = "pulsars";
    cb->fn = meter_fn;
    cb->ctx = m;
}

void xc_study_runopts_start(xc_study_runopts *ro, xc_study_meter *m, unsigned long long shard,
                            unsigned long long nshards, int threads, int workers, int device_jobs, int want)
{
    memset(ro, 0, sizeof *ro);
    ro->shard = shard;
    ro->nshards = nshards;
    ro->threads = threads;
    ro->workers = workers;
    ro->device_jobs = device_jobs;
    xc_study_meter_start(&ro->progress, m, want);
}

/* The rates table on stdout, from DIR/rates.csv. */
void xc_study_print_rates(const char *dir)
{
    xc_path path = XC_PATH_INIT;
    FILE *fp = xc_path_setf(&path, NULL, "%s/rates.csv", dir) ? NULL : fopen(path.s, "r");
    xc_path_free(&path);
    if (!fp)
        return;
    char line[2048];
    int first = 1, frb = 0;
    while (fgets(line, sizeof line, fp)) {
        if (first) {
            /* an FRB study's rates.csv also has the fluence at 50 % completeness (columns 12-14) */
            frb = strstr(line, ",f50_jyms,") != NULL;
            printf("%-12s %-32s %6s %8s %7s %17s %7s%s\n", "searcher", "config", "n", "detected", "rate",
                   "95% interval", "unique", frb ? "  F50 Jy ms [95% interval]" : "");
            first = 0;
            continue;
        }
        char *f[15];
        int n = 0;
        for (char *p = line; n < 15;) {
            f[n++] = p;
            char *c = strpbrk(p, ",\n");
            if (!c)
                break;
            *c = 0;
            p = c + 1;
        }
        if (n < 9 || (frb && n < 14))
            continue;
        char ci[48], f50[80] = "";
        snprintf(ci, sizeof ci, "[%.4s, %.4s]", f[5], f[6]);
        if (frb)
            snprintf(f50, sizeof f50, "  %.5s [%.5s, %.5s]", f[11], f[12], f[13]);
        printf("%-12s %-32s %6s %8s %7.4s %17s %7s%s\n", f[0], f[1], f[2], f[3], f[4], ci, f[7], f50);
    }
    fclose(fp);
}

int xc_study_memory_plan(const xc_study *st, int threads, int *workers, double max_memory, int quiet)
{
    const int nth = threads > 0 ? threads : omp_get_max_threads();
    int device = 0;
    for (size_t k = 0; k < st->ns; k++)
        device |= (st->s[k].impl->caps & XC_CAP_DEVICE) != 0;
    const int asked = *workers > 0 ? *workers : device ? 1 : nth;
    int w = asked;
    double one = 0;
    xc_error err;
    for (;;) {   /* as run_workers shares the threads: nth / w each */
        if (xc_study_worker_memory(st, nth / w > 0 ? nth / w : 1, &one, &err))
            return xc_cli_fail("study", &err);
        if (!(max_memory > 0) || !(one > 0) || w * one <= max_memory || w == 1)
            break;
        const int fit = (int)(max_memory / one);
        w = fit < 1 ? 1 : fit < w ? fit : w - 1;
    }
    char b[32], t[32], m[32];
    xc_fmt_bytes(b, sizeof b, one);
    xc_fmt_bytes(t, sizeof t, w * one);
    if (max_memory > 0)
        xc_fmt_bytes(m, sizeof m, max_memory);
    if (!(one > 0))
        return 0;
    if (max_memory > 0 && one > max_memory)
        return xc_cli_failf("study", "a worker needs about %s (%s), more than -max_memory %s", b,
                            st->frb ? "one burst's filterbank, plane and search" : "one pulsar's series and searches",
                            m);
    if (!quiet && w < asked)
        fprintf(stderr, "crosscheck study: about %s of memory (%d worker%s of %s; %d would need more than -max_memory %s)\n",
                t, w, w > 1 ? "s" : "", b, asked, m);
    else if (!quiet)
        fprintf(stderr, "crosscheck study: about %s of memory (%d worker%s of %s)\n", t, w, w > 1 ? "s" : "", b);
    *workers = w;
    return 0;
}

#ifdef XC_HAVE_CUDA
static xc_status gpu_fft_new(void **f, xc_error *err)
{
    xc_gpu_realfft *g = NULL;
    xc_status e = xc_gpu_realfft_new(&g, err);
    *f = g;
    return e;
}

static xc_status gpu_fft_run(void *f, const float *x, size_t n, float *out, const float **dev, xc_error *err)
{
    return xc_gpu_realfft_run(f, x, n, out, dev, err);
}

static void gpu_fft_free(void *f)
{
    xc_gpu_realfft_free(f);
}
#endif

void xc_study_use_pinned(xc_study *st)
{
#ifdef XC_HAVE_CUDA
    for (size_t k = 0; k < st->ns; k++)
        if (st->s[k].impl->caps & XC_CAP_DEVICE) {
            st->host_alloc = xc_gpu_host_alloc;
            st->host_free = xc_gpu_host_free;
            /* a built-in GPU searcher: the device is there (a plugin's
             * may run anywhere); an FRB study makes no spectra */
            if (!st->frb && !(st->s[k].impl->caps & XC_CAP_RUNTIME)) {
                st->fft_new = gpu_fft_new;
                st->fft_run = gpu_fft_run;
                st->fft_free = gpu_fft_free;
            }
        }
#else
    (void)st;
#endif
}

void xc_study_keep_freed_memory(void)
{
#ifdef __GLIBC__
    /* glibc's largest threshold for mmap'd blocks (32 MiB on 64 bits) and a
     * trim threshold of 1 GiB: blocks up to 32 MiB come from the heap, and
     * freed memory is kept rather than unmapped or trimmed */
    mallopt(M_MMAP_THRESHOLD, 32 << 20);
    mallopt(M_TRIM_THRESHOLD, 1 << 30);
#endif
}
