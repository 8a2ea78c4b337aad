/* OpenMPI opened when `crosscheck study` runs under mpirun, not linked
 * (study_mpi_load.c): <mpi.h> with the predefined handles cmd_study_mpi.c
 * uses taken from the opened library.  OpenMPI's handles are the addresses
 * of objects libmpi defines (mpi.h, OMPI_PREDEFINED_GLOBAL), which a
 * program that does not link it cannot name. */
#ifndef XC_STUDY_MPI_LOAD_H
#define XC_STUDY_MPI_LOAD_H
#include <mpi.h>

#ifndef OPEN_MPI
#error "crosscheck study's MPI part is written for OpenMPI (its predefined handles)"
#endif

enum { XC_MPI_COMM_WORLD, XC_MPI_INT, XC_MPI_UINT64, XC_MPI_ULL, XC_MPI_SUM, XC_MPI_MAX, XC_MPI_INFO_NULL, XC_MPI_NGLOBAL };
/* The address of OpenMPI's object for handle k (NULL before MPI_Init_thread
 * has opened the library). */
void *xc_mpi_global(int k);
/* Why the library could not be opened ("" when it was). */
const char *xc_mpi_load_error(void);

#undef MPI_COMM_WORLD
#undef MPI_INT
#undef MPI_UINT64_T
#undef MPI_UNSIGNED_LONG_LONG
#undef MPI_SUM
#undef MPI_MAX
#undef MPI_INFO_NULL
#define MPI_COMM_WORLD ((MPI_Comm)xc_mpi_global(XC_MPI_COMM_WORLD))
#define MPI_INT ((MPI_Datatype)xc_mpi_global(XC_MPI_INT))
#define MPI_UINT64_T ((MPI_Datatype)xc_mpi_global(XC_MPI_UINT64))
#define MPI_UNSIGNED_LONG_LONG ((MPI_Datatype)xc_mpi_global(XC_MPI_ULL))
#define MPI_SUM ((MPI_Op)xc_mpi_global(XC_MPI_SUM))
#define MPI_MAX ((MPI_Op)xc_mpi_global(XC_MPI_MAX))
#define MPI_INFO_NULL ((MPI_Info)xc_mpi_global(XC_MPI_INFO_NULL))
#endif
