/* Subband dedispersion (docs/SUBBAND.md): the plan's delays and the
 * planes of subband-reference and subband (cpu) worked out by hand, nsub =
 * nchans equal to direct dedispersion, the cpu equal to its reference on
 * awkward sizes at 1 and 2 threads, the integer spread of every trial within
 * the derived bound, and the S/N lost on injected pulses within the bound
 * (a planted bound tighter than the physics must fail). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare/conform/xc_conform.h"
#include "compare/xc_smear.h"
#include "core/io/xc_filterbank.h"
#include "core/dedisp/approx/xc_subband.h"
#include "optimized/cpu/xc_cpu.h"
#include "reference/xc_reference.h"
#include "tests/xc_assert.h"
#include "tests/xc_fixture.h"
#include "tests/xc_test.h"

/* ---- worked by hand ------------------------------------------------------------ */

/* 4 channels at 1000, 800, 600, 400 MHz, tsamp 1 ms, crosscheck convention
 * (k_DM 4148.808, round half away), trials DM 0, 0.5, 1, nsub 2 (channels
 * {0,1} and {2,3}), -dmsub 2: one group, nominal DM mu = (0 + 1)/2 = 0.5;
 * alignment highest: f_s = 1000 and 600 MHz.
 *   stage 1, k mu (1/f_c^2 - 1/f_s^2)/dt = 2074.404 x:
 *     ch1: 1/800^2 - 1/1000^2 = 5.625e-7 -> 1.1669 -> 1;  ch3: 1/400^2 - 1/600^2 = 3.4722e-6 -> 7.2028 -> 7
 *     a = 0, 1, 0, 7 (m = 0: each subband's top channel has delay 0)
 *   stage 2, k DM (1/f_s^2 - 1/1000^2)/dt: subband 0: 0; subband 1: 7.3757 DM -> 0, 4 (3.6878), 7
 *   total a + b: DM 0: 0 1 0 7; DM 0.5: 0 1 4 11 (the direct delays); DM 1: 0 1 7 14 (direct 0 2 7 22)
 * x[t][c] = (c+1) t, so out[t] = 10 t + sum_c (c+1) T_c: 30, 58, 79 (direct 0, 58, 113).
 * Bound: g_c = k (1/f_c^2 - 1/f_s^2)/dt = 0, 2.3337, 0, 14.4056, G = 14.4056;
 * DM 0 and 1 are 0.5 from mu: S_cont = 7.2028, S = 7 + 3 = 10; DM 0.5: 0 and 3. */
XC_TEST(test_hand, "hand")
{
    xc_conform_ddinput in;
    xc_error err;
    xc_ddopts o = xc_fx_ddopts(2, 2.0, XC_SUBALIGN_HIGHEST, 0);
    o.subsplit = XC_SUBSPLIT_WIDTH;
    xc_ddjob job;
    xc_fx_hand_input(&in, "0:1.5:0.5", &o, &job);
    CU_ASSERT_EQUAL(in.maxd, 22);
    xc_subplan sp;
    CU_ASSERT_EQUAL_FATAL(xc_subplan_make(&sp, &job, &err), XC_OK);
    const xc_subrange *r = &sp.r[0];
    CU_ASSERT_EQUAL(r->ngroups, 1);
    XC_ASSERT_NEAR(r->nominal[0], 0.5, 0);
    static const int32_t a[4] = {0, 1, 0, 7}, b[3][2] = {{0, 0}, {0, 4}, {0, 7}};
    static const int32_t bound[3] = {10, 3, 10};
    for (int c = 0; c < 4; c++)
        CU_ASSERT_EQUAL(r->a[c], a[c]);
    for (int i = 0; i < 3; i++) {
        CU_ASSERT_EQUAL(r->b[i * 2], b[i][0]);
        CU_ASSERT_EQUAL(r->b[i * 2 + 1], b[i][1]);
        CU_ASSERT_EQUAL(r->bound[i], bound[i]);
    }
    XC_ASSERT_NEAR(r->smear[0], 7.2028, 1e-4);
    static const float want[3][4] = {{30, 40, 50, 60}, {58, 68, 78, 88}, {79, 89, 99, 109}};
    xc_fx_hand_planes(&xc_dd_subband_reference, &xc_dd_subband_cpu, &in, &o, want);
    xc_subplan_free(&sp);
    xc_fx_hand_free(&in, &job);
}

/* ---- how the channels are cut -------------------------------------------------------- */

/* The largest spread 1/f_last^2 - 1/f_first^2 of the runs first[0..n]. */
static double widest_run(const xc_geometry *g, const int *first, int n)
{
    double w = 0;
    for (int s = 0; s < n; s++) {
        const double fa = g->fch1 + first[s] * g->foff, fb = g->fch1 + (first[s + 1] - 1) * g->foff;
        w = fmax(w, fabs(1 / (fb * fb) - 1 / (fa * fa)));
    }
    return w;
}

/* The hand case's 4 channels (1000, 800, 600, 400 MHz) in 2 subbands: equal widths {0,1} {2,3} (spreads
 * 5.6e-7 and 3.5e-6 MHz^-2), equal spread {0,1,2} {3} (1.8e-6 and 0).  Then against an exhaustive minimum
 * (dynamic programming over every contiguous cut) on bands of 1-40 channels, either channel order, every
 * nsub: the split's largest spread is the least possible, its runs are non-empty and cover the band. */
XC_TEST(test_split, "split")
{
    const xc_geometry hand = {4, 1000, -200, 1e-3};
    int first[41];
    xc_subband_split(&hand, 2, XC_SUBSPLIT_SPREAD, first);
    CU_ASSERT(first[0] == 0 && first[1] == 3 && first[2] == 4);
    xc_subband_split(&hand, 2, XC_SUBSPLIT_WIDTH, first);
    CU_ASSERT(first[0] == 0 && first[1] == 2 && first[2] == 4);
    /* a channel at 0 MHz (no finite spread holds it with a neighbour): equal widths, nothing written past nsub */
    const xc_geometry zero = {5, 2, -1, 1e-3};
    first[3] = -7;
    xc_subband_split(&zero, 2, XC_SUBSPLIT_SPREAD, first);
    CU_ASSERT(first[0] == 0 && first[1] == 2 && first[2] == 5 && first[3] == -7);
    int ncase = 0, nbad = 0;
    for (int nc = 1; nc <= 40; nc += 3)
        for (int dir = 0; dir < 2; dir++) {
            const double bw = 100 + 7.0 * nc;
            const xc_geometry g = {nc, dir ? 300 : 300 + bw, (dir ? 1 : -1) * bw / nc, 1e-4};
            double best[41][41];   /* best[k][c]: the least largest spread of the first c channels in k runs */
            for (int c = 1; c <= nc; c++) {
                const int one[2] = {0, c};
                best[1][c] = widest_run(&g, one, 1);
            }
            for (int k = 2; k <= nc; k++)
                for (int c = k; c <= nc; c++) {
                    best[k][c] = INFINITY;
                    for (int m = k - 1; m < c; m++) {
                        const int last[2] = {m, c};
                        best[k][c] = fmin(best[k][c], fmax(best[k - 1][m], widest_run(&g, last, 1)));
                    }
                }
            for (int ns = 1; ns <= nc; ns++) {
                xc_subband_split(&g, ns, XC_SUBSPLIT_SPREAD, first);
                int ok = first[0] == 0 && first[ns] == nc;
                for (int s = 0; s < ns; s++)
                    ok &= first[s + 1] > first[s];
                const double w = widest_run(&g, first, ns);
                ok &= w <= best[ns][nc] * (1 + 1e-12) + 1e-30;
                if (!ok && nbad++ < 5)
                    printf("\n  nchans %d, foff %g, nsub %d: largest spread %.9g, least possible %.9g", nc, g.foff,
                           ns, w, best[ns][nc]);
                ncase++;
            }
        }
    CU_ASSERT_EQUAL(nbad, 0);
    printf("\n  %d cuts: each the least largest spread, its runs non-empty and covering the band", ncase);
}

/* ---- nsub = nchans is direct dedispersion ---------------------------------------- */

XC_TEST(test_nsub_nchans_is_direct, "nsub_nchans_is_direct")
{
    static const int align[2] = {XC_SUBALIGN_HIGHEST, XC_SUBALIGN_CENTRE};
    static const char *presets[2] = {"crosscheck", "sigproc"};
    static const xc_dedisperser *const d[2] = {&xc_dd_subband_reference, &xc_dd_subband_cpu};
    for (int p = 0; p < 2; p++)
        for (int al = 0; al < 2; al++) {
            xc_ddopts o = xc_fx_ddopts(37, 7.0, align[al], 2);
            xc_fx_direct_equal(37, "0:30:1,30:60:2:2,60:90:3:3", presets[p], 113, 7 + (uint64_t)p, &o, d, 2,
                               "subband cpu vs reference");
        }
}

/* ---- cpu against its reference ------------------------------------------------------ */

XC_TEST(test_cpu_equals_reference, "cpu_equals_reference")
{
    static const xc_fx_ddcase cfg[] = {
        {61, 8, 7, 0, "0:40:0.5,40:80:1:2,80:101:1.5:3", "crosscheck", 0},
        {61, 16, 7, 3.3, "0:40:0.5,40:80:1:2,80:101:1.5:3", "presto", 'q'},
        {127, 2, 10, 0, "0:25:0.25,25:50:0.5:4", "astroaccelerate", 'e'},
        {13, 4, 5, 1.0, "2:20:0.7", "sigproc", 0},
        {50, 8, 50, 2.0, "0:30:1", "crosscheck", 'q'},
        {9, 8, 1, 0.6, "0:9:0.3:2", "crosscheck", 0},
        {1100, 16, 11, 0, "0:3:1:64", "crosscheck", 'q'},   /* sums past 2^32: the uint64 path */
        /* 8-bit at ds 2: the uint16 copy's register-blocked path, 10 subbands of 25-26 channels, 165 samples */
        {256, 8, 10, 0, "0:20:0.5,20:40:1:2", "crosscheck", 0},
    };
    int ncmp = 0;
    for (size_t q = 0; q < XC_NCASES(cfg); q++) {
        xc_conform_ddinput in;
        xc_error err;
        xc_fx_ddcase_input(&in, &cfg[q], 331, 100 + q);
        for (int al = 0; al < 3; al++) {
            xc_ddopts o = xc_fx_ddopts(cfg[q].nsub, cfg[q].dmsub, al, 1);
            o.subsplit = (int)(q + (size_t)al) % 2;   /* both cuts for every configuration, over its alignments */
            xc_plane want, got;
            CU_ASSERT_EQUAL_FATAL(xc_conform_dd_run(&xc_dd_subband_reference, &in, &o, &want, &err), XC_OK);
            for (int th = 1; th <= 2; th++) {
                o.threads = th;
                CU_ASSERT_EQUAL_FATAL(xc_conform_dd_run(&xc_dd_subband_cpu, &in, &o, &got, &err), XC_OK);
                int same = xc_fx_planes_equal(&want, &got, "subband cpu vs reference");
                CU_ASSERT(same);
                if (!same)
                    printf("\n  differs: config %zu, alignment %s, split %s, %d threads", q, xc_subalign_name(al),
                           xc_subsplit_name(o.subsplit), th);
                ncmp++;
                xc_plane_free(&got);
            }
            xc_plane_free(&want);
        }
        xc_conform_ddinput_free(&in);
    }
    printf("\n  %d cpu planes equal to subband-reference bit for bit", ncmp);
}

/* Float input: sums are doubles added in another order than the
 * reference's, so the cpu plane is held to the float bound
 * (xc_fx_float_bound), not bit for bit.  128 channels in 32 subbands: the
 * per-thread scratch of the double accumulators must hold its index arrays
 * (once written past its end: make sanitize finds a regression here). */
XC_TEST(test_cpu_float_bound, "cpu_float_bound")
{
    xc_conform_ddinput in;
    xc_error err;
    xc_fx_float_input(&in);
    for (int th = 1; th <= 2; th++) {
        xc_ddopts o = xc_fx_ddopts(32, 0, XC_SUBALIGN_HIGHEST, th);
        xc_plane want, got;
        CU_ASSERT_EQUAL_FATAL(xc_conform_dd_run(&xc_dd_subband_reference, &in, &o, &want, &err), XC_OK);
        CU_ASSERT_EQUAL_FATAL(xc_conform_dd_run(&xc_dd_subband_cpu, &in, &o, &got, &err), XC_OK);
        CU_ASSERT_EQUAL(xc_fx_float_bound(&want, &got, xc_conform_ddinput_nkept(&in), "subband float"), 0);
        xc_plane_free(&want);
        xc_plane_free(&got);
    }
    xc_conform_ddinput_free(&in);
}

/* ---- the bound on the integer spread --------------------------------------------- */

/* For every trial, e_c = a + b - (direct delay) over the channels spans at
 * most the bound S = floor(S_cont) + 3 + clamp; with 1 instead of 3 (the
 * roundings left out) some trial must break it, so the 3 is needed. */
XC_TEST(test_spread_within_bound, "spread_within_bound")
{
    static const char *plans[] = {"0:200:1,200:400:2:2", "0:50:0.1"};
    xc_fx_spread tally = {0, 1 << 30, 0};
    for (size_t p = 0; p < XC_NCASES(plans); p++)
        for (int al = 0; al < 3; al++)
            for (int ns = 4; ns <= 64; ns *= 4) {
                xc_dmplan plan;
                xc_ddjob job;
                xc_fx_spread_job(&plan, &job, 256, -1, plans[p], xc_fx_ddopts(ns, 0, al, 0));
                xc_error err;
                xc_subplan sp;
                CU_ASSERT_EQUAL_FATAL(xc_subplan_make(&sp, &job, &err), XC_OK);
                for (int k = 0; k < plan.nranges; k++) {
                    const xc_subrange *r = &sp.r[k];
                    for (int j = 0; j < r->ngroups; j++)
                        for (size_t i = r->first[j]; i < r->first[j + 1]; i++) {
                            int emin = 1 << 30, emax = -(1 << 30);
                            for (int s = 0; s < sp.nsub; s++)
                                for (int c = sp.sub_first[s]; c < sp.sub_first[s + 1]; c++) {
                                    int e = r->a[(size_t)j * 256 + (size_t)c] + r->b[i * (size_t)sp.nsub + (size_t)s] -
                                            job.delays[k][i * 256 + (size_t)c];
                                    emin = e < emin ? e : emin;
                                    emax = e > emax ? e : emax;
                                }
                            if (xc_fx_spread_add(&tally, emax - emin, r->bound[i],
                                                 (int)floor(r->smear[i]) + 1 + r->clamp[i]))
                                printf("\n  trial DM %g: spread %d > bound %d", plan.r[k].dms[i], emax - emin,
                                       r->bound[i]);
                        }
                    if (ns == 64)   /* 4 channels a subband: the budget groups trials (with 64 it cannot) */
                        CU_ASSERT(r->ngroups < (int)r->ndm);
                }
                xc_subplan_free(&sp);
                xc_fx_spread_job_free(&plan, &job);
            }
    xc_fx_spread_check(&tally);
}

/* ---- S/N loss on injected pulses ---------------------------------------------------- */

static const int widths[] = {1, 2, 4, 8};

static void loss_case(int align, double dmsub, int nsub, double scale, size_t *nrows, size_t *nfail,
                      double *worst_ratio, int print)
{
    xc_smear_cfg cfg = {64, 1500, -4, 256e-6, "0:100:1,100:200:2:2", "crosscheck", widths, XC_NCASES(widths), 5,
                        scale};
    xc_ddopts o = xc_fx_ddopts(nsub, dmsub, align, 2);
    xc_smear_row *rows = NULL;
    size_t n = 0;
    xc_error err;
    CU_ASSERT_EQUAL_FATAL(xc_smear_measure(&xc_dd_subband_cpu, &xc_dd_cpu, &o, &cfg, &rows, &n, &err), XC_OK);
    for (size_t i = 0; i < n; i++) {
        const xc_smear_row *r = &rows[i];
        *nfail += !r->pass;
        if (r->bound > 0)
            *worst_ratio = fmax(*worst_ratio, r->snr_loss / r->bound);
        if ((print && r->trial % 40 == 0 && (r->width == 1 || r->width == 4)) || !r->pass)
            printf("\n  %-7s nsub %2d dmsub %4g  DM %6.1f (nominal %6.2f) W %d (%5.0f us): loss %.4f  bound %.4f "
                   "(S %d, S_cont %.2f)  quadrature %.4f%s",
                   xc_subalign_name(align), nsub, dmsub, r->dm, r->nominal, r->width, r->width_us, r->snr_loss,
                   r->bound, r->bound_samples, r->smear, r->expected, r->pass ? "" : "  EXCEEDS");
    }
    *nrows += n;
    free(rows);
}

XC_TEST(test_loss_within_bound, "loss_within_bound")
{
    size_t nrows = 0, nfail = 0;
    double worst = 0;
    for (int al = 0; al < 3; al++) {
        loss_case(al, 0, 16, 1.0, &nrows, &nfail, &worst, al == 0);
        loss_case(al, 6, 8, 1.0, &nrows, &nfail, &worst, al != 1);
    }
    CU_ASSERT(nrows > 100);
    CU_ASSERT_EQUAL(nfail, 0);
    printf("\n  %zu (trial, width) pulses, %zu above their bound; largest loss/bound %.3f", nrows, nfail, worst);
}

/* The same measurements judged by a bound a quarter as wide: tighter than the
 * physics, so the comparator must report pulses above it. */
XC_TEST(test_planted_tight_bound_fails, "planted_tight_bound_fails")
{
    size_t nrows = 0, nfail = 0;
    double worst = 0;
    loss_case(XC_SUBALIGN_HIGHEST, 6, 8, 0.25, &nrows, &nfail, &worst, 0);
    CU_ASSERT(nfail > 0);
    printf("\n  planted bound (S/4): %zu of %zu pulses above it, largest loss/bound %.3f", nfail, nrows, worst);
}


/* ---- PRESTO prepsubband ------------------------------------------------------------ */

/* prepsubband -nobary -noclip -lodm 40 -dmstep 2 -numdms 16 -nsub 32 on
 * sigpyproc3's parkes_8bit_1.fil (written twice; its first 2400 output
 * samples need only the original spectra): subbands made at DM 55, the
 * average of the call's DMs, referred to each subband's highest channel.
 * The same here: the presto convention, -nsub 32, alignment highest and one
 * group for the 16 trials (dmsub 32 > their span of 30, nominal DM 55).
 * datasets/presto/README.md says where the files come from. */
XC_TEST(test_prepsubband_fixture, "prepsubband_fixture")
{
    char path[4096];
    snprintf(path, sizeof path, "%s/sigpyproc3/parkes_8bit_1.fil", xc_test_datasets());
    xc_fbreader *rd;
    xc_error err;
    CU_ASSERT_EQUAL_FATAL(xc_fbreader_open(&rd, path, NULL, &err), XC_OK);
    const xc_fbheader *h = xc_fbreader_header(rd);
    CU_ASSERT_EQUAL(h->nifs, 1);
    const int nc = h->nchans;
    const size_t ns = (size_t)h->nsamp;
    uint16_t *u = malloc(ns * (size_t)nc * sizeof *u);
    CU_ASSERT_PTR_NOT_NULL_FATAL(u);
    CU_ASSERT_EQUAL_FATAL(xc_fbreader_read_u16(rd, 0, ns, 0, u, &err), XC_OK);
    xc_geometry g = {nc, h->fch1, h->foff, h->tsamp};
    xc_fbreader_close(rd);
    xc_dmplan plan;
    xc_dmplan_init(&plan);
    CU_ASSERT_EQUAL_FATAL(xc_dmplan_parse(&plan, "40:72:2", "test", &err), XC_OK);
    xc_ddopts o = xc_fx_ddopts(32, 32, XC_SUBALIGN_HIGHEST, 2);
    o.subsplit = XC_SUBSPLIT_WIDTH;   /* prepsubband's subbands are of equal width */
    xc_ddplan *p;
    CU_ASSERT_EQUAL_FATAL(xc_ddplan_create(&p, &xc_dd_subband_cpu, &g, 8, &plan, xc_convention_get("presto"), NULL,
                                           &o, &err),
                          XC_OK);
    xc_plane pl;
    xc_block b = {nc, ns, 8, u, NULL};
    CU_ASSERT_EQUAL_FATAL(xc_ddplan_plane_alloc(p, ns, &pl, &err), XC_OK);
    CU_ASSERT_EQUAL_FATAL(xc_ddplan_execute(p, &b, &pl, &err), XC_OK);
    CU_ASSERT_FATAL(pl.r[0].nsamp >= 2400);
    static const struct {
        int dm;
        size_t trial;
    } f[] = {{40, 0}, {56, 8}, {70, 15}};
    for (size_t q = 0; q < XC_NCASES(f); q++) {
        snprintf(path, sizeof path, "%s/presto/parkes_x2_nsub32_DM%d.00.dat", xc_test_datasets(), f[q].dm);
        FILE *fp = fopen(path, "rb");
        CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
        float want[2400];
        CU_ASSERT_EQUAL(fread(want, sizeof(float), 2400, fp), 2400);
        fclose(fp);
        double maxd = 0;
        const float *got = pl.r[0].data + f[q].trial * pl.r[0].nsamp;
        for (size_t t = 0; t < 2400; t++)
            maxd = fmax(maxd, fabs((double)got[t] - want[t]));
        XC_ASSERT_NEAR(maxd, 0, 0);
        printf("\n  DM %d: max |subband - prepsubband| over 2400 samples = %g", f[q].dm, maxd);
    }
    xc_plane_free(&pl);
    xc_ddplan_destroy(p);
    xc_dmplan_free(&plan);
    free(u);
}

XC_TEST_MAIN("subband")
