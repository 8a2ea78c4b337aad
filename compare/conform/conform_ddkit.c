/* The building blocks of the dedispersion conformance cases (xc_conform.h):
 * inputs, runs through a plan and the class judge. */
#include "compare/conform/xc_conform.h"
#include "core/base/xc_nbits.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define U24 0x1.0p-24   /* float unit roundoff */

uint64_t xc_conform_rng_next(uint64_t *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * 2685821657736338717ull;
}

static double runif(uint64_t *s) { return (double)(xc_conform_rng_next(s) >> 11) * 0x1.0p-53; }

double xc_conform_rng_gauss(uint64_t *s)
{
    double u = runif(s), v = runif(s);
    return sqrt(-2 * log(u > 0 ? u : 0x1.0p-53)) * cos(2 * M_PI * v);
}

void xc_conform_ddinput_free(xc_conform_ddinput *in)
{
    xc_dmplan_free(&in->plan);
    free(in->u16);
    free(in->f32);
    free(in->mask);
    memset(in, 0, sizeof *in);
}

xc_status xc_conform_ddinput_make(xc_conform_ddinput *in, int nchans, int nbits, double fch1, double foff,
                                  double tsamp, const char *plan, const char *preset, size_t nout, xc_error *err)
{
    memset(in, 0, sizeof *in);
    xc_dmplan_init(&in->plan);
    in->g = (xc_geometry){nchans, fch1, foff, tsamp};
    if (!(in->cv = xc_convention_get(preset)))
        return xc_error_set(err, XC_EINVAL, "conformance: no convention preset '%s'", preset);
    xc_status st = xc_dmplan_parse(&in->plan, plan, "conformance", err);
    if (!st)
        st = xc_dmplan_max_delay(in->cv, &in->g, &in->plan, &in->maxd, err);
    if (st)
        return st;
    size_t n = ((size_t)in->maxd + nout) * (size_t)nchans;
    in->blk = (xc_block){nchans, (size_t)in->maxd + nout, nbits, NULL, NULL};
    if (xc_nbits_is_float(nbits))
        in->blk.f32 = in->f32 = calloc(n ? n : 1, sizeof(float));
    else
        in->blk.u16 = in->u16 = calloc(n ? n : 1, sizeof(uint16_t));
    if (!in->u16 && !in->f32)
        return xc_error_set(err, XC_ENOMEM, "conformance: out of memory for %zu samples", n);
    return XC_OK;
}

void xc_conform_ddinput_random(xc_conform_ddinput *in, uint64_t seed)
{
    uint64_t s = seed * 0x9E3779B97F4A7C15ull + 1;
    for (size_t i = 0; i < in->blk.nsamp * (size_t)in->blk.nchans; i++) {
        if (in->f32)
            in->f32[i] = (float)(runif(&s) * 100.0);
        else
            in->u16[i] = (uint16_t)(xc_conform_rng_next(&s) >> (64 - in->blk.nbits));
    }
}

xc_status xc_conform_ddinput_mask(xc_conform_ddinput *in, char kill, uint64_t seed, xc_error *err)
{
    int n = in->g.nchans;
    uint64_t s = seed * 0x9E3779B97F4A7C15ull + 3;
    if (!kill)
        return XC_OK;
    free(in->mask);
    if (!(in->mask = malloc((size_t)n)))
        return xc_error_set(err, XC_ENOMEM, "conformance: out of memory for a kill mask");
    for (int c = 0; c < n; c++)
        in->mask[c] = kill == 'q'   ? (xc_conform_rng_next(&s) & 3) != 0
                      : kill == 'm' ? c == n / 2
                      : kill == 'e' ? c != 0 && c != n - 1
                                    : 0;
    return XC_OK;
}

int xc_conform_ddinput_nkept(const xc_conform_ddinput *in)
{
    int n = 0;
    for (int c = 0; c < in->g.nchans; c++)
        n += !in->mask || in->mask[c];
    return n;
}

xc_status xc_conform_dd_run(const xc_dedisperser *d, const xc_conform_ddinput *in, const xc_ddopts *opts,
                            xc_plane *pl, xc_error *err)
{
    return xc_conform_dd_run_tuned(d, in, opts, NULL, pl, err);
}

xc_status xc_conform_dd_run_tuned(const xc_dedisperser *d, const xc_conform_ddinput *in, const xc_ddopts *opts,
                                  const xc_ddtune *tune, xc_plane *pl, xc_error *err)
{
    xc_ddplan *p;
    memset(pl, 0, sizeof *pl);
    xc_status st = xc_ddplan_create_tuned(&p, d, &in->g, in->blk.nbits, &in->plan, in->cv, in->mask, opts, tune, err);
    if (st)
        return st;
    if (!(st = xc_ddplan_plane_alloc(p, in->blk.nsamp, pl, err))) {
        for (int k = 0; k < pl->nranges; k++)
            memset(pl->r[k].data, 0xFF, pl->r[k].ndm * pl->r[k].nsamp * sizeof(float));
        st = xc_ddplan_execute(p, &in->blk, pl, err);
    }
    xc_ddplan_destroy(p);
    if (st)
        xc_plane_free(pl);
    return st;
}

xc_status xc_conform_plane_like(const xc_plane *shape, xc_plane *pl, xc_error *err)
{
    memset(pl, 0, sizeof *pl);
    if (!(pl->r = calloc((size_t)shape->nranges, sizeof *pl->r)))
        return xc_error_set(err, XC_ENOMEM, "conformance: out of memory");
    pl->nranges = shape->nranges;
    for (int k = 0; k < pl->nranges; k++) {
        pl->r[k] = shape->r[k];
        size_t n = pl->r[k].ndm * pl->r[k].nsamp;
        if (!(pl->r[k].data = calloc(n ? n : 1, sizeof(float)))) {
            xc_plane_free(pl);
            return xc_error_set(err, XC_ENOMEM, "conformance: out of memory for a plane");
        }
    }
    return XC_OK;
}

/* The bound N 2^-24 max|want| is the first-order worst case of a float sum of
 * N non-negative terms in any order, |err| <= gamma_{N-1} sum |x_i| (Higham,
 * Accuracy and Stability of Numerical Algorithms, 2nd ed. 2002, section
 * 4.2), with sum |x_i| = |sum| for the non-negative data the cases use. */
int xc_conform_dd_judge(const xc_impl *impl, int self, const xc_conform_ddinput *in, const xc_plane *want,
                        const xc_plane *got, double mult, xc_conform_row *row)
{
    xc_tolerance t = impl->tol;
    int isint = !xc_block_is_float(&in->blk), nk = xc_conform_ddinput_nkept(in);
    int approx = t.kind == XC_TOL_SIGNAL_LOSS, finite_only = approx && !self;
    int exact = !approx && (isint || t.kind == XC_TOL_EXACT);
    double f = approx ? 1.0 : t.value;
    const char *cls = xc_tol_kind_name(t.kind);
    if (finite_only) {
        snprintf(row->tolerance, sizeof row->tolerance,
                 "%s %g: values not compared here (the signal-loss rows judge accuracy)", cls, t.value);
        snprintf(row->expected, sizeof row->expected, "every value finite");
    } else if (exact) {
        snprintf(row->tolerance, sizeof row->tolerance, "%s: %s bit for bit", cls,
                 isint ? "integer input" : "float input");
        snprintf(row->expected, sizeof row->expected, "bit for bit");
    } else {
        snprintf(row->tolerance, sizeof row->tolerance,
                 "%s: %g x %g x N 2^-24 max|want|, N = %d unmasked ch x ds (float sum, Higham 2002 s4.2)",
                 approx ? "float rounding" : cls, f, mult, nk);
        snprintf(row->expected, sizeof row->expected, "|got - want| <= bound in every range");
    }
    size_t nval = 0, ndiff = 0;
    double worst = 0;     /* largest |err| / bound over the ranges */
    char where[200] = "";
    for (int k = 0; k < want->nranges; k++) {
        const xc_planerange *w = &want->r[k], *g = &got->r[k];
        size_t n = w->ndm * w->nsamp, ns = w->nsamp ? w->nsamp : 1;
        double maxw = 0, maxe = 0;
        for (size_t i = 0; i < n; i++)
            maxw = fmax(maxw, fabs(w->data[i]));
        double bound = f * mult * nk * w->ds * U24 * maxw;
        for (size_t i = 0; i < n; i++) {
            float a = g->data[i], b = w->data[i];
            int bad = finite_only ? !isfinite(a)
                      : exact     ? memcmp(&a, &b, sizeof a) != 0
                                  : !(fabs((double)a - b) <= bound);
            maxe = isfinite(a) ? fmax(maxe, fabs((double)a - b)) : INFINITY;
            if (bad && !ndiff++)
                snprintf(where, sizeof where, "range %d (ds %d) trial %zu sample %zu: %.9g, want %.9g", k, w->ds,
                         i / ns, i % ns, (double)a, (double)b);
        }
        nval += n;
        worst = fmax(worst, bound > 0 ? maxe / bound : maxe > 0 ? INFINITY : 0);
    }
    if (ndiff)
        snprintf(row->observed, sizeof row->observed, "%zu of %zu values off; first at %s", ndiff, nval, where);
    else if (exact || finite_only)
        snprintf(row->observed, sizeof row->observed, "%zu values as expected", nval);
    else
        snprintf(row->observed, sizeof row->observed, "%zu values within; largest |err|/bound %.3g", nval, worst);
    row->pass = ndiff == 0;
    return row->pass;
}
