/* The plan and execute scaffolding of the approximate CPU dedispersers
 * (subband_cpu.c, tree_cpu.c): core's plan, the channel list and the
 * per-thread scratch; at execute the shape check and, per distinct downsample factor, one
 * channel-major copy of the gulp in the narrowest type that holds a
 * scrunched sample, shared by that factor's ranges.  The per-range work (the
 * OpenMP loop over work items) stays with each dedisperser; this runs once a
 * range, outside the hot loops. */
#include <omp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "core/base/xc_grow.h"
#include "optimized/cpu/cpu_internal.h"

/* The kernel for the copy's type; narrow: every sum of a trial fits 32 bits. */
static int item_for(xc_cpu_type store, int narrow)
{
    switch (store) {
    case XC_CPU_U8: return narrow ? XC_CPU_ITEM_U8N : XC_CPU_ITEM_U8W;
    case XC_CPU_U16: return narrow ? XC_CPU_ITEM_U16N : XC_CPU_ITEM_U16W;
    case XC_CPU_U32: return narrow ? XC_CPU_ITEM_U32N : XC_CPU_ITEM_U32W;
    case XC_CPU_U64: return XC_CPU_ITEM_U64W;
    default: return XC_CPU_ITEM_F32;
    }
}

static size_t round_up(size_t v, size_t to) { return (v + to - 1) / to * to; }

xc_status xc_cpu_approx_new(void **out, size_t size, const char *name, const xc_dedisperser *self,
                            const xc_ddjob *proto, xc_cpu_range_fn range, size_t range_elem, xc_error *err)
{
    xc_cpu_approx *a = *out = calloc(1, size);
    if (!a)
        return xc_error_set(err, XC_ENOMEM, "%s: out of memory", name);
    a->name = name;
    a->range = range;
    if (proto->opts.threads < 0 || proto->opts.threads > 4096)
        return xc_error_set(err, XC_EINVAL, "%s: threads: %d must be 0 (default) or 1..4096", name,
                            proto->opts.threads);
    xc_status st = xc_ddapprox_plan_make(&a->p, self, proto, err);
    if (st)
        return st;
    const int nc = a->nchans = proto->geom.nchans;
    a->nthreads = proto->opts.threads > 0 ? proto->opts.threads : omp_get_max_threads();
    a->buf = calloc((size_t)a->nthreads, sizeof *a->buf);
    a->chans = malloc((size_t)nc * sizeof *a->chans);
    a->row = malloc((size_t)nc * sizeof *a->row);
    a->ranges = calloc((size_t)proto->plan->nranges + 1, range_elem);
    a->nranges = a->ranges ? proto->plan->nranges : 0;
    if (!a->buf || !a->chans || !a->row || !a->ranges)
        return xc_error_set(err, XC_ENOMEM, "%s: out of memory", name);
    for (int c = 0; c < nc; c++) {
        int keep = !proto->killmask || proto->killmask[c];
        a->row[c] = keep ? a->m : -1;
        if (keep)
            a->chans[a->m++] = c;
    }
    return XC_OK;
}

xc_status xc_cpu_approx_buffers(xc_cpu_approx *a, xc_error *err)
{
    for (int i = 0; i < a->nthreads; i++)
        if (!(a->buf[i] = malloc(a->scratch)))
            return xc_error_set(err, XC_ENOMEM, "%s: out of memory for %zu scratch bytes per thread", a->name,
                                a->scratch);
    return XC_OK;
}

void xc_cpu_approx_free(xc_cpu_approx *a)
{
    free(a->copy);
    XC_FREE_PTRS(a->buf, a->nthreads);
    xc_free_each(3, a->chans, a->row, a->ranges);
    xc_ddapprox_plan_free(&a->p);
}

#define HUGE_PAGE ((size_t)2 << 20)

/* The kept copy buffer grown to at least bytes: 2 MiB aligned with huge pages advised where it spans one, as
 * the direct kernel's copy (every channel row its own page otherwise, a TLB miss per row of a tile). */
static void *copy_buffer(xc_cpu_approx *a, size_t bytes)
{
    if (bytes <= a->copy_bytes)
        return a->copy;
    free(a->copy);
    a->copy_bytes = 0;
    const size_t align = bytes >= HUGE_PAGE ? HUGE_PAGE : 64, n = round_up(bytes, align);
    if (!(a->copy = aligned_alloc(align, n)))
        return NULL;
    if (align == HUGE_PAGE)
        (void)madvise(a->copy, n, MADV_HUGEPAGE);   /* advice only: failure is harmless */
    a->copy_bytes = n;
    return a->copy;
}

xc_status xc_cpu_approx_execute(const xc_dedisperser *self, void *state, const xc_ddjob *job, xc_plane *out,
                                xc_error *err)
{
    (void)self;
    xc_cpu_approx *a = state;
    const xc_block *in = job->in;
    xc_status st = XC_OK;
    const int nr = job->plan->nranges;
    for (int k = 0; k < nr; k++) {
        size_t ndm;
        const int ds = xc_ddapprox_plan_range(&a->p, k, &ndm);
        if (out->r[k].ndm != ndm || out->r[k].nsamp != job->nout / (size_t)ds)
            return xc_error_set(err, XC_EINVAL, "%s: plane range %d has the wrong shape", a->name, k);
    }
    for (int k = 0; k < nr && !st; k++) {
        size_t ndm;
        const int ds = xc_ddapprox_plan_range(&a->p, k, &ndm);
        int first = 1;
        for (int q = 0; q < k; q++)
            first &= xc_ddapprox_plan_range(&a->p, q, &ndm) != ds;
        if (!first)
            continue;
        xc_cpu_layout lay;
        if ((st = xc_cpu_layout_for(in->nbits, ds, &lay, err)))
            break;
        const int narrow = !xc_block_is_float(in) && ((1ull << in->nbits) - 1ull) * (unsigned long long)ds *
                                                      (unsigned long long)a->nchans <= UINT32_MAX;
        xc_cpu_copy cp = {item_for(lay.store, narrow), NULL, in->nsamp / (size_t)ds, 0};
        cp.stride = round_up(cp.nsd + 1, 64);
        void *x = a->m ? copy_buffer(a, (size_t)a->m * cp.stride * (size_t)lay.store_bytes) : NULL;
        if (a->m && !x)
            return xc_error_set(err, XC_ENOMEM, "%s: out of memory for the %d x %zu channel-major copy", a->name,
                                a->m, cp.stride);
        if (a->m)
            xc_cpu_convert(in, a->chans, a->m, ds, cp.nsd, cp.stride, lay.store, x, a->nthreads);
        cp.x = x;
        for (int q = k; q < nr; q++)
            if (xc_ddapprox_plan_range(&a->p, q, &ndm) == ds && out->r[q].nsamp && ndm)
                a->range(state, job, q, &cp, &out->r[q]);
    }
    return st;
}
