/* xc_orbit.h: the synthesizer's timing model: Kepler orbits, light-travel
 * (Roemer) delays, the spin phase, and SIGPROC fake's t/P(t) model beside it.
 *
 * Times: t is observatory time at fch1 from the start of sample 0; tau is
 * pulsar (binary barycentre) time, chosen so that tau = 0 is emitted at t = 0:
 *     t(tau) = tau + D(tau) - D(0),
 * D the light-travel delay across the orbit (and a tau^2/2c for a constant
 * acceleration).  The spin phase is phi(tau) = integral of 1/P(tau') from 0,
 * P(tau) = p0 + pdot*tau, so the phase seen at time t is phi(tau(t)) and the
 * apparent frequency is (1/P) dtau/dt = (1/P)/(1 + v/c).
 *
 * Orbit (Lorimer & Kramer 2005 sec. 8.2; Blandford & Teukolsky 1976):
 *   n = 2 pi/Pb, mean anomaly M = n (tau - tau_p), tau_p = bphase*Pb,
 *   E - e sin E = M, x = a_p sin i / c with
 *   a_p sin i = (GM_sun f_M Pb^2/4 pi^2)^(1/3), f_M = (mc sin i)^3/(mp + mc)^2,
 *   D = x [(cos E - e) sin w + sqrt(1 - e^2) sin E cos w],
 *   v/c = dD/dtau = x n [sqrt(1 - e^2) cos E cos w - sin E sin w]/(1 - e cos E),
 * which is fake's velocity (2 pi/Pb)(a sin i/sqrt(1-e^2))(cos(w + nu) + e cos w)
 * written with the eccentric anomaly; v > 0 moves away and lengthens the period.
 */
#ifndef XC_ORBIT_H
#define XC_ORBIT_H

#include "core/base/xc_error.h"
#include "synth/model/xc_synth.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Largest number of iterations xc_kepler_solve takes for any M and e < 1: at
 * most XC_KEPLER_NEWTON Newton steps, then bisection of a bracket no wider
 * than 1 rad until it is narrower than 1e-13 (44 halvings). */
#define XC_KEPLER_NEWTON 16
#define XC_KEPLER_MAXIT 61

/* E with E - e sin E = M, |error| <= 1e-12 rad, for any finite M and 0 <= e < 1.
 * The bracket for the reduced M in [0, pi] is [M, min(M + e, pi, M/(1 - e))];
 * Newton starts at min(M + 0.85 e (Danby), (6M)^(1/3) (near periastron of a
 * very eccentric orbit), the bracket's top), and is replaced by bisection
 * whenever it would leave the bracket and after XC_KEPLER_NEWTON steps.  E is
 * returned for M reduced to [-pi, pi] plus the whole turns of M.  *iters (may be NULL) gets the iterations used (<= XC_KEPLER_MAXIT). */
double xc_kepler_solve(double M, double e, int *iters);

typedef struct {
    double pb;         /* s */
    double n;          /* 2 pi / pb, rad/s */
    double e, sqrt1me2;
    double x;          /* projected semi-major axis a_p sin i / c, s */
    double sinw, cosw;
    double tp;         /* time of periastron in tau, s */
} xc_orbit;

/* Sets the orbit from fake's parameters with the given GM_sun (m^3 s^-2).
 * XC_EINVAL naming the option when a value is out of range. */
xc_status xc_orbit_init(xc_orbit *o, const xc_synth_binary *b, double gm_sun, xc_error *err);
/* The light-travel delay D(tau) in s and, if vc is not NULL, v/c = dD/dtau. */
double xc_orbit_delay(const xc_orbit *o, double tau, double *vc);
/* The largest |v|/c over the orbit: x n (1 + e |cos w|... ) evaluated exactly
 * as max over E of |sqrt(1-e^2) cos E cos w - sin E sin w|/(1 - e cos E). */
double xc_orbit_vmax(const xc_orbit *o);

/* ---- the pulsar's timing model ------------------------------------------- */
typedef struct {
    double p0;         /* rest-frame period at tau = 0, s */
    double pdot;
    double accn;       /* m/s^2 */
    int binary;
    xc_orbit orb;
    double d0;         /* D(0) */
    double tmax;       /* |tau| and |t| this model is valid for (checked by init) */
    xc_synth_binary bin; /* as given, for fake's binary_papp */
    int fake;          /* the phase is fake's t/P(t) (-fake_phase) */
    double fake_p0;    /* fake's p0 (period, or period/(1 + a tobs/2c) with -accn) */
} xc_timing;

/* The model of p->psr (period_ms > 0) over times up to about tobs plus the
 * dispersion sweep; XC_EINVAL if the period would not stay positive, the
 * orbit is invalid, or the line-of-sight speed would reach c/2. */
xc_status xc_timing_init(xc_timing *tm, const xc_synth_params *p, xc_error *err);
/* Spin phase emitted at pulsar time tau, and its inverse. */
double xc_timing_spin_phase(const xc_timing *tm, double tau);
double xc_timing_tau_of_phase(const xc_timing *tm, double phi);
/* Arrival time t at fch1 of pulsar time tau; *dtdtau (may be NULL) = 1 + v/c. */
double xc_timing_t_of_tau(const xc_timing *tm, double tau, double *dtdtau);
/* Pulsar time emitted at arrival time t (Newton, at most 60 steps, 1e-13 s). */
double xc_timing_tau_of_t(const xc_timing *tm, double t);
/* Phase seen at arrival time t (default model), and the apparent frequency (Hz). */
double xc_timing_phase(const xc_timing *tm, double t);
double xc_timing_freq(const xc_timing *tm, double t);

/* fake's model: the period fake would set at its time t (binary_papp with fake's
 * constants, or p0 + pdot t, or p0 (1 + a t/c), the last one set winning as in
 * fake's loop), and its phase t/P(t) with that period updated continuously. */
double xc_fake_period(const xc_timing *tm, double t);
double xc_fake_phase(const xc_timing *tm, double t);
/* SIGPROC fake's binary_papp, transcribed: M_SUN 2.0e30, G 6.672e-11,
 * PI 3.14159265, Newton from E = M, 10 steps, tolerance 1e-10. */
double xc_fake_binary_papp(const xc_synth_binary *b, double p_rest, double t);

/* ---- what a periodicity search should find ---------------------------------- */
typedef struct {
    double T;                 /* s, the span [0, T] the averages are over */
    double f0;                /* rest-frame spin frequency at tau = 0, Hz */
    double f_start, f_end;    /* apparent frequency at t = 0 and t = T */
    double f_mean;            /* (phase(T) - phase(0))/T */
    double r, z, w;           /* PRESTO: r = f_mean T; z, w: T^2 <fdot>, T^3 <fdotdot> of the
                                 least-squares cubic in t fitted to the phase over [0, T] */
    double r_fit;             /* T times the mean frequency of that cubic */
    double fit_rms_cycles;    /* rms of the phase minus the cubic: small means a
                                 jerk search template matches */
    double doppler_min, doppler_max; /* f_apparent/f_rest (spin-down aside) over [0, T] */
    double vlos_min, vlos_max;       /* m/s, > 0 away */
} xc_search_truth;

/* Evaluates the phase model (the default one, or fake's when tm->fake) at
 * 257 Gauss-Legendre nodes over [0, T] and the speed on a 4097-point grid.
 * `shift` is added to t before fake's phase is evaluated (fake's sample i is
 * its time (i+1)*tsamp; pass tsamp/2 to align sample centres).  XC_ENOMEM. */
xc_status xc_search_truth_compute(const xc_timing *tm, double T, double shift, xc_search_truth *st,
                                  xc_error *err);

#ifdef __cplusplus
}
#endif
#endif
