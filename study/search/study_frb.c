/* One burst of an FRB study: its filterbank made once in memory, dedispersed
 * by each single-pulse searcher's dedisperser under its DM plan, searched as
 * `crosscheck singlepulse` searches (core/sp/xc_spsearch.h), and scored
 * against the burst's truth with the single-pulse truth match
 * (compare/xc_spmatch.h): found when a candidate's box centre is within one
 * width (the wider of the box and the burst) of the burst's time and its DM
 * within one DM step of the plan at the burst's DM. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare/xc_spmatch.h"
#include "core/base/xc_nbits.h"
#include "core/base/xc_progress.h"
#include "study/spec/study_internal.h"
#include "synth/write/synth_truth.h"

/* The columns of an FRB study's detections.csv: the best candidate near the
 * burst (nan when none), the tolerances applied, the truth, and the plan's
 * trials and candidates. */
static const char header[] =
    "burst,searcher,config,detected,snr,time_s,dm,width,dt_s,ddm,tol_s,tol_dm,ncands_near,truth_t_s,truth_dm,"
    "truth_width_ms,truth_snr,fluence_jyms,tau_ms,ndm,ncands";
enum { COL_SNR = 4, COL_TDM = 14, COL_TW = 15, COL_TSNR = 16, COL_FL = 17, COL_TAU = 18, NCOLS = 21 };

const char *xc_study_frb_header(void) { return header; }

xc_status xc_study_frb_row_parse(const xc_study *st, const char *line, xc_study_row *row, const char *where,
                                 xc_error *err)
{
    char buf[2048];
    char *col[NCOLS + 1];
    xc_status e = xc_study_row_head(st, line, buf, sizeof buf, col, NCOLS, row, where, err);
    if (e)
        return e;
    const int idx[] = {COL_SNR, COL_TDM, COL_TW, COL_TSNR, COL_FL, COL_TAU};
    double *const dst[] = {&row->sigma, &row->dm, &row->width_ms, &row->snrpeak, &row->fluence, &row->tau_ms};
    return xc_study_row_nums(col, idx, dst, 6, where, err);
}

/* The plan's DM step at dm: at the trial nearest dm, to the next trial of its
 * range (from the previous one for the last; the range's step for a range
 * of one trial). */
static double plan_step(const xc_dmplan *plan, double dm)
{
    double best = INFINITY, step = 0;
    for (int k = 0; k < plan->nranges; k++) {
        const xc_dmrange *r = &plan->r[k];
        for (size_t j = 0; j < r->ndm; j++) {
            double d = fabs(r->dms[j] - dm);
            if (d >= best)
                continue;
            best = d;
            step = r->ndm < 2 ? r->step : j + 1 < r->ndm ? r->dms[j + 1] - r->dms[j] : r->dms[j] - r->dms[j - 1];
        }
    }
    return step;
}

/* The configuration's plan for g: its ranges, else the tolerance list
 * (dedisp's f0 is the highest channel, as `crosscheck singlepulse`'s). */
static xc_status plan_of(const xc_study_spconf *c, const xc_geometry *g, xc_dmplan *plan, xc_error *err)
{
    if (c->dmplan[0])
        return xc_dmplan_parse(plan, c->dmplan, "dmplan", err);
    double f0 = g->foff < 0 ? g->fch1 : g->fch1 + (g->nchans - 1) * g->foff;
    return xc_dmplan_tolerance(plan, c->lodm, c->hidm, g->tsamp, c->dm_pulse_width, f0, fabs(g->foff), g->nchans,
                               c->dm_tol, err);
}

/* A burst's last dedispersed plane, kept for the next configuration that
 * dedisperses the same way (a sweep of thresholds or presets): the same
 * plane, so the same bytes, made once. */
typedef struct {
    int have;
    char key[512];         /* what made it: dedisperser, plan, convention, loss bound */
    xc_dmplan plan;
    xc_plane pl;
} frb_plane;

static void plane_drop(frb_plane *k)
{
    k->have = 0;
    k->key[0] = 0;
    xc_dmplan_free(&k->plan);
    xc_dmplan_init(&k->plan);
    xc_plane_free(&k->pl);
    memset(&k->pl, 0, sizeof k->pl);
}

/* fb dedispersed under c's plan by c's dedisperser into k (kept when k
 * already holds it). */
static xc_status dedisperse(const xc_study_spconf *c, const xc_study_fb *fb, int threads, frb_plane *k,
                            xc_error *err)
{
    char key[sizeof k->key];
    snprintf(key, sizeof key, "%s|%s|%.17g|%.17g|%.17g|%.17g|%s|%.17g", c->dd->name, c->dmplan, c->lodm, c->hidm,
             c->dm_tol, c->dm_pulse_width, c->convention, c->maxloss);
    if (k->have && !strcmp(key, k->key))
        return XC_OK;
    plane_drop(k);
    xc_ddplan *dp = NULL;
    xc_ddopts o;
    memset(&o, 0, sizeof o);
    o.threads = threads;
    o.maxloss = c->maxloss;
    xc_status e;
    if ((e = plan_of(c, &fb->geom, &k->plan, err)) ||
        (e = xc_ddplan_create(&dp, xc_dedisperser_of(c->dd), &fb->geom, fb->blk.nbits, &k->plan,
                              xc_convention_get(c->convention), NULL, &o, err)))
        goto done;
    if ((int64_t)fb->blk.nsamp <= xc_ddplan_max_delay(dp)) {
        e = xc_error_set(err, XC_EINVAL, "nsamp %zu is not longer than the plan's largest delay, %lld samples: "
                         "lengthen tobs_s or lower hidm", fb->blk.nsamp, (long long)xc_ddplan_max_delay(dp));
        goto done;
    }
    if (!(e = xc_ddplan_plane_alloc(dp, fb->blk.nsamp, &k->pl, err)) &&
        !(e = xc_ddplan_execute(dp, &fb->blk, &k->pl, err))) {
        snprintf(k->key, sizeof k->key, "%s", key);
        k->have = 1;
    }
done:
    xc_ddplan_destroy(dp);
    if (e)
        plane_drop(k);
    return e;
}

/* The plane dedispersed for c (kept in k) searched by s as `crosscheck
 * singlepulse` searches it. */
static xc_status search(const xc_spsearcher *s, const xc_study_spconf *c, const xc_study_fb *fb, int threads,
                        frb_plane *k, xc_spcandlist *l, double *dd_s, xc_error *err)
{
    double t0 = xc_now();
    xc_status e = dedisperse(c, fb, threads, k, err);
    *dd_s = xc_now() - t0;
    if (e)
        return e;
    size_t ndms = xc_dmplan_ndm(&k->plan);
    double *dms = malloc((ndms ? ndms : 1) * sizeof *dms);
    xc_spplane *v = calloc((size_t)(k->plan.nranges ? k->plan.nranges : 1), sizeof *v);
    if (!dms || !v) {
        e = xc_error_set(err, XC_ENOMEM, "out of memory for %zu DM trials", ndms);
    } else {
        xc_spplane_views(&k->plan, &k->pl, fb->geom.tsamp, v, dms);
        xc_spopts so = c->o;
        so.threads = threads;
        e = xc_sp_search(s, &so, v, k->pl.nranges, fb->geom.tsamp, dms, ndms, l, err);
    }
    free(v);
    free(dms);
    return e;
}

/* The row of searcher k's configuration c on burst id. */
static xc_status score(const xc_study *st, uint64_t id, int k, int c, const xc_synth_pulse *in, const xc_truth *t,
                       const xc_dmplan *plan, const xc_spcandlist *l, xc_study_row *row, xc_error *err)
{
    xc_spmatch_opts mo;
    xc_spmatch_opts_init(&mo);
    mo.tol_dm = plan_step(plan, t->pulses[0].dm);
    xc_sptruth_result r;
    char name[64];
    snprintf(name, sizeof name, "burst %llu", (unsigned long long)id);
    xc_status e = xc_spmatch_truth(l, name, t, &mo, &r, err);
    if (e)
        return e;
    const xc_spburst *b = &r.bursts[0];
    const xc_spcand *cd = b->found ? &l->c[b->index] : NULL;
    const xc_truth_pulse *tp = &t->pulses[0];
    const double v[] = {cd ? cd->snr : NAN,     cd ? xc_spcand_centre_s(l, cd) : NAN,
                        cd ? cd->dm : NAN,      cd ? (double)cd->width : NAN,
                        cd ? b->dt_s : NAN,     cd ? b->ddm : NAN,
                        cd ? b->tol_s : NAN,    b->tol_dm,
                        (double)b->count,       tp->t_s,
                        tp->dm,                 tp->width_ms,
                        b->truth_snr,           in->fluence_jyms,
                        in->tau_ms,             (double)xc_dmplan_ndm(plan),
                        (double)l->n};
    xc_sptruth_result_free(&r);
    char line[1536];
    size_t len = (size_t)snprintf(line, sizeof line, "%llu,%s,%s,%d", (unsigned long long)id, st->s[k].name,
                                  st->s[k].cfg[c].label, cd != NULL);
    for (size_t q = 0; q < sizeof v / sizeof *v && len < sizeof line; q++) {
        char num[40];
        xc_study_fmt_num(num, sizeof num, v[q], 10);
        len += (size_t)snprintf(line + len, sizeof line - len, ",%s", num);
    }
    if (len >= sizeof line)
        return xc_error_set(err, XC_EINVAL, "%s: row too long", name);
    if ((e = xc_study_row_parse(st, line, row, name, err)))
        return e;
    if (!(row->line = strdup(line)))
        return xc_error_set(err, XC_ENOMEM, "out of memory");
    return XC_OK;
}

/* Searcher k's configuration c (search q) on the burst, its row appended to
 * out; secs (NULL: not timed) as xc_study_frb_burst takes it. */
static xc_status one(const xc_study *st, uint64_t id, int k, int c, size_t q, const xc_synth_params *p,
                     const xc_truth *t, const xc_study_fb *fb, int threads, frb_plane *kept, xc_study_rows *out,
                     double *secs, xc_error *err)
{
    const xc_study_searcher *s = &st->s[k];
    const xc_study_spconf *cf = &s->cfg[c].sp;
    xc_spcandlist l;
    xc_spcandlist_init(&l);
    xc_error se;
    xc_error_clear(&se);
    xc_status e;
    double t0 = xc_now(), dd = 0;
    if ((s->impl->caps | cf->dd->caps) & XC_CAP_DEVICE) {
#pragma omp critical(xc_study_device)
        e = search(xc_spsearcher_of(s->impl), cf, fb, threads, kept, &l, &dd, &se);
    } else {
        e = search(xc_spsearcher_of(s->impl), cf, fb, threads, kept, &l, &dd, &se);
    }
    double t1 = xc_now();
    if (secs)
        secs[1] += dd, secs[3 + q] += t1 - t0 - dd;
    if (e) {
        xc_error_set(err, e, "burst %llu, searcher %s (%s, dedisperser %s), %s: %s", (unsigned long long)id, s->name,
                     s->impl->name, cf->dd->name, s->cfg[c].label, se.msg);
    } else {
        xc_study_row row;
        memset(&row, 0, sizeof row);
        if (!(e = score(st, id, k, c, &p->pulses[0], t, &kept->plan, &l, &row, err)) &&
            (e = xc_study_rows_push(out, &row, err)))
            free(row.line);
        if (secs)
            secs[2] += xc_now() - t1;
    }
    xc_spcandlist_free(&l);
    return e;
}

/* The bytes configuration c holds at its peak on a filterbank of geometry g
 * and nsamp spectra, beside the filterbank: the plane of its plan (one at a
 * time: a kept plane is dropped before the next is made), the
 * dedisperser's delay tables (a trial's delay per channel), the direct CPU
 * dedisperser's working memory (its channel-major copy of the input, one
 * downsample factor at a time, values of 1, 2 or 4 bytes as the scrunched
 * sums need, optimized/cpu/dedisperse_cpu.c; and each thread's 32 x 2048
 * wide sums) and the search's scratch (xc_sp_search_memory). */
static xc_status config_memory(const xc_study_spconf *c, const xc_geometry *g, int nbits, size_t nsamp, int threads,
                               double *bytes, xc_error *err)
{
    xc_dmplan plan;
    xc_dmplan_init(&plan);
    int64_t maxd = 0;
    xc_spplane *v = NULL;
    xc_status e = plan_of(c, g, &plan, err);
    if (!e)
        e = xc_dmplan_max_delay(xc_convention_get(c->convention), g, &plan, &maxd, err);
    if (!e && !(v = calloc((size_t)(plan.nranges > 0 ? plan.nranges : 1), sizeof *v)))
        e = xc_error_set(err, XC_ENOMEM, "out of memory for %d DM ranges", plan.nranges);
    if (!e) {
        const size_t nout = (int64_t)nsamp > maxd ? nsamp - (size_t)maxd : 0;
        double plane = 0, copy = 0;
        for (int k = 0; k < plan.nranges; k++) {
            const xc_dmrange *r = &plan.r[k];
            const double top = xc_nbits_is_float(nbits) ? -1 : ((1 << (nbits > 16 ? 16 : nbits)) - 1.0) * r->ds;
            const double one = top < 0 ? 4 : top <= 255 ? 1 : top <= 65535 ? 2 : 4;
            const double c1 = g->nchans * ((double)(nout / (size_t)r->ds) + (double)maxd / r->ds) * one;
            copy = c1 > copy ? c1 : copy;
            v[k] = (xc_spplane){.nrows = r->ndm, .nsamp = nout / (size_t)r->ds, .stride = nout / (size_t)r->ds,
                                .tsamp = g->tsamp * r->ds, .ds = r->ds};
            plane += (double)r->ndm * (double)(nout / (size_t)r->ds) * sizeof(float);
        }
        xc_spopts so = c->o;
        so.threads = threads;
        *bytes = plane + (double)xc_dmplan_ndm(&plan) * g->nchans * sizeof(int32_t) + copy +
                 (threads > 0 ? threads : 1) * 32.0 * 2048 * sizeof(uint64_t) +
                 xc_sp_search_memory(&so, v, plan.nranges, threads);
    }
    free(v);
    xc_dmplan_free(&plan);
    return e;
}

xc_status xc_study_frb_memory(const xc_study *st, int threads, double *bytes, xc_error *err)
{
    *bytes = 0;
    xc_synth_params p;
    char label[64];
    xc_status e = xc_study_params(st, 0, threads, "burst", &p, label, sizeof label, err);
    if (e)
        return e;
    const double nvals = (double)xc_synth_nsamp(&p) * p.nchans;
    const int isf = xc_nbits_is_float(p.nbits);
    /* the filterbank as made (packed, then unpacked to 16 bits beside it) and as held */
    const double held = nvals * (isf ? 4.0 : 2.0);
    double most = isf ? held : nvals * (p.nbits / 8.0 + 2.0);
    const xc_geometry g = {p.nchans, p.fch1, xc_synth_foff(&p), p.tsamp};
    for (size_t k = 0; k < st->ns && !e; k++)
        for (size_t c = 0; c < st->s[k].ncfg && !e; c++) {
            double b = 0;
            e = config_memory(&st->s[k].cfg[c].sp, &g, p.nbits, (size_t)xc_synth_nsamp(&p), threads, &b, err);
            most = held + b > most ? held + b : most;
        }
    xc_synth_params_free(&p);
    *bytes = e ? 0 : most;
    return e;
}

xc_status xc_study_frb_burst(const xc_study *st, uint64_t id, const unsigned char *want, int threads,
                             xc_study_rows *out, double *secs, xc_error *err)
{
    double t0 = xc_now();
    xc_synth_params p;
    char label[64];
    xc_status e = xc_study_params(st, id, threads, "burst", &p, label, sizeof label, err);
    if (e)
        return e;
    xc_truth t;
    memset(&t, 0, sizeof t);
    xc_study_fb fb;
    memset(&fb, 0, sizeof fb);
    frb_plane kept;
    memset(&kept, 0, sizeof kept);
    xc_dmplan_init(&kept.plan);
    if (p.npulses != 1) {
        e = xc_error_set(err, XC_EINVAL, "burst %llu: %zu pulses, expected the population's one burst",
                         (unsigned long long)id, p.npulses);
        goto done;
    }
    if ((e = xc_synth_truth_pulses(&p, label, &t, err)) || (e = xc_study_fb_make(&p, &fb, err)))
        goto done;
    if (secs)
        secs[0] += xc_now() - t0;
    for (size_t k = 0, q = 0; k < st->ns && !e; k++)
        for (size_t c = 0; c < st->s[k].ncfg && !e; c++, q++)
            if (!want || want[q])
                e = one(st, id, (int)k, (int)c, q, &p, &t, &fb, threads, &kept, out, secs, err);
done:
    plane_drop(&kept);
    xc_study_fb_free(&fb);
    xc_truth_free(&t);
    xc_synth_params_free(&p);
    return e;
}
