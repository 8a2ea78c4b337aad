/* crosscheck study under MPI: every rank takes the next unfinished pulsar
 * from a counter on rank 0 (MPI one-sided fetch-and-add: dynamic load
 * balancing without a master that does no work), appends its rows to its
 * own journal (DIR/journal/rank-R-of-N.csv, DIR on a file system all ranks
 * see), and rank 0 writes the outputs from all journals.  The outputs are
 * made from the sorted rows alone, so they equal a one-process run's.
 *
 * Built only when the Makefile finds OpenMPI (MPI=1, XC_HAVE_MPI); MPI is
 * started only when the process was launched by mpirun (OMPI_COMM_WORLD_SIZE
 * or PMI_SIZE set), so the same binary runs alone without an MPI runtime. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/base/cli.h"
#include "cli/study/study.h"

const char *xc_study_mpi_world_size(void)
{
    const char *sz = getenv("OMPI_COMM_WORLD_SIZE");
    return sz ? sz : getenv("PMI_SIZE");
}

#ifndef XC_HAVE_MPI
int xc_study_mpi_built(void) { return 0; }

int xc_study_mpi_main(xc_study *st, const char *out, unsigned long long shard, unsigned long long nshards,
                      int threads, int workers, int device_jobs, int want)
{
    (void)st, (void)out, (void)shard, (void)nshards, (void)threads, (void)workers, (void)device_jobs, (void)want;
    const char *sz = xc_study_mpi_world_size();
    if (sz && atoi(sz) > 1) {
        fprintf(stderr, "crosscheck study: started by mpirun with %s ranks, but this build has no MPI (built with "
                "MPI=0 or without OpenMPI): every rank would run the whole study; run it once, or rebuild with "
                "OpenMPI (libopenmpi-dev)\n", sz);
        return 2;
    }
    return -1;
}
#else
#include "cli/study/study_mpi_load.h"

int xc_study_mpi_built(void) { return 1; }

typedef struct {
    MPI_Win win;
} counter;

static uint64_t next_index(void *ctx)
{
    counter *c = ctx;
    uint64_t one = 1, got = 0;
    MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, c->win);
    MPI_Fetch_and_op(&one, &got, MPI_UINT64_T, 0, 0, MPI_SUM, c->win);
    MPI_Win_unlock(0, c->win);
    return got;
}

static void barrier(void *ctx)
{
    (void)ctx;
    MPI_Barrier(MPI_COMM_WORLD);
}

int xc_study_mpi_main(xc_study *st, const char *out, unsigned long long shard, unsigned long long nshards,
                      int threads, int workers, int device_jobs, int want)
{
    int quiet = want == XC_PROGRESS_QUIET;
    const char *sz = xc_study_mpi_world_size();
    if (!sz)
        return -1;
    int provided = 0, rank = 0, size = 1;
    if (MPI_Init_thread(NULL, NULL, MPI_THREAD_SERIALIZED, &provided) != MPI_SUCCESS) {
        const char *why = xc_mpi_load_error();
        fprintf(stderr, "crosscheck study: MPI_Init_thread failed%s%s\n", *why ? ": " : "", why);
        return 2;
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    xc_error err;
    xc_error_clear(&err);
    /* Rank 0 makes (or checks) the directory before anyone reads it. */
    int bad = rank == 0 && xc_study_dir_init(st, out, &err) != XC_OK;
    MPI_Bcast(&bad, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (bad) {
        if (rank == 0)
            xc_cli_fail("study", &err);
        MPI_Finalize();
        return 2;
    }
    uint64_t *win_mem = NULL;
    counter c;
    MPI_Win_allocate(rank == 0 ? (MPI_Aint)sizeof(uint64_t) : 0, sizeof(uint64_t), MPI_INFO_NULL, MPI_COMM_WORLD,
                     &win_mem, &c.win);
    if (rank == 0) {
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, c.win);
        *win_mem = 0;
        MPI_Win_unlock(0, c.win);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    char tag[64];
    snprintf(tag, sizeof tag, "rank-%d-of-%d", rank, size);
    xc_study_meter mstore;
    xc_study_runopts ro;
    xc_study_runopts_start(&ro, &mstore, shard, nshards, threads, workers, device_jobs, rank ? XC_PROGRESS_QUIET : want);
    ro.tag = tag;
    ro.next = next_index;
    ro.next_ctx = &c;
    ro.ready = barrier;
    ro.ready_ctx = NULL;
    /* Threads take pulsars one at a time (MPI_THREAD_SERIALIZED suffices:
     * the run calls next() inside a critical section). */
    if (provided < MPI_THREAD_SERIALIZED)
        ro.threads = 1;
    double t0 = MPI_Wtime();
    int st_local = xc_study_run(st, out, &ro, &err) != XC_OK, any = 0;
    if (st_local)
        xc_cli_fail("study", &err);
    MPI_Allreduce(&st_local, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    unsigned long long made = ro.made, made_all = 0;
    MPI_Reduce(&made, &made_all, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    int code = any ? 2 : 0;
    if (!any && rank == 0) {
        xc_study_rows rows = {0};
        xc_status e = xc_study_journal_read(st, out, &rows, &err);
        if (!e && !(e = xc_study_rows_sort(&rows, &err)))
            e = xc_study_write_outputs(st, &rows, shard, nshards, out, &err);
        xc_study_rows_free(&rows);
        if (e)
            code = xc_cli_fail("study", &err);
        else if (!quiet) {
            printf("crosscheck study: %d MPI ranks, %llu pulsars made now (%llu finished before) x %zu searches in "
                   "%.1f s -> %s\n", size, made_all, (unsigned long long)ro.done_before, xc_study_nsearch(st),
                   MPI_Wtime() - t0, out);
            xc_study_print_rates(out);
        }
    }
    MPI_Bcast(&code, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Win_free(&c.win);
    MPI_Finalize();
    return code;
}
#endif
