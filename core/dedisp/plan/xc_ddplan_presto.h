/* xc_ddplan_presto.h: PRESTO DDplan.py's dedispersion plans, computed in C.
 *
 * DDplan.py (Scott Ransom, PRESTO, bin/DDplan.py; the version of PRESTO v6.0.1,
 * whose dm_smear uses the exact band-edge delays of psr_utils.dm_smear)
 * chooses piecewise-uniform DM ranges, each with a DM step dDM, a downsample
 * factor and, with subbands, the spacing dsubDM of the nominal DMs at which a
 * prepsubband call makes its subbands.  This file reproduces its numbers
 * (same formulas, same double arithmetic, same order of operations), so a
 * plan printed by `crosscheck plan -ddplan` matches DDplan.py's number for
 * number.  Not to be confused with core/dedisp/run/xc_ddplan.c, the dedispersion plan
 * object (plan / execute / destroy).
 *
 * Smearing terms (all in ms; delays d(f) = DM / (0.000241 f^2) s, PRESTO's
 * psr_utils.delay_from_DM; Lorimer & Kramer 2005, Handbook of Pulsar
 * Astronomy, sect. 6.1, eq. 6.4 for the delay and 6.6 for its spread over
 * a band):
 *   dm_smear(DM, B, f, cDM)    = 1000 (d(f - B/2) - d(f + B/2)) at |DM - cDM|
 *   BW_smear(dDM)              = dm_smear(dDM/2, BW, fctr)   (worst DM error)
 *   subband_smear(dsubDM, n)   = dm_smear(dsubDM/2, BW/n, fctr), 0 for n = 0
 *   chan_smear(DM)             = dm_smear(DM, BW/nchans, fctr, cDM)
 *   total_smear(row, DM)       = sqrt(dt^2 + (dt ds)^2 + BW_smear^2 + subband_smear^2 + chan_smear^2)
 * with dt = 1000 tsamp ms.  The step from one range to the next
 * (DM_for_smearfact) keeps DDplan.py's small-bandwidth form
 * 0.0001205 f^3 (Lorimer & Kramer eq. 5.2 rearranged), as DDplan.py does.
 */
#ifndef XC_DDPLAN_PRESTO_H
#define XC_DDPLAN_PRESTO_H

#include <stddef.h>

#include "core/dedisp/plan/xc_dmplan.h"
#include "core/base/xc_error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* DDplan.py's inputs (its option letters in brackets). */
typedef struct {
    double lodm, hidm;    /* [-l, -d] pc cm^-3 */
    double fctr, bw;      /* [-f, -b] MHz */
    int nchans;           /* [-n] */
    double dt;            /* [-t] sample time in SECONDS (DDplan.py's unit) */
    int nsub;             /* [-s] 0: no subbands */
    int numprocs;         /* [-p] 1 */
    double cdm;           /* [-c] coherent DM within channels, 0 */
    double res_ms;        /* [-r] acceptable time resolution in ms, 0 */
    int blocklen;         /* [-k] spectra per subint, 1024 (2400 for .fil input) */
} xc_ddp_obs;

/* The trials of a plan DDplan.py printed (its stdout saved in path; `crosscheck
 * plan -ddplan` prints the same table): each row under the header "Low DM
 * High DM  dDM  DownSamp [dsubDM]  #DMs ..." is a range of #DMs trials dDM
 * apart from Low DM at DownSamp (lo:hi:dDM:DownSamp as xc_dmplan_parse
 * takes it); the table ends at its first blank line; the text around it and
 * the subband columns (dsubDM, DMs/call, calls: how prepsubband would make
 * them) are not used.  XC_EINVAL naming the file, line and field: no table,
 * a short row, #DMs other than round((High - Low) / dDM), a DownSamp that is
 * no integer in 1..XC_DMPLAN_MAX_DS, ranges that overlap; XC_EIO. */
xc_status xc_ddp_read(xc_dmplan *p, const char *path, xc_error *err);

/* DDplan.py's defaults: 0..1000, 1400 MHz, 300 MHz, 1024 channels, 64 us,
 * no subbands, 1 process, blocklen 1024. */
void xc_ddp_obs_default(xc_ddp_obs *o);

/* One row of the plan (DDplan.py's dedisp_method). */
typedef struct {
    double lodm, hidm, ddm, dsubdm;
    int downsamp;
    long numdms;
    long dms_per_call, calls;   /* with subbands; 0 otherwise */
    double work_fract;          /* numdms/downsamp, normalised over rows */
    double bw_smear, sub_smear; /* ms, constant over the row */
    double chan_smear_lo, chan_smear_hi;    /* ms at the row's first and last DM */
    double total_smear_lo, total_smear_hi;  /* ms, the row's total_smear there */
} xc_ddp_row;

typedef enum { XC_DDP_NOTE_NONE, XC_DDP_NOTE_OKSMEAR, XC_DDP_NOTE_CHANSMEAR } xc_ddp_note;

typedef struct {
    xc_ddp_obs obs;
    double min_total_smear, min_chan_smear, min_bw_smear, min_dt; /* ms, DDplan.py's header lines */
    double ok_smear;            /* the "new 'best' resolution", ms */
    xc_ddp_note note;           /* why the first downsample is > 1, if it is */
    int first_downsamp;
    double guess_ddm;           /* "Best guess for optimal initial dDM" */
    int nrows;
    xc_ddp_row *rows;           /* owned */
} xc_ddp_plan;

/* Makes the plan.  XC_EINVAL for inputs DDplan.py cannot plan (hidm <= lodm,
 * non-positive dt, fctr, bw, nchans, blocklen, negative nsub, numprocs < 1,
 * running out of downsample factors or DM steps, where DDplan.py raises
 * IndexError), XC_ENOMEM. */
xc_status xc_ddp_make(xc_ddp_plan *p, const xc_ddp_obs *o, xc_error *err);
void xc_ddp_free(xc_ddp_plan *p);

/* The smearing terms above, in ms. */
double xc_ddp_dm_smear(double dm, double bw, double fctr, double cdm);
double xc_ddp_bw_smear(double ddm, double bw, double fctr);
double xc_ddp_subband_smear(double dsubdm, int nsub, double bw, double fctr);
/* Total smearing of a row at DM (DDplan.py's dedisp_method.total_smear). */
double xc_ddp_row_total_smear(const xc_ddp_obs *o, const xc_ddp_row *r, double dm);
/* DDplan.py's choose_downsamps: the downsample factors allowed for blocklen.
 * Writes at most max of them to out; returns how many there are. */
int xc_ddp_downsamps(int blocklen, int *out, int max);

/* ---- a subband plan chosen from a smearing budget (xc_ddplan_budget.c) ----
 * For each candidate nsub (0: direct, no subbands) the DDplan.py plan with
 * that nsub is made and judged by
 *  - its work: additions per input sample, summed over rows, of the two
 *    stages: stage 1 makes each call's nsub subbands from all nchans channels
 *    (calls x nchans), stage 2 sums nsub subbands for each trial (numdms x
 *    nsub), both at the row's resolution (/ downsamp); direct is numdms x
 *    nchans / downsamp.  speedup = direct additions of the same trials / these.
 *  - its S/N-loss bound, core/dedisp/approx/xc_subband.h's: a trial served by a nominal DM at
 *    most dsubDM/2 away (PRESTO makes a call's subbands at the middle of its
 *    DMs) is spread over S = floor(S_cont) + 3 samples of the row
 *    (xc_subband_spread, alignment highest, the band laid out from fctr, bw
 *    and nchans), and a boxcar of W samples (W = width / (dt downsamp), at
 *    least 1) loses at most xc_subband_loss_bound(W, S).  The worst over rows
 *    and widths is the plan's bound.
 * The choice is the candidate with the fewest additions whose bound is at most
 * maxloss (a fraction); direct (loss 0) is always a candidate. */
typedef struct {
    int nsub;                    /* 0: direct */
    int nrows;
    double adds, adds_direct;    /* additions per input sample: this plan, direct on its trials */
    double speedup;              /* adds_direct / adds */
    long ndm;                    /* trials over all rows */
    double loss_bound;           /* worst over rows and widths */
    int worst_row;
    double worst_width_us;
    double worst_spread;         /* S of the worst row, samples of that row */
    int within;                  /* loss_bound <= maxloss */
} xc_ddp_alt;

/* Judges the candidates nsubs[0..n) (each 0 or 1..nchans) for o (o->nsub is
 * ignored) at the pulse widths widths_us[0..nw) under convention cv (k_DM of
 * the spread; NULL: presto); alts[0..n) receives each candidate and *choice
 * the index of the chosen one (-1 if none is within maxloss, which can only
 * happen without a 0 among the candidates).  XC_EINVAL for bad inputs or a
 * candidate DDplan.py cannot plan, XC_ENOMEM. */
xc_status xc_ddp_choose(const xc_ddp_obs *o, const int *nsubs, int n, const double *widths_us, int nw,
                        double maxloss, const xc_convention *cv, xc_ddp_alt *alts, int *choice, xc_error *err);

#ifdef __cplusplus
}
#endif
#endif
