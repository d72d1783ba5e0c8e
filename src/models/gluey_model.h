/* Gluey particles (Lefebvre 2007; docs/gluey.md). */
#ifndef AGGLO_MODEL_GLUEY_H
#define AGGLO_MODEL_GLUEY_H
#include "config/config.h"
#include "core/system.h"

/* A particle above a plane, Algorithm 2.7: distance q, velocity u, adhesion memory gamma and the
   multiplier (force) lambda of the last step. */
typedef struct {
  double q, u, gamma, lambda;
} agglo_gluey_plane;

/* One step of Algorithm 2.7 with step h, mean force f over the step (per unit mass), mass m,
   weight w of the adhesion update (1, or 1/r^2 with radius weighting) and threshold gamma_min
   (-INFINITY: smooth). */
void agglo_gluey_plane_step(agglo_gluey_plane *p, double h, double f, double m, double w,
                            double gamma_min);

/* Mean over [t0, t1] of the piecewise-constant external force of gluey.force_times/force,
   component k (0 outside the schedule). */
double agglo_gluey_force_mean(const agglo_config *c, int k, double t0, double t1);

/* Initial state of a gluey scenario, after the generic placement (which confines the random
   placement to gluey.region when it is set): explicit gluey.positions; gluey.velocities. */
int agglo_gluey_place(agglo_system *s, const agglo_config *c, char *err, size_t errlen);

/* Statistics of the glue after the last step (also written to stats.csv). */
typedef struct {
  size_t glued_pairs, glued_obstacle; /* constraints with gamma < 0 */
  double gamma_most_negative, gamma_mean, gamma_median; /* over glued constraints (0 if none) */
  double attached_fraction; /* particles glued to, or pressed against, an obstacle */
  size_t builds;            /* neighbour-list builds so far */
} agglo_gluey_stats;
void agglo_gluey_get_stats(const void *state, agglo_gluey_stats *st);
/* gamma of the pair (i, j) (j < 0: obstacle element -1-j) after the last step, 0 if none. */
double agglo_gluey_gamma(const void *state, int32_t i, int32_t j);

#endif
