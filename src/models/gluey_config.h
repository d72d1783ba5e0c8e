/* The gluey model's settings: the keys of [gluey] and [obstacles] (gluey_config.c,
   docs/gluey.md). It also reads the shared [gravity] and [solver]. */
#ifndef AGGLO_MODELS_GLUEY_CONFIG_H
#define AGGLO_MODELS_GLUEY_CONFIG_H
#include "core/model.h"

enum { GLUEY_ROWS_EQUALITY = 0, GLUEY_ROWS_BOUNDED = 1, GLUEY_ROWS_KEEP = 2 };

typedef struct {
  double gamma_min, skin;
  int radius_weighting, glued_rows;
  agglo_list force_times, force, region, positions, velocities;
  /* [obstacles] (gluey_obstacles.c) */
  agglo_list obs_planes, obs_segments, obs_spheres, obs_box, obs_wheel;
} agglo_gluey_settings;

/* its entry in the registry (core/model.h) and its dynamics (gluey_model.c) */
extern const struct agglo_model_entry agglo_gluey_entry;
extern const struct agglo_model agglo_model_gluey;

/* its settings in c, at the place the registry gives them (agglo_model_settings, core/model.h) */
static inline const agglo_gluey_settings *agglo_gluey_of(const agglo_config *c) {
  return agglo_model_settings(c, &agglo_gluey_entry);
}
static inline agglo_gluey_settings *agglo_gluey_edit(agglo_config *c) {
  return agglo_model_settings_edit(c, &agglo_gluey_entry);
}

#endif
