/* The files around a user's command in `crosscheck gate dedisperse`
 * (cli/gate/gate_dd_io.h): the inputs it is given (an impulses filterbank, the DM
 * list) and the planes it wrote (.json + .npy, or one .dat / .tim per
 * trial). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <jansson.h>

#include "cli/base/cli.h"
#include "cli/gate/gate.h"
#include "cli/gate/gate_dd_io.h"
#include "compare/xc_compare.h"
#include "compare/conform/xc_conform.h"
#include "compare/xc_recover.h"
#include "core/io/xc_filterbank.h"
#include "core/base/xc_fmt.h"
#include "core/base/xc_fs.h"
#include "core/io/xc_npy.h"
#include "core/dedisp/run/xc_planefile.h"
#include "core/io/xc_presto.h"
#include "synth/model/xc_synth.h"

/* ---- inputs ------------------------------------------------------------------- */

xc_status gate_dd_write_impulses(const ddcase *c, const xc_convention *cv, const xc_dmplan *plan, const char *fil,
                                 int64_t *spacing, xc_error *err)
{
    xc_geometry geom = {c->nchans, c->fch1, c->foff, c->tsamp};
    int64_t maxd;
    xc_status st = xc_dmplan_max_delay(cv, &geom, plan, &maxd, err);
    if (st)
        return st;
    int64_t S = maxd + 1;
    size_t nsamp = (size_t)(maxd + (int64_t)c->nchans * S);
    uint16_t *x = calloc(nsamp * (size_t)c->nchans, sizeof *x);
    if (!x)
        return xc_error_set(err, XC_ENOMEM, "out of memory for the impulses' %zu spectra", nsamp);
    for (int ch = 0; ch < c->nchans; ch++)
        x[(size_t)(maxd + ch * S) * (size_t)c->nchans + (size_t)ch] = 1;
    xc_fbheader h;
    xc_fbheader_init(&h);
    snprintf(h.source_name, sizeof h.source_name, "crosscheck gate impulses");
    xc_fbheader_set(&h, XC_FB_SOURCE_NAME);
    h.machine_id = 10;
    xc_fbheader_set(&h, XC_FB_MACHINE_ID);
    h.telescope_id = 4;
    xc_fbheader_set(&h, XC_FB_TELESCOPE_ID);
    h.data_type = 1;
    xc_fbheader_set(&h, XC_FB_DATA_TYPE);
    h.fch1 = c->fch1;
    xc_fbheader_set(&h, XC_FB_FCH1);
    h.foff = c->foff;
    xc_fbheader_set(&h, XC_FB_FOFF);
    h.nchans = c->nchans;
    xc_fbheader_set(&h, XC_FB_NCHANS);
    h.nbits = c->nbits;
    xc_fbheader_set(&h, XC_FB_NBITS);
    h.tstart = 60000;
    xc_fbheader_set(&h, XC_FB_TSTART);
    h.tsamp = c->tsamp;
    xc_fbheader_set(&h, XC_FB_TSAMP);
    h.nifs = 1;
    xc_fbheader_set(&h, XC_FB_NIFS);
    xc_fbwriter *w;
    st = xc_fbwriter_open(&w, fil, &h, XC_BITORDER_LSB, err);
    if (!st) {
        st = xc_fbwriter_write_u16(w, x, nsamp, err);
        if (!st)
            st = xc_fbwriter_commit(w, err);
        else
            xc_fbwriter_abort(w);
    }
    xc_fbheader_free(&h);
    free(x);
    *spacing = S;
    return st;
}

xc_status gate_dd_write_dmlists(const char *path, const char *jpath, const xc_dmplan *plan, xc_error *err)
{
    const xc_dmrange *r = &plan->r[0];
    FILE *fp = fopen(path, "w");
    if (!fp)
        return xc_error_set(err, XC_EIO, "%s: cannot write", path);
    for (size_t j = 0; j < r->ndm; j++)
        fprintf(fp, "%.10g\n", r->dms[j]);
    if (fclose(fp))
        return xc_error_set(err, XC_EIO, "%s: write failed", path);
    json_t *dms = json_array();
    for (size_t j = 0; j < r->ndm; j++)
        json_array_append_new(dms, json_real(r->dms[j]));
    json_t *root = json_pack("{s:o, s:f, s:f, s:f, s:i}", "dms", dms, "dm_lo", r->dms[0], "dm_hi",
                             r->dms[r->ndm - 1], "dm_step", r->step, "ndm", (int)r->ndm);
    xc_status st = xc_cli_write_json(jpath, root, JSON_INDENT(1) | JSON_REAL_PRECISION(12), err);
    json_decref(root);
    return st;
}

/* ---- a command's output ------------------------------------------------------- */

static int exists(const char *p)
{
    struct stat sb;
    return stat(p, &sb) == 0;
}

/* One trial's series from a .dat or a SIGPROC .tim. */
static xc_status read_series(const char *path, int tim, float **x, size_t *n, xc_error *err)
{
    if (!tim)
        return xc_dat_read(path, x, n, err);
    xc_fbreader *r;
    xc_status st = xc_fbreader_open(&r, path, NULL, err);
    if (st)
        return st;
    const xc_fbheader *h = xc_fbreader_header(r);
    if (h->nchans != 1 || h->nifs != 1) {
        st = xc_error_set(err, XC_EFORMAT, "%s: nchans %d, nifs %d: a dedispersed time series has 1 and 1", path,
                          h->nchans, h->nifs);
    } else if (!(*x = malloc((h->nsamp ? h->nsamp : 1) * sizeof **x))) {
        st = xc_error_set(err, XC_ENOMEM, "out of memory for %s", path);
    } else {
        *n = h->nsamp;
        if ((st = xc_fbreader_read_f32(r, 0, h->nsamp, 0, *x, err))) {
            free(*x);
            *x = NULL;
        }
    }
    xc_fbreader_close(r);
    return st;
}

/* Reads what the command wrote under the prefix out into pl (one range of
 * ndm x nsamp, the reference's shape; longer series are cut).  0, or 1 after
 * a failed row saying what is missing or malformed. */
int gate_dd_read_output(gatectx *g, const char *obs, const char *out, const xc_dmplan *plan, size_t nsamp,
                        xc_plane *pl)
{
    const xc_dmrange *r = &plan->r[0];
    char path[4400], why[1400];
    int fmt = g->format;
    char json[4400], npy[4400], dat0[4400], tim0[4400];
    xc_error e;
    if (xc_pathf(json, sizeof json, &e, "%s.json", out) || xc_pathf(npy, sizeof npy, &e, "%s.npy", out) ||
        xc_pathf(dat0, sizeof dat0, &e, "%s_DM%.2f.dat", out, r->dms[0]) ||
        xc_pathf(tim0, sizeof tim0, &e, "%s_DM%.2f.tim", out, r->dms[0])) {
        xc_vd_fail(&g->vd, obs, g->label, "output readable", e.msg, "one of the -format files");
        return 1;
    }
    if (fmt == GATE_FMT_AUTO) {
        fmt = exists(json) ? GATE_FMT_PLANE : exists(npy) ? GATE_FMT_NPY : exists(dat0) ? GATE_FMT_DAT
              : exists(tim0) ? GATE_FMT_TIM : GATE_FMT_AUTO;
        if (fmt == GATE_FMT_AUTO) {
            xc_fmt(why, sizeof why, "the command wrote none of %s, %s, %s, %s", json, npy, dat0, tim0);
            xc_vd_fail(&g->vd, obs, g->label, "output readable", why, "one of the -format files");
            return 1;
        }
    }
    pl->r = calloc(1, sizeof *pl->r);
    pl->nranges = pl->r ? 1 : 0;
    float *data = pl->r ? malloc(r->ndm * (nsamp ? nsamp : 1) * sizeof *data) : NULL;
    if (!data) {
        xc_vd_note(&g->vd, xc_error_set(&e, XC_ENOMEM, "out of memory for the command's plane"), &e);
        return 1;
    }
    pl->r[0] = (xc_planerange){1, r->ndm, nsamp, data};
    xc_error_clear(&e);
    why[0] = 0;
    if (fmt == GATE_FMT_PLANE || fmt == GATE_FMT_NPY) {
        float *buf = NULL;
        size_t rows = 0, cols = 0;
        xc_planefile pf;
        memset(&pf, 0, sizeof pf);
        xc_status st;
        if (fmt == GATE_FMT_PLANE) {
            if (!(st = xc_planefile_read(&pf, json, &e))) {
                if (pf.plane.nranges != 1)
                    xc_fmt(why, sizeof why, "%s: %d ranges; the case has one DM list", json, pf.plane.nranges);
                else {
                    buf = pf.plane.r[0].data;
                    rows = pf.plane.r[0].ndm;
                    cols = pf.plane.r[0].nsamp;
                }
            }
            xc_fmt(path, sizeof path, "%s", json);
        } else {
            st = xc_npy_read_f32(npy, &buf, &rows, &cols, &e);
            xc_fmt(path, sizeof path, "%s", npy);
        }
        if (st)
            xc_fmt(why, sizeof why, "%s", e.msg);
        else if (!why[0] && rows != r->ndm)
            xc_fmt(why, sizeof why, "%s: %zu rows; the case has %zu DM trials", path, rows, r->ndm);
        else if (!why[0] && cols < nsamp)
            xc_fmt(why, sizeof why, "%s: %zu samples per trial; the reference has %zu", path, cols, nsamp);
        else if (!why[0])
            for (size_t j = 0; j < rows; j++)
                memcpy(data + j * nsamp, buf + j * cols, nsamp * sizeof *data);
        if (fmt == GATE_FMT_PLANE)
            xc_planefile_free(&pf);
        else
            free(buf);
    } else {
        int tim = fmt == GATE_FMT_TIM;
        for (size_t j = 0; j < r->ndm && !why[0]; j++) {
            float *x = NULL;
            size_t n = 0;
            if (xc_pathf(path, sizeof path, &e, "%s_DM%.2f.%s", out, r->dms[j], tim ? "tim" : "dat"))
                xc_fmt(why, sizeof why, "%s", e.msg);
            else if (read_series(path, tim, &x, &n, &e))
                xc_fmt(why, sizeof why, "DM %g (trial %zu): %s", r->dms[j], j, e.msg);
            else if (n < nsamp)
                xc_fmt(why, sizeof why, "%s: %zu samples; the reference has %zu", path, n, nsamp);
            else
                memcpy(data + j * nsamp, x, nsamp * sizeof *data);
            free(x);
        }
    }
    if (why[0]) {
        xc_vd_fail(&g->vd, obs, g->label, "output readable", why, "what -format describes");
        return 1;
    }
    return 0;
}
