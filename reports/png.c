/* A minimal PNG encoder for heatmaps: 8-bit RGB, no filtering, deflate "stored"
 * blocks (no compression).  Uncompressed keeps it short and exactly
 * reproducible; a 200 x 150 heatmap is 90 kB before base64. */
#include "reports/xc_report.h"

#include <stdlib.h>
#include <string.h>

static uint32_t crc32_update(uint32_t crc, const uint8_t *p, size_t n)
{
    crc = ~crc;
    for (size_t i = 0; i < n; i++) {
        crc ^= p[i];
        for (int k = 0; k < 8; k++)
            crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
    }
    return ~crc;
}

static void be32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

/* Writes one chunk at out (length, type, data, CRC); returns its size. */
static size_t chunk(uint8_t *out, const char *type, const uint8_t *data, size_t n)
{
    be32(out, (uint32_t)n);
    memcpy(out + 4, type, 4);
    if (n)
        memcpy(out + 8, data, n);
    be32(out + 8 + n, crc32_update(0, out + 4, n + 4));
    return n + 12;
}

static xc_status base64(xc_text *out, const uint8_t *p, size_t n)
{
    static const char tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    char q[5] = {0};
    for (size_t i = 0; i < n; i += 3) {
        uint32_t v = (uint32_t)p[i] << 16;
        if (i + 1 < n)
            v |= (uint32_t)p[i + 1] << 8;
        if (i + 2 < n)
            v |= p[i + 2];
        q[0] = tab[(v >> 18) & 63];
        q[1] = tab[(v >> 12) & 63];
        q[2] = i + 1 < n ? tab[(v >> 6) & 63] : '=';
        q[3] = i + 2 < n ? tab[v & 63] : '=';
        if (xc_text_put(out, q))
            return XC_ENOMEM;
    }
    return XC_OK;
}

xc_status xc_png_base64(xc_text *out, const uint8_t *rgb, size_t w, size_t h, xc_error *err)
{
    if (!rgb || w == 0 || h == 0 || w > 65535 || h > 65535)
        return xc_error_set(err, XC_EINVAL, "PNG: image size %zu x %zu is empty or too large", w, h);
    size_t raw = h * (1 + 3 * w);                 /* a filter byte (0) before each row */
    size_t nblocks = (raw + 65534) / 65535;
    size_t zlen = 2 + raw + 5 * nblocks + 4;
    size_t total = 8 + (13 + 12) + (zlen + 12) + 12;
    uint8_t *png = malloc(total), *z = malloc(zlen);
    if (!png || !z) {
        free(png);
        free(z);
        return xc_error_set(err, XC_ENOMEM, "PNG: out of memory for %zu x %zu", w, h);
    }

    size_t zp = 0, done = 0;
    uint32_t a = 1, b = 0;                        /* Adler-32 of the raw bytes */
    z[zp++] = 0x78;                               /* zlib: deflate, 32K window */
    z[zp++] = 0x01;                               /* FCHECK making 0x7801 % 31 == 0 */
    for (size_t y = 0; y < h; y++)
        for (size_t i = 0; i < 1 + 3 * w; i++) {
            if (done % 65535 == 0) {
                size_t len = raw - done < 65535 ? raw - done : 65535;
                z[zp++] = done + len == raw ? 1 : 0;   /* BFINAL, BTYPE 00 */
                z[zp++] = (uint8_t)len;
                z[zp++] = (uint8_t)(len >> 8);
                z[zp++] = (uint8_t)~len;
                z[zp++] = (uint8_t)(~len >> 8);
            }
            uint8_t v = i == 0 ? 0 : rgb[3 * y * w + (i - 1)];
            z[zp++] = v;
            a = (a + v) % 65521u;
            b = (b + a) % 65521u;
            done++;
        }
    be32(z + zp, (b << 16) | a);
    zp += 4;

    static const uint8_t sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    uint8_t ihdr[13];
    be32(ihdr, (uint32_t)w);
    be32(ihdr + 4, (uint32_t)h);
    ihdr[8] = 8;      /* bit depth */
    ihdr[9] = 2;      /* RGB */
    ihdr[10] = ihdr[11] = ihdr[12] = 0;
    size_t n = 0;
    memcpy(png, sig, 8);
    n += 8;
    n += chunk(png + n, "IHDR", ihdr, 13);
    n += chunk(png + n, "IDAT", z, zp);
    n += chunk(png + n, "IEND", NULL, 0);
    xc_status st = base64(out, png, n);
    free(png);
    free(z);
    if (st)
        return xc_error_set(err, XC_ENOMEM, "PNG: out of memory");
    return XC_OK;
}
