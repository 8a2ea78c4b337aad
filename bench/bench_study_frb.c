/* An FRB study's bench record (xc_bench_study.h): per burst the synthesis,
 * the dedispersion, each single-pulse search and the scoring, and what that
 * projects for the spec's population of bursts. */
#include <jansson.h>
#include <math.h>

#include "bench/xc_bench_study.h"

/* Per search, then per searcher. */
static void searches_json(json_t *root, const xc_study *st, const xc_bench_study_result *r, double n)
{
    json_t *stages = json_array(), *bys = json_array();
    for (size_t k = 0, q = 0; k < st->ns; k++) {
        double tot = 0;
        for (size_t c = 0; c < st->s[k].ncfg; c++, q++) {
            json_t *j = json_object();
            json_object_set_new(j, "searcher", json_string(st->s[k].name));
            json_object_set_new(j, "impl", json_string(st->s[k].impl->name));
            json_object_set_new(j, "config", json_string(st->s[k].cfg[c].label));
            json_object_set_new(j, "s_per_burst", json_real(r->secs[3 + q] / n));
            json_array_append_new(stages, j);
            tot += r->secs[3 + q];
        }
        json_t *j = json_object();
        json_object_set_new(j, "searcher", json_string(st->s[k].name));
        json_object_set_new(j, "impl", json_string(st->s[k].impl->name));
        json_object_set_new(j, "configurations", json_integer((json_int_t)st->s[k].ncfg));
        json_object_set_new(j, "s_per_burst", json_real(tot / n));
        json_array_append_new(bys, j);
    }
    json_object_set_new(root, "searches", stages);
    json_object_set_new(root, "searchers", bys);
}

json_t *xc_bench_study_frb_json(const xc_study *st, const char *spec, const xc_bench_study_opts *o,
                                const xc_bench_study_result *r)
{
    const double n = (double)r->ns;   /* the serial pass's */
    json_t *root = json_object();
    json_object_set_new(root, "benchmark", json_string("study"));
    json_object_set_new(root, "kind", json_string("frb"));
    json_object_set_new(root, "spec", json_string(spec));
    json_object_set_new(root, "bursts", json_integer((json_int_t)o->n));
    json_object_set_new(root, "device_jobs", json_integer(r->anydev ? r->K : 0));
    json_object_set_new(root, "serial_threads", json_integer(r->anydev ? r->T : 1));
    json_object_set_new(root, "serial_s_per_burst", json_real(r->per_psr));
    json_object_set_new(root, "bursts_per_s_per_core", json_real(1.0 / r->per_psr));
    json_object_set_new(root, "synthesis_s_per_burst", json_real(r->secs[0] / n));
    json_object_set_new(root, "dedispersion_s_per_burst", json_real(r->secs[1] / n));
    json_object_set_new(root, "scoring_s_per_burst", json_real(r->secs[2] / n));
    searches_json(root, st, r, n);
    if (isfinite(r->wall)) {
        json_object_set_new(root, "parallel_workers", json_integer(r->W));
        json_object_set_new(root, "parallel_threads", json_integer(r->T));
        json_object_set_new(root, "parallel_wall_s", json_real(r->wall));
        json_object_set_new(root, "parallel_bursts_per_s", json_real((double)o->n / r->wall));
    }
    json_t *proj = json_object();
    json_object_set_new(proj, "population_bursts", json_integer((json_int_t)st->n));
    json_object_set_new(proj, r->anydev ? "hours_serial_on_this_device" : "core_hours", json_real(r->serial_h));
    if (!r->anydev)
        json_object_set_new(proj, "hours_on_16_cores", json_real(r->serial_h / 16));
    json_object_set_new(proj, "hours_on_this_machine_side_by_side",
                        isfinite(r->machine_h) ? json_real(r->machine_h) : json_null());
    json_object_set_new(proj, "assumption", json_string("the timed bursts are typical of the population "
                                                        "(the spec's own bursts, the first -n of them)"));
    json_object_set_new(root, "projection", proj);
    return root;
}
