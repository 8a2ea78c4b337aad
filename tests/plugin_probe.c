/* The test suite's probe plugin (tests/test_plugin.c builds it with cc, c++
 * and nvcc): a dedisperser that sums with the delays crosscheck hands it
 * (plan / execute / destroy) and a Pulscan searcher whose powers are the
 * raw |X|^2 and whose peaks are the single bins above the first stage's
 * threshold, each recording what it was handed (plugin_probe.h).  Written
 * in the subset of C11, C++ and CUDA that all three compilers take.
 * Variants (-D): PROBE_MANY=N registers N dedispersers and N searchers;
 * A single-pulse searcher (ABI 2.1; row_stats, ABI 2.2) reports the first box of each row.
 * PROBE_ABI20 says it was built against ABI 2.0 (it registers nothing of 2.1);
 * PROBE_ABI21 against ABI 2.1 (its single-pulse descriptor ends at detect);
 * PROBE_SPSMALL, PROBE_BADDET plant what crosscheck refuses of single-pulse searchers;
 * PROBE_ABI1, PROBE_MINOR, PROBE_SMALL, PROBE_REFERENCE, PROBE_NOMETHOD,
 * PROBE_DUP, PROBE_BADPEAK plant what crosscheck must refuse. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plugin_probe.h"

XCP_EXTERN_C XCP_EXPORT xcp_probe_record xcp_probe_seen;
xcp_probe_record xcp_probe_seen;

static const xcp_host *host;

#ifdef __CUDACC__
/* Device code beside the plugin's host code, as a CUDA plugin has (not
 * launched: the suite runs where there may be no device). */
__global__ void probe_scale(float *x, float a, size_t n)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n)
        x[i] *= a;
}
#endif

#ifndef PROBE_MANY
#define PROBE_MANY 1
#endif
static xcp_dedisperser dds[PROBE_MANY];
static xcp_searcher pss[PROBE_MANY];
static char names[2][PROBE_MANY][32];
static int index_of[PROBE_MANY];

static void saw(const void *self, const void *own, const void *data)
{
    xcp_probe_seen.calls++;
    if (self != own)
        xcp_probe_seen.self_ok = 0;
    xcp_probe_seen.data = data;
}

static int dd_available(const xcp_dedisperser *self, char *why, size_t n)
{
    saw(self, &dds[*(const int *)self->data], self->data);
    snprintf(why, n, "%s", "");
    return 1;
}

static xcp_status dd_plan(const xcp_dedisperser *self, const xcp_ddjob *job, void **state, xcp_error *err)
{
    saw(self, &dds[*(const int *)self->data], self->data);
    xcp_probe_seen.plan_job = *job;
    int *nr = (int *)malloc(sizeof *nr);
    if (!nr)
        return host->error_set(err, XCP_ENOMEM, "probe: out of memory");
    *nr = job->nranges;
    *state = nr;
    return XCP_OK;
}

static xcp_status dd_execute(const xcp_dedisperser *self, void *state, const xcp_ddjob *job, xcp_plane *out,
                             xcp_error *err)
{
    saw(self, &dds[*(const int *)self->data], self->data);
    xcp_probe_seen.job = *job;
    xcp_probe_seen.plane = *out;
    for (int k = 0; k < job->nranges && k < 2; k++) {
        xcp_probe_seen.range[k] = job->range[k];
        xcp_probe_seen.prange[k] = out->range[k];
    }
    if (*(const int *)state != job->nranges || out->nranges != job->nranges)
        return host->error_set(err, XCP_EMISMATCH, "probe: %d ranges planned, %d in the job, %d in the plane",
                               *(const int *)state, job->nranges, out->nranges);
    for (int k = 0; k < job->nranges; k++) {
        const xcp_ddrange *r = &job->range[k];
        xcp_planerange *o = &out->range[k];
        for (size_t j = 0; j < r->ndm; j++)
            for (size_t t = 0; t < o->nsamp; t++) {
                uint64_t isum = 0;
                double fsum = 0;
                for (int c = 0; c < job->nchans; c++) {
                    if (job->killmask && !job->killmask[c])
                        continue;
                    size_t d = (size_t)r->delays[j * (size_t)job->nchans + (size_t)c];
                    for (int i = 0; i < r->ds; i++) {
                        size_t idx = ((t + d) * (size_t)r->ds + (size_t)i) * (size_t)job->nchans + (size_t)c;
                        if (job->nbits == 32)
                            fsum += job->f32[idx];
                        else
                            isum += job->u16[idx];
                    }
                }
                o->data[j * o->nsamp + t] =
                    job->nbits == 32 ? host->scale_real(job, fsum, r->ds) : host->scale_int(job, isum, r->ds);
            }
    }
    return XCP_OK;
}

static void dd_destroy(const xcp_dedisperser *self, void *state)
{
    saw(self, &dds[*(const int *)self->data], self->data);
    free(state);
}

static int ps_available(const xcp_searcher *self, char *why, size_t n)
{
    saw(self, &pss[*(const int *)self->data], self->data);
    snprintf(why, n, "%s", "");
    return 1;
}

static xcp_status ps_powers(const xcp_searcher *self, const xcp_spectrum *sp, const xcp_psopts *o, double *P,
                            xcp_error *err)
{
    (void)err;
    saw(self, &pss[*(const int *)self->data], self->data);
    xcp_probe_seen.sp = *sp;
    xcp_probe_seen.opts = *o;
    P[0] = 0;
    for (size_t k = 1; k < sp->nbins; k++)
        P[k] = (double)sp->data[2 * k] * sp->data[2 * k] + (double)sp->data[2 * k + 1] * sp->data[2 * k + 1];
    return XCP_OK;
}

static xcp_status ps_peaks(const xcp_searcher *self, const xcp_spectrum *sp, const xcp_psopts *o, const double *P,
                           const double *thr, xcp_peaks *pk, xcp_error *err)
{
    saw(self, &pss[*(const int *)self->data], self->data);
    xcp_probe_seen.sp = *sp;
    xcp_probe_seen.opts = *o;
    xcp_probe_seen.thr = thr;
    for (size_t i = 1; i < sp->nbins; i++)
        if (P[i] > thr[1]) {   /* stage 1, width 1 */
            xcp_peak p;
            memset(&p, 0, sizeof p);
            p.size = sizeof p;
            p.i = i;
            p.width = 1;
            p.numharm = 1;
            p.power = P[i];
#ifdef PROBE_BADPEAK
            p.width = o->zmax + 2;
#endif
            xcp_status st = host->peaks_push(pk, &p, err);
            if (st)
                return st;
        }
    return XCP_OK;
}

#ifndef PROBE_ABI20
/* One detection per row, from the first sample: snr the row's first
 * value, the box of the first width (PROBE_BADDET: one sample past the
 * row's end). */
static xcp_spsearcher sps;

static xcp_status sp_detect(const xcp_spsearcher *self, const xcp_spconf *c, const xcp_spplane *pl, xcp_spdets *out,
                            xcp_error *err)
{
    saw(self, &sps, self->data);
    xcp_probe_seen.spconf = *c;
    xcp_probe_seen.spplane = *pl;
    for (size_t r = 0; r < pl->nrows; r++) {
        xcp_spdet d;
        memset(&d, 0, sizeof d);
        d.size = sizeof d;
        d.snr = pl->data[r * pl->stride];
        d.width = c->widths[0];
        d.dm_index = (int32_t)r;
        d.end = d.width;
#ifdef PROBE_BADDET
        d.sample = (int64_t)pl->nsamp - d.width + 1;
#endif
        xcp_status st = host->spdets_push(out, &d, err);
        if (st)
            return st;
    }
    return XCP_OK;
}
#endif

/* "probe-dd" / "probe-ps", or with PROBE_MANY "probe-dd-7". */
static const char *name_of(int fam, int i)
{
    if (PROBE_MANY > 1)
        snprintf(names[fam][i], sizeof names[fam][i], "probe-%s-%d", fam ? "ps" : "dd", i);
    else
        snprintf(names[fam][i], sizeof names[fam][i], "probe-%s", fam ? "ps" : "dd");
    return names[fam][i];
}

static xcp_status init(const xcp_host *h, xcp_error *err)
{
    host = h;
    xcp_probe_seen.self_ok = 1;
    for (int i = 0; i < PROBE_MANY; i++) {
        index_of[i] = i;
        /* members in declaration order: C++20 takes designated initialisers so */
        const xcp_dedisperser d = {.size = sizeof(xcp_dedisperser), .name = name_of(0, i),
                                   .desc = "probe: sums with crosscheck's delays", .tol_kind = XCP_TOL_EXACT,
                                   .caps = XCP_CAP_THREADED, .data = &index_of[i], .available = dd_available,
                                   .plan = dd_plan, .execute = dd_execute, .destroy = dd_destroy};
        dds[i] = d;
#ifdef PROBE_SMALL
        dds[i].size = offsetof(xcp_dedisperser, bound);
#endif
#ifdef PROBE_REFERENCE
        dds[i].caps |= 1u;
#endif
#ifdef PROBE_NOMETHOD
        dds[i].execute = NULL;
#endif
        xcp_status st = h->add_dedisperser(h, &dds[i], err);
#ifdef PROBE_DUP
        if (!st)
            st = h->add_dedisperser(h, &dds[i], err);
#endif
        if (st)
            return st;
        const xcp_searcher s = {.size = sizeof(xcp_searcher), .name = name_of(1, i),
                                .desc = "probe: raw powers, single-bin peaks", .tol_kind = XCP_TOL_RELATIVE,
                                .tol_value = 1e-6, .data = &index_of[i], .available = ps_available,
                                .powers = ps_powers, .peaks = ps_peaks};
        pss[i] = s;
        if ((st = h->add_searcher(h, &pss[i], err)))
            return st;
    }
#ifndef PROBE_ABI20
    /* ABI 2.1: a single-pulse searcher */
    const xcp_spsearcher sp = {.size = sizeof(xcp_spsearcher), .name = "probe-sp",
                               .desc = "probe: the first box of each row", .tol_kind = XCP_TOL_EXACT,
                               .data = &index_of[0], .detect = sp_detect, .row_stats = 1};
    sps = sp;
#ifdef PROBE_ABI21
    sps.size = offsetof(xcp_spsearcher, row_stats);   /* 2.1's descriptor: row_stats beyond it is not read */
#endif
#ifdef PROBE_SPSMALL
    sps.size = offsetof(xcp_spsearcher, detect);
#endif
    return h->add_spsearcher(h, &sps, err);
#else
    return XCP_OK;
#endif
}

#ifdef PROBE_ABI1
#undef XC_PLUGIN_ABI_MAJOR
#define XC_PLUGIN_ABI_MAJOR 1
#undef XC_PLUGIN_ABI_MINOR
#define XC_PLUGIN_ABI_MINOR 0
#endif
#ifdef PROBE_MINOR
#undef XC_PLUGIN_ABI_MINOR
#define XC_PLUGIN_ABI_MINOR 3
#endif
#ifdef PROBE_ABI21
#undef XC_PLUGIN_ABI_MINOR
#define XC_PLUGIN_ABI_MINOR 1
#endif
#ifdef PROBE_ABI20
/* A plugin of ABI 2.0 (its descriptors and xcp_info are 2.0's sizes: 2.1
 * appended only new structs and members of xcp_host). */
#undef XC_PLUGIN_ABI_MINOR
#define XC_PLUGIN_ABI_MINOR 0
#endif

XC_PLUGIN_DEFINE("probe", "2.0", init)
