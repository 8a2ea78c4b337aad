/* The exact generator's values with signal: the level of Z + s drawn by
 * inverting a uniform against the shifted cumulative levels (synth_levels.h).
 *
 * A value with signal s takes a 32-bit integer U and the level
 *
 *     #{k = 1..top : Phi(b_k - s) <= (U + 1/2) / 2^32},
 *
 * b_k the boundary between levels k - 1 and k, so level k has probability
 * Phi(b_{k+1} - s) - Phi(b_k - s) to within 2^-32: the law of the level of
 * x = Z + s, Z ~ N(0,1), the one xc_synth_level_probs gives at s = 0.  Phi is
 * evaluated in double from the nearer tail (erfc), as xc_synth_level_probs.
 *
 * Mostly the top 16 bits h of U decide: U's uniform then lies in
 * (h / 2^16, (h + 1) / 2^16), so Z in [q_h, q_{h+1}], q_h = Phi^-1(h / 2^16)
 * (the table zq, in float), and where both ends shifted by s fall in one level
 * with a margin that covers the floats' roundings, that is the level.  Since
 * the uniform is at least 2^-33 inside its cell, the double Phi's rounding
 * (about 1e-16) cannot move a boundary across it, so the shortcut gives the
 * definition's level exactly.  Otherwise (about 1.5e-3 of the values at 8
 * bits) the whole U is compared with the boundaries between the two ends. */
#include "synth/noise/synth_levels.h"

#include "synth/model/xc_synth.h"
#include "synth/noise/synth_noise.h"

#include <math.h>
#include <stdlib.h>

#define ZCELLS 65536   /* the cells of h */

/* P(Z < x) and P(Z >= x) for Z ~ N(0,1), each from erfc (no cancellation in its own tail). */
static double phi_below(double x)
{
    return 0.5 * erfc(-x / M_SQRT2);
}

static double density(double x)
{
    return exp(-0.5 * x * x) / sqrt(2 * M_PI);
}

/* q_h = Phi^-1(h / 2^16) for h = 1..2^15 by Newton's method, each started
 * from its neighbour nearer the centre (a step of 2^-16 / density, second order),
 * until the step is under 1e-13; the upper half by symmetry. */
static void quantiles(float *zq)
{
    double z = 0;
    zq[ZCELLS / 2] = 0.0f;
    for (int h = ZCELLS / 2 - 1; h >= 1; h--) {
        const double u = h / (double)ZCELLS, d = 1.0 / ZCELLS / density(z);
        z -= d + 0.5 * d * d * z;
        for (int it = 0; it < 60; it++) {
            const double step = (u - phi_below(z)) / density(z);
            z += step;
            if (fabs(step) < 1e-13)
                break;
        }
        zq[h] = (float)z;
        zq[ZCELLS - h] = (float)-z;
    }
    zq[0] = -INFINITY;
    zq[ZCELLS] = INFINITY;
}

xc_status xc_levels_signal_init(xc_levels *t, xc_error *err)
{
    if (t->zq)
        return XC_OK;
    t->zq = malloc((ZCELLS + 1) * sizeof *t->zq);
    t->zc = malloc(((ZCELLS >> XC_LEVELS_ZC_SHIFT) + 1) * sizeof *t->zc);
    if (!t->zq || !t->zc) {
        free(t->zq);
        free(t->zc);
        t->zq = t->zc = NULL;
        return xc_error_set(err, XC_ENOMEM, "out of memory for the signal's quantile table");
    }
    quantiles(t->zq);
    for (int j = 0; j <= ZCELLS >> XC_LEVELS_ZC_SHIFT; j++)
        t->zc[j] = t->zq[j << XC_LEVELS_ZC_SHIFT];
    return XC_OK;
}

/* Boundary k (1..top) in noise sigmas: level k starts at b_k (xc_synth_quantise's bins; 1 bit: 0). */
static double boundary(int nbits, int k)
{
    if (nbits <= 1)
        return 0.0;
    const double scale = ((1 << nbits) - 1) / 8.0;
    return (k - 0.5) / scale - 4.0;
}

uint16_t xc_levels_signal_exact(const xc_levels *t, uint32_t u, float s)
{
    const int top = (1 << t->nbits) - 1;
    int lo = 0, hi = top;
    if (t->zq)
        xc_levels_signal_span(t, u >> 16, s, &lo, &hi);
    /* (U + 1/2) / 2^32 and its complement, both exact in double */
    const double below = (u + 0.5) / 4294967296.0, above = (4294967295.0 - u + 0.5) / 4294967296.0;
    int k = lo;
    for (int j = lo + 1; j <= hi; j++) {
        const double x = boundary(t->nbits, j) - (double)s;
        const int past = x < 0 ? phi_below(x) <= below : 0.5 * erfc(x / M_SQRT2) >= above;
        if (!past)
            break;
        k = j;
    }
    return (uint16_t)k;
}

uint16_t xc_synth_level_signal(uint64_t seed, uint64_t sample, int chan, int nbits, float s)
{
    xc_levels t;
    if (xc_levels_init(&t, nbits, NULL) || xc_levels_signal_init(&t, NULL)) {
        xc_levels_free(&t);
        return 0;
    }
    uint32_t w[4], u;
    if (nbits <= 8) {
        xc_synth_words(seed, XC_STREAM_LEVEL, sample, (uint32_t)chan >> 3, w);
        const uint32_t h = xc_levels_half(w, chan);
        xc_synth_words(seed, XC_STREAM_TIE, sample, (uint32_t)chan, w);
        u = h << 16 | (w[0] & 0xffffu);
    } else {
        xc_synth_words(seed, XC_STREAM_LEVEL, sample, (uint32_t)chan >> 2, w);
        u = w[chan & 3];
    }
    const uint16_t v = xc_levels_signal_exact(&t, u, s);
    xc_levels_free(&t);
    return v;
}
