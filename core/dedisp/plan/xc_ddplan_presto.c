/* PRESTO DDplan.py's plans in C: the smearing terms, the allowed downsample
 * factors and DM steps, and dm_steps' walk from one range to the next.  Each
 * function names the DDplan.py function it follows; the arithmetic is in the
 * same order so the doubles, and the printed numbers, come out the same. */
#include "core/dedisp/plan/xc_ddplan_presto.h"
#include "core/base/xc_grow.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* DDplan.py's allow_dDMs. */
static const double allow_ddms[] = {0.01, 0.02, 0.03, 0.05, 0.1, 0.2, 0.3,  0.5,   1.0,  2.0,
                                    3.0,  5.0,  10.0, 20.0, 30.0, 50.0, 100.0, 200.0, 300.0};
#define NDDM ((int)(sizeof allow_ddms / sizeof *allow_ddms))
#define FF 1.2          /* DDplan.py's fudge factor ff */
#define SMEARFACT 2.0   /* dedisp_method's smearfact */
#define MAXDS 64        /* choose_downsamps never gives more than the divisors below 260 */

void xc_ddp_obs_default(xc_ddp_obs *o)
{
    *o = (xc_ddp_obs){0.0, 1000.0, 1400.0, 300.0, 1024, 0.000064, 0, 1, 0.0, 0.0, 1024};
}

/* psr_utils.delay_from_DM: seconds, 0 at a frequency <= 0. */
static double delay_from_dm(double dm, double f)
{
    return f > 0.0 ? dm / (0.000241 * f * f) : 0.0;
}

/* psr_utils.dm_smear: seconds between the band's edges. */
static double pu_dm_smear(double dm, double bw, double fctr)
{
    return delay_from_dm(dm, fctr - 0.5 * bw) - delay_from_dm(dm, fctr + 0.5 * bw);
}

/* Python's x**2.0 on floats is libm's pow; kept so the sums round alike. */
static double sq(double x)
{
    return pow(x, 2.0);
}

double xc_ddp_dm_smear(double dm, double bw, double fctr, double cdm)
{
    return 1000.0 * pu_dm_smear(fabs(dm - cdm), bw, fctr);
}

double xc_ddp_bw_smear(double ddm, double bw, double fctr)
{
    return xc_ddp_dm_smear(0.5 * ddm, bw, fctr, 0.0);
}

double xc_ddp_subband_smear(double dsubdm, int nsub, double bw, double fctr)
{
    if (nsub == 0)
        return 0.0;
    return xc_ddp_dm_smear(0.5 * dsubdm, bw / nsub, fctr, 0.0);
}

/* The module-level total_smear (the "optimal" smearing, numsub 0). */
static double optimal_smear(double dm, double ddm, double dt, double fctr, double bw, int nchans, double cdm)
{
    double a = 1000.0 * dt, c = xc_ddp_dm_smear(dm, bw / nchans, fctr, cdm), b = xc_ddp_bw_smear(ddm, bw, fctr);
    return sqrt(2 * sq(a) + sq(c) + 0.0 + sq(b));
}

/* dedisp_method.chan_smear: at DM == cDM it takes cDM + dDM/2. */
static double chan_smear(const xc_ddp_obs *o, const xc_ddp_row *r, double dm)
{
    if (dm - o->cdm == 0.0)
        dm = o->cdm + r->ddm / 2.0;
    return xc_ddp_dm_smear(dm, o->bw / o->nchans, o->fctr, o->cdm);
}

double xc_ddp_row_total_smear(const xc_ddp_obs *o, const xc_ddp_row *r, double dm)
{
    double a = 1000.0 * o->dt, b = 1000.0 * o->dt * r->downsamp, c = chan_smear(o, r, dm);
    return sqrt(sq(a) + sq(b) + sq(r->bw_smear) + sq(r->sub_smear) + sq(c));
}

/* guess_DMstep: twice the DM error whose smearing across BW is dt, found by
 * simple_roots.bisect on [0, 1000] (TOL 1e-14, 200 iterations; 0 when the
 * root is not bracketed or not reached). */
static double guess_dmstep(double dt, double bw, double fctr)
{
#define F(x) (pu_dm_smear((x), bw, fctr) - dt)
    double lox = 0.0, hix = 1000.0, f = F(lox), fmid = F(hix), dx, rtb;
    if (f * fmid >= 0.0)
        return 0.0;
    if (f < 0.0)
        dx = hix - lox, rtb = lox;
    else
        dx = lox - hix, rtb = hix;
    for (int i = 0; i < 200; i++) {
        dx = dx * 0.5;
        double xmid = rtb + dx;
        fmid = F(xmid);
        if (fmid <= 0.0)
            rtb = xmid;
        if (fabs(dx) < 1e-14 || fmid == 0.0)
            return rtb * 2.0;
    }
    return 0.0;
#undef F
}

int xc_ddp_downsamps(int blocklen, int *out, int max)
{
    int x[MAXDS], nx = 0, nw = 0, w[MAXDS];
    for (int n = 1; n < 260; n++)
        if (blocklen % n == 0)
            x[nx++] = n;
    int thin = 0;
    for (int i = 1; i < nx; i++)
        if ((double)x[i] / x[i - 1] < 1.5)
            thin = 1;
    if (nx <= 1 || !thin) {
        memcpy(w, x, sizeof(int) * (size_t)nx);
        nw = nx;
    } else {
        /* keep 1, 2, 3, then round(1.5 max) or 2 max or the next one above 1.5 max */
        int in[260] = {0};
        for (int i = 0; i < nx; i++)
            in[x[i]] = 1;
        w[nw++] = 1;
        if (in[2])
            w[nw++] = 2;
        if (in[3])
            w[nw++] = 3;
        while (w[nw - 1] < x[nx - 1]) {
            int m = w[nw - 1];
            long r = lround(1.5 * m + 1e-7);
            if (r < 260 && in[r]) {
                w[nw++] = (int)r;
            } else if (2 * m < 260 && in[2 * m]) {
                w[nw++] = 2 * m;
            } else if (x[nx - 1] > 1.5 * m) {
                int k = 0;
                while (!(x[k] > 1.5 * m))
                    k++;
                w[nw++] = x[k];
            } else {
                break;
            }
        }
    }
    for (int i = 0; i < nw && i < max; i++)
        out[i] = w[i];
    return nw;
}

/* dedisp_method.__init__ (numDMs 0, smearfact 2): one row from lodm. */
static xc_status make_row(const xc_ddp_obs *o, int ds, double lodm, double hidm, double ddm, xc_ddp_row *r,
                          xc_error *err)
{
    memset(r, 0, sizeof *r);
    r->downsamp = ds;
    r->lodm = lodm;
    r->ddm = ddm;
    r->bw_smear = xc_ddp_bw_smear(ddm, o->bw, o->fctr);
    if (o->nsub) {
        /* the largest even number of DMs per call whose subband smearing stays
         * under 0.8 of the smaller of BW_smear and the sample time */
        long n = 2;
        for (;; n += 2) {
            double next = xc_ddp_subband_smear((double)(n + 2) * ddm, o->nsub, o->bw, o->fctr);
            if (next > 0.8 * fmin(r->bw_smear, 1000.0 * o->dt * ds))
                break;
            if (n > 100000000L)
                return xc_error_set(err, XC_EINVAL, "ddplan: no subband DM spacing found (nsub %d)", o->nsub);
        }
        r->dsubdm = n * ddm;
        r->dms_per_call = n;
        r->sub_smear = xc_ddp_subband_smear(r->dsubdm, o->nsub, o->bw, o->fctr);
    } else {
        r->dsubdm = ddm;
        r->sub_smear = 0.0;
    }
    /* DM_for_smearfact: where one channel's smearing is smearfact times all the others */
    double a = 1000.0 * o->dt, b = 1000.0 * o->dt * ds;
    double other = sqrt(sq(a) + sq(b) + sq(r->bw_smear) + sq(r->sub_smear));
    double cross = SMEARFACT * 0.001 * other / (o->bw / o->nchans) * 0.0001205 * pow(o->fctr, 3.0) + o->cdm;
    if (cross > hidm)
        cross = hidm;
    double nd = ceil((cross - lodm) / ddm);
    if (!(nd >= 0 && nd < 1e9))
        return xc_error_set(err, XC_EINVAL, "ddplan: %g DM trials in one range", nd);
    r->numdms = (long)nd;
    if (o->nsub) {
        r->calls = (long)ceil(r->numdms * ddm / r->dsubdm);
        if (o->numprocs > 1 && r->calls % o->numprocs) {
            r->calls = (r->calls / o->numprocs + 1) * o->numprocs;
            while (r->dms_per_call > 1 && r->calls * r->dms_per_call > r->numdms)
                r->dms_per_call -= 1;
        }
        r->numdms = r->calls * r->dms_per_call;
    }
    if (o->numprocs > 1 && r->numdms % o->numprocs)
        r->numdms = (r->numdms / o->numprocs + 1) * o->numprocs;
    r->hidm = lodm + r->numdms * ddm;
    double last = lodm + (double)(r->numdms > 0 ? r->numdms - 1 : 0) * ddm;
    r->chan_smear_lo = chan_smear(o, r, lodm);
    r->chan_smear_hi = chan_smear(o, r, last);
    r->total_smear_lo = xc_ddp_row_total_smear(o, r, lodm);
    r->total_smear_hi = xc_ddp_row_total_smear(o, r, last);
    return XC_OK;
}

static xc_status check_obs(const xc_ddp_obs *o, xc_error *err)
{
    if (!(isfinite(o->lodm) && isfinite(o->hidm) && o->hidm > o->lodm))
        return xc_error_set(err, XC_EINVAL, "ddplan: need lodm < hidm (got %g, %g)", o->lodm, o->hidm);
    if (!(o->dt > 0 && isfinite(o->dt)) || !(o->fctr > 0 && isfinite(o->fctr)) || !(o->bw > 0 && isfinite(o->bw)))
        return xc_error_set(err, XC_EINVAL, "ddplan: dt, fctr and bw must be > 0 (got %g s, %g MHz, %g MHz)", o->dt,
                            o->fctr, o->bw);
    if (o->nchans < 1 || o->nsub < 0 || o->numprocs < 1 || o->blocklen < 1)
        return xc_error_set(err, XC_EINVAL, "ddplan: need nchans >= 1, nsub >= 0, numprocs >= 1, blocklen >= 1");
    if (!(o->res_ms >= 0) || !isfinite(o->cdm))
        return xc_error_set(err, XC_EINVAL, "ddplan: resolution must be >= 0 ms");
    return XC_OK;
}

/* dm_steps. */
xc_status xc_ddp_make(xc_ddp_plan *p, const xc_ddp_obs *o, xc_error *err)
{
    memset(p, 0, sizeof *p);
    xc_status st = check_obs(o, err);
    if (st)
        return st;
    p->obs = *o;
    int ds_list[MAXDS];
    int nds = xc_ddp_downsamps(o->blocklen, ds_list, MAXDS);
    int ids = 0, iddm = 0, ds = ds_list[0];
    double ddm = allow_ddms[0], dtms = 1000.0 * o->dt;

    p->min_total_smear = optimal_smear(o->lodm + 0.5 * ddm, ddm, o->dt, o->fctr, o->bw, o->nchans, o->cdm);
    /* the smallest channel smearing over numpy.linspace(lodm, hidm, 10000) */
    double step = (o->hidm - o->lodm) / 9999.0, mincs = INFINITY;
    for (int i = 0; i < 10000; i++) {
        double dm = i == 9999 ? o->hidm : i * step + o->lodm;
        mincs = fmin(mincs, xc_ddp_dm_smear(dm, o->bw / o->nchans, o->fctr, o->cdm));
    }
    p->min_chan_smear = mincs;
    p->min_bw_smear = xc_ddp_bw_smear(ddm, o->bw, o->fctr);
    p->min_dt = dtms;
    p->ok_smear = fmax(fmax(o->res_ms, mincs), fmax(p->min_bw_smear, dtms));

    if (FF * mincs > dtms || p->ok_smear > dtms) {
        double okval;
        if (p->ok_smear > FF * mincs) {
            p->note = XC_DDP_NOTE_OKSMEAR;
            okval = p->ok_smear;
        } else {
            p->note = XC_DDP_NOTE_CHANSMEAR;
            okval = FF * mincs;
        }
        for (;;) {
            if (ids + 1 >= nds)
                return xc_error_set(err, XC_EINVAL, "ddplan: no downsample factor of blocklen %d is large enough",
                                    o->blocklen);
            if (!(dtms * ds_list[ids + 1] < okval))
                break;
            ids++;
        }
        ds = ds_list[ids];
    }
    p->first_downsamp = ds;
    p->guess_ddm = guess_dmstep(o->dt * ds, o->bw, o->fctr);
    while (iddm + 1 < NDDM && allow_ddms[iddm + 1] < FF * p->guess_ddm)
        iddm++;
    if (iddm + 1 >= NDDM)
        return xc_error_set(err, XC_EINVAL, "ddplan: the DM step would exceed %g", allow_ddms[NDDM - 1]);

    int cap = 8;
    p->rows = malloc(sizeof *p->rows * (size_t)cap);
    if (!p->rows)
        return xc_error_set(err, XC_ENOMEM, "out of memory");
    if ((st = make_row(o, ds, o->lodm, o->hidm, allow_ddms[iddm], &p->rows[0], err)))
        goto fail;
    p->nrows = 1;
    while (p->rows[p->nrows - 1].hidm < o->hidm) {
        if (++ids >= nds) {
            st = xc_error_set(err, XC_EINVAL, "ddplan: ran out of downsample factors (blocklen %d) before DM %g",
                              o->blocklen, o->hidm);
            goto fail;
        }
        ds = ds_list[ids];
        double eff_dt = dtms * ds;
        for (;;) {
            if (iddm + 1 >= NDDM) {
                st = xc_error_set(err, XC_EINVAL, "ddplan: ran out of DM steps before DM %g", o->hidm);
                goto fail;
            }
            if (!(xc_ddp_bw_smear(allow_ddms[iddm + 1], o->bw, o->fctr) < FF * eff_dt))
                break;
            iddm++;
        }
        if (p->nrows == cap) {
            xc_ddp_row *nr = realloc(p->rows, sizeof *nr * (size_t)(cap *= 2));
            if (!nr) {
                st = xc_error_set(err, XC_ENOMEM, "out of memory");
                goto fail;
            }
            p->rows = nr;
        }
        if ((st = make_row(o, ds, p->rows[p->nrows - 1].hidm, o->hidm, allow_ddms[iddm], &p->rows[p->nrows], err)))
            goto fail;
        p->nrows++;
    }
    double sum = 0.0;
    for (int k = 0; k < p->nrows; k++)
        sum += p->rows[k].numdms / (double)p->rows[k].downsamp;
    for (int k = 0; k < p->nrows; k++)
        p->rows[k].work_fract = p->rows[k].numdms / (double)p->rows[k].downsamp / sum;
    return XC_OK;
fail:
    xc_ddp_free(p);
    return st;
}

void xc_ddp_free(xc_ddp_plan *p)
{
    if (!p)
        return;
    XC_GROW_FREE(p->rows, p->nrows);
}
