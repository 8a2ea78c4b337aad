/* bench accel|pulscan|synth -peer, with the stand-in peers of tests/peers/
 * (shell scripts that check their input, sleep a moment and write what the
 * real program writes): the records carry the comparison's fields, a peer
 * that fails or writes nothing is an error (exit 2) naming it, and without
 * -peer no ratio to a peer is written or printed. */
#include <dirent.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "core/base/xc_progress.h"

#include "tests/xc_fixture.h"
#include "tests/xc_test.h"

#define STANDINS "tests/peers"

/* The records of a bench JSON (the document is kept in *root). */
static json_t *records(const char *json, json_t **root)
{
    json_error_t je;
    *root = json_load_file(json, 0, &je);
    if (!*root)
        printf("\n  %s: %s", json, je.text);
    return json_object_get(*root, "records");
}

/* Every record has the comparison's fields, with ratio = peer_seconds /
 * seconds (to the JSON's rounding) and
 * positive times; the peer is the stand-in of the given kind (any with
 * NULL).  Returns how many records there are. */
static size_t check_peer_records(const char *json, const char *kind, int threads)
{
    json_t *root;
    json_t *recs = records(json, &root);
    static const char *keys[] = {"peer", "peer_kind", "peer_seconds", "peer_cpu_seconds", "seconds",
                                 "cpu_seconds", "ratio", "cpu_ratio", "peer_threads", "runs", "timing"};
    size_t n = json_array_size(recs);
    for (size_t i = 0; i < n; i++) {
        json_t *r = json_array_get(recs, i);
        if (!json_object_get(r, "peer_seconds"))
            continue;   /* bench pulscan's reference, timed alone */
        for (size_t k = 0; k < sizeof keys / sizeof *keys; k++)
            if (!json_object_get(r, keys[k])) {
                printf("\n  record %zu lacks %s", i, keys[k]);
                CU_FAIL("a peer record lacks a field");
            }
        const double ps = json_number_value(json_object_get(r, "peer_seconds")),
                     s = json_number_value(json_object_get(r, "seconds")),
                     ratio = json_number_value(json_object_get(r, "ratio"));
        CU_ASSERT(s > 0 && ps > 0);
        /* the stand-in sleeps 0.05 s: its median cannot be shorter */
        XC_ASSERT_NEAR(ps >= 0.05, 1, 0);
        /* the JSON keeps 6 (bench pulscan) or 10 significant digits of each:
         * ratio and peer_seconds / seconds agree to three roundings of at
         * most 5e-6 relative each */
        XC_ASSERT_NEAR(ratio / (ps / s), 1, 1.5e-5);
        CU_ASSERT(json_number_value(json_object_get(r, "peer_cpu_seconds")) >= 0);
        if (kind)
            CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(r, "peer_kind")), kind);
        CU_ASSERT_PTR_NOT_NULL(strstr(json_string_value(json_object_get(r, "peer")), STANDINS "/"));
        if (threads)
            XC_ASSERT_NEAR(json_integer_value(json_object_get(r, "peer_threads")), threads, 0);
    }
    json_decref(root);
    return n;
}

/* The number of lines of path holding needle. */
static int lines_with(const char *path, const char *needle)
{
    FILE *fp = fopen(path, "r");
    char line[4096];
    int n = 0;
    while (fp && fgets(line, sizeof line, fp))
        n += strstr(line, needle) != NULL;
    if (fp)
        fclose(fp);
    return n;
}

/* Runs `crosscheck bench WHAT -json TMP/TAG.json` with the stand-ins writing
 * their arguments to TMP/TAG-args.txt (its path into args); asserts exit 0
 * and checks the records (check_peer_records; threads: the peers' thread
 * count, 0 when it varies): their number. */
static size_t bench_standin(const char *tag, const char *kind, int threads, const char *what, char *args, size_t n)
{
    char json[600], err[4096];
    snprintf(json, sizeof json, "%s/%s.json", xc_test_tmpdir(), tag);
    snprintf(args, n, "%s/%s-args.txt", xc_test_tmpdir(), tag);
    setenv("XC_STANDIN_ARGS", args, 1);
    CU_ASSERT_EQUAL(xc_fx_run_clif(err, sizeof err, "bench %s -json '%s'", what, json), 0);
    unsetenv("XC_STANDIN_ARGS");
    if (err[0])
        printf("\n  stderr: %s", err);
    return check_peer_records(json, kind, threads);
}

/* A -peer benchmark run by bench_standin: the records it must write, and
 * lines of the peer's arguments with how many of the peer's runs got them. */
typedef struct {
    const char *tag, *kind, *what;
    size_t nrec;
    struct {
        const char *text;
        int runs;
    } args[3];   /* up to 3; text NULL ends them */
} peer_case;

XC_TEST(test_peer_runs, "bench accel|pulscan|synth -peer: both timed in turn, the peer given ours' settings")
{
    static const peer_case cases[] = {
        /* accel: one record per zmax, each from 2 runs of the peer with our settings */
        {"accel", "accelsearch",
         "accel -peer " STANDINS "/accelsearch -nbins 4096 -zmax 0,8 -numharm 2 -threads 1 -runs 2", 2,
         {{"-zmax 8 -numharm 2 -ncpus 1 ", 2}, {"-zmax 0 -numharm 2 -ncpus 1 ", 2}, {"bench.fft", 4}}},
        /* pulscan: records for both peak modes (rblock and local) carry the peer's time */
        {"pulscan", "pulscan",
         "pulscan -peer " STANDINS "/pulscan -nbins 8192 -zmax 16 -numharm 2 -threads 1 -runs 1 -ref_max_nbins 0", 2,
         {{"bench.fft -ncpus 1 -zmax 16 -numharm 2 -zstep 2 ", 2}}},
        /* synth: fake's geometry options, one record per thread count (1 and 2; fake has one) */
        {"synth", "fake", "synth -peer " STANDINS "/fake -nchans 16 -nbits 4 -tobs 0.2 -threads 1,2 -repeat 1", 2,
         {{"-nchans 16 -nbits 4 -tsamp 64 -tobs 0.20000000000000001 -fch1 1550 ", 2}, {"-period 5 -dm 100 ", 2}}},
    };
    for (size_t k = 0; k < XC_NCASES(cases); k++) {
        const peer_case *c = &cases[k];
        char args[600];
        printf("\n  bench %s", c->what);
        XC_ASSERT_NEAR(bench_standin(c->tag, c->kind, 1, c->what, args, sizeof args), c->nrec, 0);
        for (size_t a = 0; a < 3 && c->args[a].text; a++) {
            const int runs = lines_with(args, c->args[a].text);
            if (runs != c->args[a].runs)
                printf("\n  peer runs given '%s':", c->args[a].text);
            XC_ASSERT_NEAR(runs, c->args[a].runs, 0);
        }
    }
}

XC_TEST(test_dedisperse_peer, "bench dedisperse -peer: prepsubband and dedisperse given the same file and trials")
{
    char args[600];
    /* cpu on 1 and 2 threads against each of the two peers */
    XC_ASSERT_NEAR(bench_standin("dedisperse", NULL, 0, "dedisperse -peer " STANDINS "/prepsubband -peer " STANDINS
                                 "/dedisperse -nchans 16 -seconds 0.2 -peer_dmplan 10:13:0.5:1 -threads 2 -repeat 1",
                                 args, sizeof args), 4, 0);
    /* prepsubband: one call a run, the plan's range, -ncpus = our threads */
    XC_ASSERT_NEAR(lines_with(args, "-lodm 10 -dmstep 0.5 -numdms 6 -nsub 16 -ncpus 1 -downsamp 1 -o "), 1, 0);
    XC_ASSERT_NEAR(lines_with(args, "-lodm 10 -dmstep 0.5 -numdms 6 -nsub 16 -ncpus 2 -downsamp 1 -o "), 1, 0);
    /* dedisperse: one call a trial, twice (1 and 2 threads of ours) */
    XC_ASSERT_NEAR(lines_with(args, "bench.fil -d 10 -nobaseline -o "), 2, 0);
    XC_ASSERT_NEAR(lines_with(args, "bench.fil -d 12.5 -nobaseline -o "), 2, 0);
    XC_ASSERT_NEAR(lines_with(args, "_DM12.50.tim"), 2, 0);
    XC_ASSERT_NEAR(lines_with(args, " -d "), 12, 0);
    char err[4096];
    CU_ASSERT_EQUAL(xc_fx_run_clif(err, sizeof err, "bench dedisperse -peer " STANDINS "/dedisperse -nchans 16 "
                                   "-seconds 0.2 -peer_dmplan 0:10:1:1,10:20:2:1 -repeat 1"), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "-peer_dmplan: 2 ranges; the peers take one"));
    CU_ASSERT_EQUAL(xc_fx_run_clif(err, sizeof err, "bench dedisperse -peer " STANDINS "/accelsearch"), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "is accelsearch; this benchmark compares with prepsubband or dedisperse"));
}

/* bench dedisperse -impl cpu,subband: each approximate record's speed
 * against direct on the same threads and its worst loss per pulse width. */
XC_TEST(test_dedisperse_speedup_loss, "bench dedisperse: speedup_vs_direct and snr_loss per pulse width")
{
    char err[4096], json[600];
    snprintf(json, sizeof json, "%s/dd-approx.json", xc_test_tmpdir());
    CU_ASSERT_EQUAL_FATAL(xc_fx_run_clif(err, sizeof err, "bench dedisperse -quick -nchans 16 -nbits 8 -impl "
                                         "cpu,subband -threads 1 -json '%s'", json), 0);
    json_t *root, *recs = records(json, &root);
    XC_ASSERT_NEAR(json_array_size(recs), 2, 0);
    json_t *cpu = json_array_get(recs, 0), *sub = json_array_get(recs, 1);
    CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(sub, "impl")), "subband");
    XC_ASSERT_NEAR(json_number_value(json_object_get(cpu, "speedup_vs_direct")), 1, 0);
    const double cs = json_number_value(json_object_get(cpu, "seconds")),
                 ss = json_number_value(json_object_get(sub, "seconds"));
    CU_ASSERT(cs > 0 && ss > 0);
    XC_ASSERT_NEAR(json_integer_value(json_object_get(sub, "threads")), 1, 0);
    /* the same ratio as the times, to the JSON's 10 significant digits */
    XC_ASSERT_NEAR(json_number_value(json_object_get(sub, "speedup_vs_direct")) / (cs / ss), 1, 3e-9);
    /* the same in process CPU time; the first execute timed apart */
    const double cc = json_number_value(json_object_get(cpu, "cpu_seconds")),
                 sc = json_number_value(json_object_get(sub, "cpu_seconds"));
    CU_ASSERT(cc > 0 && sc > 0);
    XC_ASSERT_NEAR(json_number_value(json_object_get(cpu, "cpu_speedup_vs_direct")), 1, 0);
    XC_ASSERT_NEAR(json_number_value(json_object_get(sub, "cpu_speedup_vs_direct")) / (cc / sc), 1, 3e-9);
    CU_ASSERT(json_number_value(json_object_get(sub, "first_seconds")) > 0);
    CU_ASSERT(json_number_value(json_object_get(sub, "first_cpu_seconds")) > 0);
    json_t *per = json_object_get(sub, "snr_loss");
    const double l1 = json_number_value(json_object_get(per, "1")), l4 = json_number_value(json_object_get(per, "4"));
    XC_ASSERT_NEAR(json_object_size(per), 2, 0);
    /* losses are fractions; the worst of both is the record's worst */
    CU_ASSERT(l1 >= 0 && l1 < 1 && l4 >= 0 && l4 < 1);
    XC_ASSERT_NEAR(json_number_value(json_object_get(sub, "worst_snr_loss")), l1 > l4 ? l1 : l4, 0);
    /* wider pulses lose less to the two stages' rounding (a third of a
     * one-sample pulse; 8 % at four samples with the default budget) */
    CU_ASSERT(l4 < l1);
    json_decref(root);
}

/* bench singlepulse -peer_cmd: the template filled, the peer given the
 * filterbank and the series it names, ours timing what it does. */
XC_TEST(test_singlepulse_peer_cmd, "bench singlepulse -peer_cmd: the filled command, its input, the ratio")
{
    char err[4096], json[600], dir[600], seen[700];
    snprintf(json, sizeof json, "%s/sp-peer.json", xc_test_tmpdir());
    snprintf(dir, sizeof dir, "%s/sp-peer", xc_test_tmpdir());
    snprintf(seen, sizeof seen, "%s/seen.txt", dir);
    /* names {dat}: ours is the search of the plane; the series of 20 trials
     * and the filterbank are there when the command runs */
    CU_ASSERT_EQUAL_FATAL(xc_fx_run_clif(err, sizeof err, "bench singlepulse -dmplan 0:20:1:1 -nchans 16 -nout 4096 "
                                         "-nwidths 4 -threads 1 -repeat 2 -peer_dir '%s' -json '%s' -peer_cmd "
                                         "'test -s {dat}_DM19.00.dat && test -s {dat}_DM0.00.inf && test -s {fil} && "
                                         "echo {threads} {maxwidth} {maxwidth_s} {nchans} $(ls {dir} | grep -c dat$) >> {dir}/seen.txt'",
                                         dir, json), 0);
    XC_ASSERT_NEAR(lines_with(seen, "1 8 0.000512 16 20"), 2, 0);
    json_t *root, *recs = records(json, &root);
    XC_ASSERT_NEAR(json_array_size(recs), 2, 0);
    json_t *r = json_array_get(recs, 1);
    CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(r, "ours")), "search of the plane");
    CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(r, "peer_kind")), "cmd");
    XC_ASSERT_NEAR(json_number_value(json_object_get(r, "ratio")) /
                       (json_number_value(json_object_get(r, "peer_seconds")) /
                        json_number_value(json_object_get(r, "seconds"))), 1, 3e-9);
    /* the search's own record keeps its ratio (search over dedispersion) */
    json_t *r0 = json_array_get(recs, 0);
    XC_ASSERT_NEAR(json_number_value(json_object_get(r0, "ratio")) /
                       (json_number_value(json_object_get(r0, "seconds")) /
                        json_number_value(json_object_get(r0, "dedisperse_seconds"))), 1, 3e-9);
    json_decref(root);
    /* names only {fil}: ours is dedispersion and search */
    CU_ASSERT_EQUAL(xc_fx_run_clif(err, sizeof err, "bench singlepulse -dmplan 0:20:1:1 -nchans 16 -nout 4096 "
                                   "-nwidths 4 -threads 1 -repeat 1 -json '%s' -peer_cmd 'test -s {fil}'", json), 0);
    recs = records(json, &root);
    CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(json_array_get(recs, 1), "ours")),
                           "dedispersion and search");
    json_decref(root);
    CU_ASSERT_EQUAL(xc_fx_run_clif(err, sizeof err, "bench singlepulse -dmplan 0:20:1:1 -nchans 16 -nout 4096 "
                                   "-peer_cmd 'run {nope}'"), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "-peer_cmd: unknown placeholder {nope}; there are {fil} {dat}"));
    CU_ASSERT_EQUAL(xc_fx_run_clif(err, sizeof err, "bench singlepulse -dmplan 0:20:1:1 -nchans 16 -nout 4096 "
                                   "-repeat 1 -peer_cmd 'echo no such search >&2; exit 5'"), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "peer /bin/sh exited 5: no such search"));
}

/* A peer that fails, or exits 0 but writes nothing: exit 2, one message
 * naming the program and what went wrong; no temporary folder is left. */
XC_TEST(test_peer_failures, "bench -peer: a failing or silent peer is an error naming it, exit 2")
{
    char err[4096], tmp[700];
    snprintf(tmp, sizeof tmp, "%s/peer-tmp", xc_test_tmpdir());
    CU_ASSERT_FATAL(mkdir(tmp, 0755) == 0);
    setenv("TMPDIR", tmp, 1);
    setenv("XC_STANDIN_MODE", "fail", 1);
    CU_ASSERT_EQUAL(xc_fx_run_clif(err, sizeof err, "bench accel -peer " STANDINS "/accelsearch -nbins 4096 "
                                   "-zmax 0 -threads 1 -runs 1"), 2);
    printf("\n  %s", err);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, STANDINS "/accelsearch exited 3: accelsearch stand-in: failing on purpose"));
    CU_ASSERT_EQUAL(xc_fx_run_clif(err, sizeof err, "bench synth -peer " STANDINS "/fake -nchans 16 -tobs 0.1 "
                                   "-threads 1 -repeat 1"), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, STANDINS "/fake exited 3: fake stand-in: failing on purpose"));
    setenv("XC_STANDIN_MODE", "silent", 1);
    CU_ASSERT_EQUAL(xc_fx_run_clif(err, sizeof err, "bench pulscan -peer " STANDINS "/pulscan -nbins 8192 "
                                   "-zmax 16 -numharm 1 -threads 1 -runs 1 -ref_max_nbins 0"), 2);
    printf("\n  %s", err);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, STANDINS "/pulscan exited 0 but wrote no "));
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "bench_ZMAX_16_NUMHARM_1_TURBO_0.pulscand"));
    unsetenv("XC_STANDIN_MODE");
    unsetenv("TMPDIR");
    /* every run removed its temporary folder */
    DIR *d = opendir(tmp);
    int left = 0;
    for (struct dirent *e; d && (e = readdir(d));)
        left += e->d_name[0] != '.';
    if (d)
        closedir(d);
    XC_ASSERT_NEAR(left, 0, 0);
}

/* 1 when process pid is gone (or a zombie waiting for init to reap it). */
static int process_gone(long pid)
{
    char path[64], stat[256] = "";
    snprintf(path, sizeof path, "/proc/%ld/stat", pid);
    FILE *fp = fopen(path, "r");
    if (!fp)
        return 1;
    size_t n = fread(stat, 1, sizeof stat - 1, fp);
    fclose(fp);
    stat[n] = 0;
    const char *paren = strrchr(stat, ')');
    return paren && paren[1] == ' ' && paren[2] == 'Z';
}

/* A peer that hangs: killed at -peer_timeout, with what it started (a
 * sleep in its process group), and the benchmark exits 2 naming it. */
XC_TEST(test_peer_timeout, "bench -peer_timeout: a hung peer is killed with its children, exit 2 naming it")
{
    char err[4096], pidf[700];
    snprintf(pidf, sizeof pidf, "%s/standin.pid", xc_test_tmpdir());
    setenv("XC_STANDIN_MODE", "hang", 1);
    setenv("XC_STANDIN_PID", pidf, 1);
    const double t0 = xc_now();
    CU_ASSERT_EQUAL(xc_fx_run_clif(err, sizeof err, "bench synth -peer " STANDINS "/fake -nchans 16 -tobs 0.1 "
                                   "-threads 1 -repeat 1 -peer_timeout 0.5"), 2);
    const double took = xc_now() - t0;
    unsetenv("XC_STANDIN_MODE");
    unsetenv("XC_STANDIN_PID");
    printf("\n  %s (%.2f s)", err, took);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, STANDINS "/fake did not finish within 0.5 s (-peer_timeout); killed"));
    /* the stand-in sleeps 60 s: the limit, not its end, stopped it (30 s
     * leaves room for a loaded machine) */
    CU_ASSERT(took < 30);
    size_t n = 0;
    char *pid = (char *)xc_fx_slurp(pidf, &n);
    CU_ASSERT_PTR_NOT_NULL_FATAL(pid);
    /* the group's kill reached the sleep the stand-in started; a killed
     * process may take a moment to be reaped */
    int gone = 0;
    for (int i = 0; i < 200 && !(gone = process_gone(atol(pid))); i++)
        nanosleep(&(struct timespec){0, 10000000}, NULL);
    if (!gone)
        printf("\n  the stand-in's sleep (pid %ld) still runs", atol(pid));
    CU_ASSERT(gone);
    free(pid);
}

/* Peers that are not what the benchmark compares with, or cannot be told. */
XC_TEST(test_peer_kinds, "bench -peer: the program's kind from its name or -peer_kind, else exit 2")
{
    char err[4096], json[600];
    CU_ASSERT_EQUAL(xc_fx_run_clif(err, sizeof err, "bench accel -peer " STANDINS "/fake -nbins 4096 -zmax 0"), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "is fake; this benchmark compares with accelsearch"));
    CU_ASSERT_EQUAL(xc_fx_run_clif(err, sizeof err, "bench accel -peer /bin/sh -nbins 4096 -zmax 0"), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "cannot tell which program it is from its name 'sh'"));
    CU_ASSERT_EQUAL(xc_fx_run_clif(err, sizeof err, "bench accel -peer " STANDINS "/nonesuch -nbins 4096"), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, STANDINS "/nonesuch: not an executable file"));
    CU_ASSERT_EQUAL(xc_fx_run_clif(err, sizeof err, "bench accel -peer_kind accelsearch -nbins 4096"), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "-peer_kind without -peer"));
    /* -peer_kind names a program whose file name does not */
    snprintf(json, sizeof json, "%s/kind.json", xc_test_tmpdir());
    CU_ASSERT_EQUAL(xc_fx_run_clif(err, sizeof err, "bench pulscan -peer " STANDINS "/pulscan -peer_kind pulscan "
                                   "-nbins 4096 -zmax 8 -numharm 1 -threads 1 -runs 1 -ref_max_nbins 0 -json '%s'",
                                   json), 0);
    XC_ASSERT_NEAR(check_peer_records(json, "pulscan", 1), 2, 0);
}

/* Without -peer: no peer field or ratio in the records, none printed. */
XC_TEST(test_no_peer_no_ratio, "bench without -peer: no ratio to a peer, written or printed")
{
    static const char *benches[] = {"accel -nbins 4096 -zmax 0 -threads 1", "synth -nchans 16 -tobs 0.1 -threads 1 -repeat 1",
                                    "pulscan -nbins 4096 -zmax 8 -numharm 1 -threads 1 -runs 1 -ref_max_nbins 0"};
    static const char *banned[] = {"peer", "ratio", "accelsearch_seconds", "speedup_vs_accelsearch",
                                   "fake_samples_per_s", "speedup_vs_fake", "anchors"};
    for (size_t b = 0; b < sizeof benches / sizeof *benches; b++) {
        char cmd[2400], json[600], out[600];
        snprintf(json, sizeof json, "%s/plain-%zu.json", xc_test_tmpdir(), b);
        snprintf(out, sizeof out, "%s/plain-%zu.txt", xc_test_tmpdir(), b);
        snprintf(cmd, sizeof cmd, "%s bench %s -json '%s' > '%s' 2>&1", xc_fx_bin(), benches[b], json, out);
        CU_ASSERT_EQUAL(system(cmd), 0);
        size_t n = 0;
        char *text = (char *)xc_fx_slurp(json, &n);
        CU_ASSERT_PTR_NOT_NULL_FATAL(text);
        for (size_t k = 0; k < sizeof banned / sizeof *banned; k++)
            if (strstr(text, banned[k])) {
                printf("\n  bench %s: the JSON holds '%s'", benches[b], banned[k]);
                CU_FAIL("a record without -peer names a peer or a ratio");
            }
        free(text);
        XC_ASSERT_NEAR(lines_with(out, " vs "), 0, 0);
        XC_ASSERT_NEAR(lines_with(out, "fake"), 0, 0);
    }
}

XC_TEST_MAIN("bench_peer")
