/* The CPU searcher's rows method (xc_accel_searcher.rows,
 * core/search/xc_accel.h): a few top blocks of preset presto's out-of-core
 * search and their sub-harmonic blocks, row by row into core's sums.
 *
 * Making each block's whole plane and then summing wrote every row to
 * memory and read it back, and read each kernel (16 KB at zmax 200) once
 * per block it served: perf put 31 % of an 8-harmonic search at 2^21 bins
 * in the complex product and the power, and 17 % in the sums
 * (docs/PERFORMANCE.md).  Here the segments of all the
 * blocks are FFT'd once; then, top template by top template (runs of them
 * over the threads), each top block's row is made, each sub-harmonic row
 * that the template reads is made when it changes (a sub-harmonic's
 * template rises with the top one's, as in optimized/cpu/accel_cpu_sums.c),
 * for all the top blocks one kernel after another, and the rows go to core
 * while they are in cache.  Every row is the pairs plane would make (the
 * same segments, kernels and FFTs), so the sums and the points are the same
 * bytes at any thread count. */
#include <math.h>
#include <stdlib.h>

#include <omp.h>

#include "optimized/cpu/accel_cpu_internal.h"

typedef struct {
    const cpu_state *s;
    const xc_accel_block *b;
    int ng, per;
    const int *tsub;
    const size_t *off;      /* block k's segments: [off[k], off[k + 1]) */
    const fftwf_complex *D; /* the segments, FFT'd */
    xc_accel_rows_fn fn;
    void *ctx;
} rows_t;

/* Block k's row of template t. */
static void make_row(const rows_t *w, int k, int t, float *row, fftwf_complex *tmp)
{
    const size_t L = (size_t)w->s->L;
    for (size_t q = w->off[k]; q < w->off[k + 1]; q++)
        xc_accel_cpu_pair(w->s, w->D + q * L, t, q - w->off[k], w->b[k].nr, row, tmp, INFINITY);
}

/* Top templates [ta, tb): every group's top row, the sub-harmonic rows
 * that change, then each group's rows to fn.  1 when out of memory or when
 * fn says stop. */
static int run(const rows_t *w, int ta, int tb)
{
    const int nb = w->ng * w->per, nsub = w->per - 1, nt = w->s->ntempl;
    size_t len = 0;
    for (int k = 0; k < nb; k++)
        len += w->b[k].nr + 8;   /* + 8: readable past the end (xc_accel_stage_add's loads) */
    float *buf = calloc(len, sizeof *buf), **row = malloc((size_t)nb * sizeof *row);
    int *cur = malloc((size_t)(nsub > 0 ? nsub : 1) * sizeof *cur);
    fftwf_complex *tmp = fftwf_malloc(2 * (size_t)w->s->L * sizeof *tmp);
    int bad = !buf || !row || !cur || !tmp;
    for (int k = 0, o = 0; !bad && k < nb; o += (int)w->b[k].nr + 8, k++)
        row[k] = buf + o;
    for (int e = 0; !bad && e < nsub; e++)
        cur[e] = -1;
    for (int t = ta; t < tb && !bad; t++) {
        for (int g = 0; g < w->ng; g++)
            make_row(w, g * w->per, t, row[g * w->per], tmp);
        for (int e = 0; e < nsub; e++) {
            const int ts = w->tsub[(size_t)e * (size_t)nt + (size_t)t];
            for (int g = 0; ts != cur[e] && g < w->ng; g++)
                make_row(w, g * w->per + 1 + e, ts, row[g * w->per + 1 + e], tmp);
            cur[e] = ts;
        }
        for (int g = 0; g < w->ng && !bad; g++)
            bad = w->fn(w->ctx, g, t, (const float *const *)(row + g * w->per));
    }
    free(buf);
    free(row);
    free(cur);
    fftwf_free(tmp);
    return bad;
}

xc_status xc_accel_cpu_rows(const xc_accel_searcher *self, void *state, const xc_accel_plan *p, const xc_accel_block *b,
                            int ng, int per, const int *tsub, xc_accel_rows_fn fn, void *ctx, xc_error *err)
{
    (void)self;
    (void)p;
    const cpu_state *s = state;
    const size_t L = (size_t)s->L, V = (size_t)s->V;
    const int nb = ng * per, nt = s->ntempl;
    size_t *off = malloc(((size_t)nb + 1) * sizeof *off);
    if (!off)
        return xc_error_set(err, XC_ENOMEM, "accel cpu: out of memory (%d blocks)", nb);
    off[0] = 0;
    for (int k = 0; k < nb; k++)
        off[k + 1] = off[k] + (b[k].nr + V - 1) / V;
    const size_t nseg = off[nb];
    fftwf_complex *D = fftwf_malloc((nseg ? nseg : 1) * L * sizeof *D);
    const int nth = s->threads > 0 ? s->threads : omp_get_max_threads();
    int bad = !D;
    const long nsegl = bad ? 0 : (long)nseg;
#pragma omp parallel num_threads(nth < nsegl ? nth : (nsegl > 0 ? (int)nsegl : 1)) reduction(| : bad)
    {
        float *af = malloc((L + 2) * sizeof *af);
        bad = !af;
#pragma omp for schedule(static)
        for (long q = 0; q < nsegl; q++) {
            int k = 0;
            while (off[k + 1] <= (size_t)q)
                k++;
            if (af)
                xc_accel_cpu_block_segment(s, &b[k], (size_t)q - off[k], af, D + (size_t)q * L);
        }
        free(af);
    }
    /* runs of top templates over the threads (each starts its sub-harmonic
     * rows afresh, so a few runs a thread) */
    const rows_t w = {s, b, ng, per, tsub, off, D, fn, ctx};
    const int nrun = nth == 1 ? 1 : (4 * nth < nt ? 4 * nth : nt), nrunok = bad ? 0 : nrun;
#pragma omp parallel for schedule(dynamic, 1) num_threads(nth < nrun ? nth : nrun) reduction(| : bad)
    for (int k = 0; k < nrunok; k++)
        bad |= run(&w, (int)((long)nt * k / nrun), (int)((long)nt * (k + 1) / nrun));
    fftwf_free(D);
    free(off);
    return bad ? xc_error_set(err, XC_ENOMEM, "accel cpu: out of memory (rows of %d blocks, or candidates)", nb)
               : XC_OK;
}
