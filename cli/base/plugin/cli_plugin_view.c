/* The plugin ABI's views made from crosscheck's internal structs, and the
 * host table's services. */
#include "cli/base/plugin/cli_plugin_view.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/xc_impl.h"
#include "core/dedisp/plan/xc_dmplan.h"

/* The header's codes are crosscheck's values (a plugin's status and caps
 * pass through unchanged). */
#define SAME(a, b) ((int)(a) == (int)(b))
_Static_assert(SAME(XCP_OK, XC_OK) && SAME(XCP_EINVAL, XC_EINVAL) && SAME(XCP_EFORMAT, XC_EFORMAT) &&
                   SAME(XCP_EIO, XC_EIO) && SAME(XCP_ENOMEM, XC_ENOMEM) && SAME(XCP_EUNAVAIL, XC_EUNAVAIL) &&
                   SAME(XCP_EMISMATCH, XC_EMISMATCH) && SAME(XCP_EDEVICE, XC_EDEVICE),
               "xc_plugin.h's status codes are xc_status's");
_Static_assert(sizeof(((xcp_error *)0)->msg) == sizeof(((xc_error *)0)->msg), "xcp_error holds xc_error's message");
_Static_assert(SAME(XCP_CAP_THREADED, XC_CAP_THREADED) && SAME(XCP_CAP_DEVICE, XC_CAP_DEVICE) &&
                   SAME(XCP_CAP_APPROXIMATE, XC_CAP_APPROXIMATE) && SAME(XCP_CAP_RUNTIME, XC_CAP_RUNTIME),
               "xc_plugin.h's caps are xc_impl's");
_Static_assert(SAME(XCP_TOL_EXACT, XC_TOL_EXACT) && SAME(XCP_TOL_ROUNDING, XC_TOL_ROUNDING) &&
                   SAME(XCP_TOL_RELATIVE, XC_TOL_RELATIVE) && SAME(XCP_TOL_SIGNAL_LOSS, XC_TOL_SIGNAL_LOSS),
               "xc_plugin.h's tolerance kinds are xc_tol_kind's");
_Static_assert(SAME(XCP_ROUND_HALF_AWAY, XC_ROUND_HALF_AWAY) && SAME(XCP_ROUND_HALF_EVEN, XC_ROUND_HALF_EVEN) &&
                   SAME(XCP_ROUND_TRUNC, XC_ROUND_TRUNC) && SAME(XCP_PREC_DOUBLE, XC_PREC_DOUBLE) &&
                   SAME(XCP_PREC_FLOAT, XC_PREC_FLOAT) && SAME(XCP_SCALE_SUM, XC_SCALE_SUM) &&
                   SAME(XCP_SCALE_DEDISP, XC_SCALE_DEDISP) && SAME(XCP_SCALE_MEAN_AA, XC_SCALE_MEAN_AA),
               "xc_plugin.h's convention values are xc_dmplan.h's");
_Static_assert(SAME(XCP_NORM_EXACT, XC_NORM_EXACT) && SAME(XCP_NORM_MOM, XC_NORM_MOM) &&
                   SAME(XCP_LOGP_EXACT, XC_LOGP_EXACT) && SAME(XCP_LOGP_POLY, XC_LOGP_POLY),
               "xc_plugin.h's search modes are xc_search.h's");
_Static_assert(SAME(XCP_SP_MEDIAN_MAD, XC_SP_MEDIAN_MAD) && SAME(XCP_SP_MEAN_SD, XC_SP_MEAN_SD),
               "xc_plugin.h's row statistics are xc_spsearch.h's");

xc_status xc_plugin_job_view(const xc_ddjob *job, xc_plugin_jobview *jv, xc_error *err)
{
    const xc_dmplan *p = job->plan;
    memset(jv, 0, sizeof *jv);
    jv->range = calloc(p->nranges > 0 ? (size_t)p->nranges : 1, sizeof *jv->range);
    if (!jv->range)
        return xc_error_set(err, XC_ENOMEM, "out of memory for a plugin's job");
    for (int k = 0; k < p->nranges; k++)
        jv->range[k] = (xcp_ddrange){.ds = p->r[k].ds, .ndm = p->r[k].ndm, .dms = p->r[k].dms,
                                     .delays = job->delays ? job->delays[k] : NULL};
    const xc_block *in = job->in;
    jv->v = (xcp_ddjob){
        .size = sizeof(xcp_ddjob),
        .nchans = in ? in->nchans : job->geom.nchans,
        .nbits = job->nbits,
        .nsamp = in ? in->nsamp : 0,
        .u16 = in ? in->u16 : NULL,
        .f32 = in ? in->f32 : NULL,
        .fch1 = job->geom.fch1,
        .foff = job->geom.foff,
        .tsamp = job->geom.tsamp,
        .convention = job->conv->name,
        .kdm = job->conv->kdm,
        .rounding = (int)job->conv->rounding,
        .precision = (int)job->conv->precision,
        .scaling = (int)job->conv->scaling,
        .threads = job->opts.threads,
        .nranges = p->nranges,
        .range = jv->range,
        .max_delay = job->max_delay,
        .nout = in ? job->nout : 0,
        .killmask = job->killmask,
    };
    return XC_OK;
}

void xc_plugin_job_view_free(xc_plugin_jobview *jv)
{
    free(jv->range);
    jv->range = NULL;
}

xc_status xc_plugin_plane_view(xc_plane *pl, xcp_plane *v, xc_error *err)
{
    xcp_planerange *r = calloc(pl->nranges > 0 ? (size_t)pl->nranges : 1, sizeof *r);
    if (!r)
        return xc_error_set(err, XC_ENOMEM, "out of memory for a plugin's plane");
    for (int k = 0; k < pl->nranges; k++)
        r[k] = (xcp_planerange){.ds = pl->r[k].ds, .ndm = pl->r[k].ndm, .nsamp = pl->r[k].nsamp,
                                .data = pl->r[k].data};
    *v = (xcp_plane){.size = sizeof(xcp_plane), .nranges = pl->nranges, .range = r};
    return XC_OK;
}

void xc_plugin_plane_view_free(xcp_plane *v)
{
    free(v->range);
    v->range = NULL;
}

void xc_plugin_spectrum_view(const xc_spectrum *sp, xcp_spectrum *v)
{
    *v = (xcp_spectrum){.size = sizeof(xcp_spectrum), .nbins = sp->nbins, .data = sp->data, .dt = sp->dt,
                        .T = sp->T};
}

void xc_plugin_psopts_view(const xc_psopts *o, xcp_psopts *v)
{
    *v = (xcp_psopts){
        .size = sizeof(xcp_psopts),
        .zmax = o->zmax,
        .numharm = o->numharm,
        .zstep = o->zstep,
        .zlog = o->zlog,
        .rblock = o->rblock,
        .nosift = o->nosift,
        .norm = (int)o->norm,
        .logp = (int)o->logp,
        .threads = o->threads,
        .chunkwidth = o->chunkwidth,
        .normwidth = o->normwidth,
        .sigma = o->sigma,
    };
}

void xc_plugin_spconf_view(const xc_spconf *c, xcp_spconf *v)
{
    *v = (xcp_spconf){.size = sizeof(xcp_spconf), .stat = (int)c->stat, .nwidths = c->nwidths,
                      .threshold = c->threshold, .block = c->block, .widths = c->widths, .threads = c->threads};
}

void xc_plugin_spplane_view(const xc_spplane *pl, xcp_spplane *v)
{
    *v = (xcp_spplane){.size = sizeof(xcp_spplane), .data = pl->data, .nrows = pl->nrows, .nsamp = pl->nsamp,
                       .stride = pl->stride, .tsamp = pl->tsamp, .ds = pl->ds, .dms = pl->dms,
                       .row_s = pl->row_s, .row_m = pl->row_m};
}

xc_status xc_plugin_error_in(xcp_status st, const xcp_error *pe, const char *who, xc_error *err)
{
    if (st == XCP_OK)
        return XC_OK;
    if (st < XCP_OK || st > XCP_EDEVICE)
        return xc_error_set(err, XC_EIO, "plugin %s returned status %d, not one of xc_plugin.h's codes%s%.900s", who,
                            st, pe->msg[0] ? ": " : "", pe->msg);
    if (!memchr(pe->msg, 0, sizeof pe->msg) || !pe->msg[0])
        return xc_error_set(err, (xc_status)st, "plugin %s: %s (no message)", who, xc_strerror((xc_status)st));
    return xc_error_set(err, (xc_status)st, "%s", pe->msg);
}

xcp_status xc_plugin_error_out(const xc_error *e, xcp_error *pe)
{
    if (pe) {
        pe->code = (int)e->code;
        snprintf(pe->msg, sizeof pe->msg, "%s", e->msg);
    }
    return (xcp_status)e->code;
}

xcp_status xc_plugin_host_error_set(xcp_error *err, xcp_status code, const char *fmt, ...)
{
    if (err) {
        err->code = code;
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
    }
    return code;
}

/* The scaling reads only the convention's scaling member. */
float xc_plugin_host_scale_int(const xcp_ddjob *job, uint64_t sum, int ds)
{
    xc_convention cv = {.scaling = (xc_scaling)job->scaling};
    return xc_scale_int(&cv, sum, job->nchans, ds, job->nbits);
}

float xc_plugin_host_scale_real(const xcp_ddjob *job, double sum, int ds)
{
    xc_convention cv = {.scaling = (xc_scaling)job->scaling};
    return xc_scale_real(&cv, sum, job->nchans, ds, job->nbits);
}

xcp_status xc_plugin_host_peaks_push(xcp_peaks *pk, const xcp_peak *p, xcp_error *err)
{
    if (!pk || !p || !XCP_HAS(p, xcp_peak, logp))
        return xc_plugin_host_error_set(err, XCP_EINVAL, "peaks_push: no peak list, or a peak whose size (%zu) is "
                                        "below xc_plugin.h's", p ? p->size : 0);
    if (p->numharm < 1 || p->numharm > pk->numharm || p->width < 1 || p->width > pk->zmax + 1 ||
        p->i + (size_t)p->width > xc_pulscan_nfund(pk->nbins, p->numharm) || !(p->power == p->power))
        return xc_plugin_host_error_set(err, XCP_EINVAL, "peaks_push: a peak outside the search (start %zu, width "
                                        "%d, stage %d, power %g; zmax %d, numharm %d, %zu bins)", p->i, p->width,
                                        p->numharm, p->power, pk->zmax, pk->numharm, pk->nbins);
    xc_error e;
    if (xc_pspeaks_push(pk->list, p->i, p->width, p->numharm, p->power, &e))
        return xc_plugin_error_out(&e, err);
    if (pk->scored) {
        pk->list->p[pk->list->n - 1].logp = p->logp;
        pk->list->p[pk->list->n - 1].filled = p->filled;
    }
    return XCP_OK;
}

xcp_status xc_plugin_host_spdets_push(xcp_spdets *out, const xcp_spdet *d, xcp_error *err)
{
    if (!out || !d || !XCP_HAS(d, xcp_spdet, end))
        return xc_plugin_host_error_set(err, XCP_EINVAL, "spdets_push: no detection list, or a detection whose size "
                                        "(%zu) is below xc_plugin.h's", d ? d->size : 0);
    int64_t w = d->width, n = (int64_t)out->nsamp;
    if (d->windex < 0 || d->windex >= out->nwidths || w != out->widths[d->windex] || d->dm_index < 0 ||
        (size_t)d->dm_index >= out->nrows || d->sample < 0 || d->sample + w > n || d->begin < 0 ||
        d->begin > d->sample || d->end < d->sample + w || d->end > n || !isfinite(d->snr))
        return xc_plugin_host_error_set(err, XCP_EINVAL, "spdets_push: a detection outside the search (sample %lld, "
                                        "width %d, windex %d, row %d, begin %lld, end %lld, snr %g; %zu rows of "
                                        "%zu samples, %d widths)", (long long)d->sample, (int)d->width,
                                        (int)d->windex, (int)d->dm_index, (long long)d->begin, (long long)d->end,
                                        d->snr, out->nrows, out->nsamp, out->nwidths);
    xc_spdet x = {d->snr, d->sample, d->width, d->windex, d->dm_index, d->begin, d->end};
    xc_error e;
    return xc_spdets_add(out->list, &x, &e) ? xc_plugin_error_out(&e, err) : XCP_OK;
}

/* The row statistics and the box baseline read only the block and the statistic. */
static xc_spconf spconf_of(const xcp_spconf *c)
{
    xc_spconf k = {.stat = (xc_sp_stat)c->stat, .block = c->block ? c->block : 1};
    return k;
}

void xc_plugin_host_sp_row_stats(const xcp_spconf *c, const float *x, size_t n, double *m, double *s, double *tmp)
{
    xc_spconf k = spconf_of(c);
    xc_sp_row_stats(x, n, &k, m, s, tmp);
}

double xc_plugin_host_sp_box_baseline(const xcp_spconf *c, const double *m, size_t n, size_t t, size_t w)
{
    return xc_sp_box_baseline(m, n, spconf_of(c).block, t, w);
}
