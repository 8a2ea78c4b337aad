/* crosscheck bench dedisperse, and the `bench` command that leads to every
 * benchmark: options, the table, the JSON file and the report; the
 * measurement is bench/bench_dd.c's. */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/xc_bench_dd.h"
#include "cli/bench/bench_util.h"
#include "cli/base/cli.h"
#include "cli/base/cli_opts.h"
#include "cli/base/cli_plan.h"

#define MAX_LIST XC_BENCH_DD_MAXL

/* One table row per record (and its kernels' and approximate lines). */
static void print_row(void *ctx, const json_t *rec)
{
    (void)ctx;
#define NUM(k) json_number_value(json_object_get(rec, k))
    const double rate = NUM("adds_per_s"), peak = NUM("peak_adds_per_s"), kt = NUM("kernel_seconds");
    const int threads = (int)NUM("threads");
    const char *name = json_string_value(json_object_get(rec, "impl"));
    const json_t *ratio_j = json_object_get(rec, "ratio_to_reference"),
                 *exact_j = json_object_get(rec, "bit_exact_vs_reference_short_input");
    char ratio[32] = "", verified[8] = "";
    if (ratio_j)
        snprintf(ratio, sizeof ratio, "%.0f", json_real_value(ratio_j));
    if (exact_j)
        snprintf(verified, sizeof verified, "%s", json_is_true(exact_j) ? "yes" : "NO");
    printf("%-10s %5d %6d %3d %8zu %5zu %9.3f %8.3f %8.2f %8.2f %7s %6.1f %5s\n", name, (int)NUM("nbits"),
           (int)NUM("nchans"), threads, (size_t)NUM("nout"), (size_t)NUM("ndm"), NUM("plan_seconds"), NUM("seconds"),
           rate / 1e9, rate / threads / 1e9, ratio, peak > 0 ? 100.0 * rate / peak : 0.0, verified);
    if (kt > 0)
        printf("%-10s kernels only: %.4f s, %.2f Gadds/s\n", "", kt, NUM("adds") / kt / 1e9);
    if (json_object_get(rec, "plane_write_streamed_cpu_seconds")) {
        printf("%-10s CPU %.3f s: the plane's write alone %.3f s (plain stores %.3f s), the rest %.3f s; "
               "%.1f %% of a core's add peak per CPU s", "", NUM("cpu_seconds"),
               NUM("plane_write_streamed_cpu_seconds"), NUM("plane_write_cpu_seconds"),
               NUM("cpu_seconds_less_plane_write"), 100.0 * NUM("cpu_peak_fraction"));
        /* Approximate entries count direct's adds: their share of direct's mix ceiling means nothing. */
        if (json_object_get(rec, "cpu_mix_ceiling_fraction") && !json_object_get(rec, "loss_every"))
            printf(", %.1f %% of the kernel's mix ceiling", 100.0 * NUM("cpu_mix_ceiling_fraction"));
        printf("\n");
    }
    if (json_object_get(rec, "loss_every")) {
        /* an approximate entry */
        const xc_impl *im = xc_registry_find(xc_cli_registry(), XC_FAMILY_DEDISPERSE, name);
        const int dev = im && (im->caps & XC_CAP_DEVICE);
        json_t *sp = json_object_get(rec, dev ? "kernel_speedup_vs_direct_gpu" : "speedup_vs_direct_cpu");
        json_t *wl = json_object_get(rec, "worst_snr_loss"), *cs = json_object_get(rec, "cpu_speedup_vs_direct");
        /* a device entry's run has no direct CPU run to hold its CPU time against: no CPU ratio then */
        printf("%-10s nsub %d, budget %g: %s %.2fx", "", (int)NUM("nsub"), NUM("subbudget"),
               dev ? "kernels vs direct gpu" : "vs direct cpu", sp ? json_real_value(sp) : NAN);
        if (cs)
            printf(" (CPU time %.2fx)", json_real_value(cs));
        printf(", worst S/N loss %.3f\n", wl ? json_real_value(wl) : NAN);
        if (json_object_get(rec, "compute_cpu_speedup_vs_direct"))
            printf("%-10s without the plane's write %.2fx; at most %.2fx while the plane is written\n", "",
                   NUM("compute_cpu_speedup_vs_direct"), NUM("write_bound_cpu_speedup_vs_direct"));
    }
#undef NUM
    fflush(stdout);
}

/* bench dedisperse -replot FILE -report DIR: the report of an earlier run's
 * JSON (e.g. from a machine built without plots); nothing is timed. */
static int replot_report(const char *replot, const char *repdir)
{
    if (!repdir)
        return xc_cli_failf("bench", "-replot %s needs -report DIR", replot);
    json_error_t je;
    json_t *old = json_load_file(replot, 0, &je);
    json_t *recs = old ? json_object_get(old, "records") : NULL;
    if (!json_is_array(recs)) {
        json_decref(old);
        return xc_cli_failf("bench", "-replot %s: %s", replot,
                            old ? "no 'records' array (not a bench dedisperse JSON)" : je.text);
    }
    xc_error e;
    xc_status rst = xc_bench_dd_curve_report(recs, repdir, &e);
    json_decref(old);
    if (rst)
        return xc_cli_fail("bench", &e);
    printf("report: %s/index.html\n", repdir);
    return 0;
}

/* -subbudget LIST into s: 0, or the exit status after the error. */
static int parse_budgets(const char *budgetspec, xc_bench_dd_opts *s)
{
    char bbuf[512], *bsave = NULL;
    snprintf(bbuf, sizeof bbuf, "%s", budgetspec);
    for (char *tok = strtok_r(bbuf, ",", &bsave); tok; tok = strtok_r(NULL, ",", &bsave)) {
        char *end;
        double v = strtod(tok, &end);
        if (end == tok || *end || !(v >= 0 && v <= 1e6))
            return xc_cli_failf("bench", "-subbudget: '%s' is not a number of samples in [0, 1e6]", tok);
        if (s->nbudget == MAX_LIST)
            return xc_cli_failf("bench", "-subbudget: more than %d values", MAX_LIST);
        s->budget[s->nbudget++] = v;
    }
    return 0;
}

/* -impl LIST into s->impls, skipping (and saying so) those not available
 * here, and the reference when no_ref: 0, or the exit status after the
 * error. */
static int pick_impls(const char *implspec, xc_bench_dd_opts *s, int no_ref)
{
    char ibuf[256];
    snprintf(ibuf, sizeof ibuf, "%s", implspec);
    char *save = NULL;
    for (char *tok = strtok_r(ibuf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        const xc_impl *di = xc_registry_find(xc_cli_registry(), XC_FAMILY_DEDISPERSE, tok);
        const xc_dedisperser *d = xc_dedisperser_of(di);
        if (!d)
            return xc_cli_failf("bench", "-impl: '%s' is not a registered implementation (see crosscheck list)", tok);
        char why[256] = "";
        if (no_ref && (di->caps & XC_CAP_REFERENCE)) {
            printf("# skipping %s: against peers only the fast implementations are timed\n", tok);
            continue;
        }
        if (!xc_impl_available(di, why, sizeof why)) {
            printf("# skipping %s: %s\n", tok, why);
            continue;
        }
        if (s->nimpl == MAX_LIST)
            return xc_cli_failf("bench", "-impl: more than %d implementations", MAX_LIST);
        s->impls[s->nimpl++] = d;
    }
    return s->nimpl ? 0 : xc_cli_failf("bench", "-impl: nothing to run");
}

/* The machine and the plan, above the table. */
static void print_header(const xc_bench_dd_opts *s, const xc_bench_machine *mc)
{
    printf("# %s, %d cores, %.0f MHz, kernel %s, gcc %s\n", mc->model, mc->cores, mc->mhz, mc->isa, __VERSION__);
    printf("# read bandwidth %.1f GB/s (1 thread), %.1f GB/s (%d threads); %d threads run a compute-only loop %.2fx as fast as 1\n",
           mc->bw1 / 1e9, mc->bwn / 1e9, s->threads, s->threads, mc->speedup);
    printf("# plan %s (%d trials), tsamp 64 us, 1250-1550 MHz, %s\n", TABLE2_PLAN, XC_BENCH_TABLE2_NDM,
           s->quick ? "quick: max delay + 4096 samples" : "random data");
    printf("%-10s %5s %6s %3s %8s %5s %9s %8s %8s %8s %7s %6s %5s\n", "impl", "nbits", "nchans", "thr", "nout",
           "ndm", "plan s", "exec s", "Gadds/s", "/thread", "x ref", "%peak", "exact");
}

/* Times, prints and writes: the JSON file and the report. */
static int run_dedisperse(xc_bench_dd_opts *s, const char *json, const char *repdir)
{
    xc_bench_machine mc;
    /* Larger than any last-level cache, so it measures DRAM (this VM reports 480 MiB of L3). */
    xc_bench_machine_measure(&mc, s->quick ? (size_t)64 << 20 : (size_t)2 << 30, s->threads);
    print_header(s, &mc);
    xc_error err;
    xc_error_clear(&err);
    json_t *root;
    if (xc_bench_dd_run(xc_cli_registry(), s, &mc, print_row, NULL, &root, &err))
        return xc_cli_fail("bench", &err);
    json_t *records = json_object_get(root, "records");
    if ((json && xc_cli_write_json(json, root, JSON_INDENT(2) | JSON_REAL_PRECISION(10), &err)) ||
        (repdir && xc_bench_dd_curve_report(records, repdir, &err))) {
        json_decref(root);
        return xc_cli_fail("bench", &err);
    }
    if (repdir)
        printf("report: %s/index.html\n", repdir);
    json_decref(root);
    return 0;
}

/* One row per record of the comparison with peers. */
static void print_peer_row(void *ctx, const json_t *rec)
{
    (void)ctx;
#define NUM(k) json_number_value(json_object_get(rec, k))
    printf("%-10s %5d %6d %3d %5d %9zu %8.3f %8.3f\n", json_string_value(json_object_get(rec, "impl")),
           (int)NUM("nbits"), (int)NUM("nchans"), (int)NUM("threads"), (int)NUM("ndm"), (size_t)NUM("nsamp_in"),
           NUM("seconds"), NUM("adds_per_s") / 1e9);
#undef NUM
    xc_cli_print_peer(rec);
    fflush(stdout);
}

/* bench dedisperse -peer: ours and each peer, file to files, in turn. */
static int run_peers(xc_bench_dd_opts *s, xc_cli_peers *peers, const char *dmplan, const char *json)
{
    xc_error err;
    xc_error_clear(&err);
    xc_dmplan plan;
    xc_dmplan_init(&plan);
    if (xc_dmplan_parse(&plan, dmplan, "-peer_dmplan", &err))
        return xc_cli_peers_fail("bench", peers, &err);
    const xc_bench_peers ps = xc_cli_peers_of(peers, s->repeat);
    printf("# against peers: %zu DM trials (%s), %g s of 64 us samples of noise, 1250-1550 MHz; medians of %d "
           "runs in turn, file to files\n", xc_dmplan_ndm(&plan), dmplan, s->seconds, s->repeat);
    printf("%-10s %5s %6s %3s %5s %9s %8s %8s\n", "impl", "nbits", "nchans", "thr", "ndm", "nsamp", "exec s",
           "Gadds/s");
    json_t *root;
    xc_status st = xc_bench_dd_peers_run(s, &ps, &plan, print_peer_row, NULL, &root, &err);
    xc_dmplan_free(&plan);
    if (st)
        return xc_cli_peers_fail("bench", peers, &err);
    xc_cli_peers_done(peers);
    int rc = json ? xc_bench_write_json("bench", json, root) : 0;
    json_decref(root);
    return rc;
}

static int bench_dedisperse(const xc_cmd *self, int argc, char **argv)
{
    const xc_optspec spec = XC_CMD_SPEC(self);
    xc_bench_dd_opts s = {.quick = 0, .threads = 2, .repeat = 3, .ref_nout = 0, .seconds = 10.0, .loss_every = -1,
                          .nbits = {8, 16}, .nnbits = 2, .nchans = {512, 1024, 2048, 4096}, .nnchans = 4};
    const char *json = NULL, *implspec = "reference,cpu", *repdir = NULL, *replot = NULL, *budgetspec = NULL,
               *peer_dmplan = "0:100:1:1";
    int nchans_given = 0, nbits_given = 0;
    xc_cli_ints nchans = {s.nchans, 4, MAX_LIST}, nbits = {s.nbits, 2, MAX_LIST}, nsub = {s.nsub, 0, MAX_LIST};
    xc_cli_peers peers = {.n = 0};
    xc_opt peeropts[XC_CLI_PEEROPTS];
    xc_cli_peeropts(peeropts, &peers,
                    "PRESTO prepsubband or SIGPROC dedisperse, run in turn with ours on the same\n"
                    "filterbank of noise (-seconds, each -nbits x -nchans; 8 and 1024 unless\n"
                    "given) and the -peer_dmplan trials, each writing a series per trial\n"
                    "(prepsubband: .dat/.inf, -nsub = channels, -ncpus = ours' threads; dedisperse:\n"
                    "one call a trial, .tim, one thread), ours with the peer's convention;\n"
                    "-repeat pairs, medians; the reference is left out.  Repeat the option for\n"
                    "more peers.  Without it, no ratio to a peer");
    xc_opt tiles[4];
    xc_cli_tileopts(tiles, &s.tune);
    const xc_opt opts[] = {
        XC_OPT_STR("json", &json, .arg = "FILE", .help = "write the records as JSON (atomically)"),
        XC_OPT_FLAG("quick", &s.quick, .help = "smoke test: 512 channels, max delay + 4096 samples, one timed run\n"
                                            "after the first (seconds)"),
        XC_OPT_INT("threads", &s.threads, 1, 4096, .arg = "N",
                   .help = "thread count for the second CPU run; the first uses 1", .def = "2"),
        {.name = "nchans", .kind = XC_OPTK_INTS, .dest = &nchans, .lo = 1, .hi = 1 << 16, .given = &nchans_given,
         .arg = "LIST", .help = "comma-separated channel counts", .def = "512,1024,2048,4096"},
        XC_OPT_STR("impl", &implspec, .arg = "LIST", .help = "comma-separated implementations (see crosscheck list)",
                   .def = "reference,cpu"),
        {.name = "nbits", .kind = XC_OPTK_INTS, .dest = &nbits, .lo = 1, .hi = 16, .given = &nbits_given,
         .arg = "LIST", .help = "comma-separated input bit widths, 1..16", .def = "8,16"},
        XC_OPT_DOUBLE("seconds", &s.seconds, .arg = "S", .help = "length of the input in seconds", .def = "10"),
        XC_OPT_INT("repeat", &s.repeat, 1, 100, .arg = "N",
                   .help = "timed runs per configuration after a first one (timed apart), best\n"
                           "one kept (cpu_seconds: their median); stops early once those have used\n"
                           "20 s", .def = "3"),
        XC_OPT_INT("ref_nout", &s.ref_nout, 1, 1 << 24, .arg = "N",
                   .help = "output samples for the reference (fewer where 2000 would take over\n"
                           "~4e9 adds; 256 with -quick)", .def = "2000"),
        XC_OPT_TABLE(tiles),
        XC_OPT_INTS("nsub", &nsub, 0, 1 << 20, .arg = "LIST",
                    .help = "approximate dedispersers (subband, tree): run each at every listed\n"
                            "subband count (trees take powers of two)", .def = "0: each one's default"),
        XC_OPT_STR("subbudget", &budgetspec, .arg = "LIST",
                   .help = "subband dedispersers: run at every listed smear budget, samples of\n"
                           "ds*tsamp that choose the nominal-DM spacing.  Each approximate record\n"
                           "carries its speedup over direct on the same hardware and its worst\n"
                           "measured S/N loss, so a list of budgets draws the\n"
                           "speed-against-loss curve",
                   .def = "0: 0.8, DDplan.py's"),
        XC_OPT_CHOICE("subalign", &s.opts.subalign, "centre|highest|early", .arg = "A",   /* the xc_subalign order */
                      .help = "subband dedispersers: each subband's reference frequency", .def = "centre"),
        XC_OPT_CHOICE("subsplit", &s.opts.subsplit, "spread|width", .arg = "S",   /* the xc_subsplit order */
                      .help = "subband dedispersers: subbands of equal delay spread or of equal width",
                      .def = "spread"),
        XC_OPT_INT("loss_every", &s.loss_every, 0, 1 << 20, .arg = "N",
                   .help = "approximate entries' worst S/N loss (pulses of 1 and 4 samples against\n"
                           "direct): N > 0 puts a pulse at every N-th trial of the timed plan, so the\n"
                           "loss is that of the timed run (direct then runs on the device for device\n"
                           "entries); 0 measures on the first 12 trials of each range (quick, but\n"
                           "blind to large smear budgets)", .def = "61 for device entries, 0 else"),
        XC_OPT_STR("report", &repdir, .arg = "DIR",
                   .help = "HTML report in DIR: the approximate entries' speed against their worst\n"
                           "S/N loss, a curve per entry and channel count, with the goals as points"),
        XC_OPT_STR("replot", &replot, .arg = "FILE",
                   .help = "with -report: draw that report from FILE, the JSON of an earlier run\n"
                           "(nothing is timed)"),
        XC_OPT_TABLE(peeropts),
        XC_OPT_STR("peer_dmplan", &peer_dmplan, .arg = "LO:HI:STEP:DS",
                   .help = "with -peer: the DM trials, one range (the peers take one)", .def = "0:100:1:1"),
        XC_OPT_END,
    };
    int rc = xc_opts_parse(&spec, opts, argc, argv, NULL);
    if (rc != XC_OPTS_GO)
        return rc;
    if (replot)
        return replot_report(replot, repdir);
    s.nnsub = nsub.n;
    if (budgetspec && (rc = parse_budgets(budgetspec, &s)))
        return rc;
    if (xc_bench_check_nbits("bench", nbits.v, nbits.n))
        return 2;
    if (!(s.seconds > 0 && s.seconds <= 3600))
        return xc_cli_failf("bench", "-seconds: %g must be in (0, 3600]", s.seconds);
    if (s.quick) {
        s.repeat = 1;
        if (!nchans_given) {
            nchans.v[0] = 512;
            nchans.n = 1;
        }
    }
    if ((rc = xc_cli_peers_ready("bench", &peers, XC_PEER_BIT(XC_PEER_PREPSUBBAND) | XC_PEER_BIT(XC_PEER_DEDISPERSE))))
        return rc;
    if (peers.n) {
        if (!nbits_given)
            nbits.v[0] = 8, nbits.n = 1;
        if (!nchans_given)
            nchans.v[0] = 1024, nchans.n = 1;
    }
    s.nnbits = nbits.n;
    s.nnchans = nchans.n;
    if ((rc = pick_impls(implspec, &s, peers.n > 0))) {
        xc_cli_peers_done(&peers);
        return rc;
    }
    s.command = xc_cli_cmdline();
    return peers.n ? run_peers(&s, &peers, peer_dmplan, json) : run_dedisperse(&s, json, repdir);
}

/* The benchmarks, by the name that follows `bench`, and what each times. */
static const xc_cmd benches[] = {
    {"bench dedisperse", bench_dedisperse, "dedispersion on the CPU, the AstroAccelerate paper's Table 2 plan",
     NULL,
     "Times dedispersion of random data with the AstroAccelerate paper's Table 2 plan\n"
     "(" TABLE2_PLAN ", 3050 trials) on 64 us samples, centre 1400 MHz,\n"
     "300 MHz bandwidth (foff = -300/nchans MHz, fch1 = 1550 + foff/2 MHz), and reports adds\n"
     "per second (trials x output samples x channels / seconds) next to the machine's peak\n"
     "integer add rate and its memory-bandwidth bound.  The reference is timed on a short\n"
     "input (max delay + ref_nout samples) because it is about 100 times slower; the CPU\n"
     "kernel is also run on that input and checked bit for bit against it.  With -peer\n"
     "PATH/prepsubband (PRESTO) or PATH/dedisperse (SIGPROC), ours and the peer instead dedisperse\n"
     "the same filterbank of noise through the same -peer_dmplan trials, each from the file to a\n"
     "series per trial, in turn, and the records carry both times and their ratio.\n"},
    {"bench pulscan", xc_bench_pulscan, "the Pulscan search benchmark",
     "[-json FILE] [-quick] [-runs N] [-ncpus LIST] [-ref_max_nbins N] [-peer PATH/pulscan]",
     "Times one whole search (normalisation, harmonic sums, boxcars, significance, sifting; no file\n"
     "I/O) on a synthetic spectrum: white complex Gaussian noise plus ten tones, three of them\n"
     "drifting.  Full grid: nbins 2^20 and 2^23, zmax 200 and 1200, numharm 1 and 4, 1 and 2\n"
     "threads, both peak modes (rblock: Pulscan's per-block maxima, the algorithm of its timings;\n"
     "local: our default), zstep 2 and the other options at their defaults.  The reference (one\n"
     "thread, direct sums: O(nbins * zmax^2)) runs only where nbins <= -ref_max_nbins and\n"
     "zmax <= 200; there every cpu list is compared with its list (same r, width, stage, power\n"
     "and sigma within the searcher's tolerance).  -peer PATH/pulscan times Pulscan's own CPU\n"
     "program on the same spectrum in the same run.\n"},
    {"bench accel", xc_bench_accel, "the matched-filter accel/jerk search benchmark",
     NULL,
     "Times one whole accel search (normalisation, templates, plane, harmonic sums, selection,\n"
     "significance; no file I/O) on a synthetic spectrum: white complex Gaussian noise plus a\n"
     "drifting tone (r = nbins/3, z = 60, as a Fresnel response).  The whole grid is\n"
     "-nbins 1048576,4194304 -zmax 0,200,1200 -numharm 1,4 -wmax 0,300.  The reference runs only\n"
     "where nbins <= -ref_max_nbins.  -peer PATH/accelsearch times PRESTO's accelsearch on the\n"
     "same spectrum in the same run (scripts/peers/build-presto.sh builds it).  On a machine\n"
     "shared with other work, run with OMP_WAIT_POLICY=passive: OpenMP threads otherwise spin at\n"
     "every barrier while a sibling waits for a core, and 2 threads can take several times longer\n"
     "than 1.\n"},
    {"bench singlepulse", xc_bench_singlepulse, "the single-pulse search against the dedispersion of its plane",
     "[-json FILE] [-dmplan PLAN] [-nchans N] [-nout N] [-nwidths N] [-threads N]",
     "Dedisperses random data (1400 MHz centre, 300 MHz, 64 us) with the CPU dedisperser through\n"
     "one plan, timed, then searches the plane with the single-pulse searcher (preset heimdall,\n"
     "widths 1, 2, 4, ...), timed, same threads, and reports both and their ratio (the goal: the\n"
     "search at most 0.25 of the dedispersion, Table 2 plan, 1024 channels, 12 widths).\n"},
    {"bench synth", xc_bench_synth, "the synthesizer benchmark",
     "[-json FILE] [options]",
     NULL},
    {"bench study", xc_bench_study, "a study's stages, pulsars per second per core",
     "[-spec STUDY.json] [-n N] [-threads T] [-device] [-workers W]\n"
     "                          [-separate | -fresh] [-json FILE]",
     "Times a study's stages on its first N pulsars: synthesis (the dedispersed series), FFT and each\n"
     "searcher configuration, one pulsar at a time on one thread (the cost per core), then the same\n"
     "pulsars side by side on T threads (the throughput `crosscheck study` gets).  Reports pulsars per\n"
     "second per core, and projects the Pulscan paper's full study (10 955 Table 1 pulsars of 600 s at\n"
     "128 us: 2 343 750 bins) from the per-core cost, scaled linearly by bins (every stage here is\n"
     "O(bins) per configuration) when the spec's spectra are shorter.  A matched filter's zmax x numharm\n"
     "sweep is one search (the largest, cut to each configuration): its time is shared evenly by its\n"
     "configurations, and the searcher's total is printed after them.\n"},
    {"bench gpu", xc_bench_gpu, "the GPU dedispersion benchmark; CUDA builds",
     "-json FILE [options]",
     "Times the gpu dedisperser on the AstroAccelerate paper's frequency-resolution test\n"
     "(Novotny et al. 2023, section 5.2): the Table 2 plan " TABLE2_PLAN "\n"
     "(3050 trials, no scrunching) on random data of 64 us samples, 300 MHz of band centred\n"
     "on 1400 MHz, crosscheck convention.  Reports adds per second (adds = sum over ranges of\n"
     "trials x output samples x channels) for the dedispersion kernels alone (CUDA events)\n"
     "and for the whole call including host-device transfers and allocation (wall clock),\n"
     "each the median of the timed runs after one untimed run, and the fraction of the\n"
     "device's shared-memory bandwidth the kernel reached (see the JSON's 'definitions').\n"
     "Kernel times and the whole call come from serial runs (tune.gpu_serial: one launch at a\n"
     "time).  Then the same job as gulps through one plan (xc_ddplan_execute) whose time\n"
     "chunks go through the two-stream pipeline: the first gulp's setup (allocation, delay\n"
     "upload and bounds, pinned staging) apart, and the wall clock of the later gulps, which\n"
     "reuse it (median of the timed runs): the end-to-end rate, with the input and the planes\n"
     "in pageable host memory, and the time kernels did not cover (e2e %: its rate over the\n"
     "kernel-only rate).  The bounds beside it: bound T/s = min(kernel rate, the rate PCIe\n"
     "carries the gulp's bytes at), pgbnd T/s = that with the host's staging copies and host\n"
     "memory counted; bnd %, pgb % and sched % the pageable rate against the PCIe bound, that\n"
     "one and the copies scheduled beside the DMA; reg % and kept % the same buffers registered\n"
     "for each gulp and registered once and kept by the plan (tune.gpu_register 1, 2), against\n"
     "the PCIe bound; pin % the input and planes page-locked by the caller, against it.\n"
     "64 outputs per configuration are checked against exact host sums.\n"
     "Last, one Pulscan record (kind pulscan): the Pulscan paper's Table 4 case as `bench\n"
     "gpu-pulscan` runs it, through a plan, kernel_ms and wall_ms (page-locked spectrum) and its\n"
     "candidates against the cpu searcher's.\n"},
    {"bench gpu-pulscan", xc_bench_gpu_pulscan, "GPU Pulscan stage times, the paper's Table 4; CUDA builds",
     "-json FILE [options]",
     "Times the gpu Pulscan searcher stage by stage (CUDA events) as the Pulscan paper's\n"
     "Table 4: a spectrum of N = tobs/tsamp samples (N/2 bins) of complex Gaussian noise with\n"
     "eight drifting pulsars of 1 to 4 harmonics injected, searched with -zmax and -numharm\n"
     "(sigma 2, zstep 2, exact normalisation and exact log p), through one plan\n"
     "(xc_pulscan_gpu_plan: device buffers and thresholds made once, setup_ms).  One untimed\n"
     "run, then the median of the timed runs per stage, with the spectrum in pageable memory\n"
     "and again in page-locked memory (xc_gpu_host_alloc; wall_pinned_ms).  wall: host clock\n"
     "from the copy in to the peaks back on the host.  The candidates must equal the cpu searcher's\n"
     "(same r, z, stage; power and sigma within the gpu entry's stated 1e-9); the run with\n"
     "the paper's approximations (-norm mom -logp poly) is compared with the exact cpu list\n"
     "by `compare cands` rules and its differences reported.  Exit 1 if the exact lists differ.\n"},
};

XC_SUBCMD_MAIN(xc_cmd_bench, "benchmark", benches)
