/* Tests of the synthesizer's timing model: Kepler's equation, the orbit's
 * line-of-sight velocity and light-travel delay, the integrated spin phase,
 * and SIGPROC fake's t/P(t) model reproduced by -fake_phase (with the
 * differences from the default model measured against SIGPROC fake, SixByNine/sigproc src/fake.c main).
 *
 * Independent references live here: a long-double bisection for Kepler, the
 * semi-amplitude formula K = (2 pi G M_sun/Pb)^(1/3) mc sin i/(mp+mc)^(2/3),
 * fake's velocity through the true anomaly integrated with GSL, and a
 * transcription of fake.c's main loop and binary_papp. */
#include <gsl/gsl_errno.h>
#include <gsl/gsl_integration.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/io/xc_filterbank.h"
#include "synth/model/xc_orbit.h"
#include "synth/model/xc_synth.h"
#include "tests/xc_fixture.h"
#include "tests/xc_test.h"

#define C_LIGHT 299792458.0
#define GM_SUN 1.32712440018e20

static const char *tmp(const char *name)
{
    static char buf[8][512];
    static int k;
    char *b = buf[k++ % 8];
    snprintf(b, sizeof buf[0], "%s/%s", xc_test_tmpdir(), name);
    return b;
}

/* E - e sin E = M by bisection in long double on [lo, hi] (the root inside),
 * down to adjacent long doubles: once the midpoint rounds onto an end,
 * further halvings only keep or collapse onto it, so it is the answer. */
static long double kepler_bisect_in(long double M, long double e, long double lo, long double hi)
{
    for (;;) {
        long double mid = 0.5L * (lo + hi);
        if (mid == lo || mid == hi)
            return mid;
        if (mid - e * sinl(mid) - M < 0)
            lo = mid;
        else
            hi = mid;
    }
}

/* The root from [M - 1, M + 1] (some 66 halvings). */
static long double kepler_bisect(long double M, long double e)
{
    return kepler_bisect_in(M, e, M - 1.0L, M + 1.0L);
}

/* The same root, bisected from [E0 - d, E0 + d] when that interval holds it
 * (x - e sin x - M increases with x for e < 1: below zero at one end, not
 * below at the other), else from kepler_bisect's interval: some 40 fewer
 * halvings when E0 is within d of the root. */
static long double kepler_bisect_near(long double M, long double e, long double E0, long double d)
{
    long double lo = E0 - d, hi = E0 + d;
    if (!(lo - e * sinl(lo) - M < 0 && hi - e * sinl(hi) - M >= 0))
        return kepler_bisect(M, e);
    return kepler_bisect_in(M, e, lo, hi);
}

XC_TEST(test_kepler_known_solutions, "kepler_known_solutions")
{
    /* Meeus, Astronomical Algorithms (2nd ed.), example 30.a: e = 0.1, M = 5 deg. */
    const double d = M_PI / 180;
    XC_ASSERT_CLOSE(xc_kepler_solve(5 * d, 0.1, NULL) / d, 5.554589, 1e-6);
    /* e = 0: E = M, in no iterations; and for M beyond one turn */
    int it = -1;
    CU_ASSERT_EQUAL(xc_kepler_solve(1.234, 0.0, &it), 1.234);
    CU_ASSERT_EQUAL(it, 0);
    XC_ASSERT_CLOSE(xc_kepler_solve(1.234 + 6 * M_PI, 0.0, NULL), 1.234 + 6 * M_PI, 1e-13);
    /* E = pi at M = pi for every e; E = 0 at M = 0 */
    XC_ASSERT_CLOSE(xc_kepler_solve(M_PI, 0.9, NULL), M_PI, 1e-15);
    CU_ASSERT_EQUAL(xc_kepler_solve(0.0, 0.95, NULL), 0.0);
    /* a solution made backwards: E chosen, M = E - e sin E */
    const double E = 2.0, e = 0.7;
    XC_ASSERT_CLOSE(xc_kepler_solve(E - e * sin(E), e, NULL), E, 1e-13);
}

XC_TEST(test_kepler_every_anomaly_bounded_steps, "kepler_every_anomaly_bounded_steps")
{
    static const double ecc[] = {0.0, 1e-6, 0.1, 0.5, 0.8, 0.9, 0.99, 0.999999};
    int worst_it = 0, bad = 0;
    double worst = 0;
    for (size_t k = 0; k < sizeof ecc / sizeof ecc[0]; k++) {
        for (int j = -20000; j <= 20000; j++) {
            /* the whole circle, denser near 0 where e -> 1 is hardest */
            double M = j == 0 ? 0 : copysign(M_PI * pow(abs(j) / 20000.0, 3), j);
            int it;
            double E = xc_kepler_solve(M, ecc[k], &it);
            double err = fabs((double)((long double)E - kepler_bisect_near(M, ecc[k], E, 1e-12L)));
            if (err > worst)
                worst = err;
            if (it > worst_it)
                worst_it = it;
            bad += !(err <= 1e-12);
        }
    }
    CU_ASSERT_EQUAL(bad, 0);
    CU_ASSERT(worst <= 1e-12);
    CU_ASSERT(worst_it <= XC_KEPLER_MAXIT);
    printf("\n    Kepler: worst |E - E_ref| %.2g rad, at most %d iterations ", worst, worst_it);
}

static xc_synth_binary binary(double pb_h, double e, double inc, double om, double ph, double mp, double mc)
{
    xc_synth_binary b = {1, pb_h, e, inc, om, ph, mp, mc};
    return b;
}

XC_TEST(test_circular_velocity_is_sinusoid, "circular_velocity_is_sinusoid")
{
    xc_synth_binary b = binary(2.5, 0.0, 60.0, 30.0, 0.3, 1.4, 1.0);
    xc_orbit o;
    xc_error err;
    CU_ASSERT_EQUAL_FATAL(xc_orbit_init(&o, &b, GM_SUN, &err), XC_OK);
    const double pb = 2.5 * 3600, si = sin(60 * M_PI / 180);
    /* the radial-velocity semi-amplitude, written the textbook way */
    const double K = cbrt(2 * M_PI * GM_SUN / pb) * 1.0 * si / pow(2.4, 2.0 / 3.0);
    double vmax = 0, worst = 0;
    for (int i = 0; i < 10000; i++) {
        double tau = pb * i / 10000.0, vc;
        xc_orbit_delay(&o, tau, &vc);
        double v = vc * C_LIGHT;
        double want = K * cos(2 * M_PI * (tau - 0.3 * pb) / pb + 30 * M_PI / 180);
        worst = fmax(worst, fabs(v - want));
        vmax = fmax(vmax, fabs(v));
    }
    CU_ASSERT(worst < 1e-9 * K);
    XC_ASSERT_CLOSE(vmax / K, 1.0, 1e-6);
    XC_ASSERT_CLOSE(xc_orbit_vmax(&o) * C_LIGHT / K, 1.0, 1e-12);
    /* and GM_sun matters: fake's constants give a 0.18 % larger a sin i */
    xc_orbit of;
    CU_ASSERT_EQUAL_FATAL(xc_orbit_init(&of, &b, 2.0e30 * 6.672e-11, &err), XC_OK);
    XC_ASSERT_CLOSE(of.x / o.x, cbrt(2.0e30 * 6.672e-11 / GM_SUN), 1e-12);
    CU_ASSERT(of.x / o.x > 1.0017 && of.x / o.x < 1.0019);
}

/* fake's velocity (through the true anomaly) with our constants, for GSL. */
typedef struct {
    double pb, e, w, asini, tp;
} vparams;

static double v_over_c(double tau, void *vp)
{
    const vparams *q = vp;
    double M = 2 * M_PI * (tau - q->tp) / q->pb;
    double E = (double)kepler_bisect(M, q->e);
    double nu = 2 * atan(sqrt((1 + q->e) / (1 - q->e)) * tan(E / 2));
    return 2 * M_PI / q->pb * q->asini / sqrt(1 - q->e * q->e) * (cos(q->w + nu) + q->e * cos(q->w)) / C_LIGHT;
}

XC_TEST(test_roemer_delay_is_integrated_velocity, "roemer_delay_is_integrated_velocity")
{
    static const double ecc[] = {0.0, 0.3, 0.6, 0.9};
    static const double om[] = {0.0, 75.0, 200.0, 310.0};
    gsl_integration_workspace *ws = gsl_integration_workspace_alloc(1000);
    CU_ASSERT_PTR_NOT_NULL_FATAL(ws);
    for (int k = 0; k < 4; k++) {
        xc_synth_binary b = binary(1.7, ecc[k], 70.0, om[k], 0.85, 1.3, 2.1);
        xc_orbit o;
        xc_error err;
        CU_ASSERT_EQUAL_FATAL(xc_orbit_init(&o, &b, GM_SUN, &err), XC_OK);
        vparams q = {o.pb, o.e, om[k] * M_PI / 180, o.x * C_LIGHT, o.tp};
        gsl_function F = {v_over_c, &q};
        const double d0 = xc_orbit_delay(&o, 0.0, NULL);
        double worst = 0, worst_v = 0;
        for (int i = 1; i <= 24; i++) {
            double tau = o.pb * i / 16.0, integral, abserr, vc;
            CU_ASSERT_EQUAL(gsl_integration_qag(&F, 0.0, tau, 1e-13, 1e-13, 1000, GSL_INTEG_GAUSS61, ws, &integral,
                                                &abserr), 0);
            double d = xc_orbit_delay(&o, tau, &vc) - d0;
            worst = fmax(worst, fabs(d - integral));
            worst_v = fmax(worst_v, fabs(vc - v_over_c(tau, &q)));
        }
        CU_ASSERT(worst < 1e-9);        /* seconds, against delays of ~1 s */
        CU_ASSERT(worst_v < 1e-15);     /* v/c of ~1e-3 */
        if (worst >= 1e-9 || worst_v >= 1e-15)
            printf("\n    e %.1f: delay off by %.3g s, v/c by %.3g ", ecc[k], worst, worst_v);
    }
    gsl_integration_workspace_free(ws);
}

static void pulsar_params(xc_synth_params *p, double period_ms, double tobs, double tsamp)
{
    xc_fx_synth_obs(p, 1, 32, tsamp, tobs, 1400, -1);
    p->noise = 0;
    p->smear = 0;
    xc_fx_synth_psr(p, period_ms, 0, 5, 1);
}

static double freq_at(double t, void *tm) { return xc_timing_freq(tm, t); }

XC_TEST(test_phase_is_integral_of_frequency, "phase_is_integral_of_frequency")
{
    /* every effect at once: spin-down, acceleration and an eccentric orbit */
    xc_synth_params p;
    pulsar_params(&p, 3.3, 600, 64e-6);
    p.psr.pdot = 2e-12;
    p.psr.accn = 40;
    p.psr.bin = binary(1.2, 0.45, 55, 120, 0.93, 1.5, 0.9);
    xc_timing tm;
    xc_error err;
    CU_ASSERT_EQUAL_FATAL(xc_timing_init(&tm, &p, &err), XC_OK);
    gsl_integration_workspace *ws = gsl_integration_workspace_alloc(1000);
    CU_ASSERT_PTR_NOT_NULL_FATAL(ws);
    gsl_function F = {freq_at, &tm};
    double worst = 0, worst_inv = 0;
    for (int i = 1; i <= 12; i++) {
        double t = 50.0 * i, integral, abserr;
        CU_ASSERT_EQUAL(gsl_integration_qag(&F, 0.0, t, 1e-8, 1e-12, 1000, GSL_INTEG_GAUSS61, ws, &integral, &abserr),
                        0);
        worst = fmax(worst, fabs(xc_timing_phase(&tm, t) - integral));
        /* arrival <-> emission round trip */
        worst_inv = fmax(worst_inv, fabs(xc_timing_t_of_tau(&tm, xc_timing_tau_of_t(&tm, t), NULL) - t));
    }
    gsl_integration_workspace_free(ws);
    CU_ASSERT(worst < 1e-7);       /* cycles, of ~1.8e5 */
    CU_ASSERT(worst_inv < 1e-11);  /* s */
    CU_ASSERT_EQUAL(xc_timing_phase(&tm, 0.0), 0.0);
    xc_synth_params_free(&p);
}

/* Reads back a noiseless 1-channel file. */
static float *series(const xc_synth_params *p, const char *name, uint64_t *n)
{
    xc_error err;
    const char *f = tmp(name);
    CU_ASSERT_EQUAL_FATAL(xc_synth_write(p, f, NULL, NULL, &err), XC_OK);
    xc_fbreader *r;
    CU_ASSERT_EQUAL_FATAL(xc_fbreader_open(&r, f, NULL, &err), XC_OK);
    *n = xc_fbreader_header(r)->nsamp;
    const int nch = xc_fbreader_header(r)->nchans;
    float *x = malloc(*n * (size_t)nch * sizeof *x);
    CU_ASSERT_PTR_NOT_NULL_FATAL(x);
    CU_ASSERT_EQUAL_FATAL(xc_fbreader_read_f32(r, 0, *n, 0, x, &err), XC_OK);
    xc_fbreader_close(r);
    remove(f);
    return x;
}

/* Pulse centres of a noiseless single-channel series of top hats of height amp.
 * integrated: a run's edges come from its partial end samples, exactly;
 * otherwise (fake's point samples) the mean of the on samples' times, with
 * fake's time (i+1)*tsamp. */
static size_t centres(const float *x, uint64_t n, double ts, double amp, int integrated, double *c, size_t max)
{
    size_t k = 0;
    for (uint64_t i = 0; i < n && k < max;) {
        if (x[i] == 0) {
            i++;
            continue;
        }
        uint64_t j = i;
        while (j + 1 < n && x[j + 1] != 0)
            j++;
        if (integrated)
            c[k++] = 0.5 * (((double)(i + 1) * ts - ts * x[i] / amp) + ((double)j * ts + ts * x[j] / amp));
        else
            c[k++] = 0.5 * ((double)(i + 1) + (double)(j + 1)) * ts;
        i = j + 1;
    }
    return k;
}

/* Least-squares c of t_k = a + b k + c k^2 (k centred, in long double). */
static double quad_coeff(const double *t, size_t n)
{
    long double S[5] = {0}, R[3] = {0};
    const long double km = 0.5L * (long double)(n - 1);
    for (size_t i = 0; i < n; i++) {
        long double k = (long double)i - km, kp = 1;
        for (int j = 0; j < 5; j++, kp *= k) {
            S[j] += kp;
            if (j < 3)
                R[j] += kp * t[i];
        }
    }
    long double A[3][4] = {{S[0], S[1], S[2], R[0]}, {S[1], S[2], S[3], R[1]}, {S[2], S[3], S[4], R[2]}};
    for (int i = 0; i < 3; i++)
        for (int j = i + 1; j < 3; j++) {
            long double f = A[j][i] / A[i][i];
            for (int m = 0; m < 4; m++)
                A[j][m] -= f * A[i][m];
        }
    long double cc = A[2][3] / A[2][2];
    return (double)cc;
}

XC_TEST(test_accn_integrated_vs_fake, "accn_integrated_vs_fake")
{
    /* SIGPROC fake (SixByNine/sigproc src/fake.c main): 1 channel, 32 bits, 100 s, a = 1000 m/s^2,
     * P = 5 ms: fake's pulse times have quadratic coefficient p0^2 a/c
     * (8.34e-11 s measured), the integrated phase p0^2 a/2c. */
    xc_synth_params p;
    pulsar_params(&p, 5.0, 100.0, 64e-6);
    p.psr.accn = 1000;
    const double p0 = 5e-3 / (1 + 1000 * 100 / (2 * C_LIGHT));
    double c_ours = 0, c_fake = 0;
    for (int fake = 0; fake < 2; fake++) {
        p.fake_phase = fake;
        uint64_t n;
        float *x = series(&p, fake ? "accf.fil" : "acc.fil", &n);
        size_t max = 25000;
        double *c = malloc(max * sizeof *c);
        CU_ASSERT_PTR_NOT_NULL_FATAL(c);
        size_t k = centres(x, n, p.tsamp, 1.0, !fake, c, max);
        CU_ASSERT(k > 19990 && k < 20010);
        CU_ASSERT(c[0] < 5e-3);   /* pulse 0 first */
        *(fake ? &c_fake : &c_ours) = quad_coeff(c, k);
        free(c);
        free(x);
    }
    const double want = p0 * p0 * 1000 / (2 * C_LIGHT);
    XC_ASSERT_CLOSE(c_ours / want, 1.0, 1e-5);
    XC_ASSERT_CLOSE(c_fake / (2 * want), 1.0, 5e-3);
    CU_ASSERT(fabs(c_fake - 8.34e-11) < 0.005 * 8.34e-11);
    printf("\n    accn quadratic coefficient: ours %.4e s (p0^2 a/2c %.4e), fake_phase %.4e s (fake measured "
           "8.340e-11) ", c_ours, want, c_fake);
    xc_synth_params_free(&p);
}

/* ---- fake.c, transcribed, for the signal only -------------------------------- */
typedef struct {
    double orbitalPeriod, eccentricity, massPulsar, massCompanion, startPhase, inclination, omega;
} BinaryParams;

static double fake_binary_papp(BinaryParams params, double pRest, double time)
{
    const double PI = 3.14159265, SPEED_OF_LIGHT = 2.99792458e8, M_SUN = 2.0e30, G = 6.672e-11;
    double incl = params.inclination * (PI / 180);
    double omegaB = 2.0 * PI / params.orbitalPeriod;
    double t0 = params.startPhase * params.orbitalPeriod;
    double massFunction = pow((params.massCompanion * sin(incl)), 3) / pow((params.massCompanion + params.massPulsar), 2);
    double asini = pow((M_SUN * massFunction * G * params.orbitalPeriod * params.orbitalPeriod / (4.0 * PI * PI)),
                       0.333333333333);
    double meanAnomaly = omegaB * (time - t0);
    double eccentricAnomaly = meanAnomaly, eNext;
    for (int i = 0; i < 10; i++) {
        eNext = eccentricAnomaly - (eccentricAnomaly - params.eccentricity * sin(eccentricAnomaly) - meanAnomaly) /
                                       (1.0 - params.eccentricity * cos(eccentricAnomaly));
        if (fabs(eNext - eccentricAnomaly) < 1.0e-10)
            break;
        eccentricAnomaly = eNext;
    }
    double trueAnomaly =
        2.0 * atan(sqrt((1.0 + params.eccentricity) / (1.0 - params.eccentricity)) * tan(eccentricAnomaly / 2.0));
    double velocity = omegaB * (asini / (sqrt(1.0 - pow(params.eccentricity, 2)))) *
                      (cos(params.omega + trueAnomaly) + params.eccentricity * cos(params.omega));
    return pRest * (1.0 + (velocity / SPEED_OF_LIGHT));
}

/* fake.c main's signal: value[s*nchans + c] for the first nsamp samples
 * (fake writes blocks of 512; the rest is never compared). */
static void fake_loop(const xc_synth_params *q, uint64_t nsamp, float *value)
{
    const double speed_of_light = 299792458.0;
    int nchans = q->nchans, smear = q->smear, usebinary = q->psr.bin.on;
    double period = 1.0e-3 * q->psr.period_ms, psrdm = q->psr.dm, dc = q->psr.width_pct / 100.0;
    double fch1 = q->fch1, foff = q->foff, tsamp = q->tsamp, obstime = q->tobs, pdot = q->psr.pdot,
           accn = q->psr.accn;
    float snr = (float)q->psr.snrpeak, pulse;
    BinaryParams bp = {3600 * q->psr.bin.pb_h, q->psr.bin.ecc, q->psr.bin.mp, q->psr.bin.mc, q->psr.bin.phase,
                       q->psr.bin.inc_deg, (3.14159265 / 180.0) * q->psr.bin.omega_deg};
    if (foff > 0.0)
        foff *= -1.0;
    if (smear && period > 0.0) {
        double tdm = 8.3e3 * psrdm * foff / fch1 / fch1 / fch1;
        dc *= period;
        dc = sqrt(tdm * tdm + tsamp * tsamp + dc * dc);
        dc /= period;
    }
    double rising = 0.5 - dc / 2.0, trailing = 0.5 + dc / 2.0;
    double *shift = malloc(sizeof(double) * (size_t)nchans);
    CU_ASSERT_PTR_NOT_NULL_FATAL(shift);
    for (int c = 0; c < nchans; c++) {
        double f1 = fch1, f2 = fch1 + ((double)c * foff);
        shift[c] = 4148.741601 * ((1.0 / f1 / f1) - (1.0 / f2 / f2)) * psrdm;
    }
    snr /= sqrt((double)nchans);
    double p0 = period;
    if (accn != 0.0)
        p0 = period / (1.0 + accn * obstime / 2.0 / speed_of_light);
    period = p0;
    double faketime = 0.0, plst = 0.0, pulsephase;
    for (uint64_t s = 0; s < nsamp; s++) {
        faketime += tsamp;
        for (int c = 0; c < nchans; c++) {
            pulsephase = (faketime + shift[c]) / period;
            pulsephase = pulsephase - floor(pulsephase);
            if ((pulsephase >= rising) && (pulsephase <= trailing))
                pulse = snr;
            else
                pulse = 0.0;
            if (plst > pulsephase) {
                if (pdot != 0.0)
                    period = p0 + pdot * faketime;
                if (accn != 0.0)
                    period = p0 * (1.0 + accn * faketime / speed_of_light);
                if (usebinary)
                    period = fake_binary_papp(bp, p0, faketime);
            }
            plst = pulsephase;
            value[s * (uint64_t)nchans + (uint64_t)c] = pulse;
        }
    }
    free(shift);
}

XC_TEST(test_fake_phase_reproduces_fake, "fake_phase_reproduces_fake")
{
    /* fake's sigproc constant, so -convention sigproc gives fake's shifts */
    XC_ASSERT_CLOSE(xc_convention_get("sigproc")->kdm, 4148.741601, 1e-9);
    for (int t = 0; t < 4; t++) {
        xc_synth_params p;
        pulsar_params(&p, 4.0, 20.0, 64e-6);
        p.convention = xc_convention_get("sigproc");
        p.fake_phase = 1;
        p.psr.snrpeak = 3;
        if (t == 0) {           /* one channel, accelerated */
            p.psr.accn = 300;
        } else if (t == 1) {    /* dispersed over 16 channels: every channel can update the period */
            p.nchans = 16;
            p.foff = 2.5;
            p.psr.dm = 80;
            p.smear = 1;
            p.psr.bin = binary(1.5, 0.3, 70, 45, 0.2, 1.4, 1.1);
        } else if (t == 2) {    /* spin-down */
            p.nchans = 8;
            p.psr.pdot = 1e-9;
            p.psr.dm = 20;
        } else {                /* binary, DM 0: updates only at real wraps */
            p.psr.bin = binary(2, 0.0, 90, 0, 0.1, 1.4, 1.0);
        }
        uint64_t n;
        float *x = series(&p, "fk.fil", &n);
        float *want = malloc(n * (size_t)p.nchans * sizeof *want);
        CU_ASSERT_PTR_NOT_NULL_FATAL(want);
        fake_loop(&p, n, want);
        size_t differ = 0, on = 0;
        for (size_t i = 0; i < n * (size_t)p.nchans; i++) {
            differ += x[i] != want[i];
            on += want[i] != 0;
        }
        CU_ASSERT_EQUAL(differ, 0);
        CU_ASSERT(on > n * (size_t)p.nchans / 50);   /* the pulses are there */
        if (differ)
            printf("\n    case %d: %zu of %zu values differ from fake's loop ", t, differ, n * (size_t)p.nchans);
        free(want);
        free(x);
        xc_synth_params_free(&p);
    }
}

/* fake's continuous t/P(t) = n + 0.5, by Newton from n p0 (P changes by 1e-3). */
static double fake_pulse_time(const xc_timing *tm, double n)
{
    double t = (n + 0.5) * tm->fake_p0;
    for (int i = 0; i < 50; i++) {
        double h = 1e-3, f = xc_fake_phase(tm, t) - (n + 0.5);
        double d = (xc_fake_phase(tm, t + h) - xc_fake_phase(tm, t - h)) / (2 * h);
        double step = f / d;
        t -= step;
        if (fabs(step) < 1e-13)
            break;
    }
    return t;
}

/* rms and max of y minus its least-squares line in x. */
static void detrend(const double *x, const double *y, size_t n, double *rms, double *max)
{
    double xm, ym, b = xc_fx_line_fit(x, y, n, &xm, &ym), a = ym - b * xm, ss = 0;
    *max = 0;
    for (size_t i = 0; i < n; i++) {
        double r = y[i] - a - b * x[i];
        ss += r * r;
        *max = fmax(*max, fabs(r));
    }
    *rms = sqrt(ss / n);
}

XC_TEST(test_binary_drift_vs_fake, "binary_drift_vs_fake")
{
    /* SIGPROC fake (SixByNine/sigproc src/fake.c main): Pb = 2 h, e = 0, mp 1.4, mc 1.0, bphase 0.1,
     * 600 s at 64 us.  fake's pulses follow t/P(t) (to 44 us rms there); the
     * integrated phase drifts from it by milliseconds. */
    xc_synth_params p;
    pulsar_params(&p, 20.0, 600.0, 64e-6);
    p.psr.width_pct = 4;
    p.psr.bin = binary(2, 0.0, 90, 0, 0.1, 1.4, 1.0);
    xc_timing tm;
    xc_error err;
    CU_ASSERT_EQUAL_FATAL(xc_timing_init(&tm, &p, &err), XC_OK);
    const size_t max = 40000;
    double *c[2], *pred[2];
    size_t k[2];
    for (int fake = 0; fake < 2; fake++) {
        p.fake_phase = fake;
        uint64_t n;
        float *x = series(&p, "bin.fil", &n);
        c[fake] = malloc(max * sizeof(double));
        pred[fake] = malloc(max * sizeof(double));
        CU_ASSERT_PTR_NOT_NULL_FATAL(c[fake]);
        CU_ASSERT_PTR_NOT_NULL_FATAL(pred[fake]);
        k[fake] = centres(x, n, p.tsamp, 1.0, !fake, c[fake], max);
        free(x);
    }
    /* both files start with pulse 0; by the end they are ~2 periods apart */
    CU_ASSERT_FATAL(k[0] > 29900 && labs((long)k[0] - (long)k[1]) <= 3);
    size_t m = k[0] < k[1] ? k[0] : k[1];
    m = m - 1;
    double worst_ours = 0, ss_fake = 0, worst_fake = 0, maxdiff = 0;
    double *idx = malloc(m * sizeof *idx), *diff = malloc(m * sizeof *diff), *gap = malloc(m * sizeof *gap);
    CU_ASSERT_PTR_NOT_NULL_FATAL(idx);
    CU_ASSERT_PTR_NOT_NULL_FATAL(diff);
    CU_ASSERT_PTR_NOT_NULL_FATAL(gap);
    tm.fake = 0;
    for (size_t i = 0; i < m; i++) {
        double ours = xc_timing_t_of_tau(&tm, xc_timing_tau_of_phase(&tm, (double)i + 0.5), NULL);
        double fk = fake_pulse_time(&tm, (double)i);
        worst_ours = fmax(worst_ours, fabs(c[0][i] - ours));
        ss_fake += (c[1][i] - fk) * (c[1][i] - fk);
        worst_fake = fmax(worst_fake, fabs(c[1][i] - fk));
        idx[i] = (double)i;
        diff[i] = c[0][i] - c[1][i];
        gap[i] = ours - fk;
        maxdiff = fmax(maxdiff, fabs(diff[i]));
    }
    double rms_fake = sqrt(ss_fake / m);
    /* each file follows its own model: ours exactly, fake's to its sampling */
    CU_ASSERT(worst_ours < 1e-7);
    CU_ASSERT(rms_fake < 64e-6 && worst_fake < 2 * 64e-6);
    /* and they drift apart by tens of milliseconds; what a timing fit leaves
     * (a period and an offset absorbed) is the research's ~1.4 ms rms, ~4 ms max */
    double rms, mx, rms_m, mx_m;
    detrend(idx, diff, m, &rms, &mx);
    detrend(idx, gap, m, &rms_m, &mx_m);
    CU_ASSERT(maxdiff > 0.01 && maxdiff < 0.1);
    CU_ASSERT(rms > 1.0e-3 && rms < 2.0e-3);
    CU_ASSERT(mx > 3.0e-3 && mx < 6.0e-3);
    CU_ASSERT(fabs(rms - rms_m) < 5e-5);
    printf("\n    binary drift, default - fake_phase over 600 s: max %.2f ms; after a linear fit rms %.2f ms, max "
           "%.2f ms (research: 1.42, 3.96); fake_phase vs t/P(t): rms %.1f us ",
           maxdiff * 1e3, rms * 1e3, mx * 1e3, rms_fake * 1e6);
    free(idx);
    free(diff);
    free(gap);
    for (int f = 0; f < 2; f++) {
        free(c[f]);
        free(pred[f]);
    }
    xc_synth_params_free(&p);
}

XC_TEST(test_timing_limits, "timing_limits")
{
    xc_synth_params p;
    pulsar_params(&p, 5.0, 100.0, 64e-6);
    xc_timing tm;
    xc_error err;
    /* the speed of a near-parabolic orbit of a heavy pair reaches c/2 */
    p.psr.bin = binary(1.0, 0.99999, 90, 0, 0, 5, 5);
    CU_ASSERT_EQUAL(xc_timing_init(&tm, &p, &err), XC_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "c/2"));
    CU_ASSERT_EQUAL(xc_synth_params_check(&p, NULL, &err), XC_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "-becc"));
    p.psr.bin.ecc = 0.9;
    CU_ASSERT_EQUAL(xc_timing_init(&tm, &p, &err), XC_OK);
    p.psr.bin.ecc = 1.0;
    CU_ASSERT_EQUAL(xc_synth_params_check(&p, NULL, &err), XC_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "becc (-becc) = 1"));
    p.psr.bin.ecc = 0;
    /* a spin-down that would stop the pulsar within the observation */
    p.psr.pdot = -1e-4;
    CU_ASSERT_EQUAL(xc_synth_params_check(&p, NULL, &err), XC_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "pdot (-pdot)"));
    xc_synth_params_free(&p);
}

int main(void)
{
    gsl_set_error_handler_off();
    return xc_test_main("orbit");
}
