/* The MPI calls of `mpirun -np K agglo run` (the run itself: agglo_sim_run_parallel). */
#include "run_mpi.h"
#include <mpi.h>

int agglo_cli_mpi_start(int *size) {
  int provided, rank;
  MPI_Init_thread(NULL, NULL, MPI_THREAD_FUNNELED, &provided);
  MPI_Comm_size(MPI_COMM_WORLD, size);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  return rank;
}

int agglo_cli_mpi_agree(int ok) {
  MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
  return ok;
}

void agglo_cli_mpi_end(void) { MPI_Finalize(); }
