/* test_filterbank.c: SIGPROC header, reader, writer and packing, checked
 * against hand-built bytes and the real files in datasets/sigpyproc3. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <dirent.h>

#include "core/base/xc_nbits.h"
#include "core/io/xc_filterbank.h"
#include "tests/xc_fixture.h"
#include "tests/xc_test.h"

/* ---- helpers ------------------------------------------------------------- */

static uint32_t lcg(uint32_t *s)
{
    *s = *s * 1664525u + 1013904223u;
    return *s >> 8;
}

static long file_size(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0 ? (long)sb.st_size : -1;
}

/* A header built byte by byte, to feed the reader exactly what a test needs. */
typedef struct {
    uint8_t b[4096];
    size_t n;
} rawhdr;

static void raw_bytes(rawhdr *r, const void *p, size_t n)
{
    memcpy(r->b + r->n, p, n);
    r->n += n;
}

static void raw_i32(rawhdr *r, int32_t v)
{
    raw_bytes(r, &v, 4);
}

static void raw_str(rawhdr *r, const char *s)
{
    raw_i32(r, (int32_t)strlen(s));
    raw_bytes(r, s, strlen(s));
}

static void raw_int(rawhdr *r, const char *k, int32_t v)
{
    raw_str(r, k);
    raw_i32(r, v);
}

static void raw_dbl(rawhdr *r, const char *k, double v)
{
    raw_str(r, k);
    raw_bytes(r, &v, 8);
}

/* A minimal valid header: 4 channels of 8 bits, so one spectrum is 4 bytes. */
static void raw_basic(rawhdr *r)
{
    r->n = 0;
    raw_str(r, "HEADER_START");
    raw_int(r, "nchans", 4);
    raw_int(r, "nbits", 8);
    raw_dbl(r, "tsamp", 64e-6);
    raw_dbl(r, "fch1", 1400.0);
    raw_dbl(r, "foff", -1.0);
}

static void raw_save(const rawhdr *r, const char *path, size_t ndata)
{
    FILE *fp = fopen(path, "wb");
    CU_ASSERT_FATAL(fp != NULL);
    CU_ASSERT(fwrite(r->b, 1, r->n, fp) == r->n);
    for (size_t i = 0; i < ndata; i++)
        fputc((int)(i & 0xff), fp);
    CU_ASSERT(fclose(fp) == 0);
}

/* Opens `path` expecting XC_EFORMAT whose message names the file and holds
 * every string in `want`. */
static void expect_format_error(const char *path, const char *const *want, size_t nwant)
{
    xc_fbreader *r = NULL;
    xc_error err;
    xc_error_clear(&err);
    xc_status st = xc_fbreader_open(&r, path, NULL, &err);
    CU_ASSERT_EQUAL(st, XC_EFORMAT);
    CU_ASSERT_EQUAL(err.code, XC_EFORMAT);
    CU_ASSERT(r == NULL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, path));
    for (size_t i = 0; i < nwant; i++) {
        if (!strstr(err.msg, want[i]))
            printf("\n  message \"%s\" lacks \"%s\"\n", err.msg, want[i]);
        CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, want[i]));
    }
    xc_fbreader_close(r);
}

/* A header of other = 8, key = v and tsamp 1 ms, then ndata bytes, written
 * to name: refused, saying says and the byte where v starts. */
static void expect_bad_value(rawhdr *r, const char *name, const char *other, const char *key, int32_t v,
                             size_t ndata, const char *says)
{
    char path[512], bytes[64];
    xc_fx_tmp_path(path, sizeof path, name);
    r->n = 0;
    raw_str(r, "HEADER_START");
    raw_int(r, other, 8);
    raw_str(r, key);
    size_t at = r->n;
    raw_i32(r, v);
    raw_dbl(r, "tsamp", 1e-3);
    raw_str(r, "HEADER_END");
    raw_save(r, path, ndata);
    snprintf(bytes, sizeof bytes, "(byte %zu)", at);
    expect_format_error(path, (const char *const[]){says, bytes}, 2);
}

static void basic_header(xc_fbheader *h, int nbits, int nchans, int nifs, double foff)
{
    xc_fbheader_init(h);
    strcpy(h->source_name, "roundtrip");
    h->nbits = nbits;
    h->nchans = nchans;
    h->nifs = nifs;
    h->fch1 = 1500.0;
    h->foff = foff;
    h->tsamp = 128e-6;
    h->tstart = 60000.25;
    static const xc_fbkey keys[] = {XC_FB_SOURCE_NAME, XC_FB_TELESCOPE_ID, XC_FB_MACHINE_ID,
                                    XC_FB_DATA_TYPE, XC_FB_FCH1, XC_FB_FOFF, XC_FB_NCHANS,
                                    XC_FB_NBITS, XC_FB_TSTART, XC_FB_TSAMP, XC_FB_NIFS};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        xc_fbheader_set(h, keys[i]);
}

/* ---- round trips ------------------------------------------------------------ */

/* Writes nsamp spectra of (nbits, nchans, nifs) in `order`, reads every IF back
 * both as integers and as floats, and compares value by value. */
static void roundtrip(int nbits, int nchans, int nifs, double foff, xc_bitorder order)
{
    char path[512];
    xc_fx_tmp_path(path, sizeof path, "rt.fil");
    const size_t nsamp = 37, nv = (size_t)nchans * (size_t)nifs;
    uint16_t *src16 = malloc(nsamp * nv * sizeof *src16);
    float *src32 = malloc(nsamp * nv * sizeof *src32);
    uint16_t *got16 = malloc(nsamp * (size_t)nchans * sizeof *got16);
    float *got32 = malloc(nsamp * (size_t)nchans * sizeof *got32);
    CU_ASSERT_FATAL(src16 && src32 && got16 && got32);
    uint32_t seed = (uint32_t)(nbits * 1000 + nchans * 10 + nifs + (int)order * 7);
    for (size_t i = 0; i < nsamp * nv; i++) {
        uint32_t x = lcg(&seed);
        src16[i] = nbits >= 16 ? (uint16_t)x : (uint16_t)(x & ((1u << nbits) - 1u));
        src32[i] = (float)((double)(x % 100000u) * 0.37 - 5000.0);
    }
    xc_fbheader h;
    basic_header(&h, nbits, nchans, nifs, foff);
    xc_error err;
    xc_fbwriter *w = NULL;
    CU_ASSERT_EQUAL_FATAL(xc_fbwriter_open(&w, path, &h, order, &err), XC_OK);
    /* Two calls, so the data cross a call boundary. */
    if (xc_nbits_is_float(nbits)) {
        CU_ASSERT_EQUAL(xc_fbwriter_write_f32(w, src32, 5, &err), XC_OK);
        CU_ASSERT_EQUAL(xc_fbwriter_write_f32(w, src32 + 5 * nv, nsamp - 5, &err), XC_OK);
    } else {
        CU_ASSERT_EQUAL(xc_fbwriter_write_u16(w, src16, 5, &err), XC_OK);
        CU_ASSERT_EQUAL(xc_fbwriter_write_u16(w, src16 + 5 * nv, nsamp - 5, &err), XC_OK);
    }
    CU_ASSERT_EQUAL_FATAL(xc_fbwriter_commit(w, &err), XC_OK);

    xc_fbopts opts = {order, 0};
    xc_fbreader *r = NULL;
    CU_ASSERT_EQUAL_FATAL(xc_fbreader_open(&r, path, &opts, &err), XC_OK);
    const xc_fbheader *g = xc_fbreader_header(r);
    CU_ASSERT_EQUAL(g->nbits, nbits);
    CU_ASSERT_EQUAL(g->nchans, nchans);
    CU_ASSERT_EQUAL(g->nifs, nifs);
    CU_ASSERT_EQUAL(g->nsamp, nsamp);
    CU_ASSERT_EQUAL(g->fch1, 1500.0);
    CU_ASSERT_EQUAL(g->foff, foff);
    CU_ASSERT_EQUAL(g->tsamp, 128e-6);
    CU_ASSERT_EQUAL(g->tstart, 60000.25);
    CU_ASSERT_STRING_EQUAL(g->source_name, "roundtrip");
    CU_ASSERT_EQUAL(g->norder, h.norder);
    CU_ASSERT_EQUAL(memcmp(g->order, h.order, sizeof h.order[0] * (size_t)h.norder), 0);
    XC_ASSERT_CLOSE(xc_fbheader_freq(g, nchans - 1), 1500.0 + (nchans - 1) * foff, 1e-9);
    CU_ASSERT_EQUAL(g->header_bytes + nsamp * xc_fbheader_bytes_per_spectrum(g),
                    (uint64_t)file_size(path));
    CU_ASSERT_STRING_EQUAL(xc_fbreader_warning(r), "");
    for (int ifno = 0; ifno < nifs; ifno++) {
        size_t bad16 = 0, bad32 = 0;
        if (!xc_nbits_is_float(nbits))
            CU_ASSERT_EQUAL(xc_fbreader_read_u16(r, 0, nsamp, ifno, got16, &err), XC_OK);
        CU_ASSERT_EQUAL(xc_fbreader_read_f32(r, 0, nsamp, ifno, got32, &err), XC_OK);
        for (size_t s = 0; s < nsamp; s++)
            for (int c = 0; c < nchans; c++) {
                size_t i = s * nv + (size_t)ifno * (size_t)nchans + (size_t)c;
                size_t o = s * (size_t)nchans + (size_t)c;
                if (!xc_nbits_is_float(nbits) && got16[o] != src16[i])
                    bad16++;
                if (got32[o] != (xc_nbits_is_float(nbits) ? src32[i] : (float)src16[i]))
                    bad32++;
            }
        if (bad16 || bad32)
            printf("\n  nbits %d nchans %d nifs %d order %d IF %d: %zu/%zu mismatches\n", nbits,
                   nchans, nifs, (int)order, ifno, bad16, bad32);
        CU_ASSERT_EQUAL(bad16, 0);
        CU_ASSERT_EQUAL(bad32, 0);
    }
    /* A window in the middle reads the same values as the whole. */
    if (!xc_nbits_is_float(nbits)) {
        uint16_t part[3 * 64];
        CU_ASSERT_EQUAL(xc_fbreader_read_u16(r, 0, nsamp, nifs - 1, got16, &err), XC_OK);
        CU_ASSERT_EQUAL(xc_fbreader_read_u16(r, 11, 3, nifs - 1, part, &err), XC_OK);
        CU_ASSERT_EQUAL(memcmp(part, got16 + 11 * (size_t)nchans, 3 * (size_t)nchans * 2), 0);
    }
    xc_fbreader_close(r);
    xc_fbheader_free(&h);
    free(src16);
    free(src32);
    free(got16);
    free(got32);
}

XC_TEST(test_roundtrip_every_nbits, "roundtrip_every_nbits")
{
    static const int nbits[] = {1, 2, 4, 8, 16, 32};
    for (size_t b = 0; b < 6; b++)
        for (int order = 0; order < 2; order++)
            for (int sign = -1; sign <= 1; sign += 2) {
                /* Odd channel counts where a spectrum still fills whole bytes. */
                int nchans = nbits[b] >= 8 ? 7 : 3 * (8 / nbits[b]);
                roundtrip(nbits[b], nchans, 1, sign * 0.390625, (xc_bitorder)order);
            }
}

XC_TEST(test_roundtrip_two_ifs, "roundtrip_two_ifs")
{
    /* 4-bit x 7 channels and 2-bit x 2 channels put IF 1 mid-byte. */
    for (int order = 0; order < 2; order++) {
        roundtrip(8, 5, 2, -1.0, (xc_bitorder)order);
        roundtrip(4, 7, 2, -1.0, (xc_bitorder)order);
        roundtrip(2, 2, 2, 2.0, (xc_bitorder)order);
        roundtrip(1, 12, 2, -0.5, (xc_bitorder)order);
        roundtrip(16, 3, 2, -0.5, (xc_bitorder)order);
        roundtrip(32, 3, 2, -0.5, (xc_bitorder)order);
    }
}

/* Spectra of 3 MiB: the reader takes two per 8 MiB chunk, so reading five
 * crosses chunk boundaries, and a window may start mid-chunk. */
XC_TEST(test_chunk_boundaries, "chunk_boundaries")
{
    char path[512];
    xc_fx_tmp_path(path, sizeof path, "big.fil");
    const int nchans = 3 * (1 << 20) + 5;
    const size_t ns = 5, nv = (size_t)nchans;
    uint16_t *v = malloc(ns * nv * sizeof *v);
    CU_ASSERT_FATAL(v != NULL);
    for (size_t s = 0; s < ns; s++)
        for (size_t c = 0; c < nv; c++)
            v[s * nv + c] = (uint16_t)((s * 7 + c * 3) & 0xff);
    xc_fbheader h;
    basic_header(&h, 8, nchans, 1, -0.001);
    xc_error err;
    xc_fbwriter *w = NULL;
    CU_ASSERT_EQUAL_FATAL(xc_fbwriter_open(&w, path, &h, XC_BITORDER_LSB, &err), XC_OK);
    CU_ASSERT_EQUAL(xc_fbwriter_write_u16(w, v, ns, &err), XC_OK);
    CU_ASSERT_EQUAL_FATAL(xc_fbwriter_commit(w, &err), XC_OK);
    xc_fbreader *r = NULL;
    CU_ASSERT_EQUAL_FATAL(xc_fbreader_open(&r, path, NULL, &err), XC_OK);
    CU_ASSERT_EQUAL(xc_fbreader_header(r)->nsamp, ns);
    uint16_t *got = malloc(ns * nv * sizeof *got);
    CU_ASSERT_FATAL(got != NULL);
    CU_ASSERT_EQUAL(xc_fbreader_read_u16(r, 0, ns, 0, got, &err), XC_OK);
    CU_ASSERT_EQUAL(memcmp(got, v, ns * nv * sizeof *v), 0);
    CU_ASSERT_EQUAL(xc_fbreader_read_u16(r, 1, 3, 0, got, &err), XC_OK);
    CU_ASSERT_EQUAL(memcmp(got, v + nv, 3 * nv * sizeof *v), 0);
    xc_fbreader_close(r);
    remove(path);
    xc_fbheader_free(&h);
    free(v);
    free(got);
}

/* The numeric keywords test_every_keyword writes and reads back (npuls,
 * 2^40 + 5, is exact in a double). */
#define KEY_NUMBERS \
    "telescope_id machine_id src_raj src_dej az_start za_start nbeams ibeam tstart refdm period nbins barycentric " \
    "signed_data npuls nsamples"
enum { NKEYNUM = 16 };

static void set_key_numbers(xc_fbheader *h, const double v[NKEYNUM])
{
    h->telescope_id = (int32_t)v[0];
    h->machine_id = (int32_t)v[1];
    h->src_raj = v[2];
    h->src_dej = v[3];
    h->az_start = v[4];
    h->za_start = v[5];
    h->nbeams = (int32_t)v[6];
    h->ibeam = (int32_t)v[7];
    h->tstart = v[8];
    h->refdm = v[9];
    h->period = v[10];
    h->nbins = (int32_t)v[11];
    h->barycentric = (int32_t)v[12];
    h->signed_data = (int8_t)v[13];
    h->npuls = (int64_t)v[14];
    h->nsamples = (int32_t)v[15];
}

static void get_key_numbers(const xc_fbheader *h, double v[NKEYNUM])
{
    const double got[NKEYNUM] = {h->telescope_id, h->machine_id, h->src_raj,     h->src_dej,   h->az_start,
                                 h->za_start,     h->nbeams,     h->ibeam,       h->tstart,    h->refdm,
                                 h->period,       h->nbins,      h->barycentric, h->signed_data, (double)h->npuls,
                                 h->nsamples};
    memcpy(v, got, sizeof got);
}

/* Every keyword type: strings, int32, float64, one-byte signed, int64 npuls,
 * and a FREQUENCY table standing in for nchans. */
XC_TEST(test_every_keyword, "every_keyword")
{
    char path[512], path2[512];
    xc_fx_tmp_path(path, sizeof path, "allkeys.fil");
    xc_fx_tmp_path(path2, sizeof path2, "allkeys2.fil");
    xc_fbheader h;
    xc_fbheader_init(&h);
    static const xc_fbkey order[] = {
        XC_FB_RAWDATAFILE, XC_FB_SOURCE_NAME, XC_FB_TELESCOPE_ID, XC_FB_MACHINE_ID,
        XC_FB_SRC_RAJ, XC_FB_SRC_DEJ, XC_FB_AZ_START, XC_FB_ZA_START, XC_FB_DATA_TYPE,
        XC_FB_FREQUENCY_TABLE, XC_FB_FCH1, XC_FB_FOFF, XC_FB_NBEAMS, XC_FB_IBEAM, XC_FB_NBITS,
        XC_FB_TSTART, XC_FB_TSAMP, XC_FB_NIFS, XC_FB_REFDM, XC_FB_PERIOD, XC_FB_NBINS,
        XC_FB_BARYCENTRIC, XC_FB_PULSARCENTRIC, XC_FB_SIGNED, XC_FB_NPULS, XC_FB_NSAMPLES};
    const size_t nk = sizeof order / sizeof order[0];
    for (size_t i = 0; i < nk; i++)
        xc_fbheader_set(&h, order[i]);
    xc_fbheader_set(&h, XC_FB_NBITS);   /* setting twice keeps one entry */
    CU_ASSERT_EQUAL(h.norder, (int)nk);
    strcpy(h.rawdatafile, "raw/2024-01-01.sf");
    /* 80 bytes: the longest string SIGPROC accepts. */
    memset(h.source_name, 'S', 80);
    h.source_name[80] = '\0';
    /* in the order of KEY_NUMBERS */
    static const double numbers[NKEYNUM] = {7,  11,        53431.97, -220052.1, 123.5, 45.25, 13, 4, 59000.123456789,
                                            56.77, 0.0333924, 256,      1,         -3, (double)((1LL << 40) + 5), 3};
    set_key_numbers(&h, numbers);
    h.data_type = 1;
    double table[5] = {1500.0, 1499.0, 1497.5, 1490.0, 1400.0};
    h.fchannel = malloc(sizeof table);
    CU_ASSERT_FATAL(h.fchannel != NULL);
    memcpy(h.fchannel, table, sizeof table);
    h.nfchannel = 5;
    h.nchans = 5;
    h.fch1 = 1500.0;
    h.foff = -1.0;
    h.nbits = 8;
    h.tsamp = 64e-6;
    h.nifs = 1;
    h.pulsarcentric = 0;

    xc_error err;
    xc_fbwriter *w = NULL;
    uint16_t data[15];
    for (int i = 0; i < 15; i++)
        data[i] = (uint16_t)(i * 17);
    CU_ASSERT_EQUAL_FATAL(xc_fbwriter_open(&w, path, &h, XC_BITORDER_LSB, &err), XC_OK);
    CU_ASSERT_EQUAL(xc_fbwriter_write_u16(w, data, 3, &err), XC_OK);
    CU_ASSERT_EQUAL_FATAL(xc_fbwriter_commit(w, &err), XC_OK);

    xc_fbreader *r = NULL;
    CU_ASSERT_EQUAL_FATAL(xc_fbreader_open(&r, path, NULL, &err), XC_OK);
    const xc_fbheader *g = xc_fbreader_header(r);
    CU_ASSERT_STRING_EQUAL(g->rawdatafile, "raw/2024-01-01.sf");
    CU_ASSERT_STRING_EQUAL(g->source_name, h.source_name);
    CU_ASSERT_EQUAL(g->nchans, 5);
    CU_ASSERT_EQUAL(g->present[XC_FB_NCHANS], 0);   /* it came from the table */
    CU_ASSERT_EQUAL_FATAL(g->nfchannel, 5);
    for (int c = 0; c < 5; c++)
        CU_ASSERT_EQUAL(xc_fbheader_freq(g, c), table[c]);
    double got[NKEYNUM];
    get_key_numbers(g, got);
    xc_fx_assert_fields(KEY_NUMBERS, got, numbers, NKEYNUM);
    CU_ASSERT_EQUAL(g->nsamp, 3);
    CU_ASSERT_STRING_EQUAL(xc_fbreader_warning(r), "");
    CU_ASSERT_EQUAL(g->norder, (int)nk);
    for (size_t i = 0; i < nk && i < (size_t)g->norder; i++)
        CU_ASSERT_EQUAL(g->order[i], (int)order[i]);
    /* Header size: 4+12 (HEADER_START) + 4+10 (HEADER_END) + each keyword
     * (4+len) + value, with the table as START + 5 x (4+8+8) + END. */
    size_t expect = 16 + 14;
    for (size_t i = 0; i < nk; i++) {
        const char *name = xc_fbkey_name(order[i]);
        expect += 4 + strlen(name);
        switch (order[i]) {
        case XC_FB_RAWDATAFILE: expect += 4 + strlen(h.rawdatafile); break;
        case XC_FB_SOURCE_NAME: expect += 4 + 80; break;
        case XC_FB_SIGNED: expect += 1; break;
        case XC_FB_NPULS: expect += 8; break;
        case XC_FB_FREQUENCY_TABLE: expect += 5 * (4 + 8 + 8) + 4 + 13; break;
        case XC_FB_TELESCOPE_ID: case XC_FB_MACHINE_ID: case XC_FB_DATA_TYPE:
        case XC_FB_NBEAMS: case XC_FB_IBEAM: case XC_FB_NBITS: case XC_FB_NIFS:
        case XC_FB_NBINS: case XC_FB_BARYCENTRIC: case XC_FB_PULSARCENTRIC:
        case XC_FB_NSAMPLES: expect += 4; break;
        default: expect += 8; break;
        }
    }
    CU_ASSERT_EQUAL(g->header_bytes, expect);
    uint16_t back[15];
    CU_ASSERT_EQUAL(xc_fbreader_read_u16(r, 0, 3, 0, back, &err), XC_OK);
    CU_ASSERT_EQUAL(memcmp(back, data, sizeof data), 0);

    /* The header read back writes the same bytes again. */
    xc_fbheader copy;
    CU_ASSERT_EQUAL_FATAL(xc_fbheader_copy(&copy, g, &err), XC_OK);
    CU_ASSERT(copy.fchannel != g->fchannel);
    xc_fbreader_close(r);
    FILE *fp = fopen(path2, "wb");
    CU_ASSERT_FATAL(fp != NULL);
    CU_ASSERT_EQUAL(xc_fbheader_write(&copy, fp, path2, &err), XC_OK);
    fclose(fp);
    CU_ASSERT_EQUAL(file_size(path2), (long)expect);
    FILE *a = fopen(path, "rb"), *b = fopen(path2, "rb");
    CU_ASSERT_FATAL(a && b);
    uint8_t *ba = malloc(expect), *bb = malloc(expect);
    CU_ASSERT_FATAL(ba && bb);
    CU_ASSERT_EQUAL(fread(ba, 1, expect, a), expect);
    CU_ASSERT_EQUAL(fread(bb, 1, expect, b), expect);
    CU_ASSERT_EQUAL(memcmp(ba, bb, expect), 0);
    fclose(a);
    fclose(b);
    free(ba);
    free(bb);
    xc_fbheader_free(&copy);
    xc_fbheader_free(&h);
}

XC_TEST(test_key_names, "key_names")
{
    CU_ASSERT_STRING_EQUAL(xc_fbkey_name(XC_FB_TELESCOPE_ID), "telescope_id");
    CU_ASSERT_STRING_EQUAL(xc_fbkey_name(XC_FB_SIGNED), "signed");
    CU_ASSERT_STRING_EQUAL(xc_fbkey_name(XC_FB_NPULS), "npuls");
    CU_ASSERT_STRING_EQUAL(xc_fbkey_name(XC_FB_FREQUENCY_TABLE), "FREQUENCY_START");
    CU_ASSERT_STRING_EQUAL(xc_fbkey_name(XC_FB_SRC_DEJ), "src_dej");
    /* Every key has its own name. */
    for (int i = 0; i < XC_FB_NKEYS; i++) {
        CU_ASSERT_STRING_NOT_EQUAL(xc_fbkey_name((xc_fbkey)i), "?");
        for (int j = 0; j < i; j++)
            CU_ASSERT_STRING_NOT_EQUAL(xc_fbkey_name((xc_fbkey)i), xc_fbkey_name((xc_fbkey)j));
    }
    xc_fbheader h;
    xc_fbheader_init(&h);
    CU_ASSERT_EQUAL(h.norder, 0);
    CU_ASSERT_EQUAL(h.nchans, 128);      /* SIGPROC fake's defaults */
    CU_ASSERT_EQUAL(h.nbits, 4);
    XC_ASSERT_CLOSE(h.tsamp, 80e-6, 1e-18);
    CU_ASSERT_EQUAL(xc_fbheader_bytes_per_spectrum(&h), 64);
    h.nchans = 3;
    CU_ASSERT_EQUAL(xc_fbheader_bytes_per_spectrum(&h), 0);   /* 12 bits */
    h.nifs = 2;
    CU_ASSERT_EQUAL(xc_fbheader_bytes_per_spectrum(&h), 3);
}

/* ---- packing at the byte level --------------------------------------------------- */

XC_TEST(test_pack_bytes, "pack_bytes")
{
    struct {
        int nbits;
        uint16_t v[8];
        size_t n;
        uint8_t lsb, msb;
    } cases[] = {
        {4, {1, 2}, 2, 0x21, 0x12},
        {4, {0xf, 0x0}, 2, 0x0f, 0xf0},
        {2, {1, 2, 3, 0}, 4, 0x39, 0x6c},
        {2, {3, 0, 0, 0}, 4, 0x03, 0xc0},
        {1, {1, 0, 0, 0, 0, 0, 0, 0}, 8, 0x01, 0x80},
        {1, {1, 1, 0, 1, 0, 0, 0, 0}, 8, 0x0b, 0xd0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        uint8_t b = 0xaa;
        uint16_t back[8];
        xc_fb_pack_u16(cases[i].v, cases[i].n, cases[i].nbits, XC_BITORDER_LSB, &b);
        CU_ASSERT_EQUAL(b, cases[i].lsb);
        xc_fb_unpack_u16(&b, cases[i].n, cases[i].nbits, XC_BITORDER_LSB, back);
        CU_ASSERT_EQUAL(memcmp(back, cases[i].v, cases[i].n * 2), 0);
        xc_fb_pack_u16(cases[i].v, cases[i].n, cases[i].nbits, XC_BITORDER_MSB, &b);
        CU_ASSERT_EQUAL(b, cases[i].msb);
        xc_fb_unpack_u16(&b, cases[i].n, cases[i].nbits, XC_BITORDER_MSB, back);
        CU_ASSERT_EQUAL(memcmp(back, cases[i].v, cases[i].n * 2), 0);
    }
    uint16_t w = 0x1234, w2 = 0;
    uint8_t b2[2];
    xc_fb_pack_u16(&w, 1, 16, XC_BITORDER_LSB, b2);
    CU_ASSERT(b2[0] == 0x34 && b2[1] == 0x12);
    xc_fb_unpack_u16(b2, 1, 16, XC_BITORDER_MSB, &w2);   /* order matters only below 8 bits */
    CU_ASSERT_EQUAL(w2, 0x1234);

    /* In a file: sample 0 of 4-bit data in the low nibble of the first data byte. */
    char path[512];
    xc_fx_tmp_path(path, sizeof path, "nibble.fil");
    xc_fbheader h;
    basic_header(&h, 4, 2, 1, -1.0);
    uint16_t s[2] = {0x3, 0xc};
    xc_error err;
    for (int order = 0; order < 2; order++) {
        xc_fbwriter *fw = NULL;
        CU_ASSERT_EQUAL_FATAL(xc_fbwriter_open(&fw, path, &h, (xc_bitorder)order, &err), XC_OK);
        CU_ASSERT_EQUAL(xc_fbwriter_write_u16(fw, s, 1, &err), XC_OK);
        CU_ASSERT_EQUAL_FATAL(xc_fbwriter_commit(fw, &err), XC_OK);
        FILE *fp = fopen(path, "rb");
        CU_ASSERT_FATAL(fp != NULL);
        fseek(fp, -1, SEEK_END);
        CU_ASSERT_EQUAL(fgetc(fp), order == XC_BITORDER_LSB ? 0xc3 : 0x3c);
        fclose(fp);
    }
    xc_fbheader_free(&h);
}

/* ---- malformed input -------------------------------------------------------------- */

XC_TEST(test_bad_headers, "bad_headers")
{
    char path[512], bytes[64];
    rawhdr r;

    xc_fx_tmp_path(path, sizeof path, "no_start.fil");
    r.n = 0;
    raw_int(&r, "nbits", 8);
    raw_save(&r, path, 0);
    expect_format_error(path, (const char *const[]){"HEADER_START", "'nbits'", "(byte 0)"}, 3);

    xc_fx_tmp_path(path, sizeof path, "no_end.fil");
    raw_basic(&r);
    raw_save(&r, path, 0);
    snprintf(bytes, sizeof bytes, "byte %zu", r.n);
    expect_format_error(path, (const char *const[]){"HEADER_END", "'foff'", bytes}, 3);

    xc_fx_tmp_path(path, sizeof path, "unknown.fil");
    raw_basic(&r);
    size_t at = r.n;
    raw_int(&r, "wobble_id", 3);
    raw_str(&r, "HEADER_END");
    raw_save(&r, path, 8);
    snprintf(bytes, sizeof bytes, "(byte %zu)", at);
    expect_format_error(path, (const char *const[]){"unknown keyword", "'wobble_id'", bytes}, 3);

    static const int32_t badlen[] = {0, 81};
    for (int i = 0; i < 2; i++) {
        char len[32];
        xc_fx_tmp_path(path, sizeof path, i ? "str81.fil" : "str0.fil");
        raw_basic(&r);
        raw_str(&r, "source_name");
        at = r.n;
        raw_i32(&r, badlen[i]);
        char name[100];
        memset(name, 'x', sizeof name);
        raw_bytes(&r, name, (size_t)badlen[i]);
        raw_str(&r, "HEADER_END");
        raw_save(&r, path, 8);
        snprintf(len, sizeof len, "string length %d ", (int)badlen[i]);
        snprintf(bytes, sizeof bytes, "(byte %zu)", at);
        expect_format_error(path, (const char *const[]){"source_name", len, bytes}, 3);
    }

    expect_bad_value(&r, "nbits3.fil", "nchans", "nbits", 3, 3, "nbits: 3 is not one of 1, 2, 4, 8, 16, 32");
    expect_bad_value(&r, "nchans0.fil", "nbits", "nchans", 0, 0, "nchans: 0 ");

    xc_fx_tmp_path(path, sizeof path, "nifs0.fil");
    raw_basic(&r);
    raw_int(&r, "nifs", -2);
    raw_str(&r, "HEADER_END");
    raw_save(&r, path, 0);
    expect_format_error(path, (const char *const[]){"nifs: -2 "}, 1);

    xc_fx_tmp_path(path, sizeof path, "tsampneg.fil");
    r.n = 0;
    raw_str(&r, "HEADER_START");
    raw_int(&r, "nbits", 8);
    raw_int(&r, "nchans", 4);
    raw_str(&r, "tsamp");
    at = r.n;
    double neg = -6.4e-5;
    raw_bytes(&r, &neg, 8);
    raw_str(&r, "HEADER_END");
    raw_save(&r, path, 0);
    snprintf(bytes, sizeof bytes, "(byte %zu)", at);
    expect_format_error(path, (const char *const[]){"tsamp: -6.4e-05 ", bytes}, 2);

    /* 4-byte spectra followed by 11 bytes: two spectra and 3 bytes over. */
    xc_fx_tmp_path(path, sizeof path, "truncated.fil");
    raw_basic(&r);
    raw_str(&r, "HEADER_END");
    raw_save(&r, path, 11);
    snprintf(bytes, sizeof bytes, "(byte %zu)", r.n);
    expect_format_error(path, (const char *const[]){"data", "truncated", "11 bytes",
                                                    "3 bytes left over", bytes}, 5);

    xc_fx_tmp_path(path, sizeof path, "table_open.fil");
    raw_basic(&r);
    raw_str(&r, "FREQUENCY_START");
    raw_dbl(&r, "fchannel", 1400.0);
    raw_str(&r, "HEADER_END");
    raw_save(&r, path, 0);
    expect_format_error(path, (const char *const[]){"FREQUENCY_END", "missing"}, 2);

    xc_fx_tmp_path(path, sizeof path, "table_count.fil");
    raw_basic(&r);   /* nchans 4 */
    raw_str(&r, "FREQUENCY_START");
    raw_dbl(&r, "fchannel", 1400.0);
    raw_dbl(&r, "fchannel", 1399.0);
    raw_str(&r, "FREQUENCY_END");
    raw_str(&r, "HEADER_END");
    raw_save(&r, path, 0);
    expect_format_error(path, (const char *const[]){"nchans: 4", "holds 2 values"}, 2);

    xc_fx_tmp_path(path, sizeof path, "empty.fil");
    r.n = 0;
    raw_save(&r, path, 0);
    expect_format_error(path, (const char *const[]){"HEADER_START", "0 bytes"}, 2);
}

XC_TEST(test_nsamples_warning, "nsamples_warning")
{
    char path[512];
    xc_fx_tmp_path(path, sizeof path, "nsamples.fil");
    rawhdr r;
    raw_basic(&r);
    raw_int(&r, "nsamples", 100);
    raw_str(&r, "HEADER_END");
    raw_save(&r, path, 5 * 4);
    xc_fbreader *rd = NULL;
    xc_error err;
    CU_ASSERT_EQUAL_FATAL(xc_fbreader_open(&rd, path, NULL, &err), XC_OK);
    const char *w = xc_fbreader_warning(rd);
    CU_ASSERT_PTR_NOT_NULL(strstr(w, path));
    CU_ASSERT_PTR_NOT_NULL(strstr(w, "nsamples: header says 100, file size gives 5; using 5"));
    CU_ASSERT_EQUAL(xc_fbreader_header(rd)->nsamp, 5);
    CU_ASSERT_EQUAL(xc_fbreader_header(rd)->nsamples, 100);
    uint16_t v[4];
    CU_ASSERT_EQUAL(xc_fbreader_read_u16(rd, 4, 1, 0, v, &err), XC_OK);
    CU_ASSERT(v[0] == 16 && v[1] == 17 && v[2] == 18 && v[3] == 19);
    xc_fbreader_close(rd);
}

XC_TEST(test_bad_requests, "bad_requests")
{
    char path[512];
    xc_fx_tmp_path(path, sizeof path, "req.fil");
    rawhdr r;
    raw_basic(&r);
    raw_str(&r, "HEADER_END");
    raw_save(&r, path, 10 * 4);
    xc_fbreader *rd = NULL;
    xc_error err;
    uint16_t v[64];
    float f[64];
    CU_ASSERT_EQUAL_FATAL(xc_fbreader_open(&rd, path, NULL, &err), XC_OK);
    CU_ASSERT_EQUAL(xc_fbreader_read_u16(rd, 8, 3, 0, v, &err), XC_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "3 spectra from spectrum 8"));
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "has 10"));
    CU_ASSERT_EQUAL(xc_fbreader_read_f32(rd, 11, 0, 0, f, &err), XC_EINVAL);
    CU_ASSERT_EQUAL(xc_fbreader_read_u16(rd, 0, 1, 1, v, &err), XC_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "IF 1"));
    CU_ASSERT_EQUAL(xc_fbreader_read_u16(rd, 7, 3, 0, v, &err), XC_OK);
    CU_ASSERT_EQUAL(v[11], 39);
    CU_ASSERT_EQUAL(xc_fbreader_read_f32(rd, 10, 0, 0, f, &err), XC_OK);
    xc_fbreader_close(rd);

    /* 32-bit data are not integers. */
    xc_fx_tmp_path(path, sizeof path, "req32.fil");
    raw_basic(&r);
    raw_int(&r, "nbits", 32);
    raw_str(&r, "HEADER_END");
    raw_save(&r, path, 16);
    CU_ASSERT_EQUAL_FATAL(xc_fbreader_open(&rd, path, NULL, &err), XC_OK);
    CU_ASSERT_EQUAL(xc_fbreader_header(rd)->nbits, 32);
    CU_ASSERT_EQUAL(xc_fbreader_read_u16(rd, 0, 1, 0, v, &err), XC_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "nbits: 32"));
    xc_fbreader_close(rd);

    /* Values beyond nbits are refused and the aborted file leaves nothing. */
    xc_fx_tmp_path(path, sizeof path, "toobig.fil");
    xc_fbheader h;
    basic_header(&h, 2, 4, 1, -1.0);
    xc_fbwriter *w = NULL;
    uint16_t big[8] = {0, 1, 2, 3, 3, 4, 0, 0};
    CU_ASSERT_EQUAL_FATAL(xc_fbwriter_open(&w, path, &h, XC_BITORDER_LSB, &err), XC_OK);
    CU_ASSERT_EQUAL(xc_fbwriter_write_u16(w, big, 2, &err), XC_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "value 4 at spectrum 1, value 1"));
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "0..3"));
    float fbig[4] = {0.0f, 1.5f, 2.0f, 3.0f};
    CU_ASSERT_EQUAL(xc_fbwriter_write_f32(w, fbig, 1, &err), XC_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "value 1.5"));
    xc_fbwriter_abort(w);
    CU_ASSERT_EQUAL(file_size(path), -1);
    CU_ASSERT_EQUAL(xc_fx_count_prefix("toobig.fil"), 0);

    /* A header that no reader could use is refused before anything is written. */
    h.nchans = 3;   /* 6 bits per spectrum */
    CU_ASSERT_EQUAL(xc_fbwriter_open(&w, path, &h, XC_BITORDER_LSB, &err), XC_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "whole number"));
    h.nchans = 4;
    h.nbits = 12;
    CU_ASSERT_EQUAL(xc_fbwriter_open(&w, path, &h, XC_BITORDER_LSB, &err), XC_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "nbits: 12"));
    CU_ASSERT_EQUAL(xc_fx_count_prefix("toobig.fil"), 0);
    xc_fbheader_free(&h);
}

/* ---- real files ----------------------------------------------------------------- */

static int skip_no_fixtures(char *why, size_t n)
{
    char path[512];
    xc_fx_sigpyproc_path(path, sizeof path, "parkes_8bit_1.fil");
    if (file_size(path) > 0)
        return 0;
    snprintf(why, n, "%s not found", path);
    return 1;
}

/* Reads a whole single-IF file as floats, samples x channels. */
static float *read_all(const char *name, xc_bitorder order, xc_fbheader *hdr)
{
    char path[512];
    xc_fx_sigpyproc_path(path, sizeof path, name);
    xc_fbopts opts = {order, 0};
    xc_fbreader *r = NULL;
    xc_error err;
    if (xc_fbreader_open(&r, path, &opts, &err) != XC_OK) {
        printf("\n  %s\n", err.msg);
        return NULL;
    }
    const xc_fbheader *h = xc_fbreader_header(r);
    float *d = malloc((size_t)h->nsamp * (size_t)h->nchans * sizeof *d);
    if (d && xc_fbreader_read_f32(r, 0, (size_t)h->nsamp, 0, d, &err) != XC_OK) {
        free(d);
        d = NULL;
    }
    if (hdr)
        xc_fbheader_copy(hdr, h, &err);
    xc_fbreader_close(r);
    return d;
}

static void check_parkes_header(const xc_fbheader *h, int nbits)
{
    CU_ASSERT_EQUAL(h->nbits, nbits);
    CU_ASSERT_EQUAL(h->nchans, 832);
    CU_ASSERT_EQUAL(h->nifs, 1);
    CU_ASSERT_EQUAL(h->fch1, 4030.0);
    CU_ASSERT_EQUAL(h->foff, -4.0);
    XC_ASSERT_CLOSE(h->tsamp, 512e-6, 1e-12);
    CU_ASSERT_EQUAL(h->nsamp, 4096);
    CU_ASSERT_EQUAL(h->header_bytes, 351);
    CU_ASSERT_STRING_EQUAL(h->source_name, "J0534+2200");
    CU_ASSERT_STRING_EQUAL(h->rawdatafile, "unknown");
    CU_ASSERT_EQUAL(h->telescope_id, 4);
    CU_ASSERT_EQUAL(h->nbeams, 0);
    CU_ASSERT(h->present[XC_FB_SRC_RAJ] && h->present[XC_FB_SRC_DEJ]);
    CU_ASSERT(h->present[XC_FB_AZ_START] && h->present[XC_FB_ZA_START]);
    CU_ASSERT(h->present[XC_FB_NBEAMS] && h->present[XC_FB_IBEAM]);
    XC_ASSERT_CLOSE(h->src_raj, 53431.9, 1e-9);
    XC_ASSERT_CLOSE(h->src_dej, 220052.0, 1e-9);
    XC_ASSERT_CLOSE(xc_fbheader_freq(h, 831), 706.0, 1e-9);
    CU_ASSERT_EQUAL(h->order[0], XC_FB_RAWDATAFILE);
    CU_ASSERT_EQUAL(h->order[h->norder - 1], XC_FB_NIFS);
}

XC_TEST_IF(test_parkes_8bit, "parkes_8bit", skip_no_fixtures)
{
    xc_fbheader h;
    float *d = read_all("parkes_8bit_1.fil", XC_BITORDER_LSB, &h);
    CU_ASSERT_FATAL(d != NULL);
    check_parkes_header(&h, 8);
    size_t n = (size_t)h.nsamp * (size_t)h.nchans;
    double mean, rms;
    xc_fx_mean_rms(d, NULL, n, &mean, &rms);
    XC_ASSERT_CLOSE(mean, 128.0, 0.05);
    XC_ASSERT_CLOSE(rms, 22.4, 0.05);

    /* Reading in odd-sized windows, as integers, gives the same values. */
    char path[512];
    xc_fx_sigpyproc_path(path, sizeof path, "parkes_8bit_1.fil");
    xc_fbreader *r = NULL;
    xc_error err;
    CU_ASSERT_EQUAL_FATAL(xc_fbreader_open(&r, path, NULL, &err), XC_OK);
    uint16_t *u = malloc(1001 * 832 * sizeof *u);
    CU_ASSERT_FATAL(u != NULL);
    size_t bad = 0;
    for (uint64_t first = 0; first < 4096; first += 1001) {
        size_t m = 4096 - first < 1001 ? (size_t)(4096 - first) : 1001;
        CU_ASSERT_EQUAL(xc_fbreader_read_u16(r, first, m, 0, u, &err), XC_OK);
        for (size_t i = 0; i < m * 832; i++)
            bad += (float)u[i] != d[first * 832 + i];
    }
    CU_ASSERT_EQUAL(bad, 0);
    /* The first data bytes, seen in the file dump: 0x71 0x88 0x8e. */
    CU_ASSERT_EQUAL(d[0], 113.0f);
    CU_ASSERT_EQUAL(d[1], 136.0f);
    CU_ASSERT_EQUAL(d[2], 142.0f);
    free(u);
    xc_fbreader_close(r);

    /* Rewriting the header gives the file's own 351 bytes. */
    char out[512];
    xc_fx_tmp_path(out, sizeof out, "parkes_hdr.fil");
    FILE *fp = fopen(out, "wb");
    CU_ASSERT_FATAL(fp != NULL);
    CU_ASSERT_EQUAL(xc_fbheader_write(&h, fp, out, &err), XC_OK);
    fclose(fp);
    uint8_t a[351], b[351];
    FILE *fa = fopen(path, "rb"), *fb = fopen(out, "rb");
    CU_ASSERT_FATAL(fa && fb);
    CU_ASSERT_EQUAL(fread(a, 1, 351, fa), 351);
    CU_ASSERT_EQUAL(fread(b, 1, 351, fb), 351);
    CU_ASSERT_EQUAL(fgetc(fb), EOF);
    CU_ASSERT_EQUAL(memcmp(a, b, 351), 0);
    fclose(fa);
    fclose(fb);
    xc_fbheader_free(&h);
    free(d);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median over channels of the correlation of each channel's time series. */
static double median_channel_corr(const float *a, const float *b, size_t nsamp, size_t nchans)
{
    double *r = malloc(nchans * sizeof *r);
    size_t nr = 0;
    for (size_t c = 0; c < nchans; c++) {
        double ma = 0, mb = 0, saa = 0, sbb = 0, sab = 0;
        for (size_t s = 0; s < nsamp; s++) {
            ma += a[s * nchans + c];
            mb += b[s * nchans + c];
        }
        ma /= (double)nsamp;
        mb /= (double)nsamp;
        for (size_t s = 0; s < nsamp; s++) {
            double x = a[s * nchans + c] - ma, y = b[s * nchans + c] - mb;
            saa += x * x;
            sbb += y * y;
            sab += x * y;
        }
        if (saa > 0 && sbb > 0)   /* a constant channel has no correlation */
            r[nr++] = sab / sqrt(saa * sbb);
    }
    qsort(r, nr, sizeof *r, cmp_double);
    double med = nr == 0 ? NAN : nr % 2 ? r[nr / 2] : 0.5 * (r[nr / 2 - 1] + r[nr / 2]);
    free(r);
    return med;
}

XC_TEST_IF(test_parkes_requantised, "parkes_requantised", skip_no_fixtures)
{
    static const struct {
        const char *name;
        int nbits;
        double min_lsb;
    } files[] = {
        {"parkes_4bit.fil", 4, 0.95}, {"parkes_2bit.fil", 2, 0.9}, {"parkes_1bit.fil", 1, 0.75}};
    float *ref = read_all("parkes_8bit_1.fil", XC_BITORDER_LSB, NULL);
    CU_ASSERT_FATAL(ref != NULL);
    for (size_t i = 0; i < 3; i++) {
        xc_fbheader h;
        float *lsb = read_all(files[i].name, XC_BITORDER_LSB, &h);
        float *msb = read_all(files[i].name, XC_BITORDER_MSB, NULL);
        CU_ASSERT_FATAL(lsb && msb);
        check_parkes_header(&h, files[i].nbits);
        double rl = median_channel_corr(ref, lsb, 4096, 832);
        double rm = median_channel_corr(ref, msb, 4096, 832);
        printf("\n  %s: median channel correlation LSB %.3f, MSB %.3f", files[i].name, rl, rm);
        CU_ASSERT(rl >= files[i].min_lsb);
        CU_ASSERT(rm < 0.1);
        xc_fbheader_free(&h);
        free(lsb);
        free(msb);
    }
    printf("\n");
    free(ref);
}

XC_TEST_IF(test_tutorial, "tutorial", skip_no_fixtures)
{
    char path[512];
    xc_fx_sigpyproc_path(path, sizeof path, "tutorial.fil");
    xc_fbreader *r = NULL;
    xc_error err;
    CU_ASSERT_EQUAL_FATAL(xc_fbreader_open(&r, path, NULL, &err), XC_OK);
    const xc_fbheader *h = xc_fbreader_header(r);
    CU_ASSERT_EQUAL(h->nchans, 64);
    CU_ASSERT_EQUAL(h->fch1, 1510.0);
    XC_ASSERT_CLOSE(h->foff, -1.09, 1e-12);
    XC_ASSERT_CLOSE(h->tsamp, 320e-6, 1e-12);
    CU_ASSERT_EQUAL(h->nbits, 2);
    CU_ASSERT_EQUAL(h->nsamp, 187520);
    CU_ASSERT_EQUAL(h->header_bytes, 244);
    CU_ASSERT_EQUAL(h->telescope_id, 0);
    CU_ASSERT_EQUAL(h->machine_id, 0);
    CU_ASSERT(h->present[XC_FB_TELESCOPE_ID] && h->present[XC_FB_MACHINE_ID]);
    CU_ASSERT_STRING_EQUAL(h->source_name, "P: 250.000000000000 ms, DM: 30.000");
    CU_ASSERT_EQUAL(h->order[0], XC_FB_TELESCOPE_ID);
    CU_ASSERT_EQUAL(h->order[1], XC_FB_NBITS);
    CU_ASSERT_STRING_EQUAL(xc_fbreader_warning(r), "");
    uint16_t *u = malloc((size_t)h->nsamp * 64 * sizeof *u);
    CU_ASSERT_FATAL(u != NULL);
    CU_ASSERT_EQUAL(xc_fbreader_read_u16(r, 0, (size_t)h->nsamp, 0, u, &err), XC_OK);
    size_t count[4] = {0, 0, 0, 0}, n = (size_t)h->nsamp * 64;
    for (size_t i = 0; i < n; i++)
        count[u[i] & 3]++;
    CU_ASSERT_EQUAL(count[0], 0);
    CU_ASSERT_EQUAL(count[3], 0);
    XC_ASSERT_CLOSE((double)count[1] / (double)n, 0.36, 0.01);
    XC_ASSERT_CLOSE((double)count[2] / (double)n, 0.64, 0.01);
    /* First data byte 0x9a = 10 01 10 10: samples 2, 2, 1, 2 low bits first. */
    CU_ASSERT(u[0] == 2 && u[1] == 2 && u[2] == 1 && u[3] == 2);
    free(u);
    xc_fbreader_close(r);
}

XC_TEST_MAIN("filterbank")
