/* The synthetic observation of the detection measurement, made in memory
 * (xc_approx_zloss.h): the filterbank xc_synth_stream produces, dedispersed at
 * DM 0 (every delay 0, so the channel sum of each spectrum), its truth, and
 * its spectrum. */
#include "approx/pulscan/xc_approx_zloss.h"

#include <stdlib.h>
#include <string.h>

#include "core/base/xc_nbits.h"
#include "core/dedisp/plan/xc_dmplan.h"
#include "core/io/xc_fft.h"
#include "core/io/xc_filterbank.h"
#include "synth/model/xc_orbit.h"

typedef struct {
    const xc_synth_params *p;
    float *x;
    size_t n, at;          /* samples wanted, spectra summed so far */
    uint16_t *lev;         /* the chunk's unpacked levels (integer samples) */
    size_t cap;
    xc_status st;          /* what stopped the stream, when the sink did */
} dm0_sum;

/* Float32 samples as xc_synth_stream writes them: little endian. */
static float le_float(const uint8_t *b)
{
    uint32_t u = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

/* The sink: sums each spectrum of the chunk over its channels, in channel order. */
static int dm0_sink(void *ctx, const uint8_t *bytes, size_t nbytes)
{
    dm0_sum *s = ctx;
    const xc_synth_params *p = s->p;
    const size_t nch = (size_t)p->nchans, rowbytes = nch * (size_t)p->nbits / 8;
    const size_t nspec = nbytes / rowbytes;
    if (nbytes % rowbytes || nspec > s->n - s->at) {
        s->st = XC_EINVAL;
        return 1;
    }
    if (xc_nbits_is_float(p->nbits)) {
        for (size_t i = 0; i < nspec; i++) {
            double sum = 0;
            for (size_t c = 0; c < nch; c++)
                sum += le_float(bytes + 4 * (i * nch + c));
            s->x[s->at + i] = xc_scale_real(p->convention, sum, p->nchans, 1, 32);
        }
    } else {
        if (nspec * nch > s->cap) {
            uint16_t *l = realloc(s->lev, nspec * nch * sizeof *l);
            if (!l) {
                s->st = XC_ENOMEM;
                return 1;
            }
            s->lev = l;
            s->cap = nspec * nch;
        }
        xc_fb_unpack_u16(bytes, nspec * nch, p->nbits, p->bitorder, s->lev);
        for (size_t i = 0; i < nspec; i++) {
            uint64_t sum = 0;
            for (size_t c = 0; c < nch; c++)
                sum += s->lev[i * nch + c];
            s->x[s->at + i] = xc_scale_int(p->convention, sum, p->nchans, 1, p->nbits);
        }
    }
    s->at += nspec;
    return 0;
}

xc_status xc_approx_synth_dm0(const xc_synth_params *p, float **x, size_t *n, xc_error *err)
{
    *x = NULL;
    *n = 0;
    xc_status st = xc_synth_params_check(p, NULL, err);
    if (st)
        return st;
    if (p->psr.period_ms > 0 && p->psr.dm != 0)
        return xc_error_set(err, XC_EINVAL, "DM 0 series: the pulsar has DM %g (the channel sum dedisperses DM 0 "
                            "only)", p->psr.dm);
    for (size_t k = 0; k < p->npulses; k++)
        if (p->pulses[k].dm != 0)
            return xc_error_set(err, XC_EINVAL, "DM 0 series: pulse %zu has DM %g (the channel sum dedisperses DM "
                                "0 only)", k, p->pulses[k].dm);
    uint64_t ns = xc_synth_nsamp(p);
    dm0_sum s = {p, NULL, (size_t)ns, 0, NULL, 0, XC_OK};
    if (ns > SIZE_MAX / sizeof(float) || !(s.x = malloc((size_t)ns * sizeof *s.x)))
        return xc_error_set(err, XC_ENOMEM, "DM 0 series: out of memory for %llu samples", (unsigned long long)ns);
    st = xc_synth_stream(p, dm0_sink, &s, err);
    if (s.st == XC_ENOMEM)
        st = xc_error_set(err, XC_ENOMEM, "DM 0 series: out of memory for a chunk of %d channels", p->nchans);
    else if (!st && s.at != s.n)
        st = xc_error_set(err, XC_EINVAL, "DM 0 series: %zu of %zu spectra streamed", s.at, s.n);
    else if (s.st)
        st = xc_error_set(err, s.st, "DM 0 series: a chunk of %d channels x %d bits that is not whole spectra",
                          p->nchans, p->nbits);
    free(s.lev);
    if (st) {
        free(s.x);
        return st;
    }
    *x = s.x;
    *n = s.n;
    return XC_OK;
}

xc_status xc_approx_synth_truth(const xc_synth_params *p, xc_truth *t, xc_error *err)
{
    memset(t, 0, sizeof *t);
    if (!(p->psr.period_ms > 0))
        return xc_error_set(err, XC_EINVAL, "truth: no pulsar (period_ms %g)", p->psr.period_ms);
    xc_timing tm;
    xc_search_truth s;
    const double T = (double)xc_synth_nsamp(p) * p->tsamp;
    /* the shift the truth file uses: fake's sample i is its time (i+1) tsamp */
    xc_status st = xc_timing_init(&tm, p, err);
    if (st || (st = xc_search_truth_compute(&tm, T, tm.fake ? 0.5 * p->tsamp : 0.0, &s, err)))
        return st;
    t->f0_hz = s.f0;
    t->r = s.r;
    t->z = s.z;
    t->T = T;
    t->have_rz = 1;
    return XC_OK;
}

xc_status xc_approx_spectrum(const float *x, size_t n, double tsamp, xc_spectrum *sp, xc_error *err)
{
    memset(sp, 0, sizeof *sp);
    if (!n || n % 2)
        return xc_error_set(err, XC_EINVAL, "spectrum: %zu samples (need an even count)", n);
    float *d = malloc(n * sizeof *d);
    if (!d)
        return xc_error_set(err, XC_ENOMEM, "spectrum: out of memory for %zu samples", n);
    xc_status st;
#pragma omp critical(xc_approx_fftw)
    st = xc_realfft_forward(x, n, XC_FFT_SINGLE, d, err);
    if (st) {
        free(d);
        return st;
    }
    sp->data = d;
    sp->nbins = n / 2;
    sp->dt = tsamp;
    sp->T = (double)n * tsamp;
    sp->owned = 1;
    return XC_OK;
}
