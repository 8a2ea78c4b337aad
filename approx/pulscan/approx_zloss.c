/* Detections lost on a synthetic set of accelerated pulsars under the
 * approximations of xc_approx_mode (xc_approx_zloss.h): the design of the set,
 * and each pulsar synthesized, transformed and searched in memory. */
#include "approx/pulscan/xc_approx_zloss.h"
#include "core/base/xc_first_error.h"

#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_rng.h>

#include "approx/pulscan/xc_approx_norm.h"
#include "core/search/stats/xc_signif.h"

const char *xc_approx_mode_key(xc_approx_mode m)
{
    static const char *k[XC_APPROX_NMODES] = {"a", "b", "c", "d", "e", "f", "g"};
    return (unsigned)m < XC_APPROX_NMODES ? k[m] : "?";
}

const char *xc_approx_mode_desc(xc_approx_mode m)
{
    static const char *d[XC_APPROX_NMODES] = {
        "exact: every z (zstep 1), local maxima, exact median, exact ln p",
        "logarithmic z (z = 0, 1, 2, 4, ...)",
        "R-block: one peak per block and width",
        "logarithmic z + R-block",
        "median-of-medians normalisation",
        "ln p from the appendix polynomial",
        "GPU: logarithmic z + R-block + median of medians + polynomial",
    };
    return (unsigned)m < XC_APPROX_NMODES ? d[m] : "?";
}

void xc_zloss_opts_init(xc_zloss_opts *o)
{
    memset(o, 0, sizeof *o);
    o->nchans = 64;
    o->nbits = 8;
    o->tsamp = 128e-6;
    o->tobs = 262144 * 128e-6;
    o->width_pct = 5.0;
    o->zmax = 200;
    o->numharm = 1;
    o->normwidth = XC_APPROX_GPU_BLOCK;
    o->sigma_det = 6.0;
    o->ftol = 0.01;
    o->threads = 0;
}

void xc_zloss_mode_opts(const xc_zloss_opts *zo, xc_approx_mode m, xc_psopts *o)
{
    xc_psopts_default(o);
    o->zmax = zo->zmax;
    o->numharm = zo->numharm;
    o->zstep = 1;
    o->normwidth = zo->normwidth;
    o->sigma = 0;     /* every candidate with a trials-corrected p < 1/2: the sigma of a miss is measured too */
    o->threads = zo->threads;
    o->zlog = m == XC_APPROX_ZLOG || m == XC_APPROX_ZLOG_RBLOCK || m == XC_APPROX_GPU;
    o->rblock = m == XC_APPROX_RBLOCK || m == XC_APPROX_ZLOG_RBLOCK || m == XC_APPROX_GPU;
    o->norm = (m == XC_APPROX_MOM || m == XC_APPROX_GPU) ? XC_NORM_MOM : XC_NORM_EXACT;
    o->logp = (m == XC_APPROX_POLY || m == XC_APPROX_GPU) ? XC_LOGP_POLY : XC_LOGP_EXACT;
}

static size_t zl_nsamp(const xc_zloss_opts *o) { return (size_t)llround(o->tobs / o->tsamp); }

double xc_zloss_snrpeak(const xc_zloss_opts *o, double z, double target_sigma)
{
    size_t N = zl_nsamp(o);
    if (N < 4 || !(target_sigma > 0) || !(o->width_pct > 0))
        return NAN;
    double dof = 2.0 * (floor(fabs(z) + 0.5) + 1), ntr = xc_pulscan_ntrials(N / 2, 1, o->zmax);
    double lo = 0, hi = 1;
    while (xc_candidate_sigma(dof + hi, dof, ntr, NULL) < target_sigma) {
        hi *= 2;
        if (hi > 1e12)
            return NAN;
    }
    for (int it = 0; it < 200 && hi - lo > 1e-9 * hi; it++) {
        double mid = 0.5 * (lo + hi);
        if (xc_candidate_sigma(dof + mid, dof, ntr, NULL) < target_sigma)
            lo = mid;
        else
            hi = mid;
    }
    return xc_zloss_snrpeak_for_power(o, hi);
}

double xc_zloss_snrpeak_for_power(const xc_zloss_opts *o, double P)
{
    size_t N = zl_nsamp(o);
    if (N < 4 || !(P >= 0) || !(o->width_pct > 0))
        return NAN;
    double mean, rms, gain, d = o->width_pct / 100.0;
    xc_synth_level_stats(o->nbits, &mean, &rms, &gain);
    /* P = 2 N c1^2, c1 = a sin(pi d)/pi: the fundamental of a top hat of height a */
    double c1 = sqrt(P / (2.0 * (double)N));
    return c1 * M_PI / sin(M_PI * d) / (gain / rms);
}

double xc_zloss_bright_f(const xc_zloss_opts *o)
{
    return o->bright_f_hz > 0 ? o->bright_f_hz : 0.95 * 32768.0 / ((double)zl_nsamp(o) * o->tsamp);
}

xc_status xc_zloss_draw(const xc_zloss_opts *o, uint64_t seed, size_t npsr, double f_lo, double f_hi, double s_lo,
                        double s_hi, xc_zloss_spec *out, xc_error *err)
{
    if (!(f_lo > 0) || !(f_hi >= f_lo) || !(s_lo > 0) || !(s_hi >= s_lo) || o->zmax < 0)
        return xc_error_set(err, XC_EINVAL, "synthetic set: f %g..%g Hz, sigma %g..%g, zmax %d (need 0 < lo <= hi)",
                            f_lo, f_hi, s_lo, s_hi, o->zmax);
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    if (!r)
        return xc_error_set(err, XC_ENOMEM, "synthetic set: out of memory");
    gsl_rng_set(r, (unsigned long)seed);
    for (size_t k = 0; k < npsr; k++) {
        xc_zloss_spec *s = &out[k];
        s->f_hz = f_lo + (f_hi - f_lo) * gsl_rng_uniform(r);
        double az = o->zmax * gsl_rng_uniform(r);
        s->z = gsl_rng_uniform(r) < 0.5 ? -az : az;
        s->target_sigma = s_lo + (s_hi - s_lo) * gsl_rng_uniform(r);
        s->snrpeak = xc_zloss_snrpeak(o, s->z, s->target_sigma);
        s->seed = ((uint64_t)gsl_rng_get(r) << 32) ^ gsl_rng_get(r);
    }
    gsl_rng_free(r);
    return XC_OK;
}

void xc_zloss_result_free(xc_zloss_result *res)
{
    free(res->psr);
    memset(res, 0, sizeof *res);
}

/* The observation of pulsar s: a filterbank at DM 0 whose pulsar drifts by
 * s->z bins over it. */
static void psr_params(const xc_zloss_opts *o, const xc_zloss_spec *s, xc_synth_params *p)
{
    xc_synth_params_init(p);
    p->nchans = o->nchans;
    p->nbits = o->nbits;
    p->tsamp = o->tsamp;
    p->tobs = o->tobs;
    p->fch1 = 1500.0;
    p->foff = -4.0;
    p->seed = s->seed;
    p->nthreads = o->threads;
    p->psr.period_ms = 1e3 / s->f_hz;
    p->psr.width_pct = o->width_pct;
    p->psr.snrpeak = s->snrpeak;
    p->psr.dm = 0;
    /* fdot = -f a / c and z = fdot T^2 */
    double T = (double)zl_nsamp(o) * o->tsamp;
    p->psr.accn = -s->z * XC_SYNTH_C / (s->f_hz * T * T);
}

/* The bright pulsar's contribution to every pulsar's series: y times scale. */
typedef struct {
    float *y;
    size_t n;
    double scale;
} bright_series;

/* Draws the bright pulsar noiseless as float32 samples (noise sigmas per
 * channel, unquantised) in the observation every pulsar shares, once per run:
 * its channel sum is scaled by the quantiser's gain to the levels the noisy
 * series hold, and from the float32 output scale to theirs (the conventions
 * scale linearly). */
static xc_status bright_init(const xc_zloss_opts *o, bright_series *b, xc_error *err)
{
    xc_zloss_spec s = {.f_hz = xc_zloss_bright_f(o), .snrpeak = xc_zloss_snrpeak_for_power(o, o->bright_power)};
    xc_synth_params p;
    psr_params(o, &s, &p);
    p.noise = 0;
    p.nbits = 32;
    p.psr.accn = 0;
    xc_status st = xc_approx_synth_dm0(&p, &b->y, &b->n, err);
    double mean, rms, gain;
    xc_synth_level_stats(o->nbits, &mean, &rms, &gain);
    b->scale = gain * (double)xc_scale_real(p.convention, 1.0, o->nchans, 1, o->nbits) /
               (double)xc_scale_real(p.convention, 1.0, o->nchans, 1, 32);
    xc_synth_params_free(&p);
    return st;
}

/* Pulsar s's spectrum and truth, made in memory (bright: NULL, or the bright
 * pulsar to add). */
static xc_status observe(const xc_zloss_opts *o, const bright_series *bright, const xc_zloss_spec *s,
                         xc_spectrum *sp, xc_truth *t, xc_error *err)
{
    xc_synth_params p;
    psr_params(o, s, &p);
    float *x = NULL;
    size_t nx = 0;
    xc_status st = xc_approx_synth_dm0(&p, &x, &nx, err);
    if (!st && bright && bright->n != nx)
        st = xc_error_set(err, XC_EMISMATCH, "bright pulsar: %zu samples, the pulsar's series %zu", bright->n, nx);
    if (!st && bright)
        for (size_t k = 0; k < nx; k++)
            x[k] += (float)(bright->scale * bright->y[k]);
    if (!st)
        st = xc_approx_synth_truth(&p, t, err);
    if (!st)
        st = xc_approx_spectrum(x, nx, p.tsamp, sp, err);
    free(x);
    xc_synth_params_free(&p);
    return st;
}

/* One pulsar: observe, search under every mode, match. */
static xc_status zloss_one(const xc_zloss_opts *o, const xc_searcher *searcher, const bright_series *bright,
                           const xc_zloss_spec *s, size_t idx, xc_zloss_psr *out, xc_error *err)
{
    memset(out, 0, sizeof *out);
    out->spec = *s;
    if (!(s->snrpeak > 0) || !(s->f_hz > 0))
        return xc_error_set(err, XC_EINVAL, "pulsar %zu: f %g Hz, snrpeak %g: both must be > 0", idx, s->f_hz,
                            s->snrpeak);
    xc_spectrum sp;
    xc_truth t;
    xc_status st = observe(o, bright, s, &sp, &t, err);
    if (st) {
        char m[sizeof err->msg];
        snprintf(m, sizeof m, "%s", err->msg);
        return xc_error_set(err, st, "pulsar %zu (f %.6g Hz, z %.4g): %s", idx, s->f_hz, s->z, m);
    }
    /* the window follows the mean apparent frequency: a drift of z bins moves
     * the rest-frame f0 by z/(2r) from it, which the 1 % window must not judge */
    t.f0_hz = t.r / t.T;
    out->r_true = t.r;
    out->z_true = t.z;
    xc_cmpcands_opts co;
    xc_cmpcands_opts_init(&co);
    co.truth_sigma = 0;
    co.ftol = o->ftol;
    xc_candlist l;
    xc_candlist_init(&l);
    for (int m = 0; m < XC_APPROX_NMODES && !st; m++) {
        xc_psopts so;
        xc_zloss_mode_opts(o, (xc_approx_mode)m, &so);
        xc_truthmatch tm;
        if ((st = xc_pulscan_run(searcher, &sp, &so, &l, err)) || (st = xc_cands_match_truth(&l, &t, &co, &tm, err))) {
            char msg[sizeof err->msg];
            snprintf(msg, sizeof msg, "%s", err->msg);
            st = xc_error_set(err, st, "pulsar %zu, mode %s: %s", idx, xc_approx_mode_key((xc_approx_mode)m), msg);
            break;
        }
        out->sigma[m] = tm.fund.found ? tm.fund.sigma : 0.0;
        out->r[m] = tm.fund.found ? tm.fund.r : NAN;
        out->z[m] = tm.fund.found ? tm.fund.z : NAN;
        out->det[m] = tm.fund.found && tm.fund.sigma > o->sigma_det;
        out->harm[m] = (tm.harm.found && tm.harm.sigma > o->sigma_det) || (tm.sub.found && tm.sub.sigma > o->sigma_det);
        xc_candlist_free(&l);
        xc_candlist_init(&l);
    }
    xc_candlist_free(&l);
    xc_spectrum_free(&sp);
    return st;
}

/* The counts, losses and detection fractions of res->psr against mode (a). */
static void summarise(const xc_zloss_opts *o, xc_zloss_result *res)
{
    const size_t n = res->npsr;
    for (int b = 0; b <= XC_APPROX_NZBIN; b++)
        res->zedge[b] = (double)o->zmax * b / XC_APPROX_NZBIN;
    size_t zdet[XC_APPROX_NMODES][XC_APPROX_NZBIN] = {{0}};
    for (int m = 0; m < XC_APPROX_NMODES; m++) {
        double loss = 0, lossb = 0, adr = 0, adz = 0;
        size_t na = 0, nb = 0;
        for (size_t k = 0; k < n; k++) {
            const xc_zloss_psr *q = &res->psr[k];
            int a = q->det[XC_APPROX_EXACT], d = q->det[m];
            res->ndet[m] += (size_t)d;
            res->nlost[m] += (size_t)(a && !d);
            res->ngained[m] += (size_t)(d && !a);
            res->nharm[m] += (size_t)q->harm[m];
            if (a) {
                loss += q->sigma[XC_APPROX_EXACT] - q->sigma[m];
                na++;
            }
            if (a && d) {
                lossb += q->sigma[XC_APPROX_EXACT] - q->sigma[m];
                nb++;
            }
            if (d) {
                adr += fabs(q->r[m] - q->r_true);
                adz += fabs(fabs(q->z[m]) - fabs(q->z_true));
            }
            int zb = (int)(fabs(q->z_true) / ((double)o->zmax / XC_APPROX_NZBIN));
            zb = zb < 0 ? 0 : zb >= XC_APPROX_NZBIN ? XC_APPROX_NZBIN - 1 : zb;
            if (m == 0)
                res->zcount[zb]++;
            zdet[m][zb] += (size_t)d;
        }
        res->frac[m] = (double)res->ndet[m] / (double)n;
        res->sigma_loss[m] = na ? loss / (double)na : NAN;
        res->sigma_loss_both[m] = nb ? lossb / (double)nb : NAN;
        res->mean_abs_dr[m] = res->ndet[m] ? adr / (double)res->ndet[m] : NAN;
        res->mean_abs_dz[m] = res->ndet[m] ? adz / (double)res->ndet[m] : NAN;
    }
    for (int m = 0; m < XC_APPROX_NMODES; m++)
        for (int b = 0; b < XC_APPROX_NZBIN; b++)
            res->zfrac[m][b] = res->zcount[b] ? (double)zdet[m][b] / (double)res->zcount[b] : NAN;
}

xc_status xc_zloss_run(const xc_zloss_opts *o, const xc_searcher *searcher, const xc_zloss_spec *specs, size_t n,
                       xc_zloss_result *res, xc_error *err)
{
    memset(res, 0, sizeof *res);
    if (!searcher)
        return xc_error_set(err, XC_EINVAL, "synthetic set: no searcher given");
    if (!n || o->zmax < 1 || !(o->sigma_det >= 0) || !(o->ftol > 0))
        return xc_error_set(err, XC_EINVAL, "synthetic set: %zu pulsars, zmax %d, sigma %g, ftol %g (need >= 1 "
                            "pulsar, zmax >= 1, sigma >= 0, ftol > 0)", n, o->zmax, o->sigma_det, o->ftol);
    if (zl_nsamp(o) % 2)
        return xc_error_set(err, XC_EINVAL, "synthetic set: tobs/tsamp = %zu samples must be even (the FFT)",
                            zl_nsamp(o));
    bright_series bright = {NULL, 0, 0};
    xc_status st = o->bright_power > 0 ? bright_init(o, &bright, err) : XC_OK;
    if (st)
        return st;
    res->psr = calloc(n, sizeof *res->psr);
    if (!res->psr) {
        free(bright.y);
        return xc_error_set(err, XC_ENOMEM, "synthetic set: out of memory for %zu pulsars", n);
    }
    res->npsr = n;
    /* one thread per pulsar (the synthesis and the searches of one pulsar are
     * too small to share), pulsars in parallel */
    xc_zloss_opts o1 = *o;
    o1.threads = 1;
    long bad = -1;
#pragma omp parallel for num_threads(o->threads > 0 ? o->threads : omp_get_max_threads()) schedule(dynamic, 1)
    for (long k = 0; k < (long)n; k++) {
        xc_error e;
        xc_status sk = zloss_one(&o1, searcher, bright.y ? &bright : NULL, &specs[k], (size_t)k, &res->psr[k], &e);
        xc_keep_first_error(k, sk, &e, &bad, &st, err);
    }
    free(bright.y);
    if (st) {
        xc_zloss_result_free(res);
        return st;
    }
    summarise(o, res);
    return XC_OK;
}
