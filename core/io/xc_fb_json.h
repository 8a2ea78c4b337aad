/* xc_fb_json.h: a SIGPROC header as a JSON object, keyword by keyword in
 * the file's order, under SIGPROC's own keyword names (src/read_header.c);
 * the FREQUENCY_START..END table becomes the list "fchannel". */
#ifndef XC_FB_JSON_H
#define XC_FB_JSON_H

#include <jansson.h>

#include "core/io/xc_filterbank.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Adds every keyword present in h to obj (a JSON object). */
void xc_fbheader_to_json(const xc_fbheader *h, json_t *obj);

#ifdef __cplusplus
}
#endif
#endif
