/* accel_gpu.h: internal to optimized/gpu: what the CUDA accel searcher's
 * host code (accel_gpu.cu) takes from its C helper (accel_gpu_tmpl.c), and
 * the choice of its plane's path that tests make. */
#ifndef XC_ACCEL_GPU_INTERNAL_H
#define XC_ACCEL_GPU_INTERNAL_H

#include "core/search/xc_accel.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Templates t0..t0+cnt-1 of plan p (exact double responses rounded to
 * float), each placed with wrap-around in its own row of L complex floats
 * (interleaved re, im): R(j/2) at position j for j >= 0, at L + j for j < 0,
 * zeros elsewhere; not transformed, not scaled.  OpenMP over templates
 * (p->o.threads; the values do not depend on the thread count).  Errors:
 * xc_accel_template's, XC_ENOMEM. */
xc_status xc_accel_gpu_fill(const xc_accel_plan *p, int t0, int cnt, int L, float *buf, xc_error *err);
/* Every bin's normalised amplitudes (xc_accel_amps_get's floats: re, im
 * of bin k at 2k) into out (2 a->nbins floats), on `threads` OpenMP
 * threads (0: the default); the same values at any count. */
void xc_accel_gpu_amps(const xc_accel_amps *a, float *out, int threads);
/* For tests: the plane of state st (xc_accel_gpu_create's) in one pass (on
 * = 1, where its segment length and the device allow it: the default) or
 * through cuFFT (on = 0); returns the path now taken (1: one pass). */
int xc_accel_gpu_onepass(void *st, int on);

#ifdef __cplusplus
}
#endif
#endif
