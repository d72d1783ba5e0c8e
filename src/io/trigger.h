/* When a writer writes: its trigger. Periodic in steps, periodic in simulated time, at a list of
   times, at the run's start and at its end, in any combination. A trigger of a fixed-step model
   counts whole steps (a time is the step nearest it: agglo_schedule_step), so that every run, cut
   into calls or resumed from a restart point, fires at the same steps; a model that chooses its
   own steps (variable_step) is asked by time, within 1e-12 relative (a sum of steps drifts from a
   multiple of the interval). docs/architecture.md, "Adding a writer or a trigger". */
#ifndef AGGLO_IO_TRIGGER_H
#define AGGLO_IO_TRIGGER_H
#include <stddef.h>
#include <stdint.h>

/* The schedule's arithmetic, O(1) whatever the interval (tests/io/test_schedule.c). The step
   nearest time t at step dt (0 to AGGLO_MAX_STEPS + 1: past the last step a run takes); the steps
   between outputs every `interval` (0: interval 0, none; at least 1); the first multiple of
   interval after t (every step's time when interval is below t's precision); and whether an
   output is due at t, *next then moved past t. */
int64_t agglo_schedule_step(double t, double dt);
int64_t agglo_schedule_every(double interval, double dt);
double agglo_schedule_next(double t, double interval);
int agglo_schedule_due(double t, double interval, double *next);

typedef struct {
  int by_time;        /* the model chooses its steps: asked by time, else by step */
  double dt;          /* run.dt (steps of the times) */
  int64_t every;      /* the steps between firings (0: not periodic in steps; by time, a
                         periodic trigger is in time: every = 0) */
  int every_step_when_zero; /* periodic with interval 0 fires every step (stats.csv), else never */
  double interval;    /* by time: the time between firings (0: not periodic) */
  double next;        /* by time: the next multiple of interval */
  const double *times; /* at these times (ascending; owned by the writer), from times[next_time] */
  size_t n_times, next_time;
  int at_start;       /* also at step 0 */
  int at_end;         /* also at the run's end (the last step, a finished model, the close) */
} agglo_trigger;

/* A trigger every `interval` of simulated time (0: none) for a run of step dt; by_time for a
   model that chooses its steps. */
agglo_trigger agglo_trigger_periodic(double interval, double dt, int by_time);
/* A trigger every `steps` steps (by_time or not: steps are counted). */
agglo_trigger agglo_trigger_steps(int64_t steps);
/* A trigger at the given times (ascending; the array must outlive the trigger). */
agglo_trigger agglo_trigger_times(const double *times, size_t n, double dt, int by_time);

/* Does t fire at (step, time)? final: the run ends here. A periodic trigger by time moves its
   next time past `time` when it fires (as agglo_schedule_due), a list of times past every time
   at or before now; by step, nothing changes. */
int agglo_trigger_fire(agglo_trigger *t, int64_t step, double time, int final);
/* The same question without moving anything (fixed-step models: a step's outputs known ahead). */
int agglo_trigger_would_fire(const agglo_trigger *t, int64_t step, double time, int final);
/* By time: the next time t fires (INFINITY: none), so that an event-driven step ends there. */
double agglo_trigger_next_time(const agglo_trigger *t);
/* Set t as an uninterrupted run has it at (step, time). continuing: a restart or writers
   attached after some steps, whose current step's records belong to the earlier part of the
   run; else the current step is still to fire (the start). */
void agglo_trigger_resume(agglo_trigger *t, int64_t step, double time, int continuing);

#endif
