#include "reports/xc_report.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void xc_text_init(xc_text *t)
{
    memset(t, 0, sizeof *t);
}

void xc_text_free(xc_text *t)
{
    free(t->s);
    xc_text_init(t);
}

static xc_status reserve(xc_text *t, size_t extra)
{
    if (t->oom)
        return XC_ENOMEM;
    if (t->len + extra + 1 <= t->cap)
        return XC_OK;
    size_t cap = t->cap ? t->cap : 256;
    while (cap < t->len + extra + 1)
        cap *= 2;
    char *s = realloc(t->s, cap);
    if (!s) {
        t->oom = 1;
        return XC_ENOMEM;
    }
    t->s = s;
    t->cap = cap;
    return XC_OK;
}

xc_status xc_text_printf(xc_text *t, const char *fmt, ...)
{
    va_list ap;
    char small[256];
    va_start(ap, fmt);
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0) {
        t->oom = 1;
        return XC_ENOMEM;
    }
    if (reserve(t, (size_t)n))
        return XC_ENOMEM;
    if ((size_t)n < sizeof small) {
        memcpy(t->s + t->len, small, (size_t)n + 1);
    } else {
        va_start(ap, fmt);
        vsnprintf(t->s + t->len, (size_t)n + 1, fmt, ap);
        va_end(ap);
    }
    t->len += (size_t)n;
    return XC_OK;
}

xc_status xc_text_put(xc_text *t, const char *s)
{
    size_t n = strlen(s);
    if (reserve(t, n))
        return XC_ENOMEM;
    memcpy(t->s + t->len, s, n + 1);
    t->len += n;
    return XC_OK;
}

xc_status xc_text_escape(xc_text *t, const char *s)
{
    for (const char *p = s ? s : ""; *p; p++) {
        const char *rep = NULL;
        switch (*p) {
        case '&': rep = "&amp;"; break;
        case '<': rep = "&lt;"; break;
        case '>': rep = "&gt;"; break;
        case '"': rep = "&quot;"; break;
        case '\'': rep = "&#39;"; break;
        }
        if (rep) {
            if (xc_text_put(t, rep))
                return XC_ENOMEM;
        } else {
            if (reserve(t, 1))
                return XC_ENOMEM;
            t->s[t->len++] = *p;
            t->s[t->len] = '\0';
        }
    }
    return t->oom ? XC_ENOMEM : XC_OK;
}

xc_status xc_text_base64(xc_text *t, const void *data, size_t n)
{
    static const char tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    const unsigned char *p = data;
    if (reserve(t, (n + 2) / 3 * 4))
        return XC_ENOMEM;
    char *q = t->s + t->len;
    for (size_t i = 0; i < n; i += 3) {
        uint32_t v = (uint32_t)p[i] << 16;
        if (i + 1 < n)
            v |= (uint32_t)p[i + 1] << 8;
        if (i + 2 < n)
            v |= p[i + 2];
        *q++ = tab[(v >> 18) & 63];
        *q++ = tab[(v >> 12) & 63];
        *q++ = i + 1 < n ? tab[(v >> 6) & 63] : '=';
        *q++ = i + 2 < n ? tab[v & 63] : '=';
    }
    *q = '\0';
    t->len = (size_t)(q - t->s);
    return XC_OK;
}
