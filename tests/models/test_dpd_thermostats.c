/* The DPD thermostats (dpd.thermostat, src/models/dpd_model.c, docs/dpd.md): transverse (Junghans,
   Praprotnik, Kremer 2008) and Langevin hold the temperature of the Groot-Warren fluid within
   2 %, and relax the rotation of a rigid dimer to equipartition (rotational KE = kT for its 2
   rotational degrees of freedom), which the central `dpd` thermostat cannot do (the pair's
   angular momentum is conserved by central forces); bitwise the same with 1 and 2 threads; the
   end-of-run temperature record survives a restart. */
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

#include "config/config.h"
#include "core/model.h"
#include "models/dpd_model.h"
#include "core/setup.h"
#include "dpd_support.h"
#include "models/dpd_config.h"

/* Groot-Warren: rho = 3, a = 25, gamma = 4.5, kT = 1, rc = 1, dt = 0.04, lambda = 0.65. */
static void gw_config(agglo_config *c, double L, int thermostat) {
  agglo_config_defaults(c);
  c->model = &agglo_dpd_entry;
  c->dim = 3;
  c->dt = 0.04;
  c->t_end = 1e6;
  c->n = (int64_t)llround(3 * L * L * L);
  c->radius = 0.1, c->radius_spread = 0, c->mass = 1;
  c->size.n = 1, c->size.v[0] = L;
  c->boundary.n = 1, c->boundary.v[0] = 1;
  c->seed = 11;
  agglo_dpd_edit(c)->thermostat = thermostat;
}

static void groot_warren_temperature(void **st) {
  (void)st;
  for (int th = DPD_THERMO_TRANSVERSE; th <= DPD_THERMO_LANGEVIN; th++) {
    agglo_config c;
    gw_config(&c, 10, th); /* N = 3000 */
    sim S;
    start(&S, &c);
    advance(&S, 150);
    double tsum = 0, p[3] = {0, 0, 0};
    for (int k = 0; k < 400; k++) advance(&S, 1), tsum += agglo_dpd_temperature(&S.s);
    for (size_t i = 0; i < S.s.n; i++)
      for (int q = 0; q < 3; q++) p[q] += S.s.m[i] * S.s.v[3 * i + q];
    double T = tsum / 400, P = fabs(p[0]) + fabs(p[1]) + fabs(p[2]);
    printf("Groot-Warren, %s thermostat: <kT> = %.4f over 400 steps, |P| = %.3g\n",
           th == DPD_THERMO_TRANSVERSE ? "transverse" : "langevin", T, P);
    assert_true(fabs(T - 1) < 0.02);
    if (th == DPD_THERMO_TRANSVERSE) assert_true(P < 1e-9); /* pair forces: momentum conserved */
    stop(&S);
  }
}

/* Rotational kinetic energy of the dimer: (mu/2) |P v_rel|^2, mu = m/2, P = 1 - e e^T. */
static double rotational_ke(const agglo_system *s) {
  double d[3], v[3], dd = 0, ev = 0, vv = 0;
  for (int q = 0; q < 3; q++) {
    d[q] = s->x[q] - s->x[3 + q];
    d[q] -= s->box.len[q] * rint(d[q] / s->box.len[q]);
    v[q] = s->v[q] - s->v[3 + q];
    dd += d[q] * d[q], ev += d[q] * v[q], vv += v[q] * v[q];
  }
  return 0.25 * (vv - ev * ev / dd);
}

/* A Lennard-Jones dimer (well depth 100 kT, minimum at r = 1: rigid to a few %) spun to a
   rotational KE of 20 kT: the transverse and Langevin thermostats bring the mean rotational KE
   to kT (within 3 %: a single dimer, ~10 000 decorrelation times); the central dpd
   thermostat leaves the angular momentum of the pair unchanged. */
static void rotating_dimer(void **st) {
  (void)st;
  for (int th = DPD_THERMO_DPD; th <= DPD_THERMO_LANGEVIN; th++) {
    agglo_config c;
    gw_config(&c, 6, th);
    c.n = 2, c.dt = 0.002, c.radius = 0.5;
    agglo_dpd_edit(&c)->rc = 2, agglo_dpd_edit(&c)->conservative = 5; /* lj */
    agglo_dpd_edit(&c)->lj_epsilon = 100, agglo_dpd_edit(&c)->lj_sigma = pow(2, -1.0 / 6);
    /* strong friction: the rotational KE decorrelates in ~10-25 steps, so 200 000 steps give
       ~10 000 independent samples (1 % statistical error) */
    agglo_dpd_edit(&c)->transverse_ratio = 10, agglo_dpd_edit(&c)->langevin_gamma = 10;
    sim S;
    start(&S, &c);
    agglo_system *s = &S.s;
    agglo_model_dpd.destroy(S.state);
    double u = sqrt(20.0); /* KE_rot = u^2 */
    double x0[6] = {2.5, 3, 3, 3.5, 3, 3}, v0[6] = {0, u, 0, 0, -u, 0};
    memcpy(s->x, x0, sizeof x0);
    memcpy(s->v, v0, sizeof v0);
    char err[256];
    assert_int_equal(agglo_model_dpd.init(&S.state, s, &c, err, sizeof err), 0);
    double L0 = 0;
    {
      double d1 = s->x[0] - s->x[3], v1 = s->v[1] - s->v[4];
      L0 = 0.5 * d1 * v1; /* mu (d x v_rel)_z */
    }
    int steps = th == DPD_THERMO_DPD ? 20000 : 200000;
    advance(&S, steps / 20);
    double ksum = 0;
    for (int k = 0; k < steps; k++) advance(&S, 1), ksum += rotational_ke(s);
    double K = ksum / steps;
    double d[3], v[3], Lz;
    for (int q = 0; q < 3; q++) d[q] = s->x[q] - s->x[3 + q], v[q] = s->v[q] - s->v[3 + q];
    for (int q = 0; q < 3; q++) d[q] -= 6 * rint(d[q] / 6);
    Lz = 0.5 * (d[0] * v[1] - d[1] * v[0]);
    printf("rotating LJ dimer, thermostat %d: <KE_rot> = %.4f kT over %d steps (start 20 kT); "
           "L_z %.6g -> %.6g\n", th, K, steps, L0, Lz);
    if (th == DPD_THERMO_DPD) {
      assert_true(K > 15);
      assert_true(fabs(Lz / L0 - 1) < 1e-9);
    } else {
      assert_true(fabs(K - 1) < 0.03);
    }
    stop(&S);
  }
}

/* Transverse and Langevin: the same bytes with 1 and 2 threads (N above the one-thread size). */
static void same_bytes_with_1_and_2_threads(void **st) {
  (void)st;
  for (int th = DPD_THERMO_TRANSVERSE; th <= DPD_THERMO_LANGEVIN; th++) {
    agglo_config c;
    gw_config(&c, 12, th);
    agglo_dpd_edit(&c)->noise = DPD_NOISE_GAUSSIAN;
    double *xs[2], *vs[2];
    size_t n = 0;
    for (int t = 0; t < 2; t++) {
      omp_set_num_threads(t + 1);
      sim S;
      start(&S, &c);
      advance(&S, 20);
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
}

/* The end-of-run check: at step 60 the mean kT over steps 31..60, carried through save/load: a
   restart at step 40 continues bitwise, record included, even with another t_end. */
static void temperature_report_and_restart(void **st) {
  (void)st;
  agglo_config c;
  gw_config(&c, 6, DPD_THERMO_TRANSVERSE);
  c.t_end = 60 * c.dt;
  sim A, B;
  start(&A, &c);
  double mean, target, band, mean_b, target_b, band_b, Tsum = 0;
  assert_int_equal(agglo_dpd_temperature_report(A.state, &mean, &target, &band), -1);
  for (int k = 1; k <= 40; k++) advance(&A, 1), Tsum += k > 30 ? agglo_dpd_temperature(&A.s) : 0;
  FILE *f = tmpfile();
  assert_non_null(f);
  assert_int_equal(agglo_model_dpd.save(A.state, f), 0);
  size_t n3 = 3 * A.s.n;
  double *x = malloc(n3 * sizeof *x), *v = malloc(n3 * sizeof *v);
  memcpy(x, A.s.x, n3 * sizeof *x);
  memcpy(v, A.s.v, n3 * sizeof *v);
  int64_t step = A.s.step;
  for (int k = 0; k < 20; k++) advance(&A, 1), Tsum += agglo_dpd_temperature(&A.s);
  assert_int_equal(agglo_dpd_temperature_report(A.state, &mean, &target, &band), 0);
  printf("mean kT over steps 31..60: %.9f (from the system: %.9f)\n", mean, Tsum / 30);
  assert_true(target == 1 && fabs(mean - Tsum / 30) < 1e-12);
  /* restart: the system of step 40 and the model file */
  c.t_end = 200 * c.dt;
  start(&B, &c);
  agglo_model_dpd.destroy(B.state);
  memcpy(B.s.x, x, n3 * sizeof *x);
  memcpy(B.s.v, v, n3 * sizeof *v);
  B.s.step = step, B.s.t = (double)step * c.dt;
  char err[256];
  assert_int_equal(agglo_model_dpd.init(&B.state, &B.s, &c, err, sizeof err), 0);
  rewind(f);
  assert_int_equal(agglo_model_dpd.load(B.state, &B.s, f, err, sizeof err), 0);
  advance(&B, 20);
  assert_true(memcmp(A.s.x, B.s.x, n3 * sizeof *x) == 0);
  assert_true(memcmp(A.s.v, B.s.v, n3 * sizeof *v) == 0);
  assert_int_equal(agglo_dpd_temperature_report(B.state, &mean_b, &target_b, &band_b), 0);
  assert_true(mean_b == mean && band_b == band);
  /* the same fluid against a target 20 % higher is reported */
  agglo_dpd_edit(&c)->kT = 1.2;
  agglo_model_dpd.destroy(B.state);
  assert_int_equal(agglo_model_dpd.init(&B.state, &B.s, &c, err, sizeof err), 0);
  rewind(f);
  assert_int_equal(agglo_model_dpd.load(B.state, &B.s, f, err, sizeof err), 0);
  advance(&B, 5);
  assert_int_equal(agglo_dpd_temperature_report(B.state, &mean_b, &target_b, &band_b), 1);
  free(x);
  free(v);
  stop(&A);
  stop(&B);
  fclose(f);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(groot_warren_temperature),
      cmocka_unit_test(rotating_dimer),
      cmocka_unit_test(same_bytes_with_1_and_2_threads),
      cmocka_unit_test(temperature_report_and_restart),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
