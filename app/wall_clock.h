/* Wall-clock seconds for the CLI's progress and timings (the library's own clock is
   src/core/timing.h; app/ includes only include/agglo and its own headers). */
#ifndef AGGLO_APP_WALL_CLOCK_H
#define AGGLO_APP_WALL_CLOCK_H
#include <time.h>

static inline double agglo_cli_wall_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

#endif
