/* xc_population.h: populations of synthetic pulsars drawn from a spec (the
 * Pulscan paper's Table 1 and smaller ones), written with a manifest and a
 * checkpoint per pulsar so an interrupted run resumes where it stopped.
 *
 * A spec is JSON:
 *   { "description": "...",
 *     "fixed": { synth fields (xc_synth_params_from_json) },
 *     "draw":  { "FIELD": {"dist": "uniform"|"loguniform", "lo": A, "hi": B}, ... },
 *     "frb":   { an FRB population: one burst per file, synth_frb.h } (optional) }
 * Pulsar i of seed S gets the fixed fields, then every drawn field from its own
 * Philox stream (key S, counter i, attempt, a hash of the field name), so a
 * pulsar's values depend on neither N nor the order of the fields; uniform is
 * A + u (B - A), log-uniform exp(ln A + u (ln B - ln A)), u in [0, 1).  Its
 * noise seed is drawn the same way.  A draw the synthesizer rejects (an orbit
 * whose speed would reach c/2 as e -> 1) is drawn again, and the manifest says
 * how many attempts it took: the distribution is the spec's, conditioned on
 * a valid pulsar. */
#ifndef XC_POPULATION_H
#define XC_POPULATION_H

#include <stddef.h>
#include <stdint.h>

#include "core/base/xc_error.h"
#include "synth/model/xc_synth.h"
#include "synth/population/synth_frb.h"

#ifdef __cplusplus
extern "C" {
#endif

#define XC_POP_MAX_ATTEMPTS 100

typedef enum { XC_DIST_UNIFORM, XC_DIST_LOGUNIFORM } xc_dist;

typedef struct {
    char field[32];
    xc_dist dist;
    double lo, hi;
} xc_popdraw;

typedef struct {
    char path[1024];
    struct json_t *fixed;      /* owned */
    xc_popdraw *draw;          /* owned */
    size_t ndraw;
    xc_frbdraw frb;            /* the "frb" object: one burst per file (synth_frb.h); frb.on 0 without */
} xc_popspec;

/* Reads and checks a spec: every fixed field must load into the synthesizer,
 * every drawn field must be a numeric synth field with lo <= hi (lo > 0 for
 * log-uniform).  Errors name the file and the field: XC_EIO, XC_EFORMAT, XC_EINVAL. */
xc_status xc_popspec_load(xc_popspec *s, const char *path, xc_error *err);
/* The same with a study's overrides applied before the checks: each field of
 * ofixed (an object, or NULL) replaces the spec's fixed value and removes a
 * draw of that field; each field of odraw replaces the draw and removes a
 * fixed value.  Errors then name the spec's path. */
xc_status xc_popspec_load_override(xc_popspec *s, const char *path, const struct json_t *ofixed,
                                   const struct json_t *odraw, xc_error *err);
void xc_popspec_free(xc_popspec *s);

/* The parameters of pulsar i (params initialised here; free them with
 * xc_synth_params_free).  *attempts gets the draws it took.  XC_EINVAL when
 * XC_POP_MAX_ATTEMPTS draws in a row are rejected. */
xc_status xc_popspec_pulsar(const xc_popspec *s, uint64_t seed, uint64_t i, xc_synth_params *p, int *attempts,
                            xc_error *err);

typedef struct {
    int dedispersed;           /* .dat/.inf instead of .fil */
    int nthreads;              /* per pulsar (0: the OpenMP default) */
    uint64_t first;            /* id of the first pulsar (0) */
    void (*progress)(void *ctx, uint64_t done, uint64_t total);
    void *progress_ctx;
    /* filled in */
    uint64_t made, skipped;
} xc_popopts;

/* Writes pulsars first..first+n-1 into directory `out` (created if missing):
 * psrNNNNNN.fil (or .dat + .inf) and psrNNNNNN.truth.json, then the checkpoint
 * psrNNNNNN.done once they are renamed into place, and finally manifest.csv
 * (one row per pulsar: id, noise seed, files, every synth parameter, draw
 * attempts, f0_hz, r, z, w).  A pulsar whose checkpoint records the same
 * parameters and whose files exist is skipped; a half-written pulsar has no
 * checkpoint and is made again.  XC_EINVAL, XC_EIO, XC_ENOMEM. */
xc_status xc_population_run(const xc_popspec *s, uint64_t n, uint64_t seed, const char *out, xc_popopts *o,
                            xc_error *err);

#ifdef __cplusplus
}
#endif
#endif
