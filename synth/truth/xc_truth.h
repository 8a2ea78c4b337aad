/* xc_truth.h: what a search of synthetic data should find, in one struct.
 *
 * The synthesizer writes the truth file (synth/write/synth_truth.c); this is its
 * one reader.  Every consumer (compare cands -truth, run, gate, the
 * population manifest, the study, the fuzz target) reads a truth through
 * xc_truth_read / xc_truth_load, and the in-memory synthesis
 * (xc_synth_dedispersed_series) hands the same struct over directly. */
#ifndef XC_TRUTH_H
#define XC_TRUTH_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "core/base/xc_error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One single pulse of the truth file's "pulses" array (synth/synth_truth.c). */
typedef struct {
    double t_s;           /* centre of the pulse at the highest channel, s: where the dedispersed series has it */
    double dm;            /* pc cm^-3 */
    double width_ms;      /* intrinsic width */
    double snr;           /* peak S/N per sample of the dedispersed series; NaN when absent */
    double expected_boxcar_snr; /* what a boxcar matched to the width gives; NaN when absent */
} xc_truth_pulse;

typedef struct {
    double f0_hz;         /* true spin frequency (rest frame, or mean apparent) */
    double r, z;          /* true mid-observation r and z at T; f0*T and 0 when the file has none */
    double T;             /* s; 0 when neither the file nor the caller gave it */
    int have_rz;
    double w;             /* T^3 <fdotdot> at T; NaN when the file has none */
    double snr_folded;    /* pulsar.expected.snr_folded; NaN when absent */
    uint64_t nsamp_dedispersed; /* dedispersed.nsamp: samples of the series described; 0 when absent */
    /* The single pulses: NULL and 0 unless read by xc_truth_load_pulses or
     * xc_truth_parse_pulses (xc_truth_parse leaves them out, so the many
     * truths made in memory own nothing); xc_truth_free releases them. */
    xc_truth_pulse *pulses;
    size_t npulses;
} xc_truth;

/* 1 if t describes a pulsar: a positive, finite spin frequency. */
int xc_truth_has_pulsar(const xc_truth *t);

/* Fills t from a truth JSON tree: f0_hz (or period_s / period_ms), r, z, w
 * and tobs_s, each looked up at the top level, then under "pulsar", "truth"
 * and "params"; nsamp * tsamp_s also gives T.  T > 0 overrides the file's T.
 * A tree without a pulsar is accepted (f0_hz not positive); src names the
 * tree in messages.  XC_EFORMAT for an r or z that is not finite. */
xc_status xc_truth_parse(xc_truth *t, const json_t *root, const char *src, double T, xc_error *err);

/* xc_truth_parse of the file at path. */
xc_status xc_truth_load(xc_truth *t, const char *path, double T, xc_error *err);

/* xc_truth_load that also needs a pulsar: XC_EFORMAT when the file has no
 * positive spin frequency (what comparators read with -truth). */
xc_status xc_truth_read(xc_truth *t, const char *path, double T, xc_error *err);

/* Fills t->pulses from the tree's "pulses" array (replacing any): each an
 * object with finite t_s, dm and width_ms >= 0, optional snr and
 * expected_boxcar_snr.  XC_EFORMAT naming src, the pulse and the field;
 * XC_ENOMEM.  A tree without the array gives no pulses. */
xc_status xc_truth_parse_pulses(xc_truth *t, const json_t *root, const char *src, xc_error *err);

/* xc_truth_load with the pulses; XC_EFORMAT when the file has none (what
 * single-pulse comparators read with -truth).  Release with xc_truth_free. */
xc_status xc_truth_load_pulses(xc_truth *t, const char *path, xc_error *err);

/* Releases the pulses (t stays usable, with none). */
void xc_truth_free(xc_truth *t);

#ifdef __cplusplus
}
#endif
#endif
