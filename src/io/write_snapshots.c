/* Snapshots: a PNG picture (snapshot_NNNNNNNNN.png, the step zero-padded so that the names sort
   in time order) at each time of output.snapshots; times within one step make one picture. */
#include "io/writer.h"
#include "core/error.h"
#include "core/simulation.h"
#include "picture/picture.h"

typedef struct {
  agglo_trigger when;
} snapshot_writer;

static int snap_open(void *self, agglo_sim *sim) {
  snapshot_writer *w = self;
  const agglo_config *c = &sim->cfg;
  if (!(sim->out.which & AGGLO_OUTPUT_SNAPSHOTS) || c->snapshots.n == 0) return 0;
  w->when = agglo_trigger_times(c->snapshots.v, c->snapshots.n, c->dt, sim->model->variable_step);
  agglo_trigger_resume(&w->when, sim->sys.step, sim->sys.t, agglo_writer_continuing(sim));
  return 1;
}

static int snap_due(void *self, agglo_sim *sim, int final) {
  snapshot_writer *w = self;
  return agglo_trigger_fire(&w->when, sim->sys.step, sim->sys.t, final);
}

static int snap_would(const void *self, const agglo_sim *sim, int final) {
  const snapshot_writer *w = self;
  return agglo_trigger_would_fire(&w->when, sim->sys.step, sim->sys.t, final);
}

static double snap_next_time(const void *self) { return agglo_trigger_next_time(&((const snapshot_writer *)self)->when); }

static int snap_write(void *self, agglo_sim *sim, int final) {
  (void)self, (void)final;
  char path[4096], err[1024];
  snprintf(path, sizeof path, "%s/snapshot_%09lld.png", sim->out.dir, (long long)sim->sys.step);
  agglo_link_lines links = {0};
  int have = sim->model->links && sim->model->links(sim->state, &links) == 0;
  agglo_obstacle_shapes obs = {0};
  int have_obs = sim->model->obstacles && sim->model->obstacles(sim->state, &sim->sys, &obs) == 0;
  const agglo_system *s = &sim->sys;
  agglo_picture_frame f = {.n = s->n, .dim = s->dim, .positions = s->x, .radii = s->r,
                           .clusters = s->cluster, .velocities = s->v, .ids = s->id, .species = s->species,
                           .box = s->box, .time = s->t};
  if (agglo_picture_draw(&sim->cfg, &f, have ? &links : NULL, have_obs ? &obs : NULL, path, err,
                         sizeof err) != 0)
    return agglo_error(AGGLO_ERROR_IO, "%s", err);
  return 0;
}

static int snap_close(void *self, agglo_sim *sim) {
  (void)self, (void)sim;
  return 0;
}

const agglo_writer_class agglo_writer_snapshots = {
    .name = "snapshots", .size = sizeof(snapshot_writer), .open = snap_open, .due = snap_due,
    .would = snap_would, .next_time = snap_next_time, .write = snap_write, .close = snap_close};
