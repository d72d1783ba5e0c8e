/* `mpirun -np K agglo run`: the MPI side of the run command (run_mpi.c). */
#ifndef AGGLO_RUN_MPI_H
#define AGGLO_RUN_MPI_H

/* MPI_Init; returns this rank (and the number of ranks in *size). */
int agglo_cli_mpi_start(int *size);
/* Rank 0's verdict (1 = go on) reaches every rank. */
int agglo_cli_mpi_agree(int ok);
void agglo_cli_mpi_end(void);

#endif
