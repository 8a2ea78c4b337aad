/* The Pulscan search conformance cases (xc_conform.h).  Every run goes
 * through the pipeline core drives (xc_pulscan_run, xc_pulscan_powers,
 * xc_pulscan_peaks), so the implementation's stages are judged where users
 * meet them.  Cases, one or more rows each:
 *   cands/config<k>      the candidate list of every configuration, against
 *                        the reference's, in order;
 *   powers/config<k>     the normalised powers of every configuration;
 *   raw-peaks/config<k>  the raw peaks (steps 1-5), one for one;
 *   noise-stats/         the powers of white noise against chi-square with 2
 *                        dof: mean, Kolmogorov-Smirnov, Pearson;
 *   raw-peaks/noise-sigma0-*  pure noise searched at sigma 0 with every
 *                        z and 8 harmonic stages, thousands of boxcars just
 *                        above their thresholds: the reference's raw peaks one
 *                        for one, so a screen that drops a borderline boxcar
 *                        fails;
 *   cands/noise-sigma0   the candidates of some of those spectra.
 * Class exact: everything bit for bit.  Class relative v: the same
 * candidates and peaks (r, width, stage, start), power, sigma and ln p within
 * v relative; the powers within v relative. */
#include "compare/conform/xc_conform.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>

#include "compare/xc_stats.h"

typedef struct {
    const xc_searcher *impl, *ref;
    const xc_conform_opts *o;
    xc_conform_report *rep;
    double rtol;       /* 0 for class exact */
    char tol[192];     /* the class in words */
    xc_error *err;
    xc_status st;      /* the first library error: every case stops */
} ctx;

static void add(ctx *c, int pass, const char *name, const char *obs, const char *exp, const char *tol)
{
    if (!c->st)
        c->st = xc_conform_report_add(c->rep, pass, name, obs, exp, tol, c->err);
}

static void add_error(ctx *c, const char *name, const char *who, const xc_error *e)
{
    char obs[256];
    snprintf(obs, sizeof obs, "%s failed: %.200s", who, e->msg);
    add(c, 0, name, obs, "a result", "the case is valid input");
}

/* |a - b| <= rtol |b| (rtol 0: equal; a NaN never passes). */
static int close_rel(double a, double b, double rtol) { return rtol ? fabs(a - b) <= rtol * fabs(b) : a == b; }

/* A spectrum of complex Gaussian noise, per part N(off, scale^2) rounded to
 * float32 (the normalisation must remove offset and scale), T = 50 s; with
 * tones: a narrow one, a drifting one (a ramp of 15 bins), a harmonic pair
 * and three more, so that every stage and width has peaks. */
static xc_status spectrum(xc_spectrum *sp, size_t nbins, uint64_t seed, int tones, double off, double scale,
                          xc_error *err)
{
    memset(sp, 0, sizeof *sp);
    if (!(sp->data = malloc(2 * nbins * sizeof *sp->data)))
        return xc_error_set(err, XC_ENOMEM, "conformance: out of memory for a spectrum of %zu bins", nbins);
    sp->nbins = nbins;
    sp->T = 50.0;
    sp->dt = sp->T / (2.0 * (double)nbins);
    sp->owned = 1;
    uint64_t s = seed * 0x9E3779B97F4A7C15ull + 5;
    for (size_t k = 0; k < 2 * nbins; k++)
        sp->data[k] = (float)(off + scale * xc_conform_rng_gauss(&s));
    if (tones && nbins >= 64) {
        size_t n = nbins;
        sp->data[2 * (n / 3)] += 60.0f;
        for (size_t k = n / 2; k < n / 2 + 15; k++)
            sp->data[2 * k + 1] += 22.0f;
        sp->data[2 * (n / 7)] += 40.0f;
        sp->data[2 * (2 * (n / 7))] -= 35.0f;
        sp->data[2 * (size_t)(0.23 * (double)n) + 1] += 45.0f;
        sp->data[2 * (size_t)(0.61 * (double)n)] += 30.0f;
        sp->data[2 * (size_t)(0.87 * (double)n) + 1] -= 50.0f;
    }
    return XC_OK;
}

static xc_psopts opts_of(const ctx *c, const xc_psopts *o)
{
    xc_psopts r = *o;
    if (c->o->threads)
        r.threads = c->o->threads;
    return r;
}

/* ---- candidates ----------------------------------------------------------- */

static void cands_case(ctx *c, const char *name, const xc_spectrum *sp, const xc_psopts *o)
{
    xc_candlist a, b;
    xc_error e;
    xc_candlist_init(&a);
    xc_candlist_init(&b);
    if (xc_pulscan_run(c->ref, sp, o, &a, &e)) {
        add_error(c, name, "reference", &e);
    } else if (xc_pulscan_run(c->impl, sp, o, &b, &e)) {
        add_error(c, name, c->impl->impl.name, &e);
    } else {
        char obs[256], exp[256];
        size_t k = 0;
        for (; k < a.n && k < b.n; k++) {
            const xc_cand *x = &b.c[k], *y = &a.c[k];
            if (!(x->r == y->r && x->width == y->width && x->numharm == y->numharm &&
                  close_rel(x->power, y->power, c->rtol) && close_rel(x->sigma, y->sigma, c->rtol) &&
                  close_rel(x->logp, y->logp, c->rtol)))
                break;
        }
        int ok = a.n == b.n && k == a.n;
        snprintf(exp, sizeof exp, "%zu candidates as the reference's", a.n);
        if (ok)
            snprintf(obs, sizeof obs, "%zu candidates, the same", b.n);
        else if (k < a.n && k < b.n)
            snprintf(obs, sizeof obs,
                     "%zu candidates; #%zu differs: r %.1f/%.1f w %d/%d h %d/%d power %.17g/%.17g sigma %.17g/%.17g",
                     b.n, k, b.c[k].r, a.c[k].r, b.c[k].width, a.c[k].width, b.c[k].numharm, a.c[k].numharm,
                     b.c[k].power, a.c[k].power, b.c[k].sigma, a.c[k].sigma);
        else
            snprintf(obs, sizeof obs, "%zu candidates; the first %zu agree, then %s r %.1f w %d h %d sigma %.6g", b.n,
                     k, k < a.n ? "missing" : "extra", k < a.n ? a.c[k].r : b.c[k].r,
                     k < a.n ? a.c[k].width : b.c[k].width, k < a.n ? a.c[k].numharm : b.c[k].numharm,
                     k < a.n ? a.c[k].sigma : b.c[k].sigma);
        add(c, ok, name, obs, exp, c->tol);
    }
    xc_candlist_free(&a);
    xc_candlist_free(&b);
}

/* ---- powers ------------------------------------------------------------------ */

static void powers_case(ctx *c, const char *name, const xc_spectrum *sp, const xc_psopts *o)
{
    double *a = malloc(sp->nbins * sizeof *a), *b = malloc(sp->nbins * sizeof *b);
    xc_error e;
    if (!a || !b) {
        c->st = xc_error_set(c->err, XC_ENOMEM, "conformance: out of memory for %zu powers", sp->nbins);
    } else if (xc_pulscan_powers(c->ref, sp, o, a, &e)) {
        add_error(c, name, "reference", &e);
    } else if (xc_pulscan_powers(c->impl, sp, o, b, &e)) {
        add_error(c, name, c->impl->impl.name, &e);
    } else {
        size_t bad = 0, first = 0;
        double worst = 0;
        for (size_t k = 0; k < sp->nbins; k++) {
            if (!close_rel(b[k], a[k], c->rtol) && !bad++)
                first = k;
            if (a[k] != 0)
                worst = fmax(worst, isfinite(b[k]) ? fabs(b[k] - a[k]) / fabs(a[k]) : INFINITY);
        }
        char obs[256], exp[256];
        if (bad)
            snprintf(obs, sizeof obs, "%zu of %zu powers off; first bin %zu: %.17g, reference %.17g", bad, sp->nbins,
                     first, b[first], a[first]);
        else
            snprintf(obs, sizeof obs, "%zu powers within; largest relative difference %.3g", sp->nbins, worst);
        snprintf(exp, sizeof exp, "P[0..%zu] as the reference's", sp->nbins - 1);
        add(c, !bad, name, obs, exp, c->tol);
    }
    free(a);
    free(b);
}

/* White noise (offset 3, scale 40) normalised by the implementation:
 * P = re'^2 + im'^2 is chi-square with 2 dof (mean 1 per dof).  Three checks
 * at false-alarm rate alpha each, on 32768 powers in 4 blocks of 8192:
 *  - the mean within z_{alpha/2} standard errors of 2, the error being the
 *    sample's own (2/sqrt(n)) and the normalisation's: 1.4826 MAD estimates
 *    sigma with relative sd 1.1664/sqrt(m) per block of m values (the MAD's
 *    Gaussian efficiency of 37%, Rousseeuw & Croux 1993, JASA 88:1273), and a
 *    scale off by e moves a part's mean power by -2e, so the mean moves with
 *    sd 2 sqrt(2/nblocks) 1.1664/sqrt(m);
 *  - Kolmogorov-Smirnov against chi-square(2), p-value (Stephens 1970) >
 *    alpha: the scale is estimated from the same data, which tends to make
 *    the test conservative (Lilliefors 1967, JASA 62:399);
 *  - Pearson's chi-square over 20 equiprobable cells, p-value > alpha.
 * The data are fixed by the seed, so a verdict is reproducible; alpha is the
 * chance that a correct implementation fails on a new seed. */
static void noise_stats(ctx *c)
{
    const size_t nbins = 32769, m = 8192, n = nbins - 1;
    xc_spectrum sp;
    xc_psopts o;
    xc_psopts_default(&o);
    o.normwidth = m;
    o = opts_of(c, &o);
    c->st = spectrum(&sp, nbins, c->o->seed + 700, 0, 3.0, 40.0, c->err);
    double *P = c->st ? NULL : malloc(nbins * sizeof *P);
    xc_error e;
    if (!c->st && !P)
        c->st = xc_error_set(c->err, XC_ENOMEM, "conformance: out of memory for %zu powers", nbins);
    int ran = !c->st && !xc_pulscan_powers(c->impl, &sp, &o, P, &e);
    if (!c->st && !ran)
        add_error(c, "noise-stats", c->impl->impl.name, &e);
    if (ran) {
        double mean = 0, alpha = c->o->alpha;
        for (size_t k = 1; k < nbins; k++)
            mean += P[k];
        mean /= (double)n;
        double nb = (double)xc_pulscan_nblocks(nbins, m), z = gsl_cdf_ugaussian_Qinv(alpha / 2);
        double se = hypot(2 / sqrt((double)n), 2 * sqrt(2 / nb) * 1.1664 / sqrt((double)m));
        char obs[256], exp[256], tol[192];
        snprintf(obs, sizeof obs, "mean power %.5f", mean);
        snprintf(exp, sizeof exp, "2 (chi-square, 2 dof) within %.4f", z * se);
        snprintf(tol, sizeof tol, "z_{alpha/2} = %.3g standard errors (%.4f: sample and MAD scale), alpha %g", z, se,
                 alpha);
        add(c, fabs(mean - 2) <= z * se, "noise-stats/mean", obs, exp, tol);
        xc_gof ks, gof;
        xc_error se_err;
        /* sorts in place: the last use of the order */
        if (xc_ks_chi2(P + 1, n, 2, &ks, &se_err) || xc_pearson_chi2(P + 1, n, 2, 20, &gof, &se_err)) {
            add(c, 0, "noise-stats/ks", se_err.msg, "a KS and a Pearson test", "-");
            free(P);
            xc_spectrum_free(&sp);
            return;
        }
        double p = ks.p;
        snprintf(obs, sizeof obs, "KS distance %.5f, p-value %.3g", ks.stat, p);
        snprintf(exp, sizeof exp, "p-value > %g", alpha);
        snprintf(tol, sizeof tol, "false-alarm rate %g (scale estimated from the data: conservative, Lilliefors 1967)",
                 alpha);
        add(c, p > alpha, "noise-stats/ks", obs, exp, tol);
        p = gof.p;
        snprintf(obs, sizeof obs, "Pearson statistic %.2f (19 dof), p-value %.3g", gof.stat, p);
        snprintf(tol, sizeof tol, "false-alarm rate %g, 20 equiprobable cells of chi-square(2)", alpha);
        add(c, p > alpha, "noise-stats/gof", obs, exp, tol);
    }
    free(P);
    xc_spectrum_free(&sp);
}

/* ---- raw peaks ------------------------------------------------------------- */

typedef struct {
    size_t nref, nimpl, missing, extra, off, border;
    char first[200];   /* the first difference */
} peakcmp;

/* Compares one spectrum's raw peaks (a the reference's, b the
 * implementation's), one for one in (stage, width, start). */
static void peaks_compare(const ctx *c, xc_pspeaks *a, xc_pspeaks *b, const double *thr, int zmax, size_t spec,
                          peakcmp *pc)
{
    qsort(a->p, a->n, sizeof *a->p, xc_pspeak_cmp);
    qsort(b->p, b->n, sizeof *b->p, xc_pspeak_cmp);
    pc->nref += a->n;
    pc->nimpl += b->n;
    size_t stride = (size_t)zmax + 2;
    for (size_t i = 0; i < a->n; i++)
        pc->border += a->p[i].power <= thr[(size_t)(a->p[i].numharm - 1) * stride + (size_t)a->p[i].width] *
                                           (1 + 0x1.0p-10);
    for (size_t i = 0, j = 0; i < a->n || j < b->n;) {
        int k = i == a->n ? 1 : j == b->n ? -1 : xc_pspeak_cmp(&a->p[i], &b->p[j]);
        const xc_pspeak *p = k <= 0 ? &a->p[i] : &b->p[j];
        const char *what = k < 0 ? "missing" : k > 0 ? "extra" : "power off";
        int bad = k != 0 || !close_rel(b->p[j].power, a->p[i].power, c->rtol);
        size_t *cnt = k < 0 ? &pc->missing : k > 0 ? &pc->extra : &pc->off;
        if (bad && !(*cnt)++ && !pc->first[0])
            snprintf(pc->first, sizeof pc->first,
                     "spectrum %zu: %s stage %d width %d start %zu power %.17g%s%.17g (threshold %.17g)", spec, what,
                     p->numharm, p->width, p->i, p->power, k ? "" : ", reference ", k ? 0.0 : a->p[i].power,
                     thr[(size_t)(p->numharm - 1) * stride + (size_t)p->width]);
        i += k <= 0;
        j += k >= 0;
    }
}

/* The raw peaks of nsp spectra of nbins (seeds seed, seed + 1, ...; tones
 * or pure noise) under o, against the reference's: one row. */
static void peaks_case(ctx *c, const char *name, size_t nsp, size_t nbins, uint64_t seed, int tones,
                       const xc_psopts *o)
{
    peakcmp pc;
    memset(&pc, 0, sizeof pc);
    xc_error e;
    for (size_t s = 0; s < nsp && !c->st; s++) {
        xc_spectrum sp;
        xc_pspeaks a, b;
        double *thr = NULL;
        xc_pspeaks_init(&a);
        xc_pspeaks_init(&b);
        int ran = 0;
        if ((c->st = spectrum(&sp, nbins, seed + s, tones, 0.3, 5.0, c->err)) ||
            (c->st = xc_pulscan_thresholds(o, nbins, &thr, c->err)))
            ran = 0;
        else if (xc_pulscan_peaks(c->ref, &sp, o, &a, &e))
            add_error(c, name, "reference", &e);
        else if (xc_pulscan_peaks(c->impl, &sp, o, &b, &e))
            add_error(c, name, c->impl->impl.name, &e);
        else
            ran = 1;
        if (ran)
            peaks_compare(c, &a, &b, thr, o->zmax, s, &pc);
        free(thr);
        xc_pspeaks_free(&a);
        xc_pspeaks_free(&b);
        xc_spectrum_free(&sp);
        if (!ran)
            return;
    }
    char obs[256], exp[256];
    int ok = !pc.missing && !pc.extra && !pc.off;
    snprintf(exp, sizeof exp, "%zu peaks (%zu within 2^-10 of their threshold) as the reference's, one for one",
             pc.nref, pc.border);
    if (ok)
        snprintf(obs, sizeof obs, "%zu peaks, the same", pc.nimpl);
    else
        snprintf(obs, sizeof obs, "%zu peaks: %zu missing, %zu extra, %zu with power off; first %s", pc.nimpl,
                 pc.missing, pc.extra, pc.off, pc.first);
    add(c, ok, name, obs, exp, c->tol);
}

/* ---- pure noise at sigma 0 ------------------------------------------------------ */

/* Pure noise at sigma 0: the threshold of a boxcar is the power whose
 * single-trial p is 0.5/ntrials.  With every z, 8 stages and short
 * normalisation blocks (64 bins: the MAD's scale error, about 15% per
 * block, lets the blocks it underestimates cross often) each 2048-bin
 * spectrum has about two thousand boxcars above their thresholds, in runs
 * along the starts and widths, a few hundredths of them within 2^-10 of it;
 * one R-block per start (chunkwidth 1) keeps every one as a raw peak, and
 * the local-maximum mode about one in ten. */
static xc_psopts noise_opts(const ctx *c)
{
    xc_psopts no;
    xc_psopts_default(&no);
    no.zmax = 30, no.numharm = 8, no.zstep = 1, no.sigma = 0, no.normwidth = 64;
    no.rblock = 1, no.chunkwidth = 1;
    return opts_of(c, &no);
}

/* The raw peaks of nsp pure-noise spectra (seeds seed...) in both peak
 * modes, against the reference's: two rows; then the normalised powers of
 * one more, whose last normalisation block takes a remainder (2000 + 47
 * bins of 64: the raw peaks are compared on the implementation's own
 * powers, so a slip in its normalisation shows only here): a third row. */
static void noise_peaks(ctx *c, size_t nsp, uint64_t seed)
{
    xc_psopts no = noise_opts(c);
    peaks_case(c, "raw-peaks/noise-sigma0-every-box", nsp, 2048, seed, 0, &no);
    no.rblock = 0;
    if (!c->st)
        peaks_case(c, "raw-peaks/noise-sigma0-local-max", nsp, 2048, seed, 0, &no);
    xc_spectrum sp;
    if (!c->st && !(c->st = spectrum(&sp, 2047, seed + nsp, 0, 0.3, 5.0, c->err))) {
        powers_case(c, "powers/noise", &sp, &no);
        xc_spectrum_free(&sp);
    }
}

/* The implementation's class and its words (ctx's rtol and tol). */
static void class_of(ctx *c)
{
    xc_tolerance t = c->impl->impl.tol;
    c->rtol = t.kind == XC_TOL_EXACT ? 0 : t.value;
    if (c->rtol)
        snprintf(c->tol, sizeof c->tol, "%s %g: same candidates/peaks, power, sigma and ln p within %g relative",
                 xc_tol_kind_name(t.kind), t.value, t.value);
    else
        snprintf(c->tol, sizeof c->tol, "%s: bit for bit", xc_tol_kind_name(t.kind));
}

static int usable(const xc_searcher *impl, const xc_searcher *ref)
{
    return impl && ref && impl->powers && impl->peaks && ref->powers && ref->peaks &&
           impl->impl.family == XC_FAMILY_PULSCAN && ref->impl.family == XC_FAMILY_PULSCAN;
}

xc_status xc_conform_searcher_noise(const xc_searcher *impl, const xc_searcher *ref, size_t nsp, uint64_t seed,
                                    xc_conform_report *rep, xc_error *err)
{
    if (!usable(impl, ref))
        return xc_error_set(err, XC_EINVAL, "conformance: two searchers with both stages are needed");
    xc_status st = xc_conform_check_pair(&impl->impl, &ref->impl, rep, err);
    if (st)
        return st;
    xc_conform_opts o;
    xc_conform_opts_default(&o);
    ctx c = {impl, ref, &o, rep, 0, "", err, XC_OK};
    class_of(&c);
    noise_peaks(&c, nsp, seed);
    return c.st;
}

/* ---- the entry point ---------------------------------------------------------- */

/* Three of the test fixtures' configurations (tests/xc_fixture.c): both peak
 * modes, every z sampling, both normalisations. */
static const xc_conform_pscfg *default_configs(xc_conform_pscfg *cf)
{
    for (int k = 0; k < 3; k++)
        xc_psopts_default(&cf[k].opts);
    cf[0].nbins = 12345;
    cf[0].opts.zmax = 37, cf[0].opts.numharm = 3, cf[0].opts.zstep = 1, cf[0].opts.chunkwidth = 1000;
    cf[0].opts.normwidth = 1500;
    cf[1].nbins = 20001;
    cf[1].opts.zmax = 41, cf[1].opts.numharm = 4, cf[1].opts.zstep = 3, cf[1].opts.rblock = 1;
    cf[1].opts.nosift = 1, cf[1].opts.chunkwidth = 777, cf[1].opts.normwidth = 2000, cf[1].opts.sigma = 0;
    cf[2].nbins = 9999;
    cf[2].opts.zmax = 33, cf[2].opts.numharm = 2, cf[2].opts.zlog = 1, cf[2].opts.chunkwidth = 4096;
    cf[2].opts.normwidth = 999, cf[2].opts.norm = XC_NORM_MOM, cf[2].opts.sigma = 1.5;
    return cf;
}

xc_status xc_conform_searcher(const xc_searcher *impl, const xc_searcher *ref, const xc_conform_opts *o,
                              xc_conform_report *rep, xc_error *err)
{
    char name[96];
    xc_conform_opts def;
    if (!o) {
        xc_conform_opts_default(&def);
        o = &def;
    }
    if (!usable(impl, ref))
        return xc_error_set(err, XC_EINVAL, "conformance: two searchers with both stages are needed");
    xc_status st = xc_conform_check_pair(&impl->impl, &ref->impl, rep, err);
    if (st)
        return st;
    ctx c = {impl, ref, o, rep, 0, "", err, XC_OK};
    class_of(&c);
    int pass;
    c.st = xc_conform_check_class(&impl->impl, rep, &pass, err);

    xc_conform_pscfg defs[3];
    const xc_conform_pscfg *cf = o->ps_configs ? o->ps_configs : default_configs(defs);
    size_t ncf = o->ps_configs ? o->n_ps_configs : 3;
    for (size_t k = 0; k < ncf && !c.st; k++) {
        xc_psopts po = opts_of(&c, &cf[k].opts);
        xc_spectrum sp;
        if ((c.st = spectrum(&sp, cf[k].nbins, o->seed + 800 + k, 1, 0.3, 5.0, err))) {
            xc_spectrum_free(&sp);
            break;
        }
        snprintf(name, sizeof name, "cands/config%zu", k);
        cands_case(&c, name, &sp, &po);
        snprintf(name, sizeof name, "powers/config%zu", k);
        if (!c.st)
            powers_case(&c, name, &sp, &po);
        xc_spectrum_free(&sp);
        snprintf(name, sizeof name, "raw-peaks/config%zu", k);
        if (!c.st)
            peaks_case(&c, name, 1, cf[k].nbins, o->seed + 800 + k, 1, &po);
    }
    if (!c.st)
        noise_stats(&c);

    size_t nsp = o->noise_spectra > 0 ? (size_t)o->noise_spectra : 0;
    if (!c.st && nsp)
        noise_peaks(&c, nsp, o->seed + 900);
    xc_psopts no = noise_opts(&c);
    no.rblock = 0;   /* the candidates of the local-maximum mode */
    for (size_t k = 0; k < 4 && k < nsp && !c.st; k++) {
        xc_spectrum sp;
        if ((c.st = spectrum(&sp, 2048, o->seed + 900 + k, 0, 0.3, 5.0, err))) {
            xc_spectrum_free(&sp);
            break;
        }
        snprintf(name, sizeof name, "cands/noise-sigma0-spectrum%zu", k);
        cands_case(&c, name, &sp, &no);
        xc_spectrum_free(&sp);
    }
    return c.st;
}
