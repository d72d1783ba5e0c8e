/* stats.csv: a row every output.stats_interval (every step when 0) and at the end, with the
   aggregate indicators at the first row at or after each multiple of output.analysis_interval.
   The row is composed once (io/stats_row.c) and shared by sizes.csv and the H5MD observables,
   which follow this writer's trigger. */
#include "io/writer.h"
#include "core/error.h"
#include "core/simulation.h"
#include "io/stats_row.h"

typedef struct {
  FILE *f;
  agglo_trigger when;
  int64_t last;            /* the step of the last row: a stop or an error must not repeat it */
  int64_t analysis_every;  /* fixed steps: the steps between indicators (0: none) */
  double analysis_next;    /* variable steps: the time of the next indicators */
  int analysis_due;
} stats_writer;

static int stats_open(void *self, agglo_sim *sim) {
  stats_writer *w = self;
  const agglo_config *c = &sim->cfg;
  const agglo_system *s = &sim->sys;
  if (!(sim->out.which & AGGLO_OUTPUT_STATS)) return 0;
  if (sim->out.continuing && agglo_writer_check_reach(sim, "stats.csv", c->stats_interval, 1, sim->out.kept[1]) != 0)
    return -2;
  if (!(w->f = agglo_writer_open_file(sim->out.dir, "stats.csv", sim->restarted ? "a" : "w"))) return -1;
  if (ftell(w->f) == 0) agglo_stats_header(w->f, sim->model);
  int cont = agglo_writer_continuing(sim);
  w->when = agglo_trigger_periodic(c->stats_interval, c->dt, sim->model->variable_step);
  w->when.every_step_when_zero = w->when.at_end = 1;
  agglo_trigger_resume(&w->when, s->step, s->t, cont);
  w->analysis_every = agglo_schedule_every(c->analysis_interval, c->dt);
  w->analysis_next = s->t;
  if (cont && sim->model->variable_step) {
    w->analysis_next = c->analysis_interval > 0 ? agglo_schedule_next(s->t, c->analysis_interval) : 0;
    /* an analysis time after the last scheduled row (at or before now) is still to be written */
    if (c->analysis_interval > 0 && c->stats_interval > 0)
      w->analysis_next = agglo_schedule_next(w->when.next - c->stats_interval, c->analysis_interval);
  }
  w->last = cont ? s->step : -1;
  sim->out.has_stats = 1;
  return 1;
}

/* Fixed steps: the row at step k carries the indicators iff an analysis step falls after the
   scheduled row before it (the largest multiple of the rows' steps below k) and at or before k.
   An analysis step between two rows goes to the next row, not lost; the rule reads only k, so a
   resumed run writes the rows an uninterrupted one does (a stop writes no row). */
static int analysis_due_at(const stats_writer *w, int64_t k) {
  int64_t a = w->analysis_every, every = w->when.every ? w->when.every : 1;
  if (!a) return 0;
  if (k <= 0) return 1;
  int64_t before = (k - 1) / every * every;
  return k / a > before / a;
}

static int stats_due(void *self, agglo_sim *sim, int final) {
  stats_writer *w = self;
  const agglo_system *s = &sim->sys;
  double ai = sim->cfg.analysis_interval;
  int due = agglo_trigger_fire(&w->when, s->step, s->t, final) && s->step != w->last;
  /* an analysis time is consumed only by a row: one between two rows goes to the next */
  w->analysis_due = due && (sim->model->variable_step
                                ? agglo_schedule_due(s->t, ai, &w->analysis_next) || (final && ai > 0)
                                : analysis_due_at(w, s->step));
  sim->out.row_due_step = due ? s->step : -1;
  return due;
}

static int stats_would(const void *self, const agglo_sim *sim, int final) {
  const stats_writer *w = self;
  return agglo_trigger_would_fire(&w->when, sim->sys.step, sim->sys.t, final) && sim->sys.step != w->last;
}

static double stats_next_time(const void *self) { return agglo_trigger_next_time(&((const stats_writer *)self)->when); }

static int stats_write(void *self, agglo_sim *sim, int final) {
  (void)final;
  stats_writer *w = self;
  int rc = agglo_stats_row_compose(sim, w->analysis_due);
  if (rc != 0) {
    sim->out.row_due_step = -1; /* nothing of the row is written */
    return rc == AGGLO_ERROR_RUN ? AGGLO_ERROR_RUN : -1;
  }
  const agglo_stats_row *r = &sim->out.row;
  if (fwrite(r->text, 1, r->cut, w->f) != r->cut || fputc('\n', w->f) == EOF || fflush(w->f) != 0)
    return agglo_error(AGGLO_ERROR_IO, "%s/stats.csv: write failed (disk full?)", sim->out.dir);
  w->last = sim->sys.step;
  sim->out.row_step = sim->sys.step;
  return 0;
}

static int stats_close(void *self, agglo_sim *sim) {
  stats_writer *w = self;
  if (fclose(w->f) != 0) return agglo_error(AGGLO_ERROR_IO, "%s/stats.csv: write failed", sim->out.dir);
  return 0;
}

const agglo_writer_class agglo_writer_stats = {
    .name = "stats.csv", .size = sizeof(stats_writer), .open = stats_open, .due = stats_due,
    .would = stats_would, .next_time = stats_next_time, .write = stats_write, .close = stats_close};
