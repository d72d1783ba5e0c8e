/* The restart point writer: state.xyz + contacts.txt, or state.h5 (io/checkpoint.c,
   io/checkpoint_h5.c), with the run's pending solver iterations and the user writers' positions.
   Its times are the run's own: at its end, every output.checkpoint_minutes of wall clock or
   output.checkpoint_interval of simulated time (at a step with a stats row), on a stop or a
   failure and when the writers close; the step loop (core/simulation.c) asks for each. */
#include "core/error.h"
#include "core/files.h"
#include "core/simulation.h"
#include "core/timing.h"
#include "io/checkpoint.h"
#include "io/checkpoint_h5.h"
#include "io/user_writers.h"
#include "io/writer.h"
#include <stdlib.h>

int agglo_outputs_save_state(agglo_sim *sim, const char *dir) {
  char err[1024];
  int own = sim->out.dir && agglo_same_dir(dir, sim->out.dir);
  agglo_lock lock = {0}; /* another directory is held while its restart point is written */
  /* a restart point at step S promises the outputs up to S: not after a failed write */
  if (own && sim->out.broken)
    return agglo_error(AGGLO_ERROR_IO, "%s: no restart point at step %lld: the outputs of step %lld "
                       "failed to write (a resume continues from the restart point before)", dir,
                       (long long)sim->sys.step, (long long)sim->out.broken_step);
  if (agglo_make_dir(dir) != 0 || (!own && agglo_lock_take(&lock, dir) != 0)) return -1;
  int rc = 0;
  if (!own && agglo_writer_scenario(sim, dir) != 0) rc = -1;
  int h5 = sim->cfg.checkpoint_format == AGGLO_CHECKPOINT_HDF5;
  /* the user writers' positions, in the run's own directory (their files are there) */
  char *lines = NULL;
  if (own && agglo_user_writers_flush(sim) != 0) rc = -1;
  if (rc == 0 && own && !(lines = agglo_user_writers_lines(sim))) rc = -1;
  agglo_pending_iterations pending = {sim->iter_sum, sim->iter_steps, lines};
  if (rc == 0 && (h5 ? agglo_checkpoint_h5_write : agglo_checkpoint_write)(dir, &sim->sys, sim->model,
                                                                          sim->state, pending, err, sizeof err) != 0)
    rc = agglo_error(AGGLO_ERROR_IO, "%s", err);
  free(lines);
  agglo_lock_release(&lock);
  if (rc == 0 && own) sim->out.state_step = sim->sys.step;
  return rc;
}

int agglo_outputs_stop(agglo_sim *sim) {
  agglo_outputs *o = &sim->out;
  if (!o->dir) return 0;
  o->stop_step = sim->sys.step;
  if (!(o->which & AGGLO_OUTPUT_STATE) || o->state_step == sim->sys.step) return 0;
  return agglo_outputs_save_state(sim, o->dir);
}

/* A restart point when one is due (output.checkpoint_minutes of wall clock or
   output.checkpoint_interval of simulated time), at a step that wrote the stats row: the
   solver's mean iterations restart there, so a run resumed from it writes the same rows. */
int agglo_outputs_checkpoint_due(const agglo_sim *sim, double wall) {
  const agglo_outputs *o = &sim->out;
  const agglo_config *c = &sim->cfg;
  return (c->checkpoint_minutes > 0 && wall - o->checkpoint_wall >= 60 * c->checkpoint_minutes) ||
         (c->checkpoint_interval > 0 && sim->sys.t >= o->checkpoint_next * (1 - 1e-12));
}

int agglo_outputs_checkpoint(agglo_sim *sim) {
  agglo_outputs *o = &sim->out;
  const agglo_config *c = &sim->cfg;
  if (!o->dir || !(o->which & AGGLO_OUTPUT_STATE) || o->state_step == sim->sys.step) return 0;
  if (o->has_stats && o->row_step != sim->sys.step) return 0;
  double wall = agglo_wall_seconds();
  if (!agglo_outputs_checkpoint_due(sim, wall)) return 0;
  o->checkpoint_wall = wall;
  if (c->checkpoint_interval > 0) o->checkpoint_next = agglo_schedule_next(sim->sys.t, c->checkpoint_interval);
  return agglo_outputs_save_state(sim, o->dir);
}

