/* Running a study: the pulsars the journals do not finish, searched in
 * parallel (one pulsar per worker thread, or pulsars handed out by MPI
 * ranks), each finished search appended to this process's journal. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "study/spec/study_internal.h"

/* done[p * ns + q]: does slice pulsar p have search q? */
static xc_status done_map(const xc_study *st, const xc_study_rows *rows, uint64_t shard, uint64_t nshards,
                          unsigned char **done, size_t *np, xc_error *err)
{
    const size_t ns = xc_study_nsearch(st);
    *np = st->n > shard ? (size_t)((st->n - shard + nshards - 1) / nshards) : 0;
    *done = calloc(*np * ns > 0 ? *np * ns : 1, 1);
    if (!*done)
        return xc_error_set(err, XC_ENOMEM, "out of memory for %zu pulsars", *np);
    for (size_t i = 0; i < rows->n; i++) {
        const xc_study_row *r = &rows->r[i];
        if (r->id < st->n && r->id % nshards == shard)
            (*done)[(size_t)((r->id - shard) / nshards) * ns + xc_study_search_index(st, r->searcher, r->config)] = 1;
    }
    return XC_OK;
}

/* The slice's pulsars the journals in dir do not finish: the done map
 * (done_map) and the slice indices p of the pending ones, ascending. */
static xc_status pending(const xc_study *st, const char *dir, uint64_t shard, uint64_t nshards, unsigned char **done,
                         size_t *np, uint64_t **pend, uint64_t *npend, xc_error *err)
{
    *done = NULL;
    *pend = NULL;
    *npend = 0;
    const size_t ns = xc_study_nsearch(st);
    xc_study_rows rows = {0};
    xc_status e = xc_study_journal_read(st, dir, &rows, err);
    if (!e)
        e = xc_study_rows_sort(&rows, err);
    if (!e)
        e = done_map(st, &rows, shard, nshards, done, np, err);
    xc_study_rows_free(&rows);
    if (!e && !(*pend = malloc((*np ? *np : 1) * sizeof **pend)))
        e = xc_error_set(err, XC_ENOMEM, "out of memory");
    for (size_t p = 0; !e && p < *np; p++) {
        int all = 1;
        for (size_t q = 0; q < ns; q++)
            all &= (*done)[p * ns + q];
        if (!all)
            (*pend)[(*npend)++] = p;
    }
    if (e) {
        free(*done);
        free(*pend);
        *done = NULL;
        *pend = NULL;
    }
    return e;
}

static xc_status check_shard(uint64_t shard, uint64_t nshards, xc_error *err)
{
    if (nshards < 1 || shard >= nshards)
        return xc_error_set(err, XC_EINVAL, "-shard %llu/%llu: needs 0 <= I < N", (unsigned long long)shard,
                            (unsigned long long)nshards);
    return XC_OK;
}

xc_status xc_study_pending(const xc_study *st, const char *dir, uint64_t shard, uint64_t nshards, uint64_t **ids,
                           uint64_t *n, xc_error *err)
{
    *ids = NULL;
    *n = 0;
    unsigned char *done = NULL;
    size_t np = 0;
    xc_status e = check_shard(shard, nshards, err);
    if (!e)
        e = pending(st, dir, shard, nshards, &done, &np, ids, n, err);
    for (uint64_t k = 0; !e && k < *n; k++)
        (*ids)[k] = shard + (*ids)[k] * nshards;
    free(done);
    return e;
}

/* ---- the workers ----------------------------------------------------------------------- */

/* What the workers share: the slice, the work, and the first error. */
typedef struct {
    const xc_study *st;
    xc_study_runopts *o;
    uint64_t shard, nshards;
    const unsigned char *done;     /* done_map */
    const uint64_t *pend;          /* pending slice indices */
    uint64_t npend;
    int inner;                     /* threads per worker */
    xc_study_journal *j;
    xc_study_gate *gate;
    uint64_t next, finished;
    xc_status first_err;
    uint64_t err_id;
    xc_error werr;
} work_t;

/* The next pending pulsar's index into w->pend, or npend when there is no
 * more work (the list is done, or a worker failed). */
static uint64_t take(work_t *w)
{
    uint64_t k;
    int stop;
#pragma omp critical(xc_study_next)
    {
        stop = w->first_err != XC_OK;
        if (w->o->next)
            k = w->o->next(w->o->next_ctx);
        else
            k = w->next++;
    }
    return stop || k >= w->npend ? w->npend : k;
}

/* Pending pulsar k's missing searches, their rows appended to the journal
 * (the rows of a pulsar cut short by an error are kept: they are finished). */
static void one_pulsar(work_t *w, xc_study_cache *cache, uint64_t k)
{
    const size_t ns = xc_study_nsearch(w->st);
    const size_t p = (size_t)w->pend[k];
    const uint64_t id = w->shard + (uint64_t)p * w->nshards;
    unsigned char want[XC_STUDY_MAX_CONFIGS * XC_STUDY_MAX_SEARCHERS];
    for (size_t q = 0; q < ns; q++)
        want[q] = !w->done[p * ns + q];
    xc_study_rows mine = {0};
    xc_error e1;
    xc_error_clear(&e1);
    xc_status s1 = xc_study_pulsar_cached(w->st, cache, id, want, w->inner, &mine, NULL, &e1);
#pragma omp critical(xc_study_journal)
    {
        xc_error e2;
        xc_error_clear(&e2);
        xc_status s2 = xc_study_journal_append(w->j, &mine, 0, &e2);
        if (!s1 && s2) {
            s1 = s2;
            e1 = e2;
        }
        if (s1 && id < w->err_id) {
            w->err_id = id;
            w->first_err = s1;
            w->werr = e1;
        } else if (!s1) {
            w->finished++;
            xc_progress_report(&w->o->progress, "study", w->finished, w->npend);
        }
    }
    xc_study_rows_free(&mine);
}

/* One worker: its searches kept from pulsar to pulsar (xc_study_cache). */
static void worker(work_t *w)
{
    xc_study_cache *cache = NULL;
    xc_error ce;
    xc_error_clear(&ce);
    if (!xc_study_cache_new(w->st, &cache, &ce))
        xc_study_cache_gate(cache, w->gate);
    else
#pragma omp critical(xc_study_journal)
    {
        if (!w->first_err) {
            w->first_err = ce.code;
            w->werr = ce;
        }
    }
    for (uint64_t k; (k = take(w)) < w->npend;)
        one_pulsar(w, cache, k);
    xc_study_cache_free(cache);
}

/* Workers: one pulsar each, single-threaded kernels (a pulsar's spectrum is
 * small; whole pulsars side by side use the cores best).  A device searcher
 * runs alone with every thread for its host side, unless the caller asks for
 * more workers (their host stages then overlap the device's work). */
static xc_status run_workers(work_t *w, xc_error *err)
{
    const xc_study *st = w->st;
    int threads = w->o->threads > 0 ? w->o->threads : omp_get_max_threads();
    int device = 0;
    for (size_t k = 0; k < st->ns; k++)
        device |= (st->s[k].impl->caps & XC_CAP_DEVICE) != 0;
    int workers = w->o->workers > 0 ? w->o->workers : device ? 1 : threads;
    if ((uint64_t)workers > w->npend)
        workers = w->npend ? (int)w->npend : 1;
    w->inner = threads / workers > 0 ? threads / workers : 1;
    w->err_id = UINT64_MAX;
    xc_error_clear(&w->werr);
    xc_progress_report(&w->o->progress, "study", 0, w->npend);
    /* device searches at once among the workers */
    xc_status e = device ? xc_study_gate_new(w->o->device_jobs > 0 ? w->o->device_jobs : 1, &w->gate, err) : XC_OK;
    if (e)
        return e;
#pragma omp parallel num_threads(workers)
    worker(w);
    xc_study_gate_free(w->gate);
    w->o->made = w->finished;
    if (w->first_err && err)
        *err = w->werr;
    return w->first_err;
}

xc_status xc_study_run(const xc_study *st, const char *dir, xc_study_runopts *o, xc_error *err)
{
    uint64_t shard = o->nshards > 1 ? o->shard : 0, nshards = o->nshards > 1 ? o->nshards : 1;
    if (o->nshards > 1 && check_shard(o->shard, o->nshards, err))
        return XC_EINVAL;
    char tag[96];
    if (o->tag)
        snprintf(tag, sizeof tag, "%s", o->tag);
    else if (nshards > 1)
        snprintf(tag, sizeof tag, "shard-%llu-of-%llu", (unsigned long long)shard, (unsigned long long)nshards);
    else
        snprintf(tag, sizeof tag, "main");
    work_t w = {.st = st, .o = o, .shard = shard, .nshards = nshards};
    unsigned char *done = NULL;
    uint64_t *pend = NULL;
    size_t np = 0;
    xc_status e = xc_study_dir_init(st, dir, err);
    if (!e)
        e = pending(st, dir, shard, nshards, &done, &np, &pend, &w.npend, err);
    if (!e) {
        w.done = done;
        w.pend = pend;
        o->done_before = np - w.npend;
        if (o->ready)
            o->ready(o->ready_ctx);
        o->made = 0;
        e = xc_study_journal_open(&w.j, dir, tag, err);
    }
    if (!e)
        e = run_workers(&w, err);
    xc_study_journal_close(w.j);
    free(pend);
    free(done);
    return e;
}

/* ---- merge --------------------------------------------------------------------------- */

/* A shard's study.json: its hash, n and the spec path it was run with. */
static xc_status read_study_json(const char *dir, char *hash, size_t nh, uint64_t *n, char *spec_file, size_t ns,
                                 xc_error *err)
{
    char path[4300];
    snprintf(path, sizeof path, "%s/study.json", dir);
    json_error_t je;
    json_t *o = json_load_file(path, 0, &je);
    if (!o)
        return xc_error_set(err, XC_EIO, "%s: not a study directory (%s)", dir, je.text);
    const char *h = json_string_value(json_object_get(o, "study_hash"));
    const char *sf = json_string_value(json_object_get(o, "spec_file"));
    json_t *jn = json_object_get(o, "n");
    if (!h || !sf || !json_is_integer(jn) || json_integer_value(jn) < 1) {
        json_decref(o);
        return xc_error_set(err, XC_EFORMAT, "%s: study_hash, spec_file and n: missing or of the wrong type", path);
    }
    snprintf(hash, nh, "%s", h);
    snprintf(spec_file, ns, "%s", sf);
    *n = (uint64_t)json_integer_value(jn);
    json_decref(o);
    return XC_OK;
}

xc_status xc_study_merge(const char *const *dirs, size_t ndirs, const char *out, const xc_registry *reg,
                         xc_study *st, xc_error *err)
{
    memset(st, 0, sizeof *st);
    if (ndirs < 1)
        return xc_error_set(err, XC_EINVAL, "-merge: no study directories");
    char spec[4300], h0[64], want[64], sf0[sizeof st->path], sfi[sizeof st->path];
    uint64_t n = 0;
    snprintf(spec, sizeof spec, "%s/spec.json", dirs[0]);
    xc_status e = xc_study_load(st, spec, reg, err);
    if (e)
        return e;
    snprintf(want, sizeof want, "%016llx", (unsigned long long)st->hash);
    for (size_t i = 0; i < ndirs; i++) {
        uint64_t ni = 0;
        if ((e = read_study_json(dirs[i], h0, sizeof h0, &ni, i ? sfi : sf0, sizeof sfi, err)))
            goto fail;
        if (strcmp(h0, want)) {
            e = xc_error_set(err, XC_EINVAL, "%s: another study (hash %s; %s has %s): cannot merge them", dirs[i], h0,
                             dirs[0], want);
            goto fail;
        }
        /* study.json records the spec path a run was given; the merged one
         * records the shards' (so it is one run's study.json, byte for
         * byte), which must then be one path */
        if (i && strcmp(sfi, sf0)) {
            e = xc_error_set(err, XC_EINVAL, "%s/study.json: spec_file \"%s\", but %s/study.json has \"%s\": shards "
                             "of one study run with different spec paths (give every shard the same -spec path)",
                             dirs[i], sfi, dirs[0], sf0);
            goto fail;
        }
        n = ni > n ? ni : n;
    }
    st->n = n;
    xc_study_rows rows = {0};
    for (size_t i = 0; i < ndirs && !e; i++)
        e = xc_study_journal_read(st, dirs[i], &rows, err);
    if (!e)
        e = xc_study_rows_sort(&rows, err);
    /* the spec read from the first shard's copy, recorded as the path the
     * shards were run with */
    snprintf(st->path, sizeof st->path, "%s", sf0);
    if (!e)
        e = xc_study_dir_init(st, out, err);
    /* The joined journal: the output directory is a study directory too. */
    xc_study_journal *j = NULL;
    if (!e) {
        char path[4300];
        snprintf(path, sizeof path, "%s/journal/merged.csv", out);
        remove(path);
        e = xc_study_journal_open(&j, out, "merged", err);
    }
    if (!e)
        e = xc_study_journal_append(j, &rows, 0, err);
    xc_study_journal_close(j);
    if (!e)
        e = xc_study_write_outputs(st, &rows, 0, 1, out, err);
    xc_study_rows_free(&rows);
    if (e)
        goto fail;
    return XC_OK;
fail:
    xc_study_free(st);
    return e;
}
