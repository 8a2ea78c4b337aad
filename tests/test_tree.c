/* Tree dedispersion (docs/SUBBAND.md): the plan's lines and the planes of
 * tree-reference and tree (cpu) worked out by hand, DM 0 equal to direct
 * dedispersion, the cpu versions equal to their references on awkward sizes
 * at 1 and 2 threads, the integer spread of every trial within the derived
 * bound, and the S/N lost on injected pulses within the bound (a planted
 * bound tighter than the derivation must fail). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare/conform/xc_conform.h"
#include "compare/xc_smear.h"
#include "core/dedisp/approx/xc_tree.h"
#include "optimized/cpu/xc_cpu.h"
#include "reference/xc_reference.h"
#include "tests/xc_assert.h"
#include "tests/xc_fixture.h"
#include "tests/xc_test.h"

/* ---- worked by hand ------------------------------------------------------------ */

/* 4 channels at 1000, 800, 600, 400 MHz, tsamp 1 ms, crosscheck convention
 * (k_DM 4148.808, round half away), trials DM 0, 0.1, 0.2, nsub 1: one tree
 * of M = 4 channels; 8 spectra, 4 output samples.
 *   Lines d_4(n, u), u = 0..3:  n=0: 0 0 0 0  n=1: 0 0 1 1  n=2: 0 1 1 2  n=3: 0 1 2 3
 *   rho_c = k (1/f_c^2 - 1/1000^2)/dt = 0, 2.3337, 7.3757, 21.7812 per unit DM;
 *   beta = 0, sigma = rho_3 (M-1)/u_l = 21.7812 (the chord through ch0 and ch3).
 *   DM 0.1: n = round(2.178) = 2, j = 0:           D = 0 1 1 2  (direct 0 0 1 2)
 *   DM 0.2: n = round(4.356) = 4, j = 1, n' = 1:    D = u + d_4(1, u) = 0 1 3 4  (direct 0 0 1 4)
 *   (max_delay 4 = direct's at DM 0.2, and D_4(4, 3) = 4 <= 4: no clamp.)
 * x[t][c] = (c+1) t, so out[t] = 10 t + sum_c (c+1) D_c:
 *   DM 0: 0 10 20 30;  DM 0.1: 13 23 33 43;  DM 0.2: 27 37 47 57.
 * Bound: g_c = sigma u/3 - rho_c = 0, 4.9267, 7.1451, 0 (spread 7.1451 per DM),
 * T_4 = 2/3 (d_4(1,1) - 1/3 = -1/3 .. d_4(2,1) - 2/3 = +1/3):
 *   S = floor(DM 7.1451 + 2/3 + 3) = 3, 4, 5. */
XC_TEST(test_hand, "hand")
{
    xc_conform_ddinput in;
    xc_error err;
    xc_ddopts o = xc_fx_ddopts(1, 0, 0, 0);
    xc_ddjob job;
    xc_fx_hand_input(&in, "0:0.25:0.1", &o, &job);
    CU_ASSERT_EQUAL_FATAL(in.plan.r[0].ndm, 3);
    CU_ASSERT_EQUAL(in.maxd, 4);
    CU_ASSERT_EQUAL(in.blk.nsamp, 8);
    xc_treeplan tp;
    CU_ASSERT_EQUAL_FATAL(xc_treeplan_make(&tp, &job, XC_TREE_PIECEWISE, &err), XC_OK);
    CU_ASSERT_EQUAL(tp.m, 4);
    CU_ASSERT_EQUAL(tp.nsub, 1);
    XC_ASSERT_NEAR(tp.tm, 2.0 / 3, 1e-12);
    static const int32_t n[3] = {0, 2, 4}, bound[3] = {3, 4, 5};
    static const int32_t D[3][4] = {{0, 0, 0, 0}, {0, 1, 1, 2}, {0, 1, 3, 4}};
    for (int i = 0; i < 3; i++) {
        CU_ASSERT_EQUAL(tp.r[0].n[i], n[i]);
        CU_ASSERT_EQUAL(tp.r[0].b[i], 0);
        CU_ASSERT_EQUAL(tp.r[0].bound[i], bound[i]);
        for (int u = 0; u < 4; u++)
            CU_ASSERT_EQUAL(xc_tree_delay(4, tp.r[0].n[i], u), D[i][u]);
    }
    XC_ASSERT_NEAR(tp.r[0].smear[2], 0.2 * 7.1451, 1e-3);
    static const float want[3][4] = {{0, 10, 20, 30}, {13, 23, 33, 43}, {27, 37, 47, 57}};
    xc_fx_hand_planes(&xc_dd_tree_reference, &xc_dd_tree_cpu, &in, &o, want);
    xc_treeplan_free(&tp);
    xc_fx_hand_free(&in, &job);
}

/* ---- DM 0 is direct dedispersion ------------------------------------------------- */

XC_TEST(test_dm0_is_direct, "dm0_is_direct")
{
    static const int nch[3] = {37, 64, 5};
    static const char *plans[3] = {"0:1:1", "0:1:1:2", "0:1:1:3"};
    static const xc_dedisperser *const d[4] = {&xc_dd_tree_reference, &xc_dd_tree_cpu, &xc_dd_tree_padded_reference,
                                               &xc_dd_tree_padded_cpu};
    xc_ddopts o = xc_fx_ddopts(0, 0, 0, 2);
    for (int q = 0; q < 3; q++)
        xc_fx_direct_equal(nch[q], plans[q], "crosscheck", 301, 11 + (uint64_t)q, &o, d, 4, "tree cpu vs reference");
}

/* ---- cpu against its reference ------------------------------------------------------ */

XC_TEST(test_cpu_equals_reference, "cpu_equals_reference")
{
    int ncmp = 0;
    for (size_t q = 0; q < xc_fx_nddcases; q++) {
        xc_conform_ddinput in;
        xc_error err;
        xc_fx_ddcase_input(&in, &xc_fx_ddcases[q], 2500, 100 + q);
        for (int v = 0; v < 2; v++) {
            const xc_dedisperser *ref = v ? &xc_dd_tree_padded_reference : &xc_dd_tree_reference;
            const xc_dedisperser *cpu = v ? &xc_dd_tree_padded_cpu : &xc_dd_tree_cpu;
            xc_ddopts o = xc_fx_ddopts(xc_fx_tree_nsub(xc_fx_ddcases[q].nsub), 0, 0, 1);
            xc_plane want, got;
            CU_ASSERT_EQUAL_FATAL(xc_conform_dd_run(ref, &in, &o, &want, &err), XC_OK);
            for (int th = 1; th <= 2; th++) {
                o.threads = th;
                CU_ASSERT_EQUAL_FATAL(xc_conform_dd_run(cpu, &in, &o, &got, &err), XC_OK);
                int same = xc_fx_planes_equal(&want, &got, "tree cpu vs reference");
                CU_ASSERT(same);
                if (!same)
                    printf("\n  differs: config %zu, %s, %d threads", q, cpu->impl.name, th);
                ncmp++;
                xc_plane_free(&got);
            }
            xc_plane_free(&want);
        }
        xc_conform_ddinput_free(&in);
    }
    printf("\n  %d cpu planes equal to their tree reference bit for bit", ncmp);
}

/* ---- the bound on the integer spread --------------------------------------------- */

/* For every trial, e_c = b + D_M(n, u) - (direct delay) spans at most the
 * bound S; without the three rounding terms some trial breaks it. */
XC_TEST(test_spread_within_bound, "spread_within_bound")
{
    static const char *plans[] = {"0:400:1,400:800:2:2,800:1000:4:4", "0:50:0.1"};
    xc_fx_spread tally = {0, 1 << 30, 0};
    for (size_t p = 0; p < XC_NCASES(plans); p++)
        for (int v = 0; v < 2; v++)
            for (int ns = 1; ns <= (v ? 1 : 64); ns *= 4) {
                const int nc = 200;
                xc_dmplan plan;
                xc_ddjob job;
                xc_fx_spread_job(&plan, &job, nc, -1.5, plans[p], xc_fx_ddopts(ns, 0, 0, 0));
                xc_error err;
                xc_treeplan tp;
                CU_ASSERT_EQUAL_FATAL(xc_treeplan_make(&tp, &job, v, &err), XC_OK);
                for (int k = 0; k < plan.nranges; k++) {
                    const xc_treerange *r = &tp.r[k];
                    for (size_t i = 0; i < r->ndm; i++) {
                        int emin = 1 << 30, emax = -(1 << 30);
                        for (int c = 0; c < nc; c++) {
                            int s = tp.pos[c] / tp.m, u = tp.pos[c] % tp.m;
                            int e = r->b[i * (size_t)tp.nsub + (size_t)s] +
                                    xc_tree_delay(tp.m, r->n[i * (size_t)tp.nsub + (size_t)s], u) -
                                    job.delays[k][i * (size_t)nc + (size_t)c];
                            emin = e < emin ? e : emin;
                            emax = e > emax ? e : emax;
                        }
                        if (xc_fx_spread_add(&tally, emax - emin, r->bound[i],
                                             (int)floor(r->smear[i] + tp.tm) + r->clamp[i]))
                            printf("\n  %s nsub %d DM %g: spread %d > bound %d", v ? "padded" : "piecewise", tp.nsub,
                                   plan.r[k].dms[i], emax - emin, r->bound[i]);
                    }
                }
                xc_treeplan_free(&tp);
                xc_fx_spread_job_free(&plan, &job);
            }
    xc_fx_spread_check(&tally);
}

/* ---- S/N loss on injected pulses ---------------------------------------------------- */

static const int widths[] = {1, 2, 4, 8};

static void loss_case(const xc_dedisperser *d, int nsub, double scale, size_t *nrows, size_t *nfail,
                      double *worst_ratio, double *worst_loss)
{
    xc_smear_cfg cfg = {64, 1500, -4, 256e-6, "0:100:1,100:200:2:2", "crosscheck", widths, XC_NCASES(widths), 5,
                        scale};
    xc_ddopts o = xc_fx_ddopts(nsub, 0, 0, 2);
    xc_smear_row *rows = NULL;
    size_t n = 0;
    xc_error err;
    CU_ASSERT_EQUAL_FATAL(xc_smear_measure_bounds(d, d->bound, &xc_dd_cpu, &o, &cfg, &rows, &n, &err), XC_OK);
    for (size_t i = 0; i < n; i++) {
        const xc_smear_row *r = &rows[i];
        *nfail += !r->pass;
        *worst_loss = fmax(*worst_loss, r->snr_loss);
        if (r->bound > 0)
            *worst_ratio = fmax(*worst_ratio, r->snr_loss / r->bound);
        if (!r->pass && scale == 1)
            printf("\n  %s nsub %d DM %6.1f W %d: loss %.4f  bound %.4f (S %d, S_cont %.2f)  EXCEEDS", d->impl.name,
                   nsub, r->dm, r->width, r->snr_loss, r->bound, r->bound_samples, r->smear);
    }
    *nrows += n;
    free(rows);
}

XC_TEST(test_loss_within_bound, "loss_within_bound")
{
    size_t nrows = 0, nfail = 0;
    double worst = 0, wl = 0;
    for (int ns = 2; ns <= 32; ns *= 4)
        loss_case(&xc_dd_tree_cpu, ns, 1.0, &nrows, &nfail, &worst, &wl);
    loss_case(&xc_dd_tree_padded_cpu, 0, 1.0, &nrows, &nfail, &worst, &wl);
    CU_ASSERT(nrows > 100);
    CU_ASSERT_EQUAL(nfail, 0);
    printf("\n  %zu (trial, width) pulses, %zu above their bound; largest loss %.3f, largest loss/bound %.3f", nrows,
           nfail, wl, worst);
}

/* The same measurements judged by a bound a quarter as wide: tighter than the
 * derivation, so the comparator must report pulses above it. */
XC_TEST(test_planted_tight_bound_fails, "planted_tight_bound_fails")
{
    size_t nrows = 0, nfail = 0;
    double worst = 0, wl = 0;
    loss_case(&xc_dd_tree_cpu, 2, 0.25, &nrows, &nfail, &worst, &wl);
    CU_ASSERT(nfail > 0);
    printf("\n  planted bound (S/4): %zu of %zu pulses above it, largest loss/bound %.3f", nfail, nrows, worst);
}

XC_TEST_MAIN("tree")
