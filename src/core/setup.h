/* The initial state from the settings: box, radii, masses, non-overlapping placement. */
#ifndef AGGLO_SETUP_H
#define AGGLO_SETUP_H
#include "config/config.h"
#include "core/system.h"

int agglo_setup(agglo_system *s, const agglo_config *c, char *err, size_t errlen);
/* The scenario's box into s->box, for the particles' radii s->r (particles.fraction sizes it from
   them; a 2D slab is one diameter thick). */
void agglo_setup_box(agglo_system *s, const agglo_config *c);

/* Particle i's radius: particles.radii in turn, or drawn by particles.radius_distribution. */
double agglo_particle_radius(const agglo_config *c, size_t i);

/* The mass of a particle of radius r by particles.mass_rule: volume m (r/radius)^3, or m. */
static inline double agglo_particle_mass(const agglo_config *c, double r) {
  double q = r / c->radius;
  return c->mass_rule == MASS_VOLUME ? c->mass * q * q * q : c->mass;
}

#endif
