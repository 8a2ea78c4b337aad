/* crosscheck run: the report's texts and plots, and the verdict table. */
#include <stdio.h>
#include <stdlib.h>

#include "cli/run/run.h"
#include "core/base/xc_fmt.h"

/* Heatmap of range k of the reference plane. */
void plot_plane(runctx *c, const char *obs, const planerun *ref, int k)
{
    const xc_planerange *r = &ref->pf.plane.r[k];
    const xc_dmrange *dr = &ref->pf.plan.r[k];
    char title[300];
    xc_fmt(title, sizeof title, "%s: reference DM-time plane, range %d (ds %d)", obs, k, r->ds);
    double tk = ref->pf.meta.tsamp * r->ds;
    double dstep = dr->ndm > 1 ? dr->dms[1] - dr->dms[0] : 1.0;
    xc_heatmap h = {title, r->data, r->ndm, r->nsamp, 0.0, (double)r->nsamp * tk, dr->dms[0],
                    dr->dms[dr->ndm - 1] + dstep, "time at the highest channel (s)", "DM (pc cm^-3)",
                    "dedispersed value", XC_CMAP_VIRIDIS, XC_REDUCE_MAX, 0, 0};
    xc_error e;
    xc_vd_note(&c->vd, xc_report_add_heatmap(c->vd.rep, &h, &e), &e);
}

/* Boxcar S/N against DM around a pulse, every implementation, in the range
 * holding its true DM. */
void plot_snr_curves(runctx *c, const char *obs, const planerun *runs, int n, const xc_dmplan *plan,
                     const xc_pulse_truth *t)
{
    int k = 0;
    for (int kk = 0; kk < plan->nranges; kk++)
        if (t->dm >= plan->r[kk].dms[0])
            k = kk;
    const xc_dmrange *dr = &plan->r[k];
    xc_series ser[RUN_MAXIMPL];
    double *xs = malloc(dr->ndm * sizeof *xs);
    double *ys[RUN_MAXIMPL] = {0};
    int ns = 0;
    xc_error e;
    for (int i = 0; i < n && xs; i++) {
        ys[i] = malloc(dr->ndm * sizeof(double));
        if (!ys[i])
            break;
        if (xc_recover_snr_curve(&runs[i].pf.plane, &runs[i].pf.plan, k, runs[i].pf.meta.tsamp, t->t_s,
                                 t->width_s, t->window_s, ys[i], &e))
            break;
        ser[ns] = (xc_series){runs[i].label, xs, ys[i], dr->ndm};
        ns++;
    }
    if (xs) {
        for (size_t j = 0; j < dr->ndm; j++)
            xs[j] = dr->dms[j];
        char title[200];
        xc_fmt(title, sizeof title, "%s: boxcar S/N against DM, pulse %zu (true DM %g, expected S/N %.1f)", obs,
                t->index, t->dm, t->snr_expected);
        xc_lineplot lp = {title, "DM (pc cm^-3)", "S/N", ser, (size_t)ns, 0, 0};
        if (ns)
            xc_vd_note(&c->vd, xc_report_add_lines(c->vd.rep, &lp, &e), &e);
    }
    for (int i = 0; i < RUN_MAXIMPL; i++)
        free(ys[i]);
    free(xs);
}

/* The normalised power spectrum up to 5 f0. */
void plot_spectrum(runctx *c, const char *obs, const char *label, double dm, double f0, const xc_powerpeak *pk,
                   const double *spec)
{
    size_t nb = pk->nbins, m = 0;
    double *xs = malloc(nb * sizeof *xs), *ys = malloc(nb * sizeof *ys);
    for (size_t b = 1; xs && ys && b < nb; b++) {
        double f = (double)b * pk->bin_hz;
        if (f > 5 * f0)
            break;
        xs[m] = f;
        ys[m++] = spec[b];
    }
    if (xs && ys) {
        xc_series s = {label, xs, ys, m};
        char title[200];
        xc_fmt(title, sizeof title, "%s: power spectrum at DM %g (normalised, mean 1 for noise)", obs, dm);
        xc_lineplot lp = {title, "frequency (Hz)", "normalised power", &s, 1, 0, 0};
        xc_error e;
        xc_vd_note(&c->vd, xc_report_add_lines(c->vd.rep, &lp, &e), &e);
    }
    free(xs);
    free(ys);
}

/* The sigma-versus-frequency picture of the candidate lists. */
void plot_cands(runctx *c, const char *obs, const searchrun *runs, int n)
{
    xc_series ser[RUN_MAXIMPL];
    double *xs[RUN_MAXIMPL] = {0}, *ys[RUN_MAXIMPL] = {0};
    int ns = 0;
    for (int i = 0; i < n && i < RUN_MAXIMPL; i++) {
        const xc_candlist *l = &runs[i].cands;
        if (!l->n)
            continue;
        xs[i] = malloc(l->n * sizeof(double));
        ys[i] = malloc(l->n * sizeof(double));
        if (!xs[i] || !ys[i])
            break;
        /* sorted by frequency so the line joins neighbours */
        for (size_t k = 0; k < l->n; k++) {
            xs[i][k] = l->c[k].f_hz;
            ys[i][k] = l->c[k].sigma;
        }
        for (size_t a = 1; a < l->n; a++)
            for (size_t b = a; b > 0 && xs[i][b - 1] > xs[i][b]; b--) {
                double t = xs[i][b];
                xs[i][b] = xs[i][b - 1];
                xs[i][b - 1] = t;
                t = ys[i][b];
                ys[i][b] = ys[i][b - 1];
                ys[i][b - 1] = t;
            }
        ser[ns++] = (xc_series){runs[i].impl->name, xs[i], ys[i], l->n};
    }
    if (ns) {
        char title[200];
        xc_fmt(title, sizeof title, "%s: candidates (sigma against frequency)", obs);
        xc_lineplot lp = {title, "frequency (Hz)", "sigma (trials-corrected)", ser, (size_t)ns, 1, 0};
        xc_error e;
        xc_vd_note(&c->vd, xc_report_add_lines(c->vd.rep, &lp, &e), &e);
    }
    for (int i = 0; i < RUN_MAXIMPL; i++) {
        free(xs[i]);
        free(ys[i]);
    }
}
