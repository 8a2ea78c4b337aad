/* crosscheck gate singlepulse -cmd: an external single-pulse searcher on
 * synthetic filterbanks with injected bursts of known DM, time and width
 * (the synthesizer's truth) and on pure noise.  crosscheck writes what the
 * tool reads (-input fil: the .fil; -input dat: PRESTO .dat/.inf per DM
 * trial, as prepsubband writes them), runs the command, reads its
 * candidates (CSV, Heimdall .cand or PRESTO .singlepulse: core/sp/files/)
 * and judges them against the truth and against the reference search of
 * the same file with the same preset (presto: single_pulse_search.py's
 * boxes and threshold). */
#include <glob.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/base/cli.h"
#include "cli/gate/gate.h"
#include "compare/xc_spmatch.h"
#include "core/base/xc_fmt.h"
#include "core/base/xc_fs.h"
#include "core/dedisp/run/xc_ddstream.h"
#include "core/sp/files/xc_spfiles.h"
#include "core/sp/xc_spgulp.h"

/* 64 channels x 8 bits, 1500..1248 MHz, 256 us: the geometry of
 * examples/peers/presto/single-pulse-check.sh, 8.192 s long.  Bursts at DM
 * 100 of 1, 4 and 10 ms (peak S/N per sample 10, 5, 3: boxcar S/N about 19
 * each) at 1.3, 3.5 and 5.4 s, inside the first 24000 samples, which is
 * what single_pulse_search.py searches of these 31654-sample series (whole
 * 8000-sample chunks of whole 1000-sample blocks: docs/SINGLEPULSE.md); the
 * DM plan 90..108 in steps of 2, boxes to 38.4 ms (150 samples, PRESTO's
 * widest downfactor). */
#define SP_DMPLAN "90:110:2:1"
#define SP_DMLO 90.0
#define SP_DMSTEP 2.0
#define SP_NDM 10
#define SP_WMAX_S 0.0384
#define SP_THRESHOLD 5.0
#define SP_TSAMP 256e-6

typedef struct {
    const char *name;
    int tier;
    int bursts;   /* 0: pure noise */
    uint64_t seed;
    double threshold;
} spcase;

/* Noise at S/N 4, where crossings are many (tens over the ten trials) and
 * a searcher that keeps or clusters them otherwise shows. */
static const spcase cases[] = {
    {"sp-bursts", GATE_QUICK, 1, 7, SP_THRESHOLD},
    {"sp-noise", GATE_QUICK, 0, 8, 4.0},
};

/* Tolerances.  Truth: each burst's centre within one width (the wider of
 * the candidate's box and the burst's) and one DM step (2) of the truth, as
 * compare cands -truth judges.  S/N of the best candidate of each burst
 * against the reference's: within -snr_rtol (0.1 by default) relative; PRESTO normalises each
 * chunk by its own median and rms where the reference uses exact statistics
 * (docs/PEERS.md), measured within 0.1 on the check's case.  Noise: the
 * events above the threshold (events(): candidates clustered alike) within
 * NOISE_ABS + NOISE_REL x the reference's count (a few tens at S/N 4; a
 * searcher that normalises differently moves it by tens of per cent, one
 * that forgot to normalise, or keeps every box, by orders of magnitude).
 * Where each burst's best candidate is, against the reference's best for
 * it at the same DM trial: its centre within -sample_tol (by default half
 * a sample, i.e. the same box).  On bursts of S/N 13..18 the box of highest S/N in a trial is fixed
 * by the data; a per-block offset and scale (another normalisation) does
 * not move it, a one-sample slip does. */
#define NOISE_ABS 5.0
#define NOISE_REL 0.5

typedef struct {
    char dir[GATE_PATH], fil[GATE_PATH], root[GATE_PATH], truth[GATE_PATH], out[GATE_PATH], log[GATE_PATH],
        all[GATE_PATH];
} sp_files;

static xc_status write_case(const gatectx *g, const spcase *c, const sp_files *f, xc_error *e)
{
    xc_synth_params p;
    gate_case_synth(g, 64, 8, SP_TSAMP, 8.192, c->seed, &p);
    p.fch1 = 1500, p.foff = -4;
    static const double pulse[3][4] = {{1.3, 100, 1, 10}, {3.5, 100, 4, 5}, {5.4, 100, 10, 3}};
    xc_status st = XC_OK;
    for (int k = 0; c->bursts && k < 3 && !st; k++) {
        xc_synth_pulse pl;
        xc_synth_pulse_init(&pl, pulse[k][0], pulse[k][1], pulse[k][2], pulse[k][3]);
        st = xc_synth_params_add_pulse(&p, &pl, e);
    }
    if (!st)
        st = xc_synth_write(&p, f->fil, f->truth, xc_cli_cmdline(), e);
    xc_synth_params_free(&p);
    return st;
}

/* The reference search under plan spec (a DM plan) of r into *out. */
static xc_status ref_search(const gatectx *g, const spcase *c, xc_fbreader *r, const xc_impl *ri, const xc_impl *dd,
                            const char *spec, xc_spcandlist *out, xc_error *e)
{
    xc_dmplan plan;
    xc_dmplan_init(&plan);
    xc_spopts so;
    xc_spopts_default(&so, XC_SP_PRESTO);
    so.wmax_s = SP_WMAX_S;
    so.threshold = c->threshold;
    xc_spgulp_args a;
    memset(&a, 0, sizeof a);
    a.search = xc_spsearcher_of(ri), a.opts = &so, a.dd = xc_dedisperser_of(dd), a.conv = g->cv, a.plan = &plan;
    a.input_name = spec;
    xc_status st = xc_dmplan_parse(&plan, spec, "gate singlepulse", e);
    if (!st)
        st = xc_sp_search_fil(r, &a, out, NULL, e);
    xc_dmplan_free(&plan);
    return st;
}

/* The reference search of the case's .fil under the whole plan (ref[0])
 * and of each trial alone (ref[1 + k]); with dat, the series PRESTO's
 * tools read beside it (root_DM<dm>.dat/.inf). */
static xc_status reference(const gatectx *g, const spcase *c, const sp_files *f, const xc_impl *ri, int dat,
                           xc_spcandlist *ref, xc_error *e)
{
    xc_fbopts fo = {XC_BITORDER_LSB, 0};
    xc_fbreader *r;
    const xc_impl *dd = xc_registry_pick(xc_cli_registry(), XC_FAMILY_DEDISPERSE, XC_CAP_REFERENCE,
                                         XC_CAP_APPROXIMATE | XC_CAP_RUNTIME | XC_CAP_DEVICE);
    if (!dd)
        return xc_error_set(e, XC_EINVAL, "gate singlepulse: no reference dedisperser is registered");
    xc_status st = xc_fbreader_open(&r, f->fil, &fo, e);
    if (st)
        return st;
    st = ref_search(g, c, r, ri, dd, SP_DMPLAN, &ref[0], e);
    char spec[64];
    for (int k = 0; k < SP_NDM && !st; k++) {
        double dm = SP_DMLO + k * SP_DMSTEP;
        xc_fmt(spec, sizeof spec, "%g:%g:%g:1", dm, dm + SP_DMSTEP / 2, SP_DMSTEP);
        st = ref_search(g, c, r, ri, dd, spec, &ref[1 + k], e);
    }
    xc_dmplan plan;
    xc_dmplan_init(&plan);
    if (!st && dat && !(st = xc_dmplan_parse(&plan, SP_DMPLAN, "gate singlepulse", e))) {
        xc_ddstream_args da;
        memset(&da, 0, sizeof da);
        da.impl = xc_dedisperser_of(dd), da.conv = g->cv, da.plan = &plan, da.input_name = f->fil;
        da.series.format = XC_DDOUT_PRESTO;
        st = xc_dedisperse_stream(r, f->root, &da, NULL, e);
    }
    xc_dmplan_free(&plan);
    xc_fbreader_close(r);
    return st;
}

static int exists(const char *p)
{
    struct stat sb;
    return stat(p, &sb) == 0;
}

/* PRESTO's one .singlepulse per series, root_DM*.singlepulse, into one
 * file (as a concatenation of them reads: core/sp/files/xc_spfiles.h);
 * 0 when there is none. */
static int gather_presto(const sp_files *f, xc_error *e, xc_status *st)
{
    char pat[GATE_PATH + 32];
    glob_t gl;
    if (xc_pathf(pat, sizeof pat, e, "%s_DM*.singlepulse", f->root) || glob(pat, 0, NULL, &gl))
        return 0;
    FILE *out = fopen(f->all, "w");
    if (!out) {
        *st = xc_error_set(e, XC_EIO, "%s: cannot write", f->all);
        globfree(&gl);
        return 0;
    }
    char line[512];
    for (size_t i = 0; i < gl.gl_pathc; i++) {
        FILE *in = fopen(gl.gl_pathv[i], "r");
        while (in && fgets(line, sizeof line, in))
            fputs(line, out);
        if (in)
            fclose(in);
    }
    globfree(&gl);
    if (fclose(out))
        *st = xc_error_set(e, XC_EIO, "%s: cannot write", f->all);
    return !*st;
}

/* Runs -cmd on the case; 1 with its candidates in *cl, 0 after a failed
 * row (or a noted error). */
static int run_command(gatectx *g, const spcase *c, const sp_files *f, xc_spcandlist *cl)
{
    char num[4][32];
    xc_fmt(num[3], sizeof num[3], "%g", SP_TSAMP);
    xc_fmt(num[0], sizeof num[0], "%g", c->threshold);
    xc_fmt(num[1], sizeof num[1], "%g", SP_WMAX_S);
    xc_fmt(num[2], sizeof num[2], "%g", SP_DMSTEP);
    const gate_kv kv[] = {{"fil", f->fil},       {"dat", f->root},   {"root", f->root}, {"dir", f->dir},
                          {"out", f->out},       {"dmplan", SP_DMPLAN}, {"dmlo", "90"}, {"dmhi", "110"},
                          {"dmstep", num[2]},    {"threshold", num[0]}, {"maxwidth_s", num[1]},
                          {"tsamp", num[3]}, {"case", c->name}};
    if (!gate_cmd_output(g, c->name, kv, sizeof kv / sizeof kv[0], f->log))
        return 0;
    static const char *const ext[] = {".csv", ".cand", ".singlepulse"};
    char path[GATE_PATH + 16], why[GATE_PATH * 2];
    xc_error e;
    xc_status st = XC_OK;
    const char *found = NULL;
    for (int k = 0; k < 3 && !found; k++) {
        if (xc_pathf(path, sizeof path, &e, "%s%s", f->out, ext[k])) {
            xc_vd_note(&g->vd, e.code, &e);
            return 0;
        }
        if (exists(path))
            found = path;
    }
    if (!found && gather_presto(f, &e, &st))
        found = f->all;
    if (st) {
        xc_vd_note(&g->vd, st, &e);
        return 0;
    }
    if (!found) {
        xc_fmt(why, sizeof why, "the command wrote none of %s.csv, %s.cand, %s.singlepulse, %s_DM*.singlepulse",
               f->out, f->out, f->out, f->root);
        xc_vd_fail(&g->vd, c->name, g->label, "output readable", why, "a candidate file");
        return 0;
    }
    if (xc_spcands_read(cl, found, XC_SPFMT_AUTO, &e)) {
        xc_vd_fail(&g->vd, c->name, g->label, "output readable", e.msg, "a candidate file compare cands reads");
        return 0;
    }
    return 1;
}

/* c's box centre in samples of SP_TSAMP.  Where its list's sampling is
 * SP_TSAMP (its tsamp, or else c's time / sample, within 1e-6 relative: a
 * file's times are rounded), it is counted from c's sample number, so that
 * two centres subtract exactly; centre times (sample x tsamp, each rounded
 * to 2^-52 of a few seconds) subtracted and divided by SP_TSAMP carry about
 * 1e-12 of a sample, which put an exact one-sample slip a hair above 1
 * (1.000000000001 at 3.5 s) and failed it at -sample_tol 1.  Other
 * samplings: the centre time / SP_TSAMP. */
static double centre_samples(const xc_spcandlist *l, const xc_spcand *c)
{
    double dt = l->tsamp > 0 ? l->tsamp : c->sample > 0 ? c->time_s / (double)c->sample : 0;
    if (fabs(dt / SP_TSAMP - 1) <= 1e-6)
        return (double)c->sample + 0.5 * c->width;
    return xc_spcand_centre_s(l, c) / SP_TSAMP;
}

/* Each found burst's best candidate against the reference's best for that
 * burst at the same DM trial (ref[k], trial k searched alone): near the
 * top, S/N varies by less than its noise across neighbouring trials, so
 * the best trial of two searches may differ while each trial's box agrees.
 * Rows: the centres within g->sp_sample_tol, the S/N within g->sp_snr_rtol. */
static void judge_vs_ref(gatectx *g, const char *obs, const xc_spcandlist *cl, const xc_sptruth_result *rg,
                         const xc_spcandlist *ref, const xc_truth *t)
{
    xc_spmatch_opts o;
    xc_spmatch_opts_init(&o);
    o.tol_dm = 1e6;   /* one trial's list: every burst is at its DM */
    double worst = 0, worst_r = 1;
    size_t nj = 0;
    char pos[600] = "", snr[600] = "";
    xc_error e;
    for (size_t i = 0; i < rg->n; i++) {
        if (!rg->bursts[i].found)
            continue;
        const xc_spcand *a = &cl->c[rg->bursts[i].index];
        long k = lround((a->dm - SP_DMLO) / SP_DMSTEP);
        k = k < 0 ? 0 : k >= SP_NDM ? SP_NDM - 1 : k;
        xc_sptruth_result rr;
        memset(&rr, 0, sizeof rr);
        xc_status st = xc_spmatch_truth(&ref[k], "reference", t, &o, &rr, &e);
        if (st) {
            xc_vd_note(&g->vd, st, &e);
            return;
        }
        if (i < rr.n && rr.bursts[i].found) {
            const xc_spcand *b = &ref[k].c[rr.bursts[i].index];
            double d = centre_samples(cl, a) - centre_samples(&ref[k], b), r = a->snr / b->snr;
            if (fabs(d) > fabs(worst))
                worst = d;
            if (fabs(r - 1) > fabs(worst_r - 1))
                worst_r = r;
            nj++;
            xc_fmt(pos + strlen(pos), sizeof pos - strlen(pos), "%s%+.2f (DM %.2f)", nj > 1 ? ", " : "", d, a->dm);
            xc_fmt(snr + strlen(snr), sizeof snr - strlen(snr), "%s%.2f/%.2f", nj > 1 ? ", " : "", a->snr, b->snr);
        }
        xc_sptruth_result_free(&rr);
    }
    if (!nj)
        return;
    char tol[2][96];
    xc_fmt(tol[0], sizeof tol[0], "centre within %g sample%s of the reference's at that DM trial", g->sp_sample_tol,
           g->sp_sample_tol <= 1 ? "" : "s");
    xc_fmt(tol[1], sizeof tol[1], "each ratio within 1 +- %g", g->sp_snr_rtol);
    xc_vd_note(&g->vd, xc_checks_addf(&g->vd.rows, obs, g->label, "burst positions vs reference",
                                      fabs(worst) <= g->sp_sample_tol ? XC_CHECK_PASS : XC_CHECK_FAIL, worst, 0.0,
                                      tol[0], &e,
                                      "centre - reference's: %s samples", pos),
               &e);
    xc_vd_note(&g->vd, xc_checks_addf(&g->vd.rows, obs, g->label, "burst S/N vs reference (presto preset)",
                                      fabs(worst_r - 1) <= g->sp_snr_rtol ? XC_CHECK_PASS : XC_CHECK_FAIL, worst_r,
                                      1.0, tol[1], &e,
                                      "S/N/reference's at that DM trial: %s; worst ratio %.3f", snr, worst_r),
               &e);
}

/* Each burst found within the tolerances, then judge_vs_ref. */
static void judge_bursts(gatectx *g, const char *obs, const xc_spcandlist *cl, const xc_spcandlist *ref,
                         const xc_truth *t)
{
    xc_spmatch_opts o;
    xc_spmatch_opts_init(&o);
    o.tol_dm = SP_DMSTEP;
    xc_sptruth_result rg;
    memset(&rg, 0, sizeof rg);
    xc_error e;
    xc_status st = xc_spmatch_truth(cl, obs, t, &o, &rg, &e);
    if (st) {
        xc_vd_note(&g->vd, st, &e);
        return;
    }
    char miss[400] = "";
    for (size_t i = 0; i < rg.n; i++)
        if (!rg.bursts[i].found)
            xc_fmt(miss + strlen(miss), sizeof miss - strlen(miss), "%sburst %zu at %.3f s DM %.1f", *miss ? "; " : "",
                   i + 1, t->pulses[i].t_s, t->pulses[i].dm);
    xc_vd_note(&g->vd, xc_checks_addf(&g->vd.rows, obs, g->label, "finds every burst",
                                      rg.nfound == rg.n ? XC_CHECK_PASS : XC_CHECK_FAIL, (double)rg.nfound,
                                      (double)rg.n, "centre within one width, DM within one step (2)", &e,
                                      "%zu of %zu found%s%s", rg.nfound, rg.n, *miss ? "; missing: " : "", miss),
               &e);
    judge_vs_ref(g, obs, cl, &rg, ref, t);
    xc_sptruth_result_free(&rg);
}

/* The events of l above thr: its candidates at or above thr clustered as
 * the reference clusters detections (friends of friends, Heimdall's
 * tolerances: core/sp/xc_spsearch.h), so that a list pruned per DM trial
 * (PRESTO's) and one clustered across trials (ours, Heimdall's) count
 * alike.  A width's index is its place in the presto preset's list (the
 * last entry not above it).  *n gets the count. */
static xc_status events(const xc_spcandlist *l, double thr, size_t *n, xc_error *e)
{
    static const int32_t wl[] = {1, 2, 3, 4, 6, 9, 14, 20, 30, 45, 70, 100, 150};
    xc_spdets d = {0};
    xc_spcandlist out;
    xc_spcandlist_init(&out);
    int32_t maxdm = 0;
    xc_status st = XC_OK;
    for (size_t i = 0; i < l->n && !st; i++) {
        const xc_spcand *c = &l->c[i];
        if (!(c->snr >= thr))
            continue;
        int32_t wi = 0;
        while (wi + 1 < (int32_t)(sizeof wl / sizeof *wl) && wl[wi + 1] <= c->width)
            wi++;
        xc_spdet x = {c->snr, c->sample, c->width, wi, c->dm_index, c->sample, c->sample + c->width};
        maxdm = c->dm_index > maxdm ? c->dm_index : maxdm;
        st = xc_spdets_add(&d, &x, e);
    }
    double *dms = st ? NULL : calloc((size_t)maxdm + 1, sizeof *dms);
    if (!st && !dms)
        st = xc_error_set(e, XC_ENOMEM, "out of memory for %d DM trials", maxdm + 1);
    xc_spsep sep = {3, 3, 200};
    if (!st)
        st = xc_sp_cluster(&d, &sep, l->tsamp > 0 ? l->tsamp : SP_TSAMP, dms, (size_t)maxdm + 1, &out, e);
    *n = out.n;
    free(dms);
    xc_spdets_free(&d);
    xc_spcandlist_free(&out);
    return st;
}

static void judge_noise(gatectx *g, const spcase *c, const xc_spcandlist *cl, const xc_spcandlist *ref)
{
    const char *obs = c->name;
    size_t n = 0, nr = 0;
    xc_error e;
    xc_status st = events(cl, c->threshold, &n, &e);
    if (!st)
        st = events(ref, c->threshold, &nr, &e);
    if (st) {
        xc_vd_note(&g->vd, st, &e);
        return;
    }
    char check[64], tol[80];
    xc_fmt(check, sizeof check, "events above S/N %g on noise", c->threshold);
    double bound = NOISE_ABS + NOISE_REL * (double)nr;
    xc_fmt(tol, sizeof tol, "within %g + %g x the reference's (%.1f)", NOISE_ABS, NOISE_REL, bound);
    xc_vd_note(&g->vd, xc_checks_addf(&g->vd.rows, obs, g->label, check,
                                      fabs((double)n - (double)nr) <= bound ? XC_CHECK_PASS : XC_CHECK_FAIL,
                                      (double)n, (double)nr, tol, &e,
                                      "%zu (the reference: %zu; %zu candidates at or above it, clustered alike)", n,
                                      nr, cl->n),
               &e);
}

/* The reference's lists ref[0..1 + SP_NDM) into one file, each as its count,
 * tsamp and source, then its candidates as they lie in memory: the cache
 * gives them back bit for bit (the S/N ratios and centres are judged on
 * them), to the binary that wrote them only (gate_cache_key).  0 when
 * written whole. */
static int refs_save(const xc_spcandlist *ref, const char *path)
{
    FILE *fp = fopen(path, "wb");
    int bad = !fp;
    for (int k = 0; !bad && k <= SP_NDM; k++) {
        uint64_t n = ref[k].n;
        bad = fwrite(&n, sizeof n, 1, fp) != 1 || fwrite(&ref[k].tsamp, sizeof ref[k].tsamp, 1, fp) != 1 ||
              fwrite(ref[k].source, sizeof ref[k].source, 1, fp) != 1 ||
              (n && fwrite(ref[k].c, sizeof *ref[k].c, n, fp) != n);
    }
    if (fp)
        bad |= fclose(fp) != 0;
    return bad ? -1 : 0;
}

/* Reads what refs_save wrote into ref[0..1 + SP_NDM) (empty lists); 1 when
 * all of it was read, else 0 with the lists emptied again. */
static int refs_load(xc_spcandlist *ref, const char *path)
{
    FILE *fp = fopen(path, "rb");
    int ok = fp != NULL;
    xc_error e;
    for (int k = 0; ok && k <= SP_NDM; k++) {
        uint64_t n = 0;
        xc_spcand c;
        ok = fread(&n, sizeof n, 1, fp) == 1 && fread(&ref[k].tsamp, sizeof ref[k].tsamp, 1, fp) == 1 &&
             fread(ref[k].source, sizeof ref[k].source, 1, fp) == 1;
        ref[k].source[sizeof ref[k].source - 1] = 0;
        for (uint64_t i = 0; ok && i < n; i++)
            ok = fread(&c, sizeof c, 1, fp) == 1 && !xc_spcandlist_add(&ref[k], &c, &e);
    }
    ok = ok && fgetc(fp) == EOF;
    if (fp)
        fclose(fp);
    for (int k = 0; !ok && k <= SP_NDM; k++) {
        xc_spcandlist_free(&ref[k]);
        xc_spcandlist_init(&ref[k]);
    }
    return ok;
}

/* The case's filterbank and truth, with -input dat its series, and the
 * reference's lists in ref, from the cache (gate_cache.c) when an earlier
 * run of the same -input made them: synthesis and the reference search are
 * most of a run's time, and the same bytes every time. */
static xc_status case_input(const gatectx *g, const spcase *c, const sp_files *f, const xc_impl *ri,
                            xc_spcandlist *ref, xc_error *e)
{
    enum { NKEPT = 3 + 2 * SP_NDM };
    char names[NKEPT][32];
    const char *kept[NKEPT];
    size_t n = 0;
    xc_fmt(names[n++], sizeof names[0], "sp.fil");
    xc_fmt(names[n++], sizeof names[0], "sp.truth.json");
    xc_fmt(names[n++], sizeof names[0], "reference.bin");
    for (int k = 0; g->spinput && k < SP_NDM; k++) {   /* as xc_dedisperse_stream names them */
        xc_fmt(names[n++], sizeof names[0], "sp_DM%.2f.dat", SP_DMLO + k * SP_DMSTEP);
        xc_fmt(names[n++], sizeof names[0], "sp_DM%.2f.inf", SP_DMLO + k * SP_DMSTEP);
    }
    for (size_t k = 0; k < n; k++)
        kept[k] = names[k];
    char key[GATE_PATH], refs[GATE_PATH];
    xc_status st = xc_pathf(refs, sizeof refs, e, "%s/reference.bin", f->dir);
    if (st)
        return st;
    int cache = gate_cache_key(g->spinput ? "sp-dat" : "sp-fil", c->name, g->cv, key, sizeof key);
    if (cache && gate_cache_get(key, kept, n, f->dir) && refs_load(ref, refs))
        return XC_OK;
    st = write_case(g, c, f, e);
    if (!st)
        st = reference(g, c, f, ri, g->spinput, ref, e);
    if (!st && cache && !refs_save(ref, refs))
        gate_cache_put(key, kept, n, f->dir);
    return st;
}

static void run_case(gatectx *g, const spcase *c, const xc_impl *ri)
{
    static const char *const name[] = {"sp.fil", "sp", "sp.truth.json", "cands", "cmd.log", "all.singlepulse"};
    sp_files fs, *f = &fs;
    char *const path[] = {f->fil, f->root, f->truth, f->out, f->log, f->all};
    xc_error e;
    xc_spcandlist ref[1 + SP_NDM], cl;
    for (int k = 0; k <= SP_NDM; k++)
        xc_spcandlist_init(&ref[k]);
    xc_spcandlist_init(&cl);
    xc_truth t;
    memset(&t, 0, sizeof t);
    xc_status st = gate_case_paths(f->dir, g->work, c->name, name, path, sizeof path / sizeof *path, &e);
    if (!st)
        st = xc_mkdirs(f->dir, &e);
    if (!st)
        st = case_input(g, c, f, ri, ref, &e);
    if (!st && c->bursts)
        st = xc_truth_load_pulses(&t, f->truth, &e);
    if (st) {   /* crosscheck's own side: an error, not a verdict */
        xc_vd_note(&g->vd, st, &e);
    } else if (run_command(g, c, f, &cl)) {
        if (c->bursts)
            judge_bursts(g, c->name, &cl, ref + 1, &t);
        else
            judge_noise(g, c, &cl, &ref[0]);
    }
    xc_vd_emit(&g->vd);
    if (c->bursts)
        xc_truth_free(&t);
    xc_spcandlist_free(&cl);
    for (int k = 0; k <= SP_NDM; k++)
        xc_spcandlist_free(&ref[k]);
}

int gate_singlepulse_cmd(gatectx *g, const xc_impl *ri)
{
    for (size_t i = 0; i < sizeof cases / sizeof *cases && !g->vd.fatal; i++)
        if (gate_case_due(g, cases[i].tier, "singlepulse", cases[i].name))
            run_case(g, &cases[i], ri);
    return 0;
}
