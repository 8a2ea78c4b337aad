/* xc_fb_header_write.c: a SIGPROC header written through the keyword table,
 * in the order the header holds (SIGPROC's send_stuff.c writes each
 * keyword as its length-prefixed name, then its value, little-endian). */
#include "core/io/xc_filterbank.h"
#include "core/io/xc_fb_keys.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* ---- writing ------------------------------------------------------------ */

typedef struct {
    FILE *fp;
    const char *path;
    xc_error *err;
    xc_status st;
} hwriter;

static void put(hwriter *w, const void *buf, size_t n)
{
    if (w->st == XC_OK && fwrite(buf, 1, n, w->fp) != n)
        w->st = xc_error_set(w->err, XC_EIO, "%s: header write failed: %s", w->path,
                             strerror(errno));
}

static void put32(hwriter *w, int32_t v)
{
    uint32_t u = (uint32_t)v;
    uint8_t b[4] = {(uint8_t)u, (uint8_t)(u >> 8), (uint8_t)(u >> 16), (uint8_t)(u >> 24)};
    put(w, b, 4);
}

static void put64(hwriter *w, uint64_t u)
{
    uint8_t b[8];
    for (int i = 0; i < 8; i++)
        b[i] = (uint8_t)(u >> (8 * i));
    put(w, b, 8);
}

static void put_f64(hwriter *w, double d)
{
    uint64_t u;
    memcpy(&u, &d, sizeof u);
    put64(w, u);
}

static void put_string(hwriter *w, const char *s)
{
    size_t n = strlen(s);
    put32(w, (int32_t)n);
    put(w, s, n);
}

static xc_status put_value(hwriter *w, const xc_fbheader *h, const xc_fbkeyspec *s)
{
    const char *base = (const char *)h;
    switch (s->type) {
    case VT_INT32: {
        int32_t v;
        memcpy(&v, base + s->offset, sizeof v);
        put32(w, v);
        break;
    }
    case VT_FLOAT64: {
        double v;
        memcpy(&v, base + s->offset, sizeof v);
        put_f64(w, v);
        break;
    }
    case VT_STRING: {
        const char *v = base + s->offset;
        size_t n = strnlen(v, XC_FB_MAXSTR + 1);
        if (n < 1 || n > XC_FB_MAXSTR)
            return xc_error_set(w->err, XC_EINVAL,
                                "%s: %s: string length %zu is outside 1..%d", w->path, s->name,
                                n, XC_FB_MAXSTR);
        put_string(w, v);
        break;
    }
    case VT_BYTE: {
        int8_t v;
        memcpy(&v, base + s->offset, sizeof v);
        uint8_t b = (uint8_t)v;
        put(w, &b, 1);
        break;
    }
    case VT_INT64: {
        int64_t v;
        memcpy(&v, base + s->offset, sizeof v);
        put64(w, (uint64_t)v);
        break;
    }
    case VT_FTABLE_START:
        for (int i = 0; i < h->nfchannel; i++) {
            put_string(w, "fchannel");
            put_f64(w, h->fchannel[i]);
        }
        put_string(w, "FREQUENCY_END");
        break;
    case VT_FCHANNEL:
    case VT_FTABLE_END:
        break;
    }
    return w->st;
}

xc_status xc_fbheader_write(const xc_fbheader *h, FILE *fp, const char *path, xc_error *err)
{
    hwriter w = {fp, path, err, XC_OK};
    put_string(&w, "HEADER_START");
    for (int i = 0; i < h->norder && w.st == XC_OK; i++) {
        int k = h->order[i];
        const xc_fbkeyspec *s = xc_fbkey_by_key(k);
        if (!s || !h->present[k])
            continue;
        put_string(&w, s->name);
        xc_status st = put_value(&w, h, s);
        if (st)
            return st;
    }
    put_string(&w, "HEADER_END");
    return w.st;
}
