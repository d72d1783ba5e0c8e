/* The DPD pressure tensor (src/models/dpd_stress.h, docs/dpd.md "Pressure tensor"): a pair across
   the periodic boundary whose virial is written out by hand (conservative and dissipative parts),
   the pressure column equal to the trace / 3 of the kinetic, conservative and bridge parts, the
   same numbers with 1 and 2 threads, the ideal DPD gas at rho kT delta_ab within its statistical
   error, and the Groot-Warren fluid's conservative pressure against Groot and Warren's equation
   of state. */
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
#include "core/setup.h"
#include "dpd_support.h"
#include "models/dpd_config.h"
#include "models/dpd_pair_forces.h"
#include "models/dpd_state.h"
#include "models/dpd_stress.h"

static void gw_config(agglo_config *c, double L, double rho) {
  agglo_config_defaults(c);
  c->model = &agglo_dpd_entry, c->dim = 3, c->dt = 0.04, c->t_end = 1e6;
  c->n = (int64_t)llround(rho * L * L * L);
  c->radius = 0.1, c->radius_spread = 0, c->mass = 1;
  c->size.n = 1, c->size.v[0] = L;
  c->boundary.n = 1, c->boundary.v[0] = 1;
  c->seed = 5;
  agglo_dpd_edit(c)->stress_tensor = DPD_STRESS_ON;
}

/* The model's stats values (all columns of its runtime table). */
static size_t columns(const agglo_config *c, const sim *S, double *v) {
  const agglo_model *m = agglo_dpd_dynamics(c);
  int has[32];
  assert_true(m->stats_count <= 32);
  m->stats_numbers(S->state, v, has);
  for (size_t k = 0; k < m->stats_count; k++) assert_true(has[k] || k == 1);
  return m->stats_count;
}

static double trace(const agglo_dpd_stress *T, int part) {
  return T->part[part][DPD_P_XX] + T->part[part][DPD_P_YY] + T->part[part][DPD_P_ZZ];
}

/* Two particles across the periodic x boundary of a box of 5: separation x_i - x_j = (0.5, -0.4,
   -0.3) through the image, r = sqrt(0.5); F = a (1 - r) along e = d / r; the dissipative force
   -gamma w^2 (e.v_ij) e with v~ = v at the start; P_ab = [sum m v_a v_b + F_a d_b] / V. */
/* Two particles at xi, xj with velocities vi, vj, and the model started on them. */
static void start_pair(const agglo_config *c, sim *S, const double xi[3], const double xj[3],
                       const double vi[3], const double vj[3]) {
  char err[512];
  memset(S, 0, sizeof *S);
  if (agglo_config_validate(c, err, sizeof err) != 0) fail_msg("check: %s", err);
  if (agglo_setup(&S->s, c, err, sizeof err) != 0) fail_msg("setup: %s", err);
  for (int k = 0; k < 3; k++) {
    S->s.x[k] = xi[k], S->s.x[3 + k] = xj[k];
    S->s.v[k] = vi[k], S->s.v[3 + k] = vj[k];
  }
  if (agglo_model_dpd.init(&S->state, &S->s, c, err, sizeof err) != 0) fail_msg("init: %s", err);
}

static void two_particles(void **st) {
  (void)st;
  agglo_config c;
  gw_config(&c, 5, 0);
  c.n = 2;
  agglo_dpd_edit(&c)->kT = 1e-30; /* the random force: sqrt(2 gamma kT) ~ 1e-15 */
  const double xi[3] = {0.2, 2.5, 2.5}, xj[3] = {4.7, 2.9, 2.8};
  const double vi[3] = {1.0, 0.5, -0.25}, vj[3] = {-0.5, 0.75, 0.5};
  sim S;
  start_pair(&c, &S, xi, xj, vi, vj);
  agglo_dpd_stress T;
  agglo_dpd_stress_of(S.state, &T);
  const double d[3] = {0.5, -0.4, -0.3}, r = sqrt(0.5), w = 1 - r, V = 125;
  const double e[3] = {d[0] / r, d[1] / r, d[2] / r};
  double ev = 0;
  for (int k = 0; k < 3; k++) ev += e[k] * (vi[k] - vj[k]);
  const double Fc = 25 * w, Fd = -4.5 * w * w * ev;
  const int a_of[6] = {0, 1, 2, 0, 0, 1}, b_of[6] = {0, 1, 2, 1, 2, 2};
  for (int q = 0; q < 6; q++) {
    const int a = a_of[q], b = b_of[q];
    const double K = (vi[a] * vi[b] + vj[a] * vj[b]) / V;
    const double C = Fc * e[a] * d[b] / V, D = Fd * e[a] * d[b] / V;
    printf("component %d: kinetic %.12g (%.12g), conservative %.12g (%.12g), dissipative %.12g (%.12g), random %.3g\n",
           q, T.part[DPD_P_KINETIC][q], K, T.part[DPD_P_CONSERVATIVE][q], C,
           T.part[DPD_P_DISSIPATIVE][q], D, T.part[DPD_P_RANDOM][q]);
    assert_true(fabs(T.part[DPD_P_KINETIC][q] - K) < 1e-14);
    assert_true(fabs(T.part[DPD_P_CONSERVATIVE][q] - C) < 1e-13);
    assert_true(fabs(T.part[DPD_P_DISSIPATIVE][q] - D) < 1e-13);
    assert_true(fabs(T.part[DPD_P_RANDOM][q]) < 1e-12);
    assert_true(T.part[DPD_P_BRIDGE][q] == 0);
  }
  /* the columns: pressure_xy = the sum of the parts, pxy_* the parts */
  double v[32];
  assert_int_equal(columns(&c, &S, v), 17);
  assert_true(fabs(v[6 + 3] - (vi[0] * vi[1] + vj[0] * vj[1] + (Fc + Fd) * e[0] * d[1]) / V) < 1e-13);
  assert_true(fabs(v[14] - T.part[DPD_P_DISSIPATIVE][DPD_P_XY]) < 1e-15);
  stop(&S);
}

/* The same across the lower y face of a box sheared at rate 0.5 (Lees-Edwards, at t = 0: offset
   0): the image of j below the box moves 0.5 L slower along x, so the relative velocity of the
   dissipative force is v_i - v_j + 0.5 L x; the kinetic part takes the peculiar velocities
   v - 0.5 (y - L/2) x; viscosity = -pressure_xy / 0.5. */
static void two_particles_sheared(void **st) {
  (void)st;
  agglo_config c;
  gw_config(&c, 5, 0);
  c.n = 2;
  agglo_dpd_edit(&c)->kT = 1e-30;
  agglo_dpd_edit(&c)->stress_tensor = DPD_STRESS_AUTO;
  agglo_dpd_edit(&c)->shear_rate = 0.5;
  const double xi[3] = {1.0, 0.2, 2.5}, xj[3] = {0.6, 4.7, 2.3};
  const double vi[3] = {1.0, 0.5, -0.25}, vj[3] = {-0.5, 0.75, 0.5};
  sim S;
  start_pair(&c, &S, xi, xj, vi, vj);
  agglo_dpd_stress T;
  agglo_dpd_stress_of(S.state, &T);
  const double d[3] = {0.4, 0.5, 0.2}, r = sqrt(0.45), w = 1 - r, V = 125, rate = 0.5, L = 5;
  const double e[3] = {d[0] / r, d[1] / r, d[2] / r};
  const double vij[3] = {vi[0] - vj[0] + rate * L, vi[1] - vj[1], vi[2] - vj[2]};
  const double pi[3] = {vi[0] - rate * (xi[1] - 2.5), vi[1], vi[2]};
  const double pj[3] = {vj[0] - rate * (xj[1] - 2.5), vj[1], vj[2]};
  const double ev = e[0] * vij[0] + e[1] * vij[1] + e[2] * vij[2];
  const double Fc = 25 * w, Fd = -4.5 * w * w * ev;
  const int a_of[6] = {0, 1, 2, 0, 0, 1}, b_of[6] = {0, 1, 2, 1, 2, 2};
  for (int q = 0; q < 6; q++) {
    const int a = a_of[q], b = b_of[q];
    const double K = (pi[a] * pi[b] + pj[a] * pj[b]) / V;
    const double C = Fc * e[a] * d[b] / V, D = Fd * e[a] * d[b] / V;
    printf("sheared component %d: kinetic %.12g (%.12g), conservative %.12g (%.12g), dissipative "
           "%.12g (%.12g)\n", q, T.part[DPD_P_KINETIC][q], K, T.part[DPD_P_CONSERVATIVE][q], C,
           T.part[DPD_P_DISSIPATIVE][q], D);
    assert_true(fabs(T.part[DPD_P_KINETIC][q] - K) < 1e-14);
    assert_true(fabs(T.part[DPD_P_CONSERVATIVE][q] - C) < 1e-13);
    assert_true(fabs(T.part[DPD_P_DISSIPATIVE][q] - D) < 1e-13);
  }
  double v[32];
  assert_int_equal(columns(&c, &S, v), 18);
  assert_true(fabs(v[17] + v[9] / rate) < 1e-15 + 1e-9 * fabs(v[17]));
  stop(&S);
}

/* The pressure column is the trace / 3 of the kinetic, conservative and bridge parts (the
   thermostat's virial is left out of it, docs/dpd.md), to rounding; without the thermostat the
   pressure_aa columns themselves. The Groot-Warren fluid (also sheared) and a van der Waals
   suspension with hard core (the bridge part). */
static void trace_is_pressure(void **st) {
  (void)st;
  for (int kase = 0; kase < 4; kase++) {
    agglo_config c;
    gw_config(&c, 6, 3);
    if (kase == 1) agglo_dpd_edit(&c)->gamma = 0;
    if (kase == 3) agglo_dpd_edit(&c)->shear_rate = 0.3; /* Lees-Edwards images, peculiar v */
    if (kase == 2) {
      c.n = 120, c.radius = 0.5, c.size.v[0] = 8;
      agglo_dpd_edit(&c)->conservative = AGGLO_PF_VDW;
      agglo_dpd_edit(&c)->rc = 2, agglo_dpd_edit(&c)->core_k = 1000, agglo_dpd_edit(&c)->gamma = 13.5;
      agglo_dpd_edit(&c)->kT = 1.0 / 3, c.dt = 0.0005;
    }
    sim S;
    start(&S, &c);
    advance(&S, 20);
    double v[32];
    columns(&c, &S, v);
    agglo_dpd_stress T;
    agglo_dpd_stress_of(S.state, &T);
    const double p = (trace(&T, DPD_P_KINETIC) + trace(&T, DPD_P_CONSERVATIVE) + trace(&T, DPD_P_BRIDGE)) / 3;
    const double thermo = (trace(&T, DPD_P_DISSIPATIVE) + trace(&T, DPD_P_RANDOM)) / 3;
    const double cols = (v[6] + v[7] + v[8]) / 3;
    printf("case %d: pressure %.12g, trace/3 of K + C + B %.12g, of the columns %.12g, thermostat %.6g, "
           "bridge %.6g\n", kase, v[4], p, cols, thermo, trace(&T, DPD_P_BRIDGE) / 3);
    assert_true(fabs(p - v[4]) < 1e-8 * fabs(v[4])); /* (the column is printed with 9 digits) */
    assert_true(fabs(cols - thermo - v[4]) < 1e-8 * fabs(v[4]));
    if (kase == 1) assert_true(thermo == 0 && fabs(cols - v[4]) < 1e-8 * fabs(v[4]));
    if (kase == 2) assert_true(trace(&T, DPD_P_BRIDGE) != 0 && trace(&T, DPD_P_CONSERVATIVE) == 0);
    if (kase == 3) { /* the conservative part by a direct sum over every pair's Lees-Edwards image */
      const dpd *m = S.state;
      double P[6] = {0};
      for (size_t i = 0; i < m->n; i++)
        for (size_t j = i + 1; j < m->n; j++) {
          double d[3] = {m->p.x[0][i] - m->p.x[0][j], m->p.x[1][i] - m->p.x[1][j], m->p.x[2][i] - m->p.x[2][j]};
          agglo_le_delta_of(d, m->le.len, m->le.inv, m->le.offset, 1);
          const double r = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
          if (!(r < 1)) continue;
          const double f = 25 * (1 - r) / r;
          P[0] += f * d[0] * d[0], P[1] += f * d[1] * d[1], P[2] += f * d[2] * d[2];
          P[3] += f * d[0] * d[1], P[4] += f * d[0] * d[2], P[5] += f * d[1] * d[2];
        }
      for (int q = 0; q < 6; q++) {
        printf("sheared conservative %d: pass %.12g, direct %.12g\n", q, T.part[DPD_P_CONSERVATIVE][q], P[q] / 216);
        assert_true(fabs(T.part[DPD_P_CONSERVATIVE][q] - P[q] / 216) < 1e-9);
      }
    }
    stop(&S);
  }
}

/* 5184 particles (above the model's 4096 for threads): the tensor after 3 steps is the same
   bytes with 1 and 2 threads. */
static void threads(void **st) {
  (void)st;
  agglo_dpd_stress T[2];
  const int before = omp_get_max_threads();
  for (int t = 0; t < 2; t++) {
    omp_set_num_threads(t + 1);
    agglo_config c;
    gw_config(&c, 12, 3);
    agglo_dpd_edit(&c)->thermostat = DPD_THERMO_TRANSVERSE;
    sim S;
    start(&S, &c);
    advance(&S, 3);
    agglo_dpd_stress_of(S.state, &T[t]);
    stop(&S);
  }
  omp_set_num_threads(before);
  assert_memory_equal(&T[0], &T[1], sizeof T[0]);
}

/* Mean and standard error (blocks of 100 samples) of x[0..n). */
static void mean_err(const double *x, int n, double *mean, double *err) {
  const int B = 100, nb = n / B;
  double s = 0, s2 = 0;
  for (int b = 0; b < nb; b++) {
    double m = 0;
    for (int k = 0; k < B; k++) m += x[b * B + k];
    m /= B;
    s += m, s2 += m * m;
  }
  *mean = s / nb;
  *err = sqrt(fmax(s2 / nb - *mean * *mean, 0) / (nb - 1));
}

/* The ideal DPD gas (a = 0, the pair thermostat): <P_ab> = rho kT delta_ab, within 4 standard
   errors; dt = 0.02, where DPD-VV's temperature bias (+0.4 % at 0.04 in the Groot-Warren fluid)
   is below the error. */
static void ideal_gas(void **st) {
  (void)st;
  agglo_config c;
  gw_config(&c, 6, 3);
  agglo_dpd_edit(&c)->a = 0;
  c.dt = 0.02;
  sim S;
  start(&S, &c);
  advance(&S, 200);
  enum { STEPS = 4000 };
  double *x = malloc(6 * STEPS * sizeof *x);
  for (int k = 0; k < STEPS; k++) {
    advance(&S, 1);
    agglo_dpd_stress T;
    agglo_dpd_stress_of(S.state, &T);
    for (int q = 0; q < 6; q++) {
      double sum = 0;
      for (int p = 0; p < DPD_P_PARTS; p++) sum += T.part[p][q];
      x[q * STEPS + k] = sum;
    }
  }
  for (int q = 0; q < 6; q++) {
    double m, e;
    mean_err(x + q * STEPS, STEPS, &m, &e);
    const double want = q < 3 ? 3.0 : 0.0;
    printf("ideal gas component %d: %.5f +- %.5f (want %g)\n", q, m, e, want);
    assert_true(fabs(m - want) < 4 * e);
    assert_true(e < 0.03);
  }
  free(x);
  stop(&S);
}

/* The conservative part tr(P_C)/3 of the Groot-Warren fluid (a = 25) against Groot and Warren's
   equation of state p = rho kT + alpha a rho^2, alpha = 0.101 (J. Chem. Phys. 107, 4423, 1997),
   the mean over 300 steps after 100: within 2 % at rho = 8, where their fit holds; at rho = 3 it
   is 9 % below the fit (alpha = 0.092, docs/dpd.md), and within 2 % of the 20.65 that LAMMPS's
   pressure of the same fluid gives (23.842, less its kinetic part 3 x 1.028 and the dissipative
   virial 0.110 it counts: bench/dpd/pressure.sh). */
static void groot_warren_eos(void **st) {
  (void)st;
  const double rhos[2] = {3, 8}, want[2] = {23.842 - 3 * 1.028 - 0.110, 0.101 * 25 * 64};
  for (int k = 0; k < 2; k++) {
    agglo_config c;
    gw_config(&c, rhos[k] == 3 ? 6 : 5, rhos[k]);
    sim S;
    start(&S, &c);
    advance(&S, 100);
    double sum = 0;
    for (int t = 0; t < 300; t++) {
      advance(&S, 1);
      agglo_dpd_stress T;
      agglo_dpd_stress_of(S.state, &T);
      sum += trace(&T, DPD_P_CONSERVATIVE) / 3;
    }
    const double pc = sum / 300;
    printf("rho = %g: conservative pressure %.4f, alpha = %.5f; reference %.4f (%+.2f %%); Groot-Warren "
           "fit %.4f (%+.2f %%)\n", rhos[k], pc, pc / (25 * rhos[k] * rhos[k]), want[k],
           100 * (pc / want[k] - 1), 0.101 * 25 * rhos[k] * rhos[k],
           100 * (pc / (0.101 * 25 * rhos[k] * rhos[k]) - 1));
    assert_true(fabs(pc / want[k] - 1) < 0.02);
    stop(&S);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(two_particles), cmocka_unit_test(two_particles_sheared),
                                     cmocka_unit_test(trace_is_pressure),
                                     cmocka_unit_test(threads), cmocka_unit_test(ideal_gas),
                                     cmocka_unit_test(groot_warren_eos)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
