/* The dlca model's settings: the keys of [dlca] (dlca_config.c). */
#ifndef AGGLO_MODELS_DLCA_CONFIG_H
#define AGGLO_MODELS_DLCA_CONFIG_H
#include "core/model.h"
#include <stdint.h>
#include <stdio.h>

enum { DLCA_STOP_CLUSTERS = 0, DLCA_STOP_T_END = 1 };
enum { DLCA_UNITS_REDUCED = 0, DLCA_UNITS_SI = 1 };
enum { DLCA_ROTATION_OFF = 0, DLCA_ROTATION_ON = 1 };
enum { DLCA_GROUPED_OFF = 0, DLCA_GROUPED_ON = 1 };
enum { DLCA_MOBILITY_ADJUSTED_SPHERE = 0, DLCA_MOBILITY_SPHERE = 1 }; /* = AGGLO_MOBILITY_* */

typedef struct {
  double diffusion, persistence, probability, window, window_max;
  double mobility_fractal_dimension, area_exponent, knudsen; /* the mobility law */
  int stop, units, rotation, grouped_flights, mobility;
  int64_t clusters;
  double temperature, pressure, viscosity, gas_molar_mass, density; /* units = si */
} agglo_dlca_settings;

/* What the mobility law and the gas give a cluster (docs/dlca.md), in the run's units. Its
   flights: velocities Maxwellian (kT/m per component), durations exponential of mean tau. */
typedef struct {
  double D;           /* diffusion coefficient kT / f */
  double tau;         /* velocity relaxation time m / f: the mean duration of a flight */
  double kT_m;        /* kT / m, the variance of each velocity component */
  double persistence; /* mean thermal speed x tau, the mean length of a flight */
  double friction;    /* f: SI in kg/s; reduced in units of the reference particle's */
  double radius;      /* continuum mobility radius R_m = a N^(1/D_fm) (rotation, the reach) */
} agglo_dlca_motion;

struct agglo_config;
/* The motion of a cluster of n particles of total mass m (the rule of docs/dlca.md). */
agglo_dlca_motion agglo_dlca_mobility(const struct agglo_config *c, double n, double m);
/* The mass of a particle of radius particles.radius (SI: from dlca.density when given). */
double agglo_dlca_reference_mass(const struct agglo_config *c);
/* SI: the gas's viscosity (dlca.viscosity, or Sutherland's law for air at dlca.temperature) and
   mean free path. */
double agglo_dlca_viscosity(const struct agglo_config *c);
double agglo_dlca_mean_free_path(const struct agglo_config *c);
/* What the settings give a particle of the reference radius (agglo_config_print_summary). */
void agglo_dlca_describe(const struct agglo_config *c, FILE *f);

/* its entry in the registry (core/model.h) and its dynamics (dlca_model.c) */
extern const struct agglo_model_entry agglo_dlca_entry;
extern const struct agglo_model agglo_model_dlca;

/* its settings in c, at the place the registry gives them (agglo_model_settings, core/model.h) */
static inline const agglo_dlca_settings *agglo_dlca_of(const agglo_config *c) {
  return agglo_model_settings(c, &agglo_dlca_entry);
}
static inline agglo_dlca_settings *agglo_dlca_edit(agglo_config *c) {
  return agglo_model_settings_edit(c, &agglo_dlca_entry);
}

#endif
