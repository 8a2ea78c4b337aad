/* The approximate comparator (compare/xc_smear.h): injected boxcar pulses,
 * an approximate dedisperser against direct at the same trial, the measured
 * S/N loss against the bound the approximation declares for that trial
 * (core/dedisp/approx/xc_ddbound.h: core/dedisp/approx/xc_subband.h's and core/dedisp/approx/xc_tree.h's). */
#include "compare/xc_smear.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/dedisp/approx/xc_ddbound.h"
#include "core/dedisp/approx/xc_subband.h"

static xc_status run_one(const xc_dedisperser *d, const xc_geometry *g, const xc_dmplan *plan,
                         const xc_convention *cv, const xc_ddopts *o, const xc_block *in, xc_plane *pl, xc_error *err)
{
    xc_ddplan *p;
    memset(pl, 0, sizeof *pl);
    xc_status st = xc_ddplan_create(&p, d, g, in->nbits, plan, cv, NULL, o, err);
    if (st)
        return st;
    if (!(st = xc_ddplan_plane_alloc(p, in->nsamp, pl, err)) && (st = xc_ddplan_execute(p, in, pl, err)))
        xc_plane_free(pl);
    xc_ddplan_destroy(p);
    return st;
}

/* Best sum/sqrt(b) over boxcars of b = 1..bmax samples inside x[lo, hi). */
static double matched_snr(const float *x, long lo, long hi, int bmax)
{
    double best = 0;
    for (int b = 1; b <= bmax; b++)
        for (long t = lo; t + b <= hi; t++) {
            double s = 0;
            for (int i = 0; i < b; i++)
                s += x[t + i];
            best = fmax(best, s / sqrt((double)b));
        }
    return best;
}

typedef struct {
    int k;
    size_t i;
    size_t t0;     /* samples of range k */
} pulse;

static xc_status measure_width(const xc_dedisperser *approx, const xc_dedisperser *direct, const xc_ddopts *opts,
                               const xc_smear_cfg *cfg, const xc_ddjob *job, xc_ddbound *const *bd, int W,
                               xc_smear_row **rows, size_t *n, xc_error *err)
{
    const xc_dmplan *plan = job->plan;
    const int nc = job->geom.nchans;
    const size_t every = cfg->every ? cfg->every : 1;
    size_t np = 0;
    int dsmax = 1, smax = 0;
    for (int k = 0; k < plan->nranges; k++) {
        np += (plan->r[k].ndm + every - 1) / every;
        dsmax = plan->r[k].ds > dsmax ? plan->r[k].ds : dsmax;
        for (size_t i = 0; i < plan->r[k].ndm; i++)
            smax = bd[k][i].bound > smax ? bd[k][i].bound : smax;
    }
    const size_t spacing = (size_t)job->max_delay + (size_t)dsmax * (size_t)(2 * W + 2 * smax + 16);
    const size_t nout = (np + 1) * spacing, nsamp = nout + (size_t)job->max_delay;
    uint16_t *u = calloc(nsamp * (size_t)nc, sizeof *u);
    pulse *pu = malloc((np ? np : 1) * sizeof *pu);
    *rows = realloc(*rows, (*n + np + 1) * sizeof **rows);
    if (!u || !pu || !*rows) {
        free(u);
        free(pu);
        return xc_error_set(err, XC_ENOMEM, "smearing: out of memory for %zu x %d samples", nsamp, nc);
    }
    size_t p = 0;
    for (int k = 0; k < plan->nranges; k++)
        for (size_t i = 0; i < plan->r[k].ndm; i += every, p++) {
            const int ds = plan->r[k].ds;
            pu[p] = (pulse){k, i, (p + 1) * spacing / (size_t)ds};
            for (int c = 0; c < nc; c++) {
                size_t d = (size_t)job->delays[k][i * (size_t)nc + (size_t)c];
                for (size_t r = (pu[p].t0 + d) * (size_t)ds; r < (pu[p].t0 + d + (size_t)W) * (size_t)ds; r++)
                    u[r * (size_t)nc + (size_t)c]++;
            }
        }
    xc_block in = {nc, nsamp, 16, u, NULL};
    xc_plane pd, pa;
    xc_status st = run_one(direct, &job->geom, plan, job->conv, opts, &in, &pd, err);
    if (!st && (st = run_one(approx, &job->geom, plan, job->conv, opts, &in, &pa, err)))
        xc_plane_free(&pd);
    for (size_t q = 0; !st && q < np; q++) {
        const int k = pu[q].k;
        const size_t i = pu[q].i;
        const xc_ddbound *tb = &bd[k][i];
        const int S = tb->bound;
        const long M = S + 4, ns = (long)pd.r[k].nsamp;
        long lo = (long)pu[q].t0 - M, hi = (long)pu[q].t0 + W + M;
        lo = lo < 0 ? 0 : lo;
        hi = hi > ns ? ns : hi;
        const int bmax = W + S + 2;
        xc_smear_row *r = &(*rows)[(*n)++];
        memset(r, 0, sizeof *r);
        r->range = k;
        r->trial = i;
        r->dm = plan->r[k].dms[i];
        r->nominal = tb->nominal;
        r->width = W;
        r->width_us = W * plan->r[k].ds * job->geom.tsamp * 1e6;
        r->snr_direct = matched_snr(pd.r[k].data + i * (size_t)ns, lo, hi, bmax);
        r->snr_approx = matched_snr(pa.r[k].data + i * (size_t)ns, lo, hi, bmax);
        r->snr_loss = r->snr_direct > 0 ? 1 - r->snr_approx / r->snr_direct : 0;
        r->smear = tb->smear;
        r->bound_samples = S;
        r->bound = xc_subband_loss_bound(W, S * cfg->bound_scale);
        r->expected = xc_subband_loss_expected(W, tb->smear);
        r->pass = r->snr_loss <= r->bound + 1e-12;
    }
    if (!st) {
        xc_plane_free(&pd);
        xc_plane_free(&pa);
    }
    free(u);
    free(pu);
    return st;
}

xc_status xc_smear_measure(const xc_dedisperser *approx, const xc_dedisperser *direct, const xc_ddopts *opts,
                           const xc_smear_cfg *cfg, xc_smear_row **rows, size_t *n, xc_error *err)
{
    return xc_smear_measure_bounds(approx, approx ? approx->bound : NULL, direct, opts, cfg, rows, n, err);
}

xc_status xc_smear_measure_bounds(const xc_dedisperser *approx, xc_ddbound_fn bounds, const xc_dedisperser *direct,
                                  const xc_ddopts *opts, const xc_smear_cfg *cfg, xc_smear_row **rows, size_t *n,
                                  xc_error *err)
{
    const xc_convention *cv = xc_convention_get(cfg->convention ? cfg->convention : "crosscheck");
    if (!cv)
        return xc_error_set(err, XC_EINVAL, "smearing: no convention preset '%s'", cfg->convention);
    xc_geometry g = {cfg->nchans, cfg->fch1, cfg->foff, cfg->tsamp};
    xc_dmplan plan;
    xc_dmplan_init(&plan);
    xc_ddjob job;
    memset(&job, 0, sizeof job);
    xc_ddbound **bd = NULL;
    xc_status st = xc_dmplan_parse(&plan, cfg->plan, "smearing", err);
    if (!st)
        st = xc_ddjob_prepare(&job, g.nchans, 16, &plan, cv, &g, NULL, err);
    if (!st) {
        if (opts)
            job.opts = *opts;
        st = bounds ? bounds(approx, &job, &bd, err)
                    : xc_error_set(err, XC_EINVAL, "smearing: %s declares no bound", approx->impl.name);
    }
    for (int w = 0; !st && w < cfg->nwidths; w++)
        st = cfg->widths[w] < 1 ? xc_error_set(err, XC_EINVAL, "smearing: width %d must be >= 1", cfg->widths[w])
                                : measure_width(approx, direct, opts, cfg, &job, bd, cfg->widths[w], rows, n, err);
    xc_ddbound_free(bd, plan.nranges);
    xc_ddjob_free(&job);
    xc_dmplan_free(&plan);
    return st;
}
