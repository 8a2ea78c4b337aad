/* Conformance cases of the accel family (compare/conform/xc_conform_accel.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare/conform/xc_conform_accel.h"

/* relative difference allowed by the class */
static double class_tol(const xc_impl *impl) { return impl->tol.kind == XC_TOL_EXACT ? 0 : impl->tol.value; }

xc_status xc_conform_tone_spectrum(xc_spectrum *sp, size_t nbins, uint64_t seed, const double (*tones)[3],
                                   int ntones, xc_error *err)
{
    memset(sp, 0, sizeof *sp);
    sp->nbins = nbins;
    sp->data = calloc(2 * nbins, sizeof *sp->data);
    sp->dt = 1e-3;
    sp->T = 2.0 * (double)nbins * sp->dt;
    sp->owned = 1;
    if (!sp->data)
        return xc_error_set(err, XC_ENOMEM, "conformance: no memory for a %zu-bin spectrum", nbins);
    uint64_t s = seed ? seed : 1;
    for (size_t k = 0; k < 2 * nbins; k++)
        sp->data[k] = (float)xc_conform_rng_gauss(&s);
    for (int t = 0; t < ntones; t++)
        for (long k = (long)tones[t][0] - 200; k <= (long)tones[t][0] + 200; k++) {
            if (k < 1 || k >= (long)nbins)
                continue;
            double R[2];
            xc_accel_resp_z((double)k - tones[t][0], tones[t][1], R);
            sp->data[2 * k] += (float)(tones[t][2] * R[0]);
            sp->data[2 * k + 1] += (float)(tones[t][2] * R[1]);
        }
    return XC_OK;
}

/* ntone tones spread over the spectrum, drifting -10, -3, 4, ... bins. */
static void tones_spectrum(xc_spectrum *sp, size_t nbins, uint64_t seed, int ntone)
{
    double tones[8][3];
    for (int t = 0; t < ntone && t < 8; t++) {
        tones[t][0] = 200 + (double)(nbins - 400) * (t + 0.37) / ntone;
        tones[t][1] = -10 + 7.0 * t;
        tones[t][2] = 40 - 5.0 * t;
    }
    xc_error e;
    xc_conform_tone_spectrum(sp, nbins, seed, tones, ntone, &e);
}

static xc_status add(xc_conform_report *rep, int pass, const char *name, const char *obs, const char *exp,
                     const char *tol, xc_error *err)
{
    return xc_conform_report_add(rep, pass, name, obs, exp, tol, err);
}

/* hand/delta: A_k0 = 1 alone. */
static xc_status case_delta(const xc_accel_searcher *s, double tol, xc_conform_report *rep, xc_error *err)
{
    xc_accel_opts o;
    xc_accel_opts_default(&o);
    o.zmax = 6;
    o.wmax = 20;
    o.numharm = 1;
    xc_accel_plan p;
    xc_status st = xc_accel_plan_make(&p, &o, 4096, 100, err);
    if (st)
        return st;
    void *state = NULL;
    long k0 = 500, lo = 380;
    size_t n = 240, nr = 160;
    double *amp = calloc(2 * n, sizeof *amp);
    float *out = malloc((size_t)p.ntempl * nr * sizeof *out);
    if (!amp || !out)
        st = xc_error_set(err, XC_ENOMEM, "conformance: out of memory");
    xc_status sst = st ? st : s->create ? s->create(s, &p, &state, err) : XC_OK;
    if (!st && !sst) {
        amp[2 * (k0 - lo)] = 1;
        xc_accel_block b = {lo, n, amp, 2 * k0 - 80, nr, out, NULL};
        sst = s->plane(s, state, &p, &b, err);
        for (int t = 0; t < p.ntempl && !st && !sst; t++) {
            int hw = p.hw[t];
            double *R = malloc((size_t)(4 * hw + 1) * 2 * sizeof *R), worst = 0;
            if (!R || xc_accel_template(xc_accel_z_of(&p, t % p.numz), xc_accel_w_of(&p, t / p.numz), hw, R, err)) {
                free(R);
                st = xc_error_set(err, XC_ENOMEM, "conformance: templates");
                break;
            }
            for (size_t j = 0; j < nr; j++) {
                long i = b.i0 + (long)j, jj = 2 * k0 - i;   /* d = k0 - i/2 = jj/2 */
                double want = 0;
                if (labs(jj) <= 2L * hw)
                    want = R[2 * (jj + 2 * hw)] * R[2 * (jj + 2 * hw)] + R[2 * (jj + 2 * hw) + 1] * R[2 * (jj + 2 * hw) + 1];
                worst = fmax(worst, fabs(out[(size_t)t * nr + j] - want));
            }
            free(R);
            char name[96], obs[256], tl[192];
            snprintf(name, sizeof name, "hand/delta-z%d-w%d", xc_accel_z_of(&p, t % p.numz),
                     xc_accel_w_of(&p, t / p.numz));
            snprintf(obs, sizeof obs, "max |P - |R(k0 - r)|^2| = %.3g", worst);
            double bound = tol > 0 ? 1e-5 : 1e-7;   /* float storage of P <= 1 */
            snprintf(tl, sizeof tl, "%.0e absolute", bound);
            st = add(rep, worst <= bound, name, obs, "P = |R(k0 - r; z, w)|^2 inside hw, 0 outside", tl, err);
        }
    }
    if (!st && sst) {
        char obs[256];
        snprintf(obs, sizeof obs, "error: %.200s", err->msg);
        st = add(rep, 0, "hand/delta", obs, "XC_OK", "", err);
    }
    if (state && s->destroy)
        s->destroy(s, state);
    free(amp);
    free(out);
    xc_accel_plan_free(&p);
    return st;
}

static xc_status run(const xc_accel_searcher *s, const xc_spectrum *sp, const xc_accel_opts *o, xc_candlist *l,
                     xc_error *err)
{
    xc_candlist_init(l);
    return xc_accel_run(s, sp, o, l, err);
}

static int lists_agree(const xc_candlist *a, const xc_candlist *b, double tol, char *obs, size_t n)
{
    if (a->n != b->n) {
        snprintf(obs, n, "%zu candidates, reference %zu", a->n, b->n);
        return 0;
    }
    double worst = 0;
    for (size_t i = 0; i < a->n; i++) {
        const xc_cand *x = &a->c[i], *y = &b->c[i];
        if (x->r != y->r || x->z != y->z || x->w != y->w || x->numharm != y->numharm) {
            snprintf(obs, n, "#%zu at r %.2f z %.1f w %.0f h %d, reference r %.2f z %.1f w %.0f h %d", i + 1, x->r, x->z,
                     x->w, x->numharm, y->r, y->z, y->w, y->numharm);
            return 0;
        }
        worst = fmax(worst, fabs(x->power - y->power) / fabs(y->power));
        worst = fmax(worst, fabs(x->sigma - y->sigma) / fmax(fabs(y->sigma), 1));
    }
    snprintf(obs, n, "%zu candidates, same r/z/w/numharm; largest relative power/sigma difference %.3g", a->n, worst);
    return worst <= tol;
}

/* noise/mean: pure noise, zmax 0: the plane's mean is sum |R(k - r)|^2
 * over the template (about 0.99: the wings beyond hw are cut), the
 * power of normalised exponential noise being 1 on average. */
static xc_status case_noise_mean(const xc_accel_searcher *impl, const xc_conform_opts *o, xc_conform_report *rep,
                                 xc_error *err)
{
    xc_spectrum sp;
    tones_spectrum(&sp, 20001, o->seed + 99, 0);
    xc_accel_opts ao;
    xc_accel_opts_default(&ao);
    ao.zmax = 0;
    ao.numharm = 1;
    xc_accel_plan p;
    xc_status st = xc_accel_plan_make(&p, &ao, sp.nbins, sp.T, err);
    void *state = NULL;
    double *sc = malloc(sp.nbins * sizeof *sc), *amp = malloc(2 * sp.nbins * sizeof *amp);
    size_t nr = 2 * (sp.nbins - 200);
    float *out = malloc(nr * sizeof *out);
    if (!st && (!sc || !amp || !out))
        st = xc_error_set(err, XC_ENOMEM, "conformance: out of memory");
    if (!st)
        st = xc_accel_norm_scales(sp.data, sp.nbins, 1000, sc, err);
    if (!st && impl->create)
        st = impl->create(impl, &p, &state, err);
    if (!st) {
        for (size_t k = 0; k < sp.nbins; k++) {
            amp[2 * k] = sp.data[2 * k] * sc[k];
            amp[2 * k + 1] = sp.data[2 * k + 1] * sc[k];
        }
        xc_accel_block b = {0, sp.nbins, amp, 200, nr, out, NULL};
        xc_status s1 = impl->plane(impl, state, &p, &b, err);
        double m = 0, e = 0, R[2];
        for (size_t j = 0; j < nr; j++)
            m += out[j];
        m /= (double)nr;
        for (int k = -p.hw[0]; k <= p.hw[0]; k++) {
            xc_accel_resp_z(k, 0, R);
            e += R[0] * R[0] + R[1] * R[1];
        }
        /* neighbouring half-bins are correlated: the standard error is
         * taken over nbins/2 independent values, generously */
        double se = 1.0 / sqrt((double)sp.nbins / 2);
        char obs[256], exp[256];
        snprintf(obs, sizeof obs, "mean P %.4f over %zu points", m, nr);
        snprintf(exp, sizeof exp, "sum |R|^2 = %.4f (median/ln2 normalisation makes Exp(1) noise mean 1)", e);
        st = s1 ? s1 : add(rep, fabs(m - e) <= 5 * se, "noise/mean", obs, exp, "5 standard errors", err);
    }
    if (state && impl->destroy)
        impl->destroy(impl, state);
    free(sc);
    free(amp);
    free(out);
    xc_accel_plan_free(&p);
    xc_spectrum_free(&sp);
    return st;
}

/* noise/sigma0: nsp pure-noise spectra searched at sigma 0 (every
 * candidate the search's own selection keeps, most of them borderline),
 * each list against the reference's one for one: a threshold, rounding or
 * local-maximum decision taken otherwise changes the list.  One row. */
static xc_status case_noise_lists(const xc_accel_searcher *impl, const xc_accel_searcher *ref, size_t nsp,
                                  uint64_t seed, int threads, xc_conform_report *rep, xc_error *err)
{
    double tol = class_tol(&impl->impl);
    size_t total = 0;
    char obs[256] = "", first[300] = "";
    int ok = 1;
    xc_status st = XC_OK;
    for (size_t k = 0; k < nsp && !st; k++) {
        xc_spectrum sp;
        tones_spectrum(&sp, 4001, seed + k, 0);
        if (!sp.data)
            return xc_error_set(err, XC_ENOMEM, "conformance: out of memory");
        xc_accel_opts ao;
        xc_accel_opts_default(&ao);
        ao.zmax = 16;
        ao.numharm = 4;
        ao.rlo = 10;
        ao.sigma = 0;
        ao.normwidth = 32;
        ao.threads = threads;
        xc_candlist a, b;
        xc_error e1;
        xc_status s1 = run(impl, &sp, &ao, &a, &e1);
        st = run(ref, &sp, &ao, &b, err);
        if (!st && s1) {
            snprintf(first, sizeof first, "spectrum %zu: error: %.200s", k, e1.msg);
            ok = 0;
        } else if (!st) {
            total += b.n;
            if (!lists_agree(&a, &b, tol, obs, sizeof obs) && ok) {
                snprintf(first, sizeof first, "spectrum %zu: %.230s", k, obs);
                ok = 0;
            }
        }
        if (!s1)
            xc_candlist_free(&a);
        if (!st)
            xc_candlist_free(&b);
        xc_spectrum_free(&sp);
    }
    if (st)
        return st;
    char exp[256], tl[192];
    snprintf(exp, sizeof exp, "the reference's %zu candidates of %zu pure-noise spectra at sigma 0, one for one", total,
             nsp);
    snprintf(tl, sizeof tl, "%s", tol > 0 ? "same r/z/w/numharm; power and sigma relative (class value)" : "bit for bit");
    if (ok)
        snprintf(obs, sizeof obs, "%zu candidates, the same", total);
    return add(rep, ok, "noise/sigma0", ok ? obs : first, exp, tl, err);
}

static xc_status check_pair(const xc_accel_searcher *impl, const xc_accel_searcher *ref, xc_conform_report *rep,
                            xc_error *err)
{
    if (!impl || !ref || !impl->plane || !ref->plane)
        return xc_error_set(err, XC_EINVAL, "conformance: two accel searchers with a plane stage are needed");
    char why[256];
    if (!xc_impl_available(&impl->impl, why, sizeof why) || !xc_impl_available(&ref->impl, why, sizeof why))
        return xc_error_set(err, XC_EUNAVAIL, "conformance: %s", why);
    snprintf(rep->impl, sizeof rep->impl, "%s", impl->impl.name);
    snprintf(rep->ref, sizeof rep->ref, "%s", ref->impl.name);
    return XC_OK;
}

xc_status xc_conform_accel_noise(const xc_accel_searcher *impl, const xc_accel_searcher *ref, size_t nsp,
                                 uint64_t seed, xc_conform_report *rep, xc_error *err)
{
    xc_status st = check_pair(impl, ref, rep, err);
    return st ? st : case_noise_lists(impl, ref, nsp, seed, 0, rep, err);
}

xc_status xc_conform_accel(const xc_accel_searcher *impl, const xc_accel_searcher *ref, const xc_conform_opts *o,
                           xc_conform_report *rep, xc_error *err)
{
    xc_status st = check_pair(impl, ref, rep, err);
    if (st)
        return st;
    xc_conform_opts d;
    if (!o) {
        xc_conform_opts_default(&d);
        o = &d;
    }
    int pass;
    st = xc_conform_check_class(&impl->impl, rep, &pass, err);
    double tol = class_tol(&impl->impl);
    if (!st)
        st = case_delta(impl, tol, rep, err);
    static const struct {
        const char *name;
        size_t nbins;
        int zmax, wmax, numharm;
    } cfg[] = {{"n2999-z10-h1", 2999, 10, 0, 1}, {"n4001-z16-h2", 4001, 16, 0, 2}, {"n3001-z4-w40-h1", 3001, 4, 40, 1}};
    for (size_t c = 0; c < sizeof cfg / sizeof *cfg && !st; c++) {
        xc_spectrum sp;
        tones_spectrum(&sp, cfg[c].nbins, o->seed + c, 3);
        if (!sp.data)
            return xc_error_set(err, XC_ENOMEM, "conformance: out of memory");
        for (int preset = 0; preset < 2 && !st; preset++) {
            xc_accel_opts ao;
            xc_accel_opts_default(&ao);
            ao.zmax = cfg[c].zmax;
            ao.wmax = cfg[c].wmax;
            ao.numharm = cfg[c].numharm;
            ao.rlo = 10;
            ao.sigma = 3;
            ao.normwidth = 400;
            ao.threads = o->threads;
            ao.preset = preset ? XC_ACCEL_PRESTO : XC_ACCEL_EXACT;
            xc_candlist a, b, a1, a2;
            xc_error e1;
            char name[96], obs[256], tl[192];
            xc_status s1 = run(impl, &sp, &ao, &a, &e1), s2 = run(ref, &sp, &ao, &b, err);
            snprintf(name, sizeof name, "cands/%s/%s", cfg[c].name, preset ? "presto" : "exact");
            snprintf(tl, sizeof tl, "%s", tol > 0 ? "power and sigma relative (class value)" : "bit for bit");
            if (s2)
                st = s2;
            else if (s1) {
                snprintf(obs, sizeof obs, "error: %.200s", e1.msg);
                st = add(rep, 0, name, obs, "the reference's list", tl, err);
            } else {
                int ok = lists_agree(&a, &b, tol, obs, sizeof obs) && b.n >= 3;
                st = add(rep, ok, name, obs, "the reference's list (>= 3 tones found)", tl, err);
            }
            if (!st && !s1 && preset == 0) {
                ao.threads = 1;
                s1 = run(impl, &sp, &ao, &a1, &e1);
                ao.threads = 2;
                if (!s1)
                    s1 = run(impl, &sp, &ao, &a2, &e1);
                int same = !s1 && a1.n == a2.n && !memcmp(a1.c, a2.c, a1.n * sizeof *a1.c);
                snprintf(name, sizeof name, "threads/%s", cfg[c].name);
                snprintf(obs, sizeof obs, "%.200s", s1 ? e1.msg : same ? "identical" : "different lists");
                st = add(rep, same, name, obs, "1 and 2 threads identical", "bit for bit", err);
                if (!s1) {
                    xc_candlist_free(&a1);
                    xc_candlist_free(&a2);
                }
            }
            xc_candlist_free(&a);
            xc_candlist_free(&b);
        }
        xc_spectrum_free(&sp);
    }
    if (!st)
        st = case_noise_mean(impl, o, rep, err);
    if (!st && o->noise_spectra > 0)
        st = case_noise_lists(impl, ref, (size_t)(o->noise_spectra < 4 ? o->noise_spectra : 4), o->seed + 900,
                              o->threads, rep, err);
    return st;
}
