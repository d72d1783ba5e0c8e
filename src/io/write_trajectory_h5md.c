/* The trajectory as H5MD (trajectory.h5md and its XDMF description; output.format = h5md): a
   frame every output.trajectory_interval, at the start and at the end, as trajectory.xyz's. Its
   observables (the stats row) are io/write_h5md_observables.c's; both share the file
   (sim->out.h5), opened and closed here. */
#include "io/writer.h"
#include "config/config.h"
#include "core/error.h"
#include "core/simulation.h"
#include "io/h5md_write.h"
#include "io/stats_row.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct {
  agglo_frame_schedule frames;
} h5md_writer;

/* Does a run of `model` have key = value? (what the H5MD units depend on: dpd.units, dlca.units, and
   gluey.radius_weighting for the unit of gluey's gamma columns) */
static int scenario_says(const agglo_config *c, const char *model, const char *key, const char *value) {
  char v[32];
  return !strcmp(c->model->name, model) && agglo_config_get(c, key, v, sizeof v) == AGGLO_OK && !strcmp(v, value);
}

/* The observables' names, the stats.csv columns and the size classes (NULL: no stats). 0 or -1. */
static int observable_names(const agglo_sim *sim, char **names) {
  size_t len = 0;
  *names = NULL;
  if (!(sim->out.which & AGGLO_OUTPUT_STATS)) return 0;
  FILE *m = open_memstream(names, &len);
  if (!m) return agglo_error(AGGLO_ERROR_MEMORY, "out of memory");
  agglo_stats_header(m, sim->model), fseek(m, -1, SEEK_CUR), agglo_stats_size_class_names(m, sim->sys.n);
  fputc('\n', m);
  int lost = ferror(m) != 0; /* (the stream could not grow: the names would be cut short) */
  if (fclose(m) != 0 || lost) {
    free(*names);
    *names = NULL;
    return agglo_error(AGGLO_ERROR_MEMORY, "out of memory");
  }
  if (*names && len) (*names)[len - 1] = 0; /* the newline */
  return 0;
}

static int h5md_open(void *self, agglo_sim *sim) {
  h5md_writer *w = self;
  agglo_outputs *o = &sim->out;
  const agglo_config *c = &sim->cfg;
  if (!(o->which & AGGLO_OUTPUT_TRAJECTORY) || c->traj_format != AGGLO_FORMAT_H5MD) return 0;
  char path[4200];
  snprintf(path, sizeof path, "%s/trajectory.h5md", o->dir);
  int there = access(path, F_OK) == 0; /* a continued file is opened by the H5MD writer: first */
  char *names;
  if (observable_names(sim, &names) != 0) return -1;
  int32_t *species = sim->model->species ? malloc((sim->sys.n + 1) * sizeof *species) : NULL;
  if (sim->model->species && !species) {
    free(names);
    return agglo_error(AGGLO_ERROR_MEMORY, "out of memory");
  }
  agglo_h5md_options ho = {
      .deflate = (int)c->h5md_deflate,
      .precision64 = c->h5md_precision == AGGLO_PRECISION_DOUBLE,
      .units = scenario_says(c, "dpd", "dpd.units", "si") || scenario_says(c, "dlca", "dlca.units", "si")
                   ? AGGLO_UNITS_SI : AGGLO_UNITS_REDUCED,
      .gamma_weighted = scenario_says(c, "gluey", "gluey.radius_weighting", "on"),
      .species = species && sim->model->species(sim->state, &sim->sys, species) ? species : NULL,
      .observables = names,
      .known_observables = 1};
  if (o->continuing && !there) { /* the writer would start a new file: frames missing */
    free(names);
    free(species);
    return agglo_writer_check_reach(sim, "trajectory.h5md", c->trajectory_interval, 0,
                                    (agglo_kept_record){0, -1, -INFINITY}) != 0 ? -2 : 0;
  }
  o->h5 = agglo_h5md_open(path, &sim->sys, sim->restarted, &ho, agglo_error_buffer(), AGGLO_ERROR_LEN);
  free(names);
  free(species);
  if (!o->h5) return -1;
  agglo_kept_record kept = {1, -1, -INFINITY};
  agglo_h5md_last_frame(o->h5, &kept.step, &kept.t);
  if (o->continuing && agglo_writer_check_reach(sim, "trajectory.h5md", c->trajectory_interval, 0, kept) != 0) {
    agglo_h5md_close(o->h5);
    o->h5 = NULL;
    return -2;
  }
  agglo_frame_schedule_start(&w->frames, sim);
  return 1;
}

static int h5md_due(void *self, agglo_sim *sim, int final) {
  h5md_writer *w = self;
  return agglo_frame_schedule_due(&w->frames, sim, final);
}

static int h5md_would(const void *self, const agglo_sim *sim, int final) {
  const h5md_writer *w = self;
  return agglo_frame_schedule_would(&w->frames, sim, final);
}

static double h5md_next_time(const void *self) { return agglo_trigger_next_time(&((const h5md_writer *)self)->frames.when); }

static int h5md_write(void *self, agglo_sim *sim, int final) {
  (void)final;
  h5md_writer *w = self;
  if (agglo_h5md_frame(sim->out.h5, &sim->sys, agglo_error_buffer(), AGGLO_ERROR_LEN) != 0) return -1;
  w->frames.last = sim->sys.step;
  return 0;
}

static int h5md_close(void *self, agglo_sim *sim) {
  (void)self;
  int rc = sim->out.h5 && agglo_h5md_close(sim->out.h5) != 0
               ? agglo_error(AGGLO_ERROR_IO, "%s/trajectory.h5md: write failed", sim->out.dir) : 0;
  sim->out.h5 = NULL;
  return rc;
}

const agglo_writer_class agglo_writer_trajectory_h5md = {
    .name = "trajectory.h5md", .size = sizeof(h5md_writer), .open = h5md_open, .due = h5md_due,
    .would = h5md_would, .next_time = h5md_next_time, .write = h5md_write, .close = h5md_close};
