/* The trajectory as extended XYZ frames (trajectory.xyz; output.format = xyz): one frame every
   output.trajectory_interval, at the start and at the end. */
#include "io/writer.h"
#include "core/error.h"
#include "core/simulation.h"
#include "io/xyz_write.h"

typedef struct {
  FILE *f;
  agglo_trigger when;
  int64_t last; /* the step of the last frame: a stop or an error must not repeat it */
} xyz_writer;

static int xyz_open(void *self, agglo_sim *sim) {
  xyz_writer *w = self;
  const agglo_config *c = &sim->cfg;
  if (!(sim->out.which & AGGLO_OUTPUT_TRAJECTORY) || c->traj_format == AGGLO_FORMAT_H5MD) return 0;
  if (sim->out.continuing &&
      agglo_writer_check_reach(sim, "trajectory.xyz", c->trajectory_interval, 0, sim->out.kept[0]) != 0)
    return -2;
  if (!(w->f = agglo_writer_open_file(sim->out.dir, "trajectory.xyz", sim->restarted ? "a" : "w"))) return -1;
  int cont = agglo_writer_continuing(sim);
  w->when = agglo_trigger_periodic(c->trajectory_interval, c->dt, sim->model->variable_step);
  w->when.at_start = w->when.at_end = 1;
  agglo_trigger_resume(&w->when, sim->sys.step, sim->sys.t, cont);
  w->last = cont ? sim->sys.step : -1;
  return 1;
}

static int xyz_due(void *self, agglo_sim *sim, int final) {
  xyz_writer *w = self;
  return agglo_trigger_fire(&w->when, sim->sys.step, sim->sys.t, final) && sim->sys.step != w->last;
}

static int xyz_would(const void *self, const agglo_sim *sim, int final) {
  const xyz_writer *w = self;
  return agglo_trigger_would_fire(&w->when, sim->sys.step, sim->sys.t, final) && sim->sys.step != w->last;
}

static double xyz_next_time(const void *self) { return agglo_trigger_next_time(&((const xyz_writer *)self)->when); }

static int xyz_write(void *self, agglo_sim *sim, int final) {
  (void)final;
  xyz_writer *w = self;
  if (agglo_xyz_write_frame(w->f, &sim->sys) != 0 || fflush(w->f) != 0)
    return agglo_error(AGGLO_ERROR_IO, "%s/trajectory.xyz: write failed (disk full?)", sim->out.dir);
  w->last = sim->sys.step;
  return 0;
}

static int xyz_close(void *self, agglo_sim *sim) {
  xyz_writer *w = self;
  if (fclose(w->f) != 0) return agglo_error(AGGLO_ERROR_IO, "%s/trajectory.xyz: write failed", sim->out.dir);
  return 0;
}

const agglo_writer_class agglo_writer_trajectory_xyz = {
    .name = "trajectory.xyz", .size = sizeof(xyz_writer), .open = xyz_open, .due = xyz_due,
    .would = xyz_would, .next_time = xyz_next_time, .write = xyz_write, .close = xyz_close};
