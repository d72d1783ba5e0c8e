/* The monomers' radii of a tunable aggregate, by the semantics of the [particles] radius keys
   (src/core/setup.c, agglo_particle_radius): uniform in [r(1 - s), r(1 + s)] or lognormal of
   geometric mean r and geometric standard deviation sigma. Monomer i of aggregate k draws
   (seed, AGGLO_STREAM_RADIUS, step k, id i): aggregate 0 has the radii a run of the same keys
   gives its particles. */
#include "aggregates/cluster.h"
#include <math.h>

double agg_monomer_radius(const agglo_aggregate_options *o, size_t i) {
  double u[4];
  if (o->radius_distribution == AGGLO_RADII_LOGNORMAL) {
    agglo_rng_normal4(o->seed, AGGLO_STREAM_RADIUS, (uint64_t)o->index, i, u);
    return o->radius * exp(log(o->radius_sigma) * u[0]);
  }
  if (o->radius_spread == 0) return o->radius;
  agglo_rng_uniform4(o->seed, AGGLO_STREAM_RADIUS, (uint64_t)o->index, i, u);
  return o->radius * (1.0 + o->radius_spread * (2.0 * u[0] - 1.0));
}
