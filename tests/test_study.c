/* Tests of the study runner (study/xc_study.h, `crosscheck study`).
 *
 * Planted outcomes: a population whose input S/N spans 1e-4..30 (pulsars far
 * below 1e-3 cannot reach 6 sigma in 8000 samples, those above 1 always do),
 * searched by Pulscan, FDAS and "miss", a searcher registered here that
 * finds nothing on purpose.  The statistics are checked against hand-computed
 * values (Wilson intervals, a straight-line fit) and rates.csv/recovery.json
 * against an independent recount of detections.csv (GSL's fit as the oracle,
 * tolerance 1e-9 relative: both are double sums of at most 16 terms, printed
 * with 6-10 significant digits).  Resume after SIGKILL, shards merged and 2
 * MPI ranks must give the same bytes as one run. */
#include <gsl/gsl_fit.h>
#include <jansson.h>
#include <math.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "optimized/cpu/xc_cpu.h"
#include "optimized/xc_impls.h"
#include "study/spec/study_internal.h"
#include "study/xc_study.h"
#include "tests/xc_fixture.h"
#include "tests/xc_test.h"

/* ---- statistics, hand-computed -------------------------------------------- */

XC_TEST(test_wilson_values, "wilson_values")
{
    double lo, hi;
    /* k = 0, n = 10: [0, z^2/(n + z^2)] = [0, 3.841459/13.841459] */
    xc_wilson95(0, 10, &lo, &hi);
    XC_ASSERT_NEAR(lo, 0.0, 0);
    XC_ASSERT_NEAR(hi, 0.2775328, 1e-6);
    /* k = 5, n = 10: centre 0.5, half-width 1.959964 sqrt(0.025 + 0.0096037)/1.3841459 */
    xc_wilson95(5, 10, &lo, &hi);
    XC_ASSERT_NEAR(lo, 0.2365931, 1e-6);
    XC_ASSERT_NEAR(hi, 0.7634069, 1e-6);
    /* k = n = 4: [n/(n + z^2), 1] = [4/7.841459, 1] */
    xc_wilson95(4, 4, &lo, &hi);
    XC_ASSERT_NEAR(lo, 0.5101092, 1e-6);
    XC_ASSERT_NEAR(hi, 1.0, 0);
    /* 1 of 3: the textbook 0.0615 .. 0.7923 */
    xc_wilson95(1, 3, &lo, &hi);
    XC_ASSERT_NEAR(lo, 0.06149, 1e-4);
    XC_ASSERT_NEAR(hi, 0.79234, 1e-4);
    xc_wilson95(0, 0, &lo, &hi);
    CU_ASSERT(isnan(lo) && isnan(hi));
}

XC_TEST(test_linfit_values, "linfit_values")
{
    const double x[] = {0, 1, 2, 3, 4}, y[] = {1, 3, 5, 7, 9};
    xc_linfit f;
    xc_linfit_compute(x, y, 5, &f);
    XC_ASSERT_NEAR(f.slope, 2.0, 1e-12);
    XC_ASSERT_NEAR(f.intercept, 1.0, 1e-12);
    XC_ASSERT_NEAR(f.r2, 1.0, 1e-12);
    XC_ASSERT_NEAR(f.resid_rms, 0.0, 1e-12);
    /* y = x + (+1, -1, +1, -1): slope 0.6, intercept 0.6 + ..., by hand:
     * mx = 1.5, my = 1.5, sxx = 5, sxy = 3 (sum dx*dy with dy = dx + e) -> slope 0.6 */
    const double x2[] = {0, 1, 2, 3}, y2[] = {1, 0, 3, 2};
    xc_linfit_compute(x2, y2, 4, &f);
    XC_ASSERT_NEAR(f.slope, 0.6, 1e-12);
    XC_ASSERT_NEAR(f.intercept, 0.6, 1e-12);
    /* residuals 0.4, -1.2, 1.2, -0.4: rms sqrt(3.2/4) */
    XC_ASSERT_NEAR(f.resid_rms, sqrt(0.8), 1e-12);
    XC_ASSERT_NEAR(f.r2, 1 - 3.2 / 5.0, 1e-12);
    xc_linfit_compute(x2, y2, 2, &f);
    CU_ASSERT(f.n == 2 && isnan(f.slope));
}

/* ---- a study with planted outcomes ------------------------------------------- */

/* "miss": the cpu powers (xc_fx_cpu_powers), no peaks ever. */
static xc_status miss_peaks(const xc_searcher *self, const xc_spectrum *sp, const xc_psopts *o, const double *P,
                            const double *thr, xc_pspeaks *pk, xc_error *err)
{
    (void)self, (void)sp, (void)o, (void)P, (void)thr, (void)pk, (void)err;
    return XC_OK;
}
static const xc_searcher miss = {
    .impl = {.family = XC_FAMILY_PULSCAN, .name = "miss", .tol = {XC_TOL_RELATIVE, 1e-4}, .caps = XC_CAP_RUNTIME,
             .desc = "finds nothing, on purpose"},
    .powers = xc_fx_cpu_powers, .peaks = miss_peaks};

/* Tiny observations: 8 s at 1 ms (8000 samples), 64 channels.  A 45 % duty
 * cycle keeps the fundamental stronger than the second harmonic: with a
 * narrow pulse Pulscan's sift keeps the harmonic and drops the fundamental,
 * which the fundamental-only rule (the paper's) then counts as a miss. */
static const char *planted_spec(void)
{
    static char path[4200];
    const char *pop = xc_fx_tmp("pop-planted.json");
    xc_fx_write_text(pop, "{\"fixed\": {\"nbits\": 8, \"nchans\": 64, \"tsamp_us\": 1000, \"tobs_s\": 8, "
                          "\"fch1\": 1500, \"foff\": -4, \"width_pct\": 45, \"dm\": 50},"
                          " \"draw\": {\"period_ms\": {\"dist\": \"loguniform\", \"lo\": 20, \"hi\": 200},"
                          "            \"snrpeak\": {\"dist\": \"loguniform\", \"lo\": 1e-4, \"hi\": 30}}}");
    snprintf(path, sizeof path, "%s", xc_fx_tmp("study-planted.json"));
    xc_fx_write_text(path, "{\"population\": {\"spec\": \"pop-planted.json\", \"n\": 16, \"seed\": 5},"
                           " \"searchers\": ["
                           "  {\"name\": \"pulscan\", \"family\": \"pulscan\", \"sweep\": {\"zmax\": [0, 10]}},"
                           "  {\"name\": \"miss\", \"family\": \"pulscan\", \"impl\": \"miss\","
                           "   \"sweep\": {\"zmax\": [0, 10]}},"
                           "  {\"name\": \"fdas\", \"family\": \"accel\", \"options\": {\"numharm\": 1},"
                           "   \"sweep\": {\"zmax\": [0, 10]}}],"
                           " \"baseline\": {\"family\": \"pulscan\", \"options\": {\"zmax\": 0, \"sigma\": 2},"
                           "               \"impl\": \"miss\"}}");
    return path;
}

static xc_registry *test_registry(void)
{
    xc_registry *reg;
    xc_error err;
    CU_ASSERT_EQUAL_FATAL(xc_registry_builtin(&reg, &err), XC_OK);
    CU_ASSERT_EQUAL_FATAL(xc_registry_add(reg, &miss.impl, &err), XC_OK);
    return reg;
}

static void run_study(xc_study *st, const char *dir, int threads, uint64_t shard, uint64_t nshards)
{
    xc_error err;
    xc_error_clear(&err);
    xc_study_runopts ro;
    memset(&ro, 0, sizeof ro);
    ro.threads = threads;
    ro.shard = shard;
    ro.nshards = nshards;
    xc_status s = xc_study_run(st, dir, &ro, &err);
    if (s)
        fprintf(stderr, "study run: %s\n", err.msg);
    CU_ASSERT_EQUAL_FATAL(s, XC_OK);
    xc_study_rows rows = {0};
    CU_ASSERT_EQUAL_FATAL(xc_study_journal_read(st, dir, &rows, &err), XC_OK);
    CU_ASSERT_EQUAL_FATAL(xc_study_rows_sort(&rows, &err), XC_OK);
    s = xc_study_write_outputs(st, &rows, shard, nshards, dir, &err);
    if (s)
        fprintf(stderr, "study outputs: %s\n", err.msg);
    CU_ASSERT_EQUAL_FATAL(s, XC_OK);
    xc_study_rows_free(&rows);
}

/* Splits a CSV line in place into at most max fields. */
static int split(char *line, char **f, int max)
{
    int n = 0;
    for (char *p = line; n < max;) {
        f[n++] = p;
        char *c = strpbrk(p, ",\n");
        if (!c)
            break;
        int end = *c == '\n';
        *c = 0;
        if (end)
            break;
        p = c + 1;
    }
    return n;
}

/* The planted study loaded into st (a failure is fatal, its message printed);
 * returns the registry it uses. */
static xc_registry *load_planted(xc_study *st)
{
    xc_registry *reg = test_registry();
    xc_error err;
    xc_status s = xc_study_load(st, planted_spec(), reg, &err);
    if (s)
        fprintf(stderr, "%s\n", err.msg);
    CU_ASSERT_EQUAL_FATAL(s, XC_OK);
    return reg;
}

static int col_of(char **h, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(h[i], name))
            return i;
    return -1;
}

/* Runs st (2 threads, one shard) into the folder name (its path in dir, 4200
 * bytes) and opens its detections.csv past the header: the header's text in
 * hline (4096 bytes), split into h (64 fields), nh of them. */
static FILE *run_detections(xc_study *st, const char *name, char *dir, char *hline, char **h, int *nh)
{
    snprintf(dir, 4200, "%s", xc_fx_tmp(name));
    run_study(st, dir, 2, 0, 1);
    char path[4300];
    snprintf(path, sizeof path, "%s/detections.csv", dir);
    FILE *fp = fopen(path, "r");
    CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
    CU_ASSERT_PTR_NOT_NULL_FATAL(fgets(hline, 4096, fp));
    *nh = split(hline, h, 64);
    return fp;
}

XC_TEST(test_planted_study, "planted_study")
{
    xc_study st;
    xc_registry *reg = load_planted(&st);
    CU_ASSERT_EQUAL(st.ns, 4);
    CU_ASSERT_EQUAL(xc_study_nsearch(&st), 7);
    CU_ASSERT_STRING_EQUAL(st.s[0].cfg[1].label, "zmax=10 numharm=1");
    char dir[4200], hline[4096], line[4096], path[4300];
    char *h[64], *f[64];
    int nh;
    /* detections.csv: 16 pulsars x 7 searches + header */
    FILE *fp = run_detections(&st, "planted-out", dir, hline, h, &nh);
    int c_s = col_of(h, nh, "searcher"), c_c = col_of(h, nh, "config"), c_d = col_of(h, nh, "detected"),
        c_snr = col_of(h, nh, "snrpeak"), c_b = col_of(h, nh, "baseline_detected"), c_p = col_of(h, nh, "pulsar"),
        c_z = col_of(h, nh, "z"), c_tz = col_of(h, nh, "truth_z"), c_ft = col_of(h, nh, "truth_f0_hz"),
        c_f = col_of(h, nh, "f_hz");
    CU_ASSERT_FATAL(c_s >= 0 && c_c >= 0 && c_d >= 0 && c_snr >= 0 && c_b >= 0 && c_p >= 0 && c_z >= 0 &&
                    c_tz >= 0 && c_ft >= 0 && c_f >= 0);
    /* recount: per search, detections among pulsars not removed */
    int det[7] = {0}, nrows = 0, faint = 0, bright = 0;
    int pdet[16][7];
    memset(pdet, 0, sizeof pdet);
    const char *names[] = {"pulscan", "miss", "fdas", "baseline"};
    while (fgets(line, sizeof line, fp)) {
        int n = split(line, f, 64);
        CU_ASSERT_EQUAL_FATAL(n, nh);
        int k = -1;
        for (int i = 0; i < 4; i++)
            if (!strcmp(f[c_s], names[i]))
                k = i;
        CU_ASSERT_FATAL(k >= 0);
        int q = k == 3 ? 6 : 2 * k + (strstr(f[c_c], "zmax=10") != NULL);
        int id = atoi(f[c_p]), d = atoi(f[c_d]);
        CU_ASSERT_FATAL(id >= 0 && id < 16);
        pdet[id][q] = d;
        double snr = atof(f[c_snr]);
        /* planted: the miss searcher (and the baseline, which is it) finds nothing */
        if (k == 1 || k == 3)
            CU_ASSERT_EQUAL(d, 0);
        if (k == 0 || k == 2) {
            if (snr < 1e-3) {
                faint++;
                if (d)
                    fprintf(stderr, "pulsar %d (snrpeak %g) detected by %s\n", id, snr, f[c_s]);
                CU_ASSERT_EQUAL(d, 0);
            }
            if (snr > 1) {
                bright++;
                if (!d)
                    fprintf(stderr, "pulsar %d (snrpeak %g) missed by %s %s\n", id, snr, f[c_s], f[c_c]);
                CU_ASSERT_EQUAL(d, 1);
                /* a detection is within 1 % of f0 */
                XC_ASSERT_BELOW(fabs(atof(f[c_f]) / atof(f[c_ft]) - 1), 0.01);
            }
        }
        CU_ASSERT_EQUAL(atoi(f[c_b]), 0);
        det[q] += d;
        nrows++;
    }
    fclose(fp);
    CU_ASSERT_EQUAL(nrows, 16 * 7);
    /* the population must hold both kinds, or the planted checks above test nothing */
    XC_ASSERT_ABOVE(faint, 0);
    XC_ASSERT_ABOVE(bright, 0);

    /* rates.csv against the recount */
    snprintf(path, sizeof path, "%s/rates.csv", dir);
    fp = fopen(path, "r");
    CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
    CU_ASSERT_PTR_NOT_NULL_FATAL(fgets(hline, sizeof hline, fp));
    CU_ASSERT_EQUAL(strncmp(hline, "searcher,config,n,detected,rate,ci_lo,ci_hi,unique", 50), 0);
    nh = split(hline, h, 64);
    int r_n = col_of(h, nh, "n"), r_d = col_of(h, nh, "detected"), r_lo = col_of(h, nh, "ci_lo"),
        r_hi = col_of(h, nh, "ci_hi"), r_u = col_of(h, nh, "unique"), r_rate = col_of(h, nh, "rate");
    for (int q = 0; q < 7; q++) {
        CU_ASSERT_PTR_NOT_NULL_FATAL(fgets(line, sizeof line, fp));
        split(line, f, 64);
        XC_ASSERT_NEAR(atof(f[r_n]), 16, 0);
        XC_ASSERT_NEAR(atof(f[r_d]), det[q], 0);
        double lo, hi;
        xc_wilson95((uint64_t)det[q], 16, &lo, &hi);
        XC_ASSERT_NEAR(atof(f[r_rate]), det[q] / 16.0, 1e-5);
        XC_ASSERT_NEAR(atof(f[r_lo]), lo, 1e-5);
        XC_ASSERT_NEAR(atof(f[r_hi]), hi, 1e-5);
        /* unique against the peers at the same configuration (pulscan, miss, fdas) */
        int u = 0;
        if (q < 6)
            for (int p = 0; p < 16; p++) {
                int other = 0;
                for (int k2 = 0; k2 < 3; k2++)
                    if (2 * k2 + q % 2 != q)
                        other |= pdet[p][2 * k2 + q % 2];
                u += pdet[p][q] && !other;
            }
        else
            u = det[q];
        XC_ASSERT_NEAR(atof(f[r_u]), u, 0);
    }
    fclose(fp);
    /* the miss searcher: 0 of 16, interval [0, 0.1936] (hand: 3.841459/19.841459) */
    XC_ASSERT_NEAR(det[2], 0, 0);
    double lo, hi;
    xc_wilson95(0, 16, &lo, &hi);
    XC_ASSERT_NEAR(hi, 0.1936072, 1e-6);

    /* recovery.json against GSL's fit of the same points (fdas at zmax 10: signed z) */
    snprintf(path, sizeof path, "%s/recovery.json", dir);
    json_error_t je;
    json_t *rj = json_load_file(path, 0, &je);
    CU_ASSERT_PTR_NOT_NULL_FATAL(rj);
    json_t *fits = json_object_get(rj, "fits");
    CU_ASSERT_EQUAL_FATAL(json_array_size(fits), 7);
    json_t *fd = json_array_get(fits, 5);
    CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(fd, "searcher")), "fdas");
    CU_ASSERT_EQUAL(json_integer_value(json_object_get(fd, "n")), det[5]);
    json_decref(rj);
    size_t hn = 0;
    unsigned char *html = xc_fx_slurp(xc_fx_tmp("planted-out/index.html"), &hn);
    CU_ASSERT_PTR_NOT_NULL(html);
    CU_ASSERT(html && strstr((const char *)html, "Detections against zmax") != NULL);
    free(html);
    xc_study_free(&st);
    xc_registry_destroy(reg);
}

/* The z fit: its own population of binary pulsars, all bright, so every
 * search detects and recovery.json has points; checked against GSL. */
XC_TEST(test_recovery_matches_gsl, "recovery_matches_gsl")
{
    const char *pop = xc_fx_tmp("pop-binary.json");
    /* Tight orbits (Pb 0.25-0.6 h, heavy companions): z up to ~50 bins in 60 s. */
    xc_fx_write_text(pop, "{\"fixed\": {\"nbits\": 8, \"nchans\": 64, \"tsamp_us\": 500, \"tobs_s\": 60, "
                          "\"fch1\": 1500, \"foff\": -4, \"width_pct\": 40, \"dm\": 50, \"snrpeak\": 2, "
                          "\"binary\": true, \"bpmass\": 1.4},"
                          " \"draw\": {\"period_ms\": {\"dist\": \"loguniform\", \"lo\": 2, \"hi\": 10},"
                          "            \"bper_h\": {\"dist\": \"loguniform\", \"lo\": 0.25, \"hi\": 0.6},"
                          "            \"bcmass\": {\"dist\": \"loguniform\", \"lo\": 2, \"hi\": 8},"
                          "            \"bphase\": {\"dist\": \"uniform\", \"lo\": 0, \"hi\": 1}}}");
    const char *spec = xc_fx_tmp("study-binary.json");
    xc_fx_write_text(spec, "{\"population\": {\"spec\": \"pop-binary.json\", \"n\": 8, \"seed\": 2},"
                           " \"searchers\": [{\"name\": \"fdas\", \"family\": \"accel\", \"options\": {\"numharm\": 1},"
                           "   \"sweep\": {\"zmax\": [100]}}]}");
    xc_registry *reg = test_registry();
    xc_study st;
    xc_error err;
    CU_ASSERT_EQUAL_FATAL(xc_study_load(&st, spec, reg, &err), XC_OK);
    char dir[4200], hline[4096], line[4096], path[4300];
    char *h[64], *f[64];
    int nh;
    FILE *fp = run_detections(&st, "binary-out", dir, hline, h, &nh);
    int c_d = col_of(h, nh, "detected"), c_z = col_of(h, nh, "z"),
        c_tz = col_of(h, nh, "truth_z");
    double x[16], y[16], ax[16], ay[16];
    size_t n = 0;
    while (fgets(line, sizeof line, fp) && n < 16) {
        split(line, f, 64);
        if (atoi(f[c_d])) {
            x[n] = atof(f[c_tz]);
            y[n] = atof(f[c_z]);
            ax[n] = fabs(x[n]);
            ay[n] = fabs(y[n]);
            n++;
        }
    }
    fclose(fp);
    XC_ASSERT_ABOVE((double)n, 3);
    double c0, c1, cov00, cov01, cov11, sumsq;
    gsl_fit_linear(x, 1, y, 1, n, &c0, &c1, &cov00, &cov01, &cov11, &sumsq);
    snprintf(path, sizeof path, "%s/recovery.json", dir);
    json_error_t je;
    json_t *rj = json_load_file(path, 0, &je);
    CU_ASSERT_PTR_NOT_NULL_FATAL(rj);
    json_t *fit0 = json_array_get(json_object_get(rj, "fits"), 0), *fit = json_object_get(fit0, "signed");
    CU_ASSERT_PTR_NOT_NULL_FATAL(fit);
    XC_ASSERT_NEAR(json_integer_value(json_object_get(fit, "n")), (double)n, 0);
    /* detections.csv keeps 10 digits: the fits agree to ~1e-8 of the scale */
    XC_ASSERT_NEAR(json_real_value(json_object_get(fit, "slope")), c1, 1e-6 * (1 + fabs(c1)));
    XC_ASSERT_NEAR(json_real_value(json_object_get(fit, "intercept")), c0, 1e-6 * (1 + fabs(c0)) + 1e-6);
    XC_ASSERT_NEAR(json_real_value(json_object_get(fit, "resid_rms")), sqrt(sumsq / (double)n), 1e-6);
    /* a matched filter recovers z: slope within 0.2 of 1 on bright pulsars (z within a few bins) */
    XC_ASSERT_NEAR(c1, 1.0, 0.2);
    /* the |z| fit (the paper's Table 2 form) at the top level */
    gsl_fit_linear(ax, 1, ay, 1, n, &c0, &c1, &cov00, &cov01, &cov11, &sumsq);
    XC_ASSERT_NEAR(json_real_value(json_object_get(fit0, "slope")), c1, 1e-6 * (1 + fabs(c1)));
    XC_ASSERT_NEAR(json_real_value(json_object_get(fit0, "intercept")), c0, 1e-6 * (1 + fabs(c0)) + 1e-6);
    json_decref(rj);
    xc_study_free(&st);
    xc_registry_destroy(reg);
}

/* Writes the planted population and two studies, na from fmt_a and nb from
 * fmt_b (each a format with one %s: body), loads them into a and b (a failure
 * is fatal, its message printed) and asserts their hashes differ.  Returns the
 * registry they use; free_two frees all three. */
static xc_registry *load_two(xc_study *a, xc_study *b, const char *na, const char *fmt_a, const char *nb,
                             const char *fmt_b, const char *body)
{
    planted_spec();   /* writes pop-planted.json */
    const char *names[2] = {na, nb}, *fmts[2] = {fmt_a, fmt_b};
    xc_study *st[2] = {a, b};
    xc_registry *reg = test_registry();
    for (int k = 0; k < 2; k++) {
        const char *path = xc_fx_tmp(names[k]);
        char text[2048];
        snprintf(text, sizeof text, fmts[k], body);
        xc_fx_write_text(path, text);
        xc_error err;
        xc_status s = xc_study_load(st[k], path, reg, &err);
        if (s)
            fprintf(stderr, "%s\n", err.msg);
        CU_ASSERT_EQUAL_FATAL(s, XC_OK);
    }
    CU_ASSERT(a->hash != b->hash);
    return reg;
}

static void free_two(xc_study *a, xc_study *b, xc_registry *reg)
{
    xc_study_free(a);
    xc_study_free(b);
    xc_registry_destroy(reg);
}

/* Pulsar id's rows of a and b (a failure is fatal, its message printed). */
static void rows_two(xc_study *a, xc_study *b, uint64_t id, xc_study_rows *ra, xc_study_rows *rb)
{
    xc_study *st[2] = {a, b};
    xc_study_rows *r[2] = {ra, rb};
    for (int k = 0; k < 2; k++) {
        xc_error err;
        xc_status s = xc_study_pulsar(st[k], id, NULL, 1, r[k], &err);
        if (s)
            fprintf(stderr, "%s\n", err.msg);
        CU_ASSERT_EQUAL_FATAL(s, XC_OK);
    }
}

/* The filterbank path (made in memory, dedispersed by the cpu dedisperser at
 * the true DM) against the fast path: the truth is the same to the last
 * digit (the same samples are described); the noise is not (the fast path
 * draws the channel sum's noise directly), so detections of the planted
 * faint and bright pulsars agree and the sigmas of bright ones within 20 %
 * (their spread from the noise alone is a few percent at these S/N). */
XC_TEST(test_filterbank_path, "filterbank_path")
{
    static const char body[] = "\"population\": {\"spec\": \"pop-planted.json\", \"n\": 10, \"seed\": 5},"
                               " \"searchers\": [{\"name\": \"pulscan\", \"family\": \"pulscan\"},"
                               "  {\"name\": \"fdas\", \"family\": \"accel\", \"options\": {\"zmax\": 10, \"numharm\": 1}}]}";
    xc_study a, b;
    xc_registry *reg = load_two(&a, &b, "study-fast.json", "{\"data\": \"dedispersed\", %s", "study-fb.json",
                                "{\"data\": {\"filterbank\": {\"impl\": \"cpu\"}}, %s", body);
    CU_ASSERT_PTR_NOT_NULL_FATAL(b.dedisperser);
    CU_ASSERT_STRING_EQUAL(b.dedisperser->name, "cpu");
    int checked = 0;
    for (uint64_t id = 0; id < 10; id++) {
        xc_study_rows ra = {0}, rb = {0};
        rows_two(&a, &b, id, &ra, &rb);
        CU_ASSERT_EQUAL_FATAL(ra.n, 2);
        CU_ASSERT_EQUAL_FATAL(rb.n, 2);
        for (size_t i = 0; i < 2; i++) {
            /* the truth and parameter columns: from truth_f0_hz on, all but ncands_above */
            const char *ta = ra.r[i].line, *tb = rb.r[i].line;
            for (int c = 0; c < 15; c++) {
                ta = strchr(ta, ',') + 1;
                tb = strchr(tb, ',') + 1;
            }
            size_t la = (size_t)(strrchr(ta, ',') - ta), lb = (size_t)(strrchr(tb, ',') - tb);
            CU_ASSERT_EQUAL(la, lb);
            CU_ASSERT_EQUAL(strncmp(ta, tb, la), 0);
            double snr = ra.r[i].snrpeak;
            if (snr < 1e-3 || snr > 1) {
                CU_ASSERT_EQUAL(ra.r[i].detected, snr > 1);
                CU_ASSERT_EQUAL(rb.r[i].detected, snr > 1);
            }
            if (snr > 1 && ra.r[i].detected && rb.r[i].detected) {
                XC_ASSERT_NEAR(rb.r[i].sigma, ra.r[i].sigma, 0.2 * ra.r[i].sigma);
                checked++;
            }
        }
        xc_study_rows_free(&ra);
        xc_study_rows_free(&rb);
    }
    XC_ASSERT_ABOVE((double)checked, 0);
    free_two(&a, &b, reg);
}

/* The baseline's own threshold ("sigma": the paper's Fig 2 removed pulsars a
 * zmax-0 search finds above 2 sigma): its rows are judged at that threshold,
 * and it removes at least the pulsars the 6-sigma rule would. */
/* Moves from's rows to the end of to (from left empty). */
static void rows_move(xc_study_rows *to, xc_study_rows *from)
{
    xc_study_row *r = realloc(to->r, (to->n + from->n) * sizeof *r);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    memcpy(r + to->n, from->r, from->n * sizeof *r);
    to->r = r;
    to->n += from->n;
    to->cap = to->n;
    from->n = 0;
}

XC_TEST(test_baseline_sigma, "baseline_sigma")
{
    static const char body[] = "\"population\": {\"spec\": \"pop-planted.json\", \"n\": 16, \"seed\": 5},"
                               " \"searchers\": [{\"name\": \"pulscan\", \"family\": \"pulscan\"}],"
                               " \"baseline\": {\"family\": \"pulscan\", \"options\": {\"zmax\": 0, \"sigma\": 1}";
    xc_study a, b;
    xc_registry *reg =
        load_two(&a, &b, "study-base2.json", "{%s, \"sigma\": 2}}", "study-base6.json", "{%s}}", body);
    XC_ASSERT_NEAR(a.base_sigma, 2, 0);
    XC_ASSERT_NEAR(b.base_sigma, 6, 0);
    int rem2 = 0, rem6 = 0, between = 0, kept = 0, kept_det = 0;
    xc_study_rows all = {0};
    for (uint64_t id = 0; id < 16; id++) {
        xc_study_rows ra = {0}, rb = {0};
        rows_two(&a, &b, id, &ra, &rb);
        CU_ASSERT_EQUAL_FATAL(ra.n, 2);
        const xc_study_row *ba = &ra.r[1], *bb = &rb.r[1];   /* the baseline's rows */
        kept += !ba->detected;
        kept_det += !ba->detected && ra.r[0].detected;
        /* the same search: a detection at 6 is one at 2 */
        if (bb->detected)
            CU_ASSERT_EQUAL(ba->detected, 1);
        if (ba->detected) {
            XC_ASSERT_ABOVE(ba->sigma, 2);
            between += ba->sigma <= 6;
        }
        rem2 += ba->detected;
        rem6 += bb->detected;
        rows_move(&all, &ra);
        xc_study_rows_free(&ra);
        xc_study_rows_free(&rb);
    }
    printf("\n  removed at 2 sigma %d, at 6 sigma %d; detected between 2 and 6 sigma: %d", rem2, rem6, between);
    XC_ASSERT_NEAR((double)(rem2 - rem6), (double)between, 0);
    /* The rates score only the pulsars the baseline left: pulscan's n, its
     * detections and the count removed, against the rows recounted here
     * (the baseline must remove some, or this tests nothing). */
    XC_ASSERT_ABOVE(rem2, 0);
    xc_study_table t;
    xc_error err;
    CU_ASSERT_EQUAL_FATAL(xc_study_rows_sort(&all, &err), XC_OK);
    CU_ASSERT_EQUAL_FATAL(xc_study_table_make(&a, &all, 0, 1, &t, &err), XC_OK);
    const xc_study_rate *r = &t.rate[xc_study_search_index(&a, 0, 0)];
    XC_ASSERT_NEAR((double)r->n_removed, rem2, 0);
    XC_ASSERT_NEAR((double)r->n, kept, 0);
    XC_ASSERT_NEAR((double)r->detected, kept_det, 0);
    XC_ASSERT_NEAR(r->rate, (double)kept_det / kept, 1e-15);
    /* the baseline's own rate is over every pulsar */
    const xc_study_rate *rb = &t.rate[xc_study_search_index(&a, 1, 0)];
    XC_ASSERT_NEAR((double)rb->n, 16, 0);
    XC_ASSERT_NEAR((double)rb->detected, rem2, 0);
    xc_study_table_free(&t);
    xc_study_rows_free(&all);
    free_two(&a, &b, reg);
}

/* ---- one search's row, scored from a planted list ------------------------------ */

/* A study with detection.sigma 6 and harmonics, a boxcar (pulscan, |z|), a
 * matched filter (fdas, signed z) and a baseline whose own threshold is 3. */
static xc_registry *load_scoring(xc_study *st)
{
    planted_spec();   /* writes pop-planted.json */
    const char *path = xc_fx_tmp("study-score.json");
    xc_fx_write_text(path, "{\"population\": {\"spec\": \"pop-planted.json\", \"n\": 4, \"seed\": 5},"
                           " \"searchers\": [{\"name\": \"pulscan\", \"family\": \"pulscan\"},"
                           "  {\"name\": \"fdas\", \"family\": \"accel\", \"options\": {\"numharm\": 1}}],"
                           " \"detection\": {\"sigma\": 6, \"harmonics\": true},"
                           " \"baseline\": {\"family\": \"pulscan\", \"options\": {\"zmax\": 0}, \"sigma\": 3}}");
    xc_registry *reg = test_registry();
    xc_error err;
    xc_status s = xc_study_load(st, path, reg, &err);
    if (s)
        fprintf(stderr, "%s\n", err.msg);
    CU_ASSERT_EQUAL_FATAL(s, XC_OK);
    CU_ASSERT_EQUAL_FATAL(st->ns, 3);
    CU_ASSERT_FATAL(st->s[2].baseline && !st->s[0].baseline);
    XC_ASSERT_NEAR_FATAL(st->det_sigma, 6, 0);
    XC_ASSERT_NEAR_FATAL(st->base_sigma, 3, 0);
    return reg;
}

/* The truth of the scoring tests: f0 50 Hz over 8 s (r 400), z 4. */
static const xc_truth score_truth = {.f0_hz = 50, .r = 400, .z = 4, .T = 8, .have_rz = 1, .w = 0};

/* Searcher k's row of the one candidate c (its f_hz set from r): the row's
 * columns split into f (64), the line kept in keep (4096 bytes). */
static void score_one(const xc_study *st, int k, xc_cand c, char *keep, char **f)
{
    xc_candlist l;
    xc_candlist_init(&l);
    l.T = score_truth.T;
    xc_error err;
    c.f_hz = c.r / l.T;
    CU_ASSERT_EQUAL_FATAL(xc_candlist_add(&l, &c, &err), XC_OK);
    xc_synth_params p;
    xc_synth_params_init(&p);
    xc_study_row row;
    memset(&row, 0, sizeof row);
    xc_status s = xc_study_score(st, 0, k, 0, &p, &score_truth, &l, &row, &err);
    if (s)
        fprintf(stderr, "%s\n", err.msg);
    CU_ASSERT_EQUAL_FATAL(s, XC_OK);
    snprintf(keep, 4096, "%s", row.line);
    CU_ASSERT_EQUAL(split(keep, f, 64), 30);
    free(row.line);
    xc_synth_params_free(&p);
    xc_candlist_free(&l);
}

/* The scoring study (load_scoring) with detections.csv's header split into
 * columns, for tests that score hand-made candidates and read columns by
 * name. */
typedef struct {
    xc_study st;
    xc_registry *reg;
    char hl[4096];
    char *h[64];
    int nh;
} scoring;

static void scoring_open(scoring *sc)
{
    sc->reg = load_scoring(&sc->st);
    snprintf(sc->hl, sizeof sc->hl, "%s", xc_study_header());
    sc->nh = split(sc->hl, sc->h, 64);
}

static void scoring_close(scoring *sc)
{
    xc_study_free(&sc->st);
    xc_registry_destroy(sc->reg);
}

/* Each searcher's detection threshold at its edge: a candidate at the
 * fundamental 0.01 sigma above the threshold is a detection whose printed
 * sigma is the candidate's, 0.01 below it is none.  The baseline is judged
 * at its own 3, every other searcher at detection.sigma's 6 (0.01: far
 * above the 10 printed digits, far below the gap between the two). */
XC_TEST(test_score_sigma_edges, "score_sigma_edges")
{
    scoring sc;
    scoring_open(&sc);
    xc_study *st = &sc.st;
    char line[4096], *f[64];
    int c_d = col_of(sc.h, sc.nh, "detected"), c_s = col_of(sc.h, sc.nh, "sigma"), c_m = col_of(sc.h, sc.nh, "match");
    CU_ASSERT_FATAL(c_d >= 0 && c_s >= 0 && c_m >= 0);
    static const int ks[] = {0, 1, 2};
    for (size_t i = 0; i < 3; i++) {
        double thr = st->s[ks[i]].baseline ? 3 : 6;
        for (int above = 0; above < 2; above++) {
            double sg = thr + (above ? 0.01 : -0.01);
            xc_cand c = {.r = 400.2, .z = 4, .numharm = 1, .width = 5, .sigma = sg};
            score_one(st, ks[i], c, line, f);
            if (atoi(f[c_d]) != above)
                printf("\n    %s: sigma %.2f against threshold %g: detected %s ", st->s[ks[i]].name, sg, thr, f[c_d]);
            CU_ASSERT_EQUAL(atoi(f[c_d]), above);
            CU_ASSERT_STRING_EQUAL(f[c_m], above ? "fundamental" : "none");
            if (above)
                XC_ASSERT_NEAR(atof(f[c_s]), sg, 1e-9);
        }
    }
    scoring_close(&sc);
}

/* A detection at a harmonic: its r and z errors are against the truth
 * taken to that harmonic (n r, n z; r/n, z/n for a sub-harmonic), so a
 * candidate 0.25 bins and 0.5 z above the n-th harmonic's r and z prints
 * r_err 0.25 and z_err 0.5 (to the printed 10 digits: 1e-9). */
XC_TEST(test_score_harmonic_errors, "score_harmonic_errors")
{
    scoring sc;
    scoring_open(&sc);
    xc_study *st = &sc.st;
    char line[4096], *f[64];
    int c_m = col_of(sc.h, sc.nh, "match"), c_n = col_of(sc.h, sc.nh, "harm_n"), c_re = col_of(sc.h, sc.nh, "r_err"),
        c_ze = col_of(sc.h, sc.nh, "z_err");
    CU_ASSERT_FATAL(c_m >= 0 && c_n >= 0 && c_re >= 0 && c_ze >= 0);
    static const struct {
        int n, sub;
        const char *match;
    } hs[] = {{1, 0, "fundamental"}, {2, 0, "harmonic"}, {3, 0, "harmonic"}, {2, 1, "subharmonic"},
              {3, 1, "subharmonic"}};
    for (int k = 0; k < 2; k++)
        for (size_t i = 0; i < sizeof hs / sizeof hs[0]; i++) {
            double q = hs[i].sub ? 1.0 / hs[i].n : hs[i].n;
            xc_cand c = {.r = score_truth.r * q + 0.25, .z = score_truth.z * q + 0.5, .numharm = 1, .width = 3,
                         .sigma = 10};
            score_one(st, k, c, line, f);
            CU_ASSERT_STRING_EQUAL(f[c_m], hs[i].match);
            XC_ASSERT_NEAR(atof(f[c_n]), hs[i].n, 0);
            XC_ASSERT_NEAR(atof(f[c_re]), 0.25, 1e-9);
            XC_ASSERT_NEAR(atof(f[c_ze]), 0.5, 1e-9);
        }
    scoring_close(&sc);
}

/* ---- the same bytes any way the rows are made -------------------------------------- */

static int same_outputs(const char *a, const char *b)
{
    static const char *const files[] = {"detections.csv", "rates.csv", "recovery.json", "index.html"};
    int ok = 1;
    for (size_t i = 0; i < 4; i++) {
        char pa[4300], pb[4300];
        snprintf(pa, sizeof pa, "%s/%s", a, files[i]);
        snprintf(pb, sizeof pb, "%s/%s", b, files[i]);
        if (!xc_fx_same_file(pa, pb)) {
            fprintf(stderr, "%s and %s differ\n", pa, pb);
            ok = 0;
        }
    }
    return ok;
}

XC_TEST(test_threads_and_shards_same_bytes, "threads_and_shards_same_bytes")
{
    xc_study st;
    xc_registry *reg = load_planted(&st);
    xc_error err;
    char one[4200], four[4200], s0[4200], s1[4200], merged[4200];
    snprintf(one, sizeof one, "%s", xc_fx_tmp("same-one"));
    snprintf(four, sizeof four, "%s", xc_fx_tmp("same-four"));
    snprintf(s0, sizeof s0, "%s", xc_fx_tmp("same-s0"));
    snprintf(s1, sizeof s1, "%s", xc_fx_tmp("same-s1"));
    snprintf(merged, sizeof merged, "%s", xc_fx_tmp("same-merged"));
    run_study(&st, one, 1, 0, 1);
    run_study(&st, four, 4, 0, 1);
    CU_ASSERT(same_outputs(one, four));
    run_study(&st, s0, 2, 0, 2);
    run_study(&st, s1, 2, 1, 2);
    xc_study m;
    const char *dirs[] = {s0, s1};
    xc_status s = xc_study_merge(dirs, 2, merged, reg, &m, &err);
    if (s)
        fprintf(stderr, "merge: %s\n", err.msg);
    CU_ASSERT_EQUAL_FATAL(s, XC_OK);
    CU_ASSERT(same_outputs(one, merged));
    /* study.json too: the merge records the spec path the shards were run
     * with, not its own copy of the spec in the first shard */
    char ja[4300], jb[4300];
    snprintf(ja, sizeof ja, "%s/study.json", one);
    snprintf(jb, sizeof jb, "%s/study.json", merged);
    if (!xc_fx_same_file(ja, jb))
        fprintf(stderr, "%s and %s differ\n", ja, jb);
    CU_ASSERT(xc_fx_same_file(ja, jb));
    xc_study_free(&m);
    /* shards that record different spec paths: refused, naming both */
    snprintf(jb, sizeof jb, "%s/study.json", s1);
    json_error_t je;
    json_t *o = json_load_file(jb, 0, &je);
    CU_ASSERT_PTR_NOT_NULL_FATAL(o);
    json_object_set_new(o, "spec_file", json_string("elsewhere/study.json"));
    CU_ASSERT_EQUAL_FATAL(json_dump_file(o, jb, JSON_INDENT(2) | JSON_SORT_KEYS), 0);
    json_decref(o);
    s = xc_study_merge(dirs, 2, xc_fx_tmp("same-merged2"), reg, &m, &err);
    CU_ASSERT_EQUAL(s, XC_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "elsewhere/study.json"));
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, st.path));
    /* one shard alone cannot be merged into the whole */
    const char *half[] = {s0};
    s = xc_study_merge(half, 1, xc_fx_tmp("same-half"), reg, &m, &err);
    CU_ASSERT_EQUAL(s, XC_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "pulsar 1 has no row"));
    xc_study_free(&st);
    xc_registry_destroy(reg);
}

/* A worker's sessions kept from pulsar to pulsar (xc_study_cache) give the
 * rows made without them, byte for byte; and a matched filter's sweep is
 * made whole whichever configurations are wanted (a resumed run's rows
 * equal an uninterrupted run's). */
XC_TEST(test_cache_same_rows, "cache_same_rows")
{
    xc_study st;
    xc_registry *reg = load_planted(&st);
    xc_error err;
    xc_study_cache *cache = NULL;
    CU_ASSERT_EQUAL_FATAL(xc_study_cache_new(&st, &cache, &err), XC_OK);
    size_t ns = xc_study_nsearch(&st), rows_seen = 0, differ = 0;
    unsigned char only_last[64];
    memset(only_last, 0, sizeof only_last);
    only_last[ns - 2] = 1;   /* the fdas zmax=10 search alone */
    for (uint64_t id = 0; id < 4; id++) {
        xc_study_rows a = {0}, b = {0}, c = {0};
        CU_ASSERT_EQUAL_FATAL(xc_study_pulsar(&st, id, NULL, 2, &a, &err), XC_OK);
        CU_ASSERT_EQUAL_FATAL(xc_study_pulsar_cached(&st, cache, id, NULL, 2, &b, NULL, &err), XC_OK);
        CU_ASSERT_EQUAL_FATAL(xc_study_pulsar_cached(&st, cache, id, only_last, 2, &c, NULL, &err), XC_OK);
        CU_ASSERT_EQUAL(a.n, ns);
        CU_ASSERT_EQUAL(b.n, a.n);
        for (size_t k = 0; k < a.n && k < b.n; k++, rows_seen++)
            if (strcmp(a.r[k].line, b.r[k].line)) {
                if (!differ++)
                    printf("\n  pulsar %llu row %zu: with the cache\n    %s\n  expected\n    %s",
                           (unsigned long long)id, k, b.r[k].line, a.r[k].line);
            }
        CU_ASSERT_EQUAL(c.n, 1);
        if (c.n == 1 && a.n == ns) {
            int same = !strcmp(c.r[0].line, a.r[ns - 2].line);
            if (!same)
                printf("\n  pulsar %llu, fdas zmax=10 alone:\n    %s\n  expected\n    %s", (unsigned long long)id,
                       c.r[0].line, a.r[ns - 2].line);
            differ += !same;
        }
        xc_study_rows_free(&a);
        xc_study_rows_free(&b);
        xc_study_rows_free(&c);
    }
    printf("\n  %zu rows with and without the cache, %zu differ (expected 0)", rows_seen, differ);
    CU_ASSERT_EQUAL(differ, 0);
    xc_study_cache_free(cache);
    xc_study_free(&st);
    xc_registry_destroy(reg);
}

XC_TEST(test_journal_torn_line, "journal_torn_line")
{
    xc_study st;
    xc_registry *reg = load_planted(&st);
    xc_error err;
    char dir[4200], ref[4200];
    snprintf(dir, sizeof dir, "%s", xc_fx_tmp("torn"));
    snprintf(ref, sizeof ref, "%s", xc_fx_tmp("torn-ref"));
    run_study(&st, ref, 2, 0, 1);
    /* a journal cut in the middle of a line, and one with a corrupted line */
    char jr[4300], jt[4300];
    snprintf(jr, sizeof jr, "%s/journal/main.csv", ref);
    size_t n;
    unsigned char *all = xc_fx_slurp(jr, &n);
    CU_ASSERT_PTR_NOT_NULL_FATAL(all);
    CU_ASSERT_EQUAL_FATAL(mkdir(dir, 0777), 0);
    snprintf(jt, sizeof jt, "%s/journal", dir);
    CU_ASSERT_EQUAL_FATAL(mkdir(jt, 0777), 0);
    snprintf(jt, sizeof jt, "%s/journal/main.csv", dir);
    FILE *fp = fopen(jt, "wb");
    CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
    fwrite(all, 1, n / 2, fp);   /* ends mid-line */
    fclose(fp);
    free(all);
    xc_study_rows rows = {0};
    CU_ASSERT_EQUAL(xc_study_journal_read(&st, dir, &rows, &err), XC_OK);
    size_t kept = rows.n;
    xc_study_rows_free(&rows);
    XC_ASSERT_ABOVE((double)kept, 0);
    XC_ASSERT_BELOW((double)kept, 16 * 7);
    run_study(&st, dir, 2, 0, 1);
    CU_ASSERT(same_outputs(ref, dir));
    xc_study_free(&st);
    xc_registry_destroy(reg);
}

/* ---- the device gate ------------------------------------------------------------- */

/* "dev": the cpu searcher posing as a device one, counting how many of its
 * calls run at once (test state, not a kernel's).  Each call naps 2 ms, so
 * workers' calls overlap whenever the study lets them. */
static atomic_int dev_now, dev_most;

static xc_status dev_peaks(const xc_searcher *self, const xc_spectrum *sp, const xc_psopts *o, const double *P,
                           const double *thr, xc_pspeaks *pk, xc_error *err)
{
    (void)self;
    int now = atomic_fetch_add(&dev_now, 1) + 1, m = atomic_load(&dev_most);
    while (now > m && !atomic_compare_exchange_weak(&dev_most, &m, now))
        ;
    struct timespec ts = {0, 2000000};
    nanosleep(&ts, NULL);
    xc_status st = xc_ps_cpu.peaks(&xc_ps_cpu, sp, o, P, thr, pk, err);
    atomic_fetch_sub(&dev_now, 1);
    return st;
}
static const xc_searcher dev = {
    .impl = {.family = XC_FAMILY_PULSCAN, .name = "dev", .tol = {XC_TOL_RELATIVE, 1e-4},
             .caps = XC_CAP_RUNTIME | XC_CAP_DEVICE,
             .desc = "the cpu searcher as a device one (the study's gate)"},
    .powers = xc_fx_cpu_powers, .peaks = dev_peaks};

XC_TEST(test_device_gate, "device_gate")
{
    xc_error err;
    xc_study_gate *g = NULL;
    /* bounds, named */
    CU_ASSERT_EQUAL(xc_study_gate_new(0, &g, &err), XC_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "-device_jobs 0"));
    CU_ASSERT_EQUAL(xc_study_gate_new(65, &g, &err), XC_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "1 to 64"));
    CU_ASSERT_PTR_NULL(g);
    /* a study whose Pulscan runs on "dev": 4 workers with 1 and 2 device
     * searches at once; the same bytes as one worker, never more calls at
     * once than the slots */
    xc_registry *reg = test_registry();
    CU_ASSERT_EQUAL_FATAL(xc_registry_add(reg, &dev.impl, &err), XC_OK);
    planted_spec();   /* writes pop-planted.json */
    const char *spec = xc_fx_tmp("study-dev.json");
    xc_fx_write_text(spec, "{\"population\": {\"spec\": \"pop-planted.json\", \"n\": 16, \"seed\": 5},"
                           " \"searchers\": [{\"name\": \"dev\", \"family\": \"pulscan\", \"impl\": \"dev\","
                           "   \"sweep\": {\"zmax\": [0, 10]}}]}");
    xc_study st;
    CU_ASSERT_EQUAL_FATAL(xc_study_load(&st, spec, reg, &err), XC_OK);
    char ref[4200], dir[4200];
    snprintf(ref, sizeof ref, "%s", xc_fx_tmp("gate-ref"));
    run_study(&st, ref, 1, 0, 1);
    const int jobs[] = {1, 2};
    for (int k = 0; k < 2; k++) {
        snprintf(dir, sizeof dir, "%s-%d", xc_fx_tmp("gate"), jobs[k]);
        atomic_store(&dev_most, 0);
        xc_study_runopts ro;
        memset(&ro, 0, sizeof ro);
        ro.threads = 4;
        ro.workers = 4;
        ro.device_jobs = jobs[k];
        xc_status s = xc_study_run(&st, dir, &ro, &err);
        if (s)
            fprintf(stderr, "study run: %s\n", err.msg);
        CU_ASSERT_EQUAL_FATAL(s, XC_OK);
        xc_study_rows rows = {0};
        CU_ASSERT_EQUAL_FATAL(xc_study_journal_read(&st, dir, &rows, &err), XC_OK);
        CU_ASSERT_EQUAL_FATAL(xc_study_rows_sort(&rows, &err), XC_OK);
        CU_ASSERT_EQUAL_FATAL(xc_study_write_outputs(&st, &rows, 0, 1, dir, &err), XC_OK);
        xc_study_rows_free(&rows);
        int most = atomic_load(&dev_most);
        printf("\n  device_jobs %d, 4 workers: at most %d device calls at once (bound %d)", jobs[k], most, jobs[k]);
        XC_ASSERT_BELOW((double)most, jobs[k] + 0.5);
        XC_ASSERT_ABOVE((double)most, 0.5);
        CU_ASSERT(same_outputs(ref, dir));
    }
    xc_study_free(&st);
    xc_registry_destroy(reg);
}

/* "devkept": dev posing as a built-in (no XC_CAP_RUNTIME), as the GPU
 * Pulscan searcher is. */
static const xc_searcher devkept = {
    .impl = {.family = XC_FAMILY_PULSCAN, .name = "devkept", .tol = {XC_TOL_RELATIVE, 1e-4},
             .caps = XC_CAP_DEVICE, .desc = "the cpu searcher as a built-in device one"},
    .powers = xc_fx_cpu_powers, .peaks = dev_peaks};

/* Through a gate of one slot a built-in Pulscan device searcher's searches
 * take none (the gate's held and waited seconds stay exactly 0), dev's (a
 * runtime one) each hold it (held > 0: each call naps 2 ms); their rows are
 * the same bytes. */
XC_TEST(test_device_kept_no_slot, "device_kept_no_slot")
{
    xc_error err;
    xc_registry *reg = test_registry();
    CU_ASSERT_EQUAL_FATAL(xc_registry_add(reg, &dev.impl, &err), XC_OK);
    CU_ASSERT_EQUAL_FATAL(xc_registry_add(reg, &devkept.impl, &err), XC_OK);
    planted_spec();   /* writes pop-planted.json */
    const char *const names[2] = {"dev", "devkept"};
    char *lines[2] = {NULL, NULL};
    double held[2] = {-1, -1}, wait[2] = {-1, -1};
    for (int k = 0; k < 2; k++) {
        char text[600];
        snprintf(text, sizeof text, "{\"population\": {\"spec\": \"pop-planted.json\", \"n\": 2, \"seed\": 5},"
                 " \"searchers\": [{\"name\": \"p\", \"family\": \"pulscan\", \"impl\": \"%s\","
                 " \"sweep\": {\"zmax\": [0, 10]}}]}", names[k]);
        const char *spec = xc_fx_tmp(k ? "study-devkept.json" : "study-dev1.json");
        xc_fx_write_text(spec, text);
        xc_study st;
        CU_ASSERT_EQUAL_FATAL(xc_study_load(&st, spec, reg, &err), XC_OK);
        xc_study_gate *g = NULL;
        xc_study_cache *c = NULL;
        CU_ASSERT_EQUAL_FATAL(xc_study_gate_new(1, &g, &err), XC_OK);
        CU_ASSERT_EQUAL_FATAL(xc_study_cache_new(&st, &c, &err), XC_OK);
        xc_study_cache_gate(c, g);
        xc_study_rows rows = {0};
        for (uint64_t id = 0; id < 2; id++)
            CU_ASSERT_EQUAL(xc_study_pulsar_cached(&st, c, id, NULL, 1, &rows, NULL, &err), XC_OK);
        xc_study_gate_times(g, &wait[k], &held[k]);
        /* the rows (they name the searcher, "p" in both, not its impl) */
        size_t len = 0;
        for (size_t r = 0; r < rows.n; r++)
            len += strlen(rows.r[r].line) + 1;
        lines[k] = calloc(len + 1, 1);
        for (size_t r = 0; lines[k] && r < rows.n; r++) {
            strcat(lines[k], rows.r[r].line);
            strcat(lines[k], "\n");
        }
        xc_study_rows_free(&rows);
        xc_study_cache_free(c);
        xc_study_gate_free(g);
        xc_study_free(&st);
    }
    printf("\n  one slot: dev held it %.4f s (waited %.4f), devkept %.4f s (waited %.4f)", held[0], wait[0], held[1],
           wait[1]);
    XC_ASSERT_ABOVE(held[0], 0.004 - 1e-9);   /* 2 pulsars x 2 searches x 2 ms naps, at least 4 ms */
    CU_ASSERT_EQUAL(held[1], 0.0);
    CU_ASSERT_EQUAL(wait[1], 0.0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(lines[0]);
    CU_ASSERT_PTR_NOT_NULL_FATAL(lines[1]);
    CU_ASSERT_STRING_EQUAL(lines[0], lines[1]);
    free(lines[0]);
    free(lines[1]);
    xc_registry_destroy(reg);
}

/* ---- the command: SIGKILL mid-run, errors, MPI ---------------------------------- */

static void spec_for_cli(char *spec, size_t n)
{
    /* the CLI has no "miss": pulscan and fdas only */
    const char *pop = xc_fx_tmp("pop-cli.json");
    xc_fx_write_text(pop, "{\"fixed\": {\"nbits\": 8, \"nchans\": 64, \"tsamp_us\": 1000, \"tobs_s\": 16, "
                          "\"fch1\": 1500, \"foff\": -4, \"width_pct\": 10, \"dm\": 50},"
                          " \"draw\": {\"period_ms\": {\"dist\": \"loguniform\", \"lo\": 20, \"hi\": 200},"
                          "            \"snrpeak\": {\"dist\": \"loguniform\", \"lo\": 0.01, \"hi\": 3}}}");
    snprintf(spec, n, "%s", xc_fx_tmp("study-cli.json"));
    xc_fx_write_text(spec, "{\"population\": {\"spec\": \"pop-cli.json\", \"n\": 24, \"seed\": 9},"
                           " \"searchers\": ["
                           "  {\"name\": \"pulscan\", \"family\": \"pulscan\", \"sweep\": {\"zmax\": [0, 20, 40]}},"
                           "  {\"name\": \"fdas\", \"family\": \"accel\", \"sweep\": {\"zmax\": [0, 20, 40]}}],"
                           " \"baseline\": {\"family\": \"pulscan\", \"options\": {\"zmax\": 0}}}");
}

static long file_size(const char *path)
{
    struct stat sb;
    return stat(path, &sb) ? -1 : (long)sb.st_size;
}

XC_TEST_IF(test_cli_resume_after_sigkill, "cli_resume_after_sigkill", xc_fx_skip_no_bin)
{
    char spec[4200], ref[4200], dir[4200], args[13000], journal[4300];
    spec_for_cli(spec, sizeof spec);
    snprintf(ref, sizeof ref, "%s", xc_fx_tmp("cli-ref"));
    snprintf(dir, sizeof dir, "%s", xc_fx_tmp("cli-killed"));
    snprintf(args, sizeof args, "study -spec %s -out %s -threads 2 -quiet", spec, ref);
    CU_ASSERT_EQUAL_FATAL(xc_fx_run_cli(args), 0);
    /* Kill the same run (SIGKILL) once its journal holds some rows, and again later. */
    snprintf(journal, sizeof journal, "%s/journal/main.csv", dir);
    for (int round = 0; round < 2; round++) {
        pid_t pid = fork();
        CU_ASSERT_FATAL(pid >= 0);
        if (pid == 0) {
            execl(xc_fx_bin(), "crosscheck", "study", "-spec", spec, "-out", dir, "-threads", "2", "-quiet",
                  (char *)NULL);
            _exit(127);
        }
        long before = file_size(journal), now = before;
        for (int i = 0; i < 4000 && (now = file_size(journal)) <= before + 2000 * (round + 1); i++)
            usleep(1000);
        kill(pid, SIGKILL);
        int wst;
        waitpid(pid, &wst, 0);
        if (!(WIFSIGNALED(wst) && WTERMSIG(wst) == SIGKILL))
            fprintf(stderr, "round %d: the run ended before the kill (journal %ld bytes)\n", round, now);
    }
    /* the kill left a partial journal and no outputs */
    XC_ASSERT_ABOVE((double)file_size(journal), 0);
    char out[4300];
    snprintf(out, sizeof out, "%s/rates.csv", dir);
    CU_ASSERT_EQUAL(xc_fx_exists(out), 0);
    snprintf(args, sizeof args, "study -spec %s -out %s -threads 2 -quiet", spec, dir);
    CU_ASSERT_EQUAL_FATAL(xc_fx_run_cli(args), 0);
    CU_ASSERT(same_outputs(ref, dir));
}

XC_TEST_IF(test_cli_spec_errors, "cli_spec_errors", xc_fx_skip_no_bin)
{
    char spec[4200], args[9000], msg[4096];
    spec_for_cli(spec, sizeof spec);   /* writes pop-cli.json */
    static const struct {
        const char *json, *want;
    } bad[] = {
        {"{\"population\": {\"spec\": \"pop-cli.json\", \"n\": 2}, \"searchers\": [{\"name\": \"a\", \"family\": "
         "\"pulscan\", \"sweep\": {\"zmaxx\": [1]}}]}",
         "searchers[0].sweep.zmaxx: unknown pulscan option"},
        {"{\"population\": {\"spec\": \"pop-cli.json\", \"n\": \"x\"}, \"searchers\": []}",
         "population.n: expected integer, got string \"x\""},
        {"{\"population\": {\"spec\": \"pop-cli.json\", \"n\": 2}, \"searcher\": []}", "searcher: unknown field"},
        {"{\"population\": {\"spec\": \"pop-cli.json\", \"n\": 2}, \"searchers\": [{\"name\": \"a\", \"family\": "
         "\"accel\", \"sweep\": {\"zmax\": [0, 5000]}}]}",
         "searchers[0].sweep.zmax[1]: must be an integer in 0..1200"},
        {"{\"population\": {\"spec\": \"pop-cli.json\", \"n\": 2}, \"searchers\": [{\"name\": \"a\", \"family\": "
         "\"fft\"}]}",
         "searchers[0].family: must be \"pulscan\", \"accel\" or \"singlepulse\""},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        const char *p = xc_fx_tmp("study-bad.json");
        xc_fx_write_text(p, bad[i].json);
        snprintf(args, sizeof args, "study -spec %s -out %s -quiet", p, xc_fx_tmp("bad-out"));
        CU_ASSERT_EQUAL(xc_fx_run_cli_err(args, msg, sizeof msg), 2);
        if (!strstr(msg, bad[i].want))
            fprintf(stderr, "case %zu: message \"%s\" lacks \"%s\"\n", i, msg, bad[i].want);
        CU_ASSERT_PTR_NOT_NULL(strstr(msg, bad[i].want));
    }
    /* another study in the same directory is refused */
    snprintf(args, sizeof args, "study -spec %s -out %s -n 2 -quiet", spec, xc_fx_tmp("cli-other"));
    CU_ASSERT_EQUAL_FATAL(xc_fx_run_cli(args), 0);
    const char *p = xc_fx_tmp("study-other.json");
    xc_fx_write_text(p, "{\"population\": {\"spec\": \"pop-cli.json\", \"n\": 2, \"seed\": 77}, \"searchers\": "
                        "[{\"name\": \"a\", \"family\": \"pulscan\"}]}");
    snprintf(args, sizeof args, "study -spec %s -out %s -quiet", p, xc_fx_tmp("cli-other"));
    CU_ASSERT_EQUAL(xc_fx_run_cli_err(args, msg, sizeof msg), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(msg, "holds another study"));
}

/* The example plugin's path: plugins/libxcdd_ok.so beside the crosscheck binary. */
static void plugin_path(char *p, size_t n)
{
    snprintf(p, n, "%s", xc_fx_bin());
    char *slash = strrchr(p, '/');
    snprintf(slash ? slash + 1 : p, n - (size_t)(slash ? slash + 1 - p : 0), "plugins/libxcdd_ok.so");
}

/* A plugin's dedisperser (examples/plugin-dedisp, built by make) in a study's
 * filterbank path, exactly like a built-in one: the same rows as the cpu's. */
static int skip_no_plugin(char *why, size_t n)
{
    if (xc_fx_skip_no_bin(why, n))
        return 1;
    char p[4300];
    plugin_path(p, sizeof p);
    if (!xc_fx_exists(p)) {
        snprintf(why, n, "%s not built", p);
        return 1;
    }
    return 0;
}

XC_TEST_IF(test_cli_plugin_in_study, "cli_plugin_in_study", skip_no_plugin)
{
    planted_spec();   /* writes pop-planted.json */
    char plug[4300], args[13000];
    plugin_path(plug, sizeof plug);
    static const char body[] = "\"population\": {\"spec\": \"pop-planted.json\", \"n\": 6, \"seed\": 5},"
                               " \"searchers\": [{\"name\": \"pulscan\", \"family\": \"pulscan\"}]}";
    char text[2048];
    const char *sp = xc_fx_tmp("study-plug.json"), *sc = xc_fx_tmp("study-plugcpu.json");
    snprintf(text, sizeof text, "{\"data\": {\"filterbank\": {\"impl\": \"mydedisp\"}}, %s", body);
    xc_fx_write_text(sp, text);
    snprintf(text, sizeof text, "{\"data\": {\"filterbank\": {\"impl\": \"cpu\"}}, %s", body);
    xc_fx_write_text(sc, text);
    char dp[4200], dc[4200], fa[4300], fb[4300];
    snprintf(dp, sizeof dp, "%s", xc_fx_tmp("plug-out"));
    snprintf(dc, sizeof dc, "%s", xc_fx_tmp("plugcpu-out"));
    snprintf(args, sizeof args, "study -plugin %s -spec %s -out %s -quiet", plug, sp, dp);
    CU_ASSERT_EQUAL_FATAL(xc_fx_run_cli(args), 0);
    snprintf(args, sizeof args, "study -spec %s -out %s -quiet", sc, dc);
    CU_ASSERT_EQUAL_FATAL(xc_fx_run_cli(args), 0);
    snprintf(fa, sizeof fa, "%s/detections.csv", dp);
    snprintf(fb, sizeof fb, "%s/detections.csv", dc);
    CU_ASSERT(xc_fx_same_file(fa, fb));
    /* without the plugin the name is unknown: exit 2 naming it */
    char msg[4096];
    snprintf(args, sizeof args, "study -spec %s -out %s -quiet", sp, xc_fx_tmp("plug-missing"));
    CU_ASSERT_EQUAL(xc_fx_run_cli_err(args, msg, sizeof msg), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(msg, "data.filterbank.impl = \"mydedisp\""));
}

static int skip_no_mpi(char *why, size_t n)
{
    if (xc_fx_skip_no_bin(why, n))
        return 1;
    if (system("command -v mpirun >/dev/null 2>&1")) {
        snprintf(why, n, "mpirun not found (OpenMPI not installed)");
        return 1;
    }
    char cmd[4300];
    snprintf(cmd, sizeof cmd, "%s study -h | grep -q 'MPI: built in'", xc_fx_bin());
    if (system(cmd)) {
        snprintf(why, n, "crosscheck built without MPI (MPI=0 or no OpenMPI at build time)");
        return 1;
    }
    return 0;
}

XC_TEST_IF(test_mpi_two_ranks_same_bytes, "mpi_two_ranks_same_bytes", skip_no_mpi)
{
    char spec[4200], ref[4200], dir[4200], cmd[13000];
    spec_for_cli(spec, sizeof spec);
    snprintf(ref, sizeof ref, "%s", xc_fx_tmp("mpi-ref"));
    snprintf(dir, sizeof dir, "%s", xc_fx_tmp("mpi-two"));
    snprintf(cmd, sizeof cmd, "study -spec %s -out %s -threads 1 -quiet", spec, ref);
    CU_ASSERT_EQUAL_FATAL(xc_fx_run_cli(cmd), 0);
    /* OpenMPI refuses root and a 2-rank run on a 1-core machine unless told.
     * Under ASan (make sanitize) the ranks do not check leaks: OpenMPI keeps
     * its plugins' allocations past MPI_Finalize and unloads the plugins, so
     * LeakSanitizer cannot even name them; the same study code runs with leak
     * checks in the cases above. */
    const char *asan = getenv("ASAN_OPTIONS");
    snprintf(cmd, sizeof cmd,
             "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 ASAN_OPTIONS='%s%sdetect_leaks=0' "
             "mpirun --oversubscribe -n 2 %s study -spec %s -out %s -threads 1 -quiet > %s 2>&1",
             asan ? asan : "", asan && *asan ? ":" : "", xc_fx_bin(), spec, dir, xc_fx_tmp("mpi.log"));
    int rc = system(cmd);
    if (rc) {
        char log[4096];
        xc_fx_slurp_into(xc_fx_tmp("mpi.log"), log, sizeof log);
        fprintf(stderr, "mpirun exited %d:\n%s\n", rc, log);
    }
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    CU_ASSERT(same_outputs(ref, dir));
    /* both ranks wrote their own journal */
    char j[4300];
    snprintf(j, sizeof j, "%s/journal/rank-0-of-2.csv", dir);
    CU_ASSERT(xc_fx_exists(j));
    snprintf(j, sizeof j, "%s/journal/rank-1-of-2.csv", dir);
    CU_ASSERT(xc_fx_exists(j));
}

XC_TEST_MAIN("study")
