/* Brownian cluster-cluster aggregation (DLCA, RLCA, from the continuum to the free molecular
   regime) in the registry (core/models.c): the keys of [dlca], their checks, the monomers' masses
   from a density in SI units; the dynamics are dlca_model.c's (docs/dlca.md). */
#include "config/keys.h"
#include "core/error.h"
#include "core/model.h"
#include "models/dlca_config.h"
#include <math.h>
#include <stdarg.h>

/* where its keys live: members of its settings (config/keys.h) */
#define OWN(member) SETTING(agglo_dlca_settings, member)

static const agglo_key keys[] = {
  {"dlca", "diffusion", T_DOUBLE, OWN(diffusion), "1", 0, BIG, 1, 0,
   "reduced units: diffusion coefficient D_1 of a particle of radius particles.radius and mass "
   "particles.mass"},
  {"dlca", "persistence", T_DOUBLE, OWN(persistence), "0.001", 0, BIG, 1, 0,
   "reduced units: persistence length lambda_1 = u_1 tau_1 of that particle, its mean thermal "
   "speed u_1 times its velocity relaxation time tau_1 = pi lambda_1^2 / (8 D_1), the mean length "
   "of its flights (-> 0: diffusive, continuum; -> infinity: ballistic, at mean speed "
   "8 D_1 / (pi lambda_1))"},
  {"dlca", "knudsen", T_DOUBLE, OWN(knudsen), "0", 0, BIG, 0, 0,
   "reduced units: the gas's Knudsen number at that particle, lambda_g / particles.radius, for the "
   "aggregates' friction (dlca.mobility; 0: continuum, friction of the mobility radius)"},
  {"dlca", "mobility_fractal_dimension", T_DOUBLE, OWN(mobility_fractal_dimension), "0", 0, 3, 0, 0,
   "D_fm of the continuum mobility radius R_m = a N^(1/D_fm) of a cluster of N particles (a: their "
   "volume-equivalent mean radius); 0 = 1.45 in 2D, 1.8 in 3D (DLCA's); the mobility law only, "
   "not the clusters' structure"},
  {"dlca", "mobility", T_ENUM, OWN(mobility), "adjusted_sphere", 0, 0, 0, "adjusted_sphere|sphere",
   "a cluster's friction: adjusted_sphere: 6 pi mu R_m / C_c(Kn_adj), Kn_adj = lambda_g R_m / R_p^2, "
   "R_p = a N^(area_exponent / 2) (continuum R_m, free molecular projected area); sphere: the "
   "sphere of radius R_m, C_c(lambda_g / R_m) (free molecular friction above N monomers'; "
   "docs/dlca.md)"},
  {"dlca", "area_exponent", T_DOUBLE, OWN(area_exponent), "0", 0, 1, 0, 0,
   "mobility = adjusted_sphere: the orientation-averaged projected area of N particles is "
   "pi a^2 N^area_exponent; 0 = 0.92 (DLCA aggregates, Sorensen 2011)"},
  {"dlca", "probability", T_DOUBLE, OWN(probability), "1", 0, 1, 0, 0,
   "sticking probability p of a contact (1: DLCA; < 1: RLCA, a contact that does not stick ends "
   "both clusters' flights)"},
  {"dlca", "stop", T_ENUM, OWN(stop), "clusters", 0, 0, 0, "clusters|t_end",
   "clusters: stop when dlca.clusters clusters are left (run.t_end is then ignored); t_end: stop "
   "at run.t_end"},
  {"dlca", "clusters", T_INT, OWN(clusters), "1", 1, 1e15, 0, 0,
   "stop = clusters: the number of clusters left at which the run stops"},
  {"dlca", "window", T_DOUBLE, OWN(window), "2", 0.1, 1000, 0, 0,
   "a cluster's candidate pairs are rebuilt each time it has moved its margin from its last "
   "build: window * max radius (growing to window_max), or with grouped flights the room it has, "
   "between a quarter of window * max radius and that (docs/dlca.md); the cost only, never the "
   "trajectory"},
  {"dlca", "window_max", T_DOUBLE, OWN(window_max), "6", 0, 1000, 0, 0,
   "the margin grows with the clusters up to window_max * max radius: window * (mean cluster "
   "size / 4)^(1/D_f), by steps of 1.5 or to window_max (a cluster's room still caps it; "
   "docs/dlca.md); <= window: it never grows; the cost only, never the trajectory"},
  {"dlca", "rotation", T_ENUM, OWN(rotation), "off", 0, 0, 0, "off|on",
   "on: at the end of each flight a cluster turns about its centre of mass by a random rotation "
   "of the time since its last turn, rotational diffusivity 3 D / (4 R_m^2); a turn stops at its "
   "first contact (needs a periodic box; docs/dlca.md)"},
  {"dlca", "grouped_flights", T_ENUM, OWN(grouped_flights), "on", 0, 0, 0, "off|on",
   "on: a cluster with no candidate pair (and that does not turn) flies its flights up to its "
   "next rebuild as one event, exactly: the same bytes as off, faster (docs/dlca.md)"},
  {"dlca", "units", T_ENUM, OWN(units), "reduced", 0, 0, 0, "reduced|si",
   "reduced: dlca.diffusion, dlca.persistence and dlca.knudsen; si: an aerosol, lengths in m, "
   "masses in kg, time in s, the friction from the gas (temperature, pressure, viscosity) with "
   "Cunningham's correction (docs/dlca.md)"},
  {"dlca", "temperature", T_DOUBLE, OWN(temperature), "293.15", 0, BIG, 1, 0,
   "si: gas temperature (K)"},
  {"dlca", "pressure", T_DOUBLE, OWN(pressure), "101325", 0, BIG, 1, 0,
   "si: gas pressure (Pa)"},
  {"dlca", "viscosity", T_DOUBLE, OWN(viscosity), "0", 0, BIG, 0, 0,
   "si: gas dynamic viscosity (Pa s); 0 = air's at dlca.temperature by Sutherland's law "
   "(1.716e-5 Pa s at 273.15 K, S = 110.4 K: 1.813e-5 at 293.15 K)"},
  {"dlca", "gas_molar_mass", T_DOUBLE, OWN(gas_molar_mass), "0.02897", 0, BIG, 1, 0,
   "si: molar mass of the gas (kg/mol), for its mean free path"},
  {"dlca", "density", T_DOUBLE, OWN(density), "0", 0, BIG, 0, 0,
   "si: density of the particles (kg/m^3): mass 4/3 pi rho r^3 of each; 0 = from particles.mass "
   "and particles.mass_rule"},
};

static const agglo_renamed_key renamed[] = {
  {"dlca", "fractal_dimension", "mobility_fractal_dimension",
   "it sets the mobility law only, not the clusters' structure"},
};

/* A step flies each cluster (10 r_max / lambda)^2 flights (docs/dlca.md): a monomer's
   persistence length below this many radii would take hours a step (issue 41). */
#define DLCA_MIN_PERSISTENCE 1e-3

/* The monomer's D and lambda that the keys give, each finite and positive, lambda at least
   DLCA_MIN_PERSISTENCE radii, and its kinetic energy finite: a step's work bounded. */
static int check_mobility(const agglo_config *c, double rmax, char *err, size_t errlen) {
  int si = agglo_dlca_of(c)->units == DLCA_UNITS_SI;
  double r = c->radius, m1 = agglo_dlca_reference_mass(c);
  agglo_dlca_motion o = agglo_dlca_mobility(c, 1, m1);
  /* (reduced units: lambda is the key itself, exact where tau underflows) */
  double D = o.D, lambda = si ? o.persistence : agglo_dlca_of(c)->persistence;
  double speed = sqrt(8 * o.kT_m / M_PI), keys_energy = 0.5 * m1 * speed * speed * (double)c->n;
  const char *keys = si ? "dlca.temperature, dlca.pressure, dlca.viscosity, dlca.gas_molar_mass, "
                          "dlca.density (or particles.mass) and particles.radius"
                        : "dlca.persistence, dlca.diffusion";
  if (lambda >= 0 && lambda < DLCA_MIN_PERSISTENCE * rmax)
    return agglo_fail(err, errlen, "%s give a particle of radius %g the persistence length %g, "
                      "%.3g of its radius: a step would fly each cluster (10 r / lambda)^2 = %.3g "
                      "flights (allowed: lambda at least %g of the largest radius, %g)", keys, r,
                      lambda, lambda / r, 100 * rmax * rmax / (lambda * lambda),
                      DLCA_MIN_PERSISTENCE, DLCA_MIN_PERSISTENCE * rmax);
  if (!(D > 0) || !isfinite(D) || !(lambda > 0) || !isfinite(lambda) || !(speed > 0) ||
      !isfinite(speed) || !(o.tau > 0) || !isfinite(o.tau) || !isfinite(keys_energy))
    return agglo_fail(err, errlen, "%s give a particle of radius %g the diffusion coefficient %g, "
                      "persistence length %g and flight speed %g: each must be positive and finite, "
                      "and so its kinetic energy (allowed: values that keep them so)", keys, r, D,
                      lambda, speed);
  return 0;
}

static int validate(const agglo_config *c, double rmax, char *err, size_t errlen) {
  const agglo_dlca_settings *dl = agglo_dlca_of(c);
  if (check_mobility(c, rmax, err, errlen) != 0) return -1;
  double df = dl->mobility_fractal_dimension;
  if (df != 0 && !(df >= 1 && df <= c->dim))
    return agglo_fail(err, errlen, "dlca.mobility_fractal_dimension = %g: allowed 0 (the default by "
                      "dimension) or from 1 to run.dim = %d", df, c->dim);
  if (dl->knudsen > 0 && dl->units != DLCA_UNITS_REDUCED)
    return agglo_fail(err, errlen, "dlca.knudsen = %g is read with dlca.units = reduced only (si: "
                      "the gas's mean free path from dlca.temperature, pressure, viscosity)",
                      dl->knudsen);
  if (dl->stop == DLCA_STOP_CLUSTERS && !c->from[0] && dl->clusters >= c->n)
    return agglo_fail(err, errlen, "dlca.clusters = %lld with particles.n = %lld: the run would stop "
                      "before it starts; give fewer clusters than particles (or dlca.stop = t_end)",
                      (long long)dl->clusters, (long long)c->n);
  if (dl->stop == DLCA_STOP_CLUSTERS && dl->probability == 0)
    return agglo_fail(err, errlen, "dlca.probability = 0 with dlca.stop = clusters: no contact "
                      "ever sticks, so the run would never reach dlca.clusters = %lld clusters; give "
                      "dlca.probability > 0 (up to 1), or dlca.stop = t_end",
                      (long long)dl->clusters);
  if (dl->rotation == DLCA_ROTATION_ON)
    for (int k = 0; k < c->dim; k++)
      if (c->boundary.v[c->boundary.n == 1 ? 0 : k] != AGGLO_PERIODIC)
        return agglo_fail(err, errlen, "dlca.rotation = on needs box.boundary = periodic on every "
                          "axis (axis %d is a wall: a turn is not checked against walls)", k);
  if (dl->density > 0 && dl->units != DLCA_UNITS_SI)
    return agglo_fail(err, errlen, "dlca.density = %g is read with dlca.units = si only "
                      "(reduced units: particles.mass)", dl->density);
  return 0;
}

/* SI with a density: each particle's mass from its radius. */
static void radius_mass(const agglo_config *c, size_t i, size_t n, double *r, double *m) {
  const agglo_dlca_settings *dl = agglo_dlca_of(c);
  (void)i, (void)n;
  if (dl->units == DLCA_UNITS_SI && dl->density > 0)
    *m = dl->density * 4.0 / 3.0 * M_PI * *r * *r * *r;
}

/* A user's start may touch to round-off (a run's own output read back). */
static double overlap_tolerance(const agglo_config *c) { (void)c; return 1e-6; }

static const agglo_model *dynamics(const agglo_config *c) {
  (void)c;
  return &agglo_model_dlca;
}

const agglo_model_entry agglo_dlca_entry = {
    .name = "dlca",
    .help = "Brownian cluster-cluster aggregation, DLCA/RLCA (settings in [dlca])",
    .description = "Brownian cluster-cluster aggregation: rigid clusters on random flights of a\n"
                   "persistence length, exact contact times, sticking probability (DLCA, RLCA)",
    .keys = keys,
    .n_keys = sizeof keys / sizeof keys[0],
    .settings_size = sizeof(agglo_dlca_settings),
    .renamed = renamed,
    .n_renamed = sizeof renamed / sizeof renamed[0],
    .ignores = "run.dt", /* it chooses its own steps */
    .fixed_on_restart = "dlca.units dlca.density",
    .validate = validate,
    .radius_mass = radius_mass,
    .dynamics = dynamics,
    .overlap_tolerance = overlap_tolerance,
    .describe = agglo_dlca_describe, /* dlca_model.c */
};
