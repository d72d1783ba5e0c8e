/* The simulation handle behind include/agglo/agglo.h: a system, its model and the run's
   bookkeeping. Shared by simulation.c (stepping, state) and src/io/ (the writers). */
#ifndef AGGLO_SIMULATION_H
#define AGGLO_SIMULATION_H
#include "analysis/clusters.h"
#include "analysis/frame_summary.h"
#include "config/config.h"
#include "core/files.h"
#include "core/model.h"
#include "io/checkpoint.h"
#include "io/stats_row.h"
#include "io/trigger.h"
#include "io/user_writers.h"
#include "io/writer.h"
#include <stdio.h>

/* How a run measures its aggregate indicators ([analysis] keys). */
static inline agglo_indicator_settings agglo_indicators_of(const agglo_config *c) {
  int grid = c->box_counting;
  if (grid == AGGLO_BOX_COUNTING_AUTO)
    grid = c->model->box_grid ? AGGLO_BOX_COUNTING_BOX : AGGLO_BOX_COUNTING_BOUNDING;
  return (agglo_indicator_settings){grid, (size_t)c->min_cluster_size};
}

/* The outputs attached to a directory: its writers (io/writer.h) and what they share. */
typedef struct {
  char *dir;
  agglo_lock lock; /* dir held while the writers are attached (unless the caller holds it) */
  unsigned which;  /* AGGLO_OUTPUT_* */
  int overwrite;   /* AGGLO_OUTPUT_OVERWRITE was given (a user writer's file is replaced) */
  agglo_writer *writers; /* in the order they write at a step */
  size_t n_writers;
  int continuing;  /* a restarted run continues the outputs in dir (its restart point is there) */
  agglo_kept_record kept[2]; /* a restart: trajectory.xyz's and stats.csv's last records after the cut */
  struct agglo_h5md *h5;     /* the H5MD trajectory (its frames' writer and its observables') */
  agglo_stats_row row;       /* the stats row of the current step (stats.csv, sizes.csv, H5MD) */
  int64_t row_due_step;      /* the step whose stats row is due (-1: none) */
  int has_stats;             /* stats.csv is written: a restart point waits for a step with a row */
  int64_t row_step;          /* the step of the last stats row written (-1: none) */
  int64_t state_step;            /* step of the last state written (-1: none) */
  int broken;                    /* a write of the outputs of step broken_step failed: the files
                                    may end mid-record, so nothing more is appended and no
                                    restart point claims that step (a resume starts from the
                                    one before and cuts the files back to it) */
  int64_t broken_step;
  int64_t stop_step;             /* step of a stop (-1: none): the run goes on from its restart
                                    point, so closing there writes nothing off the schedule */
  int initial_pending;           /* the outputs of the start are due at the first step */
  double checkpoint_wall, checkpoint_next; /* last restart point (wall clock), next (sim time) */
} agglo_outputs;

struct agglo_sim {
  agglo_config cfg;
  const agglo_model *model;
  void *state;
  agglo_system sys;
  agglo_cluster_stats clusters;
  int64_t labelled_step;   /* step of the labels in sys.cluster (-1: stale) */
  agglo_step_info last;
  int64_t iter_sum, iter_steps, warnings;
  int64_t last_step;       /* the step of run.t_end (INT64_MAX for a variable step) */
  double until;            /* agglo_sim_run_until's time while it runs, else INFINITY */
  int started, restarted, finished, failed;
  double *x_good, *v_good; /* the state before the current step */
  agglo_callback callback;
  void *callback_user;
  int64_t callback_every;
  agglo_log_fn log;
  void *log_user;
  agglo_outputs out;
  struct agglo_user_writer **users; /* agglo_sim_add_writer's, in the order added */
  size_t n_users;
  agglo_saved_writer *saved;        /* the user writers the restart point records */
  size_t n_saved;
  _Atomic int stop_request; /* agglo_sim_request_stop (a signal handler may set it) */
  /* the model's state before the current step (its restart bytes), so that a step given up at
     a stop request can be undone: taken before a step that may last (the first, or one after a
     step of more than AGGLO_SLOW_STEP s); snap_step: its step, -1 when none */
  char *snap;
  size_t snap_len;
  int64_t snap_step;
  double last_step_seconds;
  /* steps of this simulation whose solver stopped at its cap (the run fails past
     AGGLO_MAX_UNCONVERGED of its steps) */
  int64_t unconverged, start_step; /* start_step: the first step of this simulation */
};

/* A step that lasted longer than this (wall-clock seconds) makes the next one undoable. */
#define AGGLO_SLOW_STEP 0.05
/* The fraction of a run's steps whose solver may stop at its cap with solver.on_failure = warn
   (docs/reliability.md); more, and the run fails. */
#define AGGLO_MAX_UNCONVERGED 0.05

/* Label the clusters of the current state (model labels or contacts). 0 or -1 (memory). */
int agglo_sim_label(agglo_sim *sim);

/* io/outputs.c: open the writers (take_lock: hold dir while they are open; 0: the caller holds
   it), write what is due at the current step (final: everything of the run's end: each
   writer's trigger asked once, each writer due called once), close; io/write_restart.c: the
   restart point. Return 0 or non-zero with the thread's message set (open: -2 when the
   outputs a restart continues do not reach its restart point, bad input; write:
   AGGLO_ERROR_RUN when a stats value is non-finite, the dynamics having blown up). */
int agglo_outputs_open(agglo_sim *sim, const char *dir, unsigned which, int take_lock);
int agglo_outputs_write(agglo_sim *sim, int final);
/* Would agglo_outputs_write write anything at the current step, or is it a step of the
   trajectory's or the stats' schedule (written or not)? (fixed-step models: the MPI ranks gather
   the state then) */
int agglo_outputs_due(const agglo_sim *sim, int final);
/* Variable-step models: the time any writer is next due by its trigger (a trajectory frame, a
   stats row, a snapshot, a user writer's record; INFINITY: none) */
double agglo_outputs_next_time(const agglo_sim *sim);
int agglo_outputs_save_state(agglo_sim *sim, const char *dir);
int agglo_outputs_checkpoint(agglo_sim *sim);
/* 1 when a restart point is due at wall-clock time `wall` (output.checkpoint_minutes since the
   last) or at the current simulated time (output.checkpoint_interval). */
int agglo_outputs_checkpoint_due(const agglo_sim *sim, double wall);
int agglo_outputs_close(agglo_sim *sim);
/* A stop (a callback asked for it) at the current step: the restart point, with the solver
   iterations since the last stats row, and nothing off the schedule when the writers close. */
int agglo_outputs_stop(agglo_sim *sim);

/* A directory holding files agglo writes (trajectory, stats, snapshots, state, scenario) is
   refused (the message names flag, the API's way to overwrite), or with overwrite they are
   deleted (other files stay; keep, if not NULL, too: the caller replaces it whole): 0 or -1 with
   the message. */
int agglo_outputs_claim(const char *dir, int overwrite, const char *flag, const char *keep);
/* agglo_sim_attach_outputs into a directory the caller holds (agglo_lock_take): an ensemble's
   member, which holds its directory from before its run to after its marker. */
agglo_status agglo_sim_attach_outputs_held(agglo_sim *sim, const char *dir, unsigned which);

/* simulation_start.c: particles.from. Read the frame into t (sets cfg.n) before the set-up; then
   apply it over the set-up state before the model is made (checked as the setters check; errors
   name the file, frame, particle and value). */
typedef struct { int velocity, radius, mass, id, box, cluster, time; } agglo_start_columns;
agglo_status agglo_start_read(agglo_sim *sim, agglo_system *t, agglo_start_columns *has);
agglo_status agglo_start_apply(agglo_sim *sim, agglo_system *t, const agglo_start_columns *has);
/* After the model is made: the particles that share a cluster of the file (s->cluster) are
   joined (model->join), through their contacts first. */
agglo_status agglo_start_join(agglo_sim *sim);
/* A restart's settings against the scenario of the run it continues (dir/scenario.ini): the keys
   the restart point fixes must not change (agglo_config_check_restart). */
agglo_status agglo_start_check_scenario(const agglo_sim *sim, const char *dir);
/* A state read for a restart (the reader checked each value) against the settings: run.dim,
   particles.n, the box, run.dt and run.t_end; then inside walls, distinct ids, no overlap beyond
   ten tolerances. Errors name the file, line, particle and value, or the key. */
agglo_status agglo_start_check_restart(agglo_sim *sim, const char *path);
/* The bookkeeping of a run, the same whoever steps: the serial loop (simulation.c) or a domain
   decomposition (src/mpi/, on rank 0, which holds sim).
   begin: before the first step, the outputs of the start (once); AGGLO_OK or AGGLO_ERROR_IO.
   record_step: after a step (sim->sys at the new step), its report info: kept for the stats,
   the labels stale, and its health checked (a non-finite particle, a solver that stopped at its
   cap, an overlap beyond ten tolerances); AGGLO_OK, perhaps with a warning through the log, or
   AGGLO_ERROR_RUN with its message (run.on_failure decides which).
   replaced: the particles of sim->sys were written anew (gathered from the ranks).
   ended: the run elsewhere ended with st; a failure ends the simulation (it cannot go on). */
agglo_status agglo_sim_begin(agglo_sim *sim);
agglo_status agglo_sim_record_step(agglo_sim *sim, const agglo_step_info *info);
void agglo_sim_replaced(agglo_sim *sim);
void agglo_sim_ended(agglo_sim *sim, agglo_status st);

#endif
