/* Gluey particles (Lefebvre 2007; docs/gluey.md): Algorithm 2.7 against the exact solution and
   the paper's h = 0.63 table, the rough and inelastic limits; the many-particle model against
   Algorithm 2.7, the gluey billiard against the estimate 2 r v_n / v_t^2, glued pairs that neither
   separate nor overlap, and the adhesion memory across neighbour-list rebuilds. */
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

#include "core/cells.h"
#include "config/config.h"
#include "core/model.h"
#include "models/gluey_model.h"
#include "core/setup.h"
#include "support.h"
#include "models/gluey_config.h"

/* ---------------------------------------------------------------- particle against a plane */

/* The reference case: m = 1, q0 = 1, u0 = 0, f = -2 on [0, 2], +2 after (mean over a step). */
static double ref_force(double t0, double t1) {
  double a = fmin(t1, 2.0) - fmin(t0, 2.0), b = fmax(t1, 2.0) - fmax(t0, 2.0);
  return (-2 * a + 2 * b) / (t1 - t0);
}
static double q_exact(double t) { return t < 1 ? 1 - t * t : t < 4 ? 0 : (t - 4) * (t - 4); }
static double u_exact(double t) { return t < 1 ? -2 * t : t < 4 ? 0 : 2 * (t - 4); }
static double g_exact(double t) {
  return t < 1 ? 0 : t < 2 ? -2 - 2 * (t - 1) : t < 4 ? -4 + 2 * (t - 2) : 0;
}

static void test_plane_exact_h003(void **st) {
  (void)st;
  double h = 0.03, qerr = 0;
  agglo_gluey_plane p = {1, 0, 0, 0};
  int checked = 0;
  for (int n = 0; n * h < 6; n++) {
    double t = (n + 1) * h;
    agglo_gluey_plane_step(&p, h, ref_force(n * h, t), 1, 1, -INFINITY);
    qerr = fmax(qerr, fabs(p.q - q_exact(t)));
    if (fabs(t - 1) < 2 * h || fabs(t - 4) < 2 * h) continue; /* hitting, unsticking */
    assert_true(fabs(p.u - u_exact(t)) < 1e-9);
    assert_true(fabs(p.gamma - g_exact(t)) < 1e-9);
    checked++;
  }
  assert_true(checked > 190);
  /* q: the O(h) error of q += h u (h t in free fall, Lefebvre 2007) */
  printf("# h = 0.03: max |q - q_exact| = %.4f (bound 2.5 h = %.3f)\n", qerr, 2.5 * h);
  assert_true(qerr < 2.5 * h);
  assert_true(qerr > 0.5 * h); /* the bound is the error, not round-off */
}

static void test_plane_table_h063(void **st) {
  (void)st;
  const double table[7][3] = {{0.2062, -1.26, 0},     {0, -0.3273, -2.1927}, {0, 0, -3.78},
                              {0, 0, -2.96},          {0, 0, -1.70},         {0, 0, -0.44},
                              {0.5166, 0.82, 0}};
  double h = 0.63;
  agglo_gluey_plane p = {1, 0, 0, 0};
  for (int n = 0; n < 7; n++) {
    agglo_gluey_plane_step(&p, h, ref_force(n * h, (n + 1) * h), 1, 1, -INFINITY);
    assert_true(fabs(p.q - table[n][0]) < 5e-5);
    assert_true(fabs(p.u - table[n][1]) < 5e-5);
    assert_true(fabs(p.gamma - table[n][2]) < 5e-5);
  }
}

/* Time of the first take-off after a glued phase (gamma back to 0 with q > 0). */
static double takeoff_time(double h, double gmin, double *gmin_seen) {
  agglo_gluey_plane p = {1, 0, 0, 0};
  int glued = 0;
  *gmin_seen = 0;
  for (int n = 0; n * h < 6; n++) {
    agglo_gluey_plane_step(&p, h, ref_force(n * h, (n + 1) * h), 1, 1, gmin);
    *gmin_seen = fmin(*gmin_seen, p.gamma);
    if (p.gamma < 0) glued = 1;
    if (glued && p.gamma == 0 && p.q > 0) return (n + 1) * h;
  }
  return -1;
}

static void test_plane_rough(void **st) {
  (void)st;
  double h = 0.03, gs;
  double t = takeoff_time(h, -3, &gs);
  printf("# gamma_min = -3: take-off at t = %.4f (expected 3.5)\n", t);
  assert_true(fabs(t - 3.5) <= h + 1e-12);
  assert_true(gs >= -3 && gs < -2.99);
  t = takeoff_time(h, -INFINITY, &gs);
  assert_true(fabs(t - 4) <= h + 1e-12); /* smooth: t = 4 */
  /* finer steps converge to 3.5 */
  assert_true(fabs(takeoff_time(0.001, -3, &gs) - 3.5) <= 0.001 + 1e-12);
}

static void test_plane_inelastic(void **st) {
  (void)st;
  double h = 0.03, q = 1, u = 0;
  agglo_gluey_plane p = {1, 0, 0, 0};
  for (int n = 0; n * h < 6; n++) {
    double f = ref_force(n * h, (n + 1) * h);
    agglo_gluey_plane_step(&p, h, f, 1, 1, 0);
    u = fmax(u + h * f, -q / h); /* plain inelastic contact */
    q += h * u;
    assert_true(p.gamma == 0);
    assert_true(fabs(p.u - u) < 1e-12 && fabs(p.q - q) < 1e-12);
    if ((n + 1) * h > 2 + 2 * h) assert_true(p.q > 0); /* off as soon as it is pulled */
  }
}

/* ---------------------------------------------------------------- the many-particle model */

typedef struct {
  agglo_system s;
  void *state;
  agglo_config *cfg;
  const agglo_model *M;
} sim;

static void sim_start(sim *m, const char *ini, const char *const *over) {
  char err[1024] = "";
  m->cfg = make_config(ini, over);
  if (agglo_setup(&m->s, m->cfg, err, sizeof err) != 0) fail_msg("setup: %s", err);
  m->M = agglo_model_select(m->cfg);
  assert_ptr_equal(m->M, &agglo_model_gluey);
  if (m->M->init(&m->state, &m->s, m->cfg, err, sizeof err) != 0) fail_msg("init: %s", err);
}

static void sim_step(sim *m, agglo_step_info *info) {
  char err[1024] = "";
  if (m->M->step(m->state, &m->s, info, err, sizeof err) != 0) fail_msg("step: %s", err);
  assert_true(info->bad_particle == SIZE_MAX);
  assert_true(info->converged);
}

static void sim_end(sim *m) {
  m->M->destroy(m->state);
  agglo_system_free(&m->s);
  agglo_config_destroy(m->cfg);
}

static const char *plane_ini =
    "[run]\nmodel = gluey\ndim = 2\ndt = 0.03\n[particles]\nn = 1\nradii = 0.1\n"
    "mass_rule = uniform\nmass = 1\n[box]\nsize = 1, 3\nboundary = wall\n"
    "[gluey]\npositions = 0.5, 1.1\nforce_times = 0, 2\nforce = 0, -2, 0, 2\n"
    "[solver]\ntol = 1e-9\n";

/* One particle on the bottom wall: the projection (equality row for the glued wall) gives
   Algorithm 2.7 exactly, up to the take-off step (3.3 has no take-off correction). */
static void test_model_matches_plane_algorithm(void **st) {
  (void)st;
  sim m;
  sim_start(&m, plane_ini, NULL);
  agglo_gluey_plane p = {1, 0, 0, 0};
  double h = 0.03, worst = 0;
  int32_t bottom = -1 - 2; /* box walls: x low, x high, y low */
  for (int n = 0; (n + 1) * h < 4 - h; n++) {
    agglo_step_info info;
    sim_step(&m, &info);
    agglo_gluey_plane_step(&p, h, ref_force(n * h, (n + 1) * h), 1, 1, -INFINITY);
    double q = m.s.x[1] - m.s.r[0], g = agglo_gluey_gamma(m.state, 0, bottom);
    worst = fmax(worst, fmax(fabs(q - p.q), fabs(g - p.gamma)));
    assert_true(fabs(m.s.v[1] - p.u) < 1e-7);
  }
  printf("# model vs Algorithm 2.7 (t < 4): largest difference of q and gamma %.2g\n", worst);
  assert_true(worst < 1e-7);
  assert_true(agglo_gluey_gamma(m.state, 0, bottom) < -0.05); /* still glued just before t = 4 */
  sim_end(&m);
}

static const char *billiard_ini =
    "[run]\nmodel = gluey\ndim = 2\ndt = 0.01\n[particles]\nn = 2\nradii = 0.02\n"
    "mass_rule = uniform\nmass = 1\n[box]\nsize = 1.2\nboundary = wall\n"
    "[gluey]\npositions = 0.45, 0.45, 0.2, 0.2\nvelocities = 0, 0, 0.05, 0.046\n";

typedef struct {
  long glue, unglue; /* steps */
  double estimate;   /* 2 r v_n / v_t^2 from the velocities before impact */
  double worst_gap;  /* largest |gap| while glued */
  long builds_glued; /* neighbour-list builds while glued */
} billiard_result;

static billiard_result run_billiard(const char *const *over) {
  sim m;
  sim_start(&m, billiard_ini, over);
  billiard_result R = {-1, -1, 0, 0, 0};
  double r = 0.02, vprev[6] = {0};
  long b0 = 0;
  for (long n = 1; n <= 1400 && R.unglue < 0; n++) {
    double x0[6];
    memcpy(x0, m.s.x, sizeof x0);
    memcpy(vprev, m.s.v, sizeof vprev);
    agglo_step_info info;
    sim_step(&m, &info);
    double g = agglo_gluey_gamma(m.state, 0, 1);
    double dx = m.s.x[3] - m.s.x[0], dy = m.s.x[4] - m.s.x[1];
    double gap = sqrt(dx * dx + dy * dy) - 2 * r;
    agglo_gluey_stats gs;
    agglo_gluey_get_stats(m.state, &gs);
    if (R.glue < 0 && g < 0) {
      R.glue = n;
      b0 = (long)gs.builds;
      /* relative velocity before the impact step, split along the line of centres */
      double ex = x0[3] - x0[0], ey = x0[4] - x0[1], l = sqrt(ex * ex + ey * ey);
      ex /= l, ey /= l;
      double wx = vprev[3] - vprev[0], wy = vprev[4] - vprev[1];
      double vn = -(wx * ex + wy * ey), vt = fabs(-wx * ey + wy * ex);
      R.estimate = 2 * r * vn / (vt * vt);
    }
    if (R.glue > 0 && n > R.glue && g < 0) R.worst_gap = fmax(R.worst_gap, fabs(gap));
    if (R.glue > 0 && g == 0) {
      R.unglue = n;
      R.builds_glued = (long)gs.builds - b0;
    }
    assert_true(gap > -1e-9); /* never overlap */
  }
  sim_end(&m);
  return R;
}

static void test_billiard(void **st) {
  (void)st;
  billiard_result R = run_billiard(NULL);
  double dur = (double)(R.unglue - R.glue) * 0.01;
  printf("# gluey billiard: glued at step %ld, unglued at step %ld: %.2f time units; estimate "
         "2 r v_n / v_t^2 = %.2f; largest |gap| while glued %.2g\n",
         R.glue, R.unglue, dur, R.estimate, R.worst_gap);
  assert_true(R.glue > 440 && R.glue < 490); /* impact near t = 4.65 */
  assert_true(R.unglue > 0);
  assert_true(fabs(dur - R.estimate) < 0.03 * R.estimate);
  /* glued: the gap stays at the curvature error h^2 v_t^2 / (2 d) ~ 1e-6, never opens */
  assert_true(R.worst_gap < 1e-5);
}

/* gluey.glued_rows = keep (D + h G.v = max(D0, 0)): the pair keeps the gap it has, so the
   curvature opening h^2 v_t^2 / (2 d) accumulates instead of being closed; the glued duration
   still follows the estimate. */
static void test_billiard_keep(void **st) {
  (void)st;
  const char *keep[] = {"gluey.glued_rows=keep", NULL};
  billiard_result R = run_billiard(keep), E = run_billiard(NULL);
  double dur = (double)(R.unglue - R.glue) * 0.01;
  printf("# billiard, keep rows: glued at step %ld, unglued at step %ld: %.2f time units "
         "(equality rows: %ld..%ld); largest gap while glued %.2g\n",
         R.glue, R.unglue, dur, E.glue, E.unglue, R.worst_gap);
  assert_true(R.glue == E.glue);
  assert_true(fabs(dur - R.estimate) < 0.06 * R.estimate);
  assert_true(R.worst_gap < 0.05 * 0.02); /* a few percent of r after 400 glued steps */
}

/* The memory is carried by pair: with the list rebuilt every step (skin 0) the run is the same. */
static void test_gamma_across_rebuilds(void **st) {
  (void)st;
  const char *skin0[] = {"gluey.skin=0", NULL};
  billiard_result A = run_billiard(NULL), B = run_billiard(skin0);
  printf("# skin 0: %ld list builds while glued (glue %ld..%ld; skin 0.5: %ld..%ld, %ld builds)\n",
         B.builds_glued, B.glue, B.unglue, A.glue, A.unglue, A.builds_glued);
  assert_true(B.builds_glued >= B.unglue - B.glue - 1);
  assert_true(B.builds_glued > 300);
  assert_true(A.glue == B.glue && A.unglue == B.unglue);
}

/* A glued pile under gravity: every pair glued at the start of a step has its gap closed at the
   end (no separation while gamma < 0) and no pair overlaps. */
static void test_glued_pile(void **st) {
  (void)st;
  const char *ini =
      "[run]\nmodel = gluey\ndim = 2\ndt = 0.005\nseed = 3\n[particles]\nn = 40\nradius = 0.02\n"
      "radius_spread = 0.2\nmass_rule = uniform\nmass = 1\n[box]\nsize = 0.4, 0.6\n"
      "boundary = wall\n[gravity]\ng = 0, -10\n[solver]\ntol = 1e-6\n";
  sim m;
  sim_start(&m, ini, NULL);
  size_t n = m.s.n, glued_checks = 0;
  double worst_open = 0, worst_overlap = 0;
  int32_t (*gl)[2] = malloc(n * n * sizeof *gl);
  double *x0 = malloc(3 * n * sizeof *x0);
  assert_non_null(gl);
  assert_non_null(x0);
  for (int step = 0; step < 400; step++) {
    size_t ng = 0;
    for (size_t i = 0; i < n; i++)
      for (size_t j = i + 1; j < n; j++)
        if (agglo_gluey_gamma(m.state, (int32_t)i, (int32_t)j) < 0) gl[ng][0] = (int32_t)i, gl[ng++][1] = (int32_t)j;
    memcpy(x0, m.s.x, 3 * n * sizeof *x0);
    agglo_step_info info;
    sim_step(&m, &info);
    for (size_t k = 0; k < ng; k++) {
      const double *a = m.s.x + 3 * gl[k][0], *b = m.s.x + 3 * gl[k][1];
      double R = m.s.r[gl[k][0]] + m.s.r[gl[k][1]];
      const double *a0 = x0 + 3 * gl[k][0], *b0 = x0 + 3 * gl[k][1];
      double ex = b0[0] - a0[0], ey = b0[1] - a0[1], l = sqrt(ex * ex + ey * ey);
      double d = sqrt((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1])) - R;
      /* the step keeps D + h G.v = 0; the distance then grows by the curvature term
         h^2 w_t^2 / (2 R) of the relative tangential velocity w_t, closed again next step */
      const double *va = m.s.v + 3 * gl[k][0], *vb = m.s.v + 3 * gl[k][1];
      double wt = (-(vb[0] - va[0]) * ey + (vb[1] - va[1]) * ex) / l, h = 0.005;
      worst_open = fmax(worst_open, d - h * h * wt * wt / (2 * R));
      glued_checks++;
    }
    worst_overlap = fmax(worst_overlap, -info.min_gap);
  }
  agglo_gluey_stats gs;
  agglo_gluey_get_stats(m.state, &gs);
  printf("# glued pile: %zu glued-pair checks, largest opening beyond the curvature term %.2g, "
         "largest overlap %.2g, "
         "%zu glued pairs and %zu glued to walls at the end\n",
         glued_checks, worst_open, worst_overlap, gs.glued_pairs, gs.glued_obstacle);
  assert_true(glued_checks > 1000);
  assert_true(gs.glued_pairs > 10);
  assert_true(worst_open < 1e-5 * 0.02 + 1e-6); /* tol and the curvature term */
  assert_true(worst_overlap < 1e-5 * 0.02);
  free(gl);
  free(x0);
  sim_end(&m);
}

/* gamma_min = "-inf" is accepted as text, written back and read again. */
static void test_config_gamma_min(void **st) {
  (void)st;
  agglo_config *c = agglo_config_new();
  char err[512];
  assert_true(isinf(agglo_gluey_edit(c)->gamma_min) && agglo_gluey_edit(c)->gamma_min < 0);
  assert_int_equal(agglo_config_read_assignment(c, "gluey.gamma_min=-1", err, sizeof err), 0);
  assert_true(agglo_gluey_edit(c)->gamma_min == -1);
  assert_int_equal(agglo_config_read_assignment(c, "gluey.gamma_min=-inf", err, sizeof err), 0);
  assert_true(isinf(agglo_gluey_edit(c)->gamma_min));
  assert_int_not_equal(agglo_config_read_assignment(c, "gluey.gamma_min=1", err, sizeof err), 0);
  assert_int_not_equal(agglo_config_read_assignment(c, "gluey.gamma_min=inf", err, sizeof err), 0);
  assert_int_not_equal(agglo_config_read_assignment(c, "run.dt=-inf", err, sizeof err), 0);
  agglo_config_destroy(c);
}

int main(void) {
  omp_set_num_threads(1);
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_plane_exact_h003),
      cmocka_unit_test(test_plane_table_h063),
      cmocka_unit_test(test_plane_rough),
      cmocka_unit_test(test_plane_inelastic),
      cmocka_unit_test(test_model_matches_plane_algorithm),
      cmocka_unit_test(test_billiard),
      cmocka_unit_test(test_billiard_keep),
      cmocka_unit_test(test_gamma_across_rebuilds),
      cmocka_unit_test(test_glued_pile),
      cmocka_unit_test(test_config_gamma_min),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
