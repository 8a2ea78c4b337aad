/* What every item of a study starts from (a pulsar or a burst alike): its
 * parameters drawn from the population, and the filterbank the synthesizer
 * would write for them, made in memory. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/io/xc_filterbank.h"
#include "study/spec/study_internal.h"
#include "synth/write/xc_synth_dedisp.h"

typedef struct {
    uint8_t *b;
    size_t len, cap;
} bytes_t;

static int keep_bytes(void *ctx, const uint8_t *b, size_t n)
{
    bytes_t *k = ctx;
    if (k->len + n > k->cap)
        return 1;
    memcpy(k->b + k->len, b, n);
    k->len += n;
    return 0;
}

void xc_study_fb_free(xc_study_fb *fb)
{
    free(fb->raw);
    free(fb->u16);
    memset(fb, 0, sizeof *fb);
}

/* The filterbank xc_synth_write would write, made in memory: its samples
 * (unpacked to 16 bits unless float) and geometry. */
xc_status xc_study_fb_make(const xc_synth_params *p, xc_study_fb *fb, xc_error *err)
{
    memset(fb, 0, sizeof *fb);
    const uint64_t nsamp = xc_synth_nsamp(p);
    const int nch = p->nchans, nbits = p->nbits;
    if (nsamp > SIZE_MAX / 4 / (uint64_t)nch)
        return xc_error_set(err, XC_EINVAL, "%llu spectra of %d channels: too large to hold in memory",
                            (unsigned long long)nsamp, nch);
    const size_t nvals = (size_t)nsamp * (size_t)nch;
    bytes_t raw = {NULL, 0, xc_nbits_is_float(nbits) ? nvals * 4 : nvals * (size_t)nbits / 8};
    xc_status e = XC_OK;
    if (!(raw.b = malloc(raw.cap ? raw.cap : 1)))
        return xc_error_set(err, XC_ENOMEM, "out of memory for a %zu-byte filterbank", raw.cap);
    fb->raw = raw.b;
    if ((e = xc_synth_stream(p, keep_bytes, &raw, err)))
        goto fail;
    if (raw.len != raw.cap) {
        e = xc_error_set(err, XC_EIO, "the synthesizer gave %zu bytes, expected %zu", raw.len, raw.cap);
        goto fail;
    }
    fb->blk = (xc_block){nch, (size_t)nsamp, nbits, NULL, NULL};
    if (xc_nbits_is_float(nbits)) {
        fb->blk.f32 = (const float *)raw.b;
    } else {
        if (!(fb->u16 = malloc(nvals * sizeof *fb->u16))) {
            e = xc_error_set(err, XC_ENOMEM, "out of memory for %zu samples", nvals);
            goto fail;
        }
        xc_fb_unpack_u16(raw.b, nvals, nbits, p->bitorder, fb->u16);
        free(fb->raw);
        fb->raw = NULL;
        fb->blk.u16 = fb->u16;
    }
    fb->geom = (xc_geometry){nch, p->fch1, xc_synth_foff(p), p->tsamp};
    return XC_OK;
fail:
    xc_study_fb_free(fb);
    return e;
}

xc_status xc_study_params(const xc_study *st, uint64_t id, int threads, const char *what, xc_synth_params *p,
                          char *label, size_t nlabel, xc_error *err)
{
    int attempts = 0;
    xc_status e = xc_popspec_pulsar(&st->pop, st->seed, id, p, &attempts, err);
    if (e)
        return e;
    p->nthreads = threads;
    snprintf(label, nlabel, "study %s %llu", what, (unsigned long long)id);
    return XC_OK;
}
