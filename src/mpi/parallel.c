/* agglo_sim_run_parallel (include/agglo/parallel.h): the domain decomposition of the run's model,
   from the registry (core/models.c). */
#include "agglo/parallel.h"
#include "core/error.h"
#include "core/model.h"
#include "mpi/bricks.h"

int agglo_parallel_supported(const agglo_config *settings) {
  return settings && agglo_model_parallel(settings->model) != NULL;
}

agglo_status agglo_sim_run_parallel(agglo_sim *sim, const agglo_config *settings) {
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const agglo_config *c = rank == 0 && sim ? &sim->cfg : settings;
  /* the model every rank runs: rank 0's */
  int model = c ? agglo_model_index(c->model) : -1;
  if (rank == 0 && !sim) model = -1;
  MPI_Bcast(&model, 1, MPI_INT, 0, MPI_COMM_WORLD);
  agglo_parallel_driver run = c && agglo_model_index(c->model) == model ? agglo_model_parallel(c->model) : NULL;
  int ok = run != NULL;
  MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (!ok)
    return agglo_error(AGGLO_ERROR_INPUT, "agglo_sim_run_parallel: domain decomposition runs "
                       "run.model = dpd or contact (run other models on one rank, or many seeds "
                       "with agglo ensemble)");
  return run(sim, c);
}
