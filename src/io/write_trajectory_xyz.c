/* The trajectory as extended XYZ frames (trajectory.xyz; output.format = xyz): one frame every
   output.trajectory_interval, at the start and at the end. */
#include "io/writer.h"
#include "core/error.h"
#include "core/simulation.h"
#include "io/xyz_write.h"

typedef struct {
  FILE *f;
  agglo_frame_schedule frames;
} xyz_writer;

static int xyz_open(void *self, agglo_sim *sim) {
  xyz_writer *w = self;
  const agglo_config *c = &sim->cfg;
  if (!(sim->out.which & AGGLO_OUTPUT_TRAJECTORY) || c->traj_format == AGGLO_FORMAT_H5MD) return 0;
  if (sim->out.continuing &&
      agglo_writer_check_reach(sim, "trajectory.xyz", c->trajectory_interval, 0, sim->out.kept[0]) != 0)
    return -2;
  if (!(w->f = agglo_writer_open_file(sim->out.dir, "trajectory.xyz", sim->restarted ? "a" : "w"))) return -1;
  agglo_frame_schedule_start(&w->frames, sim);
  return 1;
}

static int xyz_due(void *self, agglo_sim *sim, int final) {
  xyz_writer *w = self;
  return agglo_frame_schedule_due(&w->frames, sim, final);
}

static int xyz_would(const void *self, const agglo_sim *sim, int final) {
  const xyz_writer *w = self;
  return agglo_frame_schedule_would(&w->frames, sim, final);
}

static double xyz_next_time(const void *self) { return agglo_trigger_next_time(&((const xyz_writer *)self)->frames.when); }

static int xyz_write(void *self, agglo_sim *sim, int final) {
  (void)final;
  xyz_writer *w = self;
  if (agglo_xyz_write_frame(w->f, &sim->sys) != 0 || fflush(w->f) != 0)
    return agglo_error(AGGLO_ERROR_IO, "%s/trajectory.xyz: write failed (disk full?)", sim->out.dir);
  w->frames.last = sim->sys.step;
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
