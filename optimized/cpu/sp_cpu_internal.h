/* sp_cpu_internal.h: what the CPU single-pulse files share and nobody else
 * needs: a thread's scratch and the row statistics (sp_cpu_stats.c). */
#ifndef XC_SP_CPU_INTERNAL_H
#define XC_SP_CPU_INTERNAL_H

#include "core/sp/xc_spsearch.h"

/* One thread's scratch for rows of up to n samples (xc_sp_scratch_alloc). */
typedef struct {
    double *P;        /* n + 1 prefix sums */
    double *v;        /* n / 32 + 1: a selection's sample */
    double *g;        /* n + 1: the values a selection gathers */
    double *m;        /* the blocks' baselines */
} xc_sp_scratch;

/* 0, or -1 when out of memory (then xc_sp_scratch_free is still safe). */
int xc_sp_scratch_alloc(xc_sp_scratch *w, size_t n, size_t nblocks);
void xc_sp_scratch_free(xc_sp_scratch *w);

/* The prefix sums P of row x (n samples), the baselines m and the rms s of
 * core/sp/xc_spsearch.h, exactly the reference's values (xc_sp_row_stats);
 * returns s. */
double xc_sp_cpu_prepare(const float *x, size_t n, const xc_spconf *c, xc_sp_scratch *w);

#endif
