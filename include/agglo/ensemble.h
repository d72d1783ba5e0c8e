/* agglo ensembles: one scenario run over seeds x a grid of varied keys, each member in its own
   directory, and the statistics over seeds (docs/ensembles.md).

       agglo_ensemble *e;
       agglo_ensemble_new(cfg, "ens", &e);
       agglo_ensemble_set_seeds(e, "1-20");
       agglo_ensemble_vary(e, "particles.fraction", "0.1,0.2");
       agglo_ensemble_prepare(e, AGGLO_ENSEMBLE_NEW);  (or _RESUME: keep finished members)
       for (size_t i = 0; i < agglo_ensemble_count(e); i++)
         if (!agglo_ensemble_member_done(e, i)) agglo_ensemble_run_member(e, i, NULL, NULL);
       agglo_ensemble_write_summary(e, &failed);      (ensemble.csv, members.csv)
       agglo_ensemble_destroy(e);

   Members are independent: any process may run any member, in any order (the command line
   hands them to forked processes or MPI ranks), and a member's files depend only on its settings.
   A member that fails (a bad value of the grid, a run that trips a guard) leaves a `failed`
   marker with its message; a finished one a `done` marker, written atomically after its outputs,
   listing them with their sizes: a member is complete while its files are those the marker lists.
   The summary is read from the members' directories. A directory is held by one process at a
   time (DIR/agglo.lock, docs/reliability.md): the ensemble's by the process that prepared it, a
   member's by the process that runs it. */
#ifndef AGGLO_ENSEMBLE_H
#define AGGLO_ENSEMBLE_H
#include "agglo.h"

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default)

typedef struct agglo_ensemble agglo_ensemble;

/* An ensemble of the scenario base (copied), written under dir. */
agglo_status agglo_ensemble_new(const agglo_config *base, const char *dir, agglo_ensemble **out);
void agglo_ensemble_destroy(agglo_ensemble *e);
/* Seeds: "1-20", "7", "1,4,10-12" (>= 0, no repeats). Default: 1-10. */
agglo_status agglo_ensemble_set_seeds(agglo_ensemble *e, const char *spec);
/* Vary a key over values "v1,v2,..." (';' separates instead when a value holds commas:
   "1,1;2,2"). Each call adds a dimension to the grid (the first is the outermost). An unknown
   key is an error here; a bad value is the failure of the members that use it. */
agglo_status agglo_ensemble_vary(agglo_ensemble *e, const char *key, const char *values);
/* The writers of every member (AGGLO_OUTPUT_*; default AGGLO_OUTPUT_ALL; 0: only scenario.ini
   and the marker). */
agglo_status agglo_ensemble_set_outputs(agglo_ensemble *e, unsigned which);

/* How agglo_ensemble_prepare treats dir. */
enum {
  AGGLO_ENSEMBLE_NEW = 0,       /* dir must not hold an ensemble, its members or a run's outputs */
  AGGLO_ENSEMBLE_RESUME = 1,    /* dir must hold this ensemble (same base and grid); its
                                   complete members are kept */
  AGGLO_ENSEMBLE_JOIN = 2,      /* as RESUME, without holding dir: a process that runs members
                                   of an ensemble another process prepared and holds (MPI ranks,
                                   the jobs of a batch array) */
  AGGLO_ENSEMBLE_OVERWRITE = 3  /* as NEW, but a run's outputs in dir are deleted and an earlier
                                   ensemble there is replaced: its summary and the markers of
                                   this grid's members go (files agglo did not write stay) */
};
/* Fix the grid and make dir, with base.ini and grid.txt that describe it; except with JOIN, hold
   dir until agglo_ensemble_destroy (another process holding it is refused, naming its pid). */
agglo_status agglo_ensemble_prepare(agglo_ensemble *e, int mode);

/* Members: points of the grid (outer) x seeds (inner). */
size_t agglo_ensemble_count(const agglo_ensemble *e);
/* "key=value/.../seed=S": the member's directory under dir. */
const char *agglo_ensemble_member_name(const agglo_ensemble *e, size_t i);
/* 1 when the member has finished: its `done` marker exists and every file it lists has the
   size it lists; else 0. */
int agglo_ensemble_member_done(const agglo_ensemble *e, size_t i);
/* 1 done, -1 failed (its `failed` marker exists), 0 not run, interrupted or changed since. */
int agglo_ensemble_member_state(const agglo_ensemble *e, size_t i);
/* Run member i into its directory: settings = base + its values + its seed; writers attached;
   run to run.t_end (or until the model is finished); final indicators; marker. fn (may be NULL)
   is called after every step, as agglo_sim_set_callback's (a non-zero return stops the member,
   which then counts as failed). Returns AGGLO_OK when the member succeeded, its error status when
   it failed (its marker says why), or AGGLO_ERROR_IO when the marker cannot be written or
   another process holds the member's directory (then nothing is written). */
agglo_status agglo_ensemble_run_member(agglo_ensemble *e, size_t i, agglo_callback fn, void *user);
/* Mark member i failed with a message (e.g. its process died), unless it has a marker. */
agglo_status agglo_ensemble_mark_failed(agglo_ensemble *e, size_t i, const char *message);

/* From the members' directories: dir/members.csv (one row per member: its values, seed, status,
   final indicators, error, CPU and wall seconds) and dir/ensemble.csv (per grid point and output
   time: mean, sd, se, min, max over the successful members of every stats.csv column). *failed
   receives the count of members that failed or have not run. */
agglo_status agglo_ensemble_write_summary(agglo_ensemble *e, size_t *failed);

/* `agglo compare`'s report over an ensemble that varies ballistic.method (time_stepping,
   event_driven) and nothing else: mean (sd) over seeds of N_c, D_f, A_r, P(r), time to one
   cluster, CPU time, into *text (free it with agglo_free); one row per member into the file
   csv_path (NULL: none). After the members ran. */
agglo_status agglo_ensemble_compare_report(const agglo_ensemble *e, char **text,
                                           const char *csv_path);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif
