/* Blocks of the plane gathered for one `rows` call (see
 * xc_accel_queue.h). */
#include <stdlib.h>
#include <string.h>

#include "core/search/accel/xc_accel_queue.h"

xc_status xc_accel_queue_init(xc_accel_queue *q, int max, xc_error *err)
{
    memset(q, 0, sizeof *q);
    q->b = calloc((size_t)max, sizeof *q->b);
    q->amp = calloc((size_t)max, sizeof *q->amp);
    q->cap = calloc((size_t)max, sizeof *q->cap);
    q->max = max;
    if (!q->b || !q->amp || !q->cap)
        return xc_error_set(err, XC_ENOMEM, "accel: out of memory (a queue of %d blocks)", max);
    return XC_OK;
}

xc_status xc_accel_queue_add(xc_accel_queue *q, size_t n, xc_accel_block **blk, double **amp, xc_error *err)
{
    if (q->n >= q->max)
        return xc_error_set(err, XC_EINVAL, "accel: more than %d blocks queued", q->max);
    if (n > q->cap[q->n]) {
        double *a = realloc(q->amp[q->n], 2 * n * sizeof *a);
        if (!a)
            return xc_error_set(err, XC_ENOMEM, "accel: out of memory (data segment of %zu bins)", n);
        q->amp[q->n] = a;
        q->cap[q->n] = n;
    }
    *amp = q->amp[q->n];
    *blk = &q->b[q->n++];
    return XC_OK;
}

void xc_accel_queue_free(xc_accel_queue *q)
{
    for (int k = 0; q->amp && k < q->max; k++)
        free(q->amp[k]);
    free(q->amp);
    free(q->b);
    free(q->cap);
    memset(q, 0, sizeof *q);
}
