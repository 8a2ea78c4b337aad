/* xc_filterbank.c: the SIGPROC header in memory and read from a file,
 * keyword by keyword through the table of core/io/xc_fb_keys.c. */
/* 64-bit off_t for pread/ftello on 32-bit hosts too. */
#define _FILE_OFFSET_BITS 64
#include "core/base/xc_nbits.h"
#include "core/io/xc_filterbank.h"
#include "core/io/xc_fb_keys.h"
#include "core/base/xc_grow.h"

#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

void xc_fbheader_init(xc_fbheader *h)
{
    memset(h, 0, sizeof *h);
    /* SIGPROC fake's defaults (src/fake.c), so a synthesizer that sets only
     * what it changes writes what fake would. */
    h->nchans = 128;
    h->nbits = 4;
    h->nifs = 1;
    h->tstart = 50000.0;
    h->tsamp = 80.0e-6;
    h->fch1 = 433.968;
    h->foff = -0.062;
    h->data_type = 1;
    h->nbeams = 1;
}

void xc_fbheader_free(xc_fbheader *h)
{
    if (!h)
        return;
    XC_GROW_FREE(h->fchannel, h->nfchannel);
}

xc_status xc_fbheader_copy(xc_fbheader *dst, const xc_fbheader *src, xc_error *err)
{
    double *t = NULL;
    if (src->fchannel && src->nfchannel > 0) {
        t = malloc((size_t)src->nfchannel * sizeof *t);
        if (!t)
            return xc_error_set(err, XC_ENOMEM, "frequency table: cannot allocate %d values",
                                src->nfchannel);
        memcpy(t, src->fchannel, (size_t)src->nfchannel * sizeof *t);
    }
    *dst = *src;
    dst->fchannel = t;
    if (!t)
        dst->nfchannel = 0;
    return XC_OK;
}

void xc_fbheader_set(xc_fbheader *h, xc_fbkey k)
{
    if ((int)k < 0 || k >= XC_FB_NKEYS)
        return;
    if (!h->present[k] && h->norder < XC_FB_NKEYS)
        h->order[h->norder++] = (int)k;
    h->present[k] = 1;
}

void xc_fbheader_tim(xc_fbheader *h, double refdm)
{
    h->present[XC_FB_FREQUENCY_TABLE] = 0;
    h->present[XC_FB_NSAMPLES] = 0;
    h->nchans = 1;
    h->nifs = 1;
    h->nbits = 32;
    h->data_type = 2;
    h->refdm = refdm;
    static const xc_fbkey keys[] = {XC_FB_DATA_TYPE, XC_FB_NCHANS, XC_FB_NIFS, XC_FB_NBITS, XC_FB_REFDM};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        xc_fbheader_set(h, keys[i]);
}

uint64_t xc_fbheader_bytes_per_spectrum(const xc_fbheader *h)
{
    if (h->nchans < 1 || h->nifs < 1 || h->nbits < 1)
        return 0;
    uint64_t bits = (uint64_t)h->nchans * (uint64_t)h->nifs * (uint64_t)h->nbits;
    /* 0 marks a spectrum that would end inside a byte: no valid layout. */
    return bits % 8 ? 0 : bits / 8;
}

double xc_fbheader_freq(const xc_fbheader *h, int c)
{
    if (h->fchannel && c >= 0 && c < h->nfchannel)
        return h->fchannel[c];
    return h->fch1 + (double)c * h->foff;
}

/* ---- reading ------------------------------------------------------------ */

typedef struct {
    FILE *fp;
    const char *path;
    uint64_t pos;         /* bytes consumed since the header's first byte */
    const char *last;     /* last keyword read, for end-of-file messages */
    xc_error *err;
} hreader;

static xc_status take(hreader *r, void *buf, size_t n)
{
    size_t got = fread(buf, 1, n, r->fp);
    if (got == n) {
        r->pos += n;
        return XC_OK;
    }
    if (ferror(r->fp))
        return xc_error_set(r->err, XC_EIO, "%s: read failed at byte %llu: %s", r->path,
                            (unsigned long long)(r->pos + got), strerror(errno));
    return xc_error_set(r->err, XC_EFORMAT,
                        "%s: HEADER_END: missing: end of file at byte %llu inside the header "
                        "(after '%s')",
                        r->path, (unsigned long long)(r->pos + got), r->last);
}

static int32_t le32(const uint8_t *b)
{
    return (int32_t)((uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 |
                     (uint32_t)b[3] << 24);
}

static uint64_t le64(const uint8_t *b)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | b[i];
    return v;
}

static double le_f64(const uint8_t *b)
{
    uint64_t u = le64(b);
    double d;
    memcpy(&d, &u, sizeof d);
    return d;
}

/* A SIGPROC string: int32 length (1..80), then that many bytes, no NUL. */
static xc_status take_string(hreader *r, const char *field, char out[XC_FB_MAXSTR + 1])
{
    uint8_t b[4];
    uint64_t at = r->pos;
    xc_status st = take(r, b, 4);
    if (st)
        return st;
    int32_t len = le32(b);
    if (len < 1 || len > XC_FB_MAXSTR)
        return xc_error_set(r->err, XC_EFORMAT,
                            "%s: %s: string length %d is outside 1..%d (byte %llu)", r->path,
                            field, (int)len, XC_FB_MAXSTR, (unsigned long long)at);
    st = take(r, out, (size_t)len);
    if (st)
        return st;
    out[len] = '\0';
    return XC_OK;
}

static xc_status expect_header_start(hreader *r)
{
    uint8_t b[4];
    char s[XC_FB_MAXSTR + 1];
    size_t got = fread(b, 1, 4, r->fp);
    if (got < 4) {
        if (ferror(r->fp))
            return xc_error_set(r->err, XC_EIO, "%s: read failed at byte 0: %s", r->path,
                                strerror(errno));
        return xc_error_set(r->err, XC_EFORMAT,
                            "%s: HEADER_START: missing: the file holds only %zu bytes (byte 0)",
                            r->path, got);
    }
    r->pos = 4;
    int32_t len = le32(b);
    if (len < 1 || len > XC_FB_MAXSTR)
        return xc_error_set(r->err, XC_EFORMAT,
                            "%s: HEADER_START: missing: the file starts with %d, not a string "
                            "length 1..%d (byte 0)",
                            r->path, (int)len, XC_FB_MAXSTR);
    got = fread(s, 1, (size_t)len, r->fp);
    s[got] = '\0';
    if (got != (size_t)len || strcmp(s, "HEADER_START") != 0)
        return xc_error_set(r->err, XC_EFORMAT,
                            "%s: HEADER_START: missing: the first string is '%s' (byte 0)",
                            r->path, s);
    r->pos += got;
    return XC_OK;
}

static xc_status check_int(hreader *r, int key, int32_t v, uint64_t at)
{
    const char *name = xc_fbkey_name((xc_fbkey)key);
    if (key == XC_FB_NBITS && !xc_nbits_valid(v))
        return xc_error_set(r->err, XC_EFORMAT,
                            "%s: nbits: %d is not one of 1, 2, 4, 8, 16, 32 (byte %llu)", r->path,
                            (int)v, (unsigned long long)at);
    if ((key == XC_FB_NCHANS || key == XC_FB_NIFS) && v < 1)
        return xc_error_set(r->err, XC_EFORMAT, "%s: %s: %d is not at least 1 (byte %llu)",
                            r->path, name, (int)v, (unsigned long long)at);
    return XC_OK;
}

static xc_status add_fchannel(xc_fbheader *h, int *cap, double f, hreader *r)
{
    if (h->nfchannel == *cap) {
        int ncap = *cap ? 2 * *cap : 64;
        double *t = realloc(h->fchannel, (size_t)ncap * sizeof *t);
        if (!t)
            return xc_error_set(r->err, XC_ENOMEM, "%s: fchannel: cannot grow the table to %d",
                                r->path, ncap);
        h->fchannel = t;
        *cap = ncap;
    }
    h->fchannel[h->nfchannel++] = f;
    return XC_OK;
}

/* Checks what needs the whole header: required keywords and the spectrum size. */
static xc_status check_complete(xc_fbheader *h, hreader *r, const uint64_t *vpos)
{
    static const int required[] = {XC_FB_NBITS, XC_FB_TSAMP};
    for (size_t i = 0; i < sizeof required / sizeof required[0]; i++)
        if (!h->present[required[i]])
            return xc_error_set(r->err, XC_EFORMAT,
                                "%s: %s: missing from the header (HEADER_END at byte %llu)",
                                r->path, xc_fbkey_name((xc_fbkey)required[i]),
                                (unsigned long long)r->pos);
    int table = h->present[XC_FB_FREQUENCY_TABLE];
    if (!h->present[XC_FB_NCHANS]) {
        if (!table || h->nfchannel < 1)
            return xc_error_set(r->err, XC_EFORMAT,
                                "%s: nchans: missing from the header and no FREQUENCY table "
                                "(HEADER_END at byte %llu)",
                                r->path, (unsigned long long)r->pos);
        h->nchans = h->nfchannel;
    } else if (table && h->nfchannel != h->nchans) {
        return xc_error_set(r->err, XC_EFORMAT,
                            "%s: nchans: %d but the FREQUENCY table holds %d values (byte %llu)",
                            r->path, (int)h->nchans, h->nfchannel,
                            (unsigned long long)vpos[XC_FB_NCHANS]);
    }
    if (!h->present[XC_FB_NIFS])
        h->nifs = 1;
    /* Guards the 64-bit spectrum size against absurd counts. */
    if ((uint64_t)h->nchans * (uint64_t)h->nifs > ((uint64_t)1 << 40))
        return xc_error_set(r->err, XC_EFORMAT, "%s: nchans: %d channels x %d IFs is too large "
                            "(byte %llu)", r->path, (int)h->nchans, (int)h->nifs,
                            (unsigned long long)vpos[XC_FB_NCHANS]);
    if (xc_fbheader_bytes_per_spectrum(h) == 0)
        return xc_error_set(r->err, XC_EFORMAT,
                            "%s: nchans: %d channels x %d IFs x %d bits is not a whole number of "
                            "bytes per spectrum (byte %llu)",
                            r->path, (int)h->nchans, (int)h->nifs, (int)h->nbits,
                            (unsigned long long)vpos[XC_FB_NCHANS]);
    return XC_OK;
}

/* Reads one keyword's value (the keyword itself has been read). */
static xc_status take_value(hreader *r, xc_fbheader *h, const xc_fbkeyspec *s, int *in_table,
                            int *tcap)
{
    uint8_t b[8];
    uint64_t at = r->pos;
    char *base = (char *)h;
    xc_status st = XC_OK;
    switch (s->type) {
    case VT_INT32: {
        if ((st = take(r, b, 4)))
            return st;
        int32_t v = le32(b);
        if ((st = check_int(r, s->key, v, at)))
            return st;
        memcpy(base + s->offset, &v, sizeof v);
        break;
    }
    case VT_FLOAT64: {
        if ((st = take(r, b, 8)))
            return st;
        double v = le_f64(b);
        if (s->key == XC_FB_TSAMP && !(v > 0.0 && isfinite(v)))
            return xc_error_set(r->err, XC_EFORMAT, "%s: tsamp: %g is not positive (byte %llu)",
                                r->path, v, (unsigned long long)at);
        if ((s->key == XC_FB_FCH1 || s->key == XC_FB_FOFF) && !isfinite(v))
            return xc_error_set(r->err, XC_EFORMAT, "%s: %s: %g is not finite (byte %llu)", r->path, s->name, v,
                                (unsigned long long)at);
        memcpy(base + s->offset, &v, sizeof v);
        break;
    }
    case VT_STRING:
        return take_string(r, s->name, base + s->offset);
    case VT_BYTE: {
        if ((st = take(r, b, 1)))
            return st;
        int8_t v = (int8_t)b[0];
        memcpy(base + s->offset, &v, sizeof v);
        break;
    }
    case VT_INT64: {
        if ((st = take(r, b, 8)))
            return st;
        int64_t v = (int64_t)le64(b);
        memcpy(base + s->offset, &v, sizeof v);
        break;
    }
    case VT_FTABLE_START:
        if (*in_table)
            return xc_error_set(r->err, XC_EFORMAT,
                                "%s: FREQUENCY_START: repeated inside the table (byte %llu)",
                                r->path, (unsigned long long)at);
        *in_table = 1;
        h->nfchannel = 0;   /* a second table replaces the first */
        break;
    case VT_FCHANNEL:
        if ((st = take(r, b, 8)))
            return st;
        if (!*in_table)
            return xc_error_set(r->err, XC_EFORMAT,
                                "%s: fchannel: %g outside FREQUENCY_START..FREQUENCY_END "
                                "(byte %llu)",
                                r->path, le_f64(b), (unsigned long long)at);
        return add_fchannel(h, tcap, le_f64(b), r);
    case VT_FTABLE_END:
        if (!*in_table)
            return xc_error_set(r->err, XC_EFORMAT,
                                "%s: FREQUENCY_END: without FREQUENCY_START (byte %llu)", r->path,
                                (unsigned long long)at);
        *in_table = 0;
        break;
    }
    return XC_OK;
}

xc_status xc_fbheader_read(xc_fbheader *h, FILE *fp, const char *path, xc_error *err)
{
    hreader r = {fp, path, 0, "HEADER_START", err};
    uint64_t vpos[XC_FB_NKEYS] = {0};
    char key[XC_FB_MAXSTR + 1];
    int in_table = 0, tcap = 0;
    xc_fbheader_init(h);
    xc_status st = expect_header_start(&r);
    while (!st) {
        uint64_t kpos = r.pos;
        if ((st = take_string(&r, "keyword", key)))
            break;
        if (strcmp(key, "HEADER_END") == 0)
            break;
        const xc_fbkeyspec *s = xc_fbkey_by_name(key);
        if (!s) {
            st = xc_error_set(err, XC_EFORMAT, "%s: unknown keyword '%s' (byte %llu)", path, key,
                              (unsigned long long)kpos);
            break;
        }
        r.last = s->name;
        if (s->key >= 0)
            vpos[s->key] = r.pos;
        if ((st = take_value(&r, h, s, &in_table, &tcap)))
            break;
        if (s->key >= 0)
            xc_fbheader_set(h, (xc_fbkey)s->key);
    }
    if (!st && in_table)
        st = xc_error_set(err, XC_EFORMAT,
                          "%s: FREQUENCY_END: missing before HEADER_END (byte %llu)", path,
                          (unsigned long long)r.pos);
    if (!st)
        st = check_complete(h, &r, vpos);
    if (st) {
        xc_fbheader_free(h);
        return st;
    }
    h->header_bytes = r.pos;
    h->nsamp = 0;
    /* For a regular file the size gives the sample count (SIGPROC nsamples.c);
     * a pipe leaves it 0 and the caller counts. */
    struct stat sb;
    off_t here = ftello(fp);
    uint64_t bps = xc_fbheader_bytes_per_spectrum(h);
    if (here >= 0 && fstat(fileno(fp), &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_size >= here)
        h->nsamp = (uint64_t)(sb.st_size - here) / bps;
    return XC_OK;
}
