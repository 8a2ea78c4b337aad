/* An FRB study's index.html: per searcher and configuration the detected
 * fraction against fluence, width, DM and scattering with 95 % Wilson
 * intervals (completeness.csv), and the fluence at 50 % and 90 %
 * completeness (completeness.json), drawn with reports/draw. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reports/xc_report.h"
#include "study/spec/study_internal.h"

enum { MAXSER = 64 };

static const char *const words[XC_FRB_NAXES] = {"fluence", "width", "DM", "scattering time"};
static const char *const xlabels[XC_FRB_NAXES] = {"fluence (Jy ms)", "intrinsic width (ms)", "DM (pc cm^-3)",
                                                  "scattering time at its reference frequency (ms)"};

/* The curves of axis a: one series per search (the first MAXSER), the
 * non-empty bins at their centres (geometric on a log axis). */
static xc_status axis_plot(xc_report *r, const xc_study *st, const xc_study_frbcurves *cv, int a, xc_error *err)
{
    if (!cv->ok[a]) {
        char why[200];
        snprintf(why, sizeof why, "No curve against %s: every burst has the same value.", xc_study_frb_axis(a));
        return xc_report_add_text(r, why, err);
    }
    const size_t ns = xc_study_nsearch(st) < MAXSER ? xc_study_nsearch(st) : MAXSER;
    const size_t nb = (size_t)cv->nb;
    double *buf = malloc(4 * ns * nb * sizeof *buf + 1);
    xc_series *ser = calloc(ns + 1, sizeof *ser);
    char(*names)[200] = calloc(ns + 1, sizeof *names);
    if (!buf || !ser || !names) {
        free(buf);
        free(ser);
        free(names);
        return xc_error_set(err, XC_ENOMEM, "out of memory");
    }
    size_t q = 0;
    for (size_t k = 0; k < st->ns; k++)
        for (size_t c = 0; c < st->s[k].ncfg && q < ns; c++, q++) {
            double *x = buf + 4 * q * nb, *y = x + nb, *lo = y + nb, *hi = lo + nb;
            const xc_study_bin *b = &cv->bin[(q * XC_FRB_NAXES + (size_t)a) * nb];
            size_t n = 0;
            for (size_t i = 0; i < nb; i++) {
                if (!b[i].n)
                    continue;
                const double e0 = cv->edge[a][i], e1 = cv->edge[a][i + 1];
                x[n] = cv->logx[a] ? sqrt(e0 * e1) : 0.5 * (e0 + e1);
                y[n] = b[i].frac;
                lo[n] = b[i].lo;
                hi[n] = b[i].hi;
                n++;
            }
            snprintf(names[q], sizeof names[q], "%s (%s)", st->s[k].name, st->s[k].cfg[c].label);
            ser[q] = (xc_series){names[q], x, y, n, lo, hi, 0};
        }
    char title[160];
    snprintf(title, sizeof title, "Detected fraction against %s, 95 %% Wilson intervals", words[a]);
    xc_lineplot lp = {title, xlabels[a], "fraction detected", ser, ns, cv->logx[a], 0};
    xc_status e = xc_report_add_lines(r, &lp, err);
    free(buf);
    free(ser);
    free(names);
    return e;
}

/* "F (lo-hi)" of search q's level l, "not reached" when there is none. */
static void fq_text(const xc_study_frbcurves *cv, size_t q, int l, char *out, size_t n)
{
    const double *f = &cv->fq[(q * 2 + (size_t)l) * 3];
    char a[3][32];
    for (int i = 0; i < 3; i++)
        xc_study_fmt_num(a[i], sizeof a[i], f[i], 3);
    if (!isfinite(f[0]))
        snprintf(out, n, "not reached (interval %s-%s)", a[1], !isfinite(f[2]) ? "above the range" : a[2]);
    else
        snprintf(out, n, "%s Jy ms (%s-%s)", a[0], a[1], !isfinite(f[2]) ? "above the range" : a[2]);
}

xc_status xc_study_frb_report(const xc_study *st, const xc_study_table *t, const xc_study_frbcurves *cv,
                              const char *dir, xc_error *err)
{
    xc_report *r = NULL;
    xc_status e = xc_report_new(&r, "crosscheck study: single-pulse completeness on a synthetic FRB population", err);
    if (e)
        return e;
    char v[1600], key[300];
    snprintf(v, sizeof v, "%llu bursts, seed %llu, spec hash %016llx, population spec hash %016llx (population.json); "
             "a burst is found when a candidate's box centre is within one width (the wider of box and burst) of the "
             "burst's time and its DM within one DM step of the searcher's plan at the burst's DM",
             (unsigned long long)t->np, (unsigned long long)st->seed, (unsigned long long)st->hash,
             (unsigned long long)st->pop_hash);
    if ((e = xc_report_add_section(r, "Study", err)) || (e = xc_report_add_text(r, v, err)) ||
        (e = xc_report_add_section(r, "Completeness (rates.csv, completeness.json)", err)))
        goto out;
    for (size_t k = 0; k < st->ns && !e; k++)
        for (size_t c = 0; c < st->s[k].ncfg && !e; c++) {
            const size_t q = xc_study_search_index(st, (int)k, (int)c);
            const xc_study_rate *rt = &t->rate[q];
            char f50[120], f90[120];
            fq_text(cv, q, 0, f50, sizeof f50);
            fq_text(cv, q, 1, f90, sizeof f90);
            snprintf(key, sizeof key, "%s %s", st->s[k].name, st->s[k].cfg[c].label);
            snprintf(v, sizeof v, "%s, dedisperser %s: %llu of %llu found (95 %% interval %.1f-%.1f %%); F50 %s; "
                     "F90 %s", st->s[k].impl->name, st->s[k].cfg[c].sp.dd->name, (unsigned long long)rt->detected,
                     (unsigned long long)rt->n, 100 * rt->lo, 100 * rt->hi, f50, f90);
            e = xc_report_add_kv(r, key, v, err);
        }
    for (int a = 0; a < XC_FRB_NAXES && !e; a++) {
        snprintf(key, sizeof key, "Against %s", xc_study_frb_axis(a));
        if (!(e = xc_report_add_section(r, key, err)))
            e = axis_plot(r, st, cv, a, err);
    }
    if (!e)
        e = xc_report_write(r, dir, err);
out:
    xc_report_free(r);
    return e;
}
