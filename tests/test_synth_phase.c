/* The pulsar's phase table (synth/signal/synth_phase.h) against the closed
 * form it stands for: every value within the stated bound, pulse by pulse at
 * random phases and over a whole noiseless file; and the pulsars that must
 * keep the closed form do. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "synth/model/xc_synth.h"
#include "synth/noise/synth_levels.h"
#include "synth/signal/synth_signal.h"
#include "tests/xc_test.h"

/* 2^-24 amp per rounding: the nodes' and the interpolation's (synth_phase.c) */
#define ROUND_UNITS 8.0

typedef struct {
    const char *name;
    int nchans;
    double fch1, foff, tsamp, dm, period_ms, width_pct, snr;
} geometry;

static const geometry cases[] = {
    /* the benchmark's file (docs/PERFORMANCE.md), then brighter, lower and less smeared ones */
    {"bench 512 ch, 1550 MHz, DM 100", 512, 1550, -0.5859375, 64e-6, 100, 5, 10, 0.5},
    {"512 ch, DM 100, S/N 20", 512, 1550, -0.5859375, 64e-6, 100, 5, 10, 20},
    {"64 ch, 400 MHz, DM 10, 256 us", 64, 400, -1, 256e-6, 10, 33.3, 5, 20},
    {"32 ch, 1400 MHz, DM 5 (smearing < tsamp)", 32, 1400, -1, 64e-6, 5, 3.1, 4, 0.3},
    {"128 ch, 1400 MHz, DM 330 (a channel smeared over 16 samples)", 128, 1400, -1, 64e-6, 330, 20, 2, 5},
};

static void case_params(xc_synth_params *p, const geometry *g, double tobs)
{
    xc_synth_params_init_obs(p, g->nchans, 32, g->tsamp, tobs);
    p->fch1 = g->fch1;
    p->foff = g->foff;
    p->noise = 0;
    p->psr.period_ms = g->period_ms;
    p->psr.dm = g->dm;
    p->psr.width_pct = g->width_pct;
    p->psr.snrpeak = g->snr;
}

XC_TEST(test_phase_pulses_within_bound, "phase_pulses_within_bound")
{
    /* 4000 pulses at random start times over 10 s (so at random phases) in
     * random channels: the table's values (xc_phase_add) against
     * xc_signal_tophat's, sample by sample, within the channel's bound. */
    for (size_t gi = 0; gi < XC_NCASES(cases); gi++) {
        const geometry *g = &cases[gi];
        xc_synth_params p;
        case_params(&p, g, 1);
        xc_signal s;
        xc_error err;
        CU_ASSERT_EQUAL_FATAL(xc_signal_init(&s, &p, &err), XC_OK);
        CU_ASSERT_PTR_NOT_NULL_FATAL(s.ph.tab);
        CU_ASSERT(s.ph.bound <= XC_PHASE_TOL);
        const size_t rows = (size_t)s.ph.K + 8, nch = (size_t)g->nchans;
        float *a = malloc(rows * nch * sizeof *a), *b = malloc(rows * nch * sizeof *b);
        CU_ASSERT_PTR_NOT_NULL_FATAL(a);
        CU_ASSERT_PTR_NOT_NULL_FATAL(b);
        uint64_t rng = 0x9e3779b97f4a7c15ull + gi;
        double worst = 0, worst_ratio = 0, worst_tol = 0;
        size_t bad = 0, values = 0;
        for (int trial = 0; trial < 4000; trial++) {
            rng = rng * 6364136223846793005ull + 1442695040888963407ull;
            const int c = (int)((rng >> 33) % nch);
            const double ta = 10.0 * (double)(rng >> 11 & 0xfffff) / 0x100000 + 1e-3;
            const xc_chgeo *geo = &s.geo[c];
            const uint64_t first = (uint64_t)floor((ta + geo->dmin) / g->tsamp) - 3;
            memset(a, 0, rows * nch * sizeof *a);
            memset(b, 0, rows * nch * sizeof *b);
            xc_chunk ca = {a, first, rows, g->nchans, g->tsamp}, cb = {b, first, rows, g->nchans, g->tsamp};
            xc_signal_tophat(&ca, c, geo, ta, ta + s.ph.w, s.amp);
            xc_phase_add(&s.ph, &cb, c, c + 1, s.geo, ta);
            const double tol = xc_phase_bound(geo, g->tsamp, s.amp, s.ph.M) + ROUND_UNITS * 0x1p-24 * s.amp;
            for (size_t i = 0; i < rows; i++) {
                const double d = fabs((double)a[i * nch + (size_t)c] - (double)b[i * nch + (size_t)c]);
                values += a[i * nch + (size_t)c] != 0.0f;
                if (d > worst)
                    worst = d, worst_tol = tol;
                if (d / tol > worst_ratio)
                    worst_ratio = d / tol;
                if (d > tol && bad++ < 3)
                    printf("\n    %s: chan %d, ta %.9f s, sample %zu: table %.9g, closed form %.9g, |diff| %.3g > %.3g",
                           g->name, c, ta, (size_t)first + i, (double)b[i * nch + (size_t)c],
                           (double)a[i * nch + (size_t)c], d, tol);
            }
        }
        CU_ASSERT_EQUAL(bad, 0);
        CU_ASSERT(values > 4000);   /* the pulses landed in the chunks */
        printf("\n    %s: M %d, K %d, amp %.4g: largest |table - closed| %.3g (tolerance there %.3g; "
               "largest share of a tolerance %.3f), stated bound %.3g <= %.0e sigmas, %zu values",
               g->name, s.ph.M, s.ph.K, s.amp, worst, worst_tol, worst_ratio, s.ph.bound, XC_PHASE_TOL, values);
        free(a);
        free(b);
        xc_signal_free(&s);
        xc_synth_params_free(&p);
    }
}

typedef struct {
    float *x;
    size_t n, cap;
} float_sink;

static int keep_floats(void *ctx, const uint8_t *bytes, size_t n)
{
    float_sink *f = ctx;
    if (f->n + n / 4 > f->cap)
        return 1;
    memcpy(f->x + f->n, bytes, n);
    f->n += n / 4;
    return 0;
}

XC_TEST(test_phase_file_within_bound, "phase_file_within_bound")
{
    /* A noiseless 32-bit file of the benchmark's geometry (S/N 20) through the
     * stream (table, chunks of 77 spectra, two threads) against the closed
     * form of every pulse the file holds (xc_signal_tophat of each pulse of
     * xc_signal_pulses_between into the whole file): every value within the
     * bound (the pulses do not overlap in a channel), and the values with
     * signal the same ones but for those the bound lets round to zero. */
    const geometry *g = &cases[1];
    xc_synth_params p;
    case_params(&p, g, 0.25);
    p.chunk = 77;
    p.nthreads = 2;
    const size_t nch = (size_t)g->nchans, ns = (size_t)xc_synth_nsamp(&p);
    float_sink f = {malloc(ns * nch * sizeof(float)), 0, ns * nch};
    float *want = calloc(ns * nch, sizeof *want);
    CU_ASSERT_PTR_NOT_NULL_FATAL(f.x);
    CU_ASSERT_PTR_NOT_NULL_FATAL(want);
    xc_error err;
    CU_ASSERT_EQUAL_FATAL(xc_synth_stream(&p, keep_floats, &f, &err), XC_OK);
    CU_ASSERT_EQUAL_FATAL(f.n, ns * nch);
    xc_signal s;
    CU_ASSERT_EQUAL_FATAL(xc_signal_init(&s, &p, &err), XC_OK);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s.ph.tab);
    const double T = (double)ns * p.tsamp;
    CU_ASSERT_EQUAL_FATAL(xc_signal_pulses_between(&s, -s.dhi - p.tsamp, T - s.dlo + p.tsamp, &err), XC_OK);
    xc_chunk ck = {want, 0, ns, g->nchans, p.tsamp};
    for (size_t j = 0; j < s.nev; j++)
        for (int c = 0; c < g->nchans; c++)
            xc_signal_tophat(&ck, c, &s.geo[c], s.ev[j][0], s.ev[j][1], s.amp);
    double worst = 0, tol_worst = 0;
    size_t bad = 0, with = 0, only_one = 0;
    for (size_t i = 0; i < ns * nch; i++) {
        const double tol = xc_phase_bound(&s.geo[i % nch], p.tsamp, s.amp, s.ph.M) + ROUND_UNITS * 0x1p-24 * s.amp;
        const double d = fabs((double)f.x[i] - (double)want[i]);
        with += want[i] != 0.0f;
        if ((want[i] != 0.0f) != (f.x[i] != 0.0f)) {
            only_one++;
            if (fmax(fabs(want[i]), fabs(f.x[i])) > tol)
                bad++;
        }
        if (d > worst)
            worst = d, tol_worst = tol;
        if (d > tol && bad++ < 3)
            printf("\n    sample %zu chan %zu: stream %.9g, closed form %.9g, |diff| %.3g > %.3g", i / nch, i % nch,
                   (double)f.x[i], (double)want[i], d, tol);
    }
    CU_ASSERT_EQUAL(bad, 0);
    CU_ASSERT(with > ns * nch / 20);
    printf("\n    %zu values, %zu with signal (closed form), %zu with signal in one only; largest |stream - closed| "
           "%.3g (tolerance there %.3g)",
           ns * nch, with, only_one, worst, tol_worst);
    free(f.x);
    free(want);
    xc_signal_free(&s);
    xc_synth_params_free(&p);
}

XC_TEST(test_phase_only_where_shape_kept, "phase_only_where_shape_kept")
{
    /* A binary, an accelerated, a spinning-down, a Gaussian, a -fake_phase
     * pulsar and a bright unsmeared one keep the closed form (no table). */
    for (int k = 0; k < 6; k++) {
        xc_synth_params p;
        case_params(&p, &cases[0], 1);
        if (k == 0)
            p.psr.bin.on = 1;
        else if (k == 1)
            p.psr.accn = 10;
        else if (k == 2)
            p.psr.pdot = 1e-12;
        else if (k == 3)
            p.profile = XC_PROFILE_GAUSSIAN;
        else if (k == 4)
            p.fake_phase = 1;
        else
            p.smear = 0, p.psr.snrpeak = 50;
        xc_signal s;
        xc_error err;
        CU_ASSERT_EQUAL_FATAL(xc_signal_init(&s, &p, &err), XC_OK);
        if (s.ph.tab)
            printf("\n    case %d built a table", k);
        CU_ASSERT_PTR_NULL(s.ph.tab);
        xc_signal_free(&s);
        xc_synth_params_free(&p);
    }
    /* and the benchmark's pulsar does build one */
    xc_synth_params p;
    case_params(&p, &cases[0], 1);
    xc_signal s;
    xc_error err;
    CU_ASSERT_EQUAL_FATAL(xc_signal_init(&s, &p, &err), XC_OK);
    CU_ASSERT_PTR_NOT_NULL(s.ph.tab);
    xc_signal_free(&s);
    xc_synth_params_free(&p);
}

/* One part's bytes by the float path: the pulsar into zeroed floats
 * (xc_signal_apply), then the table draws and the values with signal over
 * them (xc_levels_part); *with counts the values with signal. */
static void part_by_floats(xc_signal *s, const xc_levels *tab, uint64_t seed, uint64_t first, size_t n, uint8_t *out,
                           size_t *with)
{
    const size_t nch = (size_t)s->p->nchans;
    float *x = calloc(n * nch, sizeof *x);
    CU_ASSERT_PTR_NOT_NULL_FATAL(x);
    xc_chunk ck = {x, first, n, s->p->nchans, s->p->tsamp};
    xc_signal_apply(s, &ck, 1);
    for (size_t i = 0; i < n * nch; i++)
        *with += x[i] != 0.0f;
    xc_levels_part(tab, seed, first, n, s->p->nchans, x, NULL, XC_BITORDER_LSB, out);
    free(x);
}

XC_TEST(test_phase_levels8_same_bytes, "phase_levels8_same_bytes")
{
    /* The exact generator's 8-bit levels made straight from the phase table
     * (xc_signal_levels8 over the table draws) against the float path, byte
     * for byte: the geometries above (K 16 and wider), three seeds, parts of
     * odd sizes at odd places, among them ones that cut pulses. */
    static const size_t parts[4][2] = {{0, 256}, {1000, 77}, {4097, 1}, {123, 600}};
    static const uint64_t seeds[3] = {1, 7, 0x123456789abcdefull};
    if (!__builtin_cpu_supports("avx512f") || !__builtin_cpu_supports("avx512bw")) {
        printf("\n    skipped: this CPU has no AVX-512F/BW (the float path is the only one)");
        return;
    }
    for (size_t gi = 0; gi < XC_NCASES(cases); gi++) {
        const geometry *g = &cases[gi];
        xc_synth_params p;
        case_params(&p, g, 1);
        p.noise = 1;
        p.nbits = 8;
        p.noise_gen = XC_NOISE_EXACT;
        xc_signal s;
        xc_levels tab;
        xc_error err;
        CU_ASSERT_EQUAL_FATAL(xc_signal_init(&s, &p, &err), XC_OK);
        CU_ASSERT_EQUAL_FATAL(xc_levels_init(&tab, 8, &err), XC_OK);
        size_t with = 0, differ = 0, values = 0;
        for (int si = 0; si < 3; si++)
            for (int pi = 0; pi < 4; pi++) {
                const uint64_t first = parts[pi][0];
                const size_t n = parts[pi][1], nch = (size_t)g->nchans;
                uint8_t *a = malloc(n * nch), *b = malloc(n * nch);
                CU_ASSERT_PTR_NOT_NULL_FATAL(a);
                CU_ASSERT_PTR_NOT_NULL_FATAL(b);
                CU_ASSERT_EQUAL_FATAL(xc_signal_prepare(&s, first, n, p.tsamp, &err), XC_OK);
                CU_ASSERT_FATAL(xc_signal_levels8_applies(&s));
                xc_levels_part(&tab, seeds[si], first, n, g->nchans, NULL, NULL, XC_BITORDER_LSB, a);
                xc_signal_levels8(&s, seeds[si], first, n, a);
                part_by_floats(&s, &tab, seeds[si], first, n, b, &with);
                for (size_t i = 0; i < n * nch; i++)
                    if (a[i] != b[i] && differ++ < 3)
                        printf("\n    %s, seed %llu, part %llu+%zu: spectrum %llu chan %zu: %u from the table, %u by "
                               "floats (exact)",
                               g->name, (unsigned long long)seeds[si], (unsigned long long)first, n,
                               (unsigned long long)(first + i / nch), i % nch, a[i], b[i]);
                values += n * nch;
                free(a);
                free(b);
            }
        CU_ASSERT_EQUAL(differ, 0);
        CU_ASSERT(with > values / 100);   /* the parts held signal */
        printf("\n    %s: K %d, %zu values, %zu with signal, %zu differ", g->name, s.ph.K, values, with, differ);
        xc_levels_free(&tab);
        xc_signal_free(&s);
        xc_synth_params_free(&p);
    }
}

XC_TEST(test_phase_levels8_not_overlapping, "phase_levels8_not_overlapping")
{
    /* Pulses whose samples meet in a channel (a period of K samples or less)
     * keep the float path, which sums them; so do single pulses. */
    xc_synth_params p;
    case_params(&p, &cases[0], 1);
    p.psr.period_ms = 0.9;   /* 14 samples of 64 us */
    xc_signal s;
    xc_error err;
    CU_ASSERT_EQUAL_FATAL(xc_signal_init(&s, &p, &err), XC_OK);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s.ph.tab);
    CU_ASSERT_EQUAL_FATAL(xc_signal_prepare(&s, 0, 1000, p.tsamp, &err), XC_OK);
    CU_ASSERT_FALSE(xc_signal_levels8_applies(&s));
    xc_signal_free(&s);
    xc_synth_params_free(&p);
    case_params(&p, &cases[0], 1);
    const xc_synth_pulse pl = {.t_s = 0.5, .dm = 50, .width_ms = 2, .snr = 30, .tau_ref_mhz = 1000, .tau_index = -4};
    CU_ASSERT_EQUAL_FATAL(xc_synth_params_add_pulse(&p, &pl, &err), XC_OK);
    CU_ASSERT_EQUAL_FATAL(xc_signal_init(&s, &p, &err), XC_OK);
    CU_ASSERT_EQUAL_FATAL(xc_signal_prepare(&s, 0, 1000, p.tsamp, &err), XC_OK);
    CU_ASSERT_FALSE(xc_signal_levels8_applies(&s));
    xc_signal_free(&s);
    xc_synth_params_free(&p);
}

XC_TEST_MAIN("synth_phase")
