/* Triggers: when a writer writes (io/trigger.h). */
#include "io/trigger.h"
#include "config/config.h"
#include <math.h>

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

/* ---- triggers ---------------------------------------------------------------------------- */

agglo_trigger agglo_trigger_periodic(double interval, double dt, int by_time) {
  return (agglo_trigger){.by_time = by_time, .dt = dt, .every = by_time ? 0 : agglo_schedule_every(interval, dt),
                         .interval = interval > 0 ? interval : 0};
}

agglo_trigger agglo_trigger_steps(int64_t steps) {
  return (agglo_trigger){.every = steps > 0 ? steps : 0, .dt = 1};
}

agglo_trigger agglo_trigger_times(const double *times, size_t n, double dt, int by_time) {
  return (agglo_trigger){.by_time = by_time, .dt = dt, .times = times, .n_times = n};
}

/* Is the list's next time reached at (step, time)? */
static int time_reached(const agglo_trigger *t, size_t k, int64_t step, double time) {
  if (k >= t->n_times) return 0;
  if (t->by_time) return time >= t->times[k] * (1 - 1e-12);
  return step >= agglo_schedule_step(t->times[k], t->dt);
}

int agglo_trigger_would_fire(const agglo_trigger *t, int64_t step, double time, int final) {
  int periodic;
  if (t->by_time)
    periodic = (t->interval > 0 && time >= t->next * (1 - 1e-12)) ||
               (t->interval <= 0 && t->every_step_when_zero) || (t->every && step % t->every == 0);
  else
    periodic = t->every ? step % t->every == 0 : t->every_step_when_zero;
  return periodic || (t->at_end && final) || (t->at_start && step == 0) ||
         time_reached(t, t->next_time, step, time);
}

int agglo_trigger_fire(agglo_trigger *t, int64_t step, double time, int final) {
  int fired;
  if (t->by_time) /* the next time moves on whatever else fires */
    fired = agglo_schedule_due(time, t->interval, &t->next) || (t->interval <= 0 && t->every_step_when_zero) ||
            (t->every && step % t->every == 0);
  else
    fired = t->every ? step % t->every == 0 : t->every_step_when_zero;
  fired |= (t->at_end && final) || (t->at_start && step == 0);
  if (time_reached(t, t->next_time, step, time)) { /* several times within one step: one record */
    fired = 1;
    while (time_reached(t, t->next_time, step, time)) t->next_time++;
  }
  return fired;
}

double agglo_trigger_next_time(const agglo_trigger *t) {
  double at = INFINITY;
  if (t->by_time && t->interval > 0) at = t->next;
  if (t->next_time < t->n_times) at = fmin(at, t->times[t->next_time]);
  return at;
}

void agglo_trigger_resume(agglo_trigger *t, int64_t step, double time, int continuing) {
  /* the schedule of an uninterrupted run: by time, the multiples of the interval after now */
  t->next = continuing && t->by_time ? (t->interval > 0 ? agglo_schedule_next(time, t->interval) : 0) : time;
  t->next_time = 0;
  while (t->next_time < t->n_times &&
         (t->by_time ? (continuing ? t->times[t->next_time] <= time : t->times[t->next_time] < time)
                     : agglo_schedule_step(t->times[t->next_time], t->dt) < step + continuing))
    t->next_time++;
}
