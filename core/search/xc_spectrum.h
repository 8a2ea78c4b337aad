/* xc_spectrum.h: the input every periodicity search reads (the Pulscan
 * boxcar search, core/search/xc_search.h, and the matched-filter accel
 * search, core/search/xc_accel.h): a spectrum in PRESTO's .fft layout. */
#ifndef XC_SPECTRUM_H
#define XC_SPECTRUM_H

#include <stddef.h>

#include "core/base/xc_error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What a device searcher derives from a spectrum's device copy (dev below)
 * and keeps for the later searches of the same values: a study worker's
 * GPU Pulscan searches of one pulsar (16 configurations and the baseline)
 * normalise it once (optimized/gpu/pulscan_gpu.cu).  The spectrum's owner
 * adds 1 to gen whenever dev's values change, and frees state with
 * state_free; state is the searcher's own.  One user at a time (a worker's
 * searches run one after another). */
typedef struct xc_devshare {
    unsigned long long gen;
    void *state;
    void (*state_free)(void *state);
} xc_devshare;

/* A spectrum in PRESTO's .fft layout: nbins complex float32 (re, im), bin 0
 * holding (DC, Nyquist); T = N*dt with N = 2*nbins time samples. */
typedef struct {
    float *data;           /* 2*nbins floats */
    size_t nbins;
    double dt, T;
    int owned;             /* data is freed by xc_spectrum_free */
    /* NULL, or the same 2*nbins floats in the device memory of the
     * device searchers (a study's device transform, optimized/gpu/
     * realfft_gpu.cu): a device searcher may read them there instead of
     * uploading data.  Never owned; a spectrum derived from this one
     * (dereddened, a copy with other data) must not carry it. */
    const float *dev;
    /* NULL, or values derived from dev kept for the next search of it
     * (above); only with dev, and dropped with it. */
    xc_devshare *share;
} xc_spectrum;

/* The largest spectrum the searches take: 2^31 - 1 complex bins (a 16 GiB
 * .fft).  Every index is 64-bit on the host, but the GPU searchers' are not
 * all checked beyond it, and the whole spectrum is held in memory: larger
 * spectra are refused before anything is read. */
#define XC_SPECTRUM_MAX_BINS 2147483647LL

/* Reads X.fft (through xc_fft_read, the one .fft reader) and the X.inf beside
 * it (the path must end in .fft).  XC_EFORMAT
 * if the .fft does not hold exactly the N float32 the .inf states, or N is odd;
 * XC_EINVAL beyond XC_SPECTRUM_MAX_BINS bins (core/search/spectrum/xc_spectrum.c). */
xc_status xc_spectrum_load(xc_spectrum *sp, const char *fftpath, xc_error *err);
void xc_spectrum_free(xc_spectrum *sp);

/* Normalisation blocks over bins 1..nbins-1 (bin 0 packs DC and Nyquist):
 * blocks of normwidth bins, a remainder shorter than a block joining the last
 * full block (nbins - 1 < normwidth gives one block).  The Pulscan search's
 * layout (core/search/xc_search.h, step 1), which the accel search's preset
 * exact uses too: how many blocks, and the bins [*lo, *hi) of block b. */
static inline size_t xc_pulscan_nblocks(size_t nbins, size_t normwidth)
{
    size_t nd = nbins > 1 ? nbins - 1 : 0;
    size_t nb = nd / normwidth;
    return nb ? nb : 1;
}

static inline void xc_pulscan_block(size_t nbins, size_t normwidth, size_t b, size_t *lo, size_t *hi)
{
    size_t nb = xc_pulscan_nblocks(nbins, normwidth);
    *lo = 1 + b * normwidth;
    *hi = b + 1 == nb ? nbins : *lo + normwidth;
}

#ifdef __cplusplus
}
#endif
#endif
