/* Core's approximate algorithms as descriptor data (core/dedisp/approx/xc_ddapprox.h). */
#include <stdlib.h>
#include <string.h>

#include "core/dedisp/approx/xc_ddapprox.h"

const xc_ddapprox xc_ddapprox_subband = {.algo = XC_DDAPPROX_SUBBAND, .tree_kind = 0, .path = "subband"};
const xc_ddapprox xc_ddapprox_tree = {.algo = XC_DDAPPROX_TREE, .tree_kind = XC_TREE_PIECEWISE, .path = "tree"};
const xc_ddapprox xc_ddapprox_tree_padded = {.algo = XC_DDAPPROX_TREE_PADDED, .tree_kind = XC_TREE_PADDED,
                                             .path = "tree-padded"};

const xc_ddapprox *xc_ddapprox_of(const xc_dedisperser *self)
{
    return self && self->bound == xc_ddapprox_bounds ? self->impl.data : NULL;
}

xc_status xc_ddapprox_plan_make(xc_ddapprox_plan *p, const xc_dedisperser *self, const xc_ddjob *job,
                                xc_error *err)
{
    memset(p, 0, sizeof *p);
    if (!(p->a = xc_ddapprox_of(self)))
        return xc_error_set(err, XC_EINVAL, "%s: no approximate algorithm in its descriptor", self->impl.name);
    return p->a->algo == XC_DDAPPROX_SUBBAND ? xc_subplan_make(&p->sp, job, err)
                                             : xc_treeplan_make(&p->tp, job, p->a->tree_kind, err);
}

void xc_ddapprox_plan_free(xc_ddapprox_plan *p)
{
    if (p->a && p->a->algo == XC_DDAPPROX_SUBBAND)
        xc_subplan_free(&p->sp);
    else if (p->a)
        xc_treeplan_free(&p->tp);
}

int xc_ddapprox_plan_range(const xc_ddapprox_plan *p, int k, size_t *ndm)
{
    if (p->a->algo == XC_DDAPPROX_SUBBAND) {
        *ndm = p->sp.r[k].ndm;
        return p->sp.r[k].ds;
    }
    *ndm = p->tp.r[k].ndm;
    return p->tp.r[k].ds;
}

xc_status xc_ddapprox_plan_new(const xc_dedisperser *self, const xc_ddjob *proto, void **state, xc_error *err)
{
    xc_ddapprox_plan *p = malloc(sizeof *p);
    if (!p)
        return xc_error_set(err, XC_ENOMEM, "%s: out of memory", self->impl.name);
    xc_status st = xc_ddapprox_plan_make(p, self, proto, err);
    if (st)
        free(p);
    else
        *state = p;
    return st;
}

void xc_ddapprox_plan_delete(const xc_dedisperser *self, void *state)
{
    (void)self;
    if (state)
        xc_ddapprox_plan_free(state);
    free(state);
}

/* Trial i of range k: smear, bound and the DM of its nominal (subband: the
 * group's nominal DM; tree: the trial's own). */
static void range_bounds(const xc_ddapprox_plan *p, const xc_ddjob *job, int k, xc_ddbound *b)
{
    if (p->a->algo == XC_DDAPPROX_SUBBAND) {
        const xc_subrange *r = &p->sp.r[k];
        for (int j = 0; j < r->ngroups; j++)
            for (size_t i = r->first[j]; i < r->first[j + 1]; i++)
                b[i] = (xc_ddbound){r->smear[i], r->bound[i], r->nominal[j]};
    } else {
        const xc_treerange *r = &p->tp.r[k];
        for (size_t i = 0; i < r->ndm; i++)
            b[i] = (xc_ddbound){r->smear[i], r->bound[i], job->plan->r[k].dms[i]};
    }
}

xc_status xc_ddapprox_bounds(const xc_dedisperser *self, const xc_ddjob *job, xc_ddbound ***out, xc_error *err)
{
    xc_ddapprox_plan p;
    xc_status st = xc_ddapprox_plan_make(&p, self, job, err);
    if (st)
        return st;
    const int nr = job->plan->nranges;
    xc_ddbound **b = calloc((size_t)nr, sizeof *b);
    for (int k = 0; b && k < nr; k++) {
        size_t ndm;
        xc_ddapprox_plan_range(&p, k, &ndm);
        if (!(b[k] = malloc((ndm ? ndm : 1) * sizeof **b))) {
            xc_ddbound_free(b, nr);
            b = NULL;
            break;
        }
        range_bounds(&p, job, k, b[k]);
    }
    xc_ddapprox_plan_free(&p);
    if (!b)
        return xc_error_set(err, XC_ENOMEM, "%s: out of memory for the bounds of %d ranges", p.a->path, nr);
    *out = b;
    return XC_OK;
}
