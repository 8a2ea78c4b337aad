/* xc_ddseries.c: see xc_ddseries.h. */
#include "core/dedisp/run/xc_ddseries.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "core/base/xc_atomic.h"
#include "core/io/xc_fb_names.h"
#include "core/io/xc_presto.h"

/* One directory entry per trial (two for presto): past this a plane file
 * (-format npy) is the sound choice. */
#define XC_DDSERIES_MAX 65536

typedef struct {
    xc_atomic a;          /* its FILE is closed between segments */
    double dm, sum;       /* sum: of the samples written, in time order */
    int k;                /* range */
    int placed;           /* renamed into place by this writer */
} trial;

struct xc_serieswriter {
    xc_ddseries_opts o;
    char base[3900];
    xc_fbheader h;        /* the input's header (a copy) */
    int nranges;
    size_t *nplane;       /* per range: dedispersed samples per trial */
    size_t *ndata;        /* per range: of those, the samples kept */
    size_t *nout;         /* per range: samples per series (ndata + padding) */
    int *ds;
    size_t *first;        /* per range: index of its first trial */
    size_t ntrial;
    trial *t;
    uint64_t hdr;         /* bytes before the samples (the .tim header) */
};

void xc_ddseries_name(char *out, size_t n, const char *base, int dmprec, double dm, const char *suffix)
{
    snprintf(out, n, "%s_DM%.*f%s", base, dmprec > 0 ? dmprec : 2, dm, suffix);
}

static void free_writer(xc_serieswriter *w)
{
    xc_fbheader_free(&w->h);
    free(w->nplane);
    free(w->ndata);
    free(w->nout);
    free(w->ds);
    free(w->first);
    free(w->t);
    free(w);
}

/* Reopens a trial's temporary so that commit or abort can close it. */
static int reopen(trial *t)
{
    if (!t->a.fp)
        t->a.fp = fopen(t->a.tmp, "r+b");
    return t->a.fp != NULL;
}

void xc_serieswriter_abort(xc_serieswriter *w)
{
    if (!w)
        return;
    for (size_t i = 0; i < w->ntrial; i++) {
        if (!w->t[i].a.tmp[0])
            continue;
        if (reopen(&w->t[i]))
            xc_atomic_abort(&w->t[i].a);
        else
            remove(w->t[i].a.tmp);
    }
    free_writer(w);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Two trials whose DMs print the same at dmprec decimals would write one file. */
static xc_status check_names(const xc_serieswriter *w, xc_error *err)
{
    char *buf = malloc(w->ntrial * 40);
    char **p = malloc(w->ntrial * sizeof *p);
    xc_status st = XC_OK;
    if (!buf || !p)
        st = xc_error_set(err, XC_ENOMEM, "out of memory");
    for (size_t i = 0; !st && i < w->ntrial; i++) {
        p[i] = buf + 40 * i;
        snprintf(p[i], 40, "%.*f", w->o.dmprec, w->t[i].dm);
    }
    if (!st)
        qsort(p, w->ntrial, sizeof *p, cmp_str);
    for (size_t i = 1; !st && i < w->ntrial; i++)
        if (!strcmp(p[i], p[i - 1]))
            st = xc_error_set(err, XC_EINVAL,
                              "%s_DM%s: two DM trials print as DM %s with -dmprec %d; give more decimals "
                              "(-dmprec) or fewer trials", w->base, p[i], p[i], w->o.dmprec);
    free(buf);
    free(p);
    return st;
}

/* The .tim header: the input's, as a single float32 channel at refdm. */
static xc_status tim_header(const xc_serieswriter *w, const trial *t, FILE *fp, xc_error *err)
{
    xc_fbheader h;
    xc_status st = xc_fbheader_copy(&h, &w->h, err);
    if (st)
        return st;
    xc_fbheader_tim(&h, t->dm);
    h.tsamp = w->h.tsamp * w->ds[t->k];
    xc_fbheader_set(&h, XC_FB_TSAMP);
    st = xc_fbheader_write(&h, fp, t->a.path, err);
    xc_fbheader_free(&h);
    return st;
}

static xc_status open_trials(xc_serieswriter *w, xc_error *err)
{
    xc_status st = XC_OK;
    const char *suffix = w->o.format == XC_DDOUT_TIM ? ".tim" : ".dat";
    for (size_t i = 0; !st && i < w->ntrial; i++) {
        trial *t = &w->t[i];
        char path[4096];
        xc_ddseries_name(path, sizeof path, w->base, w->o.dmprec, t->dm, suffix);
        if ((st = xc_atomic_open(&t->a, path, 1, err)))
            break;
        if (w->o.format == XC_DDOUT_TIM) {
            st = tim_header(w, t, t->a.fp, err);
            if (!st && fflush(t->a.fp) != 0)
                st = xc_error_set(err, XC_EIO, "%s: write failed: %s", path, strerror(errno));
            off_t end = ftello(t->a.fp);
            if (!st)
                w->hdr = (uint64_t)end;
        }
        if (fclose(t->a.fp) != 0 && !st)
            st = xc_error_set(err, XC_EIO, "%s: write failed: %s", path, strerror(errno));
        t->a.fp = NULL;
    }
    return st;
}

static xc_status alloc_ranges(xc_serieswriter *w, const xc_dmplan *plan, const size_t *nsamp, xc_error *err)
{
    size_t n = (size_t)plan->nranges;
    w->nranges = plan->nranges;
    w->nplane = calloc(n, sizeof *w->nplane);
    w->ndata = calloc(n, sizeof *w->ndata);
    w->nout = calloc(n, sizeof *w->nout);
    w->ds = calloc(n, sizeof *w->ds);
    w->first = calloc(n, sizeof *w->first);
    w->ntrial = xc_dmplan_ndm(plan);
    if (w->ntrial > XC_DDSERIES_MAX)
        return xc_error_set(err, XC_EINVAL, "%s: %zu DM trials would make %zu files; one series per trial goes "
                            "up to %d trials (write a plane with -format npy)", w->base, w->ntrial, w->ntrial,
                            XC_DDSERIES_MAX);
    w->t = calloc(w->ntrial ? w->ntrial : 1, sizeof *w->t);
    if (!w->nplane || !w->ndata || !w->nout || !w->ds || !w->first || !w->t)
        return xc_error_set(err, XC_ENOMEM, "out of memory");
    size_t i = 0;
    for (int k = 0; k < plan->nranges; k++) {
        w->ds[k] = plan->r[k].ds;
        w->nplane[k] = w->ndata[k] = w->nout[k] = nsamp[k];
        if (w->o.numout) {
            w->nout[k] = (size_t)(w->o.numout / (uint64_t)plan->r[k].ds);
            if (w->nout[k] < w->ndata[k])
                w->ndata[k] = w->nout[k];
        }
        if (w->nout[k] < 1)
            return xc_error_set(err, XC_EINVAL, "%s: range %d: no samples to write (-numout %llu, downsample %d)",
                                w->base, k, (unsigned long long)w->o.numout, plan->r[k].ds);
        w->first[k] = i;
        for (size_t j = 0; j < plan->r[k].ndm; j++, i++) {
            w->t[i].dm = plan->r[k].dms[j];
            w->t[i].k = k;
        }
    }
    return XC_OK;
}

xc_status xc_serieswriter_open(xc_serieswriter **wp, const char *base, const xc_ddseries_opts *o,
                               const xc_dmplan *plan, const size_t *nsamp, const xc_fbheader *h, xc_error *err)
{
    *wp = NULL;
    xc_serieswriter *w = calloc(1, sizeof *w);
    if (!w)
        return xc_error_set(err, XC_ENOMEM, "out of memory");
    xc_fbheader_init(&w->h);
    w->o = *o;
    if (w->o.dmprec <= 0)
        w->o.dmprec = 2;
    xc_status st = XC_OK;
    if (strlen(base) + 40 >= sizeof w->base)
        st = xc_error_set(err, XC_EINVAL, "%s: output name too long", base);
    else if (o->format != XC_DDOUT_PRESTO && o->format != XC_DDOUT_TIM)
        st = xc_error_set(err, XC_EINVAL, "%s: series format %d is neither presto nor tim", base, (int)o->format);
    else if (o->format == XC_DDOUT_PRESTO && strlen(base) + 40 >= sizeof(((xc_inf *)0)->name))
        st = xc_error_set(err, XC_EINVAL, "%s: output name longer than the %zu bytes PRESTO's .inf holds", base,
                          sizeof(((xc_inf *)0)->name) - 41);
    else if (o->format == XC_DDOUT_TIM && o->numout)
        st = xc_error_set(err, XC_EINVAL, "%s: -numout pads PRESTO series only (-format presto)", base);
    if (!st) {
        snprintf(w->base, sizeof w->base, "%s", base);
        st = xc_fbheader_copy(&w->h, h, err);
    }
    if (!st)
        st = alloc_ranges(w, plan, nsamp, err);
    if (!st)
        st = check_names(w, err);
    if (!st)
        st = open_trials(w, err);
    if (st) {
        xc_serieswriter_abort(w);
        return st;
    }
    *wp = w;
    return XC_OK;
}

xc_status xc_serieswriter_put(xc_serieswriter *w, int k, size_t t0, const xc_planerange *pr, xc_error *err)
{
    if (k < 0 || k >= w->nranges || t0 + pr->nsamp > w->nplane[k])
        return xc_error_set(err, XC_EINVAL, "%s: range %d: segment [%zu, %zu) does not fit %zu samples", w->base,
                            k, t0, t0 + pr->nsamp, w->nplane[k]);
    size_t n = t0 >= w->ndata[k] ? 0 : (w->ndata[k] - t0 < pr->nsamp ? w->ndata[k] - t0 : pr->nsamp);
    for (size_t d = 0; d < pr->ndm && n; d++) {
        trial *t = &w->t[w->first[k] + d];
        const float *x = pr->data + d * pr->nsamp;
        FILE *fp = fopen(t->a.tmp, "r+b");
        int ok = fp && fseeko(fp, (off_t)(w->hdr + t0 * sizeof(float)), SEEK_SET) == 0 &&
                 fwrite(x, sizeof(float), n, fp) == n;
        if (fp && fclose(fp) != 0)
            ok = 0;
        if (!ok)
            return xc_error_set(err, XC_EIO, "%s: write failed: %s", t->a.path, strerror(errno));
        for (size_t i = 0; i < n; i++)
            t->sum += x[i];
    }
    return XC_OK;
}

/* Fills a sign-packed SIGPROC angle (hhmmss.s or ddmmss.s) in PRESTO's
 * "hh:mm:ss.ssss" form (ra_dec_to_string). */
static void angle_string(char *out, size_t n, double v)
{
    const char *sign = v < 0 ? "-" : "";
    v = fabs(v);
    int a = (int)(v / 10000.0), b = (int)((v - a * 10000.0) / 100.0);
    double s = v - a * 10000.0 - b * 100.0;
    snprintf(out, n, "%s%.2d:%.2d:%07.4f", sign, a, b, s);
}

/* The .inf of a trial, as spectra_info_to_inf fills it from a SIGPROC
 * header and prepsubband then sets N, dt, DM and the padding. */
static void fill_inf(const xc_serieswriter *w, const trial *t, const xc_planemeta *m, xc_inf *inf)
{
    const xc_fbheader *h = &w->h;
    xc_inf_init(inf);
    char name[4096];   /* open() checked that it fits the .inf's name field */
    xc_ddseries_name(name, sizeof name, w->base, w->o.dmprec, t->dm, "");
    snprintf(inf->name, sizeof inf->name, "%.*s", (int)sizeof inf->name - 1, name);
    snprintf(inf->telescope, sizeof inf->telescope, "%s",
             h->present[XC_FB_TELESCOPE_ID] ? xc_fb_telescope_name(h->telescope_id) : "Unknown");
    snprintf(inf->instrument, sizeof inf->instrument, "%s",
             h->present[XC_FB_MACHINE_ID] ? xc_fb_machine_name(h->machine_id) : "Unknown");
    snprintf(inf->object, sizeof inf->object, "%s", h->present[XC_FB_SOURCE_NAME] ? h->source_name : "Unknown");
    angle_string(inf->ra, sizeof inf->ra, h->src_raj);
    angle_string(inf->dec, sizeof inf->dec, h->src_dej);
    inf->mjd = h->tstart;
    double f0 = xc_fbheader_freq(h, 0), f1 = xc_fbheader_freq(h, h->nchans - 1);
    double df = h->nchans > 1 ? fabs(f1 - f0) / (h->nchans - 1) : fabs(h->foff);
    inf->freq_low = f0 < f1 ? f0 : f1;
    inf->chan_wid = df;
    inf->bw = h->nchans * df;
    inf->nchan = h->nchans;
    inf->beam_diam = xc_fb_beam_arcsec(h->telescope_id, inf->freq_low - 0.5 * df + 0.5 * inf->bw);
    inf->dm = t->dm;
    inf->dt = h->tsamp * w->ds[t->k];
    inf->n = (double)w->nout[t->k];
    xc_inf_set_padding(inf, (double)w->ndata[t->k]);
    /* two lines under 100 bytes: PRESTO's readinf reads notes in 100-byte
     * pieces and keeps only the first two lines whole */
    const char *in = strrchr(m->input, '/');
    snprintf(inf->notes, sizeof inf->notes, "Dedispersed by crosscheck -impl %.20s, %.16s convention.\n"
             "    %.40s: %d of %d channels used, %d-bit samples.", m->impl, m->convention, in ? in + 1 : m->input,
             m->nchans_used, m->nchans, h->nbits);
}

/* Pads a trial to its length with the mean of its data (prepsubband pads
 * with the data's average), then renames it and writes its .inf. */
static xc_status finish_trial(xc_serieswriter *w, trial *t, const xc_planemeta *m, xc_error *err)
{
    size_t nd = w->ndata[t->k], no = w->nout[t->k];
    if (!reopen(t))
        return xc_error_set(err, XC_EIO, "%s: cannot reopen %s: %s", t->a.path, t->a.tmp, strerror(errno));
    if (no > nd) {
        float pad = nd ? (float)(t->sum / (double)nd) : 0.0f, buf[1024];
        for (size_t i = 0; i < 1024; i++)
            buf[i] = pad;
        if (fseeko(t->a.fp, (off_t)(w->hdr + nd * sizeof(float)), SEEK_SET) != 0)
            return xc_error_set(err, XC_EIO, "%s: seek failed: %s", t->a.path, strerror(errno));
        for (size_t done = nd; done < no;) {
            size_t c = no - done < 1024 ? no - done : 1024;
            if (fwrite(buf, sizeof(float), c, t->a.fp) != c)
                return xc_error_set(err, XC_EIO, "%s: write failed: %s", t->a.path, strerror(errno));
            done += c;
        }
    }
    xc_status st = xc_atomic_commit(&t->a, err);
    if (st)
        return st;
    t->placed = 1;
    if (w->o.format == XC_DDOUT_PRESTO) {
        xc_inf inf;
        fill_inf(w, t, m, &inf);
        char path[4200];
        xc_ddseries_name(path, sizeof path, w->base, w->o.dmprec, t->dm, ".inf");
        st = xc_inf_write(&inf, path, err);
    }
    return st;
}

/* Removes the files trial t's finish renamed into place. */
static void unlink_trial(const xc_serieswriter *w, const trial *t)
{
    char path[4200];
    remove(t->a.path);
    if (w->o.format == XC_DDOUT_PRESTO) {
        xc_ddseries_name(path, sizeof path, w->base, w->o.dmprec, t->dm, ".inf");
        remove(path);
    }
}

xc_status xc_serieswriter_commit(xc_serieswriter *w, const xc_planemeta *m, xc_error *err)
{
    xc_status st = XC_OK;
    size_t i = 0;
    while (i < w->ntrial && !(st = finish_trial(w, &w->t[i], m, err)))
        i++;
    if (st) {
        /* all or nothing: the trials already in place go with the rest */
        for (size_t j = 0; j <= i; j++) {
            if (w->t[j].placed) {
                unlink_trial(w, &w->t[j]);
                w->t[j].a.tmp[0] = '\0';
            }
        }
        xc_serieswriter_abort(w);
        return st;
    }
    free_writer(w);
    return XC_OK;
}
