/* fuzz_planefile.c: DM-time plane files (xc_planefile_read: OUT.json and
 * the OUT.r<k>.npy arrays it names) and their writer (xc_plane_write).
 *
 * The input is the JSON, a NUL byte, then the bytes of p.r0.npy; the same
 * bytes are also written as p.r1.npy and p.r2.npy, so a JSON naming up to
 * three ranges finds its arrays.  Properties of an accepted plane:
 *  - the sizes fit: every range's array has one row per DM trial listed and
 *    the plane's shape is the arrays' (they fit the files, as fuzz_npy checks);
 *  - the numbers are in the ranges their use needs: nbits 1, 2, 4, 8, 16 or
 *    32; nchans >= 1 with 0 <= nchans_used <= nchans; tsamp finite and > 0;
 *    each range's downsample in 1..XC_DMPLAN_MAX_DS; DMs finite, ascending;
 *    no more than XC_DMPLAN_MAX_TRIALS trials;
 *  - write-then-read is the identity: xc_plane_write of what was read reads
 *    back with the same metadata, DMs and values. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/xc_nbits.h"
#include "core/dedisp/run/xc_planefile.h"
#include "fuzz/fuzz_util.h"

static void check(const xc_planefile *pf)
{
    const xc_planemeta *m = &pf->meta;
    int nb = m->nbits;
    XC_FUZZ_CHECK(xc_nbits_valid(nb), "plane: nbits %d accepted", nb);
    XC_FUZZ_CHECK(m->nchans >= 1 && m->nchans_used >= 0 && m->nchans_used <= m->nchans,
                  "plane: nchans %d, nchans_used %d accepted", m->nchans, m->nchans_used);
    XC_FUZZ_CHECK(isfinite(m->tsamp) && m->tsamp > 0, "plane: tsamp %g accepted", m->tsamp);
    XC_FUZZ_CHECK(isfinite(m->fch1) && isfinite(m->foff), "plane: fch1 %g, foff %g accepted", m->fch1, m->foff);
    XC_FUZZ_CHECK(pf->plan.nranges >= 1 && pf->plan.nranges == pf->plane.nranges, "plane: %d ranges, %d arrays",
                  pf->plan.nranges, pf->plane.nranges);
    size_t total = 0;
    for (int k = 0; k < pf->plan.nranges; k++) {
        const xc_dmrange *r = &pf->plan.r[k];
        const xc_planerange *pr = &pf->plane.r[k];
        XC_FUZZ_CHECK(r->ds >= 1 && r->ds <= XC_DMPLAN_MAX_DS && pr->ds == r->ds, "plane: range %d downsample %d", k,
                      r->ds);
        XC_FUZZ_CHECK(pr->ndm == r->ndm, "plane: range %d: %zu rows for %zu DMs", k, pr->ndm, r->ndm);
        for (size_t j = 0; j < r->ndm; j++)
            XC_FUZZ_CHECK(isfinite(r->dms[j]) && (j == 0 || r->dms[j] > r->dms[j - 1]),
                          "plane: range %d: DM %zu = %g accepted", k, j, r->dms[j]);
        total += r->ndm;
    }
    XC_FUZZ_CHECK(total <= XC_DMPLAN_MAX_TRIALS, "plane: %zu trials accepted", total);
}

static void same(const xc_planefile *a, const xc_planefile *b)
{
    const xc_planemeta *x = &a->meta, *y = &b->meta;
    XC_FUZZ_CHECK(!strcmp(x->impl, y->impl) && !strcmp(x->convention, y->convention) && !strcmp(x->cmdline, y->cmdline)
                  && !strcmp(x->input, y->input), "plane: a string changes in write-then-read");
    XC_FUZZ_CHECK(x->nbits == y->nbits && x->nchans == y->nchans && x->nchans_used == y->nchans_used &&
                  x->max_delay == y->max_delay && x->nsamp_in == y->nsamp_in,
                  "plane: an integer changes in write-then-read");
    XC_FUZZ_CHECK(xc_fuzz_same(x->tsamp, y->tsamp) && xc_fuzz_same(x->fch1, y->fch1) && xc_fuzz_same(x->foff, y->foff)
                  && xc_fuzz_same(x->seconds, y->seconds), "plane: a number changes in write-then-read");
    XC_FUZZ_CHECK(a->plan.nranges == b->plan.nranges, "plane: the range count changes");
    for (int k = 0; k < a->plan.nranges; k++) {
        const xc_dmrange *r = &a->plan.r[k], *s = &b->plan.r[k];
        XC_FUZZ_CHECK(r->ds == s->ds && r->ndm == s->ndm && xc_fuzz_same(r->lo, s->lo) && xc_fuzz_same(r->hi, s->hi)
                      && xc_fuzz_same(r->step, s->step), "plane: range %d changes in write-then-read", k);
        for (size_t j = 0; j < r->ndm; j++)
            XC_FUZZ_CHECK(xc_fuzz_same(r->dms[j], s->dms[j]), "plane: range %d DM %zu changes", k, j);
        const xc_planerange *p = &a->plane.r[k], *q = &b->plane.r[k];
        XC_FUZZ_CHECK(p->nsamp == q->nsamp && p->ndm == q->ndm, "plane: range %d's shape changes", k);
        XC_FUZZ_CHECK(!p->ndm || !p->nsamp || !memcmp(p->data, q->data, p->ndm * p->nsamp * sizeof(float)),
                      "plane: range %d's values change", k);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *nul = memchr(data, 0, size);
    size_t jl = nul ? (size_t)(nul - data) : size;
    const uint8_t *npy = nul ? nul + 1 : data + size;
    size_t nl = size - jl - (nul ? 1 : 0);
    xc_fuzz_input("p.r0.npy", npy, nl);
    xc_fuzz_input("p.r1.npy", npy, nl);
    xc_fuzz_input("p.r2.npy", npy, nl);
    char json[4200];
    snprintf(json, sizeof json, "%s", xc_fuzz_input("p.json", data, jl));
    xc_planefile pf, back;
    xc_error e;
    if (xc_planefile_read(&pf, json, &e) != XC_OK)
        return 0;
    check(&pf);
    char out[4200];
    snprintf(out, sizeof out, "%s", xc_fuzz_path("out"));
    XC_FUZZ_CHECK(xc_plane_write(out, &pf.plane, &pf.plan, &pf.meta, &e) == XC_OK,
                  "plane: the writer refuses what the reader accepted: %s", e.msg);
    char outjson[4300];
    snprintf(outjson, sizeof outjson, "%s.json", out);
    XC_FUZZ_CHECK(xc_planefile_read(&back, outjson, &e) == XC_OK, "plane: the writer's plane does not read: %s",
                  e.msg);
    same(&pf, &back);
    xc_planefile_free(&back);
    xc_planefile_free(&pf);
    return 0;
}
