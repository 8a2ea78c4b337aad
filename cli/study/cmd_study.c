/* crosscheck study: a sensitivity study over a synthetic population (study/xc_study.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/base/cli.h"
#include "cli/base/cli_memory.h"
#include "cli/base/cli_opts.h"
#include "cli/study/study.h"
#include "core/base/xc_progress.h"
#include "study/xc_study.h"

/* The MPI line of the help: whether this binary has it. */
static void help_mpi(void)
{
    printf("\nMPI: %s\n", xc_study_mpi_built() ? "built in (OpenMPI)" : "not built in (MPI=0, or no OpenMPI at build time)");
}

/* 1 when a searcher of the study runs on a device. */
static int on_device(const xc_study *st)
{
    for (size_t k = 0; k < st->ns; k++)
        if (st->s[k].impl->caps & XC_CAP_DEVICE)
            return 1;
    return 0;
}

static int parse_shard(const char *s, unsigned long long *i, unsigned long long *n)
{
    char *e;
    *i = strtoull(s, &e, 10);
    if (e == s || *e != '/')
        return -1;
    const char *t = e + 1;
    *n = strtoull(t, &e, 10);
    if (e == t || *e || *n < 1 || *i >= *n)
        return -1;
    return 0;
}

/* The command, for its help and messages. */
/* study -merge DIR... -out OUT */
static int merge_dirs(const char *const *dirs, int ndirs, const char *out, int quiet)
{
    if (!out || ndirs < 1)
        return xc_cli_failf("study", "-merge DIR1 DIR2 ... -out DIR: needs directories and -out");
    xc_error err;
    xc_error_clear(&err);
    xc_study st;
    if (xc_study_merge(dirs, (size_t)ndirs, out, xc_cli_registry(), &st, &err))
        return xc_cli_fail("study", &err);
    if (!quiet) {
        printf("crosscheck study: merged %d directories into %s (%llu pulsars)\n", ndirs, out,
               (unsigned long long)st.n);
        xc_study_print_rates(out);
    }
    xc_study_free(&st);
    return 0;
}

int xc_cmd_study(const xc_cmd *self, int argc, char **argv)
{
    const char *spec = NULL, *out = NULL, *shard = NULL;
    unsigned long long n = 0;
    double max_memory = 0;
    int have_n = 0, threads = 0, workers = 0, device_jobs = 0, quiet = 0, progress = 0, merge = 0;
    const xc_opt opts[] = {
        XC_OPT_STR("spec", &spec, .arg = "FILE.json",
                   .help = "the study spec (required unless -merge); see datasets/study-table1-small.json"),
        XC_OPT_STR("out", &out, .arg = "DIR", .help = "output directory, created if missing (required)"),
        {.name = "n", .kind = XC_OPTK_U64, .dest = &n, .given = &have_n, .arg = "N",
         .help = "number of pulsars, overriding the spec's population.n (pulsar i does not\n"
                 "depend on N, so a larger N extends a finished study)"},
        XC_OPT_STR("shard", &shard, .arg = "I/N",
                   .help = "run only pulsars i with i % N == I (0 <= I < N) into DIR; join the N\n"
                           "directories with -merge.  The outputs then cover the slice only"),
        XC_OPT_FLAG("merge", &merge, .arg = "DIR...",
                    .help = "join the journals of study directories (of the same study) into -out DIR and\n"
                            "write its outputs: the same bytes as one run over all pulsars"),
        XC_OPT_INT("threads", &threads, 0, 4096, .arg = "N",
                   .help = "CPU threads (0: the OpenMP default); pulsars are searched side by side,\n"
                           "one per thread; the results do not depend on N", .def = "0"),
        XC_OPT_INT("workers", &workers, 0, 4096, .arg = "W",
                   .help = "pulsars searched at once (0: one per thread, or 1 when a searcher runs on a\n"
                           "device); one worker gets every thread, several each run their pulsar\n"
                           "on one thread (OpenMP's nested parallelism is off); the results do not\n"
                           "depend on W", .def = "0"),
        XC_OPT_INT("device_jobs", &device_jobs, 0, 64, .arg = "K",
                   .help = "device searches at once among the workers (0, 1: one at a time): more\n"
                           "let one worker's host work overlap another's kernels; each may hold a\n"
                           "search's device memory (22.5 GB for FDAS at the paper's zmax 1200 and\n"
                           "600 s), so K is bounded by the device's memory; GPU Pulscan searches,\n"
                           "whose memory their kept plans hold, run beside them without a slot; the\n"
                           "results do not depend on K", .def = "0"),
        XC_CLI_OPT_MAX_MEMORY(&max_memory, "the study"),
        XC_OPT_METER(&quiet, &progress, "no progress line and no rates table"),
        XC_OPT_END,
    };
    int first = argc;
    const xc_optspec ospec = XC_CMD_SPEC(self, .max_args = XC_OPTS_ANY_ARGS,
                                         .after = "MPI: built with OpenMPI (found at build time; MPI=0 builds without it), the same binary started by\n"
             "mpirun spreads the pulsars over the ranks, each taking the next unfinished pulsar when it is free,\n"
             "and rank 0 writes the outputs: `mpirun -n 4 --hostfile hosts bin/crosscheck study -spec S -out DIR`\n"
             "(DIR on a file system every rank sees).  Each rank drives one GPU: its node-local rank modulo the\n"
             "GPUs it sees (the entries of CUDA_VISIBLE_DEVICES, else the node's) becomes its CUDA_VISIBLE_DEVICES\n"
             "before CUDA starts, so ranks on one node take different GPUs (and a rank Slurm gave one GPU with\n"
             "--gpus-per-task=1 keeps it); `mpirun -n 2 ... -device_jobs 4` on a host of two GPUs uses both.\n"
             "On a cluster without MPI, a Slurm array over -shard:\n"
             "`sbatch --array=0-15 --wrap 'bin/crosscheck study -spec S -out run/$SLURM_ARRAY_TASK_ID -shard\n"
             "$SLURM_ARRAY_TASK_ID/16'`, then `crosscheck study -merge run/* -out DIR`.  See docs/STUDY.md.\n\n"
             "Exit status: 0 done, 2 an error (a bad spec names the file and the JSON path of the field).\n",
                                         .more = help_mpi);
    int rc = xc_opts_parse(&ospec, opts, argc, argv, &first);
    if (rc != XC_OPTS_GO)
        return rc;
    xc_error err;
    xc_error_clear(&err);
    if (merge) {
        if (spec || shard || have_n)
            return xc_cli_failf("study", "-merge takes study directories and -out DIR only");
        return merge_dirs((const char *const *)argv + first, argc - first, out, quiet);
    }
    if (first < argc)
        return xc_cli_failf("study", "unexpected argument '%s' (directories go with -merge)", argv[first]);
    if (!spec || !out)
        return xc_cli_failf("study", "-spec STUDY.json and -out DIR are required (see crosscheck study -h)");
    /* before anything asks the CUDA runtime for a device */
    xc_study_rank_gpu_info rank_gpu;
    xc_study_rank_gpu(&rank_gpu);
    unsigned long long si = 0, sn = 1;
    if (shard && parse_shard(shard, &si, &sn))
        return xc_cli_failf("study", "-shard: '%s': must be I/N with 0 <= I < N", shard);
    if (have_n && n < 1)
        return xc_cli_failf("study", "-n: %llu pulsars: must be at least 1", n);
    xc_study st;
    if (xc_study_load(&st, spec, xc_cli_registry(), &err))
        return xc_cli_fail("study", &err);
    if (have_n)
        st.n = n;
    if (!quiet && rank_gpu.note[0] && on_device(&st))
        fprintf(stderr, "crosscheck study: %s\n", rank_gpu.note);
    xc_study_use_pinned(&st);
    xc_study_keep_freed_memory();
    int code = xc_study_memory_plan(&st, threads, &workers, max_memory, quiet);
    if (code) {
        xc_study_free(&st);
        return code;
    }
    code = xc_study_mpi_main(&st, out, si, sn, threads, workers, device_jobs, xc_progress_want(quiet, progress));
    if (code >= 0) {
        xc_study_free(&st);
        return code;
    }
    xc_study_meter m;
    xc_study_runopts ro;
    xc_study_runopts_start(&ro, &m, si, sn, threads, workers, device_jobs, xc_progress_want(quiet, progress));
    double t0 = xc_now();
    xc_study_rows rows = {0};
    xc_status e = xc_study_run(&st, out, &ro, &err);
    if (!e && !(e = xc_study_journal_read(&st, out, &rows, &err)) && !(e = xc_study_rows_sort(&rows, &err)))
        e = xc_study_write_outputs(&st, &rows, si, sn, out, &err);
    xc_study_rows_free(&rows);
    if (e) {
        xc_study_free(&st);
        return xc_cli_fail("study", &err);
    }
    if (!quiet) {
        printf("crosscheck study: %llu %s (%llu made now, %llu finished before) x %zu searches in %.1f s -> "
               "%s/{detections.csv,rates.csv,%s,index.html}\n",
               (unsigned long long)(ro.made + ro.done_before), st.frb ? "bursts" : "pulsars",
               (unsigned long long)ro.made, (unsigned long long)ro.done_before, xc_study_nsearch(&st), xc_now() - t0,
               out, st.frb ? "completeness.csv,completeness.json" : "recovery.json");
        xc_study_print_rates(out);
    }
    xc_study_free(&st);
    return 0;
}
