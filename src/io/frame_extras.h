/* What a trajectory frame carries besides the particles' state (agglo_system): the units of the
   file, the observables at the frame's step and the particles' species. The trajectory readers
   fill it, agglo_trajectory_convert hands it from one format to the other (docs/formats.md). */
#ifndef AGGLO_IO_FRAME_EXTRAS_H
#define AGGLO_IO_FRAME_EXTRAS_H
#include "io/units.h"
#include <stdint.h>
#include <stdlib.h>

enum { AGGLO_MAX_OBSERVABLES = 96, AGGLO_OBSERVABLE_NAME = 64 };

typedef struct {
  agglo_units units;   /* unknown when the file does not say */
  size_t nobs;         /* observables of this frame */
  char names[AGGLO_MAX_OBSERVABLES][AGGLO_OBSERVABLE_NAME];
  double values[AGGLO_MAX_OBSERVABLES];
  int32_t *species;    /* one per particle (NULL: the file has none) */
} agglo_frame_extras;

static inline void agglo_frame_extras_free(agglo_frame_extras *e) {
  free(e->species);
  e->species = NULL;
  e->nobs = 0;
}

#endif
