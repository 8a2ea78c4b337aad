/* xc_fb_writer.c: whole-file filterbank writer.  The file is built under a
 * temporary name (xc_atomic) so an interrupted run never leaves a .fil that a
 * reader would take for a complete one. */
#include "core/base/xc_nbits.h"
#include "core/io/xc_filterbank.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/xc_atomic.h"

/* Spectra are packed through a bounded buffer, a chunk at a time. */
#define XC_FB_CHUNK_BYTES ((size_t)8 << 20)

struct xc_fbwriter {
    xc_atomic a;
    xc_bitorder order;
    int nbits;
    size_t nvals;           /* values per spectrum, all IFs */
    uint64_t bps;           /* bytes per spectrum */
    size_t chunk;           /* spectra per buffer */
    uint8_t *buf;
    uint16_t *ints;         /* float input converted to integers (chunk * nvals) */
    uint64_t written;       /* spectra written so far, for messages */
};

static xc_status check_header(const xc_fbheader *h, const char *path, xc_error *err)
{
    int nb = h->nbits;
    if (!xc_nbits_valid(nb))
        return xc_error_set(err, XC_EINVAL, "%s: nbits: %d is not one of 1, 2, 4, 8, 16, 32",
                            path, nb);
    if (h->nchans < 1 || h->nifs < 1)
        return xc_error_set(err, XC_EINVAL, "%s: nchans: %d channels x %d IFs: both must be >= 1",
                            path, (int)h->nchans, (int)h->nifs);
    if (!(h->tsamp > 0.0))
        return xc_error_set(err, XC_EINVAL, "%s: tsamp: %g is not positive", path, h->tsamp);
    if (h->present[XC_FB_FREQUENCY_TABLE] && h->nfchannel != h->nchans)
        return xc_error_set(err, XC_EINVAL,
                            "%s: nchans: %d but the FREQUENCY table holds %d values", path,
                            (int)h->nchans, h->nfchannel);
    /* A reader needs these to make sense of the data that follow. */
    static const xc_fbkey needed[] = {XC_FB_NBITS, XC_FB_TSAMP};
    for (size_t i = 0; i < sizeof needed / sizeof needed[0]; i++)
        if (!h->present[needed[i]])
            return xc_error_set(err, XC_EINVAL, "%s: %s: not marked present in the header",
                                path, xc_fbkey_name(needed[i]));
    if (!h->present[XC_FB_NCHANS] && !h->present[XC_FB_FREQUENCY_TABLE])
        return xc_error_set(err, XC_EINVAL, "%s: nchans: not marked present in the header",
                            path);
    if (xc_fbheader_bytes_per_spectrum(h) == 0)
        return xc_error_set(err, XC_EINVAL,
                            "%s: nchans: %d channels x %d IFs x %d bits is not a whole number "
                            "of bytes per spectrum",
                            path, (int)h->nchans, (int)h->nifs, nb);
    return XC_OK;
}

xc_status xc_fbwriter_open(xc_fbwriter **out, const char *path, const xc_fbheader *h,
                           xc_bitorder order, xc_error *err)
{
    *out = NULL;
    xc_status st = check_header(h, path, err);
    if (st)
        return st;
    xc_fbwriter *w = calloc(1, sizeof *w);
    if (!w)
        return xc_error_set(err, XC_ENOMEM, "%s: cannot allocate a writer", path);
    w->order = order;
    w->nbits = h->nbits;
    w->nvals = (size_t)h->nchans * (size_t)h->nifs;
    w->bps = xc_fbheader_bytes_per_spectrum(h);
    w->chunk = w->bps >= XC_FB_CHUNK_BYTES ? 1 : (size_t)(XC_FB_CHUNK_BYTES / w->bps);
    w->buf = malloc(w->chunk * (size_t)w->bps);
    if (!w->buf) {
        free(w);
        return xc_error_set(err, XC_ENOMEM, "%s: cannot allocate the write buffer", path);
    }
    if ((st = xc_atomic_open(&w->a, path, 0, err))) {
        free(w->buf);
        free(w);
        return st;
    }
    if ((st = xc_fbheader_write(h, w->a.fp, path, err))) {
        xc_fbwriter_abort(w);
        return st;
    }
    *out = w;
    return XC_OK;
}

static xc_status flush(xc_fbwriter *w, size_t m, xc_error *err)
{
    size_t n = m * (size_t)w->bps;
    if (fwrite(w->buf, 1, n, w->a.fp) != n)
        return xc_error_set(err, XC_EIO, "%s: write failed after %llu spectra: %s", w->a.path,
                            (unsigned long long)w->written, strerror(errno));
    w->written += m;
    return XC_OK;
}

/* idx counts values from the first spectrum not yet written. */
static xc_status out_of_range(const xc_fbwriter *w, size_t idx, double v, xc_error *err)
{
    uint64_t s = w->written + idx / w->nvals;
    return xc_error_set(err, XC_EINVAL,
                        "%s: nbits: value %g at spectrum %llu, value %zu of the spectrum is not "
                        "an integer in 0..%lu",
                        w->a.path, v, (unsigned long long)s, idx % w->nvals,
                        (1ul << w->nbits) - 1ul);
}

static void put_f32(uint8_t *b, float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    for (int i = 0; i < 4; i++)
        b[i] = (uint8_t)(u >> (8 * i));
}

/* nv values into w->buf as the file stores them. */
static xc_status pack_u16(xc_fbwriter *w, const uint16_t *in, size_t nv, xc_error *err)
{
    if (xc_nbits_is_float(w->nbits)) {
        for (size_t i = 0; i < nv; i++)
            put_f32(w->buf + 4 * i, (float)in[i]);
        return XC_OK;
    }
    if (w->nbits < 16) {
        for (size_t i = 0; i < nv; i++)
            if (in[i] >> w->nbits)
                return out_of_range(w, i, in[i], err);
    }
    xc_fb_pack_u16(in, nv, w->nbits, w->order, w->buf);
    return XC_OK;
}

static xc_status pack_f32(xc_fbwriter *w, const float *in, size_t nv, xc_error *err)
{
    if (xc_nbits_is_float(w->nbits)) {
        for (size_t i = 0; i < nv; i++)
            put_f32(w->buf + 4 * i, in[i]);
        return XC_OK;
    }
    /* Integer files take only values they hold exactly; rounding is the caller's
     * decision (SIGPROC fake rounds, others clip), not the writer's. */
    const double top = (double)((1ul << w->nbits) - 1ul);
    for (size_t i = 0; i < nv; i++) {
        double v = in[i];
        if (!(v >= 0.0 && v <= top && v == floor(v)))
            return out_of_range(w, i, v, err);
        w->ints[i] = (uint16_t)v;
    }
    xc_fb_pack_u16(w->ints, nv, w->nbits, w->order, w->buf);
    return XC_OK;
}

/* n spectra of integers (u16) or of floats (f32; the other NULL), a chunk at a time. */
static xc_status write_spectra(xc_fbwriter *w, const uint16_t *u16, const float *f32, size_t n, xc_error *err)
{
    for (size_t done = 0; done < n;) {
        size_t m = n - done < w->chunk ? n - done : w->chunk;
        size_t at = done * w->nvals, nv = m * w->nvals;
        xc_status st = u16 ? pack_u16(w, u16 + at, nv, err) : pack_f32(w, f32 + at, nv, err);
        if (!st)
            st = flush(w, m, err);
        if (st)
            return st;
        done += m;
    }
    return XC_OK;
}

xc_status xc_fbwriter_write_u16(xc_fbwriter *w, const uint16_t *spectra, size_t n, xc_error *err)
{
    return write_spectra(w, spectra, NULL, n, err);
}

xc_status xc_fbwriter_write_f32(xc_fbwriter *w, const float *spectra, size_t n, xc_error *err)
{
    if (!xc_nbits_is_float(w->nbits) && !w->ints) {
        w->ints = malloc(w->chunk * w->nvals * sizeof *w->ints);
        if (!w->ints)
            return xc_error_set(err, XC_ENOMEM, "%s: cannot allocate the conversion buffer",
                                w->a.path);
    }
    return write_spectra(w, NULL, spectra, n, err);
}

static void destroy(xc_fbwriter *w)
{
    free(w->buf);
    free(w->ints);
    free(w);
}

/* Always releases w, whether or not the rename succeeds. */
xc_status xc_fbwriter_commit(xc_fbwriter *w, xc_error *err)
{
    xc_status st = xc_atomic_commit(&w->a, err);
    destroy(w);
    return st;
}

void xc_fbwriter_abort(xc_fbwriter *w)
{
    if (!w)
        return;
    xc_atomic_abort(&w->a);
    destroy(w);
}
