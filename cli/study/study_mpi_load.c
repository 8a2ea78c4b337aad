/* OpenMPI loaded when `crosscheck study` runs under mpirun, not when
 * crosscheck starts.  Linked directly, libmpi.so.40 and the libraries it
 * needs (open-rte, open-pal, hwloc, libevent, udev...) are mapped and
 * relocated by every process: some 6 ms CPU of each start, and the test
 * suite starts crosscheck hundreds of times.  These definitions stand in
 * for the MPI functions cmd_study_mpi.c calls (the prototypes of mpi.h):
 * MPI_Init_thread opens the library (RTLD_GLOBAL: OpenMPI's components,
 * opened by the library in turn, resolve its symbols) and each forwards to
 * the library's own function.  Without the library MPI_Init_thread returns
 * MPI_ERR_OTHER and xc_mpi_load_error() says why. */
#ifdef XC_HAVE_MPI
#include "cli/study/study_mpi_load.h"

#include "core/base/xc_dlsym.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

/* X(name, parameters, arguments): the functions, all returning int. */
#define XC_MPI_FNS(X)                                                                                               \
    X(MPI_Init_thread, (int *argc, char ***argv, int required, int *provided), (argc, argv, required, provided))    \
    X(MPI_Comm_rank, (MPI_Comm comm, int *rank), (comm, rank))                                                      \
    X(MPI_Comm_size, (MPI_Comm comm, int *size), (comm, size))                                                      \
    X(MPI_Bcast, (void *buf, int count, MPI_Datatype t, int root, MPI_Comm comm), (buf, count, t, root, comm))      \
    X(MPI_Barrier, (MPI_Comm comm), (comm))                                                                         \
    X(MPI_Allreduce, (const void *s, void *r, int count, MPI_Datatype t, MPI_Op op, MPI_Comm comm),                 \
      (s, r, count, t, op, comm))                                                                                   \
    X(MPI_Reduce, (const void *s, void *r, int count, MPI_Datatype t, MPI_Op op, int root, MPI_Comm comm),          \
      (s, r, count, t, op, root, comm))                                                                             \
    X(MPI_Win_allocate, (MPI_Aint size, int unit, MPI_Info info, MPI_Comm comm, void *base, MPI_Win *win),          \
      (size, unit, info, comm, base, win))                                                                          \
    X(MPI_Win_lock, (int type, int rank, int assert, MPI_Win win), (type, rank, assert, win))                       \
    X(MPI_Win_unlock, (int rank, MPI_Win win), (rank, win))                                                         \
    X(MPI_Fetch_and_op, (const void *o, void *r, MPI_Datatype t, int rank, MPI_Aint disp, MPI_Op op, MPI_Win win), \
      (o, r, t, rank, disp, op, win))                                                                               \
    X(MPI_Win_free, (MPI_Win * win), (win))                                                                         \
    X(MPI_Finalize, (void), ())

#define XC_MPI_MEMBER(name, params, args) int(*name) params;

static struct {
    XC_MPI_FNS(XC_MPI_MEMBER)
    double (*MPI_Wtime)(void);
    void *global[XC_MPI_NGLOBAL];
    int ok;
} fn;
static char why[256];
static pthread_once_t once = PTHREAD_ONCE_INIT;

/* the objects behind the handles, in the order of the enum */
static const char *const global_name[XC_MPI_NGLOBAL] = {
    "ompi_mpi_comm_world", "ompi_mpi_int", "ompi_mpi_uint64_t", "ompi_mpi_unsigned_long_long",
    "ompi_mpi_op_sum", "ompi_mpi_op_max", "ompi_mpi_info_null",
};

static int sym(void *lib, const char *name, void *slot, size_t size)
{
    return xc_dlsym(lib, "libmpi", name, slot, size, why, sizeof why);
}

#define XC_MPI_LOAD(name, params, args) ok = ok && sym(lib, #name, &fn.name, sizeof fn.name);

static void load(void)
{
    void *lib = dlopen("libmpi.so.40", RTLD_NOW | RTLD_GLOBAL);
    if (!lib)
        lib = dlopen("libmpi.so", RTLD_NOW | RTLD_GLOBAL);
    if (!lib) {
        const char *e = dlerror();
        snprintf(why, sizeof why, "%s", e ? e : "libmpi.so.40 could not be opened");
        return;
    }
    int ok = 1;
    XC_MPI_FNS(XC_MPI_LOAD)
    ok = ok && sym(lib, "MPI_Wtime", &fn.MPI_Wtime, sizeof fn.MPI_Wtime);
    for (int k = 0; ok && k < XC_MPI_NGLOBAL; k++)
        ok = sym(lib, global_name[k], &fn.global[k], sizeof fn.global[k]);
    fn.ok = ok;
}

static int loaded(void)
{
    pthread_once(&once, load);
    return fn.ok;
}

void *xc_mpi_global(int k)
{
    return loaded() && k >= 0 && k < XC_MPI_NGLOBAL ? fn.global[k] : NULL;
}

const char *xc_mpi_load_error(void)
{
    return loaded() ? "" : why;
}

#define XC_MPI_DEFINE(name, params, args)                                                                           \
    int name params { return loaded() ? fn.name args : MPI_ERR_OTHER; }

XC_MPI_FNS(XC_MPI_DEFINE)

double MPI_Wtime(void)
{
    return loaded() ? fn.MPI_Wtime() : 0.0;
}
#else
typedef int xc_study_mpi_load_not_built;   /* MPI=0: nothing to load */
#endif
