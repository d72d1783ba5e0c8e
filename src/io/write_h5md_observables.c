/* The observables of an H5MD trajectory: the stats row of each step that has one, with the
   cluster counts by size class (io/stats_row.h), into the file io/write_trajectory_h5md.c opened. */
#include "io/writer.h"
#include "core/error.h"
#include "core/simulation.h"
#include "io/h5md_write.h"

static int obs_open(void *self, agglo_sim *sim) {
  (void)self;
  return sim->out.h5 && (sim->out.which & AGGLO_OUTPUT_STATS) ? 1 : 0;
}

/* with the stats row: its trigger is stats.csv's (io/write_stats.c) */
static int obs_due(void *self, agglo_sim *sim, int final) {
  (void)self, (void)final;
  return sim->out.row_due_step == sim->sys.step;
}

static int obs_write(void *self, agglo_sim *sim, int final) {
  (void)self, (void)final;
  return agglo_h5md_observables_csv(sim->out.h5, sim->out.row.text, agglo_error_buffer(), AGGLO_ERROR_LEN) != 0 ? -1 : 0;
}

static int obs_close(void *self, agglo_sim *sim) {
  (void)self, (void)sim;
  return 0;
}

const agglo_writer_class agglo_writer_h5md_observables = {
    .name = "trajectory.h5md (observables)", .size = 1, .open = obs_open, .due = obs_due,
    .write = obs_write, .close = obs_close};
