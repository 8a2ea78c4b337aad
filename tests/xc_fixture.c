/* xc_fixture.c: see xc_fixture.h. */
#ifdef XC_HAVE_CUDA
#include "core/base/xc_nbits.h"
#include "optimized/gpu/xc_gpu.h"
#endif
#include "core/io/xc_filterbank.h"
#include "optimized/cpu/xc_cpu.h"
#include "reference/xc_reference.h"
#include "tests/xc_fixture.h"

#include <dirent.h>
#include <fftw3.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "tests/xc_assert.h"
#include "tests/xc_test.h"

void xc_fx_assert_fields_at(const char *names, const double *got, const double *want, size_t n, const char *file,
                            unsigned line)
{
    const char *name = names;
    for (size_t i = 0; i < n; i++) {
        size_t len = strcspn(name, " ");
        char msg[256];
        snprintf(msg, sizeof msg, "%.*s = %.17g, expected %.17g", (int)len, name, got[i], want[i]);
        CU_assertImplementation(got[i] == want[i] ? CU_TRUE : CU_FALSE, line, msg, file, "", CU_FALSE);
        name += len + (name[len] == ' ');
    }
}

/* ---- a filterbank block and its dedispersion job --------------------------- */

uint64_t xc_fx_rng_next(uint64_t *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * 2685821657736338717ull;
}

void xc_fx_init(xc_fixture *f, int nchans, int nbits, double fch1, double foff, double tsamp, const char *plan,
                const char *preset, size_t nout)
{
    memset(f, 0, sizeof *f);
    xc_error err;
    f->g = (xc_geometry){nchans, fch1, foff, tsamp};
    f->cv = xc_convention_get(preset);
    CU_ASSERT_PTR_NOT_NULL_FATAL(f->cv);
    CU_ASSERT_EQUAL_FATAL(xc_dmplan_parse(&f->plan, plan, "test", &err), XC_OK);
    int64_t maxd = 0;
    CU_ASSERT_EQUAL_FATAL(xc_dmplan_max_delay(f->cv, &f->g, &f->plan, &maxd, &err), XC_OK);
    size_t nsamp = (size_t)maxd + nout;
    f->blk = (xc_block){nchans, nsamp, nbits, NULL, NULL};
    if (xc_nbits_is_float(nbits)) {
        f->f32 = calloc(nsamp * (size_t)nchans, sizeof(float));
        f->blk.f32 = f->f32;
    } else {
        f->u16 = calloc(nsamp * (size_t)nchans, sizeof(uint16_t));
        f->blk.u16 = f->u16;
    }
    CU_ASSERT_FATAL(f->u16 || f->f32);
}

void xc_fx_random(xc_fixture *f, uint64_t seed)
{
    uint64_t s = seed * 0x9E3779B97F4A7C15ull + 1;
    size_t n = f->blk.nsamp * (size_t)f->blk.nchans;
    for (size_t i = 0; i < n; i++) {
        uint64_t r = xc_fx_rng_next(&s);
        if (xc_nbits_is_float(f->blk.nbits))
            f->f32[i] = (float)((double)(r >> 11) * 0x1.0p-53 * 100.0);
        else
            f->u16[i] = (uint16_t)(r >> (64 - f->blk.nbits));
    }
}

void xc_fx_fill(xc_fixture *f, uint16_t v)
{
    for (size_t i = 0; i < f->blk.nsamp * (size_t)f->blk.nchans; i++)
        f->u16[i] = v;
}

void xc_fx_job(xc_fixture *f, const uint8_t *mask)
{
    xc_error err;
    xc_status st = xc_ddjob_init(&f->job, &f->blk, &f->plan, f->cv, &f->g, mask, &err);
    if (st)
        printf("xc_ddjob_init: %s\n", err.msg);
    CU_ASSERT_EQUAL_FATAL(st, XC_OK);
    f->ok = 1;
}

void xc_fx_random_job(xc_fixture *f, int nchans, int nbits, double fch1, double foff, double tsamp, const char *plan,
                      const char *preset, size_t nout, uint64_t seed)
{
    xc_fx_init(f, nchans, nbits, fch1, foff, tsamp, plan, preset, nout);
    xc_fx_random(f, seed);
    xc_fx_job(f, NULL);
}

void xc_fx_free(xc_fixture *f)
{
    if (f->ok)
        xc_ddjob_free(&f->job);
    xc_dmplan_free(&f->plan);
    free(f->u16);
    free(f->f32);
    free(f->mask);
}

void xc_fx_write_fil(const xc_fixture *f, const char *path)
{
    CU_ASSERT_PTR_NOT_NULL_FATAL(f->u16);
    xc_fx_write_fil_u16(path, &f->g, f->blk.nbits, f->u16, f->blk.nsamp);
}

void xc_fx_write_fil_u16(const char *path, const xc_geometry *g, int nbits, const uint16_t *v, size_t nsamp)
{
    xc_fbheader h;
    xc_fbheader_init(&h);
    h.nbits = nbits, h.nchans = g->nchans, h.nifs = 1, h.fch1 = g->fch1, h.foff = g->foff;
    h.tsamp = g->tsamp, h.tstart = 60000;
    static const xc_fbkey keys[] = {XC_FB_DATA_TYPE, XC_FB_FCH1, XC_FB_FOFF, XC_FB_NCHANS,
                                    XC_FB_NBITS, XC_FB_TSTART, XC_FB_TSAMP, XC_FB_NIFS};
    for (size_t i = 0; i < sizeof keys / sizeof *keys; i++)
        xc_fbheader_set(&h, keys[i]);
    xc_fbwriter *w;
    xc_error err;
    CU_ASSERT_EQUAL_FATAL(xc_fbwriter_open(&w, path, &h, XC_BITORDER_LSB, &err), XC_OK);
    CU_ASSERT_EQUAL_FATAL(xc_fbwriter_write_u16(w, v, nsamp, &err), XC_OK);
    CU_ASSERT_EQUAL_FATAL(xc_fbwriter_commit(w, &err), XC_OK);
    xc_fbheader_free(&h);
}

int xc_fx_each_nbits_preset(const char *plan, size_t nout, xc_fx_check check, const void *ctx)
{
    static const int nbits[] = {1, 2, 4, 8, 16};
    size_t np;
    const xc_convention *cv = xc_convention_list(&np);
    CU_ASSERT_EQUAL_FATAL(np, 5u);
    int bad = 0;
    for (size_t b = 0; b < XC_NCASES(nbits); b++)
        for (size_t k = 0; k < np; k++) {
            xc_fixture f;
            xc_fx_init(&f, 13, nbits[b], 1500, -8, 1e-4, plan, cv[k].name, nout);
            xc_fx_random(&f, 100 + 10 * b + k);
            xc_fx_job(&f, NULL);
            char what[64];
            snprintf(what, sizeof what, "%d-bit %s", nbits[b], cv[k].name);
            bad += check(&f, what, ctx);
            xc_fx_free(&f);
        }
    return bad;
}

uint8_t *xc_fx_killmask(int nchans, int trial, uint64_t *s)
{
    uint8_t *mask = malloc((size_t)nchans);
    CU_ASSERT_PTR_NOT_NULL_FATAL(mask);
    for (int c = 0; c < nchans; c++)
        mask[c] = trial == 2 ? 0 : (xc_fx_rng_next(s) & 3) != 0;
    if (trial == 1) {
        memset(mask, 0, (size_t)nchans);
        mask[nchans / 2] = 1;
    }
    return mask;
}

int xc_fx_float_case(xc_fixture *f, int nchans, const char *plan, const char *preset, int kill, size_t nout,
                     uint64_t seed)
{
    xc_fx_init(f, nchans, 32, 1500, -100.0 / nchans, 1e-4, plan, preset, nout);
    xc_fx_random(f, seed);
    f->mask = malloc((size_t)nchans);
    CU_ASSERT_PTR_NOT_NULL_FATAL(f->mask);
    int nkept = 0;
    for (int c = 0; c < nchans; c++) {
        f->mask[c] = !kill || c % 7 != 3;
        nkept += f->mask[c];
    }
    xc_fx_job(f, f->mask);
    return nkept;
}

/* ---- planes ----------------------------------------------------------------- */

int xc_fx_planes_equal(const xc_plane *a, const xc_plane *b, const char *what)
{
    if (a->nranges != b->nranges)
        return 0;
    for (int k = 0; k < a->nranges; k++) {
        const xc_planerange *x = &a->r[k], *y = &b->r[k];
        if (x->ndm != y->ndm || x->nsamp != y->nsamp)
            return 0;
        size_t n = x->ndm * x->nsamp, bad = 0, first = 0;
        if (!n || !memcmp(x->data, y->data, n * sizeof(float)))
            continue;
        for (size_t i = 0; i < n; i++)
            if (memcmp(&x->data[i], &y->data[i], sizeof(float)) && !bad++)
                first = i;
        printf("%s: range %d: %zu of %zu differ; first at trial %zu sample %zu: %.9g vs %.9g\n", what, k, bad, n,
               first / x->nsamp, first % x->nsamp, (double)x->data[first], (double)y->data[first]);
        return 0;
    }
    return 1;
}

int xc_fx_float_bound(const xc_plane *ref, const xc_plane *p, int nkept, const char *what)
{
    int bad = 0;
    for (int k = 0; k < ref->nranges; k++) {
        size_t n = ref->r[k].ndm * ref->r[k].nsamp;
        double maxref = 0, maxerr = 0;
        for (size_t j = 0; j < n; j++) {
            maxref = fmax(maxref, fabs(ref->r[k].data[j]));
            maxerr = fmax(maxerr, fabs((double)p->r[k].data[j] - ref->r[k].data[j]));
            /* fmax passes over a NaN: count it as unbounded */
            if (isnan(p->r[k].data[j]))
                maxerr = INFINITY;
        }
        double bound = (double)nkept * ref->r[k].ds * 0x1.0p-24 * maxref;
        if (!(maxerr <= bound)) {
            printf("%s: range %d: error %g > bound %g\n", what, k, maxerr, bound);
            bad++;
        }
        CU_ASSERT(maxerr <= bound);
        CU_ASSERT(maxref > 0);
    }
    return bad;
}

/* ---- Pulscan peaks and candidates ----------------------------------------- */

void xc_fx_real_fft(const double *x, size_t n, float *data)
{
    double *in = fftw_malloc(n * sizeof *in);
    fftw_complex *X = fftw_malloc((n / 2 + 1) * sizeof *X);
    CU_ASSERT_FATAL(in && X);
    memcpy(in, x, n * sizeof *in);
    fftw_plan p = fftw_plan_dft_r2c_1d((int)n, in, X, FFTW_ESTIMATE);
    fftw_execute(p);
    fftw_destroy_plan(p);
    data[0] = (float)X[0][0];
    data[1] = (float)X[n / 2][0];
    for (size_t k = 1; k < n / 2; k++) {
        data[2 * k] = (float)X[k][0];
        data[2 * k + 1] = (float)X[k][1];
    }
    fftw_free(in);
    fftw_free(X);
}

int xc_fx_same_cands(const xc_candlist *a, const xc_candlist *b, double rtol, const char *what)
{
    if (a->n != b->n) {
        printf("\n%s: lists differ in length: %zu vs %zu\n", what, a->n, b->n);
        return 0;
    }
    for (size_t k = 0; k < a->n; k++) {
        const xc_cand *x = &a->c[k], *y = &b->c[k];
        int ok = x->r == y->r && x->width == y->width && x->numharm == y->numharm &&
                 fabs(x->power - y->power) <= rtol * fabs(x->power) &&
                 fabs(x->sigma - y->sigma) <= rtol * fabs(x->sigma) && fabs(x->logp - y->logp) <= rtol * fabs(x->logp);
        if (!ok) {
            printf("\n%s: candidate %zu differs: r %.1f/%.1f w %d/%d h %d/%d power %.17g/%.17g sigma %.17g/%.17g "
                   "logp %.17g/%.17g\n",
                   what, k, x->r, y->r, x->width, y->width, x->numharm, y->numharm, x->power, y->power, x->sigma,
                   y->sigma, x->logp, y->logp);
            return 0;
        }
    }
    return 1;
}

int xc_fx_same_bits(const xc_candlist *a, const xc_candlist *b, const char *what)
{
    if (a->n != b->n) {
        printf("\n  %s: %zu candidates, expected %zu", what, a->n, b->n);
        return 0;
    }
    for (size_t i = 0; i < a->n; i++)
        if (memcmp(&a->c[i], &b->c[i], sizeof a->c[i])) {
            printf("\n  %s #%zu: observed r %.3f z %g width %d h %d sigma %.12g, expected r %.3f z %g width %d h %d "
                   "sigma %.12g (tolerance: bit for bit)",
                   what, i, a->c[i].r, a->c[i].z, a->c[i].width, a->c[i].numharm, a->c[i].sigma, b->c[i].r, b->c[i].z,
                   b->c[i].width, b->c[i].numharm, b->c[i].sigma);
            return 0;
        }
    return 1;
}

/* ---- files ------------------------------------------------------------------ */

typedef char pathbuf[512];

/* dir/name in the next of the n buffers buf (k counts the calls). */
static const char *path_in(pathbuf *buf, int n, int *k, const char *dir, const char *name)
{
    char *b = buf[(*k)++ % n];
    snprintf(b, sizeof(pathbuf), "%s/%s", dir, name);
    return b;
}

double xc_fx_line_fit(const double *x, const double *y, size_t n, double *xmean, double *ymean)
{
    double sx = 0, sy = 0, sxx = 0, sxy = 0, dn = (double)n;
    for (size_t i = 0; i < n; i++) {
        sx += x[i];
        sy += y[i];
        sxx += x[i] * x[i];
        sxy += x[i] * y[i];
    }
    *xmean = sx / dn;
    *ymean = sy / dn;
    return (dn * sxy - sx * sy) / (dn * sxx - sx * sx);
}

void xc_fx_mean_rms(const float *f32, const uint16_t *u16, size_t n, double *mean, double *rms)
{
    double s = 0, s2 = 0;
    for (size_t i = 0; i < n; i++)
        s += f32 ? f32[i] : u16[i];
    *mean = s / (double)n;
    for (size_t i = 0; i < n; i++) {
        double d = (f32 ? f32[i] : u16[i]) - *mean;
        s2 += d * d;
    }
    *rms = sqrt(s2 / (double)n);
}

void xc_fx_synth_obs(xc_synth_params *p, int nchans, int nbits, double tsamp, double tobs, double fch1,
                     double foff)
{
    xc_synth_params_init_obs(p, nchans, nbits, tsamp, tobs);
    p->fch1 = fch1;
    p->foff = foff;
}

void xc_fx_synth_psr(xc_synth_params *p, double period_ms, double dm, double width_pct, double snrpeak)
{
    p->psr.period_ms = period_ms;
    p->psr.dm = dm;
    p->psr.width_pct = width_pct;
    p->psr.snrpeak = snrpeak;
}

void xc_fx_assert_synth_obs(const xc_synth_params *p, int nchans, int nbits, double tsamp, double tobs, double fch1,
                            double foff)
{
    const double got[] = {p->nchans, p->nbits, p->tsamp, p->tobs, p->fch1, p->foff},
                 want[] = {nchans, nbits, tsamp, tobs, fch1, foff};
    xc_fx_assert_fields("nchans nbits tsamp tobs fch1 foff", got, want, 6);
}

const char *xc_fx_tmp(const char *name)
{
    static pathbuf buf[8];
    static int k;
    return path_in(buf, 8, &k, xc_test_tmpdir(), name);
}

const char *xc_fx_dataset(const char *name)
{
    static pathbuf buf[4];
    static int k;
    return path_in(buf, 4, &k, xc_test_datasets(), name);
}

unsigned char *xc_fx_slurp(const char *path, size_t *n)
{
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return NULL;
    fseek(fp, 0, SEEK_END);
    long len = ftell(fp);
    fseek(fp, 0, SEEK_SET);
    /* ftell fails on what is not a regular file: unreadable as a whole */
    unsigned char *b = len >= 0 ? malloc((size_t)len + 1) : NULL;
    if (b && fread(b, 1, (size_t)len, fp) != (size_t)len) {
        free(b);
        b = NULL;
    }
    if (b)
        b[len] = 0;
    fclose(fp);
    if (n)
        *n = b ? (size_t)len : 0;
    return b;
}

int xc_fx_same_file(const char *a, const char *b)
{
    size_t na, nb;
    unsigned char *x = xc_fx_slurp(a, &na), *y = xc_fx_slurp(b, &nb);
    int same = x && y && na == nb && !memcmp(x, y, na);
    free(x);
    free(y);
    return same;
}

int xc_fx_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

void xc_fx_tmp_path(char *out, size_t n, const char *name)
{
    snprintf(out, n, "%s/%s", xc_test_tmpdir(), name);
}

void xc_fx_sigpyproc_path(char *out, size_t n, const char *name)
{
    snprintf(out, n, "%s/sigpyproc3/%s", xc_test_datasets(), name);
}

int xc_fx_skip_missing(const char *path, char *why, size_t n)
{
    if (xc_fx_exists(path))
        return 0;
    snprintf(why, n, "%s not found", path);
    return 1;
}

void xc_fx_read_text(const char *path, char *buf, size_t n)
{
    buf[0] = '\0';
    FILE *fp = fopen(path, "r");
    CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
    size_t k = fread(buf, 1, n - 1, fp);
    buf[k] = '\0';
    fclose(fp);
}

int xc_fx_count_prefix(const char *prefix)
{
    DIR *d = opendir(xc_test_tmpdir());
    if (!d)
        return -1;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        n += strncmp(e->d_name, prefix, strlen(prefix)) == 0;
    closedir(d);
    return n;
}

void xc_fx_write_text(const char *path, const char *text)
{
    FILE *fp = fopen(path, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
    fputs(text, fp);
    fclose(fp);
}

void xc_fx_pin(xc_fixture *f, xc_plane *p, int mode, xc_fx_pinned *pn)
{
    memset(pn, 0, sizeof *pn);
    pn->mode = mode;
#ifdef XC_HAVE_CUDA
    xc_error err;
    const size_t nin = f->blk.nsamp * (size_t)f->blk.nchans;
    size_t tot = 0;
    for (int k = 0; k < p->nranges; k++)
        tot += p->r[k].ndm * p->r[k].nsamp;
    if (mode & 1) {
        CU_ASSERT_EQUAL_FATAL(xc_gpu_host_alloc(&pn->in, nin * sizeof(uint16_t), &err), XC_OK);
        memcpy(pn->in, f->u16, nin * sizeof(uint16_t));
        f->blk.u16 = pn->in;
    }
    if (mode & 2) {
        CU_ASSERT_EQUAL_FATAL(xc_gpu_host_alloc(&pn->plane, tot * sizeof(float), &err), XC_OK);
        size_t off = 0;
        for (int k = 0; k < p->nranges && k < 8; k++) {
            pn->heap[k] = p->r[k].data;
            p->r[k].data = (float *)pn->plane + off;
            off += p->r[k].ndm * p->r[k].nsamp;
        }
    }
#else
    (void)f;
    (void)p;
#endif
}

void xc_fx_unpin(xc_fixture *f, xc_plane *p, xc_fx_pinned *pn)
{
#ifdef XC_HAVE_CUDA
    if (pn->mode & 2)
        for (int k = 0; k < p->nranges && k < 8; k++)
            p->r[k].data = pn->heap[k];
    f->blk.u16 = f->u16;
    xc_gpu_host_free(pn->plane);
    xc_gpu_host_free(pn->in);
#else
    (void)f;
    (void)p;
#endif
    memset(pn, 0, sizeof *pn);
}

int xc_fx_skip_gpu(char *why, size_t n)
{
#ifdef XC_HAVE_CUDA
    return !xc_gpu_available(why, n);
#else
    snprintf(why, n, "built without CUDA (CUDA=0)");
    return 1;
#endif
}

const xc_fx_pscfg xc_fx_ps_configs[XC_FX_PS_NCONFIGS] = {
    {12345, 37, 3, 1, 0, 0, 0, 1000, 1500, XC_NORM_EXACT, XC_LOGP_EXACT, 2.0},
    {12345, 37, 3, 1, 0, 0, 1, 1000, 1500, XC_NORM_EXACT, XC_LOGP_EXACT, 1.0},
    {20001, 41, 4, 3, 0, 1, 1, 777, 2000, XC_NORM_EXACT, XC_LOGP_EXACT, 0.0},
    {20001, 41, 4, 3, 0, 1, 0, 777, 2000, XC_NORM_EXACT, XC_LOGP_EXACT, 0.0},
    {9999, 33, 2, 1, 1, 0, 0, 4096, 999, XC_NORM_MOM, XC_LOGP_EXACT, 1.5},
    {16411, 25, 4, 2, 0, 0, 0, 3001, 16, XC_NORM_EXACT, XC_LOGP_POLY, 0.5},
    {7001, 0, 1, 1, 0, 0, 1, 100, 700, XC_NORM_EXACT, XC_LOGP_EXACT, 0.0},
    {70001, 200, 4, 2, 0, 0, 0, 32768, 6000, XC_NORM_EXACT, XC_LOGP_EXACT, 2.0},
    {65537, 256, 8, 2, 0, 0, 1, 32768, 6000, XC_NORM_MOM, XC_LOGP_POLY, 1.0},
    {50003, 300, 2, 5, 0, 1, 0, 5000, 3333, XC_NORM_EXACT, XC_LOGP_EXACT, 1.0},
    {4099, 7, 5, 1, 0, 0, 0, 32768, 17, XC_NORM_MOM, XC_LOGP_EXACT, 0.0},
};

xc_psopts xc_fx_ps_opts(const xc_fx_pscfg *c)
{
    xc_psopts o;
    xc_psopts_default(&o);
    o.zmax = c->zmax;
    o.numharm = c->numharm;
    o.zstep = c->zstep;
    o.zlog = c->zlog;
    o.rblock = c->rblock;
    o.nosift = c->nosift;
    o.chunkwidth = c->chunk;
    o.normwidth = c->normw;
    o.norm = c->norm;
    o.logp = c->logp;
    o.sigma = c->sigma;
    return o;
}

xc_ddopts xc_fx_ddopts(int nsub, double dmsub, int align, int threads)
{
    return (xc_ddopts){.nsub = nsub, .dmsub = dmsub, .subalign = align, .threads = threads};
}

xc_accel_opts xc_fx_accel_opts(int zmax, int wmax, int numharm, int threads)
{
    xc_accel_opts o;
    xc_accel_opts_default(&o);
    o.zmax = zmax;
    o.wmax = wmax;
    o.numharm = numharm;
    o.threads = threads;
    return o;
}

double xc_fx_plane_delta_worst(const xc_accel_plan *p, const xc_accel_block *b, long k0)
{
    double worst = 0;
    for (int t = 0; t < p->ntempl; t++)
        for (size_t j = 0; j < b->nr; j++) {
            double r = 0.5 * (double)(b->i0 + (long)j), R[2];
            xc_accel_resp_z((double)k0 - r, xc_accel_z_of(p, t), R);
            double want = fabs((double)k0 - r) <= p->hw[t] ? R[0] * R[0] + R[1] * R[1] : 0;
            worst = fmax(worst, fabs(b->out[(size_t)t * b->nr + j] - want));
        }
    return worst;
}

xc_status xc_fx_search(const xc_accel_searcher *as, const xc_searcher *ps, const xc_spectrum *sp, const void *opts,
                       xc_candlist *l)
{
    xc_error err;
    xc_error_clear(&err);
    xc_candlist_init(l);
    xc_status st = as ? xc_accel_run(as, sp, opts, l, &err) : xc_pulscan_run(ps, sp, opts, l, &err);
    if (st)
        printf("\n  %s: %s\n", as ? as->impl.name : ps->impl.name, err.msg);
    return st;
}

const char *xc_fx_bin(void)
{
    const char *b = getenv("XC_BIN");
    return b && *b ? b : "bin/crosscheck";
}

int xc_fx_skip_no_bin(char *why, size_t n)
{
    struct stat sb;
    if (stat(xc_fx_bin(), &sb) == 0)
        return 0;
    snprintf(why, n, "no crosscheck binary at %s (set XC_BIN)", xc_fx_bin());
    return 1;
}

int xc_fx_run_cli(const char *args)
{
    return xc_fx_run_cli_err(args, NULL, 0);
}

int xc_fx_run_cli_err(const char *args, char *errbuf, size_t n)
{
    char cmd[4096], errpath[600];
    snprintf(errpath, sizeof errpath, "%s/stderr.txt", xc_test_tmpdir());
    if (errbuf)
        snprintf(cmd, sizeof cmd, "%s %s >/dev/null 2>'%s'", xc_fx_bin(), args, errpath);
    else
        snprintf(cmd, sizeof cmd, "%s %s >/dev/null 2>&1", xc_fx_bin(), args);
    int rc = system(cmd);
    if (errbuf && n)
        xc_fx_slurp_into(errpath, errbuf, n);
    return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

int xc_fx_run_clif(char *errbuf, size_t n, const char *fmt, ...)
{
    char args[2048];
    va_list ap;
    va_start(ap, fmt);
    int len = vsnprintf(args, sizeof args, fmt, ap);
    va_end(ap);
    CU_ASSERT_FATAL(len >= 0 && (size_t)len < sizeof args);
    return xc_fx_run_cli_err(args, errbuf, n);
}

int xc_fx_sh(char *out, size_t n, const char *cmd)
{
    char line[16384], log[600];
    snprintf(log, sizeof log, "%s/xc_fx_sh.log", xc_test_tmpdir());
    int len = snprintf(line, sizeof line, "(%s) > '%s' 2>&1", cmd, log);
    if (len <= 0 || (size_t)len >= sizeof line)
        return -1;
    int st = system(line);
    xc_fx_slurp_into(log, out, n);
    return st != -1 && WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

void xc_fx_slurp_into(const char *path, char *buf, size_t n)
{
    buf[0] = '\0';
    FILE *fp = fopen(path, "r");
    if (fp) {
        size_t k = fread(buf, 1, n - 1, fp);
        buf[k] = '\0';
        fclose(fp);
    }
}

const xc_fx_ddcase xc_fx_ddcases[] = {
    {61, 8, 7, 0, "0:40:0.5,40:80:1:2,80:101:1.5:3", "crosscheck", 0},
    {61, 16, 8, 3.3, "0:40:0.5,40:80:1:2", "presto", 'q'},
    {127, 2, 0, 0, "0:25:0.25,25:50:0.5:4", "astroaccelerate", 'e'},
    {13, 4, 2, 1.0, "2:20:0.7", "sigproc", 0},
    {50, 8, 64, 2.0, "0:30:1", "crosscheck", 'q'},
    {9, 8, 1, 0.6, "0:30:0.3:2", "crosscheck", 0},
    {1100, 16, 32, 0, "0:3:1:64", "crosscheck", 'q'},   /* sums past 2^32: the uint64 path */
    {1100, 8, 1, 0, "0:6:1:2", "crosscheck", 'e'},       /* one subband of 1100 channels: one long stage-2
                                                           row staged per group */
};
const size_t xc_fx_nddcases = sizeof xc_fx_ddcases / sizeof xc_fx_ddcases[0];

int xc_fx_tree_nsub(int nsub)
{
    int p = 1;
    while (p * 2 <= nsub)
        p *= 2;
    return nsub ? p : 0;
}

void xc_fx_ddcase_input(xc_conform_ddinput *in, const xc_fx_ddcase *c, size_t nout, uint64_t seed)
{
    xc_error err;
    CU_ASSERT_EQUAL_FATAL(xc_conform_ddinput_make(in, c->nchans, c->nbits, 1500, -300.0 / c->nchans, 1e-4, c->plan,
                                                  c->preset, nout, &err),
                          XC_OK);
    xc_conform_ddinput_random(in, seed);
    CU_ASSERT_EQUAL_FATAL(xc_conform_ddinput_mask(in, c->kill, 5, &err), XC_OK);
}

void xc_fx_spread_job(xc_dmplan *plan, xc_ddjob *job, int nc, double foff, const char *dmplan, xc_ddopts o)
{
    xc_geometry g = {nc, 1500, foff, 64e-6};
    xc_dmplan_init(plan);
    xc_error err;
    CU_ASSERT_EQUAL_FATAL(xc_dmplan_parse(plan, dmplan, "test", &err), XC_OK);
    CU_ASSERT_EQUAL_FATAL(xc_ddjob_prepare(job, nc, 8, plan, xc_convention_get("crosscheck"), &g, NULL, &err), XC_OK);
    job->opts = o;
}

void xc_fx_spread_job_free(xc_dmplan *plan, xc_ddjob *job)
{
    xc_ddjob_free(job);
    xc_dmplan_free(plan);
}

int xc_fx_spread_add(xc_fx_spread *s, int spread, int bound, int tight)
{
    CU_ASSERT(spread <= bound);
    s->tight_broken |= spread > tight;
    s->margin = bound - spread < s->margin ? bound - spread : s->margin;
    s->ntrials++;
    return spread > bound;
}

void xc_fx_spread_check(const xc_fx_spread *s)
{
    CU_ASSERT(s->tight_broken);
    printf("\n  %zu trials: integer spread within the bound (closest: %d samples below it); "
           "without the rounding terms the bound breaks: %s",
           s->ntrials, s->margin, s->tight_broken ? "yes" : "no");
}

void xc_fx_float_input(xc_conform_ddinput *in)
{
    xc_error err;
    CU_ASSERT_EQUAL_FATAL(xc_conform_ddinput_make(in, 128, 32, 1500, -2.0, 1e-4, "0:100:1:1,100:200:2:2", "crosscheck",
                                                  4200, &err),
                          XC_OK);
    xc_conform_ddinput_random(in, 7);
}

void xc_fx_direct_equal(int nchans, const char *plan, const char *preset, size_t nout, uint64_t seed,
                        const xc_ddopts *o, const xc_dedisperser *const *d, int nd, const char *what)
{
    xc_conform_ddinput in;
    xc_error err;
    CU_ASSERT_EQUAL_FATAL(xc_conform_ddinput_make(&in, nchans, 8, 1400, -3.7, 1e-4, plan, preset, nout, &err), XC_OK);
    xc_conform_ddinput_random(&in, seed);
    CU_ASSERT_EQUAL_FATAL(xc_conform_ddinput_mask(&in, 'q', 3, &err), XC_OK);
    xc_plane want, got;
    CU_ASSERT_EQUAL_FATAL(xc_conform_dd_run(&xc_dd_reference, &in, o, &want, &err), XC_OK);
    for (int m = 0; m < nd; m++) {
        CU_ASSERT_EQUAL_FATAL(xc_conform_dd_run(d[m], &in, o, &got, &err), XC_OK);
        CU_ASSERT(xc_fx_planes_equal(&want, &got, what));
        xc_plane_free(&got);
    }
    xc_plane_free(&want);
    xc_conform_ddinput_free(&in);
}

void xc_fx_hand_input(xc_conform_ddinput *in, const char *plan, const xc_ddopts *o, xc_ddjob *job)
{
    xc_error err;
    CU_ASSERT_EQUAL_FATAL(xc_conform_ddinput_make(in, 4, 8, 1000, -200, 1e-3, plan, "crosscheck", 4, &err), XC_OK);
    for (size_t t = 0; t < in->blk.nsamp; t++)
        for (int c = 0; c < 4; c++)
            in->u16[t * 4 + (size_t)c] = (uint16_t)((c + 1) * t);
    CU_ASSERT_EQUAL_FATAL(xc_ddjob_init(job, &in->blk, &in->plan, in->cv, &in->g, NULL, &err), XC_OK);
    job->opts = *o;
}

void xc_fx_hand_free(xc_conform_ddinput *in, xc_ddjob *job)
{
    xc_ddjob_free(job);
    xc_conform_ddinput_free(in);
}

void xc_fx_hand_planes(const xc_dedisperser *ref, const xc_dedisperser *cpu, const xc_conform_ddinput *in,
                       const xc_ddopts *o, const float want[3][4])
{
    const xc_dedisperser *impls[2] = {ref, cpu};
    for (int m = 0; m < 2; m++) {
        xc_plane pl;
        xc_error err;
        CU_ASSERT_EQUAL_FATAL(xc_conform_dd_run(impls[m], in, o, &pl, &err), XC_OK);
        CU_ASSERT_EQUAL_FATAL(pl.r[0].nsamp, 4);
        for (int i = 0; i < 3; i++)
            for (int t = 0; t < 4; t++)
                XC_ASSERT_NEAR(pl.r[0].data[i * 4 + t], want[i][t], 0);
        xc_plane_free(&pl);
    }
}

xc_status xc_fx_cpu_powers(const xc_searcher *self, const xc_spectrum *sp, const xc_psopts *o, double *P,
                           xc_error *err)
{
    (void)self;
    return xc_ps_cpu.powers(&xc_ps_cpu, sp, o, P, err);
}

xc_status xc_fx_cpu_peaks(const xc_searcher *self, const xc_spectrum *sp, const xc_psopts *o, const double *P,
                          const double *thr, xc_pspeaks *pk, xc_error *err)
{
    (void)self;
    return xc_ps_cpu.peaks(&xc_ps_cpu, sp, o, P, thr, pk, err);
}
