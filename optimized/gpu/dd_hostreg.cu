/* GPU dedisperser, host side: the caller's pageable input and plane
 * page-locked for the pipeline (tune.gpu_register), so its copies go
 * straight to and from them, with no staging and no host copy.
 *   1: registered for the job (cudaHostRegister) and unregistered after it;
 *      every job pays the registration.
 *   2: registered on the first job that passes a buffer and kept by the
 *      state while later jobs pass the same address and size (the
 *      plan/execute contract of FFTW and dedisp: a plan's repeated gulps
 *      into the same buffers pay the registration once).  A kept buffer
 *      that two jobs in a row have not passed is unregistered, as is every
 *      one when the state is released; the caller must not free a buffer
 *      the state keeps registered before then (CUDA leaves freeing
 *      registered memory undefined).
 * Where the runtime refuses a registration the job stages that buffer
 * instead; the plane is registered for the job all ranges or none. */
#include <cuda_runtime.h>
#include <stddef.h>

#include "optimized/gpu/dd_host.h"

namespace xcdd {

static bool reg_new(void *p, size_t n)
{
    if (cudaHostRegister(p, n, cudaHostRegisterDefault) == cudaSuccess)
        return true;
    (void)cudaGetLastError();
    return false;
}

/* tune.gpu_register = 1: for this job only, remembered in c.reg. */
static bool reg_job(ctx &c, void *p, size_t n)
{
    if (c.nreg >= MAX_REG || !reg_new(p, n))
        return false;
    c.reg[c.nreg++] = p;
    return true;
}

/* tune.gpu_register = 2: a kept registration of p of n bytes is reused (one
 * of p with another size is dropped first); memory page-locked by its owner
 * is used as it is. */
static bool reg_kept(ctx &c, void *p, size_t n)
{
    xc_gpu_ddstate *s = c.s;
    for (int i = 0; i < s->nkept; i++)
        if (s->kept[i].p == p) {
            if (s->kept[i].n == n) {
                s->kept[i].job = s->jobs;
                return true;
            }
            cudaHostUnregister(p);
            s->kept[i] = s->kept[--s->nkept];
            break;
        }
    if (host_pinned(p))
        return true;
    if (s->nkept >= MAX_REG || !reg_new(p, n))
        return false;
    s->kept[s->nkept++] = hostreg{p, n, s->jobs};
    return true;
}

static bool reg_one(ctx &c, const void *p, size_t n)
{
    if (!n)
        return false;
    return c.job->tune.gpu_register == 2 ? reg_kept(c, const_cast<void *>(p), n) : reg_job(c, const_cast<void *>(p), n);
}

void host_register(ctx &c)
{
    if (!c.job->tune.gpu_register || (c.nchunks < 2 && !c.banded))
        return;
    c.s->jobs++;
    const bool keep = c.job->tune.gpu_register == 2;
    const xc_block *in = c.job->in;
    const void *src = xc_block_is_float(in) ? (const void *)in->f32 : (const void *)in->u16;
    /* kept: asked again even when page-locked already, so that reg_kept
     * marks it used, or drops a registration of another size (and the
     * answer replaces what the job saw before) */
    if (keep || !c.in_pinned)
        c.in_pinned = reg_one(c, src, in->nsamp * (size_t)in->nchans * c.s->esize);
    if (c.plane_dev || c.out->nranges > MAX_REG - 1)
        return;
    const int first = c.nreg;
    bool all = true;
    for (int k = 0; k < c.out->nranges && (all || keep); k++) {
        const xc_planerange *o = &c.out->r[k];
        const size_t n = o->ndm * o->nsamp * sizeof(float);
        const bool ok = !n || (keep ? reg_one(c, o->data, n) : host_pinned(o->data) || reg_one(c, o->data, n));
        all = all && ok;
    }
    if (all) {
        c.plane_reg = 1;
        return;
    }
    while (c.nreg > first)
        cudaHostUnregister(c.reg[--c.nreg]);
}

void host_unregister(ctx &c)
{
    while (c.nreg > 0)
        cudaHostUnregister(c.reg[--c.nreg]);
    c.plane_reg = 0;
    xc_gpu_ddstate *s = c.s;
    for (int i = 0; i < s->nkept;)
        if (s->jobs - s->kept[i].job >= 2) {
            cudaHostUnregister(s->kept[i].p);
            s->kept[i] = s->kept[--s->nkept];
        } else {
            i++;
        }
}

void host_release(xc_gpu_ddstate *s)
{
    while (s->nkept > 0)
        cudaHostUnregister(s->kept[--s->nkept].p);
    s->jobs = 0;
}

} // namespace xcdd
