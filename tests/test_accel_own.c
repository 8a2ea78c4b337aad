/* test_accel_own.c: core's side of a searcher that sums harmonics itself
 * (the searcher's optional `search`, core/search/xc_accel.h; the CUDA searcher's
 * path), tested without a device.  A stand-in searcher implements `search`
 * on the host as the header states it (the CPU searcher's planes in blocks
 * of its own size, sub-harmonics at (long)(i h/H + 0.5), double sums, every
 * point above p->thr[s] emitted, in reverse order to show the order does not
 * matter); its candidate lists must equal the CPU searcher's through core's
 * own sums.  Planted failures: a searcher that drops the last stage's points
 * must be caught by the same comparison, and one that hands back a point
 * outside the search must get an error naming it.  The CPU searcher's own
 * sums and its rows method are held to core's host sums bit for bit. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare/conform/xc_conform_accel.h"
#include "core/search/xc_accel.h"
#include "optimized/cpu/xc_accel_cpu.h"
#include "tests/xc_assert.h"
#include "tests/xc_fixture.h"
#include "tests/xc_test.h"

/* How the stand-in misbehaves. */
enum { OWN_RIGHT, OWN_DROP_LAST_STAGE, OWN_OUTSIDE };

typedef struct {
    void *cpu;
} own_state;

static xc_status own_create(const xc_accel_searcher *self, const xc_accel_plan *p, void **state, xc_error *err)
{
    (void)self;
    own_state *s = calloc(1, sizeof *s);
    if (!s)
        return xc_error_set(err, XC_ENOMEM, "own: out of memory");
    xc_status st = xc_accel_cpu.create(&xc_accel_cpu, p, &s->cpu, err);
    if (st) {
        free(s);
        return st;
    }
    *state = s;
    return XC_OK;
}

static xc_status own_plane(const xc_accel_searcher *self, void *state, const xc_accel_plan *p,
                           const xc_accel_block *b, xc_error *err)
{
    (void)self;
    return xc_accel_cpu.plane(&xc_accel_cpu, ((own_state *)state)->cpu, p, b, err);
}

static void own_destroy(const xc_accel_searcher *self, void *state)
{
    (void)self;
    own_state *s = state;
    if (s)
        xc_accel_cpu.destroy(&xc_accel_cpu, s->cpu);
    free(s);
}

/* The plane of half-bin indices [i0, i0 + nr) for every template into out,
 * from amp (every bin; zero outside [0, nbins)). */
static xc_status plane_of(own_state *s, const xc_accel_plan *p, const double *amp, size_t nbins, long i0, size_t nr,
                          float *out, xc_error *err)
{
    long klo = i0 / 2 - p->hwmax - 1, khi = (i0 + (long)nr) / 2 + p->hwmax + 1;
    size_t n = (size_t)(khi - klo + 1);
    double *a = calloc(2 * n, sizeof *a);
    if (!a)
        return xc_error_set(err, XC_ENOMEM, "own: out of memory");
    for (long k = klo; k <= khi; k++)
        if (k >= 0 && (size_t)k < nbins) {
            a[2 * (k - klo)] = amp[2 * k];
            a[2 * (k - klo) + 1] = amp[2 * k + 1];
        }
    xc_accel_block b = {klo, n, a, i0, nr, out, NULL};
    xc_status st = xc_accel_cpu.plane(&xc_accel_cpu, s->cpu, p, &b, err);
    free(a);
    return st;
}

/* The searcher's own search; the variant (OWN_*) is the descriptor's data. */
static xc_status own_search(const xc_accel_searcher *self, void *state, const xc_accel_plan *p, const double *amp,
                            size_t nbins, long ilo, long iend, xc_accel_emit_fn emit, void *ctx, xc_error *err)
{
    const int mode = *(const int *)self->impl.data;
    own_state *s = state;
    const long B = 777;   /* blocks of no particular size: their edges fall anywhere */
    const int nt = p->ntempl;
    float *top = malloc((size_t)nt * B * sizeof *top);
    float *sub = malloc((size_t)nt * (B + 2) * sizeof *sub);
    double *sum = malloc((size_t)nt * B * sizeof *sum);
    xc_accel_hit *hits = NULL;
    size_t nh = 0, cap = 0;
    xc_status st = top && sub && sum ? XC_OK : xc_error_set(err, XC_ENOMEM, "own: out of memory");
    for (long i0 = ilo; i0 < iend && !st; i0 += B) {
        long nr = iend - i0 < B ? iend - i0 : B;
        st = plane_of(s, p, amp, nbins, i0, (size_t)nr, top, err);
        for (size_t k = 0; !st && k < (size_t)nt * (size_t)nr; k++)
            sum[k] = top[k];
        for (int sg = 0; sg < p->nstages && !st; sg++) {
            int H = 1 << sg;
            for (int h = 1; sg > 0 && h < H && !st; h += 2) {
                double frac = (double)h / H;
                long lo = (long)((double)i0 * frac + 0.5), hi = (long)((double)(i0 + nr - 1) * frac + 0.5);
                long sn = hi - lo + 1;
                st = plane_of(s, p, amp, nbins, lo, (size_t)sn, sub, err);
                for (int t = 0; t < nt && !st; t++) {
                    int sw = xc_accel_required_w(frac, xc_accel_w_of(p, t / p->numz));
                    int sz = xc_accel_required_z(frac, xc_accel_z_of(p, t % p->numz));
                    int ts = (sw + p->wmax) / XC_ACCEL_DW * p->numz + (sz + p->zmax) / XC_ACCEL_DZ;
                    for (long j = 0; j < nr; j++)
                        sum[(size_t)t * nr + j] += sub[(size_t)ts * sn + ((long)((double)(i0 + j) * frac + 0.5) - lo)];
                }
            }
            if (mode == OWN_DROP_LAST_STAGE && sg == p->nstages - 1 && sg > 0)
                continue;
            for (int t = 0; t < nt && !st; t++)
                for (long j = 0; j < nr && !st; j++) {
                    double v = sum[(size_t)t * nr + j];
                    if (!(v > p->thr[sg]))
                        continue;
                    if (nh == cap) {
                        size_t nc = cap ? 2 * cap : 256;
                        xc_accel_hit *g = realloc(hits, nc * sizeof *g);
                        if (!g) {
                            st = xc_error_set(err, XC_ENOMEM, "own: out of memory");
                            break;
                        }
                        hits = g;
                        cap = nc;
                    }
                    hits[nh++] = (xc_accel_hit){i0 + j, t, sg, v};
                }
        }
    }
    if (!st && mode == OWN_OUTSIDE) {
        xc_accel_hit bad = {iend + 3, 0, 0, 1e9};
        st = emit(ctx, &bad, 1, err);
    }
    /* in reverse: core's selection must not depend on the order */
    for (size_t k = nh; k > 0 && !st; k--)
        st = emit(ctx, &hits[k - 1], 1, err);
    free(hits);
    free(top);
    free(sub);
    free(sum);
    return st;
}

static const int mode_right = OWN_RIGHT, mode_drop = OWN_DROP_LAST_STAGE, mode_outside = OWN_OUTSIDE;

#define OWN_SEARCHER(NAME, MODE)                                                                          \
    static const xc_accel_searcher NAME = {                                                               \
        .impl = {.family = XC_FAMILY_ACCEL,                                                               \
                 .name = #NAME,                                                                           \
                 .desc = "test stand-in: the CPU planes, harmonic sums in the searcher",                  \
                 .tol = {XC_TOL_RELATIVE, 2e-3},                                                          \
                 .data = &MODE},                                                                          \
        .create = own_create,                                                                             \
        .plane = own_plane,                                                                               \
        .destroy = own_destroy,                                                                           \
        .search = own_search};

OWN_SEARCHER(own, mode_right)
OWN_SEARCHER(own_drop, mode_drop)
OWN_SEARCHER(own_outside, mode_outside)

/* Same r, z, w, numharm in the same order; power and sigma within rtol. */
static int same_lists(const xc_candlist *a, const xc_candlist *b, double rtol, double *worst)
{
    int ok = a->n == b->n;
    if (!ok)
        printf("\n  %zu against %zu candidates", a->n, b->n);
    for (size_t i = 0; i < a->n && i < b->n; i++) {
        const xc_cand *x = &a->c[i], *y = &b->c[i];
        double dp = fabs(x->power - y->power) / y->power, ds = fabs(x->sigma - y->sigma) / fmax(y->sigma, 1);
        if (x->r != y->r || x->z != y->z || x->w != y->w || x->numharm != y->numharm || dp > rtol || ds > rtol) {
            if (ok)
                printf("\n  #%zu: observed r %.1f z %g w %g h %d P %.7g, expected r %.1f z %g w %g h %d P %.7g "
                       "(tolerance %.0e)",
                       i, x->r, x->z, x->w, x->numharm, x->power, y->r, y->z, y->w, y->numharm, y->power, rtol);
            ok = 0;
        }
        *worst = fmax(*worst, fmax(dp, ds));
    }
    return ok;
}

/* Tones on noise; zmax 0/20, wmax 0/40, numharm 1/2/4/8: the stand-in's
 * lists equal the CPU searcher's within 1e-5 (both sum the same float
 * planes in double; only the segments' float rounding differs, ~1e-7). */
XC_TEST(test_own_sums_match_core, "own_sums_match_core")
{
    static const double tones[][3] = {{701.3, 6, 60}, {1511.65, -13, 45}, {2333.0, 0, 25}, {3997.4, 17, 20}};
    static const int cfg[][3] = {{0, 0, 1}, {0, 0, 4}, {20, 0, 2}, {20, 0, 8}, {20, 40, 2}};
    const double rtol = 1e-5;
    double worst = 0;
    for (size_t c = 0; c < sizeof cfg / sizeof *cfg; c++) {
        xc_spectrum sp;
        xc_error err;
        CU_ASSERT_EQUAL_FATAL(xc_conform_tone_spectrum(&sp, 4099 + 904 * c, 31 + (uint64_t)c, tones, 4, &err), XC_OK);
        xc_accel_opts o = xc_fx_accel_opts(cfg[c][0], cfg[c][1], cfg[c][2], 2);
        o.rlo = 20;
        o.sigma = 3;
        o.normwidth = 500;
        xc_candlist a, b;
        xc_fx_accel_or_fail(&own, &sp, &o, &a);
        xc_fx_accel_or_fail(&xc_accel_cpu, &sp, &o, &b);
        int ok = same_lists(&a, &b, rtol, &worst);
        if (!ok)
            printf("\n  differ: zmax %d wmax %d numharm %d", o.zmax, o.wmax, o.numharm);
        CU_ASSERT(ok);
        CU_ASSERT(b.n >= 3);
        xc_candlist_free(&a);
        xc_candlist_free(&b);
        xc_spectrum_free(&sp);
    }
    printf("\n  own sums vs core's: largest relative power/sigma difference %.2e (tolerance %.0e)", worst, rtol);
}

/* Planted: a searcher that loses its last stage's points gives a different
 * list (the comparison above can fail); one that hands back a point outside
 * the search gets XC_EINVAL naming the index. */
XC_TEST(test_own_sums_planted, "own_sums_planted")
{
    static const double tones[][3] = {{701.3, 0, 20}, {1402.6, 0, 20}, {2103.9, 0, 20}, {2805.2, 0, 20}};
    xc_spectrum sp;
    xc_error err;
    CU_ASSERT_EQUAL_FATAL(xc_conform_tone_spectrum(&sp, 5003, 77, tones, 4, &err), XC_OK);
    xc_accel_opts o = xc_fx_accel_opts(0, 0, 4, 1);
    o.rlo = 20;
    o.sigma = 3;
    xc_candlist a, b;
    xc_fx_accel_or_fail(&own_drop, &sp, &o, &a);
    xc_fx_accel_or_fail(&xc_accel_cpu, &sp, &o, &b);
    double worst = 0;
    int four = 0;
    for (size_t i = 0; i < b.n; i++)
        four += b.c[i].numharm == 4;
    printf("\n  planted (4-harmonic points dropped): %zu against %zu candidates, %d of them 4-harmonic", a.n, b.n,
           four);
    CU_ASSERT(four > 0);
    CU_ASSERT(!same_lists(&a, &b, 1e-5, &worst));
    xc_candlist_free(&a);
    xc_candlist_free(&b);

    xc_candlist c;
    xc_candlist_init(&c);
    xc_status st = xc_accel_run(&own_outside, &sp, &o, &c, &err);
    printf("\n  planted (point outside): status %d: %s", (int)st, st ? err.msg : "");
    CU_ASSERT_EQUAL(st, XC_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "outside the search"));
    xc_candlist_free(&c);
    xc_spectrum_free(&sp);
}

/* cfg {zmax, wmax, numharm, bins, threads}: the searcher `mine` and `host` on
 * sp with o give the same candidates to the last bit (tolerance 0), at least
 * three; what heads the line printed. */
static void same_bytes_or_fail(const xc_accel_searcher *mine, const xc_accel_searcher *host, const xc_spectrum *sp,
                               const xc_accel_opts *o, const char *what, const int *cfg)
{
    xc_candlist a, b;
    xc_fx_accel_or_fail(mine, sp, o, &a);
    xc_fx_accel_or_fail(host, sp, o, &b);
    int same = a.n == b.n && !memcmp(a.c, b.c, a.n * sizeof *a.c);
    double worst = 0;
    same_lists(&a, &b, 0, &worst);
    printf("\n  %szmax %d wmax %d numharm %d, %d bins, %d thread(s): %zu and %zu candidates, %s (largest relative "
           "difference %.2e, tolerance 0)",
           what, cfg[0], cfg[1], cfg[2], cfg[3], cfg[4], a.n, b.n, same ? "same bytes" : "DIFFERENT", worst);
    CU_ASSERT(same);
    CU_ASSERT(b.n >= 3);
    xc_candlist_free(&a);
    xc_candlist_free(&b);
}

/* The CPU searcher's own sums (optimized/cpu/accel_cpu_sums.c) against core's
 * host sums over the same searcher's planes (its descriptor without
 * `search_amps`, which reads the amplitudes a segment at a time from the
 * blocks' scales; core's host path multiplies per-bin scales into an array):
 * the same candidates to the last bit (tolerance 0: the own sums
 * rebuild core's blocks, segments and order), at 1 and 2 threads; the
 * 20011-bin spectrum at zmax 200 spans two of preset exact's blocks (20866
 * half-bins) and their sub-harmonic blocks. */
XC_TEST(test_cpu_sums_same_bytes, "cpu_sums_same_bytes")
{
    static const double tones[][3] = {{701.3, 6, 60}, {1511.65, -13, 45}, {2333.0, 0, 25}, {3997.4, 17, 20}};
    static const int cfg[][5] = {{0, 0, 1, 4099, 1}, {20, 0, 16, 5003, 2}, {20, 40, 4, 4099, 2},
                                 {200, 0, 8, 20011, 2}, {200, 0, 8, 20011, 1}};
    xc_accel_searcher host = xc_accel_cpu;
    host.search = NULL;
    host.search_amps = NULL;
    CU_ASSERT_PTR_NOT_NULL_FATAL(xc_accel_cpu.search_amps);
    for (size_t c = 0; c < sizeof cfg / sizeof *cfg; c++) {
        xc_spectrum sp;
        xc_error err;
        CU_ASSERT_EQUAL_FATAL(xc_conform_tone_spectrum(&sp, (size_t)cfg[c][3], 41 + (uint64_t)c, tones, 4, &err),
                              XC_OK);
        xc_accel_opts o = xc_fx_accel_opts(cfg[c][0], cfg[c][1], cfg[c][2], cfg[c][4]);
        o.rlo = 20;
        o.sigma = 2;
        same_bytes_or_fail(&xc_accel_cpu, &host, &sp, &o, "", cfg[c]);
        xc_spectrum_free(&sp);
    }
}

/* The CPU searcher's rows method (optimized/cpu/accel_cpu_rows.c: preset
 * presto out of core, a few top blocks' rows and their sub-harmonic blocks'
 * made template by template into core's sums) against core's sums over the
 * planes of the same searcher without it: the same candidates to the last
 * bit (tolerance 0), at 1 and 2 threads, 2 to 8 harmonics, with w, and
 * with a last round of fewer top blocks than a full one. */
XC_TEST(test_cpu_rows_same_bytes, "cpu_rows_same_bytes")
{
    static const double tones[][3] = {{701.3, 6, 60}, {1511.65, -13, 45}, {2333.0, 0, 25}, {3997.4, 17, 20}};
    static const int cfg[][5] = {{30, 0, 8, 20011, 1}, {30, 0, 8, 20011, 2}, {200, 0, 4, 9001, 2},
                                 {20, 40, 4, 5003, 2}, {200, 0, 2, 7919, 1}};
    xc_accel_searcher host = xc_accel_cpu;
    host.rows = NULL;
    CU_ASSERT_PTR_NOT_NULL_FATAL(xc_accel_cpu.rows);
    for (size_t c = 0; c < sizeof cfg / sizeof *cfg; c++) {
        xc_spectrum sp;
        xc_error err;
        CU_ASSERT_EQUAL_FATAL(xc_conform_tone_spectrum(&sp, (size_t)cfg[c][3], 77 + (uint64_t)c, tones, 4, &err),
                              XC_OK);
        xc_accel_opts o = xc_fx_accel_opts(cfg[c][0], cfg[c][1], cfg[c][2], cfg[c][4]);
        o.rlo = 20;
        o.sigma = 1.5;
        o.preset = XC_ACCEL_PRESTO;
        o.outofcore = 1;
        same_bytes_or_fail(&xc_accel_cpu, &host, &sp, &o, "presto out of core, ", cfg[c]);
        xc_spectrum_free(&sp);
    }
}

XC_TEST_MAIN("accel_own")
