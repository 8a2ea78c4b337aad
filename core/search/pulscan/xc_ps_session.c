/* Sessions of the Pulscan pipeline (core/search/xc_search.h): xc_pulscan_run's
 * steps for many spectra of one length, with what does not depend on the
 * data made once.  A study searches thousands of pulsars with the same
 * options: the thresholds of zmax 1200 and 4 harmonics (4 x 1202 inverse
 * significance solves) took 10 ms on this project's CPU, and a device
 * searcher's buffers and tables more, against a GPU search of 0.25 ms of
 * kernels.  The steps and their order are xc_pulscan_run's (core/
 * xc_ps_pipeline.c), so the candidates are the same bits. */
#include <stdlib.h>

#include "core/search/spectrum/xc_rednoise.h"
#include "core/search/xc_search.h"

struct xc_pulscan_session {
    const xc_searcher *s;
    xc_psopts o, fin;     /* the options; those of significance and sifting */
    size_t nbins;
    double *thr;          /* xc_pulscan_thresholds(o, nbins) */
    void *state;          /* the searcher's plan, when it has one */
};

xc_status xc_pulscan_session_open(const xc_searcher *s, size_t nbins, const xc_psopts *o, xc_pulscan_session **ss,
                                  xc_error *err)
{
    *ss = NULL;
    if (!s || !s->peaks || (!s->own_powers && !s->powers))
        return xc_error_set(err, XC_EINVAL, "pulscan session: no searcher (or one without its stages)");
    xc_status st = xc_psopts_check(o, err);
    if (st)
        return st;
    if (nbins < 2)
        return xc_error_set(err, XC_EINVAL, "pulscan session: the spectrum needs at least 2 complex bins (has %zu)",
                            nbins);
    xc_pulscan_session *q = calloc(1, sizeof *q);
    if (!q)
        return xc_error_set(err, XC_ENOMEM, "pulscan session: out of memory");
    q->s = s;
    q->o = *o;
    q->fin = *o;
    if (!(s->impl.caps & XC_CAP_THREADED))
        q->fin.threads = 1;
    q->nbins = nbins;
    st = xc_pulscan_thresholds(o, nbins, &q->thr, err);
    if (!st && s->plan && s->peaks_in && s->destroy)
        st = s->plan(s, nbins, o, &q->state, err);
    if (st) {
        xc_pulscan_session_close(q);
        return st;
    }
    *ss = q;
    return XC_OK;
}

size_t xc_pulscan_session_nbins(const xc_pulscan_session *ss) { return ss ? ss->nbins : 0; }

xc_status xc_pulscan_session_refit(xc_pulscan_session *ss, size_t nbins, xc_error *err)
{
    if (!ss)
        return xc_error_set(err, XC_EINVAL, "pulscan session: none");
    if (nbins < 2)
        return xc_error_set(err, XC_EINVAL, "pulscan session: the spectrum needs at least 2 complex bins (has %zu)",
                            nbins);
    if (nbins == ss->nbins)
        return XC_OK;
    const xc_searcher *s = ss->s;
    free(ss->thr);
    ss->thr = NULL;
    ss->nbins = 0;   /* until both are made: fit only for close */
    xc_status st = xc_pulscan_thresholds(&ss->o, nbins, &ss->thr, err);
    if (!st && ss->state && s->replan) {
        st = s->replan(s, ss->state, nbins, &ss->o, ss->thr, err);
    } else if (!st && ss->state) {
        s->destroy(s, ss->state);
        ss->state = NULL;
        st = s->plan(s, nbins, &ss->o, &ss->state, err);
    }
    if (!st)
        ss->nbins = nbins;
    return st;
}

void xc_pulscan_session_progress(xc_pulscan_session *ss, xc_progress_cb cb)
{
    if (ss)
        ss->o.progress = cb;
}

xc_status xc_pulscan_session_run(xc_pulscan_session *ss, const xc_spectrum *sp, xc_candlist *out, xc_error *err)
{
    if (!ss)
        return xc_error_set(err, XC_EINVAL, "pulscan session: none");
    if (sp && sp->data && sp->nbins != ss->nbins)
        return xc_error_set(err, XC_EINVAL, "pulscan session: a spectrum of %zu bins, the session is for %zu",
                            sp->nbins, ss->nbins);
    const xc_searcher *s = ss->s;
    /* a planned searcher that names the first non-finite value itself is
     * spared the host's pass over the spectrum (the options were checked
     * at open); with red noise removal the values are checked before it */
    xc_status st = ss->state && s->checks_finite && !ss->o.rednoise ? xc_pulscan_check_shape(sp, err)
                                                                    : xc_pulscan_check_input(sp, &ss->o, err);
    if (st)
        return st;
    xc_spectrum red = {0};
    if ((st = xc_spectrum_whiten(sp, ss->o.rednoise, &red, &sp, err)))
        return st;
    double *P = NULL;
    xc_pspeaks pk;
    xc_pspeaks_init(&pk);
    if (!s->own_powers) {
        if (!(P = malloc(sp->nbins * sizeof *P)))
            st = xc_error_set(err, XC_ENOMEM, "%s: out of memory for %zu powers", s->impl.name, sp->nbins);
        if (!st)
            st = s->powers(s, sp, &ss->o, P, err);
    }
    if (!st)
        st = ss->state ? s->peaks_in(s, ss->state, sp, &ss->o, P, ss->thr, &pk, err)
                       : s->peaks(s, sp, &ss->o, P, ss->thr, &pk, err);
    if (!st)
        st = xc_pulscan_finish(&ss->fin, sp, P, &pk, out, err);
    xc_pspeaks_free(&pk);
    free(P);
    xc_spectrum_free(&red);
    return st;
}

double xc_pulscan_memory(const xc_searcher *s, size_t nbins, const xc_psopts *o)
{
    double nb = (double)nbins;
    double bytes = (double)o->numharm * ((double)o->zmax + 2) * sizeof(double);   /* thresholds */
    if (o->rednoise)
        bytes += nb * 2 * sizeof(float);            /* the dereddened copy */
    if (!s || !s->own_powers)
        bytes += nb * sizeof(double);               /* the powers */
    if (s && s->stage_bytes)
        return bytes + s->stage_bytes(s, nbins, o);
    /* the stage: at most the reference's harmonic sum, three rows of boxcar
     * sums and prefix sums (reference/pulscan_ref.c), more than the fill
     * test's prefix sums that come after it */
    return bytes + 5 * (nb + 2) * sizeof(double);
}

void xc_pulscan_session_close(xc_pulscan_session *ss)
{
    if (!ss)
        return;
    if (ss->state)
        ss->s->destroy(ss->s, ss->state);
    free(ss->thr);
    free(ss);
}
