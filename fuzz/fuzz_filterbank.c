/* fuzz_filterbank.c: the SIGPROC filterbank reader (xc_fbreader_open,
 * xc_fbreader_read_u16/_f32) and, for what it accepts, the writer.
 *
 * Properties of an accepted file:
 *  - nbits is one of 1, 2, 4, 8, 16, 32; nchans, nifs >= 1; tsamp > 0;
 *  - header bytes + nsamp * nifs*nchans*nbits/8 is exactly the file's size
 *    and nsamp >= 1 (the sizes fit the file, and the data confirm nchans);
 *  - every spectrum of every IF reads, and integer values are < 2^nbits;
 *  - write-then-read is the identity: the header written from what was read
 *    reads back with the same fields, and the data bytes written are the
 *    input's data bytes (packing, bit order and IF interleaving). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/xc_nbits.h"
#include "core/io/xc_filterbank.h"
#include "fuzz/fuzz_util.h"

/* Data read and written back only for inputs up to this many values. */
#define MAX_VALUES ((uint64_t)1 << 20)

static void same_header(const xc_fbheader *a, const xc_fbheader *b)
{
    XC_FUZZ_CHECK(!strcmp(a->source_name, b->source_name) && !strcmp(a->rawdatafile, b->rawdatafile),
                  "filterbank: strings differ after write-then-read");
    const int32_t ia[] = {a->telescope_id, a->machine_id, a->data_type, a->barycentric, a->pulsarcentric,
                          a->nbits,        a->nchans,     a->nifs,      a->nbeams,      a->ibeam,
                          a->nbins,        a->nsamples,   a->signed_data};
    const int32_t ib[] = {b->telescope_id, b->machine_id, b->data_type, b->barycentric, b->pulsarcentric,
                          b->nbits,        b->nchans,     b->nifs,      b->nbeams,      b->ibeam,
                          b->nbins,        b->nsamples,   b->signed_data};
    for (size_t i = 0; i < sizeof ia / sizeof ia[0]; i++)
        XC_FUZZ_CHECK(ia[i] == ib[i], "filterbank: integer field %zu is %d, %d after write-then-read", i,
                      (int)ia[i], (int)ib[i]);
    const double da[] = {a->tstart, a->tsamp, a->fch1, a->foff, a->refdm, a->period, a->az_start, a->za_start,
                         a->src_raj, a->src_dej};
    const double db[] = {b->tstart, b->tsamp, b->fch1, b->foff, b->refdm, b->period, b->az_start, b->za_start,
                         b->src_raj, b->src_dej};
    for (size_t i = 0; i < sizeof da / sizeof da[0]; i++)
        XC_FUZZ_CHECK(xc_fuzz_same(da[i], db[i]), "filterbank: double field %zu is %.17g, %.17g after "
                      "write-then-read", i, da[i], db[i]);
    XC_FUZZ_CHECK(a->npuls == b->npuls, "filterbank: npuls differs after write-then-read");
    XC_FUZZ_CHECK(a->nfchannel == b->nfchannel, "filterbank: FREQUENCY table of %d values, %d after "
                  "write-then-read", a->nfchannel, b->nfchannel);
    for (int c = 0; c < a->nfchannel; c++)
        XC_FUZZ_CHECK(xc_fuzz_same(a->fchannel[c], b->fchannel[c]), "filterbank: fchannel %d differs", c);
    for (int k = 0; k < XC_FB_NKEYS; k++)
        XC_FUZZ_CHECK(!a->present[k] == !b->present[k], "filterbank: keyword %s %s after write-then-read",
                      xc_fbkey_name((xc_fbkey)k), a->present[k] ? "lost" : "appeared");
    XC_FUZZ_CHECK(a->nsamp == b->nsamp, "filterbank: nsamp %llu, %llu after write-then-read",
                  (unsigned long long)a->nsamp, (unsigned long long)b->nsamp);
}

static void round_trip(const char *path, xc_fbreader *r, xc_bitorder order)
{
    const xc_fbheader *h = xc_fbreader_header(r);
    const size_t nch = (size_t)h->nchans, nifs = (size_t)h->nifs, nv = nch * nifs;
    const size_t ns = (size_t)h->nsamp;
    xc_error e;
    /* all IFs of every spectrum, channel fastest, as the writer takes them */
    uint16_t *u = xc_nbits_is_float(h->nbits) ? NULL : malloc(ns * nv * sizeof *u);
    float *f = xc_nbits_is_float(h->nbits) ? malloc(ns * nv * sizeof *f) : NULL;
    uint16_t *u1 = malloc(ns * nch * sizeof *u1);
    float *f1 = malloc(ns * nch * sizeof *f1);
    if ((!u && !f) || !u1 || !f1)
        abort();
    for (size_t i = 0; i < nifs; i++) {
        if (!xc_nbits_is_float(h->nbits)) {
            XC_FUZZ_CHECK(xc_fbreader_read_u16(r, 0, ns, (int)i, u1, &e) == XC_OK,
                          "filterbank: accepted, but reading IF %zu failed: %s", i, e.msg);
            for (size_t k = 0; k < ns * nch; k++)
                XC_FUZZ_CHECK(h->nbits == 16 || u1[k] >> h->nbits == 0, "filterbank: value %u of %d bits",
                              (unsigned)u1[k], (int)h->nbits);
        }
        XC_FUZZ_CHECK(xc_fbreader_read_f32(r, 0, ns, (int)i, f1, &e) == XC_OK,
                      "filterbank: accepted, but the float read of IF %zu failed: %s", i, e.msg);
        for (size_t s = 0; s < ns; s++) {
            if (u)
                memcpy(u + s * nv + i * nch, u1 + s * nch, nch * sizeof *u);
            else
                memcpy(f + s * nv + i * nch, f1 + s * nch, nch * sizeof *f);
            for (size_t c = 0; u && c < nch; c++)
                XC_FUZZ_CHECK(f1[s * nch + c] == (float)u1[s * nch + c],
                              "filterbank: the float and integer reads differ");
        }
    }
    free(u1);
    free(f1);

    const char *out = xc_fuzz_path("out.fil");
    xc_fbwriter *w;
    XC_FUZZ_CHECK(xc_fbwriter_open(&w, out, h, order, &e) == XC_OK,
                  "filterbank: the writer refuses a header the reader accepted: %s", e.msg);
    xc_status st = u ? xc_fbwriter_write_u16(w, u, ns, &e) : xc_fbwriter_write_f32(w, f, ns, &e);
    XC_FUZZ_CHECK(st == XC_OK, "filterbank: the writer refuses the data read: %s", e.msg);
    XC_FUZZ_CHECK(xc_fbwriter_commit(w, &e) == XC_OK, "filterbank: commit failed: %s", e.msg);
    free(u);
    free(f);

    xc_fbopts o = {.bitorder = order};
    xc_fbreader *r2;
    XC_FUZZ_CHECK(xc_fbreader_open(&r2, out, &o, &e) == XC_OK,
                  "filterbank: the reader refuses what the writer wrote: %s", e.msg);
    const xc_fbheader *h2 = xc_fbreader_header(r2);
    same_header(h, h2);
    /* the data bytes are the input's */
    uint8_t *a, *b;
    size_t na, nb;
    xc_fuzz_slurp(path, &a, &na);
    xc_fuzz_slurp(out, &b, &nb);
    XC_FUZZ_CHECK(na - h->header_bytes == nb - h2->header_bytes, "filterbank: %zu data bytes read, %zu written",
                  na - (size_t)h->header_bytes, nb - (size_t)h2->header_bytes);
    for (size_t i = 0; i < na - h->header_bytes; i++)
        XC_FUZZ_CHECK(a[h->header_bytes + i] == b[h2->header_bytes + i],
                      "filterbank: data byte %zu is 0x%02x in the file, 0x%02x written back (nbits %d, %s first)", i,
                      a[h->header_bytes + i], b[h2->header_bytes + i], (int)h->nbits,
                      order == XC_BITORDER_MSB ? "high bits" : "low bits");
    free(a);
    free(b);
    xc_fbreader_close(r2);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = xc_fuzz_input("in.fil", data, size);
    /* the bit order is the input's last byte's low bit: both orders get fuzzed */
    xc_bitorder order = size && (data[size - 1] & 1) ? XC_BITORDER_MSB : XC_BITORDER_LSB;
    xc_fbopts o = {.bitorder = order};
    xc_fbreader *r;
    xc_error e;
    if (xc_fbreader_open(&r, path, &o, &e) != XC_OK)
        return 0;
    const xc_fbheader *h = xc_fbreader_header(r);
    const int nb = h->nbits;
    XC_FUZZ_CHECK(xc_nbits_valid(nb), "filterbank: nbits %d", nb);
    XC_FUZZ_CHECK(h->nchans >= 1 && h->nifs >= 1, "filterbank: nchans %d, nifs %d", (int)h->nchans,
                  (int)h->nifs);
    XC_FUZZ_CHECK(h->tsamp > 0 && isfinite(h->tsamp), "filterbank: tsamp %g accepted", h->tsamp);
    uint64_t bps = xc_fbheader_bytes_per_spectrum(h);
    XC_FUZZ_CHECK(bps > 0, "filterbank: 0 bytes per spectrum accepted");
    XC_FUZZ_CHECK(h->nsamp >= 1, "filterbank: a file without spectra accepted (%d channels)", (int)h->nchans);
    XC_FUZZ_CHECK(h->header_bytes <= size && h->nsamp <= (size - h->header_bytes) / bps &&
                  h->header_bytes + h->nsamp * bps == size,
                  "filterbank: header %llu bytes + %llu spectra of %llu bytes != file size %zu",
                  (unsigned long long)h->header_bytes, (unsigned long long)h->nsamp, (unsigned long long)bps, size);
    /* one spectrum past the end must be refused */
    float one[1];
    if (h->nchans == 1)
        XC_FUZZ_CHECK(xc_fbreader_read_f32(r, h->nsamp, 1, 0, one, &e) != XC_OK,
                      "filterbank: a spectrum past the end was read");
    if (h->nsamp >= 1 && h->nsamp * (uint64_t)h->nchans * (uint64_t)h->nifs <= MAX_VALUES)
        round_trip(path, r, order);
    xc_fbreader_close(r);
    return 0;
}
