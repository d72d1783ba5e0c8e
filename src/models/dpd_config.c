/* The DPD model (Mokkapati 2006) in the registry (core/models.c): the keys of [dpd], with those
   of [parallel] among them (where --help and scenario.ini have always listed them; the contact
   model reads them too); their checks across keys; its dynamics (dpd_model.c). */
#include "config/keys.h"
#include "core/error.h"
#include "core/model.h"
#include "core/rng.h"
#include "core/setup.h"
#include "models/dpd_model.h"
#include "models/dpd_pair_forces.h"
#include "models/dpd_config.h"
#include <math.h>

/* where its keys live: members of its settings (config/keys.h) */
#define OWN(member) SETTING(agglo_dpd_settings, member)

static const agglo_key keys[] = {
  {"dpd", "units", T_ENUM, OWN(units), "reduced", 0, 0, 0, "reduced|si",
   "units of every value of the scenario: reduced (any consistent units, e.g. the thesis's: "
   "length = particle diameter, mass = one particle, energy = 3 kT) or si (m, kg, s, J; agglo "
   "converts to the reduced units length = 2 particles.radius, mass = particles.mass, energy = "
   "3 dpd.kT, and prints the conversion)"},
  {"dpd", "conservative", T_ENUM, OWN(conservative), "groot_warren", 0, 0, 0,
   "groot_warren|vdw|vdw_reduced|capillary|edl|lj|none",
   "conservative pair force: groot_warren a(1-r/rc); vdw = Hamaker sphere-sphere (exact); "
   "vdw_reduced = a/(q^3(q^2-1)^2), q = r/(ri+rj) (thesis (4.2)); capillary = Rabinovich liquid "
   "bridge; edl = electrostatic double layer; lj = Lennard-Jones; none = thermostat only"},
  {"dpd", "a", T_DOUBLE, OWN(a), "25", -BIG, BIG, 0, 0,
   "groot_warren: maximum repulsion a_ij (force)"},
  {"dpd", "gamma", T_DOUBLE, OWN(gamma), "4.5", 0, BIG, 0, 0,
   "dissipative coefficient gamma (mass/time); sigma^2 = 2 gamma kT"},
  {"dpd", "kT", T_DOUBLE, OWN(kT), "1", 0, BIG, 1, 0,
   "thermal energy k_B T (si: J, 4.14e-21 at 300 K); initial velocities Maxwell-Boltzmann at kT"},
  {"dpd", "rc", T_DOUBLE, OWN(rc), "1", 0, BIG, 1, 0,
   "cut-off of every pair force (centre distance)"},
  {"dpd", "lambda", T_DOUBLE, OWN(lambda), "0.65", 0, 1, 0, 0,
   "DPD-VV (Groot-Warren) velocity prediction factor; 0.5 = velocity Verlet"},
  {"dpd", "noise", T_ENUM, OWN(noise), "uniform", 0, 0, 0, "uniform|gaussian",
   "distribution of the pair random numbers zeta_ij (unit variance): uniform sqrt(3) U(-1,1) "
   "(Groot-Warren) or gaussian"},
  {"dpd", "thermostat", T_ENUM, OWN(thermostat), "dpd", 0, 0, 0, "dpd|transverse|langevin",
   "dpd = the pair dissipative and random forces along the pair axis (Groot-Warren, the "
   "thesis's; central, so they cannot cool the rotation of clusters); transverse = the same plus "
   "their transverse part, friction transverse_ratio * gamma perpendicular to the pair axis "
   "(Junghans, Praprotnik, Kremer 2008); langevin = implicit solvent: no pair thermostat, a "
   "friction langevin_gamma and noise on every particle (docs/dpd.md)"},
  {"dpd", "transverse_ratio", T_DOUBLE, OWN(transverse_ratio), "1", 0, BIG, 0, 0,
   "transverse thermostat: gamma_perp / gamma of every pair (sigma_perp^2 = 2 gamma_perp kT)"},
  {"dpd", "langevin_gamma", T_DOUBLE, OWN(langevin_gamma), "1", 0, BIG, 1, 0,
   "langevin thermostat: friction coefficient xi of every particle (mass/time), force "
   "-xi v + sqrt(2 xi kT/dt) eta; relaxation time m/xi"},
  {"dpd", "species", T_LIST, OWN(species), "", 0, 1, 0, 0,
   "fractions of the particle species (ids in blocks, in order); empty = one species"},
  {"dpd", "species_radius", T_LIST, OWN(species_radius), "", 0, BIG, 1, 0,
   "radius of each species (one per dpd.species fraction); empty = particles.radius etc."},
  {"dpd", "species_mass", T_LIST, OWN(species_mass), "", 0, BIG, 1, 0,
   "mass of each species (one per dpd.species fraction); empty = particles.mass and mass_rule"},
  {"dpd", "conservative_ij", T_ENUMLIST, OWN(conservative_ij), "", 0, AGGLO_LIST_MAX, 0,
   "groot_warren|vdw|vdw_reduced|capillary|edl|lj|none",
   "conservative force per species pair, upper triangle row by row (e.g. solvent-solvent, "
   "solvent-colloid, colloid-colloid); empty = dpd.conservative for all"},
  {"dpd", "rc_ij", T_LIST, OWN(rc_ij), "", 0, BIG, 1, 0,
   "cut-off per species pair (forces and DPD weights), upper triangle; empty = dpd.rc for all"},
  {"dpd", "hamaker_ij", T_LIST, OWN(hamaker_ij), "", 0, BIG, 0, 0,
   "vdw Hamaker constant per species pair, upper triangle; empty = dpd.hamaker for all"},
  {"dpd", "surface_tension_ij", T_LIST, OWN(surface_tension_ij), "", 0, BIG, 0, 0,
   "capillary surface tension per species pair, upper triangle; empty = dpd.surface_tension"},
  {"parallel", "grid", T_LIST, OFF(parallel_grid), "", 1, 65536, 0, 0,
   "processor grid px py (pz) of `mpirun -np K agglo run` (model = dpd or contact): the box is "
   "cut into px x py x pz bricks, px py pz = K; empty = the fewest ghosts (bricks closest to "
   "cubes) among grids whose bricks are at least the cut-off wide; under dpd.shear_rate only "
   "1 py pz with py > 1 (x, the flow, whole)"},
  {"parallel", "crossing", T_ENUM, OFF(parallel_crossing), "auto", 0, 0, 0, "auto|gather|spread",
   "model = contact over MPI: the contact components that cross ranks are gathered to rank 0 "
   "and solved there, or spread: solved together by MPRGP over the ranks (products with a ghost "
   "exchange, dot products by MPI_Allreduce); auto = spread when a rank holds more than 2000 "
   "constraints of one such component and solver.method is mprgp or active_set "
   "(docs/performance.md)"},
  {"dpd", "vdw_a_ij", T_LIST, OWN(vdw_a_ij), "", 0, BIG, 0, 0,
   "vdw_reduced a per species pair, upper triangle; empty = dpd.vdw_a for all"},
  {"dpd", "edl_charge_product_ij", T_LIST, OWN(edl_charge_product_ij), "", -BIG, BIG, 0, 0,
   "edl: product sigma_i sigma_j of the two surfaces' charge densities per species pair, upper "
   "triangle (< 0: unlike charges attract); empty = dpd.edl_charge^2 for all"},
  {"dpd", "edl_debye_ij", T_LIST, OWN(edl_debye_ij), "", 0, BIG, 1, 0,
   "edl: Debye length per species pair, upper triangle; empty = dpd.edl_debye for all"},
  {"dpd", "lj_epsilon_ij", T_LIST, OWN(lj_epsilon_ij), "", 0, BIG, 0, 0,
   "lj well depth per species pair, upper triangle; empty = dpd.lj_epsilon for all"},
  {"dpd", "lj_sigma_ij", T_LIST, OWN(lj_sigma_ij), "", 0, BIG, 1, 0,
   "lj sigma per species pair, upper triangle; empty = dpd.lj_sigma for all"},
  {"dpd", "a_ij", T_LIST, OWN(a_ij), "", -BIG, BIG, 0, 0,
   "groot_warren a per species pair, upper triangle row by row (a_00, a_01, .., a_11, ..); "
   "empty = dpd.a for all"},
  {"dpd", "gamma_ij", T_LIST, OWN(gamma_ij), "", 0, BIG, 0, 0,
   "gamma per species pair, upper triangle row by row; empty = dpd.gamma for all"},
  {"dpd", "hamaker", T_DOUBLE, OWN(hamaker), "0.8047745018", 0, BIG, 0, 0,
   "vdw: Hamaker constant A (energy; 0.8047745018 = 1e-20 J in the thesis's units, 3 kT = "
   "3 k_B 300 K)"},
  {"dpd", "vdw_a", T_DOUBLE, OWN(vdw_a), "0.134", 0, BIG, 0, 0,
   "vdw_reduced: a of a/(q^3(q^2-1)^2) (force; the thesis's a = A/6 in diameter units)"},
  {"dpd", "surface_tension", T_DOUBLE, OWN(surface_tension), "2318", 0, BIG, 0, 0,
   "capillary: liquid surface tension gamma_s (energy/area; 2318 = water, 0.072 N/m, in the "
   "thesis's units)"},
  {"dpd", "contact_angle", T_DOUBLE, OWN(contact_angle), "0", 0, 90, 0, 0,
   "capillary: contact angle theta in degrees"},
  {"dpd", "fill_angle", T_DOUBLE, OWN(fill_angle), "10", 0, 90, 1, 0,
   "capillary: half-filling (embracing) angle alpha of the bridge in degrees"},
  {"dpd", "capillary_volume", T_ENUM, OWN(cap_volume), "constant", 0, 0, 0,
   "constant|thesis",
   "capillary bridge volume: constant V = pi R^3 alpha^4/2 (formed at contact), or the thesis's "
   "V = pi R^2 alpha^2 H + pi R^3 alpha^4/2 at every gap H (then F = F0/(1 + H/(R alpha^2)))"},
  {"dpd", "capillary_bridge", T_ENUM, OWN(cap_bridge), "memory", 0, 0, 0, "memory|always",
   "capillary: memory = a bridge forms when two particles touch (gap <= 0) and ruptures beyond "
   "the gap (1 + theta/2) V^(1/3) of Lian et al. (1993), V = pi R^3 alpha^4/2; pairs without a "
   "bridge feel no capillary force; always = the thesis's literal form, every pair attracted "
   "up to dpd.rc"},
  {"dpd", "edl_charge", T_DOUBLE, OWN(edl_charge), "1", 0, BIG, 0, 0,
   "edl: surface charge density sigma_q (charge/area)"},
  {"dpd", "edl_debye", T_DOUBLE, OWN(edl_debye), "0.5", 0, BIG, 1, 0,
   "edl: Debye length 1/kappa"},
  {"dpd", "edl_permittivity", T_DOUBLE, OWN(edl_permittivity), "1", 0, BIG, 1, 0,
   "edl: permittivity eps_r eps_0 of the medium"},
  {"dpd", "lj_epsilon", T_DOUBLE, OWN(lj_epsilon), "1", 0, BIG, 0, 0, "lj: well depth (energy)"},
  {"dpd", "lj_sigma", T_DOUBLE, OWN(lj_sigma), "1", 0, BIG, 1, 0, "lj: sigma (length)"},
  {"dpd", "lj_rmin", T_DOUBLE, OWN(lj_rmin), "0.8", 0, 1.12, 0, 0,
   "lj: the force is frozen below lj_rmin * sigma (cap of the repulsive singularity)"},
  {"dpd", "lj_shift", T_ENUM, OWN(lj_shift), "energy", 0, 0, 0, "energy|force|none",
   "lj at its cut-off rc: energy = U shifted to 0 at rc (the force is Lennard-Jones's); force = "
   "F - F(rc) and U - U(rc) + (r - rc) F(rc), both 0 at rc; none = cut (U and F jump to 0)"},
  {"dpd", "min_gap", T_DOUBLE, OWN(min_gap), "0.02", 0, BIG, 0, 0,
   "force cap of vdw and vdw_reduced (the Hamaker cut-off): below this surface gap the force "
   "keeps its value at min_gap (0.02 diameter = 0.4 nm for 20 nm particles); must be > 0 for "
   "vdw (capillary and edl are finite at contact: overlapping spheres keep the contact value)"},
  {"dpd", "core_k", T_DOUBLE, OWN(core_k), "0", 0, BIG, 0, 0,
   "hard core: harmonic repulsion core_k (ri + rj - r) between overlapping particles "
   "(force/length); 0 = none (particles may overlap, as in the thesis)"},
  {"dpd", "core_damping", T_DOUBLE, OWN(core_damping), "1", 0, BIG, 0, 0,
   "damping ratio of a pair vibrating on the hard core: overlapping pairs feel the central "
   "friction 2 core_damping sqrt(core_k mu) (mu the pair's reduced mass) and its random force at "
   "kT, under every thermostat (it removes the energy a bond releases into its stiffest "
   "vibration); 1 = critical, 0 = none (docs/dpd.md)"},
  {"dpd", "shear_rate", T_DOUBLE, OWN(shear_rate), "0", -1e6, 1e6, 0, 0,
   "Lees-Edwards shear rate gamma_dot (1/time): the images across the y faces of the box are "
   "shifted along x by +-gamma_dot L_y t (mod L_x) and move at +-gamma_dot L_y, the streaming "
   "velocity is gamma_dot (y - y_mid); needs box.boundary periodic along x and y; 0 = no shear "
   "(docs/dpd.md)"},
  {"dpd", "agglomerate_gap", T_DOUBLE, OWN(agglomerate_gap), "0", 0, BIG, 0, 0,
   "two particles belong to one agglomerate when their surface gap is below this (0: centres "
   "closer than one diameter, the thesis's definition)"},
  {"dpd", "stress_tensor", T_ENUM, OWN(stress_tensor), "auto", 0, 0, 0, "auto|on|off",
   "the pressure tensor in stats.csv (and the H5MD observables): pressure_xx .. pressure_yz and "
   "the xy component of its kinetic, conservative, dissipative, random and bridge parts, plus "
   "viscosity = -pressure_xy / dpd.shear_rate under shear; auto = on when dpd.shear_rate is not "
   "0 (docs/dpd.md)"},
  {"dpd", "bridge_counts", T_ENUM, OWN(bridge_counts), "auto", 0, 0, 0, "auto|on|off",
   "the capillary bridges with memory formed and broken since the previous row, as the stats.csv "
   "columns bridges_formed and bridges_broken (and H5MD observables); auto = on when there are "
   "bridges with memory (dpd.capillary_bridge = memory and a capillary pair law) (docs/dpd.md)"},
};

int agglo_dpd_memory_bridges(const agglo_config *c) {
  const agglo_dpd_settings *dp = agglo_dpd_of(c);
  int capillary = !dp->conservative_ij.n && dp->conservative == AGGLO_PF_CAPILLARY;
  for (int q = 0; q < dp->conservative_ij.n; q++) capillary |= dp->conservative_ij.v[q] == AGGLO_PF_CAPILLARY;
  return capillary && dp->cap_bridge == DPD_BRIDGE_MEMORY;
}

int agglo_dpd_bridge_counts(const agglo_config *c) {
  const int mode = agglo_dpd_of(c)->bridge_counts;
  return mode == DPD_COUNTS_ON || (mode == DPD_COUNTS_AUTO && agglo_dpd_memory_bridges(c));
}

/* The van der Waals forces diverge at contact: they need the cap dpd.min_gap. */
static int vdw(int kind) { return kind == AGGLO_PF_VDW || kind == AGGLO_PF_VDW_REDUCED; }

/* docs/dpd.md: the species and per-pair lists agree, the box holds twice the cut-off. */
static int validate(const agglo_config *c, double rmax, char *err, size_t errlen) {
  const agglo_dpd_settings *dp = agglo_dpd_of(c);
  (void)rmax;
  if (dp->bridge_counts == DPD_COUNTS_ON && !agglo_dpd_memory_bridges(c))
    return agglo_fail(err, errlen, "dpd.bridge_counts = on counts capillary bridges with memory, and "
                      "this run has none (allowed: on with dpd.capillary_bridge = memory and a capillary "
                      "pair law, dpd.conservative or dpd.conservative_ij; else auto or off)");
  if (vdw(dp->conservative) && !(dp->min_gap > 0))
    return agglo_fail(err, errlen, "dpd.min_gap must be > 0 with dpd.conservative = vdw or "
                "vdw_reduced (the force diverges at contact; 0.02 diameter is usual)");
  int ns = dp->species.n ? dp->species.n : 1, npair = ns * (ns + 1) / 2;
  double fsum = 0;
  for (int i = 0; i < dp->species.n; i++) fsum += dp->species.v[i];
  if (dp->species.n && fabs(fsum - 1) > 1e-6)
    return agglo_fail(err, errlen, "dpd.species: the fractions add up to %g, not 1", fsum);
  if (dp->a_ij.n && dp->a_ij.n != npair)
    return agglo_fail(err, errlen, "dpd.a_ij has %d values: %d species need %d (upper triangle)",
                dp->a_ij.n, ns, npair);
  if (dp->gamma_ij.n && dp->gamma_ij.n != npair)
    return agglo_fail(err, errlen, "dpd.gamma_ij has %d values: %d species need %d (upper triangle)",
                dp->gamma_ij.n, ns, npair);
  if (npair > AGGLO_LIST_MAX)
    return agglo_fail(err, errlen, "dpd.species: %d species make %d pairs, more than %d", ns,
                      npair, AGGLO_LIST_MAX);
  const agglo_list *per_pair[] = {&dp->rc_ij, &dp->hamaker_ij, &dp->surface_tension_ij,
                                  &dp->lj_epsilon_ij, &dp->lj_sigma_ij, &dp->vdw_a_ij,
                                  &dp->edl_charge_product_ij, &dp->edl_debye_ij};
  const char *pair_names[] = {"rc_ij", "hamaker_ij", "surface_tension_ij", "lj_epsilon_ij",
                              "lj_sigma_ij", "vdw_a_ij", "edl_charge_product_ij", "edl_debye_ij"};
  for (int q = 0; q < 8; q++)
    if (per_pair[q]->n && per_pair[q]->n != npair)
      return agglo_fail(err, errlen, "dpd.%s has %d values: %d species need %d (upper triangle)",
                        pair_names[q], per_pair[q]->n, ns, npair);
  if (dp->conservative_ij.n && dp->conservative_ij.n != npair)
    return agglo_fail(err, errlen, "dpd.conservative_ij has %d values: %d species need %d "
                      "(upper triangle)", dp->conservative_ij.n, ns, npair);
  if (dp->species_radius.n && dp->species_radius.n != ns)
    return agglo_fail(err, errlen, "dpd.species_radius has %d values for %d species",
                      dp->species_radius.n, ns);
  if (dp->species_mass.n && dp->species_mass.n != ns)
    return agglo_fail(err, errlen, "dpd.species_mass has %d values for %d species",
                      dp->species_mass.n, ns);
  for (int q = 0; q < dp->conservative_ij.n; q++)
    if (vdw(dp->conservative_ij.v[q]) && !(dp->min_gap > 0))
      return agglo_fail(err, errlen, "dpd.min_gap must be > 0 when a pair of dpd.conservative_ij "
                        "is vdw or vdw_reduced");
  if (dp->shear_rate != 0) {
    for (int k = 0; k < 2; k++)
      if (c->boundary.v[c->boundary.n == 1 ? 0 : k] != AGGLO_PERIODIC)
        return agglo_fail(err, errlen, "dpd.shear_rate = %g needs a periodic box along x and y (the "
                          "Lees-Edwards images), but box.boundary is a wall along %s; allowed: "
                          "box.boundary = periodic on axes 0 and 1, or dpd.shear_rate = 0",
                          dp->shear_rate, k ? "y" : "x");
    if (!(fabs(dp->shear_rate) * c->dt <= 1))
      return agglo_fail(err, errlen, "dpd.shear_rate = %g with run.dt = %g shears the box by %g per "
                        "step; allowed: |dpd.shear_rate| run.dt <= 1", dp->shear_rate, c->dt,
                        fabs(dp->shear_rate) * c->dt);
    /* MPI bricks under shear: x (the flow) whole, so that the images across the y faces are a
       shift within a rank's own rows; y cut when there is more than one brick (docs/parallel.md) */
    const agglo_list *g = &c->parallel_grid;
    double bricks = 1;
    for (int k = 0; k < g->n; k++) bricks *= g->v[k];
    if (g->n && (g->v[0] != 1 || (bricks > 1 && !(g->n > 1 && g->v[1] > 1))))
      return agglo_fail(err, errlen, "parallel.grid = %g %g %g with dpd.shear_rate = %g: %s; allowed "
                        "under shear: 1 py pz with py > 1 (x, the flow, whole; y, the sheared faces, "
                        "cut), 1 1 1, or parallel.grid empty (chosen so)", g->v[0],
                        g->n > 1 ? g->v[1] : 1, g->n > 2 ? g->v[2] : 1, dp->shear_rate,
                        g->v[0] != 1 ? "it cuts x, the flow direction" : "it leaves y whole");
  }
  double rc_max = dp->rc_ij.n ? 0 : dp->rc;
  for (int q = 0; q < dp->rc_ij.n; q++) rc_max = fmax(rc_max, dp->rc_ij.v[q]);
  if (c->fraction <= 0)
    for (int k = 0; k < c->dim; k++)
      if (c->boundary.v[c->boundary.n == 1 ? 0 : k] == AGGLO_PERIODIC &&
          agglo_list_component(&c->size, k) < 2 * rc_max)
        return agglo_fail(err, errlen, "box.size along axis %d (%g) is too small for a periodic box: "
                    "it must be at least 2 dpd.rc = %g", k, agglo_list_component(&c->size, k),
                    2 * rc_max);
  return 0;
}

/* Species with their own radius or mass (dpd.species_radius, dpd.species_mass). */
static void radius_mass(const agglo_config *c, size_t i, size_t n, double *r, double *m) {
  const agglo_dpd_settings *dp = agglo_dpd_of(c);
  if (!dp->species_radius.n && !dp->species_mass.n) return;
  int sp = agglo_dpd_species_of(c, (int64_t)i, n);
  if (dp->species_radius.n) *r = dp->species_radius.v[sp], *m = agglo_particle_mass(c, *r);
  if (dp->species_mass.n) *m = dp->species_mass.v[sp];
}

/* DPD: Maxwell-Boltzmann velocities at dpd.kT (per particle, keyed by id), then the mass-weighted
   mean removed so that the total momentum is zero; under shear the streaming velocity
   gamma_dot (y - y_mid) is added to them [choice, docs/models.md]: the flow starts linear. */
static int start(agglo_system *s, const agglo_config *c, char *err, size_t errlen) {
  (void)err, (void)errlen;
  double p[3] = {0, 0, 0}, mt = 0;
  for (size_t i = 0; i < s->n; i++) {
    double z[4];
    agglo_rng_normal4((uint64_t)c->seed, AGGLO_STREAM_VELOCITY, 0, (uint64_t)s->id[i], z);
    double sd = sqrt(agglo_dpd_of(c)->kT * s->inv_m[i]);
    for (int k = 0; k < 3; k++) s->v[3 * i + k] = k < s->dim ? sd * z[k] : 0;
    for (int k = 0; k < 3; k++) p[k] += s->m[i] * s->v[3 * i + k];
    mt += s->m[i];
  }
  for (size_t i = 0; i < s->n; i++)
    for (int k = 0; k < s->dim; k++) s->v[3 * i + k] -= p[k] / mt;
  const double rate = agglo_dpd_of(c)->shear_rate, y_mid = s->box.lo[1] + 0.5 * s->box.len[1];
  if (rate != 0)
    for (size_t i = 0; i < s->n; i++) s->v[3 * i] += rate * (s->x[3 * i + 1] - y_mid);
  s->box.shear_rate = rate; /* (agglo_dpd_temperature of the start: the peculiar velocities) */
  return 0;
}


const agglo_model_entry agglo_dpd_entry = {
    .name = "dpd",
    .help = "dissipative particle dynamics with attractive forces (Mokkapati 2006; settings in "
            "[dpd], docs/dpd.md)",
    .description = "dissipative particle dynamics, DPD-VV (Groot-Warren), with attraction\n"
                   "(Mokkapati 2006): dpd.conservative = groot_warren, vdw, vdw_reduced,\n"
                   "capillary, edl, lj, none; reduced or SI units (docs/dpd.md)",
    .keys = keys,
    .n_keys = sizeof keys / sizeof keys[0],
    .settings_size = sizeof(agglo_dpd_settings),
    /* the particles' species, radii and masses are the state's; units scale its numbers */
    /* the Lees-Edwards offset is gamma_dot L_y t since t = 0 */
    .fixed_on_restart = "dpd.units dpd.species dpd.species_radius dpd.species_mass dpd.shear_rate",
    .validate = validate,
    .radius_mass = radius_mass,
    .start = start,
    .dynamics = agglo_dpd_dynamics, /* dpd_model.c: with or without the stress columns */
    .describe = agglo_dpd_describe, /* dpd_model.c: units and reduced parameters */
    .species_of = agglo_dpd_species_of, /* dpd_model.c: blocks of ids by dpd.species */
};
