/* Brownian cluster-cluster aggregation (dlca): contact times exact along flights and turns, no
   overlap in a dense run (checked here pair by pair, apart from the model), a sticking probability
   0 never merges, mass conserved, restarts exact; with rotation, free dimers decorrelate at the
   rotational diffusivity of docs/dlca.md. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/ballistic_events.h"
#include "config/config.h"
#include "core/model.h"
#include "core/rng.h"
#include "core/setup.h"
#include "models/dlca_config.h"
#include "agglo/analysis.h"

/* n unit discs or spheres (mass 1) in a periodic box of side L. */
static void make_system(agglo_system *s, int dim, size_t n, double L) {
  assert_int_equal(agglo_system_alloc(s, dim, n), 0);
  for (size_t i = 0; i < n; i++) s->r[i] = 1, s->m[i] = 1, s->inv_m[i] = 1, s->id[i] = (int64_t)i;
  for (int k = 0; k < 3; k++) {
    s->box.lo[k] = k < dim ? 0 : -1;
    s->box.len[k] = k < dim ? L : 2;
    s->box.hi[k] = s->box.lo[k] + s->box.len[k];
    s->box.periodic[k] = k < dim;
  }
}

static double dist(const agglo_system *s, size_t i, size_t j) {
  double d[3];
  agglo_box_delta(&s->box, s->x + 3 * i, s->x + 3 * j, d);
  return sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
}

/* ---- the engine's flights: a scripted walk ---- */

/* Particle 0 flies +x for time 1, then +y; particle 1 stands still. */
static void scripted_flight(void *ctx, agglo_ed *e, int32_t c, double t) {
  int *turns = ctx;
  double *V = e->cluster[c].V;
  V[0] = V[1] = V[2] = 0;
  e->cluster[c].t_flight = INFINITY;
  if (c != 0 || e->cluster[c].size != 1) return;
  if (turns[0]++ == 0) V[0] = 1, e->cluster[c].t_flight = t + 1;
  else V[1] = 1;
}

static void contact_after_a_turn(void **st) {
  (void)st;
  agglo_system s;
  make_system(&s, 2, 2, 100);
  s.x[0] = 10, s.x[1] = 10, s.x[3] = 12.5, s.x[4] = 13;
  int turns = 0;
  agglo_ed_motion motion = {scripted_flight, NULL, &turns, NULL, NULL};
  agglo_ed *e;
  char err[256];
  assert_int_equal(agglo_ed_create(&e, &s, 2, "window", 1, INFINITY, &motion, err, sizeof err), 0);
  agglo_step_info info = {0};
  for (int k = 0; k < 1000 && !info.finished; k++)
    assert_int_equal(agglo_ed_step(e, &s, &info, err, sizeof err), 0);
  assert_true(info.finished);
  /* from t = 1 particle 0 is at (11, 10 + t - 1): |(1.5, 3 - (t - 1))| = 2 */
  double t_hand = 4 - sqrt(1.75);
  print_message("contact at t = %.17g (closed form %.17g), %d turns\n", s.t, t_hand, turns);
  assert_true(fabs(s.t - t_hand) < 1e-14 * t_hand);
  assert_true(fabs(dist(&s, 0, 1) - 2) < 1e-13);
  assert_int_equal(turns, 2);
  assert_int_equal(e->n_clusters, 1);
  agglo_ed_destroy(e);
  agglo_system_free(&s);
}

/* A dimer (particles 0 and 1, 2 apart along e1) that stands still turns once, by 1 radian about
   n, at the end of its first flight (t = 1); particle 2 stands at 2.5 from the dimer's centre, at
   1.5 radians from e1 in the plane of the turn: particle 1, on the unit circle, touches it at
   1.5 - acos(0.65) radians (|x1 - x2|^2 = 7.25 - 5 cos(1.5 - phi) = 4), where the turn must stop
   and the clusters merge. Far away (obstacle = 0), the turn goes the whole radian. */
static void still_flight(void *ctx, agglo_ed *e, int32_t c, double t) {
  (void)ctx;
  double *V = e->cluster[c].V;
  V[0] = V[1] = V[2] = 0;
  V[0] = c == 3; /* far away, so that the engine has a clock */
  e->cluster[c].t_flight = e->cluster[c].size == 2 && t == 0 ? 1 : INFINITY;
}

static double one_radian(void *ctx, agglo_ed *e, int32_t c, double t, double axis[3]) {
  (void)e, (void)c, (void)t;
  memcpy(axis, ctx, 3 * sizeof *axis);
  return 1;
}

static void a_turn_stops_at_the_exact_contact(void **st) {
  (void)st;
  for (int dim = 2; dim <= 3; dim++)
    for (int obstacle = 0; obstacle <= 1; obstacle++) {
      /* the turn's axis n and plane (e1, e2 = n x e1) */
      double n[3] = {0, dim == 2 ? 0 : 1, dim == 2 ? 1 : 0}, e1[3] = {1, 0, 0};
      double e2[3] = {0, dim == 2 ? 1 : 0, dim == 2 ? 0 : -1}, G[3] = {50, 50, dim == 3 ? 50 : 0};
      agglo_system s;
      make_system(&s, dim, 4, 100);
      for (int k = 0; k < 3; k++) {
        s.x[k] = G[k] - e1[k], s.x[3 + k] = G[k] + e1[k];
        s.x[6 + k] = obstacle ? G[k] + 2.5 * (cos(1.5) * e1[k] + sin(1.5) * e2[k]) : G[k] / 5;
        s.x[9 + k] = G[k] / 2;
      }
      agglo_ed_motion motion = {still_flight, NULL, n, one_radian, NULL};
      agglo_ed *e;
      char err[256];
      assert_int_equal(agglo_ed_create(&e, &s, 2, "window", 0, 5, &motion, err, sizeof err), 0);
      assert_int_equal(agglo_ed_join(e, &s, 0, 1, 1), 0);
      agglo_step_info info = {0};
      for (int k = 0; k < 1000 && !info.finished; k++)
        assert_int_equal(agglo_ed_step(e, &s, &info, err, sizeof err), 0);
      assert_true(info.finished);
      double phi = obstacle ? 1.5 - acos(0.65) : 1, worst = 0;
      for (int i = 0; i < 2; i++)
        for (int k = 0; k < 3; k++) {
          double sign = i ? 1 : -1, want = G[k] + sign * (cos(phi) * e1[k] + sin(phi) * e2[k]);
          worst = fmax(worst, fabs(s.x[3 * i + k] - want));
        }
      print_message("%dD, %s: turned to %.17g, off by %.3g, t = %g, %zu clusters\n", dim,
                    obstacle ? "obstacle" : "free", phi, worst, s.t, e->n_clusters);
      assert_true(worst < 1e-13);
      assert_int_equal(e->turns, 1);
      assert_true(s.t == 5);
      if (obstacle) assert_true(fabs(dist(&s, 1, 2) - 2) < 1e-13);
      assert_int_equal(e->n_clusters, obstacle ? 2 : 3); /* merged by the turn, or not */
      agglo_ed_destroy(e);
      agglo_system_free(&s);
    }
}

/* ---- the model ---- */

static void dlca_config(agglo_config *c, int dim) {
  agglo_config_defaults(c);
  c->model = &agglo_dlca_entry;
  c->dim = dim;
  c->radius = 1;
  c->radius_spread = 0;
  c->mass = 1;
}

/* Two monomers on crossing flights: their first velocities are the model's first draws (each
   monomer's first counter of the flight stream, keyed by the monomer: Box-Muller normals of
   variance kT/m per component, docs/dlca.md); monomer 1 is put where the two touch at time T,
   and the model must merge them at that time. */
static void dimer_at_the_exact_contact_time(void **st) {
  (void)st;
  for (int dim = 2; dim <= 3; dim++) {
    agglo_config c;
    dlca_config(&c, dim);
    agglo_dlca_edit(&c)->persistence = 1e6; /* one flight for the whole test (mean flight 7.9e5 dim) */
    agglo_dlca_edit(&c)->diffusion = 1e6 / (2.0 * dim);
    /* tau_1 = pi lambda^2 / (8 D), kT/m = D / tau_1 */
    double tau = M_PI * 1e12 / (8 * agglo_dlca_edit(&c)->diffusion), sd = sqrt(agglo_dlca_edit(&c)->diffusion / tau);
    double v[2][3], u[4];
    for (int i = 0; i < 2; i++) {
      agglo_rng_uniform4((uint64_t)c.seed, AGGLO_STREAM_FLIGHT, 0, (uint64_t)i, u);
      double r = sd * sqrt(-2 * log(u[0]));
      v[i][0] = r * cos(2 * M_PI * u[1]), v[i][1] = r * sin(2 * M_PI * u[1]);
      v[i][2] = dim == 3 ? sd * sqrt(-2 * log(u[2])) * cos(2 * M_PI * u[3]) : 0;
    }
    agglo_system s;
    make_system(&s, dim, 2, 200);
    /* at T = 7 the centres are 2 apart along a direction n perpendicular-ish to the approach */
    double T = 7, x0[3] = {50, 50, dim == 3 ? 50 : 0}, n[3] = {0.6, 0.8, 0};
    /* approaching at T (n . (v0 - v1) > 0): T is their first contact */
    if (n[0] * (v[0][0] - v[1][0]) + n[1] * (v[0][1] - v[1][1]) < 0) n[0] = -n[0], n[1] = -n[1];
    for (int k = 0; k < 3; k++) {
      s.x[k] = x0[k];
      s.x[3 + k] = k < dim ? x0[k] + (v[0][k] - v[1][k]) * T + 2 * n[k] : 0;
    }
    /* the closed form from these positions: |dX + t dV| = 2 */
    double dX[3], dV[3], a = 0, b = 0, cc = -4;
    for (int k = 0; k < 3; k++) {
      dX[k] = s.x[k] - s.x[3 + k], dV[k] = v[0][k] - v[1][k];
      a += dV[k] * dV[k], b += dX[k] * dV[k], cc += dX[k] * dX[k];
    }
    double t_hand = (-b - sqrt(b * b - a * cc)) / a;
    void *state;
    char err[256];
    assert_int_equal(agglo_model_dlca.init(&state, &s, &c, err, sizeof err), 0);
    agglo_step_info info = {0};
    for (int k = 0; k < 100000 && !info.finished; k++)
      assert_int_equal(agglo_model_dlca.step(state, &s, &info, err, sizeof err), 0);
    assert_true(info.finished);
    print_message("%dD: dimer at t = %.17g (closed form %.17g)\n", dim, s.t, t_hand);
    assert_true(fabs(t_hand - T) < 1e-12 * T); /* the monomers meet where they were put */
    assert_true(fabs(s.t - t_hand) < 1e-12 * t_hand);
    assert_true(fabs(dist(&s, 0, 1) - 2) < 1e-12);
    agglo_model_dlca.destroy(state);
    agglo_system_free(&s);
  }
}

/* ---- the physics: the mobility law, the gas, the flights' statistics ---- */

/* An SI aerosol: 15 nm spheres of density 1800 kg/m^3 in air at T, P. */
static void aerosol_config(agglo_config *c, double T, double P) {
  dlca_config(c, 3);
  agglo_dlca_edit(c)->units = DLCA_UNITS_SI;
  c->radius = 15e-9;
  agglo_dlca_edit(c)->density = 1800;
  agglo_dlca_edit(c)->temperature = T;
  agglo_dlca_edit(c)->pressure = P;
}

/* In the free molecular regime (Kn 3e5) no aggregate's friction exceeds N monomers' (the
   adjusted sphere gives N^0.92); the mobility sphere (the former law) exceeds it, as documented;
   in the continuum (Kn 1e-4) both are Stokes's of R_m = a N^(1/1.8); N = 1 is a monomer. */
static void friction_within_its_bounds(void **st) {
  (void)st;
  agglo_config c;
  double m1 = 1800 * 4.0 / 3.0 * M_PI * pow(15e-9, 3), ns[] = {2, 3, 5, 10, 20, 100, 1000, 1e4, 1e5};
  for (int law = 0; law < 2; law++) {
    aerosol_config(&c, 1700, 1); /* 1 Pa */
    agglo_dlca_edit(&c)->mobility = law ? DLCA_MOBILITY_SPHERE : DLCA_MOBILITY_ADJUSTED_SPHERE;
    double f1 = agglo_dlca_mobility(&c, 1, m1).friction;
    assert_true(agglo_dlca_mean_free_path(&c) / c.radius > 1e5);
    for (size_t q = 0; q < sizeof ns / sizeof ns[0]; q++) {
      double ratio = agglo_dlca_mobility(&c, ns[q], ns[q] * m1).friction / f1;
      if (!law) {
        assert_true(ratio <= ns[q] && ratio >= 1);
        assert_true(fabs(ratio / pow(ns[q], 0.92) - 1) < 1e-3);
      } else if (ns[q] >= 10) {
        assert_true(ratio > ns[q]); /* N^(2/1.8) */
      }
    }
    aerosol_config(&c, 293.15, 1e9); /* Kn 7e-6 */
    agglo_dlca_edit(&c)->mobility = law ? DLCA_MOBILITY_SPHERE : DLCA_MOBILITY_ADJUSTED_SPHERE;
    f1 = agglo_dlca_mobility(&c, 1, m1).friction;
    for (size_t q = 0; q < sizeof ns / sizeof ns[0]; q++) {
      double ratio = agglo_dlca_mobility(&c, ns[q], ns[q] * m1).friction / f1;
      assert_true(fabs(ratio / pow(ns[q], 1 / 1.8) - 1) < 1e-3);
    }
  }
}

/* Reduced units: dlca.knudsen sets the gas's Knudsen number; free molecular (1e6), a cluster's D
   is a monomer's over N^0.92; 0 (the default), over the continuum's N^(1/1.8). */
static void reduced_units_knudsen(void **st) {
  (void)st;
  agglo_config c;
  dlca_config(&c, 3);
  for (int q = 0; q < 2; q++) {
    agglo_dlca_edit(&c)->knudsen = q ? 1e6 : 0;
    double D = agglo_dlca_mobility(&c, 100, 100).D, want = pow(100, q ? -0.92 : -1 / 1.8);
    assert_true(fabs(D / want - 1) < 1e-3);
  }
}

/* The gas: air's viscosity from Sutherland's law unless dlca.viscosity is given (White 1991:
   1.716e-5 Pa s at 273.15 K, S = 110.4 K), the mean free path from kinetic theory. */
static void gas_from_sutherland(void **st) {
  (void)st;
  agglo_config c;
  aerosol_config(&c, 293.15, 101325);
  assert_true(fabs(agglo_dlca_viscosity(&c) / 1.8133e-5 - 1) < 1e-4);
  aerosol_config(&c, 1700, 101325);
  double mu = 1.716e-5 * pow(1700 / 273.15, 1.5) * 383.55 / 1810.4; /* 5.645e-5 */
  assert_true(fabs(agglo_dlca_viscosity(&c) / mu - 1) < 1e-12);
  assert_true(fabs(agglo_dlca_mean_free_path(&c) / 4.877e-7 - 1) < 1e-3); /* Kn 32.5 at 15 nm */
  agglo_dlca_edit(&c)->viscosity = 1.81e-5; /* given: it wins */
  assert_true(agglo_dlca_viscosity(&c) == 1.81e-5);
}

/* Free clusters of `size` particles each (a straight rigid chain), one per site of a lattice
   `spacing` radii apart, flying to time T with no contact: the velocities sampled at the steps'
   ends have <v^2> = dim kT/m, and the mean-square displacement at T is the Langevin (Ornstein-
   Uhlenbeck) one, 2 dim D (T - tau (1 - e^(-T/tau))), with D and tau of the mobility law:
   within 4 standard errors of the sample. */
static void free_flights(agglo_config *c, int size, int side, double spacing, double T) {
  int dim = c->dim, m = side * side * side;
  size_t n = (size_t)m * (size_t)size;
  double r = c->radius, m1 = agglo_dlca_edit(c)->density > 0 ? agglo_dlca_edit(c)->density * 4.0 / 3.0 * M_PI * r * r * r : 1;
  agglo_dlca_motion law = agglo_dlca_mobility(c, size, size * m1);
  c->n = (int64_t)n;
  agglo_dlca_edit(c)->stop = DLCA_STOP_T_END;
  c->t_end = T;
  agglo_system s;
  make_system(&s, dim, n, spacing * r * side);
  for (size_t i = 0; i < n; i++) s.r[i] = r, s.m[i] = m1, s.inv_m[i] = 1 / m1;
  for (int q = 0; q < m; q++) {
    int site[3] = {q % side, (q / side) % side, q / (side * side)};
    for (int j = 0; j < size; j++)
      for (int k = 0; k < 3; k++)
        s.x[3 * ((size_t)q * size + j) + k] = r * (spacing * site[k] + (k == 0 ? 2.0 * j : 0) + 1);
  }
  double *x0 = malloc(3 * (size_t)m * sizeof *x0), *dx = calloc(3 * (size_t)m, sizeof *dx);
  assert_non_null(x0), assert_non_null(dx);
  for (int q = 0; q < m; q++) memcpy(x0 + 3 * q, s.x + 3 * (size_t)q * size, 3 * sizeof *x0);
  void *state;
  char err[256];
  assert_int_equal(agglo_model_dlca.init(&state, &s, c, err, sizeof err), 0);
  for (int q = 0; q < m; q++)
    for (int j = 1; j < size; j++)
      assert_int_equal(agglo_model_dlca.join(state, &s, q * size, q * size + j, 1), 0);
  agglo_step_info info = {0};
  double v2 = 0, v4 = 0;
  long samples = 0;
  for (int k = 0; k < 100000 && !info.finished; k++) {
    agglo_model_dlca.until(state, T * (double)(samples / m + 1) / 100); /* 100 samples a cluster */
    assert_int_equal(agglo_model_dlca.step(state, &s, &info, err, sizeof err), 0);
    for (int q = 0; q < m; q++) {
      const double *x = s.x + 3 * (size_t)q * size, *v = s.v + 3 * (size_t)q * size;
      double d[3], w = v[0] * v[0] + v[1] * v[1] + v[2] * v[2];
      agglo_box_delta(&s.box, x0 + 3 * q, x, d); /* a step moves far less than half the box */
      for (int l = 0; l < 3; l++) dx[3 * q + l] += d[l], x0[3 * q + l] = x[l];
      if (w > 0) v2 += w, v4 += w * w, samples++;
    }
  }
  assert_true(info.finished);
  size_t nc, mx;
  assert_int_equal(agglo_model_dlca.labels(state, &s, &nc, &mx), 0);
  assert_int_equal(nc, (size_t)m); /* no contact */
  double msd = 0, msd2 = 0;
  for (int q = 0; q < m; q++) {
    double d2 = dx[3 * q] * dx[3 * q] + dx[3 * q + 1] * dx[3 * q + 1] + dx[3 * q + 2] * dx[3 * q + 2];
    msd += d2, msd2 += d2 * d2;
  }
  msd /= m;
  double se = sqrt((msd2 / m - msd * msd) / (m - 1));
  double want = 2 * dim * law.D * (T - law.tau * (1 - exp(-T / law.tau)));
  v2 /= (double)samples;
  double vse = sqrt((v4 / (double)samples - v2 * v2) / (double)samples), vwant = dim * law.kT_m;
  print_message("%dD, %d %d-mers, %s, T = %.3g tau: MSD %.4g +- %.4g (law %.4g), <v^2> %.4g +- %.4g "
                "(dim kT/m %.4g, %ld samples)\n", dim, m, size, agglo_dlca_edit(c)->units ? "SI" : "reduced",
                T / law.tau, msd, se, want, v2, vse, vwant, samples);
  assert_true(fabs(msd - want) < 4 * se);
  /* the samples of one flight repeat (T / tau over 100 flights a sample): 4 standard errors of
     a tenth of them */
  assert_true(fabs(v2 - vwant) < 4 * vse * sqrt(10.0));
  free(x0), free(dx);
  agglo_model_dlca.destroy(state);
  agglo_system_free(&s);
}

static void maxwellian_flights_diffuse_at_kT_over_f(void **st) {
  (void)st;
  agglo_config c;
  dlca_config(&c, 3);
  agglo_dlca_edit(&c)->persistence = 1; /* tau_1 = pi / 8 */
  c.seed = 7;
  free_flights(&c, 1, 10, 60, 40 * M_PI / 8);
  dlca_config(&c, 3);
  agglo_dlca_edit(&c)->persistence = 1;
  free_flights(&c, 20, 7, 80, 40 * 20 * M_PI / 8 / pow(20, 1 / 1.8));
  aerosol_config(&c, 300, 101325); /* Kn 4.5: tau 3.9e-8 s, D 6.3e-9 m^2/s */
  free_flights(&c, 1, 10, 60, 1.5e-6);
  aerosol_config(&c, 300, 101325);
  free_flights(&c, 20, 7, 80, 6e-6);
}

/* 1/N_c - 1/N_0 for the collision kernel beta with the transient of a partially absorbing
   sphere of the same steady rate (Smoluchowski's in the continuum, none in the free molecular
   limit): beta (t + 2 R_eff sqrt(t / (pi D_12))) / (2 V), R_eff = beta / (4 pi D_12). */
static double merged(double beta, double D12, double V, double t) {
  double reff = beta / (4 * M_PI * D12);
  return beta * (t + 2 * reff * sqrt(t / (M_PI * D12))) / (2 * V);
}

/* The monomers' collision rate at the start, from the decay of the cluster count over the first
   10% of merges (N_0 = 20000 monomers of 15 nm in air at 300 K, volume fraction 1e-3), is
   Fuchs's kernel within 5% from the continuum to the free molecular regime (Kn 0.05 to 100, set
   by the pressure): the whole SI pipeline (gas, friction, flights, contacts) against kinetic
   theory. The former flights (fixed length, speed 2 dim D / lambda) gave twice Fuchs's at Kn 5. */
static void collision_rate_is_fuchs(void **st) {
  (void)st;
  const double kns[] = {0.05, 1, 5, 30, 100};
  for (size_t q = 0; q < sizeof kns / sizeof kns[0]; q++) {
    agglo_config c;
    aerosol_config(&c, 300, 101325);
    agglo_dlca_edit(&c)->pressure = 101325 * agglo_dlca_mean_free_path(&c) / c.radius / kns[q];
    c.n = 20000;
    c.fraction = 1e-3;
    agglo_dlca_edit(&c)->stop = DLCA_STOP_T_END;
    double r = c.radius, m1 = 1800 * 4.0 / 3.0 * M_PI * r * r * r, V = (double)c.n * 4.0 / 3.0 * M_PI * r * r * r / c.fraction;
    agglo_dlca_motion o = agglo_dlca_mobility(&c, 1, m1);
    double u = sqrt(8 * o.kT_m / M_PI), beta = agglo_fuchs_kernel(r, r, o.D, o.D, u, u);
    double want = 1 / (0.9 * (double)c.n) - 1 / (double)c.n, lo = 0, hi = 1;
    while (merged(beta, 2 * o.D, V, hi) < want) hi *= 2; /* bounded: beta > 0 */
    for (int k = 0; k < 100; k++) {
      double mid = 0.5 * (lo + hi);
      *(merged(beta, 2 * o.D, V, mid) < want ? &lo : &hi) = mid;
    }
    c.t_end = hi;
    agglo_system s;
    char err[256];
    assert_int_equal(agglo_setup(&s, &c, err, sizeof err), 0);
    void *state;
    assert_int_equal(agglo_model_dlca.init(&state, &s, &c, err, sizeof err), 0);
    agglo_step_info info = {0};
    for (int k = 0; k < 100000 && !info.finished; k++)
      assert_int_equal(agglo_model_dlca.step(state, &s, &info, err, sizeof err), 0);
    assert_true(info.finished && s.t == c.t_end);
    size_t nc, mx;
    assert_int_equal(agglo_model_dlca.labels(state, &s, &nc, &mx), 0);
    double ratio = (1 / (double)nc - 1 / (double)c.n) / want;
    print_message("Kn %g: D %.4g m^2/s, tau %.3g s, t = %.4g s: %zu merges, rate / Fuchs %.4f\n",
                  kns[q], o.D, o.tau, s.t, (size_t)c.n - nc, ratio);
    assert_true(fabs(ratio - 1) < 0.05);
    agglo_model_dlca.destroy(state);
    agglo_system_free(&s);
  }
}

/* Free dimers (dlca.rotation = on), one per site of a lattice 30 radii apart, each along a
   direction of its own: after a time T (2 D_r T = q in 3D, D_r T = q in 2D), the mean of
   u(T).u(0) over the dimers is exp(-q), within 4 standard errors of the sample (the sample's
   own spread). D_r = 3 D / (4 R_m^2) from the dimer's mobility radius R_m = 2^(1/D_f)
   (docs/dlca.md), computed here apart from the model. Many flights per 1/D_r: the turns
   compose. */
static void free_dimers_decorrelate_at_the_rotational_rate(void **st) {
  (void)st;
  for (int dim = 2; dim <= 3; dim++)
    for (int run = 0; run < 2; run++) {
      double q = run ? 1.5 : 0.5;
      int side = dim == 2 ? 32 : 10, m = dim == 2 ? side * side : side * side * side;
      agglo_config c;
      dlca_config(&c, dim);
      c.n = 2 * m;
      agglo_dlca_edit(&c)->persistence = 0.25;
      agglo_dlca_edit(&c)->rotation = DLCA_ROTATION_ON;
      agglo_dlca_edit(&c)->stop = DLCA_STOP_T_END;
      double Rm = pow(2, 1 / (dim == 2 ? 1.45 : 1.8)), Dr = 0.75 * (1 / Rm) / (Rm * Rm);
      c.t_end = q / (dim == 2 ? Dr : 2 * Dr);
      agglo_system s;
      make_system(&s, dim, (size_t)c.n, 30.0 * side);
      double (*u0)[3] = malloc((size_t)m * sizeof *u0);
      assert_non_null(u0);
      for (int d = 0; d < m; d++) {
        double u[4];
        agglo_rng_uniform4(99, 1, (uint64_t)d, 0, u);
        agglo_rng_direction(dim, u, 1.0, u0[d]);
        int site[3] = {d % side, (d / side) % side, dim == 3 ? d / (side * side) : 0};
        for (int k = 0; k < 3; k++) {
          double x = k < dim ? 30.0 * site[k] + 15 : 0;
          s.x[6 * d + k] = x - u0[d][k], s.x[6 * d + 3 + k] = x + u0[d][k];
        }
      }
      void *state;
      char err[256];
      assert_int_equal(agglo_model_dlca.init(&state, &s, &c, err, sizeof err), 0);
      for (int d = 0; d < m; d++)
        assert_int_equal(agglo_model_dlca.join(state, &s, 2 * d, 2 * d + 1, 1), 0);
      agglo_step_info info = {0};
      for (int k = 0; k < 1000 && !info.finished; k++)
        assert_int_equal(agglo_model_dlca.step(state, &s, &info, err, sizeof err), 0);
      assert_true(info.finished);
      size_t nc, mx;
      assert_int_equal(agglo_model_dlca.labels(state, &s, &nc, &mx), 0);
      assert_int_equal(nc, (size_t)m); /* no dimer met another */
      double sum = 0, sum2 = 0;
      for (int d = 0; d < m; d++) {
        double x[3], dot = 0;
        agglo_box_delta(&s.box, s.x + 6 * d, s.x + 6 * d + 3, x);
        for (int k = 0; k < 3; k++) dot += x[k] / 2 * u0[d][k];
        sum += dot, sum2 += dot * dot;
      }
      double mean = sum / m, se = sqrt((sum2 / m - mean * mean) / (m - 1));
      print_message("%dD, %d dimers, t = %.4g: <u(t).u(0)> = %.4f +- %.4f, exp(-%.1f) = %.4f\n",
                    dim, m, s.t, mean, se, q, exp(-q));
      assert_true(s.t == c.t_end);
      assert_true(fabs(mean - exp(-q)) < 4 * se);
      free(u0);
      agglo_model_dlca.destroy(state);
      agglo_system_free(&s);
    }
}

/* A dense run's particles, placed by the set-up; every step checked pair by pair: no two
   particles overlap beyond round-off, the clusters hold every particle once and its mass. */
typedef struct {
  size_t merges_seen;
  double worst; /* largest overlap seen, in radii */
  int steps;    /* states checked */
  double t;     /* time reached */
} check;

static void check_state(const agglo_system *s, void *state, size_t n0, double m0, check *k) {
  size_t nc, mx;
  agglo_system *w = (agglo_system *)s;
  assert_int_equal(agglo_model_dlca.labels(state, w, &nc, &mx), 0);
  double m = 0;
  size_t members = 0;
  for (size_t i = 0; i < s->n; i++) {
    m += s->m[i];
    members += s->cluster[i] >= 0;
    for (size_t j = i + 1; j < s->n; j++) {
      double ov = (s->r[i] + s->r[j] - dist(s, i, j)) / fmin(s->r[i], s->r[j]);
      if (ov > k->worst) k->worst = ov;
    }
  }
  assert_int_equal(members, n0);
  assert_true(fabs(m - m0) <= 1e-12 * m0);
  k->merges_seen = n0 - nc;
}

/* Steps are a fixed time (a monomer moving 10 radii, docs/dlca.md): the run stops at the first
   step end past t_max. */
static void run_dense_turning(int dim, double p, size_t n, double fraction, double t_max,
                              double persistence, int rotation, check *k) {
  agglo_config c;
  dlca_config(&c, dim);
  c.n = (int64_t)n;
  c.radius_spread = 0.3;
  c.fraction = fraction;
  agglo_dlca_edit(&c)->persistence = persistence;
  agglo_dlca_edit(&c)->rotation = rotation;
  agglo_dlca_edit(&c)->probability = p;
  agglo_dlca_edit(&c)->window = 1;
  agglo_system s;
  char err[256];
  assert_int_equal(agglo_setup(&s, &c, err, sizeof err), 0);
  double m0 = 0;
  for (size_t i = 0; i < n; i++) m0 += s.m[i];
  void *state;
  assert_int_equal(agglo_model_dlca.init(&state, &s, &c, err, sizeof err), 0);
  agglo_step_info info = {0};
  memset(k, 0, sizeof *k);
  for (int q = 0; q < 1000 && !info.finished && s.t < t_max; q++) {
    assert_int_equal(agglo_model_dlca.step(state, &s, &info, err, sizeof err), 0);
    check_state(&s, state, n, m0, k);
    k->steps++;
    k->t = s.t;
  }
  agglo_model_dlca.destroy(state);
  agglo_system_free(&s);
}

static void run_dense(int dim, double p, size_t n, double fraction, double t_max, check *k) {
  run_dense_turning(dim, p, n, fraction, t_max, 0.3, 0, k);
}

static void dense_runs_never_overlap(void **st) {
  (void)st;
  check k;
  for (int dim = 2; dim <= 3; dim++) {
    run_dense(dim, 1, 300, 0.3, 20, &k);
    print_message("%dD, p = 1: %zu merges, largest overlap %.3g radii\n", dim, k.merges_seen, k.worst);
    assert_true(k.merges_seen > 100);
    assert_true(k.worst < 1e-9);
    run_dense(dim, 0.2, 300, 0.3, 20, &k);
    print_message("%dD, p = 0.2: %zu merges, largest overlap %.3g radii\n", dim, k.merges_seen, k.worst);
    assert_true(k.merges_seen > 10);
    assert_true(k.worst < 1e-9);
  }
}

/* The same with rotation: flights of 0.3 radius (small turns, a monomer's D_r tau = 0.01) and of 3
   radii (turns of a radian and more, rebuilt on the way). */
static void dense_runs_with_rotation_never_overlap(void **st) {
  (void)st;
  check k;
  for (int dim = 2; dim <= 3; dim++)
    for (int big = 0; big <= 1; big++)
      for (int sticky = 0; sticky <= 1; sticky++) {
        double p = sticky ? 1 : 0.2;
        run_dense_turning(dim, p, 300, 0.3, 20, big ? 3 : 0.3, DLCA_ROTATION_ON, &k);
        print_message("%dD, rotation, persistence %g, p = %g: %zu merges, largest overlap %.3g radii\n",
                      dim, big ? 3 : 0.3, p, k.merges_seen, k.worst);
        assert_true(k.merges_seen > 10);
        assert_true(k.worst < 1e-9);
      }
}

static void probability_zero_never_merges(void **st) {
  (void)st;
  check k;
  for (int dim = 2; dim <= 3; dim++) {
    run_dense(dim, 0, 200, 0.3, 60, &k);
    print_message("%dD, p = 0: %zu merges, largest overlap %.3g radii, %d steps checked, t = %g\n", dim,
                  k.merges_seen, k.worst, k.steps, k.t);
    assert_int_equal(k.merges_seen, 0);
    assert_true(k.worst < 1e-9);
  }
}

/* Saved after some steps and loaded into a fresh model, the run goes on to the same bytes. */
static void restart_case(int rotation) {
  agglo_config c;
  dlca_config(&c, 3);
  agglo_dlca_edit(&c)->rotation = rotation;
  c.n = 200;
  c.fraction = 0.05;
  c.radius_spread = 0.2;
  agglo_dlca_edit(&c)->persistence = 0.5;
  agglo_dlca_edit(&c)->probability = 0.5;
  agglo_system a, b;
  char err[256];
  assert_int_equal(agglo_setup(&a, &c, err, sizeof err), 0);
  void *sa, *sb;
  assert_int_equal(agglo_model_dlca.init(&sa, &a, &c, err, sizeof err), 0);
  agglo_step_info info;
  for (int q = 0; q < 30; q++) assert_int_equal(agglo_model_dlca.step(sa, &a, &info, err, sizeof err), 0);
  FILE *f = tmpfile();
  assert_non_null(f);
  assert_int_equal(agglo_model_dlca.save(sa, f), 0);
  rewind(f);
  assert_int_equal(agglo_setup(&b, &c, err, sizeof err), 0);
  memcpy(b.x, a.x, 3 * a.n * sizeof *a.x);
  b.t = a.t, b.step = a.step;
  assert_int_equal(agglo_model_dlca.init(&sb, &b, &c, err, sizeof err), 0);
  assert_int_equal(agglo_model_dlca.load(sb, &b, f, err, sizeof err), 0);
  fclose(f);
  for (int q = 0; q < 30; q++) {
    assert_int_equal(agglo_model_dlca.step(sa, &a, &info, err, sizeof err), 0);
    assert_int_equal(agglo_model_dlca.step(sb, &b, &info, err, sizeof err), 0);
  }
  assert_true(a.t == b.t);
  assert_memory_equal(a.x, b.x, 3 * a.n * sizeof *a.x);
  agglo_model_dlca.destroy(sa), agglo_model_dlca.destroy(sb);
  agglo_system_free(&a), agglo_system_free(&b);
}

static void restart_is_exact(void **st) {
  (void)st;
  restart_case(DLCA_ROTATION_OFF);
  restart_case(DLCA_ROTATION_ON);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(contact_after_a_turn),
      cmocka_unit_test(a_turn_stops_at_the_exact_contact),
      cmocka_unit_test(dimer_at_the_exact_contact_time),
      cmocka_unit_test(friction_within_its_bounds),
      cmocka_unit_test(gas_from_sutherland),
      cmocka_unit_test(reduced_units_knudsen),
      cmocka_unit_test(maxwellian_flights_diffuse_at_kT_over_f),
      cmocka_unit_test(collision_rate_is_fuchs),
      cmocka_unit_test(free_dimers_decorrelate_at_the_rotational_rate),
      cmocka_unit_test(dense_runs_never_overlap),
      cmocka_unit_test(dense_runs_with_rotation_never_overlap),
      cmocka_unit_test(probability_zero_never_merges),
      cmocka_unit_test(restart_is_exact),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
