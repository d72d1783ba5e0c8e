/* A toy writer, added to the library the way a new writer is (docs/architecture.md, "Adding a
   writer or a trigger"): this file, and its line in io/writer_list.h (tests/CMakeLists.txt adds
   it to a copy of the list for test_toy_writer). It writes toy.csv: at every stats.csv row's
   step (its trigger: output.stats_interval, every step when 0, and the run's end), the step,
   the time and the particles' total mass. */
#include "io/writer.h"
#include "core/error.h"
#include "core/simulation.h"

typedef struct {
  FILE *f;
  agglo_trigger when;
  int64_t last; /* the step of the last record (never twice at one step) */
} toy_writer;

static int toy_open(void *self, agglo_sim *sim) {
  toy_writer *w = self;
  if (!(sim->out.which & AGGLO_OUTPUT_STATS)) return 0; /* written with the stats */
  if (!(w->f = agglo_writer_open_file(sim->out.dir, "toy.csv", sim->restarted ? "a" : "w"))) return -1;
  if (ftell(w->f) == 0) fprintf(w->f, "step,time,mass\n");
  int cont = agglo_writer_continuing(sim);
  w->when = agglo_trigger_periodic(sim->cfg.stats_interval, sim->cfg.dt, sim->model->variable_step);
  w->when.every_step_when_zero = w->when.at_end = 1;
  agglo_trigger_resume(&w->when, sim->sys.step, sim->sys.t, cont);
  w->last = cont ? sim->sys.step : -1;
  return 1;
}

static int toy_due(void *self, agglo_sim *sim, int final) {
  toy_writer *w = self;
  return agglo_trigger_fire(&w->when, sim->sys.step, sim->sys.t, final) && sim->sys.step != w->last;
}

static int toy_write(void *self, agglo_sim *sim, int final) {
  (void)final;
  toy_writer *w = self;
  double mass = 0;
  for (size_t i = 0; i < sim->sys.n; i++) mass += sim->sys.m[i];
  fprintf(w->f, "%lld,%.10g,%.17g\n", (long long)sim->sys.step, sim->sys.t, mass);
  if (fflush(w->f) != 0) return agglo_error(AGGLO_ERROR_IO, "%s/toy.csv: write failed", sim->out.dir);
  w->last = sim->sys.step;
  return 0;
}

static int toy_close(void *self, agglo_sim *sim) {
  toy_writer *w = self;
  return fclose(w->f) != 0 ? agglo_error(AGGLO_ERROR_IO, "%s/toy.csv: write failed", sim->out.dir) : 0;
}

const agglo_writer_class agglo_writer_toy = {
    .name = "toy.csv", .files = "toy.csv", .size = sizeof(toy_writer), .open = toy_open, .due = toy_due,
    .write = toy_write, .close = toy_close};
