/* The DPD model's settings: the keys of [dpd] (dpd_config.c, docs/dpd.md). It also reads the
   shared [parallel]. */
#ifndef AGGLO_MODELS_DPD_CONFIG_H
#define AGGLO_MODELS_DPD_CONFIG_H
#include "core/model.h"

enum { DPD_UNITS_REDUCED = 0, DPD_UNITS_SI = 1 };
enum { DPD_NOISE_UNIFORM = 0, DPD_NOISE_GAUSSIAN = 1 };
enum { DPD_BRIDGE_MEMORY = 0, DPD_BRIDGE_ALWAYS = 1 };
enum { DPD_THERMO_DPD = 0, DPD_THERMO_TRANSVERSE = 1, DPD_THERMO_LANGEVIN = 2 };
enum { DPD_STRESS_AUTO = 0, DPD_STRESS_ON = 1, DPD_STRESS_OFF = 2 };
enum { DPD_COUNTS_AUTO = 0, DPD_COUNTS_ON = 1, DPD_COUNTS_OFF = 2 };

typedef struct {
  int units, conservative, noise, cap_volume;
  double a, gamma, kT, rc, lambda;
  agglo_list species, a_ij, gamma_ij;
  double hamaker, vdw_a, surface_tension, contact_angle, fill_angle;
  double edl_charge, edl_debye, edl_permittivity;
  double lj_epsilon, lj_sigma, lj_rmin;
  double min_gap, core_k, agglomerate_gap;
  int thermostat, cap_bridge, lj_shift;
  double transverse_ratio, langevin_gamma, core_damping;
  int stress_tensor; /* DPD_STRESS_*: the pressure tensor's stats.csv columns (dpd_stress.h) */
  double shear_rate; /* Lees-Edwards shear rate gamma_dot (dpd_shear.h); 0 = none */
  int bridge_counts; /* DPD_COUNTS_*: stats.csv's bridges_formed and bridges_broken */
  /* species (docs/dpd.md): per species, and per species pair (upper triangle) */
  agglo_list species_radius, species_mass;
  agglo_enum_list conservative_ij;
  agglo_list rc_ij, hamaker_ij, surface_tension_ij, lj_epsilon_ij, lj_sigma_ij;
  agglo_list vdw_a_ij, edl_charge_product_ij, edl_debye_ij;
} agglo_dpd_settings;

/* its entry in the registry (core/model.h), its dynamics (DPD-VV, dpd_model.c) and its domain
   decomposition (src/mpi/dpd_domain.c, only in libagglo_mpi) */
extern const struct agglo_model_entry agglo_dpd_entry;
extern const struct agglo_model agglo_model_dpd;
/* the runtime table of a scenario: agglo_model_dpd, or with the pressure tensor's columns */
const struct agglo_model *agglo_dpd_dynamics(const agglo_config *c);
agglo_status agglo_dpd_run_parallel(agglo_sim *sim, const agglo_config *c);
/* Some species pair holds capillary bridges with memory (dpd.capillary_bridge = memory). */
int agglo_dpd_memory_bridges(const agglo_config *c);
/* stats.csv has the columns bridges_formed and bridges_broken (dpd.bridge_counts: on, or auto
   with bridges with memory). */
int agglo_dpd_bridge_counts(const agglo_config *c);

/* its settings in c, at the place the registry gives them (agglo_model_settings, core/model.h) */
static inline const agglo_dpd_settings *agglo_dpd_of(const agglo_config *c) {
  return agglo_model_settings(c, &agglo_dpd_entry);
}
static inline agglo_dpd_settings *agglo_dpd_edit(agglo_config *c) {
  return agglo_model_settings_edit(c, &agglo_dpd_entry);
}

#endif
