/* cands_props.c: the candidate-file properties (cands_props.h). */
#include "fuzz/cands_props.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz/fuzz_util.h"

static void same_cand(const char *what, size_t i, const xc_cand *a, const xc_cand *b)
{
    const double x[] = {a->r, a->z, a->w, a->f_hz, a->fdot_hz_s, a->accel_m_s2, a->power, a->dof, a->logp, a->sigma,
                        a->ntrials};
    const double y[] = {b->r, b->z, b->w, b->f_hz, b->fdot_hz_s, b->accel_m_s2, b->power, b->dof, b->logp, b->sigma,
                        b->ntrials};
    for (size_t k = 0; k < sizeof x / sizeof x[0]; k++)
        XC_FUZZ_CHECK(xc_fuzz_same(x[k], y[k]), "%s: candidate %zu field %zu: %.17g reads back from CSV as %.17g",
                      what, i, k, x[k], y[k]);
    XC_FUZZ_CHECK(a->width == b->width && a->numharm == b->numharm,
                  "%s: candidate %zu: width/numharm %d/%d read back as %d/%d", what, i, a->width, a->numharm, b->width,
                  b->numharm);
}

void xc_fuzz_cands_props(const char *what, const xc_candlist *l)
{
    xc_error e;
    for (size_t i = 0; i < l->n; i++)
        XC_FUZZ_CHECK(xc_cand_check(&l->c[i], what, &e) == XC_OK, "%s: candidate %zu accepted but %s", what, i,
                      e.msg);
    /* CSV: write-then-read is the identity */
    const char *csv = xc_fuzz_path("rt.csv");
    XC_FUZZ_CHECK(xc_cands_write_csv_w(l, csv, &e) == XC_OK, "%s: the CSV writer refuses: %s", what, e.msg);
    xc_candlist b;
    xc_candlist_init(&b);
    XC_FUZZ_CHECK(xc_cands_read_csv(&b, csv, &e) == XC_OK, "%s: the CSV written does not read back: %s", what,
                  e.msg);
    XC_FUZZ_CHECK(b.n == l->n, "%s: %zu candidates read back as %zu", what, l->n, b.n);
    for (size_t i = 0; i < l->n; i++)
        same_cand(what, i, &l->c[i], &b.c[i]);
    xc_candlist_free(&b);

    /* .pulscand: refused cleanly, or a fixed point after one write */
    if (!(l->T > 0))
        return;
    char p1[4200], p2[4200];
    snprintf(p1, sizeof p1, "%s", xc_fuzz_path("rt1.pulscand"));
    snprintf(p2, sizeof p2, "%s", xc_fuzz_path("rt2.pulscand"));
    if (xc_cands_write_pulscand(l, p1, &e) != XC_OK)
        return;
    xc_candlist_init(&b);
    XC_FUZZ_CHECK(xc_cands_read_pulscand(&b, p1, l->T, &e) == XC_OK, "%s: the .pulscand written does not read: %s",
                  what, e.msg);
    XC_FUZZ_CHECK(b.n == l->n, "%s: %zu candidates read back from .pulscand as %zu", what, l->n, b.n);
    XC_FUZZ_CHECK(xc_cands_write_pulscand(&b, p2, &e) == XC_OK, "%s: the .pulscand writer refuses its own: %s",
                  what, e.msg);
    xc_candlist_free(&b);
    uint8_t *x, *y;
    size_t nx, ny;
    xc_fuzz_slurp(p1, &x, &nx);
    xc_fuzz_slurp(p2, &y, &ny);
    XC_FUZZ_CHECK(nx == ny && !memcmp(x, y, nx), "%s: writing a .pulscand read back changes it", what);
    free(x);
    free(y);
}

void xc_fuzz_cands_read(const char *what, const char *path, xc_fuzz_cands_reader read)
{
    xc_candlist l;
    xc_error e;
    xc_candlist_init(&l);
    if (read(&l, path, &e) == XC_OK)
        xc_fuzz_cands_props(what, &l);
    else
        XC_FUZZ_CHECK(l.n == 0, "%s: refused, but %zu candidates left in the list", what, l.n);
    xc_candlist_free(&l);
}
