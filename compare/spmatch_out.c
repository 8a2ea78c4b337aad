/* spmatch_out.c: the reports of single-pulse matching (xc_spmatch.h): text
 * for people, JSON for -json. */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "compare/xc_spmatch.h"

static void print_cand(FILE *fp, const char *side, const xc_spcandlist *l, size_t i)
{
    const xc_spcand *c = &l->c[i];
    fprintf(fp, "  %s only: snr %9.3f  centre %.6f s  dm %10.4f (trial %d)  width %d\n", side, c->snr,
            xc_spcand_centre_s(l, c), c->dm, (int)c->dm_index, (int)c->width);
}

static void print_tols(FILE *fp, const xc_spmatch_opts *o)
{
    if (o->tol_s > 0)
        fprintf(fp, "tolerances: time %g s, ", o->tol_s);
    else
        fprintf(fp, "tolerances: time one width, ");
    if (o->tol_dm > 0)
        fprintf(fp, "DM %g, ", o->tol_dm);
    else
        fprintf(fp, "DM one step, ");
    fprintf(fp, "width ratio %g\n", o->tol_width);
}

xc_status xc_spmatch_print(const xc_spcandlist *a, const xc_spcandlist *b, const xc_spmatch_result *r,
                           const xc_spmatch_opts *o, size_t maxlist, FILE *fp, xc_error *err)
{
    print_tols(fp, o);
    fprintf(fp, "matched %zu; only in A %zu (%zu above S/N %g); only in B %zu (%zu above)\n", r->npairs, r->na_only,
            r->na_only_fail, o->snr_min * (1 + o->rtol_snr), r->nb_only, r->nb_only_fail);
    if (r->ratio.n)
        fprintf(fp, "S/N A/B over pairs: min %.4f  max %.4f  mean %.4f  rms about 1 %.4f; %zu pairs outside "
                "1 +- %g; largest |dt| %.3g s, |dDM| %.3g\n", r->ratio.min, r->ratio.max, r->ratio.mean,
                r->ratio.rms, r->nsnr_bad, o->rtol_snr, r->dt_max_s, r->ddm_max);
    for (size_t k = 0; k < r->na_only && k < maxlist; k++)
        print_cand(fp, "A", a, r->a_only[k]);
    for (size_t k = 0; k < r->nb_only && k < maxlist; k++)
        print_cand(fp, "B", b, r->b_only[k]);
    for (size_t k = 0, shown = 0; k < r->npairs && shown < maxlist; k++) {
        const xc_sppair *p = &r->pairs[k];
        if (p->checked && !p->snr_ok) {
            fprintf(fp, "  S/N differs: A %.3f, B %.3f (ratio %.4f) at centre %.6f s, dm %.4f\n", a->c[p->ia].snr,
                    b->c[p->ib].snr, p->snr_ratio, xc_spcand_centre_s(a, &a->c[p->ia]), a->c[p->ia].dm);
            shown++;
        }
    }
    fprintf(fp, "lists: %s\n", r->agree ? "AGREE" : "DISAGREE");
    if (ferror(fp))
        return xc_error_set(err, XC_EIO, "writing the report failed: %s", strerror(errno));
    return XC_OK;
}

xc_status xc_sptruth_print(const char *name, const xc_spcandlist *l, const xc_truth *t, const xc_sptruth_result *r,
                           const xc_spmatch_opts *o, FILE *fp, xc_error *err)
{
    fprintf(fp, "%s against truth: %zu of %zu pulses found; %zu candidates near no pulse\n", name, r->nfound, r->n,
            r->nother);
    for (size_t k = 0; k < r->n; k++) {
        const xc_truth_pulse *p = &t->pulses[k];
        const xc_spburst *b = &r->bursts[k];
        fprintf(fp, "  pulse %zu: t %.6f s, dm %.4f, width %.4g ms: ", k, p->t_s, p->dm, p->width_ms);
        if (!b->found) {
            fprintf(fp, "NOT FOUND (DM within %.4g, time within one width)\n", b->tol_dm);
            continue;
        }
        const xc_spcand *c = &l->c[b->index];
        fprintf(fp, "found, S/N %.3f / truth %.3f = %.4f%s; dt %+.3g s (tol %.3g), dDM %+.4g (tol %.4g), width %d, "
                "%zu candidates\n", c->snr, b->truth_snr, b->ratio,
                b->snr_ok ? "" : " (outside the S/N tolerance)", b->dt_s, b->tol_s, b->ddm, b->tol_dm,
                (int)c->width, b->count);
    }
    if (r->ratio.n)
        fprintf(fp, "  S/N over truth: min %.4f  max %.4f  mean %.4f%s\n", r->ratio.min, r->ratio.max, r->ratio.mean,
                o->truth_rtol_snr > 0 ? "" : " (not judged: -truth_rtol_snr)");
    fprintf(fp, "truth: %s\n", r->pass ? "PASS" : "FAIL");
    if (ferror(fp))
        return xc_error_set(err, XC_EIO, "writing the report failed: %s", strerror(errno));
    return XC_OK;
}

/* a number, or null when it is not finite (JSON has no NaN) */
static json_t *num(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}

static json_t *stat_json(const xc_spstat *s)
{
    return json_pack("{s:I, s:f, s:f, s:f, s:f}", "n", (json_int_t)s->n, "min", s->min, "max", s->max, "mean",
                     s->mean, "rms_about_1", s->rms);
}

json_t *xc_spmatch_json(const xc_spmatch_result *r, const xc_spmatch_opts *o)
{
    json_t *j = json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:f, s:f, s:o, s:b}", "a", (json_int_t)r->na,
                          "b", (json_int_t)r->nb, "matched", (json_int_t)r->npairs, "a_only", (json_int_t)r->na_only,
                          "b_only", (json_int_t)r->nb_only, "a_only_above", (json_int_t)r->na_only_fail,
                          "b_only_above", (json_int_t)r->nb_only_fail, "snr_outside", (json_int_t)r->nsnr_bad,
                          "dt_max_s", r->dt_max_s, "ddm_max", r->ddm_max, "snr_ratio", stat_json(&r->ratio),
                          "agree", r->agree);
    json_t *tol = json_pack("{s:f, s:f, s:f, s:f, s:f}", "tol_s", o->tol_s, "tol_dm", o->tol_dm, "tol_width",
                            o->tol_width, "snr_min", o->snr_min, "rtol_snr", o->rtol_snr);
    if (!j || !tol || json_object_set_new(j, "tolerances", tol)) {
        json_decref(j);
        return NULL;
    }
    return j;
}

json_t *xc_sptruth_json(const xc_truth *t, const xc_sptruth_result *r)
{
    json_t *arr = json_array();
    json_t *j = json_pack("{s:I, s:I, s:I, s:o, s:b}", "pulses", (json_int_t)r->n, "found", (json_int_t)r->nfound,
                          "near_no_pulse", (json_int_t)r->nother, "snr_ratio", stat_json(&r->ratio), "pass", r->pass);
    if (!arr || !j || json_object_set(j, "each", arr)) {
        json_decref(arr);
        json_decref(j);
        return NULL;
    }
    json_decref(arr);
    for (size_t k = 0; k < r->n; k++) {
        const xc_spburst *b = &r->bursts[k];
        json_t *o = json_pack("{s:f, s:f, s:f, s:b}", "t_s", t->pulses[k].t_s, "dm", t->pulses[k].dm, "width_ms",
                              t->pulses[k].width_ms, "found", b->found);
        if (o && b->found) {
            json_t *x = json_pack("{s:I, s:f, s:o, s:o, s:f, s:f, s:f, s:f, s:b}", "index", (json_int_t)b->index,
                                  "snr", b->snr, "truth_snr", num(b->truth_snr), "ratio", num(b->ratio), "dt_s", b->dt_s,
                                  "ddm", b->ddm, "tol_s", b->tol_s, "tol_dm", b->tol_dm, "snr_ok", b->snr_ok);
            if (!x || json_object_update(o, x)) {
                json_decref(o);
                o = NULL;
            }
            json_decref(x);
        }
        if (!o || json_array_append_new(arr, o)) {
            json_decref(j);
            return NULL;
        }
    }
    return j;
}
