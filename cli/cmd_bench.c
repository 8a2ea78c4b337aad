/* crosscheck bench dedisperse: adds per second of each dedisperser on the
 * AstroAccelerate paper's frequency-resolution test (Novotny et al. 2023,
 * section 5.2, Table 2), against the machine's compute and memory limits. */
#include <jansson.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/bench_dd.h"
#include "cli/bench_util.h"
#include "cli/cli.h"
#include "cli/cli_opts.h"
#include "core/dedisp/xc_dedisperse.h"
#include "core/base/xc_progress.h"

#define MAX_LIST 16

static void help(void)
{
    printf("usage: crosscheck bench dedisperse [-json FILE] [-quick] [-threads N] [-nchans LIST]\n"
           "                                  [-impl LIST] [-nbits LIST] [-seconds S] [-repeat N]\n"
           "                                  [-ref_nout N] [-tile_t N] [-tile_dm N] [-tile_c N]\n"
           "                                  [-nsub LIST] [-subbudget LIST] [-loss_every N] [-report DIR]\n"
           "                                  [-replot FILE]\n"
           "       crosscheck bench pulscan -h   (the Pulscan search benchmark)\n"
           "       crosscheck bench accel -h     (the matched-filter accel/jerk search benchmark)\n"
           "       crosscheck bench synth -h     (the synthesizer benchmark)\n"
           "       crosscheck bench study -h     (a study's stages, pulsars per second per core)\n"
           "       crosscheck bench gpu -h       (the GPU dedispersion benchmark; CUDA builds)\n"
           "       crosscheck bench gpu-pulscan -h  (GPU Pulscan stage times, the paper's Table 4; CUDA builds)\n\n"
           "Times dedispersion of random data with the AstroAccelerate paper's Table 2 plan\n"
           "(" TABLE2_PLAN ", 3050 trials) on 64 us samples, centre 1400 MHz,\n"
           "300 MHz bandwidth (foff = -300/nchans MHz, fch1 = 1550 + foff/2 MHz), and reports adds\n"
           "per second (trials x output samples x channels / seconds) next to the machine's peak\n"
           "integer add rate and its memory-bandwidth bound.  The reference is timed on a short\n"
           "input (max delay + ref_nout samples) because it is about 100 times slower; the CPU\n"
           "kernel is also run on that input and checked bit for bit against it.\n\n"
           "Options:\n"
           "  -json FILE     write the records as JSON (atomically)\n"
           "  -quick         smoke test: 512 channels, max delay + 4096 samples, one run (seconds)\n"
           "  -threads N     thread count for the second CPU run; the first uses 1 (default 2)\n"
           "  -nchans LIST   comma-separated channel counts (default 512,1024,2048,4096)\n"
           "  -impl LIST     comma-separated implementations (default reference,cpu; see crosscheck list)\n"
           "  -nbits LIST    comma-separated input bit widths, 1..16 (default 8,16)\n"
           "  -seconds S     length of the input in seconds (default 10)\n"
           "  -repeat N      runs per configuration, best one kept; stops early once a\n"
           "                 configuration has used 20 s (default 3)\n"
           "  -ref_nout N    output samples for the reference (default 2000, fewer where\n"
           "                 2000 would take over ~4e9 adds; 256 with -quick)\n"
           "  -tile_t N, -tile_dm N, -tile_c N\n"
           "                 CPU tile sizes in samples, trials, channels (default 0: built-in)\n"
           "  -nsub LIST     approximate dedispersers (subband, tree): run each at every listed\n"
           "                 subband count (default 0: each one's default; trees take powers of two)\n"
           "  -subbudget LIST\n"
           "                 subband dedispersers: run at every listed smear budget, samples of\n"
           "                 ds*tsamp that choose the nominal-DM spacing (default 0: 0.8, DDplan.py's).\n"
           "                 Each approximate record carries its speedup over direct on the same\n"
           "                 hardware and its worst measured S/N loss, so a list of budgets draws\n"
           "                 the speed-against-loss curve\n"
           "  -loss_every N  approximate entries' worst S/N loss (pulses of 1 and 4 samples against\n"
           "                 direct): N > 0 puts a pulse at every N-th trial of the timed plan, so the\n"
           "                 loss is that of the timed run (direct then runs on the device for device\n"
           "                 entries); 0 measures on the first 12 trials of each range (quick, but\n"
           "                 blind to large smear budgets).  Default 61 for device entries, 0 else\n"
           "  -report DIR    HTML report in DIR: the approximate entries' speed against their worst\n"
           "                 S/N loss, a curve per entry and channel count, with the goals as points\n"
           "  -replot FILE   with -report: draw that report from FILE, the JSON of an earlier run\n"
           "                 (nothing is timed)\n");
}

/* ---- one configuration ----------------------------------------------------- */

typedef struct {
    int quick, threads, repeat, ref_nout;
    double seconds;
    xc_ddopts opts;       /* the request (threads set per record) */
    xc_ddtune tune;       /* -tile_t, -tile_dm, -tile_c */
    int nsub[MAX_LIST], nnsub;
    double budget[MAX_LIST];
    int nbudget;
    int loss_every;       /* approximate entries' loss measure (xc_bench_dd_worst_loss); -1: by entry */
} settings;

static double job_adds(const xc_ddjob *job)
{
    double a = 0;
    for (int k = 0; k < job->plan->nranges; k++)
        a += (double)job->plan->r[k].ndm * (double)(job->nout / (size_t)job->plan->r[k].ds) *
             (double)job->in->nchans;
    return a;
}

/* One execution of a plan, as xc_bench_time times it. */
typedef struct {
    xc_ddplan *p;
    const xc_block *in;
    xc_plane *pl;
    double best_kms;          /* the least kernel ms of the runs, where the plan reports it (-1: none) */
} exec_ctx;

static xc_status exec_once(void *ctx, xc_error *err)
{
    exec_ctx *e = ctx;
    xc_status st = xc_ddplan_execute(e->p, e->in, e->pl, err);
    xc_ddstats ds;
    if (!st && !xc_ddplan_stats(e->p, &ds) && ds.kernel_ms >= 0 && (e->best_kms < 0 || ds.kernel_ms < e->best_kms))
        e->best_kms = ds.kernel_ms;
    return st;
}

static int planes_same(const xc_plane *a, const xc_plane *b)
{
    if (a->nranges != b->nranges)
        return 0;
    for (int k = 0; k < a->nranges; k++) {
        size_t n = a->r[k].ndm * a->r[k].nsamp;
        if (a->r[k].nsamp != b->r[k].nsamp || a->r[k].ndm != b->r[k].ndm ||
            (n && memcmp(a->r[k].data, b->r[k].data, n * sizeof(float))))
            return 0;
    }
    return 1;
}

typedef struct {
    const xc_bench_machine *mc;
    json_t *records;
    double ref_rate;          /* adds/s of the reference for this nbits/nchans, 0 if not run */
    int verified;             /* -1 not checked, 0 differs, 1 bit-exact on the short input */
    xc_plane refplane;        /* the reference's plane of the short input (nranges 0: none) */
    double direct_s[2];       /* direct cpu's best seconds at 1 / many threads on this input (0: not run) */
    double direct_gpu_s;      /* direct gpu's best seconds on this input (0: not run) */
    double direct_gpu_kernel_s;   /* and its kernels' time */
} bench_ctx;

/* Times impl on job and appends its record; the plane of the last run is
 * handed back in keep when that is not NULL. */
static xc_status bench_one(bench_ctx *bc, const settings *s, const xc_dedisperser *impl, const xc_ddjob *job,
                           int threads, const char *note, xc_plane *keep, xc_error *err)
{
    xc_ddjob j = *job;
    xc_ddopts opts = s->opts;
    opts.threads = threads;
    /* device implementations report their kernels' time (a run without the
     * copies to and from the device) through the plan's stats */
    exec_ctx ec = {NULL, j.in, NULL, -1};
    /* The plan (delays, the implementation's state) is made once and timed
     * apart from the executions it serves. */
    double t0 = xc_now();
    xc_ddplan *p;
    xc_status st = xc_ddplan_create_tuned(&p, impl, &j.geom, j.in->nbits, j.plan, j.conv, j.killmask, &opts, &s->tune,
                                          err);
    double plan_t = xc_now() - t0;
    if (st)
        return st;
    xc_plane pl;
    if ((st = xc_ddplan_plane_alloc(p, j.in->nsamp, &pl, err))) {
        xc_ddplan_destroy(p);
        return st;
    }
    /* Best of -repeat, stopping once a configuration has used 20 s. */
    double times[XC_BENCH_MAX_RUNS];
    int runs = 0;
    ec.p = p;
    ec.pl = &pl;
    st = xc_bench_time(exec_once, NULL, &ec, s->repeat, 20.0, times, &runs, err);
    xc_ddplan_destroy(p);
    if (st || !keep)
        xc_plane_free(&pl);
    else
        *keep = pl;
    if (st)
        return st;
    double t = times[0];
    double adds = job_adds(&j), rate = t > 0 ? adds / t : 0;
    json_t *rec = json_object();
    json_object_set_new(rec, "impl", json_string(impl->impl.name));
    json_object_set_new(rec, "nbits", json_integer(j.in->nbits));
    json_object_set_new(rec, "nchans", json_integer(j.in->nchans));
    json_object_set_new(rec, "threads", json_integer(threads));
    json_object_set_new(rec, "nsamp_in", json_integer((json_int_t)j.in->nsamp));
    json_object_set_new(rec, "nout", json_integer((json_int_t)j.nout));
    json_object_set_new(rec, "ndm", json_integer((json_int_t)xc_dmplan_ndm(j.plan)));
    json_object_set_new(rec, "seconds", json_real(t));
    json_object_set_new(rec, "plan_seconds", json_real(plan_t));
    json_object_set_new(rec, "runs", json_integer(runs));
    json_object_set_new(rec, "adds", json_real(adds));
    json_object_set_new(rec, "adds_per_s", json_real(rate));
    json_object_set_new(rec, "adds_per_s_per_thread", json_real(rate / threads));
    const unsigned notdirect = XC_CAP_REFERENCE | XC_CAP_APPROXIMATE | XC_CAP_DEVICE | XC_CAP_RUNTIME;
    if (!(impl->impl.caps & notdirect))
        bc->direct_s[threads > 1] = t;
    /* the first direct device entry listed (-impl gpu before gpu-direct) */
    const double kt = ec.best_kms >= 0 ? ec.best_kms / 1e3 : 0;
    if (kt > 0)
        json_object_set_new(rec, "kernel_seconds", json_real(kt));
    if ((impl->impl.caps & notdirect) == XC_CAP_DEVICE && bc->direct_gpu_s == 0) {
        bc->direct_gpu_s = t;
        bc->direct_gpu_kernel_s = kt;
    }
    if (impl->impl.caps & XC_CAP_APPROXIMATE) {
        /* speed and loss read together, against direct on the same hardware */
        if (bc->direct_s[threads > 1] > 0)
            json_object_set_new(rec, "speedup_vs_direct_cpu", json_real(bc->direct_s[threads > 1] / t));
        if ((impl->impl.caps & XC_CAP_DEVICE) && bc->direct_gpu_s > 0)
            json_object_set_new(rec, "speedup_vs_direct_gpu", json_real(bc->direct_gpu_s / t));
        if ((impl->impl.caps & XC_CAP_DEVICE) && bc->direct_gpu_kernel_s > 0 && kt > 0)
            json_object_set_new(rec, "kernel_speedup_vs_direct_gpu", json_real(bc->direct_gpu_kernel_s / kt));
        const int every = s->loss_every >= 0 ? s->loss_every : (impl->impl.caps & XC_CAP_DEVICE) ? 61 : 0;
        double loss = xc_bench_dd_worst_loss(impl, &j.geom, j.conv, &opts, every);
        json_object_set_new(rec, "loss_every", json_integer(every));
        json_object_set_new(rec, "nsub", json_integer(opts.nsub));
        json_object_set_new(rec, "subbudget", json_real(opts.subbudget));
        if (!isnan(loss))
            json_object_set_new(rec, "worst_snr_loss", json_real(loss));
    }
    if (impl->impl.caps & XC_CAP_REFERENCE)
        bc->ref_rate = rate;
    else if (bc->ref_rate > 0)
        json_object_set_new(rec, "ratio_to_reference", json_real(rate / bc->ref_rate));
    if (!(impl->impl.caps & XC_CAP_REFERENCE) && bc->verified >= 0)
        json_object_set_new(rec, "bit_exact_vs_reference_short_input", json_boolean(bc->verified));
    xc_bench_dd_limits(rec, bc->mc, j.in->nbits, threads, adds, &j);
    if (note)
        json_object_set_new(rec, "note", json_string(note));
    json_array_append_new(bc->records, rec);

    double peak = json_real_value(json_object_get(rec, "peak_adds_per_s"));
    char ratio[32] = "", verified[8] = "";
    if (json_object_get(rec, "ratio_to_reference"))
        snprintf(ratio, sizeof ratio, "%.0f", rate / bc->ref_rate);
    if (json_object_get(rec, "bit_exact_vs_reference_short_input"))
        snprintf(verified, sizeof verified, "%s", bc->verified ? "yes" : "NO");
    printf("%-10s %5d %6d %3d %8zu %5zu %9.3f %8.3f %8.2f %8.2f %7s %6.1f %5s\n", impl->impl.name, j.in->nbits,
           j.in->nchans, threads, j.nout, xc_dmplan_ndm(j.plan), plan_t, t, rate / 1e9, rate / threads / 1e9, ratio,
           peak > 0 ? 100.0 * rate / peak : 0.0, verified);
    if (kt > 0)
        printf("%-10s kernels only: %.4f s, %.2f Gadds/s\n", "", kt, adds / kt / 1e9);
    if (impl->impl.caps & XC_CAP_APPROXIMATE) {
        json_t *sp = json_object_get(rec, (impl->impl.caps & XC_CAP_DEVICE) ? "kernel_speedup_vs_direct_gpu"
                                                                             : "speedup_vs_direct_cpu");
        json_t *wl = json_object_get(rec, "worst_snr_loss");
        printf("%-10s nsub %d, budget %g: %s %.2fx, worst S/N loss %.3f\n", "", opts.nsub, opts.subbudget,
               (impl->impl.caps & XC_CAP_DEVICE) ? "kernels vs direct gpu" : "vs direct cpu",
               sp ? json_real_value(sp) : NAN, wl ? json_real_value(wl) : NAN);
    }
    fflush(stdout);
    return XC_OK;
}

/* Runs every implementation on one nbits x nchans configuration. */
static xc_status bench_config(bench_ctx *bc, const settings *s, const xc_dedisperser **impls, int nimpl,
                              int nbits, int nchans, const xc_dmplan *plan, const xc_convention *cv,
                              xc_error *err)
{
    double foff = -300.0 / nchans;
    xc_geometry g = {nchans, 1550.0 + foff / 2, foff, 64e-6};
    int64_t maxd;
    xc_status st = xc_dmplan_max_delay(cv, &g, plan, &maxd, err);
    if (st)
        return st;
    size_t nsamp = s->quick ? (size_t)maxd + 4096 : (size_t)(s->seconds / g.tsamp + 0.5);
    if (nsamp <= (size_t)maxd)
        return xc_error_set(err, XC_EINVAL, "-seconds: %g s (%zu samples) is shorter than the plan's largest delay (%lld samples)",
                            s->seconds, nsamp, (long long)maxd);
    size_t ref_nout = (size_t)s->ref_nout;
    if (ref_nout == 0) {
        double cap = 4e9 / ((double)xc_dmplan_ndm(plan) * nchans);
        ref_nout = s->quick ? 256 : cap < 2000 ? (size_t)(cap > 100 ? cap : 100) : 2000;
    }
    if (ref_nout > nsamp - (size_t)maxd)
        ref_nout = nsamp - (size_t)maxd;
    uint16_t *u = malloc(nsamp * (size_t)nchans * sizeof *u);
    if (!u)
        return xc_error_set(err, XC_ENOMEM, "bench: out of memory for %zu x %d samples", nsamp, nchans);
    xc_bench_fill_random(u, nsamp * (size_t)nchans, nbits, (uint64_t)nbits * 1000003u + (uint64_t)nchans);
    xc_block full = {nchans, nsamp, nbits, u, NULL};
    xc_block shortin = {nchans, (size_t)maxd + ref_nout, nbits, u, NULL};
    xc_ddjob jfull, jshort;
    memset(&jshort, 0, sizeof jshort);
    if ((st = xc_ddjob_init(&jfull, &full, plan, cv, &g, NULL, err))) {
        free(u);
        return st;
    }
    if ((st = xc_ddjob_init(&jshort, &shortin, plan, cv, &g, NULL, err))) {
        xc_ddjob_free(&jfull);
        free(u);
        return st;
    }
    bc->ref_rate = 0;
    bc->verified = -1;
    bc->direct_s[0] = bc->direct_s[1] = bc->direct_gpu_s = bc->direct_gpu_kernel_s = 0;
    char refnote[256];
    snprintf(refnote, sizeof refnote,
             "reference timed on a short input, max delay %lld + %zu output samples (it runs ~100x slower "
             "than the cpu kernel); the cpu records' ratio_to_reference divides by this rate",
             (long long)maxd, ref_nout);
    for (int i = 0; i < nimpl && !st; i++) {
        if (impls[i]->impl.caps & XC_CAP_REFERENCE) {
            settings once = *s;
            once.repeat = 1;
            xc_plane_free(&bc->refplane);
            st = bench_one(bc, &once, impls[i], &jshort, 1, refnote, &bc->refplane, err);
            continue;
        }
        /* Every other implementation first runs the short input, compared
         * bit for bit with the reference's plane (integer input). */
        bc->verified = -1;
        if (bc->refplane.nranges && !(impls[i]->impl.caps & XC_CAP_APPROXIMATE)) {
            xc_ddplan *p;
            xc_plane b;
            if (!(st = xc_ddplan_create_tuned(&p, impls[i], &g, nbits, plan, cv, NULL, &s->opts, &s->tune, err))) {
                if (!(st = xc_ddplan_plane_alloc(p, shortin.nsamp, &b, err))) {
                    if (!(st = xc_ddplan_execute(p, &shortin, &b, err)))
                        bc->verified = planes_same(&bc->refplane, &b);
                    xc_plane_free(&b);
                }
                xc_ddplan_destroy(p);
            }
        }
        /* approximate entries: once per listed subband count and smear budget */
        const int approx = (impls[i]->impl.caps & XC_CAP_APPROXIMATE) != 0;
        const int nn = approx && s->nnsub ? s->nnsub : 1, nb = approx && s->nbudget ? s->nbudget : 1;
        for (int a = 0; a < nn * nb && !st; a++) {
            settings v = *s;
            if (approx) {
                v.opts.nsub = s->nnsub ? s->nsub[a / nb] : 0;
                v.opts.subbudget = s->nbudget ? s->budget[a % nb] : 0;
            }
            if (impls[i]->impl.caps & XC_CAP_THREADED) {
                st = bench_one(bc, &v, impls[i], &jfull, 1, NULL, NULL, err);
                if (!st && s->threads > 1)
                    st = bench_one(bc, &v, impls[i], &jfull, s->threads, NULL, NULL, err);
            } else {
                st = bench_one(bc, &v, impls[i], &jfull, s->threads, NULL, NULL, err);
            }
        }
    }
    xc_plane_free(&bc->refplane);
    xc_ddjob_free(&jshort);
    xc_ddjob_free(&jfull);
    free(u);
    return st;
}

static int bench_dedisperse(int argc, char **argv)
{
    static const xc_optspec spec = {"bench", help, 0};
    settings s = {.quick = 0, .threads = 2, .repeat = 3, .ref_nout = 0, .seconds = 10.0, .loss_every = -1};
    const char *json = NULL, *implspec = "reference,cpu", *repdir = NULL, *replot = NULL;
    int nchans_v[MAX_LIST] = {512, 1024, 2048, 4096}, nbits_v[MAX_LIST] = {8, 16}, nchans_given = 0;
    xc_cli_ints nchans = {nchans_v, 4, MAX_LIST}, nbits = {nbits_v, 2, MAX_LIST};
    int nsub_v[MAX_LIST];
    xc_cli_ints nsub = {nsub_v, 0, MAX_LIST};
    const char *budgetspec = NULL;
    const xc_opt opts[] = {
        XC_OPT_STR("json", &json),
        XC_OPT_FLAG("quick", &s.quick),
        XC_OPT_INT("threads", &s.threads, 1, 4096),
        {.name = "nchans", .kind = XC_OPTK_INTS, .dest = &nchans, .lo = 1, .hi = 1 << 16, .given = &nchans_given},
        XC_OPT_STR("impl", &implspec),
        XC_OPT_INTS("nbits", &nbits, 1, 16),
        XC_OPT_DOUBLE("seconds", &s.seconds),
        XC_OPT_INT("repeat", &s.repeat, 1, 100),
        XC_OPT_INT("ref_nout", &s.ref_nout, 1, 1 << 24),
        XC_OPT_INT("tile_t", &s.tune.tile_t, 0, 1 << 24),
        XC_OPT_INT("tile_dm", &s.tune.tile_dm, 0, 1 << 20),
        XC_OPT_INT("tile_c", &s.tune.tile_c, 0, 1 << 24),
        XC_OPT_INTS("nsub", &nsub, 0, 1 << 20),
        XC_OPT_STR("subbudget", &budgetspec),
        XC_OPT_INT("loss_every", &s.loss_every, 0, 1 << 20),
        XC_OPT_STR("report", &repdir),
        XC_OPT_STR("replot", &replot),
        XC_OPT_END,
    };
    int rc = xc_opts_parse(&spec, opts, argc, argv, NULL);
    if (rc != XC_OPTS_GO)
        return rc;
    if (replot) {
        /* the report of an earlier run's JSON (e.g. from a machine built without plots) */
        if (!repdir)
            return xc_cli_failf("bench", "-replot %s needs -report DIR", replot);
        json_error_t je;
        json_t *old = json_load_file(replot, 0, &je);
        json_t *recs = old ? json_object_get(old, "records") : NULL;
        if (!json_is_array(recs)) {
            json_decref(old);
            return xc_cli_failf("bench", "-replot %s: %s", replot,
                                old ? "no 'records' array (not a bench dedisperse JSON)" : je.text);
        }
        xc_error e;
        xc_status rst = xc_bench_dd_curve_report(recs, repdir, &e);
        json_decref(old);
        if (rst)
            return xc_cli_fail("bench", &e);
        printf("report: %s/index.html\n", repdir);
        return 0;
    }
    s.nnsub = nsub.n;
    memcpy(s.nsub, nsub_v, (size_t)nsub.n * sizeof *nsub_v);
    if (budgetspec) {
        char bbuf[512], *bsave = NULL;
        snprintf(bbuf, sizeof bbuf, "%s", budgetspec);
        for (char *tok = strtok_r(bbuf, ",", &bsave); tok; tok = strtok_r(NULL, ",", &bsave)) {
            char *end;
            double v = strtod(tok, &end);
            if (end == tok || *end || !(v >= 0 && v <= 1e6))
                return xc_cli_failf("bench", "-subbudget: '%s' is not a number of samples in [0, 1e6]", tok);
            if (s.nbudget == MAX_LIST)
                return xc_cli_failf("bench", "-subbudget: more than %d values", MAX_LIST);
            s.budget[s.nbudget++] = v;
        }
    }
    if (xc_bench_check_nbits("bench", nbits.v, nbits.n))
        return 2;
    if (!(s.seconds > 0 && s.seconds <= 3600))
        return xc_cli_failf("bench", "-seconds: %g must be in (0, 3600]", s.seconds);
    if (s.quick) {
        s.repeat = 1;
        if (!nchans_given) {
            nchans.v[0] = 512;
            nchans.n = 1;
        }
    }

    const xc_dedisperser *impls[MAX_LIST];
    int nimpl = 0;
    char ibuf[256];
    snprintf(ibuf, sizeof ibuf, "%s", implspec);
    char *save = NULL;
    for (char *tok = strtok_r(ibuf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        const xc_impl *di = xc_registry_find(xc_cli_registry(), XC_FAMILY_DEDISPERSE, tok);
        const xc_dedisperser *d = xc_dedisperser_of(di);
        if (!d)
            return xc_cli_failf("bench", "-impl: '%s' is not a registered implementation (see crosscheck list)", tok);
        char why[256] = "";
        if (!xc_impl_available(di, why, sizeof why)) {
            printf("# skipping %s: %s\n", tok, why);
            continue;
        }
        if (nimpl == MAX_LIST)
            return xc_cli_failf("bench", "-impl: more than %d implementations", MAX_LIST);
        impls[nimpl++] = d;
    }
    if (nimpl == 0)
        return xc_cli_failf("bench", "-impl: nothing to run");

    xc_bench_machine mc;
    /* Larger than any last-level cache, so it measures DRAM (this VM reports 480 MiB of L3). */
    xc_bench_machine_measure(&mc, s.quick ? (size_t)64 << 20 : (size_t)2 << 30, s.threads);

    xc_error err;
    xc_error_clear(&err);
    xc_dmplan plan;
    xc_status st = xc_dmplan_parse(&plan, TABLE2_PLAN, "Table 2 plan", &err);
    if (st)
        return xc_cli_fail("bench", &err);
    const xc_convention *cv = xc_convention_get("crosscheck");

    printf("# %s, %d cores, %.0f MHz, kernel %s, gcc %s\n", mc.model, mc.cores, mc.mhz, mc.isa, __VERSION__);
    printf("# read bandwidth %.1f GB/s (1 thread), %.1f GB/s (%d threads); %d threads run a compute-only loop %.2fx as fast as 1\n",
           mc.bw1 / 1e9, mc.bwn / 1e9, s.threads, s.threads, mc.speedup);
    printf("# plan %s (%zu trials), tsamp 64 us, 1250-1550 MHz, %s\n", TABLE2_PLAN, xc_dmplan_ndm(&plan),
           s.quick ? "quick: max delay + 4096 samples" : "random data");
    printf("%-10s %5s %6s %3s %8s %5s %9s %8s %8s %8s %7s %6s %5s\n", "impl", "nbits", "nchans", "thr", "nout",
           "ndm", "plan s", "exec s", "Gadds/s", "/thread", "x ref", "%peak", "exact");

    json_t *records = json_array();
    bench_ctx bc = {&mc, records, 0, -1, {0, NULL}, {0, 0}, 0, 0};
    for (int b = 0; b < nbits.n && !st; b++)
        for (int n = 0; n < nchans.n && !st; n++)
            st = bench_config(&bc, &s, impls, nimpl, nbits.v[b], nchans.v[n], &plan, cv, &err);
    xc_dmplan_free(&plan);
    if (st) {
        json_decref(records);
        return xc_cli_fail("bench", &err);
    }

    json_t *root = json_object();
    json_object_set_new(root, "benchmark", json_string("dedisperse"));
    json_object_set_new(root, "machine", xc_bench_machine_json(&mc));
    json_object_set_new(root, "threads", json_integer(s.threads));
    json_object_set_new(root, "command", json_string(xc_cli_cmdline()));
    json_object_set_new(root, "quick", json_boolean(s.quick));
    json_object_set_new(root, "plan", json_string(TABLE2_PLAN));
    json_object_set_new(root, "convention", json_string(cv->name));
    json_object_set_new(root, "tsamp_s", json_real(64e-6));
    json_object_set_new(root, "band_mhz", json_string("1250-1550, foff = -300/nchans, fch1 = 1550 + foff/2"));
    if (!s.quick)
        json_object_set_new(root, "seconds_of_data", json_real(s.seconds));
    json_object_set_new(root, "tiles", json_pack("{s:i,s:i,s:i}", "tile_t", s.tune.tile_t, "tile_dm",
                                                 s.tune.tile_dm, "tile_c", s.tune.tile_c));
    json_object_set_new(root, "definitions", json_pack(
        "{s:s,s:s,s:s,s:s,s:s,s:s,s:s,s:s}",
        "adds", "sum over ranges of trials x output samples x channels",
        "seconds", "best of `runs` wall-clock executions of the plan on the whole input (corner turn included)",
        "plan_seconds", "wall-clock time to create the plan once: delay tables and the implementation's own "
                        "state (device buffers, tuning); not part of seconds",
        "peak_adds_per_s", "min(threads, cores) x cpu MHz x peak_lanes: one widening add per lane per cycle, "
                           "lanes = vector bytes of the kernel version the loader picked / narrow accumulator bytes "
                           "(uint16 for 8-bit input, uint32 for 16-bit)",
        "memory_bound_adds_per_s", "adds x read bandwidth / (input bytes as uint16 + float plane bytes): "
                                   "the rate if only the compulsory traffic moved at the measured streaming "
                                   "read bandwidth (1 thread, or all threads)",
        "memory_noreuse_adds_per_s", "read bandwidth / bytes per stored sample: the rate with no cache reuse at all",
        "compute_speedup_n_threads", "N threads over 1 thread on a register-only integer loop, measured at start: "
                                     "the parallel speedup the machine offered (below N on a shared VM)",
        "anchor", "AstroAccelerate's CPU code: ~0.31 TFLOPS on a 20-core Xeon Gold 6230 (Novotny et al. 2023, "
                  "section 6), i.e. ~15 G adds/s per core, 8-bit input"));
    json_object_set_new(root, "records", records);
    if ((json && (st = xc_cli_write_json(json, root, JSON_INDENT(2) | JSON_REAL_PRECISION(10), &err))) ||
        (repdir && (st = xc_bench_dd_curve_report(records, repdir, &err)))) {
        json_decref(root);
        return xc_cli_fail("bench", &err);
    }
    if (repdir)
        printf("report: %s/index.html\n", repdir);
    json_decref(root);
    return 0;
}

int xc_cmd_bench(int argc, char **argv)
{
    if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-help")) {
        help();
        return argc < 2 ? 2 : 0;
    }
    if (!strcmp(argv[1], "pulscan"))
        return xc_bench_pulscan(argc - 1, argv + 1);
    if (!strcmp(argv[1], "accel"))
        return xc_bench_accel(argc - 1, argv + 1);
    if (!strcmp(argv[1], "synth"))
        return xc_bench_synth(argc - 1, argv + 1);
    if (!strcmp(argv[1], "study"))
        return xc_bench_study(argc - 1, argv + 1);
    if (!strcmp(argv[1], "gpu"))
        return xc_bench_gpu(argc - 1, argv + 1);
    if (!strcmp(argv[1], "gpu-pulscan"))
        return xc_bench_gpu_pulscan(argc - 1, argv + 1);
    if (strcmp(argv[1], "dedisperse"))
        return xc_cli_failf("bench", "unknown benchmark '%s' (there are: dedisperse, pulscan, accel, synth, study, gpu, gpu-pulscan)", argv[1]);
    return bench_dedisperse(argc - 1, argv + 1);
}
