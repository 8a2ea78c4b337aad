/* Kepler orbits, light-travel delays and the pulsar's phase model (see xc_orbit.h). */
#include "synth/model/xc_orbit.h"

#include <gsl/gsl_integration.h>
#include <math.h>


double xc_kepler_solve(double M, double e, int *iters)
{
    /* Reduce to [-pi, pi] and use E(-M) = -E(M): then M in [0, pi], where
     * f(E) = E - e sin E - M is increasing with f(M) <= 0 <= f(min(M + e, pi)). */
    double turns = 2.0 * M_PI * nearbyint(M / (2.0 * M_PI));
    double m = M - turns, sgn = 1.0;
    if (m < 0) {
        m = -m;
        sgn = -1.0;
    }
    if (m > M_PI)   /* rounding at the edge of the reduction */
        m = M_PI;
    int it = 0;
    double E = m;   /* also the exact root at m = 0 and m = pi */
    if (e > 0 && m > 0 && m < M_PI) {
        /* E - e sin E >= (1 - e) E bounds the root by m/(1 - e) as well */
        double lo = m, hi = fmin(fmin(m + e, M_PI), m / (1.0 - e));
        /* Danby's (1987) start; near periastron of a very eccentric orbit,
         * where E - sin E ~ E^3/6, the cube root; for small m, the bound */
        E = fmin(fmin(m + 0.85 * e, cbrt(6.0 * m)), hi);
        while (it < XC_KEPLER_MAXIT) {
            it++;
            double s = sin(E), c = cos(E);
            double f = E - e * s - m, fp = 1.0 - e * c;
            if (f == 0)
                break;
            if (f < 0)
                lo = E;
            else
                hi = E;
            double dx = f / fp, next = E - dx;
            /* converged: the step is below the rounding of E */
            if (fabs(dx) < 1e-14 && next >= lo && next <= hi) {
                E = next;
                break;
            }
            /* Newton while it stays strictly inside the bracket, for at most
             * XC_KEPLER_NEWTON steps; bisection otherwise and after them, so
             * the count is bounded whatever e and M. */
            if (it > XC_KEPLER_NEWTON || !(next > lo && next < hi))
                next = 0.5 * (lo + hi);
            double step = fabs(next - E);
            E = next;
            if (step < 1e-14 || hi - lo < 1e-13)
                break;
        }
    }
    if (iters)
        *iters = it;
    return sgn * E + turns;
}

xc_status xc_orbit_init(xc_orbit *o, const xc_synth_binary *b, double gm_sun, xc_error *err)
{
    if (!(b->pb_h > 0) || !isfinite(b->pb_h))
        return xc_error_set(err, XC_EINVAL, "bper_h (-bper) = %.15g: must be a finite period > 0 hours", b->pb_h);
    if (!(b->ecc >= 0 && b->ecc < 1))
        return xc_error_set(err, XC_EINVAL, "becc (-becc) = %.15g: must be in [0, 1)", b->ecc);
    if (!isfinite(b->inc_deg) || !isfinite(b->omega_deg) || !isfinite(b->phase))
        return xc_error_set(err, XC_EINVAL, "binc_deg, bomega_deg, bphase (-binc -bomega -bphase) = %.15g, %.15g, "
                            "%.15g: must be finite", b->inc_deg, b->omega_deg, b->phase);
    if (!(b->mp > 0) || !(b->mc > 0) || !isfinite(b->mp) || !isfinite(b->mc))
        return xc_error_set(err, XC_EINVAL, "bpmass, bcmass (-bpmass -bcmass) = %.15g, %.15g: must be finite "
                            "masses > 0 (solar masses)", b->mp, b->mc);
    o->pb = 3600.0 * b->pb_h;
    o->n = 2.0 * M_PI / o->pb;
    o->e = b->ecc;
    o->sqrt1me2 = sqrt((1.0 - b->ecc) * (1.0 + b->ecc));
    double si = sin(b->inc_deg * (M_PI / 180.0));
    double fm = pow(b->mc * si, 3) / ((b->mp + b->mc) * (b->mp + b->mc));
    o->x = cbrt(gm_sun * fm * o->pb * o->pb / (4.0 * M_PI * M_PI)) / XC_SYNTH_C;
    o->sinw = sin(b->omega_deg * (M_PI / 180.0));
    o->cosw = cos(b->omega_deg * (M_PI / 180.0));
    o->tp = b->phase * o->pb;
    return XC_OK;
}

double xc_orbit_delay(const xc_orbit *o, double tau, double *vc)
{
    double E = xc_kepler_solve(o->n * (tau - o->tp), o->e, NULL);
    double s = sin(E), c = cos(E);
    if (vc)
        *vc = o->x * o->n * (o->sqrt1me2 * c * o->cosw - s * o->sinw) / (1.0 - o->e * c);
    return o->x * ((c - o->e) * o->sinw + o->sqrt1me2 * s * o->cosw);
}

double xc_orbit_vmax(const xc_orbit *o)
{
    /* v/c = x n (cos(w + nu) + e cos w)/sqrt(1 - e^2), largest where cos(w + nu) = +-1 */
    return o->x * o->n * (1.0 + o->e * fabs(o->cosw)) / o->sqrt1me2;
}

/* ---- timing model ----------------------------------------------------------- */

static double delay_total(const xc_timing *tm, double tau, double *vc)
{
    double d = 0, v = 0;
    if (tm->binary)
        d = xc_orbit_delay(&tm->orb, tau, vc ? &v : NULL);
    if (tm->accn != 0) {
        d += tm->accn * tau * tau / (2.0 * XC_SYNTH_C);
        v += tm->accn * tau / XC_SYNTH_C;
    }
    if (vc)
        *vc = v;
    return d;
}

xc_status xc_timing_init(xc_timing *tm, const xc_synth_params *p, xc_error *err)
{
    const xc_synth_pulsar *ps = &p->psr;
    *tm = (xc_timing){0};
    if (!(ps->period_ms > 0))
        return xc_error_set(err, XC_EINVAL, "period_ms (-period) = %.15g: no pulsar to time", ps->period_ms);
    if (!isfinite(ps->pdot) || !isfinite(ps->accn))
        return xc_error_set(err, XC_EINVAL, "pdot, accn (-pdot -accn) = %.15g, %.15g: must be finite", ps->pdot,
                            ps->accn);
    const double period = ps->period_ms * 1e-3;
    tm->pdot = ps->pdot;
    tm->accn = ps->accn;
    tm->binary = ps->bin.on;
    /* fake: p0 = period/(1 + a tobs/2c), so -period is the apparent period
     * at mid-observation; the same meaning here. */
    tm->p0 = ps->accn != 0 ? period / (1.0 + ps->accn * p->tobs / (2.0 * XC_SYNTH_C)) : period;
    tm->fake_p0 = ps->accn != 0 ? period / (1.0 + ps->accn * p->tobs / 2.0 / 299792458.0) : period;
    tm->fake = p->fake_phase;
    xc_status st;
    if (tm->binary && (st = xc_orbit_init(&tm->orb, &ps->bin, XC_SYNTH_GM_SUN, err)))
        return st;
    /* The model is used from before the first sample (pulses emitted earlier
     * reach the low channels late) to past the last. */
    double sweep = fabs(xc_synth_delay(p, ps->dm, xc_synth_lowest_freq(p)));
    double excursion = tm->binary ? 2.0 * tm->orb.x : 0.0;
    tm->tmax = p->tobs + sweep + excursion + 1.0;
    if (tm->binary) {
        double vmax = xc_orbit_vmax(&tm->orb);
        if (!(vmax < 0.5))
            return xc_error_set(err, XC_EINVAL,
                                "binary orbit (-bper %.15g -becc %.15g -bpmass %.15g -bcmass %.15g): the pulsar's "
                                "line-of-sight speed reaches %.3g c; must stay below c/2",
                                ps->bin.pb_h, ps->bin.ecc, ps->bin.mp, ps->bin.mc, vmax);
    }
    if (!(fabs(tm->accn) * tm->tmax / XC_SYNTH_C < 0.5))
        return xc_error_set(err, XC_EINVAL, "accn (-accn) = %.15g m/s^2: the speed after %.6g s would reach c/2",
                            tm->accn, tm->tmax);
    if (!(tm->p0 - fabs(tm->pdot) * tm->tmax > 0))
        return xc_error_set(err, XC_EINVAL,
                            "pdot (-pdot) = %.15g with period %.15g ms: the period would reach 0 within %.6g s",
                            tm->pdot, ps->period_ms, tm->tmax);
    tm->d0 = delay_total(tm, 0.0, NULL);
    tm->bin = ps->bin;
    return XC_OK;
}

double xc_timing_spin_phase(const xc_timing *tm, double tau)
{
    if (tm->pdot == 0)
        return tau / tm->p0;
    return log1p(tm->pdot * tau / tm->p0) / tm->pdot;
}

double xc_timing_tau_of_phase(const xc_timing *tm, double phi)
{
    if (tm->pdot == 0)
        return tm->p0 * phi;
    return tm->p0 * expm1(tm->pdot * phi) / tm->pdot;
}

double xc_timing_t_of_tau(const xc_timing *tm, double tau, double *dtdtau)
{
    double vc = 0;
    /* the speed only when asked for: the pulses' edges need the delay alone */
    double d = (tm->binary || tm->accn != 0) ? delay_total(tm, tau, dtdtau ? &vc : NULL) - tm->d0 : 0.0;
    if (dtdtau)
        *dtdtau = 1.0 + vc;
    return tau + d;
}

double xc_timing_tau_of_t(const xc_timing *tm, double t)
{
    if (!tm->binary && tm->accn == 0)
        return t;
    /* Newton on g(tau) = t(tau) - t; g' = 1 + v/c lies in (1/2, 3/2), and a step
     * that does not shrink |g| is replaced by the contraction tau = t - D(tau) + D(0). */
    double tau = t, d;
    double g = xc_timing_t_of_tau(tm, tau, &d) - t;
    for (int it = 0; it < 60 && g != 0; it++) {
        double next = tau - g / d, dn;
        double gn = xc_timing_t_of_tau(tm, next, &dn) - t;
        if (!(fabs(gn) < fabs(g))) {
            next = tau - g;
            gn = xc_timing_t_of_tau(tm, next, &dn) - t;
        }
        double step = fabs(next - tau);
        tau = next;
        g = gn;
        d = dn;
        if (step < 1e-13 * fmax(1.0, fabs(t)))
            break;
    }
    return tau;
}

double xc_timing_phase(const xc_timing *tm, double t)
{
    return xc_timing_spin_phase(tm, xc_timing_tau_of_t(tm, t));
}

double xc_timing_freq(const xc_timing *tm, double t)
{
    double tau = xc_timing_tau_of_t(tm, t), d;
    xc_timing_t_of_tau(tm, tau, &d);
    return 1.0 / ((tm->p0 + tm->pdot * tau) * d);
}

/* ---- SIGPROC fake's model ------------------------------------------------------ */

#define FAKE_PI 3.14159265
#define FAKE_C 2.99792458e8
#define FAKE_M_SUN 2.0e30
#define FAKE_G 6.672e-11

double xc_fake_binary_papp(const xc_synth_binary *b, double p_rest, double t)
{
    /* A transcription of fake.c binary_papp (M Keith, R Eatough 2006), with
     * the units fake converts at parsing: hours to s, omega degrees to rad. */
    const double pb = 3600 * b->pb_h, ecc = b->ecc, omega = (FAKE_PI / 180.0) * b->omega_deg;
    double incl = b->inc_deg * (FAKE_PI / 180);
    double omegaB = 2.0 * FAKE_PI / pb;
    double t0 = b->phase * pb;
    double massFunction = pow((b->mc * sin(incl)), 3) / pow((b->mc + b->mp), 2);
    double asini = pow((FAKE_M_SUN * massFunction * FAKE_G * pb * pb / (4.0 * FAKE_PI * FAKE_PI)), 0.333333333333);
    double meanAnomaly = omegaB * (t - t0);
    double E = meanAnomaly;
    for (int i = 0; i < 10; i++) {
        double eNext = E - (E - ecc * sin(E) - meanAnomaly) / (1.0 - ecc * cos(E));
        if (fabs(eNext - E) < 1.0e-10)
            break;
        E = eNext;
    }
    double trueAnomaly = 2.0 * atan(sqrt((1.0 + ecc) / (1.0 - ecc)) * tan(E / 2.0));
    double velocity = omegaB * (asini / (sqrt(1.0 - pow(ecc, 2)))) * (cos(omega + trueAnomaly) + ecc * cos(omega));
    return p_rest * (1.0 + (velocity / FAKE_C));
}

double xc_fake_period(const xc_timing *tm, double t)
{
    double P = tm->fake_p0;
    if (tm->pdot != 0)
        P = tm->fake_p0 + tm->pdot * t;
    if (tm->accn != 0)
        P = tm->fake_p0 * (1.0 + tm->accn * t / 299792458.0);
    if (tm->binary)
        P = xc_fake_binary_papp(&tm->bin, tm->fake_p0, t);
    return P;
}

double xc_fake_phase(const xc_timing *tm, double t)
{
    return t / xc_fake_period(tm, t);
}

/* ---- search truth -------------------------------------------------------------- */

xc_status xc_search_truth_compute(const xc_timing *tm, double T, double shift,
                                  xc_search_truth *st, xc_error *err)
{
    enum { NGL = 257, NGRID = 4097 };
    *st = (xc_search_truth){0};
    st->T = T;
    gsl_integration_glfixed_table *tab = gsl_integration_glfixed_table_alloc(NGL);
    if (!tab)
        return xc_error_set(err, XC_ENOMEM, "out of memory for %d Gauss-Legendre nodes", NGL);
#define PHASE(t) (tm->fake ? xc_fake_phase(tm, (t) + shift) : xc_timing_phase(tm, (t)))
    const double ph0 = PHASE(0.0), phT = PHASE(T);
    /* Legendre coefficients of the phase on [0, T] (x = 2t/T - 1): the
     * least-squares polynomial of degree 3 is their first four terms.  The
     * phase is taken relative to its start so the sums keep their digits. */
    double c[4] = {0, 0, 0, 0}, xs[NGL], ys[NGL], ws[NGL];
    for (int i = 0; i < NGL; i++) {
        double t, wgt;
        gsl_integration_glfixed_point(0.0, T, (size_t)i, &t, &wgt, tab);
        double x = 2.0 * t / T - 1.0, y = PHASE(t) - ph0;
        double P[4] = {1.0, x, 0.5 * (3 * x * x - 1), 0.5 * (5 * x * x * x - 3 * x)};
        for (int k = 0; k < 4; k++)
            c[k] += wgt * y * P[k];
        xs[i] = x;
        ys[i] = y;
        ws[i] = wgt;
    }
    gsl_integration_glfixed_table_free(tab);
    for (int k = 0; k < 4; k++)
        c[k] *= (2 * k + 1) / T;
    double ss = 0;
    for (int i = 0; i < NGL; i++) {
        double x = xs[i];
        double fit = c[0] + c[1] * x + c[2] * 0.5 * (3 * x * x - 1) + c[3] * 0.5 * (5 * x * x * x - 3 * x);
        ss += ws[i] * (ys[i] - fit) * (ys[i] - fit);
    }
    /* In u = t/T the cubic is a0 + a1 u + a2 u^2 + a3 u^3 with a1 = 2c1 - 6c2 + 12c3,
     * a2 = 6c2 - 30c3, a3 = 20c3; PRESTO's averages are r = a1 + a2 + a3,
     * z = <phi''> = 2a2 + 3a3 and w = 6a3. */
    st->r = phT - ph0;
    st->r_fit = 2 * c[1] + 2 * c[3];
    st->z = 12 * c[2];
    st->w = 120 * c[3];
    st->fit_rms_cycles = sqrt(ss / T);
    st->f_mean = st->r / T;
    if (tm->fake) {
        const double h = 1e-3 * T;
        st->f0 = 1.0 / tm->fake_p0;
        st->f_start = (xc_fake_phase(tm, shift + h) - xc_fake_phase(tm, shift)) / h;
        st->f_end = (xc_fake_phase(tm, T + shift) - xc_fake_phase(tm, T + shift - h)) / h;
    } else {
        st->f0 = 1.0 / tm->p0;
        st->f_start = xc_timing_freq(tm, 0.0);
        st->f_end = xc_timing_freq(tm, T);
    }
    for (int i = 0; i < NGRID; i++) {
        double t = T * i / (NGRID - 1), vc = 0;
        if (tm->fake) {
            if (tm->binary || tm->accn != 0)
                vc = xc_fake_period(tm, t + shift) / tm->fake_p0 - 1.0;
        } else {
            double d;
            xc_timing_t_of_tau(tm, xc_timing_tau_of_t(tm, t), &d);
            vc = d - 1.0;
        }
        double dop = 1.0 / (1.0 + vc);
        if (i == 0) {
            st->doppler_min = st->doppler_max = dop;
            st->vlos_min = st->vlos_max = vc * XC_SYNTH_C;
        }
        st->doppler_min = fmin(st->doppler_min, dop);
        st->doppler_max = fmax(st->doppler_max, dop);
        st->vlos_min = fmin(st->vlos_min, vc * XC_SYNTH_C);
        st->vlos_max = fmax(st->vlos_max, vc * XC_SYNTH_C);
    }
#undef PHASE
    return XC_OK;
}
