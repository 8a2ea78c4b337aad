/* crosscheck accel: the matched-filter acceleration (FDAS) / jerk (FDJS)
 * search of a PRESTO .fft, accelsearch-compatible. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/base/cli.h"
#include "cli/base/cli_meter.h"
#include "cli/base/cli_opts.h"
#include "cli/base/cli_search.h"
#include "core/search/xc_accel.h"

/* -zmax rounded up to even, -wmax to a multiple of 20: the grid searched. */
static void grid_max(const xc_accel_opts *o, int *zr, int *wr)
{
    *zr = (o->zmax + 1) / 2 * 2;
    *wr = (o->wmax + 19) / 20 * 20;
}

static xc_status ac_search(const xc_cli_search *s, const xc_spectrum *sp, xc_candlist *cl, xc_progress_cb cb,
                           xc_error *err)
{
    xc_psearch_opts o = {.family = XC_FAMILY_ACCEL, .ac = *(const xc_accel_opts *)s->opts};
    return xc_cli_search_once(&((const xc_accel_searcher *)s->impl)->impl, sp, &o, cb, cl, err);
}

static xc_status ac_write(const xc_cli_search *s, const xc_spectrum *sp, xc_candlist *cl, xc_error *err)
{
    (void)sp;
    if (!s->format)
        return xc_cands_write_csv_w(cl, s->out, err);
    char inf[4200];
    snprintf(inf, sizeof inf, "%.*s.inf", xc_cli_fft_root(s->input), s->input);
    return xc_accel_write_presto(cl, ((const xc_accel_opts *)s->opts)->wmax > 0, inf, s->out, err);
}

static void ac_summary(const xc_cli_search *s, const xc_spectrum *sp, const xc_candlist *cl, double secs)
{
    const xc_accel_opts *o = s->opts;
    int zr, wr;
    grid_max(o, &zr, &wr);
    printf("accel (%s, preset %s): %zu bins, T = %.6f s, zmax %d, wmax %d, numharm %d: %zu candidates with "
           "sigma > %g in %.3f s -> %s\n",
           ((const xc_accel_searcher *)s->impl)->impl.name, o->preset == XC_ACCEL_PRESTO ? "presto" : "exact",
           sp->nbins, sp->T, zr, wr, o->numharm, cl->n, o->sigma, secs, s->out);
    for (size_t k = 0; k < cl->n && k < 5; k++)
        printf("  #%zu  r = %.2f  f = %.6f Hz  z = %.1f  w = %.1f  numharm %d  power %.2f (PRESTO %.2f)  sigma "
               "%.2f\n",
               k + 1, cl->c[k].r, cl->c[k].f_hz, cl->c[k].z, cl->c[k].w, cl->c[k].numharm, cl->c[k].power,
               0.5 * cl->c[k].power, cl->c[k].sigma);
}

/* The command, apart from its options (their help is in the table). */
/* The file written: -o, or one named after the input and the grid searched. */
static void out_path(const char *input, const char *out, int accelfmt, const xc_accel_opts *o, char *path, size_t n)
{
    int root = xc_cli_fft_root(input);
    int zr, wr;
    grid_max(o, &zr, &wr);
    char tail[64];
    if (wr)
        snprintf(tail, sizeof tail, "_ACCEL_%d_JERK_%d", zr, wr);
    else
        snprintf(tail, sizeof tail, "_ACCEL_%d", zr);
    if (accelfmt)
        snprintf(path, n, "%.*s%s", out ? (int)strlen(out) : root, out ? out : input, tail);
    else if (out)
        snprintf(path, n, "%s", out);
    else
        snprintf(path, n, "%.*s%s.csv", root, input, tail);
}

int xc_cmd_accel(const xc_cmd *self, int argc, char **argv)
{
    const char *input = NULL, *out = NULL, *impl_name = NULL;
    xc_accel_opts o;
    xc_accel_opts_default(&o);
    int accelfmt = 0, presto = 0, highacc = 0, quiet = 0, progress = 0;
    char d[6][XC_DEF_LEN];   /* the defaults the help shows: those of xc_accel_opts_default */
    const xc_cli_defv dv[] = {{o.sigma, 1}, {o.flo, 1}, {o.fhi, 1}, {o.zmax, 0}, {o.numharm, 0}, {(double)o.normwidth, 0}};
    xc_cli_defaults(d, dv, 6);
    const xc_opt opts[] = {
        XC_OPT_STR("i", &input, .arg = "X.fft",
                   .help = "input spectrum (X.inf beside it); may also be the only argument"),
        XC_OPT_STR("o", &out, .arg = "OUT",
                   .help = "csv: the file (default X_ACCEL_<Z>[_JERK_<W>].csv); accel: the ROOT,\n"
                           "written as ROOT_ACCEL_<Z> or ROOT_ACCEL_<Z>_JERK_<W> (default X)"),
        XC_OPT_STR("impl", &impl_name, .arg = "NAME",
                   .help = "reference (direct double-precision correlation: small spectra or\n"
                           "-rlo/-rhi ranges), cpu (overlap-save, float FFTW, OpenMP)\n"
                           "or gpu (the same on the device, single precision; CUDA builds)", .def = "cpu"),
        XC_OPT_CHOICE("format", &accelfmt, "csv|accel", .arg = "csv|accel",
                      .help = "csv: r,f_hz,z,w,width,numharm,power,dof,logp,sigma,fdot_hz_s,\n"
                              "accel_m_s2,ntrials (power in chi-square units, 2x PRESTO's; width 0);\n"
                              "accel: PRESTO's fundamentals table (its sifting tools read it; no\n"
                              "harmonics table, Coherent Power nan: no polishing)", .def = "csv"),
        XC_OPT_INT("zmax", &o.zmax, 0, 1200, .arg = "Z", .help = "largest |z| in bins, 0..1200, rounded up to even",
                   .def = d[3]),
        XC_OPT_INT("wmax", &o.wmax, 0, 4000, .arg = "W",
                   .help = "largest |w| in bins, 0..4000, rounded up to a multiple of 20; 0: no\njerk search",
                   .def = "0"),
        XC_OPT_INT("numharm", &o.numharm, 1, 32, .arg = "H", .help = "harmonics summed: 1, 2, 4, 8, 16 or 32",
                   .def = d[4]),
        XC_OPT_NONNEG("sigma", &o.sigma, .arg = "S", .help = "keep candidates with sigma > S", .def = d[0]),
        XC_OPT_NONNEG("flo", &o.flo, .arg = "F",
                      .help = "lowest f searched (default accelsearch's), Hz of the highest harmonic\n"
                              "summed: rlo = floor(flo T)", .def = d[1]),
        XC_OPT_NONNEG("fhi", &o.fhi, .arg = "F",
                      .help = "highest f searched (default accelsearch's), Hz of the highest harmonic\n"
                              "summed: rhi = min(ceil(fhi T), nbins-1)", .def = d[2]),
        XC_OPT_NONNEG("rlo", &o.rlo, .arg = "R",
                      .help = "-flo in bins; overrides it (in accelsearch it never does: its\n"
                              "-flo/-fhi defaults count as given and win)"),
        XC_OPT_NONNEG("rhi", &o.rhi, .arg = "R", .help = "-fhi in bins; overrides it (likewise)"),
        XC_OPT_INT("ncpus", &o.threads, 1, 4096, .arg = "N", .help = "OpenMP threads", .def = "all"),
        XC_OPT_CHOICE("preset", &presto, "exact|presto", .arg = "exact|presto",
                      .help = "exact: one normalisation per data bin (fixed blocks of\n"
                              "-normwidth bins), every r up to rhi searched, candidates chosen\n"
                              "independently of scan order (strongest within 15 bins).  presto:\n"
                              "accelsearch's own choices, to diff with it: its overlapping per-block\n"
                              "normalisation windows, its last partial block left unsearched, its\n"
                              "order-dependent insertion, its trials truncated to an integer", .def = "exact"),
        {.name = "normwidth", .kind = XC_OPTK_CALL, .fn = xc_cli_opt_bins, .dest = &o.normwidth, .lo = 16, .hi = 32,
         .arg = "N", .help = "preset exact: normalisation block in bins", .def = d[5]},
        XC_OPT_FLAG("rednoise", &o.rednoise,
                    .help = "deredden the spectrum before normalising: PRESTO's rednoise method\n"
                            "(amplitudes divided by the root of a running median of the power,\n"
                            "median/ln 2, in blocks growing from 6 bins as 6 ln(bin) up to 200,\n"
                            "interpolated between block midpoints), as accelsearch does to a .dat\n"
                            "series (it leaves a .fft as it is, and so does the default here)"),
        XC_OPT_FLAG("highacc", &highacc, .help = "template half-widths with accelsearch's HIGHACC (48 more bins)"),
        XC_OPT_FLAG("outofcore", &o.outofcore,
                    .help = "with -numharm > 1: compute each block's sub-harmonics with it instead of\n"
                            "keeping the whole plane in memory (preset exact always does; with preset\n"
                            "presto it is accelsearch's other path, which it takes with -wmax or a\n"
                            "plane of 2 GB or more)"),
        XC_CLI_SEARCH_OPTS_END(&quiet, &progress),
    };
    int rc = xc_cli_search_parse(self, opts, argc, argv, &input);
    if (rc != XC_OPTS_GO)
        return rc;
    o.preset = presto ? XC_ACCEL_PRESTO : XC_ACCEL_EXACT;
    o.acc = highacc ? XC_ACCEL_HIGHACC : XC_ACCEL_LOWACC;
    xc_error err;
    xc_error_clear(&err);
    if (xc_accel_opts_check(&o, &err))
        return xc_cli_fail("accel", &err);
    const xc_accel_searcher *impl = xc_accel_searcher_of(xc_cli_impl("accel", XC_FAMILY_ACCEL, impl_name));
    if (!impl)
        return 2;
    char path[4200];
    out_path(input, out, accelfmt, &o, path, sizeof path);
    xc_cli_search s = {"accel", input, path, accelfmt, quiet, xc_progress_want(quiet, progress), impl, &o,
                       ac_search, ac_write, ac_summary};
    return xc_cli_search_run(&s);
}
