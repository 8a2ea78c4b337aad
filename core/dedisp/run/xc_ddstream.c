#include "core/base/xc_nbits.h"
#include "core/dedisp/run/xc_ddstream.h"
#include "core/dedisp/run/xc_ddrecord.h"
#include "core/base/xc_fmt.h"
#include "core/base/xc_mem.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/xc_progress.h"

static size_t lcm_ds(const xc_dmplan *p)
{
    size_t l = 1;
    for (int k = 0; k < p->nranges; k++) {
        size_t a = l, b = (size_t)p->r[k].ds;
        while (b) {
            size_t t = a % b;
            a = b;
            b = t;
        }
        l = l / a * (size_t)p->r[k].ds;
    }
    return l;
}

static xc_status stream(xc_fbreader *r, const char *out, const xc_ddstream_args *a, xc_ddplan *dp,
                        const xc_ddstream_est *est, json_t *rec, double *seconds, xc_error *err);

/* Where the trials go: a plane (npy) or one series per trial. */
typedef struct {
    xc_planewriter *plane;
    xc_serieswriter *series;
} sink;

static xc_status sink_open(sink *s, const char *out, const xc_ddstream_args *a, const size_t *ns,
                           const xc_fbheader *h, xc_error *err)
{
    memset(s, 0, sizeof *s);
    if (a->series.format == XC_DDOUT_NPY)
        return xc_planewriter_open(&s->plane, out, a->plan, ns, err);
    return xc_serieswriter_open(&s->series, out, &a->series, a->plan, ns, h, err);
}

static xc_status sink_put(sink *s, int k, size_t t0, const xc_planerange *pr, xc_error *err)
{
    return s->plane ? xc_planewriter_put(s->plane, k, t0, pr, err) : xc_serieswriter_put(s->series, k, t0, pr, err);
}

static void sink_abort(sink *s)
{
    if (s->plane)
        xc_planewriter_abort(s->plane);
    else
        xc_serieswriter_abort(s->series);
}

static xc_status sink_commit(sink *s, const xc_planemeta *m, xc_error *err)
{
    return s->plane ? xc_planewriter_commit(s->plane, m, err) : xc_serieswriter_commit(s->series, m, err);
}

/* An approximate dedisperser's record for the plane file, refused (before
 * anything is written) when its declared loss is above the limit. */
static xc_status approx_record(const xc_ddstream_args *a, const xc_geometry *g, int nbits, json_t **rec,
                               xc_error *err)
{
    xc_ddjob job;
    xc_status st = xc_ddjob_prepare(&job, g->nchans, nbits, a->plan, a->conv, g, a->killmask, err);
    if (st)
        return st;
    job.opts = a->opts;
    job.tune = a->tune;
    xc_ddloss loss;
    st = xc_ddapprox_record_checked(a->impl, &job, rec, &loss, err);
    xc_ddjob_free(&job);
    return st;
}

xc_status xc_ddstream_estimate(xc_fbreader *r, const xc_ddstream_args *a, xc_ddstream_est *est, xc_error *err)
{
    const xc_fbheader *h = xc_fbreader_header(r);
    xc_geometry g = {h->nchans, h->fch1, h->foff, h->tsamp};
    if (a->ifno < 0 || a->ifno >= h->nifs)
        return xc_error_set(err, XC_EINVAL, "%s: IF %d: the file has %d IFs", a->input_name, a->ifno, h->nifs);
    /* the largest delay against the data (it costs one trial's delays per range) */
    int64_t maxd = 0;
    xc_status st = xc_dmplan_max_delay(a->conv, &g, a->plan, &maxd, err);
    if (st)
        return st;
    if ((uint64_t)maxd >= h->nsamp)
        return xc_error_set(err, XC_EINVAL,
                            "%s: the plan's largest delay (%lld samples) is not smaller than the data (%llu samples)",
                            a->input_name, (long long)maxd, (unsigned long long)h->nsamp);
    if (xc_dmplan_ndm(a->plan) == 0)
        return xc_error_set(err, XC_EINVAL, "%s: the DM plan has no trial", a->input_name);
    for (int k = 0; k < a->plan->nranges; k++)
        if ((h->nsamp - (uint64_t)maxd) / (uint64_t)a->plan->r[k].ds == 0 || a->plan->r[k].ndm == 0)
            return xc_error_set(err, XC_EINVAL,
                                "%s: range %d of the DM plan (%zu trials, downsample %d) gets no output: %llu samples "
                                "remain after the plan's largest delay of %lld",
                                a->input_name, k, a->plan->r[k].ndm, a->plan->r[k].ds,
                                (unsigned long long)(h->nsamp - (uint64_t)maxd), (long long)maxd);
    size_t total_out = (size_t)(h->nsamp - (uint64_t)maxd), L = lcm_ds(a->plan);
    double in1 = (double)h->nchans * (xc_nbits_is_float(h->nbits) ? 4.0 : 2.0);   /* bytes a spectrum */
    double per = 0;   /* plane bytes per output sample */
    for (int k = 0; k < a->plan->nranges; k++)
        per += (double)a->plan->r[k].ndm / a->plan->r[k].ds * sizeof(float);
    est->min_gulp = L;
    est->fixed = (double)xc_dmplan_ndm(a->plan) * h->nchans * sizeof(int32_t) + (double)maxd * in1;
    est->per_sample = in1 + per;
    size_t gulp = a->gulp;
    if (gulp == 0) {
        /* about 64 MiB of input, and a plane of at most 1 GiB per gulp, within -max_memory */
        gulp = (size_t)((double)(64u << 20) / in1);
        if (per > 0 && (double)gulp * per > (double)(1u << 30))
            gulp = (size_t)((double)(1u << 30) / per);
        if (a->max_memory > 0 && est->fixed + (double)gulp * est->per_sample > a->max_memory)
            gulp = a->max_memory > est->fixed ? (size_t)((a->max_memory - est->fixed) / est->per_sample) : 0;
        gulp = gulp / L * L;
    }
    gulp = (gulp + L - 1) / L * L;
    if (gulp < L)
        gulp = L;
    if (gulp > (total_out + L - 1) / L * L)
        gulp = (total_out + L - 1) / L * L;
    est->gulp = gulp;
    est->bytes = est->fixed + (double)gulp * est->per_sample;
    est->plane = (double)total_out * per;
    char what[200];
    snprintf(what, sizeof what, "%zu DM trials over %d channels with a largest delay of %lld samples, in gulps of %zu",
             xc_dmplan_ndm(a->plan), h->nchans, (long long)maxd, gulp);
    if (a->max_memory > 0 && est->bytes > a->max_memory) {
        char need[32], lim[32];
        xc_fmt_bytes(need, sizeof need, est->bytes);
        xc_fmt_bytes(lim, sizeof lim, a->max_memory);
        return xc_error_set(err, XC_EINVAL,
                            "%s: %s: needs about %s, more than -max_memory %s; use fewer trials (a coarser -dmplan "
                            "step), a lower -hidm%s", a->input_name, what, need, lim, a->gulp ? " or a smaller -gulp" : "");
    }
    return xc_mem_check(est->bytes, a->input_name, what,
                        "use fewer trials (a coarser -dmplan step), a lower -hidm or -max_memory", err);
}

xc_status xc_dedisperse_stream(xc_fbreader *r, const char *out, const xc_ddstream_args *a,
                               double *seconds, xc_error *err)
{
    const xc_fbheader *h = xc_fbreader_header(r);
    xc_geometry g = {h->nchans, h->fch1, h->foff, h->tsamp};
    /* checked before anything large is made */
    xc_ddstream_est est;
    xc_status st = xc_ddstream_estimate(r, a, &est, err);
    if (st)
        return st;
    json_t *rec = NULL;
    if (a->impl->bound && (st = approx_record(a, &g, h->nbits, &rec, err)))
        return st;
    /* One plan for every gulp: delays (and a device's buffers) made once. */
    xc_ddplan *dp;
    st = xc_ddplan_create_tuned(&dp, a->impl, &g, h->nbits, a->plan, a->conv, a->killmask, &a->opts, &a->tune, err);
    if (!st) {
        st = stream(r, out, a, dp, &est, rec, seconds, err);
        xc_ddplan_destroy(dp);
    }
    json_decref(rec);
    return st;
}

static xc_status stream(xc_fbreader *r, const char *out, const xc_ddstream_args *a, xc_ddplan *dp,
                        const xc_ddstream_est *est, json_t *rec, double *seconds, xc_error *err)
{
    const xc_fbheader *h = xc_fbreader_header(r);
    int64_t maxd = xc_ddplan_max_delay(dp);
    xc_status st;
    size_t total_out = (size_t)(h->nsamp - (uint64_t)maxd);
    size_t L = lcm_ds(a->plan);
    /* A direct reference (its loops cost the output's size, whatever the
     * gulp) starts with gulps of about 1/64 of the data and doubles them
     * while one takes less than a second, up to est->gulp: a slow one
     * reports its progress often.  The others (whose work also grows with
     * each gulp's input, the gulp plus the largest delay) take est->gulp at
     * once.  The output does not depend on the gulps. */
    size_t gulp_max = est->gulp, gulp = gulp_max;
    unsigned caps = a->impl->impl.caps;
    if (!a->gulp && (caps & XC_CAP_REFERENCE) && !(caps & XC_CAP_APPROXIMATE)) {
        gulp = (total_out / 64 + L - 1) / L * L;
        if (gulp < L)
            gulp = L;
        if (gulp > gulp_max)
            gulp = gulp_max;
    }
    size_t *ns = malloc((size_t)a->plan->nranges * sizeof *ns);
    if (!ns)
        return xc_error_set(err, XC_ENOMEM, "out of memory");
    for (int k = 0; k < a->plan->nranges; k++)
        ns[k] = total_out / (size_t)a->plan->r[k].ds;
    sink w;
    st = sink_open(&w, out, a, ns, h, err);
    free(ns);
    if (st)
        return st;
    size_t cap = gulp_max + (size_t)maxd;
    if (cap > total_out + (size_t)maxd)
        cap = total_out + (size_t)maxd;
    size_t nvals = cap * (size_t)h->nchans;
    uint16_t *u16 = NULL;
    float *f32 = NULL;
    if (xc_nbits_is_float(h->nbits))
        f32 = malloc(nvals * sizeof *f32);
    else
        u16 = malloc(nvals * sizeof *u16);
    if (!u16 && !f32) {
        sink_abort(&w);
        return xc_error_set(err, XC_ENOMEM, "%s: out of memory for a gulp of %zu spectra", a->input_name, cap);
    }
    double spent = 0;
    for (size_t t0 = 0, nout = 0; t0 < total_out && !st; t0 += nout) {
        double tg = xc_now();
        nout = total_out - t0 < gulp ? total_out - t0 : gulp;
        size_t nin = nout + (size_t)maxd;
        st = xc_nbits_is_float(h->nbits) ? xc_fbreader_read_f32(r, t0, nin, a->ifno, f32, err)
                            : xc_fbreader_read_u16(r, t0, nin, a->ifno, u16, err);
        if (st)
            break;
        xc_block blk = {h->nchans, nin, h->nbits, u16, f32};
        xc_plane pl;
        if (!(st = xc_ddplan_plane_alloc(dp, nin, &pl, err))) {
            double t = xc_now();
            st = xc_ddplan_execute(dp, &blk, &pl, err);
            spent += xc_now() - t;
            for (int k = 0; !st && k < pl.nranges; k++)
                st = sink_put(&w, k, t0 / (size_t)pl.r[k].ds, &pl.r[k], err);
            xc_plane_free(&pl);
        }
        xc_progress_report(&a->progress, "dedisperse", t0 + nout, total_out);
        if (gulp < gulp_max && xc_now() - tg < 1.0)
            gulp = 2 * gulp < gulp_max ? 2 * gulp : gulp_max;
    }
    free(u16);
    free(f32);
    if (st) {
        sink_abort(&w);
        return st;
    }
    xc_planemeta m;
    memset(&m, 0, sizeof m);
    snprintf(m.impl, sizeof m.impl, "%s", a->impl->impl.name);
    snprintf(m.convention, sizeof m.convention, "%s", a->conv->name);
    snprintf(m.cmdline, sizeof m.cmdline, "%s", a->cmdline ? a->cmdline : "");
    snprintf(m.input, sizeof m.input, "%s", a->input_name ? a->input_name : "");
    m.nbits = h->nbits;
    m.nchans = h->nchans;
    m.nchans_used = 0;
    for (int c = 0; c < h->nchans; c++)
        m.nchans_used += !a->killmask || a->killmask[c];
    m.tsamp = h->tsamp;
    m.fch1 = h->fch1;
    m.foff = h->foff;
    m.max_delay = maxd;
    m.nsamp_in = h->nsamp;
    m.seconds = spent;
    m.approx = rec;
    if (seconds)
        *seconds = spent;
    return sink_commit(&w, &m, err);
}
