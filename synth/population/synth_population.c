/* Populations of synthetic pulsars: spec, draws, files, checkpoints, manifest. */
#include "synth/population/xc_population.h"
#include "synth/truth/xc_truth.h"
#include "synth/model/synth_params.h"
#include "synth/model/synth_spec.h"
#include "synth/noise/synth_noise.h"

#include <dirent.h>
#include <errno.h>
#include <float.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "core/base/xc_atomic.h"
#include "core/base/xc_spec.h"

/* The manifest's parameter columns, in xc_synth_params_to_json's names. */
static const char *const param_cols[] = {
    "nchans", "nbits",     "tsamp_us", "tobs_s",   "fch1",       "foff",   "tstart", "convention", "smear",
    "noise",  "bitorder",  "period_ms", "width_pct", "snrpeak",  "dm",     "pdot",   "accn",       "binary",
    "bper_h", "becc",      "binc_deg", "bomega_deg", "bphase",   "bpmass", "bcmass", "profile",    "fake_phase"};
#define NCOLS (sizeof param_cols / sizeof param_cols[0])

/* An FRB population's burst columns: the fields of the truth's pulses[0]
 * (synth/write/synth_truth.c), prefixed burst_ (the pulsar's own dm is a
 * parameter column). */
static const char *const burst_cols[] = {"burst_fluence_jyms", "burst_width_ms", "burst_tau_ms", "burst_dm",
                                         "burst_t_s"};
#define NBURST (sizeof burst_cols / sizeof burst_cols[0])

void xc_popspec_free(xc_popspec *s)
{
    json_decref(s->fixed);
    free(s->draw);
    memset(s, 0, sizeof *s);
}

/* Sets one numeric field on fresh parameters: does the synthesizer take it? */
static xc_status try_field(const xc_popspec *s, const char *field, double v, xc_error *err)
{
    json_t *o = json_object();
    if (!o || json_object_set_new(o, field, json_real(v))) {
        json_decref(o);
        return xc_error_set(err, XC_ENOMEM, "%s: out of memory", s->path);
    }
    xc_synth_params p;
    xc_synth_params_init(&p);
    char src[1200];
    snprintf(src, sizeof src, "%s: draw", s->path);
    xc_status st = xc_synth_params_from_json(&p, o, src, err);
    xc_synth_params_free(&p);
    json_decref(o);
    return st;
}

/* Applies a study's overrides to a loaded spec: fixed fields replace fixed
 * ones and remove a draw of the same field; draws replace draws and remove a
 * fixed field of the same name. */
static xc_status apply_overrides(json_t *root, const json_t *ofixed, const json_t *odraw, const char *path,
                                 xc_error *err)
{
    json_t *fixed = json_object_get(root, "fixed"), *draw = json_object_get(root, "draw");
    if (!json_is_object(fixed) || !json_is_object(draw))
        return xc_error_set(err, XC_EINVAL, "%s: needs objects \"fixed\" and \"draw\"", path);
    const char *k;
    json_t *v;
    if (ofixed)
        json_object_foreach((json_t *)ofixed, k, v) {
            json_object_del(draw, k);
            if (json_object_set(fixed, k, v))
                return xc_error_set(err, XC_ENOMEM, "%s: out of memory", path);
        }
    if (odraw)
        json_object_foreach((json_t *)odraw, k, v) {
            json_object_del(fixed, k);
            if (json_object_set(draw, k, v))
                return xc_error_set(err, XC_ENOMEM, "%s: out of memory", path);
        }
    return XC_OK;
}

/* The spec's fields: comments, the fixed synth fields and the draws. */
typedef struct {
    const json_t *fixed, *draw, *frb;
} pop_top;

static const xc_spec_field pop_fields[] = {
    XC_SPEC_IGNORED("description"),
    XC_SPEC_IGNORED("source"),
    XC_SPEC_IGNORED("notes"),
    XC_SPEC_O(pop_top, "fixed", 1, fixed, NULL),
    XC_SPEC_O(pop_top, "draw", 1, draw, NULL),
    XC_SPEC_O(pop_top, "frb", 0, frb, NULL),
    XC_SPEC_END,
};

/* One draw: {"dist": "uniform" | "loguniform", "lo": A, "hi": B}. */
typedef struct {
    const char *dist;
    double lo, hi;
} draw_entry;

static const xc_spec_field draw_fields[] = {
    XC_SPEC_S(draw_entry, "dist", 1, dist, NULL),
    XC_SPEC_N(draw_entry, "lo", 1, lo, -DBL_MAX, DBL_MAX),
    XC_SPEC_N(draw_entry, "hi", 1, hi, -DBL_MAX, DBL_MAX),
    XC_SPEC_END,
};

xc_status xc_popspec_load(xc_popspec *s, const char *path, xc_error *err)
{
    return xc_popspec_load_override(s, path, NULL, NULL, err);
}

xc_status xc_popspec_load_override(xc_popspec *s, const char *path, const struct json_t *ofixed,
                                   const struct json_t *odraw, xc_error *err)
{
    memset(s, 0, sizeof *s);
    snprintf(s->path, sizeof s->path, "%s", path);
    json_t *root;
    xc_status st = xc_spec_load(path, 0, &root, err);
    if (st)
        return st;
    if ((ofixed || odraw) && (st = apply_overrides(root, ofixed, odraw, path, err))) {
        json_decref(root);
        return st;
    }
    pop_top top = {NULL, NULL, NULL};
    if ((st = xc_spec_read(root, path, "", pop_fields, &top, err)) ||
        (top.frb && (st = xc_frbdraw_read(&s->frb, top.frb, path, err))))
        goto done;
    const json_t *fixed = top.fixed, *draw = top.draw;
    xc_synth_params p;
    xc_synth_params_init(&p);
    char src[1200];
    snprintf(src, sizeof src, "%s: fixed", path);
    st = xc_synth_params_from_json(&p, fixed, src, err);
    xc_synth_params_free(&p);
    if (st)
        goto done;
    s->fixed = json_deep_copy(fixed);
    s->draw = calloc(json_object_size(draw) + 1, sizeof *s->draw);
    if (!s->fixed || !s->draw) {
        st = xc_error_set(err, XC_ENOMEM, "%s: out of memory", path);
        goto done;
    }
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)draw, k, v) {
        xc_popdraw *d = &s->draw[s->ndraw];
        if (strlen(k) >= sizeof d->field || !strcmp(k, "seed") || !strcmp(k, "pulses")) {
            st = xc_error_set(err, XC_EINVAL, "%s: draw.%s: not a field that can be drawn", path, k);
            goto done;
        }
        if (json_object_get(fixed, k)) {
            st = xc_error_set(err, XC_EINVAL, "%s: draw.%s: also in \"fixed\"", path, k);
            goto done;
        }
        char where[300];
        snprintf(where, sizeof where, "draw.%s", k);
        draw_entry de = {NULL, 0, 0};
        if ((st = xc_spec_read(v, path, where, draw_fields, &de, err)))
            goto done;
        const char *dist = de.dist;
        snprintf(d->field, sizeof d->field, "%s", k);
        d->lo = de.lo;
        d->hi = de.hi;
        if (!strcmp(dist, "uniform")) {
            d->dist = XC_DIST_UNIFORM;
        } else if (!strcmp(dist, "loguniform")) {
            d->dist = XC_DIST_LOGUNIFORM;
        } else {
            st = xc_error_set(err, XC_EINVAL, "%s: draw.%s.dist = \"%s\": must be \"uniform\" or \"loguniform\"",
                              path, k, dist);
            goto done;
        }
        if (!(d->lo <= d->hi) || !isfinite(d->lo) || !isfinite(d->hi) ||
            (d->dist == XC_DIST_LOGUNIFORM && !(d->lo > 0))) {
            st = xc_error_set(err, XC_EINVAL, "%s: draw.%s: lo = %.15g, hi = %.15g: must be finite with lo <= hi%s",
                              path, k, d->lo, d->hi, d->dist == XC_DIST_LOGUNIFORM ? " and lo > 0" : "");
            goto done;
        }
        if ((st = try_field(s, k, d->lo, err)))
            goto done;
        s->ndraw++;
    }
done:
    json_decref(root);
    if (st) {
        json_decref(s->fixed);
        free(s->draw);
        s->fixed = NULL;
        s->draw = NULL;
        s->ndraw = 0;
    }
    return st;
}

/* FNV-1a: each field's draws come from their own counter. */
static uint32_t name_hash(const char *s)
{
    uint32_t h = 2166136261u;
    for (; *s; s++)
        h = (h ^ (uint8_t)*s) * 16777619u;
    return h;
}

static double uniform01(uint64_t seed, uint64_t i, uint32_t c)
{
    uint32_t w[4];
    xc_synth_words(seed, XC_STREAM_DRAW, i, c, w);
    return (double)((((uint64_t)w[0] << 32) | w[1]) >> 11) * 0x1p-53;
}

xc_status xc_popspec_pulsar(const xc_popspec *s, uint64_t seed, uint64_t i, xc_synth_params *p, int *attempts,
                            xc_error *err)
{
    xc_error last;
    xc_error_clear(&last);
    for (int a = 0; a < XC_POP_MAX_ATTEMPTS; a++) {
        json_t *o = json_deep_copy(s->fixed);
        int bad = !o;
        for (size_t k = 0; !bad && k < s->ndraw; k++) {
            const xc_popdraw *d = &s->draw[k];
            double u = uniform01(seed, i, name_hash(d->field) + 0x9E3779B9u * (uint32_t)a);
            double v = d->dist == XC_DIST_UNIFORM ? d->lo + u * (d->hi - d->lo)
                                                  : exp(log(d->lo) + u * (log(d->hi) - log(d->lo)));
            bad |= json_object_set_new(o, d->field, json_real(v)) != 0;
        }
        uint32_t w[4];
        xc_synth_words(seed, XC_STREAM_SEED, i, (uint32_t)a, w);
        bad |= !o || json_object_set_new(o, "seed", xc_synth_seed_json(((uint64_t)w[1] << 32) | w[0])) != 0;
        if (bad) {
            json_decref(o);
            return xc_error_set(err, XC_ENOMEM, "%s: out of memory drawing pulsar %llu", s->path,
                                (unsigned long long)i);
        }
        char src[1200];
        snprintf(src, sizeof src, "%s: pulsar %llu", s->path, (unsigned long long)i);
        xc_synth_params_init(p);
        xc_status st = xc_synth_params_from_json(p, o, src, &last);
        json_decref(o);
        if (!st && s->frb.on)
            st = xc_frbdraw_add(&s->frb, seed, i, a, p, &last);
        if (!st)
            st = xc_synth_params_check(p, src, &last);
        if (!st) {
            *attempts = a + 1;
            return XC_OK;
        }
        xc_synth_params_free(p);
        if (st != XC_EINVAL) {
            if (err)
                *err = last;
            return st;
        }
    }
    return xc_error_set(err, XC_EINVAL, "%s: pulsar %llu: %d draws in a row rejected; the last: %s", s->path,
                        (unsigned long long)i, XC_POP_MAX_ATTEMPTS, last.msg);
}

/* ---- running a population -------------------------------------------------------- */

/* A CSV field: quoted when it holds a comma, a quote or a newline. */
static int csv_put(char **buf, size_t *len, size_t *cap, const char *s, int comma)
{
    size_t need = *len + 2 * strlen(s) + 4;
    if (need > *cap) {
        size_t nc = 2 * need + 256;
        char *nb = realloc(*buf, nc);
        if (!nb)
            return -1;
        *buf = nb;
        *cap = nc;
    }
    char *o = *buf + *len;
    if (comma)
        *o++ = ',';
    if (strpbrk(s, ",\"\n")) {
        *o++ = '"';
        for (; *s; s++) {
            if (*s == '"')
                *o++ = '"';
            *o++ = *s;
        }
        *o++ = '"';
    } else {
        size_t n = strlen(s);
        memcpy(o, s, n);
        o += n;
    }
    *o = '\0';
    *len = (size_t)(o - *buf);
    return 0;
}

/* Appends s and a newline as they are. */
static int append_line(char **buf, size_t *len, size_t *cap, const char *s)
{
    size_t n = strlen(s);
    if (*len + n + 2 > *cap) {
        size_t nc = 2 * (*len + n + 2) + 256;
        char *nb = realloc(*buf, nc);
        if (!nb)
            return -1;
        *buf = nb;
        *cap = nc;
    }
    memcpy(*buf + *len, s, n);
    *len += n;
    (*buf)[(*len)++] = '\n';
    (*buf)[*len] = '\0';
    return 0;
}

static void json_text(const json_t *v, char *out, size_t n)
{
    if (json_is_integer(v))
        snprintf(out, n, "%lld", (long long)json_integer_value(v));
    else if (json_is_real(v))
        snprintf(out, n, "%.17g", json_real_value(v));
    else if (json_is_string(v))
        snprintf(out, n, "%s", json_string_value(v));
    else if (json_is_true(v))
        snprintf(out, n, "true");
    else if (json_is_false(v))
        snprintf(out, n, "false");
    else
        out[0] = '\0';
}

static int file_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* Reads a small text file whole (NULL if absent or unreadable). */
static char *slurp(const char *path)
{
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return NULL;
    char *b = NULL;
    size_t len = 0, cap = 0;
    for (;;) {
        if (len + 4096 + 1 > cap) {
            cap = 2 * cap + 8192;
            char *nb = realloc(b, cap);
            if (!nb) {
                free(b);
                fclose(fp);
                return NULL;
            }
            b = nb;
        }
        size_t r = fread(b + len, 1, 4096, fp);
        len += r;
        if (r < 4096)
            break;
    }
    fclose(fp);
    b[len] = '\0';
    return b;
}

/* Removes the temporary files an interrupted run left for this pulsar. */
static void remove_stale(const char *out, const char *id)
{
    DIR *d = opendir(out);
    if (!d)
        return;
    struct dirent *e;
    size_t n = strlen(id);
    while ((e = readdir(d))) {
        if (!strncmp(e->d_name, id, n) && e->d_name[n] == '.' && strstr(e->d_name, ".tmp.")) {
            char path[4200];
            snprintf(path, sizeof path, "%s/%s", out, e->d_name);
            remove(path);
        }
    }
    closedir(d);
}

static xc_status write_text(const char *path, const char *text, xc_error *err)
{
    xc_atomic a;
    xc_status st = xc_atomic_open(&a, path, 0, err);
    if (st)
        return st;
    size_t len = strlen(text);
    if (fwrite(text, 1, len, a.fp) != len) {
        xc_atomic_abort(&a);
        return xc_error_set(err, XC_EIO, "%s: write failed: %s", path, strerror(errno));
    }
    return xc_atomic_commit(&a, err);
}

/* The burst columns of p's first pulse (the population's one burst), as the
 * truth records them; empty without a pulse.  Non-zero when out of memory. */
static int burst_row(char **row, size_t *len, size_t *cap, const xc_synth_params *p)
{
    const xc_synth_pulse *b = p->npulses ? &p->pulses[0] : NULL;
    const double v[NBURST] = {b ? b->fluence_jyms : 0, b ? b->width_ms : 0, b ? b->tau_ms : 0, b ? b->dm : 0,
                              b ? b->t_s : 0};
    char t[64];
    int bad = 0;
    for (size_t k = 0; !bad && k < NBURST; k++) {
        if (b)
            snprintf(t, sizeof t, "%.17g", v[k]);
        else
            t[0] = '\0';
        bad = csv_put(row, len, cap, t, 1);
    }
    return bad;
}

/* The manifest row of one pulsar from its parameters and its truth file
 * (with frb, the burst columns too). */
static char *make_row(const char *id, const xc_synth_params *p, const char *file, const char *truth_name,
                      const char *truth_path, int attempts, int frb, xc_error *err)
{
    char *row = NULL, t[64];
    size_t len = 0, cap = 0;
    xc_truth tr;
    if (xc_truth_load(&tr, truth_path, 0, err))
        return NULL;
    json_t *pj = xc_synth_params_to_json(p);
    int bad = !pj;
    snprintf(t, sizeof t, "%llu", (unsigned long long)p->seed);
    bad = bad || csv_put(&row, &len, &cap, id, 0) || csv_put(&row, &len, &cap, t, 1) ||
          csv_put(&row, &len, &cap, file, 1) || csv_put(&row, &len, &cap, truth_name, 1);
    for (size_t k = 0; !bad && k < NCOLS; k++) {
        json_text(json_object_get(pj, param_cols[k]), t, sizeof t);
        bad = csv_put(&row, &len, &cap, t, 1);
    }
    snprintf(t, sizeof t, "%d", attempts);
    bad = bad || csv_put(&row, &len, &cap, t, 1);
    /* the truth's f0_hz, r, z, w; empty without a pulsar */
    const int psr = xc_truth_has_pulsar(&tr);
    const double tv[] = {tr.f0_hz, tr.r, tr.z, tr.w};
    const int have[] = {psr, psr && tr.have_rz, psr && tr.have_rz, psr && isfinite(tr.w)};
    for (int k = 0; !bad && k < 4; k++) {
        if (have[k])
            snprintf(t, sizeof t, "%.17g", tv[k]);
        else
            t[0] = '\0';
        bad = csv_put(&row, &len, &cap, t, 1);
    }
    bad = bad || (frb && burst_row(&row, &len, &cap, p));
    json_decref(pj);
    if (bad) {
        free(row);
        xc_error_set(err, XC_ENOMEM, "%s: cannot build the manifest row (truth %s)", id, truth_path);
        return NULL;
    }
    return row;
}

xc_status xc_population_run(const xc_popspec *s, uint64_t n, uint64_t seed, const char *out, xc_popopts *o,
                            xc_error *err)
{
    if (mkdir(out, 0777) && errno != EEXIST)
        return xc_error_set(err, XC_EIO, "%s: cannot create the directory: %s", out, strerror(errno));
    o->made = o->skipped = 0;
    char *man = NULL;
    size_t mlen = 0, mcap = 0;
    /* header */
    int bad = csv_put(&man, &mlen, &mcap, "id", 0) || csv_put(&man, &mlen, &mcap, "noise_seed", 1) ||
              csv_put(&man, &mlen, &mcap, "file", 1) || csv_put(&man, &mlen, &mcap, "truth", 1);
    for (size_t k = 0; !bad && k < NCOLS; k++)
        bad = csv_put(&man, &mlen, &mcap, param_cols[k], 1);
    static const char *const tail[] = {"draw_attempts", "f0_hz", "r", "z", "w"};
    for (int k = 0; !bad && k < 5; k++)
        bad = csv_put(&man, &mlen, &mcap, tail[k], 1);
    for (size_t k = 0; !bad && s->frb.on && k < NBURST; k++)
        bad = csv_put(&man, &mlen, &mcap, burst_cols[k], 1);
    if (bad || append_line(&man, &mlen, &mcap, "")) {
        free(man);
        return xc_error_set(err, XC_ENOMEM, "out of memory for the manifest");
    }
    xc_status st = XC_OK;
    for (uint64_t k = 0; k < n && !st; k++) {
        const uint64_t i = o->first + k;
        char id[32], file[64], truth_name[64], path[4200], tpath[4200], done[4200], stem[4200], cmd[1400];
        snprintf(id, sizeof id, "psr%06llu", (unsigned long long)i);
        snprintf(file, sizeof file, "%s.%s", id, o->dedispersed ? "dat" : "fil");
        snprintf(truth_name, sizeof truth_name, "%s.truth.json", id);
        snprintf(stem, sizeof stem, "%s/%s", out, id);
        snprintf(path, sizeof path, "%s/%s", out, file);
        snprintf(tpath, sizeof tpath, "%s/%s", out, truth_name);
        snprintf(done, sizeof done, "%s/%s.done", out, id);
        xc_synth_params p;
        int attempts = 0;
        if ((st = xc_popspec_pulsar(s, seed, i, &p, &attempts, err)))
            break;
        p.nthreads = o->nthreads;
        p.file_label = file;
        /* the checkpoint's first line: everything the files depend on */
        json_t *pj = xc_synth_params_to_json(&p);
        char *key = pj ? json_dumps(pj, JSON_COMPACT | JSON_SORT_KEYS | JSON_REAL_PRECISION(17)) : NULL;
        json_decref(pj);
        char *prev = slurp(done), *row = NULL;
        size_t klen = key ? strlen(key) : 0;
        int dat_ok = !o->dedispersed || (snprintf(cmd, sizeof cmd, "%s/%s.inf", out, id), file_exists(cmd));
        if (key && prev && !strncmp(prev, o->dedispersed ? "dedispersed " : "filterbank ", o->dedispersed ? 12 : 11)) {
            const char *pk = prev + (o->dedispersed ? 12 : 11);
            if (!strncmp(pk, key, klen) && pk[klen] == '\n' && file_exists(path) && file_exists(tpath) && dat_ok) {
                /* the row made again from the same parameters and truth: a
                 * checkpoint of an earlier manifest layout still resumes */
                if (!(row = make_row(id, &p, file, truth_name, tpath, attempts, s->frb.on, err)))
                    st = err ? err->code : XC_ENOMEM;
                else
                    o->skipped++;
            }
        }
        if (!key) {
            st = xc_error_set(err, XC_ENOMEM, "out of memory for pulsar %s", id);
        } else if (!row && !st) {
            remove(done);
            remove_stale(out, id);
            snprintf(cmd, sizeof cmd, "crosscheck population -spec %.1024s -seed %llu (pulsar %llu)", s->path,
                     (unsigned long long)seed, (unsigned long long)i);
            st = o->dedispersed ? xc_synth_write_dedispersed(&p, stem, tpath, cmd, err)
                                : xc_synth_write(&p, path, tpath, cmd, err);
            if (!st && !(row = make_row(id, &p, file, truth_name, tpath, attempts, s->frb.on, err)))
                st = err ? err->code : XC_ENOMEM;
            if (!st) {
                size_t need = strlen(key) + strlen(row) + 32;
                char *text = malloc(need);
                if (!text) {
                    st = xc_error_set(err, XC_ENOMEM, "out of memory for pulsar %s", id);
                } else {
                    snprintf(text, need, "%s%s\n%s\n", o->dedispersed ? "dedispersed " : "filterbank ", key, row);
                    st = write_text(done, text, err);
                    free(text);
                }
                o->made++;
            }
        }
        if (!st && row) {
            size_t rl = strcspn(row, "\n");
            row[rl] = '\0';
            if (append_line(&man, &mlen, &mcap, row))
                st = xc_error_set(err, XC_ENOMEM, "out of memory for the manifest");
        }
        free(row);
        free(prev);
        free(key);
        xc_synth_params_free(&p);
        if (!st && o->progress)
            o->progress(o->progress_ctx, k + 1, n);
    }
    if (!st) {
        char mpath[4200];
        snprintf(mpath, sizeof mpath, "%s/manifest.csv", out);
        st = write_text(mpath, man, err);
    }
    free(man);
    return st;
}
