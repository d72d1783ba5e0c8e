/* The ballistic model's settings: the keys of [ballistic] (ballistic_config.c). */
#ifndef AGGLO_MODELS_BALLISTIC_CONFIG_H
#define AGGLO_MODELS_BALLISTIC_CONFIG_H
#include "core/model.h"
#include <stdint.h>

enum { BALL_TIME_STEPPING = 0, BALL_EVENT_DRIVEN = 1 };
enum { BALL_VEL_UNIFORM = 0, BALL_VEL_UNIT = 1 };
enum { BALL_STOP_ONE_CLUSTER = 0, BALL_STOP_T_END = 1 };

typedef struct {
  int method, velocity, stop;
  double speed, dt_factor, tol, window;
  double dah_alpha, dah_beta, dah_gamma, dah_c; /* the damped Arrow-Hurwicz minimiser */
  int64_t dah_max_iter;
} agglo_ballistic_settings;

/* its entry in the registry (core/model.h) and its dynamics by ballistic.method */
extern const struct agglo_model_entry agglo_ballistic_entry;
extern const struct agglo_model agglo_model_ballistic;    /* time stepping (ballistic_model.c) */
extern const struct agglo_model agglo_model_ballistic_ed; /* event driven (ballistic_event_driven.c) */

/* its settings in c, at the place the registry gives them (agglo_model_settings, core/model.h) */
static inline const agglo_ballistic_settings *agglo_ballistic_of(const agglo_config *c) {
  return agglo_model_settings(c, &agglo_ballistic_entry);
}
static inline agglo_ballistic_settings *agglo_ballistic_edit(agglo_config *c) {
  return agglo_model_settings_edit(c, &agglo_ballistic_entry);
}

#endif
