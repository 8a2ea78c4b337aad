/* crosscheck gate search: the tiers' synthetic pulsars, the user's search
 * (an external command, or a Pulscan searcher a plugin registered) on each,
 * and its candidates against the truth and against the reference searcher's
 * candidates. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/base/cli.h"
#include "cli/gate/gate.h"
#include "compare/xc_cmpcands.h"
#include "core/search/xc_cands.h"
#include "core/io/xc_fft.h"
#include "core/base/xc_fs.h"
#include "core/base/xc_fmt.h"
#include "core/search/xc_psearch.h"
#include "synth/model/xc_synth.h"

/* One case: a dedispersed series of a pulsar (synth -dedispersed), its
 * spectrum, and the search's parameters. */
typedef struct {
    const char *name;
    int tier;
    int nchans, nbits;
    double tsamp, tobs, period_ms, width_pct, snrpeak, dm, accn;
    int zmax, numharm;
    double sigma;
    uint64_t seed;
    /* a tone case (gate_tone.c) instead of the pulsar above; family: the
     * one it is for (-1 both); mode: TONE_* */
    const gate_tone *tone;
    int family, mode;
} pscase;

/* A tone case's search, run with -impl only (a -cmd template has no such
 * options): TONE_RED dereddened (-rednoise); TONE_PLANE the accel search
 * with its whole plane in memory (-outofcore's other path, which sums
 * sub-harmonics from the kept plane, as accelsearch's default). */
enum { TONE_RED = 1, TONE_PLANE = 2 };

/* Tones of 65536 samples of 1 ms.  drift: z clearly non-zero and off the
 * z grid, so the template's sign and length decide the power; harm: the
 * fundamental 0.3 bins above a bin, so the summed sub-harmonic is read
 * where rounding a tie up and truncating it differ (a quarter bin either
 * side: 0.2 or 0.3 bins off, 7 % of the summed power); red: a random walk
 * whose power exceeds the white noise's below bin ~2000. */
static const gate_tone tone_drift = {65536, 1e-3, 4000.2, 23.3, {0.15, 0}, 0, 11};
static const gate_tone tone_harm = {65536, 1e-3, 3000.3, 0, {0.3, 0.3}, 0, 12};
static const gate_tone tone_red = {65536, 1e-3, 20000.4, 0, {0.15, 0}, 0.2, 13};
/* Two pulsars in one beam (globular clusters such as 47 Tuc and Terzan 5
 * hold dozens of millisecond pulsars within one beam, so near-commensurate
 * spins occur): a loud one at bin 5000 and the truth at bin 10005, 5 bins
 * above its second harmonic.  PRESTO's sifting (python/presto/sifting.py,
 * r_err 1.1 bins) calls a candidate the n-th harmonic of a stronger one only
 * within r_err (1 + n) = 3.3 bins of n r, so the truth is kept; twice that
 * r_err (6.6) would drop it as an echo.  Both sit on bin centres, where a
 * boxcar's r is exact.  The loud one (amplitude 0.9: ln p about -1.3e4) puts
 * its sigma where the Gaussian tail is asymptotic. */
static const gate_tone tone_pair = {65536, 1e-3, 10005.0, 0, {0.3, 0}, 0, 14, 5000.0, 0.9};

static const pscase cases[] = {
    {"accel-psr", GATE_QUICK, 64, 8, 256e-6, 16.8, 7.3, 15, 0.6, 40, 20000, 20, 2, 2.0, 5, NULL, -1, 0},
    {"tone-drift", GATE_QUICK, 0, 0, 0, 0, 0, 0, 0, 0, 0, 40, 1, 2.0, 0, &tone_drift, XC_FAMILY_ACCEL, 0},
    {"tone-harm", GATE_QUICK, 0, 0, 0, 0, 0, 0, 0, 0, 0, 4, 2, 2.0, 0, &tone_harm, XC_FAMILY_ACCEL, 0},
    {"tone-harm-plane", GATE_QUICK, 0, 0, 0, 0, 0, 0, 0, 0, 0, 4, 2, 2.0, 0, &tone_harm, XC_FAMILY_ACCEL, TONE_PLANE},
    {"tone-red", GATE_QUICK, 0, 0, 0, 0, 0, 0, 0, 0, 0, 4, 1, 2.0, 0, &tone_red, -1, TONE_RED},
    {"tone-pair", GATE_QUICK, 0, 0, 0, 0, 0, 0, 0, 0, 0, 4, 1, 2.0, 0, &tone_pair, XC_FAMILY_PULSCAN, 0},
    {"accel-psr-long", GATE_STANDARD, 64, 8, 128e-6, 33.6, 3.1, 10, 0.4, 80, 5000, 50, 4, 2.0, 6, NULL, -1, 0},
    {"slow-psr", GATE_FULL, 64, 8, 128e-6, 67.1, 51.3, 5, 0.3, 20, 0, 100, 8, 2.0, 7, NULL, -1, 0},
};

/* The power oracle's tolerance (relative): what the built-in accel
 * searchers declare for their float sums (POWER_RTOL_ACCEL); the cpu
 * searcher measured 5e-7 from the direct double sum on the tone cases.
 * Measured effects there: a template one bin short 5.3e-3 (tone-drift),
 * a tied sub-harmonic read a half bin low 4.9 % (tone-harm-plane), a
 * template of the wrong z sign a factor 900 (tone-drift). */
#define ORACLE_RTOL POWER_RTOL_ACCEL
/* The dereddened noise power's mean per octave: measured 0.963 at the
 * first octave (bins 2048..4095, where the random walk is as strong as the
 * white noise: linear interpolation of the level between block midpoints
 * under-follows a 1/f^2 slope) and within 0.006 of 1 above; each octave's
 * own scatter is 1/sqrt(2048) = 2.2 % or less.  A median taken for the mean
 * (no 1/ln 2) is 44 % off. */
#define DERED_TOL 0.1
/* A candidate's sigma against the Gaussian equivalent of its logp
 * (gate_signif.c), relative: the reference's Newton iteration converges to
 * a few 1e-16 and our CSV writes 17 significant digits (measured 0 on
 * tone-pair); the asymptotic form taken at ln p = -1e4 instead of -1e15 is
 * 1.5e-8 off there, falling as 1/ln(p)^2 (1.0e-9 at -3.6e4, measured).  The loud tone's ln p must lie
 * below SIGMA_DEEP_LP, inside that window. */
#define SIGMA_RTOL 1e-10
#define SIGMA_DEEP_LP (-1e4)

#define REF_SIGMA 6.0   /* the reference's candidates the output must hold: sigma above this */
/* |r - f_hz T| allowed between a candidate's two columns, in bins: above the
 * rounding of every format read here (our CSV writes 17 digits, Pulscan's
 * file derives f from r, PRESTO prints r and f to 1e-4 or better), far
 * below the one-bin slips it is there to catch. */
#define RF_TOL 0.1
/* Power and sigma against the reference's (relative), by what wrote them.
 * crosscheck's CSV (and a plugin's searcher) follow the reference's
 * definitions: for the accel family the loosest tolerance its built-in
 * searchers declare (the cpu and gpu searchers' float sums, 2e-3), for
 * Pulscan's the one run and compare cands hold its searchers to (1e-4, float
 * sums against double ones); a plugin's own when looser.  accelsearch's
 * file: its block-median normalisation against the exact one, measured
 * 5.1 % in power and 3.0 % in sigma on its synth_accel_jerk candidate (zmax
 * 200, numharm 1; research fixtures); 15 % catches a scale error such as a
 * lost ln 2 (44 %), not the finer ones.  Pulscan's file: its own per-block
 * median/MAD normalisation and polynomial sigma, not judged. */
#define POWER_RTOL_ACCEL 2e-3
#define POWER_RTOL_PULSCAN 1e-4
#define POWER_RTOL_PRESTO 0.15

/* The family judged: a plugin's searcher's, else -family's. */
static xc_family fam_of(const gatectx *g)
{
    return g->impl ? g->impl->family : (xc_family)g->family;
}

static xc_status search(const xc_impl *impl, const xc_spectrum *sp, const pscase *c, int mode, xc_candlist *out,
                        xc_error *err)
{
    xc_candlist_init(out);
    xc_psearch_opts o;
    xc_psearch_opts_default(&o, impl->family);
    xc_psearch_opts_set(&o, c->zmax, c->numharm, c->sigma);
    if (mode & TONE_RED)
        xc_psearch_opts_lowfreq(&o, 1.0, 1);
    if ((mode & TONE_PLANE) && impl->family == XC_FAMILY_ACCEL)
        o.ac.outofcore = -1;
    return xc_psearch_once(impl, sp, &o, 1, out, err);
}

static int exists(const char *p)
{
    struct stat sb;
    return stat(p, &sb) == 0;
}

/* Every candidate of ref with sigma > REF_SIGMA must have one in got within
 * 1 bin of r and 4 of z (signed_z) or |z| (any harmonic count: tools count
 * harmonics their own way). */
static void check_vs_ref(gatectx *g, const char *obs, const xc_candlist *got, const xc_candlist *ref,
                         const char *refname, int signed_z)
{
    char check[160], missing[400] = "";
    xc_fmt(check, sizeof check, "finds the %s reference's candidates with sigma > %g", refname, REF_SIGMA);
    size_t want = 0, found = 0;
    for (size_t i = 0; i < ref->n; i++) {
        const xc_cand *a = &ref->c[i];
        if (!(a->sigma > REF_SIGMA))
            continue;
        want++;
        int hit = 0;
        for (size_t j = 0; j < got->n && !hit; j++)
            hit = fabs(got->c[j].r - a->r) <= 1.0 &&
                  (signed_z ? fabs(got->c[j].z - a->z) : fabs(fabs(got->c[j].z) - fabs(a->z))) <= 4.0;
        if (hit)
            found++;
        else
            xc_fmt(missing + strlen(missing), sizeof missing - strlen(missing), "%sr %.2f z %.1f sigma %.2f",
                   want - found > 1 ? "; " : "", a->r, a->z, a->sigma);
    }
    xc_error e;
    if (want == 0) {
        xc_vd_fail(&g->vd, obs, g->label, check, "the reference has no candidate above the cut: the case is too weak", "-");
        return;
    }
    xc_vd_note(&g->vd, xc_checks_addf(&g->vd.rows, obs, g->label, check, found == want ? XC_CHECK_PASS : XC_CHECK_FAIL,
                                (double)found, (double)want,
                                signed_z ? "each within 1 bin in r and 4 in z" : "each within 1 bin in r and 4 in |z|", &e,
                                "%zu of %zu found (the output has %zu candidates)%s%s", found, want, got->n,
                                found < want ? "; missing: " : "", missing),
              &e);
}

/* The output's power and sigma columns against the reference's, paired as
 * check_vs_ref pairs them and with the same numharm, at the tolerance of
 * what wrote them (POWER_RTOL_*). */
static void check_power(gatectx *g, const char *obs, const xc_candlist *got, const xc_candlist *ref, int signed_z)
{
    xc_powercheck pc = {REF_SIGMA, 1.0, 4.0, signed_z,
                        fam_of(g) == XC_FAMILY_ACCEL ? POWER_RTOL_ACCEL : POWER_RTOL_PULSCAN};
    xc_error e;
    if (g->impl) {
        if (g->impl->tol.kind == XC_TOL_RELATIVE && g->impl->tol.value > pc.rtol)
            pc.rtol = g->impl->tol.value;
    } else if (!strcmp(got->source, "presto")) {
        pc.rtol = POWER_RTOL_PRESTO;
    } else if (!strcmp(got->source, "pulscan")) {
        xc_vd_note(&g->vd, xc_checks_addf(&g->vd.rows, obs, g->label, "power and sigma vs reference", XC_CHECK_SKIP,
                                          NAN, NAN, "-", &e, "not judged: Pulscan's file has its own normalisation "
                                          "(per-block median and MAD) and sigma (a polynomial)"), &e);
        return;
    }
    xc_vd_note(&g->vd, xc_check_cands_power(&g->vd.rows, obs, g->label, got, ref, &pc, &e), &e);
}

/* A case's files, in its own folder under the work folder. */
typedef struct {
    char dir[GATE_PATH], root[GATE_PATH], dat[GATE_PATH], fft[GATE_PATH], inf[GATE_PATH], truth[GATE_PATH],
        out[GATE_PATH], log[GATE_PATH];
} case_files;

static xc_status case_files_make(case_files *f, const char *work, const char *obs, xc_error *e)
{
    static const char *const name[] = {"psr", "psr.dat", "psr.fft", "psr.inf", "psr.truth.json", "cands", "cmd.log"};
    char *const path[] = {f->root, f->dat, f->fft, f->inf, f->truth, f->out, f->log};
    return gate_case_paths(f->dir, work, obs, name, path, sizeof path / sizeof path[0], e);
}

/* Runs -cmd on the case; 1 with its candidates in *cl, 0 after a failed row
 * (or a noted error). */
static int case_command(gatectx *g, const pscase *c, const case_files *f, const xc_spectrum *sp, xc_candlist *cl)
{
    char num[6][32];
    xc_fmt(num[0], sizeof num[0], "%d", c->zmax);
    xc_fmt(num[1], sizeof num[1], "%d", c->numharm);
    xc_fmt(num[2], sizeof num[2], "%g", c->sigma);
    xc_fmt(num[3], sizeof num[3], "%zu", sp->nbins);
    xc_fmt(num[4], sizeof num[4], "%.10g", sp->dt);
    xc_fmt(num[5], sizeof num[5], "%.10g", sp->T);
    const gate_kv kv[] = {{"fft", f->fft},     {"dat", f->dat},   {"inf", f->inf},   {"root", f->root},
                          {"out", f->out},     {"zmax", num[0]},  {"numharm", num[1]}, {"sigma", num[2]},
                          {"nbins", num[3]},   {"tsamp", num[4]}, {"T", num[5]},     {"case", c->name},
                          {"dir", f->dir}};
    if (!gate_cmd_output(g, c->name, kv, sizeof kv / sizeof kv[0], f->log))
        return 0;
    char cand[4][4400], why[1400];
    xc_error e;
    if (xc_pathf(cand[0], sizeof cand[0], &e, "%s.csv", f->out) ||
        xc_pathf(cand[1], sizeof cand[1], &e, "%s.pulscand", f->out) ||
        xc_pathf(cand[2], sizeof cand[2], &e, "%s_ACCEL_%d", f->out, c->zmax) ||
        xc_pathf(cand[3], sizeof cand[3], &e, "%s_ACCEL_%d", f->root, c->zmax)) {
        xc_vd_note(&g->vd, e.code, &e);
        return 0;
    }
    int k = 0;
    while (k < 4 && !exists(cand[k]))
        k++;
    if (k == 4) {
        xc_fmt(why, sizeof why, "the command wrote none of %s, %s, %s, %s", cand[0], cand[1], cand[2], cand[3]);
        xc_vd_fail(&g->vd, c->name, g->label, "output readable", why, "a candidate file");
        return 0;
    }
    if (xc_cands_load(cl, cand[k], sp->T, &e)) {
        xc_vd_fail(&g->vd, c->name, g->label, "output readable", e.msg, "a candidate file compare cands reads");
        return 0;
    }
    return 1;
}

/* A tone case's oracles: the accel family's powers against the direct
 * correlation (not on a dereddened search: the oracle reads the spectrum
 * as written; not on a file of another tool, whose power is its own); the
 * dereddening the -impl search applied against the noise statistics; with
 * a loud companion, each candidate's sigma against its logp (not on another
 * tool's file, which has no logp column). */
static void judge_tone(gatectx *g, const pscase *c, int mode, const xc_candlist *cl, const xc_spectrum *sp)
{
    if (!c->tone)
        return;
    if (fam_of(g) == XC_FAMILY_ACCEL && !(mode & TONE_RED) && strcmp(cl->source, "presto") &&
        strcmp(cl->source, "pulscan"))
        gate_check_power_oracle(g, c->name, cl, sp, 0, ORACLE_RTOL);
    if (mode & TONE_RED)
        gate_check_dereddened(g, c->name, sp, c->tone, DERED_TOL);
    if (c->tone->ampc > 0 && strcmp(cl->source, "presto") && strcmp(cl->source, "pulscan"))
        gate_check_sigma_oracle(g, c->name, cl, SIGMA_DEEP_LP, SIGMA_RTOL);
}

static void run_case(gatectx *g, const pscase *c, const xc_impl *ref)
{
    const char *obs = c->name;
    const int mode = c->mode;
    case_files files, *f = &files;
    xc_error e;
    xc_spectrum sp;
    memset(&sp, 0, sizeof sp);
    xc_status st = case_files_make(f, g->work, obs, &e);
    if (!st)
        st = xc_mkdirs(f->dir, &e);
    if (!st && c->tone) {
        st = gate_tone_write(c->tone, f->dat, f->inf, "psr", &e);
    } else if (!st) {
        xc_synth_params p;
        gate_case_synth(g, c->nchans, c->nbits, c->tsamp, c->tobs, c->seed, &p);
        p.psr.period_ms = c->period_ms;
        p.psr.width_pct = c->width_pct;
        p.psr.snrpeak = c->snrpeak;
        p.psr.dm = c->dm;
        p.psr.accn = c->accn;
        st = xc_synth_write_dedispersed(&p, f->root, f->truth, xc_cli_cmdline(), &e);
        xc_synth_params_free(&p);
    }
    if (!st)
        st = xc_fft_file(f->dat, f->root, XC_FFT_SINGLE, &e);
    if (!st)
        st = xc_spectrum_load(&sp, f->fft, &e);
    xc_candlist rl, cl;
    xc_candlist_init(&rl);
    xc_candlist_init(&cl);
    if (!st)
        st = search(ref, &sp, c, mode, &rl, &e);
    xc_truth t;
    if (!st && c->tone)
        gate_tone_truth(c->tone, sp.T, &t);
    else if (!st)
        st = xc_truth_read(&t, f->truth, sp.T, &e);
    if (st) {   /* crosscheck's own side: an error, not a verdict */
        xc_vd_note(&g->vd, st, &e);
        xc_spectrum_free(&sp);
        xc_candlist_free(&rl);
        return;
    }
    int have = 0;
    if (g->impl) {
        if ((st = search(g->impl, &sp, c, mode, &cl, &e)))
            xc_vd_fail(&g->vd, obs, g->label, "search", e.msg, "runs without error");
        else
            have = 1;
    } else {
        have = case_command(g, c, f, &sp, &cl);
    }
    if (have) {
        /* Judged at the case's T, not one a file implies (our CSV's r / f_hz):
         * both columns must agree at it, r is judged against the truth's and
         * f_hz decides which candidate is the fundamental. */
        xc_vd_note(&g->vd, xc_check_cands_rf(&g->vd.rows, obs, g->label, &cl, sp.T, RF_TOL, &e), &e);
        cl.T = sp.T;
        xc_cmpcands_opts o;
        xc_cmpcands_opts_init(&o);
        o.fundamental = 1;
        o.truth_dr = 2;
        o.truth_dz = 4;
        /* a matched filter knows the drift's sign; a boxcar (and Pulscan's
         * file, which holds a width) does not */
        o.truth_signed_z = fam_of(g) == XC_FAMILY_ACCEL && strcmp(cl.source, "pulscan");
        xc_vd_note(&g->vd, xc_check_truth(&g->vd.rows, obs, g->label, &cl, &t, &o, &e), &e);
        check_vs_ref(g, obs, &cl, &rl, xc_family_name(ref->family), o.truth_signed_z);
        check_power(g, obs, &cl, &rl, o.truth_signed_z);
        judge_tone(g, c, mode, &cl, &sp);
    }
    xc_vd_emit(&g->vd);
    xc_candlist_free(&cl);
    xc_candlist_free(&rl);
    xc_spectrum_free(&sp);
}

int gate_search(gatectx *g)
{
    const xc_registry *reg = xc_cli_registry();
    /* A plugin's searcher is a Pulscan one: judged against that reference. */
    xc_family fam = fam_of(g);
    const xc_impl *ref = xc_registry_pick(reg, fam, XC_CAP_REFERENCE, XC_CAP_APPROXIMATE | XC_CAP_RUNTIME | XC_CAP_DEVICE);
    if (!ref)
        return xc_cli_failf("gate search", "no reference %s searcher is registered", xc_family_name(fam));
    for (size_t i = 0; i < sizeof cases / sizeof cases[0] && !g->vd.fatal; i++)
        if ((cases[i].family < 0 || cases[i].family == (int)fam) && (g->impl || !cases[i].mode) &&
            gate_case_due(g, cases[i].tier, "search", cases[i].name))
            run_case(g, &cases[i], ref);
    /* A plugin's searcher on pure noise at sigma 0, where most of what is
     * kept is borderline: a screen or rounding that decides one otherwise
     * than the reference fails (compare/check/xc_checks.h). */
    if (g->impl && !g->vd.fatal && gate_case_due(g, GATE_QUICK, "search", "pure-noise")) {
        xc_error e;
        xc_vd_note(&g->vd, xc_check_noise_search(&g->vd.rows, "pure-noise", g->impl, ref, 4, 900, &e), &e);
        xc_vd_emit(&g->vd);
    }
    return 0;
}
