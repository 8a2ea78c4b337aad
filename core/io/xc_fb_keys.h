/* xc_fb_keys.h: the table of SIGPROC header keywords that drives reading,
 * writing and naming (core/io/xc_fb_keys.c).  Internal to core/io. */
#ifndef XC_FB_KEYS_H
#define XC_FB_KEYS_H

#include <stddef.h>

#include "core/io/xc_filterbank.h"

typedef enum {
    VT_INT32, VT_FLOAT64, VT_STRING, VT_BYTE, VT_INT64,
    VT_FTABLE_START, VT_FCHANNEL, VT_FTABLE_END
} xc_fbvtype;

typedef struct {
    const char *name;
    xc_fbvtype type;
    int key;        /* xc_fbkey, or -1 for the table's inner tokens */
    size_t offset;  /* where the value lives in xc_fbheader */
} xc_fbkeyspec;

/* SIGPROC's get_string limit (src/read_header.c). */
#define XC_FB_MAXSTR 80

/* The keyword of a name or of an xc_fbkey; NULL when there is none. */
const xc_fbkeyspec *xc_fbkey_by_name(const char *name);
const xc_fbkeyspec *xc_fbkey_by_key(int k);

#endif
