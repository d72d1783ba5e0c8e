/* agglo: direct simulation of particle aggregation. The public C API.

   A simulation is an opaque handle made from settings (a scenario), stepped by verbs, read through
   views of its arrays, and written by output writers you attach or leave out:

       agglo_config *c = agglo_config_new();
       agglo_config_load(c, "examples/maury_brownian_500.ini");
       agglo_config_set(c, "run.seed", "7");
       agglo_sim *sim;
       if (agglo_sim_create(c, &sim) != AGGLO_OK) puts(agglo_last_error());
       agglo_sim_attach_outputs(sim, "out", AGGLO_OUTPUT_ALL);
       agglo_sim_run_until(sim, 1.0);
       const double *x = agglo_sim_positions(sim);   (n x 3, z = 0 in 2D)
       agglo_sim_destroy(sim);
       agglo_config_destroy(c);

   Every function that can fail returns an agglo_status; on failure agglo_last_error() gives a
   message a user can act on (the file and line, the key and its allowed range). The library never
   prints and never exits. Functions returning a pointer or a value give NULL (or 0) on misuse and
   set the message too. Text the library returns (char **text arguments) is the caller's: free it
   with agglo_free. Documentation: docs/api.md. */
#ifndef AGGLO_AGGLO_H
#define AGGLO_AGGLO_H
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default)

/* ---- status and errors ------------------------------------------------------------------- */

typedef enum {
  AGGLO_OK = 0,
  AGGLO_STOPPED = 1,        /* a callback asked to stop; the state is consistent (not an error) */
  AGGLO_ERROR_INPUT = -1,   /* bad file, key, value or argument */
  AGGLO_ERROR_USAGE = -2,   /* a NULL handle, a finished or failed simulation, a call out of order */
  AGGLO_ERROR_RUN = -3,     /* the dynamics failed (non-finite values, solver); the last good
                               state is kept in the handle (and written if the state writer is on) */
  AGGLO_ERROR_IO = -4,      /* an output could not be written */
  AGGLO_ERROR_MEMORY = -5
} agglo_status;

/* The message of the last failed call in this thread ("" if none). */
const char *agglo_last_error(void);
const char *agglo_version(void);
/* OpenMP threads of the hot loops (0: OpenMP's default). Results never depend on it. */
agglo_status agglo_set_threads(int threads);
/* Free text (or NULL) that the library returned through a char **text argument. */
void agglo_free(void *p);
/* A user's integer (a command-line option, a count): decimal digits with an optional minus sign,
   the whole text, within [lo, hi] (a value past long long, which strtoll clamps, is out of range).
   AGGLO_OK with *out, or AGGLO_ERROR_INPUT: "WHAT TEXT: expected an integer from LO to HI". The
   one parser of the command line's integer options and of the library's --seeds lists. */
agglo_status agglo_parse_integer(const char *what, const char *text, long long lo, long long hi,
                                 long long *out);

/* ---- settings ---------------------------------------------------------------------------- */

/* A scenario: every key of `agglo run --help` (docs/config.md) with its default. Opaque. */
typedef struct agglo_config agglo_config;

agglo_config *agglo_config_new(void); /* all defaults; NULL if out of memory */
agglo_config *agglo_config_copy(const agglo_config *c);
void agglo_config_destroy(agglo_config *c);
/* Read an INI scenario over the current settings (errors name file:line and key). */
agglo_status agglo_config_load(agglo_config *c, const char *path);
/* The same from text; name is used in messages. */
agglo_status agglo_config_load_string(agglo_config *c, const char *text, const char *name);
/* The built-in default scenario (Maury's Brownian aggregation, 2D, N = 2000). */
agglo_status agglo_config_load_default(agglo_config *c);
/* Set one key by name, "section.key", as the value would be written in a scenario file. */
agglo_status agglo_config_set(agglo_config *c, const char *key, const char *value);
/* "section.key=value", as `agglo run -s` takes it. */
agglo_status agglo_config_assign(agglo_config *c, const char *assignment);
/* The current value of a key as text (reloadable by agglo_config_set). */
agglo_status agglo_config_get(const agglo_config *c, const char *key, char *buf, size_t len);
/* Checks across keys (box against packing fraction, time step against radius, ...). */
agglo_status agglo_config_check(const agglo_config *c);
/* Every key with its value, as a reloadable scenario file. */
agglo_status agglo_config_save(const agglo_config *c, const char *path);
/* The same text into *text (free it with agglo_free). */
agglo_status agglo_config_text(const agglo_config *c, char **text);
/* Every key with its default, allowed values and meaning into *text (free it with agglo_free):
   markdown = 1 gives docs/config.md's table, 0 the text of `agglo run --help`. */
agglo_status agglo_config_keys_text(int markdown, char **text);
/* A short account of the settings a model derives (e.g. DPD units and reduced parameters) into
   *text ("" when the model derives none; free it with agglo_free). */
agglo_status agglo_config_summary_text(const agglo_config *c, char **text);

/* ---- models ------------------------------------------------------------------------------ */

/* The k-th model of run.model (k from 0) and its description in a few lines (`agglo list`);
   NULL past the last. */
const char *agglo_model_name(int k);
const char *agglo_model_description(int k);

/* ---- the box ----------------------------------------------------------------------------- */

enum { AGGLO_WALL = 0, AGGLO_PERIODIC = 1 };

typedef struct {
  double lo[3], hi[3], len[3]; /* len = hi - lo; 2D boxes have lo[2] = hi[2] = len[2] = 0 */
  int periodic[3];             /* per axis: AGGLO_WALL or AGGLO_PERIODIC */
  /* Lees-Edwards shear (DPD's dpd.shear_rate): the image of the box across its upper y face is
     shifted by +shear_x along x (across the lower face by -shear_x); 0: none. shear_rate: the
     rate gamma_dot (1/time) of its streaming velocity u_x(y) = gamma_dot (y - the middle of the
     box along y), 0: none (set by the model at each step; a box read from a trajectory has the
     frame's shear_x only, docs/dpd.md "Shear") */
  double shear_x, shear_rate;
} agglo_box;

/* ---- a simulation ------------------------------------------------------------------------ */

typedef struct agglo_sim agglo_sim;

/* Set up the particles of a scenario (any model); the settings are copied. */
agglo_status agglo_sim_create(const agglo_config *c, agglo_sim **out);
/* Continue the run saved in dir (state.xyz, contacts.txt, or state.h5) bit for bit; c is
   dir/scenario.ini with any keys a restart may change (e.g. run.t_end); one the restart point fixes
   (box, particles, model, run.dim, run.dt: docs/reliability.md) that differs from dir/scenario.ini,
   or a restart point that does not match its seal or c, is refused (AGGLO_ERROR_INPUT). Writers
   attached later append. */
agglo_status agglo_sim_create_from_restart(const agglo_config *c, const char *dir, agglo_sim **out);
void agglo_sim_destroy(agglo_sim *sim);

/* Stepping. The outputs of a run do not depend on how it is cut into calls. */
agglo_status agglo_sim_step(agglo_sim *sim, int64_t n);        /* n steps (or events/windows) */
agglo_status agglo_sim_run_until(agglo_sim *sim, double t);    /* to the first step at t or after (event driven: at t); a t before the current time is refused */
agglo_status agglo_sim_run(agglo_sim *sim);                    /* to run.t_end, or until finished */
/* 1 when the model has nothing left to do (e.g. one ballistic cluster left). */
int agglo_sim_finished(const agglo_sim *sim);

/* Called after every `every`-th step (after the outputs of that step); return non-zero to stop
   the run, which then returns AGGLO_STOPPED after writing the restart point (if the state writer
   is attached) but nothing off the output schedule: a further call goes on as if never stopped.
   fn = NULL removes it. */
typedef int (*agglo_callback)(agglo_sim *sim, void *user);
agglo_status agglo_sim_set_callback(agglo_sim *sim, int64_t every, agglo_callback fn, void *user);
/* Ask the running (or next) stepping call to stop, from a signal handler or another thread
   (async-signal-safe: it only sets a flag). The call returns AGGLO_STOPPED with the restart point
   written (as a callback's stop) at the end of the current step, or within a fraction of a second
   inside a long step (the contact projection, the event-driven ballistic and DLCA engines poll
   it): that step is then given up, the state is the one before it, and a further call runs it
   again, as if never stopped. AGGLO_ERROR_USAGE (and no message) for a NULL handle. */
agglo_status agglo_sim_request_stop(agglo_sim *sim);
/* Warnings of a run (a solver at its iteration cap, an overlap above tolerance): the first five
   are passed to fn; all are counted. fn = NULL drops them. */
typedef void (*agglo_log_fn)(const char *message, void *user);
agglo_status agglo_sim_set_log(agglo_sim *sim, agglo_log_fn fn, void *user);

/* The state, without copying: views valid until the handle is destroyed. Positions and velocities
   are n x 3 (row-major, z = 0 in 2D); clusters are labelled on demand (the smallest id of each
   cluster). Write through the setters below, never through these pointers. */
size_t agglo_sim_count(const agglo_sim *sim);
int agglo_sim_dim(const agglo_sim *sim);
const char *agglo_sim_model(const agglo_sim *sim); /* e.g. "contact", "ballistic (event driven)" */
double agglo_sim_time(const agglo_sim *sim);
int64_t agglo_sim_step_count(const agglo_sim *sim);
double agglo_sim_dt(const agglo_sim *sim);
agglo_status agglo_sim_box(const agglo_sim *sim, agglo_box *box);
const double *agglo_sim_positions(const agglo_sim *sim);
const double *agglo_sim_velocities(const agglo_sim *sim);
const double *agglo_sim_radii(const agglo_sim *sim);
const double *agglo_sim_masses(const agglo_sim *sim);
const int64_t *agglo_sim_ids(const agglo_sim *sim);
const int32_t *agglo_sim_clusters(agglo_sim *sim);
size_t agglo_sim_cluster_count(agglo_sim *sim);
/* The gap below which two particles of this model count as touching (clusters). */
double agglo_sim_contact_gap(const agglo_sim *sim);
/* Positions u (n x 3, storage order, z = 0 in 2D) with every cluster (as agglo_sim_clusters
   labels it; labelled now) made whole: each member at the minimum image of a member of its
   cluster it touches (gap < agglo_sim_contact_gap), so aggregates that cross periodic faces unfold; equal to the positions without periodic axes. (u - x) / L along
   a periodic axis of length L is each particle's image count (an integer). */
agglo_status agglo_sim_unwrapped_positions(agglo_sim *sim, double *u);

/* What the last step reported, and the clusters of the last output (no relabelling). */
typedef struct {
  double time;
  int64_t step;
  int64_t end_step;        /* the step of run.t_end; -1 when the model chooses its own steps */
  int iterations;          /* solver iterations of the last step */
  int converged;           /* 0 if the solver stopped at its cap */
  double max_violation;    /* largest overlap the solver left (length) */
  double min_gap;          /* smallest gap after the step (inf when no pair is within reach) */
  size_t n_contacts;       /* constraints of the step */
  size_t n_clusters, max_cluster_size; /* at the last output or agglo_sim_clusters call */
  int64_t warnings;        /* warnings so far */
} agglo_sim_report;
agglo_status agglo_sim_get_report(const agglo_sim *sim, agglo_sim_report *report);

/* A user's own start: before the first step only, n must equal the count; values are checked
   (finite, positive radii and masses, inside walled boxes, no overlap beyond the model's
   tolerance) and nothing changes if a check fails. Arrays are in storage order (as the views;
   agglo_sim_ids gives each particle's id); stride is 3, or 2 for 2D arrays of (x, y). Radii
   set the masses by particles.mass_rule, as at set-up; agglo_sim_set_masses then overrides.
   Under Lees-Edwards shear new positions keep each particle's peculiar velocity v - u_x(y)
   (u_x follows the new y); velocities set are taken as given, the flow included. */
agglo_status agglo_sim_set_positions(agglo_sim *sim, const double *x, size_t n, int stride);
agglo_status agglo_sim_set_velocities(agglo_sim *sim, const double *v, size_t n, int stride);
agglo_status agglo_sim_set_radii(agglo_sim *sim, const double *r, size_t n);
agglo_status agglo_sim_set_masses(agglo_sim *sim, const double *m, size_t n);
/* All at once, as a snapshot (each n x 3 or n, storage order; NULL keeps that array): checked
   together (positions against the new radii), applied only when every check passes; radii set
   the masses by particles.mass_rule unless m is given; x without v carries the shear's flow as
   agglo_sim_set_positions. Same rule: before the first step only. */
agglo_status agglo_sim_set_state(agglo_sim *sim, size_t n, const double *x, const double *v,
                                 const double *r, const double *m);

/* Outputs: writers attached to a directory (created), writing on the scenario's schedule
   (output.* keys) from the next step on, the step before the first included. */
enum {
  AGGLO_OUTPUT_TRAJECTORY = 1, /* trajectory.xyz: extended XYZ frames */
  AGGLO_OUTPUT_STATS = 2,      /* stats.csv: one row per output time */
  AGGLO_OUTPUT_SNAPSHOTS = 4,  /* snapshot_NNNNNNNNN.png (the step) at output.snapshots */
  AGGLO_OUTPUT_STATE = 8,      /* the restart point (state.xyz + contacts.txt, or state.h5) at
                                  run.t_end, every output.checkpoint_minutes, on a stop or
                                  failure, and when the writers are closed */
  AGGLO_OUTPUT_ALL = 15,
  AGGLO_OUTPUT_OVERWRITE = 16  /* not a writer: first delete the files agglo writes in dir */
};
/* Also writes dir/scenario.ini (the resolved settings). which = 0 detaches every writer. A dir
   holding another run's outputs (trajectory, stats, snapshots, state, scenario) is refused unless
   which has AGGLO_OUTPUT_OVERWRITE (they are deleted; other files stay) or the simulation
   continues the run saved there (made from dir's restart point). While writers are attached the
   simulation holds dir (an flock on dir/agglo.lock, which holds the pid; released on close, or
   by the kernel when the process dies): a dir another simulation holds, in any process, is
   refused with AGGLO_ERROR_IO naming the pid. */
agglo_status agglo_sim_attach_outputs(agglo_sim *sim, const char *dir, unsigned which);
/* Write the restart point (state.xyz + contacts.txt or state.h5, and scenario.ini) into dir now
   (another simulation's dir is refused, as above). */
agglo_status agglo_sim_save_state(agglo_sim *sim, const char *dir);
/* The run ends here: write the outputs of the current step if not yet written, the restart
   point (with the state writer), and close the writers; at the step of a callback's stop,
   nothing off the schedule (the run goes on from its restart point as if never stopped).
   agglo_sim_destroy does it too. */
agglo_status agglo_sim_close_outputs(agglo_sim *sim);

/* A writer of the user's own: fn is called when its trigger fires (after the built-in outputs
   of that step, in the order the writers were added) and appends text to dir/file through out;
   the library owns the file: made when the outputs are attached (refused if it is there, unless
   AGGLO_OUTPUT_OVERWRITE), held with dir, flushed before every restart point, which records its
   length and its trigger's position. A simulation made from that restart point cuts the file
   back to that length and goes on as the uninterrupted run would, once the writer is added again
   under the same name (same file) before the first step; a saved writer not added again makes
   the first step fail with AGGLO_ERROR_INPUT naming it (its records would be lost).
   The trigger fires at every `steps`-th step, or every `interval` of simulated time (a model of
   fixed step: every round(interval / run.dt) steps; one of the two), at each of times[0 ..
   n_times) (ascending; a fixed-step model: at the step nearest each; copied), at the first step
   (at_start: step 0) and at the run's end (at_end), whichever come; never twice at one step.
   name: 1 to 64 of [A-Za-z0-9_.-], one per simulation; file: a plain file name (no '/'), not one
   of agglo's own (trajectory.*, stats.csv, sizes.csv, state.*, contacts.txt, scenario.ini,
   snapshot_*, agglo.lock). fn returns 0, or non-zero to fail the run (AGGLO_ERROR_IO, naming the
   writer); it may read the state (agglo_sim_positions, ...) but not step or change it.
   Writers are kept until the handle is destroyed; at most 64. */
typedef struct {
  int64_t steps;        /* every this many steps (0: none) */
  double interval;      /* every this much simulated time (0: none) */
  const double *times;  /* at these times (NULL when n_times = 0) */
  size_t n_times;
  int at_start, at_end; /* also at step 0, at the run's end */
} agglo_trigger_spec;
typedef struct agglo_writer_output agglo_writer_output;
/* Append len bytes of text to the writer's record of this step (only inside its fn). */
agglo_status agglo_writer_append(agglo_writer_output *out, const char *text, size_t len);
typedef int (*agglo_writer_fn)(agglo_sim *sim, int64_t step, agglo_writer_output *out, void *user);
agglo_status agglo_sim_add_writer(agglo_sim *sim, const char *name, const char *file,
                                  const agglo_trigger_spec *when, agglo_writer_fn fn, void *user);

/* Hold dir (it exists) as a run holds its output directory, for a program that writes files
   into it (agglo render, movie, plot): a dir a run or another holder holds is refused with
   AGGLO_ERROR_IO naming the pid, so nothing is written beside a run. agglo_dir_release (or the
   process's end) lets it go. */
typedef struct agglo_dir_hold agglo_dir_hold;
agglo_status agglo_dir_take(const char *dir, agglo_dir_hold **held);
void agglo_dir_release(agglo_dir_hold *held);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif
