/* The approximation measurements as JSON (xc_approx_json.h). */
#include "approx/xc_approx_json.h"

#include <math.h>

static json_t *jnum(double x) { return isfinite(x) ? json_real(x) : json_null(); }

json_t *xc_meansd_json(const xc_meansd *m)
{
    return json_pack("{s:o, s:o, s:I}", "mean", jnum(m->mean), "sd", jnum(m->sd), "n", (json_int_t)m->n);
}

json_t *xc_mom_blocks_json(const xc_mom_blocks *r)
{
    return json_pack("{s:I, s:I, s:i, s:o, s:o, s:o, s:o, s:o, s:o, s:{s:o, s:o, s:o}}", "block",
                     (json_int_t)r->block, "nblocks", (json_int_t)r->dloc.n, "nseeds", r->nseeds, "dloc",
                     xc_meansd_json(&r->dloc), "median_loc", xc_meansd_json(&r->med_loc), "mom_loc",
                     xc_meansd_json(&r->mom_loc), "median_scale", xc_meansd_json(&r->med_scale), "mom_scale",
                     xc_meansd_json(&r->mom_scale), "scale_ratio", xc_meansd_json(&r->scale_ratio), "predicted",
                     "loc_sd", jnum(r->pred_loc_sd), "scale_mean", jnum(r->pred_scale_mean), "scale_sd",
                     jnum(r->pred_scale_sd));
}

json_t *xc_mom_powers_json(const xc_mom_powers *p, double pe, double pm)
{
    json_t *thr = json_array();
    for (int j = 0; j < XC_APPROX_NTHR; j++)
        json_array_append_new(thr, json_pack("{s:f, s:f, s:I, s:I, s:o, s:o}", "x", p->thr[j], "expected",
                                             p->expect[j], "count_exact", (json_int_t)p->count_exact[j], "count_mom",
                                             (json_int_t)p->count_mom[j], "predicted_exact", jnum(p->pred_exact[j]),
                                             "predicted_mom", jnum(p->pred_mom[j])));
    json_t *o = json_pack("{s:I, s:I, s:i, s:I, s:f, s:f, s:f, s:f, s:f, s:o, s:o, s:o, s:o}", "nbins",
                          (json_int_t)p->nbins, "normwidth", (json_int_t)p->normwidth, "nseeds", p->nseeds, "n",
                          (json_int_t)p->n, "mean_exact", p->mean_exact, "mean_mom", p->mean_mom, "mean_se",
                          p->mean_se, "mean_pred_exact", pe, "mean_pred_mom", pm, "ks_exact", jnum(p->ks_exact.stat),
                          "ks_p_exact", jnum(p->ks_exact.p), "ks_mom", jnum(p->ks_mom.stat), "ks_p_mom",
                          jnum(p->ks_mom.p));
    if (o && thr)
        json_object_set_new(o, "thresholds", thr);
    else
        json_decref(thr);
    return o;
}

json_t *xc_logp_check_json(const xc_logp_check *l)
{
    json_t *curves = json_array(), *ratio = json_array();
    for (int i = 0; i < XC_APPROX_NDOFCURVE; i++) {
        json_t *re = json_array();
        for (int j = 0; j < XC_APPROX_NRATIO; j++)
            json_array_append_new(re, jnum(l->relerr[i][j]));
        json_array_append_new(curves, json_pack("{s:f, s:o, s:o, s:o}", "dof", l->dof[i], "valid_1pct",
                                                jnum(l->valid1[i]), "valid_10pct", jnum(l->valid10[i]), "relerr",
                                                re));
    }
    for (int j = 0; j < XC_APPROX_NRATIO; j++)
        json_array_append_new(ratio, json_real(l->ratio[j]));
    json_t *o = json_pack("{s:{s:f, s:f, s:i, s:f, s:f, s:i}, s:f, s:f, s:f, s:f, s:f, s:f, s:o, s:o, s:I, s:I}",
                          "grid", "dof_lo", l->grid.dof_lo, "dof_hi", l->grid.dof_hi, "ndof", l->grid.ndof,
                          "ratio_lo", l->grid.ratio_lo, "ratio_hi", l->grid.ratio_hi, "nratio", l->grid.nratio,
                          "max_abs", l->e1.max_abs, "max_abs_chi2", l->e1.max_abs_chi2, "max_abs_dof",
                          l->e1.max_abs_dof, "max_rel", l->e1.max_rel, "max_rel_chi2", l->e1.max_rel_chi2,
                          "max_rel_dof", l->e1.max_rel_dof, "valid_1pct", jnum(l->e1.valid_ratio_min),
                          "valid_10pct", jnum(l->e10.valid_ratio_min), "npoints", (json_int_t)l->e1.npoints,
                          "noutside", (json_int_t)l->e1.noutside);
    if (!o || !ratio || !curves) {
        json_decref(o);
        json_decref(ratio);
        json_decref(curves);
        return NULL;
    }
    json_object_set_new(o, "ratio", ratio);
    json_object_set_new(o, "curves", curves);
    return o;
}

static json_t *zloss_modes_json(const xc_zloss_result *r)
{
    json_t *modes = json_array();
    for (int m = 0; m < XC_APPROX_NMODES; m++) {
        json_t *zf = json_array();
        for (int b = 0; b < XC_APPROX_NZBIN; b++)
            json_array_append_new(zf, jnum(r->zfrac[m][b]));
        json_array_append_new(
            modes, json_pack("{s:s, s:s, s:I, s:f, s:I, s:I, s:I, s:o, s:o, s:o, s:o, s:o}", "mode",
                             xc_approx_mode_key((xc_approx_mode)m), "desc", xc_approx_mode_desc((xc_approx_mode)m),
                             "detected", (json_int_t)r->ndet[m], "fraction", r->frac[m], "lost_vs_a",
                             (json_int_t)r->nlost[m], "gained_vs_a", (json_int_t)r->ngained[m], "harmonic_only",
                             (json_int_t)r->nharm[m], "sigma_loss", jnum(r->sigma_loss[m]), "sigma_loss_both",
                             jnum(r->sigma_loss_both[m]), "mean_abs_dr", jnum(r->mean_abs_dr[m]), "mean_abs_dz",
                             jnum(r->mean_abs_dz[m]), "zfrac", zf));
    }
    return modes;
}

static json_t *zloss_pulsars_json(const xc_zloss_result *r)
{
    json_t *psrs = json_array();
    for (size_t k = 0; k < r->npsr; k++) {
        const xc_zloss_psr *q = &r->psr[k];
        json_t *sg = json_array(), *dt = json_array();
        for (int m = 0; m < XC_APPROX_NMODES; m++) {
            json_array_append_new(sg, json_real(q->sigma[m]));
            json_array_append_new(dt, json_boolean(q->det[m]));
        }
        json_array_append_new(psrs, json_pack("{s:f, s:f, s:f, s:f, s:f, s:f, s:o, s:o}", "f_hz", q->spec.f_hz,
                                              "z_design", q->spec.z, "target_sigma", q->spec.target_sigma,
                                              "snrpeak", q->spec.snrpeak, "r_true", q->r_true, "z_true", q->z_true,
                                              "sigma", sg, "detected", dt));
    }
    return psrs;
}

json_t *xc_zloss_json(const xc_zloss_opts *o, const xc_zloss_result *r)
{
    json_t *edges = json_array(), *zcount = json_array();
    for (int b = 0; b <= XC_APPROX_NZBIN; b++)
        json_array_append_new(edges, json_real(r->zedge[b]));
    for (int b = 0; b < XC_APPROX_NZBIN; b++)
        json_array_append_new(zcount, json_integer((json_int_t)r->zcount[b]));
    return json_pack("{s:f, s:f, s:i, s:i, s:I, s:f, s:f, s:o, s:o, s:o, s:o}", "sigma_det", o->sigma_det, "ftol",
                     o->ftol, "zmax", o->zmax, "numharm", o->numharm, "normwidth", (json_int_t)o->normwidth,
                     "bright_power", o->bright_power, "bright_f_hz", o->bright_power > 0 ? xc_zloss_bright_f(o) : 0.0,
                     "z_edges", edges, "z_count", zcount, "modes", zloss_modes_json(r), "pulsars",
                     zloss_pulsars_json(r));
}

json_t *xc_noise_ks_json(const xc_noise_ks *k, int seed_index)
{
    return json_pack("{s:i, s:i, s:i, s:f, s:I, s:f, s:f, s:f, s:f}", "seed_index", seed_index, "numharm", k->numharm,
                     "width", k->width, "dof", k->dof, "n", (json_int_t)k->n, "ks_d", k->ks.stat, "ks_p", k->ks.p,
                     "gof", k->gof.stat, "gof_p", k->gof.p);
}

json_t *xc_noise_fa_json(const xc_noise_fa *f, size_t nbins)
{
    return json_pack("{s:i, s:i, s:f, s:I, s:I, s:f, s:I, s:f, s:I, s:f, s:I, s:I}", "zmax", f->zmax, "numharm",
                     f->numharm, "S", f->S, "nbins", (json_int_t)nbins, "nspec", (json_int_t)f->nspec, "ntrials",
                     f->ntrials, "candidates", (json_int_t)f->count, "candidates_independent", f->expect,
                     "spectra_above", (json_int_t)f->nfam, "p_family", f->pfam, "lo", (json_int_t)f->lo, "hi",
                     (json_int_t)f->hi);
}
