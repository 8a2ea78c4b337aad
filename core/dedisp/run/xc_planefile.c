#include "core/base/xc_nbits.h"
#include "core/dedisp/run/xc_planefile.h"
#include "core/base/xc_grow.h"

#include <errno.h>
#include <math.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/base/xc_atomic.h"
#include "core/base/xc_hash.h"
#include "core/base/xc_mem.h"
#include "core/io/xc_npy.h"

struct xc_planewriter {
    char out[3900];
    int nranges;
    xc_atomic *npy;            /* one per range */
    size_t *hdr;               /* data offset in each npy */
    size_t *nsamp;
    size_t *ndm;
    const xc_dmplan *plan;
};

static void range_path(char *buf, size_t n, const char *out, int k)
{
    snprintf(buf, n, "%s.r%d.npy", out, k);
}

xc_status xc_planewriter_open(xc_planewriter **wp, const char *out, const xc_dmplan *plan,
                              const size_t *nsamp, xc_error *err)
{
    *wp = NULL;
    if (strlen(out) + 32 >= sizeof((xc_planewriter *)0)->out)
        return xc_error_set(err, XC_EINVAL, "%s: output name too long", out);
    xc_planewriter *w = calloc(1, sizeof *w);
    if (!w)
        return xc_error_set(err, XC_ENOMEM, "out of memory");
    strcpy(w->out, out);
    w->plan = plan;
    w->nranges = plan->nranges;
    w->npy = calloc((size_t)plan->nranges, sizeof *w->npy);
    w->hdr = calloc((size_t)plan->nranges, sizeof *w->hdr);
    w->nsamp = calloc((size_t)plan->nranges, sizeof *w->nsamp);
    w->ndm = calloc((size_t)plan->nranges, sizeof *w->ndm);
    if (!w->npy || !w->hdr || !w->nsamp || !w->ndm) {
        xc_planewriter_abort(w);
        return xc_error_set(err, XC_ENOMEM, "out of memory");
    }
    for (int k = 0; k < plan->nranges; k++) {
        char path[4000];
        range_path(path, sizeof path, out, k);
        w->nsamp[k] = nsamp[k];
        w->ndm[k] = plan->r[k].ndm;
        xc_status st = xc_atomic_open(&w->npy[k], path, 1, err);
        if (!st)
            st = xc_npy_write_header(w->npy[k].fp, w->ndm[k], w->nsamp[k], &w->hdr[k], path, err);
        if (st) {
            xc_planewriter_abort(w);
            return st;
        }
    }
    *wp = w;
    return XC_OK;
}

xc_status xc_planewriter_put(xc_planewriter *w, int k, size_t t0, const xc_planerange *pr,
                             xc_error *err)
{
    if (k < 0 || k >= w->nranges || pr->ndm != w->ndm[k] || t0 + pr->nsamp > w->nsamp[k])
        return xc_error_set(err, XC_EINVAL, "%s: range %d: segment [%zu, %zu) does not fit %zu samples",
                            w->out, k, t0, t0 + pr->nsamp, w->nsamp[k]);
    FILE *fp = w->npy[k].fp;
    for (size_t d = 0; d < pr->ndm && pr->nsamp; d++) {
        off_t off = (off_t)(w->hdr[k] + (d * w->nsamp[k] + t0) * sizeof(float));
        if (fseeko(fp, off, SEEK_SET) != 0 ||
            fwrite(pr->data + d * pr->nsamp, sizeof(float), pr->nsamp, fp) != pr->nsamp)
            return xc_error_set(err, XC_EIO, "%s.r%d.npy: write failed: %s", w->out, k, strerror(errno));
    }
    return XC_OK;
}

json_t *xc_planefile_range_dms(const xc_dmrange *r, json_t *flat)
{
    json_t *dms = json_array();
    for (size_t j = 0; j < r->ndm; j++) {
        json_array_append_new(dms, json_real(r->dms[j]));
        json_array_append_new(flat, json_real(r->dms[j]));
    }
    return dms;
}

/* hash, bytes: per range, the npy file's checksum and length (NULL: not recorded). */
static json_t *plan_json(const xc_dmplan *plan, const size_t *nsamp, double tsamp, const char *out,
                         const uint64_t *hash, const uint64_t *bytes)
{
    json_t *ranges = json_array(), *flat = json_array();
    for (int k = 0; k < plan->nranges; k++) {
        const xc_dmrange *r = &plan->r[k];
        json_t *dms = xc_planefile_range_dms(r, flat);
        char file[4000];
        const char *base = strrchr(out, '/');
        range_path(file, sizeof file, base ? base + 1 : out, k);
        json_array_append_new(ranges, json_pack("{s:f,s:f,s:f,s:i,s:f,s:I,s:I,s:s,s:o}",
                                                "lo", r->lo, "hi", r->hi, "step", r->step, "downsample", r->ds,
                                                "tsamp", tsamp * r->ds, "ndm", (json_int_t)r->ndm,
                                                "nsamp", (json_int_t)(nsamp ? nsamp[k] : 0), "file", file,
                                                "dms", dms));
        if (hash) {
            char hx[32];
            snprintf(hx, sizeof hx, "%016llx", (unsigned long long)hash[k]);
            json_t *rk = json_array_get(ranges, json_array_size(ranges) - 1);
            json_object_set_new(rk, "bytes", json_integer((json_int_t)bytes[k]));
            json_object_set_new(rk, "xc_hash64", json_string(hx));
        }
    }
    json_t *o = json_object();
    json_object_set_new(o, "plan_kind", json_string(plan->kind));
    if (!strcmp(plan->kind, "tolerance")) {
        json_object_set_new(o, "dm_tol", json_real(plan->tol));
        json_object_set_new(o, "dm_pulse_width_us", json_real(plan->pulse_width_us));
    }
    json_object_set_new(o, "ranges", ranges);
    json_object_set_new(o, "dms", flat);
    return o;
}

xc_status xc_planewriter_commit(xc_planewriter *w, const xc_planemeta *m, xc_error *err)
{
    const xc_convention *cv = xc_convention_get(m->convention);
    /* Each range file's checksum goes into the manifest, which is renamed
     * into place last: a run killed between the renames leaves the previous
     * manifest beside a new range file, and the reader refuses the mix
     * instead of reading it as a whole plane. */
    uint64_t *hash = calloc((size_t)w->nranges, sizeof *hash), *bytes = calloc((size_t)w->nranges, sizeof *bytes);
    if (!hash || !bytes) {
        free(hash);
        free(bytes);
        xc_planewriter_abort(w);
        return xc_error_set(err, XC_ENOMEM, "out of memory");
    }
    for (int k = 0; k < w->nranges; k++) {
        char p[4000];
        range_path(p, sizeof p, w->out, k);
        xc_status hs = xc_hash_stream(w->npy[k].fp, p, &hash[k], &bytes[k], err);
        if (hs) {
            free(hash);
            free(bytes);
            xc_planewriter_abort(w);
            return hs;
        }
    }
    json_t *root = plan_json(w->plan, w->nsamp, m->tsamp, w->out, hash, bytes);
    free(hash);
    free(bytes);
    json_object_set_new(root, "format", json_string("crosscheck DM-time plane 1"));
    json_object_set_new(root, "impl", json_string(m->impl));
    json_t *conv = json_pack("{s:s}", "name", m->convention);
    if (cv) {
        json_object_set_new(conv, "kdm", json_real(cv->kdm));
        json_object_set_new(conv, "rounding", json_string(xc_rounding_name(cv->rounding)));
        json_object_set_new(conv, "precision", json_string(cv->precision == XC_PREC_FLOAT ? "float" : "double"));
        json_object_set_new(conv, "scaling", json_string(xc_scaling_name(cv->scaling)));
        json_object_set_new(conv, "reference_channel", json_string("highest frequency"));
        json_object_set_new(conv, "source", json_string(cv->source));
    }
    json_object_set_new(root, "convention", conv);
    json_object_set_new(root, "command_line", json_string(m->cmdline));
    json_object_set_new(root, "input", json_string(m->input));
    json_object_set_new(root, "nbits", json_integer(m->nbits));
    json_object_set_new(root, "integer_input", json_boolean(!xc_nbits_is_float(m->nbits)));
    json_object_set_new(root, "nchans", json_integer(m->nchans));
    json_object_set_new(root, "nchans_used", json_integer(m->nchans_used));
    json_object_set_new(root, "tsamp", json_real(m->tsamp));
    json_object_set_new(root, "fch1", json_real(m->fch1));
    json_object_set_new(root, "foff", json_real(m->foff));
    json_t *freqs = json_array();
    for (int c = 0; c < m->nchans; c++)
        json_array_append_new(freqs, json_real(m->fch1 + c * m->foff));
    json_object_set_new(root, "freqs_mhz", freqs);
    json_object_set_new(root, "max_delay", json_integer(m->max_delay));
    json_object_set_new(root, "nsamp_in", json_integer((json_int_t)m->nsamp_in));
    json_object_set_new(root, "seconds", json_real(m->seconds));
    json_object_set_new(root, "layout", json_string("float32 [ndm][nsamp] C order per range; sample t of a range "
                                                    "with downsample ds sums input samples t*ds .. t*ds+ds-1 at the "
                                                    "highest channel"));
    if (m->approx)
        json_object_set(root, "approximate", m->approx);
    char path[4000];
    snprintf(path, sizeof path, "%s.json", w->out);
    xc_atomic a;
    xc_status st = xc_atomic_open(&a, path, 0, err);
    if (!st) {
        if (json_dumpf(root, a.fp, JSON_INDENT(1) | JSON_REAL_PRECISION(17)) != 0 || fputc('\n', a.fp) == EOF) {
            xc_atomic_abort(&a);
            st = xc_error_set(err, XC_EIO, "%s: write failed", path);
        }
    }
    json_decref(root);
    if (st) {
        xc_planewriter_abort(w);
        return st;
    }
    for (int k = 0; k < w->nranges && !st; k++)
        st = xc_atomic_commit(&w->npy[k], err);
    if (!st)
        st = xc_atomic_commit(&a, err);
    else
        xc_atomic_abort(&a);
    if (st) {
        /* Remove whatever got renamed already so no partial plane is left. */
        for (int k = 0; k < w->nranges; k++) {
            char p[4000];
            range_path(p, sizeof p, w->out, k);
            remove(p);
        }
    }
    xc_planewriter_abort(w);
    return st;
}

void xc_planewriter_abort(xc_planewriter *w)
{
    if (!w)
        return;
    for (int k = 0; w->npy && k < w->nranges; k++)
        xc_atomic_abort(&w->npy[k]);
    xc_free_each(5, w->npy, w->hdr, w->nsamp, w->ndm, w);
}

xc_status xc_plane_write(const char *out, const xc_plane *pl, const xc_dmplan *plan,
                         const xc_planemeta *m, xc_error *err)
{
    if (pl->nranges != plan->nranges)
        return xc_error_set(err, XC_EINVAL, "%s: plane has %d ranges, plan %d", out, pl->nranges, plan->nranges);
    size_t *ns = malloc((size_t)pl->nranges * sizeof *ns);
    if (!ns)
        return xc_error_set(err, XC_ENOMEM, "out of memory");
    for (int k = 0; k < pl->nranges; k++)
        ns[k] = pl->r[k].nsamp;
    xc_planewriter *w;
    xc_status st = xc_planewriter_open(&w, out, plan, ns, err);
    free(ns);
    for (int k = 0; !st && k < pl->nranges; k++)
        st = xc_planewriter_put(w, k, 0, &pl->r[k], err);
    if (!st)
        return xc_planewriter_commit(w, m, err);
    xc_planewriter_abort(w);
    return st;
}

/* ---- reading ------------------------------------------------------------- */

static xc_status need(json_t *o, const char *key, json_type ty, json_t **v, const char *path, xc_error *err)
{
    *v = json_object_get(o, key);
    if (!*v || (json_typeof(*v) != ty && !(ty == JSON_REAL && json_is_integer(*v))))
        return xc_error_set(err, XC_EFORMAT, "%s: field '%s' is missing or has the wrong type", path, key);
    return XC_OK;
}

/* The bytes of a manifest's range files on disk (those that exist). */
static double ranges_bytes(json_t *ranges, const char *dir)
{
    double total = 0;
    for (size_t k = 0; k < json_array_size(ranges); k++) {
        const char *fname = json_string_value(json_object_get(json_array_get(ranges, k), "file"));
        char npath[8100];
        struct stat sb;
        if (!fname)
            continue;
        snprintf(npath, sizeof npath, "%s%s", fname[0] == '/' ? "" : dir, fname);
        if (!stat(npath, &sb))
            total += (double)sb.st_size;
    }
    return total;
}

/* Parses the JSON file at path into *root; a file that cannot be opened is
 * named with the system's reason, a malformed one with its line and column. */
static xc_status load_json(const char *path, json_t **root, xc_error *err)
{
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return xc_error_set(err, XC_EIO, "%s: cannot open: %s", path, strerror(errno));
    json_error_t je;
    *root = json_loadf(fp, 0, &je);
    fclose(fp);
    if (!*root)
        return xc_error_set(err, XC_EFORMAT, "%s: line %d, column %d: %s", path, je.line, je.column, je.text);
    return XC_OK;
}

xc_status xc_planefile_disk_bytes(const char *json_path, double *bytes, xc_error *err)
{
    json_t *root;
    *bytes = 0;
    xc_status st0 = load_json(json_path, &root, err);
    if (st0)
        return st0;
    char dir[4000] = "";
    const char *slash = strrchr(json_path, '/');
    if (slash)
        snprintf(dir, sizeof dir, "%.*s/", (int)(slash - json_path), json_path);
    json_t *ranges = json_object_get(root, "ranges");
    *bytes = json_is_array(ranges) ? ranges_bytes(ranges, dir) : 0;
    json_decref(root);
    return XC_OK;
}

/* The manifest's header: implementation, convention, the input's geometry
 * and the plan's kind; every number in the range its use needs, checked
 * before anything is sized by it. */
static xc_status read_meta(xc_planefile *pf, json_t *root, const char *path, xc_error *err)
{
    xc_status st = XC_OK;
    json_t *v;
    xc_planemeta *m = &pf->meta;
#define NEED(k, t) do { if ((st = need(root, k, t, &v, path, err))) return st; } while (0)
    NEED("impl", JSON_STRING);
    snprintf(m->impl, sizeof m->impl, "%s", json_string_value(v));
    json_t *conv = json_object_get(root, "convention");
    json_t *cname = conv ? json_object_get(conv, "name") : NULL;
    if (!json_is_string(cname))
        return xc_error_set(err, XC_EFORMAT, "%s: field 'convention.name' is missing", path);
    snprintf(m->convention, sizeof m->convention, "%s", json_string_value(cname));
    if ((v = json_object_get(root, "command_line")) && json_is_string(v))
        snprintf(m->cmdline, sizeof m->cmdline, "%s", json_string_value(v));
    if ((v = json_object_get(root, "input")) && json_is_string(v))
        snprintf(m->input, sizeof m->input, "%s", json_string_value(v));
    /* nchans sizes the channel list, so the file's own freqs_mhz list must
     * hold that many values */
    NEED("nbits", JSON_INTEGER);
    json_int_t nb = json_integer_value(v);
    if (!xc_nbits_valid(nb))
        return xc_error_set(err, XC_EFORMAT, "%s: nbits: %lld is not 1, 2, 4, 8, 16 or 32", path, (long long)nb);
    m->nbits = (int)nb;
    NEED("nchans", JSON_INTEGER);
    json_int_t nc = json_integer_value(v);
    json_t *fl = json_object_get(root, "freqs_mhz");
    if (nc < 1 || nc > INT32_MAX || !json_is_array(fl) || json_array_size(fl) != (size_t)nc)
        return xc_error_set(err, XC_EFORMAT, "%s: nchans: %lld must be >= 1 and the length of freqs_mhz (%zu)", path,
                            (long long)nc, json_is_array(fl) ? json_array_size(fl) : (size_t)0);
    m->nchans = (int)nc;
    NEED("nchans_used", JSON_INTEGER);
    json_int_t nu = json_integer_value(v);
    if (nu < 0 || nu > nc)
        return xc_error_set(err, XC_EFORMAT, "%s: nchans_used: %lld is outside 0..nchans (%lld)", path, (long long)nu,
                            (long long)nc);
    m->nchans_used = (int)nu;
    NEED("tsamp", JSON_REAL);
    m->tsamp = json_number_value(v);
    if (!(m->tsamp > 0) || !isfinite(m->tsamp))
        return xc_error_set(err, XC_EFORMAT, "%s: tsamp: %g must be finite and > 0", path, m->tsamp);
    NEED("fch1", JSON_REAL);
    m->fch1 = json_number_value(v);
    NEED("foff", JSON_REAL);
    m->foff = json_number_value(v);
    if ((v = json_object_get(root, "max_delay")))
        m->max_delay = json_integer_value(v);
    if ((v = json_object_get(root, "nsamp_in")))
        m->nsamp_in = (uint64_t)json_integer_value(v);
    if ((v = json_object_get(root, "seconds")))
        m->seconds = json_number_value(v);
    if ((v = json_object_get(root, "plan_kind")) && json_is_string(v))
        snprintf(pf->plan.kind, sizeof pf->plan.kind, "%s", json_string_value(v));
#undef NEED
    return XC_OK;
}

/* Range k of the manifest into the plan: its DMs (ascending through the
 * whole plane, as every plan is) and downsample factor. */
static xc_status read_range(xc_planefile *pf, const json_t *r, size_t k, const char *path, size_t *ntrials_io,
                            double *prev_io, xc_error *err)
{
    size_t ntrials = *ntrials_io;
    double prev = *prev_io;
    json_t *dms = json_object_get(r, "dms");
    json_t *file = json_object_get(r, "file"), *ds = json_object_get(r, "downsample");
    if (!json_is_array(dms) || !json_is_string(file) || !json_is_integer(ds))
        return xc_error_set(err, XC_EFORMAT, "%s: ranges[%zu]: needs dms, file and downsample", path, k);
    xc_dmrange *dr = &pf->plan.r[k];
    dr->lo = json_number_value(json_object_get(r, "lo"));
    dr->hi = json_number_value(json_object_get(r, "hi"));
    dr->step = json_number_value(json_object_get(r, "step"));
    json_int_t dsv = json_integer_value(ds);
    if (dsv < 1 || dsv > XC_DMPLAN_MAX_DS)
        return xc_error_set(err, XC_EFORMAT, "%s: ranges[%zu]: downsample: %lld is outside 1..%d", path, k,
                            (long long)dsv, XC_DMPLAN_MAX_DS);
    dr->ds = (int)dsv;
    dr->ndm = json_array_size(dms);
    ntrials += dr->ndm;
    if (ntrials > XC_DMPLAN_MAX_TRIALS)
        return xc_error_set(err, XC_EFORMAT, "%s: ranges[%zu]: more than %d DM trials", path, k,
                            XC_DMPLAN_MAX_TRIALS);
    dr->dms = malloc((dr->ndm ? dr->ndm : 1) * sizeof(double));
    if (!dr->dms)
        return xc_error_set(err, XC_ENOMEM, "out of memory");
    for (size_t j = 0; j < dr->ndm; j++) {
        json_t *d = json_array_get(dms, j);
        dr->dms[j] = json_number_value(d);
        /* ascending through the whole plane, as every plan is */
        if (!json_is_number(d) || !(dr->dms[j] > prev))
            return xc_error_set(err, XC_EFORMAT, "%s: ranges[%zu]: dms[%zu]: %g is not a number above the "
                                "previous DM", path, k, j, dr->dms[j]);
        prev = dr->dms[j];
    }
    *ntrials_io = ntrials;
    *prev_io = prev;
    return XC_OK;
}

/* When the manifest records range r's checksum, the file must be the one
 * the manifest was written with. */
static xc_status check_range_file(const json_t *r, const char *npath, const char *path, xc_error *err)
{
    xc_status st = XC_OK;
    json_t *hv = json_object_get(r, "xc_hash64"), *bv = json_object_get(r, "bytes");
    if (json_is_string(hv) && json_is_integer(bv)) {
        /* the range file must be the one this manifest was written with */
        FILE *fp = fopen(npath, "rb");
        uint64_t h = 0, n = 0;
        if (!fp)
            return xc_error_set(err, XC_EIO, "%s: cannot open: %s", npath, strerror(errno));
        st = xc_hash_stream(fp, npath, &h, &n, err);
        fclose(fp);
        if (st)
            return st;
        char hx[32];
        snprintf(hx, sizeof hx, "%016llx", (unsigned long long)h);
        if (n != (uint64_t)json_integer_value(bv) || strcmp(hx, json_string_value(hv)) != 0) {
            st = xc_error_set(err, XC_EFORMAT,
                              "%s: %llu bytes, checksum %s, but %s records %lld bytes, checksum %s: not the file "
                              "that plane was written with (another run replaced it, or a run was stopped while "
                              "replacing the plane); dedisperse again",
                              npath, (unsigned long long)n, hx, path, (long long)json_integer_value(bv),
                              json_string_value(hv));
            return st;
        }
    }
    return st;
}

xc_status xc_planefile_read(xc_planefile *pf, const char *path, xc_error *err)
{
    memset(pf, 0, sizeof *pf);
    xc_dmplan_init(&pf->plan);
    json_t *root;
    xc_status st = load_json(path, &root, err);
    if (st)
        return st;
    json_t *ranges;
    const xc_planemeta *m = &pf->meta;
    if ((st = read_meta(pf, root, path, err)))
        goto fail;
    if ((st = need(root, "ranges", JSON_ARRAY, &ranges, path, err)))
        goto fail;
    size_t nr = json_array_size(ranges);
    if (nr == 0) {
        st = xc_error_set(err, XC_EFORMAT, "%s: ranges: empty", path);
        goto fail;
    }
    pf->plan.r = calloc(nr, sizeof *pf->plan.r);
    pf->plane.r = calloc(nr, sizeof *pf->plane.r);
    if (!pf->plan.r || !pf->plane.r) {
        st = xc_error_set(err, XC_ENOMEM, "out of memory");
        goto fail;
    }
    pf->plan.nranges = pf->plane.nranges = (int)nr;
    char dir[4000] = "";
    size_t ntrials = 0;
    double prev = -INFINITY;
    const char *slash = strrchr(path, '/');
    if (slash)
        snprintf(dir, sizeof dir, "%.*s/", (int)(slash - path), path);
    /* The whole plane is read into memory: refuse one that cannot fit before
     * reading (or hashing) any of it. */
    if ((st = xc_mem_check(ranges_bytes(ranges, dir), path, "reading its DM-time plane into memory",
                           "compare fewer DM trials (dedisperse with a narrower -dmplan), or use a machine with more "
                           "memory", err)))
        goto fail;
    for (size_t k = 0; k < nr; k++) {
        json_t *r = json_array_get(ranges, k), *file = json_object_get(r, "file");
        xc_dmrange *dr = &pf->plan.r[k];
        if ((st = read_range(pf, r, k, path, &ntrials, &prev, err)))
            goto fail;
        char npath[8100];
        const char *fname = json_string_value(file);
        if (fname[0] == '/')
            snprintf(npath, sizeof npath, "%s", fname);
        else
            snprintf(npath, sizeof npath, "%s%s", dir, fname);
        size_t rows, cols;
        xc_planerange *pr = &pf->plane.r[k];
        if ((st = check_range_file(r, npath, path, err)))
            goto fail;
        if ((st = xc_npy_read_f32(npath, &pr->data, &rows, &cols, err)))
            goto fail;
        if (rows != dr->ndm) {
            st = xc_error_set(err, XC_EFORMAT, "%s: shape: %zu rows but %s lists %zu DM trials", npath, rows,
                              path, dr->ndm);
            goto fail;
        }
        pr->ds = dr->ds;
        pr->ndm = rows;
        pr->nsamp = cols;
    }
    pf->freqs = malloc((size_t)(m->nchans > 0 ? m->nchans : 1) * sizeof(double));
    if (!pf->freqs) {
        st = xc_error_set(err, XC_ENOMEM, "out of memory");
        goto fail;
    }
    for (int c = 0; c < m->nchans; c++)
        pf->freqs[c] = m->fch1 + c * m->foff;
    json_decref(root);
    return XC_OK;
fail:
    json_decref(root);
    xc_planefile_free(pf);
    return st;
}

void xc_planefile_free(xc_planefile *pf)
{
    xc_plane_free(&pf->plane);
    xc_dmplan_free(&pf->plan);
    free(pf->freqs);
    pf->freqs = NULL;
}
