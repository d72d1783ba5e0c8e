/* Pair forces (src/models/dpd_pair_forces.c): each force against its printed formula (Mokkapati 2006
   (4.1)-(4.4)), and F = -dU/dr by central finite differences, including the capped and hard-core
   regions and unequal radii. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "models/dpd_pair_forces.h"

static agglo_pair_params base(int kind) {
  agglo_pair_params p;
  memset(&p, 0, sizeof p);
  p.kind = kind;
  p.rc = 3;
  p.a = 0.134;
  p.hamaker = 0.805;
  p.surface_tension = 0.9, p.cos_theta = cos(20 * M_PI / 180), p.alpha = 0.3;
  p.edl_charge2_over_eps = 2.5, p.edl_debye = 0.2;
  p.lj_eps = 1.0, p.lj_sigma = 1.0, p.lj_rmin = 0.8;
  p.min_gap = 0.02;
  return p;
}

static double rel(double a, double b) { return fabs(a - b) / fmax(fabs(b), 1e-300); }

/* Formulas as printed, equal spheres, outside the capped region. */
static void vdw_matches_formula(void **st) {
  (void)st;
  agglo_pair_params p = base(AGGLO_PF_VDW);
  double R = 0.5;
  for (double s = 0.021; s < 1.9; s *= 1.3) {
    double F = agglo_pair_force(&p, 2 * R + s, R, R, NULL);
    assert_true(F < 0);
    assert_true(rel(-F, agglo_vdw_thesis(p.hamaker, R, s)) < 1e-12);
  }
  /* SI magnitudes: A = 1e-20 J, R = 10 nm, gap 1 nm */
  p.hamaker = 1e-20, p.rc = 1e-7, p.min_gap = 4e-10;
  double F = agglo_pair_force(&p, 21e-9, 1e-8, 1e-8, NULL);
  assert_true(rel(-F, agglo_vdw_thesis(1e-20, 1e-8, 1e-9)) < 1e-12);
}

static void vdw_reduced_is_exact_form_in_diameters(void **st) {
  (void)st;
  agglo_pair_params p = base(AGGLO_PF_VDW_REDUCED), q = base(AGGLO_PF_VDW);
  q.hamaker = 6 * p.a; /* a = A/6 */
  for (double r = 1.021; r < 2.9; r += 0.05) {
    double U1, U2;
    double F = agglo_pair_force(&p, r, 0.5, 0.5, &U1);
    assert_true(rel(-F, agglo_vdw_reduced_thesis(p.a, r)) < 1e-12);
    assert_true(rel(F, agglo_pair_force(&q, r, 0.5, 0.5, &U2)) < 1e-11);
    assert_true(rel(U1, U2) < 1e-9);
  }
}

static void capillary_matches_formula(void **st) {
  (void)st;
  agglo_pair_params p = base(AGGLO_PF_CAPILLARY);
  double R = 0.5, a = p.alpha;
  for (double H = 0.021; H < 1.9; H *= 1.25) {
    /* constant volume: V fixed at its contact value */
    double V = 0.5 * M_PI * R * R * R * pow(a, 4);
    p.cap_volume = AGGLO_CAP_CONSTANT_VOLUME;
    double F = agglo_pair_force(&p, 2 * R + H, R, R, NULL);
    assert_true(rel(-F, agglo_capillary_thesis(R, p.surface_tension, p.cos_theta, V, H)) < 1e-12);
    /* the thesis's V(H) */
    double VH = M_PI * R * R * a * a * H + V;
    p.cap_volume = AGGLO_CAP_THESIS;
    F = agglo_pair_force(&p, 2 * R + H, R, R, NULL);
    assert_true(rel(-F, agglo_capillary_thesis(R, p.surface_tension, p.cos_theta, VH, H)) < 1e-12);
  }
  /* at contact the force tends to 2 pi R gamma cos(theta) */
  p.min_gap = 0;
  p.cap_volume = AGGLO_CAP_CONSTANT_VOLUME;
  double F0 = 2 * M_PI * R * p.surface_tension * p.cos_theta;
  assert_true(rel(-agglo_pair_force(&p, 2 * R + 1e-9, R, R, NULL), F0) < 1e-6);
}

static void edl_matches_formula(void **st) {
  (void)st;
  agglo_pair_params p = base(AGGLO_PF_EDL);
  double sigma = 0.7, eps = 0.196, kappa = 5;
  p.edl_charge2_over_eps = sigma * sigma / eps, p.edl_debye = 1 / kappa;
  for (double H = 0.03; H < 1.9; H *= 1.3) {
    double F = agglo_pair_force(&p, 1 + H, 0.5, 0.5, NULL);
    assert_true(F > 0);
    assert_true(rel(F, agglo_edl_thesis(0.5, sigma, kappa, eps, H)) < 1e-12);
  }
}

static void lj_and_groot_warren(void **st) {
  (void)st;
  agglo_pair_params p = base(AGGLO_PF_LJ);
  p.lj_shift = AGGLO_LJ_CUT;
  double rm = pow(2, 1.0 / 6);
  assert_true(fabs(agglo_pair_force(&p, rm, 0.5, 0.5, NULL)) < 1e-13);
  double U;
  agglo_pair_force(&p, rm, 0.5, 0.5, &U);
  assert_true(rel(U, -1.0) < 1e-13);
  assert_true(rel(agglo_pair_force(&p, 1.5, 0.5, 0.5, NULL),
                  24 / 1.5 * (2 * pow(1.5, -12) - pow(1.5, -6))) < 1e-13);
  agglo_pair_params g = base(AGGLO_PF_GROOT_WARREN);
  g.a = 25, g.rc = 1;
  assert_true(rel(agglo_pair_force(&g, 0.3, 0.05, 0.05, &U), 25 * 0.7) < 1e-14);
  assert_true(rel(U, 0.5 * 25 * 0.49) < 1e-14);
  assert_true(agglo_pair_force(&g, 1.0, 0.05, 0.05, &U) == 0 && U == 0);
  assert_true(agglo_dpd_weight(0.25, 1) == 0.75 && agglo_dpd_weight(1.2, 1) == 0);
}

/* Each bridge law reaches its own finite contact value F0 = 2 pi R gamma cos(theta) (Mokkapati
   2006 (4.4)), whatever min_gap (the cap is van der Waals's), keeps it under overlap, and its well
   from contact to a gap D is the analytic integral of the law. */
static void capillary_contact_value_and_well(void **st) {
  (void)st;
  agglo_pair_params p = base(AGGLO_PF_CAPILLARY);
  double R = 0.5, F0 = 2 * M_PI * R * p.surface_tension * p.cos_theta, D = 0.0567;
  double b = R * p.alpha * p.alpha, c = b * b; /* thesis: R alpha^2; constant volume: R^2 alpha^4 */
  double well[2] = {F0 * c * (1 / sqrt(c) - 1 / (sqrt(D * D + c) + D)), F0 * b * log(1 + D / b)};
  for (int mode = 0; mode < 2; mode++) {
    p.cap_volume = mode; /* AGGLO_CAP_CONSTANT_VOLUME, AGGLO_CAP_THESIS */
    double U0, U1, Uo;
    assert_true(rel(-agglo_pair_force(&p, 1, R, R, &U0), F0) < 1e-12);
    assert_true(rel(-agglo_pair_force(&p, 0.95, R, R, &Uo), F0) < 1e-12);
    assert_true(rel(Uo - U0, -F0 * 0.05) < 1e-9); /* continued linearly under overlap */
    agglo_pair_force(&p, 1 + D, R, R, &U1);
    assert_true(rel(U1 - U0, well[mode]) < 1e-12);
    /* the law itself just outside contact, not the value at min_gap */
    assert_true(rel(-agglo_pair_force(&p, 1 + 1e-9, R, R, NULL), F0) < 1e-6);
  }
  /* van der Waals keeps its cap at min_gap */
  agglo_pair_params v = base(AGGLO_PF_VDW);
  assert_true(agglo_pair_force(&v, 1.01, R, R, NULL) == agglo_pair_force(&v, 1.02, R, R, NULL));
}

/* Lennard-Jones shifted at its cut-off: energy (U(rc) = 0, the force Lennard-Jones's), force
   (U(rc) = F(rc) = 0), none (cut: both jump). */
static void lj_shifted_forms(void **st) {
  (void)st;
  agglo_pair_params p = base(AGGLO_PF_LJ);
  p.rc = 2.5;
  double rc = p.rc, Uc = 4 * (pow(rc, -12) - pow(rc, -6));
  double Fc = 24 / rc * (2 * pow(rc, -12) - pow(rc, -6)), below = rc * (1 - 1e-12), U, r = 1.5;
  double Ur = 4 * (pow(r, -12) - pow(r, -6)), Fr = 24 / r * (2 * pow(r, -12) - pow(r, -6));
  p.lj_shift = AGGLO_LJ_CUT;
  assert_true(rel(agglo_pair_force(&p, below, 0.5, 0.5, &U), Fc) < 1e-9 && rel(U, Uc) < 1e-9);
  assert_true(agglo_pair_force(&p, rc, 0.5, 0.5, &U) == 0 && U == 0);
  p.lj_shift = AGGLO_LJ_ENERGY_SHIFT;
  assert_true(rel(agglo_pair_force(&p, below, 0.5, 0.5, &U), Fc) < 1e-9 && fabs(U) < 1e-12);
  assert_true(rel(agglo_pair_force(&p, r, 0.5, 0.5, &U), Fr) < 1e-14 && rel(U, Ur - Uc) < 1e-14);
  p.lj_shift = AGGLO_LJ_FORCE_SHIFT;
  assert_true(fabs(agglo_pair_force(&p, below, 0.5, 0.5, &U)) < 1e-12 && fabs(U) < 1e-12);
  assert_true(rel(agglo_pair_force(&p, r, 0.5, 0.5, &U), Fr - Fc) < 1e-14);
  assert_true(rel(U, Ur - Uc + (r - rc) * Fc) < 1e-14);
}

/* F = -dU/dr for every kind, radii equal and unequal, capped and core regions included. */
static void force_is_minus_derivative(void **st) {
  (void)st;
  int kinds[] = {AGGLO_PF_GROOT_WARREN, AGGLO_PF_VDW, AGGLO_PF_VDW_REDUCED, AGGLO_PF_CAPILLARY,
                 AGGLO_PF_EDL, AGGLO_PF_LJ};
  double radii[][2] = {{0.5, 0.5}, {0.35, 0.6}};
  int checked = 0;
  for (size_t k = 0; k < sizeof kinds / sizeof *kinds; k++)
    for (int rr = 0; rr < 2; rr++)
      for (int mode = 0; mode < 2; mode++) {
        agglo_pair_params p = base(kinds[k]);
        p.core_k = 500;
        p.cap_volume = mode;
        double ri = radii[rr][0], rj = radii[rr][1], S = ri + rj;
        for (double r = 0.55 * S; r < p.rc - 0.01; r += 0.0137) {
          double h = 1e-6 * r, Up, Um, U;
          /* skip the kinks (cap and core edges) where the derivative jumps */
          if (fabs(r - S) < 2 * h || fabs(r - S - p.min_gap) < 2 * h ||
              fabs(r - p.lj_rmin) < 2 * h)
            continue;
          double F = agglo_pair_force(&p, r, ri, rj, &U);
          agglo_pair_force(&p, r + h, ri, rj, &Up);
          agglo_pair_force(&p, r - h, ri, rj, &Um);
          double fd = -(Up - Um) / (2 * h);
          double scale = fmax(fabs(F), 1e-3 * (fabs(U) + 1));
          if (fabs(fd - F) > 1e-6 * scale)
            fail_msg("%s radii %g %g mode %d r = %g: F = %.12g, -dU/dr = %.12g",
                     agglo_pair_kind_name(kinds[k]), ri, rj, mode, r, F, fd);
          checked++;
        }
      }
  assert_true(checked > 2000);
}

/* The general Hamaker form reduces to the equal-sphere one and is symmetric in the radii. */
static void vdw_unequal_radii(void **st) {
  (void)st;
  agglo_pair_params p = base(AGGLO_PF_VDW);
  double F1 = agglo_pair_force(&p, 1.2, 0.3, 0.7, NULL), F2 = agglo_pair_force(&p, 1.2, 0.7, 0.3, NULL);
  assert_true(F1 == F2 && F1 < 0);
  /* large distance: -(A/6) 64 R1^3 R2^3 / r^7 */
  p.rc = 1e9;
  double r = 1e3, F = agglo_pair_force(&p, r, 0.3, 0.7, NULL);
  assert_true(rel(-F, p.hamaker / 6 * 64 * pow(0.3 * 0.7, 3) / pow(r, 7)) < 1e-4);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(vdw_matches_formula),
      cmocka_unit_test(vdw_reduced_is_exact_form_in_diameters),
      cmocka_unit_test(capillary_matches_formula),
      cmocka_unit_test(edl_matches_formula),
      cmocka_unit_test(lj_and_groot_warren),
      cmocka_unit_test(force_is_minus_derivative),
      cmocka_unit_test(vdw_unequal_radii),
      cmocka_unit_test(capillary_contact_value_and_well),
      cmocka_unit_test(lj_shifted_forms),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
