/* gate.h: what the pieces of `crosscheck gate` share (private to cli/).
 *   cmd_gate.c         options, the work folder, the verdict table, JUnit/JSON, exit code
 *   gate.c             external commands: placeholders, running one, its failure as a row
 *   cmd_gate_dd.c      gate dedisperse: the tiers' cases, reading a command's planes, the checks
 *   cmd_gate_search.c  gate search: the tiers' spectra, candidates against truth and the reference
 *   gate_tone.c        gate search's tone cases and the oracles that judge them
 *   gate_signif.c      gate search's sigma oracle
 *   cmd_gate_sp.c      gate singlepulse: the conformance suite (-impl, -plugin)
 *   gate_sp_cmd.c      gate singlepulse -cmd: bursts and noise, candidates against truth and reference
 *   gate_cache.c       CROSSCHECK_GATE_CACHE: a case's input and reference output made once, then copied
 *                      (gate dedisperse, gate singlepulse -cmd) */
#ifndef CMD_GATE_H
#define CMD_GATE_H

#include <stddef.h>

#include "cli/base/cli_verdict.h"
#include "compare/check/xc_checks.h"
#include "core/dedisp/plan/xc_dmplan.h"
#include "core/base/xc_error.h"
#include "core/base/xc_impl.h"
#include "core/search/xc_cands.h"
#include "core/search/xc_spectrum.h"
#include "synth/model/xc_synth.h"
#include "synth/truth/xc_truth.h"

/* The tolerance class the user declares (-exact, -float, -approx L), or the
 * implementation's own (a plugin's descriptor). */
typedef enum { GATE_CLASS_DEFAULT = 0, GATE_CLASS_EXACT, GATE_CLASS_FLOAT, GATE_CLASS_APPROX } gate_class;

enum { GATE_QUICK = 0, GATE_STANDARD, GATE_FULL };

typedef struct {
    const char *what;          /* "dedisperse", "search" or "singlepulse" */
    int tier;                  /* GATE_QUICK.. */
    const char *tier_name;
    const char *impl_name;     /* -impl */
    const xc_impl *impl;       /* the implementation judged (NULL with -cmd) */
    const char *cmd;           /* -cmd TEMPLATE */
    gate_class cls;
    double loss;               /* -approx L */
    double maxloss;            /* -maxloss: no loss bound above it is accepted (0: 0.2) */
    const xc_convention *cv;
    int format;                /* dedisperse: GATE_FMT_* */
    const char *junit, *json;
    double timeout;            /* seconds per external command */
    int keep, quiet;
    char work[4096];           /* the work folder (removed at the end unless -keep or -work) */
    int own_work;
    const char *label;         /* the name rows give the judged implementation */
    xc_vd vd;                  /* the rows; the first error that is no verdict (memory, the work folder) */
    int hint_done;             /* dedisperse: a failing case matched no other convention: stop looking */
    /* search */
    int family;                /* XC_FAMILY_PULSCAN or XC_FAMILY_ACCEL */
    /* singlepulse -cmd: 1 when the command reads PRESTO .dat/.inf series (-input dat) */
    int spinput;
    /* singlepulse -cmd: each burst's S/N within this fraction of the
     * reference's, its best box centre within this many samples (-snr_rtol,
     * -sample_tol; negative while not given) */
    double sp_snr_rtol, sp_sample_tol;
} gatectx;

enum { GATE_FMT_AUTO = 0, GATE_FMT_PLANE, GATE_FMT_NPY, GATE_FMT_DAT, GATE_FMT_TIM };
#define GATE_FORMATS "auto|plane|npy|dat|tim"

/* gate.c     */
/* The size of a case's paths. */
#define GATE_PATH 4096
/* dir = work/obs, and path[k] = dir/name[k] for k < n, each GATE_PATH bytes;
 * XC_EINVAL naming a path that does not fit. */
xc_status gate_case_paths(char *dir, const char *work, const char *obs, const char *const *name, char *const *path,
                          size_t n, xc_error *err);
/* p initialised (xc_synth_params_init) for a case's synthetic observation:
 * its geometry, length and noise seed, in g's convention; the caller adds the
 * rest (band edges, pulsar, pulses) and frees p. */
void gate_case_synth(const gatectx *g, int nchans, int nbits, double tsamp, double tobs, uint64_t seed,
                     xc_synth_params *p);
/* Whether a case of tier tier runs in g's tier; if so, its name on stderr
 * (unless -quiet) as "crosscheck gate <what>: <name>". */
int gate_case_due(const gatectx *g, int tier, const char *what, const char *name);
/* A placeholder of a -cmd template and its value. */
typedef struct {
    const char *key;
    const char *val;
} gate_kv;

/* tmpl (the value of option opt) with its {key} placeholders filled from
 * kv[0..n) into out[0..outn): {{ and }} are braces, values are quoted for
 * the shell where they need it.  XC_EINVAL naming opt and an unknown
 * placeholder and the ones there are, or a brace never closed. */
xc_status gate_fill(const char *opt, const char *tmpl, const gate_kv *kv, size_t n, char *out, size_t outn,
                    xc_error *err);

/* Fills the -cmd template's {key} placeholders from kv[0..n) ({{ and }} are
 * braces; values are quoted for the shell where they need it) and runs it
 * through `sh -c` with stdout and stderr into log, in its own process group,
 * at most g->timeout seconds.  1 when it exited 0; otherwise 0 after a failed
 * row naming the exit status (or the time limit) and the log's last line, or
 * a noted error (an unknown placeholder, naming the ones there are; a log
 * that cannot be written). */
int gate_cmd_output(gatectx *g, const char *obs, const gate_kv *kv, size_t n, const char *log);

/* gate_cache.c: with CROSSCHECK_GATE_CACHE=DIR set, 1 and dir[0..n) = the
 * entry of what (a kind of file set) for case name in convention cv made by
 * this binary; 0 when the cache is off (or the path does not fit). */
int gate_cache_key(const char *what, const char *name, const xc_convention *cv, char *dir, size_t n);
/* 1 when the entry dir holds files[0..n) and they were copied into folder
 * dest; 0 otherwise (make them). */
int gate_cache_get(const char *dir, const char *const *files, size_t n, const char *dest);
/* Keeps files[0..n) of folder src as the entry dir (whole or not at all;
 * an entry already there stays).  Best effort: nothing is reported. */
void gate_cache_put(const char *dir, const char *const *files, size_t n, const char *src);

/* cmd_gate_dd.c */
int gate_dedisperse(gatectx *g);
/* gate_tone.c: a tone case (white noise of sigma 1, a random walk of step
 * red, and a linearly drifting sinusoid of amplitude amp[0] with its second
 * harmonic of amplitude amp[1]; r0, z0 the fundamental's mid-observation r
 * and z over n samples of tsamp s; a companion: a second, unrelated
 * sinusoid of amplitude ampc at bin rc, not part of the truth). */
typedef struct {
    size_t n;
    double tsamp, r0, z0, amp[2], red;
    uint64_t seed;
    double rc, ampc;
} gate_tone;
/* Writes the tone's series to dat and its description (name) to inf. */
xc_status gate_tone_write(const gate_tone *t, const char *dat, const char *inf, const char *name, xc_error *err);
/* The tone's truth at the observation length T. */
void gate_tone_truth(const gate_tone *t, double T, xc_truth *tr);
/* A row judging the power of every candidate of cl above minsigma against
 * its direct correlation on sp (the accel family's definition; gate_tone.c
 * says how it is computed), within rtol relative. */
void gate_check_power_oracle(gatectx *g, const char *obs, const xc_candlist *cl, const xc_spectrum *sp,
                             double minsigma, double rtol);
/* The power of c by that direct correlation of Xn, the spectrum's nbins
 * amplitudes (re, im) normalised as the accel searchers normalise them. */
double gate_tone_oracle_power(const double *Xn, size_t nbins, const xc_cand *c);
/* A row judging sp dereddened (the searches' -rednoise step): the mean of
 * its noise powers in each octave from bin 2048, the tone's bins left out,
 * within tol of 1. */
void gate_check_dereddened(gatectx *g, const char *obs, const xc_spectrum *sp, const gate_tone *t, double tol);

/* gate_signif.c: the Gaussian-equivalent sigma of a candidate's logp and
 * ntrials (sigma 0 where p >= 1/2), by bisection on GSL's log erfc. */
double gate_sigma_oracle(double logp, double ntrials);
/* A row judging every candidate of cl with a logp against that oracle,
 * within rtol relative; with need_lp < 0 it also fails when no candidate's
 * trials-corrected ln p lies below need_lp (the case is too weak to reach
 * the regime it is there for). */
void gate_check_sigma_oracle(gatectx *g, const char *obs, const xc_candlist *cl, double need_lp, double rtol);

/* cmd_gate_search.c */
int gate_search(gatectx *g);
/* cmd_gate_sp.c */
int gate_singlepulse(gatectx *g);
/* gate_sp_cmd.c: -cmd judged on bursts and noise against ri's search */
int gate_singlepulse_cmd(gatectx *g, const xc_impl *ri);

#endif
