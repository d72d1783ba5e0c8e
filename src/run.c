/* The driver: set up, then the time loop (step -> checks -> outputs), progress, signals. */
#include "cells.h"
#include "clusters.h"
#include "config.h"
#include "frame_summary.h"
#include "model.h"
#include "output_png.h"
#include "output_xyz.h"
#include "setup.h"
#include "error.h"
#include <errno.h>
#include <math.h>
#include <omp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t stop_signal = 0;
static void on_signal(int sig) { stop_signal = sig; }

const char *agglo_version(void) { return AGGLO_VERSION; }

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int make_dir(const char *path, char *err, size_t errlen) {
  char buf[4096];
  snprintf(buf, sizeof buf, "%s", path);
  for (char *p = buf + 1; *p; p++)
    if (*p == '/') {
      *p = 0;
      if (mkdir(buf, 0777) != 0 && errno != EEXIST)
        return agglo_fail(err, errlen, "%s: cannot create directory: %s", buf, strerror(errno));
      *p = '/';
    }
  if (mkdir(buf, 0777) != 0 && errno != EEXIST)
    return agglo_fail(err, errlen, "%s: cannot create directory: %s", buf, strerror(errno));
  return 0;
}

static FILE *open_out(const char *dir, const char *name, const char *mode, char *err, size_t errlen) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, mode);
  if (!f) agglo_fail(err, errlen, "%s: cannot write: %s", path, strerror(errno));
  return f;
}

typedef struct {
  const agglo_config *cfg;
  const agglo_run_options *opt;
  const agglo_model *model;
  void *state;
  agglo_system sys;
  FILE *traj, *stats;
  agglo_cluster_stats clusters;
  int64_t traj_every, stats_every, analysis_every, snap_next;
  int64_t traj_last, stats_last; /* last step written: a stop or error must not repeat it */
  /* models with a variable step: outputs by time */
  double traj_next, stats_next, analysis_next;
  int analysis_due;
  int64_t iter_sum, iter_steps, warnings;
  agglo_step_info last;
  double *x_good, *v_good; /* the state before the current step */
} run;

static int64_t every(double interval, double dt) {
  if (interval <= 0) return 0;
  int64_t k = llround(interval / dt);
  return k < 1 ? 1 : k;
}

static int label_clusters(run *R) {
  if (R->model->labels) {
    size_t nc = 0, mx = 0;
    if (R->model->labels(R->state, &R->sys, &nc, &mx) != 0) return -1;
    R->clusters.n_clusters = nc, R->clusters.max_size = mx;
    R->clusters.mean_size = nc ? (double)R->sys.n / (double)nc : 0;
    return 0;
  }
  const void *nb = R->model->neighbors ? R->model->neighbors(R->state) : NULL;
  return agglo_clusters_label(&R->sys, nb, R->model->contact_gap(R->state), &R->clusters);
}

static void stats_header(FILE *f) {
  fprintf(f, "time,step,n_clusters,mean_cluster_size,max_cluster_size,kinetic_energy,"
             "solver_iterations,mean_solver_iterations,max_violation,min_gap,n_contacts,converged,"
             "weight_avg_cluster_size,fractal_dimension_box,fractal_dimension_mass,"
             "contacts_per_sphere,aspect_ratio,rg_largest,outer_iterations");
}

/* The aggregate indicators (docs/analysis.md), every output.analysis_interval; empty otherwise. */
static void analysis_columns(run *R) {
  agglo_system *s = &R->sys;
  int64_t every = R->analysis_every;
  agglo_frame_summary a;
  int due = R->model->variable_step ? R->analysis_due : every && s->step % every == 0;
  if (!due ||
      agglo_frame_summarize(s, R->model->contact_gap(R->state), &a, NULL, NULL) != 0) {
    fprintf(R->stats, ",,,,,,");
    return;
  }
  fprintf(R->stats, ",%.6g,%.6g,%.6g,%.6g,%.6g,%.6g", a.weight_avg_cluster_size,
          a.fractal_dimension_box, a.fractal_dimension_mass, a.contacts_per_sphere, a.aspect_ratio,
          a.rg_largest);
}

static void stats_row(run *R) {
  agglo_system *s = &R->sys;
  double mean_it = R->iter_steps ? (double)R->iter_sum / (double)R->iter_steps : 0;
  fprintf(R->stats, "%.10g,%lld,%zu,%.6g,%zu,%.9g,%d,%.4g,%.4g,%.6g,%zu,%d", s->t,
          (long long)s->step, R->clusters.n_clusters, R->clusters.mean_size, R->clusters.max_size,
          agglo_kinetic_energy(s), R->last.iterations, mean_it, R->last.max_violation,
          R->last.min_gap, R->last.n_contacts, R->last.converged);
  analysis_columns(R);
  fprintf(R->stats, ",%d", R->last.outer_iterations);
  if (R->model->stats_values) R->model->stats_values(R->state, R->stats);
  fputc('\n', R->stats);
  fflush(R->stats);
  R->iter_sum = R->iter_steps = 0;
}

static int snapshot(run *R, char *err, size_t errlen) {
  char path[4096];
  snprintf(path, sizeof path, "%s/snapshot_t%g.png", R->opt->out_dir, R->cfg->snapshots.v[R->snap_next]);
  agglo_png_links links = {0};
  int have = R->model->links && R->model->links(R->state, &links) == 0;
  agglo_png_obstacles obs = {0};
  int have_obs = R->model->obstacles && R->model->obstacles(R->state, &R->sys, &obs) == 0;
  return agglo_png_write(path, &R->sys, (int)R->cfg->png_width, have ? &links : NULL,
                         have_obs ? &obs : NULL, err, errlen);
}

/* Variable step: is a time-based output due at t? Advances *next past t. */
static int due_by_time(double t, double interval, double *next) {
  if (interval <= 0 || t < *next * (1 - 1e-12)) return 0;
  while (*next <= t * (1 + 1e-12)) *next += interval;
  return 1;
}

/* Is the next snapshot due? (step-based, or time-based for a variable step) */
static int snap_due(const run *R) {
  const agglo_config *c = R->cfg;
  if (R->snap_next >= c->snapshots.n) return 0;
  if (R->model->variable_step) return R->sys.t >= c->snapshots.v[R->snap_next] * (1 - 1e-12);
  return R->sys.step >= llround(c->snapshots.v[R->snap_next] / c->dt);
}

/* Outputs due at the current step. */
static int outputs(run *R, int final, char *err, size_t errlen) {
  const agglo_system *s = &R->sys;
  int want_traj, want_stats;
  if (R->model->variable_step) {
    want_traj = due_by_time(s->t, R->cfg->trajectory_interval, &R->traj_next) || final ||
                s->step == 0;
    want_stats = due_by_time(s->t, R->cfg->stats_interval, &R->stats_next) || final ||
                 R->cfg->stats_interval <= 0;
    R->analysis_due = due_by_time(s->t, R->cfg->analysis_interval, &R->analysis_next) ||
                      (final && R->cfg->analysis_interval > 0);
  } else {
    want_traj = final || (R->traj_every && s->step % R->traj_every == 0) || s->step == 0;
    want_stats = final || s->step % (R->stats_every ? R->stats_every : 1) == 0;
  }
  want_traj = want_traj && s->step != R->traj_last;
  want_stats = want_stats && s->step != R->stats_last;
  int want_snap = snap_due(R);
  if (!(want_traj || want_stats || want_snap)) return 0;
  if (label_clusters(R) != 0) return agglo_fail(err, errlen, "out of memory labelling clusters");
  if (want_traj) {
    if (agglo_xyz_write_frame(R->traj, s) != 0 || fflush(R->traj) != 0)
      return agglo_fail(err, errlen, "%s/trajectory.xyz: write failed (disk full?)", R->opt->out_dir);
    R->traj_last = s->step;
  }
  if (want_stats) {
    stats_row(R);
    R->stats_last = s->step;
  }
  while (want_snap) {
    if (snapshot(R, err, errlen) != 0) return -1;
    R->snap_next++;
    want_snap = snap_due(R);
  }
  return 0;
}

static int save_state(run *R, char *err, size_t errlen) {
  char path[4096], tmp[4200];
  snprintf(path, sizeof path, "%s/state.xyz", R->opt->out_dir);
  if (agglo_xyz_write_state(path, &R->sys, err, errlen) != 0) return -1;
  snprintf(path, sizeof path, "%s/contacts.txt", R->opt->out_dir);
  snprintf(tmp, sizeof tmp, "%s.tmp", path);
  FILE *f = fopen(tmp, "w");
  if (!f) return agglo_fail(err, errlen, "%s: cannot write: %s", tmp, strerror(errno));
  int rc = R->model->save ? R->model->save(R->state, f) : 0;
  if (fclose(f) != 0 || rc != 0 || rename(tmp, path) != 0)
    return agglo_fail(err, errlen, "%s: write failed", path);
  return 0;
}

static void progress(const run *R, double t0, int force_end) {
  const agglo_system *s = &R->sys;
  double frac = R->cfg->t_end > 0 ? s->t / R->cfg->t_end : 1;
  if (frac > 1) frac = 1;
  double el = now() - t0, eta = frac > 0 ? el * (1 - frac) / frac : 0;
  char bar[31];
  int filled = (int)(30 * frac);
  for (int i = 0; i < 30; i++) bar[i] = i < filled ? '#' : '.';
  bar[30] = 0;
  fprintf(stderr, "\r[%s] %3.0f%%  t = %-9.4g step %-8lld clusters %-7zu elapsed %02d:%02d  ETA %02d:%02d ",
          bar, 100 * frac, s->t, (long long)s->step, R->clusters.n_clusters, (int)el / 60,
          (int)el % 60, (int)eta / 60, (int)eta % 60);
  if (force_end) fputc('\n', stderr);
}

static int setup_state(run *R, char *err, size_t errlen) {
  const agglo_config *c = R->cfg;
  if (R->opt->restart_dir) {
    char path[4096];
    snprintf(path, sizeof path, "%s/state.xyz", R->opt->restart_dir);
    if (agglo_xyz_read_state(path, &R->sys, err, errlen) != 0) return -1;
    if (R->sys.dim != c->dim)
      return agglo_fail(err, errlen, "%s: dim %d differs from run.dim %d", path, R->sys.dim, c->dim);
    if (R->model->init(&R->state, &R->sys, c, err, errlen) != 0) return -1;
    snprintf(path, sizeof path, "%s/contacts.txt", R->opt->restart_dir);
    FILE *f = fopen(path, "r");
    if (!f) return agglo_fail(err, errlen, "%s: cannot open: %s", path, strerror(errno));
    int rc = R->model->load ? R->model->load(R->state, f, err, errlen) : 0;
    fclose(f);
    return rc;
  }
  if (agglo_setup(&R->sys, c, err, errlen) != 0) return -1;
  /* cell order for memory locality; ids travel with the particles */
  agglo_system *s = &R->sys;
  if (agglo_sort_spatially(s, 4 * agglo_max_radius(s)) != 0) return agglo_fail(err, errlen, "out of memory");
  for (size_t i = 0; i < s->n; i++) s->cluster[i] = (int32_t)s->id[i];
  return R->model->init(&R->state, &R->sys, c, err, errlen);
}

int agglo_run(const agglo_config *c, const agglo_run_options *opt, char *err, size_t errlen) {
  if (agglo_config_check(c, err, errlen) != 0) return -1;
  run R;
  memset(&R, 0, sizeof R);
  R.cfg = c;
  R.opt = opt;
  R.model = agglo_model_select(c);
  if (!R.model) return agglo_fail(err, errlen, "run.model: model not available in this build");
  if (opt->threads > 0) omp_set_num_threads(opt->threads);
  int rc = -1;
  double t0 = now();
  if (setup_state(&R, err, errlen) != 0) goto done;
  if (make_dir(opt->out_dir, err, errlen) != 0) goto done;
  {
    FILE *f = open_out(opt->out_dir, "scenario.ini", "w", err, errlen);
    if (!f) goto done;
    fprintf(f, "# resolved scenario of this run (agglo %s); `agglo run` reads it back\n", AGGLO_VERSION);
    agglo_config_write(c, f);
    fclose(f);
  }
  int restarted = opt->restart_dir != NULL;
  R.traj = open_out(opt->out_dir, "trajectory.xyz", restarted ? "a" : "w", err, errlen);
  R.stats = R.traj ? open_out(opt->out_dir, "stats.csv", restarted ? "a" : "w", err, errlen) : NULL;
  if (!R.traj || !R.stats) goto done;
  if (!restarted || ftell(R.stats) == 0) {
    stats_header(R.stats);
    fprintf(R.stats, "%s\n", R.model->stats_columns ? R.model->stats_columns : "");
  }
  R.traj_every = every(c->trajectory_interval, c->dt);
  R.stats_every = every(c->stats_interval, c->dt);
  R.analysis_every = every(c->analysis_interval, c->dt);
  R.last.min_gap = INFINITY;
  R.last.converged = 1;
  R.traj_next = R.stats_next = R.analysis_next = R.sys.t;
  if (restarted && R.model->variable_step) {
    /* the schedule of the interrupted run: multiples of the interval summed from t = 0, past the
       restart time, as due_by_time left them (a restart then writes at the same steps) */
    double *next[3] = {&R.traj_next, &R.stats_next, &R.analysis_next};
    double every_t[3] = {c->trajectory_interval, c->stats_interval, c->analysis_interval};
    for (int k = 0; k < 3; k++) {
      *next[k] = 0;
      if (every_t[k] > 0)
        while (*next[k] <= R.sys.t * (1 + 1e-12)) *next[k] += every_t[k];
    }
  }
  /* a restart goes on after the saved step, whose outputs and snapshots were written */
  R.traj_last = R.stats_last = restarted ? R.sys.step : -1;
  while (R.snap_next < c->snapshots.n &&
         (R.model->variable_step
              ? (restarted ? c->snapshots.v[R.snap_next] <= R.sys.t : c->snapshots.v[R.snap_next] < R.sys.t)
              : llround(c->snapshots.v[R.snap_next] / c->dt) < R.sys.step + restarted))
    R.snap_next++;
  if (!restarted && outputs(&R, 0, err, errlen) != 0) goto done;
  size_t n3 = 3 * R.sys.n;
  R.x_good = malloc((n3 ? n3 : 1) * sizeof(double));
  R.v_good = malloc((n3 ? n3 : 1) * sizeof(double));
  if (!R.x_good || !R.v_good) {
    agglo_fail(err, errlen, "out of memory");
    goto done;
  }
  stop_signal = 0;
  void (*old_int)(int) = signal(SIGINT, on_signal);
  void (*old_term)(int) = signal(SIGTERM, on_signal);
  int64_t last_step = R.model->variable_step ? INT64_MAX : llround(c->t_end / c->dt);
  R.last.finished = 0;
  if (opt->verbose && R.model->variable_step)
    fprintf(stderr, "agglo: %s model, %zu particles in %dD, variable step, output in %s/\n",
            R.model->name, R.sys.n, R.sys.dim, opt->out_dir);
  else if (opt->verbose)
    fprintf(stderr, "agglo: %s model, %zu particles in %dD, %lld steps of %g, output in %s/\n",
            R.model->name, R.sys.n, R.sys.dim, (long long)(last_step - R.sys.step), c->dt, opt->out_dir);
  double last_draw = now();
  int drew = 0;
  rc = 0;
  while (R.sys.step < last_step && !R.last.finished) {
    if (stop_signal) {
      rc = (int)stop_signal;
      agglo_fail(err, errlen, "stopped by signal %d at step %lld (t = %g); state saved", (int)stop_signal,
           (long long)R.sys.step, R.sys.t);
      break;
    }
    memcpy(R.x_good, R.sys.x, n3 * sizeof(double));
    memcpy(R.v_good, R.sys.v, n3 * sizeof(double));
    double t_good = R.sys.t;
    int64_t step_good = R.sys.step;
    if (R.model->step(R.state, &R.sys, &R.last, err, errlen) != 0) {
      /* a failed step may have written velocities: keep the state it started from */
      memcpy(R.sys.x, R.x_good, n3 * sizeof(double));
      memcpy(R.sys.v, R.v_good, n3 * sizeof(double));
      R.sys.t = t_good, R.sys.step = step_good;
      size_t l = strlen(err);
      if (l + 1 < errlen)
        snprintf(err + l, errlen - l, ". The last good state (step %lld) is saved",
                 (long long)step_good);
      rc = -1;
      break;
    }
    R.iter_sum += R.last.iterations;
    R.iter_steps++;
    if (R.last.bad_particle != SIZE_MAX) {
      size_t i = R.last.bad_particle;
      agglo_fail(err, errlen, "step %lld: particle %lld has a non-finite position or velocity; the time "
           "step (run.dt = %g) is probably too large for the forces. The last good state (step "
           "%lld) is saved", (long long)R.sys.step, (long long)R.sys.id[i], c->dt, (long long)step_good);
      memcpy(R.sys.x, R.x_good, n3 * sizeof(double));
      memcpy(R.sys.v, R.v_good, n3 * sizeof(double));
      R.sys.t = t_good, R.sys.step = step_good;
      rc = -1;
      break;
    }
    if (!R.last.converged) {
      if (c->on_failure == 1) {
        agglo_fail(err, errlen, "step %lld: the projection did not converge in %lld iterations (largest "
             "overlap left %.3g); raise solver.max_iter or solver.tol, or lower run.dt. State saved",
             (long long)R.sys.step, (long long)c->max_iter, R.last.max_violation);
        rc = -1;
        break;
      }
      if (R.warnings++ < 5 && opt->verbose)
        fprintf(stderr, "%sagglo: warning: step %lld: projection stopped at the iteration cap "
                "(largest overlap left %.3g)%s\n", drew ? "\n" : "", (long long)R.sys.step,
                R.last.max_violation, R.warnings == 5 ? "; further warnings not shown" : "");
    }
    if (R.last.overlap_limit > 0 && R.last.min_gap < -R.last.overlap_limit) {
      if (c->on_failure == 1) {
        agglo_fail(err, errlen, "step %lld: an overlap of %.3g remains (more than ten times the "
                   "solver tolerance, %.3g): the solver stopped early or a contact was missed; "
                   "lower run.dt or solver.tol, or raise solver.max_iter. The last good state "
                   "(step %lld) is saved", (long long)R.sys.step, -R.last.min_gap,
                   R.last.overlap_limit / 10, (long long)step_good);
        memcpy(R.sys.x, R.x_good, n3 * sizeof(double));
        memcpy(R.sys.v, R.v_good, n3 * sizeof(double));
        R.sys.t = t_good, R.sys.step = step_good;
        rc = -1;
        break;
      }
      if (R.warnings++ < 5 && opt->verbose)
        fprintf(stderr, "%sagglo: warning: step %lld: overlap of %.3g, more than ten times the "
                "solver tolerance%s\n", drew ? "\n" : "", (long long)R.sys.step, -R.last.min_gap,
                R.warnings == 5 ? "; further warnings not shown" : "");
    }
    if (outputs(&R, R.sys.step == last_step || R.last.finished, err, errlen) != 0) {
      rc = -1;
      break;
    }
    if (opt->progress && now() - last_draw > 0.2 && now() - t0 > 1.0) {
      progress(&R, t0, 0);
      last_draw = now();
      drew = 1;
    }
  }
  signal(SIGINT, old_int);
  signal(SIGTERM, old_term);
  if (drew) progress(&R, t0, 1);
  if (rc != 0 && R.sys.step > 0) {
    char err2[512];
    if (label_clusters(&R) == 0) outputs(&R, 1, err2, sizeof err2);
  }
  {
    char err2[1024];
    if (save_state(&R, err2, sizeof err2) != 0 && rc == 0) {
      snprintf(err, errlen, "%s", err2);
      rc = -1;
    }
  }
  if (opt->verbose && rc == 0)
    fprintf(stderr, "agglo: done in %.1f s: t = %g, %zu clusters (largest %zu). Results in %s/: "
            "trajectory.xyz, stats.csv, snapshot_*.png, state.xyz\n", now() - t0, R.sys.t,
            R.clusters.n_clusters, R.clusters.max_size, opt->out_dir);
done:
  if (R.traj) fclose(R.traj);
  if (R.stats) fclose(R.stats);
  if (R.state) R.model->destroy(R.state);
  free(R.x_good);
  free(R.v_good);
  agglo_system_free(&R.sys);
  return rc;
}
