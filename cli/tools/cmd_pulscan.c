/* crosscheck pulscan: the Pulscan boxcar acceleration search of a PRESTO .fft. */
#include <stdio.h>

#include "cli/base/cli.h"
#include "cli/base/cli_meter.h"
#include "cli/base/cli_opts.h"
#include "cli/base/cli_search.h"
#include "core/search/xc_search.h"

/* -sigma S: a threshold >= 0 (dest: double). */
static xc_status opt_sigma(const xc_opt *o, const char *opt, const char *val, xc_error *err)
{
    xc_status st = xc_cli_double(opt, val, o->dest, err);
    if (!st && !(*(double *)o->dest >= 0))
        st = xc_error_set(err, XC_EINVAL, "option %s: %s is below 0", opt, val);
    return st;
}

static xc_status ps_search(const xc_cli_search *s, const xc_spectrum *sp, xc_candlist *cl, xc_progress_cb cb,
                           xc_error *err)
{
    xc_psearch_opts o = {.family = XC_FAMILY_PULSCAN, .ps = *(const xc_psopts *)s->opts};
    return xc_cli_search_once(&((const xc_searcher *)s->impl)->impl, sp, &o, cb, cl, err);
}

static xc_status ps_write(const xc_cli_search *s, const xc_spectrum *sp, xc_candlist *cl, xc_error *err)
{
    cl->T = sp->T;
    return s->format ? xc_cands_write_pulscand(cl, s->out, err) : xc_cands_write_csv(cl, s->out, err);
}

static void ps_summary(const xc_cli_search *s, const xc_spectrum *sp, const xc_candlist *cl, double secs)
{
    const xc_psopts *o = s->opts;
    printf("pulscan (%s): %zu bins, T = %.6f s, zmax %d, numharm %d, %s%s: %zu candidates with sigma > %g "
           "in %.3f s -> %s\n",
           ((const xc_searcher *)s->impl)->impl.name, sp->nbins, sp->T, o->zmax, o->numharm,
           o->rblock ? "R-block maxima" : "local maxima", o->nosift ? ", unsifted" : ", sifted", cl->n, o->sigma, secs,
           s->out);
    for (size_t k = 0; k < cl->n && k < 5; k++)
        printf("  #%zu  r = %.1f  f = %.6f Hz  z = %.0f  numharm %d  power %.2f  dof %.0f  sigma %.2f\n", k + 1,
               cl->c[k].r, cl->c[k].f_hz, cl->c[k].z, cl->c[k].numharm, cl->c[k].power, cl->c[k].dof,
               cl->c[k].sigma);
}

/* The command, apart from its options (their help is in the table). */
int xc_cmd_pulscan(const xc_cmd *self, int argc, char **argv)
{
    const char *input = NULL, *out = NULL, *impl_name = NULL;
    xc_psopts o;
    xc_psopts_default(&o);
    /* -format, -norm and -logp: the index of the word given */
    int pulscand = 0, mom = o.norm == XC_NORM_MOM, poly = o.logp == XC_LOGP_POLY, quiet = 0, progress = 0;
    char d[7][XC_DEF_LEN];   /* the defaults the help shows: those of xc_psopts_default */
    const xc_cli_defv dv[] = {{o.zmax, 0}, {o.numharm, 0}, {o.zstep, 0}, {o.sigma, 1}, {(double)o.chunkwidth, 0},
                              {(double)o.normwidth, 0}, {o.flo, 1}};
    xc_cli_defaults(d, dv, 7);
    const xc_opt opts[] = {
        XC_OPT_STR("i", &input, .arg = "X.fft",
                   .help = "input spectrum (X.inf must sit beside it); may also be the only argument"),
        XC_OPT_STR("o", &out, .arg = "FILE", .help = "output", .def = "X_ZMAX_<zmax>_NUMHARM_<h>.csv or .pulscand"),
        XC_OPT_STR("impl", &impl_name, .arg = "NAME",
                   .help = "reference (full sort, direct sums), cpu (quickselect, recursive\n"
                           "tiled boxcar, OpenMP) or gpu (CUDA builds with a device:\n"
                           "the Pulscan paper's GPU stages, log p on the device); all give the\n"
                           "same candidates (gpu: sigma within 1e-9); `crosscheck list` shows\n"
                           "which are available here", .def = "cpu"),
        XC_OPT_CHOICE("format", &pulscand, "csv|pulscand", .arg = "csv|pulscand",
                      .help = "csv (ours) or Pulscan's .pulscand columns (its rbin and z\n"
                              "convention, rbin = start - 1 + floor(z/2), for diffing with Pulscan)", .def = "csv"),
        XC_OPT_INT("zmax", &o.zmax, 0, 100000, .arg = "Z", .help = "largest z = boxcar width - 1, in bins",
                   .def = d[0]),
        XC_OPT_INT("numharm", &o.numharm, 1, 8, .arg = "H",
                   .help = "harmonic stages 1..H, H <= 8 (Pulscan allows 1..4)",
                   .def = d[1]),
        XC_OPT_CALL("sigma", opt_sigma, &o.sigma, .arg = "S", .help = "keep candidates with sigma > S, S >= 0",
                    .def = d[3]),
        XC_OPT_INT("zstep", &o.zstep, 1, 100000, .arg = "N", .help = "search z = 0, N, 2N, ... <= zmax, as Pulscan",
                   .def = d[2]),
        XC_OPT_FLAG("zlog", &o.zlog, .help = "search z in {0, 1, 2, 4, 8, ...} <= zmax instead (Pulscan -turbo 3)"),
        {.name = "chunkwidth", .kind = XC_OPTK_CALL, .fn = xc_cli_opt_bins, .dest = &o.chunkwidth, .lo = 1, .hi = 40,
         .arg = "N", .help = "R-block width in boxcar starts, for -rblock and as the unit of\nparallel work",
         .def = d[4]},
        {.name = "normalizechunkwidth", .kind = XC_OPTK_CALL, .fn = xc_cli_opt_bins, .dest = &o.normwidth, .lo = 16,
         .hi = 40, .arg = "N",
         .help = "normalisation block in bins, independent of zmax (Pulscan's 30*zmax at\n"
                 "its default zmax 200); the last block takes the remainder, so it holds\n"
                 "N..2N-1 bins", .def = d[5]},
        XC_OPT_FLAG("rblock", &o.rblock,
                    .help = "Pulscan's search: per stage and width, only the largest boxcar of each\n"
                            "R-block (first on ties), at its exact r.  Default: every local maximum\n"
                            "of significance over the (start, width) grid above the sigma threshold\n"
                            "(neighbouring starts and searched widths; widths compared by the signed\n"
                            "root deviance sqrt(dof(x-1-ln x)), x = power/dof), among filled boxcars,\n"
                            "so two signals in one R-block are both found"),
        XC_OPT_FLAG("nosift", &o.nosift,
                    .help = "keep every peak.  Default: drop R-block peaks that are not filled (fill\n"
                            "test: each quarter of a boxcar of width >= 4 holds >= 1/16 of its excess\n"
                            "power, as a drifting signal does; local maxima are filled by definition);\n"
                            "then one candidate per cluster (boxcars that touch, |dr| <= max(2,\n"
                            "(w1+w2)/2)) across widths and stages; then harmonics removed: c within\n"
                            "1.1(1+q) bins of q = n/m times a stronger a's r, c's m-th harmonic on\n"
                            "a's n-th (m <= c's stages, n <= 16; PRESTO sifting.py's r_err 1.1), is\n"
                            "dropped, unless a is only c's sub-harmonic echo (m = 1, n <= a's\n"
                            "stages, and no stage below n finds a candidate where a is): c then\n"
                            "replaces a"),
        XC_OPT_NONNEG("flo", &o.flo, .arg = "F",
                      .help = "lowest fundamental frequency kept, Hz (accelsearch's -flo and default):\n"
                              "candidates whose boxcar starts below rlo = floor(F T) are dropped\n"
                              "before sifting (sigmas still count every bin's trials)", .def = d[6]),
        XC_OPT_NONNEG("rlo", &o.rlo, .arg = "R", .help = "-flo in bins; overrides it", .def = "floor(flo T)"),
        XC_OPT_FLAG("rednoise", &o.rednoise,
                    .help = "deredden the spectrum before normalising: PRESTO's rednoise method\n"
                            "(amplitudes divided by the root of a running median of the power,\n"
                            "median/ln 2, in blocks growing from 6 bins as 6 ln(bin) up to 200,\n"
                            "interpolated between block midpoints), as accelsearch does to a .dat\n"
                            "series; for spectra whose low frequencies carry red noise"),
        XC_OPT_CHOICE("norm", &mom, "exact|mom", .arg = "exact|mom",
                      .help = "exact median/MAD or the GPU version's median of medians of 4", .def = "exact"),
        XC_OPT_CHOICE("logp", &poly, "exact|poly", .arg = "exact|poly",
                      .help = "exact log-space chi-square tail or the paper's appendix\n"
                              "polynomial (logp/sigma columns and the -sigma cut; peaks are still\n"
                              "preselected by the exact threshold)", .def = "exact"),
        XC_OPT_INT("ncpus", &o.threads, 1, 4096, .arg = "N", .help = "OpenMP threads (the reference uses one)",
                   .def = "all"),
        XC_OPT_INT("tile", &o.tile, 1, 1 << 24, .arg = "N", .help = "cpu: boxcar starts per cache tile", .def = "1024"),
        XC_CLI_SEARCH_OPTS_END(&quiet, &progress),
    };
    int rc = xc_cli_search_parse(self, opts, argc, argv, &input);
    if (rc != XC_OPTS_GO)
        return rc;
    o.norm = mom ? XC_NORM_MOM : XC_NORM_EXACT;
    o.logp = poly ? XC_LOGP_POLY : XC_LOGP_EXACT;
    const xc_searcher *impl = xc_searcher_of(xc_cli_impl("pulscan", XC_FAMILY_PULSCAN, impl_name));
    if (!impl)
        return 2;
    char defout[4200];
    if (!out) {
        snprintf(defout, sizeof defout, "%.*s_ZMAX_%d_NUMHARM_%d.%s", xc_cli_fft_root(input), input, o.zmax,
                 o.numharm, pulscand ? "pulscand" : "csv");
        out = defout;
    }
    xc_cli_search s = {"pulscan", input, out, pulscand, quiet, xc_progress_want(quiet, progress), impl, &o,
                       ps_search, ps_write, ps_summary};
    return xc_cli_search_run(&s);
}
