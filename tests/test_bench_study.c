/* bench study's projection: the side-by-side pass split into a fixed cost
 * and a steady rate from its completion times (xc_bench_study_steady), the
 * paper's hours from those (xc_bench_study_hours), and the record's
 * projection written from the same numbers. */
#include <jansson.h>
#include <math.h>
#include <stdio.h>

#include "bench/xc_bench_study.h"

#include "tests/xc_fixture.h"
#include "tests/xc_test.h"

/* Completions on an exact line from the W-th on (t = 1 + 0.05 k), the
 * first round's earlier, given out of order: the line's rate, and the wall
 * less the pulsars at that rate. */
XC_TEST(test_steady_line, "steady rate and fixed cost of completions on a line")
{
    enum { N = 40, W = 4 };
    double t[N];
    for (int k = 1; k <= N; k++)
        t[(k * 7) % N] = k < W ? 1.2 - 0.01 * k : 1 + 0.05 * k;   /* 7 and 40 coprime: a permutation */
    double rate, fixed;
    xc_bench_study_steady(t, N, W, 3.5, &rate, &fixed);
    XC_ASSERT_NEAR(rate, 20, 1e-9);
    XC_ASSERT_NEAR(fixed, 3.5 - N * 0.05, 1e-9);
}

/* Noise that sums to zero over the fitted completions and is symmetric
 * about their middle leaves the least-squares slope as it was. */
XC_TEST(test_steady_noise, "steady rate: symmetric noise about the middle does not move it")
{
    enum { N = 21, W = 1 };
    double t[N];
    for (int k = 1; k <= N; k++) {
        const int off = k - 11;   /* -10..10 */
        t[k - 1] = 0.5 + 0.1 * k + (off == 0 ? 0 : (off % 2 ? 0.001 : -0.001));
    }
    double rate, fixed;
    xc_bench_study_steady(t, N, W, t[N - 1] + 0.2, &rate, &fixed);
    XC_ASSERT_NEAR(rate, 10, 1e-9);
    XC_ASSERT_NEAR(fixed, t[N - 1] + 0.2 - N * 0.1, 1e-9);
}

/* Fewer than 3 completions from the W-th on, or times that do not rise:
 * no rate, no fixed cost. */
XC_TEST(test_steady_too_few, "steady rate: too few completions or a flat line give NAN")
{
    const double t[6] = {1, 1.1, 1.2, 1.3, 1.4, 1.5}, flat[6] = {2, 2, 2, 2, 2, 2};
    double rate = 0, fixed = 0;
    xc_bench_study_steady(t, 6, 5, 2, &rate, &fixed);
    CU_ASSERT(isnan(rate) && isnan(fixed));
    xc_bench_study_steady(t, 6, 4, 2, &rate, &fixed);
    XC_ASSERT_NEAR(rate, 10, 1e-9);
    xc_bench_study_steady(flat, 6, 1, 2, &rate, &fixed);
    CU_ASSERT(isnan(rate) && isnan(fixed));
    xc_bench_study_steady(NULL, 6, 1, 2, &rate, &fixed);
    CU_ASSERT(isnan(rate));
}

/* The hours: a run of 3.3 s fixed and 53.8 ms a pulsar takes
 * 3.3 + 10 955 x 0.0538 = 592.679 s for the paper's pulsars; start-up adds,
 * the bins' scale multiplies the pulsars' part only. */
XC_TEST(test_hours, "projection hours = (startup + fixed + N x scale / rate) / 3600")
{
    XC_ASSERT_NEAR(xc_bench_study_hours(NAN, 3.3, 1 / 0.0538, 10955, 1), 592.679 / 3600, 1e-12);
    XC_ASSERT_NEAR(xc_bench_study_hours(0.7, 3.3, 1 / 0.0538, 10955, 1), 593.379 / 3600, 1e-12);
    XC_ASSERT_NEAR(xc_bench_study_hours(-0.2, 3.3, 1 / 0.0538, 10955, 1), 592.679 / 3600, 1e-12);
    XC_ASSERT_NEAR(xc_bench_study_hours(0, 2, 10, 100, 2), (2 + 20) / 3600.0, 1e-15);
    CU_ASSERT(isnan(xc_bench_study_hours(0, 2, NAN, 100, 1)));
    CU_ASSERT(isnan(xc_bench_study_hours(0, 2, 0, 100, 1)));
}

/* The record: side by side on 2 workers, 5 pulsars of the small CPU study;
 * the projection's hours are its own start-up, fixed cost and rate
 * combined, and the n pulsars' wall scaled is kept beside it. */
XC_TEST_IF(test_bench_study_record, "bench study -json: the projection from start-up, fixed cost and rate",
           xc_fx_skip_no_bin)
{
    char msg[4096];
    const char *out = xc_fx_tmp("bench-study.json");
    int rc = xc_fx_run_clif(msg, sizeof msg, "bench study -spec %s -n 5 -threads 2 -workers 2 -json %s",
                            xc_fx_dataset("study-table1-small.json"), out);
    if (rc)
        fprintf(stderr, "%s\n", msg);
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    json_error_t je;
    json_t *j = json_load_file(out, 0, &je);
    CU_ASSERT_PTR_NOT_NULL_FATAL(j);
    json_t *p = json_object_get(j, "projection");
    const double rate = json_number_value(json_object_get(p, "steady_pulsars_per_s")),
                 fixed = json_number_value(json_object_get(p, "fixed_s")),
                 startup = json_number_value(json_object_get(p, "startup_s")),
                 scale = json_number_value(json_object_get(p, "bins_scale")),
                 hours = json_number_value(json_object_get(p, "hours_on_this_machine_side_by_side")),
                 scaled = json_number_value(json_object_get(p, "hours_scaled_from_timed_wall")),
                 wall = json_number_value(json_object_get(j, "parallel_wall_s"));
    XC_ASSERT_ABOVE(rate, 0);
    CU_ASSERT(json_is_real(json_object_get(p, "startup_s")));
    const double want = ((startup > 0 ? startup : 0) + fixed + 10955 * scale / rate) / 3600;
    /* the record keeps 6 significant digits of each number */
    XC_ASSERT_NEAR(hours, want, 2e-5 * want);
    XC_ASSERT_NEAR(scaled, 10955 * scale * wall / 5 / 3600, 2e-5 * scaled);
    /* the fixed cost is the wall less the pulsars at the steady rate */
    XC_ASSERT_NEAR(fixed, wall - 5 / rate, 2e-5 * wall + 1e-6);
    json_decref(j);
}

XC_TEST_MAIN("bench_study")
