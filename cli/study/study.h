/* study.h: what `crosscheck study` shares with its MPI driver. */
#ifndef XC_CMD_STUDY_H
#define XC_CMD_STUDY_H

#include "cli/base/cli_meter.h"
#include "core/base/xc_progress.h"
#include "study/xc_study.h"

/* study.c: the progress meter (cli/base/cli_meter.h): pulsars done, elapsed
 * and time left, on a terminal or throttled in a log.  want: -quiet and
 * -progress (xc_progress_want). */
typedef struct {
    xc_progress p;
} xc_study_meter;
void xc_study_meter_start(xc_progress_cb *cb, xc_study_meter *m, int want);
/* The options of one process's run: its shard of nshards, threads, workers
 * and device jobs, with the progress line on m. */
void xc_study_runopts_start(xc_study_runopts *ro, xc_study_meter *m, unsigned long long shard,
                            unsigned long long nshards, int threads, int workers, int device_jobs, int want);
/* Prints DIR/rates.csv as a table on stdout. */
void xc_study_print_rates(const char *dir);
/* The study's memory said once before work (unless quiet): a worker's
 * estimate (xc_study_worker_memory, at the threads each gets) times the
 * workers.  Under max_memory (> 0) fewer workers when all do not fit (the
 * rows do not depend on the count): *workers set to those that do; when one
 * does not, an error naming the need and the bound.  0 to go on, else the
 * exit status (2). */
int xc_study_memory_plan(const xc_study *st, int threads, int *workers, double max_memory, int quiet);

/* A study with a device searcher keeps each worker's series and spectra in
 * the CUDA runtime's page-locked host memory (xc_study.host_alloc) and
 * transforms its pulsars on the device (xc_study.fft_run: that transform's
 * bits, the spectrum left on the device for the device searches); otherwise
 * nothing. */
void xc_study_use_pinned(xc_study *st);

/* A study allocates and frees the same large blocks pulsar after pulsar
 * (FFTW's plan for each series length: its twiddles; searchers' scratch):
 * by default glibc hands each back to the kernel and every page of the next
 * faults in again, a few thousand faults per pulsar.  This keeps freed memory
 * in the process for the next pulsar (glibc's mallopt; elsewhere nothing).
 * Call once, before the workers start. */
void xc_study_keep_freed_memory(void);

/* study_rank_gpu.c: under mpirun (more than one rank, MPI built in), binds
 * this rank to one GPU: the node-local rank (OMPI_COMM_WORLD_LOCAL_RANK,
 * Slurm's SLURM_LOCALID or MPICH's MPI_LOCALRANKID) modulo the devices it
 * sees, CUDA_VISIBLE_DEVICES's entries or else the node's GPUs, becomes its
 * CUDA_VISIBLE_DEVICES (xc_devpick, core/base/xc_devpick.h).  Call before
 * anything touches CUDA, and before other threads start (it sets the
 * environment).  Otherwise nothing.  info->note says what was done (or why
 * not), "" when not under mpirun. */
typedef struct {
    int bound;        /* 1: CUDA_VISIBLE_DEVICES names this rank's GPU */
    int rank;         /* the world rank, -1 when not said */
    char note[512];
} xc_study_rank_gpu_info;
void xc_study_rank_gpu(xc_study_rank_gpu_info *info);

/* 1 when this binary was built with MPI. */
int xc_study_mpi_built(void);
/* The world size a launcher gave this process (OMPI_COMM_WORLD_SIZE, else
 * PMI_SIZE), NULL when none started it. */
const char *xc_study_mpi_world_size(void);

/* When this process was started by mpirun (and MPI was built in), runs the
 * study over the ranks and returns the exit code; otherwise returns -1 and
 * the caller runs it alone.  want: xc_progress_want (rank 0 shows it). */
int xc_study_mpi_main(xc_study *st, const char *out, unsigned long long shard, unsigned long long nshards,
                      int threads, int workers, int device_jobs, int want);

#endif
