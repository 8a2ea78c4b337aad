/* gate_dd_io.h: internal to cli/: the cases of `crosscheck gate dedisperse`
 * (cmd_gate_dd.c) and the files around a user's command: the inputs it is
 * given and the planes it wrote (gate_dd_io.c). */
#ifndef XC_GATE_DD_H
#define XC_GATE_DD_H

#include "cli/gate/gate.h"
#include "core/dedisp/xc_dedisperse.h"
#include "core/dedisp/plan/xc_dmplan.h"
#include "synth/model/xc_synth.h"

/* One case of a tier: a synthetic observation with pulses, or (impulses)
 * a noiseless block with a lone impulse in each channel in turn. */
typedef struct {
    const char *name;
    int tier;                  /* the first tier it is in */
    int nchans, nbits;
    double tsamp, tobs, fch1, foff;
    const char *dmplan;        /* one range, downsample 1: what a DM-list tool takes */
    int npulses;
    xc_synth_pulse pulse[2];   /* t_s, dm, width_ms, snr */
    double snr_rtol;           /* the pulses' S/N against the truth */
    int impulses;
    uint64_t seed;
} ddcase;

/* The impulses case's filterbank at fil: channel ch holds a single 1 at
 * sample maxd + ch S, zeros elsewhere (maxd the plan's largest delay, S =
 * maxd + 1 returned in *spacing), so no two channels' impulses meet. */
xc_status gate_dd_write_impulses(const ddcase *c, const xc_convention *cv, const xc_dmplan *plan, const char *fil,
                                 int64_t *spacing, xc_error *err);
/* The plan's first range's DM trials into path (text, one per line) and
 * jpath (JSON: dms, dm_lo, dm_hi, dm_step, ndm), for a DM-list tool. */
xc_status gate_dd_write_dmlists(const char *path, const char *jpath, const xc_dmplan *plan, xc_error *err);
/* Reads what the command wrote under the prefix out into pl (one range of
 * ndm x nsamp, the reference's shape; longer series are cut).  0, or 1 after
 * a failed row saying what is missing or malformed. */
int gate_dd_read_output(gatectx *g, const char *obs, const char *out, const xc_dmplan *plan, size_t nsamp,
                        xc_plane *pl);

#endif
