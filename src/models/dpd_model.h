/* DPD model extras used by the command line and the tests: reduced units and their conversion. */
#ifndef AGGLO_MODEL_DPD_H
#define AGGLO_MODEL_DPD_H
#include "config/config.h"
#include "core/system.h"
#include <stdio.h>

/* Scales of the reduced units: a value in reduced units is the scenario's value divided by the
   scale of its dimension. dpd.units = reduced: every scale is 1. dpd.units = si: length =
   2 particles.radius (the diameter), mass = particles.mass, energy = 3 dpd.kT (so that
   v_rms = sqrt(3kT/m) = 1 and kT* = 1/3, the thesis's choice), time = length sqrt(mass/energy). */
typedef struct {
  int si;
  double length, mass, energy, time, velocity, force;
} agglo_dpd_units;

void agglo_dpd_units_of(const agglo_config *c, agglo_dpd_units *u);

/* Print the units of the scenario and, for SI scenarios, every DPD parameter converted to
   reduced units (e.g. dpd.hamaker = 1e-20 J -> A* = 0.8047745 for 20 nm copper at 300 K). */
void agglo_dpd_describe(const agglo_config *c, FILE *f);

/* The species of particle `id` of n: blocks of ids in the order of the dpd.species fractions
   (0 when there is one species). */
int agglo_dpd_species_of(const agglo_config *c, int64_t id, size_t n);

/* Measured temperature kT = sum m |v - v_cm|^2 / (d (N - 1)) of a system (scenario units). */
double agglo_dpd_temperature(const agglo_system *s);

/* The end-of-run temperature check (docs/dpd.md): *mean = the mean measured kT over the steps of
   the last half of the run so far (block sums, dpd_half_mean.h; kept across restarts), *target =
   dpd.kT, *band = the run's statistical band, the larger of 3 standard errors of *mean (batch
   means) and AGGLO_DPD_T_FLOOR * target (the time-step bias of DPD-VV at the Groot-Warren step),
   all in scenario units. Returns 1 when |mean - target| > band, 0 when not, -1 before the first
   step. stats.csv carries the same mean in its column temperature_mean_last_half. */
#define AGGLO_DPD_T_FLOOR 0.01
int agglo_dpd_temperature_report(const void *state, double *mean, double *target, double *band);

#endif
