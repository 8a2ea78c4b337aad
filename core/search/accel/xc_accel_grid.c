/* The accel search's options, grid, half-widths, FFT geometry, trials and
 * thresholds: accelsearch's constants (PRESTO include/accel.h,
 * src/accel_utils.c create_accelobs, src/responses.c), re-derived here. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/search/xc_accel.h"
#include "core/search/stats/xc_signif.h"

void xc_accel_opts_default(xc_accel_opts *o)
{
    memset(o, 0, sizeof *o);
    o->zmax = 200;
    o->wmax = 0;
    o->numharm = 8;
    o->sigma = 2.0;
    o->flo = 1.0;
    o->fhi = 10000.0;
    o->rlo = NAN;
    o->rhi = NAN;
    o->threads = 0;
    o->preset = XC_ACCEL_EXACT;
    o->acc = XC_ACCEL_LOWACC;
    o->normwidth = 1024;
}

xc_status xc_accel_opts_check(const xc_accel_opts *o, xc_error *err)
{
    /* accelsearch's ranges (clig/accelsearch_cmd.cli). */
    if (o->zmax < 0 || o->zmax > 1200)
        return xc_error_set(err, XC_EINVAL, "option -zmax: %d is outside 0..1200", o->zmax);
    if (o->wmax < 0 || o->wmax > 4000)
        return xc_error_set(err, XC_EINVAL, "option -wmax: %d is outside 0..4000", o->wmax);
    int h = o->numharm;
    if (h != 1 && h != 2 && h != 4 && h != 8 && h != 16 && h != 32)
        return xc_error_set(err, XC_EINVAL, "option -numharm: %d is not 1, 2, 4, 8, 16 or 32", h);
    if (!(o->sigma >= 0) || !isfinite(o->sigma))
        return xc_error_set(err, XC_EINVAL, "option -sigma: %g is not a finite number >= 0", o->sigma);
    if (!(o->flo >= 0) || !isfinite(o->flo))
        return xc_error_set(err, XC_EINVAL, "option -flo: %g is not a finite frequency >= 0", o->flo);
    if (!(o->fhi > o->flo))
        return xc_error_set(err, XC_EINVAL, "option -fhi: %g is not above -flo %g", o->fhi, o->flo);
    if (!isnan(o->rlo) && !(o->rlo >= 0 && isfinite(o->rlo)))
        return xc_error_set(err, XC_EINVAL, "option -rlo: %g is not a finite bin >= 0", o->rlo);
    if (!isnan(o->rhi) && !(o->rhi > 0 && isfinite(o->rhi)))
        return xc_error_set(err, XC_EINVAL, "option -rhi: %g is not a finite bin > 0", o->rhi);
    if (o->threads < 0)
        return xc_error_set(err, XC_EINVAL, "option -ncpus: %d is below 0", o->threads);
    if (o->rednoise != 0 && o->rednoise != 1)
        return xc_error_set(err, XC_EINVAL, "option -rednoise: %d is not 0 or 1", o->rednoise);
    if (o->preset != XC_ACCEL_EXACT && o->preset != XC_ACCEL_PRESTO)
        return xc_error_set(err, XC_EINVAL, "option -preset: %d is not a preset", (int)o->preset);
    if (o->normwidth < 16)
        return xc_error_set(err, XC_EINVAL, "option -normwidth: %zu is below 16 bins", o->normwidth);
    return XC_OK;
}

/* PRESTO src/responses.c z_resp_halfwidth: (int)(1.1 |z| / 2) + NUMFINTBINS
 * (3 NUMFINTBINS with HIGHACC): the drift covers |z|/2 bins either side of
 * the mean r, plus 10 % and the sinc wings. */
int xc_accel_z_halfwidth(double z, xc_accel_acc acc)
{
    int m = (int)(0.5 * 1.1 * fabs(z));
    return m + (acc == XC_ACCEL_HIGHACC ? 3 : 1) * XC_ACCEL_NUMFINTBINS;
}

/* PRESTO src/responses.c w_resp_halfwidth: the largest |r(u) - r| over the
 * observation (the ends, r(0) - r = (w/6 - z)/2, r(1) - r = (w/6 + z)/2, and
 * the parabola's extremum when it falls inside), times 1.1, plus the wings. */
int xc_accel_w_halfwidth(double z, double w, xc_accel_acc acc)
{
    if (fabs(w) < 1e-7)
        return xc_accel_z_halfwidth(z, acc);
    double r0 = 0.5 * (w / 6.0 - z), r1 = 0.5 * (w / 6.0 + z);
    double maxdev = fmax(fabs(r0), fabs(r1));
    double u = 0.5 - z / w;
    if (u > 0 && u < 1) {
        double rext = 0.5 * w * u * u + (z - 0.5 * w) * u + r0;
        maxdev = fmax(maxdev, fabs(rext));
    }
    return (int)(1.1 * maxdev) + (acc == XC_ACCEL_HIGHACC ? 3 : 1) * XC_ACCEL_NUMFINTBINS;
}

/* accelsearch's fftlen_from_kernwidth: its tuned table of FFT lengths. */
int xc_accel_fftlen_from_kernwidth(int kw)
{
    static const int lim[] = {6, 52, 67, 378, 664, 1672, 3015, 3554, 6000};
    static const int len[] = {128, 256, 512, 1024, 2048, 4096, 10240, 15360, 25600};
    for (size_t i = 0; i < sizeof lim / sizeof *lim; i++)
        if (kw < lim[i])
            return len[i];
    int n = 1;
    while (n < 5 * kw)
        n *= 2;
    return n;
}

/* accelsearch's next_good_fftlen: the smallest of its fast lengths >= n
 * (beyond the table, the next power of 2). */
int xc_accel_next_good_fftlen(int n)
{
    static const int good[] = {128,  192,  256,  384,   512,   768,   1024,  1280, 2048,
                               4096, 5120, 7680, 10240, 12288, 15360, 16384, 25600};
    for (size_t i = 0; i < sizeof good / sizeof *good; i++)
        if (good[i] >= n)
            return good[i];
    int m = 1;
    while (m < n)
        m *= 2;
    return m;
}

/* PRESTO's NEAREST_INT: half away from zero. */
static int nearest_int(double x) { return (int)(x < 0 ? x - 0.5 : x + 0.5); }

int xc_accel_required_z(double frac, double z) { return nearest_int(z * frac / XC_ACCEL_DZ) * XC_ACCEL_DZ; }
int xc_accel_required_w(double frac, double w) { return nearest_int(w * frac / XC_ACCEL_DW) * XC_ACCEL_DW; }

int xc_accel_sub_template(const xc_accel_plan *p, int t, double frac)
{
    int sw = xc_accel_required_w(frac, xc_accel_w_of(p, t / p->numz));
    int sz = xc_accel_required_z(frac, xc_accel_z_of(p, t % p->numz));
    return (sw + p->wmax) / XC_ACCEL_DW * p->numz + (sz + p->zmax) / XC_ACCEL_DZ;
}

long xc_accel_exact_block(const xc_accel_plan *p)
{
    long U = p->uselen, big = (4L << 20) / p->ntempl;
    if (big > 65536)
        big = 65536;
    return big > U ? big / 2 * 2 : U;
}

double xc_accel_ntrials(double rlo, double rhi, int numz, int numw, int H)
{
    double n = rhi - rlo;
    if (numz > 1 || numw > 1)
        n *= (numz + 1) * (XC_ACCEL_DZ / 6.95);
    if (numw > 1)
        n *= (numw + 1) * (XC_ACCEL_DW / 44.2);
    return n / H;
}

xc_status xc_accel_plan_make(xc_accel_plan *p, const xc_accel_opts *o, size_t nbins, double T, xc_error *err)
{
    memset(p, 0, sizeof *p);
    xc_status st = xc_accel_opts_check(o, err);
    if (st)
        return st;
    if (nbins < 2 || !(T > 0) || !isfinite(T))
        return xc_error_set(err, XC_EINVAL, "accel: a spectrum of %zu bins and T = %g s cannot be searched", nbins, T);
    p->o = *o;
    /* accelsearch rounds zmax up to even and wmax up to a multiple of 20. */
    p->zmax = (o->zmax + XC_ACCEL_DZ - 1) / XC_ACCEL_DZ * XC_ACCEL_DZ;
    p->wmax = (o->wmax + XC_ACCEL_DW - 1) / XC_ACCEL_DW * XC_ACCEL_DW;
    p->o.zmax = p->zmax;
    p->o.wmax = p->wmax;
    p->numz = p->zmax / XC_ACCEL_DZ * 2 + 1;
    p->numw = p->wmax / XC_ACCEL_DW * 2 + 1;
    p->ntempl = p->numz * p->numw;
    p->numharm = o->numharm;
    for (p->nstages = 1; (1 << (p->nstages - 1)) < o->numharm; p->nstages++)
        ;
    p->nbins = nbins;
    p->T = T;
    /* Search range, as create_accelobs: rlo = floor(flo T), highest bin
     * min(ceil(fhi T), nbins - 1); -rlo/-rhi override. */
    double rlo = isnan(o->rlo) ? floor(o->flo * T) : floor(o->rlo);
    double rhi = isnan(o->rhi) ? ceil(o->fhi * T) : floor(o->rhi);
    if (rhi > (double)nbins - 1)
        rhi = (double)nbins - 1;
    if (rlo < 1)
        rlo = 1;
    if (!(rlo < rhi))
        return xc_error_set(err, XC_EINVAL,
                            "accel: empty search range: r = %.0f to %.0f (flo %g Hz, fhi %g Hz, T = %g s, %zu bins)", rlo,
                            rhi, o->flo, o->fhi, T, nbins);
    p->rlo = (long)rlo;
    p->rhi = (long)rhi;
    p->hw = malloc((size_t)p->ntempl * sizeof *p->hw);
    if (!p->hw)
        return xc_error_set(err, XC_ENOMEM, "accel: out of memory");
    for (int iw = 0; iw < p->numw; iw++)
        for (int iz = 0; iz < p->numz; iz++)
            p->hw[iw * p->numz + iz] = xc_accel_w_halfwidth(xc_accel_z_of(p, iz), xc_accel_w_of(p, iw), o->acc);
    /* Data coverage uses the true largest half-width; accelsearch's block
     * geometry uses w_resp_halfwidth(zmax, wmax) for the FFT length and the
     * template (-zmax, -wmax) for the window offset (its subharm_fderivs_vol
     * says that one is the widest; equal for every grid we checked). */
    p->hwmax = 0;
    for (int t = 0; t < p->ntempl; t++)
        if (p->hw[t] > p->hwmax)
            p->hwmax = p->hw[t];
    p->hwwin = p->hw[0];
    int maxkernlen = 2 * XC_ACCEL_NUMBETWEEN * xc_accel_w_halfwidth(p->zmax, p->wmax, o->acc);
    p->fftlen = xc_accel_fftlen_from_kernwidth(maxkernlen);
    if (p->fftlen < 2048)
        p->fftlen = 2048;
    p->uselen = (p->fftlen - maxkernlen) / 2 * 2;
    for (int s = 0; s < p->nstages; s++) {
        int H = 1 << s;
        double n = xc_accel_ntrials(rlo, rhi, p->numz, p->wmax ? p->numw : 1, H);
        /* accelsearch stores the trials as long long (truncated). */
        p->ntrials[s] = o->preset == XC_ACCEL_PRESTO ? floor(n) : n;
        p->thr[s] = 0.5 * xc_power_threshold(o->sigma, 2.0 * H, p->ntrials[s]);
    }
    return XC_OK;
}

void xc_accel_plan_free(xc_accel_plan *p)
{
    if (p) {
        free(p->hw);
        p->hw = NULL;
    }
}
