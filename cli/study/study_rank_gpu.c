/* crosscheck study under mpirun: each rank drives one GPU (study.h).  The
 * rank's device is chosen from the launcher's environment alone, before
 * MPI_Init (a CUDA-aware MPI may initialise CUDA there) and before anything
 * asks the CUDA runtime for a device: CUDA_VISIBLE_DEVICES is set to the
 * one entry xc_devpick gives, so every thread of the process, the study's
 * workers and any thread a searcher starts, sees that GPU as device 0. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/study/study.h"
#include "core/base/xc_devpick.h"

/* The first of the launchers' variables that is set (NULL: none). */
static const char *first_env(const char *const *names, const char **which)
{
    for (; *names; names++) {
        const char *v = getenv(*names);
        if (v && *v) {
            *which = *names;
            return v;
        }
    }
    return NULL;
}

/* The node's NVIDIA GPUs without initialising CUDA (after which a new
 * CUDA_VISIBLE_DEVICES is ignored): the driver's entries under
 * /proc/driver/nvidia/gpus (in a container, those it was given). */
static int node_gpus(void)
{
    DIR *d = opendir("/proc/driver/nvidia/gpus");
    if (!d)
        return 0;
    int n = 0;
    struct dirent *de;
    while ((de = readdir(d)))
        n += de->d_name[0] != '.';
    closedir(d);
    return n;
}

void xc_study_rank_gpu(xc_study_rank_gpu_info *info)
{
    static const char *const rank_vars[] = {"OMPI_COMM_WORLD_RANK", "PMI_RANK", NULL};
    /* OpenMPI's mpirun, Slurm's srun, MPICH's Hydra */
    static const char *const local_vars[] = {"OMPI_COMM_WORLD_LOCAL_RANK", "SLURM_LOCALID", "MPI_LOCALRANKID", NULL};
    memset(info, 0, sizeof *info);
    const char *wrank = NULL, *which = NULL, *size = xc_study_mpi_world_size();
    if (!size || atoi(size) < 2 || !xc_study_mpi_built())
        return;
    const char *rank = first_env(rank_vars, &wrank), *local = first_env(local_vars, &which);
    info->rank = rank ? atoi(rank) : -1;
    if (!local) {
        snprintf(info->note, sizeof info->note, "MPI rank %d: no node-local rank in the environment (%s, %s or %s): "
                 "the rank uses the devices it sees (CUDA_VISIBLE_DEVICES %s)", info->rank, local_vars[0],
                 local_vars[1], local_vars[2], getenv("CUDA_VISIBLE_DEVICES") ? getenv("CUDA_VISIBLE_DEVICES") : "unset");
        return;
    }
    const char *visible = getenv("CUDA_VISIBLE_DEVICES");
    char seen[160], pick[128];
    snprintf(seen, sizeof seen, "%s%s", visible ? "CUDA_VISIBLE_DEVICES=" : "the node's GPUs",
             visible ? visible : "");
    int local_rank = atoi(local);
    int n = xc_devpick(visible, visible ? 0 : node_gpus(), local_rank, pick, sizeof pick);
    if (n <= 0) {
        snprintf(info->note, sizeof info->note, "MPI rank %d (node-local %d): %s: no GPU to bind", info->rank,
                 local_rank, n < 0 ? "CUDA_VISIBLE_DEVICES entry too long" : seen);
        return;
    }
    setenv("CUDA_VISIBLE_DEVICES", pick, 1);
    info->bound = 1;
    snprintf(info->note, sizeof info->note, "MPI rank %d (node-local %d, %s) drives GPU %s of %d (%s)", info->rank,
             local_rank, which, pick, n, seen);
}
