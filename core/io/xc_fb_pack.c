/* xc_fb_pack.c: packing and unpacking of filterbank samples.
 * Sub-byte samples: with XC_BITORDER_LSB sample k of a byte sits at bits
 * [k*nbits, (k+1)*nbits) (SIGPROC pack_unpack.c, `byte = (s1<<4) + s0`);
 * XC_BITORDER_MSB mirrors that.  16-bit samples are little-endian. */
#include "core/io/xc_filterbank.h"

#include <string.h>

static unsigned shift_of(int k, int nbits, xc_bitorder order)
{
    return order == XC_BITORDER_LSB ? (unsigned)(k * nbits) : (unsigned)(8 - (k + 1) * nbits);
}

/* Samples per byte of a sub-byte width (1, 2 or 4 bits); 0 for any other. */
static int per_byte(int nbits)
{
    return nbits == 1 || nbits == 2 || nbits == 4 ? 8 / nbits : 0;
}

void xc_fb_unpack_u16(const uint8_t *in, size_t nvals, int nbits, xc_bitorder order, uint16_t *out)
{
    if (nbits == 8) {
        for (size_t i = 0; i < nvals; i++)
            out[i] = in[i];
        return;
    }
    if (nbits == 16) {
        for (size_t i = 0; i < nvals; i++)
            out[i] = (uint16_t)(in[2 * i] | in[2 * i + 1] << 8);
        return;
    }
    const int per = per_byte(nbits);
    if (!per)
        return;  /* not a packed integer width: out is left untouched */
    const unsigned mask = (1u << nbits) - 1u;
    unsigned sh[8];
    for (int k = 0; k < per; k++)
        sh[k] = shift_of(k, nbits, order);
    size_t full = nvals / (size_t)per, i = 0;
    for (size_t b = 0; b < full; b++) {
        unsigned byte = in[b];
        for (int k = 0; k < per; k++)
            out[i++] = (uint16_t)((byte >> sh[k]) & mask);
    }
    for (int k = 0; i < nvals; k++)
        out[i++] = (uint16_t)((in[full] >> sh[k]) & mask);
}

void xc_fb_pack_u16(const uint16_t *in, size_t nvals, int nbits, xc_bitorder order, uint8_t *out)
{
    if (nbits == 8) {
        for (size_t i = 0; i < nvals; i++)
            out[i] = (uint8_t)in[i];
        return;
    }
    if (nbits == 16) {
        for (size_t i = 0; i < nvals; i++) {
            out[2 * i] = (uint8_t)(in[i] & 0xffu);
            out[2 * i + 1] = (uint8_t)(in[i] >> 8);
        }
        return;
    }
    const int per = per_byte(nbits);
    if (!per)
        return;
    const unsigned mask = (1u << nbits) - 1u;
    size_t nbytes = (nvals + (size_t)per - 1) / (size_t)per;
    memset(out, 0, nbytes);
    for (size_t i = 0; i < nvals; i++) {
        int k = (int)(i % (size_t)per);
        out[i / (size_t)per] |= (uint8_t)((in[i] & mask) << shift_of(k, nbits, order));
    }
}
