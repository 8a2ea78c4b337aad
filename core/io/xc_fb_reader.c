/* xc_fb_reader.c: streaming filterbank reader.  Data are fetched by absolute
 * 64-bit byte offset (pread), a bounded chunk at a time into one reusable
 * buffer, so files of any size and any spectrum range cost the same memory. */
/* 64-bit off_t for pread/ftello on 32-bit hosts too. */
#define _FILE_OFFSET_BITS 64
#include "core/base/xc_nbits.h"
#include "core/io/xc_filterbank.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Upper bound on one read; a single spectrum larger than this is read alone. */
#define XC_FB_CHUNK_BYTES ((size_t)8 << 20)

struct xc_fbreader {
    FILE *fp;
    char path[4096];
    xc_fbheader h;
    xc_fbopts opts;
    uint64_t bps;           /* bytes per spectrum, all IFs */
    size_t chunk;           /* spectra per read */
    uint8_t *buf;           /* chunk * bps bytes */
    uint16_t *spec;         /* one unpacked spectrum (all IFs); integer data only */
    char warning[1200];
};

xc_status xc_fbreader_open(xc_fbreader **out, const char *path, const xc_fbopts *opts,
                           xc_error *err)
{
    *out = NULL;
    xc_fbreader *r = calloc(1, sizeof *r);
    if (!r)
        return xc_error_set(err, XC_ENOMEM, "%s: cannot allocate a reader", path);
    if (opts)
        r->opts = *opts;
    snprintf(r->path, sizeof r->path, "%s", path);
    xc_status st = XC_OK;
    struct stat sb;
    r->fp = fopen(path, "rb");
    if (!r->fp) {
        st = xc_error_set(err, XC_EIO, "%s: cannot open: %s", path, strerror(errno));
        goto fail;
    }
    if ((st = xc_fbheader_read(&r->h, r->fp, path, err)))
        goto fail;
    if (fstat(fileno(r->fp), &sb) != 0) {
        st = xc_error_set(err, XC_EIO, "%s: cannot stat: %s", path, strerror(errno));
        goto fail;
    }
    r->bps = xc_fbheader_bytes_per_spectrum(&r->h);
    uint64_t size = (uint64_t)sb.st_size, hb = r->h.header_bytes;
    uint64_t data = size > hb ? size - hb : 0;
    if (data % r->bps) {
        st = xc_error_set(err, XC_EFORMAT,
                          "%s: data: truncated data: %llu bytes after the header (byte %llu) are "
                          "not a whole number of %llu-byte spectra: %llu bytes left over",
                          path, (unsigned long long)data, (unsigned long long)hb,
                          (unsigned long long)r->bps, (unsigned long long)(data % r->bps));
        goto fail;
    }
    r->h.nsamp = data / r->bps;
    /* at least one spectrum: only the data confirm nchans x nifs, which the
     * commands size delay tables and buffers by (a 100-byte header-only file
     * claiming 2^31 channels made `plan` allocate 8 GB) */
    if (r->h.nsamp == 0) {
        st = xc_error_set(err, XC_EFORMAT,
                          "%s: data: no spectra after the header (byte %llu); %d channels x %d IFs x %d bits "
                          "need %llu bytes each",
                          path, (unsigned long long)hb, (int)r->h.nchans, (int)r->h.nifs, (int)r->h.nbits,
                          (unsigned long long)r->bps);
        goto fail;
    }
    if (r->h.present[XC_FB_NSAMPLES] && (uint64_t)(int64_t)r->h.nsamples != r->h.nsamp)
        snprintf(r->warning, sizeof r->warning,
                 "%s: nsamples: header says %d, file size gives %llu; using %llu", path,
                 (int)r->h.nsamples, (unsigned long long)r->h.nsamp,
                 (unsigned long long)r->h.nsamp);
    r->chunk = r->bps >= XC_FB_CHUNK_BYTES ? 1 : (size_t)(XC_FB_CHUNK_BYTES / r->bps);
    *out = r;
    return XC_OK;
fail:
    xc_fbreader_close(r);
    return st;
}

const xc_fbheader *xc_fbreader_header(const xc_fbreader *r)
{
    return &r->h;
}

const char *xc_fbreader_warning(const xc_fbreader *r)
{
    return r->warning;
}

void xc_fbreader_close(xc_fbreader *r)
{
    if (!r)
        return;
    if (r->fp)
        fclose(r->fp);
    xc_fbheader_free(&r->h);
    free(r->buf);
    free(r->spec);
    free(r);
}

static xc_status pread_full(xc_fbreader *r, uint8_t *dst, size_t n, uint64_t off, xc_error *err)
{
    int fd = fileno(r->fp);
    size_t done = 0;
    while (done < n) {
        ssize_t got = pread(fd, dst + done, n - done, (off_t)(off + done));
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0)
            return xc_error_set(err, XC_EIO, "%s: read failed at byte %llu: %s", r->path,
                                (unsigned long long)(off + done), strerror(errno));
        if (got == 0)
            return xc_error_set(err, XC_EIO, "%s: data: file shrank: end of file at byte %llu",
                                r->path, (unsigned long long)(off + done));
        done += (size_t)got;
    }
    return XC_OK;
}

static float le_f32(const uint8_t *b)
{
    uint32_t u = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 |
                 (uint32_t)b[3] << 24;
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

static xc_status check_range(const xc_fbreader *r, uint64_t first, size_t n, int ifno,
                             xc_error *err)
{
    if (ifno < 0 || ifno >= r->h.nifs)
        return xc_error_set(err, XC_EINVAL, "%s: nifs: IF %d requested, the file has %d", r->path,
                            ifno, (int)r->h.nifs);
    if (first > r->h.nsamp || (uint64_t)n > r->h.nsamp - first)
        return xc_error_set(err, XC_EINVAL,
                            "%s: nsamp: %zu spectra from spectrum %llu requested, the file has "
                            "%llu",
                            r->path, n, (unsigned long long)first, (unsigned long long)r->h.nsamp);
    return XC_OK;
}

static xc_status ensure_buffers(xc_fbreader *r, xc_error *err)
{
    if (!r->buf) {
        r->buf = malloc(r->chunk * (size_t)r->bps);
        if (!r->buf)
            return xc_error_set(err, XC_ENOMEM, "%s: cannot allocate %llu bytes to read into",
                                r->path, (unsigned long long)(r->chunk * r->bps));
    }
    if (!r->spec && !xc_nbits_is_float(r->h.nbits)) {
        r->spec = malloc((size_t)r->h.nifs * (size_t)r->h.nchans * sizeof *r->spec);
        if (!r->spec)
            return xc_error_set(err, XC_ENOMEM, "%s: cannot allocate one spectrum", r->path);
    }
    return XC_OK;
}

/* Unpacks IF `ifno` of one spectrum into r->spec and returns where its values
 * start.  An IF whose first bit is not on a byte boundary (sub-byte data,
 * nchans*nbits not a multiple of 8) needs the whole spectrum unpacked. */
static const uint16_t *if_values(xc_fbreader *r, const uint8_t *sp, int ifno)
{
    const xc_fbheader *h = &r->h;
    const size_t nch = (size_t)h->nchans;
    uint64_t bit0 = (uint64_t)ifno * nch * (uint64_t)h->nbits;
    if (bit0 % 8 == 0) {
        xc_fb_unpack_u16(sp + bit0 / 8, nch, h->nbits, r->opts.bitorder, r->spec);
        return r->spec;
    }
    xc_fb_unpack_u16(sp, (size_t)h->nifs * nch, h->nbits, r->opts.bitorder, r->spec);
    return r->spec + (size_t)ifno * nch;
}

/* The one loop both public reads share: exactly one of out16/out32 is set. */
static xc_status read_spectra(xc_fbreader *r, uint64_t first, size_t n, int ifno,
                              uint16_t *out16, float *out32, xc_error *err)
{
    xc_status st = check_range(r, first, n, ifno, err);
    if (st)
        return st;
    if (n == 0)
        return XC_OK;
    if ((st = ensure_buffers(r, err)))
        return st;
    const size_t nch = (size_t)r->h.nchans;
    size_t done = 0;
    while (done < n) {
        size_t m = n - done < r->chunk ? n - done : r->chunk;
        uint64_t off = r->h.header_bytes + (first + done) * r->bps;
        if ((st = pread_full(r, r->buf, m * (size_t)r->bps, off, err)))
            return st;
        for (size_t s = 0; s < m; s++) {
            const uint8_t *sp = r->buf + s * (size_t)r->bps;
            size_t o = (done + s) * nch;
            if (out16) {
                memcpy(out16 + o, if_values(r, sp, ifno), nch * sizeof *out16);
            } else if (xc_nbits_is_float(r->h.nbits)) {
                const uint8_t *p = sp + (size_t)ifno * nch * 4;
                for (size_t c = 0; c < nch; c++)
                    out32[o + c] = le_f32(p + 4 * c);
            } else {
                const uint16_t *v = if_values(r, sp, ifno);
                for (size_t c = 0; c < nch; c++)
                    out32[o + c] = (float)v[c];
            }
        }
        done += m;
    }
    return XC_OK;
}

xc_status xc_fbreader_read_u16(xc_fbreader *r, uint64_t first, size_t n, int ifno,
                               uint16_t *out, xc_error *err)
{
    if (xc_nbits_is_float(r->h.nbits))
        return xc_error_set(err, XC_EINVAL,
                            "%s: nbits: 32 (float) data cannot be read as 16-bit integers; use "
                            "the float read",
                            r->path);
    return read_spectra(r, first, n, ifno, out, NULL, err);
}

xc_status xc_fbreader_read_f32(xc_fbreader *r, uint64_t first, size_t n, int ifno, float *out,
                               xc_error *err)
{
    return read_spectra(r, first, n, ifno, NULL, out, err);
}
