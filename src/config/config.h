/* Scenario settings: one table of keys (type, default, allowed range, meaning) drives the INI
   reader, the -s overrides, `agglo run --help`, docs/config.md and the resolved scenario file. */
#ifndef AGGLO_CONFIG_H
#define AGGLO_CONFIG_H
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "agglo/agglo.h"

#define AGGLO_LIST_MAX 64
#define AGGLO_PATH_MAX 1024
typedef struct { double v[AGGLO_LIST_MAX]; int n; } agglo_list;
typedef struct { int v[AGGLO_LIST_MAX]; int n; } agglo_enum_list;

/* Component k of a per-axis list given with one value (all axes) or one per axis; 0 if empty. */
static inline double agglo_list_component(const agglo_list *l, int k) {
  return l->n == 0 ? 0 : (l->n == 1 ? l->v[0] : l->v[k]);
}

enum { MODEL_CONTACT = 0, MODEL_BALLISTIC = 1, MODEL_DPD = 2, MODEL_GLUEY = 3 };
enum { DPD_UNITS_REDUCED = 0, DPD_UNITS_SI = 1 };
enum { DPD_NOISE_UNIFORM = 0, DPD_NOISE_GAUSSIAN = 1 };
enum { DPD_BRIDGE_MEMORY = 0, DPD_BRIDGE_ALWAYS = 1 };
enum { DPD_THERMO_DPD = 0, DPD_THERMO_TRANSVERSE = 1, DPD_THERMO_LANGEVIN = 2 };
enum { BALL_TIME_STEPPING = 0, BALL_EVENT_DRIVEN = 1 };
enum { BALL_VEL_UNIFORM = 0, BALL_VEL_UNIT = 1 };
enum { BALL_STOP_ONE_CLUSTER = 0, BALL_STOP_T_END = 1 };
enum { PLACE_RANDOM = 0, PLACE_LATTICE = 1 };
enum { MASS_VOLUME = 0, MASS_UNIFORM = 1 };
enum { CROSS_AUTO = 0, CROSS_GATHER = 1, CROSS_SPREAD = 2 };
enum { ON_FAILURE_WARN = 0, ON_FAILURE_STOP = 1 };
enum { GLUEY_ROWS_EQUALITY = 0, GLUEY_ROWS_BOUNDED = 1, GLUEY_ROWS_KEEP = 2 };
enum { FLOW_NONE = 0, FLOW_UNIFORM, FLOW_SHEAR, FLOW_OSC_SHEAR, FLOW_POISEUILLE, FLOW_VORTEX };
enum { ATTR_SQRT_H = 0, ATTR_H = 1 };
enum { AGGLO_FORMAT_XYZ = 0, AGGLO_FORMAT_H5MD = 1 };
enum { AGGLO_CHECKPOINT_TEXT = 0, AGGLO_CHECKPOINT_HDF5 = 1 };

typedef struct agglo_config {
  /* [run] */
  int model, dim;
  int64_t seed;
  double t_end, dt;
  /* [particles] */
  int64_t n;
  double radius, radius_spread, mass;
  agglo_list radii;
  int mass_rule, placement;
  double fraction;
  /* [box] */
  agglo_list size;
  agglo_enum_list boundary;
  /* [drag] */
  double tau, viscosity;
  /* [flow] */
  int flow;
  double flow_rate, flow_omega;
  agglo_list flow_velocity;
  /* [attraction] */
  double kappa, epsilon, attraction_cutoff;
  int attraction_scaling;
  /* [brownian] */
  double sigma;
  /* [gravity] */
  agglo_list gravity;
  /* [solver] */
  int solver;
  double solver_tol, rho_factor, compliance;
  int64_t max_iter;
  int on_failure;
  /* [ballistic] */
  int ball_method, ball_velocity, ball_stop;
  double ball_speed, ball_dt_factor, ball_tol, ball_window;
  double dah_alpha, dah_beta, dah_gamma, dah_c;
  int64_t dah_max_iter;
  /* [dpd] (dpd_model.c, docs/dpd.md) */
  int dpd_units, dpd_conservative, dpd_noise, dpd_cap_volume;
  double dpd_a, dpd_gamma, dpd_kT, dpd_rc, dpd_lambda;
  agglo_list dpd_species, dpd_a_ij, dpd_gamma_ij;
  double dpd_hamaker, dpd_vdw_a, dpd_surface_tension, dpd_contact_angle, dpd_fill_angle;
  double dpd_edl_charge, dpd_edl_debye, dpd_edl_permittivity;
  double dpd_lj_epsilon, dpd_lj_sigma, dpd_lj_rmin;
  double dpd_min_gap, dpd_core_k, dpd_agglomerate_gap;
  int dpd_thermostat, dpd_cap_bridge;
  double dpd_transverse_ratio, dpd_langevin_gamma;
  /* species (docs/dpd.md): per species, and per species pair (upper triangle) */
  agglo_list dpd_species_radius, dpd_species_mass;
  agglo_enum_list dpd_conservative_ij;
  agglo_list dpd_rc_ij, dpd_hamaker_ij, dpd_surface_tension_ij, dpd_lj_epsilon_ij, dpd_lj_sigma_ij;
  agglo_list dpd_vdw_a_ij, dpd_edl_charge_product_ij, dpd_edl_debye_ij;
  agglo_list parallel_grid; /* px py pz of a domain-decomposed run (mpirun); empty = chosen */
  int parallel_crossing;     /* contact components across ranks: CROSS_AUTO, _GATHER, _SPREAD */
  /* [gluey] (gluey_model.c, docs/gluey.md) */
  double gluey_gamma_min, gluey_skin;
  int gluey_radius_weighting, gluey_glued_rows;
  agglo_list gluey_force_times, gluey_force, gluey_region, gluey_positions, gluey_velocities;
  /* [obstacles] (gluey_obstacles.c; used by the gluey model) */
  agglo_list obs_planes, obs_segments, obs_spheres, obs_box, obs_wheel;
  /* [output] */
  double trajectory_interval, stats_interval, analysis_interval;
  agglo_list snapshots;
  int64_t png_width;
  int traj_format; /* output.format: AGGLO_FORMAT_XYZ or AGGLO_FORMAT_H5MD */
  double checkpoint_minutes, checkpoint_interval; /* restart points: wall clock, simulated time */
  int checkpoint_format; /* output.checkpoint_format: AGGLO_CHECKPOINT_TEXT or AGGLO_CHECKPOINT_HDF5 */
  int64_t h5md_deflate; /* output.compression */
  /* [picture] (picture.c, docs/pictures.md) */
  int pic_style, pic_projection, pic_color, pic_monomers, pic_box;
  agglo_list pic_view, pic_up, pic_light, pic_slab_normal, pic_slab_center;
  double pic_fov, pic_zoom, pic_fog, pic_slab_width, pic_speed_max;
  char from[AGGLO_PATH_MAX]; /* particles.from: start from a file's particles ("" = none) */
  int64_t from_frame;        /* particles.frame (0 = the last) */
} agglo_config;

/* Where a setting came from, for messages: "file.ini:12" or "-s". */
typedef struct { char where[512]; } agglo_origin;

void agglo_config_defaults(agglo_config *c);
/* Read an INI file over the current settings. Returns 0, or -1 with "file:line: ..." in err. */
int agglo_config_read_file(agglo_config *c, const char *path, char *err, size_t errlen);
/* Apply "section.key=value". Returns 0, or -1 with a message in err. */
int agglo_config_read_assignment(agglo_config *c, const char *assignment, char *err, size_t errlen);
/* Checks that involve several keys (box vs packing fraction, time step vs radius, ...). */
int agglo_config_validate(const agglo_config *c, char *err, size_t errlen);
/* Write every key with its current value as a scenario file (reloadable). */
int agglo_config_write(const agglo_config *c, FILE *f);
/* Describe every key: markdown = 1 gives the table of docs/config.md, 0 the --help text. */
void agglo_config_print_keys(FILE *f, int markdown);
/* The built-in default scenario, as INI text. */
extern const char *agglo_default_scenario;
int agglo_config_read_string(agglo_config *c, const char *text, const char *name, char *err,
                             size_t errlen);
/* The models that read a key (bits 1 << MODEL_*; config_models.c). */
unsigned agglo_config_key_models(const char *section, const char *name);
/* One key by name ("section.key"): set from text, or its value written to f. */
int agglo_config_set_value(agglo_config *c, const char *dotted, const char *value, char *err,
                           size_t errlen);
int agglo_config_get_value(const agglo_config *c, const char *dotted, FILE *f, char *err,
                           size_t errlen);

#endif
