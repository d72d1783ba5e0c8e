/* restart_stop_at SCENARIO DIR T [section.key=value]...: the run of `agglo run SCENARIO -s ... -o
   DIR --overwrite`, stopped by its callback after the first step at time T or later, as SIGTERM
   stops `agglo run` (the restart point at that step, nothing off the output schedule); under
   mpirun (model = contact or dpd) on its ranks. `agglo run --resume DIR` then continues it
   (tests/restart/check.py). Exit status 0 when stopped there, else 1 with the message. */
#include "agglo/agglo.h"
#include <stdio.h>
#include <stdlib.h>
#ifdef AGGLO_HAVE_MPI
#include "agglo/parallel.h"
#include <mpi.h>
#endif

static int stop_at(agglo_sim *sim, void *user) { return agglo_sim_time(sim) >= *(const double *)user; }

int main(int argc, char **argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: restart_stop_at SCENARIO DIR T [section.key=value]...\n");
    return 1;
  }
  double t = atof(argv[3]);
  int rank = 0, ranks = 1;
#ifdef AGGLO_HAVE_MPI
  int launched = getenv("OMPI_COMM_WORLD_SIZE") != NULL;
  if (launched) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  }
#endif
  agglo_config *cfg = agglo_config_new();
  agglo_sim *sim = NULL;
  agglo_status st = cfg ? agglo_config_load(cfg, argv[1]) : AGGLO_ERROR_MEMORY;
  for (int i = 4; st == AGGLO_OK && i < argc; i++) st = agglo_config_assign(cfg, argv[i]);
  if (st == AGGLO_OK) st = agglo_config_check(cfg);
  if (st == AGGLO_OK && rank == 0) st = agglo_sim_create(cfg, &sim);
  if (st == AGGLO_OK && rank == 0)
    st = agglo_sim_attach_outputs(sim, argv[2], AGGLO_OUTPUT_ALL | AGGLO_OUTPUT_OVERWRITE);
  if (st == AGGLO_OK && rank == 0) st = agglo_sim_set_callback(sim, 1, stop_at, &t);
#ifdef AGGLO_HAVE_MPI
  if (ranks > 1) {
    MPI_Bcast(&st, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (st == AGGLO_OK) st = agglo_sim_run_parallel(sim, cfg);
  } else
#endif
  if (st == AGGLO_OK)
    st = agglo_sim_run(sim);
  if (st == AGGLO_STOPPED && rank == 0) st = agglo_sim_close_outputs(sim) == AGGLO_OK ? AGGLO_STOPPED : AGGLO_ERROR_IO;
  int rc = 0;
  if (st != AGGLO_STOPPED && rank == 0) {
    fprintf(stderr, "restart_stop_at: %s\n", st == AGGLO_OK ? "the run ended before T" : agglo_last_error());
    rc = 1;
  }
  agglo_sim_destroy(sim);
  agglo_config_destroy(cfg);
#ifdef AGGLO_HAVE_MPI
  if (launched) MPI_Finalize();
#endif
  return rc;
}
