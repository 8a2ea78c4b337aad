/* Dedispersion: the reference against hand-worked cases and its algebraic
 * properties, the DM plans, and the CPU kernel against the reference bit for
 * bit (integer input) or within its stated bound (float input). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "optimized/cpu/cpu_internal.h"
#include "optimized/cpu/xc_cpu.h"
#include "reference/xc_reference.h"
#include "core/dedisp/xc_dedisperse.h"
#include "tests/xc_fixture.h"
#include "tests/xc_test.h"

/* ---- helpers ------------------------------------------------------------- */

typedef xc_status (*ddfn)(const xc_ddjob *, xc_plane *, xc_error *);

static void run_impl(ddfn fn, const xc_ddjob *job, xc_plane *pl)
{
    xc_error err;
    CU_ASSERT_EQUAL_FATAL(xc_plane_alloc(pl, job, &err), XC_OK);
    xc_status st = fn(job, pl, &err);
    if (st)
        printf("dedisperse: %s\n", err.msg);
    CU_ASSERT_EQUAL_FATAL(st, XC_OK);
}

static float at(const xc_plane *p, int k, size_t d, size_t t)
{
    return p->r[k].data[d * p->r[k].nsamp + t];
}

/* ---- the reference on hand-worked cases ---------------------------------- */

/* 3 channels at 1000, 750, 500 MHz, tsamp 1 ms, crosscheck k_DM 4148.808.
 * At DM 0.25: k*DM/tsamp = 1037202, so
 *   channel 1: 1037202 * (1/750^2 - 1/1000^2) = 0.8067 -> 1
 *   channel 2: 1037202 * (1/500^2 - 1/1000^2) = 3.1116 -> 3
 * and max_delay 3 leaves 8 - 3 = 5 outputs.  Data: channel 0 = t+1,
 * channel 1 = 10(t+1), channel 2 = 100+t, so
 *   DM 0:    (t+1) + 10(t+1) + (100+t)   = 12t + 111
 *   DM 0.25: (t+1) + 10(t+2) + (100+t+3) = 12t + 124 */
static void hand_data(xc_fixture *f)
{
    for (size_t t = 0; t < f->blk.nsamp; t++) {
        f->u16[t * 3 + 0] = (uint16_t)(t + 1);
        f->u16[t * 3 + 1] = (uint16_t)(10 * (t + 1));
        f->u16[t * 3 + 2] = (uint16_t)(100 + t);
    }
}

/* The hand-worked block under plan and preset with nout outputs, its job
 * built (mask: NULL, or 1 per channel kept). */
static void hand_fixture(xc_fixture *f, const char *plan, const char *preset, size_t nout, const uint8_t *mask)
{
    xc_fx_init(f, 3, 8, 1000, -250, 1e-3, plan, preset, nout);
    hand_data(f);
    xc_fx_job(f, mask);
}

/* The cpu dedisperser gives p again on f's job (what names the check); then
 * p and f are freed. */
static void cpu_same_then_free(xc_fixture *f, xc_plane *p, const char *what)
{
    xc_plane q;
    run_impl(xc_dedisperse_cpu, &f->job, &q);
    CU_ASSERT(xc_fx_planes_equal(p, &q, what));
    xc_plane_free(p);
    xc_plane_free(&q);
    xc_fx_free(f);
}

XC_TEST(test_ref_hand_3x8, "ref_hand_3x8")
{
    xc_fixture f;
    hand_fixture(&f, "0:0.5:0.25", "crosscheck", 5, NULL);
    CU_ASSERT_EQUAL_FATAL(f.blk.nsamp, 8u);
    static const int32_t want_delays[] = {0, 0, 0, 0, 1, 3};
    CU_ASSERT_EQUAL(memcmp(f.job.delays[0], want_delays, sizeof want_delays), 0);
    CU_ASSERT_EQUAL(f.job.max_delay, 3);
    CU_ASSERT_EQUAL(f.job.nout, 5u);
    xc_plane p;
    run_impl(xc_dedisperse_reference, &f.job, &p);
    static const float dm0[] = {111, 123, 135, 147, 159}, dm1[] = {124, 136, 148, 160, 172};
    for (size_t t = 0; t < 5; t++) {
        CU_ASSERT_EQUAL(at(&p, 0, 0, t), dm0[t]);
        CU_ASSERT_EQUAL(at(&p, 0, 1, t), dm1[t]);
    }
    xc_plane_free(&p);
    xc_fx_free(&f);
}

/* DM 0.5 with ds 2: delays in units of 2 ms are 1037202*2/2 * (...) =
 * 0.8067 -> 1 and 3.1116 -> 3 (max_delay 2*3 = 6).  16 samples give
 * nout 10, 5 scrunched outputs.  Scrunched data: channel 0: (2j+1)+(2j+2) = 4j+3,
 * channel 1: 10(4j+3) = 40j+30, channel 2: (100+2j)+(101+2j) = 4j+201;
 * out[t] = (4t+3) + (40(t+1)+30) + (4(t+3)+201) = 48t + 286. */
XC_TEST(test_ref_hand_ds2, "ref_hand_ds2")
{
    xc_fixture f;
    hand_fixture(&f, "0.5:1:0.5:2", "crosscheck", 10, NULL);
    CU_ASSERT_EQUAL_FATAL(f.blk.nsamp, 16u);
    static const int32_t want_delays[] = {0, 1, 3};
    CU_ASSERT_EQUAL(memcmp(f.job.delays[0], want_delays, sizeof want_delays), 0);
    xc_plane p;
    run_impl(xc_dedisperse_reference, &f.job, &p);
    CU_ASSERT_EQUAL_FATAL(p.r[0].nsamp, 5u);
    static const float want[] = {286, 334, 382, 430, 478};
    for (size_t t = 0; t < 5; t++)
        CU_ASSERT_EQUAL(at(&p, 0, 0, t), want[t]);
    cpu_same_then_free(&f, &p, "ds2 cpu");
}

/* Channel 1 killed: DM 0: (t+1) + (100+t) = 2t+101; DM 0.25: (t+1) + (103+t) = 2t+104.
 * The scaling still divides by all 3 channels (AstroAccelerate and dedisp do). */
XC_TEST(test_ref_hand_killmask, "ref_hand_killmask")
{
    xc_fixture f;
    static const uint8_t mask[] = {1, 0, 1};
    hand_fixture(&f, "0:0.5:0.25", "crosscheck", 5, mask);
    xc_plane p;
    run_impl(xc_dedisperse_reference, &f.job, &p);
    for (size_t t = 0; t < 5; t++) {
        CU_ASSERT_EQUAL(at(&p, 0, 0, t), (float)(2 * t + 101));
        CU_ASSERT_EQUAL(at(&p, 0, 1, t), (float)(2 * t + 104));
    }
    cpu_same_then_free(&f, &p, "killmask cpu");
}

/* Scalings at DM 0 (every preset has zero delays there): sums 12t + 111.
 * astroaccelerate: sum/nchans/ds = 37, 41, 45, ...; dedisp: sum/(255*3)*0.752941. */
XC_TEST(test_ref_hand_scaling, "ref_hand_scaling")
{
    xc_fixture f;
    hand_fixture(&f, "0:1:1", "astroaccelerate", 8, NULL);
    xc_plane p;
    run_impl(xc_dedisperse_reference, &f.job, &p);
    for (size_t t = 0; t < 8; t++)
        CU_ASSERT_EQUAL(at(&p, 0, 0, t), (float)(37 + 4 * t));
    xc_plane_free(&p);
    xc_ddjob_free(&f.job);
    f.cv = xc_convention_get("dedisp");
    xc_fx_job(&f, NULL);
    run_impl(xc_dedisperse_reference, &f.job, &p);
    XC_ASSERT_CLOSE(at(&p, 0, 0, 0), 111.0 / 765.0 * 0.7529411764705882, 1e-7);
    XC_ASSERT_CLOSE(at(&p, 0, 0, 7), 195.0 / 765.0 * 0.7529411764705882, 1e-7);
    cpu_same_then_free(&f, &p, "dedisp scaling cpu");
}

/* Delay rounding per preset.  Two channels at 1024 and 512 MHz: 1/f^2 are
 * exact (2^-20, 2^-18), their difference 3*2^-20.  With tsamp = k_DM*3/5/2^20
 * the channel-1 delay is 5*DM samples, so DM 0.1, 0.3, 0.5, 0.7 sit exactly on
 * .5 ties in the float presets (dedisp's float table is then exactly 5.0f and
 * the float products round to x.5) and 0.34, 0.46, 0.54, 0.98 give 1.7, 2.3,
 * 2.7, 4.9.  Ties are not exact in double, so the double presets get only the
 * non-tie trials.  A second case at tsamp 64 us, DM 100 separates the
 * constants: k_DM * 100 * 3*2^-20 / 64e-6 = 18546.62 (crosscheck),
 * 18546.32 (sigproc), 18549.16 (presto), 18551.95 (dedisp, 4150),
 * 18546.32 (astroaccelerate, truncated). */
static void preset_case(const char *name, const double *dms, const int32_t *want, size_t n,
                        double tsamp)
{
    const xc_convention *cv = xc_convention_get(name);
    CU_ASSERT_PTR_NOT_NULL_FATAL(cv);
    xc_geometry g = {2, 1024, -512, tsamp};
    xc_dmrange r = {0, 1, 0, 1, n, (double *)dms};
    int32_t d[32];
    xc_error err;
    CU_ASSERT_EQUAL_FATAL(xc_delays_compute(cv, &g, &r, d, &err), XC_OK);
    for (size_t j = 0; j < n; j++) {
        CU_ASSERT_EQUAL(d[2 * j], 0);
        if (d[2 * j + 1] != want[j])
            printf("%s DM %g: delay %d, want %d\n", name, dms[j], (int)d[2 * j + 1], (int)want[j]);
        CU_ASSERT_EQUAL(d[2 * j + 1], want[j]);
    }
}

XC_TEST(test_presets_rounding, "presets_rounding")
{
    static const double ties[] = {0.1, 0.3, 0.5, 0.7}, other[] = {0.34, 0.46, 0.54, 0.98};
    static const double big[] = {100.0};
    /* dedisp: nearest, ties to even; astroaccelerate: truncation. */
    static const int32_t dedisp_ties[] = {0, 2, 2, 4}, dedisp_other[] = {2, 2, 3, 5};
    static const int32_t aa_ties[] = {0, 1, 2, 3}, aa_other[] = {1, 2, 2, 4};
    static const int32_t near_other[] = {2, 2, 3, 5};
    preset_case("dedisp", ties, dedisp_ties, 4, 4150.0 * 3.0 / 5.0 / 1048576.0);
    preset_case("dedisp", other, dedisp_other, 4, 4150.0 * 3.0 / 5.0 / 1048576.0);
    preset_case("astroaccelerate", ties, aa_ties, 4, 4148.741601 * 3.0 / 5.0 / 1048576.0);
    preset_case("astroaccelerate", other, aa_other, 4, 4148.741601 * 3.0 / 5.0 / 1048576.0);
    preset_case("crosscheck", other, near_other, 4, 4148.808 * 3.0 / 5.0 / 1048576.0);
    preset_case("sigproc", other, aa_other, 4, 4148.741601 * 3.0 / 5.0 / 1048576.0);
    preset_case("presto", other, near_other, 4, (1.0 / 2.41e-4) * 3.0 / 5.0 / 1048576.0);
    static const int32_t cc[] = {18547}, sp[] = {18546}, pr[] = {18549}, dd[] = {18552}, aa[] = {18546};
    preset_case("crosscheck", big, cc, 1, 64e-6);
    preset_case("sigproc", big, sp, 1, 64e-6);
    preset_case("presto", big, pr, 1, 64e-6);
    preset_case("dedisp", big, dd, 1, 64e-6);
    preset_case("astroaccelerate", big, aa, 1, 64e-6);

    /* The same rounding seen through dedispersion: an impulse at sample 9 of
     * channel 1 appears at sample 9 - delay of the trial. */
    static const struct { const char *name; double tsamp; int32_t want[2]; } imp[] = {
        {"dedisp", 4150.0 * 3.0 / 5.0 / 1048576.0, {2, 4}},
        {"astroaccelerate", 4148.741601 * 3.0 / 5.0 / 1048576.0, {2, 3}},
    };
    for (size_t i = 0; i < 2; i++) {
        xc_fixture f;
        xc_fx_init(&f, 2, 8, 1024, -512, imp[i].tsamp, "0.5:0.9:0.2", imp[i].name, 8);
        CU_ASSERT_EQUAL_FATAL(f.plan.r[0].ndm, 2u);
        f.u16[9 * 2 + 1] = 200;
        xc_fx_job(&f, NULL);
        xc_plane p;
        run_impl(xc_dedisperse_reference, &f.job, &p);
        for (size_t d = 0; d < 2; d++)
            for (size_t t = 0; t < p.r[0].nsamp; t++) {
                int hit = (int32_t)t == 9 - imp[i].want[d];
                CU_ASSERT_EQUAL(at(&p, 0, d, t) > 0, hit);
            }
        xc_plane_free(&p);
        xc_fx_free(&f);
    }
}

/* ---- properties of the reference -------------------------------------------
 * Linearity, time shift and the impulse response are conformance cases
 * (compare/conform/conform_dedisperse.c), run on every registered dedisperser, the
 * reference included. */

XC_TEST(test_ref_dm0_channel_sum, "ref_dm0_channel_sum")
{
    xc_fixture f;
    xc_fx_random_job(&f, 9, 8, 1500, -10, 1e-4, "0:20:2.5", "sigproc", 50, 3);
    xc_plane p;
    run_impl(xc_dedisperse_reference, &f.job, &p);
    CU_ASSERT_EQUAL(f.plan.r[0].dms[0], 0.0);
    for (size_t t = 0; t < p.r[0].nsamp; t++) {
        unsigned s = 0;
        for (int c = 0; c < 9; c++)
            s += f.u16[t * 9 + (size_t)c];
        CU_ASSERT_EQUAL(at(&p, 0, 0, t), (float)s);
    }
    xc_plane_free(&p);
    xc_fx_free(&f);
}

/* ---- DM plans --------------------------------------------------------------- */

XC_TEST(test_tolerance_heimdall, "tolerance_heimdall")
{
    xc_dmplan p;
    xc_error err;
    CU_ASSERT_EQUAL_FATAL(xc_dmplan_tolerance(&p, 0, 1000, 64e-6, 40, 1581.804688, -0.390625, 1024, 1.25, &err), XC_OK);
    CU_ASSERT_EQUAL(p.nranges, 1);
    CU_ASSERT_EQUAL(p.r[0].ds, 1);
    CU_ASSERT_EQUAL(p.r[0].ndm, 1197u);
    CU_ASSERT_EQUAL(p.r[0].dms[0], 0.0);
    XC_ASSERT_CLOSE(p.r[0].dms[1], 0.180007, 5e-7);
    XC_ASSERT_CLOSE(p.r[0].dms[2], 0.360012, 5e-7);
    XC_ASSERT_CLOSE(p.r[0].dms[1196], 1001.48, 5e-3);
    /* stored as float after every step */
    CU_ASSERT_EQUAL(p.r[0].dms[1], (double)(float)p.r[0].dms[1]);
    CU_ASSERT(p.r[0].dms[1195] < 1000.0);
    CU_ASSERT_STRING_EQUAL(p.kind, "tolerance");
    xc_dmplan_free(&p);
}

XC_TEST(test_tolerance_fetch9_paulray, "tolerance_fetch9_paulray")
{
    xc_dmplan p;
    xc_error err;
    CU_ASSERT_EQUAL_FATAL(xc_dmplan_tolerance(&p, 0, 1000, 1.26647e-3, 40, 1465, -1, 336, 1.25, &err), XC_OK);
    CU_ASSERT_EQUAL(p.r[0].ndm, 208u);
    XC_ASSERT_CLOSE(p.r[0].dms[1], 2.97719, 5e-6);
    XC_ASSERT_CLOSE(p.r[0].dms[2], 5.95408, 5e-6);
    XC_ASSERT_CLOSE(p.r[0].dms[3], 8.9309, 5e-5);
    XC_ASSERT_CLOSE(p.r[0].dms[4], 11.9079, 5e-5);
    XC_ASSERT_CLOSE(p.r[0].dms[207], 1006.83, 5e-3);
    xc_dmplan_free(&p);
    CU_ASSERT_EQUAL_FATAL(xc_dmplan_tolerance(&p, 2, 100, 250e-6, 4, 1581, -100.0 / 1024, 1024, 1.25, &err), XC_OK);
    CU_ASSERT_EQUAL(p.r[0].ndm, 32u);
    CU_ASSERT_EQUAL(p.r[0].dms[0], 2.0);
    XC_ASSERT_CLOSE(p.r[0].dms[1], 5.24339, 5e-6);
    XC_ASSERT_CLOSE(p.r[0].dms[31], 102.662, 5e-4);
    xc_dmplan_free(&p);
    /* dedisp forces df negative: the sign given does not matter */
    CU_ASSERT_EQUAL_FATAL(xc_dmplan_tolerance(&p, 2, 100, 250e-6, 4, 1581, 100.0 / 1024, 1024, 1.25, &err), XC_OK);
    CU_ASSERT_EQUAL(p.r[0].ndm, 32u);
    xc_dmplan_free(&p);
}

XC_TEST(test_tolerance_errors, "tolerance_errors")
{
    xc_dmplan p;
    xc_error err;
    CU_ASSERT_EQUAL(xc_dmplan_tolerance(&p, 0, 1000, 64e-6, 40, 1581.804688, -0.390625, 1024, 1.0, &err), XC_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "1"));
    CU_ASSERT_EQUAL(xc_dmplan_tolerance(&p, 0, 1000, 64e-6, 40, 1581.804688, -0.390625, 1024, 0.5, &err), XC_EINVAL);
    CU_ASSERT_EQUAL(xc_dmplan_tolerance(&p, 0, 1000, 0, 40, 1581.804688, -0.390625, 1024, 1.25, &err), XC_EINVAL);
    xc_dmplan_free(&p);
}

XC_TEST(test_plan_ranges, "plan_ranges")
{
    xc_dmplan p;
    xc_error err;
    CU_ASSERT_EQUAL_FATAL(xc_dmplan_parse(&p, "0:150:0.1:1,150:300:0.2:1,300:500:0.25:1", "test", &err), XC_OK);
    CU_ASSERT_EQUAL(p.nranges, 3);
    CU_ASSERT_EQUAL(p.r[0].ndm, 1500u);
    CU_ASSERT_EQUAL(p.r[1].ndm, 750u);
    CU_ASSERT_EQUAL(p.r[2].ndm, 800u);
    CU_ASSERT_EQUAL(xc_dmplan_ndm(&p), 3050u);
    CU_ASSERT_EQUAL(p.r[0].dms[0], 0.0);
    XC_ASSERT_CLOSE(p.r[0].dms[1499], 149.9, 1e-9);   /* hi excluded */
    CU_ASSERT_EQUAL(p.r[1].dms[0], 150.0);
    XC_ASSERT_CLOSE(p.r[2].dms[799], 499.75, 1e-9);
    xc_dmplan_free(&p);
    CU_ASSERT_EQUAL_FATAL(xc_dmplan_parse(&p, "0:10:1:2", "test", &err), XC_OK);
    CU_ASSERT_EQUAL(p.r[0].ds, 2);
    xc_dmplan_free(&p);
    static const char *bad[] = {"", "5:5:1", "10:0:1", "150:300:0.2,0:150:0.1", "0:150:0.1,100:200:0.1",
                                "0:10:0", "0:10:1:0", "0:x:1"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        xc_status st = xc_dmplan_parse(&p, bad[i], "test", &err);
        if (st != XC_EINVAL)
            printf("plan '%s' was accepted\n", bad[i]);
        CU_ASSERT_EQUAL(st, XC_EINVAL);
        CU_ASSERT_EQUAL(p.nranges, 0);
    }
}

/* ---- the CPU kernel against the reference ----------------------------------- */

XC_TEST(test_cpu_layout, "cpu_layout")
{
    xc_cpu_layout l;
    xc_error err;
    CU_ASSERT_EQUAL_FATAL(xc_cpu_layout_for(8, 1, &l, &err), XC_OK);
    CU_ASSERT(l.store == XC_CPU_U8 && l.narrow == XC_CPU_U16);
    CU_ASSERT_EQUAL(l.narrow_channels, 257u);     /* 257 * 255 = 65535 */
    CU_ASSERT_EQUAL_FATAL(xc_cpu_layout_for(4, 17, &l, &err), XC_OK);
    CU_ASSERT(l.store == XC_CPU_U8);
    CU_ASSERT_EQUAL_FATAL(xc_cpu_layout_for(8, 2, &l, &err), XC_OK);
    CU_ASSERT(l.store == XC_CPU_U16 && l.narrow == XC_CPU_U32);
    CU_ASSERT_EQUAL(l.narrow_channels, 4294967295ull / 510);
    CU_ASSERT_EQUAL_FATAL(xc_cpu_layout_for(16, 1, &l, &err), XC_OK);
    CU_ASSERT(l.store == XC_CPU_U16 && l.narrow == XC_CPU_U32);
    CU_ASSERT_EQUAL(l.narrow_channels, 65537u);
    CU_ASSERT_EQUAL_FATAL(xc_cpu_layout_for(16, 3, &l, &err), XC_OK);
    CU_ASSERT(l.store == XC_CPU_U32 && l.narrow == XC_CPU_U32);
    CU_ASSERT_EQUAL(l.narrow_channels, 4294967295ull / (65535ull * 3));
    CU_ASSERT_EQUAL_FATAL(xc_cpu_layout_for(16, 70000, &l, &err), XC_OK);
    CU_ASSERT(l.store == XC_CPU_U64);
    CU_ASSERT_EQUAL_FATAL(xc_cpu_layout_for(32, 4, &l, &err), XC_OK);
    CU_ASSERT(l.store == XC_CPU_F32);
    CU_ASSERT_EQUAL(xc_cpu_layout_for(12, 1, &l, &err), XC_EINVAL);
    CU_ASSERT_EQUAL(xc_cpu_layout_for(8, 0, &l, &err), XC_EINVAL);
    int vb = 0;
    const char *isa = xc_cpu_isa(&vb);
    CU_ASSERT(vb == 16 || vb == 32 || vb == 64);
    CU_ASSERT_PTR_NOT_NULL(isa);
}

/* The add-peak probe runs the loop it claims, in the kernels' vector width:
 * its value is the scalar recurrence's (only lane 0 starts non-zero), and its
 * lanes are that width's 16-bit lanes. */
XC_TEST(test_cpu_add_probe, "cpu_add_probe")
{
    uint16_t a[8] = {0, 1, 2, 3, 4, 5, 6, 7};
    const long iters = 1001;
    for (long n = 0; n < iters; n++)
        for (int j = 0; j < 8; j++)
            a[j] = (uint16_t)(a[j] + a[(j + 1) % 8]);
    uint16_t want = 0;
    for (int j = 0; j < 8; j++)
        want ^= a[j];
    int lanes = 0, vb = 0;
    (void)xc_cpu_isa(&vb);
    for (int place = 0; place < 2; place++) {
        uint16_t got = xc_cpu_add_probe(iters, place, &lanes);
        if (got != want || lanes != vb / 2)
            fprintf(stderr, "add probe (place %d): value %u lanes %d, expected %u and %d (exact)\n", place, got,
                    lanes, want, vb / 2);
        CU_ASSERT_EQUAL(got, want);
        CU_ASSERT_EQUAL(lanes, vb / 2);
    }
}

/* The instruction-mix probe runs the mix it claims: its value is the XOR of its
 * sixteen accumulators, which plain loops over the same rows give (each of the
 * eight loads of a row added as 16-bit words and, shifted by 8, into its own
 * pair); it measures only where the kernel version is AVX-512, and says so. */
XC_TEST(test_cpu_mix_probe, "cpu_mix_probe")
{
    int vb = 0;
    (void)xc_cpu_isa(&vb);
    for (int split = 0; split < 2; split++) {
        const long iters = 3;
        double adds = -1;
        uint16_t got = 0;
        int ok = xc_cpu_mix_probe(iters, split, &adds, &got);
        CU_ASSERT_EQUAL(ok, vb == 64);
        if (!ok) {
            CU_ASSERT_EQUAL(adds, 0);
            continue;
        }
        /* The probe's rows: bytes i * 37 + 11 of 32 rows 576 bytes apart, 13 bytes in when split. */
        uint16_t lo[8][32] = {{0}}, hi[8][32] = {{0}};
        for (long n = 0; n < iters; n++)
            for (int r = 0; r < 32; r++)
                for (int l = 0; l < 8; l++)
                    for (int w = 0; w < 32; w++) {
                        size_t at = (size_t)r * 576 + (split ? 13 : 0) + (size_t)l * 64 + (size_t)w * 2;
                        uint16_t word = (uint16_t)((uint8_t)(at * 37u + 11u) | (uint8_t)((at + 1) * 37u + 11u) << 8);
                        lo[l][w] = (uint16_t)(lo[l][w] + word);
                        hi[l][w] = (uint16_t)(hi[l][w] + (word >> 8));
                    }
        uint16_t want = 0;
        for (int w = 0; w < 32; w++) {
            uint16_t v = 0;
            for (int l = 0; l < 8; l++)
                v ^= (uint16_t)(lo[l][w] ^ hi[l][w]);
            want ^= v;
        }
        if (got != want || adds != (double)iters * 32 * 512)
            fprintf(stderr, "mix probe (split %d): value %u adds %.0f, expected %u and %.0f (exact)\n", split, got,
                    adds, want, (double)iters * 32 * 512);
        CU_ASSERT_EQUAL(got, want);
        CU_ASSERT_EQUAL(adds, (double)iters * 32 * 512);
    }
}

static const struct {
    int threads;
    xc_ddtune tune;
} tilings[] = {
    {0, {.tile_t = 0, .tile_dm = 0, .tile_c = 0}},      {1, {.tile_t = 7, .tile_dm = 3, .tile_c = 5}},
    {2, {.tile_t = 1, .tile_dm = 1, .tile_c = 1}},      {2, {.tile_t = 33, .tile_dm = 5, .tile_c = 100}},
    {1, {.tile_t = 1000, .tile_dm = 64, .tile_c = 300}}, {2, {.tile_t = 257, .tile_dm = 2, .tile_c = 257}},
};
#define NTILINGS (sizeof tilings / sizeof tilings[0])

/* Runs the reference once and the CPU under every tiling, at 1 and 2 threads;
 * all must be identical.  Returns the number of mismatching runs. */
static int cpu_matches(xc_fixture *f, const char *what)
{
    xc_plane ref;
    run_impl(xc_dedisperse_reference, &f->job, &ref);
    int bad = 0;
    for (size_t i = 0; i < NTILINGS; i++) {
        f->job.opts = (xc_ddopts){.threads = tilings[i].threads};
        f->job.tune = tilings[i].tune;
        xc_plane p;
        run_impl(xc_dedisperse_cpu, &f->job, &p);
        if (!xc_fx_planes_equal(&ref, &p, what)) {
            printf("  %s: tiling threads %d tile_t %d tile_dm %d tile_c %d\n", what, tilings[i].threads,
                   tilings[i].tune.tile_t, tilings[i].tune.tile_dm, tilings[i].tune.tile_c);
            bad++;
        }
        xc_plane_free(&p);
    }
    f->job.opts = (xc_ddopts){.threads = 0};
    f->job.tune = (xc_ddtune){0};
    xc_plane_free(&ref);
    return bad;
}

static int cpu_check(xc_fixture *f, const char *what, const void *ctx)
{
    (void)ctx;
    return cpu_matches(f, what);
}

XC_TEST(test_cpu_nbits_presets, "cpu_nbits_presets")
{
    CU_ASSERT_EQUAL(xc_fx_each_nbits_preset("0:6:0.75,6:14:1:2,14:20:2:3", 90, cpu_check, NULL), 0);
}

XC_TEST(test_cpu_awkward_sizes, "cpu_awkward_sizes")
{
    static const struct { int nchans; int nbits; size_t nout; } sz[] = {
        {1, 8, 300}, {7, 16, 200}, {13, 2, 150}, {255, 8, 70}, {257, 8, 70}, {257, 4, 60},
        {1000, 16, 40}, {4097, 8, 20}, {4097, 1, 9},
    };
    int bad = 0;
    for (size_t i = 0; i < sizeof sz / sizeof sz[0]; i++) {
        xc_fixture f;
        /* 100 MHz below 1500 MHz whatever nchans: up to ~27 samples per unit DM */
        xc_fx_random_job(&f, sz[i].nchans, sz[i].nbits, 1500, -100.0 / sz[i].nchans, 1e-4,
                         "0:2:0.25,2:3:0.5:2,3:4.5:0.5:3,4.5:5:0.5:4", "crosscheck", sz[i].nout, 200 + i);
        char what[64];
        snprintf(what, sizeof what, "%d ch %d-bit", sz[i].nchans, sz[i].nbits);
        bad += cpu_matches(&f, what);
        xc_fx_free(&f);
    }
    CU_ASSERT_EQUAL(bad, 0);
}

XC_TEST(test_cpu_edges, "cpu_edges")
{
    int bad = 0;
    xc_fixture f;
    /* nsamp just above the largest delay: nout = 1 (and 0 samples for ds 2) */
    xc_fx_random_job(&f, 31, 8, 1500, -3, 1e-4, "0:10:1,10:20:2:2", "presto", 1, 300);
    CU_ASSERT_EQUAL(f.job.nout, 1u);
    bad += cpu_matches(&f, "nout 1");
    xc_fx_free(&f);
    /* one DM trial */
    xc_fx_random_job(&f, 64, 16, 1500, -1, 1e-4, "30:31:1", "sigproc", 77, 301);
    bad += cpu_matches(&f, "one trial");
    xc_fx_free(&f);
    /* largest values everywhere: 257 channels of 255 fill uint16 exactly;
     * 4097 channels of 65535 at ds 2 and 3 take the uint32 path */
    xc_fx_init(&f, 1000, 8, 1500, -0.1, 1e-4, "0:3:1", "crosscheck", 40);
    xc_fx_fill(&f, 255);
    xc_fx_job(&f, NULL);
    f.job.tune.tile_c = 100000;
    xc_plane p;
    run_impl(xc_dedisperse_cpu, &f.job, &p);
    CU_ASSERT_EQUAL(p.r[0].data[0], 255000.0f);
    CU_ASSERT_EQUAL(p.r[0].data[3 * 40 - 1], 255000.0f);
    xc_plane_free(&p);
    bad += cpu_matches(&f, "8-bit full scale");
    xc_fx_free(&f);
    xc_fx_init(&f, 4097, 16, 1500, -0.02, 1e-4, "0:2:1:2,2:4:1:3", "crosscheck", 24);
    xc_fx_fill(&f, 65535);
    xc_fx_job(&f, NULL);
    bad += cpu_matches(&f, "16-bit full scale");
    run_impl(xc_dedisperse_cpu, &f.job, &p);
    CU_ASSERT_EQUAL(p.r[0].data[0], (float)(65535.0 * 2 * 4097));
    CU_ASSERT_EQUAL(p.r[1].data[0], (float)(65535.0 * 3 * 4097));
    xc_plane_free(&p);
    xc_fx_free(&f);
    /* 16-bit at ds 65538: scrunched values exceed 2^32 (the uint64 path) */
    xc_fx_random_job(&f, 2, 16, 1500, -1, 1e-4, "0:1:1:65538", "astroaccelerate", 3 * 65538 + 5, 302);
    bad += cpu_matches(&f, "ds 65538");
    xc_fx_free(&f);
    CU_ASSERT_EQUAL(bad, 0);
}

XC_TEST(test_cpu_killmask, "cpu_killmask")
{
    int bad = 0;
    uint64_t s = 77;
    for (int trial = 0; trial < 4; trial++) {
        xc_fixture f;
        int nc = trial == 3 ? 300 : 45;
        xc_fx_init(&f, nc, trial == 1 ? 16 : 8, 1400, -1, 64e-6, "0:10:0.5,10:20:1:2", "dedisp", 100);
        xc_fx_random(&f, 400 + (uint64_t)trial);
        uint8_t *mask = xc_fx_killmask(nc, trial, &s);
        xc_fx_job(&f, mask);
        char what[64];
        snprintf(what, sizeof what, "killmask %d", trial);
        bad += cpu_matches(&f, what);
        if (trial == 2) {   /* everything killed: zero output */
            xc_plane p;
            run_impl(xc_dedisperse_cpu, &f.job, &p);
            CU_ASSERT_EQUAL(p.r[0].data[0], 0.0f);
            xc_plane_free(&p);
        }
        free(mask);
        xc_fx_free(&f);
    }
    CU_ASSERT_EQUAL(bad, 0);
}

XC_TEST(test_cpu_float_bound, "cpu_float_bound")
{
    /* |cpu - ref| <= N * 2^-24 * max|ref|, N = unmasked channels * ds, and the
     * same output at 1 and 2 threads. */
    static const struct { int nchans; const char *plan; const char *preset; int kill; } cs[] = {
        {1, "0:5:1", "crosscheck", 0},
        {300, "0:3:0.5,3:6:1:2,6:8:1:3", "crosscheck", 0},
        {1000, "0:4:1,4:6:1:4", "dedisp", 1},
        {57, "0:9:1:2", "astroaccelerate", 1},
    };
    for (size_t i = 0; i < sizeof cs / sizeof cs[0]; i++) {
        xc_fixture f;
        int m = xc_fx_float_case(&f, cs[i].nchans, cs[i].plan, cs[i].preset, cs[i].kill, 64, 500 + i);
        xc_plane ref;
        run_impl(xc_dedisperse_reference, &f.job, &ref);
        for (size_t t = 0; t < NTILINGS; t++) {
            f.job.opts = (xc_ddopts){.threads = tilings[t].threads};
            f.job.tune = tilings[t].tune;
            xc_plane p, q;
            run_impl(xc_dedisperse_cpu, &f.job, &p);
            f.job.opts.threads = tilings[t].threads == 1 ? 2 : 1;
            run_impl(xc_dedisperse_cpu, &f.job, &q);
            CU_ASSERT(xc_fx_planes_equal(&p, &q, "float threads"));
            char what[64];
            snprintf(what, sizeof what, "float case %zu tiling %zu", i, t);
            xc_fx_float_bound(&ref, &p, m, what);
            xc_plane_free(&p);
            xc_plane_free(&q);
        }
        xc_plane_free(&ref);
        xc_fx_free(&f);
    }
}

XC_TEST(test_cpu_threads_and_errors, "cpu_threads_and_errors")
{
    xc_fixture f;
    xc_fx_random_job(&f, 96, 8, 1500, -1, 1e-4, "0:40:0.5", "crosscheck", 3000, 600);
    xc_plane p1, p2;
    f.job.opts.threads = 1;
    run_impl(xc_dedisperse_cpu, &f.job, &p1);
    f.job.opts.threads = 2;
    run_impl(xc_dedisperse_cpu, &f.job, &p2);
    CU_ASSERT(xc_fx_planes_equal(&p1, &p2, "1 vs 2 threads"));
    xc_error err;
    f.job.tune.tile_t = -1;
    CU_ASSERT_EQUAL(xc_dedisperse_cpu(&f.job, &p2, &err), XC_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "tile_t"));
    f.job.tune.tile_t = 0;
    p2.r[0].nsamp--;
    CU_ASSERT_EQUAL(xc_dedisperse_cpu(&f.job, &p2, &err), XC_EINVAL);
    p2.r[0].nsamp++;
    xc_plane_free(&p1);
    xc_plane_free(&p2);
    xc_fx_free(&f);
}

/* A plan says what its last execute ran (xc_ddplan_stats): nothing before
 * the first; then the cpu's tiled path, an approximate entry's algorithm, or
 * "" (the reference says nothing); no kernel time where none is measured. */
XC_TEST(test_plan_stats, "plan_stats")
{
    xc_fixture f;
    xc_fx_random_job(&f, 64, 8, 1500, -1, 1e-4, "0:20:1", "crosscheck", 300, 7);
    const struct {
        const xc_dedisperser *d;
        const char *path;
    } cs[] = {{&xc_dd_cpu, "cpu-tiled"},
              {&xc_dd_reference, ""},
              {&xc_dd_subband_cpu, "subband"},
              {&xc_dd_tree_padded_reference, "tree-padded"}};
    for (size_t i = 0; i < XC_NCASES(cs); i++) {
        xc_ddplan *p;
        xc_error err;
        xc_ddstats ds;
        xc_plane pl;
        CU_ASSERT_EQUAL_FATAL(xc_ddplan_create(&p, cs[i].d, &f.g, f.blk.nbits, &f.plan, f.cv, NULL, NULL, &err), XC_OK);
        CU_ASSERT_EQUAL(xc_ddplan_stats(p, &ds), XC_OK);
        CU_ASSERT_EQUAL(ds.chunks, 0);
        CU_ASSERT_EQUAL_FATAL(xc_ddplan_plane_alloc(p, f.blk.nsamp, &pl, &err), XC_OK);
        CU_ASSERT_EQUAL_FATAL(xc_ddplan_execute(p, &f.blk, &pl, &err), XC_OK);
        CU_ASSERT_EQUAL(xc_ddplan_stats(p, &ds), XC_OK);
        CU_ASSERT_STRING_EQUAL(ds.path, cs[i].path);
        CU_ASSERT_EQUAL(ds.chunks, 1);
        CU_ASSERT(ds.kernel_ms == -1 && ds.setup_ms == -1 && ds.exec_ms == -1);
        CU_ASSERT(ds.plan_seconds == xc_ddplan_seconds(p));
        xc_plane_free(&pl);
        xc_ddplan_destroy(p);
    }
    xc_fx_free(&f);
}

/* The corner turn (cpu_convert.c) against the plain loop it replaces, byte
 * for byte: sizes that leave partial channel blocks (64), partial groups of
 * eight channels and partial sixteen-sample steps, a mask that breaks the
 * runs of consecutive channels, 8- and 16-bit copies, ds 1 (the transposes)
 * and ds 3 (the scalar sums), one and two threads.  Tolerance 0: it moves
 * integers. */
XC_TEST(test_cpu_convert_awkward, "cpu_convert_awkward")
{
    static const int nchans[] = {7, 37, 130}, nsamp[] = {15, 53, 600}, dss[] = {1, 3};
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++)
            for (int d = 0; d < 2; d++)
                for (int type = 0; type < 2; type++) {
                    const int nc = nchans[a], ds = dss[d];
                    const size_t nin = (size_t)nsamp[b] * (size_t)ds, ns = (size_t)nsamp[b], stride = ns + 70;
                    uint16_t *u = malloc(nin * (size_t)nc * sizeof *u);
                    int *chans = malloc((size_t)nc * sizeof *chans), m = 0;
                    const size_t esz = type ? 2 : 1;
                    uint8_t *got = malloc((size_t)nc * stride * esz), *want = calloc((size_t)nc * stride, esz);
                    CU_ASSERT_FATAL(u && chans && got && want);
                    const unsigned top = type ? 65535u / (unsigned)ds : 255u / (unsigned)ds;
                    uint64_t x = 12345u + (uint64_t)(a * 100 + b * 10 + d);
                    for (size_t i = 0; i < nin * (size_t)nc; i++) {
                        x = x * 6364136223846793005ull + 1442695040888963407ull;
                        u[i] = (uint16_t)((x >> 33) % (top + 1));
                    }
                    for (int c = 0; c < nc; c++)
                        if (c % 11 != 5)   /* a gap every 11 channels */
                            chans[m++] = c;
                    for (int i = 0; i < m; i++)
                        for (size_t j = 0; j < ns; j++) {
                            unsigned sum = 0;
                            for (int q = 0; q < ds; q++)
                                sum += u[(j * (size_t)ds + (size_t)q) * (size_t)nc + (size_t)chans[i]];
                            if (type)
                                ((uint16_t *)want)[(size_t)i * stride + j] = (uint16_t)sum;
                            else
                                want[(size_t)i * stride + j] = (uint8_t)sum;
                        }
                    const xc_block in = {nc, nin, type ? 16 : 8, u, NULL};
                    for (int th = 1; th <= 2; th++) {
                        memset(got, 0xa5, (size_t)nc * stride * esz);
                        xc_cpu_convert(&in, chans, m, ds, ns, stride, type ? XC_CPU_U16 : XC_CPU_U8, got, th);
                        const int same = !memcmp(got, want, (size_t)m * stride * esz);
                        if (!same)
                            printf("convert differs: nchans %d nsamp %zu ds %d %d-bit copy, %d threads\n", nc, ns,
                                   ds, type ? 16 : 8, th);
                        CU_ASSERT(same);
                    }
                    free(u);
                    free(chans);
                    free(got);
                    free(want);
                }
}

/* The approximate dedispersers' row sums (approx_kernels.c) against plain loops: lengths that leave partial
 * blocks (of 512 and 64 samples, 256 and 16 sums), rows at every byte offset, the largest values the callers'
 * bounds allow (257 rows of 255: the pairing's limit; groups of 8 rows of 8160 summed in uint16), outputs at
 * every float offset of a 64-byte line, and a guard word either side of each output that must stay as it was.
 * Tolerance 0: integer sums, and the float of each (float)(double)sum as the plane's store writes it. */
XC_TEST(test_cpu_rowsum_awkward, "cpu_rowsum_awkward")
{
    enum { NMAX = 1100, RMAX = 257 };
    static const size_t lens[] = {1, 15, 16, 63, 64, 65, 255, 256, 511, 512, 513, 600, 1100};
    static const int nrows8[] = {1, 3, 32, 257}, nrows16[] = {1, 7, 32}, groups[] = {1, 2, 8};
    uint8_t *b8 = malloc((size_t)RMAX * (NMAX + 64));
    uint16_t *b16 = malloc((size_t)32 * (NMAX + 64) * sizeof *b16), *d16 = malloc((NMAX + 2) * sizeof *d16);
    uint32_t *scratch = malloc(NMAX * sizeof *scratch);
    float *f = malloc((NMAX + 32) * sizeof *f);
    const uint8_t *p8[RMAX];
    const uint16_t *p16[32];
    CU_ASSERT_FATAL(b8 && b16 && d16 && scratch && f);
    uint64_t x = 777;
    for (size_t i = 0; i < (size_t)RMAX * (NMAX + 64); i++) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        b8[i] = i % 5 ? (uint8_t)(x >> 56) : 255;
    }
    for (size_t i = 0; i < (size_t)32 * (NMAX + 64); i++) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        b16[i] = i % 7 ? (uint16_t)((x >> 33) % 8161) : 8160;   /* a 32-channel subband's largest 8-bit sum */
    }
    int bad8 = 0, bad16 = 0;
    for (size_t a = 0; a < sizeof lens / sizeof *lens; a++)
        for (int b = 0; b < 4; b++) {
            const size_t n = lens[a];
            for (int i = 0; i < nrows8[b]; i++)
                p8[i] = b8 + (size_t)i * (NMAX + 64) + (size_t)(i * 13 + (int)a) % 64;
            d16[0] = d16[n + 1] = 0xbeef;
            xc_cpu_rowsum_u8_u16(p8, nrows8[b], 0, n, d16 + 1);
            for (size_t u = 0; u < n; u++) {
                unsigned want = 0;
                for (int i = 0; i < nrows8[b]; i++)
                    want += p8[i][u];
                if (d16[1 + u] != want && bad8++ < 3)
                    printf("rowsum_u8_u16: n %zu rows %d sample %zu: %u, want %u\n", n, nrows8[b], u, d16[1 + u], want);
            }
            if ((d16[0] != 0xbeef || d16[n + 1] != 0xbeef) && bad8++ < 3)
                printf("rowsum_u8_u16: n %zu rows %d wrote outside its row\n", n, nrows8[b]);
        }
    for (size_t a = 0; a < sizeof lens / sizeof *lens; a++)
        for (int b = 0; b < 3; b++)
            for (int g = 0; g < 3; g++)
                for (int at = 1; at <= 16; at += 5) {
                    const size_t n = lens[a];
                    for (int i = 0; i < nrows16[b]; i++)
                        p16[i] = b16 + (size_t)i * (NMAX + 64) + (size_t)(i * 5 + at) % 32;
                    float *out = f + at;
                    out[-1] = out[n] = -1.0f;
                    xc_cpu_rowsum_u16_f32(p16, nrows16[b], n, groups[g], scratch, out);
                    xc_cpu_sfence();
                    for (size_t u = 0; u < n; u++) {
                        uint32_t want = 0;
                        for (int i = 0; i < nrows16[b]; i++)
                            want += p16[i][u];
                        if (out[u] != (float)(double)want && bad16++ < 3)
                            printf("rowsum_u16_f32: n %zu rows %d group %d sample %zu: %.1f, want %u\n", n,
                                   nrows16[b], groups[g], u, (double)out[u], want);
                    }
                    if ((out[-1] != -1.0f || out[n] != -1.0f) && bad16++ < 3)
                        printf("rowsum_u16_f32: n %zu rows %d wrote outside its row\n", n, nrows16[b]);
                }
    CU_ASSERT_EQUAL(bad8, 0);
    CU_ASSERT_EQUAL(bad16, 0);
    free(b8);
    free(b16);
    free(d16);
    free(scratch);
    free(f);
}

XC_TEST_MAIN("dedisperse")
