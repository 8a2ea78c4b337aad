/* crosscheck run: the approximate dedispersers (XC_CAP_APPROXIMATE: subband,
 * and whatever else the registry holds with that capability).  They are not
 * held to the exact planes; instead each gets, per observation:
 *   - "approximate vs its reference (bit for bit)" (fast versions only): its
 *     plane equals the plane of one REFERENCE|APPROXIMATE entry of the
 *     family, on the observation's first max_delay + HEAD_OUT spectra (the
 *     references are plain loops, some 100x slower: on the whole of
 *     synthetic-8bit they took most of a 100 s run; a head of the file still
 *     holds every delay of every trial and every gulp edge case the stream
 *     has, and tests/test_subband.c, test_tree.c and test_gpu_approx.c compare
 *     whole planes on random data).  The pair is found by behaviour: no descriptor
 *     names its reference, so the descriptors (and the ones other branches
 *     add) keep their shape, and no name is compared with a literal.
 *   - "S/N loss within the declared bound": injected pulses on the
 *     observation's geometry (compare/xc_smear.h), each trial against direct
 *     dedispersion at the same DM, on the plan's first trials of every range;
 *     failed without measuring when the bound declared for the whole plan is
 *     above -maxloss (core/dedisp/approx/xc_ddloss.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/base/cli.h"
#include "cli/base/cli_ddfile.h"
#include "cli/run/run.h"
#include "compare/check/xc_checks.h"
#include "compare/xc_smear.h"
#include "core/dedisp/approx/xc_ddloss.h"
#include "core/base/xc_nbits.h"
#include "core/dedisp/run/xc_ddstream.h"
#include "core/base/xc_fmt.h"

#define MAXREF 8
#define SMEAR_TRIALS 12   /* trials of each range measured ... */
#define SMEAR_EVERY 3     /* ... every third of them */
#define HEAD_OUT 4096     /* output samples of the bit-for-bit comparison */

/* The observation's first max_delay + HEAD_OUT spectra as a filterbank of
 * their own in the work directory (path in head), or the file itself (head
 * = fil) when it is not longer than that or has more than one IF. */
static xc_status head_of(runctx *c, const char *obs, const char *fil, const xc_dmplan *plan, char *head, size_t n,
                         xc_error *err)
{
    xc_fbreader *r;
    xc_fbwriter *w = NULL;
    snprintf(head, n, "%s", fil);
    xc_status st = xc_fbreader_open(&r, fil, NULL, err);
    if (st)
        return st;
    const xc_fbheader *h = xc_fbreader_header(r);
    const xc_geometry g = {h->nchans, h->fch1, h->foff, h->tsamp};
    int64_t maxd = 0;
    uint16_t *buf = NULL;
    float *fbuf = NULL;
    st = xc_dmplan_max_delay(c->cv, &g, plan, &maxd, err);
    const uint64_t want = (uint64_t)maxd + HEAD_OUT;
    if (st || h->nifs != 1 || h->nsamp <= want) {
        xc_fbreader_close(r);
        return st;
    }
    xc_fbheader hh;
    xc_fbheader_init(&hh);
    char path[4300];
    xc_fmt(path, sizeof path, "%s/%s.head.fil", c->work, obs);
    if (!(st = xc_fbheader_copy(&hh, h, err))) {
        hh.nsamples = (int32_t)want;
        const size_t vals = (size_t)want * (size_t)h->nchans;
        if (xc_nbits_is_float(h->nbits) ? !(fbuf = malloc(vals * sizeof *fbuf)) : !(buf = malloc(vals * sizeof *buf)))
            st = xc_error_set(err, XC_ENOMEM, "%s: out of memory for its first %llu spectra", fil,
                              (unsigned long long)want);
        else if (xc_nbits_is_float(h->nbits))
            st = xc_fbreader_read_f32(r, 0, (size_t)want, 0, fbuf, err);
        else
            st = xc_fbreader_read_u16(r, 0, (size_t)want, 0, buf, err);
        if (!st)
            st = xc_fbwriter_open(&w, path, &hh, XC_BITORDER_LSB, err);
        if (!st)
            st = xc_nbits_is_float(h->nbits) ? xc_fbwriter_write_f32(w, fbuf, (size_t)want, err)
                                : xc_fbwriter_write_u16(w, buf, (size_t)want, err);
        if (!st)
            st = xc_fbwriter_commit(w, err);
        else if (w)
            xc_fbwriter_abort(w);
    }
    if (!st)
        snprintf(head, n, "%s", path);
    free(buf);
    free(fbuf);
    xc_fbheader_free(&hh);
    xc_fbreader_close(r);
    return st;
}

static xc_status plane_of(runctx *c, const char *obs, const char *fil, const xc_dedisperser *d,
                          const xc_dmplan *plan, xc_planefile *pf, xc_error *err)
{
    char out[4300], json[4400];
    memset(pf, 0, sizeof *pf);
    xc_fmt(out, sizeof out, "%s/%s.%s", c->work, obs, d->impl.name);
    xc_fmt(json, sizeof json, "%s.json", out);
    xc_ddopts o;
    memset(&o, 0, sizeof o);
    o.threads = c->threads;
    o.maxloss = c->maxloss;
    xc_status st = xc_cli_dedisperse_file_opts(fil, out, d, plan, c->cv, &o, 0, NULL, err);
    return st ? st : xc_planefile_read(pf, json, err);
}

/* The plan's first SMEAR_TRIALS trials of each range, as "lo:hi:step:ds,...". */
static int short_plan(const xc_dmplan *plan, char *buf, size_t n)
{
    size_t used = 0;
    buf[0] = 0;
    for (int k = 0; k < plan->nranges; k++) {
        const xc_dmrange *r = &plan->r[k];
        if (!(r->step > 0))
            return -1;
        size_t m = r->ndm < SMEAR_TRIALS ? r->ndm : SMEAR_TRIALS;
        int w = snprintf(buf + used, n - used, "%s%.17g:%.17g:%.17g:%d", k ? "," : "", r->lo,
                         r->lo + (double)m * r->step, r->step, r->ds);
        if (w < 0 || (size_t)w >= n - used)
            return -1;
        used += (size_t)w;
    }
    return 0;
}

static void smear_rows(runctx *c, const char *obs, const char *fil, const xc_dmplan *plan, const xc_dedisperser *a,
                       const xc_dedisperser *direct)
{
    static const char *check = "S/N loss within the declared bound (injected pulses)";
    xc_error e;
    char sp[2048];
    xc_fbreader *r;
    if (short_plan(plan, sp, sizeof sp)) {
        xc_vd_fail(&c->vd, obs, a->impl.name, check, "the plan has no uniform ranges to inject pulses on", "-");
        return;
    }
    if (!direct) {
        xc_vd_fail(&c->vd, obs, a->impl.name, check, "no direct dedisperser to measure against", "-");
        return;
    }
    if (xc_fbreader_open(&r, fil, NULL, &e)) {
        xc_vd_fail(&c->vd, obs, a->impl.name, check, e.msg, "-");
        return;
    }
    const xc_fbheader *h = xc_fbreader_header(r);
    xc_ddopts o;
    memset(&o, 0, sizeof o);
    o.threads = c->threads;
    o.maxloss = c->maxloss;
    /* pulses of the width the limit is stated for and twice it, so that no
     * row passes on a bound above the limit; the nsub the whole plan's
     * plane is made with (the short plan could choose another) */
    const int widths[] = {(int)XC_DDLOSS_WIDTH, 2 * (int)XC_DDLOSS_WIDTH};
    xc_smear_cfg cfg = {h->nchans, h->fch1, h->foff, h->tsamp, sp, c->cv->name, widths, 2, SMEAR_EVERY, 1.0};
    xc_fbreader_close(r);
    double declared;
    if (xc_cli_approx_declared(fil, a, plan, c->cv, &o, &declared, &o.nsub, &e)) {
        xc_vd_fail(&c->vd, obs, a->impl.name, check, e.msg, "-");
        return;
    }
    (void)declared;
    xc_smear_row *rows = NULL;
    size_t n = 0;
    xc_status st = xc_smear_measure(a, direct, &o, &cfg, &rows, &n, &e);
    if (st)
        xc_vd_fail(&c->vd, obs, a->impl.name, check, e.msg, "-");
    else
        xc_vd_note(&c->vd, xc_check_smear(&c->vd.rows, obs, a->impl.name, rows, n, &e), &e);
    free(rows);
}

/* Whether d's declared loss for fil's geometry and plan is within -maxloss
 * (if not, err says why). */
static int within_limit(const runctx *c, const char *fil, const xc_dedisperser *d, const xc_dmplan *plan,
                        xc_error *err)
{
    xc_ddopts o;
    memset(&o, 0, sizeof o);
    o.maxloss = c->maxloss;
    double loss;
    int nsub;
    return xc_cli_approx_declared(fil, d, plan, c->cv, &o, &loss, &nsub, err) == XC_OK;
}

/* The memory of the approximate steps, said and judged against -max_memory
 * (run_memory): the head of the file read whole (head_of), the head's
 * planes of every approximate reference (held all at once) and of the one
 * judged, and a stream's gulp buffers (xc_ddstream_estimate of the whole
 * file: the head's are no larger).  Non-zero: the steps do not run. */
static int approx_memory(runctx *c, const char *obs, const char *fil, const xc_dmplan *plan)
{
    const xc_registry *reg = xc_cli_registry();
    const unsigned both = XC_CAP_REFERENCE | XC_CAP_APPROXIMATE;
    int k = 1;
    for (size_t i = 0; i < xc_registry_count(reg, XC_FAMILY_DEDISPERSE) && k <= MAXREF; i++) {
        const xc_impl *im = xc_registry_at(reg, XC_FAMILY_DEDISPERSE, i);
        k += (im->caps & both) == both && xc_impl_available(im, NULL, 0);
    }
    xc_error e;
    xc_fbreader *r;
    xc_ddstream_est est;
    if (run_dd_estimate(c, fil, plan, &est) || xc_fbreader_open(&r, fil, NULL, &e))
        return 0;   /* the steps say it, as rows */
    const xc_fbheader *h = xc_fbreader_header(r);
    const xc_geometry g = {h->nchans, h->fch1, h->foff, h->tsamp};
    int64_t maxd = 0;
    xc_status st = xc_dmplan_max_delay(c->cv, &g, plan, &maxd, &e);
    const double want = (double)maxd + HEAD_OUT, ns = want < (double)h->nsamp ? want : (double)h->nsamp;
    const double in = ns * h->nchans * (xc_nbits_is_float(h->nbits) ? sizeof(float) : sizeof(uint16_t));
    xc_fbreader_close(r);
    if (st)
        return 0;
    double plane = 0;
    for (int j = 0; j < plan->nranges; j++)
        plane += (double)plan->r[j].ndm * (ns - (double)maxd) / (plan->r[j].ds > 0 ? plan->r[j].ds : 1) * sizeof(float);
    const double gulp = est.bytes - est.plane;
    char what[160], bi[32], bp[32], bg[32];
    xc_fmt_bytes(bi, sizeof bi, in);
    xc_fmt_bytes(bp, sizeof bp, plane);
    xc_fmt_bytes(bg, sizeof bg, gulp);
    xc_fmt(what, sizeof what, "the head's %s, %d planes of %s, a gulp's %s", bi, k, bp, bg);
    return run_memory(c, obs, "approximate dedispersion", in + k * plane + gulp, what);
}

void run_approx(runctx *c, const char *obs, const char *fil, const xc_dmplan *plan, const xc_impl *const *approx,
                int na)
{
    if (na < 1)
        return;
    const xc_registry *reg = xc_cli_registry();
    const xc_family fam = XC_FAMILY_DEDISPERSE;
    const xc_impl *di = xc_registry_pick(reg, fam, XC_CLI_DEFAULT_WANT, XC_CLI_DEFAULT_AVOID);
    const xc_dedisperser *direct = di ? xc_dedisperser_of(di) : NULL;
    /* the planes of every available approximate reference, made once */
    xc_planefile refs[MAXREF];
    const xc_plane *rp[MAXREF];
    const char *rn[MAXREF];
    int nr = 0, need = 0, nbits = 0;
    xc_error e;
    xc_fbreader *fr;
    if (!xc_fbreader_open(&fr, fil, NULL, &e)) {
        nbits = xc_fbreader_header(fr)->nbits;
        xc_fbreader_close(fr);
    }
    /* bit for bit is promised on integer input only (float sums are doubles
     * added in another order; tests/test_subband.c holds them to the float bound) */
    const int integer = nbits > 0 && nbits < 32;
    if (approx_memory(c, obs, fil, plan))
        return;
    for (int i = 0; i < na; i++)
        need |= !(approx[i]->caps & XC_CAP_REFERENCE) && integer;
    char head[4300];
    if (need && head_of(c, obs, fil, plan, head, sizeof head, &e)) {
        xc_vd_fail(&c->vd, obs, "-", "approximate vs its reference (bit for bit)", e.msg, "-");
        need = 0;
    }
    for (size_t i = 0; need && i < xc_registry_count(reg, fam) && nr < MAXREF; i++) {
        const xc_impl *im = xc_registry_at(reg, fam, i);
        unsigned both = XC_CAP_REFERENCE | XC_CAP_APPROXIMATE;
        if ((im->caps & both) != both || !xc_impl_available(im, NULL, 0) ||
            !within_limit(c, fil, xc_dedisperser_of(im), plan, &e))
            continue;
        if (plane_of(c, obs, head, xc_dedisperser_of(im), plan, &refs[nr], &e)) {
            xc_vd_fail(&c->vd, obs, im->name, "dedisperse", e.msg, "runs without error");
            continue;
        }
        rp[nr] = &refs[nr].plane;
        rn[nr] = im->name;
        nr++;
    }
    for (int i = 0; i < na; i++) {
        const xc_dedisperser *d = xc_dedisperser_of(approx[i]);
        if (!within_limit(c, fil, d, plan, &e)) {
            /* not usable under the user's limit: not judged, and never a pass */
            char why[sizeof e.msg];
            snprintf(why, sizeof why, "%s", e.msg);
            xc_vd_note(&c->vd, xc_checks_addf(&c->vd.rows, obs, d->impl.name, "declared S/N-loss bound within -maxloss",
                                              XC_CHECK_SKIP, 0.0, 0.0, "-", &e, "%s", why),
                       &e);
            xc_vd_emit(&c->vd);
            continue;
        }
        if (!(approx[i]->caps & XC_CAP_REFERENCE)) {
            xc_planefile pf;
            memset(&pf, 0, sizeof pf);
            if (!integer)
                xc_vd_note(&c->vd, xc_checks_addf(&c->vd.rows, obs, d->impl.name, "approximate vs its reference (bit for bit)",
                                           XC_CHECK_SKIP, 0.0, 0.0, "-", &e, "float input: bit for bit not promised"),
                         &e);
            else if (!need)
                xc_vd_note(&c->vd, xc_checks_addf(&c->vd.rows, obs, d->impl.name, "approximate vs its reference (bit for bit)",
                                           XC_CHECK_SKIP, 0.0, 0.0, "-", &e, "no head of the file to compare on"),
                         &e);
            else if (plane_of(c, obs, head, d, plan, &pf, &e))
                xc_vd_fail(&c->vd, obs, d->impl.name, "approximate vs its reference (bit for bit)", e.msg, "-");
            else
                xc_vd_note(&c->vd, xc_check_approx_ref(&c->vd.rows, obs, d->impl.name, &pf.plane, rp, rn, nr, &e), &e);
            xc_planefile_free(&pf);
        }
        smear_rows(c, obs, fil, plan, d, direct);
        xc_vd_emit(&c->vd);
    }
    for (int i = 0; i < nr; i++)
        xc_planefile_free(&refs[i]);
}
