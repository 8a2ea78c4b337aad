/* Verdict rows for approximate dedispersers (compare/check/xc_checks.h): equal to
 * the reference of their own algorithm bit for bit, and every injected
 * pulse's S/N loss within the bound the implementation derives for its trial
 * (measured by compare/smear_measure.c). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "compare/check/xc_checks.h"
#include "compare/xc_smear.h"

/* Samples of a that differ from b (bits), or the size of a if shapes differ. */
static size_t plane_diff(const xc_plane *a, const xc_plane *b)
{
    size_t total = 0, nd = 0;
    for (int k = 0; k < a->nranges; k++)
        total += a->r[k].ndm * a->r[k].nsamp;
    if (a->nranges != b->nranges)
        return total;
    for (int k = 0; k < a->nranges; k++)
        if (a->r[k].ndm != b->r[k].ndm || a->r[k].nsamp != b->r[k].nsamp)
            return total;
    for (int k = 0; k < a->nranges; k++)
        for (size_t i = 0; i < a->r[k].ndm * a->r[k].nsamp; i++)
            nd += memcmp(&a->r[k].data[i], &b->r[k].data[i], sizeof(float)) != 0;
    return nd;
}

xc_status xc_check_approx_ref(xc_checks *l, const char *obs, const char *impl, const xc_plane *a,
                              const xc_plane *const *refs, const char *const *ref_names, int nref, xc_error *err)
{
    static const char *check = "approximate vs its reference (bit for bit)";
    static const char *bound = "equal to one approximate reference, every sample";
    if (nref < 1)
        return xc_checks_fail(l, obs, impl, check, "no approximate reference available to pair with", bound, err);
    int best = 0;
    size_t bestd = (size_t)-1;
    for (int r = 0; r < nref; r++) {
        size_t d = plane_diff(a, refs[r]);
        if (d < bestd) {
            bestd = d;
            best = r;
        }
    }
    if (bestd == 0)
        return xc_checks_addf(l, obs, impl, check, XC_CHECK_PASS, 0.0, 0.0, bound, err, "equal to %s",
                              ref_names[best]);
    return xc_checks_addf(l, obs, impl, check, XC_CHECK_FAIL, (double)bestd, 0.0, bound, err,
                          "differs from every approximate reference; nearest %s: %zu samples differ", ref_names[best],
                          bestd);
}

xc_status xc_check_smear(xc_checks *l, const char *obs, const char *impl, const xc_smear_row *rows, size_t n,
                         xc_error *err)
{
    static const char *check = "S/N loss within the declared bound (injected pulses)";
    static const char *bound = "loss <= 1 - sqrt(W/(W+S)) per trial";
    if (n == 0)
        return xc_checks_fail(l, obs, impl, check, "no pulse measured", bound, err);
    size_t worst = 0, nfail = 0;
    double maxloss = 0;
    for (size_t i = 0; i < n; i++) {
        nfail += !rows[i].pass;
        maxloss = fmax(maxloss, rows[i].snr_loss);
        if (rows[i].snr_loss - rows[i].bound > rows[worst].snr_loss - rows[worst].bound)
            worst = i;
    }
    const xc_smear_row *w = &rows[worst];
    return xc_checks_addf(l, obs, impl, check, nfail ? XC_CHECK_FAIL : XC_CHECK_PASS, w->snr_loss, w->bound, bound, err,
                          "%zu pulses, %zu over; largest loss %.1f %%; nearest its bound: DM %g, W %d (%.0f us), "
                          "loss %.1f %% vs %.1f %% (S %d)",
                          n, nfail, 100 * maxloss, w->dm, w->width, w->width_us, 100 * w->snr_loss, 100 * w->bound,
                          w->bound_samples);
}
