/* Float against double (xc_approx_accel.h, measurement 4): the plane of a
 * float searcher (the cpu's single-precision FFTW overlap-save) against the
 * reference's double direct correlation, point by point, on the same
 * normalised noise with three tones. */
#include "approx/accel/xc_approx_accel.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

xc_status xc_approx_accel_float(const xc_accel_searcher *fast, const xc_accel_searcher *ref, size_t nbins, int zmax,
                                int wmax, uint64_t seed, int threads, xc_accel_float_diff *out, xc_error *err)
{
    memset(out, 0, sizeof *out);
    if (!fast || !ref || !fast->plane || !ref->plane)
        return xc_error_set(err, XC_EINVAL, "accel float: two searchers needed");
    if (nbins < 4096 || zmax < 14)
        return xc_error_set(err, XC_EINVAL, "accel float: %zu bins, zmax %d (need >= 4096 bins, zmax >= 14: the "
                            "tones' z)", nbins, zmax);
    out->nbins = nbins;
    out->zmax = zmax;
    out->wmax = wmax;
    out->tol = fast->impl.tol.value;
    xc_accel_plan p;
    xc_status st = xc_approx_accel_plan1(&p, nbins, zmax, wmax, threads, 0, err);
    if (st)
        return st;
    xc_spectrum sp = {0};
    double *amp = NULL, *sc = NULL;
    float *pf = NULL, *pd = NULL;
    void *sf = NULL, *sd = NULL;
    long rmin = p.hwmax + 2, rmax = (long)nbins - p.hwmax - 3;
    size_t nr = (size_t)(2 * (rmax - rmin) + 1), np = (size_t)p.ntempl * nr;
    if ((st = xc_approx_accel_noise_spectrum(&sp, nbins, seed, err)))
        goto done;
    amp = malloc(2 * nbins * sizeof *amp);
    sc = malloc(nbins * sizeof *sc);
    pf = malloc(np * sizeof *pf);
    pd = malloc(np * sizeof *pd);
    if (!amp || !sc || !pf || !pd) {
        st = xc_error_set(err, XC_ENOMEM, "accel float: out of memory (%zu plane points)", np);
        goto done;
    }
    if ((st = xc_accel_norm_scales(sp.data, nbins, 1024, sc, err)))
        goto done;
    for (size_t k = 0; k < nbins; k++) {
        amp[2 * k] = sp.data[2 * k] * sc[k];
        amp[2 * k + 1] = sp.data[2 * k + 1] * sc[k];
    }
    /* tones {r, z, matched power} added to the normalised amplitudes */
    const double tones[3][3] = {{0.25 * (double)nbins + 0.3, 6, 30}, {0.5 * (double)nbins + 0.6, -14, 300},
                                {0.75 * (double)nbins, 0, 3000}};
    for (int t = 0; t < 3; t++)
        for (long k = (long)tones[t][0] - 200; k <= (long)tones[t][0] + 200; k++) {
            double R[2];
            xc_accel_resp_z((double)k - tones[t][0], tones[t][1], R);
            amp[2 * k] += sqrt(tones[t][2]) * R[0];
            amp[2 * k + 1] += sqrt(tones[t][2]) * R[1];
        }
    if ((fast->create && (st = fast->create(fast, &p, &sf, err))) ||
        (st = xc_approx_accel_plane(fast, sf, &p, amp, nbins, 2 * rmin, nr, NULL, pf, err)))
        goto done;
    if ((ref->create && (st = ref->create(ref, &p, &sd, err))) ||
        (st = xc_approx_accel_plane(ref, sd, &p, amp, nbins, 2 * rmin, nr, NULL, pd, err)))
        goto done;
    out->npts = np;
    out->max_rel = out->max_abs = 0;
    size_t peak = 0;
    for (size_t q = 0; q < np; q++) {
        double d = fabs((double)pf[q] - (double)pd[q]);
        out->max_abs = fmax(out->max_abs, d);
        if (pd[q] >= 1 && d / pd[q] > out->max_rel) {
            out->max_rel = d / pd[q];
            out->max_rel_at = pd[q];
        }
        if (pd[q] > pd[peak])
            peak = q;
    }
    out->peak = pd[peak];
    out->peak_rel = fabs((double)pf[peak] - (double)pd[peak]) / pd[peak];
done:
    if (sf && fast->destroy)
        fast->destroy(fast, sf);
    if (sd && ref->destroy)
        ref->destroy(ref, sd);
    xc_accel_plan_free(&p);
    xc_spectrum_free(&sp);
    free(amp);
    free(sc);
    free(pf);
    free(pd);
    return st;
}
