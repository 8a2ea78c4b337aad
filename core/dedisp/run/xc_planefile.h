/* xc_planefile.h: DM-time planes on disk.
 *
 *   OUT.json     metadata: implementation, convention (with k_DM, rounding,
 *                precision, scaling), the full command line, the input, nbits,
 *                tsamp, nchans, channel frequencies, kill mask count, max delay,
 *                and per range: lo, hi, step, ds, tsamp, nsamp, dms, file; plus a
 *                flat `dms` list over all ranges; for an approximate dedisperser
 *                its parameters and per-trial bound (core/dedisp/run/xc_ddrecord.h).
 *   OUT.r<k>.npy float32 [ndm][nsamp], C order, one per range.
 *
 * Everything is written under temporary names and renamed at commit, so a
 * failed run leaves nothing behind.  Rows can be written in time segments so a
 * file larger than memory can be dedispersed gulp by gulp. */
#ifndef XC_PLANEFILE_H
#define XC_PLANEFILE_H

#include <stddef.h>
#include <stdint.h>

#include "core/dedisp/xc_dedisperse.h"
#include "core/dedisp/plan/xc_dmplan.h"
#include "core/base/xc_error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    char impl[64];
    char convention[32];
    char cmdline[4096];
    char input[1024];
    int nbits;
    int nchans;
    int nchans_used;          /* unmasked channels */
    double tsamp, fch1, foff;
    int64_t max_delay;        /* original samples */
    uint64_t nsamp_in;
    double seconds;           /* wall time of the dedispersion itself */
    struct json_t *approx;    /* written as "approximate": an approximate dedisperser's record
                               * (core/dedisp/run/xc_ddrecord.h; borrowed; NULL: none, and after reading) */
} xc_planemeta;

typedef struct xc_planewriter xc_planewriter;

/* Opens OUT.json's npy files (temporary names) for a plane whose range k has
 * nsamp[k] samples per trial. */
xc_status xc_planewriter_open(xc_planewriter **w, const char *out, const xc_dmplan *plan,
                              const size_t *nsamp, xc_error *err);
/* Writes samples [t0, t0+pr->nsamp) of every trial of range k from pr->data. */
xc_status xc_planewriter_put(xc_planewriter *w, int k, size_t t0, const xc_planerange *pr,
                             xc_error *err);
/* Writes OUT.json and renames every file into place. */
xc_status xc_planewriter_commit(xc_planewriter *w, const xc_planemeta *m, xc_error *err);
void xc_planewriter_abort(xc_planewriter *w);

/* The JSON array of range r's trial DMs, each also appended to flat (the
 * plan's list over all ranges), as the plane file's `dms` fields. */
struct json_t *xc_planefile_range_dms(const xc_dmrange *r, struct json_t *flat);

/* Convenience: writes a whole plane at once. */
xc_status xc_plane_write(const char *out, const xc_plane *pl, const xc_dmplan *plan,
                         const xc_planemeta *m, xc_error *err);

/* A plane read back from OUT.json (+ npy files next to it). */
typedef struct {
    xc_planemeta meta;
    xc_dmplan plan;
    xc_plane plane;
    double *freqs;            /* nchans channel frequencies (owned) */
} xc_planefile;

xc_status xc_planefile_read(xc_planefile *pf, const char *json_path, xc_error *err);
/* The bytes its range files hold on disk (what reading it needs in memory),
 * from the manifest alone: for refusing work before any large allocation.
 * xc_planefile_read itself refuses a plane beyond xc_mem_check's limit. */
xc_status xc_planefile_disk_bytes(const char *json_path, double *bytes, xc_error *err);
void xc_planefile_free(xc_planefile *pf);

#ifdef __cplusplus
}
#endif
#endif
