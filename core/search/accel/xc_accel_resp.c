/* Exact responses (templates) of drifting and jerked signals, in double
 * precision (our own derivation; the convention is PRESTO's, src/responses.c:
 * r and z are averages over the observation, see core/search/xc_accel.h).
 *
 * z only (Ransom, Eikenberry & Middleditch 2002, eq. for the f-fdot
 * response): with a = -d - z/2, completing the square,
 *   R(d; z) = int_0^1 exp(2 pi i (a u + z u^2/2)) du
 *           = exp(-i pi a^2/z) / sqrt(2|z|) * [F(t2) - F(t1)]   (conjugated F for z < 0),
 *   t1 = (a/z) sqrt(2|z|), t2 = (1 + a/z) sqrt(2|z|), F = C + i S the Fresnel integrals
 * (core/search/accel/xc_accel_resp_hd.h, one source for host and device).
 * With w: no closed form; see xc_accel_template.  accelsearch's
 * gen_w_response instead FFTs a real cosine sampled on num_pts_wdat points
 * from t = 0 (the rectangle rule, and the negative-frequency image): its own
 * table puts the amplitude error at 1e-4 (median) to 5e-3 (worst) for its
 * sizes; ours is below 1e-10.  Preset presto keeps our exact templates: a
 * diff with accelsearch needs its search semantics, not its rounding. */
#include <complex.h>
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include <fftw3.h>
#include <gsl/gsl_integration.h>

#include "core/search/xc_accel.h"
#include "core/io/xc_fft.h"
#include "core/search/accel/xc_accel_resp_hd.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

/* The Fresnel integrals and R(d; z, 0) are core/search/accel/xc_accel_resp_hd.h's,
 * shared with the CUDA searcher's device-made templates. */
void xc_fresnel(double x, double *C, double *S)
{
    xc_cplx F = xc_fresnel_pos_hd(fabs(x));
    *C = x < 0 ? -F.re : F.re;
    *S = x < 0 ? -F.im : F.im;
}

void xc_accel_resp_z(double d, double z, double out[2]) { xc_accel_resp_z_hd(d, z, out); }

/* The phase 2 pi [(al - d) u + be u^2/2 + w u^3/6] and its coefficients. */
typedef struct {
    double c1, be, w;   /* c1 = al - d */
} phase_t;

static double phase(const phase_t *p, double u) { return 2 * M_PI * u * (p->c1 + u * (0.5 * p->be + u * p->w / 6)); }

void xc_accel_resp_quad(double d, double z, double w, double out[2])
{
    phase_t p = {-0.5 * z + w / 12.0 - d, z - 0.5 * w, w};
    double fm = fabs(p.c1) + fabs(p.be) + 0.5 * fabs(w);   /* >= the largest |frequency| in cycles */
    int npan = (int)ceil(4 * fm) + 4;
    gsl_integration_glfixed_table *t = gsl_integration_glfixed_table_alloc(20);
    double complex sum = 0;
    for (int k = 0; t && k < npan; k++) {
        double a = (double)k / npan, b = (double)(k + 1) / npan;
        for (size_t i = 0; i < 20; i++) {
            double xi, wi;
            gsl_integration_glfixed_point(a, b, i, &xi, &wi, t);
            sum += wi * cexp(I * phase(&p, xi));
        }
    }
    gsl_integration_glfixed_table_free(t);
    out[0] = creal(sum);
    out[1] = cimag(sum);
}

/* dF/du and d^3F/du^3 of F(u) = exp(i psi(u)), psi the phase at offset d. */
static void derivs(const phase_t *p, double u, double complex *F1, double complex *F3)
{
    double complex F = cexp(I * phase(p, u));
    double p1 = 2 * M_PI * (p->c1 + p->be * u + 0.5 * p->w * u * u);
    double p2 = 2 * M_PI * (p->be + p->w * u);
    double p3 = 2 * M_PI * p->w;
    *F1 = I * p1 * F;
    *F3 = (I * p3 - 3 * p1 * p2 - I * p1 * p1 * p1) * F;
}

xc_status xc_accel_template(double z, double w, int hw, double *out, xc_error *err)
{
    if (hw < 1)
        return xc_error_set(err, XC_EINVAL, "accel template: half-width %d is below 1", hw);
    int nj = 4 * hw + 1;
    if (w == 0) {
        for (int j = 0; j < nj; j++)
            xc_accel_resp_z(0.5 * (j - 2 * hw), z, out + 2 * j);
        return XC_OK;
    }
    /* Trapezoid rule on M intervals for all d = j/2 at once (one FFT of
     * length 2M of the samples g_m = F(m/M) at d = 0, zero-padded: the
     * factor e^{-2 pi i d m/M} = e^{-2 pi i j m/(2M)}), then the
     * Euler-Maclaurin end corrections
     *   - h^2/12 [F'(1) - F'(0)] + h^4/720 [F'''(1) - F'''(0)],
     * leaving an error ~ h^6/30240 |F^(5)| ~ 1e-10 / fm for M >= 32 fm. */
    phase_t p0 = {-0.5 * z + w / 12.0, z - 0.5 * w, w};
    double fm = fabs(p0.c1) + hw + fabs(p0.be) + 0.5 * fabs(w) + 1;
    size_t M = 1024;
    while ((double)M < 32 * fm)
        M *= 2;
    fftw_complex *buf = fftw_malloc(2 * M * sizeof *buf);
    if (!buf)
        return xc_error_set(err, XC_ENOMEM, "accel template: out of memory (M = %zu)", M);
    /* FFTW's planner is not thread-safe: callers may make templates from
     * several OpenMP threads, so planning (and destroying) is serialised. */
    fftw_plan plan;
    XC_FFTW_PLANNER(plan = fftw_plan_dft_1d((int)(2 * M), buf, buf, FFTW_FORWARD, FFTW_ESTIMATE));
    if (!plan) {
        fftw_free(buf);
        return xc_error_set(err, XC_ENOMEM, "accel template: no FFTW plan for %zu points", 2 * M);
    }
    double h = 1.0 / (double)M;
    for (size_t m = 0; m < 2 * M; m++) {
        double complex g = m < M ? cexp(I * phase(&p0, (double)m * h)) : 0;
        buf[m] = g;   /* fftw_complex is double complex after <complex.h> */
    }
    fftw_execute(plan);
    for (int j = 0; j < nj; j++) {
        int jj = j - 2 * hw;
        double d = 0.5 * jj;
        size_t idx = jj >= 0 ? (size_t)jj : 2 * M - (size_t)(-jj);
        phase_t pd = p0;
        pd.c1 -= d;
        double complex T = h * buf[idx];
        double complex F0 = 1, F1v = cexp(I * phase(&pd, 1.0));
        T += 0.5 * h * (F1v - F0);
        double complex d1a, d3a, d1b, d3b;
        derivs(&pd, 0.0, &d1a, &d3a);
        derivs(&pd, 1.0, &d1b, &d3b);
        T += -h * h / 12 * (d1b - d1a) + h * h * h * h / 720 * (d3b - d3a);
        out[2 * j] = creal(T);
        out[2 * j + 1] = cimag(T);
    }
    XC_FFTW_PLANNER(fftw_destroy_plan(plan));
    fftw_free(buf);
    return XC_OK;
}

xc_status xc_accel_template_rows(const xc_accel_plan *p, int t0, int cnt, int L, float *rows,
                                 void (*post)(void *ctx, float *row), void *ctx, const char *who, xc_error *err)
{
    if (t0 < 0 || cnt < 0 || t0 + cnt > p->ntempl || L < 4 * p->hwmax + 1)
        return xc_error_set(err, XC_EINVAL, "%s: templates %d..%d of %d, rows of %d points", who, t0, t0 + cnt - 1,
                            p->ntempl, L);
    xc_status st = XC_OK;
    int nth = p->o.threads > 0 ? p->o.threads : omp_get_max_threads();
    if (nth > cnt)
        nth = cnt > 0 ? cnt : 1;
#pragma omp parallel num_threads(nth)
    {
        double *Rt = malloc((size_t)(4 * p->hwmax + 1) * 2 * sizeof *Rt);
        xc_error e1;
#pragma omp for schedule(dynamic, 1)
        for (int i = 0; i < cnt; i++) {
            xc_status seen;
#pragma omp atomic read
            seen = st;
            if (seen)
                continue;
            int t = t0 + i, hw = p->hw[t];
            xc_status s1 = Rt ? xc_accel_template(xc_accel_z_of(p, t % p->numz), xc_accel_w_of(p, t / p->numz), hw,
                                                  Rt, &e1)
                              : xc_error_set(&e1, XC_ENOMEM, "%s: out of memory (templates)", who);
            if (s1) {
#pragma omp critical(xc_accel_template_rows_err)
                if (!st) {
                    *err = e1;
#pragma omp atomic write
                    st = s1;
                }
                continue;
            }
            float *k = rows + (size_t)i * 2 * (size_t)L;
            memset(k, 0, (size_t)L * 2 * sizeof *k);
            for (int j = -2 * hw; j <= 2 * hw; j++) {
                size_t q = j >= 0 ? (size_t)j : (size_t)L - (size_t)(-j);
                k[2 * q] = (float)Rt[2 * (j + 2 * hw)];
                k[2 * q + 1] = (float)Rt[2 * (j + 2 * hw) + 1];
            }
            if (post)
                post(ctx, k);
        }
        free(Rt);
    }
    return st;
}
