/* Peer bugs confirmed by reading their sources (docs/PEERS.md), planted as
 * cases the suite's checks must fail: each is a copy of the peer's faulty
 * code (or of ours with the peer's fault put in), run on the suite's own
 * input beside the correct code, which must pass the same check.
 *  - SIGPROC fake's 1-bit output (src/scaledata.c float2one): it quantises
 *    to 4 bits and sets a bit for every level above 0, so a one unless the
 *    value is below -4 + 0.5 * 8/15 sigma: 99.99 % ones.
 *  - Pulscan GPU's boxcar loop (pulscan_gpu.cu boxcarFilterArray): `if (z =
 *    targetZ)` assigns, so the loop runs 9 times and a "width" sums 10
 *    scattered bins instead of z + 1 contiguous ones. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "synth/model/xc_synth.h"
#include "tests/xc_test.h"

/* The suite's 1-bit noise check (as test_synth's onebit_half_set): the
 * fraction of ones within 5 standard errors of 1/2.  1 when it passes. */
static int onebit_half_set(const uint16_t *v, size_t n, double *frac)
{
    double set = 0;
    for (size_t i = 0; i < n; i++)
        set += v[i];
    *frac = set / (double)n;
    return fabs(*frac - 0.5) < 5 * 0.5 / sqrt((double)n);
}

/* fake's float2one on one value: float2int(f, n, 4, -4, 4) then
 * charof8ints's `i > 0`. */
static uint16_t fake_float2one(float x)
{
    const float mn = -4, mx = 4, imax = 15;
    x = x > mx ? mx : x;
    const int level = x < mn ? 0 : (int)rint((x - mn) * imax / (mx - mn));
    return level > 0;
}

XC_TEST(test_fake_onebit, "planted: SIGPROC fake's 1-bit quantiser fails the 1-bit noise check; ours passes")
{
    const size_t nsamp = 65536, nchans = 64, n = nsamp * nchans;
    uint16_t *ours = malloc(n * sizeof *ours), *fake = malloc(n * sizeof *fake);
    CU_ASSERT_PTR_NOT_NULL_FATAL(ours);
    CU_ASSERT_PTR_NOT_NULL_FATAL(fake);
    for (size_t i = 0; i < nsamp; i++)
        for (size_t c = 0; c < nchans; c++) {
            const float x = xc_synth_noise(7, i, (int)c);
            ours[i * nchans + c] = xc_synth_quantise(x, 1);
            fake[i * nchans + c] = fake_float2one(x);
        }
    double fo, ff;
    const int po = onebit_half_set(ours, n, &fo), pf = onebit_half_set(fake, n, &ff);
    printf("\n  ones: ours %.5f, fake's quantiser %.5f (expected 0.5 within %.5f)", fo, ff, 5 * 0.5 / sqrt((double)n));
    CU_ASSERT(po);
    CU_ASSERT(!pf);
    /* the fault's own signature: a zero only below -3.733 sigma, P = 9.5e-5
     * (5 binomial standard deviations: 25 % of it at this n) */
    XC_ASSERT_NEAR(1 - ff, 0.5 * erfc(3.7333333 / sqrt(2)), 5 * sqrt(9.5e-5 / (double)n));
    free(ours);
    free(fake);
}

/* Boxcar sums of Pulscan's definition: sum of lookup[i .. i+z] for the
 * widths z = 1, 2, 4, ..., 128 into out[0..8). */
static void boxcar_contiguous(const float *lookup, int i, float out[8])
{
    float sum = 0;
    int k = 0;
    for (int z = 0; z <= 128; z++) {
        sum += lookup[i + z];
        if (z == 1 << k)
            out[k++] = sum;
    }
}

/* Pulscan GPU's loop as written (the assignment in the condition, which the
 * doubled parentheses keep from a warning): the sum starts at lookup[i]
 * and z jumps as the assignment moves it. */
static int boxcar_pulscan_gpu(const float *lookup, int i, float out[9])
{
    float sum = lookup[i];
    int targetZ = 1, n = 0;
    for (int z = 0; z < 256; z++) {
        sum += lookup[i + z];
        if ((z = targetZ)) {
            if (n < 9)
                out[n++] = sum;
            targetZ *= 2;
        }
    }
    return n;
}

XC_TEST(test_pulscan_gpu_boxcar_loop, "planted: Pulscan GPU's boxcar loop sums 10 scattered bins; the check fails it")
{
    /* a spectrum of distinct powers, so that each bin a sum takes shows */
    float lookup[512];
    for (int j = 0; j < 512; j++)
        lookup[j] = (float)(1 + j % 97) + 0.001f * (float)j;
    float want[8], got[9];
    boxcar_contiguous(lookup, 10, want);
    const int n = boxcar_pulscan_gpu(lookup, 10, got);
    /* the loop's body runs at z = 0, 2, 3, 5, 9, 17, 33, 65, 129 */
    XC_ASSERT_NEAR(n, 9, 0);
    /* its last sum holds bin i twice and the 8 bins i + 2, 3, 5, 9, 17, 33,
     * 65, 129: float sums of 10 values of at most 98, exact to 1e-3 */
    const int off[] = {0, 0, 2, 3, 5, 9, 17, 33, 65, 129};
    double sparse = 0;
    for (int j = 0; j < 10; j++)
        sparse += lookup[10 + off[j]];
    XC_ASSERT_NEAR(got[8], sparse, 1e-3);
    /* the check: each width's sum equals the contiguous one within float
     * round-off (129 values of at most 98: 1e-2); the loop fails at every
     * width it reports */
    int agree = 0;
    for (int k = 0; k < 8; k++)
        agree += fabs((double)got[k] - (double)want[k]) <= 1e-2;
    printf("\n  width 128: contiguous %.3f, Pulscan GPU's loop %.3f; %d of 8 widths agree", want[7], got[7], agree);
    XC_ASSERT_NEAR(agree, 0, 0);
}

XC_TEST_MAIN("peer_bugs")
