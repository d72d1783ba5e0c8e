/* agglo over MPI: one run split over the ranks of MPI_COMM_WORLD by spatial domain decomposition
   (docs/parallel.md). In libagglo_mpi (linked with Open MPI); the caller initialises MPI.

       rank 0:  agglo_sim_create(cfg, &sim); agglo_sim_attach_outputs(sim, "out", AGGLO_OUTPUT_ALL);
                agglo_sim_run_parallel(sim, cfg);
       others:  agglo_sim_run_parallel(NULL, cfg);

   Rank 0 holds the simulation as made by the serial API (its start, restart point, outputs and
   callback); the call hands its particles out to px x py x pz bricks (parallel.grid), runs to
   run.t_end with ghosts exchanged and particles migrating at every step, and gathers the state
   to rank 0, in global id order, at every step with an output, a stop or a restart point.
   Collective: every rank calls it with the same settings; every rank gets the same status. */
#ifndef AGGLO_PARALLEL_H
#define AGGLO_PARALLEL_H
#include "agglo/agglo.h"

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default)

/* model = dpd or contact (other models: AGGLO_ERROR_INPUT). */
agglo_status agglo_sim_run_parallel(agglo_sim *sim, const agglo_config *settings);
/* 1 if the scenario's model (run.model) has a domain decomposition, else 0. Needs no MPI. */
int agglo_parallel_supported(const agglo_config *settings);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif
