/* A model is a small table of functions over the shared system; the driver does not know which
   model it runs. */
#ifndef AGGLO_MODEL_H
#define AGGLO_MODEL_H
#include "config/config.h"
#include "config/keys.h"
#include "core/shapes.h"
#include "core/system.h"
#include <stdio.h>

/* What one step reports (the solver's statistics and the state's health). */
typedef struct {
  int iterations;       /* solver iterations of this step */
  int converged;        /* 0 if the solver hit its cap */
  double max_violation; /* largest overlap the solver left (length) */
  double min_gap;       /* smallest gap between particles (and walls) after the step */
  size_t n_contacts;    /* constraints in the step */
  size_t bad_particle;  /* first particle with a non-finite value, or SIZE_MAX */
  int outer_iterations; /* ballistic time stepping: growths of the link set in the step */
  int finished;         /* the model has nothing left to do (e.g. one cluster left): stop */
  double overlap_limit; /* > 0: a gap below -overlap_limit after the step is a failure */
} agglo_step_info;

/* What a model's step returns when it gave the step up at a stop request
   (agglo_stop_requested): its state is then undefined until the driver restores it. */
#define AGGLO_STEP_STOPPED 0x570

typedef struct agglo_model {
  const char *name;
  int (*init)(void **state, const agglo_system *s, const agglo_config *c, char *err, size_t errlen);
  int (*step)(void *state, agglo_system *s, agglo_step_info *info, char *err, size_t errlen);
  /* the contact notion used for clusters (gap below which two particles touch) */
  double (*contact_gap)(const void *state);
  /* neighbour list of the last step, reusable by cluster labelling (may be NULL) */
  const void *(*neighbors)(const void *state);
  /* model state needed for an exact restart (e.g. multipliers for the warm start); load reads it
     back over the restart point's system s, refusing any record that does not fit it (an index
     out of range, out of order, a number not finite) with "line L: ..." */
  int (*save)(const void *state, FILE *f);
  int (*load)(void *state, const agglo_system *s, FILE *f, char *err, size_t errlen);
  void (*destroy)(void *state);
  /* 1: the model chooses its own step and sets s->t; outputs are then scheduled by time and
     the run ends when the step reports finished */
  int variable_step;
  /* optional, variable-step models that can end a step at any time (event driven): the next
     step ends at t at the latest (the driver's next scheduled output or agglo_sim_run_until's
     time; INFINITY: no bound), so that outputs fall on their times exactly */
  void (*until)(void *state, double t);
  /* the model's own cluster labels (e.g. linked components) into s->cluster, if not NULL */
  int (*labels)(const void *state, agglo_system *s, size_t *n_clusters, size_t *max_size);
  /* optional, for models whose clusters are state (they stick for ever): join the clusters of
     particles i and j of a start from a file's clusters (particles.from), touching (a contact,
     as at a collision) or not (the file says they are one cluster); such a model refuses a file
     without a cluster column. 0, or -1 out of memory */
  int (*join)(void *state, const agglo_system *s, int32_t i, int32_t j, int touching);
  /* optional: links to draw on snapshots (e.g. glued pairs, darker = stronger), valid until the
     next step */
  int (*links)(void *state, agglo_link_lines *out);
  /* optional: obstacles to draw on snapshots at the system's time (walls as segments clipped to
     the box, spheres as discs), valid until the next call */
  int (*obstacles)(void *state, const agglo_system *s, agglo_obstacle_shapes *out);
  /* optional: extra stats.csv columns (also H5MD observables): their names as ",a,b", their
     count, the printf format of each (of a double: "%.0f" for a count), and their values after
     the last step as numbers (has[k] = 0: none yet, an empty cell); the driver prints them and
     refuses a non-finite one (the dynamics blew up) */
  const char *stats_columns;
  size_t stats_count;
  const char *const *stats_formats;
  void (*stats_numbers)(const void *state, double *values, int *has);
  /* optional: a stats.csv row has taken those numbers (once per row): the model's counts since
     the previous row (e.g. DPD's bridges formed and broken) start again */
  void (*stats_taken)(void *state);
  /* optional: each particle's species (storage order of s) into out; 1 if the run has several
     species, 0 (out untouched) if one */
  int (*species)(const void *state, const agglo_system *s, int32_t *out);
  /* optional: a warning about the run as a whole at its end (e.g. a temperature off its target);
     1 with the message in msg, else 0 */
  int (*final_warning)(const void *state, char *msg, size_t n);
  /* optional: can the run go on from a new state set between steps (agglo_sim_set_state), the
     model's state being made again by init? NULL if it can (its memory only speeds it up, as a
     warm start, or follows from the particles), else why not; without it: not */
  const char *(*new_state_refused)(const void *state);
  /* optional: a warning about the settings at the start of the run (e.g. a thermostat that
     cannot hold the temperature), naming the setting that would; 1 with msg, else 0 */
  int (*start_warning)(const void *state, char *msg, size_t n);
  /* optional: what a step changes of the model's state, kept before every step (keep, cheap:
     0, or -1 out of memory) and put back when the step is given up at a stop request (undo),
     leaving the state a restart from the step before would make. Without them the driver keeps
     the restart bytes before a step that may last (core/simulation.c) */
  int (*keep)(void *state);
  void (*undo)(void *state);
  /* optional: the box as the model's state has it (e.g. DPD's Lees-Edwards offset shear_x, a
     function of the step) into b; called by agglo_model_box */
  void (*box)(const void *state, agglo_box *b);
} agglo_model;

/* The system's box as the model's state has it (model->box), set whenever that state is made or
   read back (init, a restart's load, a step given up), so that nothing between then and the
   next step -- analysis, outputs, pictures, the first force evaluation -- sees a stale box. */
static inline void agglo_model_box(const agglo_model *m, const void *state, agglo_system *s) {
  if (m->box && state) m->box(state, &s->box);
}

/* For a model's load: can f still hold cnt records of `fields` numbers each? A record line takes
   at least 2 bytes a number (a digit, then a blank or its newline: "0 1\n" is a pair), so that a
   corrupt count cannot turn into a huge allocation while every written count passes. */
static inline int agglo_load_count_fits(FILE *f, size_t cnt, int fields) {
  long here = ftell(f), end = -1;
  if (here >= 0 && fseek(f, 0, SEEK_END) == 0) end = ftell(f), fseek(f, here, SEEK_SET);
  return !(end >= here && here >= 0) || cnt <= (size_t)(end - here) / (2 * (size_t)fields) + 1;
}

/* A model as the registry (models.c) lists it: what run.model names, the keys it owns and reads,
   their checks, its set-up and its dynamics. Each is defined in src/models/<model>_config.c;
   docs/architecture.md walks through adding one. */
/* What a random placement's candidate must not overlap (a model's fixed obstacles): blocked
   gives the name of what the particle of centre x and radius r overlaps, or NULL. */
typedef struct {
  void *ctx;
  const char *(*blocked)(void *ctx, const double *x, double r);
  void (*release)(void *ctx);
} agglo_placement_filter;

typedef struct agglo_model_entry {
  const char *name;        /* the value of run.model */
  const char *help;        /* what it is, in the meaning of run.model (`agglo run --help`) */
  const char *description; /* `agglo list`: a few lines (the app indents the next ones) */
  const agglo_key *keys;   /* its own keys (config/keys.h), in the order of --help */
  size_t n_keys;
  /* the size of its settings struct, the OWN(member) of its keys (agglo_model_settings) */
  size_t settings_size;
  /* optional: its keys renamed (config/keys.h), refused with a message naming the new name */
  const agglo_renamed_key *renamed;
  size_t n_renamed;
  /* keys of other tables it reads besides the shared ones ("section." or "section.key",
     blank-separated), and shared keys it does not read: a key set for a model that does not
     read it is refused (agglo_config_validate) */
  const char *also_reads, *ignores;
  /* its keys a restart point fixes (same form; e.g. those of the initial state only): a restart
     that changes one is refused (agglo_config_check_restart), the others take effect from its
     first step */
  const char *fixed_on_restart;
  /* its paper counts boxes on a grid over the whole box (analysis.box_counting = auto takes the
     box grid; otherwise the square holding the cluster) */
  int box_grid;
  /* optional: checks across its keys, after the shared ones (rmax: the largest radius given) */
  int (*validate)(const agglo_config *c, double rmax, char *err, size_t errlen);
  /* optional: how far beyond contact its particles attract (a periodic box must be wider than
     twice the interaction range) */
  double (*attraction_range)(const agglo_config *c);
  /* optional set-up (core/setup.c), in this order: each particle's radius and mass over those of
     [particles] (before the box is sized); a region of the box for the random placement (left
     NULL: the whole box); the start after the placement (initial velocities, given positions) */
  void (*radius_mass)(const agglo_config *c, size_t i, size_t n, double *r, double *m);
  int (*placement_region)(const agglo_config *c, const agglo_system *s, const double **region,
                          char *err, size_t errlen);
  /* and what a candidate of the placement must not overlap (its obstacles at t = 0): f filled
     in, f->release called by the set-up */
  int (*placement_filter)(const agglo_config *c, const agglo_system *s, agglo_placement_filter *f,
                          char *err, size_t errlen);
  int (*start)(agglo_system *s, const agglo_config *c, char *err, size_t errlen);
  /* the runtime table of a scenario (e.g. by ballistic.method) */
  const agglo_model *(*dynamics)(const agglo_config *c);
  /* optional: the overlap a user's start may have, in units of the smallest radius (NULL: any,
     soft particles) */
  double (*overlap_tolerance)(const agglo_config *c);
  /* optional: a short account of the settings it derives (agglo_config_print_summary) */
  void (*describe)(const agglo_config *c, FILE *f);
  /* optional: the species of the particle of id `id` among n that its settings give (0 when
     there is one); the pictures of a frame with ids but no species ask it (picture.color) */
  int (*species_of)(const agglo_config *c, int64_t id, size_t n);
} agglo_model_entry;

/* The registry (models.c): its k-th model (k from 0), NULL past the last; the model called
   name, or NULL; the place of m (the same on every MPI rank), or -1. */
const agglo_model_entry *agglo_model_at(size_t k);
const agglo_model_entry *agglo_model_named(const char *name);
int agglo_model_index(const agglo_model_entry *m);
/* m's domain decomposition (src/mpi/; in libagglo_mpi only), run on every rank: sim on rank 0,
   c the settings. NULL: m runs on one rank. */
typedef agglo_status (*agglo_parallel_driver)(agglo_sim *sim, const agglo_config *c);
agglo_parallel_driver agglo_model_parallel(const agglo_model_entry *m);
/* The runtime table of a scenario: c->model->dynamics(c). */
const agglo_model *agglo_model_select(const agglo_config *c);
/* Model m's own settings in c: its settings struct (src/models/<model>_config.h), in c's room for
   the models after those of the models before it in the registry (each model's <model>_config.h
   wraps these as agglo_<model>_of and agglo_<model>_edit). agglo_model_settings_offset is its
   place in that room, SIZE_MAX if m is not in the registry or does not fit the room. */
const void *agglo_model_settings(const agglo_config *c, const agglo_model_entry *m);
void *agglo_model_settings_edit(agglo_config *c, const agglo_model_entry *m);
size_t agglo_model_settings_offset(const agglo_model_entry *m);
/* s->species from the model's species hook, once its state is made (NULL: one species), so that
   the pictures and writers read species from the system. 0, or -1 out of memory. */
int agglo_model_fill_species(const agglo_model *m, const void *state, agglo_system *s);

#endif
