/* GPU dedisperser, host side: autotuning.  Among the candidate settings
 * whose tiles fit in shared memory, the one whose launch over the first
 * TUNE_DMS trials of the range's first chunk takes the least time per trial. */
#include <cuda_runtime.h>
#include <stddef.h>

#include "optimized/gpu/dd_host.h"
#include "optimized/gpu/gpu_dd.h"

namespace xcdd {

/* Chooses range k's setting on its first chunk: the only candidate that fits,
 * or, with several, the one whose launch over the first TUNE_DMS trials of this
 * chunk takes the least time per trial.  The choice is the state's: later
 * chunks and jobs keep it.  On an error the range stays undecided. */
xc_status decide(ctx &c, int k, size_t lk)
{
    range_plan &r = c.s->rp[k];
    if (r.direct) {
        r.decided = 1;
        return XC_OK;
    }
    r.use = -1;
    r.ntimed = 0;
    if (r.nfit == 1) {
        for (int j = 0; j < r.ncand; j++)
            if (r.fits[j])
                r.use = j;
        r.decided = 1;
        return XC_OK;
    }
    double best = 0;
    for (int j = 0; j < r.ncand; j++) {
        if (!r.fits[j])
            continue;
        const cfg &g = r.cand[j];
        const size_t want = r.ndm < TUNE_DMS ? r.ndm : TUNE_DMS;
        const size_t tiles = ceil_div(want, (size_t)g.dy);
        double warm = 0, ms = 0;
        xc_status st = ensure_pack(c, k, r.fmt, tile_words(r, j));
        if (!st)
            st = ensure_tmin(c, k, j);
        if (!st)
            st = run_smem(c, k, j, lk, tiles, &warm);
        if (!st)
            st = run_smem(c, k, j, lk, tiles, &ms);
        if (st)
            return st;
        c.tune_ms += warm + ms;
        const size_t dms = tiles * (size_t)g.dy < r.ndm ? tiles * (size_t)g.dy : r.ndm;
        const double score = ms / (double)dms;
        r.ntimed++;
        if (r.use < 0 || score < best) {
            r.use = j;
            best = score;
        }
    }
    r.tuned = 1;
    r.decided = 1;
    return XC_OK;
}

} // namespace xcdd
