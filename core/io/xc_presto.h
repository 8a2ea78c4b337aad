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

/* PRESTO's MAXNUMONOFF (include/makeinf.h): readinf refuses this many pairs
 * or more.  The bins between one pair's off and the next pair's on are
 * padding (prepdata/prepsubband fill them with the data's average); a last
 * pair (N-1, N-1) marks padding that runs to the end. */
#define XC_INF_MAXONOFF 40

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
    int breaks;                /* 1: the on/off pairs below say which bins are data */
    int numonoff;              /* pairs read or to write (only when breaks is 1) */
    double onoff[2 * XC_INF_MAXONOFF]; /* first and last bin of each stretch of data */
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
/* Writes atomically (temp name, then rename); with breaks 1 the on/off pairs
 * follow the breaks line as writeinf lays them out. */
xc_status xc_inf_write(const xc_inf *inf, const char *path, xc_error *err);

/* Bins that are data (the sum over the on/off pairs; N without breaks). */
double xc_inf_data_bins(const xc_inf *inf);
/* Marks bins ndata..N-1 as padding, as prepdata's update_infodata does for
 * padding written after the data: pairs (0, ndata-1) and (N-1, N-1);
 * no breaks when ndata >= N. */
void xc_inf_set_padding(xc_inf *inf, double ndata);

/* Reads a whole .dat (float32) file; *n gets the sample count; caller frees *data. */
xc_status xc_dat_read(const char *path, float **data, size_t *n, xc_error *err);
/* Writes n float32 samples atomically. */
xc_status xc_dat_write(const char *path, const float *data, size_t n, xc_error *err);

#ifdef __cplusplus
}
#endif
#endif
