/* fuzz_spcands.c: single-pulse candidate files (core/sp/files/xc_spfiles.h): the
 * input read as a Heimdall .cand, a PRESTO .singlepulse and our CSV.
 *
 * Properties of an accepted list: every candidate passes xc_spcand_check
 * (the readers' own ranges); tsamp finite and >= 0; and a list read from
 * .cand or .singlepulse, written in that format and read again, gives the
 * same samples, widths, DM indices, members and extents (a fixed point: the
 * written file is a valid input of its own reader). */
#include <math.h>
#include <string.h>

#include "core/sp/files/xc_spfiles.h"
#include "fuzz/fuzz_util.h"

static void check_list(const xc_spcandlist *l, const char *fmt)
{
    XC_FUZZ_CHECK(isfinite(l->tsamp) && l->tsamp >= 0, "%s: tsamp %g accepted", fmt, l->tsamp);
    xc_error e;
    for (size_t i = 0; i < l->n; i++)
        XC_FUZZ_CHECK(xc_spcand_check(&l->c[i], fmt, &e) == XC_OK, "%s: candidate %zu accepted: %s", fmt, i,
                      e.msg);
}

typedef xc_status (*writer)(const xc_spcandlist *, const char *, xc_error *);

/* l written by w and read back by fmt: the integer columns survive. */
static void fixed_point(const xc_spcandlist *l, const char *name, xc_spformat fmt, writer w)
{
    xc_spcandlist m;
    xc_spcandlist_init(&m);
    xc_error e;
    const char *path = xc_fuzz_path(name);
    XC_FUZZ_CHECK(w(l, path, &e) == XC_OK, "%s: cannot write what was read: %s", name, e.msg);
    XC_FUZZ_CHECK(xc_spcands_read(&m, path, fmt, &e) == XC_OK, "%s: cannot read what was written: %s", name, e.msg);
    XC_FUZZ_CHECK(m.n == l->n, "%s: %zu candidates written, %zu read", name, l->n, m.n);
    for (size_t i = 0; i < l->n; i++) {
        const xc_spcand *a = &l->c[i], *b = NULL;
        for (size_t j = 0; j < m.n && !b; j++)   /* the PRESTO writer reorders by DM */
            if (m.c[j].sample == a->sample && m.c[j].width == a->width && m.c[j].dm_index == a->dm_index &&
                m.c[j].begin == a->begin && m.c[j].end == a->end && m.c[j].members == a->members)
                b = &m.c[j];
        XC_FUZZ_CHECK(b != NULL, "%s: candidate %zu (sample %lld, width %d) did not come back", name, i,
                      (long long)a->sample, (int)a->width);
    }
    xc_spcandlist_free(&m);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    xc_spcandlist l;
    xc_spcandlist_init(&l);
    xc_error e;
    if (xc_spcands_read(&l, xc_fuzz_input("in.cand", data, size), XC_SPFMT_AUTO, &e) == XC_OK) {
        check_list(&l, "cand");
        fixed_point(&l, "out.cand", XC_SPFMT_HEIMDALL, xc_spcands_write_heimdall);
    }
    if (xc_spcands_read(&l, xc_fuzz_input("in.singlepulse", data, size), XC_SPFMT_AUTO, &e) == XC_OK) {
        check_list(&l, "singlepulse");
        fixed_point(&l, "out.singlepulse", XC_SPFMT_PRESTO, xc_spcands_write_presto);
    }
    if (xc_spcands_read(&l, xc_fuzz_input("in.csv", data, size), XC_SPFMT_CSV, &e) == XC_OK)
        check_list(&l, "csv");
    xc_spcandlist_free(&l);
    return 0;
}
