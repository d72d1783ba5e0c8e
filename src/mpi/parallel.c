/* agglo_sim_run_parallel (include/agglo/parallel.h): the decomposition of the run's model. */
#include "agglo/parallel.h"
#include "core/error.h"
#include "core/model.h"
#include "mpi/bricks.h"

agglo_status agglo_sim_run_parallel(agglo_sim *sim, const agglo_config *settings) {
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const agglo_config *c = rank == 0 && sim ? &sim->cfg : settings;
  /* the model every rank runs: rank 0's, by its place in the registry */
  int model = -1;
  for (int q = 0; c && agglo_model_at((size_t)q); q++)
    if (agglo_model_at((size_t)q) == c->model) model = q;
  if (rank == 0 && !sim) model = -1;
  MPI_Bcast(&model, 1, MPI_INT, 0, MPI_COMM_WORLD);
  const agglo_model_entry *m = model >= 0 ? agglo_model_at((size_t)model) : NULL;
  int ok = c && c->model == m && (m == &agglo_dpd_entry || m == &agglo_contact_entry);
  MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (!ok)
    return agglo_error(AGGLO_ERROR_INPUT, "agglo_sim_run_parallel: domain decomposition runs "
                       "run.model = dpd or contact (run other models on one rank, or many seeds "
                       "with agglo ensemble)");
  return m == &agglo_dpd_entry ? agglo_dpd_run_parallel(sim, c) : agglo_contact_run_parallel(sim, c);
}
