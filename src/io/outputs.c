/* The writers of a run: trajectory (extended XYZ), stats.csv, PNG snapshots, the restart point
   (state.xyz, contacts.txt, scenario.ini), on the scenario's output schedule. */
#include "core/error.h"
#include "core/files.h"
#include "io/checkpoint.h"
#include "io/checkpoint_h5.h"
#include "analysis/frame_summary.h"
#include "io/h5md_write.h"
#include "picture/picture.h"
#include "io/xyz_write.h"
#include "core/simulation.h"
#include "core/timing.h"
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>


static FILE *open_out(const char *dir, const char *name, const char *mode) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, mode);
  if (!f) agglo_error(AGGLO_ERROR_IO, "%s: cannot write: %s", path, strerror(errno));
  return f;
}

/* scenario.ini, whole or not at all (a resumed run reads it back) */
static int write_scenario(const agglo_sim *sim, const char *dir) {
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

/* ---- the schedule: O(1) per step whatever the interval ----------------------------------- */

int64_t agglo_schedule_step(double t, double dt) {
  double k = round(t / dt);
  if (!(k > 0)) return 0;
  return k > (double)AGGLO_MAX_STEPS ? AGGLO_MAX_STEPS + 1 : (int64_t)k;
}

int64_t agglo_schedule_every(double interval, double dt) {
  if (interval <= 0) return 0;
  int64_t k = agglo_schedule_step(interval, dt);
  return k < 1 ? 1 : k;
}

/* Times are compared within 1e-12 relative (a sum of steps drifts from a multiple of the
   interval). The multiple's index comes from t by one division: a tiny interval costs what a
   large one does. */
double agglo_schedule_next(double t, double interval) {
  double after = t * (1 + 1e-12), k = floor(after / interval) + 1;
  if (!(k < 0x1p53)) return after; /* the interval is below t's precision: every step is due */
  double next = k * interval;
  return next > after ? next : next + interval; /* the division rounded down onto `after` */
}

int agglo_schedule_due(double t, double interval, double *next) {
  if (interval <= 0 || t < *next * (1 - 1e-12)) return 0;
  *next = agglo_schedule_next(t, interval);
  return 1;
}

/* The columns of stats.csv (also the observables of an H5MD trajectory). */
static void stats_header(FILE *f, const agglo_model *m) {
  fprintf(f, "time,step,n_clusters,mean_cluster_size,max_cluster_size,kinetic_energy,"
             "solver_iterations,mean_solver_iterations,max_violation,min_gap,n_contacts,converged,"
             "weight_avg_cluster_size,fractal_dimension_box,fractal_dimension_mass,"
             "contacts_per_sphere,aspect_ratio,rg_largest,outer_iterations");
  fprintf(f, "%s\n", m->stats_columns ? m->stats_columns : "");
}

/* The size classes of the H5MD observables: clusters of 2^b to 2^(b+1) - 1 particles,
   b = 0 .. size_classes(n) - 1 (docs/formats.md). */
static int size_classes(size_t n) {
  int b = 1;
  while (b < 63 && ((size_t)1 << b) <= n) b++;
  return b;
}

static void size_class_names(FILE *f, size_t n) {
  for (int b = 0; b < size_classes(n); b++)
    fprintf(f, ",clusters_size_%llu_%llu", 1ull << b, (2ull << b) - 1);
}

/* Does a run of `model` have key = value? (what the H5MD units depend on: dpd.units, dlca.units, and
   gluey.radius_weighting for the unit of gluey's gamma columns) */
static int scenario_says(const agglo_config *c, const char *model, const char *key, const char *value) {
  char v[32];
  return !strcmp(c->model->name, model) && agglo_config_get(c, key, v, sizeof v) == AGGLO_OK && !strcmp(v, value);
}

/* Files agglo writes in an output directory (with their .tmp/.new companions), and snapshots. */
static int agglo_file(const char *name) {
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
   steps: the first step at or after the last multiple of the interval). */
static int check_reach(const agglo_sim *sim, const char *dir, unsigned which, const agglo_kept_record kept[2]) {
  const agglo_config *c = &sim->cfg;
  const agglo_system *s = &sim->sys;
  const char *name[2] = {"trajectory.xyz", "stats.csv"};
  int on[2] = {(which & AGGLO_OUTPUT_TRAJECTORY) != 0, (which & AGGLO_OUTPUT_STATS) != 0};
  if (c->traj_format == AGGLO_FORMAT_H5MD) name[0] = "trajectory.h5md";
  double interval[2] = {c->trajectory_interval, c->stats_interval};
  for (int q = 0; q < 2; q++) {
    if (!on[q]) continue;
    int64_t every = agglo_schedule_every(interval[q], c->dt);
    int64_t want_step = q == 0 ? (every ? s->step / every * every : 0) : s->step / (every ? every : 1) * (every ? every : 1);
    double want_t = interval[q] > 0 ? floor(s->t / interval[q]) * interval[q] : 0;
    int short_of = !kept[q].present ? 1
                   : sim->model->variable_step ? !(kept[q].t >= want_t - 1e-9 * fmax(fabs(want_t), interval[q]))
                                               : kept[q].step < want_step;
    if (!short_of) continue;
    if (!kept[q].present)
      return agglo_error(AGGLO_ERROR_INPUT, "%s/%s: missing, but the run this restart point (step %lld) "
                         "continues wrote it: the resumed run would lack its records up to there (put "
                         "the file back, or start the run again with --overwrite)", dir, name[q],
                         (long long)s->step);
    char want[96], got[96];
    if (sim->model->variable_step)
      snprintf(want, sizeof want, "one at t >= %.10g", want_t), snprintf(got, sizeof got, "t = %.10g", kept[q].t);
    else
      snprintf(want, sizeof want, "one at step %lld", (long long)want_step),
          snprintf(got, sizeof got, "step %lld", (long long)kept[q].step);
    return agglo_error(AGGLO_ERROR_INPUT, "%s/%s: its last record is %s, but the restart point (step %lld, "
                       "t = %.10g) follows %s: records are missing (the file was cut or replaced), and "
                       "the resumed run would lack them (put the file back, or start the run again with "
                       "--overwrite)", dir, name[q], kept[q].step < 0 ? "none" : got,
                       (long long)s->step, s->t, want);
  }
  return 0;
}

int agglo_outputs_open(agglo_sim *sim, const char *dir, unsigned which, int take_lock) {
  agglo_outputs *o = &sim->out;
  const agglo_config *c = &sim->cfg;
  if (agglo_make_dir(dir) != 0 || (take_lock && agglo_lock_take(&o->lock, dir) != 0)) return -1;
  /* another run's outputs are refused or deleted (scenario.ini is replaced whole just after: a
     kill in between must not lose the scenario a --resume reads); a restarted run continues in
     the directory of its restart point */
  int continuing = sim->restarted && saved_step(sim, dir) == sim->sys.step;
  if (!continuing && agglo_outputs_claim(dir, (which & AGGLO_OUTPUT_OVERWRITE) != 0,
                                         "AGGLO_OUTPUT_OVERWRITE", "scenario.ini") != 0)
    return -1;
  which &= AGGLO_OUTPUT_ALL;
  if (write_scenario(sim, dir) != 0) return -1;
  o->dir = strdup(dir);
  if (!o->dir) return agglo_error(AGGLO_ERROR_MEMORY, "out of memory");
  o->which = which;
  /* a restarted run appends to the trajectory and stats it continues, cut after its step (a run
     killed after its last restart point wrote more) */
  const char *mode = sim->restarted ? "a" : "w";
  agglo_kept_record kept[2];
  if (sim->restarted && agglo_checkpoint_truncate(dir, sim->sys.step, kept, agglo_error_buffer(), AGGLO_ERROR_LEN) != 0)
    return -1;
  char h5path[4200]; /* an H5MD trajectory is continued by its writer: whether it is there, first */
  snprintf(h5path, sizeof h5path, "%s/trajectory.h5md", dir);
  int h5_there = access(h5path, F_OK) == 0;
  unsigned text_traj = c->traj_format == AGGLO_FORMAT_H5MD ? ~(unsigned)AGGLO_OUTPUT_TRAJECTORY : ~0u;
  if (continuing && check_reach(sim, dir, which & text_traj, kept) != 0) return -2;
  if ((which & AGGLO_OUTPUT_TRAJECTORY) && c->traj_format == AGGLO_FORMAT_H5MD) {
    char path[4096], *names = NULL;
    size_t len = 0;
    FILE *m = (which & AGGLO_OUTPUT_STATS) ? open_memstream(&names, &len) : NULL;
    if ((which & AGGLO_OUTPUT_STATS) && !m) return agglo_error(AGGLO_ERROR_MEMORY, "out of memory");
    if (m) {
      stats_header(m, sim->model), fseek(m, -1, SEEK_CUR), size_class_names(m, sim->sys.n);
      fputc('\n', m);
      int lost = ferror(m) != 0; /* (the stream could not grow: the names would be cut short) */
      if (fclose(m) != 0 || lost) {
        free(names);
        return agglo_error(AGGLO_ERROR_MEMORY, "out of memory");
      }
    }
    if (names && len) names[len - 1] = 0; /* the newline */
    snprintf(path, sizeof path, "%s/trajectory.h5md", dir);
    int32_t *species = sim->model->species ? malloc((sim->sys.n + 1) * sizeof *species) : NULL;
    if (sim->model->species && !species) return agglo_error(AGGLO_ERROR_MEMORY, "out of memory");
    agglo_h5md_options ho = {
        .deflate = (int)c->h5md_deflate,
        .precision64 = c->h5md_precision == AGGLO_PRECISION_DOUBLE,
        .units = scenario_says(c, "dpd", "dpd.units", "si") || scenario_says(c, "dlca", "dlca.units", "si")
                     ? AGGLO_UNITS_SI : AGGLO_UNITS_REDUCED,
        .gamma_weighted = scenario_says(c, "gluey", "gluey.radius_weighting", "on"),
        .species = species && sim->model->species(sim->state, &sim->sys, species) ? species : NULL,
        .observables = names,
        .known_observables = 1};
    if (continuing && !h5_there) { /* the writer would start a new file: frames missing */
      free(names);
      free(species);
      kept[0] = (agglo_kept_record){0, -1, -INFINITY};
      return check_reach(sim, dir, AGGLO_OUTPUT_TRAJECTORY, kept) != 0 ? -2 : 0;
    }
    o->h5 = agglo_h5md_open(path, &sim->sys, sim->restarted, &ho, agglo_error_buffer(), AGGLO_ERROR_LEN);
    free(names);
    free(species);
    if (!o->h5) return -1;
    kept[0].present = 1;
    agglo_h5md_last_frame(o->h5, &kept[0].step, &kept[0].t);
    if (continuing && check_reach(sim, dir, AGGLO_OUTPUT_TRAJECTORY, kept) != 0) return -2;
  } else if ((which & AGGLO_OUTPUT_TRAJECTORY) && !(o->traj = open_out(dir, "trajectory.xyz", mode))) {
    return -1;
  }
  if ((which & AGGLO_OUTPUT_STATS) && !(o->stats = open_out(dir, "stats.csv", mode))) return -1;
  if (o->stats && ftell(o->stats) == 0) stats_header(o->stats, sim->model);
  if ((which & AGGLO_OUTPUT_STATS) && !(o->sizes = open_out(dir, "sizes.csv", mode))) return -1;
  if (o->sizes && ftell(o->sizes) == 0) fprintf(o->sizes, "time,step,size,clusters\n");
  const agglo_system *s = &sim->sys;
  /* continuing (a restart, or writers attached after some steps): the outputs of the current
     step belong to the earlier part of the run */
  int cont = sim->restarted || s->step > 0;
  o->traj_every = agglo_schedule_every(c->trajectory_interval, c->dt);
  o->stats_every = agglo_schedule_every(c->stats_interval, c->dt);
  o->analysis_every = agglo_schedule_every(c->analysis_interval, c->dt);
  o->traj_next = o->stats_next = o->analysis_next = s->t;
  if (cont && sim->model->variable_step) {
    /* the schedule of an uninterrupted run: the multiples of the interval after the current time */
    double *next[3] = {&o->traj_next, &o->stats_next, &o->analysis_next};
    double every_t[3] = {c->trajectory_interval, c->stats_interval, c->analysis_interval};
    for (int k = 0; k < 3; k++) *next[k] = every_t[k] > 0 ? agglo_schedule_next(s->t, every_t[k]) : 0;
    /* an analysis time after the last scheduled row (at or before now) is still to be written */
    if (c->analysis_interval > 0 && c->stats_interval > 0)
      o->analysis_next = agglo_schedule_next(o->stats_next - c->stats_interval, c->analysis_interval);
  }
  o->traj_last = o->stats_last = cont ? s->step : -1;
  o->state_step = o->stop_step = -1;
  o->snap_next = 0;
  while (o->snap_next < c->snapshots.n &&
         (sim->model->variable_step
              ? (cont ? c->snapshots.v[o->snap_next] <= s->t : c->snapshots.v[o->snap_next] < s->t)
              : agglo_schedule_step(c->snapshots.v[o->snap_next], c->dt) < s->step + cont))
    o->snap_next++;
  if (!(which & AGGLO_OUTPUT_SNAPSHOTS)) o->snap_next = c->snapshots.n;
  o->initial_pending = !cont;
  o->checkpoint_wall = agglo_wall_seconds();
  o->checkpoint_next = c->checkpoint_interval > 0 ? agglo_schedule_next(s->t, c->checkpoint_interval) : 0;
  return 0;
}

/* Fixed steps: the row at step k carries the indicators iff an analysis step falls after the
   scheduled row before it (the largest multiple of stats_every below k) and at or before k. An
   analysis step between two rows goes to the next row, not lost; the rule reads only k, so a
   resumed run writes the rows an uninterrupted one does (a stop writes no row). */
static int analysis_due_at(const agglo_outputs *o, int64_t k) {
  int64_t a = o->analysis_every, every = o->stats_every ? o->stats_every : 1;
  if (!a) return 0;
  if (k <= 0) return 1;
  int64_t before = (k - 1) / every * every;
  return k / a > before / a;
}

/* The aggregate indicators (docs/analysis.md): at the first stats row at or after each multiple
   of output.analysis_interval (variable steps: also at the last row of a run); empty otherwise. */
static int analysis_columns(agglo_sim *sim, FILE *f) {
  agglo_system *s = &sim->sys;
  agglo_frame_summary a;
  agglo_indicator_settings how = agglo_indicators_of(&sim->cfg);
  if (!sim->out.analysis_due) {
    fprintf(f, ",,,,,,");
    return 0;
  }
  sim->labelled_step = -1; /* the summary relabels with its own contact notion */
  if (agglo_frame_summarize(s, sim->model->contact_gap(sim->state), &how, &a, NULL, NULL) != 0)
    return agglo_error(AGGLO_ERROR_MEMORY, "out of memory for the aggregate indicators of the "
                       "stats.csv row at t = %g", s->t);
  fprintf(f, ",%.6g,%.6g,%.6g,%.6g,%.6g,%.6g", a.weight_avg_cluster_size,
          a.fractal_dimension_box, a.fractal_dimension_mass, a.contacts_per_sphere, a.aspect_ratio,
          a.rg_largest);
  return 0;
}

/* sizes.csv's lines of this row (the clusters of each size, long format) to sz, and their counts
   by size class (powers of two) after the H5MD row h5 (NULL: none). */
static int size_rows(agglo_sim *sim, FILE *sz, FILE *h5) {
  const agglo_system *s = &sim->sys;
  size_t *count = malloc((s->n + 1) * sizeof *count);
  if (!count || agglo_size_counts(s->cluster, s->n, count) != 0) {
    free(count);
    return agglo_error(AGGLO_ERROR_MEMORY, "out of memory");
  }
  for (size_t k = 1; k <= s->n; k++)
    if (count[k]) fprintf(sz, "%.10g,%lld,%zu,%zu\n", s->t, (long long)s->step, k, count[k]);
  for (int b = 0; h5 && b < size_classes(s->n); b++) {
    size_t in = 0;
    for (size_t k = (size_t)1 << b; k < ((size_t)2 << b) && k <= s->n; k++) in += count[k];
    fprintf(h5, ",%zu", in);
  }
  free(count);
  return 0;
}

/* The first non-finite value among the model's columns of a stats row (text from ",a,b..."),
   its column's name to name (from the model's ",x,y..." header); 0 when all are finite or empty. */
static int nonfinite_model_value(const char *vals, const char *cols, char *name, size_t n) {
  while (*vals == ',') {
    vals++;
    const char *col = cols && *cols == ',' ? ++cols : "";
    size_t cl = strcspn(col, ","), vl = strcspn(vals, ",");
    cols = col + cl;
    char *end;
    double x = vl ? strtod(vals, &end) : 0;
    if (vl && !isfinite(x)) {
      snprintf(name, n, "%.*s = %.*s", (int)cl, col, (int)vl, vals);
      return 1;
    }
    vals += vl;
  }
  return 0;
}

/* A row given up: its memory streams closed, nothing of it written. */
static void drop_row(FILE *f, char **row, FILE *h5, char **h5row, FILE *sz, char **szrow) {
  /* (closing a memory stream sets its buffer pointer: freed after, through the pointer) */
  fclose(f), free(*row);
  if (h5) fclose(h5);
  free(*h5row);
  if (sz) fclose(sz);
  free(*szrow);
}

static int stats_row(agglo_sim *sim) {
  agglo_system *s = &sim->sys;
  char *row = NULL, *h5row = NULL;
  size_t len = 0, h5len = 0;
  FILE *f = open_memstream(&row, &len); /* the row goes to stats.csv and the H5MD observables */
  if (!f) return agglo_error(AGGLO_ERROR_MEMORY, "out of memory");
  /* the size distribution of the labels the row counts (the indicators relabel) */
  FILE *h5 = sim->out.h5 ? open_memstream(&h5row, &h5len) : NULL;
  /* sizes.csv's lines wait with the row: a row given up leaves no trace in either file */
  char *szrow = NULL;
  size_t szlen = 0;
  FILE *sz = sim->out.sizes ? open_memstream(&szrow, &szlen) : NULL;
  if ((sim->out.h5 && !h5) || (sim->out.sizes && !sz)) {
    drop_row(f, &row, h5, &h5row, sz, &szrow);
    return agglo_error(AGGLO_ERROR_MEMORY, "out of memory");
  }
  if (sz && size_rows(sim, sz, h5) != 0) {
    drop_row(f, &row, h5, &h5row, sz, &szrow);
    return -1;
  }
  double mean_it = sim->iter_steps ? (double)sim->iter_sum / (double)sim->iter_steps : 0;
  double ke = agglo_kinetic_energy(s);
  fprintf(f, "%.10g,%lld,%zu,%.6g,%zu,%.9g,%d,%.4g,%.4g,%.6g,%zu,%d", s->t, (long long)s->step,
          sim->clusters.n_clusters, sim->clusters.mean_size, sim->clusters.max_size,
          ke, sim->last.iterations, mean_it, sim->last.max_violation,
          sim->last.min_gap, sim->last.n_contacts, sim->last.converged);
  if (analysis_columns(sim, f) != 0) {
    drop_row(f, &row, h5, &h5row, sz, &szrow);
    return -1;
  }
  fprintf(f, ",%d", sim->last.outer_iterations);
  fflush(f);
  size_t mine = len; /* the model's columns start here */
  if (sim->model->stats_values) sim->model->stats_values(sim->state, f);
  fflush(f);
  size_t cut = len;
  /* energies and model values that overflowed: the dynamics blew up although the positions and
     velocities stayed finite (a row of inf and nan is no result; docs/config.md, run.dt) */
  char what[160] = "";
  if (!isfinite(ke))
    snprintf(what, sizeof what, "kinetic_energy = %g", ke);
  else if (!ferror(f) && row) {
    char keep = row[cut];
    row[cut] = '\0';
    nonfinite_model_value(row + mine, sim->model->stats_columns, what, sizeof what);
    row[cut] = keep;
  }
  if (what[0]) {
    drop_row(f, &row, h5, &h5row, sz, &szrow);
    sim->iter_sum = sim->iter_steps = 0;
    if (sim->model->variable_step) /* it chooses its own steps: run.dt plays no part */
      return agglo_error(AGGLO_ERROR_RUN, "step %lld (t = %g): the stats row has a non-finite value "
                         "(%s): the dynamics overflowed; the %s model chooses its own steps, so one of its "
                         "parameters (%s.*, or the SI keys) is probably beyond what doubles hold",
                         (long long)s->step, s->t, what, sim->model->name, sim->model->name);
    return agglo_error(AGGLO_ERROR_RUN, "step %lld (t = %g): the stats row has a non-finite value "
                       "(%s): the dynamics overflowed; the time step (run.dt = %g) or the model's "
                       "force parameters (%s.*) are probably too large", (long long)s->step, s->t,
                       what, sim->cfg.dt, sim->model->name);
  } /* stats.csv stops here; the H5MD row goes on with the size classes */
  /* (a memory stream that could not grow has lost characters: its error flag says so) */
  int lost = ferror(f) || (h5 && ferror(h5)) || (sz && ferror(sz));
  if (h5) fclose(h5), fputs(h5row ? h5row : "", f);
  free(h5row);
  fputc('\n', f);
  lost |= ferror(f);
  fclose(f);
  if (sz) fclose(sz);
  sim->iter_sum = sim->iter_steps = 0;
  int rc = 0;
  if (lost)
    rc = agglo_error(AGGLO_ERROR_MEMORY, "out of memory composing the stats.csv row at t = %g", s->t);
  else if (sz && (fwrite(szrow, 1, szlen, sim->out.sizes) != szlen || fflush(sim->out.sizes) != 0))
    rc = agglo_error(AGGLO_ERROR_IO, "%s/sizes.csv: write failed (disk full?)", sim->out.dir);
  else if (fwrite(row, 1, cut, sim->out.stats) != cut || fputc('\n', sim->out.stats) == EOF ||
           fflush(sim->out.stats) != 0)
    rc = agglo_error(AGGLO_ERROR_IO, "%s/stats.csv: write failed (disk full?)", sim->out.dir);
  else if (sim->out.h5 &&
           agglo_h5md_observables_csv(sim->out.h5, row, agglo_error_buffer(), AGGLO_ERROR_LEN) != 0)
    rc = -1;
  free(row);
  free(szrow);
  return rc;
}

static int snapshot(agglo_sim *sim) {
  char path[4096], err[1024];
  /* named by the step, zero-padded: the names sort in time order */
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

static int snap_due(const agglo_sim *sim) {
  const agglo_config *c = &sim->cfg;
  if (sim->out.snap_next >= c->snapshots.n) return 0;
  if (sim->model->variable_step) return sim->sys.t >= c->snapshots.v[sim->out.snap_next] * (1 - 1e-12);
  return sim->sys.step >= agglo_schedule_step(c->snapshots.v[sim->out.snap_next], c->dt);
}

/* Fixed step: the trajectory's and the stats' schedules at step k. */
static int traj_due_at(const agglo_outputs *o, int64_t k, int final) {
  return final || (o->traj_every && k % o->traj_every == 0) || k == 0;
}
static int stats_due_at(const agglo_outputs *o, int64_t k, int final) {
  return final || k % (o->stats_every ? o->stats_every : 1) == 0;
}

double agglo_outputs_next_time(const agglo_sim *sim) {
  const agglo_outputs *o = &sim->out;
  const agglo_config *c = &sim->cfg;
  double t = INFINITY;
  if (!o->dir) return t;
  if ((o->traj || o->h5) && c->trajectory_interval > 0) t = fmin(t, o->traj_next);
  if (o->stats && c->stats_interval > 0) t = fmin(t, o->stats_next);
  if (o->snap_next < c->snapshots.n) t = fmin(t, c->snapshots.v[o->snap_next]);
  return t;
}

int agglo_outputs_due(const agglo_sim *sim, int final) {
  const agglo_outputs *o = &sim->out;
  const int64_t k = sim->sys.step;
  return o->dir && (traj_due_at(o, k, final) || stats_due_at(o, k, final) || snap_due(sim));
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

static int write_due(agglo_sim *sim, int final) {
  agglo_outputs *o = &sim->out;
  const agglo_system *s = &sim->sys;
  const agglo_config *c = &sim->cfg;
  if (!o->dir) return 0;
  o->initial_pending = 0;
  int want_traj, want_stats;
  if (sim->model->variable_step) {
    want_traj = agglo_schedule_due(s->t, c->trajectory_interval, &o->traj_next) || final || s->step == 0;
    want_stats = agglo_schedule_due(s->t, c->stats_interval, &o->stats_next) || final ||
                 c->stats_interval <= 0;
  } else {
    want_traj = traj_due_at(o, s->step, final);
    want_stats = stats_due_at(o, s->step, final);
  }
  want_traj = (o->traj || o->h5) && want_traj && s->step != o->traj_last;
  want_stats = o->stats && want_stats && s->step != o->stats_last;
  /* an analysis time is consumed only by a row: one between two rows goes to the next */
  o->analysis_due = want_stats && (sim->model->variable_step
                                        ? agglo_schedule_due(s->t, c->analysis_interval, &o->analysis_next) ||
                                              (final && c->analysis_interval > 0)
                                        : analysis_due_at(o, s->step));
  int want_snap = snap_due(sim);
  if (!(want_traj || want_stats || want_snap)) return 0;
  if (agglo_sim_label(sim) != 0) return agglo_error(AGGLO_ERROR_MEMORY, "out of memory labelling clusters");
  if (want_traj && o->h5) {
    if (agglo_h5md_frame(o->h5, s, agglo_error_buffer(), AGGLO_ERROR_LEN) != 0) return AGGLO_ERROR_IO;
    o->traj_last = s->step;
  } else if (want_traj) {
    if (agglo_xyz_write_frame(o->traj, s) != 0 || fflush(o->traj) != 0)
      return agglo_error(AGGLO_ERROR_IO, "%s/trajectory.xyz: write failed (disk full?)", o->dir);
    o->traj_last = s->step;
  }
  if (want_stats) {
    int st = stats_row(sim);
    if (st != 0) return st == AGGLO_ERROR_RUN ? AGGLO_ERROR_RUN : -1;
    o->stats_last = s->step;
  }
  while (want_snap) {
    if (snapshot(sim) != 0) return -1;
    o->snap_next++;
    want_snap = snap_due(sim);
  }
  return 0;
}

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
  if (!own && write_scenario(sim, dir) != 0) rc = -1;
  int h5 = sim->cfg.checkpoint_format == AGGLO_CHECKPOINT_HDF5;
  agglo_pending_iterations pending = {sim->iter_sum, sim->iter_steps};
  if (rc == 0 && (h5 ? agglo_checkpoint_h5_write : agglo_checkpoint_write)(dir, &sim->sys, sim->model,
                                                                          sim->state, pending, err, sizeof err) != 0)
    rc = agglo_error(AGGLO_ERROR_IO, "%s", err);
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
  if (o->stats && o->stats_last != sim->sys.step) return 0;
  double wall = agglo_wall_seconds();
  if (!agglo_outputs_checkpoint_due(sim, wall)) return 0;
  o->checkpoint_wall = wall;
  if (c->checkpoint_interval > 0) o->checkpoint_next = agglo_schedule_next(sim->sys.t, c->checkpoint_interval);
  return agglo_outputs_save_state(sim, o->dir);
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
  if (o->traj && fclose(o->traj) != 0 && rc == 0)
    rc = agglo_error(AGGLO_ERROR_IO, "%s/trajectory.xyz: write failed", o->dir);
  if (o->h5 && agglo_h5md_close(o->h5) != 0 && rc == 0)
    rc = agglo_error(AGGLO_ERROR_IO, "%s/trajectory.h5md: write failed", o->dir);
  if (o->stats && fclose(o->stats) != 0 && rc == 0)
    rc = agglo_error(AGGLO_ERROR_IO, "%s/stats.csv: write failed", o->dir);
  if (o->sizes && fclose(o->sizes) != 0 && rc == 0)
    rc = agglo_error(AGGLO_ERROR_IO, "%s/sizes.csv: write failed", o->dir);
  agglo_lock_release(&o->lock); /* last: every file is closed */
  free(o->dir);
  memset(o, 0, sizeof *o);
  return rc;
}
