/* The plane comparator must catch every planted difference and say where it is. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare/xc_compare.h"
#include "core/base/xc_nbits.h"
#include "reference/xc_reference.h"
#include "core/dedisp/xc_dedisperse.h"
#include "core/dedisp/run/xc_planefile.h"
#include "tests/xc_test.h"

#define NCHANS 37
#define NSAMP 2000
/* 30 trials at ds 1 and 10 at ds 2; the largest delay (DM 48, 1140 MHz) is
 * 1012 samples, so range 0 has 988 output samples and range 1 494. */
#define PLAN "0:30:1:1,30:50:2:2"

typedef struct {
    uint16_t *u16;
    float *f32;
    xc_block blk;
    xc_dmplan plan;
    xc_geometry g;
    const xc_convention *cv;
    xc_ddjob job;
    xc_plane pl;
    xc_planemeta meta;
} fixture;

/* xorshift64*: the test's own generator, so data are the same everywhere. */
static uint64_t rnd(uint64_t *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * 0x2545F4914F6CDD1DULL;
}

/* Builds data (nbits 8, 16 or 32), runs the reference and fills the metadata. */
static int fx_make(fixture *f, int nbits, const char *conv, const char *plan, uint64_t seed)
{
    xc_error err;
    memset(f, 0, sizeof *f);
    size_t n = (size_t)NCHANS * NSAMP;
    if (xc_nbits_is_float(nbits)) {
        f->f32 = malloc(n * sizeof *f->f32);
        for (size_t i = 0; i < n; i++)
            f->f32[i] = (float)((double)(rnd(&seed) >> 11) / 9007199254740992.0 * 100.0 - 20.0);
    } else {
        f->u16 = malloc(n * sizeof *f->u16);
        for (size_t i = 0; i < n; i++)
            f->u16[i] = (uint16_t)(rnd(&seed) >> (64 - nbits));
    }
    f->blk = (xc_block){NCHANS, NSAMP, nbits, f->u16, f->f32};
    f->g = (xc_geometry){NCHANS, 1500.0, -10.0, 64e-6};
    f->cv = xc_convention_get(conv);
    xc_dmplan_init(&f->plan);
    if (!f->cv || xc_dmplan_parse(&f->plan, plan, "test", &err) ||
        xc_ddjob_init(&f->job, &f->blk, &f->plan, f->cv, &f->g, NULL, &err) ||
        xc_plane_alloc(&f->pl, &f->job, &err) || xc_dedisperse_reference(&f->job, &f->pl, &err)) {
        fprintf(stderr, "fixture: %s\n", err.msg);
        return -1;
    }
    snprintf(f->meta.impl, sizeof f->meta.impl, "reference");
    snprintf(f->meta.convention, sizeof f->meta.convention, "%s", conv);
    f->meta.nbits = nbits;
    f->meta.nchans = f->meta.nchans_used = NCHANS;
    f->meta.tsamp = f->g.tsamp;
    f->meta.fch1 = f->g.fch1;
    f->meta.foff = f->g.foff;
    f->meta.max_delay = f->job.max_delay;
    f->meta.nsamp_in = NSAMP;
    return 0;
}

static void fx_free(fixture *f)
{
    xc_plane_free(&f->pl);
    xc_ddjob_free(&f->job);
    xc_dmplan_free(&f->plan);
    free(f->u16);
    free(f->f32);
}

static int plane_copy(xc_plane *dst, const xc_plane *src)
{
    dst->nranges = src->nranges;
    dst->r = calloc((size_t)src->nranges, sizeof *dst->r);
    if (!dst->r)
        return -1;
    for (int k = 0; k < src->nranges; k++) {
        dst->r[k] = src->r[k];
        size_t n = src->r[k].ndm * src->r[k].nsamp;
        dst->r[k].data = malloc(n * sizeof(float));
        if (!dst->r[k].data)
            return -1;
        memcpy(dst->r[k].data, src->r[k].data, n * sizeof(float));
    }
    return 0;
}

static xc_cmpside side(const char *name, const xc_plane *pl, const fixture *f)
{
    return (xc_cmpside){name, pl, &f->meta, &f->plan};
}

/* Compares a (a plane shaped like f's) against f's reference plane. */
static xc_status cmp(const xc_plane *a, const fixture *fa, const fixture *fb, const xc_cmpopts *o,
                     xc_cmpresult *res, xc_error *err)
{
    xc_cmpside sa = side("A", a, fa), sb = side("B", &fb->pl, fb);
    return xc_compare_planes(&sa, &sb, o, res, err);
}

static size_t total_samples(const xc_plane *pl)
{
    size_t n = 0;
    for (int k = 0; k < pl->nranges; k++)
        n += pl->r[k].ndm * pl->r[k].nsamp;
    return n;
}

/* Most cases: a fixture f, a copy c of its reference plane to plant
 * differences in, and the result and error of comparing them. */
typedef struct {
    fixture f;
    xc_plane c;
    xc_cmpresult res;
    xc_error err;
} copied;

/* t->f as fx_make builds it under PLAN and "crosscheck", t->c its plane's
 * copy; either failing ends the case. */
static void fx_copy(copied *t, int nbits, uint64_t seed)
{
    memset(&t->res, 0, sizeof t->res);
    CU_ASSERT_FATAL(fx_make(&t->f, nbits, "crosscheck", PLAN, seed) == 0);
    CU_ASSERT_FATAL(plane_copy(&t->c, &t->f.pl) == 0);
}

/* Compares t->c against t->f's reference plane into t->res. */
static xc_status cmp_copy(copied *t, const xc_cmpopts *o)
{
    return cmp(&t->c, &t->f, &t->f, o, &t->res, &t->err);
}

/* Frees what fx_copy made and the last result (freeing one twice is safe). */
static void fx_copy_free(copied *t)
{
    xc_cmpresult_free(&t->res);
    xc_plane_free(&t->c);
    fx_free(&t->f);
}

XC_TEST(test_no_samples_no_agreement, "planes of no sample do not agree (nothing was compared)")
{
    copied cp;
    fx_copy(&cp, 8, 1);
    for (int k = 0; k < cp.c.nranges; k++)
        cp.c.r[k].nsamp = cp.f.pl.r[k].nsamp = 0;
    CU_ASSERT_EQUAL_FATAL(cmp_copy(&cp, NULL), XC_OK);
    CU_ASSERT_EQUAL(cp.res.n_total, 0);
    CU_ASSERT_FALSE(cp.res.agree);
    fx_copy_free(&cp);
}

XC_TEST(test_identical, "identical planes agree exactly")
{
    copied cp;
    fx_copy(&cp, 8, 1);
    CU_ASSERT_EQUAL(cp.f.pl.r[0].nsamp, 988);
    CU_ASSERT_EQUAL(cp.f.pl.r[1].nsamp, 494);
    CU_ASSERT_EQUAL_FATAL(cmp_copy(&cp, NULL), XC_OK);
    CU_ASSERT_EQUAL(cp.res.cls, XC_CLASS_EXACT);
    CU_ASSERT_TRUE(cp.res.agree);
    CU_ASSERT_EQUAL(cp.res.n_diff, 0);
    CU_ASSERT_EQUAL(cp.res.n_over, 0);
    CU_ASSERT_EQUAL(cp.res.n_total, 30 * 988 + 10 * 494);
    CU_ASSERT_EQUAL(cp.res.max_abs, 0);
    CU_ASSERT_EQUAL(cp.res.rms, 0);

    /* The peak by S/N (each trial against its own mean and standard
     * deviation), recomputed here from the plane. */
    int pk = 0;
    size_t pj = 0, pt = 0;
    float best = -1;
    double snr = -1;
    for (int k = 0; k < cp.f.pl.nranges; k++)
        for (size_t j = 0; j < cp.f.pl.r[k].ndm; j++) {
            const float *row = cp.f.pl.r[k].data + j * cp.f.pl.r[k].nsamp;
            size_t ns = cp.f.pl.r[k].nsamp, tm = 0;
            double m = 0, v = 0;
            for (size_t t = 0; t < ns; t++) {
                m += row[t];
                tm = row[t] > row[tm] ? t : tm;
            }
            m /= (double)ns;
            for (size_t t = 0; t < ns; t++)
                v += (row[t] - m) * (row[t] - m);
            double s = (row[tm] - m) / sqrt(v / (double)ns);
            if (s > snr) {
                snr = s;
                best = row[tm];
                pk = k;
                pj = j;
                pt = tm;
            }
        }
    CU_ASSERT_TRUE(cp.res.peak_b.found);
    CU_ASSERT_EQUAL(cp.res.peak_b.range, pk);
    CU_ASSERT_EQUAL(cp.res.peak_b.idm, pj);
    CU_ASSERT_EQUAL(cp.res.peak_b.t, pt);
    CU_ASSERT_EQUAL(cp.res.peak_b.value, best);
    CU_ASSERT_EQUAL(cp.res.peak_b.dm, cp.f.plan.r[pk].dms[pj]);
    XC_ASSERT_CLOSE(cp.res.peak_b.snr, snr, 1e-9 * fabs(snr));
    CU_ASSERT_EQUAL(cp.res.peak_a.t, cp.res.peak_b.t);
    /* Without -dm the percentage row is B's peak trial, here identical: 0 %. */
    CU_ASSERT_TRUE(cp.res.has_dm);
    CU_ASSERT_EQUAL(cp.res.dmrow.range, pk);
    CU_ASSERT_EQUAL(cp.res.dmrow.idm, pj);
    CU_ASSERT_EQUAL(cp.res.pct_max, 0);
    fx_copy_free(&cp);
}

/* A copy (fx_copy) with one sample, trial idm of range k at t, one count
 * up, compared with its original. */
static void one_count_up(copied *cp, int nbits, uint64_t seed, int k, size_t idm, size_t t)
{
    fx_copy(cp, nbits, seed);
    cp->c.r[k].data[idm * cp->c.r[k].nsamp + t] += 1;
    CU_ASSERT_EQUAL_FATAL(cmp_copy(cp, NULL), XC_OK);
}

XC_TEST(test_one_sample, "one sample off by one")
{
    copied cp;
    one_count_up(&cp, 8, 2, 1, 3, 123);
    CU_ASSERT_FALSE(cp.res.agree);
    CU_ASSERT_EQUAL(cp.res.n_diff, 1);
    CU_ASSERT_EQUAL(cp.res.n_over, 1);
    CU_ASSERT_EQUAL(cp.res.n_trials_diff, 1);
    CU_ASSERT_EQUAL(cp.res.first.range, 1);
    CU_ASSERT_EQUAL(cp.res.first.idm, 3);
    CU_ASSERT_EQUAL(cp.res.first.t, 123);
    CU_ASSERT_EQUAL(cp.res.first.dm, 36.0);
    CU_ASSERT_EQUAL(cp.res.first.a - cp.res.first.b, 1.0);
    CU_ASSERT_EQUAL(cp.res.max_abs, 1.0);
    CU_ASSERT_EQUAL(cp.res.r[0].n_diff, 0);
    CU_ASSERT_EQUAL(cp.res.r[1].n_diff, 1);
    XC_ASSERT_CLOSE(cp.res.rms, sqrt(1.0 / (30 * 988 + 10 * 494)), 1e-15);
    XC_ASSERT_CLOSE(cp.res.max_rel, 1.0 / cp.res.first.b, 1e-15);
    fx_copy_free(&cp);
}

/* Channel 0 (the top channel, delay 0) of trial 5 read one sample late. */
XC_TEST(test_channel_delay, "one channel delayed by one sample")
{
    copied cp;
    memset(&cp.res, 0, sizeof cp.res);
    CU_ASSERT_FATAL(fx_make(&cp.f, 8, "crosscheck", PLAN, 3) == 0);
    CU_ASSERT_FATAL(xc_plane_alloc(&cp.c, &cp.f.job, &cp.err) == XC_OK);
    CU_ASSERT_EQUAL(cp.f.job.delays[0][5 * NCHANS + 0], 0);
    cp.f.job.delays[0][5 * NCHANS + 0] += 1;
    CU_ASSERT_FATAL(xc_dedisperse_reference(&cp.f.job, &cp.c, &cp.err) == XC_OK);
    CU_ASSERT_EQUAL_FATAL(cmp_copy(&cp, NULL), XC_OK);
    /* The sum changes by x[t+1][0] - x[t][0]: exactly where those differ. */
    uint64_t expect = 0;
    for (size_t t = 0; t < cp.f.pl.r[0].nsamp; t++)
        expect += cp.f.u16[(t + 1) * NCHANS] != cp.f.u16[t * NCHANS];
    CU_ASSERT_TRUE(expect > 900);
    CU_ASSERT_FALSE(cp.res.agree);
    CU_ASSERT_EQUAL(cp.res.n_diff, expect);
    CU_ASSERT_EQUAL(cp.res.n_trials_diff, 1);
    CU_ASSERT_EQUAL(cp.res.r[0].n_diff, expect);
    CU_ASSERT_EQUAL(cp.res.r[1].n_diff, 0);
    CU_ASSERT_EQUAL(cp.res.first.range, 0);
    CU_ASSERT_EQUAL(cp.res.first.idm, 5);
    CU_ASSERT_EQUAL(cp.res.worst.idm, 5);
    CU_ASSERT_EQUAL(cp.res.first.dm, 5.0);
    CU_ASSERT_TRUE(cp.res.max_abs <= 255);
    fx_copy_free(&cp);
}

/* The same plan and data under crosscheck's and PRESTO's k_DM (0.014 % apart), both rounded to the nearest
 * sample (SIGPROC's preset truncates: its planes are a sample longer where the largest delay rounds up). */
XC_TEST(test_kdm, "different k_DM")
{
    fixture fs, fp;
    xc_cmpresult res;
    xc_error err;
    CU_ASSERT_FATAL(fx_make(&fs, 8, "crosscheck", PLAN, 4) == 0);
    CU_ASSERT_FATAL(fx_make(&fp, 8, "presto", PLAN, 4) == 0);
    CU_ASSERT_EQUAL_FATAL(cmp(&fp.pl, &fp, &fs, NULL, &res, &err), XC_OK);
    CU_ASSERT_EQUAL(res.cls, XC_CLASS_EXACT);
    CU_ASSERT_FALSE(res.agree);
    CU_ASSERT_TRUE(res.n_diff > 0);
    CU_ASSERT_TRUE(res.n_trials_diff > 0);
    CU_ASSERT_STRING_EQUAL(res.conv_a, "presto");
    CU_ASSERT_STRING_EQUAL(res.conv_b, "crosscheck");
    /* DM 0 has no delays under any k_DM: its trial cannot differ. */
    CU_ASSERT_TRUE(res.first.range > 0 || res.first.idm > 0);
    xc_cmpresult_free(&res);
    fx_free(&fs);
    fx_free(&fp);
}

/* A kernel that accumulated in uint16 would wrap sums of 37 16-bit channels. */
XC_TEST(test_wrapped_sum, "16-bit wrapped sums")
{
    copied cp;
    fx_copy(&cp, 16, 5);
    size_t over = 0;
    for (int k = 0; k < cp.c.nranges; k++)
        for (size_t i = 0; i < cp.c.r[k].ndm * cp.c.r[k].nsamp; i++) {
            over += cp.c.r[k].data[i] > 65535;
            cp.c.r[k].data[i] = (float)fmod(cp.c.r[k].data[i], 65536.0);
        }
    CU_ASSERT_EQUAL(over, total_samples(&cp.c));
    CU_ASSERT_EQUAL_FATAL(cmp_copy(&cp, NULL), XC_OK);
    CU_ASSERT_FALSE(cp.res.agree);
    CU_ASSERT_EQUAL(cp.res.n_diff, over);
    CU_ASSERT_EQUAL(fmod(cp.res.max_abs, 65536.0), 0.0);
    CU_ASSERT_EQUAL(fmod(cp.res.first.b - cp.res.first.a, 65536.0), 0.0);
    fx_copy_free(&cp);
}

XC_TEST(test_mismatch, "different DM trials are refused")
{
    fixture f, g, h, m;
    xc_cmpresult res;
    xc_error err;
    xc_plane c;
    CU_ASSERT_FATAL(fx_make(&f, 8, "crosscheck", PLAN, 6) == 0);
    /* One trial fewer in range 0. */
    CU_ASSERT_FATAL(fx_make(&m, 8, "crosscheck", "0:29:1:1,30:50:2:2", 6) == 0);
    CU_ASSERT_EQUAL(cmp(&m.pl, &m, &f, NULL, &res, &err), XC_EMISMATCH);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "range 0: 29 DM trials in A vs 30 in B"));
    xc_cmpresult_free(&res);
    /* One more trial in range 1: a longer delay, so fewer samples in range 0. */
    CU_ASSERT_FATAL(fx_make(&g, 8, "crosscheck", "0:30:1:1,30:52:2:2", 6) == 0);
    CU_ASSERT_EQUAL(cmp(&g.pl, &g, &f, NULL, &res, &err), XC_EMISMATCH);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "range 0: 946 samples per trial in A vs 988 in B"));
    xc_cmpresult_free(&res);
    /* A different number of ranges. */
    CU_ASSERT_FATAL(fx_make(&h, 8, "crosscheck", "0:30:1:1", 6) == 0);
    CU_ASSERT_EQUAL(cmp(&h.pl, &h, &f, NULL, &res, &err), XC_EMISMATCH);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "1 DM ranges in A vs 2 in B"));
    xc_cmpresult_free(&res);

    /* Same shapes, one DM value off: refused, naming range, trial and both DMs.
     * A shared plan is edited in place and restored. */
    CU_ASSERT_FATAL(plane_copy(&c, &f.pl) == 0);
    xc_dmplan other;
    xc_dmplan_init(&other);
    CU_ASSERT_FATAL(xc_dmplan_parse(&other, PLAN, "test", &err) == XC_OK);
    other.r[0].dms[17] = 17.1;
    xc_cmpside sa = {"A", &c, &f.meta, &other}, sb = {"B", &f.pl, &f.meta, &f.plan};
    CU_ASSERT_EQUAL(xc_compare_planes(&sa, &sb, NULL, &res, &err), XC_EMISMATCH);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "range 0 trial 17: DM 17.1 in A vs 17 in B"));
    xc_cmpresult_free(&res);
    /* Within 1e-9 relative the DMs are the same. */
    other.r[0].dms[17] = 17.0 * (1 + 1e-12);
    CU_ASSERT_EQUAL(xc_compare_planes(&sa, &sb, NULL, &res, &err), XC_OK);
    CU_ASSERT_TRUE(res.agree);
    xc_cmpresult_free(&res);
    /* A side whose plan does not describe its plane is a caller error. */
    sa.plan = &g.plan;
    CU_ASSERT_EQUAL(xc_compare_planes(&sa, &sb, NULL, &res, &err), XC_EINVAL);
    xc_cmpresult_free(&res);
    sa.meta = NULL;
    CU_ASSERT_EQUAL(xc_compare_planes(&sa, &sb, NULL, &res, &err), XC_EINVAL);
    xc_cmpresult_free(&res);
    xc_dmplan_free(&other);
    xc_plane_free(&c);
    fx_free(&f);
    fx_free(&g);
    fx_free(&h);
    fx_free(&m);
}

/* Float input: the class is "bound" with rtol = 37 * ds * 2^-24 per range. */
XC_TEST(test_float_bound, "float planes within and beyond the bound")
{
    copied cp;
    fx_copy(&cp, 32, 7);
    double bound[2];
    for (int k = 0; k < 2; k++) {
        double mb = 0;
        for (size_t i = 0; i < cp.f.pl.r[k].ndm * cp.f.pl.r[k].nsamp; i++)
            mb = fmax(mb, fabs(cp.f.pl.r[k].data[i]));
        bound[k] = NCHANS * cp.f.pl.r[k].ds * ldexp(1.0, -24) * mb;
        /* Half the bound everywhere: float rounding of a + d adds at most
         * half an ulp of max|B|, far below the other half. */
        for (size_t i = 0; i < cp.c.r[k].ndm * cp.c.r[k].nsamp; i++)
            cp.c.r[k].data[i] = (float)(cp.c.r[k].data[i] + 0.5 * bound[k] * (i % 2 ? 1 : -1));
    }
    CU_ASSERT_EQUAL_FATAL(cmp_copy(&cp, NULL), XC_OK);
    CU_ASSERT_EQUAL(cp.res.cls, XC_CLASS_BOUND);
    CU_ASSERT_EQUAL(cp.res.r[0].rtol, 37 * ldexp(1.0, -24));
    CU_ASSERT_EQUAL(cp.res.r[1].rtol, 74 * ldexp(1.0, -24));
    XC_ASSERT_CLOSE(cp.res.r[0].bound, bound[0], 1e-12 * bound[0]);
    XC_ASSERT_CLOSE(cp.res.r[1].bound, bound[1], 1e-12 * bound[1]);
    CU_ASSERT_TRUE(cp.res.n_diff > total_samples(&cp.c) / 2);
    CU_ASSERT_EQUAL(cp.res.n_over, 0);
    CU_ASSERT_TRUE(cp.res.agree);
    xc_cmpresult_free(&cp.res);

    /* One sample of range 1 at twice the bound. */
    cp.c.r[1].data[7 * cp.c.r[1].nsamp + 40] = (float)(cp.f.pl.r[1].data[7 * cp.c.r[1].nsamp + 40] + 2 * bound[1]);
    CU_ASSERT_EQUAL_FATAL(cmp_copy(&cp, NULL), XC_OK);
    CU_ASSERT_FALSE(cp.res.agree);
    CU_ASSERT_EQUAL(cp.res.n_over, 1);
    CU_ASSERT_EQUAL(cp.res.r[1].n_over, 1);
    CU_ASSERT_EQUAL(cp.res.worst.range, 1);
    CU_ASSERT_EQUAL(cp.res.worst.idm, 7);
    CU_ASSERT_EQUAL(cp.res.worst.t, 40);
    xc_cmpresult_free(&cp.res);

    /* A given rtol replaces the default; a large one accepts it again. */
    xc_cmpopts o;
    xc_cmpopts_init(&o);
    o.rtol = 1e-3;
    CU_ASSERT_EQUAL_FATAL(cmp_copy(&cp, &o), XC_OK);
    CU_ASSERT_TRUE(cp.res.agree);
    CU_ASSERT_EQUAL(cp.res.r[0].rtol, 1e-3);
    fx_copy_free(&cp);
}

/* Integer planes with a tolerance given: the class becomes "bound". */
XC_TEST(test_integer_override, "integer planes with a given tolerance")
{
    copied cp;
    xc_cmpopts o;
    fx_copy(&cp, 8, 8);
    cp.c.r[0].data[0] += 2;
    xc_cmpopts_init(&o);
    o.atol = 2;
    CU_ASSERT_EQUAL_FATAL(cmp_copy(&cp, &o), XC_OK);
    CU_ASSERT_EQUAL(cp.res.cls, XC_CLASS_BOUND);
    CU_ASSERT_EQUAL(cp.res.n_diff, 1);
    /* bound = 37 * 2^-24 * max|B| + 2, and 2 <= bound */
    CU_ASSERT_EQUAL(cp.res.n_over, 0);
    CU_ASSERT_TRUE(cp.res.agree);
    xc_cmpresult_free(&cp.res);
    o.atol = 0;
    o.rtol = 0;
    CU_ASSERT_EQUAL_FATAL(cmp_copy(&cp, &o), XC_OK);
    CU_ASSERT_EQUAL(cp.res.n_over, 1);
    CU_ASSERT_FALSE(cp.res.agree);
    fx_copy_free(&cp);
}

/* 100 (a - b) / max|b| along the trial nearest the DM asked for. */
XC_TEST(test_percentage, "percentage difference at a DM")
{
    copied cp;
    xc_cmpopts o;
    fx_copy(&cp, 8, 9);
    size_t ns = cp.c.r[0].nsamp;
    float *row = cp.c.r[0].data + 12 * ns;
    row[10] += 3;
    row[20] -= 5;
    double mb = 0;
    for (size_t t = 0; t < ns; t++)
        mb = fmax(mb, fabs(cp.f.pl.r[0].data[12 * ns + t]));
    xc_cmpopts_init(&o);
    o.dm = 12.3;
    CU_ASSERT_EQUAL_FATAL(cmp_copy(&cp, &o), XC_OK);
    CU_ASSERT_TRUE(cp.res.has_dm);
    CU_ASSERT_EQUAL(cp.res.dmrow.range, 0);
    CU_ASSERT_EQUAL(cp.res.dmrow.idm, 12);
    CU_ASSERT_EQUAL(cp.res.dmrow.dm, 12.0);
    CU_ASSERT_EQUAL(cp.res.dm_max_abs_b, mb);
    double pmax = 500.0 / mb, prms = 100.0 * sqrt((9.0 + 25.0) / (double)ns) / mb;
    XC_ASSERT_CLOSE(cp.res.pct_max, pmax, 1e-12 * pmax);
    XC_ASSERT_CLOSE(cp.res.pct_rms, prms, 1e-12 * prms);
    xc_cmpresult_free(&cp.res);
    /* A DM in range 1 (ds 2) picks the nearest trial there. */
    o.dm = 44.9;
    CU_ASSERT_EQUAL_FATAL(cmp_copy(&cp, &o), XC_OK);
    CU_ASSERT_EQUAL(cp.res.dmrow.range, 1);
    CU_ASSERT_EQUAL(cp.res.dmrow.idm, 7);
    CU_ASSERT_EQUAL(cp.res.pct_max, 0);
    fx_copy_free(&cp);
}

/* Integer input is judged bit for bit, not by the float bound: 16-bit data
 * of 37 channels sum to ~1.2e6, where the float bound N 2^-24 max|B| is
 * several counts, so one count off in one sample is inside that bound (the
 * comparator, given that rtol, agrees) and must still fail the exact class
 * with the one sample counted over. */
XC_TEST(test_exact_one_count, "integer input: one count off fails though the float bound holds it")
{
    copied cp;
    one_count_up(&cp, 16, 12, 0, 7, 300);
    CU_ASSERT_EQUAL(cp.res.cls, XC_CLASS_EXACT);
    CU_ASSERT_FALSE(cp.res.agree);
    CU_ASSERT_EQUAL(cp.res.n_over, 1);
    CU_ASSERT_EQUAL(cp.res.r[0].n_over, 1);
    XC_ASSERT_NEAR(cp.res.max_abs, 1.0, 0);
    xc_cmpresult_free(&cp.res);
    xc_cmpopts o;
    xc_cmpopts_init(&o);
    o.rtol = NCHANS * ldexp(1.0, -24);    /* the float class's default for range 0 */
    CU_ASSERT_EQUAL_FATAL(cmp_copy(&cp, &o), XC_OK);
    CU_ASSERT_EQUAL(cp.res.cls, XC_CLASS_BOUND);
    XC_ASSERT_ABOVE(cp.res.r[0].bound, 1.0);
    CU_ASSERT_TRUE(cp.res.agree);
    fx_copy_free(&cp);
}

/* Written with xc_plane_write, read back with xc_planefile_read. */
XC_TEST(test_files, "planes through files")
{
    copied cp;
    char pa[512], pb[512], ja[520], jb[520];
    fx_copy(&cp, 8, 10);
    cp.c.r[0].data[20 * cp.c.r[0].nsamp + 500] -= 1;
    snprintf(pa, sizeof pa, "%s/cand", xc_test_tmpdir());
    snprintf(pb, sizeof pb, "%s/ref", xc_test_tmpdir());
    snprintf(ja, sizeof ja, "%s.json", pa);
    snprintf(jb, sizeof jb, "%s.json", pb);
    CU_ASSERT_EQUAL_FATAL(xc_plane_write(pa, &cp.c, &cp.f.plan, &cp.f.meta, &cp.err), XC_OK);
    CU_ASSERT_EQUAL_FATAL(xc_plane_write(pb, &cp.f.pl, &cp.f.plan, &cp.f.meta, &cp.err), XC_OK);
    xc_planefile a, b;
    CU_ASSERT_EQUAL_FATAL(xc_planefile_read(&a, ja, &cp.err), XC_OK);
    CU_ASSERT_EQUAL_FATAL(xc_planefile_read(&b, jb, &cp.err), XC_OK);
    xc_cmpside sa = {ja, &a.plane, &a.meta, &a.plan}, sb = {jb, &b.plane, &b.meta, &b.plan};
    CU_ASSERT_EQUAL_FATAL(xc_compare_planes(&sa, &sb, NULL, &cp.res, &cp.err), XC_OK);
    CU_ASSERT_EQUAL(cp.res.cls, XC_CLASS_EXACT);
    CU_ASSERT_FALSE(cp.res.agree);
    CU_ASSERT_EQUAL(cp.res.n_diff, 1);
    CU_ASSERT_EQUAL(cp.res.first.range, 0);
    CU_ASSERT_EQUAL(cp.res.first.idm, 20);
    CU_ASSERT_EQUAL(cp.res.first.t, 500);
    CU_ASSERT_STRING_EQUAL(cp.res.name_a, ja);

    /* The text and JSON forms carry the same numbers. */
    char *txt = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&txt, &len);
    CU_ASSERT_FATAL(mem != NULL);
    CU_ASSERT_EQUAL(xc_cmpresult_print(&cp.res, mem, &cp.err), XC_OK);
    fclose(mem);
    CU_ASSERT_PTR_NOT_NULL(strstr(txt, "first difference: range 0, trial 20 (DM 20), t 500"));
    CU_ASSERT_PTR_NOT_NULL(strstr(txt, "verdict: DISAGREE (exact): 1 of 34580 samples differ"));
    free(txt);
    json_t *o = json_object();
    CU_ASSERT_EQUAL(xc_cmpresult_json(&cp.res, o, &cp.err), XC_OK);
    CU_ASSERT_EQUAL(json_integer_value(json_object_get(o, "n_diff")), 1);
    CU_ASSERT_TRUE(json_is_false(json_object_get(o, "agree")));
    CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(o, "class")), "exact");
    CU_ASSERT_EQUAL(json_integer_value(json_object_get(json_object_get(o, "first_diff"), "t")), 500);
    json_decref(o);
    xc_cmpresult_free(&cp.res);

    CU_ASSERT_EQUAL_FATAL(xc_compare_planes(&sb, &sb, NULL, &cp.res, &cp.err), XC_OK);
    CU_ASSERT_TRUE(cp.res.agree);
    xc_cmpresult_free(&cp.res);
    xc_planefile_free(&a);
    xc_planefile_free(&b);
    fx_copy_free(&cp);
}

XC_TEST_MAIN("compare")

/* ---- the peak of a multi-range plane, and how a trial differs ------------- */

/* Two ranges: range 0 (ds 1) 4 trials x 64 samples of 100 + t % 4, a pulse
 * of height h0 at trial 2, sample 20; range 1 (ds 2) 4 trials x 32 samples,
 * its sums of two: 200 + 2 (t % 4), a bump of h1 at trial 1, sample 9. */
typedef struct {
    float d0[4 * 64], d1[4 * 32];
    double dm0[4], dm1[4];
    xc_planerange r[2];
    xc_plane pl;
    xc_dmrange pr[2];
    xc_dmplan plan;
    xc_planemeta meta;
    xc_cmpside side;
} twoplane;

static void twoplane_make(twoplane *p, float h0, float h1)
{
    memset(p, 0, sizeof *p);
    for (size_t i = 0; i < 4 * 64; i++)
        p->d0[i] = 100.0f + (float)(i % 4);
    for (size_t i = 0; i < 4 * 32; i++)
        p->d1[i] = 200.0f + 2.0f * (float)(i % 4);
    p->d0[2 * 64 + 20] += h0;
    p->d1[1 * 32 + 9] += h1;
    for (int j = 0; j < 4; j++) {
        p->dm0[j] = 10.0 * j;
        p->dm1[j] = 40.0 + 20.0 * j;
    }
    p->r[0] = (xc_planerange){1, 4, 64, p->d0};
    p->r[1] = (xc_planerange){2, 4, 32, p->d1};
    p->pl = (xc_plane){2, p->r};
    p->pr[0] = (xc_dmrange){0, 40, 10, 1, 4, p->dm0};
    p->pr[1] = (xc_dmrange){40, 120, 20, 2, 4, p->dm1};
    p->plan.nranges = 2;
    p->plan.r = p->pr;
    p->meta.nbits = 8;
    p->meta.nchans = p->meta.nchans_used = 16;
    p->side = (xc_cmpside){"two", &p->pl, &p->meta, &p->plan};
}

/* S/N of a row's largest sample against the row's mean and deviation. */
static double row_snr(const float *x, size_t n)
{
    double m = 0, v = 0, mx = x[0];
    for (size_t t = 0; t < n; t++) {
        m += x[t];
        mx = fmax(mx, x[t]);
    }
    m /= (double)n;
    for (size_t t = 0; t < n; t++)
        v += (x[t] - m) * (x[t] - m);
    return (mx - m) / sqrt(v / (double)n);
}

XC_TEST(test_peak_by_snr, "a multi-range plane's peak is the trial of highest S/N, not the largest raw value")
{
    twoplane p;
    xc_cmpresult res;
    xc_error err;
    /* at the edge: the pulse (S/N 4.68) beats the downsampled range's bump
     * (S/N 4.61), though the bump's raw 222 is far above the pulse's 108 */
    twoplane_make(&p, 8.0f, 20.0f);
    double s0 = row_snr(p.d0 + 2 * 64, 64), s1 = row_snr(p.d1 + 32, 32);
    CU_ASSERT_EQUAL_FATAL(xc_compare_planes(&p.side, &p.side, NULL, &res, &err), XC_OK);
    CU_ASSERT_TRUE(s0 > s1);
    CU_ASSERT_EQUAL(res.peak_b.range, 0);
    CU_ASSERT_EQUAL(res.peak_b.idm, 2);
    CU_ASSERT_EQUAL(res.peak_b.t, 20);
    XC_ASSERT_NEAR(res.peak_b.dm, 20, 0);
    XC_ASSERT_NEAR(res.peak_b.value, 108, 0);
    XC_ASSERT_CLOSE(res.peak_b.snr, s0, 1e-12 * s0);
    /* without -dm the percentage row is the peak's trial */
    CU_ASSERT_EQUAL(res.dmrow.range, 0);
    CU_ASSERT_EQUAL(res.dmrow.idm, 2);
    xc_cmpresult_free(&res);
    /* just past the edge: the pulse one count lower (S/N 4.16), the bump wins */
    twoplane_make(&p, 7.0f, 20.0f);
    s0 = row_snr(p.d0 + 2 * 64, 64);
    s1 = row_snr(p.d1 + 32, 32);
    CU_ASSERT_EQUAL_FATAL(xc_compare_planes(&p.side, &p.side, NULL, &res, &err), XC_OK);
    CU_ASSERT_TRUE(s1 > s0);
    CU_ASSERT_EQUAL(res.peak_b.range, 1);
    CU_ASSERT_EQUAL(res.peak_b.idm, 1);
    CU_ASSERT_EQUAL(res.peak_b.t, 9);
    XC_ASSERT_CLOSE(res.peak_b.snr, s1, 1e-12 * s1);
    xc_cmpresult_free(&res);
}

XC_TEST(test_describe_row, "a differing trial described: shift by s samples (8 found, 9 not), scale, amplitude")
{
    enum { N = 64 };
    float b[N], a[N];
    char out[400];
    for (int t = 0; t < N; t++)
        b[t] = (float)((t * 37) % 23);
    /* one sample late: a[t] = b[t - 1] */
    for (int t = 1; t < N; t++)
        a[t] = b[t - 1];
    a[0] = 99;
    xc_cmp_describe_row(a, b, N, 0, 8, out, sizeof out);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "shifted by 1 sample: output sample t is reference sample t-1 (its features "
                                       "come 1 sample late)"));
    /* 8 samples early: found with maxshift 8, not with 7 */
    for (int t = 0; t + 8 < N; t++)
        a[t] = b[t + 8];
    xc_cmp_describe_row(a, b, N, 0, 8, out, sizeof out);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "shifted by 8 samples: output sample t is reference sample t+8"));
    xc_cmp_describe_row(a, b, N, 0, 7, out, sizeof out);
    CU_ASSERT_PTR_NULL(strstr(out, "shifted"));
    /* within the tolerance the shift is still one; a difference above it is not */
    for (int t = 1; t < N; t++)
        a[t] = b[t - 1] + 0.25f;
    xc_cmp_describe_row(a, b, N, 0.25, 8, out, sizeof out);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "shifted by 1 sample"));
    xc_cmp_describe_row(a, b, N, 0.24, 8, out, sizeof out);
    CU_ASSERT_PTR_NULL(strstr(out, "shifted"));
    /* scaled by 0.5: the ratio named */
    for (int t = 0; t < N; t++)
        a[t] = 0.5f * b[t];
    xc_cmp_describe_row(a, b, N, 0, 8, out, sizeof out);
    CU_ASSERT_STRING_EQUAL(out, "the reference's series times 0.5 (amplitude ratio 0.5)");
    /* otherwise different, with the largest value 2 % high: the ratio of the maxima */
    for (int t = 0; t < N; t++)
        a[t] = b[t] + (float)(t % 3);
    xc_cmp_describe_row(a, b, N, 0, 8, out, sizeof out);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "amplitude ratio max|output| / max|reference| 1.0"));
}
