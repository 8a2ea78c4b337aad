/* Pulses into a chunk of spectra: the pulsar from its timing model, single
 * pulses and scattered bursts, dispersion with exact intra-channel smearing,
 * integration over samples. */
#include "synth/signal/synth_signal.h"

#include <gsl/gsl_sf_erf.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define FWHM_PER_SIGMA 2.3548200450309493   /* 2 sqrt(2 ln 2) */
#define GAUSS_EXTENT 8.0                     /* sigmas kept each side of a Gaussian */

/* Psi(x) = x Phi(x) + phi(x), the integral of the normal CDF. */
static double psi(double x)
{
    return x * 0.5 * erfc(-x / M_SQRT2) + 0.39894228040143267794 * exp(-0.5 * x * x);
}

/* (1/s) int_0^s int_t0^t1 exp(-(t - c - d)^2 / 2 sig^2) dt dd, s >= 0. */
static double gauss_box(double t0, double t1, double c, double sig, double s)
{
    double a0 = (t0 - c) / sig, a1 = (t1 - c) / sig;
    if (s < 1e-6 * sig)
        return sig * 2.5066282746310002 * 0.5 * (erfc(-a1 / M_SQRT2) - erfc(-a0 / M_SQRT2));
    double b = s / sig;
    return sig * 2.5066282746310002 / b * ((psi(a1) - psi(a1 - b)) - (psi(a0) - psi(a0 - b)));
}

void xc_signal_gauss(const xc_synth_params *p, const xc_chunk *ck, int col, int c, double dm, double tc, double sig,
                     double amp)
{
    const double ts = ck->tsamp, bw = fabs(p->foff), fc = p->fch1 - c * bw;
    const int nsub = p->smear && dm > 0 ? XC_SYNTH_NSUB : 1;
    const double lo = (double)ck->first, hi = (double)(ck->first + ck->n) - 1;
    for (int k = 0; k < nsub; k++) {
        double d, s;
        if (nsub == 1) {
            d = xc_synth_delay(p, dm, fc);
            s = 0;
        } else {
            d = xc_synth_delay(p, dm, fc + bw * (0.5 - (double)k / nsub));
            s = xc_synth_delay(p, dm, fc + bw * (0.5 - (double)(k + 1) / nsub)) - d;
        }
        double ia = floor((tc + d - GAUSS_EXTENT * sig) / ts) - 1;
        double ib = floor((tc + d + s + GAUSS_EXTENT * sig) / ts) + 1;
        if (ib < lo || ia > hi)
            continue;
        uint64_t i0 = (uint64_t)(ia > lo ? ia : lo), i1 = (uint64_t)(ib < hi ? ib : hi);
        for (uint64_t i = i0; i <= i1; i++) {
            double f = gauss_box((double)i * ts, (double)(i + 1) * ts, tc + d, sig, s);
            if (f > 0)
                ck->x[(size_t)(i - ck->first) * (size_t)ck->nchans + (size_t)col] += (float)(amp / nsub * f / ts);
        }
    }
}

/* ---- scattering ---------------------------------------------------------------------
 * A thin screen's pulse broadening: the pulse convolved with exp(-t/tau)/tau
 * for t >= 0.  A unit step so broadened is r(u) = 1 - exp(-u/tau) for u > 0;
 * its integrals R1(u) = u - tau (1 - e^{-u/tau}) and
 * R2(u) = u^2/2 - tau u + tau^2 (1 - e^{-u/tau}) give a top hat's sample
 * integral in closed form, and R2's difference over a delay span s the
 * intra-channel smearing of a slice whose delay is linear in frequency.  A
 * Gaussian so broadened is the exponentially modified Gaussian, whose CDF is
 * Phi(u/sig) - exp(-u/tau + sig^2/2tau^2) Phi(u/sig - sig/tau); each slice is
 * taken at its mean delay.  Series near u = 0 avoid the cancellation of
 * the closed forms (their next terms are below 1e-16 relative at x < 1e-3). */
#define SCATTER_EXTENT 20.0   /* scattering times kept after a pulse: e^-20 = 2e-9 */

static double scat_r1(double u, double tau)
{
    if (u <= 0)
        return 0;
    double x = u / tau;
    if (x < 1e-3)
        return tau * x * x * (0.5 - x / 6 + x * x / 24 - x * x * x / 120);
    return u + tau * expm1(-x);
}

static double scat_r2(double u, double tau)
{
    if (u <= 0)
        return 0;
    double x = u / tau;
    if (x < 1e-3)
        return tau * tau * x * x * x * (1.0 / 6 - x / 24 + x * x / 120 - x * x * x / 720);
    return u * (0.5 * u - tau) - tau * tau * expm1(-x);
}

/* Integral up to u of a unit step broadened by tau and averaged over delays [0, s]. */
static double scat_step(double u, double tau, double s)
{
    return s > 1e-12 ? (scat_r2(u, tau) - scat_r2(u - s, tau)) / s : scat_r1(u, tau);
}

/* The EMG's CDF at u (unit area), the second term in a form that neither
 * overflows nor loses precision when sig/tau is large (Phi(-x) = phi(x)/h(x),
 * h the hazard function, and the exponents then add to -u^2/2sig^2). */
static double emg_cdf(double u, double sig, double tau)
{
    double phi = 0.5 * erfc(-u / sig / M_SQRT2), x = sig / tau - u / sig, tail;
    if (x > 0)
        tail = exp(-0.5 * u * u / (sig * sig)) / (2.5066282746310002 * gsl_sf_hazard(x));
    else
        tail = exp(-u / tau + 0.5 * sig * sig / (tau * tau)) * 0.5 * erfc(x / M_SQRT2);
    return phi - tail;
}

void xc_signal_scattered(const xc_synth_params *p, const xc_chunk *ck, int col, int c, const xc_synth_pulse *pl,
                         double amp)
{
    const double ts = ck->tsamp, bw = fabs(p->foff), fc = p->fch1 - c * bw;
    const double tau = xc_synth_pulse_tau(pl, fc), w = pl->width_ms * 1e-3;
    const int gauss = p->profile == XC_PROFILE_GAUSSIAN, nsub = p->smear && pl->dm > 0 ? XC_SYNTH_NSUB : 1;
    const double sig = w / FWHM_PER_SIGMA, ext = gauss ? GAUSS_EXTENT * sig : 0.5 * w;
    const double lo = (double)ck->first, hi = (double)(ck->first + ck->n) - 1;
    for (int k = 0; k < nsub; k++) {
        double d = xc_synth_delay(p, pl->dm, nsub == 1 ? fc : fc + bw * (0.5 - (double)k / nsub));
        double s = nsub == 1 ? 0 : xc_synth_delay(p, pl->dm, fc + bw * (0.5 - (double)(k + 1) / nsub)) - d;
        double ia = floor((pl->t_s - ext + d) / ts) - 1;
        double ib = floor((pl->t_s + ext + d + s + SCATTER_EXTENT * tau) / ts) + 1;
        if (ib < lo || ia > hi)
            continue;
        uint64_t i0 = (uint64_t)(ia > lo ? ia : lo), i1 = (uint64_t)(ib < hi ? ib : hi);
        const double x0 = pl->t_s - 0.5 * w + d, x1 = pl->t_s + 0.5 * w + d, cen = pl->t_s + d + 0.5 * s;
        for (uint64_t i = i0; i <= i1; i++) {
            double t0 = (double)i * ts, t1 = (double)(i + 1) * ts, f;
            if (gauss)
                f = sig * 2.5066282746310002 * (emg_cdf(t1 - cen, sig, tau) - emg_cdf(t0 - cen, sig, tau));
            else
                f = (scat_step(t1 - x0, tau, s) - scat_step(t0 - x0, tau, s)) -
                    (scat_step(t1 - x1, tau, s) - scat_step(t0 - x1, tau, s));
            if (f > 0)
                ck->x[(size_t)(i - ck->first) * (size_t)ck->nchans + (size_t)col] += (float)(amp / nsub * f / ts);
        }
    }
}

double xc_signal_burst_tail(const xc_synth_params *p, const xc_synth_pulse *pl)
{
    double t = fmax(xc_synth_pulse_tau(pl, p->fch1), xc_synth_pulse_tau(pl, xc_synth_lowest_freq(p)));
    return SCATTER_EXTENT * t;
}

/* One burst into channel c's column col (amp per channel before the spectral weight). */
void xc_signal_burst(const xc_synth_params *p, const xc_chunk *ck, int col, int c, const xc_synth_pulse *pl,
                     double amp)
{
    const double w = pl->width_ms * 1e-3;
    if (pl->tau_ms > 0) {
        xc_signal_scattered(p, ck, col, c, pl, amp);
    } else if (p->profile == XC_PROFILE_GAUSSIAN) {
        xc_signal_gauss(p, ck, col, c, pl->dm, pl->t_s, w / FWHM_PER_SIGMA, amp);
    } else {
        xc_chgeo g;
        xc_chgeo_set(&g, p, c, pl->dm);
        xc_signal_tophat(ck, col, &g, pl->t_s - 0.5 * w, pl->t_s + 0.5 * w, amp);
    }
}

/* ---- state ---------------------------------------------------------------------- */

xc_status xc_signal_init(xc_signal *s, const xc_synth_params *p, xc_error *err)
{
    memset(s, 0, sizeof *s);
    s->p = p;
    s->has_psr = p->psr.period_ms > 0;
    if (!s->has_psr)
        return XC_OK;
    xc_status st = xc_timing_init(&s->tm, p, err);
    if (st)
        return st;
    s->dc = p->psr.width_pct / 100.0;
    s->amp = p->psr.snrpeak / sqrt((double)p->nchans);
    s->geo = malloc((size_t)p->nchans * sizeof *s->geo);
    if (!s->geo)
        return xc_error_set(err, XC_ENOMEM, "out of memory for %d channel geometries", p->nchans);
    s->dlo = INFINITY;
    s->dhi = -INFINITY;
    for (int c = 0; c < p->nchans; c++) {
        xc_chgeo_set(&s->geo[c], p, c, p->psr.dm);
        s->dlo = fmin(s->dlo, s->geo[c].dmin);
        s->dhi = fmax(s->dhi, s->geo[c].dmin + s->geo[c].S);
    }
    s->lanes = xc_chgeo_lanes(s->geo, p->nchans);
    const int nblk = (p->nchans + 15) / 16;
    s->blk = malloc((size_t)nblk * sizeof *s->blk);
    if (!s->lanes || !s->blk)
        return xc_error_set(err, XC_ENOMEM, "out of memory for %d channel geometries", p->nchans);
    for (int cb = 0; cb < nblk; cb++) {
        double early = INFINITY, late = -INFINITY;
        for (int c = 16 * cb; c < 16 * cb + 16 && c < p->nchans; c++) {
            early = fmin(early, s->geo[c].dmin);
            late = fmax(late, s->geo[c].dmin + s->geo[c].S);
        }
        s->blk[cb][0] = early;
        s->blk[cb][1] = late;
    }
    /* A pulsar that keeps its shape takes its values from the phase table
     * (synth_phase.h: within XC_PHASE_TOL of this closed form); the pulse's
     * width in time is then its duty cycle of the constant period. */
    if (xc_phase_applies(p, &s->tm) &&
        (st = xc_phase_init(&s->ph, s->geo, p->nchans, p->tsamp, s->dc * s->tm.p0, s->amp, err)))
        return st;
    if (p->fake_phase) {
        s->shift = malloc((size_t)p->nchans * sizeof *s->shift);
        if (!s->shift)
            return xc_error_set(err, XC_ENOMEM, "out of memory for %d channel shifts", p->nchans);
        /* fake: shift[c] = dmdelay(fch1, fch1 + c*foff, DM) = k (1/fch1^2 - 1/f^2) DM */
        const double foff = xc_synth_foff(p), kdm = p->convention->kdm;
        for (int c = 0; c < p->nchans; c++) {
            double f2 = p->fch1 + ((double)c * foff);
            s->shift[c] = kdm * ((1.0 / p->fch1 / p->fch1) - (1.0 / f2 / f2)) * p->psr.dm;
        }
        /* fake widens the duty cycle by tsamp and its smearing estimate */
        double period = p->psr.period_ms * 1e-3, dc = s->dc;
        if (p->smear) {
            double tdm = 8.3e3 * p->psr.dm * foff / p->fch1 / p->fch1 / p->fch1;
            dc *= period;
            dc = sqrt(tdm * tdm + p->tsamp * p->tsamp + dc * dc);
            dc /= period;
        }
        s->fk_rising = 0.5 - dc / 2.0;
        s->fk_trailing = 0.5 + dc / 2.0;
        s->fk_period = s->tm.fake_p0;
        s->fk_time = 0.0;
        s->fk_plst = 0.0;
        float snr = (float)p->psr.snrpeak;
        snr /= sqrt((double)p->nchans);
        s->fk_amp = snr;
    }
    return XC_OK;
}

void xc_signal_free(xc_signal *s)
{
    free(s->geo);
    free(s->lanes);
    free(s->blk);
    free(s->ev);
    free(s->shift);
    xc_phase_free(&s->ph);
    memset(s, 0, sizeof *s);
}

xc_status xc_signal_pulses_between(xc_signal *s, double ta, double tb, xc_error *err)
{
    const xc_timing *tm = &s->tm;
    const int gauss = s->p->profile == XC_PROFILE_GAUSSIAN;
    /* half the phase extent of a pulse around its centre n + 0.5 */
    const double h = gauss ? GAUSS_EXTENT * s->dc / FWHM_PER_SIGMA : 0.5 * s->dc;
    double nlo = floor(xc_timing_phase(tm, ta) - 0.5 - h) - 1, nhi = ceil(xc_timing_phase(tm, tb) - 0.5 + h) + 1;
    s->nev = 0;
    if (nhi < nlo)
        return XC_OK;
    size_t need = (size_t)(nhi - nlo) + 1;
    if (need > s->evcap) {
        void *ne = realloc(s->ev, need * sizeof *s->ev);
        if (!ne)
            return xc_error_set(err, XC_ENOMEM, "out of memory for %zu pulses", need);
        s->ev = ne;
        s->evcap = need;
    }
    /* Each pulse is a function of its index alone (two or three Kepler solves
     * of a binary orbit), so threads split them: the same values at any
     * thread count.  n = nlo + k is exact (integers far below 2^53). */
    const long npl = (long)need;
    const int nthr = s->p->nthreads > 0 ? s->p->nthreads : 1;
#pragma omp parallel for num_threads(nthr) schedule(static) if (nthr > 1 && npl >= 256)
    for (long k = 0; k < npl; k++) {
        const double n = nlo + (double)k;
        /* Both edges mapped from emission to arrival: the top hat is in spin
         * phase, so its width in time carries the Doppler factor. */
        double a = xc_timing_t_of_tau(tm, xc_timing_tau_of_phase(tm, n + 0.5 - 0.5 * s->dc), NULL);
        double b = xc_timing_t_of_tau(tm, xc_timing_tau_of_phase(tm, n + 0.5 + 0.5 * s->dc), NULL);
        if (gauss) {
            double c = xc_timing_t_of_tau(tm, xc_timing_tau_of_phase(tm, n + 0.5), NULL);
            s->ev[k][0] = c;
            s->ev[k][1] = (b - a) / FWHM_PER_SIGMA;
        } else {
            s->ev[k][0] = a;
            s->ev[k][1] = b;
        }
    }
    s->nev = need;
    return XC_OK;
}

/* fake's main loop, for the signal only: its time is (i+1)*tsamp summed one
 * tsamp at a time, a sample is on when the phase (t + shift)/period lies in
 * [rising, trailing], and the period is updated only when the phase of a
 * channel falls below that of the channel before (a wrap), as in fake.c. */
static void add_fake(xc_signal *s, const xc_chunk *ck)
{
    const xc_synth_params *p = s->p;
    const xc_timing *tm = &s->tm;
    for (size_t i = 0; i < ck->n; i++) {
        s->fk_time += p->tsamp;
        const double faketime = s->fk_time;
        double newp = 0;
        int have_newp = 0;
        float *row = ck->x + i * (size_t)ck->nchans;
        for (int c = 0; c < ck->nchans; c++) {
            double pulsephase = (faketime + s->shift[c]) / s->fk_period;
            pulsephase = pulsephase - floor(pulsephase);
            if (pulsephase >= s->fk_rising && pulsephase <= s->fk_trailing)
                row[c] += s->fk_amp;
            if (s->fk_plst > pulsephase) {
                if (!have_newp) {
                    newp = xc_fake_period(tm, faketime);
                    have_newp = 1;
                }
                if (tm->pdot != 0 || tm->accn != 0 || tm->binary)
                    s->fk_period = newp;
            }
            s->fk_plst = pulsephase;
        }
    }
}

xc_status xc_signal_prepare(xc_signal *s, uint64_t first, size_t n, double ts, xc_error *err)
{
    if (!s->has_psr || s->p->fake_phase)
        return XC_OK;
    const double T0 = (double)first * ts, T1 = (double)(first + n) * ts;
    return xc_signal_pulses_between(s, T0 - s->dhi - ts, T1 - s->dlo + ts, err);
}

xc_status xc_signal_add(xc_signal *s, const xc_chunk *ck, int nthreads, xc_error *err)
{
    xc_status st = xc_signal_prepare(s, ck->first, ck->n, ck->tsamp, err);
    if (!st)
        xc_signal_apply(s, ck, nthreads);
    return st;
}

size_t xc_signal_part_rows(const xc_signal *s)
{
    /* The Gaussian pulsar tries every pulse of the range in every channel and
     * each single pulse every channel, so they go through whole chunks; the
     * pulsar's top hats find their few pulses by bisection, so small parts
     * (their rows still in cache from the noise) cost nothing extra. */
    const xc_synth_params *p = s->p;
    if (p->npulses || (s->has_psr && !p->fake_phase && p->profile == XC_PROFILE_GAUSSIAN))
        return SIZE_MAX;
    size_t rows = XC_SIGNAL_PART_VALUES / (size_t)p->nchans;
    return rows ? rows : 1;
}

/* The prepared pulses [*a, *b) that may reach 16-channel block cb in spectra
 * [T0, T1) (times): in time order, those that end before it skipped by
 * bisection, up to the first that starts after it. */
static void block_pulses(const xc_signal *s, int cb, double T0, double T1, double ts, long *a, long *b)
{
    const double early = s->blk[cb][0], late = s->blk[cb][1], lo = T0 - ts - late;
    const long nev = (long)s->nev;
    long x = 0, y = nev;
    while (x < y) {
        long m = (x + y) / 2;
        if (s->ev[m][1] < lo)
            x = m + 1;
        else
            y = m;
    }
    for (y = x; y < nev && s->ev[y][0] + early <= T1 + ts; y++)
        ;
    *a = x;
    *b = y;
}

int xc_signal_levels8_applies(const xc_signal *s)
{
    const xc_synth_params *p = s->p;
    if (!s->has_psr || p->npulses || !xc_phase_levels8_available(&s->ph))
        return 0;
    /* Starts (K + 1) samples apart put consecutive pulses' samples in a
     * channel apart: floor((ta + dmin)/ts) grows by at least K, and a pulse
     * reaches K samples from there (the roundings of the quotient are some
     * 1e-11 samples). */
    const double gap = (double)(s->ph.K + 1) * p->tsamp;
    for (size_t j = 1; j < s->nev; j++)
        if (!(s->ev[j][0] - s->ev[j - 1][0] >= gap))
            return 0;
    return 1;
}

void xc_signal_levels8(const xc_signal *s, uint64_t seed, uint64_t first, size_t n, uint8_t *out)
{
    const xc_synth_params *p = s->p;
    const double ts = p->tsamp, T0 = (double)first * ts, T1 = (double)(first + n) * ts;
    for (int cb = 0; 16 * cb < p->nchans; cb++) {
        const int c0 = 16 * cb, c1 = c0 + 16 < p->nchans ? c0 + 16 : p->nchans;
        long a, b;
        block_pulses(s, cb, T0, T1, ts, &a, &b);
        xc_phase_levels8(&s->ph, seed, first, n, p->nchans, ts, c0, c1, s->geo, s->ev + a, (size_t)(b - a), out);
    }
}

/* Every pulse is a function of its index alone and every sample's value of the
 * pulse and the sample's index (xc_signal_tophat), so a part of the prepared
 * range gets the same values it would get on its own; pulses that miss the
 * part add nothing. */
void xc_signal_apply(xc_signal *s, const xc_chunk *ck, int nthreads)
{
    const xc_synth_params *p = s->p;
    const double ts = ck->tsamp, T0 = (double)ck->first * ts, T1 = (double)(ck->first + ck->n) * ts;
    const int gauss = p->profile == XC_PROFILE_GAUSSIAN;
    if (s->has_psr && p->fake_phase) {
        add_fake(s, ck);
    } else if (s->has_psr) {
        const double amp = s->amp;
        const long nev = (long)s->nev;
        /* Channels are independent, so threads split them, in blocks of 16
         * (a cache line of floats): each pulse is added to the 16 neighbours
         * in turn while their rows are in cache.  The additions into one value
         * come in pulse order whatever the split. */
        const int nblk = (p->nchans + 15) / 16;
#pragma omp parallel for num_threads(nthreads) schedule(dynamic, 1) if (nthreads > 1)
        for (int cb = 0; cb < nblk; cb++) {
            const int c0 = 16 * cb, c1 = c0 + 16 < p->nchans ? c0 + 16 : p->nchans;
            if (gauss) {
                for (int c = c0; c < c1; c++)
                    for (long j = 0; j < nev; j++)
                        xc_signal_gauss(p, ck, c, c, p->psr.dm, s->ev[j][0], s->ev[j][1], amp);
                continue;
            }
            long a, b;
            block_pulses(s, cb, T0, T1, ts, &a, &b);
            if (s->ph.tab) {
                for (long j = a; j < b; j++)
                    xc_phase_add(&s->ph, ck, c0, c1, s->geo, s->ev[j][0]);
                continue;
            }
            for (long j = a; j < b; j++)
                for (int c = c0; c < c1; c += 8)
                    xc_signal_tophat8(ck, c, c1 - c < 8 ? c1 - c : 8, s->geo, s->lanes, s->ev[j][0], s->ev[j][1],
                                      amp);
        }
    }
    for (size_t j = 0; j < p->npulses; j++) {
        const xc_synth_pulse *pl = &p->pulses[j];
        const double w = pl->width_ms * 1e-3;
        const double ext = gauss ? GAUSS_EXTENT * w / FWHM_PER_SIGMA : 0.5 * w;
        /* Most pulses miss most chunks: skip them before touching channels.
         * The band's delays run from its top edge (a little above fch1,
         * negative) to its bottom edge. */
        const double dlo = xc_synth_delay(p, pl->dm, p->fch1 + 0.5 * fabs(p->foff));
        const double dhi = xc_synth_delay(p, pl->dm, xc_synth_lowest_freq(p));
        const int burst = xc_synth_pulse_is_burst(pl);
        const double tail = burst ? xc_signal_burst_tail(p, pl) : 0.0;
        if (pl->t_s + ext + dhi + tail < T0 - 2 * ts || pl->t_s - ext + dlo > T1 + 2 * ts)
            continue;
        if (burst) {
            const double amp = xc_synth_pulse_snr(p, pl) / sqrt((double)p->nchans);
            const double mean = xc_synth_pulse_spectral_mean(p, pl);
#pragma omp parallel for num_threads(nthreads) schedule(dynamic, 4) if (nthreads > 1)
            for (int c = 0; c < p->nchans; c++)
                xc_signal_burst(p, ck, c, c, pl, amp * xc_synth_pulse_spectral_weight(p, pl, c, mean));
            continue;
        }
        const double amp = pl->snr / sqrt((double)p->nchans);
#pragma omp parallel for num_threads(nthreads) schedule(dynamic, 4) if (nthreads > 1)
        for (int c = 0; c < p->nchans; c++) {
            if (gauss) {
                xc_signal_gauss(p, ck, c, c, pl->dm, pl->t_s, w / FWHM_PER_SIGMA, amp);
            } else {
                xc_chgeo g;
                xc_chgeo_set(&g, p, c, pl->dm);
                xc_signal_tophat(ck, c, &g, pl->t_s - 0.5 * w, pl->t_s + 0.5 * w, amp);
            }
        }
    }
}
