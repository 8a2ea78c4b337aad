/* The record of an approximate plan for its plane file (core/dedisp/run/xc_ddrecord.h). */
#include "core/dedisp/run/xc_ddrecord.h"

#include <math.h>
#include <stdio.h>

#include "core/dedisp/approx/xc_ddapprox.h"
#include "core/dedisp/approx/xc_subband.h"
#include "core/dedisp/approx/xc_tree.h"

static const char *given(const xc_ddjob *job)
{
    return job->opts.nsub ? "given" : "chosen from the geometry and -maxloss";
}

/* The subband parameters as resolved; per range its groups (nominal DMs). */
static xc_status subband_params(const xc_ddjob *job, json_t *p, json_t *ranges, char *setup, size_t n, xc_error *err)
{
    xc_subplan sp;
    xc_status st = xc_subplan_make(&sp, job, err);
    if (st)
        return st;
    json_object_set_new(p, "nsub", json_integer(sp.nsub));
    json_object_set_new(p, "nsub_source", json_string(given(job)));
    json_object_set_new(p, "alignment", json_string(xc_subalign_name(sp.align)));
    json_object_set_new(p, "split", json_string(xc_subsplit_name(sp.split)));
    json_t *fc = json_array();
    for (int s = 0; s <= sp.nsub; s++)
        json_array_append_new(fc, json_integer(sp.sub_first[s]));
    json_object_set_new(p, "subband_first_channels", fc);
    json_object_set_new(p, "dmsub", json_real(sp.dmsub));
    json_object_set_new(p, "dmsub_source",
                        json_string(sp.dmsub > 0 ? "given" : "groups grown while every trial's smear is within "
                                                              "the budget"));
    json_object_set_new(p, "budget_samples", json_real(sp.budget));
    for (int k = 0; k < sp.nranges; k++)
        json_object_set_new(json_array_get(ranges, (size_t)k), "ngroups", json_integer(sp.r[k].ngroups));
    if (sp.dmsub > 0)
        snprintf(setup, n, "nsub %d (%s), dmsub %g, alignment %s, split %s", sp.nsub, given(job), sp.dmsub,
                 xc_subalign_name(sp.align), xc_subsplit_name(sp.split));
    else
        snprintf(setup, n, "nsub %d (%s), nominal DMs within a %g-sample budget, alignment %s, split %s", sp.nsub,
                 given(job), sp.budget, xc_subalign_name(sp.align), xc_subsplit_name(sp.split));
    xc_subplan_free(&sp);
    return XC_OK;
}

/* The tree parameters as resolved; per range its diagonal DM and largest block. */
static xc_status tree_params(const xc_ddjob *job, int kind, json_t *p, json_t *ranges, char *setup, size_t n,
                             xc_error *err)
{
    xc_treeplan tp;
    xc_status st = xc_treeplan_make(&tp, job, kind, err);
    if (st)
        return st;
    json_object_set_new(p, "nsub", json_integer(tp.nsub));
    json_object_set_new(p, "nsub_source", json_string(kind == XC_TREE_PADDED ? "one tree over the padded grid"
                                                                              : given(job)));
    json_object_set_new(p, "tree_size", json_integer(tp.m));
    json_object_set_new(p, "positions", json_integer(tp.npos));
    json_object_set_new(p, "line_spread_samples", json_real(tp.tm));
    for (int k = 0; k < tp.nranges; k++) {
        json_t *r = json_array_get(ranges, (size_t)k);
        json_object_set_new(r, "diagonal_dm", isfinite(tp.r[k].diag_dm) ? json_real(tp.r[k].diag_dm) : json_null());
        json_object_set_new(r, "largest_block", json_integer(tp.r[k].jmax));
    }
    if (kind == XC_TREE_PADDED)
        snprintf(setup, n, "one tree of %d positions", tp.m);
    else
        snprintf(setup, n, "nsub %d (%s), trees of %d channels", tp.nsub, given(job), tp.m);
    xc_treeplan_free(&tp);
    return XC_OK;
}

/* Per range: the DMs' bounds as four arrays. */
static json_t *bound_ranges(const xc_ddjob *job, xc_ddbound *const *b, double width)
{
    json_t *ranges = json_array();
    for (int k = 0; k < job->plan->nranges; k++) {
        json_t *nom = json_array(), *sm = json_array(), *bd = json_array(), *lo = json_array();
        for (size_t i = 0; i < job->plan->r[k].ndm; i++) {
            json_array_append_new(nom, json_real(b[k][i].nominal));
            json_array_append_new(sm, json_real(b[k][i].smear));
            json_array_append_new(bd, json_integer(b[k][i].bound));
            json_array_append_new(lo, json_real(xc_subband_loss_bound(width, b[k][i].bound)));
        }
        json_array_append_new(ranges, json_pack("{s:o,s:o,s:o,s:o}", "nominal_dm", nom, "smear_samples", sm,
                                                "bound_samples", bd, "loss_bound", lo));
    }
    return ranges;
}

xc_status xc_ddapprox_record(const xc_dedisperser *self, const xc_ddjob *job, json_t **out, xc_ddloss *loss,
                             char *setup, size_t n, xc_error *err)
{
    xc_ddbound **b = NULL;
    xc_status st = xc_ddloss_of(self, job, loss, &b, err);
    if (st)
        return st;
    const xc_ddapprox *a = xc_ddapprox_of(self);
    json_t *root = json_object(), *p = json_object(), *ranges = bound_ranges(job, b, loss->width);
    xc_ddbound_free(b, job->plan->nranges);
    snprintf(setup, n, "nsub %d, dmsub %g (as given)", job->opts.nsub, job->opts.dmsub);
    if (a && a->algo == XC_DDAPPROX_SUBBAND)
        st = subband_params(job, p, ranges, setup, n, err);
    else if (a)
        st = tree_params(job, a->tree_kind, p, ranges, setup, n, err);
    else
        json_object_set_new(p, "options", json_pack("{s:i,s:f,s:i,s:i,s:f}", "nsub", job->opts.nsub, "dmsub",
                                                    job->opts.dmsub, "subalign", job->opts.subalign, "subsplit",
                                                    job->opts.subsplit, "subbudget", job->opts.subbudget));
    json_object_set_new(root, "algorithm", json_string(a ? a->path : self->impl.name));
    json_object_set_new(root, "parameters", p);
    json_object_set_new(root, "maxloss", json_real(loss->maxloss));
    json_object_set_new(root, "loss_width_samples", json_real(loss->width));
    json_object_set_new(root, "loss_model", json_string("a boxcar pulse of W samples under a matched boxcar loses "
                                                        "at most 1 - sqrt(W/(W+S)), S = bound_samples of its trial"));
    json_object_set_new(root, "worst", json_pack("{s:f,s:i,s:I,s:f,s:i,s:f}", "loss_bound", loss->loss, "range",
                                                 loss->range, "trial", (json_int_t)loss->trial, "dm", loss->dm,
                                                 "bound_samples", (int)loss->bound, "smear_samples", loss->smear));
    json_object_set_new(root, "ranges", ranges);
    if (st || !root || !p || !ranges) {
        json_decref(root);
        return st ? st : xc_error_set(err, XC_ENOMEM, "out of memory for the record of %s", self->impl.name);
    }
    *out = root;
    return XC_OK;
}

xc_status xc_ddapprox_record_checked(const xc_dedisperser *self, const xc_ddjob *job, json_t **out, xc_ddloss *loss,
                                     xc_error *err)
{
    char setup[256];
    xc_status st = xc_ddapprox_record(self, job, out, loss, setup, sizeof setup, err);
    if (st)
        return st;
    const xc_ddapprox *a = xc_ddapprox_of(self);
    const char *remedy = !a ? NULL
                         : a->algo == XC_DDAPPROX_SUBBAND ? "a larger -nsub, a smaller -dmsub or -subbudget"
                         : a->algo == XC_DDAPPROX_TREE   ? "a larger -nsub (shorter trees)"
                                                         : "the piecewise tree or subband dedispersion (the padded "
                                                           "tree has no parameter to change)";
    if ((st = xc_ddloss_check(self->impl.name, setup, remedy, loss, err))) {
        json_decref(*out);
        *out = NULL;
    }
    return st;
}
