/* The dlca model's settings: the keys of [dlca] (dlca_config.c). */
#ifndef AGGLO_MODELS_DLCA_CONFIG_H
#define AGGLO_MODELS_DLCA_CONFIG_H
#include <stdint.h>
#include <stdio.h>

enum { DLCA_STOP_CLUSTERS = 0, DLCA_STOP_T_END = 1 };
enum { DLCA_UNITS_REDUCED = 0, DLCA_UNITS_SI = 1 };
enum { DLCA_ROTATION_OFF = 0, DLCA_ROTATION_ON = 1 };
enum { DLCA_GROUPED_OFF = 0, DLCA_GROUPED_ON = 1 };

typedef struct {
  double diffusion, persistence, fractal_dimension, probability, window, window_max;
  int stop, units, rotation, grouped_flights;
  int64_t clusters;
  double temperature, pressure, viscosity, gas_molar_mass, density; /* units = si */
} agglo_dlca_settings;

struct agglo_config;
/* The diffusion coefficient D and persistence length lambda of a cluster of n particles of total
   mass m (the rule of docs/dlca.md, in the run's units); its flights are lambda long at speed
   2 dim D / lambda. */
void agglo_dlca_mobility(const struct agglo_config *c, double n, double m, double *D, double *lambda);
/* What the settings give a particle of the reference radius (agglo_config_print_summary). */
void agglo_dlca_describe(const struct agglo_config *c, FILE *f);

/* its entry in the registry (core/model.h) and its dynamics (dlca_model.c) */
extern const struct agglo_model_entry agglo_dlca_entry;
extern const struct agglo_model agglo_model_dlca;

#endif
