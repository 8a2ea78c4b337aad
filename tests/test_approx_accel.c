/* The matched-filter accel search's measurements (approx/accel/xc_approx_accel.h):
 * noise statistics of its plane and harmonic sums against chi-square,
 * planted failures (a wrong normalisation scale, a wrong dof, a float plane
 * off by 1 %) that the verdicts must catch, the interpolation grid's and the
 * half-widths' losses against their closed forms, and the trial counts
 * against accelsearch's printed ones.  The searchers come from the
 * registry, chosen by capability. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "approx/accel/xc_approx_accel.h"
#include "core/search/xc_accel.h"
#include "optimized/cpu/xc_accel_cpu.h"
#include "optimized/xc_impls.h"
#include "tests/xc_assert.h"
#include "tests/xc_fixture.h"
#include "tests/xc_test.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

/* The builtin registry of this program (made in main) and from it the
 * reference (capability) and the default threaded CPU searcher. */
static xc_registry *reg;
static const xc_accel_searcher *ref, *cpu;

static xc_accel_noise noise_or_fail(const xc_accel_searcher *s, const xc_accel_noise_opts *o, uint64_t seed)
{
    xc_accel_noise r;
    xc_error err;
    xc_status st = xc_approx_accel_noise(s, o, seed, &r, &err);
    if (st)
        printf("\n  %s\n", err.msg);
    CU_ASSERT_EQUAL_FATAL(st, XC_OK);
    xc_row row;
    xc_accel_noise_row(&r, &row);
    printf("\n  %s %s: %s", s->impl.name, row.key, row.value);
    return r;
}

/* The measurement's own checks, asserted with the values: KS and GOF p
 * above 1e-4, the mean within 4.5 SE of dof x energy, every count within
 * its binomial bounds, and the verdicts pass. */
static void assert_chi2(const xc_accel_noise *r, double dof)
{
    CU_ASSERT_EQUAL(r->dof, dof);
    XC_ASSERT_ABOVE(r->ks.p, 1e-4);
    XC_ASSERT_ABOVE(r->gof.p, 1e-4);
    XC_ASSERT_NEAR(r->mean.mean, r->dof * r->energy, 4.5 * xc_meansd_se(&r->mean));
    for (int f = 0; f < XC_ACCEL_NOISE_NFA; f++) {
        XC_ASSERT_NEAR(r->thr[f], -2 * log(r->pfa[f]), dof == 2 ? 1e-9 : 1e9);   /* chi2(2): Q = e^{-x/2} */
        CU_ASSERT(r->count[f] >= r->lo[f] && r->count[f] <= r->hi[f]);
    }
    xc_verdict v[1 + XC_ACCEL_NOISE_NFA];
    CU_ASSERT_EQUAL(xc_accel_noise_verdicts(r, 1, 1e-3, "test", v), 1 + XC_ACCEL_NOISE_NFA);
    for (int k = 0; k < 1 + XC_ACCEL_NOISE_NFA; k++) {
        if (!v[k].pass)
            printf("\n  FAILED %s: %s (%s)", v[k].check, v[k].measured, v[k].bound);
        CU_ASSERT(v[k].pass);
    }
}

/* zmax 0: every integer r is an independent chi-square(2) point (the z = 0
 * template at integer r is a delta), for both searchers; harmonic sums of 2
 * and 4 at integer r spaced H apart are chi-square(4) and (8). */
XC_TEST(test_noise_zmax0, "noise_zmax0")
{
    xc_accel_noise_opts o;
    xc_accel_noise_opts_init(&o);   /* zmax 0, row z = 0, 2^17 bins */
    o.threads = 2;
    for (int k = 0; k < 2; k++) {
        xc_accel_noise r = noise_or_fail(k ? ref : cpu, &o, 31);
        CU_ASSERT(r.n > 130000);
        XC_ASSERT_NEAR(r.energy, 1.0, 1e-12);
        assert_chi2(&r, 2);
    }
    static const int H[2] = {2, 4};
    for (int k = 0; k < 2; k++) {
        o.numharm = H[k];
        xc_accel_noise r = noise_or_fail(cpu, &o, 32 + (uint64_t)k);
        CU_ASSERT_EQUAL(r.step, (size_t)H[k]);
        CU_ASSERT(r.n > (1u << 17) / (size_t)(H[k] * H[k]) - 64);
        assert_chi2(&r, 2.0 * H[k]);
    }
}

/* zmax 50: rows z = 50 and z = -20 at integer r spaced 2 hw + 2 apart (no bin
 * in two templates), and sums of 2 at z = 40 (sub-harmonic z = 20); the
 * template energy at integer offsets is 1 to 2e-3 (truncation). */
XC_TEST(test_noise_zmax50, "noise_zmax50")
{
    xc_accel_noise_opts o;
    xc_accel_noise_opts_init(&o);
    o.threads = 2;
    o.zmax = 50;
    o.nbins = 1u << 18;
    static const int cfg[3][2] = {{50, 1}, {-20, 1}, {40, 2}};
    for (int c = 0; c < 3; c++) {
        o.z = cfg[c][0];
        o.numharm = cfg[c][1];
        xc_accel_noise r = noise_or_fail(cpu, &o, 40 + (uint64_t)c);
        XC_ASSERT_NEAR(r.energy, 1.0, 2e-3);
        CU_ASSERT(r.energy < 1);
        CU_ASSERT(r.step >= (size_t)cfg[c][1] * (2 * (16 + (int)(0.55 * abs(cfg[c][0]))) + 2));
        assert_chi2(&r, 2.0 * cfg[c][1]);
    }
    /* the reference gives the same statistics to its float rounding */
    o.z = 50;
    o.numharm = 1;
    o.nbins = 1u << 17;
    xc_accel_noise a = noise_or_fail(cpu, &o, 45), b = noise_or_fail(ref, &o, 45);
    CU_ASSERT_EQUAL(a.n, b.n);
    XC_ASSERT_NEAR(a.mean.mean, b.mean.mean, 1e-5);
    XC_ASSERT_NEAR(a.ks.stat, b.ks.stat, 1e-5);
}

/* Planted failures: powers scaled by ln 2 (a normalisation by the median
 * without the ln 2), sums of 2 tested against 6 dof, and powers 5 % high
 * must each fail the verdicts; the statistics are identical at 1 and 2
 * threads. */
XC_TEST(test_noise_planted, "noise_planted")
{
    xc_accel_noise_opts o;
    xc_accel_noise_opts_init(&o);
    o.threads = 2;
    xc_accel_noise r, r1;
    xc_error err;
    xc_verdict v[1 + XC_ACCEL_NOISE_NFA];
    o.plant_scale = M_LN2;
    CU_ASSERT_EQUAL_FATAL(xc_approx_accel_noise(cpu, &o, 51, &r, &err), XC_OK);
    XC_ASSERT_BELOW(r.ks.p, 1e-10);
    XC_ASSERT_NEAR(r.mean.mean, 2 * M_LN2, 0.02);
    xc_accel_noise_verdicts(&r, 1, 1e-3, "cpu", v);
    CU_ASSERT(!v[0].pass && !v[1].pass && !v[2].pass);
    o.plant_scale = 1.05;
    CU_ASSERT_EQUAL_FATAL(xc_approx_accel_noise(cpu, &o, 52, &r, &err), XC_OK);
    xc_accel_noise_verdicts(&r, 1, 1e-3, "cpu", v);
    printf("\n  powers x 1.05: KS p %.3g, GOF p %.3g, mean %.4f", r.ks.p, r.gof.p, r.mean.mean);
    CU_ASSERT_FALSE(v[0].pass);
    o.plant_scale = 1;
    o.plant_dof = 2;
    o.numharm = 2;
    CU_ASSERT_EQUAL_FATAL(xc_approx_accel_noise(cpu, &o, 53, &r, &err), XC_OK);
    CU_ASSERT_EQUAL(r.dof, 6.0);
    XC_ASSERT_BELOW(r.ks.p, 1e-10);
    xc_accel_noise_verdicts(&r, 1, 1e-3, "cpu", v);
    CU_ASSERT(!v[0].pass && !v[1].pass && !v[2].pass);
    /* threads */
    o.plant_dof = 0;
    o.zmax = 20;
    o.z = 10;
    o.threads = 1;
    CU_ASSERT_EQUAL_FATAL(xc_approx_accel_noise(cpu, &o, 54, &r1, &err), XC_OK);
    o.threads = 2;
    CU_ASSERT_EQUAL_FATAL(xc_approx_accel_noise(cpu, &o, 54, &r, &err), XC_OK);
    CU_ASSERT_EQUAL(r.n, r1.n);
    CU_ASSERT_EQUAL(r.mean.mean, r1.mean.mean);
    CU_ASSERT_EQUAL(r.ks.stat, r1.ks.stat);
    CU_ASSERT_EQUAL(r.count[0], r1.count[0]);
    /* refused: a stage of 3, |z| > zmax, no searcher, too few samples */
    o.numharm = 3;
    CU_ASSERT_EQUAL(xc_approx_accel_noise(cpu, &o, 1, &r, &err), XC_EINVAL);
    o.numharm = 1;
    o.z = 30;
    CU_ASSERT_EQUAL(xc_approx_accel_noise(cpu, &o, 1, &r, &err), XC_EINVAL);
    o.z = 0;
    CU_ASSERT_EQUAL(xc_approx_accel_noise(NULL, &o, 1, &r, &err), XC_EINVAL);
    o.zmax = 200;
    o.z = 200;
    o.numharm = 4;
    o.nbins = 1u << 14;
    CU_ASSERT_EQUAL(xc_approx_accel_noise(cpu, &o, 1, &r, &err), XC_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "need 200"));
}

/* mean of sinc^2 over [0, a] (Simpson, 2000 intervals), sinc(x) = sin(pi x)/(pi x). */
static double mean_sinc2(double a)
{
    const int n = 2000;
    double s = 0;
    for (int i = 0; i <= n; i++) {
        double x = a * i / n, v = i ? pow(sin(M_PI * x) / (M_PI * x), 2) : 1;
        s += v * (i == 0 || i == n ? 1 : i % 2 ? 4 : 2);
    }
    return s / (3.0 * n);
}

/* The grid's theory in closed form at z on the grid: worst 1 - sinc^2(1/4)
 * = 1 - 8/pi^2 for half bins, 1 - 4/pi^2 for full bins, means 1 - mean
 * sinc^2 over a quarter and a half bin; interbinning's worst amplitude loss
 * 1 - sinc(1 - pi/4) = 7.4 %.  The reference's measured losses follow them,
 * and the verdicts pass; a grid measured worse than its theory fails. */
XC_TEST(test_grid_loss, "grid_loss")
{
    xc_accel_grid_loss g;
    xc_error err;
    CU_ASSERT_EQUAL_FATAL(xc_approx_accel_grid(ref, 20, 400, 61, 2, &g, &err), XC_OK);
    XC_ASSERT_NEAR(g.th_worst[XC_GRID_HALF][XC_GRID_RONLY], 1 - 8 / (M_PI * M_PI), 1e-12);
    XC_ASSERT_NEAR(g.th_worst[XC_GRID_FULL][XC_GRID_RONLY], 1 - 4 / (M_PI * M_PI), 1e-12);
    XC_ASSERT_NEAR(g.th_mean[XC_GRID_HALF][XC_GRID_RONLY], 1 - mean_sinc2(0.25), 1e-4);
    XC_ASSERT_NEAR(g.th_mean[XC_GRID_FULL][XC_GRID_RONLY], 1 - mean_sinc2(0.5), 1e-4);
    XC_ASSERT_NEAR(g.th_interbin_amp, 0.074, 5e-4);
    /* a z offset only adds loss */
    CU_ASSERT(g.th_worst[XC_GRID_HALF][XC_GRID_RZ] > g.th_worst[XC_GRID_HALF][XC_GRID_RONLY]);
    for (int q = 0; q < XC_GRID_N; q++)
        for (int c = 0; c < XC_GRID_NCASE; c++) {
            XC_ASSERT_BELOW(g.worst[q][c], g.th_worst[q][c] + 0.005);
            XC_ASSERT_ABOVE(g.worst[q][c], 0.8 * g.th_worst[q][c]);
            XC_ASSERT_NEAR(g.mean[q][c], g.th_mean[q][c], 4.5 * g.se[q][c] + 0.005);
        }
    xc_row rows[4];
    CU_ASSERT_EQUAL(xc_accel_grid_rows(&g, rows), 4);
    for (int k = 0; k < 4; k++)
        printf("\n  %s: %s", rows[k].key, rows[k].value);
    xc_verdict v[2];
    CU_ASSERT_EQUAL(xc_accel_grid_verdicts(&g, v), 2);
    CU_ASSERT(v[0].pass && v[1].pass);
    g.worst[XC_GRID_HALF][XC_GRID_RONLY] = g.th_worst[XC_GRID_HALF][XC_GRID_RONLY] + 0.01;
    g.mean[XC_GRID_HALF][XC_GRID_RZ] = g.th_mean[XC_GRID_HALF][XC_GRID_RZ] + 0.03;
    xc_accel_grid_verdicts(&g, v);
    CU_ASSERT(!v[0].pass && !v[1].pass);
    CU_ASSERT_EQUAL(xc_approx_accel_grid(ref, 2, 400, 61, 2, &g, &err), XC_EINVAL);
}

/* Template truncation: the z = 0 theory (the sinc tail beyond hw at half-way
 * r, 2.52 % for LOWACC's 16 bins, 0.84 % for HIGHACC's 48) bounds the
 * measured worst, which at z = 0 reaches it; a planted larger loss fails. */
XC_TEST(test_trunc_loss, "trunc_loss")
{
    xc_accel_trunc_loss t;
    xc_error err;
    CU_ASSERT_EQUAL_FATAL(xc_approx_accel_trunc(ref, 40, 200, 71, 2, &t, &err), XC_OK);
    XC_ASSERT_NEAR(t.th_z0[0], 0.02516, 5e-5);
    XC_ASSERT_NEAR(t.th_z0[1], 0.00843, 5e-5);
    xc_row rows[2];
    xc_accel_trunc_rows(&t, rows);
    printf("\n  %s: %s\n  %s: %s", rows[0].key, rows[0].value, rows[1].key, rows[1].value);
    for (int a = 0; a < 2; a++) {
        XC_ASSERT_BELOW(t.worst[a], t.th_z0[a] + 0.001);
        XC_ASSERT_ABOVE(t.worst[a], 0.5 * t.th_z0[a]);
        CU_ASSERT(t.mean[a] > 0 && t.mean[a] < t.worst[a]);
    }
    xc_verdict v[2];
    CU_ASSERT_EQUAL(xc_accel_trunc_verdicts(&t, v), 2);
    CU_ASSERT(v[0].pass && v[1].pass);
    t.worst[1] = t.worst[0] + 1e-4;   /* HIGHACC no better than LOWACC */
    t.worst[0] = t.th_z0[0] + 0.002;
    xc_accel_trunc_verdicts(&t, v);
    CU_ASSERT(!v[0].pass && !v[1].pass);
}

/* A float searcher whose powers are 1 % high: the cpu searcher's plane
 * (optimized/cpu, a constant descriptor) times 1.01. */
static xc_status high_create(const xc_accel_searcher *self, const xc_accel_plan *p, void **state, xc_error *err)
{
    (void)self;
    return xc_accel_cpu.create(&xc_accel_cpu, p, state, err);
}

static xc_status high_plane(const xc_accel_searcher *self, void *state, const xc_accel_plan *p,
                            const xc_accel_block *b, xc_error *err)
{
    (void)self;
    xc_status st = xc_accel_cpu.plane(&xc_accel_cpu, state, p, b, err);
    for (int t = 0; !st && t < p->ntempl; t++)
        for (size_t j = 0; j < b->nr; j++)
            if (!b->want || b->want[t])
                b->out[(size_t)t * b->nr + j] *= 1.01f;
    return st;
}

static void high_destroy(const xc_accel_searcher *self, void *state)
{
    (void)self;
    xc_accel_cpu.destroy(&xc_accel_cpu, state);
}

static const xc_accel_searcher high = {
    .impl = {.family = XC_FAMILY_ACCEL, .name = "high", .tol = {XC_TOL_RELATIVE, 2e-3}, .caps = XC_CAP_RUNTIME,
             .desc = "the cpu searcher's powers x 1.01 (a planted failure)"},
    .create = high_create, .plane = high_plane, .destroy = high_destroy};

/* The cpu's float plane is within its declared tolerance of the reference
 * (measured: 4e-6 relative at noise level, 2e-7 at the strongest tone); a
 * searcher 1 % high is not. */
XC_TEST(test_float_plane, "float_plane")
{
    xc_accel_float_diff f;
    xc_error err;
    CU_ASSERT_EQUAL_FATAL(xc_approx_accel_float(cpu, ref, 8192, 16, 20, 81, 2, &f, &err), XC_OK);
    xc_row row;
    xc_accel_float_row(&f, &row);
    printf("\n  %s: %s", row.key, row.value);
    CU_ASSERT(f.npts > 8192 * 2 * 17 * 3 / 2);
    XC_ASSERT_BELOW(f.max_rel, 1e-4);
    XC_ASSERT_ABOVE(f.peak, 2000);
    XC_ASSERT_BELOW(f.peak_rel, 1e-5);
    CU_ASSERT_EQUAL(f.tol, cpu->impl.tol.value);
    xc_verdict v;
    xc_accel_float_verdict(&f, cpu->impl.name, &v);
    CU_ASSERT(v.pass);
    CU_ASSERT_EQUAL_FATAL(xc_approx_accel_float(&high, ref, 8192, 16, 0, 81, 2, &f, &err), XC_OK);
    XC_ASSERT_NEAR(f.max_rel, 0.01, 1e-4);
    xc_accel_float_verdict(&f, "high", &v);
    CU_ASSERT_FALSE(v.pass);
    CU_ASSERT_EQUAL(xc_approx_accel_float(cpu, ref, 8192, 4, 0, 81, 2, &f, &err), XC_EINVAL);
}

/* accelsearch's printed trials for 2^21 samples of 64 us (research notes,
 * measured: 60945347, 30472673, 15236336 at 1, 2, 4 harmonics); every grid
 * point is 2 x numz x (rhi - rlo) = 6.9 H times more; the sigma of one power
 * drops by ln(ratio) Q/phi to first order; a planted negative difference
 * fails the verdict. */
XC_TEST(test_trials, "trials")
{
    xc_accel_trials_cmp t;
    xc_error err;
    CU_ASSERT_EQUAL_FATAL(xc_approx_accel_trials(1048576, 134.217728, 200, 0, &t, &err), XC_OK);
    XC_ASSERT_NEAR(floor(t.n_eff[0]), 60945347, 0);
    XC_ASSERT_NEAR(floor(t.n_eff[1]), 30472673, 0);
    XC_ASSERT_NEAR(floor(t.n_eff[2]), 15236336, 0);
    XC_ASSERT_NEAR(t.n_all[0], 2.0 * (1048575 - 134) * 201, 0);
    for (int s = 0; s < XC_TRIALS_NSTAGE; s++) {
        XC_ASSERT_NEAR(t.n_all[s] / t.n_eff[s], 6.95 * (1 << s) * 201.0 / 202.0, 1e-9);
        for (int j = 0; j < XC_TRIALS_NSIG; j++) {
            XC_ASSERT_BELOW(t.sig_all[s][j], t.sig_eff[j]);
            if (t.sig_eff[j] >= 5)
                XC_ASSERT_NEAR(t.sig_eff[j] - t.sig_all[s][j], t.approx[s][j], 0.15 * t.approx[s][j]);
        }
    }
    xc_row rows[XC_TRIALS_NSTAGE];
    xc_accel_trials_rows(&t, rows);
    printf("\n  %s: %s", rows[0].key, rows[0].value);
    xc_verdict v;
    xc_accel_trials_verdict(&t, &v);
    CU_ASSERT(v.pass);
    t.sig_all[3][1] = t.sig_eff[1] + 0.1;
    xc_accel_trials_verdict(&t, &v);
    CU_ASSERT_FALSE(v.pass);
    /* with a jerk search the grid also counts numw */
    CU_ASSERT_EQUAL_FATAL(xc_approx_accel_trials(1048576, 134.217728, 20, 40, &t, &err), XC_OK);
    CU_ASSERT_EQUAL(t.numw, 5);
    XC_ASSERT_NEAR(t.n_all[0] / t.n_eff[0], (2.0 * 21 * 5) / (22 * (2 / 6.95) * 6 * (20 / 44.2)), 1e-9);
}

/* The trial count on noise: the largest power of whole zmax 20 noise planes
 * exceeds accelsearch's 50 % threshold in far more than half the spectra
 * (measured: 94 %; the data show about 4 times its effective trials), yet
 * less often than if every half-bin point were independent; a count below
 * accelsearch's bound or above every point's fails the verdict. */
XC_TEST(test_trials_on_noise, "trials_on_noise")
{
    xc_accel_maxfa m;
    xc_error err;
    CU_ASSERT_EQUAL_FATAL(xc_approx_accel_maxfa(cpu, 8192, 20, 150, 91, 1e-3, 2, &m, &err), XC_OK);
    xc_row rows[XC_MAXFA_NX];
    xc_accel_maxfa_rows(&m, rows);
    for (int k = 0; k < XC_MAXFA_NX; k++)
        printf("\n  %s: %s", rows[k].key, rows[k].value);
    XC_ASSERT_NEAR(m.n_all / m.n_eff, 2 * 21 * 6.95 / (22 * 2.0), 1e-9);
    XC_ASSERT_NEAR(m.x[1], 2 * log(m.n_eff / M_LN2), 1e-9);
    CU_ASSERT(m.count[1] > m.hi_eff[1]);   /* accelsearch's count is too small */
    XC_ASSERT_ABOVE(m.n_hat[1] / m.n_eff, 2);
    XC_ASSERT_BELOW(m.n_hat[1], m.n_all);
    CU_ASSERT(m.count[0] <= m.count[1]);
    xc_verdict v;
    xc_accel_maxfa_verdict(&m, cpu->impl.name, &v);
    CU_ASSERT(v.pass);
    m.count[1] = m.lo_eff[1] - 1;
    xc_accel_maxfa_verdict(&m, cpu->impl.name, &v);
    CU_ASSERT_FALSE(v.pass);
    m.count[1] = m.hi_all[1] + 1;
    xc_accel_maxfa_verdict(&m, cpu->impl.name, &v);
    CU_ASSERT_FALSE(v.pass);
    CU_ASSERT_EQUAL(xc_approx_accel_maxfa(cpu, 8192, 20, 5, 91, 1e-3, 2, &m, &err), XC_EINVAL);
}

int main(void)
{
    xc_error err;
    if (xc_registry_builtin(&reg, &err)) {
        fprintf(stderr, "test_approx_accel: %s\n", err.msg);
        return 1;
    }
    ref = xc_accel_searcher_of(xc_registry_pick(reg, XC_FAMILY_ACCEL, XC_CAP_REFERENCE, 0));
    cpu = xc_accel_searcher_of(xc_registry_pick(reg, XC_FAMILY_ACCEL, XC_CAP_THREADED,
                                                XC_CAP_DEVICE | XC_CAP_APPROXIMATE | XC_CAP_RUNTIME));
    int rc = 1;
    if (ref && cpu)
        rc = xc_test_main("approx_accel");
    else
        fprintf(stderr, "test_approx_accel: no reference or no threaded cpu accel searcher in the registry\n");
    xc_registry_destroy(reg);
    return rc;
}
