/* crosscheck run: what its Pulscan and accel parts share.  The spectrum of
 * an entry (a file, or a synthetic pulsar made and FFT'd under work/), every
 * wanted searcher of a family searching it through the periodicity-search
 * contract (core/search/xc_psearch.h), each list judged against the
 * reference's, and the noise check each searcher gets once a run. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cli/base/cli.h"
#include "cli/base/cli_meter.h"
#include "cli/base/cli_search.h"
#include "core/base/xc_fmt.h"
#include "cli/run/run.h"
#include "core/base/xc_fs.h"
#include "core/io/xc_fft.h"
#include "core/io/xc_presto.h"
#include "core/base/xc_progress.h"
#include "synth/model/xc_synth.h"

/* The memory the family's search of sp needs (the spectrum held and the
 * search's own, xc_psearch_memory for the reference: the other searchers'
 * stages are bounded by its estimate), said and judged against -max_memory
 * (run_memory).  Non-zero: the step does not run. */
static int search_memory(runctx *c, const char *obs, const xc_spectrum *sp, const xc_psearch_opts *o)
{
    const xc_impl *ref = xc_registry_pick(xc_cli_registry(), o->family, XC_CAP_REFERENCE,
                                          XC_CAP_APPROXIMATE | XC_CAP_RUNTIME | XC_CAP_DEVICE);
    double bytes = 0, held = (double)sp->nbins * 2 * sizeof(float);
    xc_error e;
    if (!ref || xc_psearch_memory(ref, sp->nbins, sp->T, o, 1, &bytes, &e))
        return 0;   /* the search says why, as a row */
    char step[48], what[96], b1[32], b2[32];
    xc_fmt_bytes(b1, sizeof b1, held);
    xc_fmt_bytes(b2, sizeof b2, bytes);
    xc_fmt(step, sizeof step, "%s search", xc_family_name(o->family));
    xc_fmt(what, sizeof what, "the spectrum's %s, the search's %s", b1, b2);
    return run_memory(c, obs, step, held + bytes, what);
}

int run_searches(runctx *c, const char *obs, const xc_spectrum *sp, const xc_psearch_opts *o, run_judge_fn judge,
                 searchrun *runs)
{
    int n = 0;
    xc_error e;
    size_t i = 0;
    xc_psearch_opts mine = *o;
    xc_psearch_opts_threads(&mine, c->threads);
    double sigma;
    xc_psearch_opts_get(o, NULL, NULL, &sigma);
    const char *fam = xc_family_name(o->family);
    char what[32];
    xc_fmt(what, sizeof what, "%s ", fam);
    if (search_memory(c, obs, sp, &mine))
        return 0;
    for (const xc_impl *im; n < RUN_MAXIMPL && (im = run_next_impl(c, obs, what, o->family, &i));) {
        searchrun *r = &runs[n];
        memset(r, 0, sizeof *r);
        r->impl = im;
        xc_candlist_init(&r->cands);
        /* a long search (a reference on a large spectrum) shows its progress */
        char label[160];
        xc_fmt(label, sizeof label, "%s: %s %s", obs, im->name, fam);
        xc_progress meter;
        xc_progress_start(&meter, label, 1, c->quiet ? XC_PROGRESS_QUIET : XC_PROGRESS_AUTO);
        double t0 = xc_now();
        xc_status st = xc_cli_search_once(im, sp, &mine, xc_progress_callback(&meter), &r->cands, &e);
        r->seconds = xc_now() - t0;
        if (!st)
            xc_progress_end(&meter);
        if (st) {
            xc_vd_fail(&c->vd, obs, im->name, fam, e.msg, "runs without error");
            xc_vd_emit(&c->vd);
            xc_candlist_free(&r->cands);
            continue;
        }
        n++;
        if (n > 1) {
            xc_cmpcands_opts co;
            xc_cmpcands_opts_init(&co);
            co.sigma_min = sigma;
            judge(im, &runs[0].cands, &co);
            xc_vd_note(&c->vd, xc_check_cands(&c->vd.rows, obs, im->name, &r->cands, &runs[0].cands, &co, &e), &e);
            xc_vd_emit(&c->vd);
        }
        run_noise_check(c, obs, im);
    }
    return n;
}

void run_noise_check(runctx *c, const char *obs, const xc_impl *im)
{
    const xc_impl *ref = xc_registry_pick(xc_cli_registry(), im->family, XC_CAP_REFERENCE,
                                          XC_CAP_APPROXIMATE | XC_CAP_RUNTIME | XC_CAP_DEVICE);
    if (!ref || ref == im)
        return;
    for (int i = 0; i < c->nnoise_done; i++)
        if (c->noise_done[i] == im)
            return;
    if (c->nnoise_done < (int)(sizeof c->noise_done / sizeof c->noise_done[0]))
        c->noise_done[c->nnoise_done++] = im;
    xc_error e;
    xc_vd_note(&c->vd, xc_check_noise_search(&c->vd.rows, obs, im, ref, RUN_NOISE_SPECTRA, 900, &e), &e);
    xc_vd_emit(&c->vd);
}

void run_searches_free(searchrun *runs, int n)
{
    for (int i = 0; i < n; i++)
        xc_candlist_free(&runs[i].cands);
}

/* The synthetic pulsar's dedispersed series and its spectrum, under work/. */
xc_status run_synth_spectrum(runctx *c, const char *obs, const json_t *sobj, char *path, size_t np, char *truthp,
                             size_t nt, xc_error *e)
{
    xc_synth_params sp;
    xc_synth_params_init(&sp);
    char stem[4300], dat[4400];
    xc_fmt(stem, sizeof stem, "%s/%s", c->work, obs);
    xc_fmt(dat, sizeof dat, "%s.dat", stem);
    xc_fmt(truthp, nt, "%s.truth.json", stem);
    xc_fmt(path, np, "%s.fft", stem);
    sp.nthreads = c->threads;
    xc_status st;
    if (!(st = xc_synth_params_from_json(&sp, sobj, obs, e)) &&
        !(st = xc_synth_write_dedispersed(&sp, stem, truthp, xc_cli_cmdline(), e)))
        st = xc_fft_file(dat, stem, XC_FFT_SINGLE, e);
    xc_synth_params_free(&sp);
    return st;
}

int run_load_spectrum(runctx *c, const char *obs, const char *fft, const json_t *synth, xc_spectrum *sp, char *path,
                      size_t np, char *truthp, size_t nt)
{
    xc_error e;
    truthp[0] = '\0';
    if (fft) {
        if (xc_path_under(path, np, c->datasets, fft, &e)) {
            xc_vd_fail(&c->vd, obs, "-", "read spectrum", e.msg, "readable");
            xc_vd_emit(&c->vd);
            return 1;
        }
    } else if (run_synth_spectrum(c, obs, synth, path, np, truthp, nt, &e)) {
        xc_vd_fail(&c->vd, obs, "synth", "synthesize and FFT", e.msg, "runs without error");
        xc_vd_emit(&c->vd);
        return 1;
    }
    xc_vd_section(&c->vd, obs);
    if (xc_spectrum_load(sp, path, &e)) {
        xc_vd_fail(&c->vd, obs, "-", "read spectrum", e.msg, "readable");
        xc_vd_emit(&c->vd);
        return 1;
    }
    return 0;
}

void run_known(runctx *c, const char *obs, const char *fftpath, const xc_known *k, size_t nk, const searchrun *runs,
               int n)
{
    if (!nk)
        return;
    /* the DM the series was dedispersed at: the .inf beside the .fft */
    double dm = NAN;
    char inf[4600];
    size_t len = strlen(fftpath);
    xc_inf h;
    xc_error e;
    if (len > 4 && !strcmp(fftpath + len - 4, ".fft")) {
        xc_fmt(inf, sizeof inf, "%.*s.inf", (int)(len - 4), fftpath);
        if (!xc_inf_read(&h, inf, &e))
            dm = h.dm;
    }
    for (size_t j = 0; j < nk; j++)
        for (int i = 0; i < n && k[j].kind != XC_KNOWN_BURST; i++)
            xc_vd_note(&c->vd, xc_check_known(&c->vd.rows, obs, runs[i].impl->name, &runs[i].cands, &k[j],
                                              i == 0 ? dm : NAN, &e),
                       &e);
    xc_vd_emit(&c->vd);
    run_sp_series(c, obs, fftpath, k, nk);
}

