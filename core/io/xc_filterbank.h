/* xc_filterbank.h: SIGPROC filterbank headers and data, read and written.
 *
 * Conventions (SIGPROC src/sigproc.tex, src/read_header.c, src/send_stuff.c):
 *  - header: "HEADER_START", keyword records, "HEADER_END"; a string is an int32
 *    length (1..80) followed by its bytes; values are int32, float64, one byte
 *    (`signed`) or int64 (`npuls`), native little-endian.
 *  - data: sample s, IF i, channel c at index s*nifs*nchans + i*nchans + c;
 *    channel c has frequency fch1 + c*foff (either sign of foff is accepted).
 *  - sub-byte samples (nbits 1, 2, 4) are packed first-sample-in-low-bits by
 *    default (SIGPROC, PRESTO, dedisp); XC_BITORDER_MSB reads the other order.
 *  - nbits 32 is IEEE float32; 8 and 16 are unsigned integers.
 *  - the sample count comes from the file size; a header `nsamples` that
 *    disagrees is reported as a warning (xc_fb_warning), never trusted.
 */
#ifndef XC_FILTERBANK_H
#define XC_FILTERBANK_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "core/base/xc_error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Every keyword the reader accepts.  The order here is only an enumeration;
 * the order in a file is kept in xc_fbheader.order so a round trip preserves it. */
typedef enum {
    XC_FB_TELESCOPE_ID, XC_FB_MACHINE_ID, XC_FB_DATA_TYPE, XC_FB_RAWDATAFILE,
    XC_FB_SOURCE_NAME, XC_FB_BARYCENTRIC, XC_FB_PULSARCENTRIC, XC_FB_AZ_START,
    XC_FB_ZA_START, XC_FB_SRC_RAJ, XC_FB_SRC_DEJ, XC_FB_TSTART, XC_FB_TSAMP,
    XC_FB_NBITS, XC_FB_NSAMPLES, XC_FB_FCH1, XC_FB_FOFF, XC_FB_NCHANS,
    XC_FB_NIFS, XC_FB_REFDM, XC_FB_PERIOD, XC_FB_NBEAMS, XC_FB_IBEAM,
    XC_FB_NBINS, XC_FB_SIGNED, XC_FB_NPULS, XC_FB_FREQUENCY_TABLE,
    XC_FB_NKEYS
} xc_fbkey;

typedef enum { XC_BITORDER_LSB = 0, XC_BITORDER_MSB = 1 } xc_bitorder;

typedef struct {
    char source_name[81];
    char rawdatafile[81];
    int32_t telescope_id, machine_id, data_type, barycentric, pulsarcentric;
    int32_t nbits, nchans, nifs, nbeams, ibeam, nbins;
    int32_t nsamples;          /* legacy header value; see nsamp for the real count */
    double tstart, tsamp, fch1, foff, refdm, period, az_start, za_start;
    double src_raj, src_dej;
    int8_t signed_data;        /* keyword `signed`: one byte */
    int64_t npuls;
    double *fchannel;          /* FREQUENCY_START..END table, nfchannel values (owned) */
    int nfchannel;
    /* bookkeeping */
    int present[XC_FB_NKEYS];  /* 1 if the keyword was read / is to be written */
    int order[XC_FB_NKEYS];    /* keywords in file order */
    int norder;
    uint64_t header_bytes;     /* offset of the first data byte */
    uint64_t nsamp;            /* samples (spectra) in the file, from its size */
} xc_fbheader;

/* Initialises h to SIGPROC fake's defaults with no keyword marked present. */
void xc_fbheader_init(xc_fbheader *h);
void xc_fbheader_free(xc_fbheader *h);
/* Deep copy (the frequency table is duplicated). */
xc_status xc_fbheader_copy(xc_fbheader *dst, const xc_fbheader *src, xc_error *err);
/* Marks keyword k present and appends it to the write order if new. */
void xc_fbheader_set(xc_fbheader *h, xc_fbkey k);
const char *xc_fbkey_name(xc_fbkey k);
/* Makes h the header of a SIGPROC dedispersed time series (.tim, as
 * dedisperse writes it): one float32 channel and IF (data_type 2) at refdm,
 * those keywords marked present, no frequency table and no sample count. */
void xc_fbheader_tim(xc_fbheader *h, double refdm);
/* Bytes per spectrum (all IFs): nifs*nchans*nbits/8; sub-byte spectra must fill whole bytes. */
uint64_t xc_fbheader_bytes_per_spectrum(const xc_fbheader *h);
/* Frequency of channel c in MHz (the FREQUENCY table when present, else fch1 + c*foff). */
double xc_fbheader_freq(const xc_fbheader *h, int c);

/* Parses a header from memory or a stream.  `path` is used only in messages.
 * Errors (XC_EFORMAT) name the file, the field, the value and the byte offset:
 * missing HEADER_START/HEADER_END, unknown keyword, string length outside 1..80,
 * nbits not in {1,2,4,8,16,32}, nchans < 1, nifs < 1, tsamp <= 0, truncated header. */
xc_status xc_fbheader_read(xc_fbheader *h, FILE *fp, const char *path, xc_error *err);
/* Writes the present keywords in h->order; returns XC_EIO on failure. */
xc_status xc_fbheader_write(const xc_fbheader *h, FILE *fp, const char *path, xc_error *err);

/* ---- streaming reader ---------------------------------------------------- */
typedef struct xc_fbreader xc_fbreader;

typedef struct {
    xc_bitorder bitorder;      /* sub-byte packing order, default LSB */
    int warn_nsamples;         /* unused by the library; cli prints xc_fbreader_warning */
} xc_fbopts;

/* Opens path, reads and checks the header, computes nsamp from the size.
 * A data size that is not a whole number of spectra is XC_EFORMAT ("truncated data"). */
xc_status xc_fbreader_open(xc_fbreader **r, const char *path, const xc_fbopts *opts, xc_error *err);
const xc_fbheader *xc_fbreader_header(const xc_fbreader *r);
/* A warning found while opening (e.g. header nsamples disagrees), or "" if none. */
const char *xc_fbreader_warning(const xc_fbreader *r);
/* Reads spectra [first, first+n) of IF `ifno`, channel fastest, into out[n*nchans].
 * Integer nbits (1..16) use the _u16 call; nbits 32 uses the _f32 call (the _f32
 * call also accepts integer data and converts exactly).  Reads in bounded chunks,
 * reusing an internal buffer, so any file size works. */
xc_status xc_fbreader_read_u16(xc_fbreader *r, uint64_t first, size_t n, int ifno,
                               uint16_t *out, xc_error *err);
xc_status xc_fbreader_read_f32(xc_fbreader *r, uint64_t first, size_t n, int ifno,
                               float *out, xc_error *err);
void xc_fbreader_close(xc_fbreader *r);

/* ---- unpacking / packing (exposed for tests and the synthesizer) --------- */
/* Unpacks nvals samples of nbits (1,2,4,8,16) from packed bytes. */
void xc_fb_unpack_u16(const uint8_t *in, size_t nvals, int nbits, xc_bitorder order, uint16_t *out);
/* Packs nvals samples (each < 2^nbits) into bytes; nvals*nbits must be a multiple of 8. */
void xc_fb_pack_u16(const uint16_t *in, size_t nvals, int nbits, xc_bitorder order, uint8_t *out);

/* ---- whole-file writer (atomic: temp name, then rename) ------------------- */
typedef struct xc_fbwriter xc_fbwriter;
/* Writes the header to `path`.tmp.<pid>; data follows with the write calls;
 * xc_fbwriter_commit renames it to path, xc_fbwriter_abort removes it. */
xc_status xc_fbwriter_open(xc_fbwriter **w, const char *path, const xc_fbheader *h,
                           xc_bitorder order, xc_error *err);
/* Appends n spectra (all IFs, channel fastest); values must be < 2^nbits. */
xc_status xc_fbwriter_write_u16(xc_fbwriter *w, const uint16_t *spectra, size_t n, xc_error *err);
xc_status xc_fbwriter_write_f32(xc_fbwriter *w, const float *spectra, size_t n, xc_error *err);
xc_status xc_fbwriter_commit(xc_fbwriter *w, xc_error *err);
void xc_fbwriter_abort(xc_fbwriter *w);

#ifdef __cplusplus
}
#endif
#endif
