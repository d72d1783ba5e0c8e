/* Dimensions of agglo's quantities and their unit strings (H5MD units module grammar: symbols
   with signed powers, "1" for a pure number). */
#include "io/units.h"
#include <stdio.h>
#include <string.h>

const char *agglo_units_name(agglo_units u) {
  return u == AGGLO_UNITS_SI ? "SI" : u == AGGLO_UNITS_REDUCED ? "reduced" : NULL;
}

agglo_units agglo_units_parse(const char *name) {
  return !name ? AGGLO_UNITS_UNKNOWN
         : !strcmp(name, "SI") ? AGGLO_UNITS_SI
         : !strcmp(name, "reduced") ? AGGLO_UNITS_REDUCED
                                    : AGGLO_UNITS_UNKNOWN;
}

enum { NONE, LENGTH, TIME, VELOCITY, MASS, ENERGY, PRESSURE, GAMMA, VISCOSITY };

static const struct {
  const char *name;
  int kind;
} table[] = {
    /* particle elements and the clock */
    {"position", LENGTH}, {"edges", LENGTH}, {"radius", LENGTH}, {"velocity", VELOCITY},
    {"mass", MASS}, {"time", TIME}, {"dt", TIME},
    /* stats.csv, every model (src/io/outputs.c) */
    {"n_clusters", NONE}, {"mean_cluster_size", NONE}, {"max_cluster_size", NONE},
    {"kinetic_energy", ENERGY}, {"solver_iterations", NONE}, {"mean_solver_iterations", NONE},
    {"max_violation", LENGTH}, {"min_gap", LENGTH}, {"n_contacts", NONE}, {"converged", NONE},
    {"weight_avg_cluster_size", NONE}, {"fractal_dimension_box", NONE},
    {"fractal_dimension_mass", NONE}, {"contacts_per_sphere", NONE}, {"aspect_ratio", NONE},
    {"rg_largest", LENGTH}, {"outer_iterations", NONE},
    /* gluey (docs/gluey.md): gamma accumulates w h lambda, an impulse times w */
    {"glued_pairs", NONE}, {"glued_obstacle", NONE}, {"gamma_most_negative", GAMMA},
    {"gamma_mean", GAMMA}, {"gamma_median", GAMMA}, {"attached_fraction", NONE},
    /* dpd (docs/dpd.md): temperatures are k_B T, energies */
    {"temperature", ENERGY}, {"temperature_mean_last_half", ENERGY}, {"potential_energy", ENERGY},
    {"total_energy", ENERGY}, {"pressure", PRESSURE}, {"bound_pairs", NONE},
    /* dpd's pressure tensor (dpd.stress_tensor) and viscosity under shear */
    {"pressure_xx", PRESSURE}, {"pressure_yy", PRESSURE}, {"pressure_zz", PRESSURE},
    {"pressure_xy", PRESSURE}, {"pressure_xz", PRESSURE}, {"pressure_yz", PRESSURE},
    {"pxy_kinetic", PRESSURE}, {"pxy_conservative", PRESSURE}, {"pxy_dissipative", PRESSURE},
    {"pxy_random", PRESSURE}, {"pxy_bridge", PRESSURE}, {"viscosity", VISCOSITY},
};

int agglo_quantity_dimension(const char *name, int dim, int gamma_weighted, agglo_dimension *d) {
  if (!strncmp(name, "clusters_size_", 14)) { /* counts of the size classes (io/outputs.c) */
    *d = (agglo_dimension){0, 0, 0};
    return 0;
  }
  for (size_t k = 0; k < sizeof table / sizeof table[0]; k++) {
    if (strcmp(table[k].name, name)) continue;
    static const agglo_dimension of[] = {
        [NONE] = {0, 0, 0},   [LENGTH] = {0, 1, 0}, [TIME] = {0, 0, 1},   [VELOCITY] = {0, 1, -1},
        [MASS] = {1, 0, 0},   [ENERGY] = {1, 2, -2}, [PRESSURE] = {1, 2, -2}, [GAMMA] = {1, 1, -1},
        [VISCOSITY] = {1, 2, -1}};
    *d = of[table[k].kind];
    if (table[k].kind == PRESSURE || table[k].kind == VISCOSITY) d->length -= dim; /* energy (times
       time) per volume (per area in 2D) */
    if (table[k].kind == GAMMA && gamma_weighted) d->length -= 2; /* w = (1/r_i + 1/r_j)^2 */
    return 0;
  }
  return -1;
}

void agglo_unit_string(agglo_dimension d, agglo_units u, char *out, size_t len) {
  const char *sym[3] = {"kg", "m", "s"};
  if (u != AGGLO_UNITS_SI) sym[0] = "u", sym[1] = "Angstrom", sym[2] = "ps";
  int pow[3] = {d.mass, d.length, d.time};
  size_t at = 0;
  out[0] = 0;
  for (int k = 0; k < 3; k++) {
    if (!pow[k] || at >= len) continue;
    at += (size_t)snprintf(out + at, len - at, pow[k] == 1 ? "%s%s" : "%s%s%+d", at ? " " : "", sym[k], pow[k]);
  }
  if (!out[0]) snprintf(out, len, "1");
}
