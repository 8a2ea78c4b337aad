/* xc_fb_keys.c: SIGPROC header keywords.  One table drives reading,
 * writing and naming, so adding a keyword is one line (SIGPROC's own
 * read_header.c is an if-chain; FFTW's CONVENTIONS: "favor a table"). */
#include "core/io/xc_fb_keys.h"

#include <string.h>

#define F(field) offsetof(xc_fbheader, field)
static const xc_fbkeyspec keytab[] = {
    {"telescope_id", VT_INT32, XC_FB_TELESCOPE_ID, F(telescope_id)},
    {"machine_id", VT_INT32, XC_FB_MACHINE_ID, F(machine_id)},
    {"data_type", VT_INT32, XC_FB_DATA_TYPE, F(data_type)},
    {"rawdatafile", VT_STRING, XC_FB_RAWDATAFILE, F(rawdatafile)},
    {"source_name", VT_STRING, XC_FB_SOURCE_NAME, F(source_name)},
    {"barycentric", VT_INT32, XC_FB_BARYCENTRIC, F(barycentric)},
    {"pulsarcentric", VT_INT32, XC_FB_PULSARCENTRIC, F(pulsarcentric)},
    {"az_start", VT_FLOAT64, XC_FB_AZ_START, F(az_start)},
    {"za_start", VT_FLOAT64, XC_FB_ZA_START, F(za_start)},
    {"src_raj", VT_FLOAT64, XC_FB_SRC_RAJ, F(src_raj)},
    {"src_dej", VT_FLOAT64, XC_FB_SRC_DEJ, F(src_dej)},
    {"tstart", VT_FLOAT64, XC_FB_TSTART, F(tstart)},
    {"tsamp", VT_FLOAT64, XC_FB_TSAMP, F(tsamp)},
    {"nbits", VT_INT32, XC_FB_NBITS, F(nbits)},
    {"nsamples", VT_INT32, XC_FB_NSAMPLES, F(nsamples)},
    {"fch1", VT_FLOAT64, XC_FB_FCH1, F(fch1)},
    {"foff", VT_FLOAT64, XC_FB_FOFF, F(foff)},
    {"nchans", VT_INT32, XC_FB_NCHANS, F(nchans)},
    {"nifs", VT_INT32, XC_FB_NIFS, F(nifs)},
    {"refdm", VT_FLOAT64, XC_FB_REFDM, F(refdm)},
    {"period", VT_FLOAT64, XC_FB_PERIOD, F(period)},
    {"nbeams", VT_INT32, XC_FB_NBEAMS, F(nbeams)},
    {"ibeam", VT_INT32, XC_FB_IBEAM, F(ibeam)},
    {"nbins", VT_INT32, XC_FB_NBINS, F(nbins)},
    {"signed", VT_BYTE, XC_FB_SIGNED, F(signed_data)},
    {"npuls", VT_INT64, XC_FB_NPULS, F(npuls)},
    {"FREQUENCY_START", VT_FTABLE_START, XC_FB_FREQUENCY_TABLE, 0},
    {"fchannel", VT_FCHANNEL, -1, 0},
    {"FREQUENCY_END", VT_FTABLE_END, -1, 0},
};
#undef F
#define NKEYTAB (sizeof keytab / sizeof keytab[0])

const xc_fbkeyspec *xc_fbkey_by_name(const char *name)
{
    for (size_t i = 0; i < NKEYTAB; i++)
        if (strcmp(keytab[i].name, name) == 0)
            return &keytab[i];
    return NULL;
}

const xc_fbkeyspec *xc_fbkey_by_key(int k)
{
    for (size_t i = 0; i < NKEYTAB; i++)
        if (keytab[i].key == k)
            return &keytab[i];
    return NULL;
}

const char *xc_fbkey_name(xc_fbkey k)
{
    const xc_fbkeyspec *s = xc_fbkey_by_key((int)k);
    return s ? s->name : "?";
}
