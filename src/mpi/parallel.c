/* agglo_sim_run_parallel (include/agglo/parallel.h): the decomposition of the run's model. */
#include "agglo/parallel.h"
#include "mpi/bricks.h"
#include "core/error.h"

agglo_status agglo_sim_run_parallel(agglo_sim *sim, const agglo_config *settings) {
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const agglo_config *c = rank == 0 && sim ? &sim->cfg : settings;
  /* the model every rank runs: rank 0's */
  int model = c ? c->model : -1;
  if (rank == 0 && !sim) model = -1;
  MPI_Bcast(&model, 1, MPI_INT, 0, MPI_COMM_WORLD);
  int ok = c && c->model == model && (model == MODEL_DPD || model == MODEL_CONTACT);
  MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (!ok)
    return agglo_error(AGGLO_ERROR_INPUT, "agglo_sim_run_parallel: domain decomposition runs "
                       "run.model = dpd or contact (run other models on one rank, or many seeds "
                       "with agglo ensemble)");
  return model == MODEL_DPD ? agglo_dpd_run_parallel(sim, c) : agglo_contact_run_parallel(sim, c);
}
