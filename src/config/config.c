#include "config/config.h"
#include "core/error.h"
#include "core/files.h"
#include "picture/picture.h"
#include <errno.h>
#include <ini.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef enum { T_DOUBLE, T_INT, T_ENUM, T_LIST, T_ENUMLIST, T_STRING } key_type;

typedef struct {
  const char *section, *name;
  key_type type;
  size_t offset;
  const char *def;     /* default, as written in a scenario file */
  double lo, hi;       /* allowed range (numbers and list entries) */
  int lo_open;         /* 1: the lower bound itself is not allowed */
  const char *choices; /* enums: "a|b|c" */
  const char *help;
} key;

#define OFF(f) offsetof(agglo_config, f)
#define BIG 1e300
static const key keys[] = {
  {"run", "model", T_ENUM, OFF(model), "contact", 0, 0, 0, "contact|ballistic|dpd|gluey",
   "model to simulate: contact = contact dynamics with aggregation (Maury 2004); ballistic = "
   "ballistic aggregation (Degond et al. 2024; method in [ballistic]); dpd = dissipative particle "
   "dynamics with attractive forces (Mokkapati 2006; settings in [dpd], docs/dpd.md); gluey = "
   "gluey particles (Lefebvre 2007; settings in [gluey] and [obstacles], docs/gluey.md)"},
  {"run", "dim", T_INT, OFF(dim), "2", 2, 3, 0, 0, "space dimension"},
  {"run", "seed", T_INT, OFF(seed), "1", 0, 9.2e18, 0, 0,
   "random seed; every random number is a function of (seed, step, particle id)"},
  {"run", "t_end", T_DOUBLE, OFF(t_end), "3", 0, BIG, 0, 0, "simulated time at which the run stops"},
  {"run", "dt", T_DOUBLE, OFF(dt), "0.02", 0, BIG, 1, 0, "time step h"},
  {"particles", "n", T_INT, OFF(n), "2000", 1, 1e15, 0, 0,
   "number of particles (memory is checked against the machine before the run)"},
  {"particles", "radius", T_DOUBLE, OFF(radius), "0.01", 0, BIG, 1, 0, "reference radius r"},
  {"particles", "radius_spread", T_DOUBLE, OFF(radius_spread), "0.15", 0, 0.99, 0, 0,
   "radii uniform in [r(1-s), r(1+s)]; 0 = all equal"},
  {"particles", "radii", T_LIST, OFF(radii), "", 0, BIG, 1, 0,
   "explicit radii, given to particles in turn (overrides radius and radius_spread)"},
  {"particles", "mass_rule", T_ENUM, OFF(mass_rule), "volume", 0, 0, 0, "volume|uniform",
   "volume: m_i = mass (r_i/r)^3 (as in the paper, also in 2D); uniform: m_i = mass"},
  {"particles", "mass", T_DOUBLE, OFF(mass), "1", 0, BIG, 1, 0, "mass of a particle of radius r"},
  {"particles", "placement", T_ENUM, OFF(placement), "random", 0, 0, 0, "random|lattice",
   "random: non-overlapping uniform placement; lattice: square/cubic lattice"},
  {"particles", "fraction", T_DOUBLE, OFF(fraction), "0", 0, 0.9, 0, 0,
   "area (2D) or volume (3D) fraction; when > 0 the box is a square/cube sized to give it "
   "(then leave box.size unset)"},
  {"particles", "from", T_STRING, OFF(from), "", 0, 0, 0, 0,
   "start from the particles of a file: extended XYZ (columns by Properties=) or H5MD (frame "
   "particles.frame); positions, and radii, masses, velocities and ids when the file has them "
   "(else from these keys); the file sets particles.n; its box must be the scenario's "
   "(docs/formats.md)"},
  {"particles", "frame", T_INT, OFF(from_frame), "0", 0, 1e15, 0, 0,
   "frame of particles.from (1-based; 0 = the last)"},
  {"box", "size", T_LIST, OFF(size), "", 0, BIG, 1, 0,
   "box side lengths: one value for all axes or one per axis; the box is [0, L]^d. Required "
   "unless particles.fraction sets the box"},
  {"box", "boundary", T_ENUMLIST, OFF(boundary), "periodic", 0, 0, 0, "wall|periodic",
   "boundary of each axis: one value for all axes or one per axis"},
  {"drag", "tau", T_DOUBLE, OFF(tau), "0.2", 0, BIG, 0, 0,
   "relaxation time tau = m/xi of the drift toward the flow; 0 = no drag"},
  {"drag", "viscosity", T_DOUBLE, OFF(viscosity), "0", 0, BIG, 0, 0,
   "if > 0, Stokes friction xi_i = 6 pi nu r_i instead of tau (tau_i = m_i / xi_i)"},
  {"flow", "type", T_ENUM, OFF(flow), "none", 0, 0, 0,
   "none|uniform|shear|oscillating_shear|poiseuille|vortex",
   "prescribed fluid velocity U(x,t): uniform = flow.velocity; shear = (rate*y, 0); "
   "oscillating_shear = sin(omega t)(rate*y, 0) (Maury's (4.1)); poiseuille = "
   "(rate*y(Ly-y)/Ly^2*4, 0), peak speed rate; vortex = cellular flow of speed rate, "
   "(sin(pi x/Lx)cos(pi y/Ly), -cos(pi x/Lx)sin(pi y/Ly))"},
  {"flow", "rate", T_DOUBLE, OFF(flow_rate), "1", -BIG, BIG, 0, 0, "shear rate or flow speed"},
  {"flow", "omega", T_DOUBLE, OFF(flow_omega), "3.141592653589793", -BIG, BIG, 0, 0,
   "angular frequency of the oscillating shear"},
  {"flow", "velocity", T_LIST, OFF(flow_velocity), "0", -BIG, BIG, 0, 0,
   "velocity of the uniform flow (one value per axis)"},
  {"attraction", "kappa", T_DOUBLE, OFF(kappa), "0.003", 0, BIG, 0, 0,
   "attraction strength; force (kappa/epsilon) sech^2(D/epsilon) toward the partner; 0 = none"},
  {"attraction", "epsilon", T_DOUBLE, OFF(epsilon), "0.003", 0, BIG, 1, 0, "attraction range"},
  {"attraction", "cutoff", T_DOUBLE, OFF(attraction_cutoff), "20", 0, 1000, 1, 0,
   "attraction acts for gaps D < cutoff * epsilon"},
  {"attraction", "scaling", T_ENUM, OFF(attraction_scaling), "sqrt_h", 0, 0, 0, "sqrt_h|h",
   "impulse of the attraction per step: sqrt(h) F (Maury's (4.3), with noise) or h F"},
  {"brownian", "sigma", T_DOUBLE, OFF(sigma), "0.5", 0, BIG, 0, 0,
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
  {"solver", "tol", T_DOUBLE, OFF(solver_tol), "1e-3", 0, 1, 1, 0,
   "stop when every contact is closed and complementary to within tol * r"},
  {"solver", "max_iter", T_INT, OFF(max_iter), "20000", 1, 1e9, 0, 0,
   "iteration cap of one projection"},
  {"solver", "compliance", T_DOUBLE, OFF(compliance), "0", 0, 1, 0, 0,
   "each contact gives way by compliance times the displacement its impulse causes (0 = rigid, "
   "the papers'); a small value (1e-4) keeps a jammed step (no velocities meet every contact, "
   "e.g. a glued clump caught between a moving and a fixed obstacle) finite"},
  {"solver", "rho_factor", T_DOUBLE, OFF(rho_factor), "1", 0, 2, 1, 0,
   "step relative to the safe Gershgorin step (must stay below 2)"},
  {"solver", "on_failure", T_ENUM, OFF(on_failure), "warn", 0, 0, 0, "warn|stop",
   "when the projection hits its iteration cap, or an overlap deeper than 10 solver.tol r "
   "remains after a step: warn and go on, or stop the run (last good state written)"},
  {"ballistic", "method", T_ENUM, OFF(ball_method), "time_stepping", 0, 0, 0,
   "time_stepping|event_driven",
   "time_stepping = free flight, then links relaxed by the damped Arrow-Hurwicz minimiser "
   "(Degond et al.); event_driven = exact collision times (cell lists and an event calendar)"},
  {"ballistic", "velocity", T_ENUM, OFF(ball_velocity), "uniform", 0, 0, 0, "uniform|unit",
   "initial velocities: uniform in [-speed/2, speed/2]^d, or of modulus speed in a uniformly "
   "random direction"},
  {"ballistic", "speed", T_DOUBLE, OFF(ball_speed), "1", 0, BIG, 1, 0,
   "scale of the initial velocities (1 = the paper's)"},
  {"ballistic", "stop", T_ENUM, OFF(ball_stop), "one_cluster", 0, 0, 0, "one_cluster|t_end",
   "one_cluster: stop when a single cluster is left (run.t_end is then ignored); t_end: stop at "
   "run.t_end"},
  {"ballistic", "dt_factor", T_DOUBLE, OFF(ball_dt_factor), "1", 0, 1, 1, 0,
   "time stepping: step = dt_factor * max radius / largest cluster speed (rule (3.3)); run.dt "
   "is not used; above 1 particles could pass through each other"},
  {"ballistic", "tol", T_DOUBLE, OFF(ball_tol), "1e-3", 0, 0.1, 1, 0,
   "time stepping: the minimiser stops when every link has overlap phi+/(ri+rj)^2, "
   "complementarity lambda|phi|/(ri+rj)^2 and force |grad L|/r below tol (and moves < tol/100 r)"},
  {"ballistic", "dah_alpha", T_DOUBLE, OFF(dah_alpha), "0.02", 0, 10, 1, 0,
   "damped Arrow-Hurwicz: step on grad_X L (positions in units of the mean radius)"},
  {"ballistic", "dah_beta", T_DOUBLE, OFF(dah_beta), "0.05", 0, 10, 1, 0,
   "damped Arrow-Hurwicz: ascent step of the multipliers"},
  {"ballistic", "dah_gamma", T_DOUBLE, OFF(dah_gamma), "0.05", 0, 10, 0, 0,
   "damped Arrow-Hurwicz: weight of the lambda phi grad(phi) term (capped by the stability "
   "bound of the particles moved)"},
  {"ballistic", "dah_c", T_DOUBLE, OFF(dah_c), "0.3", 0, 1, 1, 0,
   "damped Arrow-Hurwicz: friction per pseudo-step (1 with dah_gamma = 0 is plain "
   "Arrow-Hurwicz)"},
  {"ballistic", "dah_max_iter", T_INT, OFF(dah_max_iter), "5000", 1, 1e9, 0, 0,
   "damped Arrow-Hurwicz: iteration cap; then alpha, beta, gamma are halved and the solve "
   "restarts (at most 3 times, reported)"},
  {"ballistic", "window", T_DOUBLE, OFF(ball_window), "2", 0, 1000, 1, 0,
   "event driven: the neighbour list of candidate pairs is rebuilt each time the fastest "
   "cluster has moved window * max radius"},
  {"dpd", "units", T_ENUM, OFF(dpd_units), "reduced", 0, 0, 0, "reduced|si",
   "units of every value of the scenario: reduced (any consistent units, e.g. the thesis's: "
   "length = particle diameter, mass = one particle, energy = 3 kT) or si (m, kg, s, J; agglo "
   "converts to the reduced units length = 2 particles.radius, mass = particles.mass, energy = "
   "3 dpd.kT, and prints the conversion)"},
  {"dpd", "conservative", T_ENUM, OFF(dpd_conservative), "groot_warren", 0, 0, 0,
   "groot_warren|vdw|vdw_reduced|capillary|edl|lj|none",
   "conservative pair force: groot_warren a(1-r/rc); vdw = Hamaker sphere-sphere (exact); "
   "vdw_reduced = a/(q^3(q^2-1)^2), q = r/(ri+rj) (thesis (4.2)); capillary = Rabinovich liquid "
   "bridge; edl = electrostatic double layer; lj = Lennard-Jones; none = thermostat only"},
  {"dpd", "a", T_DOUBLE, OFF(dpd_a), "25", -BIG, BIG, 0, 0,
   "groot_warren: maximum repulsion a_ij (force)"},
  {"dpd", "gamma", T_DOUBLE, OFF(dpd_gamma), "4.5", 0, BIG, 0, 0,
   "dissipative coefficient gamma (mass/time); sigma^2 = 2 gamma kT"},
  {"dpd", "kT", T_DOUBLE, OFF(dpd_kT), "1", 0, BIG, 1, 0,
   "thermal energy k_B T (si: J, 4.14e-21 at 300 K); initial velocities Maxwell-Boltzmann at kT"},
  {"dpd", "rc", T_DOUBLE, OFF(dpd_rc), "1", 0, BIG, 1, 0,
   "cut-off of every pair force (centre distance)"},
  {"dpd", "lambda", T_DOUBLE, OFF(dpd_lambda), "0.65", 0, 1, 0, 0,
   "DPD-VV (Groot-Warren) velocity prediction factor; 0.5 = velocity Verlet"},
  {"dpd", "noise", T_ENUM, OFF(dpd_noise), "uniform", 0, 0, 0, "uniform|gaussian",
   "distribution of the pair random numbers zeta_ij (unit variance): uniform sqrt(3) U(-1,1) "
   "(Groot-Warren) or gaussian"},
  {"dpd", "thermostat", T_ENUM, OFF(dpd_thermostat), "dpd", 0, 0, 0, "dpd|transverse|langevin",
   "dpd = the pair dissipative and random forces along the pair axis (Groot-Warren, the "
   "thesis's; central, so they cannot cool the rotation of clusters); transverse = the same plus "
   "their transverse part, friction transverse_ratio * gamma perpendicular to the pair axis "
   "(Junghans, Praprotnik, Kremer 2008); langevin = implicit solvent: no pair thermostat, a "
   "friction langevin_gamma and noise on every particle (docs/dpd.md)"},
  {"dpd", "transverse_ratio", T_DOUBLE, OFF(dpd_transverse_ratio), "1", 0, BIG, 0, 0,
   "transverse thermostat: gamma_perp / gamma of every pair (sigma_perp^2 = 2 gamma_perp kT)"},
  {"dpd", "langevin_gamma", T_DOUBLE, OFF(dpd_langevin_gamma), "1", 0, BIG, 1, 0,
   "langevin thermostat: friction coefficient xi of every particle (mass/time), force "
   "-xi v + sqrt(2 xi kT/dt) eta; relaxation time m/xi"},
  {"dpd", "species", T_LIST, OFF(dpd_species), "", 0, 1, 0, 0,
   "fractions of the particle species (ids in blocks, in order); empty = one species"},
  {"dpd", "species_radius", T_LIST, OFF(dpd_species_radius), "", 0, BIG, 1, 0,
   "radius of each species (one per dpd.species fraction); empty = particles.radius etc."},
  {"dpd", "species_mass", T_LIST, OFF(dpd_species_mass), "", 0, BIG, 1, 0,
   "mass of each species (one per dpd.species fraction); empty = particles.mass and mass_rule"},
  {"dpd", "conservative_ij", T_ENUMLIST, OFF(dpd_conservative_ij), "", 0, AGGLO_LIST_MAX, 0,
   "groot_warren|vdw|vdw_reduced|capillary|edl|lj|none",
   "conservative force per species pair, upper triangle row by row (e.g. solvent-solvent, "
   "solvent-colloid, colloid-colloid); empty = dpd.conservative for all"},
  {"dpd", "rc_ij", T_LIST, OFF(dpd_rc_ij), "", 0, BIG, 1, 0,
   "cut-off per species pair (forces and DPD weights), upper triangle; empty = dpd.rc for all"},
  {"dpd", "hamaker_ij", T_LIST, OFF(dpd_hamaker_ij), "", 0, BIG, 0, 0,
   "vdw Hamaker constant per species pair, upper triangle; empty = dpd.hamaker for all"},
  {"dpd", "surface_tension_ij", T_LIST, OFF(dpd_surface_tension_ij), "", 0, BIG, 0, 0,
   "capillary surface tension per species pair, upper triangle; empty = dpd.surface_tension"},
  {"parallel", "grid", T_LIST, OFF(parallel_grid), "", 1, 65536, 0, 0,
   "processor grid px py (pz) of `mpirun -np K agglo run` (model = dpd or contact): the box is "
   "cut into px x py x pz bricks, px py pz = K; empty = the fewest ghosts (bricks closest to "
   "cubes) among grids whose bricks are at least the cut-off wide"},
  {"parallel", "crossing", T_ENUM, OFF(parallel_crossing), "auto", 0, 0, 0, "auto|gather|spread",
   "model = contact over MPI: the contact components that cross ranks are gathered to rank 0 "
   "and solved there, or spread: solved together by MPRGP over the ranks (products with a ghost "
   "exchange, dot products by MPI_Allreduce); auto = spread when a rank holds more than 2000 "
   "constraints of one such component and solver.method is mprgp or active_set "
   "(docs/performance.md)"},
  {"dpd", "vdw_a_ij", T_LIST, OFF(dpd_vdw_a_ij), "", 0, BIG, 0, 0,
   "vdw_reduced a per species pair, upper triangle; empty = dpd.vdw_a for all"},
  {"dpd", "edl_charge_product_ij", T_LIST, OFF(dpd_edl_charge_product_ij), "", -BIG, BIG, 0, 0,
   "edl: product sigma_i sigma_j of the two surfaces' charge densities per species pair, upper "
   "triangle (< 0: unlike charges attract); empty = dpd.edl_charge^2 for all"},
  {"dpd", "edl_debye_ij", T_LIST, OFF(dpd_edl_debye_ij), "", 0, BIG, 1, 0,
   "edl: Debye length per species pair, upper triangle; empty = dpd.edl_debye for all"},
  {"dpd", "lj_epsilon_ij", T_LIST, OFF(dpd_lj_epsilon_ij), "", 0, BIG, 0, 0,
   "lj well depth per species pair, upper triangle; empty = dpd.lj_epsilon for all"},
  {"dpd", "lj_sigma_ij", T_LIST, OFF(dpd_lj_sigma_ij), "", 0, BIG, 1, 0,
   "lj sigma per species pair, upper triangle; empty = dpd.lj_sigma for all"},
  {"dpd", "a_ij", T_LIST, OFF(dpd_a_ij), "", -BIG, BIG, 0, 0,
   "groot_warren a per species pair, upper triangle row by row (a_00, a_01, .., a_11, ..); "
   "empty = dpd.a for all"},
  {"dpd", "gamma_ij", T_LIST, OFF(dpd_gamma_ij), "", 0, BIG, 0, 0,
   "gamma per species pair, upper triangle row by row; empty = dpd.gamma for all"},
  {"dpd", "hamaker", T_DOUBLE, OFF(dpd_hamaker), "0.805", 0, BIG, 0, 0,
   "vdw: Hamaker constant A (energy; 0.805 = 1e-20 J in the thesis's units)"},
  {"dpd", "vdw_a", T_DOUBLE, OFF(dpd_vdw_a), "0.134", 0, BIG, 0, 0,
   "vdw_reduced: a of a/(q^3(q^2-1)^2) (force; the thesis's a = A/6 in diameter units)"},
  {"dpd", "surface_tension", T_DOUBLE, OFF(dpd_surface_tension), "2318", 0, BIG, 0, 0,
   "capillary: liquid surface tension gamma_s (energy/area; 2318 = water, 0.072 N/m, in the "
   "thesis's units)"},
  {"dpd", "contact_angle", T_DOUBLE, OFF(dpd_contact_angle), "0", 0, 90, 0, 0,
   "capillary: contact angle theta in degrees"},
  {"dpd", "fill_angle", T_DOUBLE, OFF(dpd_fill_angle), "10", 0, 90, 1, 0,
   "capillary: half-filling (embracing) angle alpha of the bridge in degrees"},
  {"dpd", "capillary_volume", T_ENUM, OFF(dpd_cap_volume), "constant", 0, 0, 0,
   "constant|thesis",
   "capillary bridge volume: constant V = pi R^3 alpha^4/2 (formed at contact), or the thesis's "
   "V = pi R^2 alpha^2 H + pi R^3 alpha^4/2 at every gap H (then F = F0/(1 + H/(R alpha^2)))"},
  {"dpd", "capillary_bridge", T_ENUM, OFF(dpd_cap_bridge), "memory", 0, 0, 0, "memory|always",
   "capillary: memory = a bridge forms when two particles touch (gap <= 0) and ruptures beyond "
   "the gap (1 + theta/2) V^(1/3) of Lian et al. (1993), V = pi R^3 alpha^4/2; pairs without a "
   "bridge feel no capillary force; always = the thesis's literal form, every pair attracted "
   "up to dpd.rc"},
  {"dpd", "edl_charge", T_DOUBLE, OFF(dpd_edl_charge), "1", 0, BIG, 0, 0,
   "edl: surface charge density sigma_q (charge/area)"},
  {"dpd", "edl_debye", T_DOUBLE, OFF(dpd_edl_debye), "0.5", 0, BIG, 1, 0,
   "edl: Debye length 1/kappa"},
  {"dpd", "edl_permittivity", T_DOUBLE, OFF(dpd_edl_permittivity), "1", 0, BIG, 1, 0,
   "edl: permittivity eps_r eps_0 of the medium"},
  {"dpd", "lj_epsilon", T_DOUBLE, OFF(dpd_lj_epsilon), "1", 0, BIG, 0, 0, "lj: well depth (energy)"},
  {"dpd", "lj_sigma", T_DOUBLE, OFF(dpd_lj_sigma), "1", 0, BIG, 1, 0, "lj: sigma (length)"},
  {"dpd", "lj_rmin", T_DOUBLE, OFF(dpd_lj_rmin), "0.8", 0, 1.12, 0, 0,
   "lj: the force is frozen below lj_rmin * sigma (cap of the repulsive singularity)"},
  {"dpd", "min_gap", T_DOUBLE, OFF(dpd_min_gap), "0.02", 0, BIG, 0, 0,
   "force cap of vdw, vdw_reduced, capillary, edl: below this surface gap the force keeps its "
   "value at min_gap (0.02 diameter = 0.4 nm for 20 nm particles); must be > 0 for vdw"},
  {"dpd", "core_k", T_DOUBLE, OFF(dpd_core_k), "0", 0, BIG, 0, 0,
   "hard core: harmonic repulsion core_k (ri + rj - r) between overlapping particles "
   "(force/length); 0 = none (particles may overlap, as in the thesis)"},
  {"dpd", "agglomerate_gap", T_DOUBLE, OFF(dpd_agglomerate_gap), "0", 0, BIG, 0, 0,
   "two particles belong to one agglomerate when their surface gap is below this (0: centres "
   "closer than one diameter, the thesis's definition)"},
  {"gluey", "gamma_min", T_DOUBLE, OFF(gluey_gamma_min), "-inf", -INFINITY, 0, 0, 0,
   "roughness threshold of the adhesion memory: gamma >= gamma_min; -inf = smooth gluey "
   "particles, 0 = plain inelastic contact, in between = rough"},
  {"gluey", "radius_weighting", T_ENUM, OFF(gluey_radius_weighting), "off", 0, 0, 0, "off|on",
   "on: gamma -= (1/r_i + 1/r_j)^2 h lambda (Lefebvre's rough model, 1/r_i^2 against a plane); "
   "off: gamma -= h lambda"},
  {"gluey", "glued_rows", T_ENUM, OFF(gluey_glued_rows), "equality", 0, 0, 0,
   "equality|bounded|keep",
   "constraint of a glued contact: equality = D + h G.v = 0 (the paper's); bounded = "
   "0 <= D + h G.v <= max(D, 0), cannot open, may close; keep = D + h G.v = max(D, 0), keeps its "
   "gap, closes an overlap (bounded and keep are always feasible for a rigidly moving glued "
   "cluster; see docs/gluey.md)"},
  {"gluey", "force_times", T_LIST, OFF(gluey_force_times), "", 0, BIG, 0, 0,
   "times (ascending) at which the external force per unit mass changes to the next value of "
   "gluey.force (zero before the first); added to gravity.g"},
  {"gluey", "force", T_LIST, OFF(gluey_force), "", -BIG, BIG, 0, 0,
   "external force per unit mass from each of gluey.force_times on: run.dim values per time"},
  {"gluey", "skin", T_DOUBLE, OFF(gluey_skin), "0.5", 0, BIG, 0, 0,
   "Verlet skin of the neighbour list in mean radii (0: rebuilt every step; the adhesion memory "
   "is carried by pair, whatever the rebuilds)"},
  {"gluey", "region", T_LIST, OFF(gluey_region), "", -BIG, BIG, 0, 0,
   "random placement inside this box only: low corner then high corner (2 run.dim values); "
   "empty = the whole box"},
  {"gluey", "positions", T_LIST, OFF(gluey_positions), "", -BIG, BIG, 0, 0,
   "explicit initial centres, run.dim values per particle (overrides the placement)"},
  {"gluey", "velocities", T_LIST, OFF(gluey_velocities), "", -BIG, BIG, 0, 0,
   "explicit initial velocities, run.dim values per particle (the rest start at rest)"},
  {"obstacles", "planes", T_LIST, OFF(obs_planes), "", -BIG, BIG, 0, 0,
   "fixed planes n.x >= c: run.dim values of the normal n then c, per plane (gluey model)"},
  {"obstacles", "segments", T_LIST, OFF(obs_segments), "", -BIG, BIG, 0, 0,
   "fixed two-sided walls of finite length: two end points (2 run.dim values) per segment"},
  {"obstacles", "spheres", T_LIST, OFF(obs_spheres), "", -BIG, BIG, 0, 0,
   "fixed spheres: centre (run.dim values) and radius, per sphere"},
  {"obstacles", "box", T_LIST, OFF(obs_box), "", -BIG, BIG, 0, 0,
   "a square box rotating about its centre: centre x, centre y, side, angular velocity (rad per "
   "time unit); particles inside"},
  {"obstacles", "wheel", T_LIST, OFF(obs_wheel), "", -BIG, BIG, 0, 0,
   "a paddle wheel of spheres rotating about its centre: centre x, centre y, radius, blades, "
   "ball radius, angular velocity"},
  {"output", "trajectory_interval", T_DOUBLE, OFF(trajectory_interval), "0.1", 0, BIG, 0, 0,
   "time between frames of trajectory.xyz; 0 = first and last frame only"},
  {"output", "stats_interval", T_DOUBLE, OFF(stats_interval), "0.02", 0, BIG, 0, 0,
   "time between rows of stats.csv; 0 = every step"},
  {"output", "analysis_interval", T_DOUBLE, OFF(analysis_interval), "0.5", 0, BIG, 0, 0,
   "time between rows of stats.csv that carry the aggregate indicators (fractal dimensions, "
   "contacts per sphere, aspect ratio; docs/analysis.md); 0 = never. Use a multiple of "
   "output.stats_interval"},
  {"output", "snapshots", T_LIST, OFF(snapshots), "0, 0.4, 0.6, 0.8, 1, 1.2, 1.8, 3", 0, BIG, 0, 0,
   "times of the PNG snapshots (the step nearest each time)"},
  {"output", "png_width", T_INT, OFF(png_width), "800", 16, 20000, 0, 0, "snapshot width in pixels"},
  {"output", "format", T_ENUM, OFF(traj_format), "xyz", 0, 0, 0, "xyz|h5md",
   "trajectory format: xyz = trajectory.xyz, extended XYZ text (OVITO, ASE, any text tool); h5md = "
   "trajectory.h5md, H5MD/HDF5, about 1/5 of the size and 20 times faster to write, with "
   "trajectory.xdmf for ParaView (MDAnalysis, h5py); docs/formats.md"},
  {"output", "checkpoint_minutes", T_DOUBLE, OFF(checkpoint_minutes), "10", 0, BIG, 0, 0,
   "wall-clock minutes between restart points (state.xyz + contacts.txt, written atomically at the "
   "next stats.csv row) so that a killed run resumes (`agglo run --resume DIR`); 0 = none"},
  {"output", "checkpoint_interval", T_DOUBLE, OFF(checkpoint_interval), "0", 0, BIG, 0, 0,
   "simulated time between restart points (at the next stats.csv row), besides "
   "output.checkpoint_minutes; 0 = none"},
  {"output", "checkpoint_format", T_ENUM, OFF(checkpoint_format), "text", 0, 0, 0, "text|hdf5",
   "restart point format: text = state.xyz + contacts.txt (full precision text, readable as a "
   "trajectory frame); hdf5 = one file state.h5 with the same content as native numbers "
   "(docs/formats.md). A restart reads the restart point its directory holds (both: the later "
   "step, on a tie this format's)"},
  {"output", "compression", T_INT, OFF(h5md_deflate), "0", 0, 9, 0, 0,
   "H5MD: deflate level of positions and velocities (0 = stored raw; cluster labels are always "
   "compressed). Level 1 saves about 10% on them and takes 15 times longer to write"},
  {"picture", "style", T_ENUM, OFF(pic_style), "auto", 0, 0, 0, "auto|flat|shaded",
   "pictures (snapshots, agglo render, agglo movie; docs/pictures.md): auto = shaded spheres in "
   "3D, flat discs in 2D; flat = discs at their true radius seen along -z (3D: darker when "
   "deeper); shaded = spheres lit from picture.light, with depth fog, seen along picture.view"},
  {"picture", "projection", T_ENUM, OFF(pic_projection), "perspective", 0, 0, 0,
   "perspective|orthographic", "shaded 3D pictures: perspective (field of view picture.fov) or "
   "orthographic"},
  {"picture", "view", T_LIST, OFF(pic_view), "1, -1.6, 0.9", -BIG, BIG, 0, 0,
   "shaded 3D pictures: direction from the centre of the box toward the eye (3 values; "
   "0, 0, 1 looks down -z)"},
  {"picture", "up", T_LIST, OFF(pic_up), "0, 0, 1", -BIG, BIG, 0, 0,
   "shaded 3D pictures: the direction shown upward (3 values; not along picture.view)"},
  {"picture", "fov", T_DOUBLE, OFF(pic_fov), "30", 0, 120, 1, 0,
   "perspective: field of view in degrees (the box's bounding sphere fills it)"},
  {"picture", "zoom", T_DOUBLE, OFF(pic_zoom), "1", 0, 100, 1, 0,
   "magnification about the centre of the picture (1 = the whole box)"},
  {"picture", "color", T_ENUM, OFF(pic_color), "cluster", 0, 0, 0, "cluster|size|species|speed",
   "colour of a particle: cluster = a hue per cluster, monomers grey; size = its cluster's size "
   "(log scale, viridis); species = DPD species (dpd.species; one colour if none); speed = |v| "
   "(viridis, up to picture.speed_max)"},
  {"picture", "monomers", T_ENUM, OFF(pic_monomers), "show", 0, 0, 0, "show|hide",
   "hide: particles alone in their cluster are not drawn"},
  {"picture", "slab_width", T_DOUBLE, OFF(pic_slab_width), "0", 0, BIG, 0, 0,
   "> 0: only particles with |x.n - c| < slab_width are drawn (n = picture.slab_normal, c = "
   "picture.slab_center); 0 = all"},
  {"picture", "slab_normal", T_LIST, OFF(pic_slab_normal), "0, 0, 1", -BIG, BIG, 0, 0,
   "normal n of the slab (3 values, normalised)"},
  {"picture", "slab_center", T_LIST, OFF(pic_slab_center), "", -BIG, BIG, 0, 0,
   "position c of the slab along n (one value; empty = the centre of the box)"},
  {"picture", "fog", T_DOUBLE, OFF(pic_fog), "0.55", 0, 1, 0, 0,
   "shaded pictures: depth cue, the share of background colour mixed into the farthest spheres"},
  {"picture", "light", T_LIST, OFF(pic_light), "-1, 1.2, 1.6", -BIG, BIG, 0, 0,
   "shaded pictures: direction toward the light in the picture's frame (right, up, toward the "
   "viewer)"},
  {"picture", "box", T_ENUM, OFF(pic_box), "on", 0, 0, 0, "on|off",
   "draw the box (3D: its 12 edges in perspective; walls solid, periodic boundaries dashed)"},
  {"picture", "speed_max", T_DOUBLE, OFF(pic_speed_max), "0", 0, BIG, 0, 0,
   "color = speed: the speed at the top of the scale; 0 = the 99th percentile of the frame"},
};
#define NKEYS (sizeof keys / sizeof keys[0])

const char *agglo_default_scenario =
    "# Built-in default: Maury's Brownian aggregation (2D, N = 2000, his Fig. 3)\n"
    "[run]\nmodel = contact\ndim = 2\nt_end = 3\ndt = 0.02\n"
    "[particles]\nn = 2000\nradius = 0.01\nradius_spread = 0.15\n"
    "[box]\nsize = 2\nboundary = periodic\n"
    "[drag]\ntau = 0.2\n[brownian]\nsigma = 0.5\n"
    "[attraction]\nkappa = 0.003\nepsilon = 0.003\n";

static const key *find_key(const char *section, const char *name) {
  for (size_t k = 0; k < NKEYS; k++)
    if (!strcmp(keys[k].section, section) && !strcmp(keys[k].name, name)) return &keys[k];
  return NULL;
}

static int known_section(const char *section) {
  for (size_t k = 0; k < NKEYS; k++)
    if (!strcmp(keys[k].section, section)) return 1;
  return 0;
}

/* "a|b|c" -> index of word, or -1. */
static int choice_index(const char *choices, const char *word) {
  size_t len = strlen(word);
  int idx = 0;
  for (const char *p = choices; *p; idx++) {
    const char *bar = strchr(p, '|');
    size_t l = bar ? (size_t)(bar - p) : strlen(p);
    if (l == len && !strncmp(p, word, len)) return idx;
    if (!bar) break;
    p = bar + 1;
  }
  return -1;
}

static const char *choice_name(const char *choices, int idx, char *buf, size_t n) {
  const char *p = choices;
  for (int i = 0; i < idx && p; i++) {
    p = strchr(p, '|');
    if (p) p++;
  }
  if (!p) return "?";
  const char *bar = strchr(p, '|');
  size_t l = bar ? (size_t)(bar - p) : strlen(p);
  if (l >= n) l = n - 1;
  memcpy(buf, p, l);
  buf[l] = 0;
  return buf;
}

static void range_text(const key *k, char *buf, size_t n) {
  if (k->type == T_ENUM || k->type == T_ENUMLIST) {
    snprintf(buf, n, "one of %s", k->choices);
    return;
  }
  if (k->type == T_STRING) {
    snprintf(buf, n, "a file path (empty: none)");
    return;
  }
  char lo[32], hi[32];
  snprintf(lo, sizeof lo, "%g", k->lo);
  snprintf(hi, sizeof hi, "%g", k->hi);
  if (k->lo <= -BIG && k->hi >= BIG) snprintf(buf, n, "any number of magnitude <= %g", BIG);
  else if (k->hi >= BIG) snprintf(buf, n, "%s %s", k->lo_open ? ">" : ">=", lo);
  else snprintf(buf, n, "%s %s and <= %s", k->lo_open ? ">" : ">=", lo, hi);
  if (k->type == T_INT) strncat(buf, " (integer)", n - strlen(buf) - 1);
}

static int in_range(const key *k, double x) {
  if (!isfinite(x) && !(x == -INFINITY && k->lo == -INFINITY)) return 0; /* gluey.gamma_min */
  if (k->lo_open ? !(x > k->lo) : !(x >= k->lo)) return 0;
  return x <= k->hi;
}

static char *trim(char *s) {
  while (*s == ' ' || *s == '\t') s++;
  size_t l = strlen(s);
  while (l && (s[l - 1] == ' ' || s[l - 1] == '\t' || s[l - 1] == '\r' || s[l - 1] == '\n')) s[--l] = 0;
  return s;
}

static int parse_number(const char *text, double *out) {
  char *end;
  errno = 0;
  double x = strtod(text, &end);
  if (end == text || *trim(end) != 0 || errno == ERANGE) return -1;
  *out = x;
  return 0;
}

/* Set one key from its text. where names the origin for messages. */
static int set_value(agglo_config *c, const key *k, const char *value, const char *where, char *err,
                     size_t errlen) {
  char allowed[160], buf[4096]; /* 64 list values at full precision fit */
  range_text(k, allowed, sizeof allowed);
  if (strlen(value) >= sizeof buf)
    return agglo_fail(err, errlen, "%s: %s.%s: the value is too long (%zu characters, at most %zu)",
                      where, k->section, k->name, strlen(value), sizeof buf - 1);
  snprintf(buf, sizeof buf, "%s", value);
  char *v = trim(buf);
  void *dst = (char *)c + k->offset;
  switch (k->type) {
  case T_DOUBLE:
  case T_INT: {
    double x;
    if (parse_number(v, &x) != 0)
      return agglo_fail(err, errlen, "%s: %s.%s = '%s' is not a number (allowed: %s)", where, k->section,
                  k->name, v, allowed);
    if (k->type == T_INT && x != floor(x))
      return agglo_fail(err, errlen, "%s: %s.%s = '%s' is not an integer (allowed: %s)", where,
                  k->section, k->name, v, allowed);
    if (!in_range(k, x))
      return agglo_fail(err, errlen, "%s: %s.%s = %s is out of range (allowed: %s)", where, k->section,
                  k->name, v, allowed);
    if (k->type == T_DOUBLE) *(double *)dst = x;
    else if (!strcmp(k->name, "dim")) *(int *)dst = (int)x;
    else *(int64_t *)dst = (int64_t)x;
    return 0;
  }
  case T_ENUM: {
    int idx = choice_index(k->choices, v);
    if (idx < 0)
      return agglo_fail(err, errlen, "%s: %s.%s = '%s' is not allowed (allowed: %s)", where, k->section,
                  k->name, v, allowed);
    *(int *)dst = idx;
    return 0;
  }
  case T_LIST: {
    agglo_list *l = dst;
    l->n = 0;
    for (char *tok = strtok(v, ", \t"); tok; tok = strtok(NULL, ", \t")) {
      double x;
      if (l->n == AGGLO_LIST_MAX)
        return agglo_fail(err, errlen, "%s: %s.%s has more than %d values", where, k->section, k->name,
                    AGGLO_LIST_MAX);
      if (parse_number(tok, &x) != 0)
        return agglo_fail(err, errlen, "%s: %s.%s: '%s' is not a number (a list of numbers separated by "
                    "commas or spaces is expected)", where, k->section, k->name, tok);
      if (!in_range(k, x))
        return agglo_fail(err, errlen, "%s: %s.%s: %s is out of range (allowed: %s)", where, k->section,
                    k->name, tok, allowed);
      l->v[l->n++] = x;
    }
    return 0;
  }
  case T_STRING:
    if (strlen(v) >= AGGLO_PATH_MAX)
      return agglo_fail(err, errlen, "%s: %s.%s: longer than %d characters", where, k->section, k->name,
                        AGGLO_PATH_MAX - 1);
    snprintf(dst, AGGLO_PATH_MAX, "%s", v);
    return 0;
  case T_ENUMLIST: {
    agglo_enum_list *l = dst;
    l->n = 0;
    for (char *tok = strtok(v, ", \t"); tok; tok = strtok(NULL, ", \t")) {
      int idx = choice_index(k->choices, tok), most = k->hi > 0 ? (int)k->hi : 3;
      if (idx < 0 || l->n == most) {
        if (most == 3)
          return agglo_fail(err, errlen, "%s: %s.%s: '%s' is not allowed (allowed: one to three of %s)",
                      where, k->section, k->name, tok, k->choices);
        return agglo_fail(err, errlen, "%s: %s.%s: '%s' is not allowed (allowed: one to %d of %s)",
                          where, k->section, k->name, tok, most, k->choices);
      }
      l->v[l->n++] = idx;
    }
    if (l->n == 0 && k->def[0]) /* an empty default (dpd.conservative_ij) may stay empty */
      return agglo_fail(err, errlen, "%s: %s.%s is empty (allowed: %s)", where, k->section, k->name,
                  allowed);
    return 0;
  }
  }
  return 0;
}

void agglo_config_defaults(agglo_config *c) {
  memset(c, 0, sizeof *c);
  char err[256];
  for (size_t k = 0; k < NKEYS; k++)
    if (set_value(c, &keys[k], keys[k].def, "default", err, sizeof err) != 0) abort();
}

/* INI reading: a line-counting reader so that messages can name file:line. */
typedef struct {
  FILE *f;
  const char *text; /* or a string */
  int line, too_long;
  long bad; /* agglo_read_line's error on line `line` (a NUL byte, a read error) */
  int indented; /* the last line read starts with a blank: a continuation of a value */
  agglo_config *cfg;
  const char *name;
  char *err;
  size_t errlen;
  int failed, fail_line; /* the first bad entry and its line */
  unsigned char seen[NKEYS];
} reader;

static char *read_line(char *str, int num, void *stream) {
  reader *r = stream;
  char *got;
  if (r->f) {
    long len = agglo_read_line(r->f, str, (size_t)num);
    if (len == AGGLO_LINE_LONG) r->too_long = r->line + 1;
    else if (len < 0) r->bad = len, r->fail_line = r->line + 1;
    got = len > 0 ? str : NULL; /* a bad line ends the reading */
  } else {
    if (!*r->text) return NULL;
    const char *nl = strchr(r->text, '\n');
    size_t l = nl ? (size_t)(nl - r->text + 1) : strlen(r->text);
    if (l > (size_t)num - 1) l = (size_t)num - 1;
    memcpy(str, r->text, l);
    str[l] = 0;
    r->text += l;
    got = str;
  }
  if (!got) return NULL;
  r->line++;
  r->indented = (got[0] == ' ' || got[0] == '\t') && got[strspn(got, " \t\r\n")] != 0;
  size_t l = strlen(got);
  if (!r->f && l == (size_t)num - 1 && got[l - 1] != '\n' && !r->too_long) r->too_long = r->line;
  return got;
}

static int on_entry(void *user, const char *section, const char *name, const char *value) {
  reader *r = user;
  if (r->failed) return 0;
  char where[600];
  r->fail_line = r->line;
  snprintf(where, sizeof where, "%s:%d", r->name, r->line);
  const key *k = find_key(section, name);
  if (!k) {
    r->failed = 1;
    if (!known_section(section))
      agglo_fail(r->err, r->errlen, "%s: unknown section [%s] (see `agglo run --help` for all keys)",
           where, section);
    else
      agglo_fail(r->err, r->errlen, "%s: unknown key '%s' in section [%s] (see `agglo run --help`)",
           where, name, section);
    return 0;
  }
  size_t idx = (size_t)(k - keys);
  if (r->seen[idx] && r->indented && k->type == T_LIST) {
    /* a list continued on an indented line: append */
    agglo_list more, *l = (agglo_list *)((char *)r->cfg + k->offset);
    agglo_config tmp;
    if (set_value(&tmp, k, value, where, r->err, r->errlen) != 0) return !(r->failed = 1);
    more = *(agglo_list *)((char *)&tmp + k->offset);
    if (l->n + more.n > AGGLO_LIST_MAX) {
      r->failed = 1;
      agglo_fail(r->err, r->errlen, "%s: %s.%s has more than %d values", where, section, name,
                 AGGLO_LIST_MAX);
      return 0;
    }
    for (int i = 0; i < more.n; i++) l->v[l->n++] = more.v[i];
    return 1;
  }
  if (r->seen[idx]) {
    r->failed = 1;
    agglo_fail(r->err, r->errlen, "%s: key %s.%s is given twice (keys must not be indented: an indented "
         "line continues the previous value)", where, section, name);
    return 0;
  }
  r->seen[idx] = 1;
  if (set_value(r->cfg, k, value, where, r->err, r->errlen) != 0) r->failed = 1;
  return !r->failed;
}

static int parse(reader *r) {
  int rc = ini_parse_stream(read_line, r, on_entry, r);
  if (r->bad && !r->failed) {
    char where[4200];
    snprintf(where, sizeof where, "%s:%d", r->name, r->fail_line);
    return agglo_line_fail(r->err, r->errlen, where, r->bad, 200);
  }
  /* rc is the first bad line; a syntax error before the first bad entry is reported as such
     (e.g. an unclosed [section] would otherwise show as an unknown section on a later line) */
  if (r->failed && !(rc > 0 && rc < r->fail_line)) return -1;
  if (r->too_long)
    return agglo_fail(r->err, r->errlen, "%s:%d: line too long (at most 199 characters)", r->name,
                r->too_long);
  if (rc > 0)
    return agglo_fail(r->err, r->errlen, "%s:%d: syntax error (expected [section], key = value, or a "
                "comment starting with ; or #)", r->name, rc);
  return 0;
}

int agglo_config_read_file(agglo_config *c, const char *path, char *err, size_t errlen) {
  reader r = {0};
  r.f = agglo_open_read(path, "r", err, errlen);
  if (!r.f && errno != EINVAL)
    return agglo_fail(err, errlen, "%s: cannot open scenario file: %s", path, strerror(errno));
  if (!r.f) return -1;
  r.cfg = c, r.name = path, r.err = err, r.errlen = errlen;
  int rc = parse(&r);
  fclose(r.f);
  return rc;
}

int agglo_config_read_string(agglo_config *c, const char *text, const char *name, char *err,
                             size_t errlen) {
  reader r = {0};
  r.text = text, r.cfg = c, r.name = name, r.err = err, r.errlen = errlen;
  return parse(&r);
}

static const key *lookup(const char *dotted, const char *where, char *err, size_t errlen);

int agglo_config_read_assignment(agglo_config *c, const char *assignment, char *err, size_t errlen) {
  char buf[4200], where[600];
  snprintf(where, sizeof where, "-s %.580s", assignment);
  if (strlen(assignment) >= sizeof buf) return agglo_fail(err, errlen, "%s: too long", where);
  strcpy(buf, assignment);
  char *eq = strchr(buf, '=');
  char *dot = strchr(buf, '.');
  if (!eq || !dot || dot > eq)
    return agglo_fail(err, errlen, "%s: expected section.key=value, e.g. -s run.dt=0.01", where);
  *eq = 0;
  const key *k = lookup(buf, where, err, errlen);
  return k ? set_value(c, k, eq + 1, where, err, errlen) : -1;
}

/* The shortest decimal that reads back to the same double. */
static void shortest(char *buf, size_t n, double x) {
  for (int digits = 15; digits <= 17; digits++) {
    snprintf(buf, n, "%.*g", digits, x);
    if (strtod(buf, NULL) == x) return;
  }
}

/* The value of one key as it would be written in a scenario file. */
static void write_value(const agglo_config *c, const key *K, FILE *f) {
  char buf[64];
  const void *src = (const char *)c + K->offset;
  switch (K->type) {
  case T_DOUBLE: shortest(buf, sizeof buf, *(const double *)src), fputs(buf, f); break;
  case T_INT:
    if (!strcmp(K->name, "dim")) fprintf(f, "%d", *(const int *)src);
    else fprintf(f, "%lld", (long long)*(const int64_t *)src);
    break;
  case T_ENUM: fprintf(f, "%s", choice_name(K->choices, *(const int *)src, buf, sizeof buf)); break;
  case T_LIST: {
    const agglo_list *l = src;
    /* eight values a line, the rest on indented continuation lines (lines stay short) */
    for (int i = 0; i < l->n; i++) {
      shortest(buf, sizeof buf, l->v[i]);
      fprintf(f, "%s%s", i == 0 ? "" : i % 8 ? ", " : ",\n    ", buf);
    }
    break;
  }
  case T_STRING: fputs(src, f); break;
  case T_ENUMLIST: {
    const agglo_enum_list *l = src;
    for (int i = 0; i < l->n; i++)
      fprintf(f, "%s%s", i ? " " : "", choice_name(K->choices, l->v[i], buf, sizeof buf));
    break;
  }
  }
}

int agglo_config_write(const agglo_config *c, FILE *f) {
  const char *section = "";
  for (size_t k = 0; k < NKEYS; k++) {
    const key *K = &keys[k];
    if (strcmp(section, K->section)) fprintf(f, "%s[%s]\n", k ? "\n" : "", section = K->section);
    fprintf(f, "%s = ", K->name);
    write_value(c, K, f);
    fputc('\n', f);
  }
  return ferror(f) ? -1 : 0;
}

/* "section.key" split into a known key, or -1 with a message. */
static const key *lookup(const char *dotted, const char *where, char *err, size_t errlen) {
  char buf[256];
  const char *dot = strchr(dotted, '.');
  if (!dot || strlen(dotted) >= sizeof buf) {
    agglo_fail(err, errlen, "%s: expected a key as section.key, e.g. run.dt", where);
    return NULL;
  }
  snprintf(buf, sizeof buf, "%s", dotted);
  buf[dot - dotted] = 0;
  char *section = trim(buf), *name = trim(buf + (dot - dotted) + 1);
  const key *k = find_key(section, name);
  if (!k && !known_section(section))
    agglo_fail(err, errlen, "%s: unknown section [%s] (see `agglo run --help`)", where, section);
  else if (!k)
    agglo_fail(err, errlen, "%s: unknown key '%s' in section [%s] (see `agglo run --help`)", where,
               name, section);
  return k;
}

int agglo_config_set_value(agglo_config *c, const char *dotted, const char *value, char *err,
                           size_t errlen) {
  char where[300];
  snprintf(where, sizeof where, "%.250s", dotted);
  const key *k = lookup(dotted, where, err, errlen);
  return k ? set_value(c, k, value, where, err, errlen) : -1;
}

int agglo_config_get_value(const agglo_config *c, const char *dotted, FILE *f, char *err,
                           size_t errlen) {
  const key *k = lookup(dotted, dotted, err, errlen);
  if (!k) return -1;
  write_value(c, k, f);
  return 0;
}

void agglo_config_print_keys(FILE *f, int markdown) {
  const char *section = "";
  char allowed[160];
  if (markdown) fprintf(f, "| key | default | allowed | meaning |\n| --- | --- | --- | --- |\n");
  for (size_t k = 0; k < NKEYS; k++) {
    const key *K = &keys[k];
    range_text(K, allowed, sizeof allowed);
    if (markdown) {
      fprintf(f, "| `%s.%s` | `%s` | %s | %s |\n", K->section, K->name, *K->def ? K->def : "(none)",
              allowed, K->help);
    } else {
      if (strcmp(section, K->section)) fprintf(f, "\n  [%s]\n", section = K->section);
      fprintf(f, "    %-20s = %-12s %s\n%27s(allowed: %s)\n", K->name, *K->def ? K->def : "(none)",
              K->help, "", allowed);
    }
  }
}

/* ---- checks across keys ---- */

/* Is key K of c at its default value? */
static int at_default(const agglo_config *c, const agglo_config *d, const key *K) {
  const char *a = (const char *)c + K->offset, *b = (const char *)d + K->offset;
  switch (K->type) {
  case T_DOUBLE: return *(const double *)a == *(const double *)b;
  case T_INT: return !strcmp(K->name, "dim") ? *(const int *)a == *(const int *)b
                                              : *(const int64_t *)a == *(const int64_t *)b;
  case T_ENUM: return *(const int *)a == *(const int *)b;
  case T_LIST: {
    const agglo_list *x = (const agglo_list *)a, *y = (const agglo_list *)b;
    return x->n == y->n && !memcmp(x->v, y->v, (size_t)x->n * sizeof x->v[0]);
  }
  case T_ENUMLIST: {
    const agglo_enum_list *x = (const agglo_enum_list *)a, *y = (const agglo_enum_list *)b;
    return x->n == y->n && !memcmp(x->v, y->v, (size_t)x->n * sizeof x->v[0]);
  }
  case T_STRING: return !strcmp(a, b);
  }
  return 1;
}

/* A key the model does not read, set away from its default, would be ignored: refuse it. */
static int check_unused(const agglo_config *c, char *err, size_t errlen) {
  static const char *model_names[] = {"contact", "ballistic", "dpd", "gluey"};
  agglo_config d;
  agglo_config_defaults(&d);
  for (size_t k = 0; k < NKEYS; k++) {
    unsigned models = agglo_config_key_models(keys[k].section, keys[k].name);
    if ((models >> c->model) & 1u || at_default(c, &d, &keys[k])) continue;
    char used[64] = "";
    for (int m = 0; m < 4; m++)
      if ((models >> m) & 1u)
        snprintf(used + strlen(used), sizeof used - strlen(used), "%s%s", *used ? ", " : "", model_names[m]);
    return agglo_fail(err, errlen, "%s.%s is set but the %s model does not use it (used by: %s); "
                      "remove it or choose another run.model", keys[k].section, keys[k].name,
                      model_names[c->model], used);
  }
  return 0;
}

int agglo_config_validate(const agglo_config *c, char *err, size_t errlen) {
  if (check_unused(c, err, errlen) != 0) return -1;
  if (agglo_picture_check(c, err, errlen) != 0) return -1;
  int d = c->dim;
  const agglo_list *lists[] = {&c->size, &c->flow_velocity, &c->gravity};
  const char *names[] = {"box.size", "flow.velocity", "gravity.g"};
  for (int q = 0; q < 3; q++)
    if (lists[q]->n != 1 && lists[q]->n != d && !(q == 0 && lists[q]->n == 0))
      return agglo_fail(err, errlen, "%s has %d values: give 1 or %d (run.dim)", names[q], lists[q]->n, d);
  if (c->boundary.n != 1 && c->boundary.n != d)
    return agglo_fail(err, errlen, "box.boundary has %d values: give 1 or %d (run.dim)", c->boundary.n, d);
  if (c->radii.n > 0 && c->radii.n > c->n)
    return agglo_fail(err, errlen, "particles.radii lists %d radii for %lld particles", c->radii.n,
                (long long)c->n);
  double rmax = c->radius * (1 + c->radius_spread), rmean = c->radius;
  if (c->radii.n > 0) {
    rmax = 0, rmean = 0;
    for (int i = 0; i < c->radii.n; i++) rmax = fmax(rmax, c->radii.v[i]), rmean += c->radii.v[i];
    rmean /= c->radii.n;
  }
  /* memory: about 1.2 kB per particle at the peak (state, neighbour list, two contact sets,
     solver arrays; docs/performance.md), refused up front rather than by the OOM killer */
  double bytes = 1200.0 * (double)c->n;
  double phys = (double)sysconf(_SC_PHYS_PAGES) * (double)sysconf(_SC_PAGESIZE);
  if (phys > 0 && bytes > 0.8 * phys)
    return agglo_fail(err, errlen, "particles.n = %lld needs about %.3g GB of memory; this machine has "
                "%.3g GB: lower particles.n", (long long)c->n, bytes / 1e9, phys / 1e9);
  if (c->n > 2147483647)
    return agglo_fail(err, errlen, "particles.n = %lld: at most 2147483647 particles (32-bit indices)",
                (long long)c->n);
  /* total particle area/volume against the box */
  double vol_particles = 0;
  size_t sample = c->radii.n > 0 ? (size_t)c->radii.n : 1;
  for (size_t i = 0; i < sample; i++) {
    double r = c->radii.n > 0 ? c->radii.v[i] : c->radius;
    /* E[r^2] and E[r^3] of the uniform spread */
    double s = c->radii.n > 0 ? 0 : c->radius_spread;
    double e2 = r * r * (1 + s * s / 3), e3 = r * r * r * (1 + s * s);
    vol_particles += d == 2 ? M_PI * e2 : 4.0 / 3.0 * M_PI * e3;
  }
  vol_particles *= (double)c->n / (double)sample;
  double box_vol = 1;
  if (c->fraction > 0) {
    if (c->size.n > 0)
      return agglo_fail(err, errlen, "give either particles.fraction or box.size, not both (the "
                  "fraction sets the box)");
  } else {
    if (c->size.n == 0)
      return agglo_fail(err, errlen, "box.size is not set: give it, or particles.fraction");
    for (int k = 0; k < d; k++) box_vol *= agglo_list_component(&c->size, k);
  }
  double fraction = c->fraction > 0 ? c->fraction : vol_particles / box_vol;
  double limit = c->placement == PLACE_LATTICE ? (d == 2 ? M_PI / 4 : M_PI / 6)
                                                : (d == 2 ? 0.5 : 0.32);
  if (fraction > limit && !c->from[0]) /* particles.from places them itself */
    return agglo_fail(err, errlen, "%lld particles of radius %g fill %.3f of the box, more than %s "
                "placement can reach (%.2f): enlarge box.size or lower particles.n",
                (long long)c->n, rmean, fraction,
                c->placement == PLACE_LATTICE ? "lattice" : "random", limit);
  if (c->fraction <= 0) {
    int att = c->model == MODEL_CONTACT && c->kappa > 0; /* only the contact model attracts */
    double reach = 2 * rmax + (att ? c->attraction_cutoff * c->epsilon : 0) + rmean;
    for (int k = 0; k < d; k++) {
      int periodic = c->boundary.v[c->boundary.n == 1 ? 0 : k];
      if (periodic && agglo_list_component(&c->size, k) < 2 * reach)
        return agglo_fail(err, errlen, "box.size along axis %d (%g) is too small for a periodic box: "
                    "it must exceed %g (twice the interaction range)", k, agglo_list_component(&c->size, k),
                    2 * reach);
      if (agglo_list_component(&c->size, k) < 2 * rmax)
        return agglo_fail(err, errlen, "box.size along axis %d (%g) is smaller than a particle", k,
                    agglo_list_component(&c->size, k));
    }
  }
  if (c->model == MODEL_CONTACT &&
      c->dt * (c->sigma > 0 ? c->sigma * sqrt(c->tau > 0 ? c->tau : 1) : 0) > 2 * rmax)
    return agglo_fail(err, errlen, "run.dt = %g is too large: a particle would move more than its "
                "diameter per step", c->dt);
  if (c->model == MODEL_CONTACT || c->model == MODEL_GLUEY) {
    /* a step under gravity alone, or carried by the flow, must not cross a diameter */
    double g2 = 0, big = 0;
    for (int k = 0; k < d; k++) g2 += pow(agglo_list_component(&c->gravity, k), 2);
    for (int k = 0; k < d; k++) big = fmax(big, c->fraction > 0 ? 0 : agglo_list_component(&c->size, k));
    double u = c->flow == FLOW_UNIFORM ? 0 : fabs(c->flow_rate) * (c->flow == FLOW_SHEAR || c->flow == FLOW_OSC_SHEAR ? big : 1);
    for (int k = 0; k < d && c->flow == FLOW_UNIFORM; k++) u = fmax(u, fabs(agglo_list_component(&c->flow_velocity, k)));
    if (c->flow == FLOW_NONE) u = 0;
    if (sqrt(g2) * c->dt * c->dt > 2 * rmax)
      return agglo_fail(err, errlen, "run.dt = %g is too large for gravity.g: one step of free fall "
                        "(|g| dt^2 = %g) exceeds a particle diameter (%g)", c->dt,
                        sqrt(g2) * c->dt * c->dt, 2 * rmax);
    if (u * c->dt > 4 * rmax)
      return agglo_fail(err, errlen, "run.dt = %g is too large for the flow: it carries a particle "
                        "%g per step, more than two diameters (%g); lower run.dt or flow.rate",
                        c->dt, u * c->dt, 4 * rmax);
  }
  if (c->model == MODEL_DPD) { /* docs/dpd.md */
    /* flow.* keys are refused by check_unused (config_models.c) */
    if ((c->dpd_conservative == 1 || c->dpd_conservative == 2) && !(c->dpd_min_gap > 0))
      return agglo_fail(err, errlen, "dpd.min_gap must be > 0 with dpd.conservative = vdw or "
                  "vdw_reduced (the force diverges at contact; 0.02 diameter is usual)");
    int ns = c->dpd_species.n ? c->dpd_species.n : 1, npair = ns * (ns + 1) / 2;
    double fsum = 0;
    for (int i = 0; i < c->dpd_species.n; i++) fsum += c->dpd_species.v[i];
    if (c->dpd_species.n && fabs(fsum - 1) > 1e-6)
      return agglo_fail(err, errlen, "dpd.species: the fractions add up to %g, not 1", fsum);
    if (c->dpd_a_ij.n && c->dpd_a_ij.n != npair)
      return agglo_fail(err, errlen, "dpd.a_ij has %d values: %d species need %d (upper triangle)",
                  c->dpd_a_ij.n, ns, npair);
    if (c->dpd_gamma_ij.n && c->dpd_gamma_ij.n != npair)
      return agglo_fail(err, errlen, "dpd.gamma_ij has %d values: %d species need %d (upper triangle)",
                  c->dpd_gamma_ij.n, ns, npair);
    if (npair > AGGLO_LIST_MAX)
      return agglo_fail(err, errlen, "dpd.species: %d species make %d pairs, more than %d", ns,
                        npair, AGGLO_LIST_MAX);
    const agglo_list *per_pair[] = {&c->dpd_rc_ij, &c->dpd_hamaker_ij, &c->dpd_surface_tension_ij,
                                    &c->dpd_lj_epsilon_ij, &c->dpd_lj_sigma_ij, &c->dpd_vdw_a_ij,
                                    &c->dpd_edl_charge_product_ij, &c->dpd_edl_debye_ij};
    const char *pair_names[] = {"rc_ij", "hamaker_ij", "surface_tension_ij", "lj_epsilon_ij",
                                "lj_sigma_ij", "vdw_a_ij", "edl_charge_product_ij", "edl_debye_ij"};
    for (int q = 0; q < 8; q++)
      if (per_pair[q]->n && per_pair[q]->n != npair)
        return agglo_fail(err, errlen, "dpd.%s has %d values: %d species need %d (upper triangle)",
                          pair_names[q], per_pair[q]->n, ns, npair);
    if (c->dpd_conservative_ij.n && c->dpd_conservative_ij.n != npair)
      return agglo_fail(err, errlen, "dpd.conservative_ij has %d values: %d species need %d "
                        "(upper triangle)", c->dpd_conservative_ij.n, ns, npair);
    if (c->dpd_species_radius.n && c->dpd_species_radius.n != ns)
      return agglo_fail(err, errlen, "dpd.species_radius has %d values for %d species",
                        c->dpd_species_radius.n, ns);
    if (c->dpd_species_mass.n && c->dpd_species_mass.n != ns)
      return agglo_fail(err, errlen, "dpd.species_mass has %d values for %d species",
                        c->dpd_species_mass.n, ns);
    for (int q = 0; q < c->dpd_conservative_ij.n; q++)
      if ((c->dpd_conservative_ij.v[q] == 1 || c->dpd_conservative_ij.v[q] == 2) && !(c->dpd_min_gap > 0))
        return agglo_fail(err, errlen, "dpd.min_gap must be > 0 when a pair of dpd.conservative_ij "
                          "is vdw or vdw_reduced");
    double rc_max = c->dpd_rc_ij.n ? 0 : c->dpd_rc;
    for (int q = 0; q < c->dpd_rc_ij.n; q++) rc_max = fmax(rc_max, c->dpd_rc_ij.v[q]);
    if (c->fraction <= 0)
      for (int k = 0; k < d; k++)
        if (c->boundary.v[c->boundary.n == 1 ? 0 : k] &&
            agglo_list_component(&c->size, k) < 2 * rc_max)
          return agglo_fail(err, errlen, "box.size along axis %d (%g) is too small for a periodic box: "
                      "it must be at least 2 dpd.rc = %g", k, agglo_list_component(&c->size, k),
                      2 * rc_max);
  }
  for (int i = 0; i < c->snapshots.n; i++)
    if (i && c->snapshots.v[i] < c->snapshots.v[i - 1])
      return agglo_fail(err, errlen, "output.snapshots must be in increasing order");
  return 0;
}

