/* `agglo ensemble` and `agglo compare`: the command line of ensembles (app/ensemble_cli.c), and
   the MPI hand-out of members (app/ensemble_mpi.c, built when CMake finds MPI). */
#ifndef AGGLO_APP_ENSEMBLE_CLI_H
#define AGGLO_APP_ENSEMBLE_CLI_H
#include "agglo/ensemble.h"

int agglo_cli_ensemble(int argc, char **argv);
int agglo_cli_compare(int argc, char **argv);
int agglo_cli_plot(int argc, char **argv);

/* Run member i, print its line on stderr (unless quiet); poll (may be NULL) is called after
   every step. 0: succeeded, 1: failed (its marker says why), -1: its marker cannot be written. */
int agglo_cli_run_member(agglo_ensemble *e, size_t i, agglo_callback poll, void *user, int rank,
                         int quiet);

/* After the members ran: the summary, the exit status (0, or 1 when members failed) and, when
   given, a report (compare). */
typedef int (*agglo_cli_report_fn)(agglo_ensemble *e, void *user);
int agglo_cli_finish(agglo_ensemble *e, const char *dir, int quiet, agglo_cli_report_fn report,
                     void *user);

#ifdef AGGLO_HAVE_MPI
/* 1 when this process was started by mpirun (or another MPI launcher). */
int agglo_cli_mpi_launched(void);
/* The whole ensemble over the ranks: rank 0 prepares the directory (mode: AGGLO_ENSEMBLE_*) and
   holds it, every rank (rank 0 too) runs the members it is handed, rank 0 writes the summary and
   the report. The exit status. */
int agglo_cli_mpi_ensemble(agglo_ensemble *e, const char *dir, int mode, int quiet,
                           agglo_cli_report_fn report, void *user);
#endif

#endif
