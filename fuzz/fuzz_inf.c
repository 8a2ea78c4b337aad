/* fuzz_inf.c: the PRESTO .inf reader (xc_inf_read) and its writer.
 *
 * Properties of an accepted file:
 *  - N (bins) is a whole number >= 1 and dt (s) is finite and > 0: T = N dt
 *    is what the candidate readers and the fft step take from it;
 *  - breaks is 0 or 1, and with 1 the on/off pairs run in order inside
 *    0..N-1, the last ending at N-1 (what PRESTO's readinf needs);
 *  - write-then-read is the identity on the written form: what the writer
 *    makes of an accepted file reads back, and writing that again gives the
 *    same bytes and the same values (the labels' formats round, so the first
 *    write may normalise, never the second). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/io/xc_presto.h"
#include "fuzz/fuzz_util.h"

static void same_inf(const xc_inf *a, const xc_inf *b)
{
    const char *sa[] = {a->name, a->telescope, a->instrument, a->object, a->ra, a->dec, a->observer, a->band,
                        a->analyzer, a->notes};
    const char *sb[] = {b->name, b->telescope, b->instrument, b->object, b->ra, b->dec, b->observer, b->band,
                        b->analyzer, b->notes};
    for (size_t i = 0; i < sizeof sa / sizeof sa[0]; i++)
        XC_FUZZ_CHECK(!strcmp(sa[i], sb[i]), "inf: string %zu '%s' reads back as '%s'", i, sa[i], sb[i]);
    const double da[] = {a->mjd, a->n, a->dt, a->beam_diam, a->dm, a->freq_low, a->bw, a->chan_wid};
    const double db[] = {b->mjd, b->n, b->dt, b->beam_diam, b->dm, b->freq_low, b->bw, b->chan_wid};
    for (size_t i = 0; i < sizeof da / sizeof da[0]; i++)
        XC_FUZZ_CHECK(xc_fuzz_same(da[i], db[i]), "inf: number %zu %.17g reads back as %.17g", i, da[i], db[i]);
    XC_FUZZ_CHECK(a->barycentered == b->barycentered && a->breaks == b->breaks && a->nchan == b->nchan &&
                  a->numonoff == b->numonoff, "inf: an integer reads back differently");
    for (int k = 0; k < 2 * a->numonoff; k++)
        XC_FUZZ_CHECK(a->onoff[k] == b->onoff[k], "inf: on/off bin %.17g reads back as %.17g", a->onoff[k], b->onoff[k]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = xc_fuzz_input("in.inf", data, size);
    xc_inf a, b, c;
    xc_error e;
    if (xc_inf_read(&a, path, &e) != XC_OK)
        return 0;
    XC_FUZZ_CHECK(isfinite(a.n) && a.n >= 1 && a.n == floor(a.n), "inf: N = %.17g accepted", a.n);
    XC_FUZZ_CHECK(isfinite(a.dt) && a.dt > 0, "inf: dt = %.17g accepted", a.dt);
    XC_FUZZ_CHECK(a.breaks == 0 || a.breaks == 1, "inf: breaks = %d accepted", a.breaks);
    for (int k = 0; a.breaks && k < 2 * a.numonoff; k++)
        XC_FUZZ_CHECK(a.onoff[k] >= (k ? a.onoff[k - 1] : 0) && a.onoff[k] <= a.n - 1,
                      "inf: on/off bin %.17g accepted (N = %.17g)", a.onoff[k], a.n);
    XC_FUZZ_CHECK(!a.breaks || a.onoff[2 * a.numonoff - 1] == a.n - 1, "inf: pairs not ending at N-1 accepted");
    char p1[4200], p2[4200];
    snprintf(p1, sizeof p1, "%s", xc_fuzz_path("out1.inf"));
    snprintf(p2, sizeof p2, "%s", xc_fuzz_path("out2.inf"));
    /* the writer may refuse a value it cannot lay out (a line break inside a
     * string, another band); that is a clear error, not a failure */
    if (xc_inf_write(&a, p1, &e) != XC_OK)
        return 0;
    XC_FUZZ_CHECK(xc_inf_read(&b, p1, &e) == XC_OK, "inf: the writer's output does not read back: %s", e.msg);
    XC_FUZZ_CHECK(xc_inf_write(&b, p2, &e) == XC_OK, "inf: the writer refuses what it wrote: %s", e.msg);
    XC_FUZZ_CHECK(xc_inf_read(&c, p2, &e) == XC_OK, "inf: the second write does not read back: %s", e.msg);
    same_inf(&b, &c);
    uint8_t *x, *y;
    size_t nx, ny;
    xc_fuzz_slurp(p1, &x, &nx);
    xc_fuzz_slurp(p2, &y, &ny);
    XC_FUZZ_CHECK(nx == ny && !memcmp(x, y, nx), "inf: writing what was read back changes the file");
    free(x);
    free(y);
    return 0;
}
