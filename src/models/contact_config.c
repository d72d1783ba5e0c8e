/* The contact model (Maury 2004) in the registry (core/models.c): the keys of [drag], [flow],
   [attraction] and [brownian], and of [gravity] and [solver], which the gluey model reads too;
   their checks across keys; its dynamics (contact_model.c). */
#include "config/keys.h"
#include "core/error.h"
#include "core/model.h"
#include "models/contact_config.h"
#include <math.h>

/* where its keys live: members of its settings (config/keys.h) */
#define OWN(member) SETTING(agglo_contact_settings, member)

static const agglo_key keys[] = {
  {"drag", "tau", T_DOUBLE, OWN(tau), "0.2", 0, BIG, 0, 0,
   "relaxation time tau = m/xi of the drift toward the flow; 0 = no drag"},
  {"drag", "viscosity", T_DOUBLE, OWN(viscosity), "0", 0, BIG, 0, 0,
   "if > 0, Stokes friction xi_i = 6 pi nu r_i instead of tau (tau_i = m_i / xi_i)"},
  {"flow", "type", T_ENUM, OWN(flow), "none", 0, 0, 0,
   "none|uniform|shear|oscillating_shear|poiseuille|vortex",
   "prescribed fluid velocity U(x,t): uniform = flow.velocity; shear = (rate*y, 0); "
   "oscillating_shear = sin(omega t)(rate*y, 0) (Maury's (4.1)); poiseuille = "
   "(rate*y(Ly-y)/Ly^2*4, 0), peak speed rate; vortex = cellular flow of speed rate, "
   "(sin(pi x/Lx)cos(pi y/Ly), -cos(pi x/Lx)sin(pi y/Ly))"},
  {"flow", "rate", T_DOUBLE, OWN(flow_rate), "1", -BIG, BIG, 0, 0, "shear rate or flow speed"},
  {"flow", "omega", T_DOUBLE, OWN(flow_omega), "3.141592653589793", -BIG, BIG, 0, 0,
   "angular frequency of the oscillating shear"},
  {"flow", "velocity", T_LIST, OWN(flow_velocity), "0", -BIG, BIG, 0, 0,
   "velocity of the uniform flow (one value per axis)"},
  {"attraction", "kappa", T_DOUBLE, OWN(kappa), "0.003", 0, BIG, 0, 0,
   "attraction strength; force (kappa/epsilon) sech^2(D/epsilon) toward the partner; 0 = none"},
  {"attraction", "epsilon", T_DOUBLE, OWN(epsilon), "0.003", 0, BIG, 1, 0, "attraction range"},
  {"attraction", "cutoff", T_DOUBLE, OWN(attraction_cutoff), "20", 0, 1000, 1, 0,
   "attraction acts for gaps D < cutoff * epsilon"},
  {"attraction", "scaling", T_ENUM, OWN(attraction_scaling), "sqrt_h", 0, 0, 0, "sqrt_h|h",
   "impulse of the attraction per step: sqrt(h) F (Maury's (4.3), with noise) or h F"},
  {"brownian", "sigma", T_DOUBLE, OWN(sigma), "0.5", 0, BIG, 0, 0,
   "noise amplitude of dv = -v/tau dt + sigma dW; 0 = deterministic"},
  {"gravity", "g", T_LIST, OFF(gravity), "0", -BIG, BIG, 0, 0,
   "constant acceleration (one value per axis, or one value for all)"},
  {"solver", "method", T_ENUM, OFF(solver), "mprgp", 0, 0, 0,
   "apgd|uzawa|mprgp|active_set",
   "velocity projection, solved per connected component of the contacts: mprgp = conjugate "
   "gradients on the active contacts with proportioning and projection steps (Dostal's MPRGP); "
   "apgd = accelerated projected gradient with per-contact scaling and restart; uzawa = the "
   "paper's Uzawa iteration with the safe scalar rho; active_set = primal-dual active set with "
   "sparse LDL^T solves (CHOLMOD) on components of 64 rows or more, MPRGP below and as fallback "
   "(for glued networks; iterations then count active-set steps)"},
  {"solver", "expansion", T_ENUM, OFF(solver_expansion), "projected_cg", 0, 0, 0,
   "projected_cg|gradient",
   "mprgp's expansion step (it adds contacts to the active set): projected_cg = the whole "
   "conjugate gradient step projected on the impulses >= 0, kept when it lowers the cost (else "
   "gradient); gradient = to the bound, then a projected gradient step of fixed length (the "
   "solver before issue 29: 2.1-2.7x (2D) and 3.6-4.8x (3D) more products on the gels of "
   "docs/performance.md)"},
  {"solver", "tol", T_DOUBLE, OFF(solver_tol), "1e-3", 0, 1, 1, 0,
   "stop when every contact is closed and complementary to within tol * r"},
  {"solver", "max_iter", T_INT, OFF(max_iter), "20000", 1, 1e9, 0, 0,
   "iteration cap of one projection"},
  {"solver", "team_rows", T_INT, OFF(team_rows), "16384", 0, 1e9, 0, 0,
   "mprgp: a component of at least this many contacts (a gel) is solved by all OpenMP threads "
   "together, each smaller one by one thread; 0 = every component by one thread. The answer does "
   "not depend on the thread count; the two ways add in another order (rounding)"},
  {"solver", "compliance", T_DOUBLE, OFF(compliance), "0", 0, 1, 0, 0,
   "each contact gives way by compliance times the displacement its impulse causes (0 = rigid, "
   "the papers'); a small value (1e-4) keeps a jammed step (no velocities meet every contact, "
   "e.g. a glued clump caught between a moving and a fixed obstacle) finite"},
  {"solver", "rho_factor", T_DOUBLE, OFF(rho_factor), "1", 0, 2, 1, 0,
   "step relative to the safe Gershgorin step (must stay below 2)"},
  {"solver", "on_failure", T_ENUM, OFF(on_failure), "warn", 0, 0, 0, "warn|stop",
   "when the projection hits its iteration cap, or an overlap deeper than 10 solver.tol r "
   "remains after a step: warn and go on, or stop the run (last good state written)"},
};

/* A step must not carry a particle across a diameter: by the noise, under gravity or by the flow. */
static int validate(const agglo_config *c, double rmax, char *err, size_t errlen) {
  int d = c->dim;
  const agglo_contact_settings *m = agglo_contact_of(c);
  if (m->flow_velocity.n != 1 && m->flow_velocity.n != d)
    return agglo_fail(err, errlen, "%s has %d values: give 1 or %d (run.dim)", "flow.velocity",
                      m->flow_velocity.n, d);
  if (c->dt * (m->sigma > 0 ? m->sigma * sqrt(m->tau > 0 ? m->tau : 1) : 0) > 2 * rmax)
    return agglo_fail(err, errlen, "run.dt = %g is too large: a particle would move more than its "
                "diameter per step", c->dt);
  if (agglo_config_check_gravity(c, rmax, err, errlen) != 0) return -1;
  /* a shear's speed is flow.rate times the height along axis 1 (contact_fields.c), whatever the
     box's length along the flow (examples/validation/run_maury.sh's free cloud: a 3 x 1 box) */
  double height = c->fraction > 0 ? 0 : agglo_list_component(&c->size, 1);
  double u = m->flow == FLOW_UNIFORM ? 0 : fabs(m->flow_rate) * (m->flow == FLOW_SHEAR || m->flow == FLOW_OSC_SHEAR ? height : 1);
  for (int k = 0; k < d && m->flow == FLOW_UNIFORM; k++) u = fmax(u, fabs(agglo_list_component(&m->flow_velocity, k)));
  if (m->flow == FLOW_NONE) u = 0;
  if (u * c->dt > 4 * rmax)
    return agglo_fail(err, errlen, "run.dt = %g is too large for the flow: it carries a particle "
                      "%g per step, more than two diameters (%g); lower run.dt or flow.rate",
                      c->dt, u * c->dt, 4 * rmax);
  return 0;
}

/* The attraction reaches cutoff * epsilon beyond contact (contact_model.c). */
static double attraction_range(const agglo_config *c) {
  const agglo_contact_settings *ct = agglo_contact_of(c);
  return ct->kappa > 0 ? ct->attraction_cutoff * ct->epsilon : 0;
}

/* A user's start may overlap by the solver's tolerance. */
static double overlap_tolerance(const agglo_config *c) { return c->solver_tol; }

static const agglo_model *dynamics(const agglo_config *c) {
  (void)c;
  return &agglo_model_contact;
}

const agglo_model_entry agglo_contact_entry = {
    .name = "contact",
    .help = "contact dynamics with aggregation (Maury 2004)",
    .description = "contact dynamics with aggregation (Maury 2004)",
    .keys = keys,
    .n_keys = sizeof keys / sizeof keys[0],
    .settings_size = sizeof(agglo_contact_settings),
    .also_reads = "parallel.", /* domain decomposition (src/mpi/contact_domain.c) */
    .validate = validate,
    .attraction_range = attraction_range,
    .dynamics = dynamics,
    .overlap_tolerance = overlap_tolerance,
};
