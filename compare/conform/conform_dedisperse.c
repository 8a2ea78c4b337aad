/* The dedispersion conformance cases (xc_conform.h).  Every run goes through
 * the public plan API (xc_ddplan_create / execute / destroy) into a plane
 * poisoned with NaN, so an output the implementation never writes cannot
 * pass.  Cases, each one or more report rows:
 *   hand/        tiny cases whose planes are worked out by hand below;
 *   linearity/   D(3x + 5y) = 3 D(x) + 5 D(y), integer and float input;
 *   time-shift/  D(x[. + s]) = D(x)[. + s/ds];
 *   impulse/     one sample lands at t0 - delay at every trial, the delay
 *                recomputed here from the dispersion formula;
 *   nbits/       every nbits (1, 2, 4, 8, 16, 32) under every convention preset;
 *   awkward/     prime channel counts and nsamp, 1 channel, nsamp = max_delay + 1,
 *                one trial;
 *   killmask/    kill masks, down to every channel killed;
 *   downsample/  ranges scrunched by 2..5, nout not a multiple of ds;
 *   float/       float input against the rounding bound;
 *   gulps/       one plan, gulps of different sizes, against one whole run;
 *   signal-loss/ peak S/N of an injected dispersed pulse against the reference's.
 * Against the reference a case is judged by the implementation's class;
 * properties of the implementation alone (linearity, shift, gulps against its
 * own whole run) by "self": integer input bit for bit for the exact and
 * rounding classes, float input (and any input of an approximate class)
 * within the float rounding bound of the values compared. */
#include "compare/conform/xc_conform.h"
#include "core/base/xc_nbits.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef xc_conform_ddinput input;

typedef struct {
    const xc_dedisperser *impl, *ref;
    xc_conform_report *rep;
    xc_ddopts ddo;
    uint64_t seed;
    xc_error *err;
    xc_status st;      /* the first library error (out of memory): every case stops */
} ctx;

static void add(ctx *c, int pass, const char *name, const char *obs, const char *exp, const char *tol)
{
    if (!c->st)
        c->st = xc_conform_report_add(c->rep, pass, name, obs, exp, tol, c->err);
}

/* Judges got against want (xc_conform_dd_judge) and adds the row. */
static void judge_add(ctx *c, const char *name, int self, const input *in, const xc_plane *want, const xc_plane *got,
                      double mult)
{
    xc_conform_row row;
    xc_conform_dd_judge(&c->impl->impl, self, in, want, got, mult, &row);
    add(c, row.pass, name, row.observed, row.expected, row.tolerance);
}

/* Makes an input (xc_conform_ddinput_make) unless a library error stopped
 * the run; 0 on failure, with the error in c->st and nothing to free. */
static int make(ctx *c, input *in, int nchans, int nbits, double fch1, double foff, double tsamp, const char *plan,
                const char *preset, size_t nout)
{
    if (c->st)
        return 0;
    if ((c->st = xc_conform_ddinput_make(in, nchans, nbits, fch1, foff, tsamp, plan, preset, nout, c->err)))
        xc_conform_ddinput_free(in);
    return !c->st;
}

static xc_status run(const ctx *c, const xc_dedisperser *d, const input *in, xc_plane *pl, xc_error *e)
{
    return xc_conform_dd_run(d, in, &c->ddo, pl, e);
}

/* A row for a failed run (who: "implementation" or "reference"). */
static void add_error(ctx *c, const char *name, const char *who, const xc_error *e)
{
    char obs[256];
    snprintf(obs, sizeof obs, "%s failed: %.200s", who, e->msg);
    add(c, 0, name, obs, "a plane", "the case is valid input");
}

/* Runs the reference and the implementation on in; one row. */
static void vs_ref(ctx *c, const char *name, const input *in)
{
    if (c->st)
        return;
    xc_plane want, got;
    xc_error e;
    if (run(c, c->ref, in, &want, &e)) {
        add_error(c, name, "reference", &e);
        return;
    }
    if (run(c, c->impl, in, &got, &e)) {
        add_error(c, name, c->impl->impl.name, &e);
    } else {
        judge_add(c, name, 0, in, &want, &got, 1);
        xc_plane_free(&got);
    }
    xc_plane_free(&want);
}

/* ---- hand-worked cases ---------------------------------------------------- */

/* 4 channels at 1000, 800, 600, 400 MHz, tsamp 1 ms, trials DM 0, 0.5, 1.
 * k_DM DM (1/f^2 - 1/1000^2) / tsamp with crosscheck's k_DM 4148.808:
 *   DM 0.5: 0, 1.1669, 3.6878, 10.8906 -> delays 0, 1, 4, 11
 *   DM 1:   0, 2.3337, 7.3757, 21.7812 -> delays 0, 2, 7, 22 (max_delay 22)
 * astroaccelerate (k_DM 4148.741601, truncated): 0, 1, 3, 10 and 0, 2, 7, 21.
 * Data x[t][c] = (c+1) t, so out[t] = sum_c (c+1)(t + d_c) = 10t + sum (c+1) d_c:
 *   crosscheck: DM 0: 10t; DM 0.5: 10t + 58; DM 1: 10t + 113 (t = 0..3);
 *   channel 1 killed: 8t, 8t + 56, 8t + 109;
 *   float x = (c+1) t - 8c + 0.25 (exact in float): 10t + S - 47 with S = 0, 58, 113;
 *   astroaccelerate (sum / nchans): (10t + {0, 51, 109}) / 4.
 * DM 1 at ds 2 (units of 2 ms: 1.1669, 3.6878, 10.8906 -> 1, 4, 11, max_delay 22),
 * 29 spectra, nout 7 -> 3 scrunched samples: x_ds[j][c] = (c+1)(4j + 1), out[t]
 * = sum_c (c+1)(4(t + d_c) + 1) = 40t + 10 + 4 * 58 = 40t + 242. */
static const float hand_cc[3][4] = {{0, 10, 20, 30}, {58, 68, 78, 88}, {113, 123, 133, 143}};
static const float hand_kill[3][4] = {{0, 8, 16, 24}, {56, 64, 72, 80}, {109, 117, 125, 133}};
static const float hand_float[3][4] = {{-47, -37, -27, -17}, {11, 21, 31, 41}, {66, 76, 86, 96}};
static const float hand_aa[3][4] = {{0, 2.5f, 5, 7.5f}, {12.75f, 15.25f, 17.75f, 20.25f},
                                    {27.25f, 29.75f, 32.25f, 34.75f}};
static const float hand_ds2[1][4] = {{242, 282, 322, 0}};

static void hand_case(ctx *c, const char *name, int nbits, const char *plan, const char *preset, size_t nout,
                      const uint8_t *mask, const float (*want)[4], size_t ndm, size_t ns)
{
    input in;
    if (!make(c, &in, 4, nbits, 1000, -200, 1e-3, plan, preset, nout))
        return;
    for (size_t t = 0; t < in.blk.nsamp; t++)
        for (int ch = 0; ch < 4; ch++) {
            if (xc_nbits_is_float(nbits))
                in.f32[t * 4 + (size_t)ch] = (float)((ch + 1) * (double)t - 8 * ch + 0.25);
            else
                in.u16[t * 4 + (size_t)ch] = (uint16_t)((ch + 1) * t);
        }
    if (mask && (in.mask = malloc(4)))
        memcpy(in.mask, mask, 4);
    xc_plane got, exp;
    xc_error e;
    if (mask && !in.mask) {
        c->st = xc_error_set(c->err, XC_ENOMEM, "conformance: out of memory");
    } else if (run(c, c->impl, &in, &got, &e)) {
        add_error(c, name, c->impl->impl.name, &e);
    } else {
        if (got.nranges != 1 || got.r[0].ndm != ndm || got.r[0].nsamp != ns) {
            c->st = xc_error_set(c->err, XC_EINVAL, "conformance: %s: core planned %zu x %zu, the case %zu x %zu",
                                 name, got.r[0].ndm, got.r[0].nsamp, ndm, ns);
        } else if (!(c->st = xc_conform_plane_like(&got, &exp, c->err))) {
            for (size_t d = 0; d < ndm; d++)
                for (size_t t = 0; t < ns; t++)
                    exp.r[0].data[d * ns + t] = want[d][t];
            judge_add(c, name, 0, &in, &exp, &got, 1);
            xc_plane_free(&exp);
        }
        xc_plane_free(&got);
    }
    xc_conform_ddinput_free(&in);
}

static void case_hand(ctx *c)
{
    static const uint8_t kill1[4] = {1, 0, 1, 1};
    hand_case(c, "hand/4ch-crosscheck", 8, "0:1.5:0.5", "crosscheck", 4, NULL, hand_cc, 3, 4);
    hand_case(c, "hand/4ch-killmask", 8, "0:1.5:0.5", "crosscheck", 4, kill1, hand_kill, 3, 4);
    hand_case(c, "hand/4ch-float", 32, "0:1.5:0.5", "crosscheck", 4, NULL, hand_float, 3, 4);
    hand_case(c, "hand/4ch-astroaccelerate", 8, "0:1.5:0.5", "astroaccelerate", 4, NULL, hand_aa, 3, 4);
    hand_case(c, "hand/4ch-ds2", 8, "1:2:1:2", "crosscheck", 7, NULL, hand_ds2, 1, 3);
}

/* ---- properties of the implementation alone ------------------------------- */

static const char *prop_plan = "0:20:2.5,20:40:5:2";

/* Runs the implementation on each input; 0 (and a row) if one fails. */
static int run_all(ctx *c, const char *name, input *in, xc_plane *pl, int n)
{
    xc_error e;
    for (int i = 0; i < n; i++)
        if (run(c, c->impl, &in[i], &pl[i], &e)) {
            add_error(c, name, c->impl->impl.name, &e);
            for (int j = 0; j < i; j++)
                xc_plane_free(&pl[j]);
            return 0;
        }
    return 1;
}

/* D(3x + 5y) against 3 D(x) + 5 D(y): integer values below 1000, so every
 * sum is an exact integer below 2^24; float values are multiples of 1/8
 * below 100, so every sum is exact in float too.  Both sides carry the
 * implementation's rounding: 3 x the bound (positive data). */
static void linearity(ctx *c, int nbits, const char *name)
{
    input in[3];
    int made = 0;
    for (; made < 3 && !c->st; made++)
        c->st = xc_conform_ddinput_make(&in[made], 16, nbits, 1500, -10, 1e-4, prop_plan, "crosscheck", 120, c->err);
    xc_plane pl[3], want;
    if (!c->st) {
        xc_conform_ddinput_random(&in[0], c->seed + 11);
        xc_conform_ddinput_random(&in[1], c->seed + 12);
        for (size_t i = 0; i < in[0].blk.nsamp * 16; i++) {
            if (xc_nbits_is_float(nbits)) {
                in[0].f32[i] = floorf(in[0].f32[i] * 8) / 8;
                in[1].f32[i] = floorf(in[1].f32[i] * 8) / 8;
                in[2].f32[i] = 3 * in[0].f32[i] + 5 * in[1].f32[i];
            } else {
                in[0].u16[i] %= 1000;
                in[1].u16[i] %= 1000;
                in[2].u16[i] = (uint16_t)(3 * in[0].u16[i] + 5 * in[1].u16[i]);
            }
        }
    }
    if (!c->st && run_all(c, name, in, pl, 3)) {
        if (!(c->st = xc_conform_plane_like(&pl[2], &want, c->err))) {
            for (int k = 0; k < want.nranges; k++)
                for (size_t i = 0; i < want.r[k].ndm * want.r[k].nsamp; i++)
                    want.r[k].data[i] = (float)(3.0 * pl[0].r[k].data[i] + 5.0 * pl[1].r[k].data[i]);
            judge_add(c, name, 1, &in[2], &want, &pl[2], 3);
            xc_plane_free(&want);
        }
        for (int i = 0; i < 3; i++)
            xc_plane_free(&pl[i]);
    }
    for (int i = 0; i < made; i++)
        xc_conform_ddinput_free(&in[i]);
}

/* y[t] = x[t + s] with s = 6, a multiple of every ds: D(y)[t] = D(x)[t + s/ds]. */
static void time_shift(ctx *c)
{
    const char *name = "time-shift/8-bit";
    const size_t s = 6;
    input in[2];
    xc_plane pl[2], want;
    if (!make(c, &in[0], 11, 8, 1500, -10, 1e-4, prop_plan, "crosscheck", 100 + s))
        return;
    if (make(c, &in[1], 11, 8, 1500, -10, 1e-4, prop_plan, "crosscheck", 100)) {
        xc_conform_ddinput_random(&in[0], c->seed + 21);
        memcpy(in[1].u16, in[0].u16 + s * 11, in[1].blk.nsamp * 11 * sizeof(uint16_t));
        if (run_all(c, name, in, pl, 2)) {
            if (!(c->st = xc_conform_plane_like(&pl[1], &want, c->err))) {
                for (int k = 0; k < want.nranges; k++) {
                    size_t sh = s / (size_t)want.r[k].ds, n0 = pl[0].r[k].nsamp, n1 = want.r[k].nsamp;
                    for (size_t d = 0; d < want.r[k].ndm; d++)
                        memcpy(want.r[k].data + d * n1, pl[0].r[k].data + d * n0 + sh, n1 * sizeof(float));
                }
                judge_add(c, name, 1, &in[1], &want, &pl[1], 2);
                xc_plane_free(&want);
            }
            xc_plane_free(&pl[0]);
            xc_plane_free(&pl[1]);
        }
        xc_conform_ddinput_free(&in[1]);
    }
    xc_conform_ddinput_free(&in[0]);
}

/* One sample of 1000 in channel 5 at t0 = 60: at every trial of range k it
 * lands at floor(t0/ds) - d, d = k_DM DM (1/f_5^2 - 1/f_0^2) / (ds tsamp)
 * rounded half away from zero (the double-precision presets), and nowhere
 * else.  An approximate class is only asked to keep it once per trial:
 * every row sums to 1000 within nsamp x the float bound. */
static void impulse(ctx *c, const char *preset)
{
    char name[96];
    snprintf(name, sizeof name, "impulse/%s", preset);
    const int ch = 5;
    const size_t t0 = 60;
    input in;
    xc_plane got, want;
    xc_error e;
    if (!make(c, &in, 8, 16, 1500, -10, 1e-4, prop_plan, preset, 100))
        return;
    in.u16[t0 * 8 + (size_t)ch] = 1000;
    int approx = c->impl->impl.tol.kind == XC_TOL_SIGNAL_LOSS;
    if (run(c, c->impl, &in, &got, &e)) {
        add_error(c, name, c->impl->impl.name, &e);
    } else if (!(c->st = xc_conform_plane_like(&got, &want, c->err))) {
        char obs[256] = "";
        double fc = 1500 - 10.0 * ch, worst = 0;
        size_t nbad = 0;
        for (int k = 0; k < got.nranges; k++) {
            xc_planerange *w = &want.r[k], *g = &got.r[k];
            for (size_t d = 0; d < w->ndm; d++) {
                double dm = in.plan.r[k].dms[d];
                double x = in.cv->kdm * dm * (1 / (fc * fc) - 1 / (1500.0 * 1500.0)) / (w->ds * 1e-4);
                /* the preset's rounding: SIGPROC's dmshift.c truncates, the others round half away */
                long dl = in.cv->rounding == XC_ROUND_TRUNC ? (long)trunc(x) : lround(x);
                long t = (long)(t0 / (size_t)w->ds) - dl;
                if (t >= 0 && t < (long)w->nsamp)
                    w->data[d * w->nsamp + (size_t)t] = 1000;
                double sum = 0, bound = (double)w->nsamp * 8 * w->ds * 0x1.0p-24 * 1000;
                for (size_t i = 0; i < g->nsamp; i++)
                    sum += g->data[d * g->nsamp + i];
                worst = fmax(worst, fabs(sum - 1000) / bound);
                if (approx && !(fabs(sum - 1000) <= bound) && !nbad++)
                    snprintf(obs, sizeof obs, "range %d trial %zu sums to %.9g", k, d, sum);
            }
        }
        if (approx) {
            if (!nbad)
                snprintf(obs, sizeof obs, "every trial within; largest |err|/bound %.3g", worst);
            add(c, !nbad, name, obs, "every trial sums to 1000",
                "signal-loss class: nsamp x N 2^-24 x 1000 (N = 8 ch x ds)");
        } else {
            judge_add(c, name, 0, &in, &want, &got, 1);
        }
        xc_plane_free(&want);
        xc_plane_free(&got);
    }
    xc_conform_ddinput_free(&in);
}

/* ---- against the reference ---------------------------------------------- */

/* Makes an input of random data (nsamp grown to a prime if asked; kill as
 * xc_conform_ddinput_mask), then runs vs_ref. */
static void ref_case(ctx *c, const char *name, int nchans, int nbits, double bw, const char *plan,
                     const char *preset, size_t nout, int prime, char kill, uint64_t seed)
{
    if (c->st)
        return;
    input in;
    if (!make(c, &in, nchans, nbits, 1500, -bw / nchans, 1e-4, plan, preset, nout))
        return;
    if (prime) {    /* grow nsamp to the next prime */
        size_t n = in.blk.nsamp, d;
        for (;; n++) {
            for (d = 2; d * d <= n && n % d; d++)
                ;
            if (d * d > n)
                break;
        }
        nout += n - in.blk.nsamp;
        xc_conform_ddinput_free(&in);
        if (!make(c, &in, nchans, nbits, 1500, -bw / nchans, 1e-4, plan, preset, nout))
            return;
    }
    xc_conform_ddinput_random(&in, seed);
    if (!(c->st = xc_conform_ddinput_mask(&in, kill, seed + 7, c->err))) {
        char full[96];
        snprintf(full, sizeof full, "%s-nsamp%zu", name, in.blk.nsamp);
        vs_ref(c, full, &in);
    }
    xc_conform_ddinput_free(&in);
}

static void sweeps(ctx *c)
{
    static const int nbits[] = {1, 2, 4, 8, 16, 32};
    size_t np;
    const xc_convention *cv = xc_convention_list(&np);
    char name[96];
    for (size_t b = 0; b < sizeof nbits / sizeof *nbits; b++)
        for (size_t k = 0; k < np; k++) {
            snprintf(name, sizeof name, "nbits/%d-bit-%s", nbits[b], cv[k].name);
            ref_case(c, name, 13, nbits[b], 104, "0:6:0.75,6:14:1:2,14:20:2:3", cv[k].name, 61, 0, 0,
                     c->seed + 100 + 10 * b + k);
        }
    const char *awk = "0:2:0.25,2:3:0.5:2,3:4.5:0.5:3,4.5:5:0.5:4";
    ref_case(c, "awkward/1ch-8bit", 1, 8, 100, "0:5:1", "crosscheck", 50, 1, 0, c->seed + 200);
    ref_case(c, "awkward/7ch-16bit", 7, 16, 100, awk, "crosscheck", 40, 1, 0, c->seed + 201);
    ref_case(c, "awkward/31ch-2bit", 31, 2, 100, awk, "sigproc", 40, 1, 0, c->seed + 202);
    ref_case(c, "awkward/127ch-4bit", 127, 4, 100, awk, "dedisp", 30, 1, 0, c->seed + 203);
    ref_case(c, "awkward/257ch-8bit", 257, 8, 100, awk, "astroaccelerate", 20, 1, 0, c->seed + 204);
    ref_case(c, "awkward/31ch-nout1", 31, 8, 93, "0:10:1,10:20:2:2", "presto", 1, 0, 0, c->seed + 205);
    ref_case(c, "awkward/64ch-one-trial", 64, 16, 64, "30:31:1", "sigproc", 77, 0, 0, c->seed + 206);
    const char *kp = "0:10:0.5,10:20:1:2";
    ref_case(c, "killmask/45ch-quarter", 45, 8, 45, kp, "dedisp", 100, 0, 'q', c->seed + 300);
    ref_case(c, "killmask/45ch-middle-only", 45, 16, 45, kp, "crosscheck", 100, 0, 'm', c->seed + 301);
    ref_case(c, "killmask/45ch-all", 45, 8, 45, kp, "astroaccelerate", 100, 0, 'a', c->seed + 302);
    ref_case(c, "killmask/300ch-ends", 300, 16, 100, kp, "crosscheck", 60, 0, 'e', c->seed + 303);
    ref_case(c, "killmask/45ch-float-quarter", 45, 32, 45, kp, "dedisp", 100, 0, 'q', c->seed + 304);
    const char *dp = "0:4:1,4:8:1:2,8:12:1:3,12:16:2:4,16:24:2:5";
    ref_case(c, "downsample/8-bit", 24, 8, 100, dp, "crosscheck", 97, 0, 0, c->seed + 400);
    ref_case(c, "downsample/16-bit-astroaccelerate", 24, 16, 100, dp, "astroaccelerate", 121, 0, 'q',
             c->seed + 401);
    ref_case(c, "downsample/float-dedisp", 24, 32, 100, dp, "dedisp", 89, 0, 0, c->seed + 402);
    ref_case(c, "float/1ch", 1, 32, 100, "0:5:1", "crosscheck", 64, 0, 0, c->seed + 500);
    ref_case(c, "float/300ch", 300, 32, 100, "0:3:0.5,3:6:1:2,6:8:1:3", "crosscheck", 64, 0, 0, c->seed + 501);
    ref_case(c, "float/1000ch-dedisp-killed", 1000, 32, 100, "0:4:1,4:6:1:4", "dedisp", 64, 0, 'q', c->seed + 502);
    ref_case(c, "float/57ch-astroaccelerate-ds2", 57, 32, 100, "0:9:1:2", "astroaccelerate", 64, 0, 'q',
             c->seed + 503);
}

/* ---- gulps through one plan ------------------------------------------------ */

/* Gulps of 6, 30, 12, 48 and 1 output samples (all but the last a multiple
 * of every ds, as a stream makes them) through one plan of the
 * implementation, each gulp max_delay spectra longer, pasted together:
 * against the reference's whole run (the class) and the implementation's own
 * (self). */
static void gulps(ctx *c, const char *name, int nbits, const char *preset, char kill)
{
    static const size_t g[] = {6, 30, 12, 48, 1};
    input in;
    xc_plane want, self = {0, NULL}, cat, pg;
    xc_ddplan *p = NULL;
    xc_error e;
    char nm[96];
    if (!make(c, &in, 24, nbits, 1500, -100.0 / 24, 1e-4, "0:6:0.75,6:14:1:2,14:20:2:3", preset, 97))
        return;
    xc_conform_ddinput_random(&in, c->seed + 600 + (uint64_t)nbits);
    if ((c->st = xc_conform_ddinput_mask(&in, kill, c->seed + 601, c->err)) || run(c, c->ref, &in, &want, &e)) {
        if (!c->st)
            add_error(c, name, "reference", &e);
        xc_conform_ddinput_free(&in);
        return;
    }
    if (run(c, c->impl, &in, &self, &e)) {
        add_error(c, name, c->impl->impl.name, &e);
    } else if (!(c->st = xc_conform_plane_like(&want, &cat, c->err))) {
        xc_status st = xc_ddplan_create(&p, c->impl, &in.g, nbits, &in.plan, in.cv, in.mask, &c->ddo, &e);
        size_t t0 = 0, nc = (size_t)in.g.nchans;
        for (size_t i = 0; !st && i < sizeof g / sizeof *g; t0 += g[i++]) {
            xc_block b = {in.g.nchans, g[i] + (size_t)in.maxd, nbits, in.u16 ? in.u16 + t0 * nc : NULL,
                          in.f32 ? in.f32 + t0 * nc : NULL};
            if ((st = xc_ddplan_plane_alloc(p, b.nsamp, &pg, &e)))
                break;
            for (int k = 0; k < pg.nranges; k++)   /* NaN: a value never written cannot pass */
                memset(pg.r[k].data, 0xFF, pg.r[k].ndm * pg.r[k].nsamp * sizeof(float));
            if (!(st = xc_ddplan_execute(p, &b, &pg, &e)))
                for (int k = 0; k < pg.nranges; k++)
                    for (size_t d = 0; d < pg.r[k].ndm; d++)
                        memcpy(cat.r[k].data + d * cat.r[k].nsamp + t0 / (size_t)pg.r[k].ds,
                               pg.r[k].data + d * pg.r[k].nsamp, pg.r[k].nsamp * sizeof(float));
            xc_plane_free(&pg);
            if (st)
                snprintf(e.msg + strlen(e.msg), sizeof e.msg - strlen(e.msg), " (gulp %zu)", i);
        }
        xc_ddplan_destroy(p);
        if (st) {
            add_error(c, name, c->impl->impl.name, &e);
        } else {
            snprintf(nm, sizeof nm, "%s/vs-reference", name);
            judge_add(c, nm, 0, &in, &want, &cat, 1);
            snprintf(nm, sizeof nm, "%s/vs-whole-run", name);
            judge_add(c, nm, 1, &in, &self, &cat, 2);
        }
        xc_plane_free(&cat);
    }
    xc_plane_free(&self);
    xc_plane_free(&want);
    xc_conform_ddinput_free(&in);
}

/* ---- signal loss ------------------------------------------------------------ */

static int dcmp(const void *pa, const void *pb)
{
    double a = *(const double *)pa, b = *(const double *)pb;
    return (a > b) - (a < b);
}

/* The best single-sample S/N of the plane: per trial (max - median) /
 * (1.4826 MAD), robust against the pulse itself; NAN if a value is not
 * finite. */
static double peak_snr(const xc_plane *pl, double *buf)
{
    double best = 0;
    for (int k = 0; k < pl->nranges; k++)
        for (size_t d = 0; d < pl->r[k].ndm; d++) {
            size_t n = pl->r[k].nsamp;
            const float *x = pl->r[k].data + d * n;
            double mx = -INFINITY;
            for (size_t i = 0; i < n; i++) {
                if (!isfinite(x[i]))
                    return NAN;
                buf[i] = x[i];
                mx = fmax(mx, x[i]);
            }
            qsort(buf, n, sizeof *buf, dcmp);
            double med = n % 2 ? buf[n / 2] : 0.5 * (buf[n / 2 - 1] + buf[n / 2]);
            for (size_t i = 0; i < n; i++)
                buf[i] = fabs(buf[i] - med);
            qsort(buf, n, sizeof *buf, dcmp);
            double mad = n % 2 ? buf[n / 2] : 0.5 * (buf[n / 2 - 1] + buf[n / 2]);
            if (n > 1 && mad > 0)
                best = fmax(best, (mx - med) / (1.482602218505602 * mad));
        }
    return best;
}

/* 64 channels of 8-bit Gaussian noise (mean 96, sd 8) over 256 MHz below
 * 1500 MHz, and a pulse of 12 in one sample of every channel, dispersed at
 * dm (on a trial, or between the trials of a scrunched range): a peak S/N
 * near 12 at the right trial.  The implementation's may be at most a
 * fraction v below the reference's for class signal-loss v, and not at all
 * below for the others, whose integer planes are bit for bit. */
static void signal_loss(ctx *c, const char *name, double dm)
{
    input in;
    xc_plane pr, pi;
    xc_error e;
    if (!make(c, &in, 64, 8, 1500, -4, 1e-4, "0:20:0.25,20:40:0.5:2", "crosscheck", 1200))
        return;
    uint64_t s = c->seed * 0x9E3779B97F4A7C15ull + (uint64_t)(dm * 1000);
    for (size_t i = 0; i < in.blk.nsamp * 64; i++)
        in.u16[i] = (uint16_t)fmin(255, fmax(0, lround(96 + 8 * xc_conform_rng_gauss(&s))));
    for (int ch = 0; ch < 64; ch++) {
        double f = 1500 - 4.0 * ch;
        size_t t = 600 + (size_t)lround(in.cv->kdm * dm * (1 / (f * f) - 1 / (1500.0 * 1500.0)) / 1e-4);
        uint16_t *v = &in.u16[t * 64 + (size_t)ch];
        *v = (uint16_t)(*v + 12 > 255 ? 255 : *v + 12);
    }
    double *buf = malloc(in.blk.nsamp * sizeof *buf);
    if (!buf) {
        c->st = xc_error_set(c->err, XC_ENOMEM, "conformance: out of memory");
    } else if (run(c, c->ref, &in, &pr, &e)) {
        add_error(c, name, "reference", &e);
    } else {
        if (run(c, c->impl, &in, &pi, &e)) {
            add_error(c, name, c->impl->impl.name, &e);
        } else {
            xc_tolerance t = c->impl->impl.tol;
            double sr = peak_snr(&pr, buf), si = peak_snr(&pi, buf), loss = 1 - si / sr;
            double allowed = t.kind == XC_TOL_SIGNAL_LOSS ? t.value : 0;
            char obs[256], exp[256], tol[192];
            snprintf(obs, sizeof obs, "peak S/N %.4g, loss %.4g", si, loss);
            snprintf(exp, sizeof exp, "peak S/N >= %.4g (reference %.4g, loss <= %g)", (1 - allowed) * sr, sr,
                     allowed);
            snprintf(tol, sizeof tol, "%s %g: S/N = (max - median)/(1.4826 MAD) of the best trial",
                     xc_tol_kind_name(t.kind), t.value);
            add(c, loss <= allowed, name, obs, exp, tol);
            xc_plane_free(&pi);
        }
        xc_plane_free(&pr);
    }
    free(buf);
    xc_conform_ddinput_free(&in);
}

/* ---- the entry point ---------------------------------------------------------- */

xc_status xc_conform_dedisperser(const xc_dedisperser *impl, const xc_dedisperser *ref, const xc_conform_opts *o,
                                 xc_conform_report *rep, xc_error *err)
{
    xc_conform_opts def;
    if (!o) {
        xc_conform_opts_default(&def);
        o = &def;
    }
    if (!impl || !ref || !(impl->execute || impl->run) || !(ref->execute || ref->run) || impl->impl.family != XC_FAMILY_DEDISPERSE ||
        ref->impl.family != XC_FAMILY_DEDISPERSE)
        return xc_error_set(err, XC_EINVAL, "conformance: two dedispersers are needed (implementation and reference)");
    xc_status st = xc_conform_check_pair(&impl->impl, &ref->impl, rep, err);
    if (st)
        return st;
    ctx c = {impl, ref, rep, {.threads = o->threads}, o->seed, err, XC_OK};
    int pass;
    c.st = xc_conform_check_class(&impl->impl, rep, &pass, err);
    case_hand(&c);
    if (!c.st)
        linearity(&c, 16, "linearity/16-bit");
    if (!c.st)
        linearity(&c, 32, "linearity/float");
    if (!c.st)
        time_shift(&c);
    static const char *imp[] = {"crosscheck", "sigproc", "presto"};
    for (int i = 0; i < 3 && !c.st; i++)
        impulse(&c, imp[i]);
    sweeps(&c);
    if (!c.st)
        gulps(&c, "gulps/8-bit-killmask", 8, "crosscheck", 'q');
    if (!c.st)
        gulps(&c, "gulps/float-dedisp", 32, "dedisp", 0);
    if (!c.st)
        signal_loss(&c, "signal-loss/dm10-on-trial", 10.0);
    if (!c.st)
        signal_loss(&c, "signal-loss/dm27.3-ds2-between-trials", 27.3);
    return c.st;
}
