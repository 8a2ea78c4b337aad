/* xc_fb_json.c: see xc_fb_json.h. */
#include "core/io/xc_fb_json.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "core/io/xc_fb_keys.h"

static json_t *value_of(const xc_fbheader *h, const xc_fbkeyspec *s)
{
    const char *base = (const char *)h;
    switch (s->type) {
    case VT_INT32: {
        int32_t v;
        memcpy(&v, base + s->offset, sizeof v);
        return json_integer(v);
    }
    case VT_FLOAT64: {
        double v;
        memcpy(&v, base + s->offset, sizeof v);
        return json_real(v);
    }
    case VT_STRING: {
        /* header strings are bytes; JSON needs text: others shown as '?' */
        char t[XC_FB_MAXSTR + 1];
        snprintf(t, sizeof t, "%s", base + s->offset);
        for (char *c = t; *c; c++)
            if ((unsigned char)*c < 0x20 || (unsigned char)*c >= 0x7f)
                *c = '?';
        return json_string(t);
    }
    case VT_BYTE:
        return json_integer(h->signed_data);
    case VT_INT64:
        return json_integer((json_int_t)h->npuls);
    case VT_FTABLE_START: {
        json_t *a = json_array();
        for (int c = 0; c < h->nfchannel; c++)
            json_array_append_new(a, json_real(h->fchannel[c]));
        return a;
    }
    default:
        return json_null();
    }
}

void xc_fbheader_to_json(const xc_fbheader *h, json_t *obj)
{
    for (int i = 0; i < h->norder; i++) {
        const xc_fbkeyspec *s = xc_fbkey_by_key(h->order[i]);
        if (!s || !h->present[h->order[i]])
            continue;
        json_object_set_new(obj, s->type == VT_FTABLE_START ? "fchannel" : s->name, value_of(h, s));
    }
}
