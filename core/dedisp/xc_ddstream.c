#include "core/base/xc_nbits.h"
#include "core/dedisp/xc_ddstream.h"
#include "core/dedisp/xc_ddrecord.h"
#include "core/base/xc_mem.h"

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

static xc_status stream(xc_fbreader *r, const char *out, const xc_ddstream_args *a, xc_ddplan *dp, json_t *rec,
                        double *seconds, xc_error *err);

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

xc_status xc_dedisperse_stream(xc_fbreader *r, const char *out, const xc_ddstream_args *a,
                               double *seconds, xc_error *err)
{
    const xc_fbheader *h = xc_fbreader_header(r);
    xc_geometry g = {h->nchans, h->fch1, h->foff, h->tsamp};
    if (a->ifno < 0 || a->ifno >= h->nifs)
        return xc_error_set(err, XC_EINVAL, "%s: IF %d: the file has %d IFs", a->input_name, a->ifno, h->nifs);
    /* Checked before anything large is made: the largest delay against the
     * data (it costs one trial's delays per range) ... */
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
    /* ... and the smallest gulp's buffers (its input and plane) with the
     * delay tables against the machine's memory */
    size_t L = lcm_ds(a->plan);
    double plane1 = 0;
    for (int k = 0; k < a->plan->nranges; k++)
        plane1 += (double)a->plan->r[k].ndm * (double)(L / (size_t)a->plan->r[k].ds) * sizeof(float);
    double need = (double)xc_dmplan_ndm(a->plan) * h->nchans * sizeof(int32_t) + plane1 +
                  ((double)L + (double)maxd) * h->nchans * (xc_nbits_is_float(h->nbits) ? 4.0 : 2.0);
    char what[200];
    snprintf(what, sizeof what, "%zu DM trials over %d channels with a largest delay of %lld samples",
             xc_dmplan_ndm(a->plan), h->nchans, (long long)maxd);
    if ((st = xc_mem_check(need, a->input_name, what, "use fewer trials (a coarser -dmplan step) or a lower -hidm",
                           err)))
        return st;
    json_t *rec = NULL;
    if (a->impl->bound && (st = approx_record(a, &g, h->nbits, &rec, err)))
        return st;
    /* One plan for every gulp: delays (and a device's buffers) made once. */
    xc_ddplan *dp;
    st = xc_ddplan_create_tuned(&dp, a->impl, &g, h->nbits, a->plan, a->conv, a->killmask, &a->opts, &a->tune, err);
    if (!st) {
        st = stream(r, out, a, dp, rec, seconds, err);
        xc_ddplan_destroy(dp);
    }
    json_decref(rec);
    return st;
}

static xc_status stream(xc_fbreader *r, const char *out, const xc_ddstream_args *a, xc_ddplan *dp, json_t *rec,
                        double *seconds, xc_error *err)
{
    const xc_fbheader *h = xc_fbreader_header(r);
    int64_t maxd = xc_ddplan_max_delay(dp);
    xc_status st;
    size_t total_out = (size_t)(h->nsamp - (uint64_t)maxd);
    size_t L = lcm_ds(a->plan);
    size_t gulp = a->gulp;
    if (gulp == 0) {
        /* about 64 MiB of input, and a plane of at most 1 GiB per gulp */
        gulp = (64u << 20) / ((size_t)h->nchans * (xc_nbits_is_float(h->nbits) ? 4 : 2));
        double per = 0;   /* plane bytes per output sample */
        for (int k = 0; k < a->plan->nranges; k++)
            per += (double)a->plan->r[k].ndm / a->plan->r[k].ds * sizeof(float);
        if (per > 0 && (double)gulp * per > (double)(1u << 30))
            gulp = (size_t)((double)(1u << 30) / per);
    }
    if (gulp < 1)
        gulp = 1;
    gulp = (gulp + L - 1) / L * L;
    size_t *ns = malloc((size_t)a->plan->nranges * sizeof *ns);
    if (!ns)
        return xc_error_set(err, XC_ENOMEM, "out of memory");
    for (int k = 0; k < a->plan->nranges; k++)
        ns[k] = total_out / (size_t)a->plan->r[k].ds;
    xc_planewriter *w;
    st = xc_planewriter_open(&w, out, a->plan, ns, err);
    free(ns);
    if (st)
        return st;
    size_t cap = gulp + (size_t)maxd;
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
        xc_planewriter_abort(w);
        return xc_error_set(err, XC_ENOMEM, "%s: out of memory for a gulp of %zu spectra", a->input_name, cap);
    }
    double spent = 0;
    for (size_t t0 = 0; t0 < total_out && !st; t0 += gulp) {
        size_t nout = total_out - t0 < gulp ? total_out - t0 : gulp;
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
                st = xc_planewriter_put(w, k, t0 / (size_t)pl.r[k].ds, &pl.r[k], err);
            xc_plane_free(&pl);
        }
        xc_progress_report(&a->progress, "dedisperse", t0 + nout, total_out);
    }
    free(u16);
    free(f32);
    if (st) {
        xc_planewriter_abort(w);
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
    return xc_planewriter_commit(w, &m, err);
}
