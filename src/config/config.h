/* Scenario settings: the shared keys and each model's own (config/keys.h: type, default, allowed
   range, meaning) drive the INI reader, the -s overrides, `agglo run --help`, docs/config.md and
   the resolved scenario file. */
#ifndef AGGLO_CONFIG_H
#define AGGLO_CONFIG_H
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "agglo/agglo.h"

#include "config/lists.h"

#define AGGLO_PATH_MAX 1024
/* The room agglo_config keeps for the models' own settings: each model's struct (its
   src/models/<model>_config.h, settings_size of its registry entry) after those of the models
   before it in the registry (agglo_model_settings, core/model.h). All of them take 13 kB; a model
   that would not fit makes agglo_config_defaults fail (test_config's settings_room): raise it. */
#define AGGLO_MODEL_SETTINGS_ROOM 32768
/* The most steps a run takes: beyond 2^53, t = step dt no longer tells the steps apart. */
#define AGGLO_MAX_STEPS ((int64_t)1 << 53)

enum { PLACE_RANDOM = 0, PLACE_LATTICE = 1 };
enum { MASS_VOLUME = 0, MASS_UNIFORM = 1 };
enum { RADII_UNIFORM = 0, RADII_LOGNORMAL = 1 };
enum { CROSS_AUTO = 0, CROSS_GATHER = 1, CROSS_SPREAD = 2 };
enum { ON_FAILURE_WARN = 0, ON_FAILURE_STOP = 1 };
enum { AGGLO_FORMAT_XYZ = 0, AGGLO_FORMAT_H5MD = 1 };
enum { AGGLO_PRECISION_SINGLE = 0, AGGLO_PRECISION_DOUBLE = 1 };
enum { AGGLO_CHECKPOINT_TEXT = 0, AGGLO_CHECKPOINT_HDF5 = 1 };

typedef struct agglo_config {
  /* [run] */
  const struct agglo_model_entry *model; /* run.model: its entry in the registry (core/model.h) */
  int dim;
  int64_t seed;
  double t_end, dt;
  /* [particles] */
  int64_t n;
  double radius, radius_spread, radius_sigma, mass;
  int radius_distribution; /* RADII_* */
  agglo_list radii;
  int mass_rule, placement;
  double fraction;
  /* [box] */
  agglo_list size;
  agglo_enum_list boundary;
  /* keys read by several models (not every one) */
  agglo_list gravity; /* [gravity] */
  int solver;         /* [solver] */
  int solver_expansion; /* agglo_expansion */
  double solver_tol, rho_factor, compliance;
  int64_t max_iter, team_rows;
  int on_failure;
  agglo_list parallel_grid; /* px py pz of a domain-decomposed run (mpirun); empty = chosen */
  int parallel_crossing;     /* contact components across ranks: CROSS_AUTO, _GATHER, _SPREAD */
  /* each model's own keys: its settings struct, placed by the registry (agglo_model_settings) */
  union {
    max_align_t align;
    unsigned char bytes[AGGLO_MODEL_SETTINGS_ROOM];
  } models;
  /* [output] */
  double trajectory_interval, stats_interval, analysis_interval;
  agglo_list snapshots;
  int64_t png_width;
  int box_counting;         /* analysis.box_counting: AGGLO_BOX_COUNTING_BOX, _BOUNDING or _AUTO */
  int64_t min_cluster_size; /* analysis.min_cluster_size (mass-radius fit) */
  int traj_format; /* output.format: AGGLO_FORMAT_XYZ or AGGLO_FORMAT_H5MD */
  double checkpoint_minutes, checkpoint_interval; /* restart points: wall clock, simulated time */
  int checkpoint_format; /* output.checkpoint_format: AGGLO_CHECKPOINT_TEXT or AGGLO_CHECKPOINT_HDF5 */
  int64_t h5md_deflate; /* output.compression */
  int h5md_precision;   /* output.precision: AGGLO_PRECISION_SINGLE or AGGLO_PRECISION_DOUBLE */
  /* [picture] (picture.c, docs/pictures.md) */
  int pic_style, pic_projection, pic_color, pic_monomers, pic_box;
  agglo_list pic_view, pic_up, pic_light, pic_slab_normal, pic_slab_center;
  double pic_fov, pic_zoom, pic_fog, pic_slab_width, pic_speed_max;
  char from[AGGLO_PATH_MAX]; /* particles.from: start from a file's particles ("" = none) */
  char from_also[AGGLO_PATH_MAX]; /* particles.from's other file beside the scenario file: refused
                                     when read (config.c, from_beside); not a key */
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
/* [gravity] for the models that read it: one value or run.dim values, and a step of free fall
   shorter than a diameter (2 rmax). */
int agglo_config_check_gravity(const agglo_config *c, double rmax, char *err, size_t errlen);
/* Write every key with its current value as a scenario file (reloadable). */
int agglo_config_write(const agglo_config *c, FILE *f);
/* Describe every key: markdown = 1 gives the table of docs/config.md, 0 the --help text. */
void agglo_config_print_keys(FILE *f, int markdown);
/* The built-in default scenario, as INI text. */
extern const char *agglo_default_scenario;
int agglo_config_read_string(agglo_config *c, const char *text, const char *name, char *err,
                             size_t errlen);
/* The settings c of a restart against run, those of the run it continues (its scenario.ini, named
   run_path): 0, or -1 naming the first key the restart point fixes (the shared ones in config.c,
   each model's in its entry's fixed_on_restart) that c changes. */
int agglo_config_check_restart(const agglo_config *run, const agglo_config *c, const char *run_path,
                               char *err, size_t errlen);
/* One key by name ("section.key"): set from text, or its value written to f. */
int agglo_config_set_value(agglo_config *c, const char *dotted, const char *value, char *err,
                           size_t errlen);
int agglo_config_get_value(const agglo_config *c, const char *dotted, FILE *f, char *err,
                           size_t errlen);

#endif
