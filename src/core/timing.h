/* Wall-clock and CPU seconds, for timings reported beside the results (never inside them). */
#ifndef AGGLO_TIMING_H
#define AGGLO_TIMING_H
#include <time.h>

static inline double agglo_clock_seconds(clockid_t clock) {
  struct timespec ts;
  clock_gettime(clock, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
/* Monotonic wall-clock time. */
static inline double agglo_wall_seconds(void) { return agglo_clock_seconds(CLOCK_MONOTONIC); }
/* CPU time of the process (every thread). */
static inline double agglo_cpu_seconds(void) { return agglo_clock_seconds(CLOCK_PROCESS_CPUTIME_ID); }

#endif
