/* The search pipeline core drives (xc_search.h): every implementation
 * supplies its powers and peaks stages; the checks before them and the
 * significance, sigma cut and sifting after them are this one code path. */
#include "core/search/xc_search.h"

#include <stdlib.h>

#include "core/search/spectrum/xc_rednoise.h"

const xc_searcher *xc_searcher_of(const xc_impl *impl)
{
    /* The head is the first member, so the descriptor starts where it does. */
    return impl && impl->family == XC_FAMILY_PULSCAN ? (const xc_searcher *)impl : NULL;
}

xc_status xc_pulscan_powers(const xc_searcher *s, const xc_spectrum *sp, const xc_psopts *o, double *P,
                            xc_error *err)
{
    xc_status st = xc_pulscan_check_input(sp, o, err);
    xc_spectrum red = {0};
    const xc_spectrum *use = sp;
    if (!st)
        st = xc_spectrum_whiten(sp, o->rednoise, &red, &use, err);
    if (!st)
        st = s->powers(s, use, o, P, err);
    xc_spectrum_free(&red);
    return st;
}

/* Steps 1-5 with the host powers kept for the fill test of finish (*P is
 * NULL for a stage that computes its own). */
static xc_status peaks(const xc_searcher *s, const xc_spectrum *sp, const xc_psopts *o, double **P, xc_pspeaks *pk,
                       xc_error *err)
{
    *P = NULL;
    xc_status st = xc_pulscan_check_input(sp, o, err);
    if (st)
        return st;
    xc_spectrum red = {0};
    if ((st = xc_spectrum_whiten(sp, o->rednoise, &red, &sp, err)))
        return st;
    double *thr = NULL;
    st = xc_pulscan_thresholds(o, sp->nbins, &thr, err);
    if (!st && !s->own_powers) {
        if (!(*P = malloc(sp->nbins * sizeof **P)))
            st = xc_error_set(err, XC_ENOMEM, "%s: out of memory for %zu powers", s->impl.name, sp->nbins);
        if (!st)
            st = s->powers(s, sp, o, *P, err);
    }
    if (!st)
        st = s->peaks(s, sp, o, *P, thr, pk, err);
    free(thr);
    xc_spectrum_free(&red);
    return st;
}

xc_status xc_pulscan_peaks(const xc_searcher *s, const xc_spectrum *sp, const xc_psopts *o, xc_pspeaks *pk,
                           xc_error *err)
{
    double *P;
    xc_status st = peaks(s, sp, o, &P, pk, err);
    free(P);
    return st;
}

xc_status xc_pulscan_run(const xc_searcher *s, const xc_spectrum *sp, const xc_psopts *o, xc_candlist *out,
                         xc_error *err)
{
    double *P;
    xc_pspeaks pk;
    xc_pspeaks_init(&pk);
    xc_status st = peaks(s, sp, o, &P, &pk, err);
    xc_psopts fin = *o;
    if (!(s->impl.caps & XC_CAP_THREADED))
        fin.threads = 1;
    if (!st)
        st = xc_pulscan_finish(&fin, sp, P, &pk, out, err);
    xc_pspeaks_free(&pk);
    free(P);
    return st;
}
