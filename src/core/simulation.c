/* The simulation handle: set up, step (step -> checks -> outputs -> callback), read and write the
   state. The stepping loop of every run, `agglo run` included. */
#include "core/simulation.h"
#include "analysis/analysis.h"
#include "core/cells.h"
#include "io/checkpoint.h"
#include "core/error.h"
#include "core/files.h"
#include "io/xyz_write.h"
#include "core/setup.h"
#include "core/timing.h"
#include <errno.h>
#include <math.h>
#include <omp.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

const char *agglo_version(void) { return AGGLO_VERSION; }

agglo_status agglo_set_threads(int threads) {
  if (threads < 0 || threads > 4096)
    return agglo_error(AGGLO_ERROR_INPUT, "agglo_set_threads: %d threads (allowed: 0 to 4096)", threads);
  if (threads > 0) omp_set_num_threads(threads);
  return AGGLO_OK;
}

#define NEED(sim, ret)                                                                   \
  do {                                                                                   \
    if (!(sim)) {                                                                        \
      agglo_error(AGGLO_ERROR_USAGE, "%s: the simulation handle is NULL", __func__);     \
      return ret;                                                                        \
    }                                                                                    \
  } while (0)

int agglo_sim_label(agglo_sim *sim) {
  if (sim->labelled_step == sim->sys.step) return 0;
  int rc;
  if (sim->model->labels) {
    size_t nc = 0, mx = 0;
    rc = sim->model->labels(sim->state, &sim->sys, &nc, &mx);
    sim->clusters.n_clusters = nc, sim->clusters.max_size = mx;
    sim->clusters.mean_size = nc ? (double)sim->sys.n / (double)nc : 0;
  } else {
    const void *nb = sim->model->neighbors ? sim->model->neighbors(sim->state) : NULL;
    rc = agglo_clusters_label(&sim->sys, nb, sim->model->contact_gap(sim->state), &sim->clusters);
  }
  if (rc == 0) sim->labelled_step = sim->sys.step;
  return rc;
}

/* A handle for the settings, without particles yet. */
static agglo_status sim_new(const agglo_config *c, agglo_sim **out) {
  if (!out) return agglo_error(AGGLO_ERROR_USAGE, "agglo_sim_create: out is NULL");
  *out = NULL;
  if (!c) return agglo_error(AGGLO_ERROR_USAGE, "agglo_sim_create: the settings handle is NULL");
  if (agglo_config_validate(c, agglo_error_buffer(), AGGLO_ERROR_LEN) != 0) return AGGLO_ERROR_INPUT;
  agglo_sim *sim = calloc(1, sizeof *sim);
  if (!sim) return agglo_error(AGGLO_ERROR_MEMORY, "out of memory");
  sim->cfg = *c;
  sim->model = agglo_model_select(c);
  if (!sim->model) {
    free(sim);
    return agglo_error(AGGLO_ERROR_INPUT, "run.model: model not available in this build");
  }
  sim->labelled_step = -1;
  sim->last.min_gap = INFINITY;
  sim->last.converged = 1;
  sim->last_step = sim->model->variable_step ? INT64_MAX : llround(c->t_end / c->dt);
  sim->until = INFINITY;
  sim->snap_step = -1;
  sim->last_step_seconds = INFINITY; /* the first step may last: it can be undone */
  *out = sim;
  return AGGLO_OK;
}

/* The particle arrays are in place: make the model and the rollback buffers. */
static agglo_status sim_finish(agglo_sim *sim) {
  char *err = agglo_error_buffer();
  if (sim->model->init(&sim->state, &sim->sys, &sim->cfg, err, AGGLO_ERROR_LEN) != 0)
    return AGGLO_ERROR_INPUT;
  agglo_model_box(sim->model, sim->state, &sim->sys); /* (a restart's: the offset of its step) */
  if (agglo_model_fill_species(sim->model, sim->state, &sim->sys) != 0) /* the pictures' species */
    return agglo_error(AGGLO_ERROR_MEMORY, "out of memory");
  size_t n3 = 3 * sim->sys.n;
  sim->x_good = malloc((n3 ? n3 : 1) * sizeof(double));
  sim->v_good = malloc((n3 ? n3 : 1) * sizeof(double));
  if (!sim->x_good || !sim->v_good) return agglo_error(AGGLO_ERROR_MEMORY, "out of memory");
  return AGGLO_OK;
}

agglo_status agglo_sim_create(const agglo_config *c, agglo_sim **out) {
  agglo_sim *sim;
  agglo_status st = sim_new(c, &sim);
  if (st != AGGLO_OK) return st;
  agglo_system *s = &sim->sys, file = {0};
  agglo_start_columns has; /* particles.from (simulation_start.c) */
  if (sim->cfg.from[0]) st = agglo_start_read(sim, &file, &has);
  if (st != AGGLO_OK) {
  } else if (agglo_setup(s, &sim->cfg, agglo_error_buffer(), AGGLO_ERROR_LEN) != 0) st = AGGLO_ERROR_INPUT;
  else if (sim->cfg.from[0] && (st = agglo_start_apply(sim, &file, &has)) != AGGLO_OK) {
  }
  /* cell order for memory locality; ids travel with the particles */
  else if (agglo_sort_spatially(s, 4 * agglo_max_radius(s)) != 0)
    st = agglo_error(AGGLO_ERROR_MEMORY, "out of memory");
  else {
    int joined = sim->cfg.from[0] && sim->model->join; /* s->cluster: the file's clusters */
    if (!joined)
      for (size_t i = 0; i < s->n; i++) s->cluster[i] = (int32_t)s->id[i];
    st = sim_finish(sim);
    if (st == AGGLO_OK && joined) st = agglo_start_join(sim);
  }
  agglo_system_free(&file);
  if (st != AGGLO_OK) agglo_sim_destroy(sim);
  else *out = sim;
  return st;
}

/* The model's restart state and the run's pending solver iterations from its bytes (len, the
   seal left out), named where. */
static agglo_status load_model(agglo_sim *sim, char *bytes, size_t len, const char *where) {
  FILE *f = len ? fmemopen(bytes, len, "r") : fopen("/dev/null", "r");
  if (!f) return agglo_error(AGGLO_ERROR_MEMORY, "%s: cannot read: %s", where, strerror(errno));
  char *err = agglo_error_buffer();
  agglo_status st = AGGLO_OK;
  agglo_pending_iterations pending;
  char *writers = NULL; /* the user writers' positions, taken when they are added again */
  if (agglo_checkpoint_load_model(f, sim->model, sim->state, &sim->sys, &pending, &writers, err, AGGLO_ERROR_LEN) != 0)
    st = agglo_error(AGGLO_ERROR_INPUT, "%s: %s; nothing was run", where, err);
  else if (agglo_user_writers_load(sim, writers, where) != 0)
    st = AGGLO_ERROR_INPUT;
  else
    sim->iter_sum = pending.sum, sim->iter_steps = pending.steps;
  agglo_model_box(sim->model, sim->state, &sim->sys);
  free(writers);
  fclose(f);
  return st;
}

agglo_status agglo_sim_create_from_restart(const agglo_config *c, const char *dir, agglo_sim **out) {
  agglo_sim *sim;
  agglo_status st = sim_new(c, &sim);
  if (st != AGGLO_OK) return st;
  sim->restarted = 1;
  char *err = agglo_error_buffer(), *bytes = NULL;
  size_t nbytes = 0, data = 0;
  agglo_checkpoint_names nm;
  /* the settings against the run's; the restart point (state.h5 or the text pair,
     agglo_checkpoint_uses_h5) against the settings; the model's state, record by record; last,
     the seal: the whole against what was written */
  if (!dir) st = agglo_error(AGGLO_ERROR_INPUT, "agglo_sim_create_from_restart: the directory is NULL");
  else if ((st = agglo_start_check_scenario(sim, dir)) != AGGLO_OK) {
  } else if (agglo_checkpoint_recover(dir, err, AGGLO_ERROR_LEN) != 0 ||
             agglo_checkpoint_read(dir, c->checkpoint_format, &sim->sys, &bytes, &nbytes, &nm, err,
                                   AGGLO_ERROR_LEN) != 0) {
    st = AGGLO_ERROR_INPUT;
  } else if ((st = agglo_start_check_restart(sim, nm.state)) != AGGLO_OK) {
  } else if ((st = sim_finish(sim)) != AGGLO_OK) {
  } else if (agglo_checkpoint_data_length(bytes, nbytes, nm.bytes, &data, err, AGGLO_ERROR_LEN) != 0) {
    st = AGGLO_ERROR_INPUT;
  } else if ((st = load_model(sim, bytes, data, nm.bytes)) != AGGLO_OK) {
  } else if (agglo_checkpoint_unseal(bytes, nbytes, &sim->sys, sim->model->name, nm.bytes, nm.state,
                                     err, AGGLO_ERROR_LEN) != 0) {
    st = AGGLO_ERROR_INPUT;
  }
  free(bytes);
  if (st != AGGLO_OK) agglo_sim_destroy(sim);
  else *out = sim;
  return st;
}

void agglo_sim_destroy(agglo_sim *sim) {
  if (!sim) return;
  agglo_outputs_close(sim);
  agglo_user_writers_free(sim);
  if (sim->state) sim->model->destroy(sim->state);
  free(sim->x_good);
  free(sim->v_good);
  free(sim->snap);
  agglo_system_free(&sim->sys);
  free(sim);
}

/* ---- stepping ---------------------------------------------------------------------------- */

static void warn(agglo_sim *sim, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void warn(agglo_sim *sim, const char *fmt, ...) {
  if (sim->warnings++ >= 5 || !sim->log) return;
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  int len = vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  if (sim->warnings == 5 && len > 0 && (size_t)len < sizeof msg)
    snprintf(msg + len, sizeof msg - (size_t)len, "; further warnings not shown");
  sim->log(msg, sim->log_user);
}

static void rollback(agglo_sim *sim, double t, int64_t step) {
  size_t n3 = 3 * sim->sys.n;
  memcpy(sim->sys.x, sim->x_good, n3 * sizeof(double));
  memcpy(sim->sys.v, sim->v_good, n3 * sizeof(double));
  sim->sys.t = t, sim->sys.step = step;
  sim->labelled_step = -1;
}

/* The state writer's restart point, keeping the thread's message: 1 if written. */
static int save_state_quietly(agglo_sim *sim) {
  agglo_error_saved keep;
  agglo_error_save(&keep);
  int saved = sim->out.dir && (sim->out.which & AGGLO_OUTPUT_STATE) &&
              agglo_outputs_save_state(sim, sim->out.dir) == 0;
  agglo_error_restore(&keep);
  return saved;
}

/* A failed step: back to the state it started from; the run ends there (the outputs of that
   step are written, and the restart point unless they failed to: it would claim them). */
static agglo_status fail_run(agglo_sim *sim, double t_good, int64_t step_good) {
  rollback(sim, t_good, step_good);
  sim->failed = 1;
  agglo_error_saved keep;
  agglo_error_save(&keep);
  if (sim->sys.step > 0) agglo_outputs_write(sim, 1);
  agglo_error_restore(&keep);
  int saved = save_state_quietly(sim); /* refused after a failed write */
  agglo_error_append(". The last good state (step %lld) is %s", (long long)step_good,
                     saved ? "saved" : "kept");
  return AGGLO_ERROR_RUN;
}

/* The health of the step just taken (sim->last): AGGLO_OK, perhaps with a warning, or
   AGGLO_ERROR_RUN with its message. */
static agglo_status check_step(agglo_sim *sim, int final) {
  agglo_system *s = &sim->sys;
  const agglo_config *c = &sim->cfg;
  if (sim->last.bad_particle != SIZE_MAX) {
    size_t i = sim->last.bad_particle;
    if (sim->model->variable_step) /* it chooses its steps: run.dt is not the cause */
      agglo_error(AGGLO_ERROR_RUN, "step %lld: particle %lld has a non-finite position or velocity; "
                  "the %s model chooses its own steps: one of its %s.* keys (or the SI keys) is probably "
                  "beyond what doubles hold", (long long)s->step, (long long)s->id[i], sim->model->name,
                  sim->model->name);
    else
      agglo_error(AGGLO_ERROR_RUN, "step %lld: particle %lld has a non-finite position or velocity; "
                  "the time step (run.dt = %g) is probably too large for the forces",
                  (long long)s->step, (long long)s->id[i], c->dt);
    return AGGLO_ERROR_RUN;
  }
  if (!sim->last.converged) {
    if (c->on_failure == ON_FAILURE_STOP) {
      agglo_error(AGGLO_ERROR_RUN, "step %lld: the projection did not converge in %lld iterations "
                  "(largest overlap left %.3g); raise solver.max_iter or solver.tol, or lower "
                  "run.dt", (long long)s->step, (long long)c->max_iter, sim->last.max_violation);
      return AGGLO_ERROR_RUN;
    }
    warn(sim, "step %lld: projection stopped at the iteration cap (largest overlap left %.3g)",
         (long long)s->step, sim->last.max_violation);
    sim->unconverged++;
  }
  if (sim->last.overlap_limit > 0 && sim->last.min_gap < -sim->last.overlap_limit) {
    if (c->on_failure == ON_FAILURE_STOP) {
      agglo_error(AGGLO_ERROR_RUN, "step %lld: an overlap of %.3g remains (more than ten times "
                  "the solver tolerance, %.3g): the solver stopped early or a contact was missed; "
                  "lower run.dt or solver.tol, or raise solver.max_iter", (long long)s->step,
                  -sim->last.min_gap, sim->last.overlap_limit / 10);
      return AGGLO_ERROR_RUN;
    }
    warn(sim, "step %lld: overlap of %.3g, more than ten times the solver tolerance",
         (long long)s->step, -sim->last.min_gap);
    if (final && c->compliance == 0) { /* (a compliance lets contacts give way) */
      agglo_error(AGGLO_ERROR_RUN, "step %lld, the last: an overlap of %.3g remains (more than ten "
                  "times the solver tolerance, %.3g): the run did not keep its particles apart; "
                  "lower run.dt or solver.tol, or raise solver.max_iter", (long long)s->step,
                  -sim->last.min_gap, sim->last.overlap_limit / 10);
      return AGGLO_ERROR_RUN;
    }
  }
  /* a run that no longer can end with at most AGGLO_MAX_UNCONVERGED of its steps unconverged
     fails now (a variable step, whose count is not known: of its steps so far, from its 20th) */
  int64_t done = s->step - sim->start_step, planned = done;
  if (!sim->model->variable_step && sim->last_step > s->step) planned = sim->last_step - sim->start_step;
  int ballistic = !strncmp(sim->model->name, "ballistic", 9);
  if (!sim->last.converged && (final || !sim->model->variable_step || done >= 20) &&
      (double)sim->unconverged > AGGLO_MAX_UNCONVERGED * (double)planned) {
    agglo_error(AGGLO_ERROR_RUN, "step %lld: the solver stopped at its cap in %lld of the %lld "
                "steps %s%s (allowed: at most %g%% of them%s): its results would not be what it "
                "says; %s", (long long)s->step, (long long)sim->unconverged, (long long)planned,
                sim->model->variable_step && !final ? "so far" : "of the run",
                sim->start_step ? " since its restart" : "", 100 * AGGLO_MAX_UNCONVERGED,
                ballistic ? "" : ", with solver.on_failure = warn",
                ballistic ? "raise ballistic.dah_max_iter or ballistic.tol, or change the "
                            "minimiser's ballistic.dah_* (docs/ballistic.md)"
                          : "raise solver.max_iter or solver.tol, or lower run.dt");
    return AGGLO_ERROR_RUN;
  }
  return AGGLO_OK;
}

agglo_status agglo_sim_begin(agglo_sim *sim) {
  if (sim->started) return AGGLO_OK;
  /* a user writer of the restart point not added again would lose the records of this run */
  agglo_status st = agglo_user_writers_check(sim);
  if (st != AGGLO_OK) return st;
  sim->started = 1;
  sim->start_step = sim->sys.step;
  char msg[512];
  if (sim->log && sim->model->start_warning && sim->model->start_warning(sim->state, msg, sizeof msg))
    sim->log(msg, sim->log_user); /* not one of the five step warnings: always passed on */
  return sim->out.initial_pending && agglo_outputs_write(sim, 0) != 0 ? AGGLO_ERROR_IO : AGGLO_OK;
}

agglo_status agglo_sim_record_step(agglo_sim *sim, const agglo_step_info *info) {
  if (info != &sim->last) sim->last = *info; /* (a model writes it in place) */
  sim->labelled_step = -1;
  sim->iter_sum += info->iterations;
  sim->iter_steps++;
  agglo_status st = check_step(sim, info->finished || sim->sys.step >= sim->last_step);
  if (st == AGGLO_OK && info->finished) sim->finished = 1;
  return st;
}

void agglo_sim_replaced(agglo_sim *sim) { sim->labelled_step = -1; }

void agglo_sim_ended(agglo_sim *sim, agglo_status st) {
  if (st != AGGLO_OK && st != AGGLO_STOPPED) sim->failed = 1;
}

/* The model's state before a step that may last, as its restart bytes in memory (none when
   they cannot be made: that step then runs to its end). */
static void snapshot(agglo_sim *sim) {
  free(sim->snap);
  sim->snap = NULL, sim->snap_len = 0, sim->snap_step = -1;
  char *b = NULL;
  size_t n = 0;
  FILE *f = open_memstream(&b, &n);
  if (!f) return;
  int rc = sim->model->save ? sim->model->save(sim->state, f) : 0;
  if (fclose(f) != 0 || rc != 0) {
    free(b);
    return;
  }
  sim->snap = b, sim->snap_len = n, sim->snap_step = sim->sys.step;
}

/* A step given up: the model's state made again from the snapshot, as a restart makes it. */
static agglo_status restore_model(agglo_sim *sim) {
  char *err = agglo_error_buffer();
  sim->model->destroy(sim->state);
  sim->state = NULL;
  if (sim->model->init(&sim->state, &sim->sys, &sim->cfg, err, AGGLO_ERROR_LEN) != 0)
    return AGGLO_ERROR_RUN;
  agglo_model_box(sim->model, sim->state, &sim->sys);
  if (!sim->model->load || sim->snap_len == 0) return AGGLO_OK;
  FILE *f = fmemopen(sim->snap, sim->snap_len, "r");
  if (!f) return agglo_error(AGGLO_ERROR_MEMORY, "out of memory restoring the state of step %lld",
                             (long long)sim->snap_step);
  int rc = sim->model->load(sim->state, &sim->sys, f, err, AGGLO_ERROR_LEN);
  fclose(f);
  agglo_model_box(sim->model, sim->state, &sim->sys);
  return rc == 0 ? AGGLO_OK : AGGLO_ERROR_RUN;
}

/* A stop request honoured at the current step: the restart point, nothing off the schedule. */
static agglo_status stop_here(agglo_sim *sim, int gave_up) {
  atomic_store(&sim->stop_request, 0);
  if (agglo_outputs_stop(sim) != 0) return AGGLO_ERROR_IO;
  return agglo_error(AGGLO_STOPPED, "stopped on request at step %lld (t = %g)%s",
                     (long long)sim->sys.step, sim->sys.t,
                     gave_up ? "; the step after it was given up and will be run again" : "");
}

agglo_status agglo_sim_request_stop(agglo_sim *sim) {
  if (!sim) return AGGLO_ERROR_USAGE; /* (no message: this may run in a signal handler) */
  atomic_store(&sim->stop_request, 1);
  return AGGLO_OK;
}

/* One step with its checks, outputs and callback. */
static agglo_status step_once(agglo_sim *sim) {
  agglo_system *s = &sim->sys;
  char *err = agglo_error_buffer();
  agglo_status begun = agglo_sim_begin(sim);
  if (begun != AGGLO_OK) return begun;
  if (atomic_load(&sim->stop_request)) return stop_here(sim, 0);
  size_t n3 = 3 * s->n;
  memcpy(sim->x_good, s->x, n3 * sizeof(double));
  memcpy(sim->v_good, s->v, n3 * sizeof(double));
  double t_good = s->t;
  int64_t step_good = s->step;
  agglo_step_info last_good = sim->last;
  if (sim->model->until) sim->model->until(sim->state, fmin(agglo_outputs_next_time(sim), sim->until));
  /* a step that can be undone may be given up at a stop request (the engines poll s->stop):
     every step of a model that keeps what it changes, else one that may last */
  int undoable;
  if (sim->model->keep) {
    undoable = sim->model->keep(sim->state) == 0;
  } else {
    if (sim->last_step_seconds > AGGLO_SLOW_STEP) snapshot(sim);
    undoable = sim->snap_step == s->step;
  }
  s->stop = undoable ? &sim->stop_request : NULL;
  double wall = agglo_wall_seconds();
  int rc = sim->model->step(sim->state, s, &sim->last, err, AGGLO_ERROR_LEN);
  s->stop = NULL;
  sim->last_step_seconds = agglo_wall_seconds() - wall;
  if (rc == AGGLO_STEP_STOPPED) {
    rollback(sim, t_good, step_good);
    sim->last = last_good;
    sim->last_step_seconds = INFINITY; /* (the same step again) */
    agglo_status st = AGGLO_OK;
    if (sim->model->undo) sim->model->undo(sim->state);
    else st = restore_model(sim);
    if (st != AGGLO_OK) {
      sim->failed = 1;
      return st;
    }
    return stop_here(sim, 1);
  }
  /* a failed step may have written velocities: keep the state it started from */
  if (rc != 0) return fail_run(sim, t_good, step_good);
  if (agglo_sim_record_step(sim, &sim->last) != AGGLO_OK) return fail_run(sim, t_good, step_good);
  int final = s->step == sim->last_step || sim->finished;
  /* no restart point after a failed write: it would claim this step's outputs, which a resume
     then skips; nor from a blown-up state (a non-finite stats value) */
  int wr = agglo_outputs_write(sim, final);
  if (wr == AGGLO_ERROR_RUN) {
    sim->failed = 1;
    agglo_error_append(". The last stats row written is from before step %lld", (long long)s->step);
    return AGGLO_ERROR_RUN;
  }
  if (wr != 0) {
    sim->failed = 1;
    return AGGLO_ERROR_IO;
  }
  char msg[512];
  if (final && sim->log && sim->model->final_warning &&
      sim->model->final_warning(sim->state, msg, sizeof msg))
    sim->log(msg, sim->log_user); /* not one of the five step warnings: always passed on */
  if (final && sim->out.dir && (sim->out.which & AGGLO_OUTPUT_STATE) &&
      agglo_outputs_save_state(sim, sim->out.dir) != 0)
    return AGGLO_ERROR_IO;
  if (!final && agglo_outputs_checkpoint(sim) != 0) return AGGLO_ERROR_IO;
  /* a stop writes the restart point but no output off the schedule: the run may go on */
  if (sim->callback && s->step % sim->callback_every == 0 && sim->callback(sim, sim->callback_user)) {
    if (agglo_outputs_stop(sim) != 0) return AGGLO_ERROR_IO;
    return agglo_error(AGGLO_STOPPED, "stopped by the callback at step %lld (t = %g)",
                       (long long)s->step, s->t);
  }
  if (!final && atomic_load(&sim->stop_request)) return stop_here(sim, 0);
  return AGGLO_OK;
}

static agglo_status can_step(const agglo_sim *sim, const char *fn) {
  if (!sim) return agglo_error(AGGLO_ERROR_USAGE, "%s: the simulation handle is NULL", fn);
  if (sim->failed)
    return agglo_error(AGGLO_ERROR_USAGE, "%s: the simulation failed at step %lld and cannot go "
                       "on (its last good state is kept)", fn, (long long)sim->sys.step);
  if (sim->finished)
    return agglo_error(AGGLO_ERROR_USAGE, "%s: the simulation is finished (the model has nothing "
                       "left to do at t = %g, step %lld)", fn, sim->sys.t, (long long)sim->sys.step);
  return AGGLO_OK;
}

agglo_status agglo_sim_step(agglo_sim *sim, int64_t n) {
  agglo_status st = can_step(sim, __func__);
  if (st != AGGLO_OK) return st;
  if (n < 0 || n > AGGLO_MAX_STEPS - sim->sys.step)
    return agglo_error(AGGLO_ERROR_INPUT, "agglo_sim_step: n = %lld (allowed: 0 to %lld, the steps "
                       "left before step 2^53)", (long long)n, (long long)(AGGLO_MAX_STEPS - sim->sys.step));
  for (int64_t k = 0; k < n && !sim->finished && st == AGGLO_OK; k++) st = step_once(sim);
  return st;
}

agglo_status agglo_sim_run_until(agglo_sim *sim, double t) {
  agglo_status st = can_step(sim, __func__);
  if (st != AGGLO_OK) return st;
  if (!isfinite(t)) return agglo_error(AGGLO_ERROR_INPUT, "agglo_sim_run_until: t = %g (allowed: finite)", t);
  /* a time already passed took no step and said DONE (sim.run(t_end=-1)) */
  if (sim->model->variable_step ? t < sim->sys.t : ceil(t / sim->cfg.dt - 1e-9) < (double)sim->sys.step)
    return agglo_error(AGGLO_ERROR_INPUT, "agglo_sim_run_until: t = %g is before the simulation's "
                       "time %g (allowed: t >= the current time)", t, sim->sys.t);
  if (sim->model->variable_step) {
    sim->until = t; /* an event-driven model stops there exactly */
    while (st == AGGLO_OK && !sim->finished && sim->sys.t < t) st = step_once(sim);
    sim->until = INFINITY;
    return st;
  }
  double steps = fmax(ceil(t / sim->cfg.dt - 1e-9), 0);
  if (steps > (double)AGGLO_MAX_STEPS)
    return agglo_error(AGGLO_ERROR_INPUT, "agglo_sim_run_until: t = %g is %.3g steps of run.dt = %g "
                       "(allowed: at most 2^53 steps)", t, steps, sim->cfg.dt);
  int64_t target = (int64_t)steps;
  while (st == AGGLO_OK && !sim->finished && sim->sys.step < target) st = step_once(sim);
  return st;
}

agglo_status agglo_sim_run(agglo_sim *sim) {
  agglo_status st = can_step(sim, __func__);
  if (st != AGGLO_OK) return st;
  while (st == AGGLO_OK && !sim->finished && sim->sys.step < sim->last_step) st = step_once(sim);
  return st;
}

int agglo_sim_finished(const agglo_sim *sim) { return sim && sim->finished; }

agglo_status agglo_sim_set_callback(agglo_sim *sim, int64_t every, agglo_callback fn, void *user) {
  NEED(sim, AGGLO_ERROR_USAGE);
  if (fn && every < 1)
    return agglo_error(AGGLO_ERROR_INPUT, "agglo_sim_set_callback: every = %lld (allowed: >= 1)", (long long)every);
  sim->callback = fn, sim->callback_user = user, sim->callback_every = every;
  return AGGLO_OK;
}

agglo_status agglo_sim_set_log(agglo_sim *sim, agglo_log_fn fn, void *user) {
  NEED(sim, AGGLO_ERROR_USAGE);
  sim->log = fn, sim->log_user = user;
  return AGGLO_OK;
}

/* ---- outputs ----------------------------------------------------------------------------- */

static agglo_status attach_outputs(agglo_sim *sim, const char *dir, unsigned which, int take_lock) {
  if (which & ~(unsigned)(AGGLO_OUTPUT_ALL | AGGLO_OUTPUT_OVERWRITE))
    return agglo_error(AGGLO_ERROR_INPUT, "agglo_sim_attach_outputs: which = %u (allowed: a sum of "
                       "AGGLO_OUTPUT_* flags, at most %d)", which, AGGLO_OUTPUT_ALL | AGGLO_OUTPUT_OVERWRITE);
  if (agglo_outputs_close(sim) != 0) return AGGLO_ERROR_IO;
  if ((which & AGGLO_OUTPUT_ALL) == 0) return AGGLO_OK;
  if (!dir) return agglo_error(AGGLO_ERROR_INPUT, "agglo_sim_attach_outputs: the directory is NULL");
  int rc = agglo_outputs_open(sim, dir, which, take_lock);
  if (rc != 0) {
    agglo_error_saved keep;
    agglo_error_save(&keep);
    agglo_outputs_close(sim);
    agglo_error_restore(&keep);
    return rc == -2 ? AGGLO_ERROR_INPUT : AGGLO_ERROR_IO; /* -2: outputs short of the restart point */
  }
  return AGGLO_OK;
}

agglo_status agglo_sim_attach_outputs(agglo_sim *sim, const char *dir, unsigned which) {
  NEED(sim, AGGLO_ERROR_USAGE);
  return attach_outputs(sim, dir, which, 1);
}

agglo_status agglo_sim_attach_outputs_held(agglo_sim *sim, const char *dir, unsigned which) {
  return attach_outputs(sim, dir, which, 0);
}

agglo_status agglo_sim_save_state(agglo_sim *sim, const char *dir) {
  NEED(sim, AGGLO_ERROR_USAGE);
  if (!dir) return agglo_error(AGGLO_ERROR_INPUT, "agglo_sim_save_state: the directory is NULL");
  return agglo_outputs_save_state(sim, dir) == 0 ? AGGLO_OK : AGGLO_ERROR_IO;
}

agglo_status agglo_sim_close_outputs(agglo_sim *sim) {
  NEED(sim, AGGLO_ERROR_USAGE);
  return agglo_outputs_close(sim) == 0 ? AGGLO_OK : AGGLO_ERROR_IO;
}

/* ---- reading the state ------------------------------------------------------------------- */

size_t agglo_sim_count(const agglo_sim *sim) { NEED(sim, 0); return sim->sys.n; }
int agglo_sim_dim(const agglo_sim *sim) { NEED(sim, 0); return sim->sys.dim; }
const char *agglo_sim_model(const agglo_sim *sim) { NEED(sim, NULL); return sim->model->name; }
double agglo_sim_time(const agglo_sim *sim) { NEED(sim, NAN); return sim->sys.t; }
int64_t agglo_sim_step_count(const agglo_sim *sim) { NEED(sim, -1); return sim->sys.step; }
double agglo_sim_dt(const agglo_sim *sim) { NEED(sim, NAN); return sim->cfg.dt; }
const double *agglo_sim_positions(const agglo_sim *sim) { NEED(sim, NULL); return sim->sys.x; }
const double *agglo_sim_velocities(const agglo_sim *sim) { NEED(sim, NULL); return sim->sys.v; }
const double *agglo_sim_radii(const agglo_sim *sim) { NEED(sim, NULL); return sim->sys.r; }
const double *agglo_sim_masses(const agglo_sim *sim) { NEED(sim, NULL); return sim->sys.m; }
const int64_t *agglo_sim_ids(const agglo_sim *sim) { NEED(sim, NULL); return sim->sys.id; }

agglo_status agglo_sim_box(const agglo_sim *sim, agglo_box *box) {
  NEED(sim, AGGLO_ERROR_USAGE);
  if (!box) return agglo_error(AGGLO_ERROR_INPUT, "agglo_sim_box: box is NULL");
  *box = sim->sys.box;
  return AGGLO_OK;
}

double agglo_sim_contact_gap(const agglo_sim *sim) {
  NEED(sim, NAN);
  return sim->model->contact_gap(sim->state);
}

agglo_status agglo_sim_unwrapped_positions(agglo_sim *sim, double *u) {
  NEED(sim, AGGLO_ERROR_USAGE);
  if (!u) return agglo_error(AGGLO_ERROR_INPUT, "agglo_sim_unwrapped_positions: u is NULL");
  if (agglo_sim_label(sim) != 0 || agglo_unwrap_clusters(&sim->sys, agglo_sim_contact_gap(sim), u) != 0)
    return agglo_error(AGGLO_ERROR_MEMORY, "agglo_sim_unwrapped_positions: out of memory");
  return AGGLO_OK;
}

const int32_t *agglo_sim_clusters(agglo_sim *sim) {
  NEED(sim, NULL);
  if (agglo_sim_label(sim) != 0) {
    agglo_error(AGGLO_ERROR_MEMORY, "agglo_sim_clusters: out of memory");
    return NULL;
  }
  return sim->sys.cluster;
}

size_t agglo_sim_cluster_count(agglo_sim *sim) {
  return agglo_sim_clusters(sim) ? sim->clusters.n_clusters : 0;
}

agglo_status agglo_sim_get_report(const agglo_sim *sim, agglo_sim_report *r) {
  NEED(sim, AGGLO_ERROR_USAGE);
  if (!r) return agglo_error(AGGLO_ERROR_INPUT, "agglo_sim_get_report: report is NULL");
  *r = (agglo_sim_report){.time = sim->sys.t,
                          .step = sim->sys.step,
                          .end_step = sim->model->variable_step ? -1 : sim->last_step,
                          .iterations = sim->last.iterations,
                          .converged = sim->last.converged,
                          .max_violation = sim->last.max_violation,
                          .min_gap = sim->last.min_gap,
                          .n_contacts = sim->last.n_contacts,
                          .n_clusters = sim->clusters.n_clusters,
                          .max_cluster_size = sim->clusters.max_size,
                          .warnings = sim->warnings};
  return AGGLO_OK;
}
