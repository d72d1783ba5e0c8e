/* The temperature of particles, in one place: the DPD model's `temperature` column, its end-of-run
   check and its sums over MPI ranks, the kinetic part of its pressure, and the public
   agglo_analysis_temperature and agglo_analysis_peculiar_temperature (agglo_dpd_temperature,
   dpd_bench): k_B T = sum m |v' - v'_cm|^2 / (d (N - 1)), from sums that ranks can add, v' the
   peculiar velocity -- v less the Lees-Edwards streaming velocity u_x = rate (y - y_mid) along
   x (src/models/dpd_shear.h), v itself without shear. */
#ifndef AGGLO_ANALYSIS_TEMPERATURE_H
#define AGGLO_ANALYSIS_TEMPERATURE_H

/* The x component of the peculiar velocity of a particle at height y with x velocity vx. */
static inline double agglo_peculiar_vx(double vx, double y, double rate, double y_mid) {
  return rate != 0 ? vx - rate * (y - y_mid) : vx;
}

/* The sums: mass, momentum (3), twice the kinetic energy, count. */
enum { AGGLO_KT_SUMS = 6 };

/* A particle of mass m and (peculiar) velocity v (its first dim components) into the sums. */
static inline void agglo_kinetic_add(double s[AGGLO_KT_SUMS], double m, const double v[3], int dim) {
  s[0] += m;
  for (int k = 0; k < dim; k++) s[1 + k] += m * v[k], s[4] += m * v[k] * v[k];
  s[5] += 1;
}

/* k_B T of the sums (0 for fewer than two particles). */
static inline double agglo_temperature_of_sums(int dim, const double s[AGGLO_KT_SUMS]) {
  double e = s[4];
  for (int k = 0; k < dim; k++) e -= s[1 + k] * s[1 + k] / s[0];
  return s[5] > 1 ? e / (dim * (s[5] - 1)) : 0;
}

#endif
