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
   monomer's first accepted counter of the flight stream, keyed by the monomer; speed
   2 dim D / lambda); monomer 1 is put where the
   two touch at time T, and the model must merge them at that time. */
static void dimer_at_the_exact_contact_time(void **st) {
  (void)st;
  for (int dim = 2; dim <= 3; dim++) {
    agglo_config c;
    dlca_config(&c, dim);
    c.dlca.persistence = 1e6; /* one flight for the whole test */
    c.dlca.diffusion = 1e6 / (2.0 * dim);
    double v[2][3], u[4];
    for (int i = 0; i < 2; i++) {
      for (uint64_t k = 0;; k++) { /* the model's draws: by rejection from the disc */
        agglo_rng_uniform4((uint64_t)c.seed, AGGLO_STREAM_FLIGHT, k, (uint64_t)i, u);
        if (agglo_rng_direction_disc(dim, u, 1.0, v[i])) break;
      }
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

/* The flights' directions by rejection from the disc (agglo_rng_direction_disc) are unit vectors,
   isotropic: over 4e5 draws each component's mean is 0 and its square's mean 1/dim, the mixed
   products' means 0, within 4 standard errors (Var x^2 = 1/8 in 2D, 4/45 in 3D; Var xy = 1/8,
   1/15), and both pairs rejected at the rate (1 - pi/4)^2. */
static void flight_directions_are_isotropic(void **st) {
  (void)st;
  for (int dim = 2; dim <= 3; dim++) {
    enum { N = 400000 };
    double m1[3] = {0}, m2[3] = {0}, mx[3] = {0}, worst = 0;
    long rejected = 0;
    for (long k = 0, got = 0; got < N; k++) {
      double u[4], x[3];
      agglo_rng_uniform4(5, AGGLO_STREAM_FLIGHT, (uint64_t)k, 3, u);
      if (!agglo_rng_direction_disc(dim, u, 1.0, x)) {
        rejected++;
        continue;
      }
      got++;
      double n2 = x[0] * x[0] + x[1] * x[1] + x[2] * x[2];
      if (fabs(n2 - 1) > worst) worst = fabs(n2 - 1);
      for (int q = 0; q < 3; q++) m1[q] += x[q], m2[q] += x[q] * x[q], mx[q] += x[q] * x[(q + 1) % 3];
    }
    double v2 = dim == 2 ? 1.0 / 8 : 4.0 / 45, vx = dim == 2 ? 1.0 / 8 : 1.0 / 15;
    double rate = (double)rejected / (N + rejected), p = (1 - M_PI / 4) * (1 - M_PI / 4);
    print_message("%dD: |x|^2 - 1 <= %.2g, <x> = (%.4f, %.4f, %.4f), <x^2> = (%.4f, %.4f, %.4f), "
                  "rejected %.4f (%.4f)\n", dim, worst, m1[0] / N, m1[1] / N, m1[2] / N, m2[0] / N,
                  m2[1] / N, m2[2] / N, rate, p);
    assert_true(worst < 1e-14);
    for (int q = 0; q < dim; q++) {
      assert_true(fabs(m1[q] / N) < 4 * sqrt(1.0 / dim / N));
      assert_true(fabs(m2[q] / N - 1.0 / dim) < 4 * sqrt(v2 / N));
    }
    for (int q = 0; q < (dim == 2 ? 1 : 3); q++) assert_true(fabs(mx[q] / N) < 4 * sqrt(vx / N));
    assert_true(fabs(rate - p) < 4 * sqrt(p * (1 - p) / N));
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
      c.dlca.persistence = 0.25;
      c.dlca.rotation = DLCA_ROTATION_ON;
      c.dlca.stop = DLCA_STOP_T_END;
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
  c.dlca.persistence = persistence;
  c.dlca.rotation = rotation;
  c.dlca.probability = p;
  c.dlca.window = 1;
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
  c.dlca.rotation = rotation;
  c.n = 200;
  c.fraction = 0.05;
  c.radius_spread = 0.2;
  c.dlca.persistence = 0.5;
  c.dlca.probability = 0.5;
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
      cmocka_unit_test(flight_directions_are_isotropic),
      cmocka_unit_test(free_dimers_decorrelate_at_the_rotational_rate),
      cmocka_unit_test(dense_runs_never_overlap),
      cmocka_unit_test(dense_runs_with_rotation_never_overlap),
      cmocka_unit_test(probability_zero_never_merges),
      cmocka_unit_test(restart_is_exact),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
