/* xc_presto.h: PRESTO time series (.dat float32) and their .inf text descriptions.
 * The .inf layout is PRESTO's src/ioinf.c writeinf: each label padded so that '='
 * sits at byte 40, two spaces, then the value; radio-band lines included. */
#ifndef XC_PRESTO_H
#define XC_PRESTO_H

#include <stddef.h>
#include <stdint.h>

#include "core/base/xc_error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    char name[256];            /* Data file name without suffix */
    char telescope[64];        /* "None (Artificial Data Set)" skips the observation lines */
    char instrument[64];
    char object[64];
    char ra[32], dec[32];      /* hh:mm:ss.ssss, dd:mm:ss.ssss */
    char observer[64];
    double mjd;                /* Epoch of observation (MJD) */
    int barycentered;
    double n;                  /* Number of bins in the time series */
    double dt;                 /* Width of each time series bin (sec) */
    int breaks;                /* on/off pairs are not supported: breaks must be 0 */
    char band[32];             /* "Radio" */
    double beam_diam;          /* arcsec */
    double dm;
    double freq_low;           /* Central freq of low channel (MHz) */
    double bw;                 /* Total bandwidth (MHz) */
    int nchan;
    double chan_wid;
    char analyzer[64];
    char notes[512];
} xc_inf;

void xc_inf_init(xc_inf *inf);
/* Reads `path` (an .inf file).  Unknown or malformed lines give XC_EFORMAT naming the line. */
xc_status xc_inf_read(xc_inf *inf, const char *path, xc_error *err);
/* Writes atomically (temp name, then rename). */
xc_status xc_inf_write(const xc_inf *inf, const char *path, xc_error *err);

/* Reads a whole .dat (float32) file; *n gets the sample count; caller frees *data. */
xc_status xc_dat_read(const char *path, float **data, size_t *n, xc_error *err);
/* Writes n float32 samples atomically. */
xc_status xc_dat_write(const char *path, const float *data, size_t n, xc_error *err);

#ifdef __cplusplus
}
#endif
#endif
