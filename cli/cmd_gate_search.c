/* crosscheck gate search: the tiers' synthetic pulsars, the user's search
 * (an external command, or a Pulscan searcher a plugin registered) on each,
 * and its candidates against the truth and against the reference searcher's
 * candidates. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli.h"
#include "cli/cmd_gate.h"
#include "compare/xc_cmpcands.h"
#include "core/search/xc_accel.h"
#include "core/search/xc_cands.h"
#include "core/io/xc_fft.h"
#include "core/base/xc_fs.h"
#include "core/base/xc_fmt.h"
#include "core/search/xc_search.h"
#include "synth/xc_synth.h"

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
} pscase;

static const pscase cases[] = {
    {"accel-psr", GATE_QUICK, 64, 8, 256e-6, 16.8, 7.3, 15, 0.6, 40, 20000, 20, 2, 2.0, 5},
    {"accel-psr-long", GATE_STANDARD, 64, 8, 128e-6, 33.6, 3.1, 10, 0.4, 80, 5000, 50, 4, 2.0, 6},
    {"slow-psr", GATE_FULL, 64, 8, 128e-6, 67.1, 51.3, 5, 0.3, 20, 0, 100, 8, 2.0, 7},
};

#define REF_SIGMA 6.0   /* the reference's candidates the output must hold: sigma above this */

static xc_status search(const xc_impl *impl, const xc_spectrum *sp, const pscase *c, xc_candlist *out,
                        xc_error *err)
{
    xc_candlist_init(out);
    if (impl->family == XC_FAMILY_ACCEL) {
        xc_accel_opts o;
        xc_accel_opts_default(&o);
        o.zmax = c->zmax;
        o.numharm = c->numharm;
        o.sigma = c->sigma;
        return xc_accel_run(xc_accel_searcher_of(impl), sp, &o, out, err);
    }
    xc_psopts o;
    xc_psopts_default(&o);
    o.zmax = c->zmax;
    o.numharm = c->numharm;
    o.sigma = c->sigma;
    return xc_pulscan_run(xc_searcher_of(impl), sp, &o, out, err);
}

static int exists(const char *p)
{
    struct stat sb;
    return stat(p, &sb) == 0;
}

/* Every candidate of ref with sigma > REF_SIGMA must have one in got within
 * 1 bin of r and 4 of |z| (any harmonic count: tools count harmonics their
 * own way). */
static void check_vs_ref(gatectx *g, const char *obs, const xc_candlist *got, const xc_candlist *ref,
                         const char *refname)
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
            hit = fabs(got->c[j].r - a->r) <= 1.0 && fabs(fabs(got->c[j].z) - fabs(a->z)) <= 4.0;
        if (hit)
            found++;
        else
            xc_fmt(missing + strlen(missing), sizeof missing - strlen(missing), "%sr %.2f z %.1f sigma %.2f",
                   want - found > 1 ? "; " : "", a->r, a->z, a->sigma);
    }
    xc_error e;
    if (want == 0) {
        gate_fail(g, obs, check, "the reference has no candidate above the cut: the case is too weak", "-");
        return;
    }
    gate_note(g, xc_checks_addf(&g->rows, obs, g->label, check, found == want ? XC_CHECK_PASS : XC_CHECK_FAIL,
                                (double)found, (double)want, "each within 1 bin in r and 4 in |z|", &e,
                                "%zu of %zu found (the output has %zu candidates)%s%s", found, want, got->n,
                                found < want ? "; missing: " : "", missing),
              &e);
}

static void run_case(gatectx *g, const pscase *c, const xc_impl *ref)
{
    const char *obs = c->name;
    char dir[4200], root[4300], dat[4400], fft[4400], truthp[4400], out[4300];
    xc_fmt(dir, sizeof dir, "%s/%s", g->work, obs);
    xc_fmt(root, sizeof root, "%s/psr", dir);
    xc_fmt(dat, sizeof dat, "%s.dat", root);
    xc_fmt(fft, sizeof fft, "%s.fft", root);
    xc_fmt(truthp, sizeof truthp, "%s.truth.json", root);
    xc_fmt(out, sizeof out, "%s/cands", dir);
    xc_error e;
    xc_synth_params p;
    xc_synth_params_init(&p);
    p.nchans = c->nchans;
    p.nbits = c->nbits;
    p.tsamp = c->tsamp;
    p.tobs = c->tobs;
    p.seed = c->seed;
    p.convention = g->cv;
    p.psr.period_ms = c->period_ms;
    p.psr.width_pct = c->width_pct;
    p.psr.snrpeak = c->snrpeak;
    p.psr.dm = c->dm;
    p.psr.accn = c->accn;
    xc_spectrum sp;
    memset(&sp, 0, sizeof sp);
    xc_status st = xc_mkdirs(dir, &e);
    if (!st)
        st = xc_synth_write_dedispersed(&p, root, truthp, xc_cli_cmdline(), &e);
    xc_synth_params_free(&p);
    if (!st)
        st = xc_fft_file(dat, root, XC_FFT_SINGLE, &e);
    if (!st)
        st = xc_spectrum_load(&sp, fft, &e);
    xc_candlist rl, cl;
    xc_candlist_init(&rl);
    xc_candlist_init(&cl);
    if (!st)
        st = search(ref, &sp, c, &rl, &e);
    xc_truth t;
    if (!st)
        st = xc_truth_read(&t, truthp, sp.T, &e);
    if (st) {   /* crosscheck's own side: an error, not a verdict */
        gate_note(g, st, &e);
        xc_spectrum_free(&sp);
        xc_candlist_free(&rl);
        return;
    }
    int have = 0;
    if (g->impl) {
        if ((st = search(g->impl, &sp, c, &cl, &e)))
            gate_fail(g, obs, "search", e.msg, "runs without error");
        else
            have = 1;
    } else {
        gate_kv kv[] = {{"fft", ""}, {"dat", ""}, {"inf", ""}, {"root", ""}, {"out", ""}, {"zmax", ""},
                        {"numharm", ""}, {"sigma", ""}, {"nbins", ""}, {"tsamp", ""}, {"T", ""}, {"case", ""},
                        {"dir", ""}};
        xc_fmt(kv[0].val, sizeof kv[0].val, "%s", fft);
        xc_fmt(kv[1].val, sizeof kv[1].val, "%s", dat);
        xc_fmt(kv[2].val, sizeof kv[2].val, "%s.inf", root);
        xc_fmt(kv[3].val, sizeof kv[3].val, "%s", root);
        xc_fmt(kv[4].val, sizeof kv[4].val, "%s", out);
        xc_fmt(kv[5].val, sizeof kv[5].val, "%d", c->zmax);
        xc_fmt(kv[6].val, sizeof kv[6].val, "%d", c->numharm);
        xc_fmt(kv[7].val, sizeof kv[7].val, "%g", c->sigma);
        xc_fmt(kv[8].val, sizeof kv[8].val, "%zu", sp.nbins);
        xc_fmt(kv[9].val, sizeof kv[9].val, "%.10g", sp.dt);
        xc_fmt(kv[10].val, sizeof kv[10].val, "%.10g", sp.T);
        xc_fmt(kv[11].val, sizeof kv[11].val, "%s", obs);
        xc_fmt(kv[12].val, sizeof kv[12].val, "%s", dir);
        char cmd[16384], log[4400], tail[512];
        xc_fmt(log, sizeof log, "%s/cmd.log", dir);
        int code = 0;
        if (gate_expand(g->cmd, kv, sizeof kv / sizeof kv[0], cmd, sizeof cmd, &e) ||
            gate_spawn(g, cmd, log, &code, tail, sizeof tail, &e)) {
            gate_note(g, XC_EINVAL, &e);
        } else if (!gate_cmd_failed(g, obs, cmd, log, code, tail)) {
            char cand[4][4400];
            xc_fmt(cand[0], sizeof cand[0], "%s.csv", out);
            xc_fmt(cand[1], sizeof cand[1], "%s.pulscand", out);
            xc_fmt(cand[2], sizeof cand[2], "%s_ACCEL_%d", out, c->zmax);
            xc_fmt(cand[3], sizeof cand[3], "%s_ACCEL_%d", root, c->zmax);
            int k = 0;
            while (k < 4 && !exists(cand[k]))
                k++;
            char why[1400];
            if (k == 4) {
                xc_fmt(why, sizeof why, "the command wrote none of %s, %s, %s, %s", cand[0], cand[1], cand[2],
                       cand[3]);
                gate_fail(g, obs, "output readable", why, "a candidate file");
            } else if (xc_cands_load(&cl, cand[k], sp.T, &e)) {
                gate_fail(g, obs, "output readable", e.msg, "a candidate file compare cands reads");
            } else {
                have = 1;
            }
        }
    }
    if (have) {
        xc_cmpcands_opts o;
        xc_cmpcands_opts_init(&o);
        o.fundamental = 1;
        o.truth_dr = 2;
        o.truth_dz = 4;
        gate_note(g, xc_check_truth(&g->rows, obs, g->label, &cl, &t, &o, &e), &e);
        check_vs_ref(g, obs, &cl, &rl, xc_family_name(ref->family));
    }
    gate_emit(g);
    xc_candlist_free(&cl);
    xc_candlist_free(&rl);
    xc_spectrum_free(&sp);
}

int gate_search(gatectx *g)
{
    const xc_registry *reg = xc_cli_registry();
    /* A plugin's searcher is a Pulscan one: judged against that reference. */
    xc_family fam = g->impl ? g->impl->family : (xc_family)g->family;
    const xc_impl *ref = xc_registry_pick(reg, fam, XC_CAP_REFERENCE, XC_CAP_APPROXIMATE | XC_CAP_RUNTIME | XC_CAP_DEVICE);
    if (!ref)
        return xc_cli_failf("gate search", "no reference %s searcher is registered", xc_family_name(fam));
    for (size_t i = 0; i < sizeof cases / sizeof cases[0] && !g->fatal; i++) {
        if (cases[i].tier > g->tier)
            continue;
        if (!g->quiet)
            fprintf(stderr, "crosscheck gate search: %s\n", cases[i].name);
        run_case(g, &cases[i], ref);
    }
    return 0;
}
