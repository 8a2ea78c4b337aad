/* cmp_cands.c: candidate list against candidate list, and against truth
 * (rules in xc_cmpcands.h). */
#include "compare/xc_cmpcands.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/io/xc_presto.h"
#include "core/base/xc_grow.h"

void xc_cmpcands_opts_init(xc_cmpcands_opts *o)
{
    /* Every field not named is 0: anyharm, fundamental, truth_dr, truth_dz. */
    *o = (xc_cmpcands_opts){.dr = 1.0, .dz = 2.0, .dw = 20.0, .sigma_min = 2.0, .rtol_power = 1e-4, .dsigma = 1e-3,
                            .truth_sigma = 6.0, .ftol = 0.01, .maxharm = 16};
}

/* Every entry point starts here: its result out (size bytes) cleared, the
 * options checked. */
static xc_status check_opts(const xc_cmpcands_opts *o, void *out, size_t size, xc_error *err)
{
    memset(out, 0, size);
    if (!(o->dr >= 0) || !(o->dz >= 0) || !isfinite(o->dr) || !isfinite(o->dz))
        return xc_error_set(err, XC_EINVAL, "compare cands: dr %g and dz %g must be finite and >= 0", o->dr, o->dz);
    if (!(o->rtol_power >= 0) || !(o->dsigma >= 0) || isnan(o->sigma_min))
        return xc_error_set(err, XC_EINVAL, "compare cands: rtol_power %g and dsigma %g must be >= 0, sigma %g a number",
                            o->rtol_power, o->dsigma, o->sigma_min);
    if (!(o->ftol > 0 && o->ftol < 0.5) || o->maxharm < 1 || o->maxharm > 1000 || isnan(o->truth_sigma))
        return xc_error_set(err, XC_EINVAL,
                            "compare cands: ftol %g must be in (0, 0.5), maxharm %d in 1..1000, truth sigma %g a number",
                            o->ftol, o->maxharm, o->truth_sigma);
    return XC_OK;
}

/* ---- A against B ---------------------------------------------------------- */

/* qsort has no context argument, so the sort keys travel with the indices. */
typedef struct {
    double key;
    double tie;
    size_t i;
} keyed;

/* -1, 0, 1 as x is below, equal to or above y; a NaN on either side gives 1. */
static int cmp_num(double x, double y) { return x == y ? 0 : x < y ? -1 : 1; }

static int keyed_cmp(const void *pa, const void *pb)
{
    const keyed *a = pa, *b = pb;
    int c = cmp_num(a->key, b->key);
    if (!c)
        c = cmp_num(a->tie, b->tie);
    return c ? c : (a->i > b->i) - (a->i < b->i);
}

static double zval(double z, int signed_z) { return signed_z ? z : fabs(z); }

static double sigma_key(double s) { return isnan(s) ? INFINITY : -s; }

static void stat_add(xc_diffstat *s, double v, size_t *n)
{
    if (isnan(v))
        return;
    s->max_abs = fmax(s->max_abs, fabs(v));
    s->mean += v;
    s->rms += v * v;
    (*n)++;
}

static void stat_end(xc_diffstat *s, size_t n)
{
    if (n) {
        s->mean /= (double)n;
        s->rms = sqrt(s->rms / (double)n);
    } else {
        s->max_abs = s->mean = s->rms = NAN;
    }
}

void xc_cmpcands_result_free(xc_cmpcands_result *res)
{
    free(res->pairs);
    free(res->a_only);
    free(res->b_only);
    memset(res, 0, sizeof *res);
}

/* The unmatched B candidate closest to ca within the windows (kb: B by r),
 * SIZE_MAX when there is none. */
static size_t best_match(const xc_cand *ca, const xc_candlist *b, const keyed *kb, const unsigned char *btaken,
                         const xc_cmpcands_opts *o, int signed_z)
{
    /* first B with r >= rA - dr */
    size_t lo = 0, hi = b->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (kb[mid].key < ca->r - o->dr)
            lo = mid + 1;
        else
            hi = mid;
    }
    double best = INFINITY;
    size_t bj = SIZE_MAX;
    for (size_t m = lo; m < b->n && kb[m].key <= ca->r + o->dr; m++) {
        size_t j = kb[m].i;
        const xc_cand *cb = &b->c[j];
        if (btaken[j] || (!o->anyharm && cb->numharm != ca->numharm))
            continue;
        double dr = ca->r - cb->r, dz = zval(ca->z, signed_z) - zval(cb->z, signed_z);
        if (!(fabs(dr) <= o->dr) || !(fabs(dz) <= o->dz) || !(fabs(ca->w - cb->w) <= o->dw))
            continue;
        double d = (o->dr > 0 ? dr * dr / (o->dr * o->dr) : 0) + (o->dz > 0 ? dz * dz / (o->dz * o->dz) : 0);
        if (d < best) {
            best = d;
            bj = j;
        }
    }
    return bj;
}

/* The offsets and verdicts of the pair (ia of A, ib of B). */
static void fill_pair(xc_candpair *p, size_t ia, size_t ib, const xc_cand *ca, const xc_cand *cb,
                      const xc_cmpcands_opts *o, int signed_z)
{
    p->ia = ia;
    p->ib = ib;
    p->dr = ca->r - cb->r;
    p->dz = zval(ca->z, signed_z) - zval(cb->z, signed_z);
    p->dsigma = ca->sigma - cb->sigma;
    p->dpower_rel = cb->power != 0 ? (ca->power - cb->power) / fabs(cb->power)
                                   : (ca->power == 0 ? 0 : INFINITY);
    p->checked = ca->sigma > o->sigma_min || cb->sigma > o->sigma_min;
    p->power_ok = fabs(ca->power - cb->power) <= o->rtol_power * fabs(cb->power) ||
                  (isnan(ca->power) && isnan(cb->power));
    p->sigma_ok = fabs(p->dsigma) <= o->dsigma || (isnan(ca->sigma) && isnan(cb->sigma));
}

/* The candidates of l not marked in used, in the order of key (descending
 * sigma) into out; *nfail counts those with sigma above cut.  Returns how
 * many. */
static size_t unmatched(const xc_candlist *l, const keyed *key, const unsigned char *used, double cut, size_t *out,
                        size_t *nfail)
{
    size_t n = 0;
    for (size_t k = 0; k < l->n; k++) {
        size_t i = key[k].i;
        if (used[i])
            continue;
        out[n++] = i;
        *nfail += l->c[i].sigma > cut;
    }
    return n;
}

xc_status xc_compare_cands(const xc_candlist *a, const xc_candlist *b, const xc_cmpcands_opts *o,
                           xc_cmpcands_result *res, xc_error *err)
{
    xc_status st = check_opts(o, res, sizeof *res, err);
    if (st)
        return st;
    /* matched filters (PRESTO's and our accel search) know the sign of z */
    res->signed_z = (!strcmp(a->source, "presto") || !strcmp(a->source, "accel")) &&
                    (!strcmp(b->source, "presto") || !strcmp(b->source, "accel"));
    res->na = a->n;
    res->nb = b->n;
    keyed *ka = malloc((a->n + 1) * sizeof *ka), *kb = malloc((b->n + 1) * sizeof *kb);
    unsigned char *btaken = calloc(b->n + 1, 1), *amatched = calloc(a->n + 1, 1);
    res->pairs = malloc((a->n + 1) * sizeof *res->pairs);
    res->a_only = malloc((a->n + 1) * sizeof *res->a_only);
    res->b_only = malloc((b->n + 1) * sizeof *res->b_only);
    if (!ka || !kb || !btaken || !amatched || !res->pairs || !res->a_only || !res->b_only) {
        st = xc_error_set(err, XC_ENOMEM, "compare cands: out of memory for %zu and %zu candidates", a->n, b->n);
        goto out;
    }
    for (size_t i = 0; i < a->n; i++) {
        ka[i] = (keyed){sigma_key(a->c[i].sigma), a->c[i].r, i};
        res->na_above += a->c[i].sigma > o->sigma_min;
    }
    for (size_t j = 0; j < b->n; j++) {
        kb[j] = (keyed){isnan(b->c[j].r) ? INFINITY : b->c[j].r, 0, j};
        res->nb_above += b->c[j].sigma > o->sigma_min;
    }
    qsort(ka, a->n, sizeof *ka, keyed_cmp);   /* A by descending sigma */
    qsort(kb, b->n, sizeof *kb, keyed_cmp);   /* B by r, for a window search */

    size_t nr = 0, nz = 0, ns = 0, np = 0;
    for (size_t k = 0; k < a->n; k++) {
        const xc_cand *ca = &a->c[ka[k].i];
        if (isnan(ca->r))
            continue;
        size_t bj = best_match(ca, b, kb, btaken, o, res->signed_z);
        if (bj == SIZE_MAX)
            continue;
        btaken[bj] = 1;
        amatched[ka[k].i] = 1;
        const xc_cand *cb = &b->c[bj];
        xc_candpair *p = &res->pairs[res->npairs++];
        fill_pair(p, ka[k].i, bj, ca, cb, o, res->signed_z);
        if (p->checked) {
            res->npower_bad += !p->power_ok;
            res->nsigma_bad += !p->sigma_ok;
        }
        stat_add(&res->dr, p->dr, &nr);
        stat_add(&res->dz, p->dz, &nz);
        stat_add(&res->dsigma, p->dsigma, &ns);
        stat_add(&res->dpower_rel, p->dpower_rel, &np);
    }
    stat_end(&res->dr, nr);
    stat_end(&res->dz, nz);
    stat_end(&res->dsigma, ns);
    stat_end(&res->dpower_rel, np);

    /* Unmatched, listed in descending sigma. */
    const double cut = o->sigma_min + o->dsigma;
    res->na_only = unmatched(a, ka, amatched, cut, res->a_only, &res->na_only_fail);
    for (size_t j = 0; j < b->n; j++)
        kb[j] = (keyed){sigma_key(b->c[j].sigma), b->c[j].r, j};
    qsort(kb, b->n, sizeof *kb, keyed_cmp);
    res->nb_only = unmatched(b, kb, btaken, cut, res->b_only, &res->nb_only_fail);
    res->agree = !res->na_only_fail && !res->nb_only_fail && !res->npower_bad && !res->nsigma_bad;
out:
    xc_free_each(4, ka, kb, btaken, amatched);
    if (st)
        xc_cmpcands_result_free(res);
    return st;
}

/* ---- truth ---------------------------------------------------------------- */

static void consider(xc_detection *d, size_t i, const xc_cand *c, int n, double dr, double dz, double df)
{
    d->count++;
    if (d->found && !(c->sigma > d->sigma))
        return;
    d->found = 1;
    d->index = i;
    d->n = n;
    d->sigma = c->sigma;
    d->r = c->r;
    d->z = c->z;
    d->f_hz = c->f_hz;
    d->dr = dr;
    d->dz = dz;
    d->df_rel = df;
}

xc_status xc_cands_match_truth(const xc_candlist *l, const xc_truth *t, const xc_cmpcands_opts *o,
                               xc_truthmatch *m, xc_error *err)
{
    xc_status st = check_opts(o, m, sizeof *m, err);
    if (st)
        return st;
    if (!(t->f0_hz > 0))
        return xc_error_set(err, XC_EINVAL, "truth: spin frequency %g is not positive", t->f0_hz);
    double Tl = l->T > 0 ? l->T : t->T;
    /* truth r, z taken to the list's T: r = f T, z = fdot T^2 */
    double scale = (t->T > 0 && Tl > 0) ? Tl / t->T : 1.0;
    double rt = t->have_rz ? t->r * scale : (Tl > 0 ? t->f0_hz * Tl : NAN);
    double zt = t->have_rz ? t->z * scale * scale : 0.0;
    m->r_true = rt;
    m->z_true = zt;
    for (size_t i = 0; i < l->n; i++) {
        const xc_cand *c = &l->c[i];
        if (!(c->sigma > o->truth_sigma))
            continue;
        m->nabove++;
        double f = isfinite(c->f_hz) ? c->f_hz : (Tl > 0 ? c->r / Tl : NAN);
        if (!(f > 0)) {
            m->nother++;
            continue;
        }
        /* the closest of f0, n f0 and f0/n in relative frequency */
        int best_n = 0, best_sub = 0;
        double best = INFINITY;
        for (int n = 1; n <= o->maxharm; n++)
            for (int sub = 0; sub < (n > 1 ? 2 : 1); sub++) {
                double ft = sub ? t->f0_hz / n : t->f0_hz * n;
                double d = fabs(f / ft - 1);
                if (d <= o->ftol && d < best) {
                    best = d;
                    best_n = n;
                    best_sub = sub;
                }
            }
        if (!best_n) {
            m->nother++;
            continue;
        }
        double k = best_sub ? 1.0 / best_n : best_n;
        double ft = t->f0_hz * k;
        xc_detection *d = best_n == 1 ? &m->fund : best_sub ? &m->sub : &m->harm;
        double dz = o->truth_signed_z ? c->z - zt * k : fabs(c->z) - fabs(zt) * k;
        consider(d, i, c, best_n, c->r - rt * k, dz, f / ft - 1);
    }
    int any = m->fund.found || m->harm.found || m->sub.found;
    m->pass = o->fundamental ? m->fund.found : any;
    if (o->truth_dr > 0)
        m->pass = m->pass && m->fund.found && fabs(m->fund.dr) <= o->truth_dr;
    if (o->truth_dz > 0)
        m->pass = m->pass && m->fund.found && fabs(m->fund.dz) <= o->truth_dz;
    return XC_OK;
}

/* ---- finding T ------------------------------------------------------------ */

static int try_inf(const char *inf_path, double *T)
{
    xc_inf inf;
    xc_error e;
    if (xc_inf_read(&inf, inf_path, &e))
        return 0;
    double t = inf.n * inf.dt;
    if (!(t > 0) || !isfinite(t))
        return 0;
    *T = t;
    return 1;
}

xc_status xc_cands_T_from_inf(const char *path, double *T, xc_error *err)
{
    size_t n = strlen(path);
    char *a = malloc(n + 8), *b = malloc(n + 8);
    if (!a || !b) {
        free(a);
        free(b);
        return xc_error_set(err, XC_ENOMEM, "%s: out of memory", path);
    }
    /* NAME.pulscand -> NAME.inf */
    strcpy(a, path);
    char *dot = strrchr(a, '.'), *slash = strrchr(a, '/');
    if (dot && (!slash || dot > slash))
        *dot = '\0';
    strcat(a, ".inf");
    /* ROOT_ZMAX_z_NUMHARM_h_TURBO_t.pulscand -> ROOT.inf */
    strcpy(b, path);
    slash = strrchr(b, '/');
    char *zm = NULL;
    for (char *p = strstr(slash ? slash : b, "_ZMAX_"); p; p = strstr(p + 1, "_ZMAX_"))
        zm = p;
    if (zm)
        strcpy(zm, ".inf");
    xc_status st = XC_OK;
    if (!try_inf(a, T) && !(zm && try_inf(b, T)))
        st = xc_error_set(err, XC_EIO, "%s: no observation length: give -T, or an .inf beside it (tried %s%s%s)",
                          path, a, zm ? " and " : "", zm ? b : "");
    free(a);
    free(b);
    return st;
}

xc_status xc_cands_load(xc_candlist *l, const char *path, double T, xc_error *err)
{
    size_t n = strlen(path);
    if (!(T > 0) && n >= 9 && !strcmp(path + n - 9, ".pulscand")) {
        xc_status st = xc_cands_T_from_inf(path, &T, err);
        if (st)
            return st;
    }
    return xc_cands_read(l, path, T, err);
}

/* ---- output --------------------------------------------------------------- */

static int print_cand(FILE *fp, const char *tag, const xc_cand *c)
{
    return fprintf(fp, "  %s r %.4f  z %.2f  numharm %d  sigma %.4f  power %.6g\n", tag, c->r, c->z, c->numharm,
                   c->sigma, c->power);
}

xc_status xc_cmpcands_print(const xc_candlist *a, const xc_candlist *b, const xc_cmpcands_result *r,
                            const xc_cmpcands_opts *o, size_t maxlist, FILE *fp, xc_error *err)
{
    int bad = 0;
    bad |= fprintf(fp,
                   "tolerances: match |dr| <= %g bins, |dz| <= %g bins (%s), %s; candidates above %g sigma must "
                   "match (unmatched ones fail above %g); power within %g relative, sigma within %g\n",
                   o->dr, o->dz, r->signed_z ? "signed z" : "|z|", o->anyharm ? "any numharm" : "same numharm",
                   o->sigma_min, o->sigma_min + o->dsigma, o->rtol_power, o->dsigma) < 0;
    bad |= fprintf(fp, "A: %zu candidates (%zu above %g sigma)   B: %zu (%zu above)\n", r->na, r->na_above,
                   o->sigma_min, r->nb, r->nb_above) < 0;
    bad |= fprintf(fp, "matched %zu; unmatched in A %zu (%zu failing), in B %zu (%zu failing)\n", r->npairs,
                   r->na_only, r->na_only_fail, r->nb_only, r->nb_only_fail) < 0;
    if (r->npairs)
        bad |= fprintf(fp,
                       "offsets A-B over matched pairs (max |.|, mean, rms): r %.4g %.4g %.4g bins; z %.4g %.4g "
                       "%.4g bins; sigma %.4g %.4g %.4g; power (relative) %.4g %.4g %.4g\n",
                       r->dr.max_abs, r->dr.mean, r->dr.rms, r->dz.max_abs, r->dz.mean, r->dz.rms,
                       r->dsigma.max_abs, r->dsigma.mean, r->dsigma.rms, r->dpower_rel.max_abs, r->dpower_rel.mean,
                       r->dpower_rel.rms) < 0;
    bad |= fprintf(fp, "matched pairs outside tolerance: power %zu, sigma %zu\n", r->npower_bad, r->nsigma_bad) < 0;
    size_t shown = 0;
    for (size_t k = 0; k < r->npairs && shown < maxlist; k++) {
        const xc_candpair *p = &r->pairs[k];
        if (!p->checked || (p->power_ok && p->sigma_ok))
            continue;
        shown++;
        bad |= fprintf(fp, "  pair: A r %.4f z %.2f numharm %d sigma %.6f power %.8g | B r %.4f z %.2f sigma %.6f "
                           "power %.8g (dsigma %.3g, power rel %.3g)\n",
                       a->c[p->ia].r, a->c[p->ia].z, a->c[p->ia].numharm, a->c[p->ia].sigma, a->c[p->ia].power,
                       b->c[p->ib].r, b->c[p->ib].z, b->c[p->ib].sigma, b->c[p->ib].power, p->dsigma,
                       p->dpower_rel) < 0;
    }
    for (size_t k = 0; k < r->na_only && k < maxlist; k++)
        bad |= print_cand(fp, "only in A:", &a->c[r->a_only[k]]) < 0;
    if (r->na_only > maxlist)
        bad |= fprintf(fp, "  ... %zu more only in A\n", r->na_only - maxlist) < 0;
    for (size_t k = 0; k < r->nb_only && k < maxlist; k++)
        bad |= print_cand(fp, "only in B:", &b->c[r->b_only[k]]) < 0;
    if (r->nb_only > maxlist)
        bad |= fprintf(fp, "  ... %zu more only in B\n", r->nb_only - maxlist) < 0;
    bad |= fprintf(fp, "verdict: %s\n", r->agree ? "AGREE" : "DISAGREE") < 0;
    if (bad)
        return xc_error_set(err, XC_EIO, "compare cands: cannot write the report: %s", strerror(errno));
    return XC_OK;
}

static int print_det(FILE *fp, const char *what, const xc_detection *d)
{
    if (!d->found)
        return fprintf(fp, "  %-12s none\n", what);
    return fprintf(fp,
                   "  %-12s %zu above threshold; best n = %d: sigma %.4f r %.4f (error %+.4f bins) |z| %.2f "
                   "(error %+.2f) f %.6f Hz (%+.3g)\n",
                   what, d->count, d->n, d->sigma, d->r, d->dr, fabs(d->z), d->dz, d->f_hz, d->df_rel);
}

xc_status xc_truthmatch_print(const char *name, const xc_candlist *l, const xc_truth *t, const xc_truthmatch *m,
                              const xc_cmpcands_opts *o, FILE *fp, xc_error *err)
{
    int bad = 0;
    bad |= fprintf(fp,
                   "truth for %s: f0 %.9g Hz, r %.4f, z %.4f (%s), T %.9g s; detection: sigma > %g within %g of "
                   "f0 (harmonics n f0 and f0/n, n <= %d, counted apart)\n",
                   name, t->f0_hz, t->r, t->z, t->have_rz ? "from the file" : "f0*T and 0", l->T > 0 ? l->T : t->T,
                   o->truth_sigma, o->ftol, o->maxharm) < 0;
    bad |= print_det(fp, "fundamental", &m->fund) < 0;
    bad |= print_det(fp, "harmonic", &m->harm) < 0;
    bad |= print_det(fp, "subharmonic", &m->sub) < 0;
    bad |= fprintf(fp, "  %zu candidates above threshold, %zu at no (sub)harmonic; %s\n", m->nabove, m->nother,
                   m->pass ? "DETECTED" : "NOT DETECTED") < 0;
    if (bad)
        return xc_error_set(err, XC_EIO, "compare cands: cannot write the report: %s", strerror(errno));
    return XC_OK;
}
