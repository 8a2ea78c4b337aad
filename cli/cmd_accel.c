/* crosscheck accel: the matched-filter acceleration (FDAS) / jerk (FDJS)
 * search of a PRESTO .fft, accelsearch-compatible. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cli_opts.h"
#include "cli/cli_search.h"
#include "core/search/xc_accel.h"

static void help(void)
{
    xc_accel_opts d;
    xc_accel_opts_default(&d);
    printf("usage: crosscheck accel -i X.fft -zmax Z [-wmax W] -numharm H [-o OUT] [options]\n\n"
           "Matched-filter acceleration (FDAS) and jerk (FDJS) search of a PRESTO .fft, as PRESTO's\n"
           "accelsearch (Ransom, Eikenberry & Middleditch 2002; Andersen & Ransom 2018).  X.inf beside\n"
           "the .fft gives N and dt (T = N dt).  The f-fdot(-fdotdot) plane is the correlation of the\n"
           "median/ln2-normalised amplitudes with exact templates (Fresnel integrals; for w, Euler-\n"
           "Maclaurin quadrature) on a half-bin r grid, z = -Z..Z step 2, w = -W..W step 20; harmonics\n"
           "1, 2, 4, ... H are summed at accelsearch's rounded sub-harmonic r, z, w; sigma is the\n"
           "Gaussian-equivalent of the chi-square (2H dof) tail times accelsearch's trials.\n"
           "r, z, w are averages over the observation (PRESTO's convention): r = f T, z = fdot T^2,\n"
           "w = fdotdot T^3; reported values are the search grid's (accelsearch's fundamentals table).\n\n"
           "  -i X.fft            input spectrum (X.inf beside it); may also be the only argument\n"
           "  -o OUT              csv: the file (default X_ACCEL_<Z>[_JERK_<W>].csv); accel: the ROOT,\n"
           "                      written as ROOT_ACCEL_<Z> or ROOT_ACCEL_<Z>_JERK_<W> (default X)\n"
           "  -format csv|accel   csv (default): r,f_hz,z,w,width,numharm,power,dof,logp,sigma,fdot_hz_s,\n"
           "                      accel_m_s2,ntrials (power in chi-square units, 2x PRESTO's; width 0);\n"
           "                      accel: PRESTO's fundamentals table (its sifting tools read it; no\n"
           "                      harmonics table, Coherent Power nan: no polishing)\n"
           "  -impl NAME          reference (direct double-precision correlation: small spectra or\n"
           "                      -rlo/-rhi ranges), cpu (overlap-save, float FFTW, OpenMP; default)\n"
           "                      or gpu (the same with batched cuFFT; CUDA builds, with a device)\n"
           "  -zmax Z             largest |z| in bins, 0..1200, rounded up to even (default %d)\n"
           "  -wmax W             largest |w| in bins, 0..4000, rounded up to a multiple of 20; 0: no\n"
           "                      jerk search (default 0)\n"
           "  -numharm H          harmonics summed: 1, 2, 4, 8, 16 or 32 (default %d)\n"
           "  -sigma S            keep candidates with sigma > S (default %.1f)\n"
           "  -flo F, -fhi F      search f = F..F Hz of the highest harmonic summed (defaults %.1f and\n"
           "                      %.1f, as accelsearch): rlo = floor(flo T), rhi = min(ceil(fhi T), nbins-1)\n"
           "  -rlo R, -rhi R      the same in bins; they override -flo/-fhi (in accelsearch they never\n"
           "                      do: its -flo/-fhi defaults count as given and win)\n"
           "  -ncpus N            OpenMP threads (default: all)\n"
           "  -preset exact|presto  exact (default): one normalisation per data bin (fixed blocks of\n"
           "                      -normwidth bins), every r up to rhi searched, candidates chosen\n"
           "                      independently of scan order (strongest within 15 bins).  presto:\n"
           "                      accelsearch's own choices, to diff with it: its overlapping per-block\n"
           "                      normalisation windows, its last partial block left unsearched, its\n"
           "                      order-dependent insertion, its trials truncated to an integer\n"
           "  -normwidth N        preset exact: normalisation block in bins (default %zu)\n"
           "  -highacc            template half-widths with accelsearch's HIGHACC (48 more bins)\n"
           "  -outofcore          with -numharm > 1: compute each block's sub-harmonics with it instead of\n"
           "                      keeping the whole plane in memory (preset exact always does; with preset\n"
           "                      presto it is accelsearch's other path, which it takes with -wmax or a\n"
           "                      plane of 2 GB or more)\n"
           "  -quiet              no summary on stdout\n",
           d.zmax, d.numharm, d.sigma, d.flo, d.fhi, d.normwidth);
}

/* -zmax rounded up to even, -wmax to a multiple of 20: the grid searched. */
static void grid_max(const xc_accel_opts *o, int *zr, int *wr)
{
    *zr = (o->zmax + 1) / 2 * 2;
    *wr = (o->wmax + 19) / 20 * 20;
}

static xc_status ac_search(const xc_cli_search *s, const xc_spectrum *sp, xc_candlist *cl, xc_error *err)
{
    return xc_accel_run(s->impl, sp, s->opts, cl, err);
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

int xc_cmd_accel(int argc, char **argv)
{
    static const xc_optspec spec = {"accel", help, XC_OPTS_ANY_ARGS};
    const char *input = NULL, *out = NULL, *impl_name = NULL;
    xc_accel_opts o;
    xc_accel_opts_default(&o);
    int accelfmt = 0, presto = 0, highacc = 0, quiet = 0;
    const xc_opt opts[] = {
        XC_OPT_STR("i", &input),
        XC_OPT_STR("o", &out),
        XC_OPT_STR("impl", &impl_name),
        XC_OPT_CHOICE("format", &accelfmt, "csv|accel"),
        XC_OPT_INT("zmax", &o.zmax, 0, 1200),
        XC_OPT_INT("wmax", &o.wmax, 0, 4000),
        XC_OPT_INT("numharm", &o.numharm, 1, 32),
        XC_OPT_NONNEG("sigma", &o.sigma),
        XC_OPT_NONNEG("flo", &o.flo),
        XC_OPT_NONNEG("fhi", &o.fhi),
        XC_OPT_NONNEG("rlo", &o.rlo),
        XC_OPT_NONNEG("rhi", &o.rhi),
        XC_OPT_INT("ncpus", &o.threads, 1, 4096),
        XC_OPT_CHOICE("preset", &presto, "exact|presto"),
        {.name = "normwidth", .kind = XC_OPTK_CALL, .fn = xc_cli_opt_bins, .dest = &o.normwidth, .lo = 16, .hi = 32},
        XC_OPT_FLAG("highacc", &highacc),
        XC_OPT_FLAG("outofcore", &o.outofcore),
        XC_OPT_FLAG("quiet", &quiet),
        XC_OPT_END,
    };
    int rc = xc_cli_search_parse(&spec, opts, argc, argv, &input);
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
    int root = xc_cli_fft_root(input);
    int zr, wr;
    grid_max(&o, &zr, &wr);
    char path[4200], tail[64];
    if (wr)
        snprintf(tail, sizeof tail, "_ACCEL_%d_JERK_%d", zr, wr);
    else
        snprintf(tail, sizeof tail, "_ACCEL_%d", zr);
    if (accelfmt)
        snprintf(path, sizeof path, "%.*s%s", out ? (int)strlen(out) : root, out ? out : input, tail);
    else if (out)
        snprintf(path, sizeof path, "%s", out);
    else
        snprintf(path, sizeof path, "%.*s%s.csv", root, input, tail);

    xc_cli_search s = {"accel", input, path, accelfmt, quiet, impl, &o, ac_search, ac_write, ac_summary};
    return xc_cli_search_run(&s);
}
