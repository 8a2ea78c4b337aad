/* Counter-based Gaussian noise and fake-style quantisation. */
#include "xc_synth.h"

#include <math.h>

#define PHILOX_M0 0xD2511F53u
#define PHILOX_M1 0xCD9E8D57u
#define PHILOX_W0 0x9E3779B9u
#define PHILOX_W1 0xBB67AE85u

static inline void philox_round(uint32_t x[4], const uint32_t k[2])
{
    uint64_t p0 = (uint64_t)PHILOX_M0 * x[0];
    uint64_t p1 = (uint64_t)PHILOX_M1 * x[2];
    uint32_t y0 = (uint32_t)(p1 >> 32) ^ x[1] ^ k[0];
    uint32_t y2 = (uint32_t)(p0 >> 32) ^ x[3] ^ k[1];
    x[1] = (uint32_t)p1;
    x[3] = (uint32_t)p0;
    x[0] = y0;
    x[2] = y2;
}

void xc_synth_philox4x32_10(const uint32_t ctr[4], const uint32_t key[2], uint32_t out[4])
{
    uint32_t x[4] = {ctr[0], ctr[1], ctr[2], ctr[3]};
    uint32_t k[2] = {key[0], key[1]};
    for (int r = 0; r < 10; r++) {
        if (r) {
            k[0] += PHILOX_W0;
            k[1] += PHILOX_W1;
        }
        philox_round(x, k);
    }
    for (int i = 0; i < 4; i++)
        out[i] = x[i];
}

/* One Philox block gives two 53-bit uniforms and Box-Muller turns them into an
 * independent pair, used for channels 2j and 2j+1.  Counter word 3 is a stream
 * number (0 = radiometer noise) so later features can draw their own numbers
 * from the same seed without overlapping this stream. */
static inline void noise_pair(uint64_t seed, uint64_t sample, uint32_t pair, float *z0, float *z1)
{
    const uint32_t ctr[4] = {(uint32_t)sample, (uint32_t)(sample >> 32), pair, 0u};
    const uint32_t key[2] = {(uint32_t)seed, (uint32_t)(seed >> 32)};
    uint32_t o[4];
    xc_synth_philox4x32_10(ctr, key, o);
    uint64_t a = (((uint64_t)o[0] << 32) | o[1]) >> 11;
    uint64_t b = (((uint64_t)o[2] << 32) | o[3]) >> 11;
    double u1 = (double)(a + 1) * 0x1p-53;   /* (0, 1]: log never sees 0 */
    double u2 = (double)b * 0x1p-53;         /* [0, 1) */
    double r = sqrt(-2.0 * log(u1));
    double th = 2.0 * M_PI * u2;
    *z0 = (float)(r * cos(th));
    *z1 = (float)(r * sin(th));
}

float xc_synth_noise(uint64_t seed, uint64_t sample, int chan)
{
    float z0, z1;
    noise_pair(seed, sample, (uint32_t)chan >> 1, &z0, &z1);
    return (chan & 1) ? z1 : z0;
}

void xc_synth_noise_spectrum(uint64_t seed, uint64_t sample, int nchans, float *out)
{
    int c = 0;
    for (; c + 1 < nchans; c += 2)
        noise_pair(seed, sample, (uint32_t)c >> 1, &out[c], &out[c + 1]);
    if (c < nchans) {
        float spare;
        noise_pair(seed, sample, (uint32_t)c >> 1, &out[c], &spare);
    }
}

uint16_t xc_synth_quantise(float x, int nbits)
{
    /* fake's float2one sets a bit when its 4-bit level is > 0, i.e. x > -3.73
     * sigma, so its 1-bit files are almost all ones; the sign is what a 1-bit
     * digitiser records. */
    if (nbits <= 1)
        return x > 0.0f ? 1 : 0;
    /* fake also widens [min, max] to [min, max*snr] when the per-channel snr
     * exceeds 1, which makes the noise level depend on the signal; we keep the
     * range fixed so the noise statistics never change. */
    const double top = (double)((1u << nbits) - 1u);
    double v = rint(((double)x - XC_SYNTH_QMIN) * top / (XC_SYNTH_QMAX - XC_SYNTH_QMIN));
    if (!(v > 0.0))  /* also catches NaN */
        return 0;
    if (v > top)
        return (uint16_t)top;
    return (uint16_t)v;
}
