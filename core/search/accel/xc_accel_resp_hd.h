/* xc_accel_resp_hd.h: the Fresnel integrals and the response of a drifting
 * signal, R(d; z, 0) (core/search/xc_accel.h), as inline functions that the host
 * compiler and nvcc both compile (core/base/xc_hd.h): core's templates
 * (core/search/accel/xc_accel_resp.c) and the CUDA searcher's, made on the device
 * (optimized/gpu/accel_gpu.cu), run this one source.  Real arithmetic on
 * (re, im) pairs, because C's complex type does not exist on the device.
 *
 * F(x) = C(x) + i S(x) = int_0^x exp(i pi t^2/2) dt: the power series for
 * |x| < 1.5; beyond, F = (1+i)/2 erf(w) with w = sqrt(pi)/2 (1 - i) x and
 * erfc by the even contraction of Laplace's continued fraction (modified
 * Lentz), valid for Re w > 0.  Relative error ~1e-14. */
#ifndef XC_ACCEL_RESP_HD_H
#define XC_ACCEL_RESP_HD_H

#include <math.h>

#include "core/base/xc_hd.h"

#define XC_PI_HD 3.14159265358979323846

typedef struct {
    double re, im;
} xc_cplx;

static inline XC_HD xc_cplx xc_cplx_mk(double re, double im)
{
    xc_cplx c;
    c.re = re;
    c.im = im;
    return c;
}
static inline XC_HD xc_cplx xc_cplx_mul(xc_cplx a, xc_cplx b)
{
    return xc_cplx_mk(a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re);
}
/* Smith's division: no overflow from squaring |b|. */
static inline XC_HD xc_cplx xc_cplx_div(xc_cplx a, xc_cplx b)
{
    if (fabs(b.re) >= fabs(b.im)) {
        double r = b.im / b.re, den = b.re + b.im * r;
        return xc_cplx_mk((a.re + a.im * r) / den, (a.im - a.re * r) / den);
    }
    double r = b.re / b.im, den = b.re * r + b.im;
    return xc_cplx_mk((a.re * r + a.im) / den, (a.im * r - a.re) / den);
}
static inline XC_HD double xc_cplx_abs(xc_cplx a) { return hypot(a.re, a.im); }
static inline XC_HD xc_cplx xc_cplx_exp(xc_cplx a)
{
    double e = exp(a.re);
    return xc_cplx_mk(e * cos(a.im), e * sin(a.im));
}

/* F(x) for x >= 0. */
static inline XC_HD xc_cplx xc_fresnel_pos_hd(double x)
{
    if (x < 1.5) {
        /* sum_n (i pi x^2/2)^n / n! * x / (2n + 1): terms peak near
         * e^(pi x^2/2) < 35, so at most ~1.5 digits are lost. */
        xc_cplx q = xc_cplx_mk(0, 0.5 * XC_PI_HD * x * x), term = xc_cplx_mk(x, 0), sum = term;
        for (int n = 1; n < 200; n++) {
            term = xc_cplx_mul(term, q);
            term.re /= n;
            term.im /= n;
            xc_cplx add = xc_cplx_mk(term.re / (2 * n + 1), term.im / (2 * n + 1));
            sum.re += add.re;
            sum.im += add.im;
            if (xc_cplx_abs(add) < 1e-17 * xc_cplx_abs(sum))
                break;
        }
        return sum;
    }
    /* erfc w = 2w e^{-w^2}/sqrt(pi) / (2w^2 + 1 - 1.2/(2w^2 + 5 - 3.4/(2w^2 + 9 - ...))) */
    double c = 0.5 * sqrt(XC_PI_HD) * x;
    xc_cplx w = xc_cplx_mk(c, -c);
    xc_cplx w2 = xc_cplx_mk(0, -XC_PI_HD * x * x);   /* 2 w^2 */
    const double tiny = 1e-300;
    xc_cplx f = xc_cplx_mk(w2.re + 1, w2.im), C = f, D = xc_cplx_mk(0, 0);
    for (int n = 2; n < 1000; n++) {
        double a = -(2.0 * n - 3) * (2.0 * n - 2);
        xc_cplx b = xc_cplx_mk(w2.re + 4.0 * n - 3, w2.im);
        D = xc_cplx_mk(b.re + a * D.re, b.im + a * D.im);
        if (xc_cplx_abs(D) < tiny)
            D = xc_cplx_mk(tiny, 0);
        xc_cplx aC = xc_cplx_div(xc_cplx_mk(a, 0), C);
        C = xc_cplx_mk(b.re + aC.re, b.im + aC.im);
        if (xc_cplx_abs(C) < tiny)
            C = xc_cplx_mk(tiny, 0);
        D = xc_cplx_div(xc_cplx_mk(1, 0), D);
        xc_cplx delta = xc_cplx_mul(C, D);
        f = xc_cplx_mul(f, delta);
        if (xc_cplx_abs(xc_cplx_mk(delta.re - 1, delta.im)) < 1e-16)
            break;
    }
    /* -w^2 = i pi x^2 / 2 */
    xc_cplx e = xc_cplx_exp(xc_cplx_mk(0, 0.5 * XC_PI_HD * x * x));
    xc_cplx num = xc_cplx_mul(xc_cplx_mk(2 * w.re / sqrt(XC_PI_HD), 2 * w.im / sqrt(XC_PI_HD)), e);
    xc_cplx erfcw = xc_cplx_div(num, f);
    /* 0.5 (1 + i) (1 - erfc w) */
    xc_cplx one_m = xc_cplx_mk(1 - erfcw.re, -erfcw.im);
    return xc_cplx_mk(0.5 * (one_m.re - one_m.im), 0.5 * (one_m.re + one_m.im));
}

/* R(d; z, 0): with a = -d - z/2, completing the square,
 *   R = exp(-i pi a^2/z) / sqrt(2|z|) [F(t2) - F(t1)]   (S conjugated for z < 0),
 *   t1 = (a/z) sqrt(2|z|), t2 = (1 + a/z) sqrt(2|z|);
 * z = 0: exp(-i pi d) sin(pi d)/(pi d). */
static inline XC_HD void xc_accel_resp_z_hd(double d, double z, double out[2])
{
    if (z == 0) {
        if (d == 0) {
            out[0] = 1;
            out[1] = 0;
            return;
        }
        double s = sin(XC_PI_HD * d) / (XC_PI_HD * d);
        out[0] = cos(XC_PI_HD * d) * s;
        out[1] = -sin(XC_PI_HD * d) * s;
        return;
    }
    double a = -d - 0.5 * z, s = sqrt(2 * fabs(z)), v1 = a / z;
    double x1 = v1 * s, x2 = (1 + v1) * s;
    xc_cplx F1 = xc_fresnel_pos_hd(fabs(x1)), F2 = xc_fresnel_pos_hd(fabs(x2));
    if (x1 < 0)
        F1 = xc_cplx_mk(-F1.re, -F1.im);
    if (x2 < 0)
        F2 = xc_cplx_mk(-F2.re, -F2.im);
    xc_cplx dF = xc_cplx_mk(F2.re - F1.re, z > 0 ? F2.im - F1.im : F1.im - F2.im);
    double ph = -XC_PI_HD * a * a / z;
    xc_cplx R = xc_cplx_mul(xc_cplx_mk(cos(ph) / s, sin(ph) / s), dF);
    out[0] = R.re;
    out[1] = R.im;
}

#endif
