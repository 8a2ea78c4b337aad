/* The reference accel/jerk searcher: the plane by direct correlation in
 * double precision (no FFT, no overlap-save) with exact templates
 * (core/search/accel/xc_accel_resp.c), the obvious loops:
 *   P(i/2, z, w) = |sum_{k: |k - i/2| <= hw} A_k conj(R(k - i/2; z, w))|^2,
 * rounded to float only when stored.  Slow (2 hw + 1 complex products per
 * point and template); use it on small spectra or -rlo/-rhi ranges. */
#include <math.h>
#include <stdlib.h>

#include <omp.h>

#include "core/search/xc_accel.h"
#include "core/base/xc_grow.h"
#include "reference/xc_accel_ref.h"

typedef struct {
    int ntempl;
    double **tmpl;   /* tmpl[t][2 (j + 2 hw)] = R(j/2), j = -2hw..2hw */
} ref_state;

static void ref_destroy(const xc_accel_searcher *self, void *state)
{
    (void)self;
    ref_state *s = state;
    if (!s)
        return;
    XC_FREE_PTRS(s->tmpl, s->ntempl);
    free(s);
}

static xc_status ref_create(const xc_accel_searcher *self, const xc_accel_plan *p, void **state, xc_error *err)
{
    (void)self;
    ref_state *s = calloc(1, sizeof *s);
    if (!s || !(s->tmpl = calloc((size_t)p->ntempl, sizeof *s->tmpl))) {
        free(s);
        return xc_error_set(err, XC_ENOMEM, "accel reference: out of memory");
    }
    s->ntempl = p->ntempl;
    /* Templates are independent: made in parallel (each the same whichever
     * thread makes it); the first failure's message is kept. */
    xc_status st = XC_OK;
#pragma omp parallel for schedule(dynamic, 1) num_threads(p->o.threads > 0 ? p->o.threads : omp_get_max_threads())
    for (int t = 0; t < p->ntempl; t++) {
        int hw = p->hw[t];
        xc_error e1;
        xc_status seen;
#pragma omp atomic read
        seen = st;
        if (seen)
            continue;
        xc_status s1 = XC_OK;
        if (!(s->tmpl[t] = malloc((size_t)(4 * hw + 1) * 2 * sizeof(double))))
            s1 = xc_error_set(&e1, XC_ENOMEM, "accel reference: out of memory (templates)");
        else
            s1 = xc_accel_template(xc_accel_z_of(p, t % p->numz), xc_accel_w_of(p, t / p->numz), hw, s->tmpl[t], &e1);
        if (s1) {
#pragma omp critical(xc_accel_ref_err)
            if (!st) {
                *err = e1;
#pragma omp atomic write
                st = s1;
            }
        }
    }
    if (st) {
        ref_destroy(self, s);
        return st;
    }
    *state = s;
    return XC_OK;
}

static xc_status ref_plane(const xc_accel_searcher *self, void *state, const xc_accel_plan *p, const xc_accel_block *b, xc_error *err)
{
    (void)self;
    const ref_state *s = state;
    (void)err;
    for (int t = 0; t < p->ntempl; t++) {
        if (b->want && !b->want[t])
            continue;
        int hw = p->hw[t];
        const double *R = s->tmpl[t];
        for (size_t j = 0; j < b->nr; j++) {
            long i = b->i0 + (long)j;   /* r = i/2 */
            long lo2 = i - 2 * hw;   /* k >= lo2/2, k <= (i + 2 hw)/2 */
            long klo = lo2 >= 0 ? (lo2 + 1) / 2 : -((-lo2) / 2), khi = (i + 2 * hw) / 2;
            double re = 0, im = 0;
            for (long k = klo; k <= khi; k++) {
                long jj = 2 * k - i + 2 * hw;   /* d = k - i/2 = (jj - 2 hw)/2 */
                const double *a = b->amp + 2 * (k - b->lo);
                double rr = R[2 * jj], ri = R[2 * jj + 1];
                re += a[0] * rr + a[1] * ri;
                im += a[1] * rr - a[0] * ri;
            }
            b->out[(size_t)t * b->nr + j] = (float)(re * re + im * im);
        }
    }
    return XC_OK;
}

const xc_accel_searcher xc_accel_reference = {
    .impl = {.family = XC_FAMILY_ACCEL, .name = "reference", .tol = {XC_TOL_EXACT, 0}, .caps = XC_CAP_REFERENCE,
             .desc = "direct correlation in double precision with exact templates (Fresnel; jerk by Euler-Maclaurin "
                     "quadrature)"},
    .create = ref_create, .plane = ref_plane, .destroy = ref_destroy};
