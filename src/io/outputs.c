/* The outputs of a run: the directory they go to (claimed from another run's outputs, held
   while they are open, its scenario.ini), and the writers in it (io/writer.h): the built-in ones
   of io/writer_list.h, then the user's (io/user_writers.h), opened, asked and called once a step
   in that order, and closed. The restart point's own times are io/write_restart.c's. */
#include "core/error.h"
#include "core/files.h"
#include "core/simulation.h"
#include "core/timing.h"
#include "io/checkpoint.h"
#include "io/stats_row.h"
#include "io/user_writers.h"
#include "io/writer.h"
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>


FILE *agglo_writer_open_file(const char *dir, const char *name, const char *mode) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, mode);
  if (!f) agglo_error(AGGLO_ERROR_IO, "%s: cannot write: %s", path, strerror(errno));
  return f;
}

/* scenario.ini, whole or not at all (a resumed run reads it back) */
int agglo_writer_scenario(const agglo_sim *sim, const char *dir) {
  char path[4200], tmp[4300];
  snprintf(path, sizeof path, "%s/scenario.ini", dir);
  snprintf(tmp, sizeof tmp, "%s.tmp", path);
  FILE *f = fopen(tmp, "w");
  if (!f) return agglo_error(AGGLO_ERROR_IO, "%s: cannot write: %s", tmp, strerror(errno));
  fprintf(f, "# resolved scenario of this run (agglo %s); `agglo run` reads it back\n", AGGLO_VERSION);
  int rc = agglo_config_write(&sim->cfg, f);
  if (fclose(f) != 0 || rc != 0 || rename(tmp, path) != 0)
    return agglo_error(AGGLO_ERROR_IO, "%s: write failed (disk full?)", path);
  return 0;
}

/* Is name (or a .tmp/.new companion of it) one of the blank-separated names in list? */
static int named_in(const char *name, const char *list) {
  for (const char *p = list ? list : ""; *p;) {
    size_t l = strcspn(p, " ");
    if (l && !strncmp(name, p, l) && (!name[l] || name[l] == '.')) return 1;
    p += l + (p[l] == ' ');
  }
  return 0;
}

/* Files agglo writes in an output directory (with their .tmp/.new companions): the writers'
   (agglo_writer_class.files), the restart point's, and snapshots. */
static int agglo_file(const char *name) {
  for (size_t k = 0; k < agglo_writer_count; k++)
    if (named_in(name, agglo_writer_list[k]->files)) return 1;
  static const char *ours[] = {"trajectory.xyz", "trajectory.h5md", "trajectory.xdmf", "stats.csv", "sizes.csv",
                               "scenario.ini", "state.xyz", "contacts.txt", "state.h5",
                               "mpi_ranks.txt" /* the command line's, under mpirun */};
  for (size_t k = 0; k < sizeof ours / sizeof ours[0]; k++) {
    size_t l = strlen(ours[k]);
    if (!strncmp(name, ours[k], l) && (!name[l] || name[l] == '.')) return 1;
  }
  size_t l = strlen(name);
  return !strncmp(name, "snapshot_", 9) && l > 13 && !strcmp(name + l - 4, ".png");
}

/* The step of the restart point in dir, state.xyz or state.h5 (-1 if none). */
static int64_t saved_step(const agglo_sim *sim, const char *dir) {
  return agglo_checkpoint_step(dir, sim->cfg.checkpoint_format);
}

int agglo_outputs_claim(const char *dir, int overwrite, const char *flag, const char *keep) {
  DIR *d = opendir(dir);
  if (!d) return 0;
  int rc = 0;
  for (struct dirent *e; rc == 0 && (e = readdir(d));) {
    if (!agglo_file(e->d_name) || (overwrite && keep && !strcmp(e->d_name, keep))) continue;
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    if (!overwrite)
      rc = agglo_error(AGGLO_ERROR_IO, "%s holds the outputs of another run (%s): give another output "
                       "directory, or --overwrite (%s) to replace them", dir, e->d_name, flag);
    else if (remove(path) != 0)
      rc = agglo_error(AGGLO_ERROR_IO, "%s: cannot delete: %s", path, strerror(errno));
  }
  closedir(d);
  return rc;
}

/* The outputs a restart continues in place must reach its restart point: a trajectory.xyz
   removed, or a stats.csv cut short, would leave the finished run with records missing (a resume
   wrote 22 of 31 frames). Their last record must be the last one the schedule put at or before the
   restart point (fixed steps: the last multiple of the interval's steps; a model that chooses its
   steps: the first step at or after the last multiple of the interval). stats.csv has a row every
   step when its interval is 0, the trajectory none but its first and last frames. */
int agglo_writer_check_reach(const agglo_sim *sim, const char *name, double interval, int rows,
                             agglo_kept_record kept) {
  const agglo_config *c = &sim->cfg;
  const agglo_system *s = &sim->sys;
  const char *dir = sim->out.dir;
  int64_t every = agglo_schedule_every(interval, c->dt);
  int64_t want_step = rows ? s->step / (every ? every : 1) * (every ? every : 1) : (every ? s->step / every * every : 0);
  double want_t = interval > 0 ? floor(s->t / interval) * interval : 0;
  int short_of = !kept.present ? 1
                 : sim->model->variable_step ? !(kept.t >= want_t - 1e-9 * fmax(fabs(want_t), interval))
                                             : kept.step < want_step;
  if (!short_of) return 0;
  if (!kept.present)
    return agglo_error(AGGLO_ERROR_INPUT, "%s/%s: missing, but the run this restart point (step %lld) "
                       "continues wrote it: the resumed run would lack its records up to there (put "
                       "the file back, or start the run again with --overwrite)", dir, name,
                       (long long)s->step), -2;
  char want[96], got[96];
  if (sim->model->variable_step)
    snprintf(want, sizeof want, "one at t >= %.10g", want_t), snprintf(got, sizeof got, "t = %.10g", kept.t);
  else
    snprintf(want, sizeof want, "one at step %lld", (long long)want_step),
        snprintf(got, sizeof got, "step %lld", (long long)kept.step);
  return agglo_error(AGGLO_ERROR_INPUT, "%s/%s: its last record is %s, but the restart point (step %lld, "
                     "t = %.10g) follows %s: records are missing (the file was cut or replaced), and "
                     "the resumed run would lack them (put the file back, or start the run again with "
                     "--overwrite)", dir, name, kept.step < 0 ? "none" : got,
                     (long long)s->step, s->t, want), -2;
}

int agglo_writer_continuing(const agglo_sim *sim) { return sim->restarted || sim->sys.step > 0; }

void agglo_frame_schedule_start(agglo_frame_schedule *f, const agglo_sim *sim) {
  int cont = agglo_writer_continuing(sim);
  f->when = agglo_trigger_periodic(sim->cfg.trajectory_interval, sim->cfg.dt, sim->model->variable_step);
  f->when.at_start = f->when.at_end = 1;
  agglo_trigger_resume(&f->when, sim->sys.step, sim->sys.t, cont);
  f->last = cont ? sim->sys.step : -1;
}

int agglo_frame_schedule_due(agglo_frame_schedule *f, const agglo_sim *sim, int final) {
  return agglo_trigger_fire(&f->when, sim->sys.step, sim->sys.t, final) && sim->sys.step != f->last;
}

int agglo_frame_schedule_would(const agglo_frame_schedule *f, const agglo_sim *sim, int final) {
  return agglo_trigger_would_fire(&f->when, sim->sys.step, sim->sys.t, final) && sim->sys.step != f->last;
}

/* Close the writers opened so far (k of them), keeping the first failure's message: 0 or -1. */
static int close_writers(agglo_sim *sim, int rc) {
  agglo_outputs *o = &sim->out;
  for (size_t k = 0; k < o->n_writers; k++) {
    agglo_writer *w = &o->writers[k];
    agglo_error_saved keep;
    if (rc != 0) agglo_error_save(&keep);
    int c = w->cls->close(w->self, sim);
    if (rc != 0) agglo_error_restore(&keep);
    else if (c != 0) rc = -1;
    if (w->owned) free(w->self);
  }
  free(o->writers);
  o->writers = NULL, o->n_writers = 0;
  return rc;
}

/* Open a writer of class cls (self: its state, or NULL to allocate it) and add it to the run's:
   0 (added, or not asked for), -1 or -2 (open's failure). */
int agglo_outputs_add(agglo_sim *sim, const agglo_writer_class *cls, void *self) {
  agglo_outputs *o = &sim->out;
  agglo_writer *grown = realloc(o->writers, (o->n_writers + 1) * sizeof *grown);
  void *mine = self ? self : calloc(1, cls->size);
  if (!grown || !mine) {
    if (grown) o->writers = grown;
    if (!self) free(mine);
    return agglo_error(AGGLO_ERROR_MEMORY, "out of memory");
  }
  o->writers = grown;
  int rc = cls->open(mine, sim);
  if (rc == 1) {
    o->writers[o->n_writers++] = (agglo_writer){cls, mine, 0, !self};
    return 0;
  }
  if (!self) free(mine);
  return rc;
}

int agglo_outputs_open(agglo_sim *sim, const char *dir, unsigned which, int take_lock) {
  agglo_outputs *o = &sim->out;
  if (agglo_make_dir(dir) != 0 || (take_lock && agglo_lock_take(&o->lock, dir) != 0)) return -1;
  /* another run's outputs are refused or deleted (scenario.ini is replaced whole just after: a
     kill in between must not lose the scenario a --resume reads); a restarted run continues in
     the directory of its restart point */
  o->continuing = sim->restarted && saved_step(sim, dir) == sim->sys.step;
  o->overwrite = (which & AGGLO_OUTPUT_OVERWRITE) != 0;
  if (!o->continuing && agglo_outputs_claim(dir, o->overwrite, "AGGLO_OUTPUT_OVERWRITE", "scenario.ini") != 0)
    return -1;
  which &= AGGLO_OUTPUT_ALL;
  if (agglo_writer_scenario(sim, dir) != 0) return -1;
  o->dir = strdup(dir);
  if (!o->dir) return agglo_error(AGGLO_ERROR_MEMORY, "out of memory");
  o->which = which;
  o->row = (agglo_stats_row){.step = -1};
  o->row_due_step = -1;
  /* a restarted run appends to the files it continues, cut after its step (a run killed after
     its last restart point wrote more) */
  for (int q = 0; q < 2; q++) o->kept[q] = (agglo_kept_record){0, -1, -INFINITY};
  if (sim->restarted && agglo_checkpoint_truncate(dir, sim->sys.step, o->kept, agglo_error_buffer(), AGGLO_ERROR_LEN) != 0)
    return -1;
  /* continuing (a restart, or writers attached after some steps): the outputs of the current
     step belong to the earlier part of the run */
  int cont = agglo_writer_continuing(sim);
  o->row_step = cont ? sim->sys.step : -1;
  for (size_t k = 0; k < agglo_writer_count; k++) {
    int rc = agglo_outputs_add(sim, agglo_writer_list[k], NULL);
    if (rc != 0) return rc;
  }
  for (size_t k = 0; k < sim->n_users; k++) {
    int rc = agglo_outputs_add(sim, &agglo_writer_user, sim->users[k]);
    if (rc != 0) return rc;
  }
  o->state_step = o->stop_step = -1;
  o->initial_pending = !cont;
  o->checkpoint_wall = agglo_wall_seconds();
  o->checkpoint_next = sim->cfg.checkpoint_interval > 0 ? agglo_schedule_next(sim->sys.t, sim->cfg.checkpoint_interval) : 0;
  return 0;
}

double agglo_outputs_next_time(const agglo_sim *sim) {
  const agglo_outputs *o = &sim->out;
  double t = INFINITY;
  for (size_t k = 0; k < o->n_writers; k++)
    if (o->writers[k].cls->next_time) t = fmin(t, o->writers[k].cls->next_time(o->writers[k].self));
  return t;
}

int agglo_outputs_due(const agglo_sim *sim, int final) {
  const agglo_outputs *o = &sim->out;
  const agglo_config *c = &sim->cfg;
  if (!o->dir) return 0;
  /* the steps of the trajectory's and the stats' schedules, whether those are written or not:
     the ranks gather the state there, and a restart point may be due there */
  agglo_trigger traj = agglo_trigger_periodic(c->trajectory_interval, c->dt, 0),
                stats = agglo_trigger_periodic(c->stats_interval, c->dt, 0);
  traj.at_start = traj.at_end = stats.at_end = stats.every_step_when_zero = 1;
  if (agglo_trigger_would_fire(&traj, sim->sys.step, sim->sys.t, final) ||
      agglo_trigger_would_fire(&stats, sim->sys.step, sim->sys.t, final))
    return 1;
  for (size_t k = 0; k < o->n_writers; k++)
    if (o->writers[k].cls->would && o->writers[k].cls->would(o->writers[k].self, sim, final)) return 1;
  return 0;
}

static int write_due(agglo_sim *sim, int final);

int agglo_outputs_write(agglo_sim *sim, int final) {
  agglo_outputs *o = &sim->out;
  if (o->dir && o->broken)
    return agglo_error(AGGLO_ERROR_IO, "%s: the outputs of step %lld failed to write; nothing more "
                       "is written there", o->dir, (long long)o->broken_step);
  int rc = write_due(sim, final); /* 0, -1, or AGGLO_ERROR_RUN (a non-finite stats value) */
  if (rc == 0) return 0;
  o->broken = 1, o->broken_step = sim->sys.step;
  return rc;
}

/* Each writer's trigger asked once, in order; then each writer due called once. */
static int write_due(agglo_sim *sim, int final) {
  agglo_outputs *o = &sim->out;
  if (!o->dir) return 0;
  o->initial_pending = 0;
  int any = 0;
  for (size_t k = 0; k < o->n_writers; k++) {
    agglo_writer *w = &o->writers[k];
    any |= w->due = w->cls->due(w->self, sim, final);
  }
  if (!any) return 0;
  if (agglo_sim_label(sim) != 0) return agglo_error(AGGLO_ERROR_MEMORY, "out of memory labelling clusters");
  for (size_t k = 0; k < o->n_writers; k++) {
    agglo_writer *w = &o->writers[k];
    if (!w->due) continue;
    int rc = w->cls->write(w->self, sim, final);
    if (rc != 0) return rc == AGGLO_ERROR_RUN ? AGGLO_ERROR_RUN : -1;
  }
  return 0;
}

int agglo_outputs_flush(agglo_sim *sim) {
  agglo_outputs *o = &sim->out;
  for (size_t k = 0; k < o->n_writers; k++)
    if (o->writers[k].cls->flush && o->writers[k].cls->flush(o->writers[k].self, sim) != 0) return -1;
  return 0;
}

int agglo_outputs_close(agglo_sim *sim) {
  agglo_outputs *o = &sim->out;
  int rc = 0;
  /* the run ends here: the outputs of the current step (those of the start if none was taken);
     unless it stopped here, to go on from its restart point as if never stopped, or a write
     failed (the files are only closed, the last restart point stands) */
  int more = o->dir && !o->broken;
  if (more && o->stop_step != sim->sys.step) rc = agglo_outputs_write(sim, !o->initial_pending);
  if (more && (o->which & AGGLO_OUTPUT_STATE) && o->state_step != sim->sys.step && rc == 0)
    rc = agglo_outputs_save_state(sim, o->dir);
  rc = close_writers(sim, rc);
  agglo_stats_row_free(&o->row);
  agglo_lock_release(&o->lock); /* last: every file is closed */
  free(o->dir);
  memset(o, 0, sizeof *o);
  return rc;
}
