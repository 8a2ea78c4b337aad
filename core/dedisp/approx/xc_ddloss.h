/* xc_ddloss.h: the S/N loss an approximate dedisperser declares for a plan,
 * stated for a pulse width, and the parameters chosen from it.
 *
 * An approximate dedisperser declares for every output trial a bound S on
 * the extra spread of a pulse, in samples of the trial's range
 * (core/dedisp/approx/xc_ddbound.h).  A boxcar pulse of W samples found by a
 * matched boxcar then loses at most 1 - sqrt(W / (W + S)) of its S/N
 * (xc_subband_loss_bound); the plan's declared loss is the largest over
 * every trial.  S holds 3 samples of rounding (the two stages' and direct
 * dedispersion's own), so no plan declares less than 1 - sqrt(W / (W + 3)):
 * 50 % at W = 1, 24 % at W = 4, 14.7 % at W = 8.  The bound says something
 * only for pulses of several samples, hence the default width of 8 samples,
 * the smallest power of two at which the default limit of 0.2 can be met.
 *
 * Defaults from the geometry: where opts.nsub is 0, the subband and tree
 * plans try every candidate (subband: the powers of two from 2 below nchans,
 * and nchans; tree: the powers of two 1 .. P, P the channels padded to a
 * power of two) on the job's own geometry and DM plan, and keep the
 * cheapest whose declared loss is within opts.maxloss (subband: the fewest
 * additions per output sample; tree: the fewest subbands, so the longest
 * trees); where none is, the one of the smallest declared loss, which
 * xc_ddloss_check then refuses. */
#ifndef XC_DDLOSS_H
#define XC_DDLOSS_H

#include <stddef.h>
#include <stdint.h>

#include "core/dedisp/approx/xc_ddbound.h"
#include "core/dedisp/xc_dedisperse.h"
#include "core/base/xc_error.h"

#ifdef __cplusplus
extern "C" {
#endif

#define XC_DDLOSS_MAX 0.2     /* xc_ddopts.maxloss 0 */
#define XC_DDLOSS_WIDTH 8.0   /* xc_ddopts.losswidth 0: samples of each range */

typedef struct {
    double loss;      /* the largest declared loss over every trial (0: no trial) */
    int range;        /* its trial: range, index and DM (range -1: no trial) */
    size_t trial;
    double dm;
    double smear;     /* its S_cont, samples */
    int32_t bound;    /* its S, samples */
    double width;     /* W the loss is stated for, samples */
    double maxloss;   /* the limit it is judged against */
} xc_ddloss;

/* opts' limit and width, with their defaults. */
double xc_ddloss_max(const xc_ddopts *o);
double xc_ddloss_width(const xc_ddopts *o);

/* An empty worst (loss 0, range -1) at opts' width and limit. */
void xc_ddloss_init(xc_ddloss *w, const xc_ddopts *o);
/* Folds trial i of range k (DM dm, bound S, smear) into the worst. */
void xc_ddloss_add(xc_ddloss *w, int k, size_t i, double dm, int32_t bound, double smear);

/* Evaluates one candidate: the job is a copy with opts.nsub set to it. */
typedef xc_status (*xc_ddloss_eval)(const xc_ddjob *job, void *ctx, xc_ddloss *loss, double *cost, xc_error *err);
/* The default nsub among cand[0..n) (above); *nsub gets it. */
xc_status xc_ddloss_choose(const xc_ddjob *job, const int *cand, int n, xc_ddloss_eval eval, void *ctx, int *nsub,
                           xc_error *err);

/* The declared loss of self (an entry with a bound method) for a prepared
 * job; *keep, if given, gets the per-trial bounds (free with
 * xc_ddbound_free(*keep, job->plan->nranges)).  XC_EINVAL if self declares
 * no bound. */
xc_status xc_ddloss_of(const xc_dedisperser *self, const xc_ddjob *job, xc_ddloss *out, xc_ddbound ***keep,
                       xc_error *err);
/* XC_OK when l->loss <= l->maxloss; else XC_EINVAL with a message naming
 * the implementation (name), the parameters (setup, e.g. "nsub 2 (given)"),
 * the bound, its trial, and what would meet the limit (remedy, e.g. "a
 * larger -nsub"; NULL: a general phrase). */
xc_status xc_ddloss_check(const char *name, const char *setup, const char *remedy, const xc_ddloss *l,
                          xc_error *err);

#ifdef __cplusplus
}
#endif
#endif
