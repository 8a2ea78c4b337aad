/* The dedispersion benchmark (xc_bench_dd.h): adds per second of each
 * dedisperser on the AstroAccelerate paper's frequency-resolution test
 * (Novotny et al. 2023, section 5.2, Table 2), against the machine's compute
 * and memory limits. */
#include <jansson.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench/xc_bench_dd.h"
#include "core/base/xc_progress.h"
#include "core/dedisp/approx/xc_ddapprox.h"
#include "core/dedisp/approx/xc_subband.h"
#include "optimized/cpu/xc_cpu.h"

static double job_adds(const xc_ddjob *job)
{
    double a = 0;
    for (int k = 0; k < job->plan->nranges; k++)
        a += (double)job->plan->r[k].ndm * (double)(job->nout / (size_t)job->plan->r[k].ds) *
             (double)job->in->nchans;
    return a;
}

/* Process CPU seconds (user + system of every thread) so far. */
static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* One execution of a plan, as xc_bench_time times it; each run's process
 * CPU seconds go to cpu[runs]. */
typedef struct {
    xc_ddplan *p;
    const xc_block *in;
    xc_plane *pl;
    double best_kms;          /* the least kernel ms of the runs, where the plan reports it (-1: none) */
    double cpu[XC_BENCH_MAX_RUNS];
    int runs;
} exec_ctx;

static xc_status exec_once(void *ctx, xc_error *err)
{
    exec_ctx *e = ctx;
    const double c0 = cpu_now();
    xc_status st = xc_ddplan_execute(e->p, e->in, e->pl, err);
    if (e->runs < XC_BENCH_MAX_RUNS)
        e->cpu[e->runs++] = cpu_now() - c0;
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
    const xc_registry *reg;
    const xc_bench_machine *mc;
    xc_bench_sink out;
    double ref_rate;          /* adds/s of the reference for this nbits/nchans, 0 if not run */
    int verified;             /* -1 not checked, 0 differs, 1 bit-exact on the short input */
    xc_plane refplane;        /* the reference's plane of the short input (nranges 0: none) */
    double direct_s[2];       /* direct cpu's best seconds at 1 / many threads on this input (0: not run) */
    double direct_cpu_s[2];   /* and its median CPU seconds */
    double direct_less_w[2];  /* and those less its plane-write floor (0: not measured) */
    double direct_gpu_s;      /* direct gpu's best seconds on this input (0: not run) */
    double direct_gpu_kernel_s;   /* and its kernels' time */
} bench_ctx;

/* One timed entry: the plan's creation, the first execute (the plan's
 * buffers and the plane's pages touched), the best of the runs after it,
 * its kernels. */
typedef struct {
    double plan_t, first_t, first_cpu, t, cpu, kt;
    double w_plain, w_stream;   /* the plane-write floor, CPU s (-1: not measured) */
    int runs;
} timing;

/* The plane-write floor of a CPU entry, on its own plane, warm: median process CPU seconds of
 * xc_cpu_plane_write in ordinary and in streaming stores, three rounds alternated. */
static void write_floor(xc_plane *pl, int threads, timing *tm)
{
    enum { ROUNDS = 3 };
    double w[2][ROUNDS];
    for (int r = 0; r < ROUNDS; r++)
        for (int streamed = 0; streamed < 2; streamed++) {
            const double c0 = cpu_now();
            xc_cpu_plane_write(pl, streamed, threads);
            w[streamed][r] = cpu_now() - c0;
        }
    tm->w_plain = xc_bench_median(w[0], ROUNDS);
    tm->w_stream = xc_bench_median(w[1], ROUNDS);
}

/* Makes the plan (timed apart from the executions it serves), runs it once
 * (timed apart: first_t) and times -repeat executions after that one,
 * stopping once those have used 20 s; the plane of the last run is
 * handed back in keep when that is not NULL. */
static xc_status time_entry(const xc_bench_dd_opts *s, const xc_dedisperser *impl, const xc_ddjob *j,
                            const xc_ddopts *opts, xc_plane *keep, timing *tm, xc_error *err)
{
    /* device implementations report their kernels' time (a run without the
     * copies to and from the device) through the plan's stats */
    exec_ctx *ec = calloc(1, sizeof *ec);
    if (!ec)
        return xc_error_set(err, XC_ENOMEM, "bench: out of memory");
    *ec = (exec_ctx){.in = j->in, .best_kms = -1};
    double t0 = xc_now();
    xc_ddplan *p;
    xc_status st = xc_ddplan_create_tuned(&p, impl, &j->geom, j->in->nbits, j->plan, j->conv, j->killmask, opts,
                                          &s->tune, err);
    tm->plan_t = xc_now() - t0;
    if (st) {
        free(ec);
        return st;
    }
    xc_plane pl;
    if ((st = xc_ddplan_plane_alloc(p, j->in->nsamp, &pl, err))) {
        xc_ddplan_destroy(p);
        free(ec);
        return st;
    }
    double times[XC_BENCH_MAX_RUNS];
    ec->p = p;
    ec->pl = &pl;
    /* the reference (a short input, ~100x slower) is timed from its first run */
    tm->first_t = tm->first_cpu = -1;
    if (!(impl->impl.caps & XC_CAP_REFERENCE)) {
        t0 = xc_now();
        st = exec_once(ec, err);
        tm->first_t = xc_now() - t0;
        tm->first_cpu = ec->cpu[0];
        ec->runs = 0;
        ec->best_kms = -1;
    }
    if (!st)
        st = xc_bench_time(exec_once, NULL, ec, s->repeat, 20.0, times, &tm->runs, err);
    tm->w_plain = tm->w_stream = -1;
    if (!st && !(impl->impl.caps & (XC_CAP_REFERENCE | XC_CAP_DEVICE)))
        write_floor(&pl, opts->threads, tm);
    xc_ddplan_destroy(p);
    if (st || !keep)
        xc_plane_free(&pl);
    else
        *keep = pl;
    tm->t = st ? 0 : times[0];
    tm->cpu = ec->runs ? xc_bench_median(ec->cpu, ec->runs) : 0;
    tm->kt = ec->best_kms >= 0 ? ec->best_kms / 1e3 : 0;
    free(ec);
    return st;
}

/* An approximate entry's speed and loss, read together against direct on
 * the same hardware. */
static void approx_fields(const bench_ctx *bc, const xc_bench_dd_opts *s, const xc_dedisperser *impl,
                          const xc_ddjob *j, const xc_ddopts *opts, const timing *tm, json_t *rec)
{
    const int dev = (impl->impl.caps & XC_CAP_DEVICE) != 0;
    if (bc->direct_s[opts->threads > 1] > 0)
        json_object_set_new(rec, "speedup_vs_direct_cpu", json_real(bc->direct_s[opts->threads > 1] / tm->t));
    if (dev && bc->direct_gpu_s > 0)
        json_object_set_new(rec, "speedup_vs_direct_gpu", json_real(bc->direct_gpu_s / tm->t));
    /* against direct on the same hardware and threads */
    const double direct = dev ? bc->direct_gpu_s : bc->direct_s[opts->threads > 1];
    if (direct > 0)
        json_object_set_new(rec, "speedup_vs_direct", json_real(direct / tm->t));
    if (!dev && bc->direct_cpu_s[opts->threads > 1] > 0 && tm->cpu > 0)
        json_object_set_new(rec, "cpu_speedup_vs_direct", json_real(bc->direct_cpu_s[opts->threads > 1] / tm->cpu));
    const double dless = bc->direct_less_w[opts->threads > 1];
    if (!dev && dless > 0 && tm->w_stream >= 0) {
        json_object_set_new(rec, "compute_cpu_speedup_vs_direct", json_real(dless / (tm->cpu - tm->w_stream)));
        json_object_set_new(rec, "write_bound_cpu_speedup_vs_direct",
                            json_real(bc->direct_cpu_s[opts->threads > 1] / tm->w_stream));
    }
    if (dev && bc->direct_gpu_kernel_s > 0 && tm->kt > 0)
        json_object_set_new(rec, "kernel_speedup_vs_direct_gpu", json_real(bc->direct_gpu_kernel_s / tm->kt));
    const int every = s->loss_every >= 0 ? s->loss_every : dev ? 61 : 0;
    double byw[XC_BENCH_DD_LOSS_NW];
    double loss = xc_bench_dd_worst_loss(bc->reg, impl, &j->geom, j->conv, opts, every, byw);
    json_object_set_new(rec, "loss_every", json_integer(every));
    json_object_set_new(rec, "nsub", json_integer(opts->nsub));
    json_object_set_new(rec, "subbudget", json_real(opts->subbudget));
    if (xc_ddapprox_of(impl) == &xc_ddapprox_subband) {
        json_object_set_new(rec, "subalign", json_string(xc_subalign_name(opts->subalign)));
        json_object_set_new(rec, "subsplit", json_string(xc_subsplit_name(opts->subsplit)));
    }
    if (!isnan(loss)) {
        json_object_set_new(rec, "worst_snr_loss", json_real(loss));
        /* the worst per pulse width, keyed by its samples */
        json_t *per = json_object();
        for (int w = 0; w < XC_BENCH_DD_LOSS_NW; w++) {
            char key[16];
            snprintf(key, sizeof key, "%d", xc_bench_dd_loss_widths[w]);
            json_object_set_new(per, key, json_real(byw[w]));
        }
        json_object_set_new(rec, "snr_loss", per);
    }
}

/* Times impl on job and appends its record; the plane of the last run is
 * handed back in keep when that is not NULL. */
static xc_status bench_one(bench_ctx *bc, const xc_bench_dd_opts *s, const xc_dedisperser *impl,
                           const xc_ddjob *j, int threads, const char *note, xc_plane *keep, xc_error *err)
{
    xc_ddopts opts = s->opts;
    opts.threads = threads;
    timing tm;
    xc_status st = time_entry(s, impl, j, &opts, keep, &tm, err);
    if (st)
        return st;
    const double adds = job_adds(j), rate = tm.t > 0 ? adds / tm.t : 0;
    json_t *rec = json_object();
    json_object_set_new(rec, "impl", json_string(impl->impl.name));
    json_object_set_new(rec, "nbits", json_integer(j->in->nbits));
    json_object_set_new(rec, "nchans", json_integer(j->in->nchans));
    json_object_set_new(rec, "threads", json_integer(threads));
    json_object_set_new(rec, "nsamp_in", json_integer((json_int_t)j->in->nsamp));
    json_object_set_new(rec, "nout", json_integer((json_int_t)j->nout));
    json_object_set_new(rec, "ndm", json_integer((json_int_t)xc_dmplan_ndm(j->plan)));
    json_object_set_new(rec, "seconds", json_real(tm.t));
    json_object_set_new(rec, "cpu_seconds", json_real(tm.cpu));
    if (tm.first_t >= 0) {
        json_object_set_new(rec, "first_seconds", json_real(tm.first_t));
        json_object_set_new(rec, "first_cpu_seconds", json_real(tm.first_cpu));
    }
    if (tm.w_stream >= 0) {
        json_object_set_new(rec, "plane_write_cpu_seconds", json_real(tm.w_plain));
        json_object_set_new(rec, "plane_write_streamed_cpu_seconds", json_real(tm.w_stream));
        json_object_set_new(rec, "cpu_seconds_less_plane_write", json_real(tm.cpu - tm.w_stream));
    }
    json_object_set_new(rec, "plan_seconds", json_real(tm.plan_t));
    json_object_set_new(rec, "runs", json_integer(tm.runs));
    json_object_set_new(rec, "adds", json_real(adds));
    json_object_set_new(rec, "adds_per_s", json_real(rate));
    json_object_set_new(rec, "adds_per_s_per_thread", json_real(rate / threads));
    const unsigned notdirect = XC_CAP_REFERENCE | XC_CAP_APPROXIMATE | XC_CAP_DEVICE | XC_CAP_RUNTIME;
    if (!(impl->impl.caps & notdirect)) {
        bc->direct_s[threads > 1] = tm.t;
        bc->direct_cpu_s[threads > 1] = tm.cpu;
        bc->direct_less_w[threads > 1] = tm.w_stream >= 0 ? tm.cpu - tm.w_stream : 0;
        /* the direct entry is what the approximate ones are against */
        json_object_set_new(rec, "speedup_vs_direct", json_real(1.0));
        json_object_set_new(rec, "cpu_speedup_vs_direct", json_real(1.0));
    }
    if (tm.kt > 0)
        json_object_set_new(rec, "kernel_seconds", json_real(tm.kt));
    /* the first direct device entry listed (-impl gpu before gpu-direct) */
    if ((impl->impl.caps & notdirect) == XC_CAP_DEVICE && bc->direct_gpu_s == 0) {
        bc->direct_gpu_s = tm.t;
        bc->direct_gpu_kernel_s = tm.kt;
    }
    if (impl->impl.caps & XC_CAP_APPROXIMATE)
        approx_fields(bc, s, impl, j, &opts, &tm, rec);
    if (impl->impl.caps & XC_CAP_REFERENCE)
        bc->ref_rate = rate;
    else if (bc->ref_rate > 0)
        json_object_set_new(rec, "ratio_to_reference", json_real(rate / bc->ref_rate));
    if (!(impl->impl.caps & XC_CAP_REFERENCE) && bc->verified >= 0)
        json_object_set_new(rec, "bit_exact_vs_reference_short_input", json_boolean(bc->verified));
    xc_bench_dd_limits(rec, bc->mc, j->in->nbits, threads, adds, tm.cpu, j);
    if (note)
        json_object_set_new(rec, "note", json_string(note));
    return xc_bench_emit(&bc->out, rec, err);
}

/* The input of one nbits x nchans configuration: random samples, the whole
 * job and the reference's short one. */
typedef struct {
    xc_geometry g;
    int64_t maxd;
    size_t ref_nout;
    uint16_t *u;
    xc_block full, shortin;
    xc_ddjob jfull, jshort;
} config_input;

static void input_free(config_input *in)
{
    xc_ddjob_free(&in->jshort);
    xc_ddjob_free(&in->jfull);
    free(in->u);
}

static xc_status input_make(const xc_bench_dd_opts *s, int nbits, int nchans, const xc_dmplan *plan,
                            const xc_convention *cv, config_input *in, xc_error *err)
{
    memset(in, 0, sizeof *in);
    double foff = -300.0 / nchans;
    in->g = (xc_geometry){nchans, 1550.0 + foff / 2, foff, 64e-6};
    xc_status st = xc_dmplan_max_delay(cv, &in->g, plan, &in->maxd, err);
    if (st)
        return st;
    size_t nsamp = s->quick ? (size_t)in->maxd + 4096 : (size_t)(s->seconds / in->g.tsamp + 0.5);
    if (nsamp <= (size_t)in->maxd)
        return xc_error_set(err, XC_EINVAL, "-seconds: %g s (%zu samples) is shorter than the plan's largest delay (%lld samples)",
                            s->seconds, nsamp, (long long)in->maxd);
    in->ref_nout = (size_t)s->ref_nout;
    if (in->ref_nout == 0) {
        double cap = 4e9 / ((double)xc_dmplan_ndm(plan) * nchans);
        in->ref_nout = s->quick ? 256 : cap < 2000 ? (size_t)(cap > 100 ? cap : 100) : 2000;
    }
    if (in->ref_nout > nsamp - (size_t)in->maxd)
        in->ref_nout = nsamp - (size_t)in->maxd;
    in->u = malloc(nsamp * (size_t)nchans * sizeof *in->u);
    if (!in->u)
        return xc_error_set(err, XC_ENOMEM, "bench: out of memory for %zu x %d samples", nsamp, nchans);
    xc_bench_fill_random(in->u, nsamp * (size_t)nchans, nbits, (uint64_t)nbits * 1000003u + (uint64_t)nchans);
    in->full = (xc_block){nchans, nsamp, nbits, in->u, NULL};
    in->shortin = (xc_block){nchans, (size_t)in->maxd + in->ref_nout, nbits, in->u, NULL};
    if ((st = xc_ddjob_init(&in->jfull, &in->full, plan, cv, &in->g, NULL, err))) {
        free(in->u);
        return st;
    }
    if ((st = xc_ddjob_init(&in->jshort, &in->shortin, plan, cv, &in->g, NULL, err))) {
        xc_ddjob_free(&in->jfull);
        free(in->u);
    }
    return st;
}

/* An entry other than the reference first runs the short input, compared
 * bit for bit with the reference's plane (integer input). */
static xc_status verify(bench_ctx *bc, const xc_bench_dd_opts *s, const xc_dedisperser *impl, const config_input *in,
                        xc_error *err)
{
    bc->verified = -1;
    if (!bc->refplane.nranges || (impl->impl.caps & XC_CAP_APPROXIMATE))
        return XC_OK;
    xc_ddplan *p;
    xc_plane b;
    const xc_ddjob *j = &in->jshort;
    xc_status st = xc_ddplan_create_tuned(&p, impl, &in->g, in->shortin.nbits, j->plan, j->conv, NULL, &s->opts,
                                          &s->tune, err);
    if (st)
        return st;
    if (!(st = xc_ddplan_plane_alloc(p, in->shortin.nsamp, &b, err))) {
        if (!(st = xc_ddplan_execute(p, &in->shortin, &b, err)))
            bc->verified = planes_same(&bc->refplane, &b);
        xc_plane_free(&b);
    }
    xc_ddplan_destroy(p);
    return st;
}

/* An entry other than the reference on the whole input: an approximate one
 * once per listed subband count and smear budget, a threaded one on 1 and
 * on -threads threads. */
static xc_status bench_entry(bench_ctx *bc, const xc_bench_dd_opts *s, const xc_dedisperser *impl,
                             const xc_ddjob *jfull, xc_error *err)
{
    const int approx = (impl->impl.caps & XC_CAP_APPROXIMATE) != 0;
    const int nn = approx && s->nnsub ? s->nnsub : 1, nb = approx && s->nbudget ? s->nbudget : 1;
    xc_status st = XC_OK;
    for (int a = 0; a < nn * nb && !st; a++) {
        xc_bench_dd_opts v = *s;
        if (approx) {
            v.opts.nsub = s->nnsub ? s->nsub[a / nb] : 0;
            v.opts.subbudget = s->nbudget ? s->budget[a % nb] : 0;
        }
        if (impl->impl.caps & XC_CAP_THREADED) {
            st = bench_one(bc, &v, impl, jfull, 1, NULL, NULL, err);
            if (!st && s->threads > 1)
                st = bench_one(bc, &v, impl, jfull, s->threads, NULL, NULL, err);
        } else {
            st = bench_one(bc, &v, impl, jfull, s->threads, NULL, NULL, err);
        }
    }
    return st;
}

/* Runs every implementation on one nbits x nchans configuration. */
static xc_status bench_config(bench_ctx *bc, const xc_bench_dd_opts *s, int nbits, int nchans, const xc_dmplan *plan,
                              const xc_convention *cv, xc_error *err)
{
    config_input in;
    xc_status st = input_make(s, nbits, nchans, plan, cv, &in, err);
    if (st)
        return st;
    bc->ref_rate = 0;
    bc->verified = -1;
    bc->direct_s[0] = bc->direct_s[1] = bc->direct_cpu_s[0] = bc->direct_cpu_s[1] = bc->direct_gpu_s = bc->direct_gpu_kernel_s = 0;
    bc->direct_less_w[0] = bc->direct_less_w[1] = 0;
    char refnote[256];
    snprintf(refnote, sizeof refnote,
             "reference timed on a short input, max delay %lld + %zu output samples (it runs ~100x slower "
             "than the cpu kernel); the cpu records' ratio_to_reference divides by this rate",
             (long long)in.maxd, in.ref_nout);
    for (int i = 0; i < s->nimpl && !st; i++) {
        if (s->impls[i]->impl.caps & XC_CAP_REFERENCE) {
            xc_bench_dd_opts once = *s;
            once.repeat = 1;
            xc_plane_free(&bc->refplane);
            st = bench_one(bc, &once, s->impls[i], &in.jshort, 1, refnote, &bc->refplane, err);
        } else if (!(st = verify(bc, s, s->impls[i], &in, err))) {
            st = bench_entry(bc, s, s->impls[i], &in.jfull, err);
        }
    }
    xc_plane_free(&bc->refplane);
    input_free(&in);
    return st;
}

static json_t *definitions(void)
{
    return json_pack(
        "{s:s,s:s,s:s,s:s,s:s,s:s,s:s,s:s,s:s,s:s,s:s,s:s,s:s,s:s,s:s,s:s,s:s,s:s,s:s,s:s,s:s}",
        "adds", "sum over ranges of trials x output samples x channels",
        "seconds", "best of `runs` wall-clock executions of the plan on the whole input after a first one "
                   "(first_seconds), as in a run of gulps: the corner turn and the adds; the plane, the plan's "
                   "buffers and their pages are the first execute's",
        "cpu_seconds", "median process CPU seconds (user + system of all threads) of the same runs: on a "
                       "loaded machine the time the run itself used; with threads > 1 it counts every thread's, "
                       "waits in OpenMP's spin included",
        "first_seconds", "wall-clock seconds of the first execute on a fresh plan and plane, timed apart: it "
                         "also pays the first touch of the plane's pages and of the plan's buffers (not for the "
                         "reference, timed from its first run)",
        "first_cpu_seconds", "process CPU seconds of that first execute",
        "cpu_speedup_vs_direct", "direct dedispersion's cpu_seconds on the same input and threads over the "
                                 "record's (CPU entries; the direct entry itself: 1)",
        "plane_write_cpu_seconds", "CPU entries: the plane-write floor in ordinary stores, median process CPU "
                                   "seconds of writing the record's whole plane (warm, after the timed runs) from "
                                   "sums in cache, as the kernels' last step does (xc_cpu_plane_write), 3 rounds "
                                   "alternated with the streamed one, at the record's threads",
        "plane_write_streamed_cpu_seconds", "the same in streaming (non-temporal) stores, as the kernels write it",
        "cpu_seconds_less_plane_write", "cpu_seconds - plane_write_streamed_cpu_seconds: the corner turn, the adds "
                                        "and the bookkeeping",
        "compute_cpu_speedup_vs_direct", "approximate CPU entries: direct's cpu_seconds_less_plane_write over the "
                                         "record's: the speedup of what is not the plane's write, which all pay",
        "write_bound_cpu_speedup_vs_direct", "approximate CPU entries: direct's cpu_seconds over the record's "
                                             "plane_write_streamed_cpu_seconds: the most cpu_speedup_vs_direct "
                                             "can be while the plane is written to memory",
        "cpu_peak_fraction", "adds / cpu_seconds over one core's measured add peak (peak_adds_per_s / "
                             "min(threads, cores)): the direct kernel's share of the integer add peak per CPU "
                             "second (approximate entries' adds are direct's count)",
        "plan_seconds", "wall-clock time to create the plan once: delay tables and the implementation's own "
                        "state (device buffers, tuning); not part of seconds",
        "peak_adds_per_s", "min(threads, cores) x one core's measured lane adds per second: a register-only "
                           "loop of vector adds in the kernel's instruction set, timed at start in the thread's CPU time "
                           "(best of 10, 5 at each of two loop placements; the rate a core gives, whatever shares it), "
                           "counted in lanes of the narrow accumulator (uint16 for 8-bit input, uint32 for 16-bit)",
        "peak_adds_per_s_nominal", "min(threads, cores) x cpu MHz x peak_lanes: one add per lane per cycle "
                                   "(lanes = vector bytes / narrow accumulator bytes); a core with several vector "
                                   "adders retires more, so this understates the peak",
        "mix_ceiling_adds_per_s", "8-bit input with the AVX-512 kernel: min(threads, cores) x one core's sample "
                                  "adds per CPU second on the direct kernel's own instruction mix (per 64 input "
                                  "bytes one load, a shift, two 16-bit adds) over L1-resident rows whose every "
                                  "load spans two cache lines, as delayed rows do (cpu_mix_probe.c): the most "
                                  "the kernel can reach on this core, whatever its overheads",
        "mix_aligned_adds_per_s", "the same mix on line-aligned rows, which no dedispersion plan gives",
        "cpu_mix_ceiling_fraction", "adds / cpu_seconds over one core's mix_ceiling_adds_per_s (the direct "
                                    "kernel's; on approximate entries adds are direct's count, as for "
                                    "cpu_peak_fraction)",
        "memory_bound_adds_per_s", "adds x read bandwidth / (input bytes as uint16 + float plane bytes): "
                                   "the rate if only the compulsory traffic moved at the measured streaming "
                                   "read bandwidth (1 thread, or all threads)",
        "memory_noreuse_adds_per_s", "read bandwidth / bytes per stored sample: the rate with no cache reuse at all",
        "compute_speedup_n_threads", "N threads over 1 thread on a register-only integer loop, measured at start: "
                                     "the parallel speedup the machine offered (below N on a shared VM)",
        "speedup_vs_direct", "direct dedispersion's seconds on the same input, hardware and threads over the "
                             "record's (the direct entry itself: 1); approximate entries only against a direct "
                             "entry timed before them in -impl",
        "snr_loss", "approximate entries: the worst S/N loss against direct dedispersion of injected pulses, "
                    "per pulse width in samples (1 - S/N approximate / S/N direct; see loss_every)",
        "anchor", "AstroAccelerate's CPU code: ~0.31 TFLOPS on a 20-core Xeon Gold 6230 (Novotny et al. 2023, "
                  "section 6), i.e. ~15 G adds/s per core, 8-bit input");
}

static json_t *dd_doc(const xc_bench_dd_opts *s, const xc_bench_machine *mc, const xc_convention *cv, json_t *records)
{
    json_t *root = json_object();
    json_object_set_new(root, "benchmark", json_string("dedisperse"));
    json_object_set_new(root, "machine", xc_bench_machine_json(mc));
    json_object_set_new(root, "threads", json_integer(s->threads));
    json_object_set_new(root, "command", json_string(s->command ? s->command : ""));
    json_object_set_new(root, "quick", json_boolean(s->quick));
    json_object_set_new(root, "plan", json_string(TABLE2_PLAN));
    json_object_set_new(root, "convention", json_string(cv->name));
    json_object_set_new(root, "tsamp_s", json_real(64e-6));
    json_object_set_new(root, "band_mhz", json_string("1250-1550, foff = -300/nchans, fch1 = 1550 + foff/2"));
    if (!s->quick)
        json_object_set_new(root, "seconds_of_data", json_real(s->seconds));
    json_object_set_new(root, "tiles", json_pack("{s:i,s:i,s:i}", "tile_t", s->tune.tile_t, "tile_dm",
                                                 s->tune.tile_dm, "tile_c", s->tune.tile_c));
    json_object_set_new(root, "definitions", definitions());
    json_object_set_new(root, "records", records);
    return root;
}

xc_status xc_bench_dd_run(const xc_registry *reg, const xc_bench_dd_opts *s, const xc_bench_machine *mc,
                          xc_bench_row_fn row, void *ctx, json_t **doc, xc_error *err)
{
    *doc = NULL;
    xc_dmplan plan;
    xc_status st = xc_dmplan_parse(&plan, TABLE2_PLAN, "Table 2 plan", err);
    if (st)
        return st;
    const xc_convention *cv = xc_convention_get("crosscheck");
    bench_ctx bc = {reg, mc, {json_array(), row, ctx}, 0, -1, {0, NULL}, {0, 0}, {0, 0}, {0, 0}, 0, 0};
    for (int b = 0; b < s->nnbits && !st; b++)
        for (int n = 0; n < s->nnchans && !st; n++)
            st = bench_config(&bc, s, s->nbits[b], s->nchans[n], &plan, cv, err);
    xc_dmplan_free(&plan);
    if (st) {
        json_decref(bc.out.records);
        return st;
    }
    *doc = dd_doc(s, mc, cv, bc.out.records);
    return XC_OK;
}
