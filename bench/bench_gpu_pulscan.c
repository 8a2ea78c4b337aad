/* The GPU Pulscan benchmark (xc_bench_gpu.h): stage times through one plan,
 * the candidates against the CPU searcher's, the paper's approximations
 * against the exact search. */
#ifdef XC_HAVE_CUDA

#include <jansson.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/xc_bench_gpu.h"
#include "compare/xc_cmpcands.h"
#include "core/base/xc_atomic.h"
#include "core/base/xc_progress.h"
#include "optimized/cpu/xc_cpu.h"
#include "optimized/gpu/xc_gpu.h"

static double urand(uint64_t *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return ((*s * 2685821657736338717ull) >> 11) * 0x1.0p-53;
}

/* Noise of unit variance per part (PRESTO's raw FFT has variance N/2 per
 * part; the normalisation removes any scale), pulsars as runs of bins of
 * equal amplitude along their drift, harmonic k at k r0 with drift k z. */
static xc_status make_spectrum(xc_spectrum *sp, size_t nbins, double T, uint64_t seed, json_t *inj, xc_error *err)
{
    memset(sp, 0, sizeof *sp);
    sp->data = malloc(2 * nbins * sizeof(float));
    if (!sp->data)
        return xc_error_set(err, XC_ENOMEM, "out of memory for %zu bins", nbins);
    sp->nbins = nbins;
    sp->T = T;
    sp->dt = T / (2.0 * (double)nbins);
    sp->owned = 1;
    uint64_t s = seed * 0x9e3779b97f4a7c15ull + 7;
    for (size_t k = 0; k < nbins; k++) {
        double u = urand(&s), v = urand(&s), rr = sqrt(-2 * log(u > 0 ? u : 1e-300));
        sp->data[2 * k] = (float)(rr * cos(2 * M_PI * v));
        sp->data[2 * k + 1] = (float)(rr * sin(2 * M_PI * v));
    }
    static const struct {
        double frac, z, snr;
        int nh;
    } psr[] = {{0.013, 0, 12, 1}, {0.051, 40, 15, 2}, {0.097, 120, 20, 4}, {0.183, 200, 25, 3},
               {0.27, 8, 9, 4},   {0.33, 256, 30, 1}, {0.41, 60, 14, 2},  {0.47, 16, 11, 4}};
    for (size_t p = 0; p < sizeof psr / sizeof *psr; p++) {
        double r0 = floor(psr[p].frac * (double)nbins) + 0.5;
        for (int k = 1; k <= psr[p].nh; k++) {
            double z = psr[p].z * k, a = psr[p].snr / sqrt((double)k * (z + 1));
            for (int j = 0; j <= (int)z; j++) {
                size_t b = (size_t)(k * r0) + (size_t)j;
                if (b >= nbins)
                    break;
                double ph = 2 * M_PI * urand(&s);
                sp->data[2 * b] += (float)(a * cos(ph));
                sp->data[2 * b + 1] += (float)(a * sin(ph));
            }
        }
        json_array_append_new(inj, json_pack("{s:f,s:f,s:i,s:f}", "r", r0, "z", psr[p].z, "harmonics", psr[p].nh,
                                             "amplitude_per_harmonic", psr[p].snr));
    }
    return XC_OK;
}

#define NSTAGE XC_BENCH_PS_NSTAGE

/* Every timed run of a plan, ms: pageable (stage, screen, exact, wall) and
 * page-locked (wallp, h2dp, kernp). */
typedef struct {
    double stage[NSTAGE][64], screen[64], exact[64], wall[64], wallp[64], h2dp[64], kernp[64];
    double setup_ms;
} plan_times;

/* The pageable runs: an untimed one, then reps. */
static xc_status time_pageable(xc_psgpu_plan *p, const xc_spectrum *sp, int reps, xc_candlist *gl,
                               xc_gpu_psinfo *info, plan_times *t, xc_error *err)
{
    xc_status st = XC_OK;
    for (int k = -1; k < reps && !st; k++) {
        xc_candlist_free(gl);
        st = xc_pulscan_gpu_execute(p, sp, gl, info, err);
        if (st || k < 0)
            continue;
        double v[NSTAGE] = {info->h2d_ms,    info->separate_ms, info->normalise_ms, info->power_ms, info->decimate_ms,
                            info->boxcar_ms, info->logp_ms,     info->d2h_ms,       info->kernels_ms};
        for (int s = 0; s < NSTAGE; s++)
            t->stage[s][k] = v[s];
        t->screen[k] = info->screen_ms;
        t->exact[k] = info->exact_ms;
        t->wall[k] = info->wall_ms;
    }
    return st;
}

/* The page-locked runs: an untimed one, then reps; the list must be gl. */
static xc_status time_pinned(xc_psgpu_plan *p, const xc_spectrum *sp, int reps, const xc_candlist *gl, plan_times *t,
                             xc_error *err)
{
    void *buf = NULL;
    xc_status st = xc_gpu_host_alloc(&buf, 2 * sp->nbins * sizeof(float), err);
    if (st)
        return st;
    xc_spectrum pin = *sp;
    pin.owned = 0;
    memcpy(buf, sp->data, 2 * sp->nbins * sizeof(float));
    pin.data = buf;
    xc_candlist l;
    xc_candlist_init(&l);
    xc_gpu_psinfo pi;
    for (int k = -1; k < reps && !st; k++) {
        xc_candlist_free(&l);
        st = xc_pulscan_gpu_execute(p, &pin, &l, &pi, err);
        if (st || k < 0)
            continue;
        if (!pi.input_pinned)
            st = xc_error_set(err, XC_EDEVICE, "gpu: the page-locked copy of the spectrum was not seen as such");
        t->wallp[k] = pi.wall_ms;
        t->h2dp[k] = pi.h2d_ms;
        t->kernp[k] = pi.kernels_ms;
    }
    double maxrel = 0;
    if (!st && !xc_bench_same_cands(&l, gl, 0.0, &maxrel))
        st = xc_error_set(err, XC_EMISMATCH, "gpu: the search of the page-locked copy gave another list "
                          "(%zu against %zu candidates)", l.n, gl->n);
    xc_candlist_free(&l);
    xc_gpu_host_free(buf);
    return st;
}

/* The gpu search timed through one plan: pageable, then page-locked, whose
 * list must be the same.  gl: the last pageable list; info: the last
 * pageable run's. */
static xc_status time_plan(const xc_spectrum *sp, const xc_psopts *o, int reps, xc_candlist *gl, xc_gpu_psinfo *info,
                           plan_times *t, xc_error *err)
{
    xc_psgpu_plan *p = NULL;
    double t0 = xc_now();
    xc_status st = xc_pulscan_gpu_plan(sp->nbins, o, &p, err);
    t->setup_ms = (xc_now() - t0) * 1e3;
    if (st)
        return st;
    st = time_pageable(p, sp, reps, gl, info, t, err);
    if (!st)
        st = time_pinned(p, sp, reps, gl, t, err);
    xc_pulscan_gpu_destroy(p);
    return st;
}

/* The medians of the timed runs into r. */
static void medians(plan_times *t, int reps, xc_bench_gpups *r)
{
    for (int s = 0; s < NSTAGE; s++)
        r->med[s] = xc_bench_median(t->stage[s], reps);
    r->screen = xc_bench_median(t->screen, reps);
    r->exact = xc_bench_median(t->exact, reps);
    r->wall_pageable = xc_bench_median(t->wall, reps);
    r->wall = xc_bench_median(t->wallp, reps);
    r->h2d_pinned = xc_bench_median(t->h2dp, reps);
    r->kernels_pinned = xc_bench_median(t->kernp, reps);
    r->setup = t->setup_ms;
}

/* The spectrum as a PRESTO .fft: complex float32 bins, nothing else. */
static xc_status write_fft(const char *path, const xc_spectrum *sp, xc_error *err)
{
    xc_atomic a;
    xc_status st = xc_atomic_open(&a, path, 0, err);
    if (st)
        return st;
    if (fwrite(sp->data, sizeof(float), 2 * sp->nbins, a.fp) != 2 * sp->nbins) {
        xc_atomic_abort(&a);
        return xc_error_set(err, XC_EIO, "%s: write failed", path);
    }
    return xc_atomic_commit(&a, err);
}

/* The record `bench gpu` carries: the Table 4 case (defaults of this
 * benchmark) through a plan, its candidates checked against the cpu's. */
xc_status xc_bench_gpu_pulscan_record(int reps, struct json_t **rec, xc_error *err)
{
    const double tobs = 600, tsamp = 128e-6;
    const size_t nbins = (size_t)llround(tobs / tsamp) / 2;
    xc_spectrum sp;
    json_t *inj = json_array();
    xc_status st = make_spectrum(&sp, nbins, 2.0 * (double)nbins * tsamp, 1, inj, err);
    json_decref(inj);
    if (st)
        return st;
    xc_psopts o;
    xc_psopts_default(&o);
    o.zmax = 256;
    o.numharm = 4;
    xc_candlist cl, gl;
    xc_candlist_init(&cl);
    xc_candlist_init(&gl);
    plan_times *t = calloc(1, sizeof *t);
    xc_bench_gpups m;
    double maxrel = 0;
    xc_gpu_psinfo info;
    memset(&info, 0, sizeof info);
    if (reps > 64)
        reps = 64;
    if (!t)
        st = xc_error_set(err, XC_ENOMEM, "out of memory");
    if (!st && !(st = xc_pulscan_run(&xc_ps_cpu, &sp, &o, &cl, err)) &&
        !(st = time_plan(&sp, &o, reps, &gl, &info, t, err))) {
        medians(t, reps, &m);
        int same = xc_bench_same_cands(&cl, &gl, xc_ps_gpu.impl.tol.value, &maxrel);
        *rec = json_pack("{s:s,s:f,s:f,s:I,s:i,s:i,s:i,s:f,s:f,s:f,s:f,s:f,s:f,s:f,s:f,s:b,s:I,s:I}", "kind", "pulscan",
                         "tobs_s", tobs, "tsamp_s", tsamp, "nbins", (json_int_t)nbins, "zmax", o.zmax, "numharm",
                         o.numharm, "reps", reps, "kernel_ms", m.kernels_pinned, "wall_ms", m.wall, "wall_pageable_ms",
                         m.wall_pageable, "kernel_pageable_ms", m.med[NSTAGE - 1], "h2d_pinned_ms", m.h2d_pinned,
                         "boxcar_ms", m.med[5], "screen_ms", m.screen, "exact_ms", m.exact, "gpu_matches_cpu", same,
                         "candidates", (json_int_t)gl.n, "flagged_groups", (json_int_t)info.flagged_groups);
        if (*rec)
            json_object_set_new(*rec, "setup_ms", json_real(m.setup));
        else
            st = xc_error_set(err, XC_ENOMEM, "out of memory for the Pulscan record");
    }
    free(t);
    xc_candlist_free(&cl);
    xc_candlist_free(&gl);
    xc_spectrum_free(&sp);
    return st;
}

xc_status xc_bench_gpups_prepare(const xc_bench_gpups_opts *o, xc_bench_gpups *r, xc_error *err)
{
    memset(r, 0, sizeof *r);
    char why[256];
    if (!xc_gpu_available(why, sizeof why))
        return xc_error_set(err, XC_EDEVICE, "gpu unavailable: %s", why);
    xc_gpu_props props;
    xc_status st = xc_gpu_properties(&props, err);
    if (!st)
        st = xc_gpu_describe(r->device, sizeof r->device, err);
    if (st)
        return st;
    r->sms = props.sms;
    r->clock_khz = props.clock_khz;
    r->N = (size_t)llround(o->tobs / o->tsamp);
    r->N -= r->N % 2;
    r->nbins = r->N / 2;
    json_t *inj = json_array();
    r->doc = json_object();
    st = make_spectrum(&r->sp, r->nbins, (double)r->N * o->tsamp, o->seed, inj, err);
    json_object_set_new(r->doc, "injected", inj);
    if (!st && o->fft)
        st = write_fft(o->fft, &r->sp, err);
    xc_psopts_default(&r->o);
    r->o.zmax = o->zmax;
    r->o.numharm = o->numharm;
    r->o.zlog = o->zlog;
    if (st)
        xc_bench_gpups_free(r);
    return st;
}

void xc_bench_gpups_free(xc_bench_gpups *r)
{
    xc_spectrum_free(&r->sp);
    json_decref(r->doc);
    r->doc = NULL;
}

/* The screen's float additions against the device's FP32 rate. */
static void screen_rate(const xc_bench_gpups_opts *o, xc_bench_gpups *r)
{
    r->adds = 0;
    for (int h = 1; h <= o->numharm; h++) {
        size_t L = r->nbins / (size_t)h;
        int wmax = (size_t)o->zmax + 1 < L - 1 ? o->zmax + 1 : (int)(L - 1);
        r->adds += (double)(L - 1) * 8.0 * ((wmax + 7) / 8);
    }
    r->fp32 = (double)r->sms * 128.0 * r->clock_khz * 1e3;
    r->rate = r->adds / (r->screen * 1e-3);
}

/* The search with the paper's approximations against the exact cpu list. */
static xc_status approximations(xc_bench_gpups *r, const xc_candlist *cl, xc_error *err)
{
    xc_psopts oa = r->o;
    oa.norm = XC_NORM_MOM;
    oa.logp = XC_LOGP_POLY;
    xc_gpu_psinfo ainfo;
    xc_candlist al;
    xc_candlist_init(&al);
    xc_status st = xc_pulscan_gpu_info(&r->sp, &oa, &al, &ainfo, err);
    xc_cmpcands_opts co;
    xc_cmpcands_opts_init(&co);
    co.sigma_min = r->o.sigma;
    xc_cmpcands_result res;
    memset(&res, 0, sizeof res);
    if (!st && !(st = xc_compare_cands(&al, cl, &co, &res, err))) {
        r->na = res.na, r->nb = res.nb, r->npairs = res.npairs, r->na_only = res.na_only, r->nb_only = res.nb_only;
        r->max_abs_dsigma = res.dsigma.max_abs;
        r->max_rel_dpower = res.dpower_rel.max_abs;
        r->approx_kernels_ms = ainfo.kernels_ms;
        json_t *ap = json_pack("{s:I,s:I,s:I,s:I,s:I,s:f,s:f,s:f,s:f}", "candidates_approx", (json_int_t)res.na,
                               "candidates_exact", (json_int_t)res.nb, "matched", (json_int_t)res.npairs,
                               "approx_only", (json_int_t)res.na_only, "exact_only", (json_int_t)res.nb_only,
                               "max_abs_dsigma", res.dsigma.max_abs, "max_rel_dpower", res.dpower_rel.max_abs,
                               "mean_rel_dpower", res.dpower_rel.mean, "kernels_ms", ainfo.kernels_ms);
        json_object_set_new(r->doc, "approximations_vs_exact_cpu", ap);
        xc_cmpcands_result_free(&res);
    }
    xc_candlist_free(&al);
    return st;
}

static void complete_doc(const xc_bench_gpups_opts *o, const xc_bench_gpups *r)
{
    static const char *keys[NSTAGE] = {"h2d_ms", "separate_ms", "normalise_ms", "power_ms", "decimate_ms",
                                       "boxcar_ms", "logp_ms", "d2h_ms", "kernels_ms"};
    json_t *root = r->doc, *sj = json_object();
    for (int s = 0; s < NSTAGE; s++)
        json_object_set_new(sj, keys[s], json_real(r->med[s]));
    json_object_set_new(sj, "screen_ms", json_real(r->screen));
    json_object_set_new(sj, "exact_ms", json_real(r->exact));
    json_object_set_new(sj, "wall_pageable_ms", json_real(r->wall_pageable));
    json_object_set_new(sj, "wall_ms", json_real(r->wall));
    json_object_set_new(sj, "h2d_pinned_ms", json_real(r->h2d_pinned));
    json_object_set_new(sj, "kernels_pinned_ms", json_real(r->kernels_pinned));
    json_object_set_new(root, "setup_ms", json_real(r->setup));
    json_object_set_new(root, "median_stage_times", sj);
    json_object_set_new(root, "device", json_string(r->device));
    json_object_set_new(root, "command", json_string(o->command ? o->command : ""));
    json_object_set_new(root, "nbins", json_integer((json_int_t)r->nbins));
    json_object_set_new(root, "tobs_s", json_real(r->sp.T));
    json_object_set_new(root, "tsamp_s", json_real(o->tsamp));
    json_object_set_new(root, "zmax", json_integer(o->zmax));
    json_object_set_new(root, "zlog", json_boolean(o->zlog));
    json_object_set_new(root, "numharm", json_integer(o->numharm));
    json_object_set_new(root, "reps", json_integer(o->reps));
    json_object_set_new(root, "flagged_groups", json_integer((json_int_t)r->flagged_groups));
    json_object_set_new(root, "peaks", json_integer((json_int_t)r->peaks));
    json_object_set_new(root, "device_bytes", json_integer((json_int_t)r->device_bytes));
    json_object_set_new(root, "screen_float_adds", json_real(r->adds));
    json_object_set_new(root, "screen_fraction_of_fp32_add_rate", json_real(r->rate / r->fp32));
    json_object_set_new(root, "candidates_cpu", json_integer((json_int_t)r->ncpu));
    json_object_set_new(root, "candidates_gpu", json_integer((json_int_t)r->ngpu));
    json_object_set_new(root, "gpu_matches_cpu", json_boolean(r->same));
    json_object_set_new(root, "max_rel_power_sigma_diff", json_real(r->maxrel));
    json_object_set_new(root, "cpu_seconds", json_real(r->cpu_s));
    json_object_set_new(root, "anchors",
                        json_string("Pulscan's GPU code (jack-white1/pulscan-gpu a68ddf2) on an H200 at this "
                                    "size, kernel durations under Nsight Compute (scripts/peer-pulscan.sh): "
                                    "separate 0.011 ms, median-of-medians normalise 0.022, magnitude 0.008, "
                                    "decimate 0.007, boxcar 0.228 (its loop runs 9 of 256 widths: if (z = "
                                    "targetZ)), log p 0.060, 0.336 in all; the paper's GH200: about 490 us, 420 "
                                    "us of it boxcar; the aim here: 250 us"));
}

xc_status xc_bench_gpups_measure(const xc_bench_gpups_opts *o, xc_bench_gpups *r, xc_error *err)
{
    /* cpu: the candidates to agree with */
    xc_candlist cl, gl;
    xc_candlist_init(&cl);
    xc_candlist_init(&gl);
    double t0 = xc_now();
    xc_status st = xc_pulscan_run(&xc_ps_cpu, &r->sp, &r->o, &cl, err);
    r->cpu_s = xc_now() - t0;
    xc_gpu_psinfo info;
    memset(&info, 0, sizeof info);
    plan_times *t = calloc(1, sizeof *t);
    if (!st && !t)
        st = xc_error_set(err, XC_ENOMEM, "out of memory");
    if (!st)
        st = time_plan(&r->sp, &r->o, o->reps, &gl, &info, t, err);
    if (!st) {
        medians(t, o->reps, r);
        r->flagged_groups = info.flagged_groups;
        r->peaks = info.peaks;
        r->device_bytes = info.device_bytes;
        screen_rate(o, r);
        r->rtol = xc_ps_gpu.impl.tol.value;
        r->same = xc_bench_same_cands(&cl, &gl, r->rtol, &r->maxrel);
        r->ncpu = cl.n;
        r->ngpu = gl.n;
        st = approximations(r, &cl, err);
    }
    if (!st)
        complete_doc(o, r);
    free(t);
    xc_candlist_free(&cl);
    xc_candlist_free(&gl);
    return st;
}

#endif
