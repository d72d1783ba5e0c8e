/* The ballistic model (Degond et al. 2024) in the registry (core/models.c): the keys of
   [ballistic]; its dynamics, time stepping (ballistic_model.c) or event driven
   (ballistic_event_driven.c) by ballistic.method. */
#include "config/keys.h"
#include "core/model.h"
#include "models/ballistic_config.h"
#include "core/rng.h"
#include <math.h>

/* where its keys live: members of its settings (config/keys.h) */
#define OWN(member) SETTING(agglo_ballistic_settings, member)

static const agglo_key keys[] = {
  {"ballistic", "method", T_ENUM, OWN(method), "time_stepping", 0, 0, 0,
   "time_stepping|event_driven",
   "time_stepping = free flight, then links relaxed by the damped Arrow-Hurwicz minimiser "
   "(Degond et al.); event_driven = exact collision times (cell lists and an event calendar)"},
  {"ballistic", "velocity", T_ENUM, OWN(velocity), "uniform", 0, 0, 0, "uniform|unit",
   "initial velocities: uniform in [-speed/2, speed/2]^d, or of modulus speed in a uniformly "
   "random direction"},
  {"ballistic", "speed", T_DOUBLE, OWN(speed), "1", 1e-100, BIG, 0, 0,
   "scale of the initial velocities (1 = the paper's); at least 1e-100: below, the squared "
   "speeds underflow to 0 and the run would stop at once, nothing moving"},
  {"ballistic", "stop", T_ENUM, OWN(stop), "one_cluster", 0, 0, 0, "one_cluster|t_end",
   "one_cluster: stop when a single cluster is left (run.t_end is then ignored); t_end: stop at "
   "run.t_end"},
  {"ballistic", "dt_factor", T_DOUBLE, OWN(dt_factor), "1", 1e-3, 1, 0, 0,
   "time stepping: step = dt_factor * max radius / largest cluster speed (rule (3.3)); run.dt "
   "is not used; above 1 particles could pass through each other, below 1e-3 a run takes over "
   "1000 times the steps of rule (3.3) (at 1e-300 it never ends)"},
  {"ballistic", "tol", T_DOUBLE, OWN(tol), "1e-3", 0, 0.1, 1, 0,
   "time stepping: the minimiser stops when every link has overlap phi+/(ri+rj)^2, "
   "complementarity lambda|phi|/(ri+rj)^2 and force |grad L|/r below tol (and moves < tol/100 r)"},
  {"ballistic", "dah_alpha", T_DOUBLE, OWN(dah_alpha), "0.02", 0, 10, 1, 0,
   "damped Arrow-Hurwicz: step on grad_X L (positions in units of the mean radius)"},
  {"ballistic", "dah_beta", T_DOUBLE, OWN(dah_beta), "0.05", 0, 10, 1, 0,
   "damped Arrow-Hurwicz: ascent step of the multipliers"},
  {"ballistic", "dah_gamma", T_DOUBLE, OWN(dah_gamma), "0.05", 0, 10, 1, 0,
   "damped Arrow-Hurwicz: weight of the lambda phi grad(phi) term (capped by the stability "
   "bound of the particles moved); not 0: plain Arrow-Hurwicz (dah_c = 1, dah_gamma = 0) "
   "oscillates without converging (docs/ballistic.md)"},
  {"ballistic", "dah_c", T_DOUBLE, OWN(dah_c), "0.3", 0.05, 1, 0, 0,
   "damped Arrow-Hurwicz: friction per pseudo-step; below 0.05 the relaxation barely damps and "
   "no step converges"},
  {"ballistic", "dah_max_iter", T_INT, OWN(dah_max_iter), "5000", 1, 1e9, 0, 0,
   "damped Arrow-Hurwicz: iteration cap; then alpha, beta, gamma are halved and the solve "
   "restarts (at most 3 times, reported)"},
  {"ballistic", "window", T_DOUBLE, OWN(window), "2", 0.1, 1000, 0, 0,
   "event driven: a cluster's candidate pairs are rebuilt each time it has moved window * max "
   "radius from its last build; a step lasts while the fastest cluster moves that far"},
};

/* Ballistic aggregation starts with random velocities: uniform in [-speed/2, speed/2]^d (the
   paper's [-0.5, 0.5]^2), or of modulus speed in a uniformly random direction. */
static int start(agglo_system *s, const agglo_config *c, char *err, size_t errlen) {
  const agglo_ballistic_settings *bl = agglo_ballistic_of(c);
  (void)err, (void)errlen;
  int d = s->dim;
  for (size_t i = 0; i < s->n; i++) {
    double u[4], *v = s->v + 3 * i;
    agglo_rng_uniform4((uint64_t)c->seed, AGGLO_STREAM_VELOCITY, 0, (uint64_t)s->id[i], u);
    v[0] = v[1] = v[2] = 0;
    if (bl->velocity == BALL_VEL_UNIFORM) {
      for (int k = 0; k < d; k++) v[k] = bl->speed * (u[k] - 0.5);
    } else {
      agglo_rng_direction(d, u, bl->speed, v);
    }
  }
  return 0;
}

/* A user's start may overlap by the minimiser's tolerance. */
static double overlap_tolerance(const agglo_config *c) { return agglo_ballistic_of(c)->tol; }

static const agglo_model *dynamics(const agglo_config *c) {
  return agglo_ballistic_of(c)->method == BALL_EVENT_DRIVEN ? &agglo_model_ballistic_ed : &agglo_model_ballistic;
}

const agglo_model_entry agglo_ballistic_entry = {
    .name = "ballistic",
    .help = "ballistic aggregation (Degond et al. 2024; method in [ballistic])",
    .description = "ballistic aggregation (Degond et al. 2024): ballistic.method =\n"
                   "time_stepping (damped Arrow-Hurwicz) or event_driven (exact)",
    .keys = keys,
    .n_keys = sizeof keys / sizeof keys[0],
    .settings_size = sizeof(agglo_ballistic_settings),
    .ignores = "run.dt", /* it chooses its own steps */
    .fixed_on_restart = "ballistic.method ballistic.velocity ballistic.speed", /* the start's */
    .box_grid = 1, /* Degond et al. 2024, eq. 4.15 */
    .start = start,
    .dynamics = dynamics,
    .overlap_tolerance = overlap_tolerance,
};
