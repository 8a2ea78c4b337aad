/* A zmax/numharm sweep of one spectrum by one search (core/xc_accel.h,
 * xc_accel_run_sweep): the Pulscan paper's study (White et al. 2024,
 * section 3) searches every pulsar at 8 zmax x 2 numharm, and those 16
 * searches nest.  Why they do, with the steps of core/xc_accel.h:
 *  1. the grid: z = -zmax..zmax in steps of 2, so a smaller zmax's templates
 *     are a contiguous run of a larger one's; r and w do not depend on zmax
 *     (rlo, rhi come from flo/fhi or -rlo/-rhi only);
 *  2. normalisation (preset exact) does not depend on zmax or numharm;
 *  3. a template is R(d; z, w) over |d| <= hw(z, w): its own z and w only;
 *  4. stage H's sum at (i, z, w) adds the sub-harmonics at required_z/w of
 *     that z and w: the same whatever numharm, as long as H <= numharm;
 *  5-6. only the trials, and so the thresholds and sigmas, depend on zmax
 *     (numz) and on the stage; the selection is order-independent.
 * So the largest search, its thresholds lowered to the lowest any of the n
 * searches has at that stage, finds every point any of them would; each is
 * then cut back to what it would have found. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/xc_accel.h"
#include "core/xc_signif.h"

/* Everything but zmax, numharm and threads equal (NAN equal to NAN). */
static int same_but_zh(const xc_accel_opts *a, const xc_accel_opts *b)
{
#define SAMEF(f) ((isnan(a->f) && isnan(b->f)) || a->f == b->f)
    return a->wmax == b->wmax && SAMEF(sigma) && SAMEF(flo) && SAMEF(fhi) && SAMEF(rlo) && SAMEF(rhi) &&
           a->preset == b->preset && a->acc == b->acc && a->normwidth == b->normwidth &&
           a->outofcore == b->outofcore && a->devblock == b->devblock;
#undef SAMEF
}

int xc_accel_sweep_nests(const xc_accel_opts *o, size_t n)
{
    if (!o || n < 1 || o[0].preset != XC_ACCEL_EXACT)
        return 0;
    for (size_t c = 1; c < n; c++)
        if (!same_but_zh(&o[0], &o[c]))
            return 0;
    return 1;
}

static int stage_of(int H)
{
    int s = 0;
    while ((1 << s) < H)
        s++;
    return s;
}

/* The superset's peaks that search c would have kept, with c's sigma. */
static xc_status cut(const xc_accel_plan *pc, const xc_accel_peaks *all, xc_accel_peaks *mine, xc_error *err)
{
    for (size_t k = 0; k < all->n; k++) {
        const xc_accel_peak *a = &all->p[k];
        int H = a->numharm, s = stage_of(H);
        /* the peak's z and w are the top template's divided by H (a power
         * of 2): exact, so the top template's z is recovered exactly */
        long zt = lround(a->z * H);
        if (H > pc->numharm || labs(zt) > pc->zmax || !(a->P > pc->thr[s]))
            continue;
        double sig = xc_candidate_sigma(2 * a->P, 2.0 * H, pc->ntrials[s], NULL);
        if (!(sig > pc->o.sigma))
            continue;
        xc_accel_peak q = *a;
        q.sigma = sig;
        xc_status st = xc_accel_peaks_push(mine, &q, err);
        if (st)
            return st;
    }
    return XC_OK;
}

xc_status xc_accel_run_sweep(const xc_accel_searcher *s, const xc_spectrum *sp, const xc_accel_opts *o, size_t n,
                             xc_candlist *out, xc_error *err)
{
    if (n == 0)
        return XC_OK;
    if (!o || !out)
        return xc_error_set(err, XC_EINVAL, "accel sweep: no options or outputs");
    if (n == 1 || !xc_accel_sweep_nests(o, n)) {
        for (size_t c = 0; c < n; c++) {
            xc_status st = xc_accel_run(s, sp, &o[c], &out[c], err);
            if (st)
                return st;
        }
        return XC_OK;
    }
    xc_status st = xc_accel_check(s, sp, err);
    if (st)
        return st;
    xc_accel_plan *pc = calloc(n, sizeof *pc), top;
    if (!pc)
        return xc_error_set(err, XC_ENOMEM, "accel sweep: out of memory");
    size_t made = 0;
    xc_accel_opts big = o[0];
    for (; made < n && !st; made++) {
        if ((st = xc_accel_plan_make(&pc[made], &o[made], sp->nbins, sp->T, err)))
            break;
        if (pc[made].zmax > big.zmax)
            big.zmax = pc[made].zmax;
        if (pc[made].numharm > big.numharm)
            big.numharm = pc[made].numharm;
    }
    int have_top = 0;
    if (!st && !(st = xc_accel_plan_make(&top, &big, sp->nbins, sp->T, err))) {
        have_top = 1;
        /* every stage: the lowest threshold and trials of the searches that
         * have it (fewer templates: fewer trials, a lower threshold) */
        for (int g = 0; g < top.nstages; g++)
            for (size_t c = 0; c < n; c++)
                if (g < pc[c].nstages) {
                    top.thr[g] = fmin(top.thr[g], pc[c].thr[g]);
                    top.ntrials[g] = fmin(top.ntrials[g], pc[c].ntrials[g]);
                }
    }
    xc_accel_peaks all = {0};
    if (!st)
        st = xc_accel_run_peaks(s, sp, &top, &all, err);
    for (size_t c = 0; c < n && !st; c++) {
        xc_accel_peaks mine = {0};
        st = cut(&pc[c], &all, &mine, err);
        if (!st)
            st = xc_accel_finish(&pc[c], &mine, sp->T, &out[c], err);
        xc_accel_peaks_free(&mine);
    }
    xc_accel_peaks_free(&all);
    if (have_top)
        xc_accel_plan_free(&top);
    for (size_t c = 0; c < made; c++)
        xc_accel_plan_free(&pc[c]);
    free(pc);
    return st;
}
