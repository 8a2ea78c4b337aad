/* accel_cpu_internal.h: the CPU accel searcher's state (made in
 * optimized/cpu/accel_cpu.c), its per-segment steps
 * (optimized/cpu/accel_cpu_seg.c) and its own harmonic sums
 * (optimized/cpu/accel_cpu_sums.c). */
#ifndef XC_ACCEL_CPU_INTERNAL_H
#define XC_ACCEL_CPU_INTERNAL_H

#include <complex.h>

#include <fftw3.h>

#include "core/search/xc_accel.h"

typedef struct {
    int L, V, hwmax, ntempl, threads;
    fftwf_complex *kern;   /* ntempl x L: conj(FFT(kernel)) / L */
    fftwf_plan fwd, inv;
} cpu_state;

/* The bins [*k0, *k0 + return) that the segment of first valid output i0
 * reads (the non-negative ones: at most L/2 + 1). */
size_t xc_accel_cpu_window(const cpu_state *s, long i0, long *k0);
/* The segment whose first valid output is half-bin index i0: the amplitudes
 * af of bins lo..lo+n-1 (re, im floats; zero elsewhere) spread on the
 * half-bin grid into d (L points, fftwf_malloc'd or at a multiple of L in
 * such an array), FFT'd. */
void xc_accel_cpu_segment(const cpu_state *s, long i0, long lo, size_t n, const float *af, fftwf_complex *d);

/* Segment g of a plane block (the first valid output of segment g is
 * b->i0 + g V): its amplitudes rounded to float (af: L + 2 floats), spread
 * and FFT'd into d. */
void xc_accel_cpu_block_segment(const cpu_state *s, const xc_accel_block *b, size_t g, float *af, fftwf_complex *d);

/* Template t on the FFT'd segment d, the g-th of a row of nr points: row[g V
 * ..] gets its valid powers; 1 if one of them exceeds thr.  tmp: 2L points,
 * fftwf_malloc'd. */
int xc_accel_cpu_pair(const cpu_state *s, const fftwf_complex *d, int t, size_t g, size_t nr, float *row,
                      fftwf_complex *tmp, float thr);

/* The rows method (xc_accel_searcher.rows; optimized/cpu/accel_cpu_rows.c). */
xc_status xc_accel_cpu_rows(const xc_accel_searcher *self, void *state, const xc_accel_plan *p, const xc_accel_block *b,
                            int ng, int per, const int *tsub, xc_accel_rows_fn fn, void *ctx, xc_error *err);

/* The searcher's own harmonic sums (preset exact; xc_accel_searcher.search_amps). */
xc_status xc_accel_cpu_search(const xc_accel_searcher *self, void *state, const xc_accel_plan *p,
                              const xc_accel_amps *a, long ilo, long iend, xc_accel_emit_fn emit, void *ctx,
                              xc_error *err);

#endif
