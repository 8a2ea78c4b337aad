/* cli_commands.c: the top-level commands of crosscheck, each described once:
 * its name, the function that runs it, its line in crosscheck -h, and the
 * usage and description its -h prints above its options (xc_opts_help).
 * The subcommands of bench, check and gate are described beside their
 * dispatchers (cli/bench/cmd_bench.c, cli/check/cmd_check.c, cli/gate/cmd_gate.c). */
#include "cli/base/cli.h"

const xc_cmd xc_commands[] = {
    {"list", xc_cmd_list, "list every registered implementation and whether it is available",
     "[-json]",
     "Prints every registered implementation: family, name, capabilities (reference,\n"
     "threaded, device, approximate, runtime), tolerance against the reference, whether\n"
     "it is available on this machine (and why not), and what it is.\n"},
    {"synth", xc_cmd_synth, "write a synthetic filterbank (noise, pulsar, dispersed pulses) + truth JSON",
     "-o FILE.fil [options]\n"
     "       crosscheck synth -dedispersed -o STEM[.dat] [options]",
     "Writes a SIGPROC filterbank of Gaussian noise with an optional periodic pulsar (spin-down,\n"
     "acceleration, Keplerian binary orbit) and dispersed single pulses, and a truth file (JSON)\n"
     "with every input and what a search should find.  Options and units follow SIGPROC fake;\n"
     "values in brackets are the defaults.  The periodic pulsar is a top hat centred on spin\n"
     "phase 0.5, as fake's.\n"},
    {"population", xc_cmd_population, "draw N synthetic pulsars from a spec (Pulscan Table 1) + manifest.csv",
     "-spec SPEC.json -n N -out DIR [options]",
     "Draws N pulsars from the distributions of SPEC (datasets/pulscan-table1.json is the\n"
     "Pulscan paper's Table 1) and writes, for each, DIR/psrNNNNNN.fil (or .dat + .inf) and\n"
     "DIR/psrNNNNNN.truth.json, then DIR/manifest.csv with one row per pulsar: id, noise seed,\n"
     "files, every synth parameter, draw attempts and the truth f0_hz, r, z, w (an FRB population\n"
     "adds its burst as the truth records it: burst_fluence_jyms, burst_width_ms, burst_tau_ms,\n"
     "burst_dm, burst_t_s).  The same seed\n"
     "gives the same manifest and bytes.  Each pulsar is checkpointed (psrNNNNNN.done, written\n"
     "after its files are in place), so running again skips finished pulsars and remakes\n"
     "half-written ones.\n"},
    {"study", xc_cmd_study, "sensitivity study: searchers x configurations over a population -> rates, figures",
     "-spec STUDY.json -out DIR [-n N] [-shard I/N] [-threads N] [-quiet]\n"
     "       crosscheck study -merge DIR1 DIR2 ... -out DIR",
     "Runs a sensitivity study as the Pulscan paper's (White et al. 2024, sections 3-4): every pulsar of\n"
     "a synthetic population is made once (the synthesizer's series dedispersed at the true DM, then an\n"
     "FFT, all in memory), searched by every searcher at every configuration of its sweep, and scored\n"
     "against the truth: detected = the highest-sigma candidate above the spec's sigma (6) within its\n"
     "ftol (1 %) of the true spin frequency.  Pulsars the baseline search (e.g. zmax 0) detects are\n"
     "removed from every rate.  datasets/study-table1-small.json is the default study (make study).\n\n"
     "Writes into DIR:\n"
     "  detections.csv   one row per pulsar x searcher x configuration: detected, sigma, measured r/z/w,\n"
     "                   their errors against truth, the truth and the pulsar's parameters\n"
     "  rates.csv        per searcher x configuration: n, detected, rate, 95 % Wilson interval\n"
     "                   (ci_lo, ci_hi), unique detections against the other searchers at the same\n"
     "                   configuration (peers), pulsars removed by the baseline\n"
     "  recovery.json    measured z against truth z: slope, intercept, r2, residual rms (paper Table 2)\n"
     "  index.html       the paper's Figs 2-5 redrawn from these data, detection probability against\n"
     "                   input S/N, and which of the paper's findings hold at this scale\n"
     "  study.json, spec.json, population.json, journal/   the checkpoints (see below)\n\n"
     "Resumable: each finished (pulsar, searcher, configuration) is appended to DIR/journal/ and synced,\n"
     "so a run killed at any moment (SIGKILL included) and started again with the same command finishes\n"
     "without redoing finished work, and writes the same bytes as an uninterrupted run.  A directory\n"
     "holding another study is refused.\n"},
    {"header", xc_cmd_header, "print every key of a filterbank, .tim, .inf/.dat/.fft or plane header, with its geometry",
     "FILE [-json] [-dm D | -dmplan PLAN ...] [-convention NAME]",
     "Prints every key of a file's header and the geometry derived from it, as SIGPROC's\n"
     "`header` and PRESTO's `readfile` do: a SIGPROC filterbank or .tim (its keywords in file\n"
     "order; telescope, machine, headersize, datasize, nsamples, tobs, bytes_per_spectrum, band\n"
     "edges), a PRESTO .inf, .dat or .fft (the .inf's fields, on/off pairs, data and padding\n"
     "bins, tobs; for .fft the bin width df), a plane's .json manifest, or an .npy.  With -dm\n"
     "or a DM plan, a filterbank's largest delay and the output samples it leaves.\n"
     "A file that does not read exits 2 naming the file, the field and the value.\n"},
    {"plan", xc_cmd_plan, "print a DM plan (ranges or dedisp tolerance list) as a table or JSON",
     "(-i FILE.fil | -nchans N -tsamp US -fch1 MHZ -foff MHZ)\n"
     "                       (-dmplan PLAN | -dmplanfile F | -lodm A -hidm B -dm_tol T -dm_pulse_width US)\n"
     "                       [-convention NAME] [-json FILE]\n"
     "       crosscheck plan -ddplan ...   PRESTO DDplan.py's plan (see crosscheck plan -ddplan -h)",
     "Prints the DM plan as a table: range, DM lo/hi/step, trials, downsample factor and the\n"
     "largest delay in samples (at the lowest channel and the range's last DM, highest\n"
     "channel as reference).\n"},
    {"fft", xc_cmd_fft, "forward real FFT of a PRESTO .dat into a PRESTO .fft (realfft layout)",
     "-i X.dat -o Y [-precision single|double]",
     "Forward real FFT of a PRESTO time series, written exactly as PRESTO's realfft does:\n"
     "Y.fft holds N/2 complex float32 pairs, unnormalised, X_k = sum_j x_j exp(-2 pi i j k/N),\n"
     "with the DC term in the real slot and the Nyquist term in the imaginary slot of bin 0.\n"
     "Y.inf is X.inf with only the file name changed.  N must be even and equal X.inf's N:\n"
     "an odd N is refused (exit 2), as realfft refuses it, not dropped or padded; PRESTO's\n"
     "prepdata/prepsubband, and synth -dedispersed and population -dedispersed, write even N.\n"},
    {"pulscan", xc_cmd_pulscan, "Pulscan boxcar acceleration search of a PRESTO .fft -> candidates (CSV)",
     "-i X.fft [-o FILE] [-impl reference|cpu|gpu] [options]",
     "The Pulscan boxcar acceleration search (White et al. 2024) of a PRESTO .fft (N/2 complex float32,\n"
     "DC and Nyquist packed in bin 0); X.inf beside it gives N and dt, T = N*dt.\n"
     "Pipeline: per-block normalisation of the real and imaginary parts by median and MAD*1.4826;\n"
     "power re^2+im^2 (chi-square, 2 dof); harmonic stages h = 1..numharm summing, for fundamental\n"
     "bin i, the k adjacent bins k*i..k*i+k-1 of every harmonic k <= h (dof 2*h(h+1)/2 per bin);\n"
     "boxcars of widths 1..zmax+1 over those sums (a stage-h boxcar of width w starts at\n"
     "bin (h-1)*w or later, where its harmonics' bins stop overlapping); peaks per width and\n"
     "stage; significance; sifting.\n"
     "Pulscan's measured defects are fixed, not copied: bin 0 (DC + packed Nyquist) is\n"
     "never normalised or searched; the normalisation block does not follow -zmax; a short last\n"
     "block joins the previous one; a block with MAD 0 (over half its values equal) borrows the\n"
     "median and MAD of the nearest block with a non-zero MAD (a spectrum with none is refused);\n"
     "r is the boxcar centre (no off-by-one); logp has the sigma's dof.\n"
     "Limitation (of boxcars, Pulscan's too): once a boxcar can span several harmonics of a bright\n"
     "pulsar (zmax*numharm beyond about its r), that comb can outrank the pulsar itself.\n\n"
     "Output columns (CSV, sorted by sigma): r,f_hz,z,width,numharm,power,dof,logp,sigma,\n"
     "fdot_hz_s,accel_m_s2,ntrials\n"
     "  r      boxcar centre in Fourier bins of the fundamental = start + (width-1)/2\n"
     "         (the mid-observation average, as PRESTO), f_hz = r/T\n"
     "  z      width - 1, bins drifted over the observation (fdot = z/T^2)\n"
     "  power  summed normalised power (chi-square units, mean 2 per bin), dof = 2*width*h(h+1)/2\n"
     "  logp   ln of the single-trial chi-square tail probability of power with dof\n"
     "  sigma  Gaussian-equivalent sigma of logp + ln(ntrials) (Bonferroni), where\n"
     "         ntrials = (floor(nbins/h) - 1) * (1 + zmax/6.95): fundamental bins searched times\n"
     "         the z = 0 trial plus Pulscan's zmax/6.95 (Andersen & Ransom 2018); it does not\n"
     "         depend on -zstep/-zlog\n"},
    {"accel", xc_cmd_accel, "matched-filter accel/jerk search (PRESTO accelsearch-compatible) -> CSV or _ACCEL_",
     "-i X.fft -zmax Z [-wmax W] -numharm H [-o OUT] [options]",
     "Matched-filter acceleration (FDAS) and jerk (FDJS) search of a PRESTO .fft, as PRESTO's\n"
     "accelsearch (Ransom, Eikenberry & Middleditch 2002; Andersen & Ransom 2018).  X.inf beside\n"
     "the .fft gives N and dt (T = N dt).  The f-fdot(-fdotdot) plane is the correlation of the\n"
     "median/ln2-normalised amplitudes with exact templates (Fresnel integrals; for w, Euler-\n"
     "Maclaurin quadrature) on a half-bin r grid, z = -Z..Z step 2, w = -W..W step 20; harmonics\n"
     "1, 2, 4, ... H are summed at accelsearch's rounded sub-harmonic r, z, w; sigma is the\n"
     "Gaussian-equivalent of the chi-square (2H dof) tail times accelsearch's trials.\n"
     "r, z, w are averages over the observation (PRESTO's convention): r = f T, z = fdot T^2,\n"
     "w = fdotdot T^3; reported values are the search grid's (accelsearch's fundamentals table).\n"},
    {"dedisperse", xc_cmd_dedisperse, "dedisperse a filterbank into DM-time planes (.json + .npy)",
     "-i FILE.fil -o OUT -impl NAME (DM plan) [-format npy|presto|tim] [options]",
     "Dedisperses one IF of a SIGPROC filterbank with the chosen implementation and writes\n"
     "OUT.json (DM lists, downsample factors, tsamp, nsamp, channel frequencies, convention,\n"
     "implementation, command line) and OUT.r<k>.npy (float32 [ndm][nsamp], one per range).\n"
     "A row holds the nsamp - (largest delay of the plan) samples for which every channel's\n"
     "delayed sample exists, divided by the range's downsample factor. The file is read in\n"
     "gulps, so files larger than memory work.\n"
     "-format presto writes each trial as OUT_DM<dm>.dat + .inf, named as PRESTO's prepsubband\n"
     "names them, the .inf filled from the filterbank header (for fft, pulscan, accel and\n"
     "PRESTO's own tools); -format tim writes SIGPROC time series OUT_DM<dm>.tim (nchans 1,\n"
     "nbits 32, refdm).  docs/REFERENCE.md has the fields.\n"
     "Subband and tree implementations are approximate: see docs/SUBBAND.md for -nsub,\n"
     "-dmsub, -subalign, -subsplit, -subbudget and -maxloss; their parameters and per-trial bound are\n"
     "recorded under \"approximate\" in OUT.json.\n"},
    {"singlepulse", xc_cmd_singlepulse, "single-pulse (FRB) search of a filterbank or plane -> candidates (CSV)",
     "-i FILE.fil (DM plan) -o OUT.csv [-impl NAME] [-preset P] [options]\n"
     "                      or -i PLANE.json -o OUT.csv [options]",
     "Dedisperses the filterbank (or reads a plane written by `crosscheck dedisperse`), then per\n"
     "DM trial removes a baseline (the median of blocks of -baseline seconds), divides by a robust\n"
     "rms (1.4826 x the median absolute deviation), slides boxes of each width and keeps, per\n"
     "trial and width, the best box of each run above -threshold (S/N = sum above the baseline\n"
     "/ (rms sqrt(width))).  The detections are clustered by friends of friends in time, width\n"
     "and DM trial as Heimdall merges its giants; one row per cluster, its best member, sorted\n"
     "by S/N.  Samples and widths count samples of the series (a downsampled range's x ds);\n"
     "sample is the first sample of the best box; time_s = sample x tsamp.  docs/SINGLEPULSE.md\n"
     "states the semantics, the presets and where each differs from Heimdall, PRESTO's\n"
     "single_pulse_search.py and AstroAccelerate.\n"},
    {"run", xc_cmd_run, "the default cross-check: every implementation, verdict table, report",
     "[-spec FILE.json] [-out DIR] [-impl LIST] [-threads N] [-keep] [-quiet]\n"
     "                      [-junit FILE.xml]",
     "The default cross-check (make run). For every observation in the spec:\n"
     "  - synthetic ones are made with `crosscheck synth` (single pulses at known DMs and times);\n"
     "  - every available dedisperser runs the observation's DM plan;\n"
     "  - each plane is compared with the reference plane (exact for integer input, the\n"
     "    float-summation bound N*2^-24*max|ref| for float input), and the cpu implementation\n"
     "    must give the same bytes at 1 and N threads;\n"
     "  - every injected pulse must be found by each implementation with its peak within one\n"
     "    DM step of the true DM and its boxcar S/N within 10% of the expected value;\n"
     "  - on the real files (datasets/sigpyproc3: Parkes Crab 8/4/2/1-bit, SIGPROC fake tutorial)\n"
     "    every implementation must agree with the reference, and the tutorial pulsar's 4 Hz\n"
     "    line must be the strongest in its series dedispersed at DM 30;\n"
     "  - a burst the spec declares in a real file (\"known\") must be the brightest single-pulse\n"
     "    cluster near its time, within one DM step and one box width (docs/REFERENCE.md).\n"
     "Prints a verdict table and writes DIR/index.html (plots) and DIR/summary.json.\n"
     "Exit code 0 only if every check passes.\n"},
    {"compare", xc_cmd_compare, "compare DM-time planes (exact or float bound) or candidate lists (also vs truth)",
     NULL,
     NULL},
    {"bench", xc_cmd_bench, "benchmarks: dedisperse, pulscan, accel, singlepulse, synth, study, gpu (JSON records)",
     "NAME [options]",
     "Times one part of crosscheck and prints a table (most also write the records with -json).\n"},
    {"gate", xc_cmd_gate, "CI correctness gate: a plugin's or an external command's kernels against the references",
     "dedisperse (-plugin LIB.so [-impl NAME] | -cmd 'TEMPLATE') [options]\n"
     "       crosscheck gate search -cmd 'TEMPLATE' [options]   (or -plugin/-impl: a Pulscan searcher)\n"
     "       crosscheck gate singlepulse (-plugin LIB.so | -impl NAME | -cmd 'TEMPLATE') [options]",
     "A correctness gate for CI: the user's own kernels run every case of a tier and each output is\n"
     "checked against crosscheck's reference implementation.  crosscheck gate NAME -h lists each\n"
     "gate's options, the {fields} its -cmd template may use, and its checks; docs/ci.md has CI examples.\n"},
    {"check", xc_cmd_check, "measure approximations: Pulscan GPU's, noise statistics, subband/tree S/N loss",
     "NAME [options]",
     NULL},
};

const size_t xc_ncommands = sizeof xc_commands / sizeof xc_commands[0];
