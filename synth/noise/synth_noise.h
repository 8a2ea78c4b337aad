/* synth_noise.h: the noise generator's streams, shared by the synth sources (not installed API). */
#ifndef XC_SYNTH_NOISE_H
#define XC_SYNTH_NOISE_H

#include <stddef.h>
#include <stdint.h>

/* Philox counter word 3: independent streams drawn from one seed. */
enum {
    XC_STREAM_NOISE = 0,
    XC_STREAM_DEDISP = 1,
    XC_STREAM_DRAW = 2,
    XC_STREAM_SEED = 3,
    XC_STREAM_LEVEL = 4,
    XC_STREAM_TIE = 5
};

/* Four uniform 32-bit words of stream `stream` at counter (a, b, c). */
void xc_synth_words(uint64_t seed, uint32_t stream, uint64_t a, uint32_t c, uint32_t out[4]);
/* N(0,1) values of stream `stream`: the same generator as the noise. */
void xc_synth_gauss_stream(uint64_t seed, uint32_t stream, uint64_t sample, uint32_t first_block,
                           size_t nblocks, float *out);

/* The words of blocks first_block.. of counter (sample, stream) in channel
 * order: block j's four words at out[4j..4j+3] (xc_synth_words of each). */
void xc_synth_words_blocks(uint64_t seed, uint32_t stream, uint64_t sample, uint32_t first_block, size_t nblocks,
                           uint32_t *out);
/* Word 0 of the n counters (a[j], c[j]) of stream `stream` (xc_synth_words of each). */
void xc_synth_words_at(uint64_t seed, uint32_t stream, const uint64_t *a, const uint32_t *c, size_t n, uint32_t *w0);
/* The N(0,1) values of the n counters (a[j], blocks[j]) of stream `stream`
 * (each as xc_synth_gauss_stream gives it): out[4j..4j+3]. */
void xc_synth_gauss_at(uint64_t seed, uint32_t stream, const uint64_t *a, const uint32_t *blocks, size_t n,
                       float *out);
/* The N(0,1) values of the n listed blocks (each as xc_synth_gauss_stream
 * gives it): block blocks[j]'s four values at out[4j..4j+3]. */
void xc_synth_gauss_list(uint64_t seed, uint32_t stream, uint64_t sample, const uint32_t *blocks, size_t n,
                         float *out);

/* The N(0,1) values of the n counters (a[j], blocks[j]) of stream `stream`
 * (xc_synth_gauss_at's values) as four planes: value k of block j at z[k][j]. */
void xc_synth_gauss_planes(uint64_t seed, uint32_t stream, const uint64_t *a, const uint32_t *blocks, size_t n,
                           float *const z[4]);

#endif
