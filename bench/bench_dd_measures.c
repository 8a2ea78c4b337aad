/* What a dedispersion benchmark record is held against (xc_bench_dd.h):
 * the machine's limits, and an approximate entry's measured S/N loss. */
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench/xc_bench_dd.h"
#include "compare/xc_smear.h"
#include "optimized/cpu/xc_cpu.h"

/* The worst S/N loss of an approximate dedisperser against direct
 * dedispersion on injected pulses (compare/xc_smear.h), widths 1 and 4
 * samples, with the run's options (nsub, smear budget).  every > 0: on the
 * bench's own plan (Table 2), a pulse at every every-th trial, so the groups
 * and smears measured are those of the timed run; direct on the device when
 * the approximate entry is a device one (the pulses make a long input).
 * every 0: the quick measure, the first 12 trials of each Table 2 range (every
 * 3rd), whose own plan groups trials differently (a large smear budget shows
 * no more loss there than a small one). */
const int xc_bench_dd_loss_widths[XC_BENCH_DD_LOSS_NW] = {1, 4};

double xc_bench_dd_worst_loss(const xc_registry *reg, const xc_dedisperser *a, const xc_geometry *g,
                              const xc_convention *cv, const xc_ddopts *run, int every, double *by_width)
{
    const xc_impl *di = NULL;
    if ((a->impl.caps & XC_CAP_DEVICE) && every > 0)
        di = xc_registry_pick(reg, XC_FAMILY_DEDISPERSE, XC_CAP_DEVICE,
                              XC_CAP_APPROXIMATE | XC_CAP_REFERENCE | XC_CAP_RUNTIME);
    /* else the default implementation: threaded, neither on a device,
     * approximate nor added at run time */
    if (!di)
        di = xc_registry_pick(reg, XC_FAMILY_DEDISPERSE, XC_CAP_THREADED,
                              XC_CAP_DEVICE | XC_CAP_APPROXIMATE | XC_CAP_RUNTIME);
    xc_smear_cfg cfg = {g->nchans, g->fch1, g->foff, g->tsamp,
                        every > 0 ? TABLE2_PLAN : "0:1.2:0.1:1,150:152.4:0.2:1,300:303:0.25:1",
                        cv->name, xc_bench_dd_loss_widths, XC_BENCH_DD_LOSS_NW, every > 0 ? (size_t)every : 3, 1.0};
    xc_ddopts o;
    memset(&o, 0, sizeof o);
    o.threads = run->threads;
    o.nsub = run->nsub;
    o.subbudget = run->subbudget;
    o.subalign = run->subalign;
    o.subsplit = run->subsplit;
    xc_smear_row *rows = NULL;
    size_t n = 0;
    xc_error e;
    double worst = NAN;
    for (int w = 0; w < XC_BENCH_DD_LOSS_NW; w++)
        by_width[w] = NAN;
    if (di && !xc_smear_measure(a, xc_dedisperser_of(di), &o, &cfg, &rows, &n, &e)) {
        worst = 0;
        for (int w = 0; w < XC_BENCH_DD_LOSS_NW; w++)
            by_width[w] = 0;
        for (size_t i = 0; i < n; i++) {
            worst = fmax(worst, rows[i].snr_loss);
            for (int w = 0; w < XC_BENCH_DD_LOSS_NW; w++)
                if (rows[i].width == xc_bench_dd_loss_widths[w])
                    by_width[w] = fmax(by_width[w], rows[i].snr_loss);
        }
    }
    free(rows);
    return worst;
}

void xc_bench_dd_limits(json_t *rec, const xc_bench_machine *mc, int nbits, int threads, double adds, double cpu,
                        const xc_ddjob *job)
{
    xc_cpu_layout lay;
    xc_error err;
    if (xc_cpu_layout_for(nbits, 1, &lay, &err))
        return;
    int cores = threads < mc->cores ? threads : mc->cores;
    int lanes = mc->vector_bytes / lay.narrow_bytes;
    /* Measured: a core's 16-bit lane adds per second, in lanes of the narrow
     * accumulator (half as many 32-bit lanes per vector). */
    double peak = (double)cores * mc->add16 * 2.0 / lay.narrow_bytes;
    double nominal = (double)cores * mc->mhz * 1e6 * lanes;
    double bw = threads > 1 ? mc->bwn : mc->bw1;
    /* Compulsory traffic: the input as given (uint16) read once and the float
     * plane written once. */
    double out_bytes = 0;
    for (int k = 0; k < job->plan->nranges; k++)
        out_bytes += 4.0 * (double)job->plan->r[k].ndm * (double)(job->nout / (size_t)job->plan->r[k].ds);
    double in_bytes = 2.0 * (double)job->in->nsamp * (double)job->in->nchans;
    json_object_set_new(rec, "peak_adds_per_s", json_real(peak));
    json_object_set_new(rec, "peak_lanes", json_integer(lanes));
    if (cpu > 0 && peak > 0)
        json_object_set_new(rec, "cpu_peak_fraction", json_real(adds / cpu / (peak / cores)));
    json_object_set_new(rec, "peak_adds_per_s_nominal", json_real(nominal));
    /* The paired 8-bit kernel's own instruction mix on line-split loads: the
     * most it can reach on this core (cpu_mix_probe.c). */
    if (nbits <= 8 && mc->mix_split > 0) {
        json_object_set_new(rec, "mix_ceiling_adds_per_s", json_real((double)cores * mc->mix_split));
        json_object_set_new(rec, "mix_aligned_adds_per_s", json_real((double)cores * mc->mix_aligned));
        if (cpu > 0)
            json_object_set_new(rec, "cpu_mix_ceiling_fraction", json_real(adds / cpu / mc->mix_split));
    }
    json_object_set_new(rec, "memory_bound_adds_per_s", json_real(bw > 0 ? adds * bw / (in_bytes + out_bytes) : 0));
    json_object_set_new(rec, "memory_noreuse_adds_per_s", json_real(bw / lay.store_bytes));
}
