/* test_memory.c: the memory estimates of the search steps against the
 * memory the searches really take, and `run -max_memory` below a search's
 * need:
 *  - accel (reference and cpu, preset exact and presto), Pulscan (reference
 *    and cpu) and the single-pulse search (reference and cpu): each search
 *    runs in a child process whose peak resident set is reset first
 *    (/proc/self/clear_refs, "5"); the rise of VmHWM over the search is the
 *    measured peak, and the estimate must hold it and not exceed it by more
 *    than the stated factor;
 *  - run with a -max_memory smaller than a search needs: a failed "memory"
 *    row naming the step, the need and the bound, exit 2 (docs/REFERENCE.md). */
#include <fcntl.h>
#include <malloc.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "compare/conform/xc_conform_accel.h"
#include "core/io/xc_filterbank.h"
#include "core/search/xc_psearch.h"
#include "core/sp/xc_spsearch.h"
#include "optimized/cpu/xc_accel_cpu.h"
#include "optimized/cpu/xc_cpu.h"
#include "optimized/cpu/xc_sp_cpu.h"
#include "optimized/xc_impls.h"
#include "reference/xc_accel_ref.h"
#include "reference/xc_reference.h"
#include "reference/xc_sp_ref.h"
#include "study/xc_study.h"
#include "tests/xc_assert.h"
#include "tests/xc_fixture.h"
#include "tests/xc_test.h"

/* MEM_UNDER times the estimate plus MEM_MISS holds the measured peak, and
 * the estimate is at most MEM_FACTOR times it plus MEM_SLACK.  The
 * estimates count the largest in-tree stage's buffers (a smaller one is
 * over-estimated); they miss the allocator's arenas, OpenMP's thread
 * stacks, the FFT plans and a stage's per-thread buffers: measured here
 * 0.6-1.7 MiB for the single-pulse and Pulscan searches, 2.6-7.3 MiB for
 * the accel cpu searcher (3.5 % of its 213 MiB at zmax 50); the candidates
 * are not counted either (the searches here keep few: sigma 8 on tones of
 * amplitude 40). */
#define MEM_UNDER 1.05
#define MEM_MISS (5.0 * 1024 * 1024)
#define MEM_FACTOR 2.0
#define MEM_SLACK (1.5 * 1024 * 1024)

/* VmHWM of this process, bytes (-1: none). */
static double hwm(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    double kb = -1;
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, "VmHWM:", 6))
            kb = atof(line + 6);
    if (f)
        fclose(f);
    return kb < 0 ? -1 : kb * 1024;
}

/* Resets the peak to the current resident set: 1 when the kernel allows it. */
static int reset_hwm(void)
{
    int fd = open("/proc/self/clear_refs", O_WRONLY);
    int ok = fd >= 0 && write(fd, "5", 1) == 1;
    if (fd >= 0)
        close(fd);
    return ok;
}

/* AddressSanitizer's shadow memory and quarantine (freed blocks kept for
 * a while) make the resident set several times what the program
 * allocates: the peaks are measured without it. */
#if defined(__SANITIZE_ADDRESS__)
#define XC_UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define XC_UNDER_ASAN 1
#endif
#endif

static int skip_no_hwm(char *why, size_t n)
{
#ifdef XC_UNDER_ASAN
    snprintf(why, n, "built with AddressSanitizer: its shadow memory is in the peak, not the program's");
    return 1;
#endif
    if (reset_hwm() && hwm() > 0)
        return 0;
    snprintf(why, n, "no /proc/self/clear_refs or VmHWM here: the peak cannot be measured");
    return 1;
}

typedef struct {
    int kind;                     /* 0 psearch, 1 single-pulse, 2 a study's worker */
    const xc_impl *impl;
    const xc_psearch_opts *po;
    const xc_spectrum *sp;
    const xc_spsearcher *ss;
    const xc_spopts *so;
    const xc_spplane *view;
    const double *dms;
    const xc_study *st;           /* kind 2: pulsars 0 and 1 with one kept cache, 1 thread */
} job;

/* A study's worker on its first two pulsars, its searches kept from one to
 * the next (as study_run.c's worker keeps them), on one thread. */
static xc_status study_worker(const xc_study *st, xc_error *e)
{
    xc_study_cache *cache;
    xc_status r = xc_study_cache_new(st, &cache, e);
    for (uint64_t id = 0; !r && id < 2; id++) {
        xc_study_rows rows = {0};
        r = xc_study_pulsar_cached(st, cache, id, NULL, 1, &rows, NULL, e);
        xc_study_rows_free(&rows);
    }
    xc_study_cache_free(cache);
    return r;
}

/* The peak rise of resident memory over j's search, in a child (bytes; -1
 * when the search failed or nothing could be measured). */
static double measured_peak(const job *j)
{
    int fd[2];
    if (pipe(fd))
        return -1;
    pid_t pid = fork();
    if (pid == 0) {
        close(fd[0]);
        double rise = -1;
        xc_error e;
        /* glibc's mmap threshold at its default, fixed: an earlier case's freed
         * large blocks raise the dynamic one (up to 32 MiB), after which this
         * case's planes would come from the heap, fragmented, and the peak
         * would depend on the cases run before it */
        mallopt(M_MMAP_THRESHOLD, 128 * 1024);
        mallopt(M_TRIM_THRESHOLD, 128 * 1024);
        if (reset_hwm()) {
            double h0 = hwm();
            xc_status st;
            if (j->kind == 0) {
                xc_candlist l;
                xc_candlist_init(&l);
                st = xc_psearch_once(j->impl, j->sp, j->po, 1, &l, &e);
            } else if (j->kind == 2) {
                st = study_worker(j->st, &e);
            } else {
                xc_spcandlist l;
                xc_spcandlist_init(&l);
                st = xc_sp_search(j->ss, j->so, j->view, 1, j->view->tsamp, j->dms, j->view->nrows, &l, &e);
            }
            if (!st)
                rise = hwm() - h0;
        }
        ssize_t w = write(fd[1], &rise, sizeof rise);
        _exit(w == (ssize_t)sizeof rise ? 0 : 1);
    }
    close(fd[1]);
    double rise = -1;
    if (pid < 0 || read(fd[0], &rise, sizeof rise) != (ssize_t)sizeof rise)
        rise = -1;
    close(fd[0]);
    if (pid > 0)
        waitpid(pid, NULL, 0);
    return rise;
}

static void judge(const char *what, double est, double got)
{
    int ok = got > 0 && got <= MEM_UNDER * est + MEM_MISS && est <= MEM_FACTOR * got + MEM_SLACK;
    if (!ok)
        printf("\n%s: estimate %.0f bytes, measured peak %.0f bytes; wanted measured <= %.2f x estimate + %.0f, "
               "estimate <= %.1f x measured + %.0f\n", what, est, got, MEM_UNDER, MEM_MISS, MEM_FACTOR, MEM_SLACK);
    CU_ASSERT_TRUE(ok);
}

static const double tones[][3] = {{7001.3, 4, 40}, {14002.6, 8, 40}};

XC_TEST_IF(test_psearch_estimate, "accel and Pulscan estimates hold the measured peak", skip_no_hwm)
{
    xc_error err;
    xc_spectrum sp;
    /* 2^19 bins: the searches' buffers (MBs) well above the allocator's noise */
    CU_ASSERT_EQUAL_FATAL(xc_conform_tone_spectrum(&sp, (size_t)1 << 19, 5, tones, 2, &err), XC_OK);
    static const struct {
        const xc_impl *impl;
        xc_family fam;
        int zmax, numharm, presto;
    } cases[] = {
        {&xc_accel_reference.impl, XC_FAMILY_ACCEL, 20, 4, 0}, {&xc_accel_cpu.impl, XC_FAMILY_ACCEL, 20, 4, 0},
        {&xc_accel_cpu.impl, XC_FAMILY_ACCEL, 50, 8, 1},       {&xc_accel_cpu.impl, XC_FAMILY_ACCEL, 0, 1, 0},
        {&xc_ps_reference.impl, XC_FAMILY_PULSCAN, 20, 4, 0},  {&xc_ps_cpu.impl, XC_FAMILY_PULSCAN, 20, 4, 0},
    };
    for (size_t k = 0; k < XC_NCASES(cases); k++) {
        xc_psearch_opts o;
        xc_psearch_opts_default(&o, cases[k].fam);
        xc_psearch_opts_set(&o, cases[k].zmax, cases[k].numharm, 8);
        xc_psearch_opts_threads(&o, 2);
        if (cases[k].presto)
            o.ac.preset = XC_ACCEL_PRESTO;
        double est = 0;
        CU_ASSERT_EQUAL_FATAL(xc_psearch_memory(cases[k].impl, sp.nbins, sp.T, &o, 1, &est, &err), XC_OK);
        job j = {0, cases[k].impl, &o, &sp, NULL, NULL, NULL, NULL};
        char what[128];
        snprintf(what, sizeof what, "%s %s zmax %d numharm %d%s", cases[k].impl->name,
                 xc_family_name(cases[k].fam), cases[k].zmax, cases[k].numharm, cases[k].presto ? " presto" : "");
        judge(what, est, measured_peak(&j));
    }
    xc_spectrum_free(&sp);
}

XC_TEST_IF(test_sp_estimate, "single-pulse estimate holds the measured peak", skip_no_hwm)
{
    /* 8 trials of 2^20 samples of a ramp (no detections to count) */
    size_t nr = 8, n = (size_t)1 << 20;
    float *x = malloc(nr * n * sizeof *x);
    double dms[8];
    CU_ASSERT_PTR_NOT_NULL_FATAL(x);
    for (size_t i = 0; i < nr * n; i++)
        x[i] = (float)((i * 2654435761u) % 1000) * 1e-3f;
    for (size_t r = 0; r < nr; r++)
        dms[r] = (double)r;
    xc_spplane v = {x, nr, n, n, 0, 1e-3, 1, 0, dms};
    const xc_spsearcher *ss[2] = {&xc_sp_reference, &xc_sp_cpu};
    for (int t = 1; t <= 2; t++)
        for (int k = 0; k < 2; k++) {
            xc_spopts o;
            xc_spopts_default(&o, XC_SP_HEIMDALL);
            o.threads = t;
            o.wmax_s = 0.016;
            job j = {1, NULL, NULL, NULL, ss[k], &o, &v, dms};
            char what[96];
            snprintf(what, sizeof what, "single-pulse %s, %d thread%s", ss[k]->impl.name, t, t > 1 ? "s" : "");
            judge(what, xc_sp_search_memory(&o, &v, 1, t), measured_peak(&j));
        }
    free(x);
}

/* A pulsar study of 2 pulsars of 64 s at 250 us (256000 samples), Pulscan
 * and accel (1 harmonic) at zmax 0 and 20; its spec's path. */
static const char *study_mem_spec(void)
{
    xc_fx_write_text(xc_fx_tmp("pop-mem.json"),
                     "{\"fixed\": {\"nbits\": 8, \"nchans\": 64, \"tsamp_us\": 250, \"tobs_s\": 64, \"fch1\": "
                     "1500, \"foff\": -4, \"width_pct\": 45, \"dm\": 50}, \"draw\": {\"period_ms\": {\"dist\": "
                     "\"loguniform\", \"lo\": 20, \"hi\": 200}, \"snrpeak\": {\"dist\": \"loguniform\", \"lo\": 1, "
                     "\"hi\": 30}}}");
    const char *spec = xc_fx_tmp("study-mem.json");
    xc_fx_write_text(spec, "{\"population\": {\"spec\": \"pop-mem.json\", \"n\": 2, \"seed\": 5}, \"searchers\": "
                           "[{\"name\": \"pulscan\", \"family\": \"pulscan\", \"sweep\": {\"zmax\": [0, 20]}}, "
                           "{\"name\": \"fdas\", \"family\": \"accel\", \"options\": {\"numharm\": 1}, "
                           "\"sweep\": {\"zmax\": [0, 20]}}]}");
    return spec;
}

/* Study spec's worker estimate (one thread) against its measured peak on
 * its first two items (judge), and above least bytes (what it surely holds). */
static void study_estimate(const char *spec, const char *what, double least)
{
    xc_registry *reg;
    xc_error e;
    CU_ASSERT_EQUAL_FATAL(xc_registry_builtin(&reg, &e), XC_OK);
    xc_study st;
    xc_status s = xc_study_load(&st, spec, reg, &e);
    if (s)
        printf("\n%s\n", e.msg);
    CU_ASSERT_EQUAL_FATAL(s, XC_OK);
    double est = 0;
    CU_ASSERT_EQUAL(xc_study_worker_memory(&st, 1, &est, &e), XC_OK);
    job j = {.kind = 2, .st = &st};
    judge(what, est, measured_peak(&j));
    XC_ASSERT_ABOVE(est, least);
    xc_study_free(&st);
    xc_registry_destroy(reg);
}

XC_TEST_IF(test_study_worker_estimate, "a study worker's estimate holds its measured peak", skip_no_hwm)
{
    /* the series alone is 1000 KiB: the estimate holds more than it */
    study_estimate(study_mem_spec(), "study worker (Pulscan and accel, zmax 0 and 20, 256000 samples)", 256000.0 * 4);
}

/* An FRB study of 2 bursts of 2 s at 256 us (7813 spectra of 128 channels,
 * 8-bit), two single-pulse searchers (cpu; heimdall and presto presets, DM
 * plans of 301 and 151 trials); its spec's path. */
static const char *frb_mem_spec(void)
{
    xc_fx_write_text(xc_fx_tmp("pop-frb-mem.json"),
                     "{\"fixed\": {\"nchans\": 128, \"nbits\": 8, \"tsamp_us\": 256, \"tobs_s\": 2, \"fch1\": 1500,"
                     " \"foff\": -4}, \"draw\": {}, \"frb\": {\"fluence_jyms\": {\"min\": 1, \"max\": 10, \"index\": "
                     "-0.5}, \"width_ms\": {\"median\": 1, \"sigma_ln\": 0}, \"dm\": {\"dist\": \"uniform\", \"lo\": 100, "
                     "\"hi\": 200}}}");
    const char *spec = xc_fx_tmp("study-frb-mem.json");
    xc_fx_write_text(spec, "{\"population\": {\"spec\": \"pop-frb-mem.json\", \"n\": 2, \"seed\": 5}, \"searchers\": "
                           "[{\"name\": \"heimdall\", \"family\": \"singlepulse\", \"impl\": \"cpu\", \"options\": "
                           "{\"dmplan\": \"0:300:1\"}}, {\"name\": \"presto\", \"family\": \"singlepulse\", \"impl\": "
                           "\"cpu\", \"options\": {\"preset\": \"presto\", \"dmplan\": \"0:300:2\"}}]}");
    return spec;
}

XC_TEST_IF(test_study_frb_worker_estimate, "an FRB study worker's estimate holds its measured peak", skip_no_hwm)
{
    /* the heimdall plan's plane alone: 301 trials of at least 7813 - 2900 samples (the largest delay) */
    study_estimate(frb_mem_spec(), "FRB study worker (cpu, heimdall and presto, 301 and 151 trials, 7813 spectra of "
                   "128 channels)", 301.0 * (7813 - 2900) * 4);
}

/* The datasets folder as an absolute path into buf (NULL: no cwd). */
static const char *datasets_abs(char *buf, size_t n)
{
    char cwd[1024] = "";
    const char *d = xc_test_datasets();
    if (d[0] != '/' && !getcwd(cwd, sizeof cwd))
        return NULL;
    snprintf(buf, n, "%s%s%s", cwd, cwd[0] ? "/" : "", d);
    return buf;
}

/* A spec of one accel entry: PSR J1807-0847's spectrum (65536 bins, 512 KiB). */
static const char *accel_spec(void)
{
    static char path[1024];
    char d[1200];
    snprintf(path, sizeof path, "%s/accel.json", xc_test_tmpdir());
    FILE *f = datasets_abs(d, sizeof d) ? fopen(path, "w") : NULL;
    if (!f)
        return NULL;
    fprintf(f, "{\"accel\": [{\"name\": \"a\", \"fft\": \"%s/sigpyproc3/GBT_J1807-0847.fft\", \"zmax\": 0, "
               "\"numharm\": 1, \"truth\": {\"r\": 131}, \"dr\": 0.5}]}\n", d);
    fclose(f);
    return path;
}

XC_TEST_IF(test_run_max_memory, "run states a search's memory; below it a failed memory row, exit 2",
           xc_fx_skip_no_bin)
{
    char args[4096], err[1 << 14];
    const char *spec = accel_spec(), *tmp = xc_test_tmpdir();
    CU_ASSERT_PTR_NOT_NULL_FATAL(spec);
    snprintf(args, sizeof args, "run -impl reference -spec '%s' -out '%s/r1'", spec, tmp);
    CU_ASSERT_EQUAL(xc_fx_run_cli_err(args, err, sizeof err), 0);
    const char *m = strstr(err, "a: accel search: about ");
    double mib = 0;
    if (!m || sscanf(m, "a: accel search: about %lf MiB", &mib) != 1)
        printf("\n%s", err);
    /* the spectrum's 512 KiB and the search's normalisation, block and
     * kernels: about 1.6 MiB (0.1: the printed rounding) */
    CU_ASSERT_TRUE(mib > 0.5 && mib < 4);
    snprintf(args, sizeof args, "run -impl reference -spec '%s' -out '%s/r2' -max_memory 600K", spec, tmp);
    CU_ASSERT_EQUAL(xc_fx_run_cli_err(args, err, sizeof err), 2);
    int named = strstr(err, "a: accel search needs about ") && strstr(err, "more than -max_memory 600.0 KiB");
    if (!named)
        printf("\n%s", err);
    CU_ASSERT_TRUE(named);
}

/* The size after the first `key` in text, as xc_fmt_bytes writes it ("12.3
 * KiB"), in bytes; -1 when absent.  Printed to 0.1 of its unit. */
static double size_after(const char *text, const char *key)
{
    const char *p = text ? strstr(text, key) : NULL;
    double v;
    char unit[8];
    if (!p || sscanf(p + strlen(key), "%lf %7s", &v, unit) != 2)
        return -1;
    return v * (!strncmp(unit, "GiB", 3) ? 1 << 30 : !strncmp(unit, "MiB", 3) ? 1 << 20 : !strncmp(unit, "KiB", 3) ? 1024 : 1);
}

/* The rounding of a size printed to 0.1 of its unit (half of it, at most
 * 0.05 MiB for the sizes here). */
#define PRINTED (0.05 * 1024 * 1024)

/* `crosscheck ARGS` (formatted as printf does) with stdout and stderr
 * together in buf (n bytes); its exit status, -1 if it did not exit. */
static int __attribute__((format(printf, 3, 4))) run_both(char *buf, size_t n, const char *fmt, ...)
{
    char args[3000], cmd[8192], out[1100];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(args, sizeof args, fmt, ap);
    va_end(ap);
    snprintf(out, sizeof out, "%s/both.txt", xc_test_tmpdir());
    snprintf(cmd, sizeof cmd, "'%s' %s > '%s' 2>&1", xc_fx_bin(), args, out);
    int rc = system(cmd);
    xc_fx_slurp_into(out, buf, n);
    return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

/* One synthetic observation searched at a single DM trial: its plane is
 * 30 KiB and a single-pulse thread's scratch about 4 times that, so that a
 * bound between the dedispersion's need and the search's at 8 threads
 * leaves the search fewer threads. */
static const char *one_trial_spec(void)
{
    static char path[1024];
    snprintf(path, sizeof path, "%s/one.json", xc_test_tmpdir());
    xc_fx_write_text(path, "{\"convention\": \"crosscheck\", \"synthetic\": [{\"name\": \"one\", \"dmplan\": "
                           "\"50:51:1:1\", \"synth\": {\"nchans\": 64, \"nbits\": 8, \"tsamp_us\": 128, \"tobs_s\": "
                           "1.0, \"fch1\": 1500.0, \"foff\": -2.0, \"seed\": 3, \"pulses\": [{\"t_s\": 0.5, \"dm\": "
                           "50.0, \"width_ms\": 2.0, \"snr\": 20.0}]}}]}\n");
    return path;
}

XC_TEST_IF(test_run_sp_fewer_threads, "run's single-pulse search takes fewer threads under -max_memory, same verdicts",
           xc_fx_skip_no_bin)
{
    static char err[1 << 15];
    const char *spec = one_trial_spec(), *tmp = xc_test_tmpdir();
    CU_ASSERT_EQUAL(run_both(err, sizeof err, "run -spec '%s' -impl cpu -threads 8 -out '%s/s1'", spec, tmp), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "one: single-pulse search: about "));
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "8 threads of "));
    const double plane = size_after(err, "(the plane's "), one = size_after(err, "8 threads of ");
    CU_ASSERT_TRUE_FATAL(plane > 0 && one > 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "7 checks, 0 failed"));
    /* 400 KiB: above the dedispersion's least (3 planes and the smallest
     * gulp), below the search's 8 threads; the threads that fit */
    const double bound = 400 * 1024;
    const int want = (int)((bound - plane) / one);
    CU_ASSERT_TRUE(want >= 1 && want < 8);   /* the case is a fallback */
    CU_ASSERT_EQUAL(run_both(err, sizeof err, "run -spec '%s' -impl cpu -threads 8 -out '%s/s2' -max_memory 400K",
                                   spec, tmp), 0);
    char said[64];
    snprintf(said, sizeof said, "%d thread%s of ", want, want > 1 ? "s" : "");
    if (!strstr(err, said) || !strstr(err, "7 checks, 0 failed"))
        printf("\nwanted \"%s\" and 7 checks passed:\n%s", said, err);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, said));
    /* the same verdicts as at 8 threads: the pulse found, cpu's list equal to the reference's */
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "7 checks, 0 failed"));
    const double need = size_after(err, "one: single-pulse search: about ");
    XC_ASSERT_NEAR(need, plane + want * one, 5 * 0.05 * 1024);
    CU_ASSERT_TRUE(need <= bound);
    /* below one thread's need: a failed memory row naming both, exit 2 */
    CU_ASSERT_EQUAL(run_both(err, sizeof err, "run -spec '%s' -impl cpu -threads 8 -out '%s/s3' -max_memory 140K",
                                   spec, tmp), 2);
    const int named = strstr(err, "one: single-pulse search needs about ") && strstr(err, "1 thread of ") &&
                      strstr(err, "more than -max_memory 140.0 KiB");
    if (!named)
        printf("\n%s", err);
    CU_ASSERT_TRUE(named);
    XC_ASSERT_NEAR(size_after(err, "measured: one: single-pulse search needs about "), plane + one, 5 * 0.05 * 1024);
}

XC_TEST_IF(test_study_max_memory, "study: a worker's memory said; -max_memory takes fewer workers, same outputs, or exits 2",
           xc_fx_skip_no_bin)
{
    static char err[1 << 14];
    char a[1100], b[1100];
    const char *spec = study_mem_spec(), *tmp = xc_test_tmpdir();
    CU_ASSERT_EQUAL(run_both(err, sizeof err, "study -spec '%s' -out '%s/w2' -threads 2 -workers 2", spec, tmp), 0);
    const double one = size_after(err, "2 workers of ");
    /* the total's rounding and twice one's */
    XC_ASSERT_NEAR(size_after(err, "crosscheck study: about "), 2 * one, 3 * PRINTED);
    /* a bound that holds one worker's estimate but not two */
    CU_ASSERT_TRUE_FATAL(one > 0);
    const double bound = 1.5 * one;
    CU_ASSERT_EQUAL(run_both(err, sizeof err, "study -spec '%s' -out '%s/w1' -threads 2 -workers 2 -max_memory %.0f",
                             spec, tmp, bound), 0);
    const int fewer = strstr(err, "(1 worker of ") && strstr(err, "2 would need more than -max_memory ");
    if (!fewer)
        printf("\n%s", err);
    CU_ASSERT_TRUE(fewer);
    /* the same outputs at 1 and 2 workers */
    snprintf(a, sizeof a, "%s/w2/detections.csv", tmp);
    snprintf(b, sizeof b, "%s/w1/detections.csv", tmp);
    static char ta[1 << 15], tb[1 << 15];
    xc_fx_slurp_into(a, ta, sizeof ta);
    xc_fx_slurp_into(b, tb, sizeof tb);
    CU_ASSERT_TRUE(ta[0] && !strcmp(ta, tb));
    /* below one worker's need: exit 2 naming the need and the bound */
    CU_ASSERT_EQUAL(run_both(err, sizeof err, "study -spec '%s' -out '%s/w0' -threads 2 -max_memory 1M", spec, tmp), 2);
    const int named = strstr(err, "a worker needs about ") && strstr(err, "more than -max_memory 1.0 MiB");
    if (!named)
        printf("\n%s", err);
    CU_ASSERT_TRUE(named);
    /* an FRB study's worker is estimated too: said, and below it exit 2 naming what it holds */
    const char *frb = frb_mem_spec();
    CU_ASSERT_EQUAL(run_both(err, sizeof err, "study -spec '%s' -out '%s/f1' -n 1 -threads 1 -max_memory 1G", frb,
                             tmp), 0);
    XC_ASSERT_ABOVE(size_after(err, "1 worker of "), 301.0 * (7813 - 2900) * 4);
    CU_ASSERT_EQUAL(run_both(err, sizeof err, "study -spec '%s' -out '%s/f0' -threads 1 -max_memory 1M", frb, tmp), 2);
    const int frb_named = strstr(err, "a worker needs about ") &&
                          strstr(err, "(one burst's filterbank, plane and search), more than -max_memory 1.0 MiB");
    if (!frb_named)
        printf("\n%s", err);
    CU_ASSERT_TRUE(frb_named);
}

XC_TEST_IF(test_run_approx_presto_memory, "run states the approximate steps' and prepsubband's memory, bounds them",
           xc_fx_skip_no_bin)
{
    static char err[1 << 15];
    char d[1200], spec[1100], fil[1300];
    const char *tmp = xc_test_tmpdir();
    CU_ASSERT_PTR_NOT_NULL_FATAL(datasets_abs(d, sizeof d));
    snprintf(fil, sizeof fil, "%s/sigpyproc3/parkes_8bit_1.fil", d);
    xc_fbreader *r;
    xc_error e;
    CU_ASSERT_EQUAL_FATAL(xc_fbreader_open(&r, fil, NULL, &e), XC_OK);
    const double ns = (double)xc_fbreader_header(r)->nsamp, nc = xc_fbreader_header(r)->nchans;
    xc_fbreader_close(r);
    snprintf(spec, sizeof spec, "%s/ps.json", tmp);
    FILE *f = fopen(spec, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fprintf(f, "{\"real\": [{\"name\": \"p\", \"file\": \"%s\", \"dmplan\": \"40:44:2:1\", \"approximate\": 1, "
               "\"prepsubband\": {\"dmplan\": \"40:72:2\", \"nsub\": 32, \"dmsub\": 32, \"root\": "
               "\"%s/presto/parkes_x2_nsub32\"}}]}\n", fil, d);
    fclose(f);
    CU_ASSERT_EQUAL(run_both(err, sizeof err, "run -spec '%s' -impl subband -out '%s/p1'", spec, tmp), 0);
    /* prepsubband: the file as 16-bit samples, 16 trials of ns floats, 32
     * subbands of ns doubles (the printed rounding on each) */
    const char *ps = strstr(err, "p: prepsubband comparison: about ");
    XC_ASSERT_NEAR(size_after(ps, "the file's "), ns * nc * 2, PRINTED);
    XC_ASSERT_NEAR(size_after(ps, "the plane's "), 16 * ns * 4, PRINTED);
    XC_ASSERT_NEAR(size_after(ps, "subbands' "), 32 * ns * 8, PRINTED);
    XC_ASSERT_NEAR(size_after(ps, "about "), ns * nc * 2 + 16 * ns * 4 + 32 * ns * 8, PRINTED);
    /* the approximate steps: the head (here the whole file: shorter than
     * max delay + 4096) read whole, and planes and a gulp beside it */
    const char *ap = strstr(err, "p: approximate dedispersion: about ");
    XC_ASSERT_NEAR(size_after(ap, "the head's "), ns * nc * 2, PRINTED);
    CU_ASSERT_TRUE(size_after(ap, "about ") > size_after(ap, "the head's "));
    /* 7 MiB: the exact dedispersion fits (about 6.6 MiB), the other two
     * steps do not: a failed memory row each, exit 2 */
    CU_ASSERT_EQUAL(run_both(err, sizeof err, "run -spec '%s' -impl subband -out '%s/p2' -max_memory 7M", spec,
                                   tmp), 2);
    const int named = strstr(err, "p: approximate dedispersion needs about ") &&
                      strstr(err, "p: prepsubband comparison needs about ") &&
                      strstr(err, "more than -max_memory 7.0 MiB") && !strstr(err, "equals PRESTO");
    if (!named)
        printf("\n%s", err);
    CU_ASSERT_TRUE(named);
}

XC_TEST_MAIN("memory")
