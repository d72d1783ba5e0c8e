/* The DPD model (src/models/dpd_model.c): Groot-Warren fluid temperature and momentum, exact pair
   symmetry of the random and dissipative forces, bitwise reproducibility with 1 and 2 threads,
   and the SI -> reduced conversion of the thesis (A = 1e-20 J -> A* = 0.8047745018), the SI and
   reduced vdW examples the same run. */
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

#include "analysis/agglomerates.h"
#include "analysis/analysis.h"
#include "config/config.h"
#include "core/model.h"
#include "models/dpd_model.h"
#include "core/setup.h"
#include "dpd_support.h"
#include "models/dpd_config.h"

static void gw_config(agglo_config *c, double L) {
  agglo_config_defaults(c);
  c->model = &agglo_dpd_entry;
  c->dim = 3;
  c->dt = 0.04;
  c->n = (int64_t)llround(3 * L * L * L);
  c->radius = 0.1, c->radius_spread = 0, c->mass = 1;
  c->size.n = 1, c->size.v[0] = L;
  c->boundary.n = 1, c->boundary.v[0] = 1;
  c->seed = 7;
  /* the [dpd] defaults are Groot-Warren's: a = 25, gamma = 4.5, kT = 1, rc = 1, lambda = 0.65 */
}

static void momentum(const agglo_system *s, double p[3]) {
  p[0] = p[1] = p[2] = 0;
  for (size_t i = 0; i < s->n; i++)
    for (int k = 0; k < 3; k++) p[k] += s->m[i] * s->v[3 * i + k];
}

/* Groot-Warren: rho = 3, a = 25, gamma = 4.5, kT = 1, dt = 0.04, lambda = 0.65. */
static void groot_warren_temperature_and_momentum(void **st) {
  (void)st;
  agglo_config c;
  gw_config(&c, 10); /* N = 3000 */
  sim S;
  start(&S, &c);
  double p[3], pmax = 0;
  momentum(&S.s, p);
  assert_true(fabs(p[0]) + fabs(p[1]) + fabs(p[2]) < 1e-10);
  advance(&S, 150); /* equilibration from the random start */
  double tsum = 0;
  int samples = 0;
  for (int k = 0; k < 400; k++) {
    advance(&S, 1);
    tsum += agglo_dpd_temperature(&S.s);
    samples++;
    momentum(&S.s, p);
    pmax = fmax(pmax, fabs(p[0]) + fabs(p[1]) + fabs(p[2]));
  }
  double T = tsum / samples;
  printf("Groot-Warren N = %zu: <kT> = %.4f over %d steps, max |P| = %.3g\n", S.s.n, T, samples, pmax);
  assert_true(fabs(T - 1) < 0.02);
  assert_true(pmax < 1e-9); /* sum of 3000 momenta of order 1: round-off */
  stop(&S);
}

/* Two particles with opposite velocities inside the cut-off: the dissipative and random forces of
   the pair are exactly opposite, so v1 = -v2 holds bitwise at every step. */
static void pair_forces_exactly_opposite(void **st) {
  (void)st;
  agglo_config c;
  gw_config(&c, 4);
  c.n = 2;
  agglo_dpd_edit(&c)->conservative = 6; /* none: only the thermostat */
  sim S;
  start(&S, &c);
  agglo_system *s = &S.s;
  agglo_model_dpd.destroy(S.state);
  double x0[6] = {1.0, 1.0, 1.0, 1.5, 1.2, 0.9}, v0[6] = {0.3, -0.2, 0.5, -0.3, 0.2, -0.5};
  memcpy(s->x, x0, sizeof x0);
  memcpy(s->v, v0, sizeof v0);
  char err[256];
  assert_int_equal(agglo_model_dpd.init(&S.state, s, &c, err, sizeof err), 0);
  int interacting = 0;
  for (int k = 0; k < 200; k++) {
    advance(&S, 1);
    for (int q = 0; q < 3; q++) assert_true(s->v[q] == -s->v[3 + q]);
    double d2 = 0;
    for (int q = 0; q < 3; q++) d2 += (s->x[q] - s->x[3 + q]) * (s->x[q] - s->x[3 + q]);
    interacting += d2 < 1;
  }
  assert_true(interacting > 5);
  stop(&S);
}

/* Same scenario with 1 and 2 threads: identical bytes. */
static void same_bytes_with_1_and_2_threads(void **st) {
  (void)st;
  agglo_config c;
  gw_config(&c, 12); /* N = 5184: above the size below which loops run on one thread */
  agglo_dpd_edit(&c)->noise = DPD_NOISE_GAUSSIAN;
  double *xs[2], *vs[2];
  size_t n = 0;
  for (int t = 0; t < 2; t++) {
    omp_set_num_threads(t + 1);
    sim S;
    start(&S, &c);
    advance(&S, 40);
    n = S.s.n;
    xs[t] = malloc(3 * n * sizeof(double));
    vs[t] = malloc(3 * n * sizeof(double));
    memcpy(xs[t], S.s.x, 3 * n * sizeof(double));
    memcpy(vs[t], S.s.v, 3 * n * sizeof(double));
    stop(&S);
  }
  omp_set_num_threads(2);
  assert_true(memcmp(xs[0], xs[1], 3 * n * sizeof(double)) == 0);
  assert_true(memcmp(vs[0], vs[1], 3 * n * sizeof(double)) == 0);
  for (int t = 0; t < 2; t++) free(xs[t]), free(vs[t]);
}

/* An attractive force in 2D with walls and two species runs, stays finite and in the box. */
static void attractive_2d_walls_species(void **st) {
  (void)st;
  agglo_config c;
  agglo_config_defaults(&c);
  c.model = &agglo_dpd_entry;
  c.dim = 2;
  c.n = 200;
  c.radius = 0.5, c.radius_spread = 0, c.mass = 1;
  c.size.n = 1, c.size.v[0] = 30;
  c.boundary.n = 2, c.boundary.v[0] = 0, c.boundary.v[1] = 1;
  c.dt = 0.01;
  agglo_dpd_edit(&c)->kT = 1.0 / 3;
  agglo_dpd_edit(&c)->rc = 3;
  agglo_dpd_edit(&c)->conservative = 1; /* vdw */
  agglo_dpd_edit(&c)->core_k = 2000;
  agglo_dpd_edit(&c)->species.n = 2, agglo_dpd_edit(&c)->species.v[0] = 0.5, agglo_dpd_edit(&c)->species.v[1] = 0.5;
  agglo_dpd_edit(&c)->gamma_ij.n = 3, agglo_dpd_edit(&c)->gamma_ij.v[0] = 4.5, agglo_dpd_edit(&c)->gamma_ij.v[1] = 2, agglo_dpd_edit(&c)->gamma_ij.v[2] = 4.5;
  sim S;
  start(&S, &c);
  advance(&S, 300);
  for (size_t i = 0; i < S.s.n; i++) {
    assert_true(S.s.x[3 * i + 2] == 0 && S.s.v[3 * i + 2] == 0);
    assert_true(S.s.x[3 * i] >= 0 && S.s.x[3 * i] <= 30);
  }
  stop(&S);
}

/* The thesis's conversion: d = 20 nm, copper (8920 kg/m^3), 300 K, A = 1e-20 J -> A* = 0.8047745. */
static void si_conversion_of_the_thesis(void **st) {
  (void)st;
  agglo_config c;
  agglo_config_defaults(&c);
  c.model = &agglo_dpd_entry;
  agglo_dpd_edit(&c)->units = DPD_UNITS_SI;
  c.radius = 10e-9;
  c.mass = 8920 * M_PI / 6 * pow(20e-9, 3);
  agglo_dpd_edit(&c)->kT = 1.380649e-23 * 300;
  agglo_dpd_units u;
  agglo_dpd_units_of(&c, &u);
  assert_true(fabs(1e-20 / u.energy - 0.8047745018) < 1e-10);
  assert_true(fabs(u.length - 20e-9) < 1e-20);
  /* v_rms = sqrt(3 kT / m) is the velocity unit */
  assert_true(fabs(u.velocity / sqrt(3 * agglo_dpd_edit(&c)->kT / c.mass) - 1) < 1e-12);
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  agglo_dpd_edit(&c)->conservative = 1;
  agglo_dpd_edit(&c)->hamaker = 1e-20;
  agglo_dpd_describe(&c, f);
  fclose(f);
  assert_non_null(strstr(buf, "A* = 0.804775"));
  free(buf);
}

/* The thesis's ellipsoids (--definition thesis) of known agglomerates (d = 1): a dimer at distance 0.9 (inertia eigenvalues
   0.405, 0.405, 0 -> semi-axes 1.405, 1.405, 1: oblate), the same across a periodic face at 0.7,
   a straight trimer (1.62, 1.62, 0: oblate), an equilateral triangle of side 0.9 (0.81, 0.405,
   0.405: prolate), and a lone particle. */
static void agglomerates_of_known_shapes(void **st) {
  (void)st;
  double h = 0.9 * sqrt(3) / 2;
  double x[][3] = {{5, 5, 5},    {5.9, 5, 5},  {0.2, 10, 10},  {19.5, 10, 10}, {10, 3, 3},
                   {10.9, 3, 3}, {11.8, 3, 3}, {10, 15, 10},   {10.9, 15, 10}, {10.45, 15 + h, 10},
                   {15, 15, 15}};
  size_t n = sizeof x / sizeof *x;
  agglo_system s;
  assert_int_equal(agglo_system_alloc(&s, 3, n), 0);
  for (size_t i = 0; i < n; i++) {
    for (int k = 0; k < 3; k++) s.x[3 * i + k] = x[i][k];
    s.r[i] = 0.5, s.m[i] = 1, s.inv_m[i] = 1;
  }
  for (int k = 0; k < 3; k++) s.box.lo[k] = 0, s.box.len[k] = s.box.hi[k] = 20, s.box.periodic[k] = 1;
  agglo_agglomerates a;
  assert_int_equal(agglo_agglomerates_measure(&s, 0, 0.05, AGGLO_ELLIPSOID_THESIS, &a), 0);
  assert_int_equal(a.n_agglomerates, 4);
  assert_int_equal(a.n_particles, 10);
  assert_int_equal(a.largest, 3);
  assert_int_equal(a.by_class[AGGLO_OBLATE], 3);
  assert_int_equal(a.by_class[AGGLO_PROLATE], 1);
  double want[] = {4.0 / 3 * M_PI * 1.405 * 1.405, 4.0 / 3 * M_PI * 1.245 * 1.245,
                   4.0 / 3 * M_PI * 2.62 * 2.62, 4.0 / 3 * M_PI * 1.81 * 1.405 * 1.405};
  for (int w = 0; w < 4; w++) {
    int found = 0;
    for (size_t k = 0; k < a.n_agglomerates; k++) found |= fabs(a.volume[k] - want[w]) < 1e-9;
    if (!found) fail_msg("no ellipsoid of volume %g", want[w]);
  }
  /* the thesis's ratio: V / (n (4/3) pi d^3), averaged over the four */
  double ratio = 0;
  int sizes[] = {2, 2, 3, 3};
  for (int w = 0; w < 4; w++) ratio += want[w] / (sizes[w] * 4.0 / 3 * M_PI) / 4;
  assert_true(fabs(a.ratio_thesis - 100 * ratio) < 1e-9);
  assert_true(fabs(a.ratio_true - 8 * 100 * ratio) < 1e-8);
  agglo_agglomerates_free(&a);
  agglo_system_free(&s);
}

/* examples/dpd_vdw.ini and examples/dpd_vdw_si.ini, as shipped, are the same run: after 100
   steps the SI run's positions and velocities in reduced units (length = d, time = d sqrt(m/3kT))
   equal the reduced run's to 1e-9. */
static void si_and_reduced_examples_agree(void **st) {
  (void)st;
  const char *files[2] = {AGGLO_EXAMPLES "/dpd_vdw.ini", AGGLO_EXAMPLES "/dpd_vdw_si.ini"};
  agglo_config c[2];
  sim S[2];
  char err[512];
  for (int u = 0; u < 2; u++) {
    agglo_config_defaults(&c[u]);
    if (agglo_config_read_file(&c[u], files[u], err, sizeof err) != 0) fail_msg("%s", err);
    start(&S[u], &c[u]), advance(&S[u], 100);
  }
  agglo_dpd_units si;
  agglo_dpd_units_of(&c[1], &si);
  assert_true(si.si && S[0].s.n == 375 && S[1].s.n == 375);
  double worst = 0;
  for (size_t i = 0; i < 3 * S[0].s.n; i++) {
    worst = fmax(worst, fabs(S[1].s.x[i] / si.length - S[0].s.x[i]));
    worst = fmax(worst, fabs(S[1].s.v[i] / si.velocity - S[0].s.v[i]));
  }
  printf("dpd_vdw_si.ini vs dpd_vdw.ini after 100 steps: largest difference %.3g\n", worst);
  assert_true(worst < 1e-9);
  for (int u = 0; u < 2; u++) stop(&S[u]);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(groot_warren_temperature_and_momentum),
      cmocka_unit_test(pair_forces_exactly_opposite),
      cmocka_unit_test(same_bytes_with_1_and_2_threads),
      cmocka_unit_test(attractive_2d_walls_species),
      cmocka_unit_test(si_conversion_of_the_thesis),
      cmocka_unit_test(agglomerates_of_known_shapes),
      cmocka_unit_test(si_and_reduced_examples_agree),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
