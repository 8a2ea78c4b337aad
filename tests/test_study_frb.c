/* Tests of FRB completeness studies (`crosscheck study` with single-pulse
 * searchers over a population's "frb" bursts; study/search/study_frb.c,
 * study/out/study_frb_out.c).
 *
 * Planted outcome: bursts of one fixed width (1 ms top hat, no scattering)
 * with fluences log-spread over 0.01..10 Jy ms.  The radiometer equation
 * (xc_synth_pulse) gives a matched box S/N = F / SEFD sqrt(npol BW / W) =
 * 17.9 per Jy ms here (SEFD 40 Jy, 2 polarisations, 256 MHz, 1 ms), so a
 * burst above 2 Jy ms (S/N 36) cannot be missed at threshold 6 and one
 * below 0.1 Jy ms (S/N 1.8) cannot be found: 6 sigma of noise within one
 * width and one DM step of it has a chance of order 1e-7.  (Brighter
 * bursts, S/N in the hundreds, clip the 8-bit samples and come out at a
 * wider box one DM trial off, which a plan of 1 pc cm^-3 steps then counts
 * as a miss: the test keeps below that.)  The fluence of 50 % completeness
 * is the threshold's S/N at 1/17.9 Jy ms per unit for a matched box; the
 * search's losses (power-of-two boxes, DM steps, 8-bit samples, the median
 * baseline) raise it by less than 2x, and the interpolation between bins a
 * factor 2.4 wide moves it by up to about 30 %, so it must fall within
 * 0.7..2.5 times that.  The same study run on 1 and 4 threads and as three
 * shards merged must give the same bytes. */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "optimized/xc_impls.h"
#include "study/spec/study_internal.h"
#include "study/xc_study.h"
#include "tests/xc_fixture.h"
#include "tests/xc_test.h"

/* ---- the F50/F90 crossing, by hand ------------------------------------------- */

XC_TEST(test_frb_cross_values, "frb_cross_values")
{
    const double e[] = {1, 10, 100, 1000};
    const uint64_t n[] = {5, 5, 5};
    /* fractions 0, 0.4, 0.8: 0.5 lies between the centres of bins 1 and 2
     * (log10 1.5 and 2.5), a quarter of the way: 10^1.75 */
    const double y[] = {0, 0.4, 0.8};
    XC_ASSERT_NEAR(xc_study_frb_cross(e, y, n, 3, 1, 0.5), pow(10, 1.75), 1e-9);
    /* never reached: NaN; reached in every bin: the range's lower edge */
    CU_ASSERT(isnan(xc_study_frb_cross(e, y, n, 3, 1, 0.9)));
    XC_ASSERT_NEAR(xc_study_frb_cross(e, y, n, 3, 1, 0.0), 1.0, 0);
    /* not monotone: the crossing above which every bin stays at or above
     * the level (bins 2 and 3 here, centres 2.5 and 3.5 of four decades) */
    const double e4[] = {1, 10, 100, 1000, 10000}, y4[] = {0, 0.6, 0.3, 1};
    const uint64_t n4[] = {3, 3, 3, 3};
    XC_ASSERT_NEAR(xc_study_frb_cross(e4, y4, n4, 4, 1, 0.5), pow(10, 2.5 + 0.2 / 0.7), 1e-9);
    /* an empty bin is skipped: bins 1 and 3, linear axis centres 15 and 35 */
    const double el[] = {0, 10, 20, 30, 40}, yl[] = {0, 0.2, NAN, 0.8};
    const uint64_t nl[] = {4, 4, 0, 4};
    XC_ASSERT_NEAR(xc_study_frb_cross(el, yl, nl, 4, 0, 0.5), 25.0, 1e-12);
}

/* ---- a study with planted outcomes ------------------------------------------- */

static const char *planted_spec(int n)
{
    static char path[4200];
    xc_fx_write_text(xc_fx_tmp("pop-frb.json"),
                     "{\"fixed\": {\"nchans\": 64, \"nbits\": 8, \"tsamp_us\": 256, \"tobs_s\": 1, \"fch1\": 1500,"
                     "            \"foff\": -4}, \"draw\": {},"
                     " \"frb\": {\"fluence_jyms\": {\"min\": 0.01, \"max\": 10, \"index\": -0.05},"
                     "          \"width_ms\": {\"median\": 1, \"sigma_ln\": 0},"
                     "          \"dm\": {\"dist\": \"uniform\", \"lo\": 100, \"hi\": 200}}}");
    char text[2048];
    snprintf(text, sizeof text,
             "{\"population\": {\"spec\": \"pop-frb.json\", \"n\": %d, \"seed\": 3},"
             " \"searchers\": ["
             "  {\"name\": \"heimdall\", \"family\": \"singlepulse\", \"impl\": \"cpu\","
             "   \"options\": {\"lodm\": 50, \"hidm\": 250}},"
             "  {\"name\": \"presto\", \"family\": \"singlepulse\","
             "   \"options\": {\"preset\": \"presto\", \"dmplan\": \"50:250:2\", \"ddimpl\": \"subband\"}}],"
             " \"detection\": {\"bins\": 8}}",
             n);
    snprintf(path, sizeof path, "%s", xc_fx_tmp("study-frb.json"));
    xc_fx_write_text(path, text);
    return path;
}

/* Runs the slice shard/nshards of st into dir on `threads` threads and
 * writes its outputs from the journals. */
static void run_study(xc_study *st, const char *dir, int threads, uint64_t shard, uint64_t nshards)
{
    xc_study_runopts ro = {.shard = shard, .nshards = nshards, .threads = threads};
    xc_study_rows rows = {0};
    xc_error err;
    xc_error_clear(&err);
    xc_status s;
    if ((s = xc_study_run(st, dir, &ro, &err)) || (s = xc_study_journal_read(st, dir, &rows, &err)) ||
        (s = xc_study_rows_sort(&rows, &err)) || (s = xc_study_write_outputs(st, &rows, shard, nshards, dir, &err)))
        fprintf(stderr, "study %s: %s\n", dir, err.msg);
    xc_study_rows_free(&rows);
    CU_ASSERT_EQUAL_FATAL(s, XC_OK);
}

/* Bright bursts all found, faint ones none, F50 in its bracket (above). */
XC_TEST(test_frb_planted, "frb_planted")
{
    xc_registry *reg;
    xc_error err;
    CU_ASSERT_EQUAL_FATAL(xc_registry_builtin(&reg, &err), XC_OK);
    xc_study st;
    xc_status s = xc_study_load(&st, planted_spec(48), reg, &err);
    if (s)
        fprintf(stderr, "load: %s\n", err.msg);
    CU_ASSERT_EQUAL_FATAL(s, XC_OK);
    CU_ASSERT(st.frb);
    const char *dir = xc_fx_tmp("frb-planted");
    run_study(&st, dir, 2, 0, 1);
    xc_study_rows rows = {0};
    CU_ASSERT_EQUAL_FATAL(xc_study_journal_read(&st, dir, &rows, &err), XC_OK);
    CU_ASSERT_EQUAL_FATAL(xc_study_rows_sort(&rows, &err), XC_OK);
    CU_ASSERT_EQUAL(rows.n, 96);
    size_t bright = 0, faint = 0;
    for (size_t i = 0; i < rows.n; i++) {
        const xc_study_row *r = &rows.r[i];
        if (r->fluence > 2) {
            bright++;
            if (!r->detected)
                fprintf(stderr, "burst %llu (%g Jy ms) missed by %s\n", (unsigned long long)r->id, r->fluence,
                        st.s[r->searcher].name);
            CU_ASSERT(r->detected);
        } else if (r->fluence < 0.1) {
            faint++;
            if (r->detected)
                fprintf(stderr, "burst %llu (%g Jy ms) found by %s\n", (unsigned long long)r->id, r->fluence,
                        st.s[r->searcher].name);
            CU_ASSERT(!r->detected);
        }
    }
    /* both ends of the population are populated (log-flat draws: about a quarter each) */
    CU_ASSERT(bright >= 10 && faint >= 10);
    xc_study_table t;
    CU_ASSERT_EQUAL_FATAL(xc_study_table_make(&st, &rows, 0, 1, &t, &err), XC_OK);
    xc_study_frbcurves cv;
    CU_ASSERT_EQUAL_FATAL(xc_study_frb_curves(&st, &t, &cv, &err), XC_OK);
    for (size_t q = 0; q < 2; q++) {
        const double *f50 = &cv.fq[q * 6];
        fprintf(stderr, "%s: F50 %g [%g, %g] Jy ms\n", st.s[q].name, f50[0], f50[1], f50[2]);
        /* the lossless matched box's fluence at the threshold (heimdall 6, presto 5), times 0.7..2.5 */
        const double f0 = (q ? 5.0 : 6.0) / 17.89;
        XC_ASSERT_NEAR(f50[0], 1.6 * f0, 0.9 * f0);
        /* the interval holds the estimate */
        CU_ASSERT(f50[1] <= f50[0] && (f50[0] <= f50[2] || isnan(f50[2])));
        /* the curve's bins: the faintest fluence bin finds nothing, the brightest everything */
        const xc_study_bin *b = &cv.bin[(q * XC_FRB_NAXES + 0) * (size_t)cv.nb];
        CU_ASSERT(b[0].n > 0 && b[0].k == 0);
        CU_ASSERT(b[cv.nb - 1].n > 0 && b[cv.nb - 1].k == b[cv.nb - 1].n);
    }
    xc_study_frb_curves_free(&cv);
    xc_study_table_free(&t);
    xc_study_rows_free(&rows);
    xc_study_free(&st);
    xc_registry_destroy(reg);
}

/* The outputs of an FRB study in a and b, byte for byte: the number that differ. */
static int outputs_differ(const char *a, const char *b)
{
    const char *files = "detections.csv rates.csv completeness.csv completeness.json index.html";
    int bad = 0;
    for (const char *f = files; *f;) {
        size_t len = strcspn(f, " ");
        char pa[4300], pb[4300];
        snprintf(pa, sizeof pa, "%s/%.*s", a, (int)len, f);
        snprintf(pb, sizeof pb, "%s/%.*s", b, (int)len, f);
        bad += !xc_fx_same_file(pa, pb) && fprintf(stderr, "%s and %s differ\n", pa, pb) > 0;
        f += len + (f[len] == ' ');
    }
    return bad;
}

/* The same bytes on 1 and 4 threads, and as three shards (run on 1, 2 and 3
 * threads) merged. */
XC_TEST(test_frb_same_bytes, "frb_same_bytes")
{
    xc_registry *reg;
    xc_error err;
    CU_ASSERT_EQUAL_FATAL(xc_registry_builtin(&reg, &err), XC_OK);
    xc_study st;
    CU_ASSERT_EQUAL_FATAL(xc_study_load(&st, planted_spec(10), reg, &err), XC_OK);
    static const char *const names[] = {"frb-one", "frb-four", "frb-s0", "frb-s1", "frb-s2", "frb-merged"};
    char dir[6][4200];
    for (int i = 0; i < 6; i++)
        snprintf(dir[i], sizeof dir[i], "%s", xc_fx_tmp(names[i]));
    run_study(&st, dir[0], 1, 0, 1);
    run_study(&st, dir[1], 4, 0, 1);
    CU_ASSERT_EQUAL(outputs_differ(dir[0], dir[1]), 0);
    for (int i = 0; i < 3; i++)
        run_study(&st, dir[2 + i], 1 + i, (uint64_t)i, 3);
    const char *shards[] = {dir[2], dir[3], dir[4]};
    xc_study merged;
    xc_status s = xc_study_merge(shards, 3, dir[5], reg, &merged, &err);
    if (s)
        fprintf(stderr, "merge: %s\n", err.msg);
    CU_ASSERT_EQUAL_FATAL(s, XC_OK);
    CU_ASSERT(merged.frb);
    CU_ASSERT_EQUAL(outputs_differ(dir[0], dir[5]), 0);
    xc_study_free(&merged);
    xc_study_free(&st);
    xc_registry_destroy(reg);
}

/* ---- the spec: strict, every refusal names the field ------------------------ */

static void refused(const char *searchers, const char *extra, const char *want)
{
    planted_spec(4);
    char text[2048];
    snprintf(text, sizeof text, "{\"population\": {\"spec\": \"pop-frb.json\", \"n\": 4}, \"searchers\": [%s]%s}",
             searchers, extra);
    const char *path = xc_fx_tmp("study-frb-bad.json");
    xc_fx_write_text(path, text);
    xc_registry *reg;
    xc_error err;
    CU_ASSERT_EQUAL_FATAL(xc_registry_builtin(&reg, &err), XC_OK);
    xc_study st;
    xc_error_clear(&err);
    xc_status s = xc_study_load(&st, path, reg, &err);
    CU_ASSERT_EQUAL(s, XC_EINVAL);
    if (!strstr(err.msg, want))
        fprintf(stderr, "expected \"%s\" in: %s\n", want, err.msg);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, want));
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "study-frb-bad.json"));
    if (!s)
        xc_study_free(&st);
    xc_registry_destroy(reg);
}

XC_TEST(test_frb_spec_errors, "frb_spec_errors")
{
    const char *sp = "{\"name\": \"a\", \"family\": \"singlepulse\", \"options\": {\"dmplan\": \"50:250:1\"}}";
    refused("{\"name\": \"a\", \"family\": \"singlepulse\", \"options\": {\"zmax\": 5}}", "",
            "searchers[0].options.zmax: unknown singlepulse option");
    refused("{\"name\": \"a\", \"family\": \"singlepulse\", \"options\": {\"ddimpl\": \"nosuch\"}}", "",
            "searchers[0].ddimpl = \"nosuch\": not a registered dedisperse implementation");
    refused("{\"name\": \"a\", \"family\": \"singlepulse\", \"sweep\": {\"preset\": [\"heimdall\", \"fast\"]}}", "",
            "searchers[0].sweep.preset[1]: must be one of the strings heimdall|presto|astroaccelerate");
    refused("{\"name\": \"a\", \"family\": \"singlepulse\", \"options\": {\"dmplan\": \"250:50:1\"}}", "",
            "searchers[0] (preset=heimdall threshold=6)");
    refused("{\"name\": \"a\", \"family\": \"singlepulse\", \"options\": {\"widths\": [4, 2]}}", "",
            "searchers[0].options.widths[1]: must be an integer in 1..16777216, above the one before it");
    char two[512];
    snprintf(two, sizeof two, "%s, {\"name\": \"b\", \"family\": \"pulscan\"}", sp);
    refused(two, "", "searchers: a study of single-pulse searchers takes only family \"singlepulse\" searchers");
    refused(sp, ", \"detection\": {\"sigma\": 5}", "detection.sigma: a periodicity search's");
    refused(sp, ", \"data\": \"dedispersed\"", "data: a single-pulse study makes each burst's filterbank");
}

/* The dataset's example runs from the command line on a few bursts. */
XC_TEST_IF(test_frb_example_cli, "frb_example_cli", xc_fx_skip_no_bin)
{
    char msg[4096];
    const char *dir = xc_fx_tmp("frb-example");
    int rc = xc_fx_run_clif(msg, sizeof msg, "study -spec %s -n 6 -out %s -quiet",
                            xc_fx_dataset("study-frb-small.json"), dir);
    if (rc)
        fprintf(stderr, "%s\n", msg);
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    char p[4300];
    snprintf(p, sizeof p, "%s/completeness.json", dir);
    CU_ASSERT(xc_fx_exists(p));
    snprintf(p, sizeof p, "%s/index.html", dir);
    CU_ASSERT(xc_fx_exists(p));
    /* every searcher's configurations: 5 searches x 6 bursts and the header */
    snprintf(p, sizeof p, "%s/detections.csv", dir);
    size_t n = 0, lines = 0;
    unsigned char *b = xc_fx_slurp(p, &n);
    for (size_t i = 0; b && i < n; i++)
        lines += b[i] == '\n';
    free(b);
    CU_ASSERT_EQUAL(lines, 31);
}

/* crosscheck bench study on the dataset's FRB study, 2 bursts on one
 * thread: the record has every stage per burst, one entry per search (5),
 * stages that add up to no more than the burst's total (they are timed
 * inside it; relative 1e-5, the record's 6 significant digits), and the
 * projection for the spec's 60 bursts: 60 x the time per burst. */
XC_TEST_IF(test_frb_bench_study, "frb_bench_study", xc_fx_skip_no_bin)
{
    char msg[4096];
    const char *out = xc_fx_tmp("frb-bench.json");
    int rc = xc_fx_run_clif(msg, sizeof msg, "bench study -spec %s -n 2 -threads 1 -json %s",
                            xc_fx_dataset("study-frb-small.json"), out);
    if (rc)
        fprintf(stderr, "%s\n", msg);
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    json_error_t je;
    json_t *j = json_load_file(out, 0, &je);
    CU_ASSERT_PTR_NOT_NULL_FATAL(j);
    CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(j, "kind")), "frb");
    XC_ASSERT_NEAR((double)json_integer_value(json_object_get(j, "bursts")), 2, 0);
    double total = json_real_value(json_object_get(j, "serial_s_per_burst")), sum = 0;
    static const char *const stages[] = {"synthesis_s_per_burst", "dedispersion_s_per_burst", "scoring_s_per_burst"};
    for (int i = 0; i < 3; i++) {
        json_t *v = json_object_get(j, stages[i]);
        CU_ASSERT_FATAL(json_is_real(v));
        XC_ASSERT_ABOVE(json_real_value(v), 0);
        sum += json_real_value(v);
    }
    json_t *searches = json_object_get(j, "searches");
    XC_ASSERT_NEAR((double)json_array_size(searches), 5, 0);
    for (size_t i = 0; i < json_array_size(searches); i++)
        sum += json_real_value(json_object_get(json_array_get(searches, i), "s_per_burst"));
    XC_ASSERT_BELOW(sum, total * (1 + 1e-5));
    json_t *proj = json_object_get(j, "projection");
    XC_ASSERT_NEAR((double)json_integer_value(json_object_get(proj, "population_bursts")), 60, 0);
    XC_ASSERT_NEAR(json_real_value(json_object_get(proj, "core_hours")), 60 * total / 3600, 1e-5 * 60 * total / 3600);
    json_decref(j);
}

/* mpirun and a binary built with MPI, or the reason to skip. */
static int no_mpi(char *why, size_t n)
{
    char cmd[4300];
    snprintf(cmd, sizeof cmd, "command -v mpirun >/dev/null 2>&1 && %s study -h | grep -q 'MPI: built in'",
             xc_fx_bin());
    if (xc_fx_skip_no_bin(why, n))
        return 1;
    if (system(cmd))
        return snprintf(why, n, "no mpirun, or crosscheck built without MPI") > 0;
    return 0;
}

/* Two MPI ranks give the bytes of one process. */
XC_TEST_IF(test_frb_mpi_same_bytes, "frb_mpi_same_bytes", no_mpi)
{
    char msg[4096], one[4200], two[4200], cmd[13000];
    snprintf(one, sizeof one, "%s", xc_fx_tmp("frb-mpi-one"));
    snprintf(two, sizeof two, "%s", xc_fx_tmp("frb-mpi-two"));
    const char *spec = planted_spec(8);
    CU_ASSERT_EQUAL_FATAL(xc_fx_run_clif(msg, sizeof msg, "study -spec %s -out %s -threads 1 -quiet", spec, one), 0);
    /* OpenMPI refuses root, and 2 ranks on 1 core, unless told; leak checks off under ASan, as in test_study */
    snprintf(cmd, sizeof cmd, "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 ASAN_OPTIONS=detect_leaks=0 "
             "mpirun --oversubscribe -n 2 %s study -spec %s -out %s -threads 1 -quiet > %s 2>&1", xc_fx_bin(), spec,
             two, xc_fx_tmp("frb-mpi.log"));
    CU_ASSERT_EQUAL_FATAL(system(cmd), 0);
    CU_ASSERT_EQUAL(outputs_differ(one, two), 0);
}

XC_TEST_MAIN("study_frb")
