/* The contact-dynamics model (Maury 2004), driven step by step through the model table:
   non-overlap after every step, exact relaxation of a free particle, contact and adhesion of a
   pair, stationary velocity variance of the discrete Langevin step. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "analysis/clusters.h"
#include "config/config.h"
#include "core/model.h"
#include "core/setup.h"
#include "support.h"
#include "models/contact_config.h"

/* ---------------------------------------------------------------- helpers */

typedef struct {
  agglo_system s;
  void *state;
  agglo_config *cfg;
} sim;

static void sim_start(sim *m, agglo_config *c) {
  char err[1024] = "";
  m->cfg = c;
  if (agglo_setup(&m->s, c, err, sizeof err) != 0) fail_msg("setup: %s", err);
  m->state = NULL;
}

static void sim_init_model(sim *m) {
  char err[1024] = "";
  if (agglo_model_contact.init(&m->state, &m->s, m->cfg, err, sizeof err) != 0)
    fail_msg("init: %s", err);
}

static void sim_step(sim *m, agglo_step_info *info) {
  char err[1024] = "";
  if (agglo_model_contact.step(m->state, &m->s, info, err, sizeof err) != 0) fail_msg("step: %s", err);
  assert_true(info->bad_particle == SIZE_MAX);
}

static void sim_end(sim *m) {
  if (m->state) agglo_model_contact.destroy(m->state);
  agglo_system_free(&m->s);
  agglo_config_destroy(m->cfg);
}

static double pair_gap(const agglo_system *s, size_t i, size_t j) {
  double d[3];
  agglo_box_delta(&s->box, s->x + 3 * i, s->x + 3 * j, d);
  return sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]) - s->r[i] - s->r[j];
}

/* Smallest gap over every pair (minimum image) and every wall, by brute force. */
static double brute_min_gap(const agglo_system *s) {
  double g = INFINITY;
  for (size_t i = 0; i < s->n; i++) {
    const double *x = s->x + 3 * i;
    for (int k = 0; k < s->dim; k++)
      if (!s->box.periodic[k]) {
        g = fmin(g, x[k] - s->box.lo[k] - s->r[i]);
        g = fmin(g, s->box.hi[k] - x[k] - s->r[i]);
      }
    for (size_t j = i + 1; j < s->n; j++) g = fmin(g, pair_gap(s, i, j));
  }
  return g;
}

static double mean_radius(const agglo_system *s) {
  double t = 0;
  for (size_t i = 0; i < s->n; i++) t += s->r[i];
  return t / (double)s->n;
}

/* Clusters by brute force: components of the pairs with gap < gap_max, labelled by the
   smallest id; checks the library's labels, cluster count and largest size. */
static int32_t uf_find(int32_t *p, int32_t a) {
  while (p[a] != a) a = p[a] = p[p[a]];
  return a;
}

static void check_clusters(agglo_system *s, const void *nb, double gap_max) {
  size_t n = s->n;
  agglo_cluster_stats st;
  assert_int_equal(agglo_clusters_label(s, nb, gap_max, &st), 0);
  int32_t *p = malloc(n * sizeof *p);
  int64_t *low = malloc(n * sizeof *low);
  size_t *size = calloc(n, sizeof *size);
  for (size_t i = 0; i < n; i++) p[i] = (int32_t)i, low[i] = INT64_MAX;
  for (size_t i = 0; i < n; i++)
    for (size_t j = i + 1; j < n; j++)
      if (pair_gap(s, i, j) < gap_max) {
        int32_t a = uf_find(p, (int32_t)i), b = uf_find(p, (int32_t)j);
        if (a != b) p[a] = b;
      }
  for (size_t i = 0; i < n; i++) {
    int32_t r = uf_find(p, (int32_t)i);
    if (s->id[i] < low[r]) low[r] = s->id[i];
    size[r]++;
  }
  size_t count = 0, largest = 0;
  for (size_t i = 0; i < n; i++) {
    if (s->cluster[i] != (int32_t)low[uf_find(p, (int32_t)i)])
      fail_msg("particle %zu (id %lld): cluster %d, brute force %lld", i, (long long)s->id[i],
               s->cluster[i], (long long)low[uf_find(p, (int32_t)i)]);
    if (size[i]) count++, largest = size[i] > largest ? size[i] : largest;
  }
  assert_int_equal(st.n_clusters, count);
  assert_int_equal(st.max_size, largest);
  assert_true(fabs(st.mean_size - (double)n / (double)count) < 1e-12);
  free(p), free(low), free(size);
}

/* ---------------------------------------------------------------- 1. no overlap */

typedef struct {
  const char *name;
  int dim;
  const char *boundary;
  double fraction;
  int n, steps;
  const char *sigma, *flow, *solver; /* extra overrides */
} overlap_case;

static void run_overlap_case(const overlap_case *oc) {
  char dim[32], bnd[64], frac[64], n[48];
  snprintf(dim, sizeof dim, "run.dim=%d", oc->dim);
  snprintf(bnd, sizeof bnd, "box.boundary=%s", oc->boundary);
  snprintf(frac, sizeof frac, "particles.fraction=%g", oc->fraction);
  snprintf(n, sizeof n, "particles.n=%d", oc->n);
  const char *over[] = {dim, bnd, frac, n, "particles.radius=0.01", "particles.radius_spread=0.15",
                        "run.dt=0.02", "drag.tau=0.2", oc->sigma, "attraction.kappa=0.003",
                        "attraction.epsilon=0.003", "solver.tol=1e-3", oc->flow, oc->solver, "run.seed=7",
                        NULL};
  /* box.size must be unset when the fraction sets the box */
  agglo_config *c = agglo_config_new();
  char err[1024] = "";
  c->size.n = 0;
  for (int i = 0; over[i]; i++)
    if (agglo_config_read_assignment(c, over[i], err, sizeof err) != 0) fail_msg("%s", err);
  if (agglo_config_validate(c, err, sizeof err) != 0) fail_msg("%s: check: %s", oc->name, err);
  clock_t t0 = clock();
  sim m;
  sim_start(&m, c);
  sim_init_model(&m);
  double rbar = mean_radius(&m.s), tol = c->solver_tol * rbar;
  double g0 = brute_min_gap(&m.s);
  assert_true(g0 >= 0);
  double worst = INFINITY, worst_viol = 0;
  size_t contacts = 0, total_it = 0;
  for (int step = 0; step < oc->steps; step++) {
    agglo_step_info info;
    sim_step(&m, &info);
    double g = brute_min_gap(&m.s);
    worst = fmin(worst, g);
    worst_viol = fmax(worst_viol, info.max_violation);
    contacts += info.n_contacts;
    total_it += (size_t)info.iterations;
    /* the acceptance bound: never more than 2 tol r of overlap */
    if (g < -2 * tol)
      fail_msg("%s: step %d: overlap %.3g exceeds 2 tol r = %.3g", oc->name, step + 1, -g, 2 * tol);
    /* convexity of D: the overlap after the step is at most what the solver reports */
    if (g < -info.max_violation - 1e-12 * rbar)
      fail_msg("%s: step %d: true overlap %.6g > reported max_violation %.6g", oc->name, step + 1,
               -g, info.max_violation);
    /* a converged solve leaves at most tol (a little more after clipping the momentum point) */
    if (info.converged && info.max_violation > 2 * tol)
      fail_msg("%s: step %d: converged but max_violation %.3g > 2 tol r", oc->name, step + 1,
               info.max_violation);
    assert_true(info.converged);
    /* the reported min_gap is the true one whenever the closest pair is within the contact reach */
    if (g < 0.5 * rbar && fabs(info.min_gap - g) > 1e-12 * rbar)
      fail_msg("%s: step %d: min_gap %.9g but brute force gives %.9g", oc->name, step + 1,
               info.min_gap, g);
    assert_true(info.min_gap >= g - 1e-12 * rbar);
    /* particles stay in the box (walls) and in the primary image (periodic) */
    for (size_t i = 0; i < m.s.n; i++)
      for (int k = 0; k < m.s.dim; k++) {
        double x = m.s.x[3 * i + k];
        if (m.s.box.periodic[k]) assert_true(x >= m.s.box.lo[k] && x < m.s.box.hi[k]);
        else assert_true(x >= m.s.box.lo[k] - 2 * tol && x <= m.s.box.hi[k] + 2 * tol);
      }
    if (m.s.dim == 2)
      for (size_t i = 0; i < m.s.n; i++) assert_true(m.s.x[3 * i + 2] == 0 && m.s.v[3 * i + 2] == 0);
  }
  /* clusters from the model's neighbour list (as the driver does) and from a fresh list agree
     with brute force */
  double gap_max = agglo_model_contact.contact_gap(m.state);
  assert_true(fabs(gap_max - 0.1 * rbar) < 1e-15);
  const void *nb = agglo_model_contact.neighbors(m.state);
  assert_non_null(nb);
  check_clusters(&m.s, nb, gap_max);
  check_clusters(&m.s, NULL, gap_max);
  /* the scenario must actually have contacts for the test to mean something */
  assert_true(contacts > 0);
  print_message("  %-24s N=%d steps=%d: min gap %+.3e r, max violation %.3e r, %.1f contacts/step, "
                "%.1f it/step, %.2f s CPU\n", oc->name, oc->n, oc->steps, worst / rbar,
                worst_viol / rbar, (double)contacts / oc->steps, (double)total_it / oc->steps,
                (double)(clock() - t0) / CLOCKS_PER_SEC);
  assert_true(worst < 0.01 * rbar); /* some pair actually touched */
  sim_end(&m);
}

static void test_no_overlap(void **st) {
  (void)st;
  static const overlap_case cases[] = {
      {"2D walls dilute", 2, "wall", 0.05, 1000, 80, "brownian.sigma=1.5", "flow.type=none",
       "solver.method=apgd"},
      {"2D periodic dilute", 2, "periodic", 0.05, 1000, 80, "brownian.sigma=1.5", "flow.type=none",
       "solver.method=apgd"},
      {"2D walls dense", 2, "wall", 0.4, 1000, 80, "brownian.sigma=1", "flow.type=none",
       "solver.method=apgd"},
      {"2D periodic dense", 2, "periodic", 0.4, 1000, 80, "brownian.sigma=1", "flow.type=none",
       "solver.method=apgd"},
      {"2D walls dense shear", 2, "wall", 0.4, 600, 60, "brownian.sigma=0.5", "flow.type=shear",
       "solver.method=apgd"},
      {"2D periodic dense uzawa", 2, "periodic", 0.4, 300, 30, "brownian.sigma=1", "flow.type=none",
       "solver.method=uzawa"},
      {"3D walls dilute", 3, "wall", 0.05, 800, 50, "brownian.sigma=1", "flow.type=none",
       "solver.method=apgd"},
      {"3D periodic dilute", 3, "periodic", 0.05, 800, 50, "brownian.sigma=1", "flow.type=none",
       "solver.method=apgd"},
      {"3D walls dense", 3, "wall", 0.25, 800, 50, "brownian.sigma=1", "flow.type=none",
       "solver.method=apgd"},
      {"3D periodic dense", 3, "periodic", 0.25, 800, 50, "brownian.sigma=1", "flow.type=none",
       "solver.method=apgd"},
  };
  omp_set_num_threads(1); /* the machine is shared: no spinning threads */
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) run_overlap_case(&cases[k]);
}

/* ---------------------------------------------------------------- 2. free particle relaxation */

static const char *free_ini = "[run]\nseed = 3\n[particles]\nn = 1\nradius = 0.01\n"
                              "radius_spread = 0\n[box]\nsize = 1\nboundary = periodic\n"
                              "[brownian]\nsigma = 0\n[attraction]\nkappa = 0\n"
                              "[flow]\ntype = uniform\n";

/* Largest |v(t_end) - U(1 - exp(-t/tau))| for a particle starting at rest. */
static double relax(int dim, double h, double tau, double t_end, const double U[3], int check_discrete) {
  char dims[32], dt[64], ta[64], vel[128];
  snprintf(dims, sizeof dims, "run.dim=%d", dim);
  snprintf(dt, sizeof dt, "run.dt=%.17g", h);
  snprintf(ta, sizeof ta, "drag.tau=%.17g", tau);
  if (dim == 2) snprintf(vel, sizeof vel, "flow.velocity=%.17g, %.17g", U[0], U[1]);
  else snprintf(vel, sizeof vel, "flow.velocity=%.17g, %.17g, %.17g", U[0], U[1], U[2]);
  const char *over[] = {dims, dt, ta, vel, NULL};
  sim m;
  sim_start(&m, make_config(free_ini, over));
  for (int k = 0; k < 3; k++) m.s.v[k] = 0;
  sim_init_model(&m);
  double x0[3] = {m.s.x[0], m.s.x[1], m.s.x[2]}, path[3] = {0, 0, 0};
  int steps = (int)llround(t_end / h);
  double a = 1 - h / tau;
  for (int nstep = 1; nstep <= steps; nstep++) {
    agglo_step_info info;
    sim_step(&m, &info);
    assert_int_equal(info.n_contacts, 0);
    assert_int_equal(m.s.step, nstep);
    assert_true(m.s.t == nstep * h);
    for (int k = 0; k < 3; k++) path[k] += h * m.s.v[k];
    if (check_discrete)
      for (int k = 0; k < 3; k++) {
        double expect = k < dim ? U[k] * (1 - pow(a, nstep)) : 0.0;
        if (fabs(m.s.v[k] - expect) > 1e-12)
          fail_msg("%dD step %d axis %d: v = %.17g, explicit Euler gives %.17g", dim, nstep, k,
                   m.s.v[k], expect);
      }
  }
  /* the position is the sum of the velocities (wrapped in the periodic box) */
  for (int k = 0; k < dim; k++) {
    double d = m.s.x[k] - (x0[k] + path[k]);
    d -= m.s.box.len[k] * round(d / m.s.box.len[k]);
    assert_true(fabs(d) < 1e-12);
  }
  assert_true(m.s.x[2] == x0[2] || dim == 3);
  double err = 0;
  for (int k = 0; k < dim; k++)
    err = fmax(err, fabs(m.s.v[k] - U[k] * (1 - exp(-t_end / tau))));
  sim_end(&m);
  return err;
}

static void test_free_particle_relaxation(void **st) {
  (void)st;
  omp_set_num_threads(1);
  const double U2[3] = {0.3, -0.2, 0}, U3[3] = {0.25, 0.1, -0.4};
  /* exact discrete solution */
  relax(2, 0.02, 0.2, 2.0, U2, 1);
  relax(3, 0.01, 0.1, 1.0, U3, 1);
  /* h -> 0: first-order convergence to U(1 - exp(-t/tau)) */
  double e1 = relax(2, 0.004, 0.2, 0.2, U2, 1);
  double e2 = relax(2, 0.002, 0.2, 0.2, U2, 1);
  double e3 = relax(2, 0.001, 0.2, 0.2, U2, 1);
  print_message("  error at t = tau: %.3e %.3e %.3e (ratios %.3f %.3f)\n", e1, e2, e3, e1 / e2,
                e2 / e3);
  assert_true(e3 < 2e-3);
  assert_true(e1 / e2 > 1.9 && e1 / e2 < 2.1);
  assert_true(e2 / e3 > 1.9 && e2 / e3 < 2.1);
}

/* ---------------------------------------------------------------- 3. contact of a pair */

static const char *pair_ini = "[run]\ndim = 2\ndt = 0.01\n[particles]\nn = 2\nradius = 0.01\n"
                              "radius_spread = 0\nplacement = lattice\n[box]\nsize = 1\n"
                              "boundary = periodic\n[drag]\ntau = 0\n[brownian]\nsigma = 0\n"
                              "[attraction]\nkappa = 0.003\nepsilon = 0.003\nscaling = h\n";

static void place2(sim *m, double x0, double y0, double x1, double y1, double vx) {
  m->s.x[0] = x0, m->s.x[1] = y0, m->s.x[2] = 0;
  m->s.x[3] = x1, m->s.x[4] = y1, m->s.x[5] = 0;
  memset(m->s.v, 0, 6 * sizeof(double));
  m->s.v[0] = vx, m->s.v[3] = -vx;
}

static void test_pair_sticks(void **st) {
  (void)st;
  omp_set_num_threads(1);
  const double speeds[] = {0.5, 5.0}; /* slow, and fast enough to pass through in one step */
  for (int q = 0; q < 2; q++) {
    double V = speeds[q];
    sim m;
    sim_start(&m, make_config(pair_ini, NULL));
    place2(&m, 0.3, 0.5, 0.7, 0.5, V);
    sim_init_model(&m);
    double r = 0.01, tol = 1e-3 * r, gap0 = 0.4 - 2 * r;
    /* steps needed to close the gap at relative speed 2V (attraction adds a little) */
    int touch = 0;
    for (int step = 1; step <= 400; step++) {
      agglo_step_info info;
      sim_step(&m, &info);
      double g = pair_gap(&m.s, 0, 1);
      assert_true(g >= -2 * tol);
      assert_true(info.max_violation <= 2 * tol);
      /* momentum: equal masses, equal and opposite forces */
      assert_true(fabs(m.s.v[0] + m.s.v[3]) < 1e-12 && fabs(m.s.v[1] + m.s.v[4]) < 1e-12);
      assert_true(fabs(0.5 * (m.s.x[0] + m.s.x[3]) - 0.5) < 1e-12);
      assert_true(fabs(m.s.x[1] - 0.5) < 1e-12 && fabs(m.s.x[4] - 0.5) < 1e-12);
      /* never passes through: particle 0 stays on the left */
      assert_true(m.s.x[0] < m.s.x[3]);
      if (!touch && g < 2 * tol) {
        touch = step;
        /* contact is reached in the step in which free flight would close the gap */
        int expect = (int)ceil(gap0 / (2 * V * 0.01) - 1e-9);
        if (touch > expect)
          fail_msg("V=%g: touched at step %d, free flight closes the gap at step %d", V, touch, expect);
        assert_true(touch >= expect - 1);
      }
      if (touch) {
        if (fabs(g) > 2 * tol) fail_msg("V=%g: step %d: gap %.3g after contact at step %d", V, step, g, touch);
        /* perfectly inelastic: once in contact the normal velocity is gone */
        if (step > touch && fabs(m.s.v[0]) > 2 * tol / 0.01)
          fail_msg("V=%g: step %d: v = %.3g in contact", V, step, m.s.v[0]);
      }
    }
    assert_true(touch > 0);
    /* the attraction holds them: resting, gap at zero within tol */
    assert_true(fabs(m.s.v[0]) < 1e-3);
    agglo_model_contact.destroy(m.state);
    m.state = NULL;
    /* now with drag toward a uniform flow: they travel together and stay in contact */
    agglo_config_destroy(m.cfg);
    const char *over[] = {"drag.tau=0.2", "flow.type=uniform", "flow.velocity=0.3, 0.1", NULL};
    m.cfg = make_config(pair_ini, over);
    sim_init_model(&m);
    double cx = 0.5, cy = 0.5;
    for (int step = 1; step <= 300; step++) {
      agglo_step_info info;
      sim_step(&m, &info);
      double g = pair_gap(&m.s, 0, 1);
      if (g < -2 * tol || g > 2 * tol) fail_msg("drifting pair: step %d: gap %.3g", step, g);
      cx += 0.01 * 0.5 * (m.s.v[0] + m.s.v[3]);
      cy += 0.01 * 0.5 * (m.s.v[1] + m.s.v[4]);
    }
    /* after 15 tau the pair's centre moves at U (exactly: the contact forces cancel); each
       particle within the solver's velocity resolution tol/h */
    assert_true(fabs(0.5 * (m.s.v[0] + m.s.v[3]) - 0.3) < 1e-6);
    assert_true(fabs(0.5 * (m.s.v[1] + m.s.v[4]) - 0.1) < 1e-6);
    for (int k = 0; k < 2; k++) {
      double u = k ? 0.1 : 0.3;
      assert_true(fabs(m.s.v[k] - u) < 2 * tol / 0.01 && fabs(m.s.v[3 + k] - u) < 2 * tol / 0.01);
    }
    /* and has travelled sum_n h U (1 - a^n) = U (t - (tau - h)(1 - a^N)), a = 1 - h/tau */
    double lag = (0.2 - 0.01) * (1 - pow(1 - 0.01 / 0.2, 300));
    print_message("  V=%g: pair centre moved (%.6f %.6f), expected (%.6f %.6f)\n", V, cx - 0.5, cy - 0.5,
                  0.3 * (3.0 - lag), 0.1 * (3.0 - lag));
    assert_true(fabs(cx - (0.5 + 0.3 * (3.0 - lag))) < 1e-6 && fabs(cy - (0.5 + 0.1 * (3.0 - lag))) < 1e-6);
    sim_end(&m);
  }
}

/* A particle thrown at a wall stops on it, whatever its speed. */
static void test_wall_stop(void **st) {
  (void)st;
  omp_set_num_threads(1);
  const double speeds[] = {0.3, 20.0};
  for (int q = 0; q < 2; q++) {
    const char *over[] = {"box.boundary=wall", "particles.n=1", "attraction.kappa=0", NULL};
    sim m;
    sim_start(&m, make_config(pair_ini, over));
    m.s.x[0] = 0.5, m.s.x[1] = 0.5, m.s.v[0] = -speeds[q], m.s.v[1] = 0.05;
    sim_init_model(&m);
    double tol = 1e-3 * 0.01;
    int hit = 0;
    for (int step = 1; step <= 300; step++) {
      agglo_step_info info;
      sim_step(&m, &info);
      double g = m.s.x[0] - m.s.box.lo[0] - m.s.r[0];
      assert_true(g >= -2 * tol);
      if (hit) {
        /* resting on the wall; an overlap left by the solver (< tol) is removed by a velocity
           (< tol/h) that nothing damps here (no drag) */
        if (!(g < 2 * tol + (step - hit) * 2 * tol)) fail_msg("step %d: gap %.3g after hitting at %d", step, g, hit);
        assert_true(fabs(m.s.v[0]) < 2 * tol / 0.01);
        assert_true(fabs(m.s.v[1] - 0.05) < 1e-12); /* no friction along the wall */
      }
      if (!hit && g < 2 * tol) hit = step;
    }
    assert_true(hit);
    sim_end(&m);
  }
}

/* ---------------------------------------------------------------- 4. Langevin variance */

/* Sample variance per component of v for one free particle. */
static double langevin_variance(int dim, double h, double tau, double sigma, int steps, int skip,
                                double *mean_out) {
  char dims[32], dt[64], ta[64], sg[64];
  snprintf(dims, sizeof dims, "run.dim=%d", dim);
  snprintf(dt, sizeof dt, "run.dt=%.17g", h);
  snprintf(ta, sizeof ta, "drag.tau=%.17g", tau);
  snprintf(sg, sizeof sg, "brownian.sigma=%.17g", sigma);
  const char *over[] = {dims, dt, ta, sg, "flow.type=none", "particles.radius=0.05",
                        "box.size=0.5", NULL};
  sim m;
  sim_start(&m, make_config(free_ini, over));
  assert_true(m.s.m[0] == 1.0);
  sim_init_model(&m);
  double sum = 0, sum2 = 0;
  long cnt = 0;
  for (int step = 0; step < steps; step++) {
    agglo_step_info info;
    sim_step(&m, &info);
    if (step < skip) continue;
    for (int k = 0; k < dim; k++) {
      double v = m.s.v[k];
      sum += v, sum2 += v * v;
      cnt++;
    }
  }
  sim_end(&m);
  double mean = sum / cnt;
  *mean_out = mean;
  return sum2 / cnt - mean * mean;
}

static void test_langevin_variance(void **st) {
  (void)st;
  omp_set_num_threads(1);
  const double sigma = 0.5, tau = 0.2;
  struct { int dim; double h; int steps; } cs[] = {{2, 0.02, 60000}, {3, 0.02, 60000}, {3, 0.1, 40000}};
  for (int q = 0; q < 3; q++) {
    double h = cs[q].h, a = 1 - h / tau, mean;
    double var = langevin_variance(cs[q].dim, h, tau, sigma, cs[q].steps, 200, &mean);
    double exact = sigma * sigma * h / (1 - a * a), cont = sigma * sigma * tau / 2;
    /* the closed forms agree */
    assert_true(fabs(exact - sigma * sigma * tau / (2 - h / tau)) < 1e-15);
    print_message("  %dD h/tau = %.2f: var %.5f, discrete exact %.5f (%+.2f%%), continuous %.5f "
                  "(%+.2f%%), mean %+.4f\n", cs[q].dim, h / tau, var, exact,
                  100 * (var / exact - 1), cont, 100 * (var / cont - 1), mean);
    /* 1 sigma statistical error is about 1% (h/tau = 0.1) and 0.5% (h/tau = 0.5) */
    assert_true(fabs(var / exact - 1) < (h / tau < 0.2 ? 0.025 : 0.02));
    assert_true(fabs(mean) < 0.05 * sqrt(exact));
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_free_particle_relaxation),
      cmocka_unit_test(test_pair_sticks),
      cmocka_unit_test(test_wall_stop),
      cmocka_unit_test(test_langevin_variance),
      cmocka_unit_test(test_no_overlap),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
