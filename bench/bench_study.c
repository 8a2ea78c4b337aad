/* How fast a study goes, stage by stage, and what that projects for the
 * Pulscan paper's full study (xc_bench_study.h). */
#include <jansson.h>
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "bench/xc_bench_study.h"
#include "core/base/xc_progress.h"

void xc_bench_study_result_free(xc_bench_study_result *r)
{
    free(r->secs);
    free(r->psecs);
    free(r->done);
    r->secs = r->psecs = r->done = NULL;
}

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

void xc_bench_study_steady(const double *done, uint64_t n, int W, double wall, double *rate, double *fixed)
{
    *rate = *fixed = NAN;
    const uint64_t k0 = W > 1 ? (uint64_t)W : 1;   /* 1-based: the W-th completion */
    if (!done || n < k0 + 2)
        return;
    double *t = malloc(n * sizeof *t);
    if (!t)
        return;
    memcpy(t, done, n * sizeof *t);
    qsort(t, n, sizeof *t, cmp_double);
    /* least squares t = a + b k over k = k0..n (t[k - 1]) */
    const double m = (double)(n - k0 + 1), kbar = ((double)k0 + (double)n) / 2;
    double tbar = 0, sxy = 0, sxx = 0;
    for (uint64_t k = k0; k <= n; k++)
        tbar += t[k - 1];
    tbar /= m;
    for (uint64_t k = k0; k <= n; k++) {
        const double dk = (double)k - kbar;
        sxy += dk * (t[k - 1] - tbar);
        sxx += dk * dk;
    }
    free(t);
    const double b = sxy / sxx;
    if (!(b > 0) || !isfinite(b))
        return;
    *rate = 1 / b;
    *fixed = wall - (double)n * b;
}

double xc_bench_study_hours(double startup, double fixed, double rate, double npsr, double scale)
{
    if (!(rate > 0))
        return NAN;
    return ((startup > 0 ? startup : 0) + fixed + npsr * scale / rate) / 3600.0;
}

/* 1. serial, one thread (all threads for a device searcher's host side) */
static xc_status serial_pass(const xc_study *st, const xc_bench_study_opts *o, xc_bench_study_result *r,
                             xc_error *err)
{
    xc_status e = XC_OK;
    double t0 = xc_now();
    xc_study_cache *cache = NULL;
    if (!o->separate && !o->fresh)
        e = xc_study_cache_new(st, &cache, err);
    for (uint64_t i = 0; i < r->ns && !e; i++) {
        xc_study_rows rows = {0};
        e = xc_study_pulsar_cached(st, cache, i, NULL, r->anydev ? r->T : 1, &rows, r->secs, err);
        xc_study_rows_free(&rows);
        if (!i)
            r->serial_first = xc_now() - t0;
    }
    xc_study_cache_free(cache);
    r->serial = xc_now() - t0;
    return e;
}

/* 2. side by side, as the study runs them (with a device searcher, W
 * pulsars share the device: their host stages overlap its work) */
static xc_status parallel_pass(const xc_study *st, const xc_bench_study_opts *o, xc_bench_study_result *r,
                               xc_study_gate *gate, xc_error *err)
{
    xc_status e2 = XC_OK;
    const int W = r->W, inner = r->T / W > 0 ? r->T / W : 1;
    const size_t ns = 3 + xc_study_nsearch(st);
    if (!(r->psecs = calloc(ns, sizeof *r->psecs)) || !(r->done = calloc(o->n, sizeof *r->done)))
        return xc_error_set(err, XC_ENOMEM, "out of memory");
    double t0 = xc_now();
#pragma omp parallel num_threads(W)
    {
        xc_study_cache *wc = NULL;
        xc_error e1;
        xc_error_clear(&e1);
        double *secs = calloc(ns, sizeof *secs);
        xc_status s1 = !secs ? xc_error_set(&e1, XC_ENOMEM, "out of memory")
                       : o->separate || o->fresh ? XC_OK : xc_study_cache_new(st, &wc, &e1);
        xc_study_cache_gate(wc, gate);
#pragma omp for schedule(dynamic, 1)
        for (long long i = 0; i < (long long)o->n; i++) {
            xc_study_rows rows = {0};
            if (!s1)
                s1 = xc_study_pulsar_cached(st, wc, (uint64_t)i, NULL, inner, &rows, secs, &e1);
            xc_study_rows_free(&rows);
            r->done[i] = xc_now() - t0;   /* one pulsar, one slot: no race */
        }
#pragma omp critical(bench_study_err)
        {
            for (size_t q = 0; secs && q < ns; q++)
                r->psecs[q] += secs[q];
            if (s1) {
                e2 = e1.code;
                *err = e1;
            }
        }
        free(secs);
        xc_study_cache_free(wc);
    }
    r->wall = xc_now() - t0;
    xc_study_gate_times(gate, &r->slot_wait, &r->slot_held);
    return e2;
}

/* The spectrum length of this spec (pulsar 0), and the projections. */
static void project(const xc_study *st, const xc_bench_study_opts *o, xc_bench_study_result *r)
{
    xc_synth_params p;
    int att;
    xc_error err;
    r->nbins = NAN;
    r->per_psr = r->serial / (double)r->ns;
    r->startup = r->ns > 1 ? r->serial_first - (r->serial - r->serial_first) / (double)(r->ns - 1) : NAN;
    xc_bench_study_steady(r->done, o->n, r->W, r->wall, &r->rate, &r->fixed);
    if (st->frb) {   /* the spec's own population, burst for burst */
        r->scale = 1;
        r->serial_h = (double)st->n * r->per_psr / 3600.0;
        r->machine_h = isfinite(r->wall) ? (double)st->n * r->wall / (double)o->n / 3600.0 : NAN;
        return;
    }
    if (!xc_popspec_pulsar(&st->pop, st->seed, 0, &p, &att, &err)) {
        r->nbins = floor((double)xc_synth_nsamp(&p) / 2);
        xc_synth_params_free(&p);
    }
    r->scale = isfinite(r->nbins) && r->nbins > 0 ? XC_BENCH_PAPER_NBINS / r->nbins : NAN;
    /* from the serial pass (per core on a CPU, per device) and from the
     * side-by-side pass (this machine as it ran) */
    r->serial_h = XC_BENCH_PAPER_NPSR * r->per_psr * r->scale / 3600.0;
    r->scaled_h = isfinite(r->wall) ? XC_BENCH_PAPER_NPSR * r->wall / (double)o->n * r->scale / 3600.0 : NAN;
    /* start-up once, the workers' fixed cost once, the rest at the steady
     * rate; the n pulsars' wall scaled up where no steady rate was found */
    r->machine_h = xc_bench_study_hours(r->startup, r->fixed, r->rate, XC_BENCH_PAPER_NPSR, r->scale);
    if (!isfinite(r->machine_h))
        r->machine_h = r->scaled_h;
}

xc_status xc_bench_study_measure(xc_study *st, const xc_bench_study_opts *o, xc_bench_study_result *r, xc_error *err)
{
    memset(r, 0, sizeof *r);
    st->separate = o->separate;
    r->secs = calloc(3 + xc_study_nsearch(st), sizeof *r->secs);
    if (!r->secs)
        return xc_error_set(err, XC_ENOMEM, "out of memory");
    r->T = o->threads > 0 ? o->threads : omp_get_max_threads();
    for (size_t k = 0; k < st->ns; k++)
        r->anydev |= (st->s[k].impl->caps & XC_CAP_DEVICE) != 0;
    r->wall = NAN;
    r->ns = o->serial > 0 && o->serial < o->n ? o->serial : o->n;
    r->W = o->workers > 0 ? o->workers : r->anydev ? 8 : r->T;
    r->K = o->device_jobs > 0 ? o->device_jobs : r->anydev ? 2 : 1;
    if (r->W > (int)o->n)
        r->W = (int)o->n;
    xc_status e = serial_pass(st, o, r, err);
    xc_study_gate *gate = NULL;
    if (!e && r->anydev && r->W > 1)
        e = xc_study_gate_new(r->K, &gate, err);
    if (!e && r->W > 1)
        e = parallel_pass(st, o, r, gate, err);
    xc_study_gate_free(gate);
    if (e) {
        xc_bench_study_result_free(r);
        return e;
    }
    project(st, o, r);
    return XC_OK;
}

/* Per search, then per searcher: configurations searched as one (a matched
 * filter's sweep, xc_psearch_joint) share the search's time evenly. */
static void searches_json(json_t *root, const xc_study *st, const xc_bench_study_opts *o,
                          const xc_bench_study_result *r)
{
    const double n = (double)r->ns;
    json_t *stages = json_array(), *bys = json_array();
    for (size_t k = 0, q = 0; k < st->ns; k++)
        for (size_t c = 0; c < st->s[k].ncfg; c++, q++) {
            json_t *j = json_object();
            json_object_set_new(j, "searcher", json_string(st->s[k].name));
            json_object_set_new(j, "impl", json_string(st->s[k].impl->name));
            json_object_set_new(j, "config", json_string(st->s[k].cfg[c].label));
            json_object_set_new(j, "s_per_pulsar", json_real(r->secs[2 + q] / n));
            json_array_append_new(stages, j);
        }
    json_object_set_new(root, "searches", stages);
    for (size_t k = 0, q = 0; k < st->ns; q += st->s[k].ncfg, k++) {
        double tot = 0;
        for (size_t c = 0; c < st->s[k].ncfg; c++)
            tot += r->secs[2 + q + c];
        json_t *j = json_object();
        json_object_set_new(j, "searcher", json_string(st->s[k].name));
        json_object_set_new(j, "impl", json_string(st->s[k].impl->name));
        json_object_set_new(j, "configurations", json_integer((json_int_t)st->s[k].ncfg));
        json_object_set_new(j, "one_sweep",
                            json_boolean(!o->separate && xc_psearch_joint(st->s[k].impl, st->s[k].ncfg)));
        json_object_set_new(j, "s_per_pulsar", json_real(tot / n));
        json_array_append_new(bys, j);
    }
    json_object_set_new(root, "searchers", bys);
}

/* The side-by-side pass's stages, worker-seconds per pulsar (a device
 * search's include its wait for a slot), and the device slots' wait and
 * hold: what bounds the pass. */
static void parallel_json(json_t *root, const xc_study *st, const xc_bench_study_opts *o,
                          const xc_bench_study_result *r)
{
    const double n = (double)o->n;
    json_t *j = json_object(), *bys = json_object();
    json_object_set_new(j, "synthesis", json_real(r->psecs[0] / n));
    json_object_set_new(j, "fft", json_real(r->psecs[1] / n));
    for (size_t k = 0, q = 0; k < st->ns; q += st->s[k].ncfg, k++) {
        double tot = 0;
        for (size_t c = 0; c < st->s[k].ncfg; c++)
            tot += r->psecs[2 + q + c];
        json_object_set_new(bys, st->s[k].name, json_real(tot / n));
    }
    json_object_set_new(j, "searchers", bys);
    json_object_set_new(root, "parallel_worker_s_per_pulsar", j);
    if (r->anydev) {
        json_object_set_new(root, "device_slot_wait_s_per_pulsar", json_real(r->slot_wait / n));
        json_object_set_new(root, "device_slot_held_s_per_pulsar", json_real(r->slot_held / n));
    }
}

static json_t *projection_json(const xc_bench_study_result *r)
{
    json_t *proj = json_object();
    const int steady = isfinite(r->rate);
    json_object_set_new(proj, "method",
                        json_string(!isfinite(r->wall) ? "serial pass only"
                                    : steady ? "startup_s + fixed_s + paper_pulsars x bins_scale / steady_pulsars_per_s"
                                             : "the side-by-side wall of the timed pulsars, scaled (too few "
                                               "completions past the first round for a steady rate)"));
    json_object_set_new(proj, "startup_s", isfinite(r->startup) ? json_real(r->startup) : json_null());
    json_object_set_new(proj, "fixed_s", steady ? json_real(r->fixed) : json_null());
    json_object_set_new(proj, "steady_pulsars_per_s", steady ? json_real(r->rate) : json_null());
    json_object_set_new(proj, "hours_scaled_from_timed_wall",
                        isfinite(r->scaled_h) ? json_real(r->scaled_h) : json_null());
    json_object_set_new(proj, "paper_pulsars", json_real(XC_BENCH_PAPER_NPSR));
    json_object_set_new(proj, "paper_nbins", json_real(XC_BENCH_PAPER_NBINS));
    json_object_set_new(proj, "bins_scale", json_real(r->scale));
    json_object_set_new(proj, r->anydev ? "hours_serial_on_this_device" : "core_hours", json_real(r->serial_h));
    if (!r->anydev)
        json_object_set_new(proj, "hours_on_16_cores", json_real(r->serial_h / 16));
    json_object_set_new(proj, "hours_on_this_machine_side_by_side",
                        isfinite(r->machine_h) ? json_real(r->machine_h) : json_null());
    json_object_set_new(proj, "assumption",
                        json_string("time per pulsar scales linearly with bins (x bins_scale), the fixed costs do "
                                    "not; startup_s is the serial pass's first pulsar less its mean one (device and "
                                    "libraries started, one worker's plans and templates); fixed_s the side-by-side "
                                    "wall less its pulsars at the steady rate (the workers' sessions, the first "
                                    "round's fill, the last round's tail); this spec's configurations, not "
                                    "necessarily the paper's"));
    return proj;
}

json_t *xc_bench_study_json(const xc_study *st, const char *spec, const xc_bench_study_opts *o,
                            const xc_bench_study_result *r)
{
    if (st->frb)
        return xc_bench_study_frb_json(st, spec, o, r);
    const double n = (double)o->n;
    json_t *root = json_object();
    json_object_set_new(root, "benchmark", json_string("study"));
    json_object_set_new(root, "spec", json_string(spec));
    json_object_set_new(root, "pulsars", json_integer((json_int_t)o->n));
    json_object_set_new(root, "separate", json_boolean(o->separate));
    json_object_set_new(root, "sessions_kept", json_boolean(!o->separate && !o->fresh));
    json_object_set_new(root, "device_jobs", json_integer(r->anydev ? r->K : 0));
    json_object_set_new(root, "nbins_approx", json_real(r->nbins));
    json_object_set_new(root, "serial_threads", json_integer(r->anydev ? r->T : 1));
    json_object_set_new(root, "serial_pulsars", json_integer((json_int_t)r->ns));
    json_object_set_new(root, "serial_s_per_pulsar", json_real(r->per_psr));
    json_object_set_new(root, "pulsars_per_s_per_core", json_real(1.0 / r->per_psr));
    json_object_set_new(root, "synthesis_s_per_pulsar", json_real(r->secs[0] / (double)r->ns));
    json_object_set_new(root, "fft_s_per_pulsar", json_real(r->secs[1] / (double)r->ns));
    searches_json(root, st, o, r);
    if (isfinite(r->wall)) {
        json_object_set_new(root, "parallel_workers", json_integer(r->W));
        json_object_set_new(root, "parallel_threads", json_integer(r->T));
        json_object_set_new(root, "parallel_wall_s", json_real(r->wall));
        json_object_set_new(root, "parallel_pulsars_per_s", json_real(n / r->wall));
        if (r->psecs)
            parallel_json(root, st, o, r);
    }
    json_object_set_new(root, "projection", projection_json(r));
    return root;
}
