/* The contact model's settings: the keys of [drag], [flow], [attraction] and [brownian]
   (contact_config.c). It also reads the shared [gravity], [solver] and [parallel]. */
#ifndef AGGLO_MODELS_CONTACT_CONFIG_H
#define AGGLO_MODELS_CONTACT_CONFIG_H
#include "core/model.h"

enum { FLOW_NONE = 0, FLOW_UNIFORM, FLOW_SHEAR, FLOW_OSC_SHEAR, FLOW_POISEUILLE, FLOW_VORTEX };
enum { ATTR_SQRT_H = 0, ATTR_H = 1 };

typedef struct {
  double tau, viscosity; /* [drag] */
  int flow;              /* [flow] */
  double flow_rate, flow_omega;
  agglo_list flow_velocity;
  double kappa, epsilon, attraction_cutoff; /* [attraction] */
  int attraction_scaling;
  double sigma; /* [brownian] */
} agglo_contact_settings;

/* its entry in the registry (core/model.h), its dynamics (contact_model.c) and its domain
   decomposition (src/mpi/contact_domain.c, only in libagglo_mpi) */
extern const struct agglo_model_entry agglo_contact_entry;
extern const struct agglo_model agglo_model_contact;
agglo_status agglo_contact_run_parallel(agglo_sim *sim, const agglo_config *c);

/* its settings in c, at the place the registry gives them (agglo_model_settings, core/model.h) */
static inline const agglo_contact_settings *agglo_contact_of(const agglo_config *c) {
  return agglo_model_settings(c, &agglo_contact_entry);
}
static inline agglo_contact_settings *agglo_contact_edit(agglo_config *c) {
  return agglo_model_settings_edit(c, &agglo_contact_entry);
}

#endif
