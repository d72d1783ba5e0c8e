/* Brownian cluster-cluster aggregation (docs/dlca.md): every cluster is rigid and walks by
   straight flights, each with a velocity from its Maxwell distribution and a duration
   exponential of mean its relaxation time m/f: the Langevin process's velocity correlation,
   so D = kT/f, and kinetic theory's collisions when flights are long (docs/models.md). A contact sticks with probability p (DLCA: p = 1), else both
   clusters leave the contact on new flights. The flights are the straight lines of the
   ballistic model's exact event-driven engine (ballistic_events.h): contact times are exact
   along each flight, and a flight's end is one more event of its cluster. */
#include "models/ballistic_events.h"
#include "models/dlca_config.h"
#include "analysis/mobility.h"
#include "core/error.h"
#include "core/files.h"
#include "core/rng.h"
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define K_BOLTZMANN 1.380649e-23 /* J/K */
#define R_GAS 8.314462618        /* J/(mol K) */

double agglo_dlca_reference_mass(const agglo_config *c) {
  const agglo_dlca_settings *dl = agglo_dlca_of(c);
  double r = c->radius;
  return dl->units == DLCA_UNITS_SI && dl->density > 0
             ? dl->density * 4.0 / 3.0 * M_PI * r * r * r : c->mass;
}

static double mobility_df(const agglo_config *c) {
  double df = agglo_dlca_of(c)->mobility_fractal_dimension;
  return df > 0 ? df : c->dim == 2 ? 1.45 : 1.8;
}

/* [choice] the continuum mobility radius of n particles of total mass m: R_m = a n^(1/D_fm), a
   their volume-equivalent mean radius (their mean mass over the reference mass gives their mean
   cube of radius; a monomer's R_m is its radius). */
static double mobility_radius(const agglo_config *c, double n, double m) {
  return c->radius * cbrt(m / (n * agglo_dlca_reference_mass(c))) * pow(n, 1 / mobility_df(c));
}

/* SI: the gas. [choice] Without dlca.viscosity, air's from Sutherland's law (mu_0 = 1.716e-5 Pa s
   at T_0 = 273.15 K, S = 110.4 K; White, Viscous Fluid Flow, 1991); the mean free path from
   kinetic theory, lambda_g = (mu / P) sqrt(pi R T / (2 M_g)). */
double agglo_dlca_viscosity(const agglo_config *c) {
  const agglo_dlca_settings *g = agglo_dlca_of(c);
  if (g->viscosity > 0) return g->viscosity;
  double T = g->temperature, T0 = 273.15, S = 110.4;
  return 1.716e-5 * pow(T / T0, 1.5) * (T0 + S) / (T + S);
}
double agglo_dlca_mean_free_path(const agglo_config *c) {
  const agglo_dlca_settings *g = agglo_dlca_of(c);
  return agglo_dlca_viscosity(c) / g->pressure *
         sqrt(M_PI * R_GAS * g->temperature / (2 * g->gas_molar_mass));
}

/* The gas mean free path in the run's lengths: SI from the gas, reduced dlca.knudsen radii. */
static double gas_path(const agglo_config *c) {
  return agglo_dlca_of(c)->units == DLCA_UNITS_SI ? agglo_dlca_mean_free_path(c) : agglo_dlca_of(c)->knudsen * c->radius;
}

/* The friction of a cluster over 6 pi mu, a length: the mobility law (analysis/mobility.c,
   docs/dlca.md) at its volume-equivalent mean radius. */
static double friction_length(const agglo_config *c, double n, double m, double mfp) {
  double a = c->radius * cbrt(m / (n * agglo_dlca_reference_mass(c)));
  return agglo_friction_length(agglo_dlca_of(c)->mobility, mobility_df(c), agglo_dlca_of(c)->area_exponent, n, a, mfp);
}

agglo_dlca_motion agglo_dlca_mobility(const agglo_config *c, double n, double m) {
  const agglo_dlca_settings *dl = agglo_dlca_of(c);
  agglo_dlca_motion o;
  double mfp = gas_path(c), L = friction_length(c, n, m, mfp);
  o.radius = mobility_radius(c, n, m);
  if (dl->units == DLCA_UNITS_REDUCED) {
    /* the reference particle's D_1 and persistence lambda_1 = u_1 tau_1 (u_1 its mean thermal
       speed sqrt(8 kT / (pi m_1))) give tau_1 = pi lambda_1^2 / (8 D_1) and kT = m_1 D_1 / tau_1;
       a cluster's friction is the reference's times L / L_1 */
    double m1 = agglo_dlca_reference_mass(c), D1 = dl->diffusion, l1 = dl->persistence;
    double tau1 = M_PI * l1 * l1 / (8 * D1), kT = m1 * D1 / tau1;
    o.friction = L / friction_length(c, 1, m1, mfp);
    o.D = D1 / o.friction;
    o.tau = (m / m1) * tau1 / o.friction;
    o.kT_m = kT / m;
  } else {
    double kT = K_BOLTZMANN * dl->temperature;
    o.friction = 6 * M_PI * agglo_dlca_viscosity(c) * L;
    o.D = kT / o.friction;
    o.tau = m / o.friction;
    o.kT_m = kT / m;
  }
  o.persistence = sqrt(8 * o.kT_m / M_PI) * o.tau;
  return o;
}

void agglo_dlca_describe(const agglo_config *c, FILE *f) {
  const agglo_dlca_settings *dl = agglo_dlca_of(c);
  double m1 = agglo_dlca_reference_mass(c);
  agglo_dlca_motion o = agglo_dlca_mobility(c, 1, m1);
  int si = dl->units == DLCA_UNITS_SI;
  if (si) {
    double mfp = agglo_dlca_mean_free_path(c), kn = mfp / c->radius;
    fprintf(f, "dlca: gas at T = %.6g K, P = %.6g Pa: viscosity %.4g Pa s (%s), mean free path %.4g m; "
            "a particle of radius %g m, mass %g kg: Knudsen number %.4g, Cunningham correction %.4g, "
            "D = %.4g m^2/s, mean thermal speed %.4g m/s, persistence length %.4g m (%.4g radii), "
            "mean flight %.4g s\n", dl->temperature, dl->pressure, agglo_dlca_viscosity(c),
            dl->viscosity > 0 ? "dlca.viscosity" : "Sutherland's air", mfp, c->radius, m1, kn,
            agglo_cunningham(kn), o.D, sqrt(8 * o.kT_m / M_PI), o.persistence, o.persistence / c->radius,
            o.tau);
  } else {
    fprintf(f, "dlca: a particle of radius %g and mass %g: gas Knudsen number %g, D = %.4g, mean "
            "thermal speed %.4g, persistence length %.4g (%.4g radii), mean flight %.4g\n",
            c->radius, m1, dl->knudsen, o.D, sqrt(8 * o.kT_m / M_PI), o.persistence,
            o.persistence / c->radius, o.tau);
  }
  int sphere = dl->mobility == AGGLO_MOBILITY_SPHERE;
  fprintf(f, "  flights: Maxwellian velocities, exponential durations; mobility: %s, R_m = a N^(1/%g)",
          sphere ? "mobility sphere" : "adjusted sphere", mobility_df(c));
  if (!sphere) fprintf(f, ", projected area pi a^2 N^%g", dl->area_exponent > 0 ? dl->area_exponent : 0.92);
  fprintf(f, "; sticking probability %g\n", dl->probability);
}

typedef struct {
  agglo_config cfg;
  agglo_ed *e;
  /* per cluster: the random numbers it has drawn, the counter of its next one (a merged cluster
     goes on with the counter of the one whose index it keeps) */
  uint64_t *draws;
  /* per cluster: the size its flight speed and duration were computed for (0: none yet) */
  int32_t *sized;
  double *speed, *duration;
  /* dlca.rotation = on, per cluster: rotational diffusivity, time of its last turn (or of its
     forming: the turn at a flight's end is that of the time since) */
  double *rot_diffusion, *turned_at;
  /* the words of 8 consecutive draws of one cluster, from one vectorised Philox call: a grouped
     flight draws its cluster's numbers one after the other (batch_c < 0: none) */
  int32_t batch_c, last_c;
  uint64_t batch_k, last_k;
  uint32_t batch[4][8];
} dlca;

/* Every draw is keyed by its cluster and the cluster's own counter, not by a global one: a
   cluster's flights do not depend on the order in which the engine processes the events of the
   others, so that the engine may draw them ahead or replay them (grouped flights, docs/dlca.md). */
static void draw(dlca *d, int32_t c, double u[4]) {
  uint64_t k = d->draws[c]++;
  if (c != d->batch_c || k - d->batch_k >= 8) {
    if (c != d->last_c || k != d->last_k + 1) { /* a lone draw: one Philox call */
      d->last_c = c, d->last_k = k;
      agglo_rng_uniform4((uint64_t)d->cfg.seed, AGGLO_STREAM_FLIGHT, k, (uint64_t)c, u);
      return;
    }
    /* the second of a run of draws (a group's flights): the next 8 at once, the same bits */
    uint64_t steps[8], ids[8];
    for (int l = 0; l < 8; l++) steps[l] = k + (uint64_t)l, ids[l] = (uint64_t)c;
    agglo_rng_philox8((uint64_t)d->cfg.seed, AGGLO_STREAM_FLIGHT, steps, ids, d->batch);
    d->batch_c = c, d->batch_k = k;
  }
  d->last_c = c, d->last_k = k;
  uint32_t l = (uint32_t)(k - d->batch_k), r[4] = {d->batch[0][l], d->batch[1][l], d->batch[2][l], d->batch[3][l]};
  agglo_rng_uniform_words(r, u);
}

/* The motion of cluster c from its size and mass (it changes only when the cluster merges).
   [choice] Its rotational diffusivity is Stokes-Einstein's ratio to D in every regime:
   D_r = kT / (8 pi mu R_m^3) = 3 D / (4 R_m^2) (docs/dlca.md). */
static void size_up(dlca *d, const agglo_ed *e, int32_t c) {
  agglo_dlca_motion o = agglo_dlca_mobility(&d->cfg, e->cluster[c].size, e->M[c]);
  d->sized[c] = e->cluster[c].size;
  d->speed[c] = sqrt(o.kT_m);
  d->duration[c] = o.tau;
  if (d->rot_diffusion) d->rot_diffusion[c] = 0.75 * o.D / (o.radius * o.radius);
}

/* [choice] A flight (docs/models.md): its velocity from the cluster's Maxwell distribution,
   N(0, kT/m) per component, its duration exponential of mean tau = m/f. The velocity then
   decorrelates as exp(-t/tau), as the Langevin equation's: D = kT tau / m = kT / f exactly, and
   the relative velocities of clusters that meet within a flight are the kinetic theory's.
   One keyed draw gives two normals (Box-Muller) and, in 2D, the duration; 3D takes a second draw
   for the third component and the duration. */
static void flight(void *ctx, agglo_ed *e, int32_t c, double t) {
  dlca *d = ctx;
  double u[4], z[4];
  if (d->sized[c] != e->cluster[c].size) { /* new: a start or a merge */
    size_up(d, e, c);
    if (d->turned_at) d->turned_at[c] = t;
  }
  double s = d->speed[c], *V = e->cluster[c].V;
  draw(d, c, u);
  double r = s * sqrt(-2 * log(u[0])), phi = 2 * M_PI * u[1];
  V[0] = r * cos(phi), V[1] = r * sin(phi), V[2] = 0;
  double tail = u[2]; /* uniform: the duration's */
  if (e->dim == 3) {
    V[2] = s * sqrt(-2 * log(u[2])) * cos(2 * M_PI * u[3]);
    draw(d, c, z);
    tail = z[0];
  }
  e->cluster[c].t_flight = t - d->duration[c] * log(tail);
}

static int sticks(void *ctx, agglo_ed *e, int32_t a, int32_t b) {
  (void)e, (void)b;
  dlca *d = ctx;
  if (agglo_dlca_of(&d->cfg)->probability >= 1) return 1;
  double u[4];
  draw(d, a, u);
  return u[0] < agglo_dlca_of(&d->cfg)->probability;
}

/* [choice] The turn of cluster c at the end of its flight at time t: the rotation of a
   rotational diffusion of q = 2 D_r (t - its last turn) per axis (docs/dlca.md). 2D: an angle
   N(0, q) about z (exact). 3D: the product of K = ceil(q / 0.02) rotations whose vectors are
   N(0, q / K) per axis (small rotations compose into diffusion on SO(3): <u(t).u(0)> decays as
   exp(-q) to 0.2%); q > 20, decorrelated to e^-20: a uniformly random rotation. A monomer (a
   sphere) never turns. Returns the angle in [0, pi], its axis in n. */
static double turn(void *ctx, agglo_ed *e, int32_t c, double t, double n[3]) {
  dlca *d = ctx;
  if (e->cluster[c].size < 2) return 0; /* its clock is set when it forms: its flights may be grouped */
  double q = 2 * d->rot_diffusion[c] * (t - d->turned_at[c]), z[4];
  d->turned_at[c] = t;
  if (!(q > 0)) return 0;
  if (e->dim == 2) {
    agglo_rng_normal4((uint64_t)d->cfg.seed, AGGLO_STREAM_FLIGHT, d->draws[c]++, (uint64_t)c, z);
    double phi = remainder(sqrt(q) * z[0], 2 * M_PI);
    n[0] = n[1] = 0, n[2] = phi < 0 ? -1 : 1;
    return fabs(phi);
  }
  double w[4] = {1, 0, 0, 0}; /* unit quaternion (scalar, vector) */
  if (q > 20) {
    agglo_rng_normal4((uint64_t)d->cfg.seed, AGGLO_STREAM_FLIGHT, d->draws[c]++, (uint64_t)c, w);
  } else {
    int K = (int)ceil(q / 0.02);
    double sd = sqrt(q / K);
    for (int k = 0; k < K; k++) { /* bounded: K <= 1000 */
      agglo_rng_normal4((uint64_t)d->cfg.seed, AGGLO_STREAM_FLIGHT, d->draws[c]++, (uint64_t)c, z);
      double a = sd * sqrt(z[0] * z[0] + z[1] * z[1] + z[2] * z[2]);
      if (!(a > 0)) continue;
      double h = sin(a / 2) * sd / a, r[4] = {cos(a / 2), h * z[0], h * z[1], h * z[2]}, o[4];
      o[0] = r[0] * w[0] - r[1] * w[1] - r[2] * w[2] - r[3] * w[3];
      o[1] = r[0] * w[1] + r[1] * w[0] + r[2] * w[3] - r[3] * w[2];
      o[2] = r[0] * w[2] - r[1] * w[3] + r[2] * w[0] + r[3] * w[1];
      o[3] = r[0] * w[3] + r[1] * w[2] - r[2] * w[1] + r[3] * w[0];
      memcpy(w, o, sizeof o);
    }
  }
  if (w[0] < 0)
    for (int k = 0; k < 4; k++) w[k] = -w[k];
  double sv = sqrt(w[1] * w[1] + w[2] * w[2] + w[3] * w[3]);
  if (!(sv > 0)) return 0;
  for (int k = 0; k < 3; k++) n[k] = w[1 + k] / sv;
  return 2 * atan2(sv, w[0]);
}

static void dlca_destroy(void *state) {
  dlca *d = state;
  if (!d) return;
  agglo_ed_destroy(d->e);
  free(d->draws), free(d->sized), free(d->speed), free(d->duration), free(d->rot_diffusion), free(d->turned_at);
  free(d);
}

static int dlca_init(void **state, const agglo_system *s, const agglo_config *c, char *err,
                     size_t errlen) {
  dlca *d = calloc(1, sizeof *d);
  if (!d) return agglo_fail(err, errlen, "out of memory");
  d->cfg = *c;
  size_t m = s->n ? s->n : 1;
  d->draws = calloc(m, sizeof *d->draws);
  d->sized = calloc(m, sizeof *d->sized);
  d->batch_c = d->last_c = -1;
  d->speed = malloc(m * sizeof *d->speed);
  d->duration = malloc(m * sizeof *d->duration);
  int turns = agglo_dlca_of(c)->rotation == DLCA_ROTATION_ON;
  if (turns) {
    d->rot_diffusion = malloc(m * sizeof *d->rot_diffusion);
    d->turned_at = malloc(m * sizeof *d->turned_at);
  }
  if (!d->draws || !d->sized || !d->speed || !d->duration || (turns && (!d->rot_diffusion || !d->turned_at))) {
    dlca_destroy(d);
    return agglo_fail(err, errlen, "out of memory for %zu particles", s->n);
  }
  int by_count = agglo_dlca_of(c)->stop == DLCA_STOP_CLUSTERS;
  agglo_ed_motion motion = {flight, sticks, d, turns ? turn : NULL, d->draws};
  if (agglo_ed_create(&d->e, s, agglo_dlca_of(c)->window, "dlca.window", by_count ? (size_t)agglo_dlca_of(c)->clusters : 0,
                      by_count ? INFINITY : c->t_end, &motion, err, errlen) != 0) {
    dlca_destroy(d);
    return -1;
  }
  /* a lone cluster's flights as one event, exactly (docs/dlca.md); 4096 bounds a burst's replay */
  if (agglo_dlca_of(c)->grouped_flights == DLCA_GROUPED_ON) {
    if (agglo_ed_group_flights(d->e, 4096) != 0) {
      dlca_destroy(d);
      return agglo_fail(err, errlen, "out of memory for %zu particles", s->n);
    }
    /* [choice] a small cluster's margin is the room it has, at least a quarter of the largest
       (docs/dlca.md): far from all, its flights are grouped */
    d->e->margin_min = 0.25 * d->e->margin;
  }
  *state = d;
  return 0;
}

/* [choice] a step is the time in which a cluster of the mean size (N / n_c reference monomers)
   moves 10 max radii, ballistically or by diffusion, whichever is longer (docs/dlca.md): it
   grows as the clusters slow down, so that the steps of a run (each writing the N positions)
   do not grow as the time to its end. A step ends earlier at the next output. */
static double step_length(const dlca *d, size_t n_clusters, size_t n) {
  const agglo_config *c = &d->cfg;
  double size = n_clusters > 0 ? (double)n / (double)n_clusters : 1;
  double L = 10 * d->e->r_max;
  agglo_dlca_motion o = agglo_dlca_mobility(c, size, size * agglo_dlca_reference_mass(c));
  double ballistic = L / sqrt(8 * o.kT_m / M_PI), diffusive = L * L / (2 * c->dim * o.D);
  return ballistic > diffusive ? ballistic : diffusive;
}

/* [choice] the grid's reach (the largest margin) as the clusters grow (docs/dlca.md): window max
   radii times the mean cluster's mobility radius over that of 4 monomers, at most window_max
   radii, widened by steps of 1.5 (or to window_max; each widening builds every cluster anew). A
   larger cluster, slower, then rebuilds less often for the same cost; a small one's room still
   caps its margin. */
static int widen(dlca *d, const agglo_system *s) {
  const agglo_config *c = &d->cfg;
  agglo_ed *e = d->e;
  double size = e->n_clusters > 0 ? (double)s->n / (double)e->n_clusters : 1;
  double m = agglo_dlca_of(c)->window * pow(size / 4, 1 / mobility_df(c));
  m = e->r_max * fmin(m, agglo_dlca_of(c)->window_max);
  int capped = m == e->r_max * agglo_dlca_of(c)->window_max;
  return m > e->margin && (m >= 1.5 * e->margin || capped) ? agglo_ed_widen(e, s, m) : 0;
}

static int dlca_step(void *state, agglo_system *s, agglo_step_info *info, char *err, size_t errlen) {
  dlca *d = state;
  d->e->step_time = step_length(d, d->e->n_clusters, s->n);
  if (widen(d, s) != 0) return agglo_fail(err, errlen, "out of memory for the cell grid");
  return agglo_ed_step(d->e, s, info, err, errlen);
}

static void dlca_until(void *state, double t) { agglo_ed_until(((dlca *)state)->e, t); }

static double dlca_contact_gap(const void *state) {
  return agglo_ed_contact_gap(((const dlca *)state)->e);
}

static int dlca_labels(const void *state, agglo_system *s, size_t *n_clusters, size_t *max_size) {
  return agglo_ed_labels(((const dlca *)state)->e, s, n_clusters, max_size);
}

/* particles.from: the file's clusters, rigid from the start (the engine's join). */
static int dlca_join(void *state, const agglo_system *s, int32_t i, int32_t j, int touching) {
  return agglo_ed_join(((dlca *)state)->e, s, i, j, touching);
}

/* Restart: the engine's clusters, then per cluster the end of its flight (its direction is its
   velocity, in the engine's part) and the random numbers it has drawn and, with rotation, the time
   of its last turn and its centre of mass in its frame (its orientation is its particles'
   positions, in the engine's part). */
static const char dlca_header[] = "# dlca: per cluster: index, end of its flight, random numbers "
                                  "it drew\n";
static const char dlca_header_turns[] = "# dlca: per cluster: index, end of its flight, random "
                                        "numbers it drew, time of its last turn, centre of mass "
                                        "(3)\n";

static int dlca_save(const void *state, FILE *f) {
  const dlca *d = state;
  const agglo_ed *e = d->e;
  if (agglo_ed_save(e, f) != 0) return -1;
  fputs(d->turned_at ? dlca_header_turns : dlca_header, f);
  for (size_t c = 0; c < e->n; c++) {
    if (e->cluster[c].size <= 0) continue;
    fprintf(f, "%zu %.17g %llu", c, e->cluster[c].t_flight, (unsigned long long)d->draws[c]);
    if (d->turned_at)
      fprintf(f, " %.17g %.17g %.17g %.17g", d->turned_at[c], e->G[3 * c], e->G[3 * c + 1],
              e->G[3 * c + 2]);
    fputc('\n', f);
  }
  return ferror(f) ? -1 : 0;
}

static int dlca_load(void *state, const agglo_system *s, FILE *f, char *err, size_t errlen) {
  dlca *d = state;
  agglo_ed *e = d->e;
  if (agglo_ed_load(e, s, f, err, errlen) != 0) return -1;
  char line[256];
  size_t at = e->n + e->n_clusters + 4; /* the line read next */
  const char *header = d->turned_at ? dlca_header_turns : dlca_header;
  if (!fgets(line, sizeof line, f) || strcmp(line, header) != 0)
    return agglo_fail(err, errlen, "line %zu is not this agglo's dlca header with dlca.rotation = %s",
                      at, d->turned_at ? "on" : "off");
  for (size_t c = 0; c < e->n; c++) e->cluster[c].t_flight = NAN, d->draws[c] = 0;
  for (size_t q = 0; q < e->n_clusters; q++) {
    size_t c;
    unsigned long long drawn;
    double tf, tt = 0, G[3] = {0, 0, 0};
    int want = d->turned_at ? 7 : 3;
    if (!fgets(line, sizeof line, f) ||
        sscanf(line, "%zu %lg %llu %lg %lg %lg %lg", &c, &tf, &drawn, &tt, &G[0], &G[1], &G[2]) !=
            want ||
        c >= e->n || e->cluster[c].size <= 0 || !isnan(e->cluster[c].t_flight) || !isfinite(tf) ||
        !(tf >= s->t) || drawn > (1ULL << 62) || !isfinite(tt) || !(tt <= s->t) ||
        !isfinite(G[0]) || !isfinite(G[1]) || !isfinite(G[2]))
      return agglo_fail(err, errlen, "line %zu is not 'cluster end-of-flight draws%s' (a cluster "
                        "of the particles, once, finite numbers, its flight ending at or after the "
                        "restart point's time %.17g%s, at most 2^62 draws)", at + 1 + q,
                        d->turned_at ? " last-turn centre(3)" : "", s->t,
                        d->turned_at ? ", its last turn not after it" : "");
    e->cluster[c].t_flight = tf;
    d->draws[c] = drawn;
    if (d->turned_at) {
      d->turned_at[c] = tt;
      memcpy(e->G + 3 * c, G, sizeof G);
    }
    size_up(d, e, (int32_t)c); /* as after its last merge: its next flight keeps its clock */
  }
  for (size_t c = 0; c < e->n; c++)
    if (isnan(e->cluster[c].t_flight)) e->cluster[c].t_flight = INFINITY; /* no cluster */
  return 0;
}

const agglo_model agglo_model_dlca = {
    .name = "dlca",
    .init = dlca_init,
    .step = dlca_step,
    .contact_gap = dlca_contact_gap,
    .save = dlca_save,
    .load = dlca_load,
    .destroy = dlca_destroy,
    .variable_step = 1,
    .until = dlca_until,
    .labels = dlca_labels,
    .join = dlca_join,
};
